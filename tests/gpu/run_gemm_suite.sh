#!/usr/bin/env bash
# run_gemm_suite.sh - `evtc run --check` over the GPU test matrix: every
# kernel of examples/*.evt, and the kernels of tests/gpu/cases/ (every
# builtin and operator, every input shape and element type, every reduction
# kind and axis, several outputs of every element type, f16 and bf16
# operands in all four layouts, conv2d_fprop too), on sizes that are not
# tile multiples, with K not a multiple of 8 (the guarded mainloop), padded
# leading dimensions and NaN/inf inputs.  Prints one line per run and
# "N passed, N failed".
#
#   EVTC=build/evtc tests/gpu/run_gemm_suite.sh [-j JOBS] [-k] [-E REGEX] [--shard I/N] [--rerun LOG] [--list] [FILTER]
#
# -j: runs in parallel (default: the processors; runs of one kernel stay in
# order, so the first compiles and the rest hit the kernel cache).  -k: keep
# the logs.  FILTER: only runs whose line contains it.  -E: only runs whose
# line matches the extended regular expression (e.g. ' [0-9]+,(7|127|4097),'
# for the ragged N).  --shard I/N: only the I-th of N shares of the groups
# (below), for a device call too short for the whole suite.  --rerun LOG:
# only the runs that an earlier run's output LOG does not list as passed
# (a killed or failed run's rest).  --list: print the runs these options
# select, in the order they would start, and run none.  A line is
# "FILE.evt KERNEL SIZE OPTIONS", FILE without its folder.  Killed (TERM or
# INT, as `timeout` does), it prints what finished and exits 124.  Exit
# status: 0 all passed, 1 a run failed, 77 no GPU (ctest: skipped).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
EVTC=${EVTC:-$root/build/evtc}
jobs=$(nproc 2>/dev/null || echo 8)
keep=0
filter=
regex=
shard=1/1
rerun=
list=0
while [ $# -gt 0 ]; do
    case $1 in
    -j) jobs=$2; shift 2 ;;
    -k) keep=1; shift ;;
    -E) regex=${2:?run_gemm_suite: -E REGEX}; shift 2 ;;
    --shard) shard=${2:?run_gemm_suite: --shard I/N}; shift 2 ;;
    --rerun) rerun=${2:?run_gemm_suite: --rerun LOG}; shift 2 ;;
    --list) list=1; shift ;;
    *) filter=$1; shift ;;
    esac
done
shard_i=${shard%/*} shard_n=${shard#*/}
case $shard in
[1-9]*/[1-9]*) [ "$shard_i" -le "$shard_n" ] 2>/dev/null || shard_n=bad ;;
*) shard_n=bad ;;
esac
if [ "$shard_n" = bad ]; then
    echo "run_gemm_suite: --shard takes I/N with 1 <= I <= N, not '$shard'" >&2
    exit 2
fi
c=$here/cases
ex=$root/examples

# One run per line: FILE KERNEL SIZE [evtc run options], where SIZE is
# M,N,K for a gemm kernel and conv:N,H,W,C,K,R,S[,pad,stride,dilation] for
# a conv2d_fprop one.  GEMM sizes take M and N from {1, 7, 127, 1000, 4097}
# and K from {8, 24, 4104}, plus K = 13, which is not a multiple of 8 and
# so takes the guarded path with a row-major A or a column-major B (as does
# a conv's C = 13).  The reference covers at most 2^32 multiply-adds (larger
# runs check a sample of rows, unless an output reduces over M); these stay
# under it, so every output of every run is checked in full.  --splitk (a suite option, not evtc's) runs with
# EVT_SPLITK=2: every tile split in two, the partial sums added in the
# shares' cluster on sm_90a, by the _splitsum kernel on other GPUs
# (--splitkN: N ways, 2 to 8).  --streamk runs with EVT_STREAMK=2 (stream-K
# where the configuration has it).  --config NAME (also the suite's) forces a tile
# configuration (EVT_CONFIG, names in kernels/tile_configs.h): the sm_90a
# wgmma ones and the persistent ones (sm80_ws4_*, sm90_wg2_ws*:
# warp-specialized; sm90_pp2_*: a producer and two consumer warpgroups,
# loading with TMA where plan_conv_tma_channels takes c, else guarded), these on
# grids of more tiles than CTAs, so every CTA walks several, and on fewer.
runs() {
    # Every kernel of the examples.
    for f in "$ex"/*.evt; do
        for k in $("$EVTC" "$f" --emit=ir 2>/dev/null | sed -n 's/^kernel \([A-Za-z_0-9]*\) = conv2d_fprop(.*/\1/p'); do
            echo "$f $k conv:2,9,9,24,40,3,3,1,1,1"
            echo "$f $k conv:3,17,13,13,40,3,3,1,2,1"
            echo "$f $k conv:1,7,7,8,16,1,1"
            echo "$f $k conv:2,16,16,16,24,3,3,2,1,2"
            echo "$f $k conv:8,28,28,64,64,3,3,1,1,1"
            echo "$f $k conv:4,14,14,64,128,3,3,1,1,1 --special"
            echo "$f $k conv:1,1,1,8,8,1,1"
            echo "$f $k conv:4,14,14,64,128,3,3,1,1,1 --splitk"
            echo "$f $k conv:3,17,13,13,40,3,3,1,2,1 --splitk"
            echo "$f $k conv:32,28,28,32,136,1,1 --config sm80_ws4_128x128x64_w4_s3"
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm80_ws4_128x128x64_w4_s3 --special"
            echo "$f $k conv:16,17,13,13,264,3,3,1,1,1 --config sm80_ws4_128x128x64_w4_s3"
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg2_128x256x64_s4"
            echo "$f $k conv:3,17,13,13,40,3,3,1,2,1 --config sm90_wg2_128x256x64_s4 --special"
            echo "$f $k conv:8,30,30,40,64,3,3,1,1,1 --config sm90_wg2_128x256x64_s4 --splitk"
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg3_192x128x64_s4"
            echo "$f $k conv:16,17,13,13,136,3,3,1,1,1 --config sm90_wg3_192x128x64_s4 --special"
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg3_192x256x64_s4"
            echo "$f $k conv:16,17,13,13,520,3,3,1,1,1 --config sm90_wg3_192x256x64_s4 --special"
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg3_192x256x64_s4 --splitk"
            echo "$f $k conv:32,28,28,32,136,1,1 --config sm90_wg2_ws4_128x128x64_s4"
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg2_ws4_128x128x64_s4 --special"
            echo "$f $k conv:16,17,13,13,264,3,3,1,1,1 --config sm90_wg2_ws4_128x128x64_s4"
            echo "$f $k conv:32,28,28,32,136,1,1 --config sm90_wg2_ws8_128x128x64_s4"
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg2_ws8_128x128x64_s4 --special"
            echo "$f $k conv:32,28,28,32,136,1,1 --config sm90_wg2_128x128x32_s6"
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg2_128x128x32_s6"
            echo "$f $k conv:16,17,13,13,264,3,3,1,1,1 --config sm90_wg2_128x128x32_s6 --special"
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg2_128x128x32_s6 --splitk"
            # 11, guarded (c not a multiple of 64: no TMA maps) ...
            echo "$f $k conv:32,28,28,32,136,1,1 --config sm90_pp2_128x128x64_s4"
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s4 --special"
            echo "$f $k conv:16,17,13,13,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s4"
            echo "$f $k conv:3,17,13,13,40,3,3,1,2,1 --config sm90_pp2_128x128x64_s4"
            echo "$f $k conv:1,7,7,8,16,1,1 --config sm90_pp2_128x128x64_s4"
            # ... and with TMA loads (c a multiple of 64)
            echo "$f $k conv:32,28,28,64,136,1,1 --config sm90_pp2_128x128x64_s4"
            echo "$f $k conv:8,30,30,64,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s4 --special"
            echo "$f $k conv:3,17,13,64,40,3,3,1,2,1 --config sm90_pp2_128x128x64_s4"
            echo "$f $k conv:2,19,23,64,72,3,3,2,1,2 --config sm90_pp2_128x128x64_s4"
            echo "$f $k conv:2,21,17,128,48,5,5,2,2,1 --config sm90_pp2_128x128x64_s4"
            echo "$f $k conv:2,15,13,64,40,7,7,3,2,1 --config sm90_pp2_128x128x64_s4"
            # ... TMA where c is not a multiple of 64 either: each tap's last
            # k tile zero-filled past c (200, 96, 160); 136 keeps the guarded path
            echo "$f $k conv:4,14,14,200,136,3,3,1,1,1 --config sm90_pp2_128x128x64_s4 --special"
            echo "$f $k conv:2,19,23,96,72,3,3,2,1,2 --config sm90_pp2_128x128x64_s4"
            echo "$f $k conv:3,17,13,160,40,3,3,1,2,1 --config sm90_pp2_128x64x64_s7"
            echo "$f $k conv:2,15,13,200,200,1,1 --config sm90_pp2_128x128x64_s2_staged"
            echo "$f $k conv:3,17,13,136,40,3,3,1,2,1 --config sm90_pp2_128x128x64_s4"
            echo "$f $k conv:8,17,17,160,192,3,3,1,1,1"
            # the heuristic's picks of session 32's conv rules: k = 320 and 192
            # on the 128x64 tile (whole taps; c = 160's zero-filled tap ends),
            # a 1x1 c = 160 on 128x128x32 (K's padding)
            echo "$f $k conv:32,14,14,256,320,1,1"
            echo "$f $k conv:48,17,17,160,192,3,3,1,1,1"
            echo "$f $k conv:64,28,28,160,160,1,1"
            # 13: the producer/consumer tile of narrow layers (128x64)
            echo "$f $k conv:8,30,30,64,64,3,3,1,1,1 --config sm90_pp2_128x64x64_s7"
            echo "$f $k conv:3,17,13,64,40,3,3,1,2,1 --config sm90_pp2_128x64x64_s7 --special"
            echo "$f $k conv:2,19,23,128,24,3,3,2,1,2 --config sm90_pp2_128x64x64_s7"
            echo "$f $k conv:32,28,28,32,56,1,1 --config sm90_pp2_128x64x64_s7"
            # the one-warpgroup wgmma tiles (cp.async), whole and split
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg1_64x128x64_s8"
            echo "$f $k conv:3,17,13,13,40,3,3,1,2,1 --config sm90_wg1_64x128x64_s8 --special"
            echo "$f $k conv:8,30,30,40,64,3,3,1,1,1 --config sm90_wg1_64x128x64_s8 --splitk"
            echo "$f $k conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg1_64x64x64_s8"
            echo "$f $k conv:2,19,23,64,72,3,3,2,1,2 --config sm90_wg1_64x64x64_s8 --special"
            echo "$f $k conv:4,14,14,64,128,3,3,1,1,1 --config sm90_wg1_64x64x64_s8 --splitk"
            # the heuristic's pick of session 75's one-wave rule: the 64x128
            # tile at K >= 512 (a 5x5 layer of c = 80, a 1x1 of c = 776)
            echo "$f $k conv:6,21,21,80,256,5,5,2,1,1"
            echo "$f $k conv:2,23,23,776,584,1,1 --special"
            # and of session 75's long-K rule: the 192x128 tile in eight shares
            echo "$f $k conv:2,35,35,768,128,5,5,2,1,1"
            echo "$f $k conv:3,29,29,816,128,5,5,2,1,1 --special"
            # the ping-pong tiles in k tiles of 32 channels (64-byte rows),
            # forced (the heuristic takes the 128x128 one only at c of 32 and
            # 96, the 128x64 one at c = 32 over 64 filters, below): TMA at c
            # of 160 (no tap end zero-filled) and 200 (224 loaded),
            # dilation, ragged M and N, split in two, and
            # guarded (c = 13, c = 40: no maps)
            for c32 in sm90_pp2_128x64x32_s12 sm90_pp2_128x128x32_s8; do
                echo "$f $k conv:8,30,30,160,264,3,3,1,1,1 --config $c32"
                echo "$f $k conv:2,19,23,200,72,3,3,2,1,2 --config $c32 --special"
                echo "$f $k conv:32,28,28,96,56,1,1 --config $c32 --splitk"
                echo "$f $k conv:3,17,13,13,40,3,3,1,2,1 --config $c32"
                echo "$f $k conv:2,9,9,40,136,3,3,1,1,1 --config $c32"
            done
            # the heuristic's pick of session 76's rule: the 128x128 tile in
            # k tiles of 32 at c = 32 (maps only in such k tiles) and 96
            # (ragged M), a 7x7 stride-2 layer
            echo "$f $k conv:16,40,40,32,256,3,3,1,1,1"
            echo "$f $k conv:13,37,37,96,128,3,3,1,1,1 --special"
            echo "$f $k conv:36,34,34,32,256,7,7,3,2,1"
            # and of session 77's: the 128x64 one at c of 32 and 96 over 64
            # filters (ragged M, a 5x5 stride-2 layer)
            echo "$f $k conv:13,41,37,32,64,3,3,1,1,1 --special"
            echo "$f $k conv:40,35,35,32,64,5,5,2,2,1"
            echo "$f $k conv:11,43,39,96,64,3,3,1,1,1 --special"
            # and of session 78's: the same tile at c = 160 (ragged M, stride 2)
            echo "$f $k conv:29,41,37,160,64,3,3,1,1,1 --special"
            echo "$f $k conv:45,61,59,160,64,3,3,1,2,1"
            # the cooperative 128x192 tile: TMA (c % 64 == 0, and c = 200's
            # zero-filled tap ends), dilation, ragged M and N, and guarded
            # (c = 13, no maps)
            echo "$f $k conv:32,28,28,64,136,1,1 --config sm90_coop2_128x192x64_s4"
            echo "$f $k conv:8,30,30,64,264,3,3,1,1,1 --config sm90_coop2_128x192x64_s4 --special"
            echo "$f $k conv:2,19,23,64,520,3,3,2,1,2 --config sm90_coop2_128x192x64_s4"
            echo "$f $k conv:3,17,13,13,40,3,3,1,2,1 --config sm90_coop2_128x192x64_s4"
            echo "$f $k conv:4,14,14,200,136,3,3,1,1,1 --config sm90_coop2_128x192x64_s4 --special"
            echo "$f $k conv:3,17,13,64,400,3,3,1,2,1 --config sm90_coop2_128x192x64_s4"
            echo "$f $k conv:2,21,17,128,200,5,5,2,2,1 --config sm90_coop2_128x192x64_s4"
            echo "$f $k conv:8,17,17,160,192,3,3,1,1,1 --config sm90_coop2_128x192x64_s4"
            # the cooperative 128x160 tile on convs (session 78; forcing's
            # and tuning's): ragged N, TMA over whole taps and over c = 160's
            # and 200's zero-filled tap ends, guarded (c = 13), stream-K
            echo "$f $k conv:32,28,28,64,136,1,1 --config sm90_coop2_128x160x64_s4"
            echo "$f $k conv:8,30,30,64,264,3,3,1,1,1 --config sm90_coop2_128x160x64_s4 --special"
            echo "$f $k conv:8,17,17,160,160,3,3,1,1,1 --config sm90_coop2_128x160x64_s4"
            echo "$f $k conv:4,14,14,200,136,3,3,1,1,1 --config sm90_coop2_128x160x64_s4 --special"
            echo "$f $k conv:3,17,13,13,40,3,3,1,2,1 --config sm90_coop2_128x160x64_s4"
            echo "$f $k conv:2,21,17,128,200,5,5,2,2,1 --config sm90_coop2_128x160x64_s4 --streamk"
            # clusters of two and four on convs (sessions 79-80; the
            # heuristic's at odd-8 c, forcing's and tuning's): the filter
            # tile loaded a share by each CTA, multicast to all; a cluster's
            # tiles past M (19 and 13 row tiles, stacks of 2 or 4), ragged
            # N, TMA over whole taps and over zero-filled tap ends (c of
            # 160, 200, 280), guarded (c = 13), stream-K
            for ccl in sm90_coop2_cl2_128x160x64_s4 sm90_coop2_cl2_128x192x64_s4 sm90_pp2_cl2_128x128x64_s4 \
                       sm90_pp2_cl4_128x128x64_s4 sm90_coop2_cl4_128x160x64_s4 sm90_coop2_cl4_128x192x64_s4; do
                echo "$f $k conv:32,28,28,64,136,1,1 --config $ccl"
                echo "$f $k conv:8,30,30,64,264,3,3,1,1,1 --config $ccl --special"
                echo "$f $k conv:8,17,17,160,160,3,3,1,1,1 --config $ccl"
                echo "$f $k conv:4,14,14,200,136,3,3,1,1,1 --config $ccl --special"
                echo "$f $k conv:5,19,17,280,200,3,3,1,1,1 --config $ccl"
                echo "$f $k conv:3,17,13,13,40,3,3,1,2,1 --config $ccl"
                echo "$f $k conv:2,21,17,128,200,5,5,2,2,1 --config $ccl --streamk"
            done
            # and its pick for 160 filters at unit stride (ragged M; c = 160's
            # and 128's maps)
            echo "$f $k conv:29,17,19,160,160,3,3,1,1,1 --special"
            echo "$f $k conv:13,29,31,128,160,3,3,1,1,1"
            # and with stream-K (session 77), forced: TMA over whole taps and
            # over c = 200's zero-filled tap ends, guarded (c = 13), a 5x5
            # stride-2 layer, a 1x1 layer of 275 tiles (two waves whole,
            # the rest shared)
            echo "$f $k conv:8,30,30,64,264,3,3,1,1,1 --config sm90_coop2_128x192x64_s4 --streamk"
            echo "$f $k conv:4,14,14,200,136,3,3,1,1,1 --config sm90_coop2_128x192x64_s4 --streamk --special"
            echo "$f $k conv:3,17,13,13,40,3,3,1,2,1 --config sm90_coop2_128x192x64_s4 --streamk"
            echo "$f $k conv:2,21,17,128,200,5,5,2,2,1 --config sm90_coop2_128x192x64_s4 --streamk"
            echo "$f $k conv:64,7,7,512,2048,1,1 --config sm90_coop2_128x192x64_s4 --streamk"
            # the heuristic's pick of it (session 36): k = 320, 3x3, c = 128
            echo "$f $k conv:2,23,21,128,320,3,3,1,1,1"
            # the heuristic's picks of session 37's rules: the one-warpgroup
            # 64x64 tile unsplit at K <= 512 (ragged M, n = 48 and 136), the
            # 64x128 one split four ways, the 128x128 producer/consumer tile
            # at k = 576
            echo "$f $k conv:1,57,55,200,48,1,1"
            echo "$f $k conv:2,29,27,96,136,1,1"
            echo "$f $k conv:8,7,9,384,512,3,3,1,1,1"
            echo "$f $k conv:32,13,15,512,576,3,3,1,1,1"
            # ... the 128x64 producer/consumer tile past a wave of 64x64
            # tiles at long K (c = 200 and 160: taps ending in zero-filled k
            # tiles), the one-warpgroup 64x64 tile at 98 tiles of 64
            # filters, the cooperative 128x192 tile for 160 filters
            echo "$f $k conv:8,17,19,200,200,3,3,1,1,1"
            echo "$f $k conv:4,35,33,160,136,3,3,1,1,1"
            echo "$f $k conv:127,7,7,160,64,3,3,1,1,1"
            echo "$f $k conv:16,29,27,192,160,1,1"
            # ... the 128x128 producer/consumer tile with taps ending in
            # zero-filled k tiles (c = 480 and 160)
            echo "$f $k conv:16,29,27,480,136,1,1"
            echo "$f $k conv:64,29,27,160,392,3,3,1,1,1"
            # the heuristic's picks of session 38's rules: eight shares for
            # few tiles at long K (the mma.sync and one-warpgroup 64x64
            # tiles), the 128x128 producer/consumer tile for taps ending in
            # more than a sixth of zeros (c = 200, and 264 in 5x5 taps), the
            # 128x64 one for 257-511 filters (ragged: 424 and 296)
            echo "$f $k conv:1,17,19,512,48,3,3,1,1,1"
            echo "$f $k conv:1,13,15,512,136,3,3,1,1,1"
            echo "$f $k conv:2,29,31,200,392,3,3,1,1,1"
            echo "$f $k conv:8,15,13,264,760,5,5,2,1,1"
            echo "$f $k conv:8,29,27,320,424,3,3,1,1,1"
            echo "$f $k conv:16,35,33,512,296,1,1"
            # ... taps ending in zero-filled k tiles: the 128x64 one for 64
            # filters or fewer (c = 200, 240)
            echo "$f $k conv:16,29,27,200,48,3,3,1,1,1"
            echo "$f $k conv:4,57,55,240,40,3,3,1,1,1"
            # ... the staged 128x128 tile for a 1x1 layer at K = 240 (taps
            # ending in zero-filled k tiles)
            echo "$f $k conv:16,57,55,240,200,1,1"
            # the heuristic's picks of session 39's rules: the 128x128
            # producer/consumer tile for taps ending in an eighth of zeros
            # or fewer (c = 480), the cooperative 128x192 one for 152
            # filters over taps ending in zeros (c = 304)
            echo "$f $k conv:2,29,31,480,520,3,3,1,1,1"
            echo "$f $k conv:32,19,17,304,152,3,3,1,1,1"
            # ... the cp.async 128x256 and 192x128 tiles split four ways
            # under half a wave of 128x128 tiles at K >= 4096
            echo "$f $k conv:4,17,19,240,520,5,5,2,1,1"
            echo "$f $k conv:4,41,43,536,360,5,5,2,2,1"
            # ... at K >= 8192, the 128x256 tile split eight ways, and the
            # one-warpgroup 64x64 tile split eight ways (ragged M and N)
            echo "$f $k conv:2,15,13,672,504,7,7,3,1,1"
            echo "$f $k conv:2,9,11,752,944,7,7,3,2,1"
            # ... 65-96 filters over several taps past a wave of 128x128
            # tiles: that tile, one column edge tile (c = 704 and 64)
            echo "$f $k conv:16,35,33,704,68,5,5,2,1,1"
            echo "$f $k conv:8,57,55,64,96,3,3,1,1,1"
            # ... the cooperative 128x192 tile where it leaves the busiest
            # SM a quarter less than the 128x128 one (520 filters)
            echo "$f $k conv:4,35,33,512,520,3,3,1,1,1"
            # ... k % 128 == 64 over taps ending in zeros: the cp.async
            # 128x256 tile (c = 200, 448 filters)
            echo "$f $k conv:64,15,17,200,448,5,5,2,1,1"
            # 14: 11 in two stages, the residual staged into shared memory by
            # the producer (TMA where c % 64 == 0, element by element else)
            echo "$f $k conv:32,28,28,64,136,1,1 --config sm90_pp2_128x128x64_s2_staged"
            echo "$f $k conv:8,30,30,64,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s2_staged --special"
            echo "$f $k conv:3,17,13,64,40,3,3,1,2,1 --config sm90_pp2_128x128x64_s2_staged"
            echo "$f $k conv:2,15,13,128,200,1,1 --config sm90_pp2_128x128x64_s2_staged"
            echo "$f $k conv:5,14,14,64,1000,1,1,0,2,1 --config sm90_pp2_128x128x64_s2_staged"
            echo "$f $k conv:32,28,28,32,136,1,1 --config sm90_pp2_128x128x64_s2_staged"
            echo "$f $k conv:3,17,13,13,40,3,3,1,2,1 --config sm90_pp2_128x128x64_s2_staged --special"
            # the staged 128x64 tile (six stages): thin 1x1 layers, the
            # heuristic's pick (40 filters past a wave of 64x64 tiles, K =
            # 192) and forced: 3x3, stride 2, more filters than its
            # columns, taps ending in zeros (guarded), NaN and inf
            echo "$f $k conv:32,35,35,192,40,1,1"
            echo "$f $k conv:9,31,29,192,24,1,1 --config sm90_pp2_128x64x64_s6_staged --special"
            echo "$f $k conv:8,30,30,64,40,3,3,1,1,1 --config sm90_pp2_128x64x64_s6_staged"
            echo "$f $k conv:5,14,14,128,136,1,1,0,2,1 --config sm90_pp2_128x64x64_s6_staged"
            echo "$f $k conv:3,17,13,13,40,3,3,1,2,1 --config sm90_pp2_128x64x64_s6_staged --special"
        done
        for k in $("$EVTC" "$f" --emit=ir 2>/dev/null | sed -n 's/^kernel \([A-Za-z_0-9]*\) = gemm(.*/\1/p'); do
            echo "$f $k 1000,1000,24"
            echo "$f $k 127,4097,4104"
            echo "$f $k 4097,1,8"
            echo "$f $k 1,1000,4104"
            echo "$f $k 7,127,13"
            echo "$f $k 9,1000,264"             # M <= 32 at short K: the swapped 16-row tile, split
            echo "$f $k 24,3000,600 --special"  # ... the 32-row one
            echo "$f $k 1000,127,24 --special"
            echo "$f $k 127,1000,8 --ld-pad 8"
            echo "$f $k 127,127,24 --ld-pad 3"
            echo "$f $k 1000,1000,4104 --splitk"
            echo "$f $k 127,1000,4104 --splitk --special"
            echo "$f $k 2000,2000,520 --config sm90_wg2_128x256x64_s4"
            echo "$f $k 1000,127,13 --config sm90_wg2_128x256x64_s4 --special"
            echo "$f $k 4097,1000,24 --config sm90_wg2_128x128x64_s3"
            echo "$f $k 127,1000,4104 --config sm90_wg2_128x128x64_s3 --splitk"
            echo "$f $k 77,1000,4104 --config sm90_wg2_128x128x64_s6 --splitk"
            echo "$f $k 127,1000,13 --config sm90_wg2_128x128x64_s6 --special"
            echo "$f $k 1000,127,520 --config sm90_wg2_128x128x64_s6 --ld-pad 3"
            echo "$f $k 77,1000,4104 --config sm90_wg2_128x64x64_s8 --splitk4"
            echo "$f $k 127,1000,13 --config sm90_wg2_128x64x64_s8 --special"
            echo "$f $k 1000,127,520 --config sm90_wg2_128x64x64_s8 --ld-pad 3"
            echo "$f $k 77,1000,4104 --config sm90_wg1_64x128x64_s4 --splitk"
            echo "$f $k 1000,1000,24 --config sm90_wg1_64x128x64_s4 --special"
            echo "$f $k 127,1000,13 --config sm90_wg1_64x128x64_s4"
            echo "$f $k 7,4097,4104 --config sm90_wg1_64x128x64_s4 --splitk"
            echo "$f $k 1000,127,520 --config sm90_wg1_64x128x64_s4 --special"
            echo "$f $k 77,1000,4104 --config sm90_wg1_64x128x64_s8 --splitk"
            echo "$f $k 127,1000,13 --config sm90_wg1_64x128x64_s8 --special"
            echo "$f $k 7,4097,4104 --config sm90_wg1_64x128x64_s8 --splitk4"
            echo "$f $k 1000,127,520 --config sm90_wg1_64x128x64_s8 --ld-pad 3"
            echo "$f $k 77,1000,4104 --config sm90_wg1_64x64x64_s8 --splitk"
            echo "$f $k 127,1000,13 --config sm90_wg1_64x64x64_s8 --special"
            echo "$f $k 7,4097,4104 --config sm90_wg1_64x64x64_s8 --splitk4"
            echo "$f $k 1000,127,520 --config sm90_wg1_64x64x64_s8 --ld-pad 3"
            echo "$f $k 16,5000,1000 --config sm90_wg1_64x64x64_s8 --special"
            # the swapped tiles (B's rows as wgmma's M, BM of 16 to 112 tokens as
            # its N): one tile row and several, split in clusters, guarded (K =
            # 13, padded ld), a batch, NaN/inf
            for sw in sm90_wg1_16x64x64_s16 sm90_wg1_32x64x64_s12 sm90_wg1_16x128x64_s12 sm90_wg1_48x128x64_s10 \
                      sm90_wg1_80x64x64_s12 sm90_wg1_96x64x64_s11 sm90_wg1_112x64x64_s10 sm90_wg1_80x128x64_s8 \
                      sm90_wg1_96x128x64_s8 sm90_wg1_112x128x64_s7; do
                echo "$f $k 16,5000,1000 --config $sw --special"
                echo "$f $k 77,1000,4104 --config $sw --splitk"
                echo "$f $k 7,4097,4104 --config $sw --splitk4"
                echo "$f $k 1,1000,4104 --config $sw"
                echo "$f $k 127,1000,13 --config $sw --special"
                echo "$f $k 1000,127,520 --config $sw --ld-pad 3"
                echo "$f $k 33,3000,1000 --config $sw --batch 3"
            done
            echo "$f $k 1000,1000,24 --config sm90_pp2_cl2_128x128x64_s4"
            echo "$f $k 4097,1000,520 --config sm90_pp2_cl2_128x128x64_s4"
            echo "$f $k 127,1000,4104 --config sm90_pp2_cl2_128x128x64_s4 --special"
            echo "$f $k 1000,127,24 --config sm90_pp2_cl2_128x128x64_s4 --ld-pad 3"
            # six stages: each consumer's epilogue 32 columns at a time through
            # a sub-tile of its own (two tiles a CTA at 4097 x 1000, both
            # consumers busy; a batch; a stack past M in clusters)
            echo "$f $k 1000,1000,24 --config sm90_pp2_128x128x64_s6"
            echo "$f $k 4097,1000,520 --config sm90_pp2_128x128x64_s6 --special"
            echo "$f $k 127,1000,4104 --config sm90_pp2_128x128x64_s6 --ld-pad 3"
            echo "$f $k 2000,3000,520 --config sm90_pp2_128x128x64_s6 --batch 2"
            echo "$f $k 2000,2300,1000 --config sm90_pp2_128x128x64_s6 --splitk"
            # ... one tile a CTA (56 and 36 tiles), even and odd k tiles, a batch
            echo "$f $k 777,1000,2048 --config sm90_pp2_128x128x64_s6"
            echo "$f $k 777,1000,2056 --config sm90_pp2_128x128x64_s6 --special"
            echo "$f $k 300,500,3000 --config sm90_pp2_128x128x64_s6 --batch 3"
            echo "$f $k 4097,1000,520 --config sm90_pp2_cl2_128x128x64_s6"
            echo "$f $k 127,1000,4104 --config sm90_pp2_cl2_128x128x64_s6 --special"
            echo "$f $k 1000,127,24 --config sm90_pp2_cl2_128x128x64_s6 --ld-pad 3"
            # the 64-row ping-pong tiles (one m64 wgmma row a consumer, its
            # epilogue through a sub-tile of its own): several tiles a CTA
            # (4097 x 1000: 65 tile rows), one a CTA, a batch, a stack past M
            # in clusters (1000: 16 tile rows, 127: 2), the guarded path (K
            # = 13, a padded ld)
            for cfg in sm90_pp2_64x128x64_s8 sm90_pp2_cl2_64x128x64_s8; do
                echo "$f $k 4097,1000,520 --config $cfg"
                echo "$f $k 127,1000,4104 --config $cfg --special"
                echo "$f $k 1000,127,24 --config $cfg --ld-pad 3"
                echo "$f $k 300,500,3000 --config $cfg --batch 3"
                echo "$f $k 1000,1000,13 --config $cfg --special"
            done
            echo "$f $k 1000,1000,24 --config sm90_coop2_cl2_128x256x64_s3"
            echo "$f $k 4097,1000,520 --config sm90_coop2_cl2_128x256x64_s3"
            echo "$f $k 127,1000,4104 --config sm90_coop2_cl2_128x256x64_s3 --special"
            echo "$f $k 1000,127,24 --config sm90_coop2_cl2_128x256x64_s3 --ld-pad 3"
            # four stages: the epilogue 32 columns at a time
            echo "$f $k 1000,1000,24 --config sm90_coop2_128x256x64_s4"
            echo "$f $k 127,1000,4104 --config sm90_coop2_128x256x64_s4 --special"
            echo "$f $k 1000,127,520 --config sm90_coop2_128x256x64_s4 --ld-pad 3"
            echo "$f $k 4097,1000,520 --config sm90_coop2_cl2_128x256x64_s4"
            echo "$f $k 127,1000,4104 --config sm90_coop2_cl2_128x256x64_s4 --special"
            # the 192- and 160-wide tiles (the 160-wide one K-contiguous
            # operands only): one m64n192 or m64n160 wgmma a consumer, the
            # epilogue 64 or 32 columns at a time; N not a multiple of the
            # tile (1000: 5.2 and 6.25 tiles), of 8 (127), a batch,
            # stream-K (80 tiles of 41 k tiles over 132 CTAs)
            echo "$f $k 1000,1000,24 --config sm90_coop2_128x192x64_s4"
            for cfg in sm90_coop2_128x192x64_s4 sm90_coop2_128x160x64_s4; do
                echo "$f $k 127,1000,4104 --config $cfg --special"
                echo "$f $k 1000,127,520 --config $cfg --ld-pad 3"
                echo "$f $k 3000,2100,1000 --config $cfg --batch 2"
                echo "$f $k 1000,2500,2600 --config $cfg --streamk"
            done
            # the 160-wide one at N of 136 (one tile, a sixth of it
            # padding), and 320 over 33 tile rows (several tiles a CTA)
            echo "$f $k 1000,136,24 --config sm90_coop2_128x160x64_s4"
            echo "$f $k 4097,320,1000 --config sm90_coop2_128x160x64_s4 --special"
            # several tiles a persistent CTA (the other cooperative runs have
            # at most one): the stage ring and the epilogue's sub-tile carried
            # from tile to tile, a one-k-tile mainloop at K = 24, a batch
            echo "$f $k 3000,2100,1000 --config sm90_coop2_128x256x64_s3 --special"
            echo "$f $k 4097,2100,24 --config sm90_coop2_cl2_128x256x64_s3"
            echo "$f $k 2000,3000,520 --config sm90_coop2_128x256x64_s4 --batch 2"
            # stream-K (plan.h), forced: every tile in pieces over the 132
            # CTAs (80 tiles of 9 k tiles; 32 of 65 cut four ways; the guarded
            # path's 12 tiles of 4, one k tile a CTA), the first wave whole
            # and the rest shared (308 tiles; a batch of 2 x 192)
            echo "$f $k 1000,2560,520 --config sm90_coop2_128x256x64_s3 --streamk"
            echo "$f $k 3500,2600,1000 --config sm90_coop2_128x256x64_s3 --streamk --special"
            echo "$f $k 1000,1000,4104 --config sm90_coop2_256x128x64_s3 --streamk"
            echo "$f $k 2000,3000,520 --config sm90_coop2_128x256x64_s4 --streamk --batch 2"
            echo "$f $k 300,1000,200 --config sm90_coop2_128x256x64_s3 --streamk --ld-pad 3"
            # ... in clusters of two: stacks of two tiles in pieces over the
            # resident clusters (40 stacks; 1000 rows: the last stack's second
            # tile partly past M; 3100: a stack whose second tile lies wholly
            # past M), a batch, the guarded path
            echo "$f $k 1000,2560,520 --config sm90_coop2_cl2_128x256x64_s3 --streamk"
            echo "$f $k 3100,2600,1000 --config sm90_coop2_cl2_128x256x64_s3 --streamk --special"
            echo "$f $k 2000,3000,520 --config sm90_coop2_cl2_128x256x64_s4 --streamk --batch 2"
            echo "$f $k 300,1000,200 --config sm90_coop2_cl2_128x256x64_s3 --streamk --ld-pad 3"
            # a persistent plan's tail (plan.h), forced: 288 tiles, the last 24
            # split two ways
            echo "$f $k 2000,2300,1000 --config sm90_pp2_128x128x64_s4 --splitk --special"
        done
    done
    # Every builtin, both operand types, -O0 beside -O2.
    echo "$c/builtins.evt builtins_f16 1000,127,24"
    echo "$c/builtins.evt builtins_f16 127,1000,4104"
    echo "$c/builtins.evt builtins_f16 7,7,8"
    echo "$c/builtins.evt builtins_f16 4097,7,24 --special"
    echo "$c/builtins.evt builtins_f16 1000,127,24 -O0"
    echo "$c/builtins.evt builtins_f16 127,127,13 --special -O0"
    echo "$c/builtins.evt builtins_bf16 1000,1000,24"
    echo "$c/builtins.evt builtins_bf16 1,4097,13"
    echo "$c/builtins.evt builtins_bf16 127,127,4104 --special"
    # Fast math (exp, sigmoid, silu, gelu, gelu_tanh approximate): f32 outputs
    # within the f32 tolerance of the f64 reference, specials as the exact ones.
    echo "$c/builtins.evt builtins_f16 1000,127,24 --fast-math"
    echo "$c/builtins.evt builtins_f16 4097,7,24 --special --fast-math"
    echo "$c/builtins.evt builtins_f16 1000,1000,24 --fast-math --param s=2"
    echo "$c/builtins.evt builtins_bf16 127,127,4104 --special --fast-math"
    echo "$c/builtins.evt builtins_f16 1000,1000,4104 --fast-math --config sm90_coop2_128x256x64_s3"
    echo "$c/builtins.evt builtins_f16 3000,1000,520 --fast-math --config sm90_pp2_128x128x64_s6 --special"
    # Arithmetic, negation, comparisons and ?:.
    echo "$c/operators.evt operators 1000,127,24"
    echo "$c/operators.evt operators 4097,7,13 --special"
    echo "$c/operators.evt operators 127,1000,4104"
    echo "$c/operators.evt operators 1000,127,24 -O1"
    # Inputs of every shape and element type; params with and without defaults.
    echo "$c/inputs.evt inputs 1000,1000,24"
    echo "$c/inputs.evt inputs 7,4097,8 --special"
    echo "$c/inputs.evt inputs 127,127,13 --ld-pad 3"
    echo "$c/inputs.evt inputs 4097,127,24 --param p=0.75 --param q=2"
    echo "$c/inputs.evt inputs 1,1,4104"
    echo "$c/inputs.evt inputs_conv conv:2,11,11,16,40,3,3,1,1,1"
    echo "$c/inputs.evt inputs_conv conv:3,9,7,5,24,3,1,0,2,1 --special"
    # Every output element type, saturation included.
    echo "$c/outputs.evt outputs 1000,1000,24"
    echo "$c/outputs.evt outputs 127,4097,4104"
    echo "$c/outputs.evt outputs 1000,127,13 --special"
    echo "$c/outputs.evt outputs 7,1000,8 --ld-pad 8"
    # Every reduction kind over every axis; tall, wide, tiny.
    echo "$c/reductions.evt reductions 1000,1000,24"
    echo "$c/reductions.evt reductions 4097,127,24"
    echo "$c/reductions.evt reductions 1,4097,8"
    echo "$c/reductions.evt reductions 4097,1,8"
    echo "$c/reductions.evt reductions 7,7,13"
    echo "$c/reductions.evt reductions 1000,127,24 --special"
    echo "$c/reductions.evt reductions 127,1000,4104"
    echo "$c/reductions.evt reductions_bf16_cc 1000,1000,24"
    echo "$c/reductions.evt reductions_bf16_cc 127,4097,13"
    echo "$c/reductions.evt reductions_bf16_cc 1000,7,4104 --special"
    echo "$c/reductions.evt reductions_conv conv:4,15,15,32,72,3,3,1,1,1"
    echo "$c/reductions.evt reductions_conv conv:2,8,8,8,8,1,1 --special"
    # Split-K: forced, with reductions and the guarded path, and chosen by the
    # plan (36 and 8 tiles of 64x64, split four ways).
    echo "$c/reductions.evt reductions 1000,127,4104 --splitk"
    echo "$c/reductions.evt reductions_conv conv:4,15,15,32,72,3,3,1,1,1 --splitk"
    echo "$c/layouts.evt rr_f16 1000,127,4099 --splitk"
    echo "$c/layouts.evt cc_bf16 127,1000,4104 --splitk --ld-pad 8"
    echo "$c/layouts.evt rc_f16 250,513,4104"
    echo "$c/reductions.evt reductions 127,250,4104 --special"
    # Split-K N ways (--splitkN): on sm_90a each tile's N shares run as one
    # cluster and sum through shared memory (kernels/sm90/cluster_split.cuh),
    # the epilogue in row slices over the cluster's CTAs; every count from 3
    # to 8, reductions, a batch, the guarded path, a persistent plan's tail,
    # on grids small enough that the runtime takes clusters (api/launch.c,
    # cluster_split; the larger --splitk grids above keep _splitsum)
    echo "$c/reductions.evt reductions 127,127,4104 --splitk8"
    echo "$c/reductions.evt reductions 127,1000,4104 --config sm90_wg1_64x128x64_s4 --splitk5 --special"
    echo "$c/reductions.evt reductions 77,1000,1000 --config sm90_wg1_64x64x64_s8 --splitk3 --special"
    echo "$c/layouts.evt rr_f16 1000,127,4099 --splitk3"
    echo "$c/reductions.evt reductions_conv conv:4,15,15,32,72,3,3,1,1,1 --splitk4"
    echo "$c/reductions.evt reductions 2000,2300,1000 --config sm90_pp2_128x128x64_s4 --splitk8"
    echo "$c/reductions.evt reductions 300,1000,4104 --config sm90_wg2_128x256x64_s4 --splitk4 --batch 3"
    echo "$c/outputs.evt outputs 127,1000,4104 --splitk6"
    echo "$c/inputs.evt inputs 127,1000,4104 --config sm80_64x64x32_w4_s4 --splitk7 --ld-pad 3"
    echo "$c/reductions.evt reductions_bf16_cc 77,3000,1000 --config sm90_wg2_128x128x64_s3 --splitk3 --batch 2"
    # stream-K with every reduction kind: tiles in two to five pieces, the
    # reductions run once a tile by the CTA that finishes it
    echo "$c/reductions.evt reductions 1000,1000,4104 --config sm90_coop2_128x256x64_s3 --streamk"
    echo "$c/reductions.evt reductions 3000,2100,520 --config sm90_coop2_256x128x64_s3 --streamk --special"
    echo "$c/reductions.evt reductions_bf16_cc 1000,2000,1000 --config sm90_coop2_128x256x64_s3 --streamk"
    echo "$c/outputs.evt outputs 1000,2000,1000 --config sm90_coop2_128x256x64_s3 --streamk"
    echo "$c/inputs.evt inputs 1000,2000,1000 --config sm90_coop2_128x256x64_s3 --streamk --ld-pad 3"
    echo "$c/reductions.evt reductions 1000,1000,4104 --config sm90_coop2_cl2_128x256x64_s3 --streamk"
    echo "$c/reductions.evt reductions 3100,2000,1000 --config sm90_coop2_cl2_128x256x64_s3 --streamk --special"
    # the planner's own tail: the cooperative tile's last wave of 12 tiles
    # split four ways in clusters (plan_coop_tail)
    echo "$c/reductions.evt reductions 2000,2300,2100"
    echo "$c/layouts.evt cc_bf16 2000,2300,2100 --special"
    # The staged producer/consumer tile on GEMMs (the epilogue's [M, N] input
    # copied by the producer, TMA on the fast path): the heuristic's pick at
    # K <= 128 (40000 x 512 x 128), forced in every layout (the transposed
    # wgmma), a batch (rank-3 maps), the guarded path (K = 13, --ld-pad 3)
    echo "$c/layouts.evt rc_f16 40000,512,128"
    echo "$c/layouts.evt rc_f16 20000,512,128 --config sm90_pp2_128x128x64_s2_staged --special"
    echo "$c/layouts.evt rr_bf16 3000,1000,64 --config sm90_pp2_128x128x64_s2_staged"
    echo "$c/layouts.evt cc_f16 1000,4097,520 --config sm90_pp2_128x128x64_s2_staged"
    echo "$c/layouts.evt cr_f16 1000,127,13 --config sm90_pp2_128x128x64_s2_staged --special"
    echo "$c/inputs.evt inputs 4097,1000,128 --config sm90_pp2_128x128x64_s2_staged --ld-pad 3"
    echo "$c/inputs.evt inputs 2000,1000,520 --config sm90_pp2_128x128x64_s2_staged --batch 3"
    # ... the unstaged 128x64 ping-pong tile on GEMMs: its pick (N <= 64,
    # nothing to stage, K-contiguous, a tile an SM; reductions, an
    # auxiliary output, K of one k tile), a column-major A it leaves to the
    # 128x128 tile, then forced in every layout, the guarded path, a batch,
    # several [M, N] inputs
    echo "$c/bias_fold.evt relu_bf16 30011,64,1000 --special"
    echo "$c/reductions.evt reductions 20000,40,520"
    echo "$c/reductions.evt reductions_bf16_cc 17000,24,2000"
    echo "$c/operators.evt operators 19000,8,64"
    echo "$c/bias_fold.evt aux_f16 40000,64,96 --special"
    # (with its last wave split along K: 16 tiles four ways, 31 three)
    echo "$c/bias_fold.evt relu_bf16 18830,24,7552 --special"
    echo "$c/reductions.evt reductions 20791,40,4096"
    # ... the cooperative 128x192 tile's pick for exactly 192 filters over
    # taps that end in zero-filled k tiles (c = 160 and 224; sessions 73-74)
    echo "$c/reductions.evt reductions_conv conv:80,17,13,160,192,3,3,1,1,1"
    echo "$c/bias_fold.evt relu_conv conv:64,19,17,224,192,3,3,1,1,1 --special"
    echo "$c/inputs.evt inputs_conv conv:56,23,19,160,192,3,3,1,1,1 --special"
    echo "$c/layouts.evt rr_f16 3000,40,520 --config sm90_pp2_128x64x64_s7"
    echo "$c/layouts.evt cr_bf16 2000,100,520 --config sm90_pp2_128x64x64_s7 --batch 3"
    echo "$c/layouts.evt cc_bf16 127,1000,24 --config sm90_pp2_128x64x64_s7 --ld-pad 3"
    echo "$c/layouts.evt rc_bf16 4097,64,1000 --config sm90_pp2_128x64x64_s7 --special"
    echo "$c/inputs.evt inputs 1000,61,777 --config sm90_pp2_128x64x64_s7 --special"
    # ... and the staged 128x64 tile: its pick (N <= 64 at K <= 512, a tile
    # an SM), forced in the other layouts, ragged N, a batch, the guarded path
    echo "$c/layouts.evt rc_f16 40000,56,320"
    echo "$c/layouts.evt rc_bf16 20000,127,192 --config sm90_pp2_128x64x64_s6_staged --special"
    echo "$c/layouts.evt rr_f16 3000,40,520 --config sm90_pp2_128x64x64_s6_staged"
    echo "$c/layouts.evt cc_bf16 1000,4097,64 --config sm90_pp2_128x64x64_s6_staged"
    echo "$c/layouts.evt cr_f16 1000,7,13 --config sm90_pp2_128x64x64_s6_staged --special"
    echo "$c/inputs.evt inputs 4097,64,128 --config sm90_pp2_128x64x64_s6_staged --ld-pad 3"
    echo "$c/inputs.evt inputs 2000,48,520 --config sm90_pp2_128x64x64_s6_staged --batch 3"
    # A persistent plan's tail, forced (--splitk: its last wave's tiles split two
    # ways by the split-K entries of a configuration of the same tile, summed by
    # its _splitsum entry, plan.h): after a persistent launch of whole waves
    # (288 tiles: 264 and 24; 4097 x 1000: 264, the last 132 split; a batch of
    # 3 x 288: 792 and 72), or the whole problem where it is no more than a wave
    # (64 tiles), TMA and guarded (--ld-pad 3), every layout, with reductions,
    # and every persistent conv family (171, 57, 392 tiles).
    echo "$c/reductions.evt reductions 2000,2300,1000 --config sm90_pp2_128x128x64_s4 --splitk"
    echo "$c/reductions.evt reductions 4097,1000,520 --config sm90_pp2_128x128x64_s4 --splitk --special"
    echo "$c/reductions.evt reductions 1000,1000,4104 --config sm90_pp2_128x128x64_s4 --splitk"
    echo "$c/reductions.evt reductions 2000,2300,1000 --config sm90_pp2_128x128x64_s4 --splitk --ld-pad 3"
    echo "$c/reductions.evt reductions 2000,2300,1000 --config sm90_pp2_128x128x64_s4 --splitk --batch 3"
    echo "$c/reductions.evt reductions_bf16_cc 2000,2300,1000 --config sm90_pp2_128x128x64_s4 --splitk"
    echo "$c/layouts.evt rr_f16 2000,2300,1000 --config sm90_pp2_128x128x64_s4 --splitk"
    echo "$c/layouts.evt cr_bf16 2000,2300,1000 --config sm90_pp2_128x128x64_s4 --splitk --special"
    echo "$c/inputs.evt inputs 2000,2300,1000 --config sm90_pp2_128x128x64_s4 --splitk"
    echo "$c/reductions.evt reductions_conv conv:8,30,30,64,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s4 --splitk"
    echo "$c/reductions.evt reductions_conv conv:8,30,30,40,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s4 --splitk --special"
    echo "$c/reductions.evt reductions_conv conv:8,30,30,64,64,3,3,1,1,1 --config sm90_pp2_128x64x64_s7 --splitk"
    echo "$c/inputs.evt inputs_conv conv:8,30,30,64,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s2_staged --splitk"
    # ... and the 128x64 tiles' (their tails on wg2_128x64x64_s8's split-K
    # entries): GEMMs on the unstaged one (314 tiles: 264 and 50; 32, all
    # split), the staged one's GEMM and conv
    echo "$c/reductions.evt reductions 20000,100,520 --config sm90_pp2_128x64x64_s7 --splitk"
    echo "$c/reductions.evt reductions 2000,100,1000 --config sm90_pp2_128x64x64_s7 --splitk --special"
    echo "$c/inputs.evt inputs 20000,100,520 --config sm90_pp2_128x64x64_s6_staged --splitk"
    echo "$c/inputs.evt inputs_conv conv:8,30,30,64,40,3,3,1,1,1 --config sm90_pp2_128x64x64_s6_staged --splitk"
    echo "$c/reductions.evt reductions_conv conv:32,28,28,32,136,1,1 --config sm80_ws4_128x128x64_w4_s3 --splitk"
    echo "$c/reductions.evt reductions_conv conv:32,28,28,32,136,1,1 --config sm90_wg2_ws4_128x128x64_s4 --splitk"
    # Reductions under the warp-specialized configurations (the epilogue
    # warps' own barrier) and the sm_90a wgmma ones.
    echo "$c/reductions.evt reductions_conv conv:32,28,28,32,136,1,1 --config sm80_ws4_128x128x64_w4_s3"
    echo "$c/reductions.evt reductions_conv conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg2_ws4_128x128x64_s4"
    echo "$c/reductions.evt reductions_conv conv:32,28,28,32,136,1,1 --config sm90_wg2_ws8_128x128x64_s4 --special"
    echo "$c/reductions.evt reductions_conv conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg2_128x128x32_s6"
    echo "$c/reductions.evt reductions_conv conv:8,30,30,40,264,3,3,1,1,1 --config sm90_wg2_128x256x64_s4 --special"
    echo "$c/reductions.evt reductions_conv conv:16,17,13,13,520,3,3,1,1,1 --config sm90_wg3_192x256x64_s4"
    echo "$c/reductions.evt reductions_conv conv:32,28,28,32,136,1,1 --config sm90_pp2_128x128x64_s4"
    echo "$c/reductions.evt reductions_conv conv:8,30,30,40,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s4 --special"
    echo "$c/reductions.evt reductions_conv conv:8,30,30,64,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s4"
    echo "$c/inputs.evt inputs_conv conv:8,30,30,64,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s2_staged"
    echo "$c/inputs.evt inputs_conv conv:3,17,13,64,40,1,1 --config sm90_pp2_128x128x64_s2_staged --special"
    echo "$c/inputs.evt inputs_conv conv:3,17,13,40,40,3,3,1,2,1 --config sm90_pp2_128x128x64_s2_staged"
    echo "$c/reductions.evt reductions 2000,2000,520 --config sm90_wg2_128x256x64_s4"
    # fp8's cooperative tile with epilogue warpgroups (the sub-tiles handed
    # over, the epilogue's own named barriers): row, column and whole
    # reductions, an [M, N] input; clusters, stream-K, a batch, guarded (ld + 8)
    echo "$c/fp8.evt fp8_mixed 1100,1000,2576 --config sm90_ws8_coop2_128x128x128_s4_fp8"
    echo "$c/fp8.evt fp8_mixed 1100,1000,2576 --config sm90_ws8_coop2_cl2_128x128x128_s4_fp8"
    echo "$c/fp8.evt fp8_mixed 777,1000,1040 --config sm90_ws8_coop2_cl2_128x128x128_s4_fp8 --streamk"
    echo "$c/fp8.evt fp8_mixed 300,260,528 --config sm90_ws8_coop2_128x128x128_s4_fp8 --batch 3"
    echo "$c/fp8.evt fp8_mixed 300,260,528 --config sm90_ws8_coop2_128x128x128_s4_fp8 --ld-pad 8"
    # fp8's cooperative tile without them: its k loop, unrolled twice, over
    # an odd and an even number of k tiles, one k tile, and stream-K's
    # pieces (whose first k tile is at any stage of the ring)
    echo "$c/fp8.evt fp8_mixed 1100,1000,1024 --config sm90_coop2_128x128x128_s4_fp8"
    echo "$c/fp8.evt fp8_mixed 1100,1000,2576 --config sm90_coop2_cl2_128x128x128_s4_fp8"
    echo "$c/fp8.evt fp8_mixed 1000,777,128 --config sm90_coop2_128x128x128_s4_fp8"
    echo "$c/fp8.evt fp8_mixed 777,1000,1040 --config sm90_coop2_cl2_128x128x128_s4_fp8 --streamk"
    echo "$c/fp8.evt fp8_mixed 300,260,528 --config sm90_coop2_128x128x128_s4_fp8 --ld-pad 8"
    echo "$c/reductions.evt reductions 1000,4097,13 --config sm90_wg2_128x128x64_s3"
    # A row-major and B column-major rows that are not 16-byte aligned (K,
    # or ld through --ld-pad 3), large enough to be repacked ahead of the
    # fast path (api/launch.c's repack_begin): the heuristic's pick, every
    # epilogue case, a split-K plan, NaN and infinities
    echo "$c/layouts.evt rc_f16 1000,1000,1001"
    echo "$c/layouts.evt rc_bf16 3001,2999,1037"
    echo "$c/layouts.evt rc_f16 1000,1000,1024 --ld-pad 3"
    echo "$c/layouts.evt rc_f16 4500,4500,4500 --special"
    echo "$c/reductions.evt reductions 2000,1999,523"
    echo "$c/reductions.evt reductions 64,2000,4099"
    echo "$c/outputs.evt outputs 1000,1000,1001 --ld-pad 3"
    echo "$c/inputs.evt inputs 1000,1000,1001"
    # ... and M/N-contiguous ones: padded rows, K as it is
    echo "$c/layouts.evt rr_f16 1000,3001,1024"
    echo "$c/layouts.evt cr_bf16 1001,1000,1024 --ld-pad 3"
    echo "$c/layouts.evt cc_f16 1000,1000,1001"
    echo "$c/layouts.evt rr_bf16 1000,1000,1001 --special"
    echo "$c/reductions.evt reductions_bf16_cc 2001,999,1024"
    # ... and batches: every problem's rows copied as one operand (evtc run
    # --batch lays the problems one after the other), reductions per problem
    echo "$c/layouts.evt rc_f16 200,300,1001 --batch 8"
    echo "$c/layouts.evt rr_bf16 300,1001,512 --batch 4 --special"
    echo "$c/reductions.evt reductions 200,301,1001 --batch 6 --ld-pad 3"
    # wgmma and the TMA producer/consumer tile on A row-major and B
    # column-major (the other layouts, the transposed wgmma: below), on the
    # fast path and the guarded one (K = 13).
    echo "$c/layouts.evt rc_bf16 1000,1000,4104 --config sm90_wg2_128x256x64_s4"
    echo "$c/layouts.evt rc_f16 1000,127,13 --config sm90_wg2_128x128x64_s3"
    echo "$c/layouts.evt rc_f16 1000,1000,4104 --config sm90_pp2_128x128x64_s4"
    echo "$c/layouts.evt rc_bf16 127,1000,13 --config sm90_pp2_128x128x64_s4"
    echo "$c/layouts.evt rc_f16 4097,1000,24 --config sm90_pp2_128x128x64_s4 --special"
    echo "$c/layouts.evt rc_bf16 3000,2000,520 --config sm90_pp2_128x128x64_s4"
    echo "$c/reductions.evt reductions 2000,2000,520 --config sm90_pp2_128x128x64_s4"
    # The register-direct epilogue of the producer/consumer tiles (their
    # consumers' own accumulators, two columns a thread, emit_direct), which
    # runs per-element epilogues: every input shape but [M, N] and every
    # element type, every output type (staged through shared memory as
    # 16-byte rows, or a pair at a time where the warp's buffer is full, or
    # odd leading dimensions, --ld-pad 3, take the edge tiles' instance),
    # the 256-wide cooperative tile's two segments a row, a batch, fast
    # math's unrolled segments; the shared-memory epilogue it replaces
    # (--shared-epi: a suite option, EVT_SHARED_EPILOGUE=1), and [M, N]
    # inputs, which keep it.  A GEMM launch takes the direct epilogue by
    # itself where it unrolls and N is whole tiles (session 29: edge rows
    # too, bounded in the staged instance), so the rows with edge columns
    # force it (--direct-epi, EVT_SHARED_EPILOGUE=-1: the checked instance
    # and looped builtins), and whole-tile and edge-row rows take it as a
    # launch does
    for cfg in sm90_pp2_128x128x64_s4 sm90_coop2_128x256x64_s4 sm90_coop2_256x128x64_s3 sm90_pp2_cl2_128x128x64_s4 \
        sm90_coop2_128x192x64_s4 sm90_coop2_128x160x64_s4 sm90_pp2_64x128x64_s8 sm90_pp2_cl2_64x128x64_s8; do
        echo "$c/inputs.evt inputs_rowcol 1000,1000,520 --config $cfg --direct-epi"
        echo "$c/inputs.evt inputs_rowcol 4097,1000,24 --config $cfg --ld-pad 3 --direct-epi"
        echo "$c/inputs.evt inputs_rowcol 3000,2000,520 --config $cfg --batch 2 --special --direct-epi"
        echo "$c/inputs.evt inputs_rowcol 1024,1024,520 --config $cfg"
        echo "$c/inputs.evt inputs_rowcol 2048,1536,24 --config $cfg --batch 2 --special"
        echo "$c/inputs.evt inputs 2000,1000,520 --config $cfg --direct-epi"
        echo "$c/outputs.evt outputs 1000,4097,520 --config $cfg --direct-epi"
        echo "$c/outputs.evt outputs 2000,1000,24 --config $cfg --ld-pad 3 --special --direct-epi"
        echo "$c/outputs.evt outputs 1024,2048,520 --config $cfg"
        echo "$c/inputs.evt inputs_rowcol 1000,1024,520 --config $cfg"
        echo "$c/outputs.evt outputs 4097,2048,24 --config $cfg --special"
        echo "$c/builtins.evt builtins_f16 1000,1024,520 --config $cfg --fast-math"
        echo "$c/builtins.evt builtins_f16 3000,2000,520 --config $cfg --fast-math --direct-epi"
        echo "$c/builtins.evt builtins_f16 2048,1024,520 --config $cfg --fast-math"
        # (a clustered tile multicasts K-contiguous operands only, as the
        # 160-wide one loads them: bf16's are not)
        case $cfg in *_cl2_* | *x160x*) k=builtins_f16 ;; *) k=builtins_bf16 ;; esac
        echo "$c/builtins.evt $k 1000,4097,520 --config $cfg --special --direct-epi"
        echo "$c/builtins.evt $k 1024,1024,520 --config $cfg --special"
        echo "$c/inputs.evt inputs_rowcol 1000,1000,520 --config $cfg --shared-epi"
        echo "$c/builtins.evt builtins_f16 1000,127,24 --config $cfg --shared-epi --special"
        # ragged N that the direct epilogue takes by itself (session 48): a
        # multiple of its outputs' 16-byte pieces over one tile, whose last
        # tile column runs shifted left to N - BN and stores only the
        # columns the tile before does not (not in clusters of the
        # cooperative tiles, nor where N is less than a tile: the shared
        # tile there); e4m3 and i8 outputs need N % 16
        echo "$c/inputs.evt inputs_rowcol 1000,1000,520 --config $cfg"
        echo "$c/inputs.evt inputs_rowcol 3001,1000,520 --config $cfg --batch 3 --special"
        echo "$c/inputs.evt inputs_rowcol 1000,136,1000 --config $cfg"
        echo "$c/outputs.evt outputs 1000,1008,520 --config $cfg --special"
        echo "$c/outputs.evt outputs 1000,1000,520 --config $cfg"
        echo "$c/builtins.evt builtins_f16 2000,1000,520 --config $cfg --fast-math"
        case $cfg in
        sm90_coop2_*) echo "$c/inputs.evt inputs_rowcol 3000,1000,2600 --config $cfg --streamk --special" ;;
        esac
    done
    # the 160-wide tile's whole tiles (N = 1280), where a launch takes the
    # direct epilogue by itself, and its reductions
    echo "$c/inputs.evt inputs_rowcol 1024,1280,520 --config sm90_coop2_128x160x64_s4"
    echo "$c/outputs.evt outputs 2048,1280,1000 --config sm90_coop2_128x160x64_s4 --special"
    echo "$c/reductions.evt reductions 1000,1000,520 --config sm90_coop2_128x160x64_s4"
    echo "$c/reductions.evt reductions 3000,300,2600 --config sm90_coop2_128x160x64_s4 --streamk --special"
    # The direct epilogue's accumulators started from an [N] bias where
    # acc + bias is the accumulator's one use (codegen's acc_fold): every
    # producer/consumer tile, whole and ragged N (the shifted last tile
    # column), odd leading dimensions and an unaligned bias (the checked
    # instance: --ld-pad 3), a batch (a bias per problem), stream-K on the
    # cooperative tiles (the bias in the first k piece only), the guarded
    # path (K = 13: no TMA, so the shared tile adds the bias), and an
    # epilogue whose accumulator has two uses (not folded)
    for cfg in sm90_pp2_128x128x64_s4 sm90_pp2_128x128x64_s6 sm90_pp2_64x128x64_s8 sm90_pp2_cl2_128x128x64_s4 \
        sm90_coop2_128x256x64_s4 sm90_coop2_128x256x64_s3 sm90_coop2_256x128x64_s3 sm90_coop2_128x192x64_s4 \
        sm90_coop2_128x160x64_s4 sm90_coop2_cl2_128x256x64_s4; do
        echo "$c/bias_fold.evt relu_bf16 1000,1000,520 --config $cfg"
        echo "$c/bias_fold.evt relu_bf16 1000,1000,24 --config $cfg --direct-epi --batch 3 --special"
        echo "$c/bias_fold.evt relu_bf16 1024,2048,64 --config $cfg --batch 2"
        echo "$c/bias_fold.evt aux_f16 3001,1000,520 --config $cfg --fast-math"
        echo "$c/bias_fold.evt aux_f16 4097,136,1000 --config $cfg --ld-pad 3 --direct-epi --special"
        echo "$c/bias_fold.evt twice_f16 1000,4097,520 --config $cfg --direct-epi"
        echo "$c/bias_fold.evt acc_twice_bf16 1000,1000,520 --config $cfg"
        case $cfg in
        sm90_coop2_*) echo "$c/bias_fold.evt relu_bf16 3000,1000,2600 --config $cfg --streamk --special" ;;
        *) echo "$c/bias_fold.evt relu_bf16 127,1000,13 --config $cfg --special" ;;
        esac
    done
    echo "$c/bias_fold.evt relu_conv conv:8,30,30,64,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s4 --direct-epi"
    echo "$c/bias_fold.evt relu_conv conv:3,17,13,64,40,3,3,1,2,1 --config sm90_pp2_128x64x64_s7 --special --direct-epi"
    echo "$c/bias_fold.evt relu_conv conv:4,28,28,128,256,3,3,1,1,1"
    # ... the heuristic's pick on edge rows, as a launch takes it
    echo "$c/inputs.evt inputs_rowcol 1000,4096,520"
    echo "$c/outputs.evt outputs 3000,2048,1040"
    # ... on the conv's producer/consumer tiles, and the six-stage tile's
    echo "$c/inputs.evt inputs_rowcol_conv conv:8,30,30,64,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s4 --direct-epi"
    echo "$c/inputs.evt inputs_rowcol_conv conv:8,32,32,64,256,3,3,1,1,1 --config sm90_pp2_128x128x64_s4"
    echo "$c/inputs.evt inputs_rowcol_conv conv:3,17,13,64,40,3,3,1,2,1 --config sm90_pp2_128x64x64_s7 --special --direct-epi"
    echo "$c/inputs.evt inputs_conv conv:8,30,30,64,264,3,3,1,1,1 --config sm90_pp2_128x128x64_s4"
    echo "$c/outputs.evt outputs 1000,1000,520 --config sm90_pp2_128x128x64_s6 --ld-pad 3"
    # Both operand types in all four layouts.
    for t in f16 bf16; do
        for l in rr rc cr cc; do
            echo "$c/layouts.evt ${l}_$t 1000,127,24"
            echo "$c/layouts.evt ${l}_$t 127,1000,13"
        done
        echo "$c/layouts.evt rc_$t 4097,1000,8 --special"
        echo "$c/layouts.evt cr_$t 1000,4097,24 --ld-pad 8"
        echo "$c/layouts.evt cc_$t 7,4097,4104 --special"
        # the transposed wgmma (a column-major A, a row-major B) under every
        # sm90 GEMM family, fast (TMA for pp2/coop2) and guarded (127: an
        # M/N-contiguous extent not a multiple of 8)
        for l in rr cr cc; do
            echo "$c/layouts.evt ${l}_$t 1000,1000,4104 --config sm90_pp2_128x128x64_s4"
            echo "$c/layouts.evt ${l}_$t 127,1000,13 --config sm90_pp2_128x128x64_s4"
            echo "$c/layouts.evt ${l}_$t 3000,2000,520 --config sm90_pp2_128x128x64_s4 --ld-pad 8"
            echo "$c/layouts.evt ${l}_$t 1000,1000,4104 --config sm90_pp2_64x128x64_s8"
            echo "$c/layouts.evt ${l}_$t 127,1000,520 --config sm90_pp2_64x128x64_s8 --ld-pad 8"
            echo "$c/layouts.evt ${l}_$t 1000,1000,520 --config sm90_coop2_256x128x64_s3"
            echo "$c/layouts.evt ${l}_$t 3000,2100,520 --config sm90_coop2_256x128x64_s3"
            echo "$c/layouts.evt ${l}_$t 3000,2100,13 --config sm90_coop2_128x256x64_s3 --ld-pad 3"
            echo "$c/layouts.evt ${l}_$t 1000,127,24 --config sm90_coop2_256x128x64_s3 --special"
            echo "$c/layouts.evt ${l}_$t 1000,1000,520 --config sm90_coop2_128x256x64_s3"
            echo "$c/layouts.evt ${l}_$t 1000,127,24 --config sm90_coop2_128x256x64_s3 --special"
            echo "$c/layouts.evt ${l}_$t 1000,1000,520 --config sm90_coop2_128x256x64_s4"
            echo "$c/layouts.evt ${l}_$t 1000,1000,520 --config sm90_coop2_128x192x64_s4"
            echo "$c/layouts.evt ${l}_$t 1000,127,24 --config sm90_coop2_128x192x64_s4 --special"
            echo "$c/layouts.evt ${l}_$t 3000,2100,1000 --config sm90_coop2_128x192x64_s4 --ld-pad 3"
            echo "$c/layouts.evt ${l}_$t 1000,2100,1000 --config sm90_coop2_128x256x64_s3 --streamk"
            echo "$c/layouts.evt ${l}_$t 2000,2000,520 --config sm90_wg2_128x256x64_s4"
            echo "$c/layouts.evt ${l}_$t 1000,127,13 --config sm90_wg2_128x128x64_s3 --special"
            echo "$c/layouts.evt ${l}_$t 77,1000,520 --config sm90_wg1_64x128x64_s4"
            echo "$c/layouts.evt ${l}_$t 127,1000,13 --config sm90_wg1_64x128x64_s4 --special"
            echo "$c/layouts.evt ${l}_$t 77,1000,520 --config sm90_wg1_64x64x64_s8"
            echo "$c/layouts.evt ${l}_$t 127,1000,13 --config sm90_wg1_64x64x64_s8 --special"
        done
    done
}

# A machine without a GPU: skip, do not fail (--list runs nothing).
probe=
probe_rc=0
if [ $list -eq 0 ]; then
    probe=$("$EVTC" run "$c/layouts.evt" --kernel rc_f16 --gemm 8,8,8 2>&1)
    probe_rc=$?
fi
if [ $probe_rc -eq 2 ] && printf '%s' "$probe" | grep -q 'no GPU'; then
    echo "run_gemm_suite: SKIP: no GPU ($(printf '%s' "$probe" | tail -n 1))"
    exit 77
fi
if [ $probe_rc -ne 0 ]; then
    echo "run_gemm_suite: evtc run cannot run a trivial kernel (status $probe_rc):"
    printf '%s\n' "$probe"
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/evt-gpu-suite.XXXXXX")
[ $keep -eq 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/groups" "$work/logs"
# --rerun: the runs LOG passed, as a set read once (a grep a run was most
# of a listing's time)
declare -A passed_before=()
if [ -n "$rerun" ]; then
    [ -r "$rerun" ] || { echo "run_gemm_suite: --rerun: cannot read '$rerun'" >&2; exit 2; }
    while IFS= read -r done_line; do
        passed_before[$done_line]=1
    done < <(sed -n 's/ *$//; s/^PASS *[0-9.]*s  //p' "$rerun")
fi

# A run's --config NAME (the suite's option), or nothing.
forced_config() {
    case " $1 " in
    *" --config "*) printf '%s' "$1" | sed 's/.*--config \([a-z0-9_]*\).*/\1/' ;;
    esac
}
export -f forced_config

# Group the runs by file, kernel and forced configuration: one group runs in
# order (its first run compiles, the rest mostly hit the kernel cache), groups
# in parallel.  (Grouped by kernel alone, one kernel forced under twenty
# configurations compiled twenty times in a row on one processor.)
i=0
runs | while read -r file kernel size opts; do
    line="$(basename "$file") $kernel $size $opts"
    case $line in *"$filter"*) ;; *) continue ;; esac
    [ -z "$regex" ] || [[ $line =~ $regex ]] || continue
    # (the status lines print no space after an empty OPTIONS)
    [ -z "${passed_before[${line% }]+x}" ] || continue
    i=$((i + 1))
    id=$(printf '%03d' $i)
    config=$(forced_config "$opts")
    group="$work/groups/$(basename "$file" .evt).$kernel.${config:-default}"
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$file" "$kernel" "$size" "$opts" >>"$group"
done

run_group() { # GROUP_FILE: runs its lines in order, one log and status each
    while IFS="$(printf '\t')" read -r id file kernel size opts; do
        start=$(date +%s.%N)
        given=$opts # the line's options as written, for its status line
        case $size in
        conv:*) problem="--conv ${size#conv:}" ;;
        *) problem="--gemm $size" ;;
        esac
        splitk=
        case " $opts " in
        *" --splitk "*) splitk=2 opts=$(printf '%s' "$opts" | sed 's/--splitk//') ;;
        *" --splitk"[2-8]" "*)
            splitk=$(printf '%s' "$opts" | sed 's/.*--splitk\([2-8]\).*/\1/')
            opts=$(printf '%s' "$opts" | sed 's/--splitk[2-8]//') ;;
        esac
        streamk=
        case " $opts " in
        *" --streamk "*) streamk=2 opts=$(printf '%s' "$opts" | sed 's/--streamk//') ;;
        esac
        shared=
        case " $opts " in
        *" --shared-epi "*) shared=1 opts=$(printf '%s' "$opts" | sed 's/--shared-epi//') ;;
        *" --direct-epi "*) shared=-1 opts=$(printf '%s' "$opts" | sed 's/--direct-epi//') ;;
        esac
        config=$(forced_config "$opts")
        opts=$(printf '%s' "$opts" | sed 's/--config [a-z0-9_]*//')
        # shellcheck disable=SC2086 # problem and opts are lists of options
        EVT_CONFIG=$config EVT_SPLITK=$splitk EVT_STREAMK=$streamk EVT_SHARED_EPILOGUE=$shared "$EVTC" run "$file" --kernel "$kernel" $problem --check $opts \
            >"$work/logs/$id.log" 2>&1
        rc=$?
        end=$(date +%s.%N)
        printf '%s %s %s %s %s %s %s\n' "$id" "$rc" "$(awk "BEGIN { printf \"%.1f\", $end - $start }")" \
            "$(basename "$file")" "$kernel" "$size" "$given" >"$work/logs/$id.status"
    done <"$1"
}
export -f run_group
export EVTC work

# This shard's groups, the longest first, so that no long group starts last.
ls "$work"/groups/* 2>/dev/null | awk -v i="$shard_i" -v n="$shard_n" '(NR - 1) % n == i - 1' >"$work/shard"
while read -r g; do printf '%s %s\n' "$(wc -l <"$g")" "$g"; done <"$work/shard" | sort -k1,1nr | cut -d' ' -f2- >"$work/order"

if [ $list -eq 1 ]; then
    # shellcheck disable=SC2046 # the group files' names have no spaces
    [ ! -s "$work/order" ] || cat $(cat "$work/order") | while IFS="$(printf '\t')" read -r id file kernel size opts; do
        printf '%s %s %s%s\n' "$(basename "$file")" "$kernel" "$size" "${opts:+ $opts}"
    done
    exit 0
fi

summarize() {
    passed=0
    failed=0
    for s in "$work"/logs/*.status; do
        [ -e "$s" ] || continue
        read -r id rc secs rest <"$s"
        if [ "$rc" -eq 0 ]; then
            passed=$((passed + 1))
            printf 'PASS %5ss  %s\n' "$secs" "$rest"
        else
            failed=$((failed + 1))
            printf 'FAIL %5ss  %s  (exit %s)\n' "$secs" "$rest" "$rc"
            sed 's/^/    /' "$work/logs/$id.log" | grep -v ': PASS$' | head -n 40
        fi
    done
}

begin=$(date +%s)
# killed: what finished, and how many of the shard's runs did not
trap 'summarize; echo "$passed passed, $failed failed, $(( $(xargs cat <"$work/order" | wc -l) - passed - failed )) not run: killed after $(( $(date +%s) - begin )) s (shard $shard)"; exit 124' TERM INT
xargs -P "$jobs" -I{} bash -c 'run_group "$1"' _ {} <"$work/order"
end=$(date +%s)
trap - TERM INT

summarize
echo "$passed passed, $failed failed ($((end - begin)) s, $jobs jobs, shard $shard)"
[ $passed -gt 0 ] && [ $failed -eq 0 ]
