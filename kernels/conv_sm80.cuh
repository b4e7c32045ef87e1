/*
 * conv_sm80.cuh - implicit-GEMM conv2d forward mainloop for sm_80/86/89
 * (also run on sm_90a): f16 or bf16 operands, f32 accumulation, mma.sync
 * m16n8k16 fed by ldmatrix from the same XOR-swizzled multi-stage cp.async
 * pipeline as gemm_sm80.cuh, whose fragment code it reuses.
 *
 * Problem.  Input x NHWC [n, h, wd, c], filter KRSC [k, r, s, c], output
 * NPQK [n, p, q, k] with p = (h + 2 pad_h - dil_h (r - 1) - 1) / stride_h + 1
 * and q likewise.  As a GEMM: M = n p q (output pixels), N = k,
 * K = r s c, with A[m][kk] = x at the input pixel that output pixel m sees
 * through filter tap (kk / c) and channel kk % c (zero in the padding), and
 * B[kk][j] = w[j][kk] (the filter is a dense K x RSC row-major matrix).
 * K is walked flat in (r, s, c) order, c fastest, so both operands are
 * K-contiguous ("TN") and no k tile is padded when c is not a multiple of BK.
 *
 * The file has two parts, like gemm_sm80.cuh, and comes after it:
 *
 *   1. Plain C (C11, C++, nvcc, NVRTC): the conv tile table
 *      (evt_conv_sm80_cfg_lookup, returning gemm_sm80.cuh's
 *      evt_gemm_sm80_cfg_info, so evt_gemm_sm80_threads / _smem_bytes /
 *      _num_tiles apply to it unchanged), the heuristic and the fast-path
 *      test.
 *
 *   2. CUDA: evt_conv_args, evt_conv_sm80_tile_of<>, evt_conv_sm80_cfg<>
 *      and evt_conv_sm80_mainloop<>().
 *
 * Interface to the epilogue: exactly the GEMM's.  When the mainloop returns,
 * the CTA's f32 accumulator tile sits at the start of its dynamic shared
 * memory as row-major float[kBM][kAccLd] (row = output pixel tile_m * kBM +
 * row, column = output channel tile_n * kBN + column), rows past M and
 * columns past N hold zeros, and a __syncthreads() has been executed.  Tiles
 * are indexed like the GEMM's (evt_gemm_sm80_tile_coord<> applies).
 *
 * Fast path (ALIGNED = true), evt_conv_sm80_fast_path_ok(): c % 8 == 0 and
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
#ifndef EVT_CONV_SM80_CUH
#define EVT_CONV_SM80_CUH

#ifndef EVT_GEMM_SM80_CUH
#error "conv_sm80.cuh needs gemm_sm80.cuh before it (tile table types, fragment code)"
#endif

#ifdef __cplusplus
#define EVT_CONV_CONSTEXPR constexpr
#define EVT_CONV_INLINE inline
#else
#define EVT_CONV_CONSTEXPR
#define EVT_CONV_INLINE static inline
#endif

/* ======================= Part 1: plain C ================================= */

/*
 * Conv tile configurations, names BMxBNxBK_warps_stages (WGn: n wgmma
 * warpgroups; WSn: n epilogue warps beside them).  Ids are stable: codegen
 * refers to them.  Ids 0, 1 and 3 are the tiles of the GEMM table's ids 3, 4
 * and 2; the table is separate because conv also wants narrow-N tiles
 * (ResNet layers with k = 64) that the GEMM does not.  Measured and dropped
 * (docs/conv_sm80.md): 128x128x32, 64x128x32, 64x256x32, 256x128x32; in
 * session 3 128x128x64 wgmma at 2 CTAs/SM (id 10 is faster), m64n64 wgmma
 * tiles 128x64 and 256x64 in BK = 64 or 32 stages at 1-3 CTAs/SM (id 4 is
 * faster), 192x128 in 5 stages, 8 mma.sync warps beside 4 epilogue warps,
 * and BK = 32 stages beside 8 epilogue warps.
 */
enum evt_conv_sm80_cfg_id {
    EVT_CONV_SM80_128x256x64_W8_S3 = 0, /* large problems, 1 CTA/SM */
    EVT_CONV_SM80_128x128x64_W4_S3 = 1, /* medium problems and short K, 2 CTAs/SM */
    EVT_CONV_SM80_128x64x64_W4_S3 = 2,  /* narrow N (k <= 64), medium problems */
    EVT_CONV_SM80_64x64x32_W4_S4 = 3,   /* small problems, 4 CTAs/SM */
    EVT_CONV_SM80_256x64x32_W4_S4 = 4,  /* narrow N, large problems: 64x64 warp tiles */
    EVT_CONV_SM80_128x128x64_W4_S3_WS4 = 5,  /* warp-specialized: + 4 epilogue warps, persistent */
    EVT_CONV_SM80_128x256x64_WG2_S4 = 6,     /* sm_90a wgmma, 2 warpgroups, 1 CTA/SM */
    EVT_CONV_SM80_192x128x64_WG3_S4 = 7,     /* sm_90a wgmma, 3 warpgroups (whole waves) */
    EVT_CONV_SM80_128x128x64_WG2_S4_WS4 = 8, /* sm_90a wgmma + 4 epilogue warps, persistent */
    EVT_CONV_SM80_128x128x64_WG2_S4_WS8 = 9, /* the same with 8 epilogue warps */
    EVT_CONV_SM80_128x128x32_WG2_S6 = 10,    /* sm_90a wgmma, BK = 32 stages, 2 CTAs/SM */
    EVT_CONV_SM80_128x128x64_PP2_S4 = 11,    /* sm_90a: a TMA producer, 2 wgmma consumers, persistent */
    EVT_CONV_SM80_192x256x64_WG3_S4 = 12,    /* sm_90a wgmma, 3 warpgroups of m64n256, 1 CTA/SM */
    EVT_CONV_SM80_128x64x64_PP2_S7 = 13,     /* the same for narrow layers (k <= 64) */
    EVT_CONV_SM80_128x128x64_PP2_S2_ST2 = 14, /* id 11 in 2 stages, the residual staged by TMA */
    EVT_CONV_SM80_NUM_CFGS = 15
};

EVT_CONV_INLINE EVT_HD EVT_CONV_CONSTEXPR evt_gemm_sm80_cfg_info evt_conv_sm80_cfg_lookup(int id)
{
    /* bm, bn, bk, warps_m, warps_n, stages, min_blocks */
    evt_gemm_sm80_cfg_info c = {128, 256, 64, 2, 4, 3, 1, 0, 0, 0, 0};
    switch (id) {
    case EVT_CONV_SM80_128x128x64_W4_S3: c.bn = 128; c.warps_n = 2; c.min_blocks = 2; break;
    case EVT_CONV_SM80_128x64x64_W4_S3: c.bn = 64; c.warps_n = 2; c.min_blocks = 2; break;
    case EVT_CONV_SM80_64x64x32_W4_S4:
        c.bm = 64; c.bn = 64; c.bk = 32; c.warps_n = 2; c.stages = 4; c.min_blocks = 4; break;
    case EVT_CONV_SM80_256x64x32_W4_S4:
        c.bm = 256; c.bn = 64; c.bk = 32; c.warps_m = 4; c.warps_n = 1; c.stages = 4;
        c.min_blocks = 2; break;
    case EVT_CONV_SM80_128x128x64_W4_S3_WS4: c.bn = 128; c.warps_n = 2; c.ws = 4; break;
    case EVT_CONV_SM80_128x256x64_WG2_S4: c.stages = 4; c.wgmma = 1; break;
    case EVT_CONV_SM80_192x128x64_WG3_S4:
        c.bm = 192; c.bn = 128; c.warps_m = 3; c.stages = 4; c.wgmma = 1; break;
    case EVT_CONV_SM80_128x128x64_WG2_S4_WS4:
        c.bn = 128; c.stages = 4; c.wgmma = 1; c.ws = 4; break;
    case EVT_CONV_SM80_128x128x64_WG2_S4_WS8:
        c.bn = 128; c.stages = 4; c.wgmma = 1; c.ws = 8; break;
    case EVT_CONV_SM80_128x128x32_WG2_S6:
        c.bn = 128; c.bk = 32; c.stages = 6; c.min_blocks = 2; c.wgmma = 1; break;
    case EVT_CONV_SM80_128x128x64_PP2_S4:
        c.bn = 128; c.warps_n = 2; c.stages = 4; c.wgmma = 1; c.pp = 2; break;
    case EVT_CONV_SM80_192x256x64_WG3_S4: c.bm = 192; c.warps_m = 3; c.stages = 4; c.wgmma = 1; break;
    case EVT_CONV_SM80_128x64x64_PP2_S7:
        c.bn = 64; c.warps_n = 2; c.stages = 7; c.wgmma = 1; c.pp = 2; break;
    case EVT_CONV_SM80_128x128x64_PP2_S2_ST2:
        c.bn = 128; c.warps_n = 2; c.stages = 2; c.wgmma = 1; c.pp = 2; c.staged = 2; break;
    default: break;
    }
    return c;
}

/*
 * Pick a configuration for the conv's GEMM view (m = n p q, n = k,
 * k_gemm = r s c) on num_sms multiprocessors (0: 132).  As the GEMM's:
 * the biggest tile that still gives every SM two tiles (one for 1-CTA/SM
 * tiles' second wave, or both CTAs of a 2-CTA/SM tile), then a tile that
 * fills every SM once, then 64x64.  k <= 64 takes the narrow-N tiles, which
 * waste no half-empty MMAs.  Short K (k_gemm <= 128: one or two k tiles, a
 * memory-bound layer) prefers 128x128 to 128x256: with two CTAs per SM one
 * CTA's stores overlap the other's loads.  Measured on the H200 on the
 * ResNet-50 layers, docs/conv_sm80.md.
 */
EVT_CONV_INLINE EVT_HD int evt_conv_sm80_pick(long long m, long long n, long long k_gemm,
                                              int num_sms)
{
    long long sms = num_sms > 0 ? num_sms : 132;
    if (n <= 64) {
        if (evt_gemm_sm80_num_tiles(evt_conv_sm80_cfg_lookup(EVT_CONV_SM80_256x64x32_W4_S4), m,
                                    n) >= 2 * sms)
            return EVT_CONV_SM80_256x64x32_W4_S4;
        if (evt_gemm_sm80_num_tiles(evt_conv_sm80_cfg_lookup(EVT_CONV_SM80_128x64x64_W4_S3), m,
                                    n) >= sms)
            return EVT_CONV_SM80_128x64x64_W4_S3;
        return EVT_CONV_SM80_64x64x32_W4_S4;
    }
    if (k_gemm > 128 &&
        evt_gemm_sm80_num_tiles(evt_conv_sm80_cfg_lookup(EVT_CONV_SM80_128x256x64_W8_S3), m, n) >=
            2 * sms)
        return EVT_CONV_SM80_128x256x64_W8_S3;
    if (evt_gemm_sm80_num_tiles(evt_conv_sm80_cfg_lookup(EVT_CONV_SM80_128x128x64_W4_S3), m, n) >=
        sms)
        return EVT_CONV_SM80_128x128x64_W4_S3;
    return EVT_CONV_SM80_64x64x32_W4_S4;
}

/*
 * The conv heuristic on sm_90a (wgmma; a conv's operands are always
 * K-contiguous): where evt_conv_sm80_pick takes a 128-row tile with k > 64,
 * the wgmma tile whose waves cost least (evt_sm90_wave_cost): 128x256, or
 * 128x128 at two CTAs per SM (first choice at K <= 128, where a CTA's
 * stores overlap the other's loads), or 192x128, three warpgroups, about
 * 15% slower per tile but whole waves where the others leave half of one
 * idle, or 192x256, three warpgroups of m64n256, taken only where its waves
 * cost 10% less than the others' (on equal cost 128x256 was faster).  Where
 * tma is set (the producer/consumer tile's TMA maps can be made: c a
 * multiple of its BK, the fast path) and K is longer than two of its k
 * tiles, the producer/consumer tile at a quarter below its waves' cost: it
 * ran 11-30% faster than the best of the others on the three such ResNet-50
 * layers; at K <= 128 (memory-bound 1x1 layers) it lost to 128x128 at two
 * CTAs per SM.  Narrow layers (k <= 64) take the 128x64 producer/consumer
 * tile on the same terms (K > 128, TMA, two tiles per consumer), else keep
 * the mma.sync tiles: the cp.async wgmma 128x64 and 256x64 tiles lost there
 * (56x56x64 -> 64 3x3: 119 -> 87 us).  On the H200 (docs/conv_sm80.md):
 * 14x14x256 -> 256 3x3 88 -> 71 us (192x128) -> 66 (192x256: 131 tiles,
 * one wave) -> 51 (producer/consumer), 28x28x128 -> 512 1x1 93 -> 85
 * (128x128), 7x7x512 -> 2048 1x1 50 -> 43 (128x256) -> 33, 14x14x256 ->
 * 1024 1x1 59 -> 50.
 */
EVT_CONV_INLINE EVT_HD int evt_conv_sm90_pick(long long m, long long n, long long k_gemm, int num_sms,
                                              int tma, int staged)
{
    int classic = evt_conv_sm80_pick(m, n, k_gemm, num_sms);
    const long long sms = num_sms > 0 ? num_sms : 132;
    if (tma && staged && n > 64 && k_gemm <= 128 &&
        evt_gemm_sm80_num_tiles(evt_conv_sm80_cfg_lookup(EVT_CONV_SM80_128x128x64_PP2_S2_ST2), m, n) >= 4 * sms)
        return EVT_CONV_SM80_128x128x64_PP2_S2_ST2; /* memory-bound: the residual staged ahead */
    if (n <= 64) { /* the narrow producer/consumer tile where it has two tiles a consumer */
        const evt_gemm_sm80_cfg_info pp = evt_conv_sm80_cfg_lookup(EVT_CONV_SM80_128x64x64_PP2_S7);
        return tma && k_gemm > 2 * pp.bk &&
                       evt_gemm_sm80_num_tiles(pp, m, n) >= 2LL * pp.pp * (num_sms > 0 ? num_sms : 132)
                   ? EVT_CONV_SM80_128x64x64_PP2_S7
                   : classic;
    }
    if (classic == EVT_CONV_SM80_64x64x32_W4_S4)
        return classic;
    /* candidates in order of preference on equal cost (no static table:
     * device code has no function statics) */
    int best = k_gemm <= 128 ? EVT_CONV_SM80_128x128x32_WG2_S6 : EVT_CONV_SM80_128x256x64_WG2_S4;
    double best_cost = evt_sm90_wave_cost(evt_conv_sm80_cfg_lookup(best), m, n, num_sms, 0);
    for (int i = 0; i < 4; ++i) {
        int id = i == 0 ? EVT_CONV_SM80_128x128x32_WG2_S6
               : i == 1 ? EVT_CONV_SM80_128x256x64_WG2_S4
               : i == 2 ? EVT_CONV_SM80_192x128x64_WG3_S4 : EVT_CONV_SM80_192x256x64_WG3_S4;
        double c = evt_sm90_wave_cost(evt_conv_sm80_cfg_lookup(id), m, n, num_sms,
                                      i == 2 ? 15 : i == 3 ? 10 : 0);
        if (c < best_cost) {
            best = id;
            best_cost = c;
        }
    }
    const evt_gemm_sm80_cfg_info pp = evt_conv_sm80_cfg_lookup(EVT_CONV_SM80_128x128x64_PP2_S4);
    if (tma && k_gemm > 2 * pp.bk && evt_sm90_wave_cost(pp, m, n, num_sms, -25) < best_cost)
        best = EVT_CONV_SM80_128x128x64_PP2_S4;
    return best;
}

/* 1 when the ALIGNED = true mainloop may run: c % 8 == 0 (so r s c and
 * every pixel's channel run are whole 16-byte chunks) and both operand base
 * addresses 16-byte aligned. */
EVT_CONV_INLINE EVT_HD int evt_conv_sm80_fast_path_ok(long long c, unsigned long long x_addr,
                                                      unsigned long long w_addr)
{
    return c > 0 && c % 8 == 0 && x_addr % 16 == 0 && w_addr % 16 == 0;
}

/* ======================= Part 2: CUDA ==================================== */

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "conv_sm80.cuh needs sm_80 or newer: mma.sync bf16, ldmatrix and cp.async"
#endif

/* Problem description; sizes are element counts.  80 bytes. */
struct evt_conv_args {
    const evt_u16 *x; /* NHWC input, dense */
    const evt_u16 *w; /* KRSC filter, dense */
    int n, h, wd, c, k, r, s, p, q; /* wd: input width */
    int pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
};
static_assert(sizeof(evt_conv_args) == 80, "evt_conv_args is 80 bytes: the runtime packs it so");

/* The C table's configurations as tile types (gemm_sm80.cuh's template). */
template <int ID> struct evt_conv_sm80_tile_of;
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_128x256x64_W8_S3> {
    typedef evt_gemm_sm80_tile<128, 256, 64, 2, 4, 3, 1> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_128x128x64_W4_S3> {
    typedef evt_gemm_sm80_tile<128, 128, 64, 2, 2, 3, 2> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_128x64x64_W4_S3> {
    typedef evt_gemm_sm80_tile<128, 64, 64, 2, 2, 3, 2> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_64x64x32_W4_S4> {
    typedef evt_gemm_sm80_tile<64, 64, 32, 2, 2, 4, 4> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_256x64x32_W4_S4> {
    typedef evt_gemm_sm80_tile<256, 64, 32, 4, 1, 4, 2> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_128x128x64_W4_S3_WS4> {
    typedef evt_gemm_sm80_tile<128, 128, 64, 2, 2, 3, 1, 4> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_128x256x64_WG2_S4> {
    typedef evt_gemm_sm80_tile<128, 256, 64, 2, 4, 4, 1, 0, true> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_192x128x64_WG3_S4> {
    typedef evt_gemm_sm80_tile<192, 128, 64, 3, 4, 4, 1, 0, true> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_128x128x64_WG2_S4_WS4> {
    typedef evt_gemm_sm80_tile<128, 128, 64, 2, 4, 4, 1, 4, true> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_128x128x64_WG2_S4_WS8> {
    typedef evt_gemm_sm80_tile<128, 128, 64, 2, 4, 4, 1, 8, true> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_128x128x32_WG2_S6> {
    typedef evt_gemm_sm80_tile<128, 128, 32, 2, 4, 6, 2, 0, true> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_128x128x64_PP2_S4> {
    typedef evt_gemm_sm80_tile<128, 128, 64, 2, 2, 4, 1, 0, true, 2> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_192x256x64_WG3_S4> {
    typedef evt_gemm_sm80_tile<192, 256, 64, 3, 4, 4, 1, 0, true> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_128x64x64_PP2_S7> {
    typedef evt_gemm_sm80_tile<128, 64, 64, 2, 2, 7, 1, 0, true, 2> type;
};
template <> struct evt_conv_sm80_tile_of<EVT_CONV_SM80_128x128x64_PP2_S2_ST2> {
    typedef evt_gemm_sm80_tile<128, 128, 64, 2, 2, 2, 1, 0, true, 2, 2> type;
};

/*
 * A tile plus operand type and path.  The smem constants are restated here
 * (not taken from Tile) so the file does not depend on where gemm_sm80.cuh
 * keeps them; they equal evt_gemm_sm80_smem_bytes() of the table entry.
 * kAKContig / kBKContig / kDType are what the shared fragment code reads.
 */
template <class Tile, int DT, bool ALIGNED>
struct evt_conv_sm80_cfg : Tile {
    static constexpr int kDType = DT;
    static constexpr int kALayout = EVT_ROW_MAJOR; /* im2col A: M x K, K-contiguous */
    static constexpr int kBLayout = EVT_COL_MAJOR; /* filter as K x N, K-contiguous */
    static constexpr bool kAKContig = true;
    static constexpr bool kBKContig = true;
    static constexpr bool kAligned = ALIGNED;

    static constexpr int kAStageBytes = Tile::kBM * Tile::kBK * 2;
    static constexpr int kBStageBytes = Tile::kBN * Tile::kBK * 2;
    static constexpr int kStageBytes = kAStageBytes + kBStageBytes;
    static constexpr int kPipeBytes = kStageBytes * Tile::kStages;
    static constexpr int kAccBytes = Tile::kBM * Tile::kAccLd * 4;
    static constexpr int kSmemBytes = Tile::kSmemBytes; /* the tile's, as for the GEMM */

    static_assert(DT == EVT_DT_F16 || DT == EVT_DT_BF16,
                  "operand type must be EVT_DT_F16 or EVT_DT_BF16");
    static_assert(kSmemBytes <= 227 * 1024, "tile does not fit in shared memory");
};

/* The C table and the tile types must agree: the host launches by the
 * former, the device code is built from the latter. */
template <int ID>
__host__ __device__ constexpr bool evt_conv_sm80_tile_matches()
{
    typedef typename evt_conv_sm80_tile_of<ID>::type T;
    typedef evt_conv_sm80_cfg<T, EVT_DT_F16, true> C;
    return evt_conv_sm80_cfg_lookup(ID).bm == T::kBM && evt_conv_sm80_cfg_lookup(ID).bn == T::kBN &&
           evt_conv_sm80_cfg_lookup(ID).bk == T::kBK &&
           evt_conv_sm80_cfg_lookup(ID).warps_m == T::kWarpsM &&
           evt_conv_sm80_cfg_lookup(ID).warps_n == T::kWarpsN &&
           evt_conv_sm80_cfg_lookup(ID).stages == T::kStages &&
           evt_conv_sm80_cfg_lookup(ID).min_blocks == T::kMinBlocks &&
           evt_conv_sm80_cfg_lookup(ID).ws * 32 == T::kEpiThreads &&
           evt_conv_sm80_cfg_lookup(ID).pp == T::kPP &&
           evt_conv_sm80_cfg_lookup(ID).staged == T::kStaged &&
           (evt_conv_sm80_cfg_lookup(ID).wgmma != 0) == T::kWgmma &&
           evt_gemm_sm80_threads(evt_conv_sm80_cfg_lookup(ID)) == T::kCtaThreads &&
           evt_gemm_sm80_smem_bytes(evt_conv_sm80_cfg_lookup(ID)) == C::kSmemBytes;
}
static_assert(evt_conv_sm80_tile_matches<0>() && evt_conv_sm80_tile_matches<1>() &&
                  evt_conv_sm80_tile_matches<2>() && evt_conv_sm80_tile_matches<3>() &&
                  evt_conv_sm80_tile_matches<4>() && evt_conv_sm80_tile_matches<5>() &&
                  evt_conv_sm80_tile_matches<6>() && evt_conv_sm80_tile_matches<7>() &&
                  evt_conv_sm80_tile_matches<8>() && evt_conv_sm80_tile_matches<9>() &&
                  evt_conv_sm80_tile_matches<10>() && evt_conv_sm80_tile_matches<11>() &&
                  evt_conv_sm80_tile_matches<12>() && evt_conv_sm80_tile_matches<13>() &&
                  evt_conv_sm80_tile_matches<14>() && EVT_CONV_SM80_NUM_CFGS == 15,
              "evt_conv_sm80_cfg_lookup() and evt_conv_sm80_tile_of<> disagree");

namespace evt_conv_sm80_detail {

EVT_DEVICE void st_shared_u16(evt_u32 addr, evt_u16 v)
{
    asm volatile("st.shared.u16 [%0], %1;" :: "r"(addr), "h"(v) : "memory");
}

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
    typedef evt_sm80_detail::smem_tile<Cfg::kBM, Cfg::kBK> a_tile;
    typedef evt_sm80_detail::smem_tile<Cfg::kBN, Cfg::kBK> b_tile;
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
                st_shared_u16(sbase + soff + j * map::kRowStep * map::kChunks * 16 + 2 * i, v);
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

/* The conv's k tile loads for run_pipeline: both loaders step K in order. */
template <class Cfg>
struct conv_stage_loader {
    static constexpr bool kTma = false;
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

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/*
 * The k tile loads of a TMA configuration's fast path (pp_run's producer,
 * one thread): the stage's A rows are the im2col map's column of kBM output
 * pixels from the tile's first on, at filter tap (r, s) and channels c0 ..
 * c0 + kBK; its B rows the tiled filter map's box at (k0, tile_n * kBN).
 * The maps (the runtime's, runtime/launch.c) put the box's lower corner at
 * minus the padding and the upper at padding - (filter - 1) dilation, step
 * by the stride, and zero-fill what falls outside the input or past the
 * last image or filter; so a load starts where the first pixel's window
 * does and is offset by the tap times the dilation.  c % kBK == 0: a k tile
 * never straddles two taps.
 */
template <class Cfg>
struct conv_tma_loader {
    static constexpr bool kTma = true;
    const evt_tma_maps *maps;
    int w0, h0, n0, col0; /* the tile's first window, filter row */
    int k0, c0, r, s;     /* the next k tile: its k, channel and tap */
    int c, sz, dil_h, dil_w;

    __device__ __forceinline__ void start(const evt_conv_args &a, int tile_m, int tile_n, int kt_begin)
    {
        (void)kt_begin; /* persistent tiles start at k tile 0 */
        const int m0 = tile_m * Cfg::kBM, pq = a.p * a.q;
        n0 = m0 / pq;
        const int rem = m0 - n0 * pq, p0 = rem / a.q, q0 = rem - p0 * a.q;
        h0 = p0 * a.stride_h - a.pad_h;
        w0 = q0 * a.stride_w - a.pad_w;
        col0 = tile_n * Cfg::kBN;
        k0 = c0 = r = s = 0;
        c = a.c;
        sz = a.s;
        dil_h = a.dil_h;
        dil_w = a.dil_w;
    }

    /* Stage `stage` <- the next k tile; completes on mbarrier `full`. */
    __device__ __forceinline__ void issue(evt_u32 stage, evt_u32 full)
    {
        evt_sm80_detail::mbar_arrive_expect_tx(full, Cfg::kStageBytes);
        const unsigned short ow = (unsigned short)(s * dil_w), oh = (unsigned short)(r * dil_h);
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%3, %4, %5, %6}], [%2], {%7, %8};"
                     ::"r"(stage), "l"(&maps->a), "r"(full), "r"(c0), "r"(w0), "r"(h0), "r"(n0),
                     "h"(ow), "h"(oh)
                     : "memory");
        evt_sm80_detail::tma_load_2d(stage + Cfg::kAStageBytes, &maps->b, full, k0, col0);
        k0 += Cfg::kBK;
        c0 += Cfg::kBK;
        if (c0 == c) {
            c0 = 0;
            if (++s == sz) {
                s = 0;
                ++r;
            }
        }
    }
};
#endif

} /* namespace evt_conv_sm80_detail */

/*
 * The mainloop: accumulate output tile (tile_m, tile_n) over share `share`
 * of `shares` of the k tiles of K = r s c (all by default) and leave it in
 * smem as float[Cfg::kBM][Cfg::kAccLd] (see the top of this file).  All
 * Cfg::kThreads threads must call it; smem must be at least
 * Cfg::kSmemBytes of dynamic shared memory, 128-byte aligned.  The pipeline
 * is gemm_sm80.cuh's run_mainloop; k tiles are loaded strictly in order,
 * which is what lets the loaders step K incrementally from the share's first.
 */
template <class Cfg>
__device__ __forceinline__ void evt_conv_sm80_mainloop(const evt_conv_args &args, int tile_m,
                                                       int tile_n, unsigned char *smem,
                                                       int share = 0, int shares = 1)
{
    using namespace evt_sm80_detail;
    using namespace evt_conv_sm80_detail;
    const int tid = threadIdx.x;
    const int k_gemm = args.r * args.s * args.c;
    int kt_begin;
    const int k_tiles = evt_sm80_k_share((k_gemm + Cfg::kBK - 1) / Cfg::kBK, share, shares, &kt_begin);

    conv_stage_loader<Cfg> load;
    load.start(args, tile_m, tile_n, k_tiles ? kt_begin : 0);
    run_mainloop<Cfg>(k_tiles, load, smem, tid);
}

/* The conv under gemm_sm80.cuh's warp-specialized schedule
 * (evt_sm80_detail::ws_run): epi(tile_m, tile_n, acc) runs on the epilogue
 * warps for every tile of the CTA. */
template <class Cfg, class Epi>
__device__ __forceinline__ void evt_conv_sm80_ws(const evt_conv_args &args, unsigned char *smem,
                                                 const Epi &epi, const evt_tma_maps *maps = nullptr)
{
    const int k_gemm = args.r * args.s * args.c;
    const int m = args.n * args.p * args.q, k_tiles = (k_gemm + Cfg::kBK - 1) / Cfg::kBK;
    (void)maps;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    if constexpr (Cfg::kPP > 0 && Cfg::kAligned) { /* producer/consumer fast path: TMA */
        evt_conv_sm80_detail::conv_tma_loader<Cfg> load;
        load.maps = maps;
        evt_sm80_detail::ws_run<Cfg>(args, m, args.k, k_tiles, smem, epi, load);
    } else
#endif
    {
        evt_sm80_detail::ws_run<Cfg, evt_conv_sm80_detail::conv_stage_loader<Cfg> >(
            args, m, args.k, k_tiles, smem, epi);
    }
}

#endif /* __CUDACC__ || __CUDACC_RTC__ */

#endif /* EVT_CONV_SM80_CUH */
