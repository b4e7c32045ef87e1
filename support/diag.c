/* diag.c - diagnostics: `file:line:col: error: message`, the line, a caret. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How much of a long source line is shown on each side of the caret. */
enum { DIAG_CONTEXT = 100 };

void diag_init(diag_list *dl, arena *a, const char *file, const char *source, size_t len)
{
    memset(dl, 0, sizeof *dl);
    dl->arena = a;
    dl->file = file;
    dl->source = source;
    dl->source_len = len;
}

static void diag_push(diag_list *dl, evt_severity sev, src_loc loc, const char *msg)
{
    evt_diag d = {sev, {dl->file, loc.line, loc.column}, msg};
    size_t n = dl->count;
    ARENA_PUSH(dl->arena, dl->offsets, n, dl->offsets_cap, loc.offset);
    if (n == dl->count + 1)
        ARENA_PUSH(dl->arena, dl->items, dl->count, dl->cap, d);
}

void diag_report(diag_list *dl, evt_severity sev, src_loc loc, const char *fmt, ...)
{
    if (dl->stopped)
        return;
    if (sev == EVT_SEV_WARNING && dl->warnings >= DIAG_MAX_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    char *msg = NULL;
    if (n >= 0) {
        msg = arena_alloc(dl->arena, (size_t)n + 1);
        if (msg)
            vsnprintf(msg, (size_t)n + 1, fmt, ap);
    }
    va_end(ap);
    if (!msg)
        return;
    diag_push(dl, sev, loc, msg);
    if (sev == EVT_SEV_ERROR) {
        dl->errors++;
        if (dl->errors == DIAG_MAX_ERRORS) {
            diag_push(dl, EVT_SEV_ERROR, loc, "too many errors; stopping here");
            dl->errors++;
            dl->stopped = 1;
        }
    } else if (sev == EVT_SEV_WARNING) {
        dl->warnings++;
    }
}

typedef struct diag_key {
    unsigned line, column; /* of the group's leading diagnostic */
    size_t leader, index;  /* stable tie-breaks */
} diag_key;

static int key_cmp(const void *pa, const void *pb)
{
    const diag_key *a = pa, *b = pb;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->column != b->column)
        return a->column < b->column ? -1 : 1;
    if (a->leader != b->leader)
        return a->leader < b->leader ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

void diag_sort(diag_list *dl)
{
    size_t n = dl->count;
    if (n < 2)
        return;
    diag_key *keys = malloc(n * sizeof *keys);
    evt_diag *items = malloc(n * sizeof *items);
    size_t *offsets = malloc(n * sizeof *offsets);
    if (keys && items && offsets) {
        size_t leader = 0;
        for (size_t i = 0; i < n; i++) {
            if (dl->items[i].severity != EVT_SEV_NOTE)
                leader = i;
            const evt_diag *d = &dl->items[leader];
            keys[i] = (diag_key){d->loc.line, d->loc.column, leader, i};
            if (dl->stopped && i == n - 1)
                keys[i].line = keys[i].column = ~0u;
        }
        qsort(keys, n, sizeof *keys, key_cmp);
        for (size_t i = 0; i < n; i++) {
            items[i] = dl->items[keys[i].index];
            offsets[i] = dl->offsets[keys[i].index];
        }
        memcpy(dl->items, items, n * sizeof *items);
        memcpy(dl->offsets, offsets, n * sizeof *offsets);
    } else {
        dl->arena->failed = 1; /* unsorted would look like a different answer */
    }
    free(keys);
    free(items);
    free(offsets);
}

static const char *severity_name(evt_severity sev)
{
    switch (sev) {
    case EVT_SEV_ERROR: return "error";
    case EVT_SEV_WARNING: return "warning";
    case EVT_SEV_NOTE: return "note";
    }
    return "error";
}

/* Appends one source byte as it should appear on a terminal. */
static void put_source_byte(strbuf *sb, unsigned char c)
{
    if (c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80)
        sb_putc(sb, (char)c);
    else
        sb_putc(sb, ' ');
}

/* The source line around `offset`, at most DIAG_CONTEXT bytes either side, and a caret. */
static void render_excerpt(const diag_list *dl, size_t offset, strbuf *sb)
{
    const char *src = dl->source;
    size_t len = dl->source_len;
    if (!src || offset > len)
        return;
    size_t start = offset, end = offset;
    while (start > 0 && src[start - 1] != '\n' && offset - start < DIAG_CONTEXT)
        start--;
    int cut_left = start > 0 && src[start - 1] != '\n';
    while (end < len && src[end] != '\n' && end - offset < DIAG_CONTEXT)
        end++;
    int cut_right = end < len && src[end] != '\n';
    if (start == end && offset == len && !cut_left)
        return; /* a diagnostic at the end of the input: no line to show */

    strbuf caret;
    sb_init(&caret);
    sb_puts(sb, "  ");
    sb_puts(&caret, "  ");
    if (cut_left) {
        sb_puts(sb, "...");
        sb_puts(&caret, "   ");
    }
    for (size_t i = start; i < end; i++) {
        unsigned char c = (unsigned char)src[i];
        put_source_byte(sb, c);
        if (i < offset)
            sb_putc(&caret, c == '\t' ? '\t' : ' ');
    }
    if (cut_right)
        sb_puts(sb, "...");
    sb_putc(sb, '\n');
    sb_putc(&caret, '^');
    if (caret.failed)
        sb->failed = 1; /* the whole text failed, not just its caret */
    sb_puts(sb, sb_str(&caret));
    sb_putc(sb, '\n');
    sb_free(&caret);
}

void diag_render(const diag_list *dl, evt_diag_format format, strbuf *sb)
{
    for (size_t i = 0; i < dl->count; i++) {
        const evt_diag *d = &dl->items[i];
        if (format == EVT_DIAG_JSON) {
            sb_puts(sb, "{\"file\":\"");
            sb_put_json_escaped(sb, d->loc.file ? d->loc.file : "");
            sb_printf(sb, "\",\"line\":%u,\"column\":%u,\"severity\":\"%s\",\"message\":\"",
                      d->loc.line, d->loc.column, severity_name(d->severity));
            sb_put_json_escaped(sb, d->message);
            sb_puts(sb, "\"}\n");
        } else {
            sb_printf(sb, "%s:%u:%u: %s: %s\n", d->loc.file ? d->loc.file : "<input>",
                      d->loc.line, d->loc.column, severity_name(d->severity), d->message);
            render_excerpt(dl, dl->offsets[i], sb);
        }
    }
}
