/* layout.h - the byte layout of a kernel's argument struct.
 *
 * One description serves both sides: the emitter prints the struct from it
 * (with a static_assert on every offset, so NVRTC checks the host's
 * arithmetic), and the runtime packs launch arguments with it. */
#ifndef EVT_CODEGEN_LAYOUT_H
#define EVT_CODEGEN_LAYOUT_H

#include "../ir/ir.h"

/* A reduction output's workspace for one problem of an m x n output: rows x
 * cols words (an [M] one m x 1, an [N] one 1 x n, a scalar one word; more
 * words for a scalar, the CTAs' atomics spread over them, gained nothing:
 * docs/fp8.md, session 41); the runtime sizes it, the emitter's extents
 * agree. */
static inline void cg_reduction_dims(evt_shape s, long long m, long long n, long long *rows, long long *cols)
{
    *rows = s == EVT_SHAPE_M ? m : 1;
    *cols = s == EVT_SHAPE_N ? n : 1;
}

typedef enum cg_field_type {
    CG_PTR, /* a device pointer (8 bytes) */
    CG_I64, /* long long */
    CG_I32, /* int */
    CG_F32  /* float */
} cg_field_type;

typedef enum cg_role {
    CG_ROLE_OPERAND,    /* mainloop operand <index>: 0 = A or x, 1 = B or w */
    CG_ROLE_OPERAND_LD, /* leading dimension of operand <index> (GEMM) */
    CG_ROLE_SIZE,       /* problem size <index>: GEMM m, n, k; conv n, h, wd, c, k, r, s,
                           p, q, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w */
    CG_ROLE_INPUT,      /* in<index> */
    CG_ROLE_INPUT_LD,   /* ld_in<index> ([M, N] inputs) */
    CG_ROLE_PARAM,      /* param<index> */
    CG_ROLE_OUTPUT,     /* out<index> */
    CG_ROLE_OUTPUT_LD,  /* ld_out<index> (element-wise outputs) */
    CG_ROLE_WORKSPACE,  /* ws<index> (reduction outputs) */
    CG_ROLE_M,          /* m: output rows */
    CG_ROLE_N,          /* n: output columns */
    CG_ROLE_OPERAND_STRIDE, /* batch stride of operand <index> (GEMM) in bytes, 0 for a batch of one */
    CG_ROLE_BATCH,          /* the batch's problems (GEMM; 1: a plain launch) */
    CG_ROLE_BATCH_INDEX,    /* the problem a description is of: 0 as packed (GEMM) */
    CG_ROLE_INPUT_STRIDE,   /* bs_in<index>: batch stride of an input, 0 for a batch of one */
    CG_ROLE_OUTPUT_STRIDE   /* bs_out<index>: batch stride of an output, likewise */
} cg_role;

typedef struct cg_field {
    char name[24];  /* as written in the struct, e.g. "in0", "mainloop.lda" */
    cg_field_type type;
    cg_role role;
    int index;      /* operand, size, input, param or output number */
    size_t offset;
} cg_field;

enum { CG_MAX_FIELDS = 512 };

typedef struct cg_layout {
    cg_field fields[CG_MAX_FIELDS];
    size_t nfields;
    size_t size; /* sizeof the struct, a multiple of 8 */
} cg_layout;

enum { CG_MAX_SIZES = 15 }; /* problem sizes of the largest mainloop (conv) */

/* The argument struct of kernel k: the mainloop's problem struct (fields
 * "mainloop.*"), then the epilogue's; 0 if it has too many arguments. */
int cg_layout_of(const ir_kernel *k, cg_layout *out);
/* The CUDA type of the mainloop's problem struct: "evt_gemm_args", "evt_conv_args". */
const char *cg_mainloop_args_type(const ir_kernel *k);

#endif
