/*
 * check.c - the verification policy (evt_check_*): how GPU results stored in
 * an output's element type are judged against the f64 reference, and which
 * rows of a large problem the reference covers.  One policy for `evtc run
 * --check`, the Python binding's evt.check, the tests and the benchmarks
 * (docs/runtime.md, "--check: the reference and the tolerances").
 */
#include "interp.h"

#include "../support/splitmix.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The fewest rows, and the fewest blocks, a sampled check covers. */
#define MIN_SAMPLED_ROWS 16
#define MIN_SAMPLED_BLOCKS 2

static int elem_ok(evt_elem e)
{
    return (unsigned)e <= EVT_E5M2;
}

static int reduce_ok(evt_reduce r)
{
    return (unsigned)r <= EVT_REDUCE_MIN;
}

/*
 * About two units in the last place of the type (a value on a rounding
 * boundary may round either way once the GPU's f32 accumulation has moved
 * it), and 1e-4 for f32, whose error is the accumulation order of K products
 * and the few-ulp builtins.  A sum reduction adds the order of up to M*N more
 * f32 additions.  Integers are judged in ulps, not by this (0), but for a
 * sum: an f32 sum stored as an integer carries the f32 sum's rounding (an
 * i32 sum of 3.3e6 was 16 off on an H200, session 71).
 */
double evt_check_tolerance(evt_elem elem, evt_reduce reduce)
{
    double tol;
    switch (elem) {
    case EVT_F32: tol = 1e-4; break;
    case EVT_F16: tol = 2e-3; break;
    case EVT_BF16: tol = 1.6e-2; break;
    case EVT_E4M3: tol = 0.25; break;
    case EVT_E5M2: tol = 0.5; break;
    case EVT_I8:
    case EVT_I32: return reduce == EVT_REDUCE_SUM ? 1e-3 : 0; /* an f32 sum stored as an integer */
    default: return 0;                                        /* anything unknown */
    }
    return reduce == EVT_REDUCE_SUM && tol < 1e-3 ? 1e-3 : tol;
}

/* A stored value as an ordinal: neighbouring representable values differ
 * by 1, and +0 and -0 are both 0. */
static long long ordinal(evt_elem e, const unsigned char *p)
{
    switch (e) {
    case EVT_I8: return (signed char)p[0];
    case EVT_I32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case EVT_F32: {
        uint32_t u;
        memcpy(&u, p, 4);
        return u >> 31 ? -(long long)(u & 0x7fffffffu) : (long long)u;
    }
    case EVT_F16:
    case EVT_BF16: {
        uint16_t u;
        memcpy(&u, p, 2);
        return u >> 15 ? -(long long)(u & 0x7fffu) : (long long)u;
    }
    case EVT_E4M3:
    case EVT_E5M2: return p[0] >> 7 ? -(long long)(p[0] & 0x7fu) : (long long)p[0];
    }
    return 0;
}

evt_status evt_check_ulps(evt_elem elem, const void *a, const void *b, long long *out)
{
    if (!elem_ok(elem) || !a || !b || !out)
        return EVT_ERR_INVALID_ARGUMENT;
    *out = llabs(ordinal(elem, a) - ordinal(elem, b));
    return EVT_OK;
}

/* A stored value as a double, exactly (i32 too). */
static double load(evt_elem e, const unsigned char *p)
{
    if (e == EVT_I32) {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    return interp_load_f32(e, p);
}

/* The reference value rounded once to the element type (evt_convert_from_f64),
 * stored in `want` (room for one element) and loaded back. */
static double rounded(evt_elem e, double ref, unsigned char *want)
{
    interp_store_f64(e, ref, want);
    return load(e, want);
}

/* A reduce_sum's result passes against 2^-12 of its terms' magnitude as a
 * floor at the least (evt_check_sums): 4 ulp of that magnitude in f32, under
 * the sum tolerance's 1e-3, is some 200 times the rounding measured on a
 * sum of 10^6 terms that cancelled to 1e-9 of it (docs/runtime.md). */
#define CHECK_MAGNITUDE_FLOOR 0x1p-12

/* Whether stored value g meets rounded reference w: both NaN, the same
 * infinity, or finite and within tol of w (relative, against floor fl).
 * Only a float output's NaN or infinity gets here: an integer output's
 * stored and rounded values are always finite. */
static int meets(double g, double w, double fl, double tol)
{
    if (!isfinite(g) || !isfinite(w))
        return (isnan(g) && isnan(w)) || g == w;
    return fabs(g - w) / fmax(fabs(w), fl) <= tol;
}

/*
 * Whether finite stored value g, off its rounded reference w, is one that the
 * references of the accumulator moved down and up by its rounding, lo and hi,
 * span: it lies between the least and greatest of w and their rounded values,
 * widened by the tolerance (1 for integers).  The chain from the accumulator
 * to an output may magnify the accumulation's rounding past the output
 * type's tolerance (exp(-abs(tanh(3 t)))'s minimum over a row moves 2.5e-4
 * of itself where the accumulator moves 3e-6, session 68), and any value it
 * takes on the way is right.  The span is a subset of what the moved
 * accumulators can give, for minima and maxima too: lo's minimum over a row
 * is at least the least an element can reach, hi's no more than the row's.
 */
static int within_bracket(evt_elem elem, double g, double w, double lo, double hi, double fl, double tol)
{
    unsigned char l8[8], h8[8];
    double wl = rounded(elem, lo, l8), wh = rounded(elem, hi, h8);
    if (!isfinite(wl) || !isfinite(wh))
        return 0;
    double least = fmin(w, fmin(wl, wh)), most = fmax(w, fmax(wl, wh));
    if (elem == EVT_I8 || elem == EVT_I32)
        return g >= least - 1 && g <= most + 1;
    return g >= least - tol * fmax(fabs(least), fl) && g <= most + tol * fmax(fabs(most), fl);
}

/* lo, hi (both or neither): evt_check_values_bracketed's; *explained its count */
static evt_status check(evt_elem elem, evt_reduce reduce, const void *got, const double *want,
                        const double *magnitude, const double *lo, const double *hi, size_t count,
                        evt_check_verdict *verdict, long long *explained)
{
    if (!verdict)
        return EVT_ERR_INVALID_ARGUMENT;
    memset(verdict, 0, sizeof *verdict);
    if (!elem_ok(elem) || !reduce_ok(reduce) || (count && (!got || !want)))
        return EVT_ERR_INVALID_ARGUMENT;
    evt_check_verdict v = {.checked = (long long)count,
                           .first_bad = -1,
                           .tol = evt_check_tolerance(elem, reduce)};
    size_t es = evt_elem_size(elem);
    unsigned char w8[8];
    double sq = 0;
    size_t nfinite = 0;
    for (size_t i = 0; i < count; i++) {
        double w = rounded(elem, want[i], w8);
        if (isfinite(w)) {
            sq += w * w;
            nfinite++;
        }
    }
    v.floor = nfinite ? sqrt(sq / (double)nfinite) : 0;
    if (!(v.floor >= DBL_MIN))
        v.floor = DBL_MIN;
    int integral = elem == EVT_I8 || elem == EVT_I32;
    for (size_t i = 0; i < count; i++) {
        const unsigned char *g8 = (const unsigned char *)got + i * es;
        double w = rounded(elem, want[i], w8), g = load(elem, g8);
        int off;
        if (!isfinite(g) || !isfinite(w)) {
            off = !meets(g, w, v.floor, v.tol);
            if (off && lo) { /* the bracket's ends: the reference of an accumulator within its rounding */
                unsigned char l8[8], h8[8];
                double wl = rounded(elem, lo[i], l8), wh = rounded(elem, hi[i], h8);
                if (meets(g, wl, v.floor, v.tol) || meets(g, wh, v.floor, v.tol)) {
                    off = 0;
                    ++*explained;
                }
            }
            v.special_bad += off;
        } else {
            double fl = v.floor;
            if (magnitude && isfinite(magnitude[i]))
                fl = fmax(fl, magnitude[i] * CHECK_MAGNITUDE_FLOOR);
            double err = fabs(g - w) / fmax(fabs(w), fl);
            long long ulp = llabs(ordinal(elem, g8) - ordinal(elem, w8));
            v.max_err = fmax(v.max_err, err);
            v.max_ulp = ulp > v.max_ulp ? ulp : v.max_ulp;
            /* an integer within 1; an integer sum, an f32 sum stored so, also within the sum's tolerance */
            off = integral ? ulp > 1 && (reduce != EVT_REDUCE_SUM || !(err <= v.tol)) : !(err <= v.tol);
            if (off && lo && within_bracket(elem, g, w, lo[i], hi[i], fl, v.tol)) {
                off = 0;
                ++*explained;
            }
            v.bad += off;
        }
        if (off && v.first_bad < 0) {
            v.first_bad = (long long)i;
            v.first_got = g;
            v.first_want = w;
        }
    }
    v.passed = v.bad == 0 && v.special_bad == 0;
    *verdict = v;
    return EVT_OK;
}

evt_status evt_check_values(evt_elem elem, evt_reduce reduce, const void *got, const double *want,
                            size_t count, evt_check_verdict *verdict)
{
    return check(elem, reduce, got, want, NULL, NULL, NULL, count, verdict, NULL);
}

evt_status evt_check_values_bracketed(evt_elem elem, evt_reduce reduce, const void *got, const double *want,
                                      const double *lo, const double *hi, size_t count,
                                      evt_check_verdict *verdict, long long *explained)
{
    long long n = 0;
    if (explained)
        *explained = 0;
    if (count && (!lo || !hi)) {
        if (verdict)
            memset(verdict, 0, sizeof *verdict);
        return EVT_ERR_INVALID_ARGUMENT;
    }
    evt_status st = check(elem, reduce, got, want, NULL, lo, hi, count, verdict, &n);
    if (st == EVT_OK && explained)
        *explained = n;
    return st;
}

evt_status evt_check_sums(evt_elem elem, const void *got, const double *want, const double *magnitude,
                          size_t count, evt_check_verdict *verdict)
{
    return check(elem, EVT_REDUCE_SUM, got, want, magnitude, NULL, NULL, count, verdict, NULL);
}

int evt_check_needs_every_row(const evt_epilogue *epilogue)
{
    size_t n = epilogue ? epilogue->noutputs : 0;
    for (size_t i = 0; i < n; i++) {
        const evt_arg_info *out = &epilogue->outputs[i].info;
        if (out->reduce != EVT_REDUCE_NONE && !(out->shape & EVT_SHAPE_M))
            return 1;
    }
    return 0;
}

/*
 * The chosen blocks are marked in rows[0..units) (the array has room for m
 * >= units entries, so no allocation), compacted to their indices in
 * increasing order, then expanded to rows from the last block backwards:
 * block i's rows land at i*block and up, past every index still unread.
 */
evt_status evt_check_rows(long long m, long long n, long long k, long long block, int every_row,
                          unsigned long long seed, long long *rows, long long *count)
{
    if (!count)
        return EVT_ERR_INVALID_ARGUMENT;
    *count = 0;
    if (m < 0 || n < 0 || k < 0 || block < 1 || m % block || (m && !rows))
        return EVT_ERR_INVALID_ARGUMENT;
    long long units = m / block, want = units;
    double unit_macs = (double)block * (double)n * (double)(k ? k : 1);
    if (!every_row && unit_macs * (double)units > (double)EVT_CHECK_SAMPLE_MACS) {
        long long least = (MIN_SAMPLED_ROWS + block - 1) / block;
        least = least < MIN_SAMPLED_BLOCKS ? MIN_SAMPLED_BLOCKS : least;
        want = (long long)((double)EVT_CHECK_SAMPLE_MACS / unit_macs);
        want = want < least ? least : want;
        want = want > units ? units : want;
    }
    if (want == units) {
        for (long long i = 0; i < m; i++)
            rows[i] = i;
        *count = m;
        return EVT_OK;
    }
    for (long long u = 0; u < units; u++)
        rows[u] = 0;
    rows[0] = rows[units - 1] = 1;
    long long taken = 2;
    while (taken < want) {
        long long u = (long long)(evt_splitmix64(&seed) % (unsigned long long)units);
        taken += !rows[u];
        rows[u] = 1;
    }
    long long c = 0;
    for (long long u = 0; u < units; u++)
        if (rows[u])
            rows[c++] = u;
    for (long long i = c - 1; i >= 0; i--) {
        long long u = rows[i];
        for (long long j = block - 1; j >= 0; j--)
            rows[i * block + j] = u * block + j;
    }
    *count = c * block;
    return EVT_OK;
}
