/* evtc_common.c - see evtc_common.h. */
#include "evtc_common.h"

#include <stdio.h>
#include <stdlib.h>

int evtc_usage_error(const char *program, const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: error: ", program);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see %s --help)\n", program);
    return EXIT_INVALID;
}

int evtc_parse_exit(evt_status st)
{
    return st == EVT_ERR_SOURCE || st == EVT_ERR_IO || st == EVT_ERR_LIMIT ? EXIT_INVALID
                                                                          : EXIT_OUTSIDE;
}

/* A whole decimal number; 0 when s is not one. */
static int number(const char *s, int *out)
{
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || v < 0 || v > 1 << 20)
        return 0;
    *out = (int)v;
    return 1;
}

int evtc_tuning_from_env(evt_ctx *ctx)
{
    evt_tuning t = {getenv("EVT_CONFIG"), 0, 0};
    const char *split = getenv("EVT_SPLITK"), *group = getenv("EVT_ROW_GROUP");
    if ((split && *split && !number(split, &t.split_k)) || (group && *group && !number(group, &t.row_group))) {
        fprintf(stderr, "evtc: EVT_SPLITK and EVT_ROW_GROUP take a number\n");
        return 0;
    }
    const char *nvrtc = getenv("EVT_NVRTC_LIBRARY"), *driver = getenv("EVT_CUDA_DRIVER");
    if (evt_ctx_set_tuning(ctx, &t) != EVT_OK ||
        evt_ctx_set_library_path(ctx, EVT_LIBRARY_NVRTC, nvrtc) != EVT_OK ||
        evt_ctx_set_library_path(ctx, EVT_LIBRARY_CUDA_DRIVER, driver) != EVT_OK) {
        fprintf(stderr, "evtc: %s\n", evt_ctx_last_error(ctx));
        return 0;
    }
    return 1;
}
