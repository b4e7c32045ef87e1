#!/bin/sh
# tests/codegen/fastdiv.cu: the tile walk's precomputed divisions run on the
# host by nvcc (skipped, 77, without nvcc).
#   sh tests/codegen/fastdiv.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
    echo "fastdiv.sh: SKIP: no nvcc"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$NVCC" -std=c++17 -arch=sm_90a -diag-suppress 550 -I "$here/../../kernels" -o "$tmp/fastdiv" "$here/fastdiv.cu" || {
    echo "fastdiv.sh: nvcc failed"
    exit 1
}
"$tmp/fastdiv"
