/* The commit's round trips (server/commit/): a batch of statements sent
 * together in pipeline mode, each prepared once per connection (db.h:
 * db_batch), and the commit's transaction statements. The engine owns the
 * batch; the store's commit modules (commit_reads.h, commit_writes.h)
 * queue their statements into it and return each one's index, which their
 * typed readers take to decode its answer once the batch has run. The
 * indexes are the engine's only handle on the statements: their text,
 * parameters and column positions stay in the store.
 *
 * A batch can record its statements instead of sending them: a commit
 * that joins a group has the group's leader send them, with the others',
 * inside the leader's transaction (store_commit_batch_replay).
 *
 * Every function that can fail takes struct error last and fails with the
 * database layer's errors (server/db/db.h). */
#ifndef HL_SERVER_STORE_COMMIT_BATCH_H
#define HL_SERVER_STORE_COMMIT_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "server/db/db.h"
#include "util/arena.h"
#include "util/error.h"

enum {
    /* The statements one commit records for a group, at most: its check
     * and its writes are fixed in the source. */
    STORE_COMMIT_RECORD_MAX = 13,
    /* What a group's transaction adds around them: BEGIN, the lock
     * budget, the lock and COMMIT. */
    STORE_COMMIT_TXN_STMTS = 4,
};

/* A statement kept for a later batch: its text (static), its parameters
 * copied into the recording arena, and what it is, for errors. */
struct store_commit_stmt {
    const char *sql;
    const char *context;
    int n;
    const char **values;
};

/* Statements sent as one batch, with what each is for errors; or, when
 * recording (arena set), kept for another batch. */
struct store_commit_batch {
    struct db_batch b;
    const char *context[DB_BATCH_MAX];
    struct arena *arena;
    struct store_commit_stmt rec[STORE_COMMIT_RECORD_MAX];
    int nrec;
    const char *failed; /* what the statement that failed to queue or run is */
};

/* A batch to send on db. 0 or -1. */
int store_commit_batch_begin(struct store_commit_batch *s, struct db_conn *db, struct error *err);
/* A batch that records its statements (parameters copied into arena). */
void store_commit_batch_record(struct store_commit_batch *s, struct arena *arena);
/* How many statements s holds: the index the next one gets. */
int store_commit_batch_size(const struct store_commit_batch *s);
/* Queues one statement (static text: it is prepared by its address) with
 * what it is, for errors; returns its index, or -1. For the store's
 * commit modules: the engine queues through them. */
int store_commit_batch_add(struct store_commit_batch *s, const char *sql, const struct db_params *p,
                           const char *context, struct error *err);
/* Queues every statement `recorded` holds into s, in order. 0 or -1. */
int store_commit_batch_replay(struct store_commit_batch *s,
                              const struct store_commit_batch *recorded, struct error *err);
/* Sends the batch and reads every answer: 0, or -1 with *failed the index
 * of the statement that failed and err its error. */
int store_commit_batch_run(struct store_commit_batch *s, int *failed, struct error *err);
/* What the statement that failed to queue or run is ("catalog head",
 * "receipt", ...), for the answer and the logs; `fallback` when the
 * failure was the batch's own. */
const char *store_commit_batch_failed(const struct store_commit_batch *s, const char *fallback);
void store_commit_batch_free(struct store_commit_batch *s);

/* Queues the settings every statement of a commit runs under: the lock
 * timeout (lock_budget_ms, 0: none), generic plans, no sequential scans
 * and the commit-totals setting (migration 14). They last to the end of
 * the transaction: an explicit one, or the implicit one a pipelined batch
 * runs in up to its sync (the optimistic reads). 0 or -1. */
int store_commit_queue_settings(struct store_commit_batch *s, int64_t lock_budget_ms,
                                struct error *err);
/* Queues BEGIN, the settings and the catalog's advisory lock, whose answer
 * is the wait as the database timed it. Returns the lock's index, or -1. */
int store_commit_queue_lock(struct store_commit_batch *s, int64_t catalog_id,
                            int64_t lock_budget_ms, struct error *err);
/* Queues COMMIT; returns its index, or -1. */
int store_commit_queue_commit(struct store_commit_batch *s, struct error *err);
/* The lock's answer (at: store_commit_queue_lock's index): true with
 * *seconds the time it waited, false when the lock did not answer. */
bool store_commit_lock_waited(const struct store_commit_batch *s, int at, double *seconds);

#endif
