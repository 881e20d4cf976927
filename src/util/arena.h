/* A region allocator: many small allocations, one free.
 *
 * Used for per-request and per-operation memory. Not thread-safe: an arena
 * belongs to the one thread running its operation. Every allocation returns
 * NULL when memory runs out or when the arena's byte limit would be passed. */
#ifndef HL_UTIL_ARENA_H
#define HL_UTIL_ARENA_H

#include <stdarg.h>
#include <stddef.h>

struct arena_chunk;

struct arena {
    struct arena_chunk *head;
    size_t used_bytes;  /* total reserved from the system */
    size_t limit_bytes; /* 0 = unlimited */
};

void arena_init(struct arena *a, size_t limit_bytes);
/* Frees every allocation made from `a`; `a` may be reused afterwards. */
void arena_free(struct arena *a);
/* The same, keeping the newest chunk for the allocations to come: for an
 * arena reused by many small operations in turn. */
void arena_reset(struct arena *a);

void *arena_alloc(struct arena *a, size_t size);            /* uninitialised */
void *arena_calloc(struct arena *a, size_t n, size_t size); /* zeroed, overflow-checked */
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_sprintf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vsprintf(struct arena *a, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

#endif
