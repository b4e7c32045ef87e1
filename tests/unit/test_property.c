/* test_property.c - the optimizer keeps every output bit-identical, on random epilogues.
 *
 * A generator writes random .evt programs: DAGs over every builtin, operator
 * and ?: with comparisons, inputs of every shape and element type, params
 * with and without defaults, lets used several times, several outputs,
 * reductions of every kind and axis, and templates that the simplifier's
 * rules match (x * 1, relu(relu(x)), -(-x), x / 8, ...).  Each program is
 * parsed through the public API (so this also fuzzes the front end) at -O0,
 * -O1 and -O2, and for each:
 *  - optimizing succeeds and the IR verifies;
 *  - the launch interface (inputs, params, outputs) is unchanged;
 *  - the IR never gains computed values (constants may be traded: x / 8 ->
 *    x * 0.125), and -O2 is a fixed point (a second -O2 changes nothing);
 *  - the outputs are bit-identical to -O0's under the f32 reference
 *    interpreter (which computes as the GPU does, through kernels/common/evt_math.h),
 *    on random problem sizes and inputs full of NaN with payloads, ±inf,
 *    -0.0, subnormals and huge values, and on random params.
 *
 * On a GPU, a second test runs the kernels generated at -O0 and -O2 on the
 * same data and compares what they store, byte for byte (problems of one
 * thread block, so that reduce_sum's atomics add in one order).
 *
 * EVT_PROPERTY_SEED (default 1) and EVT_PROPERTY_COUNT (default 10000) choose
 * the programs, EVT_PROPERTY_GPU_COUNT (default 8) how many of them run on
 * the GPU; program i uses seed + i, so a failure prints the one-program
 * reproduction and the program's source. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ir/ir.h"
#include "tests/support/progen.h"

#include <evt/evt.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

/* The program generator and the random data: tests/support/progen.c, shared
 * with the fuzzers. */

/* ---- the checks --------------------------------------------------------- */

typedef struct run {
    uint64_t seed;
    const pg_gen *g;
    evt_ctx *ctx;
} run;

static void fail_with_program(const run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "property failure: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nreproduce with EVT_PROPERTY_SEED=%llu EVT_PROPERTY_COUNT=1; the program:\n%.*s",
            (unsigned long long)r->seed, (int)r->g->len, r->g->src);
    fail();
}

static evt_module *parse(const run *r)
{
    evt_module *m = NULL;
    evt_status st = evt_module_parse_buffer(r->ctx, "gen.evt", r->g->src, r->g->len, &m);
    if (st != EVT_OK) {
        const char *diags = m ? evt_module_diag_text(m, EVT_DIAG_TEXT) : "";
        fail_with_program(r, "the generated program does not parse: %s\n%s",
                          evt_ctx_last_error(r->ctx), diags);
    }
    return m;
}

static evt_module *parse_optimized(const run *r, int level)
{
    evt_module *m = parse(r);
    evt_status st = evt_module_optimize(m, level);
    if (st != EVT_OK)
        fail_with_program(r, "-O%d failed: %s", level, evt_ctx_last_error(r->ctx));
    for (size_t i = 0; i < evt_module_epilogue_count(m); i++) {
        const ir_func *fn = evt_module_epilogue(m, i);
        strbuf why;
        sb_init(&why);
        if (!ir_verify(fn, &why))
            fail_with_program(r, "-O%d IR does not verify: %s", level, sb_str(&why));
        sb_free(&why);
    }
    return m;
}

static int same_arg(const evt_arg_info *a, const evt_arg_info *b)
{
    return strcmp(a->name, b->name) == 0 && a->kind == b->kind && a->elem == b->elem &&
           a->shape == b->shape && a->reduce == b->reduce && a->has_default == b->has_default &&
           memcmp(&a->default_value, &b->default_value, sizeof(float)) == 0;
}

static void check_interface(const run *r, const evt_epilogue *e0, const evt_epilogue *e, int level)
{
    for (int kind = EVT_ARG_INPUT; kind <= EVT_ARG_OUTPUT; kind++) {
        size_t n = evt_epilogue_arg_count(e0, (evt_arg_kind)kind);
        if (evt_epilogue_arg_count(e, (evt_arg_kind)kind) != n)
            fail_with_program(r, "-O%d changed the number of arguments of kind %d", level, kind);
        for (size_t i = 0; i < n; i++)
            if (!same_arg(evt_epilogue_arg(e0, (evt_arg_kind)kind, i),
                          evt_epilogue_arg(e, (evt_arg_kind)kind, i)))
                fail_with_program(r, "-O%d changed argument %zu of kind %d", level, i, kind);
    }
}

/* Values that are not constants: what the GPU computes or loads. */
static size_t computed_values(const ir_func *fn)
{
    size_t n = 0;
    for (size_t i = 0; i < fn->nvalues; i++)
        n += fn->values[i]->op != IR_CONST;
    return n;
}

enum { MAX_ARGS = 64 };

/* A problem size and the data of every input, param and output: the same
 * for every optimization level of one program. */
typedef struct problem {
    long long m, n, ld;
    float *acc;
    void *in[MAX_ARGS];
    size_t in_bytes[MAX_ARGS];
    int param_set[MAX_ARGS];
    float param[MAX_ARGS];
    size_t out_bytes[MAX_ARGS];
} problem;

static size_t extent(const problem *p, evt_shape shape)
{
    switch (shape) {
    case EVT_SHAPE_MN: return (size_t)(p->m * p->ld);
    case EVT_SHAPE_M: return (size_t)p->m;
    case EVT_SHAPE_N: return (size_t)p->n;
    default: return 1;
    }
}

/* A random problem of at most max_mn rows and columns for epilogue e. */
static void make_problem(problem *p, const evt_epilogue *e, uint64_t seed, unsigned max_mn)
{
    pg_rng r = {.s = seed ^ 0xda7a5eedu};
    memset(p, 0, sizeof *p);
    p->m = 1 + pg_below(&r, max_mn);
    p->n = 1 + pg_below(&r, max_mn);
    p->ld = p->n + pg_below(&r, 9);
    p->acc = malloc((size_t)(p->m * p->ld) * sizeof(float));
    assert_non_null(p->acc);
    pg_fill(&r, EVT_F32, p->acc, (size_t)(p->m * p->ld));
    for (size_t i = 0; i < evt_epilogue_arg_count(e, EVT_ARG_INPUT); i++) {
        const evt_arg_info *a = evt_epilogue_arg(e, EVT_ARG_INPUT, i);
        size_t n = extent(p, a->shape);
        p->in_bytes[i] = n * evt_elem_size(a->elem);
        p->in[i] = malloc(p->in_bytes[i]);
        assert_non_null(p->in[i]);
        pg_fill(&r, a->elem, p->in[i], n);
    }
    for (size_t i = 0; i < evt_epilogue_arg_count(e, EVT_ARG_PARAM); i++) {
        p->param_set[i] = !evt_epilogue_arg(e, EVT_ARG_PARAM, i)->has_default || pg_chance(&r, 50);
        p->param[i] = pg_f32(&r);
    }
    for (size_t i = 0; i < evt_epilogue_arg_count(e, EVT_ARG_OUTPUT); i++) {
        const evt_arg_info *a = evt_epilogue_arg(e, EVT_ARG_OUTPUT, i);
        p->out_bytes[i] = extent(p, a->shape) * evt_elem_size(a->elem);
    }
}

static void free_problem(problem *p)
{
    free(p->acc);
    for (int i = 0; i < MAX_ARGS; i++)
        free(p->in[i]);
}

/* Runs epilogue 0 of m on p in f32 mode; out[i] receives output i's bytes
 * (padding between rows left as 0xa5, the same at every level). */
static void interpret(const run *r, evt_module *m, const problem *p, unsigned char **out)
{
    const evt_epilogue *e = evt_module_epilogue(m, 0);
    evt_interp *in = NULL;
    assert_int_equal(evt_interp_create(e, &in), EVT_OK);
    evt_status st = evt_interp_set_acc(in, p->m, p->n, p->acc,
                                       (size_t)(p->m * p->ld) * sizeof *p->acc, p->ld);
    for (size_t i = 0; st == EVT_OK && i < evt_epilogue_arg_count(e, EVT_ARG_INPUT); i++)
        st = evt_interp_bind(in, evt_epilogue_arg(e, EVT_ARG_INPUT, i)->name, p->in[i],
                             p->in_bytes[i], p->ld);
    for (size_t i = 0; st == EVT_OK && i < evt_epilogue_arg_count(e, EVT_ARG_PARAM); i++)
        if (p->param_set[i])
            st = evt_interp_set_param(in, evt_epilogue_arg(e, EVT_ARG_PARAM, i)->name,
                                      p->param[i]);
    for (size_t i = 0; st == EVT_OK && i < evt_epilogue_arg_count(e, EVT_ARG_OUTPUT); i++) {
        out[i] = malloc(p->out_bytes[i] + 1);
        assert_non_null(out[i]);
        memset(out[i], 0xa5, p->out_bytes[i] + 1);
        st = evt_interp_bind(in, evt_epilogue_arg(e, EVT_ARG_OUTPUT, i)->name, out[i],
                             p->out_bytes[i], p->ld);
    }
    if (st == EVT_OK)
        st = evt_interp_run(in, EVT_INTERP_F32);
    if (st != EVT_OK)
        fail_with_program(r, "the interpreter failed: %s", evt_interp_last_error(in));
    evt_interp_destroy(in);
}

/* Output i at levels 0 and `level` hold the same bytes, or the failure names
 * the first element that differs. */
static void compare_outputs(const run *r, const evt_epilogue *e, const problem *p, int level,
                            unsigned char *const *want, unsigned char *const *got)
{
    for (size_t i = 0; i < evt_epilogue_arg_count(e, EVT_ARG_OUTPUT); i++) {
        if (memcmp(want[i], got[i], p->out_bytes[i]) == 0)
            continue;
        const evt_arg_info *a = evt_epilogue_arg(e, EVT_ARG_OUTPUT, i);
        size_t size = evt_elem_size(a->elem), k = 0;
        while (memcmp(want[i] + k * size, got[i] + k * size, size) == 0)
            k++;
        uint32_t w = 0, g = 0;
        memcpy(&w, want[i] + k * size, size);
        memcpy(&g, got[i] + k * size, size);
        fail_with_program(r,
                          "output '%s' (%s) differs at -O%d: element %zu is 0x%x at -O0, 0x%x "
                          "at -O%d (M = %lld, N = %lld, ld = %lld)",
                          a->name, evt_elem_name(a->elem), level, k, w, g, level, p->m, p->n,
                          p->ld);
    }
}

typedef struct totals {
    size_t programs, values[3], outputs;
} totals;

static void check_program(const run *r, totals *t)
{
    evt_module *m[3];
    m[0] = parse(r);
    for (int level = 1; level <= 2; level++)
        m[level] = parse_optimized(r, level);
    for (size_t i = 0; i < evt_module_epilogue_count(m[0]); i++) {
        const ir_func *f0 = evt_module_epilogue(m[0], i);
        for (int level = 1; level <= 2; level++) {
            const ir_func *f = evt_module_epilogue(m[level], i);
            check_interface(r, f0, f, level);
            if (computed_values(f) > computed_values(f0))
                fail_with_program(r, "-O%d grew the IR from %zu to %zu computed values", level,
                                  computed_values(f0), computed_values(f));
        }
        t->values[0] += f0->nvalues;
        t->values[1] += evt_module_epilogue(m[1], i)->nvalues;
        t->values[2] += evt_module_epilogue(m[2], i)->nvalues;
    }
    /* The same outputs at every level, under the interpreter. */
    problem p;
    make_problem(&p, evt_module_epilogue(m[0], 0), r->seed, 5);
    unsigned char *out[3][MAX_ARGS] = {{0}};
    for (int level = 0; level <= 2; level++)
        interpret(r, m[level], &p, out[level]);
    for (int level = 1; level <= 2; level++)
        compare_outputs(r, evt_module_epilogue(m[0], 0), &p, level, out[0], out[level]);
    t->outputs += evt_epilogue_arg_count(evt_module_epilogue(m[0], 0), EVT_ARG_OUTPUT);
    for (int level = 0; level <= 2; level++)
        for (int i = 0; i < MAX_ARGS; i++)
            free(out[level][i]);
    free_problem(&p);

    /* -O2 is a fixed point: optimizing its result again changes nothing. */
    size_t len = strlen(evt_module_ir_text(m[2]));
    char *before = malloc(len + 1);
    assert_non_null(before);
    memcpy(before, evt_module_ir_text(m[2]), len + 1);
    if (evt_module_optimize(m[2], 2) != EVT_OK || strcmp(before, evt_module_ir_text(m[2])) != 0)
        fail_with_program(r, "a second -O2 changed the IR:\n%s\nbecame\n%s", before,
                          evt_module_ir_text(m[2]));
    free(before);
    for (int level = 0; level <= 2; level++)
        evt_module_destroy(m[level]);
    t->programs++;
}

static uint64_t env_u64(const char *name, uint64_t fallback)
{
    const char *s = getenv(name);
    return s && *s ? strtoull(s, NULL, 0) : fallback;
}

static void test_random_programs(void **state)
{
    (void)state;
    uint64_t seed = env_u64("EVT_PROPERTY_SEED", 1);
    uint64_t count = env_u64("EVT_PROPERTY_COUNT", 10000);
    printf("EVT_PROPERTY_SEED=%llu EVT_PROPERTY_COUNT=%llu\n", (unsigned long long)seed,
           (unsigned long long)count);
    evt_ctx *ctx = evt_ctx_create();
    assert_non_null(ctx);
    static pg_gen g;
    totals t = {0};
    clock_t start = clock();
    for (uint64_t i = 0; i < count; i++) {
        run r = {seed + i, &g, ctx};
        pg_program(&g, r.seed);
        assert_false(g.overflow);
        check_program(&r, &t);
    }
    printf("%zu programs (%zu outputs) in %.2f s; IR values -O0 %zu, -O1 %zu, -O2 %zu\n",
           t.programs, t.outputs, (double)(clock() - start) / CLOCKS_PER_SEC, t.values[0],
           t.values[1], t.values[2]);
    evt_ctx_destroy(ctx);
}

/* ---- on the GPU ------------------------------------------------------------ */

typedef struct gpu {
    evt_ctx *ctx;
    const run *r;
} gpu;

static void *device_copy(gpu *d, const void *host, size_t bytes)
{
    void *ptr = NULL;
    if (evt_device_alloc(d->ctx, bytes ? bytes : 1, &ptr) != EVT_OK ||
        (bytes && evt_device_copy_to(d->ctx, ptr, host, bytes) != EVT_OK))
        fail_with_program(d->r, "device memory: %s", evt_ctx_last_error(d->ctx));
    return ptr;
}

/* Launches kernel 0 of m on p (inputs already on the device in in_dev, A and
 * B in a_dev, b_dev) and copies every output back into out[i]. */
static void launch(gpu *d, evt_module *m, const problem *p, long long k, void *a_dev,
                   void *b_dev, void *const *in_dev, unsigned char **out)
{
    const evt_epilogue *e = evt_module_epilogue(m, 0);
    size_t nout = evt_epilogue_arg_count(e, EVT_ARG_OUTPUT);
    void *out_dev[MAX_ARGS] = {0};
    evt_launch *l = NULL;
    evt_status st = evt_launch_create(m, evt_module_kernel(m, 0), &l);
    if (st == EVT_OK)
        st = evt_launch_set_gemm(l, p->m, p->n, k, a_dev, k, (size_t)(p->m * k) * 2, b_dev, k,
                                 (size_t)(p->n * k) * 2);
    for (size_t i = 0; st == EVT_OK && i < evt_epilogue_arg_count(e, EVT_ARG_INPUT); i++)
        st = evt_launch_bind(l, evt_epilogue_arg(e, EVT_ARG_INPUT, i)->name, in_dev[i],
                             p->in_bytes[i], p->ld);
    for (size_t i = 0; st == EVT_OK && i < evt_epilogue_arg_count(e, EVT_ARG_PARAM); i++)
        if (p->param_set[i])
            st = evt_launch_set_param(l, evt_epilogue_arg(e, EVT_ARG_PARAM, i)->name,
                                      p->param[i]);
    for (size_t i = 0; i < nout; i++) {
        out[i] = malloc(p->out_bytes[i] + 1);
        assert_non_null(out[i]);
        memset(out[i], 0xa5, p->out_bytes[i] + 1);
        out_dev[i] = device_copy(d, out[i], p->out_bytes[i]);
        if (st == EVT_OK)
            st = evt_launch_bind(l, evt_epilogue_arg(e, EVT_ARG_OUTPUT, i)->name, out_dev[i],
                                 p->out_bytes[i], p->ld);
    }
    if (st == EVT_OK)
        st = evt_launch_run(l, NULL);
    if (st == EVT_OK)
        st = evt_device_synchronize(d->ctx);
    for (size_t i = 0; st == EVT_OK && i < nout; i++)
        st = evt_device_copy_from(d->ctx, out[i], out_dev[i], p->out_bytes[i]);
    if (st != EVT_OK)
        fail_with_program(d->r, "the GPU run failed (M = %lld, N = %lld, K = %lld): %s\n%s",
                          p->m, p->n, k, evt_ctx_last_error(d->ctx),
                          evt_module_diag_text(m, EVT_DIAG_TEXT));
    for (size_t i = 0; i < nout; i++)
        evt_device_free(d->ctx, out_dev[i]);
    evt_launch_destroy(l);
}

static void check_program_on_gpu(gpu *d)
{
    const run *r = d->r;
    evt_module *m[3] = {parse(r), NULL, parse_optimized(r, 2)};
    const evt_epilogue *e = evt_module_epilogue(m[0], 0);
    problem p;
    make_problem(&p, e, r->seed, 64); /* one 64x64 tile: one block */
    pg_rng rr = {.s = r->seed ^ 0x6e6d6d};
    long long k = 8 * (1 + pg_below(&rr, 8));
    size_t na = (size_t)(p.m * k), nb = (size_t)(p.n * k);
    float *ab = malloc((na + nb) * sizeof *ab);
    unsigned short *ab16 = malloc((na + nb) * sizeof *ab16);
    assert_true(ab && ab16);
    for (size_t i = 0; i < na + nb; i++) /* small values, an infinity now and then */
        ab[i] = pg_chance(&rr, 1) ? INFINITY : ((float)pg_below(&rr, 33) - 16.0f) / 8.0f;
    assert_int_equal(evt_convert_from_f32(EVT_F16, ab, ab16, na + nb), EVT_OK);
    void *a_dev = device_copy(d, ab16, na * 2), *b_dev = device_copy(d, ab16 + na, nb * 2);
    void *in_dev[MAX_ARGS] = {0};
    for (size_t i = 0; i < evt_epilogue_arg_count(e, EVT_ARG_INPUT); i++)
        in_dev[i] = device_copy(d, p.in[i], p.in_bytes[i]);
    unsigned char *out[3][MAX_ARGS] = {{0}};
    launch(d, m[0], &p, k, a_dev, b_dev, in_dev, out[0]);
    launch(d, m[2], &p, k, a_dev, b_dev, in_dev, out[2]);
    compare_outputs(r, e, &p, 2, out[0], out[2]);
    for (size_t i = 0; i < MAX_ARGS; i++) {
        free(out[0][i]);
        free(out[2][i]);
        evt_device_free(d->ctx, in_dev[i]);
    }
    evt_device_free(d->ctx, a_dev);
    evt_device_free(d->ctx, b_dev);
    free(ab);
    free(ab16);
    free_problem(&p);
    evt_module_destroy(m[0]);
    evt_module_destroy(m[2]);
}

static void test_random_programs_on_gpu(void **state)
{
    (void)state;
    uint64_t seed = env_u64("EVT_PROPERTY_SEED", 1);
    uint64_t count = env_u64("EVT_PROPERTY_GPU_COUNT", 8);
    evt_ctx *ctx = evt_ctx_create();
    assert_non_null(ctx);
    evt_target target;
    char name[128];
    if (count == 0 || evt_device_target(ctx, &target, name, sizeof name) != EVT_OK) {
        evt_ctx_destroy(ctx);
        skip();
    }
    printf("EVT_PROPERTY_SEED=%llu EVT_PROPERTY_GPU_COUNT=%llu on %s\n",
           (unsigned long long)seed, (unsigned long long)count, name);
    static pg_gen g;
    clock_t start = clock();
    for (uint64_t i = 0; i < count; i++) {
        run r = {seed + i, &g, ctx};
        gpu d = {ctx, &r};
        pg_program(&g, r.seed);
        assert_false(g.overflow);
        check_program_on_gpu(&d);
    }
    printf("%llu programs on the GPU in %.2f s of CPU time\n", (unsigned long long)count,
           (double)(clock() - start) / CLOCKS_PER_SEC);
    evt_ctx_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_programs),
        cmocka_unit_test(test_random_programs_on_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
