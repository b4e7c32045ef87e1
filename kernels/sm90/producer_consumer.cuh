/*
 * producer_consumer.cuh - the sm_90a producer/consumer persistent schedule
 * (configurations with pp = 2): a producer warpgroup loading stages by TMA
 * (or, on the guarded path, element by element) behind mbarriers, and two
 * wgmma consumer warpgroups taking the CTA's tiles in turn, one's epilogue
 * overlapping the other's mainloop (pp_run); and the staged epilogue input
 * the producer copies ahead of a tile's epilogue (stage_tile).
 */
#ifndef EVT_SM90_PRODUCER_CONSUMER_CUH
#define EVT_SM90_PRODUCER_CONSUMER_CUH

#include "sm90/wgmma.cuh"
#include "sm90/tma.cuh"
#include "sched/tiles.cuh"

namespace evt_sm90 {

/*
 * A staged epilogue input's tile (pp_run, Cfg::kStaged): rows tile_m * kBM ..
 * and columns tile_n * kBN .. of a 16-bit [M, N] tensor (src, ld) into the
 * dense kBM x kBN shared tile at dst, completing on mbarrier bar.  The fast
 * path (TMA: the runtime's tiled map, one thread) zero-fills past the
 * problem; its map is rank 3 for an input that differs per problem of a
 * batch, read at problem z, and rank 2 otherwise (z < 0).  The guarded
 * path's kThreads producer threads copy element by element (any alignment;
 * src is the problem's own) and arrive.  Called by the producer warpgroup.
 */
template <class Cfg>
EVT_DEVICE void stage_tile(evt_u32 dst, evt_u32 bar, int tile_m, int tile_n, int tid,
                           const evt_tma_map *map, const evt_u16 *src, evt_i64 ld, int m, int n, int z)
{
#if EVT_SM90 == 1
    if constexpr (Cfg::kAligned) {
        (void)src; (void)ld; (void)m; (void)n;
        if (tid == 0) {
            mbar_arrive_expect_tx(bar, Cfg::kStagedTileBytes);
            if (z < 0)
                tma_load_2d(dst, map, bar, tile_n * Cfg::kBN, tile_m * Cfg::kBM);
            else
                tma_load_3d(dst, map, bar, tile_n * Cfg::kBN, tile_m * Cfg::kBM, z);
        }
    } else {
        (void)map; (void)z;
        for (int x = tid; x < Cfg::kBM * Cfg::kBN; x += Cfg::kThreads) {
            const int row = tile_m * Cfg::kBM + x / Cfg::kBN, col = tile_n * Cfg::kBN + x % Cfg::kBN;
            const evt_u16 v = row < m && col < n ? src[(evt_i64)row * ld + col] : (evt_u16)0;
            evt_st_shared_u16(dst + 2 * x, v);
        }
        evt_sched::mbar_arrive_cta(bar);
    }
#else
    static_assert(evt_needs_sm90<Cfg>::value, "producer/consumer configurations run on sm_90a only");
#endif
}


#if EVT_SM90 == 1
/* One k tile's wgmmas for a consumer's NH m64 rows, the descriptors of
 * row h and k step kk from desc_a(h, kk) and desc_b(kk), added to acc
 * (Fresh, or first: acc takes the k tile's products alone, so a tile's
 * accumulators need no zeroing before its first k tile); committed as one
 * group. */
template <class Cfg, int NC, int NH, bool Fresh, class DescA, class DescB>
EVT_DEVICE void k_tile_wgmmas(float (&acc)[NH][1][NC / 2], const DescA &desc_a, const DescB &desc_b,
                              bool first = false)
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < Cfg::kKSteps; ++kk)
#pragma unroll
        for (int h = 0; h < NH; ++h)
            wgmma_op_of<Cfg, NC>::run(acc[h][0], desc_a(h, kk), desc_b(kk), !(Fresh || first) || kk > 0);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/* k_tile_wgmmas on stages of either major: A's rows at sa (64 rows apart),
 * B at sb. */
template <class Cfg, int NC, int NH, bool Fresh = false>
EVT_DEVICE void consume_k_tile(float (&acc)[NH][1][NC / 2], evt_u32 sa, evt_u32 sb, bool first = false)
{
    k_tile_wgmmas<Cfg, NC, NH, Fresh>(
        acc, [&](int h, int kk) { return wgmma_operand<Cfg, true>::desc(sa + h * 64 * Cfg::kBK16 * 2, kk); },
        [&](int kk) { return wgmma_operand<Cfg, false>::desc(sb, kk); }, first);
}

/* k_tile_wgmmas for K-major operands whose stage descriptors' low words
 * the caller holds (da: A's rows, db: B's; wgmma_desc_lo): a K-major
 * descriptor is linear in its address (addr >> 4 in the low bits), so a k
 * step is + 2 and a stage + kStageBytes >> 4, and the k loop keeps no shared
 * address to turn into descriptors after each wait. */
template <class Cfg, int NC, bool Fresh = false>
EVT_DEVICE void consume_k_tile_desc(float (&acc)[1][1][NC / 2], evt_u32 da, evt_u32 db)
{
    static_assert(!wgmma_operand<Cfg, true>::kMN && !wgmma_operand<Cfg, false>::kMN, "K-major operands");
    k_tile_wgmmas<Cfg, NC, 1, Fresh>(
        acc, [&](int, int kk) { return wgmma_desc_of_lo<Cfg::kBK16>(da + 2 * kk); },
        [&](int kk) { return wgmma_desc_of_lo<Cfg::kBK16>(db + 2 * kk); });
}
#endif

#if EVT_SM90 == 1
/* After thread 0 has initialized the mbarriers: every thread of the CTA,
 * and under clusters of the peers too, before a peer's copies or arrivals
 * reach this CTA's mbarriers. */
template <class Cfg>
EVT_DEVICE void barriers_ready()
{
    if constexpr (Cfg::kCluster > 1)
        cluster_sync();
    else
        __syncthreads();
}

/* A consumer warp frees stage s: it arrives on the stage's "empty"
 * mbarrier in every CTA whose producer filled part of it (Multicast: each
 * CTA of the cluster), else in its own. */
template <class Cfg, bool Multicast>
EVT_DEVICE void release_stage(evt_u32 empty, int s)
{
    if constexpr (Multicast) {
#pragma unroll
        for (int r = 0; r < Cfg::kCluster; ++r)
            mbar_arrive_cluster(empty + 8 * s, r);
    } else {
        evt_sched::mbar_arrive_cta(empty + 8 * s);
    }
}

/* release_stage by the threads where `on` holds, predicated, not branched:
 * between reads of wgmma registers a branch makes ptxas serialize the
 * kernel's wgmmas (docs/fp8.md). */
template <class Cfg, bool Multicast>
EVT_DEVICE void release_stage_if(evt_u32 empty, int s, bool on)
{
    if constexpr (Multicast) {
#pragma unroll
        for (int r = 0; r < Cfg::kCluster; ++r)
            mbar_arrive_cluster_if(empty + 8 * s, r, on);
    } else {
        evt_sched::mbar_arrive_cta_if(empty + 8 * s, on);
    }
}
#endif

/*
 * The first column of tile column tn.  Shifted (a GEMM whose epilogue runs
 * in registers), the last tile column, where N is not whole tiles of kBN,
 * starts at N - kBN instead: wholly inside the problem, so its epilogue
 * takes the unrolled, staged instance (the checked one, pairs stored
 * straight from the registers, made such problems up to 1.2x slower than
 * the shared tile, docs/codegen.md), at the price of computing the
 * columns it shares with the tile before again; the epilogue leaves those
 * to that tile (epi.direct's col_lo).  Not where N < kBN: no tile fits.
 * An odd N - kBN is rounded up: no column pair of the epilogue's may
 * straddle the tile before's last column (N's last column is then the
 * checked instance's, which an odd N takes anyway).
 */
template <class Cfg, bool kShiftN>
EVT_DEVICE int tile_col(int tn, int n)
{
    const int col = tn * Cfg::kBN;
    return kShiftN && col + Cfg::kBN > n && n >= Cfg::kBN ? (n - Cfg::kBN + 1) & ~1 : col;
}

/*
 * The producer warpgroup of both producer/consumer schedules: the k tiles of
 * the CTA's tiles (walk: blockIdx.x, + gridDim.x, ... without clusters) in order into the ring of
 * kStages stages, each once its "empty" mbarrier says the consumers are done
 * with it.  On the fast path (Load::kTma) one thread issues each stage's TMA
 * copies, which complete its "full" mbarrier by their bytes; on the guarded
 * path all 128 threads store element by element and arrive.  after_tile(j,
 * tile_m, tile_n, problem) runs once the CTA's j-th tile's k tiles are
 * issued.  The tiles are the batch's (evt_tile_coord: problem, then tile).
 * kShiftN: the last tile column's B columns start at N - kBN (tile_col).
 */
template <class Cfg, bool kShiftN = false, class Load, class Args, class AfterTile>
__device__ __forceinline__ void pp_produce(const Args &args, int m, int n, int k_tiles,
                                           const evt_tile_walk<Cfg> &walk, evt_u32 sbase, evt_u32 full,
                                           evt_u32 empty, Load &load, const AfterTile &after_tile,
                                           const evt_stream_k &sk)
{
#if EVT_SM90 == 1
    const int tid = threadIdx.x;
    int q = 0; /* k tiles loaded so far */
    evt_sk_pieces(walk, sk, k_tiles, [&](int t, int j, int k0, int k1) {
        int tm, tn;
        const int problem = walk.coord(t, &tm, &tn);
        load.start(args.at(problem), tm, tn, k0);
        if constexpr (kShiftN)
            load.col0 = tile_col<Cfg, true>(tn, n);
        for (int kt = k0; kt < k1; ++kt, ++q) {
            const int s = q % Cfg::kStages;
            mbar_wait(empty + 8 * s, ((q / Cfg::kStages) & 1) ^ 1);
            if constexpr (Load::kTma) {
                if (tid == 0) /* one thread issues the copies (its load holds the k position) */
                    load.issue(sbase + s * Cfg::kStageBytes, full + 8 * s);
            } else {
                static_assert(!Cfg::kAligned, "the producer's fast path loads with TMA");
                load(sbase + s * Cfg::kStageBytes); /* plain stores */
                evt_sched::mbar_arrive_cta(full + 8 * s);
            }
        }
        after_tile(j, tm, tn, problem);
    });
#else
    static_assert(evt_needs_sm90<Cfg>::value, "producer/consumer configurations run on sm_90a only");
#endif
}

/* Sub-tile I of a consumer's NH m64 accumulator rows (row I / kParts,
 * columns (I % kParts) kEpiBN ..) into the sub-tile at sub_addr: I is a
 * run-time value and the registers can only be named by constants, so the
 * stores of each sub-tile sit behind a test of I. */
template <class Cfg, int NC, int NH, int I = 0>
EVT_DEVICE void store_sub_tile(int i, const float (&acc)[NH][1][NC / 2], evt_u32 sub_addr, int warp, int lane)
{
    constexpr int kParts = NC / Cfg::kEpiBN;
    if (i == I)
        store_acc_wgmma<Cfg, NC, 1, (I % kParts) * Cfg::kEpiBN, Cfg::kEpiBN>(acc[I / kParts], sub_addr, 0, warp,
                                                                            lane);
    else if constexpr (I + 1 < NH * kParts)
        store_sub_tile<Cfg, NC, NH, I + 1>(i, acc, sub_addr, warp, lane);
}

/* Whether sub_tile_epilogue loops (more than two sub-tiles), so that its
 * consumers need the registers for all their accumulators at once. */
template <class Cfg, int NH>
struct sub_tile_loop {
    static constexpr bool value = NH * (Cfg::kBN / Cfg::kEpiBN) > 2;
};

/* A consumer's epilogue on its NH m64 accumulator rows (coop_run, pp_run's
 * sub-tiled one), one sub-tile of 64 rows by kEpiBN columns at a time
 * through the sub-tile at sub: accumulator row h's part e is the
 * epilogue's tile (sm0 + h, sn0 + e).  Two sub-tiles unrolled (each frees
 * its registers for the epilogue after it, and store_sub_tile's tests fold
 * away); more in a loop, so that the epilogue's code exists once
 * (unrolled, a GELU epilogue in eight copies, 200 KB of code, ran 1.6x
 * slower from the instruction cache), with all the accumulators live
 * through it, which the consumers' registers (setmaxnreg, sub_tile_loop)
 * allow.  The three-stage cooperative tile's pair stays unrolled, as it
 * was measured (docs/sm90.md). */
template <class Cfg, int NC, int NH, class Epi>
__device__ __forceinline__ void sub_tile_epilogue(const float (&acc)[NH][1][NC / 2], float *sub, int bar, int warp,
                                                  int lane, const Epi &epi, int sm0, int sn0, int problem)
{
    constexpr int kParts = NC / Cfg::kEpiBN;
    constexpr int kUnroll = sub_tile_loop<Cfg, NH>::value ? 1 : NH * kParts;
    const evt_u32 sub_addr = evt_smem_addr(sub);
#pragma unroll kUnroll
    for (int i = 0; i < NH * kParts; ++i) {
        evt_sched::bar_sync(bar, 128); /* the last sub-tile's epilogue is done reading */
        store_sub_tile<Cfg, NC, NH>(i, acc, sub_addr, warp, lane);
        evt_sched::bar_sync(bar, 128);
        epi(sm0 + i / kParts, sn0 + i % kParts, problem, sub, nullptr);
    }
}

/* The bias a direct epilogue's accumulators take (Epi::kAccInit: the
 * generated epi.bias, epi.add; codegen's acc_fold), loaded before a tile's
 * mainloop and added after it; nothing where On is false. */
template <class Epi, bool On> struct epi_bias {
    typedef int type;
    static EVT_DEVICE int of(const Epi &, int, int, int) { return 0; }
};
template <class Epi> struct epi_bias<Epi, true> {
    typedef typename Epi::Bias type;
    static EVT_DEVICE type of(const Epi &epi, int col_t, int problem, int lane) { return epi.bias(col_t, problem, lane); }
};

/* The direct epilogue's staging buffer of each consumer warp (the
 * generated epi.direct): the shared accumulator tile (or sub-tiles) it
 * does not use, in eight slices, warp w of consumer c's at 4 c + w. */
template <class Cfg>
struct direct_stage {
    static constexpr int kBytes = (Cfg::kAccBytes / 8) & ~15;
    static EVT_DEVICE unsigned char *of(unsigned char *smem, evt_u32 raw, evt_u32 sbase, int c, int warp)
    {
        return smem + (sbase - raw) + Cfg::kPipeBytes + (4 * c + warp) * kBytes;
    }
};

/* Registers a thread of the producer and of a consumer warpgroup, where the
 * consumers need more than an even share (setmaxnreg): 128 x (40 + 2 x
 * 232) = 64,512 of the SM's 65,536.  A wide producer keeps 56 / 224 (the
 * same sum): fp8's cooperative tile (measured with them), and the
 * cooperative tile's guarded path, whose producer threads compute each
 * element's address (a conv's im2col spilled 132 bytes in 40). */
template <bool WideProducer> struct consumer_regs {
    static constexpr int kProducer = WideProducer ? 56 : 40;
    static constexpr int kConsumer = WideProducer ? 224 : 232;
    /* each warpgroup's own, first thing in its role */
    static __device__ __forceinline__ void to_producer()
    {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kProducer) : "memory");
    }
    static __device__ __forceinline__ void to_consumer()
    {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kConsumer) : "memory");
    }
};

/* The same with two epilogue warpgroups beside the consumers (a
 * cooperative tile with ws = 8, 640 threads).  setmaxnreg.inc takes
 * registers only from those the CTA's other warps gave back, so the roles'
 * sum stays within the CTA's launch allocation, 96 registers a thread at
 * 640 threads (__launch_bounds__): 128 x (24 + 2 x 152 + 2 x 72) = 60,416
 * of 61,440.  The consumers hold their accumulators and one k tile's
 * partial sums, not the epilogue; an epilogue warpgroup holds one
 * sub-tile's row groups.  The guarded path's producer computes each
 * element's address: 40 registers, from the epilogue warpgroups' 72. */
template <bool Guarded> struct epi_wg_regs {
    static constexpr int kProducer = Guarded ? 40 : 24;
    static constexpr int kConsumer = 152;
    static constexpr int kEpilogue = Guarded ? 64 : 72;
    static constexpr int kThreads = 640;                   /* coop_run's, with them */
    static constexpr int kLaunch = 65536 / kThreads / 8 * 8; /* a thread's registers at launch */
    static_assert(kProducer + 2 * kConsumer + 2 * kEpilogue <= 5 * kLaunch, "the CTA's registers");
    /* a role above the launch count takes registers (inc), one below gives them back (dec) */
    template <int N> static __device__ __forceinline__ void to()
    {
        if constexpr (N > kLaunch)
            asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N) : "memory");
        else
            asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N) : "memory");
    }
    static __device__ __forceinline__ void to_producer() { to<kProducer>(); }
    static __device__ __forceinline__ void to_consumer() { to<kConsumer>(); }
    static __device__ __forceinline__ void to_epilogue() { to<kEpilogue>(); }
};

/*
 * The producer/consumer persistent schedule (configurations with pp = 2,
 * sm_90a): warpgroup 0, the producer, copies the k tiles of all the CTA's
 * tiles blockIdx.x, + gridDim.x, ... in order into a ring of kStages stages.
 * On the fast path (Load::kTma) one thread issues each stage's TMA copies,
 * which complete the stage's "full" mbarrier by their bytes; on the guarded
 * path all 128 threads store element by element and arrive.  Consumer
 * warpgroup c (1 + c) takes the CTA's tiles c, c + 2, ...: it multiplies a
 * whole tile (128 rows: two m64 wgmma rows; 64: one, where a problem has
 * too few 128-row tiles to fill the SMs), frees each stage ("empty"
 * mbarrier, one arrival per warp) once its MMAs are done, hands the tensor
 * cores to the other consumer ("turn" mbarriers: the mainloops of tiles 0,
 * 1, 2, ... run one after the other), then, once the other consumer's
 * epilogue is done with it ("eturn" mbarriers, likewise in tile order),
 * writes its accumulators to the one accumulator tile in shared memory and
 * runs the epilogue there with its 128 threads (evt_wg_team: barrier 4 +
 * warpgroup).  So one consumer's epilogue overlaps the other's mainloop and
 * the producer's loads of the tiles after.  No L2 prefetch of the epilogue's
 * [M, N] inputs (the warp-specialized schedule's epi.prefetch): the lines
 * were evicted before their epilogue (docs/sm90.md).  Shared
 * memory, 1024-aligned: the stages, the accumulator tile, the mbarriers.  One accumulator tile rather than
 * one per consumer leaves room for four 32 KB stages (BK = 64), which the
 * deep layers need (docs/sm90.md).  Six stages leave room for neither: each
 * consumer then runs its epilogue through a 64 x kEpiBN sub-tile of its
 * own (kSub, sub_tile_epilogue, as coop_run's), with no turns to take; so
 * does a 64-row tile's, always.
 */
template <class Cfg, class Load, class Args, class Epi>
__device__ __forceinline__ void pp_run(const Args &args, int m, int n, int k_tiles,
                                       unsigned char *smem, const Epi &epi, Load load)
{
#if EVT_SM90 == 1
    static_assert(Cfg::kPP == 2 && Cfg::kThreads == 128 &&
                      ((Cfg::kBM == 128 && (Cfg::kBN == 128 || Cfg::kBN == 64)) ||
                       (Cfg::kBM == 64 && Cfg::kBN == 128)) &&
                      (Cfg::kBK16 == 32 || Cfg::kBK16 == 64),
                  "pp_run: a 128-thread producer, two consumers of 128x128, 128x64 or 64x128 tiles "
                  "(a 64-row one's epilogue in its consumer's own sub-tile)");
    static_assert((2 * Cfg::kStages + 8) * 8 <= EVT_TILE_BAR_BYTES, "mbarriers");
    static_assert(Cfg::kStaged == 0 || Cfg::kStaged == 2, "one staged input tile per consumer");
    constexpr int NC = Cfg::kBN; /* one m64nNCk16 per 64 rows */
    constexpr int NH = Cfg::kBM / 64; /* a consumer's m64 rows */
    /* The epilogue through each consumer's own 64-row sub-tile, kEpiBN
     * columns at a time (as coop_run's), where the whole f32 tile does not
     * fit beside the stages; else through the one whole tile, in turn. */
    constexpr bool kSub = Cfg::kEpiBM == 64;
    constexpr int kParts = Cfg::kBN / Cfg::kEpiBN;
    static_assert(!kSub || (Cfg::kStaged == 0 && kParts * Cfg::kEpiBN == Cfg::kBN &&
                            Cfg::kAccBytes == 2 * 64 * Cfg::kAccLd * 4),
                  "sub-tiled ping-pong epilogue: two 64-row sub-tiles, nothing staged");
    /* B's stages filled by every CTA of the cluster (tma_loader), so freed by all of their consumers */
    constexpr bool kMulticast = Cfg::kCluster > 1 && Load::kTma;
    const evt_tile_walk<Cfg> walk(m, n, args.batches(), evt_tile_end(args));
    const evt_u32 raw = evt_smem_addr(smem);
    const evt_u32 sbase = (raw + 1023u) & ~1023u;
    /* staged + c * kStagedTileBytes: consumer c's staged input tile */
    const evt_u32 staged = sbase + Cfg::kPipeBytes + Cfg::kAccBytes;
    const evt_u32 full = staged + Cfg::kStaged * Cfg::kStagedTileBytes;
    const evt_u32 empty = full + 8 * Cfg::kStages;
    const evt_u32 turn = empty + 8 * Cfg::kStages; /* turn + 8 c: consumer c may start */
    const evt_u32 eturn = turn + 16; /* eturn + 8 c: consumer c may use the accumulator tile */
    const evt_u32 sfull = eturn + 16;  /* sfull + 8 c: consumer c's staged tile is loaded */
    const evt_u32 sempty = sfull + 16; /* sempty + 8 c: consumer c is done reading it */
    const int tid = threadIdx.x, wg = tid >> 7;
    if (tid == 0) {
        for (int s = 0; s < Cfg::kStages; ++s) {
            /* TMA: one arrival (with the stage's bytes); guarded: every producer thread's */
            evt_sched::mbar_init_cta(full + 8 * s, Load::kTma ? 1 : Cfg::kThreads);
            evt_sched::mbar_init_cta(empty + 8 * s, 4 * (kMulticast ? Cfg::kCluster : 1));
        }
        for (int b = 0; b < 4; ++b)
            evt_sched::mbar_init_cta(turn + 8 * b, 4);
        for (int b = 0; b < 2; ++b) {
            evt_sched::mbar_init_cta(sfull + 8 * b, Load::kTma ? 1 : Cfg::kThreads);
            evt_sched::mbar_init_cta(sempty + 8 * b, 4);
        }
        if constexpr (Cfg::kCluster > 1)
            fence_mbar_init_cluster();
    }
    barriers_ready<Cfg>();

    /* The epilogue on the consumers' accumulators in registers (the
     * generated epi.direct) on the TMA path; the guarded one keeps the
     * shared tile: its producer's element-wise loads need more than the
     * 40 registers a producer thread would be left. */
    constexpr bool kDirect = Epi::kDirect && Load::kTma;
    constexpr bool kShiftN = kDirect && Load::kShiftN; /* tile_col */
    /* the direct epilogue's bias in the accumulators (the shared tile's adds it) */
    constexpr bool kInit = kDirect && Epi::kAccInit;
    static_assert(!Epi::kDirect || Cfg::kStaged == 0, "a staged input is read from its shared tile");
    /* the consumers' accumulators, live through a looped or a direct epilogue, need the registers */
    constexpr bool kRegs = (kSub && sub_tile_loop<Cfg, NH>::value) || kDirect;
    if (wg == 0) { /* the producer */
        if constexpr (kRegs)
            consumer_regs<false>::to_producer();
        pp_produce<Cfg, kShiftN>(args, m, n, k_tiles, walk, sbase, full, empty, load,
                        [&](int j, int tm, int tn, int problem) {
                            if constexpr (Cfg::kStaged > 0) {
                                /* tile j's epilogue input, into its consumer's (j % 2) staged
                                 * tile once that consumer's epilogue of tile j - 2 is done with it */
                                const int c = j & 1;
                                mbar_wait(sempty + 8 * c, ((j >> 1) & 1) ^ 1);
                                epi.stage(staged + c * Cfg::kStagedTileBytes, sfull + 8 * c, tm, tn,
                                          problem, tid);
                            }
                        },
                        evt_sk_none());
        if constexpr (Cfg::kCluster > 1)
            cluster_sync(); /* the consumers' arrive */
        return; /* the consumers wait for the copies in flight */
    }

    /* a consumer */
    if constexpr (kRegs)
        consumer_regs<false>::to_consumer();
    const int c = wg - 1, warp = (tid >> 5) & 3, lane = tid & 31;
    const int bar = 4 + wg; /* evt_wg_team's */
    float *acc_tile = reinterpret_cast<float *>(smem + (sbase - raw) + Cfg::kPipeBytes);
    const evt_u32 acc_addr = evt_smem_addr(acc_tile);
    const auto release = [&](int s) { release_stage<Cfg, kMulticast>(empty, s); };
    int j = c; /* the CTA's tile number */
    for (int t = walk.first + c * walk.step; t < walk.count; t += 2 * walk.step, j += 2) {
        int tm, tn;
        const int problem = walk.coord(t, &tm, &tn);
        /* NH m64 rows, one wgmma each; under the direct epilogue the first
         * k tile's set them (scale-d off), else they are zeroed (left to
         * the first k tile there, ptxas spilled the shared tile's entries:
         * docs/sm90.md, session 58).  The direct epilogue runs on the TMA
         * path, which the planner never takes where K = 0 (tma_usable), so
         * every tile has a first k tile: zeroing for k_tiles = 0 as well
         * made ptxas select each accumulator between its registers and
         * zero on every tile, 128 FSEL a thread (docs/sm90.md, session 64) */
        float acc[NH][1][NC / 2];
        if (!kDirect)
#pragma unroll
            for (int h = 0; h < NH; ++h)
                zero_acc<NC, 1>(acc[h]);
        /* the direct epilogue's bias, added to the accumulators after the mainloop */
        const typename epi_bias<Epi, kInit>::type bias = epi_bias<Epi, kInit>::of(epi, tile_col<Cfg, kShiftN>(tn, n), problem, lane);
        /* The consumers' mainloops take turns, tile j after tile j - 1's
         * (whose four warps arrive on this consumer's turn barrier).  Besides
         * giving the tensor cores to one warpgroup at a time, that keeps the
         * stage parities below unambiguous: every k tile before this tile's
         * first has been waited for, so each stage is at most one phase
         * behind the one waited on. */
        if (j > 0)
            mbar_wait(turn + 8 * c, ((j - 1) >> 1) & 1);
        int q = j * k_tiles, prev = 0;
        for (int kt = 0; kt < k_tiles; ++kt, ++q) {
            const int s = q % Cfg::kStages;
            mbar_wait(full + 8 * s, (q / Cfg::kStages) & 1);
            if constexpr (!Load::kTma) /* the guarded path's plain stores, to wgmma's async proxy */
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            const evt_u32 sa = sbase + s * Cfg::kStageBytes;
            consume_k_tile<Cfg, NC, NH>(acc, sa, sa + Cfg::kAStageBytes, kDirect && kt == 0);
            asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
            if (kt > 0 && lane == 0)
                release(prev); /* the last k tile's MMAs are done */
            prev = s;
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if constexpr (kInit)
            epi.add(acc, bias);
        if (lane == 0) {
            if (k_tiles > 0)
                release(prev);
            evt_sched::mbar_arrive_cta(turn + 8 * (1 - c)); /* tile j + 1's turn */
        }
        /* a cluster's stack may reach past M: that CTA's tile only fed the multicast */
        const bool inside = Cfg::kCluster == 1 || tm * Cfg::kBM < m;
        if constexpr (kDirect) {
            /* in registers: no shared tile, so no turns to take */
            if (inside)
                epi.direct(tm * Cfg::kBM, tile_col<Cfg, kShiftN>(tn, n), tn * Cfg::kBN, problem, acc, warp,
                           lane, direct_stage<Cfg>::of(smem, raw, sbase, c, warp));
        } else if constexpr (kSub) {
            /* this consumer's sub-tile: no turns to take with the other one */
            if (inside)
                sub_tile_epilogue<Cfg, NC, NH>(acc, acc_tile + c * 64 * Cfg::kAccLd, bar, warp, lane, epi, NH * tm,
                                               kParts * tn, problem);
        } else {
            /* the one accumulator tile, in turn (eturn) */
            if (j > 0) /* tile j - 1's epilogue (after this consumer's last) is done with the tile */
                mbar_wait(eturn + 8 * c, ((j - 1) >> 1) & 1);
            static_assert(NH == 2, "the whole tile: a 128-row one's (a 64-row tile's epilogue is sub-tiled)");
            store_acc_wgmma<Cfg, NC, 1>(acc[0], acc_addr, 0, warp, lane);
            store_acc_wgmma<Cfg, NC, 1>(acc[1], acc_addr, 1, warp, lane);
            evt_sched::bar_sync(bar, 128);
            if constexpr (Cfg::kStaged > 0) {
                mbar_wait(sfull + 8 * c, (j >> 1) & 1);
                if (inside)
                    epi(tm, tn, problem, acc_tile, smem + (staged - raw) + c * Cfg::kStagedTileBytes);
            } else if (inside) {
                epi(tm, tn, problem, acc_tile, nullptr);
            }
            __syncwarp(); /* the warp's reads of the tiles are done */
            if (lane == 0) {
                evt_sched::mbar_arrive_cta(eturn + 8 * (1 - c)); /* tile j + 1's epilogue may start */
                if constexpr (Cfg::kStaged > 0)
                    evt_sched::mbar_arrive_cta(sempty + 8 * c); /* the producer may stage tile j + 2 */
            }
        }
    }
    if constexpr (Cfg::kCluster > 1)
        cluster_sync(); /* no peer's arrival still to come on this CTA's mbarriers */
#else
    static_assert(evt_needs_sm90<Cfg>::value, "producer/consumer configurations run on sm_90a only");
#endif
}

/* CTA b's stream-K slot (evt_stream_k): a cooperative tile's accumulators,
 * float4 i of consumer thread ctid at i * 256 + ctid (a warp's 512 bytes in
 * a row). */
template <int NHALF, int NC>
EVT_DEVICE float4 *sk_slot(const evt_stream_k &sk, int b)
{
    return reinterpret_cast<float4 *>(sk.partials + (evt_i64)b * (NHALF * NC * 128));
}

/* A stream-K piece that does not hold its tile's first k tile (coop_run,
 * evt_stream_k): the consumers' partial sums into the CTA's slot, then each
 * warp counts itself on the CTA's flag once its stores are visible. */
template <int NHALF, int NC>
EVT_DEVICE void sk_publish(const float (&acc)[NHALF][1][NC / 2], const evt_stream_k &sk, int ctid, int lane)
{
    float4 *slot = sk_slot<NHALF, NC>(sk, (int)blockIdx.x);
#pragma unroll
    for (int h = 0; h < NHALF; ++h)
#pragma unroll
        for (int i = 0; i < NC / 8; ++i)
            slot[(h * (NC / 8) + i) * 256 + ctid] =
                make_float4(acc[h][0][4 * i], acc[h][0][4 * i + 1], acc[h][0][4 * i + 2], acc[h][0][4 * i + 3]);
    __threadfence();
    __syncwarp();
    if (lane == 0)
        atomicAdd(sk.flags + kSkFlagStride * blockIdx.x, 1u);
}

/* The CTA holding a stream-K tile's first k tile (coop_run): adds the
 * partial sums of the CTAs of its rank in the units after its own whose
 * ranges begin before the tile's end (tile_end, in evt_stream_k's k-tile
 * numbers), in unit order, each once its kSkWarps consumer warps have
 * counted; the last of this CTA's warps to read a slot zeroes its flag for
 * the next launch. */
template <int NHALF, int NC, class Walk>
EVT_DEVICE void sk_gather(float (&acc)[NHALF][1][NC / 2], const evt_stream_k &sk, const Walk &walk,
                          int tile_end, int ctid, int lane)
{
    const int units = walk.step, cluster = (int)gridDim.x / units;
    int start = evt_sk_start(sk, walk.first + 1, units);
    for (int u = walk.first + 1; u < units && start < tile_end; ++u) {
        const int next = evt_sk_start(sk, u + 1, units);
        const bool empty = next == start; /* an empty range: nothing of it to wait for */
        start = next;
        if (empty)
            continue;
        const int b = u * cluster + walk.rank;
        unsigned *flag = sk.flags + kSkFlagStride * b;
        if (lane == 0) {
            /* backing off between polls: eight warps of up to every CTA poll at once */
            for (;;) {
                unsigned v;
                asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
                if ((v & (kSkRead - 1)) == kSkWarps)
                    break;
                __nanosleep(128);
            }
        }
        __syncwarp();
        const float4 *slot = sk_slot<NHALF, NC>(sk, b);
#pragma unroll
        for (int h = 0; h < NHALF; ++h)
#pragma unroll
            for (int i = 0; i < NC / 8; ++i) {
                const float4 v = __ldcg(slot + (h * (NC / 8) + i) * 256 + ctid);
                acc[h][0][4 * i] = __fadd_rn(acc[h][0][4 * i], v.x);
                acc[h][0][4 * i + 1] = __fadd_rn(acc[h][0][4 * i + 1], v.y);
                acc[h][0][4 * i + 2] = __fadd_rn(acc[h][0][4 * i + 2], v.z);
                acc[h][0][4 * i + 3] = __fadd_rn(acc[h][0][4 * i + 3], v.w);
            }
        __syncwarp();
        if (lane == 0 && atomicAdd(flag, kSkRead) == kSkWarps + (kSkWarps - 1) * kSkRead)
            atomicExch(flag, 0u);
    }
}

/* The cooperative schedule's registers: its roles' split without and with
 * an epilogue warpgroup. */
template <bool EpiWGs, bool WideProducer, bool Guarded> struct coop_regs : epi_wg_regs<Guarded> {
};
template <bool WideProducer, bool Guarded>
struct coop_regs<false, WideProducer, Guarded> : consumer_regs<WideProducer> {
};

#if EVT_SM90 == 1
/* Consumer c's epilogue warpgroup (coop_run): each sub-tile the consumer
 * hands over, epi on it, and then the sub-tile back, until the consumer
 * sends its last (row -1).  sub: the consumer's sub-tile. */
template <class Cfg, class Epi>
__device__ __forceinline__ void epi_wg_run(int c, float *sub, evt_u32 hand_full, evt_u32 hand_empty,
                                           evt_u32 hand_at, const Epi &epi)
{
    for (int phase = 0;; phase ^= 1) {
        mbar_wait(hand_full + 8 * c, phase);
        evt_u32 sm, sn, problem, pad;
        evt_ld_shared_v4(hand_at + 16 * c, sm, sn, problem, pad);
        (void)pad;
        if ((int)sm < 0)
            return;
        epi((int)sm, (int)sn, (int)problem, sub, nullptr);
        evt_sched::mbar_arrive_cta(hand_empty + 8 * c);
    }
}
#endif

/*
 * The cooperative producer/consumer schedule (configurations with pp = 2
 * and bm = 256 or 128, sm_90a): pp_produce's producer as above, and two
 * wgmma consumer warpgroups that share every tile of the CTA: consumer c
 * multiplies rows R c .. R c + R - 1 (R = bm / 2: one or two m64 wgmma
 * rows, each one wgmma m64nBNk16 a k step: bn = 128, or 192 or 256 where R = 64),
 * so each stage carries more MMA work for the same B bytes, and a stage is
 * free once all eight consumer warps are done with it.  Then each consumer
 * runs the epilogue on its rows 64 at a time, through its own accumulator
 * sub-tile of 64 rows by kEpiBN (32 to 128) columns in shared memory (a whole
 * f32 tile would not fit beside the stages): sub-tile (h, e) of consumer c
 * is the epilogue's 64 x kEpiBN tile ((bm / 64) tile_m + (R / 64) c + h,
 * (bn / kEpiBN) tile_n + e).  While the consumers run the epilogue the
 * producer already loads the next tile's first stages.
 *
 * Clusters (kCluster = 2 or 4): as pp_run's, the cluster's CTAs take
 * tiles on top of each other and each loads its share of the B tile they
 * share, multicast into all, so a stage is free once the consumer warps of
 * every CTA are done with it (8 arrivals a CTA); a CTA whose tile of the
 * stack lies below M multiplies zeros for its peers' sake and skips the
 * epilogue.  Stream-K shares k tiles among clusters, every CTA of one
 * taking the same pieces of their stacks (evt_stream_k), so that the
 * multicast of B's shares goes on across tile boundaries.
 *
 * fp8 (one m64 row a consumer): each k tile's wgmmas accumulate into
 * registers of their own, which are then added to the accumulators in f32.
 * The tensor cores keep an fp8 product sum in less than f32 precision: left
 * to them over all of K the sums were off by 4e-3 of the result's scale at
 * K = 4096 and 9e-3 at 16384, as cuBLASLt's fp8 fast accumulation is
 * (docs/fp8.md).  While one consumer waits for its k tile and adds it, the
 * other's wgmmas keep the tensor cores busy; the partial sums' registers
 * come from the producer (setmaxnreg: 56 a producer thread, 224 a
 * consumer's).
 *
 * Epilogue warpgroups (Cfg::kEpiThreads = 256, threads 384-639; fp8's ws8
 * rows): a consumer does not run its sub-tile's epilogue but hands it over,
 * with the sub-tile's coordinates, through a pair of mbarriers (hand_full,
 * hand_empty: sub-tile j is phase j) and goes on with the next tile, so
 * that tile's mainloop overlaps the epilogue, which warpgroup 3 + c runs
 * on consumer c's sub-tiles.  (One epilogue warpgroup for both consumers
 * did not keep up: docs/fp8.md.)  A consumer's last
 * hand-over carries a row of -1: there are no more.
 *
 * Shared memory, 1024-aligned: the stages, the two sub-tiles, the mbarriers
 * (and the hand-over's mbarriers and coordinates).
 */
template <class Cfg, class Load, class Args, class Epi>
__device__ __forceinline__ void coop_run(const Args &args, int m, int n, int k_tiles,
                                         unsigned char *smem, const Epi &epi, Load load)
{
#if EVT_SM90 == 1
    constexpr int R = Cfg::kBM / 2, NHALF = R / 64;
    constexpr bool kPromote = Cfg::kOpBytes == 1;
    /* the epilogue's sub-tiles: 64 rows by kEpiBN columns, kParts to a consumer's m64 row */
    constexpr int kParts = Cfg::kBN / Cfg::kEpiBN;
    static_assert(kParts * Cfg::kEpiBN == Cfg::kBN, "whole sub-tiles an m64 row");
    static_assert(Cfg::kCoop && Cfg::kPP == 2 && Cfg::kThreads == 128 && (R == 128 || R == 64) &&
                      (Cfg::kBN == 128 || (Cfg::kBN >= 160 && NHALF == 1)) && Cfg::kEpiBM == 64 &&
                      Cfg::kBK16 == 64 && Cfg::kStaged == 0 &&
                      (!kPromote || (NHALF == 1 && Cfg::kBN == 128)),
                  "coop_run: a 128-thread producer, two consumers of 64 x 128, 64 x 160, 64 x 192, 64 x 256 or 128 x 128");
    /* the epilogue warpgroup: each consumer's whole accumulators one sub-tile */
    constexpr bool kEpiWG = Cfg::kEpiThreads > 0;
    /* (a 16-bit 128x128 tile with them ran 1.09x slower than the 128x256
     * cooperative tile on bias + GELU: docs/fp8.md) */
    static_assert(!kEpiWG || (Cfg::kEpiThreads == 256 && kParts == 1 && NHALF == 1 && kPromote &&
                              Cfg::kCtaThreads == epi_wg_regs<false>::kThreads),
                  "coop_run: two epilogue warpgroups take fp8's whole 64-row sub-tiles");
    static_assert(2 * Cfg::kStages * 8 + (kEpiWG ? 64 : 0) <= EVT_TILE_BAR_BYTES, "mbarriers");
    constexpr int NC = Cfg::kBN; /* one m64nNCk16 per 64 rows */
    constexpr int kSubBytes = 64 * Cfg::kAccLd * 4;
    static_assert(2 * kSubBytes == Cfg::kAccBytes, "two 64-row sub-tiles");
    /* B's stages filled by every CTA of the cluster (tma_loader), so freed by all of their consumers */
    constexpr bool kMulticast = Cfg::kCluster > 1 && Load::kTma;
    const evt_tile_walk<Cfg> walk(m, n, args.batches(), evt_tile_end(args));
    static_assert(2 * Cfg::kThreads / 32 == kSkWarps, "stream-K counts the two consumers' warps");
    const evt_stream_k sk = evt_stream_k_of(args);
    const evt_u32 raw = evt_smem_addr(smem);
    const evt_u32 sbase = (raw + 1023u) & ~1023u;
    const evt_u32 full = sbase + Cfg::kPipeBytes + Cfg::kAccBytes;
    const evt_u32 empty = full + 8 * Cfg::kStages;
    /* hand_full + 8 c, hand_empty + 8 c: consumer c's sub-tile handed over
     * and done with; hand_at + 16 c: its coordinates (epilogue row, column,
     * problem) */
    const evt_u32 hand_full = empty + 8 * Cfg::kStages, hand_empty = hand_full + 16, hand_at = hand_empty + 16;
    const int tid = threadIdx.x, wg = tid >> 7;
    if (tid == 0) {
        for (int s = 0; s < Cfg::kStages; ++s) {
            evt_sched::mbar_init_cta(full + 8 * s, Load::kTma ? 1 : Cfg::kThreads);
            /* one arrival per consumer warp, of every CTA whose producer filled part of it */
            evt_sched::mbar_init_cta(empty + 8 * s, 8 * (kMulticast ? Cfg::kCluster : 1));
        }
        if constexpr (kEpiWG)
            for (int c = 0; c < 2; ++c) {
                evt_sched::mbar_init_cta(hand_full + 8 * c, 128);
                evt_sched::mbar_init_cta(hand_empty + 8 * c, 128);
            }
        if constexpr (Cfg::kCluster > 1)
            fence_mbar_init_cluster();
    }
    barriers_ready<Cfg>();

    typedef coop_regs<kEpiWG, kPromote || !Load::kTma, !Load::kTma> Regs;
    /* the epilogue in registers on the TMA path, as pp_run's (not handed
     * over); fp8's partial sums, and the accumulators live through a looped
     * or a direct epilogue, need the registers */
    constexpr bool kDirect = Epi::kDirect && Load::kTma && !kEpiWG;
    /* tile_col; not in clusters, where the shifted column's own registers
     * made the consumers (128 accumulators a thread) spill 88-96 bytes */
    constexpr bool kShiftN = kDirect && Load::kShiftN && Cfg::kCluster == 1;
    /* the direct epilogue's bias in the accumulators, in the piece with the
     * tile's first k tile (the one that finishes it): once a tile */
    constexpr bool kInit = kDirect && Epi::kAccInit;
    constexpr bool kRegs = kPromote || sub_tile_loop<Cfg, NHALF>::value || kDirect || kEpiWG;
    if constexpr (kEpiWG) {
        if (wg >= 3) { /* consumer wg - 3's epilogue warpgroup */
            Regs::to_epilogue();
            epi_wg_run<Cfg>(wg - 3,
                            reinterpret_cast<float *>(smem + (sbase - raw) + Cfg::kPipeBytes + (wg - 3) * kSubBytes),
                            hand_full, hand_empty, hand_at, epi);
            if constexpr (Cfg::kCluster > 1)
                cluster_sync(); /* as the other roles */
            return;
        }
    }
    if (wg == 0) {
        if constexpr (kRegs)
            Regs::to_producer();
        pp_produce<Cfg, kShiftN>(args, m, n, k_tiles, walk, sbase, full, empty, load,
                                 [](int, int, int, int) {}, sk);
        if constexpr (Cfg::kCluster > 1)
            cluster_sync(); /* the consumers' arrive */
        return; /* the consumers wait for the copies in flight */
    }
    if constexpr (kRegs)
        Regs::to_consumer();

    const int c = wg - 1, warp = (tid >> 5) & 3, lane = tid & 31;
    const int bar = 4 + wg; /* evt_wg_team's */
    float *sub = reinterpret_cast<float *>(smem + (sbase - raw) + Cfg::kPipeBytes + c * kSubBytes);
    const auto release = [&](int s) { release_stage<Cfg, kMulticast>(empty, s); };
    const int ctid = tid - 128; /* the consumers' thread, 0 .. 255 */
    int q = 0;                  /* k tiles consumed so far */
    int handed = 0;             /* sub-tiles handed to the epilogue warpgroup */
    /* hands accumulators a over as the sub-tile at (sm, sn, problem); a
     * null and sm < 0: the last hand-over, there are no more */
    const auto hand_over = [&](const float (*a)[NHALF][1][NC / 2], int sm, int sn, int problem) {
        mbar_wait(hand_empty + 8 * c, (handed & 1) ^ 1);
        if (a)
            store_sub_tile<Cfg, NC, NHALF>(0, *a, evt_smem_addr(sub), warp, lane);
        if ((tid & 127) == 0)
            evt_st_shared_v4(hand_at + 16 * c, (evt_u32)sm, (evt_u32)sn, (evt_u32)problem, 0u);
        evt_sched::mbar_arrive_cta(hand_full + 8 * c);
        ++handed;
    };
    evt_sk_pieces(walk, sk, k_tiles, [&](int t, int, int k0, int k1) {
        /* rows R c + 64 h, one wgmma each; set by the first k tile under
         * the direct epilogue, else zeroed (as pp_run's; fp8's are added
         * to).  Zeroed for an empty piece too, which K > 0 never gives
         * (evt_sk_pieces): left out as in pp_run, ptxas spilled 16 bytes
         * in the 128x256 GELU entries and the batched rows gained nothing
         * (docs/sm90.md, session 64). */
        float acc[NHALF][1][NC / 2];
        int tm, tn;
        const int problem = walk.coord(t, &tm, &tn);
        if (kPromote || !kDirect || k1 == k0)
#pragma unroll
            for (int h = 0; h < NHALF; ++h)
                zero_acc<NC, 1>(acc[h]);
        /* the direct epilogue's bias: the tile's first piece adds it after its mainloop */
        const typename epi_bias<Epi, kInit>::type bias = epi_bias<Epi, kInit>::of(epi, tile_col<Cfg, kShiftN>(tn, n), problem, lane);
        if constexpr (kPromote) {
            /* each k tile's wgmmas into part (scale-d off on the first),
             * waited for and added to acc; the other consumer's wgmmas keep
             * the tensor cores busy meanwhile, for as long as this one takes
             * to add and issue again: so the stage is freed before the adds,
             * its descriptors are an add from stage 0's, and the stage and
             * phase are counted, not divided out of q (docs/fp8.md) */
            float part[1][1][NC / 2];
            const evt_u32 da0 = wgmma_desc_lo<Cfg::kBK16>(sbase + c * R * Cfg::kBK16 * 2);
            const evt_u32 db0 = wgmma_desc_lo<Cfg::kBK16>(sbase + Cfg::kAStageBytes);
            int s = q % Cfg::kStages;
            evt_u32 phase = (q / Cfg::kStages) & 1;
#pragma unroll 2
            for (int kt = k0; kt < k1; ++kt) {
                const evt_u32 step = (evt_u32)s * (Cfg::kStageBytes >> 4);
                mbar_wait(full + 8 * s, phase);
                if constexpr (!Load::kTma)
                    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                consume_k_tile_desc<Cfg, NC, true>(part, da0 + step, db0 + step);
                asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
                release_stage_if<Cfg, kMulticast>(empty, s, lane == 0);
#pragma unroll
                for (int i = 0; i < NC / 2; ++i)
                    acc[0][0][i] += part[0][0][i];
                if (++s == Cfg::kStages) {
                    s = 0;
                    phase ^= 1;
                }
            }
            q += k1 > k0 ? k1 - k0 : 0;
        } else {
            int prev = 0;
            for (int kt = k0; kt < k1; ++kt, ++q) {
                const int s = q % Cfg::kStages;
                mbar_wait(full + 8 * s, (q / Cfg::kStages) & 1);
                if constexpr (!Load::kTma) /* the guarded path's plain stores, to wgmma's async proxy */
                    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                consume_k_tile<Cfg, NC, NHALF>(acc, sbase + s * Cfg::kStageBytes + c * R * Cfg::kBK16 * 2,
                                               sbase + s * Cfg::kStageBytes + Cfg::kAStageBytes, kDirect && kt == k0);
                asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
                if (kt > k0 && lane == 0)
                    release(prev); /* the last k tile's MMAs are done */
                prev = s;
            }
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
            if (k1 > k0 && lane == 0)
                release(prev);
        }
        if constexpr (kInit)
            if (k0 == 0)
                epi.add(acc, bias);
        /* (under clusters each CTA of the stack, the one past M too: its
         * peer of the owning unit gathers and zeroes its flag all the same) */
        if (k0 > 0) { /* a later piece: the CTA holding the tile's first k tile finishes it */
            sk_publish<NHALF, NC>(acc, sk, ctid, lane);
            return;
        }
        if (k1 < k_tiles) /* the tile's later pieces are the next units' first */
            sk_gather<NHALF, NC>(acc, sk, walk, (t - sk.first + 1) * k_tiles, ctid, lane);
        /* a cluster's stack may reach past M: that CTA's tile only fed the multicast */
        if (Cfg::kCluster > 1 && tm * Cfg::kBM >= m)
            return;
        if constexpr (kEpiWG)
            hand_over(&acc, (Cfg::kBM / 64) * tm + c, tn, problem);
        else if constexpr (kDirect)
            epi.direct(tm * Cfg::kBM + R * c, tile_col<Cfg, kShiftN>(tn, n), tn * Cfg::kBN, problem, acc,
                       warp, lane, direct_stage<Cfg>::of(smem, raw, sbase, c, warp));
        else
            sub_tile_epilogue<Cfg, NC, NHALF>(acc, sub, bar, warp, lane, epi, (Cfg::kBM / 64) * tm + NHALF * c,
                                              kParts * tn, problem);
    });
    if constexpr (kEpiWG)
        hand_over(nullptr, -1, 0, 0);
    if constexpr (Cfg::kCluster > 1)
        cluster_sync(); /* no peer's arrival still to come on this CTA's mbarriers */
#else
    static_assert(evt_needs_sm90<Cfg>::value, "producer/consumer configurations run on sm_90a only");
#endif
}

} /* namespace evt_sm90 */

#endif /* EVT_SM90_PRODUCER_CONSUMER_CUH */
