/* Byte-array bounds cut to a bounded length, for the page index.
 *
 * A ColumnIndex needs a lower and an upper bound for every page that holds
 * a value, and the format lets a writer store shorter values than the
 * page's own minimum and maximum so long as they still bound it. A lower
 * bound is cut to a prefix (a prefix never sorts after its string); an
 * upper bound is cut and then raised past everything the cut prefix
 * starts. Bounds must still be values of the column's type: for UTF-8
 * columns the cut falls between characters and the raise moves a code
 * point, so bounds stay valid strings. */
#ifndef HL_PARQUET_BOUND_H
#define HL_PARQUET_BOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* The length of the lower bound that v (len bytes) cuts to: at most limit
 * bytes, and for UTF-8 only whole characters (a string that is not valid
 * UTF-8 is cut by bytes). */
size_t pq_bound_cut_min(const uint8_t *v, size_t len, size_t limit, bool utf8);

/* Appends to out an upper bound of every string that starts with
 * prefix[0..len): the prefix with its last byte raised (trailing 0xff bytes
 * dropped first), or for UTF-8 its last character raised to the next code
 * point (characters already at U+10FFFF dropped first; a string that is
 * not valid UTF-8 is raised by bytes). The bound is at most len + 1 bytes
 * long (a raised character may take one byte more). 0 when appended, 1
 * when no bound exists (the prefix is empty, all 0xff or all U+10FFFF),
 * -1 when out of memory. */
int pq_bound_raise(const uint8_t *prefix, size_t len, bool utf8, struct buf *out);

#endif
