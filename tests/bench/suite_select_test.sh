#!/bin/sh
# suite_select_test.sh - tests/gpu/run_gemm_suite.sh's selection, with
# --list (no GPU needed): the shards of N partition the runs, --rerun LOG
# leaves out exactly the runs LOG lists as passed, options as written (a
# forced configuration included), and bad --shard / --rerun arguments are
# refused with exit 2.
#   sh tests/bench/suite_select_test.sh BUILD_DIR
set -u
build=${1:?usage: suite_select_test.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
suite="$here/../gpu/run_gemm_suite.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-suite.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
list() { EVTC="$build/evtc" bash "$suite" --list "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

list >"$tmp/all" || fail "--list exited $?"
total=$(wc -l <"$tmp/all")
[ "$total" -gt 100 ] || fail "--list gave $total runs"
[ "$(sort -u "$tmp/all" | wc -l)" -eq "$total" ] || fail "a run is listed twice"
grep -q -- '--config sm90_' "$tmp/all" || fail "no line names its forced configuration"

# two shards: every run in exactly one (each listing runs the whole
# grouping, seconds under a sanitizer: two, not more)
for i in 1 2; do list --shard "$i/2" >"$tmp/s$i" || fail "--shard $i/2 exited $?"; done
[ -s "$tmp/s1" ] && [ -s "$tmp/s2" ] || fail "an empty shard"
cat "$tmp/s1" "$tmp/s2" | sort >"$tmp/union"
sort "$tmp/all" | cmp -s - "$tmp/union" || fail "the shards do not partition the runs"

# --rerun: the runs a log passed (every third, as the suite prints them) are left out
awk 'NR % 3 == 1 { printf "PASS %5.1fs  %s\n", NR / 10, $0 } NR % 3 == 2 { printf "FAIL   1.0s  %s  (exit 3)\n", $0 }' \
    "$tmp/all" >"$tmp/log"
list --rerun "$tmp/log" | sort >"$tmp/rest"
awk 'NR % 3 != 1' "$tmp/all" | sort >"$tmp/want"
cmp -s "$tmp/rest" "$tmp/want" || fail "--rerun kept $(wc -l <"$tmp/rest") runs, want $(wc -l <"$tmp/want")"

for bad in 0/3 4/3 x 2; do
    list --shard "$bad" >/dev/null 2>&1
    [ $? -eq 2 ] || fail "--shard $bad was not refused"
done
list --rerun "$tmp/none" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a missing --rerun log was not refused"
echo "suite_select: $total runs, 2 shards, --rerun: PASS"
