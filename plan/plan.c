/* plan.c - a kernel on a problem: whether a configuration can run it, and a
 * launch's plan (configuration, path, TMA, split-K, grid). */
#include "plan.h"

#include <limits.h>
#include <stdio.h>

int plan_staged_input(const ir_func *fn)
{
    for (size_t i = 0; i < fn->ninputs; i++) {
        const evt_arg_info *in = &fn->inputs[i].info;
        if (in->shape == EVT_SHAPE_MN && (in->elem == EVT_F16 || in->elem == EVT_BF16) && ir_func_reads_input(fn, i))
            return (int)i;
    }
    return -1;
}

/* Whether fn reads an input whose shape is one of `shapes` (1 << evt_shape). */
static int reads_input_shaped(const ir_func *fn, unsigned shapes)
{
    for (size_t i = 0; i < fn->ninputs; i++)
        if ((shapes >> fn->inputs[i].info.shape & 1u) && ir_func_reads_input(fn, i))
            return 1;
    return 0;
}

int plan_per_element_epilogue(const ir_func *fn)
{
    if (reads_input_shaped(fn, 1u << EVT_SHAPE_MN))
        return 0;
    for (size_t j = 0; j < fn->nvalues; j++)
        if (ir_op_get(fn->values[j]->op)->flags & IR_REDUCE)
            return 0;
    return 1;
}

int plan_heavy_epilogue(const ir_func *fn)
{
    if (plan_per_element_epilogue(fn))
        return 0;
    int costly = 0;
    for (size_t j = 0; j < fn->nvalues; j++)
        if ((ir_op_get(fn->values[j]->op)->flags & IR_COSTLY) && fn->values[j]->shape == EVT_SHAPE_MN)
            costly++;
    return costly >= 2;
}

int plan_broadcast_input(const ir_func *fn)
{
    return reads_input_shaped(fn, 1u << EVT_SHAPE_M | 1u << EVT_SHAPE_N);
}

int plan_light_epilogue(const ir_func *fn)
{
    if (!plan_per_element_epilogue(fn))
        return 0;
    for (size_t j = 0; j < fn->nvalues; j++)
        if (ir_op_get(fn->values[j]->op)->flags & IR_COSTLY)
            return 0;
    return 1;
}

int plan_fast_light_epilogue(const ir_func *fn)
{
    if (!plan_per_element_epilogue(fn))
        return 0;
    int cheap = 0;
    for (size_t j = 0; j < fn->nvalues; j++) {
        const ir_op op = fn->values[j]->op;
        if (op == IR_GELU_TANH || op == IR_SILU)
            cheap = 1;
        else if (ir_op_get(op)->flags & IR_COSTLY)
            return 0;
    }
    return cheap;
}

plan_kernel plan_kernel_built(const ir_kernel *k, int fast_math)
{
    plan_kernel p = plan_kernel_of(k);
    p.fast_light = fast_math && plan_fast_light_epilogue(k->epilogue);
    return p;
}

plan_kernel plan_kernel_of(const ir_kernel *k)
{
    plan_kernel p;
    p.mainloop = k->mainloop;
    /* a conv walks K in (r, s, c) order, c fastest, in both operands */
    p.k_contiguous = k->mainloop == EVT_MAINLOOP_CONV2D_FPROP ||
                     (k->operands[0].layout == EVT_LAYOUT_ROW && k->operands[1].layout == EVT_LAYOUT_COL);
    p.stageable = plan_staged_input(k->epilogue) >= 0;
    p.fp8 = k->operands[0].elem == EVT_E4M3 || k->operands[0].elem == EVT_E5M2;
    p.light = plan_light_epilogue(k->epilogue);
    p.per_element = plan_per_element_epilogue(k->epilogue);
    p.broadcast = plan_broadcast_input(k->epilogue);
    p.fast_light = 0;
    p.shift_cols = plan_shift_cols(k->epilogue);
    p.heavy = plan_heavy_epilogue(k->epilogue);
    return p;
}

int plan_shift_cols(const ir_func *fn)
{
    /* 16-byte pieces of every [M, N] output's rows, pairs of every [N] input */
    int cols = 2;
    for (size_t o = 0; o < fn->noutputs; o++) {
        const size_t size = evt_elem_size(fn->outputs[o].info.elem);
        if (fn->outputs[o].info.shape == EVT_SHAPE_MN && size > 0 && size <= 16 && (int)(16 / size) > cols)
            cols = (int)(16 / size);
    }
    return cols;
}

const char *plan_kernel_target_refusal(const plan_kernel *k, evt_target t)
{
    const plan_target *ti = plan_target_info(t);
    if (!ti)
        return "the target is not one evt knows";
    if (k->fp8 && !ti->fp8)
        return "fp8 operands need fp8 tensor cores (mma.sync m16n8k32 on sm_89, wgmma k32 on "
               "sm_90a), which the target lacks";
    return NULL;
}

int plan_gemm_aligned_elem(int a_col, int b_col, long long m, long long n, long long k,
                           unsigned long long a_addr, long long lda, unsigned long long b_addr,
                           long long ldb, int esize)
{
    const long long a_ext = a_col ? m : k;
    const long long b_ext = b_col ? k : n;
    const long long chunk = esize == 1 ? 16 : 8; /* elements of a 16-byte copy */
    return a_ext % chunk == 0 && lda % chunk == 0 && a_addr % 16 == 0 && b_ext % chunk == 0 &&
           ldb % chunk == 0 && b_addr % 16 == 0;
}

int plan_gemm_aligned(int a_col, int b_col, long long m, long long n, long long k,
                      unsigned long long a_addr, long long lda, unsigned long long b_addr,
                      long long ldb)
{
    return plan_gemm_aligned_elem(a_col, b_col, m, n, k, a_addr, lda, b_addr, ldb, 2);
}

int plan_conv_aligned(long long c, unsigned long long x_addr, unsigned long long w_addr)
{
    /* c % 8: r s c and every pixel's channel run are whole 16-byte chunks */
    return c > 0 && c % 8 == 0 && x_addr % 16 == 0 && w_addr % 16 == 0;
}

int plan_conv_tma_channels(long long c, const plan_config *cfg)
{
    const long long bk = cfg->bk, loaded = (c + bk - 1) / bk * bk;
    return c > 0 && c % 8 == 0 && (c % bk == 0 || (c > bk && 3 * loaded <= 4 * c));
}

/* Sets *why (where asked for) and returns 0. */
static int refuse(const char **why, const char *reason)
{
    if (why)
        *why = reason;
    return 0;
}

int plan_can_run(const plan_config *c, const plan_kernel *k, evt_target t, const char **why)
{
    const plan_target *ti = plan_target_info(t);
    if (!ti)
        return refuse(why, "the target is not one evt knows");
    if (!c)
        return refuse(why, "no configuration was given");
    const char *other = plan_config_mainloop_refusal(c, k->mainloop);
    if (other)
        return refuse(why, other);
    if ((other = plan_kernel_target_refusal(k, t)) != NULL)
        return refuse(why, other);
    if (k->fp8 && c->op_bytes != 1)
        return refuse(why, "fp8 operands need an fp8 configuration (one named _fp8)");
    if (!k->fp8 && c->op_bytes == 1)
        return refuse(why, "an fp8 configuration takes fp8 operands only, not f16 or bf16");
    if (c->wgmma && !ti->wgmma)
        return refuse(why, "the configuration's wgmma instructions are sm_90a's only");
    /* 16-bit M/N-contiguous operands take the transposed wgmma from
     * 128-byte rows of 64 positions (kernels/sm90/wgmma.cuh's wgmma_desc_mn) */
    if (c->wgmma && !k->k_contiguous && c->op_bytes != 2)
        return refuse(why, "fp8 wgmma needs K-contiguous operands: A row-major and B column-major");
    if (c->swapped && !k->k_contiguous)
        return refuse(why, "a swapped wgmma configuration (rows not a multiple of 64) needs K-contiguous operands: "
                           "A row-major and B column-major");
    if (c->wgmma && !k->k_contiguous && c->bk * c->op_bytes != 128)
        return refuse(why, "wgmma on a column-major A or row-major B needs a k tile of 64 16-bit elements");
    if (c->wgmma && c->bn % 64 != 0 && !k->k_contiguous)
        return refuse(why, "a wgmma tile whose N is not a multiple of 64 loads K-contiguous operands only: A "
                           "row-major and B column-major");
    if (c->cluster > 1 && !k->k_contiguous)
        return refuse(why, "a clustered configuration multicasts K-contiguous operand tiles only: A row-major "
                           "and B column-major");
    if (c->pp && !ti->tma)
        return refuse(why, "a producer/consumer configuration loads through TMA, which the target lacks");
    if (c->staged && !k->stageable)
        return refuse(why, "a staged configuration needs an f16 or bf16 [M, N] input that the epilogue reads");
    if (c->smem_bytes > ti->smem_per_block)
        return refuse(why, "the configuration needs more shared memory than a block of the target "
                           "can have");
    return 1;
}

int plan_listed(const plan_config *c, const plan_kernel *k, evt_target t)
{
    return plan_can_run(c, k, t, NULL) && plan_candidate(c, k, t);
}

/* Whether c's fast path can load through TMA maps on problem p (the driver
 * may still refuse them: plan_tma_refused).  A conv's im2col box walks each
 * tap's channels in BK-channel steps (plan_conv_tma_channels). */
static int tma_usable(const plan_config *c, const plan_kernel *k, const plan_problem *p, int driver_tma)
{
    /* K > 0: the TMA path's direct epilogue takes its accumulators from a
     * tile's first k tile (evt_sm90::pp_run), so K = 0 runs guarded */
    return c->pp && p->aligned && driver_tma && p->k > 0 &&
           (k->mainloop == EVT_MAINLOOP_GEMM || plan_conv_tma_channels(p->conv_c, c));
}

/* Whether the heuristic may consider the producer/consumer configurations:
 * those it can pick all have BK = 64, so the test on one answers for all.
 * A conv whose taps end in zero-filled k tiles gets PLAN_TMA_PARTIAL_TAPS:
 * there the cp.async wgmma tiles, which walk K flat, were as fast or faster
 * on six of eight layers (c of 96, 160, 200, H200; docs/conv2d_fprop.md),
 * but for the 128x64 tile's rule (plan_conv_sm90_pick); tuning and forcing
 * reach them all.  One whose maps can be made only in k tiles of 32
 * channels gets PLAN_TMA_K32, for the 128x128 tile in such k tiles. */
static int heuristic_tma(const plan_kernel *k, const plan_problem *p, int driver_tma)
{
    const plan_config *pp = &plan_configs[EVT_TILE_sm90_pp2_128x128x64_s4];
    if (!tma_usable(pp, k, p, driver_tma))
        return k->mainloop == EVT_MAINLOOP_CONV2D_FPROP &&
                       tma_usable(&plan_configs[EVT_TILE_sm90_pp2_128x128x32_s8], k, p, driver_tma)
                   ? PLAN_TMA_K32
                   : PLAN_TMA_NONE;
    return k->mainloop == EVT_MAINLOOP_GEMM || p->conv_c % pp->bk == 0 ? PLAN_TMA_MAPS : PLAN_TMA_PARTIAL_TAPS;
}

/* The device's SMs, or the target's usual count where it does not say. */
static int problem_sms(const plan_problem *p)
{
    return p->sms > 0 ? p->sms : plan_target_info(p->target)->sms_default;
}

const plan_config *plan_tail_config(const plan_config *c, const plan_kernel *k, evt_target t)
{
    if (!plan_config_persistent(c) || c->cluster > 1)
        return NULL;
    const plan_config *best = NULL;
    for (int i = 0; i < EVT_TILE_COUNT; i++) {
        const plan_config *x = &plan_configs[i];
        if (plan_config_persistent(x) || x->cluster > 1 || x->bm != c->bm || x->bn != c->bn ||
            x->op_bytes != c->op_bytes || !plan_can_run(x, k, t, NULL))
            continue;
        const int want_wgmma = x->op_bytes == 2;
        if (!best || (x->wgmma == want_wgmma && best->wgmma != want_wgmma))
            best = x;
    }
    return best;
}

plan plan_tail_plan(const plan *pl)
{
    const plan t = {.config = pl->tail_config, .aligned = pl->tail_aligned, .splits = pl->tail_splits,
                    .tail_splits = 1, .direct_tiles = pl->direct_tiles};
    return t;
}

/*
 * Persistent plan *out's tail: its last wave's tiles (all of them when the
 * problem has no more than a wave), split split_k ways where that is forced
 * (>= 2: tests, and evt_launch_tune, which times 2 to 4 ways).  The planner
 * itself (0) splits only a cooperative plan's short last wave on sm_90a,
 * and the unstaged 128x64 tile's on a GEMM, where the tail's shares sum in
 * their clusters (plan_own_tail): with the
 * sum kernel, a tail split four ways, where the last wave held at most half
 * the SMs, was slower than no split on seven of eight GEMMs on the H100
 * (docs/tuning.md), the two extra launches and the partial tiles' trip
 * through L2 costing more than the last wave's idle SMs.
 */
static void tail_of(const plan_config *c, const plan_kernel *k, const plan_problem *p, int split_k,
                    int sms, plan *out)
{
    const plan_config *t = plan_tail_config(c, k, p->target);
    if (split_k == 0 && p->target == EVT_TARGET_SM90A)
        plan_own_tail(c, k, p->batch, out->tiles, sms, p->k, &split_k);
    if (!t || out->tiles <= 0 || split_k < 2)
        return;
    const long long slots = (long long)sms * c->min_blocks;
    const long long k_tiles = (p->k + t->bk - 1) / t->bk;
    const long long last = out->tiles <= slots ? out->tiles : (out->tiles - 1) % slots + 1;
    const int s = (long long)split_k > k_tiles ? (int)k_tiles : split_k;
    if (s < 2)
        return;
    out->tail_config = t;
    out->tail_first = out->tiles - last;
    out->tail_splits = s;
    out->tail_aligned = p->aligned;
    out->grid = out->tail_first < slots ? out->tail_first : slots;
}

/*
 * Stream-K for persistent plan *out (plan.h) over `walk` tiles (stacks
 * under clusters) of k_tiles k tiles each, on `units` units (CTAs, or
 * clusters of `cluster`): with more tiles than units, the whole waves but
 * the last run whole and the last whole wave and the partial one after it
 * are shared out (each unit then takes one to two tiles' k tiles, so a
 * tile is cut in two or three pieces at most, and the tiles taken at the
 * same time stay neighbours in L2); with no more tiles than units, all of
 * them, on at most one unit a k tile.  None where the shared k tiles would
 * pass 2^31 (a K of some 2^25 and more).
 */
static void stream_k_of(long long walk, long long k_tiles, long long units, int cluster, plan *out)
{
    out->sk_iters = 0;
    out->sk_first = out->tiles;
    if (walk <= 0 || k_tiles <= 0 || units <= 0)
        return;
    const long long first = walk <= units ? 0 : (walk / units - 1) * units;
    const long long iters = (walk - first) * k_tiles;
    if (iters > INT_MAX) /* the kernels count them in an int */
        return;
    out->sk_first = first;
    out->sk_iters = iters;
    out->sk_k_tiles = k_tiles;
    out->grid = (iters < units ? iters : units) * cluster;
}

void plan_fit_clusters(plan *pl, long long resident)
{
    const int cluster = pl->config->cluster;
    if (cluster <= 1)
        return;
    if (pl->sk_iters > 0) {
        const long long walk = pl->sk_first + pl->sk_iters / pl->sk_k_tiles;
        if (resident > 0) {
            stream_k_of(walk, pl->sk_k_tiles, resident < pl->grid / cluster ? resident : pl->grid / cluster,
                        cluster, pl);
            return;
        }
        /* unknown: whole tiles, a cluster a stack, as many clusters as asked */
        pl->sk_iters = 0;
        pl->sk_first = pl->tiles;
        pl->grid = cluster * (walk < pl->grid / cluster ? walk : pl->grid / cluster);
        return;
    }
    if (resident > 0 && pl->grid > resident * cluster)
        pl->grid = resident * cluster; /* one wave of whole clusters */
}

/* The k tiles a persistent schedule walks a tile, which stream-K shares
 * out: a conv's TMA loads take each tap's c channels in whole k tiles, the
 * last zero-filled past c (evt_conv_persistent), so r s ceil(c / bk) of
 * them; else K's, k_tiles. */
static long long walked_k_tiles(const plan_config *c, const plan_kernel *k, const plan_problem *p, int tma,
                                long long k_tiles)
{
    return k->mainloop == EVT_MAINLOOP_CONV2D_FPROP && tma && p->conv_c > 0
               ? p->k / p->conv_c * ((p->conv_c + c->bk - 1) / c->bk)
               : k_tiles;
}

/* The rest of a plan once its configuration c is chosen. */
static int complete(const plan_config *c, const plan_kernel *k, const plan_problem *p,
                    const plan_options *o, int sms, int driver_tma, plan *out, const char **why)
{
    const int split_k = o ? o->split_k : 0, stream_k = o ? o->stream_k : 0;
    if (split_k < 0)
        return refuse(why, "split-K must be 0 (the planner's), 1 (never) or a number of ways");
    if (stream_k < 0 || stream_k > 2)
        return refuse(why, "stream-K must be 0 (the planner's), 1 (never) or 2 (where the configuration has it)");
    out->sk_iters = 0;
    out->sk_k_tiles = 0;
    out->config = c;
    out->tail_config = NULL;
    out->tail_splits = 1;
    out->tail_aligned = 0;
    out->tma = tma_usable(c, k, p, driver_tma);
    /* a producer/consumer configuration's fast path is its TMA loads */
    out->aligned = p->aligned && (!c->pp || out->tma);
    out->tiles = plan_config_batch_tiles(c, p->m, p->n, p->batch);
    /* (evt_sm90::coop_run shifts no clustered tile's last column) */
    const int shifts = k->mainloop == EVT_MAINLOOP_GEMM && !(c->coop && c->cluster > 1);
    out->direct_tiles = p->n % c->bn == 0 ? k->mainloop == EVT_MAINLOOP_GEMM || p->m % c->bm == 0
                                          : shifts && k->shift_cols > 0 && p->n > c->bn && p->n % k->shift_cols == 0;
    const long long k_tiles = (p->k + c->bk - 1) / c->bk;
    if (plan_config_persistent(c) || split_k == 1)
        out->splits = 1; /* a persistent grid walks its tiles: never split */
    else if (split_k == 0)
        out->splits = plan_own_split(c, k, p->batch, out->tiles, sms, p->k, p->target == EVT_TARGET_SM90A);
    else /* as asked, with at least one k tile a share */
        out->splits = k_tiles < 2 ? 1 : (long long)split_k > k_tiles ? (int)k_tiles : split_k;
    /* and no more CTAs than a launch's grid can have (2^31 - 1) */
    if (out->splits > 1 && out->tiles > INT_MAX / out->splits) {
        const long long most = INT_MAX / out->tiles; /* below splits, so an int */
        out->splits = most >= 2 ? (int)most : 1;
    }
    const long long slots = (long long)sms * c->min_blocks;
    out->grid = out->splits > 1                                        ? out->tiles * out->splits
                : plan_config_persistent(c) && out->tiles > slots ? slots
                                                                       : out->tiles;
    /* what the grid walks: tiles, or under clusters stacks of c->cluster
     * tiles on top of each other (evt_sched::tile_walk) */
    const long long walk = c->cluster > 1 ? plan_config_stacks(c, p->m, p->n, p->batch) : out->tiles;
    if (c->cluster > 1) {
        /* whole clusters, as many as there are stacks, or as fit in the slots */
        const long long clusters = slots / c->cluster;
        out->grid = c->cluster * (walk < clusters ? walk : clusters);
    }
    out->tail_first = out->tiles;
    out->sk_first = out->tiles;
    if (plan_config_persistent(c)) {
        /* stream-K where asked (tuning times it); the planner does not take
         * it of its own accord: measured no faster than its picks (docs/tuning.md) */
        if (plan_config_stream_k(c) && stream_k == 2)
            stream_k_of(walk, walked_k_tiles(c, k, p, out->tma, k_tiles), slots / c->cluster, c->cluster, out);
        else
            tail_of(c, k, p, split_k, sms, out);
    }
    return 1;
}

static plan_conv_view conv_view(const plan_problem *p)
{
    return (plan_conv_view){p->conv_c, p->conv_stride, p->conv_r, p->conv_s};
}

int plan_make(const plan_kernel *k, const plan_problem *p, const plan_options *o, plan *out,
              const char **why)
{
    if (!plan_target_info(p->target))
        return refuse(why, "the target is not one evt knows");
    const int sms = problem_sms(p);
    const char *target_refusal = plan_kernel_target_refusal(k, p->target);
    if (target_refusal)
        return refuse(why, target_refusal);
    const plan_config *c = o ? o->config : NULL;
    if (c && !plan_can_run(c, k, p->target, why))
        return 0;
    if (!c) {
        const plan_conv_view cv = conv_view(p);
        c = plan_pick(k, p->target, p->m, p->n, p->k, p->batch, sms, &p->resident,
                      heuristic_tma(k, p, p->driver_tma), &cv);
    }
    return complete(c, k, p, o, sms, p->driver_tma, out, why);
}

void plan_tma_refused(const plan_kernel *k, const plan_problem *p, const plan_options *o, plan *pl)
{
    if (!pl->tma)
        return;
    if (o && o->config) { /* forced: its guarded entry, element by element */
        pl->aligned = 0;
        pl->tma = 0;
        return;
    }
    /* the heuristic's pick as if the driver had no tensor maps */
    const int sms = problem_sms(p);
    const plan_conv_view cv = conv_view(p);
    complete(plan_pick(k, p->target, p->m, p->n, p->k, p->batch, sms, &p->resident, 0, &cv), k, p, o, sms, 0, pl,
             NULL);
}

void plan_describe(const plan *pl, evt_target t, char *buf, size_t n)
{
    int w = snprintf(buf, n, "%s %s %s%s grid %lld splits %d", evt_target_name(t), pl->config->name,
                     pl->aligned ? "fast" : "guarded", pl->tma ? " tma" : "", pl->grid, pl->splits);
    if (pl->tail_splits > 1 && w >= 0 && (size_t)w < n)
        snprintf(buf + w, n - (size_t)w, " tail %lld x %d %s", pl->tiles - pl->tail_first,
                 pl->tail_splits, pl->tail_config->name);
    else if (pl->sk_iters > 0 && w >= 0 && (size_t)w < n)
        snprintf(buf + w, n - (size_t)w, " stream-K %lld %s", pl->sk_iters / pl->sk_k_tiles,
                 pl->config->cluster > 1 ? "stacks" : "tiles");
}
