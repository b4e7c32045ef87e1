#!/bin/sh
# tma_rate_test.sh - bench/tma_rate.cu still builds for sm_90a against the
# kernels' own wrappers (kernels/sm90/tma.cuh, which it includes), and its
# sm_90a code still holds the TMA copies and mbarrier waits it times: a
# rename there would otherwise surface only on the device.  Exit 77
# (skipped) without nvcc.
#   sh tests/bench/tma_rate_test.sh
set -u
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$NVCC" ] || { echo "tma_rate: SKIP: no nvcc at $NVCC"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-tma-rate.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
if ! "$NVCC" -arch=sm_90a -O3 -std=c++17 -I "$root/kernels" -ptx -o "$tmp/tma_rate.ptx" \
    "$root/bench/tma_rate.cu" >"$tmp/log" 2>&1; then
    echo "FAIL: bench/tma_rate.cu does not build"; cat "$tmp/log"; exit 1
fi
for insn in cp.async.bulk.tensor.2d cp.async.bulk.tensor.3d mbarrier.try_wait.parity mbarrier.arrive.expect_tx \
    cp.async.cg.shared.global; do
    grep -q "$insn" "$tmp/tma_rate.ptx" || { echo "FAIL: no $insn in its PTX"; exit 1; }
done
echo "tma_rate: ok"
