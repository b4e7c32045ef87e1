/* cache.c - kernel cache.  The key hashes the CUDA source, the kernels/
 * headers it includes (their digest: a changed template leaves the
 * generated source as it was), the NVRTC options, the target and the NVRTC
 * version, so a changed compiler or template never reuses a stale cubin.  Disk entries are written to a temporary name of
 * their own and renamed, so concurrent processes and contexts never see
 * half a file. */
#define _POSIX_C_SOURCE 200809L
#include "cache.h"
#include "../codegen/embedded.h"
#include "../support/names.h"

#include <errno.h>
#include <pthread.h>
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

int rt_cache_dir(char *dir, size_t n)
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

/* The key of `source` compiled for target t by NVRTC `version`. */
static unsigned long long cache_key(const char *source, size_t len, evt_target t, int version)
{
    const char *target = evt_target_name(t);
    unsigned long long key = fnv1a(1469598103934665603ull, source, len);
    key = fnv1a(key, cg_embedded_headers_digest, strlen(cg_embedded_headers_digest));
    key = fnv1a(key, RT_CACHE_OPTIONS, sizeof RT_CACHE_OPTIONS);
    key = fnv1a(key, target, strlen(target));
    return fnv1a(key, &version, sizeof version);
}

static rt_cached_module *find_loaded(rt_cached_module *cache, rt_cu_context cu_ctx,
                                     unsigned long long key, size_t len)
{
    for (rt_cached_module *c = cache; c; c = c->next)
        if (c->cu_ctx == cu_ctx && c->key == key && c->source_len == len)
            return c;
    return NULL;
}

/* The disk cache's file for key and t; 0 when the disk cache is off. */
static int disk_path(unsigned long long key, evt_target t, char *path, size_t n)
{
    char dir[4096];
    if (!rt_cache_dir(dir, sizeof dir))
        return 0;
    int len = snprintf(path, n, "%s/%016llx-%s.cubin", dir, key, evt_target_name(t));
    return len > 0 && (size_t)len < n;
}

/* Loads `cubin` (freed here) with the driver and puts it first in *cache. */
static int add_loaded(rt_cached_module **cache, const rt_driver *driver, void *cubin,
                      rt_cu_context cu_ctx, unsigned long long key, size_t len, rt_cu_module *out,
                      evt_status *status, strbuf *err)
{
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
    if (out)
        *out = c->module;
    *status = EVT_OK;
    return 1;
}

/* The reason for cg_compile's failure st into err; returns st. */
static evt_status compile_failed(strbuf *err, evt_status st, const char *name, evt_target t, const strbuf *log)
{
    if (st == EVT_ERR_NO_MEMORY)
        sb_printf(err, "out of memory compiling kernel '%s' for %s: %s", name, evt_target_name(t), sb_str(log));
    else /* NVRTC failing on generated code is our bug; its log says where. */
        sb_printf(err, "NVRTC failed to compile kernel '%s' for %s:\n%s", name, evt_target_name(t),
                  sb_str(log));
    return st;
}

int rt_cache_module(rt_cached_module **cache, const rt_driver *driver, cg_nvrtc **nvrtc,
                    const char *nvrtc_path,
                    const char *source, const char *name, evt_target t, rt_cu_context cu_ctx,
                    rt_cu_module *out, evt_status *status, strbuf *err)
{
    if ((*status = cg_nvrtc_get(nvrtc, nvrtc_path, err)) != EVT_OK)
        return 0;
    size_t len = strlen(source);
    unsigned long long key = cache_key(source, len, t, cg_nvrtc_version(*nvrtc));
    rt_cached_module *hit = find_loaded(*cache, cu_ctx, key, len);
    if (hit) {
        *out = hit->module;
        return 1;
    }
    char path[4200];
    int disk = disk_path(key, t, path, sizeof path);
    size_t size = 0;
    void *cubin = disk ? read_file(path, &size) : NULL;
    if (!cubin) {
        strbuf log;
        sb_init(&log);
        char *bin = NULL;
        evt_status st = cg_compile(*nvrtc, source, name, t, CG_CUBIN, &bin, &size, NULL, &log);
        if (st != EVT_OK) {
            *status = compile_failed(err, st, name, t, &log);
            sb_free(&log);
            return 0;
        }
        sb_free(&log);
        cubin = bin;
        if (disk)
            write_file(path, cubin, size);
    }
    return add_loaded(cache, driver, cubin, cu_ctx, key, len, out, status, err);
}

/* ---- many at once: the tuner's candidates ------------------------------- */

typedef struct compile_job {
    const char *source, *name;
    size_t len;
    unsigned long long key; /* cache_key of source */
    evt_target t;
    int compiled; /* by NVRTC here, not read from the disk cache: to be written there */
    char *cubin;
    size_t size;
    strbuf log;
    int ok;
    evt_status status; /* cg_compile's, where it ran */
} compile_job;

typedef struct compile_pool {
    cg_nvrtc *nvrtc;
    compile_job **jobs;
    size_t njobs, next;
    pthread_mutex_t lock;
} compile_pool;

static void *compile_worker(void *arg)
{
    compile_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->njobs ? p->next++ : p->njobs;
        pthread_mutex_unlock(&p->lock);
        if (i == p->njobs)
            return NULL;
        compile_job *j = p->jobs[i];
        /* NVRTC compiles separate programs on separate threads safely; nothing else is shared. */
        j->status = cg_compile(p->nvrtc, j->source, j->name, j->t, CG_CUBIN, &j->cubin, &j->size, NULL,
                               &j->log);
        j->ok = j->compiled = j->status == EVT_OK;
    }
}

int rt_cache_modules(rt_cached_module **cache, const rt_driver *driver, cg_nvrtc **nvrtc,
                     const char *nvrtc_path, const char *const *sources, const char *name,
                     size_t n, evt_target t, rt_cu_context cu_ctx, int threads, size_t *compiled,
                     evt_status *status, strbuf *err)
{
    *status = EVT_OK;
    if (compiled)
        *compiled = 0;
    if ((*status = cg_nvrtc_get(nvrtc, nvrtc_path, err)) != EVT_OK)
        return 0;
    const int version = cg_nvrtc_version(*nvrtc);
    compile_job *jobs = calloc(n ? n : 1, sizeof *jobs);
    compile_job **todo = calloc(n ? n : 1, sizeof *todo);
    if (!jobs || !todo) {
        free(jobs);
        free(todo);
        *status = EVT_ERR_NO_MEMORY;
        sb_puts(err, "out of memory");
        return 0;
    }
    size_t ntodo = 0;
    for (size_t i = 0; i < n; i++) {
        compile_job *j = &jobs[i];
        sb_init(&j->log);
        j->source = sources[i];
        j->len = strlen(sources[i]);
        j->key = cache_key(sources[i], j->len, t, version);
        j->name = name;
        j->t = t;
        j->ok = find_loaded(*cache, cu_ctx, j->key, j->len) != NULL;
        char path[4200];
        if (!j->ok && disk_path(j->key, t, path, sizeof path) && (j->cubin = read_file(path, &j->size)))
            j->ok = 1;
        if (!j->ok)
            todo[ntodo++] = j;
    }
    compile_pool pool = {*nvrtc, todo, ntodo, 0, PTHREAD_MUTEX_INITIALIZER};
    if (threads < 1)
        threads = 1;
    if ((size_t)threads > ntodo)
        threads = (int)ntodo;
    pthread_t tid[64];
    int started = 0;
    for (; started < threads && started < 64; started++)
        if (pthread_create(&tid[started], NULL, compile_worker, &pool) != 0)
            break;
    if (started == 0)
        compile_worker(&pool); /* no thread could start: this one does the work */
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    if (compiled)
        *compiled = ntodo;

    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        compile_job *j = &jobs[i];
        if (ok && !j->ok) {
            *status = compile_failed(err, j->status, name, t, &j->log);
            ok = 0;
        } else if (ok && j->cubin) {
            char path[4200];
            if (j->compiled && disk_path(j->key, t, path, sizeof path))
                write_file(path, j->cubin, j->size);
            ok = add_loaded(cache, driver, j->cubin, cu_ctx, j->key, j->len, NULL, status, err);
            j->cubin = NULL;
        }
        free(j->cubin);
        sb_free(&j->log);
    }
    free(jobs);
    free(todo);
    return ok;
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
