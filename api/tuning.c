/* tuning.c - what a program may set on a context instead of the library's
 * choices: evt_tuning (forcing a tile configuration, split-K, the
 * epilogue's row groups) and where NVRTC and the CUDA driver are loaded
 * from.  evtc and the tests map their environment variables onto these;
 * the library reads none of them. */
#include "module.h"

#include <string.h>

evt_status tuning_parse(evt_ctx *ctx, const evt_tuning *t, api_tuning *out)
{
    *out = (api_tuning){{NULL, 0, 0}, 0, 0, 0, 0};
    if (!t)
        return EVT_OK;
    const plan_config *config = NULL;
    if (t->config && t->config[0] && !(config = plan_config_find(t->config)))
        return ctx_fail(ctx, EVT_ERR_NOT_FOUND,
                        "no tile configuration '%s' (evt_config_name lists them)", t->config);
    if (t->split_k < 0)
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT,
                        "split_k %d: 0 (the planner's), 1 (never) or the number of splits", t->split_k);
    if (t->stream_k < 0 || t->stream_k > 2)
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT,
                        "stream_k %d: 0 (the planner's), 1 (never) or 2 (where the configuration has it)",
                        t->stream_k);
    const int g = t->row_group;
    if (g != 0 && g != 1 && g != 2 && g != 4 && g != 8 && g != 16)
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT, "row_group %d: 0 (the code generator's), 1, 2, 4, 8 or 16", g);
    *out = (api_tuning){{config, t->split_k, t->stream_k}, g, t->ignore_records != 0, 0,
                        t->shared_epilogue > 0 ? 1 : t->shared_epilogue < 0 ? -1 : 0};
    return EVT_OK;
}

evt_status evt_ctx_set_tuning(evt_ctx *ctx, const evt_tuning *tuning)
{
    if (!ctx)
        return EVT_ERR_INVALID_ARGUMENT;
    ctx_clear(ctx);
    api_tuning t;
    evt_status st = tuning_parse(ctx, tuning, &t);
    if (st == EVT_OK)
        ctx->tuning = t;
    return st;
}

evt_status evt_ctx_set_fast_math(evt_ctx *ctx, int on)
{
    if (!ctx)
        return EVT_ERR_INVALID_ARGUMENT;
    ctx_clear(ctx);
    if (on != 0 && on != 1)
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT, "evt_ctx_set_fast_math: on is 0 or 1 (got %d)", on);
    ctx->fast_math = on;
    return EVT_OK;
}

int evt_ctx_fast_math(const evt_ctx *ctx)
{
    return ctx ? ctx->fast_math : 0;
}

evt_status evt_ctx_set_library_path(evt_ctx *ctx, evt_library which, const char *path)
{
    if (!ctx)
        return EVT_ERR_INVALID_ARGUMENT;
    ctx_clear(ctx);
    char *dst = which == EVT_LIBRARY_NVRTC ? ctx->nvrtc_path
                : which == EVT_LIBRARY_CUDA_DRIVER ? ctx->driver_path : NULL;
    const size_t n = path ? strlen(path) : 0;
    if (!dst)
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT, "evt_ctx_set_library_path: unknown library %d",
                        (int)which);
    if (n >= sizeof ctx->nvrtc_path)
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT,
                        "evt_ctx_set_library_path: a path of %zu bytes (4095 at most)", n);
    memcpy(dst, path ? path : "", n + 1);
    return EVT_OK;
}

int evt_config_count(void)
{
    return EVT_TILE_COUNT;
}

const char *evt_config_name(int i)
{
    return i >= 0 && i < EVT_TILE_COUNT ? plan_configs[i].name : NULL;
}

evt_status evt_kernel_config_check(evt_module *m, const evt_kernel *k, evt_target t, const char *config)
{
    ctx_clear(m ? m->ctx : NULL);
    if (!m || !k || !config || (unsigned)t >= EVT_TARGET_COUNT)
        return ctx_fail(m ? m->ctx : NULL, EVT_ERR_INVALID_ARGUMENT,
                        "evt_kernel_config_check: module, kernel, target and config are required");
    const plan_config *c = plan_config_find(config);
    if (!c)
        return ctx_fail(m->ctx, EVT_ERR_NOT_FOUND, "no tile configuration '%s'", config);
    const plan_kernel pk = plan_kernel_of(k);
    const char *why;
    return plan_can_run(c, &pk, t, &why) ? EVT_OK : config_refused(m->ctx, c, k, t, why);
}

evt_status config_refused(evt_ctx *ctx, const plan_config *c, const evt_kernel *k, evt_target t,
                          const char *why)
{
    return ctx_fail(ctx, EVT_ERR_UNSUPPORTED, "configuration %s cannot run kernel '%s' on %s: %s",
                    c->name, k->name, evt_target_name(t), why);
}
