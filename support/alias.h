/* alias.h - whether the buffers of a run share memory, and whether the
 * sharing is allowed: the aliasing rule that launches and the interpreter
 * enforce before they write anything (include/evt/evt.h, "Aliasing").
 *
 * A buffer's footprint is the bytes a run touches: `rows` rows of `width`
 * bytes, `pitch` bytes apart, from `base` (an [M, N] matrix row by row; a
 * vector, a scalar or a dense tensor as one row).  Two footprints overlap
 * when they share a byte.  For rows of one pitch that is decided exactly,
 * so matrices laid side by side in one allocation (disjoint column ranges
 * of rows ld apart, as torch views of one tensor are) do not overlap; rows
 * of different pitches whose spans interleave count as overlapping, which
 * would take a walk over the rows to decide. */
#ifndef EVT_SUPPORT_ALIAS_H
#define EVT_SUPPORT_ALIAS_H

#include <stddef.h>

typedef struct alias_buf {
    const char *what; /* "operand", "input", "output", "the accumulator", ... */
    const char *name; /* the argument's name, or NULL where `what` says it all */
    unsigned long long base, rows, width, pitch;
    unsigned long long len; /* bytes from base to the end of the last row */
    int written;            /* the run writes it (an output, a workspace) */
    int mn;                 /* an [M, N] input, or output stored in its element type */
    int elem;               /* the element type (evt_elem) */
    long long ld;
    /* A batch (alias_check_batch): problem l's footprint is this one moved
     * l * stride bytes; 0: one footprint that every problem shares. */
    unsigned long long stride;
} alias_buf;

/* Sets b's footprint: rows x cols elements of esize bytes, rows ld elements
 * apart (ld is ignored for one row).  The sizes are those a validated run
 * touches; a length past 2^64 saturates, which only widens the footprint. */
void alias_footprint(alias_buf *b, const void *ptr, long long rows, long long cols, long long ld,
                     size_t esize);

/* 1 when footprints a and b share a byte (or might: see above); 0 if not. */
int alias_overlap(const alias_buf *a, const alias_buf *b);

/*
 * The rule: a written buffer shares no byte with any other buffer, except
 * that an [M, N] output may be exactly an [M, N] input (the same base,
 * element type and ld: it is written in place, element for element);
 * buffers nobody writes may share anything.  0 when the n buffers obey it;
 * else 1, with the first pair that does not named in msg (len bytes).
 */
int alias_check(const alias_buf *bufs, size_t n, char *msg, size_t len);

/*
 * Over a batch of `count` problems: 1 when problem i's footprint of a and
 * problem j's of b share a byte for some i, j < count (or might: where the
 * candidates are too many to try, or a and b have different nonzero
 * strides, footprints whose hulls meet count as overlapping).  count 1 is
 * alias_overlap.
 */
int alias_overlap_batch(const alias_buf *a, const alias_buf *b, unsigned long long count);
/* 1 when two different problems' footprints of b share a byte (or might,
 * as above) in a batch of `count`: a stride of 0, or one that is too
 * small.  0 for count 1. */
int alias_self_overlap(const alias_buf *b, unsigned long long count);
/* alias_check over a batch of `count` problems (alias_overlap_batch); the
 * in-place exception also takes the same stride.  It does not check a
 * written buffer against its own other problems (alias_self_overlap). */
int alias_check_batch(const alias_buf *bufs, size_t n, unsigned long long count, char *msg, size_t len);

#endif
