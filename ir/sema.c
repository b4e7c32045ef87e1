/* sema.c - semantic analysis: names, types, shapes, kernels; AST -> typed IR.
 *
 * Every error is reported once, at its cause: a name whose definition failed
 * is "poisoned" and its uses stay silent; an expression that failed yields
 * NULL and its parents stay silent. */
#include "../grammar/ast.h"
#include "ir.h"
#include "../support/names.h"

#include <stdio.h>
#include <string.h>

typedef enum sym_kind {
    SYM_ACC,    /* the predeclared accumulator */
    SYM_INPUT,  /* in */
    SYM_PARAM,  /* param */
    SYM_LET,    /* let */
    SYM_OUTPUT  /* out, usable later as its pre-conversion value */
} sym_kind;

typedef struct sym {
    const char *name;
    sym_kind kind;
    src_loc loc;
    int index;        /* into fn->inputs / params / outputs */
    ir_value *value;  /* SYM_LET, SYM_OUTPUT; NULL when poisoned */
    int poisoned;     /* its definition failed: uses are silent errors */
    int reduction;    /* SYM_OUTPUT of a reduction: not usable in expressions */
    int used;
    int undefined;    /* stands for an unknown name, so that it is reported once */
} sym;

/* A string-keyed open-addressing table of symbols. */
typedef struct symtab {
    arena *arena;
    sym **slots;
    size_t cap, count;
} symtab;

static size_t str_hash(const char *s)
{
    size_t h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static sym *symtab_find(const symtab *t, const char *name)
{
    if (!t->cap)
        return NULL;
    for (size_t j = str_hash(name) & (t->cap - 1); t->slots[j]; j = (j + 1) & (t->cap - 1))
        if (strcmp(t->slots[j]->name, name) == 0)
            return t->slots[j];
    return NULL;
}

static sym *symtab_add(symtab *t, const char *name, sym_kind kind, src_loc loc)
{
    if (2 * (t->count + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        sym **slots = arena_alloc(t->arena, cap * sizeof *slots);
        if (!slots)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i])
                continue;
            size_t j = str_hash(t->slots[i]->name) & (cap - 1);
            while (slots[j])
                j = (j + 1) & (cap - 1);
            slots[j] = t->slots[i];
        }
        t->slots = slots;
        t->cap = cap;
    }
    sym *s = arena_alloc(t->arena, sizeof *s);
    if (!s)
        return NULL;
    s->name = name;
    s->kind = kind;
    s->loc = loc;
    size_t j = str_hash(name) & (t->cap - 1);
    while (t->slots[j])
        j = (j + 1) & (t->cap - 1);
    t->slots[j] = s;
    t->count++;
    return s;
}

typedef struct sema {
    arena *arena;
    diag_list *dl;
    ir_func *fn;
    symtab syms;
} sema;

static const char *binop_name(ast_binop op)
{
    static const char *const names[] = {"+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!="};
    return names[op];
}

static ir_op binop_ir(ast_binop op)
{
    static const ir_op ops[] = {IR_ADD, IR_SUB, IR_MUL, IR_DIV, IR_LT,
                                IR_LE,  IR_GT,  IR_GE,  IR_EQ,  IR_NE};
    return ops[op];
}

/* Reports a boolean used where a number is needed; returns 0 then. */
static int want_number(sema *s, const ir_value *v, src_loc loc, const char *where)
{
    if (v->type != IR_BOOL)
        return 1;
    diag_report(s->dl, EVT_SEV_ERROR, loc,
                "a comparison cannot be used as a value (%s); use it as the condition of '?:'",
                where);
    return 0;
}

static ir_value *sema_expr(sema *s, const ast_expr *e);

/* reduce_*(x [, M|N]) as the whole expression of an output. */
static ir_value *sema_reduction(sema *s, const ast_expr *e, ir_op op)
{
    const char *name = ir_op_get(op)->name;
    if (e->nargs < 1 || e->nargs > 2) {
        diag_report(s->dl, EVT_SEV_ERROR, e->loc,
                    "'%s' takes 1 or 2 arguments (a value and optionally M or N), but %zu %s given",
                    name, e->nargs, e->nargs == 1 ? "was" : "were");
        return NULL;
    }
    int axis = EVT_SHAPE_MN;
    if (e->nargs == 2) {
        const ast_expr *d = e->args[1];
        if (d->kind == AST_NAME && strcmp(d->name, "M") == 0) {
            axis = EVT_SHAPE_M;
        } else if (d->kind == AST_NAME && strcmp(d->name, "N") == 0) {
            axis = EVT_SHAPE_N;
        } else {
            diag_report(s->dl, EVT_SEV_ERROR, d->loc,
                        "the second argument of '%s' is the dimension reduced over: M or N", name);
            return NULL;
        }
    }
    ir_value *x = sema_expr(s, e->args[0]);
    if (!x || !want_number(s, x, e->args[0]->loc, "reduced"))
        return NULL;
    return ir_build(s->fn, op, &x, 1, axis, e->loc);
}

static ir_value *sema_call(sema *s, const ast_expr *e)
{
    int op = ir_op_builtin(e->name);
    if (op < 0) {
        diag_report(s->dl, EVT_SEV_ERROR, e->loc, "unknown function '%s'", e->name);
        for (size_t i = 0; i < e->nargs; i++)
            sema_expr(s, e->args[i]); /* still check the arguments */
        return NULL;
    }
    const ir_op_info *info = ir_op_get((ir_op)op);
    if (info->flags & IR_REDUCE) {
        diag_report(s->dl, EVT_SEV_ERROR, e->loc,
                    "'%s' can only be the whole expression of an 'out', not part of another "
                    "expression", info->name);
        return NULL;
    }
    if ((int)e->nargs != info->arity) {
        diag_report(s->dl, EVT_SEV_ERROR, e->loc, "'%s' takes %d argument%s, but %zu %s given",
                    info->name, info->arity, info->arity == 1 ? "" : "s", e->nargs,
                    e->nargs == 1 ? "was" : "were");
        for (size_t i = 0; i < e->nargs; i++)
            sema_expr(s, e->args[i]);
        return NULL;
    }
    ir_value *args[3];
    int ok = 1;
    for (int i = 0; i < info->arity; i++) {
        args[i] = sema_expr(s, e->args[i]);
        if (!args[i] || !want_number(s, args[i], e->args[i]->loc, "an argument of a function"))
            ok = 0;
    }
    return ok ? ir_build(s->fn, (ir_op)op, args, info->arity, 0, e->loc) : NULL;
}

static ir_value *sema_name(sema *s, const ast_expr *e)
{
    sym *y = symtab_find(&s->syms, e->name);
    if (!y) {
        diag_report(s->dl, EVT_SEV_ERROR, e->loc, "unknown name '%s'", e->name);
        /* Report each unknown name once per epilogue. */
        y = symtab_add(&s->syms, e->name, SYM_LET, e->loc);
        if (y) {
            y->poisoned = 1;
            y->used = 1;
            y->undefined = 1;
        }
        return NULL;
    }
    y->used = 1;
    if (y->poisoned)
        return NULL;
    switch (y->kind) {
    case SYM_ACC:
        return ir_leaf(s->fn, IR_ACC, 0, e->loc);
    case SYM_INPUT:
        return ir_leaf(s->fn, IR_INPUT, y->index, e->loc);
    case SYM_PARAM:
        return ir_leaf(s->fn, IR_PARAM, y->index, e->loc);
    case SYM_OUTPUT:
        if (y->reduction) {
            diag_report(s->dl, EVT_SEV_ERROR, e->loc,
                        "'%s' is the result of a reduction and cannot be used in an expression",
                        e->name);
            diag_report(s->dl, EVT_SEV_NOTE, y->loc, "'%s' is defined here", e->name);
            return NULL;
        }
        return y->value;
    case SYM_LET:
        return y->value;
    }
    return NULL;
}

static ir_value *sema_expr(sema *s, const ast_expr *e)
{
    switch (e->kind) {
    case AST_ERROR:
        return NULL;
    case AST_NUM:
        return ir_const(s->fn, e->num, e->loc);
    case AST_NAME:
        return sema_name(s, e);
    case AST_CALL:
        return sema_call(s, e);
    case AST_NEG: {
        ir_value *x = sema_expr(s, e->args[0]);
        if (!x || !want_number(s, x, e->args[0]->loc, "an operand of '-'"))
            return NULL;
        return ir_build(s->fn, IR_NEG, &x, 1, 0, e->loc);
    }
    case AST_BINARY: {
        ir_value *args[2] = {sema_expr(s, e->args[0]), sema_expr(s, e->args[1])};
        if (!args[0] || !args[1])
            return NULL;
        char where[48];
        snprintf(where, sizeof where, "an operand of '%s'", binop_name(e->op));
        int ok0 = want_number(s, args[0], e->args[0]->loc, where);
        int ok1 = want_number(s, args[1], e->args[1]->loc, where);
        if (!ok0 || !ok1)
            return NULL;
        return ir_build(s->fn, binop_ir(e->op), args, 2, 0, e->loc);
    }
    case AST_SELECT: {
        ir_value *args[3];
        for (int i = 0; i < 3; i++)
            args[i] = sema_expr(s, e->args[i]);
        int ok = args[0] && args[1] && args[2];
        if (args[0] && args[0]->type != IR_BOOL) {
            diag_report(s->dl, EVT_SEV_ERROR, e->args[0]->loc,
                        "the condition of '?:' must be a comparison (such as x > 0)");
            ok = 0;
        }
        for (int i = 1; i < 3; i++)
            if (args[i] && !want_number(s, args[i], e->args[i]->loc, "a branch of '?:'"))
                ok = 0;
        return ok ? ir_build(s->fn, IR_SELECT, args, 3, 0, e->loc) : NULL;
    }
    }
    return NULL;
}

/* Defines a name, or reports it defined twice.  NULL when it was a duplicate. */
static sym *define(sema *s, const ast_stmt *st, sym_kind kind)
{
    sym *old = symtab_find(&s->syms, st->name);
    if (old && old->undefined) {
        /* Used before its definition: that use was the error, not this. */
        *old = (sym){.name = st->name, .kind = kind, .loc = st->name_loc};
        return old;
    }
    if (old) {
        if (old->kind == SYM_ACC)
            diag_report(s->dl, EVT_SEV_ERROR, st->name_loc,
                        "'acc' is the accumulator and cannot be redefined");
        else {
            diag_report(s->dl, EVT_SEV_ERROR, st->name_loc, "'%s' is already defined", st->name);
            diag_report(s->dl, EVT_SEV_NOTE, old->loc, "'%s' was first defined here", st->name);
        }
        return NULL;
    }
    return symtab_add(&s->syms, st->name, kind, st->name_loc);
}

static ir_arg make_arg(const ast_stmt *st, evt_arg_kind kind, const diag_list *dl)
{
    ir_arg a = {.loc = st->name_loc};
    a.info.name = st->name;
    a.info.kind = kind;
    a.info.elem = st->elem;
    a.info.shape = kind == EVT_ARG_PARAM ? EVT_SHAPE_SCALAR : st->shape;
    a.info.has_default = st->has_default;
    a.info.default_value = st->default_value;
    a.info.loc = (evt_loc){dl->file, st->name_loc.line, st->name_loc.column};
    return a;
}

static const char *shape_words(evt_shape sh)
{
    switch (sh) {
    case EVT_SHAPE_SCALAR: return "a scalar";
    case EVT_SHAPE_M: return "[M]";
    case EVT_SHAPE_N: return "[N]";
    case EVT_SHAPE_MN: return "[M, N]";
    }
    return "?";
}

static void sema_output(sema *s, const ast_stmt *st)
{
    ir_func *fn = s->fn;
    ir_arg arg = make_arg(st, EVT_ARG_OUTPUT, s->dl);
    const ast_expr *e = st->expr;
    int reduce_op = -1;
    if (e->kind == AST_CALL) {
        int op = ir_op_builtin(e->name);
        if (op >= 0 && (ir_op_get((ir_op)op)->flags & IR_REDUCE))
            reduce_op = op;
    }
    ir_value *v = reduce_op >= 0 ? sema_reduction(s, e, (ir_op)reduce_op) : sema_expr(s, e);
    if (v && v->type == IR_BOOL) {
        diag_report(s->dl, EVT_SEV_ERROR, e->loc,
                    "output '%s' cannot store a comparison; use it as the condition of '?:'",
                    st->name);
        v = NULL;
    }
    if (v && reduce_op >= 0) {
        arg.info.reduce = reduce_op == IR_REDUCE_SUM   ? EVT_REDUCE_SUM
                          : reduce_op == IR_REDUCE_MAX ? EVT_REDUCE_MAX
                                                       : EVT_REDUCE_MIN;
        if (v->shape != st->shape) {
            diag_report(s->dl, EVT_SEV_ERROR, e->loc,
                        "this reduction gives %s, but output '%s' is declared %s", shape_words(v->shape),
                        st->name, shape_words(st->shape));
            v = NULL;
        }
    } else if (v && st->shape != EVT_SHAPE_MN) {
        const char *hint = st->shape == EVT_SHAPE_M   ? "reduce_sum(x, N)"
                           : st->shape == EVT_SHAPE_N ? "reduce_sum(x, M)"
                                                      : "reduce_sum(x)";
        diag_report(s->dl, EVT_SEV_ERROR, e->loc,
                    "output '%s' is declared %s, which only a reduction such as %s can produce; "
                    "this expression is %s",
                    st->name, shape_words(st->shape), hint, shape_words(v->shape));
        v = NULL;
    }
    arg.value = v;
    sym *y = define(s, st, SYM_OUTPUT);
    if (y) {
        y->index = (int)fn->noutputs;
        y->value = v;
        y->poisoned = v == NULL;
        y->reduction = reduce_op >= 0;
    }
    if (y || v)
        ARENA_PUSH(s->arena, fn->outputs, fn->noutputs, fn->outputs_cap, arg);
}

/* Warns about inputs and params that no output needs, and lets never named. */
static void warn_unused(sema *s)
{
    ir_func *fn = s->fn;
    char *live = arena_alloc(s->arena, fn->nvalues + 1);
    if (!live)
        return;
    ir_func_renumber(fn);
    for (size_t i = 0; i < fn->noutputs; i++)
        if (fn->outputs[i].value)
            live[fn->outputs[i].value->id] = 1;
    for (size_t i = fn->nvalues; i-- > 0;)
        if (live[i])
            for (int j = 0; j < fn->values[i]->nargs; j++)
                live[fn->values[i]->args[j]->id] = 1;
    char *needed_in = arena_alloc(s->arena, fn->ninputs + fn->nparams + 1);
    if (!needed_in)
        return;
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        if (live[i] && v->op == IR_INPUT)
            needed_in[v->attr.index] = 1;
        if (live[i] && v->op == IR_PARAM)
            needed_in[fn->ninputs + (size_t)v->attr.index] = 1;
    }
    for (size_t i = 0; i < fn->ninputs; i++)
        if (!needed_in[i])
            diag_report(s->dl, EVT_SEV_WARNING, fn->inputs[i].loc,
                        "input '%s' is not used by any output", fn->inputs[i].info.name);
    for (size_t i = 0; i < fn->nparams; i++)
        if (!needed_in[fn->ninputs + i])
            diag_report(s->dl, EVT_SEV_WARNING, fn->params[i].loc,
                        "param '%s' is not used by any output", fn->params[i].info.name);
}

static ir_func *sema_epilogue(arena *a, diag_list *dl, const ast_epilogue *ep)
{
    sema s = {.arena = a, .dl = dl, .syms = {.arena = a}};
    s.fn = ir_func_new(a, ep->name, ep->loc);
    if (!s.fn)
        return NULL;
    ir_func *fn = s.fn;
    fn->file = dl->file;
    sym *acc = symtab_add(&s.syms, "acc", SYM_ACC, ep->loc);
    if (acc)
        acc->used = 1;
    size_t errors_before = dl->errors;
    sym **lets = arena_alloc(a, (ep->nstmts + 1) * sizeof *lets);
    if (!lets)
        return NULL;
    for (size_t i = 0; i < ep->nstmts && !dl->stopped; i++) {
        const ast_stmt *st = ep->stmts[i];
        switch (st->kind) {
        case AST_IN: {
            sym *y = define(&s, st, SYM_INPUT);
            if (y) {
                y->index = (int)fn->ninputs;
                y->poisoned = st->poisoned;
                ARENA_PUSH(a, fn->inputs, fn->ninputs, fn->inputs_cap,
                           make_arg(st, EVT_ARG_INPUT, dl));
            }
            break;
        }
        case AST_PARAM: {
            sym *y = define(&s, st, SYM_PARAM);
            if (y) {
                y->index = (int)fn->nparams;
                y->poisoned = st->poisoned;
                ARENA_PUSH(a, fn->params, fn->nparams, fn->params_cap,
                           make_arg(st, EVT_ARG_PARAM, dl));
            }
            break;
        }
        case AST_LET: {
            ir_value *v = st->poisoned ? NULL : sema_expr(&s, st->expr);
            sym *y = define(&s, st, SYM_LET);
            if (y) {
                y->value = v;
                y->poisoned = v == NULL;
                lets[i] = y;
            }
            break;
        }
        case AST_OUT:
            if (st->poisoned) {
                sym *y = define(&s, st, SYM_OUTPUT);
                if (y)
                    y->poisoned = 1;
            } else {
                sema_output(&s, st);
            }
            break;
        }
    }
    /* Warnings and "no output" would only guess at what a syntax error lost;
     * with no output at all, every input being unused is no news. */
    int clean = dl->errors == errors_before && ep->syntax_errors == 0;
    if (!dl->stopped && clean && fn->noutputs) {
        for (size_t i = 0; i < ep->nstmts; i++)
            if (lets[i] && !lets[i]->used)
                diag_report(dl, EVT_SEV_WARNING, lets[i]->loc, "'%s' is defined but never used",
                            lets[i]->name);
        warn_unused(&s);
    }
    if (fn->noutputs == 0 && clean)
        diag_report(dl, EVT_SEV_ERROR, ep->loc, "epilogue '%s' has no output", ep->name);
    if (dl->errors == errors_before)
        ir_func_narrow(fn);
    return fn;
}

/* --- kernels ---------------------------------------------------------- */

typedef struct mainloop_desc {
    const char *name;
    evt_mainloop kind;
    const char *operands[3];
    int has_layout; /* operands 0 and 1 take row/col */
    int fp8;        /* takes fp8 (e4m3, e5m2) operands, A row-major and B column-major */
} mainloop_desc;

static const mainloop_desc mainloops[] = {
    {"gemm", EVT_MAINLOOP_GEMM, {"a", "b", "acc"}, 1, 1},
    {"conv2d_fprop", EVT_MAINLOOP_CONV2D_FPROP, {"x", "w", "acc"}, 0, 0},
};

static int is_fp8(evt_elem e)
{
    return e == EVT_E4M3 || e == EVT_E5M2;
}

static void sema_kernel(arena *a, diag_list *dl, const ast_kernel *ak, symtab *epilogues,
                        symtab *kernels, ir_module *out)
{
    /* The name is taken even when the kernel has errors, so that a second
     * kernel of that name is still reported. */
    int ok = 1;
    const sym *dup = symtab_find(kernels, ak->name);
    if (dup) {
        diag_report(dl, EVT_SEV_ERROR, ak->loc, "kernel '%s' is already defined", ak->name);
        diag_report(dl, EVT_SEV_NOTE, dup->loc, "'%s' was first defined here", ak->name);
        ok = 0;
    } else if (!symtab_add(kernels, ak->name, SYM_LET, ak->loc)) {
        return;
    }
    const mainloop_desc *ml = NULL;
    for (size_t i = 0; i < sizeof mainloops / sizeof mainloops[0]; i++)
        if (strcmp(mainloops[i].name, ak->mainloop) == 0)
            ml = &mainloops[i];
    if (!ml) {
        diag_report(dl, EVT_SEV_ERROR, ak->mainloop_loc,
                    "unknown mainloop '%s'; expected gemm or conv2d_fprop", ak->mainloop);
        return;
    }
    ir_kernel *k = arena_alloc(a, sizeof *k);
    if (!k)
        return;
    k->file = dl->file;
    k->name = ak->name;
    k->loc = ak->loc;
    k->mainloop = ml->kind;
    k->operands[2] = (evt_operand_info){"acc", EVT_F32, EVT_LAYOUT_NONE};
    if (ak->noperands < 2 || ak->noperands > 3) {
        diag_report(dl, EVT_SEV_ERROR, ak->mainloop_loc,
                    "%s takes the operands (%s, %s) or (%s, %s, %s), but %zu %s given", ml->name,
                    ml->operands[0], ml->operands[1], ml->operands[0], ml->operands[1],
                    ml->operands[2], ak->noperands, ak->noperands == 1 ? "was" : "were");
        ok = 0;
    }
    for (size_t i = 0; i < ak->noperands && i < 3; i++) {
        const ast_operand *op = &ak->operands[i];
        if (strcmp(op->name, ml->operands[i]) != 0) {
            diag_report(dl, EVT_SEV_ERROR, op->loc, "operand %zu of %s is '%s', not '%s'", i + 1,
                        ml->name, ml->operands[i], op->name);
            ok = 0;
            continue;
        }
        evt_layout layout = EVT_LAYOUT_NONE;
        if (i < 2) {
            if (is_fp8(op->elem) && !ml->fp8) {
                diag_report(dl, EVT_SEV_ERROR, op->loc,
                            "%s does not support %s operands; '%s' must be f16 or bf16 (fp8 "
                            "operands are gemm's only)",
                            ml->name, evt_elem_name(op->elem), op->name);
                ok = 0;
            } else if (op->elem != EVT_F16 && op->elem != EVT_BF16 && !is_fp8(op->elem)) {
                diag_report(dl, EVT_SEV_ERROR, op->loc,
                            "%s does not support %s operands; '%s' must be %s", ml->name,
                            evt_elem_name(op->elem), op->name,
                            ml->fp8 ? "f16, bf16, e4m3 or e5m2" : "f16 or bf16");
                ok = 0;
            }
            if (ml->has_layout && !op->layout) {
                diag_report(dl, EVT_SEV_ERROR, op->loc,
                            "operand '%s' of %s needs a layout: row or col", op->name, ml->name);
                ok = 0;
            } else if (ml->has_layout) {
                const evt_layout fp8_layout = i == 0 ? EVT_LAYOUT_ROW : EVT_LAYOUT_COL;
                if (!names_layout_parse(op->layout, &layout)) {
                    diag_report(dl, EVT_SEV_ERROR, op->layout_loc,
                                "unknown layout '%s'; expected row or col", op->layout);
                    ok = 0;
                } else if (is_fp8(op->elem) && ml->fp8 && layout != fp8_layout) {
                    diag_report(dl, EVT_SEV_ERROR, op->layout_loc,
                                "%s operand '%s' must be %s: fp8 tensor cores read both operands "
                                "K-contiguous (a row, b col)",
                                evt_elem_name(op->elem), op->name, i == 0 ? "row" : "col");
                    ok = 0;
                }
            } else if (op->layout) {
                diag_report(dl, EVT_SEV_ERROR, op->layout_loc,
                            "%s operands have fixed layouts (x is NHWC, w is KRSC); remove '%s'",
                            ml->name, op->layout);
                ok = 0;
            }
        } else {
            if (op->elem != EVT_F32) {
                diag_report(dl, EVT_SEV_ERROR, op->loc,
                            "%s does not support %s accumulators; 'acc' must be f32", ml->name,
                            evt_elem_name(op->elem));
                ok = 0;
            }
            if (op->layout) {
                diag_report(dl, EVT_SEV_ERROR, op->layout_loc,
                            "the accumulator has no layout; remove '%s'", op->layout);
                ok = 0;
            }
        }
        k->operands[i] = (evt_operand_info){op->name, op->elem, layout};
        k->operand_locs[i] = op->loc;
    }
    /* fp8 operands mix (e4m3 x e5m2: the tensor cores take it); others match */
    if (ok && ak->noperands >= 2 && k->operands[0].elem != k->operands[1].elem &&
        !(is_fp8(k->operands[0].elem) && is_fp8(k->operands[1].elem))) {
        diag_report(dl, EVT_SEV_ERROR, ak->operands[1].loc,
                    "operands '%s' and '%s' must have the same element type%s, not %s and %s",
                    ml->operands[0], ml->operands[1],
                    ml->fp8 ? ", or both be fp8 (e4m3, e5m2)" : "", evt_elem_name(k->operands[0].elem),
                    evt_elem_name(k->operands[1].elem));
        ok = 0;
    }
    const sym *ep = symtab_find(epilogues, ak->epilogue);
    if (ep)
        k->epilogue = out->funcs[ep->index];
    if (!k->epilogue) {
        diag_report(dl, EVT_SEV_ERROR, ak->epilogue_loc,
                    "kernel '%s' uses epilogue '%s', which is not defined", ak->name, ak->epilogue);
        ok = 0;
    }
    if (ok)
        ARENA_PUSH(a, out->kernels, out->nkernels, out->kernels_cap, k);
}

void ir_sema(arena *a, diag_list *dl, const ast_file *file, ir_module *out)
{
    memset(out, 0, sizeof *out);
    symtab epilogues = {.arena = a}, kernels = {.arena = a};
    for (size_t i = 0; i < file->nepilogues && !dl->stopped; i++) {
        const ast_epilogue *ep = file->epilogues[i];
        const sym *dup = symtab_find(&epilogues, ep->name);
        if (dup) {
            diag_report(dl, EVT_SEV_ERROR, ep->loc, "epilogue '%s' is already defined", ep->name);
            diag_report(dl, EVT_SEV_NOTE, dup->loc, "'%s' was first defined here", ep->name);
        }
        /* A duplicate is still checked, for the errors in its body. */
        ir_func *fn = sema_epilogue(a, dl, ep);
        sym *y = fn && !dup ? symtab_add(&epilogues, ep->name, SYM_LET, ep->loc) : NULL;
        if (y) {
            y->index = (int)out->nfuncs;
            ARENA_PUSH(a, out->funcs, out->nfuncs, out->funcs_cap, fn);
        }
    }
    for (size_t i = 0; i < file->nkernels && !dl->stopped; i++)
        sema_kernel(a, dl, file->kernels[i], &epilogues, &kernels, out);
}
