/* evtc - the command-line compiler: a thin client of libevt (see ../shared/spec/cli.md). */
#include "evtc_common.h"
#include "evtc_run.h"

#include <evt/evt.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum emit_kind { EMIT_NONE, EMIT_IR, EMIT_DOT, EMIT_CUDA, EMIT_PTX, EMIT_CUBIN } emit_kind;

typedef struct options {
    const char *file;
    const char *output;
    const char *kernel;
    emit_kind emit;
    evt_diag_format diag_format;
    int opt_level;
    const char *passes;      /* --passes=LIST, instead of -O */
    const char *print_after; /* --print-after=PASS; "" for --print-after-all */
    evt_target targets[EVT_TARGET_COUNT];
    int ntargets;
    int show_time;
    int progress; /* --progress: progress lines even when stderr is no terminal */
    int fast_math; /* --fast-math */
} options;

static void usage(FILE *f)
{
    fputs("usage: evtc FILE.evt [options]\n"
          "       evtc run FILE.evt --kernel NAME --gemm M,N,K | --conv N,H,W,C,K,R,S [...]\n"
          "                          compile, run on the GPU with random inputs, --check, --bench\n"
          "                          (see evtc run --help)\n"
          "       evtc tune FILE.evt --kernel NAME --gemm M,N,K | --conv N,H,W,C,K,R,S [...]\n"
          "                          time the tile configurations for that size on the GPU and\n"
          "                          record the fastest (see evtc tune --help)\n"
          "       evtc --help | --version\n"
          "\n"
          "FILE '-' reads the source from standard input (named <stdin> in diagnostics).\n"
          "Options that take a value accept both --opt=VALUE and --opt VALUE.\n"
          "\n"
          "options:\n"
          "  --emit=ir               the typed IR, as text\n"
          "  --emit=dot              one Graphviz digraph, each epilogue a cluster of it\n"
          "  --emit=cuda             each kernel's CUDA C++ translation unit\n"
          "  --emit=ptx, --emit=cubin  NVRTC output for each --target\n"
          "                          (cubins go to NAME.TARGET.cubin unless -o is given)\n"
          "  --target T              sm_80, sm_86, sm_89 or sm_90a (default: the GPU\n"
          "                          present, else sm_90a);\n"
          "                          may be given several times\n"
          "  --fast-math             compute exp, sigmoid, silu, gelu and gelu_tanh on the GPU's\n"
          "                          approximate ex2 and rcp: fewer instructions, results\n"
          "                          within a few ulp, no longer the interpreter's bits\n"
          "  --time                  report the NVRTC compile time of each kernel and target\n"
          "  --progress              a progress line per NVRTC compile on standard error even\n"
          "                          when it is not a terminal (on a terminal: always)\n"
          "  --kernel NAME           only this kernel (and its epilogue)\n"
          "  -O0, -O1, -O2           optimization level (default -O2)\n"
          "  --passes=P1,P2,...      run exactly these passes, in order, instead of -O\n"
          "  --print-after=PASS      print the IR after each run of PASS to standard error\n"
          "  --print-after-all       print the IR after every pass to standard error\n"
          "  -o PATH                 write the output to PATH; '-': standard output, cubins\n"
          "                          included (default: standard output, cubins to files)\n"
          "  --diagnostics=text|json diagnostics as text (default) or one JSON object per line\n"
          "\n"
          "exit status: 0 success, 1 invalid source or arguments, 2 failure outside the source\n",
          f);
}

static int bad_usage(const char *fmt, const char *arg)
{
    return evtc_usage_error("evtc", fmt, arg);
}

/* Checks a comma-separated list of pass names against the library's. */
static int check_passes(const char *list, const char *option)
{
    const char *s = list;
    do {
        size_t len = strcspn(s, ",");
        size_t i = 0;
        while (evt_pass_name(i) && (strlen(evt_pass_name(i)) != len ||
                                    strncmp(evt_pass_name(i), s, len) != 0))
            i++;
        if (!evt_pass_name(i) || len == 0) {
            fprintf(stderr, "evtc: error: unknown pass '%.*s' in %s (the passes are", (int)len,
                    s, option);
            for (size_t j = 0; evt_pass_name(j); j++)
                fprintf(stderr, "%s %s", j ? "," : "", evt_pass_name(j));
            fputs(")\n(see evtc --help)\n", stderr);
            return EXIT_INVALID;
        }
        s += len + (s[len] == ',');
    } while (*s);
    return 0;
}

/* The options that take a value (both "--opt=VALUE" and "--opt VALUE"). */
static const evtc_valued valued_options[] = {
    {"--emit", "ir|dot|cuda|ptx|cubin"},
    {"--kernel", "NAME"},
    {"--target", "sm_80|sm_86|sm_89|sm_90a"},
    {"--diagnostics", "text|json"},
    {"-o", "PATH"},
    {"--passes", "P1,P2,..."},
    {"--print-after", "PASS"},
    {NULL, NULL},
};

static int parse_args(int argc, char **argv, options *o, int *done)
{
    static const char *const emits[] = {[EMIT_IR] = "ir", [EMIT_DOT] = "dot", [EMIT_CUDA] = "cuda",
                                        [EMIT_PTX] = "ptx", [EMIT_CUBIN] = "cubin"};
    evtc_args args = {"evtc", valued_options, argc, argv, 1};
    evtc_arg arg;
    int more;
    *done = 0;
    while ((more = evtc_next_arg(&args, &arg)) > 0) {
        const char *a = arg.text, *v = arg.value;
        if (!arg.name_len) {
            if (o->file)
                return bad_usage("more than one input file given ('%s')", v);
            o->file = v;
        } else if (evtc_arg_is(&arg, "--help") || evtc_arg_is(&arg, "-h")) {
            usage(stdout);
            *done = 1;
            return 0;
        } else if (evtc_arg_is(&arg, "--version")) {
            printf("evtc %s\n", evt_version());
            *done = 1;
            return 0;
        } else if (evtc_arg_is(&arg, "--emit")) {
            o->emit = EMIT_NONE;
            for (int e = EMIT_IR; e <= EMIT_CUBIN; e++)
                if (strcmp(v, emits[e]) == 0)
                    o->emit = (emit_kind)e;
            if (o->emit == EMIT_NONE)
                return bad_usage("unknown --emit kind '%s' (expected ir, dot, cuda, ptx or cubin)",
                                 v);
        } else if (evtc_arg_is(&arg, "--target")) {
            evt_target target;
            if (evt_target_parse(v, &target) != EVT_OK)
                return bad_usage("unknown target '%s' (expected sm_80, sm_86, sm_89 or sm_90a)", v);
            int seen = 0;
            for (int j = 0; j < o->ntargets; j++)
                seen |= o->targets[j] == target;
            if (!seen)
                o->targets[o->ntargets++] = target;
        } else if (evtc_arg_is(&arg, "--time")) {
            o->show_time = 1;
        } else if (evtc_arg_is(&arg, "--fast-math")) {
            o->fast_math = 1;
        } else if (evtc_arg_is(&arg, "--progress")) {
            o->progress = 1;
        } else if (evtc_arg_is(&arg, "--diagnostics")) {
            if (strcmp(v, "text") == 0)
                o->diag_format = EVT_DIAG_TEXT;
            else if (strcmp(v, "json") == 0)
                o->diag_format = EVT_DIAG_JSON;
            else
                return bad_usage("unknown --diagnostics format '%s' (expected text or json)", v);
        } else if (evtc_opt_level(&arg) >= 0) {
            o->opt_level = evtc_opt_level(&arg);
        } else if (evtc_arg_is(&arg, "--passes")) {
            if (check_passes(v, "--passes"))
                return EXIT_INVALID;
            o->passes = v;
        } else if (evtc_arg_is(&arg, "--print-after")) {
            if (strchr(v, ','))
                return bad_usage("--print-after=%s: name one pass (or use --print-after-all)", v);
            if (check_passes(v, "--print-after"))
                return EXIT_INVALID;
            o->print_after = v;
        } else if (evtc_arg_is(&arg, "--print-after-all")) {
            o->print_after = "";
        } else if (evtc_arg_is(&arg, "--kernel")) {
            o->kernel = v;
        } else if (evtc_arg_is(&arg, "-o")) {
            o->output = v;
        } else {
            return evtc_unknown_option("evtc", a);
        }
    }
    if (more < 0)
        return -more;
    if (!o->file)
        return bad_usage("%s", "no input file");
    return 0;
}

/* Whether -o's value (NULL: no -o) means standard output. */
static int is_stdout(const char *path)
{
    return !path || strcmp(path, "-") == 0;
}

/* Writes size bytes to `path` ("-" or NULL: standard output); returns an exit status. */
static int write_bytes(const char *path, const void *data, size_t size)
{
    int std = is_stdout(path);
    FILE *f = std ? stdout : fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "evtc: error: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_OUTSIDE;
    }
    int bad = fwrite(data, 1, size, f) != size;
    bad |= std ? fflush(f) != 0 : fclose(f) != 0;
    if (bad) {
        fprintf(stderr, "evtc: error: writing %s failed\n", std ? "the output" : path);
        return EXIT_OUTSIDE;
    }
    return 0;
}

static int write_output(const options *o, const char *text)
{
    return write_bytes(o->output, text, strlen(text));
}

/* --print-after: the IR of one epilogue after one pass, to standard error. */
static void print_after(void *user, const char *pass, const char *ir_text)
{
    (void)user;
    fprintf(stderr, "; *** IR after %s ***\n%s", pass, ir_text);
}

/* Runs the optimizer as the options say; returns an exit status. */
static int optimize(const options *o, evt_ctx *ctx, evt_module *m)
{
    evt_optimize_options opt = {.level = o->opt_level, .passes = o->passes};
    if (o->print_after) {
        opt.after = print_after;
        opt.after_pass = o->print_after[0] ? o->print_after : NULL;
    }
    evt_status st = evt_module_optimize_with(m, &opt);
    if (st == EVT_OK)
        return 0;
    fprintf(stderr, "evtc: error: %s\n", evt_ctx_last_error(ctx));
    return EXIT_OUTSIDE;
}

/* --emit=cuda|ptx|cubin: every selected kernel for every target. */
static int emit_kernels(const options *o, evt_ctx *ctx, evt_module *m)
{
    size_t nk = evt_module_kernel_count(m), count = 0;
    for (size_t i = 0; i < nk; i++)
        count += !o->kernel || strcmp(evt_kernel_name(evt_module_kernel(m, i)), o->kernel) == 0;
    if (o->emit == EMIT_CUBIN && o->output && count * (size_t)o->ntargets > 1) {
        fputs("evtc: error: -o names one file, but several cubins would be written; "
              "select one --kernel and one --target\n", stderr);
        return EXIT_INVALID;
    }
    FILE *text_out = NULL;
    if (o->emit != EMIT_CUBIN && !is_stdout(o->output) && !(text_out = fopen(o->output, "wb"))) {
        fprintf(stderr, "evtc: error: cannot write %s: %s\n", o->output, strerror(errno));
        return EXIT_OUTSIDE;
    }
    /* NVRTC takes seconds per kernel and target: one progress line each. */
    evtc_progress progress;
    evtc_progress_init(&progress, "evtc", o->progress, (int)(count * (size_t)o->ntargets));
    int rc = 0;
    for (size_t i = 0; i < nk && !rc; i++) {
        const evt_kernel *k = evt_module_kernel(m, i);
        if (o->kernel && strcmp(evt_kernel_name(k), o->kernel) != 0)
            continue;
        for (int t = 0; t < o->ntargets && !rc; t++) {
            const void *bytes = NULL;
            void *owned = NULL;
            size_t size = 0;
            double secs = 0;
            evt_status st;
            if (o->emit == EMIT_CUDA) {
                const char *src = NULL;
                st = evt_kernel_cuda(m, k, o->targets[t], &src);
                bytes = src;
                size = src ? strlen(src) : 0;
            } else {
                evtc_progress_begin(&progress, "compiling %s for %s", evt_kernel_name(k),
                                    evt_target_name(o->targets[t]));
                st = evt_kernel_compile(m, k, o->targets[t],
                                        o->emit == EMIT_PTX ? EVT_BINARY_PTX : EVT_BINARY_CUBIN,
                                        &owned, &size, &secs);
                evtc_progress_end(&progress, st == EVT_OK);
                bytes = owned;
                if (o->emit == EMIT_PTX && size && ((const char *)owned)[size - 1] == '\0')
                    size--;
            }
            if (st != EVT_OK) {
                fputs(evt_module_diag_text(m, o->diag_format), stderr);
                fprintf(stderr, "evtc: error: %s\n", evt_ctx_last_error(ctx));
                rc = st == EVT_ERR_UNSUPPORTED ? EXIT_INVALID : EXIT_OUTSIDE;
            } else {
                if (o->show_time && o->emit != EMIT_CUDA)
                    fprintf(stderr, "evtc: %s %s: NVRTC %.3f s\n", evt_kernel_name(k),
                            evt_target_name(o->targets[t]), secs);
                if (o->emit == EMIT_CUBIN) {
                    char path[1024];
                    if (o->output) /* a file, or "-" */
                        snprintf(path, sizeof path, "%s", o->output);
                    else
                        snprintf(path, sizeof path, "%s.%s.cubin", evt_kernel_name(k),
                                 evt_target_name(o->targets[t]));
                    rc = write_bytes(path, bytes, size);
                } else if (fwrite(bytes, 1, size, text_out ? text_out : stdout) != size) {
                    fputs("evtc: error: writing the output failed\n", stderr);
                    rc = EXIT_OUTSIDE;
                }
            }
            evt_free(owned);
        }
    }
    if (text_out && fclose(text_out) != 0 && !rc) {
        fputs("evtc: error: writing the output failed\n", stderr);
        rc = EXIT_OUTSIDE;
    }
    return rc;
}

static int evtc_main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "run") == 0)
        return evtc_run(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "tune") == 0)
        return evtc_tune(argc - 1, argv + 1);
    options o = {.emit = EMIT_NONE, .diag_format = EVT_DIAG_TEXT, .opt_level = 2};
    int done;
    int rc = parse_args(argc, argv, &o, &done);
    if (rc || done)
        return rc;

    evt_ctx *ctx = evt_ctx_create();
    if (!ctx) {
        fputs("evtc: error: out of memory\n", stderr);
        return EXIT_OUTSIDE;
    }
    if (!evtc_tuning_from_env(ctx, "evtc")) {
        evt_ctx_destroy(ctx);
        return EXIT_INVALID;
    }
    evt_ctx_set_fast_math(ctx, o.fast_math);
    evt_module *m = NULL;
    rc = evtc_load(ctx, "evtc", o.file, o.diag_format, &m);
    if (!rc && o.kernel && !evt_module_find_kernel(m, o.kernel))
        rc = evtc_no_kernel("evtc", evtc_source_name(o.file), m, o.kernel);
    if (!rc && (rc = optimize(&o, ctx, m)) == 0) {
        if (o.emit == EMIT_CUDA || o.emit == EMIT_PTX || o.emit == EMIT_CUBIN) {
            if (o.ntargets == 0) {
                /* The GPU present, else Hopper. */
                evt_target t;
                o.targets[o.ntargets++] =
                    evt_device_target(ctx, &t, NULL, 0) == EVT_OK ? t : EVT_TARGET_SM90A;
            }
            rc = emit_kernels(&o, ctx, m);
        } else if (o.emit == EMIT_IR || o.emit == EMIT_DOT) {
            const char *text = o.emit == EMIT_IR ? evt_module_ir_text(m) : evt_module_dot_text(m);
            rc = text ? write_output(&o, text) : EXIT_OUTSIDE;
        }
    }
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
    return rc;
}

/* Standard output that could not be written (a full disk, a closed pipe's
 * reader gone) fails the run that would have succeeded: a script reading
 * the results must not take a lost verdict or listing for a success. */
int main(int argc, char **argv)
{
    int rc = evtc_main(argc, argv);
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc == 0) {
        fprintf(stderr, "evtc: error: writing standard output failed: %s\n", strerror(errno));
        rc = EXIT_OUTSIDE;
    }
    return rc;
}
