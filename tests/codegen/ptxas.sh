#!/bin/sh
# ptxas must not serialize any sm_90a wgmma: every kernel of the examples
# and of the fp8 golden file, in the full sm_90a listing the planner may pick
# from, is assembled by the toolkit's ptxas (NVRTC's own, as a program),
# which says "(C7520) Potential Performance Loss: wgmma.mma_async
# instructions are serialized" where it had to wait after every wgmma (a
# branch or a plain register write among wgmma registers; docs/fp8.md),
# or "(C7514) ... serialized due to non wgmma instructions reading
# accumulator registers" (fp8's k loop with two partial sums, session 41).
# That is a kernel running at a fraction of its speed with correct results,
# which no GPU test would notice; nor may the producer/consumer entries
# spill more than a few words, or hold more than 128 KB of code (where
# readelf is).  The tiles outside those listings are
# forced one by one.  Exit 77 (skipped) without ptxas.
#   EVTC=build/evtc sh tests/codegen/ptxas.sh
set -u
EVTC=${EVTC:?set EVTC to the evtc binary}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
[ -x "$PTXAS" ] || { echo "skip: no ptxas at $PTXAS"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$top"/examples/*.evt "$top"/tests/golden/fp8_gemm.evt "$here"/fp8_bf16.evt "$here"/light.evt; do
    sed -n 's/^kernel[ \t]*\([A-Za-z_][A-Za-z0-9_]*\)[ \t]*=.*/\1/p' "$f" | while read -r k; do
        echo "$f $k all"
    done
done > "$tmp/jobs"
# tiles outside those listings, forced: the clustered ones, the staged one,
# fp8's fast-accumulation ones and those with epilogue warpgroups
for c in sm90_pp2_cl2_128x128x64_s4 sm90_coop2_cl2_128x256x64_s3 sm90_coop2_256x128x64_s3; do
    echo "$top/examples/examples.evt train_fwd $c" >> "$tmp/jobs"
done
# the four-stage cooperative tiles (the light epilogues' in the heuristic)
# and the six-stage ping-pong ones, whose epilogues loop over eight
# sub-tiles: a light one, a GELU, and an aux output with reductions
for c in sm90_coop2_128x256x64_s4 sm90_coop2_cl2_128x256x64_s4 sm90_pp2_128x128x64_s6 sm90_pp2_cl2_128x128x64_s6; do
    echo "$here/light.evt light $c" >> "$tmp/jobs"
    echo "$top/examples/examples.evt mlp_up $c" >> "$tmp/jobs"
    echo "$top/examples/examples.evt train_fwd $c" >> "$tmp/jobs"
done
echo "$top/examples/resnet_block.evt resnet_add_relu sm90_pp2_128x128x64_s2_staged" >> "$tmp/jobs"
# the 64-wide staged tile (six stages) on a conv, and the unstaged 128x64
# ping-pong tile on GEMMs (tuning's since session 72): a GELU, an aux
# output with reductions
echo "$top/examples/resnet_block.evt resnet_add_relu sm90_pp2_128x64x64_s6_staged" >> "$tmp/jobs"
# the 128x64 ping-pong tile in k tiles of 32 channels (tuning's and forcing's
# only since session 76; its 128x128 twin is in the listing)
echo "$top/examples/resnet_block.evt resnet_add_relu sm90_pp2_128x64x32_s12" >> "$tmp/jobs"
echo "$top/examples/examples.evt mlp_up sm90_pp2_128x64x64_s7" >> "$tmp/jobs"
echo "$top/examples/examples.evt train_fwd sm90_pp2_128x64x64_s7" >> "$tmp/jobs"
# row groups sized to their loads: a float and an fp8 [M, N] input, which
# spilled 572 and 388 bytes a thread at sixteen rows a group
for c in sm90_pp2_128x128x64_s4 sm90_coop2_128x256x64_s3; do
    echo "$here/wide_loads.evt wide $c" >> "$tmp/jobs"
done
# the 160-wide cooperative tile (its epilogue in five 32-column sub-tiles),
# on a GEMM and, tuning's and forcing's only, on a conv (session 78)
echo "$top/examples/examples.evt train_fwd sm90_coop2_128x160x64_s4" >> "$tmp/jobs"
echo "$top/examples/resnet_block.evt resnet_add_relu sm90_coop2_128x160x64_s4" >> "$tmp/jobs"
# clusters of two and four on a conv, the filter tile multicast (sessions 79-80)
for c in sm90_coop2_cl2_128x160x64_s4 sm90_coop2_cl2_128x192x64_s4 sm90_pp2_cl2_128x128x64_s4 \
    sm90_pp2_cl4_128x128x64_s4 sm90_coop2_cl4_128x160x64_s4 sm90_coop2_cl4_128x192x64_s4; do
    echo "$top/examples/resnet_block.evt resnet_add_relu $c" >> "$tmp/jobs"
done
# the 64-row ping-pong tiles (one m64 row a consumer, the epilogue looped
# over four 32-column sub-tiles), which only tuning and forcing pick
for c in sm90_pp2_64x128x64_s8 sm90_pp2_cl2_64x128x64_s8; do
    echo "$here/light.evt light $c" >> "$tmp/jobs"
    echo "$top/examples/examples.evt train_fwd $c" >> "$tmp/jobs"
done
# the 128x64 two-warpgroup tile, which only tuning and forcing pick
echo "$top/examples/examples.evt mlp_up sm90_wg2_128x64x64_s8" >> "$tmp/jobs"
# the swapped tiles (m64n16 to m64n112 wgmmas), forced: an aux output with reductions
for c in sm90_wg1_16x64x64_s16 sm90_wg1_32x64x64_s12 sm90_wg1_16x128x64_s12 sm90_wg1_48x128x64_s10 \
         sm90_wg1_80x64x64_s12 sm90_wg1_96x64x64_s11 sm90_wg1_112x64x64_s10 sm90_wg1_80x128x64_s8 \
         sm90_wg1_96x128x64_s8 sm90_wg1_112x128x64_s7; do
    echo "$top/examples/examples.evt train_fwd $c" >> "$tmp/jobs"
done
for c in sm90_pp2_128x128x128_s4_fp8 sm90_wg2_128x256x128_s4_fp8; do
    echo "$top/tests/golden/fp8_gemm.evt e4m3_e4m3 $c" >> "$tmp/jobs"
done
# fp8's tiles with two epilogue warpgroups (forced and tuned only), whose
# consumers have 152 registers: the kernel bench_fp8 times, and an amax
for c in sm90_ws8_coop2_128x128x128_s4_fp8 sm90_ws8_coop2_cl2_128x128x128_s4_fp8; do
    echo "$here/fp8_bf16.evt fp8_linear $c" >> "$tmp/jobs"
    echo "$top/tests/golden/fp8_gemm.evt e4m3_e4m3 $c" >> "$tmp/jobs"
done
cat > "$tmp/one.sh" <<'EOS'
#!/bin/sh
f=$1 k=$2 cfg=$3 out=$TMPD/$(basename "$1" .evt).$2.$3
unset EVT_CONFIG
[ "$cfg" = all ] || export EVT_CONFIG="$cfg"
if ! "$EVTC" "$f" --kernel "$k" --target sm_90a --emit=ptx -o "$out.ptx" 2>"$out.log"; then
    echo "FAIL $f $k: NVRTC"; sed -n 1,10p "$out.log"; exit 0
fi
# (tests/codegen/run.sh leaves the examples' full sm_90a listings to this
# test: its check that the PTX holds tensor-core MMAs, here too)
if ! grep -q 'mma.sync.aligned.m16n8k16\|mma.sync.aligned.m16n8k32\|wgmma.mma_async' "$out.ptx"; then
    echo "FAIL $f $k $cfg: no tensor-core MMA (mma.sync, wgmma) in the PTX"; exit 0
fi
if ! "$PTXAS" -arch=sm_90a -v "$out.ptx" -o "$out.cubin" >"$out.ptxas" 2>&1; then
    echo "FAIL $f $k: ptxas"; sed -n 1,10p "$out.ptxas"; exit 0
fi
if grep -q 'C7520\|wgmma.mma_async instructions are serialized' "$out.ptxas"; then
    echo "FAIL $(basename "$f") $k $cfg: ptxas serializes wgmmas"
    grep 'serialized' "$out.ptxas" | sed 's/^/    /'; exit 0
fi
# the producer/consumer entries (the fast schedules) spill less than 64
# bytes: a word or two kept across the tile loop costs a load a tile (the
# clustered four-stage cooperative tile: 8 bytes); the fp8 tile's 520 bytes
# were its k loop's.  ptxas prints each entry's name, then its spill line.
# Those with epilogue warpgroups (ws8) on their TMA path only: their
# guarded entries (the producer at 40 registers computing each element's
# address) spill 48 bytes and reload 100 in clusters, which the guarded
# copies' own time dwarfs.
spills=$(awk '/Compiling entry function .*_sm90_(pp2|coop2)_/ || /Compiling entry function .*_sm90_ws8_coop2_/ && !/_guarded_/ {e = $0; next}
              e != "" && /spill stores/ { if ($5 + 0 >= 64 || $9 + 0 >= 64) print e ": " $0; e = "" }' "$out.ptxas")
if [ -n "$spills" ]; then
    echo "FAIL $(basename "$f") $k $cfg: a producer/consumer entry spills"
    echo "$spills" | sed 's/^/    /'; exit 0
fi
# nor may a producer/consumer entry's code outgrow the instruction cache: a
# GELU epilogue inlined once per sub-tile (eight times) made 200 KB of it
# and ran 1.6x slower (docs/sm90.md); the largest now is about 84 KB
if command -v readelf >/dev/null 2>&1; then
    big=$(readelf -SW "$out.cubin" 2>/dev/null |
          awk '{ for (i = 1; i < NF; i++) if ($i ~ /^\.text\..*_sm90_(pp2|coop2)_/) {
                     n = 0; h = tolower($(i + 4));
                     for (j = 1; j <= length(h); j++) n = 16 * n + index("0123456789abcdef", substr(h, j, 1)) - 1;
                     if (n > 131072) print $i ": " n " bytes" } }')
    if [ -n "$big" ]; then
        echo "FAIL $(basename "$f") $k $cfg: a producer/consumer entry's code is over 128 KB"
        echo "$big" | sed 's/^/    /'; exit 0
    fi
fi
echo "ok   $(basename "$f") $k $cfg: $(grep -c 'Compiling entry' "$out.ptxas") entries, no wgmma serialized, no producer/consumer spills or 128 KB entries"
EOS
export EVTC PTXAS TMPD="$tmp"
xargs -P "${JOBS:-2}" -L 1 sh "$tmp/one.sh" < "$tmp/jobs" > "$tmp/results" 2>&1
cat "$tmp/results"
pass=$(grep -c '^ok ' "$tmp/results")
fail=$(grep -c '^FAIL' "$tmp/results")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
