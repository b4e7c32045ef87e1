/* test_check.c - the verification policy (evt_check_*): tolerances per type and
 * reduction, the floor, ulps across zero, NaN and infinities, the verdict's
 * counts and first bad value, and the rows a check covers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <evt/evt.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "module_fixture.h"

/* Stores ref (the f64 reference) as got of type e and checks them. */
static evt_check_verdict check_stored(evt_elem e, evt_reduce red, const double *got,
                                      const double *want, size_t n)
{
    unsigned char stored[64 * 4];
    evt_check_verdict v;
    assert_true(n <= 64);
    assert_int_equal(evt_convert_from_f64(e, got, stored, n), EVT_OK);
    assert_int_equal(evt_check_values(e, red, stored, want, n, &v), EVT_OK);
    assert_int_equal(v.checked, (long long)n);
    assert_int_equal(v.passed, v.bad == 0 && v.special_bad == 0);
    return v;
}

static int passes(evt_elem e, evt_reduce red, double got, double want)
{
    return check_stored(e, red, &got, &want, 1).passed;
}

static void test_tolerances(void **state)
{
    (void)state;
    assert_true(evt_check_tolerance(EVT_F32, EVT_REDUCE_NONE) == 1e-4);
    assert_true(evt_check_tolerance(EVT_F16, EVT_REDUCE_NONE) == 2e-3);
    assert_true(evt_check_tolerance(EVT_BF16, EVT_REDUCE_NONE) == 1.6e-2);
    assert_true(evt_check_tolerance(EVT_E4M3, EVT_REDUCE_NONE) == 0.25);
    assert_true(evt_check_tolerance(EVT_E5M2, EVT_REDUCE_NONE) == 0.5);
    assert_true(evt_check_tolerance(EVT_I8, EVT_REDUCE_NONE) == 0);
    assert_true(evt_check_tolerance(EVT_I32, EVT_REDUCE_MAX) == 0);
    /* an integer sum is an f32 sum stored as an integer */
    assert_true(evt_check_tolerance(EVT_I8, EVT_REDUCE_SUM) == 1e-3);
    assert_true(evt_check_tolerance(EVT_I32, EVT_REDUCE_SUM) == 1e-3);
    /* sums are looser where the type is tighter than 1e-3; max and min are not */
    assert_true(evt_check_tolerance(EVT_F32, EVT_REDUCE_SUM) == 1e-3);
    assert_true(evt_check_tolerance(EVT_F16, EVT_REDUCE_SUM) == 2e-3);
    assert_true(evt_check_tolerance(EVT_F32, EVT_REDUCE_MAX) == 1e-4);
    assert_true(evt_check_tolerance(EVT_F32, EVT_REDUCE_MIN) == 1e-4);
}

static void test_exact_values_pass(void **state)
{
    (void)state;
    const double want[5] = {1.5, -2.25, 0, 1e-3, 12345.0};
    for (evt_elem e = EVT_F32; e <= EVT_E5M2; e++) {
        evt_check_verdict v = check_stored(e, EVT_REDUCE_NONE, want, want, 5);
        assert_true(v.passed);
        assert_int_equal(v.first_bad, -1);
        assert_true(v.max_err == 0);
        assert_int_equal(v.max_ulp, 0);
    }
}

/* One value just inside and just outside each type's tolerance, against a want of 1
 * (so the floor is 1 and the error is relative to 1). */
static void test_one_tolerance_off(void **state)
{
    (void)state;
    assert_true(passes(EVT_F32, EVT_REDUCE_NONE, 1 + 0.9e-4, 1));
    assert_false(passes(EVT_F32, EVT_REDUCE_NONE, 1 + 1.1e-4, 1));
    assert_false(passes(EVT_F32, EVT_REDUCE_NONE, 1 - 1.1e-4, 1));
    assert_true(passes(EVT_F16, EVT_REDUCE_NONE, 1 + 0x1p-10 * 2, 1)); /* 2 ulp: 1.95e-3 */
    assert_false(passes(EVT_F16, EVT_REDUCE_NONE, 1 + 0x1p-10 * 3, 1));
    assert_true(passes(EVT_BF16, EVT_REDUCE_NONE, 1 + 0x1p-7 * 2, 1)); /* 1.56e-2 */
    assert_false(passes(EVT_BF16, EVT_REDUCE_NONE, 1 + 0x1p-7 * 3, 1));
    assert_true(passes(EVT_E4M3, EVT_REDUCE_NONE, 1.25, 1));
    assert_false(passes(EVT_E4M3, EVT_REDUCE_NONE, 1.375, 1));
    assert_true(passes(EVT_E5M2, EVT_REDUCE_NONE, 1.5, 1));
    assert_false(passes(EVT_E5M2, EVT_REDUCE_NONE, 1.75, 1));
}

/* The reference is rounded to the type before comparing: a got that is the
 * rounding of want is exact, whatever want's own digits. */
static void test_reference_rounded(void **state)
{
    (void)state;
    evt_check_verdict v = check_stored(EVT_F16, EVT_REDUCE_NONE, (double[]){1.0},
                                       (double[]){1.0 + 0x1p-12}, 1);
    assert_true(v.passed && v.max_err == 0 && v.max_ulp == 0);
    /* 1e6 rounds to +inf in f16: a stored +inf is right */
    assert_true(passes(EVT_F16, EVT_REDUCE_NONE, INFINITY, 1e6));
    /* and saturates in e4m3 */
    assert_true(passes(EVT_E4M3, EVT_REDUCE_NONE, 448, 1e6));
}

static void test_reductions_looser(void **state)
{
    (void)state;
    assert_false(passes(EVT_F32, EVT_REDUCE_NONE, 1 + 5e-4, 1));
    assert_true(passes(EVT_F32, EVT_REDUCE_SUM, 1 + 5e-4, 1));
    assert_false(passes(EVT_F32, EVT_REDUCE_SUM, 1 + 1.5e-3, 1));
    assert_false(passes(EVT_F32, EVT_REDUCE_MAX, 1 + 5e-4, 1));
    assert_false(passes(EVT_F32, EVT_REDUCE_MIN, 1 + 5e-4, 1));
}

/* Near zero after cancellation, a value is judged against the output's RMS. */
static void test_floor(void **state)
{
    (void)state;
    const double want[4] = {1000, -1000, 1000, 1e-3}, got[4] = {1000, -1000, 1000, 2e-3};
    evt_check_verdict v = check_stored(EVT_F32, EVT_REDUCE_NONE, got, want, 4);
    assert_true(v.passed);
    assert_true(v.floor > 800 && v.floor < 900);
    assert_true(v.max_err < 2e-6);
    /* alone, the same pair is 100% off */
    assert_false(passes(EVT_F32, EVT_REDUCE_NONE, 2e-3, 1e-3));
    /* all-zero reference: the floor is DBL_MIN, so any non-zero value fails */
    v = check_stored(EVT_F32, EVT_REDUCE_NONE, (double[]){0, 1e-30}, (double[]){0, 0}, 2);
    assert_true(v.floor == DBL_MIN);
    assert_false(v.passed);
}

static void test_nan_and_inf(void **state)
{
    (void)state;
    for (evt_elem e = EVT_F32; e <= EVT_BF16; e++) {
        assert_true(passes(e, EVT_REDUCE_NONE, NAN, NAN));
        assert_false(passes(e, EVT_REDUCE_NONE, NAN, 1));
        assert_false(passes(e, EVT_REDUCE_NONE, 1, NAN));
        assert_true(passes(e, EVT_REDUCE_NONE, INFINITY, INFINITY));
        assert_true(passes(e, EVT_REDUCE_NONE, -INFINITY, -INFINITY));
        assert_false(passes(e, EVT_REDUCE_NONE, INFINITY, -INFINITY));
        assert_false(passes(e, EVT_REDUCE_NONE, INFINITY, 1));
        assert_false(passes(e, EVT_REDUCE_NONE, 1, INFINITY));
        assert_false(passes(e, EVT_REDUCE_NONE, NAN, INFINITY));
        assert_true(passes(e, EVT_REDUCE_SUM, NAN, NAN));
    }
    assert_true(passes(EVT_E4M3, EVT_REDUCE_NONE, NAN, NAN));
    assert_false(passes(EVT_E4M3, EVT_REDUCE_NONE, NAN, 1));
    /* NaN in an integer output is 0, on both sides */
    assert_true(passes(EVT_I8, EVT_REDUCE_NONE, 0, NAN));

    /* the counts, the first bad index and its values */
    const double want[5] = {1, NAN, 2, 3, INFINITY}, got[5] = {1, NAN, 2.5, NAN, INFINITY};
    evt_check_verdict v = check_stored(EVT_F32, EVT_REDUCE_NONE, got, want, 5);
    assert_false(v.passed);
    assert_int_equal(v.bad, 1);
    assert_int_equal(v.special_bad, 1);
    assert_int_equal(v.first_bad, 2);
    assert_true(v.first_got == 2.5 && v.first_want == 2);
    /* the floor and max_err ignore the non-finite pairs */
    assert_true(fabs(v.floor - sqrt((1 + 4 + 9) / 3.0)) < 1e-12);
    v = check_stored(EVT_F32, EVT_REDUCE_NONE, (double[]){1, NAN}, (double[]){1, 2}, 2);
    assert_int_equal(v.first_bad, 1);
    assert_true(isnan(v.first_got) && v.first_want == 2);
}

/* The bracket (evt_check_values_bracketed): session 60's GPU suite case,
 * h = relu(acc + n) * m with m = -inf and acc + n = 2.1e-6 in f64 and
 * below 0 in the kernel's f32 sum: NaN stored where -inf is the
 * reference passes when an end of the bracket is NaN, and only then;
 * a finite miss passes inside the span of the reference and the ends. */
static void test_bracketed_specials(void **state)
{
    (void)state;
    const double got[4] = {NAN, 1.0, -INFINITY, 2.0};
    const double want[4] = {-INFINITY, 1.0, -INFINITY, 2.0};
    const double lo[4] = {NAN, 1.0, -INFINITY, 2.0};        /* acc moved down: relu 0, 0 * -inf */
    const double hi[4] = {-INFINITY, 1.0, -INFINITY, 2.0};
    unsigned char stored[4 * 2];
    evt_check_verdict v;
    long long explained = -1;
    assert_int_equal(evt_convert_from_f64(EVT_F16, got, stored, 4), EVT_OK);
    assert_int_equal(evt_check_values(EVT_F16, EVT_REDUCE_NONE, stored, want, 4, &v), EVT_OK);
    assert_false(v.passed);
    assert_int_equal(v.special_bad, 1);
    assert_int_equal(evt_check_values_bracketed(EVT_F16, EVT_REDUCE_NONE, stored, want, lo, hi, 4, &v, &explained),
                     EVT_OK);
    assert_true(v.passed);
    assert_int_equal(explained, 1);
    /* neither end NaN: still a mismatch */
    assert_int_equal(evt_check_values_bracketed(EVT_F16, EVT_REDUCE_NONE, stored, want, hi, hi, 4, &v, &explained),
                     EVT_OK);
    assert_false(v.passed);
    assert_int_equal(v.special_bad, 1);
    assert_int_equal(explained, 0);
    assert_int_equal(v.first_bad, 0);
    /* a finite miss inside the bracket's span passes: 1.5 against 1.0 where an end is 1.5 */
    const double got2[2] = {1.5, INFINITY}, want2[2] = {1.0, 3.0}, lo2[2] = {1.5, INFINITY}, hi2[2] = {1.5, 3.0};
    assert_int_equal(evt_convert_from_f64(EVT_F16, got2, stored, 2), EVT_OK);
    assert_int_equal(evt_check_values_bracketed(EVT_F16, EVT_REDUCE_NONE, stored, want2, lo2, hi2, 2, &v, &explained),
                     EVT_OK);
    assert_true(v.passed);
    assert_int_equal(explained, 2); /* 1.5 in [1.0, 1.5]; +inf met lo's +inf */
    /* ... and one outside it fails: 1.25 where the ends are 0.9 and 1.2 (f16's tolerance 2e-3) */
    const double got4[2] = {1.25, 2.0}, want4[2] = {1.0, 2.0}, lo4[2] = {1.2, 2.0}, hi4[2] = {0.9, 2.0};
    assert_int_equal(evt_convert_from_f64(EVT_F16, got4, stored, 2), EVT_OK);
    assert_int_equal(evt_check_values_bracketed(EVT_F16, EVT_REDUCE_NONE, stored, want4, lo4, hi4, 2, &v, &explained),
                     EVT_OK);
    assert_false(v.passed);
    assert_int_equal(v.bad, 1);
    assert_int_equal(v.first_bad, 0);
    assert_int_equal(explained, 0);
    /* a row minimum moved 3e-4 of itself (over f32's 1e-4) by a chain that
     * magnifies the accumulator's rounding: inside the ends' span, passes;
     * past it by more than the tolerance, fails */
    const double want5[1] = {1e-3}, lo5[1] = {1.00025e-3}, hi5[1] = {0.9998e-3};
    const double got5[2] = {1.0003e-3, 1.0006e-3};
    for (int j = 0; j < 2; j++) {
        assert_int_equal(evt_convert_from_f64(EVT_F32, got5 + j, stored, 1), EVT_OK);
        assert_int_equal(evt_check_values(EVT_F32, EVT_REDUCE_MIN, stored, want5, 1, &v), EVT_OK);
        assert_false(v.passed);
        assert_int_equal(evt_check_values_bracketed(EVT_F32, EVT_REDUCE_MIN, stored, want5, lo5, hi5, 1, &v,
                                                    &explained),
                         EVT_OK);
        assert_int_equal(v.passed, j == 0);
        assert_int_equal(explained, j == 0);
    }
    /* integers: within 1 of the span */
    const double want6[1] = {5}, lo6[1] = {6}, hi6[1] = {5}, got6[2] = {7, 8};
    for (int j = 0; j < 2; j++) {
        assert_int_equal(evt_convert_from_f64(EVT_I32, got6 + j, stored, 1), EVT_OK);
        assert_int_equal(evt_check_values_bracketed(EVT_I32, EVT_REDUCE_NONE, stored, want6, lo6, hi6, 1, &v,
                                                    &explained),
                         EVT_OK);
        assert_int_equal(v.passed, j == 0);
    }
    /* a stored finite value where the reference is infinite meets a finite end within tolerance */
    const double got3[1] = {65000.0}, want3[1] = {INFINITY}, lo3[1] = {65001.0}, hi3[1] = {INFINITY};
    assert_int_equal(evt_convert_from_f64(EVT_F32, got3, stored, 1), EVT_OK);
    assert_int_equal(evt_check_values_bracketed(EVT_F32, EVT_REDUCE_NONE, stored, want3, lo3, hi3, 1, &v, NULL),
                     EVT_OK);
    assert_true(v.passed);
    /* no bracket with count > 0: invalid, the verdict zeroed */
    assert_int_equal(evt_check_values_bracketed(EVT_F16, EVT_REDUCE_NONE, stored, want, NULL, hi, 4, &v, &explained),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(v.checked, 0);
    assert_int_equal(explained, 0);
}

static void test_signed_zero(void **state)
{
    (void)state;
    for (evt_elem e = EVT_F32; e <= EVT_E5M2; e++) {
        evt_check_verdict v = check_stored(e, EVT_REDUCE_NONE, (double[]){-0.0}, (double[]){0.0}, 1);
        assert_true(v.passed);
        assert_int_equal(v.max_ulp, 0);
    }
}

/* Integers pass within 1 of want whatever the relative error, and fail at 2. */
static void test_integers(void **state)
{
    (void)state;
    assert_true(passes(EVT_I8, EVT_REDUCE_NONE, 5, 6));
    assert_false(passes(EVT_I8, EVT_REDUCE_NONE, 4, 6));
    assert_true(passes(EVT_I8, EVT_REDUCE_NONE, 6, 5.5));  /* 5.5 rounds to even: 6 */
    assert_true(passes(EVT_I8, EVT_REDUCE_NONE, 127, 300)); /* saturation */
    assert_false(passes(EVT_I8, EVT_REDUCE_NONE, -128, 300));
    assert_true(passes(EVT_I32, EVT_REDUCE_NONE, 0x1p30 + 1, 0x1p30 + 0.4));
    assert_false(passes(EVT_I32, EVT_REDUCE_NONE, 0x1p30 + 2, 0x1p30)); /* rel err 2e-9 */
    assert_true(passes(EVT_I32, EVT_REDUCE_NONE, -1, 0));
    assert_true(passes(EVT_I32, EVT_REDUCE_SUM, 2147483647, 1e12));
    /* an i32 sum as the H200 stored one (session 71): 16 off at 3.3e6, the f32 sum's rounding */
    assert_true(passes(EVT_I32, EVT_REDUCE_SUM, 3261616, 3261600));
    assert_false(passes(EVT_I32, EVT_REDUCE_NONE, 3261616, 3261600));
    assert_false(passes(EVT_I32, EVT_REDUCE_SUM, 3268000, 3261600)); /* 2e-3 off */
    assert_true(passes(EVT_I8, EVT_REDUCE_SUM, 6, 5));                /* within 1, as ever */
    assert_false(passes(EVT_I8, EVT_REDUCE_SUM, 7, 5));
}

static long long ulps(evt_elem e, double a, double b)
{
    unsigned char sa[4], sb[4];
    long long d = -1;
    assert_int_equal(evt_convert_from_f64(e, &a, sa, 1), EVT_OK);
    assert_int_equal(evt_convert_from_f64(e, &b, sb, 1), EVT_OK);
    assert_int_equal(evt_check_ulps(e, sa, sb, &d), EVT_OK);
    return d;
}

static void test_ulps(void **state)
{
    (void)state;
    assert_int_equal(ulps(EVT_F32, 1, 1 + 0x1p-23), 1);
    assert_int_equal(ulps(EVT_F32, 1, 1 - 0x1p-24), 1); /* across a binade */
    assert_int_equal(ulps(EVT_F32, 0x1p-149, -0x1p-149), 2); /* across zero */
    assert_int_equal(ulps(EVT_F32, 0.0, -0.0), 0);
    assert_int_equal(ulps(EVT_F16, 1, 1 + 0x1p-10 * 3), 3);
    assert_int_equal(ulps(EVT_F16, 65504, INFINITY), 1);
    assert_int_equal(ulps(EVT_BF16, -1, 1), 2 * 0x3f80);
    /* fp8: e4m3 448 (0x7e) and 416 (0x7d); the subnormals 2^-9 either side of zero */
    assert_int_equal(ulps(EVT_E4M3, 448, 416), 1);
    assert_int_equal(ulps(EVT_E4M3, 0x1p-9, -0x1p-9), 2);
    assert_int_equal(ulps(EVT_E4M3, 1, 2), 8); /* 3 mantissa bits */
    assert_int_equal(ulps(EVT_E5M2, 1, 2), 4); /* 2 mantissa bits */
    assert_int_equal(ulps(EVT_E5M2, 0x1p-16, -0x1p-16), 2);
    assert_int_equal(ulps(EVT_I8, -128, 127), 255);
    assert_int_equal(ulps(EVT_I32, -2147483648.0, 2147483647.0), 4294967295LL);

    /* the verdict's max_ulp: e4m3 416 against 448 is one step, 12.5% off */
    evt_check_verdict v = check_stored(EVT_E4M3, EVT_REDUCE_MAX, (double[]){416}, (double[]){448}, 1);
    assert_true(v.passed);
    assert_int_equal(v.max_ulp, 1);
    assert_true(fabs(v.max_err - 32.0 / 448) < 1e-12);
}

/*
 * A reduce_sum whose terms cancel (evt_check_sums): y = acc - (acc's row
 * mean), summed over everything, is 0 up to rounding, so its f32 result
 * (the f32 interpreter, another order) is judged against its terms'
 * magnitude (evt_interp_bind_magnitude), not its own size: it passes there
 * and fails evt_check_values.  A single term missing still fails it, as a
 * non-cancelling sum's result 3e-3 off does.  Magnitudes: the f64 sum of
 * |y| over what each result adds, exactly; only sums take them.
 */
static void test_cancelling_sums(void **state)
{
    fixture *f = *state;
    enum { M = 256, N = 64 };
    static const char src[] = "epilogue c { in mean : f32[M]\n"
                              "  let y = acc - mean\n"
                              "  out total : f32 = reduce_sum(y)\n"
                              "  out rows : f32[M] = reduce_sum(y, N)\n"
                              "  out big : f32[N] = reduce_sum(abs(y), M)\n"
                              "  out amax : f32 = reduce_max(abs(y)) }\n";
    static float acc[M * N], mean[M], rows_got[M], big_got[N], total_got, amax_got;
    static double acc64[M * N], rows_want[M], rows_mag[M], big_want[N], big_mag[N], total_want, total_mag,
        amax_want;
    uint64_t x = 0x243f6a8885a308d3u;
    for (size_t i = 0; i < M; i++) {
        double sum = 0;
        for (size_t j = 0; j < N; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            acc[i * N + j] = (float)((double)(x >> 11) * 0x1p-53 * 200 - 100);
            acc64[i * N + j] = acc[i * N + j];
            sum += acc[i * N + j];
        }
        mean[i] = (float)(sum / N);
    }
    assert_int_equal(evt_module_parse_buffer(f->ctx, "c.evt", src, sizeof src - 1, &f->m), EVT_OK);
    const evt_epilogue *ep = evt_module_find_epilogue(f->m, "c");
    assert_int_equal(evt_interp_create(ep, &f->in), EVT_OK);
    /* only a sum has a magnitude; no such output */
    assert_int_equal(evt_interp_bind_magnitude(f->in, "amax", &amax_want, sizeof amax_want),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(evt_interp_last_error(f->in), "reduce_sum"));
    assert_int_equal(evt_interp_bind_magnitude(f->in, "nope", &total_mag, sizeof total_mag), EVT_ERR_NOT_FOUND);
    assert_int_equal(evt_interp_bind(f->in, "mean", mean, sizeof mean, 0), EVT_OK);
    assert_int_equal(evt_interp_bind_f64(f->in, "total", &total_want, sizeof total_want, 0), EVT_OK);
    assert_int_equal(evt_interp_bind_f64(f->in, "rows", rows_want, sizeof rows_want, 0), EVT_OK);
    assert_int_equal(evt_interp_bind_f64(f->in, "big", big_want, sizeof big_want, 0), EVT_OK);
    assert_int_equal(evt_interp_bind_f64(f->in, "amax", &amax_want, sizeof amax_want, 0), EVT_OK);
    assert_int_equal(evt_interp_bind_magnitude(f->in, "total", &total_mag, sizeof total_mag), EVT_OK);
    assert_int_equal(evt_interp_bind_magnitude(f->in, "big", big_mag, sizeof big_mag), EVT_OK);
    /* too small a buffer: refused by the run, naming it */
    assert_int_equal(evt_interp_bind_magnitude(f->in, "rows", rows_mag, sizeof rows_mag - 8), EVT_OK);
    assert_int_equal(evt_interp_set_acc_f64(f->in, M, N, acc64, sizeof acc64, N), EVT_OK);
    assert_int_equal(evt_interp_run(f->in, EVT_INTERP_F64), EVT_ERR_BAD_BUFFER);
    assert_non_null(strstr(evt_interp_last_error(f->in), "rows"));
    assert_int_equal(evt_interp_bind_magnitude(f->in, "rows", rows_mag, sizeof rows_mag), EVT_OK);
    assert_int_equal(evt_interp_run(f->in, EVT_INTERP_F64), EVT_OK);
    /* the magnitudes, exactly: f64 sums of |y| (y = acc - mean exact in f64) */
    double all = 0;
    for (size_t i = 0; i < M; i++) {
        double r = 0;
        for (size_t j = 0; j < N; j++)
            r += fabs(acc64[i * N + j] - (double)mean[i]);
        assert_true(rows_mag[i] == r);
        all += r;
    }
    assert_true(fabs(total_mag - all) <= 1e-9 * all);
    for (size_t j = 0; j < N; j++)
        assert_true(big_mag[j] == big_want[j]); /* the sum of |y| is its own magnitude */
    assert_true(fabs(total_want) < 1e-6 * total_mag); /* it cancels */

    assert_int_equal(evt_interp_bind(f->in, "total", &total_got, sizeof total_got, 0), EVT_OK);
    assert_int_equal(evt_interp_bind(f->in, "rows", rows_got, sizeof rows_got, 0), EVT_OK);
    assert_int_equal(evt_interp_bind(f->in, "big", big_got, sizeof big_got, 0), EVT_OK);
    assert_int_equal(evt_interp_bind(f->in, "amax", &amax_got, sizeof amax_got, 0), EVT_OK);
    assert_int_equal(evt_interp_set_acc(f->in, M, N, acc, sizeof acc, N), EVT_OK);
    assert_int_equal(evt_interp_run(f->in, EVT_INTERP_F32), EVT_OK);

    evt_check_verdict v;
    assert_int_equal(evt_check_values(EVT_F32, EVT_REDUCE_SUM, &total_got, &total_want, 1, &v), EVT_OK);
    assert_false(v.passed); /* against itself: the rounding of 16384 terms of up to 100 */
    assert_int_equal(evt_check_sums(EVT_F32, &total_got, &total_want, &total_mag, 1, &v), EVT_OK);
    assert_true(v.passed);
    assert_int_equal(evt_check_sums(EVT_F32, rows_got, rows_want, rows_mag, M, &v), EVT_OK);
    assert_true(v.passed);
    assert_int_equal(evt_check_sums(EVT_F32, big_got, big_want, big_mag, N, &v), EVT_OK);
    assert_true(v.passed);
    /* NULL magnitudes: evt_check_values */
    assert_int_equal(evt_check_sums(EVT_F32, &total_got, &total_want, NULL, 1, &v), EVT_OK);
    assert_false(v.passed);
    /* a term missing: still off */
    float missing = total_got - (float)(acc64[5] - (double)mean[0]);
    assert_int_equal(evt_check_sums(EVT_F32, &missing, &total_want, &total_mag, 1, &v), EVT_OK);
    assert_false(v.passed);
    rows_got[7] -= (float)(acc64[7 * N + 3] - (double)mean[7]);
    assert_int_equal(evt_check_sums(EVT_F32, rows_got, rows_want, rows_mag, M, &v), EVT_OK);
    assert_false(v.passed);
    assert_int_equal(v.first_bad, 7);
    /* a sum that does not cancel, 3e-3 off: off */
    big_got[2] *= 1 + 3e-3f;
    assert_int_equal(evt_check_sums(EVT_F32, big_got, big_want, big_mag, N, &v), EVT_OK);
    assert_false(v.passed);
    assert_int_equal(v.first_bad, 2);
    assert_int_equal(evt_check_sums(EVT_F32, NULL, big_want, big_mag, N, &v), EVT_ERR_INVALID_ARGUMENT);
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    evt_check_verdict v;
    float x = 1;
    double w = 1;
    long long d;
    assert_int_equal(evt_check_values((evt_elem)99, EVT_REDUCE_NONE, &x, &w, 1, &v),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_check_values(EVT_F32, (evt_reduce)9, &x, &w, 1, &v),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_check_values(EVT_F32, EVT_REDUCE_NONE, NULL, &w, 1, &v),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(v.passed, 0); /* zeroed on failure: never a pass */
    assert_int_equal(evt_check_values(EVT_F32, EVT_REDUCE_NONE, &x, NULL, 1, &v),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_check_values(EVT_F32, EVT_REDUCE_NONE, &x, &w, 1, NULL),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_check_values(EVT_F32, EVT_REDUCE_NONE, NULL, NULL, 0, &v), EVT_OK);
    assert_int_equal(v.checked, 0);
    assert_int_equal(evt_check_ulps(EVT_F32, &x, NULL, &d), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_check_ulps((evt_elem)-1, &x, &x, &d), EVT_ERR_INVALID_ARGUMENT);
}

/* ---- rows ------------------------------------------------------------------ */

static void assert_rows_sane(const long long *rows, long long count, long long m, long long block)
{
    assert_true(count % block == 0);
    for (long long i = 0; i < count; i++) {
        assert_true(rows[i] >= 0 && rows[i] < m);
        if (i)
            assert_true(rows[i] > rows[i - 1]);
        /* whole blocks, in order */
        assert_int_equal(rows[i] % block, i % block);
    }
}

static void test_rows(void **state)
{
    (void)state;
    enum { M = 4096 * 4 };
    static long long rows[M], again[M];
    long long count, count2;
    /* small problems: every row */
    assert_int_equal(evt_check_rows(1000, 1000, 1000, 1, 0, 1, rows, &count), EVT_OK);
    assert_int_equal(count, 1000);
    assert_rows_sane(rows, count, 1000, 1);
    /* 16384 x 4096 x 4096 = 2^38 multiply-adds: a sample of 2^32 / 2^24 = 256 rows */
    assert_int_equal(evt_check_rows(M, 4096, 4096, 1, 0, 7, rows, &count), EVT_OK);
    assert_int_equal(count, 256);
    assert_rows_sane(rows, count, M, 1);
    assert_int_equal(rows[0], 0);
    assert_int_equal(rows[count - 1], M - 1);
    assert_int_equal(evt_check_rows(M, 4096, 4096, 1, 0, 7, again, &count2), EVT_OK);
    assert_int_equal(count2, count);
    assert_memory_equal(rows, again, (size_t)count * sizeof *rows);
    assert_int_equal(evt_check_rows(M, 4096, 4096, 1, 0, 8, again, &count2), EVT_OK);
    assert_true(memcmp(rows, again, (size_t)count * sizeof *rows) != 0);
    /* a reduction over M: every row however large */
    assert_int_equal(evt_check_rows(M, 4096, 4096, 1, 1, 7, rows, &count), EVT_OK);
    assert_int_equal(count, M);
    assert_rows_sane(rows, count, M, 1);
    /* huge rows: at least 16 */
    assert_int_equal(evt_check_rows(M, 1 << 20, 1 << 20, 1, 0, 3, rows, &count), EVT_OK);
    assert_int_equal(count, 16);
    assert_rows_sane(rows, count, M, 1);
    /* whole images of 49 rows (a conv's 7x7 outputs), at least 2 */
    assert_int_equal(evt_check_rows(49 * 300, 2048, 1 << 22, 49, 0, 5, rows, &count), EVT_OK);
    assert_int_equal(count, 2 * 49);
    assert_rows_sane(rows, count, 49 * 300, 49);
    assert_int_equal(rows[49], 299 * 49);
    assert_int_equal(evt_check_rows(49 * 300, 256, 4096, 49, 0, 5, rows, &count), EVT_OK);
    assert_int_equal(count, 49 * 83); /* 2^32 / (49 * 256 * 4096) = 83.6 images */
    assert_rows_sane(rows, count, 49 * 300, 49);
    /* empty problems, and bad arguments */
    assert_int_equal(evt_check_rows(0, 5, 5, 1, 0, 1, NULL, &count), EVT_OK);
    assert_int_equal(count, 0);
    assert_int_equal(evt_check_rows(10, 5, 5, 3, 0, 1, rows, &count), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_check_rows(10, 5, 5, 0, 0, 1, rows, &count), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_check_rows(-1, 5, 5, 1, 0, 1, rows, &count), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_check_rows(10, 5, 5, 1, 0, 1, NULL, &count), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_check_rows(10, 5, 5, 1, 0, 1, rows, NULL), EVT_ERR_INVALID_ARGUMENT);
}

/* ---- which epilogues need every row ---------------------------------------------- */

static void test_needs_every_row(void **state)
{
    fixture *f = *state;
    static const char src[] = "epilogue rows { in x : f32[M, N]\n"
                              "  out y : f16[M, N] = acc + x\n"
                              "  out s : f32[M] = reduce_sum(acc, N) }\n"
                              "epilogue cols { out s : f32[N] = reduce_sum(acc, M) }\n"
                              "epilogue all { out y : f16[M, N] = acc\n"
                              "  out amax : f32 = reduce_max(abs(acc)) }\n";
    assert_int_equal(evt_module_parse_buffer(f->ctx, "check.evt", src, sizeof src - 1, &f->m),
                     EVT_OK);
    assert_int_equal(evt_check_needs_every_row(evt_module_find_epilogue(f->m, "rows")), 0);
    assert_int_equal(evt_check_needs_every_row(evt_module_find_epilogue(f->m, "cols")), 1);
    assert_int_equal(evt_check_needs_every_row(evt_module_find_epilogue(f->m, "all")), 1);
    assert_int_equal(evt_check_needs_every_row(NULL), 0);
}

/*
 * The whole path of a check on a kernel that reduces over M, with the f32
 * interpreter standing in for the GPU (its f32 operations are the GPU's; its
 * sums run in another order than the f64 reference's): the reference
 * accumulator and the f64 interpreter over every row, then evt_check_values
 * on each output.  Everything passes; a sum 3e-3 off or an [M, N] value 3
 * ulp off (where it is not judged against the floor) fails at its index.
 */
static void test_reference_path(void **state)
{
    fixture *f = *state;
    enum { M = 512, N = 48, K = 40 };
    static const char src[] = "epilogue red { in bias : f32[N]\n"
                              "  let y = acc + bias\n"
                              "  out d : f16[M, N] = y\n"
                              "  out sum_m : f32[N] = reduce_sum(y, M)\n"
                              "  out amax : f32 = reduce_max(abs(y)) }\n";
    static float a[M * K], b[K * N], acc32[M * N], bias[N], sum_got[N], amax_got;
    static double acc64[M * N], d_want[M * N], sum_want[N], amax_want;
    static uint16_t d_got[M * N];
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < M * K + K * N + N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        float v = (float)((double)(x >> 11) * 0x1p-53 * 2 - 1);
        if (i < M * K)
            a[i] = v;
        else if (i < M * K + K * N)
            b[i - M * K] = v;
        else
            bias[i - M * K - K * N] = v;
    }
    assert_int_equal(evt_module_parse_buffer(f->ctx, "red.evt", src, sizeof src - 1, &f->m),
                     EVT_OK);
    const evt_epilogue *ep = evt_module_find_epilogue(f->m, "red");
    assert_int_equal(evt_check_needs_every_row(ep), 1);
    assert_int_equal(evt_reference_gemm(M, N, K, EVT_F32, a, EVT_LAYOUT_ROW, K, b, EVT_LAYOUT_ROW,
                                        N, acc64, acc32, N),
                     EVT_OK);
    assert_int_equal(evt_interp_create(ep, &f->in), EVT_OK);
    assert_int_equal(evt_interp_bind(f->in, "bias", bias, sizeof bias, 0), EVT_OK);
    assert_int_equal(evt_interp_bind_f64(f->in, "d", d_want, sizeof d_want, N), EVT_OK);
    assert_int_equal(evt_interp_bind_f64(f->in, "sum_m", sum_want, sizeof sum_want, 0), EVT_OK);
    assert_int_equal(evt_interp_bind_f64(f->in, "amax", &amax_want, sizeof amax_want, 0), EVT_OK);
    assert_int_equal(evt_interp_set_acc_f64(f->in, M, N, acc64, sizeof acc64, N), EVT_OK);
    assert_int_equal(evt_interp_run(f->in, EVT_INTERP_F64), EVT_OK);
    assert_int_equal(evt_interp_bind(f->in, "d", d_got, sizeof d_got, N), EVT_OK);
    assert_int_equal(evt_interp_bind(f->in, "sum_m", sum_got, sizeof sum_got, 0), EVT_OK);
    assert_int_equal(evt_interp_bind(f->in, "amax", &amax_got, sizeof amax_got, 0), EVT_OK);
    assert_int_equal(evt_interp_set_acc(f->in, M, N, acc32, sizeof acc32, N), EVT_OK);
    assert_int_equal(evt_interp_run(f->in, EVT_INTERP_F32), EVT_OK);

    evt_check_verdict v;
    assert_int_equal(evt_check_values(EVT_F16, EVT_REDUCE_NONE, d_got, d_want, M * N, &v), EVT_OK);
    assert_true(v.passed && v.checked == M * N && v.max_ulp <= 1);
    assert_int_equal(evt_check_values(EVT_F32, EVT_REDUCE_SUM, sum_got, sum_want, N, &v), EVT_OK);
    assert_true(v.passed && v.max_err > 0); /* another order: not bit-identical, within 1e-3 */
    assert_int_equal(evt_check_values(EVT_F32, EVT_REDUCE_MAX, &amax_got, &amax_want, 1, &v),
                     EVT_OK);
    assert_true(v.passed);

    sum_got[3] *= 1 + 3e-3f;
    assert_int_equal(evt_check_values(EVT_F32, EVT_REDUCE_SUM, sum_got, sum_want, N, &v), EVT_OK);
    assert_false(v.passed);
    assert_int_equal(v.first_bad, 3);
    /* 5 ulp of f16 is 2.4e-3 to 4.9e-3 relative: off where |want| is the largest
     * (above the floor), not where a small value is judged against the floor */
    size_t big = 0;
    for (size_t i = 0; i < M * N; i++)
        big = fabs(d_want[i]) > fabs(d_want[big]) ? i : big;
    d_got[big] = (uint16_t)(d_got[big] + 5);
    assert_int_equal(evt_check_values(EVT_F16, EVT_REDUCE_NONE, d_got, d_want, M * N, &v), EVT_OK);
    assert_false(v.passed);
    assert_int_equal(v.bad, 1);
    assert_int_equal(v.first_bad, (long long)big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tolerances),
        cmocka_unit_test(test_exact_values_pass),
        cmocka_unit_test(test_one_tolerance_off),
        cmocka_unit_test(test_reference_rounded),
        cmocka_unit_test(test_reductions_looser),
        cmocka_unit_test(test_floor),
        cmocka_unit_test(test_nan_and_inf),
        cmocka_unit_test(test_bracketed_specials),
        cmocka_unit_test(test_signed_zero),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_ulps),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_rows),
        cmocka_unit_test_setup_teardown(test_needs_every_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reference_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancelling_sums, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
