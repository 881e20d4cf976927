#include "lake/bucket.h"
#include "util/bytes.h"

static uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}

int32_t lake_murmur3_32(const void *data, size_t len)
{
    const uint8_t *p = data;
    const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
    uint32_t h = 0;
    size_t blocks = len / 4;
    for (size_t i = 0; i < blocks; i++) {
        uint32_t k = le_load32(p + 4 * i);
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        h = rotl32(h, 13);
        h = h * 5 + 0xe6546b64u;
    }
    const uint8_t *tail = p + 4 * blocks;
    uint32_t k = 0;
    switch (len & 3) {
    case 3:
        k ^= (uint32_t)tail[2] << 16;
        /* fall through */
    case 2:
        k ^= (uint32_t)tail[1] << 8;
        /* fall through */
    case 1:
        k ^= tail[0];
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
    }
    h ^= (uint32_t)len;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return (int32_t)h;
}

void lake_bucket_input_long(int64_t v, uint8_t out[8])
{
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(u >> (8 * i));
}

int32_t lake_bucket_of(int32_t hash, int32_t n)
{
    return (int32_t)(((uint32_t)hash & 0x7fffffffu) % (uint32_t)n);
}
