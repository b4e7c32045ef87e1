// repack_host.cpp - kernels/common/repack.cuh's evt_gemm_repack run on the
// CPU: each block and thread of a grid, one after another, over operands of
// random rows whose element counts and leading dimensions are not whole
// 16-byte chunks, 16-bit and fp8.  Every copied element must equal the
// source's, every padding element zero, and nothing past the copy touched.
// The GPU runs the same code (api/launch.c's repack); this checks its
// indexing where no GPU is.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

typedef long long evt_i64;
struct evt_dim3 {
    unsigned x, y, z;
};
static evt_dim3 blockIdx, threadIdx, gridDim, blockDim;
struct uint4 {
    unsigned x, y, z, w;
};
#define __device__
#define __forceinline__
#include "common/repack.cuh"

template <class T>
static int check(long long rows, long long e, long long ld, unsigned gx, unsigned gy, unsigned seed)
{
    const long long chunk = 16 / (long long)sizeof(T), e8 = (e + chunk - 1) / chunk * chunk;
    std::vector<T> src((size_t)(rows * ld)), dst((size_t)(rows * e8 + chunk), (T)0x5a);
    srand(seed);
    for (T &v : src)
        v = (T)(rand() | 1); /* never zero: a padding element that kept a source value shows */
    gridDim = {gx, gy, 1};
    blockDim = {256, 1, 1};
    for (unsigned by = 0; by < gy; by++)
        for (unsigned bx = 0; bx < gx; bx++)
            for (unsigned t = 0; t < 256; t++) {
                blockIdx = {bx, by, 0};
                threadIdx = {t, 0, 0};
                evt_gemm_repack<T>(src.data(), ld, dst.data(), rows, e, e8);
            }
    for (long long r = 0; r < rows; r++)
        for (long long c = 0; c < e8; c++) {
            const T want = c < e ? src[(size_t)(r * ld + c)] : (T)0;
            if (dst[(size_t)(r * e8 + c)] != want) {
                printf("FAIL %zu-byte rows %lld e %lld ld %lld grid %ux%u: row %lld element %lld\n", sizeof(T), rows,
                       e, ld, gx, gy, r, c);
                return 1;
            }
        }
    for (long long i = 0; i < chunk; i++)
        if (dst[(size_t)(rows * e8 + i)] != (T)0x5a) {
            printf("FAIL %zu-byte rows %lld e %lld: written past the copy\n", sizeof(T), rows, e);
            return 1;
        }
    return 0;
}

int main()
{
    int bad = 0;
    /* one block of chunks a row, rows in y; grids smaller than the copy (grid-stride in x and y) */
    bad |= check<uint16_t>(37, 1001, 1001, 1, 37, 1);
    bad |= check<uint16_t>(37, 1001, 1003, 1, 5, 2);
    bad |= check<uint16_t>(5, 4095, 4100, 1, 2, 3);
    bad |= check<uint16_t>(3, 9000, 9001, 2, 3, 4);
    bad |= check<uint16_t>(9, 8, 11, 1, 9, 5);   /* e already a chunk, ld not */
    bad |= check<uint16_t>(4, 1, 3, 1, 4, 6);    /* a row of one element */
    bad |= check<uint8_t>(11, 1001, 1001, 1, 11, 7);
    bad |= check<uint8_t>(11, 4097, 4105, 1, 3, 8);
    bad |= check<uint8_t>(3, 16, 17, 1, 3, 9);
    if (!bad)
        printf("repack_host: 9 copies, every element as the source's and every padding element zero\n");
    return bad;
}
