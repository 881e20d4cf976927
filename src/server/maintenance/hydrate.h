/* The hydrator (contract §7.4): fills the statistics of data files that
 * were registered without them (stats_state 'pending').
 *
 * One pass claims a catalog's pending live files one at a time, in
 * data_file_id order, each with FOR NO KEY UPDATE SKIP LOCKED, in groups
 * that share a transaction (up to 64 files or 250 ms: one commit, one WAL
 * flush, per group): a file another pass (this server or another) holds
 * is skipped, and a claim lasts until its group commits, so no file is
 * ever hydrated twice. Files of dropped tables are skipped. The table's
 * definition is loaded once for the files whose snapshots it is known to
 * hold (up to its next DDL), not once a file.
 *
 * Per file: the footer is fetched with one ranged GET of footer_size + 8
 * bytes; when footer_size is absent or does not describe the tail, the
 * whole object is read instead, up to HYDRATE_MAX_WHOLE_OBJECT_BYTES (a
 * larger one fails). Statistics come from pq_footer_column_stats against
 * the table's definition at the file's begin_snapshot (what the client
 * would have shipped), then pass the commit path's repairs (counts clamped,
 * bounds sanitised; counted in hoglake_stats_repaired_total{source=
 * "hydrator"}). Outcomes:
 *  - footer row count differs from record_count, the object is missing,
 *    too large or not a Parquet file we can read: 'failed' (retried only
 *    after a rehydrate);
 *  - any other storage error (timeouts, 5xx, access errors): the file stays
 *    'pending' and counts as transient;
 *  - otherwise the stats rows are written, split_offsets (when the file had
 *    none) and missing_field_ids set, and the file becomes 'provided'.
 *
 * Metrics: hoglake_stats_hydrated_total{result="provided"|"failed"},
 * hoglake_hydrator_transient_errors_total, and after each pass the
 * gauges hoglake_stats_pending_files / hoglake_stats_failed_files
 * {catalog}.
 *
 * The pass runs on the context's database connection and reads
 * objects through a view of ctx->srv->objstore confined to the catalog's
 * data path (server/storage_guard.h: refusals, and objects that are not their
 * registered size, fail the file); it must be called outside any
 * transaction. A background loop calls it with a request it built itself
 * (srv, arena, no route). */
#ifndef HL_SERVER_MAINTENANCE_HYDRATE_H
#define HL_SERVER_MAINTENANCE_HYDRATE_H

#include <jansson.h>
#include <libpq-fe.h>
#include <stdint.h>

#include "server/catalog/catalog.h"
#include "server/ctx.h"
#include "util/error.h"

/* 256 MiB, the contract's HOGLAKE_HYDRATOR_MAX_WHOLE_OBJECT_BYTES. */
#define HYDRATE_MAX_WHOLE_OBJECT_BYTES ((uint64_t)256 * 1024 * 1024)

struct hydrate_result {
    int64_t hydrated;      /* became 'provided' */
    int64_t failed;        /* became 'failed' */
    int64_t transient;     /* left 'pending' after a storage error */
    int64_t still_pending; /* pending live files of the catalog after the pass */
};

/* Hydrates up to max_files (>= 1) pending files of `cat`. Returns 0 with
 * *out filled, or -1 with err filled (database failure, out of memory):
 * the groups committed before the failure stay finished (the failing
 * group's files stay pending). Per-file problems are
 * outcomes, never errors. */
int hydrate_pass(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t max_files,
                 struct hydrate_result *out, struct error *err);

/* The pass's result object {hydrated, failed, transient_errors,
 * still_pending} (new reference; NULL when out of memory), as the endpoint
 * answers it and the runs ledger records it. */
json_t *hydrate_result_json(const struct hydrate_result *r);

/* Flips the catalog's failed live files back to 'pending' (table_id > 0:
 * that table's only); *requeued gets how many. */
int hydrate_requeue_failed(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t table_id,
                           int64_t *requeued, struct error *err);

/* The hydrator as a maintenance task (maintenance.h): ctx is a struct
 * hydrate_task. Each looped pass hydrates at most `batch` files of one
 * catalog, on the framework's pooled connection. */
struct server;
struct hydrate_task {
    struct server *srv;
    int64_t batch; /* >= 1 */
};
int hydrate_task_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result,
                      struct error *err);
/* {pending_files, failed_files} of live files. */
json_t *hydrate_task_backlog(void *ctx, PGconn *pg, int64_t catalog_id);

#endif
