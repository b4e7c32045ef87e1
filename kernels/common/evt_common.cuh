/*
 * evt_common.cuh - tiny device helpers shared by the evt kernel templates.
 *
 * Compiled by NVRTC with no include paths, so this file includes nothing:
 * integer and storage typedefs are spelled out, conversions and shared
 * memory accesses are inline PTX.  Instructions of one architecture live
 * in its folder (sm80/ptx.cuh, sm90/).
 * f16 and bf16 values are carried as raw 16-bit storage (evt_u16); which
 * of the two a buffer holds is a template parameter (EVT_DT_*), never a type.
 */
#ifndef EVT_COMMON_CUH
#define EVT_COMMON_CUH

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#error "evt_common.cuh is CUDA device code: compile it with nvcc or NVRTC"
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "evt kernels need sm_80 or newer (cp.async, ldmatrix, bf16 mma)"
#endif

typedef signed char evt_i8;
typedef unsigned char evt_u8;
typedef short evt_i16;
typedef unsigned short evt_u16;
typedef int evt_i32;
typedef unsigned int evt_u32;
typedef long long evt_i64;
typedef unsigned long long evt_u64;

/* Operand element types; storage is evt_u16 for the 16-bit ones, evt_u8
 * for fp8. */
enum {
    EVT_DT_F16 = 0,  /* IEEE binary16 */
    EVT_DT_BF16 = 1, /* bfloat16 */
    EVT_DT_E4M3 = 2, /* fp8 e4m3fn (gemm only: mma.sync m16n8k32 on sm_89+, wgmma k32 on sm_90a) */
    EVT_DT_E5M2 = 3, /* fp8 e5m2 (likewise) */
};
#define EVT_DT_IS_FP8(dt) ((dt) == EVT_DT_E4M3 || (dt) == EVT_DT_E5M2)

/* Matrix storage orders. */
enum {
    EVT_ROW_MAJOR = 0, /* element (r, c) at p[r * ld + c] */
    EVT_COL_MAJOR = 1, /* element (r, c) at p[r + c * ld] */
};

/* Not static: an unused static function is a warning under NVRTC. */
#define EVT_DEVICE __device__ __forceinline__

/* ---- conversions -------------------------------------------------------- */

/* The largest divisor of n that is g or less: a loop's unrolled groups
 * that tile n whole (an epilogue's row groups over a swapped tile's 5 or 10
 * passes, a split-K sum's float4s). */
__host__ __device__ constexpr int evt_divisor_upto(int n, int g)
{
    while (g > 1 && n % g != 0)
        --g;
    return g;
}

EVT_DEVICE float evt_f16_to_f32(evt_u16 h)
{
    float f;
    asm("{ .reg .f16 t; mov.b16 t, %1; cvt.f32.f16 %0, t; }" : "=f"(f) : "h"(h));
    return f;
}

/* bf16 is the high half of an f32, so widening is exact: place it there. */
EVT_DEVICE float evt_bf16_to_f32(evt_u16 h)
{
    float f;
    asm("mov.b32 %0, {%1, %2};" : "=f"(f) : "h"((evt_u16)0), "h"(h));
    return f;
}

EVT_DEVICE evt_u16 evt_f32_to_f16(float f)
{
    evt_u16 h;
    asm("{ .reg .f16 t; cvt.rn.f16.f32 t, %1; mov.b16 %0, t; }" : "=h"(h) : "f"(f));
    return h;
}

EVT_DEVICE evt_u16 evt_f32_to_bf16(float f)
{
    evt_u16 h;
    asm("{ .reg .b16 t; cvt.rn.bf16.f32 t, %1; mov.b16 %0, t; }" : "=h"(h) : "f"(f));
    return h;
}

/* Two values into one 32-bit word: lo in bits 0..15, hi in bits 16..31. */
EVT_DEVICE evt_u32 evt_pack_f16x2(float lo, float hi)
{
    evt_u32 r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

EVT_DEVICE evt_u32 evt_pack_bf16x2(float lo, float hi)
{
    evt_u32 r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

template <int DT>
EVT_DEVICE float evt_to_f32(evt_u16 h)
{
    return DT == EVT_DT_F16 ? evt_f16_to_f32(h) : evt_bf16_to_f32(h);
}

template <int DT>
EVT_DEVICE evt_u16 evt_from_f32(float f)
{
    return DT == EVT_DT_F16 ? evt_f32_to_f16(f) : evt_f32_to_bf16(f);
}

template <int DT>
EVT_DEVICE evt_u32 evt_pack2(float lo, float hi)
{
    return DT == EVT_DT_F16 ? evt_pack_f16x2(lo, hi) : evt_pack_bf16x2(lo, hi);
}

/* ---- shared memory ------------------------------------------------------ */

EVT_DEVICE evt_u32 evt_smem_addr(const void *p)
{
    evt_u32 a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }"
        : "=r"(a) : "l"(p));
    return a;
}

EVT_DEVICE void evt_st_shared_v4(evt_u32 addr, evt_u32 x, evt_u32 y, evt_u32 z, evt_u32 w)
{
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};"
                 :: "r"(addr), "r"(x), "r"(y), "r"(z), "r"(w) : "memory");
}

EVT_DEVICE void evt_ld_shared_v4(evt_u32 addr, evt_u32 &x, evt_u32 &y, evt_u32 &z, evt_u32 &w)
{
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(addr) : "memory");
}

EVT_DEVICE void evt_st_shared_u16(evt_u32 addr, evt_u16 v)
{
    asm volatile("st.shared.u16 [%0], %1;" ::"r"(addr), "h"(v) : "memory");
}

EVT_DEVICE void evt_st_shared_f32(evt_u32 addr, float x)
{
    asm volatile("st.shared.f32 [%0], %1;" :: "r"(addr), "f"(x) : "memory");
}

EVT_DEVICE void evt_st_shared_v2f(evt_u32 addr, float x, float y)
{
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};" :: "r"(addr), "f"(x), "f"(y) : "memory");
}

/* Brings the 128-byte line holding p into L2 (a hint: nothing is loaded
 * into registers, and the caller keeps p inside its tensor). */
EVT_DEVICE void evt_prefetch_l2(const void *p)
{
    asm volatile("prefetch.global.L2 [%0];" :: "l"(p));
}

#endif /* EVT_COMMON_CUH */
