/* locale.c - see locale.h. */
#define _POSIX_C_SOURCE 200809L
#include "locale.h"

#include <locale.h>
#include <stddef.h>

void c_locale_enter(c_locale_scope *s)
{
    locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    s->c = c;
    s->old = c ? uselocale(c) : (locale_t)0;
}

void c_locale_leave(c_locale_scope *s)
{
    if (s->c) {
        uselocale((locale_t)s->old);
        freelocale((locale_t)s->c);
    }
    s->c = NULL;
}
