/* test_oom_launch.c - running out of memory at every allocation of a launch's
 * life, on the stand-in driver and NVRTC of tests/fakecuda: a context, a
 * module, a GEMM launch (run, split-K, a batch, benchmarked, tuned, run on
 * a second device of another target, run under a CUDA graph capture), a
 * conv launch and an fp8 GEMM split in the caller's workspace; and the
 * calls that launch nothing.  test_oom does the same for a parse; this is
 * the path after it, through code generation, the kernel cache, the
 * planner, the workspace and the tuner.
 *
 * Each pass fails one allocation made by the library's own code (its caller
 * lies in this executable, where libevt is linked statically) and checks:
 *   - every call answers what the pass without a failure answered, or
 *     EVT_ERR_NO_MEMORY with a message; at most one call sees the failure
 *     (a failed call leaves nothing broken for the next);
 *   - a run that succeeds enqueued what the pass without a failure did
 *     (the plan's text);
 *   - once everything is destroyed, no block the library allocated in the
 *     pass is left, nor a device allocation, module or event of the fake's.
 * Allocations made inside the C library (fopen's buffer, strdup) or by the
 * fake are never failed: their callers are not in this executable.
 *
 * The same sweep fails each call of the fake driver in turn (a launch's
 * sequence, its timing on the sm_80 device): each call answers as with a
 * working driver, or EVT_ERR_DRIVER or EVT_ERR_NO_GPU with a message and
 * then, made again, as with a working driver; the driver is never misused
 * (fakecuda_violations); nothing leaks.  Plans may differ there: a failed
 * query of cluster occupancy leaves a launch on plans without clusters.
 *
 * OOM_PASS=N runs the pass that fails allocation (or driver call) N alone
 * and prints its calls; OOM_COUNT=1 prints each sweep's length.  A
 * failure's message gives N and the offsets of the allocations concerned
 * in this executable (addr2line -f -e test_oom_launch OFFSET).
 *
 * malloc and friends are replaced for this program (as in test_oom);
 * sanitizer builds bring their own allocator, so there the test skips. */
#define _GNU_SOURCE /* setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <evt/evt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define EVT_OWN_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define EVT_OWN_ALLOCATOR 1
#endif

#if !defined(EVT_OWN_ALLOCATOR) && defined(__GLIBC__)
#define EVT_CAN_FAIL_MALLOC 1
#define FAKECUDA_OPEN
#include "tests/fakecuda/fakecuda.h"

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void __libc_free(void *p);

/* this executable's code: the library's and the test's */
extern char __executable_start, etext;

/* The tuner compiles on two threads here: one lock for the counters and
 * the set of live blocks.  Which allocation is the nth then depends on
 * how the threads interleave, but whichever fails, the same must hold. */
static volatile int lock_word;
static void lock(void)
{
    while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE))
        ;
}
static void unlock(void)
{
    __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
}

static long fail_at = -1; /* the allocation to fail, counting from 0; -1: none */
static long allocations;
static int tracking;      /* count and track the library's blocks */

/* The live blocks the library allocated while tracking: an open-addressed
 * set of pointers (deleted slots marked 1), in memory of glibc's own. */
enum { SET_BITS = 16, SET_SIZE = 1 << SET_BITS }; /* a pass allocates some 1,200 blocks */
static void **set;
static void **set_caller; /* who allocated each, for the failure's message */
static long live;
static void *failed_caller; /* who made the allocation failed */

static size_t slot_of(void *p)
{
    return ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> (64 - SET_BITS);
}

static long inserted; /* since the pass began: live blocks and tombstones */

static void set_add(void *p, void *caller)
{
    if (++inserted > SET_SIZE / 2) {
        static const char msg[] = "test_oom_launch: the set of blocks is full: raise SET_BITS\n";
        fputs(msg, stderr);
        abort();
    }
    size_t i = slot_of(p);
    while (set[i] && set[i] != (void *)1)
        i = (i + 1) & (SET_SIZE - 1);
    set[i] = p;
    set_caller[i] = caller;
    live++;
}

static void set_remove(void *p)
{
    for (size_t i = slot_of(p); set[i]; i = (i + 1) & (SET_SIZE - 1))
        if (set[i] == p) {
            set[i] = (void *)1;
            live--;
            return;
        }
}

static int ours(void *caller)
{
    return (char *)caller >= &__executable_start && (char *)caller < &etext;
}

/* Whether the allocation by `caller` fails; counts it if ours. */
static int fail_now(void *caller)
{
    if (!tracking || !ours(caller))
        return 0;
    lock();
    int f = fail_at >= 0 && allocations == fail_at;
    if (f)
        failed_caller = caller;
    allocations++;
    unlock();
    return f;
}

static void *track(void *caller, void *p)
{
    if (p && tracking && ours(caller)) {
        lock();
        set_add(p, caller);
        unlock();
    }
    return p;
}

static void untrack(void *p)
{
    if (p && set) {
        lock();
        set_remove(p);
        unlock();
    }
}

void *malloc(size_t size)
{
    void *c = __builtin_return_address(0);
    return fail_now(c) ? NULL : track(c, __libc_malloc(size));
}

void *calloc(size_t n, size_t size)
{
    void *c = __builtin_return_address(0);
    return fail_now(c) ? NULL : track(c, __libc_calloc(n, size));
}

void *realloc(void *p, size_t size)
{
    void *c = __builtin_return_address(0);
    if (fail_now(c))
        return NULL;
    void *r = __libc_realloc(p, size);
    if (r || size == 0)
        untrack(p);
    return track(c, r);
}

void free(void *p)
{
    untrack(p);
    __libc_free(p);
}

/* ---- one pass ------------------------------------------------------------ */

static const char source[] =
    "epilogue wide {\n"
    "    param alpha : f32 = 1.0\n"
    "    param beta  : f32\n"
    "    in  bias : f16[N]\n"
    "    in  rows : f32[M]\n"
    "    in  res  : bf16[M, N]\n"
    "    out d    : f16[M, N] = gelu(alpha * acc + bias) * beta + res * rows\n"
    "    out amax : f32 = reduce_max(abs(acc))\n"
    "    out csum : f32[N] = reduce_sum(acc, M)\n"
    "}\n"
    "epilogue residual {\n"
    "    in  res  : f16[M, N]\n"
    "    in  bias : f16[N]\n"
    "    out y    : f16[M, N] = relu(acc + bias) + res\n"
    "}\n"
    "kernel g = gemm(a: f16 row, b: f16 col, acc: f32) with wide\n"
    "kernel c = conv2d_fprop(x: f16, w: f16, acc: f32) with residual\n"
    /* a warning (an input no output reads), for the diagnostics' texts */
    "epilogue spare { in unused : f32  out z : f32[M, N] = acc * 0.5 + 1 }\n"
    "kernel f8 = gemm(a: e4m3 row, b: e5m2 col, acc: f32) with spare\n";

/* the devices: sm_90a, then sm_80 */
#define DEVICES "9.0x132,8.0x108"
enum { M = 77, N = 200, K = 96, L = 3 };

static fakecuda_api fc;
static evt_ctx *mem;   /* the device memory's context, outside the passes */
static void *stream;
static char *buf;      /* one device allocation, carved into the buffers */
enum { BUF_BYTES = 16 << 20 };

/* The calls of a pass, in order: statuses and the plans' texts.  A call
 * that answers EVT_ERR_NO_MEMORY is made again at once (the failure is
 * spent by then): what it answers then is the status recorded. */
enum { MAX_STEPS = 48 };
typedef struct pass {
    int n;
    evt_status status[MAX_STEPS];
    const char *what[MAX_STEPS];
    char plan[MAX_STEPS][160]; /* evt_launch_plan after a run ("" where none) */
    int out_of_memory;         /* calls that answered the injected failure (out of
                                  memory, or a driver error) */
    long driver_calls;         /* the fake driver's calls in the pass */
    int messages_ok;           /* each of them left a message */
} pass;

static void step(pass *p, evt_launch *l, const char *what, evt_status st)
{
    assert_true(p->n < MAX_STEPS);
    p->status[p->n] = st;
    p->what[p->n] = what;
    p->plan[p->n][0] = '\0';
    if (st == EVT_OK && l && strstr(what, "run")) {
        const char *s = evt_launch_plan(l);
        snprintf(p->plan[p->n], sizeof p->plan[0], "%s", s ? s : "(NULL)");
    }
    p->n++;
}

/* The last call's text (a listing, generated code, a binary's bytes) as a
 * hash in its plan field, for the comparison with the pass without a
 * failure. */
static void record_bytes(pass *p, const void *data, size_t n)
{
    unsigned long long h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)data)[i]) * 1099511628211ull;
    snprintf(p->plan[p->n - 1], sizeof p->plan[0], "%zu bytes, hash %016llx", n, h);
}

/* What a pass fails: an allocation of the library's, or a call of the
 * fake driver's (answering an error code no driver gives). */
static int failing_driver;

/* Whether st is what the injected failure may answer. */
static int injected(evt_status st)
{
    return failing_driver ? st == EVT_ERR_DRIVER || st == EVT_ERR_NO_GPU : st == EVT_ERR_NO_MEMORY;
}

static int out_of_memory(pass *p, evt_ctx *ctx, evt_status st)
{
    if (!injected(st))
        return 0;
    p->out_of_memory++;
    if (ctx && !evt_ctx_last_error(ctx)[0])
        p->messages_ok = 0;
    return 1;
}

/* Makes `call` (again where it ran out of memory) and records it. */
#define STEP(p, ctx, l, what, call)                                                             \
    do {                                                                                        \
        evt_status st_ = (call);                                                                \
        if (out_of_memory(p, ctx, st_))                                                         \
            st_ = (call);                                                                       \
        step(p, l, what, st_);                                                                  \
    } while (0)

/* A call that returns a text, NULL where memory ran out (made again then). */
#define TEXT_STEP(p, what, call)                                                                \
    do {                                                                                        \
        const char *t_ = (call);                                                                \
        if (!t_) {                                                                              \
            (p)->out_of_memory++;                                                               \
            t_ = (call);                                                                        \
        }                                                                                       \
        step(p, NULL, what, t_ ? EVT_OK : EVT_ERR_NO_MEMORY);                                   \
        if (t_)                                                                                 \
            record_bytes(p, t_, strlen(t_));                                                    \
    } while (0)

/* An interpreter's call: its message is the interpreter's own. */
#define INTERP_STEP(p, ip, what, call)                                                          \
    do {                                                                                        \
        evt_status st_ = (call);                                                                \
        if (st_ == EVT_ERR_NO_MEMORY) {                                                         \
            (p)->out_of_memory++;                                                               \
            if (!evt_interp_last_error(ip)[0])                                                  \
                (p)->messages_ok = 0;                                                           \
            st_ = (call);                                                                       \
        }                                                                                       \
        step(p, NULL, what, st_);                                                               \
    } while (0)

/* Carves the next `bytes` (256-byte aligned) of the device buffer. */
static char *carve(size_t *at, size_t bytes)
{
    char *p = buf + *at;
    *at += (bytes + 255) & ~(size_t)255;
    assert_true(*at <= BUF_BYTES);
    return p;
}

static evt_status bind_wide(evt_launch *l, size_t *at, long long batch)
{
    const size_t mn = (size_t)M * N * 2, stride = (size_t)M * N;
    struct {
        const char *name;
        size_t bytes;
        long long ld, stride;
    } b[] = {
        {"bias", (size_t)N * 2, 0, 0},
        {"rows", (size_t)M * 4, 0, 0},
        {"res", mn * (size_t)batch, N, batch > 1 ? (long long)stride : 0},
        {"d", mn * (size_t)batch, N, batch > 1 ? (long long)stride : 0},
        {"amax", 4 * (size_t)batch, 0, 1},
        {"csum", (size_t)N * 4 * (size_t)batch, 0, N},
    };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        evt_status st = evt_launch_bind_batched(l, b[i].name, carve(at, b[i].bytes), b[i].bytes, b[i].ld,
                                                b[i].stride);
        if (st != EVT_OK)
            return st;
    }
    return evt_launch_set_param(l, "beta", 0.5f);
}

static evt_status bind_f8(evt_launch *f, size_t *at, size_t zb)
{
    evt_status st = evt_launch_bind(f, "unused", carve(at, 4), 4, 0);
    return st == EVT_OK ? evt_launch_bind(f, "z", carve(at, zb), zb, N) : st;
}

static evt_status bind_conv(evt_launch *c, size_t *at, size_t yb)
{
    evt_status st = evt_launch_bind(c, "res", carve(at, yb), yb, 40);
    if (st == EVT_OK)
        st = evt_launch_bind(c, "bias", carve(at, 80), 80, 0);
    if (st == EVT_OK)
        st = evt_launch_bind(c, "y", carve(at, yb), yb, 40);
    return st;
}

/* Stops failing allocations: the pass's objects are destroyed after it. */
static void disarm(void)
{
    lock();
    fail_at = -1;
    unlock();
    fc.fakecuda_fail(NULL, 0, 0);
}

/* The module of `source` parsed in ctx (NULL where that failed), after the
 * paths to the fake driver and NVRTC are set. */
static evt_module *parsed(pass *p, evt_ctx *ctx)
{
    evt_module *m = NULL;
    if (!ctx)
        return NULL;
    STEP(p, ctx, NULL, "driver path", evt_ctx_set_library_path(ctx, EVT_LIBRARY_CUDA_DRIVER, EVT_FAKECUDA));
    STEP(p, ctx, NULL, "nvrtc path", evt_ctx_set_library_path(ctx, EVT_LIBRARY_NVRTC, EVT_FAKECUDA));
    /* a parse that runs out of memory may still hand back a module */
    STEP(p, ctx, NULL, "parse",
         (evt_module_destroy(m), evt_module_parse_buffer(ctx, "oom.evt", source, strlen(source), &m)));
    return m;
}

/* The launches' calls: a GEMM's life and a conv's. */
static void launch_calls(pass *p, evt_ctx *ctx)
{
    size_t at = 0;
    evt_module *m = parsed(p, ctx);
    evt_launch *g = NULL, *c = NULL;
    if (m) {
        STEP(p, ctx, NULL, "optimize", evt_module_optimize(m, 2));
        STEP(p, ctx, NULL, "create g",
             evt_launch_create(m, evt_module_find_kernel(m, "g"), &g));
    }
    if (g) {
        const size_t ab = (size_t)M * K * 2, bb = (size_t)K * N * 2 * L;
        char *a = carve(&at, ab * L), *b = carve(&at, bb);
        STEP(p, ctx, g, "set_gemm", evt_launch_set_gemm(g, M, N, K, a, K, ab * L, b, K, bb));
        STEP(p, ctx, g, "bind", bind_wide(g, &at, 1));
        STEP(p, ctx, g, "run", evt_launch_run(g, stream));
        size_t ws = 0;
        STEP(p, ctx, g, "workspace_size", evt_launch_workspace_size(g, &ws));
        evt_tuning t = {0};
        t.split_k = 3;
        STEP(p, ctx, g, "set_tuning split 3", evt_launch_set_tuning(g, &t));
        STEP(p, ctx, g, "run split 3", evt_launch_run(g, stream));
        STEP(p, ctx, g, "set_tuning NULL", evt_launch_set_tuning(g, NULL));
        STEP(p, ctx, g, "set_batch", evt_launch_set_batch(g, L, (long long)M * K, 0));
        STEP(p, ctx, g, "bind batched", bind_wide(g, &at, L));
        STEP(p, ctx, g, "run batch", evt_launch_run(g, stream));
        /* Failing driver calls in turn, the timing is on the sm_80 device,
         * whose fewer plans keep the sweep to some 1,500 calls (on the sm_90a
         * one, 8,500: each a pass). */
        if (failing_driver)
            fc.fakecuda_set_current(1);
        double ms = 0;
        STEP(p, ctx, g, "benchmark", evt_launch_benchmark(g, stream, 1, 3, &ms));
        evt_tune_options o = {.max_seconds = 30, .threads = 2, .warmup = 1, .reps = 1};
        evt_tune_result r;
        STEP(p, ctx, g, "tune", evt_launch_tune(g, stream, &o, &r));
        STEP(p, ctx, g, "run tuned", evt_launch_run(g, stream));
        fc.fakecuda_set_current(1);
        STEP(p, ctx, g, "run sm_80", evt_launch_run(g, stream));
        fc.fakecuda_set_current(0);
        /* under a CUDA graph capture (global mode, PyTorch's default) */
        STEP(p, NULL, NULL, "begin capture", fc.cuStreamBeginCapture(stream, 0) == 0 ? EVT_OK : EVT_ERR_DRIVER);
        STEP(p, ctx, g, "run captured", evt_launch_run(g, stream));
        void *graph = NULL;
        STEP(p, NULL, NULL, "end capture", fc.cuStreamEndCapture(stream, &graph) == 0 ? EVT_OK : EVT_ERR_DRIVER);
    }
    if (m)
        STEP(p, ctx, NULL, "create c", evt_launch_create(m, evt_module_find_kernel(m, "c"), &c));
    if (c) {
        evt_conv_problem cp = {5, 9, 11, 24, 40, 3, 3, 1, 1, 2, 2, 1, 1};
        long long pp = 0, qq = 0;
        assert_int_equal(evt_conv_output_size(&cp, &pp, &qq), EVT_OK);
        const size_t xb = (size_t)(5 * 9 * 11 * 24) * 2, wb = (size_t)(40 * 3 * 3 * 24) * 2;
        const size_t yb = (size_t)(5 * pp * qq * 40) * 2;
        char *x = carve(&at, xb), *w = carve(&at, wb);
        STEP(p, ctx, c, "set_conv", evt_launch_set_conv(c, &cp, x, xb, w, wb));
        STEP(p, ctx, c, "bind conv", bind_conv(c, &at, yb));
        STEP(p, ctx, c, "run conv", evt_launch_run(c, stream));
    }
    evt_launch *f = NULL;
    if (m)
        STEP(p, ctx, NULL, "create f8", evt_launch_create(m, evt_module_find_kernel(m, "f8"), &f));
    if (f) {
        /* fp8 operands (a byte an element), the caller's workspace */
        const size_t ab = (size_t)M * K, bb = (size_t)K * N, zb = (size_t)M * N * 4;
        char *a = carve(&at, ab), *b = carve(&at, bb);
        STEP(p, ctx, f, "set_gemm f8", evt_launch_set_gemm(f, M, N, K, a, K, ab, b, K, bb));
        STEP(p, ctx, f, "bind f8", bind_f8(f, &at, zb));
        evt_tuning t = {0};
        t.split_k = 2;
        STEP(p, ctx, f, "set_tuning f8 split 2", evt_launch_set_tuning(f, &t));
        size_t ws = 0;
        STEP(p, ctx, f, "workspace_size f8", evt_launch_workspace_size(f, &ws));
        char *w = carve(&at, ws ? ws : 1);
        STEP(p, ctx, f, "run f8 with workspace", evt_launch_run_with_workspace(f, stream, ws ? w : NULL, ws));
    }
    disarm();
    evt_launch_destroy(f);
    evt_launch_destroy(c);
    evt_launch_destroy(g);
    evt_module_destroy(m);
}

/* The interpreter's host arrays (static: the test's own allocations would
 * count as the library's), filled once by group_setup. */
enum { IM = 5, IN = 7 };
static float i_acc[IM * IN], i_rows[IM], i_amax, i_csum[IN];
static uint16_t i_bias[IN], i_res[IM * IN], i_d[IM * IN];
static double i_d64[IM * IN], i_mag[IN];

static void fill_interp_arrays(void)
{
    unsigned x = 12345;
    for (int i = 0; i < IM * IN; i++) {
        x = x * 1103515245u + 12345u;
        i_acc[i] = (float)((int)(x >> 16) % 2001 - 1000) / 250.0f;
        i_res[i] = (uint16_t)(0x3c00 + (x >> 20 & 0xff)); /* bf16 around 0.0078-0.03 */
    }
    for (int i = 0; i < IN; i++)
        i_bias[i] = (uint16_t)(0x3800 + 97 * i); /* f16 around 0.5-0.75 */
    for (int i = 0; i < IM; i++)
        i_rows[i] = 0.25f * (float)(i + 1);
}

/* What a program does without launching: optimize (with a pass list and a
 * callback), the module's texts, CUDA for each kernel and target, a
 * configuration check, NVRTC, the interpreter in both modes. */
static size_t callback_chars;
static void count_chars(void *user, const char *pass_name, const char *ir_text)
{
    (void)user;
    callback_chars += strlen(pass_name) + strlen(ir_text);
}

/* The diagnostics' text, or NULL where it says it could not be rendered. */
static const char *diag_text(evt_module *m, evt_diag_format format)
{
    const char *s = evt_module_diag_text(m, format);
    return strstr(s, "out of memory rendering the diagnostics") ? NULL : s;
}

static void module_calls(pass *p, evt_ctx *ctx)
{
    evt_module *m = parsed(p, ctx);
    if (!m)
        return;
    TEXT_STEP(p, "diag text", diag_text(m, EVT_DIAG_TEXT));
    TEXT_STEP(p, "diag json", diag_text(m, EVT_DIAG_JSON));
    evt_optimize_options o = {.passes = "fold,simplify,cse,strength,dce", .after = count_chars};
    STEP(p, ctx, NULL, "optimize passes", evt_module_optimize_with(m, &o));
    STEP(p, ctx, NULL, "optimize", evt_module_optimize(m, 2));
    TEXT_STEP(p, "ir text", evt_module_ir_text(m));
    TEXT_STEP(p, "dot text", evt_module_dot_text(m));
    const evt_kernel *g = evt_module_find_kernel(m, "g"), *c = evt_module_find_kernel(m, "c"),
                     *f8 = evt_module_find_kernel(m, "f8");
    static const struct {
        const char *what;
        int kernel;
        evt_target t;
    } listings[] = {
        {"cuda g sm_90a", 0, EVT_TARGET_SM90A},
        {"cuda g sm_80", 0, EVT_TARGET_SM80},
        {"cuda c sm_90a", 1, EVT_TARGET_SM90A},
        {"cuda f8 sm_89", 2, EVT_TARGET_SM89},
    };
    for (size_t i = 0; i < sizeof listings / sizeof listings[0]; i++) {
        const evt_kernel *k = listings[i].kernel == 0 ? g : listings[i].kernel == 1 ? c : f8;
        const char *text = NULL;
        STEP(p, ctx, NULL, listings[i].what, evt_kernel_cuda(m, k, listings[i].t, &text));
        if (text)
            record_bytes(p, text, strlen(text));
    }
    STEP(p, ctx, NULL, "config check", evt_kernel_config_check(m, g, EVT_TARGET_SM90A, "sm90_pp2_128x128x64_s4"));
    void *data = NULL;
    size_t size = 0;
    STEP(p, ctx, NULL, "compile f8", evt_kernel_compile(m, f8, EVT_TARGET_SM89, EVT_BINARY_PTX, &data, &size, NULL));
    if (data)
        record_bytes(p, data, size);
    evt_free(data);

    evt_interp *ip = NULL;
    /* no interpreter to hold a message: the status says it */
    STEP(p, NULL, NULL, "interp create", evt_interp_create(evt_module_find_epilogue(m, "wide"), &ip));
    if (ip) {
        evt_status st = evt_interp_bind(ip, "bias", i_bias, sizeof i_bias, 0);
        if (st == EVT_OK)
            st = evt_interp_bind(ip, "rows", i_rows, sizeof i_rows, 0);
        if (st == EVT_OK)
            st = evt_interp_bind(ip, "res", i_res, sizeof i_res, IN);
        if (st == EVT_OK)
            st = evt_interp_bind(ip, "d", i_d, sizeof i_d, IN);
        if (st == EVT_OK)
            st = evt_interp_bind(ip, "amax", &i_amax, sizeof i_amax, 0);
        if (st == EVT_OK)
            st = evt_interp_bind(ip, "csum", i_csum, sizeof i_csum, 0);
        if (st == EVT_OK)
            st = evt_interp_set_param(ip, "beta", 0.75f);
        if (st == EVT_OK)
            st = evt_interp_set_acc(ip, IM, IN, i_acc, sizeof i_acc, IN);
        step(p, NULL, "interp bind", st);
        memset(i_d, 0, sizeof i_d);
        INTERP_STEP(p, ip, "interp f32", evt_interp_run(ip, EVT_INTERP_F32));
        record_bytes(p, i_d, sizeof i_d);
        st = evt_interp_bind_f64(ip, "d", i_d64, sizeof i_d64, IN);
        if (st == EVT_OK)
            st = evt_interp_bind_magnitude(ip, "csum", i_mag, sizeof i_mag);
        step(p, NULL, "interp bind f64", st);
        memset(i_d64, 0, sizeof i_d64);
        INTERP_STEP(p, ip, "interp f64", evt_interp_run(ip, EVT_INTERP_F64));
        record_bytes(p, i_d64, sizeof i_d64);
    }
    disarm();
    evt_interp_destroy(ip);
    evt_module_destroy(m);
}

/* Runs the calls of `calls` in a new context, failing allocation `fail`
 * (-1: none), and checks that nothing is left once all is destroyed. */
static void run_pass(pass *p, long fail, void (*calls)(pass *, evt_ctx *))
{
    memset(p, 0, sizeof *p);
    p->messages_ok = 1;
    fc.fakecuda_set_current(0);
    long modules = fc.fakecuda_live_modules(), events = fc.fakecuda_live_events();
    size_t device_allocs = fc.fakecuda_live_allocs(NULL);

    lock();
    allocations = 0;
    fail_at = failing_driver ? -1 : fail;
    live = inserted = 0;
    memset(set, 0, SET_SIZE * sizeof *set);
    unlock();
    tracking = 1;
    fc.fakecuda_reset(); /* the driver calls counted from here */
    if (failing_driver && fail >= 0)
        fc.fakecuda_fail("*", fail + 1, 999);

    evt_ctx *ctx = evt_ctx_create();
    if (!ctx) {
        p->out_of_memory++;
        ctx = evt_ctx_create();
    }
    step(p, NULL, "ctx_create", ctx ? EVT_OK : EVT_ERR_NO_MEMORY);
    calls(p, ctx);
    disarm();
    evt_ctx_destroy(ctx);
    tracking = 0;
    p->driver_calls = fc.fakecuda_calls(NULL);
    fc.fakecuda_fail(NULL, 0, 0);
    if (fc.fakecuda_violations() != 0)
        fail_msg("%s %ld failed: the driver was misused: %s", failing_driver ? "driver call" : "allocation", fail,
                 fc.fakecuda_last_violation());
    if (live != 0) {
        /* addresses in this executable: addr2line -f -e test_oom_launch OFFSET */
        char where[256] = "";
        size_t len = 0;
        for (size_t i = 0; i < SET_SIZE && len < sizeof where - 24; i++)
            if (set[i] && set[i] != (void *)1)
                len += (size_t)snprintf(where + len, sizeof where - len, " %#lx",
                                        (unsigned long)((char *)set_caller[i] - &__executable_start));
        fail_msg("%s %ld failed (an allocation made at %#lx): %ld blocks of the library left after "
                 "destroying everything, allocated at%s",
                 failing_driver ? "driver call" : "allocation", fail, (unsigned long)((char *)failed_caller - &__executable_start), live, where);
    }
    if (fc.fakecuda_live_allocs(NULL) != device_allocs || fc.fakecuda_live_modules() != modules ||
        fc.fakecuda_live_events() != events)
        fail_msg("%s %ld failed: device allocations %zu (before %zu), modules %ld (%ld), events %ld (%ld)",
                 failing_driver ? "driver call" : "allocation", fail, fc.fakecuda_live_allocs(NULL), device_allocs, fc.fakecuda_live_modules(), modules,
                 fc.fakecuda_live_events(), events);
}

static int group_setup(void **state)
{
    (void)state;
    /* nothing of a pass may reach a real cache (each test sets its own) */
    setenv("EVT_DISABLE_CACHE", "1", 1);
    set = __libc_calloc(SET_SIZE, sizeof *set);
    set_caller = __libc_calloc(SET_SIZE, sizeof *set_caller);
    fill_interp_arrays();
    if (!set || !set_caller || fakecuda_open(EVT_FAKECUDA, &fc) != 0 || fc.fakecuda_configure(DEVICES) != 0)
        return -1;
    if (!(mem = evt_ctx_create()) ||
        evt_ctx_set_library_path(mem, EVT_LIBRARY_CUDA_DRIVER, EVT_FAKECUDA) != EVT_OK)
        return -1;
    fc.fakecuda_set_current(0);
    if (evt_device_alloc(mem, BUF_BYTES, (void **)&buf) != EVT_OK || fc.cuStreamCreate(&stream, 0) != 0)
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    fc.cuStreamDestroy(stream);
    evt_device_free(mem, buf);
    evt_ctx_destroy(mem);
    void **s = set;
    set = NULL; /* free() looks blocks up in it until then */
    __libc_free(s);
    __libc_free(set_caller);
    return 0;
}
#endif

#ifdef EVT_CAN_FAIL_MALLOC
static const char *what_failed(void)
{
    return failing_driver ? "driver call" : "allocation";
}

/* Every pass, each failing one allocation (or driver call), against the pass without. */
static void every_allocation(void (*calls)(pass *, evt_ctx *))
{
    static pass want, got;
    run_pass(&want, -1, calls);
    run_pass(&want, -1, calls); /* a disk cache's files then stay as they are: every pass starts alike */
    for (int i = 0; i < want.n; i++)
        if (want.status[i] != EVT_OK)
            fail_msg("without a failure, %s answered %s", want.what[i], evt_status_string(want.status[i]));
    assert_int_equal(want.out_of_memory, 0);
    const long total = failing_driver ? want.driver_calls : allocations;
    if (getenv("OOM_COUNT"))
        fprintf(stderr, "%s: %ld\n", what_failed(), total);
    assert_true(total > 100 || (failing_driver && total > 0));
    int failures = 0;
    if (getenv("OOM_PASS")) { /* one pass's calls, to see what a failure reports */
        long n = atol(getenv("OOM_PASS"));
        run_pass(&got, n, calls);
        for (int i = 0; i < got.n; i++)
            printf("%-20s %-28s %s\n", got.what[i], evt_status_string(got.status[i]), got.plan[i]);
        return;
    }
    for (long n = 0; n < total; n++) {
        run_pass(&got, n, calls);
        if (got.n != want.n)
            fail_msg("%s %ld of %ld failed: %d calls made, want %d", what_failed(), n, total, got.n, want.n);
        for (int i = 0; i < got.n; i++) {
            if (got.status[i] != want.status[i])
                fail_msg("%s %ld of %ld failed: %s answered %s (made again after the failure, if it "
                         "saw it), want %s",
                         what_failed(), n, total, got.what[i], evt_status_string(got.status[i]),
                         evt_status_string(want.status[i]));
            /* (a failed driver query of cluster occupancy leaves the launch
             * on plans without clusters: other plans, the same results) */
            if (!failing_driver && strcmp(got.plan[i], want.plan[i]) != 0)
                fail_msg("%s %ld failed: %s ran \"%s\", want \"%s\"", what_failed(), n, got.what[i],
                         got.plan[i], want.plan[i]);
        }
        if (got.out_of_memory > 1)
            fail_msg("%s %ld failed: %d calls answered its failure (one failure)", what_failed(), n,
                     got.out_of_memory);
        if (!got.messages_ok)
            fail_msg("%s %ld failed: answered with no message", what_failed(), n);
        failures += got.out_of_memory;
    }
    /* most single allocation failures reach the caller, the rest absorbed (a
     * cache); many driver calls are timing's, which falls back to run-by-run
     * samples when a graph's fail, or advisory (cluster occupancy) */
    if (failures <= total / (failing_driver ? 5 : 2))
        fail_msg("only %d of %ld failures reached the caller", failures, total);
}
#endif

/* A sweep with the disk cache off (every kernel compiled, tuning's record in
 * memory), failing allocations or, with `driver`, the fake driver's calls. */
#ifdef EVT_CAN_FAIL_MALLOC
static void sweep(void (*calls)(pass *, evt_ctx *), int driver)
{
    setenv("EVT_DISABLE_CACHE", "1", 1);
    failing_driver = driver;
    every_allocation(calls);
    failing_driver = 0;
}
#define SWEEP(calls, driver) sweep(calls, driver)
#else
#define SWEEP(calls, driver) skip()
#endif

static void test_every_allocation_of_a_launch_fails_cleanly(void **state)
{
    (void)state;
    SWEEP(launch_calls, 0);
}

/* The calls a program makes without launching. */
static void test_every_allocation_of_the_rest_fails_cleanly(void **state)
{
    (void)state;
    SWEEP(module_calls, 0);
}

/* Every call of the fake driver's over a launch's life failed in turn: each
 * call answers as with a working driver, or EVT_ERR_DRIVER or
 * EVT_ERR_NO_GPU with a message and then, made again, as with a working
 * driver; nothing leaks.  (test_fake_driver does this for one first run.) */
static void test_every_driver_call_of_a_launch_fails_cleanly(void **state)
{
    (void)state;
    SWEEP(launch_calls, 1);
}

/* With a disk cache, filled by the pass without a failure: cubins read from
 * files, the tuning database read and appended to. */
static void test_every_allocation_with_a_disk_cache(void **state)
{
    (void)state;
#ifndef EVT_CAN_FAIL_MALLOC
    skip();
#else
    char dir[] = "/tmp/evt_oom_launch_XXXXXX";
    assert_non_null(mkdtemp(dir));
    unsetenv("EVT_DISABLE_CACHE");
    setenv("EVT_CACHE_DIR", dir, 1);
    every_allocation(launch_calls);
    setenv("EVT_DISABLE_CACHE", "1", 1);
    char cmd[sizeof dir + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocation_of_a_launch_fails_cleanly),
        cmocka_unit_test(test_every_allocation_with_a_disk_cache),
        cmocka_unit_test(test_every_allocation_of_the_rest_fails_cleanly),
        cmocka_unit_test(test_every_driver_call_of_a_launch_fails_cleanly),
    };
#ifdef EVT_CAN_FAIL_MALLOC
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
#else
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
