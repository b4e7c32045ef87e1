/* simplify.c - algebraic simplification, exact in f32 on every input.
 *
 * What "exact" means here is the contract of kernels/common/evt_math.h, which both
 * the GPU and the reference interpreter compute with: every operation gives
 * the same bits on both for every non-NaN result, and a NaN wherever either
 * gives a NaN; a NaN's sign and payload are unspecified, and every store
 * canonicalises them, so no output can observe them.  A rule is exact when,
 * on every input (±0, ±inf, subnormals, NaN), it gives the same bits for
 * every non-NaN result and a NaN for every NaN one.
 *
 * The facts the rules use: + - * / round once to nearest even and keep
 * subnormals; neg and abs flip and clear the sign bit; relu(x) is
 * x > 0 ? x : +0 (so relu(-0) = +0); max and min order -0 below +0 (max(+0,
 * -0) = +0, min(+0, -0) = -0) and give NaN for a NaN argument; clamp(x, lo,
 * hi) is min(max(x, lo), hi); leaky_relu(x, s) is x >= 0 ? x : s * x; ?:
 * returns its chosen operand unchanged.
 *
 * Rules, and why each is exact:
 *  - c ? x : x -> x.  ?: returns x either way.
 *  - c ? (c ? a : b) : d -> c ? a : d, and c ? a : (c ? b : d) -> c ? a : d.
 *    The inner ?: sees the same condition as the outer one.
 *  - a > b -> b < a, a >= b -> b <= a.  The same IEEE predicate with its
 *    operands named in the other order, false on a NaN either way (so that
 *    CSE finds a > b and b < a to be one value).
 *  - x * 1, 1 * x, x / 1 -> x.  x·1 is exactly x for every x: zeros keep
 *    their sign, infinities stay, subnormals are not flushed; NaN stays NaN.
 *  - x * -1, -1 * x, x / -1 -> -x.  x·(-1) is exactly x with its sign
 *    flipped, zeros and infinities included.
 *  - x + (-0), (-0) + x -> x.  x + (-0) is exactly x for every x: for
 *    x = +0, +0 + -0 = +0 under round-to-nearest; for x = -0, -0 + -0 = -0.
 *    (x + (+0) is NOT x: -0 + +0 = +0.  It is never rewritten.)
 *  - x - c -> x + (-c) for a constant c.  IEEE defines x - y as x + (-y),
 *    signed zeros included (+0 - +0 = +0 + -0 = +0); so x - 0 becomes
 *    x + (-0) and then x, while x - (-0) becomes x + 0 and stays.
 *  - x - (-y) -> x + y, x + (-y) and (-y) + x -> x - y.  The same
 *    definition of subtraction: both sides round the same real once.
 *  - (-x) * (-y) -> x * y, (-x) / (-y) -> x / y.  The signs cancel exactly
 *    (the IEEE sign rule, zeros and infinities included); magnitudes and
 *    rounding are unchanged.
 *  - (-x) * c -> x * (-c), (-x) / c -> x / (-c), c / (-x) -> (-c) / x, for a
 *    constant c.  The same sign rule, moving the negation into the constant.
 *  - -(-x) -> x and abs(-x) -> abs(x).  Sign-bit operations.
 *  - f(f(x)) -> f(x) for an f with IR_IDEMPOTENT (relu, abs): relu(y) = y and
 *    abs(y) = y for every y relu or abs returns.
 *  - relu(abs(x)) -> abs(x), abs(relu(x)) -> relu(x).  Both return +0, a
 *    positive number or NaN, on which the outer function is the identity.
 *  - max(x, +0), max(+0, x) -> relu(x).  For x > 0 both give x; for x < 0,
 *    x = -0 and x = +0 both give +0 (max's -0 < +0 rule); NaN gives NaN.
 *    (max(x, -0) is NOT relu(x): max(-0, -0) = -0.)
 *  - max(x, x), min(x, x) -> x.  Equal arguments: max and min return that
 *    value, or NaN for NaN.
 *  - max(x, -inf), min(x, +inf) -> x.  Every non-NaN x is >= -inf and
 *    <= +inf; x = ±inf is the equal case above.
 *  - clamp(x, lo, +inf) -> max(x, lo), clamp(x, -inf, hi) -> min(x, hi).
 *    clamp is min(max(x, lo), hi), and the previous rule removes the
 *    infinite bound (which then simplifies further: clamp(x, 0, +inf) ->
 *    relu(x)).
 *  - leaky_relu(x, 1) -> x.  x >= 0 gives x; otherwise 1·x = x; NaN gives NaN.
 *
 * Deliberately not done, because they are wrong in f32:
 *  - x * 0 -> 0 (x = NaN or ±inf gives NaN; x = -1 gives -0);
 *  - x - x -> 0 (NaN, ±inf);  x + 0 -> x (x = -0 gives +0);
 *  - leaky_relu(x, 0) -> relu(x) (leaky_relu(-inf, 0) = -inf·0 = NaN);
 *  - x / c -> x * (1/c) unless c is a power of two (strength.c does that one);
 *  - reassociation such as (x + a) + b -> x + (a + b), and a*b + c -> fma:
 *    each changes the rounding.
 *
 * The rules see operands already simplified (the rewrite walks forwards);
 * a value a rule builds is simplified again, so chains such as
 * clamp(x, 0, +inf) -> max(x, 0) -> relu(x) settle in one pass. */
#include "passes.h"

#include <math.h>
#include <string.h>

enum { MAX_STEPS = 8 }; /* each rule shrinks or canonicalizes: a bound, not a budget */

static int is_const(const ir_value *v, float f)
{
    return v->op == IR_CONST && memcmp(&v->attr.f, &f, sizeof f) == 0;
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

static ir_value *build1(ir_func *fn, ir_op op, ir_value *a, src_loc loc)
{
    return ir_build(fn, op, &a, 1, 0, loc);
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
        if (has_const(v, 1.0f, &x))
            return x;
        if (has_const(v, -1.0f, &x))
            return build1(fn, IR_NEG, x, v->loc);
        if (a->op == IR_NEG && b->op == IR_NEG)
            return build2(fn, v->op, a->args[0], b->args[0], v->loc);
        if (a->op == IR_NEG && b->op == IR_CONST)
            return build2(fn, v->op, a->args[0], negated_const(fn, b), v->loc);
        if (b->op == IR_NEG && a->op == IR_CONST)
            return build2(fn, v->op, negated_const(fn, a), b->args[0], v->loc);
        return v;
    case IR_ADD:
        if (has_const(v, -0.0f, &x))
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

static ir_value *simplify_builtin(ir_func *fn, ir_value *v)
{
    ir_value *x, *a = v->args[0];
    switch (v->op) {
    case IR_NEG:
        return a->op == IR_NEG ? a->args[0] : v;
    case IR_ABS:
        if (a->op == IR_NEG)
            return build1(fn, IR_ABS, a->args[0], v->loc);
        return a->op == IR_RELU ? a : v;
    case IR_RELU:
        return a->op == IR_ABS ? a : v;
    case IR_MAX:
        if (a == v->args[1])
            return a;
        if (has_const(v, -INFINITY, &x))
            return x;
        if (has_const(v, 0.0f, &x))
            return build1(fn, IR_RELU, x, v->loc);
        return v;
    case IR_MIN:
        if (a == v->args[1])
            return a;
        return has_const(v, INFINITY, &x) ? x : v;
    case IR_CLAMP:
        if (is_const(v->args[2], INFINITY))
            return build2(fn, IR_MAX, a, v->args[1], v->loc);
        if (is_const(v->args[1], -INFINITY))
            return build2(fn, IR_MIN, a, v->args[2], v->loc);
        return v;
    case IR_LEAKY_RELU:
        return is_const(v->args[1], 1.0f) ? a : v;
    default:
        return v;
    }
}

/* One rule applied to v, or v itself when none matches. */
static ir_value *simplify_once(ir_func *fn, ir_value *v)
{
    if (v->op == IR_SELECT)
        return simplify_select(fn, v);
    if (v->op == IR_GT || v->op == IR_GE)
        return build2(fn, v->op == IR_GT ? IR_LT : IR_LE, v->args[1], v->args[0], v->loc);
    if ((ir_op_get(v->op)->flags & IR_IDEMPOTENT) && v->args[0]->op == v->op)
        return v->args[0];
    ir_value *r = simplify_arith(fn, v);
    return r == v ? simplify_builtin(fn, v) : r;
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
