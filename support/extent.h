/* extent.h - how many elements a strided matrix spans, for bounds checks. */
#ifndef EVT_SUPPORT_EXTENT_H
#define EVT_SUPPORT_EXTENT_H

/*
 * Elements spanned by rows x cols with rows ld apart: (rows - 1) * ld + cols,
 * 0 if empty.  -1 on overflow, for negative sizes, and where rows overlap
 * (ld < cols with more than one row): no extent of a strided matrix is
 * meant there, and a number would let a too-small buffer pass.  Callers
 * refuse ld < cols first, with a message naming it; -1 is the backstop.
 */
static inline long long matrix_extent(long long rows, long long cols, long long ld)
{
    if (rows < 0 || cols < 0)
        return -1;
    if (rows == 0 || cols == 0)
        return 0;
    if (rows > 1 && ld < cols)
        return -1;
    long long span;
    if (__builtin_mul_overflow(rows - 1, ld, &span) || __builtin_add_overflow(span, cols, &span))
        return -1;
    return span;
}

#endif
