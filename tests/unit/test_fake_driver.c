/*
 * test_fake_driver.c - the launch path after validation, on the stand-in
 * driver (tests/fakecuda): for GEMMs and convs on an sm_90a and an sm_80
 * device, the configuration picked, the grid against the tile count, the
 * block, the dynamic shared memory and its attribute, the TMA maps'
 * arguments, the workspace allocated and the argument struct packed, byte
 * by byte at offsets written out here by hand from codegen/layout.c's
 * rules; then benchmarking, device memory, graph capture, and every driver
 * call failing in turn.
 *
 * The kernels are compiled by the real NVRTC, so each parameter's size is
 * the cubin's own (the fake reads its KPARAM_INFO).  NVRTC runs in a child
 * process that goes through the same tests first and fills a temporary
 * disk cache; the tests proper then load every cubin from it, so NVRTC's
 * threads never run in the process LeakSanitizer checks (see
 * docs/architecture.md on LeakSanitizer and NVRTC).
 */
#define _GNU_SOURCE /* mkdtemp, nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <evt/evt.h>
#include "codegen/nvrtc.h"
#include "plan/plan.h"
#define FAKECUDA_OPEN
#include "tests/fakecuda/fakecuda.h"

#include <fcntl.h>
#include <math.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char source[] =
    "epilogue full {\n"
    "    param alpha : f32 = 1.0\n"
    "    param beta  : f32\n"
    "    in  bias : f16[N]\n"
    "    in  res  : f16[M, N]\n"
    "    out d    : f16[M, N] = relu(alpha * acc + bias) * beta + res\n"
    "    out amax : f32 = reduce_max(abs(acc))\n"
    "    out rsum : f32[M] = reduce_sum(acc, N)\n"
    "}\n"
    "epilogue scaled {\n"
    "    param scale : f32 = 0.5\n"
    "    out y : bf16[M, N] = acc * scale\n"
    "}\n"
    "epilogue residual {\n"
    "    in  bias : f16[N]\n"
    "    in  res  : f16[M, N]\n"
    "    out y    : f16[M, N] = relu(acc + bias) + res\n"
    "}\n"
    "kernel tn   = gemm(a: f16 row, b: f16 col, acc: f32) with full\n"
    "kernel nt   = gemm(a: bf16 col, b: bf16 row, acc: f32) with scaled\n"
    "kernel tnb  = gemm(a: bf16 row, b: bf16 col, acc: f32) with scaled\n"
    "kernel conv = conv2d_fprop(x: f16, w: f16, acc: f32) with residual\n"
    "epilogue fp8out {\n"
    "    in  sa : f32[M]\n"
    "    in  sb : f32[N]\n"
    "    out y  : e4m3[M, N] = acc * sa * sb\n"
    "}\n"
    "kernel f8 = gemm(a: e4m3 row, b: e5m2 col, acc: f32) with fp8out\n";

/* The argument structs, as codegen/layout.c lays them out: C's alignment,
 * the mainloop's struct first.  evt_gemm_args is a, b (pointers), m, n, k
 * (int), lda, ldb (long long, elements), stride_a, stride_b (long long, bytes),
 * batch, index (int);
 * evt_conv_args x, w, then 15 ints.  Every input and output has its batch
 * stride (bs) after its pointer and ld or workspace. */
enum {
    G_A = 0, G_B = 8, G_M = 16, G_N = 20, G_K = 24, G_LDA = 32, G_LDB = 40, G_STRIDE_A = 48,
    G_STRIDE_B = 56, G_BATCH = 64, G_INDEX = 68,
    /* full: in bias + bs, in res + ld + bs, params alpha beta, out d + ld + bs, out amax + ws + bs,
     * out rsum + ws + bs, m, n */
    FULL_BIAS = 72, FULL_BS_BIAS = 80, FULL_RES = 88, FULL_LD_RES = 96, FULL_BS_RES = 104,
    FULL_ALPHA = 112, FULL_BETA = 116, FULL_D = 120, FULL_LD_D = 128, FULL_BS_D = 136,
    FULL_AMAX = 144, FULL_WS_AMAX = 152, FULL_BS_AMAX = 160, FULL_RSUM = 168, FULL_WS_RSUM = 176,
    FULL_BS_RSUM = 184, FULL_M = 192, FULL_N = 196, FULL_SIZE = 200,
    /* scaled: param scale, out y + ld + bs, m, n */
    SC_SCALE = 72, SC_Y = 80, SC_LD_Y = 88, SC_BS_Y = 96, SC_M = 104, SC_N = 108, SC_SIZE = 112,
    /* conv: x, w, n h wd c k r s p q pad_h pad_w stride_h stride_w dil_h dil_w */
    C_X = 0, C_W = 8, C_SIZES = 16,
    /* residual after evt_conv_args (76 bytes, padded to 80): bias + bs, res + ld + bs, y + ld + bs, m, n */
    RES_BIAS = 80, RES_RES = 96, RES_LD_RES = 104, RES_Y = 120, RES_LD_Y = 128, RES_M = 144,
    RES_N = 148, RES_SIZE = 152,
    /* fp8out: in sa + bs, in sb + bs, out y + ld + bs, m, n */
    F8_SA = 72, F8_SB = 88, F8_Y = 104, F8_LD_Y = 112, F8_M = 128, F8_N = 132, F8_SIZE = 136
};

/* The devices: an H100-like sm_90a, an A100-like sm_80, and an sm_90a of 8
 * SMs, on which problems small enough to run by the dozen get the same
 * configurations as 4096^3 on 132 SMs. */
#define DEVICES "9.0x132,8.0x108,9.0x8"
enum { DEV_SM90 = 0, DEV_SM80 = 1, DEV_SMALL = 2, SMS_SM90 = 132, SMS_SM80 = 108 };
/* clusters of two and of four the stand-in's sm_90 device holds at once
 * (its GPCs of 17 SMs, which a cluster never spans: 62, not 66, and 31,
 * not 33; fakecuda.c) */
enum { CL2_RESIDENT_SM90 = 62, CL4_RESIDENT_SM90 = 31 };
static const int optin[3] = {227 * 1024, 163 * 1024, 227 * 1024}; /* by device */

/* CUtensorMap enums (cuda.h) */
enum { TMAP_UINT8 = 0, TMAP_F16 = 6, TMAP_BF16 = 9, SWIZZLE_NONE = 0, SWIZZLE_64B = 2, SWIZZLE_128B = 3, L2_128B = 2 };

static fakecuda_api fc;
/* Where the tests' buffers come from, as a program's own CUDA runtime: a
 * context of its own, so that the contexts under test load the driver in
 * their first run. */
static evt_ctx *mem;
/* Whether NVRTC is here: without it the fake's NVRTC stands in (its
 * images declare the same entry points and parameters, so only the check
 * against real cubins is lost). */
static int have_nvrtc;

/* ---- helpers ----------------------------------------------------------- */

static evt_ctx *new_ctx(void)
{
    evt_ctx *ctx = evt_ctx_create();
    assert_non_null(ctx);
    assert_int_equal(evt_ctx_set_library_path(ctx, EVT_LIBRARY_CUDA_DRIVER, EVT_FAKECUDA), EVT_OK);
    if (!have_nvrtc)
        assert_int_equal(evt_ctx_set_library_path(ctx, EVT_LIBRARY_NVRTC, EVT_FAKECUDA), EVT_OK);
    return ctx;
}

static evt_module *parse(evt_ctx *ctx)
{
    evt_module *m = NULL;
    assert_int_equal(evt_module_parse_buffer(ctx, "fake.evt", source, strlen(source), &m), EVT_OK);
    assert_int_equal(evt_module_optimize(m, 2), EVT_OK);
    return m;
}

static evt_launch *launch_of(evt_module *m, const char *kernel)
{
    evt_launch *l = NULL;
    assert_int_equal(evt_launch_create(m, evt_module_find_kernel(m, kernel), &l), EVT_OK);
    return l;
}

/* Device memory of the fake, from `mem`. */
typedef struct bufs {
    evt_ctx *ctx;
    void *p[16];
    int n;
} bufs;

static void *dev(bufs *b, size_t bytes)
{
    assert_true(b->n < 16);
    void *p = NULL;
    assert_int_equal(evt_device_alloc(b->ctx, bytes, &p), EVT_OK);
    return b->p[b->n++] = p;
}

static void free_bufs(bufs *b)
{
    for (int i = 0; i < b->n; i++)
        assert_int_equal(evt_device_free(b->ctx, b->p[i]), EVT_OK);
    b->n = 0;
}

/* The usual test's end: its buffers freed, then its launch, module and
 * context destroyed, in that order. */
static void close_all(bufs *b, evt_launch *l, evt_module *m, evt_ctx *ctx)
{
    free_bufs(b);
    evt_launch_destroy(l);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

static void expect_ok(evt_ctx *ctx, evt_status st)
{
    if (st != EVT_OK)
        fprintf(stderr, "%s: %s (violation: %s)\n", evt_status_string(st), evt_ctx_last_error(ctx),
                fc.fakecuda_last_violation());
    assert_int_equal(st, EVT_OK);
}

/* The launches since the last reset, each checked to have succeeded. */
static size_t launches(fakecuda_launch *out, size_t max)
{
    const size_t n = fc.fakecuda_launch_count();
    assert_true(n <= max);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(fc.fakecuda_get_launch(i, &out[i]), 0);
        assert_int_equal(out[i].result, 0);
    }
    return n;
}

/* The one cuMemAlloc since the reset: its size, and its base. */
static unsigned long long one_alloc(size_t bytes)
{
    assert_int_equal(fc.fakecuda_alloc_count(), 1);
    fakecuda_alloc a;
    assert_int_equal(fc.fakecuda_get_alloc(0, &a), 0);
    assert_int_equal(a.result, 0);
    assert_int_equal(a.bytes, bytes);
    return a.ptr;
}

static long long ceil_div(long long a, long long b)
{
    return (a + b - 1) / b;
}

/*
 * A main entry's launch as configuration `name` must make it: its entry
 * point, `grid` CTAs of the configuration's threads, its shared memory,
 * within the device's limit and, over 48 KiB, opted into with
 * cuFuncSetAttribute before the launch; the argument struct of
 * `args_size` bytes first.
 */
static void expect_main(const fakecuda_launch *l, const char *entry, const char *config, long long grid,
                        int device, size_t args_size)
{
    const plan_config *c = plan_config_find(config);
    assert_non_null(c);
    assert_string_equal(l->function, entry);
    assert_int_equal(l->grid[0], grid);
    assert_int_equal(l->grid[1], 1);
    assert_int_equal(l->grid[2], 1);
    /* a split-K sum CTA has more threads than its configuration's mainloop (EVT_TILE_SUM_THREADS) */
    assert_int_equal(l->block[0], strstr(entry, "_splitsum_") ? c->sum_threads : c->threads);
    assert_int_equal(l->block[1] * l->block[2], 1);
    assert_int_equal(l->shared_bytes, c->smem_bytes);
    assert_true(l->shared_bytes <= (unsigned)optin[device]);
    assert_int_equal(l->device, device);
    assert_true(l->nparams >= 1);
    assert_int_equal(l->param_size[0], args_size);
    int opted = 0;
    for (size_t i = 0; i < fc.fakecuda_attribute_count(); i++) {
        fakecuda_attribute a;
        fc.fakecuda_get_attribute(i, &a);
        if (strcmp(a.function, entry) == 0 && a.attribute == 8 /* MAX_DYNAMIC_SHARED */) {
            assert_int_equal(a.result, 0);
            assert_int_equal(a.value, c->smem_bytes);
            opted = 1;
        }
    }
    assert_int_equal(opted, c->smem_bytes > 48 * 1024);
}

/* A reduction kernel's launch: `words` words, 256 threads each, at most 1024 CTAs. */
static void expect_reduce(const fakecuda_launch *l, const char *entry, long long words, size_t args_size)
{
    assert_string_equal(l->function, entry);
    assert_int_equal(l->grid[0], ceil_div(words, 256) < 1024 ? ceil_div(words, 256) : 1024);
    assert_int_equal(l->block[0], 256);
    assert_int_equal(l->shared_bytes, 0);
    assert_int_equal(l->nparams, 1);
    assert_int_equal(l->param_size[0], args_size);
}

/* A recorded tiled map of a 2D tensor of rows x k elements of esize bytes, ld apart. */
static void expect_tiled_elems(long index, int dtype, int esize, const void *addr, long long k, long long rows,
                               long long ld, unsigned box0, unsigned box1, int swizzle)
{
    fakecuda_tensor_map t;
    assert_true(index >= 0);
    assert_int_equal(fc.fakecuda_get_tensor_map((size_t)index, &t), 0);
    assert_int_equal(t.result, 0);
    assert_int_equal(t.im2col, 0);
    assert_int_equal(t.dtype, dtype);
    assert_int_equal(t.rank, 2);
    assert_ptr_equal(t.address, addr);
    assert_int_equal(t.dims[0], k);
    assert_int_equal(t.dims[1], rows);
    assert_int_equal(t.strides[0], ld * esize);
    assert_int_equal(t.box[0], box0);
    assert_int_equal(t.box[1], box1);
    assert_int_equal(t.elem_strides[0], 1);
    assert_int_equal(t.elem_strides[1], 1);
    assert_int_equal(t.interleave, 0);
    assert_int_equal(t.swizzle, swizzle);
    assert_int_equal(t.l2_promotion, L2_128B);
    assert_int_equal(t.oob_fill, 0);
}

/* The same of a 16-bit tensor. */
static void expect_tiled(long index, int dtype, const void *addr, long long k, long long rows, long long ld,
                         unsigned box0, unsigned box1, int swizzle)
{
    expect_tiled_elems(index, dtype, 2, addr, k, rows, ld, box0, box1, swizzle);
}

/* ---- fixture ----------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    if (fakecuda_open(EVT_FAKECUDA, &fc) != 0) {
        fprintf(stderr, "cannot open %s: %s\n", EVT_FAKECUDA, dlerror());
        return -1;
    }
    if (fc.fakecuda_configure(DEVICES) != 0 || !(mem = evt_ctx_create()))
        return -1;
    return evt_ctx_set_library_path(mem, EVT_LIBRARY_CUDA_DRIVER, EVT_FAKECUDA) == EVT_OK ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    evt_ctx_destroy(mem);
    dlclose(fc.handle);
    return 0;
}

static int setup(void **state)
{
    (void)state;
    fc.fakecuda_reset();
    fc.fakecuda_set_current(DEV_SM90);
    return 0;
}

/* ---- GEMMs ------------------------------------------------------------- */

/* Binds the `full` epilogue of an m x n problem; bias, res, d, amax, rsum at b->p[2..6]. */
static void bind_full(evt_launch *l, bufs *b, long long m, long long n, long long ld)
{
    const size_t mn = ((size_t)(m - 1) * (size_t)ld + (size_t)n) * 2;
    assert_int_equal(evt_launch_bind(l, "bias", dev(b, (size_t)n * 2), (size_t)n * 2, 0), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "res", dev(b, mn), mn, ld), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "d", dev(b, mn), mn, ld), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "amax", dev(b, 4), 4, 0), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "rsum", dev(b, (size_t)m * 4), (size_t)m * 4, 0), EVT_OK);
}

/* A launch of the module's "tn" kernel on K-contiguous A (a) and B (bb),
 * every other buffer from bind_full (rows N apart), beta set: the common
 * start of the GEMM tests. */
static evt_launch *bound_tn(evt_module *m, bufs *b, long long M, long long N, long long K, void *a, size_t a_bytes,
                            void *bb, size_t b_bytes, float beta)
{
    evt_launch *l = launch_of(m, "tn");
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, K, a_bytes, bb, K, b_bytes), EVT_OK);
    bind_full(l, b, M, N, N);
    assert_int_equal(evt_launch_set_param(l, "beta", beta), EVT_OK);
    return l;
}

/* The `full` struct of a GEMM as bound by bind_full after set_gemm with
 * A, B at b->p[0], b->p[1]; the workspace's words at ws. */
static void expect_full_args(const unsigned char *args, const bufs *b, long long m, long long n, long long k,
                             long long lda, long long ldb, long long ld, float alpha, float beta,
                             unsigned long long ws)
{
    assert_ptr_equal(fakecuda_ptr_at(args, G_A), b->p[0]);
    assert_ptr_equal(fakecuda_ptr_at(args, G_B), b->p[1]);
    assert_int_equal(fakecuda_i32_at(args, G_M), m);
    assert_int_equal(fakecuda_i32_at(args, G_N), n);
    assert_int_equal(fakecuda_i32_at(args, G_K), k);
    assert_int_equal(fakecuda_i64_at(args, G_LDA), lda);
    assert_int_equal(fakecuda_i64_at(args, G_LDB), ldb);
    assert_ptr_equal(fakecuda_ptr_at(args, FULL_BIAS), b->p[2]);
    assert_ptr_equal(fakecuda_ptr_at(args, FULL_RES), b->p[3]);
    assert_int_equal(fakecuda_i64_at(args, FULL_LD_RES), ld);
    assert_true(fakecuda_f32_at(args, FULL_ALPHA) == alpha);
    assert_true(fakecuda_f32_at(args, FULL_BETA) == beta);
    assert_ptr_equal(fakecuda_ptr_at(args, FULL_D), b->p[4]);
    assert_int_equal(fakecuda_i64_at(args, FULL_LD_D), ld);
    assert_ptr_equal(fakecuda_ptr_at(args, FULL_AMAX), b->p[5]);
    assert_int_equal((uintptr_t)fakecuda_ptr_at(args, FULL_WS_AMAX), ws); /* amax's one word first */
    assert_ptr_equal(fakecuda_ptr_at(args, FULL_RSUM), b->p[6]);
    assert_int_equal((uintptr_t)fakecuda_ptr_at(args, FULL_WS_RSUM), ws + 4); /* then rsum's m */
    assert_int_equal(fakecuda_i32_at(args, FULL_M), m);
    assert_int_equal(fakecuda_i32_at(args, FULL_N), n);
}

/* 97 x 83 x 41: K is not a multiple of 8, so the guarded 64x64 tile, one
 * CTA per tile; the reductions' init and finish around it, on the one
 * workspace of 1 + 97 words. */
static void test_gemm_ragged_sm90(void **state)
{
    (void)state;
    enum { M = 97, N = 83, K = 41 };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    void *a = dev(&b, M * K * 2), *bb = dev(&b, N * K * 2);
    evt_launch *l = bound_tn(m, &b, M, N, K, a, M * K * 2, bb, N * K * 2, 0.5f);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));

    assert_string_equal(evt_launch_plan(l), "sm_90a sm80_64x64x32_w4_s4 guarded grid 4 splits 1");
    fakecuda_launch r[3];
    assert_int_equal(launches(r, 3), 3);
    const unsigned long long ws = one_alloc((1 + M) * 4);
    expect_reduce(&r[0], "evt_tn_gemm_reduce_init", 1 + M, FULL_SIZE);
    expect_main(&r[1], "evt_tn_gemm_sm80_64x64x32_w4_s4_guarded_sm90a", "sm80_64x64x32_w4_s4",
                ceil_div(M, 64) * ceil_div(N, 64), DEV_SM90, FULL_SIZE);
    assert_int_equal(r[1].nparams, 1); /* no maps: a guarded entry loads no TMA */
    expect_reduce(&r[2], "evt_tn_gemm_reduce_finish", 1 + M, FULL_SIZE);
    for (int i = 0; i < 3; i++)
        expect_full_args(r[i].params[0], &b, M, N, K, K, K, N, 1.0f, 0.5f, ws);
    assert_int_equal(fc.fakecuda_tensor_map_count(), 0);

    /* a second run allocates nothing and packs a param set since */
    assert_int_equal(evt_launch_set_param(l, "alpha", 2.5f), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_int_equal(launches(r, 3), 3);
    assert_int_equal(fc.fakecuda_alloc_count(), 0);
    expect_full_args(r[1].params[0], &b, M, N, K, K, K, N, 2.5f, 0.5f, ws);
    assert_int_equal(fc.fakecuda_violations(), 0);

    close_all(&b, l, m, ctx);
}

/* Parameter i of launch r is a persistent entry's tile end (int): end, or
 * any positive count when end < 0; and the last, i + 1, its stream-K
 * (kernels/sched/tiles.cuh's evt_stream_k: partials, flags, iters, first),
 * none here: no k tiles shared. */
static void expect_tile_end(const fakecuda_launch *r, int i, long long end)
{
    assert_int_equal(r->nparams, i + 2);
    assert_int_equal(r->param_size[i], 4);
    const int got = fakecuda_i32_at(r->params[i], 0);
    if (end >= 0)
        assert_int_equal(got, end);
    else
        assert_true(got > 0);
    assert_int_equal(r->param_size[i + 1], 32);
    assert_int_equal(fakecuda_i64_at(r->params[i + 1], 16), 0);
}

/* A run of l with configuration `config` forced (as tests and the tuner
 * force them), the fake's records cleared first. */
static void run_tuned(evt_ctx *ctx, evt_launch *l, const evt_tuning *t)
{
    assert_int_equal(evt_launch_set_tuning(l, t), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
}

static void run_forced(evt_ctx *ctx, evt_launch *l, const char *config)
{
    const evt_tuning forced = {.config = config};
    run_tuned(ctx, l, &forced);
}

/* 4096^3 with padded leading dimensions: the persistent cooperative
 * 128x256 producer/consumer tile, one CTA per SM, loading A and B through
 * tiled TMA maps of the bound pointers whose strides are the leading
 * dimensions. */
static void test_gemm_4096_sm90_tma(void **state)
{
    (void)state;
    enum { M = 4096, N = 4096, K = 4096, LDA = K + 64, LDB = K + 128, LD = N + 8 };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    evt_launch *l = launch_of(m, "tn");
    bufs b = {mem, {0}, 0};
    const size_t a_bytes = ((size_t)(M - 1) * LDA + K) * 2, b_bytes = ((size_t)(N - 1) * LDB + K) * 2;
    void *a = dev(&b, a_bytes), *bb = dev(&b, b_bytes);
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, LDA, a_bytes, bb, LDB, b_bytes), EVT_OK);
    bind_full(l, &b, M, N, LD);
    assert_int_equal(evt_launch_set_param(l, "beta", -3.0f), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));

    const plan_config *c = plan_config_find("sm90_coop2_128x256x64_s3");
    const long long tiles = ceil_div(M, c->bm) * ceil_div(N, c->bn);
    const long long grid = tiles < SMS_SM90 * c->min_blocks ? tiles : SMS_SM90 * c->min_blocks;
    char want[128];
    snprintf(want, sizeof want, "sm_90a sm90_coop2_128x256x64_s3 fast tma grid %lld splits 1", grid);
    assert_string_equal(evt_launch_plan(l), want);
    fakecuda_launch r[3];
    assert_int_equal(launches(r, 3), 3);
    const unsigned long long ws = one_alloc((1 + M) * 4);
    expect_reduce(&r[0], "evt_tn_gemm_reduce_init", 1 + M, FULL_SIZE);
    expect_main(&r[1], "evt_tn_gemm_sm90_coop2_128x256x64_s3_sm90a", "sm90_coop2_128x256x64_s3", grid, DEV_SM90,
                FULL_SIZE);
    expect_reduce(&r[2], "evt_tn_gemm_reduce_finish", 1 + M, FULL_SIZE);
    expect_full_args(r[1].params[0], &b, M, N, K, LDA, LDB, LD, 1.0f, -3.0f, ws);

    /* the maps: A as (k, m), B as (k, n), in BK x BM and BK x BN boxes, 128-byte swizzled */
    assert_int_equal(r[1].nparams, 4);
    expect_tile_end(&r[1], 2, tiles); /* every tile: no tail */
    assert_int_equal(r[1].param_size[1], 3 * 128);
    assert_int_equal(fc.fakecuda_tensor_map_count(), 2);
    expect_tiled(fc.fakecuda_tensor_map_of(r[1].params[1]), TMAP_F16, a, K, M, LDA, 64, 128, SWIZZLE_128B);
    expect_tiled(fc.fakecuda_tensor_map_of(r[1].params[1] + 128), TMAP_F16, bb, K, N, LDB, 64, 256, SWIZZLE_128B);
    assert_int_equal(fc.fakecuda_tensor_map_of(r[1].params[1] + 256), -1); /* nothing staged */
    assert_int_equal(fc.fakecuda_violations(), 0);

    close_all(&b, l, m, ctx);
}

/* K = 2001: no row of A or B is 16-byte aligned, so both are first copied
 * into dense rows of 2008 elements, zero past K (BASE_repack, grids of
 * 256-thread blocks of 16-byte chunks by rows), in the workspace after the
 * reductions' words; the fast path then runs on the copies with K = 2008
 * and their TMA maps.  The same in a caller's workspace (whose size says
 * so); a forced configuration, and a problem below RT_REPACK_MIN_MACS,
 * keep the guarded entry. */
/* A repack launch (api/launch.c's enqueue_repack): `entry` copying `rows`
 * rows of e elements, ld apart at src, into rows of e8 at dst, in 256-thread
 * blocks of 16-byte chunks (grid_x of them a row) and a block row a row. */
static void expect_repack(const fakecuda_launch *r, const char *entry, const void *src, long long ld,
                          unsigned long long dst, long long rows, long long e, long long e8, unsigned grid_x)
{
    assert_string_equal(r->function, entry);
    assert_int_equal(r->grid[0], grid_x);
    assert_int_equal(r->grid[1], rows);
    assert_int_equal(r->block[0], 256);
    assert_int_equal(r->nparams, 6);
    assert_ptr_equal(fakecuda_ptr_at(r->params[0], 0), src);
    assert_int_equal(fakecuda_i64_at(r->params[1], 0), ld);
    assert_int_equal(fakecuda_i64_at(r->params[2], 0), (long long)dst);
    assert_int_equal(fakecuda_i64_at(r->params[3], 0), rows);
    assert_int_equal(fakecuda_i64_at(r->params[4], 0), e);
    assert_int_equal(fakecuda_i64_at(r->params[5], 0), e8);
}

/* Stream-K's launch (plan.h): one persistent launch whose last parameter
 * shares the k tiles of its tiles from `first` on, the flags zeroed by
 * cuMemsetD32Async where the launch cannot know them zero, its slots after
 * them in the workspace. */
static void expect_stream_k(const fakecuda_launch *r, unsigned long long flags, unsigned long long slots,
                            long long iters, int first)
{
    assert_int_equal(r->nparams, 4);
    assert_int_equal(r->param_size[3], 32);
    assert_int_equal((uintptr_t)fakecuda_ptr_at(r->params[3], 0), slots);
    assert_int_equal((uintptr_t)fakecuda_ptr_at(r->params[3], 8), flags);
    assert_int_equal(fakecuda_i64_at(r->params[3], 16), iters);
    assert_int_equal(fakecuda_i32_at(r->params[3], 24), first);
}

static void test_gemm_stream_k_sm90(void **state)
{
    (void)state;
    enum { M = 1000, N = 2560, K = 2560, LD = N };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    const size_t a_bytes = (size_t)3500 * K * 2, b_bytes = (size_t)N * K * 2;
    void *a = dev(&b, a_bytes), *bb = dev(&b, b_bytes);
    evt_launch *l = bound_tn(m, &b, M, N, K, a, a_bytes, bb, b_bytes, 0.25f);
    const evt_tuning sk = {"sm90_coop2_128x256x64_s3", 0, 0, 0, 2, 0};
    run_tuned(ctx, l, &sk);
    /* 8 x 10 tiles, fewer than the SMs: all of their 80 x 40 k tiles shared by 132 CTAs */
    assert_string_equal(evt_launch_plan(l), "sm_90a sm90_coop2_128x256x64_s3 fast tma grid 132 splits 1 "
                                            "stream-K 80 tiles");
    fakecuda_launch r[4];
    assert_int_equal(launches(r, 4), 3);
    const size_t words = (size_t)(1 + M) * 4, flags_at = (words + 255) / 256 * 256;
    const size_t slots_at = flags_at + 132 * 128;
    const size_t bytes = slots_at + (size_t)132 * 128 * 256 * 4;
    const unsigned long long ws = one_alloc(bytes);
    expect_reduce(&r[0], "evt_tn_gemm_reduce_init", 1 + M, FULL_SIZE);
    expect_main(&r[1], "evt_tn_gemm_sm90_coop2_128x256x64_s3_sm90a", "sm90_coop2_128x256x64_s3", 132, DEV_SM90,
                FULL_SIZE);
    assert_int_equal(fakecuda_i32_at(r[1].params[2], 0), 80); /* the tile end: every tile */
    expect_stream_k(&r[1], ws + flags_at, ws + slots_at, 80 * 40, 0);
    assert_int_equal(fc.fakecuda_calls("cuMemsetD32Async"), 1); /* a new workspace's flags */
    size_t need = 0;
    assert_int_equal(evt_launch_workspace_size(l, &need), EVT_OK);
    assert_int_equal(need, bytes);

    /* again: the last run left the flags zero, so no memset */
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_int_equal(fc.fakecuda_calls("cuMemsetD32Async"), 0);
    assert_int_equal(launches(r, 4), 3);
    expect_stream_k(&r[1], ws + flags_at, ws + slots_at, 80 * 40, 0);

    /* a run without stream-K in between may leave anything there */
    const evt_tuning whole = {"sm90_coop2_128x256x64_s3", 0, 0, 0, 1, 0};
    run_tuned(ctx, l, &whole);
    assert_string_equal(evt_launch_plan(l), "sm_90a sm90_coop2_128x256x64_s3 fast tma grid 80 splits 1");
    assert_int_equal(launches(r, 4), 3);
    expect_tile_end(&r[1], 2, 80);
    run_tuned(ctx, l, &sk);
    assert_int_equal(fc.fakecuda_calls("cuMemsetD32Async"), 1);

    /* a captured run zeroes its flags in the graph, whatever ran before (a
     * graph replays later, after anything), and the eager run after it
     * zeroes them again: the graph may not have run */
    void *stream = NULL;
    assert_int_equal(fc.cuStreamCreate(&stream, 0), 0);
    fc.fakecuda_reset(); /* (which ends captures) */
    assert_int_equal(fc.cuStreamBeginCapture(stream, 2 /* relaxed */), 0);
    expect_ok(ctx, evt_launch_run(l, stream));
    assert_int_equal(fc.fakecuda_calls("cuMemsetD32Async"), 1);
    void *graph = NULL;
    assert_int_equal(fc.cuStreamEndCapture(stream, &graph), 0);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_int_equal(fc.fakecuda_calls("cuMemsetD32Async"), 1);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_int_equal(fc.fakecuda_calls("cuMemsetD32Async"), 0);
    assert_int_equal(fc.cuStreamDestroy(stream), 0);

    /* a caller's workspace: zeroed every run */
    void *own = dev(&b, bytes);
    for (int i = 0; i < 2; i++) {
        fc.fakecuda_reset();
        expect_ok(ctx, evt_launch_run_with_workspace(l, NULL, own, bytes));
        assert_int_equal(fc.fakecuda_calls("cuMemsetD32Async"), 1);
        assert_int_equal(launches(r, 4), 3);
        expect_stream_k(&r[1], (uintptr_t)own + flags_at, (uintptr_t)own + slots_at, 80 * 40, 0);
    }

    /* 28 x 10 tiles: the first of two waves whole, the rest (148 tiles) shared */
    evt_launch *l2 = bound_tn(m, &b, 3500, N, K, a, a_bytes, bb, b_bytes, 0.25f);
    run_tuned(ctx, l2, &sk);
    assert_string_equal(evt_launch_plan(l2), "sm_90a sm90_coop2_128x256x64_s3 fast tma grid 132 splits 1 "
                                             "stream-K 148 tiles");
    assert_int_equal(launches(r, 4), 3);
    assert_int_equal(fakecuda_i32_at(r[1].params[2], 0), 280);
    assert_int_equal(fakecuda_i64_at(r[1].params[3], 16), 148 * 40);
    assert_int_equal(fakecuda_i32_at(r[1].params[3], 24), 132);
    assert_int_equal(fc.fakecuda_violations(), 0);

    /* in clusters of two: 14 x 10 stacks of two tiles, more than the 62
     * clusters the stand-in holds at once (the plan's 66 shared again over
     * 62): the first wave of stacks whole, the rest's k tiles shared */
    const evt_tuning cl = {"sm90_coop2_cl2_128x256x64_s3", 0, 0, 0, 2, 0};
    run_tuned(ctx, l2, &cl);
    assert_string_equal(evt_launch_plan(l2), "sm_90a sm90_coop2_cl2_128x256x64_s3 fast tma grid 124 splits 1 "
                                             "stream-K 78 stacks");
    assert_int_equal(launches(r, 4), 3);
    assert_int_equal(r[1].grid[0], 124);
    assert_int_equal(fakecuda_i64_at(r[1].params[3], 16), 78 * 40);
    assert_int_equal(fakecuda_i32_at(r[1].params[3], 24), 62);
    assert_int_equal(fc.fakecuda_calls("cuMemsetD32Async"), 0); /* the last stream-K run left them zero */
    assert_int_equal(fc.fakecuda_violations(), 0);

    /* stream-K where the configuration has none: the planner's plan for it */
    const evt_tuning pp = {"sm90_pp2_128x128x64_s4", 0, 0, 0, 2, 0};
    run_tuned(ctx, l2, &pp);
    assert_null(strstr(evt_launch_plan(l2), "stream-K"));
    assert_int_equal(fc.fakecuda_calls("cuMemsetD32Async"), 0);
    /* and a value out of range */
    const evt_tuning bad = {NULL, 0, 0, 0, 3, 0};
    assert_int_equal(evt_launch_set_tuning(l2, &bad), EVT_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "stream_k 3"));

    free_bufs(&b);
    evt_launch_destroy(l2);
    evt_launch_destroy(l);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

static void test_gemm_repack_sm90(void **state)
{
    (void)state;
    enum { M = 1000, N = 3000, K = 2001, K8 = 2008, LD = N };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    const size_t a_bytes = (size_t)M * K * 2, b_bytes = (size_t)N * K * 2;
    void *a = dev(&b, a_bytes), *bb = dev(&b, b_bytes);
    evt_launch *l = bound_tn(m, &b, M, N, K, a, a_bytes, bb, b_bytes, 0.5f);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_non_null(strstr(evt_launch_plan(l), " fast tma "));
    assert_non_null(strstr(evt_launch_plan(l), " repacked a b"));
    fakecuda_launch r[5];
    assert_int_equal(launches(r, 5), 5);
    /* the workspace: the reductions' 1 + M words, then A's copy and B's, each at a 256-byte boundary */
    const size_t a_at = ((1 + M) * 4 + 255) / 256 * 256, b_at = a_at + ((size_t)M * K8 * 2 + 255) / 256 * 256;
    const unsigned long long ws0 = one_alloc(b_at + (size_t)N * K8 * 2);
    const void *srcs[2] = {a, bb};
    const long long rows[2] = {M, N};
    for (int i = 0; i < 2; i++) /* 251 chunks a row, 256 a block */
        expect_repack(&r[i], "evt_tn_gemm_repack", srcs[i], K, ws0 + (i ? b_at : a_at), rows[i], K, K8, 1);
    assert_string_equal(r[2].function, "evt_tn_gemm_reduce_init");
    assert_non_null(strstr(r[3].function, "_sm90a"));
    assert_null(strstr(r[3].function, "guarded"));
    const unsigned char *args = r[3].params[0];
    assert_int_equal(fakecuda_i64_at(args, G_A), (long long)(ws0 + a_at));
    assert_int_equal(fakecuda_i64_at(args, G_B), (long long)(ws0 + b_at));
    assert_int_equal(fakecuda_i32_at(args, G_K), K8);
    assert_int_equal(fakecuda_i64_at(args, G_LDA), K8);
    assert_int_equal(fakecuda_i64_at(args, G_LDB), K8);
    assert_int_equal(fakecuda_i32_at(args, G_M), M);
    assert_int_equal(fakecuda_i32_at(args, G_N), N);
    assert_string_equal(r[4].function, "evt_tn_gemm_reduce_finish");
    expect_tiled(fc.fakecuda_tensor_map_of(r[3].params[1]), TMAP_F16, (const void *)(uintptr_t)(ws0 + a_at), K8,
                 M, K8, 64, 128, SWIZZLE_128B);
    /* (B's boxes are the planner's 128x192 tile's 192 rows: 16 column tiles, one wave) */
    assert_non_null(strstr(evt_launch_plan(l), "sm90_coop2_128x192x64_s4"));
    expect_tiled(fc.fakecuda_tensor_map_of(r[3].params[1] + 128), TMAP_F16, (const void *)(uintptr_t)(ws0 + b_at),
                 K8, N, K8, 64, 192, SWIZZLE_128B);
    assert_int_equal(fc.fakecuda_violations(), 0);
    /* the caller's K and operands again after the run: a second run repacks the same way */
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_int_equal(launches(r, 5), 5);
    assert_int_equal(fc.fakecuda_alloc_count(), 0); /* the workspace is kept */
    assert_ptr_equal(fakecuda_ptr_at(r[0].params[0], 0), a);
    assert_int_equal(fakecuda_i32_at(r[3].params[0], G_K), K8);

    /* in a caller's workspace, as large as evt_launch_workspace_size says; one byte less is refused */
    size_t ws_bytes = 0;
    expect_ok(ctx, evt_launch_workspace_size(l, &ws_bytes));
    assert_int_equal(ws_bytes, b_at + (size_t)N * K8 * 2);
    void *ws = dev(&b, ws_bytes);
    fc.fakecuda_reset();
    assert_int_equal(evt_launch_run_with_workspace(l, NULL, ws, ws_bytes - 1), EVT_ERR_BAD_BUFFER);
    expect_ok(ctx, evt_launch_run_with_workspace(l, NULL, ws, ws_bytes));
    assert_int_equal(launches(r, 5), 5);
    assert_string_equal(r[1].function, "evt_tn_gemm_repack");
    assert_int_equal(fakecuda_i64_at(r[1].params[2], 0), (long long)((uintptr_t)ws + b_at));
    assert_int_equal(fakecuda_i64_at(r[3].params[0], G_B), (long long)((uintptr_t)ws + b_at));
    assert_int_equal(fakecuda_i32_at(r[3].params[0], G_K), K8);
    assert_int_equal(fc.fakecuda_alloc_count(), 0);

    /* a copy that fails to launch fails the run, and nothing runs after it:
     * the reductions' init and the main entry would read a stale copy
     * (the fuzzer's fuzz_launch found the init launched regardless) */
    for (int nth = 1; nth <= 2; nth++) {
        fc.fakecuda_reset();
        fc.fakecuda_fail("cuLaunchKernel", nth, 999);
        assert_int_equal(evt_launch_run(l, NULL), EVT_ERR_DRIVER);
        assert_non_null(strstr(evt_ctx_last_error(ctx), "cuLaunchKernel"));
        for (size_t i = 0; i < fc.fakecuda_launch_count(); i++) {
            fakecuda_launch f;
            assert_int_equal(fc.fakecuda_get_launch(i, &f), 0);
            if (f.result == 0)
                assert_string_equal(f.function, "evt_tn_gemm_repack");
        }
        fc.fakecuda_fail(NULL, 0, 0);
    }
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_int_equal(launches(r, 5), 5);

    /* a configuration forced: its guarded entry, no copies */
    run_forced(ctx, l, "sm90_pp2_128x128x64_s4");
    assert_non_null(strstr(evt_launch_plan(l), " guarded "));
    assert_int_equal(launches(r, 3), 3);
    assert_non_null(strstr(r[1].function, "_guarded_sm90a"));
    assert_int_equal(fakecuda_i32_at(r[1].params[0], G_K), K);
    assert_int_equal(evt_launch_set_tuning(l, NULL), EVT_OK);

    /* below RT_REPACK_MIN_MACS (2^26): guarded */
    assert_int_equal(evt_launch_set_gemm(l, 16, 1000, K, a, K, a_bytes, bb, K, b_bytes), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_non_null(strstr(evt_launch_plan(l), " guarded "));
    assert_int_equal(fc.fakecuda_violations(), 0);

    close_all(&b, l, m, ctx);
}

/* A column-major and B row-major (M/N-contiguous) with N = 3001: B's k
 * rows are copied into rows of 3008 elements, zero past N, K staying 1024
 * (the fast path reads past N only within a copy's padding); A's rows are
 * whole chunks and read in place.  The plan's TMA maps read the copy. */
/* A batch repacks too: A's problems, each M x K after the last, copy as
 * one operand of L x M rows, the copy's problems M x K8 apart; B, shared
 * by the batch (stride 0), copies once and stays shared. */
static void test_gemm_repack_batched_sm90(void **state)
{
    (void)state;
    enum { M = 200, N = 300, K = 1001, K8 = 1008, L = 4 };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    evt_launch *l = launch_of(m, "tn");
    bufs b = {mem, {0}, 0};
    const size_t mn = (size_t)M * N, a_bytes = (size_t)L * M * K * 2, b_bytes = (size_t)N * K * 2;
    void *a = dev(&b, a_bytes), *bb = dev(&b, b_bytes);
    void *bias = dev(&b, N * 2), *res = dev(&b, L * mn * 2), *d = dev(&b, L * mn * 2);
    void *amax = dev(&b, L * 4), *rsum = dev(&b, (size_t)L * M * 4);
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, K, a_bytes, bb, K, b_bytes), EVT_OK);
    assert_int_equal(evt_launch_set_batch(l, L, (long long)M * K, 0), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(l, "bias", bias, N * 2, 0, 0), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(l, "res", res, L * mn * 2, N, (long long)mn), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(l, "d", d, L * mn * 2, N, (long long)mn), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(l, "amax", amax, L * 4, 0, 1), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(l, "rsum", rsum, (size_t)L * M * 4, 0, M), EVT_OK);
    assert_int_equal(evt_launch_set_param(l, "beta", 0.5f), EVT_OK);
    const evt_tuning whole = {.split_k = 1}; /* the workspace: words and copies only */
    run_tuned(ctx, l, &whole);
    const char *plan = evt_launch_plan(l);
    assert_non_null(strstr(plan, " fast "));
    assert_non_null(strstr(plan, " repacked a b"));
    fakecuda_launch r[5];
    assert_int_equal(launches(r, 5), 5);
    const size_t words = (size_t)(1 + M) * L;
    const size_t a_at = (words * 4 + 255) / 256 * 256, b_at = a_at + ((size_t)L * M * K8 * 2 + 255) / 256 * 256;
    const unsigned long long ws = one_alloc(b_at + (size_t)N * K8 * 2);
    const void *srcs[2] = {a, bb};
    const long long rows[2] = {(long long)L * M, N}; /* A: every problem's rows; B: once */
    for (int i = 0; i < 2; i++) /* 126 chunks a row */
        expect_repack(&r[i], "evt_tn_gemm_repack", srcs[i], K, ws + (i ? b_at : a_at), rows[i], K, K8, 1);
    assert_string_equal(r[2].function, "evt_tn_gemm_reduce_init");
    assert_null(strstr(r[3].function, "guarded"));
    const unsigned char *args = r[3].params[0];
    assert_int_equal(fakecuda_i64_at(args, G_A), (long long)(ws + a_at));
    assert_int_equal(fakecuda_i64_at(args, G_B), (long long)(ws + b_at));
    assert_int_equal(fakecuda_i32_at(args, G_K), K8);
    assert_int_equal(fakecuda_i64_at(args, G_LDA), K8);
    assert_int_equal(fakecuda_i64_at(args, G_LDB), K8);
    assert_int_equal(fakecuda_i64_at(args, G_STRIDE_A), (long long)M * K8 * 2); /* bytes: the copy's problems */
    assert_int_equal(fakecuda_i64_at(args, G_STRIDE_B), 0);
    assert_int_equal(fakecuda_i32_at(args, G_BATCH), L);
    assert_string_equal(r[4].function, "evt_tn_gemm_reduce_finish");
    assert_int_equal(fc.fakecuda_violations(), 0);
    /* a batch stride that is not one problem after the last keeps the guarded path */
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, K, a_bytes, bb, K, b_bytes), EVT_OK);
    assert_int_equal(evt_launch_set_batch(l, L - 1, (long long)M * K + K, 0), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_non_null(strstr(evt_launch_plan(l), " guarded "));
    assert_null(strstr(evt_launch_plan(l), "repacked"));
    close_all(&b, l, m, ctx);
}

static void test_gemm_repack_mn_sm90(void **state)
{
    (void)state;
    enum { M = 1000, N = 3001, N8 = 3008, K = 1024 };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    evt_launch *l = launch_of(m, "nt");
    bufs b = {mem, {0}, 0};
    const size_t a_bytes = (size_t)K * M * 2, b_bytes = (size_t)K * N * 2, y_bytes = (size_t)M * N * 2;
    void *a = dev(&b, a_bytes), *bb = dev(&b, b_bytes), *y = dev(&b, y_bytes);
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, M, a_bytes, bb, N, b_bytes), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "y", y, y_bytes, N), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_non_null(strstr(evt_launch_plan(l), " fast tma "));
    assert_non_null(strstr(evt_launch_plan(l), " repacked b"));
    assert_null(strstr(evt_launch_plan(l), " repacked a"));
    fakecuda_launch r[2];
    assert_int_equal(launches(r, 2), 2);
    const unsigned long long ws = one_alloc((size_t)K * N8 * 2); /* the copy alone */
    expect_repack(&r[0], "evt_nt_gemm_repack", bb, N, ws, K, N, N8, 2); /* 376 chunks a row, 256 a block */
    const unsigned char *args = r[1].params[0];
    assert_null(strstr(r[1].function, "guarded"));
    assert_ptr_equal(fakecuda_ptr_at(args, G_A), a);
    assert_int_equal(fakecuda_i64_at(args, G_LDA), M);
    assert_int_equal(fakecuda_i64_at(args, G_B), (long long)ws);
    assert_int_equal(fakecuda_i64_at(args, G_LDB), N8);
    assert_int_equal(fakecuda_i32_at(args, G_N), N);
    assert_int_equal(fakecuda_i32_at(args, G_K), K);
    /* B's map: (n, k) positions of the copy, N8 apart */
    fakecuda_tensor_map t;
    assert_int_equal(fc.fakecuda_get_tensor_map((size_t)fc.fakecuda_tensor_map_of(r[1].params[1] + 128), &t), 0);
    assert_ptr_equal(t.address, (const void *)(uintptr_t)ws);
    assert_int_equal(t.dims[0], N);
    assert_int_equal(t.dims[1], K);
    assert_int_equal(t.strides[0], N8 * 2);
    assert_int_equal(fc.fakecuda_violations(), 0);

    close_all(&b, l, m, ctx);
}

/* A persistent plan's tail (plan.h), forced four ways: 1000 x 2560 in
 * 128 x 128 tiles is 160 tiles, 28 past the first wave of 132, so the
 * ping-pong launch stops at tile 132 and the 28 go to the 128 x 128 wgmma
 * tile's split-K entries, four ways (K = 2560: 40 k tiles), into slots past
 * the reductions' words, and its sum; the reductions' init and finish around
 * all three.  The planner's own plan runs one launch of every tile. */
static void test_gemm_tail_sm90(void **state)
{
    (void)state;
    enum { M = 1000, N = 2560, K = 2560, LD = N };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    const size_t a_bytes = (size_t)M * K * 2, b_bytes = (size_t)N * K * 2;
    void *a = dev(&b, a_bytes), *bb = dev(&b, b_bytes);
    evt_launch *l = bound_tn(m, &b, M, N, K, a, a_bytes, bb, b_bytes, 0.25f);
    const evt_tuning four = {"sm90_pp2_128x128x64_s4", 4, 0, 0, 0, 0};
    assert_int_equal(evt_launch_set_tuning(l, &four), EVT_OK);
    fc.fakecuda_reset();
    fc.fakecuda_set_cluster_max(0); /* the shares meet in the workspace: no clusters */
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_string_equal(evt_launch_plan(l), "sm_90a sm90_pp2_128x128x64_s4 fast tma grid 132 splits 1 "
                                            "tail 28 x 4 sm90_wg2_128x128x64_s3");
    fakecuda_launch r[5];
    assert_int_equal(launches(r, 5), 5);
    const size_t words = (size_t)(1 + M) * 4, slots_at = (words + 255) / 256 * 256;
    const unsigned long long ws = one_alloc(slots_at + (size_t)28 * 4 * 128 * 128 * 4);
    expect_reduce(&r[0], "evt_tn_gemm_reduce_init", 1 + M, FULL_SIZE);
    expect_main(&r[1], "evt_tn_gemm_sm90_pp2_128x128x64_s4_sm90a", "sm90_pp2_128x128x64_s4", 132, DEV_SM90,
                FULL_SIZE);
    assert_int_equal(r[1].nparams, 4);
    expect_tile_end(&r[1], 2, 132);
    expect_main(&r[2], "evt_tn_gemm_sm90_wg2_128x128x64_s3_splitk_sm90a", "sm90_wg2_128x128x64_s3", 28 * 4,
                DEV_SM90, FULL_SIZE);
    expect_main(&r[3], "evt_tn_gemm_sm90_wg2_128x128x64_s3_splitsum_sm90a", "sm90_wg2_128x128x64_s3", 28,
                DEV_SM90, FULL_SIZE);
    for (int i = 2; i < 4; i++) {
        assert_int_equal(r[i].nparams, 4);
        assert_int_equal((uintptr_t)fakecuda_ptr_at(r[i].params[1], 0), ws + slots_at);
        assert_int_equal(fakecuda_i32_at(r[i].params[2], 0), 4);   /* ways */
        assert_int_equal(fakecuda_i32_at(r[i].params[3], 0), 132); /* the tail's first tile */
    }
    expect_reduce(&r[4], "evt_tn_gemm_reduce_finish", 1 + M, FULL_SIZE);
    for (int i = 0; i < 5; i++)
        expect_full_args(r[i].params[0], &b, M, N, K, K, K, LD, 1.0f, 0.25f, ws);
    size_t bytes = 0;
    assert_int_equal(evt_launch_workspace_size(l, &bytes), EVT_OK);
    assert_int_equal(bytes, slots_at + (size_t)28 * 4 * 128 * 128 * 4);
    assert_int_equal(fc.fakecuda_violations(), 0);

    /* Where the device holds clusters of four: each tail tile's shares are
     * one cluster, which sums them and runs the epilogue, no _splitsum.  A
     * fresh launch, since a launch asks the driver once, when it loads the
     * entry point. */
    evt_launch *lc = bound_tn(m, &b, M, N, K, a, a_bytes, bb, b_bytes, 0.25f);
    assert_int_equal(evt_launch_set_tuning(lc, &four), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(lc, NULL));
    assert_string_equal(evt_launch_plan(lc), "sm_90a sm90_pp2_128x128x64_s4 fast tma grid 132 splits 1 "
                                             "tail 28 x 4 sm90_wg2_128x128x64_s3 cluster-sum");
    assert_int_equal(launches(r, 5), 4);
    expect_reduce(&r[0], "evt_tn_gemm_reduce_init", 1 + M, FULL_SIZE);
    expect_main(&r[1], "evt_tn_gemm_sm90_pp2_128x128x64_s4_sm90a", "sm90_pp2_128x128x64_s4", 132, DEV_SM90,
                FULL_SIZE);
    expect_main(&r[2], "evt_tn_gemm_sm90_wg2_128x128x64_s3_splitk_sm90a", "sm90_wg2_128x128x64_s3", 28 * 4,
                DEV_SM90, FULL_SIZE);
    expect_reduce(&r[3], "evt_tn_gemm_reduce_finish", 1 + M, FULL_SIZE);
    for (int i = 0; i < 4; i++)
        assert_int_equal(r[i].cluster, i == 2 ? 4u : 0u);
    assert_int_equal(fakecuda_i32_at(r[2].params[2], 0), 4);   /* ways */
    assert_int_equal(fakecuda_i32_at(r[2].params[3], 0), 132); /* the tail's first tile */
    assert_int_equal(fc.fakecuda_violations(), 0);
    evt_launch_destroy(lc);

    /* the planner's: one persistent launch of all 112 tiles of the
     * 128x192 tile, one wave (mid_fills_waves), no tail */
    const evt_tuning never = {NULL, 0, 0, 0, 0, 0};
    run_tuned(ctx, l, &never);
    assert_string_equal(evt_launch_plan(l), "sm_90a sm90_coop2_128x192x64_s4 fast tma grid 112 splits 1");
    assert_int_equal(launches(r, 5), 3);
    expect_tile_end(&r[1], 2, 112);

    close_all(&b, l, m, ctx);
}

/* The planner sees the context's fast math (plan_kernel_built): a tanh
 * GELU under fast math takes the six-stage ping-pong tile at K of 768-2047
 * past twelve of its tiles an SM, the same kernel without fast math the
 * cooperative one (session 44; docs/sm90.md).  The fake NVRTC's images:
 * only the plan is checked, so nothing is compiled for real. */
static void test_gemm_fast_math_plan_sm90(void **state)
{
    (void)state;
    static const char src[] = "epilogue gt {\n"
                              "    in  bias : f16[N]\n"
                              "    out y    : f16[M, N] = gelu_tanh(acc + bias)\n"
                              "}\n"
                              "kernel g = gemm(a: f16 row, b: f16 col, acc: f32) with gt\n";
    enum { M = 8192, N = 5120, K = 1280 };
    static const char *const want[2] = {"sm_90a sm90_coop2_128x256x64_s3 fast tma ",
                                        "sm_90a sm90_pp2_128x128x64_s6 fast tma "};
    for (int fast = 0; fast < 2; fast++) {
        evt_ctx *ctx = new_ctx();
        assert_int_equal(evt_ctx_set_library_path(ctx, EVT_LIBRARY_NVRTC, EVT_FAKECUDA), EVT_OK);
        assert_int_equal(evt_ctx_set_fast_math(ctx, fast), EVT_OK);
        evt_module *m = NULL;
        assert_int_equal(evt_module_parse_buffer(ctx, "fast.evt", src, strlen(src), &m), EVT_OK);
        assert_int_equal(evt_module_optimize(m, 2), EVT_OK);
        evt_launch *l = launch_of(m, "g");
        bufs b = {mem, {0}, 0};
        const size_t a_bytes = (size_t)M * K * 2, b_bytes = (size_t)N * K * 2, y_bytes = (size_t)M * N * 2;
        void *a = dev(&b, a_bytes), *bb = dev(&b, b_bytes);
        assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, K, a_bytes, bb, K, b_bytes), EVT_OK);
        assert_int_equal(evt_launch_bind(l, "bias", dev(&b, (size_t)N * 2), (size_t)N * 2, 0), EVT_OK);
        assert_int_equal(evt_launch_bind(l, "y", dev(&b, y_bytes), y_bytes, N), EVT_OK);
        fc.fakecuda_reset();
        expect_ok(ctx, evt_launch_run(l, NULL));
        const char *plan = evt_launch_plan(l);
        assert_non_null(plan);
        if (strncmp(plan, want[fast], strlen(want[fast])) != 0)
            fail_msg("fast math %d: plan '%s', want '%s...'", fast, plan, want[fast]);
        free_bufs(&b);
        evt_launch_destroy(l);
        evt_module_destroy(m);
        evt_ctx_destroy(ctx);
    }
}

/* The clustered producer/consumer tiles, forced (ping-pong 128x128 and
 * cooperative 128x256): a grid of whole clusters of two CTAs (the stand-in
 * driver refuses any other for a __cluster_dims__ kernel), as many as there
 * are stacks of two M tiles (9 M tiles: 5 stacks, the last one half past M,
 * times the N tiles) or, on 4096^2, as can be resident at once
 * (cuOccupancyMaxActiveClusters: the stand-in's GPCs of 17 SMs hold 62
 * clusters of two, not 132 / 2); B's map reads half a tile's rows a box,
 * A's a whole tile's. */
static void test_gemm_cluster_sm90(void **state)
{
    (void)state;
    static const struct {
        const char *config;
        long long m, n, grid, b_rows;
    } cases[] = {
        {"sm90_pp2_cl2_128x128x64_s4", 1100, 520, 2 * 5 * 5, 64},
        {"sm90_pp2_cl2_128x128x64_s4", 4096, 4096, 2 * CL2_RESIDENT_SM90, 64},
        {"sm90_pp2_cl2_128x128x64_s4", 100, 40, 2, 64},
        {"sm90_coop2_cl2_128x256x64_s3", 1100, 520, 2 * 5 * 3, 128},
        {"sm90_coop2_cl2_128x256x64_s3", 4096, 4096, 2 * CL2_RESIDENT_SM90, 128},
        {"sm90_coop2_cl2_128x256x64_s3", 100, 40, 2, 128},
        {"sm90_coop2_cl2_128x256x64_s4", 4096, 4096, 2 * CL2_RESIDENT_SM90, 128},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const long long M = cases[i].m, N = cases[i].n, K = 200;
        evt_ctx *ctx = new_ctx();
        evt_module *m = parse(ctx);
        bufs b = {mem, {0}, 0};
        const size_t a_bytes = (size_t)(M * K * 2), b_bytes = (size_t)(N * K * 2);
        void *a = dev(&b, a_bytes), *bb = dev(&b, b_bytes);
        evt_launch *l = bound_tn(m, &b, M, N, K, a, a_bytes, bb, b_bytes, 0.25f);
        run_forced(ctx, l, cases[i].config);
        char want[128], entry[96];
        snprintf(want, sizeof want, "sm_90a %s fast tma grid %lld splits 1", cases[i].config, cases[i].grid);
        assert_string_equal(evt_launch_plan(l), want);
        snprintf(entry, sizeof entry, "evt_tn_gemm_%s_sm90a", cases[i].config);
        fakecuda_launch r[3];
        assert_int_equal(launches(r, 3), 3);
        expect_main(&r[1], entry, cases[i].config, cases[i].grid, DEV_SM90, FULL_SIZE);
        expect_tiled(fc.fakecuda_tensor_map_of(r[1].params[1]), TMAP_F16, a, K, M, K, 64, 128, SWIZZLE_128B);
        expect_tiled(fc.fakecuda_tensor_map_of(r[1].params[1] + 128), TMAP_F16, bb, K, N, K, 64,
                     cases[i].b_rows, SWIZZLE_128B);
        assert_int_equal(fc.fakecuda_violations(), 0);
        free_bufs(&b);
        evt_launch_destroy(l);
        evt_module_destroy(m);
        evt_ctx_destroy(ctx);
    }
}

/* fp8 operands (e4m3 A, e5m2 B: 1 byte an element) on a 4096^3 problem
 * with padded leading dimensions: the fp8 cooperative tile in clusters of
 * two, its A and B loaded through tiled byte maps (UINT8) whose strides are the
 * leading dimensions in bytes, in boxes of BK = 128 elements, the 128
 * bytes of the 128-byte swizzle; buffers of exactly their extent in bytes
 * pass and one byte less is refused; a leading dimension that is a
 * multiple of 8 but not of 16 elements is repacked (A copied into dense
 * rows, the fast path on the copy), or, with a configuration forced, takes
 * a guarded entry and no maps;
 * an sm_80 device refuses the kernel, saying why. */
static void test_gemm_fp8_sm90_tma(void **state)
{
    (void)state;
    enum { M = 4096, N = 4096, K = 4096, LDA = K + 16, LDB = K + 48, LD = N + 16 };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    evt_launch *l = launch_of(m, "f8");
    bufs b = {mem, {0}, 0};
    const size_t a_bytes = (size_t)(M - 1) * LDA + K, b_bytes = (size_t)(N - 1) * LDB + K;
    const size_t y_bytes = (size_t)(M - 1) * LD + N;
    void *a = dev(&b, a_bytes), *bb = dev(&b, b_bytes);
    void *sa = dev(&b, M * 4), *sb = dev(&b, N * 4), *y = dev(&b, y_bytes);
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, LDA, a_bytes, bb, LDB, b_bytes), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "sa", sa, M * 4, 0), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "sb", sb, N * 4, 0), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "y", y, y_bytes, LD), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));

    /* in clusters of two: as many as the stand-in's GPCs hold (62, see
     * test_gemm_cluster_sm90), fewer than the 16 x 32 stacks of two tiles */
    const long long grid = 2 * CL2_RESIDENT_SM90;
    char want[128];
    /* a per-element epilogue on whole columns: on the consumers' registers */
    snprintf(want, sizeof want, "sm_90a sm90_coop2_cl2_128x128x128_s4_fp8 fast tma grid %lld splits 1 direct-epilogue",
             grid);
    assert_string_equal(evt_launch_plan(l), want);
    fakecuda_launch r[1];
    assert_int_equal(launches(r, 1), 1);
    expect_main(&r[0], "evt_f8_gemm_sm90_coop2_cl2_128x128x128_s4_fp8_sm90a", "sm90_coop2_cl2_128x128x128_s4_fp8",
                grid, DEV_SM90, F8_SIZE);
    const unsigned char *args = r[0].params[0];
    assert_ptr_equal(fakecuda_ptr_at(args, G_A), a);
    assert_ptr_equal(fakecuda_ptr_at(args, G_B), bb);
    assert_int_equal(fakecuda_i32_at(args, G_K), K);
    assert_int_equal(fakecuda_i64_at(args, G_LDA), LDA);
    assert_int_equal(fakecuda_i64_at(args, G_LDB), LDB);
    assert_ptr_equal(fakecuda_ptr_at(args, F8_SA), sa);
    assert_ptr_equal(fakecuda_ptr_at(args, F8_SB), sb);
    assert_ptr_equal(fakecuda_ptr_at(args, F8_Y), y);
    assert_int_equal(fakecuda_i64_at(args, F8_LD_Y), LD);
    assert_int_equal(fakecuda_i32_at(args, F8_M), M);
    assert_int_equal(fakecuda_i32_at(args, F8_N), N);
    assert_int_equal(r[0].nparams, 4);
    expect_tile_end(&r[0], 2, -1);
    assert_int_equal(fc.fakecuda_tensor_map_count(), 2);
    expect_tiled_elems(fc.fakecuda_tensor_map_of(r[0].params[1]), TMAP_UINT8, 1, a, K, M, LDA, 128, 128,
                       SWIZZLE_128B);
    /* B in boxes of half a tile's rows: each CTA of the cluster loads one, multicast to both */
    expect_tiled_elems(fc.fakecuda_tensor_map_of(r[0].params[1] + 128), TMAP_UINT8, 1, bb, K, N, LDB, 128, 64,
                       SWIZZLE_128B);

    /* one byte short of A's extent */
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, LDA, a_bytes - 1, bb, LDB, b_bytes), EVT_OK);
    assert_int_equal(evt_launch_run(l, NULL), EVT_ERR_BAD_BUFFER);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "operand 'a' is too small"));

    /* lda = K + 8: 16-byte aligned for 16-bit operands, not for fp8 ones */
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, K + 8, a_bytes, bb, LDB, b_bytes), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    /* A's rows are not 16-byte aligned: A is first copied into dense rows
     * (the repack, into the workspace: M x K bytes), then the
     * fast path reads the copy through its TMA map */
    strcat(want, " repacked a");
    assert_string_equal(evt_launch_plan(l), want);
    fakecuda_launch rp[2];
    assert_int_equal(launches(rp, 2), 2);
    const unsigned long long copy = one_alloc((size_t)M * K);
    expect_repack(&rp[0], "evt_f8_gemm_repack", a, K + 8, copy, M, K, K, 1); /* K / 16 chunks a row, 256 a block */
    assert_string_equal(rp[1].function, "evt_f8_gemm_sm90_coop2_cl2_128x128x128_s4_fp8_sm90a"); /* loaded above */
    assert_int_equal(rp[1].grid[0], grid);
    assert_int_equal(rp[1].param_size[0], F8_SIZE);
    assert_int_equal(fakecuda_i64_at(rp[1].params[0], G_A), (long long)copy);
    assert_int_equal(fakecuda_i64_at(rp[1].params[0], G_LDA), K);
    assert_ptr_equal(fakecuda_ptr_at(rp[1].params[0], G_B), bb);
    assert_int_equal(fakecuda_i32_at(rp[1].params[0], G_K), K);
    expect_tiled_elems(fc.fakecuda_tensor_map_of(rp[1].params[1]), TMAP_UINT8, 1, (const void *)(uintptr_t)copy,
                       K, M, K, 128, 128, SWIZZLE_128B);
    assert_int_equal(fc.fakecuda_violations(), 0);
    /* a configuration forced (tests, the tuner): no copy, the guarded entry */
    run_forced(ctx, l, "sm90_coop2_128x128x128_s4_fp8");
    assert_non_null(strstr(evt_launch_plan(l), "_fp8 guarded grid"));
    assert_int_equal(launches(r, 1), 1);
    assert_non_null(strstr(r[0].function, "_fp8_guarded_sm90a"));
    assert_int_equal(fc.fakecuda_tensor_map_count(), 0);
    assert_int_equal(fc.fakecuda_violations(), 0);
    assert_int_equal(evt_launch_set_tuning(l, NULL), EVT_OK);

    /* no fp8 tensor cores on sm_80: refused before anything is compiled or launched */
    fc.fakecuda_set_current(DEV_SM80);
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, LDA, a_bytes, bb, LDB, b_bytes), EVT_OK);
    fc.fakecuda_reset();
    assert_int_equal(evt_launch_run(l, NULL), EVT_ERR_UNSUPPORTED);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "sm_80"));
    assert_non_null(strstr(evt_ctx_last_error(ctx), "fp8"));
    assert_int_equal(fc.fakecuda_launch_count(), 0);

    close_all(&b, l, m, ctx);
}

/* test_gemm_split_k_bf16_nt's problem: M x 256 x 8192, A column-major with
 * a padded leading dimension. */
enum { SPLIT_N = 256, SPLIT_K = 8192, SPLIT_LDA = 256 + 8, SPLIT_LDB = SPLIT_N };

/* A fresh launch of kernel "nt" on that problem with M rows (operands a,
 * bb of a_bytes, b_bytes; output y), forced as t says. */
static evt_launch *split_nt_launch(evt_module *m, long long M, void *a, size_t a_bytes, void *bb, size_t b_bytes,
                                   void *y, const evt_tuning *t)
{
    evt_launch *l = launch_of(m, "nt");
    assert_int_equal(
        evt_launch_set_gemm(l, M, SPLIT_N, SPLIT_K, a, SPLIT_LDA, a_bytes, bb, SPLIT_LDB, b_bytes), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "y", y, (size_t)M * SPLIT_N * 2, SPLIT_N), EVT_OK);
    assert_int_equal(evt_launch_set_tuning(l, t), EVT_OK);
    return l;
}

/* A small M x N with a long K on a column-major A, on the sm80 family's
 * 64x64 tile: split 8 ways, a _splitk grid of tiles x 8 CTAs and a
 * _splitsum one of a CTA per tile, over one workspace of their partial
 * tiles. */
static void test_gemm_split_k_bf16_nt(void **state)
{
    (void)state;
    enum { M = 256, N = SPLIT_N, K = SPLIT_K, LDA = SPLIT_LDA, LDB = SPLIT_LDB };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    const size_t a_bytes = ((size_t)(K - 1) * LDA + M) * 2, b_bytes = (size_t)K * N * 2;
    void *a = dev(&b, a_bytes), *bb = dev(&b, b_bytes), *y = dev(&b, (size_t)M * N * 2);
    const evt_tuning eight = {"sm80_64x64x32_w4_s4", 8, 0, 0, 0, 0};
    evt_launch *l = split_nt_launch(m, M, a, a_bytes, bb, b_bytes, y, &eight);
    fc.fakecuda_reset();
    fc.fakecuda_set_cluster_max(4); /* a cluster of eight does not fit */
    expect_ok(ctx, evt_launch_run(l, NULL));

    const long long tiles = ceil_div(M, 64) * ceil_div(N, 64);
    assert_string_equal(evt_launch_plan(l), "sm_90a sm80_64x64x32_w4_s4 fast grid 128 splits 8");
    size_t ws_bytes = 0;
    assert_int_equal(evt_launch_workspace_size(l, &ws_bytes), EVT_OK);
    assert_int_equal(ws_bytes, (size_t)tiles * 8 * 64 * 64 * 4);
    fakecuda_launch r[2];
    assert_int_equal(launches(r, 2), 2);
    const unsigned long long ws = one_alloc(ws_bytes);
    expect_main(&r[0], "evt_nt_gemm_sm80_64x64x32_w4_s4_splitk_sm90a", "sm80_64x64x32_w4_s4", tiles * 8,
                DEV_SM90, SC_SIZE);
    expect_main(&r[1], "evt_nt_gemm_sm80_64x64x32_w4_s4_splitsum_sm90a", "sm80_64x64x32_w4_s4", tiles,
                DEV_SM90, SC_SIZE);
    for (int i = 0; i < 2; i++) {
        const unsigned char *args = r[i].params[0];
        assert_int_equal(r[i].nparams, 4);
        assert_int_equal(fakecuda_i32_at(r[i].params[3], 0), 0); /* tile0: every tile */
        assert_int_equal(r[i].param_size[1], 8);
        assert_int_equal(r[i].param_size[2], 4);
        assert_int_equal((uintptr_t)fakecuda_ptr_at(r[i].params[1], 0), ws); /* the slots, at the start */
        assert_int_equal(fakecuda_i32_at(r[i].params[2], 0), 8);
        assert_ptr_equal(fakecuda_ptr_at(args, G_A), a);
        assert_ptr_equal(fakecuda_ptr_at(args, G_B), bb);
        assert_int_equal(fakecuda_i32_at(args, G_K), K);
        assert_int_equal(fakecuda_i64_at(args, G_LDA), LDA);
        assert_int_equal(fakecuda_i64_at(args, G_LDB), LDB);
        assert_true(fakecuda_f32_at(args, SC_SCALE) == 0.5f);
        assert_ptr_equal(fakecuda_ptr_at(args, SC_Y), y);
        assert_int_equal(fakecuda_i64_at(args, SC_LD_Y), N);
        assert_int_equal(fakecuda_i32_at(args, SC_M), M);
        assert_int_equal(fakecuda_i32_at(args, SC_N), N);
    }

    /* Where a cluster of eight fits (a fresh launch: it asks when it loads
     * the entry point), the 128 CTAs still run as _splitk and _splitsum:
     * in clusters (of 17-SM GPCs here, two CTAs an SM) they would reach
     * only 124 SMs, two CTAs on some, where alone each has an SM of its
     * own.  8 tiles (M = 128), 64 CTAs: one _splitk launch in clusters of
     * the eight shares, which sum in shared memory and run the epilogue;
     * the same workspace size (the partial tiles' room stays, for a device
     * without clusters). */
    evt_launch *lc = split_nt_launch(m, M, a, a_bytes, bb, b_bytes, y, &eight);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(lc, NULL));
    assert_string_equal(evt_launch_plan(lc), "sm_90a sm80_64x64x32_w4_s4 fast grid 128 splits 8");
    assert_int_equal(launches(r, 2), 2);
    assert_int_equal(r[0].cluster, 0);
    assert_int_equal(evt_launch_set_gemm(lc, 128, N, K, a, LDA, a_bytes, bb, LDB, b_bytes), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(lc, NULL));
    assert_string_equal(evt_launch_plan(lc), "sm_90a sm80_64x64x32_w4_s4 fast grid 64 splits 8 cluster-sum");
    assert_int_equal(launches(r, 2), 1);
    expect_main(&r[0], "evt_nt_gemm_sm80_64x64x32_w4_s4_splitk_sm90a", "sm80_64x64x32_w4_s4", 64, DEV_SM90,
                SC_SIZE);
    assert_int_equal(r[0].cluster, 8);
    assert_int_equal(fakecuda_i32_at(r[0].params[2], 0), 8);
    assert_int_equal(fakecuda_i32_at(r[0].params[0], SC_M), 128);
    size_t lc_bytes = 0;
    assert_int_equal(evt_launch_workspace_size(lc, &lc_bytes), EVT_OK);
    assert_int_equal(lc_bytes, (size_t)8 * 8 * 64 * 64 * 4);
    assert_int_equal(fc.fakecuda_violations(), 0);
    /* the cluster launch failing: the driver's error, named, and the next run runs */
    fc.fakecuda_reset();
    fc.fakecuda_fail("cuLaunchKernelEx", 1, 999);
    assert_int_equal(evt_launch_run(lc, NULL), EVT_ERR_DRIVER);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "cuLaunchKernelEx"));
    fc.fakecuda_fail(NULL, 0, 0);
    expect_ok(ctx, evt_launch_run(lc, NULL));
    assert_non_null(strstr(evt_launch_plan(lc), "cluster-sum"));
    evt_launch_destroy(lc);

    /* sm_80 has no clusters: the _splitk and _splitsum pair */
    assert_int_equal(fc.fakecuda_set_current(DEV_SM80), 0);
    lc = split_nt_launch(m, M, a, a_bytes, bb, b_bytes, y, &eight);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(lc, NULL));
    assert_string_equal(evt_launch_plan(lc), "sm_80 sm80_64x64x32_w4_s4 fast grid 128 splits 8");
    assert_int_equal(launches(r, 2), 2);
    expect_main(&r[0], "evt_nt_gemm_sm80_64x64x32_w4_s4_splitk_sm80", "sm80_64x64x32_w4_s4", 128, DEV_SM80,
                SC_SIZE);
    expect_main(&r[1], "evt_nt_gemm_sm80_64x64x32_w4_s4_splitsum_sm80", "sm80_64x64x32_w4_s4", 16, DEV_SM80,
                SC_SIZE);
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(r[i].cluster, 0);
    assert_int_equal(fc.fakecuda_violations(), 0);
    evt_launch_destroy(lc);
    assert_int_equal(fc.fakecuda_set_current(DEV_SM90), 0);

    /* split-K off: one plain launch, no workspace */
    const evt_tuning never = {.split_k = 1};
    assert_int_equal(evt_launch_set_tuning(l, &never), EVT_OK);
    assert_int_equal(evt_launch_workspace_size(l, &ws_bytes), EVT_OK);
    assert_int_equal(ws_bytes, 0);
    assert_int_equal(fc.fakecuda_violations(), 0);

    close_all(&b, l, m, ctx);
}

/* bf16, K-contiguous, 2048 x 2048 x 1000: the 128x256 wgmma tile without TMA,
 * one CTA per tile, its 193 KiB of shared memory opted into.  (K = 1000, not
 * whole k tiles: at K = 1024 a light epilogue takes the cooperative tile,
 * plan/sm90_gemm.c.) */
static void test_gemm_bf16_wgmma(void **state)
{
    (void)state;
    enum { M = 2048, N = 2048, K = 1000 };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    evt_launch *l = launch_of(m, "tnb");
    bufs b = {mem, {0}, 0};
    void *a = dev(&b, (size_t)M * K * 2), *bb = dev(&b, (size_t)N * K * 2), *y = dev(&b, (size_t)M * N * 2);
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, K, (size_t)M * K * 2, bb, K, (size_t)N * K * 2), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "y", y, (size_t)M * N * 2, N), EVT_OK);
    assert_int_equal(evt_launch_set_param(l, "scale", 0.25f), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));

    const long long tiles = ceil_div(M, 128) * ceil_div(N, 256);
    char want[128];
    snprintf(want, sizeof want, "sm_90a sm90_wg2_128x256x64_s4 fast grid %lld splits 1", tiles);
    assert_string_equal(evt_launch_plan(l), want);
    fakecuda_launch r[1];
    assert_int_equal(launches(r, 1), 1);
    assert_int_equal(fc.fakecuda_alloc_count(), 0);
    expect_main(&r[0], "evt_tnb_gemm_sm90_wg2_128x256x64_s4_sm90a", "sm90_wg2_128x256x64_s4", tiles, DEV_SM90,
                SC_SIZE);
    assert_true(fakecuda_f32_at(r[0].params[0], SC_SCALE) == 0.25f);
    assert_int_equal(fakecuda_i64_at(r[0].params[0], G_LDA), K);
    assert_int_equal(fc.fakecuda_tensor_map_count(), 0);
    assert_int_equal(fc.fakecuda_violations(), 0);

    close_all(&b, l, m, ctx);
}

/* On the sm_80 device: sm_80 cubins (the fake refuses any other), the
 * 128x256 mma.sync tile for 4096^3, and the ragged problem guarded; one
 * launch moved from the sm_90a device to the sm_80 one plans again. */
static void test_gemm_sm80(void **state)
{
    (void)state;
    enum { M = 4096, N = 4096, K = 4096, RM = 97, RN = 83, RK = 41 };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    evt_launch *l = launch_of(m, "tn"), *ragged = launch_of(m, "tn");
    bufs b = {mem, {0}, 0};
    void *a = dev(&b, (size_t)M * K * 2), *bb = dev(&b, (size_t)N * K * 2);
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, K, (size_t)M * K * 2, bb, K, (size_t)N * K * 2), EVT_OK);
    bind_full(l, &b, M, N, N);
    assert_int_equal(evt_launch_set_param(l, "beta", 1.0f), EVT_OK);
    assert_int_equal(evt_launch_set_gemm(ragged, RM, RN, RK, a, RK, (size_t)RM * RK * 2, bb, RK,
                                         (size_t)RN * RK * 2), EVT_OK);
    assert_int_equal(evt_launch_bind(ragged, "bias", b.p[2], RN * 2, 0), EVT_OK);
    assert_int_equal(evt_launch_bind(ragged, "res", b.p[3], RM * RN * 2, RN), EVT_OK);
    assert_int_equal(evt_launch_bind(ragged, "d", b.p[4], RM * RN * 2, RN), EVT_OK);
    assert_int_equal(evt_launch_bind(ragged, "amax", b.p[5], 4, 0), EVT_OK);
    assert_int_equal(evt_launch_bind(ragged, "rsum", b.p[6], RM * 4, 0), EVT_OK);
    assert_int_equal(evt_launch_set_param(ragged, "beta", 1.0f), EVT_OK);

    assert_int_equal(fc.fakecuda_set_current(DEV_SM80), 0);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    const long long tiles = ceil_div(M, 128) * ceil_div(N, 256);
    char want[128];
    snprintf(want, sizeof want, "sm_80 sm80_128x256x64_w8_s3 fast grid %lld splits 1", tiles);
    assert_string_equal(evt_launch_plan(l), want);
    fakecuda_launch r[3];
    assert_int_equal(launches(r, 3), 3);
    expect_main(&r[1], "evt_tn_gemm_sm80_128x256x64_w8_s3_sm80", "sm80_128x256x64_w8_s3", tiles, DEV_SM80,
                FULL_SIZE);
    assert_int_equal(fc.fakecuda_tensor_map_count(), 0);

    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(ragged, NULL));
    assert_string_equal(evt_launch_plan(ragged), "sm_80 sm80_64x64x32_w4_s4 guarded grid 4 splits 1");
    assert_int_equal(launches(r, 3), 3);
    expect_main(&r[1], "evt_tn_gemm_sm80_64x64x32_w4_s4_guarded_sm80", "sm80_64x64x32_w4_s4", 4, DEV_SM80,
                FULL_SIZE);

    /* back on the sm_90a device, the same launch plans for it again */
    assert_int_equal(fc.fakecuda_set_current(DEV_SM90), 0);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(ragged, NULL));
    assert_string_equal(evt_launch_plan(ragged), "sm_90a sm80_64x64x32_w4_s4 guarded grid 4 splits 1");
    assert_int_equal(launches(r, 3), 3);
    assert_string_equal(r[1].function, "evt_tn_gemm_sm80_64x64x32_w4_s4_guarded_sm90a");
    assert_int_equal(r[1].device, DEV_SM90);
    assert_int_equal(fc.fakecuda_violations(), 0);

    free_bufs(&b);
    evt_launch_destroy(l);
    evt_launch_destroy(ragged);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

/* ---- convs --------------------------------------------------------------- */

typedef struct conv_case {
    evt_conv_problem prob;
    long long p, q;   /* the output's height and width */
    int device;
    const char *plan; /* evt_launch_plan, less the grid */
    const char *entry;
    const char *config;
    const char *force; /* evt_tuning.config, or NULL: the heuristic's */
} conv_case;

/*
 * Runs conv case c: the plan, the main launch (persistent configurations:
 * a CTA per SM), the packed problem and epilogue, and for TMA the im2col
 * map of x ((c, w, h, n), the box from minus the padding to the padding
 * less the dilated filter, stepping by the strides), the filter's tiled
 * map ((r s c, k)) and, when staged, the residual's ((n, m), unswizzled).
 */
/* The buffers of a bound conv launch (bound_conv). */
typedef struct conv_bufs {
    void *x, *w, *bias, *res, *y;
} conv_bufs;

/* A launch of kernel "conv" on problem p (its output p x q), every
 * argument bound; the buffers in *b, their addresses in *cb. */
static evt_launch *bound_conv(evt_module *m, bufs *b, const evt_conv_problem *p, long long out_p, long long out_q,
                              conv_bufs *cb)
{
    const long long M = p->n * out_p * out_q, N = p->k, RSC = p->r * p->s * p->c;
    const size_t x_bytes = (size_t)(p->n * p->h * p->w * p->c) * 2, w_bytes = (size_t)(N * RSC) * 2;
    const size_t mn = (size_t)(M * N) * 2;
    evt_launch *l = launch_of(m, "conv");
    cb->x = dev(b, x_bytes);
    cb->w = dev(b, w_bytes);
    cb->bias = dev(b, (size_t)N * 2);
    cb->res = dev(b, mn);
    cb->y = dev(b, mn);
    assert_int_equal(evt_launch_set_conv(l, p, cb->x, x_bytes, cb->w, w_bytes), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "bias", cb->bias, (size_t)N * 2, 0), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "res", cb->res, mn, N), EVT_OK);
    assert_int_equal(evt_launch_bind(l, "y", cb->y, mn, N), EVT_OK);
    return l;
}

static void run_conv(const conv_case *c)
{
    const evt_conv_problem *p = &c->prob;
    const long long M = p->n * c->p * c->q, N = p->k, RSC = p->r * p->s * p->c;
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    conv_bufs cb;
    evt_launch *l = bound_conv(m, &b, p, c->p, c->q, &cb);
    void *x = cb.x, *w = cb.w, *bias = cb.bias, *res = cb.res, *y = cb.y;
    if (c->force) {
        const evt_tuning forced = {.config = c->force};
        assert_int_equal(evt_launch_set_tuning(l, &forced), EVT_OK);
    }
    assert_int_equal(fc.fakecuda_set_current(c->device), 0);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));

    const plan_config *cfg = plan_config_find(c->config);
    const long long tiles = ceil_div(M, cfg->bm) * ceil_div(N, cfg->bn);
    const long long slots = (long long)(c->device == DEV_SM90 ? SMS_SM90 : SMS_SM80) * cfg->min_blocks;
    long long grid = plan_config_persistent(cfg) && tiles > slots ? slots : tiles;
    if (cfg->cluster > 1) { /* whole clusters, a stack of M tiles each, as many as can be resident */
        const long long stacks = ceil_div(ceil_div(M, cfg->bm), cfg->cluster) * ceil_div(N, cfg->bn);
        const long long resident = cfg->cluster == 2 ? CL2_RESIDENT_SM90 : CL4_RESIDENT_SM90;
        grid = cfg->cluster * (stacks < resident ? stacks : resident);
    }
    char want[160];
    snprintf(want, sizeof want, "%s grid %lld splits 1", c->plan, grid);
    assert_string_equal(evt_launch_plan(l), want);
    fakecuda_launch r[1];
    assert_int_equal(launches(r, 1), 1);
    assert_int_equal(fc.fakecuda_alloc_count(), 0);
    expect_main(&r[0], c->entry, c->config, grid, c->device, RES_SIZE);

    const unsigned char *args = r[0].params[0];
    assert_ptr_equal(fakecuda_ptr_at(args, C_X), x);
    assert_ptr_equal(fakecuda_ptr_at(args, C_W), w);
    const long long sizes[15] = {p->n, p->h, p->w, p->c, p->k, p->r, p->s, c->p, c->q,
                                 p->pad_h, p->pad_w, p->stride_h, p->stride_w, p->dil_h, p->dil_w};
    for (int i = 0; i < 15; i++)
        assert_int_equal(fakecuda_i32_at(args, C_SIZES + 4 * (size_t)i), sizes[i]);
    assert_ptr_equal(fakecuda_ptr_at(args, RES_BIAS), bias);
    assert_ptr_equal(fakecuda_ptr_at(args, RES_RES), res);
    assert_int_equal(fakecuda_i64_at(args, RES_LD_RES), N);
    assert_ptr_equal(fakecuda_ptr_at(args, RES_Y), y);
    assert_int_equal(fakecuda_i64_at(args, RES_LD_Y), N);
    assert_int_equal(fakecuda_i32_at(args, RES_M), M);
    assert_int_equal(fakecuda_i32_at(args, RES_N), N);

    if (strstr(c->plan, " tma")) {
        assert_int_equal(r[0].nparams, 4);
        expect_tile_end(&r[0], 2, -1);
        fakecuda_tensor_map t;
        const long xi = fc.fakecuda_tensor_map_of(r[0].params[1]);
        assert_true(xi >= 0);
        assert_int_equal(fc.fakecuda_get_tensor_map((size_t)xi, &t), 0);
        assert_int_equal(t.im2col, 1);
        assert_int_equal(t.result, 0);
        assert_int_equal(t.dtype, TMAP_F16);
        assert_int_equal(t.rank, 4);
        assert_ptr_equal(t.address, x);
        const unsigned long long dims[4] = {(unsigned long long)p->c, (unsigned long long)p->w,
                                            (unsigned long long)p->h, (unsigned long long)p->n};
        for (int i = 0; i < 4; i++)
            assert_int_equal(t.dims[i], dims[i]);
        assert_int_equal(t.strides[0], dims[0] * 2);
        assert_int_equal(t.strides[1], dims[0] * dims[1] * 2);
        assert_int_equal(t.strides[2], dims[0] * dims[1] * dims[2] * 2);
        assert_int_equal(t.lower[0], -p->pad_w);
        assert_int_equal(t.lower[1], -p->pad_h);
        assert_int_equal(t.upper[0], p->pad_w - (p->s - 1) * p->dil_w);
        assert_int_equal(t.upper[1], p->pad_h - (p->r - 1) * p->dil_h);
        assert_int_equal(t.channels, cfg->bk);
        assert_int_equal(t.pixels, cfg->bm);
        assert_int_equal(t.elem_strides[0], 1);
        assert_int_equal(t.elem_strides[1], p->stride_w);
        assert_int_equal(t.elem_strides[2], p->stride_h);
        assert_int_equal(t.elem_strides[3], 1);
        /* a k tile's row of 64 channels is 128 bytes, of 32 channels 64 */
        const int swizzle = cfg->bk == 32 ? SWIZZLE_64B : SWIZZLE_128B;
        assert_int_equal(t.swizzle, swizzle);
        assert_int_equal(t.l2_promotion, L2_128B);
        /* the filter as (c, r s, k): a box never reaches past its tap's c */
        const long wi = fc.fakecuda_tensor_map_of(r[0].params[1] + 128);
        assert_true(wi >= 0);
        assert_int_equal(fc.fakecuda_get_tensor_map((size_t)wi, &t), 0);
        assert_int_equal(t.result, 0);
        assert_int_equal(t.im2col, 0);
        assert_int_equal(t.dtype, TMAP_F16);
        assert_int_equal(t.rank, 3);
        assert_ptr_equal(t.address, w);
        assert_int_equal(t.dims[0], p->c);
        assert_int_equal(t.dims[1], p->r * p->s);
        assert_int_equal(t.dims[2], N);
        assert_int_equal(t.strides[0], p->c * 2);
        assert_int_equal(t.strides[1], RSC * 2);
        assert_int_equal(t.box[0], cfg->bk);
        assert_int_equal(t.box[1], 1);
        /* under clusters each CTA loads its share of the filters, multicast */
        assert_int_equal(t.box[2], cfg->bn / cfg->cluster);
        for (int i = 0; i < 3; i++)
            assert_int_equal(t.elem_strides[i], 1);
        assert_int_equal(t.interleave, 0);
        assert_int_equal(t.swizzle, swizzle);
        assert_int_equal(t.l2_promotion, L2_128B);
        assert_int_equal(t.oob_fill, 0);
        if (cfg->staged)
            expect_tiled(fc.fakecuda_tensor_map_of(r[0].params[1] + 256), TMAP_F16, res, N, M, N, cfg->bn, cfg->bm,
                         SWIZZLE_NONE);
        else
            assert_int_equal(fc.fakecuda_tensor_map_of(r[0].params[1] + 256), -1);
        assert_int_equal(fc.fakecuda_tensor_map_count(), cfg->staged ? 3 : 2);
    } else {
        assert_int_equal(fc.fakecuda_tensor_map_count(), 0);
    }
    assert_int_equal(fc.fakecuda_violations(), 0);
    close_all(&b, l, m, ctx);
}

/* 3x3, stride 1, c = 64: K = 576 > 128 and c a multiple of 64, the
 * producer/consumer tile with im2col TMA.  The width dilated by 2 and
 * padded by 2, the height not, so that a swapped pair shows. */
static void test_conv_3x3_s1_sm90(void **state)
{
    (void)state;
    const conv_case c = {{8, 56, 56, 64, 256, 3, 3, 1, 2, 1, 1, 1, 2}, 56, 56, DEV_SM90,
                         "sm_90a sm90_pp2_128x128x64_s4 fast tma",
                         "evt_conv_conv2d_fprop_sm90_pp2_128x128x64_s4_sm90a", "sm90_pp2_128x128x64_s4", NULL};
    run_conv(&c);
}

/* Stride 2 down the height, 1 across the width (unpadded): the same tile,
 * the im2col box stepping two rows. */
static void test_conv_3x3_s2_sm90(void **state)
{
    (void)state;
    const conv_case c = {{32, 56, 56, 64, 256, 3, 3, 1, 0, 2, 1, 1, 1}, 28, 54, DEV_SM90,
                         "sm_90a sm90_pp2_128x128x64_s4 fast tma",
                         "evt_conv_conv2d_fprop_sm90_pp2_128x128x64_s4_sm90a", "sm90_pp2_128x128x64_s4", NULL};
    run_conv(&c);
}

/* c = 200, not a multiple of 64, the producer/consumer tile forced: TMA,
 * each tap's fourth k tile zero-filled past c (56 of 256 channels). */
static void test_conv_3x3_c200_sm90(void **state)
{
    (void)state;
    const conv_case c = {{32, 28, 28, 200, 200, 3, 3, 1, 1, 1, 1, 1, 1}, 28, 28, DEV_SM90,
                         "sm_90a sm90_pp2_128x128x64_s4 fast tma",
                         "evt_conv_conv2d_fprop_sm90_pp2_128x128x64_s4_sm90a", "sm90_pp2_128x128x64_s4",
                         "sm90_pp2_128x128x64_s4"};
    run_conv(&c);
}

/* c = 32, which k tiles of 64 cannot map: the heuristic's 128x128 tile
 * in k tiles of 32 channels (session 76), its maps' boxes 32 channels
 * wide and swizzled in 64 bytes. */
static void test_conv_3x3_c32_sm90(void **state)
{
    (void)state;
    const conv_case c = {{16, 56, 56, 32, 128, 3, 3, 1, 1, 1, 1, 1, 1}, 56, 56, DEV_SM90,
                         "sm_90a sm90_pp2_128x128x32_s8 fast tma",
                         "evt_conv_conv2d_fprop_sm90_pp2_128x128x32_s8_sm90a", "sm90_pp2_128x128x32_s8", NULL};
    run_conv(&c);
}

/* Exactly 160 filters over 3x3 taps at unit stride (session 78): the
 * cooperative 128x160 tile, c = 160's taps ending in a zero-filled k
 * tile; the same output at stride 2 keeps the 192x128 tile, so the
 * launch hands the planner the conv's stride, and so do 1x9 taps (K = 9c
 * too), so it hands over the taps. */
static void test_conv_160_filters_sm90(void **state)
{
    (void)state;
    const conv_case c = {{32, 17, 17, 160, 160, 3, 3, 1, 1, 1, 1, 1, 1}, 17, 17, DEV_SM90,
                         "sm_90a sm90_coop2_128x160x64_s4 fast tma",
                         "evt_conv_conv2d_fprop_sm90_coop2_128x160x64_s4_sm90a", "sm90_coop2_128x160x64_s4", NULL};
    run_conv(&c);
    const conv_case s2 = {{32, 33, 33, 160, 160, 3, 3, 1, 1, 2, 2, 1, 1}, 17, 17, DEV_SM90,
                          "sm_90a sm90_wg3_192x128x64_s4 fast",
                          "evt_conv_conv2d_fprop_sm90_wg3_192x128x64_s4_sm90a", "sm90_wg3_192x128x64_s4", NULL};
    run_conv(&s2);
    const conv_case t19 = {{32, 17, 17, 160, 160, 1, 9, 0, 4, 1, 1, 1, 1}, 17, 17, DEV_SM90,
                           "sm_90a sm90_wg3_192x128x64_s4 fast",
                           "evt_conv_conv2d_fprop_sm90_wg3_192x128x64_s4_sm90a", "sm90_wg3_192x128x64_s4", NULL};
    run_conv(&t19);
}

/* Convs in clusters of two and four (sessions 79-80), forced: whole
 * clusters, a stack of two or four M tiles each (196 M tiles: 98 stacks
 * of two, 62 of them resident at once; 49 of four, 31 resident), each
 * CTA's filter map box its share of the tile's filters; c = 184's taps
 * end in a zero-filled k tile. */
static void test_conv_clusters_sm90(void **state)
{
    (void)state;
    static const char *const configs[] = {"sm90_pp2_cl2_128x128x64_s4", "sm90_coop2_cl2_128x160x64_s4",
                                          "sm90_coop2_cl2_128x192x64_s4", "sm90_pp2_cl4_128x128x64_s4",
                                          "sm90_coop2_cl4_128x160x64_s4", "sm90_coop2_cl4_128x192x64_s4"};
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        char plan_s[96], entry[128];
        snprintf(plan_s, sizeof plan_s, "sm_90a %s fast tma", configs[i]);
        snprintf(entry, sizeof entry, "evt_conv_conv2d_fprop_%s_sm90a", configs[i]);
        const conv_case c = {{32, 28, 28, 184, 128, 3, 3, 1, 1, 1, 1, 1, 1}, 28, 28, DEV_SM90, plan_s, entry,
                             configs[i], configs[i]};
        run_conv(&c);
    }
}

/* Channels an odd multiple of 8 under maps (sessions 80-81): the 128x128
 * ping-pong pick in clusters of two, each CTA's filter map box half the
 * tile's filters, where its stacks of four would take a round more (96
 * tiles: 32 stacks of four, 48 of two); in clusters of four, a quarter
 * each, past two waves of tiles (679) or in as many rounds (196 tiles);
 * 192 channels, and 184 under half a wave of tiles (44), keep the
 * unclustered tile. */
static void test_conv_odd8_clusters_sm90(void **state)
{
    (void)state;
#define PICK(cfg) "sm_90a " #cfg " fast tma", "evt_conv_conv2d_fprop_" #cfg "_sm90a", #cfg, NULL
    static const conv_case cases[] = {
        {{6, 22, 22, 744, 1960, 7, 7, 3, 3, 2, 2, 1, 1}, 11, 11, DEV_SM90, PICK(sm90_pp2_cl2_128x128x64_s4)},
        {{32, 28, 28, 184, 128, 3, 3, 1, 1, 1, 1, 1, 1}, 28, 28, DEV_SM90, PICK(sm90_pp2_cl4_128x128x64_s4)},
        {{32, 28, 28, 192, 128, 3, 3, 1, 1, 1, 1, 1, 1}, 28, 28, DEV_SM90, PICK(sm90_pp2_128x128x64_s4)},
        {{1, 52, 52, 184, 200, 3, 3, 1, 1, 1, 1, 1, 1}, 52, 52, DEV_SM90, PICK(sm90_pp2_128x128x64_s4)},
        {{9, 37, 37, 216, 840, 3, 3, 1, 1, 1, 1, 1, 1}, 37, 37, DEV_SM90, PICK(sm90_pp2_cl4_128x128x64_s4)},
    };
#undef PICK
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_conv(&cases[i]);
}

/* The odd-8 rule weighs the clusters the device holds, asked of the
 * driver once a context with a probe of its own: on a device whose GPCs
 * take no cluster of four (cluster size 2 at most, as a smaller GPC or a
 * slice has it), the layers the H100's counts put in fours (196 tiles in
 * as many rounds, 679 past two waves) run in pairs, and the second launch
 * on the context loads no probe again (one module: the kernel's). */
static void test_conv_odd8_resident_sm90(void **state)
{
    (void)state;
    static const evt_conv_problem probs[] = {{32, 28, 28, 184, 128, 3, 3, 1, 1, 1, 1, 1, 1},
                                             {9, 37, 37, 216, 840, 3, 3, 1, 1, 1, 1, 1, 1}};
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    assert_int_equal(fc.fakecuda_set_current(DEV_SM90), 0);
    fc.fakecuda_reset();
    fc.fakecuda_set_cluster_max(2);
    evt_launch *l[2];
    for (int i = 0; i < 2; i++) {
        conv_bufs cb;
        const long long pq = probs[i].h;
        l[i] = bound_conv(m, &b, &probs[i], pq, pq, &cb);
        expect_ok(ctx, evt_launch_run(l[i], NULL));
        char want[96]; /* both have more stacks of two than fit: every resident pair */
        snprintf(want, sizeof want, "sm_90a sm90_pp2_cl2_128x128x64_s4 fast tma grid %d splits 1",
                 2 * CL2_RESIDENT_SM90);
        assert_string_equal(evt_launch_plan(l[i]), want);
        assert_int_equal(fc.fakecuda_calls("cuModuleLoadData"), 2); /* the probe, the kernel */
    }
    assert_int_equal(fc.fakecuda_live_modules(), 1);
    assert_int_equal(fc.fakecuda_violations(), 0);
    fc.fakecuda_reset();
    free_bufs(&b);
    for (int i = 0; i < 2; i++)
        evt_launch_destroy(l[i]);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

/* Stream-K on a conv (session 77): the cooperative 128x192 tile forced
 * with it at c = 200, whose TMA loads walk each of the nine taps in four k
 * tiles of 64 (the last zero-filled past 200): 49 x 2 tiles, fewer than the
 * SMs, all of their 98 x 36 k tiles shared by 132 CTAs, the flags and slots
 * in a workspace of their own (the epilogue reduces nothing). */
static void test_conv_stream_k_sm90(void **state)
{
    (void)state;
    const evt_conv_problem p = {8, 28, 28, 200, 384, 3, 3, 1, 1, 1, 1, 1, 1};
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    conv_bufs cb;
    assert_int_equal(fc.fakecuda_set_current(DEV_SM90), 0);
    evt_launch *l = bound_conv(m, &b, &p, 28, 28, &cb);
    const evt_tuning sk = {.config = "sm90_coop2_128x192x64_s4", .stream_k = 2};
    run_tuned(ctx, l, &sk);
    assert_string_equal(evt_launch_plan(l), "sm_90a sm90_coop2_128x192x64_s4 fast tma grid 132 splits 1 "
                                            "stream-K 98 tiles");
    fakecuda_launch r[2];
    assert_int_equal(launches(r, 2), 1);
    expect_main(&r[0], "evt_conv_conv2d_fprop_sm90_coop2_128x192x64_s4_sm90a", "sm90_coop2_128x192x64_s4", 132,
                DEV_SM90, RES_SIZE);
    const size_t slots_at = 132 * 128, bytes = slots_at + (size_t)132 * 128 * 192 * 4;
    const unsigned long long ws = one_alloc(bytes);
    expect_stream_k(&r[0], ws, ws + slots_at, 98 * 36, 0);
    assert_int_equal(fc.fakecuda_calls("cuMemsetD32Async"), 1);
    /* the guarded path (x one byte off 16-byte alignment) walks K = 1800 flat: 29 k tiles a tile */
    const size_t x_bytes = (size_t)(8 * 28 * 28 * 200) * 2;
    void *x = dev(&b, x_bytes + 16);
    const size_t w_bytes = (size_t)(p.k * p.r * p.s * p.c) * 2;
    assert_int_equal(evt_launch_set_conv(l, &p, (char *)x + 2, x_bytes, cb.w, w_bytes), EVT_OK);
    run_tuned(ctx, l, &sk);
    assert_string_equal(evt_launch_plan(l), "sm_90a sm90_coop2_128x192x64_s4 guarded grid 132 splits 1 "
                                            "stream-K 98 tiles");
    assert_int_equal(launches(r, 2), 1);
    assert_int_equal(fakecuda_i64_at(r[0].params[2], 16), 98 * 29);
    fc.fakecuda_reset();
    close_all(&b, l, m, ctx);
}

/* c = 72: 56 of a tap's 128 loaded channels would be zeros: a wgmma
 * tile over cp.async stages, which walks K flat, no maps. */
static void test_conv_3x3_c72_sm90(void **state)
{
    (void)state;
    const conv_case c = {{32, 28, 28, 72, 256, 3, 3, 1, 1, 1, 1, 1, 1}, 28, 28, DEV_SM90,
                         "sm_90a sm90_wg3_192x256x64_s4 fast",
                         "evt_conv_conv2d_fprop_sm90_wg3_192x256x64_s4_sm90a", "sm90_wg3_192x256x64_s4", NULL};
    run_conv(&c);
}

/* 1x1 with K = 64 and many tiles: the staged producer/consumer tile, the
 * residual loaded by its own TMA map. */
static void test_conv_1x1_staged_sm90(void **state)
{
    (void)state;
    const conv_case c = {{32, 56, 56, 64, 256, 1, 1, 0, 0, 1, 1, 1, 1}, 56, 56, DEV_SM90,
                         "sm_90a sm90_pp2_128x128x64_s2_staged fast tma",
                         "evt_conv_conv2d_fprop_sm90_pp2_128x128x64_s2_staged_sm90a",
                         "sm90_pp2_128x128x64_s2_staged", NULL};
    run_conv(&c);
}

/* On sm_80: the mma.sync 128x128 tile, a CTA per tile, 96 KiB opted into. */
static void test_conv_3x3_sm80(void **state)
{
    (void)state;
    const conv_case c = {{8, 56, 56, 64, 256, 3, 3, 1, 1, 1, 1, 1, 1}, 56, 56, DEV_SM80,
                         "sm_80 sm80_128x128x64_w4_s3 fast", "evt_conv_conv2d_fprop_sm80_128x128x64_w4_s3_sm80",
                         "sm80_128x128x64_w4_s3", NULL};
    run_conv(&c);
}

/* ---- benchmarking, device memory, capture --------------------------------- */

/* A ragged `tn` launch, every argument bound, on ctx; the buffers in *b. */
/* A launch of kernel "tn" on an M x N x K problem of dense operands, its
 * `full` epilogue bound (bind_full) and beta set. */
static evt_launch *dense_tn(evt_module *m, bufs *b, long long M, long long N, long long K)
{
    evt_launch *l = launch_of(m, "tn");
    const size_t a_bytes = (size_t)(M * K * 2), b_bytes = (size_t)(N * K * 2);
    void *a = dev(b, a_bytes), *bb = dev(b, b_bytes);
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, K, a_bytes, bb, K, b_bytes), EVT_OK);
    bind_full(l, b, M, N, N);
    assert_int_equal(evt_launch_set_param(l, "beta", 0.5f), EVT_OK);
    return l;
}

/* A context that compiles with the fake's NVRTC (tests/fakecuda/fakenvrtc.c),
 * as the tuning tests do. */
static evt_ctx *new_fake_nvrtc_ctx(void)
{
    evt_ctx *ctx = new_ctx();
    assert_int_equal(evt_ctx_set_library_path(ctx, EVT_LIBRARY_NVRTC, EVT_FAKECUDA), EVT_OK);
    return ctx;
}

static evt_launch *ragged_tn(evt_module *m, bufs *b)
{
    return dense_tn(m, b, 97, 83, 41);
}

/* NVRTC's own failures, told apart: its out-of-memory is the caller's
 * EVT_ERR_NO_MEMORY (memory may come back: the run made again succeeds),
 * a compile error EVT_ERR_COMPILE; both say which kernel and target.
 * Until session 92 both were EVT_ERR_COMPILE. */
/* The device's name keys the tuning database: a run whose cuDeviceGetName
 * fails is a driver error, not a run keyed by an empty name (whose records
 * no later run of that GPU would find).  Until session 92 it ran so. */
static void test_device_name_failing(void **state)
{
    (void)state;
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    evt_launch *l = ragged_tn(m, &b);
    fc.fakecuda_reset();
    fc.fakecuda_fail("cuDeviceGetName", 1, 999);
    assert_int_equal(evt_launch_run(l, NULL), EVT_ERR_DRIVER);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "cuDeviceGetName"));
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL)); /* asked again */
    assert_int_equal(fc.fakecuda_calls("cuDeviceGetName"), 1);
    close_all(&b, l, m, ctx);
}

static void test_nvrtc_failures_told_apart(void **state)
{
    (void)state;
    setenv("EVT_DISABLE_CACHE", "1", 1); /* every first run below compiles */
    static const struct {
        const char *call;
        int result; /* nvrtcResult */
        evt_status want;
        const char *says;
    } cases[] = {
        {"nvrtcCompileProgram", 1, EVT_ERR_NO_MEMORY, "out of memory compiling kernel 'tn' for sm_90a"},
        {"nvrtcCreateProgram", 1, EVT_ERR_NO_MEMORY, "out of memory compiling kernel 'tn' for sm_90a"},
        {"nvrtcCompileProgram", 6, EVT_ERR_COMPILE, "NVRTC failed to compile kernel 'tn' for sm_90a"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* a context of its own: no kernel loaded yet */
        evt_ctx *ctx = new_fake_nvrtc_ctx();
        evt_module *m = parse(ctx);
        bufs b = {mem, {0}, 0};
        evt_launch *l = ragged_tn(m, &b);
        fc.fakecuda_reset();
        fc.fakecuda_fail(cases[i].call, 1, cases[i].result);
        const evt_status st = evt_launch_run(l, NULL);
        const int failed = fc.fakecuda_failed_call() != NULL;
        fc.fakecuda_reset();
        assert_true(failed);
        assert_int_equal(st, cases[i].want);
        if (!strstr(evt_ctx_last_error(ctx), cases[i].says))
            fail_msg("%s failing with %d: '%s', want '%s'", cases[i].call, cases[i].result,
                     evt_ctx_last_error(ctx), cases[i].says);
        expect_ok(ctx, evt_launch_run(l, NULL)); /* nothing kept of the failure */
        close_all(&b, l, m, ctx);
    }
    unsetenv("EVT_DISABLE_CACHE");
}

/* The median of the runs between events, each run its launches' time on
 * the fake clock; the warm-up runs outside it. */
static void test_benchmark_median(void **state)
{
    (void)state;
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    evt_launch *l = ragged_tn(m, &b);
    expect_ok(ctx, evt_launch_run(l, NULL)); /* loaded before the clock starts */
    /* a run is 3 launches (init, main, finish): a warm-up run, then 4 timed */
    const float ms[] = {9, 9, 9, 1, 1, 1, 3, 3, 3, 2, 2, 2, 100, 100, 100};
    fc.fakecuda_set_launch_ms(ms, sizeof ms / sizeof ms[0]);
    double median = -1;
    expect_ok(ctx, evt_launch_benchmark(l, NULL, 1, 4, &median));
    assert_true(median == 7.5); /* of 3, 9, 6, 300 */
    assert_int_equal(fc.fakecuda_live_events(), 0);
    fc.fakecuda_set_launch_ms(ms, sizeof ms / sizeof ms[0]);
    expect_ok(ctx, evt_launch_benchmark(l, NULL, 0, 3, &median)); /* one untimed run all the same */
    assert_true(median == 6.0); /* of 3, 9, 6 */
    assert_int_equal(fc.fakecuda_live_events(), 0);
    assert_int_equal(evt_launch_benchmark(l, NULL, 0, 0, &median), EVT_ERR_INVALID_ARGUMENT);
    /* each refusal says what was given */
    assert_int_equal(evt_launch_benchmark(l, NULL, -2, 5, &median), EVT_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "warmup 0 or more, not reps 5, warmup -2"));
    assert_int_equal(evt_launch_benchmark(l, NULL, 1, 3, NULL), EVT_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "median_ms is NULL"));
    assert_int_equal(fc.fakecuda_violations(), 0);
    close_all(&b, l, m, ctx);
}

/* A dry-run tuning of l (every plan launched once on the fake clock): at
 * least min_candidates plans, under tune.c's cap of twice
 * EVT_TUNE_MAX_ENTRIES, every one timed and the first
 * EVT_TUNE_MAX_ENTRIES listed. */
static evt_tune_result tune_listing(evt_ctx *ctx, evt_launch *l, int min_candidates, const char *what)
{
    const float ms[] = {0.9f, 1.3f, 0.2f, 0.7f};
    fc.fakecuda_set_launch_ms(ms, sizeof ms / sizeof ms[0]);
    evt_tune_result r;
    const evt_tune_options o = {.max_seconds = 600, .threads = 2, .reps = 1, .dry_run = 1};
    expect_ok(ctx, evt_launch_tune(l, NULL, &o, &r));
    if (r.candidates >= 2 * EVT_TUNE_MAX_ENTRIES)
        fail_msg("%s: %d candidates, the cap is %d", what, r.candidates, 2 * (int)EVT_TUNE_MAX_ENTRIES);
    assert_true(r.candidates >= min_candidates);
    assert_int_equal(r.timed, r.candidates);
    assert_int_equal(r.nentries, r.candidates < EVT_TUNE_MAX_ENTRIES ? r.candidates : EVT_TUNE_MAX_ENTRIES);
    return r;
}

/* Whether configuration `config` is among the plans r lists. */
static int tuned(const evt_tune_result *r, const char *config)
{
    for (int j = 0; j < r->nentries; j++)
        if (strcmp(r->entries[j].config, config) == 0)
            return 1;
    return 0;
}

/* The tuner's candidate list is capped at twice EVT_TUNE_MAX_ENTRIES plans
 * (api/tune.c), of which evt_tune_result lists the first
 * EVT_TUNE_MAX_ENTRIES (a fixed array); on shapes with many candidates,
 * where every configuration is split or has its tail split 2 to 8 ways,
 * the list stays under the cap, so no plan is dropped, and every plan is
 * timed.  A new tile row that pushes it over fails here, not silently in a
 * tuning. */
static void test_tune_candidates_fit(void **state)
{
    (void)state;
    static const long long shapes[][3] = {{1000, 1000, 4104}, {64, 1024, 4096}, {300, 304, 8192}, {16, 768, 768},
                                          {300, 200, 136}, {4096, 4096, 1024}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const long long M = shapes[i][0], N = shapes[i][1], K = shapes[i][2];
        evt_ctx *ctx = new_ctx();
        assert_int_equal(evt_ctx_set_library_path(ctx, EVT_LIBRARY_NVRTC, EVT_FAKECUDA), EVT_OK);
        evt_module *m = parse(ctx);
        bufs b = {mem, {0}, 0};
        evt_launch *l = dense_tn(m, &b, M, N, K);
        char what[64];
        snprintf(what, sizeof what, "%lldx%lldx%lld", M, N, K);
        const evt_tune_result r = tune_listing(ctx, l, 20, what); /* every family, split */
        /* tests/gpu/tune.c's fast-path problem lists every plan it times */
        if (M == 300 && N == 200)
            assert_true(r.candidates <= EVT_TUNE_MAX_ENTRIES);
        /* the 64-row ping-pong tile where its tiles are two waves of SMs or
         * fewer (all but 4096 x 4096: 2048 of them), not past that */
        if (r.candidates <= EVT_TUNE_MAX_ENTRIES)
            assert_int_equal(tuned(&r, "sm90_pp2_64x128x64_s8"), M < 4096);
        free_bufs(&b);
        evt_launch_destroy(l);
        evt_module_destroy(m);
        evt_ctx_destroy(ctx);
    }
}

/* The same for convs on sm_90a: every family and split under the cap, all
 * timed; at c = 32 (maps in k tiles of 32 only) the heuristic's plan the
 * 128x128 producer/consumer row in such k tiles, and both such rows among
 * the plans timed. */
static void test_tune_conv_candidates_fit(void **state)
{
    (void)state;
    static const evt_conv_problem probs[] = {{2, 9, 9, 64, 40, 3, 3, 1, 1, 1, 1, 1, 1},
                                             {16, 56, 56, 32, 128, 3, 3, 1, 1, 1, 1, 1, 1},
                                             {8, 28, 28, 96, 24, 1, 1, 0, 0, 1, 1, 1, 1},
                                             {64, 14, 14, 256, 256, 3, 3, 1, 1, 1, 1, 1, 1}};
    for (size_t i = 0; i < sizeof probs / sizeof probs[0]; i++) {
        const evt_conv_problem *p = &probs[i];
        long long out_p, out_q;
        assert_int_equal(evt_conv_output_size(p, &out_p, &out_q), EVT_OK);
        evt_ctx *ctx = new_ctx();
        assert_int_equal(evt_ctx_set_library_path(ctx, EVT_LIBRARY_NVRTC, EVT_FAKECUDA), EVT_OK);
        evt_module *m = parse(ctx);
        bufs b = {mem, {0}, 0};
        conv_bufs cb;
        assert_int_equal(fc.fakecuda_set_current(DEV_SM90), 0);
        evt_launch *l = bound_conv(m, &b, p, out_p, out_q, &cb);
        char what[64];
        snprintf(what, sizeof what, "conv %lldx%lldx%lldx%lld -> %lld", p->n, p->h, p->w, p->c, p->k);
        const evt_tune_result r = tune_listing(ctx, l, 10, what);
        if (p->c == 32) {
            assert_true(tuned(&r, "sm90_pp2_128x128x32_s8") && tuned(&r, "sm90_pp2_128x64x32_s12"));
            assert_string_equal(r.heuristic.config, "sm90_pp2_128x128x32_s8");
        }
        fc.fakecuda_reset();
        free_bufs(&b);
        evt_launch_destroy(l);
        evt_module_destroy(m);
        evt_ctx_destroy(ctx);
    }
}

/* Tuning's samples from CUDA graph replays (api/launch.c,
 * launch_time_replayed): each plan's runs are captured once, instantiated,
 * replayed once outside the timing and then once a sample, on a stream of
 * the library's own, and every graph, stream and event is released; the
 * time of a run is the replay's over the runs in it.  A replay that fails
 * leaves that plan to run-by-run samples, with no error for the caller;
 * with no graphs (the fake's default, as the other tuning tests run) no
 * graph is launched at all. */
static void test_tune_replays_graphs(void **state)
{
    (void)state;
    evt_ctx *ctx = new_fake_nvrtc_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    evt_launch *l = ragged_tn(m, &b);
    expect_ok(ctx, evt_launch_run(l, NULL));
    const long events = fc.fakecuda_live_events();
    evt_tune_result replayed;
    for (int round = 0; round < 3; round++) {
        fc.fakecuda_reset();
        fc.fakecuda_set_graphs(round < 2);
        if (round == 1)
            fc.fakecuda_fail("cuGraphLaunch", 1, 999);
        /* (short enough that a sample replays several runs) */
        const float ms[] = {0.01f};
        fc.fakecuda_set_launch_ms(ms, 1);
        evt_tune_result r;
        const evt_tune_options o = {.max_seconds = 60, .threads = 2, .reps = 3};
        expect_ok(ctx, evt_launch_tune(l, NULL, &o, &r));
        assert_string_equal(evt_ctx_last_error(ctx), "");
        assert_true(r.candidates >= 4);
        assert_int_equal(r.timed, r.candidates);
        /* a run is one or more kernels of 0.01 ms, replayed or not */
        for (int i = 0; i < r.nentries; i++) {
            const double runs = r.entries[i].ms / 0.01, whole = (double)(long)(runs + 0.5);
            assert_true(whole >= 1 && runs - whole < 1e-4 && whole - runs < 1e-4);
        }
        const long launched = fc.fakecuda_calls("cuGraphLaunch");
        if (round == 0) { /* one replay outside the timing, three timed, a plan */
            assert_int_equal(fc.fakecuda_calls("cuGraphInstantiateWithFlags"), r.timed);
            assert_int_equal(launched, 4L * r.timed);
            replayed = r;
        } else if (round == 1) { /* the first plan's first replay failed: it alone ran run by run */
            assert_int_equal(launched, 1 + 4L * (r.timed - 1));
        } else {
            assert_int_equal(launched, 0);
            assert_int_equal(fc.fakecuda_calls("cuGraphInstantiateWithFlags"), 0);
        }
        /* the replays' time of a run is the run-by-run one's */
        for (int i = 0; round > 0 && i < r.nentries; i++) {
            assert_string_equal(r.entries[i].config, replayed.entries[i].config);
            assert_true(r.entries[i].ms > replayed.entries[i].ms - 1e-7 &&
                        r.entries[i].ms < replayed.entries[i].ms + 1e-7);
        }
        assert_int_equal(fc.fakecuda_calls("cuStreamCreate"), fc.fakecuda_calls("cuStreamDestroy_v2"));
        assert_int_equal(fc.fakecuda_live_graphs(), 0);
        assert_int_equal(fc.fakecuda_live_events(), events);
        assert_int_equal(fc.fakecuda_violations(), 0);
    }
    fc.fakecuda_reset();
    close_all(&b, l, m, ctx);
}

/* evt_launch_tune refuses options that bound nothing or make no sense,
 * before it compiles or times anything: a NaN bound (which compared as
 * none given), an infinite one, a negative one, negative counts. */
static void test_tune_refuses_bad_options(void **state)
{
    (void)state;
    evt_ctx *ctx = new_fake_nvrtc_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    evt_launch *l = ragged_tn(m, &b);
    /* each refusal names the option and the value given */
    const struct {
        evt_tune_options o;
        const char *says;
    } bad[] = {{{.max_seconds = NAN}, "max_seconds must be a number of seconds from 0 to 1e9 (0: 10 s), not nan"},
               {{.max_seconds = INFINITY}, "max_seconds must be a number of seconds from 0 to 1e9 (0: 10 s), not inf"},
               {{.max_seconds = -1}, "max_seconds must be a number of seconds from 0 to 1e9 (0: 10 s), not -1"},
               {{.max_seconds = 2e9}, "max_seconds must be a number of seconds from 0 to 1e9 (0: 10 s), not 2e+09"},
               {{.threads = -1}, "threads must be 0 or more (0: the default), not -1"},
               {{.warmup = -3}, "warmup must be 0 or more (0: the default), not -3"},
               {{.max_seconds = 5, .reps = -2}, "reps must be 0 or more (0: the default), not -2"}};
    const size_t before = fc.fakecuda_launch_count();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        evt_tune_result r;
        assert_int_equal(evt_launch_tune(l, NULL, &bad[i].o, &r), EVT_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(evt_ctx_last_error(ctx), bad[i].says));
    }
    assert_int_equal(fc.fakecuda_launch_count(), before);
    close_all(&b, l, m, ctx);
}

/* evt_launch_tune on the fake clock (the fake NVRTC compiles: the plans'
 * entry points are what matters): every plan the planner admits is
 * launched and timed, the fastest is recorded in the database of this run's
 * cache folder, the launch's next run takes it ("tuned"), a new context
 * reads it from the file, ignore_records and a forced configuration do not. */
static void test_tune_records_and_launches_take_it(void **state)
{
    (void)state;
    evt_ctx *ctx = new_fake_nvrtc_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    evt_launch *l = ragged_tn(m, &b);
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_null(strstr(evt_launch_plan(l), "tuned"));
    /* plans of different speeds: a run's launches take 0.4 to 2.9 ms */
    const float ms[] = {0.9f, 1.3f, 0.2f, 0.7f, 1.9f, 0.1f, 1.1f, 0.5f, 2.9f, 0.3f, 0.6f};
    fc.fakecuda_set_launch_ms(ms, sizeof ms / sizeof ms[0]);
    const size_t before = fc.fakecuda_launch_count();
    evt_tune_result r;
    const evt_tune_options o = {.max_seconds = 60, .threads = 2, .reps = 3};
    expect_ok(ctx, evt_launch_tune(l, NULL, &o, &r));
    assert_string_equal(evt_ctx_last_error(ctx), "");
    assert_true(r.candidates >= 4);
    assert_int_equal(r.timed, r.candidates);
    assert_int_equal(r.nentries, r.candidates);
    assert_true(r.recorded);
    assert_memory_equal(&r.heuristic, &r.entries[0], sizeof r.heuristic);
    for (int i = 0; i < r.nentries; i++) {
        assert_true(r.entries[i].ms > 0 && r.entries[i].ms >= r.best.ms);
        for (int j = 0; j < i; j++) /* each plan once */
            assert_false(strcmp(r.entries[i].config, r.entries[j].config) == 0 &&
                         r.entries[i].split_k == r.entries[j].split_k &&
                         r.entries[i].stream_k == r.entries[j].stream_k);
    }
    /* every plan's own entry point ran */
    for (int i = 0; i < r.nentries; i++) {
        int seen = 0;
        for (size_t k = before; k < fc.fakecuda_launch_count() && !seen; k++) {
            fakecuda_launch fl;
            assert_int_equal(fc.fakecuda_get_launch(k, &fl), 0);
            seen = strstr(fl.function, r.entries[i].config) != NULL;
        }
        assert_true(seen);
    }
    expect_ok(ctx, evt_launch_run(l, NULL));
    const char *plan = evt_launch_plan(l);
    assert_non_null(strstr(plan, r.best.config));
    assert_non_null(strstr(plan, " tuned"));
    char path[4200];
    evt_tuning_db_path(path, sizeof path);
    assert_int_equal(access(path, R_OK), 0);

    /* another context, from the file */
    evt_ctx *ctx2 = new_ctx();
    assert_int_equal(evt_ctx_set_library_path(ctx2, EVT_LIBRARY_NVRTC, EVT_FAKECUDA), EVT_OK);
    evt_module *m2 = parse(ctx2);
    bufs b2 = {mem, {0}, 0};
    evt_launch *l2 = ragged_tn(m2, &b2);
    expect_ok(ctx2, evt_launch_run(l2, NULL));
    assert_non_null(strstr(evt_launch_plan(l2), r.best.config));
    assert_non_null(strstr(evt_launch_plan(l2), " tuned"));
    /* nor for a launch compiled with fast math: other code, its own records */
    expect_ok(ctx2, evt_ctx_set_fast_math(ctx2, 1));
    bufs b3 = {mem, {0}, 0};
    evt_launch *l3 = ragged_tn(m2, &b3);
    expect_ok(ctx2, evt_launch_run(l3, NULL));
    assert_null(strstr(evt_launch_plan(l3), "tuned"));
    assert_non_null(strstr(evt_launch_plan(l3), r.heuristic.config));
    evt_launch_destroy(l3);
    free_bufs(&b3);
    expect_ok(ctx2, evt_ctx_set_fast_math(ctx2, 0));
    /* not with ignore_records, nor under a forced configuration */
    const evt_tuning ignore = {.ignore_records = 1};
    expect_ok(ctx2, evt_launch_set_tuning(l2, &ignore));
    expect_ok(ctx2, evt_launch_run(l2, NULL));
    assert_null(strstr(evt_launch_plan(l2), "tuned"));
    assert_non_null(strstr(evt_launch_plan(l2), r.heuristic.config));
    const evt_tuning forced = {.config = "sm80_64x64x32_w4_s4", .split_k = 1};
    expect_ok(ctx2, evt_launch_set_tuning(l2, &forced));
    expect_ok(ctx2, evt_launch_run(l2, NULL));
    assert_null(strstr(evt_launch_plan(l2), "tuned"));
    assert_int_equal(fc.fakecuda_violations(), 0);
    remove(path); /* the other tests plan with the heuristic */
    free_bufs(&b);
    free_bufs(&b2);
    evt_launch_destroy(l2);
    evt_launch_destroy(l);
    evt_module_destroy(m2);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx2);
    evt_ctx_destroy(ctx);
}

/* Tuning a GEMM whose operands a run repacks (test_gemm_repack_sm90's):
 * the tuner times the plans such a run takes (the copies, then the fast
 * path), not the guarded entries, and records the fastest under the
 * copies' problem, where the next unforced run finds it. */
static void test_tune_repacked(void **state)
{
    (void)state;
    enum { M = 1000, N = 3000, K = 2001, LD = N };
    evt_ctx *ctx = new_fake_nvrtc_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    const size_t a_bytes = (size_t)M * K * 2, b_bytes = (size_t)N * K * 2;
    void *a = dev(&b, a_bytes), *bb = dev(&b, b_bytes);
    evt_launch *l = bound_tn(m, &b, M, N, K, a, a_bytes, bb, b_bytes, 0.5f);
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_non_null(strstr(evt_launch_plan(l), " repacked a b"));
    assert_null(strstr(evt_launch_plan(l), "tuned"));
    const float ms[] = {0.9f, 1.3f, 0.2f, 0.7f, 1.9f, 0.1f, 1.1f, 0.5f, 2.9f, 0.3f, 0.6f};
    fc.fakecuda_set_launch_ms(ms, sizeof ms / sizeof ms[0]);
    const size_t before = fc.fakecuda_launch_count();
    evt_tune_result r;
    const evt_tune_options o = {.max_seconds = 60, .threads = 2, .reps = 3};
    expect_ok(ctx, evt_launch_tune(l, NULL, &o, &r));
    assert_true(r.candidates >= 2);
    assert_int_equal(r.timed, r.candidates);
    assert_true(r.recorded);
    /* no guarded entry ran, and every timed run (one reductions' init
     * each) copied both operands first */
    size_t copies = 0, runs = 0;
    for (size_t k = before; k < fc.fakecuda_launch_count(); k++) {
        fakecuda_launch fl;
        assert_int_equal(fc.fakecuda_get_launch(k, &fl), 0);
        assert_null(strstr(fl.function, "guarded"));
        if (strcmp(fl.function, "evt_tn_gemm_repack") == 0)
            copies++;
        else if (strcmp(fl.function, "evt_tn_gemm_reduce_init") == 0)
            runs++;
    }
    assert_true(runs >= (size_t)r.timed);
    assert_int_equal(copies, 2 * runs);
    /* the next run, unforced, takes the record on the copies */
    expect_ok(ctx, evt_launch_run(l, NULL));
    const char *plan = evt_launch_plan(l);
    assert_non_null(strstr(plan, r.best.config));
    assert_non_null(strstr(plan, " tuned"));
    assert_non_null(strstr(plan, " repacked a b"));
    assert_null(strstr(plan, "guarded"));
    /* the caller's operands and K are back after the tuning */
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    fakecuda_launch r0;
    assert_int_equal(fc.fakecuda_get_launch(0, &r0), 0);
    assert_string_equal(r0.function, "evt_tn_gemm_repack");
    assert_ptr_equal(fakecuda_ptr_at(r0.params[0], 0), a);
    assert_int_equal(fakecuda_i64_at(r0.params[4], 0), K);
    assert_int_equal(fc.fakecuda_violations(), 0);
    char path[4200];
    evt_tuning_db_path(path, sizeof path);
    remove(path); /* the other tests plan with the heuristic */
    close_all(&b, l, m, ctx);
}

static void test_device_memory_and_target(void **state)
{
    (void)state;
    evt_ctx *ctx = new_ctx();
    void *p = NULL, *q = NULL;
    size_t live0 = fc.fakecuda_live_allocs(NULL);
    expect_ok(ctx, evt_device_alloc(ctx, 100, &p));
    expect_ok(ctx, evt_device_alloc(ctx, 0, &q)); /* one byte: a pointer to free, as cudaMalloc(0) */
    assert_int_equal(fc.fakecuda_live_allocs(NULL), live0 + 2);
    fakecuda_alloc a;
    assert_int_equal(fc.fakecuda_get_alloc(fc.fakecuda_alloc_count() - 2, &a), 0);
    assert_int_equal(a.bytes, 100);
    assert_int_equal(a.ptr, (uintptr_t)p);
    /* live from the next launch record on, and only over its bytes */
    const size_t at = fc.fakecuda_launch_count();
    assert_int_equal(fc.fakecuda_find_alloc_at(p, 100, at), 1);
    assert_int_equal(fc.fakecuda_find_alloc_at((char *)p + 1, 100, at), 0);
    if (at > 0)
        assert_int_equal(fc.fakecuda_find_alloc_at(p, 100, at - 1), 0);
    unsigned char in[100], out[100];
    for (int i = 0; i < 100; i++)
        in[i] = (unsigned char)(i * 7 + 1);
    expect_ok(ctx, evt_device_copy_to(ctx, p, in, sizeof in));
    memset(out, 0, sizeof out);
    expect_ok(ctx, evt_device_copy_from(ctx, out, p, sizeof out));
    assert_memory_equal(in, out, sizeof in);
    expect_ok(ctx, evt_device_copy_to(ctx, p, in, 0));
    expect_ok(ctx, evt_device_synchronize(ctx));
    /* past the allocation: the driver's refusal, named */
    assert_int_equal(evt_device_copy_from(ctx, out, (char *)p + 1, sizeof out), EVT_ERR_DRIVER);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "cuMemcpyDtoH"));
    assert_int_equal(fc.fakecuda_violations(), 1);

    evt_target t;
    char name[64];
    expect_ok(ctx, evt_device_target(ctx, &t, name, sizeof name));
    assert_int_equal(t, EVT_TARGET_SM90A);
    assert_string_equal(name, "Fake sm_90a");
    assert_int_equal(fc.fakecuda_set_current(DEV_SM80), 0);
    expect_ok(ctx, evt_device_target(ctx, &t, name, 6));
    assert_int_equal(t, EVT_TARGET_SM80);
    assert_string_equal(name, "Fake ");
    expect_ok(ctx, evt_device_free(ctx, p));
    /* freed before launch record `at` was made: no longer there for it */
    assert_int_equal(fc.fakecuda_find_alloc_at(p, 100, at), 0);
    expect_ok(ctx, evt_device_free(ctx, q));
    expect_ok(ctx, evt_device_free(ctx, NULL));
    assert_int_equal(fc.fakecuda_live_allocs(NULL), live0);
    evt_ctx_destroy(ctx);
}

/* No device, and a device evt does not target. */
static void test_no_device(void **state)
{
    (void)state;
    assert_int_equal(fc.fakecuda_configure("none"), 0);
    evt_ctx *ctx = new_ctx();
    evt_target t;
    assert_int_equal(evt_device_target(ctx, &t, NULL, 0), EVT_ERR_NO_GPU);
    assert_true(strlen(evt_ctx_last_error(ctx)) > 0);
    evt_ctx_destroy(ctx);
    assert_int_equal(fc.fakecuda_configure("7.5x40"), 0);
    ctx = new_ctx();
    assert_int_equal(evt_device_target(ctx, &t, NULL, 0), EVT_ERR_UNSUPPORTED);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "sm_75"));
    evt_ctx_destroy(ctx);
    assert_int_equal(fc.fakecuda_configure(DEVICES), 0);
}

/*
 * Under CUDA graph capture a run enqueues kernels only: a first run that
 * would allocate its workspace is refused with nothing recorded, and the
 * capture survives (the module it loads first, it loads in relaxed mode);
 * in a caller's workspace it is captured whole; after a run outside, a
 * captured run allocates nothing.
 */
static void test_capture(void **state)
{
    (void)state;
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    evt_launch *l = ragged_tn(m, &b);
    void *stream = NULL, *graph = NULL;
    assert_int_equal(fc.cuStreamCreate(&stream, 0), 0);
    size_t ws_bytes = 0;
    expect_ok(ctx, evt_launch_workspace_size(l, &ws_bytes));
    void *ws = dev(&b, ws_bytes);

    fc.fakecuda_reset();
    assert_int_equal(fc.cuStreamBeginCapture(stream, 0 /* global */), 0);
    assert_int_equal(evt_launch_run(l, stream), EVT_ERR_UNSUPPORTED);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "captured"));
    assert_int_equal(fc.fakecuda_alloc_count(), 0);
    assert_int_equal(fc.fakecuda_launch_count(), 0);
    assert_int_equal(fc.fakecuda_calls("cuModuleLoadData"), 1);
    assert_int_equal(fc.fakecuda_capture_mode(), 0); /* restored */
    int status = -1;
    assert_int_equal(fc.cuStreamIsCapturing(stream, &status), 0);
    assert_int_equal(status, 1); /* still active, not invalidated */

    expect_ok(ctx, evt_launch_run_with_workspace(l, stream, ws, ws_bytes));
    fakecuda_launch r[3];
    assert_int_equal(launches(r, 3), 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(r[i].captured, 1);
        assert_ptr_equal(r[i].stream, stream);
        assert_int_equal((uintptr_t)fakecuda_ptr_at(r[i].params[0], FULL_WS_AMAX), (uintptr_t)ws);
    }
    assert_int_equal(fc.fakecuda_alloc_count(), 0);
    assert_int_equal(fc.cuStreamEndCapture(stream, &graph), 0);

    expect_ok(ctx, evt_launch_run(l, stream)); /* outside: allocates */
    fc.fakecuda_reset();
    assert_int_equal(fc.cuStreamBeginCapture(stream, 0), 0);
    expect_ok(ctx, evt_launch_run(l, stream));
    assert_int_equal(fc.fakecuda_alloc_count(), 0);
    assert_int_equal(launches(r, 3), 3);
    assert_int_equal(r[1].captured, 1);
    assert_int_equal(fc.cuStreamEndCapture(stream, &graph), 0);
    assert_int_equal(fc.fakecuda_violations(), 0);

    assert_int_equal(fc.cuStreamDestroy(stream), 0);
    close_all(&b, l, m, ctx);
}

/*
 * A launch destroyed while another stream captures in global mode (a
 * garbage collector's doing, in Python) frees its workspace without
 * breaking that capture: cuMemFree is one of the calls global mode forbids.
 */
static void test_destroy_under_capture(void **state)
{
    (void)state;
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    evt_launch *l = ragged_tn(m, &b);
    expect_ok(ctx, evt_launch_run(l, NULL)); /* it has a workspace now */
    const size_t allocs = fc.fakecuda_live_allocs(NULL);
    void *stream = NULL, *graph = NULL;
    assert_int_equal(fc.cuStreamCreate(&stream, 0), 0);
    assert_int_equal(fc.cuStreamBeginCapture(stream, 0 /* global */), 0);
    evt_launch_destroy(l);
    assert_int_equal(fc.fakecuda_live_allocs(NULL), allocs - 1);
    assert_int_equal(fc.fakecuda_capture_mode(), 0); /* restored */
    if (fc.fakecuda_violations())
        fprintf(stderr, "%s\n", fc.fakecuda_last_violation());
    assert_int_equal(fc.fakecuda_violations(), 0);
    assert_int_equal(fc.cuStreamEndCapture(stream, &graph), 0); /* not invalidated */
    assert_int_equal(fc.cuStreamDestroy(stream), 0);
    free_bufs(&b);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

/* ---- driver failures ----------------------------------------------------- */

/* Device memory, modules and events alive: what a run must not leak. */
typedef struct live {
    size_t allocs;
    long modules, events;
} live;

static live alive(void)
{
    return (live){fc.fakecuda_live_allocs(NULL), fc.fakecuda_live_modules(), fc.fakecuda_live_events()};
}

static void expect_alive(live want)
{
    live got = alive();
    assert_int_equal(got.allocs, want.allocs);
    assert_int_equal(got.modules, want.modules);
    assert_int_equal(got.events, want.events);
}

/* A `tn` launch on the small sm_90a device that runs with TMA maps, a
 * workspace, shared memory opted into, and three kernels. */
static evt_launch *tma_tn(evt_module *m, bufs *b)
{
    assert_int_equal(fc.fakecuda_set_current(DEV_SMALL), 0);
    return dense_tn(m, b, 768, 768, 256);
}

/*
 * One driver failure in a first run on a fresh context: the run returns
 * `want` with a message naming `named` (or, for want EVT_OK, gets over it),
 * nothing leaks, and the same launch then runs.
 */
static void fail_once(const char *call, long nth, evt_status want, const char *named, int tma)
{
    const live before = alive();
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    evt_launch *l = tma_tn(m, &b);
    fc.fakecuda_reset();
    fc.fakecuda_fail(call, nth, 999);
    const evt_status st = evt_launch_run(l, NULL);
    if (st != want || (named && !strstr(evt_ctx_last_error(ctx), named)))
        fprintf(stderr, "%s #%ld failing: got %s (\"%s\"), want %s naming %s\n", call, nth, evt_status_string(st),
                evt_ctx_last_error(ctx), evt_status_string(want), named ? named : "-");
    assert_non_null(fc.fakecuda_failed_call());
    assert_int_equal(st, want);
    if (st != EVT_OK) {
        assert_true(strlen(evt_ctx_last_error(ctx)) > 0);
        if (named)
            assert_non_null(strstr(evt_ctx_last_error(ctx), named));
        assert_null(evt_launch_plan(l)); /* nothing was reported as run */
    } else {
        assert_non_null(strstr(evt_launch_plan(l), " fast "));
        assert_int_equal(strstr(evt_launch_plan(l), " tma ") != NULL, tma);
    }
    fc.fakecuda_fail(NULL, 0, 0);
    expect_ok(ctx, evt_launch_run(l, NULL));
    close_all(&b, l, m, ctx);
    expect_alive(before);
    assert_int_equal(fc.fakecuda_violations(), 0);
}

static void test_driver_failures(void **state)
{
    (void)state;
    fail_once("cuInit", 1, EVT_ERR_NO_GPU, "cuInit", 1);
    fail_once("cuCtxGetCurrent", 1, EVT_ERR_NO_GPU, "cuCtxGetCurrent", 1);
    fail_once("cuDeviceGetAttribute", 2, EVT_ERR_DRIVER, "attributes", 1);
    /* the first module, function and attribute are the count of resident
     * clusters' probe, which is advisory (the planner's own counts) */
    fail_once("cuDeviceGetAttribute", 4, EVT_OK, NULL, 1);
    fail_once("cuModuleLoadData", 1, EVT_OK, NULL, 1);
    fail_once("cuModuleGetFunction", 1, EVT_OK, NULL, 1);
    fail_once("cuFuncSetAttribute", 1, EVT_OK, NULL, 1);
    fail_once("cuOccupancyMaxActiveClusters", 1, EVT_OK, NULL, 1);
    fail_once("cuModuleLoadData", 2, EVT_ERR_DRIVER, "cuModuleLoadData", 1);
    fail_once("cuModuleGetFunction", 2, EVT_ERR_DRIVER, "evt_tn_gemm_sm90_pp2_128x128x64_s4_sm90a", 1);
    fail_once("cuModuleGetFunction", 4, EVT_ERR_DRIVER, "evt_tn_gemm_reduce_finish", 1);
    fail_once("cuFuncSetAttribute", 2, EVT_ERR_DRIVER, "unknown error", 1);
    fail_once("cuMemAlloc_v2", 1, EVT_ERR_DRIVER, "workspace", 1);
    for (int i = 1; i <= 3; i++) /* init, main, finish */
        fail_once("cuLaunchKernel", i, EVT_ERR_DRIVER, "cuLaunchKernel", 1);
    /* a refused map is no error: the planner picks again without TMA */
    fail_once("cuTensorMapEncodeTiled", 2, EVT_OK, NULL, 0);
    /* querying the capture is advisory */
    fail_once("cuStreamIsCapturing", 1, EVT_OK, NULL, 1);
    fail_once("cuThreadExchangeStreamCaptureMode", 1, EVT_OK, NULL, 1);
}

/* The NVRTC half: a compile that fails is EVT_ERR_COMPILE, nothing leaks,
 * and the next run compiles (here with the fake NVRTC, the only one that
 * can be made to fail). */
static void test_compile_failure(void **state)
{
    (void)state;
    const live before = alive();
    setenv("EVT_DISABLE_CACHE", "1", 1); /* else the child's run left the image on disk */
    evt_ctx *ctx = new_fake_nvrtc_ctx();
    evt_module *m = parse(ctx);
    bufs b = {mem, {0}, 0};
    evt_launch *l = ragged_tn(m, &b);
    fc.fakecuda_fail("nvrtcCompileProgram", 1, 6 /* NVRTC_ERROR_COMPILATION */);
    assert_int_equal(evt_launch_run(l, NULL), EVT_ERR_COMPILE);
    assert_non_null(strstr(evt_ctx_last_error(ctx), "NVRTC"));
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_int_equal(fc.fakecuda_compiles(), 1);
    unsetenv("EVT_DISABLE_CACHE");
    close_all(&b, l, m, ctx);
    expect_alive(before);
}

/*
 * Every driver call of a first run made to fail in turn: each run returns
 * EVT_OK (the call was advisory), EVT_ERR_DRIVER or EVT_ERR_NO_GPU with a
 * message; nothing leaks; the launch runs afterwards.
 */
static void test_every_call_failing(void **state)
{
    (void)state;
    long calls = 0;
    for (long i = 0; i <= calls; i++) {
        const live before = alive();
        evt_ctx *ctx = new_ctx();
        evt_module *m = parse(ctx);
        bufs b = {mem, {0}, 0};
        evt_launch *l = tma_tn(m, &b);
        fc.fakecuda_reset();
        if (i > 0)
            fc.fakecuda_fail("*", i, 999);
        const evt_status st = evt_launch_run(l, NULL);
        if (i == 0) {
            expect_ok(ctx, st);
            calls = fc.fakecuda_calls(NULL); /* the sweep's length */
            assert_true(calls >= 18); /* cuInit to the last cuLaunchKernel: 20 now */
        } else {
            const char *failed = fc.fakecuda_failed_call();
            assert_non_null(failed);
            if (st != EVT_OK && st != EVT_ERR_DRIVER && st != EVT_ERR_NO_GPU)
                fprintf(stderr, "%s failing: %s\n", failed, evt_status_string(st));
            assert_true(st == EVT_OK || st == EVT_ERR_DRIVER || st == EVT_ERR_NO_GPU);
            if (st != EVT_OK)
                assert_true(strlen(evt_ctx_last_error(ctx)) > 0);
            fc.fakecuda_fail(NULL, 0, 0);
            expect_ok(ctx, evt_launch_run(l, NULL));
        }
        assert_int_equal(fc.fakecuda_violations(), 0);
        free_bufs(&b);
        evt_launch_destroy(l);
        evt_module_destroy(m);
        evt_ctx_destroy(ctx);
        expect_alive(before);
    }
}

/* ---- main ----------------------------------------------------------------- */

/* ---- batches ----------------------------------------------------------- */

/* A recorded rank-3 tiled map: `count` rows x k 16-bit tensors, ld apart,
 * problems `stride` elements apart, read in box0 x box1 x 1 boxes. */
static void expect_tiled3(long index, const void *addr, long long k, long long rows, long long ld,
                          long long count, long long stride, unsigned box0, unsigned box1)
{
    fakecuda_tensor_map t;
    assert_true(index >= 0);
    assert_int_equal(fc.fakecuda_get_tensor_map((size_t)index, &t), 0);
    assert_int_equal(t.result, 0);
    assert_int_equal(t.rank, 3);
    assert_ptr_equal(t.address, addr);
    assert_int_equal(t.dims[0], k);
    assert_int_equal(t.dims[1], rows);
    assert_int_equal(t.dims[2], count);
    assert_int_equal(t.strides[0], ld * 2);
    assert_int_equal(t.strides[1], stride * 2);
    assert_int_equal(t.box[0], box0);
    assert_int_equal(t.box[1], box1);
    assert_int_equal(t.box[2], 1);
    assert_int_equal(t.elem_strides[2], 1);
    assert_int_equal(t.swizzle, SWIZZLE_128B);
}

/*
 * A batch of L ragged 97 x 83 x 136 problems of the `full` epilogue under
 * every GEMM configuration family, forced: mma.sync, mma.sync split 3 ways,
 * wgmma, and the producer/consumer tile (TMA); L = 1, 3 and 512.  A and the
 * residual, the output and both reductions per problem, B and the bias
 * shared (stride 0).  One launch of each kernel: grids of L x the tiles of
 * one problem (times the splits; persistent grids capped at the slots),
 * reduction words and partial tiles for every problem, the strides packed
 * (0 for a batch of one), A's map rank 3 over the batch, B's rank 2.  With
 * NVRTC here, the batched entry points are compiled for real.
 */
static void test_gemm_batched(void **state)
{
    (void)state;
    enum { M = 97, N = 83, K = 136 };
    static const struct {
        const char *config;
        int split_k;
        const char *entry;
    } families[] = {
        {"sm80_64x64x32_w4_s4", 1, "evt_tn_gemm_sm80_64x64x32_w4_s4_sm90a"},
        {"sm80_64x64x32_w4_s4", 3, "evt_tn_gemm_sm80_64x64x32_w4_s4_splitk_sm90a"},
        {"sm90_wg2_128x128x64_s3", 1, "evt_tn_gemm_sm90_wg2_128x128x64_s3_sm90a"},
        {"sm90_pp2_128x128x64_s4", 1, "evt_tn_gemm_sm90_pp2_128x128x64_s4_sm90a"},
    };
    static const long long counts[] = {1, 3, 512};
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    for (size_t fi = 0; fi < sizeof families / sizeof families[0]; fi++)
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            const long long L = counts[ci];
            const plan_config *c = plan_config_find(families[fi].config);
            evt_launch *l = launch_of(m, "tn");
            const evt_tuning t = {.config = families[fi].config, .split_k = families[fi].split_k};
            assert_int_equal(evt_launch_set_tuning(l, &t), EVT_OK);
            bufs b = {mem, {0}, 0};
            const size_t mn = (size_t)M * N;
            void *a = dev(&b, (size_t)L * M * K * 2), *bb = dev(&b, (size_t)N * K * 2);
            void *bias = dev(&b, N * 2), *res = dev(&b, (size_t)L * mn * 2), *d = dev(&b, (size_t)L * mn * 2);
            void *amax = dev(&b, (size_t)L * 4), *rsum = dev(&b, (size_t)L * M * 4);
            assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, K, (size_t)L * M * K * 2, bb, K, (size_t)N * K * 2),
                             EVT_OK);
            assert_int_equal(evt_launch_set_batch(l, L, M * K, 0), EVT_OK);
            assert_int_equal(evt_launch_bind_batched(l, "bias", bias, N * 2, 0, 0), EVT_OK);
            assert_int_equal(evt_launch_bind_batched(l, "res", res, (size_t)L * mn * 2, N, (long long)mn), EVT_OK);
            assert_int_equal(evt_launch_bind_batched(l, "d", d, (size_t)L * mn * 2, N, (long long)mn), EVT_OK);
            assert_int_equal(evt_launch_bind_batched(l, "amax", amax, (size_t)L * 4, 0, 1), EVT_OK);
            assert_int_equal(evt_launch_bind_batched(l, "rsum", rsum, (size_t)L * M * 4, 0, M), EVT_OK);
            assert_int_equal(evt_launch_set_param(l, "beta", 0.5f), EVT_OK);
            fc.fakecuda_reset();
            expect_ok(ctx, evt_launch_run(l, NULL));

            const long long tiles = L * ceil_div(M, c->bm) * ceil_div(N, c->bn);
            const int splits = families[fi].split_k;
            const long long slots = (long long)SMS_SM90 * c->min_blocks;
            const long long grid = c->pp ? (tiles < slots ? tiles : slots) : tiles * splits;
            char want[160];
            /* the shares of a split tile sum in their cluster, except for the
             * batch of 512, whose 6144 CTAs would double up on the SMs that
             * clusters reach (api/launch.c, cluster_split) */
            const int in_cluster = splits > 1 && L < 512;
            snprintf(want, sizeof want, "sm_90a %s fast%s grid %lld splits %d%s", c->name, c->pp ? " tma" : "",
                     grid, splits, in_cluster ? " cluster-sum" : "");
            assert_string_equal(evt_launch_plan(l), want);
            const size_t words = (size_t)(1 + M) * (size_t)L;
            size_t ws_bytes = 0;
            expect_ok(ctx, evt_launch_workspace_size(l, &ws_bytes));
            const size_t partials = splits > 1 ? (size_t)grid * (size_t)c->bm * (size_t)c->bn * 4 : 0;
            assert_int_equal(ws_bytes, partials ? (words * 4 + 255) / 256 * 256 + partials : words * 4);
            fakecuda_launch r[4];
            const size_t nl = launches(r, 4);
            assert_int_equal(nl, splits > 1 && !in_cluster ? 4 : 3);
            const unsigned long long ws = one_alloc(ws_bytes);
            expect_reduce(&r[0], "evt_tn_gemm_reduce_init", (long long)words, FULL_SIZE);
            expect_main(&r[1], families[fi].entry, c->name, grid, DEV_SM90, FULL_SIZE);
            assert_int_equal(r[1].cluster, in_cluster ? (unsigned)splits : 0u);
            if (splits > 1 && !in_cluster)
                assert_int_equal(r[2].grid[0], tiles); /* the sums: one CTA per tile of the batch */
            expect_reduce(&r[nl - 1], "evt_tn_gemm_reduce_finish", (long long)words, FULL_SIZE);
            for (size_t i = 0; i < nl; i++) {
                const unsigned char *args = r[i].params[0];
                const long long s = L > 1; /* a batch of one packs no strides */
                assert_ptr_equal(fakecuda_ptr_at(args, G_A), a);
                assert_ptr_equal(fakecuda_ptr_at(args, G_B), bb);
                assert_int_equal(fakecuda_i64_at(args, G_STRIDE_A), s * M * K * 2); /* bytes: f16 */
                assert_int_equal(fakecuda_i64_at(args, G_STRIDE_B), 0);
                assert_int_equal(fakecuda_i32_at(args, G_BATCH), L);
                assert_int_equal(fakecuda_i32_at(args, G_INDEX), 0);
                assert_int_equal(fakecuda_i64_at(args, FULL_BS_BIAS), 0);
                assert_int_equal(fakecuda_i64_at(args, FULL_BS_RES), s * (long long)mn);
                assert_int_equal(fakecuda_i64_at(args, FULL_BS_D), s * (long long)mn);
                assert_int_equal(fakecuda_i64_at(args, FULL_BS_AMAX), s);
                assert_int_equal(fakecuda_i64_at(args, FULL_BS_RSUM), s * M);
                /* amax's L words first, then rsum's L x M */
                assert_int_equal((uintptr_t)fakecuda_ptr_at(args, FULL_WS_AMAX), ws);
                assert_int_equal((uintptr_t)fakecuda_ptr_at(args, FULL_WS_RSUM), ws + (unsigned long long)L * 4);
            }
            if (c->pp) {
                assert_int_equal(r[1].nparams, 4);
                expect_tile_end(&r[1], 2, -1);
                if (L > 1)
                    expect_tiled3(fc.fakecuda_tensor_map_of(r[1].params[1]), a, K, M, K, L, M * K, 64, 128);
                else
                    expect_tiled(fc.fakecuda_tensor_map_of(r[1].params[1]), TMAP_F16, a, K, M, K, 64, 128,
                                 SWIZZLE_128B);
                expect_tiled(fc.fakecuda_tensor_map_of(r[1].params[1] + 128), TMAP_F16, bb, K, N, K, 64, 128,
                             SWIZZLE_128B);
            } else {
                assert_int_equal(fc.fakecuda_tensor_map_count(), 0);
            }
            assert_int_equal(fc.fakecuda_violations(), 0);
            free_bufs(&b);
            evt_launch_destroy(l);
        }
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

/* Batch strides that break the fast path's alignment: an operand's (not a
 * multiple of 16 bytes) takes the guarded entry, as such an ld does; one
 * the fast path allows but TMA's map does not (A's problems overlapping,
 * stride below M x lda: the driver refuses the rank-3 map) falls back to a
 * plan without TMA; never a misaligned access. */
static void test_gemm_batched_misaligned(void **state)
{
    (void)state;
    enum { M = 256, N = 256, K = 512, L = 4 };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    evt_launch *l = launch_of(m, "tn");
    bufs b = {mem, {0}, 0};
    const size_t a_elems = (size_t)L * M * K + 8, mn = (size_t)M * N;
    void *a = dev(&b, a_elems * 2), *bb = dev(&b, (size_t)N * K * 2);
    void *res = dev(&b, L * mn * 2), *d = dev(&b, L * mn * 2), *amax = dev(&b, L * 4), *rsum = dev(&b, L * M * 4);
    void *bias = dev(&b, N * 2);
    assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, K, a_elems * 2, bb, K, (size_t)N * K * 2), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(l, "bias", bias, N * 2, 0, 0), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(l, "res", res, L * mn * 2, N, (long long)mn), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(l, "d", d, L * mn * 2, N, (long long)mn), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(l, "amax", amax, L * 4, 0, 1), EVT_OK);
    assert_int_equal(evt_launch_bind_batched(l, "rsum", rsum, L * M * 4, 0, M), EVT_OK);
    assert_int_equal(evt_launch_set_param(l, "beta", 0.5f), EVT_OK);
    const evt_tuning pp = {.config = "sm90_pp2_128x128x64_s4"};
    assert_int_equal(evt_launch_set_tuning(l, &pp), EVT_OK);

    /* 16-byte multiples: TMA, A's map rank 3 */
    assert_int_equal(evt_launch_set_batch(l, L, (long long)M * K, 0), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_non_null(strstr(evt_launch_plan(l), "fast tma"));
    /* A's problems 1 element apart past M x K: the guarded entry, no maps */
    assert_int_equal(evt_launch_set_batch(l, L, (long long)M * K + 1, 0), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_non_null(strstr(evt_launch_plan(l), "sm90_pp2_128x128x64_s4 guarded"));
    assert_int_equal(fc.fakecuda_tensor_map_count(), 0);
    /* problems 8 elements apart (aligned, overlapping, read only): the map is refused,
     * the forced configuration's guarded entry runs */
    assert_int_equal(evt_launch_set_batch(l, L, 8, 0), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_non_null(strstr(evt_launch_plan(l), "sm90_pp2_128x128x64_s4 guarded"));
    /* ... and the heuristic's pick is made again without TMA */
    assert_int_equal(evt_launch_set_tuning(l, NULL), EVT_OK);
    fc.fakecuda_reset();
    expect_ok(ctx, evt_launch_run(l, NULL));
    assert_null(strstr(evt_launch_plan(l), "tma"));
    assert_int_equal(fc.fakecuda_violations(), 0);
    close_all(&b, l, m, ctx);
}

/*
 * The transposed wgmma's TMA maps: a column-major A as an (m, k) tensor and
 * a row-major B as an (n, k) one, M/N contiguous, in boxes of 64 positions
 * by BK = 64 k rows, 128-byte swizzled (gemm.cuh's tma_loader::mn_boxes
 * reads a 128-wide tile as two); a K-contiguous operand beside one keeps
 * its (k, rows) map.  nt (bf16 A col, B row) under the heuristic (the
 * six-stage ping-pong tile, as for A row, B col), the cooperative tile
 * forced, and a batch of 3 with B shared (A's map rank 3 over the batch,
 * B's rank 2); rr (f16 A row, B row) under the ping-pong tile forced, alone
 * and batched, and the cp.async wgmma tile (no maps); a ragged M (1503: not
 * a multiple of 8) takes the guarded entry and no map.
 */
static void test_gemm_transposed_sm90_tma(void **state)
{
    (void)state;
    enum { M = 1504, N = 1000, K = 4104, LDA = M + 24, LDB = N + 8, L = 3 };
    static const char rr_source[] = "epilogue s {\n    param scale : f32 = 0.5\n"
                                    "    out y : bf16[M, N] = acc * scale\n}\n"
                                    "kernel rr = gemm(a: f16 row, b: f16 row, acc: f32) with s\n";
    static const struct {
        const char *kernel, *config; /* config NULL: the heuristic's */
        long long batch;
        int a_col, aligned;
    } runs[] = {
        {"nt", NULL, 1, 1, 1},
        {"nt", "sm90_coop2_256x128x64_s3", 1, 1, 1},
        {"nt", "sm90_pp2_128x128x64_s4", L, 1, 1},
        {"nt", "sm90_pp2_128x128x64_s4", 1, 1, 0},
        {"rr", "sm90_pp2_128x128x64_s4", 1, 0, 1},
        {"rr", "sm90_pp2_128x128x64_s4", L, 0, 1},
        {"rr", "sm90_wg2_128x256x64_s4", 1, 0, 1},
    };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx), *mrr = NULL;
    assert_int_equal(evt_module_parse_buffer(ctx, "rr.evt", rr_source, strlen(rr_source), &mrr), EVT_OK);
    assert_int_equal(evt_module_optimize(mrr, 2), EVT_OK);
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        const long long batch = runs[i].batch, mm = runs[i].aligned ? M : M - 1;
        const int nt = strcmp(runs[i].kernel, "nt") == 0;
        evt_launch *l = launch_of(nt ? m : mrr, runs[i].kernel);
        const char *config = runs[i].config ? runs[i].config : "sm90_pp2_128x128x64_s6";
        const plan_config *c = plan_config_find(config);
        if (runs[i].config) {
            const evt_tuning t = {.config = runs[i].config, .split_k = 1};
            assert_int_equal(evt_launch_set_tuning(l, &t), EVT_OK);
        }
        /* A column-major M x K (lda >= M) or row-major (lda >= K); B row-major K x N */
        const long long lda = runs[i].a_col ? LDA : K + 8;
        /* one problem's A, whole columns (rows) of lda: a rank-3 map's problems may not overlap */
        const long long a_elems = runs[i].a_col ? K * lda : mm * lda;
        const long long b_elems = (long long)(K - 1) * LDB + N;
        bufs b = {mem, {0}, 0};
        void *a = dev(&b, (size_t)(batch * a_elems * 2)), *bb = dev(&b, (size_t)b_elems * 2);
        void *y = dev(&b, (size_t)(batch * mm * N * 2));
        assert_int_equal(evt_launch_set_gemm(l, mm, N, K, a, lda, (size_t)(batch * a_elems * 2), bb, LDB,
                                             (size_t)b_elems * 2),
                         EVT_OK);
        if (batch > 1) {
            assert_int_equal(evt_launch_set_batch(l, batch, a_elems, 0), EVT_OK);
            assert_int_equal(evt_launch_bind_batched(l, "y", y, (size_t)(batch * mm * N * 2), N, mm * N), EVT_OK);
        } else {
            assert_int_equal(evt_launch_bind(l, "y", y, (size_t)(mm * N * 2), N), EVT_OK);
        }
        fc.fakecuda_reset();
        expect_ok(ctx, evt_launch_run(l, NULL));

        const long long tiles = batch * ceil_div(mm, c->bm) * ceil_div(N, c->bn);
        const long long slots = (long long)SMS_SM90 * c->min_blocks;
        const long long grid = c->pp && tiles > slots ? slots : tiles;
        char want[160], entry[160];
        /* (both epilogues run in registers on the TMA path: N = 1000, a
         * multiple of 8 over one tile, shifts the last tile column) */
        snprintf(want, sizeof want, "sm_90a %s %s grid %lld splits 1%s", config,
                 !runs[i].aligned ? "guarded" : c->pp ? "fast tma" : "fast", grid,
                 runs[i].aligned && c->pp ? " direct-epilogue" : "");
        assert_string_equal(evt_launch_plan(l), want);
        snprintf(entry, sizeof entry, "evt_%s_gemm_%s%s_sm90a", runs[i].kernel, config,
                 runs[i].aligned ? "" : "_guarded");
        fakecuda_launch r[1];
        assert_int_equal(launches(r, 1), 1);
        expect_main(&r[0], entry, config, grid, DEV_SM90, SC_SIZE);
        const int dtype = nt ? TMAP_BF16 : TMAP_F16;
        if (!c->pp || !runs[i].aligned) {
            assert_int_equal(fc.fakecuda_tensor_map_count(), 0);
        } else {
            assert_int_equal(r[0].nparams, 4);
            expect_tile_end(&r[0], 2, -1); /* a persistent entry's last parameter */
            assert_int_equal(fc.fakecuda_tensor_map_count(), 2);
            const long ia = fc.fakecuda_tensor_map_of(r[0].params[1]);
            const long ib = fc.fakecuda_tensor_map_of(r[0].params[1] + 128);
            if (runs[i].a_col && batch > 1)
                expect_tiled3(ia, a, mm, K, lda, batch, a_elems, 64, 64);
            else if (runs[i].a_col)
                expect_tiled(ia, dtype, a, mm, K, lda, 64, 64, SWIZZLE_128B);
            else if (batch > 1)
                expect_tiled3(ia, a, K, mm, lda, batch, a_elems, 64, 128);
            else
                expect_tiled(ia, dtype, a, K, mm, lda, 64, 128, SWIZZLE_128B);
            expect_tiled(ib, dtype, bb, N, K, LDB, 64, 64, SWIZZLE_128B); /* shared: rank 2 */
        }
        assert_int_equal(fc.fakecuda_violations(), 0);
        free_bufs(&b);
        evt_launch_destroy(l);
    }
    evt_module_destroy(mrr);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

/*
 * Where a launch runs the producer/consumer tiles' epilogue
 * (api/launch.c, shared_epi_of): a per-element one (tnb's acc * scale) on
 * the consumers' registers where N is whole tiles, edge rows or not, or a
 * multiple of 8 over one tile (its f16 output's 16-byte pieces: the last
 * tile column runs shifted left, wholly inside); on the shared tile with
 * other edge columns (the registers' instance for them is the slow one,
 * docs/codegen.md); the tuning's shared_epilogue overrides both ways.
 * evt_launch_plan says which ran ("direct-epilogue").
 */
static void test_direct_epilogue_placement(void **state)
{
    (void)state;
    enum { K = 256 };
    static const struct {
        long long m, n;
        int shared; /* evt_tuning.shared_epilogue */
        int direct;
    } cases[] = {
        {1024, 1024, 0, 1}, {1000, 1024, 0, 1}, {1024, 1000, 0, 1}, {1000, 1000, 0, 1},
        {1000, 1004, 0, 0}, {1000, 120, 0, 0},  {1000, 1004, -1, 1}, {1024, 1024, 1, 0},
        {1000, 1000, 1, 0},
    };
    evt_ctx *ctx = new_ctx();
    evt_module *m = parse(ctx);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const long long M = cases[i].m, N = cases[i].n;
        bufs b = {mem, {0}, 0};
        void *a = dev(&b, (size_t)M * K * 2), *bb = dev(&b, (size_t)N * K * 2), *y = dev(&b, (size_t)M * N * 2);
        evt_launch *l = launch_of(m, "tnb");
        assert_int_equal(evt_launch_set_gemm(l, M, N, K, a, K, (size_t)M * K * 2, bb, K, (size_t)N * K * 2), EVT_OK);
        assert_int_equal(evt_launch_bind(l, "y", y, (size_t)M * N * 2, N), EVT_OK);
        const evt_tuning t = {.config = "sm90_pp2_128x128x64_s4", .shared_epilogue = cases[i].shared};
        assert_int_equal(evt_launch_set_tuning(l, &t), EVT_OK);
        fc.fakecuda_reset();
        expect_ok(ctx, evt_launch_run(l, NULL));
        const char *plan = evt_launch_plan(l);
        assert_non_null(strstr(plan, "sm90_pp2_128x128x64_s4 fast tma"));
        if ((strstr(plan, " direct-epilogue") != NULL) != cases[i].direct)
            fail_msg("%lldx%lld shared_epilogue %d: %s", M, N, cases[i].shared, plan);
        assert_int_equal(fc.fakecuda_violations(), 0);
        free_bufs(&b);
        evt_launch_destroy(l);
    }
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
}

static const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup(name, setup)
    T(test_gemm_ragged_sm90),
    T(test_gemm_4096_sm90_tma),
    T(test_gemm_tail_sm90),
    T(test_gemm_fast_math_plan_sm90),
    T(test_gemm_stream_k_sm90),
    T(test_gemm_repack_sm90),
    T(test_gemm_repack_mn_sm90),
    T(test_gemm_repack_batched_sm90),
    T(test_gemm_cluster_sm90),
    T(test_gemm_fp8_sm90_tma),
    T(test_gemm_split_k_bf16_nt),
    T(test_gemm_bf16_wgmma),
    T(test_gemm_sm80),
    T(test_conv_3x3_s1_sm90),
    T(test_conv_3x3_s2_sm90),
    T(test_conv_3x3_c200_sm90),
    T(test_conv_3x3_c32_sm90),
    T(test_conv_160_filters_sm90),
    T(test_conv_clusters_sm90),
    T(test_conv_odd8_clusters_sm90),
    T(test_conv_odd8_resident_sm90),
    T(test_conv_stream_k_sm90),
    T(test_conv_3x3_c72_sm90),
    T(test_conv_1x1_staged_sm90),
    T(test_conv_3x3_sm80),
    T(test_benchmark_median),
    T(test_tune_refuses_bad_options),
    T(test_tune_records_and_launches_take_it),
    T(test_tune_replays_graphs),
    T(test_nvrtc_failures_told_apart),
    T(test_device_name_failing),
    T(test_tune_candidates_fit),
    T(test_tune_conv_candidates_fit),
    T(test_tune_repacked),
    T(test_device_memory_and_target),
    T(test_no_device),
    T(test_capture),
    T(test_destroy_under_capture),
    T(test_driver_failures),
    T(test_compile_failure),
    T(test_every_call_failing),
    T(test_gemm_batched),
    T(test_gemm_batched_misaligned),
    T(test_gemm_transposed_sm90_tma),
    T(test_direct_epilogue_placement),
#undef T
    };

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/evt-fakecuda-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    strbuf err;
    sb_init(&err);
    cg_nvrtc *nvrtc = cg_nvrtc_load(NULL, &err); /* loaded, never compiling here */
    have_nvrtc = nvrtc != NULL;
    cg_nvrtc_unload(nvrtc);
    if (!have_nvrtc)
        printf("test_fake_driver: %s; the fake NVRTC stands in\n", sb_str(&err));
    sb_free(&err);
    /* a disk cache of this run's own: hermetic, and filled by the child */
    setenv("EVT_CACHE_DIR", dir, 1);
    unsetenv("EVT_DISABLE_CACHE");
    const pid_t child = fork();
    if (child == 0) {
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        cmocka_run_group_tests(tests, group_setup, group_teardown);
        _exit(0); /* no exit handlers: LeakSanitizer must not scan NVRTC's threads */
    }
    if (child > 0)
        waitpid(child, NULL, 0);
    const int failed = cmocka_run_group_tests(tests, group_setup, group_teardown);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return failed;
}
