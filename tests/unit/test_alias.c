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

/* The bytes of problems 0..count-1 of a strided footprint, into seen[] (bit `mark`). */
static void mark_batch(unsigned char *seen, unsigned space, unsigned start, int rows, int width, int pitch,
                       unsigned stride, unsigned count, unsigned char mark)
{
    for (unsigned l = 0; l < count; l++)
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < width; c++) {
                const unsigned at = start + l * stride + (unsigned)(r * pitch + c);
                if (at < space)
                    seen[at] |= mark;
            }
}

/* alias_overlap_batch and alias_self_overlap against a byte-by-byte answer,
 * over small strided footprints and batches: never a miss, and exact where
 * the strides are equal or one is 0 (the cases launches meet). */
static void test_batch_overlap_matches_bytes(void **state)
{
    (void)state;
    enum { SPACE = 4096 };
    static unsigned char seen[SPACE];
    for (unsigned count = 1; count <= 5; count++)
        for (int rows = 1; rows <= 3; rows++)
            for (int wa = 1; wa <= 4; wa++)
                for (int wb = 1; wb <= 3; wb += 2)
                    for (unsigned sa = 0; sa <= 14; sa += 2)
                        for (unsigned sb = 0; sb <= 14; sb += 3)
                            for (unsigned db = 0; db < 40; db += 3) {
                                const int pa = wa + 2, pb = pa; /* one pitch: alias_overlap is exact */
                                memset(seen, 0, sizeof seen);
                                mark_batch(seen, SPACE, 100, rows, wa, pa, sa, count, 1);
                                mark_batch(seen, SPACE, 100 + db, 2, wb, pb, sb, count, 2);
                                int want = 0;
                                for (unsigned i = 0; i < SPACE; i++)
                                    want |= seen[i] == 3;
                                alias_buf a = bytes(100, rows, wa, pa), b = bytes(100 + db, 2, wb, pb);
                                a.stride = sa;
                                b.stride = sb;
                                const int got = alias_overlap_batch(&a, &b, count);
                                assert_int_equal(got, alias_overlap_batch(&b, &a, count));
                                if (want)
                                    assert_true(got);
                                else if (sa == sb || !sa || !sb || count == 1)
                                    assert_false(got);
                                /* one footprint's problems among themselves */
                                unsigned char self[SPACE] = {0};
                                int clash = 0;
                                for (unsigned l = 0; l < count && !clash; l++)
                                    for (int r = 0; r < rows; r++)
                                        for (int c = 0; c < wa; c++) {
                                            const unsigned at = 100 + l * sa + (unsigned)(r * pa + c);
                                            clash |= self[at] != 0;
                                            self[at] = 1;
                                        }
                                assert_int_equal(alias_self_overlap(&a, count), clash);
                            }
}

/* Batches of thousands: what is tried one shift at a time stays bounded. */
static void test_batch_overlap_large(void **state)
{
    (void)state;
    alias_buf a = bytes(0x100000, 64, 80, 96), b = bytes(0x100000 + 80, 64, 16, 96);
    a.stride = b.stride = 96 * 64;
    /* side by side in every problem, 2^31 problems: apart */
    assert_false(alias_overlap_batch(&a, &b, 1ULL << 31));
    assert_false(alias_self_overlap(&a, 1ULL << 31));
    /* b one problem over: still apart (b is column 80..95 of each row) */
    b.base += a.stride;
    assert_false(alias_overlap_batch(&a, &b, 1ULL << 31));
    /* rows interleaved problem by problem, 96-byte stride: each row of
     * problem l + 1 is the next row of problem l */
    a.stride = 96;
    assert_true(alias_self_overlap(&a, 2));
    a.stride = 0;
    assert_true(alias_self_overlap(&a, 2));
    assert_false(alias_self_overlap(&a, 1));
    /* a stride past 2^64 bytes of travel saturates, never wraps */
    a.stride = ULLONG_MAX / 2;
    assert_false(alias_self_overlap(&a, 3));
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlap_matches_bytes),
        cmocka_unit_test(test_overlap_cases),
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_batch_overlap_matches_bytes),
        cmocka_unit_test(test_batch_overlap_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
