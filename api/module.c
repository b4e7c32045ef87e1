/* module.c - the public API: contexts, parsing into modules, reading them back. */
#include "module.h"

#include "../codegen/nvrtc.h"
#include "../runtime/cache.h"
#include "../runtime/driver.h"
#include "../runtime/tunedb.h"
#include "../support/locale.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

evt_status ctx_fail(evt_ctx *ctx, evt_status status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
        va_end(ap);
    }
    return status;
}

evt_ctx *evt_ctx_create(void)
{
    return calloc(1, sizeof(evt_ctx));
}

void evt_ctx_destroy(evt_ctx *ctx)
{
    if (ctx) {
        rt_cache_clear(&ctx->cache, ctx->driver);
        rt_driver_unload(ctx->driver);
        cg_nvrtc_unload(ctx->nvrtc);
        rt_tunedb_free(ctx->tunedb);
        sb_free(&ctx->scratch);
    }
    free(ctx);
}

const char *evt_ctx_last_error(const evt_ctx *ctx)
{
    return ctx ? ctx->error : "no context";
}

static evt_status parse_buffer(evt_ctx *ctx, const char *name, const char *source,
                               size_t length, evt_module **out);

evt_status evt_module_parse_buffer(evt_ctx *ctx, const char *name, const char *source,
                                   size_t length, evt_module **out)
{
    c_locale_scope loc;
    c_locale_enter(&loc);
    evt_status st = parse_buffer(ctx, name, source, length, out);
    c_locale_leave(&loc);
    return st;
}

static evt_status parse_buffer(evt_ctx *ctx, const char *name, const char *source,
                               size_t length, evt_module **out)
{
    ctx_clear(ctx);
    if (!ctx || !out || (!source && length))
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT,
                        "evt_module_parse_buffer: ctx, out and source must not be NULL");
    *out = NULL;
    if (length > EVT_MAX_SOURCE)
        return ctx_fail(ctx, EVT_ERR_LIMIT, "%s: the source is %zu bytes; the limit is %d",
                        name ? name : "<input>", length, EVT_MAX_SOURCE);
    evt_module *m = calloc(1, sizeof *m);
    if (!m)
        return ctx_fail(ctx, EVT_ERR_NO_MEMORY, "out of memory");
    m->ctx = ctx;
    arena_init(&m->arena);
    m->source = malloc(length + 1);
    const char *file = arena_strdup(&m->arena, name ? name : "<input>");
    if (!m->source || !file) {
        evt_module_destroy(m);
        return ctx_fail(ctx, EVT_ERR_NO_MEMORY, "out of memory");
    }
    if (length)
        memcpy(m->source, source, length);
    m->source[length] = '\0';
    m->source_len = length;
    diag_init(&m->diags, &m->arena, file, m->source, length);
    ast_parse(&m->arena, &m->diags, m->source, length, &m->ast);
    if (!m->diags.stopped)
        ir_sema(&m->arena, &m->diags, &m->ast, &m->ir);
    diag_sort(&m->diags);
    if (m->arena.failed) {
        evt_module_destroy(m);
        return ctx_fail(ctx, EVT_ERR_NO_MEMORY, "out of memory while compiling %s", file);
    }
    *out = m;
    if (m->diags.errors) {
        ctx_fail(ctx, EVT_ERR_SOURCE, "%s: %zu error%s", file, m->diags.errors,
                 m->diags.errors == 1 ? "" : "s");
        return EVT_ERR_SOURCE;
    }
    return EVT_OK;
}

evt_status evt_module_parse_file(evt_ctx *ctx, const char *path, evt_module **out)
{
    ctx_clear(ctx);
    if (!ctx || !path || !out)
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT,
                        "evt_module_parse_file: ctx, path and out must not be NULL");
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return ctx_fail(ctx, EVT_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    strbuf sb;
    sb_init(&sb);
    char buf[65536];
    size_t n;
    errno = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0 && sb.len <= EVT_MAX_SOURCE)
        sb_putn(&sb, buf, n);
    /* fopen opens a folder; reading it fails with EISDIR, which says more than "read error" */
    int bad = ferror(f), err = errno;
    fclose(f);
    evt_status st;
    if (bad)
        st = ctx_fail(ctx, EVT_ERR_IO, "%s: cannot read: %s", path, err ? strerror(err) : "read error");
    else if (sb.failed)
        st = ctx_fail(ctx, EVT_ERR_NO_MEMORY, "%s: out of memory reading the file", path);
    else
        st = evt_module_parse_buffer(ctx, path, sb_str(&sb), sb.len, out);
    sb_free(&sb);
    return st;
}

void evt_module_destroy(evt_module *m)
{
    if (!m)
        return;
    sb_free(&m->diag_text[0]);
    sb_free(&m->diag_text[1]);
    sb_free(&m->ir_text);
    sb_free(&m->dot_text);
    cg_cache_free(&m->cuda);
    arena_free(&m->arena);
    free(m->source);
    free(m);
}

size_t evt_module_diag_count(const evt_module *m)
{
    return m ? m->diags.count : 0;
}

const evt_diag *evt_module_diag(const evt_module *m, size_t i)
{
    return m && i < m->diags.count ? &m->diags.items[i] : NULL;
}

size_t evt_module_error_count(const evt_module *m)
{
    return m ? m->diags.errors : 0;
}

const char *evt_module_diag_text(evt_module *m, evt_diag_format format)
{
    if (!m || (format != EVT_DIAG_TEXT && format != EVT_DIAG_JSON))
        return "";
    strbuf *sb = &m->diag_text[format];
    if (sb->failed)
        sb_free(sb); /* rendered again: memory may have come back since */
    if (!sb->len)
        diag_render(&m->diags, format, sb);
    if (!sb->failed)
        return sb_str(sb);
    /* Never a cut-short list that looks whole, nor "" that looks like none. */
    return format == EVT_DIAG_JSON
               ? "{\"file\":\"\",\"line\":0,\"column\":0,\"severity\":\"error\","
                 "\"message\":\"out of memory rendering the diagnostics\"}\n"
               : "error: out of memory rendering the diagnostics\n";
}

/* ---- contents -------------------------------------------------------- */

static int usable(const evt_module *m)
{
    return m && m->diags.errors == 0;
}

size_t evt_module_epilogue_count(const evt_module *m)
{
    return usable(m) ? m->ir.nfuncs : 0;
}

const evt_epilogue *evt_module_epilogue(const evt_module *m, size_t i)
{
    return i < evt_module_epilogue_count(m) ? m->ir.funcs[i] : NULL;
}

const evt_epilogue *evt_module_find_epilogue(const evt_module *m, const char *name)
{
    for (size_t i = 0; name && i < evt_module_epilogue_count(m); i++)
        if (strcmp(m->ir.funcs[i]->name, name) == 0)
            return m->ir.funcs[i];
    return NULL;
}

const char *evt_epilogue_name(const evt_epilogue *e)
{
    return e ? e->name : NULL;
}

evt_loc evt_epilogue_loc(const evt_epilogue *e)
{
    evt_loc loc = {NULL, 0, 0};
    if (e)
        loc = (evt_loc){e->file, e->loc.line, e->loc.column};
    return loc;
}

static const ir_arg *args_of(const evt_epilogue *e, evt_arg_kind kind, size_t *n)
{
    switch (kind) {
    case EVT_ARG_INPUT: *n = e->ninputs; return e->inputs;
    case EVT_ARG_PARAM: *n = e->nparams; return e->params;
    case EVT_ARG_OUTPUT: *n = e->noutputs; return e->outputs;
    }
    *n = 0;
    return NULL;
}

size_t evt_epilogue_arg_count(const evt_epilogue *e, evt_arg_kind kind)
{
    size_t n = 0;
    if (e)
        args_of(e, kind, &n);
    return n;
}

const evt_arg_info *evt_epilogue_arg(const evt_epilogue *e, evt_arg_kind kind, size_t i)
{
    size_t n = 0;
    const ir_arg *args = e ? args_of(e, kind, &n) : NULL;
    return i < n ? &args[i].info : NULL;
}

size_t evt_module_kernel_count(const evt_module *m)
{
    return usable(m) ? m->ir.nkernels : 0;
}

const evt_kernel *evt_module_kernel(const evt_module *m, size_t i)
{
    return i < evt_module_kernel_count(m) ? m->ir.kernels[i] : NULL;
}

const evt_kernel *evt_module_find_kernel(const evt_module *m, const char *name)
{
    for (size_t i = 0; name && i < evt_module_kernel_count(m); i++)
        if (strcmp(m->ir.kernels[i]->name, name) == 0)
            return m->ir.kernels[i];
    return NULL;
}

const char *evt_kernel_name(const evt_kernel *k)
{
    return k ? k->name : NULL;
}

evt_loc evt_kernel_loc(const evt_kernel *k)
{
    evt_loc loc = {NULL, 0, 0};
    if (k)
        loc = (evt_loc){k->file, k->loc.line, k->loc.column};
    return loc;
}

evt_mainloop evt_kernel_mainloop(const evt_kernel *k)
{
    return k ? k->mainloop : EVT_MAINLOOP_GEMM;
}

const evt_operand_info *evt_kernel_operand(const evt_kernel *k, size_t i)
{
    return k && i < 3 ? &k->operands[i] : NULL;
}

const evt_epilogue *evt_kernel_epilogue(const evt_kernel *k)
{
    return k ? k->epilogue : NULL;
}

/* ---- printing -------------------------------------------------------- */

const char *evt_module_ir_text(evt_module *m)
{
    if (!usable(m))
        return NULL;
    if (m->ir_text.failed)
        sb_free(&m->ir_text); /* printed again: memory may have come back since */
    if (!m->ir_text.len) {
        c_locale_scope loc;
        c_locale_enter(&loc);
        ir_print_module(&m->ir, &m->ir_text);
        c_locale_leave(&loc);
    }
    return m->ir_text.failed ? NULL : sb_str(&m->ir_text);
}

const char *evt_module_dot_text(evt_module *m)
{
    if (!usable(m))
        return NULL;
    if (m->dot_text.failed)
        sb_free(&m->dot_text); /* printed again: memory may have come back since */
    if (!m->dot_text.len) {
        c_locale_scope loc;
        c_locale_enter(&loc);
        ir_dot_module(&m->ir, m->diags.file, &m->dot_text);
        c_locale_leave(&loc);
    }
    return m->dot_text.failed ? NULL : sb_str(&m->dot_text);
}
