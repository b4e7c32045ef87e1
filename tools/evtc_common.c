/* evtc_common.c - see evtc_common.h. */
#define _POSIX_C_SOURCE 200809L
#include "evtc_common.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int evtc_usage_error(const char *program, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", program);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see %s --help)\n", program);
    va_end(ap);
    return EXIT_INVALID;
}

/* ---- the command line ------------------------------------------------------ */

int evtc_arg_is(const evtc_arg *arg, const char *name)
{
    return arg->name_len && strlen(name) == arg->name_len &&
           strncmp(arg->text, name, arg->name_len) == 0;
}

int evtc_opt_level(const evtc_arg *arg)
{
    const char *a = arg->text;
    return arg->name_len == 3 && a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '2'
               ? a[2] - '0'
               : -1;
}

int evtc_no_kernel(const char *program, const char *file, const evt_module *m, const char *name)
{
    fprintf(stderr, "%s: error: %s has no kernel '%s'", program, file, name);
    if (evt_module_find_epilogue(m, name))
        fprintf(stderr, " ('%s' is an epilogue; a kernel pairs one with a mainloop)", name);
    const size_t n = evt_module_kernel_count(m);
    fputs(n ? "; its kernels: " : "; it has no kernels", stderr);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s%s", i ? ", " : "", evt_kernel_name(evt_module_kernel(m, i)));
    fputc('\n', stderr);
    return EXIT_INVALID;
}

int evtc_unknown_option(const char *program, const char *a)
{
    if (a[0] == '-' && a[1] == 'O')
        return evtc_usage_error(program, "unknown optimization level '%s' (expected -O0, -O1 or -O2)", a);
    return evtc_usage_error(program, "unknown option '%s'", a);
}

int evtc_next_arg(evtc_args *args, evtc_arg *arg)
{
    if (args->next >= args->argc)
        return 0;
    const char *a = args->argv[args->next++];
    *arg = (evtc_arg){a, 0, NULL};
    if (a[0] != '-' || a[1] == '\0') {
        arg->value = a;
        return 1;
    }
    for (const evtc_valued *v = args->valued; v->name; v++) {
        size_t len = strlen(v->name);
        if (strncmp(a, v->name, len) != 0 || (a[len] != '\0' && a[len] != '='))
            continue;
        arg->name_len = len;
        if (a[len] == '=') {
            arg->value = a + len + 1;
            return 1;
        }
        /* a value may be a negative number ("--gemm -1,5,5" is then refused
         * for its sign, not as a missing value); no option starts "-<digit>" */
        const char *next = args->next < args->argc ? args->argv[args->next] : NULL;
        if (next && (next[0] != '-' || next[1] == '\0' || (next[1] >= '0' && next[1] <= '9'))) {
            arg->value = next;
            args->next++;
            return 1;
        }
        return -evtc_usage_error(args->program, "%s needs a value: %s %s", v->name, v->name,
                                 v->what);
    }
    /* A flag, known or not; "--flag=x" keeps its '=' in the name, so that a
     * value given to a flag is reported as an unknown option. */
    arg->name_len = strlen(a);
    return 1;
}

/* ---- the source -------------------------------------------------------------- */

const char *evtc_source_name(const char *file)
{
    return strcmp(file, "-") == 0 ? "<stdin>" : file;
}

/* The exit status of a failed parse: EXIT_INVALID when the source or the
 * file is at fault, EXIT_OUTSIDE otherwise. */
static int parse_exit(evt_status st)
{
    return st == EVT_ERR_SOURCE || st == EVT_ERR_IO || st == EVT_ERR_LIMIT ? EXIT_INVALID
                                                                          : EXIT_OUTSIDE;
}

/* The library refuses sources over 256 MiB (docs/language.md, Limits) with
 * EVT_ERR_LIMIT; one byte more than that is all it needs to say so, and
 * bounds what an endless pipe costs. */
enum { STDIN_LIMIT = (256 << 20) + 1 };

/* All of standard input, up to STDIN_LIMIT bytes, into *text (malloc'ed)
 * and *len; 0 or an exit status. */
static int read_stdin(const char *program, char **text, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    while (buf && n < STDIN_LIMIT) {
        if (n == cap) {
            cap = 2 * cap < STDIN_LIMIT ? 2 * cap : STDIN_LIMIT;
            char *grown = realloc(buf, cap);
            if (!grown)
                free(buf);
            buf = grown;
            continue;
        }
        size_t got = fread(buf + n, 1, cap - n, stdin);
        if (got == 0)
            break;
        n += got;
    }
    if (!buf) {
        fprintf(stderr, "%s: error: out of memory reading <stdin>\n", program);
        return EXIT_OUTSIDE;
    }
    if (ferror(stdin)) {
        fprintf(stderr, "%s: error: <stdin>: read error: %s\n", program, strerror(errno));
        free(buf);
        return EXIT_INVALID;
    }
    *text = buf;
    *len = n;
    return 0;
}

int evtc_load(evt_ctx *ctx, const char *program, const char *file, evt_diag_format format,
              evt_module **m)
{
    evt_status st;
    *m = NULL;
    if (strcmp(file, "-") == 0) {
        char *text = NULL;
        size_t len = 0;
        int rc = read_stdin(program, &text, &len);
        if (rc)
            return rc;
        st = evt_module_parse_buffer(ctx, evtc_source_name(file), text, len, m);
        free(text);
    } else {
        st = evt_module_parse_file(ctx, file, m);
    }
    if (*m)
        fputs(evt_module_diag_text(*m, format), stderr);
    if (st != EVT_OK && !*m)
        fprintf(stderr, "%s: error: %s\n", program, evt_ctx_last_error(ctx));
    return st == EVT_OK ? 0 : parse_exit(st);
}

/* ---- progress ---------------------------------------------------------------- */

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void evtc_progress_init(evtc_progress *p, const char *program, int forced, int steps)
{
    *p = (evtc_progress){program, forced || isatty(STDERR_FILENO), 0, steps, 0};
}

void evtc_progress_begin(evtc_progress *p, const char *fmt, ...)
{
    p->step++;
    if (!p->on)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: [%d/%d] ", p->program, p->step, p->steps);
    vfprintf(stderr, fmt, ap);
    fputs(" ... ", stderr);
    fflush(stderr);
    va_end(ap);
    p->start = seconds_now();
}

void evtc_progress_end(evtc_progress *p, int ok)
{
    if (!p->on)
        return;
    if (ok)
        fprintf(stderr, "%.2f s\n", seconds_now() - p->start);
    else
        fputs("failed\n", stderr);
}

/* ---- numbers and the environment ------------------------------------------------ */

int evtc_parse_count(const char *s, long long *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return 0;
    *out = v;
    return 1;
}

/* Whether environment variable `name` is set to something other than "" or "0". */
static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

int evtc_tuning_from_env(evt_ctx *ctx, const char *program)
{
    evt_tuning t = {.config = getenv("EVT_CONFIG")};
    t.ignore_records = env_flag("EVT_IGNORE_TUNING_RECORDS");
    /* as evt_tuning.shared_epilogue: a number, 0 (or unset, or empty) the
     * default placement, a positive one the shared tile, a negative one the
     * registers wherever they can ("-0" is 0) */
    const char *se = getenv("EVT_SHARED_EPILOGUE");
    if (se && *se) {
        long long sv = 0;
        if (!evtc_parse_count(se[0] == '-' ? se + 1 : se, &sv)) {
            fprintf(stderr, "%s: error: EVT_SHARED_EPILOGUE takes a number: 0 the default placement, a positive "
                            "one the shared tile, a negative one the registers (got '%s')\n",
                    program, se);
            return 0;
        }
        t.shared_epilogue = sv == 0 ? 0 : se[0] == '-' ? -1 : 1;
    }
    const char *split = getenv("EVT_SPLITK"), *group = getenv("EVT_ROW_GROUP"), *sk = getenv("EVT_STREAMK");
    long long v[3] = {0, 0, 0};
    if ((split && *split && !evtc_parse_count(split, &v[0])) ||
        (group && *group && !evtc_parse_count(group, &v[1])) || (sk && *sk && !evtc_parse_count(sk, &v[2])) ||
        v[0] > INT_MAX || v[1] > INT_MAX || v[2] > INT_MAX) {
        fprintf(stderr, "%s: error: EVT_SPLITK, EVT_ROW_GROUP and EVT_STREAMK take a number\n", program);
        return 0;
    }
    t.split_k = (int)v[0];
    t.row_group = (int)v[1];
    t.stream_k = (int)v[2];
    const char *nvrtc = getenv("EVT_NVRTC_LIBRARY"), *driver = getenv("EVT_CUDA_DRIVER");
    if (evt_ctx_set_tuning(ctx, &t) != EVT_OK ||
        evt_ctx_set_library_path(ctx, EVT_LIBRARY_NVRTC, nvrtc) != EVT_OK ||
        evt_ctx_set_library_path(ctx, EVT_LIBRARY_CUDA_DRIVER, driver) != EVT_OK) {
        fprintf(stderr, "%s: error: %s\n", program, evt_ctx_last_error(ctx));
        return 0;
    }
    return 1;
}
