/* nvrtc.h - NVRTC, loaded with dlopen: CUDA C++ source -> PTX or cubin per SM target. */
#ifndef EVT_CODEGEN_NVRTC_H
#define EVT_CODEGEN_NVRTC_H

#include "../support/strbuf.h"

#include <evt/evt.h>
#include <stddef.h>

/* A header the program may #include, held in memory (see embedded.h). */
typedef struct cg_header {
    const char *name;
    const char *text;
} cg_header;

typedef struct cg_nvrtc cg_nvrtc;

/* Loads NVRTC from path (NULL or "": libnvrtc.so.13, libnvrtc.so, then the
 * CUDA toolkit's lib64), with its builtins library from the same folder;
 * NULL with the reason in err when it cannot. */
cg_nvrtc *cg_nvrtc_load(const char *path, strbuf *err);
void cg_nvrtc_unload(cg_nvrtc *nv);
/* Makes sure *slot holds NVRTC, loading it from path (cg_nvrtc_load) on
 * first use: a context's handle, shared by its compiles and its kernel
 * cache.  EVT_OK, or EVT_ERR_COMPILE (none usable) or EVT_ERR_NO_MEMORY
 * with the reason in err. */
evt_status cg_nvrtc_get(cg_nvrtc **slot, const char *path, strbuf *err);
/* NVRTC's version as major * 1000 + minor * 10 (13000 for 13.0). */
int cg_nvrtc_version(const cg_nvrtc *nv);

typedef enum cg_output {
    CG_PTX,  /* text, NUL-terminated */
    CG_CUBIN /* binary */
} cg_output;

/*
 * Compiles `source` for `arch` ("sm_80", "sm_90a", ...).  On success returns
 * EVT_OK and sets *out and *out_size to a malloc'd buffer the caller frees;
 * otherwise EVT_ERR_COMPILE, or EVT_ERR_NO_MEMORY where memory ran out
 * (ours or NVRTC's), with NVRTC's log (or the reason) in log.
 */
evt_status cg_nvrtc_compile(cg_nvrtc *nv, const char *source, const char *name, const char *arch,
                            cg_output what, const cg_header *headers, size_t nheaders, char **out,
                            size_t *out_size, strbuf *log);

/*
 * The compile step of the pipeline, shared by evt_kernel_compile and the
 * runtime's kernel cache: cg_nvrtc_compile of generated `source` (kernel
 * `name`, for NVRTC's messages) for target t, with the kernels/ headers
 * embedded in the library.  Sets *seconds (when not NULL) to the time NVRTC
 * took.  Returns what cg_nvrtc_compile returns, with the same outputs.
 */
evt_status cg_compile(cg_nvrtc *nv, const char *source, const char *name, evt_target t, cg_output what,
                      char **out, size_t *out_size, double *seconds, strbuf *log);

#endif
