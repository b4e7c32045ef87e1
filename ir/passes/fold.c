/* fold.c - constant folding.
 *
 * Rules:
 *  - op(c1, ..., cn) -> c, for an op with IR_FOLD whose operands are all
 *    constants, where c is computed on the host exactly as the GPU computes
 *    it: +, -, *, / and neg.  Exact because the host evaluates each in IEEE
 *    binary32 with round-to-nearest-even, one rounding per operation, no
 *    contraction (FLT_EVAL_METHOD == 0, checked below; one operation per
 *    statement), and with subnormals (the generated code is compiled
 *    without flush-to-zero): the same rounded real the GPU's add.rn,
 *    sub.rn, mul.rn and div.rn (IEEE-compliant division) return.
 *    Never when an operand or the result is a NaN: the host's NaN bits
 *    (e.g. x86's default NaN 0xffc00000) need not be the GPU's canonical
 *    NaN, so a NaN is left for the GPU to compute.  ±inf, -0.0 and
 *    subnormal operands and results fold: IEEE fixes their bits.
 *  - (c1 CMP c2) ? a : b -> a or b, for constants c1, c2 and any comparison.
 *    Exact because the host's IEEE comparison gives the same truth value
 *    as the GPU's (a NaN operand makes every comparison but != false on
 *    both; -0.0 == +0.0 on both), and ?: then returns one operand unchanged.
 *  - a * b + c is never folded into an FMA: each operation rounds on its own.
 */
#include "passes.h"

#include <float.h>
#include <math.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "constant folding needs float arithmetic evaluated in float (FLT_EVAL_METHOD == 0)"
#endif

static int all_constant(const ir_value *v)
{
    for (int i = 0; i < v->nargs; i++)
        if (v->args[i]->op != IR_CONST)
            return 0;
    return v->nargs > 0;
}

/* op(a, b) on the host; returns 0 when the op has no exact host evaluation. */
static int evaluate(ir_op op, float a, float b, float *out)
{
    switch (op) {
    case IR_NEG: *out = -a; return 1;
    case IR_ADD: *out = a + b; return 1;
    case IR_SUB: *out = a - b; return 1;
    case IR_MUL: *out = a * b; return 1;
    case IR_DIV: *out = a / b; return 1;
    default: return 0;
    }
}

static int compare(ir_op op, float a, float b)
{
    switch (op) {
    case IR_LT: return a < b;
    case IR_LE: return a <= b;
    case IR_GT: return a > b;
    case IR_GE: return a >= b;
    case IR_EQ: return a == b;
    default: return a != b; /* IR_NE */
    }
}

static ir_value *fold_value(ir_func *fn, ir_value *v, void *user)
{
    (void)user;
    if (v->op == IR_SELECT) {
        const ir_value *c = v->args[0];
        if (!all_constant(c))
            return v;
        return compare(c->op, c->args[0]->attr.f, c->args[1]->attr.f) ? v->args[1] : v->args[2];
    }
    if (!(ir_op_get(v->op)->flags & IR_FOLD) || !all_constant(v))
        return v;
    float a = v->args[0]->attr.f, b = v->nargs > 1 ? v->args[1]->attr.f : 0, r;
    if (isnan(a) || isnan(b) || !evaluate(v->op, a, b, &r) || isnan(r))
        return v;
    return ir_const(fn, r, v->loc);
}

void ir_pass_fold(ir_func *fn)
{
    ir_func_rewrite(fn, fold_value, NULL);
}
