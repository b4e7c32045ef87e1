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
    if (index >= 0)
        snprintf(f->name, sizeof f->name, "%s%d", name, index);
    else
        snprintf(f->name, sizeof f->name, "%s", name);
    size_t sz = type_size(type);
    f->type = type;
    f->role = role;
    f->index = index;
    f->offset = (l->size + sz - 1) / sz * sz;
    l->size = f->offset + sz;
    return 1;
}

int cg_gemm_layout(const ir_func *fn, cg_layout *l)
{
    l->nfields = 0;
    l->size = 0;
    /* evt_gemm_args of gemm_sm80.cuh, nested first: 48 bytes. */
    int ok = add(l, "mainloop.a", -1, CG_PTR, CG_ROLE_A) &&
             add(l, "mainloop.b", -1, CG_PTR, CG_ROLE_B) &&
             add(l, "mainloop.m", -1, CG_I32, CG_ROLE_GEMM_M) &&
             add(l, "mainloop.n", -1, CG_I32, CG_ROLE_GEMM_N) &&
             add(l, "mainloop.k", -1, CG_I32, CG_ROLE_GEMM_K) &&
             add(l, "mainloop.lda", -1, CG_I64, CG_ROLE_LDA) &&
             add(l, "mainloop.ldb", -1, CG_I64, CG_ROLE_LDB);
    l->size = (l->size + 7) / 8 * 8;
    for (size_t i = 0; ok && i < fn->ninputs; i++) {
        ok = add(l, "in", (int)i, CG_PTR, CG_ROLE_INPUT);
        if (ok && fn->inputs[i].info.shape == EVT_SHAPE_MN)
            ok = add(l, "ld_in", (int)i, CG_I64, CG_ROLE_INPUT_LD);
    }
    for (size_t i = 0; ok && i < fn->nparams; i++)
        ok = add(l, "param", (int)i, CG_F32, CG_ROLE_PARAM);
    for (size_t i = 0; ok && i < fn->noutputs; i++) {
        ok = add(l, "out", (int)i, CG_PTR, CG_ROLE_OUTPUT);
        if (ok && fn->outputs[i].info.reduce != EVT_REDUCE_NONE)
            ok = add(l, "ws", (int)i, CG_PTR, CG_ROLE_WORKSPACE);
        else if (ok)
            ok = add(l, "ld_out", (int)i, CG_I64, CG_ROLE_OUTPUT_LD);
    }
    ok = ok && add(l, "m", -1, CG_I32, CG_ROLE_M) && add(l, "n", -1, CG_I32, CG_ROLE_N);
    l->size = (l->size + 7) / 8 * 8;
    return ok;
}
