/*
 * evt.h - the public interface of libevt, the fused-epilogue compiler.
 *
 * A program creates one evt_ctx per thread, parses `.evt` source into an
 * evt_module, reads the module's diagnostics, epilogues and kernels, and
 * prints its IR.  Nothing in the library prints, exits or aborts: every
 * failure is an evt_status plus a message held by the context or module.
 *
 * Ownership, in one rule: a handle returned by a `_create`/`_parse`
 * function is owned by the caller and released with the matching
 * `_destroy`; every other pointer the library returns (names, info
 * structs, texts) is owned by the object it was read from and stays valid
 * until that object is destroyed.
 *
 * Errors: a function that returns an evt_status reports on one object,
 * whose last-error text then says how that call ended: the reason after a
 * failure, "" after EVT_OK.  The object:
 *   - the context (evt_ctx_last_error) for evt_ctx_set_*, evt_device_* and
 *     evt_module_parse_*; the module's context for the calls on a module
 *     (evt_module_optimize*, evt_kernel_cuda, evt_kernel_compile,
 *     evt_kernel_config_check); and the context of the launch's module for
 *     every evt_launch_* call: a launch keeps no message of its own;
 *   - the interpreter (evt_interp_last_error) for evt_interp_bind,
 *     evt_interp_bind_f64, evt_interp_bind_magnitude, evt_interp_set_param,
 *     evt_interp_set_acc, evt_interp_set_acc_f64 and evt_interp_run;
 *   - none for evt_interp_create, for the functions of no object
 *     (evt_target_parse, evt_conv_output_size, evt_reference_*,
 *     evt_convert_*, evt_check_*) and for any call given a NULL handle
 *     where its object belongs: the status alone says what happened.
 * A function that returns no status (getters, texts, _destroy,
 * evt_launch_plan) leaves the message as it is.
 *
 * Thread safety: the library has no global mutable state.  Distinct
 * contexts (and the modules made from them) may be used from different
 * threads at once; one context must not be used by two threads at once.
 */
#ifndef EVT_EVT_H
#define EVT_EVT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(EVT_BUILDING_LIBRARY) && defined(__GNUC__)
#define EVT_API __attribute__((visibility("default")))
#else
#define EVT_API
#endif

/* ---- version -------------------------------------------------------- */

#define EVT_VERSION_MAJOR 0
#define EVT_VERSION_MINOR 1
#define EVT_VERSION_PATCH 0
#define EVT_VERSION_STRING "0.1.0"
/* One integer that orders versions: major*10000 + minor*100 + patch. */
#define EVT_VERSION_NUMBER \
    (EVT_VERSION_MAJOR * 10000 + EVT_VERSION_MINOR * 100 + EVT_VERSION_PATCH)

/* The version of the library actually loaded, e.g. "0.1.0"; a static string. */
EVT_API const char *evt_version(void);
/* EVT_VERSION_NUMBER of the library actually loaded. */
EVT_API int evt_version_number(void);

/* ---- status codes --------------------------------------------------- */

typedef enum evt_status {
    EVT_OK = 0,               /* success */
    EVT_ERR_SOURCE,           /* the .evt source is invalid (see diagnostics) */
    EVT_ERR_INVALID_ARGUMENT, /* a NULL or out-of-range argument to an API call */
    EVT_ERR_NOT_FOUND,        /* no object of that name */
    EVT_ERR_IO,               /* a file could not be read or written */
    EVT_ERR_NO_MEMORY,        /* an allocation failed */
    EVT_ERR_LIMIT,            /* an input exceeded a documented size limit */
    EVT_ERR_INTERNAL,         /* a bug in libevt (e.g. a pass broke an IR invariant) */
    EVT_ERR_COMPILE,          /* NVRTC is missing or failed (see diagnostics) */
    EVT_ERR_UNSUPPORTED,      /* valid source the code generator cannot build yet */
    EVT_ERR_NO_GPU,           /* no CUDA driver or no GPU (launches only) */
    EVT_ERR_DRIVER,           /* the CUDA driver failed a call (message says which) */
    EVT_ERR_UNBOUND,          /* a launch argument was never set */
    EVT_ERR_BAD_BUFFER        /* a launch buffer is misaligned or too small */
} evt_status;

/* A short static description of a status code, e.g. "invalid source". */
EVT_API const char *evt_status_string(evt_status status);

/* ---- enumerations shared by the info structs ------------------------ */

typedef enum evt_elem {
    EVT_F32,  /* IEEE binary32 */
    EVT_F16,  /* IEEE binary16 */
    EVT_BF16, /* bfloat16 */
    EVT_I8,   /* signed 8-bit integer, saturating */
    EVT_I32,  /* signed 32-bit integer, saturating */
    EVT_E4M3, /* fp8 e4m3fn, saturating */
    EVT_E5M2  /* fp8 e5m2, saturating */
} evt_elem;

/* "f32", "f16", ... as spelled in .evt source; a static string. */
EVT_API const char *evt_elem_name(evt_elem elem);
/* Size of one element in bytes. */
EVT_API size_t evt_elem_size(evt_elem elem);

/* Shapes are bit sets over the two output dimensions. */
typedef enum evt_shape {
    EVT_SHAPE_SCALAR = 0, /* one value, broadcast everywhere */
    EVT_SHAPE_M = 1,      /* [M]: one value per row */
    EVT_SHAPE_N = 2,      /* [N]: one value per column */
    EVT_SHAPE_MN = 3      /* [M, N]: a full matrix */
} evt_shape;

/* "", "[M]", "[N]", "[M, N]"; a static string. */
EVT_API const char *evt_shape_name(evt_shape shape);

typedef enum evt_severity {
    EVT_SEV_ERROR,   /* the source is invalid */
    EVT_SEV_WARNING, /* valid, but probably not what was meant */
    EVT_SEV_NOTE     /* more detail on the diagnostic before it */
} evt_severity;

/* A position in a source file; line and column count from 1 (columns in bytes). */
typedef struct evt_loc {
    const char *file; /* the name given at parse time, owned by the module */
    unsigned line;
    unsigned column;
} evt_loc;

/* ---- context -------------------------------------------------------- */

typedef struct evt_ctx evt_ctx;

/* Creates a context; NULL only when memory is exhausted.  Owned by the caller. */
EVT_API evt_ctx *evt_ctx_create(void);
/* Destroys a context.  Modules made from it must be destroyed first.  NULL is a no-op. */
EVT_API void evt_ctx_destroy(evt_ctx *ctx);
/* Why the last call that reported on this context failed, or "" after a
 * success and before any call (see "Errors" above for which calls report
 * here); owned by the context, valid until its next call. */
EVT_API const char *evt_ctx_last_error(const evt_ctx *ctx);

/* ---- modules: parsing ----------------------------------------------- */

typedef struct evt_module evt_module;

/*
 * Parses and checks `.evt` source into a module.
 *
 * On EVT_OK or EVT_ERR_SOURCE, *out receives a new module owned by the caller
 * (destroy it with evt_module_destroy): on EVT_ERR_SOURCE the module holds the
 * diagnostics but no usable epilogues or kernels.  On any other status *out is
 * NULL and evt_ctx_last_error says why.  `name` is the file name used in
 * diagnostics; the library copies `source`, which may hold NUL bytes.
 */
EVT_API evt_status evt_module_parse_buffer(evt_ctx *ctx, const char *name,
                                           const char *source, size_t length,
                                           evt_module **out);
/* As evt_module_parse_buffer, reading the file at `path` (EVT_ERR_IO if it cannot). */
EVT_API evt_status evt_module_parse_file(evt_ctx *ctx, const char *path,
                                         evt_module **out);
/* Destroys a module and everything read from it.  NULL is a no-op. */
EVT_API void evt_module_destroy(evt_module *module);

/* ---- modules: diagnostics ------------------------------------------- */

typedef struct evt_diag {
    evt_severity severity;
    evt_loc loc;
    const char *message; /* one sentence, no location prefix */
} evt_diag;

/* Number of diagnostics of the module, in source order of discovery. */
EVT_API size_t evt_module_diag_count(const evt_module *module);
/* Diagnostic i (NULL when out of range); owned by the module. */
EVT_API const evt_diag *evt_module_diag(const evt_module *module, size_t i);
/* Number of diagnostics of severity EVT_SEV_ERROR. */
EVT_API size_t evt_module_error_count(const evt_module *module);

typedef enum evt_diag_format {
    EVT_DIAG_TEXT, /* file:line:col: error: message, the source line, a caret */
    EVT_DIAG_JSON  /* one JSON object per line */
} evt_diag_format;

/* Every diagnostic rendered in `format` ("" if none); owned by the module. */
EVT_API const char *evt_module_diag_text(evt_module *module, evt_diag_format format);

/* ---- modules: contents ---------------------------------------------- */

typedef struct evt_epilogue evt_epilogue;
typedef struct evt_kernel evt_kernel;

typedef enum evt_arg_kind {
    EVT_ARG_INPUT,  /* `in`: a device buffer read by the epilogue */
    EVT_ARG_PARAM,  /* `param`: a scalar passed by value at launch */
    EVT_ARG_OUTPUT  /* `out`: a device buffer written by the epilogue */
} evt_arg_kind;

typedef enum evt_reduce {
    EVT_REDUCE_NONE, /* an element-wise output */
    EVT_REDUCE_SUM,  /* reduce_sum */
    EVT_REDUCE_MAX,  /* reduce_max */
    EVT_REDUCE_MIN   /* reduce_min */
} evt_reduce;

/* An input, param or output of an epilogue, as declared. */
typedef struct evt_arg_info {
    const char *name;
    evt_arg_kind kind;
    evt_elem elem;
    evt_shape shape;      /* EVT_SHAPE_SCALAR for params */
    evt_reduce reduce;    /* outputs only */
    int has_default;      /* params only: 1 if `= value` was given */
    float default_value;  /* params only, when has_default */
    evt_loc loc;
} evt_arg_info;

EVT_API size_t evt_module_epilogue_count(const evt_module *module);
/* Epilogue i in source order (NULL when out of range); owned by the module. */
EVT_API const evt_epilogue *evt_module_epilogue(const evt_module *module, size_t i);
/* The epilogue named `name`, or NULL. */
EVT_API const evt_epilogue *evt_module_find_epilogue(const evt_module *module,
                                                     const char *name);
EVT_API const char *evt_epilogue_name(const evt_epilogue *epilogue);
EVT_API evt_loc evt_epilogue_loc(const evt_epilogue *epilogue);
EVT_API size_t evt_epilogue_arg_count(const evt_epilogue *epilogue, evt_arg_kind kind);
/* Argument i of the given kind in declaration order (NULL when out of range). */
EVT_API const evt_arg_info *evt_epilogue_arg(const evt_epilogue *epilogue,
                                             evt_arg_kind kind, size_t i);

typedef enum evt_mainloop {
    EVT_MAINLOOP_GEMM,        /* D[M,N] = A[M,K] * B[K,N] */
    EVT_MAINLOOP_CONV2D_FPROP /* NHWC input, KRSC filter, NPQK output */
} evt_mainloop;

typedef enum evt_layout {
    EVT_LAYOUT_NONE, /* fixed by the mainloop (conv operands, the accumulator) */
    EVT_LAYOUT_ROW,  /* row-major */
    EVT_LAYOUT_COL   /* column-major */
} evt_layout;

/* One operand of a kernel's mainloop: a/b for gemm, x/w for conv, then acc. */
typedef struct evt_operand_info {
    const char *name;
    evt_elem elem;
    evt_layout layout;
} evt_operand_info;

EVT_API const char *evt_mainloop_name(evt_mainloop mainloop);

EVT_API size_t evt_module_kernel_count(const evt_module *module);
/* Kernel i in source order (NULL when out of range); owned by the module. */
EVT_API const evt_kernel *evt_module_kernel(const evt_module *module, size_t i);
/* The kernel named `name`, or NULL. */
EVT_API const evt_kernel *evt_module_find_kernel(const evt_module *module,
                                                 const char *name);
EVT_API const char *evt_kernel_name(const evt_kernel *kernel);
EVT_API evt_loc evt_kernel_loc(const evt_kernel *kernel);
EVT_API evt_mainloop evt_kernel_mainloop(const evt_kernel *kernel);
/* The three operands: 0 = A (gemm) or input x (conv), 1 = B or filter w, 2 = acc. */
EVT_API const evt_operand_info *evt_kernel_operand(const evt_kernel *kernel, size_t i);
EVT_API const evt_epilogue *evt_kernel_epilogue(const evt_kernel *kernel);

/* ---- modules: printing ---------------------------------------------- */

/*
 * The module's IR as stable text (the format of `evtc --emit=ir`), or NULL
 * if the module has errors.  Owned by the module; valid until the module is
 * destroyed or changed.
 */
EVT_API const char *evt_module_ir_text(evt_module *module);
/* The module as one Graphviz digraph named after the source, each epilogue a
 * labelled cluster (`subgraph "cluster_NAME"`, nodes "NAME.v0", ...), or
 * NULL if the module has errors.  Ownership as evt_module_ir_text. */
EVT_API const char *evt_module_dot_text(evt_module *module);

/* ---- optimizer ------------------------------------------------------ */

/*
 * The IR optimizer rewrites each epilogue in place; every rewrite keeps every
 * output bit-identical in f32 on every input, NaN, infinities, -0.0 and
 * subnormals included (docs/optimizer.md lists the rules).  Levels:
 * 0 runs nothing, 1 fold, simplify, cse, dce; 2 (evtc's default) adds
 * strength reduction and hoisting, iterated to a fixed point.
 */

/* Called after a pass has run on one epilogue: `pass` is its name (see
 * evt_pass_name), `ir_text` that epilogue's IR as evt_module_ir_text prints
 * it.  Both strings are valid only during the call. */
typedef void evt_pass_callback(void *user, const char *pass, const char *ir_text);

typedef struct evt_optimize_options {
    int level;                  /* 0, 1 or 2; ignored when `passes` is set */
    const char *passes;         /* NULL, or a comma-separated list of pass names
                                   run once each in that order instead of a level */
    evt_pass_callback *after;   /* NULL, or called after each pass */
    const char *after_pass;     /* NULL: call `after` after every pass; else only
                                   after the pass of this name */
    void *user;                 /* passed to `after` */
} evt_optimize_options;

/*
 * Optimizes every epilogue of a module without errors.  EVT_ERR_INVALID_ARGUMENT
 * for a module with errors, a level outside 0..2 or an unknown pass name;
 * EVT_ERR_NO_MEMORY or EVT_ERR_INTERNAL where memory runs out or a pass
 * breaks the IR (the passes work on copies of the epilogues: a failed call
 * leaves the module as it was, and it may be optimized again).
 * evt_ctx_last_error says why.  The module changes: texts returned by
 * evt_module_ir_text and evt_module_dot_text before the call are no longer
 * valid.
 */
EVT_API evt_status evt_module_optimize(evt_module *module, int level);
/* As evt_module_optimize, with the options above (NULL: level 2). */
EVT_API evt_status evt_module_optimize_with(evt_module *module,
                                            const evt_optimize_options *options);
/* The name of pass i in pipeline order ("fold", "simplify", ...), or NULL
 * past the last; a static string. */
EVT_API const char *evt_pass_name(size_t i);

/* ---- code generation ------------------------------------------------ */

/*
 * Each kernel becomes one CUDA C++ translation unit per SM target, which
 * includes only the kernels/ headers (compiled into libevt; installed under
 * PREFIX/include/evt/kernels for nvcc) and which NVRTC compiles to PTX or a
 * cubin.  NVRTC is loaded with dlopen on first use; no GPU or driver is
 * needed to generate or compile.
 */
typedef enum evt_target {
    EVT_TARGET_SM80,  /* A100 */
    EVT_TARGET_SM86,  /* RTX 30xx, A10, A40 */
    EVT_TARGET_SM89,  /* L4, L40, RTX 40xx */
    EVT_TARGET_SM90A, /* H100, H200 */
    EVT_TARGET_COUNT
} evt_target;

/* "sm_80", "sm_86", "sm_89", "sm_90a"; a static string. */
EVT_API const char *evt_target_name(evt_target target);
/* Parses a target name as evt_target_name spells it; EVT_ERR_INVALID_ARGUMENT if unknown. */
EVT_API evt_status evt_target_parse(const char *name, evt_target *out);

/* ---- fast math --------------------------------------------------------- */

/*
 * By default every builtin is computed on the GPU bit for bit as the CPU
 * interpreter computes it (kernels/common/evt_math.h: within a few ulp of
 * the exact value).  With fast math on (on = 1; 0 turns it off), compiles
 * (evt_kernel_cuda, evt_kernel_compile) and launches created afterwards
 * compute exp, sigmoid, silu, gelu and gelu_tanh on the GPU's approximate
 * ex2 and rcp instead, as nvcc's --use_fast_math and cuBLASLt's GELU
 * epilogue do: several times fewer instructions, results no longer the
 * interpreter's bits but within evt_check_values' f32 tolerance of the f64
 * reference (a few ulp for |x| <= 4, at most 1e-5 relative), except that
 * results below 2^-119 in magnitude may be 0 (kernels/common/fast_math.h,
 * docs/codegen.md).  tanh and the other builtins stay exact.  Fast-math
 * kernels are other code: the kernel cache and the tuning database keep
 * them apart.  EVT_ERR_INVALID_ARGUMENT for `on` other than 0 or 1.
 */
EVT_API evt_status evt_ctx_set_fast_math(evt_ctx *ctx, int on);
/* 1 when fast math is on for the context's later compiles and launches;
 * 0 otherwise (and for NULL). */
EVT_API int evt_ctx_fast_math(const evt_ctx *ctx);

/* ---- where the context loads its libraries from ---------------------- */

typedef enum evt_library {
    EVT_LIBRARY_NVRTC,      /* default: libnvrtc.so.13, libnvrtc.so, then /usr/local/cuda/lib64 */
    EVT_LIBRARY_CUDA_DRIVER /* default: libcuda.so.1 */
} evt_library;

/*
 * Makes the context load `which` from `path` (for dlopen; copied) instead
 * of searching its default names; NULL or "" restores the search.  Takes
 * effect when the context first loads the library (the first compile, the
 * first launch).  NVRTC's libnvrtc-builtins.so.MAJOR.MINOR is loaded from
 * the folder NVRTC was found in, so that folder (NVIDIA's nvidia-cuda-nvrtc
 * pip wheel's nvidia/cu13/lib, say) need not be on the loader's path.
 * EVT_ERR_INVALID_ARGUMENT for an unknown library or a path of 4096 bytes
 * or more.  The library reads no environment variable for this; evtc maps
 * EVT_NVRTC_LIBRARY and EVT_CUDA_DRIVER onto it, as does the Python binding,
 * which also looks for NVRTC in NVIDIA's wheel and $CUDA_HOME.
 */
EVT_API evt_status evt_ctx_set_library_path(evt_ctx *ctx, evt_library which, const char *path);

/* ---- tuning: overriding the planner and the code generator ----------- */

/*
 * What runs is the planner's choice (a tile configuration, split-K) and the
 * code generator's (the epilogue's row groups); for tuning and tests a
 * program may force them.  A zero-initialized evt_tuning decides nothing.
 */
typedef struct evt_tuning {
    /* A tile configuration by name (evt_config_name, e.g.
     * "sm90_pp2_128x128x64_s4"); NULL or "": the planner's pick.  Forced on
     * a kernel or target that cannot run it, compiling and launching fail
     * with EVT_ERR_UNSUPPORTED and the reason. */
    const char *config;
    /* 0: the planner's split-K; 1: never split K; n >= 2: split every
     * tile's K n ways where K has n k tiles (fewer where it has fewer).
     * A persistent configuration splits only its last wave's tiles (the
     * tail), n ways, by the split-K entry points of a configuration of the
     * same tile shape, which evt_launch_plan names after "tail"; the
     * planner (0) leaves it whole, evt_launch_tune times 2 to 4 ways.  With n >= 2
     * the full listing (evt_kernel_cuda) also holds the split-K entry points. */
    int split_k;
    /* Rows per epilogue row group: 0 the code generator's choice, or 1, 2,
     * 4, 8 or 16. */
    int row_group;
    /* Nonzero: launches take the heuristic's plan even where the tuning
     * database holds a measured one (evt_launch_tune). */
    int ignore_records;
    /* 0: the planner's (which does not take stream-K of its own accord);
     * 1: never; 2: stream-K wherever the configuration has it (the
     * cooperative sm_90a configurations, GEMM ones in clusters too, and
     * the conv's 128x192 one): the last
     * whole wave of tiles and the partial one after it shared out evenly
     * among the persistent CTAs by k tiles, a tile's pieces added in a fixed
     * order.  evt_launch_plan then ends in "stream-K" and the tiles it
     * shares; evt_launch_tune times it beside the other plans. */
    int stream_k;
    /* Where the producer/consumer sm_90a configurations run the epilogue.
     * 0: the library's choice, on the consumers' accumulator registers for
     * a per-element epilogue without an exact costly builtin such as gelu,
     * where N is whole tiles (and, for a conv, M too), else through a
     * shared-memory tile of the accumulators as the other configurations
     * do (docs/codegen.md).  Positive: the shared tile always.  Negative:
     * the registers wherever the epilogue is per-element, looped builtins
     * and edge tiles included.  For comparing the two. */
    int shared_epilogue;
} evt_tuning;

/*
 * Sets the tuning that compiles (evt_kernel_cuda, evt_kernel_compile) and
 * launches created afterwards start from; the name is copied.  NULL resets
 * it.  EVT_ERR_NOT_FOUND for an unknown configuration name,
 * EVT_ERR_INVALID_ARGUMENT for a split_k below 0, a stream_k other than 0,
 * 1 or 2, or a row_group not listed.
 */
EVT_API evt_status evt_ctx_set_tuning(evt_ctx *ctx, const evt_tuning *tuning);
/* The number of tile configurations, and the name of the i-th (a static
 * string; NULL for i out of range).  docs/codegen.md says what a name says. */
EVT_API int evt_config_count(void);
EVT_API const char *evt_config_name(int i);
/*
 * Whether tile configuration `config` can run `kernel` on `target`: EVT_OK,
 * or EVT_ERR_UNSUPPORTED with the reason in evt_ctx_last_error
 * (EVT_ERR_NOT_FOUND for an unknown name).
 */
EVT_API evt_status evt_kernel_config_check(evt_module *module, const evt_kernel *kernel,
                                           evt_target target, const char *config);

/*
 * The CUDA C++ source of `kernel` for `target` into *text, owned by the
 * module (valid until it is destroyed).  Generate after evt_module_optimize:
 * the code follows the IR as it is.  EVT_ERR_UNSUPPORTED (with the reason in
 * evt_ctx_last_error) when no code generator exists for the kernel's mainloop.
 */
EVT_API evt_status evt_kernel_cuda(evt_module *module, const evt_kernel *kernel,
                                   evt_target target, const char **text);

typedef enum evt_binary_format {
    EVT_BINARY_PTX,  /* PTX text, NUL-terminated */
    EVT_BINARY_CUBIN /* an ELF cubin for exactly that target */
} evt_binary_format;

/*
 * Compiles `kernel` for `target` with NVRTC.  On success *data (freed by the
 * caller with evt_free) holds *size bytes, and *seconds (if not NULL) the
 * NVRTC compile time.  On failure returns EVT_ERR_COMPILE, with NVRTC's log
 * added to the module's diagnostics and a summary in evt_ctx_last_error.
 */
EVT_API evt_status evt_kernel_compile(evt_module *module, const evt_kernel *kernel,
                                      evt_target target, evt_binary_format format,
                                      void **data, size_t *size, double *seconds);
/* Frees memory the library handed to the caller (evt_kernel_compile). NULL is a no-op. */
EVT_API void evt_free(void *p);

/* ---- runtime: launching on the GPU --------------------------------- */

/*
 * A launch binds every argument of one kernel by name, then runs it on the
 * caller's current CUDA context and stream (so evt lives inside PyTorch and
 * the like).  The CUDA driver is loaded with dlopen on the first launch; a
 * machine without one gets EVT_ERR_NO_GPU, never a crash.  Kernels are
 * compiled for the current device on first use and cached in memory (per
 * context) and on disk under $EVT_CACHE_DIR, else $XDG_CACHE_HOME/evt, else
 * ~/.cache/evt; EVT_DISABLE_CACHE=1 disables the disk cache.
 *
 * Before launching, evt_launch_run checks that every pointer is set and
 * aligned to its element size, every param without default is set, leading
 * dimensions are >= the contiguous extent, and every buffer's byte size
 * covers the extent the kernel touches; otherwise it returns a clear error
 * (EVT_ERR_UNBOUND, EVT_ERR_BAD_BUFFER, EVT_ERR_INVALID_ARGUMENT) without
 * launching.  Every evt_launch_* call reports on the context of the
 * launch's module (evt_ctx_last_error): its message on failure, "" on
 * success.
 *
 * Aliasing, checked last, before the driver: a buffer a run writes (an
 * output; a caller's workspace) shares no byte with another buffer of the
 * run (an operand, an input, another output), except that an [M, N] output
 * may be exactly an [M, N] input: the same pointer, element type and ld.
 * It is then written in place, each element after the same thread read
 * that element of the input, on every path (fast and guarded, TMA-staged
 * inputs, split-K, persistent schedules).  Buffers only read (operands,
 * inputs) may share memory in any way.  The bytes compared are those the
 * run touches, not the byte sizes given: an [M, N] buffer is its rows of
 * N elements, so matrices side by side in one allocation (column slices
 * of one tensor) do not overlap, while rows of different leading
 * dimensions whose spans interleave count as overlapping; a caller's
 * workspace is all its `bytes`.  Otherwise EVT_ERR_INVALID_ARGUMENT,
 * naming both ("output 'y' overlaps operand 'a'").
 */
typedef struct evt_launch evt_launch;

/* A launch of `kernel`, owned by the caller (evt_launch_destroy); it borrows
 * the module, which must outlive it.  EVT_ERR_INVALID_ARGUMENT for a kernel
 * that is not one of `module`'s. */
EVT_API evt_status evt_launch_create(evt_module *module, const evt_kernel *kernel,
                                     evt_launch **out);
EVT_API void evt_launch_destroy(evt_launch *launch);

/*
 * The GEMM problem: D[M,N] = A[M,K] * B[K,N].  a and b are device pointers
 * with their sizes in bytes; lda/ldb are leading dimensions in elements
 * (the stride between rows of a row-major operand, columns of a col-major one).
 * EVT_ERR_INVALID_ARGUMENT for a size outside 0..2^31-1, or an M x N of more
 * tiles than one grid holds (2^31-1), with the values in the message.  A
 * second call replaces the problem and both operands (the bindings stay,
 * to be checked against the new sizes by the run) and makes the launch
 * one problem again (evt_launch_set_batch); a failed one changes nothing.
 */
EVT_API evt_status evt_launch_set_gemm(evt_launch *launch, long long m, long long n, long long k,
                                       const void *a, long long lda, size_t a_bytes,
                                       const void *b, long long ldb, size_t b_bytes);

/*
 * Batched GEMM: after evt_launch_set_gemm, makes the launch a batch of
 * `count` problems of the same M, N, K, run by one launch of each kernel
 * (the batch's tiles share one grid, every configuration and split-K
 * included).  Problem l reads A at a + l * stride_a and B at
 * b + l * stride_b (elements of the operand's type, in the layout and
 * leading dimension set_gemm gave); a stride of 0 makes one operand that
 * every problem shares (a weight broadcast over the batch).  Each input and
 * output gives its own batch stride (evt_launch_bind_batched); reductions
 * are per problem: a reduction output holds `count` results, its batch
 * stride apart.  count 1 is the plain launch (strides are then ignored).
 *
 * EVT_ERR_INVALID_ARGUMENT, naming the value and changing nothing, for a
 * count outside 1..2^31-1, a negative stride, an operand's stride whose
 * bytes overflow 64 bits (the kernels take them in bytes), a batch whose tiles all
 * together exceed one grid (2^31-1 CTAs), a conv kernel and a count other
 * than 1, or a call before evt_launch_set_gemm.  evt_launch_set_gemm (and
 * set_conv) resets the batch to one problem, since it replaces both
 * operands: set the batch again after it.  Bindings keep their batch
 * strides until bound again.
 *
 * The run checks, besides what it checks of one problem, that every
 * buffer's byte size covers its last problem ((count - 1) * stride
 * elements past the first problem's start, with overflow refused naming
 * the values), that no output's problems overlap each other (a stride of 0,
 * or one smaller than a problem's extent, on an output is
 * EVT_ERR_INVALID_ARGUMENT naming it), and the aliasing rule over every
 * problem's footprint ("Aliasing" above; the in-place case takes the same
 * batch stride too).  A batch stride that breaks the alignment the fast
 * path needs (an operand's not a multiple of 16 bytes) takes the guarded
 * path, as such a leading dimension does, unless the run repacks the
 * operand (a large GEMM whose problems' operands follow each other, or
 * share one: see evt_launch_plan's " repacked"); an epilogue buffer's is
 * handled per tile, as its base pointer's.
 */
EVT_API evt_status evt_launch_set_batch(evt_launch *launch, long long count, long long stride_a,
                                        long long stride_b);

/* A conv2d forward problem: input NHWC [n, h, w, c], filter KRSC [k, r, s, c],
 * output NPQK [n, p, q, k], seen by the epilogue as [M = n*p*q, N = k]. */
typedef struct evt_conv_problem {
    long long n, h, w, c; /* input batch, height, width, channels */
    long long k, r, s;    /* output channels, filter height, filter width */
    int pad_h, pad_w;     /* zero padding on each side */
    int stride_h, stride_w;
    int dil_h, dil_w;     /* dilation (1: dense) */
} evt_conv_problem;

/* The output height p and width q of a conv problem; EVT_ERR_INVALID_ARGUMENT
 * (with no output written) when sizes are negative or the output is empty,
 * or where the dilated filter's extent or the padded input overflows 64 bits. */
EVT_API evt_status evt_conv_output_size(const evt_conv_problem *problem, long long *p,
                                        long long *q);

/*
 * The conv2d_fprop problem and its operands: x (NHWC, dense) and w (KRSC,
 * dense), device pointers with their sizes in bytes.  [M, N] inputs and
 * outputs of the epilogue are NPQK tensors: bind them with ld = k for a
 * dense channels-last tensor.  EVT_ERR_INVALID_ARGUMENT, naming the value,
 * for a problem evt_conv_output_size refuses, an n*h*w, n*p*q, r*s*c, k or c
 * past 2^31-1 (the kernel indexes them in int), or more tiles than one grid
 * holds.  Called again, or after a failure, as evt_launch_set_gemm.
 */
EVT_API evt_status evt_launch_set_conv(evt_launch *launch, const evt_conv_problem *problem,
                                       const void *x, size_t x_bytes, const void *w,
                                       size_t w_bytes);

/*
 * Binds input or output `name` of the epilogue to device memory of `bytes`
 * bytes.  `ld` is the leading dimension (elements between rows) of an
 * [M, N] buffer and is ignored for other shapes (pass 0).  Reduction
 * outputs need no zeroing: they hold the complete result after the launch.
 * The values are checked by the run; here EVT_ERR_NOT_FOUND for a name the
 * epilogue has no input or output of, EVT_ERR_INVALID_ARGUMENT for a
 * param's name.
 *
 * Binding a name again replaces its binding whole (pointer, bytes and ld)
 * and changes nothing else: the other bindings, the params, the problem,
 * the tuning and the workspace stay as they were.  That is how one launch
 * runs on new buffers: rebind what changed, run again.  A failed call
 * changes nothing.
 */
EVT_API evt_status evt_launch_bind(evt_launch *launch, const char *name, void *ptr,
                                   size_t bytes, long long ld);
/*
 * evt_launch_bind plus the buffer's batch stride (evt_launch_set_batch):
 * problem l of a batch reads or writes the buffer at ptr + batch_stride * l
 * elements; 0 makes one buffer that every problem shares (a bias, a scale),
 * which only inputs may be in a batch of more than one problem.  `bytes`
 * covers every problem's part.  evt_launch_bind is this with batch_stride
 * 0; a plain launch (count 1) ignores it.  EVT_ERR_INVALID_ARGUMENT for a
 * negative stride; otherwise as evt_launch_bind.
 */
EVT_API evt_status evt_launch_bind_batched(evt_launch *launch, const char *name, void *ptr,
                                           size_t bytes, long long ld, long long batch_stride);
/* Sets param `name` (converted to the param's declared element type),
 * replacing the value set before; EVT_ERR_NOT_FOUND for a name the epilogue
 * has no param of. */
EVT_API evt_status evt_launch_set_param(evt_launch *launch, const char *name, float value);

/*
 * Validates, compiles or fetches the kernel for the current device, and
 * launches it on `stream` (a CUstream; NULL for the legacy default stream).
 * Asynchronous: returns once the work is enqueued.  A launch owns a device
 * workspace (reduction partials, split-K partial tiles) that its runs use:
 * runs of one launch must not overlap on two streams (use a launch per
 * stream), and a workspace that grows is freed with cuMemFree, which waits
 * for the work using it.
 *
 * CUDA graph capture of `stream`: a run enqueues kernel launches only.  One
 * that needs more workspace than the launch has would allocate it, which
 * capture forbids (EVT_ERR_UNSUPPORTED, nothing enqueued): run the launch
 * once before capturing, as bound then, or give the run a workspace
 * (evt_launch_run_with_workspace).  The graph uses the launch's own
 * workspace: keep the launch alive, and its workspace from growing, while
 * the graph may replay.  A first run under capture compiles its kernel (on
 * the host) and loads it in relaxed capture mode; a launch destroyed while
 * a stream captures (another launch's, say) frees its workspace in relaxed
 * mode too, so that capture goes on.
 */
EVT_API evt_status evt_launch_run(evt_launch *launch, void *stream);

/*
 * The bytes of device workspace a run would need as the launch is bound now,
 * on the current device (0: none).  Validates and plans as evt_launch_run
 * does, with its errors, and enqueues nothing.
 */
EVT_API evt_status evt_launch_workspace_size(evt_launch *launch, size_t *bytes);

/*
 * evt_launch_run in the caller's workspace: `bytes` of device memory at
 * `workspace` (aligned to 256 bytes; NULL when bytes is 0; sharing no byte
 * with the run's buffers, EVT_ERR_INVALID_ARGUMENT), which the run
 * uses instead of the launch's own, so that it allocates nothing.  The
 * caller keeps it from other use until the work enqueued has finished; the
 * contents need no initialising and are not kept.  EVT_ERR_BAD_BUFFER,
 * before anything is enqueued, when it is misaligned or smaller than
 * evt_launch_workspace_size says.  With memory from a stream-ordered
 * allocator (PyTorch's), runs on several streams and under CUDA graph
 * capture are safe.
 */
EVT_API evt_status evt_launch_run_with_workspace(evt_launch *launch, void *stream,
                                                 void *workspace, size_t bytes);

/*
 * Replaces the launch's tuning (which starts as its context's at
 * evt_launch_create); NULL returns to the planner's choices.  Errors as
 * evt_ctx_set_tuning's; whether the configuration can run the kernel on the
 * GPU is checked by evt_launch_run (EVT_ERR_UNSUPPORTED).
 */
EVT_API evt_status evt_launch_set_tuning(evt_launch *launch, const evt_tuning *tuning);

/*
 * What the launch's last successful evt_launch_run enqueued, one line: the
 * target, the tile configuration by name, whether it ran the aligned fast
 * path or the guarded one, TMA loads, the grid and the split-K factor, e.g.
 * "sm_90a sm90_pp2_128x128x64_s4 fast tma grid 132 splits 1"; " cluster-sum"
 * where split-K's shares (or a persistent plan's tail's) ran as thread-block
 * clusters that summed them in shared memory, with no second kernel (sm_90a);
 * " direct-epilogue" where the sm_90a producer/consumer tile's consumers ran
 * the epilogue on their own accumulators, not through shared memory;
 * " repacked a b" at the end where A's and B's rows, not 16-byte aligned,
 * were first copied into aligned ones in the workspace.  NULL before the first run.  Formatted when called
 * (a run only records it), into a buffer owned by the launch: valid until
 * the next evt_launch_plan or destroy.  For tuning and bug reports.
 */
EVT_API const char *evt_launch_plan(evt_launch *launch);

/*
 * Times evt_launch_run on `stream`: `warmup` untimed runs, then `reps`
 * runs each between CUDA events; *median_ms receives the median.  Blocks.
 * reps >= 1 and warmup >= 0 (with 0, one untimed run all the same, so that
 * compiling and loading stay outside the timing).
 */
EVT_API evt_status evt_launch_benchmark(evt_launch *launch, void *stream, int warmup, int reps,
                                        double *median_ms);

/*
 * Measured selection.  evt_launch_tune times, on `stream` and the launch's
 * bound buffers (which it overwrites, outputs and reductions included), the
 * plans the planner admits for the bound problem on the current device:
 * every tile configuration that can run the kernel (but the
 * warp-specialized ones, forced use only while compute-sanitizer's
 * racecheck report on them is open: docs/runtime.md), with the planner's
 * split-K and, where the problem has few tiles for the device, other
 * split-K factors.  Their kernels are compiled first, on `threads` threads,
 * except those the kernel cache holds.  The heuristic's plan is timed
 * first, then the others while time remains: each with warm-up runs and the
 * median of several samples between CUDA events, each sample a CUDA graph
 * of several runs replayed on a stream of the library's own (the GPU's
 * time of a run, without the host's launch of it; one run a sample where
 * the driver has no graphs or `stream` is being captured).  The fastest is recorded in
 * the tuning database beside the kernel cache (tuning.tsv in the cache
 * folder, see above; in memory only when the disk cache is off), keyed by
 * the kernel (its IR and operands), the problem's exact sizes and
 * alignment, the device's name and SM count and the library's version.
 * From then on every launch of that kernel, problem and device made by a
 * context (this one at once, others when created) runs the record without
 * timing anything, unless its tuning forces a configuration, split-K or
 * row group, or sets ignore_records; evt_launch_plan ends in " tuned" then.
 * Blocks until done.  Errors as evt_launch_run's.
 */
typedef struct evt_tune_options {
    double max_seconds; /* bound on the call, compiles included: 0 to 1e9; 0: 10 */
    int threads;        /* compile threads; 0: the CPUs online (at most 64) */
    int warmup, reps;   /* per plan: runs, samples; 0: 2 and up to 20 (fewer for slow plans) */
    int dry_run;        /* nonzero: time, but record nothing */
} evt_tune_options;

typedef struct evt_tune_entry {
    char config[48];
    int split_k;  /* the plan's split-K factor (1: none) */
    double ms;    /* median; < 0: not timed (the time ran out) */
    int stream_k; /* 1: the plan runs stream-K (evt_tuning.stream_k) */
} evt_tune_entry;

enum { EVT_TUNE_MAX_ENTRIES = 96 };

typedef struct evt_tune_result {
    evt_tune_entry best;      /* the fastest plan timed */
    evt_tune_entry heuristic; /* the heuristic's plan (timed first) */
    int candidates;           /* plans the planner admits */
    int timed;                /* of them, timed before max_seconds ran out */
    int compiled;             /* kernels NVRTC had to compile (the cache held the rest) */
    double compile_seconds;   /* generating and compiling */
    double seconds;           /* the whole call */
    int recorded;             /* 1: the choice went into the database (and its file,
                                 where the disk cache is on); 2: into the database in
                                 memory only, its file could not be written (other
                                 processes will not see it); 0: nothing (dry_run) */
    int nentries;             /* every plan, in the order timed: the first
                                 EVT_TUNE_MAX_ENTRIES of `candidates` */
    evt_tune_entry entries[EVT_TUNE_MAX_ENTRIES];
} evt_tune_result;

EVT_API evt_status evt_launch_tune(evt_launch *launch, void *stream,
                                   const evt_tune_options *options, evt_tune_result *result);
/* The tuning database's file ("" when the disk cache is off) into path. */
EVT_API void evt_tuning_db_path(char *path, size_t n);

/* Device memory for programs that have no CUDA runtime of their own (evtc,
 * tests): all on the current context, synchronous, errors as above. */
EVT_API evt_status evt_device_alloc(evt_ctx *ctx, size_t bytes, void **ptr);
EVT_API evt_status evt_device_free(evt_ctx *ctx, void *ptr);
EVT_API evt_status evt_device_copy_to(evt_ctx *ctx, void *dst, const void *host, size_t bytes);
EVT_API evt_status evt_device_copy_from(evt_ctx *ctx, void *host, const void *src, size_t bytes);
EVT_API evt_status evt_device_synchronize(evt_ctx *ctx);
/* The current device's target and name ("NVIDIA H200"); EVT_ERR_NO_GPU without one. */
EVT_API evt_status evt_device_target(evt_ctx *ctx, evt_target *target, char *name, size_t name_len);

/* ---- reference interpreter ------------------------------------------ */

/*
 * The CPU reference that GPU results are checked against.  An evt_interp
 * evaluates one epilogue on host arrays and mirrors evt_launch: bind inputs
 * and outputs by name, set params, set the accumulator, run.  Two modes:
 * EVT_INTERP_F32 performs exactly the f32 operations of the generated
 * kernels (kernels/common/evt_math.h, shared with them), so every non-NaN result
 * is bit-identical to the GPU's except where a reduction sums in another
 * order; EVT_INTERP_F64 does every operation in double with libm, for
 * error bounds.  Reductions add in index order (docs/interpreter.md).
 * Nothing is kept between runs; one evt_interp must not be used by two
 * threads at once.
 */
typedef enum evt_interp_mode {
    EVT_INTERP_F32, /* the GPU's f32 operations, bit for bit */
    EVT_INTERP_F64  /* double precision and libm, for error bounds */
} evt_interp_mode;

typedef struct evt_interp evt_interp;

/* An interpreter for `epilogue` with every param at its default, owned by the
 * caller (evt_interp_destroy); it borrows the epilogue, whose module must
 * outlive it.  EVT_ERR_INVALID_ARGUMENT for NULL arguments. */
EVT_API evt_status evt_interp_create(const evt_epilogue *epilogue, evt_interp **out);
/* Destroys an interpreter (not the arrays bound to it).  NULL is a no-op. */
EVT_API void evt_interp_destroy(evt_interp *interp);
/* Why the last call on `interp` failed, or "" after a success and before
 * any call (see "Errors" at the top); owned by the interpreter, valid until
 * its next call. */
EVT_API const char *evt_interp_last_error(const evt_interp *interp);

/*
 * Binds input or output `name` to host memory of `bytes` bytes holding the
 * declared element type: an [M, N] array is row-major with `ld` elements
 * between rows (ld >= N), [M] and [N] arrays are dense and a scalar is one
 * element (ld ignored).  The caller keeps ownership; the memory must stay
 * valid until the last evt_interp_run.  EVT_ERR_NOT_FOUND for an unknown
 * name, EVT_ERR_INVALID_ARGUMENT for a param's name.  As with evt_launch_bind,
 * binding a name again replaces its binding whole (pointer, bytes, ld, and
 * for an output whether it receives doubles) and changes nothing else; a
 * failed call changes nothing.
 */
EVT_API evt_status evt_interp_bind(evt_interp *interp, const char *name, void *ptr,
                                   size_t bytes, long long ld);
/* Binds output `name` to doubles that receive its values before conversion
 * to the element type (the f32 value widened, in f32 mode); otherwise as
 * evt_interp_bind. */
EVT_API evt_status evt_interp_bind_f64(evt_interp *interp, const char *name, double *ptr,
                                       size_t bytes, long long ld);
/*
 * Binds, for output `name`, a reduce_sum, doubles that receive each of its
 * results' magnitude: the sum of the absolute values of the terms it adds
 * ([M], [N] or one result, `bytes` covering them; NaN or inf where a term
 * is).  A sum's rounding error scales with that, not with the sum, which
 * cancellation can make as small as it likes: evt_check_sums judges a sum
 * by it.  NULL unbinds.  EVT_ERR_INVALID_ARGUMENT for an output that is
 * not a reduce_sum, EVT_ERR_NOT_FOUND for no output of that name; the size
 * is checked by evt_interp_run (EVT_ERR_BAD_BUFFER), as an output's is.
 */
EVT_API evt_status evt_interp_bind_magnitude(evt_interp *interp, const char *name, double *ptr,
                                             size_t bytes);
/* Sets param `name`; EVT_ERR_NOT_FOUND if the epilogue has none of that name. */
EVT_API evt_status evt_interp_set_param(evt_interp *interp, const char *name, float value);
/* Sets the problem size M x N and the f32 accumulator: `bytes` bytes at
 * acc, row-major with `ld` elements between rows (ld >= N), of which a run
 * reads (M - 1) * ld + N floats (none when M or N is 0, and acc may then be
 * NULL).  EVT_ERR_INVALID_ARGUMENT for a negative size, ld < N or a NULL acc
 * of M x N > 0; the byte size is checked by evt_interp_run.  The caller
 * keeps ownership of acc. */
EVT_API evt_status evt_interp_set_acc(evt_interp *interp, long long m, long long n,
                                      const float *acc, size_t bytes, long long ld);
/* As evt_interp_set_acc with an f64 accumulator (from evt_reference_gemm),
 * `bytes` covering (M - 1) * ld + N doubles: f64 mode uses it as it is, f32
 * mode rounds each element to f32 first. */
EVT_API evt_status evt_interp_set_acc_f64(evt_interp *interp, long long m, long long n,
                                          const double *acc, size_t bytes, long long ld);
/*
 * Evaluates the epilogue and writes every output: element-wise outputs
 * converted to their element type (round to nearest even; NaN stored as a
 * canonical NaN), reductions computed on the values before conversion and
 * then converted.  Checks first, writing nothing on failure: the
 * accumulator is set (EVT_ERR_UNBOUND) and its bytes cover the (M - 1) *
 * ld + N elements read (EVT_ERR_BAD_BUFFER, naming the sizes), every param
 * without default is set (EVT_ERR_UNBOUND, naming it), every input and
 * output is bound and non-NULL (EVT_ERR_UNBOUND), leading dimensions are
 * >= N (EVT_ERR_INVALID_ARGUMENT), every buffer covers its extent
 * (EVT_ERR_BAD_BUFFER), and the buffers follow evt_launch's aliasing rule
 * (EVT_ERR_INVALID_ARGUMENT, naming both), the accumulator counting as an
 * operand: an [M, N] output may be exactly an [M, N] input, written in
 * place (each chunk of a row is read whole before any of it is stored),
 * but not when bound with evt_interp_bind_f64, its doubles not being the
 * input's element type.  M or N may be 0: reductions then hold their
 * identity (0, -inf for max, +inf for min).
 */
EVT_API evt_status evt_interp_run(evt_interp *interp, evt_interp_mode mode);

/*
 * The reference GEMM D = A * B in f64: each D[i][j] is the sum over p in
 * order of the exact products A[i][p] * B[p][j].  A is M x K, B is K x N,
 * both of `elem` (EVT_F16, EVT_BF16, EVT_F32, EVT_E4M3 or EVT_E5M2), row- or column-major with
 * leading dimensions lda, ldb (elements between rows of a row-major
 * matrix, columns of a column-major one).  D is row-major with ldd >= N,
 * written as doubles to d and/or rounded to f32 into d32 (either may be
 * NULL, not both).  The caller owns every array.  EVT_ERR_INVALID_ARGUMENT
 * for a bad element type, layout or leading dimension.
 */
EVT_API evt_status evt_reference_gemm(long long m, long long n, long long k, evt_elem elem,
                                      const void *a, evt_layout layout_a, long long lda,
                                      const void *b, evt_layout layout_b, long long ldb,
                                      double *d, float *d32, long long ldd);
/* As evt_reference_gemm with A of elem_a and B of elem_b (fp8 GEMMs mix
 * e4m3 and e5m2); any two of the types evt_reference_gemm takes. */
EVT_API evt_status evt_reference_gemm_mixed(long long m, long long n, long long k, evt_elem elem_a,
                                            const void *a, evt_layout layout_a, long long lda,
                                            evt_elem elem_b, const void *b, evt_layout layout_b,
                                            long long ldb, double *d, float *d32, long long ldd);
/*
 * The reference conv2d forward pass in f64 (cross-correlation, zero
 * padding): x is NHWC [n, h, w, c] and w is KRSC [k, r, s, c], both dense
 * of `elem` (EVT_F16, EVT_BF16 or EVT_F32); the output NPQK is written as
 * the epilogue sees it, [M = n*p*q, N = k] row-major with ldy >= k, to y
 * (doubles) and/or y32 (rounded to f32), either may be NULL but not both.
 * y[n,p,q,k] = sum over r, s, c in that order of
 * x[n, p*stride_h - pad_h + r*dil_h, q*stride_w - pad_w + s*dil_w, c] * w[k,r,s,c].
 * The caller owns every array.
 */
EVT_API evt_status evt_reference_conv2d(const evt_conv_problem *problem, evt_elem elem,
                                        const void *x, const void *w, double *y, float *y32,
                                        long long ldy);

/* Converts n values between f32 and element type `elem`, as the GPU's loads
 * and stores do (evt_math.h): round to nearest even, f16/bf16 overflow to
 * +-inf, i8/i32/e4m3/e5m2 saturating, NaN kept (canonical) or 0 for integers.
 * The caller owns both arrays. */
EVT_API evt_status evt_convert_from_f32(evt_elem elem, const float *src, void *dst, size_t n);
EVT_API evt_status evt_convert_to_f32(evt_elem elem, const void *src, float *dst, size_t n);
/* As above from and to f64: doubles are rounded once, directly to the
 * element type; loads are exact (i32 too). */
EVT_API evt_status evt_convert_from_f64(evt_elem elem, const double *src, void *dst, size_t n);
EVT_API evt_status evt_convert_to_f64(evt_elem elem, const void *src, double *dst, size_t n);

/*
 * Checking GPU results against the reference: the one verification policy
 * of `evtc run --check`, the Python binding (evt.check), the tests and the
 * benchmarks (docs/runtime.md has the reasons).  Values stored in an
 * output's element type ("got") are compared with the f64 reference
 * rounded to that type ("want"):
 *   - a finite pair passes when |got - want| / max(|want|, floor) <= tol,
 *     floor being the root mean square of the finite wants (a value near
 *     zero after cancellation is judged against the output's scale); for
 *     i8 and i32 when they are at most 1 apart instead;
 *   - NaN or +-inf on either side passes only when the other side is the
 *     same (NaN matches NaN, +inf +inf); +0 and -0 are equal.
 * Pure functions: no state, nothing printed.
 */

/* Up to this many multiply-adds (M*N*K) evt_check_rows gives every row. */
#define EVT_CHECK_SAMPLE_MACS (1LL << 32)

/* The outcome of comparing `checked` values. */
typedef struct evt_check_verdict {
    long long checked;     /* values compared */
    long long bad;         /* finite pairs off by more than the tolerance */
    long long special_bad; /* NaN or +-inf on one side, something else on the other */
    long long first_bad;   /* index of the first pair counted in bad or special_bad; -1 if none */
    double first_got;      /* that pair's stored value and rounded reference, as doubles */
    double first_want;
    double max_err;        /* largest |got - want| / max(|want|, floor) over finite pairs */
    long long max_ulp;     /* largest distance in representable values over finite pairs */
    double floor;          /* the floor of the relative error (at least DBL_MIN) */
    double tol;            /* evt_check_tolerance(elem, reduce) */
    int passed;            /* 1 when bad and special_bad are both 0 */
} evt_check_verdict;

/*
 * The largest relative error an output of `elem` passes with: f32 1e-4,
 * f16 2e-3, bf16 1.6e-2, e4m3 0.25, e5m2 0.5 (about 2 ulp; f32 the
 * accumulation order of K products), at least 1e-3 for EVT_REDUCE_SUM
 * (the order of M*N more f32 additions); 0 for i8 and i32, which are
 * judged in ulps (within 1), but 1e-3 for their sums, f32 sums stored as
 * integers, which pass within 1 or within that.
 */
EVT_API double evt_check_tolerance(evt_elem elem, evt_reduce reduce);
/* The distance between two stored values of `elem` in representable values
 * (+0 and -0 are 0 apart; meaningless for NaN) into *out.  The caller owns
 * every pointer. */
EVT_API evt_status evt_check_ulps(evt_elem elem, const void *a, const void *b, long long *out);
/*
 * Compares `count` values stored densely in `got` (element type `elem`)
 * with the unrounded f64 reference `want`, as the output of a reduction
 * `reduce` (EVT_REDUCE_NONE for an element-wise output), and fills
 * *verdict (zeroed on failure).  EVT_ERR_INVALID_ARGUMENT for an unknown
 * element type or reduction, or NULL arrays with count > 0.  Allocates
 * nothing; the caller owns every array and the verdict.
 */
EVT_API evt_status evt_check_values(evt_elem elem, evt_reduce reduce, const void *got,
                                    const double *want, size_t count,
                                    evt_check_verdict *verdict);
/*
 * evt_check_values, except that an element off also passes where it is
 * one that lo's and hi's references allow: the references of the
 * accumulator moved down and up by the rounding an f32 accumulation may
 * carry (evtc run --check: its f32 tolerance, 1e-4, of the sum of the
 * products' magnitudes).  An element off as NaN or an infinity (it or its
 * reference is one, and they differ) passes where it meets lo's or hi's
 * reference as evt_check_values would: relu(acc + b) * m with m = -inf is
 * -inf or NaN by the sign of acc + b, and where that sum is within the
 * accumulation's rounding of 0 either is right.  A finite element off
 * passes where it lies between the least and the greatest of the three
 * rounded references, widened by the tolerance (by 1 for integers): a
 * chain of builtins may magnify the accumulation's rounding past the
 * output type's tolerance.  *explained (NULL: not reported) receives how
 * many elements passed so.  Errors as evt_check_values, and for NULL lo
 * or hi with count > 0.
 */
EVT_API evt_status evt_check_values_bracketed(evt_elem elem, evt_reduce reduce, const void *got,
                                              const double *want, const double *lo, const double *hi,
                                              size_t count, evt_check_verdict *verdict,
                                              long long *explained);
/*
 * evt_check_values for the `count` results of a reduce_sum, each also
 * judged against its magnitude (evt_interp_bind_magnitude): a result's
 * relative error is taken against the largest of its reference, the
 * results' floor and 2^-12 of its magnitude, so that a sum whose terms
 * cancel passes with the rounding an f32 sum of those terms may carry
 * (a tile's or row's terms missing or added twice still fail it).
 * `magnitude` NULL: evt_check_values itself.  Errors as evt_check_values.
 */
EVT_API evt_status evt_check_sums(evt_elem elem, const void *got, const double *want,
                                  const double *magnitude, size_t count, evt_check_verdict *verdict);
/* 1 when an output of `epilogue` is a reduction over M (an [N] or scalar
 * output with reduce != EVT_REDUCE_NONE), whose reference needs every row
 * of the problem; else 0 (and for NULL).  Reads the epilogue only. */
EVT_API int evt_check_needs_every_row(const evt_epilogue *epilogue);
/*
 * The rows of an M x N problem with K multiply-adds per element that a
 * check computes the reference for, in increasing order, into rows (room
 * for m entries, owned by the caller); *count receives how many.  Rows go
 * in blocks of `block` (1 for a GEMM; P*Q, one image, for a conv; m must
 * be a multiple).  Every row when `every_row` is set (see
 * evt_check_needs_every_row) or M*N*K is at most EVT_CHECK_SAMPLE_MACS;
 * else a sample within that budget: the first block, the last and others
 * drawn from `seed` (the same seed gives the same rows), at least 16 rows
 * and 2 blocks.  EVT_ERR_INVALID_ARGUMENT for negative sizes, block < 1,
 * or m not a multiple of block.
 */
EVT_API evt_status evt_check_rows(long long m, long long n, long long k, long long block,
                                  int every_row, unsigned long long seed, long long *rows,
                                  long long *count);

#ifdef __cplusplus
}
#endif

#endif /* EVT_EVT_H */
