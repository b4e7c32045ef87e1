/* launch.h - what the tuner (tune.c) needs of a launch (launch.c): the
 * problem its next run plans for, the source of a plan's entry points, its
 * key in the tuning database, and its tuning, which the tuner forces plan by
 * plan and restores. */
#ifndef EVT_API_LAUNCH_H
#define EVT_API_LAUNCH_H

#include "../runtime/driver.h"
#include "../runtime/tunedb.h"
#include "module.h"

typedef struct launch_view {
    evt_module *m;
    const ir_kernel *k;
    const plan_kernel *pk;
    rt_cu_context cu_ctx; /* the current CUDA context */
    api_tuning *tuning;   /* the launch's own: evt_launch_run plans with it */
} launch_view;

/* Validates l's arguments, loads the driver and describes the problem l's
 * next unforced run plans for on the current device (its operands' copies
 * where it repacks them), with that problem's key in the tuning database;
 * EVT_OK or the reason on the context.  The launch looks the tuning
 * database up again at its next run. */
evt_status launch_problem(evt_launch *l, launch_view *v, plan_problem *prob, rt_tune_key *key);
/* The CUDA source holding plan pl's entry points for l (kernel_generate). */
evt_status launch_source(evt_launch *l, const plan *pl, strbuf *src);
/* l's key in the tuning database for a problem with the fast path's alignment `aligned`. */
void launch_tune_key(const evt_launch *l, int aligned, rt_tune_key *key);
/* Tuning's timing of one run: `inner` runs in a CUDA graph, replayed reps
 * times (GPU time alone), after a run on `stream` that is done; 1 where
 * timed, 0 where it could not be, and the caller times run by run
 * (evt_launch_benchmark). */
int launch_time_replayed(evt_launch *l, void *stream, int inner, int reps, double *median_ms);

#endif
