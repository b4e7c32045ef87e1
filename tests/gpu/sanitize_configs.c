/*
 * sanitize_configs.c - one tile configuration of every family, forced, on
 * small problems: what compute-sanitizer's tools run over
 * (tests/gpu/run_sanitize.sh, bench/device_run.sh section sanitize), and,
 * run alone, a check of every family's results.
 *
 *   sanitize_configs --families           the table below: family config split_k (0: stream-K)
 *   sanitize_configs [--split-k N] CONFIG  that configuration forced on every
 *                                          kernel it can run
 *   sanitize_configs --all                 every row of the table in turn
 *   ... --dry-run T                        for target T without a GPU: the
 *                                          references, and launches validated
 *                                          (host memory standing in for the
 *                                          device's) up to EVT_ERR_NO_GPU
 *
 * The epilogue has an [M, N] input (the one a staged configuration stages),
 * a bias, a param set at launch, two [M, N] outputs and two reductions.
 * The GEMMs are A row-major x B column-major and A column-major x B
 * row-major (gt: under the wgmma families the transposed wgmma, MN-major
 * TMA boxes of which N = 45 leaves one wholly out of bounds).
 * Each kernel runs a ragged GEMM (77 x 45, K = 328: the fast path, with more
 * k tiles than any configuration has stages, so the pipelines wrap; K = 333:
 * the guarded path) or two convs (c = 64: the fast path and, for the
 * producer/consumer configurations, TMA; c = 13 with stride 2: guarded).
 * Operands and inputs are small integers, so every result, sums included,
 * is exact whatever the order of the adds: the outputs must equal the
 * interpreter's (on the f64 reference accumulator) byte for byte, the rows'
 * padding untouched.  Buffers are exactly as large as the launch may touch
 * and every one is written before the run (initcheck).
 *
 * Exit status: 0 PASS, 1 FAIL or error, 77 no GPU (the ctest skip code).
 */
#include <evt/evt.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char source[] =
    "epilogue e {\n"
    "    param alpha : f32 = 1.0\n"
    "    in  bias : f16[N]\n"
    "    in  res  : f16[M, N]\n"
    "    out d    : f16[M, N] = relu(alpha * acc + bias) + res\n"
    "    out y    : f32[M, N] = gelu(acc)\n"
    "    out rsum : f32[M] = reduce_sum(d, N)\n"
    "    out amax : f32 = reduce_max(abs(acc))\n"
    "}\n"
    "kernel g  = gemm(a: f16 row, b: f16 col, acc: f32) with e\n"
    "kernel gt = gemm(a: bf16 col, b: bf16 row, acc: f32) with e\n"
    "kernel c  = conv2d_fprop(x: f16, w: f16, acc: f32) with e\n";

/* One configuration per family (two where a family spans both
 * architectures), by the names of kernels/tile_configs.h. */
typedef struct family {
    const char *name, *config;
    int split_k; /* evt_tuning.split_k: 1 never, 2 two ways; 0 with stream-K */
} family;

static const family families[] = {
    {"mma.sync", "sm80_64x64x32_w4_s4", 1},
    {"wgmma", "sm90_wg2_128x256x64_s4", 1},
    {"warp-specialized", "sm80_ws4_128x128x64_w4_s3", 1},
    {"warp-specialized", "sm90_wg2_ws4_128x128x64_s4", 1},
    {"producer/consumer", "sm90_pp2_128x128x64_s4", 1},
    {"producer/consumer", "sm90_pp2_64x128x64_s8", 1}, /* 64-row tiles: one m64 row a consumer */
    {"producer/consumer", "sm90_pp2_128x64x64_s7", 1}, /* 64 columns: convs, and GEMMs since session 72 */
    {"producer/consumer", "sm90_pp2_128x64x32_s12", 1}, /* k tiles of 32 (64-byte rows), twelve stages: convs */
    {"producer/consumer", "sm90_pp2_128x128x32_s8", 1},  /* ... 128 columns, eight stages */
    {"cooperative", "sm90_coop2_256x128x64_s3", 1},
    {"cooperative", "sm90_coop2_128x256x64_s3", 1},
    {"cooperative", "sm90_coop2_128x256x64_s4", 1}, /* 32-column epilogue sub-tiles */
    {"cooperative", "sm90_coop2_128x192x64_s4", 1}, /* m64n192 wgmmas, 64-column sub-tiles */
    {"cooperative", "sm90_coop2_128x192x64_s4", 0}, /* ... with stream-K, convs included */
    {"cooperative", "sm90_coop2_128x160x64_s4", 1}, /* m64n160 wgmmas, 32-column sub-tiles, K-major only */
    {"swapped", "sm90_wg1_16x64x64_s16", 1}, /* m64n16 wgmmas on B's rows, the tile stored transposed */
    {"swapped", "sm90_wg1_32x64x64_s12", 2}, /* ... m64n32, split in clusters */
    {"swapped", "sm90_wg1_16x128x64_s12", 1}, /* ... two m64n16 a k step */
    {"swapped", "sm90_wg1_80x128x64_s8", 2},   /* ... two m64n80, split in clusters in slices of 16 rows */
    {"swapped", "sm90_wg1_112x64x64_s10", 1},  /* ... one m64n112 */
    {"clusters", "sm90_pp2_cl2_128x128x64_s4", 1},
    {"clusters", "sm90_pp2_cl2_64x128x64_s8", 1},
    {"clusters", "sm90_coop2_cl2_128x256x64_s3", 1},
    {"clusters", "sm90_coop2_cl2_128x256x64_s4", 1},
    {"staged", "sm90_pp2_128x128x64_s2_staged", 1},
    {"staged", "sm90_pp2_128x64x64_s6_staged", 1}, /* 64 columns: thin layers, N <= 64 */
    {"split-K", "sm80_64x64x32_w4_s4", 2},
    {"split-K", "sm90_wg2_128x256x64_s4", 2},
    {"split-K", "sm90_wg2_128x128x64_s6", 2}, /* small M in one tile row, split in clusters */
    {"tail", "sm90_pp2_128x128x64_s4", 2}, /* a persistent plan's tail: the split-K entries of 128x128 */
    {"stream-K", "sm90_coop2_128x256x64_s3", 0}, /* evt_tuning.stream_k = 2: pieces of tiles met by flags */
    {"stream-K", "sm90_coop2_cl2_128x256x64_s3", 0}, /* ... in clusters: a cluster's CTAs share pieces */
    {"stream-K", "sm90_coop2_128x192x64_s4", 0},
    {"stream-K", "sm90_coop2_128x160x64_s4", 0},
};

typedef struct problem {
    const char *name;
    long long m, n, k;     /* a GEMM's; for a conv, filled from `conv` */
    evt_conv_problem conv; /* n == 0 for a GEMM */
} problem;

static const problem gemms[] = {
    {"gemm 77x45x328", 77, 45, 328, {0}},
    {"gemm 77x45x333", 77, 45, 333, {0}},
};
static const problem convs[] = {
    {"conv 2x9x9x64 -> 40 3x3 pad 1", 0, 0, 0, {2, 9, 9, 64, 40, 3, 3, 1, 1, 1, 1, 1, 1}},
    {"conv 1x7x7x13 -> 24 3x3 pad 1 stride 2", 0, 0, 0, {1, 7, 7, 13, 24, 3, 3, 1, 1, 2, 2, 1, 1}},
};

enum { PAD = 8 }; /* elements between the rows of the [M, N] buffers beyond N */

/* The buffers of one run, host and device: operands a, b; inputs bias,
 * res; outputs d, y, rsum, amax. */
enum { A, B, BIAS, RES, D, Y, RSUM, AMAX, NBUF };
static const char *const names[NBUF] = {"a", "b", "bias", "res", "d", "y", "rsum", "amax"};

typedef struct run {
    evt_ctx *ctx;
    evt_module *m;
    evt_target target;
    int dry; /* --dry-run: no device, launches stop at EVT_ERR_NO_GPU */
    int failures;
} run;

/* Small integers in [-2, 2], fixed by the seed. */
static float small_int(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (float)((*s >> 33) % 5) - 2.0f;
}

static int fill(evt_elem elem, void *dst, size_t n, uint64_t *seed)
{
    float *f = malloc((n ? n : 1) * sizeof *f);
    if (!f)
        return 0;
    for (size_t i = 0; i < n; i++)
        f[i] = small_int(seed);
    int ok = evt_convert_from_f32(elem, f, dst, n) == EVT_OK;
    free(f);
    return ok;
}

/* Runs kernel k on problem p under the forced configuration; 0 with the
 * reason printed on a failure other than a mismatch (counted in r). */
static evt_status run_one(run *r, const evt_kernel *k, const family *fam, const problem *pp)
{
    const int conv = evt_kernel_mainloop(k) == EVT_MAINLOOP_CONV2D_FPROP;
    const evt_operand_info *oa = evt_kernel_operand(k, 0), *ob = evt_kernel_operand(k, 1);
    long long m = pp->m, n = pp->n, kk = pp->k;
    if (conv) {
        long long p, q;
        if (evt_conv_output_size(&pp->conv, &p, &q) != EVT_OK)
            return EVT_ERR_INVALID_ARGUMENT;
        m = pp->conv.n * p * q;
        n = pp->conv.k;
        kk = pp->conv.r * pp->conv.s * pp->conv.c;
    }
    const long long ld = n + PAD;
    const int a_row = conv || oa->layout == EVT_LAYOUT_ROW, b_col = conv || ob->layout == EVT_LAYOUT_COL;
    const long long lda = a_row ? kk : m, ldb = b_col ? kk : n;
    const size_t mn = (size_t)((m - 1) * ld + n);
    const size_t count[NBUF] = {
        conv ? (size_t)(pp->conv.n * pp->conv.h * pp->conv.w * pp->conv.c) : (size_t)(m * kk),
        (size_t)(n * kk), (size_t)n, mn, mn, mn, (size_t)m, 1};
    const evt_elem elem[NBUF] = {oa->elem, ob->elem, EVT_F16, EVT_F16, EVT_F16, EVT_F32, EVT_F32, EVT_F32};
    size_t bytes[NBUF];
    unsigned char *host[NBUF] = {0}, *want[NBUF] = {0};
    void *dev[NBUF] = {0};
    float *acc = malloc(sizeof *acc * (size_t)(m * n));
    evt_launch *l = NULL;
    evt_interp *in = NULL;
    evt_status st = acc ? EVT_OK : EVT_ERR_NO_MEMORY;
    uint64_t seed = 0x9e3779b97f4a7c15u ^ (uint64_t)(m * 1000003 + n * 1009 + kk);
    for (int i = 0; i < NBUF && st == EVT_OK; i++) {
        bytes[i] = count[i] * evt_elem_size(elem[i]);
        host[i] = malloc(bytes[i]);
        want[i] = malloc(bytes[i]);
        if (!host[i] || !want[i])
            st = EVT_ERR_NO_MEMORY;
        else if (i <= RES && !fill(elem[i], host[i], count[i], &seed))
            st = EVT_ERR_INTERNAL;
        else if (i > RES)
            memset(host[i], 0xff, bytes[i]); /* outputs start as NaN: a store missed shows */
        if (st == EVT_OK)
            memcpy(want[i], host[i], bytes[i]);
    }

    /* The reference: the f64 mainloop rounded to f32 (exact here), then the
     * interpreter's f32 epilogue. */
    if (st == EVT_OK)
        st = conv ? evt_reference_conv2d(&pp->conv, oa->elem, host[A], host[B], NULL, acc, n)
                  : evt_reference_gemm(m, n, kk, oa->elem, host[A], oa->layout, lda, host[B],
                                       ob->layout, ldb, NULL, acc, n);
    if (st == EVT_OK)
        st = evt_interp_create(evt_kernel_epilogue(k), &in);
    if (st == EVT_OK)
        st = evt_interp_set_acc(in, m, n, acc, sizeof *acc * (size_t)(m * n), n);
    for (int i = BIAS; i < NBUF && st == EVT_OK; i++)
        st = evt_interp_bind(in, names[i], want[i], bytes[i], ld);
    if (st == EVT_OK)
        st = evt_interp_set_param(in, "alpha", 0.5f);
    if (st == EVT_OK)
        st = evt_interp_run(in, EVT_INTERP_F32);
    if (st != EVT_OK && in)
        fprintf(stderr, "sanitize_configs: the reference: %s\n", evt_interp_last_error(in));

    /* The GPU (in a dry run, host memory: validation never dereferences). */
    for (int i = 0; i < NBUF && st == EVT_OK; i++)
        if (r->dry)
            dev[i] = host[i];
        else if ((st = evt_device_alloc(r->ctx, bytes[i], &dev[i])) == EVT_OK)
            st = evt_device_copy_to(r->ctx, dev[i], host[i], bytes[i]);
    /* split_k 0 marks stream-K (--split-k 0 on the command line) */
    const evt_tuning tuning = {.config = fam->config, .split_k = fam->split_k ? fam->split_k : 1,
                               .stream_k = fam->split_k ? 1 : 2};
    if (st == EVT_OK)
        st = evt_launch_create(r->m, k, &l);
    if (st == EVT_OK)
        st = evt_launch_set_tuning(l, &tuning);
    if (st == EVT_OK)
        st = conv ? evt_launch_set_conv(l, &pp->conv, dev[A], bytes[A], dev[B], bytes[B])
                  : evt_launch_set_gemm(l, m, n, kk, dev[A], lda, bytes[A], dev[B], ldb, bytes[B]);
    for (int i = BIAS; i < NBUF && st == EVT_OK; i++)
        st = evt_launch_bind(l, names[i], dev[i], bytes[i], ld);
    if (st == EVT_OK)
        st = evt_launch_set_param(l, "alpha", 0.5f);
    if (st == EVT_OK)
        st = evt_launch_run(l, NULL);
    if (r->dry) {
        const int validated = st == EVT_ERR_NO_GPU;
        printf("  %-16s %-40s %s\n", evt_kernel_name(k), pp->name,
               validated ? "validated" : evt_ctx_last_error(r->ctx));
        r->failures += !validated;
        st = EVT_ERR_NO_GPU; /* nothing ran: the outputs are not compared */
        memset(dev, 0, sizeof dev);
    }
    if (st == EVT_OK)
        st = evt_device_synchronize(r->ctx);
    for (int i = D; i < NBUF && st == EVT_OK; i++)
        st = evt_device_copy_from(r->ctx, host[i], dev[i], bytes[i]);

    if (st == EVT_OK) {
        int bad = 0;
        for (int i = D; i < NBUF; i++) {
            if (memcmp(host[i], want[i], bytes[i]) == 0)
                continue;
            size_t size = evt_elem_size(elem[i]), e = 0;
            while (memcmp(host[i] + e * size, want[i] + e * size, size) == 0)
                e++;
            uint32_t got = 0, wanted = 0;
            memcpy(&got, host[i] + e * size, size);
            memcpy(&wanted, want[i] + e * size, size);
            printf("    output %s differs at element %zu (row %lld): 0x%x, want 0x%x\n", names[i], e,
                   i <= Y ? (long long)e / ld : (long long)e, got, wanted);
            bad = 1;
        }
        printf("  %-16s %-40s %-4s %s\n", evt_kernel_name(k), pp->name, bad ? "FAIL" : "ok",
               evt_launch_plan(l) ? evt_launch_plan(l) : "");
        r->failures += bad;
    } else if (st != EVT_ERR_NO_GPU) {
        printf("  %-16s %-40s error %s: %s\n", evt_kernel_name(k), pp->name, evt_status_string(st),
               evt_ctx_last_error(r->ctx));
        r->failures++;
    }
    evt_launch_destroy(l);
    evt_interp_destroy(in);
    for (int i = 0; i < NBUF; i++) {
        evt_device_free(r->ctx, dev[i]);
        free(host[i]);
        free(want[i]);
    }
    free(acc);
    return st;
}

/* Every kernel the configuration can run, on its mainloop's problems. */
static evt_status run_family(run *r, const family *fam)
{
    printf("%s: %s%s\n", fam->name, fam->config,
           fam->split_k > 1 ? ", split-K 2 ways" : fam->split_k == 0 ? ", stream-K" : "");
    int ran = 0;
    for (size_t i = 0; i < evt_module_kernel_count(r->m); i++) {
        const evt_kernel *k = evt_module_kernel(r->m, i);
        if (evt_kernel_config_check(r->m, k, r->target, fam->config) != EVT_OK) {
            printf("  %-16s not run: %s\n", evt_kernel_name(k), evt_ctx_last_error(r->ctx));
            continue;
        }
        const int conv = evt_kernel_mainloop(k) == EVT_MAINLOOP_CONV2D_FPROP;
        const problem *ps = conv ? convs : gemms;
        const size_t np = conv ? sizeof convs / sizeof convs[0] : sizeof gemms / sizeof gemms[0];
        for (size_t p = 0; p < np; p++) {
            evt_status st = run_one(r, k, fam, &ps[p]);
            if (st == EVT_ERR_NO_GPU && !r->dry)
                return st;
            ran++;
        }
    }
    if (!ran)
        printf("  no kernel here can run it on %s\n", evt_target_name(r->target));
    return EVT_OK;
}

static int usage(void)
{
    fprintf(stderr, "usage: sanitize_configs --families | [--dry-run TARGET] (--all | [--split-k N] CONFIG)\n");
    return 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--families") == 0) {
        for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
            printf("%s %s %d\n", families[i].name, families[i].config, families[i].split_k);
        return 0;
    }
    family one = {"forced", NULL, 1};
    int all = 0;
    run r = {NULL, NULL, EVT_TARGET_SM80, 0, 0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--all") == 0)
            all = 1;
        else if (strcmp(argv[i], "--dry-run") == 0 && i + 1 < argc)
            r.dry = evt_target_parse(argv[++i], &r.target) == EVT_OK;
        else if (strcmp(argv[i], "--split-k") == 0 && i + 1 < argc)
            one.split_k = atoi(argv[++i]);
        else if (argv[i][0] != '-' && !one.config)
            one.config = argv[i];
        else
            return usage();
    }
    if (all == !!one.config)
        return usage();
    for (size_t i = 0; one.config && i < sizeof families / sizeof families[0]; i++)
        if (strcmp(families[i].config, one.config) == 0 && families[i].split_k == one.split_k)
            one.name = families[i].name;

    r.ctx = evt_ctx_create();
    evt_status st = r.ctx ? EVT_OK : EVT_ERR_NO_MEMORY;
    char gpu[128] = "no GPU: a dry run";
    if (st == EVT_OK)
        st = evt_module_parse_buffer(r.ctx, "sanitize.evt", source, strlen(source), &r.m);
    if (st == EVT_OK)
        st = evt_module_optimize(r.m, 2);
    if (st == EVT_OK && !r.dry)
        st = evt_device_target(r.ctx, &r.target, gpu, sizeof gpu);
    if (st == EVT_OK) {
        printf("%s (%s)\n", gpu, evt_target_name(r.target));
        if (all)
            for (size_t i = 0; i < sizeof families / sizeof families[0] && st == EVT_OK; i++)
                st = run_family(&r, &families[i]);
        else
            st = run_family(&r, &one);
    }
    int rc = 0;
    if (st == EVT_ERR_NO_GPU) {
        printf("sanitize_configs: no GPU (%s): skipped\n", evt_ctx_last_error(r.ctx));
        rc = 77;
    } else if (st != EVT_OK) {
        fprintf(stderr, "sanitize_configs: %s: %s\n", evt_status_string(st),
                r.ctx ? evt_ctx_last_error(r.ctx) : "");
        rc = 1;
    } else {
        printf("sanitize_configs: %s\n", r.failures ? "FAIL" : "PASS");
        rc = r.failures ? 1 : 0;
    }
    evt_module_destroy(r.m);
    evt_ctx_destroy(r.ctx);
    return rc;
}
