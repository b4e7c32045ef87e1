/* cse.c - common-subexpression elimination.
 *
 * Rules:
 *  - op(a, b) -> op(b, a) for an op with IR_COMMUTE, putting its operands in
 *    canonical order: a constant second, otherwise the lower id first.
 *    Exact because IR_COMMUTE promises that swapping the operands changes no
 *    result bit: IEEE + and * are commutative on every input (a NaN result is
 *    the GPU's canonical NaN whichever operand was NaN), == and != are
 *    symmetric, and evt_math.h defines min and max commutatively down to the
 *    sign of a zero and the bits of a NaN.
 *  - Two values with the same op, operands and attribute are one value
 *    (re-hash-consing after the rewrites of earlier passes).  Exact because
 *    every op is a pure function of its operands: evaluating it twice gives
 *    the same bits.
 *
 * ir_func_rewrite does the merging: each kept value is looked up among the
 * values already rebuilt, so a value whose operands were merged merges too,
 * in one forward walk. */
#include "passes.h"

static int goes_first(const ir_value *a, const ir_value *b)
{
    if ((a->op == IR_CONST) != (b->op == IR_CONST))
        return b->op == IR_CONST;
    return a->id <= b->id;
}

static ir_value *canonical_order(ir_func *fn, ir_value *v, void *user)
{
    (void)fn;
    (void)user;
    if ((ir_op_get(v->op)->flags & IR_COMMUTE) && !goes_first(v->args[0], v->args[1])) {
        ir_value *t = v->args[0];
        v->args[0] = v->args[1];
        v->args[1] = t;
    }
    return v;
}

void ir_pass_cse(ir_func *fn)
{
    ir_func_rewrite(fn, canonical_order, NULL);
}
