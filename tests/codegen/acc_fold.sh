#!/bin/sh
# The direct epilogue's folded bias (codegen's acc_fold): where acc + an
# [N] input is the accumulator's one use, the generated source loads that
# input once a tile (NAME_direct_bias, added after the mainloop by the
# producer/consumer entries: kAccInit) and the direct epilogue takes the
# sum to be the accumulators; not where the accumulator has another use.
# Source checks on tests/gpu/cases/bias_fold.evt (the GPU suite runs its
# kernels against the interpreter), then one ping-pong and one cooperative
# entry compiled by NVRTC, and by ptxas where there is one: no wgmma
# serialized (C7515: the bias written into the accumulators before the
# mainloop did that).
#   EVTC=build/evtc sh tests/codegen/acc_fold.sh
set -u
EVTC=${EVTC:?set EVTC to the evtc binary}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../gpu/cases/bias_fold.evt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "acc_fold.sh: $*" >&2; fail=1; }

# the body of generated function NAME (to its closing brace at column 0)
body() { sed -n "/void $1(const/,/^}/p" "$tmp/all.cu"; }

if ! "$EVTC" "$src" --emit=cuda --target sm_90a >"$tmp/all.cu"; then
    echo "acc_fold.sh: evtc --emit=cuda failed" >&2
    exit 1
fi
for k in relu_bf16_gemm relu_conv_conv2d_fprop aux_f16_gemm twice_f16_gemm; do
    grep -q "evt_${k}_epilogue_direct_bias_t<" "$tmp/all.cu" || bad "$k: no folded bias"
done
grep -q "evt_acc_twice_bf16_gemm_epilogue_direct_bias" "$tmp/all.cu" &&
    bad "acc_twice_bf16: folded, but its accumulator has two uses"
body evt_acc_twice_bf16_gemm_epilogue_direct | grep -q 'p.in0 + col' ||
    bad "acc_twice_bf16: the direct epilogue does not load its bias"
# the folded bias is not loaded by the direct epilogue where the sum is its only use ...
body evt_relu_bf16_gemm_epilogue_direct | grep -q 'p.in0' &&
    bad "relu_bf16: the direct epilogue still loads the folded bias"
body evt_aux_f16_gemm_epilogue_direct | grep -q 'p.in0 + col' &&
    bad "aux_f16: the direct epilogue still loads the folded bias"
# ... and is where it has another
body evt_twice_f16_gemm_epilogue_direct | grep -q 'p.in0 + col' ||
    bad "twice_f16: the bias's second use is not loaded"
# the entries with the direct epilogue add it; the guarded ones (the shared tile's epilogue) do not
grep -q 'enum { kDirect = 1, kAccInit = 1 }' "$tmp/all.cu" || bad "no entry takes the folded bias"
grep -q 'enum { kDirect = 0, kAccInit = 1 }' "$tmp/all.cu" && bad "an entry without the direct epilogue takes the folded bias"

ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
for cfg in sm90_pp2_128x128x64_s4 sm90_coop2_128x256x64_s4; do
    if ! EVT_CONFIG=$cfg "$EVTC" "$src" --kernel relu_bf16 --emit=ptx --target sm_90a >"$tmp/k.ptx" 2>"$tmp/err"; then
        bad "$cfg: relu_bf16 does not compile: $(head -c 600 "$tmp/err")"
        continue
    fi
    [ -x "$ptxas" ] || continue
    if ! "$ptxas" -arch=sm_90a -v "$tmp/k.ptx" -o "$tmp/k.cubin" >"$tmp/ptxas.log" 2>&1; then
        bad "$cfg: ptxas failed: $(head -c 600 "$tmp/ptxas.log")"
    elif grep -q 'C7515\|C7520\|serialized' "$tmp/ptxas.log"; then
        bad "$cfg: wgmma serialized: $(grep -m1 serialized "$tmp/ptxas.log")"
    fi
done
[ $fail -eq 0 ] && echo "acc_fold.sh: ok"
exit $fail
