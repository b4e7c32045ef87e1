/* api.c - the public reference interpreter (evt_interp_*) and element conversions. */
#include "../support/alias.h"
#include "../support/checked.h"
#include "../support/extent.h"
#include "interp.h"

#include "../kernels/common/evt_math.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct interp_buffer {
    void *ptr;
    size_t bytes;
    long long ld;
    int as_f64;
    int set;
} interp_buffer;

struct evt_interp {
    const ir_func *fn;
    interp_buffer *inputs, *outputs;
    interp_buffer *magnitudes; /* an output's, of a reduce_sum (evt_interp_bind_magnitude) */
    float *params;
    int *param_set;
    long long m, n, ldacc;
    const float *acc;
    const double *acc_f64;
    size_t acc_bytes;
    int acc_set;
    char error[512];
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static evt_status fail(evt_interp *in, evt_status st, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(in->error, sizeof in->error, "epilogue '%s': %s", in->fn->name, msg);
    return st;
}

evt_status evt_interp_create(const evt_epilogue *epilogue, evt_interp **out)
{
    if (!out)
        return EVT_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!epilogue)
        return EVT_ERR_INVALID_ARGUMENT;
    const ir_func *fn = epilogue;
    evt_interp *in = calloc(1, sizeof *in);
    if (!in)
        return EVT_ERR_NO_MEMORY;
    in->fn = fn;
    in->inputs = calloc(fn->ninputs + 1, sizeof *in->inputs);
    in->outputs = calloc(fn->noutputs + 1, sizeof *in->outputs);
    in->magnitudes = calloc(fn->noutputs + 1, sizeof *in->magnitudes);
    in->params = calloc(fn->nparams + 1, sizeof *in->params);
    in->param_set = calloc(fn->nparams + 1, sizeof *in->param_set);
    if (!in->inputs || !in->outputs || !in->magnitudes || !in->params || !in->param_set) {
        evt_interp_destroy(in);
        return EVT_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < fn->nparams; i++)
        if (fn->params[i].info.has_default) {
            in->params[i] = fn->params[i].info.default_value;
            in->param_set[i] = 1;
        }
    *out = in;
    return EVT_OK;
}

void evt_interp_destroy(evt_interp *in)
{
    if (!in)
        return;
    free(in->inputs);
    free(in->outputs);
    free(in->magnitudes);
    free(in->params);
    free(in->param_set);
    free(in);
}

const char *evt_interp_last_error(const evt_interp *in)
{
    return in ? in->error : "no interpreter";
}

/* Starts a call on the interpreter: the message of the call before goes,
 * so that a success leaves "". */
static void begin(evt_interp *in)
{
    in->error[0] = '\0';
}

/* The index of fn's output `name`, or -1. */
static long output_of(const ir_func *fn, const char *name)
{
    for (size_t i = 0; i < fn->noutputs; i++)
        if (strcmp(fn->outputs[i].info.name, name) == 0)
            return (long)i;
    return -1;
}

static evt_status bind(evt_interp *in, const char *name, void *ptr, size_t bytes, long long ld,
                       int as_f64)
{
    if (!in)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(in);
    if (!name)
        return fail(in, EVT_ERR_INVALID_ARGUMENT, "the name to bind is NULL");
    const ir_func *fn = in->fn;
    for (size_t i = 0; i < fn->ninputs; i++)
        if (strcmp(fn->inputs[i].info.name, name) == 0) {
            if (as_f64)
                return fail(in, EVT_ERR_INVALID_ARGUMENT,
                            "'%s' is an input: only outputs can be bound as f64", name);
            in->inputs[i] = (interp_buffer){ptr, bytes, ld, 0, 1};
            return EVT_OK;
        }
    const long o = output_of(fn, name);
    if (o >= 0) {
        in->outputs[o] = (interp_buffer){ptr, bytes, ld, as_f64, 1};
        return EVT_OK;
    }
    for (size_t i = 0; i < fn->nparams; i++)
        if (strcmp(fn->params[i].info.name, name) == 0)
            return fail(in, EVT_ERR_INVALID_ARGUMENT,
                        "'%s' is a param: set it with evt_interp_set_param", name);
    return fail(in, EVT_ERR_NOT_FOUND, "no input or output '%s'", name);
}

evt_status evt_interp_bind(evt_interp *in, const char *name, void *ptr, size_t bytes, long long ld)
{
    return bind(in, name, ptr, bytes, ld, 0);
}

evt_status evt_interp_bind_magnitude(evt_interp *in, const char *name, double *ptr, size_t bytes)
{
    if (!in)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(in);
    if (!name)
        return fail(in, EVT_ERR_INVALID_ARGUMENT, "the name to bind is NULL");
    const long o = output_of(in->fn, name);
    if (o < 0)
        return fail(in, EVT_ERR_NOT_FOUND, "no output '%s'", name);
    if (in->fn->outputs[o].info.reduce != EVT_REDUCE_SUM)
        return fail(in, EVT_ERR_INVALID_ARGUMENT,
                    "output '%s' is not a reduce_sum: only a sum has a magnitude", name);
    in->magnitudes[o] = (interp_buffer){ptr, bytes, 0, 1, ptr != NULL};
    return EVT_OK;
}

evt_status evt_interp_bind_f64(evt_interp *in, const char *name, double *ptr, size_t bytes,
                               long long ld)
{
    return bind(in, name, ptr, bytes, ld, 1);
}

evt_status evt_interp_set_param(evt_interp *in, const char *name, float value)
{
    if (!in)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(in);
    if (!name)
        return fail(in, EVT_ERR_INVALID_ARGUMENT, "the param name is NULL");
    for (size_t i = 0; i < in->fn->nparams; i++)
        if (strcmp(in->fn->params[i].info.name, name) == 0) {
            in->params[i] = value;
            in->param_set[i] = 1;
            return EVT_OK;
        }
    return fail(in, EVT_ERR_NOT_FOUND, "no param '%s'", name);
}

static evt_status set_acc(evt_interp *in, long long m, long long n, const float *acc,
                          const double *acc_f64, size_t bytes, long long ld)
{
    if (!in)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(in);
    if (m < 0 || n < 0)
        return fail(in, EVT_ERR_INVALID_ARGUMENT, "negative size %lld x %lld", m, n);
    if (ld < n)
        return fail(in, EVT_ERR_INVALID_ARGUMENT,
                    "the accumulator's leading dimension %lld is smaller than N = %lld", ld, n);
    if (!acc && !acc_f64 && m && n)
        return fail(in, EVT_ERR_INVALID_ARGUMENT, "the accumulator is NULL");
    in->m = m;
    in->n = n;
    in->ldacc = ld;
    in->acc = acc;
    in->acc_f64 = acc_f64;
    in->acc_bytes = bytes;
    in->acc_set = 1;
    return EVT_OK;
}

evt_status evt_interp_set_acc(evt_interp *in, long long m, long long n, const float *acc,
                              size_t bytes, long long ld)
{
    return set_acc(in, m, n, acc, NULL, bytes, ld);
}

evt_status evt_interp_set_acc_f64(evt_interp *in, long long m, long long n, const double *acc,
                                  size_t bytes, long long ld)
{
    return set_acc(in, m, n, NULL, acc, bytes, ld);
}

/* The bytes of `elems` elements of esize bytes into *out; 0 where that
 * exceeds size_t (so no buffer can hold them). */
static int extent_bytes(long long elems, size_t esize, size_t *out)
{
    return (unsigned long long)elems <= SIZE_MAX && ck_mul_size((size_t)elems, esize, out);
}

static evt_status check_buffer(evt_interp *in, const char *what, const evt_arg_info *info,
                               const interp_buffer *buf, interp_array *arr)
{
    long long rows = (info->shape & EVT_SHAPE_M) ? in->m : 1;
    long long cols = (info->shape & EVT_SHAPE_N) ? in->n : 1;
    int has_ld = info->shape == EVT_SHAPE_MN;
    size_t esize = buf->as_f64 ? sizeof(double) : evt_elem_size(info->elem);
    if (!buf->set)
        return fail(in, EVT_ERR_UNBOUND, "%s '%s' was never bound (evt_interp_bind)", what,
                    info->name);
    long long ld = has_ld ? buf->ld : cols;
    if (has_ld && ld < cols)
        return fail(in, EVT_ERR_INVALID_ARGUMENT,
                    "%s '%s': the leading dimension %lld is smaller than N = %lld", what,
                    info->name, ld, cols);
    long long n = matrix_extent(rows, cols, ld);
    if (n < 0)
        return fail(in, EVT_ERR_INVALID_ARGUMENT, "%s '%s': the extent overflows", what,
                    info->name);
    *arr = (interp_array){buf->ptr, (size_t)ld, buf->as_f64, NULL};
    if (n == 0)
        return EVT_OK;
    if (!buf->ptr)
        return fail(in, EVT_ERR_UNBOUND, "%s '%s' is a NULL pointer", what, info->name);
    size_t need;
    if (!extent_bytes(n, esize, &need))
        return fail(in, EVT_ERR_BAD_BUFFER,
                    "%s '%s' is too small: %zu bytes, it needs %lld elements of %zu bytes", what,
                    info->name, buf->bytes, n, esize);
    if (need > buf->bytes)
        return fail(in, EVT_ERR_BAD_BUFFER, "%s '%s' is too small: %zu bytes, it needs %zu", what,
                    info->name, buf->bytes, need);
    return EVT_OK;
}

/* One input or output of a run in the aliasing check. */
static void alias_arg(alias_buf *b, const char *what, const evt_arg_info *info,
                      const interp_buffer *buf, long long m, long long n, int written)
{
    const long long rows = (info->shape & EVT_SHAPE_M) ? m : 1;
    const long long cols = (info->shape & EVT_SHAPE_N) ? n : 1;
    const long long ld = info->shape == EVT_SHAPE_MN ? buf->ld : cols;
    alias_footprint(b, buf->ptr, rows, cols, ld,
                    buf->as_f64 ? sizeof(double) : evt_elem_size(info->elem));
    b->what = what;
    b->name = info->name;
    b->written = written;
    /* doubles are not the input's element type: never in place */
    b->mn = info->shape == EVT_SHAPE_MN && !buf->as_f64;
    b->elem = (int)info->elem;
    b->ld = ld;
}

/* The aliasing rule of launches (evt.h), the accumulator counting as an
 * operand: read, so never written over. */
static evt_status check_aliasing(evt_interp *in)
{
    const ir_func *fn = in->fn;
    alias_buf *bufs = calloc(fn->ninputs + fn->noutputs + 1, sizeof *bufs);
    if (!bufs)
        return fail(in, EVT_ERR_NO_MEMORY, "out of memory");
    alias_footprint(&bufs[0], in->acc ? (const void *)in->acc : (const void *)in->acc_f64, in->m,
                    in->n, in->ldacc, in->acc ? sizeof *in->acc : sizeof *in->acc_f64);
    bufs[0].what = "the accumulator";
    size_t nb = 1;
    for (size_t i = 0; i < fn->ninputs; i++)
        alias_arg(&bufs[nb++], "input", &fn->inputs[i].info, &in->inputs[i], in->m, in->n, 0);
    for (size_t i = 0; i < fn->noutputs; i++)
        alias_arg(&bufs[nb++], "output", &fn->outputs[i].info, &in->outputs[i], in->m, in->n, 1);
    char msg[300];
    evt_status st = EVT_OK;
    if (alias_check(bufs, nb, msg, sizeof msg))
        st = fail(in, EVT_ERR_INVALID_ARGUMENT, "%s", msg);
    free(bufs);
    return st;
}

evt_status evt_interp_run(evt_interp *in, evt_interp_mode mode)
{
    if (!in)
        return EVT_ERR_INVALID_ARGUMENT;
    begin(in);
    const ir_func *fn = in->fn;
    if (mode != EVT_INTERP_F32 && mode != EVT_INTERP_F64)
        return fail(in, EVT_ERR_INVALID_ARGUMENT, "unknown interpreter mode %d", (int)mode);
    if (!in->acc_set)
        return fail(in, EVT_ERR_UNBOUND,
                    "the accumulator was never set (evt_interp_set_acc or _set_acc_f64)");
    const long long acc_elems = matrix_extent(in->m, in->n, in->ldacc);
    if (acc_elems < 0)
        return fail(in, EVT_ERR_INVALID_ARGUMENT, "the accumulator's extent overflows");
    const size_t acc_esize = in->acc ? sizeof *in->acc : sizeof *in->acc_f64;
    size_t acc_need;
    if (!extent_bytes(acc_elems, acc_esize, &acc_need))
        return fail(in, EVT_ERR_BAD_BUFFER,
                    "the accumulator is too small: %zu bytes, M x N = %lld x %lld with ld %lld "
                    "needs %lld elements of %zu bytes",
                    in->acc_bytes, in->m, in->n, in->ldacc, acc_elems, acc_esize);
    if (acc_need > in->acc_bytes)
        return fail(in, EVT_ERR_BAD_BUFFER,
                    "the accumulator is too small: %zu bytes, M x N = %lld x %lld with ld %lld "
                    "needs %zu",
                    in->acc_bytes, in->m, in->n, in->ldacc, acc_need);
    for (size_t i = 0; i < fn->nparams; i++)
        if (!in->param_set[i])
            return fail(in, EVT_ERR_UNBOUND,
                        "param '%s' has no default and was not set (evt_interp_set_param)",
                        fn->params[i].info.name);
    interp_array *ins = calloc(fn->ninputs + 1, sizeof *ins);
    interp_array *outs = calloc(fn->noutputs + 1, sizeof *outs);
    evt_status st = ins && outs ? EVT_OK : EVT_ERR_NO_MEMORY;
    if (st != EVT_OK)
        fail(in, st, "out of memory");
    for (size_t i = 0; st == EVT_OK && i < fn->ninputs; i++)
        st = check_buffer(in, "input", &fn->inputs[i].info, &in->inputs[i], &ins[i]);
    for (size_t i = 0; st == EVT_OK && i < fn->noutputs; i++)
        st = check_buffer(in, "output", &fn->outputs[i].info, &in->outputs[i], &outs[i]);
    for (size_t i = 0; st == EVT_OK && i < fn->noutputs; i++)
        if (in->magnitudes[i].set) {
            interp_array mag;
            st = check_buffer(in, "the magnitude of output", &fn->outputs[i].info, &in->magnitudes[i], &mag);
            outs[i].magnitude = (double *)mag.data;
        }
    if (st == EVT_OK)
        st = check_aliasing(in);
    if (st == EVT_OK) {
        interp_args args = {
            .m = (size_t)in->m,
            .n = (size_t)in->n,
            .acc = in->acc,
            .acc_f64 = in->acc_f64,
            .ldacc = (size_t)in->ldacc,
            .inputs = ins,
            .params = in->params,
            .outputs = outs,
        };
        char msg[400];
        st = interp_run(fn, &args, mode, msg, sizeof msg);
        if (st != EVT_OK)
            fail(in, st, "%s", msg);
    }
    free(ins);
    free(outs);
    return st;
}

/* ---- element conversions ------------------------------------------------ */

static int elem_ok(evt_elem e)
{
    return (unsigned)e <= EVT_E5M2;
}

evt_status evt_convert_from_f32(evt_elem elem, const float *src, void *dst, size_t n)
{
    if (!elem_ok(elem) || (n && (!src || !dst)))
        return EVT_ERR_INVALID_ARGUMENT;
    size_t es = evt_elem_size(elem);
    for (size_t i = 0; i < n; i++)
        interp_store_f32(elem, src[i], (unsigned char *)dst + i * es);
    return EVT_OK;
}

evt_status evt_convert_to_f32(evt_elem elem, const void *src, float *dst, size_t n)
{
    if (!elem_ok(elem) || (n && (!src || !dst)))
        return EVT_ERR_INVALID_ARGUMENT;
    size_t es = evt_elem_size(elem);
    for (size_t i = 0; i < n; i++)
        dst[i] = interp_load_f32(elem, (const unsigned char *)src + i * es);
    return EVT_OK;
}

evt_status evt_convert_from_f64(evt_elem elem, const double *src, void *dst, size_t n)
{
    if (!elem_ok(elem) || (n && (!src || !dst)))
        return EVT_ERR_INVALID_ARGUMENT;
    size_t es = evt_elem_size(elem);
    for (size_t i = 0; i < n; i++)
        interp_store_f64(elem, src[i], (unsigned char *)dst + i * es);
    return EVT_OK;
}

evt_status evt_convert_to_f64(evt_elem elem, const void *src, double *dst, size_t n)
{
    if (!elem_ok(elem) || (n && (!src || !dst)))
        return EVT_ERR_INVALID_ARGUMENT;
    size_t es = evt_elem_size(elem);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = (const unsigned char *)src + i * es;
        if (elem == EVT_I32) { /* exact beyond 2^24, unlike the f32 load */
            int v;
            memcpy(&v, p, 4);
            dst[i] = v;
        } else {
            dst[i] = interp_load_f32(elem, p);
        }
    }
    return EVT_OK;
}
