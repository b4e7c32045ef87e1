/* evtc_common.c - see evtc_common.h. */
#include "evtc_common.h"

#include <errno.h>
#include <limits.h>
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

int evtc_parse_count(const char *s, long long *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return 0;
    *out = v;
    return 1;
}

int evtc_tuning_from_env(evt_ctx *ctx)
{
    evt_tuning t = {getenv("EVT_CONFIG"), 0, 0};
    const char *split = getenv("EVT_SPLITK"), *group = getenv("EVT_ROW_GROUP");
    long long v[2] = {0, 0};
    if ((split && *split && !evtc_parse_count(split, &v[0])) ||
        (group && *group && !evtc_parse_count(group, &v[1])) || v[0] > INT_MAX || v[1] > INT_MAX) {
        fprintf(stderr, "evtc: EVT_SPLITK and EVT_ROW_GROUP take a number\n");
        return 0;
    }
    t.split_k = (int)v[0];
    t.row_group = (int)v[1];
    const char *nvrtc = getenv("EVT_NVRTC_LIBRARY"), *driver = getenv("EVT_CUDA_DRIVER");
    if (evt_ctx_set_tuning(ctx, &t) != EVT_OK ||
        evt_ctx_set_library_path(ctx, EVT_LIBRARY_NVRTC, nvrtc) != EVT_OK ||
        evt_ctx_set_library_path(ctx, EVT_LIBRARY_CUDA_DRIVER, driver) != EVT_OK) {
        fprintf(stderr, "evtc: %s\n", evt_ctx_last_error(ctx));
        return 0;
    }
    return 1;
}
