/* evtc_common.h - what evtc's subcommands share: exit statuses and error
 * reporting.  evtc.c (main, and compiling) and evtc_run.c (`evtc run`) both
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

#endif
