/* ir.h - the typed epilogue IR: a hash-consed DAG of f32/bool values per epilogue.
 *
 * Invariants (checked by ir_verify):
 *  - fn->values is in topological order: every operand precedes its users,
 *    so passes walk the array forwards or backwards and never recurse (a
 *    chain of 100 000 lets is a 100 000-deep DAG);
 *  - values are unique: no two have the same op, operands and attr (the
 *    builder hash-conses; passes that rewrite call ir_func_rehash);
 *  - a value's type and shape follow from its op and operands;
 *  - booleans feed only the condition of IR_SELECT; reductions feed only outputs.
 */
#ifndef EVT_IR_IR_H
#define EVT_IR_IR_H

#include "../support/arena.h"
#include "../support/diag.h"
#include "../support/strbuf.h"
#include "ops.h"

#include <evt/evt.h>
#include <stdint.h>

typedef enum ir_type {
    IR_F32, /* every arithmetic value */
    IR_BOOL /* a comparison's result: only IR_SELECT's condition consumes it */
} ir_type;

typedef struct ir_value ir_value;
struct ir_value {
    int id;          /* index in fn->values; refreshed by ir_func_renumber */
    ir_op op;
    ir_type type;
    evt_shape shape; /* result shape after broadcasting */
    int nargs;
    ir_value *args[3];
    union {
        float f;     /* IR_CONST */
        int index;   /* IR_INPUT, IR_PARAM: index into fn->inputs / fn->params */
        int axis;    /* IR_REDUCE_*: the dimensions reduced, an evt_shape bit set */
    } attr;
    src_loc loc;     /* where the source wrote it (the first place, for shared values) */
    int uses;        /* users among values and outputs; see ir_func_count_uses */
    int hoisted;     /* depends only on params and scalars: computed once per block */
};

/* An input, param or output as declared; `value` is the output's expression. */
typedef struct ir_arg {
    evt_arg_info info;
    src_loc loc;
    ir_value *value; /* outputs: the value stored (IR_REDUCE_* for reductions) */
} ir_arg;

/* An epilogue.  The public evt_epilogue handle is this struct. */
typedef struct evt_epilogue ir_func;
struct evt_epilogue {
    arena *arena;
    const char *file; /* the source file's name, for evt_loc */
    const char *name;
    src_loc loc;
    ir_value **values;
    size_t nvalues, values_cap;
    ir_arg *inputs, *params, *outputs;
    size_t ninputs, inputs_cap, nparams, params_cap, noutputs, outputs_cap;
    ir_value **table; /* hash-consing: open addressing over `values` */
    size_t table_cap;
};

/* A kernel: a mainloop paired with an epilogue.  The public evt_kernel handle. */
typedef struct evt_kernel ir_kernel;
struct evt_kernel {
    const char *file;
    const char *name;
    src_loc loc;
    evt_mainloop mainloop;
    evt_operand_info operands[3]; /* A or x, B or w, acc */
    src_loc operand_locs[3];      /* where each operand is written, for later diagnostics */
    ir_func *epilogue;
};

typedef struct ir_module {
    ir_func **funcs;
    size_t nfuncs, funcs_cap;
    ir_kernel **kernels;
    size_t nkernels, kernels_cap;
} ir_module;

ir_func *ir_func_new(arena *a, const char *name, src_loc loc);

/* The f32 constant v (keyed by its bits: -0.0 and each NaN are their own values). */
ir_value *ir_const(ir_func *fn, float v, src_loc loc);
/* IR_ACC, or IR_INPUT/IR_PARAM number `index` (shape from the declaration). */
ir_value *ir_leaf(ir_func *fn, ir_op op, int index, src_loc loc);
/*
 * The value op(args...) (axis only for reductions), reusing an existing
 * identical value when there is one.  Type and shape are derived here; the
 * caller has checked operand types.  NULL only when memory is exhausted.
 */
ir_value *ir_build(ir_func *fn, ir_op op, ir_value *const *args, int nargs, int axis,
                   src_loc loc);

/* Shape of a reduction over `axis` (the operand broadcasts to [M, N] first). */
evt_shape ir_reduce_shape(int axis);

/* Sets every value's `uses`. */
/* Whether fn reads input i (the optimizer may have dropped every use). */
int ir_func_reads_input(const ir_func *fn, size_t i);
void ir_func_count_uses(ir_func *fn);
/* Sets every value's `id` to its index. */
void ir_func_renumber(ir_func *fn);
/* Rebuilds the hash-consing table from fn->values (after a pass edits values). */
void ir_func_rehash(ir_func *fn);
/* The existing value equal to v (same op, operands, attr), or NULL. */
ir_value *ir_func_find(const ir_func *fn, const ir_value *v);

/*
 * Rebuilds fn->values in order so that a pass can replace values without
 * breaking topological order or uniqueness.  For each value v in turn, v's
 * operands are first replaced by whatever replaced them, then
 * rewrite(fn, v, user) returns what replaces v: v itself (kept, with its
 * shape re-derived from its new operands, unless an equal value is already
 * there, which then replaces it: this is what merges common subexpressions),
 * a value already rebuilt, or a value it makes with ir_build or ir_const
 * (they append to the rebuilt array).  A NULL rewrite keeps every value.
 * Outputs follow their values; values nothing uses any more stay until
 * ir_func_compact.  Ids are renumbered and `uses` recounted at the end.
 * Returns 0 when memory is exhausted (fn->arena->failed is then set).
 */
typedef ir_value *ir_rewriter(ir_func *fn, ir_value *v, void *user);
int ir_func_rewrite(ir_func *fn, ir_rewriter *rewrite, void *user);
/* Removes every value v with keep[v->id] == 0 (nothing kept may use one),
 * then renumbers, rehashes and recounts uses.  fn->inputs, params and
 * outputs, the launch interface, are untouched. */
void ir_func_compact(ir_func *fn, const unsigned char *keep);

/* A copy of fn in fn's arena (values, their table, inputs, params and
 * outputs; names and locations shared) into *out, for work that may fail
 * half-way and must leave fn as it was: the optimizer works on the copy and
 * assigns it to fn whole when it succeeds.  0 where memory runs out (*out
 * then unset; what was allocated stays in the arena until it is freed). */
int ir_func_copy(ir_func *fn, ir_func *out);

/* Marks each gelu whose uses all end in outputs of 16 bits or fewer as
 * IR_GELU16 (narrow.c); sema runs it on every epilogue it builds.  On an
 * allocation failure it sets fn->arena->failed and changes nothing. */
void ir_func_narrow(ir_func *fn);

/* Checks the invariants above; on failure writes why into why and returns 0. */
int ir_verify(const ir_func *fn, strbuf *why);

/* Appends fn as IR text (the format of `evtc --emit=ir`). */
void ir_print_func(const ir_func *fn, strbuf *sb);
void ir_print_kernel(const ir_kernel *k, strbuf *sb);
void ir_print_module(const ir_module *m, strbuf *sb);
/* Appends f as the shortest decimal that reads back as exactly f ("nan", "-inf", ...). */
void ir_print_float(strbuf *sb, float f);
/* Appends m as one Graphviz digraph called `name` (the source's name), each
 * epilogue a labelled cluster "cluster_EPILOGUE" of nodes "EPILOGUE.vN" and
 * "EPILOGUE.outN". */
void ir_dot_module(const ir_module *m, const char *name, strbuf *sb);

/* Builds the IR of a parsed file; reports every semantic error to dl. */
struct ast_file;
void ir_sema(arena *a, diag_list *dl, const struct ast_file *file, ir_module *out);

#endif
