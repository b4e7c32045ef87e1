/* test_plan.c - the planner: the configuration table says what its names say,
 * which configurations can run where and why not, the heuristics' picks
 * (equal, on sm_80 and sm_90a, to those of the per-mainloop heuristics they
 * replaced), the shared-memory fallback on sm_86 and sm_89, split-K, the TMA
 * fallback, plans as text, and the full listings against the heuristics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>

#include "plan/plan.h"
#include "support/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T(name) EVT_TILE_##name
#define CFG(name) (&plan_configs[EVT_TILE_##name])

/* mainloop, k_contiguous, stageable, fp8, light, per_element, broadcast,
 * fast_light, shift_cols, heavy: all but the _light and _gelu ones have an
 * epilogue that is not per element (a reduction or an [M, N] input); only
 * _heavy's also computes two costly [M, N] builtins or more
 * (plan_heavy_epilogue) */
static const plan_kernel k_gemm_tn = {EVT_MAINLOOP_GEMM, 1, 0, 0, 0, 0, 0, 0, 8, 0};  /* A row-major, B column-major */
static const plan_kernel k_gemm_nn = {EVT_MAINLOOP_GEMM, 0, 0, 0, 0, 0, 0, 0, 8, 0};  /* A column-major */
static const plan_kernel k_gemm_tn_light = {EVT_MAINLOOP_GEMM, 1, 0, 0, 1, 1, 0, 0, 8, 0}; /* D = acc, say */
static const plan_kernel k_gemm_tn_gelu = {EVT_MAINLOOP_GEMM, 1, 0, 0, 0, 1, 1, 0, 8, 0};  /* gelu(acc + bias) */
static const plan_kernel k_gemm_nn_light = {EVT_MAINLOOP_GEMM, 0, 0, 0, 1, 1, 0, 0, 8, 0};
static const plan_kernel k_gemm_tn_bias = {EVT_MAINLOOP_GEMM, 1, 0, 0, 1, 1, 1, 0, 8, 0}; /* relu(acc + bias) */
/* gelu_tanh(acc + bias) under fast math */
static const plan_kernel k_gemm_tn_tanh = {EVT_MAINLOOP_GEMM, 1, 0, 0, 0, 1, 1, 1, 8, 0};
static const plan_kernel k_conv = {EVT_MAINLOOP_CONV2D_FPROP, 1, 0, 0, 0, 0, 0, 0, 8, 0};
static const plan_kernel k_conv_st = {EVT_MAINLOOP_CONV2D_FPROP, 1, 1, 0, 0, 0, 0, 0, 8, 0}; /* an input to stage */
static const plan_kernel k_gemm_st = {EVT_MAINLOOP_GEMM, 1, 1, 0, 0, 0, 0, 0, 8, 0};  /* an [M, N] input to stage */
static const plan_kernel k_gemm_fp8 = {EVT_MAINLOOP_GEMM, 1, 0, 1, 0, 0, 0, 0, 8, 0};  /* e4m3/e5m2, A row, B col */
/* two costly builtins beside a reduction: progen's random programs of session 70 */
static const plan_kernel k_gemm_tn_heavy = {EVT_MAINLOOP_GEMM, 1, 0, 0, 0, 0, 0, 0, 8, 1};
static const plan_kernel k_gemm_fp8_nn = {EVT_MAINLOOP_GEMM, 0, 0, 1, 0, 0, 0, 0, 8, 0}; /* fp8, not K-contiguous */

/* A fast-path problem; tma: the driver makes the maps (and a conv's c is 64). */
static plan_problem problem(evt_target t, int sms, long long m, long long n, long long k, int tma)
{
    plan_problem p = {t, sms, m, n, k, 64, 1, tma, 1, 0, 0, 0, {0, 0}};
    return p;
}

/* The heuristic's plan, which must succeed. */
static plan make(const plan_kernel *k, const plan_problem *p, const plan_options *o)
{
    plan pl;
    const char *why = NULL;
    if (!plan_make(k, p, o, &pl, &why))
        fail_msg("plan_make refused: %s", why ? why : "(no reason)");
    return pl;
}

/* The tile the heuristic gives kernel k: a batch of `batch` problems of
 * m x n x kk on sms SMs of target t, TMA maps or not. */
static enum evt_tile_id pick_batch(const plan_kernel *k, evt_target t, long long m, long long n, long long kk,
                                   long long batch, int sms, int tma)
{
    plan_problem p = problem(t, sms, m, n, kk, tma);
    if (k->mainloop == EVT_MAINLOOP_GEMM)
        p.conv_c = 0;
    p.batch = batch;
    return make(k, &p, NULL).config->id;
}

static enum evt_tile_id pick(const plan_kernel *k, evt_target t, long long m, long long n, long long kk,
                             int sms, int tma)
{
    return pick_batch(k, t, m, n, kk, 1, sms, tma);
}

/* One probe of the sm_90a GEMM heuristic on 132 SMs: kernel k at m x n x
 * kk in a batch of `batch` problems, TMA maps or not, and the tile it
 * must take. */
typedef struct pick_probe {
    const plan_kernel *k;
    long long m, n, kk;
    int tma;
    enum evt_tile_id want;
    long long batch;
} pick_probe;

static void expect_picks(const pick_probe *probes, size_t count)
{
    int wrong = 0;
    for (size_t i = 0; i < count; i++) {
        const pick_probe *q = &probes[i];
        const enum evt_tile_id got = pick_batch(q->k, EVT_TARGET_SM90A, q->m, q->n, q->kk, q->batch, 132, q->tma);
        if (got != q->want) {
            print_message("%lldx%lldx%lld L %lld (maps: %d): %s, want %s\n", q->m, q->n, q->kk, q->batch, q->tma,
                          plan_configs[got].name, plan_configs[q->want].name);
            wrong++;
        }
    }
    assert_int_equal(wrong, 0); /* every wrong pick is listed before the test fails */
}

/* Every name is formed from its row by tile_configs.h's rule. */
static void test_config_names(void **state)
{
    (void)state;
    for (int i = 0; i < EVT_TILE_COUNT; i++) {
        const plan_config *c = &plan_configs[i];
        char want[96];
        int at = snprintf(want, sizeof want, "%s", c->wgmma ? "sm90" : "sm80");
        if (c->wgmma && !c->pp) /* the MMA warps as warpgroups */
            at += snprintf(want + at, sizeof want - at, "_wg%d", c->warps_m * c->warps_n / 4);
        if (c->ws)
            at += snprintf(want + at, sizeof want - at, "_ws%d", c->ws);
        if (c->pp) /* cooperative when the consumers share a tile of 128 rows each */
            at += snprintf(want + at, sizeof want - at, "_%s%d", plan_config_coop(c) ? "coop" : "pp",
                           c->pp);
        if (c->cluster > 1)
            at += snprintf(want + at, sizeof want - at, "_cl%d", c->cluster);
        at += snprintf(want + at, sizeof want - at, "_%dx%dx%d", c->bm, c->bn, c->bk);
        if (!c->wgmma)
            at += snprintf(want + at, sizeof want - at, "_w%d", c->warps_m * c->warps_n);
        at += snprintf(want + at, sizeof want - at, "_s%d%s%s", c->stages, c->staged ? "_staged" : "",
                       c->op_bytes == 1 ? "_fp8" : "");
        assert_string_equal(c->name, want);
        assert_int_equal(c->id, i);
        assert_ptr_equal(plan_config_find(c->name), c);
        assert_true(c->mainloops != 0 && (c->mainloops & ~(unsigned)(EVT_TILE_GEMM | EVT_TILE_CONV)) == 0);
        /* a producer/consumer schedule: one producer warpgroup; 128-byte k
         * rows (BK = 64, 128 fp8), which plan_make's one TMA test for the
         * heuristic assumes, or 64-byte ones (BK = 32) on conv rows that
         * the heuristic does not list (plan_candidate) */
        assert_true(!c->pp || (c->wgmma && c->warps_m * c->warps_n == 4 &&
                               (c->bk * c->op_bytes == 128 ||
                                (c->bk * c->op_bytes == 64 && c->mainloops == EVT_TILE_CONV))));
        /* fp8 rows are the GEMM's (sema refuses fp8 convs), K-contiguous;
         * epilogue warps only beside a cooperative tile's consumers */
        assert_true(c->op_bytes == 2 ||
                    (c->op_bytes == 1 && c->mainloops == EVT_TILE_GEMM && (!c->ws || plan_config_coop(c))));
        assert_true(!c->ws || !c->pp || (plan_config_coop(c) && c->threads == 384 + 32 * c->ws));
    }
    assert_null(plan_config_find("sm80_128x128x128_w4_s3"));
    assert_null(plan_config_find(NULL));
}

/* Threads and shared memory of a few rows, worked by hand. */
static void test_config_sizes(void **state)
{
    (void)state;
    /* the pipeline (3 x 384 x 64 halves) outgrows the 128 x 264 float accumulators */
    assert_int_equal(CFG(sm80_128x256x64_w8_s3)->threads, 256);
    assert_int_equal(CFG(sm80_128x256x64_w8_s3)->smem_bytes, 3 * 384 * 64 * 2);
    assert_int_equal(CFG(sm80_128x256x32_w8_s4)->smem_bytes, 128 * 264 * 4);
    assert_int_equal(CFG(sm80_64x64x32_w4_s4)->threads, 128);
    /* a split-K sum CTA: the threads times the most within 512 */
    assert_int_equal(CFG(sm80_64x64x32_w4_s4)->sum_threads, 512);
    assert_int_equal(CFG(sm80_128x256x64_w8_s3)->sum_threads, 512);
    assert_int_equal(CFG(sm90_wg3_192x128x64_s4)->sum_threads, 384);
    assert_int_equal(CFG(sm90_wg2_ws8_128x128x64_s4)->sum_threads, 512);
    /* the wgmma rows whose rows are not a multiple of 64, and only they, run swapped */
    for (int i = 0; i < EVT_TILE_COUNT; i++)
        assert_int_equal(plan_configs[i].swapped, plan_configs[i].wgmma && plan_configs[i].bm % 64 != 0);
    assert_true(CFG(sm90_wg1_16x64x64_s16)->swapped && !CFG(sm90_wg1_64x64x64_s8)->swapped);
    /* ... but no more than the tile's 8-column chunks: a swapped 16x64 tile's 128, 32x64's 256 */
    assert_int_equal(CFG(sm90_wg1_16x64x64_s16)->sum_threads, 128);
    assert_int_equal(CFG(sm90_wg1_32x64x64_s12)->sum_threads, 256);
    assert_int_equal(CFG(sm90_wg1_16x128x64_s12)->sum_threads, 256);
    /* ... and fewer where 512 would make passes of 32 rows, which 80 rows
     * do not hold whole (256: passes of 16); 96 do */
    assert_int_equal(CFG(sm90_wg1_80x128x64_s8)->sum_threads, 256);
    assert_int_equal(CFG(sm90_wg1_96x128x64_s8)->sum_threads, 512);
    assert_int_equal(CFG(sm90_wg1_96x64x64_s11)->sum_threads, 384);
    assert_int_equal(CFG(sm90_wg1_80x64x64_s12)->sum_threads, 128);
    assert_true(CFG(sm90_wg1_80x128x64_s8)->swapped && CFG(sm90_wg1_112x128x64_s7)->swapped);
    /* every row that splits (not the persistent ones): a multiple of the
     * CTA's threads whose epilogue passes (sum_threads / (bn / 8) rows) fit
     * the tile's rows, as the generated epilogue's static_assert requires
     * (BM % RPP == 0) */
    for (int i = 0; i < EVT_TILE_COUNT; i++) {
        const plan_config *c = &plan_configs[i];
        if (plan_config_persistent(c))
            continue;
        const int rows_a_pass = c->sum_threads / (c->bn / 8);
        if (c->sum_threads % c->threads != 0 || rows_a_pass < 1 || c->bm % rows_a_pass != 0)
            fail_msg("%s: %d sum threads for %d threads, a %dx%d tile", c->name, c->sum_threads, c->threads,
                     c->bm, c->bn);
    }
    assert_int_equal(CFG(sm80_64x64x32_w4_s4)->smem_bytes, 4 * 128 * 32 * 2);
    /* three warpgroups, the stages aligned to 1 KB */
    assert_int_equal(CFG(sm90_wg3_192x128x64_s4)->threads, 384);
    assert_int_equal(CFG(sm90_wg3_192x128x64_s4)->smem_bytes, 4 * (192 + 128) * 64 * 2 + 1024);
    /* warp-specialized: 4 epilogue warps; pipeline, accumulators and the hand-over mbarriers side by side */
    assert_int_equal(CFG(sm80_ws4_128x128x64_w4_s3)->threads, 256);
    assert_int_equal(CFG(sm80_ws4_128x128x64_w4_s3)->smem_bytes, 3 * 256 * 64 * 2 + 128 * 136 * 4 + 16);
    assert_int_equal(CFG(sm90_wg2_ws8_128x128x64_s4)->threads, 512);
    /* cooperative: two consumers on 256 x 128, three stages, a 64-row
     * accumulator sub-tile each, the mbarriers, the 1 KB alignment */
    assert_int_equal(CFG(sm90_coop2_256x128x64_s3)->threads, 384);
    assert_int_equal(CFG(sm90_coop2_256x128x64_s3)->smem_bytes,
                     3 * (256 + 128) * 64 * 2 + 2 * 64 * 136 * 4 + 256 + 1024);
    /* cooperative 128 x 256: 48 KB stages too, the sub-tiles 64 x 128 (the epilogue's halves) */
    assert_int_equal(CFG(sm90_coop2_128x256x64_s3)->threads, 384);
    assert_int_equal(CFG(sm90_coop2_128x256x64_s3)->smem_bytes,
                     3 * (128 + 256) * 64 * 2 + 2 * 64 * 136 * 4 + 256 + 1024);
    /* cooperative 128 x 192: 40 KB stages, four of them, the sub-tiles 64 x 64 (a row's thirds) */
    assert_int_equal(CFG(sm90_coop2_128x192x64_s4)->smem_bytes,
                     4 * (128 + 192) * 64 * 2 + 2 * 64 * 72 * 4 + 256 + 1024);
    /* every producer/consumer row's epilogue tiles divide its columns (coop_run and the
     * sub-tiled pp_run walk whole ones; a 160-wide row would need 32-column tiles) */
#define EPI_DIVIDES(name, mainloops, mma, bm, bn, bk, wm, wn, stages, minb, ws, pp, staged, coop, cluster) \
    assert_true(!(pp) || (bn) % EVT_TILE_EPI_BN(mma, bm, bn, bk, stages) == 0);
    EVT_TILE_CONFIGS(EPI_DIVIDES)
#undef EPI_DIVIDES
    /* producer/consumer: a producer warpgroup, two consumers, a staged tile each, the mbarriers */
    assert_int_equal(CFG(sm90_pp2_128x128x64_s2_staged)->threads, 384);
    assert_int_equal(CFG(sm90_pp2_128x128x64_s2_staged)->smem_bytes,
                     2 * 256 * 64 * 2 + 128 * 136 * 4 + 2 * 128 * 128 * 2 + 256 + 1024);
    assert_true(plan_config_persistent(CFG(sm80_ws4_128x128x64_w4_s3)));
    assert_true(plan_config_persistent(CFG(sm90_pp2_128x64x64_s7)));
    assert_false(plan_config_persistent(CFG(sm90_wg2_128x256x64_s4)));
    /* fp8: one byte an element, so BK = 128 stages are the 16-bit BK = 64 ones */
    assert_int_equal(CFG(sm90_pp2_128x128x128_s4_fp8)->smem_bytes, CFG(sm90_pp2_128x128x64_s4)->smem_bytes);
    assert_int_equal(CFG(sm90_pp2_128x128x128_s4_fp8)->smem_bytes,
                     4 * 256 * 128 + 128 * 136 * 4 + 256 + 1024);
    assert_int_equal(CFG(sm80_128x128x128_w4_s3_fp8)->smem_bytes, 3 * 256 * 128);
    assert_true(CFG(sm80_128x128x128_w4_s3_fp8)->smem_bytes <= plan_target_info(EVT_TARGET_SM89)->smem_per_block);
    assert_int_equal(CFG(sm90_wg2_128x256x128_s4_fp8)->op_bytes, 1);
    assert_int_equal(CFG(sm90_wg2_128x256x64_s4)->op_bytes, 2);
    assert_int_equal(plan_config_tiles(CFG(sm80_128x256x64_w8_s3), 4096, 4097), 32 * 17);
    assert_int_equal(plan_config_tiles(CFG(sm80_64x64x32_w4_s4), 0, 4096), 0);
    /* 2^31 - 1 squared in 64x64 tiles: 2^50, no overflow */
    assert_true(plan_config_tiles(CFG(sm80_64x64x32_w4_s4), 2147483647LL, 2147483647LL) == (1LL << 50));
}

static void test_targets(void **state)
{
    (void)state;
    for (int t = 0; t < EVT_TARGET_COUNT; t++) {
        const plan_target *ti = plan_target_info((evt_target)t);
        assert_non_null(ti);
        assert_int_equal(ti->target, t);
        assert_true(ti->sms_default > 0 && ti->smem_per_block >= 99 * 1024);
        /* every target holds the smallest tile, the heuristics' last resort */
        assert_true(CFG(sm80_64x64x32_w4_s4)->smem_bytes <= ti->smem_per_block);
    }
    assert_null(plan_target_info(EVT_TARGET_COUNT));
    const plan_target *h = plan_target_info(EVT_TARGET_SM90A);
    assert_string_equal(names_target_suffix(EVT_TARGET_SM90A), "sm90a");
    assert_true(h->wgmma && h->tma && h->fp8 && h->cc == 90 && h->smem_per_block == 232448);
    assert_int_equal(plan_target_info(EVT_TARGET_SM80)->smem_per_block, 166912);
    assert_false(plan_target_info(EVT_TARGET_SM86)->fp8);
    assert_true(plan_target_info(EVT_TARGET_SM89)->fp8);
    assert_false(plan_target_info(EVT_TARGET_SM89)->wgmma);
}

/* Whether c can run k on t; the reason, if not, contains `says`. */
static void expect_refused(const plan_config *c, const plan_kernel *k, evt_target t, const char *says)
{
    const char *why = NULL;
    assert_false(plan_can_run(c, k, t, &why));
    assert_non_null(why);
    if (!strstr(why, says))
        fail_msg("%s on %s: \"%s\" does not say \"%s\"", c->name, evt_target_name(t), why, says);
    assert_false(plan_listed(c, k, t));
}

static void test_can_run(void **state)
{
    (void)state;
    expect_refused(CFG(sm90_wg2_128x256x64_s4), &k_gemm_tn, EVT_TARGET_SM80, "sm_90a");
    expect_refused(CFG(sm90_pp2_128x128x64_s4), &k_conv, EVT_TARGET_SM89, "sm_90a");
    /* 16-bit operands in any layout take wgmma (transposed); fp8 ones K-contiguous only */
    assert_true(plan_can_run(CFG(sm90_wg2_128x256x64_s4), &k_gemm_nn, EVT_TARGET_SM90A, NULL));
    expect_refused(CFG(sm90_coop2_128x128x128_s4_fp8), &k_gemm_fp8_nn, EVT_TARGET_SM90A, "K-contiguous");
    expect_refused(CFG(sm90_wg2_128x256x128_s4_fp8), &k_gemm_fp8_nn, EVT_TARGET_SM90A, "K-contiguous");
    expect_refused(CFG(sm90_pp2_128x128x64_s2_staged), &k_conv, EVT_TARGET_SM90A, "staged");
    expect_refused(CFG(sm80_256x64x32_w4_s4), &k_gemm_tn, EVT_TARGET_SM80, "conv");
    expect_refused(CFG(sm90_wg2_128x128x64_s3), &k_conv, EVT_TARGET_SM90A, "GEMM");
    expect_refused(CFG(sm80_128x256x64_w8_s3), &k_gemm_tn, EVT_TARGET_SM86, "shared memory");
    /* 164 KB: one KB over sm_80's 163 */
    expect_refused(CFG(sm80_ws4_128x128x64_w4_s3), &k_conv, EVT_TARGET_SM80, "shared memory");
    assert_true(plan_can_run(CFG(sm80_ws4_128x128x64_w4_s3), &k_conv, EVT_TARGET_SM90A, NULL));
    assert_true(plan_can_run(CFG(sm90_pp2_128x128x64_s2_staged), &k_conv_st, EVT_TARGET_SM90A, NULL));
    assert_true(plan_can_run(CFG(sm80_128x256x64_w8_s3), &k_gemm_nn, EVT_TARGET_SM80, NULL));
    assert_true(plan_can_run(CFG(sm80_128x256x64_w8_s3), &k_gemm_nn, EVT_TARGET_SM90A, NULL));
    /* runnable but never picked: not listed */
    assert_false(plan_listed(CFG(sm80_128x256x32_w8_s4), &k_gemm_tn, EVT_TARGET_SM80));
    assert_false(plan_listed(CFG(sm80_ws4_128x128x64_w4_s3), &k_conv, EVT_TARGET_SM90A));
    /* the sm80 GEMM tiles of the wgmma heuristic's classic step stay unlisted on sm_90a */
    assert_false(plan_listed(CFG(sm80_128x256x64_w8_s3), &k_gemm_tn, EVT_TARGET_SM90A));
    assert_false(plan_listed(CFG(sm80_128x256x64_w8_s3), &k_gemm_nn, EVT_TARGET_SM90A));
    assert_true(plan_listed(CFG(sm90_pp2_128x128x64_s4), &k_gemm_nn, EVT_TARGET_SM90A));
    assert_true(plan_listed(CFG(sm80_128x256x64_w8_s3), &k_gemm_nn, EVT_TARGET_SM80));
    /* fp8: fp8 rows only, fp8 targets only */
    expect_refused(CFG(sm90_pp2_128x128x64_s4), &k_gemm_fp8, EVT_TARGET_SM90A, "fp8 configuration");
    expect_refused(CFG(sm80_64x64x32_w4_s4), &k_gemm_fp8, EVT_TARGET_SM89, "fp8 configuration");
    expect_refused(CFG(sm90_pp2_128x128x128_s4_fp8), &k_gemm_tn, EVT_TARGET_SM90A, "fp8 operands only");
    expect_refused(CFG(sm90_pp2_cl2_128x128x64_s4), &k_gemm_nn, EVT_TARGET_SM90A, "clustered");
    assert_true(plan_can_run(CFG(sm90_pp2_cl2_128x128x64_s4), &k_gemm_tn, EVT_TARGET_SM90A, NULL));
    expect_refused(CFG(sm80_64x64x64_w4_s4_fp8), &k_gemm_tn, EVT_TARGET_SM80, "fp8 operands only");
    expect_refused(CFG(sm80_64x64x64_w4_s4_fp8), &k_gemm_fp8, EVT_TARGET_SM80, "sm_89");
    expect_refused(CFG(sm80_128x128x128_w4_s3_fp8), &k_gemm_fp8, EVT_TARGET_SM86, "sm_89");
    expect_refused(CFG(sm90_wg2_128x256x128_s4_fp8), &k_gemm_fp8, EVT_TARGET_SM89, "sm_90a");
    expect_refused(CFG(sm90_pp2_128x128x128_s4_fp8), &k_conv, EVT_TARGET_SM90A, "GEMM");
    assert_true(plan_can_run(CFG(sm80_128x128x128_w4_s3_fp8), &k_gemm_fp8, EVT_TARGET_SM89, NULL));
    assert_true(plan_can_run(CFG(sm80_128x128x128_w4_s3_fp8), &k_gemm_fp8, EVT_TARGET_SM90A, NULL));
    assert_true(plan_listed(CFG(sm90_coop2_128x128x128_s4_fp8), &k_gemm_fp8, EVT_TARGET_SM90A));
    assert_true(plan_listed(CFG(sm80_128x128x128_w4_s3_fp8), &k_gemm_fp8, EVT_TARGET_SM89));
    assert_null(plan_kernel_target_refusal(&k_gemm_fp8, EVT_TARGET_SM89));
    assert_null(plan_kernel_target_refusal(&k_gemm_tn, EVT_TARGET_SM80));
    assert_non_null(strstr(plan_kernel_target_refusal(&k_gemm_fp8, EVT_TARGET_SM86), "sm_89"));

    /* a forced configuration that cannot run is no plan */
    plan pl;
    const char *why = NULL;
    const plan_problem p = problem(EVT_TARGET_SM80, 0, 4096, 4096, 4096, 1);
    const plan_options o = {CFG(sm90_pp2_128x128x64_s4), 0, 0};
    assert_false(plan_make(&k_gemm_tn, &p, &o, &pl, &why));
    assert_non_null(why);
    assert_non_null(strstr(why, "sm_90a"));
}

/* fp8 GEMMs take the 16-bit heuristics over the fp8 rows. */
static void test_fp8_picks(void **state)
{
    (void)state;
    /* the H200 fast path: the cooperative tile, wgmma k32 from TMA stages,
     * each k tile's products added in f32; in clusters of two where M has
     * two tile rows or more, alone where it has one */
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 4096, 4096, 8192, 132, 1),
                     T(sm90_coop2_cl2_128x128x128_s4_fp8));
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 8192, 8192, 8192, 132, 1),
                     T(sm90_coop2_cl2_128x128x128_s4_fp8));
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 129, 16384, 4096, 132, 1),
                     T(sm90_coop2_cl2_128x128x128_s4_fp8));
    /* never the tile with two epilogue warpgroups (forced and tuned only):
     * not in session 40's band of K = 2560-6144 and four waves, nor for a
     * per-element epilogue */
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 4096, 4096, 4096, 132, 1),
                     T(sm90_coop2_cl2_128x128x128_s4_fp8));
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 4096, 4096, 2560, 132, 1),
                     T(sm90_coop2_cl2_128x128x128_s4_fp8));
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 4096, 4096, 6160, 132, 1),
                     T(sm90_coop2_cl2_128x128x128_s4_fp8));
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 2048, 2048, 4096, 132, 1),
                     T(sm90_coop2_cl2_128x128x128_s4_fp8));
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 128, 131072, 4096, 132, 1),
                     T(sm90_coop2_128x128x128_s4_fp8));
    plan_kernel k_fp8_per_element = k_gemm_fp8;
    k_fp8_per_element.per_element = 1;
    assert_int_equal(pick(&k_fp8_per_element, EVT_TARGET_SM90A, 4096, 4096, 4096, 132, 1),
                     T(sm90_coop2_cl2_128x128x128_s4_fp8));
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 128, 16384, 4096, 132, 1),
                     T(sm90_coop2_128x128x128_s4_fp8));
    /* three tile rows: clusters of two would stack four, 512 tiles in four waves against
     * 384 in three; five rows of 40 columns (200 tiles, 240 clustered) keep their two waves */
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 333, 16384, 4096, 132, 1),
                     T(sm90_coop2_128x128x128_s4_fp8));
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 600, 5120, 4096, 132, 1),
                     T(sm90_coop2_cl2_128x128x128_s4_fp8));
    /* without TMA maps, mma.sync: the cp.async wgmma tiles leave K's whole
     * sum to the tensor cores' fp8 accumulation (forced use only) */
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 4096, 4096, 4096, 132, 0),
                     T(sm80_128x128x128_w4_s3_fp8));
    assert_false(plan_listed(CFG(sm90_pp2_128x128x128_s4_fp8), &k_gemm_fp8, EVT_TARGET_SM90A));
    assert_false(plan_listed(CFG(sm90_wg2_128x256x128_s4_fp8), &k_gemm_fp8, EVT_TARGET_SM90A));
    /* few tiles: 64x64 fp8 mma.sync tiles and split-K */
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 64, 256, 4096, 132, 1), T(sm80_64x64x64_w4_s4_fp8));
    /* sm_89: mma.sync m16n8k32 */
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM89, 4096, 4096, 4096, 128, 0),
                     T(sm80_128x128x128_w4_s3_fp8));
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM89, 100, 100, 100, 128, 0), T(sm80_64x64x64_w4_s4_fp8));
    /* a forced fp8 configuration on a 16-bit kernel, and the reverse, are no plan */
    plan pl;
    const char *why = NULL;
    plan_problem p = problem(EVT_TARGET_SM90A, 0, 4096, 4096, 4096, 1);
    p.conv_c = 0;
    plan_options o = {CFG(sm90_pp2_128x128x128_s4_fp8), 0, 0};
    assert_false(plan_make(&k_gemm_tn, &p, &o, &pl, &why));
    o.config = CFG(sm90_pp2_128x128x64_s4);
    assert_false(plan_make(&k_gemm_fp8, &p, &o, &pl, &why));
    o.config = CFG(sm90_pp2_128x128x128_s4_fp8);
    pl = make(&k_gemm_fp8, &p, &o);
    assert_true(pl.tma && pl.aligned && pl.splits == 1);
    /* fp8 alignment: 16 elements are a 16-byte chunk */
    assert_true(plan_gemm_aligned_elem(0, 1, 3, 5, 64, 0x1000, 64, 0x2000, 64, 1));
    assert_false(plan_gemm_aligned_elem(0, 1, 3, 5, 40, 0x1000, 64, 0x2000, 64, 1));
    assert_false(plan_gemm_aligned_elem(0, 1, 3, 5, 64, 0x1000, 72, 0x2000, 64, 1));
    assert_true(plan_gemm_aligned_elem(0, 1, 3, 5, 40, 0x1000, 72, 0x2000, 72, 2));
}

typedef struct conv_row {
    long long m, n, k;
    int sms;
    /* sm_80; sm_90a without TMA maps, with them, with them and an input to stage */
    enum evt_tile_id want[4];
} conv_row;

typedef struct gemm_row {
    long long m, n, k;
    int sms;
    /* sm_80; sm_90a (A row-major, B column-major) without TMA maps, with them */
    enum evt_tile_id want[3];
} gemm_row;

/*
 * The picks on representative shapes: the ResNet-50 conv layers at batch 128
 * as GEMM views (M = n p q, N = k, K = r s c) and GEMMs from 64 to 16384 with
 * ragged ones, on 132, 114 and 108 SMs.  The expected configurations are
 * those the per-mainloop heuristics (kernels/gemm_sm80.cuh and
 * conv_sm80.cuh of commit f6a3330) returned, translated to names.
 */
static void test_picks(void **state)
{
    (void)state;
    static const conv_row conv[] = {
        /* 16x56x56x128 -> 128 3x3 stride 2 (H200 sweep, docs/tuning.md): under
         * a wave of 128x128 tiles, the producer/consumer tile where TMA can */
        {12544, 128, 1152, 132, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        /* 8x7x7x512 -> 512 3x3: too few tiles, 64x64 and split-K; on sm_90a
         * the one-warpgroup 64x128 tile, split (test_conv_wgmma_gap) */
        {392, 512, 4608, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)}},
        {1605632, 64, 147, 132, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm90_pp2_128x64x64_s7), T(sm90_pp2_128x64x64_s7)}},
        {1605632, 64, 147, 114, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm90_pp2_128x64x64_s7), T(sm90_pp2_128x64x64_s7)}},
        {1605632, 64, 147, 108, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm90_pp2_128x64x64_s7), T(sm90_pp2_128x64x64_s7)}},
        {401408, 64, 64, 132, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4)}},
        {401408, 64, 64, 114, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4)}},
        {401408, 64, 64, 108, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4)}},
        {401408, 64, 576, 132, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm90_pp2_128x64x64_s7), T(sm90_pp2_128x64x64_s7)}},
        {401408, 64, 576, 114, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm90_pp2_128x64x64_s7), T(sm90_pp2_128x64x64_s7)}},
        {401408, 64, 576, 108, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm90_pp2_128x64x64_s7), T(sm90_pp2_128x64x64_s7)}},
        {401408, 256, 64, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_wg2_128x128x32_s6), T(sm90_pp2_128x128x64_s2_staged)}},
        {401408, 256, 64, 114, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_wg2_128x128x32_s6), T(sm90_pp2_128x128x64_s2_staged)}},
        {401408, 256, 64, 108, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_wg2_128x128x32_s6), T(sm90_pp2_128x128x64_s2_staged)}},
        {401408, 64, 256, 132, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm90_pp2_128x64x64_s7), T(sm90_pp2_128x64x64_s7)}},
        {401408, 64, 256, 114, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm90_pp2_128x64x64_s7), T(sm90_pp2_128x64x64_s7)}},
        {401408, 64, 256, 108, {T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4),
                         T(sm90_pp2_128x64x64_s7), T(sm90_pp2_128x64x64_s7)}},
        {100352, 128, 256, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {100352, 128, 256, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {100352, 128, 256, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {100352, 128, 1152, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {100352, 128, 1152, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {100352, 128, 1152, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {100352, 512, 128, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_wg2_128x128x32_s6), T(sm90_pp2_128x128x64_s2_staged)}},
        {100352, 512, 128, 114, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_wg2_128x128x32_s6), T(sm90_pp2_128x128x64_s2_staged)}},
        {100352, 512, 128, 108, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_wg2_128x128x32_s6), T(sm90_pp2_128x128x64_s2_staged)}},
        {100352, 128, 512, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {100352, 128, 512, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {100352, 128, 512, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x32_s6),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 256, 512, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg3_192x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 256, 512, 114, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 256, 512, 108, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 256, 2304, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg3_192x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 256, 2304, 114, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 256, 2304, 108, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 1024, 256, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 1024, 256, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 1024, 256, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 256, 1024, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg3_192x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 256, 1024, 114, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {25088, 256, 1024, 108, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 512, 1024, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg3_192x128x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 512, 1024, 114, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 512, 1024, 108, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 512, 4608, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg3_192x128x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 512, 4608, 114, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 512, 4608, 108, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 2048, 512, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 2048, 512, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 2048, 512, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 512, 2048, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg3_192x128x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 512, 2048, 114, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
        {6272, 512, 2048, 108, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)}},
    };
    static const gemm_row gemm[] = {
        /* from the H200 sweep (docs/tuning.md): the producer/consumer tile
         * below two tiles a consumer, the 128x256 tile where it fills its
         * waves, 64x64 and split-K for M below a tile row or few tiles, the
         * one-warpgroup 64x128 tile in their place where it has half an SM's
         * worth of tiles (an H100 probe, docs/sm90.md) */
        {512, 4096, 11008, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_pp2_cl2_128x128x64_s6)}}, /* K >= 2048, two tile rows or more: in clusters */
        {2048, 2560, 2560, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x160x64_s4)}}, /* two waves 85% full: mid_fills_waves; then two
                                                           rounds of 160 columns (c160_over_mid) */
        /* one wave 97% full at K >= 4096: the cooperative row, with maps */
        {1024, 4096, 11008, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {1024, 4096, 2048, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_wg2_128x256x64_s4)}}, /* K < 4096: the cp.async tile */
        /* eight stages where its shares are 2048 of K or more in one wave (long_shares_one_wave) */
        {32, 14336, 4096, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8)}},
        /* the 64x64 tile where its tiles fill 60% of the SMs or more (128
         * tiles, 80), or 45-50% (64), at K up to 4096 (narrow_spares_split) */
        {128, 4096, 4096, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x64x64_s8),
                         T(sm90_wg1_64x64x64_s8)}},
        {128, 2560, 2560, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg2_128x128x64_s6),
                         T(sm90_wg2_128x128x64_s6)}}, /* M in one 128-row tile: one_row_serves */
        {512, 512, 4096, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x64x64_s8),
                         T(sm90_wg1_64x64x64_s8)}},
        /* ... not at 55% (72 tiles), 36% (48) or K over 4096 */
        {200, 1152, 2816, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8)}}, /* split in one CTA an SM: deep_spares_slots */
        {64, 3072, 3072, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_wg1_64x128x64_s4)}},
        {16, 8192, 8192, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8)}},
        /* K of 512 to 1023, not whole k tiles, ping-pong tiles filling more
         * than half of one wave: that tile (session 30) */
        {512, 3000, 1000, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_pp2_128x128x64_s4)}},
        {768, 2560, 800, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_pp2_128x128x64_s4)}}, /* 120 tiles */
        /* ... but not at K a multiple of 64, nor with half a wave or less
         * (64 tiles on 132 SMs: 1000x1000x1000 below) */
        {448, 3584, 768, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_wg1_64x128x64_s4)}},
        {1024, 768, 768, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_wg1_64x128x64_s4)}},
        /* K of 1280 or less where the 64x128 tile would split: the 64x64 tile,
         * its tiles in one wave (narrow_spares_split, session 30) */
        {16, 5120, 1280, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x64x64_s8),
                         T(sm90_wg1_64x64x64_s8)}},
        {77, 3000, 1000, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x64x64_s8),
                         T(sm90_wg1_64x64x64_s8)}},
        {16, 768, 768, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x64x64_s8),
                         T(sm90_wg1_64x64x64_s8)}},
        /* past K = 4096 where the 64x128 tile splits eight ways and the
         * 64x64 tile's tiles split as far fit one wave (session 44) */
        {77, 256, 16384, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x64x64_s8),
                         T(sm90_wg1_64x64x64_s8)}},
        {16, 1024, 8192, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x64x64_s8),
                         T(sm90_wg1_64x64x64_s8)}},
        /* ... not where they do not (32 tiles x 8 > 132 SMs) */
        {512, 256, 16384, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8)}},
        /* ... not past one wave of its tiles (188), nor at longer K, nor
         * where the 64x128 tile does not split */
        {77, 6000, 1000, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_wg1_64x128x64_s4)}},
        {16, 2560, 2560, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_wg1_64x128x64_s4)}},
        {128, 16384, 256, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_wg1_64x128x64_s4)}},
        /* (with maps, aligned rows: the wgmma 64x64 tile where the sm80
         * rule's 64x64 tile was the fall-through, session 51) */
        {64, 64, 64, 132, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        {64, 64, 64, 114, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        {64, 64, 64, 108, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        {128, 128, 128, 132, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        {128, 128, 128, 114, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        {128, 128, 128, 108, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        {256, 256, 256, 132, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        {256, 256, 256, 114, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        {256, 256, 256, 108, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        {512, 512, 512, 132, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        {512, 512, 512, 114, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        {512, 512, 512, 108, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm90_wg1_64x64x64_s8)}},
        /* 128 of the 64x128 tiles: unsplit in one wave of eight stages, with
         * TMA too (64 ping-pong tiles would leave half the SMs idle) */
        {1024, 1024, 1024, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8)}},
        {1024, 1024, 1024, 114, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_pp2_128x128x64_s4)}},
        {1024, 1024, 1024, 108, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_pp2_128x128x64_s4)}},
        {2048, 2048, 2048, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_wg2_128x256x64_s4)}},
        {2048, 2048, 2048, 114, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x160x64_s4)}}, /* 77% full against 56%: mid_fills_waves; 160 */
        {2048, 2048, 2048, 108, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x160x64_s4)}}, /* 81% full against 59%: mid_fills_waves; 160 */
        {4096, 4096, 4096, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {4096, 4096, 4096, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_cl2_128x128x64_s6)}}, /* K >= 2048, two tile rows or more: in clusters */
        {4096, 4096, 4096, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {8192, 8192, 8192, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {8192, 8192, 8192, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {8192, 8192, 8192, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {16384, 16384, 16384, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {16384, 16384, 16384, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {16384, 16384, 16384, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {512, 512, 8192, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8)}},
        {512, 512, 8192, 114, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8)}},
        {512, 512, 8192, 108, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8)}},
        /* 16 of its tiles: split-K in clusters on sm_90a (small_wgmma_fills) */
        {256, 512, 16384, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8)}},
        {256, 512, 16384, 114, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8)}},
        {256, 512, 16384, 108, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s8),
                         T(sm90_wg1_64x128x64_s8)}},
        {16384, 1024, 4096, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {16384, 1024, 4096, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_cl2_128x128x64_s6)}}, /* K >= 2048, two tile rows or more: in clusters */
        {16384, 1024, 4096, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {4096, 4096, 64, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x64_s3),
                         T(sm90_wg2_128x128x64_s3)}},
        {4096, 4096, 64, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x64_s3),
                         T(sm90_wg2_128x128x64_s3)}},
        {4096, 4096, 64, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x64_s3),
                         T(sm90_wg2_128x128x64_s3)}},
        {1000, 1000, 1000, 132, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_wg1_64x128x64_s4)}},
        /* 64 ping-pong tiles fill more than half of 114 or 108 SMs, at K not
         * whole k tiles: that tile (session 30) */
        /* (in clusters of two since session 51: K = 1000 is an odd
         * multiple of 8, eight tile rows) */
        {1000, 1000, 1000, 114, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_pp2_cl2_128x128x64_s4)}},
        {1000, 1000, 1000, 108, {T(sm80_64x64x32_w4_s4), T(sm90_wg1_64x128x64_s4),
                         T(sm90_pp2_cl2_128x128x64_s4)}},
        {4095, 4097, 4095, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x64_s3),
                         T(sm90_coop2_128x256x64_s3)}}, /* its last wave split: plan_coop_tail */
        {4095, 4097, 4095, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {4095, 4097, 4095, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x64_s3),
                         T(sm90_coop2_128x192x64_s4)}}, /* 93% full against 83%: mid_fills_waves */
        {3, 5, 7, 132, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm80_64x64x32_w4_s4)}},
        {3, 5, 7, 114, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm80_64x64x32_w4_s4)}},
        {3, 5, 7, 108, {T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4),
                         T(sm80_64x64x32_w4_s4)}},
        {8191, 1023, 129, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_wg2_128x256x64_s4)}},
        {8191, 1023, 129, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4)}},
        {8191, 1023, 129, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_128x128x64_s4)}},
        {12544, 768, 3072, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x192x64_s4)}}, /* N in four of its tiles: mid_fills_waves */
        {12544, 768, 3072, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_pp2_cl2_128x128x64_s6)}}, /* K >= 2048, two tile rows or more: in clusters */
        {12544, 768, 3072, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x256x64_s4),
                         T(sm90_coop2_128x256x64_s3)}},
        {1536, 6144, 128, 132, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x64_s3),
                         T(sm90_wg2_128x128x64_s3)}},
        {1536, 6144, 128, 114, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x64_s3),
                         T(sm90_wg2_128x128x64_s3)}},
        {1536, 6144, 128, 108, {T(sm80_128x256x64_w8_s3), T(sm90_wg2_128x128x64_s3),
                         T(sm90_wg2_128x128x64_s3)}},
        {2048, 2048, 128, 132, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x128x64_s3),
                         T(sm90_wg2_128x128x64_s3)}},
        {2048, 2048, 128, 114, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x128x64_s3),
                         T(sm90_wg2_128x128x64_s3)}},
        {2048, 2048, 128, 108, {T(sm80_128x128x64_w4_s3), T(sm90_wg2_128x128x64_s3),
                         T(sm90_wg2_128x128x64_s3)}},
    };
    for (size_t i = 0; i < sizeof conv / sizeof conv[0]; i++) {
        const conv_row *r = &conv[i];
        const enum evt_tile_id got[4] = {
            pick(&k_conv, EVT_TARGET_SM80, r->m, r->n, r->k, r->sms, 1),
            pick(&k_conv, EVT_TARGET_SM90A, r->m, r->n, r->k, r->sms, 0),
            pick(&k_conv, EVT_TARGET_SM90A, r->m, r->n, r->k, r->sms, 1),
            pick(&k_conv_st, EVT_TARGET_SM90A, r->m, r->n, r->k, r->sms, 1),
        };
        for (int v = 0; v < 4; v++)
            if (got[v] != r->want[v])
                fail_msg("conv %lldx%lldx%lld on %d SMs, case %d: %s, want %s", r->m, r->n, r->k, r->sms, v,
                         plan_configs[got[v]].name, plan_configs[r->want[v]].name);
    }
    int wrong = 0; /* every wrong pick is listed before the test fails */
    for (size_t i = 0; i < sizeof gemm / sizeof gemm[0]; i++) {
        const gemm_row *r = &gemm[i];
        const enum evt_tile_id got[3] = {
            pick(&k_gemm_tn, EVT_TARGET_SM80, r->m, r->n, r->k, r->sms, 1),
            pick(&k_gemm_tn, EVT_TARGET_SM90A, r->m, r->n, r->k, r->sms, 0),
            pick(&k_gemm_tn, EVT_TARGET_SM90A, r->m, r->n, r->k, r->sms, 1),
        };
        /* M of 32 or less, K-contiguous, on sm_90a: the swapped tiles where
         * their rule takes them (test_swapped_picks); the rows' sm_90a picks
         * are those of the other layouts, checked below */
        for (int v = 0; v < 3; v++)
            if (got[v] != r->want[v] && !(v > 0 && r->m <= 32 && plan_configs[got[v]].bm < 64)) {
                print_message("gemm %lldx%lldx%lld on %d SMs, case %d: %s, want %s\n", r->m, r->n, r->k,
                              r->sms, v, plan_configs[got[v]].name, plan_configs[r->want[v]].name);
                wrong++;
            }
        /* not K-contiguous: the same sm90 picks (the transposed wgmma) but
         * unclustered (a cluster multicasts K-contiguous B tiles only), and
         * the sm80 heuristic's on sm_80 */
        /* (where the want is mma.sync's 64x64 tile for M of 32 or less, the
         * K-contiguous pick is a swapped tile, which other layouts do not
         * take: theirs is the wgmma 64x64 tile, session 51; the 128x160
         * tile takes K-contiguous operands only, so theirs is the 128x192
         * one it replaced) */
        const enum evt_tile_id nn_want = r->want[2] == T(sm90_pp2_cl2_128x128x64_s6)   ? T(sm90_pp2_128x128x64_s6)
                                         : r->want[2] == T(sm90_pp2_cl2_128x128x64_s4) ? T(sm90_pp2_128x128x64_s4)
                                         : r->want[2] == T(sm90_coop2_128x160x64_s4)   ? T(sm90_coop2_128x192x64_s4)
                                         : r->want[2] == T(sm80_64x64x32_w4_s4) && r->m <= 32
                                             ? T(sm90_wg1_64x64x64_s8)
                                             : r->want[2];
        wrong += pick(&k_gemm_nn, EVT_TARGET_SM90A, r->m, r->n, r->k, r->sms, 0) != r->want[1];
        if (pick(&k_gemm_nn, EVT_TARGET_SM90A, r->m, r->n, r->k, r->sms, 1) != nn_want) {
            print_message("gemm nn %lldx%lldx%lld on %d SMs: %s, want %s\n", r->m, r->n, r->k, r->sms,
                          plan_configs[pick(&k_gemm_nn, EVT_TARGET_SM90A, r->m, r->n, r->k, r->sms, 1)].name,
                          plan_configs[nn_want].name);
            wrong++;
        }
        wrong += pick(&k_gemm_nn, EVT_TARGET_SM80, r->m, r->n, r->k, r->sms, 1) != r->want[0];
    }
    assert_int_equal(wrong, 0);
}

/* M of 32 or less (swapped_serves and swapped_outruns, sessions 45-46): the
 * swapped tiles (B's rows as wgmma's M) where their tiles fit one wave, at K
 * of 768 or more, one problem, K-contiguous 16-bit operands on the fast path
 * (TMA maps), sm_90a: 32x64 for M of 17-32, 16x64 up to 16, 16x128 where its
 * tiles are 20 or fewer and its split grid no smaller; and only where that
 * split grid is larger than the 64-row pick's, or as large with more of B in
 * flight a CTA; at K under 768 only where the pick would be mma.sync's
 * 64x64 tile.  Not past one wave, in batches, for other layouts or
 * targets. */
static void test_swapped_picks(void **state)
{
    (void)state;
    static const struct {
        long long m, n, k;
        int sms;
        enum evt_tile_id want;
    } rows[] = {
        {16, 5120, 1280, 132, T(sm90_wg1_16x64x64_s16)},   /* 80 CTAs each; 120 KB of B against 56 */
        {1, 8192, 8192, 132, T(sm90_wg1_16x64x64_s16)},    /* 128 each (64x128 s8 split 2); 120 KB against 112 */
        {1, 4096, 11008, 132, T(sm90_wg1_16x64x64_s16)},   /* 64 x 2 against 64x128 s8's 32 x 3 */
        {16, 2560, 2560, 132, T(sm90_wg1_16x128x64_s12)},  /* 20 x 5 each: 176 KB against 48 */
        {16, 768, 768, 132, T(sm90_wg1_16x64x64_s16)},     /* 12 x 6 against 12 x 6; the 16x128's 6 x 6 */
        {4, 635, 6328, 132, T(sm90_wg1_16x64x64_s16)},     /* 10 x 8 each; the 16x128's 5 x 8 */
        {9, 1700, 2408, 132, T(sm90_wg1_16x128x64_s12)},   /* 14 x 8 each: 176 KB against 48 */
        {32, 4096, 4096, 132, T(sm90_wg1_32x64x64_s12)},   /* 64 x 2 against 64 x 2, 88 KB against 56 */
        {24, 3072, 768, 132, T(sm90_wg1_32x64x64_s12)},    /* 48 x 2 each: 88 KB against 56 */
        {11, 6350, 6392, 132, T(sm90_wg1_16x64x64_s16)},   /* 100 against 50 x 2: 120 KB against 112 */
        {32, 5828, 8920, 132, T(sm90_wg1_64x128x64_s8)},   /* 92 against 46 x 2: 88 KB against 112 */
        {28, 6116, 5264, 132, T(sm90_wg1_64x128x64_s8)},   /* the same, 96 */
        {15, 2810, 6048, 132, T(sm90_wg1_64x128x64_s4)},   /* 44 x 2 CTAs against 22 x 5 */
        {4, 4286, 6200, 132, T(sm90_wg1_16x128x64_s12)},   /* 67 unsplit against 34 x 3; then test_deep_swap */
        {16, 11008, 4096, 132, T(sm90_wg1_64x128x64_s8)},  /* 172 16x64 tiles: two waves */
        {32, 14336, 4096, 132, T(sm90_wg1_64x128x64_s8)},  /* 224 */
        {1, 8192, 8192, 114, T(sm90_wg1_16x128x64_s12)},   /* 128 tiles on 114 SMs; 64 16x128 (test_deep_swap) */
        {33, 4096, 4096, 132, T(sm90_wg1_64x64x64_s8)},    /* M past 32 */
        /* K under 768: in place of mma.sync's 64x64 tile only (session 46) */
        {16, 5120, 640, 132, T(sm90_wg1_16x64x64_s16)},    /* 80 tiles, where mma.sync's would run */
        {16, 5120, 64, 132, T(sm90_wg1_16x64x64_s16)},     /* one k tile */
        {16, 9000, 640, 132, T(sm90_wg1_64x128x64_s4)},    /* 71 64x128 tiles fill two an SM */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (int tma = 0; tma < 2; tma++) {
            const enum evt_tile_id got = pick(&k_gemm_tn, EVT_TARGET_SM90A, rows[i].m, rows[i].n, rows[i].k,
                                              rows[i].sms, tma);
            /* without TMA maps (the guarded path, unaligned rows): never swapped */
            if (!tma && plan_configs[rows[i].want].bm < 64) {
                if (plan_configs[got].bm < 64)
                    fail_msg("%lldx%lldx%lld tma 0: %s", rows[i].m, rows[i].n, rows[i].k, plan_configs[got].name);
                continue;
            }
            if (got != rows[i].want)
                fail_msg("%lldx%lldx%lld on %d SMs, tma %d: %s, want %s", rows[i].m, rows[i].n, rows[i].k,
                         rows[i].sms, tma, plan_configs[got].name, plan_configs[rows[i].want].name);
        }
    /* batches, other layouts and targets: no swapped tile */
    assert_true(plan_configs[pick_batch(&k_gemm_tn, EVT_TARGET_SM90A, 16, 5120, 1280, 2, 132, 1)].bm >= 64);
    assert_true(plan_configs[pick(&k_gemm_nn, EVT_TARGET_SM90A, 16, 5120, 1280, 132, 1)].bm >= 64);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM89, 16, 5120, 1280, 132, 1), T(sm80_64x64x32_w4_s4));
}

/* sm_86 and sm_89 cannot hold the 128x256 mma.sync tiles (a 135 KB
 * accumulator tile): where sm_80 takes one, they take the 128x128 tile. */
static void test_smem_fallback(void **state)
{
    (void)state;
    for (int t = EVT_TARGET_SM86; t <= EVT_TARGET_SM89; t++) {
        const evt_target tt = (evt_target)t;
        assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM80, 8192, 8192, 8192, 84, 1), T(sm80_128x256x64_w8_s3));
        assert_int_equal(pick(&k_gemm_tn, tt, 8192, 8192, 8192, 84, 1), T(sm80_128x128x64_w4_s3));
        assert_int_equal(pick(&k_conv, EVT_TARGET_SM80, 25088, 256, 2304, 84, 1), T(sm80_128x256x64_w8_s3));
        assert_int_equal(pick(&k_conv, tt, 25088, 256, 2304, 84, 1), T(sm80_128x128x64_w4_s3));
        /* the rest as on sm_80 */
        assert_int_equal(pick(&k_gemm_tn, tt, 2048, 2048, 2048, 84, 1), T(sm80_128x128x64_w4_s3));
        assert_int_equal(pick(&k_gemm_tn, tt, 512, 512, 512, 84, 1), T(sm80_64x64x32_w4_s4));
        assert_int_equal(pick(&k_conv, tt, 401408, 64, 576, 84, 1), T(sm80_256x64x32_w4_s4));
        /* the SMs default to the target's */
        const int sms = plan_target_info((evt_target)t)->sms_default;
        assert_int_equal(pick(&k_gemm_tn, (evt_target)t, 4096, 2048, 64, 0, 1),
                         pick(&k_gemm_tn, (evt_target)t, 4096, 2048, 64, sms, 1));
    }
}

static void test_split_k(void **state)
{
    (void)state;
    /* the planner's for a conv: under a quarter of the CTA slots filled, up
     * to four ways, four k tiles a share */
    assert_int_equal(plan_split_k(32, 4, 132, 4096, 32, 0, 0), 4); /* 64x64 tiles */
    assert_int_equal(plan_split_k(100, 2, 132, 4096, 64, 0, 0), 1); /* 100 of 264 slots: over a quarter */
    assert_int_equal(plan_split_k(60, 2, 132, 4096, 64, 0, 0), 4);  /* 264 / 60: four ways */
    assert_int_equal(plan_split_k(60, 2, 132, 512, 64, 0, 0), 2);   /* only two shares of four k tiles */
    assert_int_equal(plan_split_k(392, 2, 132, 2304, 64, 0, 0), 1); /* a whole wave and a tail */
    assert_int_equal(plan_split_k(10, 1, 132, 448, 64, 0, 0), 1);   /* K too short */
    assert_int_equal(plan_split_k(0, 1, 132, 4096, 64, 0, 0), 1);
    /* ... and eight ways where eight shares a tile stay within the SMs
     * a cluster's sum reaches (118 of 132), 512 of K a share (session 38) */
    assert_int_equal(plan_split_k(14, 1, 132, 4096, 64, 0, 0), 8);
    assert_int_equal(plan_split_k(14, 4, 132, 4096, 32, 0, 0), 8);
    assert_int_equal(plan_split_k(15, 1, 132, 4096, 64, 0, 0), 4); /* 120 CTAs: past 118 */
    assert_int_equal(plan_split_k(14, 1, 132, 4095, 64, 0, 0), 4); /* shares under 512 of K */
    /* ... and at K >= 8192 where eight shares a tile fit one wave of the
     * CTA slots (session 39) */
    assert_int_equal(plan_split_k(16, 1, 132, 8192, 64, 0, 0), 8);
    assert_int_equal(plan_split_k(52, 4, 132, 23912, 32, 0, 0), 8); /* 416 of 528 slots */
    assert_int_equal(plan_split_k(17, 1, 132, 8192, 64, 0, 0), 4);  /* 136 CTAs: past 132 */
    assert_int_equal(plan_split_k(16, 1, 132, 8191, 64, 0, 0), 4);  /* K under 8192 */
    assert_int_equal(plan_split_k(32, 4, 132, 16384, 32, 0, 0), 8);
    /* a GEMM's: at most half the slots filled, as many ways as fill them
     * once, up to eight, 512 of K a share */
    assert_int_equal(plan_split_k(32, 4, 132, 16384, 32, 1, 0), 8); /* 256x512x16384, 64x64 tiles */
    assert_int_equal(plan_split_k(64, 4, 132, 8192, 32, 1, 0), 8);  /* 512x512x8192 */
    assert_int_equal(plan_split_k(128, 4, 132, 4096, 32, 1, 0), 4); /* 528 / 128 */
    assert_int_equal(plan_split_k(172, 4, 132, 4096, 32, 1, 0), 3); /* 172 of 528: under half */
    assert_int_equal(plan_split_k(265, 4, 132, 4096, 32, 1, 0), 1); /* over half */
    assert_int_equal(plan_split_k(72, 4, 132, 768, 32, 1, 0), 1);   /* shares of 512 of K: one */
    assert_int_equal(plan_split_k(94, 4, 132, 1000, 32, 1, 0), 1);
    assert_int_equal(plan_split_k(40, 4, 132, 2560, 32, 1, 0), 5);
    assert_int_equal(plan_split_k(0, 1, 132, 4096, 64, 1, 0), 1);
    /* a batch's tiles saturate at LLONG_MAX: no overflow, no split */
    assert_int_equal(plan_split_k(LLONG_MAX, 4, 132, 1LL << 40, 32, 1, 0), 1);
    assert_int_equal(plan_split_k(LLONG_MAX, 4, 132, 1LL << 40, 32, 0, 0), 1);
    assert_int_equal(plan_split_k(LLONG_MAX, 4, 132, 1LL << 40, 32, 1, 1), 1);
    /* a GEMM's whose shares sum in their cluster (sm_90a): tiles up to
     * half of nine tenths of the SMs (59 of 132) split into as many shares
     * as fit in those SMs, up to eight, 128 of K a share, unless under half
     * of the slots' rule's; more tiles as without clusters */
    assert_int_equal(plan_cluster_split_tiles(132), 59);
    assert_int_equal(plan_split_k(6, 2, 132, 768, 64, 1, 1), 6);    /* 16x768x768: 6 shares of 128 */
    assert_int_equal(plan_split_k(6, 2, 132, 768, 64, 1, 0), 1);    /* without clusters: 512 a share */
    assert_int_equal(plan_split_k(8, 2, 132, 4096, 64, 1, 1), 8);    /* 118 / 8, at most eight */
    assert_int_equal(plan_split_k(16, 2, 132, 4096, 64, 1, 1), 7);   /* 118 / 16, over half of 8 */
    assert_int_equal(plan_split_k(32, 2, 132, 4096, 64, 1, 1), 8);   /* 118 / 32 = 3, under half of 8 */
    assert_int_equal(plan_split_k(32, 2, 132, 4096, 64, 1, 0), 8);   /* 264 / 32 */
    assert_int_equal(plan_split_k(48, 2, 132, 1000, 64, 1, 1), 2);   /* 77x3000x1000: 1 without */
    assert_int_equal(plan_split_k(40, 2, 132, 2560, 64, 1, 1), 5);   /* 2 in clusters, under half of 5 */
    assert_int_equal(plan_split_k(59, 2, 132, 4096, 64, 1, 1), 2);   /* 118 / 59 = 2: half of 4, taken */
    assert_int_equal(plan_split_k(60, 2, 132, 4096, 64, 1, 1), 4);   /* the slots' rule: 264 / 60 */
    assert_int_equal(plan_split_k(86, 2, 132, 4096, 64, 1, 1), 3);   /* 16x11008x4096 as before */
    assert_int_equal(plan_split_k(40, 2, 132, 200, 64, 1, 1), 1);    /* one share of 128 of K */
    assert_int_equal(plan_split_k(20, 2, 132, 300, 64, 1, 1), 2);
    assert_int_equal(plan_split_k(10, 2, 132, 4096, 64, 0, 1), 8);   /* a conv's rule is the same (eight shares) */
    assert_int_equal(plan_split_k(0, 2, 132, 4096, 64, 1, 1), 1);

    /* the one-warpgroup 64x64 tile on one GEMM problem at K <= 512: unsplit
     * (session 74); past 512 of K, or batched (the tile forced there),
     * plan_split_k's shares */
    const struct {
        long long m, n, k, batch;
        int splits;
    } own[] = {
        {128, 128, 256, 1, 1}, {77, 1000, 256, 1, 1}, {154, 1072, 328, 1, 1}, {402, 128, 408, 1, 1},
        {200, 300, 512, 1, 1}, {200, 300, 520, 1, 4}, {128, 768, 768, 1, 4},  {128, 128, 256, 2, 2},
    };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        plan_problem q = problem(EVT_TARGET_SM90A, 132, own[i].m, own[i].n, own[i].k, 1);
        q.conv_c = 0;
        q.batch = own[i].batch;
        const plan_options wg = {CFG(sm90_wg1_64x64x64_s8), 0, 0}; /* the split the planner's own */
        const plan got = make(&k_gemm_tn, &q, own[i].batch > 1 ? &wg : NULL);
        if (got.config != CFG(sm90_wg1_64x64x64_s8) || got.splits != own[i].splits)
            fail_msg("%lldx%lldx%lld batch %lld: %s split %d, want sm90_wg1_64x64x64_s8 split %d", own[i].m,
                     own[i].n, own[i].k, own[i].batch, got.config->name, got.splits, own[i].splits);
    }

    plan_problem p = problem(EVT_TARGET_SM90A, 132, 512, 512, 8192, 1);
    p.conv_c = 0;
    plan pl = make(&k_gemm_tn, &p, NULL);
    /* eight stages, one CTA an SM: 132 / 32 = 4 shares, 3 in clusters (118 / 32), 2730 of K each */
    assert_int_equal(pl.config->id, T(sm90_wg1_64x128x64_s8));
    assert_int_equal(pl.tiles, 32);
    assert_int_equal(pl.splits, 3);
    assert_int_equal(pl.grid, 96);
    const plan_options small = {CFG(sm80_64x64x32_w4_s4), 0, 0};
    pl = make(&k_gemm_tn, &p, &small);
    assert_int_equal(pl.tiles, 64);
    assert_int_equal(pl.splits, 8);
    assert_int_equal(pl.grid, 512);
    plan_options o = {CFG(sm80_64x64x32_w4_s4), 1, 0}; /* never */
    pl = make(&k_gemm_tn, &p, &o);
    assert_int_equal(pl.splits, 1);
    assert_int_equal(pl.grid, 64);
    o.split_k = 7; /* as asked where K has the k tiles */
    assert_int_equal(make(&k_gemm_tn, &p, &o).splits, 7);
    p.k = 96; /* three k tiles of 32 */
    assert_int_equal(make(&k_gemm_tn, &p, &o).splits, 3);
    o.split_k = 2;
    p.k = 32; /* one */
    pl = make(&k_gemm_tn, &p, &o);
    assert_int_equal(pl.splits, 1);
    assert_int_equal(pl.grid, pl.tiles);
    o.split_k = -1;
    const char *why = NULL;
    assert_false(plan_make(&k_gemm_tn, &p, &o, &pl, &why));
    assert_non_null(why);
    /* a persistent configuration never splits its tiles (test_tail splits
     * its last wave); its grid is one CTA a slot */
    const plan_options forced = {CFG(sm80_ws4_128x128x64_w4_s3), 1, 0};
    p = problem(EVT_TARGET_SM90A, 132, 401408, 256, 64, 1);
    pl = make(&k_conv, &p, &forced);
    assert_int_equal(pl.splits, 1);
    assert_int_equal(pl.tail_splits, 1);
    assert_int_equal(pl.tiles, 3136 * 2);
    assert_int_equal(pl.tail_first, pl.tiles);
    assert_int_equal(pl.grid, 132);
    p.m = 128; /* two tiles: two CTAs */
    assert_int_equal(make(&k_conv, &p, &forced).grid, 2);
    /* forced ways on the largest problems: a grid of at most 2^31 - 1 CTAs */
    p = problem(EVT_TARGET_SM80, 108, 2147483647LL, 2147483647LL, 2147483647LL, 1);
    const plan_options many = {CFG(sm80_64x64x32_w4_s4), 1 << 30, 0};
    pl = make(&k_conv, &p, &many);
    assert_int_equal(pl.splits, 1);
    assert_true(pl.grid == (1LL << 50));
    p.m = p.n = 4096;
    pl = make(&k_conv, &p, &many);
    assert_true(pl.splits > 1 && pl.grid <= 2147483647LL && pl.grid == pl.tiles * pl.splits);
}

/* A persistent plan's tail: its last wave split along K by a configuration
 * of the same tile shape (plan.h). */
static void test_tail(void **state)
{
    (void)state;
    /* the tail configurations: the same tile, wgmma for 16-bit operands,
     * mma.sync for fp8 (f32 sums), none for clusters or a tile no plain
     * configuration has */
    assert_ptr_equal(plan_tail_config(CFG(sm90_pp2_128x128x64_s4), &k_gemm_tn, EVT_TARGET_SM90A),
                     CFG(sm90_wg2_128x128x64_s3));
    assert_ptr_equal(plan_tail_config(CFG(sm90_pp2_128x128x64_s4), &k_conv, EVT_TARGET_SM90A),
                     CFG(sm90_wg2_128x128x32_s6));
    assert_ptr_equal(plan_tail_config(CFG(sm90_pp2_128x64x64_s7), &k_conv, EVT_TARGET_SM90A),
                     CFG(sm80_128x64x64_w4_s3));
    assert_ptr_equal(plan_tail_config(CFG(sm90_coop2_128x128x128_s4_fp8), &k_gemm_fp8, EVT_TARGET_SM90A),
                     CFG(sm80_128x128x128_w4_s3_fp8));
    assert_ptr_equal(plan_tail_config(CFG(sm90_pp2_128x128x64_s2_staged), &k_conv_st, EVT_TARGET_SM90A),
                     CFG(sm90_wg2_128x128x32_s6));
    assert_null(plan_tail_config(CFG(sm90_pp2_cl2_128x128x64_s4), &k_gemm_tn, EVT_TARGET_SM90A));
    assert_null(plan_tail_config(CFG(sm90_coop2_256x128x64_s3), &k_gemm_tn, EVT_TARGET_SM90A));
    assert_ptr_equal(plan_tail_config(CFG(sm90_coop2_128x256x64_s3), &k_gemm_tn, EVT_TARGET_SM90A),
                     CFG(sm90_wg2_128x256x64_s4));
    assert_null(plan_tail_config(CFG(sm90_wg2_128x128x64_s3), &k_gemm_tn, EVT_TARGET_SM90A));

    /* the planner's own tail: a cooperative plan on sm_90a whose last of two
     * or more waves is a quarter of the SMs or less, at K >= 2048, split as
     * many ways as fit in 118 SMs, up to four */
    const plan_config *coop = CFG(sm90_coop2_128x256x64_s3);
    int ways = 0;
    assert_int_equal(plan_coop_tail(coop, 688, 132, 4096, &ways), 28); /* 2048x11008x4096 */
    assert_int_equal(ways, 4);
    assert_int_equal(plan_coop_tail(coop, 144, 132, 4096, &ways), 12);
    assert_int_equal(ways, 4);
    assert_int_equal(plan_coop_tail(coop, 132 + 33, 132, 4096, &ways), 33);
    assert_int_equal(ways, 3);
    assert_int_equal(plan_coop_tail(coop, 132 + 34, 132, 4096, &ways), 0); /* over a quarter */
    assert_int_equal(ways, 1);
    assert_int_equal(plan_coop_tail(coop, 128, 132, 4096, &ways), 0);  /* one wave */
    assert_int_equal(plan_coop_tail(coop, 264, 132, 4096, &ways), 0);  /* whole waves */
    assert_int_equal(plan_coop_tail(coop, 688, 132, 2047, &ways), 0);  /* K short */
    assert_int_equal(plan_coop_tail(CFG(sm90_pp2_128x128x64_s4), 688, 132, 4096, &ways), 0);
    assert_int_equal(plan_coop_tail(CFG(sm90_coop2_128x128x128_s4_fp8), 688, 132, 4096, &ways), 0);
    plan_problem pc = problem(EVT_TARGET_SM90A, 132, 2048, 11008, 4096, 1);
    pc.conv_c = 0;
    plan pt = make(&k_gemm_tn, &pc, NULL);
    assert_ptr_equal(pt.config, coop);
    assert_int_equal(pt.tiles, 688);
    assert_ptr_equal(pt.tail_config, CFG(sm90_wg2_128x256x64_s4));
    assert_int_equal(pt.tail_first, 660);
    assert_int_equal(pt.tail_splits, 4);
    assert_int_equal(pt.grid, 132);
    const plan_options whole = {NULL, 1, 0}; /* never split: no tail */
    pt = make(&k_gemm_tn, &pc, &whole);
    assert_ptr_equal(pt.config, coop);
    assert_true(pt.tail_splits == 1 && pt.tail_config == NULL);
    pc.target = EVT_TARGET_SM80; /* no clusters, no cooperative tile */
    pt = make(&k_gemm_tn, &pc, NULL);
    assert_true(pt.tail_splits == 1 && pt.tail_config == NULL);

    /* the unstaged 128x64 ping-pong tile's GEMMs on the same terms
     * (plan_own_tail, session 73): 148 tiles leave 16, split four ways;
     * 163 leave 31, three; 172 leave 40, none; and never on a conv, a
     * batch or another ping-pong tile */
    const plan_config *s7 = CFG(sm90_pp2_128x64x64_s7);
    assert_int_equal(plan_own_tail(s7, &k_gemm_tn, 1, 148, 132, 6784, &ways), 16);
    assert_int_equal(ways, 4);
    assert_int_equal(plan_own_tail(s7, &k_gemm_tn, 1, 163, 132, 4096, &ways), 31);
    assert_int_equal(ways, 3);
    assert_int_equal(plan_own_tail(s7, &k_gemm_tn, 1, 172, 132, 4096, &ways), 0);
    assert_int_equal(plan_own_tail(s7, &k_gemm_tn, 1, 148, 132, 2047, &ways), 0);
    assert_int_equal(plan_own_tail(s7, &k_conv, 1, 148, 132, 6784, &ways), 0);
    assert_int_equal(plan_own_tail(s7, &k_gemm_tn, 2, 148, 132, 6784, &ways), 0);
    assert_int_equal(plan_own_tail(CFG(sm90_pp2_128x128x64_s4), &k_gemm_tn, 1, 148, 132, 6784, &ways), 0);
    assert_int_equal(plan_own_tail(coop, &k_gemm_tn, 1, 688, 132, 4096, &ways), 28); /* the cooperative rule */
    plan_problem pn = problem(EVT_TARGET_SM90A, 132, 18865, 32, 6784, 1);
    pn.conv_c = 0;
    pt = make(&k_gemm_tn, &pn, NULL);
    assert_ptr_equal(pt.config, s7);
    assert_int_equal(pt.tail_first, 132);
    assert_int_equal(pt.tail_splits, 4);
    assert_ptr_equal(pt.tail_config, CFG(sm90_wg2_128x64x64_s8));
    pt = make(&k_gemm_tn, &pn, &whole);
    assert_true(pt.tail_splits == 1 && pt.tail_config == NULL);

    /* forced: 8 x 20 tiles on 132 SMs leave 28 in the last wave, split four
     * ways; the planner's own plan splits none here (one wave of the
     * cooperative 128x192 tile, which has no tail configuration) */
    plan_problem p = problem(EVT_TARGET_SM90A, 132, 1000, 2560, 2560, 1);
    p.conv_c = 0;
    plan pl = make(&k_gemm_tn, &p, NULL);
    assert_ptr_equal(pl.config, CFG(sm90_coop2_128x192x64_s4));
    assert_int_equal(pl.tiles, 112);
    assert_true(pl.tail_splits == 1 && pl.tail_first == pl.tiles && pl.tail_config == NULL);
    plan_options o = {CFG(sm90_pp2_128x128x64_s4), 4, 0};
    pl = make(&k_gemm_tn, &p, &o);
    assert_int_equal(pl.tiles, 160);
    assert_int_equal(pl.splits, 1);
    assert_ptr_equal(pl.tail_config, CFG(sm90_wg2_128x128x64_s3));
    assert_int_equal(pl.tail_first, 132);
    assert_int_equal(pl.tail_splits, 4);
    assert_true(pl.tail_aligned);
    assert_int_equal(pl.grid, 132);
    char buf[128];
    plan_describe(&pl, EVT_TARGET_SM90A, buf, sizeof buf);
    assert_string_equal(buf, "sm_90a sm90_pp2_128x128x64_s4 fast tma grid 132 splits 1 tail 28 x 4 "
                             "sm90_wg2_128x128x64_s3");
    /* never (1), the planner's (0): none; a K of one k tile: none */
    o.split_k = 1;
    pl = make(&k_gemm_tn, &p, &o);
    assert_true(pl.tail_splits == 1 && pl.tail_first == pl.tiles && pl.grid == 132);
    o.split_k = 0;
    assert_int_equal(make(&k_gemm_tn, &p, &o).tail_splits, 1);
    o.split_k = 4;
    p.k = 64;
    assert_int_equal(make(&k_gemm_tn, &p, &o).tail_splits, 1);
    /* forced ways: the last wave's tiles (1024 tiles: 100 in the last wave) */
    p = problem(EVT_TARGET_SM90A, 132, 4096, 4096, 4096, 1);
    p.conv_c = 0;
    o = (plan_options){CFG(sm90_pp2_128x128x64_s4), 3, 0};
    pl = make(&k_gemm_tn, &p, &o);
    assert_int_equal(pl.tail_first, 1024 - 100);
    assert_int_equal(pl.tail_splits, 3);
    assert_int_equal(pl.grid, 132);
    /* ... all of a problem of no more than a wave: no persistent launch */
    p.m = p.n = 300;
    pl = make(&k_gemm_tn, &p, &o);
    assert_int_equal(pl.tiles, 9);
    assert_int_equal(pl.tail_first, 0);
    assert_int_equal(pl.grid, 0);
    assert_int_equal(pl.tail_splits, 3);
    /* ... at most K's k tiles; none where there is no tail configuration */
    p.k = 128;
    assert_int_equal(make(&k_gemm_tn, &p, &o).tail_splits, 2);
    o.config = CFG(sm90_pp2_cl2_128x128x64_s4);
    pl = make(&k_gemm_tn, &p, &o);
    assert_true(pl.tail_splits == 1 && pl.tail_first == pl.tiles && pl.tail_config == NULL);
    /* a batch's tiles are walked as one problem's: its last wave splits */
    p = problem(EVT_TARGET_SM90A, 132, 256, 256, 4096, 1);
    p.conv_c = 0;
    p.batch = 35; /* 140 tiles */
    o = (plan_options){CFG(sm90_pp2_128x128x64_s4), 4, 0};
    pl = make(&k_gemm_tn, &p, &o);
    assert_int_equal(pl.tiles, 140);
    assert_int_equal(pl.tail_first, 132);
    assert_int_equal(pl.tail_splits, 4);
    /* conv, fp8 */
    p = problem(EVT_TARGET_SM90A, 132, 8 * 28 * 28, 512, 9 * 128, 1);
    p.conv_c = 128;
    o = (plan_options){CFG(sm90_pp2_128x128x64_s4), 2, 0};
    pl = make(&k_conv, &p, &o);
    assert_ptr_equal(pl.tail_config, CFG(sm90_wg2_128x128x32_s6));
    assert_int_equal(pl.tail_first, pl.tiles - pl.tiles % 132);
    p = problem(EVT_TARGET_SM90A, 132, 1000, 2560, 2560, 1);
    p.conv_c = 0;
    o = (plan_options){CFG(sm90_coop2_128x128x128_s4_fp8), 2, 0};
    pl = make(&k_gemm_fp8, &p, &o);
    assert_ptr_equal(pl.tail_config, CFG(sm80_128x128x128_w4_s3_fp8));
    assert_int_equal(pl.tail_first, 132);
}

/* A GEMM whose epilogue reads a 16-bit [M, N] input takes the staged
 * producer/consumer tile on the conv's terms: K of one or two k tiles, N
 * over 64, two tiles a consumer, TMA maps; else what any GEMM takes. */
/* Stream-K (plan.h): the tiles before sk_first whole, a grid's worth at a
 * time; the rest's k tiles shared by the grid.  Forced only (2), on the
 * cooperative configurations, GEMM and conv, in place of a tail; under
 * clusters the units are clusters and the tiles stacks. */
static void test_stream_k(void **state)
{
    (void)state;
    const plan_config *coop = CFG(sm90_coop2_128x256x64_s3);
    assert_true(plan_config_stream_k(coop));
    assert_true(plan_config_stream_k(CFG(sm90_coop2_128x128x128_s4_fp8)));
    assert_true(plan_config_stream_k(CFG(sm90_coop2_cl2_128x256x64_s3)));
    assert_true(plan_config_stream_k(CFG(sm90_coop2_cl2_128x128x128_s4_fp8)));
    assert_true(plan_config_stream_k(CFG(sm90_coop2_128x192x64_s4)));
    assert_false(plan_config_stream_k(CFG(sm90_pp2_128x128x64_s4)));

    /* 8 x 10 tiles of 40 k tiles, fewer than the SMs: all shared, one CTA an SM */
    plan_problem p = problem(EVT_TARGET_SM90A, 132, 1000, 2560, 2560, 1);
    p.conv_c = 0;
    plan_options o = {coop, 0, 2};
    plan pl = make(&k_gemm_tn, &p, &o);
    assert_true(pl.sk_iters > 0);
    assert_int_equal(pl.tiles, 80);
    assert_int_equal(pl.sk_first, 0);
    assert_int_equal(pl.sk_iters, 80 * 40);
    assert_int_equal(pl.grid, 132);
    assert_true(pl.tail_splits == 1 && pl.tail_first == 80 && pl.tail_config == NULL);
    char buf[128];
    plan_describe(&pl, EVT_TARGET_SM90A, buf, sizeof buf);
    assert_string_equal(buf, "sm_90a sm90_coop2_128x256x64_s3 fast tma grid 132 splits 1 stream-K 80 tiles");
    /* a forced tail gives way to it */
    o.split_k = 4;
    pl = make(&k_gemm_tn, &p, &o);
    assert_true(pl.sk_iters > 0 && pl.tail_splits == 1);
    o.split_k = 0;

    /* 32 x 16 = 512 tiles: two waves whole, the third and the 116 after it shared */
    p = problem(EVT_TARGET_SM90A, 132, 4096, 4096, 4096, 1);
    p.conv_c = 0;
    pl = make(&k_gemm_tn, &p, &o);
    assert_int_equal(pl.sk_first, 264);
    assert_int_equal(pl.sk_iters, (512 - 264) * 64);
    assert_int_equal(pl.grid, 132);
    /* a batch counts its problems' tiles together */
    p.batch = 3;
    pl = make(&k_gemm_tn, &p, &o);
    assert_int_equal(pl.tiles, 1536);
    assert_int_equal(pl.sk_first, (1536 / 132 - 1) * 132);
    p.batch = 1;

    /* fewer k tiles than SMs: a CTA a k tile */
    p = problem(EVT_TARGET_SM90A, 132, 100, 200, 128, 1);
    p.conv_c = 0;
    pl = make(&k_gemm_tn, &p, &o);
    assert_int_equal(pl.sk_iters, 2);
    assert_int_equal(pl.grid, 2);

    /* the planner's (0) and never (1): none; elsewhere forced: none */
    p = problem(EVT_TARGET_SM90A, 132, 1000, 2560, 2560, 1);
    p.conv_c = 0;
    const plan_options auto_ = {coop, 0, 0}, never = {coop, 0, 1}, pp = {CFG(sm90_pp2_128x128x64_s4), 0, 2};
    assert_int_equal(make(&k_gemm_tn, &p, &auto_).sk_iters, 0);
    assert_int_equal(make(&k_gemm_tn, &p, &never).sk_iters, 0);
    assert_int_equal(make(&k_gemm_tn, &p, &pp).sk_iters, 0);
    assert_int_equal(make(&k_gemm_tn, &p, NULL).sk_iters, 0);
    /* more shared k tiles than an int counts: none */
    p = problem(EVT_TARGET_SM90A, 132, 1000, 2560, 1LL << 33, 1);
    p.conv_c = 0;
    assert_int_equal(make(&k_gemm_tn, &p, &o).sk_iters, 0);
    /* out of range */
    const plan_options bad = {coop, 0, 3};
    const char *why = NULL;
    assert_false(plan_make(&k_gemm_tn, &p, &bad, &pl, &why));
    assert_non_null(strstr(why, "stream-K"));

    /* a conv on the cooperative 128x192 tile (session 77): 8 x 28 x 28
     * pixels make 49 tile rows by 2 columns, 98 tiles, all shared.  Its
     * TMA loads walk each 3x3 tap's c = 200 channels in four k tiles of 64
     * (the last zero-filled past 200), 36 a tile; the guarded path walks
     * K = 1800 flat, 29 */
    const plan_config *coop192 = CFG(sm90_coop2_128x192x64_s4);
    const plan_options conv_sk = {coop192, 0, 2};
    p = problem(EVT_TARGET_SM90A, 132, 8 * 28 * 28, 384, 9 * 200, 1);
    p.conv_c = 200;
    pl = make(&k_conv, &p, &conv_sk);
    assert_true(pl.tma);
    assert_int_equal(pl.tiles, 98);
    assert_int_equal(pl.sk_first, 0);
    assert_int_equal(pl.sk_k_tiles, 36);
    assert_int_equal(pl.sk_iters, 98 * 36);
    assert_int_equal(pl.grid, 132);
    p.aligned = 0;
    pl = make(&k_conv, &p, &conv_sk);
    assert_false(pl.tma);
    assert_int_equal(pl.sk_k_tiles, 29);
    assert_int_equal(pl.sk_iters, 98 * 29);
    /* c a multiple of 64: the two agree (1x1, K = 512: 8) */
    p = problem(EVT_TARGET_SM90A, 132, 64 * 7 * 7, 2048, 512, 1);
    p.conv_c = 512;
    pl = make(&k_conv, &p, &conv_sk);
    assert_true(pl.tma);
    assert_int_equal(pl.sk_k_tiles, 8);
    /* the ping-pong conv tiles have none */
    const plan_options conv_pp = {CFG(sm90_pp2_128x128x64_s4), 0, 2};
    assert_int_equal(make(&k_conv, &p, &conv_pp).sk_iters, 0);
}

/* Stream-K under clusters of two: 1000 rows make 4 stacks of 256 by 10
 * columns, 40 stacks of 40 k tiles shared by 66 clusters; plan_fit_clusters
 * shares them again over the clusters the device holds at once, or runs
 * them whole where it cannot say. */
static void test_stream_k_clusters(void **state)
{
    (void)state;
    const plan_config *cl2 = CFG(sm90_coop2_cl2_128x256x64_s3);
    plan_problem p = problem(EVT_TARGET_SM90A, 132, 1000, 2560, 2560, 1);
    p.conv_c = 0;
    const plan_options o = {cl2, 0, 2};
    plan pl = make(&k_gemm_tn, &p, &o);
    assert_int_equal(pl.tiles, 80);
    assert_int_equal(pl.sk_first + pl.sk_iters / pl.sk_k_tiles, 40); /* the walk's stacks */
    assert_int_equal(pl.sk_first, 0);
    assert_int_equal(pl.sk_iters, 40 * 40);
    assert_int_equal(pl.grid, 132);
    char buf[128];
    plan_describe(&pl, EVT_TARGET_SM90A, buf, sizeof buf);
    assert_string_equal(buf, "sm_90a sm90_coop2_cl2_128x256x64_s3 fast tma grid 132 splits 1 stream-K 40 stacks");
    /* 62 clusters resident: shared over 62 */
    plan fit = pl;
    plan_fit_clusters(&fit, 62);
    assert_int_equal(fit.grid, 124);
    assert_int_equal(fit.sk_iters, 40 * 40);
    /* more resident than launched: as planned */
    fit = pl;
    plan_fit_clusters(&fit, 80);
    assert_int_equal(fit.grid, 132);
    assert_int_equal(fit.sk_iters, 40 * 40);
    /* unknown: whole stacks, a cluster each */
    fit = pl;
    plan_fit_clusters(&fit, 0);
    assert_int_equal(fit.sk_iters, 0);
    assert_int_equal(fit.sk_first, fit.tiles);
    assert_int_equal(fit.grid, 80);

    /* 4096 x 8192: 16 x 32 = 512 stacks, more than the clusters: the last
     * whole wave (of 62) and the partial one after it shared */
    p.m = 4096;
    p.n = 8192;
    pl = make(&k_gemm_tn, &p, &o);
    assert_int_equal(pl.sk_first + pl.sk_iters / pl.sk_k_tiles, 512);
    assert_int_equal(pl.sk_first, (512 / 66 - 1) * 66);
    fit = pl;
    plan_fit_clusters(&fit, 62);
    assert_int_equal(fit.grid, 124);
    assert_int_equal(fit.sk_first, (512 / 62 - 1) * 62);
    assert_int_equal(fit.sk_iters, (512 - fit.sk_first) * 40); /* K 2560: 40 k tiles */
    /* whole stacks under clusters: only the grid is cut */
    const plan_options whole = {cl2, 0, 1};
    pl = make(&k_gemm_tn, &p, &whole);
    assert_int_equal(pl.sk_iters, 0);
    plan_fit_clusters(&pl, 62);
    assert_int_equal(pl.grid, 124);
    assert_int_equal(pl.sk_first, pl.tiles);
}

/* plan.direct_tiles: N whole tiles of the plan's configuration, whatever
 * M for a GEMM, M whole too for a conv, in the main plan and its tail
 * (api/launch.c keeps the shared-tile epilogue on anything else); or, for
 * a GEMM, N over one tile and a multiple of plan_kernel.shift_cols (its
 * last tile column shifted left, wholly inside).  kind: 0 a GEMM with
 * 16-bit outputs (shift_cols 8), 1 a conv, 2 a GEMM with f32 outputs (4). */
static void test_direct_tiles(void **state)
{
    (void)state;
    plan_kernel k_gemm_32 = k_gemm_tn;
    k_gemm_32.shift_cols = 4;
    const plan_kernel *kinds[] = {&k_gemm_tn, &k_conv, &k_gemm_32};
    static const struct {
        long long m, n, k, batch;
        const char *config;
        int whole;
        int kind;
    } cases[] = {
        {4096, 4096, 4096, 1, "sm90_pp2_128x128x64_s4", 1, 0},
        {1000, 4096, 4096, 1, "sm90_pp2_128x128x64_s4", 1, 0}, /* edge rows only */
        {4096, 4000, 4096, 1, "sm90_pp2_128x128x64_s4", 1, 0}, /* the last tile column shifted by 96 */
        {1000, 1000, 4096, 1, "sm90_pp2_128x128x64_s4", 1, 0},
        {4096, 4004, 4096, 1, "sm90_pp2_128x128x64_s4", 0, 0}, /* not whole 16-byte pieces */
        {4096, 4004, 4096, 1, "sm90_pp2_128x128x64_s4", 1, 2}, /* ... of f16, but of f32 */
        {4096, 4002, 4096, 1, "sm90_pp2_128x128x64_s4", 0, 2},
        {4096, 120, 4096, 1, "sm90_pp2_128x128x64_s4", 0, 0}, /* no whole tile to shift */
        {4096, 128, 4096, 1, "sm90_pp2_128x128x64_s4", 1, 0},
        {4096, 4096, 4096, 1, "sm90_coop2_128x256x64_s4", 1, 0},
        {4096, 4224, 4096, 1, "sm90_coop2_128x256x64_s4", 1, 0}, /* 128 but not 256 columns */
        {4096, 136, 4096, 1, "sm90_coop2_128x256x64_s4", 0, 0},
        {4096, 4224, 4096, 1, "sm90_coop2_cl2_128x256x64_s4", 0, 0}, /* clusters keep their columns */
        {4096, 4096, 4096, 1, "sm90_coop2_cl2_128x256x64_s4", 1, 0},
        {4096, 4000, 4096, 1, "sm90_pp2_cl2_128x128x64_s4", 1, 0},
        {384, 512, 1024, 3, "sm90_pp2_128x128x64_s4", 1, 0},
        {384, 520, 1024, 3, "sm90_pp2_128x128x64_s4", 1, 0},
        {384, 517, 1024, 3, "sm90_pp2_128x128x64_s4", 0, 0},
        {4096, 256, 576, 1, "sm90_pp2_128x128x64_s4", 1, 1}, /* a conv: M = n p q, N = k, K = r s c */
        {4000, 256, 576, 1, "sm90_pp2_128x128x64_s4", 0, 1}, /* edge rows keep the shared tile */
        {4096, 200, 576, 1, "sm90_pp2_128x128x64_s4", 0, 1}, /* and its columns are never shifted */
    };
    int tails[2] = {0, 0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        plan_problem p = problem(EVT_TARGET_SM90A, 132, cases[i].m, cases[i].n, cases[i].k, 1);
        p.conv_c = cases[i].kind == 1 ? 64 : 0;
        p.batch = cases[i].batch;
        const plan_options o = {plan_config_find(cases[i].config), 2, 0}; /* a tail where persistent */
        const plan pl = make(kinds[cases[i].kind], &p, &o);
        if (pl.direct_tiles != cases[i].whole)
            fail_msg("%lldx%lldx%lld on %s: direct_tiles %d", cases[i].m, cases[i].n, cases[i].k, cases[i].config,
                     pl.direct_tiles);
        if (pl.tail_splits > 1) {
            assert_int_equal(plan_tail_plan(&pl).direct_tiles, cases[i].whole);
            tails[cases[i].whole]++;
        }
    }
    assert_true(tails[0] > 0 && tails[1] > 0); /* the tail's copy was checked, both ways */
}

static void test_gemm_staged(void **state)
{
    (void)state;
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 100352, 512, 128, 132, 1),
                     T(sm90_pp2_128x128x64_s2_staged));
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 401408, 256, 64, 132, 1),
                     T(sm90_pp2_128x128x64_s2_staged));
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 100352, 512, 256, 132, 1),
                     pick(&k_gemm_tn, EVT_TARGET_SM90A, 100352, 512, 256, 132, 1)); /* K */
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 100352, 64, 128, 132, 1),
                     T(sm90_pp2_128x64x64_s6_staged)); /* N <= 64: the 64-wide one (test_thin_staged) */
    assert_int_not_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 100352, 64, 128, 132, 1),
                         T(sm90_pp2_128x128x64_s2_staged)); /* N */
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 4096, 512, 128, 132, 1),
                     pick(&k_gemm_tn, EVT_TARGET_SM90A, 4096, 512, 128, 132, 1)); /* tiles */
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 100352, 512, 128, 132, 0),
                     pick(&k_gemm_tn, EVT_TARGET_SM90A, 100352, 512, 128, 132, 0)); /* no maps */
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM80, 100352, 512, 128, 108, 0),
                     pick(&k_gemm_tn, EVT_TARGET_SM80, 100352, 512, 128, 108, 0));
    const char *why = NULL;
    assert_true(plan_can_run(CFG(sm90_pp2_128x128x64_s2_staged), &k_gemm_st, EVT_TARGET_SM90A, &why));
    assert_false(plan_can_run(CFG(sm90_pp2_128x128x64_s2_staged), &k_gemm_tn, EVT_TARGET_SM90A, &why));
    assert_non_null(strstr(why, "staged"));
}

static void test_tma(void **state)
{
    (void)state;
    /* the heuristic's producer/consumer picks load through TMA */
    plan_problem p = problem(EVT_TARGET_SM90A, 132, 4096, 4096, 4096, 1);
    p.conv_c = 0;
    plan pl = make(&k_gemm_tn, &p, NULL);
    assert_ptr_equal(pl.config, CFG(sm90_coop2_128x256x64_s3));
    assert_true(pl.aligned && pl.tma);
    assert_int_equal(pl.grid, 132);
    p.k = 512;
    pl = make(&k_gemm_tn, &p, NULL);
    assert_ptr_equal(pl.config, CFG(sm90_pp2_128x128x64_s4));
    assert_true(pl.aligned && pl.tma);
    assert_int_equal(pl.grid, 132);
    /* the driver refuses the maps: the pick without TMA */
    plan_tma_refused(&k_gemm_tn, &p, NULL, &pl);
    assert_ptr_equal(pl.config, CFG(sm90_wg2_128x256x64_s4));
    assert_true(pl.aligned && !pl.tma);
    assert_int_equal(pl.grid, 16 * 32);
    assert_int_equal(pl.splits, 1);
    /* a driver without tensor maps, the guarded path, a conv's c not a
     * multiple of 64: no producer/consumer pick */
    p.driver_tma = 0;
    assert_ptr_equal(make(&k_gemm_tn, &p, NULL).config, CFG(sm90_wg2_128x256x64_s4));
    p.driver_tma = 1;
    p.aligned = 0;
    pl = make(&k_gemm_tn, &p, NULL);
    assert_true(!pl.aligned && !pl.tma && !pl.config->pp);
    /* K = 0, forced or not: the guarded entry (the TMA path's direct
     * epilogue takes its accumulators from a first k tile, evt_sm90::pp_run) */
    p.aligned = 1;
    p.k = 0;
    pl = make(&k_gemm_tn, &p, NULL);
    assert_true(!pl.tma);
    const plan_options k0_forced[] = {{CFG(sm90_pp2_128x128x64_s4), 0, 0}, {CFG(sm90_coop2_128x256x64_s4), 0, 0}};
    for (int i = 0; i < 2; i++) {
        pl = make(&k_gemm_tn, &p, &k0_forced[i]);
        assert_ptr_equal(pl.config, k0_forced[i].config);
        assert_true(!pl.aligned && !pl.tma);
    }
    p = problem(EVT_TARGET_SM90A, 132, 25088, 1024, 256, 1);
    assert_ptr_equal(make(&k_conv, &p, NULL).config, CFG(sm90_pp2_128x128x64_s4));
    /* c not a multiple of 64: forced, TMA with a tap's last k tile
     * zero-filled past c, where that is at most a quarter of the channels
     * loaded; the heuristic's pick at c of 96 (a third of k tiles of 64
     * zeros) or 32 (no maps in k tiles of 64): since session 76 the
     * 128x128 tile in k tiles of 32, with maps (before: the tiles that walk
     * K flat, as without maps) */
    p.conv_c = 96;
    pl = make(&k_conv, &p, NULL);
    assert_true(pl.config == CFG(sm90_pp2_128x128x32_s8) && pl.aligned && pl.tma);
    const plan_options pp_forced = {CFG(sm90_pp2_128x128x64_s4), 0, 0};
    pl = make(&k_conv, &p, &pp_forced);
    assert_true(pl.aligned && pl.tma);
    p.conv_c = 32;
    pl = make(&k_conv, &p, NULL);
    assert_true(pl.config == CFG(sm90_pp2_128x128x32_s8) && pl.aligned && pl.tma);
    pl = make(&k_conv, &p, &pp_forced);
    assert_true(!pl.aligned && !pl.tma);
    p.driver_tma = 0;
    assert_ptr_equal(make(&k_conv, &p, NULL).config, CFG(sm90_wg2_128x256x64_s4));
    p.driver_tma = 1;
    p.conv_c = 72;
    pl = make(&k_conv, &p, &pp_forced);
    assert_true(!pl.aligned && !pl.tma);
    assert_true(plan_conv_tma_channels(200, CFG(sm90_pp2_128x128x64_s4)) &&
                plan_conv_tma_channels(160, CFG(sm90_pp2_128x128x64_s4)) &&
                plan_conv_tma_channels(64, CFG(sm90_pp2_128x128x64_s4)) &&
                !plan_conv_tma_channels(136, CFG(sm90_pp2_128x128x64_s4)) &&
                !plan_conv_tma_channels(48, CFG(sm90_pp2_128x128x64_s4)) &&
                !plan_conv_tma_channels(8, CFG(sm90_pp2_128x128x64_s4)) &&
                !plan_conv_tma_channels(100, CFG(sm90_pp2_128x128x64_s4)));
    /* forced producer/consumer without usable maps: its guarded entry */
    const plan_options o = {CFG(sm90_pp2_128x128x64_s4), 0, 0};
    pl = make(&k_conv, &p, &o);
    assert_true(!pl.aligned && !pl.tma);
    p.conv_c = 128;
    pl = make(&k_conv, &p, &o);
    assert_true(pl.aligned && pl.tma);
    plan_tma_refused(&k_conv, &p, &o, &pl);
    assert_ptr_equal(pl.config, CFG(sm90_pp2_128x128x64_s4));
    assert_true(!pl.aligned && !pl.tma);
    assert_int_equal(pl.grid, 132);
    /* a plan without TMA is left alone */
    const plan before = pl;
    plan_tma_refused(&k_conv, &p, NULL, &pl);
    assert_memory_equal(&pl, &before, sizeof pl);
}

static void test_describe(void **state)
{
    (void)state;
    char buf[128];
    plan_problem p = problem(EVT_TARGET_SM90A, 0, 4096, 4096, 4096, 1);
    p.conv_c = 0;
    plan pl = make(&k_gemm_tn, &p, NULL);
    plan_describe(&pl, EVT_TARGET_SM90A, buf, sizeof buf);
    assert_string_equal(buf, "sm_90a sm90_coop2_128x256x64_s3 fast tma grid 132 splits 1");
    p = problem(EVT_TARGET_SM80, 108, 512, 512, 8192, 1);
    p.aligned = 0;
    pl = make(&k_gemm_nn, &p, NULL);
    plan_describe(&pl, EVT_TARGET_SM80, buf, sizeof buf);
    assert_string_equal(buf, "sm_80 sm80_64x64x32_w4_s4 guarded grid 384 splits 6");
    plan_describe(&pl, EVT_TARGET_SM80, buf, 6);
    assert_string_equal(buf, "sm_80");
}

/*
 * The full listings against the heuristics: probed over M and N 2^0..2^31 and
 * ragged sizes, K on both sides of every bound the heuristics test, SM counts
 * of real parts, with and without TMA maps, every pick is listed, and every
 * listed configuration is picked somewhere.
 */
static void test_listed(void **state)
{
    (void)state;
    long long sizes[100];
    int ns = 0;
    for (int i = 0; i <= 31; i++) {
        sizes[ns++] = 1LL << i;
        if (i >= 4 && i <= 30)
            sizes[ns++] = 3LL << (i - 1); /* between two powers */
    }
    sizes[ns++] = 2147483647LL;
    sizes[ns++] = 1000;
    sizes[ns++] = 12544;
    /* M of 65-80 and 97-112: the swapped 80- and 112-row tiles (96 is 3 << 5) */
    sizes[ns++] = 77;
    sizes[ns++] = 100;
    /* an empty M or N: a listed plan all the same (session 49's rule once
     * divided by its zero tiles) */
    sizes[ns++] = 0;
    /* exactly 160 filters over nine taps of 160 channels (K = 1440): the
     * cooperative 128x160 tile's conv rule (session 78) */
    sizes[ns++] = 160;
    /* 1000: short K that the 64x128 tile would split (narrow_spares_split),
     * not whole k tiles (coop_of's clusters); 2048 and 4096: coop_of's
     * four-stage rows for light and per-element epilogues; 1440: above;
     * 1656: nine taps of 184 channels, an odd multiple of 8, whose picks
     * run in clusters (session 80) */
    static const long long ks[] = {64, 128, 129, 1000, 1440, 1656, 2048, 4096};
    static const int sms[] = {16, 28, 46, 58, 84, 108, 114, 132, 144, 170};
    static const plan_kernel k_gemm_light = {EVT_MAINLOOP_GEMM, 1, 0, 0, 1, 1, 0, 0, 8, 0};
    static const plan_kernel k_gemm_gelu = {EVT_MAINLOOP_GEMM, 1, 0, 0, 0, 1, 1, 0, 8, 0};
    const plan_kernel *kernels[] = {&k_gemm_tn, &k_gemm_nn, &k_conv, &k_conv_st, &k_gemm_fp8, &k_gemm_st,
                                    &k_gemm_light, &k_gemm_gelu, &k_gemm_tn_heavy};
    for (int t = 0; t < EVT_TARGET_COUNT; t++)
        for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
            const plan_kernel *k = kernels[ki];
            if (plan_kernel_target_refusal(k, (evt_target)t)) {
                /* an fp8 kernel on sm_80/86: nothing listed, no plan */
                for (int i = 0; i < EVT_TILE_COUNT; i++)
                    assert_false(plan_listed(&plan_configs[i], k, (evt_target)t));
                plan pl;
                const char *why = NULL;
                const plan_problem p = problem((evt_target)t, 0, 256, 256, 256, 1);
                assert_false(plan_make(k, &p, NULL, &pl, &why));
                assert_non_null(strstr(why, "fp8"));
                continue;
            }
            int picked[EVT_TILE_COUNT] = {0};
            for (int a = 0; a < ns; a++)
                for (int b = 0; b < ns; b++)
                    for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++)
                        for (size_t s = 0; s < sizeof sms / sizeof sms[0]; s++)
                            for (int v = 0; v < 4; v++) {
                                /* without maps, with them, and with them for a conv of nine taps (c = K / 9);
                                 * a conv of c = 32 with maps in k tiles of 32 only */
                                const int tma = v == 3 ? PLAN_TMA_K32 : v > 0;
                                const plan_conv_view cv = {v == 3 ? 32 : v == 2 ? ks[q] / 9 : ks[q], 1, 0, 0};
                                const plan_config *c = plan_pick(k, (evt_target)t, sizes[a], sizes[b], ks[q], 1,
                                                                 sms[s], NULL, tma, &cv);
                                if (!plan_listed(c, k, (evt_target)t))
                                    fail_msg("%s picks %s for kernel %zu, %lldx%lldx%lld on %d SMs, "
                                             "tma %d: not listed",
                                             evt_target_name((evt_target)t), c->name, ki, sizes[a], sizes[b],
                                             ks[q], sms[s], tma);
                                picked[c->id] = 1;
                            }
            for (int i = 0; i < EVT_TILE_COUNT; i++)
                if (plan_listed(&plan_configs[i], k, (evt_target)t) != picked[i])
                    fail_msg("%s, kernel %zu: %s is %s but %s", evt_target_name((evt_target)t), ki,
                             plan_configs[i].name, picked[i] ? "picked" : "never picked",
                             picked[i] ? "not listed" : "listed");
        }
}

/* A module with a kernel of every kind the planner tells apart. */
static const char source[] =
    "epilogue e {\n"
    "    in  bias : f16[N]\n"
    "    in  res  : f16[M, N]\n"
    "    out d    : f16[M, N] = relu(acc + bias) + res\n"
    "}\n"
    "epilogue f {\n"
    "    in  res : f32[M, N]\n"
    "    out d   : f16[M, N] = acc + res\n"
    "}\n"
    "epilogue g {\n"
    "    in  unused : f16[M, N]\n"
    "    in  r2     : bf16[M, N]\n"
    "    out d      : f16[M, N] = acc + r2\n"
    "}\n"
    "epilogue h {\n"
    "    in  bias : f16[N]\n"
    "    out d    : f16[M, N] = gelu(acc + bias)\n"
    "}\n"
    "epilogue s {\n"
    "    out d    : f16[M, N] = acc\n"
    "    out rs   : f32[M] = reduce_sum(acc, N)\n"
    "}\n"
    "epilogue b {\n"
    "    in  bias : bf16[N]\n"
    "    in  sc   : f32[M]\n"
    "    out d    : f16[M, N] = relu(acc * sc + bias)\n"
    "}\n"
    "kernel g_tn = gemm(a: f16 row, b: f16 col, acc: f32) with e\n"
    "kernel g_nn = gemm(a: f16 col, b: f16 col, acc: f32) with e\n"
    "kernel c_f32 = conv2d_fprop(x: f16, w: f16, acc: f32) with f\n"
    "kernel c_bf16 = conv2d_fprop(x: bf16, w: bf16, acc: f32) with g\n"
    "kernel g_gelu = gemm(a: f16 row, b: f16 col, acc: f32) with h\n"
    "kernel g_sum = gemm(a: f16 row, b: f16 col, acc: f32) with s\n"
    "kernel g_bias = gemm(a: f16 row, b: f16 col, acc: f32) with b\n"
    "epilogue o {\n"
    "    out d    : f32[M, N] = acc\n"
    "    out rs   : bf16[M] = reduce_sum(acc, N)\n"
    "}\n"
    "kernel g_f32 = gemm(a: f16 row, b: f16 col, acc: f32) with o\n"
    "epilogue t {\n"
    "    in  bias : f16[N]\n"
    "    out d    : f16[M, N] = gelu_tanh(acc + bias) * 0.5\n"
    "}\n"
    "epilogue u {\n"
    "    in  bias : f16[N]\n"
    "    out d    : f16[M, N] = gelu_tanh(acc + bias) + sigmoid(acc)\n"
    "}\n"
    "epilogue v {\n"
    "    out d    : f16[M, N] = gelu_tanh(acc)\n"
    "    out rs   : f32[M] = reduce_sum(acc, N)\n"
    "}\n"
    "kernel g_tanh = gemm(a: f16 row, b: f16 col, acc: f32) with t\n"
    "kernel g_tanh_sig = gemm(a: f16 row, b: f16 col, acc: f32) with u\n"
    "kernel g_tanh_sum = gemm(a: f16 row, b: f16 col, acc: f32) with v\n"
    "epilogue w {\n"
    "    in  bias : f16[N]\n"
    "    out d    : f16[M, N] = gelu_tanh(acc + bias) * tanh(acc)\n"
    "}\n"
    "kernel g_tanh_exact = gemm(a: f16 row, b: f16 col, acc: f32) with w\n"
    "epilogue x {\n"
    "    in  bias : f16[N]\n"
    "    out d    : f16[M, N] = silu(acc + bias)\n"
    "}\n"
    "epilogue y {\n"
    "    out d    : f16[M, N] = sigmoid(acc)\n"
    "}\n"
    "kernel g_silu = gemm(a: f16 row, b: f16 col, acc: f32) with x\n"
    "kernel g_sigmoid = gemm(a: f16 row, b: f16 col, acc: f32) with y\n"
    "epilogue hv {\n"
    "    in  z    : f16[M, N]\n"
    "    let t = tanh(acc) * z\n"
    "    out d    : f16[M, N] = exp(-abs(t))\n"
    "    out rs   : f32[M] = reduce_max(t, N)\n"
    "}\n"
    "epilogue hn {\n"
    "    in  bias : f16[N]\n"
    "    out d    : f16[M, N] = tanh(acc) + exp(bias)\n"
    "    out rs   : f32[M] = reduce_sum(acc, N)\n"
    "}\n"
    "kernel g_heavy = gemm(a: f16 row, b: f16 col, acc: f32) with hv\n"
    "kernel g_heavy_n = gemm(a: f16 row, b: f16 col, acc: f32) with hn\n";

static void test_kernel_of(void **state)
{
    (void)state;
    evt_ctx *ctx = evt_ctx_create();
    evt_module *m = NULL;
    assert_non_null(ctx);
    if (evt_module_parse_buffer(ctx, "t.evt", source, strlen(source), &m) != EVT_OK ||
        evt_module_optimize(m, 2) != EVT_OK)
        fail_msg("%s", evt_ctx_last_error(ctx));
    /* shift_cols: 16 bytes of the narrowest [M, N] output ([M] ones do not count) */
    static const struct {
        const char *name;
        int k_contiguous, staged_input, light, per_element, shift_cols;
    } want[] = {{"g_tn", 1, 1, 0, 0, 8},    {"g_nn", 0, 1, 0, 0, 8},    {"c_f32", 1, -1, 0, 0, 8},
                {"c_bf16", 1, 1, 0, 0, 8},  {"g_gelu", 1, -1, 0, 1, 8}, {"g_sum", 1, -1, 0, 0, 8},
                {"g_bias", 1, -1, 1, 1, 8}, {"g_f32", 1, -1, 0, 0, 4}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const ir_kernel *k = evt_module_find_kernel(m, want[i].name);
        assert_non_null(k);
        const plan_kernel pk = plan_kernel_of(k);
        assert_int_equal(pk.mainloop, k->mainloop);
        assert_int_equal(pk.k_contiguous, want[i].k_contiguous);
        assert_int_equal(plan_staged_input(k->epilogue), want[i].staged_input);
        assert_int_equal(pk.stageable, want[i].staged_input >= 0);
        assert_int_equal(pk.light, want[i].light);
        assert_int_equal(pk.per_element, want[i].per_element);
        assert_int_equal(pk.shift_cols, want[i].shift_cols);
        assert_int_equal(plan_per_element_epilogue(k->epilogue), want[i].per_element);
        assert_int_equal(pk.fast_light, 0);
        assert_int_equal(plan_kernel_built(k, 1).fast_light, 0); /* no tanh */
    }
    /* a tanh GELU or a SiLU: cheap under fast math; beside another costly
     * builtin (tanh stays exact under fast math; sigmoid alone was not
     * measured), or a reduction, not */
    static const struct {
        const char *name;
        int fast_light;
    } tanhs[] = {{"g_tanh", 1},       {"g_tanh_sig", 0}, {"g_tanh_sum", 0},
                 {"g_tanh_exact", 0}, {"g_silu", 1},     {"g_sigmoid", 0}};
    for (size_t i = 0; i < sizeof tanhs / sizeof tanhs[0]; i++) {
        const ir_kernel *k = evt_module_find_kernel(m, tanhs[i].name);
        assert_non_null(k);
        assert_int_equal(plan_fast_light_epilogue(k->epilogue), tanhs[i].fast_light);
        assert_int_equal(plan_kernel_built(k, 1).fast_light, tanhs[i].fast_light);
        assert_int_equal(plan_kernel_built(k, 0).fast_light, 0);
        assert_int_equal(plan_kernel_of(k).fast_light, 0);
    }
    /* heavy: not per element and two costly [M, N] values or more; an [N]
     * one (exp(bias)) does not count, nor do costly builtins per element */
    static const struct {
        const char *name;
        int heavy;
    } heavies[] = {{"g_heavy", 1}, {"g_heavy_n", 0}, {"g_tanh_exact", 0}, {"g_tanh_sum", 0}, {"g_tn", 0}};
    for (size_t i = 0; i < sizeof heavies / sizeof heavies[0]; i++) {
        const ir_kernel *k = evt_module_find_kernel(m, heavies[i].name);
        assert_non_null(k);
        assert_int_equal(plan_heavy_epilogue(k->epilogue), heavies[i].heavy);
        assert_int_equal(plan_kernel_of(k).heavy, heavies[i].heavy);
    }
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

/* The four layouts of f16 and bf16 operands on sm_90a: every 16-bit GEMM
 * wgmma configuration runs them (the transposed wgmma reads the
 * M/N-contiguous ones), the heuristic picks for them what it picks for A
 * row-major and B column-major, TMA included; fp8 stays K-contiguous. */
static void test_transposed_layouts(void **state)
{
    (void)state;
    static const char src[] =
        "epilogue e {\n    out d : f16[M, N] = acc\n}\n"
        "kernel rr_f16 = gemm(a: f16 row, b: f16 row, acc: f32) with e\n"
        "kernel rc_f16 = gemm(a: f16 row, b: f16 col, acc: f32) with e\n"
        "kernel cr_f16 = gemm(a: f16 col, b: f16 row, acc: f32) with e\n"
        "kernel cc_f16 = gemm(a: f16 col, b: f16 col, acc: f32) with e\n"
        "kernel rr_bf16 = gemm(a: bf16 row, b: bf16 row, acc: f32) with e\n"
        "kernel rc_bf16 = gemm(a: bf16 row, b: bf16 col, acc: f32) with e\n"
        "kernel cr_bf16 = gemm(a: bf16 col, b: bf16 row, acc: f32) with e\n"
        "kernel cc_bf16 = gemm(a: bf16 col, b: bf16 col, acc: f32) with e\n";
    static const char *const names[] = {"rr_f16", "rc_f16", "cr_f16", "cc_f16",
                                        "rr_bf16", "rc_bf16", "cr_bf16", "cc_bf16"};
    evt_ctx *ctx = evt_ctx_create();
    evt_module *m = NULL;
    assert_non_null(ctx);
    if (evt_module_parse_buffer(ctx, "l.evt", src, strlen(src), &m) != EVT_OK)
        fail_msg("%s", evt_ctx_last_error(ctx));
    static const struct {
        long long m, n, k;
        int tma;
        enum evt_tile_id want;
    } picks[] = {
        /* D = acc, a light epilogue: four stages (in clusters where K-contiguous, below) */
        {8192, 8192, 4096, 1, T(sm90_coop2_128x256x64_s4)},
        {8192, 8192, 4096, 0, T(sm90_wg2_128x256x64_s4)},
        {1500, 1000, 4104, 1, T(sm90_pp2_cl2_128x128x64_s6)}, /* 96 tiles: more than half the SMs */
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const ir_kernel *k = evt_module_find_kernel(m, names[i]);
        assert_non_null(k);
        const plan_kernel pk = plan_kernel_of(k);
        assert_int_equal(pk.k_contiguous, strncmp(names[i], "rc", 2) == 0);
        int wgmma_configs = 0;
        for (int c = 0; c < EVT_TILE_COUNT; c++) {
            const plan_config *cfg = &plan_configs[c];
            if (!cfg->wgmma || cfg->op_bytes != 2 || plan_config_mainloop_refusal(cfg, EVT_MAINLOOP_GEMM))
                continue;
            const char *why = NULL;
            /* the clustered tile multicasts K-contiguous B tiles only */
            if (cfg->cluster > 1 && !pk.k_contiguous) {
                assert_false(plan_can_run(cfg, &pk, EVT_TARGET_SM90A, &why));
                continue;
            }
            /* a swapped tile (BM of 16 to 112, not 64) multiplies K-contiguous operands
             * only, and a tile of N not a multiple of 64 (160) loads only them */
            if ((cfg->swapped || cfg->bn % 64 != 0) && !pk.k_contiguous) {
                assert_false(plan_can_run(cfg, &pk, EVT_TARGET_SM90A, &why));
                assert_non_null(strstr(why, "K-contiguous"));
                continue;
            }
            if (cfg->staged) { /* this epilogue reads no [M, N] input: nothing to stage */
                assert_false(plan_can_run(cfg, &pk, EVT_TARGET_SM90A, &why));
                continue;
            }
            if (!plan_can_run(cfg, &pk, EVT_TARGET_SM90A, &why))
                fail_msg("%s refused for %s: %s", cfg->name, names[i], why ? why : "?");
            wgmma_configs++;
        }
        /* wg2 128x256, 128x128 s3 and s6, 128x64 s8, wg1 64x128 s4 and s8, wg1 64x64 s8, pp2
         * 128x128 s4 and s6, 128x64 s7 and 64x128 s8, coop2 256x128, 128x256 s3 and s4 and
         * 128x192 s4, and pp2 cl2 128x128 s4 and s6 and 64x128 s8, coop2 cl2
         * 128x256 s3 and s4, coop2 128x160 s4 and the swapped wg1 16x64, 32x64, 16x128,
         * 48x128, 80x64, 96x64, 112x64, 80x128, 96x128 and 112x128 where K-contiguous */
        assert_int_equal(wgmma_configs, pk.k_contiguous ? 31 : 15);
        assert_int_equal(pk.light, 1);
        for (size_t j = 0; j < sizeof picks / sizeof picks[0]; j++) {
            plan_problem p = problem(EVT_TARGET_SM90A, 132, picks[j].m, picks[j].n, picks[j].k, picks[j].tma);
            p.conv_c = 0;
            const plan pl = make(&pk, &p, NULL);
            /* the clustered tiles multicast K-contiguous B tiles only */
            const enum evt_tile_id want = picks[j].want == T(sm90_coop2_128x256x64_s4) && pk.k_contiguous
                                              ? T(sm90_coop2_cl2_128x256x64_s4)
                                          : picks[j].want == T(sm90_pp2_cl2_128x128x64_s6) && !pk.k_contiguous
                                              ? T(sm90_pp2_128x128x64_s6)
                                              : picks[j].want;
            if (pl.config->id != want)
                fail_msg("%s %lldx%lldx%lld tma %d: %s, want %s", names[i], picks[j].m, picks[j].n,
                         picks[j].k, picks[j].tma, pl.config->name, plan_configs[want].name);
            assert_int_equal(pl.tma, picks[j].tma);
            assert_int_equal(pl.config->id, pick(pk.k_contiguous ? &k_gemm_tn_light : &k_gemm_nn_light,
                                                 EVT_TARGET_SM90A, picks[j].m, picks[j].n, picks[j].k, 132,
                                                 picks[j].tma));
        }
        /* forced, unaligned: the guarded entry, no TMA */
        plan_problem p = problem(EVT_TARGET_SM90A, 132, 1000, 1000, 13, 1);
        p.conv_c = 0;
        p.aligned = 0;
        const plan_options o = {CFG(sm90_pp2_128x128x64_s4), 0, 0};
        const plan pl = make(&pk, &p, &o);
        assert_true(pl.config == CFG(sm90_pp2_128x128x64_s4) && !pl.tma && !pl.aligned);
    }
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
    /* fp8 in any other layout: no wgmma configuration, and the sm80 fp8 heuristic */
    for (int c = 0; c < EVT_TILE_COUNT; c++)
        if (plan_configs[c].wgmma && plan_configs[c].op_bytes == 1)
            expect_refused(&plan_configs[c], &k_gemm_fp8_nn, EVT_TARGET_SM90A, "K-contiguous");
    assert_int_equal(pick(&k_gemm_fp8_nn, EVT_TARGET_SM90A, 4096, 4096, 4096, 132, 1),
                     T(sm80_128x128x128_w4_s3_fp8));
}

static void test_aligned(void **state)
{
    (void)state;
    /* A row-major (K contiguous), B column-major (K contiguous) */
    assert_true(plan_gemm_aligned(0, 1, 3, 5, 64, 0x1000, 64, 0x2000, 64));
    assert_false(plan_gemm_aligned(0, 1, 3, 5, 60, 0x1000, 64, 0x2000, 64)); /* K */
    assert_false(plan_gemm_aligned(0, 1, 3, 5, 64, 0x1008, 64, 0x2000, 64)); /* A's base */
    assert_false(plan_gemm_aligned(0, 1, 3, 5, 64, 0x1000, 64, 0x2000, 68)); /* ldb */
    /* A column-major (M contiguous), B row-major (N contiguous) */
    assert_true(plan_gemm_aligned(1, 0, 16, 24, 3, 0x1000, 16, 0x2000, 24));
    assert_false(plan_gemm_aligned(1, 0, 15, 24, 3, 0x1000, 16, 0x2000, 24));
    assert_false(plan_gemm_aligned(1, 0, 16, 20, 3, 0x1000, 16, 0x2000, 24));
    assert_true(plan_conv_aligned(64, 0x1000, 0x2000));
    assert_false(plan_conv_aligned(3, 0x1000, 0x2000));
    assert_false(plan_conv_aligned(0, 0x1000, 0x2000));
    assert_false(plan_conv_aligned(64, 0x1000, 0x2002));
}

/* The grid of configuration c forced on an m x n x 4096 conv (GEMM view) on
 * 132 SMs; a persistent configuration never splits. */
static long long forced_grid(const plan_config *c, long long m, long long n)
{
    const plan_problem p = problem(EVT_TARGET_SM90A, 132, m, n, 4096, 1);
    const plan_options o = {c, 0, 0};
    const plan pl = make(&k_conv, &p, &o);
    assert_true(pl.splits == 1 || !plan_config_persistent(c));
    return pl.grid;
}

/* A conv layer's pick from its NHWC shape: n images of h x w x c, k filters
 * of r x r, padding pad, stride st; maps for the producer/consumer tiles
 * where the driver has them (tma) and c allows (plan_conv_tma_channels). */
static plan conv_plan(long long n, long long h, long long w, long long c, long long k, long long r, long long pad,
                      long long st, int tma)
{
    const long long p = (h + 2 * pad - r) / st + 1, q = (w + 2 * pad - r) / st + 1;
    plan_problem pr = problem(EVT_TARGET_SM90A, 132, n * p * q, k, r * r * c, tma);
    pr.conv_c = c;
    pr.conv_stride = st;
    pr.conv_r = pr.conv_s = r;
    return make(&k_conv_st, &pr, NULL);
}

/* The pick, with maps, for a conv of m output pixels, k filters and c
 * channels at stride 1 whose taps are r x s (conv_plan's are square), or
 * not known (r = s = 0: nine taps), on a device holding `resident`
 * clusters (pairs 0: the planner's own counts). */
static const plan_config *conv_taps_pick_held(long long m, long long k, long long c, long long r, long long s,
                                              plan_clusters resident)
{
    const long long taps = r > 0 ? r * s : 9;
    plan_problem pr = problem(EVT_TARGET_SM90A, 132, m, k, taps * c, 1);
    pr.conv_c = c;
    pr.conv_stride = 1;
    pr.conv_r = r;
    pr.conv_s = s;
    pr.resident = resident;
    return make(&k_conv_st, &pr, NULL).config;
}

static const plan_config *conv_taps_pick(long long m, long long k, long long c, long long r, long long s)
{
    return conv_taps_pick_held(m, k, c, r, s, (plan_clusters){0, 0});
}

static enum evt_tile_id conv_pick(long long n, long long h, long long w, long long c, long long k, long long r,
                                  long long pad, long long st, int tma)
{
    return conv_plan(n, h, w, c, k, r, pad, st, tma).config->id;
}

/* A conv layer (NHWC: n images of h x h x c, k filters of r x r, padding
 * pad, stride st) and the tile it must take with maps and without. */
typedef struct conv_case {
    long long n, h, c, k, r, pad, st;
    enum evt_tile_id want, want_no_maps;
} conv_case;

/* How many of the cases pick another tile than they must (each printed). */
static int conv_picks_wrong(const conv_case *cases, size_t count)
{
    int wrong = 0;
    for (size_t i = 0; i < count; i++)
        for (int tma = 0; tma < 2; tma++) {
            const conv_case *c = &cases[i];
            const enum evt_tile_id got = conv_pick(c->n, c->h, c->h, c->c, c->k, c->r, c->pad, c->st, tma);
            const enum evt_tile_id want = tma ? c->want : c->want_no_maps;
            if (got != want) {
                print_message("conv %lldx%lldx%lldx%lld -> %lld, %lldx%lld /%lld, maps %d: %s, want %s\n", c->n,
                              c->h, c->h, c->c, c->k, c->r, c->r, c->st, tma, plan_configs[got].name,
                              plan_configs[want].name);
                wrong++;
            }
        }
    return wrong;
}

/* Session 32's conv rules: k a multiple of 64 but not of 128 takes the
 * 128x64 producer/consumer tile (with maps, also where c's taps end in
 * zero-filled k tiles), up to k = 576; the wave costs count K's padding to
 * the k tiles where it is an eighth of K or more. */
static void test_conv_narrow_and_padding(void **state)
{
    (void)state;
    /* without maps: the wave costs' cp.async tiles */
    static const conv_case cases[] = {
        /* k = 192, 320, 448, 576: the 128x64 tile (c = 160: maps whose taps end in zeros);
         * where whole taps take the cooperative 128x192 one instead: test_conv_coop_mid, and
         * exactly 192 filters over taps ending in zeros: test_conv_coop_partial_taps */
        {64, 17, 160, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {16, 35, 160, 320, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg2_128x128x32_s6)},
        {2, 64, 320, 320, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {64, 14, 256, 320, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x256x64_s4)},
        {16, 56, 128, 192, 3, 1, 2, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {128, 14, 128, 576, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x128x32_s6)},
        /* ... not k = 704 (past 576), k = 200 (not a multiple of 64), nor k = 256 */
        {128, 14, 128, 704, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x256x64_s4)},
        /* (the 192x256 tile since session 50: 200 channels, an odd multiple of 8) */
        {128, 28, 200, 200, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        {128, 14, 256, 256, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x256x64_s4)},
        /* K = c = 160 in k tiles of 64 loads 192: the 128x128x32 tile, whose k tiles it fills,
         * at the wave cost of the 128x256x64 one */
        {64, 28, 160, 160, 1, 0, 1, T(sm90_wg2_128x128x32_s6), T(sm90_wg2_128x128x32_s6)},
        /* (with maps, a 1x1 layer of ragged 200 filters: the staged tile, session 38) */
        {128, 56, 160, 200, 1, 0, 1, T(sm90_pp2_128x128x64_s2_staged), T(sm90_wg2_128x128x32_s6)},
    };
    const int wrong = conv_picks_wrong(cases, sizeof cases / sizeof cases[0]);
    /* maps the driver cannot make, or a c whose zero-filled tails are too long (136): no
     * producer/consumer tile at all */
    assert_true(conv_pick(64, 17, 17, 136, 192, 3, 1, 1, 1) != T(sm90_pp2_128x64x64_s7));
    assert_int_equal(wrong, 0);
}

/* Session 72's rules for the staged 128x64 tile (docs/conv2d_fprop.md,
 * "Thin layers"): a 1x1 layer of fewer than 64 filters on the mma.sync
 * 64x64 tile past one wave of its four CTAs an SM, and the unstaged
 * 128x64 tile's 1x1 layers of 64 filters or fewer, each with maps, a
 * residual to stage and K of 128-512 (the unstaged tile: K over 128);
 * a K-contiguous GEMM of N <= 64 with an input to stage, K <= 512, one
 * problem, a tile an SM.  Each bound on both sides. */
static void test_thin_staged(void **state)
{
    (void)state;
    const enum evt_tile_id thin = T(sm90_pp2_128x64x64_s6_staged);
    static const conv_case cases[] = {
        /* the mma.sync pick past its wave (613, 784 tiles; K = 192, 256, 128) */
        {32, 35, 192, 48, 1, 0, 1, T(sm90_pp2_128x64x64_s6_staged), T(sm80_64x64x32_w4_s4)},
        {64, 28, 256, 32, 1, 0, 1, T(sm90_pp2_128x64x64_s6_staged), T(sm80_64x64x32_w4_s4)},
        {16, 64, 128, 32, 1, 0, 1, T(sm90_pp2_128x64x64_s6_staged), T(sm80_64x64x32_w4_s4)},
        /* ... not under it (392 tiles), nor at K = 64 (one k tile), nor at K = 576 */
        {8, 56, 256, 48, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {24, 48, 64, 48, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {64, 28, 576, 32, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        /* ... nor over several taps */
        {32, 56, 32, 32, 3, 1, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        /* the unstaged 128x64 tile's 1x1 layers of 64 filters or fewer: its twin */
        {128, 40, 320, 48, 1, 0, 1, T(sm90_pp2_128x64x64_s6_staged), T(sm80_64x64x32_w4_s4)},
        {256, 31, 448, 64, 1, 0, 1, T(sm90_pp2_128x64x64_s6_staged), T(sm80_256x64x32_w4_s4)},
        /* ... not past 64 filters (a held-out layer of 192 lost 9%), nor K over 512 */
        {128, 40, 320, 192, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg2_128x256x64_s4)},
        {64, 56, 640, 48, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm80_64x64x32_w4_s4)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
    /* without an input to stage: the old picks */
    plan_problem pr = problem(EVT_TARGET_SM90A, 132, 32 * 35 * 35, 48, 192, 1);
    pr.conv_c = 192;
    assert_int_equal(make(&k_conv, &pr, NULL).config->id, T(sm80_64x64x32_w4_s4));
    pr = problem(EVT_TARGET_SM90A, 132, 128 * 40 * 40, 48, 320, 1);
    pr.conv_c = 320;
    assert_int_equal(make(&k_conv, &pr, NULL).config->id, T(sm90_pp2_128x64x64_s7));

    /* GEMMs: N <= 64, K <= 512, one problem, a tile an SM or more */
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 39200, 48, 192, 132, 1), thin);
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 262144, 8, 384, 132, 1), thin);
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 36992, 64, 64, 132, 1), thin);
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 16896, 64, 512, 132, 1), thin); /* 132 tiles */
    assert_int_not_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 16768, 64, 512, 132, 1), thin); /* 131 */
    assert_int_not_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 39200, 48, 520, 132, 1), thin); /* K */
    assert_int_not_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 39200, 72, 192, 132, 1), thin); /* N */
    assert_int_not_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 39200, 48, 192, 132, 0), thin); /* no maps */
    assert_int_not_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 39200, 48, 192, 132, 1), thin); /* nothing staged */
    static const plan_kernel k_gemm_st_nn = {EVT_MAINLOOP_GEMM, 0, 1, 0, 0, 0, 0, 0, 8, 0};
    assert_int_not_equal(pick(&k_gemm_st_nn, EVT_TARGET_SM90A, 39200, 48, 192, 132, 1), thin); /* A col-major */
    assert_int_not_equal(pick_batch(&k_gemm_st, EVT_TARGET_SM90A, 39200, 48, 192, 2, 132, 1), thin); /* a batch */
    assert_int_not_equal(pick(&k_gemm_st, EVT_TARGET_SM80, 39200, 48, 192, 108, 0), thin); /* sm_80 */
}

/* Session 73's rule: GEMMs of N <= 64 with nothing to stage, K-contiguous,
 * one problem, a 128x64 tile for each SM or more -> the unstaged 128x64
 * ping-pong tile (docs/sm90.md, "GEMMs of 64 columns or fewer"). */
static void test_thin_unstaged(void **state)
{
    (void)state;
    const enum evt_tile_id s7 = T(sm90_pp2_128x64x64_s7);
    static const plan_kernel k_gemm_gelu = {EVT_MAINLOOP_GEMM, 1, 0, 0, 0, 1, 1, 0, 8, 0};
    /* the held-out set's corners: K of 64 and 8128, N of 8 and 64, M at its least */
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 40802, 56, 64, 132, 1), s7);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 42541, 32, 8128, 132, 1), s7);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 19580, 8, 3008, 132, 1), s7);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 16896, 64, 5120, 132, 1), s7); /* 132 tiles */
    assert_int_equal(pick(&k_gemm_gelu, EVT_TARGET_SM90A, 126512, 64, 1088, 132, 1), s7);
    assert_int_equal(pick(&k_gemm_tn_heavy, EVT_TARGET_SM90A, 126512, 64, 1088, 132, 1), s7);
    /* ... and not: 131 tiles, N of 72, no maps, an input to stage, A column-major, a batch, sm_80 */
    assert_int_not_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 16768, 64, 5120, 132, 1), s7);
    assert_int_not_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 42541, 72, 8128, 132, 1), s7);
    assert_int_not_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 42541, 32, 8128, 132, 0), s7);
    assert_int_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 40802, 56, 64, 132, 1), T(sm90_pp2_128x64x64_s6_staged));
    assert_int_not_equal(pick(&k_gemm_st, EVT_TARGET_SM90A, 42541, 32, 8128, 132, 1), s7);
    assert_int_not_equal(pick(&k_gemm_nn, EVT_TARGET_SM90A, 42541, 32, 8128, 132, 1), s7);
    assert_int_not_equal(pick_batch(&k_gemm_tn, EVT_TARGET_SM90A, 42541, 32, 8128, 2, 132, 1), s7);
    assert_int_not_equal(pick(&k_gemm_tn, EVT_TARGET_SM80, 42541, 32, 8128, 108, 0), s7);
    /* fp8 has no such row */
    assert_int_not_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 42541, 32, 8128, 132, 1), s7);
}

/* Session 34's rule for narrow layers (k < 64) that the 128x64
 * producer/consumer tile does not take: the 64x64 tile, up to 32 of its
 * tiles an SM (the layers it was measured on, with and without maps). */
static void test_conv_narrow_filters(void **state)
{
    (void)state;
    /* the same tile with maps and without */
    static const conv_case cases[] = {
        /* probed (the sm80 rule's 128x64 or 256x64 before) */
        /* (with maps past a wave of four 64x64 tiles an SM at K of 128-512:
         * the staged 128x64 tile since session 72, test_thin_staged) */
        {32, 35, 192, 48, 1, 0, 1, T(sm90_pp2_128x64x64_s6_staged), T(sm80_64x64x32_w4_s4)},
        {16, 112, 32, 16, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {32, 56, 16, 16, 3, 1, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {128, 14, 96, 24, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {8, 56, 64, 16, 3, 1, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {32, 56, 32, 32, 3, 1, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        /* held out, K to 1,152 */
        {96, 28, 240, 40, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {128, 28, 128, 32, 1, 0, 2, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        /* (K >= 1024 past a wave with maps: the 128x64 producer/consumer
         * tile since session 37, test_conv_wgmma_gap) */
        {32, 28, 128, 40, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm80_64x64x32_w4_s4)},
        {96, 28, 480, 40, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        /* more than 32 tiles an SM (6,272 and 12,544): the 256x64 tile */
        {128, 56, 24, 24, 3, 1, 1, T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4)},
        {256, 56, 64, 64, 1, 0, 1, T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4)},
        /* k = 64: the sm80 rule's tile */
        {32, 28, 192, 64, 3, 1, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        {40, 28, 256, 64, 3, 1, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        {128, 14, 384, 64, 1, 0, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
    };
    const int wrong = conv_picks_wrong(cases, sizeof cases / sizeof cases[0]);
    /* two tiles a consumer with maps: the 128x64 producer/consumer tile
     * first (here, a 1x1 layer with a residual, its staged twin:
     * test_thin_staged) */
    assert_int_equal(conv_pick(64, 56, 56, 256, 48, 1, 0, 1, 1), T(sm90_pp2_128x64x64_s6_staged));
    assert_int_equal(conv_pick(64, 56, 56, 256, 48, 1, 0, 1, 0), T(sm80_64x64x32_w4_s4));
    assert_int_equal(wrong, 0);
}

/* The sm_90a heuristics on the shapes they were measured on (H200, 132 SMs:
 * docs/sm80.md, docs/sm90.md), and the launch sizes of the
 * warp-specialized and wgmma configurations. */
static void test_measured_picks(void **state)
{
    (void)state;
    /* ResNet-50 layers at batch 128 as GEMM views: M = n p q, N = k, K = r s c;
     * tma: the maps can be made (c a multiple of 64); staged: the epilogue has
     * an input to stage */
    static const struct {
        long long m, n, k;
        int tma, staged, want;
    } conv[] = {
        /* with TMA maps the producer/consumer tile where K > 128 */
        {401408, 256, 64, 1, 0, EVT_TILE_sm90_wg2_128x128x32_s6},
        {401408, 64, 576, 1, 0, EVT_TILE_sm90_pp2_128x64x64_s7},
        {401408, 64, 576, 0, 0, EVT_TILE_sm80_256x64x32_w4_s4},
        {401408, 64, 64, 1, 0, EVT_TILE_sm80_256x64x32_w4_s4},
        {100352, 512, 128, 1, 0, EVT_TILE_sm90_wg2_128x128x32_s6},
        {25088, 1024, 256, 1, 0, EVT_TILE_sm90_pp2_128x128x64_s4},
        {25088, 256, 2304, 1, 0, EVT_TILE_sm90_pp2_128x128x64_s4},
        {6272, 2048, 512, 1, 0, EVT_TILE_sm90_pp2_128x128x64_s4},
        /* without: the cp.async tiles */
        {100352, 512, 128, 0, 0, EVT_TILE_sm90_wg2_128x128x32_s6},
        {25088, 1024, 256, 0, 0, EVT_TILE_sm90_wg2_128x256x64_s4},
        {25088, 256, 2304, 0, 0, EVT_TILE_sm90_wg3_192x256x64_s4},
        {6272, 2048, 512, 0, 0, EVT_TILE_sm90_wg2_128x256x64_s4},
        /* an input to stage, K <= 128 (the memory-bound 1x1 layers): 14 where
         * its maps can be made and every consumer gets two tiles */
        {100352, 512, 128, 1, 1, EVT_TILE_sm90_pp2_128x128x64_s2_staged},
        {401408, 256, 64, 1, 1, EVT_TILE_sm90_pp2_128x128x64_s2_staged},
        {100352, 512, 128, 0, 1, EVT_TILE_sm90_wg2_128x128x32_s6},
        {25088, 1024, 256, 1, 1, EVT_TILE_sm90_pp2_128x128x64_s4},
        {401408, 64, 64, 1, 1, EVT_TILE_sm80_256x64x32_w4_s4},
    };
    for (size_t i = 0; i < sizeof conv / sizeof conv[0]; i++) {
        const int got = (int)pick(conv[i].staged ? &k_conv_st : &k_conv, EVT_TARGET_SM90A, conv[i].m, conv[i].n,
                                  conv[i].k, 132, conv[i].tma);
        if (got != conv[i].want)
            fail_msg("conv pick %lldx%lldx%lld tma %d staged %d: %s, want %s", conv[i].m, conv[i].n,
                     conv[i].k, conv[i].tma, conv[i].staged, plan_configs[got].name, plan_configs[conv[i].want].name);
    }
    /* one tile of K = 64: the one-warpgroup wgmma tile (test_conv_wgmma_gap), sm_80's 64x64 */
    assert_int_equal(pick(&k_conv, EVT_TARGET_SM90A, 64, 64, 64, 132, 1), EVT_TILE_sm90_wg1_64x64x64_s8);
    assert_int_equal(pick(&k_conv, EVT_TARGET_SM80, 64, 64, 64, 132, 1), EVT_TILE_sm80_64x64x32_w4_s4);
    /* too few tiles for 14 (one a consumer): as if there were nothing to stage */
    assert_int_equal(pick(&k_conv_st, EVT_TARGET_SM90A, 6272, 512, 128, 132, 1),
                     pick(&k_conv, EVT_TARGET_SM90A, 6272, 512, 128, 132, 1));
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 4096, 4096, 4096, 132, 0), EVT_TILE_sm90_wg2_128x256x64_s4);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 2048, 2048, 2048, 132, 0), EVT_TILE_sm90_wg2_128x256x64_s4);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 512, 512, 8192, 132, 0), EVT_TILE_sm90_wg1_64x128x64_s8);
    /* with TMA maps: the producer/consumer tile where each consumer gets two tiles: the
     * cooperative 128x256 one at K >= 768 where its waves are 90% full or more (512 tiles on
     * 132 SMs: 97%; on 114: 90% short), else the ping-pong one */
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 4096, 4096, 4096, 132, 1), EVT_TILE_sm90_coop2_128x256x64_s3);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 4096, 4096, 4096, 114, 1), EVT_TILE_sm90_pp2_cl2_128x128x64_s6);
    /* (the six-stage ping-pong tile in clusters of two at K >= 2048 with two
     * tile rows or more, K-contiguous; one tile row, a batch, or B not
     * K-contiguous: unclustered) */
    assert_int_equal(pick(&k_gemm_nn, EVT_TARGET_SM90A, 4096, 4096, 4096, 114, 1), EVT_TILE_sm90_pp2_128x128x64_s6);
    assert_int_equal(pick_batch(&k_gemm_tn, EVT_TARGET_SM90A, 1500, 1000, 4104, 2, 132, 1),
                     EVT_TILE_sm90_pp2_128x128x64_s6);
    assert_int_equal(pick_batch(&k_gemm_tn, EVT_TARGET_SM90A, 1500, 1000, 4104, 1, 132, 1),
                     EVT_TILE_sm90_pp2_cl2_128x128x64_s6);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 4096, 4096, 512, 132, 1), EVT_TILE_sm90_pp2_128x128x64_s4);
    /* (at K of 768-2047 in whole k tiles the six-stage ping-pong row, up to
     * twelve tiles an SM: test_deep_pp_over_coop) */
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 4096, 4096, 768, 132, 1), EVT_TILE_sm90_pp2_128x128x64_s6);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 8192, 8192, 768, 132, 1), EVT_TILE_sm90_coop2_128x256x64_s3);
    /* 400 tiles: a last wave of 4, split four ways (plan_coop_tail) */
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 5000, 2500, 2048, 132, 1), EVT_TILE_sm90_coop2_128x256x64_s3);
    /* (six stages: 800 tiles at K of 768 or more, test_deep_ping_pong) */
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 5000, 2500, 2047, 132, 1), EVT_TILE_sm90_pp2_128x128x64_s6);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 16384, 1024, 4096, 132, 1), EVT_TILE_sm90_coop2_128x256x64_s3);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 2048, 2048, 2048, 132, 1), EVT_TILE_sm90_wg2_128x256x64_s4);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 4096, 4096, 64, 132, 1), pick(&k_gemm_tn, EVT_TARGET_SM90A, 4096, 4096, 64, 132, 0));
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 512, 512, 8192, 132, 1), EVT_TILE_sm90_wg1_64x128x64_s8);
    /* 1x4096x4096: the 64x64 tile's 64 tiles split in two (narrow_spares_split), where the
     * 64x128 tile would split its 32 eight ways; 1x4096x8192 keeps that tile (K over 4096), in
     * eight stages (long_shares_one_wave); 16x11008x4096's one unsplit wave of 86 CTAs takes
     * eight; on sm_80 no wgmma tile at all */
    assert_int_equal(pick(&k_gemm_nn, EVT_TARGET_SM90A, 1, 4096, 4096, 132, 1), EVT_TILE_sm90_wg1_64x64x64_s8);
    assert_int_equal(pick(&k_gemm_nn, EVT_TARGET_SM90A, 1, 4096, 8192, 132, 1), EVT_TILE_sm90_wg1_64x128x64_s8);
    /* (K-contiguous: the swapped 16x64 tile, test_swapped_picks) */
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 1, 4096, 4096, 132, 1), EVT_TILE_sm90_wg1_16x64x64_s16);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 16, 11008, 4096, 132, 1), EVT_TILE_sm90_wg1_64x128x64_s8);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM80, 16, 11008, 4096, 108, 0), EVT_TILE_sm80_64x64x32_w4_s4);
    {
        /* a batch counts in the one wave: 4 problems of 16x4096x4096 are 128 of its tiles,
         * unsplit; and 2048 of K a share exactly is enough */
        plan_problem p = problem(EVT_TARGET_SM90A, 132, 16, 4096, 4096, 1);
        p.conv_c = 0;
        p.batch = 4;
        plan pl = make(&k_gemm_tn, &p, NULL);
        assert_int_equal(pl.config->id, T(sm90_wg1_64x128x64_s8));
        assert_int_equal(pl.splits, 1);
        assert_int_equal(pl.grid, 128);
        p.batch = 8; /* enough tiles for the 128-row ones: no small-problem tile at all */
        assert_int_equal(make(&k_gemm_tn, &p, NULL).config->id, T(sm90_wg2_128x256x64_s4));
        /* 128 rows: 3 problems are 96 of the 128-row tiles (still a small problem) but 192 of
         * the 64-row ones, two waves at one CTA an SM: four stages; 2 problems, 128, eight */
        p = problem(EVT_TARGET_SM90A, 132, 128, 4096, 4096, 0); /* no TMA: not the producer/consumer tile */
        p.conv_c = 0;
        p.batch = 3;
        assert_int_equal(make(&k_gemm_tn, &p, NULL).config->id, T(sm90_wg1_64x128x64_s4));
        p.batch = 2;
        assert_int_equal(make(&k_gemm_tn, &p, NULL).config->id, T(sm90_wg1_64x128x64_s8));
        assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 16, 11008, 2048, 132, 1), EVT_TILE_sm90_wg1_64x128x64_s8);
        /* (below, without maps: with them the swapped 16x128 tile takes it, test_wide_swap) */
        assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 16, 11008, 2048, 132, 0), EVT_TILE_sm90_wg1_64x128x64_s8);
        /* below 2048, since session 51, where its unsplit tiles fill half the
         * SMs or more (deep_fills_half): 86 of 132; 32 do not (the 64x64
         * tile's rule, narrow_spares_split) */
        assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 16, 11008, 2047, 132, 0), EVT_TILE_sm90_wg1_64x128x64_s8);
        assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 16, 4096, 2047, 132, 0), EVT_TILE_sm90_wg1_64x64x64_s8);
    }
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 512, 512, 512, 132, 0), EVT_TILE_sm80_64x64x32_w4_s4);
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 512, 512, 512, 132, 1), EVT_TILE_sm90_wg1_64x64x64_s8);
    /* one warpgroup, 64x128: four 24 KB stages, two CTAs an SM */
    const plan_config *c = &plan_configs[EVT_TILE_sm90_wg1_64x128x64_s4];
    assert_int_equal(c->threads, 128);
    assert_int_equal(c->smem_bytes, 4 * (64 + 128) * 64 * 2 + 1024);
    assert_int_equal(c->min_blocks, 2);
    /* and eight of them at one CTA an SM */
    c = &plan_configs[EVT_TILE_sm90_wg1_64x128x64_s8];
    assert_int_equal(c->threads, 128);
    assert_int_equal(c->smem_bytes, 8 * (64 + 128) * 64 * 2 + 1024);
    assert_int_equal(c->min_blocks, 1);
    /* 192x128: three warpgroups, 384 threads */
    c = &plan_configs[EVT_TILE_sm90_wg3_192x128x64_s4];
    assert_int_equal(c->threads, 384);
    assert_int_equal(c->smem_bytes, 4 * (192 + 128) * 64 * 2 + 1024);
    /* warp-specialized: the mma warps and 4 epilogue warps; the pipeline and
     * the accumulator tile side by side; one CTA per slot, never more than tiles */
    c = &plan_configs[EVT_TILE_sm80_ws4_128x128x64_w4_s3];
    assert_int_equal(c->threads, 256);
    assert_int_equal(c->smem_bytes, 3 * 256 * 64 * 2 + 128 * 136 * 4 + 16);
    assert_int_equal(forced_grid(c, 401408, 128), 132); /* 3136 tiles */
    assert_int_equal(forced_grid(c, 12800, 128), 100);
    /* 192x256: three warpgroups, four stages in 225 KB */
    c = &plan_configs[EVT_TILE_sm90_wg3_192x256x64_s4];
    assert_int_equal(c->threads, 384);
    assert_int_equal(c->smem_bytes, 4 * (192 + 256) * 64 * 2 + 1024);
    /* producer/consumer: a producer warpgroup and two consumers sharing one
     * accumulator tile, plus the mbarriers; persistent */
    c = &plan_configs[EVT_TILE_sm90_pp2_128x128x64_s4];
    assert_int_equal(c->threads, 384);
    assert_int_equal(c->smem_bytes, 4 * 256 * 64 * 2 + 128 * 136 * 4 + EVT_TILE_BAR_BYTES + 1024);
    assert_int_equal(forced_grid(c, 401408, 128), 132);
    assert_int_equal(forced_grid(c, 896, 128), 7);
    /* two stages, the accumulator tile and a staged 16-bit tile per consumer */
    c = &plan_configs[EVT_TILE_sm90_pp2_128x128x64_s2_staged];
    assert_int_equal(c->threads, 384);
    assert_int_equal(c->smem_bytes, 2 * 256 * 64 * 2 + 128 * 136 * 4 + 2 * 128 * 128 * 2 +
                                        EVT_TILE_BAR_BYTES + 1024);
    assert_true(c->smem_bytes <= 227 * 1024);
    c = &plan_configs[EVT_TILE_sm90_wg2_ws8_128x128x64_s4];
    assert_int_equal(c->threads, 512);
    assert_int_equal(c->smem_bytes, 4 * 256 * 64 * 2 + 128 * 136 * 4 + 16 + 1024);
    assert_int_equal(forced_grid(&plan_configs[EVT_TILE_sm90_wg2_128x256x64_s4], 128 * 512, 256), 512);
}

/* A batch's tiles share one grid: the plan counts L x the tiles of one
 * problem, and the heuristic weighs them so.  512 x 512 x 8192 alone
 * fills under a quarter of an H200's slots and splits K; 64 of them fill
 * the machine many times: no split, a big tile.  Batch 0 and 1 are one
 * problem. */
static void test_batch_tiles(void **state)
{
    (void)state;
    plan_problem p = problem(EVT_TARGET_SM90A, 132, 512, 512, 8192, 0);
    p.conv_c = 0;
    const plan one = make(&k_gemm_tn, &p, NULL);
    assert_true(one.splits > 1);
    p.batch = 0;
    const plan zero = make(&k_gemm_tn, &p, NULL);
    assert_true(zero.config == one.config && zero.tiles == one.tiles && zero.splits == one.splits);
    p.batch = 64;
    const plan many = make(&k_gemm_tn, &p, NULL);
    assert_int_equal(many.splits, 1);
    assert_int_equal(many.tiles, 64 * plan_config_tiles(many.config, 512, 512));
    assert_int_equal(many.grid, many.tiles);
    assert_true(many.config->bm * many.config->bn > 64 * 64);
    /* forced, split-K's grid is the batch's tiles x the splits */
    const plan_options o = {CFG(sm80_64x64x32_w4_s4), 3, 0};
    const plan forced = make(&k_gemm_tn, &p, &o);
    assert_int_equal(forced.tiles, 64 * 64);
    assert_int_equal(forced.grid, 64 * 64 * 3);
    /* saturating, never wrapping */
    assert_true(plan_config_batch_tiles(CFG(sm80_64x64x32_w4_s4), 2147483647LL, 2147483647LL, 1LL << 31) ==
                LLONG_MAX);
    assert_int_equal(plan_config_batch_tiles(CFG(sm80_64x64x32_w4_s4), 65, 1, 5), 10);
}

/* K of one or two k tiles on sm_90a with TMA maps: the cooperative tile
 * where it has four tiles an SM, nine tenths of their area inside the
 * problem; else the 128x128 tile at two CTAs an SM. */
static enum evt_tile_id pick_batched_k(const plan_kernel *k, long long m, long long n, long long kk,
                                       long long batch, int tma)
{
    return pick_batch(k, EVT_TARGET_SM90A, m, n, kk, batch, 132, tma);
}

static enum evt_tile_id pick_batched(long long m, long long n, long long kk, long long batch, int tma)
{
    return pick_batched_k(&k_gemm_tn, m, n, kk, batch, tma);
}

/* Session 44's rule: M of 65-128 in one row of the two-warpgroup 128x128
 * tile (six stages, one CTA an SM), so that B is loaded once, where the
 * one-warpgroup tiles' two rows would load it twice (one_row_serves);
 * where it stays the one-warpgroup 64x128 tile, since session 49, for M
 * of 65-112, the swapped 64-wide tile (test_swapped_rows). */
static void test_one_tile_row(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* the 64x128 tile split in two */
        {&k_gemm_tn, 77, 4096, 11008, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* its four-stage row, 172 tiles */
        {&k_gemm_tn, 120, 11008, 4096, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* the 64x64 tile on 73% of the SMs */
        {&k_gemm_tn, 96, 3072, 3072, 1, T(sm90_wg2_128x128x64_s6), 1},
        {&k_gemm_tn, 65, 14336, 4096, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* one row of 64: nothing loaded twice */
        {&k_gemm_tn, 64, 14336, 4096, 1, T(sm90_wg1_64x128x64_s8), 1},
        /* two rows of 128 (in clusters: K >= 2048) */
        {&k_gemm_tn, 129, 14336, 4096, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* one unsplit wave 97% full */
        {&k_gemm_tn, 128, 4096, 4096, 1, T(sm90_wg1_64x64x64_s8), 1},
        /* the same (the swapped tile since s49) */
        {&k_gemm_tn, 100, 8192, 2048, 1, T(sm90_wg1_112x64x64_s10), 1},
        /* eight stages unsplit, K under 6144 */
        {&k_gemm_tn, 108, 6528, 4928, 1, T(sm90_wg1_112x64x64_s10), 1},
        /* the 128-row tile would split six ways */
        {&k_gemm_tn, 109, 2250, 4416, 1, T(sm90_wg1_64x128x64_s4), 1},
        /* its split grid fills under half the SMs (and the 64x64 tile's long-K rule takes it) */
        {&k_gemm_tn, 77, 256, 16384, 1, T(sm90_wg1_64x64x64_s8), 1},
        /* K under 2048: not measured */
        {&k_gemm_tn, 77, 3000, 1000, 1, T(sm90_wg1_64x64x64_s8), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
    /* a batch: not measured, so the one-warpgroup tile as before */
    assert_int_not_equal(pick_batched(77, 4096, 11008, 2, 1), T(sm90_wg2_128x128x64_s6));
    /* the same without TMA maps: these tiles load with cp.async */
    assert_int_equal(pick_batched(77, 4096, 11008, 1, 0), T(sm90_wg2_128x128x64_s6));
}

/* Session 49's rule (swapped_rows_serves): M of 65-112 at K >= 2048 on the
 * swapped 64-wide tile of M rounded up to 16 rows in place of the 64x128
 * tile's two rows, as many tiles; not where its grid would be smaller or
 * split further, nor over the 128x128 tile's one row. */
static void test_swapped_rows(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* the 128x128 tile's row: kept */
        {&k_gemm_tn, 77, 14336, 4096, 1, T(sm90_wg2_128x128x64_s6), 1},
        {&k_gemm_tn, 90, 11008, 4096, 1, T(sm90_wg2_128x128x64_s6), 1},
        {&k_gemm_tn, 99, 3270, 13800, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* the eight-stage 64x128 tile's 128, unsplit */
        {&k_gemm_tn, 72, 8192, 2048, 1, T(sm90_wg1_80x64x64_s12), 1},
        /* the four-stage one's 24, split four ways */
        {&k_gemm_tn, 80, 1536, 6144, 1, T(sm90_wg1_80x64x64_s12), 1},
        /* 79 tiles for its 80 */
        {&k_gemm_tn, 68, 5000, 3000, 1, T(sm90_wg1_80x64x64_s12), 1},
        /* 15 for its 16, split seven ways */
        {&k_gemm_tn, 90, 927, 5968, 1, T(sm90_wg1_96x64x64_s11), 1},
        {&k_gemm_tn, 101, 640, 13104, 1, T(sm90_wg1_112x64x64_s10), 1},
        /* split five ways over 105 CTAs: clusters reach them */
        {&k_gemm_tn, 70, 1328, 14368, 1, T(sm90_wg1_80x64x64_s12), 1},
        /* ... over 115: they do not */
        {&k_gemm_tn, 101, 2936, 3600, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* six ways over 108 */
        {&k_gemm_tn, 96, 1104, 2192, 1, T(sm90_wg1_64x128x64_s4), 1},
        /* the 64x64 tile: the swapped grid is half */
        {&k_gemm_tn, 77, 256, 16384, 1, T(sm90_wg1_64x64x64_s8), 1},
        {&k_gemm_tn, 71, 371, 4272, 1, T(sm90_wg1_64x64x64_s8), 1},
        {&k_gemm_tn, 112, 422, 5192, 1, T(sm90_wg1_64x64x64_s8), 1},
        /* K under 2048 */
        {&k_gemm_tn, 77, 3000, 1000, 1, T(sm90_wg1_64x64x64_s8), 1},
        {&k_gemm_tn, 66, 2025, 1752, 1, T(sm90_wg1_64x64x64_s8), 1},
        /* one row of 64 */
        {&k_gemm_tn, 64, 14336, 4096, 1, T(sm90_wg1_64x128x64_s8), 1},
        /* past 112 */
        {&k_gemm_tn, 113, 14336, 4096, 1, T(sm90_wg2_128x128x64_s6), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
    /* a batch, no TMA maps (unaligned rows), an N-contiguous B: never swapped */
    assert_false(plan_configs[pick_batched(72, 8192, 2048, 2, 1)].swapped);
    assert_false(plan_configs[pick_batched(72, 8192, 2048, 1, 0)].swapped);
    assert_false(plan_configs[pick(&k_gemm_nn, EVT_TARGET_SM90A, 72, 8192, 2048, 132, 1)].swapped);
    /* an empty problem (N = 0) within the rule's M and K: no tiles to compare, no swap */
    assert_false(plan_configs[pick_batched(77, 0, 4096, 1, 1)].swapped);
}

/* Session 50's rules for K an odd multiple of 8 (rows 16 bytes off a
 * 128-byte line): the 128x256 tile split along K over the swapped 64-wide
 * tile of M 65-112 (wide_split_serves); the cooperative row at K >= 4096
 * whether or not K is whole k tiles; and at odd-8 K from 1024 that row,
 * in clusters of two where they add no wave (coop_of). */
static void test_odd_k_wide_split(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* the probe's shapes: 30 and 31 tiles split three ways, 25 four */
        {&k_gemm_tn, 99, 7440, 6120, 1, T(sm90_wg2_128x256x64_s4), 1},
        {&k_gemm_tn, 85, 7712, 6392, 1, T(sm90_wg2_128x256x64_s4), 1},
        {&k_gemm_tn, 69, 6344, 2936, 1, T(sm90_wg2_128x256x64_s4), 1},
        /* K a multiple of 16: the swapped tile, as before */
        {&k_gemm_tn, 99, 7440, 6128, 1, T(sm90_wg1_112x64x64_s10), 1},
        {&k_gemm_tn, 91, 6208, 4832, 1, T(sm90_wg1_96x64x64_s11), 1},
        {&k_gemm_tn, 85, 7712, 6400, 1, T(sm90_wg1_96x64x64_s11), 1},
        /* few tiles: the swapped tile split (the 128x256 tile's split would
         * be five ways or more) */
        {&k_gemm_tn, 86, 1064, 4440, 1, T(sm90_wg1_96x64x64_s11), 1},
        /* M of 64 or less, or over 112: not the swapped rows' rule */
        {&k_gemm_tn, 64, 7440, 6120, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn, 16, 8192, 6152, 1, T(sm90_wg1_16x64x64_s16), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
    /* the heuristic's plan splits it two to four ways, at any N it takes */
    int taken = 0;
    for (long long n = 256; n <= 16384; n += 8) {
        plan_problem p = problem(EVT_TARGET_SM90A, 132, 99, n, 6120, 1);
        p.conv_c = 0;
        const plan pl = make(&k_gemm_tn, &p, NULL);
        if (pl.config->id == T(sm90_wg2_128x256x64_s4)) {
            assert_in_range(pl.splits, 2, 4);
            taken++;
        }
    }
    assert_true(taken > 0);
    static const pick_probe coop[] = {
        /* K >= 4096 not whole k tiles: the cooperative row (three stages,
         * coop_of's for such K), not the cp.async 128x256 tile; in
         * clusters of two where K is an odd multiple of 8 */
        {&k_gemm_tn_gelu, 2048, 4096, 4104, 1, T(sm90_coop2_cl2_128x256x64_s3), 1},
        {&k_gemm_tn_gelu, 1000, 4096, 5000, 1, T(sm90_coop2_cl2_128x256x64_s3), 1},
        {&k_gemm_tn_gelu, 2048, 4096, 4112, 1, T(sm90_coop2_128x256x64_s3), 1},
        /* ... unless the clusters add a wave (seven tile rows, 35 columns) */
        {&k_gemm_tn_gelu, 893, 8944, 4376, 1, T(sm90_coop2_128x256x64_s3), 1},
        /* whole k tiles: its four-stage row, as before */
        {&k_gemm_tn_gelu, 2048, 4096, 4096, 1, T(sm90_coop2_128x256x64_s4), 1},
        /* under 4096: the cp.async tile, as before, but at an odd multiple
         * of 8 (the cooperative row, clustered where that adds no wave) */
        {&k_gemm_tn_gelu, 2048, 4096, 4032, 1, T(sm90_wg2_128x256x64_s4), 1},
        {&k_gemm_tn_gelu, 2048, 4096, 4048, 1, T(sm90_wg2_128x256x64_s4), 1},
        {&k_gemm_tn_gelu, 2048, 4096, 2056, 1, T(sm90_coop2_cl2_128x256x64_s3), 1},
        {&k_gemm_tn_gelu, 545, 12776, 1416, 1, T(sm90_coop2_128x256x64_s3), 1},
        /* the padded last column keeps the ping-pong tile (session 46) */
        {&k_gemm_tn_gelu, 2493, 1408, 13784, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
    };
    expect_picks(coop, sizeof coop / sizeof coop[0]);
    static const pick_probe row[] = {
        /* M of 113-128 (session 51): over the 64x128 tiles and the 128x128
         * row where they pass the byte test */
        {&k_gemm_tn, 118, 6840, 3592, 1, T(sm90_wg2_128x256x64_s4), 1},
        {&k_gemm_tn, 123, 7480, 5416, 1, T(sm90_wg2_128x256x64_s4), 1},
        {&k_gemm_tn, 114, 8992, 3384, 1, T(sm90_wg2_128x256x64_s4), 1},
        /* ... not where the pick's split CTAs load less (0.85-0.92x) */
        {&k_gemm_tn, 115, 2544, 5528, 1, T(sm90_wg2_128x128x64_s6), 1},
        {&k_gemm_tn, 125, 4416, 11832, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* K a multiple of 16, K under 2048, no maps: as before */
        {&k_gemm_tn, 118, 6840, 3584, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn, 118, 6840, 1992, 1, T(sm90_wg1_64x128x64_s4), 1},
        {&k_gemm_tn, 118, 6840, 3592, 0, T(sm90_wg1_64x128x64_s8), 1},
    };
    expect_picks(row, sizeof row / sizeof row[0]);
    assert_int_not_equal(pick_batched(118, 6840, 3592, 2, 1), T(sm90_wg2_128x256x64_s4));
}

/* Session 51: where the sm90 heuristic fell through to mma.sync's 64x64
 * tile, the wgmma 64x64 tile, on aligned rows (maps), one problem. */
static void test_wgmma_over_sync_small(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        {&k_gemm_tn, 93, 3920, 1496, 1, T(sm90_wg1_64x64x64_s8), 1},
        {&k_gemm_tn, 947, 392, 376, 1, T(sm90_wg1_64x64x64_s8), 1},
        {&k_gemm_tn, 45, 4144, 312, 1, T(sm90_wg1_64x64x64_s8), 1},
        {&k_gemm_nn, 947, 392, 376, 1, T(sm90_wg1_64x64x64_s8), 1},
        /* the guarded path (no maps: rows not 16-byte aligned) keeps mma.sync's */
        {&k_gemm_tn, 947, 392, 376, 0, T(sm80_64x64x32_w4_s4), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
    /* fp8 has no such tile: its own small tile */
    assert_int_not_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 947, 392, 376, 132, 1), T(sm90_wg1_64x64x64_s8));
}

/* Session 51's rule for one tile row of 64 (and two at K under 1600): the
 * eight-stage 64x128 tile unsplit where its tiles fill half the SMs or more
 * and the four-stage pick would split. */
static void test_deep_fills_half(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* probed and held out */
        {&k_gemm_tn, 28, 8984, 1280, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn, 57, 10672, 1976, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn, 30, 10072, 1344, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn, 62, 12872, 1248, 1, T(sm90_wg1_64x128x64_s8), 1},
        /* the four-stage pick unsplit stays */
        {&k_gemm_tn, 23, 10304, 816, 1, T(sm90_wg1_64x128x64_s4), 1},
        {&k_gemm_tn, 36, 15904, 832, 1, T(sm90_wg1_64x128x64_s4), 1},
        /* under half the SMs (32 tiles): the 64x64 tile's rule, or the split */
        {&k_gemm_tn, 40, 4096, 1600, 1, T(sm90_wg1_64x64x64_s8), 1},
        /* M of 16 or less past the 16x64 tile's wave: the 16x128 one first */
        {&k_gemm_tn, 1, 13144, 1056, 1, T(sm90_wg1_16x128x64_s12), 1},
        /* two tile rows at K under 1600 (held out) */
        {&k_gemm_tn, 111, 4696, 1032, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn, 72, 6648, 1536, 1, T(sm90_wg1_64x128x64_s8), 1},
        /* ... not from 1600 (66x4704x1984 0.94x), nor past two rows
         * (344x1528x1712 0.945x) */
        {&k_gemm_tn, 66, 4704, 1984, 1, T(sm90_wg1_64x128x64_s4), 1},
        {&k_gemm_tn, 344, 1528, 1712, 1, T(sm90_wg1_64x128x64_s4), 1},
        {&k_gemm_tn, 344, 1528, 1200, 1, T(sm90_wg1_64x128x64_s4), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
    assert_int_not_equal(pick_batched(28, 8984, 1280, 2, 1), T(sm90_wg1_64x128x64_s8));
}

/* Session 51's rule for M of 16 or less: the swapped 16x128 tile in one wave
 * where the 16x64 one's tiles would not fit one and the pick is the
 * four-stage 64x128 tile with fewer bytes of B in flight in all. */
static void test_wide_swap(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* the probe's four shapes, split two ways before; and unsplit */
        {&k_gemm_tn, 4, 14968, 1920, 1, T(sm90_wg1_16x128x64_s12), 1},
        {&k_gemm_tn, 16, 8672, 1496, 1, T(sm90_wg1_16x128x64_s12), 1},
        {&k_gemm_tn, 1, 13744, 1360, 1, T(sm90_wg1_16x128x64_s12), 1},
        {&k_gemm_tn, 1, 13144, 1056, 1, T(sm90_wg1_16x128x64_s12), 1},
        {&k_gemm_tn, 1, 11008, 768, 1, T(sm90_wg1_16x128x64_s12), 1},
        /* the 16x64 tile's tiles fit one wave: that tile, as before */
        {&k_gemm_tn, 9, 6784, 1008, 1, T(sm90_wg1_16x64x64_s16), 1},
        {&k_gemm_tn, 6, 7408, 1592, 1, T(sm90_wg1_16x64x64_s16), 1},
        /* the eight-stage pick at longer K, K under 768, M over 16, past
         * one wave of 16x128 tiles, no maps, B not K-contiguous */
        {&k_gemm_tn, 16, 11008, 4096, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn, 1, 16384, 256, 1, T(sm90_wg1_64x128x64_s4), 1},
        {&k_gemm_tn, 23, 10304, 816, 1, T(sm90_wg1_64x128x64_s4), 1},
        /* (there the eight-stage 64x128 tile unsplit: test_deep_fills_half) */
        {&k_gemm_tn, 1, 13744, 1360, 0, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_nn, 1, 13744, 1360, 1, T(sm90_wg1_64x128x64_s8), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
    assert_int_not_equal(pick_batched(1, 13744, 1360, 2, 1), T(sm90_wg1_16x128x64_s12));
    /* 133 tiles of 128 columns: past one wave */
    assert_int_not_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 1, 16904, 1360, 132, 1), T(sm90_wg1_16x128x64_s12));
}

/* Session 63's rule: the eight-stage 64x128 tile in place of the split
 * four-stage one where the split grid runs one CTA an SM at most and the
 * shares are 768 of K or more, at M past two tile rows
 * (deep_spares_slots). */
static void test_deep_spares_slots(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* held out: 100-108 CTAs, shares of 880-1609 of K */
        {&k_gemm_tn_gelu, 229, 560, 6880, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn_gelu, 250, 1040, 2640, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn_gelu, 214, 632, 5088, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn_gelu, 183, 864, 4528, 1, T(sm90_wg1_64x128x64_s8), 1},
        /* shares under 768 of K (343 and 527 lost held out) */
        {&k_gemm_tn_gelu, 346, 344, 2056, 1, T(sm90_wg1_64x128x64_s4), 1},
        {&k_gemm_tn_gelu, 178, 664, 3160, 1, T(sm90_wg1_64x128x64_s4), 1},
        {&k_gemm_tn_gelu, 293, 352, 2800, 1, T(sm90_wg1_64x128x64_s4), 1},
        /* the four-stage split grid past the SMs (245 and 200 CTAs) */
        {&k_gemm_tn_gelu, 311, 800, 4608, 1, T(sm90_wg1_64x128x64_s4), 1},
        {&k_gemm_tn_gelu, 501, 560, 2800, 1, T(sm90_wg1_64x128x64_s4), 1},
        /* two tile rows (80 CTAs): not measured, not taken */
        {&k_gemm_tn_gelu, 128, 632, 5088, 1, T(sm90_wg1_64x128x64_s4), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
}

/* Session 63's rule: the cooperative 128x160 tile in place of the 128x192
 * pick where that runs more than one round, and the 160-wide tile pads N
 * no more and leaves the busiest SM a tenth less area or more
 * (c160_over_mid). */
static void test_c160_over_mid(void **state)
{
    (void)state;
    const plan_kernel *k = &k_gemm_tn_gelu;
    static const pick_probe rows[] = {
        /* the probe's three: two rounds either way */
        {&k_gemm_tn_gelu, 3350, 1392, 9424, 1, T(sm90_coop2_128x160x64_s4), 1},
        {&k_gemm_tn_gelu, 5043, 912, 4928, 1, T(sm90_coop2_128x160x64_s4), 1},
        {&k_gemm_tn_gelu, 2046, 2392, 6064, 1, T(sm90_coop2_128x160x64_s4), 1},
        /* the probe's two where 160 columns run a round more: 5 against 4, 2 against 1 */
        {&k_gemm_tn_gelu, 3186, 3984, 5872, 1, T(sm90_coop2_128x192x64_s4), 1},
        {&k_gemm_tn_gelu, 1062, 2288, 14752, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* 16 columns of 160 pad N more than 13 of 192 */
        {&k_gemm_tn_gelu, 1000, 2496, 4096, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* one round of either (8 x 14 and 8 x 16 tiles; held out 0.98-1.06x) */
        {&k_gemm_tn_gelu, 1000, 2560, 2560, 1, T(sm90_coop2_128x192x64_s4), 1},
        {&k_gemm_tn_gelu, 264, 6808, 3320, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* 7 rounds of 192 against 8 of 160: under a tenth less area */
        {&k_gemm_tn_gelu, 2662, 7968, 5264, 1, T(sm90_coop2_128x192x64_s4), 1},
        {&k_gemm_tn_gelu, 6470, 3168, 1240, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* not K-contiguous, no maps: as before */
        {&k_gemm_nn, 3350, 1392, 9424, 1, T(sm90_coop2_128x192x64_s4), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
    assert_int_equal(pick_batched_k(k, 3350, 1392, 9424, 1, 1), T(sm90_coop2_128x160x64_s4));
    assert_int_not_equal(pick_batched_k(k, 3350, 1392, 9424, 2, 1), T(sm90_coop2_128x160x64_s4));
    assert_int_not_equal(pick_batched_k(k, 3350, 1392, 9424, 1, 0), T(sm90_coop2_128x160x64_s4));
}

/* Session 63's rule for M of 16 or less: the swapped 16x128 tile in place of
 * the eight-stage 64x128 pick where its tiles fill three fifths of the SMs
 * or fewer (deep_swap_serves). */
static void test_deep_swap(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* the probe's seven at 34-77 tiles, unsplit and split */
        {&k_gemm_tn, 3, 8640, 2496, 1, T(sm90_wg1_16x128x64_s12), 1},
        {&k_gemm_tn, 1, 4240, 13704, 1, T(sm90_wg1_16x128x64_s12), 1},
        {&k_gemm_tn, 13, 5552, 7824, 1, T(sm90_wg1_16x128x64_s12), 1},
        {&k_gemm_tn, 16, 9848, 10888, 1, T(sm90_wg1_16x128x64_s12), 1},
        /* 79 tiles, the last three fifths of 132 SMs; 80 past them */
        {&k_gemm_tn, 8, 79 * 128, 4096, 1, T(sm90_wg1_16x128x64_s12), 1},
        {&k_gemm_tn, 8, 79 * 128 + 8, 4096, 1, T(sm90_wg1_64x128x64_s8), 1},
        /* the probe's five at 84-101 tiles */
        {&k_gemm_tn, 3, 10744, 5136, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn, 1, 12864, 15968, 1, T(sm90_wg1_64x128x64_s8), 1},
        /* M over 16, no maps, B not K-contiguous: the pick */
        {&k_gemm_tn, 17, 8640, 2496, 1, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_tn, 3, 8640, 2496, 0, T(sm90_wg1_64x128x64_s8), 1},
        {&k_gemm_nn, 3, 8640, 2496, 1, T(sm90_wg1_64x128x64_s8), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
    assert_int_not_equal(pick_batched(3, 8640, 2496, 2, 1), T(sm90_wg1_16x128x64_s12));
}

/* Session 51's rule: at K an odd multiple of 8 from 512 the ping-pong pick
 * runs in clusters of two (B multicast), with four tile rows or more, where
 * the clusters add no wave of tiles or of CTAs, and not with fewer than
 * eight rows in under a wave of tiles. */
static void test_odd_k_ping_pong_clusters(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* held out: both rows, four and six stages */
        {&k_gemm_tn_gelu, 2049, 8232, 1800, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        {&k_gemm_tn_gelu, 9220, 680, 1448, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        {&k_gemm_tn_gelu, 6826, 2760, 568, 1, T(sm90_pp2_cl2_128x128x64_s4), 1},
        {&k_gemm_tn_gelu, 1948, 824, 552, 1, T(sm90_pp2_cl2_128x128x64_s4), 1},
        /* K a multiple of 16, or an odd multiple of 8 under 512: unclustered */
        {&k_gemm_tn_gelu, 2791, 624, 672, 1, T(sm90_pp2_128x128x64_s4), 1},
        {&k_gemm_tn_gelu, 6826, 2760, 560, 1, T(sm90_pp2_128x128x64_s4), 1},
        {&k_gemm_tn_gelu, 14220, 912, 312, 1, T(sm90_pp2_128x128x64_s4), 1},
        /* three tile rows (354x4432x1144: 1.7x slower in clusters) */
        {&k_gemm_tn_gelu, 354, 4432, 1144, 1, T(sm90_pp2_128x128x64_s4), 1},
        {&k_gemm_tn_gelu, 279, 5040, 1128, 1, T(sm90_pp2_128x128x64_s4), 1},
        /* four to seven rows under a wave of tiles */
        {&k_gemm_tn_gelu, 512, 3000, 1000, 1, T(sm90_pp2_128x128x64_s4), 1},
        {&k_gemm_tn_gelu, 659, 2232, 872, 1, T(sm90_pp2_128x128x64_s4), 1},
        /* ... but past a wave, clusters */
        {&k_gemm_tn_gelu, 667, 5752, 1704, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* B not K-contiguous: unclustered (a cluster multicasts K-contiguous
         * B tiles only) */
        {&k_gemm_nn, 2049, 8232, 1800, 1, T(sm90_pp2_128x128x64_s6), 1},
        /* without maps no producer/consumer tile at all */
        {&k_gemm_tn_gelu, 2049, 8232, 1800, 0, T(sm90_wg2_128x256x64_s4), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
    /* batches: not this rule's (not measured) */
    assert_int_not_equal(pick_batched(2049, 8232, 1800, 4, 1), T(sm90_pp2_cl2_128x128x64_s6));
    assert_int_not_equal(pick_batched(1948, 824, 552, 4, 1), T(sm90_pp2_cl2_128x128x64_s4));
}

/* Session 52's bounds on session 46's rule: the six-stage ping-pong tile at
 * K >= 2048 stays unclustered with three tile rows, and where stacking its
 * tile rows into clusters of two passes one more multiple of the SMs in
 * CTAs than the tiles alone, but for K an odd multiple of 8 past a wave of
 * tiles. */
static void test_cluster_cta_rounds(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* 3 rows x 34 columns: 102 tiles, 136 stacked CTAs */
        {&k_gemm_tn_gelu, 312, 4352, 2560, 1, T(sm90_pp2_128x128x64_s6), 1},
        /* 5 rows x 23: 115 tiles, 138 CTAs */
        {&k_gemm_tn_gelu, 609, 2936, 10824, 1, T(sm90_pp2_128x128x64_s6), 1},
        /* 99 rows x 4: 396 tiles in three rounds, 400 CTAs in four */
        {&k_gemm_tn_gelu, 12616, 432, 6496, 1, T(sm90_pp2_128x128x64_s6), 1},
        /* odd-8 K past a wave of tiles: in clusters all the same (629
         * tiles in five rounds, 666 CTAs in six) */
        {&k_gemm_tn_gelu, 2164, 4712, 4920, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* three tile rows, no round added (96 tiles, 128 CTAs) */
        {&k_gemm_tn_gelu, 299, 4096, 4352, 1, T(sm90_pp2_128x128x64_s6), 1},
        /* no round added: in clusters */
        {&k_gemm_tn_gelu, 553, 2552, 7328, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        {&k_gemm_tn_gelu, 463, 2208, 6056, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* 16 rows x 13: 208 tiles, stacked without an added CTA */
        {&k_gemm_tn_gelu, 2043, 1648, 3312, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
}

/* Session 53's rule (split_row_serves): past one tile row of 128, the
 * two-warpgroup 128x128 tile at its planner split of two to five shares
 * in place of the one-warpgroup 64-row tiles; not at six shares or more,
 * unsplit, at K under 2048, for batches or off sm_90a. */
static void test_split_row(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* probed (seed 5301): 24 tiles in four shares, 44 64x128 tiles in two */
        {&k_gemm_tn_gelu, 667, 408, 11976, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* 63 tiles in two shares, as many MACs a CTA as the eight-stage
         * 64x128 tile's unsplit, at K >= 4096 */
        {&k_gemm_tn_gelu, 892, 1080, 16088, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* ... not at K under 4096 (458x1440x2816 0.93x held out) */
        {&k_gemm_tn_gelu, 458, 1440, 2816, 1, T(sm90_wg1_64x128x64_s8), 1},
        /* from the 64x64 tile unsplit: 4 x 10 tiles in five shares */
        {&k_gemm_tn_gelu, 238, 1224, 3872, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* wide_over_row: the 128x256 tile in four or five shares, each no
         * more MACs than a 128x128 share (held out) */
        {&k_gemm_tn_gelu, 672, 832, 5144, 1, T(sm90_wg2_128x256x64_s4), 1},
        {&k_gemm_tn_gelu, 441, 1160, 13728, 1, T(sm90_wg2_128x256x64_s4), 1},
        /* ... not where a share would run more (three shares of 128x256
         * against two of 128x128) */
        {&k_gemm_tn_gelu, 2028, 496, 13256, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* ... nor at seven shares (clusters the runtime declines) */
        {&k_gemm_tn_gelu, 485, 808, 9464, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* from the 64x64 tile unsplit at K under 4096: as many MACs a CTA
         * in four shares (held out) */
        {&k_gemm_tn_gelu, 454, 808, 3128, 1, T(sm90_wg2_128x128x64_s6), 1},
        {&k_gemm_tn_gelu, 1020, 272, 3520, 1, T(sm90_wg2_128x128x64_s6), 1},
        /* ... not where a share is a third more MACs than its tile (32
         * tiles in three shares; 793x560x2336 0.85x held out) */
        {&k_gemm_tn_gelu, 938, 424, 3896, 1, T(sm90_wg1_64x64x64_s8), 1},
        {&k_gemm_tn_gelu, 793, 560, 2336, 1, T(sm90_wg1_64x64x64_s8), 1},
        /* 18 tiles would split six ways */
        {&k_gemm_tn_gelu, 344, 744, 7296, 1, T(sm90_wg1_64x128x64_s8), 1},
        /* eight ways (in eight stages: deep_spares_slots) */
        {&k_gemm_tn_gelu, 165, 336, 15888, 1, T(sm90_wg1_64x128x64_s8), 1},
        /* K under 2048 */
        {&k_gemm_tn_gelu, 938, 424, 1984, 1, T(sm90_wg1_64x64x64_s8), 1},
        /* one 128-row tile row: one_row_serves's */
        {&k_gemm_tn_gelu, 120, 11008, 4096, 1, T(sm90_wg2_128x128x64_s6), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
    /* the same without TMA maps (these tiles load with cp.async) */
    assert_int_equal(pick_batch(&k_gemm_tn_gelu, EVT_TARGET_SM90A, 667, 408, 11976, 1, 132, 0),
                     T(sm90_wg2_128x128x64_s6));
    /* a batch: not measured */
    assert_int_not_equal(pick_batch(&k_gemm_tn_gelu, EVT_TARGET_SM90A, 667, 408, 11976, 2, 132, 1),
                         T(sm90_wg2_128x128x64_s6));
}

/* Session 52's rule: where the ping-pong tiles run two rounds of CTAs and
 * the cooperative 128x256 tiles one (or, at K >= 4096, four against two),
 * without padding N five points more, that row (coop_round_of) for an
 * exact GELU's kind of epilogue. */
static void test_coop_round(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* 3 x 68 = 204 ping-pong tiles, 102 cooperative ones: four stages */
        {&k_gemm_tn_gelu, 273, 8680, 6496, 1, T(sm90_coop2_128x256x64_s4), 1},
        {&k_gemm_tn_gelu, 2729, 1232, 1952, 1, T(sm90_coop2_128x256x64_s4), 1},
        /* K an odd multiple of 8: in clusters of two */
        {&k_gemm_tn_gelu, 3418, 1024, 10344, 1, T(sm90_coop2_cl2_128x256x64_s3), 1},
        {&k_gemm_tn_gelu, 157, 12800, 1560, 1, T(sm90_coop2_cl2_128x256x64_s3), 1},
        {&k_gemm_tn_gelu, 637, 5144, 2472, 1, T(sm90_coop2_cl2_128x256x64_s3), 1},
        /* 144 cooperative tiles, past one round: the ping-pong pick */
        {&k_gemm_tn_gelu, 3046, 1344, 1280, 1, T(sm90_pp2_128x128x64_s6), 1},
        /* N = 1544 pads 7 x 256 columns to 86%, 13 x 128 to 93% */
        {&k_gemm_tn_gelu, 2286, 1544, 14032, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* 102 ping-pong tiles: one round */
        {&k_gemm_tn_gelu, 312, 4352, 2560, 1, T(sm90_pp2_128x128x64_s6), 1},
        /* four rounds (425 tiles) against two (215), K >= 4096 */
        {&k_gemm_tn_gelu, 535, 10784, 13472, 1, T(sm90_coop2_128x256x64_s4), 1},
        {&k_gemm_tn_gelu, 652, 9224, 5592, 1, T(sm90_coop2_cl2_128x256x64_s3), 1},
        /* ... not at shorter K (416 against 208 at K = 1280) */
        {&k_gemm_tn_gelu, 486, 13288, 1280, 1, T(sm90_pp2_128x128x64_s6), 1},
        /* three rounds (329 tiles) against two: the ping-pong pick */
        {&k_gemm_tn_gelu, 5934, 808, 4128, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
    /* not a light epilogue, a cheap one under fast math, nor a batch (not measured) */
    assert_int_not_equal(pick_batched_k(&k_gemm_tn_light, 273, 8680, 6496, 1, 1), T(sm90_coop2_128x256x64_s4));
    assert_int_not_equal(pick_batched_k(&k_gemm_tn_tanh, 273, 8680, 6496, 1, 1), T(sm90_coop2_128x256x64_s4));
    assert_int_not_equal(pick_batched_k(&k_gemm_tn_gelu, 273, 8680, 6496, 2, 1), T(sm90_coop2_128x256x64_s4));
}

/* Session 44's rule: a tanh GELU or a SiLU under fast math (fast_light) at
 * K of 768-2047 in whole k tiles takes the six-stage ping-pong tile past
 * twelve of its tiles an SM, where other epilogues keep the cooperative one. */
static void test_fast_light_ping_pong(void **state)
{
    (void)state;
    static const long long shapes[][3] = {{8192, 5120, 1280}, {8192, 8192, 1024}, {16384, 4096, 1536}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const long long m = shapes[i][0], n = shapes[i][1], kk = shapes[i][2];
        assert_int_equal(pick_batched_k(&k_gemm_tn_tanh, m, n, kk, 1, 1), T(sm90_pp2_128x128x64_s6));
        assert_int_equal(pick_batched_k(&k_gemm_tn_gelu, m, n, kk, 1, 1), T(sm90_coop2_128x256x64_s3));
    }
    /* K not whole k tiles: session 61's rule (test_fast_light_off_tiles) */
    /* K of 2048 or more as before; batches (not measured) not the
     * ping-pong tile: session 65's four-stage cooperative row
     * (test_fast_light_coop_deep) */
    assert_int_equal(pick_batched_k(&k_gemm_tn_tanh, 8192, 8192, 4096, 1, 1),
                     pick_batched_k(&k_gemm_tn_gelu, 8192, 8192, 4096, 1, 1));
    assert_int_equal(pick_batched_k(&k_gemm_tn_tanh, 2048, 2048, 1024, 16, 1), T(sm90_coop2_128x256x64_s4));
}

/* Session 65's rule: fast_light at K of 1024-4095 takes the four-stage
 * cooperative 128x256 row wherever it runs (K in whole k tiles, N a
 * multiple of 8), as light epilogues do: from the cp.async 128x256 tile
 * and from the three-stage cooperative one (held out on sixteen shapes,
 * 1.041x).  N not a multiple of 8 keeps the cp.async tile (the three-stage
 * row lost there), as do the exact GELU and K under 1024. */
static void test_fast_light_coop_deep(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* the cp.async tile before */
        {&k_gemm_tn_tanh, 256, 4096, 1024, 1, T(sm90_coop2_128x256x64_s4), 8},
        {&k_gemm_tn_tanh, 634, 6288, 2752, 1, T(sm90_coop2_128x256x64_s4), 1},
        {&k_gemm_tn_tanh, 7246, 456, 1024, 1, T(sm90_coop2_128x256x64_s4), 1},
        /* the three-stage cooperative tile before */
        {&k_gemm_tn_tanh, 7583, 3304, 2048, 1, T(sm90_coop2_128x256x64_s4), 1},
        {&k_gemm_tn_tanh, 728, 2920, 2368, 1, T(sm90_coop2_128x256x64_s4), 26},
        /* N not a multiple of 8, K not whole k tiles: as before */
        {&k_gemm_tn_tanh, 298, 9849, 2944, 1, T(sm90_wg2_128x256x64_s4), 1},
        {&k_gemm_tn_tanh, 8317, 484, 2112, 1, T(sm90_wg2_128x256x64_s4), 1},
        {&k_gemm_tn_tanh, 512, 8192, 1040, 1, T(sm90_wg2_128x256x64_s4), 1},
        /* the exact GELU, and K under 1024: as before */
        {&k_gemm_tn_gelu, 256, 4096, 1024, 1, T(sm90_wg2_128x256x64_s4), 8},
        {&k_gemm_tn_gelu, 7583, 3304, 2048, 1, T(sm90_coop2_128x256x64_s3), 1},
        {&k_gemm_tn_tanh, 1000, 3000, 128, 1, T(sm90_coop2_128x256x64_s3), 16},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
}

/* Session 61's rule: fast_light at K of 768-2047 not whole k tiles, where
 * coop_of would take the clustered cooperative row, takes the four-stage
 * ping-pong row in clusters of two; the exact GELU and D = acc keep the
 * cooperative row, as do batches, three tile rows and K of 2048. */
static void test_fast_light_off_tiles(void **state)
{
    (void)state;
    static const long long probed[][3] = {
        {16384, 3000, 1000}, {4096, 3000, 1000}, {6836, 2177, 1848}, {6285, 10184, 1312}, {14841, 4233, 1080}};
    for (size_t i = 0; i < sizeof probed / sizeof probed[0]; i++) {
        const long long m = probed[i][0], n = probed[i][1], kk = probed[i][2];
        assert_int_equal(pick_batched_k(&k_gemm_tn_tanh, m, n, kk, 1, 1), T(sm90_pp2_cl2_128x128x64_s4));
        assert_int_equal(pick_batched_k(&k_gemm_tn_gelu, m, n, kk, 1, 1), T(sm90_coop2_cl2_128x256x64_s3));
        assert_int_equal(pick_batched_k(&k_gemm_tn_light, m, n, kk, 1, 1), T(sm90_coop2_cl2_128x256x64_s3));
    }
    /* a batch (not measured), and the whole-k-tile neighbours (session 44's rule) */
    assert_int_not_equal(pick_batched_k(&k_gemm_tn_tanh, 1000, 1000, 1000, 16, 1), T(sm90_pp2_cl2_128x128x64_s4));
    assert_int_equal(pick_batched_k(&k_gemm_tn_tanh, 16384, 3000, 1024, 1, 1), T(sm90_pp2_128x128x64_s6));
    assert_int_not_equal(pick_batched_k(&k_gemm_tn_tanh, 16384, 3000, 2056, 1, 1), T(sm90_pp2_cl2_128x128x64_s4));
    /* without maps no TMA rows at all */
    assert_int_not_equal(pick_batched_k(&k_gemm_tn_tanh, 16384, 3000, 1000, 1, 0), T(sm90_pp2_cl2_128x128x64_s4));
}

/* The odd-8 rule's six-stage twin at N not a multiple of 8 below K = 2048:
 * the four-stage clustered row (session 62); aligned N and K of 2048 keep
 * theirs. */
static void test_odd_k_ragged_n_twin(void **state)
{
    (void)state;
    assert_int_equal(pick_batched_k(&k_gemm_tn_gelu, 1198, 10381, 1848, 1, 1), T(sm90_pp2_cl2_128x128x64_s4));
    assert_int_equal(pick_batched_k(&k_gemm_tn_light, 1198, 10381, 1848, 1, 1), T(sm90_pp2_cl2_128x128x64_s4));
    assert_int_equal(pick_batched_k(&k_gemm_tn_gelu, 1198, 10384, 1848, 1, 1), T(sm90_pp2_cl2_128x128x64_s6));
    assert_int_not_equal(pick_batched_k(&k_gemm_tn_gelu, 1198, 10381, 2056, 1, 1), T(sm90_pp2_cl2_128x128x64_s4));
    /* a batch takes no clusters */
    assert_int_equal(pick_batched_k(&k_gemm_tn_gelu, 1198, 10381, 1848, 2, 1), T(sm90_pp2_128x128x64_s6));
}

/* K of 129-511 where the cp.async 128x256 tile was the pick: the ping-pong
 * tile for a light epilogue or a tanh GELU under fast math (session 62);
 * the exact GELU keeps the wide tile, as do two tile rows or fewer and K
 * of 512 (session 22's rule's). */
static void test_short_k_ping_pong(void **state)
{
    (void)state;
    static const long long probed[][3] = {{6932, 536, 368}, {723, 10304, 152}, {2354, 3096, 448},
                                          {3023, 1200, 176}, {1004, 4416, 320}};
    for (size_t i = 0; i < sizeof probed / sizeof probed[0]; i++) {
        const long long m = probed[i][0], n = probed[i][1], kk = probed[i][2];
        assert_int_equal(pick_batched_k(&k_gemm_tn_tanh, m, n, kk, 1, 1), T(sm90_pp2_128x128x64_s4));
        assert_int_equal(pick_batched_k(&k_gemm_tn_light, m, n, kk, 1, 1), T(sm90_pp2_128x128x64_s4));
        assert_int_equal(pick_batched_k(&k_gemm_tn_gelu, m, n, kk, 1, 1), T(sm90_wg2_128x256x64_s4));
        /* without maps, no TMA tile */
        assert_int_not_equal(pick_batched_k(&k_gemm_tn_light, m, n, kk, 1, 0), T(sm90_pp2_128x128x64_s4));
    }
    assert_int_equal(pick_batched_k(&k_gemm_tn_light, 256, 10304, 152, 1, 1), T(sm90_wg2_128x256x64_s4));
    assert_int_equal(pick_batched_k(&k_gemm_tn_light, 2354, 3096, 512, 1, 1), T(sm90_wg2_128x256x64_s4));
}

/* Session 66's rule: below the cooperative short-K rule's terms, a batch
 * of fast_light or light with a bias at K of one or two whole k tiles, N
 * whole 128-column tiles and two ping-pong tiles an SM or more takes the
 * ping-pong tile, not the cp.async 128x128 one (held out on eight shapes
 * each: GELU 1.227x, ReLU 1.537x).  The exact GELU, N off the 128-column
 * tiles, a lone problem and too few tiles keep the cost list's pick. */
static void test_short_k_batch_ping_pong(void **state)
{
    (void)state;
    static const pick_probe rows[] = {
        /* the held-out draw (seed 6505) and the attention-like row */
        {&k_gemm_tn_tanh, 149, 768, 64, 1, T(sm90_pp2_128x128x64_s4), 217},
        {&k_gemm_tn_tanh, 895, 384, 128, 1, T(sm90_pp2_128x128x64_s4), 319},
        {&k_gemm_tn_tanh, 572, 2432, 128, 1, T(sm90_pp2_128x128x64_s4), 5},
        {&k_gemm_tn_tanh, 128, 128, 64, 1, T(sm90_pp2_128x128x64_s4), 512},
        /* a ReLU with a bias: its held-out draw (seed 6506) and the attention row */
        {&k_gemm_tn_bias, 348, 128, 64, 1, T(sm90_pp2_128x128x64_s4), 104},
        {&k_gemm_tn_bias, 526, 2432, 64, 1, T(sm90_pp2_128x128x64_s4), 39},
        {&k_gemm_tn_bias, 325, 384, 128, 1, T(sm90_pp2_128x128x64_s4), 148},
        {&k_gemm_tn_bias, 128, 128, 64, 1, T(sm90_pp2_128x128x64_s4), 512},
        /* single problems (session 76): the held-out draw (seed 6508), both epilogues */
        {&k_gemm_tn_tanh, 1255, 7040, 128, 1, T(sm90_pp2_128x128x64_s4), 1},
        {&k_gemm_tn_tanh, 11856, 1664, 64, 1, T(sm90_pp2_128x128x64_s4), 1},
        {&k_gemm_tn_tanh, 8362, 512, 128, 1, T(sm90_pp2_128x128x64_s4), 1},
        {&k_gemm_tn_bias, 5166, 6144, 64, 1, T(sm90_pp2_128x128x64_s4), 1},
        {&k_gemm_tn_bias, 7006, 1152, 128, 1, T(sm90_pp2_128x128x64_s4), 1},
        /* as before: the exact GELU, N = 300 (both epilogues), one problem, few tiles */
        {&k_gemm_tn_gelu, 1255, 7040, 128, 1, T(sm90_wg2_128x128x64_s3), 1},
        {&k_gemm_tn_gelu, 149, 768, 64, 1, T(sm90_wg2_128x128x64_s3), 217},
        {&k_gemm_tn_gelu, 128, 128, 64, 1, T(sm90_wg2_128x128x64_s3), 512},
        {&k_gemm_tn_tanh, 200, 300, 64, 1, T(sm90_wg2_128x128x64_s3), 256},
        {&k_gemm_tn_bias, 200, 300, 64, 1, T(sm90_wg2_128x128x64_s3), 256},
        {&k_gemm_tn_tanh, 572, 2432, 128, 1, T(sm90_wg1_64x128x64_s4), 1},
        {&k_gemm_tn_tanh, 256, 256, 64, 1, T(sm80_64x64x32_w4_s4), 4},
    };
    expect_picks(rows, sizeof rows / sizeof rows[0]);
}

/* Session 62: where session 28's rule gives the eight-stage 64x128 tile, N
 * is 512 or less and the epilogue light or fast_light, the 64-row
 * ping-pong tile in clusters of two; the exact GELU and wider N keep the
 * 64x128 tile. */
static void test_short_pp_small_n(void **state)
{
    (void)state;
    static const long long probed[][3] = {{2287, 344, 1592}, {1216, 480, 1824}, {2712, 344, 3328}, {1866, 424, 1832}};
    for (size_t i = 0; i < sizeof probed / sizeof probed[0]; i++) {
        const long long m = probed[i][0], n = probed[i][1], kk = probed[i][2];
        assert_int_equal(pick_batched_k(&k_gemm_tn_tanh, m, n, kk, 1, 1), T(sm90_pp2_cl2_64x128x64_s8));
        assert_int_equal(pick_batched_k(&k_gemm_tn_light, m, n, kk, 1, 1), T(sm90_pp2_cl2_64x128x64_s8));
        assert_int_equal(pick_batched_k(&k_gemm_tn_gelu, m, n, kk, 1, 1), T(sm90_wg1_64x128x64_s8));
    }
    assert_int_equal(pick_batched_k(&k_gemm_tn_light, 1216, 640, 1824, 1, 1), T(sm90_wg1_64x128x64_s8));
    assert_int_not_equal(pick_batched_k(&k_gemm_tn_light, 2287, 344, 1592, 1, 0), T(sm90_pp2_cl2_64x128x64_s8));
}

static void test_short_k_coop(void **state)
{
    (void)state;
    assert_int_equal(pick_batched(512, 512, 64, 256, 1), T(sm90_coop2_128x256x64_s3));
    assert_int_equal(pick_batched(1024, 1024, 128, 64, 1), T(sm90_coop2_128x256x64_s3));
    assert_int_equal(pick_batched(8192, 8192, 128, 1, 1), T(sm90_coop2_128x256x64_s3));
    /* without maps, the cp.async tile */
    assert_int_equal(pick_batched(8192, 8192, 128, 1, 0), T(sm90_wg2_128x128x64_s3));
    /* 512 tiles on 132 SMs: under eight an SM */
    assert_int_equal(pick_batched(4096, 4096, 64, 1, 1), T(sm90_wg2_128x128x64_s3));
    /* half of every 128x256 tile empty, however many */
    assert_int_equal(pick_batched(128, 128, 64, 4096, 1), T(sm90_wg2_128x128x64_s3));
    /* 1000 x 600: 76% of the area */
    assert_int_equal(pick_batched(1000, 600, 96, 64, 1), T(sm90_wg2_128x128x64_s3));
    /* K of three k tiles: the long-K rules */
    assert_true(pick_batched(512, 512, 192, 256, 1) != T(sm90_wg2_128x128x64_s3));
    /* a batch whose tiles saturate: no overflow */
    assert_int_equal(pick_batched(1LL << 31, 1LL << 31, 64, 1LL << 31, 1), T(sm90_coop2_128x256x64_s3));
    /* a light epilogue reading a bias, K in whole k tiles: the ping-pong
     * tile (session 33); D = acc keeps the cooperative row's four stages, a
     * GELU its three */
    const plan_kernel *bias = &k_gemm_tn_bias;
    assert_int_equal(pick_batched_k(bias, 1024, 1024, 128, 64, 1), T(sm90_pp2_128x128x64_s4));
    assert_int_equal(pick_batched_k(bias, 512, 512, 64, 256, 1), T(sm90_pp2_128x128x64_s4));
    assert_int_equal(pick_batched_k(bias, 6144, 8192, 128, 1, 1), T(sm90_pp2_128x128x64_s4));
    assert_int_equal(pick_batched_k(&k_gemm_tn_light, 6144, 8192, 128, 1, 1), T(sm90_coop2_128x256x64_s4));
    assert_int_equal(pick_batched_k(&k_gemm_tn_gelu, 6144, 8192, 128, 1, 1), T(sm90_coop2_128x256x64_s3));
    /* K not whole k tiles (not measured): the cooperative tile as before */
    assert_int_equal(pick_batched_k(bias, 6144, 8192, 96, 1, 1), T(sm90_coop2_128x256x64_s3));
    /* fewer than eight tiles an SM: the ping-pong tile of the rule below
     * it (single problems since session 76); no maps: the cp.async tile */
    assert_int_equal(pick_batched_k(bias, 4096, 4096, 64, 1, 1), T(sm90_pp2_128x128x64_s4));
    assert_int_equal(pick_batched_k(bias, 8192, 8192, 128, 1, 0), T(sm90_wg2_128x128x64_s3));
    /* a GELU or SiLU under fast math reading a bias, N whole 128-column
     * tiles: the ping-pong tile too (session 55, held out); N ragged or K
     * not whole k tiles: the cooperative tile as before */
    const plan_kernel *fast = &k_gemm_tn_tanh; /* (not tanh: math.h's) */
    assert_int_equal(pick_batched_k(fast, 512, 512, 64, 256, 1), T(sm90_pp2_128x128x64_s4));
    assert_int_equal(pick_batched_k(fast, 929, 5888, 128, 12, 1), T(sm90_pp2_128x128x64_s4));
    assert_int_equal(pick_batched_k(fast, 6144, 8192, 128, 1, 1), T(sm90_pp2_128x128x64_s4));
    assert_int_equal(pick_batched_k(fast, 1000, 3000, 128, 16, 1), T(sm90_coop2_128x256x64_s3));
    assert_int_equal(pick_batched_k(fast, 6144, 8192, 96, 1, 1), T(sm90_coop2_128x256x64_s3));
    /* under eight cooperative tiles an SM: the rule below it, as for the bias */
    assert_int_equal(pick_batched_k(fast, 4096, 4096, 64, 1, 1), T(sm90_pp2_128x128x64_s4));
}

/* 65 to 96 filters where the 128x128 producer/consumer tile took the
 * layer: the 128x64 one (session 35); since session 39 only for 1x1
 * layers or under a wave of 128x128 tiles (test_conv_session39) */
static void test_conv_mid_filters(void **state)
{
    (void)state;
    /* without maps none of them is the producer/consumer tile's */
    static const conv_case cases[] = {
        /* probed */
        {32, 28, 128, 72, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {128, 14, 256, 80, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x128x64_s4)},
        /* held out */
        {64, 28, 128, 80, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {32, 56, 64, 72, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x128x32_s6)},
        {16, 56, 128, 80, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {128, 14, 512, 72, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x128x64_s4)},
        {32, 14, 320, 88, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg1_64x128x64_s8)},
        {8, 28, 256, 80, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg1_64x128x64_s8)},
        {64, 28, 256, 68, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x128x64_s4)},
        /* 97 filters or more: the 128x128 tile stays */
        {32, 28, 256, 100, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {16, 28, 192, 112, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
}

/* Session 36's conv rule: where the 128x64 producer/consumer tile's rule
 * takes k = 192, 320 or 576 (a 192-column tile filling 80% of its last
 * column or more) at K >= 1024 over more than one tap and whole taps, the
 * cooperative 128x192 tile where its waves cost less at 8% off; 1x1
 * layers, k = 448, c = 160's zero-filled tap ends and fuller 128x64 waves
 * keep the 128x64 tile.  Without maps, the wave costs' tiles. */
static void test_conv_coop_mid(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* fitted on: the cooperative tile's wins */
        {2, 64, 320, 320, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {16, 28, 384, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {32, 28, 192, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {16, 56, 128, 192, 3, 1, 2, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {128, 14, 128, 576, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x128x32_s6)},
        {4, 64, 320, 320, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {32, 28, 128, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {8, 56, 128, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {64, 28, 192, 192, 3, 1, 2, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {1, 128, 256, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* held out, drawn from the grid's (1.03-1.48x, all ten faster) */
        {4, 48, 256, 576, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {6, 28, 320, 576, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {6, 48, 128, 320, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {6, 64, 128, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {8, 24, 512, 576, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {8, 32, 256, 320, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {24, 24, 192, 320, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {24, 80, 128, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        {32, 48, 192, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {48, 24, 320, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* ... and its losses (0.89-0.99x): the 128x64 tile's waves fuller */
        {64, 14, 320, 320, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x256x64_s4)},
        {32, 17, 192, 192, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x128x64_s4)},
        {64, 17, 192, 320, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg2_128x128x32_s6)},
        {16, 35, 256, 192, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x256x64_s4)},
        {2, 96, 320, 320, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg2_128x128x32_s6)},
        /* one tap (1x1), k = 448 (78% of 576 columns), K < 1024: the 128x64 tile (c = 160's
         * zero-filled tap ends: test_conv_coop_partial_taps) */
        {32, 17, 1280, 192, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x128x64_s4)},
        {64, 17, 768, 192, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x256x64_s4)},
        {64, 28, 64, 192, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg2_128x256x64_s4)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
}

/* Session 73's conv rule, held out in session 74: exactly 192 filters over several taps that end
 * in zero-filled k tiles of a sixth of the loads or fewer, K >= 1024: the
 * cooperative 128x192 tile, not the 128x64 one.  320 and 448 filters, 1x1
 * layers, K < 1024 and longer zero tails keep what they had. */
static void test_conv_coop_partial_taps(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* probed (1.06-1.22x) */
        {64, 17, 160, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {32, 28, 160, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {128, 14, 160, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {8, 56, 160, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {64, 17, 224, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        /* held out (0.96-1.54x, geomean 1.22) */
        {48, 26, 288, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        {8, 53, 160, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {48, 46, 480, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        {8, 53, 224, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {32, 44, 176, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        {48, 27, 160, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {48, 37, 480, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        {8, 48, 480, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        /* 320 and 448 filters (it lost 6-12%), one tap */
        {16, 35, 160, 320, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg2_128x128x32_s6)},
        {32, 17, 160, 448, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x256x64_s4)},
        {64, 28, 1120, 192, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg2_128x256x64_s4)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
    /* taps ending in more than a sixth of zeros (c = 136 and 200), and K < 1024 (c = 112:
     * 1008), are not this rule's */
    assert_true(conv_pick(64, 17, 17, 136, 192, 3, 1, 1, 1) != T(sm90_coop2_128x192x64_s4));
    assert_true(conv_pick(64, 17, 17, 200, 192, 3, 1, 1, 1) != T(sm90_coop2_128x192x64_s4));
    assert_true(conv_pick(64, 17, 17, 112, 192, 3, 1, 1, 1) != T(sm90_coop2_128x192x64_s4));
    /* 1080; 120 channels are an odd multiple of 8: in clusters (session 80), of
     * four as they take as many rounds as pairs (session 81) */
    assert_true(conv_pick(64, 17, 17, 120, 192, 3, 1, 1, 1) == T(sm90_coop2_cl4_128x192x64_s4));
}

/* Session 80's rule: channels an odd multiple of 8 under maps in k tiles
 * of 64 run the 128x128 ping-pong pick and the cooperative 128x160 and
 * 128x192 picks as their twins in clusters of two, from half a wave of
 * the pick's tiles, and the ping-pong pick in clusters of four past one
 * tap, from two waves or where its stacks of four take no more rounds
 * than its pairs (session 81); other channel counts, other picks, fewer
 * tiles and layers without such maps keep theirs. */
static void test_conv_odd8_clusters(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* probed: 1.30-1.31x (128x160, 128x192), 1.06x at stride 2 in pairs;
         * in fours where they take as many rounds as the pairs (session 81:
         * 1.08-1.24x on ten), in pairs where fours take a round more (19x59
         * and 16x56: 5 against 4 and 4 against 3; 0.76-1.08x on four) */
        {27, 63, 280, 160, 3, 1, 1, T(sm90_coop2_cl4_128x160x64_s4), T(sm90_wg2_128x256x64_s4)},
        {19, 59, 216, 160, 3, 1, 1, T(sm90_coop2_cl2_128x160x64_s4), T(sm90_wg2_128x256x64_s4)},
        {16, 56, 216, 192, 3, 1, 1, T(sm90_coop2_cl2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {48, 28, 408, 192, 3, 1, 1, T(sm90_coop2_cl4_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {27, 40, 248, 160, 3, 1, 2, T(sm90_coop2_cl4_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {13, 34, 792, 144, 3, 1, 1, T(sm90_coop2_cl4_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        {61, 16, 168, 136, 3, 1, 1, T(sm90_coop2_cl2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* probed: 1.06-1.45x (128x128; 3x3, 5x5, 1x1) */
        {32, 28, 184, 128, 3, 1, 1, T(sm90_pp2_cl4_128x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {8, 56, 344, 128, 3, 1, 1, T(sm90_pp2_cl4_128x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {16, 30, 520, 256, 3, 1, 1, T(sm90_pp2_cl4_128x128x64_s4), T(sm90_wg2_128x256x64_s4)},
        {36, 30, 232, 128, 5, 2, 1, T(sm90_pp2_cl2_128x128x64_s4), T(sm90_wg2_128x128x32_s6)},
        {32, 28, 184, 256, 1, 0, 1, T(sm90_pp2_cl2_128x128x64_s4), T(sm90_wg3_192x256x64_s4)},
        /* multiples of 16: 0.91-0.98x in clusters, unclustered */
        {27, 63, 256, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg2_128x256x64_s4)},
        {32, 28, 192, 192, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {128, 14, 256, 256, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x256x64_s4)},
        {32, 56, 128, 128, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x128x32_s6)},
        /* the 128x128 ping-pong pick in fours past one tap, from two waves
         * (679 tiles, 1.14x over twos) or where its stacks of four take no
         * more rounds of the 30 resident than its pairs of the 66 (above:
         * 196-226 tiles, two rounds either way; 36x30x30x232 -> 128, 254
         * tiles, three rounds in fours, two in pairs); in pairs where fours
         * take a round more (96 tiles, 32 stacks of four against 48 pairs:
         * 0.59x in fours; seed 7906's 124 and 258 tiles: 0.71x, 0.87x) and
         * at 1x1 (850 tiles: 0.95x in fours) */
        {9, 37, 216, 840, 3, 1, 1, T(sm90_pp2_cl4_128x128x64_s4), T(sm90_wg3_192x256x64_s4)},
        {36, 23, 344, 120, 5, 2, 1, T(sm90_pp2_cl4_128x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {3, 36, 952, 488, 5, 2, 1, T(sm90_pp2_cl2_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {42, 55, 792, 120, 3, 1, 2, T(sm90_pp2_cl2_128x128x64_s4), T(sm90_wg2_128x128x32_s6)},
        {6, 22, 744, 1960, 7, 3, 2, T(sm90_pp2_cl2_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {60, 19, 664, 520, 1, 0, 1, T(sm90_pp2_cl2_128x128x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* under half a wave of the pick's tiles (44, 52 and 60 of 132): held
         * out at 0.91x in clusters (44 tiles), unclustered */
        {1, 52, 184, 200, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg1_64x128x64_s8)},
        {32, 14, 200, 448, 3, 1, 2, T(sm90_pp2_128x128x64_s4), T(sm90_wg1_64x128x64_s8)},
        {1, 38, 488, 552, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg1_64x128x64_s8)},
        /* other picks keep theirs (the cp.async 192-row tiles: 1.14x and 0.99x) */
        {64, 28, 200, 128, 3, 1, 1, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {64, 17, 280, 256, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
    /* no maps in k tiles of 64 (c = 136: more zeros than the maps take; a
     * driver without tensor maps): unclustered */
    assert_int_equal(plan_configs[conv_pick(32, 35, 35, 136, 160, 3, 1, 1, 1)].cluster, 1);
    assert_int_equal(plan_configs[conv_pick(32, 28, 28, 184, 128, 3, 1, 1, 0)].cluster, 1);
}

/* The pick, with maps, of a 3x3 unit-stride conv (padding 1) on a device
 * that holds `pairs` clusters of two and `fours` of four at once (as the
 * launch asks cuOccupancyMaxActiveClusters). */
static enum evt_tile_id conv_pick_held(long long n, long long h, long long c, long long k, int pairs, int fours)
{
    return conv_taps_pick_held(n * h * h, k, c, 3, 3, (plan_clusters){pairs, fours})->id;
}

/* The odd-8 rule's rounds counted in the clusters the device says it
 * holds, not the H100's: 32x28x28x184 -> 128 (196 tiles of 128x128: 98
 * stacks of two, 49 of four) in fours at 66 and 30 (two rounds either way)
 * and at 62 and 31 (the stand-in driver's GPCs), in pairs at 66 and 24
 * (three rounds against two) and where no four fits (a GPC or slice
 * smaller than four SMs: cluster size 2 at most), in fours again at 40 and
 * 49; 9x37x37x216 -> 840 (679 tiles, past two waves) in pairs where no four
 * fits.  The cooperative pick alike (48x28x28x408 -> 192: 294 tiles, 147
 * stacks of two and 74 of four, in pairs at 66 and 21). */
static void test_conv_odd8_resident(void **state)
{
    (void)state;
    assert_int_equal(conv_pick_held(32, 28, 184, 128, 66, 30), EVT_TILE_sm90_pp2_cl4_128x128x64_s4);
    assert_int_equal(conv_pick_held(32, 28, 184, 128, 62, 31), EVT_TILE_sm90_pp2_cl4_128x128x64_s4);
    assert_int_equal(conv_pick_held(32, 28, 184, 128, 66, 24), EVT_TILE_sm90_pp2_cl2_128x128x64_s4);
    assert_int_equal(conv_pick_held(32, 28, 184, 128, 66, 0), EVT_TILE_sm90_pp2_cl2_128x128x64_s4);
    assert_int_equal(conv_pick_held(32, 28, 184, 128, 40, 49), EVT_TILE_sm90_pp2_cl4_128x128x64_s4);
    assert_int_equal(conv_pick_held(9, 37, 216, 840, 66, 30), EVT_TILE_sm90_pp2_cl4_128x128x64_s4);
    assert_int_equal(conv_pick_held(9, 37, 216, 840, 66, 0), EVT_TILE_sm90_pp2_cl2_128x128x64_s4);
    assert_int_equal(conv_pick_held(48, 28, 408, 192, 66, 30), EVT_TILE_sm90_coop2_cl4_128x192x64_s4);
    assert_int_equal(conv_pick_held(48, 28, 408, 192, 66, 21), EVT_TILE_sm90_coop2_cl2_128x192x64_s4);
    assert_int_equal(conv_pick_held(48, 28, 408, 192, 66, 0), EVT_TILE_sm90_coop2_cl2_128x192x64_s4);
}

/* Sessions 74-75's conv rule: 80 filters or more and K >= 512 where the
 * mma.sync 64x64 tile runs unsplit and the one-warpgroup 64x128 tile's
 * tiles fit one wave: that tile.  K under 512, 64 filters or fewer, a
 * split 64x64 pick, and more than a wave of 64x128 tiles keep the mma.sync
 * tile. */
static void test_conv_wide_one_wave(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* mined (1.03-1.24x) */
        {4, 28, 768, 256, 1, 0, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {4, 14, 80, 1024, 3, 1, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {8, 19, 80, 256, 3, 1, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {2, 28, 40, 480, 5, 2, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        /* the second held-out set (1.05-1.26x), then the first's layers at K >= 512 (1.07-1.46x) */
        {14, 13, 272, 224, 7, 3, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {2, 23, 776, 584, 1, 0, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {49, 24, 536, 112, 1, 0, 2, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {16, 12, 208, 200, 3, 1, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {1, 36, 136, 1992, 7, 3, 2, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {1, 48, 568, 224, 1, 0, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {2, 29, 16, 384, 7, 3, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        /* under eight k tiles (K < 512): held out at 0.93-0.99x, 1x1 at
         * stride 1 and 2; the wide sweep's 4x14x14x256 -> 1024, where
         * tuning took the 64x128 tile, is one of them */
        {2, 66, 80, 368, 1, 0, 2, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {1, 44, 160, 1352, 1, 0, 2, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {1, 21, 208, 1960, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {4, 14, 256, 1024, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        /* 64 filters or fewer; a split pick (8 shares); past a wave of 64x128 tiles */
        {32, 28, 256, 32, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {8, 28, 1024, 24, 3, 1, 2, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {16, 9, 128, 1000, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
}

/* Session 76: c of 32 or 96 over several taps, filters whole 128-column
 * tiles, two 128x128 tiles an SM or more: the 128x128 ping-pong tile in
 * k tiles of 32, with maps (at c = 32 only in such k tiles). */
static void test_conv_k32(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* probed, 1.19-1.27x; and 256 filters, 1.02x */
        {64, 23, 96, 128, 3, 1, 1, T(sm90_pp2_128x128x32_s8), T(sm90_wg3_192x128x64_s4)},
        {32, 56, 96, 128, 3, 1, 1, T(sm90_pp2_128x128x32_s8), T(sm90_wg2_128x128x32_s6)},
        {16, 56, 32, 128, 3, 1, 1, T(sm90_pp2_128x128x32_s8), T(sm90_wg3_192x128x64_s4)},
        /* first held-out set (1.05-1.36x) */
        {13, 47, 32, 256, 3, 1, 1, T(sm90_pp2_128x128x32_s8), T(sm90_wg2_128x256x64_s4)},
        {204, 48, 32, 896, 7, 3, 1, T(sm90_pp2_128x128x32_s8), T(sm90_wg2_128x128x32_s6)},
        {51, 9, 96, 1152, 5, 2, 1, T(sm90_pp2_128x128x32_s8), T(sm90_wg3_192x256x64_s4)},
        /* under two tiles an SM: 140 tiles (held out, 0.90x), 196 (probed, 1.02x) */
        {2, 42, 32, 640, 7, 3, 1, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {16, 28, 96, 256, 3, 1, 1, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        /* filters its columns pad (probed: lost or tied); c of 48, 80, 160 (lost) */
        {64, 28, 96, 192, 3, 1, 1, T(sm90_wg2_128x256x64_s4), T(sm90_wg2_128x256x64_s4)},
        {32, 56, 96, 96, 3, 1, 1, T(sm90_wg2_128x128x32_s6), T(sm90_wg2_128x128x32_s6)},
        {32, 56, 48, 128, 3, 1, 1, T(sm90_wg2_128x128x32_s6), T(sm90_wg2_128x128x32_s6)},
        {32, 28, 80, 256, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        {32, 28, 160, 128, 3, 1, 1, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        /* one tap (1x1); under a wave of tiles */
        {128, 28, 96, 128, 1, 0, 1, T(sm90_wg2_128x128x32_s6), T(sm90_wg2_128x128x32_s6)},
        {4, 14, 96, 128, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
    const plan p = conv_plan(16, 56, 56, 32, 128, 3, 1, 1, 1);
    assert_true(p.config == CFG(sm90_pp2_128x128x32_s8) && p.tma && p.aligned);
}

/* Session 77's rule: 64 filters over 2 to 25 taps of c = 32, 64, 96 or
 * 128, from 70% of a wave of 128x64 tiles: the 128x64 ping-pong tile, in k
 * tiles of 32 at c of 32 and 96. */
static void test_conv_64_filters(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* probed, 1.07-1.36x over the mma.sync picks (98 to 3136 tiles) */
        {16, 56, 32, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {32, 112, 32, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_256x64x32_w4_s4)},
        {16, 56, 32, 64, 3, 1, 2, T(sm90_pp2_128x64x32_s12), T(sm80_64x64x32_w4_s4)},
        {8, 64, 32, 64, 5, 2, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        /* first held-out set: 3x3 and 5x5 won (1.08-1.18x), 7x7 lost (0.91-0.95x) */
        {45, 69, 32, 64, 3, 1, 2, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {159, 19, 32, 64, 5, 2, 2, T(sm90_pp2_128x64x32_s12), T(sm80_64x64x32_w4_s4)},
        {241, 23, 32, 64, 7, 3, 1, T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4)},
        {178, 72, 32, 64, 7, 3, 1, T(sm80_256x64x32_w4_s4), T(sm80_256x64x32_w4_s4)},
        /* second held-out set (1.05-1.42x) */
        {86, 29, 32, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_256x64x32_w4_s4)},
        {11, 66, 32, 64, 5, 2, 2, T(sm90_pp2_128x64x32_s12), T(sm80_64x64x32_w4_s4)},
        {19, 52, 32, 64, 3, 1, 2, T(sm90_pp2_128x64x32_s12), T(sm80_64x64x32_w4_s4)},
        /* under 70% of a wave (84 tiles); one tap; 48 and 96 filters; c = 64 */
        {12, 28, 32, 64, 3, 1, 2, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {16, 56, 32, 64, 1, 0, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        {16, 56, 32, 48, 3, 1, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {16, 56, 32, 96, 3, 1, 1, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        /* c = 96 and 64, probed (1.05-1.31x, 1.26-1.46x); c = 160 keeps session 38's rule */
        {16, 56, 96, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {32, 56, 96, 64, 3, 1, 2, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {16, 56, 96, 64, 5, 2, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {16, 56, 64, 64, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm80_128x64x64_w4_s3)},
        {64, 28, 64, 64, 3, 1, 2, T(sm90_pp2_128x64x64_s7), T(sm80_64x64x32_w4_s4)},
        {16, 28, 160, 64, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm80_64x64x32_w4_s4)},
        /* held out at c of 64, 96 and 128 (1.01-1.29x) */
        {26, 41, 96, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {93, 63, 96, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_256x64x32_w4_s4)},
        {113, 47, 128, 64, 5, 2, 2, T(sm90_pp2_128x64x64_s7), T(sm80_128x64x64_w4_s3)},
        {15, 59, 64, 64, 5, 2, 1, T(sm90_pp2_128x64x64_s7), T(sm80_128x64x64_w4_s3)},
        /* c = 256; 7x7 at c = 64 */
        {16, 56, 256, 64, 3, 1, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        {16, 56, 64, 64, 7, 3, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
    const plan p = conv_plan(16, 56, 56, 32, 64, 3, 1, 1, 1);
    assert_true(p.config == CFG(sm90_pp2_128x64x32_s12) && p.tma && p.aligned);
}

/* Session 78's rule: 64 filters over 3x3 taps of c = 160, from 2.2 to 3.2
 * waves of 128x64 tiles: the 128x64 ping-pong tile in k tiles of 32. */
static void test_conv_64_filters_c160(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* probed, 1.04-1.21x over the mma.sync 128x64 pick (294 to 392 tiles) */
        {12, 56, 160, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {24, 40, 160, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {40, 35, 160, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {16, 56, 160, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        /* the first held-out set's 3x3 layers of 353 and 376 tiles (1.20x, 1.26x) */
        {26, 43, 160, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {33, 74, 160, 64, 3, 1, 2, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        /* the second held-out set (1.06-1.23x) */
        {119, 36, 160, 64, 3, 1, 2, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {68, 25, 160, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {8, 75, 160, 64, 3, 1, 1, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        {95, 45, 160, 64, 3, 1, 2, T(sm90_pp2_128x64x32_s12), T(sm80_128x64x64_w4_s3)},
        /* under 2.2 waves (0.84-0.97x): 254, 225 and 196 tiles */
        {36, 30, 160, 64, 3, 1, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        {18, 40, 160, 64, 3, 1, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        {32, 28, 160, 64, 3, 1, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        /* past 3.2 waves: 430 and 489 tiles (0.96x, 0.99x) */
        {13, 65, 160, 64, 3, 1, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        {65, 31, 160, 64, 3, 1, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        /* 5x5 (held out: 0.92x and 0.95x), 7x7, 1x1; c = 224 (scattered) */
        {232, 13, 160, 64, 5, 2, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        {89, 50, 160, 64, 5, 2, 2, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        {40, 35, 160, 64, 7, 3, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        {40, 35, 160, 64, 1, 0, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
        {40, 35, 224, 64, 3, 1, 1, T(sm80_128x64x64_w4_s3), T(sm80_128x64x64_w4_s3)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
    const plan p = conv_plan(40, 35, 35, 160, 64, 3, 1, 1, 1);
    assert_true(p.config == CFG(sm90_pp2_128x64x32_s12) && p.tma && p.aligned);
    /* K = 9c from 1x9 or 9x1 taps is not 3x3; taps not known read as 3x3 */
    const long long m = 40 * 35 * 35;
    assert_ptr_not_equal(conv_taps_pick(m, 64, 160, 1, 9), CFG(sm90_pp2_128x64x32_s12));
    assert_ptr_not_equal(conv_taps_pick(m, 64, 160, 9, 1), CFG(sm90_pp2_128x64x32_s12));
    assert_ptr_equal(conv_taps_pick(m, 64, 160, 0, 0), CFG(sm90_pp2_128x64x32_s12));
}

static void test_conv_160_filters(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* probed, 1.04-1.17x over the picks (73 to 307 tiles) */
        {64, 17, 160, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg3_192x256x64_s4)},
        {128, 17, 160, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg3_192x128x64_s4)},
        {32, 17, 160, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg3_192x128x64_s4)},
        {32, 28, 128, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg3_192x256x64_s4)},
        {64, 14, 256, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg3_192x128x64_s4)},
        {32, 35, 192, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* lost: 25 tiles (stride 2), 1x1, 144 filters */
        {16, 28, 320, 160, 3, 1, 2, T(sm90_pp2_128x128x64_s4), T(sm90_wg1_64x128x64_s8)},
        {128, 14, 576, 160, 1, 0, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {16, 56, 64, 144, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* held out at unit stride (1.01-1.22x) */
        {240, 9, 800, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg3_192x256x64_s4)},
        {23, 43, 160, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg2_128x256x64_s4)},
        {5, 55, 576, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* held out at stride 2 (0.96-1.00x): the rule takes unit strides only */
        {21, 41, 128, 160, 3, 1, 2, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {36, 55, 216, 160, 3, 1, 2, T(sm90_coop2_cl4_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* past three waves (588 to 1225 tiles: 1.09-1.22x) */
        {96, 28, 160, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg3_192x256x64_s4)},
        {32, 56, 128, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg2_128x256x64_s4)},
        {128, 35, 256, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* held out past three waves (1.02-1.29x) */
        {58, 33, 912, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg2_128x256x64_s4)},
        {31, 59, 184, 160, 3, 1, 1, T(sm90_coop2_cl2_128x160x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* not probed: c = 64, c = 200 (more than a sixth of zeros), 5x5, past ten waves */
        {64, 28, 64, 160, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        {32, 28, 200, 160, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        {32, 28, 128, 160, 5, 2, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {256, 35, 192, 160, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
    const plan p = conv_plan(64, 17, 17, 160, 160, 3, 1, 1, 1);
    assert_true(p.config == CFG(sm90_coop2_128x160x64_s4) && p.tma && p.aligned);
    /* K = 9c from 1x9 or 9x1 taps is not 3x3; taps not known read as 3x3 */
    const long long m = 64 * 17 * 17;
    assert_ptr_not_equal(conv_taps_pick(m, 160, 160, 1, 9), CFG(sm90_coop2_128x160x64_s4));
    assert_ptr_not_equal(conv_taps_pick(m, 160, 160, 9, 1), CFG(sm90_coop2_128x160x64_s4));
    assert_ptr_equal(conv_taps_pick(m, 160, 160, 0, 0), CFG(sm90_coop2_128x160x64_s4));
}

/* Session 75's rule: K >= 16384 over whole 128-column tiles where the
 * sm_90a conv heuristic fell to the mma.sync 64x64 tile's shares: the
 * 192x128 tile, split eight ways. */
static void test_conv_long_k_tall(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* mined (1.48-1.66x), then held out (1.58-2.39x) */
        {2, 35, 768, 128, 5, 2, 1, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {32, 9, 768, 128, 7, 3, 1, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {8, 38, 672, 128, 7, 3, 2, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {11, 31, 584, 128, 7, 3, 2, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {4, 51, 872, 128, 5, 2, 2, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        /* 192 filters (the 192x128 tile 0.90x, mined); K under 16384 */
        {4, 14, 768, 192, 5, 2, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {2, 35, 608, 128, 5, 2, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
    /* eight shares, each of whole k tiles */
    const plan p = conv_plan(2, 35, 35, 768, 128, 5, 2, 1, 1);
    assert_int_equal(p.splits, 8);
}

/* Session 36's rule for k a multiple of 384: the cooperative 128x192
 * tile where its tiles fit one wave and the 128x128 producer/consumer
 * tile's do not (K >= 1024, more than one tap, whole taps). */
static void test_conv_coop_wave(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* probed: the cooperative tile 1.17-1.41x faster */
        {8, 28, 384, 384, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {16, 14, 512, 768, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {32, 14, 256, 384, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {16, 14, 384, 768, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {4, 32, 512, 768, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {8, 16, 256, 1152, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        /* held out: 1.10-1.37x */
        {10, 28, 256, 384, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {2, 56, 192, 384, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {36, 14, 384, 384, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {20, 14, 512, 768, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {1, 56, 256, 768, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {12, 14, 384, 1152, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {2, 32, 512, 1152, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        /* the 128x128 tile in one wave (it was 1.09-1.30x faster), both in two or more (even), 1x1 */
        {4, 28, 256, 384, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {8, 24, 384, 384, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {2, 48, 256, 384, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {32, 12, 384, 384, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {64, 14, 384, 384, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x256x64_s4)},
        {16, 28, 384, 384, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x256x64_s4)},
        {32, 17, 384, 384, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x128x32_s6)},
        {8, 28, 1536, 384, 1, 0, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x128x64_s4)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
}

/* Session 36's rule for small conv layers that the sm80 64x64 tile took:
 * the one-warpgroup wgmma 64x64 tile in eight stages where its tiles are a
 * quarter of the SMs or fewer (split up to four ways) or three quarters of
 * one wave to one; between the two, and past a wave, the sm80 tile. */
static void test_conv_small_wgmma(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* probed: 1.00-1.67x */
        {4, 7, 512, 2048, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {1, 14, 256, 256, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {1, 7, 512, 512, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {1, 28, 128, 128, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        /* held out: 1.07-1.41x */
        {2, 7, 512, 512, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {1, 14, 512, 512, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {2, 7, 1024, 1024, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {8, 7, 256, 1024, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {2, 14, 256, 1024, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {1, 14, 384, 384, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {4, 7, 1024, 2048, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {1, 10, 512, 512, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        /* 33 to 98 of its tiles (0.69-1.18x), more than a wave (0.71x): the
         * sm80 tile (or session 37's rules: test_conv_wgmma_gap) */
        {8, 14, 256, 1024, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
}

/* Session 50's conv rule: channels an odd multiple of 8 at K over 128 take
 * the cheapest cp.async wgmma tile with the 192x256 one a twentieth below
 * its waves' cost, once the producer/consumer tile has been weighed at the
 * usual costs (1.065x on ten held-out layers). */
static void test_conv_odd8_channels(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* held out: from the 128x256 tile, and from the 128x128 one */
        {15, 56, 136, 928, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        {100, 35, 56, 160, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        {4, 56, 200, 512, 1, 0, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        /* the wide sweep's 200-channel layer (tuning's pick since session 46) */
        {128, 28, 200, 200, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        /* 8 channels more, a multiple of 16: as before */
        {15, 56, 144, 928, 3, 1, 1, T(sm90_wg2_128x256x64_s4), T(sm90_wg2_128x256x64_s4)},
        {4, 56, 208, 512, 1, 0, 1, T(sm90_wg2_128x128x32_s6), T(sm90_wg2_128x128x32_s6)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
    /* the producer/consumer tile keeps the layers it took (its maps), in
     * clusters since session 80 (of four: 301 tiles, past two waves) */
    assert_int_equal(conv_pick(7, 28, 28, 360, 848, 3, 1, 1, 1), T(sm90_pp2_cl4_128x128x64_s4));
}

/* Session 37's conv rules: K in two fills of the one-warpgroup 64x64
 * tile's eight stages and a wave of its tiles or fewer: that tile where it
 * runs unsplit; whole
 * 128-column tiles a quarter of the SMs or fewer: the 64x128 one, split up
 * to four ways; 448 and 576 filters over taps, K >= 2048: the 128x128
 * producer/consumer tile where the busiest SM computes no more with it
 * than with the 128x64 one. */
static void test_conv_wgmma_gap(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* K <= 512, probed (1.20x, 1.45x; K = 96 as fast) */
        {1, 56, 512, 64, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {1, 56, 256, 128, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {8, 28, 96, 24, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        /* ... held out (0.98-1.22x, 1.10x geomean) */
        {16, 7, 64, 192, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {1, 56, 64, 128, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {4, 7, 160, 64, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {16, 14, 200, 48, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {8, 7, 512, 384, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        /* K of 576 to 1024, probed (1.05-1.52x) and held out (1.00-1.31x) */
        {8, 14, 64, 192, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {8, 56, 64, 64, 3, 1, 2, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {1, 28, 64, 256, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {1, 56, 64, 64, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {32, 14, 96, 64, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {8, 7, 64, 384, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {2, 28, 768, 128, 1, 0, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        /* ... not where plan_split_k would split it (at 64 filters or fewer,
         * 0.90x and 0.98x), past a wave of its tiles, nor at K = 1152 */
        {4, 17, 64, 64, 3, 1, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {8, 14, 512, 48, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {8, 14, 256, 1024, 1, 0, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        /* 64x128, probed (1.01-1.19x) and held out (1.10-1.18x) */
        {8, 14, 512, 128, 3, 1, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {5, 14, 384, 256, 3, 1, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {8, 7, 384, 512, 3, 1, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {1, 14, 320, 1024, 3, 1, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        {32, 7, 384, 128, 3, 1, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        /* ... not where 128 columns pad (k = 64, 384 at 39 tiles) */
        {4, 28, 128, 64, 3, 1, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {1, 28, 512, 384, 3, 1, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        /* 448 and 576 filters: 128x128 where its busiest SM's area is no more (1.06-1.23x) */
        {32, 14, 576, 576, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x128x32_s6)},
        {16, 28, 256, 448, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x256x64_s4)},
        {128, 7, 576, 576, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x128x32_s6)},
        {128, 7, 384, 576, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x128x32_s6)},
        {256, 7, 512, 448, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x256x64_s4)},
        /* ... not where it is more (0.90x, 0.94x), at K = 1152 (0.90x) nor 1x1 (0.60x) */
        {8, 28, 448, 448, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x128x64_s4)},
        {32, 28, 128, 448, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg2_128x256x64_s4)},
        {16, 28, 128, 448, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x256x64_s4)},
        {64, 14, 256, 576, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg2_128x128x32_s6)},
        /* 64 filters or fewer, 70% of a wave of 64x64 tiles to one: that
         * tile unsplit, probed (1.02-1.21x) and held out (1.10-1.22x) */
        {8, 28, 256, 64, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {32, 14, 256, 48, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {128, 7, 192, 64, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {8, 56, 160, 64, 3, 1, 2, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        {128, 7, 256, 64, 3, 1, 1, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        /* past a wave of 64x64 tiles, K >= 1024, whole taps (maps): the
         * 128x64 producer/consumer tile, probed (1.28-1.66x) and held out
         * (1.09-1.66x); without maps, or with taps that end in zero-filled
         * k tiles (c = 160, 200: 0.98-1.35x), the mma.sync tile */
        {8, 17, 256, 200, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg1_64x128x64_s8)},
        {2, 28, 512, 384, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg1_64x128x64_s8)},
        {16, 28, 384, 64, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm80_64x64x32_w4_s4)},
        {8, 56, 512, 48, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm80_64x64x32_w4_s4)},
        {64, 56, 256, 48, 3, 1, 2, T(sm90_pp2_128x64x64_s7), T(sm80_64x64x32_w4_s4)},
        {4, 35, 256, 96, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg1_64x128x64_s8)},
        {8, 17, 128, 256, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg1_64x128x64_s8)},
        {16, 14, 200, 384, 3, 1, 1, T(sm90_pp2_cl4_128x128x64_s4), T(sm80_64x64x32_w4_s4)}, /* session 38 */
        {64, 56, 160, 48, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm80_64x64x32_w4_s4)}, /* session 38 */
        /* 129 to 191 filters: the cooperative 128x192 tile where the busiest
         * SM computes no more with it, probed (1.33-1.83x) and held out
         * (1.39-1.88x), 1x1 and 3x3 */
        {32, 28, 256, 160, 1, 0, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {64, 28, 384, 160, 1, 0, 2, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {4, 56, 384, 160, 1, 0, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {128, 35, 256, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg2_128x256x64_s4)}, /* session 78 */
        /* (since session 78, exactly 160 filters over 3x3 taps at unit
         * stride, up to three waves: the cooperative 128x160 tile) */
        {64, 14, 256, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg3_192x128x64_s4)},
        /* taps ending in zero-filled k tiles, a sixth of the loads or fewer
         * (c = 160, 240, 480, 672): the 128x128 producer/consumer tile
         * where its cost times those zeros is less, probed (1.07-1.37x) and
         * held out (1.01-1.32x); not c = 200 (0.83x), nor 96 filters */
        {64, 28, 160, 512, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x256x64_s4)},
        {128, 56, 160, 128, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x128x32_s6)},
        {256, 56, 160, 256, 3, 1, 2, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x256x64_s4)},
        {64, 14, 480, 512, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x256x64_s4)},
        {32, 28, 672, 256, 1, 0, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x256x64_s4)},
        {64, 56, 240, 512, 1, 0, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* (these two: 200 channels, the 192x256 tile since session 50) */
        {128, 28, 200, 200, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        {16, 28, 200, 1024, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        {32, 56, 160, 96, 3, 1, 1, T(sm90_wg2_128x128x32_s6), T(sm90_wg2_128x128x32_s6)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
}

/* Session 38's conv rules, each probed and held out on the H200 against
 * the old plan forced by name (docs/conv2d_fprop.md, "Session 38"). */
static void test_conv_session38(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* taps that end in more than a sixth of zeros (c = 200, 264), past a
         * wave of 64x64 tiles at K >= 1024: the 128x128 producer/consumer
         * tile, 1.07-2.17x against the mma.sync tile (twelve held out) */
        {4, 35, 200, 384, 3, 1, 1, T(sm90_pp2_cl4_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {64, 17, 200, 256, 3, 1, 2, T(sm90_pp2_cl4_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {8, 14, 264, 768, 5, 2, 1, T(sm90_pp2_cl4_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {32, 14, 200, 448, 3, 1, 2, T(sm90_pp2_128x128x64_s4), T(sm90_wg1_64x128x64_s8)},
        /* ... not c = 160 (192 loaded: 0.74-1.33x), nor where the
         * one-warpgroup tile's rules take the layer (0.63x) */
        {8, 17, 160, 448, 3, 1, 1, T(sm80_64x64x32_w4_s4), T(sm80_64x64x32_w4_s4)},
        {8, 35, 200, 192, 3, 1, 2, T(sm90_wg1_64x64x64_s8), T(sm90_wg1_64x64x64_s8)},
        /* 64 filters or fewer, past a wave of 64x64 tiles at K >= 1024:
         * the 128x64 producer/consumer tile with taps that end in zeros
         * too (c = 160, 200, 240: 1.14-1.67x, five held out) */
        {256, 14, 200, 48, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm80_64x64x32_w4_s4)},
        {16, 28, 160, 64, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm80_64x64x32_w4_s4)},
        {4, 112, 240, 48, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm80_64x64x32_w4_s4)},
        /* 1x1 layers at K of 129-320 with 97-255 ragged filters: the
         * staged 128x128 tile, with maps whether its taps end in zeros or
         * not (1.20-2.05x, eight held out); not 256 or more, nor whole
         * 64-column tiles (0.87-1.05x) */
        {256, 56, 256, 200, 1, 0, 1, T(sm90_pp2_128x128x64_s2_staged), T(sm90_wg2_128x256x64_s4)},
        {16, 56, 144, 232, 1, 0, 1, T(sm90_pp2_128x128x64_s2_staged), T(sm90_wg2_128x128x32_s6)},
        {128, 28, 256, 112, 1, 0, 1, T(sm90_pp2_128x128x64_s2_staged), T(sm90_wg2_128x128x32_s6)},
        {32, 56, 256, 512, 1, 0, 2, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* 257-511 filters, the last 128 columns under half full: the
         * 128x64 producer/consumer tile (1.05-1.57x, fourteen held out) */
        {32, 56, 448, 288, 1, 0, 2, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x128x64_s4)},
        {128, 7, 320, 416, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x128x64_s4)},
        {8, 28, 448, 416, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x128x64_s4)},
        {32, 17, 640, 400, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x256x64_s4)},
        /* ... the 128x128 one where the busiest SM computes no more with it
         * at K >= 2048 over several taps; and past 511 filters (528-560:
         * 0.94-1.06x, 656-688: 0.73-1.21x) */
        {1, 75, 512, 288, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {8, 35, 128, 544, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {16, 56, 256, 656, 1, 0, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x256x64_s4)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
}

/* Session 39's conv rules, each held out on the H200 after the checked
 * epilogue's row groups (docs/conv2d_fprop.md, "Session 39") */
static void test_conv_session39(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* taps that end in an eighth of zeros or fewer (c = 112, 168, 224,
         * 408-912), K >= 1024, past 64 filters: the 128x128
         * producer/consumer tile, 1.35-2.13x against the mma.sync 64x64
         * tile on eight held-out layers */
        {1, 56, 224, 200, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg1_64x128x64_s8)},
        {32, 19, 912, 120, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {16, 19, 168, 928, 5, 2, 2, T(sm90_pp2_cl2_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {1, 64, 584, 352, 3, 1, 1, T(sm90_pp2_cl4_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        {8, 17, 112, 480, 5, 2, 1, T(sm90_pp2_128x128x64_s4), T(sm80_64x64x32_w4_s4)},
        /* ... not at c = 160 (a sixth: 0.87-1.21x) */
        {1, 56, 160, 192, 3, 1, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        /* 129-191 filters over taps that end in zeros, where the 128x128
         * tile would take them: the cooperative 128x192 one (1.11-2.30x,
         * ten held out) */
        {256, 7, 288, 176, 7, 3, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        /* (168 channels without maps: the 192x256 tile since session 50) */
        {16, 56, 168, 136, 1, 0, 1, T(sm90_coop2_cl2_128x192x64_s4), T(sm90_wg3_192x256x64_s4)},
        {32, 35, 160, 160, 3, 1, 1, T(sm90_coop2_128x160x64_s4), T(sm90_wg2_128x256x64_s4)}, /* session 78 */
        {64, 75, 112, 160, 3, 1, 2, T(sm90_coop2_128x192x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* ... where the cp.async 192-row tiles win the cost, as before
         * (0.88-1.11x against them) */
        {16, 28, 200, 144, 3, 1, 1, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {32, 28, 160, 136, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        /* under half a wave of 128x128 tiles at K >= 4096, more than 128
         * filters: the cp.async 128x256 or 192x128 tile split along K
         * (1.19-1.74x, ten held out) */
        {8, 23, 744, 744, 7, 3, 2, T(sm90_wg2_128x256x64_s4), T(sm90_wg1_64x128x64_s8)},
        {4, 42, 536, 360, 5, 2, 2, T(sm90_wg3_192x128x64_s4), T(sm90_wg1_64x128x64_s8)},
        {32, 7, 512, 448, 3, 1, 1, T(sm90_wg2_128x256x64_s4), T(sm90_wg1_64x128x64_s8)},
        /* ... not where neither splits (the 128x128 tile as before), nor at
         * 128 filters or fewer */
        {1, 38, 488, 552, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg1_64x128x64_s8)},
        {128, 7, 512, 128, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg1_64x128x64_s8)},
        /* K >= 8192, 8-16 tiles of 128x256: that tile (split eight ways:
         * test_split_k), maps or not (1.00-1.99x, eight held out) */
        {8, 7, 792, 672, 7, 3, 1, T(sm90_wg2_128x256x64_s4), T(sm90_wg2_128x256x64_s4)},
        {8, 14, 856, 632, 7, 3, 2, T(sm90_wg2_128x256x64_s4), T(sm90_wg2_128x256x64_s4)},
        {16, 9, 424, 352, 5, 2, 2, T(sm90_wg2_128x256x64_s4), T(sm90_wg2_128x256x64_s4)},
        /* ... not where the one-warpgroup 64x128 rule takes whole
         * 128-column tiles (1.00x, 0.91x) */
        {2, 9, 200, 1024, 7, 3, 1, T(sm90_wg1_64x128x64_s8), T(sm90_wg1_64x128x64_s8)},
        /* 65-96 filters over several taps past a wave of 128x128 tiles:
         * that tile, not the 128x64 one (1.02-1.36x, twenty held out);
         * 1x1 layers and smaller grids keep the 128x64 tile */
        {128, 28, 192, 96, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x128x32_s6)},
        {16, 112, 128, 84, 5, 2, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg2_128x128x32_s6)},
        {128, 14, 512, 72, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x128x64_s4)},
        {16, 19, 640, 80, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg1_64x128x64_s8)},
        /* past 192 filters at K >= 1024, where the cooperative 128x192 tile
         * leaves the busiest SM a quarter less than the 128x128 one: the
         * cooperative tile (1.09-1.59x, ten held out); not at K = 576,
         * nor 1x1 layers (test_conv_coop_wave's 8x28x28x1536 -> 384) */
        {8, 17, 384, 1024, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {128, 7, 720, 344, 5, 2, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {2, 56, 192, 336, 3, 1, 1, T(sm90_coop2_128x192x64_s4), T(sm90_wg3_192x128x64_s4)},
        {32, 14, 64, 384, 3, 1, 1, T(sm90_pp2_128x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        /* k % 128 == 64 over several taps ending in more than a sixth of
         * zeros: the cost list's pick, not the 128x64 tile (0.98-1.49x,
         * eight held out); c = 160 and 1x1 layers keep the 128x64 tile */
        /* (200 channels, an odd multiple of 8: the 192x256 tile since session 50) */
        {128, 35, 200, 192, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        {4, 56, 200, 192, 3, 1, 1, T(sm90_wg3_192x128x64_s4), T(sm90_wg3_192x128x64_s4)},
        {64, 14, 96, 448, 3, 1, 1, T(sm90_wg3_192x256x64_s4), T(sm90_wg3_192x256x64_s4)},
        {32, 17, 160, 448, 3, 1, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg3_192x256x64_s4)},
        {32, 56, 240, 320, 1, 0, 1, T(sm90_pp2_128x64x64_s7), T(sm90_wg2_128x128x32_s6)},
    };
    assert_int_equal(conv_picks_wrong(cases, sizeof cases / sizeof cases[0]), 0);
    /* the splits the split rules were held out with: four shares for
     * SPLIT's picks, eight for L8's and K8's (maps) */
    assert_int_equal(conv_plan(8, 23, 23, 744, 744, 7, 3, 2, 1).splits, 4);
    assert_int_equal(conv_plan(4, 42, 42, 536, 360, 5, 2, 2, 1).splits, 4);
    assert_int_equal(conv_plan(8, 7, 7, 792, 672, 7, 3, 1, 1).splits, 8);
    assert_int_equal(conv_plan(2, 9, 9, 752, 944, 7, 3, 2, 1).splits, 8);
    assert_int_equal(conv_plan(2, 9, 9, 752, 944, 7, 3, 2, 1).config->id, T(sm90_wg1_64x64x64_s8));
}

/* Where the cooperative 128x256 tile's last column of tiles is half empty
 * or less (N % 256 of 1 to 128) and pads five points more of its area than
 * the ping-pong tile: the ping-pong tile (session 35) */
static void test_coop_padded_columns(void **state)
{
    (void)state;
    const plan_kernel *light = &k_gemm_tn_light, *gelu = &k_gemm_tn_gelu;
    const pick_probe probes[] = {
        /* probed (six stages: test_deep_ping_pong) */
        {gelu, 200, 1408, 2048, 1, T(sm90_pp2_128x128x64_s6), 64},
        {light, 512, 1408, 2048, 1, T(sm90_pp2_128x128x64_s6), 16},
        {gelu, 1024, 640, 1024, 1, T(sm90_pp2_128x128x64_s6), 32},
        /* held out */
        {light, 300, 1408, 1024, 1, T(sm90_pp2_128x128x64_s6), 22},
        {gelu, 640, 384, 768, 1, T(sm90_pp2_128x128x64_s6), 64},
        {gelu, 16384, 640, 4096, 1, T(sm90_pp2_cl2_128x128x64_s6), 1}, /* K >= 2048: in clusters */
        {light, 4096, 2432, 1024, 1, T(sm90_pp2_128x128x64_s6), 2},
        /* unchanged: N % 256 over 128 (1216: 95% in both), one wave of the
         * cooperative tile */
        {gelu, 4096, 3840, 2048, 1, T(sm90_coop2_128x256x64_s3), 1},
        {gelu, 384, 1152, 4096, 1, T(sm90_coop2_128x256x64_s4), 8},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
}

/* Where the cp.async 128x256 tile fills its waves but its last column of
 * 256-column tiles pads five points more of its area than the ping-pong
 * tile's: the ping-pong pick (session 46, held out) */
static void test_wide_padded_columns(void **state)
{
    (void)state;
    const plan_kernel *gelu = &k_gemm_tn_gelu;
    const pick_probe probes[] = {
        /* N of 592: 77% of three 256-column tiles, 92.5% of five 128-column ones */
        {gelu, 9928, 592, 10504, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        {gelu, 11256, 600, 3336, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* K under 2048: four stages' tile, whose two waves the cooperative
         * 128x192 tile's one replaces (plan_gemm_sm90_pick, session 47) */
        {gelu, 8296, 376, 1376, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* unchanged: N of 12776 (99.8% against 99.8%; K = 1416 until
         * session 50, an odd multiple of 8 that now takes the cooperative
         * row: test_odd_k_wide_split) */
        {gelu, 545, 12776, 1424, 1, T(sm90_wg2_128x256x64_s4), 1},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
}

/* The cooperative 128x160 tile where it pads N no more than the 128x192
 * one, else that one, where it leaves the busiest SM a quarter less area
 * than a 128-row pick (plan_gemm_sm90_pick, session 47) */
static void test_mid_over_padding(void **state)
{
    (void)state;
    const plan_kernel *gelu = &k_gemm_tn_gelu;
    const pick_probe probes[] = {
        /* probed: one 160-column tile for N = 136, two for 320 */
        {gelu, 16384, 136, 8192, 1, T(sm90_coop2_128x160x64_s4), 1},
        {gelu, 8192, 320, 4096, 1, T(sm90_coop2_128x160x64_s4), 1},
        {gelu, 6560, 272, 5720, 1, T(sm90_coop2_128x160x64_s4), 1},
        /* the 128x192 tile's held-out shapes (1.25x in geomean over twelve
         * against the ping-pong tile, the least 0.95x): 3 x 192 columns
         * where 4 x 160 pad N more; 4 x 192 and 5 x 160, likewise; 2 x 192
         * and 2 x 160 */
        {gelu, 3435, 536, 3048, 1, T(sm90_coop2_128x192x64_s4), 1},
        {gelu, 2911, 760, 1544, 1, T(sm90_coop2_128x192x64_s4), 1},
        {gelu, 6009, 304, 8880, 1, T(sm90_coop2_128x160x64_s4), 1},
        /* the 160-wide tile's held-out shapes (1.23x in geomean over twelve
         * against the 192-wide one, the least 1.04x) */
        {gelu, 3590, 624, 2664, 1, T(sm90_coop2_128x160x64_s4), 1},
        {gelu, 2591, 784, 3056, 1, T(sm90_coop2_128x160x64_s4), 1},
        {gelu, 11628, 136, 1184, 1, T(sm90_coop2_128x160x64_s4), 1},
        /* the second formulation's loss: the 160-wide tile fails the area
         * test, the 192-wide one passes (not the ping-pong pick, 0.89x) */
        {gelu, 2472, 976, 12440, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* and the first's: 5 x 160 pad N more than 4 x 192 (0.94x) */
        {gelu, 3093, 648, 2328, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* N = 192: one 192-column tile, two 160-column ones (128 tiles against 256) */
        {gelu, 16384, 192, 4096, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* the 160-wide tile loads K-contiguous operands only */
        {&k_gemm_nn, 16384, 136, 8192, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* unchanged: more area (4096^3), fp8; N of 400 or less is
         * n_fit_of's since session 53 (test_n_fit) */
        {gelu, 4096, 4096, 4096, 1, T(sm90_coop2_128x256x64_s4), 1},
        {&k_gemm_fp8, 8192, 320, 4096, 1, T(sm90_coop2_cl2_128x128x128_s4_fp8), 1},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
}

/* Session 53's rule in gemm_sm90_base: the eight-stage 64x128 tile
 * unsplit where its tiles fit one wave and are fewer than twice the
 * ping-pong tiles (M's last 128-row tile half full or less). */
static void test_deep_half_row(void **state)
{
    (void)state;
    const plan_kernel *gelu = &k_gemm_tn_gelu;
    const pick_probe probes[] = {
        /* probed: 3 x 38 tiles against 2 x 38 ping-pong ones */
        {gelu, 148, 4808, 5408, 1, T(sm90_wg1_64x128x64_s8), 1},
        {gelu, 190, 5320, 14288, 1, T(sm90_wg1_64x128x64_s8), 1},
        {gelu, 191, 4552, 2416, 1, T(sm90_wg1_64x128x64_s8), 1},
        /* K an odd multiple of 8 (187x4800x11544 0.83x held out) */
        {gelu, 187, 4800, 11544, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* more than four 128-row tile rows (805x1184x14344 0.80x held out) */
        {gelu, 805, 1184, 14336, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* 3 x 59 tiles: past a wave */
        {gelu, 151, 7504, 3264, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
    /* M of 193-256: twice the tiles (4 x 30 against 2 x 30), not this rule's */
    assert_int_not_equal(pick_batch(gelu, EVT_TARGET_SM90A, 200, 3840, 5408, 1, 132, 1), T(sm90_wg1_64x128x64_s8));
    /* a batch: not measured */
    assert_int_not_equal(pick_batch(gelu, EVT_TARGET_SM90A, 148, 4808, 5408, 2, 132, 1), T(sm90_wg1_64x128x64_s8));
}

/* Session 54: the cooperative 128x256 tile's tail rule not where its tiles
 * pad N ten points of area or more over the ping-pong tile's. */
static void test_coop_tail_padding(void **state)
{
    (void)state;
    const plan_kernel *gelu = &k_gemm_tn_gelu;
    const pick_probe probes[] = {
        /* probed: 73% of the area against 87.5% (66.2 against 41.2 us) */
        {gelu, 6174, 560, 2072, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* held out (seed 5402): 1.05-1.48x */
        {gelu, 6400, 520, 4184, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        {gelu, 4492, 824, 10424, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        {gelu, 14092, 1128, 12280, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* six points (N = 1896): the tail, as before (0.92x without it) */
        {gelu, 2224, 1896, 8008, 1, T(sm90_coop2_128x256x64_s3), 1},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
}

/* Session 53's rule for N of 400 or less (n_fit_of): of the ping-pong
 * 128x128 tile and the cooperative 128x160 and 128x192 ones, the first
 * that leaves the busiest SM less area than the 128-row pick. */
static void test_n_fit(void **state)
{
    (void)state;
    const plan_kernel *gelu = &k_gemm_tn_gelu;
    const pick_probe probes[] = {
        /* probed: the cooperative 128x256 tile's tail, two 256-column
         * tiles for N = 352: 201 ping-pong tiles in two rounds, in
         * clusters of two as gemm_sm90_base's rule would give them */
        {gelu, 8492, 352, 2896, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        {gelu, 10052, 384, 3192, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* the cp.async 128x256 tile at K under 1024: 160 columns */
        {gelu, 15295, 264, 536, 1, T(sm90_coop2_128x160x64_s4), 1},
        {gelu, 8192, 320, 768, 1, T(sm90_coop2_128x160x64_s4), 1},
        /* 192 columns where 160 take three tiles */
        {gelu, 7861, 336, 896, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* the four-stage ping-pong tile at K under 2048 */
        {gelu, 11341, 328, 312, 1, T(sm90_pp2_128x128x64_s4), 1},
        /* as much area as the pick: it stays */
        {gelu, 9929, 288, 448, 1, T(sm90_wg2_128x128x64_s3), 1},
        {gelu, 4700, 376, 1008, 1, T(sm90_pp2_128x128x64_s4), 1},
        /* N past 400: not measured */
        {gelu, 8192, 408, 768, 1, T(sm90_wg2_128x256x64_s4), 1},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
}

/* K of 768 to 2047 in whole k tiles, where every consumer gets two tiles
 * and the cooperative tile's waves are full: the six-stage ping-pong row,
 * up to twelve of its tiles an SM (session 35) */
static void test_deep_pp_over_coop(void **state)
{
    (void)state;
    const plan_kernel *light = &k_gemm_tn_light, *gelu = &k_gemm_tn_gelu;
    const pick_probe probes[] = {
        /* probed */
        {gelu, 4096, 4096, 1024, 1, T(sm90_pp2_128x128x64_s6), 1},
        {light, 8192, 2048, 1024, 1, T(sm90_pp2_128x128x64_s6), 1},
        {gelu, 768, 4096, 1024, 1, T(sm90_pp2_128x128x64_s6), 8},
        {light, 4096, 1536, 1536, 1, T(sm90_pp2_128x128x64_s6), 2},
        /* held out */
        {gelu, 2048, 4096, 1536, 1, T(sm90_pp2_128x128x64_s6), 2},
        {light, 3000, 4096, 1024, 1, T(sm90_pp2_128x128x64_s6), 1},
        {gelu, 2048, 2048, 768, 1, T(sm90_pp2_128x128x64_s6), 6},
        {light, 640, 2560, 1024, 1, T(sm90_pp2_128x128x64_s6), 12},
        {gelu, 12288, 2048, 768, 1, T(sm90_pp2_128x128x64_s6), 1},
        /* unchanged: K not whole k tiles (the clustered row), K of 2048,
         * more than twelve tiles an SM, fp8 */
        {gelu, 1000, 1000, 1000, 1, T(sm90_coop2_cl2_128x256x64_s3), 16},
        {light, 4096, 4096, 2048, 1, T(sm90_coop2_cl2_128x256x64_s4), 1},
        {gelu, 16384, 4096, 1024, 1, T(sm90_coop2_128x256x64_s3), 1},
        {&k_gemm_fp8, 4096, 4096, 1024, 1, T(sm90_coop2_cl2_128x128x128_s4_fp8), 1},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
}

/* Session 70: a heavy epilogue (plan_heavy_epilogue) where the rules take
 * the three-stage cooperative 128x256 row, clustered or not, takes the
 * six-stage ping-pong tile (the training and held-out shapes); not in a
 * batch, at K under 1024, on fp8, nor where another row is picked. */
static void test_heavy_ping_pong(void **state)
{
    (void)state;
    const plan_kernel *heavy = &k_gemm_tn_heavy;
    const pick_probe probes[] = {
        /* training: the pick was sm90_coop2_128x256x64_s3 and its clustered row */
        {heavy, 4096, 4096, 4096, 1, T(sm90_pp2_128x128x64_s6), 1},
        {heavy, 3000, 5000, 2000, 1, T(sm90_pp2_128x128x64_s6), 1},
        /* held out */
        {heavy, 10240, 1792, 2560, 1, T(sm90_pp2_128x128x64_s6), 1},
        /* unchanged: the other picks of those draws, a heavy epilogue's
         * kind that is not heavy, a batch, short K */
        {heavy, 8192, 2048, 1024, 1, T(sm90_pp2_128x128x64_s6), 1},
        {heavy, 5120, 3584, 1536, 1, T(sm90_coop2_128x192x64_s4), 1},
        {heavy, 2304, 6144, 3072, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        {&k_gemm_tn, 4096, 4096, 4096, 1, T(sm90_coop2_128x256x64_s3), 1},
        {&k_gemm_tn, 3000, 5000, 2000, 1, T(sm90_coop2_cl2_128x256x64_s3), 1},
        {heavy, 1000, 1000, 1000, 1, T(sm90_coop2_cl2_128x256x64_s3), 16},
        {heavy, 4096, 4096, 512, 1, pick(&k_gemm_tn, EVT_TARGET_SM90A, 4096, 4096, 512, 132, 1), 1},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
}

/* Session 34: a light epilogue at K of 1024 to 4095 in whole k tiles where
 * the planner took the cp.async 128x256 tile takes the cooperative row
 * (the shapes it was measured on, batched and not); a GELU, K not whole k
 * tiles and no maps keep the rules before it. */
static void test_light_mid_k_coop(void **state)
{
    (void)state;
    const plan_kernel *light = &k_gemm_tn_light, *bias = &k_gemm_tn_bias;
    const pick_probe probes[] = {
        /* probed */
        {light, 256, 4096, 1024, 1, T(sm90_coop2_128x256x64_s4), 8},
        {bias, 512, 2048, 1536, 1, T(sm90_coop2_128x256x64_s4), 8},
        {bias, 2048, 2048, 1024, 1, T(sm90_coop2_128x256x64_s4), 1},
        /* held out; at K = 2048 in clusters where they add no wave (coop_of) */
        {bias, 128, 8192, 1024, 1, T(sm90_coop2_128x256x64_s4), 8},
        {light, 640, 3072, 1024, 1, T(sm90_coop2_128x256x64_s4), 4},
        {bias, 256, 5120, 1536, 1, T(sm90_coop2_128x256x64_s4), 6},
        {light, 1024, 8192, 2048, 1, T(sm90_coop2_cl2_128x256x64_s4), 1},
        /* unchanged: a GELU, K not whole k tiles, no maps */
        {&k_gemm_tn_gelu, 256, 4096, 1024, 1, T(sm90_wg2_128x256x64_s4), 8},
        {bias, 2048, 2048, 1000, 1, T(sm90_wg2_128x256x64_s4), 1},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
    assert_true(pick_batched_k(bias, 256, 4096, 1024, 8, 0) != T(sm90_coop2_128x256x64_s4));
}

/* The cooperative 128x192 tile (mid_fills_waves): K of 512 or more, its
 * waves 70% full or more and ten points fuller than the 128x256 tile's;
 * 16-bit operands on sm_90a with maps. */
static void test_mid_tile(void **state)
{
    (void)state;
    const plan_kernel *k = &k_gemm_tn;
    const pick_probe probes[] = {
        /* session 31's shapes: one wave of it (128, 130, 108 tiles) */
        {k, 1024, 3072, 4096, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 640, 4992, 4096, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 1152, 2304, 3072, 1, T(sm90_coop2_128x192x64_s4), 1},
        {&k_gemm_tn_light, 512, 6144, 4096, 1, T(sm90_coop2_128x192x64_s4), 1},
        {&k_gemm_tn_gelu, 3072, 3072, 3072, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* whole waves of the 128x256 tile: 4096^3 (97% against 89%), 8192^3
         * (97% against 99%, under ten points) */
        {k, 4096, 4096, 4096, 1, T(sm90_coop2_128x256x64_s3), 1},
        {&k_gemm_tn_light, 8192, 8192, 8192, 1, T(sm90_coop2_cl2_128x256x64_s4), 1},
        /* 79% and 73% (104 and 96 tiles) against 61% and 55%; 66% (88) */
        {k, 1000, 2496, 4096, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 768, 3072, 2048, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* 88 of its tiles against 136 of the ping-pong tile's (session 47;
         * 14 columns of 160 pad N more than 11 of 192) */
        {k, 1000, 2112, 4096, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* N under 85% inside its tiles: 8192 x 256 (128 tiles, 97% of a
         * wave, but half of every second column tile padding) */
        {k, 8192, 256, 512, 1, T(sm90_wg1_64x128x64_s4), 1},
        {k, 4096, 512, 512, 1, T(sm90_coop2_128x192x64_s4), 1}, /* 89% inside */
        /* K of 512 and more; under 512; no maps; not K-contiguous (the
         * transposed wgmma, as every wgmma tile) */
        {k, 4096, 2304, 512, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 4096, 2304, 448, 1, T(sm90_pp2_128x128x64_s4), 1},
        {k, 1024, 3072, 4096, 0, T(sm90_wg2_128x256x64_s4), 1},
        {&k_gemm_nn, 1024, 3072, 4096, 1, T(sm90_coop2_128x192x64_s4), 1},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
    /* fp8 has no such tile; a batch counts its tiles (2 x 64 of 1024 x 1536) */
    assert_int_equal(pick(&k_gemm_fp8, EVT_TARGET_SM90A, 1024, 3072, 4096, 132, 1),
                     T(sm90_coop2_cl2_128x128x128_s4_fp8));
    assert_int_equal(pick_batched(1024, 1536, 4096, 2, 1), T(sm90_coop2_128x192x64_s4));
    /* its epilogue: 64-column sub-tiles beside four 40 KB stages, three to a row */
    assert_int_equal(EVT_TILE_EPI_BN(EVT_TILE_WGMMA, 128, 192, 64, 4), 64);
    assert_true(CFG(sm90_coop2_128x192x64_s4)->smem_bytes <= 227 * 1024);
    /* no tail configuration (no plain 128x192 tile), stream-K where forced */
    assert_null(plan_tail_config(CFG(sm90_coop2_128x192x64_s4), &k_gemm_tn, EVT_TARGET_SM90A));
    assert_true(plan_config_stream_k(CFG(sm90_coop2_128x192x64_s4)));
    assert_true(plan_listed(CFG(sm90_coop2_128x192x64_s4), &k_gemm_tn, EVT_TARGET_SM90A));
    assert_false(plan_listed(CFG(sm90_coop2_128x192x64_s4), &k_gemm_tn, EVT_TARGET_SM80));
}

/* K of 512 to 1023 (session 22's sweep): the ping-pong tile where the
 * 128x256 one would run more than a wave at under 85%; that one within a
 * wave, or at 85% and more; without maps, or at shorter K, as before. */
static void test_mid_k_ping_pong(void **state)
{
    (void)state;
    const plan_kernel *k = &k_gemm_tn;
    const pick_probe probes[] = {
        /* 192 and 160 wide tiles on 132 SMs: 73% and 61%; at K of 512 or
         * more the 128x192 tile where its waves are fuller (mid_fills_waves:
         * 97% and 85%), and where the 128x256 tile would run one wave (96
         * and 80 tiles, 128 and 112 of the 128x192 tile) */
        {k, 8192, 768, 768, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 2048, 3000, 1000, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 1000, 5120, 512, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 1000, 5120, 448, 1, T(sm90_wg2_128x256x64_s4), 1}, /* below K = 512: neither rule */
        {k, 2048, 2560, 896, 1, T(sm90_coop2_128x192x64_s4), 1},
        {&k_gemm_nn, 8192, 768, 768, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 8192, 768, 640, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 8192, 768, 448, 1, T(sm90_wg2_128x256x64_s4), 1},
        /* 256 wide tiles: 97% */
        {k, 8192, 1024, 640, 1, T(sm90_wg2_128x256x64_s4), 1},
        /* within a wave: 96 and 80 wide tiles */
        {k, 1000, 3000, 1000, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 1000, 2560, 896, 1, T(sm90_coop2_128x192x64_s4), 1},
        {&k_gemm_nn, 1000, 3000, 1000, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 1000, 3000, 640, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 1000, 3000, 448, 1, T(sm90_wg2_128x256x64_s4), 1},
        /* no maps; K of two k tiles */
        {k, 8192, 768, 768, 0, T(sm90_wg2_128x256x64_s4), 1},
        {k, 333, 14336, 384, 1, T(sm90_wg2_128x256x64_s4), 1},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
    assert_true(pick(k, EVT_TARGET_SM90A, 8192, 768, 128, 132, 1) != T(sm90_pp2_128x128x64_s4));
}

/* The cooperative tile's row (coop_of): in clusters of two at 768 <= K <
 * 2048 with K % 64 != 0, whatever the epilogue; four stages for a light
 * epilogue at K >= 2048, K % 64 == 0 and N % 8 == 0, in clusters of two
 * where K-contiguous and no tail is split; four stages without clusters for
 * a per-element one of costly builtins (a GELU) on the same terms at K >=
 * 4096; else three; the rules that take the tile unchanged. */
static void test_light_coop(void **state)
{
    (void)state;
    static const struct {
        long long m, n, k;
        enum evt_tile_id light, gelu, heavy;
    } cases[] = {
        {8192, 8192, 8192, T(sm90_coop2_cl2_128x256x64_s4), T(sm90_coop2_128x256x64_s4),
         T(sm90_coop2_128x256x64_s3)},
        {4096, 4096, 4096, T(sm90_coop2_cl2_128x256x64_s4), T(sm90_coop2_128x256x64_s4),
         T(sm90_coop2_128x256x64_s3)},
        {16384, 1024, 4096, T(sm90_coop2_cl2_128x256x64_s4), T(sm90_coop2_128x256x64_s4),
         T(sm90_coop2_128x256x64_s3)},
        {8192, 4096, 14336, T(sm90_coop2_cl2_128x256x64_s4), T(sm90_coop2_128x256x64_s4),
         T(sm90_coop2_128x256x64_s3)},
        /* K from 2048 to 4095: four stages for the light epilogue alone */
        {8192, 8192, 2048, T(sm90_coop2_cl2_128x256x64_s4), T(sm90_coop2_128x256x64_s3),
         T(sm90_coop2_128x256x64_s3)},
        {8192, 8192, 4032, T(sm90_coop2_cl2_128x256x64_s4), T(sm90_coop2_128x256x64_s3),
         T(sm90_coop2_128x256x64_s3)},
        /* K's rows not whole lines, K < 2048: three stages in clusters, light or not */
        {16384, 3000, 1000, T(sm90_coop2_cl2_128x256x64_s3), T(sm90_coop2_cl2_128x256x64_s3),
         T(sm90_coop2_cl2_128x256x64_s3)},
        {4000, 3000, 1000, T(sm90_coop2_cl2_128x256x64_s3), T(sm90_coop2_cl2_128x256x64_s3),
         T(sm90_coop2_cl2_128x256x64_s3)},
        /* ... K >= 2048: three stages (5000^3 with its tail) */
        {5000, 5000, 5000, T(sm90_coop2_128x256x64_s3), T(sm90_coop2_128x256x64_s3),
         T(sm90_coop2_128x256x64_s3)},
        {7000, 3000, 3000, T(sm90_coop2_128x256x64_s3), T(sm90_coop2_128x256x64_s3),
         T(sm90_coop2_128x256x64_s3)},
        /* K under 2048, a multiple of 64: four stages without clusters for
         * the light epilogue, three for the others */
        {6000, 7000, 768, T(sm90_coop2_128x256x64_s4), T(sm90_coop2_128x256x64_s3),
         T(sm90_coop2_128x256x64_s3)},
        {8192, 8192, 1024, T(sm90_coop2_128x256x64_s4), T(sm90_coop2_128x256x64_s3),
         T(sm90_coop2_128x256x64_s3)},
        /* N not a multiple of 8: the epilogue's rows may not be 16-byte aligned */
        {8192, 8190, 4096, T(sm90_coop2_128x256x64_s3), T(sm90_coop2_128x256x64_s3),
         T(sm90_coop2_128x256x64_s3)},
        /* K = 512: the cooperative tile's rule does not take it, light or not */
        {8192, 5120, 512, T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4), T(sm90_pp2_128x128x64_s4)},
        /* short K, many tiles: the short-K rule's tile, in four stages for
         * the light epilogue; K not whole k tiles: three */
        {8192, 8192, 128, T(sm90_coop2_128x256x64_s4), T(sm90_coop2_128x256x64_s3),
         T(sm90_coop2_128x256x64_s3)},
        {8192, 8192, 96, T(sm90_coop2_128x256x64_s3), T(sm90_coop2_128x256x64_s3),
         T(sm90_coop2_128x256x64_s3)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(pick(&k_gemm_tn_light, EVT_TARGET_SM90A, cases[i].m, cases[i].n, cases[i].k, 132, 1),
                         cases[i].light);
        assert_int_equal(pick(&k_gemm_tn_gelu, EVT_TARGET_SM90A, cases[i].m, cases[i].n, cases[i].k, 132, 1),
                         cases[i].gelu);
        assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, cases[i].m, cases[i].n, cases[i].k, 132, 1),
                         cases[i].heavy);
    }
    /* one wave of 128x256 tiles at K >= 4096: the row, in clusters where
     * they divide the tile rows (1000: eight), not where a cluster would
     * stand half idle in every column and add a wave (333: three) */
    assert_int_equal(pick(&k_gemm_tn_light, EVT_TARGET_SM90A, 1000, 4096, 4096, 132, 1),
                     T(sm90_coop2_cl2_128x256x64_s4));
    assert_int_equal(pick(&k_gemm_tn_light, EVT_TARGET_SM90A, 333, 11008, 4096, 132, 1),
                     T(sm90_coop2_128x256x64_s4));
    assert_int_equal(pick(&k_gemm_tn_gelu, EVT_TARGET_SM90A, 333, 11008, 4096, 132, 1),
                     T(sm90_coop2_128x256x64_s4));
    /* the same for the clustered row of K not whole k tiles: 33 tile rows of 12 tiles
     * are three waves, 34 stacked four (4000: 32 rows, clustered) */
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 4100, 3000, 1000, 132, 1), T(sm90_coop2_128x256x64_s3));
    assert_int_equal(pick(&k_gemm_tn, EVT_TARGET_SM90A, 4000, 3000, 1000, 132, 1), T(sm90_coop2_cl2_128x256x64_s3));
    /* not K-contiguous: no clusters */
    assert_int_equal(pick(&k_gemm_nn_light, EVT_TARGET_SM90A, 8192, 8192, 8192, 132, 1),
                     T(sm90_coop2_128x256x64_s4));
    assert_int_equal(pick(&k_gemm_nn, EVT_TARGET_SM90A, 16384, 3000, 1000, 132, 1),
                     T(sm90_coop2_128x256x64_s3));
    /* a batch of them: the same rules (1000^3 L 16: 512 tiles) */
    assert_int_equal(pick_batched(1000, 1000, 1000, 16, 1), T(sm90_coop2_cl2_128x256x64_s3));
    /* without maps: no producer/consumer tile */
    assert_int_equal(pick(&k_gemm_tn_light, EVT_TARGET_SM90A, 8192, 8192, 8192, 132, 0),
                     T(sm90_wg2_128x256x64_s4));
    /* 688 tiles, a last wave of 28 split along K: four stages without
     * clusters, so that its tail (plan_tail_config: none for a clustered
     * plan) is split */
    plan_problem p = problem(EVT_TARGET_SM90A, 132, 2048, 11008, 4096, 1);
    p.conv_c = 0;
    const plan pl = make(&k_gemm_tn_light, &p, NULL);
    assert_int_equal(pl.config->id, T(sm90_coop2_128x256x64_s4));
    assert_true(pl.tail_splits >= 2 && pl.tiles - pl.tail_first == 28);
    /* the four-stage row: 32-column epilogue sub-tiles beside four 48 KB stages */
    assert_true(CFG(sm90_coop2_128x256x64_s4)->smem_bytes <= 227 * 1024);
    assert_int_equal(EVT_TILE_EPI_BN(EVT_TILE_WGMMA, 128, 256, 64, 4), 32);
    assert_int_equal(EVT_TILE_EPI_BN(EVT_TILE_WGMMA, 128, 256, 64, 3), 128);
    assert_int_equal(EVT_TILE_EPI_BN(EVT_TILE_WGMMA, 128, 128, 64, 4), 128);
    /* the six-stage ping-pong row: each consumer's 64 x 32 sub-tile beside six 32 KB stages */
    assert_int_equal(EVT_TILE_EPI_BN(EVT_TILE_WGMMA, 128, 128, 64, 6), 32);
    assert_true(CFG(sm90_pp2_128x128x64_s6)->smem_bytes <= 227 * 1024);
    assert_int_equal(CFG(sm90_pp2_128x128x64_s6)->smem_bytes, CFG(sm90_pp2_cl2_128x128x64_s6)->smem_bytes);
}

/* Where the heuristic takes the ping-pong tile, at K of 2048 or more the
 * six-stage row instead; not for fp8 (its ping-pong tile is never picked),
 * a conv, or where the tile is not the ping-pong one. */
static void test_deep_ping_pong(void **state)
{
    (void)state;
    const plan_kernel *k = &k_gemm_tn;
    const pick_probe probes[] = {
        /* 128 tiles: one wave or less, four stages below K = 2048 */
        {k, 512, 4096, 2047, 1, T(sm90_pp2_128x128x64_s4), 1},
        {k, 512, 4096, 2048, 1, T(sm90_pp2_cl2_128x128x64_s6), 1}, /* (in clusters: K >= 2048, four rows) */
        {&k_gemm_nn, 512, 4096, 2048, 1, T(sm90_pp2_128x128x64_s6), 1}, /* (B not K-contiguous) */
        /* K of 768 to 2047 with two tiles an SM or more (session 35):
         * probed, held out; below 768, and one wave (120, 96 tiles) */
        {k, 6000, 5120, 1280, 1, T(sm90_pp2_128x128x64_s6), 1},
        {k, 2304, 6144, 896, 1, T(sm90_pp2_128x128x64_s6), 1},
        {k, 8192, 1280, 1536, 1, T(sm90_pp2_128x128x64_s6), 1},
        {k, 2048, 5120, 768, 1, T(sm90_pp2_128x128x64_s6), 1},
        {k, 640, 11008, 1000, 1, T(sm90_pp2_cl2_128x128x64_s6), 1}, /* (K odd-8: clusters, session 51) */
        {k, 2048, 5120, 640, 1, T(sm90_pp2_128x128x64_s4), 1},
        {k, 333, 5120, 1280, 1, T(sm90_pp2_128x128x64_s4), 1},
        {k, 512, 3000, 1000, 1, T(sm90_pp2_128x128x64_s4), 1},
        {k, 512, 4096, 11008, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* one tile row: no cluster (the peer's tile would be empty) */
        {k, 128, 76800, 4096, 1, T(sm90_pp2_128x128x64_s6), 1},
        {k, 256, 38400, 4096, 1, T(sm90_pp2_cl2_128x128x64_s6), 1},
        /* (the 128x192 tile where its waves are fuller: mid_fills_waves) */
        {k, 333, 14336, 4096, 1, T(sm90_coop2_128x192x64_s4), 1},
        {k, 1000, 2560, 2560, 1, T(sm90_coop2_128x192x64_s4), 1}, /* one round: not c160_over_mid */
        {&k_gemm_nn, 333, 14336, 4096, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* the column-major layouts too (the transposed wgmma) */
        {&k_gemm_nn, 1000, 2560, 2560, 1, T(sm90_coop2_128x192x64_s4), 1},
        /* without TMA maps: no producer/consumer tile at all */
        {k, 512, 4096, 11008, 0, T(sm90_wg1_64x128x64_s4), 1},
        /* the cooperative tile where it is taken */
        {k, 4096, 4096, 4096, 1, T(sm90_coop2_128x256x64_s3), 1},
        /* fp8: its cooperative tile (in clusters: M of four tile rows) */
        {&k_gemm_fp8, 512, 4096, 11008, 1, T(sm90_coop2_cl2_128x128x128_s4_fp8), 1},
        /* a conv keeps the four-stage row */
        {&k_conv, 25088, 256, 2304, 1, T(sm90_pp2_128x128x64_s4), 1},
    };
    expect_picks(probes, sizeof probes / sizeof probes[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_names), cmocka_unit_test(test_config_sizes),
        cmocka_unit_test(test_targets),      cmocka_unit_test(test_can_run),
        cmocka_unit_test(test_picks),        cmocka_unit_test(test_swapped_picks),        cmocka_unit_test(test_fp8_picks),        cmocka_unit_test(test_smem_fallback),
        cmocka_unit_test(test_split_k),      cmocka_unit_test(test_tail),
        cmocka_unit_test(test_stream_k),
        cmocka_unit_test(test_stream_k_clusters),
        cmocka_unit_test(test_direct_tiles),
        cmocka_unit_test(test_gemm_staged),
        cmocka_unit_test(test_tma),
        cmocka_unit_test(test_describe),     cmocka_unit_test(test_listed),
        cmocka_unit_test(test_kernel_of),    cmocka_unit_test(test_aligned),
        cmocka_unit_test(test_transposed_layouts),
        cmocka_unit_test(test_measured_picks), cmocka_unit_test(test_conv_narrow_and_padding),
        cmocka_unit_test(test_conv_narrow_filters), cmocka_unit_test(test_thin_staged),
        cmocka_unit_test(test_thin_unstaged), cmocka_unit_test(test_conv_mid_filters),
        cmocka_unit_test(test_conv_coop_mid), cmocka_unit_test(test_conv_coop_partial_taps),
        cmocka_unit_test(test_conv_coop_wave), cmocka_unit_test(test_conv_wide_one_wave),
        cmocka_unit_test(test_conv_long_k_tall),
        cmocka_unit_test(test_conv_k32),
        cmocka_unit_test(test_conv_64_filters),
        cmocka_unit_test(test_conv_64_filters_c160),
        cmocka_unit_test(test_conv_160_filters),
        cmocka_unit_test(test_conv_odd8_clusters),
        cmocka_unit_test(test_conv_odd8_resident),
        cmocka_unit_test(test_conv_small_wgmma), cmocka_unit_test(test_conv_odd8_channels), cmocka_unit_test(test_conv_wgmma_gap), cmocka_unit_test(test_conv_session38),
        cmocka_unit_test(test_conv_session39),
        cmocka_unit_test(test_coop_padded_columns), cmocka_unit_test(test_wide_padded_columns), cmocka_unit_test(test_deep_pp_over_coop), cmocka_unit_test(test_heavy_ping_pong), cmocka_unit_test(test_batch_tiles),
        cmocka_unit_test(test_one_tile_row),
        cmocka_unit_test(test_swapped_rows), cmocka_unit_test(test_odd_k_wide_split), cmocka_unit_test(test_odd_k_ping_pong_clusters), cmocka_unit_test(test_cluster_cta_rounds), cmocka_unit_test(test_coop_round), cmocka_unit_test(test_split_row), cmocka_unit_test(test_n_fit), cmocka_unit_test(test_coop_tail_padding), cmocka_unit_test(test_deep_half_row), cmocka_unit_test(test_wide_swap), cmocka_unit_test(test_deep_swap), cmocka_unit_test(test_deep_spares_slots), cmocka_unit_test(test_c160_over_mid), cmocka_unit_test(test_deep_fills_half), cmocka_unit_test(test_wgmma_over_sync_small), cmocka_unit_test(test_fast_light_ping_pong), cmocka_unit_test(test_fast_light_coop_deep), cmocka_unit_test(test_fast_light_off_tiles), cmocka_unit_test(test_odd_k_ragged_n_twin), cmocka_unit_test(test_short_k_ping_pong), cmocka_unit_test(test_short_k_batch_ping_pong), cmocka_unit_test(test_short_pp_small_n), cmocka_unit_test(test_short_k_coop), cmocka_unit_test(test_light_mid_k_coop), cmocka_unit_test(test_light_coop),
        cmocka_unit_test(test_mid_k_ping_pong), cmocka_unit_test(test_mid_tile),
        cmocka_unit_test(test_deep_ping_pong), cmocka_unit_test(test_mid_over_padding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
