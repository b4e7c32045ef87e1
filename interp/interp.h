/* interp.h - the CPU reference interpreter: evaluates an epilogue on host arrays.
 *
 * interp_run walks fn->values in order (never recursing over operands) for
 * one chunk of up to INTERP_CHUNK columns of one row at a time, every value
 * held as a full chunk (scalars, [M] and [N] values broadcast), buffers
 * recycled after their last use, so memory is bounded by the DAG's width.
 * Values are doubles in both modes: in f32 mode each holds a float and every
 * operation is evt_math.h's, bit for bit what the GPU computes.
 *
 * Reductions run in a fixed sequential order: row by row (i = 0..M-1), and
 * within a row column by column (j = 0..N-1); a reduction over N adds
 * x[i][0], x[i][1], ... in turn, over M x[0][j], x[1][j], ..., over both
 * every element in that row-major order.  The GPU reduces in another order,
 * so sums are compared with a tolerance; max and min are exact.
 */
#ifndef EVT_INTERP_INTERP_H
#define EVT_INTERP_INTERP_H

#include "../ir/ir.h"

#include <evt/evt.h>

enum { INTERP_CHUNK = 256 };

/* Where an input or output lives. */
typedef struct interp_array {
    void *data;  /* element-type storage; a double array when as_f64 */
    size_t ld;   /* [M, N] arrays: elements between rows (>= N) */
    int as_f64;  /* outputs: store the unconverted value as a double */
    double *magnitude; /* a reduce_sum output's: each result's sum of |terms|, or NULL */
} interp_array;

typedef struct interp_args {
    size_t m, n;
    const float *acc;      /* the accumulator: exactly one of acc, acc_f64 */
    const double *acc_f64; /* (f32 mode rounds it to f32 first) */
    size_t ldacc;
    const interp_array *inputs;  /* fn->ninputs of them, data non-NULL */
    const float *params;         /* fn->nparams values, defaults resolved */
    const interp_array *outputs; /* fn->noutputs of them, data non-NULL */
} interp_args;

/*
 * Evaluates fn over args->m x args->n and writes every output.  On failure
 * (an op the interpreter does not know, no memory) writes a sentence into
 * err (errlen bytes) and returns the status; outputs may be half written.
 */
evt_status interp_run(const ir_func *fn, const interp_args *args, evt_interp_mode mode,
                      char *err, size_t errlen);

/* evt_reference_gemm_mixed and evt_reference_conv2d in the widest form
 * this CPU runs (wide: AVX2 where it has it) or the two-wide one (0): the
 * same sums, which test_reference checks bit for bit. */
evt_status interp_reference_gemm_form(int wide, long long m, long long n, long long k, evt_elem elem_a,
                                      const void *a, evt_layout layout_a, long long lda, evt_elem elem_b,
                                      const void *b, evt_layout layout_b, long long ldb, double *d, float *d32,
                                      long long ldd);
evt_status interp_reference_conv2d_form(int wide, const evt_conv_problem *c, evt_elem elem, const void *x,
                                        const void *w, double *y, float *y32, long long ldy);

/* Stores the f32 value v as element type e at p (the GPU's conversion). */
void interp_store_f32(evt_elem e, float v, void *p);
/* Loads element type e at p as f32 (exact except i32 beyond 2^24). */
float interp_load_f32(evt_elem e, const void *p);
/* Stores the double v as element type e at p, rounded once, to nearest even. */
void interp_store_f64(evt_elem e, double v, void *p);

#endif
