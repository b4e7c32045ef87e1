/* test_checked.c - the size arithmetic under every bounds check
 * (support/checked.h, support/extent.h, support/conv_geometry.c): hostile
 * sizes are refused, never wrapped into small ones, and a refused conv
 * names the value that broke it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support/checked.h"
#include "support/conv_geometry.h"
#include "support/extent.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static void test_checked_ops(void **state)
{
    (void)state;
    long long r;
    size_t z;
    assert_true(ck_mul(1LL << 31, 1LL << 31, &r) && r == 1LL << 62);
    assert_false(ck_mul(1LL << 32, 1LL << 31, &r));
    assert_true(ck_mul(-(1LL << 32), 1LL << 31, &r) && r == LLONG_MIN);
    assert_false(ck_add(LLONG_MAX, 1, &r));
    assert_true(ck_mul3((1LL << 62) + 1, 1, 1, &r));
    assert_false(ck_mul3((1LL << 62) + 1, 4, 1, &r));
    assert_false(ck_mul3(1LL << 32, 1LL << 32, 0, &r)); /* overflow in the first product */
    assert_false(ck_mul_size(SIZE_MAX / 2 + 1, 2, &z));
    assert_false(ck_add_size(SIZE_MAX, 1, &z));
    assert_true(ck_add_size(SIZE_MAX - 1, 1, &z) && z == SIZE_MAX);
}

static void test_matrix_extent(void **state)
{
    (void)state;
    assert_int_equal(matrix_extent(3, 4, 4), 12);
    assert_int_equal(matrix_extent(3, 4, 10), 24);
    assert_int_equal(matrix_extent(1, 4, 0), 4); /* one row: ld is never stepped */
    assert_int_equal(matrix_extent(0, 4, -1), 0);
    /* overlapping rows have no extent: these were 2 and 4 */
    assert_int_equal(matrix_extent(3, 4, -1), -1);
    assert_int_equal(matrix_extent(3, 4, 0), -1);
    assert_int_equal(matrix_extent(3, 4, 3), -1);
    assert_int_equal(matrix_extent(-1, 4, 4), -1);
    assert_int_equal(matrix_extent(3, -4, 4), -1);
    assert_int_equal(matrix_extent(LLONG_MAX, 2, 2), -1);
}

static evt_conv_problem conv(long long n, long long h, long long r, int pad, int dil)
{
    return (evt_conv_problem){n, h, h, 8, 8, r, r, pad, pad, 1, 1, dil, dil};
}

/* st is EVT_ERR_INVALID_ARGUMENT, why names `value`, and p and q are untouched. */
static void expect_refused(evt_conv_problem c, const char *value)
{
    long long p = -7, q = -7;
    char why[200] = "";
    assert_int_equal(conv_output_size_why(&c, &p, &q, why, sizeof why), EVT_ERR_INVALID_ARGUMENT);
    if (!strstr(why, value))
        fprintf(stderr, "'%s' does not name %s\n", why, value);
    assert_non_null(strstr(why, value));
    assert_true(p == -7 && q == -7);
    assert_int_equal(evt_conv_output_size(&c, &p, &q), EVT_ERR_INVALID_ARGUMENT);
}

static void test_conv_output_size(void **state)
{
    (void)state;
    long long p, q;
    evt_conv_problem c = conv(2, 9, 3, 1, 2); /* (9 + 2 - 5) / 1 + 1 */
    assert_int_equal(evt_conv_output_size(&c, &p, &q), EVT_OK);
    assert_true(p == 7 && q == 7);
    /* a 2^32 filter fits 2^32 - 2 of padding on each side: a valid size, which the
     * launch API must then refuse for r*s*c, not wrap */
    c = conv(1, 4, 1LL << 32, INT_MAX, 1);
    assert_int_equal(evt_conv_output_size(&c, &p, &q), EVT_OK);
    assert_true(p == 3 && q == 3);

    expect_refused(conv(1, 4, 1LL << 40, 0, INT_MAX), "r = 1099511627776 with dilation 2147483647");
    expect_refused(conv(1, 4, LLONG_MAX, 0, 2), "the filter's extent overflows");
    expect_refused(conv(1, LLONG_MAX, 1, INT_MAX, 1), "h = 9223372036854775807 with padding");
    expect_refused(conv(1, 4, 9, 1, 1), "dilated filter");
    expect_refused(conv(0, 4, 1, 0, 1), "n = 0");
    expect_refused(conv(-(1LL << 62), 4, 1, 0, 1), "n = -4611686018427387904");
    expect_refused(conv(1, 4, 1, -1, 1), "pad_h = -1");
    expect_refused(conv(1, 4, 1, 0, 0), "dil_h = 0");
    c = conv(1, 4, 1, 0, 1);
    c.stride_w = INT_MIN;
    expect_refused(c, "stride_w = -2147483648");
    assert_int_equal(evt_conv_output_size(NULL, &p, &q), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(conv_output_size_why(&c, &p, NULL, NULL, 0), EVT_ERR_INVALID_ARGUMENT);
}

/* The reference sizes its output by the same function, and refuses the
 * products evt_conv_output_size cannot see. */
static void test_reference_conv_refuses_hostile_sizes(void **state)
{
    (void)state;
    double y;
    evt_conv_problem c = conv((1LL << 62) + 1, 4, 1, 0, 1);
    assert_int_equal(evt_reference_conv2d(&c, EVT_F16, NULL, NULL, &y, NULL, 8),
                     EVT_ERR_INVALID_ARGUMENT);
    c = conv(1, 4, 1LL << 32, INT_MAX, 1);
    assert_int_equal(evt_reference_conv2d(&c, EVT_F16, NULL, NULL, &y, NULL, 8),
                     EVT_ERR_INVALID_ARGUMENT);
    c = conv(1, 4, 1LL << 40, 0, INT_MAX);
    assert_int_equal(evt_reference_conv2d(&c, EVT_F16, NULL, NULL, &y, NULL, 8),
                     EVT_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checked_ops),
        cmocka_unit_test(test_matrix_extent),
        cmocka_unit_test(test_conv_output_size),
        cmocka_unit_test(test_reference_conv_refuses_hostile_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
