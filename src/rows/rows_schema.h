/* The table definition a conversion writes, and its Arrow form.
 *
 * A definition comes from a ColumnDef array (the catalog's create shape)
 * in which any column may also carry "field_id": that element's Parquet
 * field id. Columns without one get, depth-first, the smallest positive id
 * no column has claimed; with no field_id anywhere that is exactly the
 * catalog's depth-first numbering from 1. */
#ifndef HL_ROWS_SCHEMA_H
#define HL_ROWS_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "parquet/schema.h"
#include "util/error.h"

/* Builds t (initialised and empty) from a ColumnDef array. Returns 0, or
 * -1: ERR_INVALID for a bad or repeated field_id, lake_table_add_columns'
 * own error for a definition it refuses, ERR_LIMIT past 32-bit field ids. */
int rows_table_from_columns(const json_t *columns, struct lake_table *t, struct error *err);

/* Builds t from the --schema argument: a compact column spec
 * ("id:long!, name:string"), inline ColumnDef JSON ("[...]") or "@FILE"
 * holding ColumnDef JSON. Text that does not parse fails with
 * ERR_MALFORMED, a file that cannot be opened with ERR_IO. */
int rows_table_from_spec(const char *spec, struct lake_table *t, struct error *err);

/* The Arrow schema (a struct of the top-level columns) the Parquet writer
 * takes for t: each column's pq_arrow_format_for, nullability, Iceberg's
 * element/entries/key/value child names, and uuid columns marked with the
 * Arrow extension name "arrow.uuid". Returns 0 or -1 (out of memory). */
int rows_table_arrow_schema(const struct lake_table *t, struct ArrowSchema *out);

/* Whether an Arrow field carries the "arrow.uuid" extension name. */
bool rows_schema_is_uuid(const struct ArrowSchema *s);
/* Whether a field carries the GeoArrow extension name "geoarrow.wkb". */
bool rows_schema_is_wkb(const struct ArrowSchema *s);
/* Marks a field with the "arrow.uuid" extension name, keeping a
 * "PARQUET:field_id" entry it has. 0 or -1. */
int rows_schema_mark_uuid(struct ArrowSchema *s);
/* Marks the fields of a reader's Arrow schema (a struct of top-level
 * columns of the file schema ps, found by name) that were read from
 * UUID-annotated leaves. 0 or -1. */
int rows_schema_mark_file_uuids(struct ArrowSchema *schema, const struct pq_schema *ps);

#endif
