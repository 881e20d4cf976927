/* The store of retirement (contract 7.5): the statements that retire a
 * dropped (or replaced) table once no readable snapshot can see it, that is
 * once its dropped_snapshot is at or below the catalog's earliest retained
 * snapshot. Retiring deletes the table's deletion vectors, then its data
 * files with their partition values (statistics live in the file row),
 * queueing every path into hog_file_removal with reason table_drop_gc,
 * and finally purges the table's catalog rows: consumer offsets on its
 * uuid and the hog_table row, whose cascade takes its versions, columns,
 * specs, stats and compaction claims.
 *
 * Functions run inside the caller's transaction, which holds the catalog
 * lock (store_retention_lock): they never begin, commit or roll back. */
#ifndef HL_SERVER_STORE_RETIREMENT_H
#define HL_SERVER_STORE_RETIREMENT_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

struct error;

/* The oldest-dropped eligible table of the catalog (ties by id): 1 with
 * *table_id set, 0 when none is eligible, -1. */
int store_retirement_next(PGconn *pg, int64_t catalog_id, int64_t *table_id, struct error *err);

/* The eligible tables of the catalog, for the backlog. */
int store_retirement_eligible(PGconn *pg, int64_t catalog_id, int64_t *tables, struct error *err);

/* What one batch did to one table. */
struct store_retirement_batch {
    int64_t delete_files; /* DV rows deleted and queued */
    int64_t data_files;   /* data file rows deleted and queued */
    bool purged;          /* no file row was left: the table's rows went */
};

/* Retires up to `limit` (>= 1) file rows of table_id, which
 * store_retirement_next returned in the same transaction (so it is
 * eligible: the lock held since keeps it so): DVs first, data files once
 * no DV is left, and the table's own rows once no file row is left. */
int store_retirement_batch(PGconn *pg, int64_t catalog_id, int64_t table_id, int64_t limit,
                           struct store_retirement_batch *out, struct error *err);

#endif
