# harness.sh - what bench/run_gemm_check.sh and bench/run_conv_check.sh share,
# sourced after they set CUDA, ARCH, BUILD and LOGS.

# harness_build NAME SOURCE ENTRY_REGEX [LIBS...]: nvcc -O3 for sm_$ARCH into
# $BUILD/NAME, ptxas's report in $LOGS/NAME.ptxas.log, then one line of
# registers and spills over the entry points matching ENTRY_REGEX.
harness_build() {
    local name=$1 src=$2 entries=$3 start
    shift 3
    echo "== build $name (sm_$ARCH) =="
    start=$(date +%s)
    nvcc -O3 -std=c++17 -gencode=arch=compute_$ARCH,code=sm_$ARCH --split-compile=0 -Xptxas -v \
        -o "$BUILD/$name" "$src" "$@" 2>"$LOGS/$name.ptxas.log" ||
        { cat "$LOGS/$name.ptxas.log"; return 1; }
    echo "built in $(($(date +%s) - start)) s"
    awk -v re="$entries" '$0 ~ "Compiling entry function .*" re { name = $0; sub(/.*function ./, "", name); sub(/. for .*/, "", name) }
         /bytes spill stores/ && name != "" { spill = $5 " " $6 " " $7 " " $8 " " $9 }
         /Used [0-9]+ registers/ && name != "" { match($0, /Used [0-9]+ registers/); regs = substr($0, RSTART + 5, RLENGTH - 15);
             n++; if (regs + 0 > maxr) maxr = regs + 0; if (spill !~ /^0 bytes spill/) { bad++; print "  SPILL: " name ": " spill }
             name = "" }
         END { printf "  %d kernels, max %d registers, %d with spills\n", n, maxr, bad }' "$LOGS/$name.ptxas.log" |
        { command -v c++filt >/dev/null && c++filt || cat; }
}

# harness_run CLOCKS_CSV COMMAND...: runs COMMAND while nvidia-smi logs the SM
# clock and power every 100 ms (mma.sync at full rate can reach the power
# limit, which shows as a lower clock), then summarizes the log.  Returns
# COMMAND's status.
harness_run() {
    local csv=$1 smi rc=0
    shift
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 100 \
        >"$csv" 2>/dev/null &
    smi=$!
    "$@" || rc=$?
    kill "$smi" 2>/dev/null || true
    awk -F', ' 'NR > 1 && $3 + 0 > 300 { n++; c += $2; if (min == "" || $2 + 0 < min) min = $2 + 0; if ($3 + 0 > p) p = $3 + 0 }
        END { if (n) printf "under load (%d samples > 300 W): mean SM clock %.0f MHz, min %d MHz, max power %.0f W\n", n, c / n, min, p }' \
        "$csv" || true
    return $rc
}
