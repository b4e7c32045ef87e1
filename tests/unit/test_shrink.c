/* test_shrink.c - the fuzzers' reducer (tests/support/shrink.c): dropped
 * statements leave valid programs behind, and a fake failure is reduced to
 * its cause and the smallest problem that still shows it, within budget. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/support/progen.h"
#include "tests/support/shrink.h"

#include <evt/evt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parses(evt_ctx *ctx, const char *src)
{
    evt_module *m = NULL;
    evt_status st = evt_module_parse_buffer(ctx, "shrunk.evt", src, strlen(src), &m);
    if (st != EVT_OK && getenv("EVT_SHRINK_VERBOSE"))
        fprintf(stderr, "%s%s", src, m ? evt_module_diag_text(m, EVT_DIAG_TEXT) : "");
    evt_module_destroy(m);
    return st == EVT_OK;
}

static const char program[] =
    "epilogue g {\n"
    "    in i0 : f16[M]\n"
    "    param p0 : f32 = 1e30\n"
    "    let l1 = i0 * p0 + 1e-40\n"
    "    out o2 : f32[M, N] = l1 + i0\n"
    "    out r3 : f32[N] = reduce_sum(o2, M)\n"
    "}\n"
    "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with g\n";

static void test_drop_replaces_names_with_acc(void **state)
{
    (void)state;
    assert_int_equal(shrink_statements(program), 5);
    const unsigned char drop[] = {1, 0, 1, 0, 0}; /* i0 and l1 */
    char *got = shrink_drop(program, drop);
    assert_non_null(got);
    assert_string_equal(got, "epilogue g {\n"
                             "    param p0 : f32 = 1e30\n"
                             "    out o2 : f32[M, N] = acc + acc\n"
                             "    out r3 : f32[N] = reduce_sum(o2, M)\n"
                             "}\n"
                             "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with g\n");
    evt_ctx *ctx = evt_ctx_create();
    assert_true(parses(ctx, got));
    evt_ctx_destroy(ctx);
    free(got);
}

/* Whatever is dropped (keeping an output), the generator's programs stay
 * valid: `acc` fits wherever a name did. */
static void test_every_drop_leaves_a_valid_program(void **state)
{
    (void)state;
    static pg_gen g;
    evt_ctx *ctx = evt_ctx_create();
    assert_non_null(ctx);
    pg_rng r = {.s = 42};
    for (uint64_t seed = 1; seed <= 2000; seed++) {
        pg_program(&g, seed);
        assert_false(g.overflow);
        const int n = shrink_statements(g.src);
        assert_true(n > 0);
        unsigned char *drop = calloc((size_t)n, 1);
        assert_non_null(drop);
        for (int i = 0; i < n; i++)
            drop[i] = (unsigned char)pg_chance(&r, 50);
        char *src = shrink_drop(g.src, drop);
        assert_non_null(src);
        if (strstr(src, "    out ")) {
            if (!parses(ctx, src))
                fprintf(stderr, "seed %llu: the program with lines dropped is invalid:\n%s",
                        (unsigned long long)seed, src);
            assert_true(parses(ctx, src));
        }
        free(src);
        free(drop);
    }
    evt_ctx_destroy(ctx);
}

/* The fake failure: an output computed with gelu, on at least 17 rows. */
typedef struct fake {
    evt_ctx *ctx;
    int calls;
} fake;

static int out_uses_gelu(const char *src)
{
    for (const char *p = strstr(src, "    out "); p; p = strstr(p + 1, "    out ")) {
        const char *nl = strchr(p, '\n');
        const char *g = strstr(p, "gelu(");
        if (g && (!nl || g < nl))
            return 1;
    }
    return 0;
}

static int fake_fails(void *user, const char *src, const long long *value)
{
    fake *f = user;
    f->calls++;
    return value[0] >= 17 && out_uses_gelu(src) && parses(f->ctx, src);
}

static void test_reduces_to_the_cause(void **state)
{
    (void)state;
    static pg_gen g;
    uint64_t seed = 1;
    for (;; seed++) { /* a program of several statements with gelu in an output */
        pg_program(&g, seed);
        if (out_uses_gelu(g.src) && shrink_statements(g.src) >= 5)
            break;
    }
    fake f = {evt_ctx_create(), 0};
    shrink_case c = {strdup(g.src), 3, {300, 45, 7}, {1, 1, 0}};
    assert_non_null(c.src);
    assert_true(fake_fails(&f, c.src, c.value));
    const shrink_budget budget = {1000, 60};
    shrink_stats stats;
    assert_true(shrink_run(&c, fake_fails, &f, &budget, &stats));
    assert_int_equal(stats.probes, f.calls - 1);
    assert_false(stats.out_of_budget);
    assert_true(stats.lines_before >= 5);
    assert_int_equal(stats.lines_after, 1); /* the one output, its inputs gone */
    assert_int_equal(shrink_statements(c.src), 1);
    assert_true(out_uses_gelu(c.src));
    assert_true(parses(f.ctx, c.src));
    assert_int_equal(c.value[0], 17);
    assert_int_equal(c.value[1], 1);
    assert_int_equal(c.value[2], 0);
    free(c.src);
    evt_ctx_destroy(f.ctx);
}

static int always_fails(void *user, const char *src, const long long *value)
{
    (void)src, (void)value;
    ++*(int *)user;
    return 1;
}

static void test_budget_is_kept(void **state)
{
    (void)state;
    int calls = 0;
    shrink_case c = {strdup(program), 1, {1000}, {0}};
    assert_non_null(c.src);
    const shrink_budget budget = {2, 0}; /* three probes would reach the fixed point */
    shrink_stats stats;
    assert_true(shrink_run(&c, always_fails, &calls, &budget, &stats));
    assert_int_equal(calls, 2);
    assert_int_equal(stats.probes, 2);
    assert_int_equal(c.value[0], 1000); /* the lines' probes used it all */
    assert_true(stats.out_of_budget);
    assert_true(strstr(c.src, "    out ") != NULL); /* an output is never dropped last */
    free(c.src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drop_replaces_names_with_acc),
        cmocka_unit_test(test_every_drop_leaves_a_valid_program),
        cmocka_unit_test(test_reduces_to_the_cause),
        cmocka_unit_test(test_budget_is_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
