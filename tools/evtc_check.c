/*
 * evtc_check.c - `evtc run --check`: the f64 reference of a run's rows
 * (evt_reference_gemm's sums, split over threads, then the epilogue in
 * evt_interp_*), every output judged against it (evt_check_*), and the
 * looks at values off that the accumulator's rounding or f32's own
 * arithmetic explain: the bracket's ends, what the reference reaches
 * between them (evtc_reach.h), a reduction's blocks, the f32
 * interpreter's values (docs/runtime.md, "the third look").  Also
 * EVT_RUN_EMULATE, the seam that tests all that on the CPU.
 */
#define _POSIX_C_SOURCE 200809L
#include "evtc_check.h"
#include "evtc_common.h"
#include "evtc_reach.h"

#include <evt/evt.h>

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the reference -------------------------------------------------------------- */

/* The reference's slices, at most: one a processor, up to 16. */
enum { MAX_SLICES = 16 };

static long long slices_max(void)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > MAX_SLICES ? MAX_SLICES : cpus < 1 ? 1 : cpus;
}

/* Runs fn on each of count slices, slice t at (char *)slices + t * size
 * (at most MAX_SLICES), each on a thread of its own where there are several (in
 * this one where a thread cannot start), and returns a failed slice's
 * status, each slice's evt_status at byte offset st_off, else EVT_OK. */
static evt_status run_slices(void *slices, size_t size, size_t st_off, long long count, void *(*fn)(void *))
{
    pthread_t tid[MAX_SLICES];
    int started[MAX_SLICES] = {0};
    for (long long t = 0; t < count; t++) {
        void *slice = (char *)slices + (size_t)t * size;
        started[t] = count > 1 && pthread_create(&tid[t], NULL, fn, slice) == 0;
        if (!started[t])
            fn(slice);
    }
    evt_status st = EVT_OK;
    for (long long t = 0; t < count; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        const evt_status slice_st = *(const evt_status *)((const char *)slices + (size_t)t * size + st_off);
        if (slice_st != EVT_OK)
            st = slice_st;
    }
    return st;
}

/* One slice of rows of the reference GEMM, for a thread of its own. */
typedef struct gemm_slice {
    long long m, n, k;
    evt_elem elem, elem_b; /* A's, B's */
    const unsigned char *a;
    evt_layout layout_a;
    long long lda;
    const void *b;
    evt_layout layout_b;
    long long ldb;
    double *d;
    evt_status st;
} gemm_slice;

static void *gemm_slice_run(void *arg)
{
    gemm_slice *g = arg;
    g->st = evt_reference_gemm_mixed(g->m, g->n, g->k, g->elem, g->a, g->layout_a, g->lda, g->elem_b,
                                     g->b, g->layout_b, g->ldb, g->d, NULL, g->n > 0 ? g->n : 1);
    return NULL;
}

/*
 * evt_reference_gemm over slices of rows on several threads (it is a pure
 * function).  Each call widens all of B to doubles, so the threads are as
 * many as the processors, at most 16, and as many as 4 GiB of such copies.
 */
static evt_status parallel_gemm(long long m, long long n, long long k, evt_elem elem,
                                const void *a, evt_layout layout_a, long long lda, evt_elem elem_b,
                                const void *b, evt_layout layout_b, long long ldb, double *d)
{
    double b_bytes = 8.0 * (double)n * (double)k + 1;
    long long threads = slices_max();
    if (threads > (long long)(4294967296.0 / b_bytes))
        threads = (long long)(4294967296.0 / b_bytes);
    if (threads > m / 4)
        threads = m / 4;
    if (threads < 1)
        threads = 1;
    gemm_slice g[MAX_SLICES];
    size_t es = evt_elem_size(elem);
    for (long long t = 0; t < threads; t++) {
        long long r0 = m * t / threads, r1 = m * (t + 1) / threads;
        /* Row r0 of A starts r0 rows in (row-major) or r0 elements in (column-major). */
        size_t off = (size_t)(layout_a == EVT_LAYOUT_COL ? r0 : r0 * lda) * es;
        g[t] = (gemm_slice){r1 - r0, n, k, elem, elem_b, (const unsigned char *)a + off, layout_a,
                            lda, b, layout_b, ldb, d + r0 * n, EVT_OK};
    }
    return run_slices(g, sizeof g[0], offsetof(gemm_slice, st), threads, gemm_slice_run);
}

/* Images of the reference conv for a thread of its own: image `images[i]`
 * of the batch goes to rows i*p*q... of d. */
typedef struct conv_slice {
    evt_conv_problem one; /* the problem with n = 1 */
    evt_elem elem;
    const unsigned char *x;
    const void *w;
    const long long *images;
    long long count;
    double *d;
    evt_status st;
} conv_slice;

static void *conv_slice_run(void *arg)
{
    conv_slice *c = arg;
    const evt_conv_problem *p = &c->one;
    long long pq, pp, qq;
    evt_conv_output_size(p, &pp, &qq);
    pq = pp * qq;
    size_t image = (size_t)(p->h * p->w * p->c) * evt_elem_size(c->elem);
    /* consecutive images in one call: each call packs the whole filter,
     * which for a 1x1 layer of many small images cost as much as the
     * products (64x7x7x512 -> 2048: 1 M weights an image of 49 pixels) */
    for (long long i = 0, len; i < c->count && c->st == EVT_OK; i += len) {
        for (len = 1; i + len < c->count && c->images[i + len] == c->images[i] + len;)
            len++;
        evt_conv_problem batch = *p;
        batch.n = len;
        c->st = evt_reference_conv2d(&batch, c->elem, c->x + (size_t)c->images[i] * image, c->w,
                                     c->d + i * pq * p->k, NULL, p->k);
    }
    return NULL;
}

/* evt_reference_conv2d for the images whose rows are `rows` (whole images,
 * in order; see check_rows), on up to MAX_SLICES threads. */
static evt_status parallel_conv(const evt_conv_problem *c, evt_elem elem, const void *x,
                                const void *w, const long long *rows, long long nrows, double *d)
{
    long long p, q;
    if (evt_conv_output_size(c, &p, &q) != EVT_OK)
        return EVT_ERR_INVALID_ARGUMENT;
    long long pq = p * q, nimages = nrows / pq;
    long long *images = malloc((size_t)(nimages + 1) * sizeof *images);
    if (!images)
        return EVT_ERR_NO_MEMORY;
    for (long long i = 0; i < nimages; i++)
        images[i] = rows[i * pq] / pq;
    long long threads = slices_max();
    threads = threads > nimages ? (nimages > 0 ? nimages : 1) : threads;
    conv_slice s[MAX_SLICES];
    evt_conv_problem one = *c;
    one.n = 1;
    for (long long t = 0; t < threads; t++) {
        long long i0 = nimages * t / threads, i1 = nimages * (t + 1) / threads;
        s[t] = (conv_slice){one, elem, x, w, images + i0, i1 - i0, d + i0 * pq * c->k, EVT_OK};
    }
    evt_status st = run_slices(s, sizeof s[0], offsetof(conv_slice, st), threads, conv_slice_run);
    free(images);
    return st;
}

/* An accumulator acc moved by s of its move d (d NaN: none, acc stays). */
static double moved_acc(double acc, double d, double s)
{
    return isnan(d) ? acc : acc + s * d;
}

/* Frees each output's reference in refs (reference_epilogue's) and clears it. */
static void drop_refs(const run *r, double **refs)
{
    for (size_t i = 0; refs && i < r->nout; i++) {
        free(refs[i]);
        refs[i] = NULL;
    }
}

/* Clears the signs of n operand elements of e in place (f16, bf16, e4m3,
 * e5m2: sign and magnitude): |A| and |B| for the products' magnitudes. */
static void clear_signs(evt_elem e, unsigned char *x, size_t n)
{
    size_t es = evt_elem_size(e);
    for (size_t i = 0; i < n; i++)
        x[i * es + es - 1] &= 0x7f; /* the sign: the top bit of the last byte (little-endian) */
}

/* A copy of n elements of e, or NULL. */
static unsigned char *copy_of(evt_elem e, const void *src, size_t n)
{
    unsigned char *d = malloc(n * evt_elem_size(e) + 1);
    if (d)
        memcpy(d, src, n * evt_elem_size(e));
    return d;
}

/*
 * The reference accumulator for rows rows[0..nrows) of the problem, into
 * d (nrows x N, row-major): A·B in f64 (evt_reference_gemm, or the conv's),
 * over just those rows of A where they are a sample.  magnitude: |A|·|B|
 * instead, each element's sum of its products' magnitudes.
 */
static int reference_acc(run *r, const long long *rows, long long nrows, int magnitude, double *d)
{
    const run_options *o = r->o;
    long long n = o->n, k = o->k;
    const evt_operand_info *oa = evt_kernel_operand(r->k, 0), *ob = evt_kernel_operand(r->k, 1);
    size_t es = evt_elem_size(r->a.elem);
    const void *a = r->a.host, *b = r->b.host;
    evt_layout layout_a = oa->layout;
    long long lda = r->a.ld;
    size_t count_a = r->a.per ? r->a.per : r->a.count;
    unsigned char *own_a = NULL, *own_b = NULL;
    evt_status st = EVT_OK;
    /* A sample of rows: the reference multiplies just those rows of A. */
    if (nrows < o->m && !o->have_conv) {
        if (!(own_a = malloc((size_t)(nrows * k) * es + 1)))
            st = EVT_ERR_NO_MEMORY;
        for (long long i = 0; own_a && i < nrows; i++)
            for (long long p = 0; p < k; p++) {
                long long at = oa->layout == EVT_LAYOUT_COL ? p * r->a.ld + rows[i]
                                                            : rows[i] * r->a.ld + p;
                memcpy(own_a + (size_t)(i * k + p) * es, r->a.host + (size_t)at * es, es);
            }
        a = own_a;
        layout_a = EVT_LAYOUT_ROW;
        lda = k;
        count_a = (size_t)(nrows * k);
    }
    if (st == EVT_OK && magnitude) {
        size_t count_b = r->b.per ? r->b.per : r->b.count;
        if (!own_a)
            a = own_a = copy_of(r->a.elem, a, count_a);
        b = own_b = copy_of(r->b.elem, b, count_b);
        if (!own_a || !own_b) {
            st = EVT_ERR_NO_MEMORY;
        } else {
            clear_signs(r->a.elem, own_a, count_a);
            clear_signs(r->b.elem, own_b, count_b);
        }
    }
    if (st == EVT_OK)
        st = o->have_conv ? parallel_conv(&o->conv, r->a.elem, a, b, rows, nrows, d)
                          : parallel_gemm(nrows, n, k, r->a.elem, a, layout_a, lda > 0 ? lda : 1, r->b.elem, b,
                                          ob->layout, r->b.ld > 0 ? r->b.ld : 1, d);
    if (st != EVT_OK)
        fprintf(stderr, "%s: error: the reference %s failed: %s\n", o->prog, o->have_conv ? "conv2d" : "GEMM",
                evt_status_string(st));
    free(own_a);
    free(own_b);
    return st == EVT_OK ? 0 : EXIT_OUTSIDE;
}

/*
 * The reference outputs for rows rows[0..nrows) and columns cols[0..ncols)
 * (cols NULL: every column, ncols ignored), from their accumulator acc
 * (nrows x ncols, reference_acc's where every column is given): the
 * epilogue in f64 (evt_interp_*; or in the GPU's f32, mode) over that grid, with the [M, N], [M] and
 * [N] inputs gathered to match.  refs[o] receives output o, compact: nrows
 * x ncols values for [M, N], nrows for [M], ncols for [N], 1 for a scalar;
 * the last two mean something only when every row is given.  A
 * reduce_sum's magnitudes (evt_interp_bind_magnitude) follow its values in
 * refs[o], as many again.
 */
static int reference_epilogue(run *r, const long long *rows, long long nrows, const long long *cols, long long ncols,
                              const double *acc, evt_interp_mode mode, double **refs)
{
    const run_options *o = r->o;
    long long n = cols ? ncols : o->n;
    int all_rows = nrows == o->m;
    int rc = EXIT_OUTSIDE;
    unsigned char **gathered = calloc(r->nin + 1, sizeof *gathered);
    evt_interp *in = NULL;
    evt_status st;
    if (!gathered)
        goto oom;
    if ((st = evt_interp_create(r->ep, &in)) != EVT_OK) {
        fprintf(stderr, "%s: error: the reference interpreter: %s\n", o->prog, evt_status_string(st));
        goto done;
    }
    for (size_t p = 0; p < r->nparam && st == EVT_OK; p++)
        st = evt_interp_set_param(in, evt_epilogue_arg(r->ep, EVT_ARG_PARAM, p)->name, r->param[p]);
    if (st == EVT_OK)
        st = evt_interp_set_acc_f64(in, nrows, n, acc, (size_t)(nrows * n) * sizeof *acc, n > 0 ? n : 1);
    /* Inputs: [M, N], [M] and [N] ones cut down to the grid. */
    for (size_t i = 0; i < r->nin && st == EVT_OK; i++) {
        const evt_arg_info *info = evt_epilogue_arg(r->ep, EVT_ARG_INPUT, i);
        const buffer *b = &r->in[i];
        size_t ies = evt_elem_size(b->elem);
        int by_row = (info->shape & EVT_SHAPE_M) && !all_rows, by_col = (info->shape & EVT_SHAPE_N) && cols;
        if (!by_row && !by_col) {
            st = evt_interp_bind(in, info->name, b->host, b->bytes, b->ld);
            continue;
        }
        long long nr = info->shape & EVT_SHAPE_M ? nrows : 1, nc = info->shape & EVT_SHAPE_N ? n : 1;
        if (!(gathered[i] = malloc((size_t)(nr * nc) * ies + 1)))
            goto oom;
        for (long long j = 0; j < nr; j++) {
            /* an [M] input's elements are its rows: ld 1 */
            long long row = info->shape & EVT_SHAPE_M ? (by_row ? rows[j] : j) : 0;
            long long at = info->shape == EVT_SHAPE_M ? row : row * b->ld;
            if (!by_col) {
                memcpy(gathered[i] + (size_t)(j * nc) * ies, b->host + (size_t)at * ies, (size_t)nc * ies);
                continue;
            }
            for (long long c = 0; c < nc; c++)
                memcpy(gathered[i] + (size_t)(j * nc + c) * ies, b->host + (size_t)(at + cols[c]) * ies, ies);
        }
        st = evt_interp_bind(in, info->name, gathered[i], (size_t)(nr * nc) * ies,
                             info->shape == EVT_SHAPE_MN ? (nc > 0 ? nc : 1) : 1);
    }
    /* Outputs: their f64 values before conversion. */
    for (size_t i = 0; i < r->nout && st == EVT_OK; i++) {
        const evt_arg_info *info = evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, i);
        size_t count = info->shape == EVT_SHAPE_MN  ? (size_t)(nrows * n)
                       : info->shape == EVT_SHAPE_M ? (size_t)nrows
                       : info->shape == EVT_SHAPE_N ? (size_t)n
                                                    : 1;
        /* a sum's magnitudes after its values (evt_check_sums) */
        const size_t mags = info->reduce == EVT_REDUCE_SUM ? count : 0;
        if (!(refs[i] = malloc((count + mags + 1) * sizeof **refs)))
            goto oom;
        st = evt_interp_bind_f64(in, info->name, refs[i], count * sizeof **refs,
                                 info->shape == EVT_SHAPE_MN && n > 0 ? n : 1);
        if (st == EVT_OK && mags)
            st = evt_interp_bind_magnitude(in, info->name, refs[i] + count, mags * sizeof **refs);
    }
    if (st == EVT_OK)
        st = evt_interp_run(in, mode);
    if (st != EVT_OK)
        fprintf(stderr, "%s: error: the reference interpreter failed: %s\n", o->prog,
                in && evt_interp_last_error(in)[0] ? evt_interp_last_error(in) : evt_status_string(st));
    rc = st == EVT_OK ? 0 : EXIT_OUTSIDE;
    goto done;
oom:
    fprintf(stderr, "%s: error: out of memory for the reference\n", o->prog);
done:
    evt_interp_destroy(in);
    for (size_t i = 0; gathered && i < r->nin; i++)
        free(gathered[i]);
    free(gathered);
    return rc;
}

/* ---- --check ---------------------------------------------------------------------- */

/*
 * Rows the check covers (evt_check_rows): every row when an output reduces
 * over M or the problem is small, else a sample.  A conv goes by whole
 * images (the p*q rows of one batch element), since its reference runs
 * image by image.
 */
static long long *check_rows(run *r, int every_row, long long *nrows)
{
    const run_options *o = r->o;
    long long block = o->have_conv && o->conv.n > 0 ? o->m / o->conv.n : 1;
    long long *rows = malloc((size_t)(o->m + 1) * sizeof *rows);
    if (rows && evt_check_rows(o->m, o->n, o->k, block > 0 ? block : 1, every_row,
                               evt_splitmix64(&r->rng), rows, nrows) != EVT_OK) {
        free(rows);
        rows = NULL;
    }
    return rows;
}

static const char *reduce_suffix(evt_reduce r)
{
    switch (r) {
    case EVT_REDUCE_NONE: return "";
    case EVT_REDUCE_SUM: return " = reduce_sum";
    case EVT_REDUCE_MAX: return " = reduce_max";
    case EVT_REDUCE_MIN: return " = reduce_min";
    }
    return "";
}

/*
 * Elements of each element-wise output that the kernel never writes.  The
 * first run started from all-ones bytes; after copying its results back,
 * this poisons the outputs with zero bytes and runs again: an element the
 * kernel writes is the same both times (element-wise outputs involve no
 * atomics), one it skips keeps each poison.  This also finds the skipped
 * elements whose reference is NaN, which a NaN poison alone would hide.
 */
static int count_unwritten(run *r, long long *unwritten)
{
    unsigned char **second = calloc(r->nout + 1, sizeof *second);
    int rc = second ? 0 : EXIT_OUTSIDE;
    evt_status st = EVT_OK;
    for (size_t i = 0; !rc && i < r->nout; i++) {
        buffer *b = &r->out[i];
        if (evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, i)->reduce != EVT_REDUCE_NONE)
            continue;
        if (!(second[i] = calloc(b->bytes + 1, 1)))
            rc = EXIT_OUTSIDE;
        else if ((st = evt_device_copy_to(r->ctx, b->dev, second[i], b->bytes)) != EVT_OK)
            rc = evtc_run_failed(r, st, "copying to the GPU");
    }
    if (!rc && ((st = evt_launch_run(r->launch, NULL)) != EVT_OK ||
                (st = evt_device_synchronize(r->ctx)) != EVT_OK))
        rc = evtc_run_failed(r, st, "launch");
    for (size_t i = 0; !rc && i < r->nout; i++) {
        buffer *b = &r->out[i];
        if (!second[i])
            continue;
        if ((st = evt_device_copy_from(r->ctx, second[i], b->dev, b->bytes)) != EVT_OK) {
            rc = evtc_run_failed(r, st, "copying an output from the GPU");
            break;
        }
        size_t es = evt_elem_size(b->elem);
        for (size_t first = 0; b->per && first < b->count; first += b->per) /* each problem */
            for (long long row = 0; row < b->rows; row++)
                for (long long col = 0; col < b->cols; col++) {
                    size_t at = (first + (size_t)(row * b->ld + col)) * es;
                    unwritten[i] += memcmp(b->host + at, second[i] + at, es) != 0;
                }
    }
    if (rc == EXIT_OUTSIDE && !second)
        fprintf(stderr, "%s: error: out of memory\n", r->o->prog);
    for (size_t i = 0; second && i < r->nout; i++)
        free(second[i]);
    free(second);
    return rc;
}

static void view_problem(run *r, long long l);
static int compare(run *r, long long l, long long batch, const long long *rows, long long nrows, const double *acc,
                   double **refs, const long long *unwritten, size_t *failed_outputs, size_t *checked_outputs);

/*
 * EVT_RUN_EMULATE, a test of --check itself on the CPU
 * (tests/cli/emulate_check.sh): the outputs checked are not the GPU's but
 * the f32 interpreter's (the GPU's arithmetic, by contract) on the f64
 * accumulator moved by u F d, d its rounding as the bracket takes it and u
 * in [-1, 1] drawn from the seed, each element its own.  "1": F = 1/64,
 * less than an f32 accumulation carries, so --check must pass; "wrong": F
 * = 16, past the bracket, as a kernel off by a product or two, so it must
 * fail.  One problem of a GEMM within the reference's budget (every row).
 */
static int emulate(run *r, const char *how)
{
    const run_options *o = r->o;
    const double f = strcmp(how, "wrong") == 0 ? 16 : 1.0 / 64;
    const double tol = evt_check_tolerance(EVT_F32, EVT_REDUCE_NONE);
    if (o->have_conv || o->batch > 1 || (double)o->m * (double)o->n * (double)o->k > (double)EVT_CHECK_SAMPLE_MACS) {
        fprintf(stderr, "%s: error: EVT_RUN_EMULATE takes one GEMM problem of at most 2^32 multiply-adds\n",
                o->prog);
        return EXIT_INVALID;
    }
    const size_t count = (size_t)(o->m * o->n);
    long long *rows = malloc(((size_t)o->m + 1) * sizeof *rows);
    double *acc = malloc((count + 1) * sizeof *acc), *mag = malloc((count + 1) * sizeof *mag);
    evt_interp *in = NULL;
    int rc = rows && acc && mag ? 0 : EXIT_OUTSIDE;
    for (long long j = 0; !rc && j < o->m; j++)
        rows[j] = j;
    rc = rc ? rc : reference_acc(r, rows, o->m, 0, acc);
    rc = rc ? rc : reference_acc(r, rows, o->m, 1, mag);
    unsigned long long x = o->seed; /* the draw of u, from the seed */
    for (size_t e = 0; !rc && e < count; e++) {
        double u = (double)(evt_splitmix64(&x) >> 11) * 0x1p-53 * 2 - 1;
        if (isfinite(acc[e]) && isfinite(mag[e]))
            acc[e] += u * f * tol * mag[e];
    }
    evt_status st = rc ? EVT_OK : evt_interp_create(r->ep, &in);
    for (size_t p = 0; !rc && st == EVT_OK && p < r->nparam; p++)
        st = evt_interp_set_param(in, evt_epilogue_arg(r->ep, EVT_ARG_PARAM, p)->name, r->param[p]);
    if (!rc && st == EVT_OK)
        st = evt_interp_set_acc_f64(in, o->m, o->n, acc, count * sizeof *acc, o->n > 0 ? o->n : 1);
    for (size_t i = 0; !rc && st == EVT_OK && i < r->nin; i++)
        st = evt_interp_bind(in, evt_epilogue_arg(r->ep, EVT_ARG_INPUT, i)->name, r->in[i].host, r->in[i].bytes,
                             r->in[i].ld);
    for (size_t i = 0; !rc && st == EVT_OK && i < r->nout; i++)
        st = evt_interp_bind(in, evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, i)->name, r->out[i].host,
                             r->out[i].bytes, r->out[i].ld > 0 ? r->out[i].ld : 1);
    if (!rc && st == EVT_OK)
        st = evt_interp_run(in, EVT_INTERP_F32);
    if (!rc && st != EVT_OK) {
        fprintf(stderr, "%s: error: EVT_RUN_EMULATE: %s\n", o->prog,
                in && evt_interp_last_error(in)[0] ? evt_interp_last_error(in) : evt_status_string(st));
        rc = EXIT_OUTSIDE;
    }
    if (!rc)
        printf("check: EVT_RUN_EMULATE=%s: the outputs are the f32 interpreter's, the accumulator moved by up to "
               "%g of its rounding, not the GPU's\n",
               how, f);
    evt_interp_destroy(in);
    free(rows);
    free(acc);
    free(mag);
    return rc;
}

/* --check (evtc_check.h). */
int evtc_run_check(run *r)
{
    const run_options *o = r->o;
    long long nrows = 0;
    int every_row = evt_check_needs_every_row(r->ep);
    long long *rows = check_rows(r, every_row, &nrows);
    double **refs = calloc(r->nout + 1, sizeof *refs);
    long long *unwritten = calloc(r->nout + 1, sizeof *unwritten);
    double *acc = malloc(((size_t)(nrows * o->n) + 1) * sizeof *acc);
    int rc = 0;
    if (!rows || !refs || !unwritten || !acc) {
        fprintf(stderr, "%s: error: out of memory for the reference\n", o->prog);
        rc = EXIT_OUTSIDE;
    }
    for (size_t i = 0; !rc && i < r->nout; i++) {
        evt_status st = evt_device_copy_from(r->ctx, r->out[i].host, r->out[i].dev, r->out[i].bytes);
        if (st != EVT_OK)
            rc = evtc_run_failed(r, st, "copying an output from the GPU");
    }
    const char *emulating = getenv("EVT_RUN_EMULATE");
    if (!rc && emulating && *emulating)
        rc = emulate(r, emulating); /* every element written: nothing to count */
    else if (!rc)
        rc = count_unwritten(r, unwritten);
    double macs = (double)o->m * (double)o->n * (double)o->k;
    if (!rc && nrows < o->m)
        printf("check: %lld of %lld rows%s (the reference covers at most 2^32 multiply-adds)\n",
               nrows, o->m, o->have_conv ? ", whole images" : "");
    else if (!rc && every_row && macs > (double)EVT_CHECK_SAMPLE_MACS)
        printf("check: every row (a reduction over M needs them all): %.3g multiply-adds on the "
               "CPU\n",
               macs);
    fflush(stdout);
    /* A batch's problems one by one, each against its own reference (the
     * same rows of each); a batch of more than 8 prints the failures only. */
    const long long batch = o->have_conv ? 1 : o->batch;
    size_t failed_outputs = 0, checked_outputs = 0;
    for (long long l = 0; !rc && l < batch; l++) {
        view_problem(r, l);
        rc = reference_acc(r, rows, nrows, 0, acc);
        rc = rc ? rc : reference_epilogue(r, rows, nrows, NULL, 0, acc, EVT_INTERP_F64, refs);
        rc = rc ? rc : compare(r, l, batch, rows, nrows, acc, refs, unwritten, &failed_outputs, &checked_outputs);
        view_problem(r, -l);
        drop_refs(r, refs);
    }
    if (!rc) {
        if (failed_outputs)
            printf("check: FAIL (%zu of %zu outputs%s)\n", failed_outputs, checked_outputs,
                   batch > 1 ? " of the batch's problems" : "");
        else if (batch > 1)
            printf("check: PASS (%zu outputs: %zu of each of %lld problems)\n", checked_outputs, r->nout, batch);
        else
            printf("check: PASS (%zu outputs)\n", checked_outputs);
        rc = failed_outputs ? EXIT_MISMATCH : 0;
    }
    free(acc);
    free(refs);
    free(rows);
    free(unwritten);
    return rc;
}

/* Moves every buffer's host copy l problems along the batch: to problem l
 * from problem 0, and back with -l. */
static void view_problem(run *r, long long l)
{
    buffer *ab[2] = {&r->a, &r->b};
    for (size_t i = 0; i < 2 + r->nin + r->nout; i++) {
        buffer *b = i < 2 ? ab[i] : i < 2 + r->nin ? &r->in[i - 2] : &r->out[i - 2 - r->nin];
        b->host += (ptrdiff_t)l * (ptrdiff_t)(b->per * evt_elem_size(b->elem));
    }
}

/*
 * The bracket's references (evt_check_values_bracketed) into lo and hi:
 * the epilogue on the accumulator acc moved down and up by the f32
 * tolerance (1e-4) of its products' magnitudes, where both are finite;
 * that move into *moves (nrows x N, NaN where there is none, the caller's
 * to free).
 */
static int bracket(run *r, const long long *rows, long long nrows, const double *acc, double **lo, double **hi,
                   double **moves)
{
    const size_t count = (size_t)(nrows * r->o->n);
    const double tol = evt_check_tolerance(EVT_F32, EVT_REDUCE_NONE);
    double *mag = malloc((count + 1) * sizeof *mag), *moved = malloc((count + 1) * sizeof *moved);
    int rc = EXIT_OUTSIDE;
    if (mag && moved)
        rc = reference_acc(r, rows, nrows, 1, mag);
    else
        fprintf(stderr, "%s: error: out of memory for the reference\n", r->o->prog);
    for (size_t i = 0; !rc && i < count; i++)
        mag[i] = isfinite(acc[i]) && isfinite(mag[i]) ? tol * mag[i] : NAN;
    for (int side = -1; !rc && side <= 1; side += 2) {
        for (size_t i = 0; i < count; i++)
            moved[i] = moved_acc(acc[i], mag[i], side);
        rc = reference_epilogue(r, rows, nrows, NULL, 0, moved, EVT_INTERP_F64, side < 0 ? lo : hi);
    }
    free(moved);
    if (rc)
        free(mag);
    else
        *moves = mag;
    return rc;
}

/* ---- the looks at values off ------------------------------------------------------ */

/*
 * Whether value e of an output (stored at g8; its reference want and the
 * bracket's ends lo and hi) is off on its own, judged with the whole
 * output's tolerance and floor (v).  evt_check_values_bracketed on one
 * value takes that value's size as its floor, so a float within the
 * tolerance of the whole floor is not off here.
 */
static int off_alone(evt_elem elem, evt_reduce reduce, const unsigned char *g8, double want, double lo, double hi,
                     const evt_check_verdict *v)
{
    evt_check_verdict one;
    if (evt_check_values_bracketed(elem, reduce, g8, &want, &lo, &hi, 1, &one, NULL) != EVT_OK || one.passed)
        return 0;
    if (elem == EVT_I8 || elem == EVT_I32)
        return 1;
    float g, w = evtc_stored(elem, want);
    evt_convert_to_f32(elem, g8, &g, 1);
    return !isfinite(g) || !isfinite(w) || fabs((double)g - w) > v->tol * v->floor;
}

/*
 * Whether a reduce_sum's value g (as a float) is off against its
 * reference want and magnitude mag as evt_check_sums judges it, with the
 * output's tolerance and floor (v); *fl receives the floor it took.
 */
static int sum_off(evt_elem elem, float g, double want, double mag, const evt_check_verdict *v, double *fl)
{
    float w = evtc_stored(elem, want);
    *fl = isfinite(mag) ? fmax(v->floor, mag * 0x1p-12) : v->floor;
    if (!isfinite(g) || !isfinite(w))
        return !((isnan(g) && isnan(w)) || g == w);
    return !(fabs((double)g - w) <= v->tol * fmax(fabs((double)w), *fl));
}

/* A look's verdict on a value it explains: a sum's stored value (got, a
 * copy) becomes its reference rounded, which keeps the output's floor (the
 * references' own); any other's ends (lo, hi) become the value itself. */
static void settle(evt_elem elem, int sum, unsigned char *got, double want, double *lo, double *hi, float g)
{
    if (sum)
        evt_convert_from_f64(elem, &want, got, 1);
    else
        *lo = *hi = g;
}

/* refine's bounds: a grid's cells (its candidates' rows x their columns),
 * and the candidates it looks at in all, in grids one after another. */
enum { REFINE_CELLS = 1 << 16, REFINE_VALUES = 4096 };

/* refine's evaluation (evtc_reach_eval): output `out` on the grid of rows
 * grid_rows and columns gcols, accumulators acc moved by s d (d NaN: not). */
typedef struct grid {
    run *r;
    size_t out;
    const long long *rows, *cols;
    long long nrows, ncols;
    const double *acc, *d;
    double *moved;
    double **refs;
} grid;

static int grid_eval(void *user, const double *s, double *y, size_t cells)
{
    grid *g = user;
    for (size_t c = 0; c < cells; c++)
        g->moved[c] = moved_acc(g->acc[c], g->d[c], s[c]);
    int rc = reference_epilogue(g->r, g->rows, g->nrows, g->cols, g->ncols, g->moved, EVT_INTERP_F64, g->refs);
    if (!rc)
        memcpy(y, g->refs[g->out], cells * sizeof *y);
    drop_refs(g->r, g->refs);
    return rc;
}

/*
 * A second look at output `out`'s values off that the bracket's ends did
 * not explain (an element-wise [M, N] output; got, want, lo and hi its
 * stored values, reference and ends, compact over the checked rows;
 * moves the bracket's, NaN where it made none): on grids of the rows and
 * columns holding such values, what the reference reaches while the
 * accumulator moves within its rounding (evtc_reach.h).  A value it
 * reached gets the value itself as both ends, and the output is checked
 * again into *v (its tolerance and floor kept).  Values past the first
 * REFINE_VALUES keep the ends' verdict.
 */
static int refine(run *r, size_t out, const unsigned char *got, const double *want, double *lo, double *hi,
                  const long long *rows, long long nrows, const double *acc, const double *moves,
                  evt_check_verdict *v, long long *explained)
{
    const evt_elem elem = evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, out)->elem;
    const long long n = r->o->n;
    const size_t count = (size_t)(nrows * n), es = evt_elem_size(elem);
    /* cand: the candidates' indices; rix / cix: a row's (index into rows) and column's place in the grid, or -1 */
    size_t *cand = malloc((REFINE_VALUES + 1) * sizeof *cand), ncand = 0;
    long long *rix = malloc((size_t)(nrows + 1) * sizeof *rix), *cix = malloc((size_t)(n + 1) * sizeof *cix);
    long long *grows = malloc((size_t)(nrows + 1) * sizeof *grows), *gcols = malloc((size_t)(n + 1) * sizeof *gcols);
    long long *grid_rows = malloc((size_t)(nrows + 1) * sizeof *grid_rows);
    double *gacc = malloc((REFINE_CELLS + 1) * sizeof *gacc), *gd = malloc((REFINE_CELLS + 1) * sizeof *gd);
    evtc_reach *h = malloc((REFINE_CELLS + 1) * sizeof *h);
    grid gr = {.r = r,
               .out = out,
               .rows = grid_rows,
               .cols = gcols,
               .acc = gacc,
               .d = gd,
               .moved = malloc((REFINE_CELLS + 1) * sizeof *gr.moved),
               .refs = calloc(r->nout + 1, sizeof *gr.refs)};
    int rc = 0;
    if (!cand || !rix || !cix || !grows || !gcols || !grid_rows || !gacc || !gd || !h || !gr.moved || !gr.refs) {
        fprintf(stderr, "%s: error: out of memory for the reference\n", r->o->prog);
        rc = EXIT_OUTSIDE;
    }
    /* The candidates: values off alone against their ends. */
    for (size_t e = 0; !rc && e < count && ncand < REFINE_VALUES; e++)
        if (!isnan(moves[e]) && off_alone(elem, EVT_REDUCE_NONE, got + e * es, want[e], lo[e], hi[e], v))
            cand[ncand++] = e;
    for (long long j = 0; !rc && j < nrows; j++)
        rix[j] = -1;
    for (long long c = 0; !rc && c < n; c++)
        cix[c] = -1;
    /* Grid after grid: candidates from `first` on while their rows x columns fit. */
    for (size_t first = 0, next; !rc && first < ncand; first = next) {
        long long ng = 0, nc = 0;
        for (next = first; next < ncand; next++) {
            long long j = (long long)cand[next] / n, c = (long long)cand[next] % n;
            if ((ng + (rix[j] < 0)) * (nc + (cix[c] < 0)) > REFINE_CELLS)
                break;
            if (rix[j] < 0)
                grows[rix[j] = ng++] = j;
            if (cix[c] < 0)
                gcols[cix[c] = nc++] = c;
        }
        for (long long q = 0; q < ng; q++) {
            grid_rows[q] = rows[grows[q]];
            for (long long c = 0; c < nc; c++) {
                size_t e = (size_t)(grows[q] * n + gcols[c]), g = (size_t)(q * nc + c);
                gacc[g] = acc[e];
                gd[g] = moves[e];
            }
        }
        gr.nrows = ng;
        gr.ncols = nc;
        rc = evtc_reach_over(r->o->prog, (size_t)(ng * nc), 1, elem, grid_eval, &gr, h);
        for (size_t t = first; !rc && t < next; t++) {
            size_t e = cand[t];
            float f;
            evt_convert_to_f32(elem, got + e * es, &f, 1);
            if (evtc_reach_holds(&h[rix[(long long)e / n] * nc + cix[(long long)e % n]], elem, f, v->tol, v->floor))
                lo[e] = hi[e] = f;
        }
        for (long long q = 0; q < ng; q++)
            rix[grows[q]] = -1;
        for (long long c = 0; c < nc; c++)
            cix[gcols[c]] = -1;
    }
    if (!rc && ncand &&
        evt_check_values_bracketed(elem, EVT_REDUCE_NONE, got, want, lo, hi, count, v, explained) != EVT_OK)
        rc = EXIT_OUTSIDE;
    free(cand);
    free(rix);
    free(cix);
    free(grows);
    free(gcols);
    free(grid_rows);
    free(gacc);
    free(gd);
    free(h);
    free(gr.moved);
    free(gr.refs);
    return rc;
}

/* reduction_look's shifts, 0 and +-2^-k for k from REDUCTION_POWERS down
 * to 0, and its blocks along the reduced dimension, at most. */
enum { REDUCTION_POWERS = 8, REDUCTION_BLOCKS = 256 };
/* The values phase two looks at, at most: past a few hundred values off
 * after phase one, a kernel is wrong more likely than singular.  And its
 * blocks, at most: one line each (a row, or a column for a reduction over
 * N) up to this many, so that a term's pole is a change of its block's
 * sign (a minimum of four rows stays negative while one of them runs
 * through its pole: p6020 under EVT_RUN_EMULATE). */
enum { REDUCTION_LEFT = 256, REDUCTION_LINES = 4096 };

/* The value a reduction starts from, which its blocks' spans combine into. */
static double reduction_identity(evt_reduce red)
{
    return red == EVT_REDUCE_SUM ? 0 : red == EVT_REDUCE_MIN ? INFINITY : -INFINITY;
}

/* A block's reach (blk) into the reduction's (into), as the reduction
 * combines its blocks: a sum adds their least and greatest, a minimum
 * takes the least of each, a maximum the greatest. */
static void combine(evt_reduce red, evtc_reach *into, const evtc_reach *blk)
{
    into->nan |= blk->nan;
    into->pinf |= blk->pinf;
    into->ninf |= blk->ninf;
    if (blk->least > blk->most)
        return; /* no finite value */
    if (red == EVT_REDUCE_SUM) {
        into->least += blk->least;
        into->most += blk->most;
    } else {
        double (*pick)(double, double) = red == EVT_REDUCE_MIN ? fmin : fmax;
        into->least = pick(into->least, blk->least);
        into->most = pick(into->most, blk->most);
    }
}

/*
 * Whether reduction value e, off (*off set), lies within the span sp a
 * reduction_look reached (rounded to the output type, widened by the
 * tolerance, a sum's magnitude floor and what f32 atomics lose); if so it
 * is settled.  mag: a sum's magnitudes, or NULL.
 */
static int reduction_settles(evt_elem elem, evt_reduce red, const double *mag, unsigned char *got,
                             const double *want, double *lo, double *hi, const evt_check_verdict *v,
                             long long extent, const evtc_reach *sp, size_t e, int *off)
{
    const size_t es = evt_elem_size(elem);
    float g;
    double fl = v->floor;
    evt_convert_to_f32(elem, got + e * es, &g, 1);
    *off = mag ? sum_off(elem, g, want[e], mag[e], v, &fl)
               : off_alone(elem, red, got + e * es, want[e], lo[e], hi[e], v);
    if (!*off)
        return 0;
    /* The GPU adds a sum's partials (a tile's, 16 terms or more) with f32 atomics, which flush
     * a subnormal partial to zero (PTX atom.add.f32): up to FLT_MIN a partial lost. */
    if (mag)
        fl = fmax(fl, FLT_MIN * (double)(extent / 16 + 1) / v->tol);
    evtc_reach h = {.least = INFINITY, .most = -INFINITY, .nan = sp->nan, .pinf = sp->pinf, .ninf = sp->ninf};
    if (sp->least <= sp->most) { /* the span rounded to the output type */
        evtc_reach_add(&h, 1, elem, sp->least);
        evtc_reach_add(&h, 1, elem, sp->most);
    }
    if (!evtc_reach_holds(&h, elem, g, v->tol, fl))
        return 0;
    settle(elem, mag != NULL, got + e * es, want[e], &lo[e], &hi[e], g);
    return 1;
}

/* reduction_look's evaluation (evtc_reach_eval): one block's partial
 * results, for the values of `lines` each with its own move, or, lines
 * NULL, for all of a reduction over M at once, every column moved by
 * s[0]. */
typedef struct block_eval {
    run *r;
    size_t out;
    const long long *rows; /* the checked rows */
    long long nrows, b0, b1;
    int by_col;                      /* a reduction over N: the block is columns b0..b1, the cells rows */
    const long long *lines;          /* the cells' columns (rows when by_col; indices into rows) */
    const long long *grid_lines;     /* their global rows when by_col */
    long long *block_cols;           /* b0..b1 when by_col */
    const double *acc, *moves;
    double *moved, **refs;
} block_eval;

/* Makes b block blk of `blocks` along a reduced dimension of `extent`:
 * lines b0..b1, and those columns in block_cols for a reduction over N. */
static void block_at(block_eval *b, long long extent, long long blk, long long blocks)
{
    b->b0 = extent * blk / blocks;
    b->b1 = extent * (blk + 1) / blocks;
    for (long long c = b->b0; b->by_col && c < b->b1; c++)
        b->block_cols[c - b->b0] = c;
}

static int block_partials(void *user, const double *s, double *y, size_t cells)
{
    block_eval *b = user;
    const long long n = b->r->o->n, w = b->b1 - b->b0;
    int rc;
    if (b->by_col) { /* the cells' rows x the block's columns */
        for (size_t k = 0; k < cells; k++)
            for (long long c = 0; c < w; c++) {
                size_t e = (size_t)(b->lines[k] * n + b->b0 + c);
                b->moved[k * (size_t)w + (size_t)c] = moved_acc(b->acc[e], b->moves[e], s[k]);
            }
        rc = reference_epilogue(b->r, b->grid_lines, (long long)cells, b->block_cols, w, b->moved, EVT_INTERP_F64,
                                b->refs);
    } else if (b->lines) { /* the block's rows x the cells' columns */
        for (long long j = 0; j < w; j++)
            for (size_t k = 0; k < cells; k++) {
                size_t e = (size_t)((b->b0 + j) * n + b->lines[k]);
                b->moved[(size_t)j * cells + k] = moved_acc(b->acc[e], b->moves[e], s[k]);
            }
        rc = reference_epilogue(b->r, b->rows + b->b0, w, b->lines, (long long)cells, b->moved, EVT_INTERP_F64,
                                b->refs);
    } else { /* the block's rows, every column: a reduction over M or both */
        for (size_t e = (size_t)(b->b0 * n); e < (size_t)(b->b1 * n); e++)
            b->moved[e - (size_t)(b->b0 * n)] = moved_acc(b->acc[e], b->moves[e], s[0]);
        rc = reference_epilogue(b->r, b->rows + b->b0, w, NULL, 0, b->moved, EVT_INTERP_F64, b->refs);
    }
    if (!rc)
        memcpy(y, b->refs[b->out], cells * sizeof *y);
    drop_refs(b->r, b->refs);
    return rc;
}

/*
 * reduction_look's phase two: for the values left[0..nleft) (output
 * indices), block by block, what each block's partial result reaches while
 * its accumulators move (evtc_reach_over, unrounded: partial sums add
 * before they round), combined as the reduction does into all[].
 */
static int reduction_poles(run *r, size_t out, const long long *rows, long long nrows, const double *acc,
                           const double *moves, long long blocks, long long extent, int by_col, const size_t *left,
                           size_t nleft, evtc_reach *all)
{
    const evt_arg_info *info = evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, out);
    const long long n = r->o->n;
    const int whole = info->shape != EVT_SHAPE_M && info->shape != EVT_SHAPE_N;
    const size_t cells = whole ? 1 : nleft;
    const long long widest = (extent + blocks - 1) / blocks + 1;
    block_eval b = {.r = r, .out = out, .rows = rows, .nrows = nrows, .by_col = by_col, .acc = acc, .moves = moves};
    long long *lines = malloc((cells + 1) * sizeof *lines), *grid_lines = malloc((cells + 1) * sizeof *grid_lines);
    b.block_cols = malloc((size_t)(widest + 1) * sizeof *b.block_cols);
    b.moved = malloc(((size_t)widest * (whole ? (size_t)n : cells) + 1) * sizeof *b.moved);
    b.refs = calloc(r->nout + 1, sizeof *b.refs);
    evtc_reach *h = malloc((cells + 1) * sizeof *h);
    evtc_reach *sum = malloc((cells + 1) * sizeof *sum);
    int rc = lines && grid_lines && b.block_cols && b.moved && b.refs && h && sum ? 0 : EXIT_OUTSIDE;
    if (rc)
        fprintf(stderr, "%s: error: out of memory for the reference\n", r->o->prog);
    for (size_t k = 0; !rc && k < cells; k++) {
        lines[k] = whole ? 0 : (long long)left[k];
        grid_lines[k] = by_col && !whole ? rows[left[k]] : 0;
    }
    b.lines = whole ? NULL : lines;
    b.grid_lines = grid_lines;
    const double id = reduction_identity(info->reduce);
    for (size_t k = 0; !rc && k < cells; k++)
        sum[k] = (evtc_reach){id, id, 0, 0, 0};
    for (long long blk = 0; !rc && blk < blocks; blk++) {
        block_at(&b, extent, blk, blocks);
        rc = evtc_reach_over(r->o->prog, cells, 0, info->elem, block_partials, &b, h);
        for (size_t k = 0; !rc && k < cells; k++)
            combine(info->reduce, &sum[k], &h[k]);
    }
    for (size_t k = 0; !rc && k < nleft; k++)
        all[left[k]] = sum[whole ? 0 : k];
    free(lines);
    free(grid_lines);
    free(b.block_cols);
    free(b.moved);
    free(b.refs);
    free(h);
    free(sum);
    return rc;
}

/*
 * A reduction's look at its values still off (output `out`, a reduce_sum,
 * _max or _min; got, want, lo and hi compact as refs; count values).  A
 * reduction's terms can be singular in the accumulator:
 * reduce_sum(1024 / acc, M) is carried by its terms nearest acc = 0, each
 * moved past any tolerance by its own rounding (p6004 and p6039, session
 * 71), and a minimum of such terms moves with them (p6020).  The terms
 * move independently, so the reduced dimension is cut into blocks (rows
 * for a reduction over M or both, columns over N; REDUCTION_BLOCKS at
 * most) and each block's partial result is taken with its accumulators
 * moved by s of their rounding (moves, the bracket's), s = 0 and +-2^-k
 * (k = REDUCTION_POWERS down to 0).  The blocks' least and greatest
 * combine as the reduction does (a sum adds them, a minimum takes the
 * least of each), which spans what independent blocks reach; the values
 * that leaves off get a second phase (reduction_poles).  A value
 * within that span, widened by the tolerance (a sum's by its magnitude
 * floor too, evt_check_sums, and by what f32 atomics lose) passes
 * (settle), and the output is checked again into *v.
 */
static int reduction_look(run *r, size_t out, unsigned char *got, const double *want, double *lo, double *hi,
                          const long long *rows, long long nrows, const double *acc, const double *moves,
                          size_t count, evt_check_verdict *v, long long *explained, double there[2])
{
    const evt_arg_info *info = evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, out);
    const evt_elem elem = info->elem;
    const evt_reduce red = info->reduce;
    const long long n = r->o->n;
    const int by_col = info->shape == EVT_SHAPE_M; /* a reduction over N: blocks of columns */
    const long long extent = by_col ? n : nrows;
    const long long blocks = extent < REDUCTION_BLOCKS ? extent : REDUCTION_BLOCKS;
    const double *mag = red == EVT_REDUCE_SUM ? want + count : NULL;
    /* Phase one's evaluation: each block moved by one s, all its values at
     * once (block_partials; by_col, the cells are every checked row) */
    const long long widest = (extent + blocks - 1) / blocks + 1;
    block_eval be = {.r = r, .out = out, .rows = rows, .nrows = nrows, .by_col = by_col, .acc = acc, .moves = moves};
    long long *lines = by_col ? malloc(((size_t)nrows + 1) * sizeof *lines) : NULL;
    be.block_cols = malloc((size_t)(widest + 1) * sizeof *be.block_cols);
    be.moved = malloc(((size_t)widest * (size_t)(by_col ? nrows : n) + 1) * sizeof *be.moved);
    be.refs = calloc(r->nout + 1, sizeof *be.refs);
    double *s = malloc((count + 1) * sizeof *s), *y = malloc((count + 1) * sizeof *y);
    evtc_reach *all = malloc((count + 1) * sizeof *all), *blk = malloc((count + 1) * sizeof *blk);
    int rc = (!by_col || lines) && be.block_cols && be.moved && be.refs && s && y && all && blk ? 0 : EXIT_OUTSIDE;
    if (rc)
        fprintf(stderr, "%s: error: out of memory for the reference\n", r->o->prog);
    for (long long j = 0; !rc && by_col && j < nrows; j++)
        lines[j] = j;
    be.lines = lines;
    be.grid_lines = rows;
    const double id = reduction_identity(red);
    for (size_t e = 0; !rc && e < count; e++)
        all[e] = (evtc_reach){id, id, 0, 0, 0};
    for (long long b = 0; !rc && b < blocks; b++) {
        block_at(&be, extent, b, blocks);
        for (size_t e = 0; e < count; e++)
            blk[e] = (evtc_reach){INFINITY, -INFINITY, 0, 0, 0};
        for (int t = -1 - REDUCTION_POWERS; !rc && t <= 1 + REDUCTION_POWERS; t++) {
            /* s from -1 through -2^-REDUCTION_POWERS, 0 and 2^-REDUCTION_POWERS to 1 */
            const double sh = t == 0 ? 0 : (t < 0 ? -1 : 1) * ldexp(1, -(REDUCTION_POWERS + 1 - abs(t)));
            for (size_t e = 0; e < count; e++)
                s[e] = sh;
            rc = block_partials(&be, s, y, count);
            for (size_t e = 0; !rc && e < count; e++)
                evtc_reach_add(&blk[e], 0, elem, y[e]);
        }
        for (size_t e = 0; !rc && e < count; e++)
            combine(red, &all[e], &blk[e]);
    }
    /* Phase one: the blocks moved as one.  Phase two, for the values it
     * leaves off: each block's partial result on those values alone
     * (their columns, or rows for a reduction over N) through
     * evtc_reach_over, whose halvings run up a pole between its points. */
    long long passed = 0;
    size_t *left = malloc((count + 1) * sizeof *left), nleft = 0;
    if (!rc && !left)
        rc = EXIT_OUTSIDE;
    for (size_t e = 0; !rc && e < count; e++) {
        int off = 0;
        if (reduction_settles(elem, red, mag, got, want, lo, hi, v, extent, &all[e], e, &off))
            passed++;
        else if (off && nleft < REDUCTION_LEFT)
            left[nleft++] = e;
    }
    if (!rc && nleft)
        rc = reduction_poles(r, out, rows, nrows, acc, moves, extent < REDUCTION_LINES ? extent : REDUCTION_LINES,
                             extent, by_col, left, nleft, all);
    for (size_t t = 0; !rc && t < nleft; t++) {
        int off = 0;
        passed += reduction_settles(elem, red, mag, got, want, lo, hi, v, extent, &all[left[t]], left[t], &off);
    }
    free(left);
    if (!rc && passed) {
        evt_status st = mag ? evt_check_sums(elem, got, want, mag, count, v)
                            : evt_check_values_bracketed(elem, red, got, want, lo, hi, count, v, explained);
        rc = st == EVT_OK ? 0 : EXIT_OUTSIDE;
        if (mag)
            *explained += passed;
    }
    there[0] = there[1] = NAN;
    if (!rc && v->first_bad >= 0) {
        there[0] = all[v->first_bad].least;
        there[1] = all[v->first_bad].most;
    }
    free(lines);
    free(be.block_cols);
    free(be.moved);
    free(be.refs);
    free(s);
    free(y);
    free(all);
    free(blk);
    return rc;
}

/*
 * The last look at output `out`'s values still off (got, want, lo and hi
 * compact as refine's; count values): the f32 interpreter's, ref32
 * (EVT_INTERP_F32: the generated code's f32 operations bit for bit, on
 * the f64 accumulator rounded to f32).  The f64 reference is exact
 * arithmetic's, and an f32 chain leaves it where f32 itself does: i0 /
 * 1e-40 overflows to inf in f32, so x / x is NaN where f64 has 1 (p1427,
 * session 71); a sum's f32 terms overflow to infinities of both signs
 * where f64's add up to one (p9014).  A value that meets the f32 one
 * (both NaN, the same infinity, or within the tolerance of the whole
 * output's floor, a sum's magnitude floor too, by 1 for integers) is what
 * the contract computes (settle), and the output is checked again into
 * *v.  *by_f32 receives how many so.  The builtins' own accuracy is not judged here but by
 * tests/unit/test_math.c and the GPU's math_bits.
 */
static int f32_look(evt_elem elem, evt_reduce reduce, unsigned char *got, const double *want, double *lo,
                    double *hi, const double *ref32, size_t count, evt_check_verdict *v, long long *explained,
                    long long *by_f32)
{
    const size_t es = evt_elem_size(elem);
    const int integral = elem == EVT_I8 || elem == EVT_I32, sum = reduce == EVT_REDUCE_SUM;
    const double *mag = sum ? want + count : NULL;
    *by_f32 = 0;
    for (size_t e = 0; e < count; e++) {
        float g, f;
        double fl = v->floor;
        evt_convert_to_f32(elem, got + e * es, &g, 1);
        if (sum ? !sum_off(elem, g, want[e], mag[e], v, &fl)
                : !off_alone(elem, reduce, got + e * es, want[e], lo[e], hi[e], v))
            continue;
        f = evtc_stored(elem, ref32[e]);
        int meets = !isfinite(g) || !isfinite(f)
                        ? (isnan(g) && isnan(f)) || g == f
                        : fabs((double)g - f) <= (integral ? 1 : v->tol * fmax(fabs((double)f), fl)) ||
                              (integral && sum && fabs((double)g - f) <= v->tol * fmax(fabs((double)f), fl));
        if (meets) {
            settle(elem, sum, got + e * es, want[e], &lo[e], &hi[e], g);
            ++*by_f32;
        }
    }
    evt_status st = EVT_OK;
    if (*by_f32)
        st = sum ? evt_check_sums(elem, got, want, mag, count, v)
                 : evt_check_values_bracketed(elem, reduce, got, want, lo, hi, count, v, explained);
    if (sum)
        *explained += *by_f32;
    return st == EVT_OK ? 0 : EXIT_OUTSIDE;
}

/* ---- judging a problem's outputs ------------------------------------------------------ */

/* Problem l's outputs (of a batch of `batch`) against their references
 * refs, made from accumulator acc (the bracket's, where asked, too). */
static int compare(run *r, long long l, long long batch, const long long *rows, long long nrows, const double *acc,
                   double **refs, const long long *unwritten, size_t *failed_outputs, size_t *checked_outputs)
{
    int rc = 0;
    double **lo = NULL, **hi = NULL; /* the bracket's references, made at the first miss */
    double *moves = NULL;             /* and its accumulator's moves */
    double **refs32 = NULL;           /* the f32 interpreter's references, made at the first miss after those */
    for (size_t i = 0; !rc && i < r->nout; i++) {
        const evt_arg_info *info = evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, i);
        buffer *b = &r->out[i];
        /* every problem's line in a small batch, the failures' in a large one */
        char head[200], problem[48] = "";
        if (batch > 1)
            snprintf(problem, sizeof problem, "problem %lld ", l);
        snprintf(head, sizeof head, "check %s%s %s%s%s: ", problem, info->name, evt_elem_name(info->elem),
                 evt_shape_name(info->shape), reduce_suffix(info->reduce));
        int by_row = (info->shape & EVT_SHAPE_M) != 0;
        /* The stored values of the checked rows, compact, in the reference's order. */
        size_t es = evt_elem_size(info->elem);
        size_t per = info->shape == EVT_SHAPE_MN ? (size_t)b->cols : 1;
        size_t count = by_row ? (size_t)nrows * per : (size_t)b->cols;
        unsigned char *got = malloc(count * es + 1);
        if (!got) {
            rc = EXIT_OUTSIDE;
            break;
        }
        if (!by_row)
            memcpy(got, b->host, count * es);
        else if (info->shape == EVT_SHAPE_MN)
            for (long long j = 0; j < nrows; j++)
                memcpy(got + (size_t)j * per * es, b->host + (size_t)(rows[j] * b->ld) * es, per * es);
        else
            for (long long j = 0; j < nrows; j++)
                memcpy(got + (size_t)j * es, b->host + (size_t)rows[j] * es, es);
        evt_check_verdict v;
        evt_status st = info->reduce == EVT_REDUCE_SUM
                            ? evt_check_sums(info->elem, got, refs[i], refs[i] + count, count, &v)
                            : evt_check_values(info->elem, info->reduce, got, refs[i], count, &v);
        /* A value off is judged again against the references of the
         * accumulator moved down and up by its rounding
         * (evt_check_values_bracketed): relu(acc + b) * m with m = -inf is
         * -inf or NaN by the sign of acc + b, which an f32 sum within its
         * rounding of 0 may take either way, and a chain of builtins may
         * magnify that rounding past the output type's tolerance.  A value
         * still off gets more looks (docs/runtime.md): an element-wise
         * one, what the reference reaches between the ends, where a
         * singularity hides it from both (refine); a reduction's, what its
         * blocks reach, each moved on its own (reduction_look); any, the
         * f32 interpreter's value (f32_look). */
        long long explained = 0, by_f32 = 0;
        double there[2] = {NAN, NAN}; /* a reduction's first value off: what its look reached */
        const int sum = info->reduce == EVT_REDUCE_SUM;
        if (st == EVT_OK && (v.special_bad > 0 || v.bad > 0)) {
            if (!lo) {
                lo = calloc(r->nout + 1, sizeof *lo);
                hi = calloc(r->nout + 1, sizeof *hi);
                rc = lo && hi ? bracket(r, rows, nrows, acc, lo, hi, &moves) : EXIT_OUTSIDE;
            }
            if (!rc && !sum)
                st = evt_check_values_bracketed(info->elem, info->reduce, got, refs[i], lo[i], hi[i], count, &v,
                                                &explained);
            /* (not where elements were never written: that fails whatever the values) */
            if (!rc && st == EVT_OK && !v.passed && !unwritten[i] && info->shape == EVT_SHAPE_MN &&
                info->reduce == EVT_REDUCE_NONE)
                rc = refine(r, i, got, refs[i], lo[i], hi[i], rows, nrows, acc, moves, &v, &explained);
            if (!rc && st == EVT_OK && !v.passed && !unwritten[i] && info->reduce != EVT_REDUCE_NONE)
                rc = reduction_look(r, i, got, refs[i], lo[i], hi[i], rows, nrows, acc, moves, count, &v,
                                    &explained, there);
            if (!rc && st == EVT_OK && !v.passed && !unwritten[i]) {
                if (!refs32)
                    rc = !(refs32 = calloc(r->nout + 1, sizeof *refs32))
                             ? EXIT_OUTSIDE
                             : reference_epilogue(r, rows, nrows, NULL, 0, acc, EVT_INTERP_F32, refs32);
                if (!rc)
                    rc = f32_look(info->elem, info->reduce, got, refs[i], lo[i], hi[i], refs32[i], count, &v,
                                  &explained, &by_f32);
            }
        }
        free(got);
        if (rc)
            break;
        if (st != EVT_OK) {
            fflush(stdout);
            fprintf(stderr, "%s: error: checking %s: %s\n", r->o->prog, info->name, evt_status_string(st));
            rc = EXIT_OUTSIDE;
            break;
        }
        /* elements never written count against the whole batch's output, once */
        int pass = v.passed && (unwritten[i] == 0 || l > 0);
        ++*checked_outputs;
        *failed_outputs += !pass;
        if (batch > 8 && pass)
            continue;
        printf("%smax rel err %.2e, max %lld ulp (floor %.3g, tol %.2g): %s\n", head, v.max_err, v.max_ulp,
               v.floor, v.tol, pass ? "PASS" : "FAIL");
        if (explained > by_f32)
            printf("  %lld values the references of an accumulator within its rounding give "
                   "(the accumulator moved by up to 1e-4 of its products' magnitudes)\n",
                   explained - by_f32);
        if (by_f32)
            printf("  %lld values the f32 interpreter gives where the f64 reference does not (f32's own range "
                   "and rounding: an overflow, say)\n",
                   by_f32);
        if (unwritten[i] && l == 0)
            printf("  %lld of %lld elements never written\n", unwritten[i], b->rows * b->cols * batch);
        if (v.bad || v.special_bad) {
            long long row = by_row ? rows[v.first_bad / (long long)per] : 0;
            long long col = info->shape == EVT_SHAPE_MN ? v.first_bad % (long long)per
                            : by_row                   ? 0
                                                       : v.first_bad;
            printf("  %lld of %lld values off, %lld NaN/inf mismatches; first", v.bad, v.checked,
                   v.special_bad);
            if (info->shape == EVT_SHAPE_MN)
                printf(" at [%lld, %lld]", row, col);
            else if (info->shape == EVT_SHAPE_M)
                printf(" at [%lld]", row);
            else if (info->shape == EVT_SHAPE_N)
                printf(" at [%lld]", col);
            printf(": got %.9g, want %.9g\n", isnan(v.first_got) ? NAN : v.first_got,
                   isnan(v.first_want) ? NAN : v.first_want);
            /* What the bracket saw there: a non-finite end, or ends on one
             * side of a singularity, says the output is ill-conditioned at
             * that accumulator rather than wrong. */
            if (lo && info->shape == EVT_SHAPE_MN && info->reduce == EVT_REDUCE_NONE)
                printf("  there: accumulator %.9g (f64), the bracket's ends %.9g and %.9g\n", acc[v.first_bad],
                       lo[i][v.first_bad], hi[i][v.first_bad]);
            if (!isnan(there[0]) || !isnan(there[1]))
                printf("  there: the reduction of blocks moved within their rounding reaches %.9g to %.9g%s\n",
                       there[0], there[1], info->reduce == EVT_REDUCE_SUM ? " (before its floor)" : "");
        }
    }
    drop_refs(r, lo);
    drop_refs(r, hi);
    drop_refs(r, refs32);
    free(lo);
    free(hi);
    free(moves);
    free(refs32);
    return rc;
}
