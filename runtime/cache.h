/* cache.h - compiled kernels: in memory per context, on disk across processes. */
#ifndef EVT_RUNTIME_CACHE_H
#define EVT_RUNTIME_CACHE_H

#include "../codegen/nvrtc.h"
#include "driver.h"

#include <evt/evt.h>

/* A loaded cubin, keyed by its CUDA context and the hash of what made it. */
typedef struct rt_cached_module {
    struct rt_cached_module *next;
    rt_cu_context cu_ctx;
    unsigned long long key;
    size_t source_len;
    rt_cu_module module;
} rt_cached_module;

/*
 * The loaded module of the generated CUDA `source` of kernel `name` (for
 * messages) for target t in CUDA context cu_ctx: from `*cache`, else from
 * the disk cache, else compiled with NVRTC (and stored on disk), loaded with
 * `driver` and added to *cache.  NVRTC is loaded into *nvrtc on first use,
 * from nvrtc_path (NULL or "": the default search, cg_nvrtc_load).
 * The caller (the evt_ctx) owns the list, the driver and NVRTC.  0 with the
 * reason in err on failure; *status says which.
 */
int rt_cache_module(rt_cached_module **cache, const rt_driver *driver, cg_nvrtc **nvrtc,
                    const char *nvrtc_path,
                    const char *source, const char *name, evt_target t, rt_cu_context cu_ctx,
                    rt_cu_module *out, evt_status *status, strbuf *err);
/*
 * rt_cache_module for n sources of one kernel (`name`) at once: those
 * neither loaded in cu_ctx nor on disk are compiled on up to `threads`
 * threads, then all are loaded into *cache, so that rt_cache_module finds
 * each without compiling.  *compiled (when not NULL) receives the number
 * NVRTC compiled.  0 with the first failure's reason in err.
 */
int rt_cache_modules(rt_cached_module **cache, const rt_driver *driver, cg_nvrtc **nvrtc,
                     const char *nvrtc_path, const char *const *sources, const char *name,
                     size_t n, evt_target t, rt_cu_context cu_ctx, int threads, size_t *compiled,
                     evt_status *status, strbuf *err);
/* The disk cache's folder, created when missing: $EVT_CACHE_DIR, else
 * $XDG_CACHE_HOME/evt, else ~/.cache/evt.  0 when EVT_DISABLE_CACHE is set
 * or no folder can be made. */
int rt_cache_dir(char *dir, size_t n);
/* Unloads every module of *cache (driver may be NULL: none was loaded) and empties it. */
void rt_cache_clear(rt_cached_module **cache, const rt_driver *driver);

#endif
