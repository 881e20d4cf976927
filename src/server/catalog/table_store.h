/* Moving a table's definition between the catalog's versioned rows and the
 * in-memory model (lake/schema.h): load the definition visible at a
 * snapshot, insert a new table, and write an altered model back as ended
 * and new row versions at the DDL's snapshot. */
#ifndef HL_SERVER_CATALOG_TABLE_STORE_H
#define HL_SERVER_CATALOG_TABLE_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "lake/schema.h"
#include "server/catalog/catalog.h"
#include "server/http/api.h"

/* Loads columns, partition spec and sort order visible at `snapshot`, plus
 * the name, comment and properties from `ref`. With `file_facts`, also the
 * live-file counts the alter guards need. */
int table_load(struct srv_req *req, const struct catalog_row *cat, const struct table_ref *ref,
               int64_t snapshot, bool file_facts, struct lake_table *t, struct api_error *err);

/* Inserts a new table built in `t` (columns, and optionally spec and sort)
 * at the DDL's snapshot. Fills ref with the new identity. */
int table_insert(struct ddl_txn *txn, int64_t namespace_id, struct lake_table *t,
                 struct table_ref *ref, struct api_error *err);

/* Writes what alter ops changed in `t` at the DDL's snapshot. */
int table_write_changes(struct ddl_txn *txn, int64_t namespace_id, const struct table_ref *ref,
                        struct lake_table *t, struct api_error *err);

struct table_totals {
    int64_t records, files, bytes;
};
/* Exact totals of the table's files visible at `snapshot` (gross of
 * deletion vectors). */
int table_totals(struct srv_req *req, const struct catalog_row *cat, int64_t table_id,
                 int64_t snapshot, struct table_totals *out, struct api_error *err);

/* The Table response object. `totals` may be NULL (totals=false);
 * `ddl_snapshot` < 0 omits snapshot_id. */
json_t *table_to_json(const struct lake_table *t, const char *namespace_name,
                      const struct table_ref *ref, int64_t read_snapshot,
                      const struct table_totals *totals, bool totals_at_head, int64_t ddl_snapshot);

#endif
