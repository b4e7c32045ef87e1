/* strength.c - strength reduction: division by a power of two becomes a multiplication.
 *
 * Rule: x / c -> x * r, where c = ±2^k is a constant and both c and r = 1/c =
 * ±2^-k are normal f32 numbers (-126 <= k <= 126).
 *
 * Why it is exact, on every x:
 *  - r is exactly 1/c: a power of two in the normal range is representable,
 *    so computing r rounds nothing.
 *  - IEEE division and multiplication each return the exact real result
 *    rounded once (round-to-nearest-even).  x / c and x * r have the same
 *    exact real result x·2^-k (with the same sign, sign(x) xor sign(c)), so
 *    they round to the same f32, whatever it is: a normal number, a
 *    subnormal (x·2^-k may not be representable there, but both sides round
 *    that one real once, the same way), ±inf on overflow, or ±0 on
 *    underflow.
 *  - x = ±0 gives ±0 and x = ±inf gives ±inf with the same sign on both
 *    sides (0/c and 0*r are zeros, inf/c and inf*r infinities, c and r
 *    finite and nonzero).  x = NaN gives the GPU's canonical NaN on both.
 *  - c and r are kept normal so the rule also holds where subnormal operands
 *    are flushed to zero (FTZ): neither constant is subnormal, and a
 *    subnormal result would be flushed the same way on both sides.
 * The code generator must not contract the multiplication into an FMA with a
 * following addition; it contracts nothing (the interpreter's rule). */
#include "passes.h"

#include <math.h>

/* 1/c when c = ±2^k with c and 1/c normal, else 0. */
static float exact_reciprocal(float c)
{
    if (!isnormal(c))
        return 0;
    int e;
    float m = frexpf(c, &e); /* c = m * 2^e, 0.5 <= |m| < 1 */
    if (fabsf(m) != 0.5f)
        return 0;
    int k = e - 1;
    if (k < -126 || k > 126)
        return 0;
    return 1.0f / c;
}

static ir_value *reduce_division(ir_func *fn, ir_value *v, void *user)
{
    (void)user;
    if (v->op != IR_DIV || v->args[1]->op != IR_CONST)
        return v;
    float r = exact_reciprocal(v->args[1]->attr.f);
    if (r == 0)
        return v;
    ir_value *rc = ir_const(fn, r, v->args[1]->loc);
    if (!rc)
        return NULL;
    v->op = IR_MUL;
    v->args[1] = rc;
    return v;
}

void ir_pass_strength(ir_func *fn)
{
    ir_func_rewrite(fn, reduce_division, NULL);
}
