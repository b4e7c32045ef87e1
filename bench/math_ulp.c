/*
 * math_ulp.c - the exhaustive accuracy of kernels/common/evt_math.h's
 * transcendental builtins: every one of the 2^32 f32 inputs against f64 libm
 * (whose error is far below 10^-8 f32 ulp on these functions), in ulp of the
 * correctly rounded result, as docs/interpreter.md's "Accuracy" table reports
 * it.  Also checks the special-value contract on the way: a NaN result for a
 * non-NaN input, an infinity or a zero of the wrong sign counts as 1e9 ulp.
 *
 * build: cc -O2 -std=c11 -ffp-contract=off -mfma -pthread -I. bench/math_ulp.c -lm
 * usage: ./a.out [threads] [builtin ...]   (default: 2 threads, every builtin)
 * prints: builtin, max ulp, the input where it occurs, mean ulp over the
 *         non-NaN inputs, and how many inputs are above 1 ulp.
 */
#include "kernels/common/evt_math.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double mul_sigmoid64(double x, double w)
{
    if (w >= 0)
        return x / (1 + exp(-w));
    if (isinf(w))
        return x < 0 ? -0.0 : 0.0;
    double e = exp(w);
    return x * e / (1 + e);
}

/* the same references as tests/unit/test_math.c */
static double ref64(int which, double x)
{
    switch (which) {
    case 0: return exp(x);
    case 1: return log(x);
    case 2: return tanh(x);
    case 3: return isnan(x) ? x : mul_sigmoid64(1.0, x);
    case 4: return isnan(x) ? x : mul_sigmoid64(x, x);
    case 5: return isinf(x) ? (x > 0 ? x : -0.0) : 0.5 * x * erfc(-x / sqrt(2.0));
    case 6:
        if (isinf(x))
            return x > 0 ? x : -0.0;
        return mul_sigmoid64(x, 2 * sqrt(2 / 3.14159265358979323846) * x * (1 + 0.044715 * x * x));
    case 7: return isnan(x) ? x : x <= -3 ? -0.0 : x >= 3 ? x : x * (x + 3) / 6;
    }
    return 0;
}

static double ulp_error(float y, double r)
{
    if (isnan(r))
        return isnan(y) ? 0 : 1e9;
    if (isnan(y))
        return 1e9;
    if (fabs(r) >= 0x1.ffffffp127)
        return isinf(y) && (y > 0) == (r > 0) ? 0 : 1e9;
    if (isinf(y))
        return 1e9;
    if (y == 0 && r == 0)
        return !signbit(y) == !signbit(r) ? 0 : 1e9;
    int e;
    frexp(fabs(r), &e);
    e = e - 1 < -126 ? -126 : e - 1;
    return fabs((double)y - r) / ldexp(1.0, e - 23);
}

typedef struct builtin {
    const char *name;
    float (*f)(float);
    int which;
} builtin;

static const builtin builtins[] = {
    {"exp", evt_exp, 0},   {"log", evt_log, 1},   {"tanh", evt_tanh, 2},           {"sigmoid", evt_sigmoid, 3},
    {"silu", evt_silu, 4}, {"gelu", evt_gelu, 5}, {"gelu_tanh", evt_gelu_tanh, 6}, {"hardswish", evt_hardswish, 7},
};

typedef struct job {
    const builtin *b;
    uint64_t lo, hi; /* input bit patterns [lo, hi) */
    double max, sum;
    uint32_t worst;
    uint64_t n, above1;
} job;

static void *run(void *arg)
{
    job *j = arg;
    for (uint64_t u = j->lo; u < j->hi; u++) {
        float x = evt_bits_f32((uint32_t)u);
        if (isnan(x))
            continue;
        double e = ulp_error(j->b->f(x), ref64(j->b->which, (double)x));
        j->sum += e;
        j->n++;
        j->above1 += e > 1.0;
        if (e > j->max) {
            j->max = e;
            j->worst = (uint32_t)u;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    if (threads < 1 || threads > 256) {
        fprintf(stderr, "math_ulp: threads %d out of range [1, 256]\n", threads);
        return 1;
    }
    job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    if (!jobs || !tids)
        return 1;
    printf("%-10s %10s %16s %10s %12s\n", "builtin", "max ulp", "at", "mean ulp", "> 1 ulp");
    for (size_t k = 0; k < sizeof builtins / sizeof builtins[0]; k++) {
        const builtin *b = &builtins[k];
        int wanted = argc <= 2;
        for (int a = 2; a < argc; a++)
            wanted |= strcmp(argv[a], b->name) == 0;
        if (!wanted)
            continue;
        /* interleave the ranges so each thread gets a share of the expensive binades */
        const uint64_t chunk = 1u << 20, total = 1ull << 32;
        double max = 0, sum = 0;
        uint32_t worst = 0;
        uint64_t n = 0, above1 = 0;
        for (uint64_t base = 0; base < total; base += chunk * (uint64_t)threads) {
            for (int t = 0; t < threads; t++) {
                uint64_t lo = base + chunk * (uint64_t)t;
                jobs[t] = (job){.b = b, .lo = lo < total ? lo : total, .hi = lo + chunk < total ? lo + chunk : total};
                pthread_create(&tids[t], NULL, run, &jobs[t]);
            }
            for (int t = 0; t < threads; t++) {
                pthread_join(tids[t], NULL);
                if (jobs[t].max > max)
                    max = jobs[t].max, worst = jobs[t].worst;
                sum += jobs[t].sum, n += jobs[t].n, above1 += jobs[t].above1;
            }
        }
        printf("%-10s %10.3f %16.8g %10.4f %12llu\n", b->name, max, (double)evt_bits_f32(worst), sum / (double)n,
               (unsigned long long)above1);
        fflush(stdout);
    }
    free(jobs);
    free(tids);
    return 0;
}
