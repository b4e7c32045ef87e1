/* evtc_run.h - `evtc run`, the GPU half of evtc (tools/evtc_run.c). */
#ifndef EVTC_RUN_H
#define EVTC_RUN_H

/* evtc's exit statuses (both halves). */
enum { EXIT_INVALID = 1, EXIT_OUTSIDE = 2, EXIT_MISMATCH = 3 };

/* Prints "PROGRAM: error: " then fmt with arg, then where --help is, to
 * standard error; returns EXIT_INVALID.  PROGRAM: "evtc" or "evtc run". */
int evtc_usage_error(const char *program, const char *fmt, const char *arg);

/* Runs `evtc run ARGS...`: argv[0] is "run".  Returns evtc's exit status:
 * 0 success, 1 invalid source or arguments, 2 a failure outside the source
 * (no GPU, driver, NVRTC), 3 --check found a mismatch. */
int evtc_run(int argc, char **argv);

#endif
