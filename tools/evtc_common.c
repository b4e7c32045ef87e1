/* evtc_common.c - see evtc_common.h. */
#include "evtc_common.h"

#include <stdio.h>

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
