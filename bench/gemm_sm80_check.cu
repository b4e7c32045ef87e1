/*
 * gemm_sm80_check.cu - correctness check and benchmark of the sm_80 GEMM
 * mainloop (kernels/gemm_sm80.cuh), with a trivial epilogue that copies
 * the shared-memory accumulator tile to a global D.
 *
 * Check: f16 and bf16, all four A/B layouts, ragged M, N, K, padded leading
 * dimensions, misaligned bases (slow path), fresh random inputs per case,
 * NaN-poisoned padding and output.  The reference is an f64 GPU GEMM over
 * the same 16-bit inputs that also returns s = sum_k |a_mk * b_kn|; an
 * element passes when |d - ref| <= 1e-5 * s + 1e-6 (+ one ulp of the
 * output type, 2^-10 |ref| for f16 and 2^-7 |ref| for bf16, when D is
 * 16-bit).  f32 accumulation of K products drifts by
 * about sqrt(K/16) ulps of the partial sums, far inside 1e-5 * s, while a
 * dropped or duplicated 8-element k chunk moves an element by ~0.1 * s / K
 * * 8 ~ 0.3, far outside it.
 *
 * Bench: f16, A row-major, B column-major (nn.Linear's "TN"), f16 D,
 * every configuration against cublasGemmEx in the same process; median of
 * CUDA-event timings.
 *
 * Usage: gemm_sm80_check [--quick] [--no-bench] [--no-check] [--max-dim N]
 *   --quick      a third of the check problems
 *   --max-dim N  skip check problems with M, N or K above N (sanitizer runs)
 * GEMM_CHECK_LOG=path also writes the report there.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../kernels/evt_common.cuh"
#include "../kernels/gemm_sm80.cuh"
#include "harness.cuh"

#define CKB(x)                                                                                 \
    do {                                                                                       \
        cublasStatus_t s_ = (x);                                                               \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                     \
            fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_);  \
            exit(2);                                                                           \
        }                                                                                      \
    } while (0)


/* ---- kernels under test: mainloop + trivial epilogue -------------------- */

template <class Cfg, int OUT>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    gemm_kernel(evt_gemm_args args, void *d, long long ldd, int vec_ok)
{
    extern __shared__ __align__(128) unsigned char smem[];
    int tile_m, tile_n;
    evt_gemm_sm80_tile_coord<Cfg>(blockIdx.x, args.m, args.n, &tile_m, &tile_n);
    evt_gemm_sm80_mainloop<Cfg>(args, tile_m, tile_n, smem);

    const float *acc = (const float *)smem;
    const int vpr = Cfg::kBN / 4;
    for (int i = threadIdx.x; i < Cfg::kBM * vpr; i += Cfg::kThreads) {
        int r = i / vpr, c = (i % vpr) * 4;
        long long gm = (long long)tile_m * Cfg::kBM + r;
        int gn = tile_n * Cfg::kBN + c;
        if (gm >= args.m || gn >= args.n)
            continue;
        float4 v = *(const float4 *)(acc + r * Cfg::kAccLd + c);
        float e[4] = {v.x, v.y, v.z, v.w};
        if (OUT == OUT_F32) {
            float *p = (float *)d + gm * ldd + gn;
            if (vec_ok && gn + 4 <= args.n)
                *(float4 *)p = v;
            else
                for (int j = 0; j < 4 && gn + j < args.n; ++j)
                    p[j] = e[j];
        } else {
            const int dt = OUT == OUT_F16 ? EVT_DT_F16 : EVT_DT_BF16;
            evt_u16 *p = (evt_u16 *)d + gm * ldd + gn;
            if (vec_ok && gn + 4 <= args.n)
                *(uint2 *)p = make_uint2(evt_pack2<dt>(v.x, v.y), evt_pack2<dt>(v.z, v.w));
            else
                for (int j = 0; j < 4 && gn + j < args.n; ++j)
                    p[j] = evt_from_f32<dt>(e[j]);
        }
    }
}

/* ---- helpers ------------------------------------------------------------- */

/* Fill rows x cols (stored with leading dimension ld, contiguous along cols)
 * with uniform [-1, 1) values; the caller poisons the padding beforehand. */
template <int DT>
__global__ void fill_random(evt_u16 *p, long long rows, long long cols, long long ld,
                            unsigned long long seed)
{
    long long n = rows * cols;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        long long r = i / cols, c = i % cols;
        float u = (hash32(seed * 0x9e3779b97f4a7c15ull + i) >> 8) * (1.0f / 8388608.0f) - 1.0f;
        p[r * ld + c] = evt_from_f32<DT>(u);
    }
}

/* f64 reference: r = A * B, s = sum |a * b|; 16x16 shared-memory tiles. */
template <int DT>
__global__ void ref_gemm(const evt_u16 *a, const evt_u16 *b, int m, int n, int k, long long lda,
                         long long ldb, int a_col, int b_col, double *r, double *s)
{
    __shared__ double as[16][17], bs[16][17];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    double acc = 0.0, abs_acc = 0.0;
    for (int k0 = 0; k0 < k; k0 += 16) {
        int ar = blockIdx.y * 16 + ty, ak = k0 + tx;
        double av = 0.0;
        if (ar < m && ak < k)
            av = evt_to_f32<DT>(a_col ? a[ar + ak * lda] : a[(long long)ar * lda + ak]);
        int bk = k0 + ty, bc = blockIdx.x * 16 + tx;
        double bv = 0.0;
        if (bk < k && bc < n)
            bv = evt_to_f32<DT>(b_col ? b[bk + (long long)bc * ldb] : b[(long long)bk * ldb + bc]);
        as[ty][tx] = av;
        bs[ty][tx] = bv;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < 16; ++kk) {
            double p = as[ty][kk] * bs[kk][tx];
            acc += p;
            abs_acc += fabs(p);
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        r[(long long)row * n + col] = acc;
        s[(long long)row * n + col] = abs_acc;
    }
}

struct cmp_result {
    unsigned max_ratio_bits; /* max |d - r| / tol, as float bits (>= 0) */
    unsigned long long bad;  /* elements over tolerance or not finite */
    double err2, ref2;       /* for the relative Frobenius error */
    double max_abs;
};

template <int OUT>
__global__ void compare(const void *d, long long ldd, const double *r, const double *s, int m,
                        int n, cmp_result *out)
{
    long long total = (long long)m * n;
    float my_max = 0.0f;
    unsigned long long my_bad = 0;
    double e2 = 0.0, r2 = 0.0, my_abs = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        long long row = i / n, col = i % n;
        double v, ulp16;
        if (OUT == OUT_F32) {
            v = ((const float *)d)[row * ldd + col];
            ulp16 = 0.0;
        } else {
            evt_u16 h = ((const evt_u16 *)d)[row * ldd + col];
            v = OUT == OUT_F16 ? evt_f16_to_f32(h) : evt_bf16_to_f32(h);
            ulp16 = OUT == OUT_F16 ? 0x1p-10 : 0x1p-7; /* rounding is half of it */
        }
        double ref = r[i];
        double tol = 1e-5 * s[i] + 1e-6 + ulp16 * fabs(ref);
        double err = fabs(v - ref);
        float ratio = (float)(err / tol);
        if (!(err <= tol)) {
            my_bad++;
            ratio = isfinite(ratio) ? ratio : 3.0e38f;
        }
        my_max = fmaxf(my_max, ratio);
        my_abs = fmax(my_abs, isfinite(err) ? err : 1e300);
        e2 += isfinite(err) ? err * err : 1e300;
        r2 += ref * ref;
    }
    for (int o = 16; o > 0; o >>= 1) {
        my_max = fmaxf(my_max, __shfl_xor_sync(0xffffffffu, my_max, o));
        my_bad += __shfl_xor_sync(0xffffffffu, my_bad, o);
        e2 += __shfl_xor_sync(0xffffffffu, e2, o);
        r2 += __shfl_xor_sync(0xffffffffu, r2, o);
        my_abs = fmax(my_abs, __shfl_xor_sync(0xffffffffu, my_abs, o));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMax(&out->max_ratio_bits, __float_as_uint(my_max));
        atomicAdd(&out->bad, my_bad);
        atomicAdd(&out->err2, e2);
        atomicAdd(&out->ref2, r2);
        unsigned long long *pa = (unsigned long long *)&out->max_abs;
        atomicMax(pa, (unsigned long long)__double_as_longlong(my_abs));
    }
}

/* ---- dispatch ------------------------------------------------------------ */

typedef void (*launch_fn)(const evt_gemm_args &, void *, long long, cudaStream_t);

template <class Cfg, int OUT>
static void launch(const evt_gemm_args &args, void *d, long long ldd, cudaStream_t st)
{
    static bool attr_set = false;
    if (!attr_set) {
        CK(cudaFuncSetAttribute(gemm_kernel<Cfg, OUT>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
        attr_set = true;
    }
    long long tiles = (long long)((args.m + Cfg::kBM - 1) / Cfg::kBM) *
                      ((args.n + Cfg::kBN - 1) / Cfg::kBN);
    if (tiles == 0)
        return;
    int esz = OUT == OUT_F32 ? 4 : 2;
    int vec_ok = (ldd * esz) % (4 * esz) == 0 && ((unsigned long long)d % (4 * esz)) == 0;
    gemm_kernel<Cfg, OUT><<<(unsigned)tiles, Cfg::kThreads, Cfg::kSmemBytes, st>>>(
        args, d, ldd, vec_ok);
    CK(cudaGetLastError());
}

/* Resident CTAs per SM, from the occupancy calculator. */
template <class Cfg, int OUT>
static int occupancy()
{
    CK(cudaFuncSetAttribute(gemm_kernel<Cfg, OUT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            Cfg::kSmemBytes));
    int n = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, gemm_kernel<Cfg, OUT>, Cfg::kThreads,
                                                     Cfg::kSmemBytes));
    return n;
}

template <int ID, int DT, int AL, int BL, bool AL16, int OUT>
struct cfg_of {
    typedef evt_gemm_sm80_cfg<typename evt_gemm_sm80_tile_of<ID>::type, DT, AL, BL, AL16> type;
};

/* All layouts and both paths for one (config, dtype), f32 output:
 * index = a_layout * 4 + b_layout * 2 + aligned. */
template <int ID, int DT>
static void check_table(launch_fn *t)
{
#define ENTRY(AL, BL, AG)                                                                      \
    t[AL * 4 + BL * 2 + AG] = launch<typename cfg_of<ID, DT, AL, BL, AG, OUT_F32>::type, OUT_F32>
    ENTRY(0, 0, 0); ENTRY(0, 0, 1); ENTRY(0, 1, 0); ENTRY(0, 1, 1);
    ENTRY(1, 0, 0); ENTRY(1, 0, 1); ENTRY(1, 1, 0); ENTRY(1, 1, 1);
#undef ENTRY
}

/* check configurations: every layout and both paths */
static const int k_check_ids[] = {EVT_GEMM_SM80_128x256x32_W8_S4, EVT_GEMM_SM80_128x128x32_W4_S4,
                                  EVT_GEMM_SM80_64x64x32_W4_S4, EVT_GEMM_SM80_128x256x64_W8_S3,
                                  EVT_GEMM_SM80_128x128x64_W4_S3};
enum { N_CHECK_IDS = 5 };
static launch_fn g_check[N_CHECK_IDS][2][8];

/* bench configurations: TN, fast path, 16-bit D */
static launch_fn g_bench_f16[EVT_GEMM_SM80_NUM_CFGS];
static int (*g_bench_occ[EVT_GEMM_SM80_NUM_CFGS])();
static launch_fn g_bench_bf16_best;

template <int ID>
static void bench_entry()
{
    typedef typename cfg_of<ID, EVT_DT_F16, EVT_ROW_MAJOR, EVT_COL_MAJOR, true, OUT_F16>::type C;
    g_bench_f16[ID] = launch<C, OUT_F16>;
    g_bench_occ[ID] = occupancy<C, OUT_F16>;
}

/* Compile-time loop over every configuration id. */
template <int ID>
struct for_each_cfg {
    static void bench()
    {
        bench_entry<ID>();
        for_each_cfg<ID + 1>::bench();
    }
};
template <>
struct for_each_cfg<EVT_GEMM_SM80_NUM_CFGS> {
    static void bench() {}
};

static void init_tables()
{
    check_table<EVT_GEMM_SM80_128x256x32_W8_S4, EVT_DT_F16>(g_check[0][0]);
    check_table<EVT_GEMM_SM80_128x256x32_W8_S4, EVT_DT_BF16>(g_check[0][1]);
    check_table<EVT_GEMM_SM80_128x128x32_W4_S4, EVT_DT_F16>(g_check[1][0]);
    check_table<EVT_GEMM_SM80_128x128x32_W4_S4, EVT_DT_BF16>(g_check[1][1]);
    check_table<EVT_GEMM_SM80_64x64x32_W4_S4, EVT_DT_F16>(g_check[2][0]);
    check_table<EVT_GEMM_SM80_64x64x32_W4_S4, EVT_DT_BF16>(g_check[2][1]);
    check_table<EVT_GEMM_SM80_128x256x64_W8_S3, EVT_DT_F16>(g_check[3][0]);
    check_table<EVT_GEMM_SM80_128x256x64_W8_S3, EVT_DT_BF16>(g_check[3][1]);
    check_table<EVT_GEMM_SM80_128x128x64_W4_S3, EVT_DT_F16>(g_check[4][0]);
    check_table<EVT_GEMM_SM80_128x128x64_W4_S3, EVT_DT_BF16>(g_check[4][1]);
    for_each_cfg<0>::bench();
    g_bench_bf16_best = launch<typename cfg_of<EVT_GEMM_SM80_128x256x64_W8_S3, EVT_DT_BF16,
                                               EVT_ROW_MAJOR, EVT_COL_MAJOR, true, OUT_BF16>::type,
                               OUT_BF16>;
}

/* ---- check --------------------------------------------------------------- */


struct matrix {
    evt_u16 *alloc = nullptr; /* with room for a misaligned base */
    evt_u16 *p = nullptr;
    long long ld = 0;
};

static unsigned long long g_seed = 12345;

/* rows x cols, contiguous along cols; pad adds to ld, shift misaligns. */
static matrix make_matrix(int dt, long long rows, long long cols, long long pad, int shift)
{
    matrix mt;
    mt.ld = std::max(cols + pad, 1LL);
    long long n = std::max(rows, 1LL) * mt.ld + 16;
    CK(cudaMalloc(&mt.alloc, n * 2));
    evt_u16 nan16 = dt == EVT_DT_F16 ? 0x7e00 : 0x7fc0;
    fill_u16<<<512, 256>>>(mt.alloc, n, nan16);
    CK(cudaGetLastError());
    mt.p = mt.alloc + shift;
    if (rows * cols > 0) {
        if (dt == EVT_DT_F16)
            fill_random<EVT_DT_F16><<<1024, 256>>>(mt.p, rows, cols, mt.ld, ++g_seed);
        else
            fill_random<EVT_DT_BF16><<<1024, 256>>>(mt.p, rows, cols, mt.ld, ++g_seed);
        CK(cudaGetLastError());
    }
    return mt;
}

struct case_stat {
    int runs = 0, fails = 0;
    double worst_ratio = 0, worst_rel = 0;
};

static case_stat g_stats[2][4][2]; /* dtype, layout combo, aligned path */

static int g_max_dim = 1 << 30;
static double g_bench_worst = 0;

/* Returns 1 when the problem ran, 0 when --max-dim skipped it. */
static int check_case(int dt, int al, int bl, int m, int n, int k, int pad, int shift,
                      cmp_result *dres)
{
    if (m > g_max_dim || n > g_max_dim || k > g_max_dim)
        return 0;
    /* A: row-major is m x k contiguous in k; col-major is k x m contiguous in m. */
    matrix a = al == 0 ? make_matrix(dt, m, k, pad, shift) : make_matrix(dt, k, m, pad, shift);
    matrix b = bl == 0 ? make_matrix(dt, k, n, pad, 0) : make_matrix(dt, n, k, pad, 0);
    double *r, *s;
    size_t mn = (size_t)std::max(m, 1) * std::max(n, 1);
    CK(cudaMalloc(&r, mn * 8));
    CK(cudaMalloc(&s, mn * 8));
    dim3 rb(16, 16), rg((n + 15) / 16, (m + 15) / 16);
    if (m > 0 && n > 0) {
        if (dt == EVT_DT_F16)
            ref_gemm<EVT_DT_F16><<<rg, rb>>>(a.p, b.p, m, n, k, a.ld, b.ld, al, bl, r, s);
        else
            ref_gemm<EVT_DT_BF16><<<rg, rb>>>(a.p, b.p, m, n, k, a.ld, b.ld, al, bl, r, s);
        CK(cudaGetLastError());
    }
    long long ldd = n + (pad ? 4 : 0);
    float *d;
    CK(cudaMalloc(&d, (size_t)std::max(m, 1) * ldd * 4 + 16));

    evt_gemm_args args;
    args.a = a.p;
    args.b = b.p;
    args.m = m;
    args.n = n;
    args.k = k;
    args.lda = a.ld;
    args.ldb = b.ld;
    int fast = evt_gemm_sm80_fast_path_ok(al, bl, m, n, k, (unsigned long long)a.p, a.ld,
                                          (unsigned long long)b.p, b.ld);
    for (int ci = 0; ci < N_CHECK_IDS; ++ci) {
        for (int path = fast; path >= 0; --path) {
            CK(cudaMemset(d, 0xff, (size_t)std::max(m, 1) * ldd * 4)); /* NaN poison */
            g_check[ci][dt][al * 4 + bl * 2 + path](args, d, ldd, 0);
            CK(cudaMemset(dres, 0, sizeof(cmp_result)));
            compare<OUT_F32><<<264, 256>>>(d, ldd, r, s, m, n, dres);
            CK(cudaGetLastError());
            cmp_result h;
            CK(cudaMemcpy(&h, dres, sizeof h, cudaMemcpyDeviceToHost));
            float ratio;
            memcpy(&ratio, &h.max_ratio_bits, 4);
            double rel = h.ref2 > 0 ? sqrt(h.err2 / h.ref2) : sqrt(h.err2);
            case_stat &cs = g_stats[dt][al * 2 + bl][path];
            cs.runs++;
            cs.worst_ratio = std::max(cs.worst_ratio, (double)ratio);
            cs.worst_rel = std::max(cs.worst_rel, rel);
            bool ok = h.bad == 0;
            if (ok) {
                g_pass++;
            } else {
                g_fail++;
                cs.fails++;
            }
            static int printed = 0;
            if ((!ok && printed++ < 40) || getenv("VERBOSE"))
                say("%s %-4s A%s B%s cfg%d %s M=%d N=%d K=%d lda=%lld ldb=%lld: bad=%llu "
                    "max_err/tol=%.3g max_abs=%.3g rel_fro=%.3g\n",
                    ok ? "ok  " : "FAIL", dt_name(dt), al ? "col" : "row", bl ? "col" : "row",
                    k_check_ids[ci], path ? "fast" : "slow", m, n, k, a.ld, b.ld, h.bad, ratio,
                    h.max_abs, rel);
        }
    }
    CK(cudaFree(a.alloc));
    CK(cudaFree(b.alloc));
    CK(cudaFree(r));
    CK(cudaFree(s));
    CK(cudaFree(d));
    return 1;
}

/* Every configuration, TN f16 fast path with f16 D (the bench kernels), on
 * ragged problems; returns the number of failures. */
static int check_bench_cfgs(cmp_result *dres)
{
    static const int sizes[][3] = {{1000, 4097, 4104}, {127, 300, 200}, {4097, 7, 24}};
    int fails = 0;
    for (int si = 0; si < 3; ++si) {
        int m = sizes[si][0], n = sizes[si][1], k = sizes[si][2];
        if (m > g_max_dim || n > g_max_dim || k > g_max_dim)
            continue;
        matrix a = make_matrix(EVT_DT_F16, m, k, 0, 0), b = make_matrix(EVT_DT_F16, n, k, 0, 0);
        double *r, *s;
        CK(cudaMalloc(&r, (size_t)m * n * 8));
        CK(cudaMalloc(&s, (size_t)m * n * 8));
        ref_gemm<EVT_DT_F16><<<dim3((n + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(
            a.p, b.p, m, n, k, a.ld, b.ld, 0, 1, r, s);
        CK(cudaGetLastError());
        evt_u16 *d;
        CK(cudaMalloc(&d, (size_t)m * n * 2));
        evt_gemm_args args = {a.p, b.p, m, n, k, a.ld, b.ld};
        for (int id = 0; id < EVT_GEMM_SM80_NUM_CFGS; ++id) {
            CK(cudaMemset(d, 0xff, (size_t)m * n * 2));
            g_bench_f16[id](args, d, n, 0);
            CK(cudaMemset(dres, 0, sizeof(cmp_result)));
            compare<OUT_F16><<<264, 256>>>(d, n, r, s, m, n, dres);
            CK(cudaGetLastError());
            cmp_result h;
            CK(cudaMemcpy(&h, dres, sizeof h, cudaMemcpyDeviceToHost));
            float ratio;
            memcpy(&ratio, &h.max_ratio_bits, 4);
            if (h.bad) {
                fails++;
                say("FAIL bench cfg %d M=%d N=%d K=%d f16 D: bad=%llu max_err/tol=%.3g\n", id, m,
                    n, k, h.bad, ratio);
            }
            g_bench_worst = std::max(g_bench_worst, (double)ratio);
        }
        CK(cudaFree(a.alloc));
        CK(cudaFree(b.alloc));
        CK(cudaFree(r));
        CK(cudaFree(s));
        CK(cudaFree(d));
    }
    return fails;
}

static void run_checks(bool quick, int max_dim)
{
    cmp_result *dres;
    CK(cudaMalloc(&dres, sizeof(cmp_result)));
    g_max_dim = max_dim;
    const int ms[] = {1, 7, 127, 1000, 4097};
    const int ks[] = {8, 24, 4104};
    int ncase = 0;
    for (int dt = 0; dt < 2; ++dt)
        for (int lay = 0; lay < 4; ++lay) {
            int al = lay >> 1, bl = lay & 1;
            for (int mi = 0; mi < 5; ++mi)
                for (int ni = 0; ni < 5; ++ni)
                    for (int ki = 0; ki < 3; ++ki) {
                        int m = ms[mi], n = ms[ni], k = ks[ki];
                        /* the biggest corner once per dtype/layout is plenty */
                        if (m == 4097 && n == 4097 && (k != 4104 || quick))
                            continue;
                        if (quick && (mi + ni + ki + lay) % 3 != 0)
                            continue;
                        int sel = mi * 15 + ni * 3 + ki + lay;
                        int pad = sel % 3 == 1 ? 8 : (sel % 3 == 2 ? 3 : 0);
                        int shift = sel % 7 == 3 ? 1 : 0;
                        ncase += check_case(dt, al, bl, m, n, k, pad, shift, dres);
                    }
            /* K not a multiple of 8 and empty K: slow path only */
            ncase += check_case(dt, al, bl, 333, 290, 1001, 0, 0, dres);
            ncase += check_case(dt, al, bl, 129, 65, 0, 0, 0, dres);
            ncase += check_case(dt, al, bl, 64, 64, 17, 0, 0, dres);
            /* small enough for the sanitizers, long enough to cycle the stages */
            ncase += check_case(dt, al, bl, 100, 130, 200, 8, 0, dres);
        }
    int bench_fails = check_bench_cfgs(dres);
    g_fail += bench_fails;
    CK(cudaDeviceSynchronize());
    CK(cudaFree(dres));
    say("\nall %d configurations, TN f16 fast path, f16 D, 3 ragged problems: %d failed, "
        "max err/tol %.3g\n", (int)EVT_GEMM_SM80_NUM_CFGS, bench_fails, g_bench_worst);
    say("\n== correctness: %d problems, %d kernel runs: %d passed, %d failed ==\n", ncase,
        g_pass + g_fail, g_pass, g_fail);
    say("%-5s %-9s %-5s %6s %6s %14s %12s\n", "dtype", "A/B", "path", "runs", "fails",
        "max err/tol", "max rel_fro");
    for (int dt = 0; dt < 2; ++dt)
        for (int lay = 0; lay < 4; ++lay)
            for (int path = 1; path >= 0; --path) {
                case_stat &cs = g_stats[dt][lay][path];
                say("%-5s %-9s %-5s %6d %6d %14.3g %12.3g\n", dt_name(dt),
                    lay == 0 ? "row/row" : lay == 1 ? "row/col" : lay == 2 ? "col/row" : "col/col",
                    path ? "fast" : "slow", cs.runs, cs.fails, cs.worst_ratio, cs.worst_rel);
            }
}

/* ---- bench --------------------------------------------------------------- */

template <class F>
static double time_ms(F f, int warmup, int reps)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < warmup; ++i)
        f();
    CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
        CK(cudaEventRecord(e0));
        f();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return median(t);
}

/* relative Frobenius distance between two 16-bit matrices */
template <int DT>
__global__ void diff16(const evt_u16 *x, const evt_u16 *y, long long n, double *acc)
{
    double e2 = 0, r2 = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        double a = evt_to_f32<DT>(x[i]), b = evt_to_f32<DT>(y[i]);
        e2 += (a - b) * (a - b);
        r2 += b * b;
    }
    for (int o = 16; o > 0; o >>= 1) {
        e2 += __shfl_xor_sync(0xffffffffu, e2, o);
        r2 += __shfl_xor_sync(0xffffffffu, r2, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&acc[0], e2);
        atomicAdd(&acc[1], r2);
    }
}

static const char *cfg_name(int id)
{
    static char buf[EVT_GEMM_SM80_NUM_CFGS][48];
    evt_gemm_sm80_cfg_info c = evt_gemm_sm80_cfg_lookup(id);
    snprintf(buf[id], sizeof buf[id], "%dx%dx%d w%d s%d o%d", c.bm, c.bn, c.bk,
             c.warps_m * c.warps_n, c.stages, g_bench_occ[id] ? g_bench_occ[id]() : 0);
    return buf[id];
}

static void bench_one(cublasHandle_t h, int dt, int size, const int *ids, int nids, int reps)
{
    int m = size, n = size, k = size;
    matrix a = make_matrix(dt, m, k, 0, 0); /* row-major A */
    matrix b = make_matrix(dt, n, k, 0, 0); /* column-major B */
    evt_u16 *d, *dref;
    CK(cudaMalloc(&d, (size_t)m * n * 2));
    CK(cudaMalloc(&dref, (size_t)m * n * 2));
    double *acc;
    CK(cudaMalloc(&acc, 16));
    double flop = 2.0 * m * n * k;
    float alpha = 1.0f, beta = 0.0f;
    cudaDataType_t ct = dt == EVT_DT_F16 ? CUDA_R_16F : CUDA_R_16BF;
    auto cublas = [&]() {
        CKB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b.p, ct, (int)b.ld, a.p, ct,
                         (int)a.ld, &beta, dref, ct, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    };
    double t_cublas = time_ms(cublas, 5, reps);
    double tf_cublas = flop / t_cublas * 1e-9;
    say("%-5s %5d  %-20s %9.3f ms %8.1f TFLOP/s  1.000x\n", dt_name(dt), size, "cuBLAS", t_cublas,
        tf_cublas);
    evt_gemm_args args;
    args.a = a.p;
    args.b = b.p;
    args.m = m;
    args.n = n;
    args.k = k;
    args.lda = a.ld;
    args.ldb = b.ld;
    for (int i = 0; i < nids; ++i) {
        launch_fn f = dt == EVT_DT_F16 ? g_bench_f16[ids[i]] : g_bench_bf16_best;
        CK(cudaMemset(d, 0xff, (size_t)m * n * 2));
        f(args, d, n, 0);
        CK(cudaMemset(acc, 0, 16));
        if (dt == EVT_DT_F16)
            diff16<EVT_DT_F16><<<264, 256>>>(d, dref, (long long)m * n, acc);
        else
            diff16<EVT_DT_BF16><<<264, 256>>>(d, dref, (long long)m * n, acc);
        CK(cudaGetLastError());
        double hacc[2];
        CK(cudaMemcpy(hacc, acc, 16, cudaMemcpyDeviceToHost));
        double rel = sqrt(hacc[0] / hacc[1]);
        double t = time_ms([&]() { f(args, d, n, 0); }, 5, reps);
        double tf = flop / t * 1e-9;
        bool agree = rel < (dt == EVT_DT_F16 ? 1e-3 : 8e-3);
        if (!agree)
            g_fail++;
        say("%-5s %5d  %-20s %9.3f ms %8.1f TFLOP/s  %.3fx  (vs cuBLAS rel_fro %.2g%s)\n",
            dt_name(dt), size, cfg_name(ids[i]), t, tf, tf / tf_cublas, rel,
            agree ? "" : " MISMATCH");
    }
    CK(cudaFree(a.alloc));
    CK(cudaFree(b.alloc));
    CK(cudaFree(d));
    CK(cudaFree(dref));
    CK(cudaFree(acc));
}

static void run_bench(int reps)
{
    cublasHandle_t h;
    CKB(cublasCreate(&h));
    say("\n== bench: A row-major, B col-major (TN), 16-bit D, median of %d ==\n", reps);
    int all[EVT_GEMM_SM80_NUM_CFGS];
    for (int i = 0; i < EVT_GEMM_SM80_NUM_CFGS; ++i)
        all[i] = i;
    bench_one(h, EVT_DT_F16, 4096, all, EVT_GEMM_SM80_NUM_CFGS, reps);
    bench_one(h, EVT_DT_F16, 8192, all, EVT_GEMM_SM80_NUM_CFGS, reps);
    const int best[] = {EVT_GEMM_SM80_128x256x64_W8_S3};
    bench_one(h, EVT_DT_BF16, 4096, best, 1, reps);
    static const int probe[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {2048, 2048, 4096},
                                   {1024, 1024, 1024}, {64, 4096, 4096}};
    for (int i = 0; i < 5; ++i)
        say("heuristic pick for %dx%dx%d: %s\n", probe[i][0], probe[i][1], probe[i][2],
            cfg_name(evt_gemm_sm80_pick(probe[i][0], probe[i][1], probe[i][2], 0)));
    CKB(cublasDestroy(h));
}

int main(int argc, char **argv)
{
    bool quick = false, bench = true, check = true;
    int max_dim = 1 << 30;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick"))
            quick = true;
        else if (!strcmp(argv[i], "--no-bench"))
            bench = false;
        else if (!strcmp(argv[i], "--no-check"))
            check = false;
        else if (!strcmp(argv[i], "--max-dim") && i + 1 < argc)
            max_dim = atoi(argv[++i]);
    }
    const char *logp = getenv("GEMM_CHECK_LOG");
    if (logp)
        g_log = fopen(logp, "w");
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    say("device: %s, %d SMs, sm_%d%d, smem/block optin %zu\n", prop.name,
        prop.multiProcessorCount, prop.major, prop.minor, prop.sharedMemPerBlockOptin);
    init_tables();
    if (check)
        run_checks(quick, max_dim);
    if (bench)
        run_bench(30);
    say("\nRESULT: %s (%d failures)\n", g_fail ? "FAIL" : "PASS", g_fail);
    if (g_log)
        fclose(g_log);
    return g_fail ? 1 : 0;
}
