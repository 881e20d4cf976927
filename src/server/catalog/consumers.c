/* Consumer offsets: per (consumer, table incarnation) the last snapshot a
 * changefeed consumer has committed. Offsets are not snapshots: they take
 * no catalog lock and allocate nothing. Monotonicity is enforced by one
 * conditional upsert, never by a read followed by a write. */
#include <stdio.h>
#include <string.h>

#include "server/catalog/catalog.h"
#include "server/db/db.h"
#include "server/http/handlers.h"
#include "util/jsonx.h"
#include "util/strutil.h"
#include "util/timefmt.h"

enum { CONSUMER_ID_MAX = 128 };

#define CONSUMER_ID_PATTERN "^[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,127}$"

/* Path parameters of the consumer routes, in pattern order after the
 * catalog. */
enum { P_CATALOG = 0, P_CONSUMER = 1, P_TABLE_UUID = 2 };

static bool consumer_char(char c, bool first)
{
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
        return true;
    return !first && (c == '.' || c == ':' || c == '@' || c == '-');
}

/* Consumer ids are chosen by clients and live in URL paths: a conservative
 * ASCII set that needs no escaping, and never "." or ".." (which URL
 * libraries collapse). */
static bool consumer_id_valid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > CONSUMER_ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!consumer_char(s[i], i == 0))
            return false;
    return true;
}

static int check_consumer_id(const char *id, struct api_error *err)
{
    if (consumer_id_valid(id))
        return 0;
    return api_validation(err, "invalid consumer id '%.130s' (must match %s)", id,
                          CONSUMER_ID_PATTERN);
}

static int check_table_uuid(const char *uuid, struct api_error *err)
{
    if (str_is_uuid(uuid))
        return 0;
    return api_bad_request(err, "path parameter {table_uuid} must be a UUID, got '%.40s'", uuid);
}

/* Columns: consumer_id, table_uuid, committed_snapshot, updated_at (us). */
#define OFFSET_COLUMNS(o)                                                                          \
    o ".consumer_id, " o ".table_uuid::text, " o ".committed_snapshot,"                            \
      " (extract(epoch FROM " o ".updated_at) * 1000000)::bigint"

/* ConsumerOffset from a row whose first four columns are OFFSET_COLUMNS. */
static json_t *offset_to_json(const PGresult *r, int row)
{
    char ts[48];
    time_format_iso8601(db_i64(r, row, 3), ts, sizeof ts);
    return json_pack("{s:s,s:s,s:I,s:s}", "consumer_id", db_str(r, row, 0), "table_uuid",
                     db_str(r, row, 1), "committed_snapshot", (json_int_t)db_i64(r, row, 2),
                     "updated_at", ts);
}

/* The upsert matched no row: either the stored offset is ahead (409), or
 * expiry moved the floor past the offset since the catalog was read (410). */
static int classify_refused_offset(struct srv_req *req, const struct catalog_row *cat,
                                   const char *consumer, const char *uuid, int64_t snapshot,
                                   struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_str(&p, consumer);
    db_param_str(&p, uuid);
    PGresult *r =
        req_query(req,
                  "SELECT (SELECT committed_snapshot FROM hog_consumer_offset WHERE catalog_id = $1"
                  "  AND consumer_id = $2 AND table_uuid = $3::uuid), earliest_snapshot_id,"
                  " (extract(epoch FROM earliest_snapshot_time) * 1000000)::bigint"
                  " FROM hog_catalog WHERE catalog_id = $1",
                  &p, "consumer offset", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return api_not_found(err, "catalog '%s'", cat->name);
    }
    bool stored_present = !db_isnull(r, 0, 0);
    int64_t stored = stored_present ? db_i64(r, 0, 0) : 0;
    struct catalog_row floor = *cat;
    floor.earliest = db_i64(r, 0, 1);
    floor.has_earliest_time = !db_isnull(r, 0, 2);
    floor.earliest_time_us = floor.has_earliest_time ? db_i64(r, 0, 2) : 0;
    PQclear(r);
    /* Offsets only grow, so a stored offset seen ahead now was ahead when
     * the upsert refused. */
    if (stored_present && stored > snapshot)
        return api_conflict(err, "offset_regression",
                            "offset %lld for consumer '%s' on table %s is lower than its "
                            "committed offset %lld; offsets only move forward",
                            (long long)snapshot, consumer, uuid, (long long)stored);
    if (snapshot < floor.earliest)
        return timetravel_expired(err, &floor, snapshot, "snapshot_id");
    return api_fail(err, 500, "internal_error", "internal server error");
}

int h_consumer_offset_put(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *consumer = req->params[P_CONSUMER], *uuid = req->params[P_TABLE_UUID];
    if (check_table_uuid(uuid, err) != 0)
        return -1;
    json_t *jsnap;
    const struct jfield fields[] = {{"snapshot_id", JF_INT, true, false, &jsnap}};
    json_t *body = req_json_fields(req, fields, 1, err);
    if (!body)
        return -1;
    int64_t snapshot = (int64_t)json_integer_value(jsnap);
    json_decref(body);
    if (check_consumer_id(consumer, err) != 0)
        return -1;
    struct catalog_row cat;
    if (catalog_load(req, req->params[P_CATALOG], &cat, err) != 0)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_str(&p, uuid);
    bool exists;
    if (req_exists(req, "SELECT 1 FROM hog_table WHERE catalog_id = $1 AND table_uuid = $2::uuid",
                   &p, "consumer offset table", &exists, err) != 0)
        return -1;
    if (!exists)
        return api_not_found(err, "table with table_uuid %s in catalog '%s'", uuid, cat.name);
    if (snapshot < 0 || snapshot > cat.head)
        return api_validation(err, "snapshot_id %lld out of range [0, %lld] for catalog '%s'",
                              (long long)snapshot, (long long)cat.head, cat.name);
    if (snapshot < cat.earliest)
        return timetravel_expired(err, &cat, snapshot, "snapshot_id");

    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_str(&p, consumer);
    db_param_str(&p, uuid);
    db_param_i64(&p, snapshot);
    /* One statement: the conditional upsert (the stored offset moves only
     * forward; an equal offset rewrites nothing visible), the floor and head
     * re-checked against the catalog row as the statement sees it, and,
     * only when the upsert took, the removal of this consumer's offsets on
     * every incarnation this table replaced, followed transitively. */
    PGresult *r = req_query(
        req,
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
        &p, "consumer offset", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return classify_refused_offset(req, &cat, consumer, uuid, snapshot, err);
    }
    json_t *o = offset_to_json(r, 0);
    PQclear(r);
    if (api_json(res, 200, o) != 0)
        return api_nomem(err);
    return 0;
}

int h_consumer_offset_get(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *consumer = req->params[P_CONSUMER], *uuid = req->params[P_TABLE_UUID];
    if (check_table_uuid(uuid, err) != 0)
        return -1;
    struct catalog_row cat;
    if (catalog_load(req, req->params[P_CATALOG], &cat, err) != 0)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_str(&p, consumer);
    db_param_str(&p, uuid);
    PGresult *r =
        req_query(req,
                  "SELECT " OFFSET_COLUMNS("o") " FROM hog_consumer_offset o"
                                                " WHERE o.catalog_id = $1 AND o.consumer_id = $2"
                                                " AND o.table_uuid = $3::uuid",
                  &p, "consumer offset", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return api_not_found(err, "no offset for consumer '%.130s' on table %s in catalog '%s'",
                             consumer, uuid, cat.name);
    }
    json_t *o = offset_to_json(r, 0);
    PQclear(r);
    if (api_json(res, 200, o) != 0)
        return api_nomem(err);
    return 0;
}

int h_consumer_offsets_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *consumer = req->params[P_CONSUMER];
    struct catalog_row cat;
    if (catalog_load(req, req->params[P_CATALOG], &cat, err) != 0)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_str(&p, consumer);
    PGresult *r =
        req_query(req,
                  "SELECT " OFFSET_COLUMNS("o") " FROM hog_consumer_offset o"
                                                " WHERE o.catalog_id = $1 AND o.consumer_id = $2"
                                                " ORDER BY o.table_uuid",
                  &p, "consumer offsets", err);
    if (!r)
        return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        /* A consumer exists only through its offsets. */
        return api_not_found(err, "consumer '%.130s' in catalog '%s' (it has no offsets)", consumer,
                             cat.name);
    }
    json_t *out = json_array();
    for (int i = 0; out && i < PQntuples(r); i++) {
        if (json_array_append_new(out, offset_to_json(r, i)) != 0) {
            json_decref(out);
            out = NULL;
        }
    }
    PQclear(r);
    if (api_json(res, 200, out) != 0)
        return api_nomem(err);
    return 0;
}

int h_consumers_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row cat;
    if (catalog_load(req, req->params[P_CATALOG], &cat, err) != 0)
        return -1;
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    /* Names at the head as this statement sees the catalog: a live table is
     * one not dropped, with its open version row. A table whose incarnation
     * was dropped (or already retired) is reported dropped, without names. */
    PGresult *r = req_query(
        req,
        "SELECT " OFFSET_COLUMNS(
            "o") ", lt.ns_name, lt.table_name"
                 " FROM hog_consumer_offset o"
                 " LEFT JOIN (SELECT t.table_uuid, n.name AS ns_name, v.name AS table_name"
                 "  FROM hog_table t JOIN hog_table_version v ON v.catalog_id = t.catalog_id"
                 "   AND v.table_id = t.table_id AND v.end_snapshot IS NULL"
                 "  JOIN hog_namespace n ON n.catalog_id = v.catalog_id"
                 "   AND n.namespace_id = v.namespace_id"
                 "  WHERE t.catalog_id = $1 AND t.dropped_snapshot IS NULL) lt"
                 "  ON lt.table_uuid = o.table_uuid"
                 " WHERE o.catalog_id = $1"
                 " ORDER BY o.consumer_id COLLATE \"C\", o.table_uuid",
        &p, "consumer list", err);
    if (!r)
        return -1;
    json_t *consumers = json_array(), *offsets = NULL;
    const char *current = NULL;
    for (int i = 0; consumers && i < PQntuples(r); i++) {
        const char *id = db_str(r, i, 0);
        if (!current || strcmp(current, id) != 0) {
            offsets = json_array();
            json_t *c = json_pack("{s:s,s:o*}", "consumer_id", id, "offsets", offsets);
            if (!offsets || !c || json_array_append_new(consumers, c) != 0) {
                json_decref(consumers);
                consumers = NULL;
                break;
            }
            current = id;
        }
        char ts[48];
        time_format_iso8601(db_i64(r, i, 3), ts, sizeof ts);
        bool dropped = db_isnull(r, i, 5);
        json_t *o =
            json_pack("{s:s,s:I,s:s,s:b}", "table_uuid", db_str(r, i, 1), "committed_snapshot",
                      (json_int_t)db_i64(r, i, 2), "updated_at", ts, "table_dropped", dropped);
        if (o && !dropped) {
            json_object_set_new(o, "namespace", json_string(db_str(r, i, 4)));
            json_object_set_new(o, "table_name", json_string(db_str(r, i, 5)));
        }
        if (!o || json_array_append_new(offsets, o) != 0) {
            json_decref(consumers);
            consumers = NULL;
        }
    }
    PQclear(r);
    if (!consumers)
        return api_nomem(err);
    if (api_json(res, 200, json_pack("{s:o}", "consumers", consumers)) != 0)
        return api_nomem(err);
    return 0;
}
