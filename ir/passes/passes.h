/* passes.h - the IR optimization passes, one per file, and the pipeline that runs them.
 *
 * Every pass rewrites one epilogue in place and keeps every output
 * bit-identical in f32 on every input (NaN, infinities, -0.0 and subnormals
 * included); each file's header comment states its rules and why they are
 * exact.  A pass leaves the IR valid (ir_verify): topologically ordered,
 * hash-consed, renumbered.  On an allocation failure it sets
 * fn->arena->failed and stops. */
#ifndef EVT_IR_PASSES_H
#define EVT_IR_PASSES_H

#include "../ir.h"

void ir_pass_fold(ir_func *fn);     /* fold.c: constant folding */
void ir_pass_simplify(ir_func *fn); /* simplify.c: exact algebraic identities */
void ir_pass_cse(ir_func *fn);      /* cse.c: common subexpressions, commutative operand order */
void ir_pass_strength(ir_func *fn); /* strength.c: x / 2^k -> x * 2^-k */
void ir_pass_dce(ir_func *fn);      /* dce.c: values no output needs */
void ir_pass_hoist(ir_func *fn);    /* hoist.c: marks values computed once per thread block */

/* Called after each pass the pipeline runs. */
typedef void ir_pass_observer(void *user, const char *pass, const ir_func *fn);

typedef struct ir_pipeline {
    int level;                /* 0, 1 or 2 */
    const char *passes;       /* NULL, or comma-separated pass names to run instead of `level` */
    ir_pass_observer *after;  /* NULL, or called after every pass */
    void *user;
} ir_pipeline;

/*
 * Runs the pipeline on fn.  EVT_OK; EVT_ERR_NO_MEMORY; or EVT_ERR_INTERNAL
 * when a pass broke an IR invariant (checked after every pass in builds
 * with EVT_VERIFY_EACH_PASS).  On failure `why` says what happened.
 */
evt_status ir_optimize(ir_func *fn, const ir_pipeline *p, strbuf *why);

/* The name of pass i in pipeline order, or NULL past the last. */
const char *ir_pass_name(size_t i);
/* The index of the pass named by s[0..len), or -1. */
int ir_pass_lookup(const char *s, size_t len);

#endif
