#!/bin/sh
# The install and its users.  Installs a built evt into a fresh prefix, then
# builds and runs tests/install/consumer.c against it three ways, each with
# the shared and the static library:
#   find_package/   a CMake project: find_package(evt), evt::evt, evt::evt_static
#   pkg_config/     a plain Makefile: pkg-config --cflags --libs evt (--static)
#   subdirectory/   a CMake project that add_subdirectory()s the source tree and
#                   checks that evt leaves its cache (CMAKE_BUILD_TYPE) alone
# and compiles the installed evtc's --emit=cuda output for sm_90a with nvcc
# against the installed kernel headers (skipped without nvcc).  Without a GPU
# each consumer must stop at EVT_ERR_NO_GPU; with one, its launch must be right.
#   EVT_BUILD=build [CMAKE=cmake] [CC=cc] [NVCC=nvcc] sh tests/install/run.sh
set -u
build=$(cd "${EVT_BUILD:?set EVT_BUILD to a built evt build folder}" && pwd) || exit 1
CMAKE=${CMAKE:-cmake}
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
# The consumers' launches (GPU machines) compile into a cache of their own.
export EVT_CACHE_DIR="$tmp/cache"
# Set in the environment, these would be the projects' own choices, not evt's.
unset CMAKE_BUILD_TYPE CMAKE_EXPORT_COMPILE_COMMANDS
pass=0 fail=0

# check NAME COMMAND...: runs COMMAND into a log, which a failure prints.
check() {
    name=$1
    shift
    log=$tmp/log.$((pass + fail))
    if "$@" >"$log" 2>&1; then
        pass=$((pass + 1))
        echo "ok   $name"
    else
        fail=$((fail + 1))
        echo "FAIL $name: $*"
        tail -n 30 "$log"
        return 1
    fi
}

# consumers LABEL DIR [PREFIX...]: runs DIR's consumer_shared and
# consumer_static, each after the command words PREFIX (an env).
consumers() {
    label=$1 dir=$2
    shift 2
    for kind in shared static; do
        check "$label: consumer_$kind (a right launch, or exactly EVT_ERR_NO_GPU)" \
            "$@" "$dir/consumer_$kind" &&
            tail -n 1 "$log" | sed 's/^/       /'
    done
}

if ! check "cmake --install into a fresh prefix" "$CMAKE" --install "$build" --prefix "$prefix"; then
    echo "$pass passed, $fail failed"
    exit 1
fi
pc=$(find "$prefix" -name evt.pc | head -n 1)
check "evt.pc installed" test -f "$pc"
pcdir=$(dirname "$pc")
check "kernel headers installed under include/evt/kernels" \
    test -f "$prefix/include/evt/kernels/mainloops/conv2d_fprop.cuh"

cc_flag=-DCMAKE_C_COMPILER=$CC
if check "find_package: configure" "$CMAKE" -S "$here/find_package" -B "$tmp/fp" \
    -DCMAKE_PREFIX_PATH="$prefix" "$cc_flag" &&
    check "find_package: build" "$CMAKE" --build "$tmp/fp"; then
    consumers find_package "$tmp/fp"
    if command -v readelf >/dev/null 2>&1; then
        check "find_package: evt::evt_static leaves no libevt.so dependency" \
            sh -c "! readelf -d '$tmp/fp/consumer_static' | grep -q libevt"
    fi
fi

if command -v "$PKG_CONFIG" >/dev/null 2>&1; then
    mkdir -p "$tmp/pc"
    if check "pkg-config: make" env PKG_CONFIG_PATH="$pcdir" \
        make -C "$tmp/pc" -f "$here/pkg_config/Makefile" CC="$CC" PKG_CONFIG="$PKG_CONFIG"; then
        libdir=$(PKG_CONFIG_PATH="$pcdir" "$PKG_CONFIG" --variable=libdir evt)
        consumers pkg-config "$tmp/pc" env LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
else
    fail=$((fail + 1))
    echo "FAIL pkg-config: no $PKG_CONFIG (bash scripts/bootstrap.sh installs it)"
fi

if check "add_subdirectory: configure, parent's cache untouched" "$CMAKE" -S "$here/subdirectory" \
    -B "$tmp/sub" -DEVT_SOURCE_DIR="$top" "$cc_flag" &&
    check "add_subdirectory: build" "$CMAKE" --build "$tmp/sub" --target consumer_shared consumer_static; then
    check "add_subdirectory: CMAKE_BUILD_TYPE still empty in the cache" \
        grep -qx 'CMAKE_BUILD_TYPE:STRING=' "$tmp/sub/CMakeCache.txt"
    consumers add_subdirectory "$tmp/sub"
fi

# The generated CUDA against the install alone: the kernel headers found
# through evt.pc's kernelsdir, the nvcc line the generated file names.
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ -x "$NVCC" ]; then
    kernels=$(PKG_CONFIG_PATH="$pcdir" "$PKG_CONFIG" --variable=kernelsdir evt)
    check "installed evtc --emit=cuda (conv2d_fprop, sm_90a)" "$prefix/bin/evtc" \
        "$top/examples/resnet_block.evt" --kernel resnet_add_relu --target sm_90a --emit=cuda \
        -o "$tmp/k.cu"
    check "nvcc compiles it against the installed kernel headers" "$NVCC" -std=c++17 --fmad=false \
        -gencode arch=compute_90a,code=sm_90a -I "$kernels" -c "$tmp/k.cu" -o "$tmp/k.o"
else
    echo "skip nvcc on --emit=cuda output: no nvcc (set NVCC to its path)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
