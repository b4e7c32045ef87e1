/* test_lexer.c - the scanner on its own: token kinds, values, locations, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "grammar/parse_state.h"
#include "parser.h"

#define YYSTYPE EVT_YYSTYPE
#define YYLTYPE EVT_YYLTYPE
#include "lexer.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_TOKENS = 4096 };

typedef struct token {
    int kind;
    src_loc loc;
    EVT_YYSTYPE val;
} token;

typedef struct fixture {
    arena arena;
    diag_list dl;
    ast_file file;
    token toks[MAX_TOKENS];
    size_t ntoks; /* the end-of-input token included */
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

/* Scans src[0..len) to the end (kind 0), like ast_parse but without a parser. */
static void scan_n(fixture *f, const char *src, size_t len)
{
    diag_init(&f->dl, &f->arena, "lex.evt", src, len);
    parse_state ps = {.arena = &f->arena, .diags = &f->dl, .file = &f->file, .line = 1, .column = 1};
    yyscan_t scanner;
    assert_int_equal(evt_yylex_init_extra(&ps, &scanner), 0);
    ps.scanner = scanner;
    f->ntoks = 0;
    if (setjmp(ps.lex_abort) == 0) {
        evt_yy_scan_bytes(src, (int)len, scanner);
        for (;;) {
            token *t = &f->toks[f->ntoks++];
            t->kind = evt_yylex(&t->val, &t->loc, scanner);
            if (t->kind == 0 || f->ntoks == MAX_TOKENS)
                break;
        }
    }
    evt_yylex_destroy(scanner);
    assert_int_equal(f->toks[f->ntoks - 1].kind, 0);
}

static void scan(fixture *f, const char *src)
{
    scan_n(f, src, strlen(src));
}

static void assert_token(const fixture *f, size_t i, int kind, unsigned line, unsigned column,
                         size_t offset)
{
    assert_true(i < f->ntoks);
    const token *t = &f->toks[i];
    if (t->kind != kind || t->loc.line != line || t->loc.column != column ||
        t->loc.offset != offset)
        fail_msg("token %zu: kind %d at %u:%u+%zu, want kind %d at %u:%u+%zu", i, t->kind,
                 t->loc.line, t->loc.column, t->loc.offset, kind, line, column, offset);
}

static void test_tokens_and_locations(void **state)
{
    fixture *f = *state;
    scan(f, "epilogue e {\n"
            "\tout y : f16[M, N] = acc <= 2\r\n"
            "}");
    assert_token(f, 0, TOK_EPILOGUE, 1, 1, 0);
    assert_token(f, 1, TOK_IDENT, 1, 10, 9);
    assert_string_equal(f->toks[1].val.str, "e");
    assert_token(f, 2, '{', 1, 12, 11);
    assert_token(f, 3, TOK_OUT, 2, 2, 14); /* a tab is one column */
    assert_token(f, 4, TOK_IDENT, 2, 6, 18);
    assert_token(f, 5, ':', 2, 8, 20);
    assert_token(f, 6, TOK_ELEM, 2, 10, 22);
    assert_int_equal(f->toks[6].val.elem, EVT_F16);
    assert_token(f, 7, '[', 2, 13, 25);
    assert_token(f, 8, TOK_IDENT, 2, 14, 26);
    assert_token(f, 9, ',', 2, 15, 27);
    assert_token(f, 10, TOK_IDENT, 2, 17, 29);
    assert_token(f, 11, ']', 2, 18, 30);
    assert_token(f, 12, '=', 2, 20, 32);
    assert_token(f, 13, TOK_IDENT, 2, 22, 34);
    assert_token(f, 14, TOK_LE, 2, 26, 38);
    assert_token(f, 15, TOK_NUMBER, 2, 29, 41);
    assert_token(f, 16, '}', 3, 1, 44); /* \r\n is one line break */
    assert_token(f, 17, 0, 3, 2, 45);   /* the end, where the input ends */
    assert_int_equal(f->ntoks, 18);
    assert_int_equal(f->dl.count, 0);
}

static void test_keywords_and_identifiers(void **state)
{
    fixture *f = *state;
    scan(f, "epilogue kernel in param let out with input in_ _in epilogues Kernel "
            "f32 f16 bf16 i8 i32 e4m3 e5m2 f64 f32x bf16_ M N row col gemm relu _ x9");
    static const int kinds[] = {TOK_EPILOGUE, TOK_KERNEL, TOK_IN, TOK_PARAM, TOK_LET, TOK_OUT,
                                TOK_WITH,     TOK_IDENT,  TOK_IDENT, TOK_IDENT, TOK_IDENT,
                                TOK_IDENT,    TOK_ELEM,   TOK_ELEM, TOK_ELEM,  TOK_ELEM,
                                TOK_ELEM,     TOK_ELEM,   TOK_ELEM, TOK_IDENT, TOK_IDENT,
                                TOK_IDENT,    TOK_IDENT,  TOK_IDENT, TOK_IDENT, TOK_IDENT,
                                TOK_IDENT,    TOK_IDENT,  TOK_IDENT, TOK_IDENT, 0};
    static const evt_elem elems[] = {EVT_F32, EVT_F16,  EVT_BF16, EVT_I8,
                                     EVT_I32, EVT_E4M3, EVT_E5M2};
    assert_int_equal(f->ntoks, sizeof kinds / sizeof kinds[0]);
    for (size_t i = 0; i < f->ntoks; i++)
        assert_int_equal(f->toks[i].kind, kinds[i]);
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(f->toks[12 + i].val.elem, elems[i]);
    assert_string_equal(f->toks[7].val.str, "input");
    assert_string_equal(f->toks[19].val.str, "f64");
    assert_string_equal(f->toks[29].val.str, "x9");
    assert_int_equal(f->dl.count, 0);
}

static void test_numbers(void **state)
{
    fixture *f = *state;
    scan(f, "1 0.5 3. .25 1e-3 2E+2 1e3 1.5e2 007 0. 0e5 3.4028235e38 1e-45 16777217");
    static const float want[] = {1.0f, 0.5f, 3.0f,  .25f,  1e-3f, 2e2f,         1e3f,
                                 1.5e2f, 7.0f, 0.0f, 0.0f, 3.4028235e38f, 1e-45f, 16777216.0f};
    assert_int_equal(f->ntoks, sizeof want / sizeof want[0] + 1);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(f->toks[i].kind, TOK_NUMBER);
        assert_memory_equal(&f->toks[i].val.num, &want[i], sizeof(float));
    }
    assert_int_equal(f->dl.count, 0);
}

static void test_number_range(void **state)
{
    fixture *f = *state;
    scan(f, "1e39 1e-50 0.0e-99");
    assert_int_equal(f->toks[0].kind, TOK_NUMBER);
    assert_int_equal(f->toks[1].kind, TOK_NUMBER);
    assert_true(f->toks[1].val.num == 0.0f);
    assert_int_equal(f->dl.count, 2); /* an error, a warning; no warning for a zero */
    assert_int_equal(f->dl.items[0].severity, EVT_SEV_ERROR);
    assert_string_equal(f->dl.items[0].message, "number '1e39' is too large for f32");
    assert_int_equal(f->dl.items[1].severity, EVT_SEV_WARNING);
    assert_int_equal(f->dl.items[1].loc.column, 6);
}

/* A number glued to letters is one bad number token, not a number and a name. */
static void test_malformed_numbers(void **state)
{
    fixture *f = *state;
    scan(f, "2x 1e 1.5f .5e 1.5.3 4");
    assert_int_equal(f->toks[0].kind, TOK_NUMBER);
    assert_int_equal(f->toks[1].kind, TOK_NUMBER);
    assert_int_equal(f->toks[2].kind, TOK_NUMBER);
    assert_int_equal(f->toks[3].kind, TOK_NUMBER);
    assert_int_equal(f->toks[4].kind, TOK_NUMBER); /* 1.5 */
    assert_true(f->toks[4].val.num == 1.5f);
    assert_int_equal(f->toks[5].kind, TOK_NUMBER); /* .3 */
    assert_true(f->toks[5].val.num == 0.3f);
    assert_token(f, 6, TOK_NUMBER, 1, 22, 21);
    assert_int_equal(f->dl.count, 4);
    assert_string_equal(f->dl.items[2].message, "malformed number '1.5f'");
}

static void test_operators(void **state)
{
    fixture *f = *state;
    scan(f, "<=>===!=<>=?:+-*/()[]{},;");
    static const int kinds[] = {TOK_LE, TOK_GE, TOK_EQ, TOK_NE, '<', TOK_GE, '?', ':', '+', '-',
                                '*',    '/',    '(',    ')',    '[', ']',    '{', '}', ',', ';', 0};
    assert_int_equal(f->ntoks, sizeof kinds / sizeof kinds[0]);
    for (size_t i = 0; i < f->ntoks; i++)
        assert_int_equal(f->toks[i].kind, kinds[i]);
    assert_int_equal(f->dl.count, 0);
}

static void test_comments(void **state)
{
    fixture *f = *state;
    scan(f, "a // b c\n"
            "/* d\n e */ f/**/g /***/ h /* // */ i // /* j\n"
            "k");
    assert_token(f, 0, TOK_IDENT, 1, 1, 0);
    assert_token(f, 1, TOK_IDENT, 3, 7, 20); /* f */
    assert_token(f, 2, TOK_IDENT, 3, 12, 25); /* g */
    assert_token(f, 3, TOK_IDENT, 3, 20, 33); /* h */
    assert_token(f, 4, TOK_IDENT, 3, 31, 44); /* i */
    assert_token(f, 5, TOK_IDENT, 4, 1, 54); /* k */
    assert_token(f, 6, 0, 4, 2, 55);
    assert_int_equal(f->dl.count, 0);
}

static void test_unterminated_comment(void **state)
{
    fixture *f = *state;
    scan(f, "a\n  /* never\n closed");
    assert_int_equal(f->toks[0].kind, TOK_IDENT);
    assert_int_equal(f->toks[1].kind, 0);
    assert_int_equal(f->dl.count, 1);
    assert_string_equal(f->dl.items[0].message, "unterminated /* comment");
    assert_int_equal(f->dl.items[0].loc.line, 2);
    assert_int_equal(f->dl.items[0].loc.column, 3);
    assert_int_equal(f->dl.offsets[0], 4);
}

/* NUL bytes are bad characters like any other, not the end of the input. */
static void test_nul_bytes(void **state)
{
    fixture *f = *state;
    static const char src[] = "a\0b\0\0 c";
    scan_n(f, src, sizeof src - 1);
    assert_token(f, 0, TOK_IDENT, 1, 1, 0);
    assert_token(f, 1, TOK_IDENT, 1, 3, 2);
    assert_token(f, 2, TOK_IDENT, 1, 7, 6);
    assert_token(f, 3, 0, 1, 8, 7);
    assert_int_equal(f->dl.count, 2);
    assert_string_equal(f->dl.items[0].message, "unexpected byte 0x00");
    assert_int_equal(f->dl.items[0].loc.column, 2);
    assert_string_equal(f->dl.items[1].message, "unexpected bytes starting with 0x00");
    assert_int_equal(f->dl.items[1].loc.column, 4);
}

/* Runs of NUL bytes, in code and in comments, scan in linear time (flex
 * rescans a token at each NUL inside it) and make one error per run. */
static void test_nul_runs(void **state)
{
    fixture *f = *state;
    enum { BIG = 1 << 20 };
    char *src = calloc(1, BIG + 64);
    assert_non_null(src);
    memcpy(src + BIG, " a", 2);
    scan_n(f, src, BIG + 2);
    assert_int_equal(f->ntoks, 2);
    assert_token(f, 0, TOK_IDENT, 1, BIG + 2, BIG + 1);
    assert_int_equal(f->dl.count, 1);
    assert_string_equal(f->dl.items[0].message, "unexpected bytes starting with 0x00");

    memcpy(src, "/*", 2);
    memcpy(src + BIG, "*/b", 3);
    scan_n(f, src, BIG + 3);
    assert_int_equal(f->ntoks, 2);
    assert_int_equal(f->toks[0].kind, TOK_IDENT);
    assert_int_equal(f->dl.count, 0);

    memcpy(src, "//", 2);
    memcpy(src + BIG, "\nc", 2);
    scan_n(f, src, BIG + 2);
    assert_int_equal(f->ntoks, 2);
    assert_token(f, 0, TOK_IDENT, 2, 1, BIG + 1);
    assert_int_equal(f->dl.count, 0);
    free(src);

    /* Bad bytes of every kind back to back are one run, reported at its start. */
    static const char mixed[] = "x $\0@\x80\0!. y";
    scan_n(f, mixed, sizeof mixed - 1);
    assert_int_equal(f->ntoks, 3);
    assert_int_equal(f->dl.count, 1);
    assert_string_equal(f->dl.items[0].message, "unexpected character '$'");
    assert_int_equal(f->dl.items[0].loc.column, 3);
}

static void test_bad_characters(void **state)
{
    fixture *f = *state;
    scan(f, "a $ b \x80\x81\xff c ! . @@ d");
    assert_int_equal(f->ntoks, 5); /* a b c d and the end */
    assert_token(f, 2, TOK_IDENT, 1, 11, 10);
    assert_token(f, 3, TOK_IDENT, 1, 20, 19);
    assert_int_equal(f->dl.count, 5);
    assert_string_equal(f->dl.items[0].message, "unexpected character '$'");
    assert_string_equal(f->dl.items[1].message, "unexpected bytes starting with 0x80");
    assert_string_equal(f->dl.items[2].message, "unexpected character '!'");
    assert_string_equal(f->dl.items[3].message, "unexpected character '.'");
    assert_string_equal(f->dl.items[4].message, "unexpected character '@'");
    assert_int_equal(f->dl.items[4].loc.column, 17);
}

static void test_long_identifier(void **state)
{
    fixture *f = *state;
    char *src = malloc(3000);
    assert_non_null(src);
    memset(src, 'q', 2000);
    strcpy(src + 2000, " z");
    scan(f, src);
    assert_int_equal(f->toks[0].kind, TOK_IDENT);
    assert_int_equal(strlen(f->toks[0].val.str), PARSE_MAX_IDENT);
    assert_token(f, 1, TOK_IDENT, 1, 2002, 2001);
    assert_int_equal(f->dl.count, 1);
    assert_string_equal(f->dl.items[0].message,
                        "identifier 'qqqqqqqqqqqqqqqqqqqq...' is 2000 bytes long; the limit is 1024");
    free(src);
}

/* After DIAG_MAX_ERRORS the scanner winds down: at most the token it was
 * reading when the cap was reached, then the end. */
static void test_stops_at_error_cap(void **state)
{
    fixture *f = *state;
    char src[400] = "";
    for (int i = 0; i < 60; i++)
        strcat(src, "$ ");
    strcat(src, "tail");
    scan(f, src);
    assert_true(f->ntoks <= 2);
    assert_int_equal(f->dl.stopped, 1);
    assert_int_equal(f->dl.errors, DIAG_MAX_ERRORS + 1);
}

/* `epilogue` or `kernel` inside an open body closes it first, with an error. */
static void test_missing_close_brace(void **state)
{
    fixture *f = *state;
    scan(f, "{ a\nkernel { }");
    assert_int_equal(f->toks[0].kind, '{');
    assert_int_equal(f->toks[1].kind, TOK_IDENT);
    assert_token(f, 2, '}', 2, 1, 4);
    assert_token(f, 3, TOK_KERNEL, 2, 1, 4);
    assert_token(f, 4, '{', 2, 8, 11);
    assert_token(f, 5, '}', 2, 10, 13);
    assert_int_equal(f->ntoks, 7);
    assert_int_equal(f->dl.count, 1);
    assert_string_equal(f->dl.items[0].message, "missing '}' before 'kernel'");
}

static void test_empty_input(void **state)
{
    fixture *f = *state;
    scan(f, "");
    assert_token(f, 0, 0, 1, 1, 0);
    scan(f, " \t\r\n\n // only a comment");
    assert_int_equal(f->ntoks, 1);
    assert_int_equal(f->dl.count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_tokens_and_locations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keywords_and_identifiers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_number_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_operators, setup, teardown),
        cmocka_unit_test_setup_teardown(test_comments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unterminated_comment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nul_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nul_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_characters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_identifier, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stops_at_error_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_close_brace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_input, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
