// evt_stage_copy (kernels/common/epilogue.cuh) run on the host for each of
// a warp's 32 lanes: every element type size, every segment width the
// direct epilogue's rows take (16-128 columns: 1 to 32 16-byte pieces a
// row), row bounds from none to past the 8 rows, and every skip.  The
// rows below the bound, from the first piece at or past skip, must hold
// the staged bytes; every other byte of the output must be untouched.
#include <cstdio>
#include <cstring>
#include "common/evt_common.cuh" /* as a generated translation unit includes them */
#include "common/evt_math.h"
#include "common/epilogue.cuh"

static int failures = 0;

template <int E, int W> static void check()
{
    typedef typename evt_elem<E>::type T;
    constexpr int ES = (int)sizeof(T), ROWB = W * ES + 16, LD = W + 40; /* ld in elements */
    unsigned char stage[8 * ROWB];
    for (int i = 0; i < 8 * ROWB; ++i)
        stage[i] = (unsigned char)(i * 7 + 3);
    static T out[8 * LD + W];
    for (int rows = -2; rows <= 11; ++rows)
        for (int skip = -16 / ES; skip <= W; skip += 16 / ES) { /* whole pieces, as the contract says */
            memset(out, 0xee, sizeof out);
            for (int lane = 0; lane < 32; ++lane)
                evt_stage_copy<E, W>(stage, ROWB, lane, out, LD, rows, skip);
            const unsigned char *o = reinterpret_cast<const unsigned char *>(out);
            for (int r = 0; r < 8; ++r)
                for (int b = 0; b < LD * ES && (r * LD * ES + b) < (int)sizeof out; ++b) {
                    const bool stored = r < rows && b < W * ES && (skip <= 0 || b >= skip * ES);
                    const unsigned char want = stored ? stage[r * ROWB + b] : 0xee;
                    if (o[r * LD * ES + b] != want) {
                        if (failures++ < 10)
                            printf("stage_copy: %d-byte elements, W %d, rows %d, skip %d: row %d byte %d is %02x, not %02x\n",
                                   ES, W, rows, skip, r, b, o[r * LD * ES + b], want);
                        r = 8;
                        break;
                    }
                }
        }
}

int main()
{
    check<EVT_E_I8, 16>();
    check<EVT_E_I8, 32>();
    check<EVT_E_I8, 64>();
    check<EVT_E_I8, 128>();
    check<EVT_E_BF16, 32>();
    check<EVT_E_BF16, 64>();
    check<EVT_E_BF16, 128>();
    check<EVT_E_F32, 32>();
    check<EVT_E_F32, 64>();
    check<EVT_E_F32, 128>();
    printf("stage_copy: %s\n", failures ? "FAIL" : "ok");
    return failures != 0;
}
