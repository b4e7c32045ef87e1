/*
 * fast_math.h - the builtins of a fast-math compile (evt_ctx_set_fast_math,
 * evtc --fast-math): exp, sigmoid, silu, gelu_tanh and gelu on the
 * special-function unit's ex2.approx and rcp.approx, as nvcc's
 * --use_fast_math and cuBLASLt's GELU epilogue do, in place of
 * evt_math.h's correctly rounded arithmetic.  Every other builtin, tanh
 * included, stays evt_math.h's.  Written with evt_math.h's operations, as
 * it is, so that C includes it too: there ex2 and rcp are a model of the
 * SFU (2^x and 1/x correctly rounded, flushed as the .ftz forms flush),
 * which bench/fast_math_model.c measures the formulas with; only the GPU
 * runs the real instructions, and no interpreter uses this.
 *
 * What is given up: the interpreter's bits.  What is kept: the results
 * pass evt_check_values' f32 tolerance against the f64 reference.  The
 * formulas alone (bench/fast_math_model.c, the SFU taken as exact) are
 * within 18 ulp for |x| <= 4 and 1e-5 relative everywhere, where a result
 * is at least 2^-119 in magnitude; below that it may be 0, as the ftz
 * forms flush what reaches them under 2^-126.  NaN in gives NaN out;
 * the infinities give the exact builtins' results (silu(-inf) =
 * gelu_tanh(-inf) = gelu(-inf) = -0).  docs/codegen.md says why
 * tanh.approx is not used.
 */
#ifndef EVT_FAST_MATH_H
#define EVT_FAST_MATH_H

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#include "evt_math.h" /* NVRTC has no include paths: generated code includes it first */
#endif

#ifdef EVT_MATH_CUDA
/* 2^x, relative error about 2^-22; 0 below -126, +inf from 128 on */
EVT_MATH_FN float evtf_ex2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* 1/x within one ulp for normal results; 0 where 1/x is below 2^-126 */
EVT_MATH_FN float evtf_rcp(float x)
{
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
#else
EVT_MATH_FN float evtf_ftz(float x)
{
    return evt_abs(x) < 1.17549435e-38f ? copysignf(0.0f, x) : x;
}
EVT_MATH_FN float evtf_ex2(float x) { return evtf_ftz(exp2f(evtf_ftz(x))); }
EVT_MATH_FN float evtf_rcp(float x) { return evtf_ftz(evt_div(1.0f, evtf_ftz(x))); }
#endif

/*
 * e^x = 2^(x log2 e): x log2 e is carried as hi + lo (lo the product's
 * rounding error, from an fma, plus x times log2 e's own), so that the
 * exponent's rounding, which |x| up to 88 would amplify to 40 ulp, costs
 * nothing: 2^hi (1 + lo ln2).
 */
EVT_MATH_FN float evt_fast_exp(float x)
{
    const float l2e = 1.44269502f, l2e_lo = 1.92596299e-08f; /* log2 e = l2e + l2e_lo */
    const float hi = evt_mul(x, l2e);
    const float lo = evt_fma(x, l2e_lo, evt_fma(x, l2e, evt_neg(hi)));
    const float e = evtf_ex2(hi);
    /* from |hi| = 128 on e is 0 or +inf already, and lo (up to half an ulp
     * of hi) could make inf (1 + lo ln2) a NaN; a NaN x fails the test too */
    return evt_abs(hi) < 128.0f ? evt_fma(e, evt_mul(lo, 0.693147182f), e) : e;
}

/* 1 / (1 + 2^(-x log2 e)): 1 at +inf, 0 at -inf and below about -87 */
EVT_MATH_FN float evt_fast_sigmoid(float x)
{
    return evtf_rcp(evt_add(1.0f, evtf_ex2(evt_mul(x, -1.44269502f))));
}

/*
 * x * sigmoid(x).  Below about -87 the sigmoid is 0 and the product -0;
 * at -inf it would be -inf * 0: max(x, -2^100) keeps the -0 (and a NaN x
 * has already made the sigmoid NaN).
 */
EVT_MATH_FN float evt_fast_silu(float x)
{
    return evt_mul(fmaxf(x, -1.26765060e30f), evt_fast_sigmoid(x));
}

/*
 * 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), is x sigmoid(2u),
 * and 2u log2 e = x (c1 + c3 x^2): one ex2 and one rcp, no cancellation
 * (tanh.approx would be one MUFU fewer, but 1 + tanh(u) cancels for
 * negative x and its 2^-11 error becomes the result's).  x^2 overflowing
 * makes the exponent +-inf and the result x or -0, as it should be.
 */
EVT_MATH_FN float evt_fast_gelu_tanh(float x)
{
    const float c1 = -2.30220819f;  /* -2 sqrt(2/pi) log2 e */
    const float c3 = -0.102943242f; /* c1 0.044715 */
    const float w = evt_mul(x, evt_fma(c3, evt_mul(x, x), c1));
    return evt_mul(fmaxf(x, -1.26765060e30f), evtf_rcp(evt_add(1.0f, evtf_ex2(w))));
}

/*
 * 0.5 x (1 + erf(x / sqrt 2)): with z = |x| / sqrt 2 and t = 1 / (1 + z/2),
 * erfc(z) = t exp(-z^2 + P(t)), P of degree 9 (Numerical Recipes' erfcc,
 * after Chebyshev: relative error below 1.2e-7 for every z >= 0), so that
 * x <= 0 gives 0.5 x erfc(z) with no cancellation and x > 0 gives
 * x - 0.5 x erfc(z).  -z^2 is -(x/2) x in the fma, exact but for the
 * fma's rounding (z rounded would cost its 2^-24 times z^2).  At +-inf
 * t e is 0 and the clamp of x/2 keeps the product 0 (+inf - 0, -0); a NaN
 * x makes e, and so the result, NaN.
 */
EVT_MATH_FN float evt_fast_gelu(float x)
{
    const float z = evt_mul(evt_abs(x), 0.707106781f);
    const float t = evtf_rcp(evt_fma(z, 0.5f, 1.0f));
    float p = 0.17087277f;
    p = evt_fma(p, t, -0.82215223f);
    p = evt_fma(p, t, 1.48851587f);
    p = evt_fma(p, t, -1.13520398f);
    p = evt_fma(p, t, 0.27886807f);
    p = evt_fma(p, t, -0.18628806f);
    p = evt_fma(p, t, 0.09678418f);
    p = evt_fma(p, t, 0.37409196f);
    p = evt_fma(p, t, 1.00002368f);
    const float hx = evt_mul(0.5f, x);
    const float arg = evt_fma(evt_neg(hx), x, evt_fma(t, p, -1.26551223f));
    const float q = evt_mul(evt_mul(t, evtf_ex2(evt_mul(arg, 1.44269502f))),
                              fminf(fmaxf(hx, -1.26765060e30f), 1.26765060e30f));
    return x <= 0.0f ? q : evt_sub(x, q);
}

#endif
