/*
 * gemm_sm80.cuh - tensor-core GEMM mainloop for sm_80/86/89 (also run on
 * sm_90a): D_tile = A[M,K] * B[K,N] with f16 or bf16 operands and f32
 * accumulation, mma.sync m16n8k16 fed by ldmatrix from an XOR-swizzled,
 * multi-stage cp.async pipeline.
 *
 * The file has two parts.
 *
 *   1. Plain C (compiles as C11, C++, nvcc and NVRTC): the table of tile
 *      configurations, the heuristic that picks one from M, N, K, and the
 *      fast-path test.  Host code of the runtime may include this file for
 *      them; the CUDA part below is skipped there.
 *
 *   2. CUDA (nvcc or NVRTC, needs evt_common.cuh pasted or included first):
 *      evt_gemm_sm80_tile<> (a tile shape), evt_gemm_sm80_cfg<> (a shape plus
 *      operand type and layouts), evt_gemm_sm80_tile_coord<>() (CTA index ->
 *      output tile, grouped for L2 reuse) and evt_gemm_sm80_mainloop<>().
 *
 * Interface to the epilogue.  The mainloop never exposes its register
 * layout.  When evt_gemm_sm80_mainloop<Cfg>() returns, the CTA's f32
 * accumulator tile sits at the start of the dynamic shared memory it was
 * given, as a row-major float[Cfg::kBM][Cfg::kAccLd] array (kAccLd = kBN +
 * kAccPad), and a __syncthreads() has been executed.  Element (r, c) of the
 * tile is output element (tile_m * kBM + r, tile_n * kBN + c); rows and
 * columns past M or N hold zeros and must not be stored.  Bytes from
 * Cfg::kAccBytes up to Cfg::kSmemBytes are free for the epilogue.
 *
 * Operand conventions (see evt_gemm_args): A is M x K, B is K x N.
 * A row-major and B column-major (the nn.Linear "TN" case) are the
 * K-contiguous layouts; A column-major and B row-major are M/N-contiguous.
 *
 * Fast path (Aligned = true) requires, per operand, that its contiguous
 * extent be a multiple of 8 elements, its leading dimension a multiple of 8
 * elements and its base pointer 16-byte aligned:
 *     A row-major: K % 8 == 0, lda % 8 == 0      A col-major: M % 8 == 0, lda % 8 == 0
 *     B col-major: K % 8 == 0, ldb % 8 == 0      B row-major: N % 8 == 0, ldb % 8 == 0
 * evt_gemm_sm80_fast_path_ok() tests exactly this.  Aligned = false loads
 * element by element with bounds checks; it is correct for any M, N, K >= 0,
 * any ld >= the contiguous extent and any 2-byte-aligned pointer.  Ragged
 * tile edges in M, N and K are handled by both paths (zero fill).
 */
#ifndef EVT_GEMM_SM80_CUH
#define EVT_GEMM_SM80_CUH

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define EVT_HD __host__ __device__
#else
#define EVT_HD
#endif
/* The table is constexpr in C++ so the tile types can be checked against it.
 * C needs static inline for header functions; in C++ plain inline, since
 * NVRTC warns about every unused static function. */
#ifdef __cplusplus
#define EVT_CONSTEXPR constexpr
#define EVT_C_INLINE inline
#else
#define EVT_CONSTEXPR
#define EVT_C_INLINE static inline
#endif

/* ======================= Part 1: plain C ================================= */

/*
 * Tile configurations; the names read BMxBNxBK_warps_stages (WGn: n wgmma
 * warpgroups, sm_90a).  Every mma.sync warp computes a 64x64 tile (32x32 in
 * the small one), every warpgroup 64 rows.  Ids are stable: codegen refers
 * to them.  Others measured and dropped (docs/gemm_sm80.md): 128x128x32
 * with 8 warps of 64x32, 256x128x32/64, 128x256x64 with 4 stages; in
 * session 3 the warp-specialized 128x128 tiles (8 mma.sync warps or 2
 * warpgroups beside 4 epilogue warps), slower than ids 3 and 5.
 */
enum evt_gemm_sm80_cfg_id {
    EVT_GEMM_SM80_128x256x32_W8_S4 = 0, /* 1 CTA/SM */
    EVT_GEMM_SM80_128x128x32_W4_S4 = 1, /* 2 CTAs/SM */
    EVT_GEMM_SM80_64x64x32_W4_S4 = 2,   /* small or skinny problems, 4 CTAs/SM */
    EVT_GEMM_SM80_128x256x64_W8_S3 = 3, /* large problems, 1 CTA/SM */
    EVT_GEMM_SM80_128x128x64_W4_S3 = 4, /* medium problems, 2 CTAs/SM */
    EVT_GEMM_SM80_128x256x64_WG2_S4 = 5, /* sm_90a wgmma, 2 warpgroups, 1 CTA/SM */
    EVT_GEMM_SM80_128x128x64_WG2_S3 = 6, /* sm_90a wgmma, 2 warpgroups, 2 CTAs/SM */
    EVT_GEMM_SM80_128x128x64_PP2_S4 = 7, /* sm_90a: a TMA producer, 2 wgmma consumers, persistent */
    EVT_GEMM_SM80_NUM_CFGS = 8
};

typedef struct evt_gemm_sm80_cfg_info {
    int bm, bn, bk;       /* CTA tile */
    int warps_m, warps_n; /* warp grid; warp tile = bm/warps_m x bn/warps_n */
    int stages;           /* cp.async pipeline depth */
    int min_blocks;       /* __launch_bounds__ minimum CTAs per SM */
    int wgmma;            /* 1: sm_90a warpgroup MMAs (run_pipeline_wgmma) */
    int ws;               /* epilogue warps of a warp-specialized, persistent
                           * configuration (evt_sm80_detail::ws_run); 0: none */
    int pp;               /* consumer warpgroups of a producer/consumer persistent
                           * configuration (evt_sm80_detail::pp_run), each with
                           * its own tiles, sharing one accumulator tile; the
                           * warps above are the producer's, whose fast path
                           * loads with TMA (the entry takes evt_tma_maps).
                           * 0: none */
    int staged;           /* producer/consumer only: shared-memory tiles (one
                           * per consumer) that the producer fills with the
                           * tile's values of the epilogue's first 16-bit
                           * [M, N] input (codegen's cg_staged_input) while
                           * the mainloops run; 0: none */
} evt_gemm_sm80_cfg_info;

/* Padding of the accumulator tile's rows, in floats: a row stride of
 * 8 (mod 32) words makes the mainloop's float2 stores conflict-free and
 * keeps every row 16-byte aligned for float4 reads. */
#define EVT_GEMM_SM80_ACC_PAD 8

EVT_C_INLINE EVT_HD EVT_CONSTEXPR evt_gemm_sm80_cfg_info evt_gemm_sm80_cfg_lookup(int id)
{
    /* A switch rather than a static table: device code has no function statics. */
    evt_gemm_sm80_cfg_info c = {128, 256, 32, 2, 4, 4, 1, 0, 0, 0, 0};
    switch (id) {
    case EVT_GEMM_SM80_128x128x32_W4_S4: c.bn = 128; c.warps_n = 2; c.min_blocks = 2; break;
    case EVT_GEMM_SM80_64x64x32_W4_S4:
        c.bm = 64; c.bn = 64; c.warps_n = 2; c.min_blocks = 4; break;
    case EVT_GEMM_SM80_128x256x64_W8_S3: c.bk = 64; c.stages = 3; break;
    case EVT_GEMM_SM80_128x128x64_W4_S3:
        c.bn = 128; c.bk = 64; c.warps_n = 2; c.stages = 3; c.min_blocks = 2; break;
    case EVT_GEMM_SM80_128x256x64_WG2_S4: c.bk = 64; c.wgmma = 1; break;
    case EVT_GEMM_SM80_128x128x64_WG2_S3:
        c.bn = 128; c.bk = 64; c.stages = 3; c.min_blocks = 2; c.wgmma = 1; break;
    case EVT_GEMM_SM80_128x128x64_PP2_S4:
        c.bn = 128; c.bk = 64; c.warps_n = 2; c.wgmma = 1; c.pp = 2; break;
    default: break;
    }
    return c;
}

/* Threads of a CTA: the mma (or producer) warps, the epilogue warps of a
 * warp-specialized configuration and the consumer warpgroups of a
 * producer/consumer one. */
EVT_C_INLINE EVT_HD EVT_CONSTEXPR int evt_gemm_sm80_threads(evt_gemm_sm80_cfg_info c)
{
    return 32 * (c.warps_m * c.warps_n + c.ws) + 128 * c.pp;
}

/* Shared memory of a producer/consumer configuration's mbarriers. */
#define EVT_GEMM_SM80_BAR_BYTES 256

/* Dynamic shared memory a CTA needs: the larger of the pipeline and the
 * f32 accumulator tile that reuses it; both side by side when
 * warp-specialized (the next tile's k tiles load while the epilogue warps
 * read the accumulator tile). */
EVT_C_INLINE EVT_HD EVT_CONSTEXPR int evt_gemm_sm80_smem_bytes(evt_gemm_sm80_cfg_info c)
{
    int pipe = c.stages * (c.bm + c.bn) * c.bk * 2;
    int acc = c.bm * (c.bn + EVT_GEMM_SM80_ACC_PAD) * 4;
    return c.pp ? pipe + acc + c.staged * c.bm * c.bn * 2 + EVT_GEMM_SM80_BAR_BYTES + 1024
                : (c.ws ? pipe + acc : pipe > acc ? pipe : acc) + (c.wgmma ? 1024 : 0);
}

/* CTAs to launch for `tiles` output tiles: one per tile, or for a
 * warp-specialized configuration one per CTA slot (min_blocks per SM on
 * num_sms multiprocessors, 0: 132), each walking tiles blockIdx.x,
 * + gridDim.x, ... */
EVT_C_INLINE EVT_HD long long evt_gemm_sm80_grid(evt_gemm_sm80_cfg_info c, long long tiles,
                                                 int num_sms)
{
    long long slots = (long long)(num_sms > 0 ? num_sms : 132) * (c.min_blocks > 0 ? c.min_blocks : 1);
    return (c.ws || c.pp) && tiles > slots ? slots : tiles;
}

EVT_C_INLINE EVT_HD EVT_CONSTEXPR long long evt_gemm_sm80_num_tiles(evt_gemm_sm80_cfg_info c,
                                                                   long long m, long long n)
{
    return ((m + c.bm - 1) / c.bm) * ((n + c.bn - 1) / c.bn);
}

/*
 * Pick a configuration for an M x N x K problem on a GPU with num_sms
 * multiprocessors (0: assume 132).  Big tiles when they still give every SM
 * at least two tiles; 128x128 (two CTAs per SM) when that fills the machine
 * once; 64x64 otherwise, since there idle SMs cost more than low arithmetic
 * intensity.  BK = 64 wherever it fits: on the H200 it beat BK = 32 by
 * 5-15% (128x256) and 0-8% (128x128) at 4096^3 and 8192^3, see
 * docs/gemm_sm80.md.  K does not change the choice: it only sets the
 * length of the mainloop.
 */
EVT_C_INLINE EVT_HD int evt_gemm_sm80_pick(long long m, long long n, long long k, int num_sms)
{
    long long sms = num_sms > 0 ? num_sms : 132;
    (void)k;
    if (evt_gemm_sm80_num_tiles(evt_gemm_sm80_cfg_lookup(EVT_GEMM_SM80_128x256x64_W8_S3), m, n) >=
        2 * sms)
        return EVT_GEMM_SM80_128x256x64_W8_S3;
    if (evt_gemm_sm80_num_tiles(evt_gemm_sm80_cfg_lookup(EVT_GEMM_SM80_128x128x64_W4_S3), m, n) >=
        sms)
        return EVT_GEMM_SM80_128x128x64_W4_S3;
    return EVT_GEMM_SM80_64x64x32_W4_S4;
}

/*
 * sm_90a (wgmma configurations): the work one SM does for a grid of
 * configuration c, counted in whole waves of its tile slots (tile area x
 * tiles in flight per SM, CTAs or a producer/consumer CTA's consumers, x
 * waves), scaled by penalty_pct for tiles that run below (or, negative,
 * above) the others' rate.  The sm_90a heuristics take the cheapest.
 */
EVT_C_INLINE EVT_HD double evt_sm90_wave_cost(evt_gemm_sm80_cfg_info c, long long m, long long n,
                                             int num_sms, int penalty_pct)
{
    /* a double: 2^31 x 2^31 problems have 2^48 tiles, and the product would
     * overflow 64 bits; exact (so ties stay ties) below 2^53 */
    const int per_sm = c.pp ? c.pp : c.min_blocks;
    long long slots = (long long)(num_sms > 0 ? num_sms : 132) * per_sm;
    long long waves = (evt_gemm_sm80_num_tiles(c, m, n) + slots - 1) / slots;
    return (double)waves * c.bm * c.bn * per_sm * (100 + penalty_pct);
}

/*
 * The GEMM heuristic on sm_90a when A is row-major and B column-major (the
 * wgmma configurations' K-contiguous operands): where evt_gemm_sm80_pick
 * takes a 128-wide tile, the wgmma 128x256 tile or, where its waves cost
 * less (or as much, with K of at most two k tiles), the wgmma 128x128 tile
 * at two CTAs per SM.  Small problems keep 64x64 tiles and split-K.  On the
 * H200, GEMM + bias + ReLU 4096^3 went from 284 to 211 us with the 128x256
 * tile, 2048^3 from 42 to 31 (docs/gemm_sm80.md).  Where tma is set (the
 * fast path and a driver with tensor maps), K is longer than two k tiles and
 * every consumer gets two tiles or more, the producer/consumer tile: GEMM +
 * bias + GELU 4096^3 268 -> 248 us, 8192^3 2105 -> 1957, 16384x1024x4096
 * 315 -> 269 (at 2048^3, one tile a consumer, it lost: 47 -> 49).
 */
EVT_C_INLINE EVT_HD int evt_gemm_sm90_pick(long long m, long long n, long long k, int num_sms,
                                           int tma)
{
    int classic = evt_gemm_sm80_pick(m, n, k, num_sms);
    if (classic == EVT_GEMM_SM80_64x64x32_W4_S4)
        return classic;
    const evt_gemm_sm80_cfg_info pp = evt_gemm_sm80_cfg_lookup(EVT_GEMM_SM80_128x128x64_PP2_S4);
    if (tma && k > 2 * pp.bk &&
        evt_gemm_sm80_num_tiles(pp, m, n) >= 2LL * pp.pp * (num_sms > 0 ? num_sms : 132))
        return EVT_GEMM_SM80_128x128x64_PP2_S4;
    double wide = evt_sm90_wave_cost(evt_gemm_sm80_cfg_lookup(EVT_GEMM_SM80_128x256x64_WG2_S4), m,
                                        n, num_sms, 0);
    double square = evt_sm90_wave_cost(evt_gemm_sm80_cfg_lookup(EVT_GEMM_SM80_128x128x64_WG2_S3),
                                          m, n, num_sms, 0);
    return square < wide || (square == wide && k <= 128) ? EVT_GEMM_SM80_128x128x64_WG2_S3
                                                         : EVT_GEMM_SM80_128x256x64_WG2_S4;
}

/*
 * Split-K, for any sm80 mainloop: how many CTAs compute each of `tiles`
 * output tiles on num_sms multiprocessors holding `per_sm` CTAs each, every
 * one over a share of the k_tiles k tiles (evt_sm80_k_share), with a second
 * kernel adding the partial tiles in a fixed order before the epilogue.  A
 * grid that fills under a quarter of the CTA slots is split, up to four
 * ways, at least four k tiles a share; anything larger is not (1).  On the
 * H200 that took 256x512x16384 from 97 to 39 us and 512x512x8192 from 55 to
 * 35, while splitting a half-filled grid (1024x1024x8192: 81 -> 85 us) or the
 * last partial wave of a larger one (the 14x14x256 -> 256 3x3 ResNet-50
 * layer: 90 -> 107 us) lost.
 */
EVT_C_INLINE EVT_HD int evt_sm80_split_plan(long long tiles, int per_sm, int num_sms, long long k_tiles)
{
    long long slots = (long long)(num_sms > 0 ? num_sms : 132) * (per_sm > 0 ? per_sm : 1);
    long long s = tiles > 0 && 4 * tiles <= slots ? slots / tiles : 1;
    s = s < 4 ? s : 4;
    s = s < k_tiles / 4 ? s : k_tiles / 4;
    return s >= 2 ? (int)s : 1;
}

/* Share `share` of `shares` of k_tiles k tiles: the first k tile in *begin,
 * the count returned (0 for a share past the end). */
EVT_C_INLINE EVT_HD int evt_sm80_k_share(int k_tiles, int share, int shares, int *begin)
{
    const int per = (k_tiles + shares - 1) / shares;
    const int first = share * per, last = first + per < k_tiles ? first + per : k_tiles;
    *begin = first;
    return last > first ? last - first : 0;
}

/*
 * 1 when the Aligned = true mainloop may run: a_layout / b_layout are
 * EVT_ROW_MAJOR (0) or EVT_COL_MAJOR (1), a_addr / b_addr the base
 * addresses as integers.  See the conditions at the top of this file.
 */
EVT_C_INLINE EVT_HD int evt_gemm_sm80_fast_path_ok(int a_layout, int b_layout, long long m,
                                                   long long n, long long k,
                                                   unsigned long long a_addr, long long lda,
                                                   unsigned long long b_addr, long long ldb)
{
    long long a_ext = a_layout == 0 ? k : m;
    long long b_ext = b_layout == 0 ? n : k;
    return a_ext % 8 == 0 && lda % 8 == 0 && a_addr % 16 == 0 && b_ext % 8 == 0 &&
           ldb % 8 == 0 && b_addr % 16 == 0;
}

/* ======================= Part 2: CUDA ==================================== */

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

#ifndef EVT_COMMON_CUH
#error "gemm_sm80.cuh needs evt_common.cuh before it (NVRTC: paste or pass it as a header)"
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "gemm_sm80.cuh needs sm_80 or newer: mma.sync bf16, ldmatrix and cp.async"
#endif

/* Problem description.  Pointers are to f16/bf16 storage (evt_u16). */
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

struct evt_gemm_args {
    const evt_u16 *a; /* M x K, layout per Cfg::kALayout */
    const evt_u16 *b; /* K x N, layout per Cfg::kBLayout */
    int m, n, k;
    evt_i64 lda, ldb; /* in elements */
};

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int MIN_BLOCKS,
          int WS_WARPS = 0, bool WGMMA = false, int PP = 0, int STAGED = 0>
struct evt_gemm_sm80_tile {
    static constexpr int kBM = BM;
    static constexpr int kBN = BN;
    static constexpr int kBK = BK;
    static constexpr int kWarpsM = WARPS_M;
    static constexpr int kWarpsN = WARPS_N;
    static constexpr int kStages = STAGES;
    static constexpr int kMinBlocks = MIN_BLOCKS;
    static constexpr bool kWS = WS_WARPS > 0;
    static constexpr bool kWgmma = WGMMA;
    static constexpr int kPP = PP; /* consumer warpgroups (pp_run) */
    static constexpr int kStaged = STAGED; /* staged epilogue input tiles (pp_run) */

    static constexpr int kThreads = 32 * WARPS_M * WARPS_N; /* the mma (pp: producer) warps' */
    static constexpr int kEpiThreads = 32 * WS_WARPS;       /* the epilogue warps' (ws) */
    static constexpr int kCtaThreads = kThreads + kEpiThreads + 128 * PP;
    static constexpr int kWM = BM / WARPS_M; /* warp tile */
    static constexpr int kWN = BN / WARPS_N;
    static constexpr int kMI = kWM / 16; /* m16 fragments per warp */
    static constexpr int kNI = kWN / 8;  /* n8 fragments per warp */
    static constexpr int kKSteps = BK / 16;
    static constexpr int kAccPad = EVT_GEMM_SM80_ACC_PAD;
    static constexpr int kAccLd = BN + kAccPad; /* row stride of the acc tile, floats */

    /* Shared memory (both operand types are 2 bytes wide). */
    static constexpr int kAStageBytes = BM * BK * 2;
    static constexpr int kBStageBytes = BN * BK * 2;
    static constexpr int kStageBytes = kAStageBytes + kBStageBytes;
    static constexpr int kPipeBytes = kStageBytes * STAGES;
    static constexpr int kAccBytes = BM * kAccLd * 4;
    static constexpr int kStagedTileBytes = BM * BN * 2; /* one staged 16-bit input tile */
    static constexpr int kSmemBytes =
        PP ? kPipeBytes + kAccBytes + STAGED * kStagedTileBytes + EVT_GEMM_SM80_BAR_BYTES + 1024
           : (kWS ? kPipeBytes + kAccBytes : kPipeBytes > kAccBytes ? kPipeBytes : kAccBytes) +
                 (WGMMA ? 1024 : 0); /* + the stages' 1024-byte alignment */
    static_assert(PP == 0 || (WGMMA && WS_WARPS == 0 && BM == 128 && WARPS_M * WARPS_N == 4),
                  "producer/consumer tiles: one 128-thread producer, wgmma consumers of 128 rows");
    static_assert(STAGED == 0 || (PP == 2 && STAGED == 2), "staged inputs: one tile per consumer");


    static_assert(BM % (16 * WARPS_M) == 0, "warp tile M must be a multiple of 16");
    static_assert(BN % (16 * WARPS_N) == 0,
                  "warp tile N must be a multiple of 16 (ldmatrix.x4 loads two n8 fragments)");
    static_assert(BK == 32 || BK == 64,
                  "BK must be 32 or 64 (the swizzle and fragment double-buffering assume it)");
    static_assert(BM % 64 == 0 && BN % 64 == 0,
                  "BM, BN must be multiples of 64 (M/N-contiguous rows need >= 8 chunks)");
    static_assert(STAGES >= 2 && (STAGES <= 8 || PP > 0), "2..8 pipeline stages (cp.async groups)");
    static_assert(kCtaThreads <= 1024, "too many warps");
    static_assert(kAccLd % 32 == 8, "acc row stride must be 8 (mod 32) floats");
    static_assert(kSmemBytes <= 227 * 1024, "tile does not fit in shared memory");
};

/* The C table's configurations as tile types, by evt_gemm_sm80_cfg_id. */
template <int ID> struct evt_gemm_sm80_tile_of;
template <> struct evt_gemm_sm80_tile_of<EVT_GEMM_SM80_128x256x32_W8_S4> {
    typedef evt_gemm_sm80_tile<128, 256, 32, 2, 4, 4, 1> type;
};
template <> struct evt_gemm_sm80_tile_of<EVT_GEMM_SM80_128x128x32_W4_S4> {
    typedef evt_gemm_sm80_tile<128, 128, 32, 2, 2, 4, 2> type;
};
template <> struct evt_gemm_sm80_tile_of<EVT_GEMM_SM80_64x64x32_W4_S4> {
    typedef evt_gemm_sm80_tile<64, 64, 32, 2, 2, 4, 4> type;
};
template <> struct evt_gemm_sm80_tile_of<EVT_GEMM_SM80_128x256x64_W8_S3> {
    typedef evt_gemm_sm80_tile<128, 256, 64, 2, 4, 3, 1> type;
};
template <> struct evt_gemm_sm80_tile_of<EVT_GEMM_SM80_128x128x64_W4_S3> {
    typedef evt_gemm_sm80_tile<128, 128, 64, 2, 2, 3, 2> type;
};
template <> struct evt_gemm_sm80_tile_of<EVT_GEMM_SM80_128x256x64_WG2_S4> {
    typedef evt_gemm_sm80_tile<128, 256, 64, 2, 4, 4, 1, 0, true> type;
};
template <> struct evt_gemm_sm80_tile_of<EVT_GEMM_SM80_128x128x64_WG2_S3> {
    typedef evt_gemm_sm80_tile<128, 128, 64, 2, 4, 3, 2, 0, true> type;
};
template <> struct evt_gemm_sm80_tile_of<EVT_GEMM_SM80_128x128x64_PP2_S4> {
    typedef evt_gemm_sm80_tile<128, 128, 64, 2, 2, 4, 1, 0, true, 2> type;
};

/* The C table and the tile types must agree: the host launches by the
 * former, the device code is built from the latter. */
template <int ID>
__host__ __device__ constexpr bool evt_gemm_sm80_tile_matches()
{
    typedef typename evt_gemm_sm80_tile_of<ID>::type T;
    return evt_gemm_sm80_cfg_lookup(ID).bm == T::kBM && evt_gemm_sm80_cfg_lookup(ID).bn == T::kBN &&
           evt_gemm_sm80_cfg_lookup(ID).bk == T::kBK &&
           evt_gemm_sm80_cfg_lookup(ID).warps_m == T::kWarpsM &&
           evt_gemm_sm80_cfg_lookup(ID).warps_n == T::kWarpsN &&
           evt_gemm_sm80_cfg_lookup(ID).stages == T::kStages &&
           evt_gemm_sm80_cfg_lookup(ID).min_blocks == T::kMinBlocks &&
           evt_gemm_sm80_cfg_lookup(ID).ws * 32 == T::kEpiThreads &&
           evt_gemm_sm80_cfg_lookup(ID).pp == T::kPP &&
           evt_gemm_sm80_cfg_lookup(ID).staged == T::kStaged &&
           (evt_gemm_sm80_cfg_lookup(ID).wgmma != 0) == T::kWgmma &&
           evt_gemm_sm80_threads(evt_gemm_sm80_cfg_lookup(ID)) == T::kCtaThreads &&
           evt_gemm_sm80_smem_bytes(evt_gemm_sm80_cfg_lookup(ID)) == T::kSmemBytes;
}
static_assert(evt_gemm_sm80_tile_matches<0>() && evt_gemm_sm80_tile_matches<1>() &&
                  evt_gemm_sm80_tile_matches<2>() && evt_gemm_sm80_tile_matches<3>() &&
                  evt_gemm_sm80_tile_matches<4>() && evt_gemm_sm80_tile_matches<5>() &&
                  evt_gemm_sm80_tile_matches<6>() && evt_gemm_sm80_tile_matches<7>() &&
                  EVT_GEMM_SM80_NUM_CFGS == 8,
              "evt_gemm_sm80_cfg_lookup() and evt_gemm_sm80_tile_of<> disagree");

template <class Tile, int DT, int A_LAYOUT, int B_LAYOUT, bool ALIGNED>
struct evt_gemm_sm80_cfg : Tile {
    static constexpr int kDType = DT;
    static constexpr int kALayout = A_LAYOUT;
    static constexpr int kBLayout = B_LAYOUT;
    static constexpr bool kAligned = ALIGNED;
    static constexpr bool kAKContig = A_LAYOUT == EVT_ROW_MAJOR;
    static constexpr bool kBKContig = B_LAYOUT == EVT_COL_MAJOR;

    static_assert(DT == EVT_DT_F16 || DT == EVT_DT_BF16,
                  "operand type must be EVT_DT_F16 or EVT_DT_BF16");
    static_assert(A_LAYOUT == EVT_ROW_MAJOR || A_LAYOUT == EVT_COL_MAJOR, "bad A layout");
    static_assert(B_LAYOUT == EVT_ROW_MAJOR || B_LAYOUT == EVT_COL_MAJOR, "bad B layout");
};

/*
 * CTA index -> output tile.  Tiles are walked in groups of GROUP_M tile-rows:
 * down a group's column of GROUP_M M-tiles, then to the next N column, so
 * the CTAs resident at once share a few A row-panels and B column-panels in
 * L2.  GROUP_M = 1 is plain row-by-row order.  Launch
 * evt_gemm_sm80_num_tiles() CTAs.
 */
template <class Cfg, int GROUP_M = 8>
__device__ __forceinline__ void evt_gemm_sm80_tile_coord(int tile_id, int m, int n, int *tile_m,
                                                         int *tile_n)
{
    const int group_m = GROUP_M;
    int tiles_m = (m + Cfg::kBM - 1) / Cfg::kBM;
    int tiles_n = (n + Cfg::kBN - 1) / Cfg::kBN;
    int per_group = group_m * tiles_n;
    int group = tile_id / per_group;
    int first_m = group * group_m;
    int rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
    int in_group = tile_id - group * per_group;
    *tile_m = first_m + in_group % rows;
    *tile_n = in_group / rows;
}

namespace evt_sm80_detail {

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

    static __device__ __forceinline__ int offset(int row, int chunk) /* bytes */
    {
        int sw = kChunks == 4 ? (row >> 1) & 3 : row & 7;
        return (row * kChunks + (chunk ^ sw)) * 16;
    }
};

template <class Cfg, bool A>
struct operand {
    static constexpr bool kKContig = A ? Cfg::kAKContig : Cfg::kBKContig;
    static constexpr int kR = A ? Cfg::kBM : Cfg::kBN; /* extent along M or N */
    static constexpr int kRows = kKContig ? kR : Cfg::kBK;
    static constexpr int kCols = kKContig ? Cfg::kBK : kR;
    typedef smem_tile<kRows, kCols> tile;
    static constexpr int kChunkCount = kRows * kCols / 8;
    static_assert(kChunkCount % Cfg::kThreads == 0, "threads must divide a stage's 16-byte chunks");
    static constexpr int kPerThread = kChunkCount / Cfg::kThreads;
};

/*
 * Per-thread state of one operand's global->shared copy.  Chunk j of this
 * thread is chunk tid + j * kThreads of the stage.  Since kThreads is a
 * multiple of 8 rows' worth of chunks, all of a thread's chunks share the
 * chunk column and the swizzle, and chunk j sits kRowStep * j rows below
 * chunk 0: one base pointer and one shared offset describe them all.  For
 * K-contiguous operands a row is an M/N index fixed for the whole K loop;
 * otherwise a row is a k index and the chunk spans 8 M/N positions.
 */
template <class Cfg, bool A>
struct loader {
    typedef operand<Cfg, A> op;
    static constexpr int kRowStep = Cfg::kThreads / op::tile::kChunks;
    static_assert(Cfg::kThreads % op::tile::kChunks == 0 && kRowStep % 8 == 0,
                  "a CTA must copy whole 8-row swizzle groups per pass");

    const evt_u16 *base; /* matrix base, for the guarded path */
    const evt_u16 *ptr;  /* first element of chunk 0 at k tile 0 (clamped into the matrix) */
    evt_i64 ld;
    int soff; /* swizzled byte offset of chunk 0 in a stage */
    int mn;   /* M/N index of chunk 0's first element */
    int kpos; /* k of chunk 0's first element at k tile 0 */
    int mn_lim, k_lim;

    __device__ __forceinline__ void init(const evt_u16 *base_, evt_i64 ld_, int mn0, int mn_lim_,
                                         int k_lim_)
    {
        base = base_;
        ld = ld_;
        mn_lim = mn_lim_;
        k_lim = k_lim_;
        int row = (int)threadIdx.x / op::tile::kChunks;
        int ch = (int)threadIdx.x % op::tile::kChunks;
        soff = op::tile::offset(row, ch);
        if (op::kKContig) {
            mn = mn0 + row;
            kpos = ch * 8;
            ptr = base + (evt_i64)(mn < mn_lim ? mn : 0) * ld + kpos;
        } else {
            mn = mn0 + ch * 8;
            kpos = row;
            ptr = base + (evt_i64)kpos * ld + (mn < mn_lim ? mn : 0);
        }
    }

    /* Fast path: 16-byte cp.async per chunk, zero-filled outside the matrix. */
    __device__ __forceinline__ void load_async(evt_u32 sbase, int kt) const
    {
        const evt_u16 *src = op::kKContig ? ptr + kt * Cfg::kBK : ptr + (evt_i64)kt * Cfg::kBK * ld;
        const evt_i64 step = (evt_i64)kRowStep * ld; /* one running pointer: fewer live registers */
#pragma unroll
        for (int j = 0; j < op::kPerThread; ++j, src += step) {
            int r = j * kRowStep;
            bool ok = op::kKContig ? mn + r < mn_lim && kt * Cfg::kBK + kpos < k_lim
                                   : mn < mn_lim && kt * Cfg::kBK + kpos + r < k_lim;
            evt_cp_async_16(sbase + soff + r * op::tile::kChunks * 16, ok ? src : base, ok);
        }
    }

    /* Slow path: 8 guarded 2-byte loads per chunk, then one 16-byte store.
     * Two chunks at a time: fully unrolled, the loads of all chunks would be
     * hoisted together and spill. */
    __device__ __forceinline__ void load_guarded(evt_u32 sbase, int kt) const
    {
#pragma unroll 2
        for (int j = 0; j < op::kPerThread; ++j) {
            int r = j * kRowStep;
            int k0 = kt * Cfg::kBK + kpos + (op::kKContig ? 0 : r);
            int m0 = mn + (op::kKContig ? r : 0);
            evt_u32 w[4];
#pragma unroll
            for (int e = 0; e < 8; e += 2) {
                evt_u32 lo = 0, hi = 0;
                if (op::kKContig) {
                    if (m0 < mn_lim) {
                        const evt_u16 *p = base + (evt_i64)m0 * ld;
                        if (k0 + e < k_lim)
                            lo = p[k0 + e];
                        if (k0 + e + 1 < k_lim)
                            hi = p[k0 + e + 1];
                    }
                } else if (k0 < k_lim) {
                    const evt_u16 *p = base + (evt_i64)k0 * ld;
                    if (m0 + e < mn_lim)
                        lo = p[m0 + e];
                    if (m0 + e + 1 < mn_lim)
                        hi = p[m0 + e + 1];
                }
                w[e / 2] = lo | (hi << 16);
            }
            evt_st_shared_v4(sbase + soff + r * op::tile::kChunks * 16, w[0], w[1], w[2], w[3]);
        }
    }
};

/* Register fragments of one k16 step for a warp's kWM x kWN tile. */
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
            evt_mma_16816<Cfg::kDType>(acc[mi][ni], f.a[mi], f.b[ni]);
        }
}

/*
 * The mainloop/epilogue interface: waits for the pipeline, then writes the
 * warp's mma.sync accumulators into shared memory at sbase as row-major
 * float[kBM][kAccLd] (reusing the pipeline's memory) and synchronises, so the
 * epilogue reads elements by (row, column) only.  Shared by every sm80 mainloop.
 */
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

/* A warpgroup's wgmma accumulators (NH chunks of NC columns) into the tile
 * at base: warp w of warpgroup g holds rows 64 g + 16 w .. + 15. */
template <class Cfg, int NC, int NH>
__device__ __forceinline__ void store_acc_wgmma(const float (&acc)[NH][NC / 2], evt_u32 base,
                                                int wgi, int warp, int lane)
{
#pragma unroll
    for (int h = 0; h < NH; ++h)
#pragma unroll
        for (int j = 0; j < NC / 8; ++j)
            store_acc_quad<Cfg>(base, wgi * 64 + warp * 16 + (lane >> 2),
                                h * NC + j * 8 + (lane & 3) * 2, acc[h][4 * j], acc[h][4 * j + 1],
                                acc[h][4 * j + 2], acc[h][4 * j + 3]);
}

template <class Cfg>
__device__ __forceinline__ void hand_over_acc(const float (&acc)[Cfg::kMI][Cfg::kNI][4],
                                              evt_u32 sbase, int warp_m, int warp_n, int lane)
{
    evt_cp_async_wait<0>();
    __syncthreads();
    store_acc<Cfg>(acc, sbase, warp_m, warp_n, lane);
    __syncthreads();
}

/*
 * The multi-stage pipeline every sm80 mainloop runs over its k tiles, and
 * then the accumulator hand-off.  Loads: kStages - 1 k tiles are in flight
 * while one is consumed; load(stage_address) copies the next k tile in
 * order into a stage (cp.async, or plain loads and st.shared), and is called
 * exactly k_tiles times.  Each k tile is kKSteps k16 steps; fragments for
 * step s + 1 are loaded from shared memory while the mma of step s run (two
 * fragment buffers).  The wait and barrier for the next stage sit before
 * the last step's fragment load, and the copy into the stage freed by that
 * barrier is issued in the first step of the next k tile.
 */
template <class Cfg, class Load>
__device__ __forceinline__ void run_pipeline(int k_tiles, Load &load, evt_u32 sbase, int warp_m,
                                             int warp_n, int lane)
{
    float acc[Cfg::kMI][Cfg::kNI][4];
#pragma unroll
    for (int mi = 0; mi < Cfg::kMI; ++mi)
#pragma unroll
        for (int ni = 0; ni < Cfg::kNI; ++ni)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                acc[mi][ni][e] = 0.0f;

#pragma unroll
    for (int s = 0; s < Cfg::kStages - 1; ++s) {
        if (s < k_tiles)
            load(sbase + s * Cfg::kStageBytes);
        evt_cp_async_commit();
    }
    evt_cp_async_wait<Cfg::kStages - 2>();
    __syncthreads();

    frags<Cfg> f[2];
    int read_stage = 0;
    int write_stage = Cfg::kStages - 1;
    load_frags<Cfg>(f[0], sbase, sbase + Cfg::kAStageBytes, 0, warp_m, warp_n, lane);

    for (int kt = 0; kt < k_tiles; ++kt) {
#pragma unroll
        for (int kk = 0; kk < Cfg::kKSteps; ++kk) {
            if (kk == Cfg::kKSteps - 1) {
                evt_cp_async_wait<Cfg::kStages - 2>();
                __syncthreads();
                read_stage = read_stage + 1 == Cfg::kStages ? 0 : read_stage + 1;
            }
            evt_u32 rs = sbase + read_stage * Cfg::kStageBytes;
            load_frags<Cfg>(f[(kk + 1) & 1], rs, rs + Cfg::kAStageBytes,
                            (kk + 1) % Cfg::kKSteps, warp_m, warp_n, lane);
            if (kk == 0) {
                if (kt + Cfg::kStages - 1 < k_tiles)
                    load(sbase + write_stage * Cfg::kStageBytes);
                evt_cp_async_commit();
                write_stage = write_stage + 1 == Cfg::kStages ? 0 : write_stage + 1;
            }
            mma_step<Cfg>(acc, f[kk & 1]);
        }
    }

    hand_over_acc<Cfg>(acc, sbase, warp_m, warp_n, lane);
}

/*
 * The sm_90a pipeline (configurations with wgmma = 1): the same cp.async
 * loads into the same stages, multiplied by warpgroup MMAs straight from
 * shared memory.  A BK = 64 stage of a K-contiguous operand is, row after
 * row of 128 bytes with 16-byte chunk c stored at c ^ (row & 7), exactly
 * wgmma's 128-byte-swizzled K-major layout (a BK = 32 one, c ^ ((row >> 1)
 * & 3) in 64-byte rows, its 64-byte swizzle), so only the descriptors are new.
 * Warpgroup g (warps 4g..4g+3) computes rows 64g..64g+63 of the tile and all
 * kBN columns, kBN / 128 m64n128k16 MMAs per k16 step; its accumulators are
 * laid out per warp like mma.sync's m16n8 ones.  kStages - 2 k tiles load
 * while one is multiplied and the MMAs of the one before drain
 * (wgmma.wait_group 1); the stage they read is refilled after the next
 * barrier.  Compiled only for sm_90a; the runtime never picks these
 * configurations for other targets.
 */
/* d += A B for a 64 x N tile: d holds N / 2 floats per thread.  N = 128
 * everywhere but the narrow producer/consumer conv tile (N = 64; under the
 * cp.async pipeline m64n64 tiles lost to mma.sync on the narrow layers). */
template <int DT, int N> struct wgmma_op;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* One wgmma's operands for an N-wide tile: the N / 2 accumulator floats
 * ("+f"(d[0]) ..), their registers' text (%0 ..) and the two descriptors'. */
#define EVT_WGMMA_D8(B)                                                                   \
    "+f"(d[(B)]), "+f"(d[(B) + 1]), "+f"(d[(B) + 2]), "+f"(d[(B) + 3]), "+f"(d[(B) + 4]), \
        "+f"(d[(B) + 5]), "+f"(d[(B) + 6]), "+f"(d[(B) + 7])
#define EVT_WGMMA_D_64 EVT_WGMMA_D8(0), EVT_WGMMA_D8(8), EVT_WGMMA_D8(16), EVT_WGMMA_D8(24)
#define EVT_WGMMA_D_128 \
    EVT_WGMMA_D_64, EVT_WGMMA_D8(32), EVT_WGMMA_D8(40), EVT_WGMMA_D8(48), EVT_WGMMA_D8(56)
#define EVT_WGMMA_R_64                                                                           \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33"
#define EVT_WGMMA_R_128                                                                          \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "  \
    "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "  \
    "%56, %57, %58, %59, %60, %61, %62, %63}, %64, %65"
/* wgmma_op<DT, N>, TY DT's PTX name: d += A B, scale-d on, neither operand
 * negated or transposed. */
#define EVT_WGMMA_OP(DT, N, TY)                                                                 \
    template <> struct wgmma_op<DT, N> {                                                        \
        static __device__ __forceinline__ void run(float (&d)[(N) / 2], evt_u64 da, evt_u64 db) \
        {                                                                                       \
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"                             \
                         "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TY "." TY " "       \
                         EVT_WGMMA_R_##N ", p, 1, 1, 0, 0;\n}\n"                                \
                         : EVT_WGMMA_D_##N                                                      \
                         : "l"(da), "l"(db));                                                   \
        }                                                                                       \
    };
EVT_WGMMA_OP(EVT_DT_F16, 128, "f16")
EVT_WGMMA_OP(EVT_DT_BF16, 128, "bf16")
EVT_WGMMA_OP(EVT_DT_F16, 64, "f16") /* the producer/consumer tile of narrow convs */
EVT_WGMMA_OP(EVT_DT_BF16, 64, "bf16")
#undef EVT_WGMMA_OP
#undef EVT_WGMMA_R_128
#undef EVT_WGMMA_R_64
#undef EVT_WGMMA_D_128
#undef EVT_WGMMA_D_64
#undef EVT_WGMMA_D8
#endif

/* A K-major operand tile of BK-element rows at shared address saddr: rows
 * of 128 bytes (BK = 64) in wgmma's 128-byte swizzle, 8-row groups 1024
 * bytes apart; rows of 64 bytes (BK = 32) in its 64-byte swizzle (smem_tile's
 * c ^ ((row >> 1) & 3)), groups 512 bytes apart. */
template <int BK>
EVT_DEVICE evt_u64 wgmma_desc(evt_u32 saddr)
{
    static_assert(BK == 32 || BK == 64, "wgmma stages are BK = 32 or 64");
    constexpr evt_u64 layout = BK == 64 ? 1 : 2, group = 8 * BK * 2;
    return (evt_u64)((saddr & 0x3FFFF) >> 4) | ((evt_u64)1 << 16) | ((group >> 4) << 32) |
           (layout << 62);
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
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
    const evt_u32 sa = sbase + stage * Cfg::kStageBytes + wgi * 64 * Cfg::kBK * 2;
    const evt_u32 sb = sbase + stage * Cfg::kStageBytes + Cfg::kAStageBytes;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < Cfg::kKSteps; ++kk)
#pragma unroll
        for (int h = 0; h < NH; ++h)
            wgmma_op<Cfg::kDType, NC>::run(acc[h], wgmma_desc<Cfg::kBK>(sa) + 2 * kk,
                                           wgmma_desc<Cfg::kBK>(sb + h * NC * Cfg::kBK * 2) + 2 * kk);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    load_next(sbase + write_stage * Cfg::kStageBytes);
    evt_cp_async_commit();
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    stage = stage + 1 == Cfg::kStages ? 0 : stage + 1;
    write_stage = write_stage + 1 == Cfg::kStages ? 0 : write_stage + 1;
}
#endif

template <class Cfg, class Load>
__device__ __forceinline__ void run_pipeline_wgmma(int k_tiles, Load &load, evt_u32 sbase_raw)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    static_assert(Cfg::kAKContig && Cfg::kBKContig && (Cfg::kBK == 64 || Cfg::kBK == 32),
                  "the wgmma pipeline takes K-contiguous operands and BK = 32 or 64");
    static_assert(Cfg::kThreads == 128 * (Cfg::kBM / 64) && Cfg::kBN % 128 == 0,
                  "one warpgroup per 64 rows; N in m64n128 steps");
    static_assert(Cfg::kStages >= 3, "kStages - 2 loads in flight");
    constexpr int NC = 128; /* columns per MMA */
    constexpr int NH = Cfg::kBN / NC;
    const evt_u32 sbase = (sbase_raw + 1023u) & ~1023u; /* the swizzle atoms' alignment */
    const int tid = threadIdx.x, wgi = tid >> 7, warp = (tid >> 5) & 3, lane = tid & 31;
    float acc[NH][NC / 2];
#pragma unroll
    for (int h = 0; h < NH; ++h)
#pragma unroll
        for (int i = 0; i < NC / 2; ++i)
            acc[h][i] = 0.0f;

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
    store_acc_wgmma<Cfg, NC, NH>(acc, sbase_raw, wgi, warp, lane); /* as run_pipeline leaves it */
    __syncthreads();
#else
    (void)k_tiles; (void)load; (void)sbase_raw;
    __trap(); /* never launched: wgmma configurations are sm_90a's */
#endif
}

/* The GEMM's k tile loads for run_pipeline: A and B of k tile kt, then kt + 1, ... */
template <class Cfg>
struct gemm_stage_loader {
    static constexpr bool kTma = false;
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
        if (Cfg::kAligned) {
            a.load_async(stage, kt);
            b.load_async(stage + Cfg::kAStageBytes, kt);
        } else {
            a.load_guarded(stage, kt);
            b.load_guarded(stage + Cfg::kAStageBytes, kt);
        }
        ++kt;
    }
};

/* A mainloop's k tiles through the configuration's pipeline (wgmma or
 * mma.sync), leaving the accumulator tile at smem; every mainloop ends so.
 * tid: threadIdx.x, read by the caller before it sets up its loader (read
 * after, the sm80 kernels spill a few bytes more). */
template <class Cfg, class Load>
__device__ __forceinline__ void run_mainloop(int k_tiles, Load &load, unsigned char *smem, int tid)
{
    const int warp = tid >> 5;
    if constexpr (Cfg::kWgmma)
        run_pipeline_wgmma<Cfg>(k_tiles, load, evt_smem_addr(smem));
    else
        run_pipeline<Cfg>(k_tiles, load, evt_smem_addr(smem), warp / Cfg::kWarpsN,
                          warp % Cfg::kWarpsN, tid & 31);
}

} /* namespace evt_sm80_detail */

/*
 * The mainloop: accumulate the (tile_m, tile_n) output tile over share
 * `share` of `shares` of K's k tiles (all of K by default; split-K entry
 * points give each CTA a share) and leave it in smem as
 * float[Cfg::kBM][Cfg::kAccLd] (see the top of this file).  All
 * Cfg::kThreads threads of the CTA must call it; smem must be at least
 * Cfg::kSmemBytes of dynamic shared memory, 128-byte aligned.  The pipeline
 * is evt_sm80_detail::run_mainloop's.
 */
template <class Cfg>
__device__ __forceinline__ void evt_gemm_sm80_mainloop(const evt_gemm_args &args, int tile_m,
                                                       int tile_n, unsigned char *smem,
                                                       int share = 0, int shares = 1)
{
    using namespace evt_sm80_detail;
    const int tid = threadIdx.x;
    int kt_begin;
    const int k_tiles = evt_sm80_k_share((args.k + Cfg::kBK - 1) / Cfg::kBK, share, shares, &kt_begin);

    gemm_stage_loader<Cfg> load;
    load.start(args, tile_m, tile_n, kt_begin);
    run_mainloop<Cfg>(k_tiles, load, smem, tid);
}

/*
 * The warp-specialized, persistent schedule (configurations with ws = 1):
 * one CTA per slot walks the output tiles blockIdx.x, + gridDim.x, ...
 * Its first Cfg::kThreads threads (the mma warps) run the k tiles of all
 * its tiles as one stream through the pipeline, so the next tile's first
 * k tiles load while this one finishes; after a tile's last k tile they
 * write the accumulators to their own shared-memory tile (at
 * Cfg::kPipeBytes, float[kBM][kAccLd], as the other mainloops leave it at
 * 0) and go on with the next tile.  The Cfg::kEpiThreads threads after them (the
 * epilogue warps) run epi(tile_m, tile_n, acc) on each finished tile, so a
 * tile's epilogue overlaps the next tile's mainloop, and before each tile
 * run epi.prefetch(tile_m, tile_n) on the next (an L2 prefetch of its
 * [M, N] inputs: their loads then wait on L2, not DRAM).  Named barriers:
 * EVT_SM80_BAR_PIPE among the mma warps (their __syncthreads),
 * EVT_SM80_BAR_FULL / _EMPTY hand the accumulator tile over and back, and
 * EVT_SM80_BAR_EPI is the epilogue warps' own (evt_epi_team).  Load is the
 * mainloop's stage loader (start(args, tile_m, tile_n, 0) then one call per
 * k tile, in order).  Launch evt_gemm_sm80_grid() CTAs of
 * Cfg::kCtaThreads threads with Cfg::kSmemBytes of shared memory.
 */
#define EVT_SM80_BAR_PIPE 1
#define EVT_SM80_BAR_FULL 2
#define EVT_SM80_BAR_EMPTY 3
#define EVT_SM80_BAR_EPI 4

namespace evt_sm80_detail {

EVT_DEVICE void bar_sync(int id, int threads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

EVT_DEVICE void bar_arrive(int id, int threads)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/* The stream of k tiles over a CTA's tiles, as loaded: which tile the next
 * load belongs to and how many of its k tiles are left. */
template <class Cfg, class Load, class Args>
struct tile_stream {
    Load load;
    int tile, left, tiles, k_tiles, m, n;

    __device__ __forceinline__ void start(const Args &args)
    {
        int tm, tn;
        evt_gemm_sm80_tile_coord<Cfg>(tile, m, n, &tm, &tn);
        load.start(args, tm, tn, 0);
        left = k_tiles;
    }

    /* The stream of this CTA's tiles blockIdx.x, + gridDim.x, ... of `tiles`. */
    __device__ __forceinline__ void begin(const Args &args, int tiles_, int k_tiles_, int m_, int n_)
    {
        tile = blockIdx.x;
        tiles = tiles_;
        k_tiles = k_tiles_;
        m = m_;
        n = n_;
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

/* ws_run's mma warps under wgmma (sm_90a): run_pipeline_wgmma's k loop over
 * the tile stream, kStages - 2 k tiles loading ahead across tiles. */
template <class Cfg, class Load, class Args>
__device__ __forceinline__ void ws_wgmma_warps(const Args &args, int m, int n, int k_tiles,
                                               int tiles, unsigned char *smem, float *acc_tile)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    static_assert(Cfg::kAKContig && Cfg::kBKContig && (Cfg::kBK == 64 || Cfg::kBK == 32) &&
                      Cfg::kStages >= 3 &&
                      Cfg::kThreads == 128 * (Cfg::kBM / 64) && Cfg::kBN % 128 == 0,
                  "the wgmma pipeline's conditions (run_pipeline_wgmma)");
    constexpr int NC = 128;
    constexpr int NH = Cfg::kBN / NC;
    const evt_u32 sbase = (evt_smem_addr(smem) + 1023u) & ~1023u;
    const int tid = threadIdx.x, wgi = tid >> 7, warp = (tid >> 5) & 3, lane = tid & 31;
    tile_stream<Cfg, Load, Args> ts;
    ts.begin(args, tiles, k_tiles, m, n);
#pragma unroll
    for (int s = 0; s < Cfg::kStages - 2; ++s) {
        ts.next(args, sbase + s * Cfg::kStageBytes);
        evt_cp_async_commit();
    }
    int stage = 0, write_stage = Cfg::kStages - 2;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        float acc[NH][NC / 2];
#pragma unroll
        for (int h = 0; h < NH; ++h)
#pragma unroll
            for (int i = 0; i < NC / 2; ++i)
                acc[h][i] = 0.0f;
        for (int kt = 0; kt < k_tiles; ++kt)
            wgmma_k_tile<Cfg, NC, NH>(
                acc, sbase, wgi, stage, write_stage,
                [] { bar_sync(EVT_SM80_BAR_PIPE, Cfg::kThreads); },
                [&](evt_u32 s) { ts.next(args, s); });
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if (t != (int)blockIdx.x)
            bar_sync(EVT_SM80_BAR_EMPTY, Cfg::kCtaThreads);
        store_acc_wgmma<Cfg, NC, NH>(acc, evt_smem_addr(acc_tile), wgi, warp, lane);
        bar_arrive(EVT_SM80_BAR_FULL, Cfg::kCtaThreads);
    }
    evt_cp_async_wait<0>();
#else
    (void)args; (void)m; (void)n; (void)k_tiles; (void)tiles; (void)smem; (void)acc_tile;
    __trap(); /* never launched: wgmma configurations are sm_90a's */
#endif
}

/* ws_run's mma warps under mma.sync: run_pipeline's k loop over the tile
 * stream, kStages - 1 k tiles loading ahead across tiles. */
template <class Cfg, class Load, class Args>
__device__ __forceinline__ void ws_mma_warps(const Args &args, int m, int n, int k_tiles,
                                             int tiles, unsigned char *smem, float *acc_tile)
{
    const int both = Cfg::kCtaThreads; /* the hand-over barriers' */
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int warp_m = warp / Cfg::kWarpsN, warp_n = warp % Cfg::kWarpsN;
    const evt_u32 sbase = evt_smem_addr(smem);
    tile_stream<Cfg, Load, Args> ts;
    ts.begin(args, tiles, k_tiles, m, n);
    /* Every stage filled first; then each k tile's last step refills the
     * stage its barrier freed, so kStages - 1 loads stay in flight. */
#pragma unroll
    for (int s = 0; s < Cfg::kStages; ++s) {
        ts.next(args, sbase + s * Cfg::kStageBytes);
        evt_cp_async_commit();
    }
    evt_cp_async_wait<Cfg::kStages - 1>();
    bar_sync(EVT_SM80_BAR_PIPE, Cfg::kThreads);

    int read_stage = 0, write_stage = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        float acc[Cfg::kMI][Cfg::kNI][4];
#pragma unroll
        for (int mi = 0; mi < Cfg::kMI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::kNI; ++ni)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    acc[mi][ni][e] = 0.0f;
        frags<Cfg> f[2];
        if (k_tiles > 0) {
            evt_u32 rs = sbase + read_stage * Cfg::kStageBytes;
            load_frags<Cfg>(f[0], rs, rs + Cfg::kAStageBytes, 0, warp_m, warp_n, lane);
        }
        for (int kt = 0; kt < k_tiles; ++kt) {
#pragma unroll
            for (int kk = 0; kk < Cfg::kKSteps; ++kk) {
                if (kk == Cfg::kKSteps - 1) {
                    /* the next k tile has landed, and every warp is done
                     * with this one's stage: refill it */
                    evt_cp_async_wait<Cfg::kStages - 2>();
                    bar_sync(EVT_SM80_BAR_PIPE, Cfg::kThreads);
                    ts.next(args, sbase + write_stage * Cfg::kStageBytes);
                    evt_cp_async_commit();
                    write_stage = write_stage + 1 == Cfg::kStages ? 0 : write_stage + 1;
                    read_stage = read_stage + 1 == Cfg::kStages ? 0 : read_stage + 1;
                    if (kt + 1 < k_tiles) {
                        evt_u32 rs = sbase + read_stage * Cfg::kStageBytes;
                        load_frags<Cfg>(f[Cfg::kKSteps & 1], rs, rs + Cfg::kAStageBytes, 0, warp_m,
                                        warp_n, lane);
                    }
                } else {
                    evt_u32 rs = sbase + read_stage * Cfg::kStageBytes;
                    load_frags<Cfg>(f[(kk + 1) & 1], rs, rs + Cfg::kAStageBytes, kk + 1, warp_m,
                                    warp_n, lane);
                }
                mma_step<Cfg>(acc, f[kk & 1]);
            }
        }
        /* hand the tile over once the epilogue warps are done with the last */
        if (t != (int)blockIdx.x)
            bar_sync(EVT_SM80_BAR_EMPTY, both);
        store_acc<Cfg>(acc, evt_smem_addr(acc_tile), warp_m, warp_n, lane);
        bar_arrive(EVT_SM80_BAR_FULL, both);
    }
    evt_cp_async_wait<0>();
}

/*
 * The producer/consumer persistent schedule (configurations with pp = 2,
 * sm_90a): warpgroup 0, the producer, copies the k tiles of all the CTA's
 * tiles blockIdx.x, + gridDim.x, ... in order into a ring of kStages stages.
 * On the fast path (Load::kTma) one thread issues each stage's TMA copies,
 * which complete the stage's "full" mbarrier by their bytes; on the guarded
 * path all 128 threads store element by element and arrive.  Consumer
 * warpgroup c (1 + c) takes the CTA's tiles c, c + 2, ...: it multiplies a
 * whole 128-row tile (two m64 wgmma rows), frees each stage ("empty"
 * mbarrier, one arrival per warp) once its MMAs are done, hands the tensor
 * cores to the other consumer ("turn" mbarriers: the mainloops of tiles 0,
 * 1, 2, ... run one after the other), then, once the other consumer's
 * epilogue is done with it ("eturn" mbarriers, likewise in tile order),
 * writes its accumulators to the one accumulator tile in shared memory and
 * runs the epilogue there with its 128 threads (evt_wg_team: barrier 4 +
 * warpgroup).  So one consumer's epilogue overlaps the other's mainloop and
 * the producer's loads of the tiles after.  No L2 prefetch of the epilogue's
 * [M, N] inputs (ws_run's epi.prefetch): with it the 28x28x128 -> 512 1x1
 * layer read 218 MB from DRAM instead of 129 (the prefetched lines were
 * evicted before their epilogue) and every layer ran 2-15% slower.  Shared
 * memory, 1024-aligned: the stages, the accumulator tile, the mbarriers.  One accumulator tile rather than
 * one per consumer leaves room for four 32 KB stages (BK = 64): on the H200
 * that took the 14x14x256 -> 256 3x3 ResNet-50 layer from 69 to 52 us
 * (nine BK = 32 stages: 69; two tiles and five: 71).
 */
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
EVT_DEVICE void mbar_init(evt_u32 bar, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

EVT_DEVICE void mbar_wait(evt_u32 bar, int parity)
{
    asm volatile("{\n.reg .pred p;\nWAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra WAIT;\n}\n" ::"r"(bar), "r"(parity) : "memory");
}

EVT_DEVICE void mbar_arrive(evt_u32 bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
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

#endif

/*
 * A staged epilogue input's tile (pp_run, Cfg::kStaged): rows tile_m * kBM ..
 * and columns tile_n * kBN .. of a 16-bit [M, N] tensor (src, ld) into the
 * dense kBM x kBN shared tile at dst, completing on mbarrier bar.  The fast
 * path (TMA: the runtime's tiled map, one thread) zero-fills past the
 * problem; the guarded path's kThreads producer threads copy element by
 * element (any alignment) and arrive.  Called by the producer warpgroup.
 */
template <class Cfg>
EVT_DEVICE void stage_tile(evt_u32 dst, evt_u32 bar, int tile_m, int tile_n, int tid,
                           const evt_tma_map *map, const evt_u16 *src, evt_i64 ld, int m, int n)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    if constexpr (Cfg::kAligned) {
        (void)src; (void)ld; (void)m; (void)n;
        if (tid == 0) {
            mbar_arrive_expect_tx(bar, Cfg::kStagedTileBytes);
            tma_load_2d(dst, map, bar, tile_n * Cfg::kBN, tile_m * Cfg::kBM);
        }
    } else {
        (void)map;
        for (int x = tid; x < Cfg::kBM * Cfg::kBN; x += Cfg::kThreads) {
            const int row = tile_m * Cfg::kBM + x / Cfg::kBN, col = tile_n * Cfg::kBN + x % Cfg::kBN;
            const evt_u16 v = row < m && col < n ? src[(evt_i64)row * ld + col] : (evt_u16)0;
            asm volatile("st.shared.u16 [%0], %1;" ::"r"(dst + 2 * x), "h"(v) : "memory");
        }
        mbar_arrive(bar);
    }
#else
    (void)dst; (void)bar; (void)tile_m; (void)tile_n; (void)tid; (void)map; (void)src; (void)ld;
    (void)m; (void)n;
    __trap(); /* never launched: producer/consumer configurations are sm_90a's */
#endif
}

template <class Cfg, class Load, class Args, class Epi>
__device__ __forceinline__ void pp_run(const Args &args, int m, int n, int k_tiles,
                                       unsigned char *smem, const Epi &epi, Load load)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    static_assert(Cfg::kPP == 2 && Cfg::kThreads == 128 && Cfg::kBM == 128 &&
                      (Cfg::kBN == 128 || Cfg::kBN == 64) &&
                      Cfg::kAKContig && Cfg::kBKContig && (Cfg::kBK == 32 || Cfg::kBK == 64),
                  "pp_run: a 128-thread producer, two consumers of 128x128 or 128x64 tiles, K-contiguous");
    static_assert((2 * Cfg::kStages + 8) * 8 <= EVT_GEMM_SM80_BAR_BYTES, "mbarriers");
    static_assert(Cfg::kStaged == 0 || Cfg::kStaged == 2, "one staged input tile per consumer");
    constexpr int NC = Cfg::kBN; /* one m64nNCk16 per 64 rows */
    const int tiles = ((m + Cfg::kBM - 1) / Cfg::kBM) * ((n + Cfg::kBN - 1) / Cfg::kBN);
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
            mbar_init(full + 8 * s, Load::kTma ? 1 : Cfg::kThreads);
            mbar_init(empty + 8 * s, 4);
        }
        for (int b = 0; b < 4; ++b)
            mbar_init(turn + 8 * b, 4);
        for (int b = 0; b < 2; ++b) {
            mbar_init(sfull + 8 * b, Load::kTma ? 1 : Cfg::kThreads);
            mbar_init(sempty + 8 * b, 4);
        }
    }
    __syncthreads();

    if (wg == 0) { /* the producer */
        int q = 0; /* k tiles loaded so far */
        int tm, tn;
        for (int t = blockIdx.x, j = 0; t < tiles; t += gridDim.x, ++j) {
            evt_gemm_sm80_tile_coord<Cfg>(t, m, n, &tm, &tn);
            load.start(args, tm, tn, 0);
            for (int kt = 0; kt < k_tiles; ++kt, ++q) {
                const int s = q % Cfg::kStages;
                mbar_wait(empty + 8 * s, ((q / Cfg::kStages) & 1) ^ 1);
                if constexpr (Load::kTma) {
                    if (tid == 0) /* one thread issues the copies (its load holds the k position) */
                        load.issue(sbase + s * Cfg::kStageBytes, full + 8 * s);
                } else {
                    static_assert(!Cfg::kAligned, "pp_run's fast path loads with TMA");
                    load(sbase + s * Cfg::kStageBytes); /* plain stores */
                    mbar_arrive(full + 8 * s);
                }
            }
            if constexpr (Cfg::kStaged > 0) {
                /* tile j's epilogue input, into its consumer's (j % 2) staged
                 * tile once that consumer's epilogue of tile j - 2 is done with it */
                const int c = j & 1;
                mbar_wait(sempty + 8 * c, ((j >> 1) & 1) ^ 1);
                epi.stage(staged + c * Cfg::kStagedTileBytes, sfull + 8 * c, tm, tn, tid);
            }
        }
        return; /* the consumers wait for the copies in flight */
    }

    /* a consumer */
    const int c = wg - 1, warp = (tid >> 5) & 3, lane = tid & 31;
    const int bar = 4 + wg; /* evt_wg_team's */
    float *acc_tile = reinterpret_cast<float *>(smem + (sbase - raw) + Cfg::kPipeBytes);
    const evt_u32 acc_addr = evt_smem_addr(acc_tile);
    int j = c; /* the CTA's tile number */
    for (int t = blockIdx.x + c * gridDim.x; t < tiles; t += 2 * gridDim.x, j += 2) {
        float acc[2][1][NC / 2];
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int i = 0; i < NC / 2; ++i)
                acc[h][0][i] = 0.0f;
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
            const evt_u32 sb = sa + Cfg::kAStageBytes;
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
            for (int kk = 0; kk < Cfg::kKSteps; ++kk)
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    wgmma_op<Cfg::kDType, NC>::run(acc[h][0],
                                                   wgmma_desc<Cfg::kBK>(sa + h * 64 * Cfg::kBK * 2) + 2 * kk,
                                                   wgmma_desc<Cfg::kBK>(sb) + 2 * kk);
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
            if (kt > 0 && lane == 0)
                mbar_arrive(empty + 8 * prev); /* the last k tile's MMAs are done */
            prev = s;
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if (lane == 0) {
            if (k_tiles > 0)
                mbar_arrive(empty + 8 * prev);
            mbar_arrive(turn + 8 * (1 - c)); /* tile j + 1's turn */
        }
        if (j > 0) /* tile j - 1's epilogue (after this consumer's last) is done with the tile */
            mbar_wait(eturn + 8 * c, ((j - 1) >> 1) & 1);
        store_acc_wgmma<Cfg, NC, 1>(acc[0], acc_addr, 0, warp, lane);
        store_acc_wgmma<Cfg, NC, 1>(acc[1], acc_addr, 1, warp, lane);
        bar_sync(bar, 128);
        int tm, tn;
        evt_gemm_sm80_tile_coord<Cfg>(t, m, n, &tm, &tn);
        if constexpr (Cfg::kStaged > 0) {
            mbar_wait(sfull + 8 * c, (j >> 1) & 1);
            epi(tm, tn, acc_tile, smem + (staged - raw) + c * Cfg::kStagedTileBytes);
        } else {
            epi(tm, tn, acc_tile, nullptr);
        }
        __syncwarp(); /* the warp's reads of the tiles are done */
        if (lane == 0) {
            mbar_arrive(eturn + 8 * (1 - c)); /* tile j + 1's epilogue may start */
            if constexpr (Cfg::kStaged > 0)
                mbar_arrive(sempty + 8 * c); /* the producer may stage tile j + 2 */
        }
    }
#else
    (void)args; (void)m; (void)n; (void)k_tiles; (void)smem; (void)epi; (void)load;
    __trap(); /* never launched: producer/consumer configurations are sm_90a's */
#endif
}

template <class Cfg, class Load, class Args, class Epi>
__device__ __forceinline__ void ws_epi_warps_run(const Args &args, int m, int n, int k_tiles,
                                                 unsigned char *smem, const Epi &epi)
{
    static_assert(Cfg::kWS, "ws_run needs a warp-specialized configuration");
    const int tiles = ((m + Cfg::kBM - 1) / Cfg::kBM) * ((n + Cfg::kBN - 1) / Cfg::kBN);
    const int both = Cfg::kCtaThreads; /* the hand-over barriers' */
    /* past the stages (and their 1024-byte alignment slack under wgmma) */
    float *acc_tile = reinterpret_cast<float *>(smem + Cfg::kPipeBytes + (Cfg::kWgmma ? 1024 : 0));
    const int tid = threadIdx.x;

    if (tid >= Cfg::kThreads) { /* epilogue warps */
        int tm, tn;
        if ((int)blockIdx.x < tiles) {
            evt_gemm_sm80_tile_coord<Cfg>(blockIdx.x, m, n, &tm, &tn);
            epi.prefetch(tm, tn);
        }
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            /* the next tile's [M, N] inputs into L2 while this one is made */
            if (t + (int)gridDim.x < tiles) {
                evt_gemm_sm80_tile_coord<Cfg>(t + gridDim.x, m, n, &tm, &tn);
                epi.prefetch(tm, tn);
            }
            bar_sync(EVT_SM80_BAR_FULL, both);
            evt_gemm_sm80_tile_coord<Cfg>(t, m, n, &tm, &tn);
            epi(tm, tn, acc_tile);
            if (t + (int)gridDim.x < tiles)
                bar_arrive(EVT_SM80_BAR_EMPTY, both);
        }
        return;
    }

    if constexpr (Cfg::kWgmma)
        ws_wgmma_warps<Cfg, Load>(args, m, n, k_tiles, tiles, smem, acc_tile);
    else
        ws_mma_warps<Cfg, Load>(args, m, n, k_tiles, tiles, smem, acc_tile);
}

/* A persistent schedule: epilogue warps beside the mma warps (ws), or a
 * producer and consumer warpgroups (pp). */
template <class Cfg, class Load, class Args, class Epi>
__device__ __forceinline__ void ws_run(const Args &args, int m, int n, int k_tiles,
                                       unsigned char *smem, const Epi &epi, Load load = Load())
{
    if constexpr (Cfg::kPP > 0)
        pp_run<Cfg, Load>(args, m, n, k_tiles, smem, epi, load);
    else
        ws_epi_warps_run<Cfg, Load>(args, m, n, k_tiles, smem, epi);
}

} /* namespace evt_sm80_detail */

namespace evt_sm80_detail {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* The k tile loads of a producer/consumer GEMM's fast path (pp_run's
 * producer, one thread): the runtime's tiled TMA maps of A (K x M) and B
 * (K x N), both K-contiguous, boxes of kBK x kBM and kBK x kBN, zero-filled
 * past M, N and K. */
template <class Cfg>
struct gemm_tma_loader {
    static constexpr bool kTma = true;
    const evt_tma_maps *maps;
    int row0, col0, k0;

    __device__ __forceinline__ void start(const evt_gemm_args &, int tile_m, int tile_n, int)
    {
        row0 = tile_m * Cfg::kBM;
        col0 = tile_n * Cfg::kBN;
        k0 = 0;
    }

    __device__ __forceinline__ void issue(evt_u32 stage, evt_u32 full)
    {
        mbar_arrive_expect_tx(full, Cfg::kStageBytes);
        tma_load_2d(stage, &maps->a, full, k0, row0);
        tma_load_2d(stage + Cfg::kAStageBytes, &maps->b, full, k0, col0);
        k0 += Cfg::kBK;
    }
};
#endif
} /* namespace evt_sm80_detail */

/* The GEMM under a persistent schedule (evt_sm80_detail::ws_run); a
 * producer/consumer configuration's fast path loads with the TMA maps. */
template <class Cfg, class Epi>
__device__ __forceinline__ void evt_gemm_sm80_ws(const evt_gemm_args &args, unsigned char *smem,
                                                 const Epi &epi, const evt_tma_maps *maps = nullptr)
{
    const int k_tiles = (args.k + Cfg::kBK - 1) / Cfg::kBK;
    (void)maps;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    if constexpr (Cfg::kPP > 0 && Cfg::kAligned) {
        evt_sm80_detail::gemm_tma_loader<Cfg> load;
        load.maps = maps;
        evt_sm80_detail::ws_run<Cfg>(args, args.m, args.n, k_tiles, smem, epi, load);
    } else
#endif
    {
        evt_sm80_detail::ws_run<Cfg, evt_sm80_detail::gemm_stage_loader<Cfg> >(args, args.m, args.n,
                                                                              k_tiles, smem, epi);
    }
}

#endif /* __CUDACC__ || __CUDACC_RTC__ */

#endif /* EVT_GEMM_SM80_CUH */
