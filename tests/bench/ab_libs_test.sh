#!/bin/sh
# ab_libs_test.sh - bench/ab_libs.sh runs the command under each build in
# the order old, new, then new, old, round by round (so that neither build
# always runs first), each with its own EVT_LIBRARY and cache directory, and
# passes a failing command's status on.
#   sh tests/bench/ab_libs_test.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-ab-libs.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
: >"$tmp/old.so"
: >"$tmp/new.so"
fail() { echo "FAIL: $*"; cat "$tmp/out"; exit 1; }
bash "$root/bench/ab_libs.sh" "$tmp/old.so" "$tmp/new.so" 3 -- \
    sh -c 'echo "lib $(basename "$EVT_LIBRARY") cache $(basename "$EVT_CACHE_DIR")"' >"$tmp/out" 2>&1 ||
    fail "exit $?"
want="== old round 1
lib old.so cache old
== new round 1
lib new.so cache new
== new round 2
lib new.so cache new
== old round 2
lib old.so cache old
== old round 3
lib old.so cache old
== new round 3
lib new.so cache new"
[ "$(cat "$tmp/out")" = "$want" ] || fail "the order or the environment"
bash "$root/bench/ab_libs.sh" "$tmp/old.so" "$tmp/new.so" 1 -- sh -c 'exit 3' >"$tmp/out" 2>&1
[ $? -eq 3 ] || fail "a failing command's status"
bash "$root/bench/ab_libs.sh" "$tmp/old.so" "$tmp/none.so" 1 -- true >"$tmp/out" 2>&1
[ $? -eq 2 ] || fail "a missing library"
echo "ab_libs: ok"
