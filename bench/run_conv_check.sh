#!/usr/bin/env bash
# Build and run the implicit-GEMM conv2d mainloop check and benchmark
# (bench/conv_sm80_check.cu: NVRTC compile check, correctness grid, ResNet-50
# timings), then time PyTorch's cuDNN conv on the same shapes in the same
# call for a same-machine comparison.
# Run from the repository root on a machine with a GPU and CUDA:
#     bash bench/run_conv_check.sh [--quick] [--no-check] [--no-bench]
# Env: CUDA_HOME (default /usr/local/cuda), CONV_ARCH (default 90a; 80, 86,
# 89 for Ampere/Ada), CONV_BUILD (build folder, default build/conv_sm80),
# OUT (if set, logs are written there), CONV_TORCH=0 skips the PyTorch part,
# CONV_NCU=1 also profiles a few bench kernels with Nsight Compute
# (--clock-control none) into conv_ncu.txt.
set -euo pipefail

cd "$(dirname "$0")/.."
CUDA=${CUDA_HOME:-/usr/local/cuda}
ARCH=${CONV_ARCH:-90a}
BUILD=${CONV_BUILD:-build/conv_sm80}
LOGS=${OUT:-$BUILD}
mkdir -p "$BUILD" "$LOGS"
export PATH="$CUDA/bin:$PATH"

echo "== plain C part (C11, -Werror) =="
printf '#include "kernels/gemm_sm80.cuh"\n#include "kernels/conv_sm80.cuh"\nint main(void) { return evt_conv_sm80_pick(1, 1, 1, 0) < 0 || !evt_conv_sm80_fast_path_ok(8, 16, 32); }\n' |
    cc -std=c11 -Wall -Wextra -Werror -pedantic -I. -x c - -o "$BUILD/conv_c_part" && "$BUILD/conv_c_part" && echo ok

. bench/harness.sh
harness_build conv_sm80_check bench/conv_sm80_check.cu conv_kernel -lnvrtc

echo "== check and bench =="
rc=0
CONV_CHECK_LOG="$LOGS/conv_check.log" harness_run "$LOGS/conv_clocks.csv" "$BUILD/conv_sm80_check" "$@" || rc=$?

if [ "${CONV_NCU:-0}" = 1 ]; then
    echo "== ncu (conv_ncu.txt) =="
    ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
        -k regex:'conv_kernel|gemm_kernel' "$BUILD/conv_sm80_check" --profile >"$LOGS/conv_ncu.txt" 2>&1 || true
    grep -E "conv_kernel|gemm_kernel|Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|No Eligible|Warp Cycles Per Issued" \
        "$LOGS/conv_ncu.txt" | sed -e 's/evt_gemm_sm80_tile<//' -e 's/(evt_conv_args, void \*)//' | cut -c1-150 || true
fi

torch_rc=0
if [ "${CONV_TORCH:-1}" = 1 ] && python3 -c 'import torch, triton' 2>/dev/null; then
    echo "== PyTorch/cuDNN on the same shapes (channels-last f16, do_bench median, L2 flushed) =="
    PYTHONUNBUFFERED=1 python3 - <<'EOF' 2>&1 | tee "$LOGS/conv_torch.log" || torch_rc=$?
import torch, torch.nn.functional as F
from triton.testing import do_bench
torch.backends.cudnn.benchmark = True
dev = torch.device("cuda")
p = torch.cuda.get_device_properties(0)
print(f"# {p.name} torch={torch.__version__} cudnn={torch.backends.cudnn.version()}")
def t(fn): return do_bench(fn, warmup=25, rep=100, return_mode="median") * 1e3
print(f"{'layer':<24} {'conv alone':>11} {'cuDNN fused':>12}   (us)")
for n, h, w, c, k, r, s, stride, pad in [(128, 56, 56, 64, 256, 1, 1, 1, 0), (128, 56, 56, 64, 64, 3, 3, 1, 1),
                                         (128, 28, 28, 128, 512, 1, 1, 1, 0), (128, 14, 14, 256, 1024, 1, 1, 1, 0),
                                         (128, 14, 14, 256, 256, 3, 3, 1, 1), (128, 7, 7, 512, 2048, 1, 1, 1, 0)]:
    x = torch.randn(n, c, h, w, device=dev, dtype=torch.float16).to(memory_format=torch.channels_last)
    wt = (torch.randn(k, c, r, s, device=dev, dtype=torch.float16) * 0.05).to(memory_format=torch.channels_last)
    b = torch.randn(k, device=dev, dtype=torch.float16)
    pp = (h + 2 * pad - r) // stride + 1; qq = (w + 2 * pad - s) // stride + 1
    z = torch.randn(n, k, pp, qq, device=dev, dtype=torch.float16).to(memory_format=torch.channels_last)
    conv = t(lambda: F.conv2d(x, wt, None, stride, pad))
    try:
        fused = t(lambda: torch.cudnn_convolution_add_relu(x, wt, z, 1.0, b, (stride, stride), (pad, pad), (1, 1), 1))
    except Exception as e:
        fused = float("nan")
    print(f"{h}x{w}x{c}->{k} {r}x{s}".ljust(24) + f" {conv:11.1f} {fused:12.1f}")
EOF
fi

echo "exit: check/bench $rc, torch $torch_rc"
[ "$rc" = 0 ]
