/* test_diag.c - collecting, ordering and rendering diagnostics (text and JSON). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    arena arena;
    diag_list dl;
    strbuf out;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    arena_init(&f->arena);
    sb_init(&f->out);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sb_free(&f->out);
    arena_free(&f->arena);
    free(f);
    return 0;
}

/* Starts a diagnostic list over src (a string literal: its length is strlen). */
static diag_list *start(fixture *f, const char *file, const char *src)
{
    diag_init(&f->dl, &f->arena, file, src, src ? strlen(src) : 0);
    return &f->dl;
}

/* The location of byte `offset` of the list's source, counted as the scanner does. */
static src_loc at(const diag_list *dl, size_t offset)
{
    src_loc loc = {1, 1, offset};
    for (size_t i = 0; i < offset; i++) {
        if (dl->source[i] == '\n') {
            loc.line++;
            loc.column = 1;
        } else {
            loc.column++;
        }
    }
    return loc;
}

static const char *render(fixture *f, evt_diag_format format)
{
    sb_free(&f->out);
    diag_render(&f->dl, format, &f->out);
    return sb_str(&f->out);
}

static void test_text_with_caret(void **state)
{
    fixture *f = *state;
    diag_list *dl = start(f, "a.evt", "epilogue e {\n  out y : f32 = foo\n}\n");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 29), "unknown name '%s'", "foo");
    assert_int_equal(dl->count, 1);
    assert_int_equal(dl->errors, 1);
    assert_int_equal(dl->items[0].loc.line, 2);
    assert_int_equal(dl->items[0].loc.column, 17);
    assert_string_equal(dl->items[0].message, "unknown name 'foo'");
    assert_string_equal(dl->items[0].loc.file, "a.evt");
    assert_string_equal(render(f, EVT_DIAG_TEXT), "a.evt:2:17: error: unknown name 'foo'\n"
                                                  "    out y : f32 = foo\n"
                                                  "                  ^\n");
}

static void test_severities(void **state)
{
    fixture *f = *state;
    diag_list *dl = start(f, "s.evt", "x\n");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 0), "e");
    diag_report(dl, EVT_SEV_NOTE, at(dl, 0), "n");
    diag_report(dl, EVT_SEV_WARNING, at(dl, 1), "w");
    assert_int_equal(dl->errors, 1);
    assert_int_equal(dl->warnings, 1);
    assert_string_equal(render(f, EVT_DIAG_TEXT), "s.evt:1:1: error: e\n  x\n  ^\n"
                                                  "s.evt:1:1: note: n\n  x\n  ^\n"
                                                  "s.evt:1:2: warning: w\n  x\n   ^\n");
}

/* Tabs are copied into the caret line, so the caret lines up in any terminal. */
static void test_caret_after_tabs(void **state)
{
    fixture *f = *state;
    diag_list *dl = start(f, "t.evt", "\tout\ty = \tbad\n");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 10), "here");
    assert_int_equal(dl->items[0].loc.column, 11); /* columns count bytes */
    assert_string_equal(render(f, EVT_DIAG_TEXT), "t.evt:1:11: error: here\n"
                                                  "  \tout\ty = \tbad\n"
                                                  "  \t   \t    \t^\n");
}

/* Control bytes and NUL print as spaces; UTF-8 passes through. */
static void test_unprintable_bytes(void **state)
{
    fixture *f = *state;
    static const char src[] = "a\0b\x01\x7f \xc3\xa9 z";
    diag_init(&f->dl, &f->arena, "u.evt", src, sizeof src - 1);
    diag_report(&f->dl, EVT_SEV_ERROR, at(&f->dl, 9), "z");
    assert_string_equal(render(f, EVT_DIAG_TEXT), "u.evt:1:10: error: z\n"
                                                  "  a b   \xc3\xa9 z\n"
                                                  "           ^\n");
}

static void test_crlf_lines(void **state)
{
    fixture *f = *state;
    diag_list *dl = start(f, "c.evt", "one\r\ntwo x\r\n");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 9), "x");
    assert_string_equal(render(f, EVT_DIAG_TEXT), "c.evt:2:5: error: x\n  two x \n      ^\n");
}

/* A long line shows at most 100 bytes either side of the caret, marked with "...". */
static void test_long_line_truncated(void **state)
{
    fixture *f = *state;
    char *src = malloc(1002);
    assert_non_null(src);
    for (int i = 0; i < 1000; i++)
        src[i] = (char)('a' + i % 26);
    src[1000] = '\n';
    src[1001] = '\0';
    diag_list *dl = start(f, "l.evt", src);
    diag_report(dl, EVT_SEV_ERROR, at(dl, 500), "middle");
    const char *out = render(f, EVT_DIAG_TEXT);
    char want[512];
    int n = snprintf(want, sizeof want, "l.evt:1:501: error: middle\n  ...%.*s...\n  %104s\n", 200,
                     src + 400, "^");
    assert_true(n > 0 && (size_t)n < sizeof want);
    assert_string_equal(out, want);

    /* Near the start: cut on the right only. */
    sb_free(&f->out);
    dl = start(f, "l.evt", src);
    diag_report(dl, EVT_SEV_ERROR, at(dl, 3), "start");
    n = snprintf(want, sizeof want, "l.evt:1:4: error: start\n  %.*s...\n  %4s\n", 103, src, "^");
    assert_string_equal(render(f, EVT_DIAG_TEXT), want);

    /* Near the end: cut on the left only. */
    dl = start(f, "l.evt", src);
    diag_report(dl, EVT_SEV_ERROR, at(dl, 990), "end");
    n = snprintf(want, sizeof want, "l.evt:1:991: error: end\n  ...%.*s\n  %104s\n", 110,
                 src + 890, "^");
    assert_string_equal(render(f, EVT_DIAG_TEXT), want);
    free(src);
}

/* At the very end of the input: a caret after the last line's text, or no
 * excerpt when the input ends with a newline. */
static void test_end_of_input(void **state)
{
    fixture *f = *state;
    diag_list *dl = start(f, "e.evt", "abc");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 3), "eof");
    assert_string_equal(render(f, EVT_DIAG_TEXT), "e.evt:1:4: error: eof\n  abc\n     ^\n");

    dl = start(f, "e.evt", "abc\n");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 4), "eof");
    assert_string_equal(render(f, EVT_DIAG_TEXT), "e.evt:2:1: error: eof\n");

    dl = start(f, "e.evt", "");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 0), "empty");
    assert_string_equal(render(f, EVT_DIAG_TEXT), "e.evt:1:1: error: empty\n");
}

static void test_no_source_or_file(void **state)
{
    fixture *f = *state;
    diag_list *dl = start(f, NULL, NULL);
    diag_report(dl, EVT_SEV_WARNING, (src_loc){3, 4, 0}, "no text");
    assert_string_equal(render(f, EVT_DIAG_TEXT), "<input>:3:4: warning: no text\n");
    assert_string_equal(render(f, EVT_DIAG_JSON),
                        "{\"file\":\"\",\"line\":3,\"column\":4,\"severity\":\"warning\","
                        "\"message\":\"no text\"}\n");
}

static void test_json(void **state)
{
    fixture *f = *state;
    diag_list *dl = start(f, "dir\\\"q\".evt", "x $ y\n");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 2), "unexpected character '%c'", '$');
    diag_report(dl, EVT_SEV_NOTE, at(dl, 0), "a \"quoted\"\tnote\nover lines");
    assert_string_equal(render(f, EVT_DIAG_JSON),
                        "{\"file\":\"dir\\\\\\\"q\\\".evt\",\"line\":1,\"column\":3,"
                        "\"severity\":\"error\",\"message\":\"unexpected character '$'\"}\n"
                        "{\"file\":\"dir\\\\\\\"q\\\".evt\",\"line\":1,\"column\":1,"
                        "\"severity\":\"note\",\"message\":\"a \\\"quoted\\\"\\tnote\\nover lines\"}\n");
}

static void test_long_message(void **state)
{
    fixture *f = *state;
    diag_list *dl = start(f, "m.evt", "x");
    char big[1000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    diag_report(dl, EVT_SEV_ERROR, at(dl, 0), "<%s>", big);
    assert_int_equal(strlen(dl->items[0].message), sizeof big + 1);
    assert_int_equal(dl->items[0].message[0], '<');
    assert_int_equal(dl->items[0].message[sizeof big], '>');
}

/* Sorting: by position; each note stays right after its error; the
 * "too many errors" line stays last. */
static void test_sort(void **state)
{
    fixture *f = *state;
    diag_list *dl = start(f, "o.evt", "aaaa\nbbbb\ncccc\n");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 10), "third");
    diag_report(dl, EVT_SEV_NOTE, at(dl, 0), "note of third");
    diag_report(dl, EVT_SEV_WARNING, at(dl, 5), "second");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 2), "first b");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 1), "first a");
    diag_report(dl, EVT_SEV_NOTE, at(dl, 14), "note of first a");
    diag_report(dl, EVT_SEV_ERROR, at(dl, 10), "third, same place");
    diag_sort(dl);
    const char *want[] = {"first a", "note of first a", "first b", "second",
                          "third", "note of third", "third, same place"};
    assert_int_equal(dl->count, 7);
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(dl->items[i].message, want[i]);
    /* The excerpts follow their diagnostics. */
    const char *text = render(f, EVT_DIAG_TEXT);
    assert_non_null(strstr(text, "o.evt:3:5: note: note of first a\n  cccc\n      ^\n"));
    assert_non_null(strstr(text, "o.evt:1:1: note: note of third\n  aaaa\n  ^\n"));
}

static void test_error_cap(void **state)
{
    fixture *f = *state;
    diag_list *dl = start(f, "cap.evt", "line one\nline two\n");
    for (int i = 0; i < DIAG_MAX_ERRORS + 10; i++)
        diag_report(dl, EVT_SEV_ERROR, at(dl, (size_t)(i % 2 ? 0 : 9)), "error %d", i);
    assert_int_equal(dl->stopped, 1);
    assert_int_equal(dl->count, DIAG_MAX_ERRORS + 1);
    assert_int_equal(dl->errors, DIAG_MAX_ERRORS + 1);
    diag_report(dl, EVT_SEV_WARNING, at(dl, 0), "dropped");
    diag_report(dl, EVT_SEV_NOTE, at(dl, 0), "dropped");
    assert_int_equal(dl->count, DIAG_MAX_ERRORS + 1);
    diag_sort(dl);
    assert_string_equal(dl->items[dl->count - 1].message, "too many errors; stopping here");
    assert_string_equal(dl->items[dl->count - 2].message, "error 48"); /* line 2, last reported */
}

static void test_warning_cap(void **state)
{
    fixture *f = *state;
    diag_list *dl = start(f, "w.evt", "x\n");
    for (int i = 0; i < DIAG_MAX_WARNINGS + 20; i++)
        diag_report(dl, EVT_SEV_WARNING, at(dl, 0), "warning %d", i);
    assert_int_equal(dl->warnings, DIAG_MAX_WARNINGS);
    assert_int_equal(dl->count, DIAG_MAX_WARNINGS);
    assert_int_equal(dl->stopped, 0);
    diag_report(dl, EVT_SEV_ERROR, at(dl, 0), "errors still count");
    assert_int_equal(dl->errors, 1);
    assert_int_equal(dl->count, DIAG_MAX_WARNINGS + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_text_with_caret, setup, teardown),
        cmocka_unit_test_setup_teardown(test_severities, setup, teardown),
        cmocka_unit_test_setup_teardown(test_caret_after_tabs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unprintable_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crlf_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_line_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_end_of_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_source_or_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_message, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_warning_cap, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
