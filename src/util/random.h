/* Randomness, from one place: the kernel's generator (getrandom), which is
 * cryptographically strong once seeded. Secrets (token secrets), names that
 * must not collide (file names, UUIDs, snapshot ids, claim tokens) and
 * jitter all come from here. Thread-safe. */
#ifndef HL_UTIL_RANDOM_H
#define HL_UTIL_RANDOM_H

#include <stddef.h>

/* Fills n bytes, waiting for the generator to be seeded (only ever at early
 * boot); interrupted calls are resumed. 0, or -1 with errno set. */
int random_bytes(void *buf, size_t n);
/* The same without waiting: -1 (errno EAGAIN) when the generator is not
 * seeded yet, for callers that have a fallback. */
int random_bytes_nonblocking(void *buf, size_t n);
/* A random (version 4) UUID: 36 lower-case characters and a NUL. 0 or -1. */
int random_uuid4(char out[37]);

#endif
