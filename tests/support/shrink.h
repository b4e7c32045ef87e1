/* shrink.h - reducing a failing fuzz case to a small one.
 *
 * A case is a program (one epilogue of one statement per line, as progen.c
 * writes them, and its kernel line) and a problem (a vector of numbers:
 * sizes, paddings, seeds).  shrink_run drops statement lines by delta
 * debugging (ddmin, trying the complement of each chunk), shrinks each
 * number towards its lower bound, and drops lines again, for as long as the
 * caller's predicate says the case still fails and the budget lasts.
 *
 * A dropped statement's name (an input, a param, a let or an output) is
 * replaced by `acc` wherever later lines use it: `acc` is an [M, N] f32
 * value, which every expression position accepts (an [M, N] output takes
 * any shape, a reduction reduces it along any axis), so a candidate stays a
 * valid program and the predicate's verdicts stay meaningful.  A candidate
 * without an output is never tried. */
#ifndef EVT_TESTS_SHRINK_H
#define EVT_TESTS_SHRINK_H

#include <stddef.h>

enum { SHRINK_MAX_VALUES = 32 };

typedef struct shrink_case {
    char *src; /* the program, NUL-terminated, malloc'd: shrink_run replaces it */
    int nvalues;
    long long value[SHRINK_MAX_VALUES]; /* the problem */
    long long lo[SHRINK_MAX_VALUES];    /* the smallest each value may become */
} shrink_case;

/* 1 when the candidate (src, value) still fails as the case did. */
typedef int shrink_fails_fn(void *user, const char *src, const long long *value);

typedef struct shrink_budget {
    int max_probes;     /* predicate calls at most (0: no limit) */
    double max_seconds; /* wall time at most (0: no limit) */
} shrink_budget;

typedef struct shrink_stats {
    int probes;                     /* predicate calls made */
    int lines_before, lines_after;  /* statement lines */
    int out_of_budget;              /* stopped by the budget, not at a fixed point */
} shrink_stats;

/* Reduces *c while `fails` holds (it is assumed to hold for *c as given).
 * Returns 0 only when memory ran out (*c is then unchanged). */
int shrink_run(shrink_case *c, shrink_fails_fn *fails, void *user, const shrink_budget *budget,
               shrink_stats *stats);

/* The number of statement lines (in, param, let, out) of a program. */
int shrink_statements(const char *src);

/* A malloc'd copy of src without the statement lines whose flag in `drop`
 * (one per statement line, in order) is set, the names they defined
 * replaced by `acc` in the lines kept; NULL when memory runs out. */
char *shrink_drop(const char *src, const unsigned char *drop);

#endif
