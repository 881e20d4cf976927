/* hog_catalog: creation, options, rows and the catalog lock (see
 * catalogs.h). */
#include "server/store/catalogs.h"

#include <stdio.h>
#include <string.h>

#include "server/db/db.h"
#include "util/timefmt.h"

/* Serialises catalog creation instance-wide, so the prefix-disjointness
 * check cannot race: class 4740876, low 32 bits 0. */
#define CATALOG_CREATE_LOCK_KEY "20361907374391296" /* 4740876 << 32 */

int store_catalog_create_lock(struct db_conn *db, struct error *err)
{
    if (db_set_lock_timeout(db->pg, 10000, err) != 0 ||
        db_run(db->pg, "SELECT pg_advisory_xact_lock(" CATALOG_CREATE_LOCK_KEY ")", NULL, err) != 0)
        return -1;
    return 0;
}

int store_catalogs_list_paths(struct db_conn *db, struct arena *arena,
                              struct store_catalog_path **out, size_t *count, struct error *err)
{
    PGresult *r = db_exec(db->pg, "SELECT name, data_path FROM hog_catalog", NULL, err);
    if (!r)
        return -1;
    int n = PQntuples(r);
    struct store_catalog_path *c = arena_calloc(arena, n ? (size_t)n : 1, sizeof *c);
    for (int i = 0; c && i < n; i++) {
        c[i].name = arena_strdup(arena, db_str(r, i, 0));
        c[i].data_path = arena_strdup(arena, db_str(r, i, 1));
        if (!c[i].name || !c[i].data_path)
            c = NULL;
    }
    PQclear(r);
    if (!c)
        return error_nomem(err);
    *out = c;
    *count = (size_t)n;
    return 0;
}

int store_catalog_insert(struct db_conn *db, const char *name, const char *data_path,
                         struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_str(&p, name);
    db_param_str(&p, data_path);
    if (db_run(db->pg,
               "WITH c AS (INSERT INTO hog_catalog (name, data_path) VALUES ($1, $2)"
               " RETURNING catalog_id)"
               " INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
               " SELECT catalog_id, 0, clock_timestamp(), 0 FROM c",
               &p, err) != 0)
        return -1;
    return 0;
}

int store_catalog_update_options(struct db_conn *db, int64_t catalog_id,
                                 const struct store_catalog_options *o, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_bool(&p, o->set_retention);
    if (o->set_retention && o->has_retention)
        db_param_i64(&p, o->retention_s);
    else
        db_param_null(&p);
    if (o->set_consumer_floor)
        db_param_bool(&p, o->consumer_floor);
    else
        db_param_null(&p);
    return db_run(db->pg,
                  "UPDATE hog_catalog SET"
                  " snapshot_retention_seconds = CASE WHEN $2::boolean THEN $3::bigint"
                  " ELSE snapshot_retention_seconds END,"
                  " consumer_floor = coalesce($4::boolean, consumer_floor)"
                  " WHERE catalog_id = $1",
                  &p, err);
}

/* ---- catalog rows ---- */

#define CATALOG_LOCK_CLASS 4740871LL

int64_t store_catalog_lock_key(int64_t catalog_id)
{
    return (int64_t)(((uint64_t)CATALOG_LOCK_CLASS << 32) | ((uint64_t)catalog_id & 0xffffffffu));
}

#define CATALOG_SELECT                                                                             \
    "SELECT catalog_id, name, data_path, last_snapshot_id, schema_version,"                        \
    " earliest_snapshot_id,"                                                                       \
    " (extract(epoch FROM earliest_snapshot_time) * 1000000)::bigint,"                             \
    " snapshot_retention_seconds, consumer_floor FROM hog_catalog"

static int catalog_from_row(struct arena *arena, const PGresult *r, int row,
                            struct catalog_row *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    out->id = db_i64(r, row, 0);
    out->name = arena_strdup(arena, db_str(r, row, 1));
    out->data_path = arena_strdup(arena, db_str(r, row, 2));
    out->head = db_i64(r, row, 3);
    out->schema_version = db_i64(r, row, 4);
    out->earliest = db_i64(r, row, 5);
    out->has_earliest_time = db_i64_opt(r, row, 6, &out->earliest_time_us);
    out->has_retention = db_i64_opt(r, row, 7, &out->retention_s);
    out->consumer_floor = db_bool(r, row, 8);
    return out->name && out->data_path ? 0 : error_nomem(err);
}

/* The first row of r as *out: 1, 0 when r has none, -1. Clears r. */
static int one_catalog(struct arena *arena, PGresult *r, struct catalog_row *out, struct error *err)
{
    if (!r)
        return -1;
    int rc = PQntuples(r) == 0 ? 0 : catalog_from_row(arena, r, 0, out, err) == 0 ? 1 : -1;
    PQclear(r);
    return rc;
}

int store_catalog_get(struct db_conn *db, struct arena *arena, const char *name,
                      struct catalog_row *out, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_str(&p, name);
    /* Every request loads its catalog: prepared once per connection. */
    return one_catalog(arena, db_exec_prepared(db, CATALOG_SELECT " WHERE name = $1", &p, err), out,
                       err);
}

int store_catalog_get_by_id(struct db_conn *db, struct arena *arena, int64_t id,
                            struct catalog_row *out, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, id);
    return one_catalog(arena, db_exec(db->pg, CATALOG_SELECT " WHERE catalog_id = $1", &p, err),
                       out, err);
}

int store_catalogs_all(struct db_conn *db, struct arena *arena, struct catalog_row **out,
                       size_t *count, struct error *err)
{
    PGresult *r = db_exec(db->pg, CATALOG_SELECT " ORDER BY name", NULL, err);
    if (!r)
        return -1;
    size_t n = (size_t)PQntuples(r);
    *out = arena_calloc(arena, n ? n : 1, sizeof **out);
    int rc = *out ? 0 : error_nomem(err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = catalog_from_row(arena, r, (int)i, &(*out)[i], err);
    PQclear(r);
    if (rc == 0)
        *count = n;
    return rc;
}

int store_catalog_lock(struct db_conn *db, int64_t catalog_id, int64_t lock_budget_ms,
                       int64_t *lock_wait_ns, int64_t *head, int64_t *earliest, struct error *err)
{
    *lock_wait_ns = 0;
    if (db_set_lock_timeout(db->pg, lock_budget_ms, err) != 0)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, store_catalog_lock_key(catalog_id));
    int64_t t0 = time_mono_ns();
    int rc = db_run(db->pg, "SELECT pg_advisory_xact_lock($1::bigint)", &p, err);
    *lock_wait_ns = time_mono_ns() - t0;
    if (rc != 0)
        return -1;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    PGresult *r = db_exec(db->pg,
                          "SELECT last_snapshot_id, earliest_snapshot_id FROM hog_catalog"
                          " WHERE catalog_id = $1",
                          &p, err);
    if (!r)
        return -1;
    int found = PQntuples(r) > 0;
    if (found) {
        *head = db_i64(r, 0, 0);
        *earliest = db_i64(r, 0, 1);
    }
    PQclear(r);
    return found;
}

int store_catalog_ids_list(PGconn *pg, struct store_catalog_ids *out, struct error *err)
{
    out->r = db_exec(pg, "SELECT catalog_id FROM hog_catalog ORDER BY catalog_id", NULL, err);
    return out->r ? 0 : -1;
}

int store_catalog_ids_count(const struct store_catalog_ids *v)
{
    return PQntuples(v->r);
}

int64_t store_catalog_ids_at(const struct store_catalog_ids *v, int i)
{
    return db_i64(v->r, i, 0);
}

void store_catalog_ids_free(struct store_catalog_ids *v)
{
    PQclear(v->r);
    v->r = NULL;
}

/* One bigint of the catalog's row: 1 with *out set, 0 when it is gone. */
static int catalog_i64(PGconn *pg, const char *sql, int64_t catalog_id, int64_t *out,
                       struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id);
    PGresult *r = db_exec(pg, sql, &p, err);
    if (!r)
        return -1;
    int found = PQntuples(r) > 0;
    *out = found ? db_i64(r, 0, 0) : 0;
    PQclear(r);
    return found;
}

int store_catalog_head(struct db_conn *db, int64_t catalog_id, int64_t *head, struct error *err)
{
    int found =
        catalog_i64(db->pg, "SELECT last_snapshot_id FROM hog_catalog WHERE catalog_id = $1",
                    catalog_id, head, err);
    if (found == 0)
        return error_fail(err, ERR_NOT_FOUND, "catalog %lld is gone", (long long)catalog_id);
    return found < 0 ? -1 : 0;
}

int store_catalog_earliest(PGconn *pg, int64_t catalog_id, int64_t *floor, struct error *err)
{
    return catalog_i64(pg,
                       "SELECT coalesce(earliest_snapshot_id, 0) FROM hog_catalog"
                       " WHERE catalog_id = $1",
                       catalog_id, floor, err) < 0
               ? -1
               : 0;
}
