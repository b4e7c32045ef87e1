/*
 * tma_rate.cu - how fast one CTA's TMA loads arrive, with no MMA and no
 * epilogue: the question left by docs/sm90.md's 64x64 producer/consumer
 * tile (session 86), whose k tiles came about every 325 ns whatever the
 * ring's depth or its consumers did.
 *
 * A 16 MB bf16 matrix (2048 rows of 4096), resident in L2 after the first
 * pass, is read in stages of `nb` boxes of `rows` x 128 bytes (the
 * 128-byte-swizzled boxes of the GEMM's tiles; a 64x64 tile's stage is
 * two 64-row boxes, a 128x128 tile's two 128-row ones), through a ring of
 * `stages` stages behind "full" and "empty" mbarriers, one consumer warp
 * freeing each stage as soon as it is full:
 *   ring   thread 0 issues every stage's boxes (evt_sm90::pp_produce's way)
 *   2warps warps 0 and 2 issue alternate stages
 *   2ctas  the ring, two CTAs an SM
 *   batch  thread 0 issues `stages` stages on one mbarrier, waits, and
 *          reports (CTA 0) the cycles its issuing took against its waiting
 *   cpasync  128 threads copy the same stages in 16-byte chunks, six in
 *          flight, a __syncthreads a stage (the plain wgmma tiles' way)
 * on 8 CTAs (the L2 idle) and on one a SM.  A line each: GB/s an SM, the
 * whole GPU's TB/s, ns a stage a CTA.
 *
 *   nvcc -arch=sm_90a -O3 -std=c++17 -I kernels -o tma_rate bench/tma_rate.cu -lcuda && ./tma_rate
 *   (no GPU here: -L/usr/local/cuda/lib64/stubs, and run it on the device)
 */
#include <cuda.h>
#include <cuda_runtime.h>

/* the kernels' own mbarrier and TMA wrappers (-I kernels) */
#include "sm90/tma.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static const int kRows = 2048, kCols = 4096;
enum { RING, TWO_WARPS, BATCH };

/* The device code below exists in the sm_90a pass only (EVT_SM90 == 1, as
 * the kernels' wrappers do); the host pass sees the kernels' empty shells. */
#if EVT_SM90 == 1
using evt_sched::mbar_arrive_cta;
using evt_sched::mbar_init_cta;
using evt_sm90::mbar_arrive_expect_tx;
using evt_sm90::mbar_wait;
using evt_sm90::tma_load_2d;
#endif

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* Stage i's box b: k tile (i nb + b) mod 64 of the CTA's own band of rows
 * (a GEMM tile's k loop; reading the k tiles 17 apart, or a new band each
 * stage, timed the same). */
__device__ __forceinline__ void box_of(int i, int b, int nb, int rows, int *x, int *y)
{
    *x = ((i * nb + b) % (kCols / 64)) * 64;
    *y = ((blockIdx.x * nb + b) % (kRows / rows)) * rows;
}

/* Stage i's boxes into their slots of the ring, completing on `bar`. */
__device__ __forceinline__ void issue(const evt_tma_map *map, unsigned dst, unsigned bar, int i, int nb, int rows)
{
#if EVT_SM90 == 1
    mbar_arrive_expect_tx(bar, nb * rows * 128);
    for (int b = 0; b < nb; ++b) {
        int x, y;
        box_of(i, b, nb, rows, &x, &y);
        tma_load_2d(dst + b * rows * 128, map, bar, x, y);
    }
#endif
}

__global__ void __launch_bounds__(128)
    tma_rate(const __grid_constant__ evt_tma_map map, int mode, int rows, int nb, int stages, int n, int report,
             int *sink)
{
#if EVT_SM90 == 1
    extern __shared__ __align__(1024) unsigned char smem[];
    __shared__ __align__(8) unsigned long long bars[2 * 16];
    const unsigned base = (smem_addr(smem) + 1023u) & ~1023u;
    const unsigned full = smem_addr(bars), empty = full + 8 * 16;
    const unsigned stage_bytes = nb * rows * 128;
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) {
            mbar_init_cta(full + 8 * s, 1);
            mbar_init_cta(empty + 8 * s, 1);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (mode == BATCH) {
        if (threadIdx.x != 0)
            return;
        long long t_issue = 0, t_wait = 0;
        for (int i = 0, j = 0; i < n; i += stages, ++j) {
            const long long t0 = clock64();
            mbar_arrive_expect_tx(full, stages * stage_bytes);
            for (int s = 0; s < stages; ++s)
                for (int b = 0; b < nb; ++b) {
                    int x, y;
                    box_of(i + s, b, nb, rows, &x, &y);
                    tma_load_2d(base + s * stage_bytes + b * rows * 128, &map, full, x, y);
                }
            const long long t1 = clock64();
            mbar_wait(full, j & 1);
            t_issue += t1 - t0;
            t_wait += clock64() - t1;
        }
        if (blockIdx.x == 0 && report)
            printf("  (CTA 0: %.0f cycles issuing each batch of %d stages, %.0f waiting)\n",
                   (double)t_issue / (n / stages), stages, (double)t_wait / (n / stages));
        return;
    }
    const int producers = mode == TWO_WARPS ? 2 : 1;
    if (threadIdx.x == 0 || (producers == 2 && threadIdx.x == 64)) { /* producer p: stages p, p + producers, .. */
        for (int i = threadIdx.x == 64; i < n; i += producers) {
            const int s = i % stages;
            mbar_wait(empty + 8 * s, ((i / stages) & 1) ^ 1);
            issue(&map, base + s * stage_bytes, full + 8 * s, i, nb, rows);
        }
    } else if (threadIdx.x >= 32 && threadIdx.x < 64) { /* the consumer warp */
        int acc = 0;
        for (int i = 0; i < n; ++i) {
            const int s = i % stages;
            mbar_wait(full + 8 * s, (i / stages) & 1);
            acc += smem[base - smem_addr(smem) + s * stage_bytes + 4 * (threadIdx.x & 31)];
            __syncwarp();
            if (threadIdx.x == 32)
                mbar_arrive_cta(empty + 8 * s);
        }
        if (acc == 0x7fffffff)
            *sink = acc;
    }
#endif
}

/* The same stages by cp.async: eight in the ring, six in flight. */
__global__ void __launch_bounds__(128)
    cpasync_rate(const unsigned short *src, int rows, int nb, int n, int *sink)
{
    constexpr int kStages = 8;
    extern __shared__ __align__(1024) unsigned char smem[];
    const unsigned base = (smem_addr(smem) + 1023u) & ~1023u;
    const unsigned stage_bytes = nb * rows * 128;
    const int chunks = nb * rows * 8; /* 16-byte chunks a stage */
    auto load = [&](int i) {
        const int s = i % kStages;
        for (int c = threadIdx.x; c < chunks; c += 128) {
            const int b = c / (rows * 8), r = c % (rows * 8) / 8, ch = c % 8;
            int x, y;
            box_of(i, b, nb, rows, &x, &y);
            const unsigned short *g = src + (size_t)(y + r) * kCols + x + ch * 8;
            const unsigned d = base + s * stage_bytes + b * rows * 128 + r * 128 + 16 * (ch ^ (r & 7));
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(g) : "memory");
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
    };
    for (int i = 0; i < kStages - 2; ++i)
        load(i);
    int acc = 0;
    for (int i = 0; i < n; ++i) {
        asm volatile("cp.async.wait_group %0;" ::"n"(kStages - 3) : "memory");
        __syncthreads();
        acc += smem[base - smem_addr(smem) + (i % kStages) * stage_bytes + 4 * threadIdx.x];
        if (i + kStages - 2 < n)
            load(i + kStages - 2);
        else
            asm volatile("cp.async.commit_group;" ::: "memory");
    }
    if (acc == 0x7fffffff)
        *sink = acc;
}

/* Half a second of work first, so that the clock is up before anything is timed. */
__global__ void busy(long long cycles, int *sink)
{
    const long long t0 = clock64();
    int x = threadIdx.x;
    while (clock64() - t0 < cycles)
        x = x * 1664525 + 1013904223;
    if (x == 0x7fffffff)
        *sink = x;
}

int main()
{
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    unsigned short *mat;
    int *sink;
    CHECK(cudaMalloc(&mat, (size_t)kRows * kCols * 2));
    CHECK(cudaMalloc(&sink, 4));
    CHECK(cudaMemset(mat, 1, (size_t)kRows * kCols * 2));
    printf("%s, %d SMs\n", prop.name, sms);
    busy<<<sms * 4, 256>>>(1000000000LL, sink);
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    printf("%-8s %5s %4s %3s %6s %6s  %9s %9s %9s\n", "kind", "grid", "rows", "nb", "stages", "KB/st", "GB/s/SM",
           "TB/s", "ns/stage");
    const char *names[] = {"ring", "2warps", "batch", "2ctas", "cpasync"};
    for (int kind = 0; kind < 5; ++kind)
        for (int rows : {64, 128})
            for (int nb : {1, 2})
                for (int stages : {4, 8}) {
                    const int stage_bytes = nb * rows * 128;
                    if (kind == 4 && stages != 8) /* (cp.async: eight, fixed) */
                        continue;
                    /* the ring in an SM's 227 KB, twice for two CTAs an SM */
                    if ((kind == 3 ? 2 : 1) * (stage_bytes * stages + 1024) > 227 * 1024)
                        continue;
                    CUtensorMap map;
                    const cuuint64_t dims[2] = {(cuuint64_t)kCols, (cuuint64_t)kRows};
                    const cuuint64_t strides[1] = {(cuuint64_t)kCols * 2};
                    const cuuint32_t box[2] = {64, (cuuint32_t)rows}, ones[2] = {1, 1};
                    if (cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, mat, dims, strides, box, ones,
                                               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                               CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
                        fprintf(stderr, "the tensor map was refused\n");
                        return 1;
                    }
                    evt_tma_map emap; /* the kernels' view of the same 128 bytes */
                    static_assert(sizeof emap == sizeof map, "a tensor map is 128 bytes");
                    memcpy(&emap, &map, sizeof map);
                    const int smem = stage_bytes * stages + 1024;
                    CHECK(cudaFuncSetAttribute(tma_rate, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
                    CHECK(cudaFuncSetAttribute(cpasync_rate, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
                    const int n = 4096 * 16384 / stage_bytes; /* 64 MB a CTA */
                    for (int grid : {8, sms}) {
                        const int ctas = kind == 3 ? 2 : 1; /* CTAs an SM */
                        if ((kind == 1 || kind == 2 || kind == 3) && grid != sms)
                            continue;
                        std::vector<float> t;
                        for (int rep = 0; rep < 5; ++rep) {
                            CHECK(cudaEventRecord(e0));
                            if (kind == 4)
                                cpasync_rate<<<grid, 128, smem>>>(mat, rows, nb, n, sink);
                            else
                                tma_rate<<<grid * ctas, 128, smem>>>(emap, kind == 3 ? RING : kind, rows, nb, stages,
                                                                     n, rep == 4, sink);
                            CHECK(cudaEventRecord(e1));
                            CHECK(cudaEventSynchronize(e1));
                            float ms;
                            CHECK(cudaEventElapsedTime(&ms, e0, e1));
                            if (rep > 0)
                                t.push_back(ms);
                        }
                        CHECK(cudaGetLastError());
                        std::sort(t.begin(), t.end());
                        const double s = t[t.size() / 2] * 1e-3, bytes = (double)n * stage_bytes * ctas;
                        printf("%-8s %5d %4d %3d %6d %6d  %9.1f %9.2f %9.1f\n", names[kind], grid, rows, nb, stages,
                               stage_bytes / 1024, bytes / s / 1e9, bytes * grid / s / 1e12, s / n * 1e9);
                    }
                }
    return 0;
}
