/* heuristic.h - what the tile heuristics share (plan/heuristic.c, sm80.c,
 * sm90_gemm.c, sm90_conv.c): the GEMM heuristics' tile table, the cost
 * helpers both sm90 heuristics compare configurations with, and each
 * file's entry point.  Internal to plan/. */
#ifndef EVT_PLAN_HEURISTIC_H
#define EVT_PLAN_HEURISTIC_H

#include "plan.h"

#define CFG(name) (&plan_configs[EVT_TILE_##name])

/* Whether c's shared memory fits a block of t. */
static inline int fits(const plan_config *c, const plan_target *t)
{
    return c->smem_bytes <= t->smem_per_block;
}

/* Whether row c (NULL: none) can take kernel k on t at all: its shared
 * memory fits and its mainloop, operands and target allow it. */
static inline int row_runs(const plan_config *c, const plan_target *t, const plan_kernel *k)
{
    return c && fits(c, t) && plan_can_run(c, k, t->target, NULL);
}

/* The GEMM heuristics' tiles: the 16-bit rows, or the fp8 ones.  fp8 has
 * no wide mma.sync tile, and no wgmma tile but the cooperative one, whose
 * consumers add each k tile's products in f32: the others leave K's whole
 * sum to the tensor cores' fp8 accumulation, 4e-3 of the result's scale off
 * at K = 4096 (docs/fp8.md), so they run only when forced (NULL here). */
typedef struct gemm_tiles {
    const plan_config *sync_wide, *sync_mid, *sync_small; /* mma.sync 128x256, 128x128, 64x64 */
    const plan_config *pp, *wg_wide, *wg_mid;             /* sm90 producer/consumer, 128x256, 128x128 */
    const plan_config *staged; /* the producer/consumer tile that stages an [M, N] input */
    const plan_config *staged_narrow; /* the same 64 columns wide, six stages: N <= 64 */
    const plan_config *pp_narrow; /* the 128x64 ping-pong tile, seven stages: N <= 64, nothing staged */
    const plan_config *coop;   /* the cooperative 128x256 producer/consumer tile */
    /* the same in clusters of two; in four stages, for light epilogues, and those in clusters */
    const plan_config *coop_cl, *coop_deep, *coop_deep_cl;
    const plan_config *wg_small; /* the one-warpgroup wgmma 64x128 tile */
    const plan_config *wg_deep;  /* the same, eight stages deep at one CTA an SM */
    const plan_config *pp_cl;    /* pp in clusters of two, where its tile rows pair up */
    const plan_config *pp_deep;  /* pp in six stages, its epilogue in 64 x 32 sub-tiles: long K */
    const plan_config *wg_narrow; /* the one-warpgroup wgmma 64x64 tile, eight stages, one CTA an SM */
    const plan_config *coop_mid;  /* the cooperative 128x192 tile, four stages */
    const plan_config *coop_160;  /* the cooperative 128x160 tile, four stages (K-contiguous operands) */
    const plan_config *wg_row;    /* the two-warpgroup wgmma 128x128 tile, six stages, one CTA an SM */
    const plan_config *pp_deep_cl; /* pp_deep in clusters of two, sharing B by multicast */
    const plan_config *pp_off_cl;  /* pp in clusters of two, for rows off a line (rows_off_line) */
    const plan_config *pp_short_cl; /* the 64-row ping-pong tile in clusters of two (short_pp_serves) */
    /* the swapped one-warpgroup tiles (B's rows as wgmma's M): 16x64, 32x64, 16x128 */
    const plan_config *swap16, *swap32, *swap16_wide;
    /* ... and of 80, 96 and 112 rows, 64 wide (swapped_rows_serves) */
    const plan_config *swap_rows[3];
} gemm_tiles;

/*
 * The work one SM does for a grid of c, counted in whole waves of its tile
 * slots (tile area x tiles in flight per SM, CTAs or a producer/consumer
 * CTA's consumers, x waves), scaled by penalty_pct for tiles that run below
 * (or, negative, above) the others' rate.  The sm90 heuristics take the
 * cheapest.  A double: 2^31 x 2^31 problems have 2^48 tiles, and the
 * product would overflow 64 bits; exact (so ties stay ties) below 2^53.
 */
/* Tiles in flight per SM: a ping-pong producer/consumer CTA's consumers
 * each hold one, a cooperative one's share one, else the CTAs an SM holds. */
/* Whether a conv's tma level (plan.h's PLAN_TMA_*) has maps in k tiles of
 * 64 channels, whole taps or not: all but PLAN_TMA_NONE and PLAN_TMA_K32
 * (maps in k tiles of 32 only). */
static inline int maps_k64(int tma_level)
{
    return tma_level == PLAN_TMA_MAPS || tma_level == PLAN_TMA_PARTIAL_TAPS;
}

static inline int tiles_per_sm(const plan_config *c)
{
    return c->pp ? (plan_config_coop(c) ? 1 : c->pp) : c->min_blocks;
}

static inline double wave_cost(const plan_config *c, long long m, long long n, long long batch, long long sms,
                               int penalty_pct)
{
    const int per_sm = tiles_per_sm(c);
    const long long slots = sms * per_sm;
    const long long tiles = plan_config_batch_tiles(c, m, n, batch);
    const long long waves = tiles / slots + (tiles % slots != 0);
    return (double)waves * c->bm * c->bn * per_sm * (100 + penalty_pct);
}

/* The area of the tiles the busiest SM computes, c's tiles dealt out
 * to the SMs one at a time.  Unlike wave_cost it does not count a
 * ping-pong SM's two consumers as two slots: they share one SM's tensor
 * cores, so a second tile on an SM costs as much as the first
 * (conv_sm90_pick's 448 and 576 filters). */
static inline double sm_area_batch(const plan_config *c, long long m, long long n, long long batch, long long sms)
{
    const long long tiles = plan_config_batch_tiles(c, m, n, batch);
    return (double)(tiles / sms + (tiles % sms != 0)) * c->bm * c->bn;
}

static inline double sm_area(const plan_config *c, long long m, long long n, long long sms)
{
    return sm_area_batch(c, m, n, 1, sms);
}

/* wave_cost, times the k tiles' padding of K where that is an eighth of K
 * or more: a K that is not whole k tiles multiplies zeros in its last one
 * (a conv, 64x28x28x160 -> 160 1x1, K = 160: 56.4 us on 128x256x64 tiles,
 * 36.7 on 128x128x32 ones of the same wave cost; session 32,
 * docs/conv2d_fprop.md).  A smaller padding is left out, unmeasured: it
 * would only break ties that the candidates' order settles now. */
static inline double padded_cost(const plan_config *c, long long m, long long n, long long kk, long long batch,
                                 long long sms, int penalty_pct)
{
    const long long loaded = (kk + c->bk - 1) / c->bk * c->bk;
    const double cost = wave_cost(c, m, n, batch, sms, penalty_pct);
    return kk > 0 && 8 * (loaded - kk) >= kk ? cost * (double)loaded / (double)kk : cost;
}

/* A candidate of a cost comparison and its penalty (wave_cost). */
typedef struct costed {
    const plan_config *c;
    int penalty_pct;
} costed;

/* A candidate's cost (padded_cost's signature); negative: not a candidate. */
typedef double cost_fn(const plan_config *c, long long m, long long n, long long kk, long long batch, long long sms,
                       int penalty_pct);

/* The cheapest of the n candidates that fit t by cost_of, the earliest on
 * equal cost (the list is in order of preference); NULL if none fits. */
static inline const plan_config *cheapest(const costed *cand, int n, cost_fn *cost_of, const plan_target *t,
                                          long long m, long long n_, long long kk, long long batch, long long sms,
                                          double *cost)
{
    const plan_config *best = NULL;
    for (int i = 0; i < n; i++) {
        if (!fits(cand[i].c, t))
            continue;
        const double c = cost_of(cand[i].c, m, n_, kk, batch, sms, cand[i].penalty_pct);
        if (c < 0)
            continue;
        if (!best || c < *cost) {
            best = cand[i].c;
            *cost = c;
        }
    }
    return best;
}

/* Whether the producer/consumer configuration pp gives each of its
 * consumers two tiles or more. */
static inline int two_tiles_a_consumer(const plan_config *pp, long long m, long long n, long long batch,
                                       long long sms)
{
    return plan_config_batch_tiles(pp, m, n, batch) >= 2LL * tiles_per_sm(pp) * sms;
}


/* Whether rows of k 16-bit elements start an odd number of 16-byte pieces
 * into a 128-byte line, half of them (k an odd multiple of 8): each row of
 * a k tile then straddles two lines and shares a sector with the next k
 * tile's row, and the loads' L2 requests multiply, three to five times
 * (session 50, docs/sm90.md, "K an odd multiple of 8"). */
static inline int rows_off_line(long long k)
{
    return k % 16 == 8;
}


/* plan/sm80.c: the mma.sync heuristics, any target */
const plan_config *plan_gemm_sm80_pick(const gemm_tiles *g, const plan_target *t, long long m, long long n,
                                       long long batch, long long sms);
const plan_config *plan_conv_sm80_pick(const plan_target *t, long long m, long long n, long long kk, long long sms);

/* plan/heuristic.c: whether the GEMM heuristic can return row c for
 * kernel k's epilogue at all (plan_candidate's filter; coop_of's too) */
int plan_coop_row_serves(const plan_config *c, const plan_kernel *k);

/* plan/sm90_gemm.c: the wgmma GEMM heuristic */
const plan_config *plan_gemm_sm90_pick(const gemm_tiles *g, const plan_target *t, const plan_kernel *k, long long m,
                                       long long n, long long kk, long long batch, long long sms, int tma);

/* plan/sm90_conv.c: the wgmma conv heuristic (cv: the conv's channels,
 * stride and taps, each 0 where not known), then plan_pick's last word on
 * its 128x128 pick */
const plan_config *plan_conv_sm90_pick(const plan_target *t, long long m, long long n, long long kk,
                                       const plan_conv_view *cv, long long sms, int tma_level, int stageable);
const plan_config *plan_coop_over_pp(const plan_target *t, long long m, long long n, long long kk, long long c,
                                     long long sms, int tma_level, const plan_config *pick);
/* plan/sm90_conv.c: the pick's clustered twin at channels an odd multiple of 8 */
const plan_config *plan_conv_odd8_clusters(const plan_target *t, long long m, long long n, long long kk, long long c,
                                           long long sms, const plan_clusters *resident, int tma_level,
                                           const plan_config *pick);

#endif
