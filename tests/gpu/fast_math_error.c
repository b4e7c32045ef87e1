/*
 * fast_math_error.c - the claim of kernels/common/fast_math.h, on the GPU:
 * under fast math (evt_ctx_set_fast_math) exp, sigmoid, silu, gelu_tanh and
 * gelu, computed by a generated kernel on 2^22 inputs (every exponent with
 * random mantissas and signs, a quarter dense in [-30, 30], the special
 * values), against f64:
 *   - where the f64 result rounded to f32 is at least 2^-119 in magnitude
 *     and finite: at most MAX_ULP f32 ulp for |x| <= 4, at most MAX_REL
 *     relative error elsewhere;
 *   - below 2^-119 a result may be anything at most 2^-118 in magnitude
 *     (the ftz rcp flushes to 0);
 *   - NaN in gives NaN out; an infinite f64 result is matched by an
 *     infinity of its sign, and a finite one by a finite float (for exp
 *     within a rounding of the overflow, either);
 *   - the sign of a zero result is the exact builtin's (evt_math.h).
 * Prints each builtin's largest ulp (|x| <= 4) and relative error, the
 * figures docs/codegen.md's "Fast math" reports.
 * Exit status: 0 PASS, 1 FAIL or error, 77 no GPU (the ctest skip code).
 */
#include <evt/evt.h>

#include "kernels/common/evt_math.h"
#include "gpu_epilogue.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* bench/fast_math_model.c finds the formulas within 18 ulp and 9e-6; the
 * SFU's ex2 and rcp add a few ulp on top */
#define MAX_ULP 64.0
#define MAX_REL 3e-5

#define NFN 5
static const char *const names[NFN] = {"exp", "sigmoid", "silu", "gelu_tanh", "gelu"};
static float (*const exact[NFN])(float) = {evt_exp, evt_sigmoid, evt_silu, evt_gelu_tanh, evt_gelu};

static double sigmoid64(double x) { return 1 / (1 + exp(-x)); }

static double ref(int f, double x)
{
    switch (f) {
    case 0: return exp(x);
    case 1: return sigmoid64(x);
    case 2: return isinf(x) ? (x < 0 ? -0.0 : x) : x * sigmoid64(x);
    case 3: /* 0.5 x (1 + tanh(u)) as x sigmoid(2u): the tanh form cancels in f64 too */
        return isinf(x) ? (x < 0 ? -0.0 : x) : x * sigmoid64(1.5957691216057308 * (x + 0.044715 * x * x * x));
    default: return isinf(x) ? (x < 0 ? -0.0 : x) : 0.5 * x * erfc(-x * 0.70710678118654752);
    }
}

static double ulp_of(float w)
{
    const float a = fabsf(w);
    return a < 1.17549435e-38f ? 1.40129846e-45 : (double)nextafterf(a, INFINITY) - a;
}

static uint32_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (uint32_t)(*s >> 16);
}

enum { M = 2048, N = 2048 };

/* gpu_epilogue_check: builtin f's results y of the inputs x (user) against f64. */
static long check_output(void *user, int f, const void *data)
{
    const float *x = user, *y = data;
    long bad = 0;
    double max_ulp = 0, max_rel = 0;
    for (size_t i = 0; i < (size_t)M * N; i++) {
        const double want = ref(f, x[i]);
        const float wf = (float)want, got = y[i];
        const char *why = NULL;
        if (isnan(x[i])) {
            why = isnan(got) ? NULL : "not NaN for NaN";
        } else if (isinf(wf)) {
            why = got == wf || (f == 0 && got > 3e38f && want < 3.41e38) ? NULL : "not the infinity";
        } else if (fabsf(wf) < 0x1p-119f) {
            const float e = exact[f](x[i]); /* a zero's sign: the exact builtin's */
            why = fabsf(got) > 0x1p-118f                               ? "tiny result too large"
                  : got == 0.0f && e == 0.0f && signbit(got) != signbit(e) ? "a zero of the wrong sign"
                                                                        : NULL;
        } else if (isnan(got) || isinf(got)) {
            /* exp's 2^hi overflows where x log2 e rounds up to 128 */
            why = f == 0 && got > 0 && want > 3.40e38 ? NULL : "NaN or inf for a finite result";
        } else {
            const double err = fabs(got - want), rel = err / fabs(want), ulp = err / ulp_of(wf);
            if (fabsf(x[i]) <= 4.0f) {
                max_ulp = ulp > max_ulp ? ulp : max_ulp;
                why = ulp > MAX_ULP ? "too many ulp" : NULL;
            }
            max_rel = rel > max_rel ? rel : max_rel;
            if (!why && rel > MAX_REL)
                why = "too large a relative error";
        }
        if (why && bad++ < 3)
            fprintf(stderr, "fast_math_error: %s(%a): GPU %a, f64 %a: %s\n", names[f], (double)x[i], (double)got,
                    want, why);
    }
    printf("fast_math_error: %-9s max %5.1f ulp (|x| <= 4), max relative %.2e; %ld of %d out of bounds\n",
           names[f], max_ulp, max_rel, bad, M * N);
    return bad;
}

int main(void)
{
    static const float special[] = {0.0f,   -0.0f,  1.0f,   -1.0f,   0.5f,   -0.5f,  3.0f,    -3.0f,
                                    9.5f,   -9.5f,  12.0f,  -12.0f,  20.0f,  -20.0f, 87.0f,   -87.0f,
                                    88.72f, -88.72f, 89.0f, -104.0f, 1e-45f, -1e-45f, 3e38f,  -3e38f,
                                    1e-30f, -1e-30f, 1e20f, -1e20f,  -86.0f, -130.0f, 1.0e-7f, -1.0e-7f};
    char src[1024];
    size_t len = (size_t)snprintf(src, sizeof src, "epilogue all {\n    in x : f32[M, N]\n");
    for (int f = 0; f < NFN; f++)
        len += (size_t)snprintf(src + len, sizeof src - len, "    out y%d : f32[M, N] = %s(x)\n", f, names[f]);
    len += (size_t)snprintf(src + len, sizeof src - len,
                            "}\nkernel k = gemm(a: f16 row, b: f16 col, acc: f32) with all\n");

    evt_ctx *ctx = evt_ctx_create();
    float *x = malloc(sizeof *x * M * N);
    long total_bad = 0;
    evt_status st = EVT_ERR_NO_MEMORY;
    char why[512] = "out of memory";
    if (!ctx || !x || (st = evt_ctx_set_fast_math(ctx, 1)) != EVT_OK)
        goto fail;

    const size_t nspecial = sizeof special / sizeof special[0];
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < (size_t)M * N; i++) {
        uint32_t u = rnd(&seed);
        if (i < nspecial)
            x[i] = special[i];
        else if (i % 4 == 0) /* dense in [-30, 30] */
            x[i] = (float)((int32_t)u / 71582788.27);
        else
            x[i] = evt_bits_f32(u);
    }
    x[nspecial] = evt_inf();
    x[nspecial + 1] = evt_neg(evt_inf());
    x[nspecial + 2] = evt_nan();
    const char *out_names[NFN] = {"y0", "y1", "y2", "y3", "y4"};
    const int out_bytes[NFN] = {4, 4, 4, 4, 4};
    st = gpu_epilogue_run(ctx, "fast_math_error.evt", src, len, M, N, x, NFN, out_names, out_bytes, check_output,
                          x, &total_bad, why, sizeof why);
fail:
    evt_ctx_destroy(ctx);
    free(x);
    return gpu_epilogue_verdict("fast_math_error", st, total_bad, why);
}
