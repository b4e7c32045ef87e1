/*
 * batched_gemm.c - batched GEMM on the GPU (evt_launch_set_batch) against
 * the f64 reference, problem by problem.  Random ragged M, N, K (multiples
 * of no tile), batches of L = 1, 2, 7, 64 and 512 (small problems), under
 * every GEMM configuration family forced (mma.sync, mma.sync split-K,
 * wgmma, the TMA producer/consumer tile) and the planner's own pick.  A
 * per problem (its batch stride sometimes not a multiple of 8 elements: the
 * guarded path); B per problem or shared by the batch (stride 0); the bias
 * shared; the residual, the output and two reductions (an [M] one and a
 * scalar one) per problem, the output's problems sometimes apart by more
 * than their extent, whose gap must stay unwritten.  Every output of every
 * problem is compared with evt_check_values (the tolerances of evtc run
 * --check); outputs start as NaN, so one never written fails.
 *
 *   batched_gemm              on the GPU; exit 77 (ctest: skipped) without one
 *   batched_gemm --dry-run T  no GPU: every launch validated up to
 *                             EVT_ERR_NO_GPU for target T, the references
 *                             computed (the CPU half of the test)
 * Exit status: 0 PASS, 1 FAIL or error, 77 no GPU.
 */
#include <evt/evt.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_device.h"

static const char source[] =
    "epilogue e {\n"
    "    param alpha : f32 = 1.0\n"
    "    in  bias  : f16[N]\n"
    "    in  res   : f16[M, N]\n"
    "    out d     : f16[M, N] = relu(alpha * acc + bias) + res\n"
    "    out rmax  : f32[M] = reduce_max(acc, N)\n"
    "    out total : f32 = reduce_sum(acc)\n"
    "}\n"
    "kernel tn = gemm(a: f16 row, b: f16 col, acc: f32) with e\n";

/* The families, forced by configuration name (NULL: the planner's pick). */
static const struct family {
    const char *config;
    int split_k;
    int stream_k; /* 2: forced (evt_tuning.stream_k) */
} families[] = {
    {"sm80_64x64x32_w4_s4", 1, 0},    {"sm80_128x128x64_w4_s3", 1, 0}, {"sm80_64x64x32_w4_s4", 3, 0},
    {"sm90_wg2_128x128x64_s3", 1, 0}, {"sm90_wg1_64x128x64_s4", 1, 0}, {"sm90_pp2_128x128x64_s4", 1, 0},
    {"sm90_pp2_cl2_128x128x64_s4", 1, 0}, {"sm90_coop2_cl2_128x256x64_s3", 1, 0},
    {"sm90_coop2_128x256x64_s4", 1, 0}, {"sm90_coop2_cl2_128x256x64_s4", 1, 0},
    {"sm90_coop2_128x256x64_s3", 1, 2}, {"sm90_coop2_256x128x64_s3", 1, 2},
    {"sm90_coop2_cl2_128x256x64_s3", 1, 2}, {"sm90_coop2_128x192x64_s4", 1, 0},
    {"sm90_coop2_128x192x64_s4", 1, 2}, {"sm90_wg1_16x64x64_s16", 1, 0},
    {"sm90_wg1_32x64x64_s12", 2, 0}, {"sm90_wg1_16x128x64_s12", 3, 0},
    {NULL, 0, 0},
};

static const long long counts[] = {1, 2, 7, 64, 512};

static int failures;

/* A ragged size in [lo, hi]: one more than a multiple of 8 half the time, so
 * that no size is a multiple of any tile's. */
static long long ragged(unsigned long long *s, long long lo, long long hi)
{
    long long v = between(s, lo, hi);
    return v % 16 == 0 ? v + 1 : v;
}

/* One case: a batch of L problems of M x N x K under family f. */
typedef struct batch_case {
    long long L, M, N, K;
    long long stride_a, stride_b, stride_d; /* in elements; stride_b 0: B shared */
    const struct family *f;
    float alpha;
} batch_case;

/* Compares `count` stored values with their reference; prints a failure. */
static void expect_close(const batch_case *c, long long l, const char *name, evt_elem elem, evt_reduce red,
                         const void *got, const double *want, size_t count)
{
    evt_check_verdict v;
    if (evt_check_values(elem, red, got, want, count, &v) != EVT_OK || !v.passed) {
        fprintf(stderr,
                "batched_gemm: FAIL %s (split %d) L=%lld M=%lld N=%lld K=%lld stride_a %lld stride_b %lld: "
                "problem %lld output %s: %lld of %lld off, %lld NaN/inf mismatches, first at %lld: got %.9g, "
                "want %.9g (max rel err %.3g, tol %.3g)\n",
                c->f->config ? c->f->config : "(heuristic)", c->f->split_k, c->L, c->M, c->N, c->K, c->stride_a,
                c->stride_b, l, name, v.bad, v.checked, v.special_bad, v.first_bad, v.first_got, v.first_want,
                v.max_err, v.tol);
        failures++;
    }
}

/* Runs case c and checks every problem; 0, or 77 where the target cannot run its configuration. */
static int run_case(device *g, evt_module *m, evt_target target, const batch_case *c, unsigned long long *rng)
{
    const evt_kernel *k = evt_module_find_kernel(m, "tn");
    if (c->f->config && evt_kernel_config_check(m, k, target, c->f->config) != EVT_OK)
        return 77;
    const long long L = c->L, M = c->M, N = c->N, K = c->K;
    const size_t a_elems = (size_t)((L - 1) * c->stride_a + M * K);
    const size_t b_elems = (size_t)((c->stride_b ? L - 1 : 0) * c->stride_b + N * K);
    const size_t mn = (size_t)(M * N), d_elems = (size_t)((L - 1) * c->stride_d) + mn;
    uint16_t *a = malloc(a_elems * 2), *b = malloc(b_elems * 2), *bias = malloc((size_t)N * 2);
    uint16_t *res = malloc((size_t)L * mn * 2), *d = malloc(d_elems * 2);
    float *rmax = malloc((size_t)(L * M) * 4), *total = malloc((size_t)L * 4);
    double *acc = malloc(mn * 8 + 8), *want_d = malloc(mn * 8 + 8), *want_rmax = malloc((size_t)M * 8 + 8);
    double want_total;
    if (!a || !b || !bias || !res || !d || !rmax || !total || !acc || !want_d || !want_rmax) {
        fprintf(stderr, "batched_gemm: out of memory\n");
        exit(1);
    }
    random_values(g, rng, EVT_F16, a, a_elems);
    random_values(g, rng, EVT_F16, b, b_elems);
    random_values(g, rng, EVT_F16, bias, (size_t)N);
    random_values(g, rng, EVT_F16, res, (size_t)L * mn);
    memset(d, 0xff, d_elems * 2); /* NaN: what the kernel must overwrite, or leave (the gaps) */
    memset(rmax, 0xff, (size_t)(L * M) * 4);
    memset(total, 0xff, (size_t)L * 4);
    void *ga = dev_alloc(g, a_elems * 2), *gb = dev_alloc(g, b_elems * 2), *gbias = dev_alloc(g, (size_t)N * 2);
    void *gres = dev_alloc(g, (size_t)L * mn * 2), *gd = dev_alloc(g, d_elems * 2);
    void *grmax = dev_alloc(g, (size_t)(L * M) * 4), *gtotal = dev_alloc(g, (size_t)L * 4);
    copy(g, ga, a, a_elems * 2, 1);
    copy(g, gb, b, b_elems * 2, 1);
    copy(g, gbias, bias, (size_t)N * 2, 1);
    copy(g, gres, res, (size_t)L * mn * 2, 1);
    copy(g, gd, d, d_elems * 2, 1);
    copy(g, grmax, rmax, (size_t)(L * M) * 4, 1);
    copy(g, gtotal, total, (size_t)L * 4, 1);

    evt_launch *l = NULL;
    evt_status st = evt_launch_create(m, k, &l);
    const evt_tuning t = {.config = c->f->config, .split_k = c->f->split_k, .stream_k = c->f->stream_k};
    if (st == EVT_OK)
        st = evt_launch_set_tuning(l, &t);
    if (st == EVT_OK)
        st = evt_launch_set_gemm(l, M, N, K, ga, K, a_elems * 2, gb, K, b_elems * 2);
    if (st == EVT_OK)
        st = evt_launch_set_batch(l, L, c->stride_a, c->stride_b);
    if (st == EVT_OK)
        st = evt_launch_bind_batched(l, "bias", gbias, (size_t)N * 2, 0, 0);
    if (st == EVT_OK)
        st = evt_launch_bind_batched(l, "res", gres, (size_t)L * mn * 2, N, (long long)mn);
    if (st == EVT_OK)
        st = evt_launch_bind_batched(l, "d", gd, d_elems * 2, N, c->stride_d);
    if (st == EVT_OK)
        st = evt_launch_bind_batched(l, "rmax", grmax, (size_t)(L * M) * 4, 0, M);
    if (st == EVT_OK)
        st = evt_launch_bind_batched(l, "total", gtotal, (size_t)L * 4, 0, 1);
    if (st == EVT_OK)
        st = evt_launch_set_param(l, "alpha", c->alpha);
    if (st == EVT_OK)
        st = evt_launch_run(l, NULL);
    if (st == EVT_OK)
        st = evt_device_synchronize(g->ctx);
    if (st != (g->dry ? EVT_ERR_NO_GPU : EVT_OK)) {
        fprintf(stderr, "batched_gemm: %s L=%lld M=%lld N=%lld K=%lld: %s: %s\n",
                c->f->config ? c->f->config : "(heuristic)", L, M, N, K, evt_status_string(st),
                evt_ctx_last_error(g->ctx));
        failures++;
    } else if (!g->dry && L == 64 && M > 32) {
        printf("  %-26s L=%-3lld %4lldx%-4lldx%-4lld %s\n", c->f->config ? c->f->config : "(heuristic)", L, M, N, K,
               evt_launch_plan(l));
    }
    copy(g, d, gd, d_elems * 2, 0);
    copy(g, rmax, grmax, (size_t)(L * M) * 4, 0);
    copy(g, total, gtotal, (size_t)L * 4, 0);

    /* every problem against its own f64 reference */
    const evt_epilogue *ep = evt_kernel_epilogue(k);
    /* (a dry run has nothing to hold them against: its first only, which
     * keeps the reference's path under the sanitizers) */
    for (long long p = 0; p < (g->dry ? 1 : L) && st == (g->dry ? EVT_ERR_NO_GPU : EVT_OK); p++) {
        const uint16_t *ap = a + p * c->stride_a, *bp = b + p * c->stride_b;
        evt_interp *in = NULL;
        evt_status rs = evt_reference_gemm(M, N, K, EVT_F16, ap, EVT_LAYOUT_ROW, K, bp, EVT_LAYOUT_COL, K, acc,
                                           NULL, N);
        if (rs == EVT_OK)
            rs = evt_interp_create(ep, &in);
        if (rs == EVT_OK)
            rs = evt_interp_set_param(in, "alpha", c->alpha);
        if (rs == EVT_OK)
            rs = evt_interp_set_acc_f64(in, M, N, acc, mn * 8, N);
        if (rs == EVT_OK)
            rs = evt_interp_bind(in, "bias", bias, (size_t)N * 2, 0);
        if (rs == EVT_OK)
            rs = evt_interp_bind(in, "res", res + (size_t)p * mn, mn * 2, N);
        if (rs == EVT_OK)
            rs = evt_interp_bind_f64(in, "d", want_d, mn * 8, N);
        if (rs == EVT_OK)
            rs = evt_interp_bind_f64(in, "rmax", want_rmax, (size_t)M * 8, 0);
        if (rs == EVT_OK)
            rs = evt_interp_bind_f64(in, "total", &want_total, 8, 0);
        if (rs == EVT_OK)
            rs = evt_interp_run(in, EVT_INTERP_F64);
        if (rs != EVT_OK) {
            fprintf(stderr, "batched_gemm: the reference: %s\n", in ? evt_interp_last_error(in) : "");
            failures++;
        }
        evt_interp_destroy(in);
        if (rs != EVT_OK || g->dry)
            continue;
        expect_close(c, p, "d", EVT_F16, EVT_REDUCE_NONE, d + p * c->stride_d, want_d, mn);
        expect_close(c, p, "rmax", EVT_F32, EVT_REDUCE_MAX, rmax + p * M, want_rmax, (size_t)M);
        /* a sum is judged against its terms' magnitude: random terms can cancel
         * to an exact 0 in f64 (K = 1: (sum of A) x (sum of B)), which f32 in
         * another order misses by a rounding, infinitely far relatively */
        double terms = 0;
        for (size_t x = 0; x < mn; x++)
            terms += fabs(acc[x]);
        if (fabs((double)total[p] - want_total) > evt_check_tolerance(EVT_F32, EVT_REDUCE_SUM) * terms)
            expect_close(c, p, "total", EVT_F32, EVT_REDUCE_SUM, total + p, &want_total, 1);
        /* the gap after problem p's output, which no problem owns: still NaN */
        for (long long x = (long long)mn; p + 1 < L && x < c->stride_d; x++)
            if (d[p * c->stride_d + x] != 0xffff) {
                fprintf(stderr, "batched_gemm: FAIL %s L=%lld: element %lld past problem %lld's output written\n",
                        c->f->config ? c->f->config : "(heuristic)", L, x, p);
                failures++;
                break;
            }
    }
    evt_launch_destroy(l);
    void *gs[] = {ga, gb, gbias, gres, gd, grmax, gtotal};
    for (size_t i = 0; i < sizeof gs / sizeof gs[0]; i++)
        dev_free(g, gs[i]);
    free(a);
    free(b);
    free(bias);
    free(res);
    free(d);
    free(rmax);
    free(total);
    free(acc);
    free(want_d);
    free(want_rmax);
    return 0;
}

int main(int argc, char **argv)
{
    device g = {NULL, 0, "batched_gemm"};
    evt_target target;
    evt_module *m;
    const int rc = device_open(&g, argc, argv, "batched.evt", source, &target, &m);
    if (rc != 0)
        return rc;
    unsigned long long rng = 20261125;
    int cases = 0;
    for (size_t fi = 0; fi < sizeof families / sizeof families[0]; fi++)
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
            for (int variant = 0; variant < 2; variant++) {
                batch_case c = {.L = counts[ci], .f = &families[fi]};
                const int small = c.L >= 64;
                c.M = ragged(&rng, 1, c.L == 512 ? 40 : small ? 200 : 300);
                c.N = ragged(&rng, 1, c.L == 512 ? 40 : small ? 200 : 300);
                /* K: a multiple of 8 (the operands' fast path) in the first variant, ragged in the second */
                c.K = variant == 0 ? 8 * between(&rng, 1, c.L == 512 ? 8 : 40) : ragged(&rng, 1, c.L == 512 ? 70 : 300);
                /* A's problems apart by more than their extent: by 8 elements (aligned) or by 3 (not) */
                c.stride_a = c.M * c.K + (variant == 0 ? 8 * between(&rng, 0, 2) : 3);
                c.stride_b = variant == 0 ? 0 : c.N * c.K; /* B shared, or per problem */
                c.stride_d = c.M * c.N + between(&rng, 0, 1) * 5;
                c.alpha = (float)between(&rng, 1, 8) * 0.25f;
                if (run_case(&g, m, target, &c, &rng) == 0)
                    cases++;
            }
    printf("batched_gemm: %d cases, %d failures: %s\n", cases, failures, failures ? "FAIL" : "PASS");
    evt_module_destroy(m);
    evt_ctx_destroy(g.ctx);
    return failures ? 1 : 0;
}
