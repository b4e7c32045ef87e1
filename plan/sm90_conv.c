/* sm90_conv.c - the wgmma (sm90 family) conv2d fprop heuristic,
 * plan_conv_sm90_pick, and plan_coop_over_pp, its last word on the 128x128
 * pick.  The measurements: docs/conv2d_fprop.md. */
#include "heuristic.h"

#include <limits.h>

/* A conv's K in two fills of the one-warpgroup 64x64 tile's eight stages
 * or fewer, a wave of its tiles or fewer, unsplit (plan_split_k): that
 * tile, where the sm80 rule would take 64x64 mma.sync tiles, split or not
 * (1x1 layers of K = 256 and 512, 49 and 98 tiles, 1.20x and 1.45x, at K =
 * 96 as fast; ten 3x3 layers of K = 576 and 864 1.05-1.52x; at K = 1152
 * 1.03x and 0.94x; split two ways in its cluster, at 64 filters or fewer,
 * 0.90x and 0.98x; session 37, docs/conv2d_fprop.md).  Where the split
 * rule of plan_conv_sm90_pick's 64x64 branch takes it split instead, it was
 * measured there (session 36). */
static int short_k_wgmma(const plan_config *wg, const plan_target *t, long long m, long long n, long long kk,
                         long long sms)
{
    const long long tiles = plan_config_tiles(wg, m, n);
    return fits(wg, t) && kk <= 2LL * wg->stages * wg->bk && tiles <= sms &&
           plan_split_k(tiles, wg->min_blocks, (int)sms, kk, wg->bk, 0, 0) == 1;
}

/* The work the busiest SM does on c's split-K grid: its waves of tiles x
 * shares (plan_split_k's shares), each share 1/s of the tile's K, scaled
 * by penalty_pct as wave_cost is; -1 where plan_split_k does not split c
 * (plan_conv_sm90_pick's split rule compares split grids only). */
static double split_cost(const plan_config *c, long long m, long long n, long long kk, long long batch, long long sms,
                         int penalty_pct)
{
    const long long tiles = plan_config_batch_tiles(c, m, n, batch);
    const int s = plan_split_k(tiles, c->min_blocks, (int)sms, kk, c->bk, 0, 1);
    if (s < 2)
        return -1;
    const long long slots = sms * c->min_blocks, ctas = tiles * s; /* s >= 2: tiles <= slots / 4 */
    return (double)((ctas + slots - 1) / slots) * c->bm * c->bn * (100 + penalty_pct) / (double)s;
}

/* The terms the staged 128x64 tile's two rules share (session 72): a 1x1
 * layer (K = c) with whole k tiles (maps), an input to stage, K <= 512,
 * and the tile's shared memory. */
static int thin_staged_serves(const plan_target *t, long long kk, long long c, int tma_level, int stageable)
{
    return tma_level == PLAN_TMA_MAPS && stageable && kk == c && kk <= 512 &&
           fits(CFG(sm90_pp2_128x64x64_s6_staged), t);
}

/*
 * sm90 conv (a conv's operands are always K-contiguous).  Where the sm80
 * heuristic takes a 128-row tile with k > 64, the wgmma tile whose waves
 * cost least: 128x256; 128x128 in BK = 32 stages at two CTAs per SM (first
 * choice at K <= 128, where a CTA's stores overlap the other's loads);
 * 192x128, three warpgroups, about 15% slower per tile but whole waves where
 * the others leave half of one idle; 192x256, three warpgroups of m64n256,
 * only where its waves cost 10% less (on equal cost 128x256 was faster).
 * Where tma is set and K is longer than two of its k tiles, the
 * producer/consumer tile at a quarter below its waves' cost; at K <= 128
 * (memory-bound 1x1 layers) it lost to 128x128 at two CTAs per SM, unless
 * the epilogue has an input to stage and every consumer gets two tiles: then
 * the staged producer/consumer tile, which loads it ahead.  Narrow layers
 * (k <= 64) take the 128x64 producer/consumer tile on the same terms (K >
 * 128, TMA, two tiles a consumer), else keep the mma.sync tiles: the
 * cp.async wgmma 128x64 and 256x64 tiles lost there; with k < 64 and up
 * to 32 of its tiles an SM, the 64x64 one.  Where the sm80
 * heuristic falls back to 64x64 tiles, the GEMM's rule for few tiles: the
 * producer/consumer tile with K >= 1024, M of a tile row and 0.3 SMs' worth
 * of tiles (a stride-2 3x3 layer ran 1.5x faster, docs/tuning.md), else the
 * one-warpgroup wgmma 64x64 tile where its tiles are few enough to split or
 * fill most of one wave (session 36).  Else,
 * where k is a multiple of 64 but not of 128 (192, 320), the 128x64
 * producer/consumer tile (below), or at k = 192, 320 and 576 over several
 * taps the cooperative 128x192 tile where its waves cost less (session
 * 36); and where 65-96 filters would take the 128x128 producer/consumer
 * tile, the 128x64 one (session 35).  The costs count K's padding to each
 * tile's k tiles (padded_cost).  Session 37 filled the gaps those rules
 * left, each rule beside its code: the one-warpgroup tiles for short K and
 * for few 128-column tiles, the 128x64 producer/consumer tile past a wave
 * of 64x64 tiles at long K, the 128x128 one for 448 and 576 filters and
 * for taps that end in a few zero-filled loads, the cooperative 128x192
 * one for 129-191 filters.  Session 38's, likewise: the staged tile for
 * 1x1 layers of ragged 97-255 filters at K <= 320, the 128x64 tile for
 * taps ending in zeros at 64 filters or fewer and for 257-511 filters with
 * a less than half-full last 128 columns, the 128x128 one for taps ending
 * in more than a sixth of zeros (and plan_split_k's eight shares).
 * Session 39's, after the checked epilogue's fix made the wide tiles' edge
 * columns cheap: the 128x128 tile for taps ending in an eighth of zeros or
 * fewer and again for 65-96 filters over several taps past a wave, the
 * cooperative 128x192 tile for 129-191 filters over such taps, the cost
 * list for k % 128 == 64 over taps ending in more than a sixth of zeros,
 * the cp.async tiles split along K under half a wave at K >= 4096 and the
 * 128x256 one split eight ways at K >= 8192; plan_pick's plan_coop_over_pp
 * after all of them.  Before every rule, session 76's: c of 32 or 96 over
 * filters in whole 128-column tiles, the 128x128 producer/consumer tile in
 * k tiles of 32 channels; and session 77's: 64 filters over 2 to 25 taps
 * of 32 to 128 channels, the 128x64 one (in k tiles of 32 at c of 32 and
 * 96); and session 78's: the same tile in k tiles of 32 at c = 160 over
 * 3x3 taps from 2.2 to 3.2 waves, and the cooperative 128x160 tile for
 * exactly 160 filters over 3x3 taps at unit stride from half a wave to
 * ten.
 */
static const plan_config *conv_sm90_base(const plan_target *t, long long m, long long n, long long kk,
                                         const plan_conv_view *cv, long long sms, int tma_level, int stageable)
{
    const long long c = cv->c, stride = cv->stride;
    /* 3x3 taps; where the taps are not known, any nine (K = 9c), which a
     * 1x9 or 9x1 layer has too */
    const int taps3x3 = kk == 9 * c && (cv->r == 0 || (cv->r == 3 && cv->s == 3));
    /* the maps of a layer whose taps end in zero-filled k tiles serve only
     * the 128x64 tile's rule below */
    const int tma = tma_level == PLAN_TMA_MAPS, narrow_maps = maps_k64(tma_level);
    /* a tap's channels as TMA loads in k tiles of 64 have them: whole k
     * tiles, the last one's zero-filled past c */
    const long long bk64 = CFG(sm90_pp2_128x128x64_s4)->bk;
    const long long c_loaded = c > 0 ? (c + bk64 - 1) / bk64 * bk64 : 0;
    const plan_config *classic = plan_conv_sm80_pick(t, m, n, kk, sms);
    /* c of 32 or 96 over several taps, filters whole 128-column tiles, two
     * such tiles an SM or more: the 128x128 producer/consumer tile in
     * k tiles of 32 channels, whose maps load no zeros where k tiles of 64
     * load a third of them (c = 96) or cannot be made (c = 32), in place of
     * the cp.async tiles: 1.19-1.27x on four such layers at 128 filters; at
     * filters its 128 columns pad it lost, and at c of 48, 80 and 160.  Held
     * out from a wave of its tiles on: 1.135x on eight layers but 0.90x on
     * one of 140 tiles (a second round for eight SMs); from two tiles an
     * SM, on eight more: 1.207x, 1.00-1.32x (session 76, H100;
     * docs/conv2d_fprop.md) */
    const plan_config *k32 = CFG(sm90_pp2_128x128x32_s8);
    /* maps in k tiles of 32 at the c both k-tile-32 rules take (c = 32 has
     * them only in such k tiles, PLAN_TMA_K32; c = 96 in k tiles of 64 too,
     * PLAN_TMA_PARTIAL_TAPS) */
    const int k32_maps = tma_level != PLAN_TMA_NONE && (c == 32 || c == 96);
    if (k32_maps && kk > c && n % k32->bn == 0 && fits(k32, t) && plan_config_tiles(k32, m, n) >= 2 * sms)
        return k32;
    /* 64 filters over 2 to 25 taps of 32 to 128 channels, from 70% of a
     * wave of its tiles: the 128x64 producer/consumer tile, in place of the
     * mma.sync 64x64, 128x64 and 256x64 tiles, which load the same 64
     * filters for fewer rows or with cp.async (and of the rule below for
     * it, which waits for two tiles a consumer).  In k tiles of 32 at c of
     * 32 and 96, whose k tiles of 64 cannot be made into maps (32) or load
     * a third of zeros (96), else of 64.  At c = 32: 1.07-1.36x on seven
     * such layers of 98 to 1568 tiles; held out, 1.08-1.18x on five, but
     * 7x7 layers (49 taps) ran 0.91-0.95x against the mma.sync 256x64
     * tile; without them, on eight more held out, 1.05-1.42x.  Probed at c
     * of 96 (1.05-1.31x on six) and 64 (k tiles of 64, 1.26x and 1.46x on
     * two); held out at c of 64, 96 and 128, 1.01-1.29x on eight (session
     * 77, H100; docs/conv2d_fprop.md) */
    const plan_config *cols64 = k32_maps                        ? CFG(sm90_pp2_128x64x32_s12)
                                : (c == 64 || c == 128) && tma ? CFG(sm90_pp2_128x64x64_s7)
                                                               : NULL;
    if (cols64 && n == cols64->bn && kk > c && kk <= 25 * c && fits(cols64, t) &&
        10 * plan_config_tiles(cols64, m, n) >= 7 * sms)
        return cols64;
    /* the same tile in k tiles of 32 at c = 160 (160 channels loaded a
     * tap where k tiles of 64 load 192) over 3x3 taps, from 2.2 to 3.2
     * waves of its tiles, in place of the mma.sync 128x64 tile: 1.04-1.26x
     * on seven such layers of 294-392 tiles (two of a first held-out set),
     * then held out on eight more, 1.06-1.23x.  Under 2.2 waves it lost
     * (0.84-0.97x on four); at 430-512 tiles it ran 0.96-1.11x, and over
     * 5x5 taps 0.92-1.13x at any count, which is why the first held-out
     * set, drawn over 2.2-4 waves and 2-25 taps, missed.  At c = 224 it
     * scattered, 0.88-1.13x: no rule (session 78, H100;
     * docs/conv2d_fprop.md) */
    const plan_config *c160 = CFG(sm90_pp2_128x64x32_s12);
    if (c == 160 && tma_level != PLAN_TMA_NONE && n == c160->bn && taps3x3 && fits(c160, t)) {
        const long long tiles = plan_config_tiles(c160, m, n);
        if (5 * tiles >= 11 * sms && 5 * tiles <= 16 * sms)
            return c160;
    }
    /* exactly 160 filters over 3x3 taps at unit stride, 128 channels or
     * more, maps in k tiles of 64 whose taps load a sixth of zeros or
     * fewer, from half a wave of its tiles to ten: the cooperative
     * 128x160 tile, which pads no column, in place of the cooperative
     * 128x192 tile and the cp.async 192-row ones: 1.04-1.17x on six such
     * layers (c of 128 to 256, 73 to 307 tiles), 1.06x and 1.16x on two of
     * a held-out set (c of 496 and 536); held out at unit stride on eight
     * more, 1.01-1.22x (geomean 1.097x); past three waves (588-1225
     * tiles) 1.09-1.22x on three, then held out on eight more, 1.02-1.29x
     * (geomean 1.126x).  At stride 2 it tied or lost,
     * 0.96-1.00x on six of that set (whose rule took any stride: 1.015x),
     * 0.93x on a layer of 25 tiles; on 1x1 layers of 160 filters and at
     * 144 filters, 0.88-0.95x (session 78, H100; docs/conv2d_fprop.md) */
    const plan_config *coop160 = CFG(sm90_coop2_128x160x64_s4);
    if (n == coop160->bn && taps3x3 && stride == 1 && c >= 128 && narrow_maps && 5 * c_loaded <= 6 * c &&
        fits(coop160, t)) {
        const long long tiles = plan_config_tiles(coop160, m, n);
        if (2 * tiles >= sms && tiles <= 10 * sms)
            return coop160;
    }
    const plan_config *staged = CFG(sm90_pp2_128x128x64_s2_staged);
    if (tma && stageable && n > 64 && kk <= 128 && fits(staged, t) &&
        plan_config_tiles(staged, m, n) >= 4 * sms)
        return staged;
    /* the same for 1x1 layers at K of 129-320, whole taps or not, of 97
     * to 255 filters whose last 64 columns are ragged (112, 200, 240),
     * outside the cooperative 128x192 tile's rule for 129-191 filters
     * below: 1.20-2.05x on eight held-out layers, where the 128x128
     * producer/consumer tile and the cp.async one ran at half the speed
     * (their edge tiles' epilogue, faster since: docs/codegen.md); with
     * whole 64-column tiles 0.87-1.05x on seven (session 38,
     * docs/conv2d_fprop.md) */
    if (narrow_maps && stageable && kk == c && kk > 128 && kk <= 320 && n > 96 && n < 256 && n % 64 != 0 &&
        (n <= 128 || n >= 192) &&
        fits(staged, t) && plan_config_tiles(staged, m, n) >= 4 * sms)
        return staged;
    if (n <= 64) {
        const plan_config *pp = CFG(sm90_pp2_128x64x64_s7);
        if (tma && fits(pp, t) && kk > 2 * pp->bk && two_tiles_a_consumer(pp, m, n, 1, sms))
            return pp;
        /* fewer than 64 filters, in at most 32 of its tiles an SM: the
         * 64x64 tile, more CTAs and loads in flight than the 128x64 and
         * 256x64 tiles the sm80 rule takes where they fill a wave or two
         * (all three compute 64 columns).  Many more of its tiles pay its
         * fixed costs a CTA again and again, and at k = 64 each of them
         * loads the whole filter tile for half the rows a 128x64 tile
         * serves (session 34, docs/conv2d_fprop.md) */
        const plan_config *wg = CFG(sm90_wg1_64x64x64_s8);
        if (short_k_wgmma(wg, t, m, n, kk, sms))
            return wg;
        const plan_config *small = CFG(sm80_64x64x32_w4_s4);
        const plan_config *pick =
            n < 64 && fits(small, t) && plan_config_tiles(small, m, n) <= 32 * sms ? small : classic;
        if (pick == small) {
            /* where that is the mma.sync 64x64 tile: from 70% of a wave
             * of 64x64 tiles to one, the one-warpgroup tile unsplit
             * (1.02-1.21x on five layers of 98 tiles, K of 1152 to 2304);
             * past a wave at K >= 1024 and whole taps (maps), the 128x64
             * producer/consumer tile (1.09-1.66x on seven layers, four
             * held out; session 37, docs/conv2d_fprop.md), and since
             * session 38 with taps that end in zero-filled k tiles too
             * (c = 160, 200 and 240: 1.14-1.67x on eight layers, five held
             * out; c = 160 in session 37 0.98-1.13x on five) */
            const long long tiles = plan_config_tiles(wg, m, n);
            if (fits(wg, t) && 10 * tiles >= 7 * sms && tiles <= sms)
                return wg;
            if (narrow_maps && fits(pp, t) && kk >= 1024 && tiles > sms)
                return pp;
            /* past one wave of its four CTAs an SM, a 1x1 layer whose
             * epilogue reads a 16-bit [M, N] input (the residual) at K of
             * 128-512: the staged 128x64 producer/consumer tile, its CTAs
             * walking the tiles with the residual loaded ahead, where the
             * 64x64 tile's second wave ran mostly empty: 1.07-1.13x on
             * three layers of 24-48 filters, 1.06-1.25x on thirteen held
             * out; under a wave of 64x64 tiles it lost up to 10%, and at
             * K = 64, one k tile, 6% (session 72, docs/conv2d_fprop.md,
             * "Session 72: thin layers, the staged 128x64 tile") */
            if (kk > 64 && thin_staged_serves(t, kk, c, tma_level, stageable) &&
                plan_config_tiles(small, m, n) > small->min_blocks * sms)
                return CFG(sm90_pp2_128x64x64_s6_staged);
        }
        return pick;
    }
    const plan_config *pp = CFG(sm90_pp2_128x128x64_s4);
    const int pp_ok = tma && fits(pp, t) && kk > 2 * pp->bk;
    const long long pp_tiles = plan_config_tiles(pp, m, n);
    const plan_config *narrow = CFG(sm90_pp2_128x64x64_s7);
    const int narrow_ok = narrow_maps && kk > 2 * narrow->bk && fits(narrow, t);
    /* The cooperative 128x192 tile's two rules (session 36) take K >= 1024
     * over more than one tap (1x1 layers lost), whole taps (maps). */
    const plan_config *coop = CFG(sm90_coop2_128x192x64_s4);
    const int coop_ok = tma && kk >= 1024 && kk > c && fits(coop, t);
    /* k a multiple of 384 where the cooperative tiles fit one wave and the
     * 128x128 ones do not: the cooperative tile, its two consumers on each
     * SM's one tile, against a 128x128 tile for each SM and a second for
     * some (1.17-1.41x on six layers, 1.10-1.37x on seven held out; where
     * the 128x128 tiles fit one wave too they ran 1.09-1.30x faster, a
     * consumer alone on a tile two-thirds the size; where both ran two
     * waves, even; docs/conv2d_fprop.md) */
    const int coop_wave = coop_ok && n % 384 == 0 && plan_config_tiles(coop, m, n) <= sms &&
                          pp_tiles > sms;
    /* 65 to 96 filters: the producer/consumer tile 64 columns wide in place
     * of the 128-wide one, twice its tiles for as many columns computed
     * (k = 72 3x3 1.25x, k = 80 1x1 1.55x faster; at k = 112 4% slower;
     * session 35).  Since the edge tiles' epilogue reads rows in groups
     * (session 38), only for 1x1 layers or under a wave of 128x128
     * tiles: over several taps past it the 128x128 tile ran 1.02-1.36x
     * faster on eighteen layers, twenty held out; 1x1 layers 0.85-1.05x
     * (session 39, docs/conv2d_fprop.md) */
    const plan_config *pp_cols =
        narrow_ok && n <= 96 && (kk == c || pp_tiles < sms) ? narrow : coop_wave ? coop : pp;
    if (classic == CFG(sm80_64x64x32_w4_s4)) {
        /* K >= 8192 and 8-16 tiles of 128x256 (eight shares each within
         * the SMs: plan_split_k): that tile, split eight ways, in place of
         * the 64x64 tiles that this branch's rules take (the mma.sync or
         * one-warpgroup one, at most four shares, or unsplit): 1.14-1.99x
         * on seven held-out layers, 1.07-1.70x on four mined ones.  Not
         * where the one-warpgroup 64x128 rule below takes whole 128-column
         * tiles (1.00x held out, 0.91x mined; session 39,
         * docs/conv2d_fprop.md) */
        const plan_config *w256 = CFG(sm90_wg2_128x256x64_s4), *wide = CFG(sm90_wg1_64x128x64_s8);
        const int wide_rule = fits(wide, t) && n % wide->bn == 0 && 4 * plan_config_tiles(wide, m, n) <= sms;
        const long long w256_tiles = plan_config_tiles(w256, m, n);
        if (kk >= 8192 && !wide_rule && fits(w256, t) && w256_tiles >= 8 && w256_tiles <= sms / 8)
            return w256;
        /* under half a wave of 128x128 tiles at K >= 4096, more than 128
         * filters, where the producer/consumer rules below would take
         * them: the cp.async 128x256 or 192x128 tile split along K
         * (split_cost, the cost list's penalties), 1.19-1.74x against the 128x128 tile unsplit
         * on sixteen layers, ten held out.  The 192x256 tile split four
         * ways lost (0.85-0.95x on four), and so did the 128x128 tile's
         * one column of filters at 128 or fewer (0.94x, 0.95x; session
         * 39, docs/conv2d_fprop.md) */
        if (kk >= 4096 && n > pp->bn && m >= pp->bm && 2 * pp_tiles < sms &&
            10 * pp_tiles >= 3 * sms && (pp_ok || narrow_maps)) {
            static const costed split[] = {{CFG(sm90_wg3_192x128x64_s4), 15}, {CFG(sm90_wg2_128x256x64_s4), 0}};
            double split_best = 0;
            const plan_config *sp = cheapest(split, 2, split_cost, t, m, n, kk, 1, sms, &split_best);
            if (sp)
                return sp;
        }
        /* the GEMM's rule below a wave of 128x128 tiles (plan_gemm_sm90_pick) */
        if (pp_ok && kk >= 1024 && m >= pp->bm && 10 * pp_tiles >= 3 * sms)
            return pp_cols;
        /* the one-warpgroup wgmma 64x64 tile in eight stages, one CTA an
         * SM, where its tiles are a quarter of the SMs or fewer (split-K
         * then shares them out, up to four ways) or fill three quarters of
         * one wave or more: 1.00-1.67x on four small layers (1x1 and 3x3,
         * K of 512 to 4608); at 49-56 tiles, K of 576 to 4608, 0.69-1.18x
         * (too few CTAs for a long K, unsplit); past a wave it lost;
         * eight held-out layers 1.07-1.41x (session 36,
         * docs/conv2d_fprop.md) */
        const plan_config *wg = CFG(sm90_wg1_64x64x64_s8);
        const long long tiles = plan_config_tiles(wg, m, n);
        if (fits(wg, t) && (4 * tiles <= sms || (4 * tiles >= 3 * sms && tiles <= sms)))
            return wg;
        if (short_k_wgmma(wg, t, m, n, kk, sms))
            return wg;
        /* whole 128-column tiles, a quarter of the SMs of them or fewer:
         * the one-warpgroup 64x128 tile, which plan_split_k splits up to
         * four ways, half the operand bytes a FLOP of the 64x64 tile's
         * (1.01-1.19x on four 3x3 layers of 25-32 such tiles, K of 1152 to
         * 4608; session 37) */
        if (wide_rule)
            return wide;
        /* taps that end in zeros, more than a sixth of the loads (c =
         * 200: 256 loaded) or an eighth or fewer (c = 112, 224-672), K >=
         * 1024 and the 128x128 tiles of the GEMM's rule above: that tile,
         * whatever the filters: 1.07-2.17x against the mma.sync tile on
         * twelve held-out layers, where that tile ran at 60-100 TFLOP/s
         * (session 38); with an eighth or fewer 1.03-1.56x on nine layers
         * once the edge tiles' epilogue no longer read a row at a time
         * (0.88-1.51x before; session 39).  Not at c = 160 (a sixth):
         * 0.87-1.21x on four; nor where the one-warpgroup tile's rules
         * above take the layer (0.63x; docs/conv2d_fprop.md) */
        if (!tma && narrow_maps && (5 * c_loaded > 6 * c || 8 * c >= 7 * c_loaded) && fits(pp, t) && kk >= 1024 &&
            m >= pp->bm && 10 * pp_tiles >= 3 * sms)
            return pp;
        /* past a wave of 64x64 tiles at K >= 1024, whole taps (maps) and
         * fewer 128x128 tiles than the rule above takes: the 128x64
         * producer/consumer tile, 1.28-1.66x on six layers against the
         * mma.sync tile; where taps end in zero-filled k tiles (c of 160
         * and 200) 0.98-1.19x, not taken (session 37,
         * docs/conv2d_fprop.md) */
        if (tma && narrow_ok && kk >= 1024 && tiles > sms)
            return narrow;
        /* the two rules below turn on whether the mma.sync tile would be split */
        const int classic_split =
            plan_split_k(plan_config_tiles(classic, m, n), classic->min_blocks, (int)sms, kk, classic->bk, 0, 1) > 1;
        /* 80 filters or more and K >= 512 where the mma.sync 64x64 tile
         * runs unsplit and the one-warpgroup 64x128 tile's fit one wave:
         * that tile, a CTA an SM, half the A loads.  With 64 filters or
         * fewer, where it computes twice the columns, it lost (0.45-0.81x,
         * mined); under eight k tiles it ran 0.93-0.99x on four held-out
         * 1x1 layers.  At K >= 512, held out on ten fresh layers: 1.12x,
         * 0.98-1.26x (H200, session 75, docs/conv2d_fprop.md) */
        if (fits(wide, t) && n >= 80 && kk >= 512 && plan_config_tiles(wide, m, n) <= sms && !classic_split)
            return wide;
        /* K >= 16384 over whole 128-column tiles where the mma.sync 64x64
         * tile would be split (too few 128x128 tiles for the split rule
         * above): the cp.async 192x128 tile, which plan_split_k splits
         * eight ways there, in place of the 64x64 tile's four shares:
         * 1.48-1.66x on three mined layers of 128 filters, 1.58-2.39x on
         * eight held out (H200, session 75, docs/conv2d_fprop.md); with
         * 192 filters, whose tile it pads, 0.90x (mined) */
        const plan_config *tall = CFG(sm90_wg3_192x128x64_s4);
        if (kk >= 16384 && n % tall->bn == 0 && m >= tall->bm && fits(tall, t) && classic_split)
            return tall;
        return classic;
    }
    /* k a multiple of 64 but not of 128: every wider tile pads the last
     * column of tiles by half (k = 320: 384 or 512 columns computed), the
     * 128x64 producer/consumer tile none, and it ran 1.14-2.06x faster than
     * the pick on the six such layers probed (c of 160 to 384, 1x1 and 3x3,
     * k of 192 and 320), with maps whose taps end in zero-filled k tiles
     * too (c = 160: 1.26-1.30x; session 32, docs/conv2d_fprop.md).  Not
     * since session 39 over several taps that end in more than a sixth of
     * zeros (c = 96, 200), which go to the cost list below: 0.98-1.49x on
     * eight held-out layers (geomean 1.18), 1.09x and 2.02x on two mined;
     * c = 160 and 1x1 layers kept the 128x64 tile (0.86x, 0.64x), but
     * for exactly 192 filters over several taps (session 74, below) */
    if (narrow_ok && n % 128 == 64 && n <= 576 && (tma || kk == c || 5 * c_loaded <= 6 * c)) {
        /* exactly 192 filters over several taps that end in zero-filled k
         * tiles of a sixth of the loads or fewer (c = 160, 224, 480), K >=
         * 1024: the cooperative tile, whose width they fill, in place of
         * the 128x64 one: 1.06-1.22x on six layers, 0.96-1.54x on eight
         * held out (geomean 1.22); at 320 and 448 filters, which its
         * columns pad, it lost 6-12% (sessions 73-74, docs/conv2d_fprop.md).
         * Without maps and over several taps, the branch's test has bounded
         * the zeros already. */
        if (!tma && n == coop->bn && kk >= 1024 && kk > c && fits(coop, t))
            return coop;
        /* where coop_ok and 192 columns a tile fill 80% or more of the
         * last (k = 192, 320, 576): the cooperative tile where its waves
         * cost less at 8% off (wave_cost), a third fewer operand bytes a
         * FLOP than 128x64.  Fitted on 16 3x3 layers (0.89-1.46x against
         * 128x64; the rule's 0.97-1.46x), its one miss on the safe side;
         * ten held out 1.03-1.48x.  Where its tiles leave a last wave far
         * emptier than the 128x64 tile's it lost up to 11%, and 1x1 layers
         * up to 1.22x at K of 256 to 1280 (session 36,
         * docs/conv2d_fprop.md) */
        const long long cols = (n + coop->bn - 1) / coop->bn * coop->bn;
        if (coop_ok && 5 * n >= 4 * cols &&
            wave_cost(coop, m, n, 1, sms, -8) < wave_cost(narrow, m, n, 1, sms, 0))
            return coop;
        /* 448 and 576 filters over several taps, K >= 2048, where 128
         * columns a tile pad an eighth or less: the 128x128
         * producer/consumer tile where the busiest SM computes no more with
         * it than with the 128x64 tile (sm_area; 1.06-1.23x on seven layers
         * where both were equal; where 128x128 gave it more, 6-10% slower,
         * at K = 1152 10% slower though equal, and a 1x1 layer 40%; session
         * 37, docs/conv2d_fprop.md) */
        if (pp_ok && n >= 448 && kk >= 2048 && kk > c && sm_area(pp, m, n, sms) <= sm_area(narrow, m, n, sms))
            return pp;
        return narrow;
    }
    /* 257 to 511 filters whose last 128 columns are less than half full
     * (272-304, 400-432), whole taps: the 128x64 producer/consumer tile,
     * which pads them by less than 64, or the 128x128 one on session 37's
     * terms for 448 and 576 filters above (the busiest SM computes no more
     * with it, K >= 2048 over several taps): 1.05-1.57x on eighteen
     * layers, fourteen of them held out, the 128x128 tile kept on a
     * nineteenth.  With more column tiles, each reading A again, it lost:
     * 528-560 filters 0.94-1.06x, 656-688 filters 0.73-1.21x (session 38,
     * docs/conv2d_fprop.md) */
    if (tma && narrow_ok && n > 2 * pp->bn && n < 4 * pp->bn && n % pp->bn != 0 &&
        n % pp->bn < narrow->bn) {
        if (pp_ok && kk >= 2048 && kk > c && sm_area(pp, m, n, sms) <= sm_area(narrow, m, n, sms))
            return pp;
        return narrow;
    }
    /* 129 to 191 filters: the 128x128 tile pads them to 256 columns, the
     * cooperative 128x192 one to 192; where the busiest SM computes no
     * more with it, that one (160 filters, 1x1 and 3x3, K of 192 to 2304:
     * 1.33-1.88x on eight layers, five held out; session 37,
     * docs/conv2d_fprop.md), whole taps here, taps that end in zeros
     * below */
    const int coop_cols = n > pp->bn && n < coop->bn && kk > 2 * coop->bk && fits(coop, t) &&
                          sm_area(coop, m, n, sms) <= sm_area(pp, m, n, sms);
    if (tma && coop_cols)
        return coop;
    const costed short_k[] = {{CFG(sm90_wg2_128x128x32_s6), 0},
                              {CFG(sm90_wg2_128x256x64_s4), 0},
                              {CFG(sm90_wg3_192x128x64_s4), 15},
                              {CFG(sm90_wg3_192x256x64_s4), 10}};
    const costed long_k[] = {{CFG(sm90_wg2_128x256x64_s4), 0},
                             {CFG(sm90_wg2_128x128x32_s6), 0},
                             {CFG(sm90_wg3_192x128x64_s4), 15},
                             {CFG(sm90_wg3_192x256x64_s4), 10}};
    double cost = 0;
    const plan_config *best = cheapest(kk <= 128 ? short_k : long_k, 4, padded_cost, t, m, n, kk, 1, sms, &cost);
    /* The producer/consumer tile at a quarter below the cheapest cp.async
     * tile's cost, times the zeros its taps load where they end in
     * zero-filled k tiles (the cp.async tiles walk K flat and load none).
     * Such taps only where the zeros are a sixth of the loads or fewer (c =
     * 160: 192 loaded) and past 96 filters, where pp_cols would be the
     * 128x64 tile: c of 160 to 672 1.01-1.37x on seventeen layers, c = 200
     * (256 loaded) 0.83x on two (session 37, docs/conv2d_fprop.md). */
    const int partial_taps = !tma && narrow_maps && n > 96 && c_loaded > 0 && 5 * c_loaded <= 6 * c;
    const double tap_zeros = c_loaded > 0 ? (double)c_loaded / (double)c : 1.0;
    if ((pp_ok || (partial_taps && fits(pp, t) && kk > 2 * pp->bk)) &&
        (!best || padded_cost(pp, m, n, kk, 1, sms, -25) * tap_zeros < cost)) {
        if (pp_ok)
            return pp_cols;
        /* the 129-191 filters rule above for such taps where the 128x128
         * tile would take them: 1.36x and 1.63x on two layers (c = 112 and
         * 240, 160 filters); against the cp.async 192-row tiles this
         * branch picks otherwise, 0.88-1.11x (session 39,
         * docs/conv2d_fprop.md) */
        return coop_cols ? coop : pp;
    }
    /* channels off a line (rows_off_line: each pixel's row) at K over 128:
     * a tile's L2 requests then grow with the rows it loads a FLOP, and
     * the 192x256 tile loads the fewest, so it goes a twentieth below its
     * waves' cost, not a tenth above; only here, once the producer/consumer
     * tile has been weighed against the usual costs (session 50,
     * docs/conv2d_fprop.md) */
    if (best && rows_off_line(c) && kk > 128) {
        const costed off_line[] = {{CFG(sm90_wg2_128x256x64_s4), 0},
                                   {CFG(sm90_wg2_128x128x32_s6), 0},
                                   {CFG(sm90_wg3_192x128x64_s4), 15},
                                   {CFG(sm90_wg3_192x256x64_s4), -5}};
        const plan_config *o = cheapest(off_line, 4, padded_cost, t, m, n, kk, 1, sms, &cost);
        return o ? o : best;
    }
    return best ? best : classic;
}

/* conv_sm90_base's pick, or where that is the 128x64 producer/consumer
 * tile on a 1x1 layer of 64 filters or fewer at K of 512 or less whose
 * epilogue reads a 16-bit [M, N] input (the residual), whole k tiles: the
 * same tile with that input staged (six stages, not seven).  Unstaged, its
 * consumers' epilogue waited on the residual's loads, 54% of their stalls
 * on a layer of 48 filters (ncu), and at such K the other consumer's
 * mainloop is too short to hide them: 1.05-1.38x on ten 1x1 layers of
 * 24-200 filters, K of 64 to 768, then 1.01-1.49x on thirteen held out.
 * Past 64 filters a held-out layer lost 9% (192 filters, K = 320, 204,800
 * pixels; five others won 1.02-1.32x): not taken there (session 72,
 * docs/conv2d_fprop.md, "Session 72: thin layers, the staged 128x64
 * tile") */
const plan_config *plan_conv_sm90_pick(const plan_target *t, long long m, long long n, long long kk,
                                       const plan_conv_view *cv, long long sms, int tma_level, int stageable)
{
    const plan_config *pick = conv_sm90_base(t, m, n, kk, cv, sms, tma_level, stageable);
    const plan_config *twin = CFG(sm90_pp2_128x64x64_s6_staged);
    if (pick == CFG(sm90_pp2_128x64x64_s7) && n <= twin->bn &&
        thin_staged_serves(t, kk, cv->c, tma_level, stageable))
        return twin;
    return pick;
}

/* A conv's 128x128 producer/consumer pick past 192 filters at K >= 1024
 * over several taps (session 36's 1x1 layers ran slower on it),
 * where the cooperative 128x192 tile leaves the busiest SM a quarter less
 * to compute or more (sm_area: typically one 128x192 tile an SM against
 * two 128x128 ones, which a ping-pong SM runs in turn): the cooperative
 * tile, its two consumers on the one tile.  1.09-1.59x on ten held-out
 * layers, 1.14-1.32x on three mined ones; at K of 512 and 576 0.92x
 * (session 39, docs/conv2d_fprop.md) */
const plan_config *plan_coop_over_pp(const plan_target *t, long long m, long long n, long long kk, long long c,
                                long long sms, int tma_level, const plan_config *pick)
{
    const plan_config *coop = CFG(sm90_coop2_128x192x64_s4);
    if (pick == CFG(sm90_pp2_128x128x64_s4) && maps_k64(tma_level) && n > coop->bn && kk >= 1024 && kk > c &&
        fits(coop, t) && 4 * sm_area(coop, m, n, sms) <= 3 * sm_area(pick, m, n, sms))
        return coop;
    return pick;
}

/* The clusters of c (of two or four CTAs) the device holds at once, at
 * one CTA an SM: what the launch asked of the driver, else what the H100
 * and H200 hold, 66 of two and 30 of four on 132 SMs (the GPCs do not
 * divide into fours evenly), scaled by the SMs.  0: none fits. */
static long long cluster_resident(const plan_config *c, long long sms, const plan_clusters *res)
{
    if (res->pairs > 0)
        return c->cluster > 2 ? res->fours : res->pairs;
    const long long ctas = c->cluster > 2 ? sms * 120 / 132 : sms;
    return ctas / c->cluster > 0 ? ctas / c->cluster : 1;
}

/* Rounds the persistent walk of c's stacks (c->cluster tiles on top of
 * each other) takes: each resident cluster runs one stack a round. */
static long long cluster_rounds(const plan_config *c, long long m, long long n, long long sms,
                                const plan_clusters *res)
{
    const long long stacks = plan_config_stacks(c, m, n, 1);
    const long long held = cluster_resident(c, sms, res);
    return held > 0 ? (stacks + held - 1) / held : LLONG_MAX;
}

/* Channels an odd multiple of 8 (c % 16 == 8) under TMA maps in k tiles
 * of 64: the pick's twin in clusters, where it has one, whose CTAs load a
 * share of the filter tile each and multicast it.  Such a layer's pixel
 * rows (2c bytes) put every other pixel and filter tap 16 bytes off a
 * 32-byte sector, which doubles the L2 bytes these L2-bound kernels move;
 * sharing the filters' loads gives part of that back (cuDNN runs such
 * layers in clusters of 3 to 8).  Not under half a wave of tiles, where
 * the clusters leave SMs idle that lone tiles would fill.  In clusters of
 * four only past one tap, and where the stacks of four take no more rounds
 * than the pairs (the ping-pong tile from two waves in any case): a round
 * more lost what the shared filters gained, and at 1x1 the filters are too
 * small a part of the bytes (docs/conv2d_fprop.md, sessions 79-81).  No
 * clusters of a size the device holds none of (a smaller GPC, a slice). */
const plan_config *plan_conv_odd8_clusters(const plan_target *t, long long m, long long n, long long kk, long long c,
                                           long long sms, const plan_clusters *resident, int tma_level,
                                           const plan_config *pick)
{
    if (c % 16 != 8 || !maps_k64(tma_level))
        return pick;
    const long long tiles = plan_config_tiles(pick, m, n);
    if (2 * tiles < sms)
        return pick;
    /* each pick's twins in clusters of two and of four */
    static const struct {
        enum evt_tile_id pick, pair, four;
    } twins[] = {
        {EVT_TILE_sm90_pp2_128x128x64_s4, EVT_TILE_sm90_pp2_cl2_128x128x64_s4, EVT_TILE_sm90_pp2_cl4_128x128x64_s4},
        {EVT_TILE_sm90_coop2_128x192x64_s4, EVT_TILE_sm90_coop2_cl2_128x192x64_s4,
         EVT_TILE_sm90_coop2_cl4_128x192x64_s4},
        {EVT_TILE_sm90_coop2_128x160x64_s4, EVT_TILE_sm90_coop2_cl2_128x160x64_s4,
         EVT_TILE_sm90_coop2_cl4_128x160x64_s4},
    };
    size_t i = 0;
    while (i < sizeof twins / sizeof twins[0] && pick->id != twins[i].pick)
        i++;
    if (i == sizeof twins / sizeof twins[0])
        return pick;
    const plan_config *twin = &plan_configs[twins[i].pair], *four = &plan_configs[twins[i].four];
    if (cluster_resident(twin, sms, resident) < 1)
        return pick;
    const int pp = twins[i].pick == EVT_TILE_sm90_pp2_128x128x64_s4;
    if (kk > c && cluster_resident(four, sms, resident) > 0 &&
        ((pp && tiles >= 2 * sms) ||
         cluster_rounds(four, m, n, sms, resident) <= cluster_rounds(twin, m, n, sms, resident)))
        twin = four;
    return fits(twin, t) ? twin : pick;
}
