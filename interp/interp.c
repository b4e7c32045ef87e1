/* interp.c - evaluating an epilogue on the CPU, in f32 (bit for bit the GPU's) or f64. */
#include "interp.h"

#include "../kernels/common/evt_math.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- element conversions --------------------------------------------- */

void interp_store_f32(evt_elem e, float v, void *p)
{
    switch (e) {
    case EVT_F32: {
        float s = evt_store_f32(v);
        memcpy(p, &s, 4);
        return;
    }
    case EVT_F16: {
        unsigned short s = evt_store_f16(v);
        memcpy(p, &s, 2);
        return;
    }
    case EVT_BF16: {
        unsigned short s = evt_store_bf16(v);
        memcpy(p, &s, 2);
        return;
    }
    case EVT_I8: *(signed char *)p = evt_store_i8(v); return;
    case EVT_I32: {
        int s = evt_store_i32(v);
        memcpy(p, &s, 4);
        return;
    }
    case EVT_E4M3: *(unsigned char *)p = evt_store_e4m3(v); return;
    case EVT_E5M2: *(unsigned char *)p = evt_store_e5m2(v); return;
    }
}

float interp_load_f32(evt_elem e, const void *p)
{
    switch (e) {
    case EVT_F32: {
        float v;
        memcpy(&v, p, 4);
        return evt_load_f32(v);
    }
    case EVT_F16: {
        unsigned short h;
        memcpy(&h, p, 2);
        return evt_load_f16(h);
    }
    case EVT_BF16: {
        unsigned short h;
        memcpy(&h, p, 2);
        return evt_load_bf16(h);
    }
    case EVT_I8: return evt_load_i8(*(const signed char *)p);
    case EVT_I32: {
        int v;
        memcpy(&v, p, 4);
        return evt_load_i32(v);
    }
    case EVT_E4M3: return evt_load_e4m3(*(const unsigned char *)p);
    case EVT_E5M2: return evt_load_e5m2(*(const unsigned char *)p);
    }
    return 0.0f;
}

/*
 * v rounded once, to nearest even, onto a float format with `digits`
 * significant bits, smallest normal exponent emin and largest finite value
 * max: beyond max it saturates, or becomes inf when `has_inf`.  The result
 * is exactly representable in f32.
 */
static float round_format(double v, int digits, int emin, double max, int has_inf)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits &= 0x7fffffffffffffffull;
    double a, r;
    memcpy(&a, &bits, sizeof a);
    /* a in [2^e, 2^(e+1)) where a is a normal double; zeros, subnormal
     * doubles and the format's own subnormals take its smallest quantum */
    int e = (int)(bits >> 52) - 1023;
    e = e < emin ? emin : e;
    if (e > 1023 - 53) { /* inf, and values far past every format's max */
        r = a;
    } else {
        /* the quantum 2^(e - digits + 1) is the ulp of c = 2^52 quantum and
         * of a + c (a < c): the sum rounds a to a multiple of it, to nearest
         * even, and the difference is exact.  Bit for bit what
         * nearbyint(a / quantum) * quantum gave, on 8e8 random doubles and
         * the formats' edges; several times faster, and a --check rounds
         * every output element's reference so. */
        const uint64_t cb = (uint64_t)(e - (digits - 1) + 52 + 1023) << 52;
        double c;
        memcpy(&c, &cb, sizeof c);
        r = (a + c) - c;
    }
    if (r > max)
        r = has_inf ? (double)evt_inf() : max;
    return (float)copysign(r, v);
}

void interp_store_f64(evt_elem e, double v, void *p)
{
    if (isnan(v)) {
        interp_store_f32(e, evt_nan(), p);
        return;
    }
    switch (e) {
    case EVT_F32: interp_store_f32(e, (float)v, p); return;
    case EVT_F16: interp_store_f32(e, round_format(v, 11, -14, 65504.0, 1), p); return;
    case EVT_BF16:
        interp_store_f32(e, round_format(v, 8, -126, 0x1.fep127, 1), p);
        return;
    case EVT_E4M3: interp_store_f32(e, round_format(v, 4, -6, 448.0, 0), p); return;
    case EVT_E5M2: interp_store_f32(e, round_format(v, 3, -14, 57344.0, 0), p); return;
    case EVT_I8: {
        double r = nearbyint(v);
        *(signed char *)p = (signed char)(r < -128.0 ? -128 : r > 127.0 ? 127 : (int)r);
        return;
    }
    case EVT_I32: {
        double r = nearbyint(v);
        int s = r < -2147483648.0 ? INT32_MIN : r > 2147483647.0 ? INT32_MAX : (int)r;
        memcpy(p, &s, 4);
        return;
    }
    }
}

/* ---- the f64 builtins: libm, with the special values of evt_math.h ---- */

static double max64(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (a == b)
        return signbit(a) && signbit(b) ? a : fabs(a);
    return a > b ? a : b;
}

static double min64(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (a == b)
        return signbit(a) || signbit(b) ? -fabs(a) : a;
    return a < b ? a : b;
}

static double relu64(double x)
{
    return isnan(x) ? x : x > 0 ? x : 0.0;
}

/* x * sigmoid(w) without overflow or inf * 0. */
static double mul_sigmoid64(double x, double w)
{
    if (w >= 0)
        return x / (1 + exp(-w));
    if (isinf(w))
        return x < 0 ? -0.0 : 0.0;
    double e = exp(w);
    return x * e / (1 + e);
}

static double gelu64(double x)
{
    if (isinf(x))
        return x > 0 ? x : -0.0;
    return 0.5 * x * erfc(-x * 0.70710678118654752440);
}

static double gelu_tanh64(double x)
{
    if (isinf(x))
        return x > 0 ? x : -0.0;
    double w = 1.5957691216057307117 * x * (1 + 0.044715 * x * x);
    return mul_sigmoid64(x, w);
}

static double hardswish64(double x)
{
    if (isnan(x))
        return x;
    if (x <= -3)
        return -0.0;
    return x >= 3 ? x : x * (x + 3) / 6;
}

/* ---- evaluation -------------------------------------------------------- */

typedef struct reduction {
    const ir_value *value; /* the IR_REDUCE_* value */
    double *acc;           /* its running results: [M], [N] or one */
    double *mag;           /* a sum's running sums of |terms|, in f64 (interp_array.magnitude) */
} reduction;

typedef struct interp {
    const ir_func *fn;
    const interp_args *args;
    int f64;
    size_t nvalues;
    int *needed;         /* value i reaches an output */
    size_t *last_use;    /* the index of value i's last user; nvalues for outputs */
    int *slot;           /* value i's buffer during a chunk */
    double **buffers;    /* every buffer, INTERP_CHUNK doubles each */
    int *free_list;
    size_t nbuffers, nfree;
    reduction *reds;
    size_t nreds;
    int *red_of;         /* value i -> index in reds, or -1 */
    const ir_value **ptr_keys; /* pointer -> index map, open addressing */
    size_t *ptr_vals;
    size_t ptr_cap;
    char *err;
    size_t errlen;
} interp;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static evt_status fail(interp *in, evt_status st, const char *fmt, ...)
{
    if (in->err && in->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(in->err, in->errlen, fmt, ap);
        va_end(ap);
    }
    return st;
}

static size_t ptr_hash(const ir_value *v, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)v * 0x9e3779b97f4a7c15u;
    return (size_t)(h >> 17) & (cap - 1);
}

static size_t index_of(const interp *in, const ir_value *v)
{
    for (size_t j = ptr_hash(v, in->ptr_cap);; j = (j + 1) & (in->ptr_cap - 1))
        if (in->ptr_keys[j] == v)
            return in->ptr_vals[j];
}

static int take_buffer(interp *in)
{
    if (in->nfree)
        return in->free_list[--in->nfree];
    double *b = malloc(INTERP_CHUNK * sizeof *b);
    double **bs = realloc(in->buffers, (in->nbuffers + 1) * sizeof *bs);
    int *fl = bs ? realloc(in->free_list, (in->nbuffers + 1) * sizeof *fl) : NULL;
    if (bs)
        in->buffers = bs;
    if (fl)
        in->free_list = fl;
    if (!b || !bs || !fl) {
        free(b);
        return -1;
    }
    in->buffers[in->nbuffers] = b;
    return (int)in->nbuffers++;
}

static void give_buffer(interp *in, int b)
{
    in->free_list[in->nfree++] = b;
}

/* The pointer to element (i, j) of an input of shape `shape`. */
static const unsigned char *element(const interp_array *a, evt_elem e, evt_shape shape,
                                    size_t i, size_t j)
{
    size_t es = evt_elem_size(e);
    const unsigned char *p = a->data;
    switch (shape) {
    case EVT_SHAPE_SCALAR: return p;
    case EVT_SHAPE_M: return p + i * es;
    case EVT_SHAPE_N: return p + j * es;
    case EVT_SHAPE_MN: return p + (i * a->ld + j) * es;
    }
    return p;
}

static void load_leaf(interp *in, const ir_value *v, double *r, size_t i, size_t j0, size_t len)
{
    const interp_args *a = in->args;
    switch (v->op) {
    case IR_CONST:
        for (size_t j = 0; j < len; j++)
            r[j] = v->attr.f;
        return;
    case IR_PARAM:
        for (size_t j = 0; j < len; j++)
            r[j] = a->params[v->attr.index];
        return;
    case IR_ACC:
        for (size_t j = 0; j < len; j++) {
            size_t at = i * a->ldacc + j0 + j;
            if (a->acc)
                r[j] = a->acc[at];
            else
                r[j] = in->f64 ? a->acc_f64[at] : (double)(float)a->acc_f64[at];
        }
        return;
    default: { /* IR_INPUT */
        const ir_arg *arg = &in->fn->inputs[v->attr.index];
        const interp_array *arr = &a->inputs[v->attr.index];
        for (size_t j = 0; j < len; j++)
            r[j] = interp_load_f32(arg->info.elem,
                                   element(arr, arg->info.elem, arg->info.shape, i, j0 + j));
        return;
    }
    }
}

#define MAP1(F32, F64)                                                  \
    do {                                                                \
        if (in->f64)                                                    \
            for (size_t j = 0; j < len; j++) {                          \
                double x = a[j];                                        \
                r[j] = (F64);                                           \
            }                                                           \
        else                                                            \
            for (size_t j = 0; j < len; j++) {                          \
                float x = (float)a[j];                                  \
                r[j] = (F32);                                           \
            }                                                           \
    } while (0)

#define MAP2(F32, F64)                                                  \
    do {                                                                \
        if (in->f64)                                                    \
            for (size_t j = 0; j < len; j++) {                          \
                double x = a[j], y = b[j];                              \
                r[j] = (F64);                                           \
            }                                                           \
        else                                                            \
            for (size_t j = 0; j < len; j++) {                          \
                float x = (float)a[j], y = (float)b[j];                 \
                r[j] = (F32);                                           \
            }                                                           \
    } while (0)

/* Comparisons of floats held exactly in doubles are the same in both modes. */
#define CMP(EXPR)                                                       \
    do {                                                                \
        for (size_t j = 0; j < len; j++) {                              \
            double x = a[j], y = b[j];                                  \
            r[j] = (EXPR) ? 1.0 : 0.0;                                  \
        }                                                               \
    } while (0)

/* Computes value v (not a leaf, not a reduction) into r from its operands' buffers. */
static int compute(interp *in, const ir_value *v, double *r, const double *a, const double *b,
                   const double *c, size_t len)
{
    switch (v->op) {
    case IR_NEG: MAP1(evt_neg(x), -x); break;
    case IR_ADD: MAP2(evt_add(x, y), x + y); break;
    case IR_SUB: MAP2(evt_sub(x, y), x - y); break;
    case IR_MUL: MAP2(evt_mul(x, y), x * y); break;
    case IR_DIV: MAP2(evt_div(x, y), x / y); break;
    case IR_LT: CMP(x < y); break;
    case IR_LE: CMP(x <= y); break;
    case IR_GT: CMP(x > y); break;
    case IR_GE: CMP(x >= y); break;
    case IR_EQ: CMP(x == y); break;
    case IR_NE: CMP(x != y); break;
    case IR_SELECT:
        for (size_t j = 0; j < len; j++)
            r[j] = a[j] != 0.0 ? b[j] : c[j];
        break;
    case IR_RELU: MAP1(evt_relu(x), relu64(x)); break;
    case IR_LEAKY_RELU: MAP2(evt_leaky_relu(x, y), x >= 0 ? x : y * x); break;
    case IR_GELU: MAP1(evt_gelu(x), gelu64(x)); break;
    case IR_GELU16: MAP1(evt_gelu16(x), gelu64(x)); break;
    case IR_GELU_TANH: MAP1(evt_gelu_tanh(x), gelu_tanh64(x)); break;
    case IR_SILU: MAP1(evt_silu(x), isnan(x) ? x : mul_sigmoid64(x, x)); break;
    case IR_SIGMOID: MAP1(evt_sigmoid(x), isnan(x) ? x : mul_sigmoid64(1.0, x)); break;
    case IR_TANH: MAP1(evt_tanh(x), tanh(x)); break;
    case IR_EXP: MAP1(evt_exp(x), exp(x)); break;
    case IR_LOG: MAP1(evt_log(x), log(x)); break;
    case IR_SQRT: MAP1(evt_sqrt(x), sqrt(x)); break;
    case IR_RSQRT: MAP1(evt_rsqrt(x), 1.0 / sqrt(x)); break;
    case IR_ABS: MAP1(evt_abs(x), fabs(x)); break;
    case IR_HARDSWISH: MAP1(evt_hardswish(x), hardswish64(x)); break;
    case IR_MIN: MAP2(evt_min(x, y), min64(x, y)); break;
    case IR_MAX: MAP2(evt_max(x, y), max64(x, y)); break;
    case IR_CLAMP:
        if (in->f64)
            for (size_t j = 0; j < len; j++)
                r[j] = min64(max64(a[j], b[j]), c[j]);
        else
            for (size_t j = 0; j < len; j++)
                r[j] = evt_clamp((float)a[j], (float)b[j], (float)c[j]);
        break;
    default:
        return 0;
    }
    return 1;
}

static double reduce_step(const interp *in, ir_op op, double acc, double x)
{
    switch (op) {
    case IR_REDUCE_SUM: return in->f64 ? acc + x : evt_add((float)acc, (float)x);
    case IR_REDUCE_MAX: return in->f64 ? max64(acc, x) : evt_max((float)acc, (float)x);
    default: return in->f64 ? min64(acc, x) : evt_min((float)acc, (float)x);
    }
}

/* Folds one chunk of the reduced value x (row i, columns j0..) into
 * reduction rd: result i (over N), j0 + j (over M) or 0 (over both). */
static void reduce_chunk(const interp *in, reduction *rd, const double *x, size_t i, size_t j0,
                         size_t len)
{
    const ir_op op = rd->value->op;
    const evt_shape sh = ir_reduce_shape(rd->value->attr.axis);
    for (size_t j = 0; j < len; j++) {
        const size_t at = sh == EVT_SHAPE_M ? i : sh == EVT_SHAPE_N ? j0 + j : 0;
        rd->acc[at] = reduce_step(in, op, rd->acc[at], x[j]);
        if (rd->mag)
            rd->mag[at] += fabs(x[j]);
    }
}

static void store_value(const interp *in, const ir_arg *out, const interp_array *arr,
                        double v, size_t at)
{
    if (arr->as_f64)
        ((double *)arr->data)[at] = v;
    else if (in->f64)
        interp_store_f64(out->info.elem, v, (unsigned char *)arr->data +
                                                at * evt_elem_size(out->info.elem));
    else
        interp_store_f32(out->info.elem, (float)v, (unsigned char *)arr->data +
                                                       at * evt_elem_size(out->info.elem));
}

/* Evaluates every needed value over row i, columns j0 .. j0+len, and stores the chunk. */
static evt_status run_chunk(interp *in, size_t i, size_t j0, size_t len)
{
    const ir_func *fn = in->fn;
    in->nfree = 0;
    for (size_t b = in->nbuffers; b-- > 0;)
        give_buffer(in, (int)b);
    for (size_t k = 0; k < in->nvalues; k++) {
        if (!in->needed[k])
            continue;
        const ir_value *v = fn->values[k];
        const ir_op_info *info = ir_op_get(v->op);
        size_t ops[3] = {0, 0, 0};
        for (int o = 0; o < v->nargs; o++)
            ops[o] = index_of(in, v->args[o]);
        if (info->flags & IR_REDUCE) {
            reduce_chunk(in, &in->reds[in->red_of[k]], in->buffers[in->slot[ops[0]]], i, j0,
                         len);
        } else {
            int s = take_buffer(in);
            if (s < 0)
                return fail(in, EVT_ERR_NO_MEMORY, "out of memory for the interpreter's buffers");
            in->slot[k] = s;
            double *r = in->buffers[s];
            if (info->flags & IR_LEAF) {
                load_leaf(in, v, r, i, j0, len);
            } else {
                const double *a = in->buffers[in->slot[ops[0]]];
                const double *b = v->nargs > 1 ? in->buffers[in->slot[ops[1]]] : NULL;
                const double *c = v->nargs > 2 ? in->buffers[in->slot[ops[2]]] : NULL;
                if (!compute(in, v, r, a, b, c, len))
                    return fail(in, EVT_ERR_UNSUPPORTED,
                                "the interpreter cannot evaluate '%s' (value %zu of '%s')",
                                info->name, k, fn->name);
            }
        }
        for (int o = 0; o < v->nargs; o++) {
            int dup = 0;
            for (int p = 0; p < o; p++)
                dup |= ops[p] == ops[o];
            if (!dup && in->last_use[ops[o]] == k)
                give_buffer(in, in->slot[ops[o]]);
        }
    }
    /* Stored only once every value of the chunk is computed, and a chunk
     * reads only its own elements of [M, N] inputs: so an [M, N] output
     * written in place over an input (evt.h) never changes an element a
     * load still has to read. */
    for (size_t o = 0; o < fn->noutputs; o++) {
        const ir_arg *out = &fn->outputs[o];
        if (out->info.reduce != EVT_REDUCE_NONE)
            continue;
        const double *x = in->buffers[in->slot[index_of(in, out->value)]];
        const interp_array *arr = &in->args->outputs[o];
        for (size_t j = 0; j < len; j++)
            store_value(in, out, arr, x[j], i * arr->ld + j0 + j);
    }
    return EVT_OK;
}

/* Sizes the maps and marks what the outputs need, walking the values backwards. */
static evt_status prepare(interp *in)
{
    const ir_func *fn = in->fn;
    size_t n = fn->nvalues;
    in->nvalues = n;
    in->ptr_cap = 16;
    while (in->ptr_cap < 2 * n + 2)
        in->ptr_cap *= 2;
    in->needed = calloc(n + 1, sizeof *in->needed);
    in->last_use = calloc(n + 1, sizeof *in->last_use);
    in->slot = calloc(n + 1, sizeof *in->slot);
    in->red_of = calloc(n + 1, sizeof *in->red_of);
    in->reds = calloc(fn->noutputs + 1, sizeof *in->reds);
    in->ptr_keys = calloc(in->ptr_cap, sizeof *in->ptr_keys);
    in->ptr_vals = calloc(in->ptr_cap, sizeof *in->ptr_vals);
    if (!in->needed || !in->last_use || !in->slot || !in->red_of || !in->reds ||
        !in->ptr_keys || !in->ptr_vals)
        return fail(in, EVT_ERR_NO_MEMORY, "out of memory for the interpreter");
    for (size_t k = 0; k < n; k++) {
        size_t j = ptr_hash(fn->values[k], in->ptr_cap);
        while (in->ptr_keys[j])
            j = (j + 1) & (in->ptr_cap - 1);
        in->ptr_keys[j] = fn->values[k];
        in->ptr_vals[j] = k;
        in->red_of[k] = -1;
    }
    for (size_t o = 0; o < fn->noutputs; o++) {
        if (!fn->outputs[o].value)
            return fail(in, EVT_ERR_INVALID_ARGUMENT, "output '%s' has no value",
                        fn->outputs[o].info.name);
        size_t k = index_of(in, fn->outputs[o].value);
        in->needed[k] = 1;
        in->last_use[k] = n;
    }
    for (size_t k = n; k-- > 0;) {
        const ir_value *v = fn->values[k];
        if (!in->needed[k])
            continue;
        for (int o = 0; o < v->nargs; o++) {
            size_t a = index_of(in, v->args[o]);
            if (a >= k)
                return fail(in, EVT_ERR_INTERNAL, "value %zu of '%s' uses a later value", k,
                            fn->name);
            in->needed[a] = 1;
            if (in->last_use[a] < k)
                in->last_use[a] = k;
        }
    }
    const interp_args *args = in->args;
    for (size_t k = 0; k < n; k++) {
        const ir_value *v = fn->values[k];
        if (!in->needed[k] || !(ir_op_get(v->op)->flags & IR_REDUCE))
            continue;
        evt_shape sh = ir_reduce_shape(v->attr.axis);
        size_t len = sh == EVT_SHAPE_M ? args->m : sh == EVT_SHAPE_N ? args->n : 1;
        reduction *rd = &in->reds[in->nreds];
        rd->value = v;
        rd->acc = malloc((len + 1) * sizeof *rd->acc);
        /* a sum's magnitudes only where an output of it asks for them */
        int mag = 0;
        for (size_t o = 0; o < fn->noutputs; o++)
            mag |= args->outputs[o].magnitude && fn->outputs[o].value == v;
        rd->mag = mag ? calloc(len + 1, sizeof *rd->mag) : NULL;
        in->red_of[k] = (int)in->nreds++; /* (so that release frees what was allocated) */
        if (!rd->acc || (mag && !rd->mag))
            return fail(in, EVT_ERR_NO_MEMORY, "out of memory for a reduction");
        double id = v->op == IR_REDUCE_SUM ? 0.0 : v->op == IR_REDUCE_MAX ? -INFINITY : INFINITY;
        for (size_t j = 0; j < len; j++)
            rd->acc[j] = id;
    }
    return EVT_OK;
}

static void release(interp *in)
{
    for (size_t b = 0; b < in->nbuffers; b++)
        free(in->buffers[b]);
    for (size_t r = 0; r < in->nreds; r++) {
        free(in->reds[r].acc);
        free(in->reds[r].mag);
    }
    free(in->buffers);
    free(in->free_list);
    free(in->needed);
    free(in->last_use);
    free(in->slot);
    free(in->red_of);
    free(in->reds);
    free(in->ptr_keys);
    free(in->ptr_vals);
}

evt_status interp_run(const ir_func *fn, const interp_args *args, evt_interp_mode mode,
                      char *err, size_t errlen)
{
    interp in = {.fn = fn, .args = args, .f64 = mode == EVT_INTERP_F64, .err = err,
                 .errlen = errlen};
    if (err && errlen)
        err[0] = '\0';
    evt_status st = prepare(&in);
    for (size_t i = 0; st == EVT_OK && i < args->m; i++)
        for (size_t j0 = 0; st == EVT_OK && j0 < args->n; j0 += INTERP_CHUNK) {
            size_t len = args->n - j0 < INTERP_CHUNK ? args->n - j0 : INTERP_CHUNK;
            st = run_chunk(&in, i, j0, len);
        }
    for (size_t o = 0; st == EVT_OK && o < fn->noutputs; o++) {
        const ir_arg *out = &fn->outputs[o];
        if (out->info.reduce == EVT_REDUCE_NONE)
            continue;
        const reduction *rd = &in.reds[in.red_of[index_of(&in, out->value)]];
        size_t len = out->info.shape == EVT_SHAPE_M   ? args->m
                     : out->info.shape == EVT_SHAPE_N ? args->n
                                                      : 1;
        for (size_t j = 0; j < len; j++)
            store_value(&in, out, &args->outputs[o], rd->acc[j], j);
        if (args->outputs[o].magnitude && rd->mag)
            memcpy(args->outputs[o].magnitude, rd->mag, len * sizeof *rd->mag);
    }
    release(&in);
    return st;
}
