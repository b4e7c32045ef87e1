/* simplify.c - algebraic simplification, exact in f32 on every input.
 *
 * The GPU facts the rules rest on: +, -, * and / round once, to nearest
 * even, keep subnormals, and return the canonical NaN (0x7fffffff) whenever
 * their result is NaN, whatever NaN bits their operands held (IR_NANCANON);
 * ?: moves its chosen operand's bits unchanged.  A value is "NaN-canonical"
 * when any NaN it holds is the canonical one: the result of an IR_NANCANON
 * op, or a constant that is not a non-canonical NaN.  Loads (acc, inputs,
 * params) are not: an f32 input may hold any NaN bits.
 *
 * Rules, and why each is exact on every input (NaN, ±inf, ±0, subnormals):
 *  - c ? x : x -> x.  ?: returns x's bits either way.
 *  - c ? (c ? a : b) : d -> c ? a : d, and c ? a : (c ? b : d) -> c ? a : d.
 *    The inner ?: sees the same condition as the outer one.
 *  - a > b -> b < a, a >= b -> b <= a.  The same IEEE predicate with its
 *    operands named in the other order: false on a NaN either way.  (Only
 *    so that CSE finds a > b and b < a to be one value.)
 *  - x * 1, 1 * x, x / 1 -> x, when x is NaN-canonical.  For every
 *    non-NaN x, x·1 is exactly x (zeros keep their sign, infinities stay,
 *    subnormals are not flushed); a NaN x gives the canonical NaN, which is
 *    x's bits only when x was canonical.
 *  - x + (-0), (-0) + x -> x, when x is NaN-canonical.  x + (-0) is
 *    exactly x for every non-NaN x: for x = +0, +0 + -0 = +0 under
 *    round-to-nearest; for x = -0, -0 + -0 = -0.  (x + (+0) is NOT x:
 *    -0 + +0 = +0.  It is never rewritten.)
 *  - x - c -> x + (-c) for a constant c.  IEEE defines x - y as x + (-y)
 *    exactly, signed zeros included (+0 - +0 = +0 + -0 = +0); so x - 0
 *    becomes x + (-0) and then x, while x - (-0) becomes x + 0 and stays.
 *  - x - (-y) -> x + y, x + (-y) and (-y) + x -> x - y.  Again IEEE's
 *    definition of subtraction; both sides are one rounding of the same
 *    real, and a NaN gives the canonical NaN on both.
 *  - (-x) * (-y) -> x * y, (-x) / (-y) -> x / y.  The signs cancel exactly
 *    (sign rule of IEEE * and /, zeros and infinities included); magnitudes
 *    and rounding are unchanged; a NaN is canonical on both sides.
 *  - (-x) * c -> x * (-c), (-x) / c -> x / (-c), c / (-x) -> (-c) / x, for a
 *    constant c.  The same sign rule, moving the negation into the constant.
 *  - -(-x) -> x, when x is NaN-canonical.  Negation flips the sign bit of
 *    every non-NaN x, twice is the identity; of a NaN it gives the canonical
 *    NaN or flips the sign bit, and either way twice gives back a canonical x.
 *  - f(f(x)) -> f(x) for an f with IR_IDEMPOTENT (relu, abs).  relu(y) = y
 *    and abs(y) = y for every y that relu or abs can return, NaN included.
 *
 * Deliberately not done, because they are wrong in f32:
 *  - x * 0 -> 0 (x = NaN or ±inf gives NaN; x = -1 gives -0);
 *  - x - x -> 0 (NaN, ±inf);  x + 0 -> x (x = -0 gives +0);
 *  - x / c -> x * (1/c) unless c is a power of two (strength.c does that one);
 *  - reassociation such as (x + a) + b -> x + (a + b), and a*b + c -> fma:
 *    each changes the rounding.
 *
 * The rules see operands already simplified (the rewrite walks forwards);
 * a value a rule builds is simplified again, so x - (-0) -> ... chains
 * settle in one pass. */
#include "passes.h"

#include <math.h>
#include <string.h>

enum { MAX_STEPS = 8 }; /* each rule shrinks or canonicalizes: a bound, not a budget */

static int is_const(const ir_value *v, float f)
{
    return v->op == IR_CONST && memcmp(&v->attr.f, &f, sizeof f) == 0;
}

static int nan_canonical(const ir_value *v)
{
    if (v->op == IR_CONST) {
        uint32_t bits;
        memcpy(&bits, &v->attr.f, sizeof bits);
        return !isnan(v->attr.f) || bits == 0x7fffffffu;
    }
    return (ir_op_get(v->op)->flags & IR_NANCANON) != 0;
}

/* If v has the constant f as an operand (either one when v commutes; else
 * only the second), stores the other operand in *other. */
static int has_const(const ir_value *v, float f, ir_value **other)
{
    if (is_const(v->args[1], f)) {
        *other = v->args[0];
        return 1;
    }
    if ((ir_op_get(v->op)->flags & IR_COMMUTE) && is_const(v->args[0], f)) {
        *other = v->args[1];
        return 1;
    }
    return 0;
}

static ir_value *build2(ir_func *fn, ir_op op, ir_value *a, ir_value *b, src_loc loc)
{
    ir_value *args[2] = {a, b};
    return ir_build(fn, op, args, 2, 0, loc);
}

static ir_value *build3(ir_func *fn, ir_op op, ir_value *a, ir_value *b, ir_value *c,
                        src_loc loc)
{
    ir_value *args[3] = {a, b, c};
    return ir_build(fn, op, args, 3, 0, loc);
}

static ir_value *negated_const(ir_func *fn, const ir_value *c)
{
    return ir_const(fn, -c->attr.f, c->loc);
}

static ir_value *simplify_select(ir_func *fn, ir_value *v)
{
    ir_value *c = v->args[0], *a = v->args[1], *b = v->args[2];
    if (a == b)
        return a;
    if (a->op == IR_SELECT && a->args[0] == c)
        return build3(fn, IR_SELECT, c, a->args[1], b, v->loc);
    if (b->op == IR_SELECT && b->args[0] == c)
        return build3(fn, IR_SELECT, c, a, b->args[2], v->loc);
    return v;
}

static ir_value *simplify_arith(ir_func *fn, ir_value *v)
{
    ir_value *x, *a = v->args[0], *b = v->args[1];
    switch (v->op) {
    case IR_MUL:
    case IR_DIV:
        if (has_const(v, 1.0f, &x) && nan_canonical(x))
            return x;
        if (a->op == IR_NEG && b->op == IR_NEG)
            return build2(fn, v->op, a->args[0], b->args[0], v->loc);
        if (a->op == IR_NEG && b->op == IR_CONST)
            return build2(fn, v->op, a->args[0], negated_const(fn, b), v->loc);
        if (b->op == IR_NEG && a->op == IR_CONST)
            return build2(fn, v->op, negated_const(fn, a), b->args[0], v->loc);
        return v;
    case IR_ADD:
        if (has_const(v, -0.0f, &x) && nan_canonical(x))
            return x;
        if (b->op == IR_NEG)
            return build2(fn, IR_SUB, a, b->args[0], v->loc);
        if (a->op == IR_NEG)
            return build2(fn, IR_SUB, b, a->args[0], v->loc);
        return v;
    case IR_SUB:
        if (b->op == IR_CONST)
            return build2(fn, IR_ADD, a, negated_const(fn, b), v->loc);
        if (b->op == IR_NEG)
            return build2(fn, IR_ADD, a, b->args[0], v->loc);
        return v;
    default:
        return v;
    }
}

/* One rule applied to v, or v itself when none matches. */
static ir_value *simplify_once(ir_func *fn, ir_value *v)
{
    const ir_op_info *info = ir_op_get(v->op);
    if (v->op == IR_SELECT)
        return simplify_select(fn, v);
    if (v->op == IR_GT || v->op == IR_GE)
        return build2(fn, v->op == IR_GT ? IR_LT : IR_LE, v->args[1], v->args[0], v->loc);
    if (v->op == IR_NEG && v->args[0]->op == IR_NEG && nan_canonical(v->args[0]->args[0]))
        return v->args[0]->args[0];
    if ((info->flags & IR_IDEMPOTENT) && v->args[0]->op == v->op)
        return v->args[0];
    return simplify_arith(fn, v);
}

static ir_value *simplify_value(ir_func *fn, ir_value *v, void *user)
{
    (void)user;
    ir_value *r = v;
    for (int step = 0; step < MAX_STEPS; step++) {
        ir_value *next = simplify_once(fn, r);
        if (!next)
            return NULL;
        if (next == r)
            break;
        r = next;
    }
    return r;
}

void ir_pass_simplify(ir_func *fn)
{
    ir_func_rewrite(fn, simplify_value, NULL);
}
