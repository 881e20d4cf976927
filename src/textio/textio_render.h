/* Arrow rows out as text: JSON Lines (one object per row) or CSV (a header
 * row, then one record per row), following docs/cli-parquet.md.
 *
 * The renderer is driven by the Arrow schema alone: every format the
 * Parquet reader produces is handled, a fixed-size binary of 16 bytes
 * whose field carries the extension name "arrow.uuid" is a UUID, and a
 * binary whose field carries "geoarrow.wkb" is a geometry (its WKB in hex,
 * or WKT). */
#ifndef HL_TEXTIO_RENDER_H
#define HL_TEXTIO_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "util/buf.h"
#include "util/error.h"

enum textio_format { TEXTIO_JSONL, TEXTIO_CSV };

struct textio_render;

/* schema: a struct whose fields are the columns. Refuses formats it does
 * not know, naming the column (ERR_UNSUPPORTED). */
int textio_render_new(const struct ArrowSchema *schema, enum textio_format format,
                      struct textio_render **out, struct error *err);
void textio_render_free(struct textio_render *r);
/* Geometries as WKT rather than hex WKB (a value that is not WKB then fails
 * the row). */
void textio_render_geometry_as_wkt(struct textio_render *r, bool wkt);
/* CSV: the header record; JSON Lines: nothing. */
void textio_render_header(struct textio_render *r, struct buf *out);
/* Appends row `row` of batch (a struct array matching the schema) with its
 * line end. Fails only on a value that has no text form: ERR_INVALID for a
 * time of day outside a day or a null map key in a string-keyed map, the
 * WKB's own error for a geometry shown as WKT. */
int textio_render_row(struct textio_render *r, const struct ArrowArray *batch, int64_t row,
                      struct buf *out, struct error *err);

#endif
