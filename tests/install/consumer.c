/*
 * consumer.c - a program outside the evt tree, as tests/install/run.sh
 * builds it three ways (find_package, pkg-config, add_subdirectory), each
 * against the shared and the static library: parse a kernel, generate its
 * CUDA, and launch it.
 *
 * Exit status 0 when the launch ran and its every output element is right,
 * or when the machine has no GPU and the library says exactly that
 * (EVT_ERR_NO_GPU from the first call that needs the driver); 1 otherwise.
 */
#include <evt/evt.h>

#include <stdio.h>
#include <string.h>

static const char source[] =
    "epilogue halve {\n"
    "    param alpha : f32 = 0.5\n"
    "    out   d     : f32[M, N] = alpha * acc\n"
    "}\n"
    "kernel halved = gemm(a: f16 row, b: f16 col, acc: f32) with halve\n";

/* Ragged sizes (no tile divides them) and operands of small integers in
 * f16, so that the f32 accumulator and alpha * acc are exact and the CPU's
 * sum below is an independent reference to compare with bit for bit. */
enum { M = 97, N = 83, K = 41 };

/* The i-th operand value, one of -2, -1, 1, 2 (a fixed LCG): its f16 bits and value. */
static unsigned short operand_bits(unsigned i, int *value)
{
    static const unsigned short bits[4] = {0xc000, 0xbc00, 0x3c00, 0x4000};
    static const int values[4] = {-2, -1, 1, 2};
    const unsigned r = (i * 1103515245u + 12345u) >> 16 & 3u;
    *value = values[r];
    return bits[r];
}

static int fail(evt_ctx *ctx, const char *what, evt_status st)
{
    fprintf(stderr, "consumer: %s: %s (%s)\n", what, evt_status_string(st),
            ctx ? evt_ctx_last_error(ctx) : "");
    return 1;
}

/* Runs the kernel on the current GPU and checks d against the CPU's 0.5 * A B; 0 if equal. */
static int run_on_gpu(evt_ctx *ctx, evt_launch *launch)
{
    static unsigned short a[M * K], b[N * K]; /* A row-major, B column-major: both K-contiguous */
    static int av[M * K], bv[N * K];
    static float d[M * N];
    const size_t bytes[3] = {sizeof a, sizeof b, sizeof d};
    void *dev[3] = {NULL, NULL, NULL};
    evt_status st = EVT_OK;
    int rc = 1;
    for (unsigned i = 0; i < M * K; i++)
        a[i] = operand_bits(i, &av[i]);
    for (unsigned i = 0; i < N * K; i++)
        b[i] = operand_bits(M * K + i, &bv[i]);
    for (int i = 0; i < 3 && st == EVT_OK; i++)
        st = evt_device_alloc(ctx, bytes[i], &dev[i]);
    if (st == EVT_OK && (st = evt_device_copy_to(ctx, dev[0], a, bytes[0])) == EVT_OK &&
        (st = evt_device_copy_to(ctx, dev[1], b, bytes[1])) == EVT_OK &&
        (st = evt_launch_set_gemm(launch, M, N, K, dev[0], K, bytes[0], dev[1], K, bytes[1])) ==
            EVT_OK &&
        (st = evt_launch_bind(launch, "d", dev[2], bytes[2], N)) == EVT_OK &&
        (st = evt_launch_run(launch, NULL)) == EVT_OK &&
        (st = evt_device_synchronize(ctx)) == EVT_OK &&
        (st = evt_device_copy_from(ctx, d, dev[2], bytes[2])) == EVT_OK) {
        int wrong = 0;
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                int acc = 0;
                for (int k = 0; k < K; k++)
                    acc += av[m * K + k] * bv[n * K + k];
                wrong += d[m * N + n] != 0.5f * (float)acc;
            }
        if (wrong)
            fprintf(stderr, "consumer: %d of %d outputs differ from 0.5 * A B\n", wrong, M * N);
        else
            printf("consumer: launched (%s), %d outputs right\n", evt_launch_plan(launch), M * N);
        rc = wrong != 0;
    } else {
        fail(ctx, "launch", st);
    }
    for (int i = 0; i < 3; i++)
        if (dev[i])
            evt_device_free(ctx, dev[i]);
    return rc;
}

int main(void)
{
    /* A header from one install and a library from another would pass
     * every check below and break in the field. */
    if (strcmp(evt_version(), EVT_VERSION_STRING) != 0) {
        fprintf(stderr, "consumer: evt.h is %s, libevt %s\n", EVT_VERSION_STRING, evt_version());
        return 1;
    }
    evt_ctx *ctx = evt_ctx_create();
    evt_module *m = NULL;
    evt_launch *launch = NULL;
    const char *cuda = NULL;
    int rc = 1;
    evt_status st;
    if (!ctx)
        return fail(ctx, "evt_ctx_create", EVT_ERR_NO_MEMORY);
    if ((st = evt_module_parse_buffer(ctx, "consumer.evt", source, sizeof source - 1, &m)) != EVT_OK) {
        if (m)
            fputs(evt_module_diag_text(m, EVT_DIAG_TEXT), stderr);
        rc = fail(ctx, "parse", st);
        goto out;
    }
    const evt_kernel *k = evt_module_find_kernel(m, "halved");
    if ((st = evt_module_optimize(m, 2)) != EVT_OK ||
        (st = evt_kernel_cuda(m, k, EVT_TARGET_SM90A, &cuda)) != EVT_OK) {
        rc = fail(ctx, "generate", st);
        goto out;
    }
    if (!strstr(cuda, "#include \"mainloops/gemm.cuh\"")) {
        fprintf(stderr, "consumer: the generated CUDA does not include the GEMM mainloop\n");
        goto out;
    }
    printf("consumer: evt %s, %zu bytes of CUDA for sm_90a\n", evt_version(), strlen(cuda));
    if ((st = evt_launch_create(m, k, &launch)) != EVT_OK) {
        rc = fail(ctx, "evt_launch_create", st);
        goto out;
    }
    evt_target target;
    char name[256];
    st = evt_device_target(ctx, &target, name, sizeof name);
    if (st == EVT_ERR_NO_GPU) {
        printf("consumer: no GPU, as the library says: %s\n", evt_ctx_last_error(ctx));
        rc = 0;
    } else if (st == EVT_OK) {
        printf("consumer: %s (%s)\n", name, evt_target_name(target));
        rc = run_on_gpu(ctx, launch);
    } else {
        rc = fail(ctx, "evt_device_target", st);
    }
out:
    evt_launch_destroy(launch);
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
    return rc;
}
