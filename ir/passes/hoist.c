/* hoist.c - marks the values a thread block computes once instead of per element.
 *
 * Rule: a value whose shape is scalar ([]) and which is not a reduction
 * depends only on params, constants and scalar inputs, so every element of
 * the output sees the same bits: it gets `hoisted` (", once per block" in IR
 * text) and the code generator computes it once per thread block.  Exact
 * because the op is a pure function of operands that are the same for every
 * element.  Constants and params are not marked: they are immediates and
 * kernel arguments, with nothing to compute.  A reduction to a scalar is
 * scalar-shaped but depends on every element, so it is never marked.
 *
 * The flag is recomputed from scratch, so the pass can run after any other. */
#include "passes.h"

void ir_pass_hoist(ir_func *fn)
{
    for (size_t i = 0; i < fn->nvalues; i++) {
        ir_value *v = fn->values[i];
        v->hoisted = v->shape == EVT_SHAPE_SCALAR && v->op != IR_CONST && v->op != IR_PARAM &&
                     !(ir_op_get(v->op)->flags & IR_REDUCE);
    }
}
