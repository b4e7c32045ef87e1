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

/* The fit's points: x, the target f(x) and the weight w(x) of its error,
 * w(x) (p(x) - f(x)) being the relative error the fit minimises. */
enum { NP = 4000, MAXC = 16 };
static ld X[NP], F[NP], W[NP];

/* Least squares, weighted by W and lw: c[nfix..deg] with c[0..nfix) held
 * fixed, by modified Gram-Schmidt QR of the monomial basis. */
static void lsq(int deg, int nfix, ld *c, const ld *lw)
{
    static ld A[NP][MAXC], b[NP];
    const int m = deg + 1 - nfix;
    for (int i = 0; i < NP; i++) {
        ld r = F[i], p = 1;
        for (int j = 0; j <= deg; j++) {
            if (j < nfix)
                r -= c[j] * p;
            else
                A[i][j - nfix] = lw[i] * W[i] * p;
            p *= X[i];
        }
        b[i] = lw[i] * W[i] * r;
    }
    ld R[MAXC][MAXC] = {{0}}, qb[MAXC];
    for (int j = 0; j < m; j++) {
        for (int k = 0; k < j; k++) {
            ld d = 0;
            for (int i = 0; i < NP; i++)
                d += A[i][k] * A[i][j];
            R[k][j] = d;
            for (int i = 0; i < NP; i++)
                A[i][j] -= d * A[i][k];
        }
        ld nn = 0;
        for (int i = 0; i < NP; i++)
            nn += A[i][j] * A[i][j];
        R[j][j] = nn = sqrtl(nn);
        for (int i = 0; i < NP; i++)
            A[i][j] /= nn;
    }
    for (int k = 0; k < m; k++) {
        ld d = 0;
        for (int i = 0; i < NP; i++)
            d += A[i][k] * b[i];
        qb[k] = d;
    }
    for (int j = m - 1; j >= 0; j--) {
        ld s = qb[j];
        for (int k = j + 1; k < m; k++)
            s -= R[j][k] * c[nfix + k];
        c[nfix + j] = s / R[j][j];
    }
}

/* The largest weighted error of c over the points; each point's in e. */
static ld maxerr(int deg, const ld *c, ld *e)
{
    ld mx = 0;
    for (int i = 0; i < NP; i++) {
        ld p = 0;
        for (int j = deg; j >= 0; j--)
            p = p * X[i] + c[j];
        e[i] = W[i] * (p - F[i]);
        if (fabsl(e[i]) > mx)
            mx = fabsl(e[i]);
    }
    return mx;
}

/* Lawson's algorithm: least squares reweighted by each point's error
 * until the largest error stops falling; the best c, and its error. */
static ld lawson(int deg, int nfix, ld *c)
{
    static ld lw[NP], e[NP];
    ld best = 1e30L, bc[MAXC];
    for (int i = 0; i < NP; i++)
        lw[i] = 1;
    for (int it = 0; it < 400; it++) {
        lsq(deg, nfix, c, lw);
        const ld mx = maxerr(deg, c, e);
        if (mx < best) {
            best = mx;
            memcpy(bc, c, sizeof bc);
        }
        ld s = 0;
        for (int i = 0; i < NP; i++) {
            lw[i] = sqrtl(lw[i] * lw[i] * fabsl(e[i]) / mx);
            s += lw[i];
        }
        for (int i = 0; i < NP; i++)
            lw[i] *= NP / s;
    }
    memcpy(c, bc, sizeof bc);
    return best;
}

/* Fits f of degree deg on [lo, hi] (Chebyshev points), then rounds the
 * coefficients to f32 from the constant term up, refitting the rest. */
static void fit(const char *name, int deg, ld lo, ld hi, ld (*f)(ld), ld (*w)(ld))
{
    const ld pi = 3.14159265358979323846264338327950288L;
    for (int i = 0; i < NP; i++) {
        X[i] = (lo + hi) / 2 + (hi - lo) / 2 * cosl(pi * (i + 0.5L) / NP);
        F[i] = f(X[i]);
        W[i] = w(X[i]);
    }
    ld c[MAXC] = {0};
    static ld e[NP];
    const ld e0 = lawson(deg, 0, c);
    for (int k = 0; k <= deg; k++) {
        c[k] = (float)c[k];
        if (k < deg)
            lawson(deg, k + 1, c);
    }
    const ld e1 = maxerr(deg, c, e);
    printf("%s deg %d: minimax %.3Le (2^%.1Lf), f32 coeffs %.3Le (2^%.1Lf)\n", name, deg, e0, log2l(e0), e1,
           log2l(e1));
    for (int k = deg; k >= 0; k--)
        printf("  c%d = %.9ef\n", k, (double)(float)c[k]);
}

/* The exp: q(r) = (e^r - 1 - r) / r^2, the error of 1 + t relative to e^r
 * being r^2 dq / e^r. */
static ld q_target(ld r)
{
    return fabsl(r) < 1e-6L ? 0.5L + r / 6 : (expl(r) - 1 - r) / (r * r);
}

static ld q_weight(ld r)
{
    return r * r / expl(r);
}

/* R(a) = Phi(-a) e^(a^2/2); P(v) = 2 R / u - 1 for u = 1/(a+2) = v + 1/8;
 * R's relative error is dP / (1 + P). */
static ld R_of(ld a)
{
    return 0.5L * erfcl(a / sqrtl(2.0L)) * expl(a * a / 2);
}

static ld P_target(ld v)
{
    const ld u = v + 0.125L, a = 1 / u - 2;
    return 2 * R_of(a) / u - 1;
}

static ld P_weight(ld v)
{
    return 1 / (1 + P_target(v));
}

static int fit_all(void)
{
    const ld rmax = 0.3466L + 0.002L; /* ln2 / 2, and a little */
    for (int d = 2; d <= 4; d++)
        fit("q", d, -rmax, rmax, q_target, q_weight); /* evt_gelu16: 3 (evt_gelu: 4) */
    const ld vlo = 1 / 16.5L - 0.125L, vhi = 0.5L - 0.125L; /* a in [0, 14.5] */
    for (int d = 5; d <= 11; d++)
        fit("P", d, vlo, vhi, P_target, P_weight); /* evt_gelu16: 8 (evt_gelu: 11) */
    return 0;
}

static double gelu64(double x)
{
    return 0.5 * x * erfc(-x / sqrt(2.0));
}

/* v rounded to nearest even with mant fraction bits (a normal result). */
static double round_bits(double v, int mant)
{
    if (v == 0 || !isfinite(v))
        return v;
    int ex;
    frexp(v, &ex);
    const double q = ldexp(1.0, ex - 1 - mant);
    return nearbyint(v / q) * q;
}

/* v as the f16 value it rounds to: 10 fraction bits, smallest normal
 * 2^-14, subnormals 2^-24 apart. */
static double to_f16(double v)
{
    if (fabs(v) < ldexp(1, -14))
        return nearbyint(v / ldexp(1, -24)) * ldexp(1, -24);
    return round_bits(v, 10);
}

/* v as the bf16 value it rounds to: 7 fraction bits, f32's range. */
static double to_bf16(double v)
{
    if (fabs(v) < ldexp(1, -126))
        return nearbyint(v / ldexp(1, -133)) * ldexp(1, -133);
    return round_bits(v, 7);
}

/* evt_gelu16 (and evt_gelu) on every step-th bit pattern. */
static int scan(unsigned step)
{
    double maxrel = 0, at = 0;
    long n = 0, near = 0, f16_16 = 0, f16_32 = 0, bf16_16 = 0, bf16_32 = 0;
    if (step == 0)
        step = 1;
    for (uint64_t b = 0; b < (1ull << 32); b += step) {
        const uint32_t u = (uint32_t)b;
        float x;
        memcpy(&x, &u, sizeof x);
        if (isnan(x))
            continue;
        const float g = evt_gelu16(x), g0 = evt_gelu(x);
        const double ex = gelu64(x);
        n++;
        if (fabs(ex) > 1e-37 && isfinite(ex) && fabs((g - ex) / ex) > maxrel) {
            maxrel = fabs((g - ex) / ex);
            at = x;
        }
        if (fabs(x) < 20) {
            near++;
            f16_16 += to_f16(ex) != to_f16(g);
            f16_32 += to_f16(ex) != to_f16(g0);
            bf16_16 += to_bf16(ex) != to_bf16(g);
            bf16_32 += to_bf16(ex) != to_bf16(g0);
        }
    }
    printf("every %u-th input: %ld; gelu16 relative error at most %.3e (2^%.2f) at %.9g\n", step, n, maxrel,
           log2(maxrel), at);
    printf("|x| < 20: %ld; rounded the other way: f16 gelu16 %ld (%.2e), gelu %ld (%.2e); "
           "bf16 gelu16 %ld (%.2e), gelu %ld (%.2e)\n",
           near, f16_16, (double)f16_16 / near, f16_32, (double)f16_32 / near, bf16_16, (double)bf16_16 / near,
           bf16_32, (double)bf16_32 / near);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--error") == 0)
        return scan(argc > 2 ? (unsigned)atoi(argv[2]) : 997);
    return fit_all();
}
