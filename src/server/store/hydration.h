/* The store of hydration state: a live data file's footer-derived facts in
 * hog_data_file (stats_state, missing_field_ids, split_offsets,
 * column_stats), as the hydrator (maintenance/hydrate.h) and
 * compaction write them. */
#ifndef HL_SERVER_STORE_HYDRATION_H
#define HL_SERVER_STORE_HYDRATION_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/colstats.h"
#include "util/arena.h"
#include "util/error.h"

struct db_conn;

/* A pending file the hydrator holds. */
struct store_pending_file {
    int64_t id, table_id, begin_snapshot, record_count, file_size;
    bool has_footer_size, has_splits;
    int64_t footer_size;
    char *path; /* in the caller's arena */
};

/* Lets the caller's transaction, which holds its files' claims, sit idle
 * longer than the pool's idle-in-transaction limit: the claim is a row
 * lock held across the object read (a whole-object read with retries). A
 * crashed server's claim still ends with its session. */
int store_hydration_claim_timeout(struct db_conn *db, struct error *err);
/* Claims, in data_file_id order, up to max pending live files of live
 * tables after `after` that nobody else holds, into files[0..*n). 0 or
 * -1. */
int store_hydration_claim(struct db_conn *db, int64_t catalog_id, int64_t after, size_t max,
                          struct arena *a, struct store_pending_file *files, size_t *n,
                          struct error *err);
/* What the hydrator settles a claimed file with. */
struct store_hydration_outcome {
    int64_t file_id;
    bool provided;                    /* else failed */
    bool missing_field_ids;           /* some leaf lacks a field id (provided only) */
    const struct pq_col_stats *stats; /* provided only */
    size_t nstats;
    const int64_t *splits; /* kept only when the file has none */
    size_t nsplits;
};
/* Records the claimed file's outcome, in one UPDATE of its row: its state,
 * its statistics (provided), whether columns lack field ids, its split
 * offsets unless it has some. */
int store_hydration_settle(struct db_conn *db, int64_t catalog_id,
                           const struct store_hydration_outcome *o, struct error *err);
/* Pending and failed live files of the catalog's live tables. */
int store_hydration_backlog(PGconn *pg, int64_t catalog_id, int64_t *pending, int64_t *failed,
                            struct error *err);
/* Flips failed live files back to pending (table_id 0: the catalog's
 * every table); *requeued gets how many. */
int store_hydration_requeue_failed(struct db_conn *db, int64_t catalog_id, int64_t table_id,
                                   int64_t *requeued, struct error *err);

/* Sets one file's column statistics (leaves none when n is 0), inside the
 * caller's transaction. */
int store_file_stats_set(struct db_conn *db, int64_t catalog_id, int64_t data_file_id,
                         const struct pq_col_stats *stats, size_t n, struct error *err);

#endif
