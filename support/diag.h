/* diag.h - the diagnostics of one module: collection and rendering. */
#ifndef EVT_SUPPORT_DIAG_H
#define EVT_SUPPORT_DIAG_H

#include "arena.h"
#include "strbuf.h"

#include <evt/evt.h>

/* A point in the source: line and column from 1, and the byte offset. */
typedef struct src_loc {
    unsigned line, column;
    size_t offset;
} src_loc;

enum {
    DIAG_MAX_ERRORS = 50,  /* after this many errors the front end stops */
    DIAG_MAX_WARNINGS = 100 /* further warnings are dropped */
};

typedef struct diag_list {
    arena *arena;
    const char *file;   /* owned by the arena */
    const char *source; /* the whole input, owned by the module */
    size_t source_len;
    evt_diag *items;
    size_t *offsets; /* byte offset of each diagnostic, parallel to items */
    size_t count, cap, offsets_cap;
    size_t errors, warnings;
    int stopped; /* DIAG_MAX_ERRORS reached: the front end winds down */
} diag_list;

void diag_init(diag_list *dl, arena *a, const char *file, const char *source, size_t len);
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
void diag_report(diag_list *dl, evt_severity sev, src_loc loc, const char *fmt, ...);
/* Orders diagnostics by source position, each note staying after its error;
 * "too many errors" stays last. */
void diag_sort(diag_list *dl);
/* Renders every diagnostic in `format` into sb. */
void diag_render(const diag_list *dl, evt_diag_format format, strbuf *sb);

#endif
