/* POST .../commit: the commit algorithm (contract §4). An append-only
 * commit is read and validated before the catalog lock, then locks,
 * asserts that nothing it validated has moved, writes and commits in one
 * batch; anything else (a refusal, a replay, deletion vectors, a failed
 * assertion) runs the locked path, every check under the lock in the
 * contract's order. Validation is commit_check.c's, the writes are
 * commit_write.c's; docs/commits.md has the design. */
#include "server/commit/commit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/commit/commit_internal.h"
#include "server/db/db.h"
#include "server/metrics.h"
#include "server/server.h"
#include "util/array.h"
#include "util/log.h"
#include "util/timefmt.h"

/* ---- small helpers ---- */

const char *commit_table_label(struct commit_ctx *x, size_t i)
{
    const struct commit_table *t = &x->c->tables[i];
    return arena_sprintf(x->ctx->arena, "%s.%s", t->namespace_name, t->name);
}

static int check_paths(struct commit_ctx *x, struct error *err)
{
    for (size_t t = 0; t < x->c->ntables; t++) {
        const struct commit_table *ct = &x->c->tables[t];
        for (size_t i = 0; i < ct->nfiles; i++)
            if (commit_check_path(x->cat.data_path, ct->files[i].path, "file path", err) != 0)
                return -1;
        for (size_t i = 0; i < ct->ndvs; i++)
            if (commit_check_path(x->cat.data_path, ct->dvs[i].path, "deletion vector path", err) !=
                0)
                return -1;
    }
    return 0;
}

/* Records which statement of s failed to queue or run (`fallback`: the
 * batch itself failed), which the answer to a database error names. */
static int failed_in(struct commit_ctx *x, const struct store_commit_batch *s, const char *fallback)
{
    x->out->failed_step = store_commit_batch_failed(s, fallback);
    return -1;
}

void commit_rollback(struct commit_ctx *x)
{
    db_rollback(x->ctx->db->pg);
}

/* ---- step 3: replays ---- */

/* *replayed is set when the key's receipt (read under the lock) answers
 * the request. */
static int replay_check(struct commit_ctx *x, bool *replayed, struct error *err)
{
    *replayed = false;
    struct store_commit_receipt r;
    int found = store_commit_receipt(&x->reads, x->slot.receipt, x->ctx->arena, &r, err);
    if (found <= 0)
        return found;
    bool known = r.fingerprint_len == COMMIT_FINGERPRINT_BYTES &&
                 r.fingerprint[0] == COMMIT_FINGERPRINT_VERSION;
    bool same = known && memcmp(r.fingerprint, x->c->fingerprint, r.fingerprint_len) == 0;
    if (known && !same)
        return error_fail(err, ERR_INVALID,
                          "idempotency_key %s was already used with a different request "
                          "(snapshot %lld)",
                          x->c->key, (long long)r.snapshot_id);
    if (!known) {
        /* A receipt from a format this server does not know: the safest
         * answer is the stored outcome (never publish twice). */
        metrics_counter_add(x->ctx->srv->metrics,
                            "hoglake_commit_receipt_unknown_digest_version_total", "", 1);
    }
    x->out->snapshot_id = r.snapshot_id;
    x->out->schema_version = r.schema_version;
    *replayed = true;
    return 0;
}

/* ---- steps 2 to 11: what the commit reads, in one round trip ---- */

int commit_queue_lock(struct commit_ctx *x, struct store_commit_batch *s, struct error *err)
{
    x->in_txn = true;
    x->lock_at = store_commit_queue_lock(s, x->cat.id, x->lock_budget_ms, err);
    return x->lock_at < 0 ? -1 : 0;
}

/* Sends a batch holding queue_lock's statements and records the lock wait:
 * as the server measured it, or, when the lock itself failed (timed out),
 * the whole wait for the batch. On failure *failed is the statement. */
int commit_run_locked(struct commit_ctx *x, struct store_commit_batch *s, int *failed,
                      struct error *err)
{
    int64_t t0 = time_mono_ns();
    int rc = store_commit_batch_run(s, failed, err);
    double waited;
    if (x->lock_at >= 0 && store_commit_lock_waited(s, x->lock_at, &waited))
        metrics_observe(x->ctx->srv->metrics, "hoglake_commit_lock_wait_seconds", "", waited);
    else if (rc != 0 && *failed == x->lock_at)
        metrics_observe(x->ctx->srv->metrics, "hoglake_commit_lock_wait_seconds", "",
                        (double)(time_mono_ns() - t0) / 1e9);
    return rc;
}

/* Whether table i's rows must be as the writer read them
 * (requireUnchangedTables): a table the request deletes from, on an
 * endpoint that guards them. */
static bool guarded(const struct commit_request *c, size_t i)
{
    return c->rules->unchanged_tables && c->tables[i].in_deletes;
}

static bool any_guarded(const struct commit_request *c)
{
    for (size_t i = 0; i < c->ntables; i++)
        if (guarded(c, i))
            return true;
    return false;
}

/* What the reads ask about: the request's tables, its paths and the data
 * files its deletion vectors target. Locked, the receipt, the DV targets
 * and the path guard too. */
static void reads_plan(struct commit_ctx *x, bool locked, struct store_commit_reads *r)
{
    store_commit_reads_init(r, &x->cat);
    r->key = x->c->has_key ? x->c->key : NULL;
    r->has_read_snapshot = x->c->has_read_snapshot;
    r->read_snapshot = x->c->read_snapshot;
    r->receipt = locked && x->c->has_key;
    r->columns = x->any_stats;
    r->dv_targets = locked && x->c->ndvs;
    r->path_guard = locked;
    r->upload_owner = x->c->has_upload_owner ? x->c->upload_owner : NULL;
    r->claims_required = x->c->rules->claims_by_key;
    for (size_t t = 0; t < x->c->ntables; t++) {
        const struct commit_table *ct = &x->c->tables[t];
        store_commit_reads_table(r, ct->namespace_name, ct->name, guarded(x->c, t));
        for (size_t i = 0; i < ct->nfiles; i++)
            store_commit_reads_path(r, ct->files[i].path, "data");
        for (size_t i = 0; i < ct->ndvs; i++) {
            store_commit_reads_path(r, ct->dvs[i].path, "delete");
            if (!ct->dvs[i].targets_append)
                store_commit_reads_dv_target(r, ct->dvs[i].data_file_id);
        }
    }
}

/* Reads what the commit is checked against, in one round trip. Locked:
 * BEGIN and the lock, then the head and allocators, the receipt, the live
 * tables (spec, row-id allocator, DDL since read_snapshot), their columns
 * when statistics are sent, the DV targets and the path guard. Not locked
 * (the optimistic path): the head, the live tables and their columns,
 * under the same settings (they last to the batch's sync). */
static int read_batch(struct commit_ctx *x, bool locked, struct error *err)
{
    struct store_commit_batch *s = &x->reads;
    struct store_commit_reads r;
    reads_plan(x, locked, &r);
    x->lock_at = -1;
    int rc = store_commit_batch_begin(s, x->ctx->db, err);
    if (rc == 0)
        rc = locked ? commit_queue_lock(x, s, err)
                    : store_commit_queue_settings(s, x->lock_budget_ms, err);
    if (rc == 0)
        rc = store_commit_queue_reads(s, &r, &x->slot, err);
    store_commit_reads_free(&r);
    int failed;
    if (rc != 0 || commit_run_locked(x, s, &failed, err) != 0)
        return failed_in(x, s, "commit reads");
    if (!store_commit_head(s, x->slot.head, &x->read))
        return error_fail(err, ERR_NOT_FOUND, "catalog '%s'", x->cat.name);
    return 0;
}

/* ---- blind partitioned appends ---- */

/* The tables already warned about, per process ("once per table per
 * pod"), sorted by (catalog, table): a lookup per table of every blind
 * commit is a binary search, and a table is inserted once. */
static pthread_mutex_t blind_mu = PTHREAD_MUTEX_INITIALIZER;
static int64_t (*blind_seen)[2];
static size_t blind_n, blind_cap;

static bool first_blind_append(int64_t catalog_id, int64_t table_id)
{
    pthread_mutex_lock(&blind_mu);
    size_t lo = 0, hi = blind_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (blind_seen[mid][0] < catalog_id ||
            (blind_seen[mid][0] == catalog_id && blind_seen[mid][1] < table_id))
            lo = mid + 1;
        else
            hi = mid;
    }
    bool first = lo == blind_n || blind_seen[lo][0] != catalog_id || blind_seen[lo][1] != table_id;
    if (first && ARRAY_RESERVE(blind_seen, blind_cap, blind_n + 1, 16) == 0) {
        memmove(blind_seen + lo + 1, blind_seen + lo, (blind_n - lo) * sizeof *blind_seen);
        blind_seen[lo][0] = catalog_id;
        blind_seen[lo][1] = table_id;
        blind_n++;
    }
    pthread_mutex_unlock(&blind_mu);
    return first;
}

/* Counts an accepted append with partition values but no read_snapshot,
 * and warns once per table. */
static void note_blind_appends(struct commit_ctx *x)
{
    metrics_counter_add(x->ctx->srv->metrics, "hoglake_blind_partitioned_appends_total", "", 1);
    for (size_t i = 0; i < x->c->ntables; i++) {
        bool blind = false;
        for (size_t f = 0; f < x->c->tables[i].nfiles; f++)
            blind |= x->c->tables[i].files[f].has_partition_values;
        if (blind && first_blind_append(x->cat.id, x->live[i].table_id))
            log_warn("catalog %s: table %s.%s took partition values without a read_snapshot: "
                     "the writer did not pin the spec it partitioned by",
                     x->cat.name, x->c->tables[i].namespace_name, x->c->tables[i].name);
    }
}

/* ---- the whole commit ---- */

/* A refusal on the optimistic path says nothing: the locked path checks
 * again and answers. */
static void forget_failure(struct commit_outcome *out)
{
    *out = (struct commit_outcome){0};
}

/* The optimistic path, for appends: read and validate before the lock,
 * then send the lock, one statement asserting that nothing those checks
 * depend on has moved, every write and the COMMIT as one batch. The lock
 * is then held for no round trip to this server, only for the database's
 * own work. Anything else (a refusal, a replay, a failed assertion) sets
 * *stale and the commit runs again on the locked path, which answers
 * exactly as the contract orders its checks. */
static int run_optimistic(struct commit_ctx *x, bool *stale, struct error *err)
{
    *stale = true;
    struct error scratch;
    struct store_commit_dv_target **targets;
    if ((x->c->has_key && check_paths(x, &scratch) != 0) || read_batch(x, false, &scratch) != 0 ||
        commit_check_tables(x, &targets, &scratch) != 0) {
        forget_failure(x->out);
        return -1;
    }
    store_commit_batch_free(&x->reads);
    /* Recorded, not sent: the group's leader sends them. */
    struct write_batch w;
    store_commit_batch_record(&w.s, x->ctx->arena);
    if (commit_queue_writes(x, &w, targets, true, err) != 0) {
        *stale = false;
        return failed_in(x, &w.s, NULL);
    }
    return commit_group_run(x, &w, stale, err);
}

/* The locked path: every read under the lock, in the contract's order. */
static int run_locked_path(struct commit_ctx *x, bool *replayed, struct error *err)
{
    struct commit_request *c = x->c;
    if (read_batch(x, true, err) != 0)
        return -1;
    if (c->has_key) {
        if (replay_check(x, replayed, err) != 0)
            return -1;
        if (*replayed)
            return 0;
        if (check_paths(x, err) != 0)
            return -1;
    }
    struct store_commit_dv_target **targets;
    if (commit_check_tables(x, &targets, err) != 0 || commit_path_guard(x, err) != 0)
        return -1;
    /* The reads' transaction goes on: BEGIN and the lock were in them. */
    struct write_batch w;
    int rc = store_commit_batch_begin(&w.s, x->ctx->db, err);
    if (rc == 0 && (commit_queue_writes(x, &w, targets, false, err) != 0 ||
                    store_commit_queue_commit(&w.s, err) < 0))
        rc = -1;
    if (rc != 0)
        failed_in(x, &w.s, "commit writes");
    else
        rc = commit_run_writes(x, &w, err);
    store_commit_batch_free(&w.s);
    return rc;
}

static int run(struct commit_ctx *x, struct error *err)
{
    struct commit_request *c = x->c;
    if (!c->has_key && check_paths(x, err) != 0)
        return -1;
    x->live = arena_calloc(x->ctx->arena, c->ntables, sizeof *x->live);
    if (!x->live)
        return error_nomem(err);
    for (size_t t = 0; t < c->ntables; t++)
        for (size_t i = 0; i < c->tables[t].nfiles; i++)
            x->any_stats |= c->tables[t].files[i].nstats > 0;
    bool stale = true;
    /* Deletion vectors and guarded tables depend on other commits' data,
     * not only on DDL: they are always checked under the lock. */
    if (c->ndvs == 0 && !any_guarded(c) && run_optimistic(x, &stale, err) == 0)
        goto committed;
    if (!stale)
        return -1;
    metrics_counter_add(x->ctx->srv->metrics, "hoglake_commit_revalidations_total", "", 1);
    store_commit_batch_free(&x->reads);
    bool *replayed = &x->out->replayed;
    if (run_locked_path(x, replayed, err) != 0 || *replayed)
        return *replayed ? 0 : -1;
committed:
    if (c->has_partition_values && !c->has_read_snapshot)
        note_blind_appends(x);
    return 0;
}

int commit_run(struct srv_ctx *ctx, const struct catalog_ident *cat, int64_t lock_budget_ms,
               struct commit_request *c, struct commit_outcome *out, struct error *err)
{
    *out = (struct commit_outcome){0};
    struct commit_ctx x = {
        .ctx = ctx, .lock_budget_ms = lock_budget_ms, .cat = *cat, .c = c, .out = out};
    int rc = run(&x, err);
    store_commit_batch_free(&x.reads);
    /* A replay wrote nothing; a failure must write nothing. Rolling back
     * here keeps the connection for the next request. */
    if (x.in_txn)
        commit_rollback(&x);
    if (rc == 0 && x.repaired) {
        metrics_counter_add(ctx->srv->metrics, "hoglake_stats_repaired_total", "source=\"commit\"",
                            (double)x.repaired);
    }
    return rc;
}
