/*
 * cluster_placement.c - where thread-block clusters land (docs/sm90.md,
 * "Split-K summed in the cluster"): for CTAs of 40, 100 and 130 KB of
 * shared memory and clusters of 1 to 8, the clusters
 * cuOccupancyMaxActiveClusters allows, then grids of 64, 128 and 256 CTAs
 * of place.cu: how many SMs they ran on, the most CTAs one SM ran, and the
 * time (1 ms a wave).  api/launch.c's cluster_split rests on it.
 *
 *   nvcc -arch=sm_90a -cubin -o place.cubin place.cu
 *   cc -I/usr/local/cuda/include cluster_placement.c -o place -L/usr/local/cuda/lib64/stubs -lcuda
 *   ./place place.cubin
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CK(x) do { CUresult r_ = (x); if (r_) { const char *s; cuGetErrorString(r_, &s); printf("%s: %s\n", #x, s); exit(1);} } while (0)
int main(int argc, char **argv)
{
    CUdevice d; CUcontext c; CUmodule m; CUfunction f;
    CK(cuInit(0)); CK(cuDeviceGet(&d, 0)); CK(cuDevicePrimaryCtxRetain(&c, d)); CK(cuCtxSetCurrent(c));
    CK(cuModuleLoad(&m, argv[1])); CK(cuModuleGetFunction(&f, m, "place"));
    CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200 * 1024));
    int smems[] = {40 * 1024, 100 * 1024, 130 * 1024};
    CUdeviceptr out; CK(cuMemAlloc(&out, 4096 * 4));
    unsigned h[4096];
    for (int si = 0; si < 3; si++)
        for (int S = 1; S <= 8; S++) {
            CUlaunchAttribute a; memset(&a, 0, sizeof a);
            a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION; a.value.clusterDim.x = S; a.value.clusterDim.y = 1; a.value.clusterDim.z = 1;
            CUlaunchConfig lc; memset(&lc, 0, sizeof lc);
            lc.gridDimX = S; lc.gridDimY = lc.gridDimZ = 1; lc.blockDimX = 128; lc.blockDimY = lc.blockDimZ = 1;
            lc.sharedMemBytes = smems[si]; lc.attrs = &a; lc.numAttrs = 1;
            int n = -1; cuOccupancyMaxActiveClusters(&n, f, &lc);
            printf("smem %dK S=%d max active clusters %d (%d CTAs)", smems[si] / 1024, S, n, n * S);
            /* placement of a grid of G CTAs: SMs used, CTAs per SM histogram */
            int grids[] = {64, 128, 256};
            for (int gi = 0; gi < 3; gi++) {
                int G = grids[gi] / S * S;
                lc.gridDimX = G;
                long long spin = 2000000; void *params[] = {&out, &spin};
                CK(cuMemsetD32(out, 0xffffffff, 4096));
                CUevent e0, e1; cuEventCreate(&e0, 0); cuEventCreate(&e1, 0);
                cuEventRecord(e0, 0);
                CK(cuLaunchKernelEx(&lc, f, params, NULL));
                cuEventRecord(e1, 0);
                CK(cuCtxSynchronize());
                float ms; cuEventElapsedTime(&ms, e0, e1);
                CK(cuMemcpyDtoH(h, out, G * 4));
                int cnt[256] = {0}, used = 0, mx = 0;
                for (int i = 0; i < G; i++) if (h[i] < 256) cnt[h[i]]++;
                for (int i = 0; i < 256; i++) { if (cnt[i]) used++; if (cnt[i] > mx) mx = cnt[i]; }
                printf(" | G=%d: %d SMs, max %d/SM, %.2f ms", G, used, mx, ms);
            }
            printf("\n");
        }
    return 0;
}
