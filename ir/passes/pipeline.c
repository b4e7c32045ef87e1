/* pipeline.c - which passes run at each optimization level, in which order.
 *
 *   -O0  nothing: the IR as the front end built it.
 *   -O1  fold, simplify, cse, dce: one round of the cheap cleanups.
 *   -O2  fold, simplify, cse, strength, repeated until a round changes
 *        nothing (each can expose work for the others: a strength-reduced
 *        x * 0.25 merges with an x * 0.25 the source wrote), then dce and
 *        hoist.
 *
 * After every pass the verifier runs (in builds with EVT_VERIFY_EACH_PASS)
 * and the observer, if any, sees the IR (evtc --print-after). */
#include "passes.h"

#include <string.h>

typedef struct pass {
    const char *name;
    void (*run)(ir_func *fn);
} pass;

/* Every pass, in the order -O2 first runs them. */
static const pass passes[] = {
    {"fold", ir_pass_fold},         {"simplify", ir_pass_simplify}, {"cse", ir_pass_cse},
    {"strength", ir_pass_strength}, {"dce", ir_pass_dce},           {"hoist", ir_pass_hoist},
};
enum { NPASSES = sizeof passes / sizeof passes[0] };

/* A round of -O2 that changes nothing ends the loop; this bounds it anyway. */
enum { MAX_ROUNDS = 8 };

const char *ir_pass_name(size_t i)
{
    return i < NPASSES ? passes[i].name : NULL;
}

int ir_pass_lookup(const char *s, size_t len)
{
    for (int i = 0; i < NPASSES; i++)
        if (strlen(passes[i].name) == len && memcmp(passes[i].name, s, len) == 0)
            return i;
    return -1;
}

typedef struct runner {
    ir_func *fn;
    const ir_pipeline *p;
    strbuf *why;
    evt_status status;
} runner;

static void step(runner *r, const char *name, void (*run)(ir_func *))
{
    if (r->status != EVT_OK)
        return;
    run(r->fn);
    if (r->fn->arena->failed) {
        r->status = EVT_ERR_NO_MEMORY;
        sb_printf(r->why, "out of memory in pass '%s' on epilogue '%s'", name, r->fn->name);
        return;
    }
#ifdef EVT_VERIFY_EACH_PASS
    strbuf msg;
    sb_init(&msg);
    if (!ir_verify(r->fn, &msg)) {
        r->status = EVT_ERR_INTERNAL;
        sb_printf(r->why, "internal error: the IR is invalid after pass '%s': %s", name,
                  sb_str(&msg));
    }
    sb_free(&msg);
    if (r->status != EVT_OK)
        return;
#endif
    if (r->p->after)
        r->p->after(r->p->user, name, r->fn);
}

#define STEP(r, name) step((r), #name, ir_pass_##name)

/* A hash of the values and outputs: equal before and after a round when the
 * round changed nothing.  A collision only ends the -O2 loop early. */
static uint64_t fingerprint(const ir_func *fn)
{
    uint64_t h = 1469598103934665603u;
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211u)
    for (size_t i = 0; i < fn->nvalues; i++) {
        const ir_value *v = fn->values[i];
        uint32_t attr;
        memcpy(&attr, &v->attr, sizeof attr);
        MIX(v->op);
        MIX(attr);
        for (int j = 0; j < v->nargs; j++)
            MIX(v->args[j]->id);
    }
    for (size_t i = 0; i < fn->noutputs; i++)
        MIX(fn->outputs[i].value->id);
#undef MIX
    return h;
}

/* Runs each pass of a comma-separated list once, in order. */
static void run_list(runner *r, const char *list)
{
    for (const char *s = list; *s;) {
        size_t len = strcspn(s, ",");
        int i = ir_pass_lookup(s, len);
        if (i < 0) {
            r->status = EVT_ERR_INVALID_ARGUMENT;
            sb_printf(r->why, "unknown pass '%.*s'", (int)len, s);
            return;
        }
        step(r, passes[i].name, passes[i].run);
        s += len + (s[len] == ',');
    }
}

evt_status ir_optimize(ir_func *fn, const ir_pipeline *p, strbuf *why)
{
    runner r = {fn, p, why, EVT_OK};
    if (p->passes) {
        run_list(&r, p->passes);
        return r.status;
    }
    switch (p->level) {
    case 0:
        break;
    case 1:
        STEP(&r, fold);
        STEP(&r, simplify);
        STEP(&r, cse);
        STEP(&r, dce);
        break;
    default:
        for (int round = 0; round < MAX_ROUNDS && r.status == EVT_OK; round++) {
            uint64_t before = fingerprint(fn);
            STEP(&r, fold);
            STEP(&r, simplify);
            STEP(&r, cse);
            STEP(&r, strength);
            if (fingerprint(fn) == before)
                break;
        }
        STEP(&r, dce);
        STEP(&r, hoist);
        break;
    }
    return r.status;
}
