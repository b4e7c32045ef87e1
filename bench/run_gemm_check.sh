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

echo "== build (sm_$ARCH) =="
start=$(date +%s)
nvcc -O3 -std=c++17 -gencode=arch=compute_$ARCH,code=sm_$ARCH --split-compile=0 -Xptxas -v \
    -o "$BUILD/gemm_sm80_check" bench/gemm_sm80_check.cu -lcublas 2>"$LOGS/ptxas.log" ||
    { cat "$LOGS/ptxas.log"; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
# registers and spills of the GEMM kernels, one line each
awk '/Compiling entry function .*gemm_kernel/ { name = $0; sub(/.*function ./, "", name); sub(/. for .*/, "", name) }
     /bytes spill stores/ && name != "" { spill = $5 " " $6 " " $7 " " $8 " " $9 }
     /Used [0-9]+ registers/ && name != "" { match($0, /Used [0-9]+ registers/); regs = substr($0, RSTART + 5, RLENGTH - 15);
         n++; if (regs + 0 > maxr) maxr = regs + 0; if (spill !~ /^0 bytes spill/) { bad++; print "  SPILL: " name ": " spill }
         name = "" }
     END { printf "  %d GEMM kernels, max %d registers, %d with spills\n", n, maxr, bad }' "$LOGS/ptxas.log"

echo "== NVRTC (no include paths) =="
cc -std=c11 -O1 -I"$CUDA/include" bench/gemm_sm80_nvrtc_check.c -L"$CUDA/lib64" -lnvrtc \
    -Wl,-rpath,"$CUDA/lib64" -o "$BUILD/gemm_sm80_nvrtc_check"
nvrtc_rc=0
"$BUILD/gemm_sm80_nvrtc_check" 2>&1 | tee "$LOGS/nvrtc.log" || nvrtc_rc=1

echo "== check and bench =="
rc=0
# SM clock and power every 100 ms while it runs: mma.sync at full rate can
# hit the power limit, which shows as a lower clock.
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 100 \
    >"$LOGS/clocks.csv" 2>/dev/null &
smi=$!
GEMM_CHECK_LOG="$LOGS/gemm_check.log" "$BUILD/gemm_sm80_check" "$@" || rc=$?
kill "$smi" 2>/dev/null || true
awk -F', ' 'NR > 1 && $3 + 0 > 300 { n++; c += $2; if (min == "" || $2 + 0 < min) min = $2 + 0; if ($3 + 0 > p) p = $3 + 0 }
    END { if (n) printf "under load (%d samples > 300 W): mean SM clock %.0f MHz, min %d MHz, max power %.0f W\n", n, c / n, min, p }' \
    "$LOGS/clocks.csv" || true
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
