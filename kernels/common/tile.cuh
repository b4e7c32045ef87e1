/*
 * tile.cuh - a tile configuration as compile-time constants: evt_tile<>,
 * and evt_tile_<name> for every row of tile_configs.h.
 *
 * The mainloops add operand type, layouts and path to a tile
 * (evt_gemm_cfg, evt_conv_cfg) and read everything else from here: shapes,
 * warp grid, fragments per warp, shared-memory layout.  The byte counts are
 * tile_configs.h's macros, which the planner uses for the host too.
 */
#ifndef EVT_TILE_CUH
#define EVT_TILE_CUH

#include "tile_configs.h"

template <int MMA, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int MIN_BLOCKS,
          int WS_WARPS, int PP, int STAGED, int COOP, int CLUSTER>
struct evt_tile {
    static constexpr int kBM = BM;
    static constexpr int kBN = BN;
    static constexpr int kBK = BK;
    static constexpr int kWarpsM = WARPS_M;
    static constexpr int kWarpsN = WARPS_N;
    static constexpr int kStages = STAGES;
    static constexpr int kMinBlocks = MIN_BLOCKS;
    static constexpr bool kWS = WS_WARPS > 0;
    static constexpr bool kWgmma = EVT_TILE_IS_WGMMA(MMA);
    /* A wgmma tile whose rows are not a multiple of 64 runs with its
     * operands swapped (evt_sm90::run_pipeline_wgmma): B's BN rows are
     * wgmma's M, A's BM rows its N (m64nBMk16), so a few tokens against a
     * weight fill the MMA instead of a quarter of it, and 80 of them load
     * and multiply 80 rows of A, not 128.  EVT_TILE_SWAPPED says so for the
     * host. */
    static constexpr bool kSwapAB = EVT_TILE_SWAPPED(MMA, BM);
    /* Operand bytes: 2 (f16, bf16) or 1 (fp8).  The stages, their swizzle,
     * ldmatrix and the wgmma descriptors work in 16-bit units of a row
     * (kBK16 of them): an fp8 k tile of BK elements is laid out exactly as a
     * 16-bit one of BK / 2, and its MMAs (m16n8k32, m64nNk32) read the same
     * bytes as the 16-bit ones (m16n8k16, m64nNk16). */
    static constexpr int kOpBytes = EVT_TILE_OP_BYTES(MMA);
    static constexpr int kBK16 = BK * kOpBytes / 2;
    static constexpr int kPP = PP;         /* consumer warpgroups (evt_sm90::pp_run) */
    /* consumers sharing each tile, BM / PP rows each (evt_sm90::coop_run),
     * else taking whole tiles in turn (evt_sm90::pp_run) */
    static constexpr bool kCoop = COOP != 0;
    /* rows and columns of the tiles the epilogue runs on: a cooperative
     * consumer's accumulators go through shared memory 64 rows at a time,
     * a 256-wide tile's 128, 64 or 32 columns at a time (EVT_TILE_EPI_BN);
     * so do a ping-pong consumer's where the whole tile does not fit */
    static constexpr int kEpiBN = PP > 0 ? EVT_TILE_EPI_BN(MMA, BM, BN, BK, STAGES) : BN;
    static constexpr int kEpiBM = kCoop || kEpiBN < BN ? 64 : BM;
    static constexpr int kStaged = STAGED; /* staged epilogue input tiles (evt_sm90::pp_run) */
    /* CTAs of a cluster, on top of each other, sharing B by multicast
     * (evt_sched::tile_walk, evt_sm90::pp_run) */
    static constexpr int kCluster = CLUSTER;

    static constexpr int kThreads = 32 * WARPS_M * WARPS_N; /* the MMA (pp: producer) warps' */
    static constexpr int kEpiThreads = 32 * WS_WARPS;       /* the epilogue warps' (ws) */
    static constexpr int kCtaThreads = EVT_TILE_THREADS(WARPS_M, WARPS_N, WS_WARPS, PP);
    static constexpr int kSumThreads = EVT_TILE_SUM_THREADS(kCtaThreads, BM, BN); /* a _splitsum CTA's */
    static constexpr int kWM = BM / WARPS_M; /* mma.sync warp tile */
    static constexpr int kWN = BN / WARPS_N;
    static constexpr int kMI = kWM / 16; /* m16 fragments per warp */
    static constexpr int kNI = kWN / 8;  /* n8 fragments per warp */
    static constexpr int kKSteps = kBK16 / 16; /* MMA k steps of 32 bytes */
    static constexpr int kAccPad = EVT_TILE_ACC_PAD;
    static constexpr int kAccLd = kEpiBN + kAccPad; /* row stride of the accumulator tile, floats */

    /* Shared memory. */
    static constexpr int kAStageBytes = BM * kBK16 * 2;
    static constexpr int kBStageBytes = BN * kBK16 * 2;
    static constexpr int kStageBytes = kAStageBytes + kBStageBytes;
    static constexpr int kPipeBytes = EVT_TILE_PIPE_BYTES(MMA, BM, BN, BK, STAGES);
    static constexpr int kAccBytes = EVT_TILE_ACC_BYTES(PP > 0 ? 128 : BM, kEpiBN);
    static constexpr int kStagedTileBytes = BM * BN * 2; /* one staged 16-bit input tile */
    static constexpr int kSmemBytes =
        EVT_TILE_SMEM_BYTES(MMA, BM, BN, BK, STAGES, WS_WARPS, PP, STAGED);

    static_assert(kStageBytes * STAGES == kPipeBytes && kAccLd * 4 * (PP > 0 ? 128 : BM) == kAccBytes,
                  "tile_configs.h's byte counts");
    static_assert(PP == 0 || (kWgmma && (WS_WARPS == 0 || (kCoop && WS_WARPS == 8)) &&
                              (BM == 128 || kCoop || (BM == 64 && STAGED == 0)) &&
                              WARPS_M * WARPS_N == 4),
                  "producer/consumer tiles: one 128-thread producer, wgmma consumers of 128 rows (or 64 "
                  "taking tiles in turn, nothing staged), an epilogue warpgroup only beside cooperative ones");
    static_assert(!kCoop || (PP == 2 && (BM == 256 || BM == 128) &&
                             (BN == 128 || BN == 160 || BN == 192 || BN == 256) && BM * BN <= 256 * 128 &&
                             STAGED == 0),
                  "cooperative tiles: two consumers of 64 x 128, 64 x 160, 64 x 192, 64 x 256 or 128 x 128, "
                  "nothing staged");
    static_assert(STAGED == 0 || (PP == 2 && STAGED == 2), "staged inputs: one tile per consumer");
    static_assert(CLUSTER == 1 || ((CLUSTER == 2 || CLUSTER == 4) && PP == 2 && (BN / CLUSTER) % 8 == 0),
                  "clusters: two or four producer/consumer CTAs, B's tile in shares of whole 1024-byte "
                  "swizzle atoms (8 rows of 128 bytes)");
    static_assert(BM % (16 * WARPS_M) == 0, "warp tile M must be a multiple of 16");
    static_assert(BN % (16 * WARPS_N) == 0,
                  "warp tile N must be a multiple of 16 (ldmatrix.x4 loads two n8 fragments)");
    static_assert(kBK16 == 32 || kBK16 == 64,
                  "a k tile's rows must be 64 or 128 bytes (BK = 32 or 64 16-bit elements, 64 or "
                  "128 fp8 ones): the swizzle and fragment double-buffering assume it");
    static_assert((BM % 64 == 0 || (kSwapAB && BM % 16 == 0 && BM <= 112 && PP == 0 && WS_WARPS == 0 &&
                                    WARPS_M * WARPS_N == 4)) &&
                      (BN % 64 == 0 || (kCoop && BN % 32 == 0)),
                  "BM, BN must be multiples of 64 (M/N-contiguous rows need >= 8 chunks), but for a "
                  "swapped wgmma tile's BM of 16 to 112 in steps of 16 (one warpgroup, the plain "
                  "schedule) and a cooperative tile's BN of 160 (K-contiguous operands only: plan_can_run)");
    static_assert(STAGES >= 2 && (STAGES <= 8 || PP > 0 || (kSwapAB && STAGES <= 16)),
                  "2..8 pipeline stages (cp.async groups), 16 for a swapped tile's small ones");
    static_assert(kCtaThreads <= 1024, "too many warps");
    static_assert(kAccLd % 32 == 8, "acc row stride must be 8 (mod 32) floats");
    static_assert(kSmemBytes <= EVT_TILE_SMEM_MAX, "tile does not fit in shared memory");
};

/* evt_tile_sm80_128x256x64_w8_s3 and the rest: the table's rows as types. */
#define EVT_TILE_TYPE(name, mainloops, ...) typedef evt_tile<__VA_ARGS__> evt_tile_##name;
EVT_TILE_CONFIGS(EVT_TILE_TYPE)
#undef EVT_TILE_TYPE

/*
 * Which compilation this is: sm_90a device code (EVT_SM90 1), another
 * target's device code (0), or nvcc's host pass (-1), which compiles no
 * device code.  The sm90/ templates are bodies under EVT_SM90 == 1; reached
 * in a device pass for another target they fail to compile
 * (evt_needs_sm90), so a wgmma configuration can never be built for sm_80.
 */
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define EVT_SM90 1
#elif defined(__CUDA_ARCH__)
#define EVT_SM90 0
#else
#define EVT_SM90 -1
#endif
template <class T>
struct evt_needs_sm90 {
    static constexpr bool value = EVT_SM90 < 0;
};

#endif /* EVT_TILE_CUH */
