/* hog_catalog: creation and options (see catalogs.h). */
#include "server/store/catalogs.h"

#include "server/db/db.h"

/* Serialises catalog creation instance-wide, so the prefix-disjointness
 * check cannot race: class 4740876, low 32 bits 0. */
#define CATALOG_CREATE_LOCK_KEY "20361907374391296" /* 4740876 << 32 */

int store_catalog_create_begin(struct db_conn *db, struct error *err)
{
    if (db_run(db->pg, "BEGIN", NULL, err) != 0 ||
        db_run(db->pg, "SELECT set_config('lock_timeout', '10000', true)", NULL, err) != 0 ||
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
               &p, err) != 0 ||
        db_run(db->pg, "COMMIT", NULL, err) != 0)
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
