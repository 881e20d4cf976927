/* The snapshot log: paged forwards (after) or backwards (before), each
 * snapshot with its typed change rows. */
#include <stdio.h>
#include <string.h>

#include "server/catalog/catalog.h"
#include "server/http/handlers.h"
#include "server/server.h"
#include "server/store/snapshots.h"
#include "util/timefmt.h"

enum { SNAPSHOT_PAGE_DEFAULT = 1000, SNAPSHOT_PAGE_MAX = 10000 };

/* One change row as JSON, with its object's name and what a data change
 * added when the store knows them. 0 or -1 (out of memory). */
static int change_append(json_t *changes, const struct store_snapshot_row *row)
{
    json_t *c = json_pack("{s:s,s:I}", "kind", row->kind, "object_id", (json_int_t)row->object_id);
    int rc = c ? 0 : -1;
    if (rc == 0 && row->name)
        rc = json_object_set_new(c, "name", json_string(row->name));
    if (rc == 0 && row->files_added >= 0)
        rc = json_object_set_new(c, "files_added", json_integer(row->files_added)) ||
             json_object_set_new(c, "rows_added", json_integer(row->rows_added));
    if (rc == 0 && row->delete_files_added >= 0)
        rc = json_object_set_new(c, "delete_files_added", json_integer(row->delete_files_added));
    if (rc != 0) {
        json_decref(c);
        return -1;
    }
    return json_array_append_new(changes, c);
}

/* Up to limit snapshots from a cursor (ascending past `from`, or
 * descending below it), each with its change rows, fewer when their
 * authors, messages and change rows pass --page-bytes-max (always one);
 * *has_more says whether the log goes on. NULL with err filled on failure. */
static json_t *snapshot_page(struct srv_req *req, const struct catalog_row *cat, int64_t from,
                             bool descending, int64_t limit, bool *has_more, struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return NULL;
    struct store_snapshot_rows rows;
    struct error dberr;
    if (store_snapshots_page(db, cat->id, from, descending, limit, req->srv->cfg.page_bytes_max,
                             &rows, &dberr) != 0) {
        api_from_error(err, &dberr, "snapshot list");
        return NULL;
    }
    json_t *snaps = json_array();
    json_t *current = NULL;
    int64_t current_id = -1, count = 0;
    *has_more = false;
    for (int i = 0; snaps && i < store_snapshot_rows_count(&rows); i++) {
        struct store_snapshot_row row;
        store_snapshot_row(&rows, i, &row);
        int64_t id = row.snapshot_id;
        if (id != current_id) {
            if (count == limit || row.past_budget) {
                *has_more = true;
                break;
            }
            char ts[48];
            time_format_iso8601(row.time_us, ts, sizeof ts);
            current =
                json_pack("{s:I,s:s,s:I,s:[]}", "snapshot_id", (json_int_t)id, "snapshot_time", ts,
                          "schema_version", (json_int_t)row.schema_version, "changes");
            if (!current || json_array_append_new(snaps, current) != 0) {
                json_decref(snaps);
                snaps = NULL;
                break;
            }
            if (row.author)
                json_object_set_new(current, "author", json_string(row.author));
            if (row.message)
                json_object_set_new(current, "message", json_string(row.message));
            current_id = id;
            count++;
        }
        if (row.kind && change_append(json_object_get(current, "changes"), &row) != 0) {
            json_decref(snaps);
            snaps = NULL;
            break;
        }
    }
    store_snapshot_rows_free(&rows);
    if (!snaps)
        api_nomem(err);
    return snaps;
}

int h_snapshots_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    bool has_after, has_before;
    int64_t after = 0, before = 0, limit;
    if (req_arg_i64(req, "after", &has_after, &after, err) != 0 ||
        req_arg_i64(req, "before", &has_before, &before, err) != 0 ||
        req_page_limit(req, SNAPSHOT_PAGE_DEFAULT, SNAPSHOT_PAGE_MAX, &limit, err) != 0)
        return -1;
    if (!has_after)
        after = 0;
    if (has_before && after != 0)
        return api_validation(err,
                              "'before' and a non-zero 'after' are mutually exclusive; supply at "
                              "most one cursor");
    struct catalog_row cat;
    if (catalog_load(req, req->params[0], &cat, err) != 0)
        return -1;
    bool has_more;
    json_t *snaps =
        snapshot_page(req, &cat, has_before ? before : after, has_before, limit, &has_more, err);
    if (!snaps)
        return -1;
    if (api_json(res, 200, json_pack("{s:o,s:b}", "snapshots", snaps, "has_more", has_more)) != 0)
        return api_nomem(err);
    return 0;
}

int h_snapshot_resolve(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    if (!req_arg(req, "at_timestamp"))
        return api_bad_request(err, "query parameter 'at_timestamp' is required");
    struct catalog_row cat;
    if (catalog_load(req, req->params[0], &cat, err) != 0)
        return -1;
    int64_t snapshot;
    bool at_head;
    if (timetravel_resolve(req, &cat, &snapshot, &at_head, err) != 0)
        return -1;
    bool has_more;
    json_t *snaps = snapshot_page(req, &cat, snapshot - 1, false, 1, &has_more, err);
    if (!snaps)
        return -1;
    json_t *one = json_incref(json_array_get(snaps, 0));
    json_decref(snaps);
    if (!one)
        return api_fail(err, 410, "expired", "snapshot %lld is no longer retained",
                        (long long)snapshot);
    if (api_json(res, 200, one) != 0)
        return api_nomem(err);
    return 0;
}
