/*
 * tiles.cuh - tile scheduling, shared by every mainloop and architecture:
 * which output tile a CTA computes (evt_tile_coord), the share of K a
 * split-K CTA takes (evt_k_share) and how the partial tiles meet
 * (evt_split_store, evt_split_sum), the stream of k tiles a persistent CTA
 * walks over its tiles (evt_sched::tile_stream), and the named barriers of
 * the persistent schedules.
 */
#ifndef EVT_SCHED_TILES_CUH
#define EVT_SCHED_TILES_CUH

#include "common/evt_common.cuh"

/*
 * CTA index -> output tile; returns the problem of a batch it belongs to.
 * A batch's problems take the tile indices one after the other (problem l
 * has tiles l * T .. l * T + T - 1, T the tiles of one m x n problem): one
 * division per tile, and every schedule (plain, split-K, persistent) walks
 * a batch as it walks one problem.  Within a problem tiles are walked in
 * groups of GROUP_M tile-rows: down a group's column of GROUP_M M-tiles,
 * then to the next N column, so the CTAs resident at once share a few A
 * row-panels and B column-panels in L2.  GROUP_M = 1 is plain row-by-row
 * order.  The runtime keeps a batch's tiles below 2^31.
 */
#define EVT_TILE_GROUP_M 8
template <class Cfg, int GROUP_M = EVT_TILE_GROUP_M>
__host__ __device__ __forceinline__ int evt_tile_coord(int tile_id, int m, int n, int *tile_m, int *tile_n)
{
    const int group_m = GROUP_M;
    int tiles_m = (m + Cfg::kBM - 1) / Cfg::kBM;
    int tiles_n = (n + Cfg::kBN - 1) / Cfg::kBN;
    const int batch = tile_id / (tiles_m * tiles_n);
    tile_id -= batch * (tiles_m * tiles_n);
    int per_group = group_m * tiles_n;
    int group = tile_id / per_group;
    int first_m = group * group_m;
    int rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
    int in_group = tile_id - group * per_group;
    *tile_m = first_m + in_group % rows;
    *tile_n = in_group / rows;
    return batch;
}

/*
 * Division by a divisor d >= 1 fixed for the kernel's run, of numbers
 * below 2^31: a multiply-high, an add and a shift (the round-up method of
 * Granlund and Montgomery) in place of the 20-odd instructions of a
 * division by a run-time value.  A persistent CTA walks tile after tile,
 * and under the direct epilogue the walk's divisions were a tenth of a
 * consumer warp's instructions at short K (docs/sm90.md, session 58).
 * tests/codegen/fastdiv.cu checks it against `/` and `%`.
 */
struct evt_fastdiv {
    unsigned d, mul, shift;
    /* Every thread of a CTA makes its walk's dividers before its first
     * tile, the producer before its first load, so the multiplier avoids
     * the 64-bit integer division (a long subroutine): floor(2^(32 + l) /
     * d) as a double quotient, which is off only where it rounds up to the
     * next integer (d above 2^21), then corrected with an exact product. */
    __host__ __device__ __forceinline__ explicit evt_fastdiv(unsigned divisor = 1) : d(divisor)
    {
#if defined(__CUDA_ARCH__)
        shift = d > 1 ? 32 - __clz(d - 1) : 0; /* ceil(log2 d) */
#else
        shift = 0;
        while ((1ull << shift) < d)
            ++shift;
#endif
        const unsigned long long num = 1ull << (32 + shift); /* 2^(32 + l) <= 2^63 */
        /* (d = 0, an empty problem's walk: no tile to divide; kept finite) */
        unsigned long long q = (unsigned long long)((double)num / (double)(d ? d : 1));
        if (q * d > num)
            --q;
        mul = (unsigned)(q - (1ull << 32) + 1); /* floor(2^32 (2^l - d) / d) + 1 */
    }
    __host__ __device__ __forceinline__ int div(int x) const
    {
#if defined(__CUDA_ARCH__)
        const unsigned hi = __umulhi((unsigned)x, mul);
#else
        const unsigned hi = (unsigned)(((unsigned long long)(unsigned)x * mul) >> 32);
#endif
        return (int)((hi + (unsigned)x) >> shift);
    }
};

/* evt_tile_coord with its run-time divisions precomputed (evt_tile_walk's):
 * the same tiles for the same numbers. */
template <int GROUP_M>
struct evt_tile_order {
    int tiles_m, tiles_n;
    evt_fastdiv per_problem, per_group; /* tiles_m tiles_n, GROUP_M tiles_n */

    __host__ __device__ __forceinline__ evt_tile_order() : tiles_m(0), tiles_n(0) {}
    __host__ __device__ __forceinline__ evt_tile_order(int tm, int tn)
        : tiles_m(tm), tiles_n(tn), per_problem((unsigned)(tm * tn)), per_group((unsigned)(GROUP_M * tn))
    {
    }

    __host__ __device__ __forceinline__ int coord(int tile_id, int *tile_m, int *tile_n) const
    {
        const int batch = per_problem.div(tile_id);
        tile_id -= batch * (int)per_problem.d;
        const int group = per_group.div(tile_id);
        const int first_m = group * GROUP_M;
        const int in_group = tile_id - group * (int)per_group.d;
        if (tiles_m - first_m >= GROUP_M) { /* a whole group: GROUP_M a constant */
            *tile_m = first_m + in_group % GROUP_M;
            *tile_n = in_group / GROUP_M;
        } else { /* the last group, of fewer rows: its tiles alone divide at run time */
            const int rows = tiles_m - first_m;
            *tile_m = first_m + in_group % rows;
            *tile_n = in_group / rows;
        }
        return batch;
    }
};

/* The order of an m x n problem's tiles of Cfg (stacked ROWS rows high) */
template <class Cfg, int ROWS = Cfg::kBM>
__host__ __device__ __forceinline__ evt_tile_order<EVT_TILE_GROUP_M> evt_tile_order_of(int m, int n)
{
    return evt_tile_order<EVT_TILE_GROUP_M>((m + ROWS - 1) / ROWS, (n + Cfg::kBN - 1) / Cfg::kBN);
}

/*
 * Stream-K (plan.h, plan.sk_iters; the cooperative GEMM tiles of sm_90a,
 * evt_sm90::coop_run): a persistent launch of G units runs its tiles before
 * `first` whole, G at a time, and splits the k tiles of the tiles from
 * `first` on (`iters` of them, k tile kt of tile first + i being number
 * i * k_tiles + kt) into G ranges, unit b taking numbers iters * b / G up to
 * iters * (b + 1) / G.  A unit is a CTA, or under clusters a cluster, whose
 * CTAs take the same ranges of their stacks (evt_tile_walk: tiles are
 * stacks there), each its own tile of the stack.  A range's first piece of
 * a tile may begin past the tile's first k tile: each CTA of that unit
 * writes its partial sums to its slot of `partials` (BM x BN floats, in its
 * threads' register order) and counts its consumer warps on its flag; the
 * CTA of the same rank in the unit whose range holds the tile's first k
 * tile (its range's last piece) waits for the later pieces' flags, adds
 * their slots in unit order (a fixed order: results do not depend on
 * timing), runs the epilogue once and leaves the flags zero again.  Every
 * CTA writes one slot at most, first thing, and waits only at its end, for
 * CTAs after it: no CTA waits for one that waits.  The runtime zeroes the
 * flags where it cannot know them zero, and under clusters launches no more
 * of them than can be resident at once.  iters 0: no stream-K, every tile
 * whole.
 */
struct evt_stream_k {
    float *partials;
    unsigned *flags;
    evt_i64 iters;
    int first;
    int pad;
};
static_assert(sizeof(evt_stream_k) == 32, "evt_stream_k is 32 bytes: the runtime packs it so");

/* The first k-tile number of unit b's stream-K range of `units`
 * (evt_stream_k; the planner keeps iters below 2^31). */
__device__ __forceinline__ int evt_sk_start(const evt_stream_k &sk, int b, int units)
{
    return (int)(sk.iters * b / (evt_i64)units);
}

/* The consumer warps of a stream-K tile (evt_sm90::coop_run) count on their
 * slot's flag; the finishing CTA's warps then count in kSkRead steps, and
 * the last of them zeroes it.  CTA b's flag is word kSkFlagStride * b, a
 * 128-byte line of its own, so that one CTA's counting and another's
 * polling do not meet on a line. */
constexpr unsigned kSkWarps = 8; /* a cooperative CTA's consumer warps */
constexpr unsigned kSkRead = 0x100u;
constexpr int kSkFlagStride = 32;

/*
 * Calls piece(t, j, k0, k1) for every piece of work of a persistent
 * CTA in order: its whole tiles before sk.first (walk's tiles, or stacks),
 * then its unit's stream-K range's pieces (walk.first the unit, walk.step
 * the units), tile t's k tiles k0 .. k1 - 1; j counts them.
 */
template <class Walk, class Piece>
__device__ __forceinline__ void evt_sk_pieces(const Walk &walk, const evt_stream_k &sk, int k_tiles,
                                              const Piece &piece)
{
    /* one loop, so that the piece's code (mainloop and epilogue) is inlined once */
    const int whole_end = walk.count < sk.first ? walk.count : sk.first;
    const bool shared = sk.iters > 0 && k_tiles > 0;
    int it = shared ? evt_sk_start(sk, walk.first, walk.step) : 0;
    const int end = shared ? evt_sk_start(sk, walk.first + 1, walk.step) : 0;
    for (int t = walk.first, j = 0;; ++j) {
        int tile, k0 = 0, k1 = k_tiles;
        if (t < whole_end) {
            tile = t;
            t += walk.step;
        } else if (it < end) {
            tile = sk.first + it / k_tiles;
            k0 = it % k_tiles;
            k1 = end - it < k_tiles - k0 ? k0 + (end - it) : k_tiles;
            it += k1 - k0;
        } else {
            break;
        }
        piece(tile, j, k0, k1);
    }
}

/*
 * A persistent launch may stop before the problem's last tile: the tiles
 * from tile_end on (the last wave's, split along K) are the tail's, which
 * the split-K entries of a configuration of the same tile shape run
 * (plan.h, plan.tail_*).  The schedules take their arguments wrapped with
 * the end (evt_tile_limited) and ask evt_tile_end; unwrapped arguments run
 * every tile.
 */
template <class A>
struct evt_tile_limited : A {
    int tile_end;
    evt_stream_k sk;
};
template <class A>
__device__ __forceinline__ int evt_tile_end(const A &)
{
    return 0x7fffffff;
}
template <class A>
__device__ __forceinline__ int evt_tile_end(const evt_tile_limited<A> &a)
{
    return a.tile_end;
}
/* No stream-K: every tile whole. */
__device__ __forceinline__ evt_stream_k evt_sk_none()
{
    return evt_stream_k{nullptr, nullptr, 0, 0x7fffffff, 0};
}
template <class A>
__device__ __forceinline__ evt_stream_k evt_stream_k_of(const A &)
{
    return evt_sk_none();
}
template <class A>
__device__ __forceinline__ evt_stream_k evt_stream_k_of(const evt_tile_limited<A> &a)
{
    return a.sk;
}
template <class A>
__device__ __forceinline__ evt_tile_limited<A> evt_tile_limit(const A &a, int tile_end,
                                                              const evt_stream_k &sk = evt_sk_none())
{
    evt_tile_limited<A> r;
    static_cast<A &>(r) = a;
    r.tile_end = tile_end;
    r.sk = sk;
    return r;
}

/*
 * A persistent CTA's tiles: numbers first, first + step, ... below count,
 * and the output tile of each (coord, which returns its problem of a
 * batch).  Without clusters those are the tiles blockIdx.x, + gridDim.x,
 * ...  A configuration with clusters of kCluster CTAs (the grid's
 * consecutive CTAs; the runtime launches whole clusters) walks stacks of
 * kCluster tiles on top of each other, in evt_tile_coord's order as if
 * they were tiles of kCluster * kBM rows, and the cluster's CTA of rank r
 * takes row r of each: the cluster's CTAs share B's tiles (and walk as
 * many stacks each, past M too, which the producer/consumer schedule's
 * multicast needs).  plan/plan.c sizes the grid the same way.
 */
template <class Cfg>
struct evt_tile_walk {
    int first, step, count, rank;
    evt_tile_order<EVT_TILE_GROUP_M> order; /* evt_tile_coord's order of its tiles (or stacks) */

    /* end: the launch's last tile + 1 (evt_tile_end), below the problem's when
     * the tiles after it are the tail's (plan.h) */
    __device__ __forceinline__ evt_tile_walk(int m, int n, int batches, int end)
        : order(evt_tile_order_of<Cfg, Cfg::kBM * Cfg::kCluster>(m, n))
    {
        rank = (int)blockIdx.x % Cfg::kCluster;
        first = (int)blockIdx.x / Cfg::kCluster;
        step = (int)gridDim.x / Cfg::kCluster;
        count = order.tiles_m * order.tiles_n * batches;
        count = count < end ? count : end;
    }

    __device__ __forceinline__ int coord(int t, int *tile_m, int *tile_n) const
    {
        if constexpr (Cfg::kCluster == 1) {
            return order.coord(t, tile_m, tile_n);
        } else {
            int stack;
            const int problem = order.coord(t, &stack, tile_n);
            *tile_m = stack * Cfg::kCluster + rank;
            return problem;
        }
    }
};

/* ---- split-K (plan/heuristic.c decides the splits) ---------------------- */

/* Share `share` of `shares` of k_tiles k tiles: the first k tile in *begin,
 * the count returned (0 for a share past the end). */
__device__ __forceinline__ int evt_k_share(int k_tiles, int share, int shares, int *begin)
{
    const int per = (k_tiles + shares - 1) / shares;
    const int first = share * per, last = first + per < k_tiles ? first + per : k_tiles;
    *begin = first;
    return last > first ? last - first : 0;
}

/* A CTA's partial accumulator tile (smem, rows ACC_LD apart) to its slot of
 * the split workspace: BM x BN floats, dense. */
template <int BM, int BN, int THREADS, int ACC_LD>
EVT_DEVICE void evt_split_store(const float *acc, float *slot)
{
    for (int i = (int)threadIdx.x; i < BM * BN / 4; i += THREADS) {
        const int r = i / (BN / 4), c = i % (BN / 4) * 4;
        reinterpret_cast<float4 *>(slot)[i] = *reinterpret_cast<const float4 *>(acc + r * ACC_LD + c);
    }
}

/* The sum of a tile's `splits` partial tiles, slot 0 first (so the result
 * does not depend on which CTA finished first), into the smem accumulator
 * layout the epilogue reads; ends with a barrier.  A thread takes its float4s
 * kChunk at a time and loads a slot's kChunk of them before it adds any, so
 * that kChunk loads are in flight, not one: the partial tiles come from L2,
 * and a split-K sum (a tile a CTA, few CTAs for a persistent plan's tail)
 * otherwise waited out one round trip per float4 and split. */
template <int BM, int BN, int THREADS, int ACC_LD>
EVT_DEVICE void evt_split_sum(const float *slots, int splits, float *acc)
{
    constexpr int kVecs = BM * BN / 4, kPer = kVecs / THREADS;
    constexpr int kChunk = evt_divisor_upto(kPer, 8);
    static_assert(kVecs % THREADS == 0 && kPer % kChunk == 0, "a tile's float4s split evenly");
    const float4 *src = reinterpret_cast<const float4 *>(slots);
#pragma unroll 1
    for (int c = 0; c < kPer; c += kChunk) {
        float4 t[kChunk];
#pragma unroll
        for (int u = 0; u < kChunk; ++u)
            t[u] = src[(c + u) * THREADS + (int)threadIdx.x];
        for (int s = 1; s < splits; ++s) {
            const float4 *slot = src + (evt_i64)s * kVecs;
            float4 v[kChunk];
#pragma unroll
            for (int u = 0; u < kChunk; ++u)
                v[u] = slot[(c + u) * THREADS + (int)threadIdx.x];
#pragma unroll
            for (int u = 0; u < kChunk; ++u) {
                t[u].x = __fadd_rn(t[u].x, v[u].x);
                t[u].y = __fadd_rn(t[u].y, v[u].y);
                t[u].z = __fadd_rn(t[u].z, v[u].z);
                t[u].w = __fadd_rn(t[u].w, v[u].w);
            }
        }
#pragma unroll
        for (int u = 0; u < kChunk; ++u) {
            const int i = (c + u) * THREADS + (int)threadIdx.x;
            const int r = i / (BN / 4), col = i % (BN / 4) * 4;
            *reinterpret_cast<float4 *>(acc + r * ACC_LD + col) = t[u];
        }
    }
    __syncthreads();
}

/* ---- persistent schedules ----------------------------------------------- */

/* Named barriers of the warp-specialized schedule (sched/persistent.cuh):
 * the MMA warps' pipeline (their __syncthreads) and the epilogue warps' own
 * (evt_epi_team).  The producer/consumer schedule's consumers use
 * EVT_BAR_EPI + their warpgroup (evt_wg_team). */
#define EVT_BAR_PIPE 1
#define EVT_BAR_EPI 4

namespace evt_sched {

EVT_DEVICE void bar_sync(int id, int threads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/*
 * CTA-scope mbarriers, sm_80 and later, for every persistent schedule (the
 * producer/consumer ones wait with sm_90a's try_wait, sm90/tma.cuh); the
 * warp-specialized schedule hands the accumulator tile between its two warp
 * roles through a pair of them (ws_hand_over).  An arrive releases the thread's earlier shared-memory
 * writes and a completed wait acquires them, which is the ordering the
 * hand-over needs, stated in a form compute-sanitizer's racecheck follows
 * (it reported the counted named barrier used before as unordered).
 */
EVT_DEVICE void mbar_init_cta(evt_u32 bar, int count)
{
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

EVT_DEVICE void mbar_arrive_cta(evt_u32 bar)
{
    asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(bar) : "memory");
}

/* Arrives where `on` holds, predicated rather than branched: between two
 * wgmma groups whose registers are read, a branch is a divergent path to
 * ptxas, which then serializes every wgmma of the kernel (docs/fp8.md). */
EVT_DEVICE void mbar_arrive_cta_if(evt_u32 bar, bool on)
{
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t"
                 "@p mbarrier.arrive.shared.b64 _, [%0];\n\t}" ::"r"(bar), "r"((unsigned)on) : "memory");
}

/* Waits for the phase of parity `parity` to complete.  SLEEP: back off
 * between tests, for a waiter that usually waits a whole mainloop (the
 * epilogue warps) and would otherwise take issue slots from the MMA warps. */
template <bool SLEEP>
EVT_DEVICE void mbar_wait_cta(evt_u32 bar, int parity)
{
    for (;;) {
        evt_u32 done;
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
        if (done)
            return;
        if (SLEEP)
            __nanosleep(256);
    }
}

/* The accumulator tile's hand-over in the warp-specialized schedule: `full`
 * completes a phase when every MMA thread has stored its part of a tile,
 * `empty` when every epilogue thread is done reading it.  Tile j (the CTA's
 * j-th) is phase j of both, so a waiter's parity is j & 1. */
struct ws_hand_over {
    evt_u32 full, empty;
};

/* The stream of k tiles over a persistent CTA's tiles blockIdx.x,
 * + gridDim.x, ..., as loaded: which tile the next load belongs to and how
 * many of its k tiles are left.  Load is a mainloop's stage loader
 * (start(args.at(problem), tile_m, tile_n, 0), then one call per k tile,
 * in order). */
template <class Cfg, class Load, class Args>
struct tile_stream {
    Load load;
    int tile, left, tiles, k_tiles;
    evt_tile_order<EVT_TILE_GROUP_M> order; /* evt_tile_coord's */

    __device__ __forceinline__ void start(const Args &args)
    {
        int tm, tn;
        const int problem = order.coord(tile, &tm, &tn);
        load.start(args.at(problem), tm, tn, 0);
        left = k_tiles;
    }

    /* The stream of this CTA's tiles blockIdx.x, + gridDim.x, ... of `tiles`. */
    __device__ __forceinline__ void begin(const Args &args, int tiles_, int k_tiles_, int m_, int n_)
    {
        tile = blockIdx.x;
        tiles = tiles_;
        k_tiles = k_tiles_;
        order = evt_tile_order_of<Cfg>(m_, n_);
        left = 0;
        if (tile < tiles)
            start(args);
    }

    /* Loads the next k tile of the stream into `stage`, if there is one. */
    __device__ __forceinline__ void next(const Args &args, evt_u32 stage)
    {
        if (left == 0 && tile < tiles && k_tiles > 0) {
            tile += gridDim.x;
            if (tile < tiles)
                start(args);
        }
        if (left > 0 && tile < tiles) {
            load(stage);
            --left;
        }
    }
};

} /* namespace evt_sched */

#endif /* EVT_SCHED_TILES_CUH */
