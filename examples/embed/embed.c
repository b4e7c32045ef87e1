/*
 * embed.c - libevt inside a program: compile a fused GEMM + bias + GELU
 * from a string, launch it, and check it against plain loops.
 *
 * Nothing but evt.h and libc: device memory comes from evt_device_*, and
 * the launch goes to the legacy default stream (pass a CUstream or a
 * cudaStream_t instead in a program that has one).  Exit status: 0 PASS,
 * 1 FAIL or error, 77 no GPU (the ctest skip code).
 */
#include <evt/evt.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char source[] =
    "epilogue bias_gelu {\n"
    "    in  bias : bf16[N]\n"
    "    out y    : f32[M, N] = gelu(acc + bias)\n"
    "}\n"
    "kernel mlp_up = gemm(a: bf16 row, b: bf16 col, acc: f32) with bias_gelu\n";

/* Not tile multiples, so the kernel's edge handling is exercised too. */
enum { M = 300, N = 200, K = 136 };

/* bf16 is the top half of an f32: round to nearest even (finite inputs). */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Uniform in [-1, 1), from a fixed-seed xorshift. */
static float uniform(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (float)((*s >> 11) * 0x1.0p-52 - 1.0);
}

int main(void)
{
    evt_ctx *ctx = evt_ctx_create();
    evt_module *m = NULL;
    evt_launch *launch = NULL;
    void *dev[4] = {NULL, NULL, NULL, NULL}; /* a, b, bias, y */
    uint16_t *a = malloc(sizeof *a * M * K), *b = malloc(sizeof *b * N * K);
    uint16_t *bias = malloc(sizeof *bias * N);
    float *y = malloc(sizeof *y * M * N);
    const size_t bytes[4] = {2u * M * K, 2u * N * K, 2u * N, 4u * M * N};
    int rc = 1;
    evt_status st = EVT_ERR_NO_MEMORY;
    if (!ctx || !a || !b || !bias || !y)
        goto fail;

    /* Compile: parse, check, optimize; NVRTC runs at the first launch. */
    st = evt_module_parse_buffer(ctx, "embed.evt", source, sizeof source - 1, &m);
    if (st != EVT_OK) {
        fputs(m ? evt_module_diag_text(m, EVT_DIAG_TEXT) : "", stderr);
        goto fail;
    }
    if ((st = evt_module_optimize(m, 2)) != EVT_OK ||
        (st = evt_launch_create(m, evt_module_find_kernel(m, "mlp_up"), &launch)) != EVT_OK)
        goto fail;

    /* Inputs: A is M x K row-major, B (col-major K x N) is N rows of K. */
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < M * K; i++)
        a[i] = to_bf16(uniform(&seed));
    for (int i = 0; i < N * K; i++)
        b[i] = to_bf16(uniform(&seed));
    for (int j = 0; j < N; j++)
        bias[j] = to_bf16(uniform(&seed));

    for (int i = 0; i < 4; i++)
        if ((st = evt_device_alloc(ctx, bytes[i], &dev[i])) != EVT_OK)
            goto fail;
    if ((st = evt_device_copy_to(ctx, dev[0], a, bytes[0])) != EVT_OK ||
        (st = evt_device_copy_to(ctx, dev[1], b, bytes[1])) != EVT_OK ||
        (st = evt_device_copy_to(ctx, dev[2], bias, bytes[2])) != EVT_OK)
        goto fail;

    /* Bind by name, launch on the default stream, wait, copy back. */
    if ((st = evt_launch_set_gemm(launch, M, N, K, dev[0], K, bytes[0], dev[1], K, bytes[1])) != EVT_OK ||
        (st = evt_launch_bind(launch, "bias", dev[2], bytes[2], 0)) != EVT_OK ||
        (st = evt_launch_bind(launch, "y", dev[3], bytes[3], N)) != EVT_OK ||
        (st = evt_launch_run(launch, NULL)) != EVT_OK ||
        (st = evt_device_synchronize(ctx)) != EVT_OK ||
        (st = evt_device_copy_from(ctx, y, dev[3], bytes[3])) != EVT_OK)
        goto fail;

    /* The same function in double: y = gelu(sum_k a[i,k] b[k,j] + bias[j]). */
    double worst = 0;
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int k = 0; k < K; k++)
                acc += (double)from_bf16(a[i * K + k]) * from_bf16(b[j * K + k]);
            double x = acc + from_bf16(bias[j]);
            double ref = 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
            double err = fabs(y[i * N + j] - ref) / fmax(fabs(ref), 1.0);
            worst = err > worst ? err : worst;
            bad += !(err <= 1e-4); /* NaN included */
        }
    printf("embed: %dx%dx%d bias+gelu, max error %.2e, %d bad: %s\n", M, N, K, worst, bad,
           bad ? "FAIL" : "PASS");
    rc = bad ? 1 : 0;

fail:
    if (st == EVT_ERR_NO_GPU) {
        printf("embed: no GPU (%s): skipped\n", evt_ctx_last_error(ctx));
        rc = 77;
    } else if (st != EVT_OK) {
        fprintf(stderr, "embed: %s: %s\n", evt_status_string(st), ctx ? evt_ctx_last_error(ctx) : "");
    }
    for (int i = 0; i < 4; i++)
        evt_device_free(ctx, dev[i]);
    evt_launch_destroy(launch);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
    free(a), free(b), free(bias), free(y);
    return rc;
}
