/* hog_snapshot and hog_snapshot_change rows as the readers see them: the
 * snapshot log a page at a time, each snapshot with its change rows, and
 * the change rows that mark a TRUNCATE. Allocating snapshots stays with
 * the DDL and commit paths (server/catalog/catalog.h, server/commit/).
 *
 * A log page can hold thousands of snapshots: it is a view over the
 * query's result, read a row at a time, never copied. */
#ifndef HL_SERVER_STORE_SNAPSHOTS_H
#define HL_SERVER_STORE_SNAPSHOTS_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

struct db_conn;

/* A page of the log: one row per (snapshot, change row), a snapshot's
 * rows together, in the page's order. */
struct store_snapshot_rows {
    PGresult *r;
};
/* One row; strings borrowed from the rows (valid until they are freed). */
struct store_snapshot_row {
    int64_t snapshot_id;
    int64_t time_us; /* snapshot_time, microseconds since the epoch */
    int64_t schema_version;
    const char *author;  /* NULL: none, or not the snapshot's first row */
    const char *message; /* NULL: none, or not the snapshot's first row */
    const char *kind;    /* the change row's kind; NULL: the snapshot has none */
    int64_t object_id;   /* the change row's object */
    const char *name;    /* its name at the snapshot; NULL: unknown (its rows are gone) */
    /* What a table_inserted_into added (data files, their rows) and what a
     * table_deleted_from added (deletion vectors); -1 for other kinds. */
    int64_t files_added, rows_added, delete_files_added;
    /* The snapshots before this one in the page weigh budget_bytes or
     * more: this one comes alone (no author, message or change rows) and
     * the page ends before it. Never the page's first snapshot. */
    bool past_budget;
};

/* Up to limit + 1 snapshots of the catalog after `from` ascending, or
 * before it descending (one past the page tells whether the log goes on),
 * with their change rows ordered by (kind, object_id). A snapshot weighs
 * its author's and message's bytes and 128 bytes a change row (about
 * what one costs as JSON). 0 or -1. */
int store_snapshots_page(struct db_conn *db, int64_t catalog_id, int64_t from, bool descending,
                         int64_t limit, int64_t budget_bytes, struct store_snapshot_rows *out,
                         struct error *err);
int store_snapshot_rows_count(const struct store_snapshot_rows *rows);
void store_snapshot_row(const struct store_snapshot_rows *rows, int i,
                        struct store_snapshot_row *out);
void store_snapshot_rows_free(struct store_snapshot_rows *rows);

/* The first snapshot in (from, to] that truncated the table: 1 with
 * *snapshot_id set, 0 when none did, -1. A truncate is the one snapshot
 * that writes both table_altered and table_deleted_from for a table (other
 * DDL writes only table_altered, data commits never write it). */
int store_snapshots_find_truncate(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                  int64_t from, int64_t to, int64_t *snapshot_id,
                                  struct error *err);

/* The last snapshot committed at or before at_us (µs since the epoch) and
 * not below `floor`: 1 with *snapshot set, 0 when there is none, -1. */
int store_snapshot_at(struct db_conn *db, int64_t catalog_id, int64_t at_us, int64_t floor,
                      int64_t *snapshot, struct error *err);

/* When the catalog came to be: snapshot 0's time while it is retained,
 * else the catalog row's created_at. 1 with *created_us set, 0 when the
 * catalog is gone, -1. */
int store_snapshot_catalog_created(struct db_conn *db, int64_t catalog_id, int64_t *created_us,
                                   struct error *err);

/* What store_snapshot_allocate hands out. */
struct store_snapshot_allocation {
    int64_t snapshot_id;
    int64_t schema_version; /* after the bump (a DDL's) */
    int64_t first_file_id;  /* the first of the nfile_ids file ids */
};
/* Inside the catalog's locked transaction: allocates the next snapshot id
 * (bumping schema_version for a DDL) and nfile_ids file ids, and inserts
 * the snapshot row, stamped with clock_timestamp() (after the lock). */
int store_snapshot_allocate(struct db_conn *db, int64_t catalog_id, bool ddl, int64_t nfile_ids,
                            struct store_snapshot_allocation *out, struct error *err);
/* Records what a snapshot changed: a change row (kind, object id). */
int store_snapshot_change_add(struct db_conn *db, int64_t catalog_id, int64_t snapshot_id,
                              const char *kind, int64_t object_id, struct error *err);

#endif
