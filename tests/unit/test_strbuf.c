/* test_strbuf.c - growable strings: appending, formatting, JSON escaping, failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support/strbuf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The huge-request tests expect malloc to fail, not ASan to stop the run. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

static int setup(void **state)
{
    strbuf *sb = malloc(sizeof *sb);
    if (!sb)
        return -1;
    sb_init(sb);
    *state = sb;
    return 0;
}

static int teardown(void **state)
{
    strbuf *sb = *state;
    sb_free(sb);
    free(sb);
    return 0;
}

static void test_empty(void **state)
{
    strbuf *sb = *state;
    assert_string_equal(sb_str(sb), "");
    assert_int_equal(sb->len, 0);
    sb_puts(sb, "");
    assert_string_equal(sb_str(sb), "");
    assert_int_equal(sb->len, 0);
}

static void test_append(void **state)
{
    strbuf *sb = *state;
    sb_puts(sb, "ab");
    sb_putc(sb, 'c');
    sb_putn(sb, "defgh", 2);
    sb_printf(sb, "[%d|%s|%.2f]", 42, "x", 0.5);
    assert_string_equal(sb_str(sb), "abcde[42|x|0.50]");
    assert_int_equal(sb->len, strlen("abcde[42|x|0.50]"));
    assert_int_equal(sb->failed, 0);
}

/* Growth past the first 256 bytes and many doublings keeps every byte. */
static void test_growth(void **state)
{
    strbuf *sb = *state;
    for (int i = 0; i < 100000; i++)
        sb_putc(sb, (char)('a' + i % 26));
    assert_int_equal(sb->len, 100000);
    assert_true(sb->cap > sb->len);
    for (int i = 0; i < 100000; i++)
        assert_int_equal(sb->data[i], 'a' + i % 26);
    assert_int_equal(sb->data[100000], '\0');
}

static void test_long_printf(void **state)
{
    strbuf *sb = *state;
    char big[3000];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sb_puts(sb, "<");
    sb_printf(sb, "%s|%s", big, big);
    assert_int_equal(sb->len, 1 + 2 * (sizeof big - 1) + 1);
    assert_int_equal(sb->data[0], '<');
    assert_int_equal(sb->data[sizeof big], '|');
    assert_int_equal(sb->data[sb->len], '\0');
}

/* sb_printf formats by itself (support/strbuf.c): whatever the conversion,
 * it must write what snprintf writes, also on a buffer already holding text. */
#define AS_SNPRINTF(sb, ...)                                                   \
    do {                                                                       \
        char want_[512];                                                       \
        snprintf(want_, sizeof want_, __VA_ARGS__);                            \
        sb_clear(sb);                                                          \
        sb_puts(sb, "<");                                                      \
        sb_printf(sb, __VA_ARGS__);                                            \
        assert_string_equal(sb_str(sb) + 1, want_);                            \
        assert_int_equal((sb)->len, 1 + strlen(want_));                        \
    } while (0)

static void test_printf_as_snprintf(void **state)
{
    strbuf *sb = *state;
    AS_SNPRINTF(sb, "plain, no conversion");
    AS_SNPRINTF(sb, "%s|%s|%c|%%|%s", "abc", "", 'x', "tail");
    AS_SNPRINTF(sb, "%d %d %d %i %u %u", 0, -7, INT_MIN, INT_MAX, 0u, UINT_MAX);
    AS_SNPRINTF(sb, "%ld %ld %lu %lld %lld %llu %zu", LONG_MIN, 42L, ULONG_MAX, LLONG_MIN, LLONG_MAX,
                ULLONG_MAX, (size_t)SIZE_MAX);
    AS_SNPRINTF(sb, "%5d|%-5d|%05d|%+d|% d|%x|%08x|%#X|%o", 42, 42, -42, 42, 42, 0xbeefu, 0xbeefu, 255u, 8u);
    /* %hhd and %hu of ints out of their range: both must narrow them as
     * libc does, which clang's -Wformat calls a mismatch */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
    AS_SNPRINTF(sb, "%lx %016llx %zx %zd %td %jd %hhd %hu", 0xfffffffful, 0x0123456789abcdefull,
                (size_t)4096, (ptrdiff_t)-3, (ptrdiff_t)77, (intmax_t)-9, 300, 70000);
#pragma GCC diagnostic pop
    AS_SNPRINTF(sb, "%.9g %g %.3f %e %.2e %a %10.4f %-10.2g|", 0.1f, 1e30, 3.14159, -0.0, 6.02e23, 1.0,
                2.5, 1e-7);
    AS_SNPRINTF(sb, "%Lg %.0f %f %f", (long double)1.5, 0.5, 1.0 / 0.0, -1.0 / 0.0);
    AS_SNPRINTF(sb, "%.*s|%*d|%-*d|%.*f|%*.*s|", 2, "abcdef", 6, 7, 6, 7, 3, 1.0 / 3, 5, 1, "xyz");
    AS_SNPRINTF(sb, "%*d|%.*d|", -4, 9, -1, 12); /* negative width: '-'; negative precision: none */
    AS_SNPRINTF(sb, "%5s|%-5s|%.1s|%c%c", "ab", "ab", "ab", 'y', 'z');
    AS_SNPRINTF(sb, "%p", (void *)sb);
    AS_SNPRINTF(sb, "%s", "a long run %% of text that the formatter copies whole, a long run of text");
    AS_SNPRINTF(sb, "trailing %d", 1);
}

/* sb_clear keeps the memory for the next text. */
static void test_clear(void **state)
{
    strbuf *sb = *state;
    sb_puts(sb, "first text");
    char *data = sb->data;
    sb_clear(sb);
    assert_string_equal(sb_str(sb), "");
    assert_int_equal(sb->len, 0);
    assert_ptr_equal(sb->data, data);
    sb_puts(sb, "second");
    assert_string_equal(sb_str(sb), "second");
    sb_putn(sb, "x", SIZE_MAX);
    assert_int_equal(sb->failed, 1);
    sb_clear(sb); /* a failed buffer starts again empty */
    assert_int_equal(sb->failed, 0);
    sb_puts(sb, "third");
    assert_string_equal(sb_str(sb), "third");
}

static void test_nul_bytes(void **state)
{
    strbuf *sb = *state;
    sb_putn(sb, "a\0b", 3);
    sb_putc(sb, '\0');
    assert_int_equal(sb->len, 4);
    assert_memory_equal(sb->data, "a\0b\0", 5);
}

static const char *json(strbuf *sb, const char *s)
{
    sb_free(sb);
    sb_put_json_escaped(sb, s);
    return sb_str(sb);
}

static void test_json_escaping(void **state)
{
    strbuf *sb = *state;
    assert_string_equal(json(sb, "plain text"), "plain text");
    assert_string_equal(json(sb, "say \"hi\""), "say \\\"hi\\\"");
    assert_string_equal(json(sb, "a\\b"), "a\\\\b");
    assert_string_equal(json(sb, "l1\nl2\tx\ry"), "l1\\nl2\\tx\\ry");
    assert_string_equal(json(sb, "\x01\x1f\x7f"), "\\u0001\\u001f\\u007f");
    assert_string_equal(json(sb, "/'<>"), "/'<>");
    assert_string_equal(json(sb, ""), "");
}

/* JSON text is Unicode: valid UTF-8 passes through as the same characters;
 * bytes that are not UTF-8 become U+FFFD, never a different character. */
static void test_json_utf8(void **state)
{
    strbuf *sb = *state;
    assert_string_equal(json(sb, "donn\xc3\xa9" "es.evt"), "donn\xc3\xa9" "es.evt");
    assert_string_equal(json(sb, "\xe2\x82\xac \xf0\x9f\x98\x80"), "\xe2\x82\xac \xf0\x9f\x98\x80");
    assert_string_equal(json(sb, "a\xff" "b"), "a\\ufffdb");
    assert_string_equal(json(sb, "\xc3"), "\\ufffd");              /* cut short */
    assert_string_equal(json(sb, "\xc3" "a"), "\\ufffda");
    assert_string_equal(json(sb, "\x80"), "\\ufffd");              /* a lone continuation */
    assert_string_equal(json(sb, "\xc0\xaf"), "\\ufffd\\ufffd");   /* overlong '/' */
    assert_string_equal(json(sb, "\xed\xa0\x80"), "\\ufffd\\ufffd\\ufffd"); /* a surrogate */
    assert_string_equal(json(sb, "\xf4\x90\x80\x80"), "\\ufffd\\ufffd\\ufffd\\ufffd"); /* > U+10FFFF */
}

static void test_huge_append_fails(void **state)
{
    strbuf *sb = *state;
    sb_puts(sb, "keep");
    /* len + n + 1 wraps: must fail, not copy. */
    sb_putn(sb, "x", SIZE_MAX);
    assert_int_equal(sb->failed, 1);
    assert_string_equal(sb_str(sb), "keep");
    sb_puts(sb, "more"); /* later appends are dropped */
    assert_string_equal(sb_str(sb), "keep");
}

static void test_huge_reserve_terminates(void **state)
{
    strbuf *sb = *state;
    /* Doubling the capacity towards this would overflow to 0 and loop forever. */
    sb_putn(sb, "x", SIZE_MAX - 16);
    assert_int_equal(sb->failed, 1);
    assert_int_equal(sb->len, 0);
}

static void test_free_resets(void **state)
{
    strbuf *sb = *state;
    sb_puts(sb, "something");
    sb_free(sb);
    assert_null(sb->data);
    assert_int_equal(sb->len, 0);
    assert_int_equal(sb->cap, 0);
    assert_string_equal(sb_str(sb), "");
    sb_puts(sb, "again");
    assert_string_equal(sb_str(sb), "again");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append, setup, teardown),
        cmocka_unit_test_setup_teardown(test_growth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_printf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_printf_as_snprintf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clear, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nul_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_escaping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_utf8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_append_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_reserve_terminates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_resets, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
