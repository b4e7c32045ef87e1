/*
 * launch_workspace.c - a launch's workspace on the GPU: the size
 * evt_launch_workspace_size reports, a caller's workspace
 * (evt_launch_run_with_workspace) refused when too small with nothing
 * enqueued and giving the launch's own results when not, with and without
 * split-K; and CUDA graph capture: a run that would allocate its workspace
 * is refused without breaking the capture; after a warm-up run, or in a
 * caller's workspace even as the first run of a new context (which loads its
 * module under the capture), the captured graph replays to the same results.
 *
 * The inputs are small integers, so every result (sums included) is exact
 * and independent of the order of the adds: runs compare bit for bit.
 * Exit status: 0 PASS, 1 FAIL or error, 77 no GPU (the ctest skip code).
 */
#include <evt/evt.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char source[] =
    "epilogue e {\n"
    "    in  bias : f16[N]\n"
    "    out d    : f32[M, N] = acc + bias\n"
    "    out amax : f32 = reduce_max(abs(acc))\n"
    "    out rsum : f32[M] = reduce_sum(acc, N)\n"
    "}\n"
    "kernel k = gemm(a: f16 row, b: f16 col, acc: f32) with e\n";

enum { M = 256, N = 192, K = 1024, WORDS = 1 + M /* amax, rsum */ };

/* The results of one run, read back. */
typedef struct results {
    float d[M * N], amax, rsum[M];
} results;

/* Device buffers. */
typedef struct bufs {
    void *a, *b, *bias, *d, *amax, *rsum;
} bufs;

/* The driver entry points the capture needs (libevt keeps its own private). */
typedef int (*stream_create_fn)(void **, unsigned);
typedef int (*stream_fn)(void *);
typedef int (*begin_capture_fn)(void *, int);
typedef int (*end_capture_fn)(void *, void **);
typedef int (*instantiate_fn)(void **, void *, unsigned long long);
typedef int (*graph_launch_fn)(void *, void *);
typedef int (*graph_fn)(void *);

static int failures;

#define EXPECT(cond, ...)                                                                            \
    do {                                                                                             \
        if (!(cond)) {                                                                               \
            fprintf(stderr, "launch_workspace: line %d: ", __LINE__);                                \
            fprintf(stderr, __VA_ARGS__);                                                            \
            fputc('\n', stderr);                                                                     \
            failures++;                                                                              \
        }                                                                                            \
    } while (0)

static uint16_t f16_of_small_int(int v)
{
    static const uint16_t bits[5] = {0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000}; /* -2 .. 2 */
    return bits[v + 2];
}

static evt_status bind(evt_launch *l, const bufs *g)
{
    evt_status st = evt_launch_set_gemm(l, M, N, K, g->a, K, 2u * M * K, g->b, K, 2u * N * K);
    if (st == EVT_OK)
        st = evt_launch_bind(l, "bias", g->bias, 2u * N, 0);
    if (st == EVT_OK)
        st = evt_launch_bind(l, "d", g->d, 4u * M * N, N);
    if (st == EVT_OK)
        st = evt_launch_bind(l, "amax", g->amax, 4, 0);
    if (st == EVT_OK)
        st = evt_launch_bind(l, "rsum", g->rsum, 4u * M, 0);
    return st;
}

/* An sm80 configuration (sm90's never split K), for every run alike. */
static const char *config;

static const char *sm80_config(evt_module *m, const evt_kernel *k, evt_target t)
{
    for (int i = 0; i < evt_config_count(); i++)
        if (strncmp(evt_config_name(i), "sm80_", 5) == 0 &&
            evt_kernel_config_check(m, k, t, evt_config_name(i)) == EVT_OK)
            return evt_config_name(i);
    return NULL;
}

static evt_status set_split(evt_launch *l, int split_k)
{
    const evt_tuning t = {.config = config, .split_k = split_k};
    return evt_launch_set_tuning(l, &t);
}

/* Fills every output with a NaN pattern, so that a run that writes nothing
 * shows; waits for the copies (from pageable memory they may still be on
 * their way when the call returns, and the runs are on other streams). */
static evt_status poison(evt_ctx *ctx, const bufs *g, results *scratch)
{
    memset(scratch, 0xff, sizeof *scratch);
    evt_status st = evt_device_copy_to(ctx, g->d, scratch->d, sizeof scratch->d);
    if (st == EVT_OK)
        st = evt_device_copy_to(ctx, g->amax, &scratch->amax, 4);
    if (st == EVT_OK)
        st = evt_device_copy_to(ctx, g->rsum, scratch->rsum, sizeof scratch->rsum);
    return st == EVT_OK ? evt_device_synchronize(ctx) : st;
}

static evt_status read_back(evt_ctx *ctx, const bufs *g, results *r)
{
    evt_status st = evt_device_synchronize(ctx);
    if (st == EVT_OK)
        st = evt_device_copy_from(ctx, r->d, g->d, sizeof r->d);
    if (st == EVT_OK)
        st = evt_device_copy_from(ctx, &r->amax, g->amax, 4);
    if (st == EVT_OK)
        st = evt_device_copy_from(ctx, r->rsum, g->rsum, sizeof r->rsum);
    return st;
}

static int same(const results *x, const results *y)
{
    return memcmp(x, y, sizeof *x) == 0;
}

static int untouched(const results *r)
{
    results p;
    memset(&p, 0xff, sizeof p);
    return same(r, &p);
}

int main(void)
{
    evt_ctx *ctx = evt_ctx_create(), *ctx2 = evt_ctx_create();
    evt_module *m = NULL, *m2 = NULL;
    evt_launch *l = NULL, *fresh = NULL, *cold = NULL;
    bufs g = {0};
    void **dst[6] = {&g.a, &g.b, &g.bias, &g.d, &g.amax, &g.rsum};
    void *ws = NULL, *cuda = NULL, *stream = NULL;
    stream_fn stream_destroy = NULL;
    int8_t *a = malloc(M * K), *b = malloc(N * K), *bias = malloc(N);
    uint16_t *h16 = malloc(2u * M * K);
    results *want = malloc(sizeof *want), *got = malloc(sizeof *got);
    evt_status st = EVT_ERR_NO_MEMORY;
    if (!ctx || !ctx2 || !a || !b || !bias || !h16 || !want || !got)
        goto done;
    if ((st = evt_module_parse_buffer(ctx, "workspace.evt", source, strlen(source), &m)) != EVT_OK ||
        (st = evt_module_optimize(m, 2)) != EVT_OK ||
        (st = evt_launch_create(m, evt_module_find_kernel(m, "k"), &l)) != EVT_OK ||
        (st = evt_launch_create(m, evt_module_find_kernel(m, "k"), &fresh)) != EVT_OK)
        goto done;
    evt_target target;
    if ((st = evt_device_target(ctx, &target, NULL, 0)) != EVT_OK)
        goto done;
    if (!(config = sm80_config(m, evt_module_find_kernel(m, "k"), target))) {
        fprintf(stderr, "launch_workspace: no sm80 configuration runs the kernel\n");
        st = EVT_ERR_UNSUPPORTED;
        goto done;
    }

    /* Inputs in -2..2 and the exact results, in integers. */
    uint64_t seed = 0x9e3779b97f4a7c15u;
    int8_t *vals[3] = {a, b, bias};
    const int counts[3] = {M * K, N * K, N};
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < counts[t]; i++) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            vals[t][i] = (int8_t)((seed >> 33) % 5) - 2;
        }
    want->amax = 0;
    for (int i = 0; i < M; i++) {
        long long row = 0;
        for (int j = 0; j < N; j++) {
            long long acc = 0;
            for (int k = 0; k < K; k++)
                acc += a[i * K + k] * b[j * K + k];
            want->d[i * N + j] = (float)(acc + bias[j]);
            want->amax = (float)acc > want->amax ? (float)acc : want->amax;
            want->amax = (float)-acc > want->amax ? (float)-acc : want->amax;
            row += acc;
        }
        want->rsum[i] = (float)row;
    }

    const size_t sizes[6] = {2u * M * K, 2u * N * K, 2u * N, 4u * M * N, 4, 4u * M};
    for (int t = 0; t < 6; t++)
        if ((st = evt_device_alloc(ctx, sizes[t], dst[t])) != EVT_OK)
            goto done;
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < counts[t]; i++)
            h16[i] = f16_of_small_int(vals[t][i]);
        if ((st = evt_device_copy_to(ctx, *dst[t], h16, sizes[t])) != EVT_OK)
            goto done;
    }
    /* `fresh` runs what `l` will have loaded (split_k 1), so that its first
     * run, under capture, loads no module. */
    if ((st = bind(l, &g)) != EVT_OK || (st = bind(fresh, &g)) != EVT_OK ||
        (st = set_split(fresh, 1)) != EVT_OK)
        goto done;

    /* The launch's own workspace, without split-K and with. */
    for (int split = 1; split <= 2; split++) {
        if ((st = set_split(l, split)) != EVT_OK || (st = poison(ctx, &g, got)) != EVT_OK ||
            (st = evt_launch_run(l, NULL)) != EVT_OK || (st = read_back(ctx, &g, got)) != EVT_OK)
            goto done;
        EXPECT(same(got, want), "split_k %d: the launch's own workspace gave wrong results", split);
    }

    /* Its size: the reduction words, then 256-aligned split-K partial tiles
     * (at least M x N floats a split). */
    size_t bytes = 0;
    if ((st = set_split(l, 1)) != EVT_OK || (st = evt_launch_workspace_size(l, &bytes)) != EVT_OK)
        goto done;
    EXPECT(bytes == 4 * WORDS, "split_k 1: workspace %zu bytes, want %d", bytes, 4 * WORDS);
    if ((st = set_split(l, 2)) != EVT_OK || (st = evt_launch_workspace_size(l, &bytes)) != EVT_OK)
        goto done;
    const size_t least = (4 * WORDS + 255) / 256 * 256 + 2u * M * N * 4;
    EXPECT(bytes >= least, "split_k 2: workspace %zu bytes, want at least %zu", bytes, least);

    /* A caller's workspace: too small is refused with nothing enqueued. */
    if ((st = evt_device_alloc(ctx, bytes, &ws)) != EVT_OK || (st = poison(ctx, &g, got)) != EVT_OK)
        goto done;
    st = evt_launch_run_with_workspace(l, NULL, ws, bytes - 4);
    EXPECT(st == EVT_ERR_BAD_BUFFER && strstr(evt_ctx_last_error(ctx), "workspace is too small"),
           "a workspace 4 bytes short: %s (%s)", evt_status_string(st), evt_ctx_last_error(ctx));
    if ((st = read_back(ctx, &g, got)) != EVT_OK)
        goto done;
    EXPECT(untouched(got), "a refused run wrote its outputs");
    for (int split = 2; split >= 1; split--) {
        if ((st = set_split(l, split)) != EVT_OK || (st = poison(ctx, &g, got)) != EVT_OK ||
            (st = evt_launch_run_with_workspace(l, NULL, ws, bytes)) != EVT_OK ||
            (st = read_back(ctx, &g, got)) != EVT_OK)
            goto done;
        EXPECT(same(got, want), "split_k %d: a caller's workspace gave wrong results", split);
    }

    /* Graph capture on a stream of our own (non-blocking: capture refuses
     * work that waits for the legacy stream). */
    cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda) {
        st = EVT_ERR_NO_GPU;
        goto done;
    }
    stream_create_fn stream_create = (stream_create_fn)dlsym(cuda, "cuStreamCreate");
    stream_fn stream_sync = (stream_fn)dlsym(cuda, "cuStreamSynchronize");
    stream_destroy = (stream_fn)dlsym(cuda, "cuStreamDestroy_v2");
    begin_capture_fn begin = (begin_capture_fn)dlsym(cuda, "cuStreamBeginCapture_v2");
    end_capture_fn end = (end_capture_fn)dlsym(cuda, "cuStreamEndCapture");
    instantiate_fn instantiate = (instantiate_fn)dlsym(cuda, "cuGraphInstantiateWithFlags");
    graph_launch_fn graph_launch = (graph_launch_fn)dlsym(cuda, "cuGraphLaunch");
    graph_fn exec_destroy = (graph_fn)dlsym(cuda, "cuGraphExecDestroy");
    graph_fn graph_destroy = (graph_fn)dlsym(cuda, "cuGraphDestroy");
    if (!stream_create || !stream_sync || !stream_destroy || !begin || !end || !instantiate ||
        !graph_launch || !exec_destroy || !graph_destroy || stream_create(&stream, 1) != 0) {
        fprintf(stderr, "launch_workspace: the driver lacks graph capture\n");
        failures++;
        goto done;
    }
    enum { GLOBAL_MODE = 0 }; /* CU_STREAM_CAPTURE_MODE_GLOBAL, PyTorch's default */
    void *graph = NULL, *exec = NULL;

    /* `fresh` has never run: its first run needs a workspace it cannot allocate. */
    EXPECT(begin(stream, GLOBAL_MODE) == 0, "cuStreamBeginCapture failed");
    st = evt_launch_run(fresh, stream);
    EXPECT(st == EVT_ERR_UNSUPPORTED && strstr(evt_ctx_last_error(ctx), "captured"),
           "a run allocating under capture: %s (%s)", evt_status_string(st), evt_ctx_last_error(ctx));
    EXPECT(end(stream, &graph) == 0, "the refused run broke the capture");
    if (graph)
        graph_destroy(graph);
    graph = NULL;

    /* Warmed up, it is captured; so is a run in a caller's workspace, and
     * one in a new context whose first run, under the capture, loads its
     * module. */
    for (int pass = 0; pass < 3; pass++) {
        const int own = pass == 0;
        evt_launch *run_l = fresh;
        if (pass == 2) {
            if ((st = evt_module_parse_buffer(ctx2, "workspace.evt", source, strlen(source), &m2)) !=
                    EVT_OK ||
                (st = evt_module_optimize(m2, 2)) != EVT_OK ||
                (st = evt_launch_create(m2, evt_module_find_kernel(m2, "k"), &cold)) != EVT_OK ||
                (st = bind(cold, &g)) != EVT_OK || (st = set_split(cold, 1)) != EVT_OK)
                goto done;
            run_l = cold;
        } else if ((st = evt_launch_run(fresh, stream)) != EVT_OK) {
            goto done;
        }
        stream_sync(stream);
        if ((st = poison(ctx, &g, got)) != EVT_OK)
            goto done;
        EXPECT(begin(stream, GLOBAL_MODE) == 0, "cuStreamBeginCapture failed");
        st = own ? evt_launch_run(run_l, stream) : evt_launch_run_with_workspace(run_l, stream, ws, bytes);
        EXPECT(end(stream, &graph) == 0 && graph, "capture %d failed", pass);
        if (st != EVT_OK)
            fprintf(stderr, "launch_workspace: capture %d: %s\n", pass, evt_ctx_last_error(pass == 2 ? ctx2 : ctx));
        if (st != EVT_OK || !graph)
            goto done;
        EXPECT(instantiate(&exec, graph, 0) == 0, "cuGraphInstantiate failed");
        if ((st = read_back(ctx, &g, got)) != EVT_OK)
            goto done;
        EXPECT(untouched(got), "a captured run ran before the graph was launched");
        for (int replay = 0; replay < 2 && exec; replay++) {
            if ((st = poison(ctx, &g, got)) != EVT_OK)
                goto done;
            EXPECT(graph_launch(exec, stream) == 0, "cuGraphLaunch failed");
            stream_sync(stream);
            if ((st = read_back(ctx, &g, got)) != EVT_OK)
                goto done;
            EXPECT(same(got, want), "replay %d of graph %d gave wrong results", replay, pass);
        }
        if (exec)
            exec_destroy(exec);
        graph_destroy(graph);
        exec = graph = NULL;
    }
    st = EVT_OK;

done:
    if (st == EVT_ERR_NO_GPU) {
        printf("launch_workspace: no GPU (%s): skipped\n", evt_ctx_last_error(ctx));
    } else if (st != EVT_OK) {
        fprintf(stderr, "launch_workspace: %s: %s\n", evt_status_string(st), ctx ? evt_ctx_last_error(ctx) : "");
        failures++;
    } else {
        printf("launch_workspace: %s\n", failures ? "FAIL" : "PASS");
    }
    if (stream)
        stream_destroy(stream);
    if (cuda)
        dlclose(cuda);
    evt_device_free(ctx, ws);
    for (int t = 0; t < 6; t++)
        evt_device_free(ctx, *dst[t]);
    evt_launch_destroy(cold);
    evt_launch_destroy(fresh);
    evt_launch_destroy(l);
    evt_module_destroy(m2);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx2);
    evt_ctx_destroy(ctx);
    free(a), free(b), free(bias), free(h16), free(want), free(got);
    return st == EVT_ERR_NO_GPU ? 77 : failures ? 1 : 0;
}
