/* dot.c - an epilogue as a Graphviz digraph: inputs, ops, outputs, shapes. */
#include "ir.h"
#include "../support/names.h"

#include <stdio.h>

/* Appends s as the inside of a DOT string literal. */
static void put_escaped(strbuf *sb, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            sb_putc(sb, '\\');
        sb_putc(sb, *s);
    }
}

static void put_label(strbuf *sb, const ir_func *fn, const ir_value *v)
{
    switch (v->op) {
    case IR_CONST:
        ir_print_float(sb, v->attr.f);
        break;
    case IR_ACC:
        sb_puts(sb, "acc");
        break;
    case IR_INPUT:
        sb_puts(sb, "in ");
        put_escaped(sb, fn->inputs[v->attr.index].info.name);
        sb_printf(sb, ": %s", evt_elem_name(fn->inputs[v->attr.index].info.elem));
        break;
    case IR_PARAM:
        sb_puts(sb, "param ");
        put_escaped(sb, fn->params[v->attr.index].info.name);
        break;
    default:
        sb_puts(sb, ir_op_get(v->op)->name);
    }
    sb_puts(sb, "\\n");
    sb_puts(sb, v->type == IR_BOOL ? "bool" : "f32");
    sb_puts(sb, evt_shape_name(v->shape));
}

void ir_dot_func(const ir_func *fn, strbuf *sb)
{
    sb_puts(sb, "digraph \"");
    put_escaped(sb, fn->name);
    sb_puts(sb, "\" {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n");
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        const char *shape = "ellipse";
        if (v->op == IR_INPUT || v->op == IR_ACC)
            shape = "box";
        else if (v->op == IR_PARAM || v->op == IR_CONST)
            shape = "plaintext";
        sb_printf(sb, "  v%d [shape=%s, label=\"", v->id, shape);
        put_label(sb, fn, v);
        sb_puts(sb, "\"];\n");
    }
    for (size_t i = 0; i < fn->noutputs; i++) {
        const ir_arg *o = &fn->outputs[i];
        sb_printf(sb, "  out%zu [shape=doubleoctagon, label=\"out ", i);
        put_escaped(sb, o->info.name);
        sb_printf(sb, ": %s%s\"];\n", evt_elem_name(o->info.elem), evt_shape_name(o->info.shape));
    }
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        for (int j = 0; j < v->nargs; j++) {
            sb_printf(sb, "  v%d -> v%d", v->args[j]->id, v->id);
            if (v->op == IR_SELECT)
                sb_printf(sb, " [label=\"%s\"]", j == 0 ? "cond" : j == 1 ? "then" : "else");
            else if (v->nargs > 1 && !(ir_op_get(v->op)->flags & IR_COMMUTE))
                sb_printf(sb, " [label=\"%d\"]", j);
            sb_puts(sb, ";\n");
        }
    }
    for (size_t i = 0; i < fn->noutputs; i++)
        if (fn->outputs[i].value)
            sb_printf(sb, "  v%d -> out%zu;\n", fn->outputs[i].value->id, i);
    sb_puts(sb, "}\n");
}
