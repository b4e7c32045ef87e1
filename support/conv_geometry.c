/* conv_geometry.c - a conv2d's output size, the public evt_conv_output_size:
 * the launch API, the reference and evtc all size outputs by it, so it sits
 * below them all. */
#include <evt/evt.h>

evt_status evt_conv_output_size(const evt_conv_problem *c, long long *p, long long *q)
{
    if (!c || !p || !q || c->n < 1 || c->h < 1 || c->w < 1 || c->c < 1 || c->k < 1 || c->r < 1 ||
        c->s < 1 || c->pad_h < 0 || c->pad_w < 0 || c->stride_h < 1 || c->stride_w < 1 ||
        c->dil_h < 1 || c->dil_w < 1)
        return EVT_ERR_INVALID_ARGUMENT;
    long long ph = c->h + 2LL * c->pad_h - (long long)c->dil_h * (c->r - 1) - 1;
    long long qw = c->w + 2LL * c->pad_w - (long long)c->dil_w * (c->s - 1) - 1;
    if (ph < 0 || qw < 0)
        return EVT_ERR_INVALID_ARGUMENT;
    *p = ph / c->stride_h + 1;
    *q = qw / c->stride_w + 1;
    return EVT_OK;
}
