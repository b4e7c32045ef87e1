/* cg.h - code generation: optimized IR -> CUDA C++ -> PTX/cubin. */
#ifndef EVT_CODEGEN_CG_H
#define EVT_CODEGEN_CG_H

#include "../ir/ir.h"
#include "../plan/plan.h"
#include "../support/strbuf.h"

/* Which entry points a translation unit holds. */
typedef struct cg_select {
    /* NULL: the full listing, every configuration plan_listed admits for the
     * kernel on the target; else only this one (a launch's, or a forced one) */
    const plan_config *config;
    int aligned;   /* 1: the fast entries, 0: the guarded ones, -1: both */
    int split;     /* 0: plain entries, 1: the split-K pair (_splitk, _splitsum), 2: both */
    int row_group; /* rows per epilogue row group: 0 the code generator's choice, or 1..16 */
    int fast_math; /* 1: exp, sigmoid, silu, gelu_tanh, gelu from common/fast_math.h */
    /* producer/consumer configurations' epilogue: 1 through the
     * shared-memory tile even where the register-direct one applies, -1
     * in registers wherever the epilogue is per-element (its looped form
     * too), 0 the code generator's choice (emit_cuda.c, direct_runs) */
    int shared_epi;
} cg_select;

/*
 * The parts of a kernel's translation unit that neither the target nor the
 * configurations change: its names, the head comment, the argument struct,
 * the epilogue and its L2 prefetch, the fast path's condition and the
 * reduction kernels.  A cache
 * keeps it from one cg_emit_cuda to the next of the same kernel and row
 * group (evtc and evt_kernel_cuda emit a kernel for several targets, a
 * launch loads several configurations), so only the entry points are
 * written again.  Zero-initialized (cg_cache_init) it holds nothing; its
 * owner frees it when the IR changes.
 */
typedef struct cg_cache {
    const ir_kernel *k; /* whose texts these are; NULL: none */
    int row_group;      /* the cg_select.row_group they were written for */
    int fast_math;      /* and its fast_math */
    strbuf base, sname, fname; /* evt_<kernel>_<mainloop>, its _args struct, its _epilogue */
    strbuf head;        /* the comment's first lines, through the kernel's */
    strbuf common;      /* argument struct, epilogue, prefetch */
    strbuf fast;        /* the FAST epilogue's condition */
    strbuf reduce;      /* _reduce_init and _reduce_finish, if any */
} cg_cache;

void cg_cache_init(cg_cache *c);
/* Frees the texts; the cache then holds nothing. */
void cg_cache_free(cg_cache *c);

/*
 * Appends the CUDA translation unit of kernel k for `target`, which includes
 * kernels/ headers only, to sb, with the entry points `sel` names (a launch
 * compiles only the one it needs: 1/6 of the compile time of the full
 * listing).  `file` names the .evt source in comments, the same for every
 * call with one cache; cache may be NULL.  Returns 0 with the reason in err
 * when the kernel cannot be generated, or with sb->failed set when memory
 * ran out.
 */
int cg_emit_cuda(const ir_kernel *k, const char *file, evt_target target, const cg_select *sel,
                 cg_cache *cache, strbuf *sb, strbuf *err);

/* evt_<kernel>_<mainloop>: the prefix of every entry point of k. */
void cg_kernel_basename(const ir_kernel *k, strbuf *sb);
/* The entry point of kernel k for target, configuration c, fast (aligned)
 * or guarded, plain (split 0), split-K main (1) or split-K sum (2):
 * evt_<kernel>_<mainloop>_<config>[_guarded][_splitk|_splitsum]_<sm>, e.g.
 * evt_linear_gemm_sm90_pp2_128x128x64_s4_sm90a.  The split entries take
 * (args, float *split_ws, int splits): _splitk runs tiles x splits CTAs,
 * each a share of K of tile blockIdx.x / splits into slot blockIdx.x;
 * _splitsum one CTA per tile, adding its slots and running the epilogue. */
void cg_entry_name(const ir_kernel *k, evt_target target, const plan_config *c, int aligned,
                   int split, strbuf *sb);
/* 1 if fn has a reduction output (the kernel then has _reduce_init/_finish entries). */
int cg_has_reductions(const ir_func *fn);
/* 1 if the fast (aligned) plain entry of configuration c that sel names
 * runs fn's epilogue on the consumers' registers (the sm_90a
 * producer/consumer tiles' register-direct epilogue), not on the shared
 * tile. */
int cg_direct_epilogue(const ir_func *fn, const plan_config *c, const cg_select *sel);

#endif
