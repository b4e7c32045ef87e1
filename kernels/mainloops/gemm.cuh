/*
 * gemm.cuh - the GEMM mainloop: D_tile = A[M,K] * B[K,N] with f16 or bf16
 * operands, or fp8 ones (e4m3, e5m2, mixed; A row-major and B
 * column-major, fp8 tile configurations only), and f32 accumulation, for every tile configuration: its problem
 * (evt_gemm_args), its operand loaders (cp.async chunks for the sm80 and
 * wgmma pipelines, TMA boxes for the producer/consumer schedule) and its
 * entry points under the plain schedule (evt_gemm_mainloop) and the
 * persistent ones (evt_gemm_persistent).
 *
 * Interface to the epilogue.  The mainloop never exposes its register
 * layout.  When evt_gemm_mainloop<Cfg>() returns, the CTA's f32
 * accumulator tile sits at the start of the dynamic shared memory it was
 * given, as a row-major float[Cfg::kBM][Cfg::kAccLd] array, and a
 * __syncthreads() has been executed.  Element (r, c) of the tile is output
 * element (tile_m * kBM + r, tile_n * kBN + c); rows and columns past M or
 * N hold zeros and must not be stored.  Bytes from Cfg::kAccBytes up to
 * Cfg::kSmemBytes are free for the epilogue.
 *
 * Operand conventions: A is M x K, B is K x N.  A row-major and B
 * column-major (the nn.Linear "TN" case) are the K-contiguous layouts; A
 * column-major and B row-major are M/N-contiguous.  wgmma configurations
 * read 16-bit M/N-contiguous operands MN-major (the transposed wgmma;
 * evt_sm80::wgmma_mn_tile, evt_sm90::wgmma_desc_mn); fp8 operands are
 * K-contiguous only.
 *
 * Fast path (Aligned = true) requires, per operand, that its contiguous
 * extent and its leading dimension be multiples of 16 bytes (8 16-bit
 * elements, 16 fp8 ones) and its base pointer 16-byte aligned
 * (plan_gemm_aligned() tests exactly this).  Aligned = false loads element
 * by element with bounds checks; it is correct for any M, N, K >= 0, any
 * ld >= the contiguous extent and any pointer aligned to its element.  Ragged tile edges in M, N and K
 * are handled by both paths (zero fill).
 */
#ifndef EVT_MAINLOOPS_GEMM_CUH
#define EVT_MAINLOOPS_GEMM_CUH

#include "common/tile.cuh"
#include "sched/persistent.cuh"
#include "sm90/tma.cuh"
#include "sm90/cluster_split.cuh"
#include "common/repack.cuh"

/*
 * Problem description.  Pointers are to the operands' storage: evt_u16
 * (f16, bf16) or evt_u8 (fp8), by the configuration's kOpBytes.  A batch
 * (evt_launch_set_batch) is `batch` problems of one m, n, k: problem l's
 * operands start stride_a and stride_b bytes after problem l - 1's (0:
 * one operand shared by the batch; the runtime packs 0 for a batch of one).
 * at(l) is problem l's own description, and index the problem a
 * description is of (0 as packed): the TMA loader reads a batched operand's
 * rank-3 map at it.  72 bytes.
 */
struct evt_gemm_args {
    const void *a; /* M x K, layout per Cfg::kALayout */
    const void *b; /* K x N, layout per Cfg::kBLayout */
    int m, n, k;
    evt_i64 lda, ldb; /* in elements */
    evt_i64 stride_a, stride_b; /* batch strides, in bytes (the operands' element sizes differ) */
    int batch, index;

    __device__ __forceinline__ int batches() const { return batch; }
    __device__ __forceinline__ evt_gemm_args at(int l) const
    {
        evt_gemm_args r = *this;
        r.a = static_cast<const char *>(a) + (evt_i64)l * stride_a;
        r.b = static_cast<const char *>(b) + (evt_i64)l * stride_b;
        r.index = l;
        return r;
    }
};
static_assert(sizeof(evt_gemm_args) == 72, "evt_gemm_args is 72 bytes: the runtime packs it so");

/* The storage of an operand element of BYTES bytes. */
template <int BYTES> struct evt_operand_storage { typedef evt_u16 type; };
template <> struct evt_operand_storage<1> { typedef evt_u8 type; };

/* DT is A's type, DT_B B's (the same but for mixed fp8: e4m3 x e5m2). */
template <class Tile, int DT, int A_LAYOUT, int B_LAYOUT, bool ALIGNED, int DT_B = DT>
struct evt_gemm_cfg : Tile {
    static constexpr int kDType = DT;
    static constexpr int kDTypeB = DT_B;
    static constexpr int kALayout = A_LAYOUT;
    static constexpr int kBLayout = B_LAYOUT;
    static constexpr bool kAligned = ALIGNED;
    static constexpr bool kAKContig = A_LAYOUT == EVT_ROW_MAJOR;
    static constexpr bool kBKContig = B_LAYOUT == EVT_COL_MAJOR;

    static_assert(((DT == EVT_DT_F16 || DT == EVT_DT_BF16) && DT_B == DT && Tile::kOpBytes == 2) ||
                      (EVT_DT_IS_FP8(DT) && EVT_DT_IS_FP8(DT_B) && Tile::kOpBytes == 1),
                  "operands: both f16 or both bf16 on a 16-bit tile, or fp8 (e4m3, e5m2) on an "
                  "fp8 tile");
    static_assert(Tile::kOpBytes == 2 || (A_LAYOUT == EVT_ROW_MAJOR && B_LAYOUT == EVT_COL_MAJOR),
                  "fp8 operands are K-contiguous: A row-major, B column-major");
    static_assert(A_LAYOUT == EVT_ROW_MAJOR || A_LAYOUT == EVT_COL_MAJOR, "bad A layout");
    static_assert(B_LAYOUT == EVT_ROW_MAJOR || B_LAYOUT == EVT_COL_MAJOR, "bad B layout");
};

namespace evt_gemm_detail {

/*
 * Per-thread state of one operand's global->shared copy.  Chunk j of this
 * thread is chunk tid + j * kThreads of the stage.  Where kThreads is a
 * multiple of a row's chunks (kWhole), all of a thread's chunks share the
 * chunk column, and chunk j sits kRowStep * j rows below chunk 0: one base
 * pointer describes them all (and one shared offset, where the row step is
 * whole 8-row swizzle groups).  For K-contiguous operands a row is an M/N
 * index fixed for the whole K loop; otherwise a row is a k index and the
 * chunk spans 8 M/N positions.  An M/N-contiguous operand whose rows hold
 * a number of chunks that does not divide kThreads (the 192-wide tile's B:
 * 24 chunks a k row, 128 producer threads) finds each chunk's row and
 * column from its number (chunk_at).
 */
template <class Cfg, bool A>
struct loader {
    typedef evt_sm80::operand<Cfg, A> op;
    typedef typename evt_operand_storage<Cfg::kOpBytes>::type elem;
    static constexpr int kChunkElems = 16 / Cfg::kOpBytes; /* elements of a 16-byte chunk */
    static constexpr bool kWhole = Cfg::kThreads % op::tile::kChunks == 0;
    static constexpr int kRowStep = kWhole ? Cfg::kThreads / op::tile::kChunks : 0;
    /* With a row step of whole 8-row swizzle groups a thread's chunks share
     * their swizzle and one offset steps through them; the cooperative
     * tiles' MN-major operands (the 128x256 tile's A: 256 positions, 32
     * chunks a row, 128 producer threads: steps of 4 rows; the 128x192
     * tile's B, not whole rows) swizzle each chunk themselves. */
    static constexpr bool kOneSwizzle = kWhole && kRowStep % 8 == 0;
    static_assert(kOneSwizzle || op::kWgmmaMN, "a CTA must copy whole 8-row swizzle groups per pass");

    const elem *base; /* matrix base, for the guarded path */
    const elem *ptr;  /* first element of chunk 0 at k tile 0 (clamped into the matrix) */
    evt_i64 ld;
    int soff; /* swizzled byte offset of chunk 0 in a stage */
    int srow, sch; /* chunk 0's row and chunk in the stage (for !kOneSwizzle) */
    int mn;   /* M/N index of chunk 0's first element */
    int kpos; /* k of chunk 0's first element at k tile 0 */
    int mn_lim, k_lim;

    __device__ __forceinline__ void init(const void *base_, evt_i64 ld_, int mn0, int mn_lim_,
                                         int k_lim_)
    {
        base = static_cast<const elem *>(base_);
        ld = ld_;
        mn_lim = mn_lim_;
        k_lim = k_lim_;
        if constexpr (!kWhole) { /* M/N-contiguous: chunk_at finds each chunk */
            mn = mn0;
            kpos = 0;
            srow = sch = soff = 0;
            ptr = base;
            return;
        }
        int row = (int)threadIdx.x / op::tile::kChunks;
        int ch = (int)threadIdx.x % op::tile::kChunks;
        soff = op::tile::offset(row, ch);
        srow = row;
        sch = ch;
        if (op::kKContig) {
            mn = mn0 + row;
            kpos = ch * kChunkElems;
            ptr = base + (evt_i64)(mn < mn_lim ? mn : 0) * ld + kpos;
        } else {
            mn = mn0 + ch * 8;
            kpos = row;
            ptr = base + (evt_i64)kpos * ld + (mn < mn_lim ? mn : 0);
        }
    }

    /* Where rows are not whole passes (!kWhole, M/N-contiguous): chunk j's
     * k row in the tile and its first M/N index. */
    __device__ __forceinline__ void chunk_at(int j, int &row, int &m0) const
    {
        const int c = (int)threadIdx.x + j * Cfg::kThreads;
        row = c / op::tile::kChunks;
        m0 = mn + c % op::tile::kChunks * 8;
    }

    /* The shared byte offset of the chunk r rows below chunk 0. */
    __device__ __forceinline__ int soff_at(int r) const
    {
        if constexpr (kOneSwizzle)
            return soff + r * op::tile::kRowBytes;
        else
            return op::tile::offset(srow + r, sch);
    }

    /* Fast path: 16-byte cp.async per chunk, zero-filled outside the matrix. */
    __device__ __forceinline__ void load_async(evt_u32 sbase, int kt) const
    {
        /* (only a producer/consumer tile's guarded path has rows that are
         * not whole passes, and it loads with load_guarded) */
        static_assert(kWhole, "cp.async pipelines copy whole rows of chunks per pass");
        const elem *src = op::kKContig ? ptr + kt * Cfg::kBK : ptr + (evt_i64)kt * Cfg::kBK * ld;
        const evt_i64 step = (evt_i64)kRowStep * ld; /* one running pointer: fewer live registers */
#pragma unroll
        for (int j = 0; j < op::kPerThread; ++j, src += step) {
            int r = j * kRowStep;
            bool ok = op::kKContig ? mn + r < mn_lim && kt * Cfg::kBK + kpos < k_lim
                                   : mn < mn_lim && kt * Cfg::kBK + kpos + r < k_lim;
            evt_cp_async_16(sbase + soff_at(r), ok ? src : base, ok);
        }
    }

    /* Slow path: 8 guarded 2-byte loads per chunk (16 1-byte ones for fp8),
     * then one 16-byte store.  Two chunks at a time: fully unrolled, the
     * loads of all chunks would be hoisted together and spill. */
    __device__ __forceinline__ void load_guarded(evt_u32 sbase, int kt) const
    {
#pragma unroll 2
        for (int j = 0; j < op::kPerThread; ++j) {
            int r = j * kRowStep;
            int k0 = kt * Cfg::kBK + kpos + (op::kKContig ? 0 : r);
            int m0 = mn + (op::kKContig ? r : 0);
            evt_u32 soff_j = 0;
            if constexpr (!kWhole) { /* (M/N-contiguous) */
                int row;
                chunk_at(j, row, m0);
                k0 = kt * Cfg::kBK + row;
                soff_j = op::tile::offset(row, (m0 - mn) / 8);
            } else {
                soff_j = soff_at(r);
            }
            evt_u32 w[4] = {0, 0, 0, 0};
            if constexpr (Cfg::kOpBytes == 1) { /* K-contiguous (evt_gemm_cfg) */
                if (m0 < mn_lim) {
                    const elem *p = base + (evt_i64)m0 * ld;
#pragma unroll
                    for (int e = 0; e < 16; ++e)
                        if (k0 + e < k_lim)
                            w[e / 4] |= (evt_u32)p[k0 + e] << (8 * (e % 4));
                }
                evt_st_shared_v4(sbase + soff_j, w[0], w[1], w[2], w[3]);
                continue;
            }
#pragma unroll
            for (int e = 0; e < 8; e += 2) {
                evt_u32 lo = 0, hi = 0;
                if (op::kKContig) {
                    if (m0 < mn_lim) {
                        const elem *p = base + (evt_i64)m0 * ld;
                        if (k0 + e < k_lim)
                            lo = p[k0 + e];
                        if (k0 + e + 1 < k_lim)
                            hi = p[k0 + e + 1];
                    }
                } else if (k0 < k_lim) {
                    const elem *p = base + (evt_i64)k0 * ld;
                    if (m0 + e < mn_lim)
                        lo = p[m0 + e];
                    if (m0 + e + 1 < mn_lim)
                        hi = p[m0 + e + 1];
                }
                w[e / 2] = lo | (hi << 16);
            }
            evt_st_shared_v4(sbase + soff_j, w[0], w[1], w[2], w[3]);
        }
    }
};



/* The GEMM's k tile loads for the cp.async pipelines: A and B of k tile kt,
 * then kt + 1, ... */
template <class Cfg>
struct stage_loader {
    static constexpr bool kTma = false;
    static constexpr bool kShiftN = false;
    loader<Cfg, true> a;
    loader<Cfg, false> b;
    int kt;

    /* Tile (tile_m, tile_n), from k tile kt_begin on. */
    __device__ __forceinline__ void start(const evt_gemm_args &args, int tile_m, int tile_n,
                                          int kt_begin)
    {
        a.init(args.a, args.lda, tile_m * Cfg::kBM, args.m, args.k);
        b.init(args.b, args.ldb, tile_n * Cfg::kBN, args.n, args.k);
        kt = kt_begin;
    }

    __device__ __forceinline__ void operator()(evt_u32 stage)
    {
        if constexpr (Cfg::kAligned) {
            a.load_async(stage, kt);
            b.load_async(stage + Cfg::kAStageBytes, kt);
        } else {
            a.load_guarded(stage, kt);
            b.load_guarded(stage + Cfg::kAStageBytes, kt);
        }
        ++kt;
    }
};

#if EVT_SM90 == 1
/* The k tile loads of a producer/consumer GEMM's fast path (evt_sm90::pp_run's
 * producer, one thread): the runtime's tiled TMA maps of A (K x M) and B
 * (K x N) where K-contiguous, boxes of kBK x kBM and kBK x kBN, zero-filled
 * past M, N and K; an M/N-contiguous operand's map is (M or N) x K, read in
 * boxes of 64 x kBK (mn_boxes).  An operand that differs per problem of a batch (a
 * nonzero batch stride) has a rank-3 map (K x M x batch), read at the
 * problem's index; a shared one, and both of a batch of one, rank 2.
 * Under clusters the stage's bytes arrive from every CTA of the cluster:
 * each CTA's full mbarrier still counts kStageBytes. */
template <class Cfg>
struct tma_loader {
    static constexpr bool kTma = true;
    /* a tile's B columns may start anywhere (evt_sm90::tile_col): col0 is
     * a TMA coordinate, and what a box holds past N is zero-filled */
    static constexpr bool kShiftN = true;
    const evt_tma_maps *maps;
    int row0, col0, k0;
    int za, zb; /* the problem in A's and B's rank-3 maps; -1: rank 2 */

    /* Tile (tile_m, tile_n), from k tile kt_begin on (a stream-K piece's first). */
    __device__ __forceinline__ void start(const evt_gemm_args &args, int tile_m, int tile_n, int kt_begin)
    {
        row0 = tile_m * Cfg::kBM;
        col0 = tile_n * Cfg::kBN;
        k0 = kt_begin * Cfg::kBK;
        za = args.stride_a ? args.index : -1;
        zb = args.stride_b ? args.index : -1;
    }

    /* An M/N-contiguous operand's stage (A column-major, B row-major): its
     * map is (M or N, K[, batch]), M/N contiguous, and a 128-byte-swizzled
     * box holds at most 64 16-bit positions of a k row, so R / 64 boxes of
     * 64 x kBK at (mn0 + 64 b, k0), box b at b * kBK * 128 bytes: wgmma's
     * MN-major layout (evt_sm90::wgmma_desc_mn).  A box wholly past M or N
     * is zero-filled and still counts its bytes. */
    template <int R>
    __device__ __forceinline__ void mn_boxes(evt_u32 dst, const evt_tma_map *map, evt_u32 full,
                                             int mn0, int z) const
    {
        static_assert(Cfg::kOpBytes == 2 && R % 64 == 0, "MN-major boxes: 64 16-bit positions");
#pragma unroll
        for (int b = 0; b < R / 64; ++b) {
            if (z < 0)
                evt_sm90::tma_load_2d(dst + b * Cfg::kBK * 128, map, full, mn0 + 64 * b, k0);
            else
                evt_sm90::tma_load_3d(dst + b * Cfg::kBK * 128, map, full, mn0 + 64 * b, k0, z);
        }
    }

    __device__ __forceinline__ void issue(evt_u32 stage, evt_u32 full)
    {
        evt_sm90::mbar_arrive_expect_tx(full, Cfg::kStageBytes);
        if constexpr (!Cfg::kAKContig)
            mn_boxes<Cfg::kBM>(stage, &maps->a, full, row0, za);
        else if (za < 0)
            evt_sm90::tma_load_2d(stage, &maps->a, full, k0, row0);
        else
            evt_sm90::tma_load_3d(stage, &maps->a, full, k0, row0, za);
        if constexpr (Cfg::kCluster > 1) {
            static_assert(Cfg::kBKContig, "clusters multicast K-contiguous B tiles only");
            const evt_sm90::b_share<Cfg> share;
            if (zb < 0)
                evt_sm90::tma_load_2d_multicast(share.dst(stage), &maps->b, full, k0, col0 + share.row(),
                                                share.ctas());
            else
                evt_sm90::tma_load_3d_multicast(share.dst(stage), &maps->b, full, k0, col0 + share.row(), zb,
                                                share.ctas());
        } else if constexpr (!Cfg::kBKContig) {
            mn_boxes<Cfg::kBN>(stage + Cfg::kAStageBytes, &maps->b, full, col0, zb);
        } else if (zb < 0) {
            evt_sm90::tma_load_2d(stage + Cfg::kAStageBytes, &maps->b, full, k0, col0);
        } else {
            evt_sm90::tma_load_3d(stage + Cfg::kAStageBytes, &maps->b, full, k0, col0, zb);
        }
        k0 += Cfg::kBK;
    }
};
#endif

} /* namespace evt_gemm_detail */

/*
 * The mainloop: accumulate the (tile_m, tile_n) output tile over share
 * `share` of `shares` of K's k tiles (all of K by default; split-K entry
 * points give each CTA a share) and leave it in smem as
 * float[Cfg::kBM][Cfg::kAccLd] (see the top of this file).  All
 * Cfg::kThreads threads of the CTA must call it; smem must be at least
 * Cfg::kSmemBytes of dynamic shared memory, 128-byte aligned.  The pipeline
 * is evt_sched::run_mainloop's.
 */
template <class Cfg>
__device__ __forceinline__ void evt_gemm_mainloop(const evt_gemm_args &args, int tile_m,
                                                  int tile_n, unsigned char *smem, int share = 0,
                                                  int shares = 1)
{
    const int tid = threadIdx.x;
    int kt_begin;
    const int k_tiles = evt_k_share((args.k + Cfg::kBK - 1) / Cfg::kBK, share, shares, &kt_begin);

    evt_gemm_detail::stage_loader<Cfg> load;
    load.start(args, tile_m, tile_n, kt_begin);
    evt_sched::run_mainloop<Cfg>(k_tiles, load, smem, tid);
}

/* The GEMM under a persistent schedule (evt_sched::ws_run); a
 * producer/consumer configuration's fast path loads with the TMA maps.
 * Tiles from tile_end on are left to the tail's split-K entries (plan.h);
 * sk: stream-K, which the cooperative configurations take (evt_stream_k). */
template <class Cfg, class Epi>
__device__ __forceinline__ void evt_gemm_persistent(const evt_gemm_args &args0, unsigned char *smem,
                                                 const Epi &epi, const evt_tma_maps *maps = nullptr,
                                                 int tile_end = 0x7fffffff,
                                                 const evt_stream_k &sk = evt_sk_none())
{
    const evt_tile_limited<evt_gemm_args> args = evt_tile_limit(args0, tile_end, sk);
    const int k_tiles = (args.k + Cfg::kBK - 1) / Cfg::kBK;
    (void)maps;
#if EVT_SM90 == 1
    if constexpr (Cfg::kPP > 0 && Cfg::kAligned) {
        evt_gemm_detail::tma_loader<Cfg> load;
        load.maps = maps;
        evt_sched::ws_run<Cfg>(args, args.m, args.n, k_tiles, smem, epi, load);
    } else
#endif
    {
        evt_sched::ws_run<Cfg, evt_gemm_detail::stage_loader<Cfg> >(args, args.m, args.n,
                                                                              k_tiles, smem, epi);
    }
}

#endif /* EVT_MAINLOOPS_GEMM_CUH */
