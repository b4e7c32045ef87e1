/*
 * tma.cuh - sm_90a's asynchronous copies: tensor maps (made by the runtime
 * per launch, passed to an entry as a grid-constant parameter), mbarriers
 * with transaction counts, and the tensor-memory-accelerator copies the
 * producer/consumer schedule loads with (tiled 2D boxes, im2col boxes).
 * The map structs exist in every pass (entries name them); the
 * instructions only in sm_90a passes (EVT_SM90 == 1).
 */
#ifndef EVT_SM90_TMA_CUH
#define EVT_SM90_TMA_CUH

#include "common/tile.cuh"
#include "sched/tiles.cuh" /* mbarrier init and arrive, shared with the sm_80 schedules */

/* A TMA tensor map (CUtensorMap: 128 opaque bytes, 64-byte aligned), and
 * the maps a TMA configuration's entry point takes as a second, grid-constant
 * parameter (GEMM: A's and B's tiled maps; conv: the input's im2col map and
 * the filter's tiled map; a staged epilogue input's tiled map; made by the
 * runtime per launch). */
struct alignas(64) evt_tma_map {
    evt_u64 opaque[16];
};
struct evt_tma_maps {
    evt_tma_map a, b;
    evt_tma_map staged; /* the staged epilogue input's tiled map (cfg.staged) */
};

namespace evt_sm90 {

#if EVT_SM90 == 1
EVT_DEVICE void mbar_wait(evt_u32 bar, int parity)
{
    asm volatile("{\n.reg .pred p;\nWAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra WAIT;\n}\n" ::"r"(bar), "r"(parity) : "memory");
}

/* Arrives on bar and adds `bytes` to the transaction count its phase waits
 * for (the TMA copies' complete_tx). */
EVT_DEVICE void mbar_arrive_expect_tx(evt_u32 bar, evt_u32 bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}

/* The box of 2D tiled tensor map `map` at (x, y) (x the contiguous
 * coordinate) into shared memory at dst; completes on mbarrier bar. */
EVT_DEVICE void tma_load_2d(evt_u32 dst, const evt_tma_map *map, evt_u32 bar, int x, int y)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst), "l"(map), "r"(bar), "r"(x), "r"(y)
                 : "memory");
}

/* The box of 3D tiled tensor map `map` at (x, y, z): a batch of 2D
 * tensors, z the problem (api/launch.c makes such maps for operands and
 * staged inputs that differ per problem of a batch). */
EVT_DEVICE void tma_load_3d(evt_u32 dst, const evt_tma_map *map, evt_u32 bar, int x, int y, int z)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(dst), "l"(map), "r"(bar), "r"(x), "r"(y), "r"(z)
                 : "memory");
}

/* ---- thread-block clusters (configurations with cluster > 1) ----------- */

/* Every thread of the cluster's CTAs: release what this thread wrote
 * (mbarrier inits after fence.mbarrier_init included), then wait for all
 * of them.  At the start, before a CTA's peers touch its mbarriers; at the
 * end, so that no CTA exits while a peer may still arrive on its. */
EVT_DEVICE void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* Makes this thread's mbarrier.init visible to the cluster's other CTAs. */
EVT_DEVICE void fence_mbar_init_cluster()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* Arrives on the mbarrier at the same shared address in the cluster's CTA
 * of rank `rank` (this one's included).  No release at cluster scope: the
 * consumers that arrive only read the stage, through wgmma, whose reads
 * wgmma.wait_group has already seen complete. */
EVT_DEVICE void mbar_arrive_cluster(evt_u32 bar, int rank)
{
    asm volatile("{\n.reg .b32 remote;\n"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(bar),
                 "r"(rank)
                 : "memory");
}

/* The same where `on` holds, predicated rather than branched (as
 * evt_sched::mbar_arrive_cta_if, for the fp8 cooperative tile's consumers). */
EVT_DEVICE void mbar_arrive_cluster_if(evt_u32 bar, int rank, bool on)
{
    asm volatile("{\n.reg .b32 remote;\n.reg .pred p;\n"
                 "setp.ne.u32 p, %2, 0;\n"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "@p mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(bar),
                 "r"(rank), "r"((unsigned)on)
                 : "memory");
}

/* tma_load_2d / tma_load_3d into the same shared address of every CTA of
 * the cluster in `ctas` (a bit per rank), completing bytes on the mbarrier
 * at bar's address in each. */
EVT_DEVICE void tma_load_2d_multicast(evt_u32 dst, const evt_tma_map *map, evt_u32 bar, int x, int y,
                                      unsigned short ctas)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst), "l"(map), "r"(bar),
                 "r"(x), "r"(y), "h"(ctas)
                 : "memory");
}

EVT_DEVICE void tma_load_3d_multicast(evt_u32 dst, const evt_tma_map *map, evt_u32 bar, int x, int y,
                                      int z, unsigned short ctas)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4, %5}], [%2], %6;" ::"r"(dst), "l"(map), "r"(bar),
                 "r"(x), "r"(y), "r"(z), "h"(ctas)
                 : "memory");
}

/* A clustered configuration's share of a stage's B tile (kernels/
 * tile_configs.h, the cluster column): the cluster's CTAs take tiles on
 * top of each other, so their B tiles are alike, and each loads its share
 * of the rows (the runtime's map has boxes of kBN / kCluster) into every
 * CTA of the cluster (ctas()), which is what cuts B's L2 reads.  The GEMM's
 * and the conv's TMA loaders both take it. */
template <class Cfg>
struct b_share {
    int rank;

    __device__ __forceinline__ b_share() : rank((int)blockIdx.x % Cfg::kCluster) {}
    /* every CTA of the cluster, a bit each */
    __device__ __forceinline__ unsigned short ctas() const { return (unsigned short)((1u << Cfg::kCluster) - 1); }
    /* the share's first row of the tile */
    __device__ __forceinline__ int row() const { return rank * (Cfg::kBN / Cfg::kCluster); }
    /* where it lands in stage `stage` */
    __device__ __forceinline__ evt_u32 dst(evt_u32 stage) const
    {
        return stage + Cfg::kAStageBytes + rank * (Cfg::kBStageBytes / Cfg::kCluster);
    }
};

/* The im2col box of 4D map `map` (x NHWC as (c, w, h, n)) at channel c0 of
 * the window whose corner is (w0, h0) in image n0, at filter offset (ow,
 * oh), into shared memory at dst; completes on mbarrier bar. */
EVT_DEVICE void tma_load_im2col_4d(evt_u32 dst, const evt_tma_map *map, evt_u32 bar, int c0, int w0,
                                   int h0, int n0, unsigned short ow, unsigned short oh)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2], {%7, %8};"
                 ::"r"(dst), "l"(map), "r"(bar), "r"(c0), "r"(w0), "r"(h0), "r"(n0), "h"(ow), "h"(oh)
                 : "memory");
}

#endif

} /* namespace evt_sm90 */

#endif /* EVT_SM90_TMA_CUH */
