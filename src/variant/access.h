/* Reading a Variant in place: a container's elements, an object's field
 * by name, a primitive's value. For code that looks at parts of a value
 * (predicates on a path) without decoding all of it. Every offset is
 * checked against the bytes given; what does not fit reads as malformed,
 * never past the end. Validity beyond that (UTF-8, tiling, key order) is
 * variant_check's. Not installed. */
#ifndef HL_VARIANT_ACCESS_H
#define HL_VARIANT_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "variant/variant.h"

__extension__ typedef __int128 variant_i128;

/* An object's or array's header. */
struct variant_container {
    bool object;
    uint64_t n;
    int id_size, offset_size; /* id_size 0 for an array */
    const uint8_t *ids, *offsets, *values;
    uint64_t values_len; /* the last offset: the values' bytes */
};

/* Opens the container at p (avail bytes); false when p is not an object
 * or array, or its header does not fit. */
bool variant_container_open(const uint8_t *p, size_t avail, struct variant_container *c);
/* Element i's value bytes: from its offset to the end of the values (a
 * value delimits itself). False when the offset lies outside. */
bool variant_container_element(const struct variant_container *c, uint64_t i, const uint8_t **v,
                               size_t *avail);

/* The value of field `key` of the object at p, found by name through d:
 * 1 found (*v, *avail set), 0 when p is not an object or has no such
 * field, -1 malformed. */
int variant_object_field(const struct variant_dict *d, const uint8_t *p, size_t avail,
                         const char *key, size_t key_len, const uint8_t **v, size_t *avail_out);

/* What a primitive holds, as predicates compare it. */
enum variant_scalar_kind {
    VS_NULL,
    VS_BOOL,
    VS_INT,     /* int8 to int64 */
    VS_DECIMAL, /* decimal4/8/16 */
    VS_DOUBLE,  /* float or double */
    VS_STRING,  /* short string or string */
    VS_OTHER    /* objects, arrays, temporal, binary, uuid */
};

struct variant_scalar {
    enum variant_scalar_kind kind;
    bool b;
    int64_t i;
    variant_i128 unscaled;
    int scale;
    double d;
    const char *s;
    size_t len;
};

/* The scalar at p; false when it does not fit in avail bytes. */
bool variant_scalar_read(const uint8_t *p, size_t avail, struct variant_scalar *out);

/* A scalar (not VS_OTHER) as one primitive value that variant_scalar_read
 * reads back: int64, decimal16, double, string, boolean or null. Writes
 * variant_scalar_size(s) bytes. */
size_t variant_scalar_size(const struct variant_scalar *s);
void variant_scalar_write(const struct variant_scalar *s, uint8_t *out);

#endif
