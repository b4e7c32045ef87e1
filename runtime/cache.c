/* cache.c - kernel cache.  The key hashes the CUDA source, the NVRTC options,
 * the target and the NVRTC version, so a changed compiler or template never
 * reuses a stale cubin.  Disk entries are written to a temporary name of
 * their own and renamed, so concurrent processes and contexts never see
 * half a file. */
#define _POSIX_C_SOURCE 200809L
#include "cache.h"
#include "../support/names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bump when the NVRTC options in codegen/nvrtc.c change. */
#define RT_CACHE_OPTIONS "v1 --std=c++17 --fmad=false"

static unsigned long long fnv1a(unsigned long long h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The cache folder (created), or 0 when the disk cache is off or unusable. */
static int cache_dir(char *dir, size_t n)
{
    const char *off = getenv("EVT_DISABLE_CACHE");
    if (off && off[0] && strcmp(off, "0") != 0)
        return 0;
    const char *env = getenv("EVT_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int len;
    if (env && env[0])
        len = snprintf(dir, n, "%s", env);
    else if (xdg && xdg[0])
        len = snprintf(dir, n, "%s/evt", xdg);
    else if (home && home[0])
        len = snprintf(dir, n, "%s/.cache/evt", home);
    else
        return 0;
    if (len <= 0 || (size_t)len >= n)
        return 0;
    /* Create each missing component; an existing folder is fine. */
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    return mkdir(dir, 0755) == 0 || errno == EEXIST;
}

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = buf ? (size_t)n : 0;
    return buf;
}

/*
 * Writes a temporary file of a name no other writer has, then renames it
 * into place.  A name made of the pid alone is shared by the contexts of one
 * process: two threads compiling one kernel wrote one temporary file, and
 * the second's truncation could empty the file the first had just renamed
 * into place, under a reader.
 */
static void write_file(const char *path, const void *data, size_t size)
{
    char tmp[4300];
    int n = snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return;
    int fd = mkstemp(tmp);
    if (fd < 0)
        return; /* a read-only cache only costs a recompile */
    /* mkstemp's 0600 would keep the cache from the other users of a shared folder. */
    fchmod(fd, 0644);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        remove(tmp);
        return;
    }
    int ok = fwrite(data, 1, size, f) == size;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0)
        remove(tmp);
}

int rt_cache_module(rt_cached_module **cache, const rt_driver *driver, cg_nvrtc **nvrtc,
                    const char *nvrtc_path,
                    const char *source, const char *name, evt_target t, rt_cu_context cu_ctx,
                    rt_cu_module *out, evt_status *status, strbuf *err)
{
    if (!cg_nvrtc_get(nvrtc, nvrtc_path, err)) {
        *status = EVT_ERR_COMPILE;
        return 0;
    }
    const char *target = evt_target_name(t);
    int version = cg_nvrtc_version(*nvrtc);
    size_t len = strlen(source);
    unsigned long long key = fnv1a(1469598103934665603ull, source, len);
    key = fnv1a(key, RT_CACHE_OPTIONS, sizeof RT_CACHE_OPTIONS);
    key = fnv1a(key, target, strlen(target));
    key = fnv1a(key, &version, sizeof version);

    for (rt_cached_module *c = *cache; c; c = c->next)
        if (c->cu_ctx == cu_ctx && c->key == key && c->source_len == len) {
            *out = c->module;
            return 1;
        }

    char dir[4096], path[4200];
    int disk = cache_dir(dir, sizeof dir);
    if (disk) {
        int n = snprintf(path, sizeof path, "%s/%016llx-%s.cubin", dir, key, target);
        disk = n > 0 && (size_t)n < sizeof path;
    }
    size_t size = 0;
    void *cubin = disk ? read_file(path, &size) : NULL;
    if (!cubin) {
        strbuf log;
        sb_init(&log);
        char *bin = NULL;
        if (!cg_compile(*nvrtc, source, name, t, CG_CUBIN, &bin, &size, NULL, &log)) {
            /* NVRTC failing on generated code is our bug; its log says where. */
            sb_printf(err, "NVRTC failed to compile kernel '%s' for %s:\n%s", name, target,
                      sb_str(&log));
            sb_free(&log);
            *status = EVT_ERR_COMPILE;
            return 0;
        }
        sb_free(&log);
        cubin = bin;
        if (disk)
            write_file(path, cubin, size);
    }
    rt_cached_module *c = calloc(1, sizeof *c);
    rt_cu_result r = c ? driver->module_load_data(&c->module, cubin) : 0;
    free(cubin);
    if (!c || r != 0) {
        *status = c ? EVT_ERR_DRIVER : EVT_ERR_NO_MEMORY;
        if (c)
            rt_driver_error(driver, r, "cuModuleLoadData", err);
        else
            sb_puts(err, "out of memory");
        free(c);
        return 0;
    }
    c->cu_ctx = cu_ctx;
    c->key = key;
    c->source_len = len;
    c->next = *cache;
    *cache = c;
    *out = c->module;
    *status = EVT_OK;
    return 1;
}

void rt_cache_clear(rt_cached_module **cache, const rt_driver *driver)
{
    rt_cached_module *c = *cache;
    while (c) {
        rt_cached_module *next = c->next;
        /* The CUDA context may already be gone at exit; unloading then fails harmlessly. */
        if (driver)
            driver->module_unload(c->module);
        free(c);
        c = next;
    }
    *cache = NULL;
}
