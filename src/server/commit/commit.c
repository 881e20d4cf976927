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

#include "server/auth/audit.h"
#include "server/commit/commit_internal.h"
#include "server/metrics.h"
#include "server/server.h"
#include "util/log.h"
#include "util/timefmt.h"

/* ---- small helpers ---- */

const char *commit_table_label(struct commit_ctx *x, size_t i)
{
    const struct commit_table *t = &x->c->tables[i];
    return arena_sprintf(&x->req->arena, "%s.%s", t->namespace_name, t->name);
}

/* The array literal's text, or a 500-free failure when memory ran out. */
const char *commit_array_text(struct pg_array *a, struct api_error *err)
{
    const char *t = pg_array_text(a);
    if (!t)
        api_nomem(err);
    return t;
}

static int check_paths(struct commit_ctx *x, struct api_error *err)
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

/* ---- step 3: replays ---- */

static json_t *commit_result(int64_t snapshot_id, int64_t schema_version)
{
    return json_pack("{s:I,s:I}", "snapshot_id", (json_int_t)snapshot_id, "schema_version",
                     (json_int_t)schema_version);
}

/* *replayed is set when the key's receipt (r, read under the lock)
 * answers the request. */
static int replay_check(struct commit_ctx *x, const PGresult *r, json_t **result, bool *replayed,
                        struct api_error *err)
{
    *replayed = false;
    if (PQntuples(r) == 0)
        return 0;
    size_t n = 0;
    unsigned char *fp = PQunescapeBytea((const unsigned char *)db_str(r, 0, 0), &n);
    int64_t snapshot = db_i64(r, 0, 1), version = db_i64(r, 0, 2);
    if (!fp)
        return api_nomem(err);
    bool known = n == COMMIT_FINGERPRINT_BYTES && fp[0] == COMMIT_FINGERPRINT_VERSION;
    bool same = known && memcmp(fp, x->c->fingerprint, n) == 0;
    PQfreemem(fp);
    if (known && !same)
        return api_validation(err,
                              "idempotency_key %s was already used with a different request "
                              "(snapshot %lld)",
                              x->c->key, (long long)snapshot);
    if (!known) {
        /* A receipt from a format this server does not know: the safest
         * answer is the stored outcome (never publish twice). */
        metrics_counter_add(x->req->srv->metrics,
                            "hoglake_commit_receipt_unknown_digest_version_total", "", 1);
    }
    if (!(*result = commit_result(snapshot, version)))
        return api_nomem(err);
    *replayed = true;
    return 0;
}

/* ---- steps 2 to 11: what the commit reads, in one round trip ---- */

/* The request's tables (namespace $2[i], name $3[i], ordinality i + 1)
 * joined to their live namespace and table-version rows. */
#define LIVE_TABLES_FROM                                                                           \
    " FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(ns, name, ord)"                     \
    " JOIN hog_namespace n ON n.catalog_id = $1 AND n.name = u.ns AND n.dropped_snapshot IS NULL"  \
    " JOIN hog_table_version v ON v.catalog_id = $1 AND v.namespace_id = n.namespace_id"           \
    "  AND v.name = u.name AND v.end_snapshot IS NULL"

/* $1 catalog, $2/$3 the tables' names, $4 read_snapshot (NULL: none). */
static const char live_tables_sql[] =
    "SELECT u.ord, t.table_id, t.table_uuid::text, s.spec_id,"
    " (SELECT count(*) FROM hog_partition_field f WHERE f.catalog_id = $1"
    "   AND f.table_id = t.table_id AND f.spec_id = s.spec_id),"
    " ts.next_row_id, ts.file_size_bytes,"
    /* Appends never conflict with appends: only DDL on a touched table
     * invalidates what the writer read. */
    " EXISTS (SELECT 1 FROM hog_snapshot_change c WHERE c.catalog_id = $1"
    "   AND c.object_id = t.table_id AND c.kind IN ('table_dropped', 'table_altered')"
    "   AND c.snapshot_id > $4)" LIVE_TABLES_FROM
    " JOIN hog_table t ON t.catalog_id = $1 AND t.table_id = v.table_id"
    "  AND t.dropped_snapshot IS NULL"
    " LEFT JOIN hog_partition_spec s ON s.catalog_id = $1 AND s.table_id = t.table_id"
    "  AND s.end_snapshot IS NULL"
    " LEFT JOIN hog_table_stats ts ON ts.catalog_id = $1 AND ts.table_id = t.table_id";

static const char live_columns_sql[] =
    "SELECT c.table_id, c.field_id, c.col_type,"
    " coalesce((c.type_params->>'precision')::int, 0),"
    " coalesce((c.type_params->>'scale')::int, 0), coalesce(c.parent_field_id, 0)"
    " FROM hog_column c WHERE c.catalog_id = $1 AND c.end_snapshot IS NULL"
    "  AND c.table_id IN (SELECT v.table_id" LIVE_TABLES_FROM ")"
    " ORDER BY c.table_id, c.field_id";

static const char dv_targets_sql[] =
    "SELECT f.data_file_id, f.table_id, f.begin_snapshot, f.end_snapshot,"
    " f.record_count, d.delete_file_id, d.begin_snapshot, d.delete_count"
    " FROM hog_data_file f LEFT JOIN hog_delete_file d"
    "  ON d.catalog_id = f.catalog_id AND d.data_file_id = f.data_file_id"
    "  AND d.end_snapshot IS NULL"
    " WHERE f.catalog_id = $1 AND f.data_file_id = ANY($2::bigint[])";

/* A queued path may still be deleted by the drain (retryable); a path any
 * file or DV row names, live or ended, is one object registered twice:
 * its rows would count twice, and the expiry of one row would delete the
 * other's data. */
static const char path_guard_sql[] =
    "(SELECT 1, path FROM hog_file_removal WHERE catalog_id = $1"
    "  AND drained_at IS NULL AND path = ANY($2::text[]) LIMIT 1)"
    " UNION ALL (SELECT 2, path FROM hog_data_file WHERE catalog_id = $1"
    "  AND path = ANY($2::text[]) LIMIT 1)"
    " UNION ALL (SELECT 2, path FROM hog_delete_file WHERE catalog_id = $1"
    "  AND path = ANY($2::text[]) LIMIT 1)";

/* The lists the read statements take, as array literals. */
struct read_lists {
    struct pg_array namespaces, names, dv_ids, paths;
};

static void read_lists_free(struct read_lists *l)
{
    pg_array_free(&l->namespaces);
    pg_array_free(&l->names);
    pg_array_free(&l->dv_ids);
    pg_array_free(&l->paths);
}

static int read_lists_build(struct commit_ctx *x, struct read_lists *l, struct api_error *err)
{
    pg_array_init(&l->namespaces);
    pg_array_init(&l->names);
    pg_array_init(&l->dv_ids);
    pg_array_init(&l->paths);
    for (size_t t = 0; t < x->c->ntables; t++) {
        const struct commit_table *ct = &x->c->tables[t];
        pg_array_str(&l->namespaces, ct->namespace_name);
        pg_array_str(&l->names, ct->name);
        for (size_t i = 0; i < ct->nfiles; i++)
            pg_array_str(&l->paths, ct->files[i].path);
        for (size_t i = 0; i < ct->ndvs; i++) {
            pg_array_str(&l->paths, ct->dvs[i].path);
            pg_array_i64(&l->dv_ids, ct->dvs[i].data_file_id);
        }
    }
    if (!pg_array_text(&l->namespaces) || !pg_array_text(&l->names) || !pg_array_text(&l->dv_ids) ||
        !pg_array_text(&l->paths))
        return api_nomem(err);
    return 0;
}

/* Keeps a statement for a later batch, its parameters copied. */
static int record(struct stmt_batch *s, const char *sql, const struct db_params *p,
                  const char *context, struct api_error *err)
{
    /* The statements of one commit are fixed in the source. */
    if (s->nrec >= COMMIT_STMTS_MAX)
        abort();
    struct stmt_record *r = &s->rec[s->nrec];
    r->sql = sql;
    r->context = context;
    r->n = p ? p->n : 0;
    r->values = arena_calloc(s->arena, (size_t)(r->n ? r->n : 1), sizeof *r->values);
    if (!r->values)
        return api_nomem(err);
    for (int i = 0; i < r->n; i++)
        if (p->values[i] && !(r->values[i] = arena_strdup(s->arena, p->values[i])))
            return api_nomem(err);
    return s->nrec++;
}

int commit_queue(struct stmt_batch *s, const char *sql, const struct db_params *p,
                 const char *context, struct api_error *err)
{
    if (s->arena)
        return record(s, sql, p, context, err);
    struct error dberr;
    int at = db_batch_add(&s->b, sql, p, &dberr);
    if (at < 0)
        return api_from_error(err, &dberr, context);
    s->context[at] = context;
    return at;
}

int commit_queue_lock(struct commit_ctx *x, struct stmt_batch *s, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    char ms[24];
    snprintf(ms, sizeof ms, "%lld", (long long)ddl_lock_budget_ms(x->req));
    db_param_str(&p, ms);
    if (commit_queue(s, "BEGIN", NULL, "begin", err) < 0 ||
        /* Generic plans: the commit's statements are prepared once per
         * connection, and planning them again for every commit (a custom
         * plan) costs more than running them. */
        commit_queue(s,
                     "SELECT set_config('lock_timeout', $1, true),"
                     " set_config('plan_cache_mode', 'force_generic_plan', true)",
                     &p, "lock timeout", err) < 0)
        return -1;
    x->in_txn = true;
    db_params_init(&p);
    db_param_i64(&p, store_catalog_lock_key(x->cat.id));
    /* The wait, timed by the server: clock_timestamp() runs after the lock
     * function returns. */
    x->lock_at = commit_queue(s,
                              "SELECT extract(epoch FROM clock_timestamp() - statement_timestamp())"
                              " FROM pg_advisory_xact_lock($1::bigint) AS l",
                              &p, "catalog lock", err);
    return x->lock_at < 0 ? -1 : 0;
}

/* Sends a batch holding queue_lock's statements and records the lock wait:
 * as the server measured it, or, when the lock itself failed (timed out),
 * the whole wait for the batch. On failure *failed is the statement. */
int commit_run_locked(struct commit_ctx *x, struct stmt_batch *s, int *failed, struct error *dberr)
{
    int64_t t0 = time_mono_ns();
    int rc = db_batch_run(&s->b, failed, dberr);
    const PGresult *lock = x->lock_at >= 0 ? s->b.results[x->lock_at] : NULL;
    if (lock)
        metrics_observe(x->req->srv->metrics, "hoglake_commit_lock_wait_seconds", "",
                        strtod(PQgetvalue(lock, 0, 0), NULL));
    else if (rc != 0 && *failed == x->lock_at)
        metrics_observe(x->req->srv->metrics, "hoglake_commit_lock_wait_seconds", "",
                        (double)(time_mono_ns() - t0) / 1e9);
    return rc;
}

/* Reads what the commit is checked against, in one round trip. Locked:
 * BEGIN and the lock, then the head and allocators, the receipt, the live
 * tables (spec, row-id allocator, DDL since read_snapshot), their columns
 * when statistics are sent, the DV targets and the path guard. Not locked
 * (the optimistic path): the head, the live tables and their columns. */
static int read_batch(struct commit_ctx *x, bool locked, struct api_error *err)
{
    struct db_conn *db = req_db(x->req, err);
    if (!db)
        return -1;
    struct read_lists l;
    struct error dberr;
    struct stmt_batch *s = &x->reads;
    x->slot = (struct read_slots){-1, -1, -1, -1, -1, -1};
    x->lock_at = -1;
    if (read_lists_build(x, &l, err) != 0) {
        read_lists_free(&l);
        return -1;
    }
    int rc = 0;
    if (db_batch_begin(&s->b, db, &dberr) != 0)
        rc = api_from_error(err, &dberr, "commit reads");
    if (rc == 0 && locked)
        rc = commit_queue_lock(x, s, err);
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, x->cat.id);
    if (rc == 0)
        rc = x->slot.head =
            commit_queue(s,
                         "SELECT last_snapshot_id, earliest_snapshot_id FROM hog_catalog"
                         " WHERE catalog_id = $1",
                         &p, "catalog head", err);
    if (rc >= 0 && locked && x->c->has_key) {
        db_param_str(&p, x->c->key);
        rc = x->slot.receipt = commit_queue(s,
                                            "SELECT fingerprint, snapshot_id, schema_version FROM"
                                            " hog_commit_receipt WHERE catalog_id = $1"
                                            " AND idempotency_key = $2",
                                            &p, "receipt lookup", err);
    }
    if (rc >= 0) {
        db_params_init(&p);
        db_param_i64(&p, x->cat.id);
        db_param_str(&p, pg_array_text(&l.namespaces));
        db_param_str(&p, pg_array_text(&l.names));
        if (x->any_stats)
            rc = x->slot.columns = commit_queue(s, live_columns_sql, &p, "columns", err);
        if (x->c->has_read_snapshot)
            db_param_i64(&p, x->c->read_snapshot);
        else
            db_param_null(&p);
        if (rc >= 0)
            rc = x->slot.live = commit_queue(s, live_tables_sql, &p, "table lookup", err);
    }
    if (rc >= 0 && locked && x->c->ndvs) {
        db_params_init(&p);
        db_param_i64(&p, x->cat.id);
        db_param_str(&p, pg_array_text(&l.dv_ids));
        rc = x->slot.dv_targets =
            commit_queue(s, dv_targets_sql, &p, "deletion vector targets", err);
    }
    if (rc >= 0 && locked) {
        db_params_init(&p);
        db_param_i64(&p, x->cat.id);
        db_param_str(&p, pg_array_text(&l.paths));
        rc = x->slot.paths = commit_queue(s, path_guard_sql, &p, "path checks", err);
    }
    read_lists_free(&l);
    if (rc < 0)
        return -1;
    int failed;
    if (commit_run_locked(x, s, &failed, &dberr) != 0)
        return api_from_error(err, &dberr,
                              failed >= 0 && failed < s->b.n ? s->context[failed] : "commit reads");
    const PGresult *head = s->b.results[x->slot.head];
    if (PQntuples(head) == 0)
        return api_not_found(err, "catalog '%s'", x->cat.name);
    x->head = db_i64(head, 0, 0);
    x->earliest = db_i64(head, 0, 1);
    return 0;
}

/* ---- blind partitioned appends ---- */

/* The tables already warned about, per process ("once per table per
 * pod"): a small set, as few tables ever take blind appends. */
static pthread_mutex_t blind_mu = PTHREAD_MUTEX_INITIALIZER;
static int64_t (*blind_seen)[2];
static size_t blind_n, blind_cap;

static bool first_blind_append(int64_t catalog_id, int64_t table_id)
{
    bool first = true;
    pthread_mutex_lock(&blind_mu);
    for (size_t i = 0; i < blind_n && first; i++)
        first = !(blind_seen[i][0] == catalog_id && blind_seen[i][1] == table_id);
    if (first && blind_n == blind_cap) {
        size_t cap = blind_cap ? blind_cap * 2 : 16;
        void *p = realloc(blind_seen, cap * sizeof *blind_seen);
        if (p) {
            blind_seen = p;
            blind_cap = cap;
        }
    }
    if (first && blind_n < blind_cap) {
        blind_seen[blind_n][0] = catalog_id;
        blind_seen[blind_n][1] = table_id;
        blind_n++;
    }
    pthread_mutex_unlock(&blind_mu);
    return first;
}

/* Counts an accepted append with partition values but no read_snapshot,
 * and warns once per table. */
static void note_blind_appends(struct commit_ctx *x)
{
    metrics_counter_add(x->req->srv->metrics, "hoglake_blind_partitioned_appends_total", "", 1);
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

/* What the optimistic path asserts under the lock: the head has not passed
 * any DDL on a touched table ($2 the head it read, $3 the tables), the
 * expiry floor is not above read_snapshot ($4), the key has no receipt
 * ($5) and no path is queued for removal or registered ($6). */
static const char optimistic_checks_sql[] =
    "SELECT hog_assert(count(*) = 1 AND bool_and(c.last_snapshot_id >= $2"
    "  AND ($4::bigint IS NULL OR c.earliest_snapshot_id <= $4)), 'the catalog moved')"
    " AND hog_assert(NOT EXISTS (SELECT 1 FROM hog_snapshot_change ch"
    "  WHERE ch.catalog_id = $1 AND ch.object_id = ANY($3::bigint[])"
    "  AND ch.kind IN ('table_dropped', 'table_altered') AND ch.snapshot_id > $2),"
    "  'a touched table changed')"
    " AND hog_assert($5::uuid IS NULL OR NOT EXISTS (SELECT 1 FROM hog_commit_receipt r"
    "  WHERE r.catalog_id = $1 AND r.idempotency_key = $5::uuid), 'the key has a receipt')"
    " AND hog_assert(NOT EXISTS (SELECT 1 FROM hog_file_removal WHERE catalog_id = $1"
    "  AND drained_at IS NULL AND path = ANY($6::text[]))"
    "  AND NOT EXISTS (SELECT 1 FROM hog_data_file WHERE catalog_id = $1"
    "  AND path = ANY($6::text[]))"
    "  AND NOT EXISTS (SELECT 1 FROM hog_delete_file WHERE catalog_id = $1"
    "  AND path = ANY($6::text[])), 'a path is taken')"
    " FROM hog_catalog c WHERE c.catalog_id = $1";

static int queue_optimistic_checks(struct commit_ctx *x, struct write_batch *w,
                                   struct api_error *err)
{
    struct pg_array ids, paths;
    pg_array_init(&ids);
    pg_array_init(&paths);
    for (size_t t = 0; t < x->c->ntables; t++) {
        pg_array_i64(&ids, x->live[t].table_id);
        for (size_t i = 0; i < x->c->tables[t].nfiles; i++)
            pg_array_str(&paths, x->c->tables[t].files[i].path);
    }
    const char *ids_text = commit_array_text(&ids, err);
    const char *paths_text = ids_text ? commit_array_text(&paths, err) : NULL;
    if (paths_text) {
        struct db_params p;
        db_params_init(&p);
        db_param_i64(&p, x->cat.id);
        db_param_i64(&p, x->head);
        db_param_str(&p, ids_text);
        if (x->c->has_read_snapshot)
            db_param_i64(&p, x->c->read_snapshot);
        else
            db_param_null(&p);
        db_param_str(&p, x->c->has_key ? x->c->key : NULL);
        db_param_str(&p, paths_text);
        w->checks = commit_queue(&w->s, optimistic_checks_sql, &p, "commit checks", err);
    }
    pg_array_free(&ids);
    pg_array_free(&paths);
    return paths_text && w->checks >= 0 ? 0 : -1;
}

/* The optimistic path, for appends: read and validate before the lock,
 * then send the lock, one statement asserting that nothing those checks
 * depend on has moved, every write and the COMMIT as one batch. The lock
 * is then held for no round trip to this server, only for the database's
 * own work. Anything else (a refusal, a replay, a failed assertion) sets
 * *stale and the commit runs again on the locked path, which answers
 * exactly as the contract orders its checks. */
static int run_optimistic(struct commit_ctx *x, bool *stale, struct api_error *err)
{
    *stale = true;
    struct api_error scratch = {0};
    struct dv_target **targets;
    if ((x->c->has_key && check_paths(x, &scratch) != 0) || read_batch(x, false, &scratch) != 0 ||
        commit_check_tables(x, &targets, &scratch) != 0) {
        json_decref(scratch.extra);
        return -1;
    }
    db_batch_free(&x->reads.b);
    /* Recorded, not sent: the group's leader sends them. */
    struct write_batch w = {.alloc = -1, .row_ids = -1, .checks = -1};
    w.s.arena = &x->req->arena;
    if (queue_optimistic_checks(x, &w, err) != 0 || commit_queue_writes(x, &w, targets, err) != 0) {
        *stale = false;
        return -1;
    }
    return commit_group_run(x, &w, stale, err);
}

/* The locked path: every read under the lock, in the contract's order. */
static int run_locked_path(struct commit_ctx *x, json_t **result, bool *replayed,
                           struct api_error *err)
{
    struct commit_request *c = x->c;
    if (read_batch(x, true, err) != 0)
        return -1;
    if (c->has_key) {
        if (replay_check(x, x->reads.b.results[x->slot.receipt], result, replayed, err) != 0)
            return -1;
        if (*replayed)
            return 0;
        if (check_paths(x, err) != 0)
            return -1;
    }
    struct dv_target **targets;
    if (commit_check_tables(x, &targets, err) != 0 || commit_path_guard(x, err) != 0)
        return -1;
    struct db_conn *db = req_db(x->req, err);
    if (!db)
        return -1;
    /* The reads' transaction goes on: BEGIN and the lock were in them. */
    struct write_batch w = {.alloc = -1, .row_ids = -1, .checks = -1};
    struct error dberr;
    int rc = 0;
    if (db_batch_begin(&w.s.b, db, &dberr) != 0)
        rc = api_from_error(err, &dberr, "commit writes");
    if (rc == 0 && (commit_queue_writes(x, &w, targets, err) != 0 ||
                    commit_queue(&w.s, "COMMIT", NULL, "commit", err) < 0))
        rc = -1;
    if (rc == 0)
        rc = commit_run_writes(x, &w, err);
    db_batch_free(&w.s.b);
    return rc;
}

static int run(struct commit_ctx *x, json_t **result, bool *replayed, struct api_error *err)
{
    struct commit_request *c = x->c;
    if (!c->has_key && check_paths(x, err) != 0)
        return -1;
    x->live = arena_calloc(&x->req->arena, c->ntables, sizeof *x->live);
    if (!x->live)
        return api_nomem(err);
    for (size_t t = 0; t < c->ntables; t++)
        for (size_t i = 0; i < c->tables[t].nfiles; i++)
            x->any_stats |= c->tables[t].files[i].nstats > 0;
    bool stale = true;
    /* Deletion vectors depend on other commits' data, not only on DDL:
     * they are always checked under the lock. */
    if (c->ndvs == 0 && run_optimistic(x, &stale, err) == 0)
        goto committed;
    if (!stale)
        return -1;
    metrics_counter_add(x->req->srv->metrics, "hoglake_commit_revalidations_total", "", 1);
    db_batch_free(&x->reads.b);
    if (run_locked_path(x, result, replayed, err) != 0 || *replayed)
        return *replayed ? 0 : -1;
committed:
    if (c->has_partition_values && !c->has_read_snapshot)
        note_blind_appends(x);
    if (!(*result = commit_result(x->snapshot_id, x->schema_version)))
        return api_nomem(err);
    return 0;
}

/* hoglake_commits_total{catalog,result} with the contract's result values
 * (shared with the audit outcome); a replay is a commit that already
 * happened. */
static void count_result(struct srv_req *req, const char *catalog, int rc,
                         const struct api_error *err)
{
    char labels[300], esc[200];
    metrics_label_escape(catalog, esc, sizeof esc);
    snprintf(labels, sizeof labels, "catalog=\"%s\",result=\"%s\"", esc,
             audit_outcome(rc != 0 ? err->status : 200, err->code, "committed"));
    metrics_counter_add(req->srv->metrics, "hoglake_commits_total", labels, 1);
}

void commit_count_refusal(struct srv_req *req, const char *catalog_name,
                          const struct api_error *err)
{
    struct catalog_row cat;
    struct api_error ignored = {0};
    /* Only catalogs that exist get a series: a path is not a label. */
    if (catalog_load(req, catalog_name, &cat, &ignored) == 0)
        count_result(req, cat.name, -1, err);
    json_decref(ignored.extra);
}

int commit_run(struct srv_req *req, const char *catalog_name, struct commit_request *c,
               json_t **result, struct api_error *err)
{
    struct commit_ctx x = {.req = req, .c = c};
    *result = NULL;
    if (catalog_load(req, catalog_name, &x.cat, err) != 0)
        return -1; /* no catalog, so no per-catalog count */
    bool replayed = false;
    int rc = run(&x, result, &replayed, err);
    db_batch_free(&x.reads.b);
    if (x.in_txn) {
        /* A replay wrote nothing; a failure must write nothing. Rolling back
         * here keeps the connection for the next request. */
        struct api_error ignored = {0};
        req_exec(req, "ROLLBACK", NULL, "rollback", &ignored);
        json_decref(ignored.extra);
    }
    count_result(req, x.cat.name, rc, err);
    if (rc == 0 && x.repaired) {
        metrics_counter_add(req->srv->metrics, "hoglake_stats_repaired_total", "source=\"commit\"",
                            (double)x.repaired);
    }
    if (rc == 0) {
        json_t *sid = json_object_get(*result, "snapshot_id");
        json_decref(req->audit.detail);
        req->audit.detail =
            json_pack("{s:O?,s:I,s:I,s:b,s:s?}", "snapshot_id", sid, "files", (json_int_t)c->nfiles,
                      "deletes", (json_int_t)c->ndvs, "replayed", replayed, "idempotency_key",
                      c->has_key ? c->key : NULL);
    }
    return rc;
}
