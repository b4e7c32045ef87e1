#!/usr/bin/env bash
# device_run.sh - one device call: correctness first, then timings, each
# section ending in a short summary.  Sections (default: check gelu sweep bench):
#   check   tests/gpu/run_gemm_suite.sh, the embedding example, every builtin
#           on the GPU against evt_math.h's C build bit for bit, fast math's
#           builtins against f64 within their bounds, the Python
#           binding and the ResNet-50 layers against F.conv2d in float64
#   torch   tests/python/test_torch.py (custom op, torch.compile, CUDA graph
#           capture) and bench_binding.py --host (host time per call)
#   examples  evtc run --check --bench of every example kernel: GEMMs at 4096^3
#           and 8192^3, convs at two ResNet-50 layers
#   tune    tests/gpu/tune.c, then evtc tune --check on GEMMs off the benchmark list
#           and conv layers ($TUNE_GEMM, $TUNE_CONV): each tuning's plans, time and
#           speed-up over the heuristic, in a fresh tuning database
#   tunesweep  bench/tune_sweep.py: every plan's time (evtc tune --dry-run) on a wide
#           set of GEMM and conv shapes, for fitting the heuristic ($OUT/tune_sweep.csv)
#   gelu    bench/profile_gelu.py (GEMM + bias + each transcendental, 4096^3)
#   sweep   bench/sweep.py (every tile configuration that can run the kernel, or
#           those named in $SWEEP_IDS; conv also at the row groups of $SWEEP_G)
#   bench   bench/bench.py -> docs/benchmarks.md (copied to $OUT)
#   fp8     tests/gpu/fp8_gemm (the four fp8 combinations, every fp8 family, exact),
#           then bench/bench_fp8.py: fp8 GEMM + row/column scales + bias + GELU -> e4m3
#           + amax against torch._scaled_mm (row-wise) + epilogue, eager and compiled,
#           and _scaled_mm alone -> $OUT/benchmarks_fp8.md
#   batched bench/bench_batched.py: batched GEMM + bias + GELU/ReLU (attention- and
#           MoE-expert-like shapes, L 8 to 512, a weight per problem or shared) against
#           torch.baddbmm + the activation, eager and compiled, and torch.bmm alone
#           -> $OUT/benchmarks_batched.md ($BATCHED_ARGS: more options, e.g. "--gelu tanh --fast-math")
#   wide    bench/bench.py --only-wide: the wide sweep (GEMM and conv against the fused
#           peers, heuristic and tuned; WIDE_PARTS="gemm" or "conv": one half; WIDE_GELU=tanh
#           WIDE_FAST=1: gelu_tanh under fast math, cuBLASLt's function; WIDE_NK="5120x1280
#           3000x1000": only those N x K pairs of the GEMM half) -> $OUT/benchmarks_wide.md
#   ab      bench/ab.py: the heuristic's pick, configurations forced by name ($AB_GEMM,
#           $AB_CONV) and the peer in alternating rounds, with the pick's plan
#   direct  bench/ab.py on the sm_90a producer/consumer tiles' direct epilogue (in
#           registers) against the shared tile (":sh"), exact and fast GELU and
#           D = acc ($DIRECT_SHAPES), and the ResNet convs with a residual;
#           then bench/direct_ab.py (ragged and whole-tile problems, f16 and bf16)
#   unaligned  bench/unaligned.py: GEMMs whose operand rows are not 16-byte aligned,
#           the heuristic's plan (the repack, then the fast path) against the same
#           configuration forced (guarded) and the peer
#   batchedcfg  bench/batched_configs.py: batched GEMM + bias + ReLU / GELU, the
#           pick against configurations forced by name ($BB_CFGS) beside torch.bmm
#   smallgemm  bench/small_gemm.py: small GEMMs, the pick against the small-problem
#           tiles forced at split-K 1 to 8, and cuBLASLt ($SMALL_GEMM_SHAPES)
#   plans   bench/plans.py: the heuristic's plan against forced plans on GEMMs
#           (a persistent plan's tail, the staged tile at short K, the ping-pong
#           against the 128x128 wgmma tile; $PLANS: tail staged streams)
#   ncu     Nsight Compute on the fused conv of bench/profile_conv.py for the
#           shape in $NCU_SHAPE (default the 28x28x128 -> 512 1x1 layer)
#   ncugemm Nsight Compute on our GEMM + bias + GELU and cuBLASLt's (bench/profile_gemm.py,
#           $NCU_GEMM, default 4096 4096 4096): time, tensor pipe, L2 bytes, clusters, stalls
#   peers   Nsight Compute on one launch each of cuDNN's fused and plain conv and
#           ours (bench/profile_peers.py): the peer's kernel names, grids, registers
#   sass    the SASS of that conv's cubins (cuobjdump, into $OUT) and ncu's
#           instruction mix and hottest source lines
#   tmarate bench/tma_rate.cu, built here by nvcc: how fast one CTA's TMA boxes
#           arrive (one issuing thread, two issuing warps, two CTAs an SM) and
#           cp.async's, with no MMA
#   sanitize  compute-sanitizer's memcheck, racecheck, synccheck and initcheck
#           over one forced configuration of every family on small ragged GEMMs
#           and convs (tests/gpu/run_sanitize.sh): a line per configuration
#           and tool, errors and seconds; fails on any error (about 3-5 min)
#   diff_fuzz[:COUNT[:SECONDS]]  tests/gpu/diff_fuzz: COUNT random programs
#           (default $FUZZ_COUNT or 10000) on random problems under every
#           configuration family, against the interpreter, for at most SECONDS
#           (default $FUZZ_SECONDS or 420; a failure's reduction may add
#           2 min); $FUZZ_ARGS more options (--seed S, --family F, --jobs J);
#           failures reduced into $OUT/diff_fuzz/; fails on any failure
# Build here first (the GPU machine has no flex/bison/cmake):
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu -j2
# then on the device (run tool, carry ["build-gpu"]):  bash bench/device_run.sh build-gpu [SECTION...]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build-gpu}" && pwd) || exit 2
shift
sections=${*:-check gelu sweep bench}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
export EVT_LIBRARY=$build/libevt.so PYTHONPATH=$root/bindings/python
export EVT_CACHE_DIR=${EVT_CACHE_DIR:-/tmp/evt-device-cache}
cd "$root" || exit 2
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | head -n 1
summary=()
overall=0
# step LABEL LOG COMMAND...: runs COMMAND into $out/LOG and records its exit
# status (77, a skip, is not a failure) and its last lines in the summary.
step() {
    local label=$1 log=$out/$2 rc=0
    shift 2
    "$@" >"$log" 2>&1 || rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 77 ] || overall=1
    summary+=("$label: exit $rc, $(tail -n 2 "$log" | tr '\n' ' ')")
}
for s in $sections; do
    start=$(date +%s)
    case $s in
    check)
        step "gemm suite" suite.log env EVTC="$build/evtc" bash tests/gpu/run_gemm_suite.sh
        step "embed" embed.log "$build/examples/embed/embed"
        step "math bits" math_bits.log "$build/tests/gpu/math_bits"
        step "fast math error" fast_math_error.log "$build/tests/gpu/fast_math_error"
        step "launch workspace" workspace.log "$build/tests/gpu/launch_workspace"
        step "python binding" python.log python3 tests/python/test_binding.py
        step "resnet shapes" resnet.log python3 tests/python/test_resnet_shapes.py
        step "cli" cli.log env EVTC="$build/evtc" bash tests/gpu/run_cli.sh
        ;;
    torch)
        step "torch op, compile, graphs" torch.log python3 tests/python/test_torch.py
        python3 tests/python/bench_binding.py --host 2>&1 | tee "$out/host.log" ;;
    examples)
        for f in examples/*.evt; do
            ir=$("$build/evtc" "$f" --emit=ir 2>/dev/null)
            for k in $(printf '%s\n' "$ir" | sed -n 's/^kernel \([A-Za-z_0-9]*\) = gemm(.*/\1/p'); do
                for n in 4096 8192; do
                    step "$k ${n}^3" "run_$k.$n.log" "$build/evtc" run "$f" --kernel "$k" --gemm "$n,$n,$n" \
                        --check --bench --seed 1
                done
            done
            for k in $(printf '%s\n' "$ir" | sed -n 's/^kernel \([A-Za-z_0-9]*\) = conv2d_fprop(.*/\1/p'); do
                step "$k 128x56x56x64->256 1x1" "run_$k.1x1.log" "$build/evtc" run "$f" --kernel "$k" \
                    --conv 128,56,56,64,256,1,1 --check --bench --seed 1
                step "$k 128x14x14x256->256 3x3" "run_$k.3x3.log" "$build/evtc" run "$f" --kernel "$k" \
                    --conv 128,14,14,256,256,3,3,1,1,1 --check --bench --seed 1
            done
        done
        ;;
    tune)
        step "tune test" tune.log "$build/tests/gpu/tune_gpu"
        cat "$out/tune.log"
        db=$(mktemp -d)
        for g in ${TUNE_GEMM:-16,4096,4096 128,11008,4096 512,4096,11008 2048,2560,2560 4096,4096,4096}; do
            step "tune mlp_up $g" "tune_gemm_$g.log" env EVT_CACHE_DIR="$db" "$build/evtc" tune \
                examples/examples.evt --kernel mlp_up --gemm "$g" --max-seconds 20 --check --seed 1
            grep -E '^(tune|best|plan|check):|FAIL' "$out/tune_gemm_$g.log"
        done
        for c in ${TUNE_CONV:-32,56,56,64,64,3,3,1,1,1 8,28,28,96,24,1,1 16,56,56,128,128,3,3,1,2,1}; do
            step "tune resnet_add_relu $c" "tune_conv_$c.log" env EVT_CACHE_DIR="$db" "$build/evtc" tune \
                examples/resnet_block.evt --kernel resnet_add_relu --conv "$c" --max-seconds 20 --check --seed 1
            grep -E '^(tune|best|plan|check):|FAIL' "$out/tune_conv_$c.log"
        done
        rm -rf "$db"
        ;;
    tunesweep) EVTC="$build/evtc" OUT="$out" python3 bench/tune_sweep.py ${TUNESWEEP:-gemm conv} 2>&1 | tee "$out/tune_sweep.log" ;;
    gelu) python3 bench/profile_gelu.py 2>&1 | tee "$out/gelu.log" ;;
    sweep) python3 bench/sweep.py ${SWEEP:-conv} 2>&1 | tee "$out/sweep.log" ;;
    ab) python3 bench/ab.py ${AB:-gemm conv} 2>&1 | tee "$out/ab.log" ;;
    direct)
        # the producer/consumer tiles' epilogue in registers against the
        # shared tile (":sh"), each forced, with the pick beside them
        env AB_FAST=1 AB_PLAIN=1 AB_SHAPES="${DIRECT_SHAPES:-4096x16384x256 4096x4096x4096 4096x14336x4096 16384x1024x4096}" \
            AB_GEMM="sm90_pp2_128x128x64_s4 sm90_pp2_128x128x64_s4:sh sm90_coop2_128x256x64_s4 sm90_coop2_128x256x64_s4:sh" \
            AB_CONV="sm90_pp2_128x128x64_s4 sm90_pp2_128x128x64_s4:sh" \
            python3 bench/ab.py ${AB:-gemm conv} 2>&1 | tee "$out/direct.log"
        python3 bench/direct_ab.py 2>&1 | tee -a "$out/direct.log" ;;
    plans) python3 bench/plans.py ${PLANS:-tail staged streams} 2>&1 | tee "$out/plans.log" ;;
    unaligned) python3 bench/unaligned.py 2>&1 | tee "$out/unaligned.log" ;;
    smallgemm) python3 bench/small_gemm.py 2>&1 | tee "$out/small_gemm.log" ;;
    batchedcfg) python3 bench/batched_configs.py 2>&1 | tee "$out/batched_configs.log" ;;
    bench)
        python3 bench/bench.py --out "$out/benchmarks.md" 2>&1 | tail -n 40 ;;
    fp8)
        step "fp8 gemm" fp8_gemm.log "$build/tests/gpu/fp8_gemm"
        grep -E 'FAIL|differs|error|PASS' "$out/fp8_gemm.log" | head -20
        python3 bench/bench_fp8.py --out "$out/benchmarks_fp8.md" 2>&1 | tee "$out/bench_fp8.log" ;;
    batched)
        # shellcheck disable=SC2086 # BATCHED_ARGS: more options, e.g. "--gelu tanh --fast-math"
        python3 bench/bench_batched.py --out "$out/benchmarks_batched.md" ${BATCHED_ARGS:-} 2>&1 |
            tee "$out/bench_batched.log"
        rc=${PIPESTATUS[0]}
        [ $rc -eq 0 ] || overall=1
        summary+=("bench_batched: exit $rc, $(grep -E '^\| (baddbmm|compiled|bmm) \|' "$out/bench_batched.log" | tr '\n' ' ')")
        ;;
    wide)
        python3 bench/bench.py --only-wide --out "$out/benchmarks_wide.md" 2>&1 | tee "$out/wide.log" ;;
    tmarate)
        step "tma_rate build" tma_rate_build.log /usr/local/cuda/bin/nvcc -arch=sm_90a -O3 -std=c++17 \
            -I kernels -o "$out/tma_rate" bench/tma_rate.cu -lcuda
        if [ -x "$out/tma_rate" ]; then
            step "tma_rate" tma_rate.log "$out/tma_rate"
            cat "$out/tma_rate.log"
            rm -f "$out/tma_rate"
        else
            cat "$out/tma_rate_build.log"
        fi ;;
    ncugemm)
        /usr/local/cuda/bin/ncu --clock-control none --launch-skip 4 --launch-count 2 \
            --section SpeedOfLight --section LaunchStats \
            --metrics 'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,dram__bytes_read.sum,launch__cluster_dim_x,launch__cluster_dim_y,regex:smsp__warp_issue_stalled_.*_per_warp_active\.pct' \
            python3 bench/profile_gemm.py ${NCU_GEMM:-4096 4096 4096} >"$out/ncu_gemm.log" 2>&1
        awk '/evt_|nvjet|gemm/ && /\(/ {print} /Duration|pipe_tensor_cycles|lts__t_bytes|dram__bytes|cluster_dim|Registers Per|Dynamic Shared/ {print "   ", $0} /stalled/ && $NF + 0 > 3 {print "   ", $1, $NF}' "$out/ncu_gemm.log" | head -n 50
        ;;
    ncu)
        /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:evt_ --launch-skip 3 --launch-count 2 \
            --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
            --section WarpStateStats --section LaunchStats \
            --metrics 'regex:smsp__warp_issue_stalled_.*_per_warp_active\.pct' \
            python3 bench/profile_conv.py ${NCU_SHAPE:-128 28 28 128 512 1 1 0} >"$out/ncu.log" 2>&1
        grep -E "evt_|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Achieved Occupancy|Theoretical Occupancy|Duration|Registers Per|Warp Cycles Per Issued|Block Limit" "$out/ncu.log" | head -n 60
        # stall reasons above 3% of active warps' cycles
        awk '/evt_/ {print} /warp_issue_stalled/ && $NF + 0 > 3 {print "   ", $1, $NF}' "$out/ncu.log" | head -n 40
        ;;
    peers)
        /usr/local/cuda/bin/ncu --clock-control none --profile-from-start off --section LaunchStats --section SpeedOfLight \
            --section Occupancy --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct \
            python3 bench/profile_peers.py ${PEER_SHAPES:-} >"$out/peers.log" 2>&1
        grep -E "^shape|^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Compute \(SM\) Throughput|L2 Cache Throughput|Registers Per|Block Size|Grid Size|Shared Memory Configuration Size|Dynamic Shared|Achieved Occupancy|dram__bytes|lts__t_sector_hit" "$out/peers.log" | head -n 150
        ;;
    sass)
        rm -rf /tmp/evt-sass-cache
        EVT_CACHE_DIR=/tmp/evt-sass-cache python3 bench/profile_conv.py ${NCU_SHAPE:-128 28 28 128 512 1 1 0}
        for f in /tmp/evt-sass-cache/*.cubin; do
            /usr/local/cuda/bin/cuobjdump -sass "$f" >"$out/$(basename "$f" .cubin).sass"
        done
        EVT_CACHE_DIR=/tmp/evt-sass-cache /usr/local/cuda/bin/ncu --clock-control none --kernel-name regex:evt_c_add --launch-skip 3 \
            --launch-count 1 --section InstructionStats --section SourceCounters --section WarpStateStats \
            --print-details all python3 bench/profile_conv.py ${NCU_SHAPE:-128 28 28 128 512 1 1 0} \
            >"$out/ncu_src.log" 2>&1
        tail -n 80 "$out/ncu_src.log"
        ;;
    sanitize)
        bash tests/gpu/run_sanitize.sh "$build" 2>&1 | tee "$out/sanitize.log"
        rc=${PIPESTATUS[0]}
        [ $rc -eq 0 ] || [ $rc -eq 77 ] || overall=1
        summary+=("sanitize: exit $rc, $(grep -c 'FAIL$' "$out/sanitize.log") runs with errors")
        ;;
    diff_fuzz | diff_fuzz:*)
        IFS=: read -r _ count secs <<<"$s"
        mkdir -p "$out/diff_fuzz"
        # Reports of failures arrive whole; the rest is progress and the totals.
        "$build/tests/gpu/diff_fuzz" --count "${count:-${FUZZ_COUNT:-10000}}" \
            --seconds "${secs:-${FUZZ_SECONDS:-420}}" --out "$out/diff_fuzz" ${FUZZ_ARGS:-} 2>&1 |
            tee "$out/diff_fuzz.log"
        rc=${PIPESTATUS[0]}
        [ $rc -eq 0 ] || [ $rc -eq 77 ] || overall=1
        summary+=("diff_fuzz: exit $rc, $(grep -o '[0-9]* failures ([^)]*)' "$out/diff_fuzz.log" |
            tail -n 1), $(grep -o '[0-9.]* programs/s' "$out/diff_fuzz.log" | tail -n 1)")
        ;;
    *) echo "unknown section $s"; exit 2 ;;
    esac
    summary+=("[$s took $(($(date +%s) - start)) s]")
done
printf '%s\n' "== summary" "${summary[@]}"
exit $overall
