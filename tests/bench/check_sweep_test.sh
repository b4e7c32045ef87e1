#!/bin/sh
# check_sweep_test.sh - bench/check_sweep.sh on the CPU: under the fake
# driver with EVT_RUN_EMULATE=1 (the f32 interpreter's outputs, the
# accumulator moved within its rounding) a sweep passes and says so; with
# EVT_RUN_EMULATE=wrong (moved past the bracket) the program that depends
# on its accumulator fails, is listed, and the sweep exits 1.
#   sh tests/bench/check_sweep_test.sh BUILD_DIR
set -u
build=${1:?usage: check_sweep_test.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ -x "$build/tests/progen_print" ] || { echo "check_sweep: SKIP: no $build/tests/progen_print"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-sweep-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
export EVT_CUDA_DRIVER=$build/tests/libevt_fakecuda.so EVT_NVRTC_LIBRARY=$build/tests/libevt_fakecuda.so
export EVT_CACHE_DIR=$tmp/cache
EVT_RUN_EMULATE=1 BUILD=$build bash "$root/bench/check_sweep.sh" 1453 1456 "401,399,300 257,311,129" 3 >"$tmp/ok" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q "^check_sweep: 3 programs, 0 failing" "$tmp/ok"; then
    echo "FAIL: the emulated sweep: exit $rc"; cat "$tmp/ok"; exit 1
fi
EVT_RUN_EMULATE=wrong BUILD=$build bash "$root/bench/check_sweep.sh" 1453 1454 "401,399,300" >"$tmp/bad" 2>&1
rc=$?
if [ $rc -ne 1 ] || ! grep -q "^p1453 401,399,300 .*exit 3" "$tmp/bad" || ! grep -q "^check_sweep: 1 programs, 1 failing" "$tmp/bad"; then
    echo "FAIL: the sweep moved past the bracket: exit $rc, want 1 with p1453 listed"; cat "$tmp/bad"; exit 1
fi
echo "check_sweep: ok"
