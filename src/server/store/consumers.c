/* hog_consumer_offset (see consumers.h). */
#include "server/store/consumers.h"

#include "server/db/db.h"

/* Columns: consumer_id, table_uuid, committed_snapshot, updated_at (us). */
#define OFFSET_COLUMNS(o)                                                                          \
    o ".consumer_id, " o ".table_uuid::text, " o ".committed_snapshot,"                            \
      " (extract(epoch FROM " o ".updated_at) * 1000000)::bigint"

/* The offsets of a result whose first columns are OFFSET_COLUMNS, with the
 * namespace and table names after them when `names` (r NULL: its
 * statement failed, err says why), as an arena array; clears r. */
static int offsets_take(PGresult *r, bool names, struct arena *arena,
                        struct store_consumer_offset **out, size_t *count, struct error *err)
{
    if (!r)
        return -1;
    int n = PQntuples(r);
    struct store_consumer_offset *o = arena_calloc(arena, n ? (size_t)n : 1, sizeof *o);
    for (int i = 0; o && i < n; i++) {
        o[i].consumer_id = arena_strdup(arena, db_str(r, i, 0));
        o[i].table_uuid = arena_strdup(arena, db_str(r, i, 1));
        o[i].committed_snapshot = db_i64(r, i, 2);
        o[i].updated_at_us = db_i64(r, i, 3);
        bool bad = !o[i].consumer_id || !o[i].table_uuid;
        if (names && !db_isnull(r, i, 5)) {
            o[i].namespace_name = arena_strdup(arena, db_str(r, i, 4));
            o[i].table_name = arena_strdup(arena, db_str(r, i, 5));
            bad |= !o[i].namespace_name || !o[i].table_name;
        }
        if (bad)
            o = NULL;
    }
    PQclear(r);
    if (!o)
        return error_nomem(err);
    *out = o;
    *count = (size_t)n;
    return 0;
}

/* offsets_take for a statement returning at most one offset: 1 found,
 * 0 none, -1. */
static int offset_take(PGresult *r, struct arena *arena, struct store_consumer_offset *out,
                       struct error *err)
{
    struct store_consumer_offset *o;
    size_t n;
    if (offsets_take(r, false, arena, &o, &n, err) != 0)
        return -1;
    if (n > 0)
        *out = o[0];
    return n > 0;
}

/* $1 catalog, $2 consumer, $3 table uuid: an offset's key. */
static void offset_key(struct db_params *p, int64_t catalog_id, const char *consumer_id,
                       const char *table_uuid)
{
    db_params_init(p);
    db_param_i64(p, catalog_id);
    db_param_str(p, consumer_id);
    db_param_str(p, table_uuid);
}

int store_consumer_table_exists(struct db_conn *db, int64_t catalog_id, const char *table_uuid,
                                struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, table_uuid);
    return db_exists(
        db->pg, "SELECT 1 FROM hog_table WHERE catalog_id = $1 AND table_uuid = $2::uuid", &p, err);
}

int store_consumer_offset_upsert(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                                 const char *consumer_id, const char *table_uuid, int64_t snapshot,
                                 struct store_consumer_offset *out, struct error *err)
{
    struct db_params p;
    offset_key(&p, catalog_id, consumer_id, table_uuid);
    db_param_i64(&p, snapshot);
    /* One statement: the conditional upsert (the stored offset moves only
     * forward; an equal offset rewrites nothing visible), the floor and head
     * re-checked against the catalog row as the statement sees it, and,
     * only when the upsert took, the removal of this consumer's offsets on
     * every incarnation this table replaced, followed transitively. */
    PGresult *r = db_exec(
        db->pg,
        "WITH RECURSIVE lineage (table_id) AS ("
        "  SELECT replaced_table_id FROM hog_table WHERE catalog_id = $1"
        "   AND table_uuid = $3::uuid AND replaced_table_id IS NOT NULL"
        "  UNION"
        "  SELECT t.replaced_table_id FROM hog_table t JOIN lineage l"
        "   ON t.catalog_id = $1 AND t.table_id = l.table_id"
        "   WHERE t.replaced_table_id IS NOT NULL),"
        " up AS ("
        "  INSERT INTO hog_consumer_offset AS o"
        "   (catalog_id, consumer_id, table_uuid, committed_snapshot, updated_at)"
        "  SELECT $1, $2, $3::uuid, $4, now() FROM hog_catalog WHERE catalog_id = $1"
        "   AND earliest_snapshot_id <= $4 AND last_snapshot_id >= $4"
        "  ON CONFLICT (catalog_id, consumer_id, table_uuid) DO UPDATE"
        "   SET committed_snapshot = EXCLUDED.committed_snapshot,"
        "    updated_at = CASE WHEN EXCLUDED.committed_snapshot > o.committed_snapshot"
        "     THEN EXCLUDED.updated_at ELSE o.updated_at END"
        "   WHERE o.committed_snapshot <= EXCLUDED.committed_snapshot"
        "  RETURNING " OFFSET_COLUMNS(
            "o") "),"
                 " gone AS ("
                 "  DELETE FROM hog_consumer_offset d WHERE d.catalog_id = $1 AND d.consumer_id = "
                 "$2"
                 "   AND d.table_uuid <> $3::uuid AND EXISTS (SELECT 1 FROM up)"
                 "   AND d.table_uuid IN (SELECT t.table_uuid FROM hog_table t JOIN lineage l"
                 "    ON t.catalog_id = $1 AND t.table_id = l.table_id))"
                 " SELECT * FROM up",
        &p, err);
    return offset_take(r, arena, out, err);
}

int store_consumer_offset_refusal(struct db_conn *db, int64_t catalog_id, const char *consumer_id,
                                  const char *table_uuid, struct store_offset_refusal *out,
                                  struct error *err)
{
    struct db_params p;
    offset_key(&p, catalog_id, consumer_id, table_uuid);
    PGresult *r =
        db_exec(db->pg,
                "SELECT (SELECT committed_snapshot FROM hog_consumer_offset WHERE catalog_id = $1"
                "  AND consumer_id = $2 AND table_uuid = $3::uuid), earliest_snapshot_id,"
                " (extract(epoch FROM earliest_snapshot_time) * 1000000)::bigint"
                " FROM hog_catalog WHERE catalog_id = $1",
                &p, err);
    if (!r)
        return -1;
    int found = PQntuples(r) > 0;
    if (found) {
        out->has_stored = db_i64_opt(r, 0, 0, &out->stored);
        out->earliest = db_i64(r, 0, 1);
        out->has_earliest_time = db_i64_opt(r, 0, 2, &out->earliest_time_us);
    }
    PQclear(r);
    return found;
}

int store_consumer_offset_get(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                              const char *consumer_id, const char *table_uuid,
                              struct store_consumer_offset *out, struct error *err)
{
    struct db_params p;
    offset_key(&p, catalog_id, consumer_id, table_uuid);
    PGresult *r =
        db_exec(db->pg,
                "SELECT " OFFSET_COLUMNS("o") " FROM hog_consumer_offset o"
                                              " WHERE o.catalog_id = $1 AND o.consumer_id = $2"
                                              " AND o.table_uuid = $3::uuid",
                &p, err);
    return offset_take(r, arena, out, err);
}

int store_consumer_offsets_list(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                                const char *consumer_id, struct store_consumer_offset **out,
                                size_t *count, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, consumer_id);
    PGresult *r =
        db_exec(db->pg,
                "SELECT " OFFSET_COLUMNS("o") " FROM hog_consumer_offset o"
                                              " WHERE o.catalog_id = $1 AND o.consumer_id = $2"
                                              " ORDER BY o.table_uuid",
                &p, err);
    return offsets_take(r, false, arena, out, count, err);
}

int store_consumers_page(struct db_conn *db, struct arena *arena, int64_t catalog_id,
                         const char *after_consumer, const char *after_uuid, int64_t limit,
                         struct store_consumer_offset **out, size_t *count, struct error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, catalog_id);
    db_param_str(&p, after_consumer);
    db_param_str(&p, after_uuid);
    db_param_i64(&p, limit);
    /* The page walks hog_consumer_offset_listing (migration 16) from the
     * last pair returned. Names at the head as this statement sees the
     * catalog, probed per offset of the page: a live table is one not
     * dropped, with its open version row; a table whose incarnation was
     * dropped (or already retired) is reported dropped, without names. */
    PGresult *r = db_exec(
        db->pg,
        "SELECT " OFFSET_COLUMNS(
            "o") ", lt.ns_name, lt.table_name"
                 " FROM hog_consumer_offset o"
                 " LEFT JOIN LATERAL (SELECT n.name AS ns_name, v.name AS table_name"
                 "  FROM hog_table t JOIN hog_table_version v ON v.catalog_id = t.catalog_id"
                 "   AND v.table_id = t.table_id AND v.end_snapshot IS NULL"
                 "  JOIN hog_namespace n ON n.catalog_id = v.catalog_id"
                 "   AND n.namespace_id = v.namespace_id"
                 "  WHERE t.catalog_id = $1 AND t.table_uuid = o.table_uuid"
                 "  AND t.dropped_snapshot IS NULL) lt ON true"
                 " WHERE o.catalog_id = $1 AND ($2::text IS NULL"
                 "  OR (o.consumer_id COLLATE \"C\", o.table_uuid) > ($2::text, $3::uuid))"
                 " ORDER BY o.consumer_id COLLATE \"C\", o.table_uuid LIMIT $4",
        &p, err);
    return offsets_take(r, true, arena, out, count, err);
}
