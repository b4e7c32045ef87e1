/* test_threads.c - contexts used from several threads at once give exactly
 * what one thread alone gives: the library has no global mutable state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <evt/evt.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 3, ROUNDS = 12 };

/* One input and what a single thread made of it. */
typedef struct job {
    const char *name;
    char *src;
    size_t len;
    evt_status status;
    char *ir, *dot, *text, *json; /* the reference outputs ("" for none) */
} job;

typedef struct outputs {
    evt_status status;
    const char *ir, *dot, *text, *json;
} outputs;

static job jobs[3];

static char *dup_or_empty(const char *s)
{
    s = s ? s : "";
    char *d = malloc(strlen(s) + 1);
    assert_non_null(d);
    strcpy(d, s);
    return d;
}

/* Parses a job with ctx and reads every text back; the texts live in *m. */
static outputs run(evt_ctx *ctx, const job *j, evt_module **m)
{
    outputs o = {0};
    o.status = evt_module_parse_buffer(ctx, j->name, j->src, j->len, m);
    if (*m) {
        o.text = evt_module_diag_text(*m, EVT_DIAG_TEXT);
        o.json = evt_module_diag_text(*m, EVT_DIAG_JSON);
        o.ir = evt_module_ir_text(*m);
        o.dot = evt_module_dot_text(*m);
    }
    return o;
}

static int same(const char *got, const char *want)
{
    return strcmp(got ? got : "", want) == 0;
}

typedef struct worker {
    pthread_t thread;
    int index;
    int mismatches, runs;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    evt_ctx *ctx = evt_ctx_create();
    if (!ctx) {
        w->mismatches++;
        return NULL;
    }
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < 3; k++) {
            const job *j = &jobs[(k + w->index + round) % 3]; /* threads interleave inputs */
            evt_module *m = NULL;
            outputs o = run(ctx, j, &m);
            w->runs++;
            if (o.status != j->status || !same(o.ir, j->ir) || !same(o.dot, j->dot) ||
                !same(o.text, j->text) || !same(o.json, j->json))
                w->mismatches++;
            evt_module_destroy(m);
        }
    }
    evt_ctx_destroy(ctx);
    return NULL;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 20];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    char *s = malloc(*len + 1);
    assert_non_null(s);
    memcpy(s, buf, *len);
    s[*len] = '\0';
    return s;
}

/* A large valid file: many epilogues over every builtin, shape and type, lets
 * shared many times, reductions, and kernels of both mainloops. */
static char *big_valid(size_t *len)
{
    static const char *const fns[] = {"relu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh",
                                      "exp", "log", "sqrt", "rsqrt", "abs", "hardswish"};
    static const char *const elems[] = {"f32", "f16", "bf16", "i8", "i32", "e4m3", "e5m2"};
    size_t cap = 1 << 20, n = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    for (int e = 0; e < 60; e++) {
        n += (size_t)snprintf(s + n, cap - n,
                              "epilogue e%d {\n"
                              "  param alpha : f32 = %d.5\n  param beta : f32\n"
                              "  in bias : %s[N]\n  in rows : f32[M]\n  in z : %s[M, N]\n"
                              "  let y = alpha * acc + bias * rows - beta\n",
                              e, e % 7 - 3, elems[e % 7], elems[(e + 3) % 7]);
        for (int i = 0; i < 8; i++)
            n += (size_t)snprintf(s + n, cap - n, "  let t%d = %s(y %c %d.25) * y\n", i,
                                  fns[(e + i) % 12], "+-*/"[i % 4], i + 1);
        n += (size_t)snprintf(s + n, cap - n,
                              "  out d : %s[M, N] = t0 + t1 + t2 + t3 > z ? t4 * t5 : clamp(t6, "
                              "-1, t7) + leaky_relu(z, 0.1) + min(z, y) - max(y, 2)\n"
                              "  out r : f32[M] = reduce_sum(d, N)\n"
                              "  out c : f32[N] = reduce_max(abs(d), M)\n"
                              "  out a : f32 = reduce_min(y)\n}\n",
                              elems[e % 7]);
        n += (size_t)snprintf(s + n, cap - n, "kernel k%d = %s with e%d\n", e,
                              e % 2 ? "gemm(a: f16 row, b: f16 col, acc: f32)"
                                    : "conv2d_fprop(x: bf16, w: bf16)",
                              e);
        assert_true(n < cap - 4096);
    }
    *len = n;
    return s;
}

/* A file with many kinds of errors and warnings, every epilogue different. */
static char *big_invalid(size_t *len)
{
    size_t cap = 1 << 18, n = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    for (int e = 0; e < 12; e++)
        n += (size_t)snprintf(s + n, cap - n,
                              "epilogue bad%d {\n"
                              "  in x : f32[M, N]\n  in x : f32\n  in unused%d : f16[N]\n"
                              "  out a : f32[M] = x + nope%d\n"
                              "  out b : f32[M, N] = relu(x, x) + (x > 1) + $\n"
                              "  out c : f32[M, N] = reduce_sum(x) + 1\n"
                              "}\n"
                              "epilogue warn%d { in u : f32 param p : f32 let l = acc out y : "
                              "f32[M, N] = acc }\n"
                              "kernel k%d = gemm(a: f32 row, b: f16 diag) with missing%d\n",
                              e, e, e, e, e, e);
    *len = n;
    return s;
}

static int setup(void **state)
{
    (void)state;
    jobs[0].name = "big.evt";
    jobs[0].src = big_valid(&jobs[0].len);
    jobs[1].name = "examples.evt";
    jobs[1].src = read_file(EVT_SOURCE_DIR "/tests/golden/examples.evt", &jobs[1].len);
    jobs[2].name = "bad.evt";
    jobs[2].src = big_invalid(&jobs[2].len);
    /* The references, from this thread alone. */
    evt_ctx *ctx = evt_ctx_create();
    assert_non_null(ctx);
    for (int k = 0; k < 3; k++) {
        evt_module *m = NULL;
        outputs o = run(ctx, &jobs[k], &m);
        jobs[k].status = o.status;
        jobs[k].ir = dup_or_empty(o.ir);
        jobs[k].dot = dup_or_empty(o.dot);
        jobs[k].text = dup_or_empty(o.text);
        jobs[k].json = dup_or_empty(o.json);
        evt_module_destroy(m);
    }
    evt_ctx_destroy(ctx);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        free(jobs[k].src);
        free(jobs[k].ir);
        free(jobs[k].dot);
        free(jobs[k].text);
        free(jobs[k].json);
    }
    return 0;
}

/* The inputs are what they claim to be, so that the comparison means something. */
static void test_references(void **state)
{
    (void)state;
    assert_int_equal(jobs[0].status, EVT_OK);
    assert_true(strlen(jobs[0].ir) > 50000);
    assert_string_equal(jobs[0].text, "");
    assert_int_equal(jobs[1].status, EVT_OK);
    assert_non_null(strstr(jobs[1].ir, "kernel dequant = gemm"));
    assert_int_equal(jobs[2].status, EVT_ERR_SOURCE);
    assert_string_equal(jobs[2].ir, "");
    assert_non_null(strstr(jobs[2].text, "too many errors"));
    assert_non_null(strstr(jobs[2].json, "\"severity\":\"warning\""));
    assert_non_null(strstr(jobs[2].json, "\"severity\":\"note\""));
}

static void test_threads_match_one_thread(void **state)
{
    (void)state;
    worker w[THREADS] = {0};
    for (int i = 0; i < THREADS; i++) {
        w[i].index = i;
        assert_int_equal(pthread_create(&w[i].thread, NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_join(w[i].thread, NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(w[i].runs, 3 * ROUNDS);
        assert_int_equal(w[i].mismatches, 0);
    }
}

/* Parsing from a file in one thread while another parses buffers. */
static void *parse_file_loop(void *arg)
{
    int *bad = arg;
    evt_ctx *ctx = evt_ctx_create();
    for (int i = 0; ctx && i < 3 * ROUNDS; i++) {
        evt_module *m = NULL;
        evt_status st =
            evt_module_parse_file(ctx, EVT_SOURCE_DIR "/tests/golden/examples.evt", &m);
        if (st != EVT_OK || !same(evt_module_ir_text(m), jobs[1].ir))
            (*bad)++;
        evt_module_destroy(m);
    }
    evt_ctx_destroy(ctx);
    return NULL;
}

static void test_files_and_buffers(void **state)
{
    (void)state;
    pthread_t t;
    int bad = 0;
    worker w = {.index = 1};
    assert_int_equal(pthread_create(&t, NULL, parse_file_loop, &bad), 0);
    work(&w);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(bad, 0);
    assert_int_equal(w.mismatches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_references),
        cmocka_unit_test(test_threads_match_one_thread),
        cmocka_unit_test(test_files_and_buffers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
