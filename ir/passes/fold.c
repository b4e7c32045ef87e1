/* fold.c - constant folding.
 *
 * Rules:
 *  - op(c1, ..., cn) -> c, for an op with IR_FOLD (+, -, *, /, neg and every
 *    element-wise builtin) whose operands are all constants, where c is
 *    computed on the host by kernels/common/evt_math.h, the same code the GPU runs.
 *    Exact because evt_math.h is built to give bit-identical results on the
 *    host and the GPU for every non-NaN result (correctly rounded IEEE
 *    operations and bit manipulation only, no contraction, no libm
 *    transcendental), and a NaN on both wherever one gives a NaN.  ±inf,
 *    -0.0 and subnormal operands and results fold like any other.  A NaN
 *    result folds to the canonical NaN: NaN bits are unspecified in
 *    evt_math.h's contract and every store canonicalises them, so only
 *    NaN-ness matters, and the canonical one keeps the IR text stable.
 *    (Host arithmetic is binary32 because evt_math.h refuses to compile
 *    otherwise: FLT_EVAL_METHOD == 0, no -ffast-math.)
 *  - (c1 CMP c2) ? a : b -> a or b, for constants c1, c2 and any comparison.
 *    The host's IEEE comparison gives the GPU's truth value (a NaN operand
 *    makes every comparison but != false on both; -0.0 == +0.0 on both),
 *    and ?: then returns one operand unchanged.
 *  - a * b + c is never folded into an FMA: each operation rounds on its own.
 */
#include "../../kernels/common/evt_math.h"
#include "passes.h"

static int all_constant(const ir_value *v)
{
    for (int i = 0; i < v->nargs; i++)
        if (v->args[i]->op != IR_CONST)
            return 0;
    return v->nargs > 0;
}

/* op(a, b, c) as evt_math.h computes it. */
static float evaluate(ir_op op, float a, float b, float c)
{
    switch (op) {
    case IR_NEG: return evt_neg(a);
    case IR_ADD: return evt_add(a, b);
    case IR_SUB: return evt_sub(a, b);
    case IR_MUL: return evt_mul(a, b);
    case IR_DIV: return evt_div(a, b);
    case IR_RELU: return evt_relu(a);
    case IR_LEAKY_RELU: return evt_leaky_relu(a, b);
    case IR_GELU: return evt_gelu(a);
    case IR_GELU16: return evt_gelu16(a);
    case IR_GELU_TANH: return evt_gelu_tanh(a);
    case IR_SILU: return evt_silu(a);
    case IR_SIGMOID: return evt_sigmoid(a);
    case IR_TANH: return evt_tanh(a);
    case IR_EXP: return evt_exp(a);
    case IR_LOG: return evt_log(a);
    case IR_SQRT: return evt_sqrt(a);
    case IR_RSQRT: return evt_rsqrt(a);
    case IR_ABS: return evt_abs(a);
    case IR_HARDSWISH: return evt_hardswish(a);
    case IR_MIN: return evt_min(a, b);
    case IR_MAX: return evt_max(a, b);
    case IR_CLAMP: return evt_clamp(a, b, c);
    default: return evt_nan(); /* no IR_FOLD op gets here */
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
    float arg[3] = {0, 0, 0};
    for (int i = 0; i < v->nargs; i++)
        arg[i] = v->args[i]->attr.f;
    float r = evaluate(v->op, arg[0], arg[1], arg[2]);
    return ir_const(fn, evt_isnan(r) ? evt_nan() : r, v->loc);
}

void ir_pass_fold(ir_func *fn)
{
    ir_func_rewrite(fn, fold_value, NULL);
}
