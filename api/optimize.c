/* optimize.c - the public optimizer entry points: runs ir/passes/ over a module's epilogues. */
#include "../ir/passes/passes.h"
#include "module.h"

#include <stdlib.h>
#include <string.h>

typedef struct observer {
    const evt_optimize_options *opts;
    strbuf text;
} observer;

static void after_pass(void *user, const char *pass, const ir_func *fn)
{
    observer *ob = user;
    if (ob->opts->after_pass && strcmp(ob->opts->after_pass, pass) != 0)
        return;
    ob->text.len = 0;
    ir_print_func(fn, &ob->text);
    ob->opts->after(ob->opts->user, pass, sb_str(&ob->text));
}

/* Names every pass, for messages about unknown ones. */
static void list_passes(strbuf *sb)
{
    for (size_t i = 0; ir_pass_name(i); i++)
        sb_printf(sb, "%s%s", i ? ", " : "", ir_pass_name(i));
}

/* Checks a comma-separated list of pass names; NULL is fine. */
static int valid_pass_list(const char *list, strbuf *why)
{
    for (const char *s = list; s && *s;) {
        size_t len = strcspn(s, ",");
        if (ir_pass_lookup(s, len) < 0) {
            sb_printf(why, "unknown pass '%.*s' (the passes are ", (int)len, s);
            list_passes(why);
            sb_putc(why, ')');
            return 0;
        }
        s += len + (s[len] == ',');
    }
    return 1;
}

evt_status evt_module_optimize_with(evt_module *m, const evt_optimize_options *options)
{
    evt_optimize_options defaults = {.level = 2};
    const evt_optimize_options *o = options ? options : &defaults;
    if (!m)
        return EVT_ERR_INVALID_ARGUMENT;
    evt_ctx *ctx = m->ctx;
    ctx_clear(ctx);
    if (m->diags.errors)
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT,
                        "evt_module_optimize: the module has errors");
    if (!o->passes && (o->level < 0 || o->level > 2))
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT,
                        "evt_module_optimize: level %d is not 0, 1 or 2", o->level);
    strbuf why;
    sb_init(&why);
    if (!valid_pass_list(o->passes, &why) || !valid_pass_list(o->after_pass, &why)) {
        evt_status st = ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT, "evt_module_optimize: %s",
                                 sb_str(&why));
        sb_free(&why);
        return st;
    }
    observer ob = {.opts = o};
    sb_init(&ob.text);
    ir_pipeline p = {o->level, o->passes, o->after ? after_pass : NULL, &ob};
    /* The passes work on copies, assigned to the epilogues only when every
     * one has succeeded: running out of memory half-way through a pass
     * would leave its epilogue's values half rewritten, which neither a
     * second call nor a launch could take.  A failed call changes nothing,
     * so the arena's flag (set by the failure) is cleared for the next. */
    m->arena.failed = 0;
    const size_t nf = m->ir.nfuncs;
    ir_func *work = nf ? calloc(nf, sizeof *work) : NULL;
    evt_status st = nf && !work ? EVT_ERR_NO_MEMORY : EVT_OK;
    for (size_t i = 0; i < nf && st == EVT_OK; i++)
        if (!ir_func_copy(m->ir.funcs[i], &work[i]))
            st = EVT_ERR_NO_MEMORY;
    if (st == EVT_ERR_NO_MEMORY)
        sb_puts(&why, "out of memory copying the epilogues");
    for (size_t i = 0; i < nf && st == EVT_OK; i++)
        st = ir_optimize(&work[i], &p, &why);
    if (st == EVT_OK && ob.text.failed) {
        st = EVT_ERR_NO_MEMORY;
        sb_puts(&why, "out of memory printing the IR");
    }
    if (st == EVT_OK)
        for (size_t i = 0; i < nf; i++)
            *m->ir.funcs[i] = work[i];
    else
        ctx_fail(ctx, st, "%s", sb_str(&why));
    m->arena.failed = 0;
    free(work);
    sb_free(&why);
    sb_free(&ob.text);
    /* The module changed: its texts are printed afresh on demand. */
    sb_free(&m->ir_text);
    sb_free(&m->dot_text);
    cg_cache_free(&m->cuda);
    return st;
}

evt_status evt_module_optimize(evt_module *m, int level)
{
    evt_optimize_options o = {.level = level};
    return evt_module_optimize_with(m, &o);
}

const char *evt_pass_name(size_t i)
{
    return ir_pass_name(i);
}
