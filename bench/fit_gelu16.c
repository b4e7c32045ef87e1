/*
 * fit_gelu16.c - where evt_gelu16's coefficients come from, and its error.
 *
 *   cc -O2 -std=c11 bench/fit_gelu16.c -lm -o fit_gelu16
 *   ./fit_gelu16            the fits, degrees 2-4 of the exp's q and 5-11 of R's P
 *   ./fit_gelu16 --error N  evt_gelu16 (kernels/common/evt_math.h) against
 *                           0.5 x erfc(-x/sqrt2) in double on every N-th f32
 *                           bit pattern (1: all of them, about ten minutes):
 *                           the largest relative error, and how many results
 *                           of |x| < 20 stored to f16 and bf16 round the other
 *                           way than the exact value does (evt_gelu's too)
 *
 * The fits minimise the relative error on 4,000 Chebyshev points (Lawson's
 * iteratively reweighted least squares in long double, QR by modified
 * Gram-Schmidt), then round the coefficients to f32 from the constant term
 * up, refitting the rest after each.  The exp: 1 + r + r^2 q(r) against e^r
 * on |r| <= ln2/2 (and a little more); R: 1 + P(v) against 2 R(a) / u, u =
 * 1/(a+2), v = u - 1/8, a in [0, 14.5], R(a) = Phi(-a) e^(a^2/2).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/common/evt_math.h"

typedef long double ld;
#define NP 4000
static ld X[NP], F[NP], W[NP]; /* target F(x), weight: error = W * (p(x) - F(x)) */
static int np;
/* fit coefficients c[free..deg] with c[0..free) fixed, weights lw */
static void lsq(int deg, int nfix, ld *c, const ld *lw)
{
    int m = deg + 1 - nfix;
    static ld A[NP][16], b[NP];
    for (int i = 0; i < np; i++) {
        ld r = F[i], p = 1;
        for (int j = 0; j <= deg; j++) {
            if (j < nfix) r -= c[j] * p; else A[i][j - nfix] = lw[i] * W[i] * p;
            p *= X[i];
        }
        b[i] = lw[i] * W[i] * r;
    }
    /* MGS QR */
    ld R[16][16] = {{0}}, qb[16];
    for (int j = 0; j < m; j++) {
        for (int k = 0; k < j; k++) {
            ld d = 0; for (int i = 0; i < np; i++) d += A[i][k] * A[i][j];
            R[k][j] = d; for (int i = 0; i < np; i++) A[i][j] -= d * A[i][k];
        }
        ld nn = 0; for (int i = 0; i < np; i++) nn += A[i][j] * A[i][j];
        nn = sqrtl(nn); R[j][j] = nn; for (int i = 0; i < np; i++) A[i][j] /= nn;
    }
    for (int k = 0; k < m; k++) { ld d = 0; for (int i = 0; i < np; i++) d += A[i][k] * b[i]; qb[k] = d; }
    for (int j = m - 1; j >= 0; j--) { ld s = qb[j]; for (int k = j + 1; k < m; k++) s -= R[j][k] * c[nfix + k]; c[nfix + j] = s / R[j][j]; }
}
static ld maxerr(int deg, const ld *c, ld *e)
{
    ld mx = 0;
    for (int i = 0; i < np; i++) {
        ld p = 0; for (int j = deg; j >= 0; j--) p = p * X[i] + c[j];
        e[i] = W[i] * (p - F[i]); if (fabsl(e[i]) > mx) mx = fabsl(e[i]);
    }
    return mx;
}
static ld lawson(int deg, int nfix, ld *c)
{
    static ld lw[NP], e[NP];
    for (int i = 0; i < np; i++) lw[i] = 1;
    ld best = 1e30L, bc[16];
    for (int it = 0; it < 400; it++) {
        lsq(deg, nfix, c, lw);
        ld mx = maxerr(deg, c, e);
        if (mx < best) { best = mx; memcpy(bc, c, sizeof bc); }
        ld s = 0;
        for (int i = 0; i < np; i++) { lw[i] = sqrtl(lw[i] * lw[i] * fabsl(e[i]) / mx) ; s += lw[i]; }
        for (int i = 0; i < np; i++) lw[i] *= np / s;
    }
    memcpy(c, bc, sizeof bc);
    return best;
}
static void fit(const char *name, int deg, ld lo, ld hi, ld (*f)(ld), ld (*w)(ld))
{
    np = NP;
    for (int i = 0; i < np; i++) { ld t = cosl(3.14159265358979323846264338327950288L * (i + 0.5L) / np); X[i] = (lo + hi) / 2 + (hi - lo) / 2 * t; F[i] = f(X[i]); W[i] = w(X[i]); }
    ld c[16] = {0};
    ld e0 = lawson(deg, 0, c);
    for (int k = 0; k <= deg; k++) { c[k] = (float)c[k]; if (k < deg) lawson(deg, k + 1, c); }
    static ld e[NP];
    ld e1 = maxerr(deg, c, e);
    printf("%s deg %d: minimax %.3Le (2^%.1Lf), f32 coeffs %.3Le (2^%.1Lf)\n", name, deg, e0, log2l(e0), e1, log2l(e1));
    for (int k = deg; k >= 0; k--) printf("  c%d = %.9ef\n", k, (double)(float)c[k]);
}
/* exp: q(r) = (e^r - 1 - r)/r^2; error of 1+t relative: r^2 dq / e^r */
static ld qf(ld r) { return fabsl(r) < 1e-6L ? 0.5L + r / 6 : (expl(r) - 1 - r) / (r * r); }
static ld qw(ld r) { return r * r / expl(r); }
/* R(a) = 0.5 erfc(a/sqrt2) e^{a^2/2}; v = u - 1/8, u = 1/(a+2); P(v) = 2R/u - 1; dR/R = dP/(1+P) */
static ld Rof(ld a) { return 0.5L * erfcl(a / sqrtl(2.0L)) * expl(a * a / 2); }
static ld Pf(ld v) { ld u = v + 0.125L, a = 1 / u - 2; return 2 * Rof(a) / u - 1; }
static ld Pw(ld v) { return 1 / (1 + Pf(v)); }
static int fit_all(void)
{
    ld rmax = 0.3466L + 0.002L;
    for (int d = 2; d <= 4; d++) fit("q", d, -rmax, rmax, qf, qw); /* evt_gelu16: 3 */
    ld vlo = 1 / 16.5L - 0.125L, vhi = 0.5L - 0.125L;
    for (int d = 5; d <= 11; d++) fit("P", d, vlo, vhi, Pf, Pw); /* evt_gelu16: 8 (evt_gelu: 11) */
    return 0;
}

static double gelu64(double x) { return 0.5 * x * erfc(-x / sqrt(2.0)); }
/* round double to f16 / bf16 value (RNE), return as double */
static double rnd_bits(double v, int mant) { if (v == 0 || !isfinite(v)) return v; int ex; frexp(v, &ex); double q = ldexp(1.0, ex - 1 - mant); return nearbyint(v / q) * q; }
/* 10 mantissa bits, smallest normal 2^-14, subnormal quantum 2^-24 */
static double to_f16(double v)
{
    if (fabs(v) < ldexp(1, -14))
        return nearbyint(v / ldexp(1, -24)) * ldexp(1, -24);
    return rnd_bits(v, 10);
}
static double to_bf16(double v) { if (fabs(v) < ldexp(1, -126)) return nearbyint(v / ldexp(1, -133)) * ldexp(1, -133); return rnd_bits(v, 7); }
static int scan(unsigned step)
{
    double maxrel = 0, at = 0; long n = 0, f16bad = 0, bf16bad = 0, f16old = 0, bf16old = 0, f16n = 0;
    for (uint64_t b = 0; b < (1ull << 32); b += step) {
        float x; uint32_t u = (uint32_t)b; memcpy(&x, &u, 4);
        if (isnan(x)) continue;
        float g = evt_gelu16(x), g0 = evt_gelu(x);
        double ex = gelu64(x);
        if (ex != 0 && isfinite(ex)) {
            double rel = fabs((g - ex) / ex);
            if (fabs(ex) > 1e-37 && rel > maxrel) { maxrel = rel; at = x; }
        }
        n++;
        if (fabs(x) < 20) {
            double c16 = to_f16(ex), c16g = to_f16(g), c16o = to_f16(g0);
            f16n++;
            if (c16 != c16g) f16bad++;
            if (c16 != c16o) f16old++;
            double b16 = to_bf16(ex), b16g = to_bf16(g), b16o = to_bf16(g0);
            if (b16 != b16g) bf16bad++;
            if (b16 != b16o) bf16old++;
        }
    }
    printf("step %u: n %ld maxrel %.3e (2^%.2f) at %.9g; |x|<20: %ld: f16 misround new %ld (%.2e) old %ld; bf16 new %ld (%.2e) old %ld\n",
           step, n, maxrel, log2(maxrel), at, f16n, f16bad, (double)f16bad / f16n, f16old, bf16bad, (double)bf16bad / f16n, bf16old);
    printf("specials: inf %g -inf %g -0 %g 0 %g nan %g -20 %g 6 %g\n", evt_gelu16(INFINITY), evt_gelu16(-INFINITY), evt_gelu16(-0.0f), evt_gelu16(0.0f), evt_gelu16(NAN), evt_gelu16(-20), evt_gelu16(6));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--error") == 0)
        return scan(argc > 2 ? (unsigned)atoi(argv[2]) : 997);
    return fit_all();
}
