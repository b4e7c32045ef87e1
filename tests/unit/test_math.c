/* test_math.c - kernels/common/evt_math.h: every builtin against f64 libm (max ulp over
 * random and edge inputs), special values, min/max commutativity, and every
 * element conversion (ties, subnormals, overflow, saturation, NaN, -0.0,
 * round trips), the stores also against an independent f64 rounding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernels/common/evt_math.h"
#include <evt/evt.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint32_t rnd32(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static float bits(uint32_t u)
{
    return evt_bits_f32(u);
}

static int same_bits(float a, float b)
{
    return evt_f32_bits(a) == evt_f32_bits(b);
}

/* ---- accuracy against f64 libm ----------------------------------------- */

/* The f64 value of each builtin, with the special values evt_math.h documents. */
static double mul_sigmoid64(double x, double w)
{
    if (w >= 0)
        return x / (1 + exp(-w));
    if (isinf(w))
        return x < 0 ? -0.0 : 0.0;
    double e = exp(w);
    return x * e / (1 + e);
}

typedef struct fn_case {
    const char *name;
    float (*f32)(float);
    int which;
    double max_ulp; /* the bound this test enforces (docs/interpreter.md has the measured one) */
} fn_case;

static double ref64(int which, double x)
{
    switch (which) {
    case 0: return exp(x);
    case 1: return log(x);
    case 2: return tanh(x);
    case 3: return isnan(x) ? x : mul_sigmoid64(1.0, x);
    case 4: return isnan(x) ? x : mul_sigmoid64(x, x);
    case 5: return isinf(x) ? (x > 0 ? x : -0.0) : 0.5 * x * erfc(-x / sqrt(2.0));
    case 6:
        if (isinf(x))
            return x > 0 ? x : -0.0;
        return mul_sigmoid64(x, 2 * sqrt(2 / 3.14159265358979323846) * x * (1 + 0.044715 * x * x));
    case 7: return isnan(x) ? x : x <= -3 ? -0.0 : x >= 3 ? x : x * (x + 3) / 6;
    case 8: return 1 / sqrt(x);
    case 9: return sqrt(x);
    case 10: return isnan(x) ? x : x > 0 ? x : 0.0;
    case 11: return fabs(x);
    }
    return 0;
}

static float relu_(float x) { return evt_relu(x); }
static float abs_(float x) { return evt_abs(x); }

static const fn_case fns[] = {
    {"exp", evt_exp, 0, 1.1},           {"log", evt_log, 1, 1.0},
    {"tanh", evt_tanh, 2, 2.0},         {"sigmoid", evt_sigmoid, 3, 3.0},
    {"silu", evt_silu, 4, 3.0},         {"gelu", evt_gelu, 5, 3.0},
    {"gelu_tanh", evt_gelu_tanh, 6, 2.5}, {"hardswish", evt_hardswish, 7, 2.0},
    {"rsqrt", evt_rsqrt, 8, 1.5},       {"sqrt", evt_sqrt, 9, 0.5},
    {"relu", relu_, 10, 0.0},           {"abs", abs_, 11, 0.0},
};

/* |y - r| in units of the f32 ulp at r; huge for a wrong NaN, inf or zero sign. */
static double ulp_error(float y, double r)
{
    if (isnan(r))
        return isnan(y) ? 0 : 1e9;
    if (isnan(y))
        return 1e9;
    if (fabs(r) >= 0x1.ffffffp127) /* rounds to inf */
        return isinf(y) && (y > 0) == (r > 0) ? 0 : 1e9;
    if (isinf(y))
        return 1e9;
    if (y == 0 && r == 0)
        return !signbit(y) == !signbit(r) ? 0 : 1e9;
    int e;
    frexp(fabs(r), &e);
    e = e - 1 < -126 ? -126 : e - 1;
    return fabs((double)y - r) / ldexp(1.0, e - 23);
}

static const float edges[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, 3.0f, -3.0f, 0.625f, -0.625f, 9.5f,
    10.0f, -12.0f, 16.5f, -16.5f, 20.0f, -20.0f, 88.7f, 88.72283f, 88.7229f, 89.0f,
    -87.33f, -103.97f, -103.98f, -104.0f, -110.0f, 104.0f, 1e-30f, -1e-30f, 1e-45f,
    -1e-45f, 1.17549435e-38f, 3e38f, -3e38f, 1e10f, -1e10f, 1.41421354f, 0.70710677f,
};

static void check_fn(const fn_case *c, float x, double *worst, float *worst_x)
{
    float y = c->f32(x);
    double e = ulp_error(y, ref64(c->which, x));
    if (e > *worst) {
        *worst = e;
        *worst_x = x;
    }
}

static void test_builtins_vs_libm(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
        const fn_case *c = &fns[f];
        double worst = 0;
        float wx = 0;
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
            check_fn(c, edges[i], &worst, &wx);
        check_fn(c, evt_inf(), &worst, &wx);
        check_fn(c, -evt_inf(), &worst, &wx);
        /* random bit patterns (every binade), and dense random values in [-20, 20] */
        for (int i = 0; i < 300000; i++) {
            check_fn(c, bits(rnd32()), &worst, &wx);
            check_fn(c, (float)((int32_t)rnd32() / 107374182.4), &worst, &wx);
        }
        /* near every threshold where an implementation changes method */
        static const float seams[] = {0.5f,   0.625f, 3.0f,   9.5f,        10.0f,       12.0f,
                                      14.5f,  16.5f,  20.0f,  86.0f,       88.7228317f, 89.0f,
                                      104.0f, 130.0f, 88.7f,  1.84467441e19f, 11.5f, 120.0f,
                                      0.70710677f, 1.17549435e-38f, 0.173286795f};
        for (size_t s = 0; s < sizeof seams / sizeof seams[0]; s++)
            for (int d = -64; d <= 64; d++) {
                uint32_t u = evt_f32_bits(seams[s]) + (uint32_t)d;
                check_fn(c, bits(u), &worst, &wx);
                check_fn(c, bits(u | 0x80000000u), &worst, &wx);
            }
        if (worst > c->max_ulp)
            fail_msg("%s: %.3f ulp at %a (bound %.1f)", c->name, worst, (double)wx, c->max_ulp);
    }
}

/* evt_gelu16 (the gelu of values only stored in 16 bits or fewer, ir/narrow.c):
 * a relative error bound rather than ulp (7.0e-7 measured over every f32
 * input, bench/fit_gelu16.c), and for subnormal results that bound and
 * one rounding, and evt_gelu's special values. */
static void test_gelu16(void **state)
{
    (void)state;
    double worst = 0;
    float wx = 0;
    for (int i = 0; i < 1200000; i++) {
        float x = i % 2 ? bits(rnd32()) : (float)((int32_t)rnd32() / 107374182.4);
        if (i < (int)(sizeof edges / sizeof edges[0]))
            x = edges[i];
        double r = ref64(5, x);
        float y = evt_gelu16(x);
        if (isnan(x)) {
            assert_true(isnan(y));
            continue;
        }
        if (fabs(r) < 0x1p-126) { /* a subnormal result: the bound, then one rounding */
            if (!(fabs(y - r) <= 7.5e-7 * fabs(r) + 0x1p-150))
                fail_msg("gelu16(%a) = %a, not within the bound of %a", (double)x, (double)y, r);
            continue;
        }
        double e = fabs((y - r) / r);
        if (!(e <= worst)) {
            worst = e;
            wx = x;
        }
    }
    if (worst > 7.5e-7)
        fail_msg("gelu16: relative error %.3g at %a (bound 7.5e-7)", worst, (double)wx);
    float inf = evt_inf();
    assert_true(isnan(evt_gelu16(evt_nan())));
    assert_true(same_bits(evt_gelu16(inf), inf) && same_bits(evt_gelu16(-inf), -0.0f));
    assert_true(same_bits(evt_gelu16(-0.0f), -0.0f) && same_bits(evt_gelu16(0.0f), 0.0f));
    assert_true(same_bits(evt_gelu16(-20.0f), -0.0f) && same_bits(evt_gelu16(6.0f), 6.0f));
    assert_true(evt_gelu16(-13.5f) < 0.0f);
}

static void test_special_values(void **state)
{
    (void)state;
    float inf = evt_inf(), nan = evt_nan();
    /* NaN in, NaN out, for every builtin */
    for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++)
        assert_true(isnan(fns[f].f32(nan)));
    assert_true(isnan(evt_leaky_relu(nan, 0.1f)));
    assert_true(isnan(evt_min(nan, 1.0f)) && isnan(evt_min(1.0f, nan)));
    assert_true(isnan(evt_max(nan, 1.0f)) && isnan(evt_max(1.0f, nan)));
    assert_true(isnan(evt_clamp(nan, 0.0f, 6.0f)));
    assert_true(isnan(evt_clamp(1.0f, nan, 6.0f)) && isnan(evt_clamp(1.0f, 0.0f, nan)));

    assert_true(same_bits(evt_exp(inf), inf));
    assert_true(same_bits(evt_exp(-inf), 0.0f));
    assert_true(same_bits(evt_exp(89.0f), inf));
    assert_true(same_bits(evt_exp(0.0f), 1.0f) && same_bits(evt_exp(-0.0f), 1.0f));
    assert_true(same_bits(evt_log(0.0f), -inf) && same_bits(evt_log(-0.0f), -inf));
    assert_true(isnan(evt_log(-1.0f)) && isnan(evt_log(-inf)));
    assert_true(same_bits(evt_log(inf), inf) && same_bits(evt_log(1.0f), 0.0f));
    assert_true(same_bits(evt_sqrt(-0.0f), -0.0f) && isnan(evt_sqrt(-1.0f)));
    assert_true(same_bits(evt_rsqrt(0.0f), inf) && same_bits(evt_rsqrt(-0.0f), -inf));
    assert_true(same_bits(evt_rsqrt(inf), 0.0f));
    assert_true(same_bits(evt_tanh(inf), 1.0f) && same_bits(evt_tanh(-inf), -1.0f));
    assert_true(same_bits(evt_tanh(-0.0f), -0.0f));
    assert_true(same_bits(evt_sigmoid(inf), 1.0f) && same_bits(evt_sigmoid(-inf), 0.0f));
    assert_true(same_bits(evt_sigmoid(0.0f), 0.5f));
    assert_true(same_bits(evt_silu(inf), inf) && same_bits(evt_silu(-inf), -0.0f));
    assert_true(same_bits(evt_gelu(inf), inf) && same_bits(evt_gelu(-inf), -0.0f));
    assert_true(same_bits(evt_gelu(-0.0f), -0.0f) && same_bits(evt_gelu(0.0f), 0.0f));
    assert_true(same_bits(evt_gelu(-20.0f), -0.0f));
    assert_true(same_bits(evt_gelu_tanh(inf), inf) && same_bits(evt_gelu_tanh(-inf), -0.0f));
    assert_true(same_bits(evt_hardswish(-inf), -0.0f) && same_bits(evt_hardswish(inf), inf));
    assert_true(same_bits(evt_hardswish(-4.0f), -0.0f) && same_bits(evt_hardswish(5.0f), 5.0f));
    assert_true(same_bits(evt_relu(-0.0f), 0.0f) && same_bits(evt_relu(-inf), 0.0f));
    assert_true(same_bits(evt_relu(-1.0f), 0.0f) && same_bits(evt_relu(2.5f), 2.5f));
    assert_true(same_bits(evt_leaky_relu(-0.0f, 0.1f), -0.0f));
    assert_true(same_bits(evt_leaky_relu(-2.0f, 0.5f), -1.0f));
    assert_true(same_bits(evt_leaky_relu(3.0f, nan), 3.0f));
    assert_true(same_bits(evt_abs(-0.0f), 0.0f) && same_bits(evt_abs(-inf), inf));
    assert_true(same_bits(evt_neg(0.0f), -0.0f));
    /* subnormal results are rounded once, not flushed */
    assert_true(evt_exp(-100.0f) > 0.0f && evt_exp(-100.0f) < 1.2e-38f);
    assert_true(evt_sigmoid(-100.0f) > 0.0f);
    assert_true(evt_silu(-100.0f) < 0.0f && evt_gelu(-13.5f) < 0.0f);
}

static void test_min_max_rules(void **state)
{
    (void)state;
    float inf = evt_inf();
    const float vals[] = {0.0f, -0.0f, 1.0f, -1.0f, inf, -inf, 1e-45f, -1e-45f,
                          bits(0x7fc00000u), bits(0xffc00001u), bits(0x7f800001u), 3.5f};
    size_t n = sizeof vals / sizeof vals[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            float a = vals[i], b = vals[j];
            assert_true(same_bits(evt_max(a, b), evt_max(b, a)));
            assert_true(same_bits(evt_min(a, b), evt_min(b, a)));
            if (isnan(a) || isnan(b)) {
                assert_int_equal(evt_f32_bits(evt_max(a, b)), 0x7fffffffu);
                assert_int_equal(evt_f32_bits(evt_min(a, b)), 0x7fffffffu);
            }
        }
    assert_true(same_bits(evt_max(-0.0f, 0.0f), 0.0f));
    assert_true(same_bits(evt_min(0.0f, -0.0f), -0.0f));
    assert_true(same_bits(evt_max(-0.0f, -0.0f), -0.0f));
    assert_true(same_bits(evt_clamp(-0.0f, 0.0f, 6.0f), 0.0f));
    assert_true(same_bits(evt_clamp(7.0f, 0.0f, 6.0f), 6.0f));
    assert_true(same_bits(evt_clamp(1.0f, 5.0f, 2.0f), 2.0f)); /* lo > hi: hi */
    /* relu(x) is exactly max(x, 0) */
    for (int i = 0; i < 100000; i++) {
        float x = bits(rnd32());
        if (!isnan(x))
            assert_true(same_bits(evt_relu(x), evt_max(x, 0.0f)));
    }
}

/* ---- conversions -------------------------------------------------------- */

static void test_f16(void **state)
{
    (void)state;
    assert_int_equal(evt_store_f16(1.0f), 0x3c00);
    assert_int_equal(evt_store_f16(-0.0f), 0x8000);
    assert_int_equal(evt_store_f16(65504.0f), 0x7bff);
    assert_int_equal(evt_store_f16(65519.99f), 0x7bff);
    assert_int_equal(evt_store_f16(65520.0f), 0x7c00); /* the tie rounds to even: inf */
    assert_int_equal(evt_store_f16(-1e6f), 0xfc00);
    assert_int_equal(evt_store_f16(evt_inf()), 0x7c00);
    assert_int_equal(evt_store_f16(evt_nan()), 0x7fff);
    assert_int_equal(evt_store_f16(bits(0xffc00000u)), 0x7fff);
    /* ties to even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 */
    assert_int_equal(evt_store_f16(1.0f + 0x1p-11f), 0x3c00);
    assert_int_equal(evt_store_f16(1.0f + 3 * 0x1p-11f), 0x3c02);
    assert_int_equal(evt_store_f16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
    /* subnormals: 2^-24 is the unit; 2^-25 ties to 0, just above rounds up */
    assert_int_equal(evt_store_f16(0x1p-24f), 0x0001);
    assert_int_equal(evt_store_f16(0x1p-25f), 0x0000);
    assert_int_equal(evt_store_f16(-0x1p-25f), 0x8000);
    assert_int_equal(evt_store_f16(0x1.8p-24f), 0x0002);
    assert_int_equal(evt_store_f16(0x1.000002p-25f), 0x0001);
    assert_int_equal(evt_store_f16(0x1.ff8p-15f), 0x03ff);
    assert_int_equal(evt_store_f16(0x1.ffcp-15f), 0x0400); /* tie to even */
    assert_int_equal(evt_store_f16(0x1.ffep-15f), 0x0400); /* rounds up into the normals */
    assert_int_equal(evt_store_f16(1e-45f), 0x0000);
    /* every f16 survives a round trip; NaNs come back canonical */
    for (uint32_t h = 0; h < 0x10000u; h++) {
        float f = evt_load_f16((unsigned short)h);
        int nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);
        if (nan)
            assert_true(isnan(f));
        assert_int_equal(evt_store_f16(f), nan ? 0x7fffu : h);
    }
    assert_true(evt_load_f16(0x0001) == 0x1p-24f && evt_load_f16(0x7bff) == 65504.0f);
    assert_true(same_bits(evt_load_f16(0x8000), -0.0f) && isinf(evt_load_f16(0xfc00)));
}

static void test_bf16(void **state)
{
    (void)state;
    assert_int_equal(evt_store_bf16(1.0f), 0x3f80);
    assert_int_equal(evt_store_bf16(-0.0f), 0x8000);
    assert_int_equal(evt_store_bf16(bits(0x3f808000u)), 0x3f80); /* tie to even */
    assert_int_equal(evt_store_bf16(bits(0x3f818000u)), 0x3f82);
    assert_int_equal(evt_store_bf16(bits(0x3f808001u)), 0x3f81);
    assert_int_equal(evt_store_bf16(bits(0x7f7fffffu)), 0x7f80); /* FLT_MAX overflows */
    assert_int_equal(evt_store_bf16(bits(0x7f7f7fffu)), 0x7f7f);
    assert_int_equal(evt_store_bf16(-evt_inf()), 0xff80);
    assert_int_equal(evt_store_bf16(evt_nan()), 0x7fff);
    assert_int_equal(evt_store_bf16(bits(0xff800001u)), 0x7fff);
    assert_int_equal(evt_store_bf16(bits(0x00008000u)), 0x0000); /* subnormal tie */
    assert_int_equal(evt_store_bf16(bits(0x00018000u)), 0x0002);
    assert_int_equal(evt_store_bf16(bits(0x007fffffu)), 0x0080);
    for (uint32_t h = 0; h < 0x10000u; h++) {
        float f = evt_load_bf16((unsigned short)h);
        int nan = (h & 0x7f80u) == 0x7f80u && (h & 0x7fu);
        assert_int_equal(evt_store_bf16(f), nan ? 0x7fffu : h);
        if (!nan)
            assert_int_equal(evt_f32_bits(f), h << 16);
    }
}

static void test_fp8(void **state)
{
    (void)state;
    /* e4m3fn: max 448, no inf, saturating; NaN 0x7f */
    assert_int_equal(evt_store_e4m3(448.0f), 0x7e);
    assert_int_equal(evt_store_e4m3(464.0f), 0x7e);
    assert_int_equal(evt_store_e4m3(1e9f), 0x7e);
    assert_int_equal(evt_store_e4m3(evt_inf()), 0x7e);
    assert_int_equal(evt_store_e4m3(-evt_inf()), 0xfe);
    assert_int_equal(evt_store_e4m3(evt_nan()), 0x7f);
    assert_int_equal(evt_store_e4m3(1.0f), 0x38);
    assert_int_equal(evt_store_e4m3(-0.0f), 0x80);
    assert_int_equal(evt_store_e4m3(1.0625f), 0x38); /* tie to even */
    assert_int_equal(evt_store_e4m3(1.1875f), 0x3a);
    assert_int_equal(evt_store_e4m3(0x1p-9f), 0x01); /* smallest subnormal */
    assert_int_equal(evt_store_e4m3(0x1p-10f), 0x00); /* tie to 0 */
    assert_int_equal(evt_store_e4m3(0x1.8p-9f), 0x02);
    assert_int_equal(evt_store_e4m3(-0x1p-11f), 0x80);
    assert_int_equal(evt_store_e4m3(0x1.ep-7f), 0x08); /* rounds up into the normals */
    /* e5m2: max 57344, saturating (infinities too); NaN 0x7f */
    assert_int_equal(evt_store_e5m2(57344.0f), 0x7b);
    assert_int_equal(evt_store_e5m2(61440.0f), 0x7b);
    assert_int_equal(evt_store_e5m2(evt_inf()), 0x7b);
    assert_int_equal(evt_store_e5m2(-evt_inf()), 0xfb);
    assert_int_equal(evt_store_e5m2(evt_nan()), 0x7f);
    assert_int_equal(evt_store_e5m2(1.0f), 0x3c);
    assert_int_equal(evt_store_e5m2(1.125f), 0x3c); /* tie to even */
    assert_int_equal(evt_store_e5m2(1.375f), 0x3e);
    assert_int_equal(evt_store_e5m2(0x1p-16f), 0x01);
    assert_int_equal(evt_store_e5m2(0x1p-17f), 0x00);
    assert_int_equal(evt_store_e5m2(-0.0f), 0x80);
    assert_true(isinf(evt_load_e5m2(0x7c)) && isnan(evt_load_e5m2(0x7d)));
    assert_true(isnan(evt_load_e4m3(0x7f)) && isnan(evt_load_e4m3(0xff)));
    assert_true(evt_load_e4m3(0x7e) == 448.0f && evt_load_e4m3(0x01) == 0x1p-9f);
    for (uint32_t c = 0; c < 256; c++) {
        float f = evt_load_e4m3((unsigned char)c);
        int nan = (c & 0x7fu) == 0x7fu;
        assert_int_equal(evt_store_e4m3(f), nan ? 0x7fu : c);
        float g = evt_load_e5m2((unsigned char)c);
        int nan5 = (c & 0x7fu) > 0x7cu, inf5 = (c & 0x7fu) == 0x7cu;
        assert_int_equal(evt_store_e5m2(g), nan5 ? 0x7fu : inf5 ? (c & 0x80u) | 0x7bu : c);
        /* e5m2 is an f16 with its low byte zero */
        float h = evt_load_f16((unsigned short)(c << 8));
        assert_true(nan5 ? isnan(g) && isnan(h) : same_bits(g, h));
    }
}

static void test_integers(void **state)
{
    (void)state;
    assert_int_equal(evt_store_i8(0.5f), 0);
    assert_int_equal(evt_store_i8(1.5f), 2);
    assert_int_equal(evt_store_i8(2.5f), 2);
    assert_int_equal(evt_store_i8(-2.5f), -2);
    assert_int_equal(evt_store_i8(-0.0f), 0);
    assert_int_equal(evt_store_i8(127.4f), 127);
    assert_int_equal(evt_store_i8(127.6f), 127);
    assert_int_equal(evt_store_i8(1e9f), 127);
    assert_int_equal(evt_store_i8(-128.5f), -128);
    assert_int_equal(evt_store_i8(-evt_inf()), -128);
    assert_int_equal(evt_store_i8(evt_nan()), 0);
    assert_int_equal(evt_store_i32(2147483648.0f), INT32_MAX);
    assert_int_equal(evt_store_i32(evt_inf()), INT32_MAX);
    assert_int_equal(evt_store_i32(-2147483648.0f), INT32_MIN);
    assert_int_equal(evt_store_i32(-1e30f), INT32_MIN);
    assert_int_equal(evt_store_i32(evt_nan()), 0);
    assert_int_equal(evt_store_i32(8388607.5f), 8388608);
    assert_int_equal(evt_store_i32(4194304.5f), 4194304);
    assert_int_equal(evt_store_i32(-4194305.5f), -4194306);
    assert_int_equal(evt_store_i32(16777217.0f), 16777216);
    assert_int_equal(evt_store_i32(2147483520.0f), 2147483520);
    for (int v = -128; v < 128; v++)
        assert_int_equal(evt_store_i8(evt_load_i8((signed char)v)), v);
    assert_true(evt_load_i32(16777217) == 16777216.0f); /* rounds to nearest even */
    assert_true(evt_load_i32(INT32_MIN) == -2147483648.0f);
}

/* Each store agrees with the library's independent f64 rounding on random floats. */
static void test_stores_vs_f64_rounding(void **state)
{
    (void)state;
    const evt_elem elems[] = {EVT_F32, EVT_F16, EVT_BF16, EVT_I8, EVT_I32, EVT_E4M3, EVT_E5M2};
    for (size_t e = 0; e < sizeof elems / sizeof elems[0]; e++) {
        for (int i = 0; i < 200000; i++) {
            uint32_t u = rnd32();
            /* half the time a value in the type's interesting range */
            float x = i & 1 ? bits(u) : ldexpf((float)(int32_t)u / 2147483648.0f, (int)(u % 40) - 20);
            unsigned char a[4] = {0}, b[4] = {0};
            double d = x;
            assert_int_equal(evt_convert_from_f32(elems[e], &x, a, 1), EVT_OK);
            assert_int_equal(evt_convert_from_f64(elems[e], &d, b, 1), EVT_OK);
            if (memcmp(a, b, 4) != 0)
                fail_msg("%s: %a stores differently from f32 and from f64", evt_elem_name(elems[e]),
                         d);
        }
    }
}

static void test_convert_api(void **state)
{
    (void)state;
    float src[3] = {1.5f, -2.0f, 65536.0f}, back[3];
    unsigned short h[3];
    assert_int_equal(evt_convert_from_f32(EVT_F16, src, h, 3), EVT_OK);
    assert_int_equal(h[2], 0x7c00);
    assert_int_equal(evt_convert_to_f32(EVT_F16, h, back, 3), EVT_OK);
    assert_true(back[0] == 1.5f && back[1] == -2.0f && isinf(back[2]));
    double big = 2147483647.0, got;
    int i32;
    assert_int_equal(evt_convert_from_f64(EVT_I32, &big, &i32, 1), EVT_OK);
    assert_int_equal(i32, INT32_MAX);
    assert_int_equal(evt_convert_to_f64(EVT_I32, &i32, &got, 1), EVT_OK);
    assert_true(got == 2147483647.0);
    double tie = 1.0 + 0x1p-11 + 0x1p-40; /* above the f16 tie: a double rounding would miss it */
    assert_int_equal(evt_convert_from_f64(EVT_F16, &tie, h, 1), EVT_OK);
    assert_int_equal(h[0], 0x3c01);
    assert_int_equal(evt_convert_from_f32((evt_elem)99, src, h, 1), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_convert_to_f32(EVT_F16, NULL, back, 1), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_convert_to_f32(EVT_F16, NULL, NULL, 0), EVT_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtins_vs_libm),
        cmocka_unit_test(test_gelu16),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_min_max_rules),
        cmocka_unit_test(test_f16),
        cmocka_unit_test(test_bf16),
        cmocka_unit_test(test_fp8),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_stores_vs_f64_rounding),
        cmocka_unit_test(test_convert_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
