/* Fast non-cryptographic hashing for in-memory hash tables (dictionary
 * encoding, grouping). Not for anything an adversary must not collide. */
#ifndef HL_UTIL_HASH_H
#define HL_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Mixes a 64-bit value so that every input bit affects every output bit. */
static inline uint64_t hash_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static inline uint64_t hash_load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Hashes n bytes: eight at a time, each word folded in with a multiply
 * and rotate, the tail in one final word, then a full mix. */
static inline uint64_t hash_bytes(const void *data, size_t n)
{
    const unsigned char *p = data;
    const uint64_t k = 0x9e3779b97f4a7c15ULL;
    uint64_t h = (uint64_t)n * k;
    while (n >= 8) {
        uint64_t w = hash_load64(p) * 0x87c37b91114253d5ULL;
        h ^= (w << 31) | (w >> 33);
        h = ((h << 27) | (h >> 37)) * 5 + 0x52dce729;
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        memcpy(&w, p, n);
        h ^= w * k;
    }
    return hash_mix64(h);
}

#endif
