/*
 * fast_math_model.c - the error of kernels/common/fast_math.h's formulas
 * alone: the header's C build, whose ex2 and rcp are correctly rounded 2^x
 * and 1/x (flushing subnormals as the SFU's .ftz forms do), against f64 on
 * every 37th f32 input.  The GPU adds the SFU's own error (about 2 ulp for
 * ex2, 1 for rcp); tests/gpu/fast_math_error.c measures the kernels
 * themselves.
 *
 * build: cc -O2 -std=c11 -ffp-contract=off -I. bench/fast_math_model.c -lm
 * prints, per builtin: the largest relative error and ulp over |x| <= 4,
 * and over every input whose exact result is at least 2^-119 in magnitude
 * (below it a result may be 0: the header says why), then the specials.
 */
#include "kernels/common/fast_math.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
            case 0: got = evt_fast_exp(x), want = exp((double)x); break;
            case 1: got = evt_fast_sigmoid(x), want = sigmoid64(x); break;
            case 2: got = evt_fast_silu(x), want = x * sigmoid64(x); break;
            case 3: got = evt_fast_gelu_tanh(x), want = gelu_tanh64(x); break;
            default: got = evt_fast_gelu(x), want = 0.5 * x * erfc(-x * 0.70710678118654752); break;
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
        printf("x = %g: exp %g, sigmoid %g, silu %g, gelu_tanh %g, gelu %g\n", sp[i], evt_fast_exp(sp[i]),
               evt_fast_sigmoid(sp[i]), evt_fast_silu(sp[i]), evt_fast_gelu_tanh(sp[i]), evt_fast_gelu(sp[i]));
    return 0;
}
