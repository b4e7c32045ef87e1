/* reference.c - f64 mainloops (GEMM, conv2d forward) that give the accumulator
 * against which fused kernels are checked: each output element is one sequential
 * sum in f64 of the exact products of operands loaded through evt_math.h, in the
 * order of the reduced index.  The loops keep that order for every element but
 * compute blocks of elements side by side, in registers, over operands packed
 * into panels (ref_sums): a dot product at a time made each sum one chain of
 * dependent additions over strided loads, and a block summed in memory one
 * term at a time waited on its loads and stores. */
#include "interp.h"

#include <stdint.h>
#include <stdlib.h>

static int operand_elem_ok(evt_elem e)
{
    return e == EVT_F16 || e == EVT_BF16 || e == EVT_F32 || e == EVT_E4M3 || e == EVT_E5M2;
}

/*
 * The sums, register-blocked: REF_MR x REF_NR of them stay in registers
 * through REF_KC terms each (ref_micro), then go back to a strip of REF_MC
 * rows of sums that the next REF_KC terms continue.  A's block of that strip
 * is packed as REF_MR-row panels (ref_pack_a over ref_operand_a's rows: the
 * GEMM's, or the conv's gathered pixels), B once as REF_NR-column panels
 * (ref_pack_b), both zero-padded: a padded row or column is summed and
 * never stored.
 * Each sum still takes its terms in the order of the reduced index, and
 * every product of two operands (at most 24 significant bits each) is exact
 * in f64, so whether a compiler fuses the multiply and the add changes no
 * bit.  Against the block of four rows by 512 columns summed one term at a
 * time in memory (session 66): 3x faster at 2000^3, 2.2x on 3x3 convs, and
 * with AVX2 (ref_panels_avx2) 6.4x and 2.6-3x (docs/interpreter.md).
 */
enum { REF_MR = 4, REF_NR = 4, REF_KC = 256, REF_MC = 64 };

/* c's REF_MR x REF_NR sums (rows ldc apart) plus kc more terms each: a's
 * column p (REF_MR values) times b's row p (REF_NR values), p in order. */
static void ref_micro(long long kc, const double *restrict a, const double *restrict b, double *restrict c,
                      long long ldc)
{
    double s[REF_MR][REF_NR];
    for (int r = 0; r < REF_MR; r++)
        for (int j = 0; j < REF_NR; j++)
            s[r][j] = c[r * ldc + j];
    for (long long p = 0; p < kc; p++, a += REF_MR, b += REF_NR)
        for (int r = 0; r < REF_MR; r++)
            for (int j = 0; j < REF_NR; j++)
                s[r][j] += a[r] * b[j];
    for (int r = 0; r < REF_MR; r++)
        for (int j = 0; j < REF_NR; j++)
            c[r * ldc + j] = s[r][j];
}

/* The strip's panels_a panels of A (pa, kc terms each) times B's slice b
 * into their sums (c, rows ldc apart). */
static void ref_panels(long long kc, long long panels_a, const double *pa, const double *b, double *c, long long ldc)
{
    for (long long ip = 0; ip < panels_a; ip++)
        ref_micro(kc, pa + ip * REF_MR * kc, b, c + ip * REF_MR * ldc, ldc);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define REF_AVX2 1
/* ref_panels two panels at a time where the CPU has AVX2: 8 x 4 sums, a
 * register of four each row, eight independent additions a term where
 * the 4 x 4 block of two-wide registers has eight too but half as wide.
 * The same sums in the same order (the products are exact). */
_Static_assert(REF_NR == 4, "ref_micro2_avx2 holds a row's REF_NR sums in one four-wide register");
__attribute__((target("avx2"))) static void ref_micro2_avx2(long long kc, const double *restrict a0,
                                                            const double *restrict a1, const double *restrict b,
                                                            double *restrict c, long long ldc)
{
    __m256d s[2 * REF_MR];
    for (int r = 0; r < 2 * REF_MR; r++)
        s[r] = _mm256_loadu_pd(c + r * ldc);
    for (long long p = 0; p < kc; p++, a0 += REF_MR, a1 += REF_MR, b += REF_NR) {
        const __m256d y = _mm256_loadu_pd(b);
        for (int r = 0; r < REF_MR; r++) {
            s[r] = _mm256_add_pd(s[r], _mm256_mul_pd(_mm256_broadcast_sd(a0 + r), y));
            s[REF_MR + r] = _mm256_add_pd(s[REF_MR + r], _mm256_mul_pd(_mm256_broadcast_sd(a1 + r), y));
        }
    }
    for (int r = 0; r < 2 * REF_MR; r++)
        _mm256_storeu_pd(c + r * ldc, s[r]);
}

__attribute__((target("avx2"))) static void ref_panels_avx2(long long kc, long long panels_a, const double *pa,
                                                            const double *b, double *c, long long ldc)
{
    long long ip = 0;
    for (; ip + 1 < panels_a; ip += 2)
        ref_micro2_avx2(kc, pa + ip * REF_MR * kc, pa + (ip + 1) * REF_MR * kc, b, c + ip * REF_MR * ldc, ldc);
    if (ip < panels_a)
        ref_micro(kc, pa + ip * REF_MR * kc, b, c + ip * REF_MR * ldc, ldc);
}
#endif

/* The A operand of the sums: row writes row i's terms p0 .. p0 + kc - 1
 * at dst[0], dst[REF_MR], ... (its column of a panel). */
typedef struct ref_operand_a {
    void (*row)(const struct ref_operand_a *, double *dst, long long i, long long p0, long long kc);
    evt_elem elem;
    const unsigned char *at;
    long long rs, cs;             /* a GEMM's element (i, p) at at[i * rs + p * cs] */
    const evt_conv_problem *conv; /* a conv's problem, its output's p x q, and x as doubles */
    long long p, q;
    const double *x;
} ref_operand_a;

static void ref_row_gemm(const ref_operand_a *a, double *dst, long long i, long long p0, long long kc)
{
    const size_t es = evt_elem_size(a->elem);
    const unsigned char *row = a->at + (size_t)(i * a->rs) * es;
    for (long long p = 0; p < kc; p++)
        dst[p * REF_MR] = interp_load_f32(a->elem, row + (size_t)((p0 + p) * a->cs) * es);
}

/* A conv's row is an output pixel (n, p, q order), its term p = (tap r * s
 * + t) * c + channel: the input under that tap, zero in the padding, which
 * is multiplied like any input (as cuDNN, PyTorch and our implicit GEMM do:
 * 0 * inf is NaN). */
static void ref_row_conv(const ref_operand_a *a, double *dst, long long i, long long p0, long long kc)
{
    const evt_conv_problem *c = a->conv;
    const long long img = i / a->q / a->p;
    const long long ih0 = i / a->q % a->p * c->stride_h - c->pad_h, iw0 = i % a->q * c->stride_w - c->pad_w;
    long long tap = p0 / c->c, ch = p0 % c->c;
    const double *px = NULL; /* the pixel under tap `tap`, NULL in the padding */
    for (long long p = 0; p < kc; p++) {
        if (p == 0 || ch == 0) { /* a block may start inside a tap */
            const long long ih = ih0 + tap / c->s * c->dil_h, iw = iw0 + tap % c->s * c->dil_w;
            px = ih < 0 || ih >= c->h || iw < 0 || iw >= c->w ? NULL : a->x + ((img * c->h + ih) * c->w + iw) * c->c;
        }
        dst[p * REF_MR] = px ? px[ch] : 0.0;
        if (++ch == c->c) {
            ch = 0;
            tap++;
        }
    }
}

/* A's rows row0 .. row0 + rows - 1, terms p0 .. p0 + kc - 1, as panels of
 * REF_MR rows (panel i holds term p's REF_MR values at [p * REF_MR]); rows
 * past `rows` are zeros. */
static void ref_pack_a(const ref_operand_a *a, double *dst, long long row0, long long rows, long long p0, long long kc)
{
    for (long long i0 = 0; i0 < rows; i0 += REF_MR, dst += REF_MR * kc)
        for (long long r = 0; r < REF_MR; r++) {
            if (i0 + r < rows) {
                a->row(a, dst + r, row0 + i0 + r, p0, kc);
                continue;
            }
            for (long long p = 0; p < kc; p++)
                dst[p * REF_MR + r] = 0.0;
        }
}

/* B (k x n, element (p, j) at b[p * rs + j * cs]) as panels of REF_NR
 * columns, each k x REF_NR row-major; columns past n are zeros. */
static double *ref_pack_b(evt_elem e, const unsigned char *b, long long rs, long long cs, long long k, long long n)
{
    const long long panels = (n + REF_NR - 1) / REF_NR;
    double *dst = malloc(((size_t)panels * REF_NR * (size_t)k + 1) * sizeof *dst);
    const size_t es = evt_elem_size(e);
    for (long long jp = 0; dst && jp < panels; jp++)
        for (long long p = 0; p < k; p++)
            for (long long j = 0; j < REF_NR; j++) {
                const long long col = jp * REF_NR + j;
                dst[(jp * k + p) * REF_NR + j] =
                    col < n ? interp_load_f32(e, b + (size_t)(p * rs + col * cs) * es) : 0.0;
            }
    return dst;
}

static void put(double v, double *d, float *d32, size_t at)
{
    if (d)
        d[at] = v;
    if (d32)
        d32[at] = (float)v;
}

typedef void ref_panels_fn(long long kc, long long panels_a, const double *pa, const double *b, double *c,
                           long long ldc);

/* ref_sums' panels: the widest form this CPU runs where `wide` is set,
 * else the two-wide one. */
static ref_panels_fn *ref_panels_of(int wide)
{
#ifdef REF_AVX2
    if (wide && __builtin_cpu_supports("avx2"))
        return ref_panels_avx2;
#endif
    (void)wide;
    return ref_panels;
}

/* d / d32 (m x n, rows ld apart) = A B over k terms, B's panels pb; in the
 * widest form the CPU runs where `wide` is set (ref_panels_of). */
static evt_status ref_sums(long long m, long long n, long long k, const ref_operand_a *a, const double *pb, double *d,
                           float *d32, long long ld, int wide)
{
    const long long panels = (n + REF_NR - 1) / REF_NR, ldc = panels * REF_NR;
    const long long strip = m < REF_MC ? (m + REF_MR - 1) / REF_MR * REF_MR : REF_MC;
    const long long kc_most = k < REF_KC ? k : REF_KC;
    double *pa = malloc(((size_t)strip * (size_t)kc_most + 1) * sizeof *pa);
    double *sums = malloc(((size_t)strip * (size_t)ldc + 1) * sizeof *sums);
    if (!pa || !sums) {
        free(pa);
        free(sums);
        return EVT_ERR_NO_MEMORY;
    }
    ref_panels_fn *const panels_fn = ref_panels_of(wide);
    for (long long row0 = 0; row0 < m; row0 += strip) {
        const long long rows = m - row0 < strip ? m - row0 : strip;
        const long long panels_a = (rows + REF_MR - 1) / REF_MR;
        for (long long i = 0; i < panels_a * REF_MR * ldc; i++)
            sums[i] = 0;
        for (long long p0 = 0; p0 < k; p0 += REF_KC) {
            const long long kc = k - p0 < REF_KC ? k - p0 : REF_KC;
            ref_pack_a(a, pa, row0, rows, p0, kc);
            /* B's kc x REF_NR slice stays in the L1 cache through the strip's panels */
            for (long long jp = 0; jp < panels; jp++)
                panels_fn(kc, panels_a, pa, pb + (jp * k + p0) * REF_NR, sums + jp * REF_NR, ldc);
        }
        for (long long r = 0; r < rows; r++)
            for (long long j = 0; j < n; j++)
                put(sums[r * ldc + j], d, d32, (size_t)((row0 + r) * ld + j));
    }
    free(pa);
    free(sums);
    return EVT_OK;
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
    return interp_reference_gemm_form(1, m, n, k, elem_a, a, layout_a, lda, elem_b, b, layout_b, ldb, d, d32, ldd);
}

evt_status interp_reference_gemm_form(int wide, long long m, long long n, long long k, evt_elem elem_a,
                                      const void *a, evt_layout layout_a, long long lda, evt_elem elem_b,
                                      const void *b, evt_layout layout_b, long long ldb, double *d, float *d32,
                                      long long ldd)
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
    if (m == 0 || n == 0)
        return EVT_OK;
    const ref_operand_a op = {ref_row_gemm, elem_a, a, row_a ? lda : 1, row_a ? 1 : lda, NULL, 0, 0, NULL};
    double *pb = ref_pack_b(elem_b, b, row_b ? ldb : 1, row_b ? 1 : ldb, k, n);
    if (!pb)
        return EVT_ERR_NO_MEMORY;
    evt_status st = ref_sums(m, n, k, &op, pb, d, d32, ldd, wide);
    free(pb);
    return st;
}

evt_status evt_reference_conv2d(const evt_conv_problem *c, evt_elem elem, const void *x,
                                const void *w, double *y, float *y32, long long ldy)
{
    return interp_reference_conv2d_form(1, c, elem, x, w, y, y32, ldy);
}

evt_status interp_reference_conv2d_form(int wide, const evt_conv_problem *c, evt_elem elem, const void *x,
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
    if (npq == 0 || c->k == 0)
        return EVT_OK;
    /* x as doubles once (a pixel is packed under each of the r x s taps),
     * the filter as rsc x k: one (r, s, c) position's weights of every
     * output channel side by side */
    double *xd = malloc(((size_t)sx + 1) * sizeof *xd);
    double *pb = ref_pack_b(elem, w, 1, rsc, rsc, c->k);
    if (!xd || !pb) {
        free(xd);
        free(pb);
        return EVT_ERR_NO_MEMORY;
    }
    const size_t es = evt_elem_size(elem);
    for (long long i = 0; i < sx; i++)
        xd[i] = interp_load_f32(elem, (const unsigned char *)x + (size_t)i * es);
    const ref_operand_a op = {ref_row_conv, elem, NULL, 0, 0, c, p, q, xd};
    evt_status st = ref_sums(npq, c->k, rsc, &op, pb, y, y32, ldy, wide);
    free(xd);
    free(pb);
    return st;
}
