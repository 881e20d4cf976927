/* Hashing and comparing the writer's dictionary keys: byte strings,
 * mostly short (UUIDs, names, codes), read a word at a time with the
 * bytes past the last whole word read as one word overlapping the one
 * before, so that no byte loop or library call runs per key. */
#ifndef HL_PARQUET_DICT_KEY_H
#define HL_PARQUET_DICT_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/hash.h"

/* A hash of n bytes (hash_bytes' word mix; keys under a word go to it). */
static inline uint64_t pq_key_hash(const uint8_t *v, size_t n)
{
    if (n < 8)
        return hash_bytes(v, n);
    const uint64_t k = 0x9e3779b97f4a7c15ULL;
    uint64_t h = (uint64_t)n * k;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x = hash_load64(v + i) * 0x87c37b91114253d5ULL;
        h ^= (x << 31) | (x >> 33);
        h = ((h << 27) | (h >> 37)) * 5 + 0x52dce729;
    }
    if (i < n)
        h ^= hash_load64(v + n - 8) * k;
    return hash_mix64(h);
}

/* Whether n bytes at a and b are equal. */
static inline bool pq_key_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n < 8)
        return memcmp(a, b, n) == 0;
    for (size_t i = 0; i + 8 < n; i += 8)
        if (hash_load64(a + i) != hash_load64(b + i))
            return false;
    return hash_load64(a + n - 8) == hash_load64(b + n - 8);
}

#endif
