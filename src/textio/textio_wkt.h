/* WKB geometries (the bytes of a Parquet GEOMETRY or GEOGRAPHY column) as WKT text, spelled as
 * DuckDB prints a GEOMETRY cast to VARCHAR: "POINT (1 2)", "POINT Z (1 2 3)",
 * "MULTIPOINT (EMPTY, 3 4)", "GEOMETRYCOLLECTION EMPTY".
 *
 * Accepts ISO WKB (types 1..7, +1000 Z, +2000 M, +3000 ZM) and EWKB (Z, M and SRID flags; the
 * SRID is skipped), in either byte order at every level. The bytes are untrusted: anything that
 * is not exactly one well-formed geometry is refused with a message saying what and where (byte
 * offset), after reading no byte outside [wkb, wkb + len). The output grows by at most a small
 * constant times len, and nesting is bounded (TEXTIO_WKT_MAX_DEPTH). */
#ifndef HL_TEXTIO_WKT_H
#define HL_TEXTIO_WKT_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

/* Geometry levels allowed, the top-level geometry being level 1. (DuckDB 1.5 itself refuses
 * more than 16.) */
enum { TEXTIO_WKT_MAX_DEPTH = 32 };

/* Appends the WKT of one WKB geometry to out. -1 when the bytes are not one well-formed geometry
 * (ERR_MALFORMED; ERR_UNSUPPORTED for a geometry type outside 1..7, ERR_LIMIT past
 * TEXTIO_WKT_MAX_DEPTH) or memory runs out; out keeps what it had before the call. */
int textio_wkb_to_wkt(const uint8_t *wkb, size_t len, struct buf *out, struct error *err);

#endif
