/* ir.c - the op table, and building hash-consed values. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

static const ir_op_info op_table[IR_OP_COUNT] = {
#define IR_OP_ROW(op, name, arity, flags) {name, arity, flags},
    IR_OPS(IR_OP_ROW)
#undef IR_OP_ROW
};

const ir_op_info *ir_op_get(ir_op op)
{
    return &op_table[op];
}

int ir_op_builtin(const char *name)
{
    for (int op = 0; op < IR_OP_COUNT; op++)
        if ((op_table[op].flags & IR_BUILTIN) && strcmp(op_table[op].name, name) == 0)
            return op;
    return -1;
}

ir_func *ir_func_new(arena *a, const char *name, src_loc loc)
{
    ir_func *fn = arena_alloc(a, sizeof *fn);
    if (fn) {
        fn->arena = a;
        fn->name = name;
        fn->loc = loc;
    }
    return fn;
}

evt_shape ir_reduce_shape(int axis)
{
    return (evt_shape)(EVT_SHAPE_MN & ~axis);
}

/* The attr bits that identify a value beyond its op and operands. */
static uint32_t attr_key(const ir_value *v)
{
    uint32_t k = 0;
    if (v->op == IR_CONST)
        memcpy(&k, &v->attr.f, sizeof k);
    else if (v->op == IR_INPUT || v->op == IR_PARAM)
        k = (uint32_t)v->attr.index;
    else if (ir_op_get(v->op)->flags & IR_REDUCE)
        k = (uint32_t)v->attr.axis;
    return k;
}

static size_t value_hash(const ir_value *v)
{
    uint64_t h = 1469598103934665603u ^ (uint64_t)v->op;
    h = (h ^ attr_key(v)) * 1099511628211u;
    for (int i = 0; i < v->nargs; i++)
        h = (h ^ (uint64_t)(uintptr_t)v->args[i]) * 1099511628211u;
    return (size_t)(h ^ (h >> 29));
}

static int value_equal(const ir_value *a, const ir_value *b)
{
    if (a->op != b->op || a->nargs != b->nargs || attr_key(a) != attr_key(b))
        return 0;
    for (int i = 0; i < a->nargs; i++)
        if (a->args[i] != b->args[i])
            return 0;
    return 1;
}

static int table_insert(ir_func *fn, ir_value *v)
{
    if (2 * (fn->nvalues + 1) > fn->table_cap) {
        size_t cap = fn->table_cap ? 2 * fn->table_cap : 64;
        ir_value **t = arena_alloc(fn->arena, cap * sizeof *t);
        if (!t)
            return 0;
        for (size_t i = 0; i < fn->table_cap; i++) {
            ir_value *old = fn->table[i];
            if (!old)
                continue;
            size_t j = value_hash(old) & (cap - 1);
            while (t[j])
                j = (j + 1) & (cap - 1);
            t[j] = old;
        }
        fn->table = t;
        fn->table_cap = cap;
    }
    size_t j = value_hash(v) & (fn->table_cap - 1);
    while (fn->table[j])
        j = (j + 1) & (fn->table_cap - 1);
    fn->table[j] = v;
    return 1;
}

ir_value *ir_func_find(const ir_func *fn, const ir_value *v)
{
    if (!fn->table_cap)
        return NULL;
    size_t j = value_hash(v) & (fn->table_cap - 1);
    for (ir_value *w; (w = fn->table[j]); j = (j + 1) & (fn->table_cap - 1))
        if (value_equal(w, v))
            return w;
    return NULL;
}

void ir_func_rehash(ir_func *fn)
{
    if (fn->table)
        memset(fn->table, 0, fn->table_cap * sizeof *fn->table);
    size_t n = fn->nvalues;
    fn->nvalues = 0; /* table_insert sizes by nvalues: grow as we go */
    for (size_t i = 0; i < n; i++) {
        table_insert(fn, fn->values[i]);
        fn->nvalues++;
    }
}

/* Gives v, which has no twin in fn, the next id and appends it to the hash
 * table and the value list; NULL where memory runs out. */
static ir_value *append_value(ir_func *fn, ir_value *v)
{
    v->id = (int)fn->nvalues;
    if (!table_insert(fn, v))
        return NULL;
    size_t before = fn->nvalues;
    ARENA_PUSH(fn->arena, fn->values, fn->nvalues, fn->values_cap, v);
    return fn->nvalues > before ? v : NULL;
}

/* Returns the existing twin of *proto, or appends a copy of it. */
static ir_value *intern(ir_func *fn, const ir_value *proto)
{
    ir_value *old = ir_func_find(fn, proto);
    if (old)
        return old;
    ir_value *v = arena_alloc(fn->arena, sizeof *v);
    if (!v)
        return NULL;
    *v = *proto;
    return append_value(fn, v);
}

ir_value *ir_const(ir_func *fn, float f, src_loc loc)
{
    ir_value proto = {.op = IR_CONST, .type = IR_F32, .shape = EVT_SHAPE_SCALAR, .loc = loc};
    proto.attr.f = f;
    return intern(fn, &proto);
}

ir_value *ir_leaf(ir_func *fn, ir_op op, int index, src_loc loc)
{
    ir_value proto = {.op = op, .type = IR_F32, .loc = loc};
    switch (op) {
    case IR_ACC:
        proto.shape = EVT_SHAPE_MN;
        break;
    case IR_INPUT:
        proto.attr.index = index;
        proto.shape = fn->inputs[index].info.shape;
        break;
    default: /* IR_PARAM */
        proto.attr.index = index;
        proto.shape = EVT_SHAPE_SCALAR;
        break;
    }
    return intern(fn, &proto);
}

ir_value *ir_build(ir_func *fn, ir_op op, ir_value *const *args, int nargs, int axis, src_loc loc)
{
    const ir_op_info *info = ir_op_get(op);
    ir_value proto = {.op = op, .nargs = nargs, .loc = loc};
    proto.type = (info->flags & IR_COMPARE) ? IR_BOOL : IR_F32;
    unsigned shape = 0;
    for (int i = 0; i < nargs; i++) {
        proto.args[i] = args[i];
        shape |= args[i]->shape;
    }
    if (info->flags & IR_REDUCE) {
        proto.attr.axis = axis;
        shape = ir_reduce_shape(axis);
    }
    proto.shape = (evt_shape)shape;
    return intern(fn, &proto);
}

void ir_func_count_uses(ir_func *fn)
{
    for (size_t i = 0; i < fn->nvalues; i++)
        fn->values[i]->uses = 0;
    for (size_t i = 0; i < fn->nvalues; i++)
        for (int j = 0; j < fn->values[i]->nargs; j++)
            fn->values[i]->args[j]->uses++;
    for (size_t i = 0; i < fn->noutputs; i++)
        if (fn->outputs[i].value)
            fn->outputs[i].value->uses++;
}

void ir_func_renumber(ir_func *fn)
{
    for (size_t i = 0; i < fn->nvalues; i++)
        fn->values[i]->id = (int)i;
}

/* Appends v, already built, unless an equal value is there; returns the value kept. */
static ir_value *adopt(ir_func *fn, ir_value *v)
{
    if (!(ir_op_get(v->op)->flags & (IR_LEAF | IR_REDUCE))) {
        unsigned shape = 0;
        for (int i = 0; i < v->nargs; i++)
            shape |= v->args[i]->shape;
        v->shape = (evt_shape)shape;
    }
    ir_value *twin = ir_func_find(fn, v);
    if (twin)
        return twin;
    return append_value(fn, v);
}

/* What replaced old value a: a kept value sits at its new index, a replaced
 * one still carries its old index into repl. */
static ir_value *replacement(const ir_func *fn, ir_value *const *repl, ir_value *a)
{
    size_t k = (size_t)a->id;
    return k < fn->nvalues && fn->values[k] == a ? a : repl[k];
}

int ir_func_rewrite(ir_func *fn, ir_rewriter *rewrite, void *user)
{
    size_t n = fn->nvalues;
    ir_value **old = malloc((n + 1) * sizeof *old);
    ir_value **repl = malloc((n + 1) * sizeof *repl);
    if (!old || !repl) {
        free(old);
        free(repl);
        fn->arena->failed = 1;
        return 0;
    }
    if (n)
        memcpy(old, fn->values, n * sizeof *old);
    ir_func_renumber(fn);
    if (fn->table)
        memset(fn->table, 0, fn->table_cap * sizeof *fn->table);
    fn->nvalues = 0;
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        ir_value *v = old[i];
        for (int j = 0; j < v->nargs; j++)
            v->args[j] = replacement(fn, repl, v->args[j]);
        ir_value *r = rewrite ? rewrite(fn, v, user) : v;
        if (r == v)
            r = adopt(fn, v);
        if (!r) {
            ok = 0;
            r = v;
        }
        repl[i] = r;
    }
    for (size_t i = 0; i < fn->noutputs; i++)
        if (fn->outputs[i].value)
            fn->outputs[i].value = replacement(fn, repl, fn->outputs[i].value);
    free(old);
    free(repl);
    ir_func_renumber(fn);
    ir_func_count_uses(fn);
    return ok;
}

/* args[0..n) copied into the arena with each value replaced by its copy. */
static ir_arg *copy_args(arena *a, const ir_arg *args, size_t n, const ir_func *fn, ir_value *const *copies)
{
    if (!n)
        return NULL;
    ir_arg *c = arena_alloc(a, n * sizeof *c);
    if (!c)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        c[i] = args[i];
        const ir_value *v = args[i].value;
        if (v && (size_t)v->id < fn->nvalues && fn->values[v->id] == v)
            c[i].value = copies[v->id];
    }
    return c;
}

int ir_func_copy(ir_func *fn, ir_func *out)
{
    ir_func_renumber(fn);
    ir_func c = *fn;
    c.values = NULL;
    c.nvalues = c.values_cap = 0;
    c.table = NULL;
    c.table_cap = 0;
    const size_t n = fn->nvalues;
    if (n) {
        c.values = arena_alloc(fn->arena, n * sizeof *c.values);
        if (!c.values)
            return 0;
        c.values_cap = n;
    }
    for (size_t i = 0; i < n; i++) {
        ir_value *v = arena_alloc(fn->arena, sizeof *v);
        if (!v)
            return 0;
        *v = *fn->values[i];
        for (int j = 0; j < v->nargs; j++)
            v->args[j] = c.values[v->args[j]->id]; /* operands come first: topological order */
        c.values[i] = v;
    }
    c.inputs = copy_args(fn->arena, fn->inputs, fn->ninputs, fn, c.values);
    c.params = copy_args(fn->arena, fn->params, fn->nparams, fn, c.values);
    c.outputs = copy_args(fn->arena, fn->outputs, fn->noutputs, fn, c.values);
    c.inputs_cap = fn->ninputs;
    c.params_cap = fn->nparams;
    c.outputs_cap = fn->noutputs;
    if ((fn->ninputs && !c.inputs) || (fn->nparams && !c.params) || (fn->noutputs && !c.outputs))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!table_insert(&c, c.values[i]))
            return 0;
        c.nvalues++;
    }
    *out = c;
    return 1;
}

void ir_func_compact(ir_func *fn, const unsigned char *keep)
{
    size_t kept = 0;
    for (size_t i = 0; i < fn->nvalues; i++)
        if (keep[fn->values[i]->id])
            fn->values[kept++] = fn->values[i];
    fn->nvalues = kept;
    ir_func_renumber(fn);
    ir_func_rehash(fn);
    ir_func_count_uses(fn);
}

int ir_func_reads_input(const ir_func *fn, size_t i)
{
    for (size_t j = 0; j < fn->nvalues; j++)
        if (fn->values[j]->op == IR_INPUT && fn->values[j]->attr.index == (int)i)
            return 1;
    return 0;
}
