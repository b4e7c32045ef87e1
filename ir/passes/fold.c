/* fold.c - constant folding.
 *
 * Rules:
 *  - op(c1, ..., cn) -> c, for an op with IR_FOLD (+, -, *, / and neg) whose
 *    operands are all constants, where c is computed on the host exactly as
 *    the GPU computes it.  Exact because the host evaluates each in IEEE
 *    binary32 with round-to-nearest-even, one rounding per operation, no
 *    contraction (FLT_EVAL_METHOD == 0, checked below; one operation per
 *    statement), and with subnormals (the generated code is compiled
 *    without flush-to-zero): the same rounded real the GPU's __fadd_rn,
 *    __fsub_rn, __fmul_rn and __fdiv_rn return.  ±inf, -0.0 and subnormal
 *    operands and results fold like any other.  A NaN result folds to the
 *    canonical NaN: NaN bits are unspecified in the contract of
 *    kernels/evt_math.h and every store canonicalises them, so only
 *    NaN-ness matters, and the canonical one keeps the IR text stable.
 *  - (c1 CMP c2) ? a : b -> a or b, for constants c1, c2 and any comparison.
 *    The host's IEEE comparison gives the GPU's truth value (a NaN operand
 *    makes every comparison but != false on both; -0.0 == +0.0 on both),
 *    and ?: then returns one operand unchanged.
 *  - a * b + c is never folded into an FMA: each operation rounds on its own.
 */
#include "passes.h"

#include <float.h>
#include <math.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "constant folding needs float arithmetic evaluated in float (FLT_EVAL_METHOD == 0)"
#endif

/* The NaN NVIDIA GPUs produce, 0x7fffffff. */
static float canonical_nan(void)
{
    uint32_t bits = 0x7fffffffu;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static int all_constant(const ir_value *v)
{
    for (int i = 0; i < v->nargs; i++)
        if (v->args[i]->op != IR_CONST)
            return 0;
    return v->nargs > 0;
}

/* op(a, b) on the host. */
static float evaluate(ir_op op, float a, float b)
{
    switch (op) {
    case IR_NEG: return -a;
    case IR_ADD: return a + b;
    case IR_SUB: return a - b;
    case IR_MUL: return a * b;
    default: return a / b; /* IR_DIV */
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
    float r = evaluate(v->op, v->args[0]->attr.f, v->nargs > 1 ? v->args[1]->attr.f : 0);
    return ir_const(fn, isnan(r) ? canonical_nan() : r, v->loc);
}

void ir_pass_fold(ir_func *fn)
{
    ir_func_rewrite(fn, fold_value, NULL);
}
