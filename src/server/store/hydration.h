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

/* Lets the caller's transaction, which holds one file's claim, sit idle
 * longer than the pool's idle-in-transaction limit: the claim is a row
 * lock held across the object read (a whole-object read with retries). A
 * crashed server's claim still ends with its session. */
int store_hydration_claim_timeout(struct db_conn *db, struct error *err);
/* Claims the next pending live file of a live table after `after` that
 * nobody else holds: 1 with *f filled, 0 when there is none, -1. */
int store_hydration_claim_next(struct db_conn *db, int64_t catalog_id, int64_t after,
                               struct arena *a, struct store_pending_file *f, struct error *err);
/* Records the claimed file's outcome (provided or failed, whether columns
 * lack field ids, its split offsets unless it has some). */
int store_hydration_settle(struct db_conn *db, int64_t catalog_id, int64_t file_id, bool provided,
                           bool missing_field_ids, const int64_t *splits, size_t nsplits,
                           struct error *err);
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
