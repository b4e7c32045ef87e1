/* plan_grid.c - the heuristic's plan for every shape of a fixed grid, one
 * line each, for bench/plan_diff.sh to compare two planners: GEMMs of a
 * per-element epilogue (bias + GELU), a light one (D = acc) and a light
 * one reading a bias (relu(acc + bias)) on
 * sm_90a, 132 SMs, TMA maps; conv layers (an epilogue input to stage, as
 * relu(conv + b + z)), NHWC, maps where c allows.  Built from plan/*.c and
 * plan_stubs.c alone, so that any revision's planner can be compiled
 * against it. */
#include "plan.h"

#include <stdio.h>

static void gemm(const plan_kernel *k, const char *what, long long m, long long n, long long kk)
{
    const plan_problem p = {EVT_TARGET_SM90A, 132, m, n, kk, 0, 1, 1, 1};
    plan pl;
    const char *why = NULL;
    if (!plan_make(k, &p, NULL, &pl, &why))
        printf("gemm-%s %lldx%lldx%lld refused\n", what, m, n, kk);
    else
        printf("gemm-%s %lldx%lldx%lld %s %d\n", what, m, n, kk, pl.config->name, pl.splits);
}

static void conv(long long n, long long h, long long c, long long k, long long r, long long st)
{
    static const plan_kernel kc = {EVT_MAINLOOP_CONV2D_FPROP, 1, 1, 0, 0, 0, 0};
    const long long pad = r / 2, pq = (h + 2 * pad - r) / st + 1;
    const plan_problem p = {EVT_TARGET_SM90A, 132, n * pq * pq, k, r * r * c, c, 1, 1, 1};
    plan pl;
    const char *why = NULL;
    if (!plan_make(&kc, &p, NULL, &pl, &why))
        printf("conv %lldx%lldx%lldx%lld->%lld,%lldx%lld/%lld refused\n", n, h, h, c, k, r, r, st);
    else
        printf("conv %lldx%lldx%lldx%lld->%lld,%lldx%lld/%lld %s %d\n", n, h, h, c, k, r, r, st, pl.config->name,
               pl.splits);
}

int main(void)
{
    static const long long ms[] = {1,   8,    16,   32,   64,   77,   128,  200,  256,  333,  384,
                                   512, 640,  768,  1000, 1024, 1536, 2048, 3000, 4096, 8192, 16384};
    static const long long ns[] = {256,  512,  768,  1024, 1280, 1536,  2048,  2560,
                                   3072, 4096, 5120, 8192, 11008, 14336, 16384};
    static const long long ks[] = {64,   128,  256,  512,  768,  1000, 1024,
                                   1536, 2048, 2560, 4096, 8192, 11008, 16384};
    static const plan_kernel gelu = {EVT_MAINLOOP_GEMM, 1, 0, 0, 0, 1, 1};
    static const plan_kernel light = {EVT_MAINLOOP_GEMM, 1, 0, 0, 1, 1, 0};
    /* relu(acc + bias): light, reading an [N] input (an older plan_kernel
     * without the field ignores the last initializer: the -w of plan_diff.sh) */
    static const plan_kernel bias = {EVT_MAINLOOP_GEMM, 1, 0, 0, 1, 1, 1};
    for (size_t a = 0; a < sizeof ms / sizeof *ms; a++)
        for (size_t b = 0; b < sizeof ns / sizeof *ns; b++)
            for (size_t c = 0; c < sizeof ks / sizeof *ks; c++) {
                gemm(&gelu, "gelu", ms[a], ns[b], ks[c]);
                gemm(&light, "light", ms[a], ns[b], ks[c]);
                gemm(&bias, "bias", ms[a], ns[b], ks[c]);
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
                    conv(batches[a], layers[b][0], chans[c], outs[d], layers[b][1], layers[b][2]);
    return 0;
}
