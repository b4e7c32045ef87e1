#!/bin/sh
# fake_run.sh - evtc run's and evtc tune's order of work where no GPU is
# needed to see it: libevt_fakecuda.so stands in for the driver and NVRTC
# (its kernels compute nothing, so --check fails, as it should).  An fp8
# kernel is checked on multiples of 1/4 and timed and tuned on uniform
# operands, and says so between the check and the timing; a 16-bit kernel's
# operands are uniform already and it says nothing.  A tuning whose
# database cannot be written says so.
#   EVTC=build/evtc FAKECUDA=build/tests/libevt_fakecuda.so sh tests/cli/fake_run.sh
set -u
EVTC=${EVTC:?set EVTC to the evtc binary}
FAKECUDA=${FAKECUDA:?set FAKECUDA to libevt_fakecuda.so}
here=$(cd "$(dirname "$0")" && pwd)
cases=$(cd "$here/../gpu/cases" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-fake-run.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
export EVT_CUDA_DRIVER="$FAKECUDA" EVT_NVRTC_LIBRARY="$FAKECUDA" EVT_CACHE_DIR="$tmp/cache"
failures=0
note='operands for timing: fp8 values uniform in [-2, 2]'

# order NAME FILE FIRST SECOND...: FILE has lines with each of them (grep -F), in this order
order() {
    name=$1 file=$2
    shift 2
    at=0
    for want in "$@"; do
        # the first such line after the last one found
        n=$(grep -nF -- "$want" "$file" | cut -d: -f1 | awk -v at="$at" '$1 > at { print; exit }')
        if [ -z "$n" ]; then
            echo "FAIL: $name: '$want' missing or out of order"
            sed 's/^/    /' "$file"
            failures=$((failures + 1))
            return
        fi
        at=$n
    done
    echo "ok: $name"
}

"$EVTC" run "$cases/fp8.evt" --kernel fp8_mixed --gemm 300,260,528 --check --bench --reps 2 --seed 1 \
    >"$tmp/run.out" 2>&1
order "fp8 run: checked, then refilled, then timed" "$tmp/run.out" "check: FAIL" "$note" "bench: "
"$EVTC" tune "$cases/fp8.evt" --kernel fp8_mixed --gemm 300,260,528 --dry-run --check --bench --reps 2 \
    --seed 1 >"$tmp/tune.out" 2>&1
order "fp8 tune: tuned on uniform operands, checked, timed on them again" "$tmp/tune.out" "$note" \
    "tune: " "check: FAIL" "$note" "bench: "
"$EVTC" tune "$cases/fp8.evt" --kernel fp8_mixed --gemm 300,260,528 --dry-run --bench --reps 2 --seed 1 \
    >"$tmp/tune_bench.out" 2>&1
n=$(grep -cF -- "$note" "$tmp/tune_bench.out")
if [ "$n" = 1 ] && grep -q "^bench: " "$tmp/tune_bench.out"; then
    echo "ok: fp8 tune --bench without --check: the operands refilled once"
else
    echo "FAIL: fp8 tune --bench without --check: the operands refilled $n times, want once"
    sed 's/^/    /' "$tmp/tune_bench.out"
    failures=$((failures + 1))
fi
"$EVTC" run "$cases/layouts.evt" --kernel rc_f16 --gemm 64,64,64 --bench --reps 2 --seed 1 \
    >"$tmp/f16.out" 2>&1
if grep -qF -- "operands for timing" "$tmp/f16.out" || ! grep -q "^bench: " "$tmp/f16.out"; then
    echo "FAIL: a 16-bit run is timed on its operands as they are"
    sed 's/^/    /' "$tmp/f16.out"
    failures=$((failures + 1))
else
    echo "ok: a 16-bit run is timed on its operands as they are"
fi
# --special where nothing is computed (the outputs keep their NaN poison):
# the NaN/inf misses get the bracket's second look (two more references,
# evt_check_values_bracketed) and still fail, exit 3, every problem
# checked.  With these inputs one element of problem 1's h has a finite
# reference and a NaN at an end of the bracket (relu(acc + n) * m, m
# infinite, acc + n within the accumulation's rounding of 0), so the
# poison's NaN there passes: exactly one such line.
"$EVTC" run "$cases/inputs.evt" --kernel inputs_rowcol --gemm 301,100,52 --batch 2 --special --check \
    --seed 127082046 >"$tmp/special.out" 2>&1
rc=$?
if [ $rc -eq 3 ] && grep -q "^check: FAIL (4 of 4 outputs" "$tmp/special.out" &&
    [ "$(grep -c "NaN/inf mismatches" "$tmp/special.out")" = 4 ] &&
    [ "$(grep -c "^  1 values the references of an accumulator within its rounding" "$tmp/special.out")" = 1 ]; then
    echo "ok: --special misses judged again against the bracket, one explained, and failed"
else
    echo "FAIL: --special misses judged again against the bracket, one explained, and failed (exit $rc)"
    sed 's/^/    /' "$tmp/special.out"
    failures=$((failures + 1))
fi
# A tuning database that cannot be written (a folder in the file's place,
# which stops root too): the tuning succeeds, and says that its record is
# in memory only, with a warning on standard error, not that it was saved.
mkdir -p "$tmp/unwritable/tuning.tsv"
EVT_CACHE_DIR="$tmp/unwritable" "$EVTC" tune "$cases/layouts.evt" --kernel rc_f16 --gemm 64,64,64 --reps 2 \
    >"$tmp/unwritable.out" 2>"$tmp/unwritable.err"
rc=$?
if [ $rc -eq 0 ] && grep -qF "recorded: in memory only ($tmp/unwritable/tuning.tsv could not be written)" \
    "$tmp/unwritable.out" && grep -qF "warning: the tuning database" "$tmp/unwritable.err"; then
    echo "ok: tune with a tuning database that cannot be written says so"
else
    echo "FAIL: tune with a tuning database that cannot be written says so (exit $rc)"
    sed 's/^/    /' "$tmp/unwritable.out" "$tmp/unwritable.err"
    failures=$((failures + 1))
fi
[ $failures -eq 0 ] && echo "fake_run: all passed" || echo "fake_run: $failures failed"
[ $failures -eq 0 ]
