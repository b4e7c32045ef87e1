#!/usr/bin/env bash
# gpu_suite.sh - everything that needs the GPU, in one call on the GPU
# machine: the GPU ctest suite (label gpu: the evtc run --check matrix and
# the embedding example), then evtc run --check --bench for every GEMM
# kernel of examples/*.evt at 4096^3 and 8192^3 and every conv kernel at
# two ResNet-50 layers, and a summary table last.
#
# The GPU machine has no flex, bison or cmocka, so the script uses a build
# folder made beforehand and never rebuilds:
#   here:    cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu -j
#   device:  bench/gpu_suite.sh build-gpu        (run tool: carry ["build-gpu"])
# Full logs go to $OUT when it is set (the device tool fetches it), else to
# a temporary folder.  Exit status: 0 when everything passed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" 2>/dev/null && pwd) || build=
if [ -z "$build" ] || [ ! -x "$build/evtc" ]; then
    echo "gpu_suite: no evtc in ${1:-$root/build}: build it first (see the top of this script)"
    exit 2
fi
logs=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/evt-gpu.XXXXXX")}
mkdir -p "$logs"
evtc=$build/evtc
export EVT_CACHE_DIR=${EVT_CACHE_DIR:-${TMPDIR:-/tmp}/evt-gpu-cache}
rows=()   # summary lines

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
    --format=csv,noheader 2>&1 | head -n 2
echo "evtc: $("$evtc" --version), build $(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt")"

# ---- 1. the GPU ctest suite --------------------------------------------------
# ctest runs commands at the absolute paths the build folder was configured
# with; when the folder was made at another path, run the same commands here.
echo "== ctest -L gpu"
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
bin=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$build/CMakeCache.txt")
start=$(date +%s)
if [ "$src" = "$root" ] && [ "$bin" = "$build" ] && command -v ctest >/dev/null; then
    (cd "$build" && ctest -L gpu --output-on-failure) 2>&1 | tee "$logs/ctest_gpu.log"
    status=${PIPESTATUS[0]}
    grep -q 'tests passed' "$logs/ctest_gpu.log" || status=1
    ctest_line="ctest -L gpu: $(grep -E 'tests passed|tests failed' "$logs/ctest_gpu.log" | tail -n 1)"
else
    echo "(configured at $src, not here: running the gpu tests' commands directly)"
    EVTC=$evtc bash "$root/tests/gpu/run_gemm_suite.sh" 2>&1 | tee "$logs/ctest_gpu.log"
    status=${PIPESTATUS[0]}
    ctest_line="gemm suite: $(tail -n 1 "$logs/ctest_gpu.log")"
    "$build/examples/embed/embed" 2>&1 | tee -a "$logs/ctest_gpu.log"
    e=${PIPESTATUS[0]}
    [ "$e" -eq 0 ] || status=1
    ctest_line="$ctest_line; embed exit $e"
fi
rows+=("$(printf '%-42s %s (%s s)' "GPU tests" "$ctest_line" "$(($(date +%s) - start))")")
overall=$status

# ---- 2. the embedding example on its own ----------------------------------------
echo "== embed"
"$build/examples/embed/embed" 2>&1 | tee "$logs/embed.log"
e=${PIPESTATUS[0]}
[ "$e" -eq 0 ] || overall=1
rows+=("$(printf '%-42s %s' "embed" "$(tail -n 1 "$logs/embed.log")")")

# ---- 3. the examples' kernels, checked and timed ----------------------------------
# GEMMs at 4096^3 and 8192^3; convs at two ResNet-50 layers of
# shared/anchors (batch 128, NHWC): 56x56x64 -> 256 1x1 and 14x14x256 -> 256 3x3.
echo "== evtc run --check --bench"
: >"$logs/runs.log"
bench_one() { # LABEL FILE KERNEL SIZE-OPTION SIZE
    local label=$1 file=$2 kernel=$3 opt=$4 size=$5 log rc verdict perf
    log=$(mktemp)
    "$evtc" run "$file" --kernel "$kernel" "$opt" "$size" --check --bench --seed 1 >"$log" 2>&1
    rc=$?
    tee -a "$logs/runs.log" <"$log"
    echo >>"$logs/runs.log"
    [ $rc -eq 0 ] || overall=1
    verdict=$(sed -n 's/^check: \(PASS\|FAIL\).*/\1/p' "$log")
    perf=$(sed -n 's/^bench: \([0-9.]*\) ms.*, \([0-9.]*\) TFLOP\/s, \([0-9.]*\) GB\/s/\1 ms  \2 TFLOP\/s  \3 GB\/s/p' "$log")
    rows+=("$(printf '%-42s %-5s %s%s' "$label" "${verdict:-?}" "${perf:-no timing}" \
        "$([ $rc -eq 0 ] || echo "  (exit $rc)")")")
    rm -f "$log"
}
for f in "$root"/examples/*.evt; do
    ir=$("$evtc" "$f" --emit=ir 2>/dev/null)
    for k in $(printf '%s\n' "$ir" | sed -n 's/^kernel \([A-Za-z_0-9]*\) = gemm(.*/\1/p'); do
        for s in 4096 8192; do
            bench_one "$k ${s}^3" "$f" "$k" --gemm "$s,$s,$s"
        done
    done
    for k in $(printf '%s\n' "$ir" | sed -n 's/^kernel \([A-Za-z_0-9]*\) = conv2d_fprop(.*/\1/p'); do
        bench_one "$k 128x56x56x64->256 1x1" "$f" "$k" --conv 128,56,56,64,256,1,1
        bench_one "$k 128x14x14x256->256 3x3" "$f" "$k" --conv 128,14,14,256,256,3,3,1,1,1
    done
done

echo
echo "== summary"
for r in "${rows[@]}"; do
    echo "$r"
done
echo "logs: $logs"
exit $overall
