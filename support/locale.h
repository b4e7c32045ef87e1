/* locale.h - the "C" numeric locale around parsing and printing.
 *
 * strtof and printf read LC_NUMERIC: a program that embeds libevt under a
 * comma-decimal locale would otherwise read "0.5" as 0.  uselocale is
 * per thread, so this is safe while other threads run other locales. */
#ifndef EVT_SUPPORT_LOCALE_H
#define EVT_SUPPORT_LOCALE_H

/* locale_t values, kept as void * so that includers need no POSIX feature macro. */
typedef struct c_locale_scope {
    void *c, *old;
} c_locale_scope;

/* Makes the "C" locale current for this thread (no-op if it cannot). */
void c_locale_enter(c_locale_scope *s);
/* Restores the thread's previous locale. */
void c_locale_leave(c_locale_scope *s);

#endif
