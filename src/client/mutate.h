/* Row-level changes (deletes, updates, transactions): what they share.
 *
 * A change is staged, then committed:
 *  - staging reads a table at one snapshot, finds the live rows a
 *    predicate selects (pruning files and row groups first), grows the
 *    deletion vector of each file they are in, writes the new vectors (and,
 *    for an update, the rewritten rows) at upload claims of one owner, and
 *    hands back the commit's groups (mutate.c, mutate_find.c, delete.c,
 *    update.c);
 *  - the commit sends the groups of one or several stages in one guarded
 *    request (mut_commit), and a change that does not commit discards what
 *    its owner wrote (mut_discard).
 * Not installed. */
#ifndef HL_CLIENT_MUTATE_H
#define HL_CLIENT_MUTATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "client/claims.h"
#include "client/internal.h"
#include "client/prune.h"
#include "expr/expr.h"
#include "lake/dv.h"
#include "lake/schema.h"
#include "util/arena.h"

/* What a stage found and wrote. */
struct mut_stats {
    int64_t read_snapshot;      /* the snapshot the rows were found at */
    int64_t rows;               /* live rows the predicate selected */
    int64_t files_affected;     /* data files whose vector grew */
    int64_t files_scanned;      /* data files read */
    int64_t files_pruned;       /* ruled out by partition values or file statistics */
    int64_t row_groups_scanned; /* row groups decoded */
    int64_t row_groups_pruned;  /* ruled out by their statistics */
    int64_t pages_scanned;      /* data pages decoded by their offset index */
    int64_t pages_pruned;       /* ruled out by the page index */
    int64_t files_written;      /* data files of rewritten rows (updates) */
    int64_t bytes_written;      /* vectors and data files */
};

/* A data file whose vector grows. */
struct mut_matched {
    json_t *data_file; /* its DataFile (a reference) */
    struct lake_dv dv; /* its deleted positions: the vector's before, and the new */
    char uri[2048];    /* its new vector's Puffin file, once written */
    uint64_t size;
};

struct mutation;

/* Called with each read of a row group that holds selected live rows:
 * the batch (in m->schema's shape; the callee may replace it), sel (batch
 * length bytes, 1 for a selected live row), the DataFile it comes from and
 * where its rows sit in the file (the read may have skipped pages). */
typedef hl_status (*mut_rows_fn)(struct mutation *m, const json_t *data_file,
                                 struct ArrowArray *batch, const uint8_t *sel,
                                 const struct client_rows_at *at, struct hl_error *err);

struct mutation {
    hl_table *t;
    struct arena arena;
    /* The table at the read; an update's has every column and, last,
     * _hog_row_id (the predicate and assignments are bound without it). */
    struct lake_table table;
    struct ArrowSchema schema; /* the batches' */
    struct expr_pred *pred;
    struct expr_update *update; /* NULL for a delete */
    bool *wanted;               /* the top-level columns read */
    int64_t read_snapshot;
    char uuid[37];
    struct objstore *store;
    struct mut_matched *m;
    size_t nm, cap;
    bool count_only; /* a dry run: m's vectors hold the new positions only */
    struct mut_stats *stats;
    mut_rows_fn on_rows; /* NULL: none */
    void *ctx;
};

/* Reads the table at snapshot `at` (-1: its head) and binds the predicate
 * and the assignments (set_clause; NULL for a delete, whose read then
 * covers only the columns the predicate needs) to it. Errors of the
 * clauses are HL_ERR_INVALID_ARGUMENT, code invalid_predicate or
 * invalid_set. */
hl_status mut_open(struct mutation *m, hl_table *t, int64_t at, const char *predicate,
                   const char *set_clause, struct mut_stats *stats, struct hl_error *err);
void mut_free(struct mutation *m);

/* Every page of the scan plan at the snapshot read: the selected live rows
 * of each file not pruned join m->m (mutate_find.c: a delete reads a
 * file's row groups on the client's read_threads, an update on the
 * calling thread). */
hl_status mut_find(struct mutation *m, struct hl_error *err);

/* A Puffin file of each new vector at a path of claims (the server takes
 * one vector per delete-file path), recorded in uploads. */
hl_status mut_write_vectors(struct mutation *m, struct claims *claims,
                            struct hl_append_result *uploads, struct hl_error *err);

/* The claims of owner for the table's objects of kind: claims_init, then
 * the owner given (NULL: a fresh one). */
hl_status mut_claims(struct claims *c, hl_table *t, enum claims_kind kind, size_t first_batch,
                     size_t total, const char *owner, struct hl_error *err);

/* A commit group naming the table, its uuid (expected_table_uuid) and
 * files (taken), or NULL when out of memory. */
json_t *mut_group(const struct mutation *m, json_t *files);
/* The deletes group of the new vectors (NULL when out of memory). */
json_t *mut_deletes_group(const struct mutation *m);

/* POSTs {idempotency_key, read_snapshot, upload_owner, appends, deletes,
 * author?, message?} (the groups arrays are borrowed) to the catalog's
 * endpoint ("/commit/..."), and reads the snapshot it made. *sent tells
 * whether the request went out. */
hl_status mut_commit(hl_catalog *c, const char *endpoint, const char *key, int64_t read_snapshot,
                     const char *owner, json_t *appends, json_t *deletes, const char *author,
                     const char *message, int64_t *snapshot_id, bool *sent, struct hl_error *err);

/* After a change that did not commit: deletes every object uploads lists
 * when nothing can have been committed (delete_objects), then abandons the
 * owner's claims (claims_discard). */
void mut_discard(hl_catalog *c, const char *owner, struct hl_append_result *uploads,
                 bool delete_objects);

/* A delete or an update on its own: staged at the table's head with a
 * fresh owner and committed (POST /commit/deletes/prepared, or
 * /commit/mutations/prepared for an update), nothing when no row matched;
 * a commit refused as commit_conflict (a concurrent insert or delete on
 * the table) discards what it wrote and runs again from a fresh read,
 * o->max_attempts in all (0: 5). *stats are the last attempt's. */
hl_status mut_run(hl_table *t, const char *set_clause, const char *predicate,
                  const struct hl_delete_options *o, struct mut_stats *stats, int64_t *snapshot_id,
                  int *attempts, struct hl_error *err);

/* Stages a delete: the vectors written (unless dry_run) at claims of owner,
 * *deletes its group (NULL when nothing matched or dry_run). On failure
 * what uploads lists is deleted and owner's claims abandoned (delete.c). */
hl_status client_delete_stage(hl_table *t, int64_t at, const char *predicate, const char *owner,
                              bool dry_run, struct hl_append_result *uploads,
                              struct mut_stats *stats, json_t **deletes, struct hl_error *err);

/* Stages an update: the rewritten rows as files keeping their row ids
 * (*appends, their group) and the vectors deleting the old rows
 * (*deletes), written (unless dry_run) at claims of owner; both NULL when
 * nothing matched or dry_run. On failure as client_delete_stage
 * (update.c). */
hl_status client_update_stage(hl_table *t, int64_t at, const char *set_clause,
                              const char *predicate, const char *owner, bool dry_run,
                              struct hl_append_result *uploads, struct mut_stats *stats,
                              json_t **appends, json_t **deletes, struct hl_error *err);

#endif
