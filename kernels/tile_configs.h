/*
 * tile_configs.h - every tile configuration of every mainloop, one row each.
 *
 * Plain C (C11, C++, nvcc, NVRTC).  The planner (plan/) derives its host-side
 * table from these rows, kernels/common/tile.cuh the device-side tile types
 * (evt_tile_<name>), and codegen the entry-point names
 * (evt_<kernel>_<mainloop>_<name>[_guarded][_splitk|_splitsum]_<target>).
 * A configuration is known everywhere by its name: evt_launch_plan, forcing
 * one (evt_tuning.config, evtc --config), the tests and the docs.
 *
 * Columns of X(name, mainloops, mma, bm, bn, bk, warps_m, warps_n, stages,
 *              min_blocks, ws, pp, staged, coop, cluster):
 *   name        family (sm80: mma.sync, any target; sm90: wgmma, sm_90a),
 *               schedule (wgN: N wgmma warpgroups, wsN: N epilogue warps
 *               beside the MMA warps, ppN: a producer warpgroup and N
 *               consumer warpgroups taking tiles in turn (ping-pong),
 *               coopN: a producer warpgroup and N consumer warpgroups
 *               sharing each tile), clN: thread-block clusters of N
 *               CTAs, the CTA tile BMxBNxBK, wN the mma.sync
 *               warps, sN the pipeline stages, _staged the residual staged
 *               by the producer.  tests/unit/test_plan.c checks that every
 *               name says what its row holds.
 *   mainloops   EVT_TILE_GEMM, EVT_TILE_CONV or both: where it was measured
 *   mma         EVT_TILE_MMA_SYNC (mma.sync m16n8k16, sm_80 and later) or
 *               EVT_TILE_WGMMA (warpgroup MMAs m64nNk16, sm_90a only) on
 *               16-bit operands (f16, bf16); EVT_TILE_MMA_SYNC_FP8
 *               (mma.sync m16n8k32, sm_89 and later) or EVT_TILE_WGMMA_FP8
 *               (m64nNk32, sm_90a) on fp8 operands (e4m3, e5m2), whose
 *               rows are named with a _fp8 suffix.  An fp8 configuration
 *               runs fp8 kernels only and the others 16-bit ones only.
 *   bm bn bk    the CTA tile, in elements: an fp8 row's bk = 128 is the
 *               same 128 bytes of a stage row (swizzle, TMA box) as a
 *               16-bit row's bk = 64.  A wgmma tile whose bm is not a
 *               multiple of 64 (16 to 112) runs with its operands swapped
 *               (EVT_TILE_SWAPPED: B's rows are wgmma's M, A's bm rows its
 *               N), K-contiguous 16-bit GEMMs only
 *   warps_m/_n  the MMA (pp: producer) warps' grid
 *   stages      pipeline depth
 *   min_blocks  CTAs per SM the kernel is built for (__launch_bounds__)
 *   ws          epilogue warps of a warp-specialized persistent schedule;
 *               beside a cooperative one's consumers (ws = 8), two
 *               epilogue warpgroups that run each tile's epilogue while
 *               the consumers go on with the next tile
 *   pp          consumer warpgroups of a producer/consumer persistent schedule
 *   staged      shared tiles (one per consumer) for the epilogue's first
 *               16-bit [M, N] input, filled by the producer
 *   coop        1: the pp consumers share each tile, bm / pp rows each
 *               (cooperative); 0: they take whole tiles in turn (ping-pong)
 *   cluster     CTAs of a thread-block cluster (1: none).  2 or 4: the
 *               CTAs of a cluster take tiles on top of each other (rows BM
 *               apart, the same columns) and load the B tile they share a
 *               share each, multicast to all (TMA, producer/consumer
 *               schedules, ping-pong or cooperative)
 *
 * Adding a configuration is one row here plus its tests (docs/codegen.md);
 * whether the heuristic considers it is plan/heuristic.c's business.
 * What was measured and dropped is in docs/sm80.md and docs/sm90.md.
 */
#ifndef EVT_TILE_CONFIGS_H
#define EVT_TILE_CONFIGS_H

#define EVT_TILE_GEMM 1
#define EVT_TILE_CONV 2
#define EVT_TILE_MMA_SYNC 0
#define EVT_TILE_WGMMA 1
#define EVT_TILE_MMA_SYNC_FP8 2
#define EVT_TILE_WGMMA_FP8 3
/* What an mma column says: warpgroup MMAs; the operands' bytes. */
#define EVT_TILE_IS_WGMMA(mma) (((mma) & 1) != 0)
#define EVT_TILE_OP_BYTES(mma) (((mma) & 2) ? 1 : 2)
/* A wgmma tile whose rows are not a multiple of 64: its operands swapped
 * (kernels/common/tile.cuh) */
#define EVT_TILE_SWAPPED(mma, bm) (EVT_TILE_IS_WGMMA(mma) && (bm) % 64 != 0)

/* name, mainloops, mma, bm, bn, bk, warps_m, warps_n, stages, min_blocks, ws, pp, staged, coop,
   cluster */
#define EVT_TILE_CONFIGS(X)                                                                        \
    X(sm80_128x256x32_w8_s4, EVT_TILE_GEMM, EVT_TILE_MMA_SYNC, 128, 256, 32, 2, 4, 4,              \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm80_128x128x32_w4_s4, EVT_TILE_GEMM, EVT_TILE_MMA_SYNC, 128, 128, 32, 2, 2, 4,              \
      2, 0, 0, 0, 0, 1)                                                                            \
    X(sm80_64x64x32_w4_s4, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_MMA_SYNC, 64, 64, 32, 2, 2, 4,  \
      4, 0, 0, 0, 0, 1)                                                                            \
    X(sm80_128x256x64_w8_s3, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_MMA_SYNC, 128, 256, 64, 2, 4, 3,\
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm80_128x128x64_w4_s3, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_MMA_SYNC, 128, 128, 64, 2, 2, 3,\
      2, 0, 0, 0, 0, 1)                                                                            \
    X(sm80_128x64x64_w4_s3, EVT_TILE_CONV, EVT_TILE_MMA_SYNC, 128, 64, 64, 2, 2, 3,                \
      2, 0, 0, 0, 0, 1)                                                                            \
    X(sm80_256x64x32_w4_s4, EVT_TILE_CONV, EVT_TILE_MMA_SYNC, 256, 64, 32, 4, 1, 4,                \
      2, 0, 0, 0, 0, 1)                                                                            \
    X(sm80_ws4_128x128x64_w4_s3, EVT_TILE_CONV, EVT_TILE_MMA_SYNC, 128, 128, 64, 2, 2, 3,          \
      1, 4, 0, 0, 0, 1)                                                                            \
    X(sm90_wg2_128x256x64_s4, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 256, 64, 2, 4, 4,\
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg2_128x128x64_s3, EVT_TILE_GEMM, EVT_TILE_WGMMA, 128, 128, 64, 2, 4, 3,                \
      2, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg2_128x128x64_s6, EVT_TILE_GEMM, EVT_TILE_WGMMA, 128, 128, 64, 2, 4, 6,                \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg2_128x64x64_s8, EVT_TILE_GEMM, EVT_TILE_WGMMA, 128, 64, 64, 2, 4, 8,                  \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_64x128x64_s4, EVT_TILE_GEMM, EVT_TILE_WGMMA, 64, 128, 64, 1, 4, 4,                  \
      2, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_64x128x64_s8, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_WGMMA, 64, 128, 64, 1, 4, 8,\
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_64x64x64_s8, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_WGMMA, 64, 64, 64, 1, 4, 8,\
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_16x64x64_s16, EVT_TILE_GEMM, EVT_TILE_WGMMA, 16, 64, 64, 1, 4, 16,                  \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_32x64x64_s12, EVT_TILE_GEMM, EVT_TILE_WGMMA, 32, 64, 64, 1, 4, 12,                  \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_16x128x64_s12, EVT_TILE_GEMM, EVT_TILE_WGMMA, 16, 128, 64, 1, 4, 12,                \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_48x128x64_s10, EVT_TILE_GEMM, EVT_TILE_WGMMA, 48, 128, 64, 1, 4, 10,                \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_80x64x64_s12, EVT_TILE_GEMM, EVT_TILE_WGMMA, 80, 64, 64, 1, 4, 12,                  \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_96x64x64_s11, EVT_TILE_GEMM, EVT_TILE_WGMMA, 96, 64, 64, 1, 4, 11,                  \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_112x64x64_s10, EVT_TILE_GEMM, EVT_TILE_WGMMA, 112, 64, 64, 1, 4, 10,                \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_80x128x64_s8, EVT_TILE_GEMM, EVT_TILE_WGMMA, 80, 128, 64, 1, 4, 8,                  \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_96x128x64_s8, EVT_TILE_GEMM, EVT_TILE_WGMMA, 96, 128, 64, 1, 4, 8,                  \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg1_112x128x64_s7, EVT_TILE_GEMM, EVT_TILE_WGMMA, 112, 128, 64, 1, 4, 7,                \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg2_128x128x32_s6, EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 128, 32, 2, 4, 6,                \
      2, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg3_192x128x64_s4, EVT_TILE_CONV, EVT_TILE_WGMMA, 192, 128, 64, 3, 4, 4,                \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg3_192x256x64_s4, EVT_TILE_CONV, EVT_TILE_WGMMA, 192, 256, 64, 3, 4, 4,                \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg2_ws4_128x128x64_s4, EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 128, 64, 2, 4, 4,            \
      1, 4, 0, 0, 0, 1)                                                                            \
    X(sm90_wg2_ws8_128x128x64_s4, EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 128, 64, 2, 4, 4,            \
      1, 8, 0, 0, 0, 1)                                                                            \
    X(sm90_pp2_128x128x64_s4, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 128, 64, 2, 2, 4,\
      1, 0, 2, 0, 0, 1)                                                                            \
    X(sm90_pp2_128x64x64_s7, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 64, 64, 2, 2, 7,  \
      1, 0, 2, 0, 0, 1)                                                                            \
    X(sm90_pp2_128x64x32_s12, EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 64, 32, 2, 2, 12,              \
      1, 0, 2, 0, 0, 1)                                                                            \
    X(sm90_pp2_128x128x32_s8, EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 128, 32, 2, 2, 8,               \
      1, 0, 2, 0, 0, 1)                                                                            \
    X(sm90_pp2_128x128x64_s2_staged, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 128, 64,  \
      2, 2, 2, 1, 0, 2, 2, 0, 1)                                                                   \
    X(sm90_pp2_128x64x64_s6_staged, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 64, 64,    \
      2, 2, 6, 1, 0, 2, 2, 0, 1)                                                                   \
    X(sm90_coop2_256x128x64_s3, EVT_TILE_GEMM, EVT_TILE_WGMMA, 256, 128, 64, 2, 2, 3,              \
      1, 0, 2, 0, 1, 1)                                                                            \
    X(sm90_pp2_cl2_128x128x64_s4, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 128, 64, 2, 2, 4,\
      1, 0, 2, 0, 0, 2)                                                                            \
    X(sm90_pp2_128x128x64_s6, EVT_TILE_GEMM, EVT_TILE_WGMMA, 128, 128, 64, 2, 2, 6,                \
      1, 0, 2, 0, 0, 1)                                                                            \
    X(sm90_pp2_cl2_128x128x64_s6, EVT_TILE_GEMM, EVT_TILE_WGMMA, 128, 128, 64, 2, 2, 6,            \
      1, 0, 2, 0, 0, 2)                                                                            \
    X(sm90_pp2_64x128x64_s8, EVT_TILE_GEMM, EVT_TILE_WGMMA, 64, 128, 64, 2, 2, 8,                  \
      1, 0, 2, 0, 0, 1)                                                                            \
    X(sm90_pp2_cl2_64x128x64_s8, EVT_TILE_GEMM, EVT_TILE_WGMMA, 64, 128, 64, 2, 2, 8,              \
      1, 0, 2, 0, 0, 2)                                                                            \
    X(sm90_coop2_128x256x64_s3, EVT_TILE_GEMM, EVT_TILE_WGMMA, 128, 256, 64, 2, 2, 3,              \
      1, 0, 2, 0, 1, 1)                                                                            \
    X(sm90_coop2_cl2_128x256x64_s3, EVT_TILE_GEMM, EVT_TILE_WGMMA, 128, 256, 64, 2, 2, 3,          \
      1, 0, 2, 0, 1, 2)                                                                            \
    X(sm90_coop2_128x256x64_s4, EVT_TILE_GEMM, EVT_TILE_WGMMA, 128, 256, 64, 2, 2, 4,              \
      1, 0, 2, 0, 1, 1)                                                                            \
    X(sm90_coop2_cl2_128x256x64_s4, EVT_TILE_GEMM, EVT_TILE_WGMMA, 128, 256, 64, 2, 2, 4,          \
      1, 0, 2, 0, 1, 2)                                                                            \
    X(sm90_coop2_128x192x64_s4, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 192, 64, 2, 2, 4,\
      1, 0, 2, 0, 1, 1)                                                                            \
    X(sm90_coop2_128x160x64_s4, EVT_TILE_GEMM | EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 160, 64, 2, 2, 4,\
      1, 0, 2, 0, 1, 1)                                                                            \
    X(sm90_coop2_cl2_128x192x64_s4, EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 192, 64, 2, 2, 4,          \
      1, 0, 2, 0, 1, 2)                                                                            \
    X(sm90_coop2_cl2_128x160x64_s4, EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 160, 64, 2, 2, 4,          \
      1, 0, 2, 0, 1, 2)                                                                            \
    X(sm90_pp2_cl4_128x128x64_s4, EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 128, 64, 2, 2, 4,            \
      1, 0, 2, 0, 0, 4)                                                                            \
    X(sm90_coop2_cl4_128x192x64_s4, EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 192, 64, 2, 2, 4,          \
      1, 0, 2, 0, 1, 4)                                                                            \
    X(sm90_coop2_cl4_128x160x64_s4, EVT_TILE_CONV, EVT_TILE_WGMMA, 128, 160, 64, 2, 2, 4,          \
      1, 0, 2, 0, 1, 4)                                                                            \
    X(sm80_128x128x128_w4_s3_fp8, EVT_TILE_GEMM, EVT_TILE_MMA_SYNC_FP8, 128, 128, 128, 2, 2, 3,    \
      2, 0, 0, 0, 0, 1)                                                                            \
    X(sm80_64x64x64_w4_s4_fp8, EVT_TILE_GEMM, EVT_TILE_MMA_SYNC_FP8, 64, 64, 64, 2, 2, 4,          \
      4, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg2_128x256x128_s4_fp8, EVT_TILE_GEMM, EVT_TILE_WGMMA_FP8, 128, 256, 128, 2, 4, 4,      \
      1, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_wg2_128x128x128_s3_fp8, EVT_TILE_GEMM, EVT_TILE_WGMMA_FP8, 128, 128, 128, 2, 4, 3,      \
      2, 0, 0, 0, 0, 1)                                                                            \
    X(sm90_pp2_128x128x128_s4_fp8, EVT_TILE_GEMM, EVT_TILE_WGMMA_FP8, 128, 128, 128, 2, 2, 4,      \
      1, 0, 2, 0, 0, 1)                                                                            \
    X(sm90_coop2_128x128x128_s4_fp8, EVT_TILE_GEMM, EVT_TILE_WGMMA_FP8, 128, 128, 128, 2, 2, 4,    \
      1, 0, 2, 0, 1, 1)                                                                            \
    X(sm90_coop2_cl2_128x128x128_s4_fp8, EVT_TILE_GEMM, EVT_TILE_WGMMA_FP8, 128, 128, 128, 2, 2, 4, \
      1, 0, 2, 0, 1, 2)                                                                            \
    X(sm90_ws8_coop2_128x128x128_s4_fp8, EVT_TILE_GEMM, EVT_TILE_WGMMA_FP8, 128, 128, 128, 2, 2, 4, \
      1, 8, 2, 0, 1, 1)                                                                            \
    X(sm90_ws8_coop2_cl2_128x128x128_s4_fp8, EVT_TILE_GEMM, EVT_TILE_WGMMA_FP8, 128, 128, 128, 2, 2, \
      4, 1, 8, 2, 0, 1, 2)

/* The configurations as symbols, in table order: EVT_TILE_<name>. */
enum evt_tile_id {
#define EVT_TILE_ID(name, ...) EVT_TILE_##name,
    EVT_TILE_CONFIGS(EVT_TILE_ID)
#undef EVT_TILE_ID
    EVT_TILE_COUNT
};

/*
 * What a row implies, written once for the host and the device.
 * The accumulator tile's rows are padded by EVT_TILE_ACC_PAD floats: a row
 * stride of 8 (mod 32) words makes the mainloops' float2 stores
 * conflict-free and keeps rows 16-byte aligned for float4 reads.
 */
#define EVT_TILE_ACC_PAD 8
/* mbarriers of a producer/consumer schedule */
#define EVT_TILE_BAR_BYTES 256
/* the accumulator tile's hand-over mbarriers of a warp-specialized one */
#define EVT_TILE_WS_BAR_BYTES 16
/* Threads of a CTA: the MMA (or producer) warps, the epilogue warps of a
 * warp-specialized schedule, the consumer warpgroups of a producer/consumer one. */
#define EVT_TILE_THREADS(warps_m, warps_n, ws, pp) (32 * ((warps_m) * (warps_n) + (ws)) + 128 * (pp))
/* Threads of a split-K sum CTA (the _splitsum entry, one CTA a tile): the
 * CTA's threads times the most that stays within 512.  Its partial tiles
 * come from L2 and its epilogue runs at the issue rate; with the four warps
 * of a 128-thread tile each scheduler had one warp to hide both with.  But
 * no more than the tile's 8-column chunks (bm bn / 8), one each: the
 * epilogue's row passes must fit the tile's rows (a swapped tile's 16);
 * and where those passes would not be whole ones of the tile's rows (a
 * swapped tile's 80, in passes of 32), three or two times the CTA's threads
 * if theirs are (80 rows in passes of 16), else the CTA's own. */
#define EVT_TILE_SUM_THREADS_(threads) ((threads) >= 512 ? (threads) : 512 / (threads) * (threads))
#define EVT_TILE_SUM_THREADS__(threads, bm, bn)                                           \
    (EVT_TILE_SUM_THREADS_(threads) <= (bm) * (bn) / 8 ? EVT_TILE_SUM_THREADS_(threads)   \
     : (threads) >= (bm) * (bn) / 8                    ? (threads)                        \
                                                       : (bm) * (bn) / 8 / (threads) * (threads))
#define EVT_TILE_SUM_FITS(t, bm, bn) ((t) / ((bn) / 8) > 0 && (bm) % ((t) / ((bn) / 8)) == 0)
#define EVT_TILE_SUM_THREADS(threads, bm, bn)                                                        \
    (EVT_TILE_SUM_FITS(EVT_TILE_SUM_THREADS__(threads, bm, bn), bm, bn)                              \
         ? EVT_TILE_SUM_THREADS__(threads, bm, bn)                                                   \
     : 3 * (threads) <= EVT_TILE_SUM_THREADS__(threads, bm, bn) && EVT_TILE_SUM_FITS(3 * (threads), bm, bn) \
         ? 3 * (threads)                                                                             \
     : 2 * (threads) <= EVT_TILE_SUM_THREADS__(threads, bm, bn) && EVT_TILE_SUM_FITS(2 * (threads), bm, bn) \
         ? 2 * (threads)                                                                             \
         : (threads))
#define EVT_TILE_PIPE_BYTES(mma, bm, bn, bk, stages) \
    ((stages) * ((bm) + (bn)) * (bk) * EVT_TILE_OP_BYTES(mma))
#define EVT_TILE_ACC_BYTES(bm, bn) ((bm) * ((bn) + EVT_TILE_ACC_PAD) * 4)
/* The most dynamic shared memory a CTA can have (sm_90; plan/targets.c
 * holds each target's own). */
#define EVT_TILE_SMEM_MAX (227 * 1024)
/* A producer/consumer CTA's shared memory (EVT_TILE_SMEM_BYTES) for
 * epilogue tiles of epi_bn columns. */
#define EVT_TILE_PP_SMEM_BYTES(mma, bm, bn, bk, stages, epi_bn, staged)                             \
    (EVT_TILE_PIPE_BYTES(mma, bm, bn, bk, stages) + EVT_TILE_ACC_BYTES(128, epi_bn) +               \
     (staged) * (bm) * (bn) * 2 + EVT_TILE_BAR_BYTES + 1024)
/* Columns of the tiles a producer/consumer epilogue runs on: the widest
 * of the tile's own (up to 128; 64 for a 192-wide tile, whose rows hold
 * no whole number of 128-column ones, 32 for a 160-wide one), 64 and 32
 * for which the f32 copy (the
 * whole tile, or each consumer's 64-row sub-tile) fits beside the stages.
 * Three 48 KB stages of a 256-wide cooperative tile leave room for 128
 * columns, four for 32; six 32 KB ping-pong stages for 32. */
#define EVT_TILE_EPI_WIDEST(bn) ((bn) < 128 ? (bn) : (bn) % 128 == 0 ? 128 : (bn) % 64 == 0 ? 64 : 32)
#define EVT_TILE_EPI_BN(mma, bm, bn, bk, stages)                                                    \
    (EVT_TILE_PP_SMEM_BYTES(mma, bm, bn, bk, stages, EVT_TILE_EPI_WIDEST(bn), 0) <= EVT_TILE_SMEM_MAX \
         ? EVT_TILE_EPI_WIDEST(bn)                                                                  \
     : EVT_TILE_PP_SMEM_BYTES(mma, bm, bn, bk, stages, 64, 0) <= EVT_TILE_SMEM_MAX ? 64             \
                                                                                   : 32)
/* Dynamic shared memory of a CTA: the larger of the pipeline and the f32
 * accumulator tile that reuses it; both side by side for the persistent
 * schedules (the next tile loads while the epilogue reads the accumulators),
 * with the staged tiles and mbarriers of a producer/consumer one (whose
 * accumulator space is 128 rows of EVT_TILE_EPI_BN columns: the one tile
 * its consumers take turns on, or, cooperative, each consumer's 64-row
 * epilogue sub-tile); wgmma stages add 1 KB to align them to their
 * 1024-byte swizzle atom. */
#define EVT_TILE_SMEM_BYTES(mma, bm, bn, bk, stages, ws, pp, staged)                              \
    ((pp) ? EVT_TILE_PP_SMEM_BYTES(mma, bm, bn, bk, stages, EVT_TILE_EPI_BN(mma, bm, bn, bk, stages),  \
                                   staged)                                                        \
          : ((ws) ? EVT_TILE_PIPE_BYTES(mma, bm, bn, bk, stages) + EVT_TILE_ACC_BYTES(bm, bn) +   \
                        EVT_TILE_WS_BAR_BYTES                                                     \
                  : EVT_TILE_PIPE_BYTES(mma, bm, bn, bk, stages) > EVT_TILE_ACC_BYTES(bm, bn)     \
                        ? EVT_TILE_PIPE_BYTES(mma, bm, bn, bk, stages)                            \
                        : EVT_TILE_ACC_BYTES(bm, bn)) +                                           \
                (EVT_TILE_IS_WGMMA(mma) ? 1024 : 0))

#endif /* EVT_TILE_CONFIGS_H */
