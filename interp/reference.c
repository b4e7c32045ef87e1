/* reference.c - naive f64 mainloops (GEMM, conv2d forward) that give the accumulator
 * against which fused kernels are checked: each output element is one sequential
 * sum in f64 of the exact products of operands loaded through evt_math.h. */
#include "interp.h"

#include <stdint.h>
#include <stdlib.h>

static int operand_elem_ok(evt_elem e)
{
    return e == EVT_F16 || e == EVT_BF16 || e == EVT_F32 || e == EVT_E4M3 || e == EVT_E5M2;
}

/* Loads a whole operand matrix as doubles (exact for every operand type). */
static double *widen(evt_elem e, const void *src, size_t count)
{
    double *d = malloc((count + 1) * sizeof *d);
    size_t es = evt_elem_size(e);
    for (size_t i = 0; d && i < count; i++)
        d[i] = interp_load_f32(e, (const unsigned char *)src + i * es);
    return d;
}

/* Elements spanned by rows x cols with rows ld apart, or -1 (overflow, ld < cols). */
static long long span(long long rows, long long cols, long long ld)
{
    long long s;
    if (rows < 0 || cols < 0 || ld < cols)
        return -1;
    if (rows == 0 || cols == 0)
        return 0;
    if (__builtin_mul_overflow(rows - 1, ld, &s) || __builtin_add_overflow(s, cols, &s))
        return -1;
    return s;
}

static void put(double v, double *d, float *d32, size_t at)
{
    if (d)
        d[at] = v;
    if (d32)
        d32[at] = (float)v;
}

evt_status evt_reference_gemm(long long m, long long n, long long k, evt_elem elem,
                              const void *a, evt_layout layout_a, long long lda, const void *b,
                              evt_layout layout_b, long long ldb, double *d, float *d32,
                              long long ldd)
{
    return evt_reference_gemm_mixed(m, n, k, elem, a, layout_a, lda, elem, b, layout_b, ldb, d, d32,
                                    ldd);
}

evt_status evt_reference_gemm_mixed(long long m, long long n, long long k, evt_elem elem_a,
                                    const void *a, evt_layout layout_a, long long lda,
                                    evt_elem elem_b, const void *b, evt_layout layout_b,
                                    long long ldb, double *d, float *d32, long long ldd)
{
    int row_a = layout_a == EVT_LAYOUT_ROW, row_b = layout_b == EVT_LAYOUT_ROW;
    if (!operand_elem_ok(elem_a) || !operand_elem_ok(elem_b) || (!row_a && layout_a != EVT_LAYOUT_COL) ||
        (!row_b && layout_b != EVT_LAYOUT_COL) || (!d && !d32))
        return EVT_ERR_INVALID_ARGUMENT;
    long long sa = row_a ? span(m, k, lda) : span(k, m, lda);
    long long sb = row_b ? span(k, n, ldb) : span(n, k, ldb);
    long long sd = span(m, n, ldd);
    if (sa < 0 || sb < 0 || sd < 0 || (sa && !a) || (sb && !b))
        return EVT_ERR_INVALID_ARGUMENT;
    double *wa = widen(elem_a, a, (size_t)sa), *wb = widen(elem_b, b, (size_t)sb);
    if (!wa || !wb) {
        free(wa);
        free(wb);
        return EVT_ERR_NO_MEMORY;
    }
    for (long long i = 0; i < m; i++)
        for (long long j = 0; j < n; j++) {
            double s = 0;
            for (long long p = 0; p < k; p++) {
                double x = wa[row_a ? i * lda + p : p * lda + i];
                double y = wb[row_b ? p * ldb + j : j * ldb + p];
                s += x * y;
            }
            put(s, d, d32, (size_t)(i * ldd + j));
        }
    free(wa);
    free(wb);
    return EVT_OK;
}

evt_status evt_reference_conv2d(const evt_conv_problem *c, evt_elem elem, const void *x,
                                const void *w, double *y, float *y32, long long ldy)
{
    long long p, q;
    if (!c || !operand_elem_ok(elem) || (!y && !y32) || evt_conv_output_size(c, &p, &q) != EVT_OK ||
        c->stride_h < 1 || c->stride_w < 1 || c->dil_h < 1 || c->dil_w < 1 || c->pad_h < 0 ||
        c->pad_w < 0)
        return EVT_ERR_INVALID_ARGUMENT;
    long long nhw, rsc, npq;
    if (__builtin_mul_overflow(c->n, c->h, &nhw) || __builtin_mul_overflow(nhw, c->w, &nhw) ||
        __builtin_mul_overflow(c->r, c->s, &rsc) || __builtin_mul_overflow(rsc, c->c, &rsc) ||
        __builtin_mul_overflow(c->n, p, &npq) || __builtin_mul_overflow(npq, q, &npq))
        return EVT_ERR_INVALID_ARGUMENT;
    long long sx = span(nhw, c->c, c->c), sw = span(c->k, rsc, rsc), sy = span(npq, c->k, ldy);
    if (sx < 0 || sw < 0 || sy < 0 || (sx && !x) || (sw && !w))
        return EVT_ERR_INVALID_ARGUMENT;
    double *wx = widen(elem, x, (size_t)sx), *ww = widen(elem, w, (size_t)sw);
    if (!wx || !ww) {
        free(wx);
        free(ww);
        return EVT_ERR_NO_MEMORY;
    }
    for (long long b = 0; b < c->n; b++)
        for (long long op = 0; op < p; op++)
            for (long long oq = 0; oq < q; oq++) {
                long long row = (b * p + op) * q + oq; /* M index: NPQ order */
                for (long long ok = 0; ok < c->k; ok++) {
                    double s = 0;
                    for (long long r = 0; r < c->r; r++) {
                        long long ih = op * c->stride_h - c->pad_h + r * c->dil_h;
                        for (long long t = 0; t < c->s; t++) {
                            long long iw = oq * c->stride_w - c->pad_w + t * c->dil_w;
                            const double *wp = ww + ((ok * c->r + r) * c->s + t) * c->c;
                            /* Padding is zeros that are multiplied like any input (as
                             * cuDNN, PyTorch and our implicit GEMM do): 0 * inf is NaN. */
                            if (ih < 0 || ih >= c->h || iw < 0 || iw >= c->w) {
                                for (long long ch = 0; ch < c->c; ch++)
                                    s += 0.0 * wp[ch];
                                continue;
                            }
                            const double *xp = wx + ((b * c->h + ih) * c->w + iw) * c->c;
                            for (long long ch = 0; ch < c->c; ch++)
                                s += xp[ch] * wp[ch];
                        }
                    }
                    put(s, y, y32, (size_t)(row * ldy + ok));
                }
            }
    free(wx);
    free(ww);
    return EVT_OK;
}
