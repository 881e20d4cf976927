/* The store of table definitions: hog_table, hog_table_version,
 * hog_column, hog_partition_spec/field and hog_sort_spec/field. Moves a
 * table's definition between these versioned rows and the in-memory model
 * (lake/schema.h): load the definition visible at a snapshot, insert a new
 * table, write an altered model back as ended and new row versions at the
 * DDL's snapshot; and the totals of its files. Failures are struct error:
 * the database's, the model's, or ERR_INTERNAL for stored rows the model
 * cannot hold (our corruption, never the caller's mistake). */
#ifndef HL_SERVER_STORE_TABLES_H
#define HL_SERVER_STORE_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "lake/schema.h"
#include "server/catalog/catalog.h"
#include "server/ctx.h"
#include "util/error.h"

/* Loads columns, partition spec and sort order visible at `snapshot`, plus
 * the name, comment and properties from `ref`. With `file_facts`, also the
 * live-file counts the alter guards need. */
int store_table_load(struct srv_ctx *ctx, const struct catalog_row *cat,
                     const struct table_ref *ref, int64_t snapshot, bool file_facts,
                     struct lake_table *t, struct error *err);

/* Inserts a new table built in `t` (columns, and optionally spec and sort)
 * at the DDL's snapshot. Fills ref with the new identity. */
int store_table_insert(struct ddl_txn *txn, int64_t namespace_id, struct lake_table *t,
                       struct table_ref *ref, struct error *err);

/* Writes what alter ops changed in `t` at the DDL's snapshot. */
int store_table_write_changes(struct ddl_txn *txn, int64_t namespace_id,
                              const struct table_ref *ref, struct lake_table *t, struct error *err);

struct table_totals {
    int64_t records, files, bytes;
};
/* Exact totals of the table's files visible at `snapshot` (gross of
 * deletion vectors). */
int store_table_totals(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t table_id,
                       int64_t snapshot, struct table_totals *out, struct error *err);

#endif
