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
 *   onebox the ring, each stage one copy of a rank-3 box (64, rows, nb)
 *          over the matrix seen as (64 columns, rows, 64-column chunks):
 *          the nb k chunks of one band, laid out in shared memory as nb
 *          two-dimensional boxes are (so a tile could take them as its own)
 *   onebox2 the same in two copies a stage, of nb / 2 chunks each, from two
 *          bands of rows (a tile's A and B, of one size here)
 * on 8 CTAs (the L2 idle) and on one a SM.  A line each: GB/s an SM, the
 * whole GPU's TB/s and ns a stage a CTA, timed with a consumer that only
 * frees each stage; then ns a stage in one more run whose consumer checks
 * every stage (stage_ok: the matrix holds a pattern of its coordinates),
 * and the stages of that run that did not hold the matrix's data (0
 * expected; the exit status is 1 otherwise).  The checks are timed apart
 * because the consumer's reads lie on the ring's path: in session 88 they
 * added 50-85 ns to a stage of 2D boxes, 250 to a four-chunk onebox's.
 *
 *   nvcc -arch=sm_90a -O3 -std=c++17 -I kernels -o tma_rate bench/tma_rate.cu -lcuda && ./tma_rate
 *   (no GPU here: -L/usr/local/cuda/lib64/stubs, and run it on the device)
 */
#include <cuda.h>
#include <cuda_runtime.h>

/* the kernels' own mbarrier, TMA and cp.async wrappers (-I kernels) */
#include "sm80/ptx.cuh"
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
enum { RING, TWO_WARPS, BATCH, TWO_CTAS, CPASYNC, ONE_BOX, ONE_BOX2 };

/* A mode's rank-3 copies a stage (its map's rank is 3 where any); 0: 2D boxes */
__host__ __device__ constexpr int rank3_copies(int mode)
{
    return mode == ONE_BOX ? 1 : mode == ONE_BOX2 ? 2 : 0;
}

/* The device code below exists in the sm_90a pass only (EVT_SM90 == 1, as
 * the kernels' wrappers do); the host pass sees the kernels' empty shells. */
#if EVT_SM90 == 1
using evt_sched::mbar_arrive_cta;
using evt_sched::mbar_init_cta;
using evt_sm90::fence_mbar_init_cluster;
using evt_sm90::mbar_arrive_expect_tx;
using evt_sm90::mbar_wait;
using evt_sm90::tma_load_2d;
#endif

/* The matrix's element (r, c): its coordinates, so that a stage's first
 * element says whether the right box landed there. */
__host__ __device__ __forceinline__ unsigned short pattern(int r, int c)
{
    return (unsigned short)(r * 131 + c);
}

__global__ void fill(unsigned short *m)
{
    for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < kRows * kCols; e += gridDim.x * blockDim.x)
        m[e] = pattern(e / kCols, e % kCols);
}

/* The CTA's band of rows for box b of every stage: fixed for its k loop,
 * as a GEMM tile's are (a new band each stage timed the same), so found
 * once, not while issuing. */
struct bands {
    int y[2];
    __device__ bands(int nb, int rows)
    {
        for (int b = 0; b < 2; ++b)
            y[b] = ((blockIdx.x * nb + b) % (kRows / rows)) * rows;
    }
};

/* Stage i's box b starts at k tile (i nb + b) mod 64 (the k tiles read 17
 * apart timed the same). */
__device__ __forceinline__ int box_col(int i, int b, int nb)
{
    return ((i * nb + b) % (kCols / 64)) * 64;
}

/* Whether stage i, at `stage` in shared memory, holds the matrix's data:
 * in each of its nb boxes (or chunks of `copies` rank-3 copies, copy c's
 * from band c; copies 0: 2D boxes, box b's from band b), the first
 * element of row 0 (unmoved by the 128-byte swizzle) and of row 1 (moved
 * by it to the row's second 16 bytes), so that a box in the wrong slot or
 * laid out unswizzled shows. */
__device__ __forceinline__ bool stage_ok(const unsigned char *stage, int i, int nb, int rows, const bands &band,
                                         int copies)
{
    const unsigned short *e = reinterpret_cast<const unsigned short *>(stage);
    bool ok = true;
    for (int b = 0; b < nb; ++b) {
        const int band_of = copies ? b / (nb / copies) : b;
        const int r = band.y[band_of], c = box_col(i, b, nb), at = b * rows * 64; /* 64 elements a row */
        ok = ok && e[at] == pattern(r, c) && e[at + 64 + 8] == pattern(r + 1, c);
    }
    return ok;
}

/* Stage i's boxes into their slots of the ring from dst on, completing on
 * `bar` (whose expected bytes the caller has added). */
__device__ __forceinline__ void copy_boxes(const evt_tma_map *map, unsigned dst, unsigned bar, int i, int nb, int rows,
                                           const bands &band)
{
#if EVT_SM90 == 1
    for (int b = 0; b < nb; ++b)
        tma_load_2d(dst + b * rows * 128, map, bar, box_col(i, b, nb), band.y[b]);
#endif
}

/* Stage i as `copies` rank-3 boxes of nb / copies chunks: copy c the k
 * chunks box_col(i, c nb / copies, nb) / 64 on of band c. */
__device__ __forceinline__ void copy_one_box(const evt_tma_map *map, unsigned dst, unsigned bar, int i, int nb,
                                             int rows, const bands &band, int copies)
{
#if EVT_SM90 == 1
    const int h = nb / copies;
    for (int c = 0; c < copies; ++c)
        evt_sm90::tma_load_3d(dst + c * h * rows * 128, map, bar, 0, band.y[c], box_col(i, c * h, nb) / 64);
#endif
}

__global__ void __launch_bounds__(128)
    tma_rate(const __grid_constant__ evt_tma_map map, int mode, int rows, int nb, int stages, int n, int report,
             int check, int *bad)
{
#if EVT_SM90 == 1
    extern __shared__ __align__(1024) unsigned char smem[];
    __shared__ __align__(8) unsigned long long bars[2 * 16];
    const unsigned base = (evt_smem_addr(smem) + 1023u) & ~1023u;
    const unsigned char *ring = smem + (base - evt_smem_addr(smem));
    const unsigned full = evt_smem_addr(bars), empty = full + 8 * 16;
    const unsigned stage_bytes = nb * rows * 128;
    const bands band(nb, rows);
    const int copies = rank3_copies(mode);
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) {
            mbar_init_cta(full + 8 * s, 1);
            mbar_init_cta(empty + 8 * s, 1);
        }
        fence_mbar_init_cluster();
    }
    __syncthreads();
    if (mode == BATCH) {
        if (threadIdx.x != 0)
            return;
        long long t_issue = 0, t_wait = 0;
        int wrong = 0;
        for (int i = 0, j = 0; i < n; i += stages, ++j) {
            const long long t0 = clock64();
            mbar_arrive_expect_tx(full, stages * stage_bytes);
            for (int s = 0; s < stages; ++s)
                copy_boxes(&map, base + s * stage_bytes, full, i + s, nb, rows, band);
            const long long t1 = clock64();
            mbar_wait(full, j & 1);
            t_issue += t1 - t0;
            t_wait += clock64() - t1;
            for (int s = 0; check && s < stages; ++s)
                wrong += !stage_ok(ring + s * stage_bytes, i + s, nb, rows, band, 0);
        }
        if (wrong)
            atomicAdd(bad, wrong);
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
            mbar_arrive_expect_tx(full + 8 * s, stage_bytes);
            if (copies)
                copy_one_box(&map, base + s * stage_bytes, full + 8 * s, i, nb, rows, band, copies);
            else
                copy_boxes(&map, base + s * stage_bytes, full + 8 * s, i, nb, rows, band);
        }
    } else if (threadIdx.x == 32) { /* the consumer (one thread of warp 1: it only looks at each stage) */
        int wrong = 0;
        for (int i = 0; i < n; ++i) {
            const int s = i % stages;
            mbar_wait(full + 8 * s, (i / stages) & 1);
            if (check)
                wrong += !stage_ok(ring + s * stage_bytes, i, nb, rows, band, copies);
            mbar_arrive_cta(empty + 8 * s);
        }
        if (wrong)
            atomicAdd(bad, wrong);
    }
#endif
}

/* The same stages by cp.async: eight in the ring, six in flight. */
__global__ void __launch_bounds__(128)
    cpasync_rate(const unsigned short *src, int rows, int nb, int n, int check, int *bad)
{
    constexpr int kStages = 8;
    extern __shared__ __align__(1024) unsigned char smem[];
    const unsigned base = (evt_smem_addr(smem) + 1023u) & ~1023u;
    const unsigned char *ring = smem + (base - evt_smem_addr(smem));
    const unsigned stage_bytes = nb * rows * 128;
    const int chunks = nb * rows * 8; /* 16-byte chunks a stage */
    const bands band(nb, rows);
    auto load = [&](int i) {
        const int s = i % kStages;
        for (int c = threadIdx.x; c < chunks; c += 128) {
            const int b = c / (rows * 8), r = c % (rows * 8) / 8, ch = c % 8;
            const unsigned short *g = src + (size_t)(band.y[b] + r) * kCols + box_col(i, b, nb) + ch * 8;
            evt_cp_async_16(base + s * stage_bytes + b * rows * 128 + r * 128 + 16 * (ch ^ (r & 7)), g, true);
        }
        evt_cp_async_commit();
    };
    for (int i = 0; i < kStages - 2; ++i)
        load(i);
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
        evt_cp_async_wait<kStages - 3>();
        __syncthreads();
        if (check && threadIdx.x == 0)
            wrong += !stage_ok(ring + (i % kStages) * stage_bytes, i, nb, rows, band, 0);
        if (i + kStages - 2 < n)
            load(i + kStages - 2);
        else
            evt_cp_async_commit();
    }
    if (wrong)
        atomicAdd(bad, wrong);
}

/* Half a second of work first, so that the clock is up before anything is timed. */
__global__ void busy(long long cycles, int *sink)
{
    const long long t0 = clock64();
    int x = threadIdx.x;
    while (clock64() - t0 < cycles)
        x = x * 1664525 + 1013904223;
    if (x == 0x7fffffff) /* (never: keeps the loop) */
        *sink = x;
}

int main()
{
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    unsigned short *mat;
    int *bad, wrong_total = 0;
    CHECK(cudaMalloc(&mat, (size_t)kRows * kCols * 2));
    CHECK(cudaMalloc(&bad, 4));
    fill<<<sms * 4, 256>>>(mat);
    printf("%s, %d SMs\n", prop.name, sms);
    busy<<<sms * 4, 256>>>(1000000000LL, bad);
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    printf("%-8s %5s %4s %3s %6s %6s  %9s %9s %9s %9s %6s\n", "kind", "grid", "rows", "nb", "stages", "KB/st",
           "GB/s/SM", "TB/s", "ns/stage", "checked", "wrong");
    const char *names[] = {"ring", "2warps", "batch", "2ctas", "cpasync", "onebox", "onebox2"};
    for (int kind = 0; kind < 7; ++kind)
        for (int rows : {64, 128, 256})
            for (int nb : {1, 2, 4})
                for (int stages : {4, 8}) {
                    const int stage_bytes = nb * rows * 128;
                    if (kind == CPASYNC && stages != 8) /* (cp.async: eight, fixed) */
                        continue;
                    /* 256-row boxes and four a stage: the ring and the onebox kinds only */
                    const int copies = rank3_copies(kind);
                    if ((rows == 256 || nb == 4) && kind != RING && !copies)
                        continue;
                    if (nb == 4 && kind == RING) /* (bands holds two) */
                        continue;
                    if (copies > nb) /* (a chunk or more a copy) */
                        continue;
                    /* the ring in an SM's 227 KB, twice for two CTAs an SM */
                    if ((kind == TWO_CTAS ? 2 : 1) * (stage_bytes * stages + 1024) > 227 * 1024)
                        continue;
                    CUtensorMap map;
                    /* onebox: the matrix as (64 columns, rows, chunks), the chunks 128 bytes apart */
                    const int rank = copies ? 3 : 2;
                    const cuuint64_t dims[3] = {(cuuint64_t)(rank == 3 ? 64 : kCols), (cuuint64_t)kRows,
                                                (cuuint64_t)kCols / 64};
                    const cuuint64_t strides[2] = {(cuuint64_t)kCols * 2, 128};
                    const cuuint32_t box[3] = {64, (cuuint32_t)rows, (cuuint32_t)(copies ? nb / copies : nb)},
                                     ones[3] = {1, 1, 1};
                    const CUresult made = cuTensorMapEncodeTiled(
                        &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, rank, mat, dims, strides, box, ones,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
                    if (made != CUDA_SUCCESS) {
                        const char *why = "?";
                        cuGetErrorString(made, &why);
                        printf("%-8s %5s %4d %3d %6d  the tensor map was refused: %s\n", names[kind], "-", rows, nb,
                               stages, why);
                        if (rank == 2)
                            return 1;
                        continue;
                    }
                    evt_tma_map emap; /* the kernels' view of the same 128 bytes */
                    static_assert(sizeof emap == sizeof map, "a tensor map is 128 bytes");
                    memcpy(&emap, &map, sizeof map);
                    const int smem = stage_bytes * stages + 1024;
                    CHECK(cudaFuncSetAttribute(tma_rate, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
                    CHECK(cudaFuncSetAttribute(cpasync_rate, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
                    const int n = 4096 * 16384 / stage_bytes; /* 64 MB a CTA */
                    for (int grid : {8, sms}) {
                        const int ctas = kind == TWO_CTAS ? 2 : 1; /* CTAs an SM */
                        if ((kind == TWO_WARPS || kind == BATCH || kind == TWO_CTAS) && grid != sms)
                            continue;
                        /* five runs whose consumer only frees each stage (the median of the last four
                         * timed), then one that checks every stage: its reads, on the consumer's path,
                         * are timed apart (the "checked" column) so that they do not set the rate */
                        std::vector<float> t;
                        float checked_ms = 0;
                        CHECK(cudaMemset(bad, 0, 4));
                        for (int rep = 0; rep < 6; ++rep) {
                            const int check = rep == 5;
                            CHECK(cudaEventRecord(e0));
                            if (kind == CPASYNC)
                                cpasync_rate<<<grid, 128, smem>>>(mat, rows, nb, n, check, bad);
                            else
                                tma_rate<<<grid * ctas, 128, smem>>>(emap, kind == TWO_CTAS ? RING : kind, rows, nb,
                                                                     stages, n, rep == 4, check, bad);
                            CHECK(cudaEventRecord(e1));
                            CHECK(cudaEventSynchronize(e1));
                            float ms;
                            CHECK(cudaEventElapsedTime(&ms, e0, e1));
                            if (check)
                                checked_ms = ms;
                            else if (rep > 0)
                                t.push_back(ms);
                        }
                        CHECK(cudaGetLastError());
                        int wrong = 0;
                        CHECK(cudaMemcpy(&wrong, bad, 4, cudaMemcpyDeviceToHost));
                        wrong_total += wrong;
                        std::sort(t.begin(), t.end());
                        const double s = t[t.size() / 2] * 1e-3, bytes = (double)n * stage_bytes * ctas;
                        printf("%-8s %5d %4d %3d %6d %6d  %9.1f %9.2f %9.1f %9.1f %6d\n", names[kind], grid, rows, nb,
                               stages, stage_bytes / 1024, bytes / s / 1e9, bytes * grid / s / 1e12, s / n * 1e9,
                               checked_ms * 1e-3 / n * 1e9, wrong);
                    }
                }
    if (wrong_total)
        fprintf(stderr, "%d stages held the wrong data\n", wrong_total);
    return wrong_total ? 1 : 0;
}
