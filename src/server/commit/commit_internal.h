/* The commit's shared state, between commit.c (the algorithm: reads, the
 * optimistic and the locked paths), commit_check.c (validating the tables,
 * files and deletion vectors against what was read) and commit_write.c
 * (the write batch). Internal to the server. */
#ifndef HL_SERVER_COMMIT_COMMIT_INTERNAL_H
#define HL_SERVER_COMMIT_COMMIT_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "lake/types.h"
#include "server/catalog/catalog.h"
#include "server/commit/commit.h"
#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/http/api.h"

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
    int64_t next_row_id;      /* the table's row-id allocator, read under the lock */
    int64_t stats_bytes;      /* its gross byte counter */
    struct column_info *cols; /* sorted by field id; loaded when stats are sent */
    size_t ncols;
    int64_t row_id_start; /* the first row id of this commit's files */
    int64_t records, bytes;
};

/* The statements of the read batch, by index in it (-1: not sent). */
struct read_slots {
    int head, receipt, live, columns, dv_targets, paths;
};

/* The statements one optimistic commit adds to a group's batch, at most. */
enum { COMMIT_STMTS_MAX = 12 };

/* A statement kept for a later batch: its text (static), its parameters
 * copied into the request arena, and what it is, for errors. */
struct stmt_record {
    const char *sql;
    const char *context;
    int n;
    const char **values;
};

/* Statements sent as one batch, with what each is for errors. With arena
 * set, commit_queue records the statements instead (a commit that joins a
 * group: commit_group.c sends them in the group's batch). */
struct stmt_batch {
    struct db_batch b;
    const char *context[DB_BATCH_MAX];
    struct arena *arena;
    struct stmt_record rec[COMMIT_STMTS_MAX];
    int nrec;
};

struct commit_ctx {
    struct srv_req *req;
    struct catalog_row cat;
    struct commit_request *c;
    bool any_stats;          /* some file carries column_stats */
    struct table_live *live; /* one per c->tables entry */
    struct stmt_batch reads; /* results stay until the commit ends */
    struct read_slots slot;
    int lock_at; /* the lock statement in the batch that took it, or -1 */
    /* Read with the tables (under the lock, or before it on the
     * optimistic path). */
    int64_t head, earliest;
    /* The commit's result. */
    int64_t snapshot_id, schema_version;
    int64_t repaired; /* statistics fixed instead of refused */
    bool in_txn;
};

/* A deletion vector's target data file, as read. */
struct dv_target {
    int64_t table_id, begin, end, records;
    bool ended;
    bool has_live_dv;
    int64_t dv_id, dv_begin, dv_count;
};

/* The write batch, and the statements whose failures mean something. */
struct write_batch {
    struct stmt_batch s;
    int alloc;   /* the allocation, whose answer is the commit's result */
    int row_ids; /* the row-id allocators' assertion */
    int checks;  /* the optimistic path's check, or -1 */
};

/* "<namespace>.<table>" of the request's table i, in the request arena. */
const char *commit_table_label(struct commit_ctx *x, size_t i);
/* The array literal's text, or NULL with a 500-free failure when memory
 * ran out. */
const char *commit_array_text(struct pg_array *a, struct api_error *err);
/* Adds a statement to s; returns its index, or -1 with err. */
int commit_queue(struct stmt_batch *s, const char *sql, const struct db_params *p,
                 const char *context, struct api_error *err);
/* Queues BEGIN, the lock budget and the catalog lock (x->lock_at). */
int commit_queue_lock(struct commit_ctx *x, struct stmt_batch *s, struct api_error *err);
/* Sends a batch that may hold the lock statement, recording the lock wait;
 * on failure *failed is the statement that failed. */
int commit_run_locked(struct commit_ctx *x, struct stmt_batch *s, int *failed, struct error *dberr);

/* commit_check.c: steps 10 to 13 against x->reads (the blind-append
 * policy, the live tables, the conflict check, the files and deletion
 * vectors); *targets_out gets each table's DV targets. */
int commit_check_tables(struct commit_ctx *x, struct dv_target ***targets_out,
                        struct api_error *err);
/* Step 14: a path queued for removal (409) or already registered (422). */
int commit_path_guard(struct commit_ctx *x, struct api_error *err);

/* commit_group.c: commits w's recorded statements (the optimistic check
 * and the writes, no BEGIN, lock or COMMIT) together with those of other
 * commits to the same catalog waiting at the same time: one lock
 * acquisition and one WAL flush for the group, each commit still its own
 * snapshot. Returns 0 (committed: x->snapshot_id, x->schema_version), or
 * -1 with *stale (its check failed: run the locked path) or with err. */
int commit_group_run(struct commit_ctx *x, struct write_batch *w, bool *stale,
                     struct api_error *err);

/* commit_write.c: queues every write into w (not the COMMIT). */
int commit_queue_writes(struct commit_ctx *x, struct write_batch *w, struct dv_target **targets,
                        struct api_error *err);
/* Sends the locked path's write batch (ending in COMMIT); on success the
 * transaction has committed and x->snapshot_id and x->schema_version are
 * the result. (Group commit sends its own batches: commit_group.c.) */
int commit_run_writes(struct commit_ctx *x, struct write_batch *w, struct api_error *err);

#endif
