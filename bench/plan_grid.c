/* plan_grid.c - the heuristic's plan for every shape of a fixed grid, one
 * line each, for bench/plan_diff.sh to compare two planners: GEMMs of a
 * per-element epilogue (bias + GELU), a light one (D = acc), a light
 * one reading a bias (relu(acc + bias)) and bias + gelu_tanh under fast
 * math on
 * sm_90a, 132 SMs, TMA maps; conv layers (an epilogue input to stage, as
 * relu(conv + b + z)), NHWC, maps where c allows.  Built from the planner's sources and
 * plan_stubs.c alone, so that any revision's planner can be compiled
 * against it.  Given shapes as arguments it plans those instead
 * (bench/plan_query.sh): gemm:MxNxK[xL][:gelu|light|bias|tanhfast],
 * conv:N,H,W,C,K,R,PAD,STRIDE. */
#include "plan.h"

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

static void gemm(const plan_kernel *k, const char *what, long long m, long long n, long long kk, long long batch)
{
    const plan_problem p = {EVT_TARGET_SM90A, 132, m, n, kk, 0, 1, 1, batch};
    plan pl;
    const char *why = NULL;
    printf("gemm-%s %lldx%lldx%lld", what, m, n, kk);
    if (batch > 1)
        printf("x%lld", batch);
    if (!plan_make(k, &p, NULL, &pl, &why))
        printf(" refused\n");
    else
        printf(" %s %d\n", pl.config->name, pl.splits);
}

static void conv(long long n, long long h, long long w, long long c, long long k, long long r, long long pad,
                 long long st)
{
    static const plan_kernel kc = {EVT_MAINLOOP_CONV2D_FPROP, 1, 1, 0, 0, 0, 0};
    const long long p_ = (h + 2 * pad - r) / st + 1, q = (w + 2 * pad - r) / st + 1;
    const plan_problem p = {EVT_TARGET_SM90A, 132, n * p_ * q, k, r * r * c, c, 1, 1, 1};
    plan pl;
    const char *why = NULL;
    printf("conv %lldx%lldx%lldx%lld->%lld,%lldx%lld/%lld", n, h, w, c, k, r, r, st);
    if (!plan_make(&kc, &p, NULL, &pl, &why))
        printf(" refused\n");
    else
        printf(" %s %d\n", pl.config->name, pl.splits);
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
    if (argc > 1) {
        int bad = 0;
        for (int i = 1; i < argc; i++)
            if (!query(argv[i])) {
                fprintf(stderr, "plan_grid: not gemm:MxNxK[xL][:gelu|light|bias|tanhfast] or conv:N,H,W,C,K,R,PAD,STRIDE: %s\n",
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
    static const long long batches[] = {1, 4, 8, 16, 32, 64, 128, 256};
    static const long long layers[][3] = {{56, 3, 1}, {28, 3, 1}, {14, 3, 1}, {7, 3, 1}, {56, 1, 1}, {28, 1, 1},
                                          {14, 1, 1}, {7, 1, 1},  {56, 3, 2}, {28, 1, 2}, {35, 3, 1}, {17, 3, 1}};
    static const long long chans[] = {64, 96, 128, 160, 192, 200, 256, 320, 384, 512};
    static const long long outs[] = {48, 64, 96, 128, 160, 192, 200, 256, 320, 384, 448, 512, 576, 640, 1024};
    for (size_t a = 0; a < sizeof batches / sizeof *batches; a++)
        for (size_t b = 0; b < sizeof layers / sizeof *layers; b++)
            for (size_t c = 0; c < sizeof chans / sizeof *chans; c++)
                for (size_t d = 0; d < sizeof outs / sizeof *outs; d++)
                    conv(batches[a], layers[b][0], layers[b][0], chans[c], outs[d], layers[b][1], layers[b][1] / 2,
                         layers[b][2]);
    return 0;
}
