/* The store of retention: the multi-table statements of snapshot expiry
 * (contract 7.1) and of the bounded purges that keep history finite.
 *
 * Expiry reads and moves a catalog's retention floor (hog_catalog's
 * earliest_snapshot_id/_time, its retention settings), releases superseded
 * consumer offsets (hog_consumer_offset), range-deletes expired snapshots
 * and their change rows (hog_snapshot, hog_snapshot_change) and ended
 * versioned metadata (hog_table_version, hog_column, hog_partition_spec,
 * hog_sort_spec, hog_view), and purges ended data files and deletion
 * vectors (hog_data_file, hog_delete_file) into the removal queue
 * (hog_file_removal). Cleanup purges old commit receipts
 * (hog_commit_receipt) here too.
 *
 * Functions run on the bare connection a pass holds and leave transaction
 * boundaries (BEGIN, COMMIT, ROLLBACK) to the caller unless they say so. */
#ifndef HL_SERVER_STORE_RETENTION_H
#define HL_SERVER_STORE_RETENTION_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

struct error;

/* Inside a transaction: waits up to lock_timeout_ms (0: none) for the
 * catalog's transaction lock, lock_key (catalog_lock_key). */
int store_retention_lock(PGconn *pg, int64_t lock_key, int lock_timeout_ms, struct error *err);
/* Test hook: a statement cut short by a 10 ms statement timeout, so the
 * caller's retry runs against a real cancellation: -1 (0 should the
 * statement finish after all). */
int store_retention_stall(PGconn *pg, struct error *err);

/* Deletes offsets on a table incarnation a newer one replaced, where the
 * same consumer already tracks the newer one: they would pin the floor
 * forever. *released how many. */
int store_retention_release_offsets(PGconn *pg, int64_t catalog_id, int64_t *released,
                                    struct error *err);

/* What a new floor is computed from; *_present false means no bound. */
struct store_retention_floor {
    int64_t earliest; /* the current floor */
    int64_t head;
    bool retention_enabled;
    bool consumer_floor;
    bool window_present; /* first snapshot inside the retention window */
    int64_t window_first;
    bool consumer_present; /* lowest offset on an existing table */
    int64_t consumer_min;
};
/* 1 read, 0 no such catalog, -1. */
int store_retention_read_floor(PGconn *pg, int64_t catalog_id, struct store_retention_floor *out,
                               struct error *err);
/* Moves the floor from `from` up to `floor`: range-deletes the snapshots
 * in between (change rows first), moves earliest_snapshot_id/_time and
 * deletes the metadata rows that ended at or below floor. *expired the
 * snapshots deleted. */
int store_retention_advance(PGconn *pg, int64_t catalog_id, int64_t from, int64_t floor,
                            int64_t *expired, struct error *err);

/* The two arms of the purge, in the order expiry runs them. */
enum store_retention_arm {
    STORE_RETENTION_ENDED_FILES, /* ended data files with all their DVs */
    STORE_RETENTION_ENDED_DVS,   /* superseded DVs whose data file lives on */
};
/* Inside a transaction: bounds the page's statements to 5 s. */
int store_retention_page_bound(PGconn *pg, struct error *err);
/* One page of at most `page` rows ended at or below floor, queued into
 * hog_file_removal (reason snapshot_expiry): *data the data files taken,
 * *dv the deletion vectors. */
int store_retention_purge_page(PGconn *pg, enum store_retention_arm arm, int64_t catalog_id,
                               int64_t floor, int64_t page, int64_t *data, int64_t *dv,
                               struct error *err);

/* A catalog's retention state, for gauges and /maintenance/status. */
struct store_retention_state {
    char catalog[256]; /* the name (what a label holds of it, at least) */
    int64_t head;
    int64_t earliest;
    int64_t queue_depth; /* undrained hog_file_removal rows */
};
/* 1 read, 0 no such catalog, -1. */
int store_retention_state(PGconn *pg, int64_t catalog_id, struct store_retention_state *out,
                          struct error *err);

struct store_retention_settings {
    bool has_retention;
    int64_t retention_s;
    bool consumer_floor;
    int64_t earliest;
    int64_t head;
};
/* 1 read, 0 no such catalog, -1. */
int store_retention_settings(PGconn *pg, int64_t catalog_id, struct store_retention_settings *out,
                             struct error *err);

/* The cap of the receipts' floor: twice the snapshot retention, at most
 * this long. */
enum { STORE_RETENTION_RECEIPT_CAP_SECONDS = 2592000 };
/* Deletes up to limit of the catalog's commit receipts older than the
 * effective retention: retention_s, but never less than twice the
 * catalog's snapshot retention (capped), so a writer retrying across an
 * expiry window still finds its receipt. *purged how many. */
int store_retention_purge_receipts(PGconn *pg, int64_t catalog_id, int64_t retention_s,
                                   int64_t limit, int64_t *purged, struct error *err);

#endif
