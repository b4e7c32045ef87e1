/* fakecuda_internal.h - what the fake driver's files share: reading module
 * images (image.c) and the fake NVRTC's way into the driver's record. */
#ifndef EVT_TESTS_FAKECUDA_INTERNAL_H
#define EVT_TESTS_FAKECUDA_INTERNAL_H

#include "fakecuda.h"

#include <stddef.h>

/* A kernel entry point of an image. */
typedef struct fk_entry {
    const char *name; /* inside the image, name_len bytes, not terminated */
    size_t name_len;
    int nparams;      /* -1: the image does not say */
    size_t param_size[FAKECUDA_MAX_PARAMS];
    int max_threads;  /* the product of .maxntid; 0: no bound */
    int cluster;      /* the product of .reqnctapercluster; 0: none */
    int static_smem;
} fk_entry;

typedef struct fk_image {
    int sm;            /* 90 for sm_90 and sm_90a */
    int arch_specific; /* sm_90a */
    int ptx;           /* PTX text (compiled when loaded) rather than a cubin */
    fk_entry *entries;
    int nentries;
} fk_image;

/* Reads a cubin (ELF, EM_CUDA) or PTX text; 1, or 0 for anything else or
 * an image it cannot make sense of.  fk_free_image releases the entries. */
int fk_parse_image(const void *image, fk_image *out);
void fk_free_image(fk_image *img);

/* The fake NVRTC's calls go through the driver's counting and failure
 * injection: 1 when the call must return *r at once; otherwise the lock
 * is held until fk_leave_nvrtc. */
int fk_enter_nvrtc(const char *name, int *r);
void fk_leave_nvrtc(void);
/* Counts a compile (fakecuda_compiles); under the lock. */
void fk_count_compile(void);

#endif
