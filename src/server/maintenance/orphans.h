/* The orphan sweep: lists a catalog's storage and deletes the objects
 * nothing references.
 *
 * A pass lists the catalog's data path (data_path + "/": file:// without
 * following a symbolic link, S3 ListObjectsV2 page by page), temp files of
 * interrupted file:// puts included, and classifies each page of up to
 * ORPHANS_SUB_BATCH objects in one query. An object is kept when a data
 * file or deletion-vector row of the catalog names it (live or ended), an
 * active unexpired upload claim names it, an undrained removal row holds
 * it (a compaction staging ticket included), or it is younger than the
 * grace. The rest are orphans.
 *
 * Orphans are never deleted directly: each page's orphans are queued in
 * hog_file_removal (reason orphan_sweep) under the catalog's transaction
 * lock, by a statement that checks them again, and those rows are then
 * drained by cleanup's claim, work and settle (cleanup_drain_ids): its
 * liveness re-check and the commits' path guard (a queued path cannot be
 * registered) keep a path registered meanwhile from being deleted, and
 * deletes go through the view confined to the data path.
 *
 * On S3 the pass then lists the incomplete multipart uploads under the
 * same prefix and aborts, through the confined view, the orphaned ones
 * (old, and nothing names the object they would create): an abort
 * deletes no object, so it needs no queue row.
 *
 * Bounded: at most `limit` objects (and uploads) are listed and the pass stops at its
 * time budget; either sets `truncated`. A dry run lists and classifies,
 * and queues and deletes nothing. */
#ifndef HL_SERVER_MAINTENANCE_ORPHANS_H
#define HL_SERVER_MAINTENANCE_ORPHANS_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

struct server;
struct error;
struct catalog_row;

enum {
    ORPHANS_DEFAULT_GRACE_SECONDS = 86400,
    ORPHANS_MIN_GRACE_SECONDS = 60,
    ORPHANS_DEFAULT_LIMIT = 100000,
    ORPHANS_MAX_LIMIT = 10000000,
    /* Objects classified per query, queued and drained per round. */
    ORPHANS_SUB_BATCH = 1000,
    /* Paths a result lists at most (deleted, or would be on a dry run). */
    ORPHANS_LISTED_PATHS = 1000,
    /* Time one pass may run before it stops, truncated. */
    ORPHANS_BUDGET_MS = 600000,
};

struct orphans_options {
    int64_t grace_s;     /* >= ORPHANS_MIN_GRACE_SECONDS */
    int64_t limit;       /* objects listed at most, 1..ORPHANS_MAX_LIMIT */
    int64_t budget_ms;   /* > 0 */
    bool dry_run;        /* classify only */
    bool list_paths;     /* name the paths in the result (manual runs; the loop's
                            ledger rows and audit lines stay small) */
    int lock_timeout_ms; /* the catalog lock's wait when queueing (0: forever) */
};

/* The OrphanSweepResult counters. listed = referenced + claimed + queued +
 * young + orphans; on a real run each orphan is then deleted, missing (gone
 * already), referenced (registered since: cleanup's re-check kept it),
 * refused (confinement) or failed (left queued for cleanup to retry). */
struct orphans_result {
    int64_t listed, referenced, claimed, queued, young, orphans, orphan_bytes, temp_files;
    int64_t deleted, bytes_deleted, missing, refused, failed;
    /* Incomplete S3 multipart uploads: listed, orphaned (old, and no row
     * names their object) and aborted (0 on a dry run). */
    int64_t uploads_listed, uploads_orphaned, uploads_aborted;
    bool truncated;
};

/* One sweep of cat's storage. *paths gets a new JSON array of the first
 * ORPHANS_LISTED_PATHS paths deleted (would be, on a dry run), empty
 * unless opt->list_paths. Returns 0,
 * or -1 with err filled (out and *paths then say what was done). */
int orphans_sweep(struct server *srv, PGconn *pg, const struct catalog_row *cat,
                  const struct orphans_options *opt, struct orphans_result *out, json_t **paths,
                  struct error *err);

/* OrphanSweepResult (new reference; takes `paths`, which may be NULL). */
json_t *orphans_result_json(const struct orphans_result *r, const struct orphans_options *opt,
                            json_t *paths);

/* The orphans maintenance task (maintenance.h). */
struct orphans_task {
    struct server *srv;
    struct orphans_options opt;
};
int orphans_task_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result,
                      struct error *err);

#endif
