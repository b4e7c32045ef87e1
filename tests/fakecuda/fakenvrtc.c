/*
 * fakenvrtc.c - the NVRTC entry points libevt loads, "compiling" in
 * microseconds: the image is PTX that declares each `extern "C"
 * __global__` entry point of the source with its parameters and has no
 * instructions, which is all the fake driver reads.
 *
 * Parameter sizes come from the generated CUDA itself: pointers are 8
 * bytes, int and float 4, evt_tma_maps 384 (64-aligned, kernels/sm90/
 * tma.cuh), and the argument struct the size of its `static_assert(sizeof
 * (NAME) == SIZE, ...)` (codegen/emit_cuda.c writes one).  A parameter it
 * cannot size fails the compile, with the reason in the log.
 */
#define _GNU_SOURCE
#include "fakecuda_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVRTC_API __attribute__((visibility("default")))

enum {
    NVRTC_SUCCESS = 0,
    NVRTC_ERROR_OUT_OF_MEMORY = 1,
    NVRTC_ERROR_INVALID_INPUT = 3,
    NVRTC_ERROR_INVALID_PROGRAM = 4,
    NVRTC_ERROR_INVALID_OPTION = 5,
    NVRTC_ERROR_COMPILATION = 6
};

typedef struct fake_program {
    char *source;
    char *image; /* the PTX, after a successful compile */
    char *log;
    int cubin;   /* compiled for sm_XX (a "cubin"), not compute_XX */
} fake_program;

/* A growable string; `failed` once an allocation fails. */
typedef struct text {
    char *s;
    size_t len, cap;
    int failed;
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        const int n = t->failed ? 0 : vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (t->failed || n < 0)
            return;
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        const size_t cap = (t->cap + (size_t)n + 1) * 2;
        char *grown = realloc(t->s, cap);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->s = grown;
        t->cap = cap;
    }
}

static int is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The size in `static_assert(sizeof(TYPE) == SIZE` for type[0..n); 0 if none. */
static const char *skip_ws(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

static size_t struct_size(const char *src, const char *type, size_t n)
{
    for (const char *p = src; (p = strstr(p, "static_assert(sizeof(")) != NULL;) {
        p += 21;
        if (strncmp(p, type, n) == 0 && p[n] == ')') {
            const char *eq = strstr(p + n, "==");
            return eq ? strtoul(eq + 2, NULL, 10) : 0;
        }
    }
    return 0;
}

/* Appends one parameter, the text [p, end), as PTX; 0 (with the reason in
 * *log) when it cannot be sized. */
static int param(const char *src, const char *p, const char *end, const char *entry, int i, text *ptx,
                 text *log)
{
    while (p < end && isspace((unsigned char)*p))
        p++;
    while (end > p && isspace((unsigned char)end[-1]))
        end--;
    if (memchr(p, '*', (size_t)(end - p))) {
        put(ptx, "%s\t.param .u64 %s_param_%d", i ? ",\n" : "", entry, i);
        return 1;
    }
    /* the type is the identifier before the name (the last one) */
    const char *name = end;
    while (name > p && is_ident(name[-1]))
        name--;
    const char *type_end = name;
    while (type_end > p && !is_ident(type_end[-1]))
        type_end--;
    const char *type = type_end;
    while (type > p && is_ident(type[-1]))
        type--;
    const size_t n = (size_t)(type_end - type);
    const char *sep = i ? ",\n" : "";
    if (n == 3 && strncmp(type, "int", 3) == 0)
        put(ptx, "%s\t.param .u32 %s_param_%d", sep, entry, i);
    else if (n == 5 && strncmp(type, "float", 5) == 0)
        put(ptx, "%s\t.param .f32 %s_param_%d", sep, entry, i);
    else if (n == 7 && strncmp(type, "evt_i64", 7) == 0) /* the repack's extents */
        put(ptx, "%s\t.param .u64 %s_param_%d", sep, entry, i);
    else if (n == 12 && strncmp(type, "evt_tma_maps", 12) == 0)
        put(ptx, "%s\t.param .align 64 .b8 %s_param_%d[384]", sep, entry, i);
    else if (n == 12 && strncmp(type, "evt_stream_k", 12) == 0) /* kernels/sched/tiles.cuh */
        put(ptx, "%s\t.param .align 8 .b8 %s_param_%d[32]", sep, entry, i);
    else {
        const size_t size = struct_size(src, type, n);
        if (!size) {
            put(log, "fakenvrtc: cannot size parameter '%.*s' of %s\n", (int)(end - p), p, entry);
            return 0;
        }
        put(ptx, "%s\t.param .align 8 .b8 %s_param_%d[%zu]", sep, entry, i, size);
    }
    return 1;
}

/* The PTX image of src for `arch` (sm_90a), or 0 with the reason in *log. */
static int make_image(const char *src, const char *arch, text *ptx, text *log)
{
    put(ptx, "// fakenvrtc: entry points only\n.version 9.0\n.target %s\n.address_size 64\n\n", arch);
    static const char intro[] = "extern \"C\" __global__ void";
    for (const char *p = src; (p = strstr(p, intro)) != NULL;) {
        p += sizeof intro - 1;
        while (isspace((unsigned char)*p))
            p++;
        /* attributes: __launch_bounds__(...), __cluster_dims__(x, y, z) */
        long cluster = 0;
        for (;;) {
            const int bounds = strncmp(p, "__launch_bounds__", 17) == 0;
            if (!bounds && strncmp(p, "__cluster_dims__", 16) != 0)
                break;
            p += bounds ? 17 : 16;
            if (!bounds) {
                long x, y = 1, z = 1;
                char *q;
                x = strtol(skip_ws(p) + 1, &q, 10);
                if (*skip_ws(q) == ',')
                    y = strtol(skip_ws(q) + 1, &q, 10);
                if (*skip_ws(q) == ',')
                    z = strtol(skip_ws(q) + 1, &q, 10);
                cluster = x * y * z;
            }
            int depth = 0;
            for (; *p; p++)
                if (*p == '(')
                    depth++;
                else if (*p == ')' && --depth == 0) {
                    p++;
                    break;
                }
            while (isspace((unsigned char)*p))
                p++;
        }
        const char *name = p;
        while (is_ident(*p))
            p++;
        char entry[256];
        snprintf(entry, sizeof entry, "%.*s", (int)(p - name), name);
        while (isspace((unsigned char)*p))
            p++;
        if (!entry[0] || *p != '(') {
            put(log, "fakenvrtc: cannot read the entry point at '%.40s'\n", name);
            return 0;
        }
        put(ptx, ".visible .entry %s(\n", entry);
        int depth = 0, i = 0;
        const char *start = ++p;
        for (; *p && (depth > 0 || *p != ')'); p++) {
            depth += *p == '(' || *p == '<';
            depth -= *p == ')' || *p == '>';
            if (depth == 0 && *p == ',') {
                if (!param(src, start, p, entry, i++, ptx, log))
                    return 0;
                start = p + 1;
            }
        }
        if (p > start && !param(src, start, p, entry, i, ptx, log))
            return 0;
        put(ptx, "\n)\n");
        if (cluster > 0) /* as NVRTC writes __cluster_dims__ */
            put(ptx, ".explicitcluster\n.reqnctapercluster %ld, 1, 1\n", cluster);
        put(ptx, "{\n\tret;\n}\n\n");
    }
    return !ptx->failed && !log->failed;
}

NVRTC_API const char *nvrtcGetErrorString(int r)
{
    switch (r) {
    case NVRTC_SUCCESS: return "NVRTC_SUCCESS";
    case NVRTC_ERROR_OUT_OF_MEMORY: return "NVRTC_ERROR_OUT_OF_MEMORY";
    case NVRTC_ERROR_INVALID_INPUT: return "NVRTC_ERROR_INVALID_INPUT";
    case NVRTC_ERROR_INVALID_PROGRAM: return "NVRTC_ERROR_INVALID_PROGRAM";
    case NVRTC_ERROR_INVALID_OPTION: return "NVRTC_ERROR_INVALID_OPTION";
    case NVRTC_ERROR_COMPILATION: return "NVRTC_ERROR_COMPILATION";
    }
    return "NVRTC_ERROR (fake)";
}

#define ENTER(name)                                                                             \
    int early_;                                                                                 \
    if (fk_enter_nvrtc(name, &early_))                                                          \
        return early_

static int leave(int r)
{
    fk_leave_nvrtc();
    return r;
}

NVRTC_API int nvrtcVersion(int *major, int *minor)
{
    ENTER("nvrtcVersion");
    if (!major || !minor)
        return leave(NVRTC_ERROR_INVALID_INPUT);
    /* CUDA 13, which libevt requires, in a minor version no NVRTC has:
     * the version is part of the kernel cache's key, so an image of the
     * fake's can never be taken for a real cubin in a disk cache */
    *major = 13;
    *minor = 99;
    return leave(NVRTC_SUCCESS);
}

NVRTC_API int nvrtcCreateProgram(fake_program **prog, const char *src, const char *name, int nheaders,
                                 const char *const *headers, const char *const *include_names)
{
    ENTER("nvrtcCreateProgram");
    (void)name;
    (void)headers;
    (void)include_names;
    if (!prog || !src || nheaders < 0)
        return leave(NVRTC_ERROR_INVALID_INPUT);
    fake_program *p = calloc(1, sizeof *p);
    if (!p || !(p->source = strdup(src))) {
        free(p);
        return leave(NVRTC_ERROR_OUT_OF_MEMORY);
    }
    *prog = p;
    return leave(NVRTC_SUCCESS);
}

NVRTC_API int nvrtcDestroyProgram(fake_program **prog)
{
    ENTER("nvrtcDestroyProgram");
    if (!prog || !*prog)
        return leave(NVRTC_ERROR_INVALID_PROGRAM);
    free((*prog)->source);
    free((*prog)->image);
    free((*prog)->log);
    free(*prog);
    *prog = NULL;
    return leave(NVRTC_SUCCESS);
}

NVRTC_API int nvrtcCompileProgram(fake_program *prog, int nopts, const char *const *opts)
{
    ENTER("nvrtcCompileProgram");
    if (!prog)
        return leave(NVRTC_ERROR_INVALID_PROGRAM);
    char arch[32] = "";
    for (int i = 0; i < nopts; i++) {
        const char *o = opts[i];
        if (strncmp(o, "--gpu-architecture=", 19) == 0)
            o += 19;
        else if (strncmp(o, "-arch=", 6) == 0)
            o += 6;
        else
            continue;
        prog->cubin = strncmp(o, "sm_", 3) == 0;
        snprintf(arch, sizeof arch, "sm_%s", o + (prog->cubin ? 3 : strncmp(o, "compute_", 8) == 0 ? 8 : 0));
    }
    if (!arch[0])
        return leave(NVRTC_ERROR_INVALID_OPTION);
    text ptx = {0}, log = {0};
    const int ok = make_image(prog->source, arch, &ptx, &log);
    free(prog->image);
    free(prog->log);
    prog->image = ok ? ptx.s : NULL;
    prog->log = log.s;
    if (!ok)
        free(ptx.s);
    fk_count_compile();
    return leave(ok ? NVRTC_SUCCESS : ptx.failed || log.failed ? NVRTC_ERROR_OUT_OF_MEMORY : NVRTC_ERROR_COMPILATION);
}

NVRTC_API int nvrtcGetProgramLogSize(fake_program *prog, size_t *size)
{
    ENTER("nvrtcGetProgramLogSize");
    if (!prog || !size)
        return leave(NVRTC_ERROR_INVALID_INPUT);
    *size = (prog->log ? strlen(prog->log) : 0) + 1;
    return leave(NVRTC_SUCCESS);
}

NVRTC_API int nvrtcGetProgramLog(fake_program *prog, char *log)
{
    ENTER("nvrtcGetProgramLog");
    if (!prog || !log)
        return leave(NVRTC_ERROR_INVALID_INPUT);
    strcpy(log, prog->log ? prog->log : "");
    return leave(NVRTC_SUCCESS);
}

/* The image as PTX or as a "cubin" (the same text: the fake driver reads
 * both), after a successful compile for a target that gives it. */
static int image_size(fake_program *prog, int cubin, size_t *size)
{
    if (!prog || !size || !prog->image || (cubin && !prog->cubin))
        return NVRTC_ERROR_INVALID_INPUT;
    *size = strlen(prog->image) + 1;
    return NVRTC_SUCCESS;
}

static int image(fake_program *prog, int cubin, char *out)
{
    size_t n;
    const int r = out ? image_size(prog, cubin, &n) : NVRTC_ERROR_INVALID_INPUT;
    if (r == NVRTC_SUCCESS)
        memcpy(out, prog->image, n);
    return r;
}

NVRTC_API int nvrtcGetPTXSize(fake_program *prog, size_t *size)
{
    ENTER("nvrtcGetPTXSize");
    return leave(image_size(prog, 0, size));
}

NVRTC_API int nvrtcGetPTX(fake_program *prog, char *ptx)
{
    ENTER("nvrtcGetPTX");
    return leave(image(prog, 0, ptx));
}

NVRTC_API int nvrtcGetCUBINSize(fake_program *prog, size_t *size)
{
    ENTER("nvrtcGetCUBINSize");
    return leave(image_size(prog, 1, size));
}

NVRTC_API int nvrtcGetCUBIN(fake_program *prog, char *cubin)
{
    ENTER("nvrtcGetCUBIN");
    return leave(image(prog, 1, cubin));
}
