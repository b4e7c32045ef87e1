/*
 * pipeline.cuh - the sm_90a wgmma pipeline over cp.async stages: the same
 * stages sm80/pipeline.cuh fills (a BK = 64 stage of a K-contiguous operand
 * is already wgmma's 128-byte-swizzled K-major layout, a BK = 32 one its
 * 64-byte swizzle; an M/N-contiguous operand's stage is written in its
 * MN-major layout, evt_sm80::wgmma_mn_tile), multiplied by warpgroup MMAs straight from shared
 * memory: one k tile (wgmma_k_tile), the plain schedule's pipeline
 * (run_pipeline_wgmma) and the warp-specialized schedule's MMA warps
 * (ws_wgmma_warps).  Used only by wgmma configurations, which the planner
 * gives only to sm_90a; reached on another target they do not compile.
 */
#ifndef EVT_SM90_PIPELINE_CUH
#define EVT_SM90_PIPELINE_CUH

#include "sm90/wgmma.cuh"
#include "sched/tiles.cuh"

namespace evt_sm90 {

#if EVT_SM90 == 1
/*
 * One k tile of the wgmma pipeline, at stage `stage` of the stages at sbase:
 * waits for it (cp.async, then the async proxy's view and sync(), the MMA
 * warps' barrier), multiplies it into warpgroup wgi's acc, refills stage
 * `write_stage`, whose MMAs every warpgroup has drained by now, through
 * load_next(its address) (which may load nothing; a group is committed
 * anyway), lets this k tile's MMAs run while the last one's drain, and
 * advances both stages.
 */
template <class Cfg, int NC, int NH, class Sync, class LoadNext>
__device__ __forceinline__ void wgmma_k_tile(float (&acc)[NH][NC / 2], evt_u32 sbase, int wgi,
                                             int &stage, int &write_stage, Sync sync,
                                             LoadNext load_next)
{
    evt_cp_async_wait<Cfg::kStages - 3>();
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    sync();
    const evt_u32 sa = sbase + stage * Cfg::kStageBytes + wgi * 64 * Cfg::kBK16 * 2;
    const evt_u32 sb = sbase + stage * Cfg::kStageBytes + Cfg::kAStageBytes;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < Cfg::kKSteps; ++kk)
#pragma unroll
        for (int h = 0; h < NH; ++h) {
            if constexpr (Cfg::kSwapAB) /* B's rows h 64 .. as wgmma's A, A's kBM rows as its B */
                wgmma_op_of<Cfg, NC>::run(acc[h], wgmma_operand<Cfg, false>::desc(sb + h * 64 * Cfg::kBK16 * 2, kk),
                                          wgmma_operand<Cfg, true>::desc(sa, kk));
            else
                wgmma_op_of<Cfg, NC>::run(acc[h], wgmma_operand<Cfg, true>::desc(sa, kk),
                                          wgmma_operand<Cfg, false>::desc(sb + h * NC * Cfg::kBK16 * 2, kk));
        }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    load_next(sbase + write_stage * Cfg::kStageBytes);
    evt_cp_async_commit();
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    stage = stage + 1 == Cfg::kStages ? 0 : stage + 1;
    write_stage = write_stage + 1 == Cfg::kStages ? 0 : write_stage + 1;
}
#endif

/*
 * The plain schedule's wgmma pipeline: the same cp.async
 * loads into the same stages, multiplied by warpgroup MMAs straight from
 * shared memory.  A BK = 64 stage of a K-contiguous operand is, row after
 * row of 128 bytes with 16-byte chunk c stored at c ^ (row & 7), exactly
 * wgmma's 128-byte-swizzled K-major layout (a BK = 32 one, c ^ ((row >> 1)
 * & 3) in 64-byte rows, its 64-byte swizzle), so only the descriptors are new.
 * Warpgroup g (warps 4g..4g+3) computes rows 64g..64g+63 of the tile and all
 * kBN columns, kBN / 128 m64n128k16 MMAs per k16 step (one m64n64k16 on a
 * 64-wide tile); its accumulators are
 * laid out per warp like mma.sync's m16n8 ones.  kStages - 2 k tiles load
 * while one is multiplied and the MMAs of the one before drain
 * (wgmma.wait_group 1); the stage they read is refilled after the next
 * barrier.  A swapped tile (kSwapAB: BM of 16 to 112, not 64) multiplies the
 * same stages the other way round: each 64 rows of B's stage are an
 * m64nBM MMA's A, A's BM rows its B, and its accumulators go to the tile
 * transposed (store_acc_wgmma_swapped).
 */
template <class Cfg, class Load>
__device__ __forceinline__ void run_pipeline_wgmma(int k_tiles, Load &load, evt_u32 sbase_raw)
{
#if EVT_SM90 == 1
    static_assert(Cfg::kBK16 == 64 || Cfg::kBK16 == 32, "the wgmma pipeline takes BK = 32 or 64");
    static_assert(Cfg::kSwapAB ? Cfg::kThreads == 128 && Cfg::kBN % 64 == 0
                               : Cfg::kThreads == 128 * (Cfg::kBM / 64) && (Cfg::kBN % 128 == 0 || Cfg::kBN == 64),
                  "one warpgroup per 64 rows; N in m64n128 steps, or one m64n64; swapped: one "
                  "warpgroup, an m64nBM MMA per 64 columns");
    static_assert(!Cfg::kSwapAB || (Cfg::kAKContig && Cfg::kBKContig && Cfg::kOpBytes == 2),
                  "a swapped tile takes K-contiguous 16-bit operands (A row-major, B column-major)");
    static_assert(Cfg::kStages >= 3, "kStages - 2 loads in flight");
    /* columns per MMA and MMAs per k16 step */
    constexpr int NC = Cfg::kSwapAB ? Cfg::kBM : Cfg::kBN < 128 ? Cfg::kBN : 128;
    constexpr int NH = Cfg::kSwapAB ? Cfg::kBN / 64 : Cfg::kBN / NC;
    const evt_u32 sbase = (sbase_raw + 1023u) & ~1023u; /* the swizzle atoms' alignment */
    const int tid = threadIdx.x, wgi = tid >> 7, warp = (tid >> 5) & 3, lane = tid & 31;
    float acc[NH][NC / 2];
    zero_acc<NC, NH>(acc);

#pragma unroll
    for (int s = 0; s < Cfg::kStages - 2; ++s) {
        if (s < k_tiles)
            load(sbase + s * Cfg::kStageBytes);
        evt_cp_async_commit();
    }
    int stage = 0, write_stage = Cfg::kStages - 2;
    for (int kt = 0; kt < k_tiles; ++kt)
        wgmma_k_tile<Cfg, NC, NH>(
            acc, sbase, wgi, stage, write_stage, [] { __syncthreads(); },
            [&](evt_u32 s) {
                if (kt + Cfg::kStages - 2 < k_tiles)
                    load(s);
            });
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    evt_cp_async_wait<0>();
    __syncthreads();
    /* as evt_sm80::run_pipeline leaves it */
    if constexpr (Cfg::kSwapAB)
        store_acc_wgmma_swapped<Cfg, NC, NH>(acc, sbase_raw, warp, lane);
    else
        store_acc_wgmma<Cfg, NC, NH>(acc, sbase_raw, wgi, warp, lane);
    __syncthreads();
#else
    static_assert(evt_needs_sm90<Cfg>::value, "wgmma configurations run on sm_90a only");
#endif
}

template <class Cfg, class Load, class Args>
__device__ __forceinline__ void ws_wgmma_warps(const Args &args, int m, int n, int k_tiles,
                                               int tiles, unsigned char *smem, float *acc_tile,
                                               evt_sched::ws_hand_over hand)
{
#if EVT_SM90 == 1
    static_assert((Cfg::kBK16 == 64 || Cfg::kBK16 == 32) &&
                      Cfg::kStages >= 3 &&
                      Cfg::kThreads == 128 * (Cfg::kBM / 64) && Cfg::kBN % 128 == 0,
                  "the wgmma pipeline's conditions (run_pipeline_wgmma)");
    constexpr int NC = 128;
    constexpr int NH = Cfg::kBN / NC;
    const evt_u32 sbase = (evt_smem_addr(smem) + 1023u) & ~1023u;
    const int tid = threadIdx.x, wgi = tid >> 7, warp = (tid >> 5) & 3, lane = tid & 31;
    evt_sched::tile_stream<Cfg, Load, Args> ts;
    ts.begin(args, tiles, k_tiles, m, n);
#pragma unroll
    for (int s = 0; s < Cfg::kStages - 2; ++s) {
        ts.next(args, sbase + s * Cfg::kStageBytes);
        evt_cp_async_commit();
    }
    int stage = 0, write_stage = Cfg::kStages - 2;
    for (int t = blockIdx.x, j = 0; t < tiles; t += gridDim.x, ++j) {
        float acc[NH][NC / 2];
        zero_acc<NC, NH>(acc);
        for (int kt = 0; kt < k_tiles; ++kt)
            wgmma_k_tile<Cfg, NC, NH>(
                acc, sbase, wgi, stage, write_stage,
                [] { evt_sched::bar_sync(EVT_BAR_PIPE, Cfg::kThreads); },
                [&](evt_u32 s) { ts.next(args, s); });
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if (j > 0)
            evt_sched::mbar_wait_cta<false>(hand.empty, (j - 1) & 1);
        store_acc_wgmma<Cfg, NC, NH>(acc, evt_smem_addr(acc_tile), wgi, warp, lane);
        evt_sched::mbar_arrive_cta(hand.full);
    }
    evt_cp_async_wait<0>();
#else
    static_assert(evt_needs_sm90<Cfg>::value, "wgmma configurations run on sm_90a only");
#endif
}

} /* namespace evt_sm90 */

#endif /* EVT_SM90_PIPELINE_CUH */
