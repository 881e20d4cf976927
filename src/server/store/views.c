/* hog_view (see views.h). */
#include "server/store/views.h"

#include "server/db/db.h"

#define VIEW_COLUMNS "name, view_uuid, dialect, sql"

/* A row's VIEW_COLUMNS from column col0 on, copied into the arena. */
static int view_from_row(struct arena *arena, const PGresult *r, int row, int col0,
                         struct store_view *v)
{
    v->name = arena_strdup(arena, db_str(r, row, col0));
    v->view_uuid = arena_strdup(arena, db_str(r, row, col0 + 1));
    v->dialect = arena_strdup(arena, db_str(r, row, col0 + 2));
    v->sql = arena_strdup(arena, db_str(r, row, col0 + 3));
    return v->name && v->view_uuid && v->dialect && v->sql ? 0 : -1;
}

/* The views of a VIEW_COLUMNS result r (NULL: its statement failed, err
 * says why) as an arena array; clears r. 0 or -1. */
static int views_take(PGresult *r, struct arena *arena, struct store_view **out, size_t *count,
                      struct error *err)
{
    if (!r)
        return -1;
    int n = PQntuples(r);
    struct store_view *v = arena_calloc(arena, n ? (size_t)n : 1, sizeof *v);
    for (int i = 0; v && i < n; i++)
        if (view_from_row(arena, r, i, 0, &v[i]) != 0)
            v = NULL;
    PQclear(r);
    if (!v)
        return error_nomem(err);
    *out = v;
    *count = (size_t)n;
    return 0;
}

int store_views_list(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                     int64_t namespace_id, int64_t snapshot, struct store_view **out, size_t *count,
                     struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, namespace_id, snapshot);
    return views_take(
        db_exec(db->pg,
                "SELECT " VIEW_COLUMNS " FROM hog_view WHERE catalog_id = $1"
                " AND namespace_id = $2 AND hog_visible(begin_snapshot, end_snapshot, $3)"
                " ORDER BY name",
                &p, err),
        arena, out, count, err);
}

int store_view_get(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                   int64_t namespace_id, const char *name, int64_t snapshot, struct store_view *out,
                   struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, namespace_id);
    db_param_str(&p, name);
    db_param_i64(&p, snapshot);
    struct store_view *v;
    size_t n;
    if (views_take(db_exec(db->pg,
                           "SELECT " VIEW_COLUMNS " FROM hog_view WHERE catalog_id = $1"
                           " AND namespace_id = $2 AND name = $3"
                           " AND hog_visible(begin_snapshot, end_snapshot, $4)",
                           &p, err),
                   arena, &v, &n, err) != 0)
        return -1;
    if (n > 0)
        *out = v[0];
    return n > 0;
}

int store_view_exists(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                      const char *name, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, namespace_id);
    db_param_str(&p, name);
    return db_exists(
        db->pg,
        "SELECT 1 FROM hog_view WHERE catalog_id = $1 AND namespace_id = $2 AND name = $3"
        " AND end_snapshot IS NULL",
        &p, err);
}

int store_view_find_live(struct db_conn *db, int64_t catalog_id, int64_t namespace_id,
                         const char *name, int64_t *view_id, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, namespace_id);
    db_param_str(&p, name);
    return db_scalar_i64(db->pg,
                         "SELECT view_id FROM hog_view WHERE catalog_id = $1 AND namespace_id = $2"
                         " AND name = $3 AND end_snapshot IS NULL",
                         &p, view_id, err);
}

int store_view_insert(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                      int64_t namespace_id, const char *name, const char *dialect, const char *sql,
                      int64_t snapshot_id, struct store_view *out, struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, namespace_id);
    db_param_str(&p, name);
    db_param_str(&p, dialect);
    db_param_str(&p, sql);
    db_param_i64(&p, snapshot_id);
    PGresult *r =
        db_exec(db->pg,
                "WITH id AS (UPDATE hog_catalog SET next_view_id = next_view_id + 1"
                " WHERE catalog_id = $1 RETURNING next_view_id - 1 AS view_id)"
                " INSERT INTO hog_view (catalog_id, view_id, namespace_id, name, dialect, sql,"
                " begin_snapshot) SELECT $1, view_id, $2, $3, $4, $5, $6 FROM id"
                " RETURNING view_id, " VIEW_COLUMNS,
                &p, err);
    if (!r)
        return -1;
    out->view_id = db_i64(r, 0, 0);
    int rc = view_from_row(arena, r, 0, 1, out) != 0 ? error_nomem(err) : 0;
    PQclear(r);
    return rc;
}

int store_view_drop(struct db_conn *db, int64_t catalog_id, int64_t view_id, int64_t snapshot_id,
                    struct error *err)
{
    struct db_params p;
    DB_PARAMS_IDS(&p, catalog_id, view_id, snapshot_id);
    return db_run(db->pg,
                  "UPDATE hog_view SET end_snapshot = $3 WHERE catalog_id = $1 AND view_id = $2",
                  &p, err);
}
