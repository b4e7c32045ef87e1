/* test_parser.c - ast_parse on buffers: the tree, its locations, limits and recovery. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "grammar/parse_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    arena arena;
    diag_list dl;
    ast_file file;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    arena_init(&f->arena);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    arena_free(&f->arena);
    free(f);
    return 0;
}

static const ast_file *parse_n(fixture *f, const char *src, size_t len)
{
    memset(&f->file, 0, sizeof f->file);
    diag_init(&f->dl, &f->arena, "p.evt", src, len);
    ast_parse(&f->arena, &f->dl, src, len, &f->file);
    return &f->file;
}

static const ast_file *parse(fixture *f, const char *src)
{
    return parse_n(f, src, strlen(src));
}

/* The expression of the only statement of the only epilogue of `body`. */
static const ast_expr *expr_of(fixture *f, const char *expr)
{
    char src[512];
    snprintf(src, sizeof src, "epilogue e { out y : f32[M, N] = %s }", expr);
    const ast_file *file = parse(f, src);
    assert_int_equal(f->dl.count, 0);
    assert_int_equal(file->nepilogues, 1);
    assert_int_equal(file->epilogues[0]->nstmts, 1);
    return file->epilogues[0]->stmts[0]->expr;
}

/* Writes e as a fully parenthesised S-expression, to compare whole trees. */
static void sexpr(const ast_expr *e, char *buf, size_t cap)
{
    static const char *const ops[] = {"+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!="};
    size_t n = strlen(buf);
    switch (e->kind) {
    case AST_NUM: snprintf(buf + n, cap - n, "%g", (double)e->num); return;
    case AST_NAME: snprintf(buf + n, cap - n, "%s", e->name); return;
    case AST_ERROR: snprintf(buf + n, cap - n, "<error>"); return;
    case AST_NEG: snprintf(buf + n, cap - n, "(neg "); break;
    case AST_BINARY: snprintf(buf + n, cap - n, "(%s ", ops[e->op]); break;
    case AST_SELECT: snprintf(buf + n, cap - n, "(? "); break;
    case AST_CALL: snprintf(buf + n, cap - n, "(%s%s", e->name, e->nargs ? " " : ""); break;
    }
    for (size_t i = 0; i < e->nargs; i++) {
        if (i)
            strncat(buf, " ", cap - strlen(buf) - 1);
        sexpr(e->args[i], buf, cap);
    }
    strncat(buf, ")", cap - strlen(buf) - 1);
}

static void assert_tree(fixture *f, const char *expr, const char *want)
{
    char got[1024] = "";
    sexpr(expr_of(f, expr), got, sizeof got);
    if (strcmp(got, want) != 0)
        fail_msg("'%s' parsed as %s, want %s", expr, got, want);
}

static void test_precedence_and_associativity(void **state)
{
    fixture *f = *state;
    assert_tree(f, "a + b * c", "(+ a (* b c))");
    assert_tree(f, "a * b + c", "(+ (* a b) c)");
    assert_tree(f, "a - b - c", "(- (- a b) c)");
    assert_tree(f, "a / b / c", "(/ (/ a b) c)");
    assert_tree(f, "a - b / c * d", "(- a (* (/ b c) d))");
    assert_tree(f, "(a - b) * c", "(* (- a b) c)");
    assert_tree(f, "-a * b", "(* (neg a) b)");
    assert_tree(f, "- -a", "(neg (neg a))");
    assert_tree(f, "a - -b", "(- a (neg b))");
    assert_tree(f, "-(a + b)", "(neg (+ a b))");
    assert_tree(f, "a + b < c - d", "(< (+ a b) (- c d))");
    assert_tree(f, "a < b == c", "(== (< a b) c)");
    assert_tree(f, "a <= b != c >= d", "(>= (!= (<= a b) c) d)");
    assert_tree(f, "a > b ? c : d", "(? (> a b) c d)");
    assert_tree(f, "a ? b : c ? d : e", "(? a b (? c d e))");
    assert_tree(f, "a ? b ? c : d : e", "(? a (? b c d) e)");
    assert_tree(f, "a < b ? c + d : e * f", "(? (< a b) (+ c d) (* e f))");
    assert_tree(f, "f(a, b + c, g())", "(f a (+ b c) (g))");
    assert_tree(f, "relu(-x) * 2.5", "(* (relu (neg x)) 2.5)");
    assert_tree(f, "((((x))))", "x");
}

static void test_statements(void **state)
{
    fixture *f = *state;
    const ast_file *file = parse(f, "epilogue first {\n"
                                    "  in a : bf16[M, N]; in b : i8[N] in c : e4m3[M] in s : e5m2\n"
                                    "  param p : f32 param q : f16 = -2.5; param r : i32 = 3e2\n"
                                    "  let l = a\n"
                                    "  out o : f16 = reduce_sum(l)\n"
                                    "}\n"
                                    "epilogue second { out z : f32[M, N] = acc }");
    assert_int_equal(f->dl.count, 0);
    assert_int_equal(file->nepilogues, 2);
    const ast_epilogue *ep = file->epilogues[0];
    assert_string_equal(ep->name, "first");
    assert_int_equal(ep->loc.line, 1);
    assert_int_equal(ep->loc.column, 10);
    assert_int_equal(ep->syntax_errors, 0);
    assert_int_equal(ep->nstmts, 9);
    static const struct {
        ast_stmt_kind kind;
        const char *name;
        evt_elem elem;
        evt_shape shape;
        unsigned line, column, name_column;
    } want[] = {
        {AST_IN, "a", EVT_BF16, EVT_SHAPE_MN, 2, 3, 6},
        {AST_IN, "b", EVT_I8, EVT_SHAPE_N, 2, 22, 25},
        {AST_IN, "c", EVT_E4M3, EVT_SHAPE_M, 2, 35, 38},
        {AST_IN, "s", EVT_E5M2, EVT_SHAPE_SCALAR, 2, 50, 53},
        {AST_PARAM, "p", EVT_F32, EVT_SHAPE_SCALAR, 3, 3, 9},
        {AST_PARAM, "q", EVT_F16, EVT_SHAPE_SCALAR, 3, 17, 23},
        {AST_PARAM, "r", EVT_I32, EVT_SHAPE_SCALAR, 3, 39, 45},
        {AST_LET, "l", EVT_F32, EVT_SHAPE_SCALAR, 4, 3, 7},
        {AST_OUT, "o", EVT_F16, EVT_SHAPE_SCALAR, 5, 3, 7},
    };
    for (size_t i = 0; i < ep->nstmts; i++) {
        const ast_stmt *st = ep->stmts[i];
        assert_int_equal(st->kind, want[i].kind);
        assert_string_equal(st->name, want[i].name);
        if (st->kind != AST_LET) {
            assert_int_equal(st->elem, want[i].elem);
            assert_int_equal(st->shape, want[i].shape);
        }
        assert_int_equal(st->loc.line, want[i].line);
        assert_int_equal(st->loc.column, want[i].column);
        assert_int_equal(st->name_loc.line, want[i].line);
        assert_int_equal(st->name_loc.column, want[i].name_column);
        assert_int_equal(st->poisoned, 0);
    }
    assert_int_equal(ep->stmts[4]->has_default, 0);
    assert_int_equal(ep->stmts[5]->has_default, 1);
    assert_true(ep->stmts[5]->default_value == -2.5f);
    assert_true(ep->stmts[6]->default_value == 300.0f);
    assert_int_equal(ep->stmts[7]->expr->kind, AST_NAME);
    assert_int_equal(ep->stmts[8]->expr->kind, AST_CALL);
    assert_string_equal(file->epilogues[1]->name, "second");
}

/* Every node sits at its operator, name or literal. */
static void test_expression_locations(void **state)
{
    fixture *f = *state;
    /* The expression starts at column 34. */
    const ast_expr *e = expr_of(f, "x > 0 ? -relu(x) : 2 * y");
    assert_int_equal(e->kind, AST_SELECT);
    assert_int_equal(e->loc.column, 40);                   /* '?' */
    assert_int_equal(e->args[0]->loc.column, 36);          /* '>' */
    assert_int_equal(e->args[0]->args[0]->loc.column, 34); /* x */
    assert_int_equal(e->args[0]->args[1]->loc.column, 38); /* 0 */
    assert_int_equal(e->args[1]->kind, AST_NEG);
    assert_int_equal(e->args[1]->loc.column, 42);          /* '-' */
    assert_int_equal(e->args[1]->args[0]->loc.column, 43); /* relu */
    assert_int_equal(e->args[1]->args[0]->args[0]->loc.column, 48);
    assert_int_equal(e->args[2]->loc.column, 55);          /* '*' */
    assert_int_equal(e->args[2]->args[0]->loc.offset, 52); /* 2 */
    assert_int_equal(e->args[2]->args[0]->loc.line, 1);
    assert_int_equal(e->depth, 4);
}

static void test_kernels(void **state)
{
    fixture *f = *state;
    const ast_file *file = parse(f, "kernel k1 = gemm(a: f16 row, b: bf16 col, acc: f32) with e;\n"
                                    "kernel k2 = conv2d_fprop(x: f16, w: f16) with e2");
    assert_int_equal(f->dl.count, 0);
    assert_int_equal(file->nkernels, 2);
    const ast_kernel *k = file->kernels[0];
    assert_string_equal(k->name, "k1");
    assert_int_equal(k->loc.column, 8);
    assert_string_equal(k->mainloop, "gemm");
    assert_int_equal(k->mainloop_loc.column, 13);
    assert_int_equal(k->noperands, 3);
    assert_string_equal(k->operands[0].name, "a");
    assert_int_equal(k->operands[0].elem, EVT_F16);
    assert_string_equal(k->operands[0].layout, "row");
    assert_int_equal(k->operands[0].layout_loc.column, 25);
    assert_string_equal(k->operands[1].name, "b");
    assert_int_equal(k->operands[1].elem, EVT_BF16);
    assert_string_equal(k->operands[1].layout, "col");
    assert_int_equal(k->operands[1].loc.column, 30);
    assert_string_equal(k->operands[2].name, "acc");
    assert_null(k->operands[2].layout);
    assert_string_equal(k->epilogue, "e");
    assert_int_equal(k->epilogue_loc.column, 58);
    k = file->kernels[1];
    assert_string_equal(k->mainloop, "conv2d_fprop");
    assert_int_equal(k->noperands, 2);
    assert_null(k->operands[0].layout);
    assert_string_equal(k->epilogue, "e2");
    assert_int_equal(k->loc.line, 2);
}

static void test_empty_inputs(void **state)
{
    fixture *f = *state;
    static const char *const srcs[] = {"", "\n\n", "// c\n/* d */", "epilogue e { }"};
    for (size_t i = 0; i < 4; i++) {
        const ast_file *file = parse(f, srcs[i]);
        assert_int_equal(f->dl.count, 0);
        assert_int_equal(file->nkernels, 0);
        assert_int_equal(file->nepilogues, i == 3);
    }
}

/* Independent syntax errors are each reported once; what follows them is kept. */
static void test_recovery(void **state)
{
    fixture *f = *state;
    const ast_file *file = parse(f, "epilogue a {\n"
                                    "  in x f32\n"          /* missing ':' */
                                    "  let y = x + * 2\n"   /* missing operand */
                                    "  out z : f32[M, N] = acc\n"
                                    "}\n"
                                    "junk here\n"           /* top-level junk */
                                    "epilogue b { out w : f32[M, N] = acc }\n"
                                    "kernel k = gemm(a f16 row) with a\n" /* missing ':' */
                                    "kernel k2 = gemm(a: f16 row, b: f16 col) with b\n");
    assert_int_equal(f->dl.count, 4);
    assert_int_equal(f->dl.items[0].loc.line, 2);
    assert_int_equal(f->dl.items[1].loc.line, 3);
    assert_int_equal(f->dl.items[2].loc.line, 6);
    assert_int_equal(f->dl.items[3].loc.line, 8);
    assert_int_equal(file->nepilogues, 2);
    const ast_epilogue *a = file->epilogues[0];
    assert_int_equal(a->syntax_errors, 2);
    assert_int_equal(file->epilogues[1]->syntax_errors, 0);
    /* Statements lost to an error still define their names, poisoned. */
    assert_int_equal(a->nstmts, 3);
    assert_string_equal(a->stmts[0]->name, "x");
    assert_int_equal(a->stmts[0]->poisoned, 1);
    assert_string_equal(a->stmts[1]->name, "y");
    assert_int_equal(a->stmts[1]->poisoned, 1);
    assert_string_equal(a->stmts[2]->name, "z");
    assert_int_equal(a->stmts[2]->poisoned, 0);
    assert_int_equal(file->nkernels, 1);
    assert_string_equal(file->kernels[0]->name, "k2");
}

static void test_missing_brace_recovered(void **state)
{
    fixture *f = *state;
    const ast_file *file = parse(f, "epilogue a { out y : f32[M, N] = acc\n"
                                    "epilogue b { out y : f32[M, N] = acc }\n");
    assert_int_equal(f->dl.count, 1);
    assert_string_equal(f->dl.items[0].message, "missing '}' before 'epilogue'");
    assert_int_equal(file->nepilogues, 2);
    assert_int_equal(file->epilogues[0]->nstmts, 1);
    assert_int_equal(file->epilogues[1]->nstmts, 1);
}

/* A NUL byte is one error; the statements after it are still parsed. */
static void test_nul_byte_inside_source(void **state)
{
    fixture *f = *state;
    static const char src[] = "epilogue e { in a : f32 \0 out y : f32[M, N] = acc + a }";
    const ast_file *file = parse_n(f, src, sizeof src - 1);
    assert_int_equal(f->dl.count, 1);
    assert_string_equal(f->dl.items[0].message, "unexpected byte 0x00");
    assert_int_equal(f->dl.items[0].loc.column, 25);
    assert_int_equal(file->nepilogues, 1);
    assert_int_equal(file->epilogues[0]->nstmts, 2);
    assert_int_equal(file->epilogues[0]->stmts[1]->kind, AST_OUT);
}

static char *nested(const char *open, int n, const char *leaf, const char *close)
{
    size_t cap = strlen(open) * (size_t)n + strlen(leaf) + strlen(close) * (size_t)n + 64;
    char *s = malloc(cap);
    assert_non_null(s);
    strcpy(s, "epilogue e { out y : f32[M, N] = ");
    for (int i = 0; i < n; i++)
        strcat(s, open);
    strcat(s, leaf);
    for (int i = 0; i < n; i++)
        strcat(s, close);
    strcat(s, " }");
    return s;
}

/* AST_MAX_DEPTH levels are fine; one more is one error and an AST_ERROR node. */
static void test_depth_limit(void **state)
{
    fixture *f = *state;
    char *ok = nested("relu(", AST_MAX_DEPTH - 1, "acc", ")");
    const ast_file *file = parse(f, ok);
    assert_int_equal(f->dl.count, 0);
    assert_int_equal(file->epilogues[0]->stmts[0]->expr->depth, AST_MAX_DEPTH);
    free(ok);

    char *deep = nested("-", AST_MAX_DEPTH, "acc", "");
    file = parse(f, deep);
    assert_int_equal(f->dl.count, 1);
    assert_string_equal(f->dl.items[0].message, "expression is nested more than 1000 levels deep");
    assert_int_equal(file->epilogues[0]->stmts[0]->expr->kind, AST_ERROR);
    free(deep);
}

/* More open constructs than the parser's stack holds: one error, no crash. */
static void test_parser_stack_limit(void **state)
{
    fixture *f = *state;
    char *deep = nested("(", PARSE_MAX_STACK + 100, "acc", ")");
    parse(f, deep);
    assert_int_equal(f->dl.count, 1);
    assert_string_equal(f->dl.items[0].message,
                        "the input is nested too deeply (more than 5000 open constructs)");
    free(deep);
}

/* Parentheses alone add no depth: they make no nodes. */
static void test_parentheses_add_no_depth(void **state)
{
    fixture *f = *state;
    char *src = nested("(", 3000, "acc", ")");
    const ast_file *file = parse(f, src);
    assert_int_equal(f->dl.count, 0);
    assert_int_equal(file->epilogues[0]->stmts[0]->expr->kind, AST_NAME);
    free(src);
}

static void test_shape_errors(void **state)
{
    fixture *f = *state;
    const ast_file *file = parse(f, "epilogue e { in a : f32[N, M] in b : f32[K] in c : f32[M] }");
    assert_int_equal(f->dl.count, 2);
    assert_string_equal(f->dl.items[0].message, "a shape is [M, N], [M] or [N]");
    assert_int_equal(f->dl.items[0].loc.column, 25);
    assert_int_equal(f->dl.items[1].loc.column, 42);
    assert_int_equal(file->epilogues[0]->syntax_errors, 2);
    assert_int_equal(file->epilogues[0]->stmts[2]->shape, EVT_SHAPE_M);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_precedence_and_associativity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_statements, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expression_locations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recovery, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_brace_recovered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nul_byte_inside_source, setup, teardown),
        cmocka_unit_test_setup_teardown(test_depth_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parser_stack_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parentheses_add_no_depth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shape_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
