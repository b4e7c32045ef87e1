/* place.cu - the probe kernel of cluster_placement.c: each CTA records the
 * SM it runs on and spins `spin` clock cycles, so that a grid's CTAs are
 * all resident at once where they fit and a second wave shows as time. */
extern "C" __global__ void place(unsigned *out, long long spin)
{
    extern __shared__ unsigned char smem[];
    if (threadIdx.x == 0) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        smem[0] = 1;
        out[blockIdx.x] = sm;
        long long t0 = clock64();
        while (clock64() - t0 < spin) { }
    }
}
