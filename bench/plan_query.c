/* plan_query.c - the heuristic's plan for the shapes on the command line
 * (sm_90a, 132 SMs, TMA maps), no GPU: what a planner change moves, shape
 * by shape, before a device call probes it (bench/plan_query.sh builds and
 * runs it).  Built, as bench/plan_grid.c, from the planner's sources and
 * plan_stubs.c.
 *
 *   gemm:MxNxK[xL][:gelu|light|bias|plain]   (default gelu: bias + GELU;
 *                                             light: D = acc or relu(acc);
 *                                             bias: relu(acc + bias))
 *   conv:N,H,W,C,K,R,PAD,STRIDE              (NHWC, K filters of R x R,
 *                                             relu(conv + b + z))
 */
#include "plan.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    static const plan_kernel gelu = {EVT_MAINLOOP_GEMM, 1, 0, 0, 0, 1, 1};
    static const plan_kernel light = {EVT_MAINLOOP_GEMM, 1, 0, 0, 1, 1, 0};
    static const plan_kernel bias = {EVT_MAINLOOP_GEMM, 1, 0, 0, 1, 1, 1};
    static const plan_kernel conv = {EVT_MAINLOOP_CONV2D_FPROP, 1, 1, 0, 0, 0, 0};
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        plan_problem p = {EVT_TARGET_SM90A, 132, 0, 0, 0, 0, 1, 1, 1};
        const plan_kernel *k = &gelu;
        long long n, h, w, c, f, r, pad, st;
        char epi[16] = "gelu";
        if (sscanf(a, "gemm:%lldx%lldx%lld", &p.m, &p.n, &p.k) == 3) {
            const char *rest = strchr(a + 5, ':');
            long long d[4];
            if (sscanf(a, "gemm:%lldx%lldx%lldx%lld", &d[0], &d[1], &d[2], &d[3]) == 4)
                p.batch = d[3];
            if (rest && sscanf(rest, ":%15s", epi) == 1)
                k = !strcmp(epi, "light") || !strcmp(epi, "plain") ? &light : !strcmp(epi, "bias") ? &bias : &gelu;
        } else if (sscanf(a, "conv:%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld", &n, &h, &w, &c, &f, &r, &pad, &st) ==
                   8) {
            const long long pp = (h + 2 * pad - r) / st + 1, q = (w + 2 * pad - r) / st + 1;
            p.m = n * pp * q;
            p.n = f;
            p.k = r * r * c;
            p.conv_c = c;
            k = &conv;
            strcpy(epi, "z");
        } else {
            fprintf(stderr, "plan_query: not gemm:MxNxK[xL][:EPI] or conv:N,H,W,C,K,R,PAD,STRIDE: %s\n", a);
            bad = 1;
            continue;
        }
        plan pl;
        const char *why = NULL;
        if (!plan_make(k, &p, NULL, &pl, &why))
            printf("%-36s refused: %s\n", a, why ? why : "?");
        else
            printf("%-36s M=%lld N=%lld K=%lld L=%lld %s /%d\n", a, p.m, p.n, p.k, p.batch, pl.config->name,
                   pl.splits);
    }
    return bad ? 2 : 0;
}
