/* strbuf.c - growable strings for rendering IR, DOT and diagnostics. */
#include "strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

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

void sb_clear(strbuf *sb)
{
    if (sb->failed) {
        sb_free(sb);
        return;
    }
    sb->len = 0;
    if (sb->data)
        sb->data[0] = '\0';
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
    /* the room is mostly there: one test before the copy (cap is 0 while
     * data is NULL, and a failed buffer takes nothing) */
    if (n < sb->cap - sb->len && !sb->failed) {
        memcpy(sb->data + sb->len, s, n);
        sb->len += n;
        sb->data[sb->len] = '\0';
        return;
    }
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

/* vsnprintf onto the end of sb: straight into the room left, measuring
 * first only when it does not fit. */
static void put_vformatted(strbuf *sb, const char *fmt, va_list ap)
{
    if (sb->failed)
        return;
    va_list ap2;
    va_copy(ap2, ap);
    size_t room = sb->data ? sb->cap - sb->len : 0;
    int n = vsnprintf(room ? sb->data + sb->len : NULL, room, fmt, ap2);
    va_end(ap2);
    if (n >= 0 && (size_t)n >= room && sb_reserve(sb, (size_t)n))
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    if (n >= 0 && !sb->failed)
        sb->len += (size_t)n;
    else if (sb->data)
        sb->data[sb->len] = '\0'; /* whatever a failed attempt left past the end */
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put_formatted(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_vformatted(sb, fmt, ap);
    va_end(ap);
}

/* The decimal digits of v, after a '-' when neg. */
static void put_decimal(strbuf *sb, unsigned long long v, int neg)
{
    char buf[24], *p = buf + sizeof buf;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    if (neg)
        *--p = '-';
    sb_putn(sb, p, (size_t)(buf + sizeof buf - p));
}

static void put_signed(strbuf *sb, long long v)
{
    put_decimal(sb, v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v, v < 0);
}

/* One conversion that is not a plain %s, %c, %d or %u (flags, a width, a
 * precision, floating point, hex), from its text at p (after the '%'):
 * the specification is copied, a '*' replaced by its argument, and handed
 * to vsnprintf with the argument fetched as its type.  Returns the end of
 * the specification. */
static const char *put_conversion(strbuf *sb, const char *p, va_list *ap)
{
    char spec[96];
    size_t n = 0;
    spec[n++] = '%';
    while (*p && strchr("-+ #0", *p) && n < 16)
        spec[n++] = *p++;
    if (*p == '*') {
        n += (size_t)snprintf(spec + n, 16, "%d", va_arg(*ap, int)); /* -w: the '-' flag */
        p++;
    } else {
        while (*p >= '0' && *p <= '9' && n < 40)
            spec[n++] = *p++;
    }
    if (*p == '.') {
        p++;
        if (*p == '*') {
            int prec = va_arg(*ap, int);
            if (prec >= 0) /* a negative precision is taken as none */
                n += (size_t)snprintf(spec + n, 16, ".%d", prec);
            p++;
        } else {
            spec[n++] = '.';
            while (*p >= '0' && *p <= '9' && n < 64)
                spec[n++] = *p++;
        }
    }
    char len = 0; /* h (hh too), l, q (ll), z, j, t, L */
    if (*p == 'h' || *p == 'l' || *p == 'z' || *p == 'j' || *p == 't' || *p == 'L') {
        len = *p;
        spec[n++] = *p++;
        if ((len == 'h' || len == 'l') && *p == len) {
            len = len == 'l' ? 'q' : 'h';
            spec[n++] = *p++;
        }
    }
    if (!*p)
        return p;
    const char conv = *p++;
    spec[n++] = conv;
    spec[n] = '\0';
    switch (conv) {
    case 'd': case 'i':
        switch (len) {
        case 'l': put_formatted(sb, spec, va_arg(*ap, long)); break;
        case 'q': put_formatted(sb, spec, va_arg(*ap, long long)); break;
        case 'z': case 't': put_formatted(sb, spec, va_arg(*ap, ptrdiff_t)); break;
        case 'j': put_formatted(sb, spec, va_arg(*ap, intmax_t)); break;
        default: put_formatted(sb, spec, va_arg(*ap, int)); break;
        }
        break;
    case 'u': case 'o': case 'x': case 'X':
        switch (len) {
        case 'l': put_formatted(sb, spec, va_arg(*ap, unsigned long)); break;
        case 'q': put_formatted(sb, spec, va_arg(*ap, unsigned long long)); break;
        case 'z': case 't': put_formatted(sb, spec, va_arg(*ap, size_t)); break;
        case 'j': put_formatted(sb, spec, va_arg(*ap, uintmax_t)); break;
        default: put_formatted(sb, spec, va_arg(*ap, unsigned)); break;
        }
        break;
    case 'c':
        if (len == 'l')
            put_formatted(sb, spec, va_arg(*ap, wint_t));
        else
            put_formatted(sb, spec, va_arg(*ap, int));
        break;
    case 's':
        if (len == 'l')
            put_formatted(sb, spec, va_arg(*ap, const wchar_t *));
        else
            put_formatted(sb, spec, va_arg(*ap, const char *));
        break;
    case 'p': put_formatted(sb, spec, va_arg(*ap, void *)); break;
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
        if (len == 'L')
            put_formatted(sb, spec, va_arg(*ap, long double));
        else
            put_formatted(sb, spec, va_arg(*ap, double));
        break;
    default: break; /* %n and unknown conversions write nothing */
    }
    return p;
}

/* printf's formatting, done here rather than by vsnprintf: the code
 * generator's output is long constant text with a few names in it, which
 * glibc's vfprintf copies a few bytes at a time (docs/fuzzing.md has the
 * measurements).  Literal runs are copied whole, %s, %c, %d and %u (with l,
 * ll or z) written by hand, every other conversion given to vsnprintf. */
void sb_vprintf(strbuf *sb, const char *fmt, va_list ap)
{
    va_list args;
    va_copy(args, ap);
    for (const char *p = fmt;;) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            sb_puts(sb, p);
            break;
        }
        sb_putn(sb, p, (size_t)(pct - p));
        p = pct + 1;
        switch (p[0]) {
        case 's': {
            const char *s = va_arg(args, const char *);
            sb_puts(sb, s ? s : "(null)"); /* glibc's */
            p++;
            continue;
        }
        case 'c': sb_putc(sb, (char)va_arg(args, int)); p++; continue;
        case '%': sb_putc(sb, '%'); p++; continue;
        case 'd': case 'i': put_signed(sb, va_arg(args, int)); p++; continue;
        case 'u': put_decimal(sb, va_arg(args, unsigned), 0); p++; continue;
        case 'z':
            if (p[1] == 'u') {
                put_decimal(sb, va_arg(args, size_t), 0);
                p += 2;
                continue;
            }
            break;
        case 'l':
            switch (p[1] == 'l' ? p[2] : p[1]) {
            case 'd': case 'i':
                put_signed(sb, p[1] == 'l' ? va_arg(args, long long) : va_arg(args, long));
                p += p[1] == 'l' ? 3 : 2;
                continue;
            case 'u':
                put_decimal(sb, p[1] == 'l' ? va_arg(args, unsigned long long) : va_arg(args, unsigned long), 0);
                p += p[1] == 'l' ? 3 : 2;
                continue;
            }
            break;
        }
        p = put_conversion(sb, p, &args);
    }
    va_end(args);
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
