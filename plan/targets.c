/* targets.c - what each target can do, as data.
 *
 * smem_per_block is the most dynamic shared memory a CTA may opt into
 * (cudaFuncAttributeMaxDynamicSharedMemorySize): 163 KB on sm_80, 99 KB on
 * sm_86 and sm_89, 227 KB on sm_90a (the CUDA C Programming Guide's
 * compute-capability table).  sms_default is a common part's SM count (A100,
 * A10/A40-class 84, RTX 4090's 128, H100 SXM's 132); it matters only where no
 * device says how many there are, i.e. which configurations --emit lists. */
#include "plan.h"

static const plan_target targets[EVT_TARGET_COUNT] = {
    [EVT_TARGET_SM80] = {EVT_TARGET_SM80, 80, 0, 0, 0, 163 * 1024, 108},
    [EVT_TARGET_SM86] = {EVT_TARGET_SM86, 86, 0, 0, 0, 99 * 1024, 84},
    [EVT_TARGET_SM89] = {EVT_TARGET_SM89, 89, 0, 0, 1, 99 * 1024, 128},
    [EVT_TARGET_SM90A] = {EVT_TARGET_SM90A, 90, 1, 1, 1, 227 * 1024, 132},
};

const plan_target *plan_target_info(evt_target t)
{
    return (unsigned)t < EVT_TARGET_COUNT ? &targets[t] : NULL;
}
