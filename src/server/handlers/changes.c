/* GET .../tables/{table}/changes: the changefeed plan of one table for the
 * window (from_snapshot, to_snapshot]: the data files and deletion vectors
 * appended inside it. Compaction outputs are left out (they rewrite rows
 * the feed already delivered), and a window that crosses a TRUNCATE is
 * refused with 409 reconciliation_required: the truncate removed rows the
 * feed cannot express, so the consumer must re-read the table. */
#include <stdio.h>
#include <string.h>

#include "server/catalog.h"
#include "server/db/db.h"
#include "server/handlers/files.h"
#include "server/handlers/handlers.h"

/* The window predicate: a row appended in (from, to] is one whose
 * begin_snapshot is visible at `to` but not at `from` (its end does not
 * matter: a file retired inside the window was still appended there). */
#define IN_WINDOW(alias)                                                                           \
    " hog_visible(" alias ".begin_snapshot, NULL, $4) AND NOT hog_visible(" alias                  \
    ".begin_snapshot, NULL, $3)"

/* A truncate is the one snapshot that writes both table_altered and
 * table_deleted_from for a table (h_table_truncate): other DDL writes only
 * table_altered, and data commits never write table_altered. */
static int find_truncate(struct srv_req *req, const struct catalog_row *cat, int64_t table_id,
                         int64_t from, int64_t to, int64_t *found, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, table_id);
    db_param_i64(&p, from);
    db_param_i64(&p, to);
    PGresult *r = req_query(req,
                            "SELECT min(a.snapshot_id) FROM hog_snapshot_change a"
                            " WHERE a.catalog_id = $1 AND a.object_id = $2"
                            " AND a.kind = 'table_altered' AND a.snapshot_id > $3"
                            " AND a.snapshot_id <= $4 AND EXISTS (SELECT 1 FROM"
                            "  hog_snapshot_change b WHERE b.catalog_id = $1"
                            "  AND b.object_id = $2 AND b.kind = 'table_deleted_from'"
                            "  AND b.snapshot_id = a.snapshot_id)",
                            &p, "truncate check", err);
    if (!r)
        return -1;
    *found = db_isnull(r, 0, 0) ? -1 : db_i64(r, 0, 0);
    PQclear(r);
    return 0;
}

/* $1 catalog, $2 table, $3 from, $4 to. Compaction outputs are the files
 * whose begin_snapshot wrote table_compacted for this table. */
/* clang-format off */
static const char changed_files_sql[] =
    "SELECT " DATA_FILE_COLUMNS " FROM hog_data_file d"
    " WHERE d.catalog_id = $1 AND d.table_id = $2 AND" IN_WINDOW("d")
    " AND NOT EXISTS (SELECT 1 FROM hog_snapshot_change c WHERE c.catalog_id = $1"
    "  AND c.object_id = $2 AND c.kind = 'table_compacted'"
    "  AND c.snapshot_id = d.begin_snapshot)"
    " ORDER BY d.begin_snapshot, d.row_id_start, d.data_file_id";
/* clang-format on */

/* clang-format off */
static const char changed_dvs_sql[] =
    "SELECT " DELETE_FILE_COLUMNS("v") " FROM hog_delete_file v"
    " WHERE v.catalog_id = $1 AND v.table_id = $2 AND" IN_WINDOW("v")
    " ORDER BY v.begin_snapshot, v.delete_file_id";
/* clang-format on */

int h_table_changes(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    bool has_from, has_to;
    int64_t from, to;
    if (req_arg_i64(req, "from_snapshot", &has_from, &from, err) != 0 ||
        req_arg_i64(req, "to_snapshot", &has_to, &to, err) != 0)
        return -1;
    if (!has_from)
        return api_bad_request(err, "query parameter 'from_snapshot' is required");
    struct catalog_row cat;
    if (catalog_load(req, req->params[0], &cat, err) != 0)
        return -1;
    if (!has_to)
        to = cat.head;
    if (from < 0 || to < 0)
        return api_validation(err, "from_snapshot and to_snapshot must be >= 0, got (%lld, %lld]",
                              (long long)from, (long long)to);
    if (to > cat.head)
        return api_validation(err, "to_snapshot %lld is after the head %lld of catalog '%s'",
                              (long long)to, (long long)cat.head, cat.name);
    if (from > to)
        return api_validation(err, "from_snapshot %lld is after to_snapshot %lld", (long long)from,
                              (long long)to);
    if (from < cat.earliest)
        return timetravel_expired(err, &cat, from, "from_snapshot");
    /* The table is the one visible at the window's end. */
    int64_t ns_id;
    struct table_ref ref;
    if (namespace_resolve(req, &cat, req->params[1], to, has_to, &ns_id, err) != 0 ||
        table_resolve(req, &cat, req->params[1], ns_id, req->params[2], to, has_to, &ref, err) != 0)
        return -1;
    int64_t truncated;
    if (find_truncate(req, &cat, ref.table_id, from, to, &truncated, err) != 0)
        return -1;
    if (truncated >= 0)
        return api_conflict(err, "reconciliation_required",
                            "table '%.200s.%.200s' was truncated at snapshot %lld, inside the "
                            "window (%lld, %lld]; re-read the table at snapshot %lld and resume "
                            "the changefeed from there",
                            req->params[1], req->params[2], (long long)truncated, (long long)from,
                            (long long)to, (long long)truncated);
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat.id);
    db_param_i64(&p, ref.table_id);
    db_param_i64(&p, from);
    db_param_i64(&p, to);
    PGresult *files = req_query(req, changed_files_sql, &p, "changed files", err);
    if (!files)
        return -1;
    PGresult *dvs = req_query(req, changed_dvs_sql, &p, "changed deletion vectors", err);
    if (!dvs) {
        PQclear(files);
        return -1;
    }
    json_t *fa = json_array(), *da = json_array();
    int bad = !fa || !da;
    for (int i = 0; !bad && i < PQntuples(files); i++)
        bad |= json_array_append_new(fa, data_file_json(files, i, 0)) != 0;
    for (int i = 0; !bad && i < PQntuples(dvs); i++)
        bad |= json_array_append_new(da, delete_file_json(dvs, i, 0)) != 0;
    PQclear(files);
    PQclear(dvs);
    json_t *o = json_object();
    bad |= file_json_set(o, "table_uuid", json_string(ref.table_uuid));
    bad |= file_json_set(o, "from_snapshot", json_integer((json_int_t)from));
    bad |= file_json_set(o, "to_snapshot", json_integer((json_int_t)to));
    bad |= file_json_set(o, "files", fa);
    bad |= file_json_set(o, "delete_files", da);
    if (bad) {
        json_decref(o);
        return api_nomem(err);
    }
    if (api_json(res, 200, o) != 0)
        return api_nomem(err);
    return 0;
}
