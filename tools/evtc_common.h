/* evtc_common.h - what evtc's subcommands share: exit statuses, error
 * reporting and the tuning environment variables.  evtc.c (main, and compiling) and evtc_run.c (`evtc run`) both
 * use this file and nothing of each other's, except that main dispatches
 * `run` to evtc_run (evtc_run.h). */
#ifndef EVTC_COMMON_H
#define EVTC_COMMON_H

#include <evt/evt.h>

/* evtc's exit statuses (every subcommand): 0 success, then these. */
enum { EXIT_INVALID = 1, EXIT_OUTSIDE = 2, EXIT_MISMATCH = 3 };

/* Prints "PROGRAM: error: " then fmt with arg, then where --help is, to
 * standard error; returns EXIT_INVALID.  PROGRAM: "evtc" or "evtc run". */
int evtc_usage_error(const char *program, const char *fmt, const char *arg);

/* The exit status of a failed evt_module_parse_file: EXIT_INVALID when the
 * source or the file is at fault, EXIT_OUTSIDE otherwise. */
int evtc_parse_exit(evt_status st);

/* A whole decimal number (digits only) into *out; 0 if s is not one or overflows. */
int evtc_parse_count(const char *s, long long *out);

/* Sets ctx's tuning (evt_ctx_set_tuning) from the environment: EVT_CONFIG
 * (a tile configuration by name), EVT_SPLITK (evt_tuning.split_k: 0 the
 * planner's, 1 never, n >= 2 ways) and EVT_ROW_GROUP (rows per epilogue row
 * group), and where NVRTC and the CUDA driver are loaded from
 * (EVT_NVRTC_LIBRARY, EVT_CUDA_DRIVER: evt_ctx_set_library_path).  The
 * library itself reads none of them.  0, with the reason on
 * standard error, when one is malformed or names no configuration. */
int evtc_tuning_from_env(evt_ctx *ctx);

#endif
