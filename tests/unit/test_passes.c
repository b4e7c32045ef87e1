/* test_passes.c - the optimizer's passes, pipeline and API, one behaviour per test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ir/ir.h"
#include "kernels/common/evt_math.h"

#include <evt/evt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_fixture.h"

/* Parses src (which must be valid) into f->m and returns its first epilogue. */
static const ir_func *parse(fixture *f, const char *src)
{
    evt_module_destroy(f->m);
    f->m = NULL;
    evt_status st = evt_module_parse_buffer(f->ctx, "t.evt", src, strlen(src), &f->m);
    if (st != EVT_OK)
        fprintf(stderr, "%s\n%s", evt_ctx_last_error(f->ctx),
                f->m ? evt_module_diag_text(f->m, EVT_DIAG_TEXT) : "");
    assert_int_equal(st, EVT_OK);
    return evt_module_epilogue(f->m, 0);
}

/* Runs a comma-separated list of passes on f->m. */
static const ir_func *run_passes(fixture *f, const char *passes)
{
    evt_optimize_options o = {.passes = passes};
    evt_status st = evt_module_optimize_with(f->m, &o);
    if (st != EVT_OK)
        fprintf(stderr, "%s\n", evt_ctx_last_error(f->ctx));
    assert_int_equal(st, EVT_OK);
    const ir_func *fn = evt_module_epilogue(f->m, 0);
    strbuf why;
    sb_init(&why);
    int ok = ir_verify(fn, &why);
    if (!ok)
        fprintf(stderr, "%s\n", sb_str(&why));
    sb_free(&why);
    assert_true(ok);
    return fn;
}

/* The value stored by output i. */
static const ir_value *out(const ir_func *fn, size_t i)
{
    assert_true(i < fn->noutputs);
    return fn->outputs[i].value;
}

static int count_op(const ir_func *fn, ir_op op)
{
    int n = 0;
    for (size_t i = 0; i < fn->nvalues; i++)
        n += fn->values[i]->op == op;
    return n;
}

static uint32_t bits(float x)
{
    return evt_f32_bits(x);
}

static float bits_f32(uint32_t u)
{
    return evt_bits_f32(u);
}

static void assert_const(const ir_value *v, float want)
{
    assert_int_equal(v->op, IR_CONST);
    assert_int_equal(bits(v->attr.f), bits(want));
}

/* ---- the API ------------------------------------------------------------- */

static void test_pass_names(void **state)
{
    (void)state;
    const char *want[] = {"fold", "simplify", "cse", "strength", "dce", "hoist"};
    size_t n = 0;
    while (evt_pass_name(n))
        n++;
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(evt_pass_name(i), want[i]);
}

static void test_bad_arguments(void **state)
{
    fixture *f = *state;
    parse(f, "epilogue e { out y : f32[M, N] = acc * 1 }");
    assert_int_equal(evt_module_optimize(f->m, 3), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_module_optimize(f->m, -1), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_module_optimize(NULL, 2), EVT_ERR_INVALID_ARGUMENT);
    evt_optimize_options o = {.passes = "fold,nope"};
    assert_int_equal(evt_module_optimize_with(f->m, &o), EVT_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "unknown pass 'nope'"));
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "fold, simplify, cse"));
    o = (evt_optimize_options){.level = 2, .after_pass = "cse2"};
    assert_int_equal(evt_module_optimize_with(f->m, &o), EVT_ERR_INVALID_ARGUMENT);
    /* Nothing ran: the module is as parsed. */
    assert_int_equal(count_op(evt_module_epilogue(f->m, 0), IR_MUL), 1);
}

static void test_module_with_errors(void **state)
{
    fixture *f = *state;
    const char *src = "epilogue e { out y : f32[M, N] = nothing }";
    assert_int_equal(evt_module_parse_buffer(f->ctx, "t.evt", src, strlen(src), &f->m),
                     EVT_ERR_SOURCE);
    assert_int_equal(evt_module_optimize(f->m, 2), EVT_ERR_INVALID_ARGUMENT);
}

typedef struct seen {
    char passes[64][16];
    int n;
    char last_text[4096];
} seen;

static void record(void *user, const char *pass, const char *ir_text)
{
    seen *s = user;
    if (s->n < 64)
        snprintf(s->passes[s->n++], sizeof s->passes[0], "%s", pass);
    snprintf(s->last_text, sizeof s->last_text, "%s", ir_text);
}

static void test_callback_after_every_pass(void **state)
{
    fixture *f = *state;
    parse(f, "epilogue e { in b : f32[N]\n out y : f32[M, N] = (acc + b) / 2 }");
    seen s = {0};
    evt_optimize_options o = {.level = 2, .after = record, .user = &s};
    assert_int_equal(evt_module_optimize_with(f->m, &o), EVT_OK);
    /* One round that changes something, one that changes nothing, then dce and hoist. */
    const char *want[] = {"fold", "simplify", "cse", "strength", "fold", "simplify",
                          "cse",  "strength", "dce", "hoist"};
    assert_int_equal(s.n, sizeof want / sizeof want[0]);
    for (int i = 0; i < s.n; i++)
        assert_string_equal(s.passes[i], want[i]);
    /* The text after the last pass is the final IR of the epilogue. */
    assert_string_equal(s.last_text, evt_module_ir_text(f->m));
}

static void test_callback_after_one_pass(void **state)
{
    fixture *f = *state;
    parse(f, "epilogue e { out y : f32[M, N] = acc / 4 }");
    seen s = {0};
    evt_optimize_options o = {.level = 1, .after = record, .after_pass = "cse", .user = &s};
    assert_int_equal(evt_module_optimize_with(f->m, &o), EVT_OK);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.passes[0], "cse");
    assert_non_null(strstr(s.last_text, "div"));
}

static void test_level_0_changes_nothing(void **state)
{
    fixture *f = *state;
    parse(f, "epilogue e { let unused = acc * 3\n out y : f32[M, N] = (acc * 1) / 4 }");
    size_t len = strlen(evt_module_ir_text(f->m));
    char *before = malloc(len + 1);
    assert_non_null(before);
    memcpy(before, evt_module_ir_text(f->m), len + 1);
    assert_int_equal(evt_module_optimize(f->m, 0), EVT_OK);
    assert_string_equal(before, evt_module_ir_text(f->m));
    free(before);
}

/* ---- fold ---------------------------------------------------------------- */

static void test_fold_arithmetic(void **state)
{
    fixture *f = *state;
    const ir_func *fn = parse(f, "epilogue e {\n"
                                 "  out a : f32[M, N] = 0.1 + 0.2\n"
                                 "  out b : f32[M, N] = 1 / 3\n"
                                 "  out c : f32[M, N] = -0\n"
                                 "  out d : f32[M, N] = 3e38 * 10\n"
                                 "  out e : f32[M, N] = 1e-30 * 1e-15\n"
                                 "  out f : f32[M, N] = 0 - 0\n"
                                 "  out g : f32[M, N] = -(1 / 0)\n"
                                 "}");
    fn = run_passes(f, "fold");
    volatile float x = 0.1f, y = 0.2f, one = 1, three = 3, big = 3e38f, ten = 10;
    volatile float tiny = 1e-30f, tinier = 1e-15f;
    assert_const(out(fn, 0), x + y);
    assert_const(out(fn, 1), one / three);
    assert_const(out(fn, 2), -0.0f);
    assert_const(out(fn, 3), big * ten); /* +inf */
    assert_const(out(fn, 4), tiny * tinier); /* a subnormal */
    assert_true(fpclassify(out(fn, 4)->attr.f) == FP_SUBNORMAL);
    assert_const(out(fn, 5), 0.0f);
    assert_const(out(fn, 6), -INFINITY);
}

/* NaN bits are unspecified in evt_math.h's contract (stores canonicalise
 * them): a NaN folds, to the canonical NaN so that IR text is stable. */
static void test_fold_nan(void **state)
{
    fixture *f = *state;
    const ir_func *fn = parse(f, "epilogue e {\n"
                                 "  out a : f32[M, N] = 0 / 0\n"
                                 "  out b : f32[M, N] = (1 / 0) - (1 / 0)\n"
                                 "  out c : f32[M, N] = -(0 / 0)\n"
                                 "  out d : f32[M, N] = max(0 / 0, 1)\n"
                                 "}");
    fn = run_passes(f, "fold");
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(out(fn, i)->op, IR_CONST);
        assert_int_equal(bits(out(fn, i)->attr.f), 0x7fffffffu);
    }
}

/* Builtins fold through evt_math.h, the code the GPU runs. */
static void test_fold_builtins(void **state)
{
    fixture *f = *state;
    const ir_func *fn = parse(f, "epilogue e {\n"
                                 "  out a : f32[M, N] = exp(1)\n"
                                 "  out b : f32[M, N] = gelu(-0.5)\n"
                                 "  out c : f32[M, N] = sqrt(2)\n"
                                 "  out d : f32[M, N] = relu(-0)\n"
                                 "  out e : f32[M, N] = min(-0, 0)\n"
                                 "  out g : f32[M, N] = clamp(7, 0, 6)\n"
                                 "  out h : f32[M, N] = leaky_relu(-2, 0.1)\n"
                                 "  out i : f32[M, N] = log(0)\n"
                                 "  out j : f32[M, N] = tanh(1e-40)\n"
                                 "}");
    fn = run_passes(f, "fold");
    assert_const(out(fn, 0), evt_exp(1.0f));
    assert_const(out(fn, 1), evt_gelu(-0.5f));
    assert_const(out(fn, 2), sqrtf(2.0f));
    assert_const(out(fn, 3), 0.0f);
    assert_const(out(fn, 4), -0.0f);
    assert_const(out(fn, 5), 6.0f);
    assert_const(out(fn, 6), evt_mul(0.1f, -2.0f));
    assert_const(out(fn, 7), -INFINITY);
    assert_const(out(fn, 8), evt_tanh(1e-40f));
    assert_true(fpclassify(out(fn, 8)->attr.f) == FP_SUBNORMAL);
}

static void test_fold_select(void **state)
{
    fixture *f = *state;
    const ir_func *fn = parse(f, "epilogue e {\n"
                                 "  in x : f32[M, N]\n"
                                 "  out a : f32[M, N] = 1 < 2 ? acc : x\n"
                                 "  out b : f32[M, N] = 1 > 1 ? acc : x\n"
                                 "  out c : f32[M, N] = 1 != 2 ? acc : x\n"
                                 "  out d : f32[M, N] = -0 == 0 ? acc : x\n"
                                 "  out e : f32[M, N] = acc < 2 ? acc : x\n"
                                 "}");
    fn = run_passes(f, "fold");
    assert_int_equal(out(fn, 0)->op, IR_ACC);
    assert_int_equal(out(fn, 1)->op, IR_INPUT);
    assert_int_equal(out(fn, 2)->op, IR_ACC);
    assert_int_equal(out(fn, 3)->op, IR_ACC);
    assert_int_equal(out(fn, 4)->op, IR_SELECT);
}

/* ---- simplify ------------------------------------------------------------- */

/* The rules' exactness, checked on the host with evt_math.h (the code the GPU
 * runs): both sides give the same bits, or both a NaN (NaN bits are not part
 * of evt_math.h's contract; stores canonicalise them). */
static int same(float a, float b)
{
    return (evt_isnan(a) && evt_isnan(b)) || bits(a) == bits(b);
}

enum { NSPECIAL = 26, NRANDOM = 3000 };

/* Zeros, ones, subnormals, normal extremes, infinities, NaNs with payloads
 * and signs, then random bit patterns. */
static float sample(size_t i)
{
    static const uint32_t special[NSPECIAL] = {
        0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x00000001, 0x80000001,
        0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff,
        0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fffffff,
        0x3f000000, 0x40000000, 0x40400000, 0xc0c00000, 0x33800000, 0x4b000000,
        0x3dcccccd, 0x4f000000};
    if (i < NSPECIAL)
        return bits_f32(special[i]);
    uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9u;
    return bits_f32((uint32_t)(z >> 32));
}

static void test_simplify_rules_are_exact(void **state)
{
    (void)state;
    const float inf = INFINITY;
    for (size_t i = 0; i < NSPECIAL + NRANDOM; i++) {
        float x = sample(i);
        assert_true(same(evt_mul(x, 1.0f), x));
        assert_true(same(evt_div(x, 1.0f), x));
        assert_true(same(evt_mul(x, -1.0f), evt_neg(x)));
        assert_true(same(evt_div(x, -1.0f), evt_neg(x)));
        assert_true(same(evt_add(x, -0.0f), x));
        assert_true(same(evt_add(-0.0f, x), x));
        assert_true(same(evt_neg(evt_neg(x)), x));
        assert_true(same(evt_abs(evt_neg(x)), evt_abs(x)));
        assert_true(same(evt_relu(evt_relu(x)), evt_relu(x)));
        assert_true(same(evt_abs(evt_abs(x)), evt_abs(x)));
        assert_true(same(evt_relu(evt_abs(x)), evt_abs(x)));
        assert_true(same(evt_abs(evt_relu(x)), evt_relu(x)));
        assert_true(same(evt_max(x, 0.0f), evt_relu(x)));
        assert_true(same(evt_max(x, x), x));
        assert_true(same(evt_min(x, x), x));
        assert_true(same(evt_max(x, -inf), x));
        assert_true(same(evt_min(x, inf), x));
        assert_true(same(evt_leaky_relu(x, 1.0f), x));
        for (int k = -126; k <= 126; k += 7)
            assert_true(same(evt_div(x, ldexpf(1.0f, k)), evt_mul(x, ldexpf(1.0f, -k))));
        for (size_t j = 0; j < NSPECIAL + 40; j++) {
            float y = sample(j + (i % 7) * 1000);
            assert_true(same(evt_sub(x, y), evt_add(x, evt_neg(y))));
            assert_true(same(evt_sub(x, evt_neg(y)), evt_add(x, y)));
            assert_true(same(evt_add(x, evt_neg(y)), evt_sub(x, y)));
            assert_true(same(evt_mul(evt_neg(x), evt_neg(y)), evt_mul(x, y)));
            assert_true(same(evt_div(evt_neg(x), evt_neg(y)), evt_div(x, y)));
            assert_true(same(evt_mul(evt_neg(x), y), evt_mul(x, evt_neg(y))));
            assert_true(same(evt_div(evt_neg(x), y), evt_div(x, evt_neg(y))));
            assert_true(same(evt_div(y, evt_neg(x)), evt_div(evt_neg(y), x)));
            assert_true(same(evt_clamp(x, y, inf), evt_max(x, y)));
            assert_true(same(evt_clamp(x, -inf, y), evt_min(x, y)));
            /* IR_COMMUTE, and the comparison swap */
            assert_true(same(evt_add(x, y), evt_add(y, x)));
            assert_true(same(evt_mul(x, y), evt_mul(y, x)));
            assert_true(same(evt_max(x, y), evt_max(y, x)));
            assert_true(same(evt_min(x, y), evt_min(y, x)));
            assert_int_equal(x > y, y < x);
            assert_int_equal(x >= y, y <= x);
        }
    }
}

/* The rules simplify.c refuses are indeed wrong somewhere. */
static void test_simplify_refusals_are_needed(void **state)
{
    (void)state;
    assert_false(same(evt_add(-0.0f, 0.0f), -0.0f));                  /* x + 0 -> x */
    assert_false(same(evt_mul(-1.0f, 0.0f), 0.0f));                   /* x * 0 -> 0 */
    assert_false(same(evt_sub(INFINITY, INFINITY), 0.0f));           /* x - x -> 0 */
    assert_false(same(evt_max(-0.0f, -0.0f), evt_relu(-0.0f)));       /* max(x, -0) */
    assert_false(same(evt_leaky_relu(-INFINITY, 0.0f), evt_relu(-INFINITY)));
    assert_false(same(evt_div(10.0f, 3.0f) , evt_mul(10.0f, evt_div(1.0f, 3.0f))));
}

static void test_simplify_in_the_ir(void **state)
{
    fixture *f = *state;
    const ir_func *fn = parse(f, "epilogue e {\n"
                                 "  in x : f32[M, N]\n"
                                 "  out a : f32[M, N] = clamp(x, 0, 1 / 0)\n"
                                 "  out b : f32[M, N] = x + 0\n"
                                 "  out c : f32[M, N] = x * 0\n"
                                 "  out d : f32[M, N] = x - x\n"
                                 "  out g : f32[M, N] = max(x, -0)\n"
                                 "  out h : f32[M, N] = leaky_relu(x, 0)\n"
                                 "  out i : f32[M, N] = clamp(x, 0, 6)\n"
                                 "  out j : f32[M, N] = -(-x) * 1 / 1 - 0\n"
                                 "}");
    fn = run_passes(f, "fold,simplify");
    assert_int_equal(out(fn, 0)->op, IR_RELU);
    assert_int_equal(out(fn, 0)->args[0]->op, IR_INPUT);
    assert_int_equal(out(fn, 1)->op, IR_ADD);
    assert_int_equal(out(fn, 2)->op, IR_MUL);
    assert_int_equal(out(fn, 3)->op, IR_SUB);
    assert_int_equal(out(fn, 4)->op, IR_MAX);
    assert_int_equal(out(fn, 5)->op, IR_LEAKY_RELU);
    assert_int_equal(out(fn, 6)->op, IR_CLAMP);
    assert_int_equal(out(fn, 7)->op, IR_INPUT);
}

/* ---- cse ----------------------------------------------------------------- */

static void test_cse_commutative(void **state)
{
    fixture *f = *state;
    const ir_func *fn = parse(f, "epilogue e {\n"
                                 "  in b : f32[N]\n"
                                 "  out x : f32[M, N] = (acc + b) * 2\n"
                                 "  out y : f32[M, N] = 2 * (b + acc)\n"
                                 "  out z : f32[M, N] = b - acc\n"
                                 "  out w : f32[M, N] = acc - b\n"
                                 "}");
    assert_ptr_not_equal(out(fn, 0), out(fn, 1));
    fn = run_passes(f, "cse");
    assert_ptr_equal(out(fn, 0), out(fn, 1));
    assert_int_equal(out(fn, 0)->args[1]->op, IR_CONST); /* constants second */
    assert_ptr_not_equal(out(fn, 2), out(fn, 3));        /* sub does not commute */
}

/* ---- strength ------------------------------------------------------------ */

static void test_strength_powers_of_two(void **state)
{
    fixture *f = *state;
    const ir_func *fn = parse(f, "epilogue e {\n"
                                 "  out a : f32[M, N] = acc / 8\n"
                                 "  out b : f32[M, N] = acc / -0.5\n"
                                 "  out c : f32[M, N] = acc / 3\n"
                                 "  out d : f32[M, N] = acc / 1.17549435e-38\n" /* 2^-126 */
                                 "  out e : f32[M, N] = acc / 1.70141183e38\n"  /* 2^127 */
                                 "  out g : f32[M, N] = acc / 5.877472e-39\n"   /* 2^-127 */
                                 "  out h : f32[M, N] = acc / 0\n"
                                 "}");
    fn = run_passes(f, "fold,strength"); /* fold makes -0.5 a constant */
    assert_int_equal(out(fn, 0)->op, IR_MUL);
    assert_const(out(fn, 0)->args[1], 0.125f);
    assert_int_equal(out(fn, 1)->op, IR_MUL);
    assert_const(out(fn, 1)->args[1], -2.0f);
    assert_int_equal(out(fn, 2)->op, IR_DIV);
    assert_int_equal(out(fn, 3)->op, IR_MUL);
    assert_const(out(fn, 3)->args[1], 0x1p126f);
    assert_int_equal(out(fn, 4)->op, IR_DIV); /* 2^-127 is subnormal */
    assert_int_equal(out(fn, 5)->op, IR_DIV); /* the divisor is subnormal */
    assert_int_equal(out(fn, 6)->op, IR_DIV);
}

/* x / 2^k and x * 2^-k round the same real: check it on the host, subnormal
 * results and overflow included. */
static void test_strength_is_exact(void **state)
{
    (void)state;
    const float xs[] = {1.0f, 3.0f, 0x1.fffffep127f, 0x1p-149f, 0x1.8p-148f, 0x1.234568p-126f,
                        -7.5e-39f, 1e-45f, 0.0f, -0.0f, INFINITY, -INFINITY, 123456.789f};
    for (int k = -126; k <= 126; k++) {
        volatile float c = ldexpf(1.0f, k), r = ldexpf(1.0f, -k);
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
            volatile float x = xs[i];
            float q = x / c, p = x * r;
            assert_int_equal(bits(q), bits(p));
        }
    }
}

/* ---- dce and hoist -------------------------------------------------------- */

static void test_dce_keeps_the_interface(void **state)
{
    fixture *f = *state;
    const ir_func *fn = parse(f, "epilogue e {\n"
                                 "  in unused : f16[M, N]\n"
                                 "  param p : f32 = 2\n"
                                 "  let dead = unused * p\n"
                                 "  out y : f32[M, N] = acc\n"
                                 "}");
    assert_int_equal(fn->nvalues, 4);
    fn = run_passes(f, "dce");
    assert_int_equal(fn->nvalues, 1);
    assert_int_equal(out(fn, 0)->op, IR_ACC);
    assert_int_equal(evt_epilogue_arg_count(fn, EVT_ARG_INPUT), 1);
    assert_int_equal(evt_epilogue_arg_count(fn, EVT_ARG_PARAM), 1);
    assert_string_equal(evt_epilogue_arg(fn, EVT_ARG_INPUT, 0)->name, "unused");
}

static void test_hoist_marks_scalars(void **state)
{
    fixture *f = *state;
    const ir_func *fn = parse(f, "epilogue e {\n"
                                 "  in s : f32\n"
                                 "  in b : f32[N]\n"
                                 "  param p : f32\n"
                                 "  let k = exp(p * s)\n"
                                 "  out y : f32[M, N] = acc * k + b * p\n"
                                 "  out t : f32 = reduce_sum(acc)\n"
                                 "}");
    fn = run_passes(f, "hoist");
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        int want = v->op == IR_INPUT ? v->shape == EVT_SHAPE_SCALAR
                   : v->op == IR_MUL ? v->shape == EVT_SHAPE_SCALAR
                                     : v->op == IR_EXP;
        assert_int_equal(v->hoisted, want);
    }
    const char *line = strstr(evt_module_ir_text(f->m), "= exp ");
    assert_non_null(line);
    assert_int_equal(strncmp(strchr(line, '\n') - 16, ", once per block", 16), 0);
}

/* ---- the whole pipeline ---------------------------------------------------- */

/* A chain of 100 000 lets is a 100 000-deep DAG: no pass may recurse over
 * operands, and each must stay linear. */
static void test_deep_chain(void **state)
{
    fixture *f = *state;
    enum { N = 100000 };
    size_t cap = (size_t)N * 64 + 256, len = 0;
    char *src = malloc(cap);
    assert_non_null(src);
    len += (size_t)snprintf(src + len, cap - len, "epilogue e {\n  let x0 = acc + 1\n");
    for (int i = 1; i < N; i++)
        len += (size_t)snprintf(src + len, cap - len, "  let x%d = (x%d * 1) / 2 + x%d\n", i,
                                i - 1, i / 2);
    len += (size_t)snprintf(src + len, cap - len, "  out y : f32[M, N] = x%d\n}\n", N - 1);
    evt_status st = evt_module_parse_buffer(f->ctx, "deep.evt", src, len, &f->m);
    free(src);
    assert_int_equal(st, EVT_OK);
    assert_int_equal(evt_module_optimize(f->m, 2), EVT_OK);
    const ir_func *fn = evt_module_epilogue(f->m, 0);
    assert_int_equal(count_op(fn, IR_DIV), 0);
    assert_int_equal(count_op(fn, IR_MUL), N - 1);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_pass_names),
        T(test_bad_arguments),
        T(test_module_with_errors),
        T(test_callback_after_every_pass),
        T(test_callback_after_one_pass),
        T(test_level_0_changes_nothing),
        T(test_fold_arithmetic),
        T(test_fold_nan),
        T(test_fold_builtins),
        T(test_fold_select),
        T(test_simplify_rules_are_exact),
        T(test_simplify_refusals_are_needed),
        T(test_simplify_in_the_ir),
        T(test_cse_commutative),
        T(test_strength_powers_of_two),
        T(test_strength_is_exact),
        T(test_dce_keeps_the_interface),
        T(test_hoist_marks_scalars),
        T(test_deep_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
