/* test_threads.c - contexts used from several threads at once give exactly
 * what one thread alone gives: the library has no global mutable state.
 *
 * Each thread, with its own context, runs the whole pipeline: parsing
 * (buffers and files, valid and invalid sources), -O2, the CUDA of every
 * kernel for every target, an NVRTC compile, and launches bound, refused
 * and validated up to the driver; and contexts share one disk kernel cache
 * folder, compiling and reading the same kernels at once.  Every result is
 * compared with what one thread alone made of the same input.
 * scripts/test.sh runs this test under ThreadSanitizer (step tsan). */
#define _GNU_SOURCE /* malloc_usable_size, mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runtime/cache.h"

#include <evt/evt.h>

#include <dirent.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- the pipeline: -O2, CUDA for every target, NVRTC, launches ------------ */

/* Every kind of launch argument (params with and without default, inputs of
 * two shapes, an element-wise and two reduction outputs) and kernels of
 * both mainloops and both operand orders. */
static const char pipeline_source[] =
    "epilogue e {\n"
    "    param alpha : f32 = 1.0\n"
    "    param beta  : f32\n"
    "    in  bias : f16[N]\n"
    "    in  res  : bf16[M, N]\n"
    "    out d    : f16[M, N] = relu(alpha * acc + bias) * beta + res\n"
    "    out rs   : f32[M] = reduce_sum(d, N)\n"
    "    out amax : f32 = reduce_max(abs(acc))\n"
    "}\n"
    "kernel g = gemm(a: f16 row, b: f16 col, acc: f32) with e\n"
    "kernel gt = gemm(a: bf16 col, b: bf16 row, acc: f32) with e\n"
    "kernel c = conv2d_fprop(x: f16, w: f16, acc: f32) with e\n";

/* A ragged GEMM (M = 77, N = 45, K = 40) and a conv whose epilogue is
 * 162 x 45; [M, N] buffers have rows LD apart. */
enum { KERNELS = 3, GM = 77, GN = 45, GK = 40, OPERAND_LD = 128, LD = 48 };
static const evt_conv_problem conv_problem = {2, 9, 9, 24, 45, 3, 3, 1, 1, 1, 1, 1, 1};

/* How one launch is bound, and so what its run must say. */
enum {
    CASE_VALID,       /* everything bound: validated, then EVT_ERR_NO_GPU without a GPU */
    CASE_DEFAULTED,   /* alpha left at its default: as valid */
    CASE_MISALIGNED,  /* d at an odd address: EVT_ERR_BAD_BUFFER */
    CASE_SMALL,       /* res one element short: EVT_ERR_BAD_BUFFER */
    CASE_UNSET_PARAM, /* beta, which has no default, never set: EVT_ERR_UNBOUND */
    CASE_UNBOUND,     /* amax never bound: EVT_ERR_UNBOUND */
    CASE_SHORT_LD,    /* res rows closer than N: EVT_ERR_INVALID_ARGUMENT */
    CASES
};

#define FAKE(addr) ((void *)(uintptr_t)(addr))

/* What one thread made of pipeline_source (owned, "" for no text). */
typedef struct pipeline {
    evt_status parsed, optimized;
    char *ir;
    evt_status cuda_status[KERNELS][EVT_TARGET_COUNT];
    char *cuda[KERNELS][EVT_TARGET_COUNT];
    evt_status launch[KERNELS][CASES], workspace[KERNELS][CASES];
    char *launch_error[KERNELS][CASES];
    evt_status compiled; /* kernel g as PTX for sm_80 */
    char *compile_error;
    void *ptx;
    size_t ptx_size;
} pipeline;

/* Set before any thread starts: a GPU here would really run a valid launch
 * of fake pointers, so its threads stop at evt_launch_workspace_size, which
 * validates and plans as a run does and enqueues nothing. */
static int gpu_present;

static char *dup_text(const char *s)
{
    s = s ? s : "";
    char *d = malloc(strlen(s) + 1);
    if (d)
        strcpy(d, s);
    return d;
}

static evt_status bind_case(evt_launch *l, const evt_kernel *k, int c)
{
    const int conv = evt_kernel_mainloop(k) == EVT_MAINLOOP_CONV2D_FPROP;
    long long m = GM, n = GN;
    evt_status st;
    if (conv) {
        long long p, q;
        evt_conv_output_size(&conv_problem, &p, &q);
        m = conv_problem.n * p * q;
        n = conv_problem.k;
        const evt_conv_problem *cp = &conv_problem;
        st = evt_launch_set_conv(l, cp, FAKE(0x100000), (size_t)(cp->n * cp->h * cp->w * cp->c) * 2,
                                 FAKE(0x200000), (size_t)(cp->k * cp->r * cp->s * cp->c) * 2);
    } else {
        /* Leading dimensions and sizes that fit either layout of either operand. */
        st = evt_launch_set_gemm(l, GM, GN, GK, FAKE(0x100000), OPERAND_LD,
                                 2u * OPERAND_LD * OPERAND_LD, FAKE(0x200000), OPERAND_LD,
                                 2u * OPERAND_LD * OPERAND_LD);
    }
    const size_t mn_bytes = (size_t)((m - 1) * LD + n) * 2;
    if (st == EVT_OK)
        st = evt_launch_bind(l, "bias", FAKE(0x300000), (size_t)n * 2, 0);
    if (st == EVT_OK)
        st = evt_launch_bind(l, "res", FAKE(0x400000), mn_bytes - (c == CASE_SMALL ? 2 : 0),
                             c == CASE_SHORT_LD ? n - 1 : LD);
    if (st == EVT_OK)
        st = evt_launch_bind(l, "d", FAKE(c == CASE_MISALIGNED ? 0x500001 : 0x500000), mn_bytes, LD);
    if (st == EVT_OK)
        st = evt_launch_bind(l, "rs", FAKE(0x600000), (size_t)m * 4, 0);
    if (st == EVT_OK && c != CASE_UNBOUND)
        st = evt_launch_bind(l, "amax", FAKE(0x700000), 4, 0);
    if (st == EVT_OK && c != CASE_UNSET_PARAM)
        st = evt_launch_set_param(l, "beta", 0.5f);
    if (st == EVT_OK && c != CASE_DEFAULTED)
        st = evt_launch_set_param(l, "alpha", 2.0f);
    return st;
}

/* Runs the whole pipeline on ctx into *p; `compile`: also NVRTC. */
static void run_pipeline(evt_ctx *ctx, pipeline *p, int compile)
{
    memset(p, 0, sizeof *p);
    evt_module *m = NULL;
    p->parsed = evt_module_parse_buffer(ctx, "pipeline.evt", pipeline_source,
                                        strlen(pipeline_source), &m);
    if (p->parsed != EVT_OK) {
        evt_module_destroy(m);
        return;
    }
    p->optimized = evt_module_optimize(m, 2);
    p->ir = dup_text(evt_module_ir_text(m));
    for (int ki = 0; ki < KERNELS; ki++) {
        const evt_kernel *k = evt_module_kernel(m, (size_t)ki);
        for (int t = 0; t < EVT_TARGET_COUNT; t++) {
            const char *text = NULL;
            p->cuda_status[ki][t] = evt_kernel_cuda(m, k, (evt_target)t, &text);
            p->cuda[ki][t] = dup_text(text);
        }
        for (int c = 0; c < CASES; c++) {
            evt_launch *l = NULL;
            evt_status st = evt_launch_create(m, k, &l);
            if (st == EVT_OK)
                st = bind_case(l, k, c);
            size_t bytes = 0;
            if (st == EVT_OK)
                p->workspace[ki][c] = evt_launch_workspace_size(l, &bytes);
            if (st == EVT_OK && !gpu_present)
                st = evt_launch_run(l, NULL);
            else if (st == EVT_OK)
                st = p->workspace[ki][c];
            p->launch[ki][c] = st;
            p->launch_error[ki][c] = dup_text(evt_ctx_last_error(ctx));
            evt_launch_destroy(l);
        }
    }
    if (compile) {
        /* One small entry point (a forced sm_80 tile, one row per group):
         * NVRTC's own threads beside ours, not its compile time, are the point. */
        const evt_tuning small = {.config = "sm80_64x64x32_w4_s4", .split_k = 1, .row_group = 1};
        p->compiled = evt_ctx_set_tuning(ctx, &small);
        if (p->compiled == EVT_OK)
            p->compiled = evt_kernel_compile(m, evt_module_find_kernel(m, "g"), EVT_TARGET_SM80,
                                             EVT_BINARY_PTX, &p->ptx, &p->ptx_size, NULL);
        p->compile_error = dup_text(p->compiled == EVT_OK ? "" : evt_ctx_last_error(ctx));
        evt_ctx_set_tuning(ctx, NULL);
    }
    evt_module_destroy(m);
}

static void free_pipeline(pipeline *p)
{
    free(p->ir);
    for (int ki = 0; ki < KERNELS; ki++) {
        for (int t = 0; t < EVT_TARGET_COUNT; t++)
            free(p->cuda[ki][t]);
        for (int c = 0; c < CASES; c++)
            free(p->launch_error[ki][c]);
    }
    free(p->compile_error);
    evt_free(p->ptx);
}

/* NULL when a and b agree (their NVRTC output too when `compiled`), else
 * what differs first (a static string). */
static const char *pipeline_difference(const pipeline *a, const pipeline *b, int compiled)
{
    if (a->parsed != b->parsed || a->optimized != b->optimized)
        return "parse or optimize status";
    if (strcmp(a->ir ? a->ir : "", b->ir ? b->ir : "") != 0)
        return "the optimized IR";
    for (int ki = 0; ki < KERNELS; ki++) {
        for (int t = 0; t < EVT_TARGET_COUNT; t++)
            if (a->cuda_status[ki][t] != b->cuda_status[ki][t] ||
                strcmp(a->cuda[ki][t], b->cuda[ki][t]) != 0)
                return "the generated CUDA";
        for (int c = 0; c < CASES; c++)
            if (a->launch[ki][c] != b->launch[ki][c] || a->workspace[ki][c] != b->workspace[ki][c] ||
                strcmp(a->launch_error[ki][c], b->launch_error[ki][c]) != 0)
                return "a launch's status or message";
    }
    if (!compiled)
        return NULL;
    if (a->compiled != b->compiled || a->ptx_size != b->ptx_size ||
        (a->ptx_size && memcmp(a->ptx, b->ptx, a->ptx_size) != 0) ||
        strcmp(a->compile_error ? a->compile_error : "", b->compile_error ? b->compile_error : "") != 0)
        return "the NVRTC output";
    return NULL;
}

enum { PIPELINE_THREADS = 3, PIPELINE_ROUNDS = 2 };

typedef struct pipeline_worker {
    pthread_t thread;
    const pipeline *want;
    const char *difference; /* the first one found, or NULL */
    int runs;
} pipeline_worker;

static void *pipeline_work(void *arg)
{
    pipeline_worker *w = arg;
    evt_ctx *ctx = evt_ctx_create();
    for (int round = 0; ctx && round < PIPELINE_ROUNDS && !w->difference; round++) {
        pipeline got;
        run_pipeline(ctx, &got, round == 0); /* every thread's first round compiles at once */
        w->difference = pipeline_difference(&got, w->want, round == 0);
        w->runs++;
        free_pipeline(&got);
    }
    if (!ctx)
        w->difference = "no context";
    evt_ctx_destroy(ctx);
    return NULL;
}

static void test_pipeline_threads_match_one_thread(void **state)
{
    (void)state;
    evt_ctx *ctx = evt_ctx_create();
    assert_non_null(ctx);
    evt_target t;
    gpu_present = evt_device_target(ctx, &t, NULL, 0) == EVT_OK;
    pipeline want;
    run_pipeline(ctx, &want, 1);
    evt_ctx_destroy(ctx);

    /* The reference is what it should be, so that agreeing with it means something. */
    assert_int_equal(want.parsed, EVT_OK);
    assert_int_equal(want.optimized, EVT_OK);
    assert_non_null(strstr(want.ir, "kernel gt = gemm(a: bf16 col, b: bf16 row"));
    for (int ki = 0; ki < KERNELS; ki++) {
        for (int tt = 0; tt < EVT_TARGET_COUNT; tt++) {
            assert_int_equal(want.cuda_status[ki][tt], EVT_OK);
            assert_non_null(strstr(want.cuda[ki][tt], "__global__"));
        }
        const evt_status valid = gpu_present ? EVT_OK : EVT_ERR_NO_GPU;
        const evt_status expected[CASES] = {valid, valid, EVT_ERR_BAD_BUFFER, EVT_ERR_BAD_BUFFER,
                                            EVT_ERR_UNBOUND, EVT_ERR_UNBOUND,
                                            EVT_ERR_INVALID_ARGUMENT};
        const char *const named[CASES] = {"", "", "'d'", "'res'", "beta", "'amax'", "'res'"};
        for (int c = 0; c < CASES; c++) {
            if (want.launch[ki][c] != expected[c] || want.workspace[ki][c] != expected[c] ||
                !strstr(want.launch_error[ki][c], named[c]))
                fprintf(stderr, "kernel %d case %d: %s / %s (\"%s\")\n", ki, c,
                        evt_status_string(want.launch[ki][c]),
                        evt_status_string(want.workspace[ki][c]), want.launch_error[ki][c]);
            assert_int_equal(want.launch[ki][c], expected[c]);
            assert_int_equal(want.workspace[ki][c], expected[c]);
            assert_non_null(strstr(want.launch_error[ki][c], named[c]));
        }
    }
    if (want.compiled != EVT_OK) /* no NVRTC here: the threads must agree on that too */
        print_message("NVRTC: %s (the compiles compare statuses only)\n", want.compile_error);
    else
        assert_non_null(strstr(want.ptx, ".entry evt_g_gemm_sm80_64x64x32_w4_s4"));

    pipeline_worker w[PIPELINE_THREADS] = {0};
    for (int i = 0; i < PIPELINE_THREADS; i++) {
        w[i].want = &want;
        assert_int_equal(pthread_create(&w[i].thread, NULL, pipeline_work, &w[i]), 0);
    }
    for (int i = 0; i < PIPELINE_THREADS; i++)
        assert_int_equal(pthread_join(w[i].thread, NULL), 0);
    for (int i = 0; i < PIPELINE_THREADS; i++) {
        if (w[i].difference)
            fprintf(stderr, "thread %d: %s differs from one thread's\n", i, w[i].difference);
        assert_null(w[i].difference);
        assert_int_equal(w[i].runs, PIPELINE_ROUNDS);
    }
    free_pipeline(&want);
}

/* ---- contexts sharing one disk cache folder ------------------------------- */

/* Each round's source is compiled, written and read by every thread at
 * once: kernels small enough that NVRTC takes a fraction of a second. */
enum { CACHE_THREADS = 4, CACHE_ROUNDS = 6 };

static struct cache_ref {
    char source[320];
    unsigned char *cubin; /* what NVRTC makes of it, compiled outside the cache */
    size_t size;
} cache_refs[CACHE_ROUNDS];

static pthread_barrier_t cache_barrier;

/*
 * cuModuleLoadData's stand-in: answers module i + 1 for an image holding
 * exactly reference cubin i, else module -1.  The cache passes no size, so
 * the size of the allocation it read the file into (malloc_usable_size: at
 * least what was asked for) tells a file read half-written from a whole one.
 */
static rt_cu_result fake_load(rt_cu_module *module, const void *image)
{
    const size_t have = malloc_usable_size((void *)image);
    *module = (rt_cu_module)(uintptr_t)-1;
    for (int i = 0; i < CACHE_ROUNDS; i++)
        if (have >= cache_refs[i].size && memcmp(image, cache_refs[i].cubin, cache_refs[i].size) == 0)
            *module = (rt_cu_module)(uintptr_t)(i + 1);
    return 0;
}

static rt_cu_result fake_unload(rt_cu_module module)
{
    (void)module;
    return 0;
}

typedef struct cache_worker {
    pthread_t thread;
    int index;
    int loads, bad;
    char error[256];
} cache_worker;

static void *cache_work(void *arg)
{
    cache_worker *w = arg;
    const rt_driver fake = {.module_load_data = fake_load, .module_unload = fake_unload};
    /* What a context owns for its cache: the loaded modules and NVRTC. */
    evt_ctx *ctx = evt_ctx_create();
    cg_nvrtc *nvrtc = NULL;
    for (int round = 0; round < CACHE_ROUNDS; round++) {
        pthread_barrier_wait(&cache_barrier);
        /* First a miss in memory (compiled, or read from what another
         * thread wrote), then again with an empty memory cache: from disk. */
        for (int pass = 0; pass < 2; pass++) {
            rt_cached_module *loaded = NULL;
            rt_cu_module module = NULL;
            evt_status st = EVT_OK;
            strbuf err;
            sb_init(&err);
            const rt_cu_context cu_ctx = (rt_cu_context)(uintptr_t)(w->index + 1);
            int ok = rt_cache_module(&loaded, &fake, &nvrtc, NULL, cache_refs[round].source,
                                     "probe", EVT_TARGET_SM80, cu_ctx, &module, &st, &err);
            w->loads++;
            if (!ok || module != (rt_cu_module)(uintptr_t)(round + 1)) {
                w->bad++;
                snprintf(w->error, sizeof w->error, "round %d pass %d: %s %s", round, pass,
                         ok ? "a corrupt cubin" : evt_status_string(st), sb_str(&err));
            }
            sb_free(&err);
            rt_cache_clear(&loaded, &fake);
        }
    }
    cg_nvrtc_unload(nvrtc);
    evt_ctx_destroy(ctx);
    return NULL;
}

static unsigned char *read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    *size = buf ? (size_t)n : 0;
    return buf;
}

static void test_contexts_share_a_disk_cache(void **state)
{
    (void)state;
    strbuf err;
    sb_init(&err);
    cg_nvrtc *nv = cg_nvrtc_load(NULL, &err);
    sb_free(&err);
    if (!nv)
        skip(); /* no NVRTC here: nothing to cache */
    for (int i = 0; i < CACHE_ROUNDS; i++) {
        snprintf(cache_refs[i].source, sizeof cache_refs[i].source,
                 "__device__ float evt_cache_table_%d[4096] = {%d.0f};\n"
                 "extern \"C\" __global__ void evt_cache_probe_%d(float *p)\n"
                 "{\n    p[threadIdx.x] = evt_cache_table_%d[(int)p[threadIdx.x]];\n}\n",
                 i, i + 2, i, i);
        strbuf log;
        sb_init(&log);
        char *bin = NULL;
        assert_int_equal(cg_compile(nv, cache_refs[i].source, "probe", EVT_TARGET_SM80, CG_CUBIN, &bin,
                                    &cache_refs[i].size, NULL, &log),
                         EVT_OK);
        sb_free(&log);
        cache_refs[i].cubin = (unsigned char *)bin;
    }
    cg_nvrtc_unload(nv);

    /* One fresh folder for the threads, whatever the environment says
     * (setenv before the threads start: getenv is not safe beside it). */
    char dir[] = "/tmp/evt-threads-cache-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *saved_dir = dup_text(getenv("EVT_CACHE_DIR")), *saved_off = dup_text(getenv("EVT_DISABLE_CACHE"));
    assert_int_equal(setenv("EVT_CACHE_DIR", dir, 1), 0);
    unsetenv("EVT_DISABLE_CACHE");

    cache_worker w[CACHE_THREADS] = {0};
    assert_int_equal(pthread_barrier_init(&cache_barrier, NULL, CACHE_THREADS), 0);
    for (int i = 0; i < CACHE_THREADS; i++) {
        w[i].index = i;
        assert_int_equal(pthread_create(&w[i].thread, NULL, cache_work, &w[i]), 0);
    }
    for (int i = 0; i < CACHE_THREADS; i++)
        assert_int_equal(pthread_join(w[i].thread, NULL), 0);
    pthread_barrier_destroy(&cache_barrier);
    if (saved_dir[0])
        setenv("EVT_CACHE_DIR", saved_dir, 1);
    else
        unsetenv("EVT_CACHE_DIR");
    if (saved_off[0])
        setenv("EVT_DISABLE_CACHE", saved_off, 1);
    free(saved_dir);
    free(saved_off);

    /* The folder holds one whole cubin per kernel and nothing else (no
     * temporary file left behind); every load got a whole one. */
    int cubins = 0, others = 0, wrong = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    char path[512];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        const size_t len = strlen(e->d_name);
        if (len > 6 && strcmp(e->d_name + len - 6, ".cubin") == 0) {
            size_t size;
            unsigned char *bytes = read_whole(path, &size);
            int match = 0;
            for (int i = 0; i < CACHE_ROUNDS && bytes; i++)
                match |= size == cache_refs[i].size && memcmp(bytes, cache_refs[i].cubin, size) == 0;
            free(bytes);
            cubins++;
            wrong += !match;
        } else {
            fprintf(stderr, "left in the cache folder: %s\n", e->d_name);
            others++;
        }
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
    for (int i = 0; i < CACHE_ROUNDS; i++)
        free(cache_refs[i].cubin);
    for (int i = 0; i < CACHE_THREADS; i++) {
        if (w[i].bad)
            fprintf(stderr, "thread %d: %d of %d loads bad, last: %s\n", i, w[i].bad, w[i].loads,
                    w[i].error);
        assert_int_equal(w[i].bad, 0);
        assert_int_equal(w[i].loads, 2 * CACHE_ROUNDS);
    }
    assert_int_equal(cubins, CACHE_ROUNDS);
    assert_int_equal(wrong, 0);
    assert_int_equal(others, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_references),
        cmocka_unit_test(test_threads_match_one_thread),
        cmocka_unit_test(test_files_and_buffers),
        cmocka_unit_test(test_pipeline_threads_match_one_thread),
        cmocka_unit_test(test_contexts_share_a_disk_cache),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
