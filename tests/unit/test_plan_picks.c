/* test_plan_picks.c - the planner's picks on the shapes they were measured
 * on (H200, 132 SMs: docs/sm80.md, docs/sm90.md), split-K, and the sizes
 * and grids of the persistent configurations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "plan/plan.h"

/* The conv heuristic's pick (a conv's operands are K-contiguous). */
static int conv_pick(long long m, long long n, long long k, int tma, int staged, evt_target t)
{
    const plan_kernel pk = {EVT_MAINLOOP_CONV2D_FPROP, 1, staged};
    return (int)plan_pick(&pk, t, m, n, k, 132, tma)->id;
}

/* The GEMM heuristic's pick on sm_90a, A row-major and B column-major. */
static int gemm_pick(long long m, long long n, long long k, int tma)
{
    const plan_kernel pk = {EVT_MAINLOOP_GEMM, 1, 0};
    return (int)plan_pick(&pk, EVT_TARGET_SM90A, m, n, k, 132, tma)->id;
}

/* The grid of configuration c forced on an m x n x 4096 conv (GEMM view) on 132 SMs. */
static long long forced_grid(const plan_config *c, long long m, long long n)
{
    const plan_kernel pk = {EVT_MAINLOOP_CONV2D_FPROP, 1, 0};
    const plan_problem p = {EVT_TARGET_SM90A, 132, m, n, 4096, 64, 1, 1};
    const plan_options o = {c, 0};
    plan pl;
    const char *why;
    assert_true(plan_make(&pk, &p, &o, &pl, &why));
    assert_true(pl.splits == 1 || !plan_config_persistent(c));
    return pl.grid;
}

/* The split-K plan: a grid under a quarter of the CTA slots is split (at
 * most four ways, at least four k tiles a share), anything larger is not;
 * and plan_make never splits a persistent configuration. */
static void test_split_plan(void **state)
{
    (void)state;
    assert_int_equal(plan_split_k(32, 4, 132, 512), 4); /* 256x512x16384, 64x64 tiles */
    assert_int_equal(plan_split_k(64, 4, 132, 256), 4); /* 512x512x8192 */
    assert_int_equal(plan_split_k(100, 2, 132, 64), 1); /* 100 of 264 slots: over a quarter */
    assert_int_equal(plan_split_k(60, 2, 132, 64), 4);  /* 264 / 60: four ways */
    assert_int_equal(plan_split_k(60, 2, 132, 8), 2);   /* only two shares of four k tiles */
    assert_int_equal(plan_split_k(392, 2, 132, 36), 1); /* a whole wave and a tail */
    assert_int_equal(plan_split_k(10, 1, 132, 7), 1);   /* K too short */
    assert_int_equal(plan_split_k(0, 1, 132, 64), 1);
}

/* The sm_90a heuristics on the shapes they were measured on (H200, 132 SMs:
 * docs/sm80.md, docs/sm90.md), and the launch sizes of the
 * warp-specialized and wgmma configurations. */
static void test_sm90_picks(void **state)
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
        const int got = conv_pick(conv[i].m, conv[i].n, conv[i].k, conv[i].tma, conv[i].staged, EVT_TARGET_SM90A);
        if (got != conv[i].want)
            fail_msg("conv pick %lldx%lldx%lld tma %d staged %d: %s, want %s", conv[i].m, conv[i].n,
                     conv[i].k, conv[i].tma, conv[i].staged, plan_configs[got].name, plan_configs[conv[i].want].name);
    }
    assert_int_equal(conv_pick(64, 64, 64, 1, 0, EVT_TARGET_SM90A), conv_pick(64, 64, 64, 1, 0, EVT_TARGET_SM80));
    /* too few tiles for 14 (one a consumer): as if there were nothing to stage */
    assert_int_equal(conv_pick(6272, 512, 128, 1, 1, EVT_TARGET_SM90A), conv_pick(6272, 512, 128, 1, 0, EVT_TARGET_SM90A));
    assert_int_equal(gemm_pick(4096, 4096, 4096, 0), EVT_TILE_sm90_wg2_128x256x64_s4);
    assert_int_equal(gemm_pick(2048, 2048, 2048, 0), EVT_TILE_sm90_wg2_128x256x64_s4);
    assert_int_equal(gemm_pick(512, 512, 8192, 0), EVT_TILE_sm80_64x64x32_w4_s4);
    /* with TMA maps: the producer/consumer tile where each consumer gets two tiles */
    assert_int_equal(gemm_pick(4096, 4096, 4096, 1), EVT_TILE_sm90_pp2_128x128x64_s4);
    assert_int_equal(gemm_pick(16384, 1024, 4096, 1), EVT_TILE_sm90_pp2_128x128x64_s4);
    assert_int_equal(gemm_pick(2048, 2048, 2048, 1), EVT_TILE_sm90_wg2_128x256x64_s4);
    assert_int_equal(gemm_pick(4096, 4096, 64, 1), gemm_pick(4096, 4096, 64, 0));
    assert_int_equal(gemm_pick(512, 512, 8192, 1), EVT_TILE_sm80_64x64x32_w4_s4);
    /* 192x128: three warpgroups, 384 threads */
    const plan_config *c = &plan_configs[EVT_TILE_sm90_wg3_192x128x64_s4];
    assert_int_equal(c->threads, 384);
    assert_int_equal(c->smem_bytes, 4 * (192 + 128) * 64 * 2 + 1024);
    /* warp-specialized: the mma warps and 4 epilogue warps; the pipeline and
     * the accumulator tile side by side; one CTA per slot, never more than tiles */
    c = &plan_configs[EVT_TILE_sm80_ws4_128x128x64_w4_s3];
    assert_int_equal(c->threads, 256);
    assert_int_equal(c->smem_bytes, 3 * 256 * 64 * 2 + 128 * 136 * 4);
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
    assert_int_equal(c->smem_bytes, 4 * 256 * 64 * 2 + 128 * 136 * 4 + 1024);
    assert_int_equal(forced_grid(&plan_configs[EVT_TILE_sm90_wg2_128x256x64_s4], 128 * 512, 256), 512);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_plan),
        cmocka_unit_test(test_sm90_picks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
