#include "util/arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
    struct arena_chunk *next;
    size_t cap;
    size_t used;
    _Alignas(max_align_t) unsigned char data[];
};

enum { ARENA_MIN_CHUNK = 16 * 1024 };

void arena_init(struct arena *a, size_t limit_bytes)
{
    a->head = NULL;
    a->used_bytes = 0;
    a->limit_bytes = limit_bytes;
}

void arena_free(struct arena *a)
{
    struct arena_chunk *c = a->head;
    while (c) {
        struct arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
    a->used_bytes = 0;
}

void arena_reset(struct arena *a)
{
    struct arena_chunk *keep = a->head;
    if (!keep)
        return;
    for (struct arena_chunk *c = keep->next, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    keep->next = NULL;
    keep->used = 0;
    a->used_bytes = keep->cap;
}

static size_t align_up(size_t n)
{
    const size_t al = _Alignof(max_align_t);
    return (n + al - 1) & ~(al - 1);
}

void *arena_alloc(struct arena *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX / 2)
        return NULL;
    size = align_up(size);
    struct arena_chunk *c = a->head;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > ARENA_MIN_CHUNK ? size : ARENA_MIN_CHUNK;
        if (c && c->cap * 2 > cap && c->cap * 2 <= 1024 * 1024)
            cap = c->cap * 2; /* grow geometrically for request-sized work */
        if (a->limit_bytes && a->used_bytes + cap > a->limit_bytes) {
            if (a->used_bytes + size > a->limit_bytes)
                return NULL;
            cap = size;
        }
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->cap = cap;
        c->used = 0;
        c->next = a->head;
        a->head = c;
        a->used_bytes += cap;
    }
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

void *arena_calloc(struct arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = arena_alloc(a, n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_vsprintf(struct arena *a, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    char *p = arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *arena_sprintf(struct arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = arena_vsprintf(a, fmt, ap);
    va_end(ap);
    return p;
}
