/* evtc_check.h - `evtc run --check` (tools/evtc_check.c): every output of
 * a run against libevt's f64 reference, with the looks that judge values
 * off where the epilogue is singular or f32's own (docs/runtime.md). */
#ifndef EVTC_CHECK_H
#define EVTC_CHECK_H

#include "evtc_run_state.h"

/* Checks run r's outputs, after its launch, against the reference; prints a
 * line per output and the verdict.  0, EXIT_MISMATCH or an error's exit
 * status (evtc_common.h). */
int evtc_run_check(run *r);

#endif
