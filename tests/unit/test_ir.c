/* test_ir.c - the IR: hash-consing, constants by bits, broadcasting, the op table,
 * the verifier (accepts what sema builds, rejects each kind of broken IR) and
 * the float printer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ir/ir.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function with inputs x: [M, N], r: [N], c: [M], s: scalar and one param. */
typedef struct fixture {
    arena arena;
    ir_func *fn;
    ir_value *acc, *x, *r, *c, *s, *p;
    strbuf why;
} fixture;

static void add_arg(ir_func *fn, evt_arg_kind kind, const char *name, evt_shape shape)
{
    ir_arg a = {0};
    a.info.name = name;
    a.info.kind = kind;
    a.info.shape = shape;
    if (kind == EVT_ARG_INPUT)
        ARENA_PUSH(fn->arena, fn->inputs, fn->ninputs, fn->inputs_cap, a);
    else
        ARENA_PUSH(fn->arena, fn->params, fn->nparams, fn->params_cap, a);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    arena_init(&f->arena);
    sb_init(&f->why);
    f->fn = ir_func_new(&f->arena, "t", (src_loc){1, 1, 0});
    ir_func *fn = f->fn;
    add_arg(fn, EVT_ARG_INPUT, "x", EVT_SHAPE_MN);
    add_arg(fn, EVT_ARG_INPUT, "r", EVT_SHAPE_N);
    add_arg(fn, EVT_ARG_INPUT, "c", EVT_SHAPE_M);
    add_arg(fn, EVT_ARG_INPUT, "s", EVT_SHAPE_SCALAR);
    add_arg(fn, EVT_ARG_PARAM, "p", EVT_SHAPE_SCALAR);
    src_loc loc = {2, 3, 10};
    f->acc = ir_leaf(fn, IR_ACC, 0, loc);
    f->x = ir_leaf(fn, IR_INPUT, 0, loc);
    f->r = ir_leaf(fn, IR_INPUT, 1, loc);
    f->c = ir_leaf(fn, IR_INPUT, 2, loc);
    f->s = ir_leaf(fn, IR_INPUT, 3, loc);
    f->p = ir_leaf(fn, IR_PARAM, 0, loc);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sb_free(&f->why);
    arena_free(&f->arena);
    free(f);
    return 0;
}

static ir_value *build(fixture *f, ir_op op, ir_value *a, ir_value *b, ir_value *c)
{
    ir_value *args[3] = {a, b, c};
    int n = ir_op_get(op)->arity;
    ir_value *v = ir_build(f->fn, op, args, n, 0, (src_loc){3, 4, 20});
    assert_non_null(v);
    return v;
}

static ir_value *reduce(fixture *f, ir_op op, ir_value *a, int axis)
{
    ir_value *v = ir_build(f->fn, op, &a, 1, axis, (src_loc){4, 5, 30});
    assert_non_null(v);
    return v;
}

static void add_output(fixture *f, const char *name, evt_shape shape, evt_reduce red, ir_value *v)
{
    ir_arg a = {0};
    a.info.name = name;
    a.info.kind = EVT_ARG_OUTPUT;
    a.info.shape = shape;
    a.info.reduce = red;
    a.value = v;
    ARENA_PUSH(f->fn->arena, f->fn->outputs, f->fn->noutputs, f->fn->outputs_cap, a);
}

static void test_leaves_are_shared(void **state)
{
    fixture *f = *state;
    size_t n = f->fn->nvalues;
    assert_int_equal(n, 6);
    assert_ptr_equal(ir_leaf(f->fn, IR_ACC, 0, (src_loc){9, 9, 99}), f->acc);
    assert_ptr_equal(ir_leaf(f->fn, IR_INPUT, 1, (src_loc){9, 9, 99}), f->r);
    assert_ptr_equal(ir_leaf(f->fn, IR_PARAM, 0, (src_loc){9, 9, 99}), f->p);
    assert_int_equal(f->fn->nvalues, n);
    assert_ptr_not_equal(f->x, f->r);
    assert_ptr_not_equal(f->x, f->p); /* input 0 and param 0 differ by op */
    assert_int_equal(f->acc->shape, EVT_SHAPE_MN);
    assert_int_equal(f->r->shape, EVT_SHAPE_N);
    assert_int_equal(f->c->shape, EVT_SHAPE_M);
    assert_int_equal(f->s->shape, EVT_SHAPE_SCALAR);
    assert_int_equal(f->p->shape, EVT_SHAPE_SCALAR);
    assert_int_equal(f->acc->loc.line, 2); /* the first place it was written */
}

static void test_hash_consing(void **state)
{
    fixture *f = *state;
    ir_value *a = build(f, IR_ADD, f->x, f->r, NULL);
    size_t n = f->fn->nvalues;
    assert_ptr_equal(build(f, IR_ADD, f->x, f->r, NULL), a);
    assert_int_equal(f->fn->nvalues, n);
    /* Operand order matters to the builder (canonicalising is a pass's job). */
    ir_value *b = build(f, IR_ADD, f->r, f->x, NULL);
    assert_ptr_not_equal(b, a);
    assert_ptr_not_equal(build(f, IR_SUB, f->x, f->r, NULL), a);
    assert_ptr_not_equal(build(f, IR_MUL, f->x, f->r, NULL), a);
    /* A DAG: a shared operand is one value. */
    ir_value *sq = build(f, IR_MUL, a, a, NULL);
    assert_ptr_equal(sq->args[0], sq->args[1]);
    assert_ptr_equal(build(f, IR_RELU, sq, NULL, NULL), build(f, IR_RELU, sq, NULL, NULL));
    ir_value *sel = build(f, IR_SELECT, build(f, IR_GT, f->x, f->s, NULL), f->x, f->r);
    assert_ptr_equal(build(f, IR_SELECT, build(f, IR_GT, f->x, f->s, NULL), f->x, f->r), sel);
    assert_ptr_not_equal(build(f, IR_SELECT, build(f, IR_GT, f->x, f->s, NULL), f->r, f->x), sel);
    /* Each value is at its index, in topological order. */
    for (size_t i = 0; i < f->fn->nvalues; i++) {
        assert_int_equal(f->fn->values[i]->id, (int)i);
        for (int j = 0; j < f->fn->values[i]->nargs; j++)
            assert_true(f->fn->values[i]->args[j]->id < (int)i);
    }
}

static ir_value *const_bits(fixture *f, uint32_t bits)
{
    float v;
    memcpy(&v, &bits, sizeof v);
    ir_value *c = ir_const(f->fn, v, (src_loc){1, 1, 0});
    assert_non_null(c);
    return c;
}

/* Constants are keyed by their bits: -0.0 is not 0.0, NaNs are distinct by
 * payload and sign but each equals itself. */
static void test_constants_by_bits(void **state)
{
    fixture *f = *state;
    ir_value *one = ir_const(f->fn, 1.0f, (src_loc){1, 1, 0});
    assert_ptr_equal(ir_const(f->fn, 1.0f, (src_loc){5, 5, 0}), one);
    ir_value *zero = ir_const(f->fn, 0.0f, (src_loc){1, 1, 0});
    ir_value *nzero = ir_const(f->fn, -0.0f, (src_loc){1, 1, 0});
    assert_ptr_not_equal(zero, nzero);
    assert_true(signbit(nzero->attr.f));
    ir_value *nan = const_bits(f, 0x7fc00000u);
    assert_ptr_equal(const_bits(f, 0x7fc00000u), nan);
    assert_ptr_not_equal(const_bits(f, 0x7fc00001u), nan);
    assert_ptr_not_equal(const_bits(f, 0xffc00000u), nan);
    assert_ptr_not_equal(const_bits(f, 0x7f800000u), const_bits(f, 0xff800000u));
    assert_int_equal(nan->shape, EVT_SHAPE_SCALAR);
    assert_int_equal(nan->type, IR_F32);
    /* Users of distinct constants are distinct too. */
    assert_ptr_not_equal(build(f, IR_ADD, f->x, zero, NULL), build(f, IR_ADD, f->x, nzero, NULL));
}

static void test_broadcast_shapes(void **state)
{
    fixture *f = *state;
    static const struct {
        int a, b;
        evt_shape want;
    } cases[] = {
        {0, 1, EVT_SHAPE_MN}, {1, 2, EVT_SHAPE_MN}, {2, 1, EVT_SHAPE_MN}, {1, 3, EVT_SHAPE_N},
        {2, 3, EVT_SHAPE_M},  {3, 4, EVT_SHAPE_SCALAR}, {1, 1, EVT_SHAPE_N}, {2, 2, EVT_SHAPE_M},
        {0, 3, EVT_SHAPE_MN}, {4, 2, EVT_SHAPE_M},
    };
    ir_value *v[] = {f->x, f->r, f->c, f->s, f->p};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ir_value *sum = build(f, IR_ADD, v[cases[i].a], v[cases[i].b], NULL);
        assert_int_equal(sum->shape, cases[i].want);
        ir_value *lt = build(f, IR_LT, v[cases[i].a], v[cases[i].b], NULL);
        assert_int_equal(lt->shape, cases[i].want);
        assert_int_equal(lt->type, IR_BOOL);
        assert_int_equal(sum->type, IR_F32);
    }
    assert_int_equal(build(f, IR_NEG, f->r, NULL, NULL)->shape, EVT_SHAPE_N);
    assert_int_equal(build(f, IR_CLAMP, f->s, f->c, f->r)->shape, EVT_SHAPE_MN);
    ir_value *cond = build(f, IR_GT, f->c, f->s, NULL);
    assert_int_equal(build(f, IR_SELECT, cond, f->s, f->p)->shape, EVT_SHAPE_M);
    assert_int_equal(build(f, IR_SELECT, cond, f->r, f->p)->shape, EVT_SHAPE_MN);
}

static void test_reductions(void **state)
{
    fixture *f = *state;
    assert_int_equal(ir_reduce_shape(EVT_SHAPE_N), EVT_SHAPE_M);
    assert_int_equal(ir_reduce_shape(EVT_SHAPE_M), EVT_SHAPE_N);
    assert_int_equal(ir_reduce_shape(EVT_SHAPE_MN), EVT_SHAPE_SCALAR);
    ir_value *over_n = reduce(f, IR_REDUCE_SUM, f->x, EVT_SHAPE_N);
    ir_value *over_m = reduce(f, IR_REDUCE_SUM, f->x, EVT_SHAPE_M);
    ir_value *all = reduce(f, IR_REDUCE_SUM, f->x, EVT_SHAPE_MN);
    assert_int_equal(over_n->shape, EVT_SHAPE_M);
    assert_int_equal(over_m->shape, EVT_SHAPE_N);
    assert_int_equal(all->shape, EVT_SHAPE_SCALAR);
    assert_ptr_not_equal(over_n, over_m);
    assert_ptr_equal(reduce(f, IR_REDUCE_SUM, f->x, EVT_SHAPE_N), over_n);
    assert_ptr_not_equal(reduce(f, IR_REDUCE_MAX, f->x, EVT_SHAPE_N), over_n);
    /* The operand broadcasts to [M, N] first: a row vector reduced over M stays [N]. */
    assert_int_equal(reduce(f, IR_REDUCE_MIN, f->r, EVT_SHAPE_M)->shape, EVT_SHAPE_N);
}

static void test_uses_and_rehash(void **state)
{
    fixture *f = *state;
    ir_value *a = build(f, IR_ADD, f->x, f->x, NULL);
    ir_value *b = build(f, IR_MUL, a, f->r, NULL);
    add_output(f, "o1", EVT_SHAPE_MN, EVT_REDUCE_NONE, b);
    add_output(f, "o2", EVT_SHAPE_MN, EVT_REDUCE_NONE, a);
    ir_func_count_uses(f->fn);
    assert_int_equal(f->x->uses, 2);
    assert_int_equal(a->uses, 2);
    assert_int_equal(b->uses, 1);
    assert_int_equal(f->acc->uses, 0);
    ir_func_rehash(f->fn);
    for (size_t i = 0; i < f->fn->nvalues; i++)
        assert_ptr_equal(ir_func_find(f->fn, f->fn->values[i]), f->fn->values[i]);
    ir_value proto = *a;
    assert_ptr_equal(ir_func_find(f->fn, &proto), a);
    proto.op = IR_SUB;
    assert_null(ir_func_find(f->fn, &proto));
    assert_true(ir_verify(f->fn, &f->why));
}

static void test_op_table(void **state)
{
    (void)state;
    static const char *const builtins[] = {
        "relu", "leaky_relu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "exp", "log",
        "sqrt", "rsqrt", "abs", "hardswish", "min", "max", "clamp", "reduce_sum", "reduce_max",
        "reduce_min"};
    static const int arity[] = {1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 1, 1, 1};
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        int op = ir_op_builtin(builtins[i]);
        assert_true(op >= 0);
        assert_string_equal(ir_op_get((ir_op)op)->name, builtins[i]);
        assert_int_equal(ir_op_get((ir_op)op)->arity, arity[i]);
    }
    static const char *const not_builtins[] = {"add", "neg", "select", "const", "acc", "input",
                                               "param", "lt", "Relu", "relu ", "", "reduce"};
    for (size_t i = 0; i < sizeof not_builtins / sizeof not_builtins[0]; i++)
        assert_int_equal(ir_op_builtin(not_builtins[i]), -1);
    for (int op = 0; op < IR_OP_COUNT; op++) {
        const ir_op_info *info = ir_op_get((ir_op)op);
        assert_non_null(info->name);
        if (info->flags & IR_LEAF)
            assert_int_equal(info->arity, 0);
        if (info->flags & IR_COMPARE)
            assert_int_equal(info->arity, 2);
        if (info->flags & IR_REDUCE)
            assert_int_equal(info->arity, 1);
        if (info->flags & IR_COMMUTE)
            assert_int_equal(info->arity, 2);
        for (int other = 0; other < op; other++)
            assert_string_not_equal(ir_op_get((ir_op)other)->name, info->name);
    }
}

/* ---- the verifier ----------------------------------------------------- */

/* A small valid function over every kind of value, with its outputs. */
static void build_valid(fixture *f)
{
    ir_value *one = ir_const(f->fn, 1.0f, (src_loc){1, 1, 0});
    ir_value *a = build(f, IR_ADD, f->acc, f->r, NULL);
    ir_value *cond = build(f, IR_GT, a, one, NULL);
    ir_value *sel = build(f, IR_SELECT, cond, a, f->c);
    ir_value *scaled = build(f, IR_MUL, sel, f->p, NULL);
    ir_value *mixed = build(f, IR_CLAMP, scaled, f->s, f->x);
    ir_value *red = reduce(f, IR_REDUCE_MAX, mixed, EVT_SHAPE_N);
    add_output(f, "d", EVT_SHAPE_MN, EVT_REDUCE_NONE, mixed);
    add_output(f, "rmax", EVT_SHAPE_M, EVT_REDUCE_MAX, red);
    add_output(f, "scalar", EVT_SHAPE_MN, EVT_REDUCE_NONE, one);
    sb_free(&f->why);
    if (!ir_verify(f->fn, &f->why))
        fail_msg("the valid function fails: %s", sb_str(&f->why));
}

static ir_value *find_op(const fixture *f, ir_op op)
{
    for (size_t i = 0; i < f->fn->nvalues; i++)
        if (f->fn->values[i]->op == op)
            return f->fn->values[i];
    fail_msg("no %s value", ir_op_get(op)->name);
    return NULL;
}

static void expect_rejected(fixture *f, const char *why)
{
    sb_free(&f->why);
    assert_false(ir_verify(f->fn, &f->why));
    if (!strstr(sb_str(&f->why), why))
        fail_msg("rejected for \"%s\", want \"%s\"", sb_str(&f->why), why);
    assert_false(ir_verify(f->fn, NULL)); /* `why` is optional */
}

/* One way to break the IR, applied to a fresh valid function. */
typedef void breaker(fixture *f);

static void break_id(fixture *f) { find_op(f, IR_MUL)->id = 99; }
static void break_order(fixture *f)
{
    ir_func *fn = f->fn;
    ir_value *t = fn->values[7]; /* acc + r, and the comparison using it */
    fn->values[7] = fn->values[8];
    fn->values[8] = t;
    ir_func_renumber(fn);
}
static void break_foreign_operand(fixture *f)
{
    static ir_value stranger = {.id = 0, .op = IR_ACC, .type = IR_F32, .shape = EVT_SHAPE_MN};
    find_op(f, IR_MUL)->args[0] = &stranger;
}
static void break_arity(fixture *f) { find_op(f, IR_ADD)->nargs = 1; }
static void break_bool_as_number(fixture *f)
{
    build(f, IR_ADD, find_op(f, IR_GT), f->x, NULL);
}
static void break_select_condition(fixture *f) { build(f, IR_SELECT, f->x, f->x, f->r); }
static void break_reduction_used(fixture *f) { build(f, IR_NEG, find_op(f, IR_REDUCE_MAX), NULL, NULL); }
static void break_shape(fixture *f) { find_op(f, IR_ADD)->shape = EVT_SHAPE_N; }
static void break_const_shape(fixture *f) { find_op(f, IR_CONST)->shape = EVT_SHAPE_N; }
static void break_param_index(fixture *f) { ir_leaf(f->fn, IR_PARAM, 5, (src_loc){1, 1, 0}); }
static void break_input_index(fixture *f) { f->r->attr.index = 7; }
static void break_input_decl(fixture *f) { f->fn->inputs[2].info.shape = EVT_SHAPE_N; }
static void break_acc_shape(fixture *f) { f->acc->shape = EVT_SHAPE_M; }
static void break_axis(fixture *f) { find_op(f, IR_REDUCE_MAX)->attr.axis = 0; }
static void break_type(fixture *f) { find_op(f, IR_CLAMP)->type = IR_BOOL; }
static void break_duplicate(fixture *f)
{
    ir_value *twin = arena_alloc(&f->arena, sizeof *twin);
    *twin = *find_op(f, IR_MUL);
    twin->id = (int)f->fn->nvalues;
    ARENA_PUSH(&f->arena, f->fn->values, f->fn->nvalues, f->fn->values_cap, twin);
}
static void break_stale_table(fixture *f) { find_op(f, IR_MUL)->args[1] = f->s; }
static void break_output_missing(fixture *f) { f->fn->outputs[0].value = NULL; }
static void break_output_bool(fixture *f)
{
    f->fn->outputs[0].value = find_op(f, IR_GT);
}
static void break_output_reduce_flag(fixture *f) { f->fn->outputs[0].info.reduce = EVT_REDUCE_SUM; }
static void break_output_reduce_shape(fixture *f) { f->fn->outputs[1].info.shape = EVT_SHAPE_N; }
static void break_output_elementwise_shape(fixture *f) { f->fn->outputs[0].info.shape = EVT_SHAPE_M; }

static void test_verify_rejects_broken_ir(void **state)
{
    (void)state;
    static const struct {
        breaker *fn;
        const char *why;
    } cases[] = {
        {break_id, "id is not its index"},
        {break_order, "operand is not an earlier value"},
        {break_foreign_operand, "operand is not an earlier value"},
        {break_arity, "wrong number of operands"},
        {break_bool_as_number, "boolean used as a number"},
        {break_select_condition, "select condition is not a boolean"},
        {break_reduction_used, "reduction used by an expression"},
        {break_shape, "shape is not the broadcast of its operands"},
        {break_const_shape, "a constant or param must be a scalar"},
        {break_param_index, "param index out of range"},
        {break_input_index, "input index out of range"},
        {break_input_decl, "input shape differs from its declaration"},
        {break_acc_shape, "acc must be [M, N]"},
        {break_axis, "bad reduction axis or shape"},
        {break_type, "wrong result type"},
        {break_duplicate, "not the hash-consed value"},
        {break_stale_table, "not the hash-consed value"},
        {break_output_missing, "output value is not a value of this epilogue"},
        {break_output_bool, "output stores a boolean"},
        {break_output_reduce_flag, "output reduction flag disagrees with its value"},
        {break_output_reduce_shape, "output shape does not fit its value"},
        {break_output_elementwise_shape, "output shape does not fit its value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        void *st = NULL;
        assert_int_equal(setup(&st), 0);
        fixture *f = st;
        build_valid(f);
        cases[i].fn(f);
        expect_rejected(f, cases[i].why);
        teardown(&st);
    }
}

/* Every epilogue sema builds from a valid golden file verifies. */
static void test_verify_accepts_sema_output(void **state)
{
    (void)state;
    const char *dir = EVT_SOURCE_DIR "/tests/golden";
    DIR *d = opendir(dir);
    assert_non_null(d);
    evt_ctx *ctx = evt_ctx_create();
    assert_non_null(ctx);
    int files = 0, epilogues = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".evt") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        evt_module *m = NULL;
        evt_status st = evt_module_parse_file(ctx, path, &m);
        if (st == EVT_OK) {
            files++;
            for (size_t i = 0; i < evt_module_epilogue_count(m); i++) {
                const ir_func *fn = evt_module_epilogue(m, i);
                strbuf why;
                sb_init(&why);
                if (!ir_verify(fn, &why))
                    fail_msg("%s: %s", e->d_name, sb_str(&why));
                sb_free(&why);
                epilogues++;
            }
        } else {
            assert_int_equal(st, EVT_ERR_SOURCE);
        }
        evt_module_destroy(m);
    }
    closedir(d);
    evt_ctx_destroy(ctx);
    assert_true(files >= 20);
    assert_true(epilogues >= 25);
}

/* ---- the float printer ------------------------------------------------ */

static const char *fmt(strbuf *sb, float v)
{
    sb_free(sb);
    ir_print_float(sb, v);
    return sb_str(sb);
}

static void test_print_float(void **state)
{
    fixture *f = *state;
    static const struct {
        float v;
        const char *want;
    } cases[] = {
        {1.0f, "1"},          {0.5f, "0.5"},         {0.1f, "0.1"},
        {200.0f, "200"},      {1000.0f, "1000"},     {-150.0f, "-150"},
        {1e9f, "1e+09"},      {1.5e10f, "1.5e+10"},  {123456792.0f, "123456792"},
        {0.001f, "0.001"},    {1e-5f, "1e-05"},      {1e-45f, "1e-45"},
        {0.0f, "0"},          {-0.0f, "-0"},         {3.4028235e38f, "3.4028235e+38"},
        {1.17549435e-38f, "1.1754944e-38"},          {16777216.0f, "16777216"},
        {(float)INFINITY, "inf"}, {-(float)INFINITY, "-inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(fmt(&f->why, cases[i].v), cases[i].want);
    assert_string_equal(fmt(&f->why, NAN), "nan");
    assert_string_equal(fmt(&f->why, -NAN), "-nan");
}

/* Every finite float reads back exactly, in no more characters than %.9g. */
static void test_print_float_round_trips(void **state)
{
    fixture *f = *state;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 50000; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        uint32_t bits = (uint32_t)seed;
        float v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            continue;
        const char *s = fmt(&f->why, v);
        float back = strtof(s, NULL);
        if (memcmp(&back, &v, sizeof v) != 0)
            fail_msg("%a printed as %s reads back as %a", (double)v, s, (double)back);
        char g9[64];
        snprintf(g9, sizeof g9, "%.9g", (double)v);
        assert_true(strlen(s) <= strlen(g9));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_leaves_are_shared, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hash_consing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_constants_by_bits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broadcast_shapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reductions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_uses_and_rehash, setup, teardown),
        cmocka_unit_test(test_op_table),
        cmocka_unit_test(test_verify_rejects_broken_ir),
        cmocka_unit_test(test_verify_accepts_sema_output),
        cmocka_unit_test_setup_teardown(test_print_float, setup, teardown),
        cmocka_unit_test_setup_teardown(test_print_float_round_trips, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
