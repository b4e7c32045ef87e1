/* test_nvrtc.c - loading NVRTC: its builtins library comes from NVRTC's own folder. */
#define _GNU_SOURCE /* dlinfo, RTLD_NOLOAD */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "codegen/embedded.h"
#include "codegen/nvrtc.h"
#include "support/strbuf.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The real folder of the loaded library `handle`. */
static void folder_of(void *handle, char out[PATH_MAX])
{
    struct link_map *map = NULL;
    assert_int_equal(dlinfo(handle, RTLD_DI_LINKMAP, &map), 0);
    assert_non_null(realpath(map->l_name, out));
    char *dir = dirname(out);
    memmove(out, dir, strlen(dir) + 1);
}

/* NVRTC looks for libnvrtc-builtins by name only, at its first compile, and
 * fails where the loader's path lacks NVRTC's folder (NVIDIA's pip wheel):
 * loading NVRTC must bring the builtins of its own folder in with it. */
static void test_builtins_beside_nvrtc(void **state)
{
    (void)state;
    strbuf err;
    sb_init(&err);
    cg_nvrtc *nv = cg_nvrtc_load(NULL, &err);
    sb_free(&err);
    if (!nv)
        skip(); /* no CUDA toolkit here */
    int v = cg_nvrtc_version(nv);
    char name[64];
    /* Loaded libraries answer to their soname, however they were found. */
    snprintf(name, sizeof name, "libnvrtc.so.%d", v / 1000);
    void *nvrtc = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    snprintf(name, sizeof name, "libnvrtc-builtins.so.%d.%d", v / 1000, v % 1000 / 10);
    void *builtins = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(nvrtc);
    assert_non_null(builtins); /* before any compile asked for it */
    char want[PATH_MAX], got[PATH_MAX];
    folder_of(nvrtc, want);
    folder_of(builtins, got);
    assert_string_equal(got, want);
    dlclose(builtins);
    dlclose(nvrtc);
    cg_nvrtc_unload(nv);
}

/* The kernel cache's key takes the kernels/ headers' digest (runtime/cache.c):
 * embed.cmake writes it, 32 hex digits, beside the headers themselves (that
 * it follows their contents and names: tests/codegen/embed_digest.sh). */
static void test_headers_digest(void **state)
{
    (void)state;
    assert_int_equal(strlen(cg_embedded_headers_digest), 32);
    assert_int_equal(strspn(cg_embedded_headers_digest, "0123456789abcdef"), 32);
    assert_true(cg_embedded_header_count > 10);
    for (size_t i = 0; i < cg_embedded_header_count; i++)
        assert_non_null(cg_embedded_headers[i].text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtins_beside_nvrtc),
        cmocka_unit_test(test_headers_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
