#!/bin/sh
# Every kernel (gemm and conv2d_fprop) of every example and valid golden file
# compiles with NVRTC
# for all four targets, and the PTX holds tensor-core MMA instructions
# (mma.sync; wgmma in sm_90a's wgmma configurations).  The
# argument layout the runtime packs (codegen/layout.c) is checked field by
# field by nvcc, which, unlike NVRTC, has offsetof.
#   EVTC=build/evtc sh tests/codegen/run.sh
# CODEGEN_TARGETS: the full listings (examples' and golden files') for
# those of these targets each would have, no others (scripts/test.sh's
# sanitizer pass; the forced-configuration jobs below run regardless).
# CODEGEN_FULL=cuda: the full listings generated (--emit=cuda), not
# compiled, and of the forced jobs the first of each kind only compiled,
# the rest generated: the sanitizer pass watches evtc, and NVRTC's half of
# a job (nearly all of its time) is the debug pass's, which compiles every
# one.
# The golden files' kernels (front-end features: names, narrow types,
# layouts, forward references) compile for sm_90a under two tile families
# of their mainloop, forced, not in their full listings: the full listings
# of the examples (ptxas.sh) instantiate every sm_90a tile with
# epilogues of every kind, and the golden files' 17 listings took 470 of
# this test's 860 CPU-seconds (session 48).
# The examples' sm_90a full listings are left to tests/codegen/ptxas.sh
# where there is a ptxas (PTXAS, as that test finds it) and they are to be
# compiled: that test compiles the same listings, assembles them and checks
# their MMAs too.
# A full listing whose source equals one already listed for its target,
# but for the kernel's name and comments (tests/golden/examples.evt is
# examples/examples.evt; some golden kernels differ in names only), is
# compiled once: NVRTC's work is the same.
set -u
EVTC=${EVTC:?set EVTC to the evtc binary}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
JOBS=${JOBS:-2}

# keep_targets LIST: LIST, less the targets CODEGEN_TARGETS (where set) leaves out
keep_targets() {
    [ -z "${CODEGEN_TARGETS:-}" ] && { echo "$1"; return; }
    kept=""
    for t in $1; do
        case " $CODEGEN_TARGETS " in *" $t "*) kept="$kept $t" ;; esac
    done
    echo "$kept"
}

# One line per job: FILE KERNEL TARGET CONFIG, CONFIG being "2" (the full
# listing; "2g-MAINLOOP" a golden kernel's sm_90a tile families, "2p" ptxas.sh's full
# listing) or NAME:KIND, the tile
# configuration NAME forced (EVT_CONFIG) and KIND what its PTX must show:
# "s" its split-K entries (EVT_SPLITK=2), "w" a warp-specialized entry on
# named barriers, "p" a producer and wgmma consumers on mbarriers, "g"
# wgmma, "n" wgmma transposed as the GEMM's layouts say (imm-trans-a for
# a column-major A, imm-trans-b for a row-major B) and, for the
# producer/consumer tiles, TMA loads, "c" a clustered producer/consumer entry
# (two CTAs a cluster, B multicast, stages freed in both), "m" the 192-wide
# and 160-wide cooperative tiles' m64n192 or m64n160 wgmmas (N from the
# name), TMA loads and guarded entry, "t" the
# staged entries, "x" a configuration the kernel cannot run
# there, which evtc must refuse with the reason (exit 1); "f" (the full
# listing of an fp8 kernel, whose PTX must hold the fp8 MMAs of exactly its
# operand types: mma.sync m16n8k32 on sm_89, wgmma k32 and mma.sync k32 on
# sm_90a) and "refuse" (an fp8 kernel on sm_80/86: refused, exit 1)
for f in "$top"/examples/*.evt "$top"/tests/golden/*.evt "$top"/tests/gpu/cases/reductions.evt; do
    case "$f" in *'*'*) continue ;; esac
    err="${f%.evt}.err"
    if [ -f "$err" ] && grep -q ': error: ' "$err"; then continue; fi
    case "$f" in
    "$top"/examples/*) targets=$(keep_targets "sm_80 sm_86 sm_89 sm_90a") full=1 ;;
    "$top"/tests/gpu/*) targets="" full=2 ;;
    *) targets=$(keep_targets "sm_80 sm_90a") full=0 ;;
    esac
    sed -n 's/^kernel[ \t]*\([A-Za-z_][A-Za-z0-9_]*\)[ \t]*=[ \t]*\(gemm\|conv2d_fprop\).*/\1 \2/p' "$f" |
    while read -r k ml; do
        # fp8 operands: sm_89 and sm_90a only, every configuration family forced
        if grep -Eq "^kernel[ \t]+$k[ \t]*=[ \t]*gemm\(a: *e[45]m[23] " "$f"; then
            echo "$f $k sm_89 f"; echo "$f $k sm_90a f"
            echo "$f $k sm_80 refuse"; echo "$f $k sm_86 refuse"
            echo "$f $k sm_90a sm90_pp2_128x128x128_s4_fp8:p"
            echo "$f $k sm_90a sm90_wg2_128x256x128_s4_fp8:g"
            echo "$f $k sm_89 sm80_128x128x128_w4_s3_fp8:s"
            echo "$f $k sm_90a sm90_pp2_128x128x64_s4:x"
            continue
        fi
        for t in $targets; do
            # "2p": ptxas.sh's (its source still counts for the sameness below)
            if [ "$full" = 1 ] && [ "$t" = sm_90a ] && [ "${CODEGEN_FULL:-}" != cuda ] &&
                [ -x "${PTXAS:-/usr/local/cuda/bin/ptxas}" ]; then
                echo "$f $k $t 2p"
            elif [ "$full" = 0 ] && [ "$t" = sm_90a ]; then
                echo "$f $k $t 2g-$ml"
            else
                echo "$f $k $t 2"
            fi
        done
        [ "$full" = 1 ] && echo "$f $k sm_80 sm80_128x128x64_w4_s3:s"
        # conv: the warp-specialized ones (mma.sync, wgmma), a three-warpgroup
        # wgmma tile, the producer/consumer ones
        if [ "$full" != 0 ] && [ "$ml" = conv2d_fprop ]; then
            for c in sm80_ws4_128x128x64_w4_s3:w sm90_wg2_ws8_128x128x64_s4:w sm90_wg3_192x128x64_s4:g \
                sm90_pp2_128x128x64_s4:p sm90_pp2_128x64x64_s7:p; do
                echo "$f $k sm_90a $c"
            done
        fi
        # a GEMM's wgmma and producer/consumer tiles (other layouts: below)
        if [ "$full" = 1 ] && [ "$ml" = gemm ] &&
            grep -Eq "^kernel[ \t]+$k[ \t]*=[ \t]*gemm\(a: *[a-z0-9]+ +row, *b: *[a-z0-9]+ +col" "$f"; then
            echo "$f $k sm_90a sm90_wg2_128x256x64_s4:g"; echo "$f $k sm_90a sm90_pp2_128x128x64_s4:p"
        fi
    done
done > "$tmp/jobs.all"
# the full listings, each distinct source once per target (see above)
while read -r f k t cfg; do
    # (a listing evtc cannot generate is kept, to fail as itself)
    if case $cfg in 2 | 2p | 2g-*) true ;; *) false ;; esac &&
        "$EVTC" "$f" --kernel "$k" --target "$t" --emit=cuda -o "$tmp/key.cu" 2>/dev/null; then
        key=$(sed "s://.*\$::; s:/\*.*\*/::g; /^ *\*/d; /^ *\/\*/d; s/\b$k\b/KERNEL/g; s/evt_${k}_/evt_KERNEL_/g" "$tmp/key.cu" | cksum | tr " " _)
        case " $(cat "$tmp/keys" 2>/dev/null) " in
        *" $t:$key "*) echo "same source as a listing already compiled: $(basename "$f") $k $t" >&2; continue ;;
        esac
        printf ' %s' "$t:$key" >> "$tmp/keys"
    fi
    [ "$cfg" = 2p ] && continue
    # a golden kernel on sm_90a: its mainloop's two tile families
    case $cfg in
    2g-conv2d_fprop) echo "$f $k $t sm90_pp2_128x128x64_s4:p"; echo "$f $k $t sm90_wg2_ws8_128x128x64_s4:w"; continue ;;
    2g-*) echo "$f $k $t sm90_pp2_128x128x64_s4:p"; echo "$f $k $t sm90_coop2_128x256x64_s4:g"; continue ;;
    esac
    echo "$f $k $t $cfg"
done < "$tmp/jobs.all" > "$tmp/jobs"
# wgmma is sm_90a's only: forced elsewhere, refused
echo "$top/examples/examples.evt mlp_up sm_80 sm90_wg2_128x256x64_s4:x" >> "$tmp/jobs"
echo "$top/examples/resnet_block.evt resnet_add_relu sm_89 sm90_wg2_128x128x32_s6:x" >> "$tmp/jobs"
echo "$top/tests/gpu/cases/layouts.evt rr_f16 sm_90a sm90_wg2_128x128x32_s6:x" >> "$tmp/jobs"
# 16-bit A column-major / B row-major: the transposed wgmma (imm-trans-a/b)
# under every GEMM wgmma family, the TMA ones loading MN-major boxes
for k in rr_f16 cr_f16 cc_f16 rr_bf16 cr_bf16 cc_bf16; do
    echo "$top/tests/gpu/cases/layouts.evt $k sm_90a sm90_pp2_128x128x64_s4:n" >> "$tmp/jobs"
done
for c in sm90_coop2_256x128x64_s3 sm90_coop2_128x256x64_s3 sm90_wg2_128x256x64_s4 sm90_wg2_128x128x64_s3 \
    sm90_wg1_64x128x64_s8 sm90_coop2_128x256x64_s4 sm90_coop2_128x192x64_s4; do
    echo "$top/tests/gpu/cases/layouts.evt cr_f16 sm_90a $c:n" >> "$tmp/jobs"
    echo "$top/tests/gpu/cases/layouts.evt rr_bf16 sm_90a $c:n" >> "$tmp/jobs"
done
echo "$top/tests/gpu/cases/layouts.evt cc_f16 sm_90a sm90_coop2_256x128x64_s3:n" >> "$tmp/jobs"
# the 192-wide cooperative tile (m64n192 wgmmas)
echo "$top/examples/examples.evt train_fwd sm_90a sm90_coop2_128x192x64_s4:m" >> "$tmp/jobs"
echo "$top/examples/examples.evt mlp_up sm_90a sm90_coop2_128x192x64_s4:m" >> "$tmp/jobs"
# the 160-wide cooperative tile (m64n160 wgmmas), K-contiguous operands only
echo "$top/examples/examples.evt train_fwd sm_90a sm90_coop2_128x160x64_s4:m" >> "$tmp/jobs"
echo "$top/tests/gpu/cases/layouts.evt rr_f16 sm_90a sm90_coop2_128x160x64_s4:x" >> "$tmp/jobs"
# the clustered producer/consumer tiles (ping-pong, cooperative): K-contiguous operands only
for c in sm90_pp2_cl2_128x128x64_s4 sm90_coop2_cl2_128x256x64_s3 sm90_coop2_cl2_128x256x64_s4; do
    echo "$top/examples/examples.evt train_fwd sm_90a $c:c" >> "$tmp/jobs"
    echo "$top/tests/gpu/cases/layouts.evt rr_f16 sm_90a $c:x" >> "$tmp/jobs"
done
# a conv-only configuration on a GEMM; 128x256 tiles do not fit sm_86's shared memory
echo "$top/examples/examples.evt train_fwd sm_80 sm80_256x64x32_w4_s4:x" >> "$tmp/jobs"
echo "$top/examples/examples.evt train_fwd sm_86 sm80_128x256x64_w8_s3:x" >> "$tmp/jobs"
# the staged configuration stages the epilogue's first 16-bit [M, N] input:
# built only where there is one
echo "$top/examples/resnet_block.evt resnet_add_relu sm_90a sm90_pp2_128x128x64_s2_staged:t" >> "$tmp/jobs"
echo "$top/tests/gpu/cases/inputs.evt inputs_conv sm_90a sm90_pp2_128x128x64_s2_staged:t" >> "$tmp/jobs"
echo "$top/tests/gpu/cases/reductions.evt reductions_conv sm_90a sm90_pp2_128x128x64_s2_staged:x" >> "$tmp/jobs"
# ... and the 64-wide one (six stages), a conv's and a GEMM's; the unstaged
# 128x64 ping-pong tile on a GEMM (tuning's since session 72)
echo "$top/examples/resnet_block.evt resnet_add_relu sm_90a sm90_pp2_128x64x64_s6_staged:t" >> "$tmp/jobs"
echo "$top/tests/gpu/cases/inputs.evt inputs sm_90a sm90_pp2_128x64x64_s6_staged:t" >> "$tmp/jobs"
echo "$top/tests/gpu/cases/reductions.evt reductions sm_90a sm90_pp2_128x64x64_s6_staged:x" >> "$tmp/jobs"
echo "$top/examples/examples.evt mlp_up sm_90a sm90_pp2_128x64x64_s7:p" >> "$tmp/jobs"

cat > "$tmp/one.sh" <<'EOS'
#!/bin/sh
f=$1 k=$2 t=$3 cfg=$4
out=$TMPD/$(basename "$f" .evt).$k.$t.$cfg.ptx
# CODEGEN_FULL=cuda's jobs: the CUDA generated, with an entry point, not compiled
generate_only() {
    if ! "$EVTC" "$f" --kernel "$k" --target "$t" --emit=cuda -o "$out.cu" 2>"$out.log" ||
        ! grep -q '__global__' "$out.cu"; then
        echo "FAIL $f $k $t config $cfg: not generated, or no entry point"; sed -n 1,20p "$out.log"; exit 1
    fi
    echo "ok   $(basename "$f") $k $t config $cfg generated ($(grep -c '__global__' "$out.cu") entries)"; exit 0
}
unset EVT_CONFIG EVT_SPLITK
case $cfg in
2|f|refuse) ;;
*:s) export EVT_CONFIG=${cfg%:s} EVT_SPLITK=2 ;;
*) export EVT_CONFIG=${cfg%:?} ;;
esac
# CODEGEN_FULL=cuda: a forced job whose kind was compiled already is generated only
case $cfg in
*:x|refuse|2|f) ;;
*)  [ "${CODEGEN_FULL:-}" = cuda ] && ! mkdir "$TMPD/kind.${cfg##*:}" 2>/dev/null && generate_only ;;
esac
case $cfg in
*:x|refuse)
    "$EVTC" "$f" --kernel "$k" --target "$t" --emit=ptx -o "$out" 2>"$out.log"
    rc=$?
    if [ $rc -ne 1 ] || ! grep -q 'cannot run' "$out.log"; then
        echo "FAIL $f $k $t config $cfg: not refused as a configuration that cannot run (exit $rc)"
        sed -n 1,5p "$out.log"; exit 1
    fi
    echo "ok   $(basename "$f") $k $t config $cfg refused"; exit 0 ;;
2)  [ "${CODEGEN_FULL:-}" = cuda ] && generate_only ;;
esac
if ! "$EVTC" "$f" --kernel "$k" --target "$t" --emit=ptx -o "$out" 2>"$out.log"; then
    echo "FAIL $f $k $t config $cfg: NVRTC"; sed -n 1,20p "$out.log"; exit 1
fi
if ! grep -q 'mma.sync.aligned.m16n8k16\|mma.sync.aligned.m16n8k32\|wgmma.mma_async' "$out"; then
    echo "FAIL $f $k $t config $cfg: no tensor-core MMA (mma.sync, wgmma) in the PTX"; exit 1
fi
case $cfg in
*:s) if ! grep -q '_splitk_sm' "$out" || ! grep -q '_splitsum_sm' "$out"; then
        echo "FAIL $f $k $t config $cfg: no split-K entry points"; exit 1
    fi ;;
*:w) if ! grep -q '_ws[0-9]_[0-9x]*_.*_sm' "$out" || ! grep -q 'mbarrier.test_wait.parity' "$out"; then
        echo "FAIL $f $k $t config $cfg: no warp-specialized entry point"; exit 1
    fi ;;
*:p) if ! grep -q '_sm90_pp2_.*_sm90a' "$out" || ! grep -q 'mbarrier.try_wait' "$out" ||
        ! grep -q 'wgmma.mma_async' "$out"; then
        echo "FAIL $f $k $t config $cfg: no producer/consumer entry point"; exit 1
    fi ;;
*:c) if ! grep -q '_sm90_[a-z]*2_cl2_.*_sm90a' "$out" || ! grep -q '.reqnctapercluster 2, 1, 1' "$out" ||
        ! grep -q 'multicast::cluster' "$out" || ! grep -q 'mapa.shared::cluster' "$out"; then
        echo "FAIL $f $k $t config $cfg: no clustered producer/consumer entry point multicasting B"; exit 1
    fi ;;
*:t) if ! grep -q "_${cfg%:t}_sm90a" "$out" || ! grep -q "_${cfg%:t}_guarded_sm90a" "$out" ||
        ! grep -q 'cp.async.bulk.tensor.2d' "$out" || ! grep -q 'st.shared.u16' "$out"; then
        echo "FAIL $f $k $t config $cfg: no staged producer/consumer entry points"; exit 1
    fi ;;
f)  ta=$(sed -n "s/^kernel[ \t]*$k[ \t]*=[ \t]*gemm(a: *\([a-z0-9]*\) .*/\1/p" "$f")
    tb=$(sed -n "s/^kernel[ \t]*$k[ \t]*=[ \t]*gemm(a: *[a-z0-9]* *[a-z]*, *b: *\([a-z0-9]*\) .*/\1/p" "$f")
    if ! grep -q "mma.sync.aligned.m16n8k32.row.col.f32.$ta.$tb.f32" "$out"; then
        echo "FAIL $f $k $t: no fp8 mma.sync m16n8k32 $ta x $tb in the PTX"; exit 1
    fi
    if [ "$t" = sm_90a ] && ! grep -q "wgmma.mma_async.sync.aligned.m64n128k32.f32.$ta.$tb" "$out"; then
        echo "FAIL $f $k $t: no fp8 wgmma k32 $ta x $tb in the PTX"; exit 1
    fi
    if grep -q 'm16n8k16\|k16.f32' "$out"; then
        echo "FAIL $f $k $t: 16-bit MMAs in an fp8 kernel's PTX"; exit 1
    fi ;;
*:m) name=${cfg%:m} bn=$(echo "$name" | sed 's/^sm90_coop2_128x\([0-9]*\)x.*/\1/')
    if ! grep -q "wgmma.mma_async.sync.aligned.m64n${bn}k16" "$out" || ! grep -q 'cp.async.bulk.tensor.2d' "$out" ||
        ! grep -q "_${name}_guarded_sm90a" "$out"; then
        echo "FAIL $f $k $t config $cfg: no m64n$bn wgmma, TMA load or guarded entry"; exit 1
    fi ;;
*:g) if ! grep -q 'wgmma.mma_async' "$out"; then
        echo "FAIL $f $k $t config $cfg: no wgmma in the PTX"; exit 1
    fi ;;
*:n) la=$(sed -n "s/^kernel[ \t]*$k[ \t]*=[ \t]*gemm(a: *[a-z0-9]* *\([a-z]*\),.*/\1/p" "$f")
    lb=$(sed -n "s/^kernel[ \t]*$k[ \t]*=[ \t]*gemm(a: *[a-z0-9]* *[a-z]*, *b: *[a-z0-9]* *\([a-z]*\),.*/\1/p" "$f")
    ta=0 tb=0
    [ "$la" = col ] && ta=1
    [ "$lb" = row ] && tb=1
    # every wgmma of the kernel transposes as its layouts say (a col: trans-a, b row: trans-b)
    all=$(grep -c 'wgmma.mma_async.sync.aligned.m64n[0-9]*k16' "$out")
    good=$(grep -c "wgmma.mma_async.sync.aligned.m64n[0-9]*k16.*, 1, 1, $ta, $tb;" "$out")
    if [ "$all" -eq 0 ] || [ "$all" -ne "$good" ]; then
        echo "FAIL $f $k $t config $cfg ($la, $lb): $good of $all wgmmas with imm-trans $ta, $tb"; exit 1
    fi
    case $cfg in
    sm90_pp2_*|sm90_coop2_*)
        if ! grep -q 'cp.async.bulk.tensor.2d' "$out" || ! grep -q 'cp.async.bulk.tensor.3d' "$out" ||
            ! grep -q '_guarded_sm90a' "$out"; then
            echo "FAIL $f $k $t config $cfg: no TMA loads (2D, 3D) or no guarded entry"; exit 1
        fi ;;
    esac ;;
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
        "$EVTC" "$top/examples/examples.evt" --kernel $k --target sm_80 --emit=cuda -o "$tmp/layout.cu"
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
