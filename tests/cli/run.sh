#!/bin/sh
# run.sh - evtc's command-line conventions (shared/spec/cli.md), for evtc and
# evtc run alike:
#   - FILE '-' reads the source from standard input, named <stdin> in diagnostics
#   - '-o -' writes to standard output
#   - every option that takes a value takes it as --opt=VALUE and as --opt VALUE
#   - a missing value is an error, exit 1
#   - progress lines go to standard error, only on a terminal or with --progress
#   - standard output that cannot be written (/dev/full) fails the run, exit 2
#   - --emit=dot of several epilogues is one graph that one `dot` call renders
#     (skipped where Graphviz is not installed)
# Runs in a temporary folder, with one NVRTC compile at most (a PTX; skipped
# without NVRTC); evtc run gets only arguments it refuses before it looks for
# a GPU (valid runs are tests/gpu/run_cli.sh's).
#   EVTC=build/evtc sh tests/cli/run.sh
set -u
EVTC=${EVTC:?set EVTC to the evtc binary}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
golden=$root/tests/golden
examples=$root/examples/examples.evt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-cli.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 2 # where a stray file named '-' would show
failures=0

ok() { echo "ok: $1"; }
fail() {
    echo "FAIL: $1"
    [ -s "$tmp/why" ] && sed 's/^/    /' "$tmp/why"
    failures=$((failures + 1))
}

# run NAME ARGS...: evtc ARGS... with stdout in $tmp/NAME.out, stderr in
# $tmp/NAME.err, the exit status in $rc (standard input: this script's).
run() {
    n=$1
    shift
    "$EVTC" "$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
    rc=$?
}

# expect WHAT WANT_RC PATTERN: the last run exited WANT_RC and, unless
# PATTERN is empty, its stderr holds PATTERN (a fixed string).
expect() {
    {
        [ "$rc" = "$2" ] || echo "exit $rc, want $2"
        [ -z "$3" ] || grep -qF -- "$3" "$tmp/$n.err" || echo "stderr lacks '$3'"
    } >"$tmp/why"
    if [ -s "$tmp/why" ]; then
        sed 's/^/stderr: /' "$tmp/$n.err" >>"$tmp/why"
        fail "$1"
    else
        ok "$1"
    fi
}

# same WHAT A B: runs A and B printed the same on stdout and stderr.
same() {
    if cmp -s "$tmp/$2.out" "$tmp/$3.out" && cmp -s "$tmp/$2.err" "$tmp/$3.err"; then
        ok "$1"
    else
        diff "$tmp/$2.out" "$tmp/$3.out" >"$tmp/why"
        diff "$tmp/$2.err" "$tmp/$3.err" >>"$tmp/why"
        fail "$1"
    fi
}

# forms RC PATTERN OPT VALUE ARGS...: `evtc ARGS... OPT=VALUE` and
# `evtc ARGS... OPT VALUE` both exit RC, print the same, and (PATTERN not
# empty) say PATTERN on stdout or stderr.
forms() {
    want=$1 pattern=$2 opt=$3 value=$4
    shift 4
    run eq "$@" "$opt=$value"
    rc_eq=$rc
    run sp "$@" "$opt" "$value"
    {
        [ "$rc_eq" = "$want" ] || echo "$opt=$value: exit $rc_eq, want $want"
        [ "$rc" = "$want" ] || echo "$opt $value: exit $rc, want $want"
        cmp -s "$tmp/eq.out" "$tmp/sp.out" || echo "stdout differs"
        cmp -s "$tmp/eq.err" "$tmp/sp.err" || echo "stderr differs"
        [ -z "$pattern" ] || cat "$tmp/sp.out" "$tmp/sp.err" | grep -qF -- "$pattern" ||
            echo "no '$pattern'"
    } >"$tmp/why"
    if [ -s "$tmp/why" ]; then
        sed 's/^/stderr: /' "$tmp/sp.err" >>"$tmp/why"
        fail "$opt=VALUE and $opt VALUE (evtc $* ...)"
    else
        ok "$opt=$value and $opt $value"
    fi
}

# ---- '-' reads standard input ---------------------------------------------------
run file "$golden/select.evt" --emit=ir -O0
run stdin - --emit=ir -O0 <"$golden/select.evt"
# The IR names no file, so the two agree byte for byte.
same "'-' reads the source from standard input" file stdin
printf 'epilogue e {\n    out y : f16[M, N] = relu(acc +)\n}\n' >"$tmp/bad.evt"
run bad - <"$tmp/bad.evt"
expect "diagnostics of standard input name <stdin>" 1 "<stdin>:2:"
run badrun run - --kernel k --gemm 64,64,64 <"$tmp/bad.evt"
expect "evtc run reads standard input too" 1 "<stdin>:2:"
run nokernel run - --kernel nope --gemm 64,64,64 <"$examples"
expect "evtc run names <stdin> in its errors" 1 "<stdin> has no kernel 'nope'"

# ---- '-o -' writes standard output ------------------------------------------------
run plain "$golden/select.evt" --emit=ir
run dash "$golden/select.evt" --emit=ir -o -
same "-o - writes the IR to standard output" plain dash
if [ -e "$tmp/-" ]; then
    : >"$tmp/why"
    fail "-o - wrote a file named '-'"
fi
run plain "$examples" --emit=cuda --kernel mlp_up --target sm_80
run dash "$examples" --emit=cuda --kernel mlp_up --target sm_80 -o -
same "-o - writes CUDA to standard output" plain dash
run cubins "$examples" --emit=cubin --target sm_80 -o -
expect "-o - with several cubins is refused before compiling" 1 "several cubins"

# ---- standard output that cannot be written fails the run (exit 2) ---------------
if [ -w /dev/full ]; then
    for args in "--version" "--help" "$golden/select.evt --emit=ir" "run --help"; do
        # shellcheck disable=SC2086 # the words are the arguments
        "$EVTC" $args >/dev/full 2>"$tmp/full.err"
        rc=$?
        n=full
        expect "evtc $args onto a full device fails" 2 "writing"
    done
else
    echo "skip: no /dev/full"
fi

# ---- both forms of every option that takes a value -------------------------------
sel=$golden/select.evt
forms 0 "epilogue select" --emit ir "$sel"
forms 1 "unknown --emit kind 'asm'" --emit asm "$sel"
forms 0 "evt_mlp_up_gemm" --kernel mlp_up "$examples" --emit=cuda --target sm_80
forms 1 "has no kernel 'nope'" --kernel nope "$examples"
forms 0 "_sm80" --target sm_80 "$examples" --emit=cuda --kernel mlp_up
forms 1 "unknown target 'sm_75'" --target sm_75 "$examples"
forms 0 '"severity"' --diagnostics json "$golden/warn_unused.evt" --emit=ir
forms 1 "unknown --diagnostics format 'xml'" --diagnostics xml "$sel"
forms 0 "" --passes fold,dce "$sel" --emit=ir
forms 1 "unknown pass 'nope'" --passes nope "$sel"
forms 0 "" --print-after fold "$sel" --emit=ir --passes=fold
forms 1 "unknown pass 'nope'" --print-after nope "$sel"
run eq "$sel" --emit=ir -o="$tmp/a.ir"
run sp "$sel" --emit=ir -o "$tmp/b.ir"
if [ "$rc" = 0 ] && [ -s "$tmp/a.ir" ] && cmp -s "$tmp/a.ir" "$tmp/b.ir"; then
    ok "-o=PATH and -o PATH"
else
    : >"$tmp/why"
    fail "-o=PATH and -o PATH"
fi
# evtc run: each value is read in both forms (its refusal quotes it); no GPU is needed.
lay=$root/tests/gpu/cases/layouts.evt
inputs=$root/tests/gpu/cases/inputs.evt
forms 1 "has no kernel 'nope'" --kernel nope run "$lay" --gemm 8,8,8
forms 1 "(got '8,8')" --gemm 8,8 run "$lay" --kernel rc_f16
forms 1 "(non-negative integers; got '1,8,8')" --conv 1,8,8 run "$examples" --kernel resnet_block
forms 1 "unknown target 'sm_75'" --target sm_75 run "$lay" --kernel rc_f16 --gemm 8,8,8
forms 1 "(got 'x')" --seed x run "$lay" --kernel rc_f16 --gemm 8,8,8
forms 1 "(got 'x')" --ld-pad x run "$lay" --kernel rc_f16 --gemm 8,8,8
forms 1 "(got '0')" --reps 0 run "$lay" --kernel rc_f16 --gemm 8,8,8 --bench
forms 1 "has no param 'nope'" --param nope=1 run "$inputs" --kernel inputs --gemm 8,8,8
forms 1 "(got '0')" --batch 0 run "$lay" --kernel rc_f16 --gemm 8,8,8
forms 1 "(got '2147483648')" --batch 2147483648 run "$lay" --kernel rc_f16 --gemm 8,8,8
run batch_conv run "$examples" --kernel resnet_block --conv 1,8,8,8,8,1,1 --batch 2
expect "evtc run --batch with --conv: an error" 1 "--batch is for --gemm"
# evtc run and evtc tune name themselves in every message: an argument
# refused, a kernel the file lacks, and a library call that failed (a
# driver that does not load, on any machine)
for sub in run tune; do
    run prefix_arg $sub "$lay" --kernel rc_f16 --gemm 8,8
    expect "evtc $sub: a refused argument under its own name" 1 "evtc $sub: error: --gemm needs M,N,K"
    run prefix_kernel $sub "$lay" --kernel nope --gemm 8,8,8
    expect "evtc $sub: a missing kernel under its own name" 1 "evtc $sub: error: $lay has no kernel 'nope'"
    export EVT_CUDA_DRIVER="$tmp/no-such-libcuda.so"
    run prefix_lib $sub "$lay" --kernel rc_f16 --gemm 8,8,8
    unset EVT_CUDA_DRIVER
    expect "evtc $sub: a failed library call under its own name" 2 \
        "evtc $sub: error: no GPU: cannot load the CUDA driver from $tmp/no-such-libcuda.so"
done

# ---- --param VALUE as the language takes a number: too large for f32 refused before any GPU
run param_big run "$examples" --kernel resnet_block --conv 1,8,8,16,16,3,3 --param alpha=-1e39
expect "evtc run --param too large for f32: refused" 1 "--param alpha=-1e39: the value is too large for f32"
export EVT_CUDA_DRIVER="$tmp/no-such-libcuda.so"
run param_small run "$examples" --kernel resnet_block --conv 1,8,8,16,16,3,3 --param alpha=1e-50
unset EVT_CUDA_DRIVER
expect "evtc run --param too small for f32: a warning, then the run" 2 \
    "evtc run: warning: --param alpha=1e-50: the value is too small for f32 and becomes 0"

# ---- a kernel the file lacks: the refusal names the kernels it has, and an epilogue of the name
run nokernel "$examples" --emit=ir --kernel bias_gelu
expect "--kernel naming an epilogue: refused, saying so" 1 \
    "has no kernel 'bias_gelu' ('bias_gelu' is an epilogue; a kernel pairs one with a mainloop)"
expect "--kernel naming an epilogue: the file's kernels" 1 \
    "a mainloop); its kernels: resnet_block, resnet_block_post, mlp_up, train_fwd, dequant"
run nokernel_run run "$examples" --kernel nope --gemm 8,8,8
expect "evtc run --kernel naming nothing: the file's kernels" 1 \
    "evtc run: error: $examples has no kernel 'nope'; its kernels: resnet_block,"

# ---- the environment's tuning, refused as an error under the program's name
EVT_CONFIG=bogus "$EVTC" "$sel" --emit=ir >"$tmp/envcfg.out" 2>"$tmp/envcfg.err"
rc=$? n=envcfg
expect "EVT_CONFIG naming no configuration: an error" 1 "evtc: error: no tile configuration 'bogus'"
EVT_SPLITK=x "$EVTC" run "$lay" --kernel rc_f16 --gemm 8,8,8 >"$tmp/envsk.out" 2>"$tmp/envsk.err"
rc=$? n=envsk
expect "evtc run, EVT_SPLITK not a number: an error" 1 \
    "evtc run: error: EVT_SPLITK, EVT_ROW_GROUP and EVT_STREAMK take a number"

# ---- an optimization level that is not one: refused, naming the levels there are ----
run o3 "$sel" --emit=ir -O3
expect "-O3: refused with the levels" 1 "unknown optimization level '-O3' (expected -O0, -O1 or -O2)"
run o3run run "$lay" --kernel rc_f16 --gemm 8,8,8 -Ofast
expect "evtc run -Ofast: refused with the levels" 1 "evtc run: error: unknown optimization level '-Ofast'"
run unknown "$sel" --bogus
expect "an unknown option: refused as one" 1 "unknown option '--bogus'"

# ---- a missing value --------------------------------------------------------------
for opt in --emit --kernel --target --diagnostics -o --passes --print-after; do
    run missing "$sel" "$opt"
    expect "$opt at the end: an error" 1 "$opt needs a value"
done
run missing "$sel" --kernel --emit=ir
expect "--kernel followed by an option: an error" 1 "--kernel needs a value"
for opt in --kernel --gemm --conv --target --seed --ld-pad --reps --param --batch; do
    run missing run "$lay" "$opt"
    expect "evtc run $opt at the end: an error" 1 "$opt needs a value"
done
run missing run "$lay" --gemm --kernel rc_f16
expect "evtc run --gemm followed by an option: an error" 1 "--gemm needs a value"
run negative run "$lay" --kernel rc_f16 --gemm -1,5,5
expect "evtc run --gemm with a negative size: refused for its sign" 1 "three integers from 0 to 2^31-1 (got '-1,5,5')"

# ---- --fast-math ----------------------------------------------------------------------
printf 'epilogue e {\n    out y : f16[M, N] = gelu_tanh(acc) + exp(acc)\n}\nkernel k = gemm(a: f16 row, b: f16 col, acc: f32) with e\n' >fm.evt
run fm fm.evt --emit=cuda --target sm_90a --fast-math
if [ "$rc" = 0 ] && grep -qF '#include "common/fast_math.h"' "$tmp/fm.out" &&
    grep -qF 'evt_fast_gelu_tanh(' "$tmp/fm.out" && grep -qF 'evt_fast_exp(' "$tmp/fm.out"; then
    ok "--fast-math: the fast builtins and their header"
else
    { echo "exit $rc"; cat "$tmp/fm.err"; } >"$tmp/why"
    fail "--fast-math: the fast builtins and their header"
fi
run fm0 fm.evt --emit=cuda --target sm_90a
if [ "$rc" = 0 ] && ! grep -q 'fast_math\|evt_fast_' "$tmp/fm0.out"; then
    ok "without --fast-math: the exact builtins alone"
else
    { echo "exit $rc"; cat "$tmp/fm0.err"; } >"$tmp/why"
    fail "without --fast-math: the exact builtins alone"
fi
# ---- EVT_SHARED_EPILOGUE: 1 the shared tile, -1 the registers wherever they can ----
# ("-0" is 0, the default placement; anything but a number is refused)
for se in 0 1 -1 -0; do
    EVT_CONFIG=sm90_pp2_128x128x64_s4 EVT_SHARED_EPILOGUE=$se "$EVTC" "$examples" --emit=cuda --kernel mlp_up \
        --target sm_90a >"$tmp/se$se.out" 2>"$tmp/se$se.err"
    rc=$?
    got=$(grep -c 'enum { kDirect = 1,' "$tmp/se$se.out")
    want=0
    [ "$se" = -1 ] && want=1
    if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
        ok "EVT_SHARED_EPILOGUE=$se: mlp_up's exact GELU in registers $want time(s)"
    else
        { echo "exit $rc, $got direct entries, want $want"; cat "$tmp/se$se.err"; } >"$tmp/why"
        fail "EVT_SHARED_EPILOGUE=$se: mlp_up's exact GELU in registers $want time(s)"
    fi
done
for se in abc - 1x --1; do
    n=se_bad
    EVT_SHARED_EPILOGUE=$se "$EVTC" "$examples" --emit=ir >"$tmp/$n.out" 2>"$tmp/$n.err"
    rc=$?
    expect "EVT_SHARED_EPILOGUE=$se is refused" 1 "evtc: error: EVT_SHARED_EPILOGUE takes a number"
done
run fm_value fm.evt --emit=cuda --fast-math=1
expect "--fast-math takes no value" 1 "--fast-math=1"
run fm_run run fm.evt --kernel k --gemm 8,8,8 --fast-math --reps 0 --bench
expect "evtc run takes --fast-math (and refuses --reps 0 before any GPU)" 1 "(got '0')"

# ---- --emit=dot: one graph, through one dot call -----------------------------------
if command -v dot >/dev/null 2>&1; then
    for f in "$root"/examples/*.evt; do
        name=$(basename "$f") clusters=
        epilogues=$("$EVTC" "$f" --emit=ir | grep -c '^epilogue ')
        # From standard input as well: the pipe the README shows, whole.
        if "$EVTC" - --emit=dot <"$f" | dot -Tsvg -o "$tmp/g.svg" 2>"$tmp/why" &&
            clusters=$(grep -c '<g id="clust' "$tmp/g.svg") && [ "$clusters" = "$epilogues" ] &&
            [ "$epilogues" -ge 1 ]; then
            ok "$name --emit=dot | dot -Tsvg: $clusters epilogues, a cluster each"
        else
            echo "$epilogues epilogues, ${clusters:-no} clusters" >>"$tmp/why"
            fail "$name --emit=dot | dot -Tsvg"
        fi
    done
else
    echo "skip: --emit=dot | dot (Graphviz's dot is not installed: bash scripts/bootstrap.sh test)"
fi

# ---- progress lines ---------------------------------------------------------------
cat >two.evt <<'EOF'
epilogue e {
    out y : f16[M, N] = relu(acc)
}
kernel k1 = gemm(a: f16 row, b: f16 col, acc: f32) with e
kernel k2 = gemm(a: f16 row, b: f16 col, acc: f32) with e
EOF
two="two.evt --emit=ptx --target sm_80 --target sm_90a"
# NVRTC from a path that does not exist: the first compile fails at once,
# after its progress line has begun.
nonvrtc=/nonexistent/libnvrtc.so
if EVT_NVRTC_LIBRARY=$nonvrtc "$EVTC" $two >"$tmp/quiet.out" 2>"$tmp/quiet.err"; then
    : >"$tmp/why"
    fail "a compile without NVRTC fails"
fi
if grep -q '\[1/' "$tmp/quiet.err"; then
    cp "$tmp/quiet.err" "$tmp/why"
    fail "no progress when standard error is not a terminal"
else
    ok "no progress when standard error is not a terminal"
fi
EVT_NVRTC_LIBRARY=$nonvrtc "$EVTC" $two --progress >"$tmp/forced.out" 2>"$tmp/forced.err"
if grep -qF 'evtc: [1/4] compiling k1 for sm_80 ... failed' "$tmp/forced.err" &&
    [ ! -s "$tmp/forced.out" ]; then
    ok "--progress: a line per compile on standard error"
else
    cp "$tmp/forced.err" "$tmp/why"
    fail "--progress: a line per compile on standard error"
fi
if command -v script >/dev/null 2>&1; then
    # util-linux script(1) gives evtc a terminal; its output is the terminal's.
    EVT_NVRTC_LIBRARY=$nonvrtc script -qec \
        "'$EVTC' $two -o /dev/null" /dev/null >"$tmp/tty.out" 2>&1
    if grep -qF 'evtc: [1/4] compiling k1 for sm_80 ... failed' "$tmp/tty.out"; then
        ok "progress on a terminal"
    else
        cp "$tmp/tty.out" "$tmp/why"
        fail "progress on a terminal"
    fi
else
    echo "skip: progress on a terminal (no script(1))"
fi
# One real compile: the PTX alone on standard output, the progress line with its time on stderr.
run ptx two.evt --emit ptx --kernel k1 --target sm_80 --progress -o -
if [ "$rc" = 2 ] && grep -q NVRTC "$tmp/ptx.err"; then
    echo "skip: PTX on standard output (no NVRTC: $(head -n 1 "$tmp/ptx.err"))"
elif [ "$rc" = 0 ] && head -n 1 "$tmp/ptx.out" | grep -q '^//' &&
    grep -q '^\.target sm_80' "$tmp/ptx.out" &&
    ! grep -q 'evtc' "$tmp/ptx.out" &&
    grep -Eq '^evtc: \[1/1\] compiling k1 for sm_80 \.\.\. [0-9.]+ s$' "$tmp/ptx.err"; then
    ok "--emit ptx -o - --progress: PTX on stdout, progress on stderr"
else
    { echo "exit $rc"; head -n 3 "$tmp/ptx.out"; cat "$tmp/ptx.err"; } >"$tmp/why"
    fail "--emit ptx -o - --progress: PTX on stdout, progress on stderr"
fi

[ $failures -eq 0 ] && echo "cli: all passed" || echo "cli: $failures failed"
[ $failures -eq 0 ]
