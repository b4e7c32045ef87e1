/* cg.h - code generation: optimized IR -> CUDA C++ -> PTX/cubin. */
#ifndef EVT_CODEGEN_CG_H
#define EVT_CODEGEN_CG_H

#include "../ir/ir.h"
#include "../support/strbuf.h"
#include "../kernels/gemm_sm80.cuh"

/*
 * Appends the self-contained CUDA translation unit of kernel k for `target`
 * ("sm_80", ...) to sb: every entry point when variant < 0, else only the one
 * cg_variant names (what a launch needs: 1/6 of the compile time).  `file`
 * names the .evt source in comments.  Returns 0 with the reason in err when
 * the kernel cannot be generated.
 */
int cg_emit_cuda(const ir_kernel *k, const char *file, const char *target, int variant,
                 strbuf *sb, strbuf *err);
/* The variant number of tile configuration `config_id` (gemm_sm80.cuh), aligned
 * (fast path) or guarded, plain or split-K (the _splitk and _splitsum entries
 * of evt_sm80_split_plan); -1 if the kernel is not built for that configuration. */
int cg_variant(int config_id, int aligned, int split);
/* Tile configurations of a mainloop (ids of kernels/<mainloop>_sm80.cuh):
 * how many, the heuristic's pick for an M x N x K (GEMM view) problem on
 * `sms` multiprocessors, and the shape of one. */
int cg_num_configs(evt_mainloop ml);
/* The configuration EVT_CONFIG=<id> forces (for tuning the heuristics and
 * for quick compile checks: launches and --emit listings use only it), or -1
 * (also when k cannot run it on target: wgmma configurations are sm_90a's).
 * EVT_SPLITK=1 adds the split-K entries to --emit listings and makes launches
 * split every tile in two (for tests); EVT_SPLITK=0 turns split-K off. */
int cg_forced_config(const ir_kernel *k, const char *target);
/* tma: a producer/consumer configuration may be picked (its TMA maps can be
 * made: the fast path, a driver with them, and for a conv c a multiple of
 * its BK) */
int cg_pick(const ir_kernel *k, const char *target, long long m, long long n, long long kk, int sms,
            int tma);
evt_gemm_sm80_cfg_info cg_config(evt_mainloop ml, int id);
/* The epilogue input a staged configuration (cfg.staged) copies into shared
 * memory ahead of the epilogue: the first [M, N] f16 or bf16 input the
 * epilogue reads; -1 if none. */
int cg_staged_input(const ir_func *fn);

/* evt_<kernel>_<mainloop>: the prefix of every entry point of k. */
void cg_kernel_basename(const ir_kernel *k, strbuf *sb);
/* The entry point of kernel k for target, tile configuration config_id, fast
 * (aligned) or guarded, plain (split 0), split-K main (1) or split-K sum (2):
 * evt_<kernel>_<mainloop>_<BMxBNxBK>[_guarded][_splitk|_splitsum]_sm<NN>.
 * The split entries take (args, float *split_ws, int splits): _splitk runs
 * tiles x splits CTAs, each a share of K of tile blockIdx.x / splits into
 * slot blockIdx.x; _splitsum one CTA per tile, adding its slots and running
 * the epilogue. */
void cg_entry_name(const ir_kernel *k, const char *target, int config_id, int aligned, int split,
                   strbuf *sb);
/* 1 if fn has a reduction output (the kernel then has _reduce_init/_finish entries). */
int cg_has_reductions(const ir_func *fn);

#endif
