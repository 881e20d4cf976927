#include "server/store/maintenance_runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/db/db.h"

/* Advisory lock on (task, catalog) in the two-int4 key space, which never
 * collides with the bigint catalog locks commits take. */
#define MAINT_LOCK_ARGS "hashtext('hoglake.maint.' || $1), ($2::bigint % 2147483648)::int"

static void lock_params(struct db_params *p, const char *task, int64_t catalog_id)
{
    db_params_init(p);
    db_param_str(p, task);
    db_param_i64(p, catalog_id);
}

int store_runs_try_lock(PGconn *pg, const char *task, int64_t catalog_id, struct error *err)
{
    struct db_params p;
    lock_params(&p, task, catalog_id);
    PGresult *r = db_exec(pg, "SELECT pg_try_advisory_lock(" MAINT_LOCK_ARGS ")", &p, err);
    if (!r)
        return -1;
    bool got = db_bool(r, 0, 0);
    PQclear(r);
    return got ? 1 : 0;
}

int store_runs_lock(PGconn *pg, const char *task, int64_t catalog_id, int lock_timeout_ms,
                    struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    char timeout[32];
    snprintf(timeout, sizeof timeout, "%d", lock_timeout_ms);
    db_param_str(&p, timeout);
    if (db_run(pg, "SELECT set_config('lock_timeout', $1, false)", &p, err) != 0)
        return -1;
    lock_params(&p, task, catalog_id);
    int rc = db_run(pg, "SELECT pg_advisory_lock(" MAINT_LOCK_ARGS ")", &p, err);
    struct error reset_err;
    db_run(pg, "RESET lock_timeout", NULL, &reset_err);
    return rc;
}

int store_runs_unlock(PGconn *pg, const char *task, int64_t catalog_id, struct error *err)
{
    struct db_params p;
    lock_params(&p, task, catalog_id);
    return db_run(pg, "SELECT pg_advisory_unlock(" MAINT_LOCK_ARGS ")", &p, err);
}

int store_runs_record(PGconn *pg, const struct store_run_new *run, char **catalog_name,
                      struct error *err)
{
    *catalog_name = NULL;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, run->catalog_id);
    db_param_str(&p, run->task);
    db_param_str(&p, run->trigger);
    db_param_i64(&p, run->started_us);
    db_param_str(&p, run->ok ? "ok" : "failed");
    db_param_str(&p, run->ok ? NULL : (run->error && run->error[0] ? run->error : "failed"));
    db_param_str(&p, run->result_json);
    PGresult *r = db_exec(pg,
                          "INSERT INTO hog_maintenance_run (catalog_id, task, run_trigger,"
                          " started_at, finished_at, status, error, result) SELECT $1, $2, $3,"
                          " to_timestamp($4::bigint / 1e6), clock_timestamp(), $5, $6, $7::jsonb"
                          " FROM hog_catalog WHERE catalog_id = $1 RETURNING"
                          " (SELECT name FROM hog_catalog WHERE catalog_id = $1)",
                          &p, err);
    if (!r)
        return -1;
    if (PQntuples(r) == 1)
        *catalog_name = strdup(db_str(r, 0, 0));
    PQclear(r);
    return 0;
}

/* The columns the row accessors read, in this order. */
#define MAINT_RUN_COLUMNS                                                                          \
    "r.run_id, c.name, r.task, r.run_trigger,"                                                     \
    " (extract(epoch FROM r.started_at) * 1000000)::bigint,"                                       \
    " (extract(epoch FROM r.finished_at) * 1000000)::bigint, r.status, r.error, r.result::text"
enum { COL_ID, COL_CATALOG, COL_TASK, COL_TRIGGER, COL_STARTED, COL_FINISHED, COL_STATUS };
enum { COL_ERROR = COL_STATUS + 1, COL_RESULT };

int store_runs_rows_count(const struct store_runs_rows *v)
{
    return PQntuples(v->r);
}

int64_t store_runs_rows_id(const struct store_runs_rows *v, int i)
{
    return db_i64(v->r, i, COL_ID);
}

const char *store_runs_rows_catalog(const struct store_runs_rows *v, int i)
{
    return db_str(v->r, i, COL_CATALOG);
}

const char *store_runs_rows_task(const struct store_runs_rows *v, int i)
{
    return db_str(v->r, i, COL_TASK);
}

const char *store_runs_rows_trigger(const struct store_runs_rows *v, int i)
{
    return db_str(v->r, i, COL_TRIGGER);
}

int64_t store_runs_rows_started_us(const struct store_runs_rows *v, int i)
{
    return db_i64(v->r, i, COL_STARTED);
}

int64_t store_runs_rows_finished_us(const struct store_runs_rows *v, int i)
{
    return db_i64(v->r, i, COL_FINISHED);
}

const char *store_runs_rows_status(const struct store_runs_rows *v, int i)
{
    return db_str(v->r, i, COL_STATUS);
}

const char *store_runs_rows_error(const struct store_runs_rows *v, int i)
{
    return db_str(v->r, i, COL_ERROR);
}

const char *store_runs_rows_result(const struct store_runs_rows *v, int i)
{
    return db_str(v->r, i, COL_RESULT);
}

void store_runs_rows_free(struct store_runs_rows *v)
{
    PQclear(v->r);
    v->r = NULL;
}

int store_runs_last(PGconn *pg, int64_t catalog_id, const char *task, struct store_runs_rows *out,
                    struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, task);
    out->r = db_exec(pg,
                     "SELECT " MAINT_RUN_COLUMNS " FROM hog_maintenance_run r JOIN hog_catalog"
                     " c USING (catalog_id) WHERE r.catalog_id = $1 AND r.task = $2"
                     " ORDER BY r.run_id DESC LIMIT 1",
                     &p, err);
    return out->r ? 0 : -1;
}

int store_runs_page(PGconn *pg, int64_t catalog_id, const char *task, bool has_before,
                    int64_t before, int64_t limit, struct store_runs_rows *out, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, task);
    if (has_before)
        db_param_i64(&p, before);
    else
        db_param_null(&p);
    db_param_i64(&p, limit);
    out->r = db_exec(pg,
                     "SELECT " MAINT_RUN_COLUMNS " FROM hog_maintenance_run r"
                     " JOIN hog_catalog c USING (catalog_id) WHERE r.catalog_id = $1"
                     " AND ($2::text IS NULL OR r.task = $2)"
                     " AND ($3::bigint IS NULL OR r.run_id < $3)"
                     " ORDER BY r.run_id DESC LIMIT $4",
                     &p, err);
    return out->r ? 0 : -1;
}

int store_runs_purge(PGconn *pg, int64_t catalog_id, int64_t retention_s, int64_t limit,
                     int64_t *purged, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, retention_s, limit);
    return db_run_count(
        pg,
        "DELETE FROM hog_maintenance_run WHERE run_id IN (SELECT run_id FROM hog_maintenance_run"
        " WHERE catalog_id = $1 AND finished_at < now() - make_interval(secs => $2)"
        " ORDER BY run_id LIMIT $3)",
        &p, purged, err);
}
