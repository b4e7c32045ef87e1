/* fuzz_pipeline.c - libFuzzer target for the whole CPU pipeline: parse
 * twice, optimize one module at -O0 and the other at -O2 (a fixed point: a
 * second -O2 changes nothing), emit CUDA for every target (the full listing;
 * on one target, every configuration's admission and one admitted
 * configuration forced), then run the f32 interpreter on both modules over a
 * random problem and data and compare every output byte for byte (and the
 * f64 interpreter, which must only run).  A mismatch, a refusal without a
 * reason, a failed optimization or a generated program that does not parse
 * prints the program and aborts, so that libFuzzer keeps the input;
 * ASan and UBSan catch the rest.
 *
 * Structure-aware: an input whose first byte is below 8 is not .evt text
 * but the choices of the program generator (tests/support/progen.c):
 *
 *   byte 0      the kernel line (kernels[] below: mainloop, operand types)
 *   bytes 1-8   a seed, little-endian (missing bytes are 0)
 *   bytes 9-    the generator's choices, one byte or few each; then the
 *               problem sizes and the data; when they run out both go on
 *               from splitmix at the seed
 *
 * so libFuzzer's byte mutations change the program's structure, and every
 * generated program is valid.  Any other input is taken as .evt text as it
 * is, so the byte-level corpus (tests/golden, examples) gets through the
 * whole pipeline too, and invalid text only must not crash.
 *
 * Built without libFuzzer (standalone.c), the same function replays files
 * and runs input `fuzz_seed_input(i)` for seeds i: ctest's fuzz_pipeline.corpus. */
#include "tests/support/progen.h"

#include <evt/evt.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t fuzz_seed_input(uint64_t seed, uint8_t *buf, size_t cap);

enum { GEN_MODES = 8, HEADER = 9, MAX_KERNELS = 4, MAX_EPILOGUES = 4 };

/* The kernel lines of generated programs: both mainloops, both 16-bit
 * operand types, every gemm layout (on sm_90a the wgmma configurations
 * take them all, transposing a column-major A or a row-major B), acc
 * implied or given, and two kernels over one epilogue. */
static const char *const kernels[GEN_MODES] = {
    "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with g\n",
    "kernel k = gemm(a: bf16 row, b: bf16 col) with g\n",
    "kernel k = gemm(a: f16 col, b: f16 row, acc: f32) with g\n",
    "kernel k = gemm(a: bf16 row, b: bf16 row) with g\n",
    "kernel k = gemm(a: f16 col, b: f16 col) with g\n",
    "kernel k = conv2d_fprop(x: f16, w: f16, acc: f32) with g\n",
    "kernel k = conv2d_fprop(x: bf16, w: bf16) with g\n",
    ("kernel k = gemm(a: f16 row, b: f16 col) with g\n"
     "kernel c = conv2d_fprop(x: bf16, w: bf16, acc: f32) with g\n"),
};

static pg_gen gen; /* 64 KiB: not on the stack */

/* One input's program and what it was made from, for the failure report. */
typedef struct input {
    const char *src;
    size_t len;
    int generated;
    pg_rng data; /* problem sizes and values */
} input;

__attribute__((noreturn, format(printf, 2, 3))) static void fail(const input *in, const char *fmt,
                                                                  ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_pipeline: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nthe %s program:\n%.*s\n", in->generated ? "generated" : "input", (int)in->len,
            in->src);
    abort();
}

/* Parses the program; NULL (having checked the API's contract) when the
 * source is invalid or memory ran out. */
static evt_module *parse(evt_ctx *ctx, const input *in)
{
    evt_module *m = NULL;
    evt_status st = evt_module_parse_buffer(ctx, "fuzz.evt", in->src, in->len, &m);
    if ((st == EVT_OK || st == EVT_ERR_SOURCE) != (m != NULL))
        fail(in, "evt_module_parse_buffer returned %s with %s module", evt_status_string(st),
             m ? "a" : "no");
    if (st == EVT_ERR_SOURCE && in->generated)
        fail(in, "the generated program does not parse:\n%s", evt_module_diag_text(m, EVT_DIAG_TEXT));
    if (st != EVT_OK) {
        if (m && strlen(evt_module_diag_text(m, EVT_DIAG_TEXT)) == 0)
            fail(in, "invalid source without a diagnostic");
        evt_module_destroy(m);
        return NULL;
    }
    return m;
}

/* evt_kernel_cuda under the context's tuning now: text, or a refusal with a
 * reason (only for text input: a generated kernel is small enough for every
 * listing and admitted configuration). */
static void emit(evt_ctx *ctx, evt_module *m, const evt_kernel *k, evt_target t, const input *in,
                 const char *what)
{
    const char *text = NULL;
    evt_status st = evt_kernel_cuda(m, k, t, &text);
    if (st == EVT_OK) {
        if (!text || !*text)
            fail(in, "%s: kernel '%s' for %s: no CUDA", what, evt_kernel_name(k), evt_target_name(t));
    } else if (st == EVT_ERR_UNSUPPORTED) {
        if (in->generated || !*evt_ctx_last_error(ctx))
            fail(in, "%s: kernel '%s' refused for %s: %s", what, evt_kernel_name(k),
                 evt_target_name(t), evt_ctx_last_error(ctx));
    } else if (st != EVT_ERR_NO_MEMORY) {
        fail(in, "%s: kernel '%s' for %s: %s: %s", what, evt_kernel_name(k), evt_target_name(t),
             evt_status_string(st), evt_ctx_last_error(ctx));
    }
}

/* Every kernel for every target: the full listing; then on one target
 * drawn from the input, every configuration's admission (the planner's
 * refusals, each with its reason) and one admitted configuration, forced
 * with a drawn split-K, row group and fast math (what a launch emits).  The listings
 * go first: the targets share a kernel's target-independent text, which
 * the module keeps between emissions while the row group stays. */
static void emit_all(evt_ctx *ctx, evt_module *m, input *in)
{
    static const int groups[] = {0, 1, 2, 4, 8, 16};
    for (size_t i = 0; i < evt_module_kernel_count(m) && i < MAX_KERNELS; i++) {
        const evt_kernel *k = evt_module_kernel(m, i);
        for (int t = 0; t < EVT_TARGET_COUNT; t++)
            emit(ctx, m, k, (evt_target)t, in, "full listing");
        const evt_target t = (evt_target)pg_below(&in->data, EVT_TARGET_COUNT);
        int admitted[64], n = 0;
        for (int c = 0; c < evt_config_count() && n < 64; c++) {
            evt_status st = evt_kernel_config_check(m, k, t, evt_config_name(c));
            if (st == EVT_OK)
                admitted[n++] = c;
            else if (st != EVT_ERR_UNSUPPORTED || !*evt_ctx_last_error(ctx))
                fail(in, "evt_kernel_config_check(%s, %s): %s without a reason", evt_config_name(c),
                     evt_target_name(t), evt_status_string(st));
        }
        if (n == 0)
            continue;
        evt_tuning tu = {0};
        tu.config = evt_config_name(admitted[pg_below(&in->data, (unsigned)n)]);
        tu.split_k = (int)pg_below(&in->data, 4);
        tu.row_group = groups[pg_below(&in->data, 6)];
        if (evt_ctx_set_tuning(ctx, &tu) != EVT_OK)
            fail(in, "evt_ctx_set_tuning(%s, %d, %d): %s", tu.config, tu.split_k, tu.row_group,
                 evt_ctx_last_error(ctx));
        const int fast = (int)pg_below(&in->data, 2); /* the forced emission with fast math or without */
        if (evt_ctx_set_fast_math(ctx, fast) != EVT_OK)
            fail(in, "evt_ctx_set_fast_math(%d): %s", fast, evt_ctx_last_error(ctx));
        emit(ctx, m, k, t, in, tu.config);
        evt_ctx_set_tuning(ctx, NULL);
        evt_ctx_set_fast_math(ctx, 0);
    }
}

/* A problem for one epilogue: sizes, the accumulator and every input's
 * data, the params, the outputs' sizes; the same at both levels. */
typedef struct problem {
    long long m, n, ld;
    size_t nin, nparams, nout;
    float *acc;
    void **in;
    size_t *in_bytes;
    int *param_set;
    float *param;
    size_t *out_bytes;
    unsigned char **out[2];
} problem;

/* The harness's own memory: none, and it cannot go on. */
static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        abort();
    return p;
}

static size_t extent(const problem *p, evt_shape shape)
{
    switch (shape) {
    case EVT_SHAPE_MN: return (size_t)(p->m * p->ld);
    case EVT_SHAPE_M: return (size_t)p->m;
    case EVT_SHAPE_N: return (size_t)p->n;
    default: return 1;
    }
}

/* Mostly a few rows and columns; now and then an empty problem (reductions
 * hold their identity) or more columns than one interpreter chunk (256).
 * Buffers have exactly their extent, so that ASan sees a step past one. */
static void make_problem(problem *p, const evt_epilogue *e, pg_rng *r)
{
    memset(p, 0, sizeof *p);
    p->nin = evt_epilogue_arg_count(e, EVT_ARG_INPUT);
    p->nparams = evt_epilogue_arg_count(e, EVT_ARG_PARAM);
    p->nout = evt_epilogue_arg_count(e, EVT_ARG_OUTPUT);
    unsigned k = pg_below(r, 100);
    p->m = k < 3 ? 0 : 1 + pg_below(r, 6);
    p->n = k >= 3 && k < 6 ? 0 : k >= 6 && k < 10 ? 250 + pg_below(r, 20) : 1 + pg_below(r, 12);
    p->ld = p->n + pg_below(r, 5);
    p->acc = xcalloc((size_t)(p->m * p->ld), sizeof(float));
    pg_fill(r, EVT_F32, p->acc, (size_t)(p->m * p->ld));
    p->in = xcalloc(p->nin, sizeof *p->in);
    p->in_bytes = xcalloc(p->nin, sizeof *p->in_bytes);
    for (size_t i = 0; i < p->nin; i++) {
        const evt_arg_info *a = evt_epilogue_arg(e, EVT_ARG_INPUT, i);
        size_t n = extent(p, a->shape);
        p->in_bytes[i] = n * evt_elem_size(a->elem);
        p->in[i] = xcalloc(p->in_bytes[i], 1);
        pg_fill(r, a->elem, p->in[i], n);
    }
    p->param_set = xcalloc(p->nparams, sizeof *p->param_set);
    p->param = xcalloc(p->nparams, sizeof *p->param);
    for (size_t i = 0; i < p->nparams; i++) {
        p->param_set[i] = !evt_epilogue_arg(e, EVT_ARG_PARAM, i)->has_default || pg_chance(r, 50);
        p->param[i] = pg_f32(r);
    }
    p->out_bytes = xcalloc(p->nout, sizeof *p->out_bytes);
    p->out[0] = xcalloc(p->nout, sizeof *p->out[0]);
    p->out[1] = xcalloc(p->nout, sizeof *p->out[1]);
    for (size_t i = 0; i < p->nout; i++) {
        const evt_arg_info *a = evt_epilogue_arg(e, EVT_ARG_OUTPUT, i);
        p->out_bytes[i] = extent(p, a->shape) * evt_elem_size(a->elem);
    }
}

static void free_problem(problem *p)
{
    for (size_t i = 0; i < p->nin; i++)
        free(p->in[i]);
    for (size_t i = 0; i < p->nout; i++) {
        free(p->out[0][i]);
        free(p->out[1][i]);
    }
    free(p->acc);
    free(p->in);
    free(p->in_bytes);
    free(p->param_set);
    free(p->param);
    free(p->out_bytes);
    free(p->out[0]);
    free(p->out[1]);
}

/* Runs e on p in `mode` into p->out[slot] (the padding between rows
 * prefilled, the same for both slots); 0 when memory ran out. */
static int interpret(const evt_epilogue *e, problem *p, int slot, evt_interp_mode mode,
                     const input *in, int level)
{
    evt_interp *it = NULL;
    evt_status st = evt_interp_create(e, &it);
    if (st == EVT_ERR_NO_MEMORY)
        return 0;
    if (st != EVT_OK)
        fail(in, "evt_interp_create: %s", evt_status_string(st));
    st = evt_interp_set_acc(it, p->m, p->n, p->acc, (size_t)(p->m * p->ld) * sizeof(float), p->ld);
    for (size_t i = 0; st == EVT_OK && i < evt_epilogue_arg_count(e, EVT_ARG_INPUT); i++)
        st = evt_interp_bind(it, evt_epilogue_arg(e, EVT_ARG_INPUT, i)->name, p->in[i],
                             p->in_bytes[i], p->ld);
    for (size_t i = 0; st == EVT_OK && i < evt_epilogue_arg_count(e, EVT_ARG_PARAM); i++)
        if (p->param_set[i])
            st = evt_interp_set_param(it, evt_epilogue_arg(e, EVT_ARG_PARAM, i)->name, p->param[i]);
    for (size_t i = 0; st == EVT_OK && i < evt_epilogue_arg_count(e, EVT_ARG_OUTPUT); i++) {
        unsigned char **out = &p->out[slot][i];
        free(*out);
        *out = xcalloc(p->out_bytes[i], 1);
        memset(*out, 0xa5, p->out_bytes[i]);
        st = evt_interp_bind(it, evt_epilogue_arg(e, EVT_ARG_OUTPUT, i)->name, *out,
                             p->out_bytes[i], p->ld);
    }
    if (st == EVT_OK)
        st = evt_interp_run(it, mode);
    if (st != EVT_OK && st != EVT_ERR_NO_MEMORY)
        fail(in, "the interpreter failed at -O%d (%s mode, M = %lld, N = %lld): %s", level,
             mode == EVT_INTERP_F32 ? "f32" : "f64", p->m, p->n, evt_interp_last_error(it));
    evt_interp_destroy(it);
    return st == EVT_OK;
}

/* Epilogue i at -O0 (e0) and -O2 (e2): the same outputs, byte for byte. */
static void compare_levels(const evt_epilogue *e0, const evt_epilogue *e2, input *in)
{
    problem p;
    make_problem(&p, e0, &in->data);
    if (interpret(e0, &p, 0, EVT_INTERP_F32, in, 0) && interpret(e2, &p, 1, EVT_INTERP_F32, in, 2)) {
        for (size_t i = 0; i < evt_epilogue_arg_count(e0, EVT_ARG_OUTPUT); i++) {
            if (memcmp(p.out[0][i], p.out[1][i], p.out_bytes[i]) == 0)
                continue;
            const evt_arg_info *a = evt_epilogue_arg(e0, EVT_ARG_OUTPUT, i);
            size_t size = evt_elem_size(a->elem), k = 0;
            while (memcmp(p.out[0][i] + k * size, p.out[1][i] + k * size, size) == 0)
                k++;
            uint32_t w = 0, g = 0;
            memcpy(&w, p.out[0][i] + k * size, size);
            memcpy(&g, p.out[1][i] + k * size, size);
            fail(in,
                 "epilogue '%s', output '%s' (%s): element %zu is 0x%x at -O0 but 0x%x at -O2 "
                 "(M = %lld, N = %lld, ld = %lld)",
                 evt_epilogue_name(e0), a->name, evt_elem_name(a->elem), k, w, g, p.m, p.n, p.ld);
        }
        /* f64 mode has no -O0 to match (folding rounds constants to f32): it must only run */
        interpret(e2, &p, 1, EVT_INTERP_F64, in, 2);
    }
    free_problem(&p);
}

static void pipeline(evt_ctx *ctx, input *in)
{
    evt_module *m0 = parse(ctx, in);
    if (!m0)
        return;
    evt_module *m2 = parse(ctx, in);
    evt_status st = evt_module_optimize(m0, 0);
    if (st == EVT_OK && m2)
        st = evt_module_optimize(m2, 2);
    if (st != EVT_OK && st != EVT_ERR_NO_MEMORY)
        fail(in, "optimizing failed: %s: %s", evt_status_string(st), evt_ctx_last_error(ctx));
    if (st == EVT_OK && m2) {
        /* -O2 is a fixed point: a second run changes nothing */
        const char *ir = evt_module_ir_text(m2);
        size_t len = ir ? strlen(ir) + 1 : 0;
        char *before = ir ? malloc(len) : NULL;
        if (before)
            memcpy(before, ir, len);
        if (before && evt_module_optimize(m2, 2) == EVT_OK &&
            strcmp(before, evt_module_ir_text(m2)) != 0)
            fail(in, "a second -O2 changed the IR:\n%s\nbecame\n%s", before, evt_module_ir_text(m2));
        free(before);
        emit_all(ctx, m2, in);
        for (size_t i = 0; i < evt_module_epilogue_count(m0) && i < MAX_EPILOGUES; i++)
            compare_levels(evt_module_epilogue(m0, i), evt_module_epilogue(m2, i), in);
    }
    evt_module_destroy(m0);
    evt_module_destroy(m2);
}

/* FNV-1a: the seed of a text input's problems, so that each input has its own data. */
static uint64_t hash(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3u;
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    evt_ctx *ctx = evt_ctx_create();
    if (!ctx)
        return 0;
    input in;
    if (data[0] < GEN_MODES) {
        uint64_t seed = 0;
        for (size_t i = 1; i < HEADER && i < size; i++)
            seed |= (uint64_t)data[i] << (8 * (i - 1));
        const uint8_t *rest = size > HEADER ? data + HEADER : NULL;
        pg_epilogue_rng(&gen, pg_rng_bytes(rest, rest ? size - HEADER : 0, seed));
        pg_put(&gen, "%s", kernels[data[0]]);
        if (gen.overflow) { /* a cut program is no program: nothing to check */
            evt_ctx_destroy(ctx);
            return 0;
        }
        /* the data goes on where the program's choices stopped */
        in = (input){gen.src, gen.len, 1, gen.r};
    } else {
        in = (input){(const char *)data, size, 0, {.s = hash(data, size)}};
    }
    pipeline(ctx, &in);
    evt_ctx_destroy(ctx);
    return 0;
}

/* Seed i as an input: a generated program from splitmix alone, the kernel
 * line cycling through all of them. */
size_t fuzz_seed_input(uint64_t seed, uint8_t *buf, size_t cap)
{
    if (cap < HEADER)
        return 0;
    buf[0] = (uint8_t)(seed % GEN_MODES);
    for (int i = 1; i < HEADER; i++)
        buf[i] = (uint8_t)(seed >> (8 * (i - 1)));
    return HEADER;
}
