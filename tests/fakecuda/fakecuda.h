/*
 * fakecuda.h - libevt_fakecuda.so, a stand-in for the CUDA driver (and,
 * optionally, for NVRTC) that lets the code after validation run on a
 * machine without a GPU: configuration picks, TMA maps, grids, workspaces
 * and argument packing are recorded, not executed, for tests to check.
 *
 * A program hands the library's path to libevt (evt_ctx_set_library_path
 * with EVT_LIBRARY_CUDA_DRIVER, or EVT_CUDA_DRIVER for evtc and the Python
 * binding) and reaches the record through fakecuda_open below: dlopen of
 * the same path returns the same handle, so both see one fake device.
 *
 * The device.  Every cu* entry point runtime/driver.c loads is exported,
 * with the _v2 names, plus cuStreamCreate, cuStreamDestroy_v2,
 * cuStreamBeginCapture_v2 and cuStreamEndCapture for tests.  Devices come
 * from the environment, read once when the library is loaded:
 *   FAKECUDA_DEVICES   "9.0x132,8.0x108": one device per item, compute
 *                      capability and (after x) SMs; "none": no device
 *   FAKECUDA_CC        device 0's compute capability (default 9.0)
 *   FAKECUDA_SMS       device 0's SMs (default: 132, 108, 84, 128 for
 *                      9.0, 8.0, 8.6, 8.9)
 *   FAKECUDA_NAME      device 0's name (default "Fake sm_XX")
 *   FAKECUDA_MEM       bytes of device memory (default 4 GiB); device memory
 *                      is host memory, so copies to and from it work
 *   FAKECUDA_FAIL      CALL[:N[:CODE]]: the N-th call (default 1) of entry
 *                      point CALL ("*": of any) returns CUresult CODE
 *                      (default 999) and does nothing else
 * or from fakecuda_configure.  Each device's shared memory limits are its
 * architecture's: 227 KiB per block opted in on 9.0, 163 KiB on 8.0, 99 KiB
 * on 8.6 and 8.9, 48 KiB without opting in.
 *
 * What a real driver refuses, the fake refuses with the same CUresult, and
 * misuse no argument value can excuse (a stale or foreign handle, a call
 * before cuInit, a launch over the block or shared memory limits or outside
 * its function's context, freeing what was not allocated, a copy past an
 * allocation, an unsafe call during a CUDA graph capture) also counts as a
 * violation: fakecuda_violations says how many, fakecuda_last_violation
 * what the last was.  Module images must be cubins (ELF, EM_CUDA) or PTX
 * text for an architecture the device runs; kernels' parameters are read
 * from the image (.nv.info's KPARAM_INFO, or PTX's .entry), so a launch
 * records exactly the bytes each parameter has.
 *
 * NVRTC.  The library also exports nvrtc* entry points, so that
 * EVT_LIBRARY_NVRTC may point at it too: "compiling" is instant and gives
 * a PTX image of the source's entry points (names and parameter sizes read
 * from the generated CUDA; no instructions), which the fake driver loads.
 * For the fuzzers, which must not wait seconds for NVRTC on every new
 * variant; tests of the cubins themselves use the real NVRTC.
 */
#ifndef EVT_TESTS_FAKECUDA_H
#define EVT_TESTS_FAKECUDA_H

#include <stddef.h>

#define FAKECUDA_MAX_PARAMS 8

/* One cuLaunchKernel or cuLaunchKernelEx call. */
typedef struct fakecuda_launch {
    const char *function;   /* the entry point's name */
    unsigned grid[3], block[3];
    unsigned shared_bytes;  /* dynamic shared memory asked for */
    int max_dynamic_shared; /* the function's attribute at the launch */
    unsigned cluster;       /* cuLaunchKernelEx's cluster dimension (x); 0: none asked */
    void *stream;
    int device;             /* ordinal of the current context's device */
    int captured;           /* 1: recorded into a capture, not run */
    int result;             /* the CUresult returned */
    int nparams;            /* the kernel's parameters, from its image */
    size_t param_size[FAKECUDA_MAX_PARAMS];
    const unsigned char *params[FAKECUDA_MAX_PARAMS]; /* copies of each (NULL on refusal) */
} fakecuda_launch;

/* One cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col call. */
typedef struct fakecuda_tensor_map {
    int im2col; /* 0: tiled */
    int result;
    int dtype;
    unsigned rank;
    const void *address;
    unsigned long long dims[5], strides[4]; /* strides in bytes, rank - 1 of them */
    unsigned box[5];                        /* tiled */
    int lower[3], upper[3];                 /* im2col: rank - 2 corners, innermost first */
    unsigned channels, pixels;              /* im2col */
    unsigned elem_strides[5];
    int interleave, swizzle, l2_promotion, oob_fill;
} fakecuda_tensor_map;

/* One cuMemAlloc call. */
typedef struct fakecuda_alloc {
    size_t bytes;
    unsigned long long ptr; /* 0 on failure */
    int result;
    int freed;              /* 1 once cuMemFree released it */
} fakecuda_alloc;

/* One cuFuncSetAttribute call. */
typedef struct fakecuda_attribute {
    const char *function;
    int attribute, value, result;
} fakecuda_attribute;

/*
 * The record and the controls, every one reached with dlsym (fakecuda_open).
 * Strings and parameter copies stay valid until fakecuda_reset.  The
 * record keeps the first 65536 calls of each kind.
 */
#define FAKECUDA_FUNCTIONS(X)                                                                   \
    /* Empties every record and counter, and clears failure injection,  \
     * captures and launch times; devices, contexts, modules and device \
     * memory stay. */                                                                          \
    X(void, fakecuda_reset, (void))                                                             \
    /* Replaces the devices, as FAKECUDA_DEVICES spells them; 0, or -1  \
     * for a bad spec or while a module is loaded. */                                          \
    X(int, fakecuda_configure, (const char *devices))                                           \
    /* Makes device `ordinal`'s primary context current on this thread, \
     * as a CUDA runtime's cudaSetDevice does; 0 or -1. */                                     \
    X(int, fakecuda_set_current, (int ordinal))                                                 \
    X(size_t, fakecuda_launch_count, (void))                                                    \
    /* Launch i into *out; 0, or -1 past the end. */                                           \
    X(int, fakecuda_get_launch, (size_t i, fakecuda_launch *out))                               \
    X(size_t, fakecuda_tensor_map_count, (void))                                                \
    X(int, fakecuda_get_tensor_map, (size_t i, fakecuda_tensor_map *out))                       \
    /* The record index of the map a successful encode wrote at `map`   \
     * (128 bytes, e.g. inside a launch's parameter copy); -1 if none. */                      \
    X(long, fakecuda_tensor_map_of, (const void *map))                                          \
    X(size_t, fakecuda_alloc_count, (void))                                                     \
    X(int, fakecuda_get_alloc, (size_t i, fakecuda_alloc *out))                                 \
    /* Device allocations not freed, and their bytes (all, reset or not). */                   \
    X(size_t, fakecuda_live_allocs, (size_t *bytes))                                            \
    /* 1 if an allocation live when launch record `launch` was made     \
     * (allocated before it, and not freed, or freed after it) holds    \
     * [ptr, ptr + bytes), else 0. */                                   \
    X(int, fakecuda_find_alloc_at, (const void *ptr, size_t bytes, size_t launch))              \
    X(size_t, fakecuda_attribute_count, (void))                                                 \
    X(int, fakecuda_get_attribute, (size_t i, fakecuda_attribute *out))                         \
    /* Calls of entry point `name` since the reset (NULL: of every one but \
     * cuGetErrorString and the nvrtc* ones). */                                                \
    X(long, fakecuda_calls, (const char *name))                                                 \
    /* Modules, events and streams alive now. */                                                \
    X(long, fakecuda_live_modules, (void))                                                      \
    X(long, fakecuda_live_events, (void))                                                       \
    /* Makes the nth call (from 1, counted from now) of entry point `call` \
     * ("*": any) return `result` without doing anything (a release call \
     * still releases); result 0 cancels. */                                                    \
    X(void, fakecuda_fail, (const char *call, long nth, int result))                            \
    /* The entry point the injected failure hit, or NULL. */                                    \
    X(const char *, fakecuda_failed_call, (void))                                               \
    X(long, fakecuda_violations, (void))                                                        \
    X(const char *, fakecuda_last_violation, (void))                                            \
    /* The calling thread's stream capture mode (0 global, 2 relaxed). */                      \
    X(int, fakecuda_capture_mode, (void))                                                       \
    /* Each launch that runs (not captured) takes ms[i % n] milliseconds \
     * of the fake clock that events read (n = 0: 0.01 ms each). */                            \
    X(void, fakecuda_set_launch_ms, (const float *ms, size_t n))                                \
    /* Compiles by the fake NVRTC since the reset. */                                           \
    X(long, fakecuda_compiles, (void))                                                          \
    /* The largest cluster a launch's cluster dimension may ask for (8   \
     * after a reset; 0: none), as a smaller GPC or a MIG slice would   \
     * have it: cuOccupancyMaxActiveClusters finds none larger. */                              \
    X(void, fakecuda_set_cluster_max, (int n))                                                  \
    /* Whether a capture makes a graph that cuGraphInstantiateWithFlags \
     * and cuGraphLaunch take (0 after a reset: no graph, and          \
     * instantiating answers CUDA_ERROR_NOT_SUPPORTED); a replay runs  \
     * its captured launches on the clock one after another. */        \
    X(void, fakecuda_set_graphs, (int on))                                                      \
    /* Graphs and instantiated graphs alive now. */                    \
    X(long, fakecuda_live_graphs, (void))

/* The record's functions, looked up in one library. */
typedef struct fakecuda_api {
    void *handle;
#define FAKECUDA_FIELD(ret, name, args) ret(*name) args;
    FAKECUDA_FUNCTIONS(FAKECUDA_FIELD)
#undef FAKECUDA_FIELD
    /* driver entry points a test drives itself, as its CUDA runtime would */
    int (*cuStreamCreate)(void **stream, unsigned flags);
    int (*cuStreamDestroy)(void *stream);
    int (*cuStreamBeginCapture)(void *stream, int mode);
    int (*cuStreamEndCapture)(void *stream, void **graph);
    int (*cuStreamIsCapturing)(void *stream, int *status);
} fakecuda_api;

#ifdef FAKECUDA_OPEN
#include <dlfcn.h>
#include <string.h>

/* dlopens the fake at `path` and fills *api; 0, or -1 when the library or
 * one of its functions is missing (api->handle then NULL). */
static int fakecuda_open(const char *path, fakecuda_api *api)
{
    memset(api, 0, sizeof *api);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    int missing = !h;
#define FAKECUDA_LOOKUP(ret, name, args)                                                       \
    if (h && !(*(void **)&api->name = dlsym(h, #name)))                                         \
        missing = 1;
    FAKECUDA_FUNCTIONS(FAKECUDA_LOOKUP)
#undef FAKECUDA_LOOKUP
    if (h && (!(*(void **)&api->cuStreamCreate = dlsym(h, "cuStreamCreate")) ||
              !(*(void **)&api->cuStreamDestroy = dlsym(h, "cuStreamDestroy_v2")) ||
              !(*(void **)&api->cuStreamBeginCapture = dlsym(h, "cuStreamBeginCapture_v2")) ||
              !(*(void **)&api->cuStreamEndCapture = dlsym(h, "cuStreamEndCapture")) ||
              !(*(void **)&api->cuStreamIsCapturing = dlsym(h, "cuStreamIsCapturing"))))
        missing = 1;
    if (missing) {
        if (h)
            dlclose(h);
        memset(api, 0, sizeof *api);
        return -1;
    }
    api->handle = h;
    return 0;
}

/* A field of a recorded launch's packed arguments (fakecuda_launch's
 * params), by its byte offset: memcpy, since the record is a byte copy
 * with no alignment of its own. */
static inline long long fakecuda_i64_at(const unsigned char *p, size_t off)
{
    long long v;
    memcpy(&v, p + off, sizeof v);
    return v;
}

static inline int fakecuda_i32_at(const unsigned char *p, size_t off)
{
    int v;
    memcpy(&v, p + off, sizeof v);
    return v;
}

static inline float fakecuda_f32_at(const unsigned char *p, size_t off)
{
    float v;
    memcpy(&v, p + off, sizeof v);
    return v;
}

static inline void *fakecuda_ptr_at(const unsigned char *p, size_t off)
{
    void *v;
    memcpy(&v, p + off, sizeof v);
    return v;
}
#endif

#endif
