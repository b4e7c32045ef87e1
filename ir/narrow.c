/* narrow.c - gelu at the precision of the stores it feeds.
 *
 * A gelu(x) whose every use ends in an output of 16 bits or fewer (f16,
 * bf16, e4m3, e5m2), through operations that keep a relative error as it
 * is (products, quotients, sign changes, maxima and minima, selects), is
 * computed by evt_gelu16: relative error 2^-20.45 rather than 2.5 f32 ulp,
 * 40 instructions rather than 50 (kernels/common/evt_math.h).  A sum or
 * difference could cancel the error up to the result's size, a comparison
 * could flip, and an f32, i8 or i32 output or a sum reduction keeps f32's
 * precision, so any of those among the uses keeps evt_gelu.
 *
 * A max or min reduction (an fp8 epilogue's amax) is one of its elements,
 * so its error is an element's, 2^-20.45: within torch.testing's f32
 * tolerance (1.3e-6 relative) and far below what an amax feeds (a scale
 * for the next fp8 cast, whose steps are 2^-3).  It takes gelu16 like a
 * 16-bit store; the GELU of fp8 epilogues, which store e4m3 and reduce its
 * amax, is then 10 instructions an element cheaper (docs/fp8.md).
 *
 * This is part of building the IR, not an optimization: it runs on the IR
 * sema builds, before any pass, so that every optimization level (and the
 * interpreter and the GPU at each) computes the same bits; the passes treat
 * gelu16 as an operation of its own. */
#include "ir.h"

#include <stdlib.h>

/* Whether a use of a value as operand j of u passes its relative error on
 * unchanged (to within one more rounding). */
static int keeps_relative(const ir_value *u, int j)
{
    switch (u->op) {
    case IR_NEG:
    case IR_MUL:
    case IR_DIV:
    case IR_ABS:
    case IR_RELU:
    case IR_MIN:
    case IR_MAX:
    case IR_CLAMP:
    case IR_REDUCE_MAX:
    case IR_REDUCE_MIN:
        return 1;
    case IR_LEAKY_RELU:
        return j == 0;
    case IR_SELECT:
        return j > 0; /* the condition is a comparison's, never a gelu's */
    default:
        return 0;
    }
}

static int narrow_store(evt_elem e)
{
    return e == EVT_F16 || e == EVT_BF16 || e == EVT_E4M3 || e == EVT_E5M2;
}

/* Whether an output's value may carry gelu16's relative error. */
static int narrow_output(const ir_arg *o)
{
    switch (o->info.reduce) {
    case EVT_REDUCE_NONE:
        return narrow_store(o->info.elem);
    case EVT_REDUCE_MAX:
    case EVT_REDUCE_MIN:
        return 1;
    default:
        return 0;
    }
}

void ir_func_narrow(ir_func *fn)
{
    if (fn->nvalues == 0)
        return;
    /* wide[v]: some use of v needs f32's precision (ids are indexes: ir.h) */
    unsigned char *wide = calloc(fn->nvalues, 1);
    if (!wide) {
        fn->arena->failed = 1;
        return;
    }
    for (size_t i = 0; i < fn->noutputs; i++) {
        const ir_arg *o = &fn->outputs[i];
        if (o->value && !narrow_output(o))
            wide[o->value->id] = 1;
    }
    /* users come after their operands: walking backwards, a value's own
     * wideness is final before its operands are marked */
    for (size_t i = fn->nvalues; i-- > 0;) {
        const ir_value *u = fn->values[i];
        for (int j = 0; j < u->nargs; j++)
            if (wide[u->id] || !keeps_relative(u, j))
                wide[u->args[j]->id] = 1;
    }
    int changed = 0;
    ir_func_count_uses(fn);
    for (size_t i = 0; i < fn->nvalues; i++) {
        ir_value *v = fn->values[i];
        if (v->op == IR_GELU && !wide[v->id] && v->uses > 0) {
            v->op = IR_GELU16;
            changed = 1;
        }
    }
    free(wide);
    if (changed)
        ir_func_rehash(fn);
}
