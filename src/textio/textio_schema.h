/* The table definition a conversion writes, from the command line's forms
 * (its Arrow form is rows/rows_schema.h's).
 *
 * A definition comes from a ColumnDef array (the catalog's create shape)
 * in which any column may also carry "field_id": that element's Parquet
 * field id. Columns without one get, depth-first, the smallest positive id
 * no column has claimed; with no field_id anywhere that is exactly the
 * catalog's depth-first numbering from 1. */
#ifndef HL_TEXTIO_SCHEMA_H
#define HL_TEXTIO_SCHEMA_H

#include <jansson.h>

#include "lake/schema.h"
#include "util/error.h"

/* Builds t (initialised and empty) from a ColumnDef array. Returns 0, or
 * -1: ERR_INVALID for a bad or repeated field_id, lake_table_add_columns'
 * own error for a definition it refuses, ERR_LIMIT past 32-bit field ids. */
int textio_table_from_columns(const json_t *columns, struct lake_table *t, struct error *err);

/* Builds t from the --schema argument: a compact column spec
 * ("id:long!, name:string"), inline ColumnDef JSON ("[...]") or "@FILE"
 * holding ColumnDef JSON. Text that does not parse fails with
 * ERR_MALFORMED, a file that cannot be opened with ERR_IO. */
int textio_table_from_spec(const char *spec, struct lake_table *t, struct error *err);

#endif
