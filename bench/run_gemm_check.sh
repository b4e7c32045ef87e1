#!/usr/bin/env bash
# Build and run the sm_80-family GEMM mainloop check and benchmark
# (bench/gemm_sm80_check.cu) plus the NVRTC no-include-path check.
# Run from the repository root on a machine with a GPU and CUDA:
#     bash bench/run_gemm_check.sh [--quick] [--no-bench] [--no-check]
# Env: CUDA_HOME (default /usr/local/cuda), GEMM_ARCH (default 90a; 80, 86,
# 89 for Ampere/Ada), GEMM_BUILD (build folder, default build/gemm_sm80),
# OUT (if set, logs are copied there), GEMM_SANITIZE=1 (also run
# compute-sanitizer memcheck and racecheck on small problems).
set -euo pipefail

cd "$(dirname "$0")/.."
CUDA=${CUDA_HOME:-/usr/local/cuda}
ARCH=${GEMM_ARCH:-90a}
BUILD=${GEMM_BUILD:-build/gemm_sm80}
LOGS=${OUT:-$BUILD}
mkdir -p "$BUILD" "$LOGS"
export PATH="$CUDA/bin:$PATH"

. bench/harness.sh
harness_build gemm_sm80_check bench/gemm_sm80_check.cu gemm_kernel -lcublas

echo "== NVRTC (no include paths) =="
cc -std=c11 -O1 -I"$CUDA/include" bench/gemm_sm80_nvrtc_check.c -L"$CUDA/lib64" -lnvrtc \
    -Wl,-rpath,"$CUDA/lib64" -o "$BUILD/gemm_sm80_nvrtc_check"
nvrtc_rc=0
"$BUILD/gemm_sm80_nvrtc_check" 2>&1 | tee "$LOGS/nvrtc.log" || nvrtc_rc=1

echo "== check and bench =="
rc=0
GEMM_CHECK_LOG="$LOGS/gemm_check.log" harness_run "$LOGS/clocks.csv" "$BUILD/gemm_sm80_check" "$@" || rc=$?
san_rc=0
if [ "${GEMM_SANITIZE:-0}" = 1 ]; then
    for tool in memcheck racecheck; do
        echo "== compute-sanitizer $tool (problems up to 130) =="
        timeout 100 compute-sanitizer --tool "$tool" --error-exitcode 7 \
            "$BUILD/gemm_sm80_check" --quick --no-bench --max-dim 130 >"$LOGS/sanitize_$tool.log" 2>&1 ||
            san_rc=$?
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|RESULT|Error|Hazard" "$LOGS/sanitize_$tool.log" | head -8 || true
    done
fi

echo "exit: check/bench $rc, nvrtc $nvrtc_rc, sanitizer $san_rc"
[ "$rc" = 0 ] && [ "$nvrtc_rc" = 0 ] && [ "$san_rc" = 0 ]
