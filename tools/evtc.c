/* evtc - the command-line compiler: a thin client of libevt (see ../shared/spec/cli.md). */
#include <evt/evt.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_INVALID = 1, EXIT_FAILURE_OUTSIDE = 2 };

typedef enum emit_kind { EMIT_NONE, EMIT_IR, EMIT_DOT } emit_kind;

typedef struct options {
    const char *file;
    const char *output;
    const char *kernel;
    emit_kind emit;
    evt_diag_format diag_format;
    int opt_level;
} options;

static void usage(FILE *f)
{
    fputs("usage: evtc FILE.evt [options]\n"
          "       evtc --help | --version\n"
          "\n"
          "options:\n"
          "  --emit=ir               the typed IR, as text\n"
          "  --emit=dot              each epilogue as a Graphviz digraph\n"
          "  --kernel NAME           only this kernel (and its epilogue)\n"
          "  -O0, -O1, -O2           optimization level (default -O2)\n"
          "  -o PATH                 write the output to PATH (default: standard output)\n"
          "  --diagnostics=text|json diagnostics as text (default) or one JSON object per line\n"
          "\n"
          "exit status: 0 success, 1 invalid source or arguments, 2 failure outside the source\n",
          f);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fputs("evtc: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(see evtc --help)\n", stderr);
    return EXIT_INVALID;
}

static int parse_args(int argc, char **argv, options *o, int *done)
{
    *done = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            *done = 1;
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("evtc %s\n", evt_version());
            *done = 1;
            return 0;
        } else if (strncmp(a, "--emit=", 7) == 0) {
            if (strcmp(a + 7, "ir") == 0)
                o->emit = EMIT_IR;
            else if (strcmp(a + 7, "dot") == 0)
                o->emit = EMIT_DOT;
            else
                return bad_usage("unknown --emit kind '%s' (expected ir or dot)", a + 7);
        } else if (strncmp(a, "--diagnostics=", 14) == 0) {
            if (strcmp(a + 14, "text") == 0)
                o->diag_format = EVT_DIAG_TEXT;
            else if (strcmp(a + 14, "json") == 0)
                o->diag_format = EVT_DIAG_JSON;
            else
                return bad_usage("unknown --diagnostics format '%s' (expected text or json)",
                                 a + 14);
        } else if (strcmp(a, "-O0") == 0 || strcmp(a, "-O1") == 0 || strcmp(a, "-O2") == 0) {
            o->opt_level = a[2] - '0';
        } else if (strcmp(a, "--kernel") == 0 || strcmp(a, "-o") == 0) {
            if (i + 1 >= argc)
                return bad_usage("%s needs a value", a);
            if (a[1] == 'o')
                o->output = argv[++i];
            else
                o->kernel = argv[++i];
        } else if (strncmp(a, "--kernel=", 9) == 0) {
            o->kernel = a + 9;
        } else if (a[0] == '-' && a[1] != '\0') {
            return bad_usage("unknown option '%s'", a);
        } else if (o->file) {
            return bad_usage("more than one input file given ('%s')", a);
        } else {
            o->file = a;
        }
    }
    if (!o->file)
        return bad_usage("%s", "no input file");
    return 0;
}

/* Writes text to -o PATH or standard output; returns an exit status. */
static int write_output(const options *o, const char *text)
{
    FILE *f = o->output ? fopen(o->output, "wb") : stdout;
    if (!f) {
        fprintf(stderr, "evtc: error: cannot write %s: %s\n", o->output, strerror(errno));
        return EXIT_FAILURE_OUTSIDE;
    }
    int bad = fputs(text, f) < 0;
    bad |= o->output ? fclose(f) != 0 : fflush(f) != 0;
    if (bad) {
        fprintf(stderr, "evtc: error: writing %s failed\n", o->output ? o->output : "output");
        return EXIT_FAILURE_OUTSIDE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o = {.emit = EMIT_NONE, .diag_format = EVT_DIAG_TEXT, .opt_level = 2};
    int done;
    int rc = parse_args(argc, argv, &o, &done);
    if (rc || done)
        return rc;

    evt_ctx *ctx = evt_ctx_create();
    if (!ctx) {
        fputs("evtc: error: out of memory\n", stderr);
        return EXIT_FAILURE_OUTSIDE;
    }
    evt_module *m = NULL;
    evt_status st = evt_module_parse_file(ctx, o.file, &m);
    if (m)
        fputs(evt_module_diag_text(m, o.diag_format), stderr);
    if (st != EVT_OK) {
        if (!m)
            fprintf(stderr, "evtc: error: %s\n", evt_ctx_last_error(ctx));
        rc = st == EVT_ERR_SOURCE || st == EVT_ERR_IO || st == EVT_ERR_LIMIT ? EXIT_INVALID
                                                                              : EXIT_FAILURE_OUTSIDE;
    } else if (o.kernel && !evt_module_find_kernel(m, o.kernel)) {
        fprintf(stderr, "evtc: error: %s has no kernel '%s'\n", o.file, o.kernel);
        rc = EXIT_INVALID;
    } else if (o.emit == EMIT_IR || o.emit == EMIT_DOT) {
        const char *text = o.emit == EMIT_IR ? evt_module_ir_text(m) : evt_module_dot_text(m);
        rc = text ? write_output(&o, text) : EXIT_FAILURE_OUTSIDE;
    }
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
    return rc;
}
