/* The commit's batches and transaction statements (commit_batch.h). */
#include "server/store/commit_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/store/catalogs.h"

int store_commit_batch_begin(struct store_commit_batch *s, struct db_conn *db, struct error *err)
{
    s->arena = NULL;
    s->nrec = 0;
    s->failed = NULL;
    return db_batch_begin(&s->b, db, err);
}

void store_commit_batch_record(struct store_commit_batch *s, struct arena *arena)
{
    memset(s, 0, sizeof *s);
    s->arena = arena;
}

int store_commit_batch_size(const struct store_commit_batch *s)
{
    return s->arena ? s->nrec : s->b.n;
}

/* Keeps a statement for a later batch, its parameters copied. */
static int record(struct store_commit_batch *s, const char *sql, const struct db_params *p,
                  const char *context, struct error *err)
{
    /* The statements of one commit are fixed in the source. */
    if (s->nrec >= STORE_COMMIT_RECORD_MAX)
        abort();
    struct store_commit_stmt *r = &s->rec[s->nrec];
    r->sql = sql;
    r->context = context;
    r->n = p ? p->n : 0;
    r->values = arena_calloc(s->arena, (size_t)(r->n ? r->n : 1), sizeof *r->values);
    if (!r->values)
        return error_nomem(err);
    for (int i = 0; i < r->n; i++)
        if (p->values[i] && !(r->values[i] = arena_strdup(s->arena, p->values[i])))
            return error_nomem(err);
    return s->nrec++;
}

int store_commit_batch_add(struct store_commit_batch *s, const char *sql, const struct db_params *p,
                           const char *context, struct error *err)
{
    int at = s->arena ? record(s, sql, p, context, err) : db_batch_add(&s->b, sql, p, err);
    if (at < 0) {
        s->failed = context;
        return -1;
    }
    if (!s->arena)
        s->context[at] = context;
    return at;
}

int store_commit_batch_replay(struct store_commit_batch *s,
                              const struct store_commit_batch *recorded, struct error *err)
{
    for (int k = 0; k < recorded->nrec; k++) {
        const struct store_commit_stmt *r = &recorded->rec[k];
        struct db_params p;
        db_params_init(&p);
        for (int v = 0; v < r->n; v++)
            db_param_str(&p, r->values[v]);
        if (store_commit_batch_add(s, r->sql, &p, r->context, err) < 0)
            return -1;
    }
    return 0;
}

int store_commit_batch_run(struct store_commit_batch *s, int *failed, struct error *err)
{
    if (db_batch_run(&s->b, failed, err) == 0)
        return 0;
    s->failed = *failed >= 0 && *failed < s->b.n ? s->context[*failed] : NULL;
    return -1;
}

const char *store_commit_batch_failed(const struct store_commit_batch *s, const char *fallback)
{
    return s->failed ? s->failed : fallback;
}

void store_commit_batch_free(struct store_commit_batch *s)
{
    db_batch_free(&s->b);
}

int store_commit_queue_settings(struct store_commit_batch *s, int64_t lock_budget_ms,
                                struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    char ms[24];
    snprintf(ms, sizeof ms, "%lld", (long long)lock_budget_ms);
    db_param_str(&p, ms);
    /* Generic plans: the commit's statements are prepared once per
     * connection, and planning them again for every commit (a custom
     * plan) costs more than running them: PostgreSQL keeps choosing a
     * custom plan whenever the generic one's estimate is worse than
     * the custom ones' (the live columns' read, in a catalog beside a
     * bigger one: 200 us of planning a commit for 30 of execution,
     * bench/scale). Every statement a commit runs (its own, its
     * triggers', its foreign-key checks) is an index probe; without
     * sequential scans the plans stay so on tables whose statistics
     * predate their rows (a young database before autovacuum's first
     * analyze: 1 ms per change-row insert where 0.1 would do,
     * measured). The commit writes its tables' totals itself
     * (commit_writes.c), so the insert triggers stand aside (migration
     * 14). */
    int at = store_commit_batch_add(s,
                                    "SELECT set_config('lock_timeout', $1, true),"
                                    " set_config('plan_cache_mode', 'force_generic_plan', true),"
                                    " set_config('enable_seqscan', 'off', true),"
                                    " set_config('hoglake.commit_totals', 'on', true)",
                                    &p, "lock timeout", err);
    return at < 0 ? -1 : 0;
}

int store_commit_queue_lock(struct store_commit_batch *s, int64_t catalog_id,
                            int64_t lock_budget_ms, struct error *err)
{
    if (store_commit_batch_add(s, "BEGIN", NULL, "begin", err) < 0 ||
        store_commit_queue_settings(s, lock_budget_ms, err) != 0)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, store_catalog_lock_key(catalog_id));
    /* The wait, timed by the server: clock_timestamp() runs after the lock
     * function returns. */
    return store_commit_batch_add(
        s,
        "SELECT extract(epoch FROM clock_timestamp() - statement_timestamp())"
        " FROM pg_advisory_xact_lock($1::bigint) AS l",
        &p, "catalog lock", err);
}

int store_commit_queue_commit(struct store_commit_batch *s, struct error *err)
{
    return store_commit_batch_add(s, "COMMIT", NULL, "commit", err);
}

bool store_commit_lock_waited(const struct store_commit_batch *s, int at, double *seconds)
{
    const PGresult *r = s->b.results[at];
    if (!r)
        return false;
    *seconds = strtod(PQgetvalue(r, 0, 0), NULL);
    return true;
}
