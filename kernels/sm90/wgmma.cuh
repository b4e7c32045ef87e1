/*
 * wgmma.cuh - sm_90a warpgroup MMAs: wgmma.mma_async m64nNk16 with f32
 * accumulators over K-major operands in shared memory, or, 16-bit ones,
 * MN-major (transposed: a column-major A, a row-major B) (wgmma_op), their
 * shared-memory descriptors (wgmma_desc, wgmma_desc_mn, wgmma_operand),
 * and the accumulators' way into
 * the accumulator tile the epilogue reads (store_acc_wgmma).  The
 * instructions exist only in sm_90a passes (EVT_SM90 == 1).
 */
#ifndef EVT_SM90_WGMMA_CUH
#define EVT_SM90_WGMMA_CUH

#include "common/tile.cuh"
#include "sm80/pipeline.cuh"

namespace evt_sm90 {

/* d += A B for a 64 x N tile: d holds N / 2 floats per thread.  N = 128
 * everywhere but the 64-wide tiles (N = 64: the narrow producer/consumer
 * conv tile, the small GEMMs' 64x64 one; under the cp.async pipeline
 * m64n64 tiles lost to mma.sync on the narrow conv layers) and
 * the 128x256 cooperative GEMM tile (N = 256: each stage's A rows are read
 * once per 256 columns, not twice, which is the shared-memory bandwidth
 * the 128-wide wgmmas run short of, docs/sm90.md), and the 128x192
 * cooperative tile (N = 192: whole waves where the 256-wide tiles leave
 * SMs idle).
 * DA, DB: the operands' types, both 16-bit and equal (m64nNk16) or both
 * fp8, mixed allowed (m64nNk32: the same 32 bytes of each row of the same
 * K-major stages, so the descriptors step as the 16-bit ones do).  TA, TB:
 * the operand is MN-major in shared memory (A column-major, B row-major:
 * wgmma's imm-trans-a / imm-trans-b set, 16-bit types only, stages as
 * wgmma_desc_mn describes them). */
template <int DA, int DB, int N, bool TA = false, bool TB = false> struct wgmma_op;
#if EVT_SM90 == 1
/* One wgmma's operands for an N-wide tile: the N / 2 accumulator floats
 * ("+f"(d[0]) ..), their registers' text (%0 ..) and the two descriptors'. */
#define EVT_WGMMA_D8(B)                                                                   \
    "+f"(d[(B)]), "+f"(d[(B) + 1]), "+f"(d[(B) + 2]), "+f"(d[(B) + 3]), "+f"(d[(B) + 4]), \
        "+f"(d[(B) + 5]), "+f"(d[(B) + 6]), "+f"(d[(B) + 7])
#define EVT_WGMMA_D_16 EVT_WGMMA_D8(0)
#define EVT_WGMMA_D_32 EVT_WGMMA_D8(0), EVT_WGMMA_D8(8)
#define EVT_WGMMA_D_64 EVT_WGMMA_D8(0), EVT_WGMMA_D8(8), EVT_WGMMA_D8(16), EVT_WGMMA_D8(24)
#define EVT_WGMMA_D_128 \
    EVT_WGMMA_D_64, EVT_WGMMA_D8(32), EVT_WGMMA_D8(40), EVT_WGMMA_D8(48), EVT_WGMMA_D8(56)
#define EVT_WGMMA_D_192 \
    EVT_WGMMA_D_128, EVT_WGMMA_D8(64), EVT_WGMMA_D8(72), EVT_WGMMA_D8(80), EVT_WGMMA_D8(88)
#define EVT_WGMMA_D_160 \
    EVT_WGMMA_D_128, EVT_WGMMA_D8(64), EVT_WGMMA_D8(72)
#define EVT_WGMMA_D_256                                                                     \
    EVT_WGMMA_D_128, EVT_WGMMA_D8(64), EVT_WGMMA_D8(72), EVT_WGMMA_D8(80), EVT_WGMMA_D8(88), \
        EVT_WGMMA_D8(96), EVT_WGMMA_D8(104), EVT_WGMMA_D8(112), EVT_WGMMA_D8(120)
#define EVT_WGMMA_R_16 "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9"
#define EVT_WGMMA_S_16 "%10"
#define EVT_WGMMA_R_32                                                                           \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17"
#define EVT_WGMMA_S_32 "%18"
#define EVT_WGMMA_R_64                                                                           \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33"
#define EVT_WGMMA_S_64 "%34"
#define EVT_WGMMA_R_128                                                                          \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "  \
    "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "  \
    "%56, %57, %58, %59, %60, %61, %62, %63}, %64, %65"
#define EVT_WGMMA_S_128 "%66"
#define EVT_WGMMA_R_192 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "  \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "  \
    "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "  \
    "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "  \
    "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, "  \
    "%92, %93, %94, %95}, %96, %97"
#define EVT_WGMMA_S_192 "%98"
#define EVT_WGMMA_R_160 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, " \
    "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, " \
    "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79}, %80, %81"
#define EVT_WGMMA_S_160 "%82"
#define EVT_WGMMA_R_256                                                                          \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "  \
    "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "  \
    "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "  \
    "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, "  \
    "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "     \
    "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "   \
    "%123, %124, %125, %126, %127}, %128, %129"
#define EVT_WGMMA_S_256 "%130"
/* the wider swapped tiles' (BM of 48, 80, 96, 112) */
#define EVT_WGMMA_D_48 EVT_WGMMA_D8(0), EVT_WGMMA_D8(8), EVT_WGMMA_D8(16)
#define EVT_WGMMA_R_48 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23}, %24, %25"
#define EVT_WGMMA_S_48 "%26"
#define EVT_WGMMA_D_80 \
    EVT_WGMMA_D8(0), EVT_WGMMA_D8(8), EVT_WGMMA_D8(16), EVT_WGMMA_D8(24), \
        EVT_WGMMA_D8(32)
#define EVT_WGMMA_R_80 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39}, %40, %41"
#define EVT_WGMMA_S_80 "%42"
#define EVT_WGMMA_D_96 \
    EVT_WGMMA_D8(0), EVT_WGMMA_D8(8), EVT_WGMMA_D8(16), EVT_WGMMA_D8(24), \
        EVT_WGMMA_D8(32), EVT_WGMMA_D8(40)
#define EVT_WGMMA_R_96 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47}, %48, %49"
#define EVT_WGMMA_S_96 "%50"
#define EVT_WGMMA_D_112 \
    EVT_WGMMA_D8(0), EVT_WGMMA_D8(8), EVT_WGMMA_D8(16), EVT_WGMMA_D8(24), \
        EVT_WGMMA_D8(32), EVT_WGMMA_D8(40), EVT_WGMMA_D8(48)
#define EVT_WGMMA_R_112 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, " \
    "%53, %54, %55}, %56, %57"
#define EVT_WGMMA_S_112 "%58"
/* wgmma_op<DA, DB, N>, TYPES the instruction's k and types ("k16.f32.f16.f16"),
 * TAIL its immediates: neither operand negated, and for 16-bit types
 * imm-trans-a and imm-trans-b as TA and TB (fp8 wgmma has no transpose: its
 * operands are K-major).  d += A B, or with `add` 0, d = A B (scale-d off):
 * a k tile's first MMA into registers that are not zeroed first, which
 * ptxas would have to order before the wgmma (docs/fp8.md). */
#define EVT_WGMMA_OP(DA, DB, N, TYPES, TAIL, TA, TB)                                           \
    template <> struct wgmma_op<DA, DB, N, TA, TB> {                                           \
        static __device__ __forceinline__ void run(float (&d)[(N) / 2], evt_u64 da, evt_u64 db, \
                                                   int add = 1)                                 \
        {                                                                                       \
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " EVT_WGMMA_S_##N ", 0;\n"        \
                         "wgmma.mma_async.sync.aligned.m64n" #N TYPES " "                       \
                         EVT_WGMMA_R_##N ", p, 1, 1" TAIL ";\n}\n"                             \
                         : EVT_WGMMA_D_##N                                                      \
                         : "l"(da), "l"(db), "r"(add));                                         \
        }                                                                                       \
    };
/* the 16-bit ones in all four majors: (A, B) K-major, or MN-major (trans) */
#define EVT_WGMMA_OP16(DT, N, TYPES)                      \
    EVT_WGMMA_OP(DT, DT, N, TYPES, ", 0, 0", false, false) \
    EVT_WGMMA_OP(DT, DT, N, TYPES, ", 1, 0", true, false)  \
    EVT_WGMMA_OP(DT, DT, N, TYPES, ", 0, 1", false, true)  \
    EVT_WGMMA_OP(DT, DT, N, TYPES, ", 1, 1", true, true)
EVT_WGMMA_OP16(EVT_DT_F16, 128, "k16.f32.f16.f16")
EVT_WGMMA_OP16(EVT_DT_BF16, 128, "k16.f32.bf16.bf16")
EVT_WGMMA_OP16(EVT_DT_F16, 256, "k16.f32.f16.f16") /* the 128x256 cooperative tile */
EVT_WGMMA_OP16(EVT_DT_BF16, 256, "k16.f32.bf16.bf16")
EVT_WGMMA_OP16(EVT_DT_F16, 192, "k16.f32.f16.f16") /* the 128x192 cooperative tile */
EVT_WGMMA_OP16(EVT_DT_BF16, 192, "k16.f32.bf16.bf16")
EVT_WGMMA_OP16(EVT_DT_F16, 160, "k16.f32.f16.f16") /* the 128x160 cooperative tile: N of 136-160 or 257-320 */
EVT_WGMMA_OP16(EVT_DT_BF16, 160, "k16.f32.bf16.bf16")
EVT_WGMMA_OP16(EVT_DT_F16, 64, "k16.f32.f16.f16") /* narrow convs' producer/consumer tile, small GEMMs' 64x64 one */
EVT_WGMMA_OP16(EVT_DT_BF16, 64, "k16.f32.bf16.bf16")
EVT_WGMMA_OP16(EVT_DT_F16, 16, "k16.f32.f16.f16") /* the swapped tiles: BM = 16 to 112 tokens as N */
EVT_WGMMA_OP16(EVT_DT_BF16, 16, "k16.f32.bf16.bf16")
EVT_WGMMA_OP16(EVT_DT_F16, 32, "k16.f32.f16.f16")
EVT_WGMMA_OP16(EVT_DT_BF16, 32, "k16.f32.bf16.bf16")
EVT_WGMMA_OP16(EVT_DT_F16, 48, "k16.f32.f16.f16")
EVT_WGMMA_OP16(EVT_DT_BF16, 48, "k16.f32.bf16.bf16")
EVT_WGMMA_OP16(EVT_DT_F16, 80, "k16.f32.f16.f16")
EVT_WGMMA_OP16(EVT_DT_BF16, 80, "k16.f32.bf16.bf16")
EVT_WGMMA_OP16(EVT_DT_F16, 96, "k16.f32.f16.f16")
EVT_WGMMA_OP16(EVT_DT_BF16, 96, "k16.f32.bf16.bf16")
EVT_WGMMA_OP16(EVT_DT_F16, 112, "k16.f32.f16.f16")
EVT_WGMMA_OP16(EVT_DT_BF16, 112, "k16.f32.bf16.bf16")
EVT_WGMMA_OP(EVT_DT_E4M3, EVT_DT_E4M3, 128, "k32.f32.e4m3.e4m3", "", false, false)
EVT_WGMMA_OP(EVT_DT_E4M3, EVT_DT_E5M2, 128, "k32.f32.e4m3.e5m2", "", false, false)
EVT_WGMMA_OP(EVT_DT_E5M2, EVT_DT_E4M3, 128, "k32.f32.e5m2.e4m3", "", false, false)
EVT_WGMMA_OP(EVT_DT_E5M2, EVT_DT_E5M2, 128, "k32.f32.e5m2.e5m2", "", false, false)
#undef EVT_WGMMA_OP16
#undef EVT_WGMMA_S_48
#undef EVT_WGMMA_R_48
#undef EVT_WGMMA_D_48
#undef EVT_WGMMA_S_80
#undef EVT_WGMMA_R_80
#undef EVT_WGMMA_D_80
#undef EVT_WGMMA_S_96
#undef EVT_WGMMA_R_96
#undef EVT_WGMMA_D_96
#undef EVT_WGMMA_S_112
#undef EVT_WGMMA_R_112
#undef EVT_WGMMA_D_112
#undef EVT_WGMMA_OP
#undef EVT_WGMMA_S_256
#undef EVT_WGMMA_S_192
#undef EVT_WGMMA_S_160
#undef EVT_WGMMA_S_128
#undef EVT_WGMMA_S_64
#undef EVT_WGMMA_S_32
#undef EVT_WGMMA_S_16
#undef EVT_WGMMA_R_256
#undef EVT_WGMMA_R_192
#undef EVT_WGMMA_R_160
#undef EVT_WGMMA_R_128
#undef EVT_WGMMA_R_64
#undef EVT_WGMMA_R_32
#undef EVT_WGMMA_R_16
#undef EVT_WGMMA_D_256
#undef EVT_WGMMA_D_192
#undef EVT_WGMMA_D_160
#undef EVT_WGMMA_D_128
#undef EVT_WGMMA_D_64
#undef EVT_WGMMA_D_32
#undef EVT_WGMMA_D_16
#undef EVT_WGMMA_D8
#endif

/* A K-major operand tile of rows of BK 16-bit units (a tile's kBK16) at
 * shared address saddr: rows of 128 bytes (BK = 64) in wgmma's 128-byte
 * swizzle, 8-row groups 1024 bytes apart; rows of 64 bytes (BK = 32) in its
 * 64-byte swizzle (smem_tile's c ^ ((row >> 1) & 3)), groups 512 bytes
 * apart. */
template <int BK>
struct wgmma_desc_words {
    static_assert(BK == 32 || BK == 64, "wgmma stages are BK = 32 or 64");
    static constexpr evt_u64 kLayout = BK == 64 ? 1 : 2, kGroup = 8 * BK * 2;
    static constexpr evt_u64 kHigh = ((kGroup >> 4) << 32) | (kLayout << 62);
};

template <int BK>
EVT_DEVICE evt_u64 wgmma_desc(evt_u32 saddr)
{
    return (evt_u64)((saddr & 0x3FFFF) >> 4) | ((evt_u64)1 << 16) | wgmma_desc_words<BK>::kHigh;
}

/* wgmma_desc's two words apart.  Its high word (stride and swizzle) is the
 * same for every stage and k step; its low word is the address >> 4 in 14
 * bits (shared memory ends below 2^18 bytes) beside a constant, so a k step
 * or a stage is a 32-bit add that cannot carry out.  A loop that keeps the
 * low word in a 32-bit register lets the compiler see the high word as a
 * constant instead of carrying a 64-bit add (docs/fp8.md). */
template <int BK>
EVT_DEVICE evt_u32 wgmma_desc_lo(evt_u32 saddr)
{
    return (evt_u32)wgmma_desc<BK>(saddr);
}

template <int BK>
EVT_DEVICE evt_u64 wgmma_desc_of_lo(evt_u32 lo)
{
    return wgmma_desc_words<BK>::kHigh | lo;
}

/*
 * An MN-major operand tile (A column-major, B row-major; 16-bit) of BK k
 * rows by R = 64 j M/N positions at shared address saddr, as the TMA boxes
 * of 64 M/N positions by BK k rows leave it (one box per 64 positions, BK
 * * 128 bytes apart): in a box, k row r's 128 bytes at r * 128, 16-byte
 * chunk c at c ^ (r & 7) (wgmma's 128-byte swizzle, MN-major).  With that
 * swizzle the descriptor's leading byte offset is the distance between
 * 64-position column blocks (a box) and its stride byte offset the one
 * between 8-row k groups (1024 bytes); a k16 step advances the start by two
 * groups (wgmma_step).  (PTX ISA, "Matrix Descriptor"; CUTLASS's
 * make_gmma_desc<Major::MN>.)
 */
template <int BK>
EVT_DEVICE evt_u64 wgmma_desc_mn(evt_u32 saddr)
{
    constexpr evt_u64 box = (evt_u64)BK * 128, group = 1024;
    return (evt_u64)((saddr & 0x3FFFF) >> 4) | ((box >> 4) << 16) | ((group >> 4) << 32) |
           ((evt_u64)1 << 62);
}

/*
 * Operand A (or B) of a wgmma configuration as its MMAs read it: kMN
 * (MN-major stages, the transposed wgmma) or K-major, its descriptor at
 * shared address s for k16 step kk (K-major: 32 bytes a step; MN-major:
 * 16 k rows of 128 bytes), and the byte offset of its 64-row (A) or
 * 128-column (B) block h within a stage: the same either way (64 or 128
 * M/N positions by kBK16 16-bit units), which is why the consumers' stage
 * arithmetic does not look at the layout.
 */
template <class Cfg, bool A>
struct wgmma_operand {
    static constexpr bool kMN = !(A ? Cfg::kAKContig : Cfg::kBKContig);
    static_assert(!kMN || Cfg::kOpBytes == 2, "MN-major wgmma operands are 16-bit (fp8 is K-major)");
    static EVT_DEVICE evt_u64 desc(evt_u32 s, int kk)
    {
        if constexpr (kMN)
            return wgmma_desc_mn<Cfg::kBK16>(s) + (evt_u64)(kk * 16 * 128 >> 4);
        else
            return wgmma_desc<Cfg::kBK16>(s) + 2 * kk;
    }
};

/* wgmma_op for configuration Cfg's operand types and majors. */
template <class Cfg, int N>
using wgmma_op_of = wgmma_op<Cfg::kDType, Cfg::kDTypeB, N, wgmma_operand<Cfg, true>::kMN,
                             wgmma_operand<Cfg, false>::kMN>;


/* A warpgroup's wgmma accumulators (NH chunks of NC columns) into the tile
 * at base: warp w of warpgroup g holds rows 64 g + 16 w .. + 15.  Only
 * columns C0 .. C0 + CN - 1 of each chunk, to tile columns h CN + 0 ..
 * (the 256-wide cooperative tile's epilogue takes 128 columns at a time). */
template <class Cfg, int NC, int NH, int C0 = 0, int CN = NC>
__device__ __forceinline__ void store_acc_wgmma(const float (&acc)[NH][NC / 2], evt_u32 base,
                                                int wgi, int warp, int lane)
{
    static_assert(C0 % 8 == 0 && CN % 8 == 0 && C0 + CN <= NC, "whole n8 column groups");
#pragma unroll
    for (int h = 0; h < NH; ++h)
#pragma unroll
        for (int j = C0 / 8; j < (C0 + CN) / 8; ++j)
            evt_sm80::store_acc_quad<Cfg>(base, wgi * 64 + warp * 16 + (lane >> 2),
                                h * CN + (j * 8 - C0) + (lane & 3) * 2, acc[h][4 * j],
                                acc[h][4 * j + 1], acc[h][4 * j + 2], acc[h][4 * j + 3]);
}

/* A swapped tile's accumulators (kSwapAB: wgmma's rows are the tile's
 * columns, its columns the tile's rows; NH chunks of 64 columns, each an
 * m64nNC MMA's NC / 2 floats a thread) into the tile at base, transposed:
 * MMA element (r, c) is tile element (c, h 64 + r). */
template <class Cfg, int NC, int NH>
__device__ __forceinline__ void store_acc_wgmma_swapped(const float (&acc)[NH][NC / 2], evt_u32 base,
                                                        int warp, int lane)
{
#pragma unroll
    for (int h = 0; h < NH; ++h)
#pragma unroll
        for (int j = 0; j < NC / 8; ++j) {
            const int n = h * 64 + warp * 16 + (lane >> 2), m = j * 8 + (lane & 3) * 2;
            const evt_u32 p = base + (m * Cfg::kAccLd + n) * 4;
            evt_st_shared_f32(p, acc[h][4 * j]);
            evt_st_shared_f32(p + Cfg::kAccLd * 4, acc[h][4 * j + 1]);
            evt_st_shared_f32(p + 8 * 4, acc[h][4 * j + 2]);
            evt_st_shared_f32(p + (Cfg::kAccLd + 8) * 4, acc[h][4 * j + 3]);
        }
}

/* NH chunks of a warpgroup's accumulators (NC / 2 floats a thread each), zeroed. */
template <int NC, int NH>
__device__ __forceinline__ void zero_acc(float (&acc)[NH][NC / 2])
{
#pragma unroll
    for (int h = 0; h < NH; ++h)
#pragma unroll
        for (int i = 0; i < NC / 2; ++i)
            acc[h][i] = 0.0f;
}

} /* namespace evt_sm90 */

#endif /* EVT_SM90_WGMMA_CUH */
