/* module.h - what a context and a module hold (the public handles' insides). */
#ifndef EVT_API_MODULE_H
#define EVT_API_MODULE_H

#include "../grammar/ast.h"
#include "../ir/ir.h"
#include "../plan/plan.h"
#include "../codegen/cg.h"

#include <evt/evt.h>

enum { EVT_MAX_SOURCE = 256 << 20 }; /* larger inputs are refused with EVT_ERR_LIMIT */

struct cg_nvrtc;
struct rt_tunedb;

/* An evt_tuning, checked (tuning_parse). */
typedef struct api_tuning {
    plan_options plan; /* a forced configuration, split-K */
    int row_group;     /* 0: the code generator's */
    int ignore_records; /* launches do not take the tuning database's plans */
    int repack; /* a forced plan's run still repacks unaligned operands (the tuner's, not tests') */
    int shared_epi; /* evt_tuning.shared_epilogue's sign: 1 the shared tile, -1 registers, 0 the library's */
} api_tuning;
struct rt_driver;
struct rt_cached_module;

struct evt_ctx {
    char error[512];                /* evt_ctx_last_error */
    struct cg_nvrtc *nvrtc;         /* loaded on first compile; NULL before */
    struct rt_driver *driver;       /* loaded on first launch; NULL before */
    struct rt_cached_module *cache; /* loaded CUmodules, newest first */
    api_tuning tuning;              /* evt_ctx_set_tuning: where compiles and launches start */
    int fast_math;                  /* evt_ctx_set_fast_math */
    struct rt_tunedb *tunedb;       /* evt_launch_tune's records, read on first use */
    unsigned tunedb_generation;     /* bumped by every record: launches look again */
    /* The clusters the device of CUDA context clusters_ctx holds at once
     * (launch.c's device_clusters): asked once a context, since asking
     * loads a module, not once a launch. */
    struct rt_cu_context_s *clusters_ctx;
    int clusters_dev;
    plan_clusters clusters;
    char nvrtc_path[4096];          /* evt_ctx_set_library_path; "": the default search */
    char driver_path[4096];
    strbuf scratch; /* evt_kernel_cuda renders here before its copy into the
                       module: emissions reuse its memory instead of growing
                       a new buffer each (docs/fuzzing.md) */
};

struct evt_module {
    evt_ctx *ctx;
    arena arena;      /* AST, IR, diagnostics, names: freed at once */
    char *source;     /* a copy of the input */
    size_t source_len;
    diag_list diags;
    ast_file ast;
    ir_module ir;
    strbuf diag_text[2]; /* by evt_diag_format, rendered on demand */
    strbuf ir_text, dot_text;
    cg_cache cuda; /* the last generated kernel's target-independent CUDA */
};

/* The CUDA source of k for t with the entry points sel names, appended to
 * src (in the C locale); EVT_OK, or the status with the reason on m's context. */
evt_status kernel_generate(evt_module *m, const evt_kernel *k, evt_target t, const cg_select *sel,
                           strbuf *src);

/* EVT_ERR_UNSUPPORTED, with "configuration C cannot run kernel K on T: why"
 * on ctx: the one refusal of a forced configuration, wherever it is found. */
evt_status config_refused(evt_ctx *ctx, const plan_config *c, const evt_kernel *k, evt_target t,
                          const char *why);

/* A caller's evt_tuning (NULL: nothing forced), checked.  EVT_OK, or the
 * status evt_ctx_set_tuning documents with the reason on ctx. */
evt_status tuning_parse(evt_ctx *ctx, const evt_tuning *t, api_tuning *out);

/* Starts a public call that reports on ctx (NULL: none): the message of the
 * call before goes, so that a success leaves "" (evt_ctx_last_error). */
static inline void ctx_clear(evt_ctx *ctx)
{
    if (ctx)
        ctx->error[0] = '\0';
}

/* Records the reason for a failure on the context and returns status. */
evt_status ctx_fail(evt_ctx *ctx, evt_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
