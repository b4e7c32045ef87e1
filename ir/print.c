/* print.c - IR as stable text: one line per value, in topological order. */
#include "ir.h"
#include "../support/names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ir_print_float(strbuf *sb, float f)
{
    if (isnan(f)) {
        sb_puts(sb, signbit(f) ? "-nan" : "nan");
        return;
    }
    if (isinf(f)) {
        sb_puts(sb, f < 0 ? "-inf" : "inf");
        return;
    }
    char buf[48];
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, (double)f);
        float back = strtof(buf, NULL);
        if (memcmp(&back, &f, sizeof f) == 0)
            break;
    }
    /* %g writes 200 as 2e+02; an integer written out is exact, and often shorter. */
    char whole[48];
    if (strchr(buf, 'e') && f == truncf(f)) {
        snprintf(whole, sizeof whole, "%.0f", (double)f);
        if (strlen(whole) <= strlen(buf))
            memcpy(buf, whole, sizeof buf);
    }
    sb_puts(sb, buf);
}

static void put_type(strbuf *sb, const char *elem, evt_shape shape)
{
    sb_puts(sb, elem);
    sb_puts(sb, evt_shape_name(shape));
}

static const char *axis_name(int axis)
{
    switch (axis) {
    case EVT_SHAPE_M: return "M";
    case EVT_SHAPE_N: return "N";
    default: return "M, N";
    }
}

/* Pads the current line to `column` characters (at least one space). */
static void pad_to(strbuf *sb, size_t line_start, size_t column)
{
    size_t used = sb->len - line_start;
    do
        sb_putc(sb, ' ');
    while (++used < column);
}

static void print_value(const ir_func *fn, const ir_value *v, strbuf *sb)
{
    size_t start = sb->len;
    const ir_op_info *info = ir_op_get(v->op);
    sb_printf(sb, "  %%%d = %s", v->id, info->name);
    switch (v->op) {
    case IR_CONST:
        sb_putc(sb, ' ');
        ir_print_float(sb, v->attr.f);
        break;
    case IR_INPUT:
        sb_printf(sb, " %s", fn->inputs[v->attr.index].info.name);
        break;
    case IR_PARAM:
        sb_printf(sb, " %s", fn->params[v->attr.index].info.name);
        break;
    default:
        for (int i = 0; i < v->nargs; i++)
            sb_printf(sb, "%s%%%d", i ? ", " : " ", v->args[i]->id);
        if (info->flags & IR_REDUCE)
            sb_printf(sb, " over %s", axis_name(v->attr.axis));
    }
    sb_puts(sb, " : ");
    put_type(sb, v->type == IR_BOOL ? "bool" : "f32", v->shape);
    pad_to(sb, start, 48);
    sb_printf(sb, "; %u:%u%s\n", v->loc.line, v->loc.column, v->hoisted ? ", once per block" : "");
}

void ir_print_func(const ir_func *fn, strbuf *sb)
{
    sb_printf(sb, "epilogue %s {\n", fn->name);
    for (size_t i = 0; i < fn->nparams; i++) {
        const evt_arg_info *p = &fn->params[i].info;
        sb_printf(sb, "  param %s: %s", p->name, evt_elem_name(p->elem));
        if (p->has_default) {
            sb_puts(sb, " = ");
            ir_print_float(sb, p->default_value);
        }
        sb_putc(sb, '\n');
    }
    for (size_t i = 0; i < fn->ninputs; i++) {
        const evt_arg_info *in = &fn->inputs[i].info;
        sb_printf(sb, "  in %s: ", in->name);
        put_type(sb, evt_elem_name(in->elem), in->shape);
        sb_putc(sb, '\n');
    }
    for (size_t i = 0; i < fn->nvalues; i++)
        print_value(fn, fn->values[i], sb);
    for (size_t i = 0; i < fn->noutputs; i++) {
        const ir_arg *o = &fn->outputs[i];
        sb_printf(sb, "  out %s: ", o->info.name);
        put_type(sb, evt_elem_name(o->info.elem), o->info.shape);
        sb_printf(sb, " = %%%d\n", o->value ? o->value->id : -1);
    }
    sb_puts(sb, "}\n");
}

void ir_print_kernel(const ir_kernel *k, strbuf *sb)
{
    sb_printf(sb, "kernel %s = %s(", k->name, evt_mainloop_name(k->mainloop));
    for (int i = 0; i < 3; i++) {
        const evt_operand_info *op = &k->operands[i];
        sb_printf(sb, "%s%s: %s", i ? ", " : "", op->name, evt_elem_name(op->elem));
        if (op->layout != EVT_LAYOUT_NONE)
            sb_printf(sb, " %s", names_layout(op->layout));
    }
    sb_printf(sb, ") with %s\n", k->epilogue->name);
}

void ir_print_module(const ir_module *m, strbuf *sb)
{
    for (size_t i = 0; i < m->nfuncs; i++) {
        if (i)
            sb_putc(sb, '\n');
        ir_print_func(m->funcs[i], sb);
    }
    if (m->nkernels && m->nfuncs)
        sb_putc(sb, '\n');
    for (size_t i = 0; i < m->nkernels; i++)
        ir_print_kernel(m->kernels[i], sb);
}
