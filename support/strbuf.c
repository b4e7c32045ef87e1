/* strbuf.c - growable strings for rendering IR, DOT and diagnostics. */
#include "strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(strbuf *sb)
{
    sb->data = NULL;
    sb->len = sb->cap = 0;
    sb->failed = 0;
}

void sb_free(strbuf *sb)
{
    free(sb->data);
    sb_init(sb);
}

static int sb_reserve(strbuf *sb, size_t extra)
{
    if (sb->failed)
        return 0;
    if (extra > SIZE_MAX - 1 - sb->len) {
        sb->failed = 1;
        return 0;
    }
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return 1;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : 2 * cap;
    char *p = realloc(sb->data, cap);
    if (!p) {
        sb->failed = 1;
        return 0;
    }
    sb->data = p;
    sb->cap = cap;
    return 1;
}

void sb_putn(strbuf *sb, const char *s, size_t n)
{
    if (!sb_reserve(sb, n))
        return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void sb_puts(strbuf *sb, const char *s)
{
    sb_putn(sb, s, strlen(s));
}

void sb_putc(strbuf *sb, char c)
{
    sb_putn(sb, &c, 1);
}

void sb_vprintf(strbuf *sb, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !sb_reserve(sb, (size_t)n))
        return;
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

/* Length of the well-formed UTF-8 sequence of two or more bytes at p, or 0. */
static int utf8_length(const unsigned char *p)
{
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
    int n;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4;
    else
        return 0;
    if (p[0] == 0xe0)
        lo = 0xa0; /* overlong */
    else if (p[0] == 0xed)
        hi = 0x9f; /* surrogates */
    else if (p[0] == 0xf0)
        lo = 0x90; /* overlong */
    else if (p[0] == 0xf4)
        hi = 0x8f; /* beyond U+10FFFF */
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

void sb_put_json_escaped(strbuf *sb, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': sb_puts(sb, "\\\""); break;
        case '\\': sb_puts(sb, "\\\\"); break;
        case '\n': sb_puts(sb, "\\n"); break;
        case '\t': sb_puts(sb, "\\t"); break;
        case '\r': sb_puts(sb, "\\r"); break;
        default:
            if (*p < 0x20 || *p == 0x7f) {
                sb_printf(sb, "\\u%04x", *p);
            } else if (*p < 0x7f) {
                sb_putc(sb, (char)*p);
            } else {
                /* JSON text is UTF-8: pass characters through; a byte that is
                 * not part of one has no code point, so it becomes U+FFFD. */
                int n = utf8_length(p);
                if (n) {
                    sb_putn(sb, (const char *)p, (size_t)n);
                    p += n - 1;
                } else {
                    sb_puts(sb, "\\ufffd");
                }
            }
        }
    }
}

const char *sb_str(const strbuf *sb)
{
    return sb->data ? sb->data : "";
}
