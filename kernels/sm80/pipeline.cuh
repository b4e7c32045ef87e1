/*
 * pipeline.cuh - the sm_80 tensor-core pipeline (mma.sync m16n8k16 fed by
 * ldmatrix from XOR-swizzled shared-memory stages that cp.async fills), as
 * every mainloop runs it on every target: the stages' layout (smem_tile,
 * operand), the register fragments, the k-loop (mma_k_loop, written once),
 * the plain schedule's pipeline (run_pipeline) and the warp-specialized
 * schedule's MMA warps (ws_mma_warps).  A mainloop supplies only a stage
 * loader: a functor that copies its next k tile into a stage.
 *
 * Interface to the epilogue: when the pipeline is done, the CTA's f32
 * accumulator tile sits in shared memory as row-major float[kBM][kAccLd]
 * (kAccLd = kBN + EVT_TILE_ACC_PAD) and a barrier has been executed.
 * Element (r, c) is output element (tile_m * kBM + r, tile_n * kBN + c);
 * rows and columns past M or N hold zeros and must not be stored.
 */
#ifndef EVT_SM80_PIPELINE_CUH
#define EVT_SM80_PIPELINE_CUH

#include "common/tile.cuh"
#include "sm80/ptx.cuh"
#include "sched/tiles.cuh"

namespace evt_sm80 {


/*
 * One operand's shared-memory stage.  K-contiguous operands are stored as
 * [R][BK] (R = BM or BN), M/N-contiguous ones as [BK][R]; either way rows of
 * kChunks 16-byte chunks.  The chunk index is XORed with bits of the row so
 * that the 8 row addresses of every ldmatrix 8x8 matrix, and every 8
 * consecutive cp.async chunks, fall in 8 different bank groups:
 *   4 chunks per row (64 B):  c ^ ((row >> 1) & 3)   (two rows share 128 B)
 *   >= 8 chunks per row:      c ^ (row & 7)
 */
template <int ROWS, int COLS>
struct smem_tile {
    static constexpr int kChunks = COLS / 8;
    static_assert(kChunks == 4 || kChunks % 8 == 0, "row of 4 or a multiple of 8 chunks");

    static constexpr int kRowBytes = kChunks * 16; /* a row's step: 8 rows keep the swizzle */

    static __device__ __forceinline__ int offset(int row, int chunk) /* bytes */
    {
        int sw = kChunks == 4 ? (row >> 1) & 3 : row & 7;
        return (row * kChunks + (chunk ^ sw)) * 16;
    }
};

/*
 * An M/N-contiguous operand's stage under a wgmma configuration: BK k rows
 * of COLS M/N positions (kChunks 16-byte chunks) in wgmma's MN-major
 * 128-byte-swizzled layout (evt_sm90::wgmma_desc_mn), as the TMA boxes
 * leave it: column block b (positions 64 b .. 64 b + 63, chunks 8 b .. 8 b
 * + 7) at b * ROWS * 128 bytes, its k row r at r * 128 in it, chunk c at (c
 * ^ r) & 7.  The cp.async and guarded loaders write the same layout, so
 * every path feeds one descriptor.
 */
template <int ROWS, int COLS>
struct wgmma_mn_tile {
    static constexpr int kChunks = COLS / 8;
    static_assert(kChunks % 8 == 0, "column blocks of 64 16-bit positions");
    static constexpr int kRowBytes = 128;

    static __device__ __forceinline__ int offset(int row, int chunk) /* bytes */
    {
        return (chunk >> 3) * ROWS * 128 + row * 128 + (((chunk ^ row) & 7) << 4);
    }
};

/* T if C, else F (NVRTC has no <type_traits>). */
template <bool C, class T, class F> struct pick_type { typedef T type; };
template <class T, class F> struct pick_type<false, T, F> { typedef F type; };

template <class Cfg, bool A>
struct operand {
    static constexpr bool kKContig = A ? Cfg::kAKContig : Cfg::kBKContig;
    static constexpr int kR = A ? Cfg::kBM : Cfg::kBN; /* extent along M or N */
    /* in 16-bit units: an fp8 k tile's row of kBK bytes is kBK16 of them */
    static constexpr int kRows = kKContig ? kR : Cfg::kBK16;
    static constexpr int kCols = kKContig ? Cfg::kBK16 : kR;
    /* wgmma reads an M/N-contiguous operand MN-major (its transposed form);
     * mma.sync's ldmatrix.trans the plain [BK][R] swizzled tile */
    static constexpr bool kWgmmaMN = Cfg::kWgmma && !kKContig;
    typedef typename pick_type<kWgmmaMN, wgmma_mn_tile<kRows, kCols>, smem_tile<kRows, kCols> >::type tile;
    static constexpr int kChunkCount = kRows * kCols / 8;
    static_assert(kChunkCount % Cfg::kThreads == 0, "threads must divide a stage's 16-byte chunks");
    static constexpr int kPerThread = kChunkCount / Cfg::kThreads;
};


template <class Cfg>
struct frags {
    evt_u32 a[Cfg::kMI][4];
    evt_u32 b[Cfg::kNI][2];
};

/*
 * ldmatrix addressing.  mma m16n8k16 wants A as row-major 16x16 (four 8x8
 * matrices: rows 0-7/8-15 x k 0-7/8-15, in the order a0..a3) and B as
 * k-major 16x8 (two 8x8 matrices: k 0-7, k 8-15).  Lanes 8i..8i+7 give the
 * row addresses of matrix i.  Operands stored with the mma's contiguous
 * dimension (K for A row-major and B col-major) use plain ldmatrix; the
 * others use .trans on the [k][mn] tile.
 */
template <class Cfg>
__device__ __forceinline__ void load_frags(frags<Cfg> &f, evt_u32 sa, evt_u32 sb, int kk,
                                           int warp_m, int warp_n, int lane)
{
    typedef operand<Cfg, true> opa;
    typedef operand<Cfg, false> opb;
#pragma unroll
    for (int mi = 0; mi < Cfg::kMI; ++mi) {
        int m = warp_m * Cfg::kWM + mi * 16;
        if (opa::kKContig) {
            int row = m + (lane & 15);
            int ch = kk * 2 + (lane >> 4);
            evt_ldmatrix_x4(f.a[mi], sa + opa::tile::offset(row, ch));
        } else {
            int krow = kk * 16 + (lane & 7) + ((lane >> 4) << 3);
            int ch = m / 8 + ((lane >> 3) & 1);
            evt_ldmatrix_x4_trans(f.a[mi], sa + opa::tile::offset(krow, ch));
        }
    }
#pragma unroll
    for (int nj = 0; nj < Cfg::kNI / 2; ++nj) {
        int n = warp_n * Cfg::kWN + nj * 16;
        evt_u32 r[4];
        if (opb::kKContig) {
            int row = n + (lane & 7) + ((lane >> 4) << 3);
            int ch = kk * 2 + ((lane >> 3) & 1);
            evt_ldmatrix_x4(r, sb + opb::tile::offset(row, ch));
        } else {
            int krow = kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3);
            int ch = n / 8 + (lane >> 4);
            evt_ldmatrix_x4_trans(r, sb + opb::tile::offset(krow, ch));
        }
        f.b[2 * nj][0] = r[0];
        f.b[2 * nj][1] = r[1];
        f.b[2 * nj + 1][0] = r[2];
        f.b[2 * nj + 1][1] = r[3];
    }
}

/* All mma of one k16 step, serpentine over N so B fragments stay hot. */
template <class Cfg>
__device__ __forceinline__ void mma_step(float (&acc)[Cfg::kMI][Cfg::kNI][4], const frags<Cfg> &f)
{
#pragma unroll
    for (int mi = 0; mi < Cfg::kMI; ++mi)
#pragma unroll
        for (int nn = 0; nn < Cfg::kNI; ++nn) {
            int ni = (mi & 1) ? Cfg::kNI - 1 - nn : nn;
            evt_mma_step<Cfg::kDType, Cfg::kDTypeB>(acc[mi][ni], f.a[mi], f.b[ni]);
        }
}

/* One m16n8 accumulator fragment (a quad: rows r and r + 8, columns c and
 * c + 1; mma.sync's and, per warp, wgmma's layout) into the row-major
 * float[kBM][kAccLd] tile at shared address base. */
template <class Cfg>
__device__ __forceinline__ void store_acc_quad(evt_u32 base, int r, int c, float a0, float a1,
                                               float a2, float a3)
{
    evt_u32 p = base + (r * Cfg::kAccLd + c) * 4;
    evt_st_shared_v2f(p, a0, a1);
    evt_st_shared_v2f(p + 8 * Cfg::kAccLd * 4, a2, a3);
}

/* A warp's mma.sync accumulators into the tile at base. */
template <class Cfg>
__device__ __forceinline__ void store_acc(const float (&acc)[Cfg::kMI][Cfg::kNI][4], evt_u32 base,
                                          int warp_m, int warp_n, int lane)
{
#pragma unroll
    for (int mi = 0; mi < Cfg::kMI; ++mi)
#pragma unroll
        for (int ni = 0; ni < Cfg::kNI; ++ni)
            store_acc_quad<Cfg>(base, warp_m * Cfg::kWM + mi * 16 + (lane >> 2),
                                warp_n * Cfg::kWN + ni * 8 + (lane & 3) * 2, acc[mi][ni][0],
                                acc[mi][ni][1], acc[mi][ni][2], acc[mi][ni][3]);
}

/* The mainloop/epilogue interface: waits for the pipeline, then writes the
 * warp's accumulators into shared memory at sbase as row-major
 * float[kBM][kAccLd] (reusing the pipeline's memory) and synchronises, so the
 * epilogue reads elements by (row, column) only. */
template <class Cfg>
__device__ __forceinline__ void hand_over_acc(const float (&acc)[Cfg::kMI][Cfg::kNI][4],
                                              evt_u32 sbase, int warp_m, int warp_n, int lane)
{
    evt_cp_async_wait<0>();
    __syncthreads();
    store_acc<Cfg>(acc, sbase, warp_m, warp_n, lane);
    __syncthreads();
}

/* The accumulators of a warp's kWM x kWN tile, zeroed. */
template <class Cfg>
__device__ __forceinline__ void zero_acc(float (&acc)[Cfg::kMI][Cfg::kNI][4])
{
#pragma unroll
    for (int mi = 0; mi < Cfg::kMI; ++mi)
#pragma unroll
        for (int ni = 0; ni < Cfg::kNI; ++ni)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                acc[mi][ni][e] = 0.0f;
}

/* Where a warp is in the ring of stages: the stage its fragments are read
 * from, the stage the next load fills, and the fragments of the next k16
 * step (two buffers: step s + 1 loads while step s multiplies). */
template <class Cfg>
struct pipe_state {
    evt_u32 sbase;
    int warp_m, warp_n, lane;
    int read_stage, write_stage;
    frags<Cfg> f[2];
};

/*
 * The k-loop: k_tiles k tiles from the ring of kStages stages into acc.
 * Each k tile is kKSteps k16 steps; the fragments of step s + 1 are loaded
 * from shared memory while the MMAs of step s run.  Before the last step's
 * fragment load, sync() (after cp.async's wait) makes the next stage
 * visible and frees the one just read; the first step of the next k tile
 * calls refill(stage address, k tile) to copy a new k tile into the freed
 * stage, so kStages - 1 loads stay in flight.  A group is committed either
 * way.  On return the fragments of the next k tile (whichever the refills
 * put in the ring next) are loaded: a persistent schedule's next tile
 * starts from them.
 */
template <class Cfg, class Sync, class Refill>
__device__ __forceinline__ void mma_k_loop(float (&acc)[Cfg::kMI][Cfg::kNI][4], int k_tiles,
                                           pipe_state<Cfg> &p, Sync sync, Refill refill)
{
    for (int kt = 0; kt < k_tiles; ++kt) {
#pragma unroll
        for (int kk = 0; kk < Cfg::kKSteps; ++kk) {
            if (kk == Cfg::kKSteps - 1) {
                evt_cp_async_wait<Cfg::kStages - 2>();
                sync();
                p.read_stage = p.read_stage + 1 == Cfg::kStages ? 0 : p.read_stage + 1;
            }
            evt_u32 rs = p.sbase + p.read_stage * Cfg::kStageBytes;
            load_frags<Cfg>(p.f[(kk + 1) & 1], rs, rs + Cfg::kAStageBytes, (kk + 1) % Cfg::kKSteps,
                            p.warp_m, p.warp_n, p.lane);
            if (kk == 0) {
                refill(p.sbase + p.write_stage * Cfg::kStageBytes, kt);
                evt_cp_async_commit();
                p.write_stage = p.write_stage + 1 == Cfg::kStages ? 0 : p.write_stage + 1;
            }
            mma_step<Cfg>(acc, p.f[kk & 1]);
        }
    }
}

/* Fills kStages - 1 stages through fill(stage address, stage), waits for
 * the first and loads its first fragments. */
template <class Cfg, class Sync, class Fill>
__device__ __forceinline__ void pipe_start(pipe_state<Cfg> &p, Sync sync, Fill fill)
{
#pragma unroll
    for (int s = 0; s < Cfg::kStages - 1; ++s) {
        fill(p.sbase + s * Cfg::kStageBytes, s);
        evt_cp_async_commit();
    }
    evt_cp_async_wait<Cfg::kStages - 2>();
    sync();
    p.read_stage = 0;
    p.write_stage = Cfg::kStages - 1;
    load_frags<Cfg>(p.f[0], p.sbase, p.sbase + Cfg::kAStageBytes, 0, p.warp_m, p.warp_n, p.lane);
}

/*
 * The plain schedule's pipeline: the CTA's k_tiles k tiles, loaded in order
 * by load(stage address) (cp.async, or plain loads and st.shared; called
 * exactly k_tiles times), then the accumulator hand-off.
 */
template <class Cfg, class Load>
__device__ __forceinline__ void run_pipeline(int k_tiles, Load &load, evt_u32 sbase, int warp_m,
                                             int warp_n, int lane)
{
    float acc[Cfg::kMI][Cfg::kNI][4];
    zero_acc<Cfg>(acc);
    pipe_state<Cfg> p;
    p.sbase = sbase;
    p.warp_m = warp_m;
    p.warp_n = warp_n;
    p.lane = lane;
    pipe_start<Cfg>(p, [] { __syncthreads(); }, [&](evt_u32 stage, int s) {
        if (s < k_tiles)
            load(stage);
    });
    mma_k_loop<Cfg>(acc, k_tiles, p, [] { __syncthreads(); }, [&](evt_u32 stage, int kt) {
        if (kt + Cfg::kStages - 1 < k_tiles)
            load(stage);
    });
    hand_over_acc<Cfg>(acc, sbase, warp_m, warp_n, lane);
}

/*
 * The warp-specialized schedule's MMA warps (sched/persistent.cuh): the k
 * tiles of all the CTA's tiles as one stream through the same k-loop, so
 * the next tile's first k tiles load while this one finishes; after each
 * tile the accumulators go to acc_tile once the epilogue warps have
 * returned it (hand.empty), and are handed over (hand.full).
 */
template <class Cfg, class Load, class Args>
__device__ __forceinline__ void ws_mma_warps(const Args &args, int m, int n, int k_tiles,
                                             int tiles, unsigned char *smem, float *acc_tile,
                                             evt_sched::ws_hand_over hand)
{
    const int tid = threadIdx.x, warp = tid >> 5;
    pipe_state<Cfg> p;
    p.sbase = evt_smem_addr(smem);
    p.warp_m = warp / Cfg::kWarpsN;
    p.warp_n = warp % Cfg::kWarpsN;
    p.lane = tid & 31;
    evt_sched::tile_stream<Cfg, Load, Args> ts;
    ts.begin(args, tiles, k_tiles, m, n);
    const auto sync = [] { evt_sched::bar_sync(EVT_BAR_PIPE, Cfg::kThreads); };
    const auto next = [&](evt_u32 stage, int) { ts.next(args, stage); };
    pipe_start<Cfg>(p, sync, next);
    for (int t = blockIdx.x, j = 0; t < tiles; t += gridDim.x, ++j) {
        float acc[Cfg::kMI][Cfg::kNI][4];
        zero_acc<Cfg>(acc);
        mma_k_loop<Cfg>(acc, k_tiles, p, sync, next);
        /* hand the tile over once the epilogue warps are done with the last */
        if (j > 0)
            evt_sched::mbar_wait_cta<false>(hand.empty, (j - 1) & 1);
        store_acc<Cfg>(acc, evt_smem_addr(acc_tile), p.warp_m, p.warp_n, p.lane);
        evt_sched::mbar_arrive_cta(hand.full);
    }
    evt_cp_async_wait<0>();
}

} /* namespace evt_sm80 */

#endif /* EVT_SM80_PIPELINE_CUH */
