/* conv_geometry.c - a conv2d's output size, the public evt_conv_output_size:
 * the launch API, the reference and evtc all size outputs by it, so it sits
 * below them all. */
#include "conv_geometry.h"
#include "checked.h"

#include <stdarg.h>
#include <stdio.h>

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static evt_status refuse(char *why, size_t why_len, const char *fmt, ...)
{
    if (why && why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return EVT_ERR_INVALID_ARGUMENT;
}

/* One side's output size: (in + 2 pad - ((filter - 1) dil + 1)) / stride + 1,
 * each step checked, since in and filter are caller-chosen 64-bit values. */
static evt_status side(long long in, long long filter, int pad, int stride, int dil,
                       const char *in_name, const char *filter_name, long long *out, char *why,
                       size_t why_len)
{
    long long extent, padded;
    if (!ck_mul(filter - 1, dil, &extent) || !ck_add(extent, 1, &extent))
        return refuse(why, why_len, "%s = %lld with dilation %d: the filter's extent overflows",
                      filter_name, filter, dil);
    if (!ck_add(in, 2LL * pad, &padded))
        return refuse(why, why_len, "%s = %lld with padding %d: the padded input overflows",
                      in_name, in, pad);
    if (extent > padded)
        return refuse(why, why_len,
                      "the dilated filter (%s = %lld, dilation %d: %lld) is larger than the "
                      "padded input (%s = %lld, padding %d: %lld)",
                      filter_name, filter, dil, extent, in_name, in, pad, padded);
    *out = (padded - extent) / stride + 1;
    return EVT_OK;
}

evt_status conv_output_size_why(const evt_conv_problem *c, long long *p, long long *q, char *why,
                                size_t why_len)
{
    if (!c || !p || !q)
        return refuse(why, why_len, "the problem, p and q are required");
    const struct {
        const char *name;
        long long value, least;
    } limits[] = {{"n", c->n, 1},          {"h", c->h, 1},           {"w", c->w, 1},
                  {"c", c->c, 1},          {"k", c->k, 1},           {"r", c->r, 1},
                  {"s", c->s, 1},          {"pad_h", c->pad_h, 0},   {"pad_w", c->pad_w, 0},
                  {"stride_h", c->stride_h, 1}, {"stride_w", c->stride_w, 1},
                  {"dil_h", c->dil_h, 1},  {"dil_w", c->dil_w, 1}};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        if (limits[i].value < limits[i].least)
            return refuse(why, why_len, "%s = %lld: it must be %lld or more", limits[i].name,
                          limits[i].value, limits[i].least);
    long long pp, qq;
    evt_status st = side(c->h, c->r, c->pad_h, c->stride_h, c->dil_h, "h", "r", &pp, why, why_len);
    if (st == EVT_OK)
        st = side(c->w, c->s, c->pad_w, c->stride_w, c->dil_w, "w", "s", &qq, why, why_len);
    if (st != EVT_OK)
        return st;
    *p = pp;
    *q = qq;
    return EVT_OK;
}

evt_status evt_conv_output_size(const evt_conv_problem *c, long long *p, long long *q)
{
    return conv_output_size_why(c, p, q, NULL, 0);
}
