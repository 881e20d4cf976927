/* What a commit reads (server/commit/): in one batch (commit_batch.h),
 * the catalog's head and floor (hog_catalog), the idempotency key's
 * receipt (hog_commit_receipt), the request's live tables with their
 * partition spec, row-id allocator and DDL since read_snapshot
 * (hog_namespace, hog_table_version, hog_table, hog_partition_spec/field,
 * hog_table_stats, hog_snapshot_change; for a guarded table, also its
 * inserts and deletes since), their live columns (hog_column),
 * the data files its deletion vectors target with their live vectors
 * (hog_data_file, hog_delete_file) and the path guard (hog_file_removal,
 * hog_data_file, hog_delete_file, hog_upload). Then, one statement each: a dropped
 * table's drop, for the refusal, and a receipt for its endpoint.
 *
 * The batch's answers stay in the batch until it is freed; the readers
 * below decode them by the index their statement got, into structs whose
 * strings are borrowed from the batch. */
#ifndef HL_SERVER_STORE_COMMIT_READS_H
#define HL_SERVER_STORE_COMMIT_READS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/db/pgarray.h"
#include "server/store/catalogs.h"
#include "server/store/commit_batch.h"
#include "util/arena.h"
#include "util/error.h"

/* The reads one batch asks for. The lists are filled with the functions
 * below, the tables in the request's order. */
struct store_commit_reads {
    /* The catalog: the head is read only where its id still has this name
     * and data path (the caller's may come from a cache). */
    struct catalog_ident cat;
    const char *key; /* with `receipt`: the idempotency key */
    bool has_read_snapshot;
    int64_t read_snapshot;    /* DDL after it is flagged on each live table */
    bool receipt;             /* the key's receipt */
    bool columns;             /* the live tables' columns */
    bool dv_targets;          /* the deletion vectors' target files */
    bool path_guard;          /* whether a path is queued for removal or taken */
    const char *upload_owner; /* with path_guard: whose upload claims it may consume */
    bool claims_required;     /* with path_guard: every path must be one of its active claims */
    struct pg_array namespaces, names, guarded, dv_ids, paths, kinds;
    size_t ntables;
};

void store_commit_reads_init(struct store_commit_reads *r, const struct catalog_ident *cat);
void store_commit_reads_free(struct store_commit_reads *r);
/* A table of the request: its position in this list is its ordinal.
 * Guarded: an insert or delete on it after read_snapshot (or its
 * creation) is flagged too. */
void store_commit_reads_table(struct store_commit_reads *r, const char *namespace_name,
                              const char *name, bool guarded);
/* A path the commit registers, of kind "data" (a file's) or "delete" (a
 * deletion vector's): an upload claim must be of the same kind. */
void store_commit_reads_path(struct store_commit_reads *r, const char *path, const char *kind);
/* A data file a deletion vector targets. */
void store_commit_reads_dv_target(struct store_commit_reads *r, int64_t data_file_id);

/* Which statement of the batch answers each read (-1: not asked). */
struct store_commit_read_slots {
    int head, receipt, live, columns, dv_targets, paths;
};

/* Queues the head, then the reads r asks for. 0 or -1. */
int store_commit_queue_reads(struct store_commit_batch *s, struct store_commit_reads *r,
                             struct store_commit_read_slots *at, struct error *err);

/* The catalog's head and expiry floor, with the instant the floor was
 * reached (for a 410's message). */
struct store_commit_head {
    int64_t head, earliest;
    bool has_earliest_time;
    int64_t earliest_time_us;
};
/* 1 with *out, or 0 when the catalog is gone (or its id no longer has the
 * name and data path the reads were given). */
int store_commit_head(const struct store_commit_batch *s, int at, struct store_commit_head *out);

/* A receipt: what the key committed, and the digest of its request. */
struct store_commit_receipt {
    const uint8_t *fingerprint; /* in the arena */
    size_t fingerprint_len;
    int64_t snapshot_id, schema_version;
};
/* 1 with *out filled, 0 when the key has none, -1 (out of memory). */
int store_commit_receipt(const struct store_commit_batch *s, int at, struct arena *arena,
                         struct store_commit_receipt *out, struct error *err);

/* A live table of the request (the others have no row). */
struct store_commit_live_table {
    int64_t ordinal; /* 1 + its position in the reads' table list */
    int64_t table_id;
    const char *uuid; /* borrowed */
    bool has_spec;
    int64_t spec_id;
    int64_t nspec_fields;
    bool has_allocator; /* its hog_table_stats row exists */
    int64_t next_row_id;
    int64_t stats_bytes;
    bool ddl_since_read;  /* dropped or altered after read_snapshot */
    bool data_since_read; /* guarded: created, inserted into or deleted from after it */
};
int store_commit_live_count(const struct store_commit_batch *s, int at);
void store_commit_live_table(const struct store_commit_batch *s, int at, int i,
                             struct store_commit_live_table *out);

/* A live column of a live table, ordered by table, then field id. */
struct store_commit_column {
    int64_t field_id;
    const char *type; /* borrowed: its column type's name */
    int precision, scale;
    int64_t parent_field_id; /* 0 for a top-level column */
};
/* The columns of table_id: how many, the first at *first. */
int store_commit_columns_of(const struct store_commit_batch *s, int at, int64_t table_id,
                            int *first);
void store_commit_column(const struct store_commit_batch *s, int at, int i,
                         struct store_commit_column *out);

/* A deletion vector's target data file, with its live vector if any. */
struct store_commit_dv_target {
    int64_t table_id, begin, end, records;
    bool ended;
    bool has_live_dv;
    int64_t dv_id, dv_begin, dv_count;
};
/* The target data_file_id: 1 with *out filled, 0 when it is unknown. */
int store_commit_dv_target(const struct store_commit_batch *s, int at, int64_t data_file_id,
                           struct store_commit_dv_target *out);

/* Whether a path of the commit is taken, and which (borrowed). */
enum store_commit_path_state {
    STORE_COMMIT_PATH_FREE,
    STORE_COMMIT_PATH_QUEUED,     /* queued for removal: the drain may still delete it */
    STORE_COMMIT_PATH_REGISTERED, /* a file or deletion vector row, live or ended, names it */
    STORE_COMMIT_PATH_CLAIMED,    /* an upload claim not the commit's to consume names it */
    STORE_COMMIT_PATH_UNCLAIMED,  /* claims required: no active claim of the owner and kind */
};
enum store_commit_path_state store_commit_path_guard(const struct store_commit_batch *s, int at,
                                                     const char **path);

/* The snapshot that dropped the table named (namespace_name, name), when
 * a drop ended its last version: 1 with *snapshot set, 0 when none did,
 * -1. */
int store_commit_dropped_at(struct db_conn *db, int64_t catalog_id, const char *namespace_name,
                            const char *name, int64_t *snapshot, struct error *err);

/* The receipt of key (a lowercase UUID): 1 with what it committed, 0 when
 * there is none, -1. */
int store_commit_receipt_get(struct db_conn *db, int64_t catalog_id, const char *key,
                             int64_t *snapshot_id, int64_t *schema_version, struct error *err);

#endif
