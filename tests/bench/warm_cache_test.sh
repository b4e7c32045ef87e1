#!/bin/sh
# warm_cache_test.sh - bench/warm_cache.sh compiles a run's kernel with the
# real NVRTC under the fake driver into the cache it is given (one cubin,
# named by key and target), and a second run of the same kernel adds none.
#   sh tests/bench/warm_cache_test.sh BUILD_DIR
set -u
build=${1:?usage: warm_cache_test.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-warm.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
# no NVRTC here: nothing to warm with (exit 77: skipped)
"$build/evtc" "$root/tests/gpu/cases/layouts.evt" --kernel rc_f16 --target sm_90a --emit ptx -o "$tmp/probe.ptx" \
    >/dev/null 2>&1
[ $? -ne 2 ] || { echo "warm_cache: SKIP: NVRTC cannot be loaded"; exit 77; }
run() {
    bash "$root/bench/warm_cache.sh" --cache "$tmp/cache" --build "$build" run "$root/tests/gpu/cases/layouts.evt" \
        --kernel rc_f16 --gemm 64,64,64 2>&1
}
out=$(run)
case $out in
*"1 cubins added, 1 in"*) ;;
*) echo "FAIL: first run: $out"; exit 1 ;;
esac
ls "$tmp/cache" | grep -Eq '^[0-9a-f]{16}-sm_90a\.cubin$' || { echo "FAIL: cache holds $(ls "$tmp/cache")"; exit 1; }
out=$(run)
case $out in
*"0 cubins added, 1 in"*) ;;
*) echo "FAIL: second run: $out"; exit 1 ;;
esac
echo "warm_cache: ok"
