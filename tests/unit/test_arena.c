/* test_arena.c - the bump allocator: zeroed, aligned, distinct memory; growth; failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support/arena.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

static int setup(void **state)
{
    arena *a = malloc(sizeof *a);
    if (!a)
        return -1;
    arena_init(a);
    *state = a;
    return 0;
}

static int teardown(void **state)
{
    arena *a = *state;
    arena_free(a);
    free(a);
    return 0;
}

static void test_alloc_is_zeroed_and_aligned(void **state)
{
    arena *a = *state;
    for (size_t size = 0; size < 300; size += 7) {
        unsigned char *p = arena_alloc(a, size);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % alignof(max_align_t), 0);
        for (size_t i = 0; i < size; i++)
            assert_int_equal(p[i], 0);
        memset(p, 0xab, size); /* dirty it: the next allocation must still be zeroed */
    }
    assert_int_equal(a->failed, 0);
}

/* Many allocations, small and large, never overlap and keep their contents. */
static void test_allocations_are_distinct(void **state)
{
    arena *a = *state;
    enum { COUNT = 2000 };
    unsigned char **ptrs = malloc(COUNT * sizeof *ptrs);
    size_t *sizes = malloc(COUNT * sizeof *sizes);
    assert_non_null(ptrs);
    assert_non_null(sizes);
    for (size_t i = 0; i < COUNT; i++) {
        /* Every 100th is larger than a quarter block: it gets a block of its own. */
        sizes[i] = i % 100 == 99 ? 40000 + i : 1 + i % 97;
        ptrs[i] = arena_alloc(a, sizes[i]);
        assert_non_null(ptrs[i]);
        memset(ptrs[i], (int)(i & 0xff), sizes[i]);
    }
    for (size_t i = 0; i < COUNT; i++)
        for (size_t j = 0; j < sizes[i]; j++)
            assert_int_equal(ptrs[i][j], i & 0xff);
    free(ptrs);
    free(sizes);
}

static void test_zero_size_is_unique(void **state)
{
    arena *a = *state;
    void *p = arena_alloc(a, 0), *q = arena_alloc(a, 0);
    assert_non_null(p);
    assert_non_null(q);
    assert_ptr_not_equal(p, q);
}

static void test_huge_request_fails_cleanly(void **state)
{
    arena *a = *state;
    assert_null(arena_alloc(a, SIZE_MAX));
    assert_int_equal(a->failed, 1);
    assert_null(arena_alloc(a, SIZE_MAX - 8));
    assert_null(arena_alloc(a, SIZE_MAX / 2 + 1));
    assert_null(arena_strndup(a, "x", SIZE_MAX));
    assert_null(arena_strndup(a, "x", SIZE_MAX - 1));
    /* The arena stays usable after a failure. */
    char *s = arena_strdup(a, "still fine");
    assert_non_null(s);
    assert_string_equal(s, "still fine");
}

static void test_strndup_copies_exactly(void **state)
{
    arena *a = *state;
    const char src[] = "ab\0cd";
    char *s = arena_strndup(a, src, 5);
    assert_non_null(s);
    assert_memory_equal(s, src, 5);
    assert_int_equal(s[5], '\0');
    char *t = arena_strndup(a, "hello", 3);
    assert_string_equal(t, "hel");
    assert_string_equal(arena_strdup(a, ""), "");
    assert_ptr_not_equal(arena_strdup(a, "x"), arena_strdup(a, "x"));
}

static void test_grow_keeps_elements(void **state)
{
    arena *a = *state;
    int *v = arena_grow(a, NULL, sizeof *v, 0, 4);
    assert_non_null(v);
    for (int i = 0; i < 4; i++)
        v[i] = i * i;
    int *w = arena_grow(a, v, sizeof *w, 4, 100);
    assert_non_null(w);
    for (int i = 0; i < 4; i++)
        assert_int_equal(w[i], i * i);
    for (int i = 4; i < 100; i++)
        assert_int_equal(w[i], 0);
}

static void test_grow_overflow_fails(void **state)
{
    arena *a = *state;
    assert_null(arena_grow(a, NULL, 16, 0, SIZE_MAX / 8));
    assert_int_equal(a->failed, 1);
}

static void test_push_appends_in_order(void **state)
{
    arena *a = *state;
    struct {
        long *items;
        size_t count, cap;
    } arr = {0};
    for (long i = 0; i < 10000; i++)
        ARENA_PUSH(a, arr.items, arr.count, arr.cap, i * 3);
    assert_int_equal(arr.count, 10000);
    assert_true(arr.cap >= arr.count);
    for (long i = 0; i < 10000; i++)
        assert_int_equal(arr.items[i], i * 3);
}

static void test_free_and_reuse(void **state)
{
    (void)state;
    arena a;
    arena_init(&a);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 1000; i++)
            assert_non_null(arena_alloc(&a, 100 + (size_t)i));
        assert_non_null(arena_alloc(&a, 1 << 20));
        arena_free(&a);
        assert_null(a.head);
        arena_init(&a);
    }
    arena_free(&a); /* freeing an empty arena is fine */
    arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_alloc_is_zeroed_and_aligned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allocations_are_distinct, setup, teardown),
        cmocka_unit_test_setup_teardown(test_zero_size_is_unique, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_request_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strndup_copies_exactly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grow_keeps_elements, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grow_overflow_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_push_appends_in_order, setup, teardown),
        cmocka_unit_test(test_free_and_reuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
