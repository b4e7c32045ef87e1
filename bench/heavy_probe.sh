#!/usr/bin/env bash
# heavy_probe.sh - epilogues heavier than any we wrote, on the tiles the
# heuristic picks and the ones it could: random programs of
# tests/support/progen.c that are not per element (they read an [M, N]
# input or reduce) and compute several costly builtins (ir/ops.h's
# IR_COSTLY) an element, the class where the three-stage cooperative tile's
# fast entry spills (docs/codegen.md, "Heavy epilogues", session 69).
#
#     bash bench/heavy_probe.sh select FIRST LAST DIR [MIN_COSTLY]   # CPU
#     bash bench/heavy_probe.sh spills DIR/list                      # CPU (ptxas)
#     bash bench/heavy_probe.sh time DIR/list "M,N,K ..." [ROUNDS] [REPS]   # GPU
#
# select writes seeds FIRST..LAST-1's programs into DIR and lists the heavy
# ones (the planner's plan_heavy_epilogue, through progen_print --classes)
# with MIN_COSTLY costly [M, N] values or more (path, costly values,
# reductions, [M, N] inputs read, outputs) in DIR/list.  spills prints ptxas's spill stores / loads, bytes a thread, of
# each listed program's fast sm_90a entry on $CONFIGS (default the
# cooperative 128x256 tile at three and four stages and the 128x128
# ping-pong tile), at the row group codegen picks and at 2 (":g2").  time
# runs `evtc run --bench` of each program and shape with each of $VARIANTS
# (P the heuristic's pick, G2 the pick at row group 2, C3 | C4 the
# cooperative tile at three | four stages, P4 | P6 the ping-pong tile at
# four | six stages), the variants' order rotated each round, one line
# each: round, program, shape, variant, µs, the plan run.
# $BUILD (default build) holds evtc and, built with the tests, tests/progen_print.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
evtc=$build/evtc
mode=${1:?heavy_probe: say select, spills or time}
shift
case "$mode" in
select)
    first=${1:?FIRST}; last=${2:?LAST}; dir=${3:?DIR}; min=${4:-2}
    mkdir -p "$dir"
    gen=$build/tests/progen_print # the CMake target progen_print, built with the tests
    [ -x "$gen" ] || { echo "heavy_probe: $gen is missing (build $build with its tests)" >&2; exit 2; }
    # each program's classes as the planner reads them (progen_print --classes: path,
    # costly [M, N] values, reductions, [M, N] inputs read, outputs, plan_heavy_epilogue)
    "$gen" "$first" "$last" "$dir" --classes > "$dir/classes"
    awk -v min="$min" '$6 == 1 && $2 >= min {print $1, $2, $3, $4, $5}' "$dir/classes" > "$dir/list"
    echo "heavy_probe: $(wc -l < "$dir/list") heavy programs of $((last - first)) in $dir/list"
    ;;
spills)
    list=${1:?LIST}
    configs=${CONFIGS:-"sm90_coop2_128x256x64_s3 sm90_coop2_128x256x64_s4 sm90_pp2_128x128x64_s4"}
    ptx=$(mktemp --suffix=.ptx)
    trap 'rm -f "$ptx"' EXIT
    while read -r f rest; do
        line="$(basename "$f" .evt) ($rest)"
        for c in $configs; do
            for g in "" 2; do
                if ! EVT_CONFIG=$c EVT_ROW_GROUP=$g "$evtc" "$f" --target sm_90a --emit=ptx -o "$ptx" 2> /dev/null; then
                    line="$line $c${g:+:g$g} -"
                    continue
                fi
                sp=$(/usr/local/cuda/bin/ptxas -arch=sm_90a -v "$ptx" -o /dev/null 2>&1 |
                    grep -A2 "Compiling entry function 'evt_k_gemm_${c}_sm90a'" |
                    grep -oE "[0-9]+ bytes spill stores, [0-9]+ bytes spill loads" | awk '{print $1 "/" $5}')
                line="$line $c${g:+:g$g} ${sp:-?}"
            done
        done
        echo "$line"
    done < "$list"
    ;;
time)
    list=${1:?LIST}; shapes=${2:?SHAPES}; rounds=${3:-1}; reps=${4:-20}
    read -r -a vs <<< "${VARIANTS:-P G2 C4 P4 P6}"
    n=${#vs[@]}
    for r in $(seq 1 "$rounds"); do
        while read -r f rest; do
            for s in $shapes; do
                for i in $(seq 0 $((n - 1))); do
                    v=${vs[$(((i + r - 1) % n))]}
                    case $v in
                    P) env=() ;;
                    G2) env=(EVT_ROW_GROUP=2) ;;
                    C3) env=(EVT_CONFIG=sm90_coop2_128x256x64_s3) ;;
                    C4) env=(EVT_CONFIG=sm90_coop2_128x256x64_s4) ;;
                    P4) env=(EVT_CONFIG=sm90_pp2_128x128x64_s4) ;;
                    P6) env=(EVT_CONFIG=sm90_pp2_128x128x64_s6) ;;
                    *) echo "heavy_probe: unknown variant $v" >&2; exit 2 ;;
                    esac
                    out=$(env "${env[@]}" "$evtc" run "$f" --kernel k --gemm "$s" --bench --reps "$reps" \
                        --seed 69 2>&1 < /dev/null) || true
                    # a failed run prints no bench or plan line: its line says ERR, and the loop goes on
                    t=$(grep -oE "^bench: [0-9.]+" <<< "$out" | awk '{print $2 * 1000}' || true)
                    plan=$(grep -oE "^plan: .*" <<< "$out" |
                        awk '{s = ""; for (i = 1; i < NF; i++) if ($i == "splits") s = $(i + 1); print $3 "/" s}' || true)
                    echo "R $r $(basename "$f" .evt) $s $v ${t:-ERR} $plan"
                    [ -n "$t" ] || tail -n 3 <<< "$out" | sed 's/^/   /'
                done
            done
        done < "$list"
    done
    ;;
*) echo "heavy_probe: unknown mode $mode (select, spills or time)" >&2; exit 2 ;;
esac
