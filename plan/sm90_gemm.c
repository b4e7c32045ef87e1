/* sm90_gemm.c - the wgmma (sm90 family) GEMM heuristic, plan_gemm_sm90_pick:
 * sm_90a, 16-bit operands in any layout, fp8 ones K-contiguous.  Each rule
 * sits beside its measurements' summary; the measurements: docs/sm90.md
 * (and docs/tuning.md, docs/fp8.md). */
#include "heuristic.h"

#include <math.h>

/* Percent of the SM-slot waves c's tiles fill: 100 for whole waves. */
static long long wave_fill_pct(const plan_config *c, long long m, long long n, long long batch, long long sms)
{
    const long long slots = sms * tiles_per_sm(c);
    const long long tiles = plan_config_batch_tiles(c, m, n, batch);
    const long long waves = (tiles + slots - 1) / slots;
    return waves ? (long long)(100.0 * (double)tiles / ((double)waves * (double)slots)) : 100;
}

/* Percent of c's tiles' area inside the m x n problem: 100 for whole tiles. */
static long long tile_area_pct(const plan_config *c, long long m, long long n)
{
    const double tm = (double)((m + c->bm - 1) / c->bm) * c->bm, tn = (double)((n + c->bn - 1) / c->bn) * c->bn;
    return tm > 0 && tn > 0 ? (long long)(100.0 * ((double)m / tm) * ((double)n / tn)) : 100;
}

/* Whether c's tiles pad the m x n problem `points` points of area or more
 * over the ping-pong tile pp's: the padding the wave-based rules do not see. */
static int pads_more(const plan_config *c, const plan_config *pp, long long m, long long n, int points)
{
    return tile_area_pct(c, m, n) + points <= tile_area_pct(pp, m, n);
}

/*
 * Whether the one-warpgroup wgmma 64x128 tile c (two CTAs an SM) takes a
 * small problem in place of the 64x64 mma.sync tile: unsplit, where it has
 * half an SM's worth of tiles (with 96 or more it was 1.3-1.7x faster, with
 * 48 or fewer up to 1.45x slower: a lone tile's latency, 64x64x64 to
 * 512x512x512); split, where its split grid fills half its CTA slots or
 * more (it has half the 64x64 tile's CTAs, and where split-K's cap of 8
 * leaves those few, N of 1024 or less at long K, the 64x64 tile's were up
 * to 17% faster; docs/sm90.md).  On sm_90a (cluster), where its tiles are
 * few enough for split-K's clusters (plan_cluster_split_tiles) and K is
 * 768 or more: always; split in clusters it was as fast as the 64x64 tile
 * or faster on the nine small shapes timed, all with K of 768 or more
 * (1.0-1.96x, docs/sm90.md).
 */
static int small_wgmma_fills(const plan_config *c, long long m, long long n, long long kk, long long batch,
                             long long sms, int cluster)
{
    const long long tiles = plan_config_batch_tiles(c, m, n, batch);
    if (cluster && tiles <= plan_cluster_split_tiles((int)sms) && kk >= 768)
        return 1; /* split in clusters it was as fast or faster: docs/sm90.md */
    const int split = plan_split_k(tiles, c->min_blocks, (int)sms, kk, c->bk, 1, 0);
    /* in doubles: a batch's tiles may saturate at LLONG_MAX */
    return split == 1 ? 2.0 * (double)tiles >= (double)sms
                      : 2.0 * (double)tiles * split >= (double)sms * c->min_blocks;
}

/*
 * Whether the eight-stage one-warpgroup tile c (one CTA an SM) takes a
 * small problem in place of the four-stage one (two an SM): where its own
 * split leaves every CTA 2048 of K or more and its grid one wave.  Such a
 * problem is memory-bound with few CTAs, so what sets its time is the bytes
 * each SM keeps in flight: two k tiles a CTA at four stages, six at eight.
 * With shorter shares the deeper pipeline hardly fills before its share
 * ends, and a second wave of one-CTA-an-SM tiles costs more than the depth
 * saves (docs/sm90.md, "Small memory-bound GEMMs").
 */
static int long_shares_one_wave(const plan_config *c, long long m, long long n, long long kk, long long batch,
                                long long sms, int cluster)
{
    const long long tiles = plan_config_batch_tiles(c, m, n, batch);
    const int split = plan_split_k(tiles, c->min_blocks, (int)sms, kk, c->bk, 1, cluster);
    /* in doubles: a batch's tiles may saturate at LLONG_MAX */
    return (double)tiles * split <= (double)sms * c->min_blocks && kk >= 2048LL * split;
}

/*
 * Whether the eight-stage one-warpgroup tile deep runs unsplit, in one wave
 * at one CTA an SM 90% full or more, a grid that the four-stage one (small,
 * the same tile at two an SM) would split because its doubled slots leave
 * half of them empty: the split adds a sum of the shares and halves each
 * CTA's K, while one CTA of eight stages keeps as many bytes in flight as
 * two of four (1x16384x1024 and 32x16384x1024, bias + GELU: 1.35x and
 * 1.27x faster than split in two; docs/tuning.md).
 */
static int deep_spares_split(const plan_config *deep, const plan_config *small, long long m, long long n,
                             long long kk, long long batch, long long sms, int cluster)
{
    const long long tiles = plan_config_batch_tiles(deep, m, n, batch);
    return 10.0 * (double)tiles >= 9.0 * (double)sms && (double)tiles <= (double)sms &&
           plan_split_k(tiles, deep->min_blocks, (int)sms, kk, deep->bk, 1, cluster) == 1 &&
           plan_split_k(tiles, small->min_blocks, (int)sms, kk, small->bk, 1, cluster) >= 2;
}

/*
 * deep_spares_split's trade from half a wave of its tiles: where the
 * four-stage tile small splits K and the eight-stage tile deep, unsplit,
 * fills half the SMs or more, deep: the shares' sum, and A read again for
 * each share, cost more than the SMs that deep's one wave leaves idle.  One
 * tile row of deep's, or two at K under 1600; past that a held-out set had
 * a loss, and batches were not measured (session 51, docs/sm90.md, "The
 * eight-stage 64x128 tile from half a wave").
 */
static int deep_fills_half(const plan_config *deep, const plan_config *small, long long m, long long n,
                           long long kk, long long batch, long long sms, int cluster)
{
    if (batch != 1 || m > 2 * deep->bm || (m > deep->bm && kk >= 1600))
        return 0;
    const long long tiles = plan_config_batch_tiles(deep, m, n, batch);
    return 2.0 * (double)tiles >= (double)sms && (double)tiles <= (double)sms &&
           plan_split_k(tiles, deep->min_blocks, (int)sms, kk, deep->bk, 1, cluster) == 1 &&
           plan_split_k(tiles, small->min_blocks, (int)sms, kk, small->bk, 1, cluster) >= 2;
}

/*
 * Whether the 64x64 one-warpgroup tile narrow (eight stages, one CTA an SM)
 * takes a small problem in place of the 64x128 tile wide (the four- or
 * eight-stage one plan_gemm_sm90_pick chose): where K is 1280 or less and wide
 * would split K, which narrow's twice as many tiles, in one wave, do not
 * need (or need less).  At such K a share's mainloop is short and the
 * split's sum in the cluster costs about what the split saves; the narrow
 * tile keeps as many bytes in flight a CTA on twice the SMs (1.24-1.43x
 * faster on the four such shapes of session 30's probe: 16x5120x1280,
 * 77x3000x1000, 16x768x768, 333x768x768; 12 of 13 held-out shapes
 * faster, 1.17x geomean, one 0.93x; docs/sm90.md, "A 64x64 tile for
 * small problems").  At K of 1281 to 4096, only where narrow's tiles
 * fill the SMs well without a split or with two shares each: 60% of the
 * SMs or more, or 45-50% (split in two); wide's split is then two or more
 * shares a tile for few tiles (session 32: fitted on 81 small shapes, M
 * of 1 to 512; from 50 to 60% of the SMs, at K over 4096 and with narrow
 * split three ways or more it lost as often as it won, by up to 1.3x; on
 * 32 held-out shapes it moves 1.14x geomean, three of them 3-8% slower;
 * docs/sm90.md, "The 64x64 tile at longer K").
 */
static int narrow_spares_split(const plan_config *narrow, const plan_config *wide, long long m, long long n,
                               long long kk, long long batch, long long sms, int cluster)
{
    const long long tiles = plan_config_batch_tiles(wide, m, n, batch);
    /* in doubles: a batch's tiles may saturate at LLONG_MAX */
    const double narrow_tiles = (double)plan_config_batch_tiles(narrow, m, n, batch);
    const int wide_split = plan_split_k(tiles, wide->min_blocks, (int)sms, kk, wide->bk, 1, cluster);
    if (narrow_tiles > (double)sms || wide_split < 2)
        return 0;
    if (kk <= 1280)
        return 1;
    /* past K = 4096, where wide's tiles are so few that split-K's cap of
     * eight leaves most SMs idle and narrow's, split as far, still fit one
     * wave: twice the CTAs streaming K (session 44, docs/sm90.md) */
    if (kk > 4096 && wide_split >= 8 && narrow_tiles * 8 <= (double)sms)
        return 1;
    const double fill = narrow_tiles / (double)sms;
    return kk <= 4096 && (fill >= 0.6 || (fill >= 0.45 && fill <= 0.5));
}

/* The planner's split-K for GEMM configuration c on sm_90a (its shares
 * summed in clusters where they fit: plan_split_k). */
static int gemm_split(const plan_config *c, long long m, long long n, long long kk, long long sms)
{
    return plan_split_k(plan_config_tiles(c, m, n), c->min_blocks, (int)sms, kk, c->bk, 1, 1);
}

/* A non-persistent GEMM tile's CTAs on sm_90a: its tiles times the
 * planner's split (plan.c's complete) */
static long long split_grid(const plan_config *c, long long m, long long n, long long kk, long long sms)
{
    return plan_config_tiles(c, m, n) * gemm_split(c, m, n, kk, sms);
}

/*
 * Whether the eight-stage one-warpgroup tile deep takes a problem of more
 * than two of its tile rows from the four-stage one small (the same tile,
 * two CTAs an SM), split: where small's split grid fits the SMs at one CTA
 * an SM, its second slot a CTA is left empty, and deep's split grid is no
 * smaller, and each share is twelve k tiles (768 of K) or more.  Each CTA
 * then keeps seven k tiles in flight to three.  long_shares_one_wave takes
 * deep only where a share is 2048 of K or more; shorter shares gained as
 * much.  Session 63 (docs/sm90.md, "Eight stages for split grids of one CTA
 * an SM"): without the share term a held-out set had shares of 880-1609 of
 * K at 1.08-1.33x and those of 188-534, which eight stages barely fill, at
 * 0.90-1.09x; with it, twelve fresh shapes 1.10-1.34x.  The probe's one
 * shape whose small grid ran two CTAs on some SMs lost 0.93x.
 */
static int deep_spares_slots(const plan_config *deep, const plan_config *small, long long m, long long n,
                             long long kk, long long batch, long long sms)
{
    if (batch != 1 || m <= 2 * deep->bm)
        return 0;
    const int s = gemm_split(small, m, n, kk, sms);
    const long long grid = plan_config_tiles(small, m, n) * s;
    return s >= 2 && kk >= 768LL * s && grid <= sms && split_grid(deep, m, n, kk, sms) >= grid;
}

/*
 * The swapped tile for a problem of 32 rows or fewer (M is wgmma's N, B's
 * rows its M: kernels/sm90/pipeline.cuh), or NULL.  Each stage holds B's 64
 * or 128 rows and only 16 or 32 of A, where the 64-row tiles load and
 * multiply 64: the 16x64 tile keeps fourteen k tiles of B in flight in the
 * shared memory in which the 64x64 tile keeps six.
 * - M of 17-32: the 32x64 tile; up to 16, the 16x64 one; either where its
 *   tiles fit one wave (one CTA an SM), K is 768 or more (or any, short_k,
 *   where the alternative is mma.sync's 64x64 tile), one problem,
 *   K-contiguous 16-bit operands on the fast path (tma: aligned rows).
 * - The 16x128 tile in place of the 16x64 one where its tiles are 20 or
 *   fewer (split in clusters, each CTA keeps twice the bytes in flight) and
 *   its split grid is no smaller.
 * plan_gemm_sm90_pick takes it only where its split grid outnumbers the 64-row
 * pick's (swapped_outruns).  Sessions 45-46 (docs/sm90.md, "Swapped tiles
 * for M of 32 or less"): on the guarded path, where one warpgroup loads B
 * element by element, the 16x128 tile ran 0.66x of the 64x64 one
 * (3x524x11441); 4x635x6328, its 5 tiles split eight ways against the
 * 16x64 tile's 10 as far, ran 0.90x.
 */
/* The terms every swapped tile of M up to 32 is taken on: one problem of
 * K-contiguous 16-bit operands with aligned rows (tma) on sm_90a, K of 768
 * or more unless short_k says the alternative is mma.sync's tile. */
static int swap_terms(const gemm_tiles *g, const plan_target *t, const plan_kernel *k, long long kk,
                      long long batch, int tma, int short_k)
{
    return g->swap16 && tma && batch == 1 && (kk >= 768 || short_k) && k->k_contiguous &&
           t->target == EVT_TARGET_SM90A;
}

static const plan_config *swapped_serves(const gemm_tiles *g, const plan_target *t, const plan_kernel *k,
                                         long long m, long long n, long long kk, long long batch, long long sms,
                                         int tma, int short_k)
{
    if (!swap_terms(g, t, k, kk, batch, tma, short_k) || m > g->swap32->bm)
        return NULL;
    const plan_config *c = m > g->swap16->bm ? g->swap32 : g->swap16;
    const long long tiles = plan_config_tiles(c, m, n);
    if (!row_runs(c, t, k) || tiles > sms)
        return NULL;
    /* the 16x128 tile: few tiles, split in clusters, but not on fewer CTAs
     * than the 16x64 tile's split grid */
    if (c == g->swap16 && fits(g->swap16_wide, t) && plan_config_tiles(g->swap16_wide, m, n) <= 20 &&
        split_grid(g->swap16_wide, m, n, kk, sms) >= split_grid(c, m, n, kk, sms))
        return g->swap16_wide;
    return c;
}

/* The bytes of B (the weight, most of a small problem's bytes) a CTA of c
 * keeps in flight: its stages but the one being multiplied */
static long long b_in_flight(const plan_config *c)
{
    return (long long)(c->stages - 1) * c->bn * c->bk * c->op_bytes;
}

/*
 * Whether the swapped 16x128 tile takes M of 16 or less where the 16x64
 * tile's tiles would run past one wave (N over 64 an SM) and the pick is the
 * four-stage 64x128 tile, split or not.  Such a problem is memory-bound on
 * B: the 16x128 tile's tiles fit one wave, each CTA keeping eleven k tiles
 * of B in flight, where the pick's CTAs keep three; so where its grid keeps
 * more of B in flight in all (b_in_flight).  Where the 16x64 tile fits a
 * wave it was as fast or faster, and the eight-stage pick at long K about
 * even with the 16x128 tile, so both keep their rows (sessions 45 and 51,
 * docs/sm90.md, "The swapped 16x128 tile past the 16x64 tile's wave").
 */
static int wide_swap_serves(const gemm_tiles *g, const plan_target *t, const plan_kernel *k,
                            const plan_config *pick, long long m, long long n, long long kk, long long batch,
                            long long sms, int tma)
{
    const plan_config *c = g->swap16_wide;
    if (!row_runs(c, t, k) || pick != g->wg_small || !swap_terms(g, t, k, kk, batch, tma, 0) || m > c->bm)
        return 0;
    if (plan_config_tiles(g->swap16, m, n) <= sms || plan_config_tiles(c, m, n) > sms)
        return 0;
    return split_grid(c, m, n, kk, sms) * b_in_flight(c) >= split_grid(pick, m, n, kk, sms) * b_in_flight(pick);
}

/*
 * Whether the swapped 16x128 tile takes M of 16 or less from the eight-stage
 * 64x128 pick where its tiles fill three fifths of the SMs or fewer.  The
 * two tile N alike, so their grids match; the 16x128 tile keeps eleven k
 * tiles of B in flight a CTA to the pick's seven, which pays where the grid
 * leaves SMs idle and the bytes in flight are what the problem waits on.
 * Probe (session 62, twelve shapes, docs/sm90.md, "M of 16 or less at the
 * eight-stage 64x128 pick"): 1.00-1.40x over the pick at 34-77 tiles,
 * 0.94-1.02x at 84-101.  Held out (session 63): 1.02-1.08x on twelve fresh
 * shapes, every run faster, 1.04x in geomean where 1.06x was asked.
 */
static int deep_swap_serves(const gemm_tiles *g, const plan_target *t, const plan_kernel *k, long long m,
                            long long n, long long kk, long long batch, long long sms, int tma)
{
    const plan_config *c = g->swap16_wide;
    return row_runs(c, t, k) && swap_terms(g, t, k, kk, batch, tma, 0) && m <= c->bm &&
           5 * plan_config_tiles(c, m, n) <= 3 * sms;
}

/*
 * Whether the swapped tile (swapped_serves) keeps more of B in flight than
 * the 64-row pick: more CTAs, or as many with more bytes each.  The swapped
 * tile keeps more of B in flight a CTA, but not enough to make up for SMs
 * left idle: over 48 held-out shapes every one that ran under 0.95x of the
 * old pick had fewer CTAs than it (15x2810x6048, 88 against 110, 0.89x);
 * at equal grids the eight-stage 64x128 tile, more of B in flight a CTA
 * than the 32x64 tile, won (32x5828x8920, 92 CTAs each, 0.94x), where the
 * 16x64 tile, more than the 64x64 one, won (16x4096x4096 1.22x).  Held
 * out (session 46, docs/sm90.md): 1.12x geomean over the old pick on 16
 * fresh shapes, the least 1.02x.
 */
static int swapped_outruns(const plan_config *swapped, const plan_config *pick, long long m, long long n,
                           long long kk, long long sms)
{
    const long long ours = split_grid(swapped, m, n, kk, sms), theirs = split_grid(pick, m, n, kk, sms);
    return ours > theirs || (ours == theirs && b_in_flight(swapped) > b_in_flight(pick));
}

/*
 * The swapped 64-wide tile of M rounded up to 16 rows (80, 96 or 112) in
 * place of the one-warpgroup 64x128 tile for M of 65-112, or NULL.  Such a
 * problem is memory-bound on B; the 64x128 tile takes it in two rows, so
 * each B tile is loaded twice, and the swapped tile in one, as many tiles
 * (half as wide), B loaded once and BM + 64 rows a stage to its 192.
 * Only where the swapped plan's split grid is one wave, no smaller than 90%
 * of the pick's, and splits no more ways; nor where it splits five to seven
 * ways over more than four fifths of the SMs: clusters of that many
 * one-CTA-an-SM CTAs reached about 105 of the H200's 132 (the runtime's
 * cluster_split declines the rest), and summed by the second kernel
 * instead the shares lost (96x1104x2192, six ways over 108 CTAs, 0.89x).
 * K of 2048 or more, one problem, K-contiguous aligned operands (the
 * swapped tiles' own terms): under K = 2048 a share's mainloop is short and
 * swapped tiles lost as often as they won (0.62-1.18x on nine shapes).
 * The 128-wide swapped tiles in place of the two-warpgroup 128x128 tile's
 * row, the same tiling, were 0.92-1.31x on two held-out sets and are left
 * to tuning and forcing.  Session 49 (docs/sm90.md, "Swapped tiles for M
 * of 65-112").
 */
static const plan_config *swapped_rows_serves(const gemm_tiles *g, const plan_target *t, const plan_kernel *k,
                                              const plan_config *pick, long long m, long long n, long long kk,
                                              long long batch, long long sms, int tma)
{
    if (!g->swap_rows[0] || (pick != g->wg_small && pick != g->wg_deep) || !tma || m <= 64 || m > 112 ||
        kk < 2048 || batch != 1 || !k->k_contiguous || t->target != EVT_TARGET_SM90A)
        return NULL;
    const plan_config *c = g->swap_rows[(m - 65) / 16];
    if (!row_runs(c, t, k))
        return NULL;
    const long long our_tiles = plan_config_tiles(c, m, n), their_tiles = plan_config_tiles(pick, m, n);
    if (our_tiles < 1 || their_tiles < 1) /* N = 0: nothing to load */
        return NULL;
    const int split = gemm_split(c, m, n, kk, sms), their_split = gemm_split(pick, m, n, kk, sms);
    const long long ours = our_tiles * split, theirs = their_tiles * their_split;
    if (split >= 5 && split <= 7 && 5 * ours > 4 * sms)
        return NULL;
    return ours <= sms && 10 * ours >= 9 * theirs && split <= their_split ? c : NULL;
}

/*
 * Whether the two-warpgroup 128x256 tile, split along K, takes a problem
 * that swapped_rows_serves gave a swapped 64-wide tile (M of 65-112, K of
 * 2048 or more), where K's rows start off a line (rows_off_line).  The
 * swapped tile rereads A's BM rows for every
 * 64 rows of B; the 128x256 tile, split along K, reads them once for 256
 * and fewer bytes a CTA, and loses less to the offset; at K a multiple of
 * 16 it lost.  Only where that split is two to four ways (clusters of
 * five to seven one-CTA-an-SM CTAs are often declined:
 * swapped_rows_serves) and a CTA loads at most four fifths of the bytes
 * a k element that the swapped tile's does.  Session 50, held out 1.163x
 * (docs/sm90.md, "K an odd multiple of 8").
 */
static int wide_split_serves(const gemm_tiles *g, const plan_target *t, const plan_kernel *k,
                             const plan_config *rows, long long m, long long n, long long kk, long long sms)
{
    const plan_config *w = g->wg_wide;
    if (!rows_off_line(kk) || !w || !fits(w, t) || !plan_can_run(w, k, t->target, NULL))
        return 0;
    /* (no tiles, N = 0: plan_split_k gives 1, so no split) */
    const int split = gemm_split(w, m, n, kk, sms), their_split = gemm_split(rows, m, n, kk, sms);
    if (split < 2 || split > 4)
        return 0;
    /* a CTA's bytes a k element: A's rows (at most M) and B's */
    const double ours = (double)((m < w->bm ? m : w->bm) + w->bn) / split;
    const double theirs = (double)((m < rows->bm ? m : rows->bm) + rows->bn) / their_split;
    return 5.0 * ours <= 4.0 * theirs;
}

/*
 * Whether the 128-row one-CTA-an-SM tile row takes a small problem in place
 * of the one-warpgroup tile small (64 rows) that the rules above chose: M
 * of 65 to 128 is one row of row's tiles and two of small's, so row loads
 * each B tile (the weight, most of the problem's bytes) once and small
 * twice.  Not where that saving does not pay for what row costs:
 * - small runs unsplit in one wave 90% full or more: its second tile row
 *   reads B from L2 in the same wave, while row must split K to fill the
 *   SMs;
 * - row's split grid fills under half the SMs, or splits six ways or more:
 *   the shares' sum outgrows the saved loads;
 * - small is deep (the eight-stage 64x128 tile), unsplit, and row splits, at K
 *   under 6144: the same sum against one deep pass;
 * - K under 2048, and batches: not measured.
 * docs/sm90.md ("One tile row for M of 65-128", session 44) has the probe
 * and both held-out sets.
 */
static int one_row_serves(const plan_config *row, const plan_config *small, const plan_config *deep, long long m,
                          long long n, long long kk, long long batch, long long sms, int cluster)
{
    if (batch != 1 || m <= small->bm || m > row->bm || kk < 2048)
        return 0;
    const long long small_tiles = plan_config_tiles(small, m, n);
    const int small_split = plan_split_k(small_tiles, small->min_blocks, (int)sms, kk, small->bk, 1, cluster);
    if (small_split == 1 && 10 * small_tiles >= 9 * sms && small_tiles <= sms)
        return 0;
    const long long tiles = plan_config_tiles(row, m, n);
    const int split = plan_split_k(tiles, row->min_blocks, (int)sms, kk, row->bk, 1, cluster);
    if (small == deep && small_split == 1 && split > 1 && kk < 6144)
        return 0;
    return split <= 5 && 2.0 * (double)tiles * split >= (double)sms;
}

/* M's tile rows of clustered row cl, stacked to whole clusters: the last
 * cluster's CTAs past M only feed the multicast */
static long long stacked_rows(const plan_config *cl, long long m)
{
    const long long rows = (m + cl->bm - 1) / cl->bm;
    return (rows + cl->cluster - 1) / cl->cluster * cl->cluster;
}

/*
 * Whether clustered row cl (clusters of cl->cluster tiles stacked along M)
 * runs in as many waves as its tiles would alone: a number of tile rows
 * that its clusters do not divide leaves a CTA of each last cluster without
 * a tile, and those can add a wave (333x11008x4096, D = acc: three tile rows
 * in clusters of two ran 94.3 us, in two waves, against 60.3 unclustered;
 * six held-out shapes of odd tile rows 1.11-1.18x faster unclustered;
 * session 32, docs/sm90.md, "Clusters only where they add no wave").
 */
static int cluster_keeps_waves(const plan_config *cl, long long m, long long n, long long batch, long long sms)
{
    const long long stacked = stacked_rows(cl, m);
    /* in doubles: a batch's tiles may saturate at LLONG_MAX */
    const double slots = (double)sms * tiles_per_sm(cl);
    return ceil((double)plan_config_batch_tiles(cl, stacked * cl->bm, n, batch) / slots) <=
           ceil((double)plan_config_batch_tiles(cl, m, n, batch) / slots);
}

/* Whether clustered row cl's CTAs (its tiles stacked to whole clusters)
 * fit as many waves of one CTA an SM as its tiles alone, which
 * cluster_keeps_waves, counting tile slots, does not see: below a wave,
 * the CTAs a cluster adds past the SMs run a second cluster's tiles, the
 * kernel's time twice over (session 51, docs/sm90.md). */
static int cluster_keeps_cta_waves(const plan_config *cl, long long m, long long n, long long sms)
{
    const double rows = (double)((m + cl->bm - 1) / cl->bm), cols = (double)plan_config_tiles(cl, 1, n);
    return ceil((double)stacked_rows(cl, m) * cols / (double)sms) <= ceil(rows * cols / (double)sms);
}

/* Whether clustered row cl (NULL: none) can take the problem at all: it
 * fits and runs on t, and its clusters add no wave (cluster_keeps_waves). */
static int cluster_row_serves(const plan_config *cl, const plan_target *t, const plan_kernel *k, long long m,
                              long long n, long long batch, long long sms)
{
    return row_runs(cl, t, k) && cluster_keeps_waves(cl, m, n, batch, sms);
}

/* Whether coop_of's four-stage row (coop_deep) can take the problem: K in
 * whole k tiles and N a multiple of 8 */
static int coop_deep_runs(const gemm_tiles *g, const plan_target *t, const plan_kernel *k, long long n, long long kk)
{
    return kk % g->coop->bk == 0 && n % 8 == 0 && g->coop_deep && plan_can_run(g->coop_deep, k, t->target, NULL);
}

/*
 * The cooperative 128x256 tile, once plan_gemm_sm90_pick's rules take it
 * (tail: they split its last wave along K; a clustered plan has none):
 * - K under 2048 and not a multiple of 64 (its rows not whole 128-byte
 *   lines), K-contiguous operands: in clusters of two, which halve B's
 *   loads (each box row straddles one more line; a likely reason, not
 *   checked), whatever the epilogue.  And at any K that is an odd
 *   multiple of 8, whose rows start 16 bytes off a line: there the TMA
 *   loads issued five times the L2 requests, which the multicast halves
 *   for B (session 50: 1.142x over the unclustered row or the cp.async
 *   128x256 tile on 14 held-out shapes; docs/sm90.md, "K an odd multiple
 *   of 8").
 * - A light epilogue (plan_light_epilogue), K a multiple of 64, N a
 *   multiple of 8: the four-stage row, whose epilogue runs 32 columns at a
 *   time so that the fourth 48 KB stage fits; in clusters of two where K
 *   is 2048 or more, K-contiguous and no tail is split.  The deeper ring
 *   keeps the tensor cores fed where the epilogue is short (session 31:
 *   bias + ReLU 3-8% faster than three stages at K of 64 to 2048 on seven
 *   held-out batched shapes, 768x768x64 L 192 to 256x11008x2048 L 8; in
 *   clusters it was slower below K = 2048; docs/sm90.md); a GELU or
 *   a residual ran slower in four stages (more barriers, and then eight
 *   inlined copies of the epilogue: one since session 23, after which a
 *   GELU ran as fast as in three stages at 4096^3 and still slower at K =
 *   256 and 1280; not re-fitted), and so did a light epilogue at K = 1000
 *   or on rows not 16-byte aligned (N = 1500: the epilogue's guarded path).
 * - An epilogue of costly builtins but otherwise per element
 *   (plan_per_element_epilogue: a GELU on acc + bias), K of 4096 or more,
 *   the rest as above: the four-stage row, without clusters.  Re-fitted in
 *   session 26: a GELU, exact or under fast math, ran as fast in four
 *   stages as in three at 4096^3 and 16384x1024x4096, and 1.02-1.06x
 *   faster at 4096x14336x4096, 8192x4096x14336 (and 3000x5000x4000, whose
 *   K is not whole k tiles: left to three stages, as a light one's);
 *   in clusters it was as fast or up to 3% slower, once 3% faster.
 * - A tanh GELU or SiLU under fast math (fast_light), K of 1024 or more,
 *   the rest as above: the four-stage row, without clusters (session 65:
 *   1.00-1.07x over three stages on fifteen held-out shapes).
 * docs/sm90.md has the measurements.
 */
static const plan_config *coop_of(const gemm_tiles *g, const plan_target *t, const plan_kernel *k, long long m,
                                  long long n, long long kk, long long batch, long long sms, int tail)
{
    /* K in whole k tiles: rows of whole 128-byte lines */
    const int whole = kk % g->coop->bk == 0;
    /* and rows off a line at any K (session 50: the clusters' multicast
     * halves the L2 requests the offset multiplies) */
    if (((!whole && kk < 2048) || rows_off_line(kk)) && !tail && g->coop_cl &&
        plan_can_run(g->coop_cl, k, t->target, NULL) && cluster_keeps_waves(g->coop_cl, m, n, batch, sms))
        return g->coop_cl;
    /* four stages: the list above (fast_light under K = 1024 was not
     * measured) */
    const int deep = k->light || (k->fast_light && kk >= 1024) || (k->per_element && kk >= 4096);
    if (!deep || !coop_deep_runs(g, t, k, n, kk))
        return g->coop;
    if (!tail && kk >= 2048 && g->coop_deep_cl && plan_coop_row_serves(g->coop_deep_cl, k) &&
        plan_can_run(g->coop_deep_cl, k, t->target, NULL) && cluster_keeps_waves(g->coop_deep_cl, m, n, batch, sms))
        return g->coop_deep_cl;
    return g->coop_deep;
}

/*
 * Whether the cooperative 128x192 tile takes the problem, ahead of the
 * 128x256 and ping-pong tiles: K of 512 or more, N 85% inside its tiles
 * or more, its waves 70% full or more and at least ten points fuller than
 * the 128x256 tile's (whose m64n256 wgmmas it otherwise matches area for
 * area: at 4096^3 a 128x192 wave took 40 us, a 128x256 one 56).  H200 (session 31, bench/ab.py,
 * bias + GELU / D = acc against the pick): one wave of its tiles where the
 * others ran one and a bit or left a third of the SMs idle, 1.22-1.34x
 * (1000x2560x2560 fill 85%, 1024x3072x4096, 2048x1536x4096, 640x4992x4096,
 * 1152x2304x3072 82%, 1000x2496x4096 79%, 768x3072x2048 73%); two or three
 * nearly full waves 1.00-1.11x (8192x768x768, 4096x1536x2048, 3072^3,
 * 333x14336x4096 85%), and at K of 512-704 0.99-1.11x; at 4096^3 (fill 89%
 * against 97%) 0.93 / 0.89x, so not there (docs/sm90.md, "A 128x192 tile
 * for whole waves").
 */
static int mid_fills_waves(const gemm_tiles *g, const plan_target *t, const plan_kernel *k, long long m,
                           long long n, long long kk, long long batch, long long sms)
{
    /* (plan_can_run: sm_90a's wgmma, and the target's shared memory) */
    if (!g->coop_mid || !g->coop || kk < 512 || !plan_can_run(g->coop_mid, k, t->target, NULL))
        return 0;
    const long long fill = wave_fill_pct(g->coop_mid, m, n, batch, sms);
    /* N at least 85% inside its 192-column tiles: N = 256 in two of them
     * would spend a third of their MMAs on padding (every N measured was
     * 95% inside or more) */
    const long long cols = plan_config_tiles(g->coop_mid, 1, n) * g->coop_mid->bn;
    return fill >= 70 && fill >= wave_fill_pct(g->coop, m, n, batch, sms) + 10 && 100 * n >= 85 * cols;
}

/*
 * The cooperative 128x256 row for a problem whose ping-pong tiles run two
 * rounds of CTAs, one an SM (the consumers' mainloops take turns, so a CTA
 * with two tiles runs two mainloops one after the other), where the
 * cooperative tile's own tiles run one, or at K of 4096 or more four
 * rounds against two (about even at shorter K), and pad N no more than
 * five points over the ping-pong tile's (NULL where it does not serve): at
 * K an odd multiple of 8 in clusters of two where they add no round
 * (coop_of's rule), else in four stages (N a multiple of 8) or three.
 * Only for an exact GELU's kind of epilogue (per element, neither light
 * nor fast_light) and one problem, as measured (session 52, docs/sm90.md,
 * "The cooperative tile for the ping-pong tile's second round").
 */
static const plan_config *coop_round_of(const gemm_tiles *g, const plan_target *t, const plan_kernel *k,
                                        long long m, long long n, long long kk, long long batch, long long sms)
{
    const plan_config *c = g->coop, *pp = g->pp;
    if (k->fp8 || k->light || k->fast_light || !k->per_element || batch != 1 || t->target != EVT_TARGET_SM90A ||
        !row_runs(c, t, k))
        return NULL;
    /* rounds of CTAs, one an SM */
    const long long pp_rounds = (plan_config_tiles(pp, m, n) + sms - 1) / sms;
    const long long rounds = (plan_config_tiles(c, m, n) + sms - 1) / sms;
    if (!((pp_rounds == 2 && rounds == 1) || (pp_rounds == 4 && rounds == 2 && kk >= 4096)) ||
        pads_more(c, pp, m, n, 5))
        return NULL;
    /* (a cooperative CTA holds one tile: cluster_row_serves counts CTAs) */
    if (rows_off_line(kk) && cluster_row_serves(g->coop_cl, t, k, m, n, batch, sms))
        return g->coop_cl;
    if (n % 8 == 0 && row_runs(g->coop_deep, t, k))
        return g->coop_deep;
    return c;
}

/* gemm_sm90_base's test for the six-stage ping-pong row in clusters of
 * two at K >= 2048 (its comment there says why), for n_fit_of too */
static int deep_cluster_serves(const gemm_tiles *g, const plan_target *t, const plan_kernel *k, long long m,
                               long long n, long long kk, long long batch, long long sms)
{
    const plan_config *pp = g->pp;
    const long long pp_rows = (m + pp->bm - 1) / pp->bm;
    const double pp_tiles = (double)plan_config_batch_tiles(pp, m, n, batch);
    return kk >= 2048 && pp_rows > 1 && pp_rows != 3 && batch == 1 &&
           cluster_row_serves(g->pp_deep_cl, t, k, m, n, batch, sms) &&
           (cluster_keeps_cta_waves(g->pp_deep_cl, m, n, sms) || (rows_off_line(kk) && pp_tiles > (double)sms));
}

/*
 * Where K (768-2047) is not whole k tiles, so that coop_of would take the
 * cooperative 128x256 row in clusters of two, and the epilogue is a tanh
 * GELU or a SiLU under fast math (fast_light): the four-stage ping-pong
 * row in clusters of two, which hides one consumer's cheap epilogue under
 * the other's mainloop and, like the cooperative row, halves B's loads by
 * multicast.  Probed on five shapes of two tiles a consumer or more
 * (1.05-1.17x), held out on twelve (1.158x in geomean, none under
 * 1.029x); the six-stage clustered row lost up to 1.4x where N is
 * not a multiple of 8, and with the exact GELU, the erf GELU under fast
 * math or D = acc the ping-pong rows were as fast or slower (session 61,
 * docs/sm90.md).  Not with three tile rows or fewer, nor where the
 * clusters add a wave of tiles or of CTAs (the odd-8 rule's terms).
 */
static int off_tiles_pp_serves(const gemm_tiles *g, const plan_target *t, const plan_kernel *k, long long m,
                               long long n, long long kk, long long batch, long long sms)
{
    const plan_config *cl = g->pp_off_cl;
    return k->fast_light && batch == 1 && kk >= 768 && kk < 2048 && cl && kk % cl->bk != 0 &&
           m > 3 * cl->bm && cluster_row_serves(cl, t, k, m, n, batch, sms) &&
           cluster_keeps_cta_waves(cl, m, n, sms);
}

static int split_row_serves(const plan_config *row, const plan_config *small, const plan_target *t,
                            const plan_kernel *k, long long m, long long n, long long kk, long long batch,
                            long long sms);

/*
 * Where the eight-stage 64x128 tile takes a problem of few 128-row tiles
 * (gemm_sm90_base, session 28's rule) and N is 512 or less, with a light
 * epilogue or a tanh GELU or SiLU under fast math: the 64-row ping-pong
 * tile in clusters of two, TMA loads, B's tile multicast to the pair, each
 * consumer's cheap epilogue under the other's mainloop.  Probed on four
 * such shapes (M 1216-2712, N 344-480, K 1592-3328, gelu_tanh): 1.00-1.23x;
 * held out on twelve, 1.159x with gelu_tanh and 1.154x with D = acc in
 * geomean, none under 0.98x (session 62, docs/sm90.md, "The 64-row
 * ping-pong tile at small N"); session 54 had it up to 1.8x slower at N of
 * 2096-4576 with the exact GELU, one tile a CTA, where the clusters'
 * stacks add a round.
 */
static int short_pp_serves(const gemm_tiles *g, const plan_target *t, const plan_kernel *k, long long m,
                           long long n, long long kk, long long batch, long long sms)
{
    const plan_config *cl = g->pp_short_cl;
    /* (not where plan_gemm_sm90_pick would split the 128x128 row in its place) */
    return (k->light || k->fast_light) && batch == 1 && n <= 512 && cl && m > cl->bm &&
           cluster_row_serves(cl, t, k, m, n, batch, sms) &&
           !split_row_serves(g->wg_row, g->wg_deep, t, k, m, n, kk, batch, sms);
}

/*
 * sm90 GEMM (any layout of 16-bit operands, fp8 ones K-contiguous; fitted
 * on A row-major, B column-major, and taken as it is for the transposed
 * wgmma's layouts).  Fitted to every plan's time on 81 shapes (M from
 * 1 to 16384 against transformer and square N x K; bench/tune_sweep.py,
 * docs/tuning.md):
 * - Where the epilogue reads a 16-bit [M, N] input, K is at most two k tiles,
 *   N over 64 and every consumer of the staged tile gets two tiles, that
 *   tile (the conv's rule: a 1x1 conv is such a GEMM).
 * - Where tma is set and K is longer than two k tiles, the cooperative
 *   128x192 tile where its waves are much fuller (mid_fills_waves).
 * - Where tma is set, K is 2048 or more and the cooperative 128x256 tile's
 *   last wave is a quarter of the SMs or less, that tile with the last wave
 *   split along K in clusters (plan_coop_tail).
 * - Where tma is set and K is longer than two k tiles, the producer/consumer
 *   tile once every consumer gets two tiles or more: the cooperative 128x256
 *   one where K is 768 or more and its waves are 90% full or more (its
 *   m64n256 wgmmas ran 1.01-1.27x faster than the ping-pong tile there,
 *   0.89-0.95x where its last wave was 73-87% full, and 0.91-1.01x at
 *   K <= 512, where the ping-pong tile hides one consumer's epilogue behind
 *   the other's mainloop; docs/sm90.md), else the ping-pong one; and the
 *   ping-pong one too where the cooperative tile's last column is half
 *   empty (five points more of its area padding), or K is 768-2047 in
 *   whole k tiles with at most twelve ping-pong tiles an SM (session 35).
 *   Which row of the cooperative tile: coop_of; of the ping-pong tile: six
 *   stages where K is 2048 or more, or 768 or more with two of its tiles
 *   an SM (below).
 * - K of at most two k tiles (memory-bound) with eight or more of the
 *   cooperative tile's tiles an SM, 90% of their area inside the problem:
 *   that tile, whose producer loads the next tile's operands while the
 *   consumers store this one's results (batched attention-like GEMMs,
 *   512x512x64 L 256 to 2048x2048x128 L 32: 1.06-1.2x faster than the
 *   128x128 tile at two CTAs per SM; even at 8192x8192x128; with fewer
 *   tiles (4096x4096x64: 3.9 an SM, 3% slower), or half-empty ones (up to
 *   1.5x slower), it lost; docs/sm90.md).
 * - Below that, with K of 1024 or more, M of a whole tile row or more and at
 *   least 0.3 SMs' worth of its tiles, still the producer/consumer tile: its
 *   persistent walk wastes no partial wave, where 64x64 tiles lost up to
 *   2.1x and the 128x256 tile up to 1.4x.  Except where the 128x256 tile
 *   fills its waves to 85% or more: there it was as fast or up to 8% faster
 *   (but not where its last column pads five points more of its area than
 *   the ping-pong tile's: session 46).
 *   And except where its tiles are for half the SMs or fewer: there the
 *   eight-stage one-warpgroup 64x128 tile, one wave of twice the CTAs
 *   (session 28).
 *   With K of 512 to 1023 the same once the 128x256
 *   tile would run more than one wave at less than 85%: 1.12-1.16x faster
 *   than that tile on the four such shapes of session 22's sweep of 30 at
 *   K 512-1000 (1.01-1.16x on two held-out shapes, two epilogues each),
 *   while within one wave it stayed the faster.  And where K is not whole
 *   k tiles, with the ping-pong tile's tiles filling more than half of one
 *   wave (session 30): that tile, in place of the one-warpgroup 64x128 one.
 * - Otherwise as the sm80 heuristic: small problems take 64x64 tiles and
 *   split-K (M of 32 or less, or few tiles, or short K), or the
 *   one-warpgroup wgmma 64x128 tile where small_wgmma_fills says (eight
 *   stages deep where long_shares_one_wave or deep_spares_split says, else
 *   four; the 64x64 one where narrow_spares_split says); where it
 *   takes a 128-wide tile, the wgmma 128x256 tile or, where its waves cost
 *   less (or as much, with K of at most two k tiles), the wgmma 128x128
 *   tile at two CTAs per SM.
 * - Then, over whichever 128-row wgmma tile these take at K >= 1024, the
 *   narrower cooperative tiles by area (plan_gemm_sm90_pick, session 47).
 */
static const plan_config *gemm_sm90_base(const gemm_tiles *g, const plan_target *t, const plan_kernel *k,
                                         long long m, long long n, long long kk, long long batch, long long sms,
                                         int tma)
{
    const plan_config *pp = g->pp, *wide = g->wg_wide;
    /* fp8's cooperative tile in clusters of two once M has two tile rows:
     * each CTA loads half of the B tile the two share; 1-5% faster on the
     * eight shapes measured, never slower (docs/fp8.md; all had an even
     * number of tile rows), unless the clusters add a wave (as the 16-bit
     * rows', cluster_keeps_waves: not measured on fp8) */
    const plan_config *pp_pick =
        tma && m > pp->bm && cluster_row_serves(g->pp_cl, t, k, m, n, batch, sms) ? g->pp_cl : pp;
    /* in doubles: a batch's tiles may saturate at LLONG_MAX */
    const double pp_tiles = (double)plan_config_batch_tiles(pp, m, n, batch);
    /* K of 2048 or more, or of 768 or more with a tile for each consumer
     * of every SM: the ping-pong tile in six stages, whose deeper ring kept
     * its consumers' wgmmas fed (1.06-1.16x faster than in four on the five
     * shapes measured at K of 2048 or more, D = acc and GELU alike; at K of
     * 768-1536 with 640 tiles or more 0.997-1.12x on eight shapes, two
     * epilogues each, session 35).  With a wave of tiles or less it lost at
     * K of 1000 and 1280 (0.90-0.92x with a GELU), and at K of 256-512 it
     * was as fast or up to 1.1x slower: its epilogue's sixteen sub-tiles
     * cost more than the depth saves (docs/sm90.md) */
    if (pp_pick == pp && (kk >= 2048 || (kk >= 768 && pp_tiles >= 2.0 * (double)sms)) &&
        row_runs(g->pp_deep, t, k))
        pp_pick = g->pp_deep;
    /* and at K of 2048 or more, with two tile rows or more, in clusters of
     * two, each pair of M tiles sharing B's tile by multicast, where the
     * clusters add no wave (session 46, docs/sm90.md): faster than
     * unclustered on twelve of fifteen such shapes of a random tuning
     * sweep, where with one tile row (the peer's tile empty) it lost up to
     * 1.9x; held out, 1.067x in geomean over twelve shapes (0.98-1.26x),
     * and 1.165x over ten more at K of 8192-16384 (1.005-1.30x).  Not
     * with three tile rows, a quarter of the CTAs only loading (as the
     * odd-8 rule below), nor where the stacked CTAs pass a multiple of the
     * SMs that the tiles alone do not (cluster_keeps_cta_waves), a CTA
     * then running two tiles' mainloops one after the other; but at K an
     * odd multiple of 8 past a wave of tiles the multicast's halved L2
     * requests still outweighed that round (session 52, docs/sm90.md,
     * "The clustered ping-pong tile's CTA rounds") */
    if (pp_pick == g->pp_deep && deep_cluster_serves(g, t, k, m, n, kk, batch, sms))
        pp_pick = g->pp_deep_cl;
    /* K an odd multiple of 8 from 512: the ping-pong row in clusters of
     * two, each CTA loading half of the B tile the pair shares, where the
     * clusters add no wave, of tiles or of CTAs.  The rows' offset
     * multiplies the loads' L2 requests and the multicast halves B's (the
     * cooperative tile's rule in coop_of).  Not below K = 512 (about even),
     * nor with three tile rows (a quarter of the CTAs would only load), nor
     * with fewer than eight rows in under a wave of tiles, where clusters
     * were no faster (session 51, docs/sm90.md, "K an odd multiple of 8:
     * the ping-pong tile in clusters of two").  The six-stage row's twin
     * is the four-stage one where N is not a multiple of 8 below K = 2048:
     * there every tile runs the checked epilogue, through sixteen
     * sub-tiles in six stages, and that cost 1.14-1.63x at K of 1080-1848
     * (session 61); held out on twelve shapes, 1.088x with a GELU and
     * 1.102x with D = acc (session 62, docs/sm90.md, "Six stages at ragged
     * N") */
    if (rows_off_line(kk) && kk >= 512 && tma && m > 3 * pp->bm && batch == 1 &&
        (m > 7 * pp->bm || pp_tiles > (double)sms)) {
        const plan_config *deep_twin = n % 8 == 0 || kk >= 2048 ? g->pp_deep_cl : g->pp_off_cl;
        const plan_config *twin = pp_pick == pp ? g->pp_off_cl : pp_pick == g->pp_deep ? deep_twin : NULL;
        if (cluster_row_serves(twin, t, k, m, n, batch, sms) && cluster_keeps_cta_waves(twin, m, n, sms))
            pp_pick = twin;
    }
    /* a 1x1 conv is a GEMM: the conv's rule for the staged producer/consumer
     * tile (plan_conv_sm90_pick), on the same terms, where the epilogue reads a
     * 16-bit [M, N] input and K is one or two k tiles (a memory-bound GEMM) */
    const plan_config *staged = g->staged;
    if (staged && tma && k->stageable && n > 64 && kk <= 128 && fits(staged, t) &&
        plan_config_batch_tiles(staged, m, n, batch) >= 4 * sms)
        return staged;
    /* 64 columns or fewer, an epilogue reading a 16-bit [M, N] input, K
     * of at most 512 and a tile for each SM or more: the staged tile 64
     * columns wide in six stages, whose producer loads the input ahead of
     * each tile's epilogue.  Unstaged, the consumers waited on those loads
     * (ncu: 54% of their stalls on a 1x1 layer of 48 filters); the pick
     * there, the 128x128 tile at two CTAs an SM, computed twice the
     * columns.  1.06-1.46x on eight 1x1 layers run as GEMMs, 1.13-2.03x
     * on twenty-two held out, all K-contiguous (A row-major, B
     * column-major): only those (session 72, docs/conv2d_fprop.md,
     * "Session 72: thin layers, the staged 128x64 tile") */
    const plan_config *thin = g->staged_narrow;
    if (thin && tma && k->stageable && k->k_contiguous && n <= thin->bn && kk <= 512 && batch == 1 &&
        fits(thin, t) && plan_config_tiles(thin, m, n) >= sms)
        return thin;
    /* 64 columns or fewer and nothing to stage, one problem, a tile for
     * each SM or more: the same tile unstaged, in seven stages.  The picks
     * there (the 128x128 tiles) computed twice the columns N has, or more.
     * 1.08-1.21x over them on eight GEMMs of N = 8-64 with a tanh GELU
     * (session 72's probe, H100); held out on twelve shapes of K 64-8128
     * (session 73, H200), 1.18x with that GELU and 1.17x with a ReLU,
     * 0.98-1.42x, the two under 1 at K of 64 and 192.  K-contiguous
     * operands only: the layout measured (docs/sm90.md, "GEMMs of 64
     * columns or fewer on the 128x64 ping-pong tiles") */
    const plan_config *unstaged = g->pp_narrow;
    if (unstaged && tma && !k->stageable && k->k_contiguous && n <= unstaged->bn && batch == 1 &&
        row_runs(unstaged, t, k) && plan_config_tiles(unstaged, m, n) >= sms)
        return unstaged;
    const int pp_ok = tma && fits(pp, t) && kk > 2 * pp->bk;
    if (pp_ok && mid_fills_waves(g, t, k, m, n, kk, batch, sms))
        return g->coop_mid;
    /* The cooperative tile's tail (its last wave split along K: plan.c,
     * tail_of), but not where its 256-column tiles pad N ten points of
     * area or more over the ping-pong tile's, which then takes the
     * problem: the tail sees the last wave, not the padding.  Ten, not the
     * five the later rules test: at six points (N about 1880) the tail
     * still won (docs/sm90.md, "The cooperative tile's tail where it pads
     * N") */
    if (pp_ok && g->coop && fits(g->coop, t) && t->target == EVT_TARGET_SM90A &&
        plan_coop_tail(g->coop, plan_config_batch_tiles(g->coop, m, n, batch), (int)sms, kk, NULL) > 0 &&
        !pads_more(g->coop, pp, m, n, 10))
        return coop_of(g, t, k, m, n, kk, batch, sms, 1);
    /* The cooperative tile's last column of tiles, where it is half empty
     * or less (N % 256 of 1 to 128), pads N by five points of area or more
     * over the ping-pong tile's: there the ping-pong tile, for which the
     * waves-filled test cannot see the padding (bf16, bias + ReLU | GELU:
     * 1.13 | 1.12x at 200x1408x2048 L 64, 1.09 | 1.00x at 512x1408x2048 L 16,
     * 1.22 | 1.13x at 1024x640x1024 L 32; session 35, docs/sm90.md) */
    if (pp_ok && two_tiles_a_consumer(pp, m, n, batch, sms)) {
        const int coop = g->coop && fits(g->coop, t) && kk >= 768 && wave_fill_pct(g->coop, m, n, batch, sms) >= 90 &&
                         !pads_more(g->coop, pp, m, n, 5);
        /* K of 768 to 2047 in whole k tiles, up to twelve of its tiles an
         * SM: the six-stage ping-pong row was as fast as the cooperative
         * one or faster on the nine such shapes measured (1.00-1.07x, bias
         * + ReLU and GELU, 768-1536 tiles, five held out); at K = 1000,
         * where coop_of takes the clustered row, it lost (0.75 | 0.89x at
         * 1000x1000x1000 L 16), and more tiles were not measured (session
         * 35, docs/sm90.md); and past that where the epilogue is a tanh
         * GELU or a SiLU of a few instructions an element under fast math
         * (fast_light): the ping-pong tile
         * runs one consumer's epilogue under the other's mainloop, which
         * with so cheap an epilogue outweighs the cooperative tile's wider
         * wgmmas; with the exact GELU it does not (session 44, docs/sm90.md;
         * batches not measured) */
        const int deep_pp = pp_pick == g->pp_deep && kk < 2048 && kk % pp->bk == 0 &&
                            (pp_tiles <= 12.0 * (double)sms || (k->fast_light && batch == 1));
        if (coop && !deep_pp && off_tiles_pp_serves(g, t, k, m, n, kk, batch, sms))
            return g->pp_off_cl;
        return coop && !deep_pp ? coop_of(g, t, k, m, n, kk, batch, sms, 0) : pp_pick;
    }
    if (pp_ok && kk >= 1024 && m >= pp->bm && 10.0 * pp_tiles >= 3.0 * (double)sms) {
        /* tiles for at most half the SMs: each CTA runs one tile on one
         * consumer, so the one-warpgroup 64x128 tile, twice the CTAs in one
         * wave at one an SM, keeps every SM busy (1.34-1.58x faster on the
         * four such shapes of session 28's sweep; docs/tuning.md); and
         * in one wave of its own where M's last 128-row tile is half full
         * or less and M at most four of them, so that the 64-row tiles are
         * fewer than twice the ping-pong tiles and pad M less (M of
         * 129-192: three rows of 64 against two of 128), not at K an odd
         * multiple of 8, where its cp.async rows straddle one more line
         * than the clustered ping-pong tile's TMA boxes multicast (session
         * 53, docs/sm90.md, "The 64x128 tile where the ping-pong tile's
         * last row is half empty") */
        if (g->wg_deep && fits(g->wg_deep, t)) {
            const double deep_tiles = (double)plan_config_batch_tiles(g->wg_deep, m, n, batch);
            if (deep_tiles <= (double)sms &&
                (2.0 * pp_tiles <= (double)sms ||
                 (batch == 1 && m <= 4 * pp->bm && !rows_off_line(kk) && deep_tiles < 2.0 * pp_tiles)))
                return short_pp_serves(g, t, k, m, n, kk, batch, sms) ? g->pp_short_cl : g->wg_deep;
        }
        if (!wide || !fits(wide, t) || wave_fill_pct(wide, m, n, batch, sms) < 85) {
            const plan_config *round = coop_round_of(g, t, k, m, n, kk, batch, sms);
            return round ? round : pp_pick;
        }
        /* K of 4096 or more in whole k tiles: the same tile as the
         * cooperative row, whose TMA producer kept the consumers fed better
         * over a long mainloop (session 32, bias + GELU: 1.02-1.07x on the
         * eight such shapes probed at K of 3072 or more, 1.07-1.18x on 13
         * held out; D = acc 1.05-1.19x; at K of 2048 or less the cp.async
         * tile was 1.03-1.15x faster; docs/sm90.md, "The cooperative row
         * over the cp.async 128x256 tile at K >= 4096"); and a light
         * epilogue (not fp8) at any such K, which the cooperative
         * consumers run in their registers and this tile through shared
         * memory (session 34, docs/sm90.md, "Light epilogues at K of 1024
         * to 4095"); and a tanh GELU or SiLU under fast math, which the
         * consumers also run in registers, where coop_of gives it four
         * stages (K in whole k tiles, N a multiple of 8): 1.06-1.17x on
         * the four such shapes held out, where three stages lost on N not
         * a multiple of 8 (0.91-1.01x; session 65, docs/sm90.md, "The
         * fast-math GELU on the cooperative row").  K of 4096 or more not
         * whole k tiles, and K an odd multiple of 8 from 1024, too
         * (session 50: the rows' offset cost the cp.async tile more;
         * 1.138x held out at K >= 4096; docs/sm90.md, "K an odd multiple
         * of 8"), but where the padded-column rule below takes the
         * ping-pong tile */
        const int padded = pads_more(wide, pp, m, n, 5), odd8 = rows_off_line(kk);
        const int fast_deep = k->fast_light && !k->fp8 && coop_deep_runs(g, t, k, n, kk);
        if (g->coop && (kk >= 4096 || (k->light && !k->fp8) || fast_deep || odd8) &&
            (kk % g->coop->bk == 0 || ((kk >= 4096 || odd8) && !padded)) && fits(g->coop, t) &&
            t->target == EVT_TARGET_SM90A)
            return coop_of(g, t, k, m, n, kk, batch, sms, 0);
        /* nor the cp.async tile where its last column of 256-column tiles
         * pads five points more of its area than the ping-pong tile's (the
         * waves-filled test cannot see the padding; the cooperative tile's
         * rule above): held out, 1.055x in geomean over eight shapes of N
         * 264-2136 (0.98-1.27x; session 46, docs/sm90.md) */
        return padded ? pp_pick : wide;
    }
    /* K of 512 to 1023: the same where the wide tile would run more than a
     * wave and fill its waves less than 85%; within one wave the wide tile
     * was as fast or faster (docs/tuning.md, session 22; shorter K was not
     * measured) */
    if (pp_ok && kk >= 512 && m >= pp->bm && wide && fits(wide, t) &&
        (double)plan_config_batch_tiles(wide, m, n, batch) > (double)sms * tiles_per_sm(wide) &&
        wave_fill_pct(wide, m, n, batch, sms) < 85)
        return pp_pick;
    /* K of 512 to 1023 whose operand rows are not whole 128-byte lines (K
     * not a multiple of the k tile) and whose ping-pong tiles fill more
     * than half of one wave: that tile, not the one-warpgroup 64x128 one
     * below, which loads half as many bytes again a FLOP and straddles a
     * line more a row (1.00-1.18x faster with a GELU, 1.06-1.40x D = acc,
     * on ten shapes at K of 800-1000, seven of them held out; at K a
     * multiple of 64 the two were within 7% either way: docs/tuning.md,
     * session 30) */
    if (pp_ok && !k->fp8 && kk >= 512 && kk % pp->bk != 0 && m >= pp->bm && 2.0 * pp_tiles > (double)sms &&
        pp_tiles <= (double)sms)
        return pp_pick;
    const plan_config *classic = plan_gemm_sm80_pick(g, t, m, n, batch, sms);
    if (classic == g->sync_small) {
        const int sm90a = t->target == EVT_TARGET_SM90A;
        /* the swapped tile in place of mma.sync's 64x64 one wherever it
         * serves (18x8307x1272 1.53x, 30x7600x800 1.48x: session 45), at
         * K under 768 too (six of six such shapes of session 46's random
         * sweep 1.04-1.27x, 2x504x328 to 11x5416x424; held out, 1.29x
         * geomean over 16 shapes at K of 88-744, the least 1.13x:
         * docs/sm90.md) */
        if (!g->wg_small || !fits(g->wg_small, t) || !small_wgmma_fills(g->wg_small, m, n, kk, batch, sms, sm90a)) {
            const plan_config *swapped = swapped_serves(g, t, k, m, n, kk, batch, sms, tma, 1);
            if (swapped)
                return swapped;
            /* and past the swapped tiles' rule, the one-warpgroup wgmma
             * 64x64 tile (eight stages, at its planner split) in place of
             * mma.sync's, which it outran on every such shape measured;
             * aligned rows (tma) only, as measured, not the guarded path's
             * element-wise loads (session 51, docs/sm90.md, "The wgmma
             * 64x64 tile where the sm90 heuristic fell through") */
            const plan_config *narrow = g->wg_narrow;
            return batch == 1 && sm90a && tma && row_runs(narrow, t, k) ? narrow : classic;
        }
        const plan_config *swapped = swapped_serves(g, t, k, m, n, kk, batch, sms, tma, 0);
        const plan_config *w = g->wg_deep && fits(g->wg_deep, t) &&
                                       (long_shares_one_wave(g->wg_deep, m, n, kk, batch, sms, sm90a) ||
                                        deep_spares_split(g->wg_deep, g->wg_small, m, n, kk, batch, sms, sm90a))
                                   ? g->wg_deep
                                   : g->wg_small;
        const plan_config *small = g->wg_narrow && fits(g->wg_narrow, t) &&
                                           narrow_spares_split(g->wg_narrow, w, m, n, kk, batch, sms, sm90a)
                                       ? g->wg_narrow
                                       : w;
        const plan_config *pick =
            g->wg_row && fits(g->wg_row, t) && one_row_serves(g->wg_row, small, g->wg_deep, m, n, kk, batch, sms, sm90a)
                ? g->wg_row
                : small;
        if (swapped && swapped_outruns(swapped, pick, m, n, kk, sms))
            return swapped;
        if (!swapped && wide_swap_serves(g, t, k, pick, m, n, kk, batch, sms, tma))
            return g->swap16_wide;
        if (pick == g->wg_small && g->wg_deep && fits(g->wg_deep, t) &&
            (deep_fills_half(g->wg_deep, g->wg_small, m, n, kk, batch, sms, sm90a) ||
             (sm90a && deep_spares_slots(g->wg_deep, g->wg_small, m, n, kk, batch, sms))))
            pick = g->wg_deep;
        if (pick == g->wg_deep && deep_swap_serves(g, t, k, m, n, kk, batch, sms, tma))
            return g->swap16_wide;
        const plan_config *rows = swapped_rows_serves(g, t, k, pick, m, n, kk, batch, sms, tma);
        return rows ? rows : pick;
    }
    if (!wide)
        return classic;
    /* in doubles: a batch's tiles may saturate at LLONG_MAX */
    if (kk <= 2 * wide->bk && tma && g->coop && fits(g->coop, t) && tile_area_pct(g->coop, m, n) >= 90 &&
        (double)plan_config_batch_tiles(g->coop, m, n, batch) >= 8.0 * (double)sms) {
        /* a light epilogue that reads a bias or a row scale, K in whole k
         * tiles: the ping-pong tile, one consumer's epilogue (its vector
         * loads) under the other's mainloop: 1.07-1.16x faster than the
         * cooperative row on the eight such shapes measured, batched and
         * not, at K of 64 and 128; as fast with an [M] and an [N] input;
         * D = acc, a ReLU or a scale alone were 3-7% slower on it, and a
         * GELU as fast (session 33, docs/sm90.md, "Short K"); so, where
         * N is whole 128-column tiles (its edge tiles' epilogue goes
         * through shared memory), for a GELU or SiLU under fast math: 1.05-
         * 1.14x on five such shapes (session 43), 1.16x on eight held out,
         * none under 1.12x (session 55, docs/sm90.md) */
        if ((k->light || (k->fast_light && n % pp->bn == 0)) && k->broadcast && !k->fp8 && kk % pp->bk == 0 &&
            fits(pp, t) && plan_can_run(pp, k, t->target, NULL))
            return pp;
        /* K in whole k tiles: coop_of's row (four stages for a light
         * epilogue); else three stages, not the clustered row coop_of
         * gives such K (not measured at K of two k tiles or less) */
        return kk % g->coop->bk == 0 ? coop_of(g, t, k, m, n, kk, batch, sms, 0) : g->coop;
    }
    /* below the cooperative rule's terms, such a GELU or SiLU, or a light
     * epilogue reading a bias, with two ping-pong tiles an SM or more, in
     * a batch or not: the same ping-pong tile, not the cp.async 128x128
     * one the costs below take (held out on batches, session 66: 1.23x on
     * eight GELU shapes, 1.54x on eight ReLU ones; on single problems,
     * session 76: 1.17x and 1.27x on eight; docs/sm90.md, "Short K under
     * the cooperative rule") */
    if (kk <= 2 * wide->bk && tma && (k->fast_light || k->light) && k->broadcast && !k->fp8 &&
        kk % pp->bk == 0 && n % pp->bn == 0 && pp_tiles >= 2.0 * (double)sms && fits(pp, t) &&
        plan_can_run(pp, k, t->target, NULL))
        return pp;
    const costed short_k[] = {{g->wg_mid, 0}, {wide, 0}};
    const costed long_k[] = {{wide, 0}, {g->wg_mid, 0}};
    double cost = 0;
    /* short K: at most two k tiles (128 16-bit elements, 256 fp8 ones) */
    const plan_config *best =
        cheapest(kk <= 2 * wide->bk ? short_k : long_k, 2, padded_cost, t, m, n, kk, batch, sms, &cost);
    /* K of three to seven k tiles (129-511), where that is the cp.async
     * 128x256 tile and the epilogue is light (D = acc, a bias, a ReLU) or
     * a tanh GELU or SiLU under fast math: the ping-pong tile, whose
     * producer loads the next tile's operands while a consumer runs this
     * one's cheap epilogue; at so short a mainloop the wide tile's CTA
     * waits on its loads and then on its stores.  Eleven shapes of M
     * 314-7203 (gelu_tanh, fast math): 1.10-1.51x, within one wave of wide
     * tiles too, where session 22 had the wide tile ahead at K of
     * 512-1023.  Held out on twelve shapes, gelu_tanh 1.23x and D = acc
     * 1.12x in geomean, but the exact GELU and the erf GELU under fast
     * math only 1.02x and 1.04x, down to 0.93x, so those keep the wide
     * tile; the rule so narrowed, on twelve more, 1.23x and 1.13x, none
     * under 0.97x (session 62, docs/sm90.md, "The ping-pong tile at K of
     * 129-511") */
    if (best == wide && pp_ok && (k->light || k->fast_light) && kk < 512 && m > 2 * pp->bm && batch == 1 &&
        plan_can_run(pp, k, t->target, NULL))
        return pp;
    return best ? best : classic;
}

/* c's planner split where it is two to five shares and its split grid
 * fills half the SMs or more (split_row_serves, wide_over_row), else 0 */
static int mid_split(const plan_config *c, long long m, long long n, long long kk, long long sms)
{
    const int split = gemm_split(c, m, n, kk, sms);
    return split >= 2 && split <= 5 && 2.0 * (double)plan_config_tiles(c, m, n) * split >= (double)sms ? split : 0;
}

/*
 * Whether the two-warpgroup 128x128 tile row (six stages, one CTA an SM),
 * split along K at the planner's split, takes a problem of two or more of
 * its tile rows from a one-warpgroup 64-row tile small (64x128 in four or
 * eight stages, or 64x64): one_row_serves's trade past one row.  A row
 * share loads 256 rows of operands a k step for 128 x 128 outputs where a
 * 64x128 tile loads 192 for half as many, and two warpgroups issue its
 * wgmmas; the split (two to five shares, summed in their clusters) gives
 * it the SMs that its fewer tiles would leave idle.  Only where a share
 * runs fewer MACs than a CTA of small's plan, or as many where small's
 * plan is split too, K is 4096 or more, or small is the 64x64 tile (its
 * m64n64 wgmmas load twice the bytes a MAC of row's): at K under 4096 a
 * row split into as many MACs a CTA as the 64x128 tile's unsplit plan,
 * or more, lost (a sum added to the same work).  Not at a split of six
 * or more, nor unsplit, at K under 2048 or for batches (not measured).
 * Session 53,
 * docs/sm90.md ("The 128x128 tile split past one tile row").
 */
static int split_row_serves(const plan_config *row, const plan_config *small, const plan_target *t,
                            const plan_kernel *k, long long m, long long n, long long kk, long long batch,
                            long long sms)
{
    if (batch != 1 || !row || m <= row->bm || kk < 2048 || t->target != EVT_TARGET_SM90A || !row_runs(row, t, k))
        return 0;
    const int split = mid_split(row, m, n, kk, sms), small_split = gemm_split(small, m, n, kk, sms);
    if (!split)
        return 0;
    /* a share's area against a share of small's: the MACs each CTA runs */
    const long long share = row->bm * row->bn * small_split, small_share = small->bm * small->bn * split;
    return share < small_share || (share == small_share && (small_split >= 2 || kk >= 4096 || small->bn < row->bn));
}

/*
 * Whether the two-warpgroup 128x256 tile wide, at its planner split of two
 * to five shares, takes split_row_serves's problem from the 128x128 tile
 * row: where a share of wide's runs no more MACs than a share of row's.
 * Its warpgroups' m64n256 wgmmas load 384 operand rows a k step for
 * 128 x 256 outputs, row's 256 for half as many.  Session 53,
 * docs/sm90.md ("The 128x128 tile split past one tile row").
 */
static int wide_over_row(const plan_config *wide, const plan_config *row, const plan_target *t,
                         const plan_kernel *k, long long m, long long n, long long kk, long long sms)
{
    if (!row_runs(wide, t, k))
        return 0;
    const int split = mid_split(wide, m, n, kk, sms), row_split = gemm_split(row, m, n, kk, sms);
    return split && wide->bm * wide->bn * row_split <= row->bm * row->bn * split;
}

/*
 * N of 400 or less under a 128-row wgmma pick of a wave of tiles or more
 * (unsplit, or cooperative with its tail split): of the ping-pong 128x128
 * tile (six stages at K >= 2048, in clusters of two where
 * gemm_sm90_base's rule would cluster them) and the cooperative 128x160
 * and 128x192 ones, the first that leaves the busiest
 * SM less area than the pick (sm_area, which counts a ping-pong CTA's two
 * tiles as two: its consumers take turns at the mainloop).  N of 257-400
 * pads a 256-wide tile's second column to 51-78% of its area, where 128,
 * 160 or 192 columns fit closer; the rules that chose the pick saw waves
 * (the cooperative tile's tail among them) but not that padding.  Batches
 * and N past 400 were not measured.  Session 53, docs/sm90.md ("N of
 * 257-400 at large M").
 */
static const plan_config *n_fit_of(const gemm_tiles *g, const plan_target *t, const plan_kernel *k,
                                   const plan_config *pick, long long m, long long n, long long kk, long long batch,
                                   long long sms)
{
    if (batch != 1 || n > 400 || t->target != EVT_TARGET_SM90A || pick->bm != 128 || pick->bn < 128 ||
        !pick->wgmma || (!plan_config_persistent(pick) && gemm_split(pick, m, n, kk, sms) > 1))
        return NULL;
    /* the ping-pong row as gemm_sm90_base would give it at such K: its
     * clusters halve B's L2 requests, which the area test does not see */
    const plan_config *pp = kk < 2048                                          ? g->pp
                            : deep_cluster_serves(g, t, k, m, n, kk, batch, sms) ? g->pp_deep_cl
                                                                               : g->pp_deep;
    const plan_config *cands[] = {pp, g->coop_160, g->coop_mid};
    const plan_config *best = NULL;
    double least = sm_area(pick, m, n, sms);
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        const plan_config *c = cands[i];
        if (!c || c == pick || !row_runs(c, t, k) || !plan_listed(c, k, t->target))
            continue;
        const double area = sm_area(c, m, n, sms);
        if (area < least) {
            best = c;
            least = area;
        }
    }
    return best;
}

/* Whether the 128x160 tile's columns pad N no more than the 128x192 tile's. */
static int c160_pads_less(const plan_config *c160, const plan_config *mid, long long n)
{
    return plan_config_tiles(c160, 1, n) * c160->bn <= plan_config_tiles(mid, 1, n) * mid->bn;
}

/*
 * Whether the cooperative 128x160 tile takes one problem from the 128x192
 * pick: where the pick runs more than one round of tiles an SM, and the
 * 160-wide tile pads N no more (c160_pads_less) and leaves the busiest SM
 * a tenth less area or more, which the quarter that plan_gemm_sm90_pick asks of
 * a narrower tile over the others leaves out (as many rounds of 160-wide
 * tiles as of 192-wide ones is a sixth less; one round more, from six
 * rounds, is at most 3-8% less).  Session 63 (docs/sm90.md, "The 128x160
 * tile over the 128x192 pick"): 1.09-1.10x on a probe's three such shapes;
 * on two held-out sets without the last two terms, as many rounds either
 * way: one round 0.98-1.06x (one tile an SM, where the narrower tile's
 * share of the loads is larger), two 1.01-1.13x; 8 rounds of 160 against 7
 * of 192 0.95-1.02x, since a 160-wide tile computes about a tenth less a µs
 * than a 192-wide one; with them, twelve fresh shapes 1.03-1.10x.  Where
 * the 160-wide tiles run a round more at fewer rounds (4 of 192 against 5
 * of 160, 1 against 2) the 192-wide pick was 1.06x and 1.60x faster, which
 * the area says too.
 */
static int c160_over_mid(const plan_config *c160, const plan_config *mid, long long m, long long n,
                         long long batch, long long sms)
{
    return batch == 1 && plan_config_tiles(mid, m, n) > sms * tiles_per_sm(mid) && c160_pads_less(c160, mid, n) &&
           sm_area(c160, m, n, sms) <= 0.9 * sm_area(mid, m, n, sms);
}

/*
 * gemm_sm90_base's pick, or a narrower cooperative tile where that pick is a
 * 128-row wgmma tile at K >= 1024: the 128x160 one (K-contiguous operands)
 * where it pads N no more than the 128x192 one, else that one, the first of
 * them that leaves the busiest SM a quarter less area to compute or more
 * (sm_area: conv's plan_coop_over_pp rule).  That is where N's last 128- or
 * 256-column tiles are mostly padding, or where the wider tiles spill into
 * one more wave: N of 136, 272 or 320 at large M, say, which
 * mid_fills_waves leaves (N less than 85% inside 192-column tiles, or its
 * waves no fuller than the 128x256 tile's).  Not where the pick's own last
 * wave is split along K (plan_coop_tail), which the area does not count.
 * H200, held out (session 47, docs/sm90.md): the 192-wide tile over the
 * pick, 1.25x in geomean over twelve shapes (0.95-1.54x); the 160-wide one
 * over the 192-wide one, 1.23x over twelve (1.04-1.36x).  Taking the tile
 * of least area instead lost 0.94x where five 160-column tiles pad N more
 * than four 192-column ones.
 */
static const plan_config *sm90_pick_of(const gemm_tiles *g, const plan_target *t, const plan_kernel *k,
                                       long long m, long long n, long long kk, long long batch, long long sms,
                                       int tma)
{
    const plan_config *pick = gemm_sm90_base(g, t, k, m, n, kk, batch, sms, tma);
    /* (before the narrower tiles' rule, which would take the 128x256 tile
     * unsplit) */
    for (size_t i = 0; pick && i < sizeof g->swap_rows / sizeof g->swap_rows[0]; i++)
        if (pick == g->swap_rows[i] && wide_split_serves(g, t, k, pick, m, n, kk, sms))
            return g->wg_wide;
    /* the same over the one-warpgroup 64-row tiles and the 128x128 row at
     * M of 113-128 and K of 2048 or more, where the byte test separated the
     * split tile's wins from its losses (session 51, docs/sm90.md, "M of
     * 113-128 at K an odd multiple of 8") */
    if (pick && tma && batch == 1 && m > 112 && m <= 128 && kk >= 2048 &&
        (pick == g->wg_small || pick == g->wg_deep || pick == g->wg_row) &&
        wide_split_serves(g, t, k, pick, m, n, kk, sms))
        return g->wg_wide;
    if (pick && (pick == g->wg_small || pick == g->wg_deep || pick == g->wg_narrow) &&
        split_row_serves(g->wg_row, pick, t, k, m, n, kk, batch, sms))
        return wide_over_row(g->wg_wide, g->wg_row, t, k, m, n, kk, sms) ? g->wg_wide : g->wg_row;
    const plan_config *fit = pick && tma ? n_fit_of(g, t, k, pick, m, n, kk, batch, sms) : NULL;
    if (fit)
        return fit;
    if (!pick || !tma || kk < 1024 || pick->bm != 128 || pick->bn < 128 || !pick->wgmma)
        return pick;
    if (plan_config_coop(pick) &&
        plan_coop_tail(pick, plan_config_batch_tiles(pick, m, n, batch), (int)sms, kk, NULL) > 0)
        return pick;
    const plan_config *mid = g->coop_mid, *c160 = g->coop_160;
    const int mid_ok = mid && mid != pick && plan_listed(mid, k, t->target);
    const int c160_ok = c160 && c160 != pick && plan_listed(c160, k, t->target);
    const double most = 0.75 * sm_area_batch(pick, m, n, batch, sms);
    /* the 160-wide tile first where it pads N no more than the 192-wide one */
    if (c160_ok && (!mid_ok || c160_pads_less(c160, mid, n)) && sm_area_batch(c160, m, n, batch, sms) <= most)
        return c160;
    if (c160_ok && pick == mid && c160_over_mid(c160, mid, m, n, batch, sms))
        return c160;
    return mid_ok && sm_area_batch(mid, m, n, batch, sms) <= most ? mid : pick;
}

/*
 * plan_gemm_sm90_pick's last rule: a heavy epilogue (plan_heavy_epilogue:
 * it reduces or reads an [M, N] input, and computes two costly [M, N]
 * builtins or more) where the rules above take the three-stage
 * cooperative 128x256 row, clustered or not, its last wave split along K
 * or not, one problem, K of 1024 or more: the six-stage ping-pong tile.  The
 * cooperative consumers keep the other half of their accumulators through
 * each sub-tile's epilogue, and ptxas spilled on every such program
 * (session 69); the ping-pong consumer holds one 128x128 tile's and
 * spilled on none.  Session 70 (bench/heavy_probe.sh, H100, procedure and
 * draw committed first): 1.283x in geomean (1.04-1.57x) over the pick on
 * twenty rows of ten random programs at K of 2000 and 4096 (no tail), and
 * held out 1.296x (1.08-1.69x) on ten rows of ten other programs at
 * 10240x1792x2560 (the pick's last wave split along K); the
 * four-stage cooperative row gained about as much (1.265x / 1.301x) but
 * lost 0.7% on one row (docs/codegen.md, "Heavy epilogues").  Batches,
 * fp8 and shorter K were not measured.
 */
const plan_config *plan_gemm_sm90_pick(const gemm_tiles *g, const plan_target *t, const plan_kernel *k,
                                  long long m, long long n, long long kk, long long batch, long long sms,
                                  int tma)
{
    const plan_config *pick = sm90_pick_of(g, t, k, m, n, kk, batch, sms, tma);
    if (k->heavy && !k->fp8 && tma && batch == 1 && kk >= 1024 && pick && (pick == g->coop || pick == g->coop_cl) &&
        row_runs(g->pp_deep, t, k))
        return g->pp_deep;
    return pick;
}
