#!/usr/bin/env bash
# device_run.sh - one device call: correctness first, then the timings this
# session's work changes, as one short table.  Sections (default: all):
#   check   tests/gpu/run_gemm_suite.sh, the embedding example, every builtin
#           on the GPU against evt_math.h's C build bit for bit, the Python
#           binding and the ResNet-50 layers against F.conv2d in float64
#   gelu    bench/profile_gelu.py (GEMM + bias + each transcendental, 4096^3)
#   sweep   bench/sweep.py (every tile configuration; conv also at several row groups)
#   bench   bench/bench.py -> docs/benchmarks.md (copied to $OUT)
#   ncu     Nsight Compute on the fused conv of bench/profile_conv.py for the
#           shape in $NCU_SHAPE (default the 28x28x128 -> 512 1x1 layer)
#   sass    the SASS of that conv's cubins (cuobjdump, into $OUT) and ncu's
#           instruction mix and hottest source lines
# Build here first (the GPU machine has no flex/bison/cmake):
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu -j2
# then on the device (run tool, carry ["build-gpu"]):  bash bench/device_run.sh build-gpu [SECTION...]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build-gpu}" && pwd) || exit 2
shift
sections=${*:-check gelu sweep bench}
out=${OUT:-$(mktemp -d)}
export EVT_LIBRARY=$build/libevt.so PYTHONPATH=$root/bindings/python
export EVT_CACHE_DIR=${EVT_CACHE_DIR:-/tmp/evt-device-cache}
cd "$root" || exit 2
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | head -n 1
summary=()
for s in $sections; do
    start=$(date +%s)
    case $s in
    check)
        EVTC=$build/evtc bash tests/gpu/run_gemm_suite.sh >"$out/suite.log" 2>&1
        summary+=("gemm suite: $(tail -n 1 "$out/suite.log") (exit $?)")
        "$build/examples/embed/embed" >"$out/embed.log" 2>&1
        summary+=("embed: exit $? $(tail -n 1 "$out/embed.log")")
        "$build/tests/gpu/math_bits" >"$out/math_bits.log" 2>&1
        summary+=("math bits: exit $? $(tail -n 1 "$out/math_bits.log")")
        python3 tests/python/test_binding.py >"$out/python.log" 2>&1
        summary+=("python binding: exit $? $(tail -n 3 "$out/python.log" | tr '\n' ' ')")
        python3 tests/python/test_resnet_shapes.py >"$out/resnet.log" 2>&1
        summary+=("resnet shapes: exit $? $(tail -n 1 "$out/resnet.log")")
        ;;
    gelu) python3 bench/profile_gelu.py 2>&1 | tee "$out/gelu.log" ;;
    sweep) python3 bench/sweep.py ${SWEEP:-conv} 2>&1 | tee "$out/sweep.log" ;;
    bench)
        python3 bench/bench.py --out "$out/benchmarks.md" 2>&1 | tail -n 40 ;;
    ncu)
        /usr/local/cuda/bin/ncu --kernel-name regex:evt_ --launch-skip 3 --launch-count 2 \
            --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
            --section WarpStateStats --section LaunchStats \
            python3 bench/profile_conv.py ${NCU_SHAPE:-128 28 28 128 512 1 1 0} >"$out/ncu.log" 2>&1
        grep -E "evt_|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Achieved Occupancy|Theoretical Occupancy|Duration|Registers Per|Stall|Warp Cycles Per Issued|Block Limit" "$out/ncu.log" | head -n 60
        ;;
    sass)
        rm -rf /tmp/evt-sass-cache
        EVT_CACHE_DIR=/tmp/evt-sass-cache python3 bench/profile_conv.py ${NCU_SHAPE:-128 28 28 128 512 1 1 0}
        for f in /tmp/evt-sass-cache/*.cubin; do
            /usr/local/cuda/bin/cuobjdump -sass "$f" >"$out/$(basename "$f" .cubin).sass"
        done
        EVT_CACHE_DIR=/tmp/evt-sass-cache /usr/local/cuda/bin/ncu --kernel-name regex:evt_c_add --launch-skip 3 \
            --launch-count 1 --section InstructionStats --section SourceCounters --section WarpStateStats \
            --print-details all python3 bench/profile_conv.py ${NCU_SHAPE:-128 28 28 128 512 1 1 0} \
            >"$out/ncu_src.log" 2>&1
        tail -n 80 "$out/ncu_src.log"
        ;;
    *) echo "unknown section $s"; exit 2 ;;
    esac
    summary+=("[$s took $(($(date +%s) - start)) s]")
done
printf '%s\n' "== summary" "${summary[@]}"
