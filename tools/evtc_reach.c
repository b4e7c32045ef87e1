/* evtc_reach.c - see evtc_reach.h. */
#include "evtc_reach.h"

#include "evtc_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

float evtc_stored(evt_elem elem, double v)
{
    unsigned char b[8];
    float f;
    evt_convert_from_f64(elem, &v, b, 1);
    evt_convert_to_f32(elem, b, &f, 1);
    return f;
}

void evtc_reach_add(evtc_reach *h, int rounded, evt_elem elem, double v)
{
    double f = rounded ? evtc_stored(elem, v) : v;
    if (isnan(f))
        h->nan = 1;
    else if (isinf(f))
        *(f > 0 ? &h->pinf : &h->ninf) = 1;
    else {
        h->least = fmin(h->least, f);
        h->most = fmax(h->most, f);
    }
}

/* The reference at s[g] (s NULL: the one s1) into h; each cell's class
 * (of the unrounded value) into cls: 0 not finite, 1 negative, 2 not:
 * a change of class from one point to the next is an edge. */
static int point(size_t cells, const double *s, double s1, int rounded, evt_elem elem, evtc_reach_eval eval,
                 void *user, double *at, double *y, evtc_reach *h, unsigned char *cls)
{
    for (size_t g = 0; g < cells; g++)
        at[g] = s ? s[g] : s1;
    int rc = eval(user, at, y, cells);
    for (size_t g = 0; !rc && g < cells; g++) {
        evtc_reach_add(&h[g], rounded, elem, y[g]);
        cls[g] = !isfinite(y[g]) ? 0 : y[g] < 0 ? 1 : 2;
    }
    return rc;
}

int evtc_reach_over(const char *prog, size_t cells, int rounded, evt_elem elem, evtc_reach_eval eval, void *user,
                    evtc_reach *h)
{
    /* s_in / s_out: a halving's ends, s_in on the side of the point before
     * the edge (its class cls_in), s_out beyond (NaN: no edge); cls0 the
     * classes at s = 0, cls the last point's, now this one's */
    double *at = calloc(cells + 1, sizeof *at), *y = malloc((cells + 1) * sizeof *y);
    double *s_in = malloc((cells + 1) * sizeof *s_in), *s_out = malloc((cells + 1) * sizeof *s_out);
    double *mid = malloc((cells + 1) * sizeof *mid);
    unsigned char *cls0 = malloc(cells + 1), *cls = malloc(cells + 1), *now = malloc(cells + 1);
    unsigned char *cls_in = malloc(cells + 1);
    int rc = 0;
    if (!at || !y || !s_in || !s_out || !mid || !cls0 || !cls || !now || !cls_in) {
        fprintf(stderr, "%s: error: out of memory for the reference\n", prog);
        rc = EXIT_OUTSIDE;
    }
    for (size_t g = 0; !rc && g < cells; g++)
        h[g] = (evtc_reach){.least = INFINITY, .most = -INFINITY};
    if (!rc)
        rc = point(cells, NULL, 0, rounded, elem, eval, user, at, y, h, cls0);
    for (int side = -1; !rc && side <= 1; side += 2) {
        memcpy(cls, cls0, cells);
        for (size_t g = 0; g < cells; g++)
            s_out[g] = NAN;
        double prev = 0;
        for (int k = EVTC_REACH_POWERS; !rc && k >= 0; k--) {
            double s = side * ldexp(1, -k);
            rc = point(cells, NULL, s, rounded, elem, eval, user, at, y, h, now);
            for (size_t g = 0; !rc && g < cells; g++) {
                if (now[g] != cls[g] && isnan(s_out[g])) {
                    s_in[g] = prev;
                    s_out[g] = s;
                    cls_in[g] = cls[g];
                }
                cls[g] = now[g];
            }
            prev = s;
        }
        for (int t = 0; !rc && t < EVTC_REACH_HALVINGS; t++) {
            for (size_t g = 0; g < cells; g++)
                mid[g] = isnan(s_out[g]) ? 0 : 0.5 * (s_in[g] + s_out[g]);
            rc = point(cells, mid, 0, rounded, elem, eval, user, at, y, h, now);
            for (size_t g = 0; !rc && g < cells; g++)
                if (!isnan(s_out[g]))
                    *(now[g] == cls_in[g] ? &s_in[g] : &s_out[g]) = mid[g];
        }
    }
    free(at);
    free(y);
    free(s_in);
    free(s_out);
    free(mid);
    free(cls0);
    free(cls);
    free(now);
    free(cls_in);
    return rc;
}

int evtc_reach_holds(const evtc_reach *h, evt_elem elem, double y, double tol, double floor)
{
    if (isnan(y))
        return h->nan;
    if (isinf(y))
        return y > 0 ? h->pinf : h->ninf;
    if (h->least > h->most)
        return 0;
    if (elem == EVT_I8 || elem == EVT_I32)
        return y >= h->least - 1 && y <= h->most + 1;
    return y >= h->least - tol * fmax(fabs(h->least), floor) && y <= h->most + tol * fmax(fabs(h->most), floor);
}
