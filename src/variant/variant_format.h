/* The Variant encoding's constants (VariantEncoding.md), shared by the
 * encoder and the decoder. Not installed. */
#ifndef HL_VARIANT_FORMAT_H
#define HL_VARIANT_FORMAT_H

#include <stdint.h>

enum variant_basic {
    VB_PRIMITIVE = 0,
    VB_SHORT_STRING = 1,
    VB_OBJECT = 2,
    VB_ARRAY = 3,
};

enum variant_primitive {
    VT_NULL = 0,
    VT_TRUE = 1,
    VT_FALSE = 2,
    VT_INT8 = 3,
    VT_INT16 = 4,
    VT_INT32 = 5,
    VT_INT64 = 6,
    VT_DOUBLE = 7,
    VT_DECIMAL4 = 8,
    VT_DECIMAL8 = 9,
    VT_DECIMAL16 = 10,
    VT_DATE = 11,
    VT_TIMESTAMP = 12,     /* UTC, micros */
    VT_TIMESTAMP_NTZ = 13, /* micros */
    VT_FLOAT = 14,
    VT_BINARY = 15,
    VT_STRING = 16,
    VT_TIME_NTZ = 17,        /* micros */
    VT_TIMESTAMP_NANOS = 18, /* UTC */
    VT_TIMESTAMP_NTZ_NANOS = 19,
    VT_UUID = 20,
};

enum {
    VARIANT_VERSION = 1,
    VARIANT_SORTED_STRINGS = 0x10,
    VARIANT_SHORT_STRING_MAX = 64, /* a short string holds fewer bytes */
};

/* Little-endian unsigned integers of 1 to 8 bytes, as every size,
 * offset and id of the encoding is stored. */
static inline uint64_t variant_get_le(const uint8_t *p, int width)
{
    uint64_t v = 0;
    for (int k = width - 1; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

static inline void variant_put_le(uint8_t *p, uint64_t v, int width)
{
    for (int k = 0; k < width; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

/* The value_metadata byte of a primitive. */
#define VARIANT_PRIMITIVE(t) ((uint8_t)(VB_PRIMITIVE | (t) << 2))

/* The fewest bytes (1 to 4) holding max: the canonical width of a size,
 * offset or field id. */
static inline int variant_width_for(uint64_t max)
{
    return max <= 0xFF ? 1 : max <= 0xFFFF ? 2 : max <= 0xFFFFFF ? 3 : 4;
}

/* The fewest bytes (1, 2, 4 or 8) of the integer types holding v, and
 * the type of that width. */
static inline int variant_int_width(int64_t v)
{
    return v >= INT8_MIN && v <= INT8_MAX     ? 1
           : v >= INT16_MIN && v <= INT16_MAX ? 2
           : v >= INT32_MIN && v <= INT32_MAX ? 4
                                              : 8;
}

static inline int variant_int_type(int width)
{
    return width == 1 ? VT_INT8 : width == 2 ? VT_INT16 : width == 4 ? VT_INT32 : VT_INT64;
}

/* The first byte of an array or object of `large` (4-byte) element count,
 * field ids of id_width bytes (objects) and offsets of off_width. */
static inline uint8_t variant_array_head(int large, int off_width)
{
    return (uint8_t)(VB_ARRAY | (large << 2 | (off_width - 1)) << 2);
}

static inline uint8_t variant_object_head(int large, int id_width, int off_width)
{
    return (uint8_t)(VB_OBJECT | (large << 4 | (id_width - 1) << 2 | (off_width - 1)) << 2);
}

/* The first byte of canonical metadata: sorted, offsets of width bytes. */
static inline uint8_t variant_metadata_head(int width)
{
    return (uint8_t)(VARIANT_VERSION | VARIANT_SORTED_STRINGS | (width - 1) << 6);
}

/* A container's first byte and element count at p; returns where the
 * rest of its header goes. */
static inline uint8_t *variant_put_count(uint8_t *p, uint8_t first, uint64_t n)
{
    int large = n > 255;
    *p++ = first;
    variant_put_le(p, n, large ? 4 : 1);
    return p + (large ? 4 : 1);
}

#endif
