/* Building Arrow C Data Interface structs that own their memory.
 *
 * arrow_array_init() gives an ArrowArray whose release callback frees the
 * buffers handed to it (malloc'd, owned from then on) and releases its
 * children, following the interface's rules: a child moved out by a
 * consumer (release set to NULL) is skipped. Schemas likewise own their
 * strings, metadata and children. */
#ifndef HL_UTIL_ARROW_H
#define HL_UTIL_ARROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"

enum { ARROW_MAX_BUFFERS = 3 };

/* Initialises a (zeroed) array with n_buffers buffer slots (all NULL) and
 * n_children zeroed children. Returns 0 or -1 when out of memory (the
 * array is then left released). */
int arrow_array_init(struct ArrowArray *a, int64_t n_buffers, int64_t n_children);
/* Hands buffer i to the array (it will be free()d on release). */
void arrow_array_own_buffer(struct ArrowArray *a, int i, void *p);

struct block_pool;
/* Makes the array hold a reference to pool, to which its pooled buffers go
 * back on release. */
void arrow_array_use_pool(struct ArrowArray *a, struct block_pool *pool);
/* Hands buffer i, a block of cap bytes from the array's pool, to the array
 * (returned to the pool on release; freed when the array has no pool). */
void arrow_array_own_pooled(struct ArrowArray *a, int i, void *p, size_t cap);

/* Initialises a schema node: format and name are copied (name may be
 * NULL); flags as given; n_children zeroed children. */
int arrow_schema_init(struct ArrowSchema *s, const char *format, const char *name, int64_t flags,
                      int64_t n_children);
/* Sets the node's metadata to the given key/value pairs (encoded per the
 * interface: int32 count, then int32-length-prefixed keys and values). */
int arrow_schema_set_metadata(struct ArrowSchema *s, const char *const *keys,
                              const char *const *values, int n);
/* Looks up a metadata value (NUL-terminated copy into out). */
bool arrow_metadata_get(const char *metadata, const char *key, char *out, size_t out_size);
/* Whether two schemas have one shape: the same formats, field names and
 * nullability, node for node (other flags and metadata aside). */
bool arrow_schema_same_shape(const struct ArrowSchema *a, const struct ArrowSchema *b);

/* An array of n nulls of the schema's type (nested types included: a
 * struct's children are null too, lists and maps empty). 0, or -1 for an
 * unsupported format or when out of memory. */
int arrow_array_nulls(const struct ArrowSchema *s, int64_t n, struct ArrowArray *out);

/* A zeroed block that the null arrays of many batches share instead of
 * each zeroing buffers of its own (a projection's absent columns, batch
 * after batch): never written, freed with its last reference. */
struct arrow_zeros;
/* Makes *z (NULL: none yet) a block of at least size bytes: kept when
 * large enough, else replaced (the old one lives on in the arrays using
 * it). 0, or -1 when out of memory (*z unchanged). */
int arrow_zeros_reserve(struct arrow_zeros **z, size_t size);
void arrow_zeros_unref(struct arrow_zeros *z);
/* The size of the largest buffer an array of n nulls of s has. */
size_t arrow_nulls_size(const struct ArrowSchema *s, int64_t n);
/* As arrow_array_nulls, its buffers (and its children's) in z when they
 * fit (z NULL: its own). */
int arrow_array_nulls_in(const struct ArrowSchema *s, int64_t n, struct arrow_zeros *z,
                         struct ArrowArray *out);

/* Moves src into dst (dst must be released or uninitialised); src is left
 * released. */
void arrow_array_move(struct ArrowArray *src, struct ArrowArray *dst);
void arrow_schema_move(struct ArrowSchema *src, struct ArrowSchema *dst);

/* A batch (a struct array) shared by views of its rows, so that its rows
 * can go out a chunk at a time without a copy: each view is an ArrowArray
 * of its own (released, or its children moved out, independently, on any
 * thread) pointing into the batch's buffers, which live until the share
 * and every view are released. */
struct arrow_share;
/* Takes the batch (moved in). NULL when out of memory (batch released). */
struct arrow_share *arrow_share_new(struct ArrowArray *batch);
/* The batch, to read (its columns may be replaced until views are made). */
const struct ArrowArray *arrow_share_batch(const struct arrow_share *s);
void arrow_share_unref(struct arrow_share *s);
/* Rows [start, start + n) of column c of the batch: the column's offset
 * moved, its null count unknown (-1) unless it has none. 0, or -1 when
 * out of memory or out of range. */
int arrow_share_view(struct arrow_share *s, int64_t c, int64_t start, int64_t n,
                     struct ArrowArray *out);

/* ---- reading string and binary arrays in place ---- */

/* A "u", "z", "U" or "Z" array; value i is row a->offset + i. */
struct arrow_bytes {
    const struct ArrowArray *a;
    const int32_t *o32; /* "u", "z" */
    const int64_t *o64; /* "U", "Z" */
    const uint8_t *data;
};
/* Opens a for reading as `format`: false when it is not such an array
 * (another format, or buffers missing). */
bool arrow_bytes_open(struct arrow_bytes *in, const char *format, const struct ArrowArray *a);
bool arrow_bytes_valid(const struct arrow_bytes *in, int64_t i);
/* Value i's bytes, borrowed (null values are empty). */
void arrow_bytes_at(const struct arrow_bytes *in, int64_t i, const uint8_t **p, size_t *n);
/* The bytes of values [first, first + n), which lie in order. */
size_t arrow_bytes_span(const struct arrow_bytes *in, int64_t first, int64_t n);

/* About how many bytes an array's values take, for sizing chunks and
 * buffers: its byte arrays' data with their offsets, 8 a fixed-width
 * value (a bit too: what it turns into takes bytes), 4 a list's or
 * struct's slot, children included. */
double arrow_approx_bytes(const struct ArrowSchema *s, const struct ArrowArray *a);

/* Validity helpers. */
static inline bool arrow_bit(const uint8_t *bits, int64_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}
static inline void arrow_set_bit(uint8_t *bits, int64_t i, bool v)
{
    if (v)
        bits[i >> 3] = (uint8_t)(bits[i >> 3] | (1u << (i & 7)));
    else
        bits[i >> 3] = (uint8_t)(bits[i >> 3] & ~(1u << (i & 7)));
}

#endif
