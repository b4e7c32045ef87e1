/* driver.h - the CUDA driver API, loaded with dlopen on first use.
 *
 * Only the handful of entry points evt needs, declared here with the
 * driver's C signatures, so that libevt builds and loads without CUDA. */
#ifndef EVT_RUNTIME_DRIVER_H
#define EVT_RUNTIME_DRIVER_H

#include "../support/strbuf.h"

#include <evt/evt.h>

#include <stddef.h>

typedef int rt_cu_result; /* CUresult: 0 is CUDA_SUCCESS */
typedef int rt_cu_device;
typedef struct rt_cu_context_s *rt_cu_context;
typedef struct rt_cu_module_s *rt_cu_module;
typedef struct rt_cu_function_s *rt_cu_function;
typedef struct rt_cu_stream_s *rt_cu_stream;
typedef struct rt_cu_event_s *rt_cu_event;
typedef struct rt_cu_graph_s *rt_cu_graph;
typedef struct rt_cu_graph_exec_s *rt_cu_graph_exec;
typedef unsigned long long rt_cu_ptr;

enum {
    RT_CU_ATTR_MULTIPROCESSOR_COUNT = 16,
    RT_CU_ATTR_CC_MAJOR = 75,
    RT_CU_ATTR_CC_MINOR = 76,
    RT_CU_ATTR_MAX_SHARED_OPTIN = 97, /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
    RT_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED = 8,
    RT_CU_CAPTURE_NONE = 0,         /* CU_STREAM_CAPTURE_STATUS_NONE */
    RT_CU_CAPTURE_MODE_RELAXED = 2, /* CU_STREAM_CAPTURE_MODE_RELAXED */
    RT_CU_STREAM_NON_BLOCKING = 1,  /* CU_STREAM_NON_BLOCKING */
    RT_CU_ERROR_OUT_OF_MEMORY = 2   /* CUDA_ERROR_OUT_OF_MEMORY */
};

/* CUlaunchAttribute (cuda.h): an id, then a 64-byte value. */
typedef struct rt_cu_launch_attr {
    int id, pad_;
    union {
        char pad[64];
        unsigned dims[3]; /* RT_CU_LAUNCH_ATTR_CLUSTER_DIMENSION */
    } value;
} rt_cu_launch_attr;

enum { RT_CU_LAUNCH_ATTR_CLUSTER_DIMENSION = 4 /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION */ };

/* CUlaunchConfig (cuda.h), for cuLaunchKernelEx and the occupancy query of
 * a clustered kernel. */
typedef struct rt_cu_launch_config {
    unsigned grid[3], block[3], shared_bytes;
    rt_cu_stream stream;
    rt_cu_launch_attr *attrs; /* none for a kernel whose __cluster_dims__ say */
    unsigned nattrs;
} rt_cu_launch_config;

typedef struct rt_driver {
    void *lib;
    rt_cu_result (*init)(unsigned);
    rt_cu_result (*get_error_string)(rt_cu_result, const char **);
    rt_cu_result (*device_get)(rt_cu_device *, int);
    rt_cu_result (*device_get_count)(int *);
    rt_cu_result (*device_get_attribute)(int *, int, rt_cu_device);
    rt_cu_result (*device_get_name)(char *, int, rt_cu_device);
    rt_cu_result (*primary_ctx_retain)(rt_cu_context *, rt_cu_device);
    rt_cu_result (*ctx_get_current)(rt_cu_context *);
    rt_cu_result (*ctx_set_current)(rt_cu_context);
    rt_cu_result (*ctx_get_device)(rt_cu_device *);
    rt_cu_result (*ctx_synchronize)(void);
    rt_cu_result (*module_load_data)(rt_cu_module *, const void *);
    rt_cu_result (*module_unload)(rt_cu_module);
    rt_cu_result (*module_get_function)(rt_cu_function *, rt_cu_module, const char *);
    rt_cu_result (*func_set_attribute)(rt_cu_function, int, int);
    rt_cu_result (*launch_kernel)(rt_cu_function, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  unsigned, unsigned, rt_cu_stream, void **, void **);
    rt_cu_result (*mem_alloc)(rt_cu_ptr *, size_t);
    rt_cu_result (*mem_free)(rt_cu_ptr);
    rt_cu_result (*memcpy_htod)(rt_cu_ptr, const void *, size_t);
    rt_cu_result (*memcpy_dtoh)(void *, rt_cu_ptr, size_t);
    rt_cu_result (*memset_d32_async)(rt_cu_ptr, unsigned, size_t, rt_cu_stream);
    rt_cu_result (*stream_synchronize)(rt_cu_stream);
    rt_cu_result (*stream_is_capturing)(rt_cu_stream, int *); /* the CUstreamCaptureStatus */
    rt_cu_result (*exchange_capture_mode)(int *); /* the thread's CUstreamCaptureMode */
    rt_cu_result (*event_create)(rt_cu_event *, unsigned);
    rt_cu_result (*event_record)(rt_cu_event, rt_cu_stream);
    rt_cu_result (*event_synchronize)(rt_cu_event);
    rt_cu_result (*event_elapsed)(float *, rt_cu_event, rt_cu_event);
    rt_cu_result (*event_destroy)(rt_cu_event);
    /* Tensor maps (CUDA 12+; NULL where the driver lacks them, and then no
     * kernel uses TMA): cuTensorMapEncodeIm2col and cuTensorMapEncodeTiled,
     * with the enums as ints and the 128-byte CUtensorMap as bytes. */
    rt_cu_result (*tensor_map_im2col)(void *map, int dtype, unsigned rank, void *addr,
                                      const unsigned long long *dims,
                                      const unsigned long long *strides, const int *lower,
                                      const int *upper, unsigned channels, unsigned pixels,
                                      const unsigned *elem_strides, int interleave, int swizzle,
                                      int l2_promotion, int oob_fill);
    rt_cu_result (*tensor_map_tiled)(void *map, int dtype, unsigned rank, void *addr,
                                     const unsigned long long *dims,
                                     const unsigned long long *strides, const unsigned *box,
                                     const unsigned *elem_strides, int interleave, int swizzle,
                                     int l2_promotion, int oob_fill);
    /* cuOccupancyMaxActiveClusters (CUDA 12+; NULL where the driver lacks
     * it, and then a clustered grid is not capped) */
    rt_cu_result (*max_active_clusters)(int *clusters, rt_cu_function f, const rt_cu_launch_config *c);
    /* cuLaunchKernelEx (CUDA 12+; NULL where the driver lacks it, and then
     * split-K shares meet through the workspace, not in a cluster) */
    rt_cu_result (*launch_kernel_ex)(const rt_cu_launch_config *c, rt_cu_function f, void **params,
                                     void **extra);
    /* A stream of evt's own, captured into a CUDA graph and replayed (NULL
     * where the driver lacks any of them: rt_driver_graphs; tuning then
     * times run by run) */
    rt_cu_result (*stream_create)(rt_cu_stream *, unsigned flags);
    rt_cu_result (*stream_destroy)(rt_cu_stream);
    rt_cu_result (*stream_begin_capture)(rt_cu_stream, int mode);
    rt_cu_result (*stream_end_capture)(rt_cu_stream, rt_cu_graph *);
    rt_cu_result (*graph_instantiate)(rt_cu_graph_exec *, rt_cu_graph, unsigned long long flags);
    rt_cu_result (*graph_launch)(rt_cu_graph_exec, rt_cu_stream);
    rt_cu_result (*graph_exec_destroy)(rt_cu_graph_exec);
    rt_cu_result (*graph_destroy)(rt_cu_graph);
} rt_driver;

/* Whether d has every graph entry point above. */
int rt_driver_graphs(const rt_driver *d);

/* CUtensorMap* enum values (cuda.h) */
enum {
    RT_TMAP_UINT8 = 0, /* fp8 operands, copied as bytes */
    RT_TMAP_F16 = 6,
    RT_TMAP_BF16 = 9,
    RT_TMAP_SWIZZLE_NONE = 0,
    RT_TMAP_SWIZZLE_64B = 2,
    RT_TMAP_SWIZZLE_128B = 3,
    RT_TMAP_L2_128B = 2,
    RT_TMAP_L2_256B = 3
};

/* Loads libcuda.so.1 (or `path`) and cuInit()s it into *out; otherwise
 * EVT_ERR_NO_GPU, or EVT_ERR_NO_MEMORY, with the reason in err. */
evt_status rt_driver_load(const char *path, rt_driver **out, strbuf *err);
void rt_driver_unload(rt_driver *d);
/* Appends "CALL failed: NAME (CODE)" for a failed driver call. */
void rt_driver_error(const rt_driver *d, rt_cu_result r, const char *call, strbuf *err);
/*
 * Makes sure a context is current: the caller's if there is one, else
 * device 0's primary context.  Returns it in *ctx and the device in *dev.
 */
int rt_driver_current(const rt_driver *d, rt_cu_context *ctx, rt_cu_device *dev, strbuf *err);

#endif
