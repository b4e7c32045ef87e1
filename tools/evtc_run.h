/* evtc_run.h - `evtc run` and `evtc tune`, the GPU half of evtc (tools/evtc_run.c). */
#ifndef EVTC_RUN_H
#define EVTC_RUN_H

/* Runs `evtc run ARGS...`: argv[0] is "run".  Returns evtc's exit status
 * (evtc_common.h): 0 success, 1 invalid source or arguments, 2 a failure
 * outside the source (no GPU, driver, NVRTC), 3 --check found a mismatch. */
int evtc_run(int argc, char **argv);
/* Runs `evtc tune ARGS...` (argv[0] is "tune"): evtc run's set-up, then
 * evt_launch_tune.  Exit statuses as evtc_run's. */
int evtc_tune(int argc, char **argv);

#endif
