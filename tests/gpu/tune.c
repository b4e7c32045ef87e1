/*
 * tune.c - evt_launch_tune on the GPU: on ragged GEMMs (one on the fast
 * path, one guarded) the tuner lists, compiles and times the plans, the
 * fastest is recorded, and from then on launches of that kernel and problem
 * run it ("tuned" in evt_launch_plan) with correct results: in the same
 * context at once, in a new context from the database's file, never with
 * ignore_records or for another size.  Prints what each tuning took.
 *
 * Inputs are small integers, so every result is exact whatever the plan
 * (split-K's sums included): outputs compare bit for bit with a host loop.
 * Exit status: 0 PASS, 1 FAIL or error, 77 no GPU (the ctest skip code).
 */
#define _POSIX_C_SOURCE 200809L
#include <evt/evt.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char source[] =
    "epilogue e {\n"
    "    in  bias : f16[N]\n"
    "    out d    : f32[M, N] = relu(acc + bias)\n"
    "    out amax : f32 = reduce_max(abs(acc))\n"
    "}\n"
    "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with e\n";

static int failures;

#define EXPECT(cond, ...)                                                                            \
    do {                                                                                             \
        if (!(cond)) {                                                                               \
            fprintf(stderr, "tune: line %d: ", __LINE__);                                            \
            fprintf(stderr, __VA_ARGS__);                                                            \
            fputc('\n', stderr);                                                                     \
            failures++;                                                                              \
        }                                                                                            \
    } while (0)

/* f16 bits of a small integer (|v| <= 2048: exact). */
static unsigned short f16_of(int v)
{
    if (v == 0)
        return 0;
    unsigned short sign = v < 0 ? 0x8000 : 0;
    unsigned a = (unsigned)(v < 0 ? -v : v), e = 0;
    while ((a >> e) > 1)
        e++;
    unsigned mant = e >= 10 ? (a >> (e - 10)) & 0x3ff : (a << (10 - e)) & 0x3ff;
    return (unsigned short)(sign | ((e + 15) << 10) | mant);
}

typedef struct problem {
    long long m, n, k;
    int *a, *b, *bias; /* host integers */
    void *da, *db, *dbias, *dd, *damax;
    float *want, want_amax, *got;
} problem;

static int setup(evt_ctx *ctx, problem *p, long long m, long long n, long long k, unsigned seed)
{
    memset(p, 0, sizeof *p);
    p->m = m, p->n = n, p->k = k;
    p->a = malloc(sizeof(int) * (size_t)(m * k));
    p->b = malloc(sizeof(int) * (size_t)(n * k));
    p->bias = malloc(sizeof(int) * (size_t)n);
    p->want = malloc(sizeof(float) * (size_t)(m * n));
    p->got = malloc(sizeof(float) * (size_t)(m * n));
    unsigned short *h = malloc(2 * (size_t)((m > n ? m : n) * k));
    if (!p->a || !p->b || !p->bias || !p->want || !p->got || !h)
        return 0;
    srand(seed);
    for (long long i = 0; i < m * k; i++)
        p->a[i] = rand() % 7 - 3;
    for (long long i = 0; i < n * k; i++)
        p->b[i] = rand() % 5 - 2;
    for (long long i = 0; i < n; i++)
        p->bias[i] = rand() % 41 - 20;
    p->want_amax = 0;
    for (long long i = 0; i < m; i++)
        for (long long j = 0; j < n; j++) {
            long long acc = 0;
            for (long long q = 0; q < k; q++)
                acc += (long long)p->a[i * k + q] * p->b[j * k + q]; /* b column-major: n x k */
            float v = (float)(acc + p->bias[j]);
            p->want[i * n + j] = v > 0 ? v : 0;
            if (fabsf((float)acc) > p->want_amax)
                p->want_amax = fabsf((float)acc);
        }
    int ok = evt_device_alloc(ctx, 2 * (size_t)(m * k), &p->da) == EVT_OK &&
             evt_device_alloc(ctx, 2 * (size_t)(n * k), &p->db) == EVT_OK &&
             evt_device_alloc(ctx, 2 * (size_t)n, &p->dbias) == EVT_OK &&
             evt_device_alloc(ctx, 4 * (size_t)(m * n), &p->dd) == EVT_OK &&
             evt_device_alloc(ctx, 4, &p->damax) == EVT_OK;
    for (long long i = 0; ok && i < m * k; i++)
        h[i] = f16_of(p->a[i]);
    ok = ok && evt_device_copy_to(ctx, p->da, h, 2 * (size_t)(m * k)) == EVT_OK;
    for (long long i = 0; ok && i < n * k; i++)
        h[i] = f16_of(p->b[i]);
    ok = ok && evt_device_copy_to(ctx, p->db, h, 2 * (size_t)(n * k)) == EVT_OK;
    for (long long i = 0; ok && i < n; i++)
        h[i] = f16_of(p->bias[i]);
    ok = ok && evt_device_copy_to(ctx, p->dbias, h, 2 * (size_t)n) == EVT_OK;
    free(h);
    return ok;
}

static void teardown(evt_ctx *ctx, problem *p)
{
    evt_device_free(ctx, p->da);
    evt_device_free(ctx, p->db);
    evt_device_free(ctx, p->dbias);
    evt_device_free(ctx, p->dd);
    evt_device_free(ctx, p->damax);
    free(p->a);
    free(p->b);
    free(p->bias);
    free(p->want);
    free(p->got);
}

static evt_launch *bound(evt_module *mod, problem *p)
{
    evt_launch *l = NULL;
    const evt_kernel *k = evt_module_find_kernel(mod, "k");
    if (evt_launch_create(mod, k, &l) != EVT_OK)
        return NULL;
    const long long m = p->m, n = p->n, kk = p->k;
    if (evt_launch_set_gemm(l, m, n, kk, p->da, kk, 2 * (size_t)(m * kk), p->db, kk,
                            2 * (size_t)(n * kk)) != EVT_OK ||
        evt_launch_bind(l, "bias", p->dbias, 2 * (size_t)n, 0) != EVT_OK ||
        evt_launch_bind(l, "d", p->dd, 4 * (size_t)(m * n), n) != EVT_OK ||
        evt_launch_bind(l, "amax", p->damax, 4, 0) != EVT_OK) {
        evt_launch_destroy(l);
        return NULL;
    }
    return l;
}

/* Runs l, checks every output and returns its plan line (static storage). */
static const char *run_checked(evt_ctx *ctx, evt_launch *l, problem *p, const char *what)
{
    static char plan[256];
    plan[0] = '\0';
    memset(p->got, 0xff, sizeof(float) * (size_t)(p->m * p->n)); /* NaNs: a missed element shows */
    if (evt_device_copy_to(ctx, p->dd, p->got, sizeof(float) * (size_t)(p->m * p->n)) != EVT_OK ||
        evt_launch_run(l, NULL) != EVT_OK ||
        evt_device_synchronize(ctx) != EVT_OK) {
        EXPECT(0, "%s: run failed: %s", what, evt_ctx_last_error(ctx));
        return plan;
    }
    float amax = -1;
    evt_device_copy_from(ctx, p->got, p->dd, sizeof(float) * (size_t)(p->m * p->n));
    evt_device_copy_from(ctx, &amax, p->damax, 4);
    long long bad = 0;
    for (long long i = 0; i < p->m * p->n; i++)
        bad += memcmp(&p->got[i], &p->want[i], 4) != 0;
    snprintf(plan, sizeof plan, "%s", evt_launch_plan(l));
    EXPECT(bad == 0, "%s: %lld of %lld elements of d differ (plan %s)", what, bad, p->m * p->n, plan);
    EXPECT(amax == p->want_amax, "%s: amax %g, want %g (plan %s)", what, amax, p->want_amax, plan);
    return plan;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

static void tune_one(evt_ctx *ctx, evt_module *mod, long long m, long long n, long long k)
{
    char what[64];
    snprintf(what, sizeof what, "%lldx%lldx%lld", m, n, k);
    problem p;
    if (!setup(ctx, &p, m, n, k, (unsigned)(m * 31 + n))) {
        EXPECT(0, "%s: set-up failed: %s", what, evt_ctx_last_error(ctx));
        teardown(ctx, &p);
        return;
    }
    evt_launch *l = bound(mod, &p);
    EXPECT(l, "%s: binding failed: %s", what, evt_ctx_last_error(ctx));
    if (!l) {
        teardown(ctx, &p);
        return;
    }
    const char *before = run_checked(ctx, l, &p, what);
    EXPECT(!ends_with(before, " tuned"), "%s: tuned before tuning: %s", what, before);

    evt_tune_result r;
    const evt_tune_options o = {.max_seconds = 30};
    evt_status st = evt_launch_tune(l, NULL, &o, &r);
    EXPECT(st == EVT_OK, "%s: evt_launch_tune: %s", what, evt_ctx_last_error(ctx));
    if (st == EVT_OK) {
        printf("tune %s: %d plans, %d timed, %d compiled, %.2f s (compiles %.2f s); heuristic %s "
               "split %d %.4f ms, best %s split %d %.4f ms (%.2fx)\n",
               what, r.candidates, r.timed, r.compiled, r.seconds, r.compile_seconds,
               r.heuristic.config, r.heuristic.split_k, r.heuristic.ms, r.best.config,
               r.best.split_k, r.best.ms, r.heuristic.ms / r.best.ms);
        EXPECT(r.candidates >= 2 && r.timed >= 1 && r.timed <= r.candidates &&
                   r.nentries == r.candidates,
               "%s: %d plans, %d timed, %d entries", what, r.candidates, r.timed, r.nentries);
        EXPECT(r.best.ms > 0 && r.best.ms <= r.heuristic.ms, "%s: best %g ms, heuristic %g ms", what,
               r.best.ms, r.heuristic.ms);
        EXPECT(r.recorded, "%s: not recorded", what);
        for (int i = 0; i < r.timed; i++)
            EXPECT(r.entries[i].ms >= r.best.ms, "%s: entry %s %g ms beats the best", what,
                   r.entries[i].config, r.entries[i].ms);
        const char *after = run_checked(ctx, l, &p, what);
        EXPECT(ends_with(after, " tuned") && strstr(after, r.best.config),
               "%s: after tuning the plan is %s, want %s tuned", what, after, r.best.config);
        /* a new context and launch: the record comes from the file */
        evt_ctx *ctx2 = evt_ctx_create();
        evt_module *mod2 = NULL;
        if (ctx2 && evt_module_parse_buffer(ctx2, "tune.evt", source, sizeof source - 1, &mod2) == EVT_OK) {
            evt_launch *l2 = bound(mod2, &p);
            const char *again = l2 ? run_checked(ctx2, l2, &p, what) : "";
            EXPECT(ends_with(again, " tuned") && strstr(again, r.best.config),
                   "%s: a new context's plan is %s, want %s tuned", what, again, r.best.config);
            evt_launch_destroy(l2);
        }
        evt_module_destroy(mod2);
        evt_ctx_destroy(ctx2);
        /* ignore_records: the heuristic's plan */
        const evt_tuning ignore = {.ignore_records = 1};
        evt_launch_set_tuning(l, &ignore);
        const char *heur = run_checked(ctx, l, &p, what);
        EXPECT(!ends_with(heur, " tuned") && strstr(heur, r.heuristic.config),
               "%s: with ignore_records the plan is %s, want %s", what, heur, r.heuristic.config);
        evt_launch_set_tuning(l, NULL);
    }
    evt_launch_destroy(l);
    teardown(ctx, &p);
}

int main(void)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/evt-tune-test-%ld", (long)getpid());
    setenv("EVT_CACHE_DIR", dir, 1); /* a fresh database, and the compiles counted */
    unsetenv("EVT_DISABLE_CACHE");
    evt_ctx *ctx = evt_ctx_create();
    evt_target t;
    if (!ctx || evt_device_target(ctx, &t, NULL, 0) != EVT_OK) {
        printf("tune: SKIP (no GPU: %s)\n", ctx ? evt_ctx_last_error(ctx) : "no context");
        evt_ctx_destroy(ctx);
        return 77;
    }
    evt_module *mod = NULL;
    if (evt_module_parse_buffer(ctx, "tune.evt", source, sizeof source - 1, &mod) != EVT_OK) {
        fprintf(stderr, "tune: %s\n", evt_ctx_last_error(ctx));
        return 1;
    }
    tune_one(ctx, mod, 300, 200, 136); /* the fast path */
    tune_one(ctx, mod, 97, 83, 41);    /* guarded */
    /* another size has no record */
    problem p;
    if (setup(ctx, &p, 301, 200, 136, 7)) {
        evt_launch *l = bound(mod, &p);
        const char *plan = l ? run_checked(ctx, l, &p, "301x200x136") : "";
        EXPECT(!ends_with(plan, " tuned"), "301x200x136 took a record: %s", plan);
        evt_launch_destroy(l);
    }
    teardown(ctx, &p);
    char path[512];
    evt_tuning_db_path(path, sizeof path);
    remove(path);
    evt_module_destroy(mod);
    evt_ctx_destroy(ctx);
    printf("tune: %s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
