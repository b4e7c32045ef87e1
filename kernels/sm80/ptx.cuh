/*
 * ptx.cuh - the sm_80 data-movement and tensor-core instructions the
 * mainloops are built from: cp.async (16-byte global->shared copies),
 * ldmatrix and mma.sync m16n8k16 with f32 accumulators.  Every target evt
 * builds for (sm_80 and later) has them; the fp8 mma.sync m16n8k32
 * (evt_mma_fp8) only sm_89 and later.
 */
#ifndef EVT_SM80_PTX_CUH
#define EVT_SM80_PTX_CUH

#include "common/evt_common.cuh"

/* ---- cp.async ----------------------------------------------------------- */

/*
 * 16-byte global->shared copy that bypasses L1.  With valid == 0 nothing is
 * read and the 16 shared bytes are zero-filled (src-size 0), which is how
 * ragged tile edges are padded; gsrc must still be a mapped address.
 */
EVT_DEVICE void evt_cp_async_16(evt_u32 sdst, const void *gsrc, bool valid)
{
    int n = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;"
                 :: "r"(sdst), "l"(gsrc), "r"(n) : "memory");
}

EVT_DEVICE void evt_cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int N>
EVT_DEVICE void evt_cp_async_wait(void)
{
    asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
}

/* ---- ldmatrix ----------------------------------------------------------- */

EVT_DEVICE void evt_ldmatrix_x4(evt_u32 (&r)[4], evt_u32 addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

EVT_DEVICE void evt_ldmatrix_x4_trans(evt_u32 (&r)[4], evt_u32 addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

/* ---- mma ---------------------------------------------------------------- */

/* d += a * b for one m16n8k16 tile, f32 accumulators, operands of type DT. */
template <int DT>
EVT_DEVICE void evt_mma_16816(float (&d)[4], const evt_u32 (&a)[4], const evt_u32 (&b)[2])
{
    if (DT == EVT_DT_F16)
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/*
 * d += a * b for one m16n8k32 tile of fp8 operands (DA, DB: EVT_DT_E4M3 or
 * EVT_DT_E5M2, mixed allowed), f32 accumulators; sm_89 and later.  Its
 * fragments hold the same bytes of the same rows as m16n8k16's: a register
 * of A holds k 4t..4t+3 of row g (16-bit: k 2t, 2t+1, the same 4 bytes),
 * and likewise for B's columns and the k + 16 half, so the ldmatrix
 * addressing of the 16-bit operands loads them unchanged, with k doubled.
 */
#define EVT_MMA_FP8_ASM(TA, TB)                                                                  \
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." TA "." TB ".f32 "                      \
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"                \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                 \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
template <int DA, int DB>
EVT_DEVICE void evt_mma_fp8(float (&d)[4], const evt_u32 (&a)[4], const evt_u32 (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890
    static_assert(DA < 0, "fp8 mma.sync needs sm_89 or later");
#else
    static_assert(EVT_DT_IS_FP8(DA) && EVT_DT_IS_FP8(DB), "fp8 operands are e4m3 or e5m2");
    if (DA == EVT_DT_E4M3 && DB == EVT_DT_E4M3)
        EVT_MMA_FP8_ASM("e4m3", "e4m3");
    else if (DA == EVT_DT_E4M3)
        EVT_MMA_FP8_ASM("e4m3", "e5m2");
    else if (DB == EVT_DT_E4M3)
        EVT_MMA_FP8_ASM("e5m2", "e4m3");
    else
        EVT_MMA_FP8_ASM("e5m2", "e5m2");
#endif
}
#undef EVT_MMA_FP8_ASM

/* One MMA k step (32 bytes of k) of operands of types DA and DB. */
template <int DA, int DB>
EVT_DEVICE void evt_mma_step(float (&d)[4], const evt_u32 (&a)[4], const evt_u32 (&b)[2])
{
    if constexpr (EVT_DT_IS_FP8(DA))
        evt_mma_fp8<DA, DB>(d, a, b);
    else
        evt_mma_16816<DA>(d, a, b);
}

#endif /* EVT_SM80_PTX_CUH */
