/*
 * persistent.cuh - the schedules a mainloop runs its tiles under, over the
 * architectures' pipelines:
 *   - plain (run_mainloop): one CTA per output tile (or per split-K share),
 *     the accumulator tile left in shared memory for the epilogue; wgmma
 *     (sm90/pipeline.cuh) or mma.sync (sm80/pipeline.cuh) by the tile;
 *   - persistent (ws_run): one CTA per slot walking the output tiles
 *     blockIdx.x, + gridDim.x, ..., either warp-specialized (epilogue warps
 *     beside the MMA warps, ws_epi_warps_run) or producer/consumer
 *     (sm90/producer_consumer.cuh).
 * The planner (plan/) sizes the grids: persistent ones hold one CTA per
 * slot, min_blocks per SM.
 */
#ifndef EVT_SCHED_PERSISTENT_CUH
#define EVT_SCHED_PERSISTENT_CUH

#include "sched/tiles.cuh"
#include "sm80/pipeline.cuh"
#include "sm90/pipeline.cuh"
#include "sm90/producer_consumer.cuh"

namespace evt_sched {

/* A mainloop's k tiles through the configuration's pipeline (wgmma or
 * mma.sync), leaving the accumulator tile at smem; every mainloop ends so.
 * tid: threadIdx.x, read by the caller before it sets up its loader (read
 * after, the sm80 kernels spill a few bytes more). */
template <class Cfg, class Load>
__device__ __forceinline__ void run_mainloop(int k_tiles, Load &load, unsigned char *smem, int tid)
{
    const int warp = tid >> 5;
    if constexpr (Cfg::kWgmma)
        evt_sm90::run_pipeline_wgmma<Cfg>(k_tiles, load, evt_smem_addr(smem));
    else
        evt_sm80::run_pipeline<Cfg>(k_tiles, load, evt_smem_addr(smem), warp / Cfg::kWarpsN,
                                    warp % Cfg::kWarpsN, tid & 31);
}

/*
 * The warp-specialized schedule (configurations with ws > 0): its first
 * Cfg::kThreads threads (the MMA warps) run the k tiles of all its tiles as
 * one stream through the pipeline, so the next tile's first k tiles load
 * while this one finishes; after a tile's last k tile they write the
 * accumulators to their own shared-memory tile (past the stages,
 * float[kBM][kAccLd], as the plain schedule leaves it at 0) and go on with
 * the next tile.  The Cfg::kEpiThreads threads after them (the epilogue
 * warps) run epi(tile_m, tile_n, problem, acc) on each finished tile (problem:
 * its problem of a batch, evt_tile_coord), so a tile's
 * epilogue overlaps the next tile's mainloop, and before each tile run
 * epi.prefetch(tile_m, tile_n, problem) on the next (an L2 prefetch of its
 * [M, N] inputs: their loads then wait on L2, not DRAM).  Named barrier
 * EVT_BAR_PIPE orders the MMA warps' pipeline and EVT_BAR_EPI the epilogue
 * warps' work (evt_epi_team); the accumulator tile goes over and back
 * through two mbarriers past it (ws_hand_over).  Load is the mainloop's
 * stage loader.
 */
template <class Cfg, class Load, class Args, class Epi>
__device__ __forceinline__ void ws_epi_warps_run(const Args &args, int m, int n, int k_tiles,
                                                 unsigned char *smem, const Epi &epi)
{
    static_assert(Cfg::kWS, "ws_run needs a warp-specialized configuration");
    /* evt_tile_coord's order, its divisions precomputed */
    const evt_tile_order<EVT_TILE_GROUP_M> order = evt_tile_order_of<Cfg>(m, n);
    const int all = order.tiles_m * order.tiles_n * args.batches();
    const int tiles = all < evt_tile_end(args) ? all : evt_tile_end(args);
    /* past the stages (and their 1024-byte alignment slack under wgmma) */
    float *acc_tile = reinterpret_cast<float *>(smem + Cfg::kPipeBytes + (Cfg::kWgmma ? 1024 : 0));
    const evt_u32 bars = evt_smem_addr(acc_tile + Cfg::kBM * Cfg::kAccLd);
    const ws_hand_over hand = {bars, bars + 8};
    const int tid = threadIdx.x;
    if (tid == 0) {
        mbar_init_cta(hand.full, Cfg::kThreads);
        mbar_init_cta(hand.empty, Cfg::kEpiThreads);
    }
    __syncthreads();

    if (tid >= Cfg::kThreads) { /* epilogue warps */
        int tm, tn;
        if ((int)blockIdx.x < tiles) {
            const int problem = order.coord(blockIdx.x, &tm, &tn);
            epi.prefetch(tm, tn, problem);
        }
        for (int t = blockIdx.x, j = 0; t < tiles; t += gridDim.x, ++j) {
            /* the next tile's [M, N] inputs into L2 while this one is made */
            if (t + (int)gridDim.x < tiles) {
                const int problem = order.coord(t + gridDim.x, &tm, &tn);
                epi.prefetch(tm, tn, problem);
            }
            mbar_wait_cta<true>(hand.full, j & 1);
            const int problem = order.coord(t, &tm, &tn);
            epi(tm, tn, problem, acc_tile);
            mbar_arrive_cta(hand.empty);
        }
        return;
    }

    if constexpr (Cfg::kWgmma)
        evt_sm90::ws_wgmma_warps<Cfg, Load>(args, m, n, k_tiles, tiles, smem, acc_tile, hand);
    else
        evt_sm80::ws_mma_warps<Cfg, Load>(args, m, n, k_tiles, tiles, smem, acc_tile, hand);
}

/* A persistent schedule: epilogue warps beside the mma warps (ws), or a
 * producer and consumer warpgroups taking tiles in turn (pp) or sharing
 * them (cooperative). */
template <class Cfg, class Load, class Args, class Epi>
__device__ __forceinline__ void ws_run(const Args &args, int m, int n, int k_tiles,
                                       unsigned char *smem, const Epi &epi, Load load = Load())
{
    if constexpr (Cfg::kCoop)
        evt_sm90::coop_run<Cfg, Load>(args, m, n, k_tiles, smem, epi, load);
    else if constexpr (Cfg::kPP > 0)
        evt_sm90::pp_run<Cfg, Load>(args, m, n, k_tiles, smem, epi, load);
    else
        ws_epi_warps_run<Cfg, Load>(args, m, n, k_tiles, smem, epi);
}

} /* namespace evt_sched */

#endif /* EVT_SCHED_PERSISTENT_CUH */
