/* embedded.h - the kernels/ headers, compiled into the library (see embed.cmake). */
#ifndef EVT_CODEGEN_EMBEDDED_H
#define EVT_CODEGEN_EMBEDDED_H

#include "nvrtc.h"

/* Every header of kernels/, by file name; the last entry is {NULL, NULL}. */
extern const cg_header cg_embedded_headers[];
extern const size_t cg_embedded_header_count;
/* A digest of every header's name and contents (hex): what the generated
 * source does not show of the code NVRTC compiles. */
extern const char cg_embedded_headers_digest[];

#endif
