/* checked.h - size and stride arithmetic that reports overflow instead of
 * wrapping: a hostile size (2^62 images, a 2^40 filter) must be refused
 * with a message, not turned into a small problem that launches.
 *
 * Each stores the exact result in *out and returns 1, or returns 0 (and
 * leaves *out unspecified) where the result does not fit. */
#ifndef EVT_SUPPORT_CHECKED_H
#define EVT_SUPPORT_CHECKED_H

#include <stddef.h>

static inline int ck_mul(long long a, long long b, long long *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

static inline int ck_add(long long a, long long b, long long *out)
{
    return !__builtin_add_overflow(a, b, out);
}

/* a * b * c, the shape of most tensor extents (n*h*w, r*s*c). */
static inline int ck_mul3(long long a, long long b, long long c, long long *out)
{
    return ck_mul(a, b, out) && ck_mul(*out, c, out);
}

static inline int ck_mul_size(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

static inline int ck_add_size(size_t a, size_t b, size_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

#endif
