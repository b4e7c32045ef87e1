/*
 * fuzz_launch.c - libFuzzer target for the launch API: the input is decoded
 * into a sequence of calls (evt_launch_create on a fixed module's GEMM and
 * conv kernels, an fp8 GEMM's among them, set_gemm and set_conv with
 * hostile sizes, leading dimensions and padding, set_batch with hostile
 * counts and batch strides, bind and bind_batched with pointers into the
 * fake's memory, NULL, misaligned or made up, set_param, set_tuning,
 * workspace_size, run, run in a caller's workspace, benchmark; the device
 * switched, a CUDA graph capture begun, a driver call made to fail) against
 * the stand-in driver and NVRTC of tests/fakecuda, found at the path
 * EVT_FAKECUDA.
 *
 * Checked after every call, beyond ASan and UBSan: the status is an
 * evt_status, a failure leaves a message, the driver was never misused
 * (fakecuda_violations).  After every run that succeeded: each kernel it
 * launched was launched with the argument struct the model of the bindings
 * says (batch strides as packed: the operands' in bytes, the epilogue's in
 * elements), its grid within the batch's tiles, and where every binding is
 * honest (its bytes inside a real allocation) every extent the kernel can
 * touch (operands, inputs and outputs from the packed sizes, leading
 * dimensions and batch strides up to a batch's last problem, reduction
 * words, split-K slots, the regions of its TMA maps) inside the fake's
 * allocations.  An fp8 kernel never runs on the sm_80 device, and where the
 * same launch runs on the sm_90a one, its refusal there was
 * EVT_ERR_UNSUPPORTED.  After every input: nothing of the launches' left
 * alive.
 *
 * Built without libFuzzer, tests/fuzz/standalone.c's main replays files and
 * folders and then random inputs: `fuzz_launch_replay [--seeds N] PATH...`.
 */
#define _GNU_SOURCE /* strdup, DT_REG */
#include <evt/evt.h>
#include "codegen/layout.h"
#include "plan/plan.h"
#define FAKECUDA_OPEN
#include "tests/fakecuda/fakecuda.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char source[] =
    "epilogue wide {\n"
    "    param alpha : f32 = 1.0\n"
    "    param beta  : f32\n"
    "    in  bias : f16[N]\n"
    "    in  rows : f32[M]\n"
    "    in  res  : bf16[M, N]\n"
    "    in  sc   : f32\n"
    "    out d    : f16[M, N] = relu(alpha * acc + bias) * beta + res * sc * rows\n"
    "    out amax : f32 = reduce_max(abs(acc))\n"
    "    out csum : f32[N] = reduce_sum(acc, M)\n"
    "    out rmin : f32[M] = reduce_min(acc, N)\n"
    "}\n"
    "epilogue plain {\n"
    "    out y : f32[M, N] = acc\n"
    "}\n"
    "epilogue residual {\n"
    "    in  res  : f16[M, N]\n"
    "    in  bias : f16[N]\n"
    "    out y    : f16[M, N] = relu(acc + bias) + res\n"
    "}\n"
    "kernel g_tn  = gemm(a: f16 row, b: f16 col, acc: f32) with wide\n"
    "kernel g_nn  = gemm(a: bf16 row, b: bf16 row, acc: f32) with plain\n"
    "kernel g_nt  = gemm(a: f16 col, b: f16 row, acc: f32) with residual\n"
    "kernel g_tnb = gemm(a: bf16 row, b: bf16 col, acc: f32) with residual\n"
    "kernel c_res = conv2d_fprop(x: f16, w: f16, acc: f32) with residual\n"
    "kernel c_wide = conv2d_fprop(x: bf16, w: bf16, acc: f32) with wide\n"
    /* fp8 (docs/fp8.md): runs on sm_89 and sm_90a, refused on sm_80 */
    "kernel g_f8 = gemm(a: e4m3 row, b: e5m2 col, acc: f32) with wide\n";

/* the devices: sm_90a, sm_80, an sm_90a of 4 SMs (persistent grids smaller than the tiles) */
#define DEVICES "9.0x132,8.0x108,9.0x4,8.9x128"
enum { NDEVICES = 4, NLAUNCHES = 3, MAX_STEPS = 48, MAX_ARGS = 16 };

/* ---- the world, made once ------------------------------------------------ */

/* Device memory the inputs point into: buffers of several sizes. */
enum { NPOOL = 12 };
static const size_t pool_size[NPOOL] = {1,      16,      256,     4096,     65536,    1 << 20,
                                        1 << 20, 4 << 20, 8 << 20, 16 << 20, 64 << 20, 64 << 20};

static struct {
    fakecuda_api fc;
    evt_ctx *ctx;
    evt_module *m, *scratch;
    void *pool[NPOOL];
    void *stream;
    size_t live_allocs; /* the pool's */
} w;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_launch: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static void init(void)
{
    if (w.ctx)
        return;
    /* nothing of a fuzzer's may reach a real cache, nor the real one it */
    setenv("EVT_DISABLE_CACHE", "1", 1);
    /* Device memory is host memory: a device of 1 GiB keeps a launch whose
     * workspace is legitimately huge (a split-K of a huge problem) below
     * libFuzzer's malloc limit (run.sh: 2 GiB), and makes it meet what a
     * full device answers, CUDA_ERROR_OUT_OF_MEMORY, which the launch must
     * report.  Read when the fake is loaded, so set before. */
    setenv("FAKECUDA_MEM", "1073741824", 1);
    if (fakecuda_open(EVT_FAKECUDA, &w.fc) != 0)
        die("cannot open the fake driver", EVT_FAKECUDA);
    if (w.fc.fakecuda_configure(DEVICES) != 0)
        die("cannot configure the fake devices", DEVICES);
    w.ctx = evt_ctx_create();
    if (!w.ctx || evt_ctx_set_library_path(w.ctx, EVT_LIBRARY_CUDA_DRIVER, EVT_FAKECUDA) != EVT_OK ||
        evt_ctx_set_library_path(w.ctx, EVT_LIBRARY_NVRTC, EVT_FAKECUDA) != EVT_OK)
        die("cannot make a context", NULL);
    if (evt_module_parse_buffer(w.ctx, "fuzz.evt", source, strlen(source), &w.m) != EVT_OK ||
        evt_module_optimize(w.m, 2) != EVT_OK ||
        evt_module_parse_buffer(w.ctx, "empty.evt", "", 0, &w.scratch) != EVT_OK)
        die("the module does not parse", evt_ctx_last_error(w.ctx));
    for (int i = 0; i < NPOOL; i++)
        if (evt_device_alloc(w.ctx, pool_size[i], &w.pool[i]) != EVT_OK)
            die("cannot allocate the pool", evt_ctx_last_error(w.ctx));
    if (w.fc.cuStreamCreate(&w.stream, 0) != 0)
        die("cannot create a stream", NULL);
    w.live_allocs = w.fc.fakecuda_live_allocs(NULL);
}

/* ---- reading the input ---------------------------------------------------- */

typedef struct rd {
    const uint8_t *p;
    size_t n;
} rd;

static unsigned u8(rd *r)
{
    if (!r->n)
        return 0;
    r->n--;
    return *r->p++;
}

static uint32_t u32(rd *r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 8 | u8(r);
    return v;
}

static uint64_t u64(rd *r)
{
    return (uint64_t)u32(r) << 32 | u32(r);
}

static unsigned pick(rd *r, unsigned n)
{
    return u8(r) % n;
}

/* A size, leading dimension or padding: mostly the edges. */
static long long hostile(rd *r)
{
    static const long long v[] = {0,       1,       2,       3,        7,         8,
                                  9,       15,      16,      17,       31,        32,
                                  33,      41,      63,      64,       65,        83,
                                  97,      127,     128,     129,      255,       256,
                                  257,     511,     512,     1000,     1024,      4095,
                                  4096,    4097,    65535,   65536,    1 << 20,   INT_MAX - 1,
                                  INT_MAX, (long long)INT_MAX + 1, 1LL << 32, 1LL << 40, 1LL << 62,
                                  LLONG_MAX, -1, -2, -64, INT_MIN, LLONG_MIN};
    const unsigned c = u8(r);
    if (c < 200)
        return v[c % (sizeof v / sizeof v[0])];
    if (c < 240)
        return (long long)(u32(r) % 5000);
    return (long long)u64(r);
}

/* A size that a run can afford (its buffers fit in the pool). */
static long long modest(rd *r)
{
    /* 1001 and 4097: large enough, and unaligned enough, for the repack (api/launch.c) */
    static const long long v[] = {1,   2,   7,   8,   9,   16,  31,   64,   65,   97,   128, 130,
                                  192, 256, 384, 512, 520, 1000, 1001, 1024, 2048, 4097};
    return v[pick(r, sizeof v / sizeof v[0])];
}

/* A batch's count (evt_launch_set_batch): a few problems, up to a few
 * hundred, or past what it takes (0, negative, 2^31 and more). */
static long long batch_count(rd *r, int sane)
{
    static const long long few[] = {2, 3, 4, 7, 16};
    static const long long v[] = {1, 2, 3, 5, 64, 127, 600, 0, -1, -600, INT_MAX, (long long)INT_MAX + 1,
                                  1LL << 40, LLONG_MAX, LLONG_MIN};
    if (sane)
        return few[pick(r, sizeof few / sizeof few[0])];
    const unsigned c = u8(r);
    if (c < 200)
        return v[c % (sizeof v / sizeof v[0])];
    return c < 240 ? 1 + (long long)(u32(r) % 600) : hostile(r);
}

/* A batch stride in elements for problems of `one` elements each: exact, a
 * little more, shared (0, unless the buffer is an output and sane), or
 * (hostile) too small, off by an element (misaligned for the fast path),
 * overflowing, negative. */
static long long batch_stride(rd *r, long long one, int sane, int may_share)
{
    const unsigned c = u8(r);
    if (sane || c < 200) {
        switch (c % 5) {
        case 0: if (may_share || !sane) return 0; /* fall through */
        case 1: return one;
        case 2: return one + 8;
        case 3: return one + 64;
        default: return one + 1;
        }
    }
    static const long long v[] = {-1, -16, 1, 8, 1LL << 31, 1LL << 40, 1LL << 62, LLONG_MAX, LLONG_MIN};
    if (c < 220)
        return one > 0 ? one - 1 - (c & 7) : 1;
    if (c < 245)
        return v[c % (sizeof v / sizeof v[0])];
    return hostile(r);
}

/* Bytes a batch of `count` problems of `one` elements of `es` bytes,
 * `stride` elements apart, spans (one problem for a count of 1 or less,
 * which the launch refuses or ignores strides for); 0 where it overflows. */
static size_t batched_need(unsigned long long one, long long count, long long stride, size_t es)
{
    unsigned long long n = one;
    if (count > 1 && stride > 0 && one > 0) {
        if ((unsigned long long)stride > (ULLONG_MAX - one) / (unsigned long long)(count - 1))
            return 0;
        n += (unsigned long long)(count - 1) * (unsigned long long)stride;
    }
    return n > SIZE_MAX / 2 / es ? 0 : (size_t)(n * es);
}

static int is_fp8(const evt_kernel *k)
{
    const evt_elem e = evt_kernel_operand(k, 0)->elem;
    return e == EVT_E4M3 || e == EVT_E5M2;
}

/* ---- the model of a launch's bindings ----------------------------------------- */

/* A buffer as bound: honest when it lies inside one allocation of the
 * pool, bytes included, so the kernel may touch all of it. */
typedef struct buf {
    void *ptr;
    size_t bytes;
    long long ld;
    long long stride; /* elements between the problems of a batch (0: shared) */
    int honest;
} buf;

typedef struct model {
    evt_launch *l;
    const evt_kernel *k;
    const evt_epilogue *e;
    cg_layout layout;
    int problem;             /* set_gemm or set_conv succeeded */
    long long m, n, k_;      /* the GEMM view */
    evt_conv_problem conv;
    long long p, q;
    long long batch;         /* evt_launch_set_batch's count; 1 after set_gemm and set_conv */
    buf ops[2];
    buf args[MAX_ARGS];      /* by input then output index, as the layout's */
    int nin, nout, nparam;
} model;

static model L[NLAUNCHES];
static int capturing, injected;
/* The fake's current device (DEVICES' index): 1 is the sm_80 */
static int current_device;
/* The run's workspace is the launch's own or lies inside the pool. */
static int ws_honest;
/* The operands' copies of the run being checked (api/launch.c's repack:
 * rows not 16-byte aligned, copied ahead of the GEMM into the workspace):
 * each copied operand's address, NULL for one the run reads in place, and
 * its rows' elements (rounded up to 16 bytes'). */
static const void *repacked[2];
static long long repacked_ld[2];
static long long repacked_stride[2]; /* the copy's batch stride, elements (0: shared) */
/* What the checks saw, for the replay's summary: launches checked, those
 * with every extent checked, TMA maps checked. */
static long launches_checked, launches_in_bounds, maps_checked;

/* A pointer and its honest size: into the pool (aligned or not), NULL, or made up. */
static buf pointer(rd *r, size_t want)
{
    buf b = {0};
    const unsigned c = u8(r);
    if (c < 8) { /* honest: a kernel that touches it is caught all the same */
        b.ptr = NULL;
        b.bytes = c < 4 ? 0 : want;
        b.honest = 1;
        return b;
    }
    if (c < 16) { /* made up: an address nothing was allocated at */
        b.ptr = (void *)(uintptr_t)(0x7e0000000000ull + (u32(r) & ~15u));
        b.bytes = want;
        return b;
    }
    int i = (int)pick(r, NPOOL);
    if (c < 200) /* the smallest buffer that holds it, usually */
        for (i = 0; i < NPOOL - 1 && pool_size[i] < want; i++)
            ;
    size_t off = 0;
    const unsigned o = u8(r);
    if (o >= 200)
        off = (o - 200) * (o & 1 ? 1 : 16); /* misaligned, or 16-byte steps */
    if (off > pool_size[i])
        off = pool_size[i];
    b.ptr = (char *)w.pool[i] + off;
    const size_t room = pool_size[i] - off;
    /* the size asked for (or what is left), a few bytes short of it, all
     * that is left, or a lie */
    const unsigned lie = u8(r);
    b.bytes = lie < 212 ? (want < room ? want : room)
              : lie < 220 ? (want > 4 ? want - 1 - (lie & 3) : 0)
              : lie < 240 ? room
                          : want + (size_t)u32(r);
    b.honest = b.bytes <= room;
    return b;
}

static evt_status check(const char *call, evt_status st);

static void model_create(model *md, rd *r)
{
    evt_launch_destroy(md->l); /* perhaps under capture: it must not break it */
    check("evt_launch_destroy", EVT_OK);
    memset(md, 0, sizeof *md);
    md->batch = 1;
    /* the last kernel (fp8) only for the top bytes: the others decode as
     * before it was added, so the corpus keeps reaching what it reached */
    const unsigned nk = (unsigned)evt_module_kernel_count(w.m) - 1, c = u8(r);
    md->k = evt_module_kernel(w.m, c >= 252 ? nk : c % nk);
    md->e = evt_kernel_epilogue(md->k);
    md->nin = (int)evt_epilogue_arg_count(md->e, EVT_ARG_INPUT);
    md->nout = (int)evt_epilogue_arg_count(md->e, EVT_ARG_OUTPUT);
    md->nparam = (int)evt_epilogue_arg_count(md->e, EVT_ARG_PARAM);
    if (!cg_layout_of(md->k, &md->layout) || md->nin + md->nout > MAX_ARGS)
        die("the fixed module's layout", NULL);
    if (evt_launch_create(w.m, md->k, &md->l) != EVT_OK)
        die("evt_launch_create", evt_ctx_last_error(w.ctx));
}

/* Argument j of the model's epilogue: inputs first, then outputs. */
static const evt_arg_info *arg(const model *md, int j)
{
    return j < md->nin ? evt_epilogue_arg(md->e, EVT_ARG_INPUT, (size_t)j)
                       : evt_epilogue_arg(md->e, EVT_ARG_OUTPUT, (size_t)(j - md->nin));
}

/* ---- checking a call ---------------------------------------------------------- */

static void clear_error(void)
{
    /* optimizing an empty module clears the context's last error and does nothing else */
    if (evt_module_optimize(w.scratch, 0) != EVT_OK)
        die("evt_module_optimize of an empty module", NULL);
}

/* The driver's violations a caller's lie caused, not evt: a workspace
 * pointer into no allocation, which stream-K's cuMemsetD32Async is the
 * first driver call to touch (the driver refuses it; evt reports that). */
static long lied_violations;

/* Every call's contract: an evt_status; a failure says why; the driver was not misused. */
static evt_status check(const char *call, evt_status st)
{
    if ((unsigned)st > EVT_ERR_BAD_BUFFER)
        die(call, "returned no evt_status");
    if (st != EVT_OK && !evt_ctx_last_error(w.ctx)[0]) {
        fprintf(stderr, "fuzz_launch: %s returned %s with no message\n", call, evt_status_string(st));
        abort();
    }
    if (w.fc.fakecuda_violations() > lied_violations) {
        fprintf(stderr, "fuzz_launch: %s (%s: %s) misused the driver: %s\n", call, evt_status_string(st),
                evt_ctx_last_error(w.ctx), w.fc.fakecuda_last_violation());
        abort();
    }
    return st;
}

/* Bytes of rows rows of cols elements of `elem` bytes, ld apart (0 when empty). */
static unsigned long long extent(long long rows, long long cols, long long ld, size_t elem)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    return ((unsigned long long)(rows - 1) * (unsigned long long)ld + (unsigned long long)cols) * elem;
}

/* The launch record check_launch is checking: a benchmark's later run
 * may grow the launch's workspace, freeing the one an earlier run used. */
static size_t checking;

static void expect_inside(const char *what, const char *fn, const void *ptr, unsigned long long bytes)
{
    if (bytes && !w.fc.fakecuda_find_alloc_at(ptr, bytes, checking)) {
        fprintf(stderr, "fuzz_launch: %s launched with %s at %p reaching %llu bytes, past its allocation\n", fn,
                what, ptr, bytes);
        abort();
    }
}

/* Rows `ld` apart hold `cols` elements without overlapping: what
 * evt_launch_run promises of every leading dimension it takes. */
static void expect_row(const char *fn, const char *field, long long ld, long long cols)
{
    if (ld < cols) {
        fprintf(stderr, "fuzz_launch: %s launched with %s = %lld for rows of %lld\n", fn, field, ld, cols);
        abort();
    }
}

/* A kernel reaches no further than the bytes its buffer was bound with:
 * what evt_launch_run promises to check. */
static void expect_claimed(const char *what, const char *fn, unsigned long long reach, size_t bytes)
{
    if (reach > bytes) {
        fprintf(stderr, "fuzz_launch: %s launched reaching %llu bytes of %s, bound with %zu\n", fn, reach, what,
                bytes);
        abort();
    }
}

static void expect_eq(const char *fn, const char *field, long long got, long long want)
{
    if (got != want) {
        fprintf(stderr, "fuzz_launch: %s launched with %s = %lld, bound as %lld\n", fn, field, got, want);
        abort();
    }
}

/* The configuration in an entry point's name (the longest that occurs in it). */
static const plan_config *config_of(const char *entry)
{
    const plan_config *best = NULL;
    for (int i = 0; i < evt_config_count(); i++) {
        const char *name = evt_config_name(i);
        if (strstr(entry, name) && (!best || strlen(name) > strlen(best->name)))
            best = plan_config_find(name);
    }
    return best;
}

static int ends_with(const char *s, const char *tail)
{
    const size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* Where a TMA map's box can reach: from its address, the last element of
 * every dimension. */
static void expect_map_inside(const char *fn, long index)
{
    fakecuda_tensor_map t;
    if (index < 0 || w.fc.fakecuda_get_tensor_map((size_t)index, &t) != 0 || t.result != 0)
        die("a TMA map the driver did not make was passed to", fn);
    /* CUtensorMapDataType: UINT8 (fp8), 16-bit ones, 32-bit ones */
    const unsigned long long es = t.dtype == 0 ? 1 : t.dtype == 1 || t.dtype == 6 || t.dtype == 9 ? 2
                                  : t.dtype == 4 || t.dtype == 5 || t.dtype == 8 ? 8 : 4;
    unsigned long long reach = t.dims[0] * es;
    for (unsigned i = 1; i < t.rank; i++)
        reach += (t.dims[i] - 1) * t.strides[i - 1];
    expect_inside(t.im2col ? "an im2col map" : "a tiled map", fn, t.address, reach);
    maps_checked++;
}

/* The k tiles a persistent entry's launch f shares out by stream-K (its
 * last parameter, kernels/sched/tiles.cuh's evt_stream_k); 0 for none or
 * another entry. */
static long long sk_iters(const fakecuda_launch *f, const plan_config *c)
{
    if (!plan_config_persistent(c) || f->nparams < 2 || f->param_size[f->nparams - 1] != 32)
        return 0;
    return fakecuda_i64_at(f->params[f->nparams - 1], 16);
}

/* Launch record i of a successful run of md: what was packed is what the
 * model holds, and where every binding is honest, nothing it touches lies
 * past an allocation. */
static void check_launch(const model *md, size_t i)
{
    fakecuda_launch f;
    checking = i;
    if (w.fc.fakecuda_get_launch(i, &f) != 0)
        die("a launch record vanished", NULL);
    if (f.result != 0)
        die("a run succeeded past a refused launch of", f.function);
    /* every entry but the repack (its own six parameters) takes the argument struct first */
    if (!ends_with(f.function, "_repack") && (f.nparams < 1 || f.param_size[0] != md->layout.size))
        die("the argument struct's size disagrees with the kernel's, in", f.function);
    const int conv = evt_kernel_mainloop(md->k) == EVT_MAINLOOP_CONV2D_FPROP;
    int honest = md->ops[0].honest && md->ops[1].honest;
    for (int j = 0; j < md->nin + md->nout; j++)
        honest &= md->args[j].honest;
    launches_checked++;
    launches_in_bounds += honest && ws_honest;
    if (ends_with(f.function, "_repack")) {
        /* (src, ld, dst, rows, e, e8): one operand's rows of e elements (K
         * where K-contiguous, else M or N) into rows of e8, e rounded up to
         * 16 bytes' elements, in the workspace */
        const evt_operand_info *oa = evt_kernel_operand(md->k, 0), *ob = evt_kernel_operand(md->k, 1);
        if (conv || f.nparams != 6 || f.param_size[0] != 8 || f.param_size[1] != 8 ||
            f.param_size[2] != 8 || f.param_size[3] != 8 || f.param_size[4] != 8 || f.param_size[5] != 8)
            die("a repack of operands that are not a plain GEMM's, in", f.function);
        const void *src = fakecuda_ptr_at(f.params[0], 0), *dst = fakecuda_ptr_at(f.params[2], 0);
        const long long ld = fakecuda_i64_at(f.params[1], 0), rows = fakecuda_i64_at(f.params[3], 0);
        const long long e = fakecuda_i64_at(f.params[4], 0), e8 = fakecuda_i64_at(f.params[5], 0);
        const size_t es = evt_elem_size(oa->elem);
        const long long chunk = 16 / (long long)es;
        const int kc[2] = {oa->layout == EVT_LAYOUT_ROW, ob->layout == EVT_LAYOUT_COL};
        /* the first operand it matches not copied yet in this run: A's copy
         * comes first, and A and B may be one buffer of one shape; where
         * every match is copied already, a benchmark's next run began.  A
         * batch's operand with a problem of its own each, one after the
         * other, copies every problem's rows; one the batch shares, once */
        int o = -1;
        for (int pass = 0; pass < 2 && o < 0; pass++) {
            if (pass == 1)
                repacked[0] = repacked[1] = NULL;
            for (int c = 0; c < 2 && o < 0; c++) {
                const long long rows1 = kc[c] ? (c ? md->n : md->m) : md->k_;
                const int own = md->batch > 1 && md->ops[c].stride != 0;
                if (!repacked[c] && src == md->ops[c].ptr && ld == md->ops[c].ld &&
                    rows == (own ? md->batch * rows1 : rows1) && e == (kc[c] ? md->k_ : (c ? md->n : md->m)) &&
                    (!own || md->ops[c].stride == rows1 * ld))
                    o = c;
            }
        }
        if (o < 0 || e8 != (e + chunk - 1) / chunk * chunk)
            die("a repack's source, rows or elements differ from the problem's, in", f.function);
        if (e % chunk == 0 && ld % chunk == 0 && (uintptr_t)src % 16 == 0)
            die("a repack of an aligned operand, in", f.function);
        if (md->ops[o].honest)
            expect_inside("a repacked operand", f.function, src, extent(rows, e, ld, es));
        if (ws_honest)
            expect_inside("an operand's copy", f.function, dst, (unsigned long long)rows * (unsigned long long)e8 * es);
        repacked[o] = dst;
        repacked_ld[o] = e8;
        repacked_stride[o] = md->batch > 1 && md->ops[o].stride != 0 ? rows / md->batch * e8 : 0;
        return;
    }
    const unsigned char *a = f.params[0];
    const long long M = md->m, N = md->n, B = md->batch;
    long long tiles = 0, op_stride[2] = {0, 0}; /* the operands' packed batch strides, in bytes */
    for (size_t fi = 0; fi < md->layout.nfields; fi++) {
        const cg_field *fd = &md->layout.fields[fi];
        const size_t off = fd->offset;
        switch (fd->role) {
        case CG_ROLE_OPERAND:
            expect_eq(f.function, fd->name, (long long)(uintptr_t)fakecuda_ptr_at(a, off),
                      (long long)(uintptr_t)(repacked[fd->index] ? repacked[fd->index] : md->ops[fd->index].ptr));
            break;
        case CG_ROLE_OPERAND_LD: {
            /* the contiguous extent: K of a row-major A or column-major B, else M or N;
             * a copy's rows are dense, K rounded up, and so is the problem's K */
            const int col = evt_kernel_operand(md->k, (size_t)fd->index)->layout == EVT_LAYOUT_COL;
            expect_eq(f.function, fd->name, fakecuda_i64_at(a, off),
                      repacked[fd->index] ? repacked_ld[fd->index] : md->ops[fd->index].ld);
            expect_row(f.function, fd->name, fakecuda_i64_at(a, off),
                       fd->index == 0 ? (col ? M : md->k_) : (col ? md->k_ : N));
            break;
        }
        case CG_ROLE_M:
            expect_eq(f.function, fd->name, fakecuda_i32_at(a, off), M);
            break;
        case CG_ROLE_N:
            expect_eq(f.function, fd->name, fakecuda_i32_at(a, off), N);
            break;
        case CG_ROLE_INPUT:
        case CG_ROLE_OUTPUT: {
            const int j = fd->role == CG_ROLE_INPUT ? fd->index : md->nin + fd->index;
            const evt_arg_info *ai = arg(md, j);
            expect_eq(f.function, fd->name, (long long)(uintptr_t)fakecuda_ptr_at(a, off),
                      (long long)(uintptr_t)md->args[j].ptr);
            const long long rows = ai->shape & EVT_SHAPE_M ? M : 1, cols = ai->shape & EVT_SHAPE_N ? N : 1;
            const long long ld = ai->shape == EVT_SHAPE_MN ? md->args[j].ld : cols;
            const size_t es = evt_elem_size(ai->elem);
            unsigned long long reach = extent(rows, cols, ld, es);
            /* the last problem of a batch, its stride past the first (the run refused overflow) */
            if (reach && B > 1)
                reach += (unsigned long long)(B - 1) * (unsigned long long)md->args[j].stride * es;
            expect_claimed(ai->name, f.function, reach, md->args[j].bytes);
            if (honest)
                expect_inside(ai->name, f.function, md->args[j].ptr, reach);
            break;
        }
        case CG_ROLE_INPUT_LD:
            expect_eq(f.function, fd->name, fakecuda_i64_at(a, off), md->args[fd->index].ld);
            expect_row(f.function, fd->name, fakecuda_i64_at(a, off), N);
            break;
        case CG_ROLE_OUTPUT_LD:
            expect_eq(f.function, fd->name, fakecuda_i64_at(a, off), md->args[md->nin + fd->index].ld);
            if (arg(md, md->nin + fd->index)->shape == EVT_SHAPE_MN)
                expect_row(f.function, fd->name, fakecuda_i64_at(a, off), N);
            break;
        case CG_ROLE_WORKSPACE: {
            const evt_arg_info *ai = arg(md, md->nin + fd->index);
            long long rows, cols;
            cg_reduction_dims(ai->shape, M, N, &rows, &cols); /* for each problem of the batch */
            if (ws_honest)
                expect_inside("a reduction's words", f.function, fakecuda_ptr_at(a, off),
                              (unsigned long long)(rows * cols) * (unsigned long long)B * 4);
            break;
        }
        case CG_ROLE_SIZE:
        case CG_ROLE_PARAM:
            break;
        /* a batch of one packs no strides; operands' are in bytes, the
         * epilogue's in elements (api/launch.c's packing) */
        case CG_ROLE_OPERAND_STRIDE:
            op_stride[fd->index] = fakecuda_i64_at(a, off);
            expect_eq(f.function, fd->name, op_stride[fd->index],
                      B > 1 ? (repacked[fd->index] ? repacked_stride[fd->index] : md->ops[fd->index].stride) *
                                  (long long)evt_elem_size(evt_kernel_operand(md->k, (size_t)fd->index)->elem)
                            : 0);
            break;
        case CG_ROLE_INPUT_STRIDE:
            expect_eq(f.function, fd->name, fakecuda_i64_at(a, off), B > 1 ? md->args[fd->index].stride : 0);
            break;
        case CG_ROLE_OUTPUT_STRIDE:
            expect_eq(f.function, fd->name, fakecuda_i64_at(a, off),
                      B > 1 ? md->args[md->nin + fd->index].stride : 0);
            break;
        case CG_ROLE_BATCH:
            expect_eq(f.function, fd->name, fakecuda_i32_at(a, off), B);
            break;
        case CG_ROLE_BATCH_INDEX:
            expect_eq(f.function, fd->name, fakecuda_i32_at(a, off), 0);
            break;
        }
    }
    /* the operands, from the packed problem */
    unsigned long long reach[2];
    if (!conv) {
        const long long m = fakecuda_i32_at(a, 16), n = fakecuda_i32_at(a, 20), k = fakecuda_i32_at(a, 24);
        const int a_col = evt_kernel_operand(md->k, 0)->layout == EVT_LAYOUT_COL;
        const int b_col = evt_kernel_operand(md->k, 1)->layout == EVT_LAYOUT_COL;
        const size_t ea = evt_elem_size(evt_kernel_operand(md->k, 0)->elem);
        const size_t eb = evt_elem_size(evt_kernel_operand(md->k, 1)->elem);
        reach[0] = a_col ? extent(k, m, fakecuda_i64_at(a, 32), ea) : extent(m, k, fakecuda_i64_at(a, 32), ea);
        reach[1] = b_col ? extent(n, k, fakecuda_i64_at(a, 40), eb) : extent(k, n, fakecuda_i64_at(a, 40), eb);
        /* the batch's last problem, the packed byte stride past the first */
        for (int o = 0; o < 2; o++)
            if (reach[o] && B > 1)
                reach[o] += (unsigned long long)(B - 1) * (unsigned long long)op_stride[o];
    } else {
        long long z[15];
        for (int s = 0; s < 15; s++)
            z[s] = fakecuda_i32_at(a, 16 + 4 * (size_t)s);
        reach[0] = extent(z[0] * z[1] * z[2], z[3], z[3], 2);
        reach[1] = extent(z[4], z[5] * z[6] * z[3], z[5] * z[6] * z[3], 2);
    }
    for (int o = 0; o < 2; o++) {
        const char *name = evt_kernel_operand(md->k, (size_t)o)->name;
        if (repacked[o]) { /* the copy, in the workspace */
            if (ws_honest)
                expect_inside(name, f.function, fakecuda_ptr_at(a, 8 * (size_t)o), reach[o]);
            continue;
        }
        expect_claimed(name, f.function, reach[o], md->ops[o].bytes);
        if (honest)
            expect_inside(name, f.function, fakecuda_ptr_at(a, 8 * (size_t)o), reach[o]);
    }
    if (ends_with(f.function, "_reduce_init") || ends_with(f.function, "_reduce_finish"))
        return;
    /* a main entry: the grid against the tiles, split-K's slots, the maps */
    const plan_config *c = config_of(f.function);
    if (!c)
        die("no configuration in the entry point's name", f.function);
    tiles = plan_config_batch_tiles(c, M, N, B); /* a batch's tiles share the grid */
    const long long shared = sk_iters(&f, c); /* stream-K's k tiles, its grid's bound */
    const int split = strstr(f.function, "_splitk_") != NULL, sum = strstr(f.function, "_splitsum_") != NULL;
    /* the configuration's threads; a split-K sum CTA's more (EVT_TILE_SUM_THREADS) */
    if (f.block[0] != (unsigned)(sum ? c->sum_threads : c->threads) || f.block[1] != 1 || f.block[2] != 1)
        die("the block is not the configuration's threads in", f.function);
    if (split || sum) {
        /* (args, slots, splits, tile0): the tiles from tile0 on, all of them
         * but a persistent plan's tail's */
        if (f.nparams != 4 || f.param_size[2] != 4 || f.param_size[3] != 4)
            die("split-K parameters of", f.function);
        const int splits = fakecuda_i32_at(f.params[2], 0), tile0 = fakecuda_i32_at(f.params[3], 0);
        if (splits < 2 || splits > 1 << 20 || tile0 < 0 || tile0 >= tiles)
            die("split-K parameters of", f.function);
        const long long own = tiles - tile0;
        if ((long long)f.grid[0] != (split ? own * splits : own))
            die("the split-K grid is not tiles x splits (or tiles) in", f.function);
        if (ws_honest)
            expect_inside("split-K's slots", f.function, fakecuda_ptr_at(f.params[1], 0),
                      (unsigned long long)own * (unsigned long long)splits * (unsigned long long)(c->bm * c->bn) * 4);
    } else if ((long long)f.grid[0] % c->cluster != 0 ||
               (long long)f.grid[0] / c->cluster > (shared > 0 ? shared : tiles) ||
               (!plan_config_persistent(c) && (long long)f.grid[0] != tiles)) {
        /* a clustered grid is whole clusters, one to a stack of cluster M
         * tiles, so up to cluster x tiles CTAs (the stack of a lone tile
         * has a CTA that only feeds the multicast) */
        fprintf(stderr, "fuzz_launch: %s launched %u CTAs for %lld tiles\n", f.function, f.grid[0], tiles);
        /* (stream-K's grid may pass the tiles: a CTA per SM, up to one a shared k tile) */
        abort();
    } else if (plan_config_persistent(c)) {
        /* its last two parameters: where its walk stops, past its grid, at
         * most every tile; and stream-K (kernels/sched/tiles.cuh's
         * evt_stream_k: slots, flags, the shared k tiles, the first shared
         * tile or stack), only on a cooperative configuration, its flags
         * (128 bytes a CTA) and slots (a tile of floats a CTA) in the
         * workspace */
        const int last = f.nparams - 2;
        const long long tile_end = last >= 1 ? fakecuda_i32_at(f.params[last], 0) : -1;
        const long long walked = (long long)f.grid[0] < tiles ? (long long)f.grid[0] : tiles;
        if (last < 1 || f.param_size[last] != 4 || tile_end > tiles ||
            (c->cluster > 1 ? tile_end != tiles /* no tail */ : tile_end < walked))
            die("a persistent entry's tile end in", f.function);
        if (f.param_size[last + 1] != 32)
            die("a persistent entry's stream-K parameter in", f.function);
        const unsigned char *sk = f.params[last + 1];
        const long long first = fakecuda_i32_at(sk, 24);
        /* under clusters the walk is of stacks of cluster M tiles and a
         * unit is a cluster (plan.c's walk_stacks, stream_k_of) */
        const long long units = (long long)f.grid[0] / c->cluster;
        const long long walk = c->cluster > 1 ? plan_config_batch_tiles(c, (M + c->cluster - 1) / c->cluster, N, B) : tiles;
        if (shared < 0 || (shared > 0 && (!plan_config_stream_k(c) ||
                                          tile_end != tiles || first < 0 || first >= walk || units < 1 ||
                                          first % units != 0)))
            die("a persistent entry's stream-K parameter in", f.function);
        if (shared > 0 && ws_honest) {
            expect_inside("stream-K's flags", f.function, fakecuda_ptr_at(sk, 8), (unsigned long long)f.grid[0] * 128);
            expect_inside("stream-K's slots", f.function, fakecuda_ptr_at(sk, 0),
                          (unsigned long long)f.grid[0] * (unsigned long long)(c->bm * c->bn) * 4);
        }
    }
    if (f.nparams >= 2 && f.param_size[1] == 384 && honest)
        for (int mi = 0; mi < 3; mi++) {
            /* maps A, B, the staged input; a repacked operand's is of its
             * copy, in the workspace, which only an honest one bounds */
            const long index = w.fc.fakecuda_tensor_map_of(f.params[1] + 128 * mi);
            if (index >= 0 && (mi == 2 || !repacked[mi] || ws_honest))
                expect_map_inside(f.function, index);
        }
}

/* Every launch since record `from`, of runs of md that succeeded in a
 * workspace that is honest or not; of one run (not a benchmark's several,
 * which a failed tensor map may plan apart), the main entry's grid is the
 * plan's. */
static void check_run(const model *md, size_t from, int honest_ws, int one_run)
{
    ws_honest = honest_ws;
    repacked[0] = repacked[1] = NULL;
    const size_t to = w.fc.fakecuda_launch_count();
    for (size_t i = from; i < to; i++)
        check_launch(md, i);
    const char *plan = evt_launch_plan(md->l);
    if (to > from && !plan)
        die("a run that launched has no plan", NULL);
    const char *g = plan ? strstr(plan, " grid ") : NULL;
    const long long grid = g ? strtoll(g + 6, NULL, 10) : -1;
    for (size_t i = from; one_run && i < to; i++) {
        fakecuda_launch f;
        w.fc.fakecuda_get_launch(i, &f);
        /* a persistent plan's tail runs another configuration's split-K entries */
        const int tail = plan && strstr(plan, " tail ") && strstr(f.function, "_splitk_");
        if (!ends_with(f.function, "_reduce_init") && !ends_with(f.function, "_reduce_finish") &&
            !ends_with(f.function, "_repack") && !strstr(f.function, "_splitsum_") && !tail &&
            (long long)f.grid[0] != grid) {
            fprintf(stderr, "fuzz_launch: %s launched %u CTAs, its plan says \"%s\"\n", f.function, f.grid[0], plan);
            abort();
        }
    }
}

/* ---- the calls ------------------------------------------------------------------ */

static const char *const bogus_names[] = {"", "nope", "acc", "M", "alpha", "d ", "D"};

/* A leading dimension for rows of `ext` elements: ext, or a little more. */
static long long padded(long long ext, rd *r)
{
    static const long long pads[] = {0, 0, 1, 8, 64};
    const long long pad = pads[pick(r, 5)];
    return ext > LLONG_MAX - pad ? ext : ext + pad;
}

/* set_gemm, and for `batched` set_batch after it, the operands sized for the batch drawn */
static void set_gemm(model *md, rd *r, int sane, int batched)
{
    long long m, n, k;
    const evt_operand_info *oa = evt_kernel_operand(md->k, 0), *ob = evt_kernel_operand(md->k, 1);
    if (sane) {
        m = modest(r), n = modest(r), k = modest(r);
    } else {
        m = hostile(r), n = hostile(r), k = hostile(r);
    }
    /* leading dimensions: the contiguous extent, padded, or anything */
    const long long a_ext = oa->layout == EVT_LAYOUT_COL ? m : k, b_ext = ob->layout == EVT_LAYOUT_COL ? k : n;
    const long long lda = sane || u8(r) < 200 ? padded(a_ext, r) : hostile(r);
    const long long ldb = sane || u8(r) < 200 ? padded(b_ext, r) : hostile(r);
    const long long a_rows = oa->layout == EVT_LAYOUT_COL ? k : m, b_rows = ob->layout == EVT_LAYOUT_COL ? n : k;
    const size_t ea = evt_elem_size(oa->elem), eb = evt_elem_size(ob->elem);
    const unsigned long long a_one = extent(a_rows, a_ext, lda, 1), b_one = extent(b_rows, b_ext, ldb, 1);
    long long count = 1, stride_a = 0, stride_b = 0;
    if (batched) {
        count = batch_count(r, sane);
        stride_a = batch_stride(r, a_one > LLONG_MAX / 2 ? 0 : (long long)a_one, sane, 1);
        stride_b = batch_stride(r, b_one > LLONG_MAX / 2 ? 0 : (long long)b_one, sane, 1);
    }
    buf A = pointer(r, batched_need(a_one, count, stride_a, ea));
    buf B = pointer(r, batched_need(b_one, count, stride_b, eb));
    clear_error();
    if (check("evt_launch_set_gemm", evt_launch_set_gemm(md->l, m, n, k, A.ptr, lda, A.bytes, B.ptr, ldb, B.bytes)) ==
        EVT_OK) {
        md->problem = 1;
        md->m = m, md->n = n, md->k_ = k;
        md->batch = 1;
        A.ld = lda, B.ld = ldb;
        md->ops[0] = A, md->ops[1] = B;
        clear_error();
        if (batched && check("evt_launch_set_batch", evt_launch_set_batch(md->l, count, stride_a, stride_b)) == EVT_OK) {
            if (count < 1 || count > INT_MAX || stride_a < 0 || stride_b < 0)
                die("evt_launch_set_batch took a count or stride out of its range", NULL);
            md->batch = count;
            md->ops[0].stride = stride_a, md->ops[1].stride = stride_b;
        }
    }
}

/* set_batch alone, on the operands set before: hostile counts and strides, a conv's, none set */
static void set_batch(model *md, rd *r)
{
    const long long count = batch_count(r, 0), one = u8(r) < 128 ? md->m * md->k_ : (long long)u32(r);
    const long long stride_a = batch_stride(r, one, 0, 1), stride_b = batch_stride(r, one, 0, 1);
    clear_error();
    if (check("evt_launch_set_batch", evt_launch_set_batch(md->l, count, stride_a, stride_b)) != EVT_OK)
        return;
    if (!md->problem || count < 1 || count > INT_MAX || stride_a < 0 || stride_b < 0 ||
        (count != 1 && evt_kernel_mainloop(md->k) != EVT_MAINLOOP_GEMM))
        die("evt_launch_set_batch took what it must refuse", NULL);
    md->batch = count;
    md->ops[0].stride = stride_a, md->ops[1].stride = stride_b;
}

static void set_conv(model *md, rd *r, int sane)
{
    evt_conv_problem c;
    if (sane) {
        static const long long hw[] = {1, 3, 7, 8, 14, 28, 56};
        static const long long ch[] = {1, 3, 8, 16, 64, 128};
        c.n = 1 + pick(r, 4);
        c.h = hw[pick(r, 7)], c.w = hw[pick(r, 7)];
        c.c = ch[pick(r, 6)], c.k = ch[pick(r, 6)] * (1 + pick(r, 2));
        /* pads, strides and dilations past what TMA's im2col boxes take
         * (corners within -128..127, element strides up to 8) now and then */
        static const int pads[] = {0, 0, 1, 1, 2, 3, 127, 128, 200};
        static const int steps[] = {1, 1, 1, 2, 2, 3, 8, 9};
        c.r = 1 + 2 * pick(r, 2), c.s = 1 + 2 * pick(r, 2);
        c.pad_h = pads[pick(r, 9)], c.pad_w = pads[pick(r, 9)];
        c.stride_h = steps[pick(r, 8)], c.stride_w = steps[pick(r, 8)];
        c.dil_h = steps[pick(r, 8)], c.dil_w = steps[pick(r, 8)];
    } else {
        c.n = hostile(r), c.h = hostile(r), c.w = hostile(r), c.c = hostile(r);
        c.k = hostile(r), c.r = hostile(r), c.s = hostile(r);
        c.pad_h = (int)hostile(r), c.pad_w = (int)hostile(r);
        c.stride_h = (int)hostile(r), c.stride_w = (int)hostile(r);
        c.dil_h = (int)hostile(r), c.dil_w = (int)hostile(r);
    }
    long long p = 0, q = 0;
    unsigned long long x_need = 0, w_need = 0;
    if (evt_conv_output_size(&c, &p, &q) == EVT_OK && c.n < (1 << 20) && c.h < (1 << 20) && c.w < (1 << 20) &&
        c.c < (1 << 20) && c.k < (1 << 20) && c.r < (1 << 10) && c.s < (1 << 10)) {
        x_need = (unsigned long long)(c.n * c.h * c.w) * (unsigned long long)c.c * 2;
        w_need = (unsigned long long)(c.k * c.r * c.s) * (unsigned long long)c.c * 2;
    }
    buf X = pointer(r, x_need > SIZE_MAX / 2 ? 0 : (size_t)x_need);
    buf W = pointer(r, w_need > SIZE_MAX / 2 ? 0 : (size_t)w_need);
    clear_error();
    if (check("evt_launch_set_conv", evt_launch_set_conv(md->l, &c, X.ptr, X.bytes, W.ptr, W.bytes)) == EVT_OK) {
        if (evt_conv_output_size(&c, &p, &q) != EVT_OK)
            die("set_conv took a problem evt_conv_output_size refuses", NULL);
        md->problem = 1;
        md->batch = 1;
        md->conv = c;
        md->p = p, md->q = q;
        md->m = c.n * p * q, md->n = c.k, md->k_ = c.r * c.s * c.c;
        X.ld = c.c, W.ld = c.c;
        md->ops[0] = X, md->ops[1] = W;
    }
}

static void bind_one(model *md, rd *r, int j, int sane)
{
    const evt_arg_info *ai = arg(md, j);
    const long long rows = ai->shape & EVT_SHAPE_M ? md->m : 1, cols = ai->shape & EVT_SHAPE_N ? md->n : 1;
    long long ld = ai->shape == EVT_SHAPE_MN ? padded(cols, r) : 0;
    if (!sane && u8(r) >= 200)
        ld = hostile(r);
    const size_t es = evt_elem_size(ai->elem);
    const unsigned long long one = extent(rows, cols, ai->shape == EVT_SHAPE_MN ? ld : cols, 1);
    /* with a batch stride mostly in a batch (a plain launch ignores the
     * strides bound while it was one, which set_gemm made plain again); no
     * byte drawn in a plain launch, so the corpus decodes as before */
    const int batched = md->batch > 1 && u8(r) < 230;
    const long long stride =
        batched ? batch_stride(r, one > LLONG_MAX / 2 ? 0 : (long long)one, sane, j < md->nin) : 0;
    buf b = pointer(r, batched_need(one, md->batch, stride, es));
    b.ld = ld;
    b.stride = stride;
    clear_error();
    const evt_status st = batched ? evt_launch_bind_batched(md->l, ai->name, b.ptr, b.bytes, ld, stride)
                                  : evt_launch_bind(md->l, ai->name, b.ptr, b.bytes, ld);
    if (check(batched ? "evt_launch_bind_batched" : "evt_launch_bind", st) == EVT_OK) {
        if (stride < 0)
            die("evt_launch_bind_batched took a negative stride", ai->name);
        md->args[j] = b;
    }
}

static void bind(model *md, rd *r)
{
    const unsigned c = u8(r);
    if (c < 230) {
        bind_one(md, r, (int)pick(r, (unsigned)(md->nin + md->nout)), 0);
        return;
    }
    /* a name that is none of its inputs and outputs: a param's, made up, or NULL */
    const char *name = c < 240 && md->nparam ? evt_epilogue_arg(md->e, EVT_ARG_PARAM, pick(r, (unsigned)md->nparam))->name
                       : c < 250 ? bogus_names[pick(r, sizeof bogus_names / sizeof bogus_names[0])]
                                 : NULL;
    clear_error();
    if (check("evt_launch_bind", evt_launch_bind(md->l, name, w.pool[0], 1, 0)) == EVT_OK)
        die("evt_launch_bind took a name that is no input or output", name);
}

static void set_param(model *md, rd *r)
{
    static const float values[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1e30f, -1e-30f, INFINITY, -INFINITY, NAN};
    const unsigned c = u8(r);
    const char *name = c < 200 && md->nparam ? evt_epilogue_arg(md->e, EVT_ARG_PARAM, pick(r, (unsigned)md->nparam))->name
                       : c < 240 ? bogus_names[pick(r, sizeof bogus_names / sizeof bogus_names[0])]
                                 : NULL;
    clear_error();
    check("evt_launch_set_param", evt_launch_set_param(md->l, name, values[pick(r, 10)]));
}

static void set_tuning(model *md, rd *r)
{
    const unsigned c = u8(r);
    const int n = evt_config_count();
    const char *config = c < 100 ? NULL : c < 240 ? evt_config_name((int)pick(r, (unsigned)n)) : "sm99_nonsense";
    static const int splits[] = {0, 0, 1, 2, 3, 4, 7, 64, -1, INT_MAX, INT_MIN};
    static const int groups[] = {0, 0, 1, 2, 4, 8, 16, 3, -1, 32};
    /* stream-K from the byte that picked the configuration (3: out of range),
     * so that the corpus's inputs read as they did before it */
    evt_tuning t = {.config = config, .split_k = splits[pick(r, 11)], .row_group = groups[pick(r, 10)],
                    .ignore_records = (int)pick(r, 2), .stream_k = (int)(c % 4)};
    clear_error();
    if (u8(r) < 240)
        check("evt_launch_set_tuning", evt_launch_set_tuning(md->l, u8(r) < 20 ? NULL : &t));
    else
        check("evt_ctx_set_tuning", evt_ctx_set_tuning(w.ctx, &t));
}

static void *stream_of(rd *r)
{
    return capturing || u8(r) < 128 ? w.stream : NULL;
}

/* An fp8 kernel's run on the sm_80 device, which returned st: never a
 * success, and where the same launch runs on the sm_90a (nothing of the
 * call's own arguments wrong), the refusal was the target's,
 * EVT_ERR_UNSUPPORTED naming it. */
static void fp8_on_sm80(model *md, evt_status st)
{
    if (st == EVT_OK)
        die("an fp8 kernel ran on an sm_80", evt_kernel_name(md->k));
    if (st == EVT_ERR_UNSUPPORTED) {
        if (!strstr(evt_ctx_last_error(w.ctx), "sm_80"))
            die("an fp8 kernel's refusal on sm_80 does not name the target", evt_ctx_last_error(w.ctx));
        return;
    }
    if (injected || capturing)
        return; /* a failing driver call or a capture's rules may come first */
    char why[512];
    snprintf(why, sizeof why, "%s: %s", evt_status_string(st), evt_ctx_last_error(w.ctx));
    w.fc.fakecuda_set_current(0);
    const size_t from = w.fc.fakecuda_launch_count();
    clear_error();
    if (check("evt_launch_run", evt_launch_run(md->l, w.stream)) == EVT_OK) {
        check_run(md, from, 1, 1);
        die("an fp8 kernel refused on sm_80 with other than EVT_ERR_UNSUPPORTED, then ran on sm_90a", why);
    }
    w.fc.fakecuda_set_current(current_device);
}

static void run(model *md, rd *r)
{
    const size_t from = w.fc.fakecuda_launch_count(), allocs = w.fc.fakecuda_alloc_count();
    clear_error();
    const evt_status st = check("evt_launch_run", evt_launch_run(md->l, stream_of(r)));
    if (is_fp8(md->k) && current_device == 1)
        fp8_on_sm80(md, st);
    if (st != EVT_OK)
        return;
    check_run(md, from, 1, 1);
    if (w.fc.fakecuda_alloc_count() > allocs + 1)
        die("a run allocated twice", NULL);
    fakecuda_alloc a;
    size_t bytes = 0;
    if (w.fc.fakecuda_alloc_count() == allocs + 1 && w.fc.fakecuda_get_alloc(allocs, &a) == 0 && a.result == 0 &&
        !injected && evt_launch_workspace_size(md->l, &bytes) == EVT_OK && bytes != a.bytes) {
        fprintf(stderr, "fuzz_launch: a run allocated %zu bytes of workspace, evt_launch_workspace_size says %zu\n",
                a.bytes, bytes);
        abort();
    }
}

/* The workspace evt_launch_workspace_size asks for, from the pool: enough for a run in it. */
static void run_in_workspace(model *md, rd *r)
{
    size_t bytes = 0;
    clear_error();
    if (check("evt_launch_workspace_size", evt_launch_workspace_size(md->l, &bytes)) != EVT_OK)
        return;
    void *ws = NULL;
    size_t give = bytes;
    const unsigned c = u8(r);
    if (bytes > 0) {
        int i = 0;
        while (i < NPOOL && pool_size[i] < bytes)
            i++;
        if (i == NPOOL)
            return;
        ws = w.pool[i];
        if (c >= 240) /* too small, or misaligned */
            give = c & 1 ? bytes - 1 : bytes;
        if (c >= 240 && !(c & 1))
            ws = (char *)ws + 16;
        if (c >= 240 && !(c & 1) && pool_size[i] - 16 < bytes)
            return;
    }
    const size_t from = w.fc.fakecuda_launch_count(), allocs = w.fc.fakecuda_alloc_count();
    clear_error();
    const evt_status st = check("evt_launch_run_with_workspace",
                                evt_launch_run_with_workspace(md->l, stream_of(r), ws, give));
    if (st == EVT_ERR_BAD_BUFFER && c < 240 && !injected)
        die("a run in the workspace evt_launch_workspace_size asked for was refused", evt_ctx_last_error(w.ctx));
    if (st != EVT_OK)
        return;
    if (w.fc.fakecuda_alloc_count() != allocs)
        die("a run in a caller's workspace allocated", NULL);
    check_run(md, from, 1, 1);
}

static void run_hostile_workspace(model *md, rd *r)
{
    buf b = pointer(r, (size_t)u32(r));
    clear_error();
    const size_t from = w.fc.fakecuda_launch_count();
    const long before = w.fc.fakecuda_violations();
    const evt_status st = evt_launch_run_with_workspace(md->l, stream_of(r), b.ptr, b.bytes);
    if (!b.honest && st == EVT_ERR_DRIVER && w.fc.fakecuda_violations() == before + 1 &&
        strncmp(w.fc.fakecuda_last_violation(), "cuMemsetD32Async", 16) == 0 &&
        strstr(evt_ctx_last_error(w.ctx), "cuMemsetD32Async"))
        lied_violations = before + 1; /* refused by the driver, and said so */
    if (check("evt_launch_run_with_workspace", st) == EVT_OK)
        check_run(md, from, b.honest && b.ptr, 1);
}

static void benchmark(model *md, rd *r)
{
    if (capturing)
        return; /* it synchronizes: a caller's error under capture, not evt's */
    double ms = -1;
    const int warmup = (int)pick(r, 3) - (u8(r) > 250), reps = (int)pick(r, 4) - (u8(r) > 250);
    const size_t from = w.fc.fakecuda_launch_count();
    clear_error();
    const evt_status st = check("evt_launch_benchmark", evt_launch_benchmark(md->l, stream_of(r), warmup, reps, &ms));
    if (st == EVT_OK) {
        if (!(ms >= 0))
            die("a benchmark's median is negative or NaN", NULL);
        check_run(md, from, 1, 0);
    }
}

/* The world around the calls: the device, a capture, a failing driver call. */
static void environment(rd *r)
{
    const unsigned c = pick(r, 4);
    if (c == 0) {
        current_device = (int)pick(r, NDEVICES);
        w.fc.fakecuda_set_current(current_device);
    } else if (c == 1 && !capturing && !injected) {
        /* global mode, PyTorch's default, or relaxed */
        capturing = w.fc.cuStreamBeginCapture(w.stream, u8(r) & 1 ? 2 : 0) == 0;
    } else if (c == 2 && capturing) {
        void *graph;
        if (w.fc.cuStreamEndCapture(w.stream, &graph) != 0)
            die("evt invalidated a capture", NULL);
        capturing = 0;
    } else if (c == 3 && !capturing) {
        static const int codes[] = {1, 2, 200, 201, 209, 400, 500, 700, 999};
        w.fc.fakecuda_fail("*", 1 + pick(r, 24), codes[pick(r, 9)]);
        injected = 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init();
    rd r = {data, size};
    w.fc.fakecuda_reset();
    lied_violations = 0;
    w.fc.fakecuda_set_current(current_device = 0);
    evt_ctx_set_tuning(w.ctx, NULL);
    capturing = injected = 0;
    for (int i = 0; i < NLAUNCHES; i++)
        model_create(&L[i], &r);
    for (int step = 0; step < MAX_STEPS && r.n; step++) {
        model *md = &L[pick(&r, NLAUNCHES)];
        /* the batch's steps on the top bytes, so the older steps decode as before */
        const unsigned c = u8(&r);
        switch (c >= 250 ? 16 + (c - 250) % 3 : c % 16) {
        case 0: set_gemm(md, &r, 0, 0); break;
        case 1: set_gemm(md, &r, 1, 0); break;
        case 16: set_gemm(md, &r, 0, 1); break;
        case 17: set_gemm(md, &r, 1, 1); break;
        case 18: set_batch(md, &r); break;
        case 2: set_conv(md, &r, 0); break;
        case 3: set_conv(md, &r, 1); break;
        case 4: bind(md, &r); break;
        case 5: /* everything, as the problem needs */
            for (int j = 0; j < md->nin + md->nout; j++)
                bind_one(md, &r, j, 1);
            break;
        case 6: set_param(md, &r); break;
        case 7: set_tuning(md, &r); break;
        case 8: case 9: run(md, &r); break;
        case 10: run_in_workspace(md, &r); break;
        case 11: run_hostile_workspace(md, &r); break;
        case 12: benchmark(md, &r); break;
        case 13: environment(&r); break;
        case 14: model_create(md, &r); break;
        case 15: {
            const char *p = evt_launch_plan(md->l);
            if (p && !strstr(p, " grid "))
                die("a plan without its grid", p);
            break;
        }
        }
    }
    if (capturing) {
        void *graph;
        if (w.fc.cuStreamEndCapture(w.stream, &graph) != 0)
            die("evt invalidated a capture", NULL);
    }
    w.fc.fakecuda_fail(NULL, 0, 0);
    for (int i = 0; i < NLAUNCHES; i++) {
        evt_launch_destroy(L[i].l);
        L[i].l = NULL;
    }
    if (w.fc.fakecuda_live_allocs(NULL) != w.live_allocs)
        die("a launch's workspace outlived it", NULL);
    if (w.fc.fakecuda_live_events() != 0)
        die("a benchmark's events outlived it", NULL);
    if (w.fc.fakecuda_violations() > lied_violations)
        die("the driver was misused", w.fc.fakecuda_last_violation());
    return 0;
}

/* standalone.c's --seeds: seed's input, random bytes of a random length
 * (below 512), the same on every machine. */
size_t fuzz_seed_input(uint64_t seed, uint8_t *buf, size_t cap);
size_t fuzz_seed_input(uint64_t seed, uint8_t *buf, size_t cap)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    size_t n = (size_t)(s % 512);
    n = n < cap ? n : cap;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        buf[i] = (uint8_t)(s >> 24);
    }
    return n;
}
