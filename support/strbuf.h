/* strbuf.h - a growable, always NUL-terminated string (malloc-backed). */
#ifndef EVT_SUPPORT_STRBUF_H
#define EVT_SUPPORT_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct strbuf {
    char *data; /* NUL-terminated once anything was appended */
    size_t len, cap;
    int failed; /* set once an allocation has failed; later appends are dropped */
} strbuf;

void sb_init(strbuf *sb);
void sb_free(strbuf *sb);
/* Empties sb for the next text, keeping its memory (freed if it had failed). */
void sb_clear(strbuf *sb);
void sb_putn(strbuf *sb, const char *s, size_t n);
void sb_puts(strbuf *sb, const char *s);
void sb_putc(strbuf *sb, char c);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void sb_printf(strbuf *sb, const char *fmt, ...);
void sb_vprintf(strbuf *sb, const char *fmt, va_list ap);
/* Appends s as the inside of a JSON string literal (no quotes added). */
void sb_put_json_escaped(strbuf *sb, const char *s);
/* The text so far ("" if empty); owned by the buffer. */
const char *sb_str(const strbuf *sb);

#endif
