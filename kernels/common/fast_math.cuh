/*
 * fast_math.cuh - the builtins of a fast-math compile (evt_ctx_set_fast_math,
 * evtc --fast-math), GPU only: exp, sigmoid, silu, gelu_tanh and gelu on
 * the special-function unit's ex2.approx and rcp.approx, as nvcc's
 * --use_fast_math and cuBLASLt's GELU epilogue do, in place of
 * evt_math.h's correctly rounded arithmetic.  Every other builtin, tanh
 * included, stays evt_math.h's.
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
#ifndef EVT_FAST_MATH_CUH
#define EVT_FAST_MATH_CUH

/* 2^x, relative error about 2^-22; 0 below -126, +inf from 128 on */
__device__ __forceinline__ float evtf_ex2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* 1/x within one ulp for normal results; 0 where 1/x is below 2^-126 */
__device__ __forceinline__ float evtf_rcp(float x)
{
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/*
 * e^x = 2^(x log2 e): x log2 e is carried as hi + lo (lo the product's
 * rounding error, from an fma, plus x times log2 e's own), so that the
 * exponent's rounding, which |x| up to 88 would amplify to 40 ulp, costs
 * nothing: 2^hi (1 + lo ln2).
 */
__device__ __forceinline__ float evt_fast_exp(float x)
{
    const float l2e = 1.44269502f, l2e_lo = 1.92596299e-08f; /* log2 e = l2e + l2e_lo */
    const float hi = __fmul_rn(x, l2e);
    const float lo = __fmaf_rn(x, l2e_lo, __fmaf_rn(x, l2e, -hi));
    const float e = evtf_ex2(hi);
    /* from |hi| = 128 on e is 0 or +inf already, and lo (up to half an ulp
     * of hi) could make inf (1 + lo ln2) a NaN; a NaN x fails the test too */
    return fabsf(hi) < 128.0f ? __fmaf_rn(e, __fmul_rn(lo, 0.693147182f), e) : e;
}

/* 1 / (1 + 2^(-x log2 e)): 1 at +inf, 0 at -inf and below about -87 */
__device__ __forceinline__ float evt_fast_sigmoid(float x)
{
    return evtf_rcp(__fadd_rn(1.0f, evtf_ex2(__fmul_rn(x, -1.44269502f))));
}

/*
 * x * sigmoid(x).  Below about -87 the sigmoid is 0 and the product -0;
 * at -inf it would be -inf * 0: max(x, -2^100) keeps the -0 (and a NaN x
 * has already made the sigmoid NaN).
 */
__device__ __forceinline__ float evt_fast_silu(float x)
{
    return __fmul_rn(fmaxf(x, -1.26765060e30f), evt_fast_sigmoid(x));
}

/*
 * 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), is x sigmoid(2u),
 * and 2u log2 e = x (c1 + c3 x^2): one ex2 and one rcp, no cancellation
 * (tanh.approx would be one MUFU fewer, but 1 + tanh(u) cancels for
 * negative x and its 2^-11 error becomes the result's).  x^2 overflowing
 * makes the exponent +-inf and the result x or -0, as it should be.
 */
__device__ __forceinline__ float evt_fast_gelu_tanh(float x)
{
    const float c1 = -2.30220819f;  /* -2 sqrt(2/pi) log2 e */
    const float c3 = -0.102943242f; /* c1 0.044715 */
    const float w = __fmul_rn(x, __fmaf_rn(c3, __fmul_rn(x, x), c1));
    return __fmul_rn(fmaxf(x, -1.26765060e30f), evtf_rcp(__fadd_rn(1.0f, evtf_ex2(w))));
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
__device__ __forceinline__ float evt_fast_gelu(float x)
{
    const float z = __fmul_rn(fabsf(x), 0.707106781f);
    const float t = evtf_rcp(__fmaf_rn(z, 0.5f, 1.0f));
    float p = 0.17087277f;
    p = __fmaf_rn(p, t, -0.82215223f);
    p = __fmaf_rn(p, t, 1.48851587f);
    p = __fmaf_rn(p, t, -1.13520398f);
    p = __fmaf_rn(p, t, 0.27886807f);
    p = __fmaf_rn(p, t, -0.18628806f);
    p = __fmaf_rn(p, t, 0.09678418f);
    p = __fmaf_rn(p, t, 0.37409196f);
    p = __fmaf_rn(p, t, 1.00002368f);
    const float hx = __fmul_rn(0.5f, x);
    const float arg = __fmaf_rn(-hx, x, __fmaf_rn(t, p, -1.26551223f));
    const float q = __fmul_rn(__fmul_rn(t, evtf_ex2(__fmul_rn(arg, 1.44269502f))),
                              fminf(fmaxf(hx, -1.26765060e30f), 1.26765060e30f));
    return x <= 0.0f ? q : __fsub_rn(x, q);
}

#endif
