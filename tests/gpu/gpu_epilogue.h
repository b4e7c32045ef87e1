/*
 * gpu_epilogue.h - the harness of the GPU tests that run one epilogue over
 * an f32 [M, N] input `x` (math_bits.c, fast_math_error.c): kernel `k` of
 * `src`, a gemm of f16 operands [M, 16] and [16, N] whose accumulator the
 * epilogue leaves unused, launched once on the current GPU; then each
 * output, in turn, copied back into one host buffer of 4 M N bytes and
 * handed to `check`, which returns how many of its values are wrong.
 * Returns the first failing call's status (EVT_ERR_NO_GPU without a GPU:
 * the caller's skip) with its message in why[why_size] (the cleanup's
 * calls clear the context's), else EVT_OK with the wrong values' sum in
 * *bad.
 */
#ifndef EVT_TESTS_GPU_EPILOGUE_H
#define EVT_TESTS_GPU_EPILOGUE_H

#include <evt/evt.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define GPU_EPILOGUE_MAX_OUT 32

typedef long gpu_epilogue_check(void *user, int out, const void *data);

static evt_status gpu_epilogue_run(evt_ctx *ctx, const char *file, const char *src, size_t len, long long m,
                                   long long n, const float *x, int nout, const char *const *out_names,
                                   const int *out_bytes, gpu_epilogue_check *check, void *user, long *bad,
                                   char *why, size_t why_size)
{
    enum { K = 16 };
    evt_module *mod = NULL;
    evt_launch *launch = NULL;
    void *dx = NULL, *da = NULL, *db = NULL, *dy[GPU_EPILOGUE_MAX_OUT] = {NULL};
    const size_t xb = 4u * (size_t)m * (size_t)n;
    uint16_t *a = malloc(2u * (size_t)(m > n ? m : n) * K);
    void *y = malloc(xb);
    *bad = 0;
    evt_status st = !a || !y || nout > GPU_EPILOGUE_MAX_OUT ? EVT_ERR_NO_MEMORY
                                                            : evt_module_parse_buffer(ctx, file, src, len, &mod);
    if (st == EVT_ERR_SOURCE)
        fputs(evt_module_diag_text(mod, EVT_DIAG_TEXT), stderr);
    if (st != EVT_OK || (st = evt_module_optimize(mod, 2)) != EVT_OK ||
        (st = evt_launch_create(mod, evt_module_find_kernel(mod, "k"), &launch)) != EVT_OK)
        goto done;
    uint64_t s = 0x2545f4914f6cdd1du;
    for (long long i = 0; i < (m > n ? m : n) * K; i++) { /* f16 in [1, 2): the unused acc */
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        a[i] = (uint16_t)(0x3c00u | ((uint32_t)(s >> 16) & 0x3ffu));
    }
    const size_t ab = 2u * (size_t)m * K, bb = 2u * (size_t)n * K;
    if ((st = evt_device_alloc(ctx, xb, &dx)) != EVT_OK || (st = evt_device_alloc(ctx, ab, &da)) != EVT_OK ||
        (st = evt_device_alloc(ctx, bb, &db)) != EVT_OK || (st = evt_device_copy_to(ctx, dx, x, xb)) != EVT_OK ||
        (st = evt_device_copy_to(ctx, da, a, ab)) != EVT_OK || (st = evt_device_copy_to(ctx, db, a, bb)) != EVT_OK ||
        (st = evt_launch_set_gemm(launch, m, n, K, da, K, ab, db, K, bb)) != EVT_OK ||
        (st = evt_launch_bind(launch, "x", dx, xb, n)) != EVT_OK)
        goto done;
    for (int o = 0; o < nout; o++) {
        const size_t ob = (size_t)out_bytes[o] * (size_t)m * (size_t)n;
        if ((st = evt_device_alloc(ctx, ob, &dy[o])) != EVT_OK ||
            (st = evt_launch_bind(launch, out_names[o], dy[o], ob, n)) != EVT_OK)
            goto done;
    }
    if ((st = evt_launch_run(launch, NULL)) != EVT_OK || (st = evt_device_synchronize(ctx)) != EVT_OK)
        goto done;
    for (int o = 0; o < nout; o++) {
        if ((st = evt_device_copy_from(ctx, y, dy[o], (size_t)out_bytes[o] * (size_t)m * (size_t)n)) != EVT_OK)
            goto done;
        *bad += check(user, o, y);
    }

done:
    snprintf(why, why_size, "%s", st == EVT_OK ? "" : evt_ctx_last_error(ctx));
    evt_device_free(ctx, dx);
    evt_device_free(ctx, da);
    evt_device_free(ctx, db);
    for (int o = 0; o < nout; o++)
        evt_device_free(ctx, dy[o]);
    evt_launch_destroy(launch);
    evt_module_destroy(mod);
    free(a), free(y);
    return st;
}

/* The test's verdict on gpu_epilogue_run's status st and wrong values bad,
 * printed under the test's name: its exit status (0 passed, 1 failed, 77
 * no GPU: skipped). */
static int gpu_epilogue_verdict(const char *name, evt_status st, long bad, const char *why)
{
    if (st == EVT_OK) {
        printf("%s: %s\n", name, bad ? "FAIL" : "PASS");
        return bad ? 1 : 0;
    }
    if (st == EVT_ERR_NO_GPU) {
        printf("%s: no GPU (%s): skipped\n", name, why);
        return 77;
    }
    fprintf(stderr, "%s: %s: %s\n", name, evt_status_string(st), why);
    return 1;
}

#endif
