/* test_oom.c - running out of memory at every allocation of a parse: the
 * library answers EVT_ERR_NO_MEMORY or a NULL text, never crashes, and never
 * hands back a module or text that differs from a run with enough memory.
 *
 * malloc and friends are replaced for this program and fail on request; the
 * real ones are glibc's __libc_* entry points.  Sanitizer builds bring their
 * own allocator, so there the test skips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <evt/evt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define EVT_OWN_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define EVT_OWN_ALLOCATOR 1
#endif

#if !defined(EVT_OWN_ALLOCATOR) && defined(__GLIBC__)
#define EVT_CAN_FAIL_MALLOC 1

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void __libc_free(void *p);

static long fail_at = -1; /* the allocation to fail, counting from 0; -1: none */
static long allocations;

static int fail_now(void)
{
    return fail_at >= 0 && allocations++ == fail_at;
}

void *malloc(size_t size)
{
    return fail_now() ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    return fail_now() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    return fail_now() ? NULL : __libc_realloc(p, size);
}

void free(void *p)
{
    __libc_free(p);
}
#endif

#ifdef EVT_CAN_FAIL_MALLOC
static const char *const sources[] = {
    /* valid, with a warning: every listing and text */
    "epilogue a { param s : f32 = 2 in b : f16[N] in unused : f32\n"
    "  let y = relu(acc * s + b) out d : bf16[M, N] = y out r : f32[M] = reduce_sum(y, N) }\n"
    "epilogue c { out z : f32[M, N] = acc > 0 ? acc : 0.1 * acc }\n"
    "kernel k1 = gemm(a: f16 row, b: f16 col) with a\n"
    "kernel k2 = conv2d_fprop(x: bf16, w: bf16, acc: f32) with c\n",
    /* invalid: lexical, syntax and semantic errors, notes */
    "epilogue e { in x : f32 in x : f32 out y : f32[M] = x + q $ out z : f32 = relu(reduce_sum(x)) }\n"
    "kernel k = gemm(a: f32 row, b: f16 diag) with missing\n"
    "epilogue open { out w : f32[M, N] = (acc\n",
};

typedef struct texts {
    evt_status status;
    char *all; /* every text and listing, concatenated; NULL if a text was NULL */
} texts;

static char *append(char *all, const char *s)
{
    if (!all || !s) {
        free(all);
        return NULL;
    }
    size_t n = strlen(all), m = strlen(s);
    char *r = realloc(all, n + m + 2);
    if (!r) {
        free(all);
        return NULL;
    }
    memcpy(r + n, s, m);
    r[n + m] = '|';
    r[n + m + 1] = '\0';
    return r;
}

/* The diagnostics text, or NULL when it says that it could not be rendered. */
static const char *diag_text(evt_module *m, evt_diag_format format)
{
    const char *s = evt_module_diag_text(m, format);
    return strstr(s, "out of memory rendering the diagnostics") ? NULL : s;
}

/* Parses src and reads everything back; with fail_at set, allocations inside
 * the library may fail, and what comes back is copied after disarming. */
static texts run(const char *src, long fail)
{
    texts t = {EVT_OK, NULL};
    const char *parts[8] = {0};
    size_t nparts = 0;
    char listing[256] = "";
    allocations = 0;
    fail_at = fail;
    evt_ctx *ctx = evt_ctx_create();
    evt_module *m = NULL;
    if (!ctx) {
        t.status = EVT_ERR_NO_MEMORY;
    } else {
        t.status = evt_module_parse_buffer(ctx, "oom.evt", src, strlen(src), &m);
        if (m) {
            parts[nparts++] = diag_text(m, EVT_DIAG_TEXT);
            parts[nparts++] = diag_text(m, EVT_DIAG_JSON);
            if (t.status == EVT_OK) {
                parts[nparts++] = evt_module_ir_text(m);
                parts[nparts++] = evt_module_dot_text(m);
            }
            snprintf(listing, sizeof listing, "%zu %zu %zu %s", evt_module_diag_count(m),
                     evt_module_epilogue_count(m), evt_module_kernel_count(m),
                     evt_module_kernel_count(m) ? evt_kernel_name(evt_module_kernel(m, 0)) : "-");
        }
    }
    fail_at = -1;
    if (t.status == EVT_OK || t.status == EVT_ERR_SOURCE) {
        t.all = append(calloc(1, 1), listing);
        for (size_t i = 0; i < nparts; i++)
            t.all = append(t.all, parts[i]);
    }
    evt_module_destroy(m);
    evt_ctx_destroy(ctx);
    return t;
}

#endif

static void test_every_allocation_fails_cleanly(void **state)
{
    (void)state;
#ifndef EVT_CAN_FAIL_MALLOC
    skip();
#else
    for (size_t k = 0; k < sizeof sources / sizeof sources[0]; k++) {
        texts want = run(sources[k], -1);
        assert_non_null(want.all);
        int failures = 0;
        for (long n = 0;; n++) {
            texts got = run(sources[k], n);
            int reached = allocations > n; /* did allocation n happen at all? */
            if (got.status == EVT_ERR_NO_MEMORY) {
                failures++;
            } else {
                if (got.status != want.status)
                    fail_msg("source %zu, allocation %ld failed: status %d, want %d", k, n,
                             got.status, want.status);
                /* A text may be NULL (or the listing lost) under memory pressure; a
                 * text that comes back must be the whole, right one. */
                if (got.all && strcmp(got.all, want.all) != 0)
                    fail_msg("source %zu, allocation %ld failed: wrong output\n%s\nwant\n%s", k,
                             n, got.all, want.all);
            }
            free(got.all);
            if (!reached)
                break; /* every allocation has been failed once */
        }
        assert_true(failures > 0);
        free(want.all);
    }
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocation_fails_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
