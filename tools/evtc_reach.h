/* evtc_reach.h - what an element-wise output's reference reaches while its
 * accumulator moves within the rounding an f32 accumulation may carry
 * (`evtc run --check`'s second look at values the bracket's ends do not
 * explain, evtc_check.c's refine).
 *
 * The bracket (evt_check_values_bracketed) judges a value against the
 * reference at the accumulator's two ends, acc - d and acc + d.  A chain
 * through a builtin's singularity takes values between the ends that
 * neither shows, and an end outside a builtin's domain is NaN: session
 * 70's two failures on the GPU, sqrt(silu(... log(acc - i2) ...)) with one
 * end NaN and the value between the other end and 0, and rsqrt(exp(acc) -
 * relu(i0)) stored as i8.  evtc_reach_over follows the reference from acc
 * outward instead, and evtc_reach_holds says whether a stored value is one
 * it reached. */
#ifndef EVTC_REACH_H
#define EVTC_REACH_H

#include <evt/evt.h>

#include <stddef.h>

/* The points per side: acc + s d for s = 2^-EVTC_REACH_POWERS, ..., 1/2, 1;
 * and the halvings that close on an edge between finite and not. */
enum { EVTC_REACH_POWERS = 20, EVTC_REACH_HALVINGS = 30 };

/* One cell's reach: its least and greatest finite values rounded to the
 * output type (least > most: none), and whether NaN, +inf or -inf. */
typedef struct evtc_reach {
    double least, most;
    int nan, pinf, ninf;
} evtc_reach;

/* The reference of `cells` cells, each with its accumulators moved by
 * s[cell] of their rounding (s in [-1, 1]), into y; 0, or an exit status
 * after its message is printed. */
typedef int (*evtc_reach_eval)(void *user, const double *s, double *y, size_t cells);

/*
 * Fills h[0..cells) with what the reference (eval) reaches at each cell
 * while its accumulators move by s of their rounding, s in [-1, 1]: at s
 * = 0 and at +-2^-k (k = EVTC_REACH_POWERS down to 0); and where the
 * value turns between finite and not, or changes sign, from one point to
 * the next outward (the side's first such edge: a domain's end, a pole),
 * at each of EVTC_REACH_HALVINGS halvings closing on the edge.  Values
 * are rounded to `elem` where `rounded` is set, else kept as they are
 * (a partial sum, which adds before it rounds).  Calls eval 1 + 2 *
 * (EVTC_REACH_POWERS + 1 + EVTC_REACH_HALVINGS) times.  Returns 0,
 * eval's status, or EXIT_OUTSIDE (evtc_common.h) out of memory, with its
 * message printed after prog ("evtc run", "evtc tune").
 */
int evtc_reach_over(const char *prog, size_t cells, int rounded, evt_elem elem, evtc_reach_eval eval, void *user,
                    evtc_reach *h);

/* v as an output of `elem` stores it, read back (NaN stays NaN in a float
 * type; an integer type stores it as a number). */
float evtc_stored(evt_elem elem, double v);

/* Adds value v to h: as the output stores it (evtc_stored) where
 * `rounded` is set, else as it is. */
void evtc_reach_add(evtc_reach *h, int rounded, evt_elem elem, double v);

/* Whether stored value y (loaded as a double) is one h reached: a NaN or
 * an infinity reached, or finite and within the finite values' span,
 * widened by 1 for an integer type, else by tol relative to the larger of
 * the span's end and floor (evt_check_values's tolerance and floor). */
int evtc_reach_holds(const evtc_reach *h, evt_elem elem, double y, double tol, double floor);

#endif
