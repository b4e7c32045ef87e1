/* plan_grid.c - the heuristic's plan for every shape of a fixed grid, one
 * line each, for bench/plan_diff.sh to compare two planners: GEMMs of a
 * per-element epilogue (bias + GELU), a light one (D = acc), a light
 * one reading a bias (relu(acc + bias)) and bias + gelu_tanh under fast
 * math on
 * sm_90a, 132 SMs, TMA maps, one problem each and (gemm-batch-*) batches
 * of 8, 64 and 512; conv layers (an epilogue input to stage, as
 * relu(conv + b + z)), NHWC, maps where c allows.  Built from the planner's sources and
 * plan_stubs.c alone, so that any revision's planner can be compiled
 * against it.  Given shapes as arguments it plans those instead
 * (bench/plan_query.sh): gemm:MxNxK[xL][:gelu|light|bias|tanhfast|residual],
 * conv:N,H,W,C,K,R,PAD,STRIDE.  Given random:COUNT it plans COUNT random
 * problems, each a kernel of random facts (mainloop, layout, fp8, the
 * epilogue's kind) on a random target (sm_80 to sm_90a), SM count,
 * alignment and TMA availability, from a fixed seed: a check that a change
 * meant to move nothing (a refactor) moves nothing on any target
 * (bench/plan_diff.sh --random). */
#include "plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const plan_kernel gelu = {EVT_MAINLOOP_GEMM, 1, 0, 0, 0, 1, 1};
static const plan_kernel light = {EVT_MAINLOOP_GEMM, 1, 0, 0, 1, 1, 0};
/* relu(acc + bias): light, reading an [N] input (an older plan_kernel
 * without the field ignores the last initializer: the -w of plan_diff.sh) */
static const plan_kernel bias = {EVT_MAINLOOP_GEMM, 1, 0, 0, 1, 1, 1};
/* gelu_tanh(acc + bias) under fast math (plan_fast_light_epilogue; an older
 * plan_kernel without the field plans it as bias + GELU) */
static const plan_kernel tanhfast = {EVT_MAINLOOP_GEMM, 1, 0, 0, 0, 1, 1, 1};
/* relu(acc + bias + z): light, reading an [N] input and a 16-bit [M, N]
 * one that the staged configurations stage */
static const plan_kernel residual = {EVT_MAINLOOP_GEMM, 1, 1, 0, 1, 1, 1};

/* A plan's fields of a line: the configuration, the split-K shares, and
 * the persistent walk's end ("-": none; "tail:TxS": its last T tiles
 * split S ways, plan.tail_*; "sk:I@F": stream-K's I k tiles from tile F),
 * so that a change of a plan's tail or stream-K shows as a move too; a
 * refused plan's as many fields.  (plan.h has had those fields since
 * 894bf60: plan_query.sh --rev of an older revision does not build.) */
static void print_plan(int made, const plan *pl)
{
    if (!made)
        printf(" refused - -\n");
    else if (pl->tail_splits > 1)
        printf(" %s %d tail:%lldx%d\n", pl->config->name, pl->splits, pl->tiles - pl->tail_first, pl->tail_splits);
    else if (pl->sk_iters > 0)
        printf(" %s %d sk:%lld@%lld\n", pl->config->name, pl->splits, pl->sk_iters, pl->sk_first);
    else
        printf(" %s %d -\n", pl->config->name, pl->splits);
}

static void gemm(const plan_kernel *k, const char *what, long long m, long long n, long long kk, long long batch)
{
    const plan_problem p = {EVT_TARGET_SM90A, 132, m, n, kk, 0, 1, 1, batch, 0};
    plan pl;
    const char *why = NULL;
    printf("gemm-%s %lldx%lldx%lld", what, m, n, kk);
    if (batch > 1)
        printf("x%lld", batch);
    print_plan(plan_make(k, &p, NULL, &pl, &why), &pl);
}

static void conv(long long n, long long h, long long w, long long c, long long k, long long r, long long pad,
                 long long st)
{
    static const plan_kernel kc = {EVT_MAINLOOP_CONV2D_FPROP, 1, 1, 0, 0, 0, 0};
    const long long p_ = (h + 2 * pad - r) / st + 1, q = (w + 2 * pad - r) / st + 1;
    const plan_problem p = {EVT_TARGET_SM90A, 132, n * p_ * q, k, r * r * c, c, 1, 1, 1, st, r, r};
    plan pl;
    const char *why = NULL;
    printf("conv %lldx%lldx%lldx%lld->%lld,%lldx%lld/%lld", n, h, w, c, k, r, r, st);
    print_plan(plan_make(&kc, &p, NULL, &pl, &why), &pl);
}

/* xorshift64: the same sequence on every build */
static unsigned long long next(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* log-uniform in [lo, hi] */
static long long log_uniform(unsigned long long *s, long long lo, long long hi)
{
    const double u = (double)(next(s) % 1000001) / 1e6;
    return (long long)((double)lo * pow((double)hi / (double)lo, u));
}

/* x as drawn, or rounded down to a multiple of 8 or of 64 (a third each):
 * the rules turn on whole tiles and 16-byte rows */
static long long roundish(unsigned long long *s, long long x)
{
    const unsigned long long r = next(s) % 3;
    const long long q = r == 0 ? 1 : r == 1 ? 8 : 64;
    return x >= q ? x / q * q : x;
}

/* count random problems through plan_make, one line each: the draw, then
 * the plan (or "refused") */
static void random_plans(long long count)
{
    static const evt_target targets[] = {EVT_TARGET_SM80, EVT_TARGET_SM86, EVT_TARGET_SM89, EVT_TARGET_SM90A};
    unsigned long long s = 0x9e3779b97f4a7c15ULL;
    for (long long i = 0; i < count; i++) {
        /* each draw in its own statement: an initializer list's order of
         * evaluation is unspecified */
        int f[9];
        f[0] = next(&s) % 4 == 0;              /* a conv */
        f[1] = f[0] || next(&s) % 4 != 0;      /* K-contiguous */
        f[2] = next(&s) % 3 == 0;              /* stageable */
        f[3] = !f[0] && next(&s) % 6 == 0;     /* fp8 */
        f[4] = (int)(next(&s) % 2);            /* light */
        f[5] = (int)(next(&s) % 2);            /* per element */
        f[6] = (int)(next(&s) % 2);            /* broadcast */
        f[7] = next(&s) % 3 == 0;              /* fast_light */
        f[8] = next(&s) % 2 ? 8 : 0;           /* shift_cols */
        const int conv = f[0];
        /* positional, as the grid's kernels: an older plan_kernel ignores
         * what it lacks */
        const plan_kernel k = {conv ? EVT_MAINLOOP_CONV2D_FPROP : EVT_MAINLOOP_GEMM, f[1], f[2], f[3], f[4], f[5], f[6],
                               f[7], f[8]};
        const evt_target t = targets[next(&s) % 4];
        const long long m = roundish(&s, log_uniform(&s, 1, 40000));
        const long long n = roundish(&s, log_uniform(&s, 1, 20000));
        const long long kk =
            next(&s) % 10 == 0 ? (long long)(next(&s) % 3) * 64 : roundish(&s, log_uniform(&s, 8, 20000));
        const long long batch = !conv && next(&s) % 4 == 0 ? log_uniform(&s, 1, 600) : 1;
        const long long c = conv ? log_uniform(&s, 1, 1024) : 0;
        const int sms = next(&s) % 5 == 0 ? (int)(next(&s) % 200) : 132;
        const int aligned = next(&s) % 4 != 0;
        const int tma = next(&s) % 3 != 0;
        const plan_problem p = {t, sms, m, n, kk, c, aligned, tma, batch, 0};
        plan pl;
        const char *why = NULL;
        printf("random-%s %lld:t%d:%lldx%lldx%lldx%lld:c%lld:s%d:a%d:m%d:k%d%d%d%d%d%d%d%d", conv ? "conv" : "gemm", i,
               (int)t, m, n, kk, batch, c, sms, aligned, tma, f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]);
        print_plan(plan_make(&k, &p, NULL, &pl, &why), &pl);
    }
}

/* One shape given on the command line; 0 if it is neither form. */
static int query(const char *a)
{
    long long m, n, kk, batch = 1, h, w, c, k, r, pad, st;
    char epi[16] = "gelu";
    if (sscanf(a, "gemm:%lldx%lldx%lld", &m, &n, &kk) == 3) {
        long long d[4];
        if (sscanf(a, "gemm:%lldx%lldx%lldx%lld", &d[0], &d[1], &d[2], &d[3]) == 4)
            batch = d[3];
        const char *tail = strchr(a + 5, ':');
        if (tail)
            sscanf(tail, ":%15s", epi);
        const plan_kernel *pk = !strcmp(epi, "light") ? &light
                                : !strcmp(epi, "bias") ? &bias
                                : !strcmp(epi, "gelu") ? &gelu
                                : !strcmp(epi, "tanhfast") ? &tanhfast
                                : !strcmp(epi, "residual") ? &residual
                                                       : NULL;
        if (!pk) /* an epilogue it does not know: not planned as some other one */
            return 0;
        gemm(pk, epi, m, n, kk, batch);
        return 1;
    }
    if (sscanf(a, "conv:%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld", &n, &h, &w, &c, &k, &r, &pad, &st) == 8) {
        conv(n, h, w, c, k, r, pad, st);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long long count;
    if (argc == 2 && sscanf(argv[1], "random:%lld", &count) == 1) {
        random_plans(count);
        return 0;
    }
    if (argc > 1) {
        int bad = 0;
        for (int i = 1; i < argc; i++)
            if (!query(argv[i])) {
                fprintf(stderr, "plan_grid: not gemm:MxNxK[xL][:gelu|light|bias|tanhfast|residual] or conv:N,H,W,C,K,R,PAD,STRIDE: %s\n",
                        argv[i]);
                bad = 1;
            }
        return bad ? 2 : 0;
    }
    static const long long ms[] = {1,   8,    16,   32,   64,   77,   128,  200,  256,  333,  384,
                                   512, 640,  768,  1000, 1024, 1536, 2048, 3000, 4096, 8192, 16384};
    static const long long ns[] = {256,  512,  768,  1024, 1280, 1536,  2048,  2560,
                                   3072, 4096, 5120, 8192, 11008, 14336, 16384};
    static const long long ks[] = {64,   128,  256,  512,  768,  1000, 1024,
                                   1536, 2048, 2560, 4096, 8192, 11008, 16384};
    for (size_t a = 0; a < sizeof ms / sizeof *ms; a++)
        for (size_t b = 0; b < sizeof ns / sizeof *ns; b++)
            for (size_t c = 0; c < sizeof ks / sizeof *ks; c++) {
                gemm(&gelu, "gelu", ms[a], ns[b], ks[c], 1);
                gemm(&light, "light", ms[a], ns[b], ks[c], 1);
                gemm(&bias, "bias", ms[a], ns[b], ks[c], 1);
                gemm(&tanhfast, "tanhfast", ms[a], ns[b], ks[c], 1);
            }
    /* batches (bench/bench_batched.py's kind: attention, MoE experts,
     * ragged sizes), which the planner's batched rules read and the
     * single problems above never reach */
    static const long long bms[] = {64, 128, 200, 256, 512, 1000, 1024, 2048};
    static const long long bns[] = {128, 256, 512, 1000, 1024, 1408, 4096};
    static const long long bks[] = {64, 128, 1000, 1024, 2048, 4096};
    static const long long bls[] = {8, 64, 512};
    for (size_t a = 0; a < sizeof bms / sizeof *bms; a++)
        for (size_t b = 0; b < sizeof bns / sizeof *bns; b++)
            for (size_t c = 0; c < sizeof bks / sizeof *bks; c++)
                for (size_t l = 0; l < sizeof bls / sizeof *bls; l++) {
                    gemm(&gelu, "batch-gelu", bms[a], bns[b], bks[c], bls[l]);
                    gemm(&light, "batch-light", bms[a], bns[b], bks[c], bls[l]);
                    gemm(&bias, "batch-bias", bms[a], bns[b], bks[c], bls[l]);
                    gemm(&tanhfast, "batch-tanhfast", bms[a], bns[b], bks[c], bls[l]);
                }
    static const long long batches[] = {1, 4, 8, 16, 32, 64, 128, 256};
    static const long long layers[][3] = {{56, 3, 1}, {28, 3, 1}, {14, 3, 1}, {7, 3, 1}, {56, 1, 1}, {28, 1, 1},
                                          {14, 1, 1}, {7, 1, 1},  {56, 3, 2}, {28, 1, 2}, {35, 3, 1}, {17, 3, 1}};
    static const long long chans[] = {32, 64, 96, 128, 160, 192, 200, 256, 320, 384, 512};
    static const long long outs[] = {48, 64, 96, 128, 160, 192, 200, 256, 320, 384, 448, 512, 576, 640, 1024};
    for (size_t a = 0; a < sizeof batches / sizeof *batches; a++)
        for (size_t b = 0; b < sizeof layers / sizeof *layers; b++)
            for (size_t c = 0; c < sizeof chans / sizeof *chans; c++)
                for (size_t d = 0; d < sizeof outs / sizeof *outs; d++)
                    conv(batches[a], layers[b][0], layers[b][0], chans[c], outs[d], layers[b][1], layers[b][1] / 2,
                         layers[b][2]);
    return 0;
}
