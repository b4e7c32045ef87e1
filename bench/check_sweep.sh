#!/usr/bin/env bash
# check_sweep.sh - `evtc run --check` over random programs nobody wrote
# (tests/support/progen.c, seeds FIRST..LAST-1) on ragged shapes, the sweep
# that found session 70's and 71's --check failures (docs/runtime.md, "the
# third look").  Program i runs on the i-th shape of SHAPES in turn, seed
# 100 + i, and with --special every SPECIAL_EVERY-th program (0: never).
# One line a program that fails or has values a look explained, then a
# summary line; exits 1 where a program failed.
#
#     BUILD=build bash bench/check_sweep.sh FIRST LAST "M,N,K ..." [SPECIAL_EVERY]   # GPU
#
# $BUILD (default build) holds evtc and, built with the tests, tests/progen_print.
# Under the fake driver with EVT_RUN_EMULATE=1 it checks --check itself on the CPU
# (tests/bench/check_sweep_test.sh).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
evtc=$build/evtc
gen=$build/tests/progen_print
first=${1:?FIRST}; last=${2:?LAST}; shapes=${3:?SHAPES}; every=${4:-0}
[ -x "$gen" ] || { echo "check_sweep: $gen is missing (build $build with its tests)" >&2; exit 2; }
read -r -a sh <<< "$shapes"
dir=$(mktemp -d "${TMPDIR:-/tmp}/evt-check-sweep.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT INT TERM
"$gen" "$first" "$last" "$dir" || exit 2
n=0 failing=0 explained=0 i=0
for s in $(seq "$first" $((last - 1))); do
    f=$dir/p$s.evt
    [ -e "$f" ] || continue
    shape=${sh[$((i % ${#sh[@]}))]}
    special=()
    [ "$every" -gt 0 ] && [ $((i % every)) -eq $((every - 1)) ] && special=(--special)
    t0=$SECONDS
    out=$("$evtc" run "$f" --kernel k --gemm "$shape" --check --seed $((100 + i)) "${special[@]}" 2>&1 < /dev/null)
    rc=$?
    i=$((i + 1))
    n=$((n + 1))
    by_ref=$(grep -oE '^  [0-9]+ values the references' <<< "$out" | awk '{s += $1} END {print s + 0}')
    by_f32=$(grep -oE '^  [0-9]+ values the f32 interpreter' <<< "$out" | awk '{s += $1} END {print s + 0}')
    [ "$rc" -eq 0 ] || failing=$((failing + 1))
    [ $((by_ref + by_f32)) -eq 0 ] || explained=$((explained + 1))
    if [ "$rc" -ne 0 ] || [ $((by_ref + by_f32)) -gt 0 ]; then
        echo "p$s $shape ${special[*]} exit $rc $((SECONDS - t0))s: $by_ref values the bracket's looks explained, $by_f32 the f32 interpreter's"
        [ "$rc" -eq 0 ] || grep -E "FAIL|first|there:|error" <<< "$out" | head -8 | sed 's/^/   /'
    fi
done
echo "check_sweep: $n programs, $failing failing, $explained with values a look explained"
[ "$failing" -eq 0 ]
