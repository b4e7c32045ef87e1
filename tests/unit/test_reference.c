/* test_reference.c - evt_reference_gemm in every layout against a hand computation,
 * and evt_reference_conv2d (padding, stride, dilation) against an explicit
 * im2col followed by a matrix product; then a whole fused kernel's reference:
 * reference accumulator -> interpreter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <evt/evt.h>

#include "interp/interp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x2545f4914f6cdd1du;

/* The next of rng's xorshift sequence. */
static uint64_t next_rng(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static float small_int(void)
{
    return (float)((int)(next_rng() >> 40) % 9 - 4);
}

/* A = [[1 2 3] [4 5 6]] (2 x 3), B = [[1 -1] [0 2] [3 0.5]] (3 x 2): A B = [[10 4.5] [22 9]]. */
static void test_gemm_layouts(void **state)
{
    (void)state;
    const float a_row[6] = {1, 2, 3, 4, 5, 6}, b_row[6] = {1, -1, 0, 2, 3, 0.5f};
    const double want[4] = {10, 4.5, 22, 9};
    /* the same matrices column-major, with padded leading dimensions */
    float a_col[3 * 3] = {1, 4, 0, 2, 5, 0, 3, 6, 0};       /* lda 3 >= M = 2 */
    float b_col[2 * 4] = {1, 0, 3, 0, -1, 2, 0.5f, 0};      /* ldb 4 >= K = 3 */
    for (int la = 0; la < 2; la++)
        for (int lb = 0; lb < 2; lb++) {
            const float *a = la ? a_col : a_row, *b = lb ? b_col : b_row;
            double d[2 * 3];
            float d32[2 * 3];
            memset(d, 0, sizeof d);
            assert_int_equal(evt_reference_gemm(2, 2, 3, EVT_F32, a,
                                                la ? EVT_LAYOUT_COL : EVT_LAYOUT_ROW, la ? 3 : 3, b,
                                                lb ? EVT_LAYOUT_COL : EVT_LAYOUT_ROW, lb ? 4 : 2, d,
                                                d32, 3),
                             EVT_OK);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) {
                    assert_true(d[i * 3 + j] == want[i * 2 + j]);
                    assert_true(d32[i * 3 + j] == (float)want[i * 2 + j]);
                }
            assert_true(d[2] == 0); /* ldd padding untouched */
        }
}

/* f16 and bf16 operands are read exactly; the sum is f64 (no f32 rounding). */
static void test_gemm_half_types(void **state)
{
    (void)state;
    const float af[4] = {1, 0x1p-24f, 0x1p-24f, 1}; /* A = [[1, 2^-24], [2^-24, 1]] */
    const float bf[4] = {1, 1, 1, 1};
    unsigned short a[4], b[4];
    for (int t = 0; t < 2; t++) {
        evt_elem e = t ? EVT_BF16 : EVT_F16;
        evt_convert_from_f32(e, af, a, 4);
        evt_convert_from_f32(e, bf, b, 4);
        double d[4];
        assert_int_equal(evt_reference_gemm(2, 2, 2, e, a, EVT_LAYOUT_ROW, 2, b, EVT_LAYOUT_ROW, 2,
                                            d, NULL, 2),
                         EVT_OK);
        assert_true(d[0] == 1 + 0x1p-24 && d[3] == 1 + 0x1p-24);
    }
}

/* An fp8 byte's value by its definition (sign, biased exponent, mantissa;
 * subnormals at the smallest exponent), for finite encodings. */
static double fp8_value(evt_elem e, unsigned char c)
{
    const int mbits = e == EVT_E4M3 ? 3 : 2, bias = e == EVT_E4M3 ? 7 : 15;
    const int ex = (c & 0x7f) >> mbits, man = c & ((1 << mbits) - 1);
    const double frac = (double)man / (1 << mbits);
    const double v = ex ? ldexp(1 + frac, ex - bias) : ldexp(frac, 1 - bias);
    return c & 0x80 ? -v : v;
}

/* A random finite fp8 byte of e (e4m3: not S.1111.111; e5m2: exponent not 31). */
static unsigned char fp8_draw(evt_elem e, unsigned *seed)
{
    for (;;) {
        *seed = *seed * 1103515245u + 12345u;
        const unsigned char c = (unsigned char)(*seed >> 16);
        if (e == EVT_E4M3 ? (c & 0x7f) != 0x7f : ((c >> 2) & 31) != 31)
            return c;
    }
}

/* fp8 operands, each combination the tensor cores take (e4m3 and e5m2
 * mixed), over every finite encoding, against the values decoded here
 * multiplied (exactly, in f64) and summed in the reference's order. */
static void test_gemm_fp8(void **state)
{
    (void)state;
    enum { M = 5, N = 7, K = 13 };
    unsigned seed = 7;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            const evt_elem ea = ta ? EVT_E5M2 : EVT_E4M3, eb = tb ? EVT_E5M2 : EVT_E4M3;
            unsigned char a[M * K], b[N * K]; /* A row-major, B column-major */
            for (int i = 0; i < M * K; i++)
                a[i] = fp8_draw(ea, &seed);
            for (int i = 0; i < N * K; i++)
                b[i] = fp8_draw(eb, &seed);
            double d[M * N];
            float d32[M * N];
            assert_int_equal(evt_reference_gemm_mixed(M, N, K, ea, a, EVT_LAYOUT_ROW, K, eb, b,
                                                      EVT_LAYOUT_COL, K, d, d32, N),
                             EVT_OK);
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double want = 0;
                    for (int p = 0; p < K; p++)
                        want += fp8_value(ea, a[i * K + p]) * fp8_value(eb, b[j * K + p]);
                    assert_true(d[i * N + j] == want);
                    assert_true(d32[i * N + j] == (float)want);
                }
            if (ta == tb) { /* evt_reference_gemm is the mixed one with one type */
                double same[M * N];
                assert_int_equal(evt_reference_gemm(M, N, K, ea, a, EVT_LAYOUT_ROW, K, b,
                                                    EVT_LAYOUT_COL, K, same, NULL, N),
                                 EVT_OK);
                assert_memory_equal(same, d, sizeof d);
            }
        }
    unsigned char z[4] = {0};
    double d[4];
    assert_int_equal(evt_reference_gemm_mixed(2, 2, 2, EVT_E4M3, z, EVT_LAYOUT_ROW, 2, EVT_I8, z,
                                              EVT_LAYOUT_COL, 2, d, NULL, 2),
                     EVT_ERR_INVALID_ARGUMENT);
}

static void test_gemm_errors(void **state)
{
    (void)state;
    float a[4] = {0}, b[4] = {0};
    double d[4];
    assert_int_equal(evt_reference_gemm(2, 2, 2, EVT_I8, a, EVT_LAYOUT_ROW, 2, b, EVT_LAYOUT_ROW, 2,
                                        d, NULL, 2),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_reference_gemm(2, 2, 2, EVT_F32, a, EVT_LAYOUT_NONE, 2, b, EVT_LAYOUT_ROW,
                                        2, d, NULL, 2),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_reference_gemm(2, 2, 2, EVT_F32, a, EVT_LAYOUT_ROW, 1, b, EVT_LAYOUT_ROW, 2,
                                        d, NULL, 2),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_reference_gemm(2, 2, 2, EVT_F32, a, EVT_LAYOUT_ROW, 2, b, EVT_LAYOUT_ROW, 2,
                                        NULL, NULL, 2),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_reference_gemm(2, 2, 2, EVT_F32, NULL, EVT_LAYOUT_ROW, 2, b, EVT_LAYOUT_ROW,
                                        2, d, NULL, 2),
                     EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_reference_gemm(2, 2, 0, EVT_F32, NULL, EVT_LAYOUT_ROW, 0, NULL,
                                        EVT_LAYOUT_ROW, 2, d, NULL, 2),
                     EVT_OK);
    assert_true(d[0] == 0 && d[3] == 0); /* K = 0: zeros */
}

/* conv2d against im2col: column (r, s, c) of row (n, p, q) is the input pixel the
 * filter tap (r, s) reads, or 0 in the padding; then [M, RSC] x [RSC, K]. */
static void conv_vs_im2col(const evt_conv_problem *c, evt_elem e)
{
    long long p, q;
    assert_int_equal(evt_conv_output_size(c, &p, &q), EVT_OK);
    long long nx = c->n * c->h * c->w * c->c, nw = c->k * c->r * c->s * c->c;
    long long m = c->n * p * q, kk = c->r * c->s * c->c;
    float *xf = malloc(nx * sizeof *xf), *wf = malloc(nw * sizeof *wf);
    unsigned char *x = malloc(nx * 4), *w = malloc(nw * 4);
    for (long long i = 0; i < nx; i++)
        xf[i] = small_int();
    for (long long i = 0; i < nw; i++)
        wf[i] = small_int();
    evt_convert_from_f32(e, xf, x, nx);
    evt_convert_from_f32(e, wf, w, nw);
    double *col = calloc(m * kk, sizeof *col);
    for (long long b = 0; b < c->n; b++)
        for (long long op = 0; op < p; op++)
            for (long long oq = 0; oq < q; oq++)
                for (long long r = 0; r < c->r; r++)
                    for (long long s = 0; s < c->s; s++)
                        for (long long ch = 0; ch < c->c; ch++) {
                            long long ih = op * c->stride_h + r * c->dil_h - c->pad_h;
                            long long iw = oq * c->stride_w + s * c->dil_w - c->pad_w;
                            long long row = b * p * q + op * q + oq;
                            long long k = (r * c->s + s) * c->c + ch;
                            if (ih >= 0 && ih < c->h && iw >= 0 && iw < c->w)
                                col[row * kk + k] = xf[((b * c->h + ih) * c->w + iw) * c->c + ch];
                        }
    long long ldy = c->k + 3;
    double *y = malloc(m * ldy * sizeof *y);
    float *y32 = malloc(m * ldy * sizeof *y32);
    assert_int_equal(evt_reference_conv2d(c, e, x, w, y, y32, ldy), EVT_OK);
    for (long long row = 0; row < m; row++)
        for (long long k = 0; k < c->k; k++) {
            double want = 0;
            for (long long t = 0; t < kk; t++)
                want += col[row * kk + t] * wf[k * kk + t];
            assert_true(y[row * ldy + k] == want);
            assert_true(y32[row * ldy + k] == (float)want);
        }
    free(xf), free(wf), free(x), free(w), free(col), free(y), free(y32);
}

static void test_conv2d(void **state)
{
    (void)state;
    const evt_conv_problem cases[] = {
        /* n h w c   k r s   pad   stride  dil */
        {1, 4, 4, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1},
        {2, 5, 6, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1},
        {2, 7, 6, 3, 5, 3, 2, 1, 2, 2, 1, 1, 2},
        {1, 9, 8, 2, 3, 3, 3, 2, 0, 2, 3, 2, 1},
        {3, 5, 5, 4, 2, 5, 5, 0, 0, 1, 1, 1, 1},
        {1, 3, 3, 2, 2, 2, 2, 3, 3, 4, 4, 3, 3}, /* padding wider than the taps reach */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        conv_vs_im2col(&cases[i], EVT_F16);
        conv_vs_im2col(&cases[i], EVT_BF16);
        conv_vs_im2col(&cases[i], EVT_F32);
    }
    long long p, q;
    evt_conv_output_size(&cases[2], &p, &q);
    assert_int_equal(p, 4); /* (7 + 2*1 - 1*(3-1) - 1)/2 + 1 */
    assert_int_equal(q, 8); /* (6 + 2*2 - 2*(2-1) - 1)/1 + 1 */
    /* errors */
    evt_conv_problem bad = cases[1];
    float x[1000] = {0};
    double y[1000];
    assert_int_equal(evt_reference_conv2d(NULL, EVT_F32, x, x, y, NULL, 4), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_reference_conv2d(&bad, EVT_I8, x, x, y, NULL, 4), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_reference_conv2d(&bad, EVT_F32, x, x, y, NULL, 3), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_reference_conv2d(&bad, EVT_F32, x, x, NULL, NULL, 4),
                     EVT_ERR_INVALID_ARGUMENT);
    bad.stride_h = 0;
    assert_int_equal(evt_reference_conv2d(&bad, EVT_F32, x, x, y, NULL, 4), EVT_ERR_INVALID_ARGUMENT);
}

/* Operands whose sums depend on their order: 2^40, 1 and their negatives
 * (f32, so every product is exact in f64 and only the order of the
 * additions can change a sum). */
static float order_sensitive(void)
{
    static const float v[] = {1099511627776.0f, -1099511627776.0f, 1.0f, -1.0f, 0.5f, 3.0f};
    return v[(next_rng() >> 40) % 6];
}

static int same_value(double x, double y)
{
    return (isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0;
}

/* The reference sums each element in the order of k, one addition at a
 * time, across its blocks (ref_sums: 67 rows, a 64-row strip and a part
 * one whose last 4-row panel is part padding; 130 columns, the last
 * 4-column panel half padding; K = 517, two 256-term blocks and a part
 * one), in every layout, and leaves D's padding alone. */
static void test_gemm_sum_order(void **state)
{
    (void)state;
    enum { M = 67, N = 130, K = 517, PAD = 3 };
    float *a = malloc(sizeof(float) * (M + PAD) * (K + PAD)), *b = malloc(sizeof(float) * (K + PAD) * (N + PAD));
    double *d = malloc(sizeof(double) * M * (N + PAD));
    for (int i = 0; i < (M + PAD) * (K + PAD); i++)
        a[i] = order_sensitive();
    for (int i = 0; i < (K + PAD) * (N + PAD); i++)
        b[i] = order_sensitive();
    for (int la = 0; la < 2; la++)
        for (int lb = 0; lb < 2; lb++) {
            const long long lda = la ? M + PAD : K + PAD, ldb = lb ? K + PAD : N + PAD;
            for (int i = 0; i < M * (N + PAD); i++)
                d[i] = -7.0;
            assert_int_equal(evt_reference_gemm(M, N, K, EVT_F32, a, la ? EVT_LAYOUT_COL : EVT_LAYOUT_ROW, lda, b,
                                                lb ? EVT_LAYOUT_COL : EVT_LAYOUT_ROW, ldb, d, NULL, N + PAD),
                             EVT_OK);
            int order_mattered = 0;
            for (int i = 0; i < M; i++) {
                for (int j = 0; j < N; j++) {
                    double want = 0, other = 0;
                    for (int p = 0; p < K; p++) {
                        double x = a[la ? p * lda + i : i * lda + p], y = b[lb ? j * ldb + p : p * ldb + j];
                        want += x * y;
                    }
                    for (int p = K - 1; p >= 0; p--)
                        other += (double)a[la ? p * lda + i : i * lda + p] * b[lb ? j * ldb + p : p * ldb + j];
                    order_mattered += want != other;
                    if (!same_value(d[i * (N + PAD) + j], want))
                        fail_msg("layouts %d%d: [%d, %d] = %a, want %a", la, lb, i, j, d[i * (N + PAD) + j], want);
                }
                for (int j = N; j < N + PAD; j++)
                    assert_true(d[i * (N + PAD) + j] == -7.0);
            }
            assert_true(order_mattered > 0); /* else the operands test nothing */
        }
    free(a), free(b), free(d);
}

/* The same for the conv: 602 output channels (the last 4-column panel
 * half padding), six images whose 72 rows cross a 64-row strip and share
 * its panels, r s c = 300 terms (a 256-term block ending inside a tap:
 * the next block's first pixel is found mid-tap), strides, dilation and
 * padding, where an infinite weight meets a padded tap (0 * inf: NaN, as
 * the GPU's). */
static void test_conv2d_sum_order(void **state)
{
    (void)state;
    const evt_conv_problem c = {6, 5, 4, 50, 602, 3, 2, 1, 1, 2, 1, 1, 2};
    long long p, q;
    assert_int_equal(evt_conv_output_size(&c, &p, &q), EVT_OK);
    const long long rsc = c.r * c.s * c.c, rows = c.n * p * q, ldy = c.k + 1;
    float *x = malloc(sizeof(float) * c.n * c.h * c.w * c.c), *w = malloc(sizeof(float) * c.k * rsc);
    double *y = malloc(sizeof(double) * rows * ldy);
    for (long long i = 0; i < c.n * c.h * c.w * c.c; i++)
        x[i] = order_sensitive();
    for (long long i = 0; i < c.k * rsc; i++)
        w[i] = order_sensitive();
    w[5 * rsc] = INFINITY; /* output channel 5, tap (0, 0), channel 0 */
    assert_int_equal(evt_reference_conv2d(&c, EVT_F32, x, w, y, NULL, ldy), EVT_OK);
    int nans = 0;
    for (long long row = 0; row < rows; row++) {
        long long b = row / (p * q), op = row / q % p, oq = row % q;
        for (long long k = 0; k < c.k; k++) {
            double want = 0;
            for (long long r = 0; r < c.r; r++)
                for (long long t = 0; t < c.s; t++)
                    for (long long ch = 0; ch < c.c; ch++) {
                        long long ih = op * c.stride_h - c.pad_h + r * c.dil_h;
                        long long iw = oq * c.stride_w - c.pad_w + t * c.dil_w;
                        int padded = ih < 0 || ih >= c.h || iw < 0 || iw >= c.w;
                        double xv = padded ? 0.0 : x[((b * c.h + ih) * c.w + iw) * c.c + ch];
                        want += xv * (double)w[(k * c.r + r) * c.s * c.c + t * c.c + ch];
                    }
            nans += isnan(want);
            if (!same_value(y[row * ldy + k], want))
                fail_msg("[%lld, %lld] = %a, want %a", row, k, y[row * ldy + k], want);
        }
    }
    assert_true(nans > 0); /* the padded tap was reached */
    free(x), free(w), free(y);
}

/* Random elements of e, finite (the top exponent bit cleared: below 2 in
 * magnitude, subnormals included) so that no sum is a NaN that would hide
 * a difference, and of both signs and many magnitudes so that every sum
 * depends on its order. */
static void random_bits(evt_elem e, unsigned char *p, size_t count)
{
    const size_t es = evt_elem_size(e);
    for (size_t i = 0; i < count * es; i++) {
        p[i] = (unsigned char)(next_rng() >> 32);
        if (i % es == es - 1) /* the element's top byte (little-endian): sign, then the top exponent bit */
            p[i] &= 0xbf;
    }
}

/* The reference's two forms (interp_reference_*_form: AVX2 where this CPU
 * has it, and the two-wide one every CPU runs) give the same bits, so that
 * a check's verdict does not depend on the machine: GEMMs across the
 * strips, panels and blocks, both layouts, every operand type, and convs. */
static void test_two_forms(void **state)
{
    (void)state;
    const evt_elem elems[] = {EVT_F16, EVT_BF16, EVT_F32, EVT_E4M3, EVT_E5M2};
    for (int t = 0; t < 40; t++) {
        const long long m = 1 + t * 7 % 71, n = 1 + t * 5 % 23, k = t * 37 % 600;
        const evt_elem ea = elems[t % 5], eb = elems[t / 5 % 5];
        const int la = t & 1, lb = t >> 1 & 1;
        const long long lda = la ? m : k > 0 ? k : 1, ldb = lb ? k > 0 ? k : 1 : n;
        unsigned char *a = malloc((size_t)((la ? k : m) * lda + 1) * 4);
        unsigned char *b = malloc((size_t)((lb ? n : k) * ldb + 1) * 4);
        double *d0 = malloc(sizeof(double) * (size_t)(m * n)), *d1 = malloc(sizeof(double) * (size_t)(m * n));
        random_bits(ea, a, (size_t)((la ? k : m) * lda));
        random_bits(eb, b, (size_t)((lb ? n : k) * ldb));
        assert_int_equal(interp_reference_gemm_form(0, m, n, k, ea, a, la ? EVT_LAYOUT_COL : EVT_LAYOUT_ROW, lda, eb,
                                                    b, lb ? EVT_LAYOUT_COL : EVT_LAYOUT_ROW, ldb, d0, NULL, n),
                         EVT_OK);
        assert_int_equal(interp_reference_gemm_form(1, m, n, k, ea, a, la ? EVT_LAYOUT_COL : EVT_LAYOUT_ROW, lda, eb,
                                                    b, lb ? EVT_LAYOUT_COL : EVT_LAYOUT_ROW, ldb, d1, NULL, n),
                         EVT_OK);
        for (long long i = 0; i < m * n; i++)
            if (!same_value(d0[i], d1[i]))
                fail_msg("gemm %d (%lldx%lldx%lld): [%lld] %a against %a", t, m, n, k, i, d0[i], d1[i]);
        free(a), free(b), free(d0), free(d1);
    }
    const evt_conv_problem c = {3, 7, 6, 40, 13, 3, 3, 1, 1, 2, 1, 1, 2};
    long long p, q;
    assert_int_equal(evt_conv_output_size(&c, &p, &q), EVT_OK);
    const long long rows = c.n * p * q;
    for (int e = 0; e < 5; e++) {
        unsigned char *x = malloc((size_t)(c.n * c.h * c.w * c.c) * 4);
        unsigned char *w = malloc((size_t)(c.k * c.r * c.s * c.c) * 4);
        double *y0 = malloc(sizeof(double) * (size_t)(rows * c.k)), *y1 = malloc(sizeof(double) * (size_t)(rows * c.k));
        random_bits(elems[e], x, (size_t)(c.n * c.h * c.w * c.c));
        random_bits(elems[e], w, (size_t)(c.k * c.r * c.s * c.c));
        assert_int_equal(interp_reference_conv2d_form(0, &c, elems[e], x, w, y0, NULL, c.k), EVT_OK);
        assert_int_equal(interp_reference_conv2d_form(1, &c, elems[e], x, w, y1, NULL, c.k), EVT_OK);
        for (long long i = 0; i < rows * c.k; i++)
            if (!same_value(y0[i], y1[i]))
                fail_msg("conv, element type %d: [%lld] %a against %a", e, i, y0[i], y1[i]);
        free(x), free(w), free(y0), free(y1);
    }
}

/* A whole fused kernel's reference: the f64 GEMM feeds the interpreter. */
static void test_gemm_then_epilogue(void **state)
{
    (void)state;
    const char src[] = "epilogue e { in b : f32[N]\n out y : f32[M, N] = relu(acc + b) }\n";
    evt_ctx *ctx = evt_ctx_create();
    evt_module *m = NULL;
    assert_int_equal(evt_module_parse_buffer(ctx, "k.evt", src, strlen(src), &m), EVT_OK);
    evt_interp *in = NULL;
    assert_int_equal(evt_interp_create(evt_module_find_epilogue(m, "e"), &in), EVT_OK);
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, -1, 0, 2, 3, 0.5f}, bias[2] = {-20, 0}, y[4];
    double acc[4];
    assert_int_equal(evt_reference_gemm(2, 2, 3, EVT_F32, a, EVT_LAYOUT_ROW, 3, b, EVT_LAYOUT_ROW, 2,
                                        acc, NULL, 2),
                     EVT_OK);
    evt_interp_set_acc_f64(in, 2, 2, acc, sizeof acc, 2);
    evt_interp_bind(in, "b", bias, sizeof bias, 0);
    evt_interp_bind(in, "y", y, sizeof y, 2);
    for (int mode = 0; mode < 2; mode++) {
        assert_int_equal(evt_interp_run(in, mode ? EVT_INTERP_F64 : EVT_INTERP_F32), EVT_OK);
        assert_true(y[0] == 0 && y[1] == 4.5f && y[2] == 2 && y[3] == 9);
    }
    evt_interp_destroy(in);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_layouts),
        cmocka_unit_test(test_gemm_half_types),
        cmocka_unit_test(test_gemm_fp8),
        cmocka_unit_test(test_gemm_errors),
        cmocka_unit_test(test_conv2d),
        cmocka_unit_test(test_gemm_sum_order),
        cmocka_unit_test(test_conv2d_sum_order),
        cmocka_unit_test(test_two_forms),
        cmocka_unit_test(test_gemm_then_epilogue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
