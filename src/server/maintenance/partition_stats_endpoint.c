/* GET /v1/catalogs/{c}/stats/partitions: partitions ranked by compaction
 * debt, from the published generation of the catalog's partition summary
 * (maintenance/summary.h): an index walk of the few buckets answered,
 * whatever the number of files. Names are the tables' at head; a table
 * dropped since the summary's snapshot is left out. */
#include <jansson.h>

#include "server/catalog/catalog.h"
#include "server/db/db.h"
#include "server/http/handlers.h"
#include "server/maintenance/compaction.h"
#include "server/maintenance/summary.h"
#include "server/server.h"
#include "server/store/summary.h"
#include "server/store/tables.h"

enum { STATS_DEFAULT_LIMIT = 50, STATS_MAX_LIMIT = 500 };

static json_t *partition_json(const struct store_summary_debt_rows *v, int i)
{
    json_t *values = json_loads(store_summary_debt_values_json(v, i), 0, NULL);
    json_t *o = json_pack(
        "{s:s,s:s,s:s,s:o,s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "namespace",
        store_summary_debt_namespace(v, i), "table", store_summary_debt_table(v, i), "table_uuid",
        store_summary_debt_table_uuid(v, i), "partition_values", values ? values : json_array(),
        "stale_spec", store_summary_debt_stale_spec(v, i), "file_count",
        (json_int_t)store_summary_debt_measure(v, i, SUMMARY_FILES), "small_file_count",
        (json_int_t)store_summary_debt_measure(v, i, SUMMARY_SMALL_FILES), "total_bytes",
        (json_int_t)store_summary_debt_measure(v, i, SUMMARY_TOTAL_BYTES), "small_file_bytes",
        (json_int_t)store_summary_debt_measure(v, i, SUMMARY_SMALL_BYTES), "dv_count",
        (json_int_t)store_summary_debt_measure(v, i, SUMMARY_DVS), "record_count",
        (json_int_t)store_summary_debt_measure(v, i, SUMMARY_RECORDS), "last_written_snapshot",
        (json_int_t)store_summary_debt_measure(v, i, SUMMARY_LAST_WRITTEN), "debt_score",
        (json_int_t)store_summary_debt_measure(v, i, SUMMARY_DEBT));
    int64_t spec = store_summary_debt_spec_id(v, i);
    if (o && spec >= 0)
        json_object_set_new(o, "spec_id", json_integer((json_int_t)spec));
    return o;
}

/* The report's rows: limit of them, and whether more have debt. */
static int ranked(PGconn *pg, const struct store_summary_debt_query *q, json_t **out,
                  bool *truncated, struct error *err)
{
    struct store_summary_debt_query more = *q;
    more.limit = q->limit + 1;
    struct store_summary_debt_rows rows;
    if (store_summary_debt(pg, &more, &rows, err) != 0)
        return -1;
    int n = store_summary_debt_count(&rows);
    *truncated = n > q->limit;
    json_t *parts = json_array();
    for (int i = 0; parts && i < n && i < q->limit; i++) {
        json_t *p = partition_json(&rows, i);
        if (!p || json_array_append_new(parts, p) != 0) {
            json_decref(parts);
            parts = NULL;
        }
    }
    store_summary_debt_free(&rows);
    *out = parts;
    return parts ? 0 : error_nomem(err);
}

int h_stats_partitions(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *ns = req_arg(req, "namespace"), *table = req_arg(req, "table");
    bool has_limit;
    int64_t limit = STATS_DEFAULT_LIMIT;
    if (req_arg_i64(req, "limit", &has_limit, &limit, err) != 0)
        return -1;
    if (limit < 1 || limit > STATS_MAX_LIMIT)
        return api_validation(err, "limit must be between 1 and %d, got %lld", STATS_MAX_LIMIT,
                              (long long)limit);
    if (table && !ns)
        return api_validation(err, "table needs namespace");
    struct catalog_row cat;
    if (catalog_load(req, req->params[0], &cat, err) != 0)
        return -1;
    struct store_summary_debt_query q = {.catalog_id = cat.id, .limit = limit};
    if (ns && namespace_resolve(req, &cat, ns, cat.head, false, &q.namespace_id, err) != 0)
        return -1;
    if (table) {
        struct table_ref ref;
        if (table_resolve(req, &cat, ns, q.namespace_id, table, cat.head, false, &ref, err) != 0)
            return -1;
        q.table_id = ref.table_id;
    }
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error dberr = {0};
    struct store_summary_info info;
    if (store_summary_info(db->pg, cat.id, &info, &dberr) != 0)
        return api_from_error(err, &dberr, "partition summary");
    json_t *parts = NULL;
    bool truncated = false;
    int64_t stale = info.stale_spec_buckets;
    if (info.published) {
        q.generation = info.generation;
        if (ranked(db->pg, &q, &parts, &truncated, &dberr) != 0 ||
            ((q.namespace_id || q.table_id) &&
             store_summary_stale_count(db->pg, &q, &stale, &dberr) != 0)) {
            json_decref(parts);
            return dberr.msg[0] ? api_from_error(err, &dberr, "partition summary") : api_nomem(err);
        }
    }
    json_t *body = json_pack("{s:o,s:b,s:I,s:I}", "partitions", parts ? parts : json_array(),
                             "truncated", truncated, "stale_spec_groups", (json_int_t)stale,
                             "small_file_threshold_bytes", (json_int_t)COMPACTION_TARGET_BYTES);
    if (!body)
        return api_nomem(err);
    summary_freshness(body, &info);
    if (api_json(res, 200, body) != 0)
        return api_nomem(err);
    return 0;
}
