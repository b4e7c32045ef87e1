#!/usr/bin/env bash
# warm_cache.sh - compile, on a machine without a GPU, the kernels a device
# call will launch, into a kernel cache directory that the call then
# carries (run's `carry`) and points EVT_CACHE_DIR at: the device's time
# goes to running them, not to NVRTC.
#
# evtc runs under tests/fakecuda's driver (EVT_CUDA_DRIVER: an sm_90a
# device of 132 SMs, FAKECUDA_CC / FAKECUDA_SMS to change it) with the
# real NVRTC, so each launch compiles and writes its cubin to the cache as
# on the GPU, then "runs" without computing anything (a --check fails: the
# suite's lines say FAIL here, which is expected).  A cubin's cache key is
# the generated CUDA, the kernels/ headers, the NVRTC options, the target
# and NVRTC's version (runtime/cache.c): not the device's name or SM count,
# which only steer the planner's pick for runs that force no
# configuration.  So a cubin made here is found on the GPU machine where
# its CUDA toolkit's NVRTC has the same version, and the plan is the same
# (for picked configurations, the same SM count: FAKECUDA_SMS).  The CUDA
# source names the .evt file (its basename and lines), so Python scripts'
# kernels, named by their `evt.compile(name=...)`, are warmed only from a
# file of that name and text.
#
#     bash bench/warm_cache.sh --cache DIR [--build DIR] suite [run_gemm_suite.sh options]
#     bash bench/warm_cache.sh --cache DIR [--build DIR] run FILE.evt --kernel K --gemm M,N,K [evtc run options]
#     EVT_CONFIG=sm90_pp2_128x128x64_s4 bash bench/warm_cache.sh --cache DIR run ...
#
# Prints the cache's cubins and size at the end.  Exit 2 on a usage error
# or a missing build; the runs' own failures do not count (see above).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
cache=
while [ $# -gt 0 ]; do
    case "$1" in
        --cache) cache=${2:?warm_cache: --cache needs a directory}; shift 2 ;;
        --build) build=${2:?warm_cache: --build needs a directory}; shift 2 ;;
        -*) echo "warm_cache: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
mode=${1:-}
[ -n "$cache" ] || { echo "warm_cache: --cache DIR is required" >&2; exit 2; }
[ -n "$mode" ] || { echo "warm_cache: say suite or run" >&2; exit 2; }
shift
evtc=$build/evtc
fake=$build/tests/libevt_fakecuda.so
for f in "$evtc" "$fake"; do
    [ -e "$f" ] || { echo "warm_cache: $f is missing (build $build first, with its tests)" >&2; exit 2; }
done
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
export EVT_CUDA_DRIVER=$fake EVT_CACHE_DIR=$cache FAKECUDA_CC=${FAKECUDA_CC:-90}
before=$(find "$cache" -name '*.cubin' | wc -l)
log=${TMPDIR:-/tmp}/warm_cache_$mode.log
case "$mode" in
    suite) EVTC=$evtc bash "$root/tests/gpu/run_gemm_suite.sh" "$@" > "$log" 2>&1 || true ;;
    run) "$evtc" run "$@" > "$log" 2>&1 || true ;;
    *) echo "warm_cache: unknown mode $mode (suite or run)" >&2; exit 2 ;;
esac
after=$(find "$cache" -name '*.cubin' | wc -l)
echo "warm_cache: $((after - before)) cubins added, $after in $cache ($(du -sh "$cache" | cut -f1))"
echo "warm_cache: the runs' output (their --check FAILs expected) in $log"
# nothing compiled and nothing cached before: the runs' own error, not the fake's
if [ "$after" -eq 0 ]; then
    tail -n 5 "$log" >&2
fi
