#!/bin/sh
# run.sh - hostile inputs: evtc must answer each with diagnostics on stderr and
# exit status 1 (or 0 where the input is valid), and never crash (status >= 128)
# or hang (killed after 60 s).  The inputs are generated in a temporary folder
# with POSIX tools only (awk, printf, head, tr); the "random" ones come from a
# seeded generator, so every run sees the same bytes.
#
# EVTC=path/to/evtc sh tests/hostile/run.sh
set -u

: "${EVTC:?set EVTC to the evtc binary}"
[ -x "$EVTC" ] || { echo "run.sh: $EVTC is not executable" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
examples=$here/../golden/examples.evt
[ -f "$examples" ] || { echo "run.sh: $examples is missing" >&2; exit 2; }
LC_ALL=C
export LC_ALL

tmp=$(mktemp -d "${TMPDIR:-/tmp}/evt-hostile.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

pass=0
fail=0

# check NAME FILE WANT PATTERN [EVTC OPTIONS...]
#   WANT     0, 1, or "any" (either, for inputs that may or may not be valid)
#   PATTERN  a grep pattern the diagnostics (exit 1) or the output (exit 0)
#            must contain; empty for none
check() {
    name=$1 file=$2 want=$3 pattern=$4
    shift 4
    timeout 60 "$EVTC" "$file" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    why=
    if [ "$rc" = 124 ]; then
        why="hung: killed after 60 s"
    elif [ "$rc" -ge 128 ]; then
        why="crashed with status $rc"
    elif [ "$rc" -gt 1 ]; then
        why="exit status $rc"
    elif [ "$want" != any ] && [ "$rc" != "$want" ]; then
        why="exit status $rc, want $want"
    elif [ "$rc" = 1 ] && ! grep -a -q 'error' "$tmp/err"; then
        why="exit status 1 without an error on stderr"
    elif [ -n "$pattern" ] && [ "$rc" = 1 ] && ! grep -a -q -e "$pattern" "$tmp/err"; then
        why="no '$pattern' in the diagnostics"
    elif [ -n "$pattern" ] && [ "$rc" = 0 ] && ! grep -a -q -e "$pattern" "$tmp/out"; then
        why="no '$pattern' in the output"
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name ($*): $why"
        head -c 2000 "$tmp/err" | head -n 12 | sed 's/^/  /'
    fi
}

# repeat N STRING: STRING N times.
repeat() {
    awk -v n="$1" -v s="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'
}

# random_bytes SEED COUNT: COUNT bytes from a Park-Miller generator.
random_bytes() {
    printf "$(awk -v seed="$1" -v n="$2" 'BEGIN {
        x = seed
        for (i = 0; i < n; i++) {
            x = (x * 16807) % 2147483647
            printf "\\%03o", x % 256
        }
    }')"
}

# token_soup SEED COUNT: COUNT random tokens of the language, and a few others.
token_soup() {
    awk -v seed="$1" -v n="$2" 'BEGIN {
        split("epilogue kernel in param let out with { } ( ) [ ] , : ; = < > ? + - * / " \
              "<= >= == != f32 f16 bf16 i8 e4m3 M N acc relu clamp reduce_sum reduce_max " \
              "gemm conv2d_fprop row col x y z 1 0.5 .25 1e3 2e99 /* */ // $ ! .", t, " ")
        k = 0
        for (w in t) k++
        x = seed
        for (i = 0; i < n; i++) {
            x = (x * 16807) % 2147483647
            printf "%s%s", t[1 + x % k], (x % 11 == 0) ? "\n" : " "
        }
    }'
}

# mutate SEED FILE: FILE with lines dropped, doubled, cut short or spliced.
mutate() {
    awk -v seed="$1" 'BEGIN { x = seed }
        {
            x = (x * 16807) % 2147483647
            r = x % 10
            if (r == 0) next
            if (r == 1) { print; print; next }
            if (r == 2) { print substr($0, 1, x % (length($0) + 1)); next }
            if (r == 3) { printf "%s", $0; next }
            print
        }' "$2"
}

# --- random bytes and token soup ------------------------------------------
for seed in 1 2 3 4 5 6 7 8; do
    random_bytes "$seed" 20000 >"$tmp/bytes$seed.evt"
    check "random bytes, seed $seed" "$tmp/bytes$seed.evt" 1 ''
    check "random bytes, seed $seed" "$tmp/bytes$seed.evt" 1 '"severity":"error"' --diagnostics=json
    token_soup "$seed" 5000 >"$tmp/soup$seed.evt"
    check "token soup, seed $seed" "$tmp/soup$seed.evt" 1 '' --emit=ir
    mutate "$seed" "$examples" >"$tmp/mutant$seed.evt"
    check "mutated examples, seed $seed" "$tmp/mutant$seed.evt" any '' --emit=ir
    check "mutated examples, seed $seed" "$tmp/mutant$seed.evt" any '' --emit=dot
done

# --- NUL bytes inside valid source ----------------------------------------
awk '{ printf "%s", $0; if (NR % 3 == 0) printf "\\000"; printf "\\n" }' "$examples" >"$tmp/nul.fmt"
printf "$(cat "$tmp/nul.fmt")" >"$tmp/nul.evt"
check "NUL bytes inside examples.evt" "$tmp/nul.evt" 1 'unexpected byte 0x00' --emit=ir
{ cat "$examples"; printf '\000'; } >"$tmp/nul_end.evt"
check "a NUL byte at the end" "$tmp/nul_end.evt" 1 'unexpected byte 0x00'
head -c 1000000 /dev/zero >"$tmp/zeros.evt"
check "a megabyte of NUL bytes" "$tmp/zeros.evt" 1 'unexpected bytes starting with 0x00'

# --- deep nesting and long chains -----------------------------------------
{ printf 'epilogue e { out y : f32[M, N] = '; repeat 200000 '('; printf 'acc'; repeat 200000 ')'; printf ' }\n'; } >"$tmp/parens.evt"
check "200 000 nested parentheses" "$tmp/parens.evt" 1 'nested too deeply'
{ printf 'epilogue e { out y : f32[M, N] = '; repeat 200000 '-'; printf 'acc }\n'; } >"$tmp/neg.evt"
check "200 000 unary minuses" "$tmp/neg.evt" 1 'nested'
{ printf 'epilogue e { out y : f32[M, N] = '; repeat 200000 'relu('; printf 'acc'; repeat 200000 ')'; printf ' }\n'; } >"$tmp/calls.evt"
check "200 000 nested calls" "$tmp/calls.evt" 1 'nested'
{ printf 'epilogue e { out y : f32[M, N] = acc'; repeat 999999 '+acc'; printf ' }\n'; } >"$tmp/chain.evt"
check "a 1 000 000-term sum" "$tmp/chain.evt" 1 'nested more than 1000 levels'
{ printf 'epilogue e { out y : f32[M, N] = acc > 0 ? '; repeat 100000 'acc > 1 ? acc : '; printf 'acc }\n'; } >"$tmp/select.evt"
check "100 000 nested ?:" "$tmp/select.evt" 1 'nested'

awk 'BEGIN {
    print "epilogue lets {"
    print "  let x0 = acc"
    for (i = 1; i < 100000; i++) printf "  let x%d = x%d * 0.5 + x%d\n", i, i - 1, (i > 1 ? i - 2 : 0)
    print "  out y : f32[M, N] = x99999"
    print "}"
}' >"$tmp/lets.evt"
check "100 000 chained lets" "$tmp/lets.evt" 0 'out y: f32\[M, N\]' --emit=ir -O0
check "100 000 chained lets" "$tmp/lets.evt" 0 'digraph' --emit=dot -O0
check "100 000 chained lets, optimized" "$tmp/lets.evt" 0 'out y: f32\[M, N\]' --emit=ir

awk 'BEGIN {
    for (i = 0; i < 100000; i++)
        printf "epilogue e%d { in b : f16[N] out y : f16[M, N] = relu(acc + b) * %d }\n", i, i
    print "kernel k = gemm(a: f16 row, b: f16 col) with e99999"
}' >"$tmp/epilogues.evt"
check "100 000 epilogues" "$tmp/epilogues.evt" 0 'kernel k = gemm' --emit=ir -O0

awk 'BEGIN {
    print "epilogue e { out y : f32[M, N] = acc }"
    for (i = 0; i < 100000; i++) printf "kernel k%d = gemm(a: f32 row, b: f16 diag) with missing%d\n", i, i
}' >"$tmp/kernels.evt"
check "100 000 bad kernels" "$tmp/kernels.evt" 1 'too many errors'

awk 'BEGIN {
    print "epilogue e {"
    for (i = 0; i < 100000; i++) printf "  in unused%d : f32\n", i
    print "  out y : f32[M, N] = acc"
    print "}"
}' >"$tmp/warnings.evt"
check "100 000 unused inputs (warnings)" "$tmp/warnings.evt" 0 'out y' --emit=ir -O0

# --- huge tokens and comments ---------------------------------------------
{ printf 'epilogue e { out y : f32[M, N] = '; head -c 10000000 /dev/zero | tr '\0' a; printf ' }\n'; } >"$tmp/ident.evt"
check "a 10 MB identifier" "$tmp/ident.evt" 1 'bytes long; the limit is 1024'
{ printf 'epilogue e { out y : f32[M, N] = acc + '; head -c 1000000 /dev/zero | tr '\0' 7; printf ' }\n'; } >"$tmp/number.evt"
check "a 1 000 000-digit number" "$tmp/number.evt" 1 'bytes long; the limit is 1024'
{ printf 'epilogue e { out y : f32[M, N] = acc + 1'; repeat 300 0; printf ' }\n'; } >"$tmp/large.evt"
check "a 300-digit number" "$tmp/large.evt" 1 'too large for f32'
{ printf 'epilogue e { out y : f32[M, N] = acc + 0.'; repeat 500 0; printf '1 }\n'; } >"$tmp/small.evt"
check "a number too small for f32" "$tmp/small.evt" 0 'const 0' --emit=ir -O0
{ printf 'epilogue e { out y : f32[M, N] = acc }\n/*'; repeat 200000 '* / /*\n'; } >"$tmp/comment.evt"
check "an unterminated comment" "$tmp/comment.evt" 1 'unterminated /\* comment'
{ printf 'epilogue e { out y : f32[M, N] = acc '; head -c 10000000 /dev/zero | tr '\0' ' '; printf '$ }\n'; } >"$tmp/longline.evt"
check "a 10 MB line" "$tmp/longline.evt" 1 "unexpected character '\\$'"
{ repeat 1000000 '\n'; printf 'epilogue e { out y : f32[M, N] = nope }\n'; } >"$tmp/lines.evt"
check "a million lines" "$tmp/lines.evt" 1 'lines.evt:1000001:34: error'
repeat 100000 '$' >"$tmp/dollars.evt"
check "100 000 bad characters" "$tmp/dollars.evt" 1 "unexpected character"
repeat 100000 '$ ' >"$tmp/dollars2.evt"
check "100 000 separate bad characters" "$tmp/dollars2.evt" 1 "too many errors"
repeat 100000 '}' >"$tmp/braces.evt"
check "100 000 closing braces" "$tmp/braces.evt" 1 "syntax error"
repeat 100000 'epilogue e {' >"$tmp/open.evt"
check "100 000 unclosed epilogues" "$tmp/open.evt" 1 "too many errors"

# --- sizes ----------------------------------------------------------------
: >"$tmp/empty.evt"
check "an empty file" "$tmp/empty.evt" 0 '' --emit=ir
check "a missing file" "$tmp/no-such-file.evt" 1 'cannot open'
check "a folder" "$tmp" 1 'cannot read: Is a directory'

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
