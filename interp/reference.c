/* reference.c - f64 mainloops (GEMM, conv2d forward) that give the accumulator
 * against which fused kernels are checked: each output element is one sequential
 * sum in f64 of the exact products of operands loaded through evt_math.h, in the
 * order of the reduced index.  The loops keep that order for every element but
 * run a block of elements side by side over operands repacked so that the
 * innermost loop reads contiguous memory: a dot product at a time made each
 * sum one chain of dependent additions, over strided loads. */
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

/* A rows x cols matrix whose element (i, j) is at src[i * rs + j * cs], as
 * dense row-major doubles. */
static double *widen_packed(evt_elem e, const void *src, long long rows, long long cols, long long rs,
                            long long cs)
{
    double *d = malloc(((size_t)rows * (size_t)cols + 1) * sizeof *d);
    size_t es = evt_elem_size(e);
    for (long long i = 0; d && i < rows; i++)
        for (long long j = 0; j < cols; j++)
            d[i * cols + j] = interp_load_f32(e, (const unsigned char *)src + (size_t)(i * rs + j * cs) * es);
    return d;
}

/* The GEMM's block of output elements summed side by side: 4 rows share
 * each load of B's row, 512 columns (16 KiB of sums) stay in the L1 cache. */
enum { REF_ROWS = 4, REF_COLS = 512 };

/* s[j] += x * y[j]: one more term of each of cols sums */
static void add_products(double *s, double x, const double *y, long long cols)
{
    for (long long j = 0; j < cols; j++)
        s[j] += x * y[j];
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

/* Stores a block's rows x cols sums at (row0, col0) of d / d32 (ld apart)
 * and zeroes them for the next block. */
static void drain_block(double *acc, long long rows, long long cols, double *d, float *d32, long long ld,
                        long long row0, long long col0)
{
    for (long long r = 0; r < rows; r++)
        for (long long j = 0; j < cols; j++) {
            put(acc[r * REF_COLS + j], d, d32, (size_t)((row0 + r) * ld + col0 + j));
            acc[r * REF_COLS + j] = 0;
        }
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
    /* A as m x k rows, B as k x n rows, both dense */
    double *wa = widen_packed(elem_a, a, m, k, row_a ? lda : 1, row_a ? 1 : lda);
    double *wb = widen_packed(elem_b, b, k, n, row_b ? ldb : 1, row_b ? 1 : ldb);
    double *acc = calloc(REF_ROWS * REF_COLS, sizeof(double));
    if (!wa || !wb || !acc) {
        free(wa);
        free(wb);
        free(acc);
        return EVT_ERR_NO_MEMORY;
    }
    for (long long i0 = 0; i0 < m; i0 += REF_ROWS) {
        long long rows = m - i0 < REF_ROWS ? m - i0 : REF_ROWS;
        for (long long j0 = 0; j0 < n; j0 += REF_COLS) {
            long long cols = n - j0 < REF_COLS ? n - j0 : REF_COLS;
            for (long long p = 0; p < k; p++)
                for (long long r = 0; r < rows; r++)
                    add_products(acc + r * REF_COLS, wa[(i0 + r) * k + p], wb + p * n + j0, cols);
            drain_block(acc, rows, cols, d, d32, ldd, i0, j0);
        }
    }
    free(wa);
    free(wb);
    free(acc);
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
    /* the filter as rsc x k rows: one (r, s, c) position's weights of every
     * output channel side by side */
    double *wx = widen(elem, x, (size_t)sx), *ww = widen_packed(elem, w, rsc, c->k, 1, rsc);
    double *acc = calloc(REF_ROWS * REF_COLS, sizeof(double));
    if (!wx || !ww || !acc) {
        free(wx);
        free(ww);
        free(acc);
        return EVT_ERR_NO_MEMORY;
    }
    for (long long row0 = 0; row0 < npq; row0 += REF_ROWS) { /* M index: NPQ order */
        long long rows = npq - row0 < REF_ROWS ? npq - row0 : REF_ROWS;
        /* each row's image and the input position of its tap (0, 0) */
        long long img[REF_ROWS], ih0[REF_ROWS], iw0[REF_ROWS];
        for (long long i = 0; i < rows; i++) {
            long long row = row0 + i;
            img[i] = row / q / p;
            ih0[i] = row / q % p * c->stride_h - c->pad_h;
            iw0[i] = row % q * c->stride_w - c->pad_w;
        }
        for (long long k0 = 0; k0 < c->k; k0 += REF_COLS) {
            long long cols = c->k - k0 < REF_COLS ? c->k - k0 : REF_COLS;
            for (long long r = 0; r < c->r; r++)
                for (long long t = 0; t < c->s; t++) {
                    /* each row's input pixel under tap (r, t), NULL in the padding */
                    const double *xp[REF_ROWS];
                    for (long long i = 0; i < rows; i++) {
                        long long ih = ih0[i] + r * c->dil_h, iw = iw0[i] + t * c->dil_w;
                        xp[i] = ih < 0 || ih >= c->h || iw < 0 || iw >= c->w
                                    ? NULL
                                    : wx + ((img[i] * c->h + ih) * c->w + iw) * c->c;
                    }
                    for (long long ch = 0; ch < c->c; ch++) {
                        const double *wp = ww + ((r * c->s + t) * c->c + ch) * c->k + k0;
                        /* Padding is zeros that are multiplied like any input (as
                         * cuDNN, PyTorch and our implicit GEMM do): 0 * inf is NaN. */
                        for (long long i = 0; i < rows; i++)
                            add_products(acc + i * REF_COLS, xp[i] ? xp[i][ch] : 0.0, wp, cols);
                    }
                }
            drain_block(acc, rows, cols, y, y32, ldy, row0, k0);
        }
    }
    free(wx);
    free(ww);
    free(acc);
    return EVT_OK;
}
