/*
 * gpu_device.h - what the batched and transposed GEMM tests (batched_gemm.c,
 * transposed_gemm.c) share: draws from a seeded generator (support/splitmix.h),
 * random inputs of an element type, the start of main (device_open), and
 * device buffers that are host memory in a dry run (no GPU: the kernels
 * compile and plan, and launches stop at EVT_ERR_NO_GPU).  Any failure here ends the test (exit 1) with a message
 * that names it (device.prog).
 */
#ifndef EVT_TESTS_GPU_DEVICE_H
#define EVT_TESTS_GPU_DEVICE_H

#include <evt/evt.h>

#include "../../support/splitmix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct device {
    evt_ctx *ctx;
    int dry;          /* no GPU: buffers are host memory, launches stop at EVT_ERR_NO_GPU */
    const char *prog; /* the test's name, for its messages */
} device;

/* In [lo, hi]. */
static inline long long between(unsigned long long *s, long long lo, long long hi)
{
    return lo + (long long)(evt_splitmix64(s) % (unsigned long long)(hi - lo + 1));
}

/* n random values of elem in [-1, 1), into host memory. */
static inline void random_values(const device *g, unsigned long long *s, evt_elem elem, void *out, size_t n)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; v && i < n; i++)
        v[i] = -1.0 + 2.0 * (double)(evt_splitmix64(s) >> 11) * 0x1.0p-53;
    if (!v || evt_convert_from_f64(elem, v, out, n) != EVT_OK) {
        fprintf(stderr, "%s: cannot make the inputs\n", g->prog);
        exit(1);
    }
    free(v);
}

static inline void *dev_alloc(device *g, size_t bytes)
{
    void *p = NULL;
    if (g->dry)
        p = malloc(bytes ? bytes : 1);
    else if (evt_device_alloc(g->ctx, bytes, &p) != EVT_OK)
        p = NULL;
    if (!p) {
        fprintf(stderr, "%s: cannot allocate %zu bytes: %s\n", g->prog, bytes, evt_ctx_last_error(g->ctx));
        exit(1);
    }
    return p;
}

static inline void dev_free(device *g, void *p)
{
    if (g->dry)
        free(p);
    else
        evt_device_free(g->ctx, p);
}

/* bytes from src to dst: host to device (to_device) or back. */
static inline void copy(device *g, void *dst, const void *src, size_t bytes, int to_device)
{
    evt_status st = EVT_OK;
    if (g->dry)
        memcpy(dst, src, bytes);
    else
        st = to_device ? evt_device_copy_to(g->ctx, dst, src, bytes) : evt_device_copy_from(g->ctx, dst, src, bytes);
    if (st != EVT_OK) {
        fprintf(stderr, "%s: copy%s: %s\n", g->prog, to_device ? "" : " back", evt_ctx_last_error(g->ctx));
        exit(1);
    }
}

/*
 * The start of a test `PROG [--dry-run TARGET]`: g (g->prog already set)
 * gets a context and *target the GPU's (TARGET in a dry run, no GPU
 * needed), and *m the module of `source` (named `file` in diagnostics),
 * optimized.  Returns 0 to go on, else main's exit status: 77 where there is
 * no GPU (skipped, said on stdout), 1 for bad arguments or a module that
 * does not compile (said on stderr).
 */
static inline int device_open(device *g, int argc, char **argv, const char *file, const char *source,
                              evt_target *target, evt_module **m)
{
    *m = NULL;
    *target = EVT_TARGET_SM90A;
    g->dry = argc == 3 && strcmp(argv[1], "--dry-run") == 0;
    if ((g->dry && evt_target_parse(argv[2], target) != EVT_OK) || (!g->dry && argc != 1)) {
        fprintf(stderr, "usage: %s [--dry-run TARGET]\n", g->prog);
        return 1;
    }
    g->ctx = evt_ctx_create();
    if (!g->ctx) {
        fprintf(stderr, "%s: cannot create a context\n", g->prog);
        return 1;
    }
    char name[128] = "no GPU";
    if (!g->dry && evt_device_target(g->ctx, target, name, sizeof name) != EVT_OK) {
        printf("%s: no GPU (%s): skipped\n", g->prog, evt_ctx_last_error(g->ctx));
        evt_ctx_destroy(g->ctx);
        return 77;
    }
    if (evt_module_parse_buffer(g->ctx, file, source, strlen(source), m) != EVT_OK ||
        evt_module_optimize(*m, 2) != EVT_OK) {
        fprintf(stderr, "%s: %s\n", g->prog, *m ? evt_module_diag_text(*m, EVT_DIAG_TEXT) : evt_ctx_last_error(g->ctx));
        evt_module_destroy(*m);
        evt_ctx_destroy(g->ctx);
        return 1;
    }
    printf("%s on %s (%s)%s\n", g->prog, name, evt_target_name(*target), g->dry ? ", a dry run" : "");
    return 0;
}

#endif /* EVT_TESTS_GPU_DEVICE_H */
