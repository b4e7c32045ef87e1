/* tune.c - measured selection: evt_launch_tune times the plans the planner
 * admits for a bound launch and records the fastest in the tuning database
 * (runtime/tunedb.c), which later launches take instead of the heuristic.
 *
 * The plans: every tile configuration that can run the kernel on the
 * target but the warp-specialized ones, each with the planner's split-K,
 * and where the problem has fewer tiles than two waves (the case split-K
 * exists for) with 2, 3, 4 and 8 ways as well; plans that come out the
 * same are timed once.  Their kernels are compiled together on several
 * threads first, so the timing loop only loads and runs. */
#define _POSIX_C_SOURCE 200809L
#include "../runtime/cache.h"
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Plans a tuning call may time: twice EVT_TUNE_MAX_ENTRIES, since small
 * shapes, where every configuration is split two to eight ways, list about
 * a hundred (107 at 16x768x768; test_fake_driver's
 * test_tune_candidates_fit keeps them under the cap, so none is dropped);
 * evt_tune_result lists the first EVT_TUNE_MAX_ENTRIES of them. */
enum { TUNE_MAX_PLANS = 2 * EVT_TUNE_MAX_ENTRIES };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The split a plan's tuning forces: split-K's ways, a persistent plan's
 * tail's (plan_options.split_k), 1 for none. */
static int split_of(const plan *p)
{
    return p->splits > 1 ? p->splits : p->tail_splits > 1 ? p->tail_splits : 1;
}

static int same_plan(const plan *a, const plan *b)
{
    return a->config == b->config && a->aligned == b->aligned && a->tma == b->tma &&
           a->splits == b->splits && a->tail_splits == b->tail_splits && a->sk_iters == b->sk_iters;
}

/* Adds p to plans[0..*n) unless an equal plan is there. */
static void add_plan(plan *plans, int *n, const plan *p)
{
    for (int i = 0; i < *n; i++)
        if (same_plan(&plans[i], p))
            return;
    if (*n < TUNE_MAX_PLANS)
        plans[(*n)++] = *p;
}

/* The heuristic's plan first, then every other the planner admits. */
static int candidates(const launch_view *v, const plan_problem *prob, plan *plans)
{
    int n = 0;
    plan p;
    const char *why;
    const plan_options heuristic = {NULL, 0, 0};
    if (plan_make(v->pk, prob, &heuristic, &p, &why))
        add_plan(plans, &n, &p);
    /* split-K: the planner's, then 2 to 8 ways; a persistent configuration's
     * tail: the planner's (none), none, then 2 to 4 ways */
    static const int splits[] = {0, 2, 3, 4, 8}, tails[] = {0, 1, 2, 3, 4};
    for (int c = 0; c < EVT_TILE_COUNT; c++) {
        const plan_config *cfg = &plan_configs[c];
        if (!plan_can_run(cfg, v->pk, prob->target, NULL))
            continue;
        /* a swapped tile (B's rows as wgmma's M) is there to load each B
         * tile once for M of up to its rows; past two of its tile rows the
         * 64- and 128-row tiles load B fewer times: not timed (eight rows
         * at five splits each would push a small problem's plans past
         * EVT_TUNE_MAX_ENTRIES) */
        if (cfg->swapped && prob->m > 2LL * cfg->bm)
            continue;
        const int sms = prob->sms > 0 ? prob->sms : plan_target_info(prob->target)->sms_default;
        /* the 64-row ping-pong tile is there for problems of a wave of
         * 128-row tiles or less; past two waves of its own it lost to the
         * 128-row tiles on every shape measured (session 54, docs/sm90.md):
         * not timed */
        if (cfg->pp && cfg->bm == 64 && plan_config_batch_tiles(cfg, prob->m, prob->n, prob->batch) > 2LL * sms)
            continue;
        const int persistent = plan_config_persistent(cfg);
        /* more than the first where they can matter: split-K below two waves
         * of tiles, a tail where a configuration can run it */
        const int more = persistent ? plan_tail_config(cfg, v->pk, prob->target) != NULL
                                    : plan_config_batch_tiles(cfg, prob->m, prob->n, prob->batch) < 2LL * sms;
        const int *ways = persistent ? tails : splits;
        for (size_t s = 0; s < (more ? sizeof splits / sizeof splits[0] : 1); s++) {
            const plan_options o = {cfg, ways[s], persistent ? 1 : 0};
            if (plan_make(v->pk, prob, &o, &p, &why))
                add_plan(plans, &n, &p);
        }
        /* and stream-K where the configuration has it */
        const plan_options sk = {cfg, 1, 2};
        if (plan_config_stream_k(cfg) && plan_make(v->pk, prob, &sk, &p, &why))
            add_plan(plans, &n, &p);
    }
    return n;
}

/* The evt_tuning that makes a launch run plan p: repacking unaligned
 * operands as an unforced run would, so that the plans timed (and the one
 * recorded) are the fast path's that such a run takes. */
static api_tuning forcing(const plan *p)
{
    return (api_tuning){{p->config, split_of(p), p->sk_iters > 0 ? 2 : 1}, 0, 1, 1, 0};
}

/* Generates the sources of every plan and compiles those the cache lacks. */
static evt_status compile_all(evt_launch *l, const launch_view *v, evt_target t, const plan *plans,
                              int n, int threads, evt_tune_result *res)
{
    evt_ctx *ctx = v->m->ctx;
    /* a plan's source, and its tail's */
    strbuf *src = calloc(2 * (size_t)n, sizeof *src);
    const char **texts = calloc(2 * (size_t)n, sizeof *texts);
    evt_status st = src && texts ? EVT_OK : ctx_fail(ctx, EVT_ERR_NO_MEMORY, "out of memory");
    int nsrc = 0;
    /* plan u / 2's entry points, and for odd u its tail's split-K ones */
    for (int u = 0; u < 2 * n && st == EVT_OK; u++) {
        const plan *pl = &plans[u / 2];
        if (u % 2 && pl->tail_splits <= 1)
            continue;
        const plan sel = u % 2 ? plan_tail_plan(pl) : *pl;
        sb_init(&src[nsrc]);
        if ((st = launch_source(l, &sel, &src[nsrc])) != EVT_OK) {
            sb_free(&src[nsrc]);
            break;
        }
        int dup = 0; /* split-K plans of one configuration share their source */
        for (int j = 0; j < nsrc && !dup; j++)
            dup = strcmp(texts[j], sb_str(&src[nsrc])) == 0;
        if (dup)
            sb_free(&src[nsrc]);
        else {
            texts[nsrc] = sb_str(&src[nsrc]);
            nsrc++;
        }
    }
    if (st == EVT_OK) {
        strbuf err;
        sb_init(&err);
        size_t compiled = 0;
        if (!rt_cache_modules(&ctx->cache, ctx->driver, &ctx->nvrtc, ctx->nvrtc_path, texts,
                              v->k->name, (size_t)nsrc, t, v->cu_ctx, threads, &compiled,
                              &st, &err))
            ctx_fail(ctx, st, "%s", err.len ? sb_str(&err) : "out of memory");
        res->compiled = (int)compiled;
        sb_free(&err);
    }
    for (int i = 0; src && i < nsrc; i++)
        sb_free(&src[i]);
    free(src);
    free(texts);
    return st;
}

static void entry_of(const plan *p, double ms, evt_tune_entry *e)
{
    memset(e, 0, sizeof *e);
    snprintf(e->config, sizeof e->config, "%s", p->config->name);
    e->split_k = split_of(p);
    e->stream_k = p->sk_iters > 0;
    e->ms = ms;
}

/* Times the launch as it is tuned now: *ms, the median.  A first look
 * with few runs, one by one, sets how many samples the median gets (about
 * 25 ms of runs, 5 to 20 samples, so that a slow plan does not eat the
 * budget; options->reps where given) and how many runs each sample replays
 * from a CUDA graph (about 0.2 ms of them, 1 to 50), so that the host's
 * launch of each run is not in the time (launch_time_replayed); where that
 * cannot be, the samples are runs one by one. */
static evt_status time_plan(evt_launch *l, void *stream, const evt_tune_options *o, double *ms)
{
    double first;
    evt_status st = evt_launch_benchmark(l, stream, o->warmup > 0 ? o->warmup : 2, 3, &first);
    if (st != EVT_OK)
        return st;
    int reps = o->reps;
    if (reps <= 0) {
        reps = first > 0 ? (int)(25.0 / first) : 20;
        reps = reps < 5 ? 5 : reps > 20 ? 20 : reps;
    }
    int inner = first > 0 ? (int)(0.2 / first) : 50;
    inner = inner < 1 ? 1 : inner > 50 ? 50 : inner;
    /* (the first look's runs, each waited for, loaded what a capture cannot) */
    return launch_time_replayed(l, stream, inner, reps, ms) ? EVT_OK : evt_launch_benchmark(l, stream, 0, reps, ms);
}

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

evt_status evt_launch_tune(evt_launch *l, void *stream, const evt_tune_options *options,
                           evt_tune_result *res)
{
    if (!l || !res)
        return EVT_ERR_INVALID_ARGUMENT;
    const double start = now();
    const evt_tune_options o = options ? *options : (evt_tune_options){0};
    const double budget = o.max_seconds > 0 ? o.max_seconds : 10.0;
    memset(res, 0, sizeof *res);
    launch_view v;
    plan_problem prob;
    rt_tune_key key;
    evt_status st = launch_problem(l, &v, &prob, &key);
    if (st != EVT_OK)
        return st;
    evt_ctx *ctx = v.m->ctx;
    /* (NaN would compare as no bound given, and infinity bound nothing) */
    if (!(o.max_seconds >= 0 && o.max_seconds <= 1e9))
        return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT,
                        "evt_launch_tune: max_seconds must be a number of seconds from 0 to 1e9 (0: 10 s), not %g",
                        o.max_seconds);
    const struct {
        const char *name;
        int value;
    } counts[] = {{"threads", o.threads}, {"warmup", o.warmup}, {"reps", o.reps}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (counts[i].value < 0)
            return ctx_fail(ctx, EVT_ERR_INVALID_ARGUMENT,
                            "evt_launch_tune: %s must be 0 or more (0: the default), not %d", counts[i].name,
                            counts[i].value);
    plan *plans = calloc(TUNE_MAX_PLANS, sizeof *plans);
    if (!plans)
        return ctx_fail(ctx, EVT_ERR_NO_MEMORY, "out of memory");
    const int n = candidates(&v, &prob, plans);
    res->candidates = n;
    st = compile_all(l, &v, prob.target, plans, n, o.threads > 0 ? o.threads : online_cpus(), res);
    res->compile_seconds = now() - start;

    const api_tuning saved = *v.tuning;
    int best = -1;
    double best_ms = 0;
    for (int i = 0; i < n && st == EVT_OK; i++) {
        if (i > 0 && now() - start > budget)
            break; /* the heuristic's plan (first) is always timed */
        *v.tuning = forcing(&plans[i]);
        double ms = 0;
        st = time_plan(l, stream, &o, &ms);
        if (st != EVT_OK)
            break;
        if (res->nentries < EVT_TUNE_MAX_ENTRIES)
            entry_of(&plans[i], ms, &res->entries[res->nentries++]);
        res->timed++;
        if (best < 0 || ms < best_ms) {
            best = i;
            best_ms = ms;
        }
    }
    *v.tuning = saved;
    for (int i = res->timed; i < n && res->nentries < EVT_TUNE_MAX_ENTRIES; i++)
        entry_of(&plans[i], -1, &res->entries[res->nentries++]); /* listed, not timed: the time ran out */
    if (st == EVT_OK && best >= 0) {
        res->heuristic = res->entries[0];
        entry_of(&plans[best], best_ms, &res->best);
        if (!o.dry_run) {
            rt_tune_choice choice;
            memset(&choice, 0, sizeof choice);
            snprintf(choice.config, sizeof choice.config, "%s", plans[best].config->name);
            choice.split_k = split_of(&plans[best]);
            choice.stream_k = plans[best].sk_iters > 0;
            choice.ms = best_ms;
            res->recorded = rt_tunedb_store(&ctx->tunedb, &key, &choice);
            ctx->tunedb_generation++;
            if (!res->recorded)
                st = ctx_fail(ctx, EVT_ERR_NO_MEMORY, "out of memory recording the tuning");
        }
    } else if (st == EVT_OK) {
        st = ctx_fail(ctx, EVT_ERR_INTERNAL, "evt_launch_tune: the planner admits no plan");
    }
    free(plans);
    res->seconds = now() - start;
    if (st == EVT_OK)
        ctx_clear(ctx); /* "" after a success, whatever the runs inside left */
    return st;
}

void evt_tuning_db_path(char *path, size_t n)
{
    if (path && n)
        rt_tunedb_path(path, n);
}
