/* test_launch.c - launch-argument validation, which needs no GPU: every bad
 * argument is refused with the right status and a message naming it before
 * the driver is loaded, and a valid launch on a machine without a GPU ends
 * in EVT_ERR_NO_GPU, not a crash.  Pointers are fake device addresses:
 * validation never dereferences them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <evt/evt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every kind of launch argument: params with and without a default, inputs
 * of three shapes, an element-wise and a reduction output. */
static const char source[] =
    "epilogue e {\n"
    "    param alpha : f32 = 1.0\n"
    "    param beta  : f32\n"
    "    in  bias : f16[N]\n"
    "    in  res  : f16[M, N]\n"
    "    in  sc   : f32\n"
    "    out dst  : f16[M, N] = relu(alpha * acc + bias) * beta + res * sc\n"
    "    out amax : f32 = reduce_max(abs(acc))\n"
    "}\n"
    "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with e\n"
    "kernel kc = conv2d_fprop(x: f16, w: f16, acc: f32) with e\n";

/* LD > N, so a buffer of exactly (M - 1) * LD + N elements is the minimum. */
enum { M = 64, N = 40, K = 24, LD = 48 };

#define FAKE(addr) ((void *)(uintptr_t)(addr))

typedef struct fixture {
    evt_ctx *ctx;
    evt_module *m;
    evt_launch *l;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f || !(f->ctx = evt_ctx_create()))
        return -1;
    *state = f;
    if (evt_module_parse_buffer(f->ctx, "t.evt", source, strlen(source), &f->m) != EVT_OK ||
        evt_module_optimize(f->m, 2) != EVT_OK ||
        evt_launch_create(f->m, evt_module_find_kernel(f->m, "k"), &f->l) != EVT_OK) {
        fprintf(stderr, "setup: %s\n", evt_ctx_last_error(f->ctx));
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    evt_launch_destroy(f->l);
    evt_module_destroy(f->m);
    evt_ctx_destroy(f->ctx);
    free(f);
    return 0;
}

/* Minimum byte sizes, (rows - 1) * ld + contiguous extent elements: A is
 * row-major M x K, B column-major K x N (K contiguous), res and d M x N. */
static const size_t A_BYTES = ((size_t)(M - 1) * K + K) * 2;
static const size_t B_BYTES = ((size_t)(N - 1) * K + K) * 2;
static const size_t MN_BYTES = ((size_t)(M - 1) * LD + N) * 2;

/* Sets every argument validly except the one named `except` (NULL: none),
 * each at its own 1 MiB-aligned fake address. */
static void bind_all_but(fixture *f, const char *except)
{
#define UNLESS(name) if (!except || strcmp(except, name) != 0)
    UNLESS("gemm")
    assert_int_equal(evt_launch_set_gemm(f->l, M, N, K, FAKE(0x100000), K, A_BYTES,
                                         FAKE(0x200000), K, B_BYTES),
                     EVT_OK);
    UNLESS("bias") assert_int_equal(evt_launch_bind(f->l, "bias", FAKE(0x300000), N * 2, 0), EVT_OK);
    UNLESS("res") assert_int_equal(evt_launch_bind(f->l, "res", FAKE(0x400000), MN_BYTES, LD), EVT_OK);
    UNLESS("sc") assert_int_equal(evt_launch_bind(f->l, "sc", FAKE(0x500000), 4, 0), EVT_OK);
    UNLESS("dst") assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x600000), MN_BYTES, LD), EVT_OK);
    UNLESS("amax") assert_int_equal(evt_launch_bind(f->l, "amax", FAKE(0x700000), 4, 0), EVT_OK);
    UNLESS("beta") assert_int_equal(evt_launch_set_param(f->l, "beta", 0.5f), EVT_OK);
#undef UNLESS
}

/* A bad argument may be refused by its setter or, at the latest, by the
 * run; the status of whichever refused it. */
static evt_status refused(fixture *f, evt_status setter)
{
    return setter != EVT_OK ? setter : evt_launch_run(f->l, NULL);
}

/* `got` is `want`, and the context's message names `name`. */
static void expect_error(fixture *f, evt_status got, evt_status want, const char *name)
{
    const char *msg = evt_ctx_last_error(f->ctx);
    if (got != want || !strstr(msg, name))
        fprintf(stderr, "got %s (\"%s\"), want %s naming '%s'\n", evt_status_string(got), msg,
                evt_status_string(want), name);
    assert_int_equal(got, want);
    assert_non_null(strstr(msg, name));
}

/* With a GPU present, a valid launch of fake pointers would really run: the
 * tests that get that far skip there (tests/gpu covers real launches). */
static int have_gpu(fixture *f)
{
    evt_target t;
    char name[64];
    return evt_device_target(f->ctx, &t, name, sizeof name) == EVT_OK;
}

/* ---- a valid launch, no GPU ----------------------------------------------- */

static void test_valid_launch_without_gpu_is_no_gpu(void **state)
{
    fixture *f = *state;
    if (have_gpu(f))
        skip();
    bind_all_but(f, NULL);
    assert_int_equal(evt_launch_run(f->l, NULL), EVT_ERR_NO_GPU);
    assert_true(strlen(evt_ctx_last_error(f->ctx)) > 0);
    assert_null(evt_launch_plan(f->l)); /* nothing was enqueued */
    assert_null(evt_launch_plan(NULL));
    assert_int_equal(evt_launch_run(f->l, NULL), EVT_ERR_NO_GPU); /* again: no crash, same answer */
    double ms = -1;
    assert_int_equal(evt_launch_benchmark(f->l, NULL, 1, 3, &ms), EVT_ERR_NO_GPU);
}

static void test_defaulted_param_may_stay_unset(void **state)
{
    fixture *f = *state;
    if (have_gpu(f))
        skip();
    bind_all_but(f, NULL); /* alpha (= 1.0) is never set */
    assert_int_equal(evt_launch_run(f->l, NULL), EVT_ERR_NO_GPU);
}

static void test_device_calls_without_gpu(void **state)
{
    fixture *f = *state;
    if (have_gpu(f))
        skip();
    void *p = NULL;
    char host[4] = {0};
    evt_target t;
    char name[64];
    assert_int_equal(evt_device_alloc(f->ctx, 64, &p), EVT_ERR_NO_GPU);
    assert_null(p);
    assert_int_equal(evt_device_copy_to(f->ctx, FAKE(0x100000), host, 4), EVT_ERR_NO_GPU);
    assert_int_equal(evt_device_copy_from(f->ctx, host, FAKE(0x100000), 4), EVT_ERR_NO_GPU);
    assert_int_equal(evt_device_synchronize(f->ctx), EVT_ERR_NO_GPU);
    assert_int_equal(evt_device_target(f->ctx, &t, name, sizeof name), EVT_ERR_NO_GPU);
}

/* ---- unset arguments -------------------------------------------------------- */

static void test_unset_input_is_unbound(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "bias");
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_UNBOUND, "bias");
}

static void test_unset_matrix_input_is_unbound(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "res");
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_UNBOUND, "res");
}

static void test_unset_output_is_unbound(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "dst");
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_UNBOUND, "dst");
}

static void test_unset_reduction_output_is_unbound(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "amax");
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_UNBOUND, "amax");
}

/* The spec's launch-time diagnostic: a param without default left unset. */
static void test_unset_param_without_default_is_unbound(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "beta");
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_UNBOUND, "beta");
}

static void test_unset_gemm_operands_are_refused(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "gemm");
    evt_status st = evt_launch_run(f->l, NULL);
    assert_true(st == EVT_ERR_UNBOUND || st == EVT_ERR_INVALID_ARGUMENT);
}

static void test_null_pointer_is_refused(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "bias");
    evt_status st = refused(f, evt_launch_bind(f->l, "bias", NULL, N * 2, 0));
    assert_true(st == EVT_ERR_UNBOUND || st == EVT_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "bias"));
}

/* ---- misaligned and small buffers --------------------------------------- */

static void test_misaligned_input_is_bad_buffer(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "bias");
    expect_error(f, refused(f, evt_launch_bind(f->l, "bias", FAKE(0x300001), N * 2, 0)),
                 EVT_ERR_BAD_BUFFER, "bias");
}

static void test_misaligned_scalar_is_bad_buffer(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "sc"); /* f32: 4-byte alignment */
    expect_error(f, refused(f, evt_launch_bind(f->l, "sc", FAKE(0x500002), 4, 0)),
                 EVT_ERR_BAD_BUFFER, "sc");
}

static void test_misaligned_output_is_bad_buffer(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "dst");
    expect_error(f, refused(f, evt_launch_bind(f->l, "dst", FAKE(0x600001), MN_BYTES, LD)),
                 EVT_ERR_BAD_BUFFER, "dst");
}

static void test_misaligned_operand_is_bad_buffer(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "gemm");
    evt_status st = refused(f, evt_launch_set_gemm(f->l, M, N, K, FAKE(0x100001), K, A_BYTES,
                                                   FAKE(0x200000), K, B_BYTES));
    assert_int_equal(st, EVT_ERR_BAD_BUFFER);
}

static void test_exact_minimum_sizes_are_accepted(void **state)
{
    fixture *f = *state;
    if (have_gpu(f))
        skip();
    bind_all_but(f, NULL); /* every size above is the exact minimum */
    assert_int_equal(evt_launch_run(f->l, NULL), EVT_ERR_NO_GPU);
}

static void test_small_matrix_input_is_bad_buffer(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "res");
    expect_error(f, refused(f, evt_launch_bind(f->l, "res", FAKE(0x400000), MN_BYTES - 2, LD)),
                 EVT_ERR_BAD_BUFFER, "res");
}

static void test_small_vector_input_is_bad_buffer(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "bias");
    expect_error(f, refused(f, evt_launch_bind(f->l, "bias", FAKE(0x300000), N * 2 - 2, 0)),
                 EVT_ERR_BAD_BUFFER, "bias");
}

static void test_small_output_is_bad_buffer(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "dst");
    expect_error(f, refused(f, evt_launch_bind(f->l, "dst", FAKE(0x600000), MN_BYTES - 1, LD)),
                 EVT_ERR_BAD_BUFFER, "dst");
}

static void test_small_reduction_output_is_bad_buffer(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "amax");
    expect_error(f, refused(f, evt_launch_bind(f->l, "amax", FAKE(0x700000), 2, 0)),
                 EVT_ERR_BAD_BUFFER, "amax");
}

static void test_small_operand_is_bad_buffer(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "gemm");
    evt_status st = refused(f, evt_launch_set_gemm(f->l, M, N, K, FAKE(0x100000), K, A_BYTES,
                                                   FAKE(0x200000), K, B_BYTES - 2));
    assert_int_equal(st, EVT_ERR_BAD_BUFFER);
}

/* ---- leading dimensions and sizes -------------------------------------- */

static void test_ld_below_n_is_refused(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "res");
    evt_status st = refused(f, evt_launch_bind(f->l, "res", FAKE(0x400000), MN_BYTES, N - 1));
    assert_true(st == EVT_ERR_INVALID_ARGUMENT || st == EVT_ERR_BAD_BUFFER);
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "res"));
}

static void test_output_ld_below_n_is_refused(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "dst");
    evt_status st = refused(f, evt_launch_bind(f->l, "dst", FAKE(0x600000), MN_BYTES, N - 8));
    assert_true(st == EVT_ERR_INVALID_ARGUMENT || st == EVT_ERR_BAD_BUFFER);
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "dst"));
}

static void test_operand_ld_below_extent_is_refused(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "gemm");
    evt_status st = refused(f, evt_launch_set_gemm(f->l, M, N, K, FAKE(0x100000), K - 1, A_BYTES,
                                                   FAKE(0x200000), K, B_BYTES));
    assert_true(st == EVT_ERR_INVALID_ARGUMENT || st == EVT_ERR_BAD_BUFFER);
    bind_all_but(f, "gemm");
    st = refused(f, evt_launch_set_gemm(f->l, M, N, K, FAKE(0x100000), K, A_BYTES,
                                        FAKE(0x200000), K - 8, B_BYTES));
    assert_true(st == EVT_ERR_INVALID_ARGUMENT || st == EVT_ERR_BAD_BUFFER);
}

static void test_negative_sizes_are_refused(void **state)
{
    fixture *f = *state;
    const long long sizes[][3] = {{-1, N, K}, {M, -1, K}, {M, N, -1}, {-(1LL << 40), N, K}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        bind_all_but(f, "gemm");
        evt_status st = refused(f, evt_launch_set_gemm(f->l, sizes[i][0], sizes[i][1], sizes[i][2],
                                                       FAKE(0x100000), K, A_BYTES,
                                                       FAKE(0x200000), K, B_BYTES));
        assert_int_equal(st, EVT_ERR_INVALID_ARGUMENT);
    }
}

static void test_negative_ld_is_refused(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "res");
    evt_status st = refused(f, evt_launch_bind(f->l, "res", FAKE(0x400000), MN_BYTES, -LD));
    assert_true(st == EVT_ERR_INVALID_ARGUMENT || st == EVT_ERR_BAD_BUFFER);
}

/* ---- hostile sizes: refused when set, naming the value, never wrapped ------- */

/* A conv launch of kernel kc beside the fixture's GEMM one. */
static evt_launch *conv_launch(fixture *f)
{
    evt_launch *l = NULL;
    assert_int_equal(evt_launch_create(f->m, evt_module_find_kernel(f->m, "kc"), &l), EVT_OK);
    return l;
}

static evt_conv_problem conv(long long n, long long h, long long r, int pad, int dil)
{
    return (evt_conv_problem){n, h, h, 8, 8, r, r, pad, pad, 1, 1, dil, dil};
}

/* evt_launch_set_conv refuses c with EVT_ERR_INVALID_ARGUMENT and a message naming `value`. */
static void expect_conv_refused(fixture *f, evt_launch *l, evt_conv_problem c, const char *value)
{
    expect_error(f, evt_launch_set_conv(l, &c, FAKE(0x100000), 1 << 20, FAKE(0x200000), 1 << 20),
                 EVT_ERR_INVALID_ARGUMENT, value);
    /* still refused at the run, as never set: nothing of it was kept */
    expect_error(f, evt_launch_run(l, NULL), EVT_ERR_UNBOUND, "conv");
}

static void test_conv_size_products_are_checked(void **state)
{
    fixture *f = *state;
    evt_launch *l = conv_launch(f);
    /* n*h*w wrapped to a small count: 2^62 + 1 images of 4 x 4 */
    expect_conv_refused(f, l, conv((1LL << 62) + 1, 4, 1, 0, 1), "n*h*w = 4611686018427387905*4*4");
    /* a 2^32 filter in 2^31-1 of padding is a valid geometry whose r*s*c wrapped to 0:
     * a NULL, 0-byte filter passed */
    expect_conv_refused(f, l, conv(1, 4, 1LL << 32, INT_MAX, 1), "r*s*c = 4294967296*4294967296*8");
    expect_conv_refused(f, l, conv(1, 4, 1LL << 40, 0, INT_MAX),
                        "r = 1099511627776 with dilation 2147483647: the filter's extent overflows");
    expect_conv_refused(f, l, conv(1, LLONG_MAX, 1, INT_MAX, 1), "h = 9223372036854775807");
    expect_conv_refused(f, l, conv(1, 1LL << 32, 1, 0, 1), "n*h*w = 1*4294967296*4294967296");
    evt_conv_problem c = conv(1, 4, 1, 0, 1);
    c.k = 1LL << 31;
    expect_conv_refused(f, l, c, "k = 2147483648");
    evt_launch_destroy(l);
}

static void test_conv_sizes_below_one_are_refused(void **state)
{
    fixture *f = *state;
    evt_launch *l = conv_launch(f);
    expect_conv_refused(f, l, conv(0, 4, 1, 0, 1), "n = 0");
    expect_conv_refused(f, l, conv(1, -4, 1, 0, 1), "h = -4");
    expect_conv_refused(f, l, conv(1, 4, 1, -1, 1), "pad_h = -1");
    expect_conv_refused(f, l, conv(1, 4, 1, 0, 0), "dil_h = 0");
    evt_conv_problem c = conv(1, 4, 1, 0, 1);
    c.c = 0;
    expect_conv_refused(f, l, c, "c = 0");
    c = conv(1, 4, 1, 0, 1);
    c.stride_w = -3;
    expect_conv_refused(f, l, c, "stride_w = -3");
    expect_conv_refused(f, l, conv(1, 4, 9, 1, 1), "dilated filter");
    expect_error(f, evt_launch_set_conv(l, NULL, NULL, 0, NULL, 0), EVT_ERR_INVALID_ARGUMENT,
                 "NULL");
    evt_launch_destroy(l);
}

/* Past 2^31 - 1 tiles no grid holds the problem: refused when set, without
 * the driver, so no reduction-init kernel is ever enqueued for it. */
static void test_too_many_tiles_are_refused(void **state)
{
    fixture *f = *state;
    expect_error(f, evt_launch_set_gemm(f->l, INT_MAX, INT_MAX, K, FAKE(0x100000), K, SIZE_MAX,
                                        FAKE(0x200000), K, SIZE_MAX),
                 EVT_ERR_INVALID_ARGUMENT, "2147483647 x 2147483647");
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "tiles"));
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_UNBOUND, "gemm");
    evt_launch *l = conv_launch(f);
    evt_conv_problem c = conv(1, 46340, 1, 0, 1); /* n*p*q = 2147395600 */
    c.k = INT_MAX;
    c.c = 1;
    expect_error(f, evt_launch_set_conv(l, &c, FAKE(0x100000), SIZE_MAX, FAKE(0x200000), SIZE_MAX),
                 EVT_ERR_INVALID_ARGUMENT, "2147395600 x 2147483647");
    evt_launch_destroy(l);
    /* a problem at the edge, one row of tiles, is taken */
    assert_int_equal(evt_launch_set_gemm(f->l, INT_MAX, 1, K, FAKE(0x100000), K, SIZE_MAX,
                                         FAKE(0x200000), K, SIZE_MAX),
                     EVT_OK);
}

static void test_gemm_sizes_are_named(void **state)
{
    fixture *f = *state;
    expect_error(f, evt_launch_set_gemm(f->l, M, 1LL << 40, K, FAKE(0x100000), K, A_BYTES,
                                        FAKE(0x200000), K, B_BYTES),
                 EVT_ERR_INVALID_ARGUMENT, "n = 1099511627776");
}

/* An ld whose extent overflows is refused with the numbers, not wrapped. */
static void test_overflowing_ld_is_refused(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "res");
    assert_int_equal(evt_launch_bind(f->l, "res", FAKE(0x400000), SIZE_MAX, LLONG_MAX / 2), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "4611686018427387903 apart");
}

static void test_kernel_of_another_module_is_refused(void **state)
{
    fixture *f = *state;
    evt_module *other = NULL;
    assert_int_equal(evt_module_parse_buffer(f->ctx, "u.evt", source, strlen(source), &other), EVT_OK);
    evt_launch *l = (evt_launch *)1;
    expect_error(f, evt_launch_create(f->m, evt_module_find_kernel(other, "k"), &l),
                 EVT_ERR_INVALID_ARGUMENT, "not a kernel of this module");
    assert_null(l);
    assert_int_equal(evt_launch_create(other, evt_module_find_kernel(other, "k"), &l), EVT_OK);
    evt_launch_destroy(l);
    evt_module_destroy(other);
}

/* ---- a caller's workspace -------------------------------------------------- */

static void test_workspace_size_validates_first(void **state)
{
    fixture *f = *state;
    size_t bytes = 1;
    bind_all_but(f, "bias");
    expect_error(f, evt_launch_workspace_size(f->l, &bytes), EVT_ERR_UNBOUND, "bias");
    assert_int_equal(bytes, 0);
    expect_error(f, evt_launch_workspace_size(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "bytes");
    assert_int_equal(evt_launch_workspace_size(NULL, &bytes), EVT_ERR_INVALID_ARGUMENT);
    if (have_gpu(f))
        return;
    assert_int_equal(evt_launch_bind(f->l, "bias", FAKE(0x300000), N * 2, 0), EVT_OK);
    assert_int_equal(evt_launch_workspace_size(f->l, &bytes), EVT_ERR_NO_GPU);
}

/* The workspace's own checks come before the arguments' and the driver's. */
static void test_caller_workspace_is_checked(void **state)
{
    fixture *f = *state;
    bind_all_but(f, NULL);
    expect_error(f, evt_launch_run_with_workspace(f->l, NULL, FAKE(0x800010), 4096),
                 EVT_ERR_BAD_BUFFER, "workspace is not aligned to 256");
    expect_error(f, evt_launch_run_with_workspace(f->l, NULL, NULL, 64),
                 EVT_ERR_INVALID_ARGUMENT, "workspace");
    assert_int_equal(evt_launch_run_with_workspace(NULL, NULL, NULL, 0), EVT_ERR_INVALID_ARGUMENT);
    evt_launch *fresh = NULL; /* beta, without a default, never set */
    assert_int_equal(evt_launch_create(f->m, evt_module_find_kernel(f->m, "k"), &fresh), EVT_OK);
    expect_error(f, evt_launch_run_with_workspace(fresh, NULL, FAKE(0x800000), 4096),
                 EVT_ERR_UNBOUND, "gemm");
    evt_launch_destroy(fresh);
    if (have_gpu(f))
        return;
    assert_int_equal(evt_launch_run_with_workspace(f->l, NULL, FAKE(0x800000), 4096),
                     EVT_ERR_NO_GPU);
    assert_int_equal(evt_launch_run_with_workspace(f->l, NULL, NULL, 0), EVT_ERR_NO_GPU);
}

/* ---- aliasing: outputs share no memory, but for writing in place ------------- */

/* A valid launch that gets as far as the driver: EVT_ERR_NO_GPU here. */
static void expect_accepted(fixture *f, evt_status got)
{
    if (got != EVT_ERR_NO_GPU)
        fprintf(stderr, "got %s (\"%s\"), want no GPU\n", evt_status_string(got),
                evt_ctx_last_error(f->ctx));
    assert_int_equal(got, EVT_ERR_NO_GPU);
}

static void test_output_over_operand_is_refused(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "dst"); /* from A's 33rd element on */
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x100000 + 64), MN_BYTES, LD), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'dst' overlaps operand 'a'");
    /* its last element on B's first */
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x200000 - MN_BYTES + 2), MN_BYTES, LD),
                     EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'dst' overlaps operand 'b'");
    size_t bytes = 1; /* evt_launch_workspace_size validates as a run does */
    expect_error(f, evt_launch_workspace_size(f->l, &bytes), EVT_ERR_INVALID_ARGUMENT, "operand 'b'");
    assert_int_equal(bytes, 0);
}

static void test_output_over_conv_operand_is_refused(void **state)
{
    fixture *f = *state;
    evt_launch *l = conv_launch(f);
    const evt_conv_problem c = conv(1, 8, 1, 0, 1); /* M = 64 pixels, N = k = 8 */
    assert_int_equal(evt_launch_set_conv(l, &c, FAKE(0x100000), 64 * 8 * 2, FAKE(0x200000), 8 * 8 * 2),
                     EVT_OK);
    assert_int_equal(evt_launch_bind(l, "bias", FAKE(0x300000), 8 * 2, 0), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "res", FAKE(0x400000), 64 * 8 * 2, 8), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "sc", FAKE(0x500000), 4, 0), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "amax", FAKE(0x700000), 4, 0), EVT_OK);
    assert_int_equal(evt_launch_set_param(l, "beta", 0.5f), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "dst", FAKE(0x100000 + 512), 64 * 8 * 2, 8), EVT_OK);
    expect_error(f, evt_launch_run(l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'dst' overlaps operand 'x'");
    assert_int_equal(evt_launch_bind(l, "dst", FAKE(0x200000 + 126), 64 * 8 * 2, 8), EVT_OK);
    expect_error(f, evt_launch_run(l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'dst' overlaps operand 'w'");
    if (!have_gpu(f)) {
        assert_int_equal(evt_launch_bind(l, "dst", FAKE(0x600000), 64 * 8 * 2, 8), EVT_OK);
        expect_accepted(f, evt_launch_run(l, NULL));
    }
    evt_launch_destroy(l);
}

static void test_output_over_input_is_refused(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "dst"); /* starting in the middle of res's first row */
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x400000 + 2 * 20), MN_BYTES, LD), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'dst' overlaps input 'res' without being the same buffer");
    /* starting a row later: the same pointer is what makes it in place */
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x400000 + 2 * LD), MN_BYTES, LD), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "input 'res'");
    bind_all_but(f, "amax"); /* a scalar output inside a vector input */
    assert_int_equal(evt_launch_bind(f->l, "amax", FAKE(0x300000 + 8), 4, 0), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'amax' overlaps input 'bias'");
    /* only [M, N] outputs are written in place: a scalar never is */
    assert_int_equal(evt_launch_bind(f->l, "amax", FAKE(0x500000), 4, 0), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'amax' overlaps input 'sc'");
}

static void test_outputs_overlapping_are_refused(void **state)
{
    fixture *f = *state;
    bind_all_but(f, "amax"); /* on dst's last two elements */
    assert_int_equal(evt_launch_bind(f->l, "amax", FAKE(0x600000 + MN_BYTES - 4), 4, 0), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'dst' overlaps output 'amax'");
    /* in the padding after dst's first row, which no run touches */
    if (!have_gpu(f)) {
        assert_int_equal(evt_launch_bind(f->l, "amax", FAKE(0x600000 + N * 2), 4, 0), EVT_OK);
        expect_accepted(f, evt_launch_run(f->l, NULL));
    }
}

static void test_in_place_output_is_accepted(void **state)
{
    fixture *f = *state;
    if (have_gpu(f))
        skip();
    bind_all_but(f, "dst"); /* dst is res: the same pointer, element type and ld */
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x400000), MN_BYTES, LD), EVT_OK);
    expect_accepted(f, evt_launch_run(f->l, NULL));
    /* the same pointer with another leading dimension is not element for element */
    const size_t wider = ((size_t)(M - 1) * (LD + 8) + N) * 2;
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x400000), wider, LD + 8), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'dst' overlaps input 'res' without being the same buffer");
}

/* bf16 over f16: the same size and pointer, but not the same element. */
static void test_in_place_needs_the_element_type(void **state)
{
    fixture *f = *state;
    static const char src[] = "epilogue t {\n"
                              "    in  r : bf16[M, N]\n"
                              "    out d : f16[M, N] = acc + r\n"
                              "}\n"
                              "kernel kt = gemm(a: f16 row, b: f16 col, acc: f32) with t\n";
    evt_module *m = NULL;
    evt_launch *l = NULL;
    assert_int_equal(evt_module_parse_buffer(f->ctx, "t.evt", src, strlen(src), &m), EVT_OK);
    assert_int_equal(evt_launch_create(m, evt_module_find_kernel(m, "kt"), &l), EVT_OK);
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, FAKE(0x100000), K, A_BYTES, FAKE(0x200000), K,
                                         B_BYTES),
                     EVT_OK);
    assert_int_equal(evt_launch_bind(l, "r", FAKE(0x400000), MN_BYTES, LD), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "d", FAKE(0x400000), MN_BYTES, LD), EVT_OK);
    expect_error(f, evt_launch_run(l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'd' overlaps input 'r' without being the same buffer");
    evt_launch_destroy(l);
    evt_module_destroy(m);
}

/* What only reads may share: inputs with each other and with the operands. */
static void test_read_buffers_may_share(void **state)
{
    fixture *f = *state;
    if (have_gpu(f))
        skip();
    bind_all_but(f, NULL);
    assert_int_equal(evt_launch_bind(f->l, "bias", FAKE(0x100000 + 16), N * 2, 0), EVT_OK);
    assert_int_equal(evt_launch_bind(f->l, "res", FAKE(0x100000), MN_BYTES, LD), EVT_OK);
    assert_int_equal(evt_launch_bind(f->l, "sc", FAKE(0x200000 + 8), 4, 0), EVT_OK);
    expect_accepted(f, evt_launch_run(f->l, NULL));
}

/* res and dst side by side in one [M, 96] allocation: rows interleave, no
 * element is shared.  One column further left, they share column 39. */
static void test_side_by_side_matrices_do_not_overlap(void **state)
{
    fixture *f = *state;
    enum { WIDE = 96 };
    const size_t bytes = ((size_t)(M - 1) * WIDE + N) * 2;
    bind_all_but(f, NULL);
    assert_int_equal(evt_launch_bind(f->l, "res", FAKE(0x400000), bytes, WIDE), EVT_OK);
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x400000 + 39 * 2), bytes, WIDE), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'dst' overlaps input 'res'");
    if (have_gpu(f))
        return;
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x400000 + 48 * 2), bytes, WIDE), EVT_OK);
    expect_accepted(f, evt_launch_run(f->l, NULL));
}

/* A caller's workspace is written: it may share no byte with any buffer. */
static void test_workspace_overlap_is_refused(void **state)
{
    fixture *f = *state;
    bind_all_but(f, NULL);
    expect_error(f, evt_launch_run_with_workspace(f->l, NULL, FAKE(0x600000 + 1024), 4096),
                 EVT_ERR_INVALID_ARGUMENT, "output 'dst' overlaps the workspace");
    expect_error(f, evt_launch_run_with_workspace(f->l, NULL, FAKE(0x300000 - 256), 4096),
                 EVT_ERR_INVALID_ARGUMENT, "the workspace overlaps input 'bias'");
    expect_error(f, evt_launch_run_with_workspace(f->l, NULL, FAKE(0x100000), 256),
                 EVT_ERR_INVALID_ARGUMENT, "the workspace overlaps operand 'a'");
    if (have_gpu(f))
        return;
    /* ending right where bias starts */
    expect_accepted(f, evt_launch_run_with_workspace(f->l, NULL, FAKE(0x300000 - 4096), 4096));
}

/* ---- rebinding ------------------------------------------------------------ */

/* A second bind of a name replaces pointer, bytes and ld, and is what the
 * run validates; nothing else changes. */
static void test_rebind_replaces_the_binding(void **state)
{
    fixture *f = *state;
    bind_all_but(f, NULL);
    /* the pointer: the second buffer overlaps operand a, the first did not */
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x100000 + 64), MN_BYTES, LD), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "operand 'a'");
    /* the bytes: one short */
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x600000), MN_BYTES - 2, LD), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_BAD_BUFFER, "output 'dst' is too small");
    /* the ld: the bytes that sufficed for LD do not for LD + 8 */
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x600000), MN_BYTES, LD + 8), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_BAD_BUFFER, "output 'dst' is too small");
    /* a failed bind changes nothing: dst keeps LD + 8 */
    expect_error(f, evt_launch_bind(f->l, "nope", FAKE(0x600000), MN_BYTES, LD), EVT_ERR_NOT_FOUND,
                 "nope");
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_BAD_BUFFER, "output 'dst' is too small");
    /* an input likewise: res rebound NULL is unbound again, whatever it was */
    assert_int_equal(evt_launch_bind(f->l, "dst", FAKE(0x600000), MN_BYTES, LD), EVT_OK);
    assert_int_equal(evt_launch_bind(f->l, "res", NULL, MN_BYTES, LD), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_UNBOUND, "res");
    if (have_gpu(f))
        return;
    /* back to valid buffers: every other binding and beta were kept */
    assert_int_equal(evt_launch_bind(f->l, "res", FAKE(0x480000), MN_BYTES, LD), EVT_OK);
    expect_accepted(f, evt_launch_run(f->l, NULL));
    /* a second problem replaces the first; the bindings are checked against it */
    assert_int_equal(evt_launch_set_gemm(f->l, 2 * M, N, K, FAKE(0x100000), K, 2 * A_BYTES,
                                         FAKE(0x200000), K, B_BYTES),
                     EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_BAD_BUFFER, "input 'res' is too small");
}

/* ---- names --------------------------------------------------------------- */

static void test_unknown_names_are_not_found(void **state)
{
    fixture *f = *state;
    expect_error(f, evt_launch_bind(f->l, "nope", FAKE(0x300000), 64, 0), EVT_ERR_NOT_FOUND, "nope");
    expect_error(f, evt_launch_set_param(f->l, "gamma", 1.0f), EVT_ERR_NOT_FOUND, "gamma");
}

static void test_wrong_kind_of_name_is_refused(void **state)
{
    fixture *f = *state;
    assert_int_not_equal(evt_launch_bind(f->l, "beta", FAKE(0x300000), 4, 0), EVT_OK);
    assert_int_not_equal(evt_launch_set_param(f->l, "bias", 1.0f), EVT_OK);
    assert_int_not_equal(evt_launch_bind(f->l, "acc", FAKE(0x300000), 4, 0), EVT_OK);
}

static void test_null_arguments_are_refused(void **state)
{
    fixture *f = *state;
    evt_launch *l = NULL;
    assert_int_equal(evt_launch_create(f->m, NULL, &l), EVT_ERR_INVALID_ARGUMENT);
    assert_null(l);
    expect_error(f, evt_launch_bind(f->l, NULL, FAKE(0x300000), 64, 0), EVT_ERR_INVALID_ARGUMENT,
                 "name is NULL");
    /* a refusal says why, on the launch's context (fuzz_launch found this one silent) */
    expect_error(f, evt_launch_set_param(f->l, NULL, 1.0f), EVT_ERR_INVALID_ARGUMENT,
                 "evt_launch_set_param: name is NULL");
    evt_launch_destroy(NULL);
}

/* ---- batches (evt_launch_set_batch, evt_launch_bind_batched) --------------- */

/* One problem's part of each buffer, in elements, and the batch strides the
 * tests give them: A and B per problem, res and dst one [M, N] each, bias
 * shared (0), sc and amax one element each. */
enum { A_ELEMS = M * K, B_ELEMS = N * K, MN_ELEMS = (M - 1) * LD + N };

/* Binds every argument for a batch of `count` problems, each buffer in a
 * 256 MiB region of its own, exactly as large as the batch needs. */
static void bind_batch(fixture *f, long long count)
{
    const size_t c = (size_t)count;
    assert_int_equal(evt_launch_set_gemm(f->l, M, N, K, FAKE(0x10000000), K, c * A_ELEMS * 2,
                                         FAKE(0x20000000), K, c * B_ELEMS * 2),
                     EVT_OK);
    assert_int_equal(evt_launch_set_batch(f->l, count, A_ELEMS, B_ELEMS), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(f->l, "bias", FAKE(0x30000000), N * 2, 0, 0), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(f->l, "res", FAKE(0x40000000), ((c - 1) * MN_ELEMS + MN_ELEMS) * 2,
                                             LD, MN_ELEMS),
                     EVT_OK);
    assert_int_equal(evt_launch_bind_batched(f->l, "sc", FAKE(0x50000000), c * 4, 0, 1), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(f->l, "dst", FAKE(0x60000000), c * MN_ELEMS * 2, LD, MN_ELEMS),
                     EVT_OK);
    assert_int_equal(evt_launch_bind_batched(f->l, "amax", FAKE(0x70000000), c * 4, 0, 1), EVT_OK);
    assert_int_equal(evt_launch_set_param(f->l, "beta", 0.5f), EVT_OK);
}

static void test_batch_setter_refusals(void **state)
{
    fixture *f = *state;
    expect_error(f, evt_launch_set_batch(f->l, 2, 0, 0), EVT_ERR_INVALID_ARGUMENT, "after evt_launch_set_gemm");
    bind_all_but(f, NULL);
    expect_error(f, evt_launch_set_batch(f->l, 0, 0, 0), EVT_ERR_INVALID_ARGUMENT, "batch count 0");
    expect_error(f, evt_launch_set_batch(f->l, -3, 0, 0), EVT_ERR_INVALID_ARGUMENT, "batch count -3");
    expect_error(f, evt_launch_set_batch(f->l, 2147483648LL, 0, 0), EVT_ERR_INVALID_ARGUMENT,
                 "batch count 2147483648");
    expect_error(f, evt_launch_set_batch(f->l, 2, -1, 0), EVT_ERR_INVALID_ARGUMENT, "a = -1");
    expect_error(f, evt_launch_set_batch(f->l, 2, 0, -8), EVT_ERR_INVALID_ARGUMENT, "b = -8");
    /* packed in bytes: a 16-bit operand's stride past 2^62 overflows (found by fuzz_launch on
     * an empty problem, whose buffers the run does not check against the strides) */
    expect_error(f, evt_launch_set_batch(f->l, 2, 1LL << 62, 0), EVT_ERR_INVALID_ARGUMENT,
                 "batch stride a = 4611686018427387904");
    expect_error(f, evt_launch_set_batch(f->l, 2, 0, LLONG_MAX), EVT_ERR_INVALID_ARGUMENT, "batch stride b");
    expect_error(f, evt_launch_bind_batched(f->l, "res", FAKE(0x400000), MN_BYTES, LD, -1),
                 EVT_ERR_INVALID_ARGUMENT, "batch stride -1");
    expect_error(f, evt_launch_bind_batched(f->l, "nope", FAKE(0x400000), MN_BYTES, LD, 0), EVT_ERR_NOT_FOUND,
                 "nope");
    /* the batch's tiles share one grid: 2^22 x 2^22 is 3.6e8 tiles of the largest configuration,
     * 16 times that too many */
    assert_int_equal(evt_launch_set_gemm(f->l, 1 << 22, 1 << 22, 8, FAKE(0x100000), 8, 1ULL << 40,
                                         FAKE(0x200000), 8, 1ULL << 40),
                     EVT_OK);
    expect_error(f, evt_launch_set_batch(f->l, 16, 0, 0), EVT_ERR_INVALID_ARGUMENT, "a batch of 16 problems");
    assert_int_equal(evt_launch_set_batch(f->l, 2, 0, 0), EVT_OK);
    /* a conv launches one problem */
    evt_launch *l = conv_launch(f);
    const evt_conv_problem c = conv(1, 8, 1, 0, 1);
    assert_int_equal(evt_launch_set_conv(l, &c, FAKE(0x100000), 64 * 8 * 2, FAKE(0x200000), 8 * 8 * 2), EVT_OK);
    expect_error(f, evt_launch_set_batch(l, 2, 0, 0), EVT_ERR_INVALID_ARGUMENT, "batch count 2");
    assert_int_equal(evt_launch_set_batch(l, 1, 0, 0), EVT_OK);
    evt_launch_destroy(l);
}

static void test_batch_valid_without_gpu_is_no_gpu(void **state)
{
    fixture *f = *state;
    if (have_gpu(f))
        skip();
    static const long long counts[] = {1, 2, 3, 64, 512};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        bind_batch(f, counts[i]);
        expect_accepted(f, evt_launch_run(f->l, NULL));
    }
    /* shared operands (stride 0) need one problem's bytes only */
    bind_batch(f, 7);
    assert_int_equal(evt_launch_set_gemm(f->l, M, N, K, FAKE(0x10000000), K, A_BYTES, FAKE(0x20000000), K,
                                         B_BYTES),
                     EVT_OK);
    assert_int_equal(evt_launch_set_batch(f->l, 7, 0, 0), EVT_OK);
    expect_accepted(f, evt_launch_run(f->l, NULL));
}

static void test_batch_sizes_cover_the_last_problem(void **state)
{
    fixture *f = *state;
    bind_batch(f, 5);
    /* res one byte short of its fifth problem */
    assert_int_equal(evt_launch_bind_batched(f->l, "res", FAKE(0x40000000), 5 * MN_ELEMS * 2 - 2, LD, MN_ELEMS),
                     EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_BAD_BUFFER, "input 'res' is too small");
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "5 problems"));
    assert_int_equal(evt_launch_bind_batched(f->l, "res", FAKE(0x40000000), 5 * MN_ELEMS * 2, LD, MN_ELEMS),
                     EVT_OK);
    bind_batch(f, 5); /* A for four problems */
    assert_int_equal(evt_launch_set_gemm(f->l, M, N, K, FAKE(0x10000000), K, 4 * A_ELEMS * 2, FAKE(0x20000000),
                                         K, 5 * B_ELEMS * 2),
                     EVT_OK);
    assert_int_equal(evt_launch_set_batch(f->l, 5, A_ELEMS, B_ELEMS), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_BAD_BUFFER, "operand 'a' is too small");
    /* strides whose last problem's offset overflows 64 bits */
    bind_batch(f, 5);
    assert_int_equal(evt_launch_bind_batched(f->l, "sc", FAKE(0x50000000), 4, 0, LLONG_MAX / 2), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "input 'sc': a batch of 5 problems");
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "overflows"));
    bind_batch(f, 3);
    assert_int_equal(evt_launch_set_batch(f->l, 3, LLONG_MAX / 2, B_ELEMS), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "operand 'a'");
}

static void test_batch_outputs_keep_apart(void **state)
{
    fixture *f = *state;
    bind_batch(f, 4);
    /* one output for every problem */
    assert_int_equal(evt_launch_bind_batched(f->l, "dst", FAKE(0x60000000), MN_BYTES, LD, 0), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "output 'dst': a batch stride of 0");
    /* problems one row apart: each one's rows are the next one's */
    assert_int_equal(evt_launch_bind_batched(f->l, "dst", FAKE(0x60000000), 4 * MN_ELEMS * 2, LD, LD), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "output 'dst': a batch stride of 48");
    /* ... but problems interleaved in the row padding (N = 40 of LD = 48 columns) could not
     * share a byte only if narrower than 8 columns: refused */
    assert_int_equal(evt_launch_bind_batched(f->l, "dst", FAKE(0x60000000), 4 * MN_ELEMS * 2, LD, 8), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "output 'dst'");
    assert_int_equal(evt_launch_bind_batched(f->l, "dst", FAKE(0x60000000), 4 * MN_ELEMS * 2, LD, MN_ELEMS),
                     EVT_OK);
    /* a reduction's results: one per problem */
    assert_int_equal(evt_launch_bind_batched(f->l, "amax", FAKE(0x70000000), 4, 0, 0), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "output 'amax'");
    if (have_gpu(f))
        return;
    assert_int_equal(evt_launch_bind_batched(f->l, "amax", FAKE(0x70000000), 4 * 4, 0, 1), EVT_OK);
    expect_accepted(f, evt_launch_run(f->l, NULL));
    /* a batch of one ignores the strides: one output is enough */
    assert_int_equal(evt_launch_set_batch(f->l, 1, A_ELEMS, B_ELEMS), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(f->l, "amax", FAKE(0x70000000), 4, 0, 0), EVT_OK);
    expect_accepted(f, evt_launch_run(f->l, NULL));
}

static void test_batch_aliasing_spans_the_batch(void **state)
{
    fixture *f = *state;
    bind_batch(f, 3);
    /* dst's second problem on res's third: apart in problem 0 alone */
    assert_int_equal(evt_launch_bind_batched(f->l, "dst", FAKE(0x40000000 + MN_ELEMS * 2), 3 * MN_ELEMS * 2, LD,
                                             MN_ELEMS),
                     EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT,
                 "output 'dst' overlaps input 'res' without being the same buffer");
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "batch"));
    /* dst's third problem on A's second part: A's footprint is every problem's */
    assert_int_equal(evt_launch_bind_batched(f->l, "dst", FAKE(0x10000000 + A_ELEMS * 2 - 2 * MN_ELEMS * 2),
                                             3 * MN_ELEMS * 2, LD, MN_ELEMS),
                     EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "output 'dst' overlaps operand 'a'");
    /* the shared bias inside the third problem of dst */
    bind_batch(f, 3);
    assert_int_equal(evt_launch_bind_batched(f->l, "bias", FAKE(0x60000000 + 2 * MN_ELEMS * 2), N * 2, 0, 0),
                     EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "output 'dst' overlaps input 'bias'");
    if (have_gpu(f))
        return;
    /* in place, problem for problem: the same pointer, ld and stride */
    bind_batch(f, 3);
    assert_int_equal(evt_launch_bind_batched(f->l, "dst", FAKE(0x40000000), 3 * MN_ELEMS * 2, LD, MN_ELEMS),
                     EVT_OK);
    expect_accepted(f, evt_launch_run(f->l, NULL));
    /* ... but not with another stride */
    assert_int_equal(evt_launch_bind_batched(f->l, "dst", FAKE(0x40000000), 3 * (MN_ELEMS + 8) * 2, LD,
                                             MN_ELEMS + 8),
                     EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_INVALID_ARGUMENT, "output 'dst' overlaps input 'res'");
    /* two tensors side by side in one allocation, problems one after the other: apart */
    bind_batch(f, 3);
    assert_int_equal(evt_launch_bind_batched(f->l, "dst", FAKE(0x40000000 + 3 * MN_ELEMS * 2), 3 * MN_ELEMS * 2,
                                             LD, MN_ELEMS),
                     EVT_OK);
    expect_accepted(f, evt_launch_run(f->l, NULL));
}

/* evt_launch_set_gemm replaces the operands, and the batch with them: one problem again. */
static void test_set_gemm_resets_the_batch(void **state)
{
    fixture *f = *state;
    if (have_gpu(f))
        skip();
    bind_batch(f, 4);
    expect_accepted(f, evt_launch_run(f->l, NULL));
    /* bindings sized for the batch, operands for one problem: the plain launch */
    assert_int_equal(evt_launch_set_gemm(f->l, M, N, K, FAKE(0x10000000), K, A_BYTES, FAKE(0x20000000), K,
                                         B_BYTES),
                     EVT_OK);
    expect_accepted(f, evt_launch_run(f->l, NULL));
    assert_int_equal(evt_launch_set_batch(f->l, 4, A_ELEMS, B_ELEMS), EVT_OK);
    expect_error(f, evt_launch_run(f->l, NULL), EVT_ERR_BAD_BUFFER, "operand 'a' is too small");
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_valid_launch_without_gpu_is_no_gpu),
        T(test_defaulted_param_may_stay_unset),
        T(test_device_calls_without_gpu),
        T(test_unset_input_is_unbound),
        T(test_unset_matrix_input_is_unbound),
        T(test_unset_output_is_unbound),
        T(test_unset_reduction_output_is_unbound),
        T(test_unset_param_without_default_is_unbound),
        T(test_unset_gemm_operands_are_refused),
        T(test_null_pointer_is_refused),
        T(test_misaligned_input_is_bad_buffer),
        T(test_misaligned_scalar_is_bad_buffer),
        T(test_misaligned_output_is_bad_buffer),
        T(test_misaligned_operand_is_bad_buffer),
        T(test_exact_minimum_sizes_are_accepted),
        T(test_small_matrix_input_is_bad_buffer),
        T(test_small_vector_input_is_bad_buffer),
        T(test_small_output_is_bad_buffer),
        T(test_small_reduction_output_is_bad_buffer),
        T(test_small_operand_is_bad_buffer),
        T(test_ld_below_n_is_refused),
        T(test_output_ld_below_n_is_refused),
        T(test_operand_ld_below_extent_is_refused),
        T(test_negative_sizes_are_refused),
        T(test_negative_ld_is_refused),
        T(test_conv_size_products_are_checked),
        T(test_conv_sizes_below_one_are_refused),
        T(test_too_many_tiles_are_refused),
        T(test_gemm_sizes_are_named),
        T(test_overflowing_ld_is_refused),
        T(test_kernel_of_another_module_is_refused),
        T(test_workspace_size_validates_first),
        T(test_caller_workspace_is_checked),
        T(test_output_over_operand_is_refused),
        T(test_output_over_conv_operand_is_refused),
        T(test_output_over_input_is_refused),
        T(test_outputs_overlapping_are_refused),
        T(test_in_place_output_is_accepted),
        T(test_in_place_needs_the_element_type),
        T(test_read_buffers_may_share),
        T(test_side_by_side_matrices_do_not_overlap),
        T(test_workspace_overlap_is_refused),
        T(test_rebind_replaces_the_binding),
        T(test_unknown_names_are_not_found),
        T(test_wrong_kind_of_name_is_refused),
        T(test_null_arguments_are_refused),
        T(test_batch_setter_refusals),
        T(test_batch_valid_without_gpu_is_no_gpu),
        T(test_batch_sizes_cover_the_last_problem),
        T(test_batch_outputs_keep_apart),
        T(test_batch_aliasing_spans_the_batch),
        T(test_set_gemm_resets_the_batch),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
