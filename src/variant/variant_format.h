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

#endif
