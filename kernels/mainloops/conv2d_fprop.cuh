/*
 * conv2d_fprop.cuh - the implicit-GEMM conv2d forward mainloop: f16 or
 * bf16 operands, f32 accumulation, for every tile configuration: its
 * problem (evt_conv_args), its loaders (the im2col gather and the filter
 * rows by cp.async for the sm80 and wgmma pipelines; im2col and tiled TMA
 * boxes for the producer/consumer schedule) and its entry points under the
 * plain schedule (evt_conv_mainloop) and the persistent ones
 * (evt_conv_persistent).
 *
 * Problem.  Input x NHWC [n, h, wd, c], filter KRSC [k, r, s, c], output
 * NPQK [n, p, q, k] with p = (h + 2 pad_h - dil_h (r - 1) - 1) / stride_h + 1
 * and q likewise.  As a GEMM: M = n p q (output pixels), N = k,
 * K = r s c, with A[m][kk] = x at the input pixel that output pixel m sees
 * through filter tap (kk / c) and channel kk % c (zero in the padding), and
 * B[kk][j] = w[j][kk] (the filter is a dense K x RSC row-major matrix).
 * K is walked flat in (r, s, c) order, c fastest, so both operands are
 * K-contiguous ("TN") and no k tile is padded when c is not a multiple of BK
 * (the cp.async loaders).  The TMA loader walks K by tap instead: a tap's c
 * channels in k tiles of BK, the last one's channels past c zero-filled by
 * TMA in both operands (the filter's map is (c, r s, k), so a box never
 * reaches into the next tap), r s ceil(c / BK) k tiles in all.
 *
 * Interface to the epilogue: exactly the GEMM's.  When the mainloop returns,
 * the CTA's f32 accumulator tile sits at the start of its dynamic shared
 * memory as row-major float[kBM][kAccLd] (row = output pixel tile_m * kBM +
 * row, column = output channel tile_n * kBN + column), rows past M and
 * columns past N hold zeros, and a __syncthreads() has been executed.  Tiles
 * are indexed like the GEMM's (evt_tile_coord<> applies).
 *
 * Fast path (ALIGNED = true), plan_conv_aligned(): c % 8 == 0 and
 * x, w 16-byte aligned.  Each 16-byte cp.async moves 8 channels of one input
 * pixel: every thread keeps, per A row it copies, the input pixel of filter
 * tap (0, 0) and its (ih, iw) (computed once per CTA), and for its chunk
 * column the current (r, s, c) of K, advanced by BK per k tile without
 * dividing.  Padding, rows past M and k past RSC are zero-filled
 * (cp.async src-size 0).  A 1x1 stride-1 unpadded conv takes the same code
 * with the divisions of the per-CTA setup skipped.  Guarded path
 * (ALIGNED = false): element-wise loads, any c, any 2-byte-aligned x and w.
 *
 * Limits: n * h * wd and n * p * q below 2^31 (pixel indices are int);
 * element offsets (pixel * c + channel) are formed in 64 bits.
 */
#ifndef EVT_MAINLOOPS_CONV2D_FPROP_CUH
#define EVT_MAINLOOPS_CONV2D_FPROP_CUH

#include "common/tile.cuh"
#include "sched/persistent.cuh"
#include "sm90/tma.cuh"
#include "sm90/cluster_split.cuh"

/* Problem description; sizes are element counts.  80 bytes. */
struct evt_conv_args {
    const evt_u16 *x; /* NHWC input, dense */
    const evt_u16 *w; /* KRSC filter, dense */
    int n, h, wd, c, k, r, s, p, q; /* wd: input width */
    int pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;

    /* A conv launches as one problem (evt_launch_set_batch refuses more);
     * the schedules, shared with the GEMM's batches, ask. */
    __device__ __forceinline__ int batches() const { return 1; }
    __device__ __forceinline__ const evt_conv_args &at(int) const { return *this; }
};
static_assert(sizeof(evt_conv_args) == 80, "evt_conv_args is 80 bytes: the runtime packs it so");

/*
 * A tile plus operand type and path.  kAKContig / kBKContig / kDType /
 * kDTypeB are what the pipelines' fragment code reads.
 */
template <class Tile, int DT, bool ALIGNED>
struct evt_conv_cfg : Tile {
    static constexpr int kDType = DT;
    static constexpr int kDTypeB = DT;
    static constexpr int kALayout = EVT_ROW_MAJOR; /* im2col A: M x K, K-contiguous */
    static constexpr int kBLayout = EVT_COL_MAJOR; /* filter as K x N, K-contiguous */
    static constexpr bool kAKContig = true;
    static constexpr bool kBKContig = true;
    static constexpr bool kAligned = ALIGNED;


    static_assert(DT == EVT_DT_F16 || DT == EVT_DT_BF16,
                  "operand type must be EVT_DT_F16 or EVT_DT_BF16");
    static_assert(Tile::kOpBytes == 2, "conv tiles hold 16-bit operands");
};

namespace evt_conv_detail {

/*
 * Where one thread's A and B chunks go.  Both stages are [rows][BK] tiles
 * of kChunks 16-byte chunks per row (smem_tile's swizzle).  Chunk j of the
 * thread is chunk tid + j * kThreads: all of a thread's chunks share the
 * chunk column (so one k position) and sit kRowStep rows apart.
 */
template <class Cfg>
struct chunk_map {
    static constexpr int kChunks = Cfg::kBK / 8;
    static constexpr int kRowStep = Cfg::kThreads / kChunks;
    /* A and B chunks per thread per stage; where kRowStep does not divide a
     * tile (3 warpgroups), the last pass copies only the rows left. */
    static constexpr int kARows = (Cfg::kBM + kRowStep - 1) / kRowStep;
    static constexpr int kBRows = (Cfg::kBN + kRowStep - 1) / kRowStep;
    static_assert(Cfg::kThreads % kChunks == 0 && kRowStep % 8 == 0,
                  "a CTA must copy whole 8-row swizzle groups per pass");

    /* Whether pass j of this thread (tile row row0 + j kRowStep) is inside a
     * tile of R rows. */
    template <int R>
    static __device__ __forceinline__ bool in_tile(int row0, int j)
    {
        return R % kRowStep == 0 || row0 + j * kRowStep < R;
    }
    typedef evt_sm80::smem_tile<Cfg::kBM, Cfg::kBK> a_tile;
    typedef evt_sm80::smem_tile<Cfg::kBN, Cfg::kBK> b_tile;
};

/*
 * The K position (r, s, c) of this thread's chunk column in the next k tile
 * to load, kept with its input offsets: dh = r dil_h, dw = s dil_w rows and
 * columns, tap = dh wd + dw pixels.  advance() moves it by one k tile
 * without dividing; while c runs past the channel count it carries into s,
 * then r (at most once per k tile when c >= BK).
 */
struct kpos {
    int c, s, r, dh, dw, tap;

    __device__ __forceinline__ void carry(const evt_conv_args &a)
    {
        /* r < a.r also ends it for degenerate sizes (c or s of 0): past the
         * filter every k is masked anyway. */
        while (c >= a.c && r < a.r) {
            c -= a.c;
            dw += a.dil_w;
            if (++s >= a.s) {
                s = 0;
                dw = 0;
                ++r;
                dh += a.dil_h;
            }
        }
        tap = dh * a.wd + dw;
    }

    __device__ __forceinline__ void init(const evt_conv_args &a, int k0)
    {
        c = k0;
        s = r = dh = dw = 0;
        carry(a);
    }

    __device__ __forceinline__ void advance(const evt_conv_args &a, int bk)
    {
        c += bk;
        if (c >= a.c)
            carry(a);
    }
};

/* Activation (A) loader: the im2col gather. */
template <class Cfg>
struct act_loader {
    typedef chunk_map<Cfg> map;
    static constexpr int kRows = map::kARows;
    /* ih of rows past M: (unsigned)(kNoRow + dh) >= h for any dh < 2^30. */
    static constexpr int kNoRow = -(1 << 30);

    int pix[kRows]; /* input pixel index n h wd + ih0 wd + iw0 (0 for rows past M) */
    int ih0[kRows]; /* input row and column seen by tap (0, 0) */
    int iw0[kRows];
    int soff;       /* swizzled byte offset of chunk 0 in a stage */
    kpos kp;

    __device__ __forceinline__ void init(const evt_conv_args &a, int m0, int m_lim, int k0)
    {
        const int row = (int)threadIdx.x / map::kChunks;
        const int ch = (int)threadIdx.x % map::kChunks;
        soff = map::a_tile::offset(row, ch);
        kp.init(a, k0 + ch * 8);
        /* 1x1, stride 1, no padding: output pixel m is input pixel m. */
        const bool pointwise = a.r == 1 && a.s == 1 && a.stride_h == 1 && a.stride_w == 1 &&
                               a.pad_h == 0 && a.pad_w == 0 && a.p == a.h && a.q == a.wd;
        const int pq = a.p * a.q;
#pragma unroll
        for (int j = 0; j < kRows; ++j) {
            int m = m0 + row + j * map::kRowStep;
            if (m >= m_lim) {
                pix[j] = 0;
                ih0[j] = kNoRow;
                iw0[j] = 0;
            } else if (pointwise) {
                pix[j] = m;
                ih0[j] = 0;
                iw0[j] = 0;
            } else {
                int img = m / pq;
                int rem = m - img * pq;
                int oh = rem / a.q;
                int ow = rem - oh * a.q;
                ih0[j] = oh * a.stride_h - a.pad_h;
                iw0[j] = ow * a.stride_w - a.pad_w;
                pix[j] = (img * a.h + ih0[j]) * a.wd + iw0[j];
            }
        }
    }

    /* Fast path: one 16-byte cp.async per chunk (c % 8 == 0). */
    __device__ __forceinline__ void load_async(const evt_conv_args &a, evt_u32 sbase) const
    {
        const bool k_ok = kp.r < a.r;
        const int row0 = (int)threadIdx.x / map::kChunks;
#pragma unroll
        for (int j = 0; j < kRows; ++j) {
            if (!map::template in_tile<Cfg::kBM>(row0, j))
                continue;
            bool ok = k_ok && (unsigned)(ih0[j] + kp.dh) < (unsigned)a.h &&
                      (unsigned)(iw0[j] + kp.dw) < (unsigned)a.wd;
            const evt_u16 *src = a.x + (evt_i64)(pix[j] + kp.tap) * a.c + kp.c;
            evt_cp_async_16(sbase + soff + j * map::kRowStep * map::kChunks * 16, ok ? src : a.x,
                            ok);
        }
    }

    /* Slow path: element by element, each element's (r, s, c) stepped from
     * the chunk's first; zeros where the tap falls in the padding. */
    __device__ __forceinline__ void load_guarded(const evt_conv_args &a, evt_u32 sbase) const
    {
        kpos e = kp;
        const int row0 = (int)threadIdx.x / map::kChunks;
#pragma unroll 1
        for (int i = 0; i < 8; ++i) {
            const bool k_ok = e.r < a.r;
#pragma unroll
            for (int j = 0; j < kRows; ++j) {
                if (!map::template in_tile<Cfg::kBM>(row0, j))
                    continue;
                evt_u16 v = 0;
                if (k_ok && (unsigned)(ih0[j] + e.dh) < (unsigned)a.h &&
                    (unsigned)(iw0[j] + e.dw) < (unsigned)a.wd)
                    v = a.x[(evt_i64)(pix[j] + e.tap) * a.c + e.c];
                evt_st_shared_u16(sbase + soff + j * map::kRowStep * map::kChunks * 16 + 2 * i, v);
            }
            e.advance(a, 1);
        }
    }
};

/* Filter (B) loader: rows of the dense K x RSC filter, like the GEMM's
 * K-contiguous operand with ld = RSC. */
template <class Cfg>
struct filt_loader {
    typedef chunk_map<Cfg> map;
    static constexpr int kRows = map::kBRows;

    const evt_u16 *ptr; /* chunk 0 at the next k tile (row clamped into the filter) */
    evt_i64 ld;
    int n;    /* output channel of chunk 0 */
    int k;    /* K position of chunk 0 in the next k tile */
    int soff;

    __device__ __forceinline__ void init(const evt_conv_args &a, int n0, int ld_, int k0)
    {
        const int row = (int)threadIdx.x / map::kChunks;
        const int ch = (int)threadIdx.x % map::kChunks;
        soff = map::b_tile::offset(row, ch);
        ld = ld_;
        n = n0 + row;
        k = k0 + ch * 8;
        ptr = a.w + (evt_i64)(n < a.k ? n : 0) * ld + k;
    }

    __device__ __forceinline__ void advance()
    {
        ptr += Cfg::kBK;
        k += Cfg::kBK;
    }

    __device__ __forceinline__ void load_async(const evt_conv_args &a, evt_u32 sbase) const
    {
        const bool k_ok = k < ld;
        const evt_u16 *src = ptr;
        const evt_i64 step = (evt_i64)map::kRowStep * ld;
        const int row0 = (int)threadIdx.x / map::kChunks;
#pragma unroll
        for (int j = 0; j < kRows; ++j, src += step) {
            if (!map::template in_tile<Cfg::kBN>(row0, j))
                continue;
            bool ok = k_ok && n + j * map::kRowStep < a.k;
            evt_cp_async_16(sbase + soff + j * map::kRowStep * map::kChunks * 16, ok ? src : a.w,
                            ok);
        }
    }

    __device__ __forceinline__ void load_guarded(const evt_conv_args &a, evt_u32 sbase) const
    {
        const int row0 = (int)threadIdx.x / map::kChunks;
#pragma unroll 2
        for (int j = 0; j < kRows; ++j) {
            if (!map::template in_tile<Cfg::kBN>(row0, j))
                continue;
            const int nj = n + j * map::kRowStep;
            evt_u32 wd[4];
#pragma unroll
            for (int e = 0; e < 8; e += 2) {
                evt_u32 lo = 0, hi = 0;
                if (nj < a.k) {
                    const evt_u16 *p = a.w + (evt_i64)nj * ld;
                    if (k + e < ld)
                        lo = p[k + e];
                    if (k + e + 1 < ld)
                        hi = p[k + e + 1];
                }
                wd[e / 2] = lo | (hi << 16);
            }
            evt_st_shared_v4(sbase + soff + j * map::kRowStep * map::kChunks * 16, wd[0], wd[1],
                             wd[2], wd[3]);
        }
    }
};

/* The conv's k tile loads for the cp.async pipelines: both loaders step K in order. */
template <class Cfg>
struct stage_loader {
    static constexpr bool kTma = false;
    static constexpr bool kShiftN = false;
    act_loader<Cfg> a;
    filt_loader<Cfg> b;
    const evt_conv_args *args;

    /* Tile (tile_m, tile_n), from k tile kt_begin on. */
    __device__ __forceinline__ void start(const evt_conv_args &args_, int tile_m, int tile_n,
                                          int kt_begin)
    {
        const int k_gemm = args_.r * args_.s * args_.c;
        a.init(args_, tile_m * Cfg::kBM, args_.n * args_.p * args_.q, kt_begin * Cfg::kBK);
        b.init(args_, tile_n * Cfg::kBN, k_gemm, kt_begin * Cfg::kBK);
        args = &args_;
    }

    __device__ __forceinline__ void operator()(evt_u32 stage)
    {
        if (Cfg::kAligned) {
            a.load_async(*args, stage);
            b.load_async(*args, stage + Cfg::kAStageBytes);
        } else {
            a.load_guarded(*args, stage);
            b.load_guarded(*args, stage + Cfg::kAStageBytes);
        }
        a.kp.advance(*args, Cfg::kBK);
        b.advance();
    }
};

#if EVT_SM90 == 1
/*
 * The k tile loads of a TMA configuration's fast path (evt_sm90::pp_run's producer,
 * one thread): the stage's A rows are the im2col map's column of kBM output
 * pixels from the tile's first on, at filter tap (r, s) and channels c0 ..
 * c0 + kBK; its B rows the tiled filter map's box at (k0, tile_n * kBN).
 * The maps (the runtime's, api/launch.c) put the box's lower corner at
 * minus the padding and the upper at padding - (filter - 1) dilation, step
 * by the stride, and zero-fill what falls outside the input or past the
 * last image or filter; so a load starts where the first pixel's window
 * does and is offset by the tap times the dilation.  c % kBK == 0: a k tile
 * never straddles two taps.
 */
template <class Cfg>
struct tma_loader {
    static constexpr bool kTma = true;
    static constexpr bool kShiftN = false; /* (the conv's tiles keep their columns) */
    const evt_tma_maps *maps;
    int w0, h0, n0, col0; /* the tile's first window, filter row */
    int c0, r, s;         /* the next k tile: its first channel and its tap */
    int c, sz, dil_h, dil_w;

    /* kt_begin: the first k tile, past 0 for a stream-K piece (a tap's
     * ceil(c / BK) k tiles, taps in (r, s) order, as issue steps them) */
    __device__ __forceinline__ void start(const evt_conv_args &a, int tile_m, int tile_n, int kt_begin)
    {
        const int m0 = tile_m * Cfg::kBM, pq = a.p * a.q;
        n0 = m0 / pq;
        const int rem = m0 - n0 * pq, p0 = rem / a.q, q0 = rem - p0 * a.q;
        h0 = p0 * a.stride_h - a.pad_h;
        w0 = q0 * a.stride_w - a.pad_w;
        col0 = tile_n * Cfg::kBN;
        const int c_tiles = (a.c + Cfg::kBK - 1) / Cfg::kBK, tap = kt_begin / c_tiles;
        c0 = (kt_begin - tap * c_tiles) * Cfg::kBK;
        r = tap / a.s;
        s = tap - r * a.s;
        c = a.c;
        sz = a.s;
        dil_h = a.dil_h;
        dil_w = a.dil_w;
    }

    /* Stage `stage` <- the next k tile; completes on mbarrier `full`. */
    __device__ __forceinline__ void issue(evt_u32 stage, evt_u32 full)
    {
        evt_sm90::mbar_arrive_expect_tx(full, Cfg::kStageBytes);
        const unsigned short ow = (unsigned short)(s * dil_w), oh = (unsigned short)(r * dil_h);
        evt_sm90::tma_load_im2col_4d(stage, &maps->a, full, c0, w0, h0, n0, ow, oh);
        if constexpr (Cfg::kCluster > 1) { /* the filters, a share each CTA of the cluster */
            const evt_sm90::b_share<Cfg> share;
            evt_sm90::tma_load_3d_multicast(share.dst(stage), &maps->b, full, c0, r * sz + s, col0 + share.row(),
                                            share.ctas());
        } else {
            evt_sm90::tma_load_3d(stage + Cfg::kAStageBytes, &maps->b, full, c0, r * sz + s, col0);
        }
        c0 += Cfg::kBK;
        if (c0 >= c) {
            c0 = 0;
            if (++s == sz) {
                s = 0;
                ++r;
            }
        }
    }
};
#endif

} /* namespace evt_conv_detail */

/*
 * The mainloop: accumulate output tile (tile_m, tile_n) over share `share`
 * of `shares` of the k tiles of K = r s c (all by default) and leave it in
 * smem as float[Cfg::kBM][Cfg::kAccLd] (see the top of this file).  All
 * Cfg::kThreads threads must call it; smem must be at least
 * Cfg::kSmemBytes of dynamic shared memory, 128-byte aligned.  The pipeline
 * is evt_sched::run_mainloop; k tiles are loaded strictly in order,
 * which is what lets the loaders step K incrementally from the share's first.
 */
template <class Cfg>
__device__ __forceinline__ void evt_conv_mainloop(const evt_conv_args &args, int tile_m,
                                                       int tile_n, unsigned char *smem,
                                                       int share = 0, int shares = 1)
{
    const int tid = threadIdx.x;
    const int k_gemm = args.r * args.s * args.c;
    int kt_begin;
    const int k_tiles = evt_k_share((k_gemm + Cfg::kBK - 1) / Cfg::kBK, share, shares, &kt_begin);

    evt_conv_detail::stage_loader<Cfg> load;
    load.start(args, tile_m, tile_n, k_tiles ? kt_begin : 0);
    evt_sched::run_mainloop<Cfg>(k_tiles, load, smem, tid);
}

/* The conv under a persistent schedule (evt_sched::ws_run); a
 * producer/consumer configuration's fast path loads with the TMA maps.
 * Tiles from tile_end on are left to the tail's split-K entries (plan.h);
 * sk: stream-K, which the cooperative configurations take (evt_stream_k),
 * its k tiles those the schedule walks: the TMA path's tap by tap (a tap's
 * last one zero-filled past c), the guarded path's over K = r s c. */
template <class Cfg, class Epi>
__device__ __forceinline__ void evt_conv_persistent(const evt_conv_args &args0, unsigned char *smem,
                                                 const Epi &epi, const evt_tma_maps *maps = nullptr,
                                                 int tile_end = 0x7fffffff,
                                                 const evt_stream_k &sk = evt_sk_none())
{
    const evt_tile_limited<evt_conv_args> args = evt_tile_limit(args0, tile_end, sk);
    const int k_gemm = args.r * args.s * args.c;
    const int m = args.n * args.p * args.q, k_tiles = (k_gemm + Cfg::kBK - 1) / Cfg::kBK;
    (void)maps;
#if EVT_SM90 == 1
    if constexpr (Cfg::kPP > 0 && Cfg::kAligned) { /* producer/consumer fast path: TMA */
        evt_conv_detail::tma_loader<Cfg> load;
        load.maps = maps;
        /* a k tile per tap and BK channels, the last ones of a tap zero-filled where BK does not divide c */
        const int tap_tiles = args.r * args.s * ((args.c + Cfg::kBK - 1) / Cfg::kBK);
        evt_sched::ws_run<Cfg>(args, m, args.k, tap_tiles, smem, epi, load);
    } else
#endif
    {
        evt_sched::ws_run<Cfg, evt_conv_detail::stage_loader<Cfg> >(
            args, m, args.k, k_tiles, smem, epi);
    }
}

#endif /* EVT_MAINLOOPS_CONV2D_FPROP_CUH */
