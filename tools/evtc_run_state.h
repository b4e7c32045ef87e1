/* evtc_run_state.h - what evtc_run.c (`evtc run` and `evtc tune`) and
 * evtc_check.c (its --check) share: the options, the buffers and the
 * run's state, the draw of random values, and the report of a failed
 * library call. */
#ifndef EVTC_RUN_STATE_H
#define EVTC_RUN_STATE_H

#include "evtc_common.h"

#include "../support/splitmix.h"

#include <evt/evt.h>

#include <stddef.h>
#include <stdio.h>

typedef struct param_setting {
    const char *name;
    float value;
} param_setting;

typedef struct run_options {
    const char *prog; /* "evtc run" or "evtc tune": its messages' prefix */
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

/* Prints the message of a failed library call and returns the exit status
 * it means (evtc_common.h): EXIT_INVALID for the source's or the
 * arguments' fault, else EXIT_OUTSIDE. */
static inline int evtc_run_failed(run *r, evt_status st, const char *what)
{
    if (st == EVT_ERR_COMPILE && r->m)
        fputs(evt_module_diag_text(r->m, EVT_DIAG_TEXT), stderr);
    const char *msg = evt_ctx_last_error(r->ctx);
    if (st == EVT_ERR_NO_GPU)
        fprintf(stderr, "%s: error: no GPU: %s\n", r->o->prog, msg[0] ? msg : evt_status_string(st));
    else
        fprintf(stderr, "%s: error: %s: %s\n", r->o->prog, what, msg[0] ? msg : evt_status_string(st));
    return st == EVT_ERR_SOURCE || st == EVT_ERR_INVALID_ARGUMENT || st == EVT_ERR_NOT_FOUND ||
                   st == EVT_ERR_UNSUPPORTED || st == EVT_ERR_UNBOUND
               ? EXIT_INVALID
               : EXIT_OUTSIDE;
}

#endif
