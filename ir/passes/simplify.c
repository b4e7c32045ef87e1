/* simplify.c - algebraic simplification, exact in f32 on every input.
 *
 * Rules:
 *  - c ? x : x -> x.  Exact because ?: returns one of its operands
 *    unchanged, and here both are the same value. */
#include "passes.h"

static ir_value *simplify_value(ir_func *fn, ir_value *v, void *user)
{
    (void)fn;
    (void)user;
    if (v->op == IR_SELECT && v->args[1] == v->args[2])
        return v->args[1];
    return v;
}

void ir_pass_simplify(ir_func *fn)
{
    ir_func_rewrite(fn, simplify_value, NULL);
}
