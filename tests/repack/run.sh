#!/bin/sh
# run.sh - builds tests/repack/repack_host.cpp against kernels/ with the
# host C++ compiler (nvcc's, which CUDA needs anyway) and runs it; skipped
# (77) where there is none.
top=$(cd "$(dirname "$0")/../.." && pwd)
cxx=${CXX:-c++}
command -v "$cxx" > /dev/null 2>&1 || { echo "repack_host: SKIP: no C++ compiler ($cxx)"; exit 77; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$cxx" -std=c++17 -O1 -Wall -Wno-unknown-pragmas -I"$top/kernels" "$top/tests/repack/repack_host.cpp" \
    -o "$tmp/repack_host" || { echo "repack_host: FAIL: does not build"; exit 1; }
"$tmp/repack_host"
