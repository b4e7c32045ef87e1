/*
 * math_bits.c - the claim of kernels/common/evt_math.h, on the GPU: every builtin
 * computed by a generated kernel gives the same f32 bits as the header's C
 * build (what the CPU reference interpreter runs), for 2^22 inputs: every
 * exponent with random mantissas and signs, a quarter dense in [-30, 30],
 * the special values, and the 128 floats either side of every seam where
 * a builtin changes method or clamps (both signs).  NaN results only need to be NaN on both sides.
 * Also the stores of x to f16, bf16, e4m3 and e5m2 (the hardware conversions
 * epilogue.cuh uses in place of the header's): every bit the same, NaN
 * included, with the values either side of each type's overflow and
 * subnormal seams among the inputs.
 * And gelu stored to f16 and bf16, which ir_func_narrow computes as gelu16
 * (f32 precision is only visible through f32 outputs, which keep gelu):
 * the stored bits the same as the C build's evt_gelu16 stored.
 * One kernel, one output per builtin and store; its mainloop result is unused.
 * Exit status: 0 PASS, 1 FAIL or error, 77 no GPU (the ctest skip code).
 */
#include <evt/evt.h>

#include "kernels/common/evt_math.h"
#include "gpu_epilogue.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFN 19
static const char *const names[NFN] = {"exp",  "log",       "tanh",    "sigmoid", "silu",
                                       "gelu", "gelu_tanh", "hardswish", "rsqrt", "sqrt",
                                       "relu", "abs",       "leaky_relu", "div",  "sel_nan",
                                       "sel_neg", "max", "min", "clamp"};

static float leaky_(float x) { return evt_leaky_relu(x, 0.01f); }
static float relu_(float x) { return evt_relu(x); }
static float abs_(float x) { return evt_abs(x); }
static float div_(float x) { return evt_div(1.0f, x); }
/* selects with a -0 operand: the sign a select once lost on the GPU (evt_select) */
static float sel_nan_(float x) { return evt_isnan(x) ? evt_neg(0.0f) : 1.0f; }
static float sel_neg_(float x) { return x < 0.0f ? evt_neg(0.0f) : x; }
/* max and min of x and -x: +0 against -0 and NaN, the cases where the GPU's
 * max.NaN / min.NaN and the C build's tests could part */
static float max_(float x) { return evt_max(x, evt_neg(x)); }
static float min_(float x) { return evt_min(x, evt_neg(x)); }
static float clamp_(float x) { return evt_clamp(x, -0.0f, 0.5f); }
static float (*const cpu[NFN])(float) = {evt_exp,  evt_log,       evt_tanh,     evt_sigmoid, evt_silu,
                                         evt_gelu, evt_gelu_tanh, evt_hardswish, evt_rsqrt,  evt_sqrt,
                                         relu_,    abs_,          leaky_,       div_,        sel_nan_,
                                         sel_neg_, max_,          min_,         clamp_};

/* The stores: output s<i> of type store_types[i], bytes per element store_bytes[i]. */
#define NST 4
static const char *const store_types[NST] = {"f16", "bf16", "e4m3", "e5m2"};
/* gelu's 16-bit outputs g<i>, after the stores: f16, bf16 */
#define NG 2
static const int store_bytes[NST] = {2, 2, 1, 1};
static unsigned store_cpu(int i, float x)
{
    return i == 0 ? evt_store_f16(x) : i == 1 ? evt_store_bf16(x) : i == 2 ? evt_store_e4m3(x) : evt_store_e5m2(x);
}

static uint32_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (uint32_t)(*s >> 16);
}

enum { M = 2048, N = 2048 };

/* gpu_epilogue_check: output `out` (y<f>, then the stores s<i>) of the
 * inputs x (user) against the header's C build, bit for bit. */
static long check_output(void *user, int out, const void *data)
{
    const float *x = user;
    long bad = 0;
    if (out < NFN) {
        const float *y = data;
        for (size_t i = 0; i < (size_t)M * N; i++) {
            float r = cpu[out](x[i]);
            int same = evt_isnan(r) ? evt_isnan(y[i]) : evt_f32_bits(r) == evt_f32_bits(y[i]);
            if (!same && bad++ < 3)
                fprintf(stderr, "math_bits: %s(%a): GPU %a, CPU %a\n", names[out], (double)x[i], (double)y[i],
                        (double)r);
        }
        printf("math_bits: %-10s %ld of %d differ\n", names[out], bad, M * N);
        return bad;
    }
    const unsigned char *g = data;
    if (out >= NFN + NST) {
        const int f16 = out == NFN + NST;
        for (size_t j = 0; j < (size_t)M * N; j++) {
            unsigned gv = (unsigned)g[2 * j] | (unsigned)g[2 * j + 1] << 8;
            float r = evt_gelu16(x[j]);
            unsigned cv = f16 ? evt_store_f16(r) : evt_store_bf16(r);
            if (gv != cv && bad++ < 3)
                fprintf(stderr, "math_bits: gelu16 %s(%a): GPU 0x%x, CPU 0x%x\n", f16 ? "f16" : "bf16",
                        (double)x[j], gv, cv);
        }
        printf("math_bits: gelu16 %-4s %ld of %d differ\n", f16 ? "f16" : "bf16", bad, M * N);
        return bad;
    }
    const int i = out - NFN;
    for (size_t j = 0; j < (size_t)M * N; j++) {
        unsigned gv = store_bytes[i] == 2 ? (unsigned)g[2 * j] | (unsigned)g[2 * j + 1] << 8 : g[j];
        unsigned cv = store_cpu(i, x[j]);
        if (gv != cv && bad++ < 3)
            fprintf(stderr, "math_bits: store %s(%a): GPU 0x%x, CPU 0x%x\n", store_types[i], (double)x[j], gv, cv);
    }
    printf("math_bits: store %-4s %ld of %d differ\n", store_types[i], bad, M * N);
    return bad;
}

int main(void)
{
    static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 3.0f, -3.0f, 9.5f, 16.5f,
                                    -16.5f, 20.0f, -20.0f, 88.7229f, 89.0f, -103.98f, -104.0f,
                                    104.0f, 1e-45f, -1e-45f, 1.17549435e-38f, 3e38f, -3e38f,
                                    -103.972076f, -103.972084f, -86.0f, 88.7228317f, 88.7228394f,
                                    1.84467441e19f, 1e30f, -1e30f, -130.0f, -14.5f, -12.0f};
    char src[2048];
    size_t len = 0;
    len += (size_t)snprintf(src + len, sizeof src - len, "epilogue all {\n    in x : f32[M, N]\n");
    for (int f = 0; f < NFN; f++) {
        const char *expr = f == 12   ? "leaky_relu(x, 0.01)"
                           : f == 13 ? "1.0 / x"
                           : f == 14 ? "x != x ? -0.0 : 1.0"
                           : f == 15 ? "x < 0 ? -0.0 : x"
                           : f == 16 ? "max(x, -x)"
                           : f == 17 ? "min(x, -x)"
                           : f == 18 ? "clamp(x, -0.0, 0.5)"
                                     : NULL;
        if (expr)
            len += (size_t)snprintf(src + len, sizeof src - len, "    out y%d : f32[M, N] = %s\n", f, expr);
        else
            len += (size_t)snprintf(src + len, sizeof src - len, "    out y%d : f32[M, N] = %s(x)\n", f,
                                    names[f]);
    }
    for (int i = 0; i < NST; i++)
        len += (size_t)snprintf(src + len, sizeof src - len, "    out s%d : %s[M, N] = x\n", i, store_types[i]);
    /* gelu(x) itself feeds y5, an f32 output, so it stays gelu: x * 1.0 is
     * another value when narrowing runs (simplify takes it back to x later) */
    len += (size_t)snprintf(src + len, sizeof src - len, "    out g0 : f16[M, N] = gelu(x * 1.0)\n"
                                                         "    out g1 : bf16[M, N] = gelu(x * 1.0)\n");
    len += (size_t)snprintf(src + len, sizeof src - len,
                            "}\nkernel k = gemm(a: f16 row, b: f16 col, acc: f32) with all\n");

    evt_ctx *ctx = evt_ctx_create();
    float *x = malloc(sizeof *x * M * N);
    long total_bad = 0;
    evt_status st = EVT_ERR_NO_MEMORY;
    char why[512] = "out of memory";
    if (!ctx || !x)
        goto fail;

    /* kernels/common/evt_math.h's seams: tanh 0.625 and 9.5, gelu 0.5 and 14.5,
       gelu_tanh 10 and 12, the sigmoid core's -20 and -130, silu's 2^64, exp's
       -86, 88.72 and -104, log's sqrt(1/2) and smallest normal */
    static const float seams[] = {0.5f,  0.625f, 9.5f,   10.0f, 12.0f,       14.5f,          20.0f,
                                  86.0f, 104.0f, 130.0f, 89.0f, 88.7228317f, 1.84467441e19f, 3.0f,
                                  11.5f, 120.0f, 0.70710677f, 1.17549435e-38f,
                                  /* the stores': f16 65504, 65520 (overflow) and 2^-14, 2^-24;
                                     bf16's largest finite; e4m3 448, 464 and 2^-6, 2^-9;
                                     e5m2 57344, 61440 and 2^-16 */
                                  65504.0f, 65520.0f, 6.1035156e-05f, 5.9604645e-08f, 3.3895314e38f,
                                  448.0f, 464.0f, 0.015625f, 0.001953125f, 57344.0f, 61440.0f,
                                  1.5258789e-05f};
    const size_t nspecial = sizeof special / sizeof special[0], nseam = sizeof seams / sizeof seams[0];
    uint64_t seed = 0x2545f4914f6cdd1du;
    for (size_t i = 0; i < (size_t)M * N; i++) {
        uint32_t u = rnd(&seed);
        if (i < nspecial)
            x[i] = special[i];
        else if (i < nspecial + 512 * nseam) { /* seam +- 128 floats, both signs */
            size_t k = (i - nspecial) / 512, d = (i - nspecial) % 512;
            x[i] = evt_bits_f32((evt_f32_bits(seams[k]) + (uint32_t)(d / 2) - 128u) | (d % 2 ? 0x80000000u : 0u));
        } else if (i % 4 == 0) /* dense in [-30, 30] */
            x[i] = (float)((int32_t)u / 71582788.27);
        else
            x[i] = evt_bits_f32(u);
    }
    x[nspecial + 512 * nseam] = evt_inf(); /* the rest of the specials */
    x[nspecial + 512 * nseam + 1] = evt_neg(evt_inf());
    x[nspecial + 512 * nseam + 2] = evt_nan();
    const char *out_names[NFN + NST + NG];
    int out_bytes[NFN + NST + NG];
    char names_buf[NFN + NST + NG][8];
    for (int o = 0; o < NFN + NST + NG; o++) {
        if (o < NFN + NST)
            snprintf(names_buf[o], sizeof names_buf[o], "%c%d", o < NFN ? 'y' : 's', o < NFN ? o : o - NFN);
        else
            snprintf(names_buf[o], sizeof names_buf[o], "g%d", o - NFN - NST);
        out_names[o] = names_buf[o];
        out_bytes[o] = o < NFN ? 4 : o < NFN + NST ? store_bytes[o - NFN] : 2;
    }
    st = gpu_epilogue_run(ctx, "math_bits.evt", src, len, M, N, x, NFN + NST + NG, out_names, out_bytes, check_output, x,
                          &total_bad, why, sizeof why);
fail:
    evt_ctx_destroy(ctx);
    free(x);
    return gpu_epilogue_verdict("math_bits", st, total_bad, why);
}
