/*
 * harness.cuh - what the standalone mainloop harnesses share
 * (bench/gemm_sm80_check.cu, bench/conv_sm80_check.cu): the CUDA error
 * check, the output types of their store epilogues, the report (stdout and
 * a log file, pass/fail counters), the input hash, a 16-bit fill kernel,
 * the median.
 */
#ifndef EVT_BENCH_HARNESS_CUH
#define EVT_BENCH_HARNESS_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../kernels/evt_common.cuh"

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(2);                                                                           \
        }                                                                                      \
    } while (0)

/* The element type a harness's store epilogue writes. */
enum { OUT_F32 = 0, OUT_F16 = 1, OUT_BF16 = 2 };

static FILE *g_log = nullptr; /* the report's copy, when the harness opens one */
static int g_fail = 0, g_pass = 0;

/* printf to stdout (flushed) and to g_log. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[2048];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fputs(buf, stdout);
    fflush(stdout);
    if (g_log)
        fputs(buf, g_log);
}

static const char *dt_name(int dt) { return dt == EVT_DT_F16 ? "f16" : "bf16"; }

/* A 64-bit mix (splitmix64's finalizer): the random inputs' generator. */
__device__ __forceinline__ unsigned hash32(unsigned long long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (unsigned)x;
}

/* p[0..n) = v (NaN poison for padding and outputs). */
__global__ void fill_u16(evt_u16 *p, long long n, evt_u16 v)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        p[i] = v;
}

static double median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
