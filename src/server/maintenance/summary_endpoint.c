/* The routes that read the catalog's partition summary
 * (maintenance/summary.h), never the file rows:
 *   GET /v1/catalogs/{c}/stats/partitions: partitions ranked by compaction
 *     debt, an index walk of the few buckets answered, whatever the number
 *     of files. Names are the tables' at head; a table dropped since the
 *     summary's snapshot is left out.
 *   GET .../namespaces/{ns}/tables/{t}/partitions: one table's partitions,
 *     sorted, filtered by value prefixes, paged by offset. */
#include <jansson.h>
#include <string.h>

#include "server/catalog/catalog.h"
#include "server/catalog/files.h"
#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/http/handlers.h"
#include "server/maintenance/compaction.h"
#include "server/maintenance/summary.h"
#include "server/server.h"
#include "server/store/summary.h"
#include "server/store/tables.h"

enum { STATS_DEFAULT_LIMIT = 50, STATS_MAX_LIMIT = 500 };

/* A bucket of v as JSON, with its table's names when the rows carry them
 * (the debt report) and without (one table's listing). */
static json_t *partition_json(const struct store_summary_debt_rows *v, int i)
{
    json_t *values = json_loads(store_summary_debt_values_json(v, i), 0, NULL);
    json_t *o = json_pack(
        "{s:s*,s:s*,s:s*,s:o,s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "namespace",
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
    int64_t files = store_summary_debt_measure(v, i, SUMMARY_FILES);
    if (o && files > 0)
        json_object_set_new(
            o, "avg_file_bytes",
            json_integer(
                (json_int_t)(store_summary_debt_measure(v, i, SUMMARY_TOTAL_BYTES) / files)));
    return o;
}

/* An array of rows' JSON; NULL when memory ran out. */
static json_t *partitions_json(const struct store_summary_debt_rows *v, int n)
{
    json_t *parts = json_array();
    for (int i = 0; parts && i < n; i++) {
        json_t *p = partition_json(v, i);
        if (!p || json_array_append_new(parts, p) != 0) {
            json_decref(parts);
            parts = NULL;
        }
    }
    return parts;
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
    json_t *parts = partitions_json(&rows, *truncated ? (int)q->limit : n);
    store_summary_debt_free(&rows);
    *out = parts;
    return parts ? 0 : error_nomem(err);
}

int h_stats_partitions(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *ns = req_arg(req, "namespace"), *table = req_arg(req, "table");
    int64_t limit;
    if (req_arg_range(req, "limit", STATS_DEFAULT_LIMIT, 1, STATS_MAX_LIMIT, &limit, err) != 0)
        return -1;
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

/* ---- one table's partitions ---- */

enum { LISTING_DEFAULT_LIMIT = 100, LISTING_MAX_LIMIT = 1000, LISTING_MAX_KEY = 1000 };

static const char *const listing_sorts[] = {
    [SUMMARY_SORT_PARTITION] = "partition",
    [SUMMARY_SORT_FILES] = "files",
    [SUMMARY_SORT_SMALL_FILES] = "small_files",
    [SUMMARY_SORT_DEBT] = "debt",
    [SUMMARY_SORT_TOTAL_SIZE] = "total_size",
    [SUMMARY_SORT_AVG_SIZE] = "avg_size",
    [SUMMARY_SORT_DVS] = "dvs",
    [SUMMARY_SORT_ROWS] = "rows",
    [SUMMARY_SORT_LAST_WRITTEN] = "last_written",
};

/* filter=key_index:prefix, repeatable; an empty prefix asks for NULL. */
static int parse_filters(struct srv_req *req, struct pg_array *keys, struct pg_array *prefixes,
                         size_t *n, struct api_error *err)
{
    *n = 0;
    for (size_t i = 0; i < req->nargs; i++) {
        if (strcmp(req->args[i].key, "filter") != 0)
            continue;
        const char *arg = req->args[i].value, *prefix;
        int64_t key;
        if (!partition_arg_split(arg, &key, &prefix) || !prefix || key > LISTING_MAX_KEY)
            return api_bad_request(err,
                                   "query parameter 'filter' must be key_index:prefix with a "
                                   "key_index from 0 to %d (an empty prefix matches NULL), "
                                   "got '%.80s'",
                                   LISTING_MAX_KEY, arg);
        pg_array_i64(keys, key);
        pg_array_str(prefixes, prefix[0] ? prefix : NULL);
        (*n)++;
    }
    return 0;
}

static int parse_listing(struct srv_req *req, struct store_summary_listing *q,
                         struct api_error *err)
{
    static const char *const orders[] = {"asc", "desc"};
    bool has_sort, has_order;
    size_t sort, order;
    if (req_arg_word(req, "sort", listing_sorts, sizeof listing_sorts / sizeof listing_sorts[0],
                     &has_sort, &sort, err) != 0 ||
        req_arg_word(req, "order", orders, 2, &has_order, &order, err) != 0)
        return -1;
    q->sort = has_sort ? (enum store_summary_sort)sort : SUMMARY_SORT_PARTITION;
    /* The measures read best biggest first; partitions in their order. */
    q->desc = has_order ? order == 1 : q->sort != SUMMARY_SORT_PARTITION;
    bool has;
    if (req_arg_range(req, "limit", LISTING_DEFAULT_LIMIT, 1, LISTING_MAX_LIMIT, &q->limit, err) !=
            0 ||
        req_arg_i64(req, "offset", &has, &q->offset, err) != 0)
        return -1;
    if (!has)
        q->offset = 0;
    if (q->offset < 0)
        return api_validation(err, "offset must be >= 0, got %lld", (long long)q->offset);
    return 0;
}

static int listing_reply(struct srv_res *res, PGconn *pg, struct store_summary_listing *q,
                         const struct store_summary_info *info, struct api_error *err)
{
    struct error dberr = {0};
    int64_t total = 0, stale = 0;
    json_t *parts = NULL;
    if (info->published) {
        q->generation = info->generation;
        struct store_summary_debt_query scope = {
            .catalog_id = q->catalog_id, .generation = info->generation, .table_id = q->table_id};
        struct store_summary_debt_rows rows = {0};
        if (store_summary_partitions_total(pg, q, &total, &dberr) != 0 ||
            store_summary_stale_count(pg, &scope, &stale, &dberr) != 0 ||
            store_summary_partitions(pg, q, &rows, &dberr) != 0)
            return api_from_error(err, &dberr, "partition summary");
        parts = partitions_json(&rows, store_summary_debt_count(&rows));
        store_summary_debt_free(&rows);
        if (!parts)
            return api_nomem(err);
    }
    json_t *body = json_pack("{s:I,s:I,s:o,s:I}", "total", (json_int_t)total, "stale_spec_groups",
                             (json_int_t)stale, "partitions", parts ? parts : json_array(),
                             "small_file_threshold_bytes", (json_int_t)COMPACTION_TARGET_BYTES);
    if (!body)
        return api_nomem(err);
    summary_freshness(body, info);
    if (api_json(res, 200, body) != 0)
        return api_nomem(err);
    return 0;
}

int h_table_partitions(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct store_summary_listing q = {0};
    struct pg_array keys, prefixes;
    pg_array_init(&keys);
    pg_array_init(&prefixes);
    size_t nfilters;
    int rc = -1;
    if (parse_listing(req, &q, err) != 0 ||
        parse_filters(req, &keys, &prefixes, &nfilters, err) != 0)
        goto out;
    if (nfilters) {
        q.filter_keys = pg_array_text(&keys);
        q.filter_prefixes = pg_array_text(&prefixes);
        if (!q.filter_keys || !q.filter_prefixes) {
            rc = api_nomem(err);
            goto out;
        }
    }
    struct catalog_row cat;
    int64_t ns_id;
    struct table_ref ref;
    if (catalog_load(req, req->params[0], &cat, err) != 0 ||
        namespace_resolve(req, &cat, req->params[1], cat.head, false, &ns_id, err) != 0 ||
        table_resolve(req, &cat, req->params[1], ns_id, req->params[2], cat.head, false, &ref,
                      err) != 0)
        goto out;
    q.catalog_id = cat.id;
    q.table_id = ref.table_id;
    struct db_conn *db = req_db(req, err);
    if (!db)
        goto out;
    struct error dberr = {0};
    struct store_summary_info info;
    if (store_summary_info(db->pg, cat.id, &info, &dberr) != 0) {
        rc = api_from_error(err, &dberr, "partition summary");
        goto out;
    }
    rc = listing_reply(res, db->pg, &q, &info, err);
out:
    pg_array_free(&keys);
    pg_array_free(&prefixes);
    return rc;
}
