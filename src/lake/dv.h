/* Deletion vectors (Iceberg v3 `deletion-vector-v1` Puffin blobs): the
 * deleted row positions of one data file, as a sorted set, and the blob's
 * codec.
 *
 * The blob is
 *   [length: u32 big-endian][magic D1 D3 39 64][vector][CRC-32: u32 big-endian]
 * where length counts the magic and the vector, the CRC-32 covers them too,
 * and the vector is a 64-bit roaring bitmap in the portable format: a u64
 * little-endian count of buckets, then per bucket (keys strictly rising)
 * its u32 little-endian key (the positions' high 32 bits) and a 32-bit
 * roaring bitmap in the portable serialization (array, bitmap and run
 * containers). The decoder reads run containers; the encoder writes array
 * and bitmap containers only, which every reader accepts.
 *
 * Blobs come from storage, written by any engine: the decoder treats them
 * as hostile (every length checked before it is read, keys and values
 * strictly rising, each container's cardinality as declared) and bounds
 * the positions it will hold by the caller's limit before allocating. */
#ifndef HL_LAKE_DV_H
#define HL_LAKE_DV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct error;

/* Sorted, distinct positions. Owns pos. */
struct lake_dv {
    uint64_t *pos;
    size_t n, cap;
};

void lake_dv_init(struct lake_dv *v);
void lake_dv_free(struct lake_dv *v);
/* Adds positions (any order, repeats allowed); keeps the set sorted and
 * distinct. 0, or -1 with err filled (ERR_NOMEM). */
int lake_dv_add(struct lake_dv *v, const uint64_t *pos, size_t n, struct error *err);
bool lake_dv_contains(const struct lake_dv *v, uint64_t pos);
/* Removes from v every position other holds. */
void lake_dv_subtract(struct lake_dv *v, const struct lake_dv *other);
/* The index of the first position >= pos (v->n when there is none). */
size_t lake_dv_lower_bound(const struct lake_dv *v, uint64_t pos);

/* Decodes a deletion-vector-v1 blob into the empty *out. Every position
 * must be below `rows` (the data file's row count), which also bounds how
 * many are held. ERR_CORRUPT (naming what is wrong) for anything else;
 * out stays empty on failure. */
int lake_dv_decode(const uint8_t *blob, size_t len, uint64_t rows, struct lake_dv *out,
                   struct error *err);

/* Appends v's blob to out. 0, or -1 with err filled (ERR_NOMEM). */
int lake_dv_encode(const struct lake_dv *v, struct buf *out, struct error *err);

#endif
