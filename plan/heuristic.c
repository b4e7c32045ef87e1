/* heuristic.c - which tile configuration a problem gets, and split-K.
 *
 * Four heuristics: GEMM and conv, each in the sm80 family (mma.sync, any
 * target: plan/sm80.c) and the sm90 family (wgmma, where the kernel can run
 * it: sm_90a, 16-bit operands in any layout, fp8 ones K-contiguous:
 * plan/sm90_gemm.c, plan/sm90_conv.c).  They compare tile counts with
 * multiples of the SM count, so they depend on M, N, the SMs and (a little)
 * K.  A configuration that does not fit the target's shared memory is
 * passed over, so the next smaller one applies: sm_86 and sm_89 (99 KB)
 * cannot hold the 128x256 tiles (a 135 KB accumulator tile) that sm_80
 * (163 KB) picks.  A batched GEMM's problems share one grid: the GEMM
 * heuristics count the batch's tiles (plan_config_batch_tiles), while M, N
 * and K still describe one problem.
 * This file holds what each heuristic can return (the candidate sets), the
 * GEMM heuristics' two tile tables, plan_pick (which heuristic a kernel
 * takes) and split-K; plan/heuristic.h what the heuristics share.
 * The measurements behind every rule: docs/sm80.md, docs/sm90.md,
 * docs/conv2d_fprop.md. */
#include "heuristic.h"

/* ---- the candidate sets ----------------------------------------------- */

/* What each heuristic can return, as data: plan_listed (the configurations
 * a full listing compiles) is these less what cannot run.  tests/unit/
 * test_plan.c probes the heuristics to keep both sides in step. */
static const enum evt_tile_id gemm_sm80[] = {
    EVT_TILE_sm80_128x256x64_w8_s3,
    EVT_TILE_sm80_128x128x64_w4_s3,
    EVT_TILE_sm80_64x64x32_w4_s4,
};
static const enum evt_tile_id gemm_sm90[] = {
    EVT_TILE_sm90_pp2_128x128x64_s2_staged,
    EVT_TILE_sm90_pp2_128x64x64_s6_staged,
    EVT_TILE_sm90_pp2_128x64x64_s7,
    EVT_TILE_sm90_coop2_128x256x64_s3,
    EVT_TILE_sm90_coop2_cl2_128x256x64_s3,
    EVT_TILE_sm90_coop2_128x256x64_s4,
    EVT_TILE_sm90_coop2_cl2_128x256x64_s4,
    EVT_TILE_sm90_coop2_128x192x64_s4,
    EVT_TILE_sm90_coop2_128x160x64_s4,
    EVT_TILE_sm90_pp2_128x128x64_s4,
    EVT_TILE_sm90_pp2_cl2_128x128x64_s4,
    EVT_TILE_sm90_pp2_128x128x64_s6,
    EVT_TILE_sm90_pp2_cl2_128x128x64_s6,
    EVT_TILE_sm90_pp2_cl2_64x128x64_s8,
    EVT_TILE_sm90_wg2_128x256x64_s4,
    EVT_TILE_sm90_wg2_128x128x64_s3,
    EVT_TILE_sm90_wg2_128x128x64_s6,
    EVT_TILE_sm90_wg1_64x128x64_s4,
    EVT_TILE_sm90_wg1_64x128x64_s8,
    EVT_TILE_sm90_wg1_64x64x64_s8,
    EVT_TILE_sm90_wg1_16x64x64_s16,
    EVT_TILE_sm90_wg1_32x64x64_s12,
    EVT_TILE_sm90_wg1_16x128x64_s12,
    EVT_TILE_sm90_wg1_80x64x64_s12,
    EVT_TILE_sm90_wg1_96x64x64_s11,
    EVT_TILE_sm90_wg1_112x64x64_s10,
    EVT_TILE_sm80_64x64x32_w4_s4,
};
/* fp8 GEMMs: the same heuristics over the fp8 rows (BK = 128 fp8 elements,
 * the bytes of the 16-bit BK = 64 rows); no 128x256 mma.sync tile, which
 * only sm_80's shared memory held and sm_80 has no fp8 MMAs. */
static const enum evt_tile_id gemm_fp8_sm80[] = {
    EVT_TILE_sm80_128x128x128_w4_s3_fp8,
    EVT_TILE_sm80_64x64x64_w4_s4_fp8,
};
/* The rows with two epilogue warpgroups (ws8) are tuning's and forcing's
 * only: with the amax's max one instruction, handing each tile over
 * through shared memory costs them more than the overlap saves
 * (docs/fp8.md, session 42). */
static const enum evt_tile_id gemm_fp8_sm90[] = {
    EVT_TILE_sm90_coop2_128x128x128_s4_fp8,
    EVT_TILE_sm90_coop2_cl2_128x128x128_s4_fp8,
    EVT_TILE_sm80_128x128x128_w4_s3_fp8,
    EVT_TILE_sm80_64x64x64_w4_s4_fp8,
};
static const enum evt_tile_id conv_sm80[] = {
    EVT_TILE_sm80_128x256x64_w8_s3, EVT_TILE_sm80_128x128x64_w4_s3, EVT_TILE_sm80_256x64x32_w4_s4,
    EVT_TILE_sm80_128x64x64_w4_s3,  EVT_TILE_sm80_64x64x32_w4_s4,
};
static const enum evt_tile_id conv_sm90[] = {
    EVT_TILE_sm90_pp2_128x128x64_s2_staged,
    EVT_TILE_sm90_pp2_128x64x64_s6_staged,
    EVT_TILE_sm90_pp2_128x64x64_s7,
    EVT_TILE_sm90_pp2_128x128x32_s8,
    EVT_TILE_sm90_pp2_128x64x32_s12,
    EVT_TILE_sm80_256x64x32_w4_s4,
    EVT_TILE_sm80_128x64x64_w4_s3,
    EVT_TILE_sm80_64x64x32_w4_s4,
    EVT_TILE_sm90_wg2_128x128x32_s6,
    EVT_TILE_sm90_wg2_128x256x64_s4,
    EVT_TILE_sm90_wg3_192x128x64_s4,
    EVT_TILE_sm90_wg3_192x256x64_s4,
    EVT_TILE_sm90_pp2_128x128x64_s4,
    EVT_TILE_sm90_coop2_128x192x64_s4,
    EVT_TILE_sm90_coop2_128x160x64_s4,
    EVT_TILE_sm90_pp2_cl2_128x128x64_s4,
    EVT_TILE_sm90_pp2_cl4_128x128x64_s4,
    EVT_TILE_sm90_coop2_cl2_128x192x64_s4,
    EVT_TILE_sm90_coop2_cl2_128x160x64_s4,
    EVT_TILE_sm90_coop2_cl4_128x192x64_s4,
    EVT_TILE_sm90_coop2_cl4_128x160x64_s4,
    EVT_TILE_sm90_wg1_64x128x64_s8,
    EVT_TILE_sm90_wg1_64x64x64_s8,
};

typedef struct candidates {
    const enum evt_tile_id *ids;
    int n;
} candidates;

#define SET(a) {a, (int)(sizeof a / sizeof a[0])}
/* by mainloop (evt_mainloop's order), then family (sm80, sm90) */
static const candidates sets[2][2] = {
    {SET(gemm_sm80), SET(gemm_sm90)},
    {SET(conv_sm80), SET(conv_sm90)},
};
static const candidates fp8_sets[2] = {SET(gemm_fp8_sm80), SET(gemm_fp8_sm90)};
#undef SET

/* Whether k on t takes the sm90 (wgmma) heuristic: 16-bit operands in any
 * layout (the transposed wgmma reads M/N-contiguous ones), fp8 ones
 * K-contiguous. */
static int sm90_family(const plan_kernel *k, const plan_target *t)
{
    return t->wgmma && (k->k_contiguous || !k->fp8);
}

/* ---- the GEMM heuristics' tiles (plan/heuristic.h's gemm_tiles) -------- */

static const gemm_tiles gemm16 = {
    .sync_wide = CFG(sm80_128x256x64_w8_s3),
    .sync_mid = CFG(sm80_128x128x64_w4_s3),
    .sync_small = CFG(sm80_64x64x32_w4_s4),
    .pp = CFG(sm90_pp2_128x128x64_s4),
    .wg_wide = CFG(sm90_wg2_128x256x64_s4),
    .wg_mid = CFG(sm90_wg2_128x128x64_s3),
    .staged = CFG(sm90_pp2_128x128x64_s2_staged),
    .staged_narrow = CFG(sm90_pp2_128x64x64_s6_staged),
    .pp_narrow = CFG(sm90_pp2_128x64x64_s7),
    .coop = CFG(sm90_coop2_128x256x64_s3),
    .coop_cl = CFG(sm90_coop2_cl2_128x256x64_s3),
    .coop_deep = CFG(sm90_coop2_128x256x64_s4),
    .coop_deep_cl = CFG(sm90_coop2_cl2_128x256x64_s4),
    .wg_small = CFG(sm90_wg1_64x128x64_s4),
    .wg_deep = CFG(sm90_wg1_64x128x64_s8),
    .pp_deep = CFG(sm90_pp2_128x128x64_s6),
    .wg_narrow = CFG(sm90_wg1_64x64x64_s8),
    .coop_mid = CFG(sm90_coop2_128x192x64_s4),
    .coop_160 = CFG(sm90_coop2_128x160x64_s4),
    .wg_row = CFG(sm90_wg2_128x128x64_s6),
    .pp_deep_cl = CFG(sm90_pp2_cl2_128x128x64_s6),
    .pp_off_cl = CFG(sm90_pp2_cl2_128x128x64_s4),
    .pp_short_cl = CFG(sm90_pp2_cl2_64x128x64_s8),
    .swap16 = CFG(sm90_wg1_16x64x64_s16),
    .swap32 = CFG(sm90_wg1_32x64x64_s12),
    .swap16_wide = CFG(sm90_wg1_16x128x64_s12),
    .swap_rows = {CFG(sm90_wg1_80x64x64_s12), CFG(sm90_wg1_96x64x64_s11), CFG(sm90_wg1_112x64x64_s10)},
};
/* fp8: the cooperative tile stands where the 16-bit heuristic takes the
 * ping-pong one (pp, pp_cl) */
static const gemm_tiles gemm8 = {
    .sync_mid = CFG(sm80_128x128x128_w4_s3_fp8),
    .sync_small = CFG(sm80_64x64x64_w4_s4_fp8),
    .pp = CFG(sm90_coop2_128x128x128_s4_fp8),
    .pp_cl = CFG(sm90_coop2_cl2_128x128x128_s4_fp8),
};

/* Whether coop_of can return row c (any row: the others are not its) for
 * kernel k's epilogue: the four-stage rows only for light and per-element
 * epilogues, and their clusters only for light ones; and likewise the
 * 64-row ping-pong row short_pp_serves gives light and fast_light ones.
 * plan_candidate lists by it, so a full listing holds what the heuristic
 * returns and no more. */
int plan_coop_row_serves(const plan_config *c, const plan_kernel *k)
{
    if (c == gemm16.pp_short_cl)
        return k->light || k->fast_light;
    if (c == gemm16.coop_deep_cl)
        return k->light;
    if (c == gemm16.coop_deep)
        return k->light || k->per_element;
    return 1;
}

int plan_candidate(const plan_config *c, const plan_kernel *k, evt_target t)
{
    const plan_target *ti = plan_target_info(t);
    if (!ti || !c || (unsigned)k->mainloop > EVT_MAINLOOP_CONV2D_FPROP)
        return 0;
    if (k->fp8 && (k->mainloop != EVT_MAINLOOP_GEMM || !ti->fp8))
        return 0;
    const candidates *s = k->fp8 ? &fp8_sets[sm90_family(k, ti)] : &sets[k->mainloop][sm90_family(k, ti)];
    if (!plan_coop_row_serves(c, k))
        return 0;
    /* gemm_sm90_base gives the unstaged 128x64 row K-contiguous GEMMs
     * with nothing to stage (its twin those with an input to stage) */
    if (c == gemm16.pp_narrow && k->mainloop == EVT_MAINLOOP_GEMM && (k->stageable || !k->k_contiguous))
        return 0;
    for (int i = 0; i < s->n; i++)
        if (s->ids[i] == c->id)
            return 1;
    return 0;
}

/* ---- the dispatch ------------------------------------------------------- */

const plan_config *plan_pick(const plan_kernel *k, evt_target t, long long m, long long n, long long kk,
                             long long batch, int sms, const plan_clusters *resident, int tma,
                             const plan_conv_view *conv)
{
    static const plan_conv_view unknown = {0, 0, 0, 0};
    static const plan_clusters not_known = {0, 0};
    const plan_conv_view *cv = conv ? conv : &unknown;
    const plan_target *ti = plan_target_info(t);
    if (!ti)
        return NULL;
    const long long s = sms > 0 ? sms : ti->sms_default;
    if (k->mainloop == EVT_MAINLOOP_GEMM) {
        const gemm_tiles *g = k->fp8 ? &gemm8 : &gemm16;
        return sm90_family(k, ti) ? plan_gemm_sm90_pick(g, ti, k, m, n, kk, batch, s, tma)
                                  : plan_gemm_sm80_pick(g, ti, m, n, batch, s);
    }
    if (!sm90_family(k, ti))
        return plan_conv_sm80_pick(ti, m, n, kk, s);
    const plan_config *pick = plan_conv_sm90_pick(ti, m, n, kk, cv, s, tma, k->stageable);
    pick = plan_coop_over_pp(ti, m, n, kk, cv->c, s, tma, pick);
    return plan_conv_odd8_clusters(ti, m, n, kk, cv->c, s, resident ? resident : &not_known, tma, pick);
}

/* The SMs split-K's clusters are taken to reach, one CTA an SM: nine
 * tenths (clusters stay in a GPC, and the GPCs do not divide into them
 * evenly: 102-124 of the H200's 132 for clusters of 3 to 8, docs/sm90.md). */
static long long cluster_reach(int sms)
{
    return (long long)(sms > 0 ? sms : 1) * 9 / 10;
}

/* The quarter-wave terms plan_coop_tail and plan_own_tail share. */
static long long quarter_tail(long long tiles, int sms, long long k, int *splits)
{
    int ways = 1;
    long long last = 0;
    if (sms >= 8 && k >= 2048 && tiles > sms) {
        last = (tiles - 1) % sms + 1;
        const long long s = 4 * last <= sms ? cluster_reach(sms) / last : 1;
        ways = s < 4 ? (int)s : 4;
    }
    if (ways < 2) {
        ways = 1;
        last = 0;
    }
    if (splits)
        *splits = ways;
    return last;
}

/*
 * A persistent cooperative plan's own tail (sm_90a): where K is 2048 or more
 * and the last of two or more waves holds a quarter of the SMs' tiles or
 * fewer, those tiles are split along K, as many ways as fit in nine tenths
 * of the SMs, up to four, their shares summing in their clusters.  H200,
 * bench/plans.py tail (docs/tuning.md): 2000x2300x4096 (last wave 12
 * tiles) 1.06-1.15x faster than the ping-pong tile the planner took,
 * 2048x2560x2560 (28) 1.03-1.10x, 2048x11008x4096 (28) 1.10-1.11x; where
 * the last wave held 76-92 tiles, or there was one wave, a tail lost.
 */
long long plan_coop_tail(const plan_config *c, long long tiles, int sms, long long k, int *splits)
{
    const int coop16 = c && plan_config_coop(c) && c->op_bytes == 2;
    return quarter_tail(coop16 ? tiles : 0, sms, k, splits);
}

/*
 * The unstaged 128x64 ping-pong tile takes the same split of its last
 * wave on one GEMM problem.  Where it holds 16-21 tiles, four ways ran
 * 1.07-1.18x faster than none at K of 3008-7744; with 40 tiles or more,
 * a split lost or gained 2% at most.  Held out on ten shapes of 4-31 such
 * tiles, K of 3264-8064: 1.12x, 1.045-1.185x (H100; docs/sm90.md, "Its
 * tail").
 */
long long plan_own_tail(const plan_config *c, const plan_kernel *k, long long batch, long long tiles, int sms,
                        long long kk, int *splits)
{
    if (c == gemm16.pp_narrow && k->mainloop == EVT_MAINLOOP_GEMM && batch == 1)
        return quarter_tail(tiles, sms, kk, splits);
    return plan_coop_tail(c, tiles, sms, kk, splits);
}

/*
 * Split-K, for the non-persistent configurations: every CTA of a tile
 * computes a share of its k tiles, and the partial tiles are added in a
 * fixed order before the epilogue (by a second kernel, or on sm_90a inside
 * the shares' cluster).
 * - conv: a grid that fills under a quarter of the CTA slots is split, up
 *   to four ways, at least four k tiles a share; anything larger is not
 *   (1): splitting a half-filled grid or the last partial wave of a larger
 *   one lost.  Eight ways where eight shares a tile fit the SMs a
 *   cluster's sum reaches, 512 of K each (session 38), or one wave of
 *   CTA slots at K >= 8192 (session 39).
 * - GEMM: a grid that fills at most half the slots is split into as many
 *   shares as fill them once, up to eight, each at least 512 of K: on an
 *   H100, 8 shares against 4 ran 1.1-1.45x faster where 64x64 tiles were
 *   32 or fewer and K 4096 or more, and shares shorter than 512 lost up to
 *   20% against no split at all (docs/sm90.md).
 * - GEMM where the shares sum in their cluster (sm_90a): tiles few enough
 *   for two shares each within nine tenths of the SMs (what clusters reach,
 *   one CTA an SM: api/launch.c takes clusters only where no SM runs more
 *   CTAs than without) are split into as many as fit there, up to eight,
 *   each at least 128 of K, unless that is under half the shares above:
 *   without the second kernel the short shares that lost above gained
 *   (16x768x768 7.3 -> 5.4 us), but a skinny GEMM at long K wants its CTAs
 *   on every SM, two an SM, more than it wants the sum in the cluster
 *   (1x4096x11008: 3 shares in clusters 39.3 us, 8 without 32.6; H200,
 *   docs/sm90.md).
 */
long long plan_cluster_split_tiles(int sms)
{
    return cluster_reach(sms) / 2;
}

int plan_split_k(long long tiles, int per_sm, int sms, long long k, int bk, int gemm, int cluster)
{
    const long long slots = (long long)(sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
    long long s;
    if (gemm) {
        s = tiles > 0 && tiles <= slots / 2 ? slots / tiles : 1; /* 2 tiles <= slots, without overflow */
        s = s < 8 ? s : 8;
        s = s < k / 512 ? s : k / 512; /* which is at most k_tiles: bk <= 128 */
        if (cluster && tiles > 0 && tiles <= plan_cluster_split_tiles(sms)) {
            long long c = cluster_reach(sms) / tiles;
            c = c < 8 ? c : 8;
            c = c < k / 128 ? c : k / 128; /* at most k_tiles: bk <= 128 */
            if (c >= 2 && 2 * c >= s)
                s = c;
        }
    } else {
        const long long k_tiles = bk > 0 ? (k + bk - 1) / bk : 0;
        s = tiles > 0 && tiles <= slots / 4 ? slots / tiles : 1;
        s = s < 4 ? s : 4;
        s = s < k_tiles / 4 ? s : k_tiles / 4;
        /* few tiles at long K: eight shares where they stay within one
         * CTA an SM of those a cluster's sum reaches and 512 of K each
         * (the GEMM's floor): 1.06-1.36x on ten layers of 1-13 tiles;
         * at 16 tiles, 128 CTAs past what the clusters reach, the shares
         * summed by a second kernel ran 0.95x (session 38,
         * docs/conv2d_fprop.md) */
        if (tiles > 0 && tiles <= cluster_reach(sms) / 8 && k >= 8 * 512) /* no overflow */
            s = 8;
        /* and at K >= 8192 wherever eight shares a tile fit one wave of
         * CTA slots, the sum by a second kernel past the clusters' reach
         * included: 1.06-1.46x against four shares on eight held-out
         * layers, 1.20-1.34x on three mined ones (session 39) */
        if (tiles > 0 && tiles <= slots / 8 && k >= 8 * 1024) /* no overflow */
            s = 8;
    }
    return s >= 2 ? (int)s : 1;
}

/*
 * The one-warpgroup 64x64 tile on one GEMM problem at K <= 512: no split.
 * Shares of 128-256 of K in a cluster lost to none on every such problem
 * measured, 1.00-1.37x on 16 shapes of 4-51 tiles; held out on eight
 * more, 1.18x (1.09-1.33x; H100, sessions 74-75, docs/sm90.md, "Short
 * shares of the cluster split").
 */
int plan_own_split(const plan_config *c, const plan_kernel *k, long long batch, long long tiles, int sms,
                   long long kk, int cluster)
{
    const int gemm = k->mainloop == EVT_MAINLOOP_GEMM;
    if (c == gemm16.wg_narrow && gemm && batch == 1 && kk <= 512)
        return 1;
    return plan_split_k(tiles, c->min_blocks, sms, kk, c->bk, gemm, cluster);
}
