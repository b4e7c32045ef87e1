#!/bin/sh
# run_cli.sh - `evtc run`'s and `evtc tune`'s command lines and exit statuses (shared/spec/cli.md).
# Bad arguments and bad source exit 1 before any GPU is looked for, so this
# runs on every machine; a valid run exits 0 with a GPU, and 2 with a
# "no GPU" message without one.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
EVTC=${EVTC:-$root/build/evtc}
c=$here/cases
failures=0

# expect STATUS WHAT ARGS...: `evtc ARGS...` exits with STATUS.
expect() {
    want=$1
    what=$2
    shift 2
    out=$("$EVTC" "$@" 2>&1)
    got=$?
    if [ "$got" -eq "$want" ]; then
        echo "ok: $what"
    else
        echo "FAIL: $what: exit $got, want $want (evtc $*)"
        printf '%s\n' "$out" | sed 's/^/    /'
        failures=$((failures + 1))
    fi
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-run-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf 'epilogue e {\n    out y : f16[M, N] = relu(acc +)\n}\n' >"$tmp/bad.evt"

expect 0 "--help" run --help
expect 1 "no input file" run --gemm 8,8,8
expect 1 "no problem size" run "$c/layouts.evt" --kernel rc_f16
expect 1 "two numbers to --gemm" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,8
expect 1 "four numbers to --gemm" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8,8
expect 1 "a negative size" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,-8,8
expect 1 "a size over 2^31-1" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,2147483648
expect 1 "an unknown option" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8 --frobnicate
expect 1 "an unknown target" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8 --target sm_75
expect 1 "a bad seed" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8 --seed -3
expect 1 "a bad --reps" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8 --bench --reps 0
expect 1 "an unknown kernel" run "$c/layouts.evt" --kernel nope --gemm 8,8,8
expect 1 "several kernels and no --kernel" run "$c/layouts.evt" --gemm 8,8,8
expect 1 "--gemm for a conv kernel" run "$root/examples/examples.evt" --kernel resnet_block --gemm 8,8,8
expect 1 "--conv for a gemm kernel" run "$root/examples/examples.evt" --kernel mlp_up --conv 1,8,8,8,8,3,3
expect 1 "--gemm and --conv" run "$root/examples/examples.evt" --kernel mlp_up --gemm 8,8,8 --conv 1,8,8,8,8,3,3
expect 1 "six numbers to --conv" run "$root/examples/examples.evt" --kernel resnet_block --conv 1,8,8,8,8,3
expect 1 "a zero in --conv" run "$root/examples/examples.evt" --kernel resnet_block --conv 1,8,8,0,8,3,3
expect 1 "a filter larger than the input" run "$root/examples/examples.evt" --kernel resnet_block --conv 1,2,2,8,8,3,3
expect 1 "an unknown param" run "$c/inputs.evt" --kernel inputs --gemm 8,8,8 --param nope=1
expect 1 "a param value that is no number" run "$c/inputs.evt" --kernel inputs --gemm 8,8,8 --param p=abc
expect 1 "a param without a value" run "$c/inputs.evt" --kernel inputs --gemm 8,8,8 --param p
expect 1 "invalid source" run "$tmp/bad.evt" --gemm 8,8,8
expect 1 "a missing file" run "$tmp/missing.evt" --kernel k --gemm 8,8,8
expect 0 "tune --help" tune --help
expect 1 "tune: no problem size" tune "$c/layouts.evt" --kernel rc_f16
expect 1 "tune: --max-seconds 0" tune "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8 --max-seconds 0
expect 1 "tune: --max-seconds that is no number" tune "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8 --max-seconds 1s
expect 1 "tune: --max-seconds without a value" tune "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8 --max-seconds
expect 1 "run: --max-seconds is tune's" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8 --max-seconds 3
expect 1 "run: --dry-run is tune's" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8 --dry-run
expect 1 "tune: an unknown kernel" tune "$c/layouts.evt" --kernel nope --gemm 8,8,8

# Valid runs: 0 with a GPU; 2 and a message that says so without one.
# valid_says WHAT PATTERN ARGS...: a valid run whose output, where a GPU ran
# it, has every line of PATTERN (one per line, grep -F; empty: no demand) in it.
valid_says() {
    what=$1
    want=$2
    shift 2
    out=$("$EVTC" "$@" 2>&1)
    got=$?
    missing=
    if [ $got -eq 0 ]; then
        missing=$(printf '%s\n' "$want" | while IFS= read -r line; do
            printf '%s' "$out" | grep -qF -- "$line" || echo "$line"
        done)
    fi
    if { [ $got -eq 0 ] && [ -z "$missing" ]; } || { [ $got -eq 2 ] && printf '%s' "$out" | grep -q 'no GPU'; }; then
        echo "ok: $what (exit $got)"
    else
        echo "FAIL: $what: exit $got${missing:+, without: $missing} (evtc $*)"
        printf '%s\n' "$out" | sed 's/^/    /'
        failures=$((failures + 1))
    fi
}
valid() {
    what=$1
    shift
    valid_says "$what" "" "$@"
}
valid "a valid gemm run" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8 --check
valid "a valid conv run" run "$root/examples/examples.evt" --kernel resnet_block --conv 1,8,8,8,8,3,3,1,1,1 --check
valid "the only kernel of a file, unnamed" run "$c/operators.evt" --gemm 8,8,8 --check
valid "the source from standard input" run - --kernel rc_f16 --gemm 64,64,64 --check <"$c/layouts.evt"
valid "a gemm tuning (dry run), its plan checked" tune "$c/layouts.evt" --kernel rc_f16 --gemm 100,72,40 --dry-run --check

# fp8 operands: checked on multiples of 1/4 (exact), timed and tuned on
# uniform values (the GPU's clock at its power limit depends on the data)
valid_says "fp8: checked exactly, timed on uniform operands" "check: PASS
operands for timing: fp8 values uniform in [-2, 2]
bench: " run "$c/fp8.evt" --kernel fp8_mixed --gemm 300,260,528 --check --bench --reps 3
valid_says "fp8: tuned on uniform operands, the plan checked exactly" "operands for timing: fp8 values uniform in [-2, 2]
check: PASS" tune "$c/fp8.evt" --kernel fp8_mixed --gemm 300,260,528 --dry-run --check

[ $failures -eq 0 ] && echo "run_cli: all passed" || echo "run_cli: $failures failed"
[ $failures -eq 0 ]
