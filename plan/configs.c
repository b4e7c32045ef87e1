/* configs.c - kernels/tile_configs.h's rows as the planner's table. */
#include "plan.h"

#include <limits.h>

#include <string.h>

const plan_config plan_configs[EVT_TILE_COUNT] = {
#define PLAN_CONFIG(name, mainloops, mma, bm, bn, bk, warps_m, warps_n, stages, min_blocks, ws, pp, \
                    staged, coop, cluster)                                                           \
    [EVT_TILE_##name] = {EVT_TILE_##name,                                                            \
                         #name,                                                                      \
                         mainloops,                                                                  \
                         EVT_TILE_IS_WGMMA(mma),                                                     \
                         EVT_TILE_OP_BYTES(mma),                                                     \
                         EVT_TILE_SWAPPED(mma, bm),                                                  \
                         bm,                                                                         \
                         bn,                                                                         \
                         bk,                                                                         \
                         warps_m,                                                                    \
                         warps_n,                                                                    \
                         stages,                                                                     \
                         min_blocks,                                                                 \
                         ws,                                                                         \
                         pp,                                                                         \
                         staged,                                                                     \
                         coop,                                                                       \
                         cluster,                                                                    \
                         EVT_TILE_THREADS(warps_m, warps_n, ws, pp),                                 \
                         EVT_TILE_SUM_THREADS(EVT_TILE_THREADS(warps_m, warps_n, ws, pp), bm, bn),        \
                         EVT_TILE_SMEM_BYTES(mma, bm, bn, bk, stages, ws, pp, staged)},
    EVT_TILE_CONFIGS(PLAN_CONFIG)
#undef PLAN_CONFIG
};

const plan_config *plan_config_find(const char *name)
{
    for (int i = 0; name && i < EVT_TILE_COUNT; i++)
        if (strcmp(plan_configs[i].name, name) == 0)
            return &plan_configs[i];
    return NULL;
}

int plan_config_persistent(const plan_config *c)
{
    return c->ws > 0 || c->pp > 0;
}

int plan_config_coop(const plan_config *c)
{
    return c->coop;
}

int plan_config_stream_k(const plan_config *c)
{
    return c->coop && c->pp;
}

const char *plan_config_mainloop_refusal(const plan_config *c, evt_mainloop ml)
{
    if (ml == EVT_MAINLOOP_GEMM && !(c->mainloops & EVT_TILE_GEMM))
        return "the configuration is a conv mainloop's only, not a GEMM's";
    if (ml == EVT_MAINLOOP_CONV2D_FPROP && !(c->mainloops & EVT_TILE_CONV))
        return "the configuration is a GEMM mainloop's only, not a conv's";
    return NULL;
}

long long plan_config_tiles(const plan_config *c, long long m, long long n)
{
    return ((m + c->bm - 1) / c->bm) * ((n + c->bn - 1) / c->bn);
}

long long plan_config_batch_tiles(const plan_config *c, long long m, long long n, long long batch)
{
    const long long t = plan_config_tiles(c, m, n);
    long long all;
    return batch <= 1 ? t : __builtin_mul_overflow(t, batch, &all) ? LLONG_MAX : all;
}

long long plan_config_stacks(const plan_config *c, long long m, long long n, long long batch)
{
    return plan_config_batch_tiles(c, (m + c->cluster - 1) / c->cluster, n, batch);
}
