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
#include "server/store/catalogs.h"
#include "server/ctx.h"
#include "util/error.h"

/* A table as a reader names it: its identity and its visible version. */
struct table_ref {
    int64_t table_id;
    const char *table_uuid; /* arena */
    const char *name;       /* arena */
    const char *comment;    /* arena, NULL = none */
    const char *properties; /* arena, JSON text */
    int64_t version_begin;  /* begin_snapshot of the visible version row */
    /* Field id of the primary timestamp column, 0 = none. */
    int64_t primary_ts_field_id;
};

/* The table named `name` in the namespace, visible at `snapshot`, strings
 * in the arena: 1 with *out filled, 0 when there is none, -1. */
int store_table_find(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                     int64_t namespace_id, const char *name, int64_t snapshot,
                     struct table_ref *out, struct error *err);

/* Loads columns, partition spec and sort order visible at `snapshot`, plus
 * the name, comment and properties from `ref`. With `file_facts`, also the
 * live-file counts the alter guards need. */
int store_table_load(struct srv_ctx *ctx, const struct catalog_row *cat,
                     const struct table_ref *ref, int64_t snapshot, bool file_facts,
                     struct lake_table *t, struct error *err);

/* Where a DDL writes: its open transaction's connection, the catalog, the
 * snapshot it allocated, and the arena for what comes back. */
struct store_ddl {
    struct db_conn *db;
    int64_t catalog_id;
    int64_t snapshot_id;
    struct arena *arena;
};

/* Inserts a new table built in `t` (columns, and optionally spec and sort)
 * at the DDL's snapshot. Fills ref with the new identity. */
int store_table_insert(struct store_ddl at, int64_t namespace_id, struct lake_table *t,
                       struct table_ref *ref, struct error *err);

/* Writes what alter ops changed in `t` at the DDL's snapshot. */
int store_table_write_changes(struct store_ddl at, int64_t namespace_id,
                              const struct table_ref *ref, struct lake_table *t, struct error *err);

struct table_totals {
    int64_t records, files, bytes;
};
/* Exact totals of the table's files visible at `snapshot` (gross of
 * deletion vectors). */
int store_table_totals(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t table_id,
                       int64_t snapshot, struct table_totals *out, struct error *err);

/* A table as the namespace listing shows it, at a snapshot. */
struct store_table_summary {
    const char *name, *table_uuid, *comment; /* comment NULL when none */
    int64_t records, files, bytes;           /* exact at the snapshot */
    int64_t snapshots; /* retained snapshots whose table-scoped changes name it */
};
/* Takes one listed table; its strings last until it returns. 0, or -1
 * with err set to stop the walk. */
typedef int store_table_summary_fn(void *ctx, const struct store_table_summary *t,
                                   struct error *err);
/* Walks the namespace's tables visible at `snapshot` by name, each as its
 * row arrives (a listing of 54,000 tables is written while PostgreSQL
 * still reads it, and never held as one result). Runs in the caller's
 * transaction, whose end resets the planner settings it makes. 0 or -1
 * (the callback's error, or the statement's). */
int store_tables_list(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                      int64_t snapshot, store_table_summary_fn *fn, void *ctx, struct error *err);
/* Whether a live table in the namespace has this name: 1, 0, -1. */
int store_table_name_taken(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                           const char *name, struct error *err);
/* Ends the table's definition rows at the DDL's snapshot (its file rows are
 * left for retirement). */
int store_table_drop(struct store_ddl at, int64_t table_id, struct error *err);
/* Ends every live data file and deletion vector of the table at the DDL's
 * snapshot. */
int store_table_truncate(struct store_ddl at, int64_t table_id, struct error *err);
/* The first snapshot after `after` whose DDL created, altered or dropped
 * the table: 1 with *first set, 0 when there is none, -1. */
int store_table_ddl_after(struct db_conn *db, int64_t catalog_id, int64_t table_id, int64_t after,
                          int64_t *first, struct error *err);
/* How far the table's definition at `snapshot` is known to hold: *until
 * gets the first snapshot after it at which the definition may differ,
 * the table's next DDL or the head's successor (a later DDL is not
 * written yet), and snapshot + 1 when the snapshot is below the floor
 * (its DDL change rows may be expired). 0 or -1. */
int store_table_definition_until(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                 int64_t snapshot, int64_t *until, struct error *err);

#endif
