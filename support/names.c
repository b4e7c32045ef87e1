/* names.c - enum spellings; see names.h. */
#include "names.h"

#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *evt_version(void)
{
    return EVT_VERSION_STRING;
}

int evt_version_number(void)
{
    return EVT_VERSION_NUMBER;
}

const char *evt_status_string(evt_status status)
{
    switch (status) {
    case EVT_OK: return "success";
    case EVT_ERR_SOURCE: return "invalid source";
    case EVT_ERR_INVALID_ARGUMENT: return "invalid argument";
    case EVT_ERR_NOT_FOUND: return "not found";
    case EVT_ERR_IO: return "input/output error";
    case EVT_ERR_NO_MEMORY: return "out of memory";
    case EVT_ERR_LIMIT: return "size limit exceeded";
    case EVT_ERR_COMPILE: return "compilation failed";
    case EVT_ERR_UNSUPPORTED: return "not supported";
    case EVT_ERR_NO_GPU: return "no GPU";
    case EVT_ERR_DRIVER: return "CUDA driver error";
    case EVT_ERR_UNBOUND: return "launch argument not set";
    case EVT_ERR_BAD_BUFFER: return "bad launch buffer";
    case EVT_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *evt_elem_name(evt_elem elem)
{
    static const char *const names[] = {"f32", "f16", "bf16", "i8", "i32", "e4m3", "e5m2"};
    return (unsigned)elem < COUNT(names) ? names[elem] : "?";
}

size_t evt_elem_size(evt_elem elem)
{
    static const size_t sizes[] = {4, 2, 2, 1, 4, 1, 1};
    return (unsigned)elem < COUNT(sizes) ? sizes[elem] : 0;
}

const char *evt_shape_name(evt_shape shape)
{
    static const char *const names[] = {"", "[M]", "[N]", "[M, N]"};
    return (unsigned)shape < COUNT(names) ? names[shape] : "?";
}

const char *evt_mainloop_name(evt_mainloop mainloop)
{
    switch (mainloop) {
    case EVT_MAINLOOP_GEMM: return "gemm";
    case EVT_MAINLOOP_CONV2D_FPROP: return "conv2d_fprop";
    }
    return "?";
}

const char *names_layout(evt_layout layout)
{
    switch (layout) {
    case EVT_LAYOUT_NONE: return "";
    case EVT_LAYOUT_ROW: return "row";
    case EVT_LAYOUT_COL: return "col";
    }
    return "?";
}

int names_layout_parse(const char *name, evt_layout *out)
{
    for (evt_layout l = EVT_LAYOUT_ROW; l <= EVT_LAYOUT_COL; l++)
        if (strcmp(name, names_layout(l)) == 0) {
            *out = l;
            return 1;
        }
    return 0;
}

const char *names_reduce(evt_reduce reduce)
{
    switch (reduce) {
    case EVT_REDUCE_NONE: return "";
    case EVT_REDUCE_SUM: return "reduce_sum";
    case EVT_REDUCE_MAX: return "reduce_max";
    case EVT_REDUCE_MIN: return "reduce_min";
    }
    return "?";
}

/* One row per target: how evt.h spells it, and how entry points end. */
static const struct {
    const char *name, *suffix;
} targets[EVT_TARGET_COUNT] = {
    [EVT_TARGET_SM80] = {"sm_80", "sm80"},
    [EVT_TARGET_SM86] = {"sm_86", "sm86"},
    [EVT_TARGET_SM89] = {"sm_89", "sm89"},
    [EVT_TARGET_SM90A] = {"sm_90a", "sm90a"},
};

const char *evt_target_name(evt_target target)
{
    return (unsigned)target < EVT_TARGET_COUNT ? targets[target].name : "?";
}

const char *names_target_suffix(evt_target target)
{
    return (unsigned)target < EVT_TARGET_COUNT ? targets[target].suffix : "?";
}

evt_status evt_target_parse(const char *name, evt_target *out)
{
    for (int t = 0; name && out && t < EVT_TARGET_COUNT; t++)
        if (strcmp(name, targets[t].name) == 0) {
            *out = (evt_target)t;
            return EVT_OK;
        }
    return EVT_ERR_INVALID_ARGUMENT;
}
