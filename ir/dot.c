/* dot.c - a module's epilogues as one Graphviz digraph, a cluster each:
 * inputs, ops, outputs, shapes.  One graph, not one per epilogue, so that
 * the whole text goes through one `dot` call (evtc --emit=dot | dot -Tsvg). */
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

/* Appends the id of value or output `index` of fn, unique across the
 * module's clusters: "EPILOGUE.vN" / "EPILOGUE.outN". */
static void put_id(strbuf *sb, const ir_func *fn, const char *kind, size_t index)
{
    sb_putc(sb, '"');
    put_escaped(sb, fn->name);
    sb_printf(sb, ".%s%zu\"", kind, index);
}

static void dot_func(const ir_func *fn, strbuf *sb)
{
    sb_puts(sb, "  subgraph \"cluster_");
    put_escaped(sb, fn->name);
    sb_puts(sb, "\" {\n    label=\"epilogue ");
    put_escaped(sb, fn->name);
    sb_puts(sb, "\";\n");
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        const char *shape = "ellipse";
        if (v->op == IR_INPUT || v->op == IR_ACC)
            shape = "box";
        else if (v->op == IR_PARAM || v->op == IR_CONST)
            shape = "plaintext";
        sb_puts(sb, "    ");
        put_id(sb, fn, "v", (size_t)v->id);
        sb_printf(sb, " [shape=%s, label=\"", shape);
        put_label(sb, fn, v);
        sb_puts(sb, "\"];\n");
    }
    for (size_t i = 0; i < fn->noutputs; i++) {
        const ir_arg *o = &fn->outputs[i];
        sb_puts(sb, "    ");
        put_id(sb, fn, "out", i);
        sb_puts(sb, " [shape=doubleoctagon, label=\"out ");
        put_escaped(sb, o->info.name);
        sb_printf(sb, ": %s%s\"];\n", evt_elem_name(o->info.elem), evt_shape_name(o->info.shape));
    }
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        for (int j = 0; j < v->nargs; j++) {
            sb_puts(sb, "    ");
            put_id(sb, fn, "v", (size_t)v->args[j]->id);
            sb_puts(sb, " -> ");
            put_id(sb, fn, "v", (size_t)v->id);
            if (v->op == IR_SELECT)
                sb_printf(sb, " [label=\"%s\"]", j == 0 ? "cond" : j == 1 ? "then" : "else");
            else if (v->nargs > 1 && !(ir_op_get(v->op)->flags & IR_COMMUTE))
                sb_printf(sb, " [label=\"%d\"]", j);
            sb_puts(sb, ";\n");
        }
    }
    for (size_t i = 0; i < fn->noutputs; i++) {
        if (!fn->outputs[i].value)
            continue;
        sb_puts(sb, "    ");
        put_id(sb, fn, "v", (size_t)fn->outputs[i].value->id);
        sb_puts(sb, " -> ");
        put_id(sb, fn, "out", i);
        sb_puts(sb, ";\n");
    }
    sb_puts(sb, "  }\n");
}

void ir_dot_module(const ir_module *m, const char *name, strbuf *sb)
{
    sb_puts(sb, "digraph \"");
    put_escaped(sb, name);
    sb_puts(sb, "\" {\n  rankdir=TB;\n  fontname=\"Helvetica\";\n"
                "  node [fontname=\"Helvetica\", fontsize=10];\n");
    for (size_t i = 0; i < m->nfuncs; i++)
        dot_func(m->funcs[i], sb);
    sb_puts(sb, "}\n");
}
