/* The commit's shared state, between commit.c (the algorithm: reads, the
 * optimistic and the locked paths), commit_check.c (validating the tables,
 * files and deletion vectors against what was read), commit_write.c
 * (the writes) and commit_group.c (group commit). Internal to the server.
 * The statements are the store's (server/store/commit_*.h). */
#ifndef HL_SERVER_COMMIT_COMMIT_INTERNAL_H
#define HL_SERVER_COMMIT_COMMIT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lake/types.h"
#include "server/commit/commit.h"
#include "server/store/commit_batch.h"
#include "server/store/commit_reads.h"
#include "server/store/commit_writes.h"

/* A live leaf or container column, for checking statistics. */
struct column_info {
    int64_t field_id;
    enum lake_type type;
    int precision, scale;
    int64_t parent_field_id; /* 0 for a top-level column */
    bool repeated;           /* under a list or map: may hold more values than the file has rows */
};

/* What the commit learns about each table it touches. */
struct table_live {
    bool found;
    int64_t table_id;
    const char *uuid;
    bool has_spec;
    int64_t spec_id;
    int64_t nspec_fields;
    bool ddl_since_read;      /* dropped or altered after read_snapshot */
    bool data_since_read;     /* guarded: created, inserted into or deleted from after it */
    int64_t next_row_id;      /* the table's row-id allocator, read under the lock */
    int64_t stats_bytes;      /* its gross byte counter */
    struct column_info *cols; /* sorted by field id; loaded when stats are sent */
    size_t ncols;
    int64_t records, bytes; /* appended: records given new ids, bytes of every file */
};

struct commit_ctx {
    struct srv_ctx *ctx;
    int64_t lock_budget_ms;
    struct catalog_ident cat;
    struct commit_request *c;
    struct commit_outcome *out;
    bool any_stats;                  /* some file carries column_stats */
    struct table_live *live;         /* one per c->tables entry */
    struct store_commit_batch reads; /* results stay until the commit ends */
    struct store_commit_read_slots slot;
    int lock_at; /* the lock statement in the batch that took it, or -1 */
    /* The head and floor, read with the tables (under the lock, or before
     * it on the optimistic path). */
    struct store_commit_head read;
    int64_t repaired; /* statistics fixed instead of refused */
    bool in_txn;
};

/* The write batch, and the statements whose answers or failures mean
 * something. */
struct write_batch {
    struct store_commit_batch s;
    struct store_commit_write_slots at;
};

/* "<namespace>.<table>" of the request's table i, in the context's arena. */
const char *commit_table_label(struct commit_ctx *x, size_t i);
/* Queues BEGIN, the lock budget and the catalog lock (x->lock_at). */
int commit_queue_lock(struct commit_ctx *x, struct store_commit_batch *s, struct error *err);
/* Sends a batch that may hold the lock statement, recording the lock wait;
 * on failure *failed is the statement that failed. */
int commit_run_locked(struct commit_ctx *x, struct store_commit_batch *s, int *failed,
                      struct error *err);
/* Ends x's transaction, which wrote nothing that may stay. */
void commit_rollback(struct commit_ctx *x);

/* commit_check.c: steps 10 to 13 against x->reads (the blind-append
 * policy, the live tables, the conflict check, the files and deletion
 * vectors); *targets_out gets each table's DV targets. */
int commit_check_tables(struct commit_ctx *x, struct store_commit_dv_target ***targets_out,
                        struct error *err);
/* Step 14: a path queued for removal (commit_conflict) or already
 * registered (invalid). */
int commit_path_guard(struct commit_ctx *x, struct error *err);

/* commit_group.c: commits w's recorded statements (the optimistic check
 * and the writes, no BEGIN, lock or COMMIT) together with those of other
 * commits to the same catalog waiting at the same time: one lock
 * acquisition and one WAL flush for the group, each commit still its own
 * snapshot. Returns 0 (committed: x->out's snapshot_id and
 * schema_version), or -1 with *stale (its check failed: run the locked
 * path) or with err. */
int commit_group_run(struct commit_ctx *x, struct write_batch *w, bool *stale, struct error *err);

/* commit_write.c: queues every write into w (not the COMMIT), after the
 * optimistic path's assertion when `optimistic`. */
int commit_queue_writes(struct commit_ctx *x, struct write_batch *w,
                        struct store_commit_dv_target **targets, bool optimistic,
                        struct error *err);
/* Queues the writes of n commits (appends whose paths, keys and upload
 * owners are their own) as one set of statements, each commit an entry in
 * order (not their checks, nor the COMMIT); arena holds what the batch
 * borrows. */
int commit_queue_group_writes(struct commit_ctx *const *xs, size_t n, struct arena *arena,
                              struct write_batch *w, struct error *err);
/* Sends the locked path's write batch (ending in COMMIT); on success the
 * transaction has committed and x->out holds the result. (Group commit
 * sends its own batches: commit_group.c.) */
int commit_run_writes(struct commit_ctx *x, struct write_batch *w, struct error *err);

#endif
