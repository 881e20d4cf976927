/* hog_namespace (see namespaces.h). */
#include "server/store/namespaces.h"

#include "server/db/db.h"

int store_namespaces_list(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                          int64_t snapshot, struct store_namespace **out, size_t *count,
                          struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, snapshot);
    PGresult *r = db_exec(db->pg,
                          "SELECT name, namespace_id FROM hog_namespace WHERE catalog_id = $1"
                          " AND hog_visible(created_snapshot, dropped_snapshot, $2) ORDER BY name",
                          &p, err);
    if (!r)
        return -1;
    int n = PQntuples(r);
    struct store_namespace *ns = arena_calloc(arena, n ? (size_t)n : 1, sizeof *ns);
    for (int i = 0; ns && i < n; i++) {
        ns[i].namespace_id = db_i64(r, i, 1);
        if (!(ns[i].name = arena_strdup(arena, db_str(r, i, 0))))
            ns = NULL;
    }
    PQclear(r);
    if (!ns)
        return error_nomem(err);
    *out = ns;
    *count = (size_t)n;
    return 0;
}

int store_namespace_exists(struct db_conn *db, int64_t catalog_id, const char *name,
                           struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, name);
    return db_exists(db->pg,
                     "SELECT 1 FROM hog_namespace WHERE catalog_id = $1 AND name = $2"
                     " AND dropped_snapshot IS NULL",
                     &p, err);
}

int store_namespace_insert(struct db_conn *db, int64_t catalog_id, const char *name,
                           int64_t snapshot_id, int64_t *namespace_id, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, name);
    db_param_i64(&p, snapshot_id);
    PGresult *r =
        db_exec(db->pg,
                "WITH id AS (UPDATE hog_catalog SET next_namespace_id = next_namespace_id + 1"
                " WHERE catalog_id = $1 RETURNING next_namespace_id - 1 AS namespace_id)"
                " INSERT INTO hog_namespace (catalog_id, namespace_id, name, created_snapshot)"
                " SELECT $1, namespace_id, $2, $3 FROM id RETURNING namespace_id",
                &p, err);
    if (!r)
        return -1;
    *namespace_id = db_i64(r, 0, 0);
    PQclear(r);
    return 0;
}

int store_namespace_count_contents(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                                   int64_t *tables, int64_t *views, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, namespace_id);
    PGresult *r = db_exec(db->pg,
                          "SELECT (SELECT count(*) FROM hog_table_version WHERE catalog_id = $1"
                          "  AND namespace_id = $2 AND end_snapshot IS NULL),"
                          " (SELECT count(*) FROM hog_view WHERE catalog_id = $1"
                          "  AND namespace_id = $2 AND end_snapshot IS NULL)",
                          &p, err);
    if (!r)
        return -1;
    *tables = db_i64(r, 0, 0);
    *views = db_i64(r, 0, 1);
    PQclear(r);
    return 0;
}

int store_namespace_drop(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                         int64_t snapshot_id, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, namespace_id, snapshot_id);
    return db_run(db->pg,
                  "UPDATE hog_namespace SET dropped_snapshot = $3 WHERE catalog_id = $1"
                  " AND namespace_id = $2",
                  &p, err);
}

int store_namespace_find(struct db_conn *db, int64_t catalog_id, const char *name, int64_t snapshot,
                         int64_t *namespace_id, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, name);
    db_param_i64(&p, snapshot);
    return db_scalar_i64(db->pg,
                         "SELECT namespace_id FROM hog_namespace WHERE catalog_id = $1 AND name "
                         "= $2 AND hog_visible(created_snapshot, dropped_snapshot, $3)",
                         &p, namespace_id, err);
}
