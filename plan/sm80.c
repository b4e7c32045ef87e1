/* sm80.c - the mma.sync (sm80 family) heuristics for GEMM and conv: any
 * target, and the sm90 heuristics' fallback where no wgmma rule takes a
 * problem.  The measurements behind them: docs/sm80.md. */
#include "heuristic.h"

/*
 * sm80 GEMM: big tiles when they still give every SM at least two tiles;
 * 128x128 (two CTAs per SM) when that fills the machine once; 64x64
 * otherwise, since there idle SMs cost more than low arithmetic intensity.
 * BK = 64 wherever it fits (it beat BK = 32 on 128x256 and 128x128).  K
 * does not change the choice: it only sets the length of the mainloop.
 */
const plan_config *plan_gemm_sm80_pick(const gemm_tiles *g, const plan_target *t, long long m, long long n,
                                  long long batch, long long sms)
{
    if (g->sync_wide && fits(g->sync_wide, t) && plan_config_batch_tiles(g->sync_wide, m, n, batch) >= 2 * sms)
        return g->sync_wide;
    if (fits(g->sync_mid, t) && plan_config_batch_tiles(g->sync_mid, m, n, batch) >= sms)
        return g->sync_mid;
    return g->sync_small;
}

/*
 * sm80 conv (the GEMM view: m = n p q, n = k, kk = r s c), as the GEMM's:
 * the biggest tile that still gives every SM two tiles, then one that fills
 * every SM once, then 64x64.  k <= 64 takes the narrow-N tiles, which waste
 * no half-empty MMAs.  Short K (kk <= 128: one or two k tiles, a
 * memory-bound layer) prefers 128x128 to 128x256: with two CTAs per SM one
 * CTA's stores overlap the other's loads.
 */
const plan_config *plan_conv_sm80_pick(const plan_target *t, long long m, long long n, long long kk,
                                  long long sms)
{
    if (n <= 64) {
        if (fits(CFG(sm80_256x64x32_w4_s4), t) &&
            plan_config_tiles(CFG(sm80_256x64x32_w4_s4), m, n) >= 2 * sms)
            return CFG(sm80_256x64x32_w4_s4);
        if (fits(CFG(sm80_128x64x64_w4_s3), t) && plan_config_tiles(CFG(sm80_128x64x64_w4_s3), m, n) >= sms)
            return CFG(sm80_128x64x64_w4_s3);
        return CFG(sm80_64x64x32_w4_s4);
    }
    if (kk > 128 && fits(CFG(sm80_128x256x64_w8_s3), t) &&
        plan_config_tiles(CFG(sm80_128x256x64_w8_s3), m, n) >= 2 * sms)
        return CFG(sm80_128x256x64_w8_s3);
    if (fits(CFG(sm80_128x128x64_w4_s3), t) && plan_config_tiles(CFG(sm80_128x128x64_w4_s3), m, n) >= sms)
        return CFG(sm80_128x128x64_w4_s3);
    return CFG(sm80_64x64x32_w4_s4);
}

