/* arena.c - bump allocator: blocks of at least 64 KiB, large requests get their own. */
#include "arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
    arena_block *next;
    size_t used, size;
    alignas(max_align_t) unsigned char data[];
};

enum { ARENA_BLOCK_SIZE = 64 * 1024 };

void arena_init(arena *a)
{
    a->head = NULL;
    a->failed = 0;
}

void arena_free(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}

/* size bytes, not cleared. */
static void *alloc_raw(arena *a, size_t size)
{
    const size_t align = alignof(max_align_t);
    if (size > SIZE_MAX - align) { /* rounding up would wrap to a tiny size */
        a->failed = 1;
        return NULL;
    }
    size = (size + align - 1) & ~(align - 1);
    if (size == 0)
        size = align;
    arena_block *b = a->head;
    if (!b || b->size - b->used < size) {
        size_t cap = size > ARENA_BLOCK_SIZE / 4 ? size : ARENA_BLOCK_SIZE;
        if (cap > SIZE_MAX - sizeof *b) {
            a->failed = 1;
            return NULL;
        }
        arena_block *nb = malloc(sizeof *nb + cap);
        if (!nb) {
            a->failed = 1;
            return NULL;
        }
        nb->used = 0;
        nb->size = cap;
        if (b && cap != ARENA_BLOCK_SIZE) {
            /* A large request: keep filling the current block afterwards. */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += size;
    return p;
}

void *arena_alloc(arena *a, size_t size)
{
    void *p = alloc_raw(a, size);
    if (p)
        memset(p, 0, size);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *p = alloc_raw(a, len + 1); /* every byte written below: no clearing */
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

char *arena_strdup(arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

void *arena_grow(arena *a, void *old, size_t elem_size, size_t old_count, size_t new_count)
{
    if (new_count && elem_size > SIZE_MAX / new_count) {
        a->failed = 1;
        return NULL;
    }
    void *p = arena_alloc(a, elem_size * new_count);
    if (p && old_count)
        memcpy(p, old, elem_size * old_count);
    return p;
}
