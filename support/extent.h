/* extent.h - how many elements a strided matrix spans, for bounds checks. */
#ifndef EVT_SUPPORT_EXTENT_H
#define EVT_SUPPORT_EXTENT_H

/* Elements spanned by rows x cols with rows ld apart (0 if empty); -1 on overflow. */
static inline long long matrix_extent(long long rows, long long cols, long long ld)
{
    if (rows == 0 || cols == 0)
        return 0;
    long long span;
    if (__builtin_mul_overflow(rows - 1, ld, &span) || __builtin_add_overflow(span, cols, &span))
        return -1;
    return span;
}

#endif
