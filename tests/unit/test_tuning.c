/* test_tuning.c - what a program sets on a context instead of the library's
 * choices: evt_tuning (checked names and values, refusals with reasons, a
 * forced configuration's listing) and the libraries' paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <evt/evt.h>

static const char *const source =
    "epilogue e { in bias : f16[N]\n out D : f16[M, N] = relu(acc + bias) }\n"
    "kernel tn = gemm(a: f16 row, b: f16 col, acc: f32) with e\n"
    "kernel nn = gemm(a: f16 col, b: f16 row, acc: f32) with e\n"
    "kernel conv = conv2d_fprop(x: f16, w: f16, acc: f32) with e\n";

static evt_module *parse(evt_ctx *ctx)
{
    evt_module *m = NULL;
    assert_int_equal(evt_module_parse_buffer(ctx, "t.evt", source, strlen(source), &m), EVT_OK);
    return m;
}

/* Names are listed once each; unknown names and values outside the
 * documented ranges are refused with a reason. */
static void test_tuning_values(void **state)
{
    (void)state;
    evt_ctx *ctx = evt_ctx_create();
    assert_true(evt_config_count() > 10);
    for (int i = 0; i < evt_config_count(); i++)
        for (int j = 0; j < i; j++)
            assert_string_not_equal(evt_config_name(i), evt_config_name(j));
    assert_null(evt_config_name(-1));
    assert_null(evt_config_name(evt_config_count()));
    evt_tuning t = {.config = "sm90_pp2_128x128x64_s4"};
    assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_OK);
    t.config = "sm90_pp3_1x1x1_s1";
    assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_ERR_NOT_FOUND);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "sm90_pp3_1x1x1_s1"));
    t = (evt_tuning){.split_k = -1};
    assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_ERR_INVALID_ARGUMENT);
    t = (evt_tuning){.row_group = 3};
    assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_ERR_INVALID_ARGUMENT);
    t = (evt_tuning){.config = "", .split_k = 2, .row_group = 16};
    assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_OK);
    assert_int_equal(evt_ctx_set_tuning(ctx, NULL), EVT_OK);
    assert_int_equal(evt_ctx_set_tuning(NULL, NULL), EVT_ERR_INVALID_ARGUMENT);
    evt_ctx_destroy(ctx);
}

/* A forced configuration: the listing holds only its entry points; where
 * it cannot run the kernel the listing is refused with the reason. */
static void test_forced_listing(void **state)
{
    (void)state;
    evt_ctx *ctx = evt_ctx_create();
    evt_module *m = parse(ctx);
    const evt_kernel *tn = evt_module_find_kernel(m, "tn"), *nn = evt_module_find_kernel(m, "nn"),
                     *conv = evt_module_find_kernel(m, "conv");
    const char *text = NULL;
    assert_int_equal(evt_kernel_cuda(m, tn, EVT_TARGET_SM90A, &text), EVT_OK);
    assert_non_null(strstr(text, "_sm90_pp2_128x128x64_s4_sm90a("));
    assert_non_null(strstr(text, "_sm80_64x64x32_w4_s4_sm90a("));
    evt_tuning t = {.config = "sm90_pp2_128x128x64_s4"};
    assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_OK);
    assert_int_equal(evt_kernel_cuda(m, tn, EVT_TARGET_SM90A, &text), EVT_OK);
    assert_non_null(strstr(text, "_sm90_pp2_128x128x64_s4_sm90a("));
    assert_null(strstr(text, "_sm80_64x64x32_w4_s4_sm90a("));
    assert_int_equal(evt_kernel_cuda(m, tn, EVT_TARGET_SM80, &text), EVT_ERR_UNSUPPORTED);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "sm_90a"));
    /* A column-major: the transposed wgmma runs it */
    assert_int_equal(evt_kernel_cuda(m, nn, EVT_TARGET_SM90A, &text), EVT_OK);
    assert_non_null(strstr(text, "_sm90_pp2_128x128x64_s4_sm90a("));
    assert_int_equal(evt_kernel_config_check(m, conv, EVT_TARGET_SM90A, "sm90_pp2_128x128x64_s4"), EVT_OK);
    /* nothing to stage: the epilogue reads no 16-bit [M, N] input */
    assert_int_equal(evt_kernel_config_check(m, conv, EVT_TARGET_SM90A, "sm90_pp2_128x128x64_s2_staged"),
                     EVT_ERR_UNSUPPORTED);
    assert_int_equal(evt_kernel_config_check(m, tn, EVT_TARGET_SM90A, "sm80_256x64x32_w4_s4"),
                     EVT_ERR_UNSUPPORTED);
    assert_int_equal(evt_kernel_config_check(m, tn, EVT_TARGET_SM86, "sm80_128x256x64_w8_s3"),
                     EVT_ERR_UNSUPPORTED);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "shared memory"));
    assert_int_equal(evt_kernel_config_check(m, tn, EVT_TARGET_SM90A, "nope"), EVT_ERR_NOT_FOUND);
    /* split-K forced: the listing holds the split entries too; a row group
     * changes the generated epilogue */
    t = (evt_tuning){.config = "sm80_128x128x64_w4_s3", .split_k = 2};
    assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_OK);
    assert_int_equal(evt_kernel_cuda(m, tn, EVT_TARGET_SM80, &text), EVT_OK);
    assert_non_null(strstr(text, "_sm80_128x128x64_w4_s3_splitk_sm80("));
    assert_non_null(strstr(text, "_sm80_128x128x64_w4_s3_splitsum_sm80("));
    t.row_group = 8;
    assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_OK);
    const char *grouped = NULL;
    assert_int_equal(evt_kernel_cuda(m, tn, EVT_TARGET_SM80, &grouped), EVT_OK);
    assert_string_not_equal(text, grouped);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

/* Emission keeps a kernel's target-independent text between calls (the
 * module's cache): another target, another row group and an optimization
 * in between must each give what a fresh module gives. */
static void test_listing_reuse(void **state)
{
    (void)state;
    static const char *const src =
        "epilogue e { in bias : f16[N]\n param s : f32 = 1\n"
        " out D : f16[M, N] = relu(acc * 1 + bias * s)\n out r : f32[N] = reduce_sum(acc, M) }\n"
        "kernel tn = gemm(a: f16 row, b: f16 col, acc: f32) with e\n"
        "kernel conv = conv2d_fprop(x: f16, w: f16, acc: f32) with e\n";
    evt_ctx *ctx = evt_ctx_create();
    evt_module *m = NULL, *fresh = NULL;
    assert_int_equal(evt_module_parse_buffer(ctx, "t.evt", src, strlen(src), &m), EVT_OK);
    const evt_kernel *tn = evt_module_find_kernel(m, "tn"), *conv = evt_module_find_kernel(m, "conv");
    const char *a90 = NULL, *a80 = NULL, *again = NULL, *grouped = NULL, *want = NULL;
    assert_int_equal(evt_kernel_cuda(m, tn, EVT_TARGET_SM90A, &a90), EVT_OK);
    assert_int_equal(evt_kernel_cuda(m, tn, EVT_TARGET_SM80, &a80), EVT_OK);
    assert_int_equal(evt_kernel_cuda(m, conv, EVT_TARGET_SM80, &again), EVT_OK);
    assert_non_null(strstr(again, "evt_conv_args mainloop;"));
    assert_int_equal(evt_kernel_cuda(m, tn, EVT_TARGET_SM90A, &again), EVT_OK);
    assert_string_equal(again, a90);
    evt_tuning t = {.row_group = 4};
    assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_OK);
    assert_int_equal(evt_kernel_cuda(m, tn, EVT_TARGET_SM80, &grouped), EVT_OK);
    assert_non_null(strstr(grouped, "(FAST ? 4 : 1)"));
    assert_int_equal(evt_ctx_set_tuning(ctx, NULL), EVT_OK);
    assert_int_equal(evt_kernel_cuda(m, tn, EVT_TARGET_SM80, &again), EVT_OK);
    assert_string_equal(again, a80);

    assert_int_equal(evt_module_optimize(m, 2), EVT_OK);
    assert_int_equal(evt_kernel_cuda(m, tn, EVT_TARGET_SM80, &again), EVT_OK);
    assert_string_not_equal(again, a80);
    assert_int_equal(evt_module_parse_buffer(ctx, "t.evt", src, strlen(src), &fresh), EVT_OK);
    assert_int_equal(evt_module_optimize(fresh, 2), EVT_OK);
    assert_int_equal(evt_kernel_cuda(fresh, evt_module_find_kernel(fresh, "tn"), EVT_TARGET_SM80, &want),
                     EVT_OK);
    assert_string_equal(again, want);
    evt_module_destroy(fresh);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

/* The libraries' paths: checked, and used (a compile through a path that
 * does not exist fails naming it). */
static void test_library_paths(void **state)
{
    (void)state;
    evt_ctx *ctx = evt_ctx_create();
    assert_int_equal(evt_ctx_set_library_path(ctx, (evt_library)7, "x"), EVT_ERR_INVALID_ARGUMENT);
    char *long_path = malloc(5000);
    memset(long_path, 'a', 4999);
    long_path[4999] = '\0';
    assert_int_equal(evt_ctx_set_library_path(ctx, EVT_LIBRARY_NVRTC, long_path),
                     EVT_ERR_INVALID_ARGUMENT);
    free(long_path);
    assert_int_equal(evt_ctx_set_library_path(ctx, EVT_LIBRARY_CUDA_DRIVER, NULL), EVT_OK);
    assert_int_equal(evt_ctx_set_library_path(ctx, EVT_LIBRARY_NVRTC, "/nonexistent/libnvrtc.so"),
                     EVT_OK);
    evt_module *m = parse(ctx);
    void *data = NULL;
    size_t size = 0;
    assert_int_equal(evt_kernel_compile(m, evt_module_find_kernel(m, "tn"), EVT_TARGET_SM80,
                                        EVT_BINARY_PTX, &data, &size, NULL),
                     EVT_ERR_COMPILE);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "/nonexistent/libnvrtc.so"));
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

/* Fast math: off by default and for NULL; 0 and 1 only; a listing made
 * with it calls exactly the fast builtins (exp, sigmoid, silu, gelu_tanh,
 * gelu) and includes their header, tanh staying exact, and one made
 * after it is turned off again is the exact listing, byte for byte (the
 * module keeps the last listing's shared texts: they must not leak). */
static void test_fast_math(void **state)
{
    (void)state;
    static const char *const fm =
        "epilogue e { in bias : f16[N]\n"
        " out y : f16[M, N] = gelu_tanh(acc + bias) + silu(acc) + sigmoid(acc) + exp(acc)\n"
        " out z : f32[M, N] = gelu(acc) + tanh(acc) }\n"
        "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with e\n";
    evt_ctx *ctx = evt_ctx_create();
    assert_int_equal(evt_ctx_fast_math(ctx), 0);
    assert_int_equal(evt_ctx_fast_math(NULL), 0);
    assert_int_equal(evt_ctx_set_fast_math(NULL, 1), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_ctx_set_fast_math(ctx, 2), EVT_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "0 or 1"));
    assert_int_equal(evt_ctx_fast_math(ctx), 0);
    evt_module *m = NULL;
    assert_int_equal(evt_module_parse_buffer(ctx, "fm.evt", fm, strlen(fm), &m), EVT_OK);
    assert_int_equal(evt_module_optimize(m, 2), EVT_OK);
    const evt_kernel *k = evt_module_find_kernel(m, "k");
    const evt_tuning t = {.config = "sm90_coop2_128x256x64_s3"}; /* a shorter listing */
    assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_OK);
    const char *exact = NULL, *fast = NULL, *again = NULL;
    assert_int_equal(evt_kernel_cuda(m, k, EVT_TARGET_SM90A, &exact), EVT_OK);
    assert_null(strstr(exact, "evt_fast_"));
    assert_null(strstr(exact, "fast_math.h"));
    assert_non_null(strstr(exact, "evt_gelu_tanh("));
    assert_int_equal(evt_ctx_set_fast_math(ctx, 1), EVT_OK);
    assert_string_equal(evt_ctx_last_error(ctx), "");
    assert_int_equal(evt_ctx_fast_math(ctx), 1);
    assert_int_equal(evt_kernel_cuda(m, k, EVT_TARGET_SM90A, &fast), EVT_OK);
    assert_non_null(strstr(fast, "#include \"common/fast_math.h\""));
    static const char *const fast_names[] = {"evt_fast_gelu_tanh(", "evt_fast_silu(", "evt_fast_sigmoid(",
                                             "evt_fast_exp(", "evt_fast_gelu(", "evt_tanh("};
    for (size_t i = 0; i < sizeof fast_names / sizeof fast_names[0]; i++)
        assert_non_null(strstr(fast, fast_names[i]));
    static const char *const exact_names[] = {"evt_gelu_tanh(", "evt_silu(", "evt_sigmoid(", "evt_exp(", "evt_gelu("};
    for (size_t i = 0; i < sizeof exact_names / sizeof exact_names[0]; i++)
        assert_null(strstr(fast, exact_names[i])); /* "evt_fast_exp(" does not hold "evt_exp(" */
    assert_int_equal(evt_ctx_set_fast_math(ctx, 0), EVT_OK);
    assert_int_equal(evt_kernel_cuda(m, k, EVT_TARGET_SM90A, &again), EVT_OK);
    assert_string_equal(again, exact);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

/* A row-group case: kernel `kernel` of the module, on the ping-pong tile
 * with fast math as given and the row group forced (0: the generator's),
 * must emit `want` (the FAST and checked instances' groups). */
typedef struct group_case {
    const char *kernel;
    int fast_math, forced;
    const char *want;
} group_case;

static void check_groups(const char *src, const group_case *cases, size_t n)
{
    evt_ctx *ctx = evt_ctx_create();
    evt_module *m = NULL;
    assert_int_equal(evt_module_parse_buffer(ctx, "g.evt", src, strlen(src), &m), EVT_OK);
    for (size_t i = 0; i < n; i++) {
        const evt_tuning t = {.config = "sm90_pp2_128x128x64_s4", .row_group = cases[i].forced};
        assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_OK);
        assert_int_equal(evt_ctx_set_fast_math(ctx, cases[i].fast_math), EVT_OK);
        const char *text = NULL;
        assert_int_equal(evt_kernel_cuda(m, evt_module_find_kernel(m, cases[i].kernel), EVT_TARGET_SM90A, &text),
                         EVT_OK);
        if (!strstr(text, cases[i].want))
            fail_msg("%s fast_math %d row_group %d: no %s", cases[i].kernel, cases[i].fast_math, cases[i].forced,
                     cases[i].want);
    }
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

/* The epilogue's row group under fast math: 4 rows where every costly
 * builtin is a fast one and nothing is loaded per row (2 when exact, or
 * where an exact costly builtin, tanh, remains); a forced one still wins. */
static void test_fast_math_row_group(void **state)
{
    (void)state;
    static const char *const src =
        "epilogue f { in bias : f16[N]\n out y : f16[M, N] = gelu_tanh(acc + bias) }\n"
        "epilogue t { in bias : f16[N]\n out y : f16[M, N] = gelu(acc + bias) + tanh(acc) }\n"
        "epilogue l { in bias : f16[N]\n out y : f16[M, N] = relu(acc + bias) }\n"
        "kernel kf = gemm(a: f16 row, b: f16 col, acc: f32) with f\n"
        "kernel kt = gemm(a: f16 row, b: f16 col, acc: f32) with t\n"
        "kernel kl = gemm(a: f16 row, b: f16 col, acc: f32) with l\n";
    static const group_case cases[] = {
        {"kf", 0, 0, "(FAST ? 2 : 1)"}, {"kf", 1, 0, "(FAST ? 4 : 1)"}, {"kf", 1, 8, "(FAST ? 8 : 1)"},
        {"kt", 0, 0, "(FAST ? 2 : 1)"}, {"kt", 1, 0, "(FAST ? 2 : 1)"}, {"kl", 1, 0, "(FAST ? 2 : 1)"},
    };
    check_groups(src, cases, sizeof cases / sizeof cases[0]);
}

/* The row group with per-row loads: 16 rows for a cheap epilogue while the
 * group's loads fit in 256 bytes a thread (one 16-bit [M, N] input, or an
 * fp8 one; 8 rows of a float one), halved while they would not (a float
 * [M, N] input beside an fp8 one spilled 1.5 KB a thread at 16 rows), 4
 * for a costly builtin, never under 2; a forced group still wins. */
static void test_row_group_load_bytes(void **state)
{
    (void)state;
    static const char *const src =
        "epilogue h { in z : f16[M, N]\n out y : f16[M, N] = relu(acc + z) }\n"
        "epilogue q { in z : e4m3[M, N]\n out y : f16[M, N] = relu(acc + z) }\n"
        "epilogue f { in z : f32[M, N]\n out y : f16[M, N] = relu(acc + z) }\n"
        "epilogue fm { in z : f32[M, N]\n in s : f32[M]\n out y : f16[M, N] = relu(acc + z) * s }\n"
        "epilogue fq { in z : f32[M, N]\n in w : e4m3[M, N]\n out y : f16[M, N] = relu(acc + z) + w }\n"
        "epilogue f4 { in a : f32[M, N]\n in b : f32[M, N]\n in c : f32[M, N]\n in d : f32[M, N]\n"
        "  in e : f32[M, N]\n out y : f16[M, N] = a + b + c + d + e + acc }\n"
        "epilogue g { in z : f16[M, N]\n out y : f16[M, N] = gelu(acc + z) }\n"
        "epilogue gf { in z : f32[M, N]\n in w : f32[M, N]\n in v : f32[M, N]\n"
        "  out y : f16[M, N] = gelu(acc + z) * w + v }\n"
        "kernel kh = gemm(a: f16 row, b: f16 col, acc: f32) with h\n"
        "kernel kq = gemm(a: f16 row, b: f16 col, acc: f32) with q\n"
        "kernel kf = gemm(a: f16 row, b: f16 col, acc: f32) with f\n"
        "kernel kfm = gemm(a: f16 row, b: f16 col, acc: f32) with fm\n"
        "kernel kfq = gemm(a: f16 row, b: f16 col, acc: f32) with fq\n"
        "kernel kf4 = gemm(a: f16 row, b: f16 col, acc: f32) with f4\n"
        "kernel kg = gemm(a: f16 row, b: f16 col, acc: f32) with g\n"
        "kernel kgf = gemm(a: f16 row, b: f16 col, acc: f32) with gf\n";
    static const group_case cases[] = {
        {"kh", 0, 0, "(FAST ? 16 : 4)"}, {"kq", 0, 0, "(FAST ? 16 : 4)"}, {"kf", 0, 0, "(FAST ? 8 : 2)"},
        {"kfm", 0, 0, "(FAST ? 4 : 2)"}, {"kfq", 0, 0, "(FAST ? 4 : 2)"}, {"kf4", 0, 0, "(FAST ? 2 : 1)"},
        {"kg", 0, 0, "(FAST ? 4 : 2)"},  {"kgf", 0, 0, "(FAST ? 2 : 1)"}, {"kfq", 0, 16, "(FAST ? 16 : 4)"},
    };
    check_groups(src, cases, sizeof cases / sizeof cases[0]);
}

/* The register-direct epilogue (codegen/emit_cuda.c, emit_direct): where the
 * producer/consumer entries take it (a per-element epilogue on the TMA path,
 * unless the tuning keeps the shared tile), and whether its segments unroll
 * (only fast math's cheap builtins and none). */
static void test_direct_epilogue(void **state)
{
    (void)state;
    static const char *const src =
        "epilogue f { in bias : f16[N]\n out y : f16[M, N] = gelu_tanh(acc + bias) }\n"
        "epilogue e { in bias : f16[N]\n out y : f16[M, N] = gelu(acc + bias) }\n"
        "epilogue l { in bias : f16[N]\n out y : f16[M, N] = relu(acc + bias) }\n"
        "epilogue r { in z : f16[M, N]\n out y : f16[M, N] = relu(acc + z) }\n"
        "epilogue s { out y : f16[M, N] = acc\n out t : f32[N] = reduce_sum(acc, M) }\n"
        "kernel kf = gemm(a: f16 row, b: f16 col, acc: f32) with f\n"
        "kernel ke = gemm(a: f16 row, b: f16 col, acc: f32) with e\n"
        "kernel kl = gemm(a: f16 row, b: f16 col, acc: f32) with l\n"
        "kernel kr = gemm(a: f16 row, b: f16 col, acc: f32) with r\n"
        "kernel ks = gemm(a: f16 row, b: f16 col, acc: f32) with s\n";
    static const struct {
        const char *kernel, *config;
        int fast_math, shared, forced;
        const char *want; /* NULL: no direct epilogue on the fast entry */
    } cases[] = {
        {"kf", "sm90_pp2_128x128x64_s4", 1, 0, 0, "UNROLL = FAST ? 2 * NH * PARTS : 1"},
        /* exact gelu_tanh and fast math's erf GELU would loop: the shared tile,
         * unless a row group of 4 or more forces the unrolled form */
        {"kf", "sm90_pp2_128x128x64_s4", 0, 0, 0, NULL},
        {"kf", "sm90_pp2_128x128x64_s4", 0, 0, 2, NULL},
        {"kf", "sm90_coop2_128x256x64_s4", 0, 0, 8, "UNROLL = FAST ? 2 * NH * PARTS : 1"},
        {"ke", "sm90_coop2_128x256x64_s4", 1, 0, 0, NULL},
        {"ke", "sm90_pp2_128x128x64_s4", 0, 0, 0, NULL},
        /* shared_epilogue < 0 forces the registers wherever the epilogue is
         * per-element: the looped form, and still no [M, N] input or reduction */
        {"ke", "sm90_pp2_128x128x64_s4", 0, -1, 0, "UNROLL = FAST ? 1 : 1"},
        {"kf", "sm90_coop2_128x256x64_s4", 0, -7, 0, "UNROLL = FAST ? 1 : 1"},
        {"kl", "sm90_pp2_128x128x64_s4", 0, -1, 0, "UNROLL = FAST ? 2 * NH * PARTS : 1"},
        {"kr", "sm90_pp2_128x128x64_s4", 0, -1, 0, NULL},
        {"ks", "sm90_coop2_128x256x64_s4", 0, -1, 0, NULL},
        {"kr", "sm90_pp2_128x128x64_s2_staged", 0, -1, 0, NULL},
        {"kl", "sm90_wg2_128x256x64_s4", 0, -1, 0, NULL},
        {"kl", "sm90_pp2_128x128x64_s6", 0, 0, 0, "UNROLL = FAST ? 2 * NH * PARTS : 1"},
        {"kl", "sm90_pp2_128x128x64_s4", 0, 1, 0, NULL},
        {"kr", "sm90_pp2_128x128x64_s2_staged", 0, 0, 0, NULL},
        {"kl", "sm90_wg2_128x256x64_s4", 0, 0, 0, NULL},
        {"kr", "sm90_pp2_128x128x64_s4", 0, 0, 0, NULL},
        {"ks", "sm90_coop2_128x256x64_s4", 0, 0, 0, NULL},
    };
    evt_ctx *ctx = evt_ctx_create();
    evt_module *m = NULL;
    assert_int_equal(evt_module_parse_buffer(ctx, "d.evt", src, strlen(src), &m), EVT_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const evt_tuning t = {.config = cases[i].config, .row_group = cases[i].forced,
                              .shared_epilogue = cases[i].shared};
        assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_OK);
        assert_int_equal(evt_ctx_set_fast_math(ctx, cases[i].fast_math), EVT_OK);
        const char *text = NULL;
        assert_int_equal(evt_kernel_cuda(m, evt_module_find_kernel(m, cases[i].kernel), EVT_TARGET_SM90A, &text),
                         EVT_OK);
        /* the fast entry comes first; its guarded twin never takes the direct epilogue */
        const char *guarded = strstr(text, "_guarded_sm90a(");
        const char *direct = strstr(text, "enum { kDirect = 1,");
        assert_non_null(guarded);
        if (!cases[i].want) {
            if (direct)
                fail_msg("%s %s shared %d: a direct epilogue", cases[i].kernel, cases[i].config, cases[i].shared);
            continue;
        }
        if (!direct || direct > guarded || strstr(guarded, "enum { kDirect = 1,"))
            fail_msg("%s %s: the fast entry alone should take the direct epilogue", cases[i].kernel,
                     cases[i].config);
        if (!strstr(text, cases[i].want))
            fail_msg("%s %s fast_math %d row_group %d: no %s", cases[i].kernel, cases[i].config,
                     cases[i].fast_math, cases[i].forced, cases[i].want);
        /* edge rows take the staged instance, its rows bounded (session 29);
         * only edge columns or unaligned operands take the checked one; a
         * shifted last tile column (at any column) takes the staged one
         * where its rows are aligned there, and leaves the columns below
         * col_lo to the tile before */
        if (!strstr(text, "    if ((evt_i64)col_t + NC <= p.n && col_t % 8 == 0 &&") || strstr(text, "NH * 64 <= p.m") ||
            !strstr(text, "p.ld_out0, p.m - wrow,\n                        col_lo - col_t - part * W);") ||
            !strstr(text, "col < col_lo ||"))
            fail_msg("%s %s: the staged instance should take edge rows, bounded, and shifted tiles", cases[i].kernel,
                     cases[i].config);
    }
    evt_module_destroy(m);
    /* a shifted column's staged instance needs col_t on the widest output
     * piece's columns: 16 bytes of f32 (4), of e4m3 beside f32 (16) */
    static const char *const wide = "epilogue g { out y : f32[M, N] = acc }\n"
                                    "epilogue q { out y : f32[M, N] = acc\n out z : e4m3[M, N] = acc }\n"
                                    "kernel kg = gemm(a: f16 row, b: f16 col, acc: f32) with g\n"
                                    "kernel kq = gemm(a: f16 row, b: f16 col, acc: f32) with q\n";
    assert_int_equal(evt_module_parse_buffer(ctx, "w.evt", wide, strlen(wide), &m), EVT_OK);
    const evt_tuning t = {.config = "sm90_pp2_128x128x64_s4"};
    assert_int_equal(evt_ctx_set_tuning(ctx, &t), EVT_OK);
    assert_int_equal(evt_ctx_set_fast_math(ctx, 0), EVT_OK);
    const char *kernels[] = {"kg", "kq"}, *wants[] = {"col_t % 4 == 0 &&", "col_t % 16 == 0 &&"};
    for (int i = 0; i < 2; i++) {
        const char *text = NULL;
        assert_int_equal(evt_kernel_cuda(m, evt_module_find_kernel(m, kernels[i]), EVT_TARGET_SM90A, &text), EVT_OK);
        if (!strstr(text, "enum { kDirect = 1,") || !strstr(text, wants[i]))
            fail_msg("%s: a direct epilogue whose staged instance tests %s", kernels[i], wants[i]);
    }
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tuning_values),
        cmocka_unit_test(test_forced_listing),
        cmocka_unit_test(test_listing_reuse),
        cmocka_unit_test(test_library_paths),
        cmocka_unit_test(test_fast_math),
        cmocka_unit_test(test_fast_math_row_group),
        cmocka_unit_test(test_row_group_load_bytes),
        cmocka_unit_test(test_direct_epilogue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
