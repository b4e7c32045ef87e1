/* evtc_common.h - what evtc's subcommands share: exit statuses, error
 * reporting, the command-line conventions of shared/spec/cli.md (options
 * with values, `-` for standard input, progress lines) and the tuning
 * environment variables.  evtc.c (main, and compiling) and evtc_run.c
 * (`evtc run`) both use this file and nothing of each other's, except that
 * main dispatches `run` to evtc_run (evtc_run.h). */
#ifndef EVTC_COMMON_H
#define EVTC_COMMON_H

#include <evt/evt.h>

#include <stddef.h>

/* evtc's exit statuses (every subcommand): 0 success, then these. */
enum { EXIT_INVALID = 1, EXIT_OUTSIDE = 2, EXIT_MISMATCH = 3 };

/* Prints "PROGRAM: error: ", fmt and its arguments, then where --help is,
 * to standard error; returns EXIT_INVALID.  PROGRAM: "evtc" or "evtc run". */
__attribute__((format(printf, 2, 3)))
int evtc_usage_error(const char *program, const char *fmt, ...);

/* ---- the command line ------------------------------------------------------ */

/* An option that takes a value, and how its value is written in messages. */
typedef struct evtc_valued {
    const char *name; /* "--emit", "-o" */
    const char *what; /* "ir|dot|cuda|ptx|cubin", "PATH" */
} evtc_valued;

/* A subcommand's arguments, read one at a time by evtc_next_arg. */
typedef struct evtc_args {
    const char *program;        /* "evtc", "evtc run": the prefix of errors */
    const evtc_valued *valued;  /* the options that take a value; ends with {NULL, NULL} */
    int argc;
    char **argv;
    int next; /* the index of the next argument */
} evtc_args;

/* One argument as evtc_next_arg splits it. */
typedef struct evtc_arg {
    const char *text;  /* the argument as given (for "--opt VALUE", the "--opt") */
    size_t name_len;   /* an option: the length of its name in text; an operand: 0 */
    const char *value; /* an option's value (NULL for a flag); an operand: text */
} evtc_arg;

/*
 * Reads the next argument.  An option that takes a value accepts both
 * "--opt=VALUE" and "--opt VALUE"; in the second form a following argument
 * that starts with '-' is the next option, not a value, unless it is "-"
 * itself (standard input or output), so a forgotten value is reported
 * rather than taken from the next option.  "-" and anything not starting
 * with '-' are operands.  Returns 1 with *arg set, 0 past the last
 * argument, or EXIT_INVALID's negation after printing why (a value missing,
 * or given to an option that takes none).  Unknown options come back as
 * options: the caller, which knows its flags, reports them.
 */
int evtc_next_arg(evtc_args *args, evtc_arg *arg);

/* Whether arg is the option `name`. */
int evtc_arg_is(const evtc_arg *arg, const char *name);

/* The level of -O0, -O1 or -O2; -1 when arg is another argument. */
int evtc_opt_level(const evtc_arg *arg);

/* Reports that `file`'s module m has no kernel `name`, naming the kernels
 * it has (and, where `name` is an epilogue's, saying so); returns
 * EXIT_INVALID. */
int evtc_no_kernel(const char *program, const char *file, const evt_module *m, const char *name);

/* Reports option a as unknown (an -O of another level names the levels
 * there are) and returns EXIT_INVALID. */
int evtc_unknown_option(const char *program, const char *a);

/* ---- the source -------------------------------------------------------------- */

/* The name diagnostics give FILE: "<stdin>" for "-", else FILE itself. */
const char *evtc_source_name(const char *file);

/*
 * Parses FILE ("-": standard input) into *m and prints its diagnostics, in
 * `format`, to standard error; returns 0 or the exit status of the failure
 * (printed, prefixed by PROGRAM).  *m may be set even on failure, to the
 * module holding the diagnostics: destroy it in either case.
 */
int evtc_load(evt_ctx *ctx, const char *program, const char *file, evt_diag_format format,
              evt_module **m);

/* ---- progress ---------------------------------------------------------------- */

/*
 * Progress lines on standard error, one per slow step (an NVRTC compile):
 * "PROGRAM: [i/n] WHAT ... 1.23 s".  On when standard error is a terminal
 * or the subcommand's --progress forces it; never on standard output, so
 * pipes of the output stay clean.
 */
typedef struct evtc_progress {
    const char *program;
    int on;
    int step, steps;
    double start; /* seconds, of the step under way */
} evtc_progress;

void evtc_progress_init(evtc_progress *p, const char *program, int forced, int steps);
/* Starts the next step: prints the line up to "... ", WHAT being fmt and its arguments. */
__attribute__((format(printf, 2, 3)))
void evtc_progress_begin(evtc_progress *p, const char *fmt, ...);
/* Ends the line: the step's time, or "failed"; before any error message about it. */
void evtc_progress_end(evtc_progress *p, int ok);

/* ---- numbers and the environment ------------------------------------------------ */

/* A whole decimal number (digits only) into *out; 0 if s is not one or overflows. */
int evtc_parse_count(const char *s, long long *out);

/* Sets ctx's tuning (evt_ctx_set_tuning) from the environment: EVT_CONFIG
 * (a tile configuration by name), EVT_SPLITK (evt_tuning.split_k: 0 the
 * planner's, 1 never, n >= 2 ways) and EVT_ROW_GROUP (rows per epilogue row
 * group), and where NVRTC and the CUDA driver are loaded from
 * (EVT_NVRTC_LIBRARY, EVT_CUDA_DRIVER: evt_ctx_set_library_path).  The
 * library itself reads none of them.  0, with the reason on
 * standard error after `program`, when one is malformed or names no
 * configuration. */
int evtc_tuning_from_env(evt_ctx *ctx, const char *program);

#endif
