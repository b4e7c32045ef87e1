/* test_alias.c - buffer footprints and the aliasing rule (support/alias.h):
 * strided matrices that share no byte pass however their spans interleave,
 * any shared byte is found (a partial overlap, one byte, the last row), and
 * the rule allows exactly the in-place case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support/alias.h"

#include <limits.h>
#include <string.h>

#define AT(addr) ((const void *)(uintptr_t)(addr))

/* rows x cols bytes from addr, rows ld bytes apart. */
static alias_buf bytes(unsigned long long addr, long long rows, long long cols, long long ld)
{
    alias_buf b;
    memset(&b, 0, sizeof b);
    alias_footprint(&b, AT(addr), rows, cols, ld, 1);
    return b;
}

/* alias_overlap both ways round, which must agree. */
static int overlap(alias_buf a, alias_buf b)
{
    const int ab = alias_overlap(&a, &b), ba = alias_overlap(&b, &a);
    assert_int_equal(ab, ba);
    return ab;
}

/* Every pair against a byte-by-byte answer, over small strided shapes. */
static void test_overlap_matches_bytes(void **state)
{
    (void)state;
    enum { SPACE = 96 };
    for (int wa = 1; wa <= 6; wa++)
        for (int wb = 1; wb <= 6; wb++)
            for (unsigned da = 0; da < 12; da++)
                for (unsigned db = 0; db < 24; db++)
                    for (int ra = 1; ra <= 4; ra++)
                        for (int rb = 1; rb <= 4; rb++) {
                            /* pitches from the offsets, so that every pairing occurs */
                            const int la = wa + (int)(da % 3), lb = wb + (int)(db % 4);
                            unsigned char seen[SPACE] = {0};
                            int want = 0;
                            for (int r = 0; r < ra; r++)
                                for (int c = 0; c < wa; c++)
                                    seen[da + (unsigned)(r * la + c)] = 1;
                            for (int r = 0; r < rb; r++)
                                for (int c = 0; c < wb; c++)
                                    want |= seen[db + (unsigned)(r * lb + c)];
                            alias_buf a = bytes(1000 + da, ra, wa, la);
                            alias_buf b = bytes(1000 + db, rb, wb, lb);
                            const int got = overlap(a, b);
                            if (la == lb || ra == 1 || rb == 1) {
                                if (got != want)
                                    fail_msg("rows %d x %d at %u pitch %d vs %d x %d at %u pitch %d:"
                                             " got %d, want %d",
                                             ra, wa, da, la, rb, wb, db, lb, got, want);
                            } else if (want) {
                                assert_true(got); /* never misses a shared byte */
                            }
                        }
}

static void test_overlap_cases(void **state)
{
    (void)state;
    /* two [4, 40] f16 matrices side by side in one [4, 96] allocation */
    alias_buf left, right, shifted;
    memset(&left, 0, sizeof left);
    right = shifted = left;
    alias_footprint(&left, AT(0x10000), 4, 40, 96, 2);
    alias_footprint(&right, AT(0x10000 + 48 * 2), 4, 40, 96, 2);
    alias_footprint(&shifted, AT(0x10000 + 39 * 2), 4, 40, 96, 2);
    assert_int_equal(overlap(left, right), 0);
    assert_int_equal(overlap(left, shifted), 1); /* shares element 39 of each row */
    /* a vector inside the gap between two rows, then one byte too long */
    assert_int_equal(overlap(bytes(0, 3, 10, 100), bytes(10, 1, 90, 0)), 0);
    assert_int_equal(overlap(bytes(0, 3, 10, 100), bytes(10, 1, 91, 0)), 1);
    /* only the last row reaches it; one row fewer does not */
    assert_int_equal(overlap(bytes(0, 3, 10, 100), bytes(205, 1, 1, 0)), 1);
    assert_int_equal(overlap(bytes(0, 2, 10, 100), bytes(205, 1, 1, 0)), 0);
    /* spans that interleave with different pitches count as overlapping */
    assert_int_equal(overlap(bytes(0, 4, 10, 100), bytes(50, 4, 10, 60)), 1);
    /* empty footprints touch nothing, wherever they are */
    assert_int_equal(overlap(bytes(0, 0, 10, 100), bytes(0, 4, 10, 100)), 0);
    assert_int_equal(overlap(bytes(0, 4, 0, 100), bytes(0, 4, 10, 100)), 0);
    /* a span running past the top of the address space saturates, not wraps */
    alias_buf top = bytes(ULLONG_MAX - 8, 1, 100, 0), low = bytes(16, 1, 8, 0);
    assert_int_equal(overlap(top, low), 0);
    assert_int_equal(overlap(top, bytes(ULLONG_MAX - 1, 1, 1, 0)), 1);
}

static alias_buf named(const char *what, const char *name, unsigned long long addr, long long rows,
                       long long cols, long long ld, int written, int mn, int elem)
{
    alias_buf b;
    memset(&b, 0, sizeof b);
    alias_footprint(&b, AT(addr), rows, cols, ld, 2);
    b.what = what;
    b.name = name;
    b.written = written;
    b.mn = mn;
    b.elem = elem;
    b.ld = ld;
    return b;
}

static void test_rule(void **state)
{
    (void)state;
    char msg[400];
    enum { M = 8, N = 16, LD = 24, F16 = 1, BF16 = 2 };
    alias_buf bufs[4];
    bufs[0] = named("operand", "a", 0x100000, M, 32, 32, 0, 0, F16);
    bufs[1] = named("input", "res", 0x200000, M, N, LD, 0, 1, F16);
    bufs[2] = named("input", "bias", 0x100000 + 64, 1, N, 0, 0, 0, F16); /* inside a: read-only */
    bufs[3] = named("output", "d", 0x200000, M, N, LD, 1, 1, F16); /* in place over res */
    assert_int_equal(alias_check(bufs, 4, msg, sizeof msg), 0);

    bufs[3] = named("output", "d", 0x200000, M, N, LD + 8, 1, 1, F16); /* another ld */
    assert_int_equal(alias_check(bufs, 4, msg, sizeof msg), 1);
    assert_string_equal(msg, "output 'd' overlaps input 'res' without being the same buffer "
                             "(writing in place takes the same pointer, element type and leading "
                             "dimension)");
    bufs[3] = named("output", "d", 0x200000, M, N, LD, 1, 1, BF16); /* another element type */
    assert_int_equal(alias_check(bufs, 4, msg, sizeof msg), 1);
    bufs[3] = named("output", "d", 0x200000 + 2 * N, M, N, LD, 1, 1, F16); /* mid-row */
    assert_int_equal(alias_check(bufs, 4, msg, sizeof msg), 1);
    bufs[3] = named("output", "d", 0x100000 + 2, M, N, LD, 1, 1, F16); /* in operand a */
    assert_int_equal(alias_check(bufs, 4, msg, sizeof msg), 1);
    assert_string_equal(msg, "output 'd' overlaps operand 'a'");

    /* two outputs never share, not even exactly */
    alias_buf outs[2] = {named("output", "x", 0x300000, M, N, LD, 1, 1, F16),
                         named("output", "y", 0x300000, M, N, LD, 1, 1, F16)};
    assert_int_equal(alias_check(outs, 2, msg, sizeof msg), 1);
    assert_string_equal(msg, "output 'x' overlaps output 'y'");
    /* a buffer without a name: the written one is named first */
    alias_buf ws[2] = {named("input", "res", 0x400000, M, N, LD, 0, 1, F16),
                       named("the workspace", NULL, 0x400000 + 4, 1, 64, 0, 1, 0, 0)};
    assert_int_equal(alias_check(ws, 2, msg, sizeof msg), 1);
    assert_string_equal(msg, "the workspace overlaps input 'res'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlap_matches_bytes),
        cmocka_unit_test(test_overlap_cases),
        cmocka_unit_test(test_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
