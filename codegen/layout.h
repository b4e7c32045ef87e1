/* layout.h - the byte layout of a kernel's argument struct.
 *
 * One description serves both sides: the emitter prints the struct from it
 * (with a static_assert on every offset, so NVRTC checks the host's
 * arithmetic), and the runtime packs launch arguments with it. */
#ifndef EVT_CODEGEN_LAYOUT_H
#define EVT_CODEGEN_LAYOUT_H

#include "../ir/ir.h"

typedef enum cg_field_type {
    CG_PTR, /* a device pointer (8 bytes) */
    CG_I64, /* long long */
    CG_I32, /* int */
    CG_F32  /* float */
} cg_field_type;

typedef enum cg_role {
    CG_ROLE_A,         /* mainloop.a */
    CG_ROLE_B,         /* mainloop.b */
    CG_ROLE_GEMM_M,    /* mainloop.m */
    CG_ROLE_GEMM_N,    /* mainloop.n */
    CG_ROLE_GEMM_K,    /* mainloop.k */
    CG_ROLE_LDA,       /* mainloop.lda */
    CG_ROLE_LDB,       /* mainloop.ldb */
    CG_ROLE_INPUT,     /* in<index> */
    CG_ROLE_INPUT_LD,  /* ld_in<index> ([M, N] inputs) */
    CG_ROLE_PARAM,     /* param<index> */
    CG_ROLE_OUTPUT,    /* out<index> */
    CG_ROLE_OUTPUT_LD, /* ld_out<index> (element-wise outputs) */
    CG_ROLE_WORKSPACE, /* ws<index> (reduction outputs) */
    CG_ROLE_M,         /* m: output rows */
    CG_ROLE_N          /* n: output columns */
} cg_role;

typedef struct cg_field {
    char name[24];  /* as written in the struct, e.g. "in0", "mainloop.lda" */
    cg_field_type type;
    cg_role role;
    int index;      /* input, param or output number */
    size_t offset;
} cg_field;

enum { CG_MAX_FIELDS = 512 };

typedef struct cg_layout {
    cg_field fields[CG_MAX_FIELDS];
    size_t nfields;
    size_t size; /* sizeof the struct, a multiple of 8 */
} cg_layout;

/* The argument struct of a GEMM kernel with epilogue fn; 0 if it has too many arguments. */
int cg_gemm_layout(const ir_func *fn, cg_layout *out);

#endif
