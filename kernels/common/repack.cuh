/*
 * repack.cuh - the runtime's copy of GEMM operands whose rows are not
 * 16-byte aligned into padded rows that are (api/launch.c's repack_begin),
 * entered through BASE_repack.  Plain CUDA on evt_i64 and uint4 only, so
 * that tests/repack/repack_host.cpp can run it on the CPU over emulated grids.
 */
#ifndef EVT_COMMON_REPACK_CUH
#define EVT_COMMON_REPACK_CUH

/*
 * An operand whose rows are not 16-byte aligned (their elements, or the
 * leading dimension, not a multiple of 16 bytes' elements; the runtime's
 * repack, api/launch.c): `rows` rows of e elements, ld apart at src, into
 * dense rows of e8 >= e elements at dst (16-byte aligned), zero past e, so
 * that the fast paths (TMA, 16-byte cp.async) can read it.
 * Each thread writes one 16-byte chunk of a row at a time, the loads being
 * single elements (src's rows have no alignment to speak of); a warp's
 * loads and stores are contiguous.  Rows in y (grid-stride), chunks in x.
 */
template <class T>
__device__ __forceinline__ void evt_gemm_repack(const T *src, evt_i64 ld, T *dst, evt_i64 rows, evt_i64 e,
                                                evt_i64 e8)
{
    constexpr int kChunk = 16 / (int)sizeof(T);
    const evt_i64 chunks = e8 / kChunk;
    for (evt_i64 r = blockIdx.y; r < rows; r += gridDim.y) {
        const T *s = src + r * ld;
        T *d = dst + r * e8;
        for (evt_i64 c = (evt_i64)blockIdx.x * blockDim.x + threadIdx.x; c < chunks;
             c += (evt_i64)gridDim.x * blockDim.x) {
            union {
                uint4 v;
                T t[kChunk];
            } u;
#pragma unroll
            for (int i = 0; i < kChunk; ++i) {
                const evt_i64 col = c * kChunk + i;
                u.t[i] = col < e ? s[col] : (T)0;
            }
            *reinterpret_cast<uint4 *>(d + c * kChunk) = u.v;
        }
    }
}

#endif /* EVT_COMMON_REPACK_CUH */
