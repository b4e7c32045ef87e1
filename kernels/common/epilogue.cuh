/*
 * epilogue.cuh - the nodes generated epilogues are built from: element loads
 * and stores with conversion, 8-wide row chunks, and reductions.
 *
 * Mainloop-independent: an epilogue sees the f32 accumulator tile as a
 * row-major float[BM][ACC_LD] array in shared memory (see mainloops/gemm.cuh),
 * so any mainloop that leaves its tile there plugs in unchanged.
 *
 * Work split (codegen/emit_cuda.c generates the loop): a thread owns one
 * chunk of EVT_VEC consecutive columns of the tile for the whole tile and
 * walks rows tid / CPR, + RPP, ...  So [N] values (row vectors and all that
 * depends only on them) are loaded and computed once per thread per tile,
 * [M] values once per row, [M, N] values per element.
 *
 * Needs evt_common.cuh and evt_math.h before it.
 */
#ifndef EVT_EPILOGUE_CUH
#define EVT_EPILOGUE_CUH

#ifndef EVT_COMMON_CUH
#error "epilogue.cuh needs evt_common.cuh before it"
#endif

#define EVT_VEC 8 /* columns per thread chunk: one 16-byte f16/bf16 vector */

/* Element types, numbered as evt_elem in include/evt/evt.h. */
enum { EVT_E_F32 = 0, EVT_E_F16, EVT_E_BF16, EVT_E_I8, EVT_E_I32, EVT_E_E4M3, EVT_E_E5M2 };

/* Storage type and f32 conversions of each element type: evt_math.h's, the
 * same functions the CPU reference interpreter uses. */
template <int E> struct evt_elem;
#define EVT_ELEM(E, T, NAME)                                                       \
    template <> struct evt_elem<E> {                                               \
        typedef T type;                                                            \
        static __device__ __forceinline__ float load(type x) { return evt_load_##NAME(x); } \
        static __device__ __forceinline__ type store(float x) { return evt_store_##NAME(x); } \
    };
EVT_ELEM(EVT_E_F32, float, f32)
/* f16 and bf16 use the hardware conversions (cvt.rn.f16.f32, cvt.rn.bf16.f32,
 * exact widening): one instruction instead of evt_math.h's bit-level code,
 * and the same bits as evt_math.h's stores, NaN included (checked on the H200,
 * docs/interpreter.md). */
template <> struct evt_elem<EVT_E_F16> {
    typedef evt_u16 type;
    static __device__ __forceinline__ float load(type x) { return evt_f16_to_f32(x); }
    static __device__ __forceinline__ type store(float x) { return evt_f32_to_f16(x); }
};
template <> struct evt_elem<EVT_E_BF16> {
    typedef evt_u16 type;
    static __device__ __forceinline__ float load(type x) { return evt_bf16_to_f32(x); }
    static __device__ __forceinline__ type store(float x) { return evt_f32_to_bf16(x); }
};
EVT_ELEM(EVT_E_I8, evt_i8, i8)
EVT_ELEM(EVT_E_I32, evt_i32, i32)
#undef EVT_ELEM
/* e4m3 and e5m2 stores: on sm_89 and later one cvt.rn.satfinite (its NaN
 * made evt_math.h's 0x7f) instead of the header's bit-level rounding, some
 * 15 instructions an element in an fp8 epilogue; the same bits, which
 * tests/gpu/math_bits.c checks over 2^22 inputs. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define EVT_FP8_STORE(KIND, NAME)                                                   \
    static __device__ __forceinline__ type store(float x)                          \
    {                                                                              \
        unsigned short r;                                                          \
        asm("cvt.rn.satfinite." KIND "x2.f32 %0, %1, %2;" : "=h"(r) : "f"(0.0f), "f"(x)); \
        return evt_isnan(x) ? (type)0x7fu : (type)(r & 0xffu);                     \
    }
#else
#define EVT_FP8_STORE(KIND, NAME)                                                   \
    static __device__ __forceinline__ type store(float x) { return evt_store_##NAME(x); }
#endif
template <> struct evt_elem<EVT_E_E4M3> {
    typedef evt_u8 type;
    static __device__ __forceinline__ float load(type x) { return evt_load_e4m3(x); }
    EVT_FP8_STORE("e4m3", e4m3)
};
template <> struct evt_elem<EVT_E_E5M2> {
    typedef evt_u8 type;
    static __device__ __forceinline__ float load(type x) { return evt_load_e5m2(x); }
    EVT_FP8_STORE("e5m2", e5m2)
};
#undef EVT_FP8_STORE

/* The accumulator chunk at acc (16-byte aligned) into v. */
EVT_DEVICE void evt_load_acc(const float *acc, float (&v)[EVT_VEC])
{
    const float4 *p = reinterpret_cast<const float4 *>(acc);
#pragma unroll
    for (int j = 0; j < EVT_VEC / 4; ++j) {
        float4 q = p[j];
        v[4 * j] = q.x;
        v[4 * j + 1] = q.y;
        v[4 * j + 2] = q.z;
        v[4 * j + 3] = q.w;
    }
}

/* The bytes of a chunk of N (EVT_VEC, or the direct epilogue's 2) elements
 * of T, and the alignment its vector access needs: the chunk's bytes up to
 * 16 (one access of 2, 4, 8 or 16 bytes), else 16-byte uint4s. */
template <class T, int N = EVT_VEC>
struct evt_chunk {
    static constexpr int kBytes = (int)sizeof(T) * N;
    static constexpr int kAlign = kBytes > 16 ? 16 : kBytes;
};

/* The unsigned type of one vector access of B bytes. */
template <int B> struct evt_word;
template <> struct evt_word<1> { typedef unsigned char type; };
template <> struct evt_word<2> { typedef unsigned short type; };
template <> struct evt_word<4> { typedef unsigned int type; };
template <> struct evt_word<8> { typedef uint2 type; };
template <> struct evt_word<16> { typedef uint4 type; };

/* *p; NC: p is read-only for the whole kernel (an [N] or [M] input, which
 * no output may overlap: evt_launch's aliasing rule), read through the
 * non-coherent path so the compiler may move the load ahead of stores. */
template <bool NC, class W>
EVT_DEVICE W evt_ld(const W *p)
{
    if constexpr (NC)
        return __ldg(p);
    else
        return *p;
}

/* A whole aligned chunk of N elements of T from src to dst, in accesses of
 * kAlign bytes (NC as evt_ld). */
template <class T, int N, bool NC = false>
EVT_DEVICE void evt_copy_chunk(T *dst, const T *src)
{
    typedef evt_chunk<T, N> C;
    typedef typename evt_word<C::kAlign>::type W;
#pragma unroll
    for (int j = 0; j < C::kBytes / C::kAlign; ++j)
        reinterpret_cast<W *>(dst)[j] = evt_ld<NC>(reinterpret_cast<const W *>(src) + j);
}

/*
 * A whole 16-bit chunk at an address its 16-byte access cannot take (an
 * [M, N] output whose row pitch is not a multiple of 16 bytes: N not a
 * multiple of 8), stored by the checked instance.  Element by element it
 * costs eight stores, each a warp instruction whose lanes touch 16
 * sectors; here five, the same five whatever the address, so that the
 * lanes of a warp, whose rows start at different offsets, do not diverge:
 * the chunk's three 32-bit words at the 4-byte boundaries inside it, cut
 * from the chunk's by a funnel shift of the address's offset (0 or 2
 * bytes), and an element at each end.  Loads stay element by element
 * (docs/codegen.md, "Output chunks off their alignment", has what was
 * measured, loads included).
 */
EVT_DEVICE void evt_store_chunk_off(evt_u16 *p, const evt_u16 (&t)[8])
{
    unsigned w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
        w[j] = (unsigned)t[2 * j] | (unsigned)t[2 * j + 1] << 16;
    const unsigned d = 8u * (unsigned)((unsigned long long)p & 2u); /* bits past the 4-byte boundary */
    /* p's element before it where p is off 4 bytes: stepped from p, not
     * rounded through an integer, the address keeps p's global space */
    unsigned *q = reinterpret_cast<unsigned *>(p - (d >> 4));
    p[0] = t[0];
#pragma unroll
    for (int j = 1; j < 4; ++j)
        q[j] = __funnelshift_rc(w[j - 1], w[j], 32u - d); /* d = 0: w[j]; 16: elements 2j-1, 2j */
    /* the element left: 1 at an aligned address, else 7 */
    p[d ? 7 : 1] = d ? t[7] : t[1];
}

/*
 * The raw elements p[0..valid) (zero bits past valid): one vector load when
 * the chunk is whole and aligned, else element by element.  A load phase
 * issues every load of a row group this way before any is used;
 * evt_convert_vec then widens them.  FAST: the caller knows the chunk is
 * whole and aligned (evt_vec_ok), so no test is made.  NC as evt_ld.
 */
template <int E, bool FAST = false, int N = EVT_VEC, bool NC = false>
EVT_DEVICE void evt_load_raw(const typename evt_elem<E>::type *p, int valid,
                             typename evt_elem<E>::type (&t)[N])
{
    typedef typename evt_elem<E>::type T;
    if (FAST || (valid == N && ((unsigned long long)p % evt_chunk<T, N>::kAlign) == 0)) {
        evt_copy_chunk<T, N, NC>(t, p);
    } else {
#pragma unroll
        for (int i = 0; i < N; ++i)
            t[i] = i < valid ? evt_ld<NC>(p + i) : T(0);
    }
}

template <int E, int N = EVT_VEC>
EVT_DEVICE void evt_convert_vec(const typename evt_elem<E>::type (&t)[N], float (&v)[N])
{
#pragma unroll
    for (int i = 0; i < N; ++i)
        v[i] = evt_elem<E>::load(t[i]);
}

/* v converted to E's storage, element by element (evt_convert_vec's inverse) */
template <int E, int N = EVT_VEC>
EVT_DEVICE void evt_pack_vec(const float (&v)[N], typename evt_elem<E>::type (&t)[N])
{
#pragma unroll
    for (int i = 0; i < N; ++i)
        t[i] = evt_elem<E>::store(v[i]);
}

/* Elements p[0..valid) converted to f32 (the rest of v is 0; FAST as
 * evt_load_raw). */
template <int E, bool FAST = false, int N = EVT_VEC, bool NC = false>
EVT_DEVICE void evt_load_vec(const typename evt_elem<E>::type *p, int valid, float (&v)[N])
{
    typename evt_elem<E>::type t[N];
    evt_load_raw<E, FAST, N, NC>(p, valid, t);
    evt_convert_vec<E, N>(t, v);
}

/* Stores v[0..valid) converted to E at p, vectorized as evt_load_raw (FAST as
 * evt_load_raw). */
template <int E, bool FAST = false, int N = EVT_VEC>
EVT_DEVICE void evt_store_vec(typename evt_elem<E>::type *p, int valid, const float (&v)[N])
{
    typedef typename evt_elem<E>::type T;
    if (FAST || (valid == N && ((unsigned long long)p % evt_chunk<T, N>::kAlign) == 0)) {
        T t[N];
        evt_pack_vec<E, N>(v, t);
        evt_copy_chunk<T, N>(p, t);
    } else {
        /* a whole 16-bit chunk off its alignment: five accesses, not eight;
         * the direct epilogue's pairs (N = 2) would gain nothing */
        if constexpr (!FAST && sizeof(T) == 2 && N == 8)
            if (valid == N) {
                T t[N];
                evt_pack_vec<E, N>(v, t);
                evt_store_chunk_off(p, t);
                return;
            }
#pragma unroll
        for (int i = 0; i < N; ++i)
            if (i < valid)
                p[i] = evt_elem<E>::store(v[i]);
    }
}

/*
 * Whether every chunk p + row * ld + col0 (col0 a multiple of N) of an
 * [M, N] operand is aligned for evt_load_raw's and evt_store_vec's vector
 * access: the base and the row pitch both are (ld 0: a row vector's base
 * alone).  Entry points take the FAST epilogue, free of per-row bounds and
 * alignment tests, for a tile inside the problem whose operands all pass.
 */
template <int E, int N = EVT_VEC>
EVT_DEVICE bool evt_vec_ok(const void *p, evt_i64 ld)
{
    typedef typename evt_elem<E>::type T;
    return (unsigned long long)p % evt_chunk<T, N>::kAlign == 0 &&
           ld * (evt_i64)sizeof(T) % evt_chunk<T, N>::kAlign == 0;
}

/* Whether p + row * ld (any row) is 16-byte aligned: a whole 16-byte
 * access at the start of every row (evt_stage_copy). */
template <int E>
EVT_DEVICE bool evt_line_ok(const void *p, evt_i64 ld)
{
    return evt_vec_ok<E, 16 / (int)sizeof(typename evt_elem<E>::type)>(p, ld);
}

/* The direct epilogue's output pair v at column c of the warp's row lane /
 * 4 in its staging buffer (rows rowb bytes apart, in shared memory). */
template <int E>
EVT_DEVICE void evt_stage_pair(unsigned char *base, int rowb, int lane, int c, const float (&v)[2])
{
    typedef typename evt_elem<E>::type T;
    T t[2] = {evt_elem<E>::store(v[0]), evt_elem<E>::store(v[1])};
    evt_copy_chunk<T, 2>(reinterpret_cast<T *>(base + (lane >> 2) * rowb) + c, t);
}

/* A 16-bit output pair v packed in a word, the low half v[0]'s: the
 * direct epilogue's staged pair of a column group (evt_stage_groups). */
template <int E>
EVT_DEVICE evt_u32 evt_pack_pair(const float (&v)[2])
{
    typedef typename evt_elem<E>::type T;
    static_assert(sizeof(T) == 2, "two 16-bit elements a word");
    T t[2] = {evt_elem<E>::store(v[0]), evt_elem<E>::store(v[1])};
    evt_u32 w;
    evt_copy_chunk<T, 2>(reinterpret_cast<T *>(&w), t);
    return w;
}

/* The byte offset (from the staging buffer's start, rows rowb bytes apart)
 * of the row that lane addresses in evt_stage_groups' stmatrix.x4 q:
 * matrix lane / 8 of the four is group 4 q + lane / 8, whose 8 columns
 * start 16 bytes a group in; lane % 8 is its row.  (Also on the host:
 * tests/codegen/stage_copy.cu plays stmatrix's layout through it.) */
__host__ __device__ __forceinline__ int evt_stage_groups_row(int rowb, int lane, int q)
{
    return (lane & 7) * rowb + 16 * (4 * q + (lane >> 3));
}

/* The direct epilogue's 16-bit output pairs of a segment's GROUPS column
 * groups (pk[g]: the pair at column 8 g + 2 (lane % 4) of the warp's row
 * lane / 4, evt_pack_pair) into its staging buffer (rows rowb bytes apart,
 * 16-byte aligned, in shared memory), as evt_stage_pair would one at a
 * time.  A group is an 8x8 matrix in the layout stmatrix takes, so on
 * sm_90 four groups go in one stmatrix.x4 (lanes 8 i .. 8 i + 7 address
 * matrix i's rows) where the pairs took four STS each. */
template <int GROUPS>
EVT_DEVICE void evt_stage_groups(unsigned char *base, int rowb, int lane, const evt_u32 (&pk)[GROUPS])
{
    static_assert(GROUPS % 4 == 0, "whole stmatrix.x4s");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const evt_u32 a = evt_smem_addr(base);
#pragma unroll
    for (int q = 0; q < GROUPS / 4; ++q)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                     ::"r"(a + evt_stage_groups_row(rowb, lane, q)), "r"(pk[4 * q]), "r"(pk[4 * q + 1]),
                       "r"(pk[4 * q + 2]), "r"(pk[4 * q + 3])
                     : "memory");
#else
    (void)base; (void)rowb; (void)lane; (void)pk;
    static_assert(GROUPS < 0, "evt_stage_groups is sm_90's (the direct epilogue runs on sm_90a only)");
#endif
}

/* The first rows (up to 8) of the warp's 8 staged rows of W elements
 * (rows rowb bytes apart) to dst, rows ld elements apart, 16 bytes a lane:
 * whole sectors (dst and ld evt_line_ok).  The first skip elements of
 * each row (a whole number of 16-byte pieces; none where skip <= 0) are
 * not stored: a shifted last tile column's, which the tile before owns.
 * A lane's pieces are one column x of rows lane / LINES + k 32 / LINES, so
 * its global address is computed once and stepped: computed for each
 * piece (row * ld in 64 bits), it was most of the copy's instructions
 * (docs/sm90.md, session 58). */
template <int E, int W> /* (also on the host: tests/codegen/stage_copy.cu runs it for every lane there) */
__host__ __device__ __forceinline__ void evt_stage_copy(const unsigned char *base, int rowb, int lane, typename evt_elem<E>::type *dst,
                               evt_i64 ld, int rows, int skip)
{
    typedef typename evt_elem<E>::type T;
    constexpr int V = 16 / (int)sizeof(T);           /* elements a piece */
    constexpr int LINES = W * (int)sizeof(T) / 16;   /* 16-byte pieces a row */
    static_assert(LINES * 16 == W * (int)sizeof(T), "whole 16-byte pieces a row");
    static_assert(LINES <= 32 && 32 % LINES == 0, "a lane's pieces in one column");
    constexpr int STEP = 32 / LINES;                 /* rows between a lane's pieces */
    const int x = lane % LINES, row0 = lane / LINES;
    const bool col_ok = !(skip > 0 && x < skip / V);
    T *p = dst + row0 * ld + x * V;
    const unsigned char *s = base + row0 * rowb + 16 * x;
#pragma unroll
    for (int k = 0; k < (8 + STEP - 1) / STEP; ++k) {
        /* (fewer than 4 pieces a row: the lanes past the 8 rows have none) */
        if ((STEP <= 8 || row0 < 8) && col_ok && row0 + k * STEP < rows)
            *reinterpret_cast<uint4 *>(p) = *reinterpret_cast<const uint4 *>(s);
        p += STEP * ld;
        s += STEP * rowb;
    }
}

/*
 * The register-direct epilogue's accumulators (codegen/emit_cuda.c,
 * <kernel>_epilogue_direct): a consumer warpgroup's NH m64 wgmma rows of
 * NC columns, taken W columns of one of the thread's rows at a time.  The
 * thread holds rows 64 h + 16 warp + lane / 4 + 8 ri (ri = 0, 1) and, of
 * each 8-column group g, columns 8 g + 2 (lane % 4) and the next, at
 * acc[h][0][4 g + 2 ri] and the next.  Segment s is row (h, ri) = (s /
 * (2 PARTS), s / PARTS % 2), columns part W .. (part = s % PARTS): into
 * a, two floats a column group.  s is a constant where the caller's loop
 * is unrolled, and then this is register renaming; else each element is
 * picked from the segments by selects, as registers cannot be indexed.
 */
template <int NH, int NC, int W>
EVT_DEVICE void evt_pick_segment(const float (&acc)[NH][1][NC / 2], int s, float (&a)[W / 4])
{
    constexpr int PARTS = NC / W, GROUPS = W / 8;
#pragma unroll
    for (int x = 0; x < NH * 2 * PARTS; ++x) {
        const int h = x / (2 * PARTS), ri = x / PARTS % 2, part = x % PARTS;
#pragma unroll
        for (int i = 0; i < W / 4; ++i) {
            const float v = acc[h][0][4 * (part * GROUPS + i / 2) + 2 * ri + i % 2];
            a[i] = x == 0 || s == x ? v : a[i];
        }
    }
}

/*
 * The threads that run an epilogue: THREADS of them from thread FIRST on,
 * synchronising on named barrier BAR (0: __syncthreads, the whole CTA).
 * A plain kernel's epilogue is the whole CTA; a warp-specialized kernel's
 * (sched/persistent.cuh, ws_epi_warps_run) is its epilogue warps, with a barrier of their own.
 */
template <int THREADS, int FIRST = 0, int BAR = 0>
struct evt_epi_team {
    static constexpr int kThreads = THREADS;
    static __device__ __forceinline__ int tid() { return (int)threadIdx.x - FIRST; }
    static __device__ __forceinline__ void sync()
    {
        if (BAR == 0)
            __syncthreads();
        else
            asm volatile("bar.sync %0, %1;" ::"n"(BAR), "n"(THREADS) : "memory");
    }
};

/* The team of a producer/consumer configuration's consumer warpgroup
 * (sm90/producer_consumer.cuh, pp_run): its 128 threads, named barrier 4 + warpgroup. */
struct evt_wg_team {
    static constexpr int kThreads = 128;
    static __device__ __forceinline__ int tid() { return (int)threadIdx.x & 127; }
    static __device__ __forceinline__ void sync()
    {
        asm volatile("bar.sync %0, 128;" ::"r"(4 + ((int)threadIdx.x >> 7)) : "memory");
    }
};

/* ---- reductions --------------------------------------------------------- */

enum { EVT_RED_SUM = 0, EVT_RED_MAX = 1, EVT_RED_MIN = 2 };

/*
 * Reductions accumulate in f32 within the CTA, then meet across CTAs in a
 * 32-bit workspace word per result: sums as f32 (atomicAdd), max and min
 * as order-preserving keys (atomicMax/atomicMin on unsigned) in which NaN
 * wins both ways, so NaN propagates whatever the order of arrival.
 */
template <int OP> struct evt_red;
template <> struct evt_red<EVT_RED_SUM> {
    static __device__ __forceinline__ float identity() { return 0.0f; }
    static __device__ __forceinline__ float op(float a, float b) { return a + b; }
    static __device__ __forceinline__ evt_u32 init_word() { return 0u; /* +0.0f */ }
    static __device__ __forceinline__ void atomic(evt_u32 *w, float x)
    {
        atomicAdd(reinterpret_cast<float *>(w), x);
    }
    static __device__ __forceinline__ float finish(evt_u32 w) { return __uint_as_float(w); }
};

/* Monotonic map float -> unsigned over the ordered floats (-0 below +0);
 * NaN is 0xffffffff, above every number. */
EVT_DEVICE evt_u32 evt_max_key(float x)
{
    evt_u32 u = __float_as_uint(x);
    if (x != x)
        return 0xffffffffu;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
EVT_DEVICE float evt_from_max_key(evt_u32 k)
{
    if (k == 0xffffffffu)
        return __uint_as_float(0x7fc00000u);
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

template <> struct evt_red<EVT_RED_MAX> {
    static __device__ __forceinline__ float identity() { return __uint_as_float(0xff800000u); }
    static __device__ __forceinline__ float op(float a, float b) { return evt_max(a, b); }
    static __device__ __forceinline__ evt_u32 init_word() { return evt_max_key(identity()); }
    static __device__ __forceinline__ void atomic(evt_u32 *w, float x) { atomicMax(w, evt_max_key(x)); }
    static __device__ __forceinline__ float finish(evt_u32 w) { return evt_from_max_key(w); }
};
/* For min, NaN takes key 0, below every number's key, so it wins atomicMin. */
template <> struct evt_red<EVT_RED_MIN> {
    static __device__ __forceinline__ float identity() { return __uint_as_float(0x7f800000u); }
    static __device__ __forceinline__ float op(float a, float b) { return evt_min(a, b); }
    static __device__ __forceinline__ evt_u32 init_word() { return evt_max_key(identity()); }
    static __device__ __forceinline__ void atomic(evt_u32 *w, float x)
    {
        atomicMin(w, x != x ? 0u : evt_max_key(x));
    }
    static __device__ __forceinline__ float finish(evt_u32 w)
    {
        return w == 0u ? __uint_as_float(0x7fc00000u) : evt_from_max_key(w);
    }
};

/* Combines x over the CPR consecutive lanes that share one tile row. */
template <int OP, int CPR>
EVT_DEVICE float evt_reduce_lanes(float x)
{
    static_assert(CPR >= 1 && CPR <= 32 && (CPR & (CPR - 1)) == 0, "CPR: a power of two <= 32");
#pragma unroll
    for (int off = CPR / 2; off > 0; off /= 2)
        x = evt_red<OP>::op(x, __shfl_xor_sync(0xffffffffu, x, off));
    return x;
}

/*
 * Column reduction ([N] result): every thread holds partials for its chunk's
 * EVT_VEC columns over its rows; threads of the same chunk meet in shared
 * memory (scratch: RPP * BN floats, free once the tile is consumed), then
 * one atomic per column per CTA.  All threads must call it.
 */
template <int OP, int BN, class TEAM>
EVT_DEVICE void evt_reduce_cols(const float (&part)[EVT_VEC], float *scratch, int c, int valid,
                                evt_u32 *ws_cols)
{
    constexpr int THREADS = TEAM::kThreads;
    constexpr int CPR = BN / EVT_VEC;
    constexpr int RPP = THREADS / CPR;
    const int rgroup = TEAM::tid() / CPR;
    TEAM::sync();
#pragma unroll
    for (int i = 0; i < EVT_VEC; ++i)
        scratch[rgroup * BN + c + i] = part[i];
    TEAM::sync();
    for (int col = TEAM::tid(); col < BN; col += THREADS) {
        float x = scratch[col];
        for (int g = 1; g < RPP; ++g)
            x = evt_red<OP>::op(x, scratch[g * BN + col]);
        scratch[col] = x;
    }
    TEAM::sync();
    if (rgroup == 0)
        for (int i = 0; i < valid; ++i)
            evt_red<OP>::atomic(ws_cols + i, scratch[c + i]);
}

/* Whole-tile reduction (scalar result): one atomic per team, a sum's, or per
 * warp, a max's or a min's.  All threads call it. */
template <int OP, class TEAM>
EVT_DEVICE void evt_reduce_block(float x, float *scratch, evt_u32 *ws)
{
    x = evt_reduce_lanes<OP, 32>(x);
    if constexpr (OP != EVT_RED_SUM) {
        /* max and min come out the same in any order: each warp's atomic,
         * with no barriers across the team (docs/fp8.md, session 41) */
        (void)scratch;
        if ((TEAM::tid() & 31) == 0)
            evt_red<OP>::atomic(ws, x);
        return;
    }
    TEAM::sync();
    if ((TEAM::tid() & 31) == 0)
        scratch[TEAM::tid() >> 5] = x;
    TEAM::sync();
    if (TEAM::tid() == 0) {
        float y = scratch[0];
        for (int w = 1; w < TEAM::kThreads / 32; ++w)
            y = evt_red<OP>::op(y, scratch[w]);
        evt_red<OP>::atomic(ws, y);
    }
}

#endif /* EVT_EPILOGUE_CUH */
