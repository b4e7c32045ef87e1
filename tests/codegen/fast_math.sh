#!/bin/sh
# evtc --fast-math: for every target, NVRTC compiles the fast builtins of
# tests/codegen/fast_math.evt, whose PTX then holds the approximate ex2 and
# rcp, while the same kernel compiled without the flag holds no approximate
# instruction at all (the exact builtins are fma arithmetic); tanh stays
# exact under the flag (its evt_math.h name is in the source).
#   EVTC=build/evtc sh tests/codegen/fast_math.sh
set -u
EVTC=${EVTC:?set EVTC to the evtc binary}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/fast_math.evt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "fast_math.sh: $*" >&2; fail=1; }

if ! "$EVTC" "$src" --emit=cuda --target sm_90a --fast-math >"$tmp/fast.cu"; then
    bad "evtc --fast-math --emit=cuda failed"
fi
for f in evt_fast_gelu_tanh evt_fast_silu evt_fast_sigmoid evt_fast_exp evt_fast_gelu evt_tanh; do
    grep -q "$f(" "$tmp/fast.cu" || bad "--fast-math: the source does not call $f"
done

# one tile configuration each, to keep the compiles short
for tc in sm_80:sm80_128x128x64_w4_s3 sm_86:sm80_128x128x64_w4_s3 sm_89:sm80_128x128x64_w4_s3 \
    sm_90a:sm90_coop2_128x256x64_s3; do
    t=${tc%%:*} cfg=${tc#*:}
    if ! EVT_CONFIG=$cfg "$EVTC" "$src" --emit=ptx --target "$t" --fast-math >"$tmp/fast.ptx" 2>"$tmp/err"; then
        bad "$t $cfg: --fast-math does not compile: $(head -c 600 "$tmp/err")"
        continue
    fi
    for insn in ex2.approx.ftz.f32 rcp.approx.ftz.f32; do
        grep -q "$insn" "$tmp/fast.ptx" || bad "$t $cfg: --fast-math PTX has no $insn"
    done
    if ! EVT_CONFIG=$cfg "$EVTC" "$src" --emit=ptx --target "$t" >"$tmp/exact.ptx" 2>"$tmp/err"; then
        bad "$t $cfg: the exact kernel does not compile: $(head -c 600 "$tmp/err")"
        continue
    fi
    if grep -q '\.approx' "$tmp/exact.ptx"; then
        bad "$t $cfg: the exact kernel's PTX holds approximate instructions: $(grep -m1 '\.approx' "$tmp/exact.ptx")"
    fi
done
[ "$fail" = 0 ] && echo "fast_math.sh: 4 targets, fast and exact PTX as expected"
exit "$fail"
