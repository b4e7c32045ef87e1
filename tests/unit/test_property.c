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

#include <evt/evt.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

/* ---- random numbers: splitmix64 ------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next_u64(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static unsigned below(rng *r, unsigned n)
{
    return (unsigned)(next_u64(r) % n);
}

static int chance(rng *r, unsigned percent)
{
    return below(r, 100) < percent;
}

/* ---- the program generator ------------------------------------------ */

enum { MAX_NAMES = 48, MAX_SRC = 1 << 16 };

typedef struct gen {
    rng r;
    char src[MAX_SRC];
    size_t len;
    char names[MAX_NAMES][16]; /* names usable in expressions */
    int nnames;
} gen;

static void put(gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(g->src + g->len, sizeof g->src - g->len, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof g->src - g->len);
    g->len += (size_t)n;
}

static void add_name(gen *g, const char *name)
{
    if (g->nnames < MAX_NAMES)
        snprintf(g->names[g->nnames++], sizeof g->names[0], "%s", name);
}

static const char *const elems[] = {"f32", "f16", "bf16", "i8", "i32", "e4m3", "e5m2"};
static const char *const shapes[] = {"[M, N]", "[M]", "[N]", ""};

/* Constants that sit on the edges of f32 and of the rules: zeros, ones,
 * powers of two, subnormals, huge values; NaN and ±inf come from 0/0, 1/0. */
static const char *const constants[] = {
    "0", "1", "2", "0.5", "0.25", "3", "4", "6", "8", "0.1", "1.5", "1e-40", "1.4e-45",
    "1e-38", "3e38", "1e30", "65504", "0.044715", "1024", "1e-20", "(0/0)", "(1/0)", "(-1/0)",
    "(-0)", "(-1)"};

/* Templates the simplifier (and its refusals) match; %1 is one subexpression. */
static const char *const templates[] = {
    "(%1 * 1)",        "(1 * %1)",           "(%1 / 1)",          "(%1 + -0)",
    "(-0 + %1)",       "(%1 - 0)",           "(%1 + 0)",          "(%1 - -0)",
    "(%1 * 0)",        "(%1 - %1)",          "(%1 * -1)",         "(%1 / -1)",
    "-(-%1)",          "relu(relu(%1))",     "abs(abs(%1))",      "abs(-%1)",
    "abs(relu(%1))",   "relu(abs(%1))",      "max(%1, 0)",        "max(0, %1)",
    "min(%1, 0)",      "max(%1, -0)",        "min(%1, %1)",       "max(%1, %1)",
    "(%1 / 8)",        "(%1 / 0.5)",         "(%1 / 3)",          "(%1 / 1e-40)",
    "(%1 / 2e38)",     "(%1 > 0 ? %1 : %1)", "(%1 < %1 ? 1 : 2)", "clamp(%1, 0, 6)",
    "clamp(%1, -inf_, inf_)", "clamp(%1, 1, 0)", "min(max(%1, 0), 6)", "relu(-(-%1))",
    "(%1 + %1)",       "(2 * %1)",           "(%1 * 0.5 + %1 * 0.5)",
};

static void gen_expr(gen *g, int depth);

/* A template with every %1 the same subexpression text. */
static void gen_template(gen *g, int depth)
{
    const char *t = templates[below(&g->r, sizeof templates / sizeof templates[0])];
    size_t start = g->len;
    gen_expr(g, depth - 1);
    char sub[2048];
    size_t n = g->len - start;
    if (n >= sizeof sub) /* too long to repeat: keep it as it is */
        return;
    memcpy(sub, g->src + start, n);
    sub[n] = '\0';
    g->len = start;
    for (const char *p = t; *p; p++) {
        if (p[0] == '%' && p[1] == '1') {
            put(g, "%s", sub);
            p++;
        } else if (strncmp(p, "inf_", 4) == 0) {
            put(g, "(1/0)");
            p += 3;
        } else {
            put(g, "%c", *p);
        }
    }
}

static void gen_leaf(gen *g)
{
    if (g->nnames && chance(&g->r, 75))
        put(g, "%s", g->names[below(&g->r, (unsigned)g->nnames)]);
    else
        put(g, "%s", constants[below(&g->r, sizeof constants / sizeof constants[0])]);
}

static void gen_expr(gen *g, int depth)
{
    static const char *const binops[] = {"+", "-", "*", "/"};
    static const char *const cmps[] = {"<", "<=", ">", ">=", "==", "!="};
    if (depth <= 0 || chance(&g->r, 25)) {
        gen_leaf(g);
        return;
    }
    unsigned k = below(&g->r, 100);
    if (k < 30) {
        put(g, "(");
        gen_expr(g, depth - 1);
        put(g, " %s ", binops[below(&g->r, 4)]);
        gen_expr(g, depth - 1);
        put(g, ")");
    } else if (k < 35) {
        put(g, "-");
        gen_expr(g, depth - 1);
    } else if (k < 65) {
        /* A builtin, found in the op table so that new ones are covered too. */
        int ops[IR_OP_COUNT], nops = 0;
        for (int op = 0; op < IR_OP_COUNT; op++) {
            unsigned f = ir_op_get((ir_op)op)->flags;
            if ((f & IR_BUILTIN) && !(f & IR_REDUCE))
                ops[nops++] = op;
        }
        const ir_op_info *info = ir_op_get((ir_op)ops[below(&g->r, (unsigned)nops)]);
        put(g, "%s(", info->name);
        for (int i = 0; i < info->arity; i++) {
            if (i)
                put(g, ", ");
            gen_expr(g, depth - 1);
        }
        put(g, ")");
    } else if (k < 80) {
        put(g, "(");
        gen_expr(g, depth - 1);
        put(g, " %s ", cmps[below(&g->r, 6)]);
        gen_expr(g, depth - 1);
        put(g, " ? ");
        gen_expr(g, depth - 1);
        put(g, " : ");
        gen_expr(g, depth - 1);
        put(g, ")");
    } else {
        gen_template(g, depth);
    }
}

/* One random epilogue `g` and a kernel using it. */
static void gen_program(gen *g, uint64_t seed)
{
    g->r.s = seed;
    g->len = 0;
    g->nnames = 0;
    add_name(g, "acc");
    put(g, "epilogue g {\n");
    int ninputs = (int)below(&g->r, 5), nparams = (int)below(&g->r, 3);
    for (int i = 0; i < ninputs; i++) {
        char name[16];
        snprintf(name, sizeof name, "i%d", i);
        put(g, "    in %s : %s%s\n", name, elems[below(&g->r, 7)], shapes[below(&g->r, 4)]);
        add_name(g, name);
    }
    for (int i = 0; i < nparams; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        put(g, "    param %s : f32", name);
        if (chance(&g->r, 60))
            put(g, " = %s%s", chance(&g->r, 30) ? "-" : "",
                (const char *[]){"0", "1", "0.5", "3", "1e-40", "2e38"}[below(&g->r, 6)]);
        put(g, "\n");
        add_name(g, name);
    }
    int nstmts = 1 + (int)below(&g->r, 8), nouts = 0;
    for (int i = 0; i < nstmts || nouts == 0; i++) {
        char name[16];
        unsigned k = below(&g->r, 100);
        int depth = 1 + (int)below(&g->r, 4);
        if (k < 50 && i < nstmts) {
            snprintf(name, sizeof name, "l%d", i);
            put(g, "    let %s = ", name);
            gen_expr(g, depth);
            put(g, "\n");
            add_name(g, name);
        } else if (k < 80 || i >= nstmts) {
            snprintf(name, sizeof name, "o%d", i);
            put(g, "    out %s : %s[M, N] = ", name, elems[below(&g->r, 7)]);
            gen_expr(g, depth);
            put(g, "\n");
            add_name(g, name); /* later uses see the value before conversion */
            nouts++;
        } else {
            static const char *const kinds[] = {"reduce_sum", "reduce_max", "reduce_min"};
            static const char *const axes[] = {", N", ", M", ""};
            static const char *const reduced[] = {"[M]", "[N]", ""};
            unsigned axis = below(&g->r, 3);
            put(g, "    out r%d : %s%s = %s(", i, chance(&g->r, 70) ? "f32" : elems[below(&g->r, 7)],
                reduced[axis], kinds[below(&g->r, 3)]);
            gen_expr(g, depth);
            put(g, "%s)\n", axes[axis]);
            nouts++;
        }
    }
    put(g, "}\nkernel k = gemm(a: f16 row, b: f16 col, acc: f32) with g\n");
}

/* ---- random data ------------------------------------------------------------ */

/* f32 values on the edges: zeros, infinities, NaNs of both signs with
 * payloads, subnormals, the largest and smallest normals, values near the
 * builtins' thresholds; otherwise random bits or small numbers. */
static float random_f32(rng *r)
{
    static const uint32_t special[] = {
        0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001,
        0xff812345, 0x7fffffff, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000,
        0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x40400000, 0xc0400000, 0x42b20000,
        0xc2d00000, 0x41a00000, 0xc1a00000, 0x3f000000, 0x4b000000};
    unsigned k = below(r, 100);
    uint32_t bits;
    if (k < 35)
        bits = special[below(r, sizeof special / sizeof special[0])];
    else if (k < 60)
        bits = (uint32_t)next_u64(r);
    else {
        float f = ((float)below(r, 2001) - 1000.0f) / 64.0f;
        memcpy(&bits, &f, sizeof bits);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* n random elements of type elem: f32 from random_f32, the other types as
 * raw bits (every NaN, infinity and subnormal encoding among them). */
static void random_fill(rng *r, evt_elem elem, void *dst, size_t n)
{
    if (elem == EVT_F32) {
        for (size_t i = 0; i < n; i++)
            ((float *)dst)[i] = random_f32(r);
        return;
    }
    unsigned char *p = dst;
    for (size_t i = 0; i < n * evt_elem_size(elem); i++)
        p[i] = (unsigned char)next_u64(r);
}

/* ---- the checks --------------------------------------------------------- */

typedef struct run {
    uint64_t seed;
    const gen *g;
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
    rng r = {seed ^ 0xda7a5eedu};
    memset(p, 0, sizeof *p);
    p->m = 1 + below(&r, max_mn);
    p->n = 1 + below(&r, max_mn);
    p->ld = p->n + below(&r, 9);
    p->acc = malloc((size_t)(p->m * p->ld) * sizeof(float));
    assert_non_null(p->acc);
    random_fill(&r, EVT_F32, p->acc, (size_t)(p->m * p->ld));
    for (size_t i = 0; i < evt_epilogue_arg_count(e, EVT_ARG_INPUT); i++) {
        const evt_arg_info *a = evt_epilogue_arg(e, EVT_ARG_INPUT, i);
        size_t n = extent(p, a->shape);
        p->in_bytes[i] = n * evt_elem_size(a->elem);
        p->in[i] = malloc(p->in_bytes[i]);
        assert_non_null(p->in[i]);
        random_fill(&r, a->elem, p->in[i], n);
    }
    for (size_t i = 0; i < evt_epilogue_arg_count(e, EVT_ARG_PARAM); i++) {
        p->param_set[i] = !evt_epilogue_arg(e, EVT_ARG_PARAM, i)->has_default || chance(&r, 50);
        p->param[i] = random_f32(&r);
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
    evt_status st = evt_interp_set_acc(in, p->m, p->n, p->acc, p->ld);
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
    static gen g;
    totals t = {0};
    clock_t start = clock();
    for (uint64_t i = 0; i < count; i++) {
        run r = {seed + i, &g, ctx};
        gen_program(&g, r.seed);
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
    rng rr = {r->seed ^ 0x6e6d6d};
    long long k = 8 * (1 + below(&rr, 8));
    size_t na = (size_t)(p.m * k), nb = (size_t)(p.n * k);
    float *ab = malloc((na + nb) * sizeof *ab);
    unsigned short *ab16 = malloc((na + nb) * sizeof *ab16);
    assert_true(ab && ab16);
    for (size_t i = 0; i < na + nb; i++) /* small values, an infinity now and then */
        ab[i] = chance(&rr, 1) ? INFINITY : ((float)below(&rr, 33) - 16.0f) / 8.0f;
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
    static gen g;
    clock_t start = clock();
    for (uint64_t i = 0; i < count; i++) {
        run r = {seed + i, &g, ctx};
        gpu d = {ctx, &r};
        gen_program(&g, r.seed);
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
