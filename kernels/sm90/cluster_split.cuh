/*
 * cluster_split.cuh - split-K whose shares meet inside a thread-block
 * cluster (sm_90a).  The runtime launches a _splitk entry in clusters of
 * `splits` CTAs (a runtime cluster dimension, api/launch.c), so the shares
 * of one tile are one cluster: each share's CTA leaves its partial
 * accumulator tile in its own shared memory (as every plain mainloop
 * does), then each CTA sums some of the tile's row slices over all the
 * shares through distributed shared memory and runs the epilogue on them.
 * One kernel instead of _splitk and _splitsum, no partial tiles in the
 * workspace, and the epilogue spread over the cluster's CTAs instead of one
 * sum CTA a tile.  The sums are evt_split_sum's, bit for bit: share 0
 * first, then each share in order, whichever CTA finished first.
 */
#ifndef EVT_SM90_CLUSTER_SPLIT_CUH
#define EVT_SM90_CLUSTER_SPLIT_CUH

#include "common/tile.cuh"
#include "sm90/tma.cuh" /* cluster_sync */

namespace evt_sm90 {

/* The rows of a slice: an eighth of BM rounded up to whole epilogue passes
 * of `pass` rows, and up again to a divisor of BM (a swapped tile's 80 rows
 * in passes of 8: slices of 16, not 10). */
__host__ __device__ constexpr int cluster_slice_rows(int bm, int pass)
{
    int r = (bm / 8 + pass - 1) / pass * pass;
    while (bm % r != 0)
        r += pass;
    return r;
}

/* The epilogue's row slices of a BM x BN tile: eight, or fewer where an
 * epilogue pass (THREADS / (BN / 8) rows) is taller than an eighth or
 * eighths are not whole passes, so that a slice is whole passes and holds
 * the epilogue's scratch rows.  Clusters of up to eight CTAs each take one
 * or more slices. */
template <int BM, int BN, int THREADS>
struct cluster_slices {
    static constexpr int kPass = THREADS / (BN / 8);
    static constexpr int kRows = cluster_slice_rows(BM, kPass);
    static constexpr int kCount = BM / kRows;
    static_assert(BM % kRows == 0 && kRows % kPass == 0, "slices of whole epilogue passes");
};

/* A configuration as the epilogue of one slice sees it: rows kEpiBM. */
template <class Cfg>
struct cluster_slice_cfg : Cfg {
    static constexpr int kEpiBM = cluster_slices<Cfg::kBM, Cfg::kBN, Cfg::kThreads>::kRows;
};

/* The CTAs of this CTA's cluster (1 outside a cluster launch, and in
 * passes other than sm_90a's, where no entry point is launched so). */
EVT_DEVICE int cluster_ctas()
{
    unsigned n = 1;
#if EVT_SM90 == 1
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
#endif
    return (int)n;
}

#if EVT_SM90 == 1

/* The float4 at shared address `addr` of the cluster's CTA of rank `rank`. */
EVT_DEVICE float4 ld_cluster_f4(evt_u32 addr, int rank)
{
    float4 v;
    asm volatile("{\n.reg .b32 remote;\n"
                 "mapa.shared::cluster.u32 remote, %4, %5;\n"
                 "ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [remote];\n}"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(addr), "r"(rank)
                 : "memory");
    return v;
}

/* Every CTA of the cluster calls it with its partial tile at `acc` (BM rows
 * ACC_LD floats apart, the mainloop's layout, complete after its
 * __syncthreads).  Slices rank, rank + splits, ... of this CTA's tile then
 * hold the tile's sums (shares 0 .. splits - 1 added in that order); the
 * others are left as they were.  Ends when no CTA of the cluster reads
 * another's shared memory any more, so each may then reuse its own (the
 * epilogue's scratch) and exit. */
template <int BM, int BN, int THREADS, int ACC_LD>
EVT_DEVICE void cluster_split_sum(float *acc, int splits, int rank)
{
    typedef cluster_slices<BM, BN, THREADS> S;
    constexpr int kVecs = S::kRows * BN / 4, kPerRow = BN / 4;
    cluster_sync(); /* every share's partial tile is complete and visible */
    const evt_u32 base = evt_smem_addr(acc);
    for (int i = rank; i < S::kCount; i += splits)
        for (int v = (int)threadIdx.x; v < kVecs; v += THREADS) {
            const int r = i * S::kRows + v / kPerRow, c = v % kPerRow * 4;
            const evt_u32 at = base + (evt_u32)(r * ACC_LD + c) * 4u;
            /* every share's loads in flight before the first add */
            float4 u[8];
#pragma unroll
            for (int s = 0; s < 8; ++s)
                if (s < splits)
                    u[s] = ld_cluster_f4(at, s);
            float4 t = u[0];
#pragma unroll
            for (int s = 1; s < 8; ++s)
                if (s < splits) {
                    t.x = __fadd_rn(t.x, u[s].x);
                    t.y = __fadd_rn(t.y, u[s].y);
                    t.z = __fadd_rn(t.z, u[s].z);
                    t.w = __fadd_rn(t.w, u[s].w);
                }
            /* only this CTA reads its own slices: no peer sees the write */
            *reinterpret_cast<float4 *>(acc + r * ACC_LD + c) = t;
        }
    cluster_sync(); /* no peer still reads this CTA's partial tile */
}
#else
template <int BM, int BN, int THREADS, int ACC_LD>
EVT_DEVICE void cluster_split_sum(float *, int, int)
{
}
#endif

} /* namespace evt_sm90 */

#endif /* EVT_SM90_CLUSTER_SPLIT_CUH */
