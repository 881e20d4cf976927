/* A table definition's Arrow form: the schema the Parquet writer takes,
 * and the extension names (UUID, WKB) its fields carry. */
#ifndef HL_ROWS_SCHEMA_H
#define HL_ROWS_SCHEMA_H

#include <stdbool.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "parquet/schema.h"

/* The Arrow schema (a struct of the top-level columns) the Parquet writer
 * takes for t: each column's pq_arrow_format_for, nullability, Iceberg's
 * element/entries/key/value child names, uuid columns marked with the
 * Arrow extension name "arrow.uuid", and variant columns as their
 * unshredded storage, struct<metadata: binary, value: binary> (both not
 * null), marked "arrow.parquet.variant". Returns 0 or -1 (out of memory). */
int rows_table_arrow_schema(const struct lake_table *t, struct ArrowSchema *out);

/* One column's field of that schema, named name. 0 or -1. */
int rows_column_arrow_schema(const struct lake_column *c, const char *name, struct ArrowSchema *s);

/* The catalog type of an Arrow field, the inverse of
 * rows_column_arrow_schema's mapping (and of the wider input the writer
 * takes): utf8 or large utf8 is string, or json when marked "arrow.json";
 * binary or large binary is binary; fixed_size_binary(16) marked
 * "arrow.uuid" is uuid; decimal128(p, s) with p <= 38 is decimal(p, s); a
 * timestamp in µs with any time zone is timestamptz; list or large list,
 * struct and map are their containers; a struct marked
 * "arrow.parquet.variant" (Variant storage) is variant; every other type is the one whose
 * format rows_column_arrow_schema gives. *precision and *scale are set for
 * a decimal (0 otherwise). Returns 0, or -1 when the field maps to no
 * catalog type (a dictionary-encoded field among them). */
int rows_arrow_column_type(const struct ArrowSchema *s, enum lake_type *type, int *precision,
                           int *scale);

/* Whether an Arrow field carries the "arrow.uuid" extension name. */
bool rows_schema_is_uuid(const struct ArrowSchema *s);
/* Whether a field carries Arrow's canonical "arrow.parquet.variant"
 * extension name (a variant column's storage struct). */
bool rows_schema_is_variant(const struct ArrowSchema *s);
/* Whether a field carries Arrow's canonical "arrow.json" extension name. */
bool rows_schema_is_json(const struct ArrowSchema *s);
/* Whether a field carries the GeoArrow extension name "geoarrow.wkb". */
bool rows_schema_is_wkb(const struct ArrowSchema *s);
/* Marks a field with the "arrow.uuid" extension name, keeping a
 * "PARQUET:field_id" entry it has. 0 or -1. */
int rows_schema_mark_uuid(struct ArrowSchema *s);
/* Marks every json column of c's subtree in s (c's Arrow schema, as
 * rows_column_arrow_schema made it) "arrow.json", as readers hand them
 * out: a consumer (pyarrow's pa.json_(), a table created from the schema)
 * then sees JSON, not a plain string. 0, or -1 out of memory. */
int rows_schema_mark_json(struct ArrowSchema *s, const struct lake_column *c);
/* Marks the fields of a reader's Arrow schema (a struct of top-level
 * columns of the file schema ps, found by name) with the extension names
 * their annotations call for: "arrow.uuid" on UUID leaves,
 * "arrow.parquet.variant" on VARIANT groups. 0 or -1. */
int rows_schema_mark_file_extensions(struct ArrowSchema *schema, const struct pq_schema *ps);

#endif
