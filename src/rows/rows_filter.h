/* Keeping some rows of a batch: rows a predicate selected, or the rows a
 * deletion vector has not deleted. The batch (a struct array of columns,
 * as rows_take.h describes) is replaced in place by a copy of the kept rows
 * (rows_take); when every row is kept it is left untouched, at no cost. */
#ifndef HL_ROWS_FILTER_H
#define HL_ROWS_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "lake/dv.h"
#include "util/error.h"

/* Keeps row i of *batch where keep[i] is non-zero (keep has batch->length
 * bytes). On failure (rows_take's errors) *batch is unchanged. */
int rows_filter(const struct ArrowSchema *schema, struct ArrowArray *batch, const uint8_t *keep,
                struct error *err);

/* Drops the rows of *batch whose positions in their data file (first_pos
 * for row 0, then one by one) dv holds, adding how many to *dropped. On
 * failure *batch is unchanged. */
int rows_drop_deleted(const struct ArrowSchema *schema, struct ArrowArray *batch,
                      uint64_t first_pos, const struct lake_dv *dv, uint64_t *dropped,
                      struct error *err);

/* The reverse: keeps only the rows of *batch whose positions dv holds (the
 * rows a changefeed reports deleted). */
int rows_keep_listed(const struct ArrowSchema *schema, struct ArrowArray *batch, uint64_t first_pos,
                     const struct lake_dv *dv, struct error *err);

#endif
