/*
 * fp8_gemm.c - fp8 GEMMs on the GPU: every operand combination the tensor
 * cores take (e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3, e5m2 x e5m2) under
 * every fp8 configuration family forced (mma.sync m16n8k32, the cp.async
 * wgmma k32 tiles, the TMA producer/consumer tiles, cooperative ones alone
 * and in clusters of two, split-K; the staged
 * family is conv's and fp8 is the GEMM's only) and the heuristic's pick,
 * on ragged problems, with per-row and per-column scales, a bias, GELU, an
 * e4m3 output and its amax.
 *
 *   fp8_gemm                  on the GPU present
 *   fp8_gemm --dry-run T      for target T without a GPU: the references,
 *                             and launches validated (host memory standing
 *                             in for the device's) up to EVT_ERR_NO_GPU
 *
 * Operands are multiples of 1/4 in [-2, 2], which e4m3 and e5m2 both hold
 * exactly: every product is a multiple of 1/16 and every sum an f32, so
 * the GPU's accumulator is the f64 reference's whatever the order of its
 * adds, and the f32 epilogue on it must equal the interpreter's byte for
 * byte (the rows' padding untouched).  On sm_80 and sm_86 every launch
 * must be refused, naming fp8.
 *
 * Exit status: 0 PASS, 1 FAIL or error, 77 no GPU (the ctest skip code).
 */
#include <evt/evt.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char source[] =
    "epilogue scaled {\n"
    "    in    sa        : f32[M]\n"
    "    in    sb        : f32[N]\n"
    "    in    bias      : f16[N]\n"
    "    param inv_scale : f32 = 1.0\n"
    "    let   y         = gelu(acc * sa * sb + bias)\n"
    "    out   d         : e4m3[M, N] = y * inv_scale\n"
    "    out   amax      : f32 = reduce_max(abs(y))\n"
    "}\n"
    "kernel e4m3_e4m3 = gemm(a: e4m3 row, b: e4m3 col, acc: f32) with scaled\n"
    "kernel e4m3_e5m2 = gemm(a: e4m3 row, b: e5m2 col, acc: f32) with scaled\n"
    "kernel e5m2_e4m3 = gemm(a: e5m2 row, b: e4m3 col, acc: f32) with scaled\n"
    "kernel e5m2_e5m2 = gemm(a: e5m2 row, b: e5m2 col, acc: f32) with scaled\n"
    "epilogue plain {\n"
    "    out y : f32[M, N] = acc\n"
    "}\n"
    "kernel sum_e4m3 = gemm(a: e4m3 row, b: e4m3 col, acc: f32) with plain\n";

typedef struct family {
    const char *name, *config; /* config NULL: the heuristic's */
    int split_k;               /* evt_tuning.split_k: 0 the planner's, 1 never, n ways */
    int stream_k;              /* evt_tuning.stream_k: 0 the planner's, 2 forced */
} family;

static const family families[] = {
    {"mma.sync k32", "sm80_64x64x64_w4_s4_fp8", 1, 0},
    {"mma.sync k32", "sm80_128x128x128_w4_s3_fp8", 1, 0},
    {"wgmma k32", "sm90_wg2_128x256x128_s4_fp8", 1, 0},
    {"wgmma k32", "sm90_wg2_128x128x128_s3_fp8", 1, 0},
    {"producer/consumer", "sm90_pp2_128x128x128_s4_fp8", 1, 0},
    {"cooperative", "sm90_coop2_128x128x128_s4_fp8", 1, 0},
    {"cooperative, stream-K", "sm90_coop2_128x128x128_s4_fp8", 1, 2},
    {"cooperative, clusters of two", "sm90_coop2_cl2_128x128x128_s4_fp8", 1, 0},
    {"cooperative, clusters of two, stream-K", "sm90_coop2_cl2_128x128x128_s4_fp8", 1, 2},
    {"cooperative, two epilogue warpgroups", "sm90_ws8_coop2_128x128x128_s4_fp8", 1, 0},
    {"cooperative, two epilogue warpgroups, stream-K", "sm90_ws8_coop2_128x128x128_s4_fp8", 1, 2},
    {"cooperative, two epilogue warpgroups, clusters of two", "sm90_ws8_coop2_cl2_128x128x128_s4_fp8", 1, 0},
    {"cooperative, two epilogue warpgroups, clusters of two, stream-K", "sm90_ws8_coop2_cl2_128x128x128_s4_fp8",
     1, 2},
    {"split-K", "sm80_64x64x64_w4_s4_fp8", 3, 0},
    {"split-K", "sm90_wg2_128x256x128_s4_fp8", 2, 0},
    {"heuristic", NULL, 0, 0},
};

typedef struct problem {
    long long m, n, k, pad; /* pad: elements added to every leading dimension */
} problem;

/* K = 1040: more k tiles than any configuration has stages (the rings wrap),
 * a multiple of 16 (the fast path, TMA); K = 1037 and lda + 8: the guarded
 * path; 300 x 260: 3 x 3 tiles of 128, both consumers of a
 * producer/consumer CTA busy; 1700 x 1500: 168 tiles of 128, more than an
 * H100 or H200 has SMs, so a persistent CTA takes a second tile (its stage
 * ring and epilogue sub-tile carried over from the first). */
static const problem problems[] = {
    {77, 45, 1040, 0},
    {77, 45, 1037, 0},
    {300, 260, 528, 16},
    {300, 260, 528, 8},
    {1, 17, 16, 0},
    {1700, 1500, 48, 0},
};

enum { A, B, SA, SB, BIAS, D, AMAX, NBUF };
static const char *const names[NBUF] = {"a", "b", "sa", "sb", "bias", "d", "amax"};

/* One kernel's problem, drawn and worked out by the references once (they
 * take most of a dry run's time, and every family runs the same problems):
 * the inputs as drawn, the outputs' 0x7f fill, and what each output must
 * hold afterwards. */
typedef struct expected {
    int done;
    evt_status st;
    evt_elem elem[NBUF];
    size_t bytes[NBUF];
    unsigned char *host[NBUF], *want[NBUF];
} expected;

enum { MAX_KERNELS = 8, NPROBLEMS = sizeof problems / sizeof problems[0] };

typedef struct run {
    evt_ctx *ctx;
    evt_module *m;
    evt_target target;
    int dry;
    int fp8; /* the target has fp8 tensor cores */
    int failures;
    expected cache[MAX_KERNELS][NPROBLEMS];
    /* precision_one's operands and reference, drawn and worked out once for
     * every configuration it runs (prec_done) */
    int prec_done;
    evt_status prec_st;
    unsigned char *prec_a, *prec_b;
    float *prec_ref;
} run;

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s >> 11;
}

/* Buffer i's values: operands k/4 in [-2, 2]; scales in [0.5, 1.5); a bias in [-1, 1). */
static int fill(int i, evt_elem elem, void *dst, size_t n, uint64_t *seed)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return 0;
    for (size_t j = 0; j < n; j++) {
        const double u = (double)next(seed) * 0x1p-53;
        v[j] = i <= B ? (double)(next(seed) % 17) / 4 - 2 : i <= SB ? 0.5 + u : 2 * u - 1;
    }
    const int ok = evt_convert_from_f64(elem, v, dst, n) == EVT_OK;
    free(v);
    return ok;
}

static long long ld_of(const problem *pp)
{
    return pp->n + 8;
}

/* Kernel k's (the module's ki-th) problem pi: drawn and referenced on first use. */
static const expected *expect(run *r, size_t ki, const evt_kernel *k, size_t pi)
{
    expected *e = &r->cache[ki][pi];
    if (e->done)
        return e;
    e->done = 1;
    const problem *pp = &problems[pi];
    const evt_operand_info *oa = evt_kernel_operand(k, 0), *ob = evt_kernel_operand(k, 1);
    const long long m = pp->m, n = pp->n, kk = pp->k, ld = ld_of(pp);
    const long long lda = kk + pp->pad, ldb = kk + pp->pad; /* A row-major, B column-major */
    const size_t count[NBUF] = {(size_t)((m - 1) * lda + kk), (size_t)((n - 1) * ldb + kk), (size_t)m,
                                (size_t)n, (size_t)n, (size_t)((m - 1) * ld + n), 1};
    const evt_elem elem[NBUF] = {oa->elem, ob->elem, EVT_F32, EVT_F32, EVT_F16, EVT_E4M3, EVT_F32};
    memcpy(e->elem, elem, sizeof elem);
    float *acc = malloc(sizeof *acc * (size_t)(m * n));
    evt_interp *in = NULL;
    evt_status st = acc ? EVT_OK : EVT_ERR_NO_MEMORY;
    uint64_t seed = 0x9e3779b97f4a7c15u ^ (uint64_t)(m * 1000003 + n * 1009 + kk * 7 + pp->pad);
    for (int i = 0; i < NBUF && st == EVT_OK; i++) {
        e->bytes[i] = count[i] * evt_elem_size(elem[i]);
        e->host[i] = malloc(e->bytes[i]);
        e->want[i] = malloc(e->bytes[i]);
        if (!e->host[i] || !e->want[i])
            st = EVT_ERR_NO_MEMORY;
        else if (i <= BIAS && !fill(i, elem[i], e->host[i], count[i], &seed))
            st = EVT_ERR_INTERNAL;
        else if (i > BIAS)
            memset(e->host[i], 0x7f, e->bytes[i]); /* NaN in e4m3, a large float: a missed store shows */
        if (st == EVT_OK)
            memcpy(e->want[i], e->host[i], e->bytes[i]);
    }
    if (st == EVT_OK)
        st = evt_reference_gemm_mixed(m, n, kk, oa->elem, e->host[A], oa->layout, lda, ob->elem, e->host[B],
                                      ob->layout, ldb, NULL, acc, n);
    if (st == EVT_OK)
        st = evt_interp_create(evt_kernel_epilogue(k), &in);
    if (st == EVT_OK)
        st = evt_interp_set_acc(in, m, n, acc, sizeof *acc * (size_t)(m * n), n);
    for (int i = SA; i < NBUF && st == EVT_OK; i++)
        st = evt_interp_bind(in, names[i], e->want[i], e->bytes[i], i == D ? ld : 0);
    if (st == EVT_OK)
        st = evt_interp_set_param(in, "inv_scale", 0.5f);
    if (st == EVT_OK)
        st = evt_interp_run(in, EVT_INTERP_F32);
    if (st != EVT_OK && in)
        fprintf(stderr, "fp8_gemm: the reference: %s\n", evt_interp_last_error(in));
    evt_interp_destroy(in);
    free(acc);
    e->st = st;
    return e;
}

static void expected_free(expected *e)
{
    for (int i = 0; i < NBUF; i++) {
        free(e->host[i]);
        free(e->want[i]);
    }
}

static evt_status run_one(run *r, size_t ki, const evt_kernel *k, const family *fam, size_t pi)
{
    const problem *pp = &problems[pi];
    const long long m = pp->m, n = pp->n, kk = pp->k, ld = ld_of(pp);
    const long long lda = kk + pp->pad, ldb = kk + pp->pad;
    const expected *e = expect(r, ki, k, pi);
    const size_t *bytes = e->bytes;
    unsigned char *got[NBUF] = {0};
    void *dev[NBUF] = {0};
    evt_launch *l = NULL;
    evt_status st = e->st;
    for (int i = 0; i < NBUF && st == EVT_OK; i++)
        if (r->dry)
            dev[i] = e->host[i]; /* the launch validates host memory and stops at EVT_ERR_NO_GPU */
        else if ((st = evt_device_alloc(r->ctx, bytes[i], &dev[i])) == EVT_OK)
            st = evt_device_copy_to(r->ctx, dev[i], e->host[i], bytes[i]);
    const evt_tuning tuning = {.config = fam->config, .split_k = fam->split_k, .stream_k = fam->stream_k};
    if (st == EVT_OK)
        st = evt_launch_create(r->m, k, &l);
    if (st == EVT_OK)
        st = evt_launch_set_tuning(l, &tuning);
    if (st == EVT_OK)
        st = evt_launch_set_gemm(l, m, n, kk, dev[A], lda, bytes[A], dev[B], ldb, bytes[B]);
    for (int i = SA; i < NBUF && st == EVT_OK; i++)
        st = evt_launch_bind(l, names[i], dev[i], bytes[i], i == D ? ld : 0);
    if (st == EVT_OK)
        st = evt_launch_set_param(l, "inv_scale", 0.5f);
    if (st == EVT_OK)
        st = evt_launch_run(l, NULL);
    char what[80];
    snprintf(what, sizeof what, "%lldx%lldx%lld%s", m, n, kk, pp->pad ? " padded" : "");
    if (!r->fp8 && !r->dry) {
        /* sm_80 / sm_86: refused, saying why */
        const int refused = st == EVT_ERR_UNSUPPORTED && strstr(evt_ctx_last_error(r->ctx), "fp8");
        printf("  %-10s %-22s %s\n", evt_kernel_name(k), what, refused ? "refused: ok" : "FAIL: not refused");
        r->failures += !refused;
        st = EVT_ERR_NO_GPU;
    } else if (r->dry) {
        const int validated = st == EVT_ERR_NO_GPU;
        printf("  %-10s %-22s %s\n", evt_kernel_name(k), what, validated ? "validated" : evt_ctx_last_error(r->ctx));
        r->failures += !validated;
        st = EVT_ERR_NO_GPU;
        memset(dev, 0, sizeof dev);
    }
    if (st == EVT_OK)
        st = evt_device_synchronize(r->ctx);
    for (int i = D; i < NBUF && st == EVT_OK; i++)
        if (!(got[i] = malloc(bytes[i])))
            st = EVT_ERR_NO_MEMORY;
        else
            st = evt_device_copy_from(r->ctx, got[i], dev[i], bytes[i]);
    if (st == EVT_OK) {
        int bad = 0;
        for (int i = D; i < NBUF; i++) {
            if (memcmp(got[i], e->want[i], bytes[i]) == 0)
                continue;
            const size_t size = evt_elem_size(e->elem[i]);
            size_t el = 0;
            while (memcmp(got[i] + el * size, e->want[i] + el * size, size) == 0)
                el++;
            uint32_t gv = 0, wanted = 0;
            memcpy(&gv, got[i] + el * size, size);
            memcpy(&wanted, e->want[i] + el * size, size);
            printf("    output %s differs at element %zu (row %lld): 0x%x, want 0x%x\n", names[i], el,
                   i == D ? (long long)el / ld : 0LL, gv, wanted);
            bad = 1;
        }
        printf("  %-10s %-22s %-4s %s\n", evt_kernel_name(k), what, bad ? "FAIL" : "ok",
               evt_launch_plan(l) ? evt_launch_plan(l) : "");
        r->failures += bad;
    } else if (st != EVT_ERR_NO_GPU) {
        printf("  %-10s %-22s error %s: %s\n", evt_kernel_name(k), what, evt_status_string(st),
               evt_ctx_last_error(r->ctx));
        r->failures++;
    }
    evt_launch_destroy(l);
    for (int i = 0; i < NBUF; i++) {
        if (!r->dry)
            evt_device_free(r->ctx, dev[i]);
        free(got[i]);
    }
    return st;
}

/*
 * The accumulation's precision, where products are not exact: e4m3 operands
 * drawn from N(0, 1), K = 16384, the bare accumulator out, against the f64
 * reference.  Left to the tensor cores over all of K (the forced-only
 * producer/consumer and cp.async wgmma tiles) the error was 8.5e-3 and
 * 2.2e-3 of the result's scale, cuBLASLt's fp8 fast accumulation 8.5e-3 and
 * its default 1.3e-4 (docs/fp8.md); every configuration the planner may pick
 * must stay below 1e-3.
 */
static const char *const precise[] = {NULL,
                                      "sm90_coop2_128x128x128_s4_fp8",
                                      "sm90_coop2_cl2_128x128x128_s4_fp8",
                                      "sm90_ws8_coop2_128x128x128_s4_fp8",
                                      "sm90_ws8_coop2_cl2_128x128x128_s4_fp8",
                                      "sm80_128x128x128_w4_s3_fp8",
                                      "sm80_64x64x64_w4_s4_fp8"};

enum { PREC_M = 200, PREC_N = 136, PREC_K = 16384 };

/* precision_one's operands, N(0, 1) in e4m3, and (not in a dry run, which
 * has nothing to hold it against) their f64 reference: once. */
static evt_status precision_inputs(run *r)
{
    if (r->prec_done)
        return r->prec_st;
    r->prec_done = 1;
    const size_t na = (size_t)PREC_M * PREC_K, nb = (size_t)PREC_N * PREC_K;
    double *v = malloc(sizeof *v * (na > nb ? na : nb));
    r->prec_a = malloc(na);
    r->prec_b = malloc(nb);
    r->prec_ref = malloc(sizeof *r->prec_ref * PREC_M * PREC_N);
    evt_status st = v && r->prec_a && r->prec_b && r->prec_ref ? EVT_OK : EVT_ERR_NO_MEMORY;
    uint64_t seed = 0x5851f42d4c957f2du;
    for (int which = 0; which < 2 && st == EVT_OK; which++) {
        const size_t cnt = which ? nb : na;
        for (size_t j = 0; j < cnt; j++) { /* N(0, 1) by the sum of 4 uniforms, about */
            double u = 0;
            for (int t = 0; t < 4; t++)
                u += (double)next(&seed) * 0x1p-53;
            v[j] = (u - 2) * 1.7320508;
        }
        st = evt_convert_from_f64(EVT_E4M3, v, which ? r->prec_b : r->prec_a, cnt);
    }
    if (st == EVT_OK && !r->dry)
        st = evt_reference_gemm_mixed(PREC_M, PREC_N, PREC_K, EVT_E4M3, r->prec_a, EVT_LAYOUT_ROW, PREC_K, EVT_E4M3,
                                      r->prec_b, EVT_LAYOUT_COL, PREC_K, NULL, r->prec_ref, PREC_N);
    free(v);
    return r->prec_st = st;
}

static evt_status precision_one(run *r, const char *config)
{
    const long long m = PREC_M, n = PREC_N, kk = PREC_K;
    const evt_kernel *k = evt_module_find_kernel(r->m, "sum_e4m3");
    const size_t na = (size_t)(m * kk), nb = (size_t)(n * kk), ny = (size_t)(m * n);
    evt_status st = precision_inputs(r);
    unsigned char *a = r->prec_a, *b = r->prec_b;
    const float *ref = r->prec_ref;
    float *y = malloc(sizeof *y * ny);
    void *da = NULL, *db = NULL, *dy = NULL;
    evt_launch *l = NULL;
    if (st == EVT_OK && (!k || !y))
        st = EVT_ERR_NO_MEMORY;
    if (st == EVT_OK && !r->dry && (st = evt_device_alloc(r->ctx, na, &da)) == EVT_OK &&
        (st = evt_device_alloc(r->ctx, nb, &db)) == EVT_OK &&
        (st = evt_device_alloc(r->ctx, sizeof *y * ny, &dy)) == EVT_OK &&
        (st = evt_device_copy_to(r->ctx, da, a, na)) == EVT_OK)
        st = evt_device_copy_to(r->ctx, db, b, nb);
    const evt_tuning tuning = {.config = config, .split_k = config ? 1 : 0};
    if (st == EVT_OK)
        st = evt_launch_create(r->m, k, &l);
    if (st == EVT_OK)
        st = evt_launch_set_tuning(l, &tuning);
    if (st == EVT_OK)
        st = evt_launch_set_gemm(l, m, n, kk, r->dry ? a : da, kk, na, r->dry ? b : db, kk, nb);
    if (st == EVT_OK)
        st = evt_launch_bind(l, "y", r->dry ? (void *)y : dy, sizeof *y * ny, n);
    if (st == EVT_OK)
        st = evt_launch_run(l, NULL);
    if (st == EVT_OK)
        st = evt_device_synchronize(r->ctx);
    if (st == EVT_OK)
        st = evt_device_copy_from(r->ctx, y, dy, sizeof *y * ny);
    if (st == EVT_OK) {
        double scale = 0, worst = 0;
        for (size_t i = 0; i < ny; i++) {
            const double d = (double)y[i] - ref[i], rf = ref[i] < 0 ? -(double)ref[i] : ref[i];
            scale = rf > scale ? rf : scale;
            worst = (d < 0 ? -d : d) > worst ? (d < 0 ? -d : d) : worst;
        }
        const double rel = scale > 0 ? worst / scale : worst;
        const int bad = !(rel < 1e-3);
        printf("  precision  %-22s %-4s %.2e of the scale  %s\n", "200x136x16384", bad ? "FAIL" : "ok", rel,
               evt_launch_plan(l) ? evt_launch_plan(l) : "");
        r->failures += bad;
    } else if (st == EVT_ERR_NO_GPU && r->dry) {
        printf("  precision  %-22s validated\n", config ? config : "(heuristic)");
    } else if (st != EVT_ERR_NO_GPU) {
        printf("  precision  %s: error %s: %s\n", config ? config : "(heuristic)", evt_status_string(st),
               evt_ctx_last_error(r->ctx));
        r->failures++;
    }
    evt_launch_destroy(l);
    if (!r->dry) {
        evt_device_free(r->ctx, da);
        evt_device_free(r->ctx, db);
        evt_device_free(r->ctx, dy);
    }
    free(y);
    return st == EVT_ERR_NO_GPU && r->dry ? EVT_OK : st;
}

static evt_status run_family(run *r, const family *fam)
{
    printf("%s: %s%s%s\n", fam->name, fam->config ? fam->config : "the heuristic's pick",
           fam->split_k > 1 ? ", split-K" : "", fam->stream_k == 2 ? ", stream-K" : "");
    for (size_t i = 0; i < evt_module_kernel_count(r->m); i++) {
        const evt_kernel *k = evt_module_kernel(r->m, i);
        if (strcmp(evt_kernel_name(k), "sum_e4m3") == 0)
            continue; /* precision_one's */
        if (r->fp8 && fam->config && evt_kernel_config_check(r->m, k, r->target, fam->config) != EVT_OK) {
            printf("  %-10s not run: %s\n", evt_kernel_name(k), evt_ctx_last_error(r->ctx));
            continue;
        }
        for (size_t p = 0; p < NPROBLEMS; p++) {
            const evt_status st = run_one(r, i, k, fam, p);
            if (st == EVT_ERR_NO_GPU && !r->dry && r->fp8)
                return st;
        }
    }
    return EVT_OK;
}

int main(int argc, char **argv)
{
    run r = {.target = EVT_TARGET_SM90A, .fp8 = 1};
    if (argc == 3 && strcmp(argv[1], "--dry-run") == 0) {
        if (evt_target_parse(argv[2], &r.target) != EVT_OK)
            return 1;
        r.dry = 1;
    } else if (argc != 1) {
        fprintf(stderr, "usage: fp8_gemm [--dry-run TARGET]\n");
        return 1;
    }
    r.ctx = evt_ctx_create();
    evt_status st = r.ctx ? EVT_OK : EVT_ERR_NO_MEMORY;
    char gpu[128] = "no GPU: a dry run";
    if (st == EVT_OK)
        st = evt_module_parse_buffer(r.ctx, "fp8_gemm.evt", source, strlen(source), &r.m);
    if (st == EVT_OK)
        st = evt_module_optimize(r.m, 2);
    if (st == EVT_OK && evt_module_kernel_count(r.m) > MAX_KERNELS) {
        fprintf(stderr, "fp8_gemm: %zu kernels, more than the references' cache holds (%d)\n",
                evt_module_kernel_count(r.m), (int)MAX_KERNELS);
        return 1;
    }
    if (st == EVT_OK && !r.dry)
        st = evt_device_target(r.ctx, &r.target, gpu, sizeof gpu);
    r.fp8 = r.target == EVT_TARGET_SM89 || r.target == EVT_TARGET_SM90A;
    if (st == EVT_OK) {
        printf("%s (%s)\n", gpu, evt_target_name(r.target));
        for (size_t i = 0; i < sizeof families / sizeof families[0] && st == EVT_OK; i++)
            if (r.fp8 || i == 0) /* without fp8 MMAs: one family's refusals say it all */
                st = run_family(&r, &families[i]);
        for (size_t i = 0; i < sizeof precise / sizeof precise[0] && st == EVT_OK && r.fp8; i++)
            st = precision_one(&r, precise[i]);
    }
    int rc;
    if (st == EVT_ERR_NO_GPU) {
        printf("fp8_gemm: no GPU (%s): skipped\n", evt_ctx_last_error(r.ctx));
        rc = 77;
    } else if (st != EVT_OK) {
        fprintf(stderr, "fp8_gemm: %s: %s\n", evt_status_string(st), r.ctx ? evt_ctx_last_error(r.ctx) : "");
        rc = 1;
    } else {
        printf("fp8_gemm: %s\n", r.failures ? "FAIL" : "PASS");
        rc = r.failures ? 1 : 0;
    }
    for (size_t i = 0; i < MAX_KERNELS; i++)
        for (size_t p = 0; p < NPROBLEMS; p++)
            expected_free(&r.cache[i][p]);
    free(r.prec_a);
    free(r.prec_b);
    free(r.prec_ref);
    evt_module_destroy(r.m);
    evt_ctx_destroy(r.ctx);
    return rc;
}
