/* test_reach.c - evtc run --check's second look (tools/evtc_reach.c): what a
 * reference reaches while its accumulator moves within its rounding, on
 * closed forms whose range over the interval is known, singular ones
 * among them (session 70's two GPU failures had this shape). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tools/evtc_reach.h"

#include <math.h>
#include <string.h>

/* f at each cell's accumulator acc moved by s of its rounding d (d NaN: not moved) */
typedef struct form {
    double (*f)(double);
    const double *acc, *d;
    int calls;
} form;

static int eval_form(void *user, const double *s, double *y, size_t cells)
{
    form *fm = user;
    fm->calls++;
    for (size_t g = 0; g < cells; g++)
        y[g] = fm->f(isnan(fm->d[g]) ? fm->acc[g] : fm->acc[g] + s[g] * fm->d[g]);
    return 0;
}

static double sqrt_off1(double x) { return sqrt(x - 1); }
static double rsqrt(double x) { return 1 / sqrt(x); }
static double twice(double x) { return 2 * x; }
/* log's singularity inside a chain, as p1214's sqrt(silu(.. log(acc - i2) ..)) */
static double log_chain(double x) { return sqrt(-log(x - 3) * 1e-3); }

static evtc_reach reach_of(double (*f)(double), double acc, double d, evt_elem elem)
{
    form fm = {f, &acc, &d, 0};
    evtc_reach h;
    assert_int_equal(evtc_reach_over("test_reach", 1, 1, elem, eval_form, &fm, &h), 0);
    /* one point at 0, then per side the powers and the halvings */
    assert_int_equal(fm.calls, 1 + 2 * (EVTC_REACH_POWERS + 1 + EVTC_REACH_HALVINGS));
    return h;
}

/* sqrt(x - 1) at x = 1 + 1e-6 moved by 1e-5: the lower end is NaN, and
 * every value from 0 to sqrt(1.1e-5) is reached, none beyond. */
static void test_domain_edge(void **state)
{
    (void)state;
    evtc_reach h = reach_of(sqrt_off1, 1 + 1e-6, 1e-5, EVT_F32);
    const double tol = 1e-4, floor = 1e-3;
    assert_true(h.nan);
    assert_false(h.pinf || h.ninf);
    assert_true(evtc_reach_holds(&h, EVT_F32, sqrt(0.5e-6), tol, floor)); /* an accumulator nearer 1 */
    assert_true(evtc_reach_holds(&h, EVT_F32, 1e-5, tol, floor));         /* nearer still: toward the edge */
    assert_true(evtc_reach_holds(&h, EVT_F32, NAN, tol, floor));          /* below 1 */
    assert_true(evtc_reach_holds(&h, EVT_F32, sqrt(1.1e-5), tol, floor)); /* the upper end */
    assert_false(evtc_reach_holds(&h, EVT_F32, sqrt(2e-5), tol, floor));  /* beyond it */
    assert_false(evtc_reach_holds(&h, EVT_F32, -1e-3, tol, floor));
    assert_false(evtc_reach_holds(&h, EVT_F32, INFINITY, tol, floor));
}

/* rsqrt through 0, stored as i8: near 0 from above it saturates at 127,
 * which neither end (NaN below 0, rsqrt(0.07) = 3.8 above) shows. */
static void test_singularity_i8(void **state)
{
    (void)state;
    evtc_reach h = reach_of(rsqrt, 0.02, 0.05, EVT_I8);
    assert_true(h.most == 127);
    assert_true(evtc_reach_holds(&h, EVT_I8, 127, 0, 1));
    assert_true(evtc_reach_holds(&h, EVT_I8, 60, 0, 1));
    assert_true(evtc_reach_holds(&h, EVT_I8, 4, 0, 1));
    assert_false(evtc_reach_holds(&h, EVT_I8, -100, 0, 1));
}

/* A log's edge inside a chain: the value falls toward 0 at the edge's
 * finite side, and every value between is reached. */
static void test_log_chain(void **state)
{
    (void)state;
    double acc = 3 + 2e-7, d = 1e-6;
    evtc_reach h = reach_of(log_chain, acc, d, EVT_F16);
    assert_true(h.nan); /* below 3 */
    /* an accumulator at 3 + 1e-9: nearer the edge than any power-of-two point */
    assert_true(evtc_reach_holds(&h, EVT_F16, log_chain(3 + 1e-9), 2e-3, 1e-3));
    assert_true(evtc_reach_holds(&h, EVT_F16, log_chain(acc + d), 2e-3, 1e-3));
    /* its greatest finite value is at 3 plus an ulp: sqrt(-log(4.4e-16) * 1e-3) = 0.188 */
    assert_false(evtc_reach_holds(&h, EVT_F16, 0.3, 2e-3, 1e-3));
}

/* A pole inside the interval, finite on both sides (p6004's 1024 / acc,
 * session 71): the sign change is an edge, and the halvings run up the
 * pole, so values far past both ends are reached; unrounded here, as a
 * partial sum is kept. */
static double recip(double x) { return 1024 / x; }

static void test_pole(void **state)
{
    (void)state;
    double acc = 1e-3, d = 1e-2;
    form fm = {recip, &acc, &d, 0};
    evtc_reach h;
    assert_int_equal(evtc_reach_over("test_reach", 1, 0, EVT_F32, eval_form, &fm, &h), 0);
    assert_false(h.nan || h.pinf || h.ninf);
    /* the ends: 1024 / 0.011 = 9.3e4 and 1024 / -0.009 = -1.1e5; an accumulator at 1e-5 gives 1e8 */
    assert_true(h.most > 1e8 && h.least < -1e8);
    assert_true(evtc_reach_holds(&h, EVT_F32, 1024 / 1e-5, 1e-4, 1));
    /* far from any pole, the same interval's reach is its ends' span */
    acc = 5;
    assert_int_equal(evtc_reach_over("test_reach", 1, 0, EVT_F32, eval_form, &fm, &h), 0);
    assert_true(h.most < 1024 / 4.99 + 1e-6 && h.least > 1024 / 5.01 - 1e-6);
}

/* A smooth form reaches its ends' span and nothing past the tolerance. */
static void test_smooth(void **state)
{
    (void)state;
    evtc_reach h = reach_of(twice, 5, 0.25, EVT_F32);
    assert_false(h.nan || h.pinf || h.ninf);
    assert_true(h.least == 9.5 && h.most == 10.5);
    assert_true(evtc_reach_holds(&h, EVT_F32, 10.2, 1e-4, 1));
    assert_true(evtc_reach_holds(&h, EVT_F32, 10.5 * (1 + 0.5e-4), 1e-4, 1));
    assert_false(evtc_reach_holds(&h, EVT_F32, 10.5 * (1 + 2e-4), 1e-4, 1));
    assert_false(evtc_reach_holds(&h, EVT_F32, 9.49, 1e-4, 1));
}

/* A cell whose move is NaN (no bracket there) stays at its accumulator;
 * cells are independent. */
static void test_cells(void **state)
{
    (void)state;
    double acc[3] = {5, 5, 1 + 1e-6}, d[3] = {NAN, 0.25, 1e-5};
    evtc_reach h[3];
    form fm = {twice, acc, d, 0};
    assert_int_equal(evtc_reach_over("test_reach", 3, 1, EVT_F32, eval_form, &fm, h), 0);
    assert_true(h[0].least == 10 && h[0].most == 10);
    assert_true(h[1].least == 9.5 && h[1].most == 10.5);
    assert_true(h[2].least > 1.9999 && h[2].least < 2 && h[2].most > 2 && h[2].most < 2.0001);
}

static int eval_fails(void *user, const double *s, double *y, size_t cells)
{
    (void)s;
    (void)y;
    (void)cells;
    return ++*(int *)user == 3 ? 2 : 0;
}

/* An evaluation's failure ends the walk with its status. */
static void test_eval_failure(void **state)
{
    (void)state;
    int calls = 0;
    evtc_reach h;
    assert_int_equal(evtc_reach_over("test_reach", 1, 1, EVT_F32, eval_fails, &calls, &h), 2);
    assert_int_equal(calls, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_domain_edge), cmocka_unit_test(test_singularity_i8), cmocka_unit_test(test_log_chain),
        cmocka_unit_test(test_smooth),      cmocka_unit_test(test_cells),          cmocka_unit_test(test_eval_failure),
        cmocka_unit_test(test_pole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
