/*
 * gemm_sm80_nvrtc_check.c - compile kernels/evt_common.cuh and
 * kernels/gemm_sm80.cuh with NVRTC and no include paths, the way the evt
 * runtime will: the headers are pasted in front of a small kernel that
 * instantiates the mainloop for every layout and operand type.
 *
 * Passes when every supported arch compiles without warnings, and sm_75 is
 * rejected by the headers' #error.  No GPU needed.
 *
 * Build: cc -std=c11 -I$CUDA/include bench/gemm_sm80_nvrtc_check.c -L$CUDA/lib64 -lnvrtc
 * Run from the repository root (reads kernels/).
 */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    s[n] = 0;
    fclose(f);
    return s;
}

static const char *k_kernel =
    "\n"
    "template <class Cfg>\n"
    "__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)\n"
    "evt_gemm_nvrtc_probe(evt_gemm_args args, float *d)\n"
    "{\n"
    "    extern __shared__ __align__(128) unsigned char smem[];\n"
    "    int tm, tn;\n"
    "    evt_gemm_sm80_tile_coord<Cfg>(blockIdx.x, args.m, args.n, &tm, &tn);\n"
    "    evt_gemm_sm80_mainloop<Cfg>(args, tm, tn, smem);\n"
    "    const float *acc = (const float *)smem;\n"
    "    d[blockIdx.x * Cfg::kThreads + threadIdx.x] = acc[threadIdx.x * Cfg::kAccLd / 64];\n"
    "}\n"
    "#define P(ID, DT, AL, BL, AG) template __global__ void evt_gemm_nvrtc_probe<\\\n"
    "    evt_gemm_sm80_cfg<evt_gemm_sm80_tile_of<ID>::type, DT, AL, BL, AG> >(\\\n"
    "    evt_gemm_args, float *);\n"
    "P(0, EVT_DT_F16, 0, 1, true)\n"
    "P(0, EVT_DT_BF16, 1, 0, true)\n"
    "P(1, EVT_DT_F16, 0, 0, false)\n"
    "P(2, EVT_DT_BF16, 1, 1, false)\n"
    "P(3, EVT_DT_F16, 0, 1, true)\n"
    "P(4, EVT_DT_BF16, 0, 1, true)\n";

/* Returns 1 when the program compiled; with strict, only without warnings. */
static int try_arch(const char *src, const char *arch, int strict)
{
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, src, "evt_gemm_probe.cu", 0, NULL, NULL) != NVRTC_SUCCESS) {
        fprintf(stderr, "nvrtcCreateProgram failed\n");
        exit(2);
    }
    char opt[64];
    snprintf(opt, sizeof opt, "--gpu-architecture=%s", arch);
    const char *opts[] = {opt, "-std=c++17"};
    nvrtcResult r = nvrtcCompileProgram(prog, 2, opts);
    size_t n = 0;
    int warned = 0;
    nvrtcGetProgramLogSize(prog, &n);
    if (n > 1) {
        char *log = malloc(n);
        nvrtcGetProgramLog(prog, log);
        warned = strstr(log, "warning") != NULL;
        /* the first lines are enough to see which #error or warning fired */
        fprintf(stdout, "  [%s log] %.1500s\n", arch, log);
        free(log);
    }
    nvrtcDestroyProgram(&prog);
    return r == NVRTC_SUCCESS && !(strict && warned);
}

int main(void)
{
    char *common = slurp("kernels/evt_common.cuh");
    char *gemm = slurp("kernels/gemm_sm80.cuh");
    size_t n = strlen(common) + strlen(gemm) + strlen(k_kernel) + 1;
    char *src = malloc(n);
    snprintf(src, n, "%s%s%s", common, gemm, k_kernel);

    int major, minor;
    nvrtcVersion(&major, &minor);
    printf("NVRTC %d.%d, no include paths\n", major, minor);
    static const char *good[] = {"sm_80", "sm_86", "sm_89", "sm_90a"};
    int fails = 0;
    for (int i = 0; i < 4; ++i) {
        int ok = try_arch(src, good[i], 1);
        printf("  %-7s %s\n", good[i], ok ? "compiled" : "FAILED");
        fails += !ok;
    }
    int old_ok = try_arch(src, "sm_75", 0);
    printf("  %-7s %s\n", "sm_75",
           old_ok ? "compiled (should have been rejected)" : "rejected, as it should be");
    fails += old_ok;
    printf("NVRTC check: %s\n", fails ? "FAIL" : "PASS");
    free(src);
    free(common);
    free(gemm);
    return fails ? 1 : 0;
}
