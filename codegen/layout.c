/* layout.c - argument struct layout: C's natural alignment, fields in a fixed order. */
#include "layout.h"

#include <stdio.h>

static size_t type_size(cg_field_type t)
{
    return t == CG_PTR || t == CG_I64 ? 8 : 4;
}

static int add(cg_layout *l, const char *name, int index, cg_field_type type, cg_role role)
{
    if (l->nfields == CG_MAX_FIELDS)
        return 0;
    cg_field *f = &l->fields[l->nfields++];
    /* name and index by hand: every emission and launch lays out its
     * struct, and snprintf showed in their profiles (docs/fuzzing.md) */
    char digits[12], *d = digits + sizeof digits;
    if (index >= 0 && role != CG_ROLE_OPERAND && role != CG_ROLE_OPERAND_LD && role != CG_ROLE_SIZE &&
        role != CG_ROLE_OPERAND_STRIDE && role != CG_ROLE_BATCH && role != CG_ROLE_BATCH_INDEX)
        for (unsigned v = (unsigned)index; d == digits + sizeof digits || v; v /= 10)
            *--d = (char)('0' + v % 10);
    size_t n = 0;
    for (; name[n] && n < sizeof f->name - 1; n++)
        f->name[n] = name[n];
    for (; d < digits + sizeof digits && n < sizeof f->name - 1; d++)
        f->name[n++] = *d;
    f->name[n] = '\0';
    size_t sz = type_size(type);
    f->type = type;
    f->role = role;
    f->index = index;
    f->offset = (l->size + sz - 1) / sz * sz;
    l->size = f->offset + sz;
    return 1;
}

const char *cg_mainloop_args_type(const ir_kernel *k)
{
    return k->mainloop == EVT_MAINLOOP_GEMM ? "evt_gemm_args" : "evt_conv_args";
}

/* evt_gemm_args of kernels/mainloops/gemm.cuh: 72 bytes. */
static int gemm_fields(cg_layout *l)
{
    return add(l, "mainloop.a", 0, CG_PTR, CG_ROLE_OPERAND) &&
           add(l, "mainloop.b", 1, CG_PTR, CG_ROLE_OPERAND) &&
           add(l, "mainloop.m", 0, CG_I32, CG_ROLE_SIZE) &&
           add(l, "mainloop.n", 1, CG_I32, CG_ROLE_SIZE) &&
           add(l, "mainloop.k", 2, CG_I32, CG_ROLE_SIZE) &&
           add(l, "mainloop.lda", 0, CG_I64, CG_ROLE_OPERAND_LD) &&
           add(l, "mainloop.ldb", 1, CG_I64, CG_ROLE_OPERAND_LD) &&
           add(l, "mainloop.stride_a", 0, CG_I64, CG_ROLE_OPERAND_STRIDE) &&
           add(l, "mainloop.stride_b", 1, CG_I64, CG_ROLE_OPERAND_STRIDE) &&
           add(l, "mainloop.batch", 0, CG_I32, CG_ROLE_BATCH) &&
           add(l, "mainloop.index", 0, CG_I32, CG_ROLE_BATCH_INDEX);
}

/* evt_conv_args of kernels/mainloops/conv2d_fprop.cuh: 80 bytes. */
static int conv_fields(cg_layout *l)
{
    static const char *const sizes[CG_MAX_SIZES] = {
        "n", "h", "wd", "c", "k", "r", "s", "p", "q",
        "pad_h", "pad_w", "stride_h", "stride_w", "dil_h", "dil_w"};
    int ok = add(l, "mainloop.x", 0, CG_PTR, CG_ROLE_OPERAND) &&
             add(l, "mainloop.w", 1, CG_PTR, CG_ROLE_OPERAND);
    for (int i = 0; ok && i < CG_MAX_SIZES; i++) {
        char name[24];
        snprintf(name, sizeof name, "mainloop.%s", sizes[i]);
        ok = add(l, name, i, CG_I32, CG_ROLE_SIZE);
    }
    return ok;
}

int cg_layout_of(const ir_kernel *k, cg_layout *l)
{
    const ir_func *fn = k->epilogue;
    l->nfields = 0;
    l->size = 0;
    int ok = k->mainloop == EVT_MAINLOOP_GEMM ? gemm_fields(l) : conv_fields(l);
    l->size = (l->size + 7) / 8 * 8;
    for (size_t i = 0; ok && i < fn->ninputs; i++) {
        ok = add(l, "in", (int)i, CG_PTR, CG_ROLE_INPUT);
        if (ok && fn->inputs[i].info.shape == EVT_SHAPE_MN)
            ok = add(l, "ld_in", (int)i, CG_I64, CG_ROLE_INPUT_LD);
        ok = ok && add(l, "bs_in", (int)i, CG_I64, CG_ROLE_INPUT_STRIDE);
    }
    for (size_t i = 0; ok && i < fn->nparams; i++)
        ok = add(l, "param", (int)i, CG_F32, CG_ROLE_PARAM);
    for (size_t i = 0; ok && i < fn->noutputs; i++) {
        ok = add(l, "out", (int)i, CG_PTR, CG_ROLE_OUTPUT);
        if (ok && fn->outputs[i].info.reduce != EVT_REDUCE_NONE)
            ok = add(l, "ws", (int)i, CG_PTR, CG_ROLE_WORKSPACE);
        else if (ok)
            ok = add(l, "ld_out", (int)i, CG_I64, CG_ROLE_OUTPUT_LD);
        ok = ok && add(l, "bs_out", (int)i, CG_I64, CG_ROLE_OUTPUT_STRIDE);
    }
    ok = ok && add(l, "m", -1, CG_I32, CG_ROLE_M) && add(l, "n", -1, CG_I32, CG_ROLE_N);
    l->size = (l->size + 7) / 8 * 8;
    return ok;
}
