/*
 * evtc_run.c - `evtc run`: compile one kernel, run it on the GPU on fresh
 * random inputs, check every output against libevt's f64 reference and
 * time it (shared/spec/cli.md; the check is evtc_check.c, and
 * docs/runtime.md has its tolerances); and `evtc tune`: the same set-up,
 * then evt_launch_tune times the plans for the problem and records the
 * fastest (docs/tuning.md).
 *
 * Everything goes through the public API, as a program embedding libevt
 * would: evt_launch_* and evt_device_* for the GPU, evt_reference_gemm and
 * evt_interp_* for the reference, evt_check_* to judge the results,
 * evt_convert_* for element types.
 */
#define _POSIX_C_SOURCE 200809L
#include "evtc_check.h"
#include "evtc_common.h"
#include "evtc_run.h"
#include "evtc_run_state.h"

#include <evt/evt.h>

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- options -------------------------------------------------------------- */

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

static int bad_usage(const run_options *o, const char *fmt, const char *arg)
{
    return evtc_usage_error(o->prog, fmt, arg);
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
        return bad_usage(o, "--param needs NAME=VALUE (got '%s')", v);
    double x = strtod(eq + 1, &end);
    if (eq[1] == '\0' || *end)
        return bad_usage(o, "--param %s: the value is not a number", v);
    /* as the language takes a number (language.md): too large for f32 is an
     * error, a nonzero one too small a warning that it becomes 0 */
    if (isfinite(x) && isinf((float)x))
        return bad_usage(o, "--param %s: the value is too large for f32", v);
    if (x != 0 && (float)x == 0.0f)
        fprintf(stderr, "%s: warning: --param %s: the value is too small for f32 and becomes 0\n", o->prog, v);
    param_setting *ps = realloc(o->params, (size_t)(o->nparams + 1) * sizeof *ps);
    if (!ps)
        return bad_usage(o, "%s", "out of memory");
    o->params = ps;
    char *name = malloc((size_t)(eq - v) + 1);
    if (!name)
        return bad_usage(o, "%s", "out of memory");
    memcpy(name, v, (size_t)(eq - v));
    name[eq - v] = '\0';
    ps[o->nparams].name = name;
    ps[o->nparams++].value = (float)x;
    return 0;
}

static int parse_run_args(int argc, char **argv, run_options *o, int *done)
{
    evtc_args args = {o->prog, valued_options, argc, argv, 1};
    evtc_arg arg;
    int more;
    *done = 0;
    while ((more = evtc_next_arg(&args, &arg)) > 0) {
        const char *a = arg.text, *v = arg.value;
        long long n;
        if (!arg.name_len) {
            if (o->file)
                return bad_usage(o, "more than one input file given ('%s')", v);
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
                return bad_usage(o, "--gemm needs M,N,K: three integers from 0 to 2^31-1 (got '%s')",
                                 v);
        } else if (evtc_arg_is(&arg, "--conv")) {
            if (!parse_conv(v, o))
                return bad_usage(o, "--conv needs N,H,W,C,K,R,S or N,H,W,C,K,R,S,pad,stride,dilation "
                                 "(non-negative integers; got '%s')",
                                 v);
        } else if (evtc_arg_is(&arg, "--target")) {
            if (evt_target_parse(v, &o->target) != EVT_OK)
                return bad_usage(o, "unknown target '%s' (expected sm_80, sm_86, sm_89 or sm_90a)", v);
            o->have_target = 1;
        } else if (evtc_arg_is(&arg, "--seed")) {
            if (!evtc_parse_count(v, &n))
                return bad_usage(o, "--seed needs a non-negative integer (got '%s')", v);
            o->seed = (unsigned long long)n;
            o->have_seed = 1;
        } else if (evtc_arg_is(&arg, "--ld-pad")) {
            if (!evtc_parse_count(v, &o->ld_pad) || o->ld_pad > (1 << 20))
                return bad_usage(o, "--ld-pad needs an integer from 0 to 2^20 (got '%s')", v);
        } else if (evtc_arg_is(&arg, "--batch")) {
            if (!evtc_parse_count(v, &o->batch) || o->batch < 1 || o->batch > 2147483647LL)
                return bad_usage(o, "--batch needs an integer from 1 to 2^31-1 (got '%s')", v);
        } else if (evtc_arg_is(&arg, "--reps")) {
            if (!evtc_parse_count(v, &n) || n < 1 || n > 100000)
                return bad_usage(o, "--reps needs an integer from 1 to 100000 (got '%s')", v);
            o->reps = (int)n;
            o->reps_given = 1;
        } else if (o->tune && evtc_arg_is(&arg, "--max-seconds")) {
            char *end;
            o->max_seconds = strtod(v, &end);
            if (!*v || *end || !(o->max_seconds > 0 && o->max_seconds <= 3600))
                return bad_usage(o, "--max-seconds needs a number of seconds above 0, at most 3600 "
                                 "(got '%s')",
                                 v);
        } else if (o->tune && evtc_arg_is(&arg, "--dry-run")) {
            o->dry_run = 1;
        } else if (evtc_arg_is(&arg, "--param")) {
            if (add_param(o, v))
                return EXIT_INVALID;
        } else {
            return evtc_unknown_option(o->prog, a);
        }
    }
    if (more < 0)
        return -more;
    if (!o->file)
        return bad_usage(o, "%s", "no input file");
    if (!o->have_gemm && !o->have_conv)
        return bad_usage(o, "%s", "no problem size: give --gemm M,N,K or --conv N,H,W,C,K,R,S");
    if (o->have_gemm && o->have_conv)
        return bad_usage(o, "%s", "give one of --gemm and --conv");
    if (o->have_conv && o->batch > 1)
        return bad_usage(o, "%s", "--batch is for --gemm: a conv's batch is its N");
    return 0;
}

/* ---- random values ---------------------------------------------------------- */

/* Uniform in [lo, hi). */
static double uniform(unsigned long long *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(evt_splitmix64(s) >> 11) * 0x1.0p-53;
}

static unsigned long long below(unsigned long long *s, unsigned long long n)
{
    return n ? evt_splitmix64(s) % n : 0;
}

/* ---- buffers ---------------------------------------------------------------- */

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

static int alloc_buffer(run *r, buffer *b)
{
    b->host = malloc(b->bytes ? b->bytes : 1);
    if (!b->host) {
        fprintf(stderr, "%s: error: out of memory for %s (%zu bytes)\n", r->o->prog, b->name, b->bytes);
        return EXIT_OUTSIDE;
    }
    evt_status st = evt_device_alloc(r->ctx, b->bytes, &b->dev);
    return st == EVT_OK ? 0 : evtc_run_failed(r, st, "device memory");
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
        fprintf(stderr, "%s: error: out of memory\n", r->o->prog);
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
        return evtc_run_failed(r, st, "converting the inputs");
    st = evt_device_copy_to(r->ctx, b->dev, b->host, b->bytes);
    return st == EVT_OK ? 0 : evtc_run_failed(r, st, "copying the inputs to the GPU");
}

/* Every output starts as all-ones bytes (NaN in the float types), so an
 * element the kernel never writes shows up in --check. */
static int poison(run *r, buffer *b)
{
    memset(b->host, 0xff, b->bytes);
    evt_status st = evt_device_copy_to(r->ctx, b->dev, b->host, b->bytes);
    return st == EVT_OK ? 0 : evtc_run_failed(r, st, "copying to the GPU");
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
    int rc = evtc_load(r->ctx, o->prog, o->file, EVT_DIAG_TEXT, &r->m);
    if (rc)
        return rc;
    if (o->kernel) {
        r->k = evt_module_find_kernel(r->m, o->kernel);
        if (!r->k)
            return evtc_no_kernel(o->prog, file, r->m, o->kernel);
    } else if (evt_module_kernel_count(r->m) == 1) {
        r->k = evt_module_kernel(r->m, 0);
    } else {
        fprintf(stderr, "%s: error: %s has %zu kernels: name one with --kernel\n", o->prog, file,
                evt_module_kernel_count(r->m));
        return EXIT_INVALID;
    }
    int conv = evt_kernel_mainloop(r->k) == EVT_MAINLOOP_CONV2D_FPROP;
    if (conv != o->have_conv) {
        fprintf(stderr, "%s: error: kernel '%s' is a %s kernel: give its size with %s\n", o->prog,
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
                    o->prog);
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
            fprintf(stderr, "%s: error: epilogue '%s' has no param '%s'\n", o->prog,
                    evt_epilogue_name(r->ep), o->params[i].name);
            return EXIT_INVALID;
        }
    }
    evt_optimize_options opt = {.level = o->opt_level};
    evt_status st = evt_module_optimize_with(r->m, &opt);
    if (st != EVT_OK)
        return evtc_run_failed(r, st, "optimizing");
    st = evt_launch_create(r->m, r->k, &r->launch);
    return st == EVT_OK ? 0 : evtc_run_failed(r, st, "creating the launch");
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
            return evtc_run_failed(r, st, "setting a param");
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
        return evtc_run_failed(r, st, o->have_conv ? "setting the conv problem" : "setting the GEMM");

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
                return evtc_run_failed(r, st, "binding");
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
        return evtc_run_failed(r, st, "benchmark");
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
        evtc_run_failed(r, st, "finding the GPU");
        return EXIT_OUTSIDE; /* EVT_ERR_UNSUPPORTED here is a GPU older than sm_80 */
    }
    if (r->o->have_target && r->o->target != r->target) {
        fprintf(stderr,
                "%s: error: --target %s, but the GPU (%s) is %s: %s compiles for the GPU present\n",
                r->o->prog, evt_target_name(r->o->target), r->device, evt_target_name(r->target),
                r->o->prog);
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
    evtc_progress_init(&progress, o->prog, o->progress, 1);
    fflush(stdout);
    evtc_progress_begin(&progress, "tuning %s on %s (compiles with NVRTC unless cached)",
                        evt_kernel_name(r->k), evt_target_name(r->target));
    evt_status st = evt_launch_tune(r->launch, NULL, &to, &res);
    evtc_progress_end(&progress, st == EVT_OK);
    if (st != EVT_OK)
        return evtc_run_failed(r, st, "tuning");
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
    if (o->dry_run) {
        printf("recorded: nothing (--dry-run)\n");
    } else if (res.recorded == 2) {
        printf("recorded: in memory only (%s could not be written)\n", path);
        fprintf(stderr, "evtc tune: warning: the tuning database %s could not be written: later runs "
                        "will not find this record\n", path);
    } else {
        printf("recorded: %s\n", path[0] ? path : "in memory only (the disk cache is off)");
    }
    if (!o->check && !o->bench)
        return 0;
    /* the recorded plan's own run, for --check to judge on its operands */
    if (o->check && (rc = operands_for_timing(r, 0)))
        return rc;
    st = evt_launch_run(r->launch, NULL);
    if (st == EVT_OK)
        st = evt_device_synchronize(r->ctx);
    if (st != EVT_OK)
        return evtc_run_failed(r, st, "launch");
    printf("plan: %s\n", evt_launch_plan(r->launch));
    return 0;
}

static int run_or_tune(int argc, char **argv, int tuning)
{
    run_options o = {.prog = tuning ? "evtc tune" : "evtc run", .opt_level = 2, .warmup = 5, .reps = 50,
                     .tune = tuning, .batch = 1};
    int done;
    int rc = parse_run_args(argc, argv, &o, &done);
    if (!rc && !done) {
        if (!o.have_seed)
            o.seed = ((unsigned long long)time(NULL) * 1000003u ^ (unsigned long long)getpid()) %
                     1000000000u;
        run r = {.o = &o, .rng = o.seed};
        if (!(r.ctx = evt_ctx_create())) {
            fprintf(stderr, "%s: error: out of memory\n", o.prog);
            rc = EXIT_OUTSIDE;
        } else if (!evtc_tuning_from_env(r.ctx, o.prog)) {
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
            evtc_progress_init(&progress, o.prog, o.progress, 1);
            fflush(stdout);
            evtc_progress_begin(&progress, "first launch of %s on %s (NVRTC unless cached)",
                                evt_kernel_name(r.k), evt_target_name(r.target));
            evt_status st = evt_launch_run(r.launch, NULL);
            if (st == EVT_OK)
                st = evt_device_synchronize(r.ctx);
            evtc_progress_end(&progress, st == EVT_OK);
            if (st != EVT_OK)
                rc = evtc_run_failed(&r, st, "launch");
        }
        if (!rc && o.check)
            rc = evtc_run_check(&r);
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
