/*
 * transposed_gemm.c - f16 and bf16 GEMMs in all four operand layouts (A row-
 * or column-major, B row- or column-major) on the GPU against the f64
 * reference: on sm_90a a column-major A and a row-major B are read MN-major
 * by the transposed wgmma (kernels/sm90/wgmma.cuh's wgmma_desc_mn, TMA boxes
 * of 64 M/N positions), so every layout runs under every sm90 GEMM
 * configuration family: the ping-pong producer/consumer tile (TMA), the
 * cooperative one (TMA), the cp.async wgmma tiles, and the planner's own
 * pick.  Per kernel and family: a fast-path problem (every extent a
 * multiple of 8 but of no tile, padded leading dimensions), a guarded one
 * (odd M, N, K), a batch of 3 with B shared (stride 0; A's TMA map rank 3),
 * for the persistent tiles a batch of 70 with B per problem and more tiles
 * than CTAs (each CTA walks several), and for the planner's pick a problem
 * large enough for its producer/consumer tile, whose plan is checked
 * (TMA, not the mma.sync fallback).  On the GPU each forced run's plan must
 * name its configuration and path ("fast tma" for the TMA tiles' aligned
 * problems, "guarded" for the odd ones).  Outputs start as NaN.
 *
 *   transposed_gemm              on the GPU; exit 77 (ctest: skipped) without one
 *   transposed_gemm --dry-run T  no GPU: every launch validated up to
 *                                EVT_ERR_NO_GPU for target T, the references
 *                                computed (the CPU half of the test)
 * Exit status: 0 PASS, 1 FAIL or error, 77 no GPU.
 */
#include <evt/evt.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_device.h"

static const char source[] =
    "epilogue e {\n"
    "    param alpha : f32 = 1.0\n"
    "    in  bias : f16[N]\n"
    "    out d    : f32[M, N] = alpha * acc + bias\n"
    "}\n"
    "kernel rr_f16  = gemm(a: f16 row,  b: f16 row,  acc: f32) with e\n"
    "kernel rc_f16  = gemm(a: f16 row,  b: f16 col,  acc: f32) with e\n"
    "kernel cr_f16  = gemm(a: f16 col,  b: f16 row,  acc: f32) with e\n"
    "kernel cc_f16  = gemm(a: f16 col,  b: f16 col,  acc: f32) with e\n"
    "kernel rr_bf16 = gemm(a: bf16 row, b: bf16 row, acc: f32) with e\n"
    "kernel rc_bf16 = gemm(a: bf16 row, b: bf16 col, acc: f32) with e\n"
    "kernel cr_bf16 = gemm(a: bf16 col, b: bf16 row, acc: f32) with e\n"
    "kernel cc_bf16 = gemm(a: bf16 col, b: bf16 col, acc: f32) with e\n";

static const struct kern {
    const char *name;
    evt_elem elem;
    int a_col, b_col;
} kernels[] = {
    {"rr_f16", EVT_F16, 0, 0},  {"rc_f16", EVT_F16, 0, 1},  {"cr_f16", EVT_F16, 1, 0},
    {"cc_f16", EVT_F16, 1, 1},  {"rr_bf16", EVT_BF16, 0, 0}, {"rc_bf16", EVT_BF16, 0, 1},
    {"cr_bf16", EVT_BF16, 1, 0}, {"cc_bf16", EVT_BF16, 1, 1},
};

/* The families, forced by configuration name (NULL: the planner's pick). */
static const char *const families[] = {
    "sm90_pp2_128x128x64_s4", "sm90_coop2_256x128x64_s3", "sm90_coop2_128x256x64_s3",
    "sm90_coop2_128x256x64_s4", "sm90_coop2_128x192x64_s4",
    "sm90_wg2_128x256x64_s4", "sm90_wg2_128x128x64_s3",
    "sm90_wg1_64x128x64_s4", "sm90_wg1_64x128x64_s8", "sm90_wg1_64x64x64_s8", NULL,
};

static int failures;

/* 8 times an odd number in [lo, hi]: the fast path's extents, a multiple of no tile. */
static long long eights(unsigned long long *s, long long lo, long long hi)
{
    return 8 * (between(s, lo, hi) | 1);
}

/* An odd number in [lo, hi]: the guarded path's. */
static long long odd(unsigned long long *s, long long lo, long long hi)
{
    return between(s, lo, hi) | 1;
}

/* One case: a batch of L problems of M x N x K of kernel kn under configuration config. */
typedef struct tcase {
    const struct kern *kn;
    const char *config;
    long long L, M, N, K, lda, ldb;
    long long stride_a, stride_b; /* in elements; stride_b 0: B shared */
    float alpha;
    const char *want_plan; /* on the GPU, a substring the plan must hold (NULL: none) */
    const char *want_tile; /* and a second one, the tile family's (NULL: none) */
} tcase;

static void describe(const tcase *c, char *buf, size_t n)
{
    snprintf(buf, n, "%s %s L=%lld M=%lld N=%lld K=%lld lda %lld ldb %lld stride_a %lld stride_b %lld", c->kn->name,
             c->config ? c->config : "(heuristic)", c->L, c->M, c->N, c->K, c->lda, c->ldb, c->stride_a,
             c->stride_b);
}

/* Runs case c and checks every problem; 0, or 77 where the target cannot run its configuration. */
static int run_case(device *g, evt_module *m, evt_target target, const tcase *c, unsigned long long *rng)
{
    const evt_kernel *k = evt_module_find_kernel(m, c->kn->name);
    if (!k || (c->config && evt_kernel_config_check(m, k, target, c->config) != EVT_OK)) {
        if (target == EVT_TARGET_SM90A) { /* every layout of 16-bit operands runs every sm90 family */
            fprintf(stderr, "transposed_gemm: FAIL %s refused on sm_90a: %s\n", c->kn->name,
                    evt_ctx_last_error(g->ctx));
            failures++;
        }
        return 77;
    }
    const long long L = c->L, M = c->M, N = c->N, K = c->K;
    const size_t es = 2;
    /* one problem's extent: (columns or rows - 1) * ld + the contiguous extent */
    const long long a_one = c->kn->a_col ? (K - 1) * c->lda + M : (M - 1) * c->lda + K;
    const long long b_one = c->kn->b_col ? (N - 1) * c->ldb + K : (K - 1) * c->ldb + N;
    const size_t a_elems = (size_t)((L - 1) * c->stride_a + a_one);
    const size_t b_elems = (size_t)((c->stride_b ? L - 1 : 0) * c->stride_b + b_one);
    const size_t mn = (size_t)(M * N);
    void *a = malloc(a_elems * es), *b = malloc(b_elems * es);
    uint16_t *bias = malloc((size_t)N * 2);
    float *d = malloc((size_t)L * mn * 4 + 4);
    double *acc = malloc(mn * 8 + 8), *want = malloc(mn * 8 + 8);
    if (!a || !b || !bias || !d || !acc || !want) {
        fprintf(stderr, "transposed_gemm: out of memory\n");
        exit(1);
    }
    random_values(g, rng, c->kn->elem, a, a_elems);
    random_values(g, rng, c->kn->elem, b, b_elems);
    random_values(g, rng, EVT_F16, bias, (size_t)N);
    memset(d, 0xff, (size_t)L * mn * 4); /* NaN: what the kernel must overwrite */
    void *ga = dev_alloc(g, a_elems * es), *gb = dev_alloc(g, b_elems * es), *gbias = dev_alloc(g, (size_t)N * 2);
    void *gd = dev_alloc(g, (size_t)L * mn * 4 + 4);
    copy(g, ga, a, a_elems * es, 1);
    copy(g, gb, b, b_elems * es, 1);
    copy(g, gbias, bias, (size_t)N * 2, 1);
    copy(g, gd, d, (size_t)L * mn * 4, 1);

    evt_launch *l = NULL;
    evt_status st = evt_launch_create(m, k, &l);
    const evt_tuning t = {.config = c->config, .split_k = 1};
    if (st == EVT_OK && c->config)
        st = evt_launch_set_tuning(l, &t);
    if (st == EVT_OK)
        st = evt_launch_set_gemm(l, M, N, K, ga, c->lda, a_elems * es, gb, c->ldb, b_elems * es);
    if (st == EVT_OK && L > 1)
        st = evt_launch_set_batch(l, L, c->stride_a, c->stride_b);
    if (st == EVT_OK)
        st = evt_launch_bind_batched(l, "bias", gbias, (size_t)N * 2, 0, 0);
    if (st == EVT_OK)
        st = evt_launch_bind_batched(l, "d", gd, (size_t)L * mn * 4, N, L > 1 ? (long long)mn : 0);
    if (st == EVT_OK)
        st = evt_launch_set_param(l, "alpha", c->alpha);
    if (st == EVT_OK)
        st = evt_launch_run(l, NULL);
    if (st == EVT_OK)
        st = evt_device_synchronize(g->ctx);
    char what[256];
    describe(c, what, sizeof what);
    if (st != (g->dry ? EVT_ERR_NO_GPU : EVT_OK)) {
        fprintf(stderr, "transposed_gemm: FAIL %s: %s: %s\n", what, evt_status_string(st), evt_ctx_last_error(g->ctx));
        failures++;
    } else if (!g->dry) {
        const char *plan = evt_launch_plan(l);
        if ((c->config && !strstr(plan, c->config)) || (c->want_plan && !strstr(plan, c->want_plan)) ||
            (c->want_tile && !strstr(plan, c->want_tile))) {
            fprintf(stderr, "transposed_gemm: FAIL %s: plan \"%s\", want \"%s\"%s%s\n", what, plan,
                    c->want_plan ? c->want_plan : c->config, c->want_tile ? " and " : "",
                    c->want_tile ? c->want_tile : "");
            failures++;
        }
    }
    copy(g, d, gd, (size_t)L * mn * 4, 0);

    const evt_epilogue *ep = evt_kernel_epilogue(k);
    const evt_layout la = c->kn->a_col ? EVT_LAYOUT_COL : EVT_LAYOUT_ROW;
    const evt_layout lb = c->kn->b_col ? EVT_LAYOUT_COL : EVT_LAYOUT_ROW;
    /* the rows checked: all, or for a large problem (the planner's
     * producer/consumer case) its first and last 136 rows, which cover a
     * tile boundary and the ragged edge and keep the f64 reference short */
    const long long big = M * N * K > 100000000LL && M > 272;
    const long long blocks[2][2] = {{0, big ? 136 : M}, {M - 136, big ? 136 : 0}};
    /* (a dry run has nothing to hold them against: its first block only,
     * which keeps the reference's path under the sanitizers) */
    for (long long x = 0; x < (g->dry ? 1 : 2 * L) && st == (g->dry ? EVT_ERR_NO_GPU : EVT_OK); x++) {
        const long long p = x / 2, r0 = blocks[x % 2][0], rows = blocks[x % 2][1];
        /* a long batch: its first two problems, its last and every ninth */
        if (rows == 0 || (L > 8 && p > 1 && p != L - 1 && p % 9 != 0))
            continue;
        const size_t rn = (size_t)(rows * N);
        /* rows r0 .. of A: r0 rows down a row-major A, r0 elements along a column-major one */
        const char *ap = (const char *)a + (size_t)(p * c->stride_a + (c->kn->a_col ? r0 : r0 * c->lda)) * es;
        const char *bp = (const char *)b + (size_t)(p * c->stride_b) * es;
        evt_interp *in = NULL;
        evt_status rs = evt_reference_gemm(rows, N, K, c->kn->elem, ap, la, c->lda, bp, lb, c->ldb, acc, NULL, N);
        if (rs == EVT_OK)
            rs = evt_interp_create(ep, &in);
        if (rs == EVT_OK)
            rs = evt_interp_set_param(in, "alpha", c->alpha);
        if (rs == EVT_OK)
            rs = evt_interp_set_acc_f64(in, rows, N, acc, rn * 8, N);
        if (rs == EVT_OK)
            rs = evt_interp_bind(in, "bias", bias, (size_t)N * 2, 0);
        if (rs == EVT_OK)
            rs = evt_interp_bind_f64(in, "d", want, rn * 8, N);
        if (rs == EVT_OK)
            rs = evt_interp_run(in, EVT_INTERP_F64);
        if (rs != EVT_OK) {
            fprintf(stderr, "transposed_gemm: the reference: %s\n", in ? evt_interp_last_error(in) : "");
            failures++;
        }
        evt_interp_destroy(in);
        if (rs != EVT_OK || g->dry)
            continue;
        evt_check_verdict v;
        if (evt_check_values(EVT_F32, EVT_REDUCE_NONE, d + (size_t)p * mn + (size_t)(r0 * N), want, rn, &v) !=
                EVT_OK ||
            !v.passed) {
            fprintf(stderr,
                    "transposed_gemm: FAIL %s: problem %lld rows %lld..: %lld of %lld off, %lld NaN/inf "
                    "mismatches, first at %lld: got %.9g, want %.9g (max rel err %.3g, tol %.3g)\n",
                    what, p, r0, v.bad, v.checked, v.special_bad, v.first_bad, v.first_got, v.first_want,
                    v.max_err, v.tol);
            failures++;
        }
    }
    evt_launch_destroy(l);
    void *gs[] = {ga, gb, gbias, gd};
    for (size_t i = 0; i < sizeof gs / sizeof gs[0]; i++)
        dev_free(g, gs[i]);
    free(a);
    free(b);
    free(bias);
    free(d);
    free(acc);
    free(want);
    return 0;
}

/* Leading dimensions: the contiguous extent plus 0 to 16 elements (a
 * multiple of 8 where the case is aligned, so the fast path holds). */
static void set_lds(tcase *c, unsigned long long *rng, int aligned)
{
    const long long a_ext = c->kn->a_col ? c->M : c->K, b_ext = c->kn->b_col ? c->K : c->N;
    c->lda = a_ext + (aligned ? 8 * between(rng, 0, 2) : between(rng, 0, 5));
    c->ldb = b_ext + (aligned ? 8 * between(rng, 0, 2) : between(rng, 0, 5));
}

int main(int argc, char **argv)
{
    device g = {NULL, 0, "transposed_gemm"};
    evt_target target;
    evt_module *m;
    const int rc = device_open(&g, argc, argv, "transposed.evt", source, &target, &m);
    if (rc != 0)
        return rc;
    unsigned long long rng = 20261125;
    int cases = 0;
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++)
        for (size_t fi = 0; fi < sizeof families / sizeof families[0]; fi++) {
            const char *cfg = families[fi];
            const int tma = cfg && (strstr(cfg, "_pp2_") || strstr(cfg, "_coop2_"));
            for (int variant = 0; variant < 5; variant++) {
                tcase c = {.kn = &kernels[ki], .config = cfg, .L = 1};
                c.alpha = (float)between(&rng, 1, 8) * 0.25f;
                const int aligned = variant != 1;
                switch (variant) {
                case 0: /* fast path, one problem */
                    c.M = eights(&rng, 1, 40);
                    c.N = eights(&rng, 1, 40);
                    c.K = eights(&rng, 1, 80);
                    break;
                case 1: /* guarded: odd extents */
                    c.M = odd(&rng, 1, 260);
                    c.N = odd(&rng, 1, 260);
                    c.K = odd(&rng, 1, 300);
                    break;
                case 2: /* a batch of 3, B shared */
                    c.L = 3;
                    c.M = eights(&rng, 1, 30);
                    c.N = eights(&rng, 1, 30);
                    c.K = eights(&rng, 9, 40);
                    break;
                case 3: /* the persistent tiles: a batch of 70, B per problem, more tiles than CTAs */
                    if (cfg && !tma)
                        continue;
                    c.L = 70;
                    c.M = eights(&rng, 17, 25);
                    c.N = eights(&rng, 17, 25);
                    c.K = eights(&rng, 3, 9);
                    break;
                default: /* the planner's producer/consumer tile */
                    if (cfg)
                        continue;
                    /* 70 to 77 tiles of 128x128: more than half the SMs, or
                     * the heuristic takes the one-warpgroup tile (docs/tuning.md,
                     * "Half-empty ping-pong grids"); the ping-pong 128x128
                     * tile on TMA, in clusters of two where K is an odd
                     * multiple of 8 (the odd-8 rules, docs/sm90.md) */
                    c.M = eights(&rng, 151, 165);
                    c.N = eights(&rng, 101, 111);
                    c.K = eights(&rng, 129, 139);
                    c.want_plan = "_128x128x64_s4 fast tma";
                    c.want_tile = "sm_90a sm90_pp2_";
                    break;
                }
                set_lds(&c, &rng, aligned);
                if (c.L > 1) {
                    /* whole problems apart (a rank-3 TMA map's problems may not
                     * overlap), plus a multiple of 8 elements */
                    c.stride_a = c.lda * (c.kn->a_col ? c.K : c.M) + 8 * between(&rng, 0, 2);
                    c.stride_b = variant == 2 ? 0 : c.ldb * (c.kn->b_col ? c.N : c.K) + 8 * between(&rng, 0, 2);
                }
                if (cfg && !c.want_plan)
                    c.want_plan = !aligned ? "guarded" : tma ? "fast tma" : "fast";
                if (run_case(&g, m, target, &c, &rng) == 0)
                    cases++;
            }
        }
    printf("transposed_gemm: %d cases, %d failures: %s\n", cases, failures, failures ? "FAIL" : "PASS");
    evt_module_destroy(m);
    evt_ctx_destroy(g.ctx);
    return failures ? 1 : 0;
}
