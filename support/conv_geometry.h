/* conv_geometry.h - evt_conv_output_size with the reason for a refusal, for
 * callers that hold a context to put it in (the launch API). */
#ifndef EVT_SUPPORT_CONV_GEOMETRY_H
#define EVT_SUPPORT_CONV_GEOMETRY_H

#include <evt/evt.h>
#include <stddef.h>

/* As evt_conv_output_size; on a refusal, one sentence naming the value in
 * why (why_len bytes; why may be NULL). */
evt_status conv_output_size_why(const evt_conv_problem *c, long long *p, long long *q, char *why,
                                size_t why_len);

#endif
