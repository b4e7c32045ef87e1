/* codegen.c - the public code-generation API: CUDA source and NVRTC output per target. */
#include "../codegen/cg.h"
#include "../codegen/nvrtc.h"
#include "module.h"
#include "../support/locale.h"

#include <stdlib.h>

void evt_free(void *p)
{
    free(p);
}

/* Also starts the call: the context's last message goes (ctx_clear). */
static evt_status check_args(evt_module *m, const evt_kernel *k, evt_target t, const char *fn)
{
    ctx_clear(m ? m->ctx : NULL);
    if (!m || !k || (unsigned)t >= EVT_TARGET_COUNT)
        return ctx_fail(m ? m->ctx : NULL, EVT_ERR_INVALID_ARGUMENT,
                        "%s: module, kernel and a valid target are required", fn);
    if (m->diags.errors)
        return ctx_fail(m->ctx, EVT_ERR_INVALID_ARGUMENT, "%s: the module has errors", fn);
    for (size_t i = 0; i < m->ir.nkernels; i++)
        if (m->ir.kernels[i] == k)
            return EVT_OK;
    return ctx_fail(m->ctx, EVT_ERR_INVALID_ARGUMENT, "%s: the kernel is not of this module", fn);
}

/* Whether target t can run kernel k at all (fp8 operands on sm_80/86
 * cannot): EVT_OK, or EVT_ERR_UNSUPPORTED with the reason as a diagnostic
 * at the operand that needs what t lacks.  Like an NVRTC failure, it fails
 * this target only: the module stays usable for the others. */
static evt_status target_refused(evt_module *m, const evt_kernel *k, evt_target t)
{
    const plan_kernel pk = plan_kernel_of(k);
    const char *why = plan_kernel_target_refusal(&pk, t);
    if (!why)
        return EVT_OK;
    diag_report(&m->diags, EVT_SEV_ERROR, k->operand_locs[0], "kernel '%s' cannot run on %s: %s",
                k->name, evt_target_name(t), why);
    sb_free(&m->diag_text[0]);
    sb_free(&m->diag_text[1]);
    m->diags.errors--; /* the source itself is valid: keep the module usable */
    return ctx_fail(m->ctx, EVT_ERR_UNSUPPORTED, "kernel '%s' cannot run on %s: %s", k->name,
                    evt_target_name(t), why);
}

/* The full listing under the context's tuning: its configuration only
 * (which must be able to run k on t), with the split-K entries when it
 * forces splits. */
static evt_status listing(evt_module *m, const evt_kernel *k, evt_target t, cg_select *sel)
{
    const plan_options *o = &m->ctx->tuning.plan;
    *sel = (cg_select){o->config, -1, o->split_k >= 2 ? 2 : 0, m->ctx->tuning.row_group, m->ctx->fast_math,
                       m->ctx->tuning.shared_epi};
    evt_status st = target_refused(m, k, t);
    if (st != EVT_OK)
        return st;
    const char *why;
    const plan_kernel pk = plan_kernel_of(k);
    if (o->config && !plan_can_run(o->config, &pk, t, &why))
        return config_refused(m->ctx, o->config, k, t, why);
    return EVT_OK;
}

evt_status kernel_generate(evt_module *m, const evt_kernel *k, evt_target t, const cg_select *sel,
                           strbuf *src)
{
    strbuf err;
    sb_init(&err);
    c_locale_scope loc;
    c_locale_enter(&loc);
    int ok = cg_emit_cuda(k, m->diags.file, t, sel, &m->cuda, src, &err);
    c_locale_leave(&loc);
    evt_status st = EVT_OK;
    if (!ok || src->failed)
        st = src->failed || err.failed ? ctx_fail(m->ctx, EVT_ERR_NO_MEMORY, "out of memory")
                                       : ctx_fail(m->ctx, EVT_ERR_UNSUPPORTED, "%s", sb_str(&err));
    sb_free(&err);
    return st;
}

evt_status evt_kernel_cuda(evt_module *m, const evt_kernel *k, evt_target t, const char **text)
{
    cg_select sel;
    evt_status st = check_args(m, k, t, "evt_kernel_cuda");
    if (st == EVT_OK)
        st = listing(m, k, t, &sel);
    if (st != EVT_OK)
        return st;
    if (!text)
        return ctx_fail(m->ctx, EVT_ERR_INVALID_ARGUMENT, "evt_kernel_cuda: text is NULL");
    *text = NULL;
    strbuf *src = &m->ctx->scratch;
    sb_clear(src);
    if ((st = kernel_generate(m, k, t, &sel, src)) == EVT_OK &&
        !(*text = arena_strndup(&m->arena, sb_str(src), src->len)))
        st = ctx_fail(m->ctx, EVT_ERR_NO_MEMORY, "out of memory");
    return st;
}

evt_status evt_kernel_compile(evt_module *m, const evt_kernel *k, evt_target t,
                              evt_binary_format format, void **data, size_t *size, double *seconds)
{
    evt_status st = check_args(m, k, t, "evt_kernel_compile");
    if (st != EVT_OK)
        return st;
    if (!data || !size || (format != EVT_BINARY_PTX && format != EVT_BINARY_CUBIN))
        return ctx_fail(m->ctx, EVT_ERR_INVALID_ARGUMENT,
                        "evt_kernel_compile: data, size and a valid format are required");
    *data = NULL;
    *size = 0;
    const char *src;
    if ((st = evt_kernel_cuda(m, k, t, &src)) != EVT_OK)
        return st;
    strbuf log;
    sb_init(&log);
    if ((st = cg_nvrtc_get(&m->ctx->nvrtc, m->ctx->nvrtc_path, &log)) != EVT_OK) {
        st = ctx_fail(m->ctx, st, "%s", sb_str(&log));
        sb_free(&log);
        return st;
    }
    char *out = NULL;
    size_t n = 0;
    st = cg_compile(m->ctx->nvrtc, src, k->name, t, format == EVT_BINARY_CUBIN ? CG_CUBIN : CG_PTX, &out, &n,
                    seconds, &log);
    if (st == EVT_ERR_NO_MEMORY) {
        st = ctx_fail(m->ctx, st, "out of memory compiling kernel '%s' for %s: %s", k->name,
                      evt_target_name(t), sb_str(&log));
    } else if (st != EVT_OK) {
        /* NVRTC failing on generated code is our bug, but the user sees where. */
        diag_report(&m->diags, EVT_SEV_ERROR, k->loc, "NVRTC failed to compile kernel '%s' for %s:\n%s",
                    k->name, evt_target_name(t), sb_str(&log));
        sb_free(&m->diag_text[0]);
        sb_free(&m->diag_text[1]);
        m->diags.errors--; /* the source itself is valid: keep the module usable */
        st = ctx_fail(m->ctx, EVT_ERR_COMPILE, "NVRTC failed to compile kernel '%s' for %s",
                      k->name, evt_target_name(t));
    } else {
        *data = out;
        *size = n;
    }
    sb_free(&log);
    return st;
}
