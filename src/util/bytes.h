/* Integers as bytes, in the forms the file formats use: little-endian
 * loads and stores (Parquet PLAIN, Iceberg single-value bounds, Avro
 * floats), LEB128 varints and zigzag (Thrift compact, Avro, Parquet's
 * RLE and DELTA encodings). Header-only: they sit in decoding loops. */
#ifndef HL_UTIL_BYTES_H
#define HL_UTIL_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* n (1..8) little-endian bytes as an unsigned integer. */
static inline uint64_t le_load(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static inline uint32_t le_load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le_load64(const uint8_t *p)
{
    return (uint64_t)le_load32(p) | (uint64_t)le_load32(p + 4) << 32;
}

/* Big-endian loads: TZif files, the deletion-vector blob's framing,
 * Hadoop's LZ4 frames, PostgreSQL's binary COPY. */
static inline uint32_t be_load32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t be_load64(const uint8_t *p)
{
    return (uint64_t)be_load32(p) << 32 | be_load32(p + 4);
}

/* The low n (1..8) bytes of v, little-endian. */
static inline void le_store(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Zigzag maps signed to unsigned so that small magnitudes stay small;
 * the arithmetic is on unsigned values (shifting a negative is undefined). */
static inline uint64_t zigzag_encode(int64_t v)
{
    return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63));
}

static inline int64_t zigzag_decode(uint64_t u)
{
    return (int64_t)((u >> 1) ^ (0 - (u & 1)));
}

enum { VARINT_MAX_BYTES = 10 };

/* The LEB128 form of v into out (VARINT_MAX_BYTES suffice); its length. */
static inline size_t varint_encode(uint64_t v, uint8_t *out)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* Reads a LEB128 varint of a `bits`-bit value (32 or 64) from p[0..avail):
 * the bytes it took, or 0 when it runs past avail or holds more than
 * `bits` bits (an overlong or overflowing varint). */
static inline size_t varint_decode(const uint8_t *p, size_t avail, unsigned bits, uint64_t *out)
{
    size_t max = (bits + 6) / 7;
    unsigned last_bits = bits - 7 * (unsigned)(max - 1);
    uint64_t v = 0;
    for (size_t i = 0; i < max && i < avail; i++) {
        uint8_t b = p[i];
        if (i == max - 1 && (b >> last_bits) != 0)
            return 0;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

#endif
