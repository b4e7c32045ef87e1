/* alias.c - buffer footprints, their overlap, and the aliasing rule. */
#include "alias.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

void alias_footprint(alias_buf *b, const void *ptr, long long rows, long long cols, long long ld,
                     size_t esize)
{
    b->base = (unsigned long long)(uintptr_t)ptr;
    b->rows = b->width = b->pitch = b->len = 0;
    if (rows <= 0 || cols <= 0)
        return;
    unsigned long long width, pitch, len;
    if (__builtin_mul_overflow((unsigned long long)cols, esize, &width))
        width = ULLONG_MAX;
    if (rows == 1 || ld < cols || __builtin_mul_overflow((unsigned long long)ld, esize, &pitch))
        pitch = width;
    if (__builtin_mul_overflow((unsigned long long)(rows - 1), pitch, &len) ||
        __builtin_add_overflow(len, width, &len))
        len = ULLONG_MAX;
    b->rows = (unsigned long long)rows;
    b->width = width;
    b->pitch = pitch;
    b->len = len;
}

int alias_overlap(const alias_buf *a, const alias_buf *b)
{
    if (!a->len || !b->len)
        return 0;
    if (a->base > b->base) {
        const alias_buf *t = a;
        a = b;
        b = t;
    }
    /* b starts d bytes into a's span (a's end saturates rather than wraps) */
    const unsigned long long d = b->base - a->base;
    if (d >= a->len)
        return 0;
    if (a->rows == 1 && b->rows == 1)
        return 1;
    /* One row lies in another buffer's pitch as well as in its own. */
    const unsigned long long p = a->rows > 1 ? a->pitch : b->pitch;
    if ((a->rows > 1 && b->rows > 1 && a->pitch != b->pitch) || a->width > p || b->width > p)
        return 1;
    /*
     * Row r of a is [r p, r p + wa) and row s of b [d + s p, d + s p + wb):
     * they meet where k = r - s has d - wa < k p < d + wb.  As d >= 0 and
     * wa <= p, only k >= 0 qualifies (r = k, s = 0, so k < a's rows), and
     * with d = k0 p + rem only k0 (rem < wa) and k0 + 1 (p - rem < wb).
     */
    const unsigned long long k0 = d / p, rem = d % p;
    return (k0 < a->rows && rem < a->width) || (k0 + 1 < a->rows && p - rem < b->width);
}

static void label(const alias_buf *b, char *out, size_t len)
{
    if (b->name)
        snprintf(out, len, "%s '%s'", b->what, b->name);
    else
        snprintf(out, len, "%s", b->what);
}

/* The exception: an [M, N] output written over an [M, N] input in place. */
static int in_place(const alias_buf *a, const alias_buf *b)
{
    return a->mn && b->mn && a->written != b->written && a->base == b->base &&
           a->elem == b->elem && a->ld == b->ld;
}

int alias_check(const alias_buf *bufs, size_t n, char *msg, size_t len)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const alias_buf *a = &bufs[i], *b = &bufs[j];
            if ((!a->written && !b->written) || !alias_overlap(a, b) || in_place(a, b))
                continue;
            if (!a->written) { /* the written one first */
                const alias_buf *t = a;
                a = b;
                b = t;
            }
            char la[160], lb[160];
            label(a, la, sizeof la);
            label(b, lb, sizeof lb);
            if (a->mn && b->mn && !b->written)
                snprintf(msg, len,
                         "%s overlaps %s without being the same buffer (writing in place takes "
                         "the same pointer, element type and leading dimension)",
                         la, lb);
            else
                snprintf(msg, len, "%s overlaps %s", la, lb);
            return 1;
        }
    return 0;
}
