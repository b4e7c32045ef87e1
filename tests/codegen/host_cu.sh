#!/bin/sh
# tests/codegen/NAME.cu, a host program over kernels/ device code marked
# __host__ __device__ (the staged copy, the tile walk's divisions), built
# by nvcc and run (skipped, 77, without nvcc).
#   sh tests/codegen/host_cu.sh stage_copy
set -u
name=${1:?host_cu.sh: NAME (tests/codegen/NAME.cu)}
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
    echo "host_cu.sh: SKIP: no nvcc"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$NVCC" -std=c++17 -arch=sm_90a -I "$here/../../kernels" -o "$tmp/$name" "$here/$name.cu" || {
    echo "host_cu.sh: nvcc failed on $name.cu"
    exit 1
}
"$tmp/$name"
