/* verify.c - checks the IR invariants listed in ir.h. */
#include "ir.h"

static int fail(strbuf *why, const ir_func *fn, const ir_value *v, const char *what)
{
    if (why)
        sb_printf(why, "epilogue %s: value %%%d (%s): %s", fn->name, v ? v->id : -1,
                  !v ? "-" : (unsigned)v->op < IR_OP_COUNT ? ir_op_get(v->op)->name : "?", what);
    return 0;
}

int ir_verify(const ir_func *fn, strbuf *why)
{
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        if (v->op < 0 || v->op >= IR_OP_COUNT)
            return fail(why, fn, v, "unknown op");
        const ir_op_info *info = ir_op_get(v->op);
        if (v->id != (int)i)
            return fail(why, fn, v, "id is not its index (renumber after editing values)");
        if (v->nargs != info->arity)
            return fail(why, fn, v, "wrong number of operands");
        unsigned shape = 0;
        for (int j = 0; j < v->nargs; j++) {
            const ir_value *a = v->args[j];
            if (!a || a->id < 0 || a->id >= (int)i || fn->values[a->id] != a)
                return fail(why, fn, v, "operand is not an earlier value of this epilogue");
            int want_bool = v->op == IR_SELECT && j == 0;
            if ((a->type == IR_BOOL) != want_bool)
                return fail(why, fn, v, want_bool ? "select condition is not a boolean"
                                                  : "boolean used as a number");
            if (ir_op_get(a->op)->flags & IR_REDUCE)
                return fail(why, fn, v, "reduction used by an expression");
            shape |= a->shape;
        }
        switch (v->op) {
        case IR_CONST:
        case IR_PARAM:
            if (v->shape != EVT_SHAPE_SCALAR)
                return fail(why, fn, v, "a constant or param must be a scalar");
            if (v->op == IR_PARAM && (v->attr.index < 0 || (size_t)v->attr.index >= fn->nparams))
                return fail(why, fn, v, "param index out of range");
            break;
        case IR_ACC:
            if (v->shape != EVT_SHAPE_MN)
                return fail(why, fn, v, "acc must be [M, N]");
            break;
        case IR_INPUT:
            if (v->attr.index < 0 || (size_t)v->attr.index >= fn->ninputs)
                return fail(why, fn, v, "input index out of range");
            if (v->shape != fn->inputs[v->attr.index].info.shape)
                return fail(why, fn, v, "input shape differs from its declaration");
            break;
        default:
            if (info->flags & IR_REDUCE) {
                if (v->attr.axis < 1 || v->attr.axis > 3 || v->shape != ir_reduce_shape(v->attr.axis))
                    return fail(why, fn, v, "bad reduction axis or shape");
            } else if (v->shape != (evt_shape)shape) {
                return fail(why, fn, v, "shape is not the broadcast of its operands");
            }
        }
        ir_type want = (info->flags & IR_COMPARE) ? IR_BOOL : IR_F32;
        if (v->type != want)
            return fail(why, fn, v, "wrong result type");
        if (ir_func_find(fn, v) != v)
            return fail(why, fn, v, "not the hash-consed value (duplicate, or stale table)");
    }
    for (size_t i = 0; i < fn->noutputs; i++) {
        const ir_arg *o = &fn->outputs[i];
        const ir_value *v = o->value;
        if (!v || v->id < 0 || v->id >= (int)fn->nvalues || fn->values[v->id] != v)
            return fail(why, fn, v, "output value is not a value of this epilogue");
        if (v->type != IR_F32)
            return fail(why, fn, v, "output stores a boolean");
        int is_reduce = (ir_op_get(v->op)->flags & IR_REDUCE) != 0;
        if (is_reduce != (o->info.reduce != EVT_REDUCE_NONE))
            return fail(why, fn, v, "output reduction flag disagrees with its value");
        if (is_reduce ? v->shape != o->info.shape : o->info.shape != EVT_SHAPE_MN)
            return fail(why, fn, v, "output shape does not fit its value");
    }
    return 1;
}
