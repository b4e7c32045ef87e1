/* alias.c - buffer footprints, their overlap, and the aliasing rule. */
#include "alias.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

void alias_footprint(alias_buf *b, const void *ptr, long long rows, long long cols, long long ld,
                     size_t esize)
{
    b->base = (unsigned long long)(uintptr_t)ptr;
    b->rows = b->width = b->pitch = b->len = b->stride = 0;
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

/* Shifts past this many are not tried one by one: the pair counts as
 * overlapping (a layout that interleaves thousands of problems' rows). */
enum { ALIAS_MAX_SHIFTS = 4096 };

/* b moved up by k * stride bytes into *out; 0 where that leaves the
 * address space (no buffer lies there). */
static int shifted(const alias_buf *b, unsigned long long k, unsigned long long stride, alias_buf *out)
{
    unsigned long long d;
    *out = *b;
    if (__builtin_mul_overflow(k, stride, &d) || __builtin_add_overflow(b->base, d, &out->base))
        return 0;
    return 1;
}

/* The bytes from b's first problem's start to its last's end (saturating). */
static unsigned long long hull_len(const alias_buf *b, unsigned long long count)
{
    unsigned long long span, len;
    if (__builtin_mul_overflow(count - 1, b->stride, &span) || __builtin_add_overflow(span, b->len, &len))
        return ULLONG_MAX;
    return len;
}

/* Whether fixed footprint f meets any of problems lo..hi of batched
 * footprint p (shifts of p->stride); the range clipped to where their
 * spans can meet first. */
static int meets_any(const alias_buf *f, const alias_buf *p, unsigned long long lo, unsigned long long hi)
{
    const unsigned long long d = p->stride;
    if (p->base < f->base) { /* problems below the one that can reach f */
        const unsigned long long gap = f->base - p->base;
        const unsigned long long first = gap >= p->len ? (gap - p->len) / d : 0;
        lo = first > lo ? first : lo;
    }
    unsigned long long end; /* f's end: problems starting at or past it miss f */
    if (__builtin_add_overflow(f->base, f->len, &end))
        end = ULLONG_MAX;
    if (end <= p->base)
        return 0;
    const unsigned long long last = (end - p->base - 1) / d;
    hi = last < hi ? last : hi;
    if (lo > hi)
        return 0;
    if (hi - lo >= ALIAS_MAX_SHIFTS)
        return 1;
    for (unsigned long long k = lo; k <= hi; k++) {
        alias_buf q;
        if (shifted(p, k, d, &q) && alias_overlap(f, &q))
            return 1;
    }
    return 0;
}

int alias_overlap_batch(const alias_buf *a, const alias_buf *b, unsigned long long count)
{
    if (count <= 1 || (!a->stride && !b->stride))
        return alias_overlap(a, b);
    if (!a->len || !b->len)
        return 0;
    const unsigned long long ha = hull_len(a, count), hb = hull_len(b, count);
    const unsigned long long lo = a->base < b->base ? a->base : b->base;
    const unsigned long long lo_len = a->base < b->base ? ha : hb;
    const unsigned long long hi = a->base < b->base ? b->base : a->base;
    if (hi - lo >= lo_len)
        return 0; /* the hulls are apart */
    if (!a->stride)
        return meets_any(a, b, 0, count - 1);
    if (!b->stride)
        return meets_any(b, a, 0, count - 1);
    if (a->stride != b->stride)
        return 1;
    /* one stride: problem i of a meets problem j of b exactly where a meets
     * b moved by (j - i) strides, for |j - i| < count */
    return meets_any(a, b, 0, count - 1) || meets_any(b, a, 1, count - 1);
}

int alias_self_overlap(const alias_buf *b, unsigned long long count)
{
    if (count <= 1 || !b->len)
        return 0;
    if (!b->stride)
        return 1;
    alias_buf f = *b;
    f.stride = 0;
    return meets_any(&f, b, 1, count - 1);
}

/* The exception: an [M, N] output written over an [M, N] input in place. */
static int in_place(const alias_buf *a, const alias_buf *b)
{
    return a->mn && b->mn && a->written != b->written && a->base == b->base &&
           a->elem == b->elem && a->ld == b->ld && a->stride == b->stride;
}

int alias_check(const alias_buf *bufs, size_t n, char *msg, size_t len)
{
    return alias_check_batch(bufs, n, 1, msg, len);
}

int alias_check_batch(const alias_buf *bufs, size_t n, unsigned long long count, char *msg, size_t len)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const alias_buf *a = &bufs[i], *b = &bufs[j];
            if ((!a->written && !b->written) || !alias_overlap_batch(a, b, count) || in_place(a, b))
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
