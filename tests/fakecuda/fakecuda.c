/*
 * fakecuda.c - the CUDA driver entry points libevt loads, answered by a
 * device that exists only as data (fakecuda.h says what it records and
 * refuses, and how tests reach it).
 *
 * Everything the driver keeps is in one struct behind one mutex, so the
 * record stays consistent when a program calls from several threads; the
 * current context and the capture mode are per thread, as the driver's are.
 */
#define _GNU_SOURCE
#include "fakecuda.h"
#include "fakecuda_internal.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
    CUDA_ERROR_INVALID_CLUSTER_SIZE = 912,
    CUDA_ERROR_UNKNOWN = 999
};

enum { FK_MAX_DEVICES = 8, FK_MAX_RECORDS = 1 << 16, FK_DEFAULT_SMEM = 48 * 1024 };

/* ---- the state ----------------------------------------------------------- */

typedef struct fk_device fk_device;

/* A device's primary context; its address is the CUcontext. */
typedef struct fk_ctx {
    fk_device *device;
} fk_ctx;

struct fk_device {
    int major, minor, sms;
    int smem_optin, smem_per_sm;
    char name[64];
    fk_ctx ctx;
};

typedef struct fk_function {
    struct fk_function *next;
    struct fk_module *module;
    char *name;
    int nparams; /* -1: unknown */
    size_t param_size[FAKECUDA_MAX_PARAMS];
    int max_threads;  /* .maxntid / EIATTR_MAX_THREADS product; 0: unknown */
    int cluster;      /* .reqnctapercluster's x; 0: no clusters */
    int static_smem;  /* .nv.shared.<name> */
    int max_dynamic;  /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
} fk_function;

typedef struct fk_module {
    struct fk_module *next;
    fk_ctx *ctx;
    fk_function *functions;
} fk_module;

typedef struct fk_event {
    struct fk_event *next;
    int recorded;  /* 0: never, 1: at `t`, 2: into a capture (no time) */
    double t;
} fk_event;

typedef struct fk_stream {
    struct fk_stream *next;
    int capture;  /* CU_STREAM_CAPTURE_STATUS_* */
    int mode;     /* the capture's CUstreamCaptureMode */
    long kernels; /* launches captured since the capture began */
} fk_stream;

/* A graph (cuStreamEndCapture, where fakecuda_set_graphs allows) and an
 * instantiated one: the launches captured, which a replay runs on the clock
 * one after another. */
typedef struct fk_graph {
    struct fk_graph *next;
    long kernels;
    int exec; /* 1: a CUgraphExec */
} fk_graph;

/* A device allocation, live from launch record `since` (the records
 * before it were launched without it) until `until` once freed: a launch
 * enqueued before a cuMemFree may use the memory, as cuMemFree waits for
 * the device's work first. */
typedef struct fk_block {
    unsigned long long base;
    size_t size;
    size_t since, until;
} fk_block;

/* A growable array of records of one kind, capped at FK_MAX_RECORDS. */
typedef struct fk_vec {
    void *data;
    size_t n, cap, elem;
} fk_vec;

/* Calls counted per entry point, by name. */
typedef struct fk_count {
    const char *name;
    long n;
} fk_count;

static struct {
    pthread_mutex_t lock;
    int initialized;
    fk_device devices[FK_MAX_DEVICES];
    int ndevices;
    size_t mem_limit, mem_used;
    fk_module *modules;
    fk_event *events;
    fk_stream *streams;
    fk_block *blocks;
    size_t nblocks, blocks_cap;
    fk_block *freed; /* released since the reset, for fakecuda_find_alloc_at */
    size_t nfreed, freed_cap;
    fk_vec launches, maps, allocs, attributes;
    fk_vec retired; /* names of unloaded modules' functions, which records point at until a reset */
    fk_count counts[64];
    long total_calls;
    /* failure injection */
    char fail_call[64];
    long fail_left;
    int fail_result;
    const char *failed_call;
    int pending; /* a release call's injected result, returned after releasing */
    long violations;
    char last_violation[256];
    const float *launch_ms; /* fakecuda_set_launch_ms, a copy */
    size_t nlaunch_ms;
    long launches_run;
    double clock_ms;
    long compiles;
    int cluster_max; /* fakecuda_set_cluster_max; 8 after a reset */
    int graphs;      /* fakecuda_set_graphs; 0 after a reset */
    fk_graph *graph_list;
} fk = {.lock = PTHREAD_MUTEX_INITIALIZER, .cluster_max = 8};

static __thread fk_ctx *current;
static __thread int capture_mode; /* CU_STREAM_CAPTURE_MODE_GLOBAL */

/* Legacy and per-thread default streams (CU_STREAM_LEGACY, CU_STREAM_PER_THREAD). */
#define FK_STREAM_LEGACY ((void *)0x1)
#define FK_STREAM_PER_THREAD ((void *)0x2)

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void violation(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fk.last_violation, sizeof fk.last_violation, fmt, ap);
    va_end(ap);
    fk.violations++;
}

static void *vec_push(fk_vec *v, size_t elem)
{
    if (v->n == FK_MAX_RECORDS)
        return NULL;
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 64;
        void *p = realloc(v->data, cap * elem);
        if (!p)
            return NULL;
        v->data = p;
        v->cap = cap;
    }
    v->elem = elem;
    void *slot = (char *)v->data + v->n++ * elem;
    memset(slot, 0, elem);
    return slot;
}

static void *vec_at(const fk_vec *v, size_t i)
{
    return i < v->n ? (char *)v->data + i * v->elem : NULL;
}

/* ---- devices ------------------------------------------------------------- */

/* The architecture's limits, which a device's compute capability implies. */
static void device_defaults(fk_device *d, int sms)
{
    const int cc = d->major * 10 + d->minor;
    d->smem_optin = cc == 90 ? 227 * 1024 : cc == 80 || cc == 87 ? 163 * 1024 : 99 * 1024;
    d->smem_per_sm = d->smem_optin + 1024;
    d->sms = sms > 0 ? sms : cc == 90 ? 132 : cc == 80 ? 108 : cc == 86 ? 84 : cc == 89 ? 128 : 16;
    snprintf(d->name, sizeof d->name, "Fake sm_%d%s", cc, cc == 90 ? "a" : "");
    d->ctx.device = d;
}

/* Parses "MAJOR.MINOR[xSMS]" into *d; 0 on success. */
static int parse_device(const char *s, const char *end, fk_device *d)
{
    char buf[32], *p, *q;
    if ((size_t)(end - s) >= sizeof buf)
        return -1;
    memcpy(buf, s, (size_t)(end - s));
    buf[end - s] = '\0';
    const long major = strtol(buf, &p, 10);
    if (p == buf || *p != '.')
        return -1;
    const long minor = strtol(p + 1, &q, 10);
    if (q == p + 1)
        return -1;
    long sms = 0;
    if (*q == 'x') {
        sms = strtol(q + 1, &p, 10);
        if (p == q + 1 || sms <= 0 || sms > 100000)
            return -1;
        q = p;
    }
    if (*q || major < 1 || major > 20 || minor < 0 || minor > 9)
        return -1;
    d->major = (int)major;
    d->minor = (int)minor;
    device_defaults(d, (int)sms);
    return 0;
}

static int configure(const char *spec)
{
    fk_device devs[FK_MAX_DEVICES];
    int n = 0;
    if (strcmp(spec, "none") != 0)
        for (const char *s = spec; *s;) {
            const char *end = strchr(s, ',');
            if (!end)
                end = s + strlen(s);
            if (n == FK_MAX_DEVICES || parse_device(s, end, &devs[n]) != 0)
                return -1;
            n++;
            s = *end ? end + 1 : end;
        }
    if (n == 0 && strcmp(spec, "none") != 0)
        return -1;
    memcpy(fk.devices, devs, (size_t)n * sizeof devs[0]);
    fk.ndevices = n;
    for (int i = 0; i < n; i++)
        fk.devices[i].ctx.device = &fk.devices[i];
    current = NULL;
    return 0;
}

static void set_failure(const char *call, long nth, int result)
{
    snprintf(fk.fail_call, sizeof fk.fail_call, "%s", call ? call : "");
    fk.fail_left = result && call ? (nth > 0 ? nth : 1) : 0;
    fk.fail_result = result;
    fk.failed_call = NULL;
}

__attribute__((constructor)) static void fk_load(void)
{
    const char *devices = getenv("FAKECUDA_DEVICES");
    if (!devices || configure(devices) != 0) {
        const char *cc = getenv("FAKECUDA_CC"), *sms = getenv("FAKECUDA_SMS");
        char spec[64];
        snprintf(spec, sizeof spec, "%s%s%s", cc && cc[0] ? cc : "9.0", sms && sms[0] ? "x" : "",
                 sms && sms[0] ? sms : "");
        if (configure(spec) != 0)
            configure("9.0");
    }
    const char *name = getenv("FAKECUDA_NAME");
    if (name && name[0] && fk.ndevices > 0)
        snprintf(fk.devices[0].name, sizeof fk.devices[0].name, "%s", name);
    const char *mem = getenv("FAKECUDA_MEM");
    fk.mem_limit = mem && mem[0] ? (size_t)strtoull(mem, NULL, 0) : (size_t)4 << 30;
    const char *fail = getenv("FAKECUDA_FAIL");
    if (fail && fail[0]) {
        char call[64];
        long nth = 1;
        int result = CUDA_ERROR_UNKNOWN;
        const char *colon = strchr(fail, ':');
        snprintf(call, sizeof call, "%.*s", colon ? (int)(colon - fail) : (int)strlen(fail), fail);
        if (colon)
            sscanf(colon + 1, "%ld:%d", &nth, &result);
        set_failure(call, nth, result);
    }
}

/* ---- entering and leaving a call ---------------------------------------- */

static long *count_of(const char *name)
{
    for (size_t i = 0; i < sizeof fk.counts / sizeof fk.counts[0]; i++) {
        if (!fk.counts[i].name)
            fk.counts[i].name = name;
        if (strcmp(fk.counts[i].name, name) == 0)
            return &fk.counts[i].n;
    }
    return NULL;
}

static int is_release(const char *name)
{
    return strcmp(name, "cuMemFree_v2") == 0 || strcmp(name, "cuModuleUnload") == 0 ||
           strcmp(name, "cuEventDestroy_v2") == 0 || strcmp(name, "cuStreamDestroy_v2") == 0 ||
           strcmp(name, "cuGraphDestroy") == 0 || strcmp(name, "cuGraphExecDestroy") == 0;
}

/*
 * Takes the lock and counts the call.  1 when it must return *r at once:
 * an injected failure, or a call before cuInit.  A release call hit by an
 * injected failure still releases (leave returns the failure): a driver
 * reports earlier asynchronous errors from cuMemFree, and the memory is
 * gone all the same.
 */
static int enter(const char *name, CUresult *r)
{
    pthread_mutex_lock(&fk.lock);
    long *c = count_of(name);
    if (c)
        ++*c;
    const int driver = strncmp(name, "cu", 2) == 0 && strcmp(name, "cuGetErrorString") != 0;
    if (driver)
        fk.total_calls++;
    if (fk.fail_left > 0 && (strcmp(fk.fail_call, name) == 0 || (driver && strcmp(fk.fail_call, "*") == 0)) &&
        --fk.fail_left == 0) {
        fk.failed_call = name;
        if (is_release(name)) {
            fk.pending = fk.fail_result;
            return 0;
        }
        *r = fk.fail_result;
        pthread_mutex_unlock(&fk.lock);
        return 1;
    }
    if (driver && !fk.initialized && strcmp(name, "cuInit") != 0) {
        violation("%s before cuInit", name);
        *r = CUDA_ERROR_NOT_INITIALIZED;
        pthread_mutex_unlock(&fk.lock);
        return 1;
    }
    return 0;
}

static CUresult leave(CUresult r)
{
    if (fk.pending) {
        r = fk.pending;
        fk.pending = 0;
    }
    pthread_mutex_unlock(&fk.lock);
    return r;
}

#define ENTER(name)                                                                             \
    CUresult early_;                                                                            \
    if (enter(name, &early_))                                                                   \
        return early_

int fk_enter_nvrtc(const char *name, int *r)
{
    CUresult c;
    if (enter(name, &c)) {
        *r = c;
        return 1;
    }
    return 0;
}

void fk_leave_nvrtc(void)
{
    pthread_mutex_unlock(&fk.lock);
}

void fk_count_compile(void)
{
    fk.compiles++;
}

/* ---- handles -------------------------------------------------------------- */

static fk_ctx *ctx_of(const void *h)
{
    for (int i = 0; i < fk.ndevices; i++)
        if (h == &fk.devices[i].ctx)
            return &fk.devices[i].ctx;
    return NULL;
}

static fk_module *module_of(const void *h)
{
    for (fk_module *m = fk.modules; m; m = m->next)
        if (m == h)
            return m;
    return NULL;
}

static fk_function *function_of(const void *h)
{
    for (fk_module *m = fk.modules; m; m = m->next)
        for (fk_function *f = m->functions; f; f = f->next)
            if (f == h)
                return f;
    return NULL;
}

static fk_event *event_of(const void *h)
{
    for (fk_event *e = fk.events; e; e = e->next)
        if (e == h)
            return e;
    return NULL;
}

/* The stream record of h (NULL for the default streams); *ok 0 for a handle
 * that is no stream. */
static fk_stream *stream_of(const void *h, int *ok)
{
    *ok = 1;
    if (!h || h == FK_STREAM_LEGACY || h == FK_STREAM_PER_THREAD)
        return NULL;
    for (fk_stream *s = fk.streams; s; s = s->next)
        if (s == h)
            return s;
    *ok = 0;
    return NULL;
}

static int need_context(const char *call)
{
    if (current)
        return 1;
    violation("%s with no current context", call);
    return 0;
}

/*
 * A call CUDA graph capture forbids while a capture that is not relaxed
 * runs and this thread is not in relaxed mode (cudaMalloc, module loads,
 * synchronous copies): refused, and the captures it would have broken are
 * invalidated, as the driver does.  1 when the call may go on.
 */
static int capture_allows(const char *call)
{
    if (capture_mode == 2)
        return 1;
    int broken = 0;
    for (fk_stream *s = fk.streams; s; s = s->next)
        if (s->capture == 1 && s->mode != 2) {
            s->capture = 2;
            broken = 1;
        }
    if (broken)
        violation("%s during a stream capture (not in relaxed mode): the capture is invalidated", call);
    return !broken;
}

/* ---- initialisation, devices, contexts ---------------------------------- */

__attribute__((visibility("default"))) CUresult cuInit(unsigned flags)
{
    ENTER("cuInit");
    CUresult r = CUDA_SUCCESS;
    if (flags != 0)
        r = CUDA_ERROR_INVALID_VALUE;
    else if (fk.ndevices == 0)
        r = CUDA_ERROR_NO_DEVICE;
    else
        fk.initialized = 1;
    return leave(r);
}

static const struct {
    int code;
    const char *text;
} error_strings[] = {
    {CUDA_SUCCESS, "no error"},
    {CUDA_ERROR_INVALID_VALUE, "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "device not ready"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "operation failed due to a previous error during capture"},
    {CUDA_ERROR_UNKNOWN, "unknown error"},
};

__attribute__((visibility("default"))) CUresult cuGetErrorString(CUresult error, const char **str)
{
    ENTER("cuGetErrorString");
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    if (str) {
        *str = NULL;
        for (size_t i = 0; i < sizeof error_strings / sizeof error_strings[0]; i++)
            if (error_strings[i].code == error) {
                *str = error_strings[i].text;
                r = CUDA_SUCCESS;
            }
    }
    return leave(r);
}

__attribute__((visibility("default"))) CUresult cuDeviceGetCount(int *count)
{
    ENTER("cuDeviceGetCount");
    if (!count)
        return leave(CUDA_ERROR_INVALID_VALUE);
    *count = fk.ndevices;
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    ENTER("cuDeviceGet");
    if (!dev)
        return leave(CUDA_ERROR_INVALID_VALUE);
    if (ordinal < 0 || ordinal >= fk.ndevices)
        return leave(CUDA_ERROR_INVALID_DEVICE);
    *dev = ordinal;
    return leave(CUDA_SUCCESS);
}

/* The value of device attribute `attr` (cuda.h's CUdevice_attribute); 0 if unknown. */
static int device_attribute(const fk_device *d, int attr, int *v)
{
    switch (attr) {
    case 1: *v = 1024; return 1;          /* MAX_THREADS_PER_BLOCK */
    case 2: case 3: *v = 1024; return 1;  /* MAX_BLOCK_DIM_X, _Y */
    case 4: *v = 64; return 1;            /* MAX_BLOCK_DIM_Z */
    case 5: *v = INT_MAX; return 1;       /* MAX_GRID_DIM_X */
    case 6: case 7: *v = 65535; return 1; /* MAX_GRID_DIM_Y, _Z */
    case 8: *v = FK_DEFAULT_SMEM; return 1; /* MAX_SHARED_MEMORY_PER_BLOCK */
    case 9: *v = 65536; return 1;         /* TOTAL_CONSTANT_MEMORY */
    case 10: *v = 32; return 1;           /* WARP_SIZE */
    case 12: *v = 65536; return 1;        /* MAX_REGISTERS_PER_BLOCK */
    case 16: *v = d->sms; return 1;       /* MULTIPROCESSOR_COUNT */
    case 39: *v = d->major == 9 || (d->major == 8 && d->minor == 0) ? 2048 : 1536; return 1;
    case 75: *v = d->major; return 1;     /* COMPUTE_CAPABILITY_MAJOR */
    case 76: *v = d->minor; return 1;     /* COMPUTE_CAPABILITY_MINOR */
    case 81: *v = d->smem_per_sm; return 1; /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */
    case 82: *v = 65536; return 1;        /* MAX_REGISTERS_PER_MULTIPROCESSOR */
    case 97: *v = d->smem_optin; return 1; /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
    case 106: *v = d->major == 9 ? 32 : d->minor == 0 ? 32 : 16; return 1; /* MAX_BLOCKS_PER_MULTIPROCESSOR */
    case 111: *v = 1024; return 1;        /* RESERVED_SHARED_MEMORY_PER_BLOCK */
    }
    return 0;
}

__attribute__((visibility("default"))) CUresult cuDeviceGetAttribute(int *value, int attr, CUdevice dev)
{
    ENTER("cuDeviceGetAttribute");
    if (!value)
        return leave(CUDA_ERROR_INVALID_VALUE);
    if (dev < 0 || dev >= fk.ndevices)
        return leave(CUDA_ERROR_INVALID_DEVICE);
    if (!device_attribute(&fk.devices[dev], attr, value)) {
        /* evt asked for something this fake cannot answer: the fake needs it */
        violation("cuDeviceGetAttribute of attribute %d, which the fake does not know", attr);
        return leave(CUDA_ERROR_INVALID_VALUE);
    }
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    ENTER("cuDeviceGetName");
    if (!name || len <= 0)
        return leave(CUDA_ERROR_INVALID_VALUE);
    if (dev < 0 || dev >= fk.ndevices)
        return leave(CUDA_ERROR_INVALID_DEVICE);
    snprintf(name, (size_t)len, "%s", fk.devices[dev].name);
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice dev)
{
    ENTER("cuDevicePrimaryCtxRetain");
    if (!ctx)
        return leave(CUDA_ERROR_INVALID_VALUE);
    if (dev < 0 || dev >= fk.ndevices)
        return leave(CUDA_ERROR_INVALID_DEVICE);
    *ctx = &fk.devices[dev].ctx;
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuCtxGetCurrent(void **ctx)
{
    ENTER("cuCtxGetCurrent");
    if (!ctx)
        return leave(CUDA_ERROR_INVALID_VALUE);
    *ctx = current;
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuCtxSetCurrent(void *ctx)
{
    ENTER("cuCtxSetCurrent");
    if (ctx && !ctx_of(ctx)) {
        violation("cuCtxSetCurrent of %p, no context", ctx);
        return leave(CUDA_ERROR_INVALID_CONTEXT);
    }
    current = ctx_of(ctx);
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuCtxGetDevice(CUdevice *dev)
{
    ENTER("cuCtxGetDevice");
    if (!dev)
        return leave(CUDA_ERROR_INVALID_VALUE);
    if (!need_context("cuCtxGetDevice"))
        return leave(CUDA_ERROR_INVALID_CONTEXT);
    *dev = (int)(current->device - fk.devices);
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuCtxSynchronize(void)
{
    ENTER("cuCtxSynchronize");
    if (!need_context("cuCtxSynchronize"))
        return leave(CUDA_ERROR_INVALID_CONTEXT);
    if (!capture_allows("cuCtxSynchronize"))
        return leave(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    return leave(CUDA_SUCCESS);
}

/* ---- modules ---------------------------------------------------------------- */

/* Frees the names kept since the reset (free_module). */
static void free_retired(void)
{
    for (size_t i = 0; i < fk.retired.n; i++)
        free(((char **)fk.retired.data)[i]);
    fk.retired.n = 0;
}

/* Frees module m; its functions' names stay until the reset, since the
 * launch and attribute records point at them ("strings stay valid until
 * fakecuda_reset"), and a module may be unloaded between a record and the
 * test's look at it. */
static void free_module(fk_module *m)
{
    fk_function *f = m->functions;
    while (f) {
        fk_function *next = f->next;
        char **kept = vec_push(&fk.retired, sizeof *kept);
        if (kept)
            *kept = f->name;
        else
            free(f->name);
        free(f);
        f = next;
    }
    free(m);
}

/* Whether code for sm_<sm> (arch_specific: sm_XYa) runs on device d: the
 * same major, a minor no newer; an arch-specific target only on itself;
 * PTX (jit) on anything at least as new as its target. */
static int runs_on(const fk_device *d, int sm, int arch_specific, int ptx)
{
    const int cc = d->major * 10 + d->minor;
    if (arch_specific)
        return cc == sm;
    if (ptx)
        return cc >= sm;
    return d->major == sm / 10 && d->minor >= sm % 10;
}

static fk_function *add_function(fk_module *m, const char *name, size_t len)
{
    fk_function *f = calloc(1, sizeof *f);
    if (!f || !(f->name = strndup(name, len))) {
        free(f);
        return NULL;
    }
    f->module = m;
    f->nparams = -1;
    f->next = m->functions;
    m->functions = f;
    return f;
}

__attribute__((visibility("default"))) CUresult cuModuleLoadData(void **module, const void *image)
{
    ENTER("cuModuleLoadData");
    if (!module || !image)
        return leave(CUDA_ERROR_INVALID_VALUE);
    if (!need_context("cuModuleLoadData"))
        return leave(CUDA_ERROR_INVALID_CONTEXT);
    if (!capture_allows("cuModuleLoadData"))
        return leave(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    fk_module *m = calloc(1, sizeof *m);
    if (!m)
        return leave(CUDA_ERROR_OUT_OF_MEMORY);
    m->ctx = current;
    fk_image img;
    CUresult r = fk_parse_image(image, &img) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_IMAGE;
    if (r == CUDA_SUCCESS && !runs_on(current->device, img.sm, img.arch_specific, img.ptx))
        r = CUDA_ERROR_NO_BINARY_FOR_GPU;
    for (int i = 0; r == CUDA_SUCCESS && i < img.nentries; i++) {
        const fk_entry *e = &img.entries[i];
        fk_function *f = add_function(m, e->name, e->name_len);
        if (!f) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
            break;
        }
        f->nparams = e->nparams;
        memcpy(f->param_size, e->param_size, sizeof f->param_size);
        f->max_threads = e->max_threads;
        f->cluster = e->cluster;
        f->static_smem = e->static_smem;
        f->max_dynamic = FK_DEFAULT_SMEM - e->static_smem;
    }
    fk_free_image(&img);
    if (r != CUDA_SUCCESS) {
        free_module(m);
        return leave(r);
    }
    m->next = fk.modules;
    fk.modules = m;
    *module = m;
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuModuleUnload(void *module)
{
    ENTER("cuModuleUnload");
    fk_module **p = &fk.modules;
    while (*p && *p != module)
        p = &(*p)->next;
    if (!*p) {
        violation("cuModuleUnload of %p, no module", module);
        return leave(CUDA_ERROR_INVALID_HANDLE);
    }
    fk_module *m = *p;
    *p = m->next;
    free_module(m);
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuModuleGetFunction(void **fn, void *module, const char *name)
{
    ENTER("cuModuleGetFunction");
    if (!fn || !name)
        return leave(CUDA_ERROR_INVALID_VALUE);
    fk_module *m = module_of(module);
    if (!m) {
        violation("cuModuleGetFunction(%s) in %p, no module", name, module);
        return leave(CUDA_ERROR_INVALID_HANDLE);
    }
    for (fk_function *f = m->functions; f; f = f->next)
        if (strcmp(f->name, name) == 0) {
            *fn = f;
            return leave(CUDA_SUCCESS);
        }
    return leave(CUDA_ERROR_NOT_FOUND);
}

__attribute__((visibility("default"))) CUresult cuFuncSetAttribute(void *fn, int attr, int value)
{
    ENTER("cuFuncSetAttribute");
    fk_function *f = function_of(fn);
    CUresult r = CUDA_SUCCESS;
    if (!f) {
        violation("cuFuncSetAttribute on %p, no function", fn);
        r = CUDA_ERROR_INVALID_HANDLE;
    } else if (attr == 8) { /* MAX_DYNAMIC_SHARED_SIZE_BYTES */
        if (value < 0 || value > f->module->ctx->device->smem_optin - f->static_smem)
            r = CUDA_ERROR_INVALID_VALUE;
        else
            f->max_dynamic = value;
    } else if (attr != 9) { /* PREFERRED_SHARED_MEMORY_CARVEOUT is accepted as is */
        r = CUDA_ERROR_INVALID_VALUE;
    }
    fakecuda_attribute *rec = vec_push(&fk.attributes, sizeof *rec);
    if (rec)
        *rec = (fakecuda_attribute){f ? f->name : "?", attr, value, r};
    return leave(r);
}

/* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, the one launch attribute evt asks for */
enum { FK_ATTR_CLUSTER_DIMENSION = 4 };

/* CUlaunchAttribute: an id, 4 bytes of padding, a 64-byte value. */
typedef struct fk_launch_attr {
    int id, pad_;
    union {
        char pad[64];
        unsigned dims[3];
    } value;
} fk_launch_attr;

/* CUlaunchConfig */
typedef struct fk_launch_config {
    unsigned grid[3], block[3], shared_bytes;
    void *stream;
    const fk_launch_attr *attrs;
    unsigned nattrs;
} fk_launch_config;

/* The clusters of f that fit at once.  The stand-in's GPCs have 17 SMs
 * each (a last one the rest), as a harvested part's odd GPCs do, and a
 * cluster never spans two: on 132 SMs 62 clusters of two, not 66.  One
 * CTA an SM where the shared memory asks more than half of it. */
__attribute__((visibility("default"))) CUresult cuOccupancyMaxActiveClusters(int *clusters, void *fn,
                                                                            const void *config)
{
    ENTER("cuOccupancyMaxActiveClusters");
    fk_function *f = function_of(fn);
    const fk_launch_config *c = config;
    if (!clusters || !f || !c) {
        violation("cuOccupancyMaxActiveClusters(%p, %p, %p)", (void *)clusters, fn, config);
        return leave(CUDA_ERROR_INVALID_VALUE);
    }
    /* a cluster dimension among the attributes, else the kernel's own (a
     * cubin's are not read, image.c: the query's grid, which evt makes one
     * cluster, says it) */
    int size = f->cluster > 0 ? f->cluster : c->grid[0] > 0 && c->grid[0] <= 16 ? (int)c->grid[0] : 1;
    for (unsigned i = 0; c->attrs && i < c->nattrs; i++)
        if (c->attrs[i].id == FK_ATTR_CLUSTER_DIMENSION) {
            const unsigned x = c->attrs[i].value.dims[0];
            if (f->cluster > 0 || x < 1 || x > 8 || (int)x > fk.cluster_max) {
                *clusters = 0;
                return leave(CUDA_ERROR_INVALID_CLUSTER_SIZE);
            }
            size = (int)x;
        }
    if (f->module->ctx->device->major < 9) {
        *clusters = 0;
        return leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (c->grid[0] % (unsigned)size != 0 || (long long)c->shared_bytes > f->max_dynamic) {
        *clusters = 0;
        return leave(CUDA_ERROR_INVALID_VALUE);
    }
    const fk_device *d = f->module->ctx->device;
    const int per_sm = 2 * (long long)c->shared_bytes > d->smem_optin ? 1 : 2;
    int n = 0;
    for (int left = d->sms; left > 0; left -= 17)
        n += (left < 17 ? left : 17) * per_sm / size;
    *clusters = n;
    return leave(CUDA_SUCCESS);
}

/* ---- launches ------------------------------------------------------------- */

/* The time the next launch that runs takes on the fake clock. */
static double launch_time(void)
{
    if (!fk.nlaunch_ms)
        return 0.01;
    return fk.launch_ms[(size_t)fk.launches_run % fk.nlaunch_ms];
}

/* Why launching f as asked would be refused by a driver (NULL: it would not),
 * with the CUresult in *r. */
static const char *launch_refusal(const fk_function *f, const unsigned g[3], const unsigned b[3],
                                  unsigned smem, void **params, void **extra, CUresult *r)
{
    *r = CUDA_ERROR_INVALID_VALUE;
    if (f->module->ctx != current) {
        *r = CUDA_ERROR_INVALID_HANDLE;
        return "the function belongs to another context";
    }
    if (g[0] < 1 || g[1] < 1 || g[2] < 1 || g[0] > INT_MAX || g[1] > 65535 || g[2] > 65535)
        return "the grid is empty or larger than the device's";
    if (b[0] < 1 || b[1] < 1 || b[2] < 1 || b[0] > 1024 || b[1] > 1024 || b[2] > 64 ||
        (unsigned long long)b[0] * b[1] * b[2] > 1024)
        return "the block is empty or larger than 1024 threads";
    if (f->max_threads && (unsigned long long)b[0] * b[1] * b[2] > (unsigned long long)f->max_threads) {
        *r = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
        return "the block has more threads than the kernel's __launch_bounds__";
    }
    if (f->cluster > 1 && g[0] % (unsigned)f->cluster != 0)
        return "the grid is not a whole number of the kernel's clusters (__cluster_dims__)";
    if ((long long)smem > f->max_dynamic)
        return "more dynamic shared memory than the function's attribute allows";
    if (params && extra)
        return "both kernelParams and extra";
    if (f->nparams > 0 && !params)
        return "no kernelParams for a kernel with parameters";
    for (int i = 0; params && i < f->nparams; i++)
        if (!params[i])
            return "a NULL kernel parameter";
    *r = CUDA_SUCCESS;
    return NULL;
}

/* cuLaunchKernel and cuLaunchKernelEx (`call`) once entered: checks,
 * records and runs the launch.  cluster: a cluster dimension asked at the
 * launch (NULL: none). */
static CUresult launch(const char *call, void *fn, const unsigned g[3], const unsigned b[3], unsigned smem,
                       void *stream, void **params, void **extra, const unsigned *cluster)
{
    fk_function *f = function_of(fn);
    int stream_ok;
    fk_stream *s = stream_of(stream, &stream_ok);
    CUresult r = CUDA_SUCCESS;
    const char *why = NULL;
    if (!current) {
        r = CUDA_ERROR_INVALID_CONTEXT;
        why = "no current context";
    } else if (!f) {
        r = CUDA_ERROR_INVALID_HANDLE;
        why = "no such function (unloaded?)";
    } else if (!stream_ok) {
        r = CUDA_ERROR_INVALID_HANDLE;
        why = "no such stream";
    } else {
        why = launch_refusal(f, g, b, smem, params, extra, &r);
    }
    if (!why && cluster) {
        r = CUDA_ERROR_INVALID_VALUE;
        if (current->device->major < 9)
            why = "a cluster dimension on a device without clusters (before sm_90)";
        else if (f->cluster > 0)
            why = "a cluster dimension for a kernel whose __cluster_dims__ fix it";
        else if (cluster[0] < 1 || cluster[1] != 1 || cluster[2] != 1 || cluster[0] > 8)
            why = "a cluster dimension other than (1..8, 1, 1)";
        else if ((int)cluster[0] > fk.cluster_max)
            why = "a cluster larger than the device holds (fakecuda_set_cluster_max)";
        else if (g[0] % cluster[0] != 0)
            why = "the grid is not a whole number of clusters";
        else
            r = CUDA_SUCCESS;
    }
    if (why)
        violation("%s(%s, grid %u,%u,%u, block %u,%u,%u, smem %u): %s", call, f ? f->name : "?", g[0], g[1],
                  g[2], b[0], b[1], b[2], smem, why);
    else if (s && s->capture == 2)
        r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    fakecuda_launch *rec = vec_push(&fk.launches, sizeof *rec);
    if (rec) {
        rec->function = f ? f->name : "?";
        memcpy(rec->grid, g, 3 * sizeof *g);
        memcpy(rec->block, b, 3 * sizeof *b);
        rec->cluster = cluster ? cluster[0] : 0;
        rec->shared_bytes = smem;
        rec->max_dynamic_shared = f ? f->max_dynamic : 0;
        rec->stream = stream;
        rec->device = current ? (int)(current->device - fk.devices) : -1;
        rec->captured = s && s->capture == 1;
        rec->result = r;
        rec->nparams = f ? f->nparams : -1;
        for (int i = 0; r == CUDA_SUCCESS && i < rec->nparams && i < FAKECUDA_MAX_PARAMS; i++) {
            rec->param_size[i] = f->param_size[i];
            unsigned char *copy = malloc(f->param_size[i] ? f->param_size[i] : 1);
            if (copy)
                memcpy(copy, params[i], f->param_size[i]);
            rec->params[i] = copy;
        }
    }
    if (r == CUDA_SUCCESS && s && s->capture == 1)
        s->kernels++;
    if (r == CUDA_SUCCESS && !(s && s->capture == 1)) {
        fk.clock_ms += launch_time();
        fk.launches_run++;
    }
    return leave(r);
}

__attribute__((visibility("default"))) CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                                                               unsigned bx, unsigned by, unsigned bz,
                                                               unsigned smem, void *stream, void **params,
                                                               void **extra)
{
    ENTER("cuLaunchKernel");
    const unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
    return launch("cuLaunchKernel", fn, g, b, smem, stream, params, extra, NULL);
}

/* Takes the cluster dimension (FK_ATTR_CLUSTER_DIMENSION); any other
 * attribute is a violation: evt asks for none. */
__attribute__((visibility("default"))) CUresult cuLaunchKernelEx(const void *config, void *fn, void **params,
                                                                 void **extra)
{
    ENTER("cuLaunchKernelEx");
    const fk_launch_config *c = config;
    if (!c || (c->nattrs && !c->attrs)) {
        violation("cuLaunchKernelEx(%p, %p): no configuration", config, fn);
        return leave(CUDA_ERROR_INVALID_VALUE);
    }
    const unsigned *cluster = NULL;
    for (unsigned i = 0; i < c->nattrs; i++) {
        if (c->attrs[i].id != FK_ATTR_CLUSTER_DIMENSION) {
            violation("cuLaunchKernelEx: launch attribute %d, which evt does not ask for", c->attrs[i].id);
            return leave(CUDA_ERROR_INVALID_VALUE);
        }
        cluster = c->attrs[i].value.dims;
    }
    return launch("cuLaunchKernelEx", fn, c->grid, c->block, c->shared_bytes, c->stream, params, extra, cluster);
}

/* ---- memory ------------------------------------------------------------------ */

/* Whether block b holds [p, p + n). */
static int holds(const fk_block *b, unsigned long long p, size_t n)
{
    return p >= b->base && p - b->base <= b->size && n <= b->size - (p - b->base);
}

/* The live block holding [p, p + n); NULL if none. */
static fk_block *block_of(unsigned long long p, size_t n)
{
    for (size_t i = 0; i < fk.nblocks; i++)
        if (holds(&fk.blocks[i], p, n))
            return &fk.blocks[i];
    return NULL;
}

__attribute__((visibility("default"))) CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
    ENTER("cuMemAlloc_v2");
    CUresult r = CUDA_SUCCESS;
    void *p = NULL;
    if (!dptr || bytes == 0)
        r = CUDA_ERROR_INVALID_VALUE;
    else if (!need_context("cuMemAlloc"))
        r = CUDA_ERROR_INVALID_CONTEXT;
    else if (!capture_allows("cuMemAlloc"))
        r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    else if (bytes > fk.mem_limit - fk.mem_used)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    else if (posix_memalign(&p, 256, bytes) != 0)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS && fk.nblocks == fk.blocks_cap) {
        size_t cap = fk.blocks_cap ? 2 * fk.blocks_cap : 64;
        fk_block *nb = realloc(fk.blocks, cap * sizeof *nb);
        if (nb) {
            fk.blocks = nb;
            fk.blocks_cap = cap;
        } else {
            free(p);
            p = NULL;
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    if (r == CUDA_SUCCESS) {
        /* left as malloc gives it: a fresh cudaMalloc's contents are
         * undefined too, and filling gigabytes of workspace would cost the
         * fuzzer most of its speed */
        fk.blocks[fk.nblocks++] = (fk_block){(unsigned long long)(uintptr_t)p, bytes, fk.launches.n, 0};
        fk.mem_used += bytes;
        *dptr = (uintptr_t)p;
    }
    fakecuda_alloc *rec = vec_push(&fk.allocs, sizeof *rec);
    if (rec)
        *rec = (fakecuda_alloc){bytes, r == CUDA_SUCCESS ? (uintptr_t)p : 0, r, 0};
    return leave(r);
}

__attribute__((visibility("default"))) CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    ENTER("cuMemFree_v2");
    if (!dptr)
        return leave(CUDA_SUCCESS);
    if (!capture_allows("cuMemFree"))
        return leave(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    size_t i = 0;
    while (i < fk.nblocks && fk.blocks[i].base != dptr)
        i++;
    if (i == fk.nblocks) {
        violation("cuMemFree of 0x%llx, which is no allocation", dptr);
        return leave(CUDA_ERROR_INVALID_VALUE);
    }
    fk.mem_used -= fk.blocks[i].size;
    if (fk.nfreed == fk.freed_cap) {
        const size_t cap = fk.freed_cap ? 2 * fk.freed_cap : 64;
        fk_block *nf = realloc(fk.freed, cap * sizeof *nf);
        if (nf) {
            fk.freed = nf;
            fk.freed_cap = cap;
        }
    }
    if (fk.nfreed < fk.freed_cap) { /* else forgotten: a later check finds less, never more */
        fk.freed[fk.nfreed] = fk.blocks[i];
        fk.freed[fk.nfreed++].until = fk.launches.n;
    }
    free((void *)(uintptr_t)dptr);
    fk.blocks[i] = fk.blocks[--fk.nblocks];
    for (size_t j = 0; j < fk.allocs.n; j++) {
        fakecuda_alloc *a = vec_at(&fk.allocs, j);
        if (a->ptr == dptr && !a->freed && a->result == CUDA_SUCCESS)
            a->freed = 1;
    }
    return leave(CUDA_SUCCESS);
}

static CUresult copy(const char *call, unsigned long long dev, size_t n)
{
    if (!need_context(call))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!capture_allows(call))
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (!block_of(dev, n)) {
        violation("%s of %zu bytes at 0x%llx, outside every allocation", call, n, dev);
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
    ENTER("cuMemcpyHtoD_v2");
    CUresult r = n ? copy("cuMemcpyHtoD", dst, n) : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS && n)
        memcpy((void *)(uintptr_t)dst, src, n);
    return leave(r);
}

__attribute__((visibility("default"))) CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
    ENTER("cuMemcpyDtoH_v2");
    CUresult r = n ? copy("cuMemcpyDtoH", src, n) : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS && n)
        memcpy(dst, (const void *)(uintptr_t)src, n);
    return leave(r);
}

__attribute__((visibility("default"))) CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, void *stream)
{
    ENTER("cuMemsetD32Async");
    (void)stream;
    CUresult r = CUDA_SUCCESS;
    if (!need_context("cuMemsetD32Async"))
        r = CUDA_ERROR_INVALID_CONTEXT;
    else if (n && (dst % 4 || !block_of(dst, n * 4))) {
        violation("cuMemsetD32Async of %zu words at 0x%llx, outside every allocation or unaligned", n, dst);
        r = CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++)
        ((unsigned *)(uintptr_t)dst)[i] = v;
    return leave(r);
}

/* ---- streams and capture ------------------------------------------------- */

__attribute__((visibility("default"))) CUresult cuStreamCreate(void **stream, unsigned flags)
{
    ENTER("cuStreamCreate");
    (void)flags;
    fk_stream *s = stream ? calloc(1, sizeof *s) : NULL;
    if (!s)
        return leave(stream ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE);
    s->next = fk.streams;
    fk.streams = s;
    *stream = s;
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuStreamDestroy_v2(void *stream)
{
    ENTER("cuStreamDestroy_v2");
    fk_stream **p = &fk.streams;
    while (*p && *p != stream)
        p = &(*p)->next;
    if (!*p) {
        violation("cuStreamDestroy of %p, no stream", stream);
        return leave(CUDA_ERROR_INVALID_HANDLE);
    }
    fk_stream *s = *p;
    *p = s->next;
    free(s);
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuStreamBeginCapture_v2(void *stream, int mode)
{
    ENTER("cuStreamBeginCapture_v2");
    int ok;
    fk_stream *s = stream_of(stream, &ok);
    if (!s || mode < 0 || mode > 2 || s->capture != 0)
        return leave(ok ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_HANDLE);
    s->capture = 1;
    s->mode = mode;
    s->kernels = 0;
    return leave(CUDA_SUCCESS);
}

static fk_graph *new_graph(long kernels, int exec)
{
    fk_graph *g = calloc(1, sizeof *g);
    if (g) {
        g->kernels = kernels;
        g->exec = exec;
        g->next = fk.graph_list;
        fk.graph_list = g;
    }
    return g;
}

/* The link to graph h (an instantiated one where exec), or to the list's
 * end where there is none */
static fk_graph **graph_link(const void *h, int exec)
{
    fk_graph **p = &fk.graph_list;
    while (*p && !(*p == h && (*p)->exec == exec))
        p = &(*p)->next;
    return p;
}

static fk_graph *graph_of(const void *h, int exec)
{
    return *graph_link(h, exec);
}

/* Ends a capture; a graph of its launches where fakecuda_set_graphs allows,
 * else none (*graph NULL). */
__attribute__((visibility("default"))) CUresult cuStreamEndCapture(void *stream, void **graph)
{
    ENTER("cuStreamEndCapture");
    int ok;
    fk_stream *s = stream_of(stream, &ok);
    if (!s || !graph || s->capture == 0)
        return leave(ok ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_HANDLE);
    const int invalidated = s->capture == 2;
    s->capture = 0;
    *graph = fk.graphs && !invalidated ? new_graph(s->kernels, 0) : NULL;
    return leave(invalidated ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS);
}

/* ---- graphs ------------------------------------------------------------------ */

static CUresult free_graph(const char *call, void *h, int exec)
{
    fk_graph **p = graph_link(h, exec);
    if (!*p) {
        violation("%s of %p, no such graph", call, h);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    fk_graph *g = *p;
    *p = g->next;
    free(g);
    return CUDA_SUCCESS;
}

__attribute__((visibility("default"))) CUresult cuGraphInstantiateWithFlags(void **exec, void *graph,
                                                                            unsigned long long flags)
{
    ENTER("cuGraphInstantiateWithFlags");
    (void)flags;
    if (!fk.graphs)
        return leave(CUDA_ERROR_NOT_SUPPORTED);
    fk_graph *g = graph_of(graph, 0);
    if (!exec || !g) {
        violation("cuGraphInstantiateWithFlags of %p, no such graph", graph);
        return leave(exec ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE);
    }
    fk_graph *x = new_graph(g->kernels, 1);
    *exec = x;
    return leave(x ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

/* Runs the graph's launches on the clock, one after another. */
__attribute__((visibility("default"))) CUresult cuGraphLaunch(void *exec, void *stream)
{
    ENTER("cuGraphLaunch");
    int ok;
    fk_stream *s = stream_of(stream, &ok);
    fk_graph *x = graph_of(exec, 1);
    if (!x || !ok) {
        violation("cuGraphLaunch of %p on %p: no such %s", exec, stream, x ? "stream" : "graph");
        return leave(CUDA_ERROR_INVALID_HANDLE);
    }
    if (s && s->capture)
        s->kernels += x->kernels;
    else
        for (long i = 0; i < x->kernels; i++) {
            fk.clock_ms += launch_time();
            fk.launches_run++;
        }
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuGraphExecDestroy(void *exec)
{
    ENTER("cuGraphExecDestroy");
    return leave(free_graph("cuGraphExecDestroy", exec, 1));
}

__attribute__((visibility("default"))) CUresult cuGraphDestroy(void *graph)
{
    ENTER("cuGraphDestroy");
    return leave(free_graph("cuGraphDestroy", graph, 0));
}

__attribute__((visibility("default"))) CUresult cuStreamIsCapturing(void *stream, int *status)
{
    ENTER("cuStreamIsCapturing");
    int ok;
    fk_stream *s = stream_of(stream, &ok);
    if (!ok || !status) {
        if (!ok)
            violation("cuStreamIsCapturing of %p, no stream", stream);
        return leave(ok ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_HANDLE);
    }
    *status = s ? s->capture : 0;
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuThreadExchangeStreamCaptureMode(int *mode)
{
    ENTER("cuThreadExchangeStreamCaptureMode");
    if (!mode || *mode < 0 || *mode > 2)
        return leave(CUDA_ERROR_INVALID_VALUE);
    const int old = capture_mode;
    capture_mode = *mode;
    *mode = old;
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuStreamSynchronize(void *stream)
{
    ENTER("cuStreamSynchronize");
    int ok;
    fk_stream *s = stream_of(stream, &ok);
    if (!ok) {
        violation("cuStreamSynchronize of %p, no stream", stream);
        return leave(CUDA_ERROR_INVALID_HANDLE);
    }
    if (s && s->capture) {
        violation("cuStreamSynchronize of a capturing stream");
        s->capture = 2;
        return leave(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    }
    return leave(CUDA_SUCCESS);
}

/* ---- events ----------------------------------------------------------------- */

__attribute__((visibility("default"))) CUresult cuEventCreate(void **event, unsigned flags)
{
    ENTER("cuEventCreate");
    (void)flags;
    fk_event *e = event ? calloc(1, sizeof *e) : NULL;
    if (!e)
        return leave(event ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE);
    e->next = fk.events;
    fk.events = e;
    *event = e;
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuEventRecord(void *event, void *stream)
{
    ENTER("cuEventRecord");
    fk_event *e = event_of(event);
    int ok;
    fk_stream *s = stream_of(stream, &ok);
    if (!e || !ok) {
        violation("cuEventRecord of %p on %p: no such %s", event, stream, e ? "stream" : "event");
        return leave(CUDA_ERROR_INVALID_HANDLE);
    }
    e->recorded = s && s->capture == 1 ? 2 : 1;
    e->t = fk.clock_ms;
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuEventSynchronize(void *event)
{
    ENTER("cuEventSynchronize");
    fk_event *e = event_of(event);
    if (!e) {
        violation("cuEventSynchronize of %p, no event", event);
        return leave(CUDA_ERROR_INVALID_HANDLE);
    }
    if (e->recorded == 2) {
        violation("cuEventSynchronize of an event recorded into a capture");
        return leave(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    }
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end)
{
    ENTER("cuEventElapsedTime_v2");
    fk_event *a = event_of(start), *b = event_of(end);
    if (!ms)
        return leave(CUDA_ERROR_INVALID_VALUE);
    if (!a || !b) {
        violation("cuEventElapsedTime of %p and %p: no such event", start, end);
        return leave(CUDA_ERROR_INVALID_HANDLE);
    }
    if (a->recorded != 1 || b->recorded != 1)
        return leave(CUDA_ERROR_NOT_READY);
    *ms = (float)(b->t - a->t);
    return leave(CUDA_SUCCESS);
}

__attribute__((visibility("default"))) CUresult cuEventDestroy_v2(void *event)
{
    ENTER("cuEventDestroy_v2");
    fk_event **p = &fk.events;
    while (*p && *p != event)
        p = &(*p)->next;
    if (!*p) {
        violation("cuEventDestroy of %p, no event", event);
        return leave(CUDA_ERROR_INVALID_HANDLE);
    }
    fk_event *e = *p;
    *p = e->next;
    free(e);
    return leave(CUDA_SUCCESS);
}

/* ---- tensor maps ------------------------------------------------------------- */

/* Bytes of an element of CUtensorMapDataType t (0 for the packed types and unknown ones). */
static unsigned dtype_size(int t)
{
    static const unsigned size[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
    return t >= 0 && (size_t)t < sizeof size / sizeof size[0] ? size[t] : 0;
}

/* What cuda.h says both encoders require of their common arguments; NULL
 * when they are fine.  *misuse: the problem is no size or value but a
 * broken call (bad pointers, enums, map alignment). */
static const char *map_refusal(const fakecuda_tensor_map *t, const void *map, int *misuse)
{
    *misuse = 1;
    if (!map || (uintptr_t)map % 64 != 0)
        return "the map is not 64-byte aligned";
    const unsigned es = dtype_size(t->dtype);
    if (!es)
        return "an unknown (or packed) data type";
    if (t->interleave < 0 || t->interleave > 2 || t->swizzle < 0 || t->swizzle > 6 || t->l2_promotion < 0 ||
        t->l2_promotion > 3 || t->oob_fill < 0 || t->oob_fill > 1)
        return "an enum out of range";
    if (t->interleave == 2 && t->swizzle != 1)
        return "32-byte interleave needs the 32-byte swizzle";
    if (t->oob_fill == 1 && (t->dtype <= 5))
        return "NaN fill of an integer type";
    *misuse = 0;
    const unsigned align = t->interleave == 2 ? 32 : 16;
    if (!t->address || (uintptr_t)t->address % align != 0)
        return "the global address is not aligned";
    for (unsigned i = 0; i < t->rank; i++)
        if (t->dims[i] < 1 || t->dims[i] > (1ull << 32))
            return "a global dimension is 0 or past 2^32";
    for (unsigned i = 0; i + 1 < t->rank; i++) {
        if (t->strides[i] % align != 0 || t->strides[i] >= (1ull << 40))
            return "a global stride is not a multiple of 16 or past 2^40";
        /* each stride spans the dimensions inside it (globalStrides' formula) */
        const unsigned long long inner = i == 0 ? t->dims[0] * es : t->strides[i - 1] * t->dims[i];
        if (t->strides[i] < inner)
            return "a global stride is smaller than the dimensions it spans";
    }
    for (unsigned i = 0; i < t->rank; i++)
        if (t->elem_strides[i] < 1 || t->elem_strides[i] > 8)
            return "an element stride is 0 or past 8";
    return NULL;
}

/* The inner box's bytes against the swizzle span (interleave none). */
static const char *inner_refusal(const fakecuda_tensor_map *t, unsigned long long inner_bytes)
{
    if (t->interleave != 0)
        return NULL;
    if (inner_bytes % 16 != 0)
        return "the inner box is not a multiple of 16 bytes";
    static const unsigned span[] = {0, 32, 64, 128, 128, 128, 128};
    if (t->swizzle > 0 && inner_bytes > span[t->swizzle])
        return "the inner box is wider than the swizzle span";
    return NULL;
}

/* Writes the map: a marker and the record's index, for fakecuda_tensor_map_of. */
static void write_map(void *map, size_t index)
{
    memset(map, 0, 128);
    memcpy(map, "FAKETMAP", 8);
    const unsigned long long i = index;
    memcpy((char *)map + 8, &i, sizeof i);
}

static CUresult finish_map(fakecuda_tensor_map *t, void *map, const char *call, const char *why, int misuse)
{
    CUresult r = why ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    if (why && misuse)
        violation("%s: %s", call, why);
    fakecuda_tensor_map *rec = vec_push(&fk.maps, sizeof *rec);
    t->result = r;
    if (rec)
        *rec = *t;
    if (r == CUDA_SUCCESS)
        write_map(map, rec ? fk.maps.n - 1 : (size_t)-1);
    return r;
}

__attribute__((visibility("default"))) CUresult
cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *addr, const unsigned long long *dims,
                       const unsigned long long *strides, const unsigned *box, const unsigned *elem_strides,
                       int interleave, int swizzle, int l2, int oob)
{
    ENTER("cuTensorMapEncodeTiled");
    fakecuda_tensor_map t = {0};
    t.dtype = dtype;
    t.rank = rank;
    t.address = addr;
    t.interleave = interleave;
    t.swizzle = swizzle;
    t.l2_promotion = l2;
    t.oob_fill = oob;
    const char *why = NULL;
    int misuse = 1;
    if (rank < 1 || rank > 5 || (interleave != 0 && rank < 3))
        why = "the rank is not 1 to 5 (3 to 5 interleaved)";
    else if (!dims || !box || !elem_strides || (rank > 1 && !strides))
        why = "a NULL array";
    if (!why) {
        memcpy(t.dims, dims, rank * sizeof *dims);
        if (rank > 1)
            memcpy(t.strides, strides, (rank - 1) * sizeof *strides);
        memcpy(t.box, box, rank * sizeof *box);
        memcpy(t.elem_strides, elem_strides, rank * sizeof *elem_strides);
        why = map_refusal(&t, map, &misuse);
    }
    for (unsigned i = 0; !why && i < rank; i++)
        if (box[i] < 1 || box[i] > 256)
            why = "a box dimension is 0 or past 256";
    if (!why)
        why = inner_refusal(&t, (unsigned long long)box[0] * dtype_size(dtype));
    return leave(finish_map(&t, map, "cuTensorMapEncodeTiled", why, misuse));
}

__attribute__((visibility("default"))) CUresult
cuTensorMapEncodeIm2col(void *map, int dtype, unsigned rank, void *addr, const unsigned long long *dims,
                        const unsigned long long *strides, const int *lower, const int *upper,
                        unsigned channels, unsigned pixels, const unsigned *elem_strides, int interleave,
                        int swizzle, int l2, int oob)
{
    ENTER("cuTensorMapEncodeIm2col");
    fakecuda_tensor_map t = {0};
    t.im2col = 1;
    t.dtype = dtype;
    t.rank = rank;
    t.address = addr;
    t.channels = channels;
    t.pixels = pixels;
    t.interleave = interleave;
    t.swizzle = swizzle;
    t.l2_promotion = l2;
    t.oob_fill = oob;
    const char *why = NULL;
    int misuse = 1;
    if (rank < 3 || rank > 5)
        why = "the rank is not 3 to 5";
    else if (!dims || !strides || !lower || !upper || !elem_strides)
        why = "a NULL array";
    if (!why) {
        memcpy(t.dims, dims, rank * sizeof *dims);
        memcpy(t.strides, strides, (rank - 1) * sizeof *strides);
        memcpy(t.lower, lower, (rank - 2) * sizeof *lower);
        memcpy(t.upper, upper, (rank - 2) * sizeof *upper);
        memcpy(t.elem_strides, elem_strides, rank * sizeof *elem_strides);
        why = map_refusal(&t, map, &misuse);
    }
    /* the corners' range shrinks as the spatial dimensions grow */
    const int reach = rank == 3 ? 32768 : rank == 4 ? 128 : 16;
    for (unsigned i = 0; !why && i + 2 < rank; i++) {
        if (lower[i] < -reach || lower[i] >= reach || upper[i] < -reach || upper[i] >= reach)
            why = "a box corner is out of its range";
        else if ((long long)dims[1 + i] + upper[i] - lower[i] <= 0)
            why = "the bounding box is empty";
    }
    if (!why && (channels < 1 || channels > 256 || pixels < 1 || pixels > 1024))
        why = "channelsPerPixel past 256 or pixelsPerColumn past 1024";
    if (!why)
        why = inner_refusal(&t, (unsigned long long)channels * dtype_size(dtype));
    return leave(finish_map(&t, map, "cuTensorMapEncodeIm2col", why, misuse));
}

/* ---- the record ------------------------------------------------------------- */

#define FK_RECORD __attribute__((visibility("default")))

static void free_launch_copies(void)
{
    for (size_t i = 0; i < fk.launches.n; i++) {
        fakecuda_launch *l = vec_at(&fk.launches, i);
        for (int p = 0; p < FAKECUDA_MAX_PARAMS; p++)
            free((void *)l->params[p]);
    }
}

FK_RECORD void fakecuda_reset(void)
{
    pthread_mutex_lock(&fk.lock);
    free_launch_copies();
    fk.launches.n = fk.maps.n = fk.allocs.n = fk.attributes.n = 0;
    free_retired();
    for (size_t i = 0; i < fk.nblocks; i++) /* the launch records restart */
        fk.blocks[i].since = 0;
    fk.nfreed = 0;
    memset(fk.counts, 0, sizeof fk.counts);
    fk.total_calls = 0;
    set_failure(NULL, 0, 0);
    fk.pending = 0;
    fk.violations = 0;
    fk.last_violation[0] = '\0';
    for (fk_stream *s = fk.streams; s; s = s->next)
        s->capture = 0;
    free((void *)fk.launch_ms);
    fk.launch_ms = NULL;
    fk.nlaunch_ms = 0;
    fk.launches_run = 0;
    fk.compiles = 0;
    fk.cluster_max = 8;
    fk.graphs = 0;
    pthread_mutex_unlock(&fk.lock);
}

FK_RECORD void fakecuda_set_graphs(int on)
{
    pthread_mutex_lock(&fk.lock);
    fk.graphs = on;
    pthread_mutex_unlock(&fk.lock);
}

FK_RECORD long fakecuda_live_graphs(void)
{
    pthread_mutex_lock(&fk.lock);
    long n = 0;
    for (fk_graph *g = fk.graph_list; g; g = g->next)
        n++;
    pthread_mutex_unlock(&fk.lock);
    return n;
}

FK_RECORD void fakecuda_set_cluster_max(int n)
{
    pthread_mutex_lock(&fk.lock);
    fk.cluster_max = n;
    pthread_mutex_unlock(&fk.lock);
}

FK_RECORD int fakecuda_configure(const char *devices)
{
    pthread_mutex_lock(&fk.lock);
    const int r = devices && !fk.modules ? configure(devices) : -1;
    pthread_mutex_unlock(&fk.lock);
    return r;
}

FK_RECORD int fakecuda_set_current(int ordinal)
{
    pthread_mutex_lock(&fk.lock);
    const int ok = ordinal >= 0 && ordinal < fk.ndevices;
    if (ok)
        current = &fk.devices[ordinal].ctx;
    pthread_mutex_unlock(&fk.lock);
    return ok ? 0 : -1;
}

/* Copies record i of v into out; 0, or -1 past the end. */
static int get(const fk_vec *v, size_t i, void *out, size_t size)
{
    pthread_mutex_lock(&fk.lock);
    const void *p = vec_at(v, i);
    if (p)
        memcpy(out, p, size);
    pthread_mutex_unlock(&fk.lock);
    return p ? 0 : -1;
}

static size_t count(const fk_vec *v)
{
    pthread_mutex_lock(&fk.lock);
    const size_t n = v->n;
    pthread_mutex_unlock(&fk.lock);
    return n;
}

FK_RECORD size_t fakecuda_launch_count(void) { return count(&fk.launches); }
FK_RECORD int fakecuda_get_launch(size_t i, fakecuda_launch *out) { return get(&fk.launches, i, out, sizeof *out); }
FK_RECORD size_t fakecuda_tensor_map_count(void) { return count(&fk.maps); }
FK_RECORD int fakecuda_get_tensor_map(size_t i, fakecuda_tensor_map *out) { return get(&fk.maps, i, out, sizeof *out); }
FK_RECORD size_t fakecuda_alloc_count(void) { return count(&fk.allocs); }
FK_RECORD int fakecuda_get_alloc(size_t i, fakecuda_alloc *out) { return get(&fk.allocs, i, out, sizeof *out); }
FK_RECORD size_t fakecuda_attribute_count(void) { return count(&fk.attributes); }
FK_RECORD int fakecuda_get_attribute(size_t i, fakecuda_attribute *out) { return get(&fk.attributes, i, out, sizeof *out); }

FK_RECORD long fakecuda_tensor_map_of(const void *map)
{
    unsigned long long i;
    if (!map || memcmp(map, "FAKETMAP", 8) != 0)
        return -1;
    memcpy(&i, (const char *)map + 8, sizeof i);
    return i < count(&fk.maps) ? (long)i : -1;
}

FK_RECORD size_t fakecuda_live_allocs(size_t *bytes)
{
    pthread_mutex_lock(&fk.lock);
    const size_t n = fk.nblocks;
    if (bytes)
        *bytes = fk.mem_used;
    pthread_mutex_unlock(&fk.lock);
    return n;
}

FK_RECORD int fakecuda_find_alloc_at(const void *ptr, size_t bytes, size_t launch)
{
    const unsigned long long p = (uintptr_t)ptr;
    pthread_mutex_lock(&fk.lock);
    int found = 0;
    for (size_t i = 0; i < fk.nblocks + fk.nfreed && !found; i++) {
        const int live = i < fk.nblocks;
        const fk_block *b = live ? &fk.blocks[i] : &fk.freed[i - fk.nblocks];
        found = holds(b, p, bytes) && b->since <= launch && (live || launch < b->until);
    }
    pthread_mutex_unlock(&fk.lock);
    return found;
}

FK_RECORD long fakecuda_calls(const char *name)
{
    pthread_mutex_lock(&fk.lock);
    long n = 0;
    if (!name)
        n = fk.total_calls;
    for (size_t i = 0; name && i < sizeof fk.counts / sizeof fk.counts[0] && fk.counts[i].name; i++)
        if (strcmp(fk.counts[i].name, name) == 0)
            n = fk.counts[i].n;
    pthread_mutex_unlock(&fk.lock);
    return n;
}

FK_RECORD long fakecuda_live_modules(void)
{
    pthread_mutex_lock(&fk.lock);
    long n = 0;
    for (fk_module *m = fk.modules; m; m = m->next)
        n++;
    pthread_mutex_unlock(&fk.lock);
    return n;
}

FK_RECORD long fakecuda_live_events(void)
{
    pthread_mutex_lock(&fk.lock);
    long n = 0;
    for (fk_event *e = fk.events; e; e = e->next)
        n++;
    pthread_mutex_unlock(&fk.lock);
    return n;
}

FK_RECORD void fakecuda_fail(const char *call, long nth, int result)
{
    pthread_mutex_lock(&fk.lock);
    set_failure(call, nth, result);
    pthread_mutex_unlock(&fk.lock);
}

FK_RECORD const char *fakecuda_failed_call(void)
{
    pthread_mutex_lock(&fk.lock);
    const char *c = fk.failed_call;
    pthread_mutex_unlock(&fk.lock);
    return c;
}

FK_RECORD long fakecuda_violations(void)
{
    pthread_mutex_lock(&fk.lock);
    const long n = fk.violations;
    pthread_mutex_unlock(&fk.lock);
    return n;
}

FK_RECORD const char *fakecuda_last_violation(void)
{
    return fk.last_violation;
}

FK_RECORD int fakecuda_capture_mode(void)
{
    return capture_mode;
}

FK_RECORD void fakecuda_set_launch_ms(const float *ms, size_t n)
{
    float *copy = n ? malloc(n * sizeof *copy) : NULL;
    if (copy)
        memcpy(copy, ms, n * sizeof *copy);
    pthread_mutex_lock(&fk.lock);
    free((void *)fk.launch_ms);
    fk.launch_ms = copy;
    fk.nlaunch_ms = copy ? n : 0;
    fk.launches_run = 0;
    pthread_mutex_unlock(&fk.lock);
}

FK_RECORD long fakecuda_compiles(void)
{
    pthread_mutex_lock(&fk.lock);
    const long n = fk.compiles;
    pthread_mutex_unlock(&fk.lock);
    return n;
}

/* Unloaded with nothing of it reachable: free what it holds, so that
 * LeakSanitizer sees no leak in a program that let it go. */
__attribute__((destructor)) static void fk_unload(void)
{
    free_launch_copies();
    free(fk.launches.data);
    free(fk.maps.data);
    free(fk.allocs.data);
    free(fk.attributes.data);
    while (fk.modules) {
        fk_module *m = fk.modules;
        fk.modules = m->next;
        free_module(m);
    }
    free_retired();
    free(fk.retired.data);
    while (fk.events) {
        fk_event *e = fk.events;
        fk.events = e->next;
        free(e);
    }
    while (fk.streams) {
        fk_stream *s = fk.streams;
        fk.streams = s->next;
        free(s);
    }
    for (size_t i = 0; i < fk.nblocks; i++)
        free((void *)(uintptr_t)fk.blocks[i].base);
    free(fk.blocks);
    free((void *)fk.launch_ms);
}
