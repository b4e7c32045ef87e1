#!/bin/sh
# tests/codegen/stage_copy.cu: the direct epilogue's staged copy run on the
# host by nvcc (skipped, 77, without nvcc).
#   sh tests/codegen/stage_copy.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
    echo "stage_copy.sh: SKIP: no nvcc"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$NVCC" -std=c++17 -arch=sm_90a -I "$here/../../kernels" -o "$tmp/stage_copy" "$here/stage_copy.cu" || {
    echo "stage_copy.sh: nvcc failed"
    exit 1
}
"$tmp/stage_copy"
