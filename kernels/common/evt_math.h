/*
 * evt_math.h - the f32 arithmetic of every .evt builtin and every element
 * conversion, written once for both sides of the project:
 *
 *   - the CPU reference interpreter includes it as C11 (interp/interp.c);
 *   - the GPU epilogue includes it as CUDA C++ through NVRTC, which has no
 *     include paths, so under __CUDACC__ / __CUDACC_RTC__ it includes nothing.
 *
 * The point is that both give BIT-IDENTICAL results for every non-NaN
 * value.  Every function is built from correctly rounded IEEE operations
 * alone (+ - * / sqrt and fma, each spelled out through evt_add, evt_mul,
 * ..., evt_fma) and from bit manipulation; no libm transcendental is used on
 * either side.  Two things the compiler must not do:
 *   - contract a*b+c into an fma: in CUDA the helpers are __fadd_rn,
 *     __fmul_rn, ... which never contract; in C compile with
 *     -ffp-contract=off (GCC's default in ISO mode -std=c11; clang obeys the
 *     pragma below);
 *   - reassociate or assume no NaN (-ffast-math): refused below.
 *
 * NaN: every builtin returns a NaN for a NaN argument (as PyTorch does), but
 * the NaN's sign and payload are unspecified (x86 keeps payloads, NVIDIA
 * GPUs make 0x7fffffff) except where a function says otherwise.  Stores
 * (evt_store_*) canonicalise, so stored results are bit-identical too.
 *
 * Accuracy against the correctly rounded result (see docs/interpreter.md
 * for the measured table): exp, log, tanh, sigmoid, silu, gelu, gelu_tanh
 * are within a few ulp over the whole f32 range, subnormal results
 * included; the rest are exact or one rounding.
 */
#ifndef EVT_MATH_H
#define EVT_MATH_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define EVT_MATH_CUDA 1
#define EVT_MATH_FN __device__ __forceinline__
#else
#include <float.h>
#include <math.h>
#include <string.h>
#define EVT_MATH_FN static inline
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "evt_math.h needs IEEE arithmetic: do not compile it with -ffast-math"
#endif
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "evt_math.h needs float expressions evaluated in float (FLT_EVAL_METHOD 0, e.g. SSE2)"
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
_Static_assert(sizeof(unsigned int) == 4 && sizeof(float) == 4, "32-bit float and unsigned int");
#endif

/* ---- the correctly rounded operations everything else is built from ---- */

EVT_MATH_FN unsigned int evt_f32_bits(float x)
{
#ifdef EVT_MATH_CUDA
    return __float_as_uint(x);
#else
    unsigned int u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

EVT_MATH_FN float evt_bits_f32(unsigned int u)
{
#ifdef EVT_MATH_CUDA
    return __uint_as_float(u);
#else
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

EVT_MATH_FN float evt_add(float a, float b)
{
#ifdef EVT_MATH_CUDA
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}

EVT_MATH_FN float evt_sub(float a, float b)
{
#ifdef EVT_MATH_CUDA
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}

EVT_MATH_FN float evt_mul(float a, float b)
{
#ifdef EVT_MATH_CUDA
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

EVT_MATH_FN float evt_div(float a, float b)
{
#ifdef EVT_MATH_CUDA
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}

/* a*b + c with one rounding. */
EVT_MATH_FN float evt_fma(float a, float b, float c)
{
#ifdef EVT_MATH_CUDA
    return __fmaf_rn(a, b, c);
#else
    return fmaf(a, b, c);
#endif
}

/* Correctly rounded: sqrt(-0) = -0, sqrt(x < 0) = NaN. */
EVT_MATH_FN float evt_sqrt(float x)
{
#ifdef EVT_MATH_CUDA
    return __fsqrt_rn(x);
#else
    return sqrtf(x);
#endif
}

/* -x and |x|: the sign bit alone (a NaN's sign is unspecified).  On the GPU
 * as float operations, which fold into the next instruction's operand. */
EVT_MATH_FN float evt_neg(float x)
{
#ifdef EVT_MATH_CUDA
    return -x;
#else
    return evt_bits_f32(evt_f32_bits(x) ^ 0x80000000u);
#endif
}

EVT_MATH_FN float evt_abs(float x)
{
#ifdef EVT_MATH_CUDA
    return fabsf(x);
#else
    return evt_bits_f32(evt_f32_bits(x) & 0x7fffffffu);
#endif
}

/*
 * c ? a : b.  On the GPU a select of the bits, in inline PTX: compiled from
 * C, `c ? 1.0f : -0.0f` became `selp.f32 d, 1.0, -0.0, p`, and the code
 * ptxas made of that (CUDA 13.0, sm_80 and sm_90a code on an H200) gave +0
 * where p was false, a lost sign that tests/gpu/diff_fuzz found
 * (docs/codegen.md).  NVVM turns a select of __float_as_uint bits back into
 * that selp.f32; it cannot see into the asm.
 */
EVT_MATH_FN float evt_select(int c, float a, float b)
{
#ifdef EVT_MATH_CUDA
    unsigned int d;
    asm("{\n.reg .pred p;\nsetp.ne.b32 p, %3, 0;\nselp.b32 %0, %1, %2, p;\n}"
        : "=r"(d)
        : "r"(__float_as_uint(a)), "r"(__float_as_uint(b)), "r"(c));
    return __uint_as_float(d);
#else
    return c ? a : b;
#endif
}

EVT_MATH_FN int evt_isnan(float x)
{
    return (evt_f32_bits(x) & 0x7fffffffu) > 0x7f800000u;
}

/* The canonical NaN: what NVIDIA GPUs produce, and what every store writes. */
EVT_MATH_FN float evt_nan(void)
{
    return evt_bits_f32(0x7fffffffu);
}

EVT_MATH_FN float evt_inf(void)
{
    return evt_bits_f32(0x7f800000u);
}

/* ---- internal helpers (evtm_): exact scaling, rounding, exp's core ----- */

/* x rounded to an integral value, ties to even; NaN and |x| >= 2^23 unchanged. */
EVT_MATH_FN float evtm_rint(float x)
{
    return rintf(x); /* exact (round to nearest even is never changed); one cvt.rni on the GPU */
}

/*
 * min that returns the other operand for a NaN (IEEE minNum, one FMNMX on
 * the GPU) when b is not NaN; for clamping to nonzero bounds b, where the
 * sign of a zero cannot matter.  A NaN argument is clamped to the bound, so
 * the caller must make sure a NaN input still gives a NaN result.
 */
EVT_MATH_FN float evtm_fmin(float a, float b)
{
    return a < b ? a : b;
}

/*
 * max(a, b) and min(a, b) that keep a NaN a (for a bound b that is not
 * NaN): clamps that let a NaN argument run through to the result, so no
 * NaN test and select is needed at the end.  One max.NaN / min.NaN on the
 * GPU (sm_80 on).  For a and b both zeros the sign of the result may differ
 * between the sides (the GPU orders -0 below +0): with b = 0 the caller
 * makes it not matter (relu adds +0).
 */
EVT_MATH_FN float evtm_fmax_nan(float a, float b)
{
#ifdef EVT_MATH_CUDA
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
#else
    return a < b ? b : a;
#endif
}

EVT_MATH_FN float evtm_fmin_nan(float a, float b)
{
#ifdef EVT_MATH_CUDA
    float r;
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
#else
    return a > b ? b : a;
#endif
}

/*
 * The exp reduction the builtins share: to take e^h as 2^n e^r they reduce
 * h the Cody-Waite way: j = h/ln2 + 1.5 2^23 rounded (one fma) is
 * 1.5 2^23 + n with n = rint(h/ln2) in its low bits, so n = j - 1.5 2^23
 * is exact and bits(j) << 23 is n in a float's exponent field, ready to be
 * added to one; r = h - n ln2 with ln2 in two parts, n ln2_hi exact (ln2_hi
 * has 15 significant bits).  e^r - 1 = r + r^2 q(r), q a minimax fit; the
 * sum 1 + t is left to the caller: a product v (1 + t) is fma(v, t, v), one
 * rounding fewer.
 */

/*
 * e^r - 1 for |r| <= 0.3467 as r + r^2 q(r), q a degree-4 minimax fit
 * (relative error of e^r 3.7e-9, about 0.06 ulp: enough for a result
 * that is rounded a few times more), in Estrin's form (four dependent
 * operations instead of five).
 */
EVT_MATH_FN float evtm_expm1_p6(float r)
{
    float r2 = evt_mul(r, r);
    float lo = evt_fma(0.166665211f, r, 0.49999994f);
    float hi = evt_fma(0.0083687352f, r, 0.041668389f);
    float q = evt_fma(evt_fma(0.00138145604f, r2, hi), r2, lo);
    return evt_fma(r2, q, r);
}

/*
 * x * sigmoid(w), the shared core of sigmoid, silu and gelu_tanh, from
 * e^-|w| = 2^n e^r as the caller reduced it the Cody-Waite way (j =
 * 1.5 2^23 + n from the rounding fma, r = -|w| - n ln2; the exp reduction
 * says how) and up = (w > 0).  With e = e^-|w| in (0, 1] and d = 1 + e,
 * sigmoid(w) is 1/d when up and e/d otherwise, so one exp of a
 * nonpositive argument serves both sides, and no branch: both numerators
 * are computed and one is selected.
 *
 * The numerator is scaled by 2^96: x when up, x 2^(n+96) (1 + t)
 * otherwise, with 2^(n+96) a normal float for n >= -222 (the callers keep
 * n >= -184), so the quotient is computed on normal floats and the final
 * product by -(-2^-96) rounds a subnormal result once.  2^n itself is 0 or
 * subnormal below n = -126, where d = 1 either way.  d = 1 + e is carried
 * with its rounding error dl (fast two-sum, 1 >= e): near w = -17 the
 * result is about e and d's rounding alone would be half an ulp of it.
 * 1/d, d in [1, 2], is a quadratic minimax seed (relative error 1.0e-2)
 * and one Newton step (1.0e-4), which the correction of the quotient
 * squares; all of it is kept negated (ny = -1/d, nq = -q) so that the
 * correction's sum keeps the sign of a zero: x = -0 gives -0.  Needs x
 * finite, |x| <= 2^30; NaN in r or x gives NaN.
 */
EVT_MATH_FN float evtm_mul_sigmoid(float x, int up, float j, float r)
{
    float t = evtm_expm1_p6(r);
    float s = evt_bits_f32((evt_f32_bits(j) << 23) + (223u << 23)); /* 2^(n+96) */
    float sn = evt_mul(s, 1.26217745e-29f);                          /* 2^n */
    float e = evt_fma(sn, t, sn);
    float d = evt_add(1.0f, e);
    float dl = evt_add(evt_sub(1.0f, d), e);
    /* -1/d: the seed as a polynomial in e, which is ready before d */
    float ny = evt_fma(evt_fma(-0.323232323f, e, 0.808080808f), e, -0.989898990f);
    ny = evt_fma(ny, evt_fma(d, ny, 1.0f), ny);
    float xs = evt_mul(x, up ? 79228162514264337593543950336.0f : s); /* x 2^96 or x 2^(n+96) */
    float num = evt_fma(xs, up ? 0.0f : t, xs); /* a select, not a branch */
    float nq = evt_mul(num, ny);
    float res = evt_fma(dl, nq, evt_fma(d, nq, num)); /* num - (d + dl) q */
    nq = evt_fma(res, ny, nq);
    return evt_mul(nq, -1.26217745e-29f);
}

/* ---- builtins ------------------------------------------------------- */

/* max(x, 0): +0 for x <= 0 (also for -0, matching max's -0 < +0 rule).
 * One instruction on the GPU instead of a NaN test, a compare and two
 * selects: max.NaN gives the canonical NaN for NaN, and +0 for -0 (it
 * orders -0 below +0).  The C build's max may give -0 for -0, which + 0
 * makes +0 (an add on the GPU too was one instruction an element more in
 * a bias + ReLU epilogue whose issue rate is its limit, docs/sm90.md). */
EVT_MATH_FN float evt_relu(float x)
{
#ifdef EVT_MATH_CUDA
    return evtm_fmax_nan(x, 0.0f);
#else
    return evt_add(evtm_fmax_nan(x, 0.0f), 0.0f);
#endif
}

/* x >= 0 ? x : s*x, as the language defines it (so leaky_relu(-0, s) = -0). */
EVT_MATH_FN float evt_leaky_relu(float x, float s)
{
    return x >= 0.0f ? x : evt_mul(s, x);
}

/*
 * max and min propagate NaN and are commutative bit for bit: any NaN
 * argument gives the canonical NaN 0x7fffffff, and -0 orders below +0.
 */
EVT_MATH_FN float evt_max(float a, float b)
{
#ifdef EVT_MATH_CUDA
    return evtm_fmax_nan(a, b); /* max.NaN: the canonical NaN, -0 below +0 */
#else
    if (evt_isnan(a) || evt_isnan(b))
        return evt_nan();
    if (a == b) /* equal values, or +0 and -0: +0 wins */
        return evt_bits_f32(evt_f32_bits(a) & evt_f32_bits(b));
    return a > b ? a : b;
#endif
}

EVT_MATH_FN float evt_min(float a, float b)
{
#ifdef EVT_MATH_CUDA
    return evtm_fmin_nan(a, b); /* min.NaN: the canonical NaN, -0 below +0 */
#else
    if (evt_isnan(a) || evt_isnan(b))
        return evt_nan();
    if (a == b) /* equal values, or +0 and -0: -0 wins */
        return evt_bits_f32(evt_f32_bits(a) | evt_f32_bits(b));
    return a < b ? a : b;
#endif
}

/* min(max(x, lo), hi): NaN if any argument is NaN; hi when lo > hi. */
EVT_MATH_FN float evt_clamp(float x, float lo, float hi)
{
    return evt_min(evt_max(x, lo), hi);
}

/*
 * exp(x): +0 below -103.97 (subnormals in between), +inf from 88.7228394
 * (0x42b17218) on.  x is clamped to [-104, 89] by clamps that keep a NaN,
 * which then runs through the arithmetic; at the bounds the result already
 * rounds to 0 and inf.  e^x = 2^n (1 + t) the Cody-Waite way (the exp
 * reduction above), t = evtm_expm1_p6(r).  n is in [-150, 128], too wide
 * for one normal power of two, so 2^n = 2^(n -+ 64) 2^(+-64), the side
 * chosen by x's sign: fma(s, t, s) rounds 2^(n -+ 64) (1 + t) once and the
 * product by 2^(+-64) is exact, overflows to inf, or rounds a subnormal
 * result onto its grid (so a subnormal result is rounded twice, as with
 * the previous method: 1 + t, then the scaling).  No branch.  Over all
 * 2^32 inputs: at most 1.02 ulp (at -27.377993), mean 0.034 ulp; the same
 * inputs overflow as with the previous method.  PTX (--fmad=false): 19 arithmetic
 * instructions, dependent chain 12, no branch (the previous method: 35
 * and four branches).
 */
EVT_MATH_FN float evt_exp(float x)
{
    float h = evtm_fmin_nan(evtm_fmax_nan(x, -104.0f), 89.0f);
    float j = evt_fma(h, 1.44269502f, 12582912.0f);
    float n = evt_sub(j, 12582912.0f);
    float r = evt_fma(n, -0.693145752f, h);
    r = evt_fma(n, -1.42860677e-06f, r);
    float t = evtm_expm1_p6(r);
    int neg = x < 0.0f;
    /* 2^(n + 64) for x < 0, else 2^(n - 64): j's low bits hold n, so its bits
     * shifted up by 23 are n's exponent field */
    float s = evt_bits_f32((evt_f32_bits(j) << 23) + (neg ? (191u << 23) : (63u << 23)));
    return evt_mul(evt_fma(s, t, s), neg ? 5.42101086e-20f : 1.84467441e+19f);
}

/*
 * log(x) = k ln2 + log1p(f), x = 2^k (1 + f), 1 + f in [sqrt(1/2),
 * sqrt(2)), taken from the bits without a branch: subnormal x is first
 * scaled by 2^23 (a select), then iy = bits(x) - bits(sqrt(1/2)) + bits(1)
 * holds k + 127 above its low 23 bits, which, added to bits(sqrt(1/2)),
 * give 1 + f's bits; f = (1 + f) - 1 is exact.  k becomes a float from
 * its bits (k + 127 + 2^23 as an integer is a float's bits).
 * log1p(f) = f + f^2 Q(f), Q a degree-8 minimax fit (relative error of
 * log1p 4.2e-9) in Estrin's form; no division.  k ln2 joins in two fma,
 * ln2 as its f32 value (exact product inside the fma) and the 1.9e-9
 * tail.  Three selects give log(+inf) = +inf, log(+-0) = -inf and NaN for
 * x < 0 and NaN (-inf through evt_select: it is a constant with the sign
 * bit set).  Over all 2^32 inputs: at most 0.994 ulp (at 1.56013143),
 * mean 0.25 ulp over the positive inputs.  PTX (--fmad=false): 32
 * arithmetic instructions, dependent chain 16, no branch (the previous
 * method, fdlibm's s = f/(2 + f) through an fma-only division: 44 and nine branches).
 */
EVT_MATH_FN float evt_log(float x)
{
    int sub = evt_f32_bits(x) < 0x00800000u; /* +0 and +subnormals (and -0) */
    unsigned int u = evt_f32_bits(evt_mul(x, sub ? 8388608.0f : 1.0f));
    unsigned int iy = u + (0x3f800000u - 0x3f3504f3u);
    float z = evt_bits_f32((iy & 0x007fffffu) + 0x3f3504f3u);
    float fk = evt_sub(evt_bits_f32((iy >> 23) + 0x4b000000u),
                       sub ? 8388758.0f : 8388735.0f); /* 2^23 + 127 (+ 23) */
    float f = evt_sub(z, 1.0f);
    float f2 = evt_mul(f, f);
    float f4 = evt_mul(f2, f2);
    float q01 = evt_fma(0.333333254f, f, -0.499999881f);
    float q23 = evt_fma(0.20002f, f, -0.250016004f);
    float q45 = evt_fma(0.141812161f, f, -0.166087613f);
    float q67 = evt_fma(0.129085496f, f, -0.132447109f);
    float q03 = evt_fma(q23, f2, q01);
    float q48 = evt_fma(evt_fma(-0.0762285888f, f2, q67), f2, q45);
    float q = evt_fma(q48, f4, q03);
    float lp = evt_fma(f2, q, f);
    float r = evt_fma(fk, 0.693147182f, evt_fma(fk, -1.90465421e-09f, lp));
    r = x < evt_inf() ? r : x;                                  /* +inf, NaN */
    float sp = evt_select(x == 0.0f, evt_neg(evt_inf()), evt_nan()); /* +-0, x < 0 */
    return x > 0.0f ? r : sp;
}

/* 1/sqrt(x) with two roundings: rsqrt(+0) = +inf, rsqrt(-0) = -inf. */
EVT_MATH_FN float evt_rsqrt(float x)
{
    return evt_div(1.0f, evt_sqrt(x));
}

/*
 * tanh(x) = sign(x) (1 - e)/(1 + e), e = e^-2a, a = min(|x|, 9.5) (from
 * 9.01 on the result rounds to 1); one path for every x, no select
 * between methods.  e = 2^n (1 + t) the Cody-Waite way (the exp
 * reduction above; -2a - n ln2_hi is exact, so r rounds once), and the
 * numerator is taken as 1 - e = fma(-2^n, t, 1 - 2^n), 1 - 2^n exact
 * (n >= -24; below it the result is 1 either way), so there is no
 * cancellation near 0: for small a it is -t = 2a - ..., and tanh(x) = x
 * for tiny x, subnormals included.  The quotient num/d, d = 2 - num
 * carried with its rounding error dl (fast two-sum), is sigmoid's: 1/d,
 * d in (1, 2], from a quadratic seed in num (relative error 1.0e-2) and
 * one Newton step, then one correction step.  num is +0 for x = +-0, so
 * the quotient is +0 and x's sign bit, ORed in, makes tanh(-0) = -0; NaN
 * runs through the clamp and the arithmetic.  num is carried with its
 * rounding error numl (to within numl's own rounding); on every 101st
 * input the error reached 1.94 ulp without numl, 1.95 without dl.  Over all 2^32 inputs: at most 1.59
 * ulp (at 0.111331105, where n = 0 and t's own rounding counts), mean
 * 0.028 ulp.  PTX (--fmad=false): 33 arithmetic instructions besides
 * neg/abs, dependent chain 21 (the previous method, a polynomial below
 * 0.625 selected against 1 - 2e/(1 + e): 38 and 23).
 */
EVT_MATH_FN float evt_tanh(float x)
{
    float ac = evtm_fmin_nan(evt_abs(x), 9.5f);
    float j = evt_fma(ac, -2.88539004f, 12582912.0f);
    float n = evt_sub(j, 12582912.0f);
    float r = evt_fma(ac, -2.0f, evt_mul(n, -0.693145752f)); /* exact */
    r = evt_fma(n, -1.42860677e-06f, r);
    float t = evtm_expm1_p6(r);
    /* 2^n: j's low bits hold n, so its bits shifted up by 23 are n's exponent field */
    float s = evt_bits_f32((evt_f32_bits(j) << 23) + (127u << 23));
    float s1 = evt_sub(1.0f, s), p1 = evt_add(1.0f, s);
    float num = evt_fma(evt_neg(s), t, s1); /* 1 - e, in [0, 1) */
    float numl = evt_fma(evt_neg(s), t, evt_sub(s1, num));
    float d = evt_fma(s, t, p1); /* 1 + e, in (1, 2] */
    float dl = evt_fma(s, t, evt_sub(p1, d));
    float y = evt_fma(evt_fma(0.323232323f, num, 0.161616162f), num, 0.505050505f);
    y = evt_fma(y, evt_fma(evt_neg(d), y, 1.0f), y);
    float q = evt_mul(num, y);
    float res = evt_add(evt_fma(evt_neg(dl), q, evt_fma(evt_neg(d), q, num)), numl);
    q = evt_fma(res, y, q);
    return evt_bits_f32(evt_f32_bits(q) | (evt_f32_bits(x) & 0x80000000u));
}

/*
 * e^-|x| reduced for evtm_mul_sigmoid: |x| is clamped to 120 (e^-120 x
 * rounds to 0 for every x the callers pass; n >= -174); a NaN runs
 * through.
 */
EVT_MATH_FN float evtm_sigmoid_reduce(float x, float *j)
{
    float a = evtm_fmax_nan(evt_bits_f32(evt_f32_bits(x) | 0x80000000u), -120.0f); /* -|x| */
    *j = evt_fma(a, 1.44269502f, 12582912.0f);
    float n = evt_sub(*j, 12582912.0f);
    float r = evt_fma(n, -0.693145752f, a);
    return evt_fma(n, -1.42860677e-06f, r);
}

/* 1 / (1 + exp(-x)); sigmoid(-inf) = +0, sigmoid(+inf) = 1. */
EVT_MATH_FN float evt_sigmoid(float x)
{
    float j;
    float r = evtm_sigmoid_reduce(x, &j);
    return evtm_mul_sigmoid(1.0f, x > 0.0f, j, r);
}

/*
 * x * sigmoid(x); silu(-inf) = -0, silu(+inf) = +inf.  On x clamped to
 * [-120, 20]: from 20 up the result rounds to x (e^-20 < 2^-28), which is
 * selected; below -120 it rounds to -0 (NaN runs through).
 */
EVT_MATH_FN float evt_silu(float x)
{
    float xc = evtm_fmin_nan(evtm_fmax_nan(x, -120.0f), 20.0f);
    float j;
    float r = evtm_sigmoid_reduce(xc, &j);
    float m = evtm_mul_sigmoid(xc, xc > 0.0f, j, r);
    return x > 20.0f ? x : m;
}

/*
 * 0.5 x (1 + erf(x/sqrt2)) = x Phi(x), computed without cancellation as
 * x - a Q(a) for x > 0 and -a Q(a) for x < 0, a = min(|x|, 14.5), with
 * Q(a) = Phi(-a) = exp(-a^2/2) R(a).  One path for every x (no select
 * between methods, no small-|x| polynomial), built to keep the dependent
 * chain short:
 *   - exp(-a^2/2) = 2^n (1 + t): -a^2/2 is split exactly into hn + ln; r =
 *     hn - n ln2 takes ln2's f32 value inside one fma (the product is exact
 *     there), and its 1.9e-9 tail joins ln in a second fma off the chain;
 *     t = r + r^2 q(r), q a degree-4 minimax fit (relative error 3e-9).
 *   - R(a) = u (1/2 + s(u - 1/8)), u = 1/(a+2), s a degree-11 minimax fit
 *     (relative error of R 3.3e-9, relaxed in proportion where the result
 *     is subnormal; the code holds 2s's coefficients).  The 1/2 is split off because u/2 is exact: u (1/2 + s)
 *     is one fma rounding once, and since |s| < 1/2 + s it weights s's own
 *     rounding by at most a half.  u - 1/8 is exact for every u in
 *     [1/16, 1/2], so s sees u itself.  s runs as even and odd halves in
 *     (u - 1/8)^2, two chains of five fma instead of one of eleven.
 *   - u: d = a + 2 rounds, but d - 2 and so its error dl are exact; y = 1/d
 *     from the seed 0xfef311c3 - bits(d) (within 5.1%), one step y (1 + e +
 *     e^2) (within 1.3e-4) and one Newton step.  u is not carried in
 *     double-f32: the residual e = 1 - (d + dl) y, exact far below y's ulp,
 *     corrects R to first order, R(1/(d + dl)) = R(y) (1 + kappa e) with
 *     kappa = dlog R / dlog u in [1.12, 1.61]; u kappa S e (S = 1/2 + s)
 *     enters s's constant term, kappa S a linear fit in y within 3.7%, so
 *     neither d's rounding nor y's counts.  At a = 0, y = 1/2 exactly and
 *     1/2 + s rounds to 1, so gelu(x) = x/2 rounded once for tiny x.
 *   - Scaling: y is -u 2^-65 (d is a + 2 scaled by 2^65 and the seed
 *     carries the sign bit), so the fma gives -R 2^-64 directly; a is
 *     scaled by 2^(n+64), a normal float for every n here (n >= -152), which
 *     is exact, and the last product is the only rounding of a subnormal
 *     result.
 *   - The result is x < 0 ? -aQ : x + (-aQ): -0 for x = -0 and where -aQ
 *     underflows (x <= -14.4, -inf), +0 for +0, x for x >= 5.4 and +inf;
 *     NaN becomes a = 14.5 in the clamp and x + (-aQ) propagates it.
 * Over all 2^32 inputs: at most 2.50 ulp (at -0.14027938), mean 0.046 ulp.
 * On the GPU (PTX, --fmad=false): 50 arithmetic instructions besides
 * neg/abs operand modifiers, longest dependent chain 20 (the previous
 * method, u in double-f32 from three Newton steps and a degree-9 Horner
 * chain: 66 and 33).
 */
/* gelu's and gelu16's shared steps.  The split of -a^2/2 into hn + ln
 * (exact) and the exp's reduction: j holds n = rint(hn / ln2) in its low
 * bits; returns hn. */
EVT_MATH_FN float evtm_gelu_split(float ac, float *ln, float *j)
{
    float am = evt_mul(ac, -0.5f);
    float hn = evt_mul(ac, am);
    *ln = evt_fma(ac, am, evt_neg(hn));
    *j = evt_fma(hn, 1.44269502f, 12582912.0f);
    return hn;
}

/* 2^65 and 2^66: the reciprocal's scale (evtm_gelu_recip) */
#define EVTM_P65 3.68934881e+19f
#define EVTM_P66 7.37869763e+19f

/* y = -u 2^-65 to within 1.7e-8 for d = (a + 2) 2^65 (rounded; *d set):
 * the seed, the cubic step and one Newton step. */
EVT_MATH_FN float evtm_gelu_recip(float ac, float *d)
{
    *d = evt_fma(ac, EVTM_P65, EVTM_P66);
    float y = evt_bits_f32(0xfef311c3u - evt_f32_bits(*d));
    float e = evt_fma(*d, y, 1.0f);
    y = evt_fma(y, evt_fma(e, e, e), y);
    return evt_fma(y, evt_fma(*d, y, 1.0f), y);
}

/* x Phi(x) from exp(-a^2/2) = 2^n (1 + t) (n in j's low bits) and
 * w = -R(a) 2^-64: -a Q(a) for x < 0, x - a Q(a) otherwise. */
EVT_MATH_FN float evtm_gelu_finish(float x, float ac, float j, float t, float w)
{
    /* 2^(n+64): j's low bits hold n, so its bits shifted up by 23 are n's exponent field */
    float scale = evt_bits_f32((evt_f32_bits(j) << 23) + (191u << 23));
    float as = evt_mul(ac, scale);
    float nres = evt_mul(evt_fma(as, t, as), w); /* -a Q(a) */
    float pos = evt_add(x, nres);
    return x < 0.0f ? nres : pos;
}

EVT_MATH_FN float evt_gelu(float x)
{
    float ac = evtm_fmin(evt_abs(x), 14.5f); /* NaN too */
    /* exp(hn + ln) = 2^n (1 + t), hn + ln = -a^2/2 exactly: j as the exp reduction says */
    float ln, j;
    float hn = evtm_gelu_split(ac, &ln, &j);
    float n = evt_sub(j, 12582912.0f);
    float r = evt_add(evt_fma(n, -0.693147182f, hn), evt_fma(n, 1.90465421e-09f, ln));
    float q = 1.382071525e-03f;
    q = evt_fma(q, r, 8.368672803e-03f);
    q = evt_fma(q, r, 4.166826606e-02f);
    q = evt_fma(q, r, 1.666652113e-01f);
    q = evt_fma(q, r, 4.999999404e-01f);
    float t = evt_fma(evt_mul(r, r), q, r);
    /* y = -u 2^-65 for d = (a + 2) 2^65 + dl, dl exact (2^66 - d is) */
    float d;
    float y = evtm_gelu_recip(ac, &d);
    float dl = evt_fma(ac, EVTM_P65, evt_sub(EVTM_P66, d));
    float e = evt_fma(dl, y, evt_fma(d, y, 1.0f));
    /* 2S = 1 + 2s(v), v = u - 1/8 exact; 2 kappa S e joins the constant term */
    float c0 = evt_fma(e, evt_fma(-1.88167113e+20f, y, 0.714811981f), 0.0364690274f);
    float v = evt_fma(y, -EVTM_P65, -0.125f);
    float v2 = evt_mul(v, v);
    float se = -1078.32361f;
    se = evt_fma(se, v2, -207.532501f);
    se = evt_fma(se, v2, 43.5081177f);
    se = evt_fma(se, v2, -8.95786476f);
    se = evt_fma(se, v2, 2.36270714f);
    se = evt_fma(se, v2, c0);
    float so = 558.12677f;
    so = evt_fma(so, v2, 796.047485f);
    so = evt_fma(so, v2, -59.3082848f);
    so = evt_fma(so, v2, 6.13824129f);
    so = evt_fma(so, v2, -2.21716857f);
    so = evt_fma(so, v2, 2.22103548f);
    float w = evt_fma(y, evt_fma(v, so, se), y); /* -R(a) 2^-64 */
    return evtm_gelu_finish(x, ac, j, t, w);
}

/*
 * gelu for a value whose every use ends in a store of 16 bits or fewer
 * (f16, bf16, e4m3, e5m2; ir_func_narrow marks such calls IR_GELU16, so the
 * interpreter and the GPU compute the same bits).  evt_gelu's method with
 * the parts that only serve f32 accuracy dropped: the exp's q of degree 3
 * (relative error 1.1e-7) and ln2's tail; u = 1/(a+2) from the seed, the
 * cubic step and one Newton step, without the residual's first-order
 * correction of R (d's rounding, 2^-24, stays below the budget); R's
 * polynomial of degree 8 (2.1e-7) instead of 11.  The split of a^2 stays:
 * without it the error grows to 4.4e-6 for x below -9.  Over every f32
 * input: relative error at most 7.0e-7 (2^-20.45, at -11.623136), and of
 * the results of |x| < 20 stored to f16, 2.6e-5 round the other way than
 * the exact value does (evt_gelu: 8.7e-6), to bf16 4.4e-5 (3.5e-6).
 * 40 arithmetic instructions against evt_gelu's 50 (the epilogue of a GELU
 * is issue-bound on them: docs/sm90.md).  Special values as evt_gelu.
 * The coefficients: bench/fit_gelu16.c.
 */
EVT_MATH_FN float evt_gelu16(float x)
{
    float ac = evtm_fmin(evt_abs(x), 14.5f); /* NaN too */
    float ln, j;
    float hn = evtm_gelu_split(ac, &ln, &j);
    float n = evt_sub(j, 12582912.0f);
    float r = evt_add(evt_fma(n, -0.693147182f, hn), ln);
    float q = 8.312684484e-03f;
    q = evt_fma(q, r, 4.189276323e-02f);
    q = evt_fma(q, r, 1.666712016e-01f);
    q = evt_fma(q, r, 4.999921322e-01f);
    float t = evt_fma(evt_mul(r, r), q, r);
    float d;
    float y = evtm_gelu_recip(ac, &d);
    /* 1 + P(v) = 2 R(a) / u, v = u - 1/8 exact */
    float v = evt_fma(y, -EVTM_P65, -0.125f);
    float v2 = evt_mul(v, v);
    float se = 6.593158722e+01f;
    se = evt_fma(se, v2, 4.113607407e+01f);
    se = evt_fma(se, v2, -9.023852348e+00f);
    se = evt_fma(se, v2, 2.363047123e+00f);
    se = evt_fma(se, v2, 3.646883368e-02f);
    float so = -9.588346100e+01f;
    so = evt_fma(so, v2, 7.248638630e+00f);
    so = evt_fma(so, v2, -2.221593618e+00f);
    so = evt_fma(so, v2, 2.221040726e+00f);
    float w = evt_fma(y, evt_fma(v, so, se), y); /* -R(a) 2^-64 */
    return evtm_gelu_finish(x, ac, j, t, w);
}

/*
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) = x sigmoid(w),
 * w = x P, P = k0 + k1 x^2, k0 = 2 sqrt(2/pi), k1 = 0.044715 k0.  For
 * negative x the result is about x exp(w) and |w| reaches 127, so w's
 * rounding error would be the result's: P is carried as ph + pl and w
 * never formed; the reduction r = -|x| P - n ln2 takes -|x| ph in one fma
 * (exact product, small result, so one rounding of about 2^-26) and
 * -|x| pl in another.  ph has no rounding error: k1 x^2 + 16 is rounded by
 * the fma onto the grid of 2^-19 (it is in [16, 32)), and k0's high part
 * k0h is on that grid, so ph = that + (k0h - 16) is exact; the fma's
 * rounding error is recovered by a second fma to within 2^-44.  x is
 * clamped to [-11.5, 10] (|w| <= 127, n >= -183): from 10 up the result
 * is x, which is selected, and below -11.5 it rounds to -0, so
 * gelu_tanh(-inf) = -0 and gelu_tanh(+inf) = +inf; a NaN runs through.
 */
EVT_MATH_FN float evt_gelu_tanh(float x)
{
    const float xc = evtm_fmin_nan(evtm_fmax_nan(x, -11.5f), 10.0f);
    const float k0h = 1.59576988f, k0l = -7.60596436e-07f; /* k0h: 2^-19 grid */
    const float k1h = 0.0713548139f, k1l = 2.39883247e-09f;
    float ax = evt_bits_f32(evt_f32_bits(xc) | 0x80000000u); /* -|x| */
    float x2h = evt_mul(xc, xc);
    float x2l = evt_fma(xc, xc, evt_neg(x2h));
    float ph = evt_add(evt_fma(k1h, x2h, 16.0f), k0h - 16.0f); /* exact sum */
    float c1 = evt_fma(k1h, x2h, evt_sub(k0h, ph));            /* the fma's rounding error */
    float pl = evt_add(evt_fma(k1h, x2l, c1), evt_fma(k1l, x2h, k0l));
    float j = evt_fma(evt_mul(ax, ph), 1.44269502f, 12582912.0f);
    float n = evt_sub(j, 12582912.0f);
    float r = evt_fma(ax, ph, evt_mul(n, -0.693145752f)); /* n ln2_hi exact */
    r = evt_fma(ax, pl, r);
    r = evt_fma(n, -1.42860677e-06f, r);
    float m = evtm_mul_sigmoid(xc, xc > 0.0f, j, r);
    return x > 10.0f ? x : m;
}

/*
 * x * clamp(x + 3, 0, 6) / 6: exactly -0 for x <= -3 (also -inf, where the
 * literal formula would give NaN) and exactly x for x >= 3.
 */
EVT_MATH_FN float evt_hardswish(float x)
{
    if (evt_isnan(x))
        return evt_add(x, x);
    if (x <= -3.0f)
        return -0.0f;
    if (x >= 3.0f)
        return x;
    return evt_div(evt_mul(x, evt_add(x, 3.0f)), 6.0f);
}

/* ---- loads: element type -> f32, exact (i32 rounds to nearest even) --- */

EVT_MATH_FN float evt_load_f32(float x)
{
    return x;
}

EVT_MATH_FN float evt_load_f16(unsigned short h)
{
    unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
    unsigned int e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1fu)
        return m ? evt_nan() : evt_bits_f32(sign | 0x7f800000u);
    if (e == 0) { /* zero or subnormal: m * 2^-24, exact */
        float v = evt_mul((float)(int)m, 5.96046448e-08f);
        return evt_bits_f32(sign | evt_f32_bits(v));
    }
    return evt_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

EVT_MATH_FN float evt_load_bf16(unsigned short h)
{
    float v = evt_bits_f32((unsigned int)h << 16);
    return evt_isnan(v) ? evt_nan() : v;
}

EVT_MATH_FN float evt_load_i8(signed char v)
{
    return (float)(int)v;
}

EVT_MATH_FN float evt_load_i32(int v)
{
    return (float)v;
}

/* e4m3fn: bias 7, no infinities, S.1111.111 is NaN, largest finite 448. */
EVT_MATH_FN float evt_load_e4m3(unsigned char c)
{
    unsigned int sign = (unsigned int)(c & 0x80u) << 24;
    unsigned int e = (c >> 3) & 0xfu, m = c & 0x7u;
    if (e == 0xfu && m == 0x7u)
        return evt_nan();
    if (e == 0) { /* zero or subnormal: m * 2^-9 */
        float v = evt_mul((float)(int)m, 1.953125e-03f);
        return evt_bits_f32(sign | evt_f32_bits(v));
    }
    return evt_bits_f32(sign | ((e + 120u) << 23) | (m << 20));
}

/* e5m2 is the high byte of an f16. */
EVT_MATH_FN float evt_load_e5m2(unsigned char c)
{
    return evt_load_f16((unsigned short)((unsigned int)c << 8));
}

/* ---- stores: f32 -> element type, round to nearest even ------------- */

/* f32 stores only canonicalise NaN to 0x7fffffff. */
EVT_MATH_FN float evt_store_f32(float x)
{
    return evt_isnan(x) ? evt_nan() : x;
}

/* f16: overflow gives +-inf (from 65520 on), NaN gives 0x7fff. */
EVT_MATH_FN unsigned short evt_store_f16(float x)
{
    unsigned int u = evt_f32_bits(x);
    unsigned int sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return 0x7fffu;
    if (a >= 0x477ff000u) /* 65520 = 65504 + half an ulp: rounds to inf */
        return (unsigned short)(sign | 0x7c00u);
    if (a >= 0x38800000u) { /* normal: rebias 127 -> 15, round 23 -> 10 bits */
        unsigned int r = a - 0x38000000u;
        r += 0xfffu + ((r >> 13) & 1u);
        return (unsigned short)(sign | (r >> 13));
    }
    /* subnormal or zero: count units of 2^-24; 1024 units is the smallest normal */
    float units = evtm_rint(evt_mul(evt_bits_f32(a), 16777216.0f));
    return (unsigned short)(sign | (unsigned int)(int)units);
}

/* bf16: overflow gives +-inf, NaN gives 0x7fff, subnormals round like normals. */
EVT_MATH_FN unsigned short evt_store_bf16(float x)
{
    unsigned int u = evt_f32_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return 0x7fffu;
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}

/* i8: saturates to [-128, 127]; NaN gives 0. */
EVT_MATH_FN signed char evt_store_i8(float x)
{
    if (evt_isnan(x))
        return 0;
    float c = x < -128.0f ? -128.0f : x > 127.0f ? 127.0f : x;
    return (signed char)(int)evtm_rint(c);
}

/* i32: saturates to [-2^31, 2^31 - 1]; NaN gives 0. */
EVT_MATH_FN int evt_store_i32(float x)
{
    if (evt_isnan(x))
        return 0;
    if (x >= 2147483648.0f)
        return 2147483647;
    if (x <= -2147483648.0f)
        return -2147483647 - 1;
    return (int)evtm_rint(x);
}

/* e4m3fn: saturates to +-448 (infinities too); NaN gives 0x7f. */
EVT_MATH_FN unsigned char evt_store_e4m3(float x)
{
    unsigned int u = evt_f32_bits(x);
    unsigned int sign = (u >> 24) & 0x80u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return 0x7fu;
    if (a >= 0x43e00000u) /* 448 */
        return (unsigned char)(sign | 0x7eu);
    if (a >= 0x3c800000u) { /* normal (>= 2^-6): rebias 127 -> 7, round 23 -> 3 bits */
        unsigned int r = a - 0x3c000000u;
        r += 0x7ffffu + ((r >> 20) & 1u);
        return (unsigned char)(sign | (r >> 20));
    }
    /* subnormal or zero: count units of 2^-9; 8 units is the smallest normal */
    float units = evtm_rint(evt_mul(evt_bits_f32(a), 512.0f));
    return (unsigned char)(sign | (unsigned int)(int)units);
}

/* e5m2: saturates to +-57344 (infinities too); NaN gives 0x7f. */
EVT_MATH_FN unsigned char evt_store_e5m2(float x)
{
    unsigned int u = evt_f32_bits(x);
    unsigned int sign = (u >> 24) & 0x80u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u)
        return 0x7fu;
    if (a >= 0x47600000u) /* 57344 */
        return (unsigned char)(sign | 0x7bu);
    if (a >= 0x38800000u) { /* normal (>= 2^-14): rebias 127 -> 15, round 23 -> 2 bits */
        unsigned int r = a - 0x38000000u;
        r += 0xfffffu + ((r >> 21) & 1u);
        return (unsigned char)(sign | (r >> 21));
    }
    /* subnormal or zero: count units of 2^-16; 4 units is the smallest normal */
    float units = evtm_rint(evt_mul(evt_bits_f32(a), 65536.0f));
    return (unsigned char)(sign | (unsigned int)(int)units);
}

#endif /* EVT_MATH_H */
