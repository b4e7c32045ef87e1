// evt_stage_copy (kernels/common/epilogue.cuh) run on the host for each of
// a warp's 32 lanes: every element type size, every segment width the
// direct epilogue's rows take (16-128 columns: 1 to 32 16-byte pieces a
// row), row bounds from none to past the 8 rows, and every skip.  The
// rows below the bound, from the first piece at or past skip, must hold
// the staged bytes; every other byte of the output must be untouched.
// Then evt_stage_groups' stmatrix rows (check_groups).
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

// evt_stage_groups' stmatrix.x4 rows (evt_stage_groups_row) played on the
// host as the PTX ISA lays stmatrix out (matrix i's row r at the address
// lane 8 i + r gives, its 8 elements the pairs of lanes 4 r .. 4 r + 3's
// register i), against the pair layout evt_stage_pair stores: lane l's
// pair of group g at row l / 4, column 8 g + 2 (l % 4).
template <int GROUPS> static void check_groups(int rowb)
{
    static unsigned char got[8 * 272], want[8 * 272];
    memset(got, 0xee, sizeof got);
    memset(want, 0xee, sizeof want);
    const auto word = [](int lane, int g) { return 0x5a000000u | (unsigned)lane << 8 | (unsigned)g; };
    for (int lane = 0; lane < 32; ++lane)
        for (int g = 0; g < GROUPS; ++g) {
            const unsigned w = word(lane, g);
            memcpy(want + (lane >> 2) * rowb + 2 * (8 * g + 2 * (lane & 3)), &w, 4);
        }
    for (int q = 0; q < GROUPS / 4; ++q)
        for (int lane = 0; lane < 32; ++lane) { /* the lane whose address is matrix lane / 8's row lane % 8 */
            const int i = lane >> 3, r = lane & 7, off = evt_stage_groups_row(rowb, lane, q);
            for (int c = 0; c < 4; ++c) {
                const unsigned w = word(4 * r + c, 4 * q + i);
                memcpy(got + off + 4 * c, &w, 4);
            }
        }
    if (memcmp(got, want, sizeof got) != 0 && failures++ < 10)
        printf("stage_copy: evt_stage_groups_row, %d groups, rows %d bytes apart: not the pairs' layout\n", GROUPS,
               rowb);
}

int main()
{
    check_groups<4>(2 * 32 + 16);
    check_groups<8>(2 * 64 + 16);
    check_groups<16>(2 * 128 + 16);
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
