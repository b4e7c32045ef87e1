#!/bin/sh
# Every kernel (gemm and conv2d_fprop) of every example and valid golden file
# compiles with NVRTC
# for all four targets, and the PTX holds tensor-core MMA instructions
# (mma.sync; wgmma in sm_90a's wgmma configurations).  The
# argument layout the runtime packs (codegen/layout.c) is checked field by
# field by nvcc, which, unlike NVRTC, has offsetof.
#   EVTC=build/evtc sh tests/codegen/run.sh
set -u
EVTC=${EVTC:?set EVTC to the evtc binary}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
JOBS=${JOBS:-2}

# One line per job: FILE KERNEL TARGET CONFIG ("all": the full listing;
# "1s": configuration 1 with its split-K entries, EVT_SPLITK=1; "Nw":
# configuration N, warp-specialized, whose entry must use named barriers;
# "Np": configuration N, a producer and wgmma consumers on mbarriers;
# "Ng": configuration N, sm_90a wgmma, whose PTX must hold wgmma; "Nx": a
# wgmma configuration N forced where the kernel cannot run it, so the PTX
# must hold none)
for f in "$top"/examples/*.evt "$top"/tests/golden/*.evt "$top"/tests/gpu/cases/reductions.evt; do
    case "$f" in *'*'*) continue ;; esac
    err="${f%.evt}.err"
    if [ -f "$err" ] && grep -q ': error: ' "$err"; then continue; fi
    case "$f" in
    "$top"/examples/*) targets="sm_80 sm_86 sm_89 sm_90a" full=1 ;;
    "$top"/tests/gpu/*) targets="" full=2 ;;
    *) targets="sm_80 sm_90a" full=0 ;;
    esac
    sed -n 's/^kernel[ \t]*\([A-Za-z_][A-Za-z0-9_]*\)[ \t]*=[ \t]*\(gemm\|conv2d_fprop\).*/\1 \2/p' "$f" |
    while read -r k ml; do
        for t in $targets; do echo "$f $k $t 2"; done
        [ "$full" = 1 ] && echo "$f $k sm_90a all" && echo "$f $k sm_80 1s"
        # conv: the warp-specialized 5 (mma.sync) and 9 (wgmma), wgmma 7, producer/consumer 11, 13;
        # GEMM: wgmma 5
        if [ "$full" != 0 ] && [ "$ml" = conv2d_fprop ]; then
            echo "$f $k sm_90a 5w"; echo "$f $k sm_90a 9w"; echo "$f $k sm_90a 7g"; echo "$f $k sm_90a 11p"; echo "$f $k sm_90a 13p"
        fi
        # a GEMM runs wgmma (5) and the producer/consumer tile (7) only with A
        # row-major and B column-major
        if [ "$full" = 1 ] && [ "$ml" = gemm ] &&
            grep -Eq "^kernel[ \t]+$k[ \t]*=[ \t]*gemm\(a: *[a-z0-9]+ +row, *b: *[a-z0-9]+ +col" "$f"; then
            echo "$f $k sm_90a 5g"; echo "$f $k sm_90a 7p"
        fi
    done
done > "$tmp/jobs"
# wgmma is sm_90a's and K-contiguous operands' only: forced elsewhere, ignored
echo "$top/examples/examples.evt mlp_up sm_80 5x" >> "$tmp/jobs"
echo "$top/examples/resnet_block.evt resnet_add_relu sm_89 6x" >> "$tmp/jobs"
echo "$top/tests/gpu/cases/layouts.evt rr_f16 sm_90a 5x" >> "$tmp/jobs"
echo "$top/tests/gpu/cases/layouts.evt cc_bf16 sm_90a 5x" >> "$tmp/jobs"
# 14 stages the epilogue's first 16-bit [M, N] input: built only where there is one
echo "$top/examples/resnet_block.evt resnet_add_relu sm_90a 14t" >> "$tmp/jobs"
echo "$top/tests/gpu/cases/inputs.evt inputs_conv sm_90a 14t" >> "$tmp/jobs"
echo "$top/tests/gpu/cases/reductions.evt reductions_conv sm_90a 14n" >> "$tmp/jobs"

cat > "$tmp/one.sh" <<'EOS'
#!/bin/sh
f=$1 k=$2 t=$3 cfg=$4
out=$TMPD/$(basename "$f" .evt).$k.$t.$cfg.ptx
case $cfg in
all) unset EVT_CONFIG ;;
*s) export EVT_CONFIG=${cfg%s} EVT_SPLITK=1 ;;
*w) export EVT_CONFIG=${cfg%w} ;;
*p) export EVT_CONFIG=${cfg%p} ;;
*g) export EVT_CONFIG=${cfg%g} ;;
*t) export EVT_CONFIG=${cfg%t} ;;
*n) export EVT_CONFIG=${cfg%n} ;;
*x) export EVT_CONFIG=${cfg%x} ;;
*) export EVT_CONFIG=$cfg ;;
esac
if ! "$EVTC" "$f" --kernel "$k" --target "$t" --emit=ptx -o "$out" 2>"$out.log"; then
    echo "FAIL $f $k $t config $cfg: NVRTC"; sed -n 1,20p "$out.log"; exit 1
fi
if ! grep -q 'mma.sync.aligned.m16n8k16\|wgmma.mma_async' "$out"; then
    echo "FAIL $f $k $t config $cfg: no tensor-core MMA (mma.sync, wgmma) in the PTX"; exit 1
fi
case $cfg in
*s) if ! grep -q '_splitk_sm' "$out" || ! grep -q '_splitsum_sm' "$out"; then
        echo "FAIL $f $k $t config $cfg: no split-K entry points"; exit 1
    fi ;;
*w) if ! grep -q '_ws[0-9]_sm' "$out" || ! grep -q 'bar.arrive' "$out"; then
        echo "FAIL $f $k $t config $cfg: no warp-specialized entry point"; exit 1
    fi ;;
*p) if ! grep -q '_pp[0-9]_sm' "$out" || ! grep -q 'mbarrier.try_wait' "$out" ||
        ! grep -q 'wgmma.mma_async' "$out"; then
        echo "FAIL $f $k $t config $cfg: no producer/consumer entry point"; exit 1
    fi ;;
*t) if ! grep -q '_pp2_staged_sm90a' "$out" || ! grep -q '_pp2_staged_guarded_sm90a' "$out" ||
        ! grep -q 'cp.async.bulk.tensor.2d' "$out" || ! grep -q 'st.shared.u16' "$out"; then
        echo "FAIL $f $k $t config $cfg: no staged producer/consumer entry points"; exit 1
    fi ;;
*n) if grep -q '_staged' "$out"; then
        echo "FAIL $f $k $t config $cfg: a staged entry for an epilogue with nothing to stage"; exit 1
    fi ;;
*g) if ! grep -q 'wgmma.mma_async' "$out"; then
        echo "FAIL $f $k $t config $cfg: no wgmma in the PTX"; exit 1
    fi ;;
*x) # off sm_90a a wgmma entry compiles to a trap, so look for both
    if grep -q 'wgmma\|trap;' "$out"; then
        echo "FAIL $f $k $t config $cfg: a wgmma entry where the kernel cannot run it"; exit 1
    fi ;;
esac
echo "ok   $(basename "$f") $k $t config $cfg"
EOS
export EVTC TMPD="$tmp"
xargs -P "$JOBS" -L 1 sh "$tmp/one.sh" < "$tmp/jobs" > "$tmp/results" 2>&1
pass=$(grep -c '^ok ' "$tmp/results")
fail=$(grep -c '^FAIL' "$tmp/results")
grep -A20 '^FAIL' "$tmp/results" | head -60

# Layout check with nvcc's front end (no ptxas): a GEMM kernel with every
# field kind, and a conv kernel.
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
if [ -x "$NVCC" ]; then
    for k in train_fwd resnet_block; do
        "$EVTC" "$top/examples/examples.evt" --kernel $k --emit=cuda -o "$tmp/layout.cu"
        if "$NVCC" -std=c++17 -arch=sm_80 -I"$top/kernels" --ptx "$tmp/layout.cu" \
            -o "$tmp/layout.ptx" > "$tmp/nvcc.log" 2>&1; then
            pass=$((pass + 1)); echo "ok   layout of $k checked by nvcc"
        else
            fail=$((fail + 1)); echo "FAIL layout of $k checked by nvcc"; sed -n 1,20p "$tmp/nvcc.log"
        fi
    done
else
    echo "skip layout check: no nvcc at $NVCC"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
