/* launch.c - binding launch arguments by name, validating them, and launching.
 *
 * Validation runs on the host before the driver is even loaded, so a bad
 * argument is reported the same way on a machine with no GPU. */
#define _POSIX_C_SOURCE 200809L
#include "../support/alias.h"
#include "../support/checked.h"
#include "../support/conv_geometry.h"
#include "../support/extent.h"
#include "../codegen/cg.h"
#include "../codegen/layout.h"
#include "../plan/plan.h"
#include "../runtime/cache.h"
#include "../runtime/tunedb.h"
/* The launch API reads the module and the context it runs on (see tests/layering). */
#include "launch.h"
#include "module.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rt_buffer {
    void *ptr;
    size_t bytes;
    long long ld;
    int set;
    long long stride; /* elements between the problems of a batch; 0: shared by the batch */
} rt_buffer;

/* The functions of one entry-point variant, looked up once per context:
 * a repeated launch costs a validation, a pack and cuLaunchKernel. */
typedef struct rt_resolved {
    rt_cu_context ctx;
    const plan_config *cfg; /* NULL: empty slot */
    int aligned, split, row_group, shared_epi;
    int direct; /* main runs the epilogue on its consumers' registers (cg_direct_epilogue) */
    rt_cu_function main, init, finish;
    rt_cu_function sum; /* split-K variants: the _splitsum entry */
    int clusters; /* of a clustered main: how many can be resident at once; 0: unknown */
    rt_cu_function repack; /* an aligned GEMM's BASE_repack (repack_begin) */
    /* split-K variants on sm_90a: how many clusters of s CTAs of the
     * _splitk entry can be resident at once (cuOccupancyMaxActiveClusters;
     * s = 1: its resident CTAs), 0 where none or unknown (cluster_split) */
    int cluster_fit[9];
} rt_resolved;

enum { RT_RESOLVED = 4 };

struct evt_launch {
    evt_module *m;
    const ir_kernel *k;
    const ir_func *fn;
    cg_layout layout;
    long long sizes[CG_MAX_SIZES]; /* the mainloop's problem, in layout.h's order */
    long long dims[3];             /* the GEMM view: M, N (the epilogue's extent), K */
    long long conv_pixels;         /* a conv's n*h*w: the rows of x */
    rt_buffer operands[2];         /* A and B, or x and w */
    int problem_set;
    long long batch;               /* problems of the batch (evt_launch_set_batch); 1: plain */
    rt_buffer *inputs, *outputs;
    alias_buf *alias; /* room for the aliasing check: operands, inputs, outputs, workspace */
    float *params;
    int *param_set;
    rt_cu_ptr workspace; /* the launch's own (rt_run's layout), allocated on first need */
    size_t workspace_bytes;
    /* Stream-K's flags (rt_run) at sk_clean in the launch's own workspace,
     * sk_clean_n of them, are zero once the runs enqueued so far are done:
     * the last run there was stream-K's, whose kernel leaves them zero.  0:
     * not known, and the next stream-K run there zeroes them first. */
    rt_cu_ptr sk_clean;
    long long sk_clean_n;
    /* The repack of operands whose rows are not 16-byte aligned
     * (repack_begin), for the run being planned.  While `on`, operands[]
     * and the problem's k are the copies' (k rounded up where both operands
     * are K-contiguous; their addresses in the workspace once it is known,
     * run_planned), orig and k the caller's. */
    struct {
        int on, need[2];
        rt_buffer orig[2];
        long long k;
        long long rows[2], e[2]; /* each operand's rows (a batch's problems' together) and their elements */
    } rp;
    rt_cu_context device_ctx; /* the context target, sms and clusters were read in */
    evt_target target;
    int sms;
    plan_clusters clusters; /* the device's resident clusters (device_clusters) */
    plan_kernel pk;   /* the planner's view of the kernel, and its staged input */
    int staged_input; /* (plan_staged_input): both walk the IR, so once */
    api_tuning tuning; /* evt_launch_set_tuning */
    int fast_math;     /* the context's evt_ctx_set_fast_math when created */
    unsigned long long kernel_hash; /* the kernel in the tuning database's keys */
    char device[96];                /* the device's name, ditto */
    /* The tuning database's plan for the problem last prepared, looked up
     * again when the problem, the alignment or the database changes. */
    unsigned tuned_generation; /* ctx->tunedb_generation + 1 when looked up; 0: not yet */
    long long tuned_sizes[CG_MAX_SIZES];
    long long tuned_batch;
    int tuned_aligned;
    plan_options tuned; /* config NULL: no record */
    rt_resolved resolved[RT_RESOLVED]; /* entry points found so far, newest first */
    /* what the last successful run enqueued (last.config == NULL: none yet);
     * evt_launch_plan formats it into text when asked, not on every run */
    plan last;
    int last_tuned; /* the last run took the tuning database's plan */
    int last_repacked[2]; /* the last run copied A, B (repack_begin) */
    int last_cluster_sum; /* the last run's split-K shares met in clusters (launch_split) */
    int last_direct;      /* the last run's main entry ran the register-direct epilogue */
    char plan_text[192]; /* the longest plan_describe plus every suffix evt_launch_plan adds */
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static evt_status fail(evt_launch *l, evt_status st, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ctx_fail(l->m->ctx, st, "kernel '%s': %s", l->k->name, msg);
}

/* The kernel as the tuning database knows it: its IR, mainloop and operands
 * as printed (a kernel that computes anything else prints otherwise), and
 * whether it is compiled with fast math (other code, maybe another best
 * plan). */
static int kernel_hash(const ir_kernel *k, int fast_math, unsigned long long *hash)
{
    strbuf sb;
    sb_init(&sb);
    ir_print_kernel(k, &sb);
    ir_print_func(k->epilogue, &sb);
    if (fast_math)
        sb_puts(&sb, "fast math\n");
    unsigned long long h = 1469598103934665603ull;
    for (size_t i = 0; i < sb.len; i++)
        h = (h ^ (unsigned char)sb_str(&sb)[i]) * 1099511628211ull;
    const int ok = !sb.failed; /* a text that ran out of memory lacks parts: another key */
    sb_free(&sb);
    *hash = h;
    return ok;
}

/* Launches report on their module's context, which each call starts with
 * no message (ctx_clear): launches have no message of their own. */
static void begin(evt_launch *l)
{
    ctx_clear(l->m->ctx);
}

evt_status evt_launch_create(evt_module *m, const evt_kernel *k, evt_launch **out)
{
    ctx_clear(m ? m->ctx : NULL);
    if (!m || !k || !out)
        return ctx_fail(m ? m->ctx : NULL, EVT_ERR_INVALID_ARGUMENT,
                        "evt_launch_create: module, kernel and out are required");
    *out = NULL;
    /* A launch reads its kernel's module (the epilogue, the generated code):
     * another module's kernel would fail only at the first run, or outlive
     * its module. */
    size_t ki = 0;
    while (ki < evt_module_kernel_count(m) && evt_module_kernel(m, ki) != k)
        ki++;
    if (ki == evt_module_kernel_count(m))
        return ctx_fail(m->ctx, EVT_ERR_INVALID_ARGUMENT,
                        "evt_launch_create: kernel '%s' is not a kernel of this module",
                        k->name);
    evt_launch *l = calloc(1, sizeof *l);
    const ir_func *fn = k->epilogue;
    if (l) {
        l->m = m; /* before anything can fail: evt_launch_destroy reads it */
        l->k = k;
        l->inputs = calloc(fn->ninputs + 1, sizeof *l->inputs);
        l->outputs = calloc(fn->noutputs + 1, sizeof *l->outputs);
        l->alias = calloc(fn->ninputs + fn->noutputs + 3, sizeof *l->alias);
        l->params = calloc(fn->nparams + 1, sizeof *l->params);
        l->param_set = calloc(fn->nparams + 1, sizeof *l->param_set);
    }
    if (!l || !l->inputs || !l->outputs || !l->alias || !l->params || !l->param_set) {
        evt_launch_destroy(l);
        return ctx_fail(m->ctx, EVT_ERR_NO_MEMORY, "out of memory");
    }
    l->fn = fn;
    l->pk = plan_kernel_built(k, m->ctx->fast_math);
    l->staged_input = plan_staged_input(fn);
    l->tuning = m->ctx->tuning;
    l->fast_math = m->ctx->fast_math;
    if (!kernel_hash(k, l->fast_math, &l->kernel_hash)) {
        evt_launch_destroy(l);
        return ctx_fail(m->ctx, EVT_ERR_NO_MEMORY, "out of memory");
    }
    if (!cg_layout_of(k, &l->layout)) {
        evt_launch_destroy(l);
        return ctx_fail(m->ctx, EVT_ERR_UNSUPPORTED, "kernel '%s' has too many arguments",
                        k->name);
    }
    for (size_t i = 0; i < fn->nparams; i++) {
        l->params[i] = fn->params[i].info.default_value;
        l->param_set[i] = fn->params[i].info.has_default;
    }
    *out = l;
    return EVT_OK;
}

/* Puts the calling thread in relaxed capture mode, for a call that a CUDA
 * graph capture in global mode (PyTorch's default) would refuse, and break,
 * though it enqueues nothing; *mode keeps the thread's mode.  1 when
 * restore_capture_mode must put it back. */
static int relax_capture_mode(const rt_driver *d, int *mode)
{
    *mode = RT_CU_CAPTURE_MODE_RELAXED;
    return d->exchange_capture_mode(mode) == 0;
}

static void restore_capture_mode(const rt_driver *d, int relaxed, int mode)
{
    if (relaxed)
        d->exchange_capture_mode(&mode);
}

void evt_launch_destroy(evt_launch *l)
{
    if (!l)
        return;
    const rt_driver *d = l->m->ctx->driver;
    if (l->workspace && d) {
        /* A launch may be destroyed while a stream captures (a garbage
         * collector's timing): cuMemFree, which global mode forbids, must
         * not invalidate that capture. */
        int mode;
        const int relaxed = relax_capture_mode(d, &mode);
        d->mem_free(l->workspace);
        restore_capture_mode(d, relaxed, mode);
    }
    free(l->inputs);
    free(l->outputs);
    free(l->alias);
    free(l->params);
    free(l->param_set);
    free(l);
}

/* A grid's x dimension, the most CTAs cuLaunchKernel takes. */
static const long long RT_MAX_GRID = INT_MAX;

/*
 * Refuses a batch of `batch` m x n problems that even the largest tile of
 * any configuration of the kernel's mainloop cuts into more tiles than a
 * grid holds (a batch's tiles share one grid): caught when the problem is
 * set, with no driver, rather than by the driver after part of the run was
 * enqueued.  prepare checks the chosen plan's own count.
 */
static evt_status check_tiles(evt_launch *l, long long m, long long n, long long batch)
{
    long long fewest = -1;
    for (int i = 0; i < EVT_TILE_COUNT; i++) {
        const plan_config *c = &plan_configs[i];
        if (plan_config_mainloop_refusal(c, l->k->mainloop))
            continue;
        const long long t = plan_config_tiles(c, m, n);
        if (fewest < 0 || t < fewest)
            fewest = t;
    }
    if (fewest > RT_MAX_GRID)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "an M x N = %lld x %lld epilogue is %lld tiles or more, past the 2^31-1 "
                    "CTAs of a grid",
                    m, n, fewest);
    long long all;
    if (!ck_mul(fewest, batch, &all) || all > RT_MAX_GRID)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "a batch of %lld problems of M x N = %lld x %lld is %lld x %lld tiles or more, "
                    "past the 2^31-1 CTAs of a grid",
                    batch, m, n, batch, fewest);
    return EVT_OK;
}

evt_status evt_launch_set_gemm(evt_launch *l, long long m, long long n, long long k,
                               const void *a, long long lda, size_t a_bytes, const void *b,
                               long long ldb, size_t b_bytes)
{
    if (!l)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(l);
    if (l->k->mainloop != EVT_MAINLOOP_GEMM)
        return fail(l, EVT_ERR_INVALID_ARGUMENT, "a %s kernel takes evt_launch_set_conv",
                    evt_mainloop_name(l->k->mainloop));
    if (m < 0 || n < 0 || k < 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "GEMM sizes m = %lld, n = %lld, k = %lld: each must be between 0 and 2^31-1",
                    m, n, k);
    evt_status st = check_tiles(l, m, n, 1);
    if (st != EVT_OK)
        return st;
    l->batch = 1; /* the new operands come without batch strides: evt_launch_set_batch follows */
    l->sizes[0] = l->dims[0] = m;
    l->sizes[1] = l->dims[1] = n;
    l->sizes[2] = l->dims[2] = k;
    l->operands[0] = (rt_buffer){(void *)a, a_bytes, lda, 1, 0};
    l->operands[1] = (rt_buffer){(void *)b, b_bytes, ldb, 1, 0};
    l->problem_set = 1;
    return EVT_OK;
}

evt_status evt_launch_set_conv(evt_launch *l, const evt_conv_problem *c, const void *x,
                               size_t x_bytes, const void *w, size_t w_bytes)
{
    if (!l)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(l);
    if (l->k->mainloop != EVT_MAINLOOP_CONV2D_FPROP)
        return fail(l, EVT_ERR_INVALID_ARGUMENT, "a gemm kernel takes evt_launch_set_gemm");
    if (!c)
        return fail(l, EVT_ERR_INVALID_ARGUMENT, "evt_launch_set_conv: the problem is NULL");
    long long p, q;
    char why[240];
    if (conv_output_size_why(c, &p, &q, why, sizeof why) != EVT_OK)
        return fail(l, EVT_ERR_INVALID_ARGUMENT, "conv: %s", why);
    /* The kernel indexes pixels and the GEMM's K in int (conv2d_fprop.cuh):
     * each product must fit there, and is checked before it is formed. */
    long long pix_in, pix_out, rsc;
    if (!ck_mul3(c->n, c->h, c->w, &pix_in) || pix_in > INT_MAX)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "conv: n*h*w = %lld*%lld*%lld exceeds 2^31-1 pixels", c->n, c->h, c->w);
    if (!ck_mul3(c->n, p, q, &pix_out) || pix_out > INT_MAX)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "conv: n*p*q = %lld*%lld*%lld exceeds 2^31-1 pixels", c->n, p, q);
    if (c->k > INT_MAX || c->c > INT_MAX)
        return fail(l, EVT_ERR_INVALID_ARGUMENT, "conv: k = %lld, c = %lld: each must be below 2^31",
                    c->k, c->c);
    if (!ck_mul3(c->r, c->s, c->c, &rsc) || rsc > INT_MAX)
        return fail(l, EVT_ERR_INVALID_ARGUMENT, "conv: r*s*c = %lld*%lld*%lld exceeds 2^31-1",
                    c->r, c->s, c->c);
    evt_status st = check_tiles(l, pix_out, c->k, 1);
    if (st != EVT_OK)
        return st;
    l->batch = 1;
    const long long sizes[CG_MAX_SIZES] = {c->n, c->h, c->w, c->c, c->k, c->r, c->s, p, q,
                                           c->pad_h, c->pad_w, c->stride_h, c->stride_w,
                                           c->dil_h, c->dil_w};
    memcpy(l->sizes, sizes, sizeof sizes);
    l->dims[0] = pix_out;
    l->dims[1] = c->k;
    l->dims[2] = rsc;
    l->conv_pixels = pix_in;
    l->operands[0] = (rt_buffer){(void *)x, x_bytes, c->c, 1, 0};
    l->operands[1] = (rt_buffer){(void *)w, w_bytes, c->c, 1, 0};
    l->problem_set = 1;
    return EVT_OK;
}

/* Finds an input (kind 0) or output (kind 1) by name; -1 if none. */
static int find_arg(const ir_func *fn, const char *name, int *kind)
{
    for (size_t i = 0; i < fn->ninputs; i++)
        if (strcmp(fn->inputs[i].info.name, name) == 0) {
            *kind = 0;
            return (int)i;
        }
    for (size_t i = 0; i < fn->noutputs; i++)
        if (strcmp(fn->outputs[i].info.name, name) == 0) {
            *kind = 1;
            return (int)i;
        }
    return -1;
}

evt_status evt_launch_set_batch(evt_launch *l, long long count, long long stride_a,
                                long long stride_b)
{
    if (!l)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(l);
    if (l->k->mainloop != EVT_MAINLOOP_GEMM && count != 1)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "a %s kernel launches one problem: batch count %lld (its n is the images)",
                    evt_mainloop_name(l->k->mainloop), count);
    if (!l->problem_set)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "evt_launch_set_batch comes after evt_launch_set_gemm, which resets the batch");
    if (count < 1 || count > INT_MAX)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "batch count %lld: it must be between 1 and 2^31-1", count);
    if (stride_a < 0 || stride_b < 0)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "batch strides a = %lld, b = %lld: each must be 0 (shared) or positive",
                    stride_a, stride_b);
    /* the kernels take the operands' strides in bytes (pack): an empty
     * problem's buffers are not checked against them, so bound them here */
    for (int i = 0; i < 2; i++) {
        const long long stride = i ? stride_b : stride_a;
        const long long es = (long long)evt_elem_size(l->k->operands[i].elem);
        if (stride > LLONG_MAX / es)
            return fail(l, EVT_ERR_INVALID_ARGUMENT,
                        "batch stride %c = %lld: %lld bytes each overflow 64 bits", i ? 'b' : 'a',
                        stride, es);
    }
    evt_status st = check_tiles(l, l->dims[0], l->dims[1], count);
    if (st != EVT_OK)
        return st;
    l->batch = count;
    l->operands[0].stride = stride_a;
    l->operands[1].stride = stride_b;
    return EVT_OK;
}

evt_status evt_launch_bind(evt_launch *l, const char *name, void *ptr, size_t bytes,
                           long long ld)
{
    return evt_launch_bind_batched(l, name, ptr, bytes, ld, 0);
}

evt_status evt_launch_bind_batched(evt_launch *l, const char *name, void *ptr, size_t bytes,
                                   long long ld, long long batch_stride)
{
    if (!l)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(l);
    if (!name)
        return fail(l, EVT_ERR_INVALID_ARGUMENT, "evt_launch_bind: name is NULL");
    if (batch_stride < 0)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "'%s': batch stride %lld: it must be 0 (shared by the batch) or positive", name,
                    batch_stride);
    int kind;
    int i = find_arg(l->fn, name, &kind);
    if (i < 0) {
        for (size_t p = 0; p < l->fn->nparams; p++)
            if (strcmp(l->fn->params[p].info.name, name) == 0)
                return fail(l, EVT_ERR_INVALID_ARGUMENT,
                            "'%s' is a param: set it with evt_launch_set_param", name);
        return fail(l, EVT_ERR_NOT_FOUND, "epilogue '%s' has no input or output '%s'",
                    l->fn->name, name);
    }
    (kind ? l->outputs : l->inputs)[i] = (rt_buffer){ptr, bytes, ld, 1, batch_stride};
    return EVT_OK;
}

evt_status evt_launch_set_param(evt_launch *l, const char *name, float value)
{
    if (!l)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(l);
    if (!name)
        return fail(l, EVT_ERR_INVALID_ARGUMENT, "evt_launch_set_param: name is NULL");
    for (size_t i = 0; i < l->fn->nparams; i++)
        if (strcmp(l->fn->params[i].info.name, name) == 0) {
            l->params[i] = value;
            l->param_set[i] = 1;
            return EVT_OK;
        }
    return fail(l, EVT_ERR_NOT_FOUND, "epilogue '%s' has no param '%s'", l->fn->name, name);
}

/* Checks one buffer of rows x cols elements of `esize` bytes, rows `ld`
 * apart, and in a batch the launch's other problems' copies, buf->stride
 * elements apart. */
static evt_status check_buffer(evt_launch *l, const char *what, const char *name,
                               const rt_buffer *buf, long long rows, long long cols,
                               int has_ld, size_t esize)
{
    char label[160];
    snprintf(label, sizeof label, "%s '%s'", what, name);
    if (!buf->set)
        return fail(l, EVT_ERR_UNBOUND, "%s was never bound", label);
    long long ld = has_ld ? buf->ld : cols;
    if (has_ld && ld < cols)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "%s: the leading dimension is smaller than the row length", label);
    long long n = matrix_extent(rows, cols, ld);
    if (n < 0)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "%s: the extent of %lld rows of %lld, %lld apart, overflows", label, rows,
                    cols, ld);
    if (n == 0)
        return EVT_OK;
    /* the last problem's extent, from the first problem's start */
    long long apart;
    if (l->batch > 1 && buf->stride > 0 &&
        (!ck_mul(l->batch - 1, buf->stride, &apart) || !ck_add(apart, n, &n)))
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "%s: a batch of %lld problems %lld elements apart, each spanning %lld, "
                    "overflows",
                    label, l->batch, buf->stride, matrix_extent(rows, cols, ld));
    if (!buf->ptr)
        return fail(l, EVT_ERR_UNBOUND, "%s is a NULL pointer", label);
    if ((uintptr_t)buf->ptr % esize != 0)
        return fail(l, EVT_ERR_BAD_BUFFER, "%s is not aligned to its element size", label);
    if ((unsigned long long)n > buf->bytes / esize) {
        char batch[96] = "";
        if (l->batch > 1)
            snprintf(batch, sizeof batch, " (%lld problems, %lld elements apart)", l->batch,
                     buf->stride);
        size_t touched;
        if (!ck_mul_size((size_t)n, esize, &touched))
            return fail(l, EVT_ERR_BAD_BUFFER,
                        "%s is too small: %zu bytes, the kernel touches %lld elements of %zu%s",
                        label, buf->bytes, n, esize, batch);
        return fail(l, EVT_ERR_BAD_BUFFER, "%s is too small: %zu bytes, the kernel touches %zu%s",
                    label, buf->bytes, touched, batch);
    }
    return EVT_OK;
}

static void shape_dims(evt_shape s, long long m, long long n, long long *rows, long long *cols)
{
    *rows = (s & EVT_SHAPE_M) ? m : 1;
    *cols = (s & EVT_SHAPE_N) ? n : 1;
}

/* The buffers bound to the epilogue's inputs or outputs, each against its shape. */
static evt_status check_args(evt_launch *l, const char *what, const ir_arg *args, size_t count,
                             const rt_buffer *bufs, long long m, long long n)
{
    for (size_t i = 0; i < count; i++) {
        const evt_arg_info *a = &args[i].info;
        long long rows, cols;
        shape_dims(a->shape, m, n, &rows, &cols);
        evt_status st = check_buffer(l, what, a->name, &bufs[i], rows, cols,
                                     a->shape == EVT_SHAPE_MN, evt_elem_size(a->elem));
        if (st != EVT_OK)
            return st;
    }
    return EVT_OK;
}

/* The next slot of the aliasing check: rows x cols elements of type elem
 * at ptr, ld apart. */
static alias_buf *alias_add(alias_buf *b, const char *what, const char *name, const void *ptr,
                            long long rows, long long cols, long long ld, evt_elem elem)
{
    alias_footprint(b, ptr, rows, cols, ld, evt_elem_size(elem));
    b->what = what;
    b->name = name;
    b->written = 0;
    b->mn = 0;
    b->elem = (int)elem;
    b->ld = ld;
    return b;
}

/* b's problems of a batch of l->batch, `stride` elements apart (none for a
 * plain launch; a byte stride past 2^64 saturates, which only widens). */
static void alias_stride(const evt_launch *l, alias_buf *b, long long stride)
{
    unsigned long long bytes = 0;
    if (l->batch > 1 &&
        __builtin_mul_overflow((unsigned long long)stride, evt_elem_size((evt_elem)b->elem), &bytes))
        bytes = ULLONG_MAX;
    b->stride = bytes;
}

/* The aliasing rule (evt.h, evt_launch) over the validated buffers and a
 * caller's workspace of ws_bytes at ws (0: the launch's own, which no
 * caller's buffer can be). */
static evt_status check_aliasing(evt_launch *l, const void *ws, size_t ws_bytes)
{
    const ir_func *fn = l->fn;
    const long long m = l->dims[0], n = l->dims[1], k = l->dims[2];
    const rt_buffer *a = &l->operands[0], *b = &l->operands[1];
    const evt_operand_info *oa = &l->k->operands[0], *ob = &l->k->operands[1];
    alias_buf *at = l->alias;
    if (l->k->mainloop == EVT_MAINLOOP_GEMM) {
        const int a_row = oa->layout == EVT_LAYOUT_ROW, b_row = ob->layout == EVT_LAYOUT_ROW;
        alias_stride(l, alias_add(at++, "operand", "a", a->ptr, a_row ? m : k, a_row ? k : m, a->ld, oa->elem),
                     a->stride);
        alias_stride(l, alias_add(at++, "operand", "b", b->ptr, b_row ? k : n, b_row ? n : k, b->ld, ob->elem),
                     b->stride);
    } else { /* x is [n*h*w, c] and w is [k, r*s*c], both dense */
        alias_add(at++, "operand", "x", a->ptr, l->conv_pixels, l->sizes[3], l->sizes[3], oa->elem);
        alias_add(at++, "operand", "w", b->ptr, n, k, k, ob->elem);
    }
    for (int out = 0; out < 2; out++) {
        const ir_arg *args = out ? fn->outputs : fn->inputs;
        const rt_buffer *bufs = out ? l->outputs : l->inputs;
        for (size_t i = 0; i < (out ? fn->noutputs : fn->ninputs); i++) {
            const evt_arg_info *info = &args[i].info;
            const int mn = info->shape == EVT_SHAPE_MN;
            long long rows, cols;
            shape_dims(info->shape, m, n, &rows, &cols);
            alias_buf *ab = alias_add(at++, out ? "output" : "input", info->name, bufs[i].ptr,
                                      rows, cols, mn ? bufs[i].ld : cols, info->elem);
            ab->written = out;
            ab->mn = mn;
            alias_stride(l, ab, bufs[i].stride);
            /* each problem writes its own results: apart from the others' */
            if (out && alias_self_overlap(ab, (unsigned long long)l->batch))
                return fail(l, EVT_ERR_INVALID_ARGUMENT,
                            "output '%s': a batch stride of %lld elements makes the results of "
                            "the batch's %lld problems overlap (an output needs one that keeps "
                            "them apart)",
                            info->name, bufs[i].stride, l->batch);
        }
    }
    if (ws_bytes) {
        const long long len = ws_bytes > LLONG_MAX ? LLONG_MAX : (long long)ws_bytes;
        alias_add(at++, "the workspace", NULL, ws, 1, len, len, EVT_I8)->written = 1;
    }
    char msg[300];
    if (alias_check_batch(l->alias, (size_t)(at - l->alias), (unsigned long long)l->batch, msg, sizeof msg))
        return fail(l, EVT_ERR_INVALID_ARGUMENT, "%s%s", msg,
                    l->batch > 1 ? " (over the batch's problems)" : "");
    return EVT_OK;
}

/* Every check of a run before the driver: the arguments, then how they
 * share memory with each other and with a caller's workspace (ws_bytes at
 * ws; 0 for the launch's own). */
static evt_status validate(evt_launch *l, const void *ws, size_t ws_bytes)
{
    const ir_func *fn = l->fn;
    if (!l->problem_set)
        return fail(l, EVT_ERR_UNBOUND, "the problem was never set (evt_launch_set_%s)",
                    l->k->mainloop == EVT_MAINLOOP_GEMM ? "gemm" : "conv");
    long long m = l->dims[0], n = l->dims[1], k = l->dims[2];
    const evt_operand_info *oa = &l->k->operands[0], *ob = &l->k->operands[1];
    evt_status st;
    if (l->k->mainloop == EVT_MAINLOOP_GEMM) {
        /* A is M x K and B is K x N; a column-major matrix is its transpose row-major. */
        /* (fp8 operands: one byte an element) */
        const size_t ea = evt_elem_size(oa->elem), eb = evt_elem_size(ob->elem);
        if (oa->layout == EVT_LAYOUT_ROW)
            st = check_buffer(l, "operand", "a", &l->operands[0], m, k, 1, ea);
        else
            st = check_buffer(l, "operand", "a", &l->operands[0], k, m, 1, ea);
        if (st == EVT_OK && ob->layout == EVT_LAYOUT_ROW)
            st = check_buffer(l, "operand", "b", &l->operands[1], k, n, 1, eb);
        else if (st == EVT_OK)
            st = check_buffer(l, "operand", "b", &l->operands[1], n, k, 1, eb);
    } else {
        /* x is [n*h*w, c] and w is [k, r*s*c], both dense; set_conv checked the products. */
        st = check_buffer(l, "operand", "x", &l->operands[0], l->conv_pixels, l->sizes[3], 0, 2);
        if (st == EVT_OK)
            st = check_buffer(l, "operand", "w", &l->operands[1], n, k, 0, 2);
    }
    if (st != EVT_OK)
        return st;
    if ((st = check_args(l, "input", fn->inputs, fn->ninputs, l->inputs, m, n)) != EVT_OK ||
        (st = check_args(l, "output", fn->outputs, fn->noutputs, l->outputs, m, n)) != EVT_OK)
        return st;
    for (size_t i = 0; i < fn->nparams; i++)
        if (!l->param_set[i])
            return fail(l, EVT_ERR_UNBOUND,
                        "param '%s' has no default and was not set (evt_launch_set_param)",
                        fn->params[i].info.name);
    return check_aliasing(l, ws, ws_bytes);
}

/* Loads the driver and makes a context current; EVT_OK or the reason. */
static evt_status ensure_driver(evt_ctx *ctx, rt_cu_context *cu_ctx, rt_cu_device *dev)
{
    strbuf err;
    sb_init(&err);
    evt_status st = ctx->driver ? EVT_OK : rt_driver_load(ctx->driver_path, &ctx->driver, &err);
    if (st == EVT_OK && !rt_driver_current(ctx->driver, cu_ctx, dev, &err))
        st = EVT_ERR_NO_GPU;
    if (st != EVT_OK)
        ctx_fail(ctx, st, "%s", sb_str(&err));
    sb_free(&err);
    return st;
}

static evt_status target_of(evt_ctx *ctx, rt_cu_device dev, evt_target *t, int *sms)
{
    int major = 0, minor = 0;
    const rt_driver *d = ctx->driver;
    if (d->device_get_attribute(&major, RT_CU_ATTR_CC_MAJOR, dev) != 0 ||
        d->device_get_attribute(&minor, RT_CU_ATTR_CC_MINOR, dev) != 0 ||
        d->device_get_attribute(sms, RT_CU_ATTR_MULTIPROCESSOR_COUNT, dev) != 0)
        return ctx_fail(ctx, EVT_ERR_DRIVER, "cannot query the current GPU's attributes");
    const int cc = major * 10 + minor;
    for (int i = 0; i < EVT_TARGET_COUNT; i++)
        if (plan_target_info((evt_target)i)->cc == cc) {
            *t = (evt_target)i;
            return EVT_OK;
        }
    return ctx_fail(ctx, EVT_ERR_UNSUPPORTED,
                    "the current GPU is sm_%d; evt targets sm_80, sm_86, sm_89 and sm_90a", cc);
}

evt_status evt_device_target(evt_ctx *ctx, evt_target *target, char *name, size_t name_len)
{
    ctx_clear(ctx);
    if (!ctx || !target)
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT, "evt_device_target: ctx and target required");
    rt_cu_context cu_ctx;
    rt_cu_device dev;
    int sms;
    evt_status st = ensure_driver(ctx, &cu_ctx, &dev);
    if (st == EVT_OK)
        st = target_of(ctx, dev, target, &sms);
    if (st == EVT_OK && name && name_len)
        if (ctx->driver->device_get_name(name, (int)(name_len > INT_MAX ? INT_MAX : name_len), dev) != 0)
            name[0] = '\0';
    return st;
}

/* Writes the argument struct of the kernel into buf (layout->size bytes). */
static void pack(const evt_launch *l, unsigned char *buf)
{
    memset(buf, 0, l->layout.size);
    for (size_t i = 0; i < l->layout.nfields; i++) {
        const cg_field *f = &l->layout.fields[i];
        unsigned char *p = buf + f->offset;
        long long ll = 0;
        int ii = 0;
        float ff = 0;
        void *ptr = NULL;
        switch (f->role) {
        case CG_ROLE_OPERAND: ptr = l->operands[f->index].ptr; break;
        case CG_ROLE_OPERAND_LD: ll = l->operands[f->index].ld; break;
        case CG_ROLE_SIZE: ii = (int)l->sizes[f->index]; break;
        case CG_ROLE_M: ii = (int)l->dims[0]; break;
        case CG_ROLE_N: ii = (int)l->dims[1]; break;
        case CG_ROLE_INPUT: ptr = l->inputs[f->index].ptr; break;
        case CG_ROLE_INPUT_LD: ll = l->inputs[f->index].ld; break;
        case CG_ROLE_PARAM: ff = l->params[f->index]; break;
        case CG_ROLE_OUTPUT: ptr = l->outputs[f->index].ptr; break;
        case CG_ROLE_OUTPUT_LD: ll = l->outputs[f->index].ld; break;
        case CG_ROLE_WORKSPACE: break; /* set by the caller */
        /* a batch of one packs no strides: its kernels take the plain path
         * (rank-2 TMA maps), whatever strides were given */
        case CG_ROLE_OPERAND_STRIDE: /* in bytes: the kernel's operand pointers are untyped */
            ll = l->batch > 1 ? l->operands[f->index].stride * (long long)evt_elem_size(l->k->operands[f->index].elem) : 0;
            break;
        case CG_ROLE_BATCH: ii = (int)l->batch; break;
        case CG_ROLE_BATCH_INDEX: break; /* problem 0; kernels move it (at) */
        case CG_ROLE_INPUT_STRIDE: ll = l->batch > 1 ? l->inputs[f->index].stride : 0; break;
        case CG_ROLE_OUTPUT_STRIDE: ll = l->batch > 1 ? l->outputs[f->index].stride : 0; break;
        }
        switch (f->type) {
        case CG_PTR: memcpy(p, &ptr, sizeof ptr); break;
        case CG_I64: memcpy(p, &ll, sizeof ll); break;
        case CG_I32: memcpy(p, &ii, sizeof ii); break;
        case CG_F32: memcpy(p, &ff, sizeof ff); break;
        }
    }
}

/* Words of reduction workspace per output (0 for element-wise ones): one
 * per result of each problem of the batch, problem after problem (the
 * kernels' BASE_at); -1 where the count overflows (set_gemm and set_conv
 * keep M and N below 2^31, set_batch the count, so the check is the
 * backstop of a bound stated elsewhere). */
static long long reduction_words(const evt_launch *l, size_t o)
{
    const evt_arg_info *info = &l->fn->outputs[o].info;
    if (info->reduce == EVT_REDUCE_NONE)
        return 0;
    long long rows, cols, words;
    cg_reduction_dims(info->shape, l->dims[0], l->dims[1], &rows, &cols);
    return ck_mul3(rows, cols, l->batch, &words) ? words : -1;
}

/* The reductions' words of workspace in all, and their bytes; checked on
 * the host, before the driver is loaded. */
static evt_status reduction_workspace(evt_launch *l, long long *words, size_t *bytes)
{
    *words = 0;
    for (size_t o = 0; o < l->fn->noutputs; o++) {
        const long long w = reduction_words(l, o);
        if (w < 0 || !ck_add(*words, w, words))
            return fail(l, EVT_ERR_INVALID_ARGUMENT,
                        "the reductions' workspace overflows at output '%s'",
                        l->fn->outputs[o].info.name);
    }
    if (!ck_mul_size((size_t)*words, 4, bytes))
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "the reductions' workspace of %lld words overflows size_t", *words);
    return EVT_OK;
}

static evt_status driver_fail(evt_ctx *ctx, rt_cu_result r, const char *what)
{
    strbuf err;
    sb_init(&err);
    rt_driver_error(ctx->driver, r, what, &err);
    evt_status st = ctx_fail(ctx, EVT_ERR_DRIVER, "%s", sb_str(&err));
    sb_free(&err);
    return st;
}

/* v rounded up to a multiple of `to` (v >= 0, to > 0). */
static long long round_up(long long v, long long to)
{
    return (v + to - 1) / to * to;
}

/* The launch attribute asking clusters of s CTAs along x. */
static rt_cu_launch_attr cluster_attr(unsigned s)
{
    rt_cu_launch_attr a;
    memset(&a, 0, sizeof a);
    a.id = RT_CU_LAUNCH_ATTR_CLUSTER_DIMENSION;
    a.value.dims[0] = s;
    a.value.dims[1] = a.value.dims[2] = 1;
    return a;
}

/* How many clusters of s CTAs of entry f (threads, smem a CTA) can be
 * resident at once: cuOccupancyMaxActiveClusters, asked with a runtime
 * cluster dimension (attr) or for an entry whose __cluster_dims__ say;
 * 0 where the driver cannot say. */
static int resident_clusters(const rt_driver *d, rt_cu_function f, unsigned s, int threads, int smem, int attr)
{
    if (!d->max_active_clusters)
        return 0;
    rt_cu_launch_attr a = cluster_attr(s);
    const rt_cu_launch_config lc = {{s, 1, 1}, {(unsigned)threads, 1, 1}, (unsigned)smem, NULL,
                                    attr ? &a : NULL, attr ? 1u : 0u};
    int n = 0;
    return d->max_active_clusters(&n, f, &lc) == 0 && n > 0 ? n : 0;
}

/* A kernel that does nothing, for the driver's count of resident clusters
 * (PTX, which the driver compiles itself: no NVRTC needed). */
static const char cluster_probe_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                        ".visible .entry evt_cluster_probe()\n{\n\tret;\n}\n";

/* The clusters of two and of four CTAs device dev (of CUDA context cu_ctx)
 * holds at once at one CTA an SM, as the producer/consumer kernels run
 * (384 threads, the SM's shared memory): the planner weighs rounds of
 * them before any kernel of the launch is loaded, and the GPCs decide
 * them, so they are asked of the driver with a probe, once a context
 * (the answer kept on ctx).  Only for targets with clusters (sm_90a); not
 * asked (the planner's own counts) where the driver cannot say. */
static plan_clusters device_clusters(evt_ctx *ctx, rt_cu_context cu_ctx, rt_cu_device dev, evt_target t)
{
    plan_clusters c = {0, 0};
    const rt_driver *d = ctx->driver;
    if (t != EVT_TARGET_SM90A || !d->max_active_clusters || !d->launch_kernel_ex)
        return c;
    if (ctx->clusters_ctx == cu_ctx && ctx->clusters_dev == dev)
        return ctx->clusters;
    int smem = 0, mode;
    rt_cu_module mod = NULL;
    rt_cu_function f = NULL;
    const int relaxed = relax_capture_mode(d, &mode); /* as resolve's loads, under a capture */
    if (d->device_get_attribute(&smem, RT_CU_ATTR_MAX_SHARED_OPTIN, dev) == 0 && smem > 0 &&
        d->module_load_data(&mod, cluster_probe_ptx) == 0) {
        if (d->module_get_function(&f, mod, "evt_cluster_probe") == 0 &&
            d->func_set_attribute(f, RT_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED, smem) == 0) {
            c.pairs = resident_clusters(d, f, 2, 384, smem, 1);
            c.fours = c.pairs > 0 ? resident_clusters(d, f, 4, 384, smem, 1) : 0;
        }
        d->module_unload(mod);
    }
    restore_capture_mode(d, relaxed, mode);
    ctx->clusters_ctx = cu_ctx;
    ctx->clusters_dev = dev;
    ctx->clusters = c;
    return c;
}

/* How many clusters of s = 1 .. 8 CTAs (8: the portable cluster size) of
 * split-K entry f can be resident at once, into fit[s]; 0 where the driver
 * cannot say or cannot launch with a cluster dimension. */
static void cluster_fit(const rt_driver *d, rt_cu_function f, int threads, int smem, int fit[9])
{
    memset(fit, 0, 9 * sizeof *fit);
    if (!d->launch_kernel_ex)
        return;
    for (unsigned s = 1; s <= 8; s++)
        fit[s] = resident_clusters(d, f, s, threads, smem, 1);
}

/*
 * Whether the `own` tiles of a split-K launch split `splits` ways run as
 * clusters (their shares summed in shared memory, cluster_split.cuh) or as
 * _splitk and _splitsum.  A cluster is placed on one GPC, and a GPC's SMs
 * do not divide into clusters evenly, so clusters reach fewer SMs than
 * single CTAs do (H200, clusters of 4: 120 of 132 SMs) and the scheduler
 * doubles CTAs up on some: docs/sm90.md measured a grid of 128 CTAs in
 * clusters of 4 going from one CTA an SM to two on some SMs, and a
 * 2-CTA-an-SM grid of 256 from one wave to two, each slower than the
 * _splitsum it saves.  So clusters only where the SM running the most of
 * the grid's CTAs runs no more of them than without clusters.
 */
static int cluster_split(const rt_resolved *f, long long own, int splits, int sms)
{
    if (splits < 2 || splits > 8 || f->cluster_fit[splits] < 1 || f->cluster_fit[1] < 1 || sms < 1)
        return 0;
    const long long per_sm = f->cluster_fit[1] / sms > 1 ? f->cluster_fit[1] / sms : 1;
    const long long reach = (long long)f->cluster_fit[splits] * splits / per_sm; /* SMs clusters reach */
    const long long ctas = own * splits;
    return reach >= 1 && (ctas + reach - 1) / reach <= (ctas + sms - 1) / sms;
}

/* Where plan pl's epilogue runs (cg_select.shared_epi): as the tuning
 * forces it, else on the shared-memory tile where plan.direct_tiles says
 * no (edge columns, where the register-direct epilogue ran slower,
 * docs/codegen.md, session 29; a conv's edge rows, unmeasured), and the
 * code generator's choice (0) elsewhere. */
static int shared_epi_of(const evt_launch *l, const plan *pl)
{
    return l->tuning.shared_epi != 0 ? l->tuning.shared_epi : !pl->direct_tiles;
}

/* Entry point `name` of mod into *f.  A name whose strbuf ran out of memory
 * may lack a part and so name another entry point: it is not looked up
 * (load_entry reports memory running out). */
static rt_cu_result entry_function(const rt_driver *d, rt_cu_function *f, rt_cu_module mod, const strbuf *name)
{
    return name->failed ? RT_CU_ERROR_OUT_OF_MEMORY : d->module_get_function(f, mod, sb_str(name));
}

/* resolve's miss: generates, compiles or fetches, and loads plan pl's
 * entry points, their epilogue where shared_epi (shared_epi_of) says. */
static evt_status load_entry(evt_launch *l, rt_cu_context cu_ctx, const plan *pl, int split, int shared_epi,
                             const rt_resolved **out)
{
    evt_ctx *ctx = l->m->ctx;
    rt_cu_module mod;
    strbuf src, err, name;
    sb_init(&src);
    sb_init(&err);
    sb_init(&name);
    const cg_select sel = {pl->config, pl->aligned, split, l->tuning.row_group, l->fast_math, shared_epi};
    evt_status st = kernel_generate(l->m, l->k, l->target, &sel, &src);
    if (st == EVT_OK &&
        !rt_cache_module(&ctx->cache, ctx->driver, &ctx->nvrtc, ctx->nvrtc_path, sb_str(&src),
                         l->k->name, l->target, cu_ctx, &mod, &st, &err))
        ctx_fail(ctx, st, "%s", err.len ? sb_str(&err) : "out of memory");
    sb_free(&src);
    sb_free(&err);
    if (st != EVT_OK)
        return st;
    rt_resolved r = {cu_ctx, pl->config, pl->aligned, split, l->tuning.row_group, shared_epi,
                     pl->aligned && !split && cg_direct_epilogue(l->fn, pl->config, &sel),
                     NULL, NULL, NULL, NULL, 0, NULL, {0}};
    const rt_driver *d = ctx->driver;
    cg_entry_name(l->k, l->target, pl->config, pl->aligned, split, &name);
    rt_cu_result cr = entry_function(d, &r.main, mod, &name);
    int smem = pl->config->smem_bytes;
    if (cr == 0 && smem > 48 * 1024)
        cr = d->func_set_attribute(r.main, RT_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED, smem);
    if (cr == 0 && pl->config->cluster > 1)
        /* The SMs of a GPC hold whole clusters only, so fewer than SMs /
         * cluster may be resident: a persistent grid of more would run its
         * last clusters after the others, a second wave (twice the time).
         * Unknown (0) where the driver cannot say. */
        r.clusters = resident_clusters(d, r.main, (unsigned)pl->config->cluster, pl->config->threads, smem, 0);
    if (cr == 0 && split) {
        name.len = 0;
        cg_entry_name(l->k, l->target, pl->config, pl->aligned, 2, &name);
        cr = entry_function(d, &r.sum, mod, &name);
        if (cr == 0 && smem > 48 * 1024)
            cr = d->func_set_attribute(r.sum, RT_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED, smem);
        if (cr == 0 && l->target == EVT_TARGET_SM90A)
            cluster_fit(d, r.main, pl->config->threads, smem, r.cluster_fit);
    }
    if (cr == 0 && l->k->mainloop == EVT_MAINLOOP_GEMM && pl->aligned) { /* codegen emits it beside them */
        name.len = 0;
        cg_kernel_basename(l->k, &name);
        sb_puts(&name, "_repack");
        cr = entry_function(d, &r.repack, mod, &name);
    }
    if (cr == 0 && cg_has_reductions(l->fn)) {
        name.len = 0;
        cg_kernel_basename(l->k, &name);
        size_t base = name.len;
        sb_puts(&name, "_reduce_init");
        cr = entry_function(d, &r.init, mod, &name);
        name.len = base;
        sb_puts(&name, "_reduce_finish");
        if (cr == 0)
            cr = entry_function(d, &r.finish, mod, &name);
    }
    st = name.failed ? ctx_fail(ctx, EVT_ERR_NO_MEMORY, "out of memory") : cr ? driver_fail(ctx, cr, sb_str(&name))
                                                                        : EVT_OK;
    sb_free(&name);
    if (st != EVT_OK)
        return st;
    memmove(&l->resolved[1], &l->resolved[0], (RT_RESOLVED - 1) * sizeof l->resolved[0]);
    l->resolved[0] = r;
    *out = &l->resolved[0];
    return EVT_OK;
}

/* Finds (compiling and loading on first use) the functions of plan pl's
 * entry points. */
static evt_status resolve(evt_launch *l, rt_cu_context cu_ctx, const plan *pl, const rt_resolved **out)
{
    evt_ctx *ctx = l->m->ctx;
    const int split = pl->splits > 1, shared_epi = shared_epi_of(l, pl);
    for (int i = 0; i < RT_RESOLVED; i++) {
        const rt_resolved *r = &l->resolved[i];
        if (r->cfg == pl->config && r->aligned == pl->aligned && r->split == split &&
            r->row_group == l->tuning.row_group && r->shared_epi == shared_epi && r->ctx == cu_ctx) {
            *out = r;
            return EVT_OK;
        }
    }
    /* Loading a module enqueues no stream work, but a capture in global mode
     * (PyTorch's default) may refuse other calls than stream work: a first
     * run under capture loads in relaxed mode, as PyTorch does its own lazy
     * set-up, and restores the thread's mode. */
    int mode;
    const int relaxed = relax_capture_mode(ctx->driver, &mode);
    evt_status st = load_entry(l, cu_ctx, pl, split, shared_epi, out);
    restore_capture_mode(ctx->driver, relaxed, mode);
    return st;
}

/* Grows the launch's own workspace to at least `bytes`; the contents are not
 * kept.  Under CUDA graph capture that is refused: cuMemFree and cuMemAlloc
 * there invalidate the capture, and a graph would keep using memory a later
 * growth frees. */
static evt_status grow_workspace(evt_launch *l, rt_cu_stream s, size_t bytes)
{
    const rt_driver *d = l->m->ctx->driver;
    if (bytes <= l->workspace_bytes)
        return EVT_OK;
    int capture = RT_CU_CAPTURE_NONE;
    if (d->stream_is_capturing(s, &capture) == 0 && capture != RT_CU_CAPTURE_NONE)
        return fail(l, EVT_ERR_UNSUPPORTED,
                    "the run needs %zu bytes of workspace, which cannot be allocated while its "
                    "stream is captured into a CUDA graph: run it once before the capture, or "
                    "give it a workspace (evt_launch_run_with_workspace)",
                    bytes);
    if (l->workspace)
        d->mem_free(l->workspace);
    l->workspace = 0;
    l->workspace_bytes = 0;
    l->sk_clean = 0;
    if (d->mem_alloc(&l->workspace, bytes) != 0)
        return fail(l, EVT_ERR_DRIVER, "cannot allocate %zu bytes of workspace", bytes);
    l->workspace_bytes = bytes;
    return EVT_OK;
}

static evt_status launch_params(evt_ctx *ctx, rt_cu_function f, unsigned grid, unsigned block,
                                unsigned smem, rt_cu_stream stream, void **params)
{
    rt_cu_result r = ctx->driver->launch_kernel(f, grid, 1, 1, block, 1, 1, smem, stream, params, NULL);
    return r ? driver_fail(ctx, r, "cuLaunchKernel") : EVT_OK;
}

static evt_status launch1(evt_ctx *ctx, rt_cu_function f, unsigned grid, unsigned block,
                          unsigned smem, rt_cu_stream stream, void *args)
{
    void *params[] = {args};
    return launch_params(ctx, f, grid, block, smem, stream, params);
}

/* The tensor maps a TMA configuration's entry takes (evt_tma_maps). */
typedef struct rt_tma_maps {
    _Alignas(64) unsigned char a[128];
    unsigned char b[128];
    unsigned char staged[128];
} rt_tma_maps;

/* Operand i's element type as a CUtensorMapDataType: fp8 as bytes (the
 * copy does not convert; the MMAs read e4m3 or e5m2). */
static int tma_dtype(const evt_launch *l, int i)
{
    const evt_elem e = l->k->operands[i].elem;
    return e == EVT_BF16 ? RT_TMAP_BF16 : evt_elem_size(e) == 1 ? RT_TMAP_UINT8 : RT_TMAP_F16;
}

/* A's or B's swizzle: k rows of 64 or 128 bytes (cfg->bk = 32 or 64
 * 16-bit elements, 64 or 128 fp8 ones) are the wgmma stages' 64- or
 * 128-byte swizzle; -1 for other k tiles. */
static int tma_swizzle(const plan_config *cfg)
{
    const int row_bytes = cfg->bk * cfg->op_bytes;
    return row_bytes == 64 ? RT_TMAP_SWIZZLE_64B : row_bytes == 128 ? RT_TMAP_SWIZZLE_128B : -1;
}

/* A tiled map of K-contiguous operand i: `rows` rows of k elements, ld
 * apart, read in cfg->bk x box_rows boxes; for an operand that differs per
 * problem of a batch (stride > 0 in a batch of more than one) a rank-3 map
 * with the problems `stride` elements apart (gemm.cuh's tma_loader reads it
 * at the problem), else rank 2.  0 where the driver refuses. */
static int tiled_map(const evt_launch *l, const plan_config *cfg, unsigned char *map, int i,
                     void *ptr, long long k, long long rows, long long ld, int box_rows,
                     long long stride)
{
    const rt_driver *d = l->m->ctx->driver;
    const unsigned long long es = evt_elem_size(l->k->operands[i].elem);
    const unsigned rank = l->batch > 1 && stride > 0 ? 3 : 2;
    const unsigned long long dims[3] = {(unsigned long long)k, (unsigned long long)rows,
                                        (unsigned long long)l->batch};
    const unsigned long long strides[2] = {(unsigned long long)ld * es, (unsigned long long)stride * es};
    const unsigned box[3] = {(unsigned)cfg->bk, (unsigned)box_rows, 1}, ones[3] = {1, 1, 1};
    return d->tensor_map_tiled && tma_swizzle(cfg) >= 0 &&
           d->tensor_map_tiled(map, tma_dtype(l, i), rank, ptr, dims, strides, box, ones, 0,
                               tma_swizzle(cfg), RT_TMAP_L2_128B, 0) == 0;
}

/*
 * A conv's TMA maps (kernels/mainloops/conv2d_fprop.cuh's tma_loader): x as a
 * (c, w, h, n) tensor read in im2col columns of cfg->bm pixels by cfg->bk
 * channels, its box from minus the padding to padding - (filter - 1)
 * dilation and stepping by the stride; the filter as a (c, r s, k) tensor
 * read in cfg->bk x 1 x cfg->bn boxes (under clusters, cfg->bn / cluster:
 * each CTA loads its share, multicast to the cluster), so that where
 * cfg->bk does not divide c a tap's last box is zero-filled past c, as x's
 * is, and never reaches the next tap; both swizzled as the wgmma stages
 * are (rows of cfg->bk = 32 or 64 channels: 64- or 128-byte swizzle).  0 where they
 * cannot be made: a driver without tensor maps, c not one the plan takes
 * (plan_conv_tma_channels), or sizes past TMA's limits (the driver says).
 */
static int conv_tma_maps(const evt_launch *l, const plan_config *cfg, rt_tma_maps *maps)
{
    const rt_driver *d = l->m->ctx->driver;
    const long long *z = l->sizes; /* n h w c k r s p q pad_h pad_w stride_h stride_w dil_h dil_w */
    if (!d->tensor_map_im2col || !plan_conv_tma_channels(z[3], cfg) || tma_swizzle(cfg) < 0)
        return 0;
    const unsigned long long xdims[4] = {(unsigned long long)z[3], (unsigned long long)z[2],
                                         (unsigned long long)z[1], (unsigned long long)z[0]};
    const unsigned long long xstrides[3] = {xdims[0] * 2, xdims[0] * xdims[1] * 2,
                                            xdims[0] * xdims[1] * xdims[2] * 2};
    const int lower[2] = {(int)-z[10], (int)-z[9]};
    const int upper[2] = {(int)(z[10] - (z[6] - 1) * z[14]), (int)(z[9] - (z[5] - 1) * z[13])};
    const unsigned estrides[4] = {1, (unsigned)z[12], (unsigned)z[11], 1};
    if (d->tensor_map_im2col(maps->a, tma_dtype(l, 0), 4, l->operands[0].ptr, xdims, xstrides, lower, upper,
                             (unsigned)cfg->bk, (unsigned)cfg->bm, estrides, 0, tma_swizzle(cfg),
                             RT_TMAP_L2_128B, 0) != 0)
        return 0;
    const unsigned long long wdims[3] = {(unsigned long long)z[3], (unsigned long long)(z[5] * z[6]),
                                         (unsigned long long)z[4]};
    const unsigned long long wstrides[2] = {wdims[0] * 2, wdims[0] * wdims[1] * 2};
    const unsigned box[3] = {(unsigned)cfg->bk, 1, (unsigned)(cfg->bn / cfg->cluster)}, ones[3] = {1, 1, 1};
    return d->tensor_map_tiled && d->tensor_map_tiled(maps->b, tma_dtype(l, 1), 3, l->operands[1].ptr, wdims,
                                                      wstrides, box, ones, 0, tma_swizzle(cfg),
                                                      RT_TMAP_L2_128B, 0) == 0;
}

/* A tiled map of M/N-contiguous 16-bit operand i (A column-major, B
 * row-major): k rows of `extent` M/N positions, ld apart, read in boxes of
 * 64 positions by cfg->bk k rows, 128-byte swizzled (a box's k row is one
 * 128-byte row of wgmma's MN-major stage; gemm.cuh's tma_loader::mn_boxes
 * reads R / 64 of them a stage); rank 3 for an operand that differs per
 * problem of a batch, as tiled_map.  0 where the driver refuses. */
static int mn_tiled_map(const evt_launch *l, const plan_config *cfg, unsigned char *map, int i,
                        void *ptr, long long extent, long long k, long long ld, long long stride)
{
    const rt_driver *d = l->m->ctx->driver;
    const unsigned long long es = evt_elem_size(l->k->operands[i].elem);
    const unsigned rank = l->batch > 1 && stride > 0 ? 3 : 2;
    const unsigned long long dims[3] = {(unsigned long long)extent, (unsigned long long)k,
                                        (unsigned long long)l->batch};
    const unsigned long long strides[2] = {(unsigned long long)ld * es, (unsigned long long)stride * es};
    const unsigned box[3] = {64, (unsigned)cfg->bk, 1}, ones[3] = {1, 1, 1};
    return d->tensor_map_tiled && es == 2 &&
           d->tensor_map_tiled(map, tma_dtype(l, i), rank, ptr, dims, strides, box, ones, 0,
                               RT_TMAP_SWIZZLE_128B, RT_TMAP_L2_128B, 0) == 0;
}

/* A GEMM's TMA maps (kernels/mainloops/gemm.cuh's tma_loader): A row-major
 * as a (k, m) tensor and B column-major as a (k, n) one, read in cfg->bk x
 * cfg->bm and cfg->bk x cfg->bn boxes (under clusters, cfg->bn / cluster:
 * each CTA loads its share of the B tile they share), swizzled as the wgmma
 * stages are; A column-major as an (m, k) tensor and B row-major as an (n,
 * k) one in boxes of 64 x cfg->bk (mn_tiled_map; clusters take K-contiguous
 * operands only, plan_can_run).  0 where the driver cannot make them. */
static int gemm_tma_maps(const evt_launch *l, const plan_config *cfg, rt_tma_maps *maps)
{
    const rt_buffer *a = &l->operands[0], *b = &l->operands[1];
    const int a_mn = l->k->operands[0].layout == EVT_LAYOUT_COL;
    const int b_mn = l->k->operands[1].layout == EVT_LAYOUT_ROW;
    return (a_mn ? mn_tiled_map(l, cfg, maps->a, 0, a->ptr, l->dims[0], l->dims[2], a->ld, a->stride)
                 : tiled_map(l, cfg, maps->a, 0, a->ptr, l->dims[2], l->dims[0], a->ld, cfg->bm, a->stride)) &&
           (b_mn ? mn_tiled_map(l, cfg, maps->b, 1, b->ptr, l->dims[1], l->dims[2], b->ld, b->stride)
                 : tiled_map(l, cfg, maps->b, 1, b->ptr, l->dims[2], l->dims[1], b->ld, cfg->bn / cfg->cluster,
                             b->stride));
}

/* A staged configuration's map of the epilogue input it stages
 * (plan_staged_input; evt_sm90::stage_tile): the [M, N] tensor as an (n, m)
 * matrix of 16-bit elements, ld apart, read in cfg->bn x cfg->bm boxes,
 * unswizzled (the epilogue reads the tile dense), zero-filled past the
 * problem; rank 3 (the problems bs_in elements apart) for an input that
 * differs per problem of a batch, as stage_tile reads it.  1 for a
 * configuration that stages nothing; 0 where the map cannot be made (base,
 * row or batch stride not 16-byte aligned, a driver without tensor maps). */
static int staged_map(const evt_launch *l, const plan_config *cfg, unsigned char *map)
{
    if (!cfg->staged)
        return 1;
    const rt_driver *d = l->m->ctx->driver;
    const int i = l->staged_input;
    if (i < 0 || !d->tensor_map_tiled)
        return 0;
    const rt_buffer *in = &l->inputs[i];
    const unsigned rank = l->batch > 1 && in->stride > 0 ? 3 : 2;
    if ((uintptr_t)in->ptr % 16 != 0 || (in->ld * 2) % 16 != 0 || (rank == 3 && (in->stride * 2) % 16 != 0))
        return 0;
    const unsigned long long dims[3] = {(unsigned long long)l->dims[1], (unsigned long long)l->dims[0],
                                        (unsigned long long)l->batch};
    const unsigned long long strides[2] = {(unsigned long long)in->ld * 2, (unsigned long long)in->stride * 2};
    const unsigned box[3] = {(unsigned)cfg->bn, (unsigned)cfg->bm, 1}, ones[3] = {1, 1, 1};
    const int dtype = l->fn->inputs[i].info.elem == EVT_BF16 ? RT_TMAP_BF16 : RT_TMAP_F16;
    return d->tensor_map_tiled(map, dtype, rank, in->ptr, dims, strides, box, ones, 0, RT_TMAP_SWIZZLE_NONE,
                               RT_TMAP_L2_128B, 0) == 0;
}

/* Every map a TMA configuration's fast path takes. */
static int tma_maps(const evt_launch *l, const plan_config *cfg, rt_tma_maps *maps)
{
    return (l->k->mainloop == EVT_MAINLOOP_GEMM ? gemm_tma_maps : conv_tma_maps)(l, cfg, maps) &&
           staged_map(l, cfg, maps->staged);
}

/* A caller's workspace, and split-K's partial tiles within any, start on
 * this boundary (their float4 accesses need 16; cuMemAlloc and PyTorch's
 * allocator give 256 or more). */
enum { RT_WORKSPACE_ALIGN = 256 };

/*
 * A run worked out before anything is enqueued: the plan for the current
 * device, its TMA maps, and the workspace it needs: the reductions' 32-bit
 * words from the start, then split-K's partial tiles (tiles x splits x BM x
 * BN floats) from split_offset (stream-K's: grid x BM x BN floats, after its
 * flags at sk_flags, one word a CTA, 128 bytes apart), then the copies of
 * repacked operands.
 */
typedef struct rt_run {
    rt_cu_context cu_ctx;
    plan pl;
    rt_tma_maps maps;
    long long words;
    size_t split_offset;
    size_t sk_flags;
    size_t repack_offset[2]; /* operands A and B's copies (repack_begin), where copied */
    size_t bytes; /* the whole workspace; 0 when the run needs none */
    int tuned;    /* pl is the tuning database's */
} rt_run;

/* The next workspace offset at or after b on RT_WORKSPACE_ALIGN (below b
 * where that wraps: the callers check). */
static size_t ws_align(size_t b)
{
    return (b + RT_WORKSPACE_ALIGN - 1) / RT_WORKSPACE_ALIGN * RT_WORKSPACE_ALIGN;
}

/* Below this many multiply-adds an unaligned GEMM keeps its guarded entry:
 * the copies' extra launches would cost more than they save. */
#define RT_REPACK_MIN_MACS (1LL << 26)

/*
 * A GEMM whose operands cannot take the fast path because a row is not a
 * whole number of 16-byte chunks (its elements, K for a row-major A or a
 * column-major B and M or N otherwise, or its leading dimension, not a
 * multiple of 8 16-bit or 16 fp8 elements) or an operand's address is not
 * 16-byte aligned: the guarded path loads such operands element by element,
 * 4.2x slower than cuBLASLt at 4500^3 (docs/sm90.md).  Instead, where the
 * caller allows it (`allowed`: no configuration forced, as the tests force
 * the guarded entries, or the tuner's, which times what an unforced run
 * does) and the problem is large, each such
 * operand is first copied (BASE_repack, enqueued ahead of the main launch)
 * into dense rows of e8 elements, its row's e rounded up to the chunk, zero
 * past e, in the run's workspace, and the run plans and packs the fast
 * path on the copies.  Where both operands are K-contiguous the copies'
 * K is k8, K rounded up (zeros add nothing), and the problem is aligned
 * as it is; otherwise K stays and the fast path reads past a copy's e up
 * to e8 only within its zero padding (the 16-byte chunk that holds the
 * last element), which the guarded check (plan_gemm_aligned) cannot know,
 * so the problem is declared aligned.  A batch copies as one operand of
 * every problem's rows where each follows the last (stride rows x ld), or
 * once where the batch shares it (stride 0).  Returns 1
 * with operands[] (and k) swapped for the copies' (their addresses a
 * 16-byte aligned stand-in until run_planned knows the workspace;
 * repack_end restores the caller's), 0 to keep the guarded path.
 */
static int repack_begin(evt_launch *l, int allowed)
{
    const long long m = l->dims[0], n = l->dims[1], k = l->dims[2], batch = l->batch;
    if (!allowed || l->rp.on || l->k->mainloop != EVT_MAINLOOP_GEMM || batch < 1 || k <= 0 ||
        (double)m * (double)n * (double)k * (double)batch < (double)RT_REPACK_MIN_MACS)
        return 0;
    const size_t es = evt_elem_size(l->k->operands[0].elem);
    const long long chunk = 16 / (long long)es;
    const int kc[2] = {l->k->operands[0].layout == EVT_LAYOUT_ROW, l->k->operands[1].layout == EVT_LAYOUT_COL};
    /* both K-contiguous: K rounds up (and must stay an int, as the kernels take it) */
    const long long k8 = kc[0] && kc[1] ? round_up(k, chunk) : k;
    if (k8 > INT_MAX)
        return 0;
    int need[2], any = 0;
    long long rows1[2], e8[2]; /* one problem's rows; a copy's row */
    size_t bytes[2] = {0, 0};  /* a copy's */
    for (int i = 0; i < 2; i++) {
        const rt_buffer *b = &l->operands[i];
        const int own = batch > 1 && b->stride != 0; /* a batch with a problem of its own each */
        rows1[i] = kc[i] ? (i ? n : m) : k;
        l->rp.e[i] = kc[i] ? k : (i ? n : m);
        e8[i] = round_up(l->rp.e[i], chunk);
        need[i] = l->rp.e[i] % chunk != 0 || b->ld % chunk != 0 || (uintptr_t)b->ptr % 16 != 0 ||
                  (own && (unsigned long long)b->stride * es % 16 != 0);
        if (!need[i])
            continue;
        /* a batch's problems copy as one operand of batch x rows rows where
         * each is rows x ld after the last (a dense 3-D tensor); any other
         * stride, or a copy past size_t, keeps the guarded path */
        if (own && (b->ld <= 0 || b->stride % b->ld != 0 || b->stride / b->ld != rows1[i]))
            return 0;
        size_t rows;
        if (!ck_mul_size((size_t)rows1[i], own ? (size_t)batch : 1, &rows) ||
            !ck_mul_size(rows, (size_t)e8[i], &bytes[i]) || !ck_mul_size(bytes[i], es, &bytes[i]) ||
            rows > (size_t)LLONG_MAX)
            return 0;
        l->rp.rows[i] = (long long)rows;
        any = 1;
    }
    if (!any)
        return 0;
    l->rp.k = k;
    for (int i = 0; i < 2; i++) {
        l->rp.need[i] = need[i];
        l->rp.orig[i] = l->operands[i];
        if (!need[i])
            continue;
        rt_buffer *b = &l->operands[i];
        b->ptr = (void *)(uintptr_t)RT_WORKSPACE_ALIGN;
        b->ld = e8[i];
        b->bytes = bytes[i];
        if (b->stride != 0) /* the copy's problems, dense */
            b->stride = rows1[i] * e8[i];
    }
    l->sizes[2] = l->dims[2] = k8;
    l->rp.on = 1;
    return 1;
}

/* Puts back what repack_begin swapped: the caller's operands and K. */
static void repack_end(evt_launch *l)
{
    if (!l->rp.on)
        return;
    l->operands[0] = l->rp.orig[0];
    l->operands[1] = l->rp.orig[1];
    l->sizes[2] = l->dims[2] = l->rp.k;
    l->rp.on = 0;
}

/* The copies repack_begin planned, on stream s, to operands[]' addresses
 * in the workspace: rows of e elements into rows of e8 (repack's grid:
 * 256-thread blocks of 16-byte chunks in x, rows in y). */
static evt_status enqueue_repack(evt_launch *l, const rt_resolved *fns, rt_cu_stream s)
{
    evt_ctx *ctx = l->m->ctx;
    if (!fns->repack)
        return fail(l, EVT_ERR_INTERNAL, "the repack entry point is missing");
    const size_t es = evt_elem_size(l->k->operands[0].elem);
    for (int i = 0; i < 2; i++) {
        if (!l->rp.need[i])
            continue;
        void *src = l->rp.orig[i].ptr, *dst = l->operands[i].ptr;
        long long ld = l->rp.orig[i].ld, r = l->rp.rows[i], e = l->rp.e[i], e8 = l->operands[i].ld;
        const long long xs = (e8 / (16 / (long long)es) + 255) / 256;
        void *params[] = {&src, &ld, &dst, &r, &e, &e8};
        const unsigned gx = (unsigned)(xs < 65535 ? xs : 65535), gy = (unsigned)(r < 65535 ? r : 65535);
        rt_cu_result cr = ctx->driver->launch_kernel(fns->repack, gx, gy, 1, 256, 1, 1, 0, s, params, NULL);
        if (cr)
            return driver_fail(ctx, cr, "cuLaunchKernel");
    }
    return EVT_OK;
}

void launch_tune_key(const evt_launch *l, int aligned, rt_tune_key *key)
{
    memset(key, 0, sizeof *key);
    key->kernel = l->kernel_hash;
    memcpy(key->sizes, l->sizes, sizeof l->sizes);
    key->batch = l->batch;
    key->aligned = aligned;
    snprintf(key->device, sizeof key->device, "%s", l->device);
    key->sms = l->sms;
}

/* The tuning database's plan options for the launch's problem, into *opt:
 * 1, or 0 when the launch's tuning decides (it forces something or ignores
 * records) or there is no record, or -1 when memory ran out reading it. */
static int tuned_plan(evt_launch *l, int aligned, plan_options *opt)
{
    const api_tuning *t = &l->tuning;
    if (t->plan.config || t->plan.split_k || t->plan.stream_k || t->row_group || t->shared_epi || t->ignore_records)
        return 0;
    evt_ctx *ctx = l->m->ctx;
    if (l->tuned_generation != ctx->tunedb_generation + 1 || l->tuned_aligned != aligned ||
        l->tuned_batch != l->batch || memcmp(l->tuned_sizes, l->sizes, sizeof l->sizes) != 0) {
        rt_tune_key key;
        rt_tune_choice c;
        launch_tune_key(l, aligned, &key);
        l->tuned = (plan_options){NULL, 0, 0};
        const int found = rt_tunedb_find(&ctx->tunedb, &key, &c);
        if (found < 0)
            return -1;
        if (found) /* stream-K as recorded, on or off */
            l->tuned = (plan_options){plan_config_find(c.config), c.split_k, c.stream_k ? 2 : 1};
        memcpy(l->tuned_sizes, l->sizes, sizeof l->sizes);
        l->tuned_batch = l->batch;
        l->tuned_aligned = aligned;
        l->tuned_generation = ctx->tunedb_generation + 1;
    }
    if (!l->tuned.config)
        return 0;
    *opt = l->tuned;
    return 1;
}

/* Validates the arguments (and a caller's workspace, ws_bytes at ws), loads
 * the driver and describes the problem for the planner on the current
 * device: the copies' where repack_begin copies operands (repack: it may). */
static evt_status problem_of(evt_launch *l, rt_run *r, plan_problem *prob, const void *ws,
                             size_t ws_bytes, int repack)
{
    evt_ctx *ctx = l->m->ctx;
    evt_status st = validate(l, ws, ws_bytes);
    if (st == EVT_OK)
        st = reduction_workspace(l, &r->words, &r->bytes);
    if (st != EVT_OK)
        return st;
    rt_cu_device dev;
    if ((st = ensure_driver(ctx, &r->cu_ctx, &dev)) != EVT_OK)
        return st;
    if (r->cu_ctx != l->device_ctx) {
        if ((st = target_of(ctx, dev, &l->target, &l->sms)) != EVT_OK)
            return st;
        l->clusters = device_clusters(ctx, r->cu_ctx, dev, l->target);
        /* The name keys the tuning database: an empty one would file this
         * GPU's records where no later run of it looks. */
        const rt_cu_result nr = ctx->driver->device_get_name(l->device, (int)sizeof l->device, dev);
        if (nr != 0)
            return driver_fail(ctx, nr, "cuDeviceGetName");
        l->device_ctx = r->cu_ctx;
        l->tuned_generation = 0;
    }
    long long m = l->dims[0], n = l->dims[1], k = l->dims[2];
    const evt_operand_info *oa = &l->k->operands[0], *ob = &l->k->operands[1];
    const rt_buffer *a = &l->operands[0], *b = &l->operands[1];
    const int conv = l->k->mainloop == EVT_MAINLOOP_CONV2D_FPROP;
    const int driver_tma = ctx->driver->tensor_map_tiled && (!conv || ctx->driver->tensor_map_im2col);
    /* a batch's later problems' operands start a batch stride after the
     * first's: each must be as aligned (and a TMA map's strides 16-byte
     * multiples), as a leading dimension must */
    int aligned =
        conv ? plan_conv_aligned(l->sizes[3], (uintptr_t)a->ptr, (uintptr_t)b->ptr)
             : plan_gemm_aligned_elem(oa->layout == EVT_LAYOUT_COL, ob->layout == EVT_LAYOUT_COL, m, n,
                                      k, (uintptr_t)a->ptr, a->ld, (uintptr_t)b->ptr, b->ld,
                                      (int)evt_elem_size(oa->elem)) &&
                   (l->batch == 1 || ((unsigned long long)a->stride * evt_elem_size(oa->elem) % 16 == 0 &&
                                      (unsigned long long)b->stride * evt_elem_size(ob->elem) % 16 == 0));
    if (!aligned && repack_begin(l, repack)) { /* the copies' operands and k */
        aligned = 1;
        k = l->dims[2];
    }
    *prob = (plan_problem){l->target, l->sms, m, n, k, conv ? l->sizes[3] : 0, aligned, driver_tma,
                           l->batch, conv ? (l->sizes[11] > l->sizes[12] ? l->sizes[11] : l->sizes[12]) : 0,
                           conv ? l->sizes[5] : 0, conv ? l->sizes[6] : 0, l->clusters};
    return EVT_OK;
}

evt_status launch_problem(evt_launch *l, launch_view *v, plan_problem *prob, rt_tune_key *key)
{
    rt_run r;
    /* as an unforced run plans, copies included: the tuner's forced runs
     * repack too (api_tuning.repack), and the record is looked up under
     * the copies' sizes (tuned_plan, in prepare) */
    evt_status st = problem_of(l, &r, prob, NULL, 0, 1);
    *v = (launch_view){l->m, l->k, &l->pk, r.cu_ctx, &l->tuning};
    if (st == EVT_OK) {
        launch_tune_key(l, prob->aligned, key);
        l->tuned_generation = 0; /* a record may come: look again at the next run */
    }
    repack_end(l);
    return st;
}

evt_status launch_source(evt_launch *l, const plan *pl, strbuf *src)
{
    const cg_select sel = {pl->config, pl->aligned, pl->splits > 1, l->tuning.row_group, l->fast_math,
                           shared_epi_of(l, pl)};
    return kernel_generate(l->m, l->k, l->target, &sel, src);
}

/* Validates the arguments (and a caller's workspace) and plans the run on
 * the current device, its operands repacked unless a configuration is
 * forced; the caller calls repack_end once done with the plan. */
static evt_status prepare(evt_launch *l, rt_run *r, const void *ws, size_t ws_bytes)
{
    evt_ctx *ctx = l->m->ctx;
    plan_problem prob;
    evt_status st = problem_of(l, r, &prob, ws, ws_bytes, !l->tuning.plan.config || l->tuning.repack);
    if (st != EVT_OK)
        return st;
    const char *why = plan_kernel_target_refusal(&l->pk, l->target);
    if (why)
        return fail(l, EVT_ERR_UNSUPPORTED, "cannot run on this GPU (%s): %s",
                    evt_target_name(l->target), why);
    plan_options opt = l->tuning.plan;
    const int recorded = tuned_plan(l, prob.aligned, &opt);
    if (recorded < 0)
        return fail(l, EVT_ERR_NO_MEMORY, "out of memory reading the tuning database");
    r->tuned = recorded && plan_make(&l->pk, &prob, &opt, &r->pl, &why);
    if (!r->tuned) { /* no record, or one this build's planner refuses: the heuristic's */
        opt = l->tuning.plan;
        if (!plan_make(&l->pk, &prob, &opt, &r->pl, &why))
            return opt.config ? config_refused(ctx, opt.config, l->k, l->target, why)
                              : fail(l, EVT_ERR_INTERNAL, "no plan: %s", why);
    }
    memset(&r->maps, 0, sizeof r->maps);
    if (r->pl.tma && !tma_maps(l, r->pl.config, &r->maps))
        plan_tma_refused(&l->pk, &prob, &opt, &r->pl); /* the driver refused them */
    /* check_tiles bounded the fewest tiles any configuration gives; the one
     * chosen may give more.  Refused here, before anything is enqueued:
     * enqueue's grids are unsigned, and cuLaunchKernel takes 2^31-1. */
    if (r->pl.tiles > RT_MAX_GRID || r->pl.grid > RT_MAX_GRID)
        return fail(l, EVT_ERR_INVALID_ARGUMENT,
                    "configuration %s cuts the problem%s into %lld tiles, a grid of %lld CTAs: past "
                    "the 2^31-1 of a launch",
                    r->pl.config->name, l->batch > 1 ? "s of the batch" : "", r->pl.tiles, r->pl.grid);

    r->split_offset = 0;
    r->sk_flags = 0;
    /* partial tiles of split-K (grid = tiles x splits CTAs), of a persistent
     * plan's tail, or of stream-K (a slot a CTA) */
    const long long shares = r->pl.sk_iters > 0 || r->pl.splits > 1 ? r->pl.grid
                             : r->pl.tail_splits > 1 ? (r->pl.tiles - r->pl.tail_first) * r->pl.tail_splits
                                                     : 0;
    if (r->pl.tiles > 0 && r->pl.sk_iters > 0) { /* its flags first, a 128-byte line each (grid below 2^31) */
        r->sk_flags = ws_align(r->bytes);
        if (r->sk_flags < r->bytes || !ck_add_size(r->sk_flags, (size_t)r->pl.grid * 128, &r->bytes))
            return fail(l, EVT_ERR_INVALID_ARGUMENT, "stream-K's flags for %lld CTAs overflow size_t",
                        r->pl.grid);
    }
    if (r->pl.tiles > 0 && shares > 0) {
        size_t partials; /* a BM x BN tile of floats a share */
        r->split_offset = ws_align(r->bytes);
        if (r->split_offset < r->bytes ||
            !ck_mul_size((size_t)shares, (size_t)r->pl.config->bm * (size_t)r->pl.config->bn * 4,
                         &partials) ||
            !ck_add_size(r->split_offset, partials, &r->bytes))
            return fail(l, EVT_ERR_INVALID_ARGUMENT,
                        "the workspace for %lld partial tiles (split-K, a tail or stream-K) overflows size_t",
                        shares);
    }
    for (int i = 0; i < 2 && l->rp.on; i++) {
        r->repack_offset[i] = 0;
        if (!l->rp.need[i])
            continue;
        const size_t at = ws_align(r->bytes);
        if (at < r->bytes || !ck_add_size(at, l->operands[i].bytes, &r->bytes))
            return fail(l, EVT_ERR_INVALID_ARGUMENT, "the operands' copies overflow size_t");
        r->repack_offset[i] = at;
    }
    return EVT_OK;
}

/* The split-K entries of configuration c (functions f) on tiles tile0 ..
 * tile0 + own - 1: every share into its slot, then each tile's sum in share
 * order and its epilogue.  A plan's split-K has tile0 0, a persistent
 * plan's tail its first tile. */
static evt_status launch_split(evt_ctx *ctx, const rt_resolved *f, const plan_config *c, long long own,
                               int splits, int tile0, rt_cu_ptr slots, unsigned char *args, rt_cu_stream s,
                               int sms, int *in_cluster)
{
    void *params[] = {args, &slots, &splits, &tile0};
    *in_cluster = cluster_split(f, own, splits, sms);
    if (*in_cluster) {
        /* each tile's shares one cluster (consecutive CTAs): they sum in
         * shared memory and run the epilogue, no _splitsum (cluster_split.cuh) */
        rt_cu_launch_attr a = cluster_attr((unsigned)splits);
        const rt_cu_launch_config lc = {{(unsigned)(own * splits), 1, 1}, {(unsigned)c->threads, 1, 1},
                                        (unsigned)c->smem_bytes, s, &a, 1};
        rt_cu_result r = ctx->driver->launch_kernel_ex(&lc, f->main, params, NULL);
        return r ? driver_fail(ctx, r, "cuLaunchKernelEx") : EVT_OK;
    }
    evt_status st = launch_params(ctx, f->main, (unsigned)(own * splits), (unsigned)c->threads,
                                  (unsigned)c->smem_bytes, s, params);
    if (st == EVT_OK)
        st = launch_params(ctx, f->sum, (unsigned)own, (unsigned)c->sum_threads, (unsigned)c->smem_bytes, s,
                           params);
    return st;
}

/* Enqueues prepared run r on stream s, its workspace at ws (own: the
 * launch's own); tail: the
 * functions of r's tail (r->pl.tail_splits > 1), else NULL. */
static evt_status enqueue(evt_launch *l, rt_run *r, const rt_resolved *fns, const rt_resolved *tail,
                          rt_cu_ptr ws, int own, rt_cu_stream s)
{
    evt_ctx *ctx = l->m->ctx;
    unsigned char args[CG_MAX_FIELDS * 8];
    pack(l, args);
    rt_cu_ptr words_at = ws;
    for (size_t i = 0; i < l->layout.nfields; i++) {
        const cg_field *f = &l->layout.fields[i];
        if (f->role == CG_ROLE_WORKSPACE) {
            memcpy(args + f->offset, &words_at, sizeof words_at);
            words_at += (rt_cu_ptr)reduction_words(l, (size_t)f->index) * 4;
        }
    }

    evt_status st = l->rp.on ? enqueue_repack(l, fns, s) : EVT_OK;
    const long long words = r->words;
    unsigned small_grid = (unsigned)((words + 255) / 256 < 1024 ? (words + 255) / 256 : 1024);
    if (st == EVT_OK && words > 0)
        st = launch1(ctx, fns->init, small_grid, 256, 0, s, args);
    const unsigned threads = (unsigned)r->pl.config->threads;
    const unsigned smem = (unsigned)r->pl.config->smem_bytes;
    const long long tiles = r->pl.tiles, grid = r->pl.grid;
    const int splits = r->pl.splits;
    int tile_end = (int)r->pl.tail_first; /* tiles below 2^31 (prepare) */
    /* kernels/sched/tiles.cuh's evt_stream_k, as the entry takes it */
    struct {
        unsigned long long partials, flags;
        long long iters;
        int first, pad;
    } sk = {0, 0, 0, (int)r->pl.sk_first, 0};
    _Static_assert(sizeof sk == 32, "evt_stream_k is 32 bytes");
    /* a graph replays whatever ran before it: a captured run zeroes its
     * flags itself, and the next run does too */
    int capture = RT_CU_CAPTURE_NONE;
    const int captured = r->pl.sk_iters > 0 && ctx->driver->stream_is_capturing(s, &capture) == 0 &&
                         capture != RT_CU_CAPTURE_NONE;
    if (st == EVT_OK && tiles > 0 && r->pl.sk_iters > 0) {
        sk.flags = ws + r->sk_flags;
        sk.partials = ws + r->split_offset;
        sk.iters = r->pl.sk_iters;
        /* the flags are zero past a stream-K run; elsewhere they may not be */
        if (captured || !(own && l->sk_clean == sk.flags && l->sk_clean_n >= grid)) {
            const rt_cu_result cr = ctx->driver->memset_d32_async(sk.flags, 0, (size_t)grid * 32, s);
            if (cr)
                st = driver_fail(ctx, cr, "cuMemsetD32Async");
        }
    }
    if (own) /* known zero after this run only if it is stream-K's, enqueued */
        l->sk_clean = 0;
    if (st == EVT_OK && tiles > 0 && splits == 1 && tile_end > 0) {
        /* the maps: TMA entries' second parameter; a persistent entry's last two, its tile end and stream-K */
        void *params_tma[] = {args, &r->maps, &tile_end, &sk}, *params[] = {args, &tile_end, &sk};
        st = launch_params(ctx, fns->main, (unsigned)grid, threads, smem, s,
                           r->pl.tma ? params_tma : params);
        if (st == EVT_OK && own && r->pl.sk_iters > 0 && !captured) {
            l->sk_clean = sk.flags;
            l->sk_clean_n = grid;
        }
    }
    int in_cluster = 0;
    if (st == EVT_OK && tiles > 0 && splits > 1)
        st = launch_split(ctx, fns, r->pl.config, tiles, splits, 0, ws + r->split_offset, args, s, l->sms,
                          &in_cluster);
    if (st == EVT_OK && tiles > 0 && splits == 1 && r->pl.tail_splits > 1)
        st = launch_split(ctx, tail, r->pl.tail_config, tiles - r->pl.tail_first, r->pl.tail_splits,
                          tile_end, ws + r->split_offset, args, s, l->sms, &in_cluster);
    if (st == EVT_OK && words > 0)
        st = launch1(ctx, fns->finish, small_grid, 256, 0, s, args);
    if (st == EVT_OK) {
        l->last = r->pl;
        l->last_tuned = r->tuned;
        l->last_repacked[0] = l->rp.on && l->rp.need[0];
        l->last_repacked[1] = l->rp.on && l->rp.need[1];
        l->last_cluster_sum = in_cluster;
        l->last_direct = fns->direct && tile_end > 0; /* (a split plan's entries never are) */
    }
    return st;
}

/* A run on `stream` in the caller's workspace (own == 0) or the launch's
 * own, its operands repacked where repack_begin says. */
static evt_status run_planned(evt_launch *l, void *stream, int own, void *workspace, size_t bytes);

static evt_status run(evt_launch *l, void *stream, int own, void *workspace, size_t bytes)
{
    const evt_status st = run_planned(l, stream, own, workspace, bytes);
    repack_end(l);
    return st;
}

static evt_status run_planned(evt_launch *l, void *stream, int own, void *workspace, size_t bytes)
{
    rt_run r;
    evt_status st = prepare(l, &r, own ? NULL : workspace, own ? 0 : bytes);
    if (st != EVT_OK)
        return st;
    if (!own && r.bytes > bytes)
        return fail(l, EVT_ERR_BAD_BUFFER,
                    "the workspace is too small: %zu bytes, the run needs %zu "
                    "(evt_launch_workspace_size)",
                    bytes, r.bytes);
    const rt_resolved *found = NULL;
    if ((st = resolve(l, r.cu_ctx, &r.pl, &found)) != EVT_OK)
        return st;
    /* copies: a later resolve may move the slots */
    const rt_resolved main_fns = *found, *fns = &main_fns;
    rt_resolved tail_fns;
    if (r.pl.tail_splits > 1) {
        const plan tail_plan = plan_tail_plan(&r.pl);
        if ((st = resolve(l, r.cu_ctx, &tail_plan, &found)) != EVT_OK)
            return st;
        tail_fns = *found;
    }
    plan_fit_clusters(&r.pl, fns->clusters); /* one wave of whole clusters */
    rt_cu_stream s = (rt_cu_stream)stream;
    if (own && (st = grow_workspace(l, s, r.bytes)) != EVT_OK)
        return st;
    const rt_cu_ptr ws = own ? l->workspace : (rt_cu_ptr)(uintptr_t)workspace;
    if (l->rp.on) { /* the copies' addresses, and the maps of them prepare could only try */
        for (int i = 0; i < 2; i++)
            if (l->rp.need[i])
                l->operands[i].ptr = (void *)(uintptr_t)(ws + r.repack_offset[i]);
        if (r.pl.tma && !tma_maps(l, r.pl.config, &r.maps))
            return fail(l, EVT_ERR_DRIVER, "the driver refused the TMA maps of the operands' copies");
    }
    return enqueue(l, &r, fns, r.pl.tail_splits > 1 ? &tail_fns : NULL, ws, own, s);
}

evt_status evt_launch_run(evt_launch *l, void *stream)
{
    if (!l)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(l);
    return run(l, stream, 1, NULL, 0);
}

evt_status evt_launch_run_with_workspace(evt_launch *l, void *stream, void *workspace,
                                         size_t bytes)
{
    if (!l)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(l);
    if (!workspace && bytes)
        return fail(l, EVT_ERR_INVALID_ARGUMENT, "a workspace of %zu bytes at NULL", bytes);
    if ((uintptr_t)workspace % RT_WORKSPACE_ALIGN != 0)
        return fail(l, EVT_ERR_BAD_BUFFER, "the workspace is not aligned to %d bytes",
                    RT_WORKSPACE_ALIGN);
    return run(l, stream, 0, workspace, bytes);
}

evt_status evt_launch_workspace_size(evt_launch *l, size_t *bytes)
{
    if (!l)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(l);
    if (!bytes)
        return fail(l, EVT_ERR_INVALID_ARGUMENT, "evt_launch_workspace_size: bytes is NULL");
    rt_run r;
    evt_status st = prepare(l, &r, NULL, 0); /* as run() plans, copies included */
    repack_end(l);
    *bytes = st == EVT_OK ? r.bytes : 0;
    return st;
}

const char *evt_launch_plan(evt_launch *l)
{
    if (!l || !l->last.config)
        return NULL;
    plan_describe(&l->last, l->target, l->plan_text, sizeof l->plan_text);
    if (l->last_cluster_sum) {
        size_t n = strlen(l->plan_text);
        snprintf(l->plan_text + n, sizeof l->plan_text - n, " cluster-sum");
    }
    if (l->last_direct) {
        size_t n = strlen(l->plan_text);
        snprintf(l->plan_text + n, sizeof l->plan_text - n, " direct-epilogue");
    }
    if (l->last_tuned) {
        size_t n = strlen(l->plan_text);
        snprintf(l->plan_text + n, sizeof l->plan_text - n, " tuned");
    }
    if (l->last_repacked[0] || l->last_repacked[1]) {
        size_t n = strlen(l->plan_text);
        snprintf(l->plan_text + n, sizeof l->plan_text - n, " repacked%s%s", l->last_repacked[0] ? " a" : "",
                 l->last_repacked[1] ? " b" : "");
    }
    return l->plan_text;
}

evt_status evt_launch_set_tuning(evt_launch *l, const evt_tuning *tuning)
{
    if (!l)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(l);
    api_tuning t;
    evt_status st = tuning_parse(l->m->ctx, tuning, &t);
    const plan_config *c = t.plan.config;
    const char *other = st == EVT_OK && c ? plan_config_mainloop_refusal(c, l->k->mainloop) : NULL;
    if (other) /* refused now: no target can change that */
        st = fail(l, EVT_ERR_UNSUPPORTED, "configuration %s: %s", c->name, other);
    if (st == EVT_OK)
        l->tuning = t;
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of times[0..n), n >= 1 (sorts them). */
static double median_of(double *times, int n)
{
    qsort(times, (size_t)n, sizeof *times, cmp_double);
    return n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

evt_status evt_launch_benchmark(evt_launch *l, void *stream, int warmup, int reps,
                                double *median_ms)
{
    if (!l)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(l);
    if (!median_ms)
        return ctx_fail(l->m->ctx, EVT_ERR_INVALID_ARGUMENT, "evt_launch_benchmark: median_ms is NULL");
    if (reps < 1 || warmup < 0)
        return ctx_fail(l->m->ctx, EVT_ERR_INVALID_ARGUMENT,
                        "evt_launch_benchmark: reps must be 1 or more and warmup 0 or more, not reps %d, warmup %d",
                        reps, warmup);
    evt_status st = EVT_OK;
    for (int i = 0; i < warmup && st == EVT_OK; i++)
        st = evt_launch_run(l, stream);
    if (st == EVT_OK && warmup == 0)
        st = evt_launch_run(l, stream); /* compile and load outside the timing */
    if (st != EVT_OK)
        return st;
    const rt_driver *d = l->m->ctx->driver;
    rt_cu_stream s = (rt_cu_stream)stream;
    double *times = calloc((size_t)reps, sizeof *times);
    rt_cu_event e0 = NULL, e1 = NULL;
    if (!times) {
        st = ctx_fail(l->m->ctx, EVT_ERR_NO_MEMORY, "evt_launch_benchmark: out of memory for %d times", reps);
        reps = 0;
    } else if (d->event_create(&e0, 0) != 0 || d->event_create(&e1, 0) != 0) {
        st = ctx_fail(l->m->ctx, EVT_ERR_DRIVER, "cannot create CUDA events");
        reps = 0;
    }
    for (int i = 0; i < reps && st == EVT_OK; i++) {
        float ms = 0;
        if (d->event_record(e0, s) != 0 || (st = evt_launch_run(l, stream)) != EVT_OK ||
            d->event_record(e1, s) != 0 || d->event_synchronize(e1) != 0 ||
            d->event_elapsed(&ms, e0, e1) != 0) {
            if (st == EVT_OK)
                st = ctx_fail(l->m->ctx, EVT_ERR_DRIVER, "timing with CUDA events failed");
            break;
        }
        times[i] = ms;
    }
    if (st == EVT_OK)
        *median_ms = median_of(times, reps);
    if (e0)
        d->event_destroy(e0);
    if (e1)
        d->event_destroy(e1);
    free(times);
    return st;
}

/* Whether stream s is being captured (or the driver cannot say). */
static int still_capturing(const rt_driver *d, rt_cu_stream s)
{
    int capture = RT_CU_CAPTURE_NONE;
    return d->stream_is_capturing(s, &capture) != 0 || capture != RT_CU_CAPTURE_NONE;
}

/*
 * The median time of one run of l, as evt_launch_benchmark gives it, but
 * each of the reps samples `inner` runs captured into one CUDA graph and
 * replayed between two events on a stream of the library's own: the GPU's
 * time alone.  evt_launch_benchmark's samples are one run each, between
 * two events with a synchronize after, so each holds the host's launch of
 * that run too, a few microseconds that for kernels of 3-10 µs were as
 * large as the differences tuning chose by (docs/tuning.md, session 62).
 * 1 where timed; 0, and nothing timed, where the driver lacks graphs, the
 * caller's stream is itself being captured, or the capture fails (a run
 * that needs what a capture cannot hold): the caller then times run by
 * run.  l must have run on `stream` already, and that run be done
 * (tune.c's first look, evt_launch_benchmark, waits for each): the kernels
 * are loaded and the workspace grown, which a capture could not do.
 */
int launch_time_replayed(evt_launch *l, void *stream, int inner, int reps, double *median_ms)
{
    const rt_driver *d = l->m->ctx->driver;
    if (!d || !rt_driver_graphs(d) || inner < 1 || reps < 1 || still_capturing(d, (rt_cu_stream)stream))
        return 0;
    rt_cu_stream s = NULL;
    rt_cu_graph g = NULL;
    rt_cu_graph_exec x = NULL;
    rt_cu_event e0 = NULL, e1 = NULL;
    double *times = calloc((size_t)reps, sizeof *times);
    int ok = times && d->stream_create(&s, RT_CU_STREAM_NON_BLOCKING) == 0 &&
             d->stream_begin_capture(s, RT_CU_CAPTURE_MODE_RELAXED) == 0;
    if (ok) {
        evt_status st = EVT_OK;
        for (int i = 0; i < inner && st == EVT_OK; i++)
            st = evt_launch_run(l, s);
        /* the capture ends whatever the runs did, so that s can be destroyed */
        ok = d->stream_end_capture(s, &g) == 0 && st == EVT_OK && g && d->graph_instantiate(&x, g, 0) == 0;
        ctx_clear(l->m->ctx); /* a run refused under capture is not the caller's error: it times run by run */
    }
    /* a first replay outside the timing, then the timed ones */
    ok = ok && d->event_create(&e0, 0) == 0 && d->event_create(&e1, 0) == 0 && d->graph_launch(x, s) == 0 &&
         d->stream_synchronize(s) == 0;
    for (int i = 0; ok && i < reps; i++) {
        float ms = 0;
        ok = d->event_record(e0, s) == 0 && d->graph_launch(x, s) == 0 && d->event_record(e1, s) == 0 &&
             d->event_synchronize(e1) == 0 && d->event_elapsed(&ms, e0, e1) == 0;
        times[i] = (double)ms / inner;
    }
    if (ok)
        *median_ms = median_of(times, reps);
    if (s && still_capturing(d, s)) {
        /* the end of the capture failed: a capturing stream can be neither
         * synchronized nor destroyed, so it is ended once more */
        rt_cu_graph again = NULL;
        if (d->stream_end_capture(s, &again) == 0 && again)
            d->graph_destroy(again);
    }
    if (s && still_capturing(d, s))
        s = NULL; /* left to the driver rather than misused */
    if (s)
        d->stream_synchronize(s);
    if (e0)
        d->event_destroy(e0);
    if (e1)
        d->event_destroy(e1);
    if (x)
        d->graph_exec_destroy(x);
    if (g)
        d->graph_destroy(g);
    if (s)
        d->stream_destroy(s);
    free(times);
    return ok;
}

/* ---- device memory ----------------------------------------------------- */

/* Also starts the call: the context's last message goes (ctx_clear). */
static evt_status device_ready(evt_ctx *ctx)
{
    ctx_clear(ctx);
    rt_cu_context cu_ctx;
    rt_cu_device dev;
    return ctx ? ensure_driver(ctx, &cu_ctx, &dev) : EVT_ERR_INVALID_ARGUMENT;
}

static evt_status driver_call(evt_ctx *ctx, rt_cu_result r, const char *call)
{
    if (r == 0)
        return EVT_OK;
    strbuf err;
    sb_init(&err);
    rt_driver_error(ctx->driver, r, call, &err);
    evt_status st = ctx_fail(ctx, EVT_ERR_DRIVER, "%s", sb_str(&err));
    sb_free(&err);
    return st;
}

evt_status evt_device_alloc(evt_ctx *ctx, size_t bytes, void **ptr)
{
    evt_status st = device_ready(ctx);
    if (st != EVT_OK)
        return st;
    if (!ptr)
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT, "evt_device_alloc: ptr is NULL");
    rt_cu_ptr p = 0;
    st = driver_call(ctx, ctx->driver->mem_alloc(&p, bytes ? bytes : 1), "cuMemAlloc");
    *ptr = st == EVT_OK ? (void *)(uintptr_t)p : NULL;
    return st;
}

evt_status evt_device_free(evt_ctx *ctx, void *ptr)
{
    ctx_clear(ctx);
    if (!ptr)
        return EVT_OK;
    evt_status st = device_ready(ctx);
    return st != EVT_OK ? st
                        : driver_call(ctx, ctx->driver->mem_free((rt_cu_ptr)(uintptr_t)ptr),
                                      "cuMemFree");
}

evt_status evt_device_copy_to(evt_ctx *ctx, void *dst, const void *host, size_t bytes)
{
    evt_status st = device_ready(ctx);
    if (st != EVT_OK || !bytes)
        return st;
    return driver_call(ctx, ctx->driver->memcpy_htod((rt_cu_ptr)(uintptr_t)dst, host, bytes),
                       "cuMemcpyHtoD");
}

evt_status evt_device_copy_from(evt_ctx *ctx, void *host, const void *src, size_t bytes)
{
    evt_status st = device_ready(ctx);
    if (st != EVT_OK || !bytes)
        return st;
    return driver_call(ctx, ctx->driver->memcpy_dtoh(host, (rt_cu_ptr)(uintptr_t)src, bytes),
                       "cuMemcpyDtoH");
}

evt_status evt_device_synchronize(evt_ctx *ctx)
{
    evt_status st = device_ready(ctx);
    return st != EVT_OK ? st : driver_call(ctx, ctx->driver->ctx_synchronize(), "cuCtxSynchronize");
}
