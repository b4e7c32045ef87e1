/* arena.h - bump allocation for everything a module owns, freed at once. */
#ifndef EVT_SUPPORT_ARENA_H
#define EVT_SUPPORT_ARENA_H

#include <stddef.h>

typedef struct arena_block arena_block;

typedef struct arena {
    arena_block *head; /* newest block first */
    int failed;        /* set once an allocation has failed */
} arena;

void arena_init(arena *a);
/* Frees every block; the arena may be reused after arena_init. */
void arena_free(arena *a);
/* Zeroed memory aligned for any type, or NULL when memory is exhausted. */
void *arena_alloc(arena *a, size_t size);
/* A NUL-terminated copy of s[0..len). */
char *arena_strndup(arena *a, const char *s, size_t len);
char *arena_strdup(arena *a, const char *s);
/* Grows an arena array: copies old_count elements into a block of new_count. */
void *arena_grow(arena *a, void *old, size_t elem_size, size_t old_count, size_t new_count);

/* Appends one element to a growable array kept as (items, count, cap). */
#define ARENA_PUSH(ar, items, count, cap, value)                                   \
    do {                                                                           \
        if ((count) == (cap)) {                                                    \
            size_t arena_push_new_cap_ = (cap) ? 2 * (cap) : 8;                    \
            void *arena_push_p_ = arena_grow((ar), (items), sizeof *(items),       \
                                             (count), arena_push_new_cap_);       \
            if (arena_push_p_) {                                                   \
                (items) = arena_push_p_;                                           \
                (cap) = arena_push_new_cap_;                                       \
            }                                                                      \
        }                                                                          \
        if ((count) < (cap))                                                       \
            (items)[(count)++] = (value);                                          \
    } while (0)

#endif
