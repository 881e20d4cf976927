/* The summary sampler (contract 7.5): keeps each catalog's partition
 * summary (store/summary.h), which GET .../stats/partitions reads instead
 * of the file rows.
 *
 * Every interval the sampler takes one step per catalog, each its own
 * short transaction on the catalog's summary row (SKIP LOCKED, so servers
 * sharing the database take turns and never walk one catalog twice at
 * once): when the published generation is older than the refresh age, it
 * brings it to the head by the changes since its snapshot (files added
 * and ended, deletion vectors, tables dropped or altered: a cost that
 * follows the commits, not the catalog's size) when they are few enough
 * and the expiry floor has not passed its snapshot; else it starts a walk
 * at the head. A walk adds the next `batch` files in id order to a new
 * generation's buckets, and the batch that comes up short publishes it. A
 * walk whose snapshot falls below the expiry floor (its files may be
 * purged) starts again at the head. Buckets of generations neither
 * published nor being built are deleted a batch a step. Nothing holds the
 * catalog lock; commits never wait on it. */
#ifndef HL_SERVER_MAINTENANCE_SUMMARY_H
#define HL_SERVER_MAINTENANCE_SUMMARY_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdint.h>

#include "util/error.h"

struct db_pool;
struct metrics;

struct summary_options {
    int64_t interval_ms; /* > 0 */
    int64_t batch;       /* files a step adds, > 0 */
    int64_t refresh_s;   /* age at which a published generation is walked again */
    int64_t small_bytes; /* files under it are small (compaction's target) */
    /* A refresh applies the changes since the published snapshot when they
     * touch fewer rows than this; otherwise (and when 0) it walks. */
    int64_t change_limit;
};

enum summary_step_outcome {
    SUMMARY_IDLE,      /* published and fresh: nothing walked */
    SUMMARY_WALKED,    /* a batch added, the walk goes on */
    SUMMARY_PUBLISHED, /* the walk ended: its generation is published */
    SUMMARY_REFRESHED, /* the published generation moved to the head by its changes */
    SUMMARY_BUSY,      /* another server holds the catalog's summary */
};

/* One step on catalog_id, in its own transaction on pg (none open).
 * *files: how many files it added. 0, or -1 with err (rolled back). */
int summary_step(PGconn *pg, int64_t catalog_id, const struct summary_options *opt,
                 enum summary_step_outcome *outcome, int64_t *files, struct error *err);

/* Sets on o how fresh the catalog's summary is: sampled_at (when the
 * published generation was), sampled_snapshot_id (the snapshot it
 * counts), sample_walk_ms (how long its walk took), and
 * sample_started_at while a walk is in progress. Nothing when the
 * catalog was never sampled. */
struct store_summary_info;
void summary_freshness(json_t *o, const struct store_summary_info *info);

struct summary_sampler;
/* Starts the sampler's thread (opt copied). NULL with err filled when it
 * cannot start. */
struct summary_sampler *summary_sampler_start(struct db_pool *pool, struct metrics *m,
                                              const struct summary_options *opt, struct error *err);
/* Stops it after the step in progress. NULL is a no-op. */
void summary_sampler_stop(struct summary_sampler *s);

#endif
