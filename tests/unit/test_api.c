/* test_api.c - the front end's public interface (include/evt/evt.h): contexts,
 * parsing, diagnostics, the listing of epilogues, kernels and arguments,
 * printing, every function's answer to NULL and out-of-range arguments, and
 * the last-error message of every family of calls (context, module, launch,
 * interpreter). */
#define _POSIX_C_SOURCE 200809L /* mkstemp, strdup */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <evt/evt.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXAMPLES EVT_SOURCE_DIR "/tests/golden/examples.evt"

#include "module_fixture.h"

static evt_status parse(fixture *f, const char *src)
{
    evt_module_destroy(f->m);
    f->m = NULL;
    return evt_module_parse_buffer(f->ctx, "api.evt", src, strlen(src), &f->m);
}

/* ---- version, names ---------------------------------------------------- */

static void test_version(void **state)
{
    (void)state;
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", EVT_VERSION_MAJOR, EVT_VERSION_MINOR,
             EVT_VERSION_PATCH);
    assert_string_equal(EVT_VERSION_STRING, want);
    assert_string_equal(evt_version(), EVT_VERSION_STRING);
    assert_int_equal(evt_version_number(), EVT_VERSION_NUMBER);
    assert_int_equal(EVT_VERSION_NUMBER,
                     EVT_VERSION_MAJOR * 10000 + EVT_VERSION_MINOR * 100 + EVT_VERSION_PATCH);
}

static void test_status_strings(void **state)
{
    (void)state;
    static const evt_status all[] = {EVT_OK, EVT_ERR_SOURCE, EVT_ERR_INVALID_ARGUMENT,
                                     EVT_ERR_NOT_FOUND, EVT_ERR_IO, EVT_ERR_NO_MEMORY,
                                     EVT_ERR_LIMIT};
    size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; i < n; i++) {
        const char *s = evt_status_string(all[i]);
        assert_non_null(s);
        assert_true(strlen(s) > 0);
        assert_string_not_equal(s, "unknown status");
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(s, evt_status_string(all[j]));
    }
    assert_string_equal(evt_status_string(EVT_OK), "success");
    assert_string_equal(evt_status_string(EVT_ERR_SOURCE), "invalid source");
    assert_string_equal(evt_status_string((evt_status)-1), "unknown status");
    assert_string_equal(evt_status_string((evt_status)9999), "unknown status");
}

static void test_enum_names(void **state)
{
    (void)state;
    static const char *const elems[] = {"f32", "f16", "bf16", "i8", "i32", "e4m3", "e5m2"};
    static const size_t sizes[] = {4, 2, 2, 1, 4, 1, 1};
    for (int e = EVT_F32; e <= EVT_E5M2; e++) {
        assert_string_equal(evt_elem_name((evt_elem)e), elems[e]);
        assert_int_equal(evt_elem_size((evt_elem)e), sizes[e]);
    }
    assert_string_equal(evt_elem_name((evt_elem)7), "?");
    assert_string_equal(evt_elem_name((evt_elem)-1), "?");
    assert_int_equal(evt_elem_size((evt_elem)7), 0);
    assert_int_equal(evt_elem_size((evt_elem)-1), 0);
    assert_string_equal(evt_shape_name(EVT_SHAPE_SCALAR), "");
    assert_string_equal(evt_shape_name(EVT_SHAPE_M), "[M]");
    assert_string_equal(evt_shape_name(EVT_SHAPE_N), "[N]");
    assert_string_equal(evt_shape_name(EVT_SHAPE_MN), "[M, N]");
    assert_string_equal(evt_shape_name((evt_shape)4), "?");
    assert_string_equal(evt_mainloop_name(EVT_MAINLOOP_GEMM), "gemm");
    assert_string_equal(evt_mainloop_name(EVT_MAINLOOP_CONV2D_FPROP), "conv2d_fprop");
    assert_string_equal(evt_mainloop_name((evt_mainloop)2), "?");
    assert_string_equal(evt_mainloop_name((evt_mainloop)-1), "?");
}

/* ---- contexts and parsing ----------------------------------------------- */

static void test_context(void **state)
{
    (void)state;
    evt_ctx *ctx = evt_ctx_create();
    assert_non_null(ctx);
    assert_string_equal(evt_ctx_last_error(ctx), "");
    evt_ctx_destroy(ctx);
    evt_ctx_destroy(NULL);
    assert_non_null(evt_ctx_last_error(NULL));
}

static void test_parse_null_arguments(void **state)
{
    fixture *f = *state;
    evt_module *m = (evt_module *)&m; /* any non-NULL value: must be overwritten or untouched */
    assert_int_equal(evt_module_parse_buffer(NULL, "x", "", 0, &m), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_module_parse_buffer(f->ctx, "x", "", 0, NULL), EVT_ERR_INVALID_ARGUMENT);
    assert_true(strlen(evt_ctx_last_error(f->ctx)) > 0);
    assert_int_equal(evt_module_parse_buffer(f->ctx, "x", NULL, 5, &m), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_module_parse_file(NULL, EXAMPLES, &m), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_module_parse_file(f->ctx, NULL, &m), EVT_ERR_INVALID_ARGUMENT);
    assert_int_equal(evt_module_parse_file(f->ctx, EXAMPLES, NULL), EVT_ERR_INVALID_ARGUMENT);
    assert_true(strlen(evt_ctx_last_error(f->ctx)) > 0);

    /* NULL source with length 0 is an empty file; a NULL name is "<input>". */
    m = NULL;
    assert_int_equal(evt_module_parse_buffer(f->ctx, NULL, NULL, 0, &m), EVT_OK);
    assert_non_null(m);
    assert_string_equal(evt_ctx_last_error(f->ctx), "");
    assert_int_equal(evt_module_diag_count(m), 0);
    assert_int_equal(evt_module_epilogue_count(m), 0);
    assert_string_equal(evt_module_ir_text(m), "");
    evt_module_destroy(m);
    assert_int_equal(evt_module_parse_buffer(f->ctx, NULL, "x", 1, &m), EVT_ERR_SOURCE);
    assert_string_equal(evt_module_diag(m, 0)->loc.file, "<input>");
    evt_module_destroy(m);
}

static void test_parse_file(void **state)
{
    fixture *f = *state;
    evt_module *m = (evt_module *)&m;
    assert_int_equal(evt_module_parse_file(f->ctx, "/nonexistent/dir/x.evt", &m), EVT_ERR_IO);
    assert_null(m);
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "/nonexistent/dir/x.evt"));
    m = (evt_module *)&m;
    assert_int_equal(evt_module_parse_file(f->ctx, EVT_SOURCE_DIR "/tests", &m), EVT_ERR_IO);
    assert_null(m);

    char path[] = "/tmp/evt_test_api_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char src[] = "epilogue e {\n  in b : f16[N]\n  out y : f16[M, N] = acc + bais\n}\n";
    assert_int_equal(write(fd, src, sizeof src - 1), (ssize_t)(sizeof src - 1));
    close(fd);
    assert_int_equal(evt_module_parse_file(f->ctx, path, &f->m), EVT_ERR_SOURCE);
    unlink(path);
    assert_non_null(f->m);
    assert_int_equal(evt_module_error_count(f->m), 1);
    const evt_diag *d = evt_module_diag(f->m, 0);
    assert_string_equal(d->loc.file, path);
    assert_int_equal(d->loc.line, 3);
    assert_int_equal(d->loc.column, 29);
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "1 error"));

    /* The file and the same bytes as a buffer give the same module. */
    evt_module_destroy(f->m);
    f->m = NULL;
    assert_int_equal(evt_module_parse_file(f->ctx, EXAMPLES, &f->m), EVT_OK);
    char *ir = strdup(evt_module_ir_text(f->m));
    FILE *fp = fopen(EXAMPLES, "rb");
    assert_non_null(fp);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    evt_module *m2 = NULL;
    assert_int_equal(evt_module_parse_buffer(f->ctx, "buffer", buf, n, &m2), EVT_OK);
    assert_string_equal(evt_module_ir_text(m2), ir);
    evt_module_destroy(m2);
    free(ir);
}

/* A source over the size limit is refused before a byte of it is read. */
static void test_size_limit(void **state)
{
    fixture *f = *state;
    evt_module *m = (evt_module *)&m;
    assert_int_equal(evt_module_parse_buffer(f->ctx, "huge.evt", "x", (size_t)1 << 40, &m),
                     EVT_ERR_LIMIT);
    assert_null(m);
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "huge.evt"));
    assert_non_null(strstr(evt_ctx_last_error(f->ctx), "limit"));
}

/* The library copies the source: the caller's buffer may change right away. */
static void test_source_is_copied(void **state)
{
    fixture *f = *state;
    char src[] = "epilogue e { out y : f32[M, N] = acc + zz }";
    assert_int_equal(evt_module_parse_buffer(f->ctx, "c.evt", src, strlen(src), &f->m),
                     EVT_ERR_SOURCE);
    memset(src, '#', strlen(src));
    assert_non_null(strstr(evt_module_diag_text(f->m, EVT_DIAG_TEXT), "acc + zz"));
}

/* The length, not a NUL, ends the source. */
static void test_nul_in_buffer(void **state)
{
    fixture *f = *state;
    static const char src[] = "epilogue e {\0 out y : f32[M, N] = acc }";
    assert_int_equal(evt_module_parse_buffer(f->ctx, "n.evt", src, sizeof src - 1, &f->m),
                     EVT_ERR_SOURCE);
    assert_int_equal(evt_module_diag_count(f->m), 1);
    assert_string_equal(evt_module_diag(f->m, 0)->message, "unexpected byte 0x00");
    /* Only the prefix before the NUL: an epilogue left open. */
    evt_module_destroy(f->m);
    f->m = NULL;
    assert_int_equal(evt_module_parse_buffer(f->ctx, "n.evt", src, 12, &f->m), EVT_ERR_SOURCE);
    assert_non_null(strstr(evt_module_diag(f->m, 0)->message, "end of file"));
}

/* ---- diagnostics -------------------------------------------------------- */

static void test_diagnostics(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse(f, "epilogue e {\n"
                              "  in x : f32\n"
                              "  in x : f32\n"
                              "  out y : f32[M, N] = acc + q\n"
                              "}\n"
                              "epilogue w { in u : f32  out y : f32[M, N] = acc }\n"),
                     EVT_ERR_SOURCE);
    assert_int_equal(evt_module_diag_count(f->m), 4);
    assert_int_equal(evt_module_error_count(f->m), 2);
    static const struct {
        evt_severity sev;
        unsigned line, column;
        const char *message;
    } want[] = {
        {EVT_SEV_ERROR, 3, 6, "'x' is already defined"},
        {EVT_SEV_NOTE, 2, 6, "'x' was first defined here"},
        {EVT_SEV_ERROR, 4, 29, "unknown name 'q'"},
        {EVT_SEV_WARNING, 6, 17, "input 'u' is not used by any output"},
    };
    for (size_t i = 0; i < 4; i++) {
        const evt_diag *d = evt_module_diag(f->m, i);
        assert_non_null(d);
        assert_int_equal(d->severity, want[i].sev);
        assert_string_equal(d->loc.file, "api.evt");
        assert_int_equal(d->loc.line, want[i].line);
        assert_int_equal(d->loc.column, want[i].column);
        assert_string_equal(d->message, want[i].message);
    }
    assert_null(evt_module_diag(f->m, 4));
    assert_null(evt_module_diag(f->m, SIZE_MAX));

    const char *text = evt_module_diag_text(f->m, EVT_DIAG_TEXT);
    assert_non_null(strstr(text, "api.evt:4:29: error: unknown name 'q'\n"
                                 "    out y : f32[M, N] = acc + q\n"
                                 "                              ^\n"));
    assert_ptr_equal(evt_module_diag_text(f->m, EVT_DIAG_TEXT), text); /* rendered once */
    const char *json = evt_module_diag_text(f->m, EVT_DIAG_JSON);
    assert_non_null(strstr(json, "{\"file\":\"api.evt\",\"line\":2,\"column\":6,"
                                 "\"severity\":\"note\",\"message\":\"'x' was first defined here\"}\n"));
    size_t lines = 0;
    for (const char *p = json; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 4);
    assert_string_equal(evt_module_diag_text(f->m, (evt_diag_format)7), "");

    /* A module with errors lists nothing and prints nothing. */
    assert_int_equal(evt_module_epilogue_count(f->m), 0);
    assert_int_equal(evt_module_kernel_count(f->m), 0);
    assert_null(evt_module_epilogue(f->m, 0));
    assert_null(evt_module_find_epilogue(f->m, "w"));
    assert_null(evt_module_ir_text(f->m));
    assert_null(evt_module_dot_text(f->m));
}

static void test_warnings_only(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse(f, "epilogue w { in u : f32  out y : f32[M, N] = acc }"), EVT_OK);
    assert_int_equal(evt_module_diag_count(f->m), 1);
    assert_int_equal(evt_module_error_count(f->m), 0);
    assert_int_equal(evt_module_diag(f->m, 0)->severity, EVT_SEV_WARNING);
    assert_int_equal(evt_module_epilogue_count(f->m), 1);
    assert_non_null(evt_module_ir_text(f->m));
    assert_string_equal(evt_ctx_last_error(f->ctx), "");
}

/* ---- contents ----------------------------------------------------------- */

static void test_epilogue_listing(void **state)
{
    fixture *f = *state;
    assert_int_equal(evt_module_parse_file(f->ctx, EXAMPLES, &f->m), EVT_OK);
    static const char *const names[] = {"bias_relu_add", "bias_add_relu", "bias_gelu",
                                        "bias_relu_aux_amax", "dequant_rowsum"};
    static const unsigned lines[] = {4, 13, 21, 28, 39};
    assert_int_equal(evt_module_epilogue_count(f->m), 5);
    for (size_t i = 0; i < 5; i++) {
        const evt_epilogue *e = evt_module_epilogue(f->m, i);
        assert_non_null(e);
        assert_string_equal(evt_epilogue_name(e), names[i]);
        assert_ptr_equal(evt_module_find_epilogue(f->m, names[i]), e);
        evt_loc loc = evt_epilogue_loc(e);
        assert_string_equal(loc.file, EXAMPLES);
        assert_int_equal(loc.line, lines[i]);
        assert_int_equal(loc.column, 10);
    }
    assert_null(evt_module_epilogue(f->m, 5));
    assert_null(evt_module_find_epilogue(f->m, "nope"));
    assert_null(evt_module_find_epilogue(f->m, NULL));
    assert_null(evt_module_find_epilogue(f->m, "bias_gelu "));

    /* bias_relu_add: param alpha = 1.0, in bias f16[N], in residual f16[M, N], out D. */
    const evt_epilogue *e = evt_module_find_epilogue(f->m, "bias_relu_add");
    assert_int_equal(evt_epilogue_arg_count(e, EVT_ARG_PARAM), 1);
    assert_int_equal(evt_epilogue_arg_count(e, EVT_ARG_INPUT), 2);
    assert_int_equal(evt_epilogue_arg_count(e, EVT_ARG_OUTPUT), 1);
    const evt_arg_info *a = evt_epilogue_arg(e, EVT_ARG_PARAM, 0);
    assert_string_equal(a->name, "alpha");
    assert_int_equal(a->kind, EVT_ARG_PARAM);
    assert_int_equal(a->elem, EVT_F32);
    assert_int_equal(a->shape, EVT_SHAPE_SCALAR);
    assert_int_equal(a->has_default, 1);
    assert_true(a->default_value == 1.0f);
    assert_string_equal(a->loc.file, EXAMPLES);
    assert_int_equal(a->loc.line, 5);
    assert_int_equal(a->loc.column, 11);
    a = evt_epilogue_arg(e, EVT_ARG_INPUT, 0);
    assert_string_equal(a->name, "bias");
    assert_int_equal(a->kind, EVT_ARG_INPUT);
    assert_int_equal(a->elem, EVT_F16);
    assert_int_equal(a->shape, EVT_SHAPE_N);
    assert_int_equal(a->loc.line, 6);
    a = evt_epilogue_arg(e, EVT_ARG_INPUT, 1);
    assert_string_equal(a->name, "residual");
    assert_int_equal(a->shape, EVT_SHAPE_MN);
    a = evt_epilogue_arg(e, EVT_ARG_OUTPUT, 0);
    assert_string_equal(a->name, "D");
    assert_int_equal(a->kind, EVT_ARG_OUTPUT);
    assert_int_equal(a->elem, EVT_F16);
    assert_int_equal(a->shape, EVT_SHAPE_MN);
    assert_int_equal(a->reduce, EVT_REDUCE_NONE);
    assert_null(evt_epilogue_arg(e, EVT_ARG_OUTPUT, 1));
    assert_null(evt_epilogue_arg(e, EVT_ARG_PARAM, 1));
    assert_null(evt_epilogue_arg(e, (evt_arg_kind)3, 0));
    assert_int_equal(evt_epilogue_arg_count(e, (evt_arg_kind)3), 0);

    /* Reductions, and the types of several outputs in declaration order. */
    e = evt_module_find_epilogue(f->m, "bias_relu_aux_amax");
    assert_int_equal(evt_epilogue_arg_count(e, EVT_ARG_OUTPUT), 3);
    static const char *const outs[] = {"pre", "y", "amax"};
    static const evt_elem out_elems[] = {EVT_F16, EVT_E4M3, EVT_F32};
    static const evt_shape out_shapes[] = {EVT_SHAPE_MN, EVT_SHAPE_MN, EVT_SHAPE_SCALAR};
    static const evt_reduce out_reduce[] = {EVT_REDUCE_NONE, EVT_REDUCE_NONE, EVT_REDUCE_MAX};
    for (size_t i = 0; i < 3; i++) {
        a = evt_epilogue_arg(e, EVT_ARG_OUTPUT, i);
        assert_string_equal(a->name, outs[i]);
        assert_int_equal(a->elem, out_elems[i]);
        assert_int_equal(a->shape, out_shapes[i]);
        assert_int_equal(a->reduce, out_reduce[i]);
    }
    e = evt_module_find_epilogue(f->m, "dequant_rowsum");
    a = evt_epilogue_arg(e, EVT_ARG_OUTPUT, 1);
    assert_string_equal(a->name, "sum");
    assert_int_equal(a->shape, EVT_SHAPE_M);
    assert_int_equal(a->reduce, EVT_REDUCE_SUM);
    assert_int_equal(evt_epilogue_arg(e, EVT_ARG_INPUT, 0)->shape, EVT_SHAPE_M);
    assert_int_equal(evt_epilogue_arg(e, EVT_ARG_INPUT, 0)->elem, EVT_F32);
}

static void test_params_and_reduce_min(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse(f, "epilogue p {\n"
                              "  param a : f32\n"
                              "  param b : f16 = -0.25\n"
                              "  param c : f32 = -0\n"
                              "  out lo : bf16[N] = reduce_min(acc * a * b * c, M)\n"
                              "}"),
                     EVT_OK);
    const evt_epilogue *e = evt_module_epilogue(f->m, 0);
    const evt_arg_info *a = evt_epilogue_arg(e, EVT_ARG_PARAM, 0);
    assert_int_equal(a->has_default, 0);
    a = evt_epilogue_arg(e, EVT_ARG_PARAM, 1);
    assert_int_equal(a->elem, EVT_F16);
    assert_int_equal(a->has_default, 1);
    assert_true(a->default_value == -0.25f);
    a = evt_epilogue_arg(e, EVT_ARG_PARAM, 2);
    assert_true(a->default_value == 0.0f && signbit(a->default_value));
    a = evt_epilogue_arg(e, EVT_ARG_OUTPUT, 0);
    assert_int_equal(a->reduce, EVT_REDUCE_MIN);
    assert_int_equal(a->shape, EVT_SHAPE_N);
    assert_int_equal(a->elem, EVT_BF16);
}

static void test_kernel_listing(void **state)
{
    fixture *f = *state;
    assert_int_equal(evt_module_parse_file(f->ctx, EXAMPLES, &f->m), EVT_OK);
    static const struct {
        const char *name, *epilogue;
        unsigned line;
        evt_mainloop mainloop;
        evt_elem elem;
        evt_layout la, lb;
    } want[] = {
        {"resnet_block", "bias_relu_add", 10, EVT_MAINLOOP_CONV2D_FPROP, EVT_F16,
         EVT_LAYOUT_NONE, EVT_LAYOUT_NONE},
        {"resnet_block_post", "bias_add_relu", 18, EVT_MAINLOOP_CONV2D_FPROP, EVT_F16,
         EVT_LAYOUT_NONE, EVT_LAYOUT_NONE},
        {"mlp_up", "bias_gelu", 25, EVT_MAINLOOP_GEMM, EVT_BF16, EVT_LAYOUT_ROW, EVT_LAYOUT_COL},
        {"train_fwd", "bias_relu_aux_amax", 36, EVT_MAINLOOP_GEMM, EVT_F16, EVT_LAYOUT_ROW,
         EVT_LAYOUT_COL},
        {"dequant", "dequant_rowsum", 46, EVT_MAINLOOP_GEMM, EVT_F16, EVT_LAYOUT_ROW,
         EVT_LAYOUT_COL},
    };
    assert_int_equal(evt_module_kernel_count(f->m), 5);
    for (size_t i = 0; i < 5; i++) {
        const evt_kernel *k = evt_module_kernel(f->m, i);
        assert_non_null(k);
        assert_string_equal(evt_kernel_name(k), want[i].name);
        assert_ptr_equal(evt_module_find_kernel(f->m, want[i].name), k);
        evt_loc loc = evt_kernel_loc(k);
        assert_string_equal(loc.file, EXAMPLES);
        assert_int_equal(loc.line, want[i].line);
        assert_int_equal(loc.column, 8);
        assert_int_equal(evt_kernel_mainloop(k), want[i].mainloop);
        assert_ptr_equal(evt_kernel_epilogue(k), evt_module_find_epilogue(f->m, want[i].epilogue));
        const char *const *names = want[i].mainloop == EVT_MAINLOOP_GEMM
                                       ? (const char *const[]){"a", "b", "acc"}
                                       : (const char *const[]){"x", "w", "acc"};
        const evt_layout layouts[] = {want[i].la, want[i].lb, EVT_LAYOUT_NONE};
        for (size_t j = 0; j < 3; j++) {
            const evt_operand_info *op = evt_kernel_operand(k, j);
            assert_non_null(op);
            assert_string_equal(op->name, names[j]);
            assert_int_equal(op->elem, j == 2 ? EVT_F32 : want[i].elem);
            assert_int_equal(op->layout, layouts[j]);
        }
        assert_null(evt_kernel_operand(k, 3));
    }
    assert_null(evt_module_kernel(f->m, 5));
    assert_null(evt_module_find_kernel(f->m, "bias_gelu")); /* an epilogue, not a kernel */
    assert_null(evt_module_find_kernel(f->m, NULL));
}

/* An omitted acc is f32 with no layout, as if written. */
static void test_kernel_acc_omitted(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse(f, "epilogue e { out y : f32[M, N] = acc }\n"
                              "kernel k = gemm(a: bf16 col, b: bf16 row) with e"),
                     EVT_OK);
    const evt_kernel *k = evt_module_kernel(f->m, 0);
    assert_string_equal(evt_kernel_operand(k, 2)->name, "acc");
    assert_int_equal(evt_kernel_operand(k, 2)->elem, EVT_F32);
    assert_int_equal(evt_kernel_operand(k, 2)->layout, EVT_LAYOUT_NONE);
    assert_int_equal(evt_kernel_operand(k, 0)->layout, EVT_LAYOUT_COL);
    assert_int_equal(evt_kernel_operand(k, 1)->layout, EVT_LAYOUT_ROW);
}

/* ---- printing ------------------------------------------------------------ */

static void test_texts(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse(f, "epilogue e { in b : f16[N] out y : f16[M, N] = relu(acc + b) }\n"
                              "kernel k = gemm(a: f16 row, b: f16 col) with e\n"),
                     EVT_OK);
    const char *ir = evt_module_ir_text(f->m);
    assert_string_equal(ir, "epilogue e {\n"
                            "  in b: f16[N]\n"
                            "  %0 = acc : f32[M, N]                          ; 1:53\n"
                            "  %1 = input b : f32[N]                         ; 1:59\n"
                            "  %2 = add %0, %1 : f32[M, N]                   ; 1:57\n"
                            "  %3 = relu %2 : f32[M, N]                      ; 1:48\n"
                            "  out y: f16[M, N] = %3\n"
                            "}\n"
                            "\n"
                            "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with e\n");
    assert_ptr_equal(evt_module_ir_text(f->m), ir);
    const char *dot = evt_module_dot_text(f->m);
    assert_non_null(dot);
    assert_true(strncmp(dot, "digraph \"api.evt\" {\n", 20) == 0);
    assert_non_null(strstr(dot, "  subgraph \"cluster_e\" {\n    label=\"epilogue e\";\n"));
    assert_non_null(strstr(dot, "label=\"relu\\nf32[M, N]\""));
    assert_non_null(strstr(dot, "    \"e.v3\" -> \"e.out0\";\n"));
    assert_ptr_equal(evt_module_dot_text(f->m), dot);
}

/* Several epilogues make one digraph, a cluster each, whose node ids do not
 * collide; a module without epilogues is an empty graph, not "". */
static void test_dot_one_graph(void **state)
{
    fixture *f = *state;
    assert_int_equal(parse(f, "epilogue a { out y : f32[M, N] = acc }\n"
                              "epilogue b { out y : f32[M, N] = relu(acc) }\n"),
                     EVT_OK);
    const char *dot = evt_module_dot_text(f->m);
    assert_non_null(dot);
    const char *at = dot;
    size_t graphs = 0;
    while ((at = strstr(at, "digraph")) != NULL) {
        graphs++;
        at++;
    }
    assert_int_equal(graphs, 1);
    const char *a = strstr(dot, "subgraph \"cluster_a\"");
    const char *b = strstr(dot, "subgraph \"cluster_b\"");
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a < b);
    assert_non_null(strstr(dot, "\"a.v0\" -> \"a.out0\";"));
    assert_non_null(strstr(dot, "\"b.v1\" -> \"b.out0\";"));
    assert_string_equal(dot + strlen(dot) - 6, "  }\n}\n");

    assert_int_equal(parse(f, "// nothing\n"), EVT_OK);
    assert_string_equal(evt_module_dot_text(f->m), "digraph \"api.evt\" {\n"
                                                   "  rankdir=TB;\n"
                                                   "  fontname=\"Helvetica\";\n"
                                                   "  node [fontname=\"Helvetica\", fontsize=10];\n"
                                                   "}\n");
}

/* ---- NULL everywhere ------------------------------------------------------ */

static void test_null_module_and_handles(void **state)
{
    (void)state;
    evt_module_destroy(NULL);
    assert_int_equal(evt_module_diag_count(NULL), 0);
    assert_null(evt_module_diag(NULL, 0));
    assert_int_equal(evt_module_error_count(NULL), 0);
    assert_string_equal(evt_module_diag_text(NULL, EVT_DIAG_TEXT), "");
    assert_int_equal(evt_module_epilogue_count(NULL), 0);
    assert_null(evt_module_epilogue(NULL, 0));
    assert_null(evt_module_find_epilogue(NULL, "e"));
    assert_null(evt_epilogue_name(NULL));
    evt_loc loc = evt_epilogue_loc(NULL);
    assert_null(loc.file);
    assert_int_equal(loc.line, 0);
    assert_int_equal(evt_epilogue_arg_count(NULL, EVT_ARG_INPUT), 0);
    assert_null(evt_epilogue_arg(NULL, EVT_ARG_INPUT, 0));
    assert_int_equal(evt_module_kernel_count(NULL), 0);
    assert_null(evt_module_kernel(NULL, 0));
    assert_null(evt_module_find_kernel(NULL, "k"));
    assert_null(evt_kernel_name(NULL));
    loc = evt_kernel_loc(NULL);
    assert_null(loc.file);
    assert_int_equal(loc.column, 0);
    (void)evt_kernel_mainloop(NULL);
    assert_null(evt_kernel_operand(NULL, 0));
    assert_null(evt_kernel_epilogue(NULL));
    assert_null(evt_module_ir_text(NULL));
    assert_null(evt_module_dot_text(NULL));
}

/* ---- the last error: a failure's reason, "" after a success ---------------- */

static const char last_error_src[] =
    "epilogue e {\n"
    "    param beta : f32\n"
    "    in  bias : f16[N]\n"
    "    in  res  : f16[M, N]\n"
    "    out y    : f16[M, N] = (acc + bias) * beta + res\n"
    "}\n"
    "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with e\n"
    "kernel kc = conv2d_fprop(x: f16, w: f16, acc: f32) with e\n";

/* What the calls of the table below work on: a module, a GEMM and a conv
 * launch of it, an interpreter of its epilogue with everything bound. */
typedef struct world {
    evt_ctx *ctx;
    evt_module *m;
    evt_launch *l, *lc;
    evt_interp *in;
    float acc[2 * 4];
    double acc64[2 * 4];
    unsigned short bias[4], res[2 * 4], y[2 * 4];
    double y64[2 * 4];
} world;

#define FAKE(addr) ((void *)(uintptr_t)(addr))

/* One call of a family: the failing form (ok = 0) or a succeeding one. */
typedef evt_status world_call(world *w, int ok);

static evt_status call_library_path(world *w, int ok)
{
    return evt_ctx_set_library_path(w->ctx, ok ? EVT_LIBRARY_NVRTC : (evt_library)7, NULL);
}

static evt_status call_ctx_tuning(world *w, int ok)
{
    const evt_tuning t = {.config = "no_such_config"};
    return evt_ctx_set_tuning(w->ctx, ok ? NULL : &t);
}

static evt_status call_parse_buffer(world *w, int ok)
{
    const char *src = ok ? "epilogue p { out y : f32[M, N] = acc }"
                         : "epilogue p { out y : f32[M, N] = bais }";
    evt_module *m = NULL;
    evt_status st = evt_module_parse_buffer(w->ctx, "p.evt", src, strlen(src), &m);
    evt_module_destroy(m);
    return st;
}

static evt_status call_parse_file(world *w, int ok)
{
    evt_module *m = NULL;
    evt_status st = evt_module_parse_file(w->ctx, ok ? EXAMPLES : "/nonexistent/p.evt", &m);
    evt_module_destroy(m);
    return st;
}

static evt_status call_optimize(world *w, int ok)
{
    return evt_module_optimize(w->m, ok ? 2 : 7);
}

static evt_status call_optimize_with(world *w, int ok)
{
    const evt_optimize_options o = {0, ok ? "dce" : "dce,no_such_pass", NULL, NULL, NULL};
    return evt_module_optimize_with(w->m, &o);
}

static evt_status call_kernel_cuda(world *w, int ok)
{
    const char *text = NULL;
    return evt_kernel_cuda(w->m, evt_module_find_kernel(w->m, "k"),
                           ok ? EVT_TARGET_SM80 : EVT_TARGET_COUNT, &text);
}

/* NVRTC may be missing: the success is evt_kernel_cuda's, which needs none. */
static evt_status call_kernel_compile(world *w, int ok)
{
    void *data = NULL;
    size_t size = 0;
    if (ok)
        return call_kernel_cuda(w, 1);
    return evt_kernel_compile(w->m, evt_module_find_kernel(w->m, "k"), EVT_TARGET_SM80,
                              (evt_binary_format)9, &data, &size, NULL);
}

static evt_status call_config_check(world *w, int ok)
{
    const evt_kernel *k = evt_module_find_kernel(w->m, "k");
    if (!ok)
        return evt_kernel_config_check(w->m, k, EVT_TARGET_SM80, "no_such_config");
    /* the first configuration that runs k on sm_80: the calls before it fail */
    evt_status st = EVT_ERR_NOT_FOUND;
    for (int i = 0; st != EVT_OK && i < evt_config_count(); i++)
        st = evt_kernel_config_check(w->m, k, EVT_TARGET_SM80, evt_config_name(i));
    return st;
}

/* Without a GPU no device call succeeds but freeing NULL. */
static evt_status call_device(world *w, int ok)
{
    return ok ? evt_device_free(w->ctx, NULL) : evt_device_target(w->ctx, NULL, NULL, 0);
}

static evt_status call_launch_create(world *w, int ok)
{
    evt_launch *l = NULL;
    evt_status st = evt_launch_create(w->m, ok ? evt_module_find_kernel(w->m, "k") : NULL, &l);
    evt_launch_destroy(l);
    return st;
}

static evt_status call_set_gemm(world *w, int ok)
{
    return evt_launch_set_gemm(w->l, ok ? 2 : -2, 4, 8, FAKE(0x100000), 8, 32, FAKE(0x200000), 8, 64);
}

static evt_status call_set_conv(world *w, int ok)
{
    const evt_conv_problem c = {1, 2, 2, 8, 4, 1, 1, 0, 0, 1, 1, 1, 1};
    return evt_launch_set_conv(w->lc, ok ? &c : NULL, FAKE(0x100000), 64, FAKE(0x200000), 64);
}

static evt_status call_launch_bind(world *w, int ok)
{
    return evt_launch_bind(w->l, ok ? "bias" : "no_such_input", FAKE(0x300000), 8, 0);
}

static evt_status call_launch_param(world *w, int ok)
{
    return evt_launch_set_param(w->l, ok ? "beta" : "no_such_param", 0.5f);
}

static evt_status call_launch_tuning(world *w, int ok)
{
    const evt_tuning t = {.row_group = 3};
    return evt_launch_set_tuning(w->l, ok ? NULL : &t);
}

/* A run, and the calls that plan one, succeed only on a GPU with real
 * buffers: their success here is a setter's. */
static evt_status call_launch_run(world *w, int ok)
{
    evt_launch *fresh = NULL; /* nothing bound */
    if (ok)
        return call_launch_param(w, 1);
    evt_status st = evt_launch_create(w->m, evt_module_find_kernel(w->m, "k"), &fresh);
    if (st == EVT_OK)
        st = evt_launch_run(fresh, NULL);
    evt_launch_destroy(fresh);
    return st;
}

static evt_status call_launch_workspace(world *w, int ok)
{
    return ok ? call_launch_param(w, 1) : evt_launch_workspace_size(w->l, NULL);
}

static evt_status call_launch_run_with_workspace(world *w, int ok)
{
    return ok ? call_launch_param(w, 1) : evt_launch_run_with_workspace(w->l, NULL, FAKE(0x800010), 4096);
}

static evt_status call_launch_benchmark(world *w, int ok)
{
    double ms;
    return ok ? call_launch_param(w, 1) : evt_launch_benchmark(w->l, NULL, 0, 0, &ms);
}

static evt_status call_interp_bind(world *w, int ok)
{
    return evt_interp_bind(w->in, ok ? "bias" : "no_such_input", w->bias, sizeof w->bias, 0);
}

static evt_status call_interp_bind_f64(world *w, int ok)
{
    return ok ? evt_interp_bind_f64(w->in, "y", w->y64, sizeof w->y64, 4)
              : evt_interp_bind_f64(w->in, "res", w->y64, sizeof w->y64, 4);
}

static evt_status call_interp_param(world *w, int ok)
{
    return evt_interp_set_param(w->in, ok ? "beta" : "no_such_param", 2.0f);
}

static evt_status call_interp_acc(world *w, int ok)
{
    return evt_interp_set_acc(w->in, 2, 4, w->acc, sizeof w->acc, ok ? 4 : 3);
}

static evt_status call_interp_acc_f64(world *w, int ok)
{
    return evt_interp_set_acc_f64(w->in, 2, 4, ok ? w->acc64 : NULL, sizeof w->acc64, 4);
}

static evt_status call_interp_run(world *w, int ok)
{
    return evt_interp_run(w->in, ok ? EVT_INTERP_F32 : (evt_interp_mode)7);
}

/*
 * Every family of calls that reports an error: the failing call's status and
 * a fragment its message must hold, then a succeeding call, after which the
 * message is "".  `interp`: the message is the interpreter's, else the
 * context's (launches and modules report on theirs).
 */
static const struct last_error_case {
    const char *family;
    world_call *call;
    evt_status fails_with;
    const char *names;
    int interp;
} last_error_cases[] = {
    {"evt_ctx_set_library_path", call_library_path, EVT_ERR_INVALID_ARGUMENT, "unknown library 7", 0},
    {"evt_ctx_set_tuning", call_ctx_tuning, EVT_ERR_NOT_FOUND, "no_such_config", 0},
    {"evt_module_parse_buffer", call_parse_buffer, EVT_ERR_SOURCE, "p.evt: 1 error", 0},
    {"evt_module_parse_file", call_parse_file, EVT_ERR_IO, "/nonexistent/p.evt", 0},
    {"evt_module_optimize", call_optimize, EVT_ERR_INVALID_ARGUMENT, "level 7", 0},
    {"evt_module_optimize_with", call_optimize_with, EVT_ERR_INVALID_ARGUMENT, "no_such_pass", 0},
    {"evt_kernel_cuda", call_kernel_cuda, EVT_ERR_INVALID_ARGUMENT, "valid target", 0},
    {"evt_kernel_compile", call_kernel_compile, EVT_ERR_INVALID_ARGUMENT, "valid format", 0},
    {"evt_kernel_config_check", call_config_check, EVT_ERR_NOT_FOUND, "no_such_config", 0},
    {"evt_device_*", call_device, EVT_ERR_INVALID_ARGUMENT, "target", 0},
    {"evt_launch_create", call_launch_create, EVT_ERR_INVALID_ARGUMENT, "kernel", 0},
    {"evt_launch_set_gemm", call_set_gemm, EVT_ERR_INVALID_ARGUMENT, "m = -2", 0},
    {"evt_launch_set_conv", call_set_conv, EVT_ERR_INVALID_ARGUMENT, "the problem is NULL", 0},
    {"evt_launch_bind", call_launch_bind, EVT_ERR_NOT_FOUND, "no_such_input", 0},
    {"evt_launch_set_param", call_launch_param, EVT_ERR_NOT_FOUND, "no_such_param", 0},
    {"evt_launch_set_tuning", call_launch_tuning, EVT_ERR_INVALID_ARGUMENT, "row_group 3", 0},
    {"evt_launch_run", call_launch_run, EVT_ERR_UNBOUND, "the problem was never set", 0},
    {"evt_launch_workspace_size", call_launch_workspace, EVT_ERR_INVALID_ARGUMENT, "bytes is NULL", 0},
    {"evt_launch_run_with_workspace", call_launch_run_with_workspace, EVT_ERR_BAD_BUFFER,
     "workspace is not aligned", 0},
    {"evt_launch_benchmark", call_launch_benchmark, EVT_ERR_INVALID_ARGUMENT, "not reps 0, warmup 0", 0},
    {"evt_interp_bind", call_interp_bind, EVT_ERR_NOT_FOUND, "no_such_input", 1},
    {"evt_interp_bind_f64", call_interp_bind_f64, EVT_ERR_INVALID_ARGUMENT, "'res' is an input", 1},
    {"evt_interp_set_param", call_interp_param, EVT_ERR_NOT_FOUND, "no_such_param", 1},
    {"evt_interp_set_acc", call_interp_acc, EVT_ERR_INVALID_ARGUMENT, "leading dimension 3", 1},
    {"evt_interp_set_acc_f64", call_interp_acc_f64, EVT_ERR_INVALID_ARGUMENT, "accumulator is NULL", 1},
    {"evt_interp_run", call_interp_run, EVT_ERR_INVALID_ARGUMENT, "mode 7", 1},
};

static const char *last_error_of(const world *w, int interp)
{
    return interp ? evt_interp_last_error(w->in) : evt_ctx_last_error(w->ctx);
}

static void test_last_error_is_the_last_calls(void **state)
{
    fixture *f = *state;
    world w;
    memset(&w, 0, sizeof w);
    w.ctx = f->ctx;
    assert_int_equal(parse(f, last_error_src), EVT_OK);
    w.m = f->m;
    assert_int_equal(evt_launch_create(w.m, evt_module_find_kernel(w.m, "k"), &w.l), EVT_OK);
    assert_int_equal(evt_launch_create(w.m, evt_module_find_kernel(w.m, "kc"), &w.lc), EVT_OK);
    assert_int_equal(evt_interp_create(evt_module_find_epilogue(w.m, "e"), &f->in), EVT_OK);
    w.in = f->in;
    for (int i = 0; i < 8; i++) { /* random-looking, nonzero data */
        w.acc[i] = (float)(i * 37 % 11) - 5.5f;
        w.acc64[i] = w.acc[i];
        w.res[i] = (unsigned short)(0x3c00 + i * 0x111);
    }
    for (int j = 0; j < 4; j++)
        w.bias[j] = (unsigned short)(0xbc00 + j * 0x100);
    assert_int_equal(evt_interp_set_acc(w.in, 2, 4, w.acc, sizeof w.acc, 4), EVT_OK);
    assert_int_equal(evt_interp_bind(w.in, "bias", w.bias, sizeof w.bias, 0), EVT_OK);
    assert_int_equal(evt_interp_bind(w.in, "res", w.res, sizeof w.res, 4), EVT_OK);
    assert_int_equal(evt_interp_bind(w.in, "y", w.y, sizeof w.y, 4), EVT_OK);
    assert_int_equal(evt_interp_set_param(w.in, "beta", 2.0f), EVT_OK);

    const size_t n = sizeof last_error_cases / sizeof last_error_cases[0];
    for (size_t i = 0; i < n; i++) {
        const struct last_error_case *c = &last_error_cases[i];
        evt_status st = c->call(&w, 0);
        const char *msg = last_error_of(&w, c->interp);
        if (st != c->fails_with || !strstr(msg, c->names))
            fail_msg("%s: got %s (\"%s\"), want %s naming \"%s\"", c->family,
                     evt_status_string(st), msg, evt_status_string(c->fails_with), c->names);
        st = c->call(&w, 1);
        msg = last_error_of(&w, c->interp);
        if (st != EVT_OK || msg[0])
            fail_msg("%s: the success gave %s and left \"%s\"", c->family, evt_status_string(st),
                     msg);
    }
    evt_launch_destroy(w.l);
    evt_launch_destroy(w.lc);
}

/* One context serves many modules, alive at the same time. */
static void test_many_modules_one_context(void **state)
{
    fixture *f = *state;
    evt_module *ms[8] = {0};
    for (int i = 0; i < 8; i++) {
        char src[128];
        snprintf(src, sizeof src, "epilogue e%d { out y : f32[M, N] = acc * %d }", i, i);
        assert_int_equal(evt_module_parse_buffer(f->ctx, "m.evt", src, strlen(src), &ms[i]),
                         EVT_OK);
    }
    for (int i = 0; i < 8; i++) {
        char name[8];
        snprintf(name, sizeof name, "e%d", i);
        assert_string_equal(evt_epilogue_name(evt_module_epilogue(ms[i], 0)), name);
        evt_module_destroy(ms[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_enum_names),
        cmocka_unit_test(test_context),
        cmocka_unit_test_setup_teardown(test_parse_null_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_source_is_copied, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nul_in_buffer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_diagnostics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_warnings_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_epilogue_listing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_params_and_reduce_min, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_listing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_acc_omitted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_texts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dot_one_graph, setup, teardown),
        cmocka_unit_test(test_null_module_and_handles),
        cmocka_unit_test_setup_teardown(test_last_error_is_the_last_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_modules_one_context, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
