/*
 * conv_sm80_check.cu - correctness check and benchmark of the implicit-GEMM
 * conv2d forward mainloop (kernels/conv_sm80.cuh), with a trivial epilogue
 * that stores the shared-memory accumulator tile to a dense NPQK output the
 * way generated epilogues do (8 columns per thread, 16-byte stores).
 *
 * Check: every configuration, f16 and bf16, fast path (when
 * evt_conv_sm80_fast_path_ok() allows it) and guarded path, on small ragged
 * problems: filters 1x1, 3x3, 5x5, 7x7 and 3x5, every padding / stride /
 * dilation in {0,1,3} x {1,2,3} x {1,2} (height and width set independently
 * in half the cases), c in {3, 8, 24, 64}, k in {8, 24, 72}, odd H and W,
 * misaligned bases for the guarded path, plus a few larger layers.  Fresh
 * random inputs per problem, NaN guard zones around the input, NaN-poisoned
 * output.  The reference is a direct conv on the GPU in f64 over the same
 * 16-bit inputs that also returns s = sum |x w|; an element passes when
 * |y - ref| <= 1e-5 s + 1e-6 (f32 output), as in gemm_sm80_check.cu.
 *
 * Bench: the six ResNet-50 layers of /work/shared/anchors/README.md
 * (batch 128, f16, f16 output), every configuration, median of CUDA-event
 * timings with L2 flushed before each run (as triton's do_bench), the
 * output compared with a direct f32 conv.
 *
 * NVRTC: kernels/evt_common.cuh, gemm_sm80.cuh and conv_sm80.cuh pasted in
 * front of a probe kernel compile without include paths and without
 * warnings for sm_80/86/89/90a, and sm_75 is refused (run from the
 * repository root; --nvrtc-only needs no GPU).
 *
 * Usage: conv_sm80_check [--quick] [--no-check] [--no-bench] [--nvrtc-only] [--diag]
 *                        [--profile]
 *   --diag     also time, per layer, a write of the output alone, the
 *              mainloop alone, the store alone, and (1x1) the GEMM mainloop
 *   --profile  run a few bench kernels once each (for ncu), nothing else
 * CONV_CHECK_LOG=path also writes the report there.
 */
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../kernels/evt_common.cuh"
#include "../kernels/gemm_sm80.cuh"
#include "../kernels/conv_sm80.cuh"
#include "harness.cuh"



/* ---- kernel under test: mainloop + store epilogue ------------------------ */

/* The store is the shape of codegen/emit_cuda.c's epilogue: a thread owns 8
 * consecutive columns of the tile and walks rows tid / CPR, + RPP, ...
 * The ragged-edge loops are unrolled with a guard, like evt_store_vec: a
 * loop to a run-time bound put v[] in local memory, and those 32 bytes per
 * row made the 1x1 layers 25-40% slower (docs/conv_sm80.md). */
template <class Cfg, int OUT>
__device__ __forceinline__ void store_tile(const float *acc, int tile_m, int tile_n, int m, int n,
                                           void *y)
{
    constexpr int CPR = Cfg::kBN / 8;
    constexpr int RPP = Cfg::kThreads / CPR;
    const int c = ((int)threadIdx.x % CPR) * 8;
    const int col0 = tile_n * Cfg::kBN + c;
    const int ncol = n - col0 < 0 ? 0 : (n - col0 < 8 ? n - col0 : 8);
    for (int r = (int)threadIdx.x / CPR; r < Cfg::kBM; r += RPP) {
        const long long row = (long long)tile_m * Cfg::kBM + r;
        if (row >= m || ncol == 0)
            continue;
        float4 a0 = *(const float4 *)(acc + r * Cfg::kAccLd + c);
        float4 a1 = *(const float4 *)(acc + r * Cfg::kAccLd + c + 4);
        float v[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        if (OUT == OUT_F32) {
            float *p = (float *)y + row * n + col0;
            if (ncol == 8 && (unsigned long long)p % 16 == 0) {
                ((float4 *)p)[0] = a0;
                ((float4 *)p)[1] = a1;
            } else {
#pragma unroll
                for (int i = 0; i < 8; ++i)
                    if (i < ncol)
                        p[i] = v[i];
            }
        } else {
            const int dt = OUT == OUT_BF16 ? EVT_DT_BF16 : EVT_DT_F16;
            evt_u16 *p = (evt_u16 *)y + row * n + col0;
            if (ncol == 8 && (unsigned long long)p % 16 == 0) {
                *(uint4 *)p = make_uint4(evt_pack2<dt>(v[0], v[1]), evt_pack2<dt>(v[2], v[3]),
                                         evt_pack2<dt>(v[4], v[5]), evt_pack2<dt>(v[6], v[7]));
            } else {
#pragma unroll
                for (int i = 0; i < 8; ++i)
                    if (i < ncol)
                        p[i] = evt_from_f32<dt>(v[i]);
            }
        }
    }
}

/* MODE 0: mainloop + store.  Diagnostics (--diag): MODE 1 mainloop only
 * (no global stores), MODE 2 store only (a zero tile, no mainloop). */
template <class Cfg, int OUT, int GROUP_M, int MODE = 0>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    conv_kernel(evt_conv_args args, void *y)
{
    extern __shared__ __align__(128) unsigned char smem[];
    const int m = args.n * args.p * args.q, n = args.k;
    int tile_m, tile_n;
    evt_gemm_sm80_tile_coord<Cfg, GROUP_M>((int)blockIdx.x, m, n, &tile_m, &tile_n);
    if (MODE != 2) {
        evt_conv_sm80_mainloop<Cfg>(args, tile_m, tile_n, smem);
    } else {
        for (int i = (int)threadIdx.x; i < Cfg::kBM * Cfg::kAccLd; i += Cfg::kThreads)
            ((float *)smem)[i] = 0.0f;
        __syncthreads();
    }
    if (MODE == 1) {
        if (((const float *)smem)[threadIdx.x] == 1234.5f)
            ((float *)y)[threadIdx.x] = 0.0f;
        return;
    }
    store_tile<Cfg, OUT>((const float *)smem, tile_m, tile_n, m, n, y);
}

/* The GEMM mainloop on a 1x1 conv's GEMM view (A = x as M x C row-major,
 * B = w as C x K column-major), same store: --diag compares the two. */
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    gemm_kernel(evt_gemm_args args, void *y)
{
    extern __shared__ __align__(128) unsigned char smem[];
    int tile_m, tile_n;
    evt_gemm_sm80_tile_coord<Cfg>((int)blockIdx.x, args.m, args.n, &tile_m, &tile_n);
    evt_gemm_sm80_mainloop<Cfg>(args, tile_m, tile_n, smem);
    store_tile<Cfg, OUT_F16>((const float *)smem, tile_m, tile_n, args.m, args.n, y);
}

/* Write bandwidth with the output's size: 16-byte stores, grid-stride. */
__global__ void write_only(uint4 *y, long long n16)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n16;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = make_uint4((unsigned)i, 1u, 2u, 3u);
}

/* ---- helpers ------------------------------------------------------------- */

/* n values uniform in [-scale, scale). */
template <int DT>
__global__ void fill_random(evt_u16 *p, long long n, unsigned long long seed, float scale)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        float u = (hash32(seed * 0x9e3779b97f4a7c15ull + i) >> 8) * (1.0f / 8388608.0f) - 1.0f;
        p[i] = evt_from_f32<DT>(u * scale);
    }
}

/* Direct conv: r[m][k] = sum over taps and channels, s = sum |x w|; one
 * thread per output element, accumulator type T. */
template <int DT, class T>
__global__ void ref_conv(evt_conv_args a, T *r, T *s)
{
    const long long total = (long long)a.n * a.p * a.q * a.k;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        long long m = i / a.k;
        int ko = (int)(i % a.k);
        int img = (int)(m / ((long long)a.p * a.q));
        int rem = (int)(m % ((long long)a.p * a.q));
        int oh = rem / a.q, ow = rem % a.q;
        T acc = 0, abs_acc = 0;
        for (int fr = 0; fr < a.r; ++fr) {
            int ih = oh * a.stride_h - a.pad_h + fr * a.dil_h;
            if (ih < 0 || ih >= a.h)
                continue;
            for (int fs = 0; fs < a.s; ++fs) {
                int iw = ow * a.stride_w - a.pad_w + fs * a.dil_w;
                if (iw < 0 || iw >= a.wd)
                    continue;
                const evt_u16 *xp = a.x + (((long long)img * a.h + ih) * a.wd + iw) * a.c;
                const evt_u16 *wp = a.w + (((long long)ko * a.r + fr) * a.s + fs) * a.c;
                for (int c = 0; c < a.c; ++c) {
                    T prod = (T)evt_to_f32<DT>(xp[c]) * (T)evt_to_f32<DT>(wp[c]);
                    acc += prod;
                    abs_acc += prod < 0 ? -prod : prod;
                }
            }
        }
        r[i] = acc;
        if (s)
            s[i] = abs_acc;
    }
}

struct cmp_result {
    unsigned max_ratio_bits; /* max |y - r| / tol, as float bits (>= 0) */
    unsigned long long bad;  /* elements over tolerance or not finite */
    double err2, ref2;       /* for the relative Frobenius error */
};

/* f32 y against the f64 reference with the per-element tolerance. */
__global__ void compare_f32(const float *y, const double *r, const double *s, long long total,
                            cmp_result *out)
{
    float my_max = 0.0f;
    unsigned long long my_bad = 0;
    double e2 = 0.0, r2 = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        double ref = r[i];
        double tol = 1e-5 * s[i] + 1e-6;
        double err = fabs((double)y[i] - ref);
        float ratio = (float)(err / tol);
        if (!(err <= tol)) {
            my_bad++;
            ratio = isfinite(ratio) ? ratio : 3.0e38f;
        }
        my_max = fmaxf(my_max, ratio);
        e2 += isfinite(err) ? err * err : 1e300;
        r2 += ref * ref;
    }
    for (int o = 16; o > 0; o >>= 1) {
        my_max = fmaxf(my_max, __shfl_xor_sync(0xffffffffu, my_max, o));
        my_bad += __shfl_xor_sync(0xffffffffu, my_bad, o);
        e2 += __shfl_xor_sync(0xffffffffu, e2, o);
        r2 += __shfl_xor_sync(0xffffffffu, r2, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMax(&out->max_ratio_bits, __float_as_uint(my_max));
        atomicAdd(&out->bad, my_bad);
        atomicAdd(&out->err2, e2);
        atomicAdd(&out->ref2, r2);
    }
}

/* 16-bit y against an f32 reference: relative Frobenius error and the
 * count of non-finite outputs. */
template <int DT>
__global__ void compare_16(const evt_u16 *y, const float *r, long long total, cmp_result *out)
{
    unsigned long long my_bad = 0;
    double e2 = 0.0, r2 = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        double v = evt_to_f32<DT>(y[i]), ref = r[i];
        if (!isfinite(v))
            my_bad++;
        else
            e2 += (v - ref) * (v - ref);
        r2 += ref * ref;
    }
    for (int o = 16; o > 0; o >>= 1) {
        my_bad += __shfl_xor_sync(0xffffffffu, my_bad, o);
        e2 += __shfl_xor_sync(0xffffffffu, e2, o);
        r2 += __shfl_xor_sync(0xffffffffu, r2, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&out->bad, my_bad);
        atomicAdd(&out->err2, e2);
        atomicAdd(&out->ref2, r2);
    }
}

/* ---- dispatch ------------------------------------------------------------ */

typedef void (*launch_fn)(const evt_conv_args &, void *, cudaStream_t);
typedef int (*occ_fn)();

template <class Cfg, int OUT, int GROUP_M, int MODE = 0>
static void launch(const evt_conv_args &a, void *y, cudaStream_t st)
{
    static bool attr_set = false;
    if (!attr_set) {
        CK(cudaFuncSetAttribute(conv_kernel<Cfg, OUT, GROUP_M, MODE>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
        attr_set = true;
    }
    long long m = (long long)a.n * a.p * a.q;
    long long tiles = ((m + Cfg::kBM - 1) / Cfg::kBM) * ((a.k + Cfg::kBN - 1) / Cfg::kBN);
    if (tiles == 0)
        return;
    conv_kernel<Cfg, OUT, GROUP_M, MODE>
        <<<(unsigned)tiles, Cfg::kThreads, Cfg::kSmemBytes, st>>>(a, y);
    CK(cudaGetLastError());
}

/* A 1x1 unpadded stride-1 conv through the GEMM mainloop. */
template <class Tile>
static void launch_gemm(const evt_conv_args &a, void *y, cudaStream_t st)
{
    typedef evt_gemm_sm80_cfg<Tile, EVT_DT_F16, EVT_ROW_MAJOR, EVT_COL_MAJOR, true> Cfg;
    static bool attr_set = false;
    if (!attr_set) {
        CK(cudaFuncSetAttribute(gemm_kernel<Cfg>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                Cfg::kSmemBytes));
        attr_set = true;
    }
    evt_gemm_args g;
    g.a = a.x;
    g.b = a.w;
    g.m = a.n * a.p * a.q;
    g.n = a.k;
    g.k = a.c;
    g.lda = a.c;
    g.ldb = a.c;
    long long tiles = ((g.m + Cfg::kBM - 1) / Cfg::kBM) * ((g.n + Cfg::kBN - 1) / Cfg::kBN);
    gemm_kernel<Cfg><<<(unsigned)tiles, Cfg::kThreads, Cfg::kSmemBytes, st>>>(g, y);
    CK(cudaGetLastError());
}

template <class Cfg, int OUT, int GROUP_M>
static int occupancy()
{
    CK(cudaFuncSetAttribute(conv_kernel<Cfg, OUT, GROUP_M>,
                            cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
    int n = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, conv_kernel<Cfg, OUT, GROUP_M>,
                                                     Cfg::kThreads, Cfg::kSmemBytes));
    return n;
}

template <int ID, int DT, bool ALIGNED>
struct cfg_of {
    typedef evt_conv_sm80_cfg<typename evt_conv_sm80_tile_of<ID>::type, DT, ALIGNED> type;
};

enum { NCFG = EVT_CONV_SM80_NUM_CFGS };
/* check kernels, f32 output: [id][dtype][aligned] */
static launch_fn g_check[NCFG][2][2];
/* bench kernels, f16 fast path, f16 output */
static launch_fn g_bench[NCFG];
static occ_fn g_occ[NCFG];
/* --diag: [mainloop only, store only] for three configurations, GEMM mainloop */
static constexpr int k_diag_ids[3] = {EVT_CONV_SM80_128x256x64_W8_S3, EVT_CONV_SM80_128x128x64_W4_S3,
                                      EVT_CONV_SM80_256x64x32_W4_S4};
static launch_fn g_diag[3][2];
static launch_fn g_gemm[2] = {launch_gemm<evt_gemm_sm80_tile<128, 256, 64, 2, 4, 3, 1> >,
                              launch_gemm<evt_gemm_sm80_tile<128, 128, 64, 2, 2, 3, 2> >};
static const char *k_gemm_names[2] = {"GEMM 128x256x64", "GEMM 128x128x64"};

template <int I>
static void diag_entry()
{
    typedef typename cfg_of<k_diag_ids[I], EVT_DT_F16, true>::type B;
    g_diag[I][0] = launch<B, OUT_F16, 8, 1>;
    g_diag[I][1] = launch<B, OUT_F16, 8, 2>;
}

template <int ID>
struct for_each_cfg {
    static void init()
    {
        g_check[ID][0][0] = launch<typename cfg_of<ID, EVT_DT_F16, false>::type, OUT_F32, 8>;
        g_check[ID][0][1] = launch<typename cfg_of<ID, EVT_DT_F16, true>::type, OUT_F32, 8>;
        g_check[ID][1][0] = launch<typename cfg_of<ID, EVT_DT_BF16, false>::type, OUT_F32, 8>;
        g_check[ID][1][1] = launch<typename cfg_of<ID, EVT_DT_BF16, true>::type, OUT_F32, 8>;
        typedef typename cfg_of<ID, EVT_DT_F16, true>::type B;
        g_bench[ID] = launch<B, OUT_F16, 8>;
        g_occ[ID] = occupancy<B, OUT_F16, 8>;
        if (ID == 0) {
            diag_entry<0>();
            diag_entry<1>();
            diag_entry<2>();
        }
        for_each_cfg<ID + 1>::init();
    }
};
template <>
struct for_each_cfg<NCFG> {
    static void init() {}
};


static const char *cfg_name(int id)
{
    static char buf[NCFG][48];
    evt_gemm_sm80_cfg_info c = evt_conv_sm80_cfg_lookup(id);
    snprintf(buf[id], sizeof buf[id], "%dx%dx%d w%d s%d", c.bm, c.bn, c.bk, c.warps_m * c.warps_n,
             c.stages);
    return buf[id];
}

/* ---- problems ------------------------------------------------------------ */

struct conv_shape {
    int n, h, w, c, k, r, s;
    int pad_h, pad_w, stride_h, stride_w, dil_h, dil_w;
};

static int out_dim(int in, int pad, int dil, int f, int stride)
{
    int e = in + 2 * pad - dil * (f - 1) - 1;
    return e < 0 ? 0 : e / stride + 1;
}

static evt_conv_args make_args(const conv_shape &cs, const evt_u16 *x, const evt_u16 *w)
{
    evt_conv_args a;
    a.x = x;
    a.w = w;
    a.n = cs.n;
    a.h = cs.h;
    a.wd = cs.w;
    a.c = cs.c;
    a.k = cs.k;
    a.r = cs.r;
    a.s = cs.s;
    a.p = out_dim(cs.h, cs.pad_h, cs.dil_h, cs.r, cs.stride_h);
    a.q = out_dim(cs.w, cs.pad_w, cs.dil_w, cs.s, cs.stride_w);
    a.pad_h = cs.pad_h;
    a.pad_w = cs.pad_w;
    a.stride_h = cs.stride_h;
    a.stride_w = cs.stride_w;
    a.dil_h = cs.dil_h;
    a.dil_w = cs.dil_w;
    return a;
}

/* A 16-bit buffer of n elements with a NaN guard zone of kGuard elements on
 * either side; shift misaligns the base by that many elements. */
struct buf16 {
    evt_u16 *alloc = nullptr;
    evt_u16 *p = nullptr;
};
static const long long kGuard = 64;
static unsigned long long g_seed = 777;

static buf16 make_buf(int dt, long long n, int shift, float scale)
{
    buf16 b;
    long long total = n + 2 * kGuard + 8;
    CK(cudaMalloc(&b.alloc, total * 2));
    fill_u16<<<256, 256>>>(b.alloc, total, dt == EVT_DT_F16 ? 0x7e00 : 0x7fc0);
    CK(cudaGetLastError());
    b.p = b.alloc + kGuard + shift;
    if (n > 0) {
        if (dt == EVT_DT_F16)
            fill_random<EVT_DT_F16><<<1024, 256>>>(b.p, n, ++g_seed, scale);
        else
            fill_random<EVT_DT_BF16><<<1024, 256>>>(b.p, n, ++g_seed, scale);
        CK(cudaGetLastError());
    }
    return b;
}

struct case_stat {
    int runs = 0, fails = 0;
    double worst_ratio = 0, worst_rel = 0;
};
static case_stat g_stats[2][2]; /* [dtype][aligned] */

/* Runs every configuration on both paths for one problem; returns runs. */
static int check_problem(int dt, const conv_shape &cs, int shift, cmp_result *dres)
{
    evt_conv_args a0 = make_args(cs, nullptr, nullptr);
    long long m = (long long)a0.n * a0.p * a0.q;
    if (m <= 0)
        return 0;
    long long xn = (long long)cs.n * cs.h * cs.w * cs.c;
    long long wn = (long long)cs.k * cs.r * cs.s * cs.c;
    buf16 x = make_buf(dt, xn, shift, 1.0f), w = make_buf(dt, wn, 0, 1.0f);
    evt_conv_args a = make_args(cs, x.p, w.p);
    long long total = m * cs.k;
    double *r, *s;
    float *y;
    CK(cudaMalloc(&r, total * 8));
    CK(cudaMalloc(&s, total * 8));
    CK(cudaMalloc(&y, total * 4));
    if (dt == EVT_DT_F16)
        ref_conv<EVT_DT_F16, double><<<264, 256>>>(a, r, s);
    else
        ref_conv<EVT_DT_BF16, double><<<264, 256>>>(a, r, s);
    CK(cudaGetLastError());
    int fast_ok = evt_conv_sm80_fast_path_ok(cs.c, (unsigned long long)x.p, (unsigned long long)w.p);
    int runs = 0;
    for (int id = 0; id < NCFG; ++id)
        for (int al = 0; al < 2; ++al) {
            if (al && !fast_ok)
                continue;
            CK(cudaMemset(y, 0xff, total * 4));
            g_check[id][dt][al](a, y, 0);
            CK(cudaMemset(dres, 0, sizeof(cmp_result)));
            compare_f32<<<132, 256>>>(y, r, s, total, dres);
            CK(cudaGetLastError());
            cmp_result h;
            CK(cudaMemcpy(&h, dres, sizeof h, cudaMemcpyDeviceToHost));
            float ratio;
            memcpy(&ratio, &h.max_ratio_bits, 4);
            double rel = h.ref2 > 0 ? sqrt(h.err2 / h.ref2) : sqrt(h.err2);
            case_stat &st = g_stats[dt][al];
            st.runs++;
            st.worst_ratio = std::max(st.worst_ratio, (double)ratio);
            st.worst_rel = std::max(st.worst_rel, rel);
            runs++;
            bool ok = h.bad == 0;
            if (ok) {
                g_pass++;
            } else {
                g_fail++;
                st.fails++;
            }
            static int printed = 0;
            if ((!ok && printed++ < 40) || getenv("VERBOSE"))
                say("%s %-4s cfg%d %-6s n=%d %dx%dx%d->%d %dx%d pad %d,%d str %d,%d dil %d,%d "
                    "shift %d: bad=%llu/%lld max_err/tol=%.3g rel_fro=%.3g\n",
                    ok ? "ok  " : "FAIL", dt_name(dt), id, al ? "fast" : "guard", cs.n, cs.h, cs.w,
                    cs.c, cs.k, cs.r, cs.s, cs.pad_h, cs.pad_w, cs.stride_h, cs.stride_w,
                    cs.dil_h, cs.dil_w, shift, h.bad, total, ratio, rel);
        }
    CK(cudaFree(x.alloc));
    CK(cudaFree(w.alloc));
    CK(cudaFree(r));
    CK(cudaFree(s));
    CK(cudaFree(y));
    return runs;
}

static void run_checks(bool quick)
{
    cmp_result *dres;
    CK(cudaMalloc(&dres, sizeof(cmp_result)));
    static const int filt[][2] = {{1, 1}, {3, 3}, {5, 5}, {7, 7}, {3, 5}};
    static const int pads[] = {0, 1, 3}, strides[] = {1, 2, 3}, dils[] = {1, 2};
    static const int cs_[] = {3, 8, 24, 64}, ks_[] = {8, 24, 72};
    int nprob = 0, nruns = 0;
    /* geometry g: one (pad, stride, dil) triple per axis, the same for both
     * axes when g is even, another one for the width when g is odd */
    for (int f = 0; f < 5; ++f)
        for (int g = 0; g < 18; ++g) {
            int gw = g % 2 ? (g * 7 + 3) % 18 : g;
            int ph = pads[g / 6], sh = strides[(g / 2) % 3], dh = dils[g % 2];
            int pw = pads[gw / 6], sw = strides[(gw / 2) % 3], dw = dils[gw % 2];
            for (int ci = 0; ci < 4; ++ci)
                for (int ki = 0; ki < 3; ++ki)
                    for (int dt = 0; dt < 2; ++dt) {
                        int sel = ((f * 18 + g) * 4 + ci) * 3 + ki;
                        if (quick && (sel + dt) % 4 != 0)
                            continue;
                        conv_shape cs;
                        cs.n = 1 + sel % 3;
                        cs.c = cs_[ci];
                        cs.k = ks_[ki];
                        cs.r = filt[f][0];
                        cs.s = filt[f][1];
                        cs.pad_h = ph;
                        cs.pad_w = pw;
                        cs.stride_h = sh;
                        cs.stride_w = sw;
                        cs.dil_h = dh;
                        cs.dil_w = dw;
                        /* odd sizes, at least one output row and column */
                        int hmin = dh * (cs.r - 1) + 1 - 2 * ph, wmin = dw * (cs.s - 1) + 1 - 2 * pw;
                        cs.h = std::max(7 + 2 * (sel % 5), hmin | 1);
                        cs.w = std::max(9 + 2 * (sel % 4), wmin | 1);
                        int shift = sel % 5 == 2 ? 1 : 0;
                        nruns += check_problem(dt, cs, shift, dres);
                        nprob++;
                    }
        }
    /* larger layers: many M tiles and k tiles, pipeline wrap-around, c not a
     * multiple of BK, a stride-2 1x1, a first layer with c = 3 */
    static const conv_shape big[] = {
        {3, 28, 28, 64, 72, 3, 3, 1, 1, 1, 1, 1, 1},
        {2, 14, 14, 256, 200, 1, 1, 0, 0, 2, 2, 1, 1},
        {2, 30, 30, 3, 64, 7, 7, 3, 3, 2, 2, 1, 1},
        {2, 17, 17, 40, 136, 3, 3, 1, 1, 1, 1, 1, 1},
        {1, 9, 9, 520, 24, 3, 3, 1, 1, 1, 1, 1, 1},
        {5, 56, 56, 64, 264, 1, 1, 0, 0, 1, 1, 1, 1},
        {2, 15, 13, 128, 320, 3, 3, 2, 0, 1, 2, 2, 1},
    };
    for (const conv_shape &cs : big)
        for (int dt = 0; dt < 2; ++dt) {
            nruns += check_problem(dt, cs, 0, dres);
            nprob++;
        }
    CK(cudaDeviceSynchronize());
    CK(cudaFree(dres));
    say("\n== correctness: %d problems, %d kernel runs: %d passed, %d failed ==\n", nprob, nruns,
        g_pass, g_fail);
    say("%-5s %-6s %6s %6s %14s %12s\n", "dtype", "path", "runs", "fails", "max err/tol",
        "max rel_fro");
    for (int dt = 0; dt < 2; ++dt)
        for (int al = 1; al >= 0; --al) {
            case_stat &st = g_stats[dt][al];
            say("%-5s %-6s %6d %6d %14.3g %12.3g\n", dt_name(dt), al ? "fast" : "guard", st.runs,
                st.fails, st.worst_ratio, st.worst_rel);
        }
}

/* ---- bench --------------------------------------------------------------- */

/* Median time of f in ms; before each run a 256 MB memset evicts L2. */
template <class F>
static double time_ms(F f, void *flush, size_t flush_bytes, int reps)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 3; ++i)
        f();
    CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
        CK(cudaMemsetAsync(flush, i & 0xff, flush_bytes));
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

struct bench_shape {
    conv_shape cs;
    double cudnn_fused_us, cudnn_conv_us; /* anchors README, same machine kind */
};

/* batch 128, ResNet-50: the anchors README's "conv2d forward" table */
static const bench_shape k_shapes[] = {
    {{128, 56, 56, 64, 256, 1, 1, 0, 0, 1, 1, 1, 1}, 164.0, 95.0},
    {{128, 56, 56, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1}, 83.5, 73.8},
    {{128, 28, 28, 128, 512, 1, 1, 0, 0, 1, 1, 1, 1}, 69.7, 42.7},
    {{128, 14, 14, 256, 1024, 1, 1, 0, 0, 1, 1, 1, 1}, 48.8, 30.4},
    {{128, 14, 14, 256, 256, 3, 3, 1, 1, 1, 1, 1, 1}, 56.8, 57.5},
    {{128, 7, 7, 512, 2048, 1, 1, 0, 0, 1, 1, 1, 1}, 36.4, 29.4},
};
enum { NSHAPES = 6 };

struct bench_bufs {
    buf16 x, w;
    evt_conv_args a;
    long long m, total;
    double flop, bytes;
    evt_u16 *y;
};

static bench_bufs make_bench(const conv_shape &cs)
{
    bench_bufs b;
    long long xn = (long long)cs.n * cs.h * cs.w * cs.c, wn = (long long)cs.k * cs.r * cs.s * cs.c;
    b.x = make_buf(EVT_DT_F16, xn, 0, 1.0f);
    b.w = make_buf(EVT_DT_F16, wn, 0, 0.1f);
    b.a = make_args(cs, b.x.p, b.w.p);
    b.m = (long long)b.a.n * b.a.p * b.a.q;
    b.total = b.m * cs.k;
    b.flop = 2.0 * b.m * cs.k * cs.r * cs.s * cs.c;
    b.bytes = 2.0 * (xn + wn + b.total);
    CK(cudaMalloc(&b.y, b.total * 2));
    return b;
}

static void free_bench(bench_bufs &b)
{
    CK(cudaFree(b.x.alloc));
    CK(cudaFree(b.w.alloc));
    CK(cudaFree(b.y));
}

static void run_bench(int reps, int num_sms, bool diag)
{
    size_t flush_bytes = 256u << 20;
    void *flush;
    CK(cudaMalloc(&flush, flush_bytes));
    cmp_result *dres;
    CK(cudaMalloc(&dres, sizeof(cmp_result)));
    say("\n== bench: f16 NHWC, f16 output, fast path, median of %d, L2 flushed ==\n", reps);
    say("occupancy (CTAs/SM):");
    for (int id = 0; id < NCFG; ++id)
        say(" cfg%d %d", id, g_occ[id]());
    say("\n");
    struct best_row {
        double us;
        int id, pick;
        double pick_us;
    } best[NSHAPES];
    for (int si = 0; si < NSHAPES; ++si) {
        const conv_shape &cs = k_shapes[si].cs;
        bench_bufs b = make_bench(cs);
        float *ref;
        CK(cudaMalloc(&ref, b.total * 4));
        ref_conv<EVT_DT_F16, float><<<132 * 16, 256>>>(b.a, ref, (float *)nullptr);
        CK(cudaGetLastError());
        int pick = evt_conv_sm80_pick(b.m, cs.k, (long long)cs.r * cs.s * cs.c, num_sms);
        say("\n%dx%dx%dx%d -> %d, %dx%d pad %d: M=%lld N=%d K=%d, %.1f GFLOP, %.0f MB; "
            "heuristic: cfg%d\n",
            cs.n, cs.h, cs.w, cs.c, cs.k, cs.r, cs.s, cs.pad_h, b.m, cs.k, cs.r * cs.s * cs.c,
            b.flop * 1e-9, b.bytes * 1e-6, pick);
        /* verify: compare with the f32 direct conv first; returns the median in us */
        auto timed = [&](launch_fn f, const char *label, bool verify) {
            bool agree = true;
            double rel = 0;
            if (verify) {
                CK(cudaMemset(b.y, 0xff, b.total * 2));
                f(b.a, b.y, 0);
                CK(cudaMemset(dres, 0, sizeof(cmp_result)));
                compare_16<EVT_DT_F16><<<264, 256>>>(b.y, ref, b.total, dres);
                CK(cudaGetLastError());
                cmp_result h;
                CK(cudaMemcpy(&h, dres, sizeof h, cudaMemcpyDeviceToHost));
                rel = sqrt(h.err2 / h.ref2);
                agree = h.bad == 0 && rel < 2e-3;
                if (!agree)
                    g_fail++;
            }
            double us = 1e3 * time_ms([&]() { f(b.a, b.y, 0); }, flush, flush_bytes, reps);
            say("  %-34s %9.1f us %7.1f TFLOP/s %7.0f GB/s", label, us, b.flop / us * 1e-6,
                b.bytes / us * 1e-3);
            if (verify)
                say("  rel_fro %.2g%s", rel, agree ? "" : " MISMATCH");
            say("\n");
            return us;
        };
        best[si].us = 1e30;
        best[si].pick = pick;
        for (int id = 0; id < NCFG; ++id) {
            char label[64];
            snprintf(label, sizeof label, "cfg%d %s", id, cfg_name(id));
            double us = timed(g_bench[id], label, true);
            if (us < best[si].us) {
                best[si].us = us;
                best[si].id = id;
            }
            if (id == pick)
                best[si].pick_us = us;
        }
        if (diag) {
            long long n16 = b.total * 2 / 16;
            double wus = 1e3 * time_ms([&]() { write_only<<<132 * 8, 256>>>((uint4 *)b.y, n16); },
                                       flush, flush_bytes, reps);
            say("  %-34s %9.1f us %25s %7.0f GB/s\n", "diag: write output only", wus, "",
                b.total * 2 / wus * 1e-3);
            for (int i = 0; i < 3; ++i)
                for (int mode = 0; mode < 2; ++mode) {
                    char label[64];
                    snprintf(label, sizeof label, "diag: cfg%d %s", k_diag_ids[i],
                             mode ? "store only" : "mainloop only");
                    timed(g_diag[i][mode], label, false);
                }
            if (cs.r == 1 && cs.s == 1)
                for (int i = 0; i < 2; ++i) {
                    char label[64];
                    snprintf(label, sizeof label, "diag: %s", k_gemm_names[i]);
                    timed(g_gemm[i], label, true);
                }
        }
        CK(cudaFree(ref));
        free_bench(b);
    }
    say("\n== summary (us; cuDNN columns from the anchors README, not this run) ==\n");
    say("%-24s %10s %9s %9s %8s %8s %12s %12s\n", "layer", "heuristic", "best", "best cfg",
        "TFLOP/s", "GB/s", "cuDNN fused", "cuDNN conv");
    for (int si = 0; si < NSHAPES; ++si) {
        const conv_shape &cs = k_shapes[si].cs;
        char name[64];
        snprintf(name, sizeof name, "%dx%dx%d->%d %dx%d", cs.h, cs.w, cs.c, cs.k, cs.r, cs.s);
        long long m = (long long)cs.n * out_dim(cs.h, cs.pad_h, cs.dil_h, cs.r, cs.stride_h) *
                      out_dim(cs.w, cs.pad_w, cs.dil_w, cs.s, cs.stride_w);
        double flop = 2.0 * m * cs.k * cs.r * cs.s * cs.c;
        double bytes = 2.0 * ((double)cs.n * cs.h * cs.w * cs.c +
                              (double)cs.k * cs.r * cs.s * cs.c + (double)m * cs.k);
        say("%-24s %10.1f %9.1f %9d %8.1f %8.0f %12.1f %12.1f\n", name, best[si].pick_us,
            best[si].us, best[si].id, flop / best[si].us * 1e-6, bytes / best[si].us * 1e-3,
            k_shapes[si].cudnn_fused_us, k_shapes[si].cudnn_conv_us);
    }
    CK(cudaFree(flush));
    CK(cudaFree(dres));
}

/* --profile: a few kernels once each, for ncu. */
static void run_profile()
{
    static const int runs[][2] = {{0, EVT_CONV_SM80_128x128x64_W4_S3},
                                  {0, EVT_CONV_SM80_128x256x64_W8_S3},
                                  {2, EVT_CONV_SM80_128x128x64_W4_S3},
                                  {5, EVT_CONV_SM80_128x256x64_W8_S3},
                                  {4, EVT_CONV_SM80_128x64x64_W4_S3}};
    for (const auto &r : runs) {
        bench_bufs b = make_bench(k_shapes[r[0]].cs);
        g_bench[r[1]](b.a, b.y, 0);
        if (r[0] == 5)
            g_gemm[0](b.a, b.y, 0);
        CK(cudaDeviceSynchronize());
        free_bench(b);
    }
}

/* ---- NVRTC --------------------------------------------------------------- */

static std::string slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s (run from the repository root)\n", path);
        exit(2);
    }
    std::string s;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        s.append(buf, n);
    fclose(f);
    return s;
}

static const char *k_probe =
    "\n"
    "template <class Cfg>\n"
    "__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)\n"
    "evt_conv_nvrtc_probe(evt_conv_args args, float *d)\n"
    "{\n"
    "    extern __shared__ __align__(128) unsigned char smem[];\n"
    "    int tm, tn;\n"
    "    evt_gemm_sm80_tile_coord<Cfg>(blockIdx.x, args.n * args.p * args.q, args.k, &tm, &tn);\n"
    "    evt_conv_sm80_mainloop<Cfg>(args, tm, tn, smem);\n"
    "    const float *acc = (const float *)smem;\n"
    "    d[blockIdx.x * Cfg::kThreads + threadIdx.x] = acc[threadIdx.x * Cfg::kAccLd / 64];\n"
    "}\n"
    "#define P(ID, DT, AG) template __global__ void evt_conv_nvrtc_probe<\\\n"
    "    evt_conv_sm80_cfg<evt_conv_sm80_tile_of<ID>::type, DT, AG> >(evt_conv_args, float *);\n"
    "P(0, EVT_DT_F16, true)\n"
    "P(1, EVT_DT_BF16, true)\n"
    "P(2, EVT_DT_F16, false)\n"
    "P(3, EVT_DT_BF16, false)\n"
    "P(4, EVT_DT_F16, true)\n"
    "P(0, EVT_DT_BF16, false)\n"
    "P(1, EVT_DT_F16, false)\n"
    "P(4, EVT_DT_BF16, false)\n";

/* 1 when compiled (strict: also without warnings). */
static int nvrtc_try(const std::string &src, const char *arch, bool strict)
{
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, src.c_str(), "evt_conv_probe.cu", 0, nullptr, nullptr) !=
        NVRTC_SUCCESS) {
        fprintf(stderr, "nvrtcCreateProgram failed\n");
        exit(2);
    }
    std::string opt = std::string("--gpu-architecture=") + arch;
    const char *opts[] = {opt.c_str(), "-std=c++17"};
    nvrtcResult r = nvrtcCompileProgram(prog, 2, opts);
    size_t n = 0;
    bool warned = false;
    nvrtcGetProgramLogSize(prog, &n);
    if (n > 1) {
        std::string log(n, '\0');
        nvrtcGetProgramLog(prog, &log[0]);
        warned = log.find("warning") != std::string::npos;
        if (strict && (r != NVRTC_SUCCESS || warned))
            say("%.*s\n", (int)std::min<size_t>(log.size(), 3000), log.c_str());
    }
    nvrtcDestroyProgram(&prog);
    return r == NVRTC_SUCCESS && (!strict || !warned);
}

static int run_nvrtc(void)
{
    std::string src = slurp("kernels/evt_common.cuh") + "\n" + slurp("kernels/gemm_sm80.cuh") +
                      "\n" + slurp("kernels/conv_sm80.cuh") + k_probe;
    int fails = 0;
    static const char *archs[] = {"sm_80", "sm_86", "sm_89", "sm_90a"};
    for (const char *arch : archs) {
        int ok = nvrtc_try(src, arch, true);
        say("nvrtc %-6s: %s\n", arch, ok ? "ok" : "FAIL");
        fails += !ok;
    }
    int refused = !nvrtc_try(src, "sm_75", false);
    say("nvrtc sm_75 : %s\n", refused ? "refused (ok)" : "COMPILED (should be refused)");
    fails += !refused;
    return fails;
}

int main(int argc, char **argv)
{
    bool quick = false, bench = true, check = true, nvrtc_only = false, diag = false,
         profile = false;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick"))
            quick = true;
        else if (!strcmp(argv[i], "--no-bench"))
            bench = false;
        else if (!strcmp(argv[i], "--no-check"))
            check = false;
        else if (!strcmp(argv[i], "--nvrtc-only"))
            nvrtc_only = true;
        else if (!strcmp(argv[i], "--diag"))
            diag = true;
        else if (!strcmp(argv[i], "--profile"))
            profile = true;
    }
    const char *logp = getenv("CONV_CHECK_LOG");
    if (logp)
        g_log = fopen(logp, "w");
    if (!profile) {
        say("== NVRTC, no include paths ==\n");
        g_fail += run_nvrtc();
    }
    if (!nvrtc_only) {
        cudaDeviceProp prop;
        CK(cudaGetDeviceProperties(&prop, 0));
        say("device: %s, %d SMs, sm_%d%d, smem/block optin %zu\n", prop.name,
            prop.multiProcessorCount, prop.major, prop.minor, prop.sharedMemPerBlockOptin);
        for_each_cfg<0>::init();
        if (profile) {
            run_profile();
            return 0;
        }
        if (check)
            run_checks(quick);
        if (bench)
            run_bench(40, prop.multiProcessorCount, diag);
    }
    say("\nRESULT: %s (%d failures)\n", g_fail ? "FAIL" : "PASS", g_fail);
    if (g_log)
        fclose(g_log);
    return g_fail ? 1 : 0;
}
