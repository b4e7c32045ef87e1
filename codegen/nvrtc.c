/* nvrtc.c - NVRTC through dlopen, so that libevt loads on machines without CUDA. */
#define _GNU_SOURCE /* dladdr */
#include "nvrtc.h"
#include "embedded.h"
#include "../support/names.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The few NVRTC entry points we use, with NVRTC's C signatures. */
typedef int nvrtc_result;
typedef struct nvrtc_program_s *nvrtc_program;

struct cg_nvrtc {
    void *lib;
    void *builtins; /* libnvrtc-builtins, from NVRTC's folder; NULL if not there */
    int version;
    const char *(*get_error_string)(nvrtc_result);
    nvrtc_result (*version_fn)(int *, int *);
    nvrtc_result (*create)(nvrtc_program *, const char *, const char *, int, const char *const *,
                           const char *const *);
    nvrtc_result (*destroy)(nvrtc_program *);
    nvrtc_result (*compile)(nvrtc_program, int, const char *const *);
    nvrtc_result (*log_size)(nvrtc_program, size_t *);
    nvrtc_result (*log)(nvrtc_program, char *);
    nvrtc_result (*ptx_size)(nvrtc_program, size_t *);
    nvrtc_result (*ptx)(nvrtc_program, char *);
    nvrtc_result (*cubin_size)(nvrtc_program, size_t *);
    nvrtc_result (*cubin)(nvrtc_program, char *);
};

static void *sym(void *lib, const char *name, int *missing)
{
    void *p = dlsym(lib, name);
    if (!p)
        *missing = 1;
    return p;
}

/*
 * NVRTC opens libnvrtc-builtins.so.MAJOR.MINOR at its first compile by name
 * only, through the loader's search path, which need not hold NVRTC's own
 * folder: NVIDIA's pip wheel (site-packages/nvidia/cu13/lib), a toolkit's
 * lib64 reached by its path.  Loaded here from that folder first, it is
 * the one NVRTC finds (the loader matches a loaded library's soname).
 * `nvrtc_symbol` is an address inside NVRTC, to find where it was loaded from.
 */
static void *load_builtins(const void *nvrtc_symbol, int major, int minor)
{
    Dl_info info;
    char real[PATH_MAX];
    if (!dladdr(nvrtc_symbol, &info) || !info.dli_fname ||
        !realpath(info.dli_fname, real))
        return NULL;
    char *slash = strrchr(real, '/');
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%.*s/libnvrtc-builtins.so.%d.%d", (int)(slash - real), real,
             major, minor);
    /* Absent here, NVRTC's own search may still find it; if not, its
     * compile fails saying so, in the log the caller gets. */
    return dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
}

/* cg_nvrtc_load, with why it failed in *st: EVT_ERR_COMPILE (no usable
 * NVRTC) or EVT_ERR_NO_MEMORY. */
static cg_nvrtc *load(const char *path, strbuf *err, evt_status *st)
{
    *st = EVT_ERR_COMPILE;
    const int given = path && path[0];
    const char *candidates[] = {given ? path : "libnvrtc.so.13", given ? NULL : "libnvrtc.so",
                                given ? NULL : "/usr/local/cuda/lib64/libnvrtc.so.13",
                                given ? NULL : "/usr/local/cuda/lib64/libnvrtc.so"};
    void *lib = NULL;
    /* RTLD_NODELETE: NVRTC stays mapped when the last context lets it go.
     * Unmapping it would buy little (the next context loads it again), and
     * its C++ runtime keeps allocations reachable only from its own data,
     * which LeakSanitizer would report as leaks once the mapping is gone. */
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0] && !lib; i++)
        if (candidates[i] && candidates[i][0])
            lib = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib) {
        if (given)
            sb_printf(err, "cannot load NVRTC from %s (evt_ctx_set_library_path)", path);
        else
            sb_puts(err, "cannot load NVRTC (libnvrtc.so.13): install the CUDA 13 toolkit or give "
                         "its path (evt_ctx_set_library_path; evtc: EVT_NVRTC_LIBRARY)");
        return NULL;
    }
    cg_nvrtc *nv = calloc(1, sizeof *nv);
    if (!nv) {
        dlclose(lib);
        sb_puts(err, "out of memory loading NVRTC");
        *st = EVT_ERR_NO_MEMORY;
        return NULL;
    }
    nv->lib = lib;
    int missing = 0;
    /* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
#define LOAD(field, name) *(void **)&nv->field = sym(lib, name, &missing)
    LOAD(get_error_string, "nvrtcGetErrorString");
    LOAD(version_fn, "nvrtcVersion");
    LOAD(create, "nvrtcCreateProgram");
    LOAD(destroy, "nvrtcDestroyProgram");
    LOAD(compile, "nvrtcCompileProgram");
    LOAD(log_size, "nvrtcGetProgramLogSize");
    LOAD(log, "nvrtcGetProgramLog");
    LOAD(ptx_size, "nvrtcGetPTXSize");
    LOAD(ptx, "nvrtcGetPTX");
    LOAD(cubin_size, "nvrtcGetCUBINSize");
    LOAD(cubin, "nvrtcGetCUBIN");
#undef LOAD
    int major = 0, minor = 0;
    if (missing || nv->version_fn(&major, &minor) != 0) {
        sb_puts(err, "the NVRTC library found lacks entry points evt needs (CUDA 12 or newer)");
        cg_nvrtc_unload(nv);
        return NULL;
    }
    nv->version = major * 1000 + minor * 10;
    nv->builtins = load_builtins(*(void **)&nv->version_fn, major, minor);
    *st = EVT_OK;
    return nv;
}

cg_nvrtc *cg_nvrtc_load(const char *path, strbuf *err)
{
    evt_status st;
    return load(path, err, &st);
}

void cg_nvrtc_unload(cg_nvrtc *nv)
{
    if (!nv)
        return;
    if (nv->builtins)
        dlclose(nv->builtins);
    dlclose(nv->lib);
    free(nv);
}

int cg_nvrtc_version(const cg_nvrtc *nv)
{
    return nv->version;
}

/* NVRTC's result for memory running out (nvrtcResult) */
enum { NVRTC_ERROR_OUT_OF_MEMORY = 1 };

evt_status cg_nvrtc_compile(cg_nvrtc *nv, const char *source, const char *name, const char *arch,
                            cg_output what, const cg_header *headers, size_t nheaders, char **out,
                            size_t *out_size, strbuf *log)
{
    *out = NULL;
    *out_size = 0;
    const char **hnames = calloc(nheaders + 1, sizeof *hnames);
    const char **htexts = calloc(nheaders + 1, sizeof *htexts);
    if (!hnames || !htexts) {
        free(hnames);
        free(htexts);
        sb_puts(log, "out of memory");
        return EVT_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < nheaders; i++) {
        hnames[i] = headers[i].name;
        htexts[i] = headers[i].text;
    }
    nvrtc_program prog = NULL;
    nvrtc_result r = nv->create(&prog, source, name, (int)nheaders, htexts, hnames);
    free(hnames);
    free(htexts);
    if (r != 0) {
        sb_printf(log, "nvrtcCreateProgram: %s", nv->get_error_string(r));
        return r == NVRTC_ERROR_OUT_OF_MEMORY ? EVT_ERR_NO_MEMORY : EVT_ERR_COMPILE;
    }
    /* sm_XX gives SASS (and its PTX); compute_XX gives PTX only. */
    char arch_opt[64];
    const char *digits = strncmp(arch, "sm_", 3) == 0 ? arch + 3 : arch;
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s_%s",
             what == CG_CUBIN ? "sm" : "compute", digits);
    /* No contraction: the GPU must compute exactly what the f32 reference does. */
    const char *opts[] = {arch_opt, "--std=c++17", "--fmad=false"};
    r = nv->compile(prog, (int)(sizeof opts / sizeof opts[0]), opts);
    size_t n = 0;
    if (nv->log_size(prog, &n) == 0 && n > 1) {
        char *text = malloc(n);
        if (text && nv->log(prog, text) == 0)
            sb_puts(log, text);
        free(text);
    }
    evt_status st = r == NVRTC_ERROR_OUT_OF_MEMORY ? EVT_ERR_NO_MEMORY : EVT_ERR_COMPILE;
    if (r != 0) {
        if (!log->len)
            sb_printf(log, "nvrtcCompileProgram: %s", nv->get_error_string(r));
    } else {
        nvrtc_result (*size_fn)(nvrtc_program, size_t *) =
            what == CG_CUBIN ? nv->cubin_size : nv->ptx_size;
        nvrtc_result (*get_fn)(nvrtc_program, char *) = what == CG_CUBIN ? nv->cubin : nv->ptx;
        size_t bytes = 0;
        if (size_fn(prog, &bytes) != 0 || bytes == 0) {
            sb_puts(log, "NVRTC produced no output");
        } else if (!(*out = malloc(bytes))) {
            st = EVT_ERR_NO_MEMORY;
            sb_puts(log, "out of memory for NVRTC's output");
        } else if (get_fn(prog, *out) != 0) {
            free(*out);
            *out = NULL;
            sb_puts(log, "NVRTC produced no output");
        } else {
            *out_size = bytes;
            st = EVT_OK;
        }
    }
    nv->destroy(&prog);
    return st;
}

evt_status cg_nvrtc_get(cg_nvrtc **slot, const char *path, strbuf *err)
{
    evt_status st = EVT_OK;
    if (!*slot)
        *slot = load(path, err, &st);
    return st;
}

evt_status cg_compile(cg_nvrtc *nv, const char *source, const char *name, evt_target t, cg_output what,
                      char **out, size_t *out_size, double *seconds, strbuf *log)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    evt_status st = cg_nvrtc_compile(nv, source, name, evt_target_name(t), what, cg_embedded_headers,
                                     cg_embedded_header_count, out, out_size, log);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (seconds)
        *seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return st;
}
