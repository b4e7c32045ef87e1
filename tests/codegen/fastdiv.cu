// evt_fastdiv and evt_tile_order (kernels/sched/tiles.cuh) run on the host:
// the divider against `/` for divisors 1 to 5000, around every power of
// two and up to 2^31 - 1 and where the multiplier's double quotient rounds
// up, on numbers from 0 to 2^31 - 1 (both ends, around
// multiples of the divisor, and pseudo-random ones); the precomputed walk
// order against evt_tile_coord for every tile of grids of 1 to 40 x 1 to
// 40 tiles (whole and partial last groups) and batches of 1 to 3.
#include <cstdio>
#include "common/evt_common.cuh" /* as a generated translation unit includes them */
#include "sched/tiles.cuh"

static int failures = 0;

static void check_div(unsigned d, int x)
{
    const evt_fastdiv f(d);
    /* the multiplier is exactly the method's, floor(2^32 (2^l - d) / d) + 1 */
    const unsigned long long exact = ((1ull << 32) * ((1ull << f.shift) - d)) / d + 1;
    if ((f.mul != exact || (1ull << f.shift) < d || (f.shift > 0 && (1ull << (f.shift - 1)) >= d)) && failures++ < 10)
        printf("fastdiv: divisor %u: multiplier %u shift %u, not %llu\n", d, f.mul, f.shift, exact);
    const int q = f.div(x);
    if (q != (int)((unsigned)x / d) && failures++ < 10)
        printf("fastdiv: %d / %u gave %d, not %u\n", x, d, q, (unsigned)x / d);
}

struct cfg {
    static constexpr int kBM = 128, kBN = 128;
};

int main()
{
    unsigned long long seed = 12345;
    const auto next = [&]() {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return (int)(seed >> 33); /* below 2^31 */
    };
    for (unsigned d = 1; d <= 5000 + 62 * 3; ++d) {
        /* 1 .. 5000, then 2^k - 1, 2^k, 2^k + 1 for k = 13 .. 31 (2^31 + 1 left out: past the numbers) */
        unsigned dv = d <= 5000 ? d : (1u << (13 + (d - 5001) / 3)) + (d - 5001) % 3 - 1;
        if (d > 5000 && (13 + (d - 5001) / 3 > 31 || dv == 0 || dv > 0x7fffffffu))
            continue;
        check_div(dv, 0);
        check_div(dv, 0x7fffffff);
        check_div(dv, 0x7ffffffe);
        for (int k = 1; k <= 3; ++k) {
            const long long mult = (long long)dv * k;
            for (long long x = mult - 1; x <= mult + 1; ++x)
                if (x >= 0 && x <= 0x7fffffff)
                    check_div(dv, (int)x);
        }
        const long long big = 0x7fffffffll / dv * dv; /* the last multiple below 2^31 */
        for (long long x = big - 1; x <= big + 1; ++x)
            if (x >= 0 && x <= 0x7fffffff)
                check_div(dv, (int)x);
        for (int i = 0; i < 200; ++i)
            check_div(dv, next());
    }
    /* divisors whose double quotient 2^(32 + l) / d rounds up to the next
     * integer (d divides 2^(32 + l) + j for a small j): the correction's cases */
    const unsigned round_up[] = {3201133u, 3627949u, 6087579u, 6402266u, 7255898u, 12175158u, 9110917u, 10325701u};
    for (unsigned dv : round_up) {
        check_div(dv, 0x7fffffff);
        for (int k = 1; k <= 200; ++k) {
            const long long x = (long long)dv * k;
            if (x > 0x7fffffff)
                break;
            check_div(dv, (int)x - 1);
            check_div(dv, (int)x);
        }
    }
    for (int tm = 1; tm <= 40; ++tm)
        for (int tn = 1; tn <= 40; ++tn) {
            const evt_tile_order<EVT_TILE_GROUP_M> order(tm, tn);
            for (int t = 0; t < tm * tn * 3; ++t) {
                int am, an, bm, bn;
                const int pa = order.coord(t, &am, &an);
                const int pb = evt_tile_coord<cfg>(t, tm * 128, tn * 128, &bm, &bn);
                if ((pa != pb || am != bm || an != bn) && failures++ < 10)
                    printf("fastdiv: tile %d of %d x %d: (%d, %d, %d), not (%d, %d, %d)\n", t, tm, tn, pa, am, an,
                           pb, bm, bn);
            }
        }
    printf("fastdiv: %s\n", failures ? "FAIL" : "ok");
    return failures != 0;
}
