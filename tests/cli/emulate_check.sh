#!/bin/sh
# emulate_check.sh - evtc run --check judged on the CPU: EVT_RUN_EMULATE
# makes the outputs the f32 interpreter's (the GPU's arithmetic, by
# contract) on the f64 accumulator moved by a random part of its rounding,
# as a GPU's f32 accumulation moves it (docs/runtime.md, "the third look").
#   - session 71's cases (check_cases/: random programs whose GPU runs
#     failed --check before its looks: a singularity between the bracket's
#     ends, sums and minima of 1/acc, f32's own overflow) must pass, each
#     with values the looks explain;
#   - twelve fresh random programs (tests/progen_print) must pass;
#   - moved past the bracket (EVT_RUN_EMULATE=wrong, a kernel off by a
#     product or two), a program must fail.
#   EVTC=build/evtc FAKECUDA=build/tests/libevt_fakecuda.so [PROGEN=build/tests/progen_print] \
#       sh tests/cli/emulate_check.sh
set -u
EVTC=${EVTC:?set EVTC to the evtc binary}
FAKECUDA=${FAKECUDA:?set FAKECUDA to libevt_fakecuda.so}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-emulate.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
export EVT_CUDA_DRIVER="$FAKECUDA" EVT_NVRTC_LIBRARY="$FAKECUDA" EVT_CACHE_DIR="$tmp/cache"
failures=0

# run MODE FILE SHAPE: evtc run --check under EVT_RUN_EMULATE=MODE into $tmp/out; its exit status
run() {
    EVT_RUN_EMULATE=$1 "$EVTC" run "$2" --kernel k --gemm "$3" --check --seed 5 >"$tmp/out" 2>&1 </dev/null
}

# passes FILE SHAPE LOOK: exit 0, and LOOK's line (values a look explained) is there
passes() {
    run 1 "$1" "$2"
    rc=$?
    if [ $rc -ne 0 ] || ! grep -Eq "^  [0-9]+ values the $3" "$tmp/out"; then
        echo "FAIL: $(basename "$1") $2: exit $rc, want 0 with values the $3 ... explained"
        sed 's/^/    /' "$tmp/out"
        failures=$((failures + 1))
    fi
}
passes "$here/check_cases/p1214.evt" 601,599,700 references  # sqrt(silu(.. log(acc - i2) ..)): NaN at one end
passes "$here/check_cases/p1453.evt" 401,399,300 references  # rsqrt(exp(acc) - relu(i0)) as i8
passes "$here/check_cases/p6004.evt" 401,399,333 references  # reduce_sum(1024 / acc, M)
passes "$here/check_cases/p6020.evt" 401,399,333 references  # reduce_min(8 / acc, M)
passes "$here/check_cases/p6039.evt" 301,301,300 references  # a whole-matrix sum of c / acc
passes "$here/check_cases/p1427.evt" 301,299,200 "f32 interpreter"  # i0 / 1e-40 overflows in f32
passes "$here/check_cases/p9014.evt" 65,397,353 "f32 interpreter"   # a sum's f32 terms: inf of both signs

if [ -n "${PROGEN:-}" ] && [ -x "$PROGEN" ]; then
    mkdir -p "$tmp/p"
    "$PROGEN" 12000 12012 "$tmp/p"
    for f in "$tmp"/p/p*.evt; do
        run 1 "$f" 257,311,129
        rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL: $(basename "$f") 257,311,129: exit $rc, want 0"
            sed 's/^/    /' "$tmp/out"
            failures=$((failures + 1))
        fi
    done
else
    echo "emulate_check: no PROGEN: the fresh programs are not run"
fi

# past the bracket: a wrong kernel's outputs, which --check must fail
for c in "p1453.evt 401,399,300" "p6004.evt 401,399,333"; do
    set -- $c
    run wrong "$here/check_cases/$1" "$2"
    rc=$?
    if [ $rc -ne 3 ] || ! grep -q "^check: FAIL" "$tmp/out"; then
        echo "FAIL: $1 $2 under EVT_RUN_EMULATE=wrong: exit $rc, want 3 (a mismatch)"
        sed 's/^/    /' "$tmp/out"
        failures=$((failures + 1))
    fi
done
# and the seam refuses what it cannot emulate
run 1 "$here/check_cases/p1453.evt" 2049,2049,2049
if [ $? -ne 1 ] || ! grep -q "EVT_RUN_EMULATE takes one GEMM problem" "$tmp/out"; then
    echo "FAIL: EVT_RUN_EMULATE past 2^32 multiply-adds: want exit 1 and the reason"
    failures=$((failures + 1))
fi

[ $failures -eq 0 ] && echo "emulate_check: ok" || echo "emulate_check: $failures failure(s)"
[ $failures -eq 0 ]
