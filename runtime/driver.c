/* driver.c - libcuda through dlopen: a machine without a driver gets an error, not a crash. */
#include "driver.h"

#include <dlfcn.h>
#include <stdlib.h>

/* Versioned entry points first: the plain names are the CUDA 3.x ABI. */
static void *load_sym(void *lib, const char *v2, const char *plain, int *missing)
{
    void *p = v2 ? dlsym(lib, v2) : NULL;
    if (!p)
        p = dlsym(lib, plain);
    if (!p)
        *missing = 1;
    return p;
}

evt_status rt_driver_load(const char *path, rt_driver **out, strbuf *err)
{
    *out = NULL;
    void *lib = dlopen(path && path[0] ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        if (path && path[0])
            sb_printf(err, "cannot load the CUDA driver from %s (evt_ctx_set_library_path)", path);
        else
            sb_puts(err, "no CUDA driver (libcuda.so.1 not found): this machine has no usable GPU");
        return EVT_ERR_NO_GPU;
    }
    rt_driver *d = calloc(1, sizeof *d);
    if (!d) {
        dlclose(lib);
        sb_puts(err, "out of memory loading the CUDA driver");
        return EVT_ERR_NO_MEMORY;
    }
    d->lib = lib;
    int missing = 0;
#define LOAD(field, v2, plain) *(void **)&d->field = load_sym(lib, v2, plain, &missing)
    LOAD(init, NULL, "cuInit");
    LOAD(get_error_string, NULL, "cuGetErrorString");
    LOAD(device_get, NULL, "cuDeviceGet");
    LOAD(device_get_count, NULL, "cuDeviceGetCount");
    LOAD(device_get_attribute, NULL, "cuDeviceGetAttribute");
    LOAD(device_get_name, NULL, "cuDeviceGetName");
    LOAD(primary_ctx_retain, NULL, "cuDevicePrimaryCtxRetain");
    LOAD(ctx_get_current, NULL, "cuCtxGetCurrent");
    LOAD(ctx_set_current, NULL, "cuCtxSetCurrent");
    LOAD(ctx_get_device, NULL, "cuCtxGetDevice");
    LOAD(ctx_synchronize, NULL, "cuCtxSynchronize");
    LOAD(module_load_data, NULL, "cuModuleLoadData");
    LOAD(module_unload, NULL, "cuModuleUnload");
    LOAD(module_get_function, NULL, "cuModuleGetFunction");
    LOAD(func_set_attribute, NULL, "cuFuncSetAttribute");
    LOAD(launch_kernel, NULL, "cuLaunchKernel");
    LOAD(mem_alloc, "cuMemAlloc_v2", "cuMemAlloc");
    LOAD(mem_free, "cuMemFree_v2", "cuMemFree");
    LOAD(memcpy_htod, "cuMemcpyHtoD_v2", "cuMemcpyHtoD");
    LOAD(memcpy_dtoh, "cuMemcpyDtoH_v2", "cuMemcpyDtoH");
    LOAD(memset_d32_async, NULL, "cuMemsetD32Async");
    LOAD(stream_synchronize, NULL, "cuStreamSynchronize");
    LOAD(stream_is_capturing, NULL, "cuStreamIsCapturing");
    LOAD(exchange_capture_mode, NULL, "cuThreadExchangeStreamCaptureMode");
    LOAD(event_create, NULL, "cuEventCreate");
    LOAD(event_record, NULL, "cuEventRecord");
    LOAD(event_synchronize, NULL, "cuEventSynchronize");
    LOAD(event_elapsed, "cuEventElapsedTime_v2", "cuEventElapsedTime");
    LOAD(event_destroy, "cuEventDestroy_v2", "cuEventDestroy");
#undef LOAD
    *(void **)&d->tensor_map_im2col = dlsym(lib, "cuTensorMapEncodeIm2col"); /* optional */
    *(void **)&d->tensor_map_tiled = dlsym(lib, "cuTensorMapEncodeTiled");
    *(void **)&d->max_active_clusters = dlsym(lib, "cuOccupancyMaxActiveClusters"); /* optional */
    *(void **)&d->launch_kernel_ex = dlsym(lib, "cuLaunchKernelEx");                 /* optional */
    /* optional, all or none (rt_driver_graphs) */
    *(void **)&d->stream_create = dlsym(lib, "cuStreamCreate");
    *(void **)&d->stream_destroy = dlsym(lib, "cuStreamDestroy_v2");
    *(void **)&d->stream_begin_capture = dlsym(lib, "cuStreamBeginCapture_v2");
    *(void **)&d->stream_end_capture = dlsym(lib, "cuStreamEndCapture");
    *(void **)&d->graph_instantiate = dlsym(lib, "cuGraphInstantiateWithFlags");
    *(void **)&d->graph_launch = dlsym(lib, "cuGraphLaunch");
    *(void **)&d->graph_exec_destroy = dlsym(lib, "cuGraphExecDestroy");
    *(void **)&d->graph_destroy = dlsym(lib, "cuGraphDestroy");
    if (missing) {
        sb_puts(err, "the CUDA driver found lacks entry points evt needs (too old)");
        rt_driver_unload(d);
        return EVT_ERR_NO_GPU;
    }
    rt_cu_result r = d->init(0);
    if (r != 0) {
        rt_driver_error(d, r, "cuInit", err);
        sb_puts(err, " (no usable GPU?)");
        rt_driver_unload(d);
        return EVT_ERR_NO_GPU;
    }
    *out = d;
    return EVT_OK;
}

int rt_driver_graphs(const rt_driver *d)
{
    return d->stream_create && d->stream_destroy && d->stream_begin_capture && d->stream_end_capture &&
           d->graph_instantiate && d->graph_launch && d->graph_exec_destroy && d->graph_destroy;
}

void rt_driver_unload(rt_driver *d)
{
    if (!d)
        return;
    dlclose(d->lib);
    free(d);
}

void rt_driver_error(const rt_driver *d, rt_cu_result r, const char *call, strbuf *err)
{
    const char *what = NULL;
    if (!d->get_error_string || d->get_error_string(r, &what) != 0 || !what)
        what = "unknown error";
    sb_printf(err, "%s failed: %s (CUresult %d)", call, what, r);
}

int rt_driver_current(const rt_driver *d, rt_cu_context *ctx, rt_cu_device *dev, strbuf *err)
{
    rt_cu_result r = d->ctx_get_current(ctx);
    if (r != 0) {
        rt_driver_error(d, r, "cuCtxGetCurrent", err);
        return 0;
    }
    if (!*ctx) {
        int n = 0;
        if ((r = d->device_get_count(&n)) != 0 || n == 0) {
            sb_puts(err, "no CUDA device is present");
            return 0;
        }
        rt_cu_device d0;
        if ((r = d->device_get(&d0, 0)) != 0 || (r = d->primary_ctx_retain(ctx, d0)) != 0 ||
            (r = d->ctx_set_current(*ctx)) != 0) {
            rt_driver_error(d, r, "activating device 0's primary context", err);
            return 0;
        }
    }
    if ((r = d->ctx_get_device(dev)) != 0) {
        rt_driver_error(d, r, "cuCtxGetDevice", err);
        return 0;
    }
    return 1;
}
