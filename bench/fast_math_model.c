/*
 * fast_math_model.c - the error of kernels/common/fast_math.cuh's formulas
 * alone: each written out again in C with the SFU's ex2.approx.ftz and
 * rcp.approx.ftz replaced by correctly rounded 2^x and 1/x (flushing
 * subnormals as the ftz forms do), against f64 on every 37th f32 input.
 * The GPU adds the SFU's own error (about 2 ulp for ex2, 1 for rcp);
 * tests/gpu and bench/bench.py measure the kernels themselves.  Keep the
 * five functions below in step with fast_math.cuh.
 *
 * build: cc -O2 -std=c11 -ffp-contract=off bench/fast_math_model.c -lm
 * prints, per builtin: the largest relative error and ulp over |x| <= 4,
 * and over every input whose exact result is at least 2^-119 in magnitude
 * (below it a result may be 0: the header says why), then the specials.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static float ftz(float x) { return fabsf(x) < 1.17549435e-38f ? copysignf(0.0f, x) : x; }
static float ex2(float x) { return ftz(exp2f(ftz(x))); }
static float rcp(float x) { return ftz(1.0f / ftz(x)); }

static float fast_exp(float x)
{
    const float l2e = 1.44269502f, l2e_lo = 1.92596299e-08f;
    const float hi = x * l2e, lo = fmaf(x, l2e_lo, fmaf(x, l2e, -hi));
    const float e = ex2(hi);
    return fabsf(hi) < 128.0f ? fmaf(e, lo * 0.693147182f, e) : e;
}
static float fast_sigmoid(float x) { return rcp(1.0f + ex2(x * -1.44269502f)); }
static float fast_silu(float x) { return fmaxf(x, -1.26765060e30f) * fast_sigmoid(x); }
static float fast_gelu_tanh(float x)
{
    const float c1 = -2.30220819f, c3 = -0.102943242f;
    const float w = x * fmaf(c3, x * x, c1);
    return fmaxf(x, -1.26765060e30f) * rcp(1.0f + ex2(w));
}

static float fast_gelu(float x)
{
    const float z = fabsf(x) * 0.707106781f;
    const float t = rcp(fmaf(z, 0.5f, 1.0f));
    float p = 0.17087277f;
    p = fmaf(p, t, -0.82215223f);
    p = fmaf(p, t, 1.48851587f);
    p = fmaf(p, t, -1.13520398f);
    p = fmaf(p, t, 0.27886807f);
    p = fmaf(p, t, -0.18628806f);
    p = fmaf(p, t, 0.09678418f);
    p = fmaf(p, t, 0.37409196f);
    p = fmaf(p, t, 1.00002368f);
    const float hx = 0.5f * x;
    const float arg = fmaf(-hx, x, fmaf(t, p, -1.26551223f));
    const float q = (t * ex2(arg * 1.44269502f)) * fminf(fmaxf(hx, -1.26765060e30f), 1.26765060e30f);
    return x <= 0.0f ? q : x - q;
}

static double sigmoid64(double x) { return 1 / (1 + exp(-x)); }
/* 0.5 x (1 + tanh(u)) as x sigmoid(2u): the tanh form cancels in f64 too */
static double gelu_tanh64(double x) { return x * sigmoid64(1.5957691216057308 /* 2 sqrt(2/pi) */ * (x + 0.044715 * x * x * x)); }

static double ulp_of(float w)
{
    const float a = fabsf(w);
    return a < 1.17549435e-38f ? 1.40129846e-45 : (double)nextafterf(a, INFINITY) - a;
}

int main(void)
{
    static const char *const names[] = {"exp", "sigmoid", "silu", "gelu_tanh", "gelu"};
    for (int f = 0; f < 5; f++) {
        double rel[2] = {0, 0}, ulp[2] = {0, 0};
        float at[2] = {0, 0};
        for (uint32_t u = 0; u < 0xff800000u; u += 37) {
            float x;
            memcpy(&x, &u, sizeof x);
            if (isnan(x))
                continue;
            float got;
            double want;
            switch (f) {
            case 0: got = fast_exp(x), want = exp((double)x); break;
            case 1: got = fast_sigmoid(x), want = sigmoid64(x); break;
            case 2: got = fast_silu(x), want = x * sigmoid64(x); break;
            case 3: got = fast_gelu_tanh(x), want = gelu_tanh64(x); break;
            default: got = fast_gelu(x), want = 0.5 * x * erfc(-x * 0.70710678118654752); break;
            }
            const float wf = (float)want;
            if (isinf(wf) || isinf(got) || fabsf(wf) < 0x1p-119f)
                continue;
            const double r = fabs(got - want) / fabs(want), e = fabs(got - want) / ulp_of(wf);
            for (int b = 0; b < 2; b++)
                if (b == 1 || fabsf(x) <= 4) {
                    if (r > rel[b])
                        rel[b] = r, at[b] = x;
                    if (e > ulp[b])
                        ulp[b] = e;
                }
        }
        printf("%-9s |x| <= 4: %.2e rel, %5.1f ulp (x = %g);  all: %.2e rel, %5.1f ulp (x = %g)\n", names[f],
               rel[0], ulp[0], at[0], rel[1], ulp[1], at[1]);
    }
    const float sp[] = {INFINITY, -INFINITY, 0.0f, -0.0f, NAN, -1e20f, 1e20f};
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++)
        printf("x = %g: exp %g, sigmoid %g, silu %g, gelu_tanh %g, gelu %g\n", sp[i], fast_exp(sp[i]),
               fast_sigmoid(sp[i]), fast_silu(sp[i]), fast_gelu_tanh(sp[i]), fast_gelu(sp[i]));
    return 0;
}
