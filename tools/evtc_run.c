/*
 * evtc_run.c - `evtc run`: compile one kernel, run it on the GPU on fresh
 * random inputs, check every output against libevt's f64 reference and
 * time it (shared/spec/cli.md; docs/runtime.md has the tolerances); and
 * `evtc tune`: the same set-up, then evt_launch_tune times the plans for
 * the problem and records the fastest (docs/tuning.md).
 *
 * Everything goes through the public API, as a program embedding libevt
 * would: evt_launch_* and evt_device_* for the GPU, evt_reference_gemm and
 * evt_interp_* for the reference, evt_check_* to judge the results,
 * evt_convert_* for element types.
 */
#define _POSIX_C_SOURCE 200809L
#include "evtc_common.h"
#include "evtc_run.h"
#include "evtc_reach.h"

#include <evt/evt.h>

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- options -------------------------------------------------------------- */

typedef struct param_setting {
    const char *name;
    float value;
} param_setting;

typedef struct run_options {
    const char *file;
    const char *kernel;
    long long m, n, k; /* the epilogue's M x N, and the reduction length (r*s*c for conv) */
    int have_gemm, have_conv;
    evt_conv_problem conv;
    int check, bench, special;
    int progress; /* --progress: the progress line even when stderr is no terminal */
    int fast_math; /* --fast-math */
    int opt_level;
    int have_target;
    evt_target target;
    unsigned long long seed;
    int have_seed;
    param_setting *params;
    int nparams;
    long long ld_pad; /* extra elements in every leading dimension */
    long long batch;  /* --batch: problems of a batched GEMM (1: one) */
    int warmup, reps;
    int reps_given;
    int tune;         /* evtc tune */
    double max_seconds;
    int dry_run;
} run_options;

static void run_usage(FILE *f)
{
    fputs("usage: evtc run FILE.evt --kernel NAME --gemm M,N,K [options]\n"
          "       evtc run FILE.evt --kernel NAME --conv N,H,W,C,K,R,S[,pad,stride,dilation] [options]\n"
          "\n"
          "Compiles kernel NAME for the GPU present, fills the operands and every input\n"
          "with random values, runs it once, and reports what the options ask for.\n"
          "FILE '-' reads the source from standard input (named <stdin> in diagnostics).\n"
          "Options that take a value accept both --opt=VALUE and --opt VALUE.\n"
          "\n"
          "options:\n"
          "  --kernel NAME        the kernel to run (may be left out if FILE has one)\n"
          "  --gemm M,N,K         the problem size of a gemm kernel\n"
          "  --conv N,H,W,C,K,R,S[,pad,stride,dilation]\n"
          "                       the problem of a conv2d_fprop kernel: input NHWC,\n"
          "                       filter KRSC (padding, stride, dilation: 0, 1, 1)\n"
          "  --check              compare every output with the f64 CPU reference;\n"
          "                       exit 3 on a mismatch (above 2^32 multiply-adds on a\n"
          "                       sample of rows, unless an output reduces over M)\n"
          "  --bench              print the median time, TFLOP/s and GB/s\n"
          "  --special            put NaN, +-inf and -0.0 among the input values\n"
          "  --fast-math          exp, sigmoid, silu, gelu, gelu_tanh on the GPU's approximate\n"
          "                       ex2 and rcp (as evtc --fast-math)\n"
          "  --param NAME=VALUE   set a param (default: its default, else a random\n"
          "                       value in [0.5, 2)); may be given several times\n"
          "  --seed S             seed of the random inputs (default: from the clock;\n"
          "                       the seed used is printed)\n"
          "  --ld-pad P           add P elements to every leading dimension (gemm\n"
          "                       operands, [M, N] inputs and outputs)\n"
          "  --batch L            a batch of L gemm problems in one launch, each with\n"
          "                       its own random operands, inputs and outputs, one\n"
          "                       after the other in every buffer (default 1);\n"
          "                       --check checks every output of every problem\n"
          "  --reps R             timed runs for --bench (default 50, after 5 warm-ups)\n"
          "  --target T           sm_80, sm_86, sm_89 or sm_90a: must be the GPU's own\n"
          "  --progress           the first launch's progress line (it compiles with NVRTC)\n"
          "                       on standard error even when that is not a terminal\n"
          "  -O0, -O1, -O2        optimization level (default -O2)\n"
          "\n"
          "exit status: 0 success, 1 invalid source or arguments, 2 failure outside\n"
          "the source (no GPU, CUDA driver, NVRTC), 3 --check found a mismatch\n",
          f);
}

static void tune_usage(FILE *f)
{
    fputs("usage: evtc tune FILE.evt --kernel NAME --gemm M,N,K [options]\n"
          "       evtc tune FILE.evt --kernel NAME --conv N,H,W,C,K,R,S[,pad,stride,dilation] [options]\n"
          "\n"
          "Compiles every tile configuration (and split-K factor) the planner admits for\n"
          "kernel NAME on this problem and this GPU, times each on random inputs, and\n"
          "records the fastest in the tuning database beside the kernel cache; from then\n"
          "on every launch of that kernel and problem on this GPU model runs it.  Prints\n"
          "each plan's median time.  Set EVT_IGNORE_TUNING_RECORDS=1 to run the\n"
          "heuristic's plans instead of the records.\n"
          "\n"
          "options: those of evtc run (--kernel, --gemm, --conv, --batch, --target, --seed,\n"
          "--ld-pad, --param, --special, --fast-math, --progress, -O), and\n"
          "  --max-seconds S      bound on the tuning, compiles included (default 10);\n"
          "                       plans not timed by then are listed as such\n"
          "  --reps R             timed runs per plan (default: 5 to 20, by its time)\n"
          "  --dry-run            time the plans, record nothing\n"
          "  --check              check every output of the recorded plan's run\n"
          "  --bench              time the recorded plan as evtc run --bench does\n"
          "\n"
          "exit status: as evtc run's\n",
          f);
}

/* "evtc run" or "evtc tune", for messages: set once, at the subcommand's start. */
static const char *prog_name = "evtc run";

static int bad_usage(const char *fmt, const char *arg)
{
    return evtc_usage_error(prog_name, fmt, arg);
}

/* "M,N,K" */
static int parse_gemm(const char *s, run_options *o)
{
    char buf[128];
    long long v[3];
    if (strlen(s) >= sizeof buf)
        return 0;
    strcpy(buf, s);
    char *p = buf;
    for (int i = 0; i < 3; i++) {
        char *comma = strchr(p, ',');
        if ((comma != NULL) != (i < 2))
            return 0;
        if (comma)
            *comma = '\0';
        if (!evtc_parse_count(p, &v[i]) || v[i] > 0x7fffffff)
            return 0;
        p = comma + 1;
    }
    o->m = v[0];
    o->n = v[1];
    o->k = v[2];
    o->have_gemm = 1;
    return 1;
}

/* "N,H,W,C,K,R,S[,pad,stride,dilation]": padding, stride and dilation
 * apply to both spatial dimensions (default 0, 1, 1). */
static int parse_conv(const char *s, run_options *o)
{
    long long v[10] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
    int count = 0;
    const char *p = s;
    while (count < 10) {
        char num[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof num)
            return 0;
        memcpy(num, p, len);
        num[len] = '\0';
        if (!evtc_parse_count(num, &v[count]) || v[count] > 0x7fffffff)
            return 0;
        count++;
        p += len;
        if (*p == '\0')
            break;
        p++;
    }
    if (*p || (count != 7 && count != 10))
        return 0;
    o->conv = (evt_conv_problem){v[0], v[1], v[2], v[3], v[4], v[5], v[6], (int)v[7], (int)v[7],
                                 (int)v[8], (int)v[8], (int)v[9], (int)v[9]};
    o->have_conv = 1;
    return 1;
}

/* The options that take a value (both "--opt=VALUE" and "--opt VALUE"). */
static const evtc_valued valued_options[] = {
    {"--kernel", "NAME"},
    {"--gemm", "M,N,K"},
    {"--conv", "N,H,W,C,K,R,S[,pad,stride,dilation]"},
    {"--target", "sm_80|sm_86|sm_89|sm_90a"},
    {"--seed", "S"},
    {"--ld-pad", "P"},
    {"--batch", "L"},
    {"--reps", "R"},
    {"--param", "NAME=VALUE"},
    {"--max-seconds", "S"},
    {NULL, NULL},
};

/* --param NAME=VALUE, appended to o->params. */
static int add_param(run_options *o, const char *v)
{
    const char *eq = strchr(v, '=');
    char *end;
    if (!eq || eq == v)
        return bad_usage("--param needs NAME=VALUE (got '%s')", v);
    double x = strtod(eq + 1, &end);
    if (eq[1] == '\0' || *end)
        return bad_usage("--param %s: the value is not a number", v);
    param_setting *ps = realloc(o->params, (size_t)(o->nparams + 1) * sizeof *ps);
    if (!ps)
        return bad_usage("%s", "out of memory");
    o->params = ps;
    char *name = malloc((size_t)(eq - v) + 1);
    if (!name)
        return bad_usage("%s", "out of memory");
    memcpy(name, v, (size_t)(eq - v));
    name[eq - v] = '\0';
    ps[o->nparams].name = name;
    ps[o->nparams++].value = (float)x;
    return 0;
}

static int parse_run_args(int argc, char **argv, run_options *o, int *done)
{
    evtc_args args = {prog_name, valued_options, argc, argv, 1};
    evtc_arg arg;
    int more;
    *done = 0;
    while ((more = evtc_next_arg(&args, &arg)) > 0) {
        const char *a = arg.text, *v = arg.value;
        long long n;
        if (!arg.name_len) {
            if (o->file)
                return bad_usage("more than one input file given ('%s')", v);
            o->file = v;
        } else if (evtc_arg_is(&arg, "--help") || evtc_arg_is(&arg, "-h")) {
            (o->tune ? tune_usage : run_usage)(stdout);
            *done = 1;
            return 0;
        } else if (evtc_arg_is(&arg, "--check")) {
            o->check = 1;
        } else if (evtc_arg_is(&arg, "--bench")) {
            o->bench = 1;
        } else if (evtc_arg_is(&arg, "--special")) {
            o->special = 1;
        } else if (evtc_arg_is(&arg, "--progress")) {
            o->progress = 1;
        } else if (evtc_arg_is(&arg, "--fast-math")) {
            o->fast_math = 1;
        } else if (evtc_opt_level(&arg) >= 0) {
            o->opt_level = evtc_opt_level(&arg);
        } else if (evtc_arg_is(&arg, "--kernel")) {
            o->kernel = v;
        } else if (evtc_arg_is(&arg, "--gemm")) {
            if (!parse_gemm(v, o))
                return bad_usage("--gemm needs M,N,K: three integers from 0 to 2^31-1 (got '%s')",
                                 v);
        } else if (evtc_arg_is(&arg, "--conv")) {
            if (!parse_conv(v, o))
                return bad_usage("--conv needs N,H,W,C,K,R,S or N,H,W,C,K,R,S,pad,stride,dilation "
                                 "(non-negative integers; got '%s')",
                                 v);
        } else if (evtc_arg_is(&arg, "--target")) {
            if (evt_target_parse(v, &o->target) != EVT_OK)
                return bad_usage("unknown target '%s' (expected sm_80, sm_86, sm_89 or sm_90a)", v);
            o->have_target = 1;
        } else if (evtc_arg_is(&arg, "--seed")) {
            if (!evtc_parse_count(v, &n))
                return bad_usage("--seed needs a non-negative integer (got '%s')", v);
            o->seed = (unsigned long long)n;
            o->have_seed = 1;
        } else if (evtc_arg_is(&arg, "--ld-pad")) {
            if (!evtc_parse_count(v, &o->ld_pad) || o->ld_pad > (1 << 20))
                return bad_usage("--ld-pad needs an integer from 0 to 2^20 (got '%s')", v);
        } else if (evtc_arg_is(&arg, "--batch")) {
            if (!evtc_parse_count(v, &o->batch) || o->batch < 1 || o->batch > 2147483647LL)
                return bad_usage("--batch needs an integer from 1 to 2^31-1 (got '%s')", v);
        } else if (evtc_arg_is(&arg, "--reps")) {
            if (!evtc_parse_count(v, &n) || n < 1 || n > 100000)
                return bad_usage("--reps needs an integer from 1 to 100000 (got '%s')", v);
            o->reps = (int)n;
            o->reps_given = 1;
        } else if (o->tune && evtc_arg_is(&arg, "--max-seconds")) {
            char *end;
            o->max_seconds = strtod(v, &end);
            if (!*v || *end || !(o->max_seconds > 0 && o->max_seconds <= 3600))
                return bad_usage("--max-seconds needs a number of seconds above 0, at most 3600 "
                                 "(got '%s')",
                                 v);
        } else if (o->tune && evtc_arg_is(&arg, "--dry-run")) {
            o->dry_run = 1;
        } else if (evtc_arg_is(&arg, "--param")) {
            if (add_param(o, v))
                return EXIT_INVALID;
        } else {
            return bad_usage("unknown option '%s'", a);
        }
    }
    if (more < 0)
        return -more;
    if (!o->file)
        return bad_usage("%s", "no input file");
    if (!o->have_gemm && !o->have_conv)
        return bad_usage("%s", "no problem size: give --gemm M,N,K or --conv N,H,W,C,K,R,S");
    if (o->have_gemm && o->have_conv)
        return bad_usage("%s", "give one of --gemm and --conv");
    if (o->have_conv && o->batch > 1)
        return bad_usage("%s", "--batch is for --gemm: a conv's batch is its N");
    return 0;
}

/* ---- random values ---------------------------------------------------------- */

/* splitmix64: one 64-bit state, good enough for test data, same on every machine. */
static unsigned long long next_u64(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static double uniform(unsigned long long *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(next_u64(s) >> 11) * 0x1.0p-53;
}

static unsigned long long below(unsigned long long *s, unsigned long long n)
{
    return n ? next_u64(s) % n : 0;
}

/* ---- buffers ---------------------------------------------------------------- */

/*
 * One device buffer and its host copy.  Every buffer is a row-major
 * rows x cols matrix with rows `ld` elements apart: A row-major is M x K,
 * A column-major its transpose K x M (and likewise B); an [M] or [N]
 * vector is one row; a scalar one element.  The allocation is the exact
 * minimum, (rows - 1) * ld + cols elements.
 */
typedef struct buffer {
    const char *name;
    evt_elem elem;
    long long rows, cols, ld;
    size_t per;   /* elements of one problem of a batch: its batch stride */
    size_t count; /* elements allocated: per x the batch */
    size_t bytes;
    unsigned char *host;
    void *dev;
} buffer;

typedef struct run {
    run_options *o;
    evt_ctx *ctx;
    evt_module *m;
    const evt_kernel *k;
    const evt_epilogue *ep;
    evt_launch *launch;
    char device[128];
    evt_target target;
    buffer a, b;
    buffer *in, *out; /* per epilogue input and output, in declaration order */
    size_t nin, nout, nparam;
    float *param; /* the value of each param, as launched */
    unsigned long long rng;
    int timing_values; /* fill's fp8 operands for timing, not for the check */
} run;

static void shape_extent(evt_shape s, long long m, long long n, long long *rows, long long *cols)
{
    if (s == EVT_SHAPE_MN) {
        *rows = m;
        *cols = n;
    } else {
        *rows = 1;
        *cols = s == EVT_SHAPE_M ? m : s == EVT_SHAPE_N ? n : 1;
    }
}

/* Sets a buffer's geometry; the leading dimension of a matrix gets --ld-pad.
 * A batch's problems follow one another (a size past size_t makes the
 * allocation fail, with the buffer named). */
static void geometry(buffer *b, const char *name, evt_elem e, long long rows, long long cols,
                     long long pad, long long batch)
{
    b->name = name;
    b->elem = e;
    b->rows = rows;
    b->cols = cols;
    b->ld = cols + (rows > 1 || cols > 1 ? pad : 0);
    b->per = rows && cols ? (size_t)((rows - 1) * b->ld + cols) : 0;
    if (__builtin_mul_overflow(b->per, (size_t)batch, &b->count) ||
        __builtin_mul_overflow(b->count, evt_elem_size(e), &b->bytes))
        b->count = b->bytes = SIZE_MAX;
}

/* Prints the message of a failed library call and returns the exit status it means. */
static int failed(run *r, evt_status st, const char *what)
{
    if (st == EVT_ERR_COMPILE && r->m)
        fputs(evt_module_diag_text(r->m, EVT_DIAG_TEXT), stderr);
    const char *msg = evt_ctx_last_error(r->ctx);
    if (st == EVT_ERR_NO_GPU)
        fprintf(stderr, "%s: error: no GPU: %s\n", prog_name, msg[0] ? msg : evt_status_string(st));
    else
        fprintf(stderr, "%s: error: %s: %s\n", prog_name, what, msg[0] ? msg : evt_status_string(st));
    return st == EVT_ERR_SOURCE || st == EVT_ERR_INVALID_ARGUMENT || st == EVT_ERR_NOT_FOUND ||
                   st == EVT_ERR_UNSUPPORTED || st == EVT_ERR_UNBOUND
               ? EXIT_INVALID
               : EXIT_OUTSIDE;
}

static int alloc_buffer(run *r, buffer *b)
{
    b->host = malloc(b->bytes ? b->bytes : 1);
    if (!b->host) {
        fprintf(stderr, "%s: error: out of memory for %s (%zu bytes)\n", prog_name, b->name, b->bytes);
        return EXIT_OUTSIDE;
    }
    evt_status st = evt_device_alloc(r->ctx, b->bytes, &b->dev);
    return st == EVT_OK ? 0 : failed(r, st, "device memory");
}

/* ---- input values ------------------------------------------------------------- */

/* NaN, +inf, -inf, -0.0 in turn: what --special sprinkles. */
static double special_value(unsigned long long i)
{
    switch (i % 4) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    default: return -0.0;
    }
}

/*
 * Random values for one buffer, stored in its element type: uniform in
 * [-1, 1] rounded to the type, or whole numbers in [-16, 16] for i8 and
 * i32 (so that they are not nearly all 0).  fp8 GEMM operands are
 * multiples of 1/4 in [-2, 2], which e4m3 and e5m2 both hold exactly:
 * every product is a multiple of 1/16 and every sum of fewer than 2^20 of
 * them an f32, so the GPU's accumulator is the f64 reference's exactly
 * whatever its order (uniform values rounded to e5m2's 2 bits would make
 * the check's tolerance, not the kernel, decide).  For timing
 * (r->timing_values) they are uniform in [-2, 2] rounded to the type
 * instead (operands_for_timing).  With --special about one
 * element in 128 of a non-scalar epilogue input (at least one) is NaN,
 * +-inf or -0.0, and `operand_specials` elements of A or B are NaN or +-inf.
 */
static int fill(run *r, buffer *b, int input_specials, int operand_specials)
{
    double *v = malloc((b->count ? b->count : 1) * sizeof *v);
    if (!v) {
        fprintf(stderr, "%s: error: out of memory\n", prog_name);
        return EXIT_OUTSIDE;
    }
    int integral = b->elem == EVT_I8 || b->elem == EVT_I32;
    int fp8_operand = (b == &r->a || b == &r->b) && evt_elem_size(b->elem) == 1;
    for (size_t i = 0; i < b->count; i++)
        v[i] = integral           ? floor(uniform(&r->rng, -16, 17))
               : !fp8_operand     ? uniform(&r->rng, -1, 1)
               : r->timing_values ? uniform(&r->rng, -2, 2)
                                  : floor(uniform(&r->rng, -8, 9)) / 4;
    /* Not in a scalar input: one NaN there would make the whole output NaN. */
    if (r->o->special && b->count && (b->rows > 1 || b->cols > 1 || !input_specials)) {
        /* Only positions inside the matrix count: the ld padding is never read. */
        size_t elems = (size_t)(b->rows * b->cols);
        size_t nspecial = input_specials ? elems / 128 + 1 : (size_t)operand_specials;
        for (size_t s = 0; s < nspecial; s++) {
            size_t e = (size_t)below(&r->rng, elems);
            size_t at = (size_t)(e / (size_t)b->cols) * (size_t)b->ld + e % (size_t)b->cols +
                        (b->per ? (size_t)below(&r->rng, b->count / b->per) * b->per : 0);
            v[at] = special_value(input_specials ? below(&r->rng, 4) : below(&r->rng, 3));
        }
    }
    evt_status st = evt_convert_from_f64(b->elem, v, b->host, b->count);
    free(v);
    if (st != EVT_OK)
        return failed(r, st, "converting the inputs");
    st = evt_device_copy_to(r->ctx, b->dev, b->host, b->bytes);
    return st == EVT_OK ? 0 : failed(r, st, "copying the inputs to the GPU");
}

/* Every output starts as all-ones bytes (NaN in the float types), so an
 * element the kernel never writes shows up in --check. */
static int poison(run *r, buffer *b)
{
    memset(b->host, 0xff, b->bytes);
    evt_status st = evt_device_copy_to(r->ctx, b->dev, b->host, b->bytes);
    return st == EVT_OK ? 0 : failed(r, st, "copying to the GPU");
}

/*
 * fp8 operands refilled for timing (timing 1) or back for the check (0).
 * The check's multiples of 1/4 are 17 values; the GPU, at its power limit
 * under an fp8 GEMM, holds a higher clock on them than on values with every
 * bit of the mantissa in play, and a time measured on them is not one a
 * user's data would see (8% at 8192^3 on an H200: docs/fp8.md).  16-bit
 * operands are uniform values already, and operands that hold the values
 * asked for already are left as they are.
 */
static int operands_for_timing(run *r, int timing)
{
    if ((evt_elem_size(r->a.elem) != 1 && evt_elem_size(r->b.elem) != 1) || r->timing_values == timing)
        return 0;
    r->timing_values = timing;
    int rc = 0;
    if ((rc = fill(r, &r->a, 0, timing ? 0 : 2)) || (rc = fill(r, &r->b, 0, timing ? 0 : 2)))
        return rc;
    if (timing)
        printf("operands for timing: fp8 values uniform in [-2, 2] (--check's are multiples of 1/4)\n");
    return 0;
}

/* ---- set-up -------------------------------------------------------------------- */

/* Parses, optimizes and finds the kernel; prints diagnostics. */
static int compile(run *r)
{
    run_options *o = r->o;
    const char *file = evtc_source_name(o->file);
    int rc = evtc_load(r->ctx, prog_name, o->file, EVT_DIAG_TEXT, &r->m);
    if (rc)
        return rc;
    if (o->kernel) {
        r->k = evt_module_find_kernel(r->m, o->kernel);
        if (!r->k) {
            fprintf(stderr, "%s: error: %s has no kernel '%s'\n", prog_name, file, o->kernel);
            return EXIT_INVALID;
        }
    } else if (evt_module_kernel_count(r->m) == 1) {
        r->k = evt_module_kernel(r->m, 0);
    } else {
        fprintf(stderr, "%s: error: %s has %zu kernels: name one with --kernel\n", prog_name, file,
                evt_module_kernel_count(r->m));
        return EXIT_INVALID;
    }
    int conv = evt_kernel_mainloop(r->k) == EVT_MAINLOOP_CONV2D_FPROP;
    if (conv != o->have_conv) {
        fprintf(stderr, "%s: error: kernel '%s' is a %s kernel: give its size with %s\n", prog_name,
                evt_kernel_name(r->k), evt_mainloop_name(evt_kernel_mainloop(r->k)),
                conv ? "--conv N,H,W,C,K,R,S[,pad,stride,dilation]" : "--gemm M,N,K");
        return EXIT_INVALID;
    }
    if (conv) {
        long long p, q;
        const evt_conv_problem *c = &o->conv;
        if (evt_conv_output_size(c, &p, &q) != EVT_OK) {
            fprintf(stderr,
                    "%s: error: --conv: sizes must be >= 1, and the dilated filter must fit in "
                    "the padded input\n",
                    prog_name);
            return EXIT_INVALID;
        }
        o->m = c->n * p * q;
        o->n = c->k;
        o->k = c->r * c->s * c->c;
    }
    r->ep = evt_kernel_epilogue(r->k);
    for (int i = 0; i < o->nparams; i++) {
        const evt_arg_info *p = NULL;
        for (size_t j = 0; j < evt_epilogue_arg_count(r->ep, EVT_ARG_PARAM); j++)
            if (strcmp(evt_epilogue_arg(r->ep, EVT_ARG_PARAM, j)->name, o->params[i].name) == 0)
                p = evt_epilogue_arg(r->ep, EVT_ARG_PARAM, j);
        if (!p) {
            fprintf(stderr, "%s: error: epilogue '%s' has no param '%s'\n", prog_name,
                    evt_epilogue_name(r->ep), o->params[i].name);
            return EXIT_INVALID;
        }
    }
    evt_optimize_options opt = {.level = o->opt_level};
    evt_status st = evt_module_optimize_with(r->m, &opt);
    if (st != EVT_OK)
        return failed(r, st, "optimizing");
    st = evt_launch_create(r->m, r->k, &r->launch);
    return st == EVT_OK ? 0 : failed(r, st, "creating the launch");
}

/* Chooses every param's value: --param, else the default, else random. */
static int choose_params(run *r)
{
    const run_options *o = r->o;
    r->nparam = evt_epilogue_arg_count(r->ep, EVT_ARG_PARAM);
    r->param = calloc(r->nparam + 1, sizeof *r->param);
    if (!r->param)
        return EXIT_OUTSIDE;
    for (size_t p = 0; p < r->nparam; p++) {
        const evt_arg_info *info = evt_epilogue_arg(r->ep, EVT_ARG_PARAM, p);
        const char *how = "random";
        float value = (float)uniform(&r->rng, 0.5, 2.0);
        if (info->has_default) {
            value = info->default_value;
            how = "default";
        }
        for (int i = 0; i < o->nparams; i++)
            if (strcmp(o->params[i].name, info->name) == 0) {
                value = o->params[i].value;
                how = "--param";
            }
        r->param[p] = value;
        printf("param %s = %.9g (%s)\n", info->name, (double)value, how);
        evt_status st = evt_launch_set_param(r->launch, info->name, value);
        if (st != EVT_OK)
            return failed(r, st, "setting a param");
    }
    return 0;
}

/* Allocates, fills and binds A, B, every input and every output. */
static int prepare(run *r)
{
    const run_options *o = r->o;
    const evt_operand_info *oa = evt_kernel_operand(r->k, 0), *ob = evt_kernel_operand(r->k, 1);
    const evt_conv_problem *c = &o->conv;
    if (o->have_conv) /* dense NHWC input and KRSC filter, one pixel per row */
        geometry(&r->a, "x", oa->elem, c->n * c->h * c->w, c->c, 0, 1);
    else if (oa->layout == EVT_LAYOUT_COL)
        geometry(&r->a, "a", oa->elem, o->k, o->m, o->ld_pad, o->batch);
    else
        geometry(&r->a, "a", oa->elem, o->m, o->k, o->ld_pad, o->batch);
    if (o->have_conv)
        geometry(&r->b, "w", ob->elem, c->k * c->r * c->s, c->c, 0, 1);
    else if (ob->layout == EVT_LAYOUT_COL)
        geometry(&r->b, "b", ob->elem, o->n, o->k, o->ld_pad, o->batch);
    else
        geometry(&r->b, "b", ob->elem, o->k, o->n, o->ld_pad, o->batch);
    int rc;
    if ((rc = alloc_buffer(r, &r->a)) || (rc = fill(r, &r->a, 0, 2)) ||
        (rc = alloc_buffer(r, &r->b)) || (rc = fill(r, &r->b, 0, 2)))
        return rc;
    evt_status st =
        o->have_conv
            ? evt_launch_set_conv(r->launch, c, r->a.dev, r->a.bytes, r->b.dev, r->b.bytes)
            : evt_launch_set_gemm(r->launch, o->m, o->n, o->k, r->a.dev, r->a.ld, r->a.bytes,
                                  r->b.dev, r->b.ld, r->b.bytes);
    if (st == EVT_OK && !o->have_conv && o->batch > 1)
        st = evt_launch_set_batch(r->launch, o->batch, (long long)r->a.per, (long long)r->b.per);
    if (st != EVT_OK)
        return failed(r, st, o->have_conv ? "setting the conv problem" : "setting the GEMM");

    r->nin = evt_epilogue_arg_count(r->ep, EVT_ARG_INPUT);
    r->nout = evt_epilogue_arg_count(r->ep, EVT_ARG_OUTPUT);
    r->in = calloc(r->nin + 1, sizeof *r->in);
    r->out = calloc(r->nout + 1, sizeof *r->out);
    if (!r->in || !r->out)
        return EXIT_OUTSIDE;
    for (size_t pass = 0; pass < 2; pass++) {
        evt_arg_kind kind = pass ? EVT_ARG_OUTPUT : EVT_ARG_INPUT;
        for (size_t i = 0; i < (pass ? r->nout : r->nin); i++) {
            const evt_arg_info *info = evt_epilogue_arg(r->ep, kind, i);
            buffer *b = pass ? &r->out[i] : &r->in[i];
            long long rows, cols;
            shape_extent(info->shape, o->m, o->n, &rows, &cols);
            geometry(b, info->name, info->elem, rows, cols, o->ld_pad, o->have_conv ? 1 : o->batch);
            if ((rc = alloc_buffer(r, b)) || (rc = pass ? poison(r, b) : fill(r, b, 1, 0)))
                return rc;
            st = evt_launch_bind_batched(r->launch, info->name, b->dev, b->bytes,
                                         info->shape == EVT_SHAPE_MN ? b->ld : 0, (long long)b->per);
            if (st != EVT_OK)
                return failed(r, st, "binding");
        }
    }
    return choose_params(r);
}

static void release(run *r)
{
    buffer *all[2] = {&r->a, &r->b};
    for (int i = 0; i < 2; i++) {
        if (all[i]->dev)
            evt_device_free(r->ctx, all[i]->dev);
        free(all[i]->host);
    }
    for (size_t i = 0; r->in && i < r->nin; i++) {
        if (r->in[i].dev)
            evt_device_free(r->ctx, r->in[i].dev);
        free(r->in[i].host);
    }
    for (size_t i = 0; r->out && i < r->nout; i++) {
        if (r->out[i].dev)
            evt_device_free(r->ctx, r->out[i].dev);
        free(r->out[i].host);
    }
    free(r->in);
    free(r->out);
    free(r->param);
    evt_launch_destroy(r->launch);
    evt_module_destroy(r->m);
}

/* ---- the reference -------------------------------------------------------------- */

/* One slice of rows of the reference GEMM, for a thread of its own. */
typedef struct gemm_slice {
    long long m, n, k;
    evt_elem elem, elem_b; /* A's, B's */
    const unsigned char *a;
    evt_layout layout_a;
    long long lda;
    const void *b;
    evt_layout layout_b;
    long long ldb;
    double *d;
    evt_status st;
} gemm_slice;

static void *gemm_slice_run(void *arg)
{
    gemm_slice *g = arg;
    g->st = evt_reference_gemm_mixed(g->m, g->n, g->k, g->elem, g->a, g->layout_a, g->lda, g->elem_b,
                                     g->b, g->layout_b, g->ldb, g->d, NULL, g->n > 0 ? g->n : 1);
    return NULL;
}

/*
 * evt_reference_gemm over slices of rows on several threads (it is a pure
 * function).  Each call widens all of B to doubles, so the threads are as
 * many as the processors, at most 16, and as many as 4 GiB of such copies.
 */
static evt_status parallel_gemm(long long m, long long n, long long k, evt_elem elem,
                                const void *a, evt_layout layout_a, long long lda, evt_elem elem_b,
                                const void *b, evt_layout layout_b, long long ldb, double *d)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double b_bytes = 8.0 * (double)n * (double)k + 1;
    long long threads = cpus > 16 ? 16 : cpus < 1 ? 1 : cpus;
    if (threads > (long long)(4294967296.0 / b_bytes))
        threads = (long long)(4294967296.0 / b_bytes);
    if (threads > m / 4)
        threads = m / 4;
    if (threads < 1)
        threads = 1;
    gemm_slice g[16];
    pthread_t tid[16];
    int started[16] = {0};
    size_t es = evt_elem_size(elem);
    for (long long t = 0; t < threads; t++) {
        long long r0 = m * t / threads, r1 = m * (t + 1) / threads;
        /* Row r0 of A starts r0 rows in (row-major) or r0 elements in (column-major). */
        size_t off = (size_t)(layout_a == EVT_LAYOUT_COL ? r0 : r0 * lda) * es;
        g[t] = (gemm_slice){r1 - r0, n, k, elem, elem_b, (const unsigned char *)a + off, layout_a,
                            lda, b, layout_b, ldb, d + r0 * n, EVT_OK};
        started[t] = threads > 1 && pthread_create(&tid[t], NULL, gemm_slice_run, &g[t]) == 0;
        if (!started[t])
            gemm_slice_run(&g[t]);
    }
    evt_status st = EVT_OK;
    for (long long t = 0; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        if (g[t].st != EVT_OK)
            st = g[t].st;
    }
    return st;
}

/* Images of the reference conv for a thread of its own: image `images[i]`
 * of the batch goes to rows i*p*q... of d. */
typedef struct conv_slice {
    evt_conv_problem one; /* the problem with n = 1 */
    evt_elem elem;
    const unsigned char *x;
    const void *w;
    const long long *images;
    long long count;
    double *d;
    evt_status st;
} conv_slice;

static void *conv_slice_run(void *arg)
{
    conv_slice *c = arg;
    const evt_conv_problem *p = &c->one;
    long long pq, pp, qq;
    evt_conv_output_size(p, &pp, &qq);
    pq = pp * qq;
    size_t image = (size_t)(p->h * p->w * p->c) * evt_elem_size(c->elem);
    /* consecutive images in one call: each call packs the whole filter,
     * which for a 1x1 layer of many small images cost as much as the
     * products (64x7x7x512 -> 2048: 1 M weights an image of 49 pixels) */
    for (long long i = 0, len; i < c->count && c->st == EVT_OK; i += len) {
        for (len = 1; i + len < c->count && c->images[i + len] == c->images[i] + len;)
            len++;
        evt_conv_problem batch = *p;
        batch.n = len;
        c->st = evt_reference_conv2d(&batch, c->elem, c->x + (size_t)c->images[i] * image, c->w,
                                     c->d + i * pq * p->k, NULL, p->k);
    }
    return NULL;
}

/* evt_reference_conv2d for the images whose rows are `rows` (whole images,
 * in order; see check_rows), on up to 16 threads. */
static evt_status parallel_conv(const evt_conv_problem *c, evt_elem elem, const void *x,
                                const void *w, const long long *rows, long long nrows, double *d)
{
    long long p, q;
    if (evt_conv_output_size(c, &p, &q) != EVT_OK)
        return EVT_ERR_INVALID_ARGUMENT;
    long long pq = p * q, nimages = nrows / pq;
    long long *images = malloc((size_t)(nimages + 1) * sizeof *images);
    if (!images)
        return EVT_ERR_NO_MEMORY;
    for (long long i = 0; i < nimages; i++)
        images[i] = rows[i * pq] / pq;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long long threads = cpus > 16 ? 16 : cpus < 1 ? 1 : cpus;
    threads = threads > nimages ? (nimages > 0 ? nimages : 1) : threads;
    conv_slice s[16];
    pthread_t tid[16];
    int started[16] = {0};
    evt_conv_problem one = *c;
    one.n = 1;
    for (long long t = 0; t < threads; t++) {
        long long i0 = nimages * t / threads, i1 = nimages * (t + 1) / threads;
        s[t] = (conv_slice){one, elem, x, w, images + i0, i1 - i0, d + i0 * pq * c->k, EVT_OK};
        started[t] = threads > 1 && pthread_create(&tid[t], NULL, conv_slice_run, &s[t]) == 0;
        if (!started[t])
            conv_slice_run(&s[t]);
    }
    evt_status st = EVT_OK;
    for (long long t = 0; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        if (s[t].st != EVT_OK)
            st = s[t].st;
    }
    free(images);
    return st;
}

/* Clears the signs of n operand elements of e in place (f16, bf16, e4m3,
 * e5m2: sign and magnitude): |A| and |B| for the products' magnitudes. */
static void clear_signs(evt_elem e, unsigned char *x, size_t n)
{
    size_t es = evt_elem_size(e);
    for (size_t i = 0; i < n; i++)
        x[i * es + es - 1] &= 0x7f; /* the sign: the top bit of the last byte (little-endian) */
}

/* A copy of n elements of e, or NULL. */
static unsigned char *copy_of(evt_elem e, const void *src, size_t n)
{
    unsigned char *d = malloc(n * evt_elem_size(e) + 1);
    if (d)
        memcpy(d, src, n * evt_elem_size(e));
    return d;
}

/*
 * The reference accumulator for rows rows[0..nrows) of the problem, into
 * d (nrows x N, row-major): A·B in f64 (evt_reference_gemm, or the conv's),
 * over just those rows of A where they are a sample.  magnitude: |A|·|B|
 * instead, each element's sum of its products' magnitudes.
 */
static int reference_acc(run *r, const long long *rows, long long nrows, int magnitude, double *d)
{
    const run_options *o = r->o;
    long long n = o->n, k = o->k;
    const evt_operand_info *oa = evt_kernel_operand(r->k, 0), *ob = evt_kernel_operand(r->k, 1);
    size_t es = evt_elem_size(r->a.elem);
    const void *a = r->a.host, *b = r->b.host;
    evt_layout layout_a = oa->layout;
    long long lda = r->a.ld;
    size_t count_a = r->a.per ? r->a.per : r->a.count;
    unsigned char *own_a = NULL, *own_b = NULL;
    evt_status st = EVT_OK;
    /* A sample of rows: the reference multiplies just those rows of A. */
    if (nrows < o->m && !o->have_conv) {
        if (!(own_a = malloc((size_t)(nrows * k) * es + 1)))
            st = EVT_ERR_NO_MEMORY;
        for (long long i = 0; own_a && i < nrows; i++)
            for (long long p = 0; p < k; p++) {
                long long at = oa->layout == EVT_LAYOUT_COL ? p * r->a.ld + rows[i]
                                                            : rows[i] * r->a.ld + p;
                memcpy(own_a + (size_t)(i * k + p) * es, r->a.host + (size_t)at * es, es);
            }
        a = own_a;
        layout_a = EVT_LAYOUT_ROW;
        lda = k;
        count_a = (size_t)(nrows * k);
    }
    if (st == EVT_OK && magnitude) {
        size_t count_b = r->b.per ? r->b.per : r->b.count;
        if (!own_a)
            a = own_a = copy_of(r->a.elem, a, count_a);
        b = own_b = copy_of(r->b.elem, b, count_b);
        if (!own_a || !own_b) {
            st = EVT_ERR_NO_MEMORY;
        } else {
            clear_signs(r->a.elem, own_a, count_a);
            clear_signs(r->b.elem, own_b, count_b);
        }
    }
    if (st == EVT_OK)
        st = o->have_conv ? parallel_conv(&o->conv, r->a.elem, a, b, rows, nrows, d)
                          : parallel_gemm(nrows, n, k, r->a.elem, a, layout_a, lda > 0 ? lda : 1, r->b.elem, b,
                                          ob->layout, r->b.ld > 0 ? r->b.ld : 1, d);
    if (st != EVT_OK)
        fprintf(stderr, "%s: error: the reference %s failed: %s\n", prog_name, o->have_conv ? "conv2d" : "GEMM",
                evt_status_string(st));
    free(own_a);
    free(own_b);
    return st == EVT_OK ? 0 : EXIT_OUTSIDE;
}

/*
 * The reference outputs for rows rows[0..nrows) and columns cols[0..ncols)
 * (cols NULL: every column, ncols ignored), from their accumulator acc
 * (nrows x ncols, reference_acc's where every column is given): the
 * epilogue in f64 (evt_interp_*; or in the GPU's f32, mode) over that grid, with the [M, N], [M] and
 * [N] inputs gathered to match.  refs[o] receives output o, compact: nrows
 * x ncols values for [M, N], nrows for [M], ncols for [N], 1 for a scalar;
 * the last two mean something only when every row is given.  A
 * reduce_sum's magnitudes (evt_interp_bind_magnitude) follow its values in
 * refs[o], as many again.
 */
static int reference_epilogue(run *r, const long long *rows, long long nrows, const long long *cols, long long ncols,
                              const double *acc, evt_interp_mode mode, double **refs)
{
    const run_options *o = r->o;
    long long n = cols ? ncols : o->n;
    int all_rows = nrows == o->m;
    int rc = EXIT_OUTSIDE;
    unsigned char **gathered = calloc(r->nin + 1, sizeof *gathered);
    evt_interp *in = NULL;
    evt_status st;
    if (!gathered)
        goto oom;
    if ((st = evt_interp_create(r->ep, &in)) != EVT_OK) {
        fprintf(stderr, "%s: error: the reference interpreter: %s\n", prog_name, evt_status_string(st));
        goto done;
    }
    for (size_t p = 0; p < r->nparam && st == EVT_OK; p++)
        st = evt_interp_set_param(in, evt_epilogue_arg(r->ep, EVT_ARG_PARAM, p)->name, r->param[p]);
    if (st == EVT_OK)
        st = evt_interp_set_acc_f64(in, nrows, n, acc, (size_t)(nrows * n) * sizeof *acc, n > 0 ? n : 1);
    /* Inputs: [M, N], [M] and [N] ones cut down to the grid. */
    for (size_t i = 0; i < r->nin && st == EVT_OK; i++) {
        const evt_arg_info *info = evt_epilogue_arg(r->ep, EVT_ARG_INPUT, i);
        const buffer *b = &r->in[i];
        size_t ies = evt_elem_size(b->elem);
        int by_row = (info->shape & EVT_SHAPE_M) && !all_rows, by_col = (info->shape & EVT_SHAPE_N) && cols;
        if (!by_row && !by_col) {
            st = evt_interp_bind(in, info->name, b->host, b->bytes, b->ld);
            continue;
        }
        long long nr = info->shape & EVT_SHAPE_M ? nrows : 1, nc = info->shape & EVT_SHAPE_N ? n : 1;
        if (!(gathered[i] = malloc((size_t)(nr * nc) * ies + 1)))
            goto oom;
        for (long long j = 0; j < nr; j++) {
            /* an [M] input's elements are its rows: ld 1 */
            long long row = info->shape & EVT_SHAPE_M ? (by_row ? rows[j] : j) : 0;
            long long at = info->shape == EVT_SHAPE_M ? row : row * b->ld;
            if (!by_col) {
                memcpy(gathered[i] + (size_t)(j * nc) * ies, b->host + (size_t)at * ies, (size_t)nc * ies);
                continue;
            }
            for (long long c = 0; c < nc; c++)
                memcpy(gathered[i] + (size_t)(j * nc + c) * ies, b->host + (size_t)(at + cols[c]) * ies, ies);
        }
        st = evt_interp_bind(in, info->name, gathered[i], (size_t)(nr * nc) * ies,
                             info->shape == EVT_SHAPE_MN ? (nc > 0 ? nc : 1) : 1);
    }
    /* Outputs: their f64 values before conversion. */
    for (size_t i = 0; i < r->nout && st == EVT_OK; i++) {
        const evt_arg_info *info = evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, i);
        size_t count = info->shape == EVT_SHAPE_MN  ? (size_t)(nrows * n)
                       : info->shape == EVT_SHAPE_M ? (size_t)nrows
                       : info->shape == EVT_SHAPE_N ? (size_t)n
                                                    : 1;
        /* a sum's magnitudes after its values (evt_check_sums) */
        const size_t mags = info->reduce == EVT_REDUCE_SUM ? count : 0;
        if (!(refs[i] = malloc((count + mags + 1) * sizeof **refs)))
            goto oom;
        st = evt_interp_bind_f64(in, info->name, refs[i], count * sizeof **refs,
                                 info->shape == EVT_SHAPE_MN && n > 0 ? n : 1);
        if (st == EVT_OK && mags)
            st = evt_interp_bind_magnitude(in, info->name, refs[i] + count, mags * sizeof **refs);
    }
    if (st == EVT_OK)
        st = evt_interp_run(in, mode);
    if (st != EVT_OK)
        fprintf(stderr, "%s: error: the reference interpreter failed: %s\n", prog_name,
                in && evt_interp_last_error(in)[0] ? evt_interp_last_error(in) : evt_status_string(st));
    rc = st == EVT_OK ? 0 : EXIT_OUTSIDE;
    goto done;
oom:
    fprintf(stderr, "%s: error: out of memory for the reference\n", prog_name);
done:
    evt_interp_destroy(in);
    for (size_t i = 0; gathered && i < r->nin; i++)
        free(gathered[i]);
    free(gathered);
    return rc;
}

/* ---- --check ---------------------------------------------------------------------- */

/*
 * Rows the check covers (evt_check_rows): every row when an output reduces
 * over M or the problem is small, else a sample.  A conv goes by whole
 * images (the p*q rows of one batch element), since its reference runs
 * image by image.
 */
static long long *check_rows(run *r, int every_row, long long *nrows)
{
    const run_options *o = r->o;
    long long block = o->have_conv && o->conv.n > 0 ? o->m / o->conv.n : 1;
    long long *rows = malloc((size_t)(o->m + 1) * sizeof *rows);
    if (rows && evt_check_rows(o->m, o->n, o->k, block > 0 ? block : 1, every_row,
                               next_u64(&r->rng), rows, nrows) != EVT_OK) {
        free(rows);
        rows = NULL;
    }
    return rows;
}

static const char *reduce_suffix(evt_reduce r)
{
    switch (r) {
    case EVT_REDUCE_NONE: return "";
    case EVT_REDUCE_SUM: return " = reduce_sum";
    case EVT_REDUCE_MAX: return " = reduce_max";
    case EVT_REDUCE_MIN: return " = reduce_min";
    }
    return "";
}

/*
 * Elements of each element-wise output that the kernel never writes.  The
 * first run started from all-ones bytes; after copying its results back,
 * this poisons the outputs with zero bytes and runs again: an element the
 * kernel writes is the same both times (element-wise outputs involve no
 * atomics), one it skips keeps each poison.  This also finds the skipped
 * elements whose reference is NaN, which a NaN poison alone would hide.
 */
static int count_unwritten(run *r, long long *unwritten)
{
    unsigned char **second = calloc(r->nout + 1, sizeof *second);
    int rc = second ? 0 : EXIT_OUTSIDE;
    evt_status st = EVT_OK;
    for (size_t i = 0; !rc && i < r->nout; i++) {
        buffer *b = &r->out[i];
        if (evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, i)->reduce != EVT_REDUCE_NONE)
            continue;
        if (!(second[i] = calloc(b->bytes + 1, 1)))
            rc = EXIT_OUTSIDE;
        else if ((st = evt_device_copy_to(r->ctx, b->dev, second[i], b->bytes)) != EVT_OK)
            rc = failed(r, st, "copying to the GPU");
    }
    if (!rc && ((st = evt_launch_run(r->launch, NULL)) != EVT_OK ||
                (st = evt_device_synchronize(r->ctx)) != EVT_OK))
        rc = failed(r, st, "launch");
    for (size_t i = 0; !rc && i < r->nout; i++) {
        buffer *b = &r->out[i];
        if (!second[i])
            continue;
        if ((st = evt_device_copy_from(r->ctx, second[i], b->dev, b->bytes)) != EVT_OK) {
            rc = failed(r, st, "copying an output from the GPU");
            break;
        }
        size_t es = evt_elem_size(b->elem);
        for (size_t first = 0; b->per && first < b->count; first += b->per) /* each problem */
            for (long long row = 0; row < b->rows; row++)
                for (long long col = 0; col < b->cols; col++) {
                    size_t at = (first + (size_t)(row * b->ld + col)) * es;
                    unwritten[i] += memcmp(b->host + at, second[i] + at, es) != 0;
                }
    }
    if (rc == EXIT_OUTSIDE && !second)
        fprintf(stderr, "%s: error: out of memory\n", prog_name);
    for (size_t i = 0; second && i < r->nout; i++)
        free(second[i]);
    free(second);
    return rc;
}

static void view_problem(run *r, long long l);
static int compare(run *r, long long l, long long batch, const long long *rows, long long nrows, const double *acc,
                   double **refs, const long long *unwritten, size_t *failed_outputs, size_t *checked_outputs);

/*
 * EVT_RUN_EMULATE, a test of --check itself on the CPU
 * (tests/cli/emulate_check.sh): the outputs checked are not the GPU's but
 * the f32 interpreter's (the GPU's arithmetic, by contract) on the f64
 * accumulator moved by u F d, d its rounding as the bracket takes it and u
 * in [-1, 1] drawn from the seed, each element its own.  "1": F = 1/64,
 * less than an f32 accumulation carries, so --check must pass; "wrong": F
 * = 16, past the bracket, as a kernel off by a product or two, so it must
 * fail.  One problem of a GEMM within the reference's budget (every row).
 */
static int emulate(run *r, const char *how)
{
    const run_options *o = r->o;
    const double f = strcmp(how, "wrong") == 0 ? 16 : 1.0 / 64;
    const double tol = evt_check_tolerance(EVT_F32, EVT_REDUCE_NONE);
    if (o->have_conv || o->batch > 1 || (double)o->m * (double)o->n * (double)o->k > (double)EVT_CHECK_SAMPLE_MACS) {
        fprintf(stderr, "%s: error: EVT_RUN_EMULATE takes one GEMM problem of at most 2^32 multiply-adds\n",
                prog_name);
        return EXIT_INVALID;
    }
    const size_t count = (size_t)(o->m * o->n);
    long long *rows = malloc(((size_t)o->m + 1) * sizeof *rows);
    double *acc = malloc((count + 1) * sizeof *acc), *mag = malloc((count + 1) * sizeof *mag);
    evt_interp *in = NULL;
    int rc = rows && acc && mag ? 0 : EXIT_OUTSIDE;
    for (long long j = 0; !rc && j < o->m; j++)
        rows[j] = j;
    rc = rc ? rc : reference_acc(r, rows, o->m, 0, acc);
    rc = rc ? rc : reference_acc(r, rows, o->m, 1, mag);
    unsigned long long x = o->seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t e = 0; !rc && e < count; e++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull; /* the draw of u, from the seed */
        double u = (double)(x >> 11) * 0x1p-53 * 2 - 1;
        if (isfinite(acc[e]) && isfinite(mag[e]))
            acc[e] += u * f * tol * mag[e];
    }
    evt_status st = rc ? EVT_OK : evt_interp_create(r->ep, &in);
    for (size_t p = 0; !rc && st == EVT_OK && p < r->nparam; p++)
        st = evt_interp_set_param(in, evt_epilogue_arg(r->ep, EVT_ARG_PARAM, p)->name, r->param[p]);
    if (!rc && st == EVT_OK)
        st = evt_interp_set_acc_f64(in, o->m, o->n, acc, count * sizeof *acc, o->n > 0 ? o->n : 1);
    for (size_t i = 0; !rc && st == EVT_OK && i < r->nin; i++)
        st = evt_interp_bind(in, evt_epilogue_arg(r->ep, EVT_ARG_INPUT, i)->name, r->in[i].host, r->in[i].bytes,
                             r->in[i].ld);
    for (size_t i = 0; !rc && st == EVT_OK && i < r->nout; i++)
        st = evt_interp_bind(in, evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, i)->name, r->out[i].host,
                             r->out[i].bytes, r->out[i].ld > 0 ? r->out[i].ld : 1);
    if (!rc && st == EVT_OK)
        st = evt_interp_run(in, EVT_INTERP_F32);
    if (!rc && st != EVT_OK) {
        fprintf(stderr, "%s: error: EVT_RUN_EMULATE: %s\n", prog_name,
                in && evt_interp_last_error(in)[0] ? evt_interp_last_error(in) : evt_status_string(st));
        rc = EXIT_OUTSIDE;
    }
    if (!rc)
        printf("check: EVT_RUN_EMULATE=%s: the outputs are the f32 interpreter's, the accumulator moved by up to "
               "%g of its rounding, not the GPU's\n",
               how, f);
    evt_interp_destroy(in);
    free(rows);
    free(acc);
    free(mag);
    return rc;
}

/* --check: every output against the reference; 0, EXIT_MISMATCH or an error. */
static int check(run *r)
{
    const run_options *o = r->o;
    long long nrows = 0;
    int every_row = evt_check_needs_every_row(r->ep);
    long long *rows = check_rows(r, every_row, &nrows);
    double **refs = calloc(r->nout + 1, sizeof *refs);
    long long *unwritten = calloc(r->nout + 1, sizeof *unwritten);
    double *acc = malloc(((size_t)(nrows * o->n) + 1) * sizeof *acc);
    int rc = 0;
    if (!rows || !refs || !unwritten || !acc) {
        fprintf(stderr, "%s: error: out of memory for the reference\n", prog_name);
        rc = EXIT_OUTSIDE;
    }
    for (size_t i = 0; !rc && i < r->nout; i++) {
        evt_status st = evt_device_copy_from(r->ctx, r->out[i].host, r->out[i].dev, r->out[i].bytes);
        if (st != EVT_OK)
            rc = failed(r, st, "copying an output from the GPU");
    }
    const char *emulating = getenv("EVT_RUN_EMULATE");
    if (!rc && emulating && *emulating)
        rc = emulate(r, emulating); /* every element written: nothing to count */
    else if (!rc)
        rc = count_unwritten(r, unwritten);
    double macs = (double)o->m * (double)o->n * (double)o->k;
    if (!rc && nrows < o->m)
        printf("check: %lld of %lld rows%s (the reference covers at most 2^32 multiply-adds)\n",
               nrows, o->m, o->have_conv ? ", whole images" : "");
    else if (!rc && every_row && macs > (double)EVT_CHECK_SAMPLE_MACS)
        printf("check: every row (a reduction over M needs them all): %.3g multiply-adds on the "
               "CPU\n",
               macs);
    fflush(stdout);
    /* A batch's problems one by one, each against its own reference (the
     * same rows of each); a batch of more than 8 prints the failures only. */
    const long long batch = o->have_conv ? 1 : o->batch;
    size_t failed_outputs = 0, checked_outputs = 0;
    for (long long l = 0; !rc && l < batch; l++) {
        view_problem(r, l);
        rc = reference_acc(r, rows, nrows, 0, acc);
        rc = rc ? rc : reference_epilogue(r, rows, nrows, NULL, 0, acc, EVT_INTERP_F64, refs);
        rc = rc ? rc : compare(r, l, batch, rows, nrows, acc, refs, unwritten, &failed_outputs, &checked_outputs);
        view_problem(r, -l);
        for (size_t i = 0; refs && i < r->nout; i++) {
            free(refs[i]);
            refs[i] = NULL;
        }
    }
    if (!rc) {
        if (failed_outputs)
            printf("check: FAIL (%zu of %zu outputs%s)\n", failed_outputs, checked_outputs,
                   batch > 1 ? " of the batch's problems" : "");
        else if (batch > 1)
            printf("check: PASS (%zu outputs: %zu of each of %lld problems)\n", checked_outputs, r->nout, batch);
        else
            printf("check: PASS (%zu outputs)\n", checked_outputs);
        rc = failed_outputs ? EXIT_MISMATCH : 0;
    }
    free(acc);
    free(refs);
    free(rows);
    free(unwritten);
    return rc;
}

/* Moves every buffer's host copy l problems along the batch: to problem l
 * from problem 0, and back with -l. */
static void view_problem(run *r, long long l)
{
    buffer *ab[2] = {&r->a, &r->b};
    for (size_t i = 0; i < 2 + r->nin + r->nout; i++) {
        buffer *b = i < 2 ? ab[i] : i < 2 + r->nin ? &r->in[i - 2] : &r->out[i - 2 - r->nin];
        b->host += (ptrdiff_t)l * (ptrdiff_t)(b->per * evt_elem_size(b->elem));
    }
}

/*
 * The bracket's references (evt_check_values_bracketed) into lo and hi:
 * the epilogue on the accumulator acc moved down and up by the f32
 * tolerance (1e-4) of its products' magnitudes, where both are finite;
 * that move into *moves (nrows x N, NaN where there is none, the caller's
 * to free).
 */
static int bracket(run *r, const long long *rows, long long nrows, const double *acc, double **lo, double **hi,
                   double **moves)
{
    const size_t count = (size_t)(nrows * r->o->n);
    const double tol = evt_check_tolerance(EVT_F32, EVT_REDUCE_NONE);
    double *mag = malloc((count + 1) * sizeof *mag), *moved = malloc((count + 1) * sizeof *moved);
    int rc = EXIT_OUTSIDE;
    if (mag && moved)
        rc = reference_acc(r, rows, nrows, 1, mag);
    else
        fprintf(stderr, "%s: error: out of memory for the reference\n", prog_name);
    for (size_t i = 0; !rc && i < count; i++)
        mag[i] = isfinite(acc[i]) && isfinite(mag[i]) ? tol * mag[i] : NAN;
    for (int side = -1; !rc && side <= 1; side += 2) {
        for (size_t i = 0; i < count; i++)
            moved[i] = isnan(mag[i]) ? acc[i] : acc[i] + side * mag[i];
        rc = reference_epilogue(r, rows, nrows, NULL, 0, moved, EVT_INTERP_F64, side < 0 ? lo : hi);
    }
    free(moved);
    if (rc)
        free(mag);
    else
        *moves = mag;
    return rc;
}

/* v as an output of `elem` stores it, read back (NaN stays NaN in a float
 * type; an integer type stores it as a number). */
static float stored(evt_elem elem, double v)
{
    unsigned char b[8];
    float f;
    evt_convert_from_f64(elem, &v, b, 1);
    evt_convert_to_f32(elem, b, &f, 1);
    return f;
}

/*
 * Whether value e of an output (stored at g8; its reference want and the
 * bracket's ends lo and hi) is off on its own, judged with the whole
 * output's tolerance and floor (v).  evt_check_values_bracketed on one
 * value takes that value's size as its floor, so a float within the
 * tolerance of the whole floor is not off here.
 */
static int off_alone(evt_elem elem, evt_reduce reduce, const unsigned char *g8, double want, double lo, double hi,
                     const evt_check_verdict *v)
{
    evt_check_verdict one;
    if (evt_check_values_bracketed(elem, reduce, g8, &want, &lo, &hi, 1, &one, NULL) != EVT_OK || one.passed)
        return 0;
    if (elem == EVT_I8 || elem == EVT_I32)
        return 1;
    float g, w = stored(elem, want);
    evt_convert_to_f32(elem, g8, &g, 1);
    return !isfinite(g) || !isfinite(w) || fabs((double)g - w) > v->tol * v->floor;
}

/*
 * Whether a reduce_sum's value g (as a float) is off against its
 * reference want and magnitude mag as evt_check_sums judges it, with the
 * output's tolerance and floor (v); *fl receives the floor it took.
 */
static int sum_off(evt_elem elem, float g, double want, double mag, const evt_check_verdict *v, double *fl)
{
    float w = stored(elem, want);
    *fl = isfinite(mag) ? fmax(v->floor, mag * 0x1p-12) : v->floor;
    if (!isfinite(g) || !isfinite(w))
        return !((isnan(g) && isnan(w)) || g == w);
    return !(fabs((double)g - w) <= v->tol * fmax(fabs((double)w), *fl));
}

/* A look's verdict on a value it explains: a sum's stored value (got, a
 * copy) becomes its reference rounded, which keeps the output's floor (the
 * references' own); any other's ends (lo, hi) become the value itself. */
static void settle(evt_elem elem, int sum, unsigned char *got, double want, double *lo, double *hi, float g)
{
    if (sum)
        evt_convert_from_f64(elem, &want, got, 1);
    else
        *lo = *hi = g;
}

/* refine's bounds: a grid's cells (its candidates' rows x their columns),
 * and the candidates it looks at in all, in grids one after another. */
enum { REFINE_CELLS = 1 << 16, REFINE_VALUES = 4096 };

/* refine's evaluation (evtc_reach_eval): output `out` on the grid of rows
 * grid_rows and columns gcols, accumulators acc moved by s d (d NaN: not). */
typedef struct grid {
    run *r;
    size_t out;
    const long long *rows, *cols;
    long long nrows, ncols;
    const double *acc, *d;
    double *moved;
    double **refs;
} grid;

static int grid_eval(void *user, const double *s, double *y, size_t cells)
{
    grid *g = user;
    for (size_t c = 0; c < cells; c++)
        g->moved[c] = isnan(g->d[c]) ? g->acc[c] : g->acc[c] + s[c] * g->d[c];
    int rc = reference_epilogue(g->r, g->rows, g->nrows, g->cols, g->ncols, g->moved, EVT_INTERP_F64, g->refs);
    if (!rc)
        memcpy(y, g->refs[g->out], cells * sizeof *y);
    for (size_t i = 0; i < g->r->nout; i++) {
        free(g->refs[i]);
        g->refs[i] = NULL;
    }
    return rc;
}

/*
 * A second look at output `out`'s values off that the bracket's ends did
 * not explain (an element-wise [M, N] output; got, want, lo and hi its
 * stored values, reference and ends, compact over the checked rows;
 * moves the bracket's, NaN where it made none): on grids of the rows and
 * columns holding such values, what the reference reaches while the
 * accumulator moves within its rounding (evtc_reach.h).  A value it
 * reached gets the value itself as both ends, and the output is checked
 * again into *v (its tolerance and floor kept).  Values past the first
 * REFINE_VALUES keep the ends' verdict.
 */
static int refine(run *r, size_t out, const unsigned char *got, const double *want, double *lo, double *hi,
                  const long long *rows, long long nrows, const double *acc, const double *moves,
                  evt_check_verdict *v, long long *explained)
{
    const evt_elem elem = evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, out)->elem;
    const long long n = r->o->n;
    const size_t count = (size_t)(nrows * n), es = evt_elem_size(elem);
    /* cand: the candidates' indices; rix / cix: a row's (index into rows) and column's place in the grid, or -1 */
    size_t *cand = malloc((REFINE_VALUES + 1) * sizeof *cand), ncand = 0;
    long long *rix = malloc((size_t)(nrows + 1) * sizeof *rix), *cix = malloc((size_t)(n + 1) * sizeof *cix);
    long long *grows = malloc((size_t)(nrows + 1) * sizeof *grows), *gcols = malloc((size_t)(n + 1) * sizeof *gcols);
    long long *grid_rows = malloc((size_t)(nrows + 1) * sizeof *grid_rows);
    double *gacc = malloc((REFINE_CELLS + 1) * sizeof *gacc), *gd = malloc((REFINE_CELLS + 1) * sizeof *gd);
    evtc_reach *h = malloc((REFINE_CELLS + 1) * sizeof *h);
    grid gr = {.r = r,
               .out = out,
               .rows = grid_rows,
               .cols = gcols,
               .acc = gacc,
               .d = gd,
               .moved = malloc((REFINE_CELLS + 1) * sizeof *gr.moved),
               .refs = calloc(r->nout + 1, sizeof *gr.refs)};
    int rc = 0;
    if (!cand || !rix || !cix || !grows || !gcols || !grid_rows || !gacc || !gd || !h || !gr.moved || !gr.refs) {
        fprintf(stderr, "%s: error: out of memory for the reference\n", prog_name);
        rc = EXIT_OUTSIDE;
    }
    /* The candidates: values off alone against their ends. */
    for (size_t e = 0; !rc && e < count && ncand < REFINE_VALUES; e++)
        if (!isnan(moves[e]) && off_alone(elem, EVT_REDUCE_NONE, got + e * es, want[e], lo[e], hi[e], v))
            cand[ncand++] = e;
    for (long long j = 0; !rc && j < nrows; j++)
        rix[j] = -1;
    for (long long c = 0; !rc && c < n; c++)
        cix[c] = -1;
    /* Grid after grid: candidates from `first` on while their rows x columns fit. */
    for (size_t first = 0, next; !rc && first < ncand; first = next) {
        long long ng = 0, nc = 0;
        for (next = first; next < ncand; next++) {
            long long j = (long long)cand[next] / n, c = (long long)cand[next] % n;
            if ((ng + (rix[j] < 0)) * (nc + (cix[c] < 0)) > REFINE_CELLS)
                break;
            if (rix[j] < 0)
                grows[rix[j] = ng++] = j;
            if (cix[c] < 0)
                gcols[cix[c] = nc++] = c;
        }
        for (long long q = 0; q < ng; q++) {
            grid_rows[q] = rows[grows[q]];
            for (long long c = 0; c < nc; c++) {
                size_t e = (size_t)(grows[q] * n + gcols[c]), g = (size_t)(q * nc + c);
                gacc[g] = acc[e];
                gd[g] = moves[e];
            }
        }
        gr.nrows = ng;
        gr.ncols = nc;
        rc = evtc_reach_over((size_t)(ng * nc), 1, elem, grid_eval, &gr, h);
        for (size_t t = first; !rc && t < next; t++) {
            size_t e = cand[t];
            float f;
            evt_convert_to_f32(elem, got + e * es, &f, 1);
            if (evtc_reach_holds(&h[rix[(long long)e / n] * nc + cix[(long long)e % n]], elem, f, v->tol, v->floor))
                lo[e] = hi[e] = f;
        }
        for (long long q = 0; q < ng; q++)
            rix[grows[q]] = -1;
        for (long long c = 0; c < nc; c++)
            cix[gcols[c]] = -1;
    }
    if (!rc && ncand &&
        evt_check_values_bracketed(elem, EVT_REDUCE_NONE, got, want, lo, hi, count, v, explained) != EVT_OK)
        rc = EXIT_OUTSIDE;
    free(cand);
    free(rix);
    free(cix);
    free(grows);
    free(gcols);
    free(grid_rows);
    free(gacc);
    free(gd);
    free(h);
    free(gr.moved);
    free(gr.refs);
    return rc;
}

/* reduction_look's shifts, 0 and +-2^-k for k from REDUCTION_POWERS down
 * to 0, and its blocks along the reduced dimension, at most. */
enum { REDUCTION_POWERS = 8, REDUCTION_BLOCKS = 256 };
/* The values phase two looks at, at most: past a few hundred values off
 * after phase one, a kernel is wrong more likely than singular.  And its
 * blocks, at most: one line each (a row, or a column for a reduction over
 * N) up to this many, so that a term's pole is a change of its block's
 * sign (a minimum of four rows stays negative while one of them runs
 * through its pole: p6020 under EVT_RUN_EMULATE). */
enum { REDUCTION_LEFT = 256, REDUCTION_LINES = 4096 };

/* A block's reach (blk) into the reduction's (into), as the reduction
 * combines its blocks: a sum adds their least and greatest, a minimum
 * takes the least of each, a maximum the greatest. */
static void combine(evt_reduce red, evtc_reach *into, const evtc_reach *blk)
{
    into->nan |= blk->nan;
    into->pinf |= blk->pinf;
    into->ninf |= blk->ninf;
    if (blk->least > blk->most)
        return; /* no finite value */
    if (red == EVT_REDUCE_SUM) {
        into->least += blk->least;
        into->most += blk->most;
    } else {
        double (*pick)(double, double) = red == EVT_REDUCE_MIN ? fmin : fmax;
        into->least = pick(into->least, blk->least);
        into->most = pick(into->most, blk->most);
    }
}

/*
 * Whether reduction value e, off (*off set), lies within the span sp a
 * reduction_look reached (rounded to the output type, widened by the
 * tolerance, a sum's magnitude floor and what f32 atomics lose); if so it
 * is settled.  mag: a sum's magnitudes, or NULL.
 */
static int reduction_settles(evt_elem elem, evt_reduce red, const double *mag, unsigned char *got,
                             const double *want, double *lo, double *hi, const evt_check_verdict *v,
                             long long extent, const evtc_reach *sp, size_t e, int *off)
{
    const size_t es = evt_elem_size(elem);
    float g;
    double fl = v->floor;
    evt_convert_to_f32(elem, got + e * es, &g, 1);
    *off = mag ? sum_off(elem, g, want[e], mag[e], v, &fl)
               : off_alone(elem, red, got + e * es, want[e], lo[e], hi[e], v);
    if (!*off)
        return 0;
    /* The GPU adds a sum's partials (a tile's, 16 terms or more) with f32 atomics, which flush
     * a subnormal partial to zero (PTX atom.add.f32): up to FLT_MIN a partial lost. */
    if (mag)
        fl = fmax(fl, FLT_MIN * (double)(extent / 16 + 1) / v->tol);
    evtc_reach h = {.least = INFINITY, .most = -INFINITY, .nan = sp->nan, .pinf = sp->pinf, .ninf = sp->ninf};
    if (sp->least <= sp->most) { /* the span rounded to the output type */
        evtc_reach_add(&h, 1, elem, sp->least);
        evtc_reach_add(&h, 1, elem, sp->most);
    }
    if (!evtc_reach_holds(&h, elem, g, v->tol, fl))
        return 0;
    settle(elem, mag != NULL, got + e * es, want[e], &lo[e], &hi[e], g);
    return 1;
}

/* reduction_poles' evaluation (evtc_reach_eval): one block's partial
 * results for the values left, each with its own move. */
typedef struct block_eval {
    run *r;
    size_t out;
    const long long *rows; /* the checked rows */
    long long nrows, b0, b1;
    int by_col;                      /* a reduction over N: the block is columns b0..b1, the cells rows */
    const long long *lines;          /* the cells' columns (rows when by_col; indices into rows) */
    long long *grid_lines;           /* their global rows when by_col */
    long long *block_cols;           /* b0..b1 when by_col */
    const double *acc, *moves;
    double *moved, **refs;
} block_eval;

static int block_partials(void *user, const double *s, double *y, size_t cells)
{
    block_eval *b = user;
    const long long n = b->r->o->n, w = b->b1 - b->b0;
    int rc;
    if (b->by_col) { /* the cells' rows x the block's columns */
        for (size_t k = 0; k < cells; k++)
            for (long long c = 0; c < w; c++) {
                size_t e = (size_t)(b->lines[k] * n + b->b0 + c);
                b->moved[k * (size_t)w + (size_t)c] = isnan(b->moves[e]) ? b->acc[e] : b->acc[e] + s[k] * b->moves[e];
            }
        rc = reference_epilogue(b->r, b->grid_lines, (long long)cells, b->block_cols, w, b->moved, EVT_INTERP_F64,
                                b->refs);
    } else if (b->lines) { /* the block's rows x the cells' columns */
        for (long long j = 0; j < w; j++)
            for (size_t k = 0; k < cells; k++) {
                size_t e = (size_t)((b->b0 + j) * n + b->lines[k]);
                b->moved[(size_t)j * cells + k] = isnan(b->moves[e]) ? b->acc[e] : b->acc[e] + s[k] * b->moves[e];
            }
        rc = reference_epilogue(b->r, b->rows + b->b0, w, b->lines, (long long)cells, b->moved, EVT_INTERP_F64,
                                b->refs);
    } else { /* a whole-matrix reduction: the block's rows, one cell */
        for (size_t e = (size_t)(b->b0 * n); e < (size_t)(b->b1 * n); e++)
            b->moved[e - (size_t)(b->b0 * n)] = isnan(b->moves[e]) ? b->acc[e] : b->acc[e] + s[0] * b->moves[e];
        rc = reference_epilogue(b->r, b->rows + b->b0, w, NULL, 0, b->moved, EVT_INTERP_F64, b->refs);
    }
    if (!rc)
        memcpy(y, b->refs[b->out], cells * sizeof *y);
    for (size_t i = 0; i < b->r->nout; i++) {
        free(b->refs[i]);
        b->refs[i] = NULL;
    }
    return rc;
}

/*
 * reduction_look's phase two: for the values left[0..nleft) (output
 * indices), block by block, what each block's partial result reaches while
 * its accumulators move (evtc_reach_over, unrounded: partial sums add
 * before they round), combined as the reduction does into all[].
 */
static int reduction_poles(run *r, size_t out, const long long *rows, long long nrows, const double *acc,
                           const double *moves, long long blocks, long long extent, int by_col, const size_t *left,
                           size_t nleft, evtc_reach *all)
{
    const evt_arg_info *info = evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, out);
    const long long n = r->o->n;
    const int whole = info->shape != EVT_SHAPE_M && info->shape != EVT_SHAPE_N;
    const size_t cells = whole ? 1 : nleft;
    const long long widest = (extent + blocks - 1) / blocks + 1;
    block_eval b = {.r = r, .out = out, .rows = rows, .nrows = nrows, .by_col = by_col, .acc = acc, .moves = moves};
    long long *lines = malloc((cells + 1) * sizeof *lines);
    b.grid_lines = malloc((cells + 1) * sizeof *b.grid_lines);
    b.block_cols = malloc((size_t)(widest + 1) * sizeof *b.block_cols);
    b.moved = malloc(((size_t)widest * (whole ? (size_t)n : cells) + 1) * sizeof *b.moved);
    b.refs = calloc(r->nout + 1, sizeof *b.refs);
    evtc_reach *h = malloc((cells + 1) * sizeof *h);
    evtc_reach *sum = malloc((cells + 1) * sizeof *sum);
    int rc = lines && b.grid_lines && b.block_cols && b.moved && b.refs && h && sum ? 0 : EXIT_OUTSIDE;
    if (rc)
        fprintf(stderr, "%s: error: out of memory for the reference\n", prog_name);
    for (size_t k = 0; !rc && k < cells; k++) {
        lines[k] = whole ? 0 : (long long)left[k];
        b.grid_lines[k] = by_col && !whole ? rows[left[k]] : 0;
    }
    b.lines = whole ? NULL : lines;
    const double id = info->reduce == EVT_REDUCE_SUM ? 0 : info->reduce == EVT_REDUCE_MIN ? INFINITY : -INFINITY;
    for (size_t k = 0; !rc && k < cells; k++)
        sum[k] = (evtc_reach){id, id, 0, 0, 0};
    for (long long blk = 0; !rc && blk < blocks; blk++) {
        b.b0 = extent * blk / blocks;
        b.b1 = extent * (blk + 1) / blocks;
        for (long long c = b.b0; by_col && c < b.b1; c++)
            b.block_cols[c - b.b0] = c;
        rc = evtc_reach_over(cells, 0, info->elem, block_partials, &b, h);
        for (size_t k = 0; !rc && k < cells; k++)
            combine(info->reduce, &sum[k], &h[k]);
    }
    for (size_t k = 0; !rc && k < nleft; k++)
        all[left[k]] = sum[whole ? 0 : k];
    free(lines);
    free(b.grid_lines);
    free(b.block_cols);
    free(b.moved);
    free(b.refs);
    free(h);
    free(sum);
    return rc;
}

/*
 * A reduction's look at its values still off (output `out`, a reduce_sum,
 * _max or _min; got, want, lo and hi compact as refs; count values).  A
 * reduction's terms can be singular in the accumulator:
 * reduce_sum(1024 / acc, M) is carried by its terms nearest acc = 0, each
 * moved past any tolerance by its own rounding (p6004 and p6039, session
 * 71), and a minimum of such terms moves with them (p6020).  The terms
 * move independently, so the reduced dimension is cut into blocks (rows
 * for a reduction over M or both, columns over N; REDUCTION_BLOCKS at
 * most) and each block's partial result is taken with its accumulators
 * moved by s of their rounding (moves, the bracket's), s = 0 and +-2^-k
 * (k = REDUCTION_POWERS down to 0).  The blocks' least and greatest
 * combine as the reduction does (a sum adds them, a minimum takes the
 * least of each), which spans what independent blocks reach; the values
 * that leaves off get a second phase (reduction_poles).  A value
 * within that span, widened by the tolerance (a sum's by its magnitude
 * floor too, evt_check_sums, and by what f32 atomics lose) passes
 * (settle), and the output is checked again into *v.
 */
static int reduction_look(run *r, size_t out, unsigned char *got, const double *want, double *lo, double *hi,
                          const long long *rows, long long nrows, const double *acc, const double *moves,
                          size_t count, evt_check_verdict *v, long long *explained, double there[2])
{
    const evt_arg_info *info = evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, out);
    const evt_elem elem = info->elem;
    const evt_reduce red = info->reduce;
    const long long n = r->o->n;
    const int by_col = info->shape == EVT_SHAPE_M; /* a reduction over N: blocks of columns */
    const long long extent = by_col ? n : nrows;
    const long long blocks = extent < REDUCTION_BLOCKS ? extent : REDUCTION_BLOCKS;
    const double *mag = red == EVT_REDUCE_SUM ? want + count : NULL;
    double *moved = malloc(((size_t)(nrows * n) + 1) * sizeof *moved), **refs = calloc(r->nout + 1, sizeof *refs);
    long long *cols = malloc((size_t)(n + 1) * sizeof *cols);
    evtc_reach *all = malloc((count + 1) * sizeof *all), *blk = malloc((count + 1) * sizeof *blk);
    int rc = moved && refs && cols && all && blk ? 0 : EXIT_OUTSIDE;
    if (rc)
        fprintf(stderr, "%s: error: out of memory for the reference\n", prog_name);
    /* the reduction's identity, which a block's span combines into */
    const double id = red == EVT_REDUCE_SUM ? 0 : red == EVT_REDUCE_MIN ? INFINITY : -INFINITY;
    for (size_t e = 0; !rc && e < count; e++)
        all[e] = (evtc_reach){id, id, 0, 0, 0};
    for (long long b = 0; !rc && b < blocks; b++) {
        const long long b0 = extent * b / blocks, b1 = extent * (b + 1) / blocks;
        for (size_t e = 0; e < count; e++)
            blk[e] = (evtc_reach){INFINITY, -INFINITY, 0, 0, 0};
        for (int t = -1 - REDUCTION_POWERS; !rc && t <= 1 + REDUCTION_POWERS; t++) {
            /* t < 0: s = -2^-(t + 1 + POWERS)... in turn, from -1 to 0 to 1 */
            const double sh = t == 0 ? 0 : (t < 0 ? -1 : 1) * ldexp(1, -(REDUCTION_POWERS + 1 - abs(t)));
            size_t cells = 0;
            for (long long j = by_col ? 0 : b0; j < (by_col ? nrows : b1); j++)
                for (long long c = by_col ? b0 : 0; c < (by_col ? b1 : n); c++, cells++) {
                    const size_t e = (size_t)(j * n + c);
                    moved[cells] = isnan(moves[e]) ? acc[e] : acc[e] + sh * moves[e];
                }
            for (long long c = b0; by_col && c < b1; c++)
                cols[c - b0] = c;
            rc = by_col ? reference_epilogue(r, rows, nrows, cols, b1 - b0, moved, EVT_INTERP_F64, refs)
                        : reference_epilogue(r, rows + b0, b1 - b0, NULL, 0, moved, EVT_INTERP_F64, refs);
            for (size_t e = 0; !rc && e < count; e++)
                evtc_reach_add(&blk[e], 0, elem, refs[out][e]);
            for (size_t i = 0; i < r->nout; i++) {
                free(refs[i]);
                refs[i] = NULL;
            }
        }
        for (size_t e = 0; !rc && e < count; e++)
            combine(red, &all[e], &blk[e]);
    }
    /* Phase one: the blocks moved as one.  Phase two, for the values it
     * leaves off: each block's partial result on those values alone
     * (their columns, or rows for a reduction over N) through
     * evtc_reach_over, whose halvings run up a pole between its points. */
    long long passed = 0;
    size_t *left = malloc((count + 1) * sizeof *left), nleft = 0;
    if (!rc && !left)
        rc = EXIT_OUTSIDE;
    for (size_t e = 0; !rc && e < count; e++) {
        int off = 0;
        if (reduction_settles(elem, red, mag, got, want, lo, hi, v, extent, &all[e], e, &off))
            passed++;
        else if (off && nleft < REDUCTION_LEFT)
            left[nleft++] = e;
    }
    if (!rc && nleft)
        rc = reduction_poles(r, out, rows, nrows, acc, moves, extent < REDUCTION_LINES ? extent : REDUCTION_LINES,
                             extent, by_col, left, nleft, all);
    for (size_t t = 0; !rc && t < nleft; t++) {
        int off = 0;
        passed += reduction_settles(elem, red, mag, got, want, lo, hi, v, extent, &all[left[t]], left[t], &off);
    }
    free(left);
    if (!rc && passed) {
        evt_status st = mag ? evt_check_sums(elem, got, want, mag, count, v)
                            : evt_check_values_bracketed(elem, red, got, want, lo, hi, count, v, explained);
        rc = st == EVT_OK ? 0 : EXIT_OUTSIDE;
        if (mag)
            *explained += passed;
    }
    there[0] = there[1] = NAN;
    if (!rc && v->first_bad >= 0) {
        there[0] = all[v->first_bad].least;
        there[1] = all[v->first_bad].most;
    }
    free(moved);
    free(refs);
    free(cols);
    free(all);
    free(blk);
    return rc;
}

/*
 * The last look at output `out`'s values still off (got, want, lo and hi
 * compact as refine's; count values): the f32 interpreter's, ref32
 * (EVT_INTERP_F32: the generated code's f32 operations bit for bit, on
 * the f64 accumulator rounded to f32).  The f64 reference is exact
 * arithmetic's, and an f32 chain leaves it where f32 itself does: i0 /
 * 1e-40 overflows to inf in f32, so x / x is NaN where f64 has 1 (p1427,
 * session 71); a sum's f32 terms overflow to infinities of both signs
 * where f64's add up to one (p9014).  A value that meets the f32 one
 * (both NaN, the same infinity, or within the tolerance of the whole
 * output's floor, a sum's magnitude floor too, by 1 for integers) is what
 * the contract computes (settle), and the output is checked again into
 * *v.  *by_f32 receives how many so.  The builtins' own accuracy is not judged here but by
 * tests/unit/test_math.c and the GPU's math_bits.
 */
static int f32_look(evt_elem elem, evt_reduce reduce, unsigned char *got, const double *want, double *lo,
                    double *hi, const double *ref32, size_t count, evt_check_verdict *v, long long *explained,
                    long long *by_f32)
{
    const size_t es = evt_elem_size(elem);
    const int integral = elem == EVT_I8 || elem == EVT_I32, sum = reduce == EVT_REDUCE_SUM;
    const double *mag = sum ? want + count : NULL;
    *by_f32 = 0;
    for (size_t e = 0; e < count; e++) {
        float g, f;
        double fl = v->floor;
        evt_convert_to_f32(elem, got + e * es, &g, 1);
        if (sum ? !sum_off(elem, g, want[e], mag[e], v, &fl)
                : !off_alone(elem, reduce, got + e * es, want[e], lo[e], hi[e], v))
            continue;
        f = stored(elem, ref32[e]);
        int meets = !isfinite(g) || !isfinite(f)
                        ? (isnan(g) && isnan(f)) || g == f
                        : fabs((double)g - f) <= (integral ? 1 : v->tol * fmax(fabs((double)f), fl)) ||
                              (integral && sum && fabs((double)g - f) <= v->tol * fmax(fabs((double)f), fl));
        if (meets) {
            settle(elem, sum, got + e * es, want[e], &lo[e], &hi[e], g);
            ++*by_f32;
        }
    }
    evt_status st = EVT_OK;
    if (*by_f32)
        st = sum ? evt_check_sums(elem, got, want, mag, count, v)
                 : evt_check_values_bracketed(elem, reduce, got, want, lo, hi, count, v, explained);
    if (sum)
        *explained += *by_f32;
    return st == EVT_OK ? 0 : EXIT_OUTSIDE;
}

/* Problem l's outputs (of a batch of `batch`) against their references
 * refs, made from accumulator acc (the bracket's, where asked, too). */
static int compare(run *r, long long l, long long batch, const long long *rows, long long nrows, const double *acc,
                   double **refs, const long long *unwritten, size_t *failed_outputs, size_t *checked_outputs)
{
    int rc = 0;
    double **lo = NULL, **hi = NULL; /* the bracket's references, made at the first miss */
    double *moves = NULL;             /* and its accumulator's moves */
    double **refs32 = NULL;           /* the f32 interpreter's references, made at the first miss after those */
    for (size_t i = 0; !rc && i < r->nout; i++) {
        const evt_arg_info *info = evt_epilogue_arg(r->ep, EVT_ARG_OUTPUT, i);
        buffer *b = &r->out[i];
        /* every problem's line in a small batch, the failures' in a large one */
        char head[200], problem[48] = "";
        if (batch > 1)
            snprintf(problem, sizeof problem, "problem %lld ", l);
        snprintf(head, sizeof head, "check %s%s %s%s%s: ", problem, info->name, evt_elem_name(info->elem),
                 evt_shape_name(info->shape), reduce_suffix(info->reduce));
        int by_row = (info->shape & EVT_SHAPE_M) != 0;
        /* The stored values of the checked rows, compact, in the reference's order. */
        size_t es = evt_elem_size(info->elem);
        size_t per = info->shape == EVT_SHAPE_MN ? (size_t)b->cols : 1;
        size_t count = by_row ? (size_t)nrows * per : (size_t)b->cols;
        unsigned char *got = malloc(count * es + 1);
        if (!got) {
            rc = EXIT_OUTSIDE;
            break;
        }
        if (!by_row)
            memcpy(got, b->host, count * es);
        else if (info->shape == EVT_SHAPE_MN)
            for (long long j = 0; j < nrows; j++)
                memcpy(got + (size_t)j * per * es, b->host + (size_t)(rows[j] * b->ld) * es, per * es);
        else
            for (long long j = 0; j < nrows; j++)
                memcpy(got + (size_t)j * es, b->host + (size_t)rows[j] * es, es);
        evt_check_verdict v;
        evt_status st = info->reduce == EVT_REDUCE_SUM
                            ? evt_check_sums(info->elem, got, refs[i], refs[i] + count, count, &v)
                            : evt_check_values(info->elem, info->reduce, got, refs[i], count, &v);
        /* A value off is judged again against the references of the
         * accumulator moved down and up by its rounding
         * (evt_check_values_bracketed): relu(acc + b) * m with m = -inf is
         * -inf or NaN by the sign of acc + b, which an f32 sum within its
         * rounding of 0 may take either way, and a chain of builtins may
         * magnify that rounding past the output type's tolerance.  An
         * element-wise value still off gets a second look (refine): what
         * the reference reaches between the ends, where a singularity
         * hides it from both. */
        long long explained = 0, by_f32 = 0;
        double there[2] = {NAN, NAN}; /* a reduction's first value off: what its look reached */
        const int sum = info->reduce == EVT_REDUCE_SUM;
        if (st == EVT_OK && (v.special_bad > 0 || v.bad > 0)) {
            if (!lo) {
                lo = calloc(r->nout + 1, sizeof *lo);
                hi = calloc(r->nout + 1, sizeof *hi);
                rc = lo && hi ? bracket(r, rows, nrows, acc, lo, hi, &moves) : EXIT_OUTSIDE;
            }
            if (!rc && !sum)
                st = evt_check_values_bracketed(info->elem, info->reduce, got, refs[i], lo[i], hi[i], count, &v,
                                                &explained);
            /* (not where elements were never written: that fails whatever the values) */
            if (!rc && st == EVT_OK && !v.passed && !unwritten[i] && info->shape == EVT_SHAPE_MN &&
                info->reduce == EVT_REDUCE_NONE)
                rc = refine(r, i, got, refs[i], lo[i], hi[i], rows, nrows, acc, moves, &v, &explained);
            if (!rc && st == EVT_OK && !v.passed && !unwritten[i] && info->reduce != EVT_REDUCE_NONE)
                rc = reduction_look(r, i, got, refs[i], lo[i], hi[i], rows, nrows, acc, moves, count, &v,
                                    &explained, there);
            if (!rc && st == EVT_OK && !v.passed && !unwritten[i]) {
                if (!refs32)
                    rc = !(refs32 = calloc(r->nout + 1, sizeof *refs32))
                             ? EXIT_OUTSIDE
                             : reference_epilogue(r, rows, nrows, NULL, 0, acc, EVT_INTERP_F32, refs32);
                if (!rc)
                    rc = f32_look(info->elem, info->reduce, got, refs[i], lo[i], hi[i], refs32[i], count, &v,
                                  &explained, &by_f32);
            }
        }
        free(got);
        if (rc)
            break;
        if (st != EVT_OK) {
            fflush(stdout);
            fprintf(stderr, "%s: error: checking %s: %s\n", prog_name, info->name, evt_status_string(st));
            rc = EXIT_OUTSIDE;
            break;
        }
        /* elements never written count against the whole batch's output, once */
        int pass = v.passed && (unwritten[i] == 0 || l > 0);
        ++*checked_outputs;
        *failed_outputs += !pass;
        if (batch > 8 && pass)
            continue;
        printf("%smax rel err %.2e, max %lld ulp (floor %.3g, tol %.2g): %s\n", head, v.max_err, v.max_ulp,
               v.floor, v.tol, pass ? "PASS" : "FAIL");
        if (explained > by_f32)
            printf("  %lld values the references of an accumulator within its rounding give "
                   "(the accumulator moved by up to 1e-4 of its products' magnitudes)\n",
                   explained - by_f32);
        if (by_f32)
            printf("  %lld values the f32 interpreter gives where the f64 reference does not (f32's own range "
                   "and rounding: an overflow, say)\n",
                   by_f32);
        if (unwritten[i] && l == 0)
            printf("  %lld of %lld elements never written\n", unwritten[i], b->rows * b->cols * batch);
        if (v.bad || v.special_bad) {
            long long row = by_row ? rows[v.first_bad / (long long)per] : 0;
            long long col = info->shape == EVT_SHAPE_MN ? v.first_bad % (long long)per
                            : by_row                   ? 0
                                                       : v.first_bad;
            printf("  %lld of %lld values off, %lld NaN/inf mismatches; first", v.bad, v.checked,
                   v.special_bad);
            if (info->shape == EVT_SHAPE_MN)
                printf(" at [%lld, %lld]", row, col);
            else if (info->shape == EVT_SHAPE_M)
                printf(" at [%lld]", row);
            else if (info->shape == EVT_SHAPE_N)
                printf(" at [%lld]", col);
            printf(": got %.9g, want %.9g\n", isnan(v.first_got) ? NAN : v.first_got,
                   isnan(v.first_want) ? NAN : v.first_want);
            /* What the bracket saw there: a non-finite end, or ends on one
             * side of a singularity, says the output is ill-conditioned at
             * that accumulator rather than wrong. */
            if (lo && info->shape == EVT_SHAPE_MN && info->reduce == EVT_REDUCE_NONE)
                printf("  there: accumulator %.9g (f64), the bracket's ends %.9g and %.9g\n", acc[v.first_bad],
                       lo[i][v.first_bad], hi[i][v.first_bad]);
            if (!isnan(there[0]) || !isnan(there[1]))
                printf("  there: the reduction of blocks moved within their rounding reaches %.9g to %.9g%s\n",
                       there[0], there[1], info->reduce == EVT_REDUCE_SUM ? " (before its floor)" : "");
        }
    }
    for (size_t i = 0; i < r->nout; i++) {
        free(lo ? lo[i] : NULL);
        free(hi ? hi[i] : NULL);
    }
    free(lo);
    free(hi);
    free(moves);
    for (size_t i = 0; refs32 && i < r->nout; i++)
        free(refs32[i]);
    free(refs32);
    return rc;
}

/* ---- --bench ---------------------------------------------------------------------- */

static double logical_bytes(const buffer *b)
{
    return (double)b->rows * (double)b->cols * (double)evt_elem_size(b->elem);
}

static int bench(run *r)
{
    const run_options *o = r->o;
    double ms = 0;
    evt_status st = evt_launch_benchmark(r->launch, NULL, o->warmup, o->reps, &ms);
    if (st != EVT_OK)
        return failed(r, st, "benchmark");
    /* totals over a batch's problems */
    const double batch = o->have_conv ? 1.0 : (double)o->batch;
    double bytes = (logical_bytes(&r->a) + logical_bytes(&r->b)) * batch;
    for (size_t i = 0; i < r->nin; i++)
        bytes += logical_bytes(&r->in[i]) * batch;
    for (size_t i = 0; i < r->nout; i++)
        bytes += logical_bytes(&r->out[i]) * batch;
    double flops = 2.0 * (double)o->m * (double)o->n * (double)o->k * batch;
    double s = ms * 1e-3;
    printf("bench: %.4f ms (median of %d), %.1f TFLOP/s, %.1f GB/s\n", ms, o->reps,
           s > 0 ? flops / s * 1e-12 : 0.0, s > 0 ? bytes / s * 1e-9 : 0.0);
    printf("plan: %s\n", evt_launch_plan(r->launch));
    return 0;
}

/* ---- evtc run ----------------------------------------------------------------------- */

/* Finds the GPU; --target must name its architecture, since the runtime
 * compiles for the GPU present. */
static int find_device(run *r)
{
    evt_status st = evt_device_target(r->ctx, &r->target, r->device, sizeof r->device);
    if (st != EVT_OK) {
        failed(r, st, "finding the GPU");
        return EXIT_OUTSIDE; /* EVT_ERR_UNSUPPORTED here is a GPU older than sm_80 */
    }
    if (r->o->have_target && r->o->target != r->target) {
        fprintf(stderr,
                "%s: error: --target %s, but the GPU (%s) is %s: %s compiles for the GPU present\n",
                prog_name, evt_target_name(r->o->target), r->device, evt_target_name(r->target),
                prog_name);
        return EXIT_INVALID;
    }
    return 0;
}

static void print_header(const run *r)
{
    const run_options *o = r->o;
    printf("kernel %s (%s), -O%d: %s(", evt_kernel_name(r->k), evtc_source_name(o->file),
           o->opt_level,
           evt_mainloop_name(evt_kernel_mainloop(r->k)));
    for (size_t i = 0; i < 3; i++) {
        const evt_operand_info *op = evt_kernel_operand(r->k, i);
        printf("%s%s: %s%s", i ? ", " : "", op->name, evt_elem_name(op->elem),
               op->layout == EVT_LAYOUT_COL ? " col" : op->layout == EVT_LAYOUT_ROW ? " row" : "");
    }
    printf(") with %s\n", evt_epilogue_name(r->ep));
    if (o->have_conv) {
        const evt_conv_problem *c = &o->conv;
        printf("conv N=%lld H=%lld W=%lld C=%lld K=%lld R=%lld S=%lld pad %d stride %d dilation %d "
               "(M=%lld N=%lld K=%lld)",
               c->n, c->h, c->w, c->c, c->k, c->r, c->s, c->pad_h, c->stride_h, c->dil_h, o->m,
               o->n, o->k);
    } else {
        printf("gemm M=%lld N=%lld K=%lld", o->m, o->n, o->k);
        if (o->batch > 1)
            printf(", a batch of %lld", o->batch);
    }
    printf(" on %s (%s), seed %llu%s%s\n", r->device, evt_target_name(r->target), o->seed,
           o->special ? ", --special" : "", o->ld_pad ? ", padded leading dimensions" : "");
}

/* evtc tune's work once the launch is bound: tune, print every plan, and
 * leave the launch on the recorded plan (for --check and --bench). */
static int tune(run *r)
{
    const run_options *o = r->o;
    evt_tune_options to = {.max_seconds = o->max_seconds, .reps = o->reps_given ? o->reps : 0,
                           .dry_run = o->dry_run};
    evt_tune_result res;
    evtc_progress progress;
    int rc = operands_for_timing(r, 1);
    if (rc)
        return rc;
    evtc_progress_init(&progress, prog_name, o->progress, 1);
    fflush(stdout);
    evtc_progress_begin(&progress, "tuning %s on %s (compiles with NVRTC unless cached)",
                        evt_kernel_name(r->k), evt_target_name(r->target));
    evt_status st = evt_launch_tune(r->launch, NULL, &to, &res);
    evtc_progress_end(&progress, st == EVT_OK);
    if (st != EVT_OK)
        return failed(r, st, "tuning");
    printf("tune: %d plans, %d timed, %d compiled; %.2f s (generating and compiling %.2f s)\n",
           res.candidates, res.timed, res.compiled, res.seconds, res.compile_seconds);
    printf("%-34s %6s %10s %8s\n", "configuration", "split", "ms", "speed-up");
    for (int i = 0; i < res.nentries; i++) {
        const evt_tune_entry *e = &res.entries[i];
        char split[16]; /* stream-K's plans: "sk" */
        snprintf(split, sizeof split, e->stream_k ? "sk" : "%d", e->split_k);
        if (e->ms < 0) {
            printf("%-34s %6s %10s %8s\n", e->config, split, "-", "not timed");
            continue;
        }
        printf("%-34s %6s %10.4f %7.2fx%s%s\n", e->config, split, e->ms, res.heuristic.ms / e->ms,
               i == 0 ? "  heuristic" : "",
               strcmp(e->config, res.best.config) == 0 && e->split_k == res.best.split_k &&
                       e->stream_k == res.best.stream_k
                   ? "  best"
                   : "");
    }
    char path[4096];
    evt_tuning_db_path(path, sizeof path);
    printf("best: %s split %d%s, %.4f ms, %.2fx the heuristic's (%s split %d%s, %.4f ms)\n",
           res.best.config, res.best.split_k, res.best.stream_k ? " stream-K" : "", res.best.ms,
           res.heuristic.ms / res.best.ms, res.heuristic.config, res.heuristic.split_k,
           res.heuristic.stream_k ? " stream-K" : "", res.heuristic.ms);
    if (o->dry_run)
        printf("recorded: nothing (--dry-run)\n");
    else
        printf("recorded: %s\n", path[0] ? path : "in memory only (the disk cache is off)");
    if (!o->check && !o->bench)
        return 0;
    /* the recorded plan's own run, for --check to judge on its operands */
    if (o->check && (rc = operands_for_timing(r, 0)))
        return rc;
    st = evt_launch_run(r->launch, NULL);
    if (st == EVT_OK)
        st = evt_device_synchronize(r->ctx);
    if (st != EVT_OK)
        return failed(r, st, "launch");
    printf("plan: %s\n", evt_launch_plan(r->launch));
    return 0;
}

static int run_or_tune(int argc, char **argv, int tuning)
{
    run_options o = {.opt_level = 2, .warmup = 5, .reps = 50, .tune = tuning, .batch = 1};
    prog_name = tuning ? "evtc tune" : "evtc run";
    int done;
    int rc = parse_run_args(argc, argv, &o, &done);
    if (!rc && !done) {
        if (!o.have_seed)
            o.seed = ((unsigned long long)time(NULL) * 1000003u ^ (unsigned long long)getpid()) %
                     1000000000u;
        run r = {.o = &o, .rng = o.seed};
        if (!(r.ctx = evt_ctx_create())) {
            fprintf(stderr, "%s: error: out of memory\n", prog_name);
            rc = EXIT_OUTSIDE;
        } else if (!evtc_tuning_from_env(r.ctx)) {
            rc = EXIT_INVALID;
        } else {
            evt_ctx_set_fast_math(r.ctx, o.fast_math);
        }
        if (!rc)
            rc = compile(&r);
        if (!rc)
            rc = find_device(&r);
        if (!rc) {
            print_header(&r);
            rc = prepare(&r);
        }
        if (!rc && o.tune) {
            rc = tune(&r);
        } else if (!rc) {
            /* The first launch compiles the kernel with NVRTC (seconds) unless
             * the kernel cache has it. */
            evtc_progress progress;
            evtc_progress_init(&progress, prog_name, o.progress, 1);
            fflush(stdout);
            evtc_progress_begin(&progress, "first launch of %s on %s (NVRTC unless cached)",
                                evt_kernel_name(r.k), evt_target_name(r.target));
            evt_status st = evt_launch_run(r.launch, NULL);
            if (st == EVT_OK)
                st = evt_device_synchronize(r.ctx);
            evtc_progress_end(&progress, st == EVT_OK);
            if (st != EVT_OK)
                rc = failed(&r, st, "launch");
        }
        if (!rc && o.check)
            rc = check(&r);
        if ((!rc || rc == EXIT_MISMATCH) && o.bench) {
            int brc = operands_for_timing(&r, 1);
            if (!brc)
                brc = bench(&r);
            rc = brc ? brc : rc;
        }
        fflush(stdout);
        release(&r);
        evt_ctx_destroy(r.ctx);
    }
    for (int i = 0; i < o.nparams; i++)
        free((char *)o.params[i].name);
    free(o.params);
    return rc;
}

int evtc_run(int argc, char **argv)
{
    return run_or_tune(argc, argv, 0);
}

int evtc_tune(int argc, char **argv)
{
    return run_or_tune(argc, argv, 1);
}
