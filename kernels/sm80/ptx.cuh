/*
 * ptx.cuh - the sm_80 data-movement and tensor-core instructions the
 * mainloops are built from: cp.async (16-byte global->shared copies),
 * ldmatrix and mma.sync m16n8k16 with f32 accumulators.  Every target evt
 * builds for (sm_80 and later) has them.
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

#endif /* EVT_SM80_PTX_CUH */
