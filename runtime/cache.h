/* cache.h - compiled kernels: in memory per context, on disk across processes. */
#ifndef EVT_RUNTIME_CACHE_H
#define EVT_RUNTIME_CACHE_H

#include "../api/module.h"
#include "driver.h"

/* A loaded cubin, keyed by its CUDA context and the hash of what made it. */
typedef struct rt_cached_module {
    struct rt_cached_module *next;
    rt_cu_context cu_ctx;
    unsigned long long key;
    size_t source_len;
    rt_cu_module module;
} rt_cached_module;

/*
 * The loaded module of kernel k's entry points `sel` (cg_select) for
 * target t in the current CUDA context:
 * from memory, else from the disk cache, else compiled with NVRTC (and
 * stored on disk).  0 with the reason in err on failure; *status says which.
 */
int rt_cache_module(evt_module *m, const evt_kernel *k, evt_target t, const cg_select *sel,
                    rt_cu_context cu_ctx, rt_cu_module *out, evt_status *status, strbuf *err);
/* Unloads every cached module of the context. */
void rt_cache_clear(evt_ctx *ctx);

#endif
