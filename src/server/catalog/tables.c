/* Tables: list, create, get, drop, truncate and alter. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lake/ident.h"
#include "server/catalog/catalog.h"
#include "server/catalog/files.h"
#include "server/db/db.h"
#include "server/http/handlers.h"
#include "server/store/tables.h"
#include "util/jsonx.h"
#include "util/strutil.h"

/* A store call's outcome as the handler's: 0, or the answer e means. */
static int stored(int rc, const struct error *e, struct api_error *err, const char *context)
{
    return rc == 0 ? 0 : api_from_error(err, e, context);
}

/* The Table response object. `totals` may be NULL (totals=false);
 * `ddl_snapshot` < 0 omits snapshot_id. */
static json_t *table_to_json(const struct lake_table *t, const char *namespace_name,
                             const struct table_ref *ref, int64_t read_snapshot,
                             const struct table_totals *totals, bool totals_at_head,
                             int64_t ddl_snapshot)
{
    json_t *o =
        json_pack("{s:s,s:s,s:s,s:o,s:I,s:O}", "name", t->name, "namespace", namespace_name,
                  "table_uuid", ref->table_uuid, "columns", lake_columns_to_json(t),
                  "read_snapshot_id", (json_int_t)read_snapshot, "properties", t->properties);
    if (!o)
        return NULL;
    int bad = 0;
    if (t->comment)
        bad |= json_object_set_new(o, "comment", json_string(t->comment));
    const char *primary_ts = lake_table_primary_ts_name(t);
    if (primary_ts)
        bad |= json_object_set_new(o, "primary_timestamp_column", json_string(primary_ts));
    if (totals) {
        bad |= json_object_set_new(o, "record_count", json_integer(totals->records));
        bad |= json_object_set_new(o, "file_count", json_integer(totals->files));
        bad |= json_object_set_new(o, "file_size_bytes", json_integer(totals->bytes));
        if (totals_at_head)
            bad |= json_object_set_new(o, "totals_snapshot_id", json_integer(read_snapshot));
    }
    json_t *spec = lake_partition_spec_to_json(t);
    if (spec)
        bad |= json_object_set_new(o, "partition_spec", spec);
    json_t *sort = lake_sort_spec_to_json(t);
    if (sort)
        bad |= json_object_set_new(o, "sort_spec", sort);
    if (ddl_snapshot >= 0)
        bad |= json_object_set_new(o, "snapshot_id", json_integer(ddl_snapshot));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Writes one table of a namespace listing: a TableSummary object. */
static int write_summary(void *ctx, const struct store_table_summary *t, struct error *err)
{
    struct page_text *w = ctx;
    pt_open(w, NULL, '{');
    pt_str(w, "name", t->name);
    pt_str(w, "table_uuid", t->table_uuid);
    pt_i64(w, "record_count", t->records);
    pt_i64(w, "file_count", t->files);
    pt_i64(w, "file_size_bytes", t->bytes);
    pt_i64(w, "snapshot_count", t->snapshots);
    if (t->comment)
        pt_str(w, "comment", t->comment);
    pt_close(w, '}');
    return w->bad ? error_nomem(err) : 0;
}

int h_tables_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row cat;
    int64_t snap, ns_id;
    bool at_head;
    if (catalog_load(req, req->params[0], &cat, err) != 0 ||
        timetravel_resolve(req, &cat, &snap, &at_head, err) != 0 ||
        namespace_resolve(req, &cat, req->params[1], snap, !at_head, &ns_id, err) != 0)
        return -1;
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    /* Written as text straight from the statement's rows as they arrive,
     * as the file pages are: an object per table through jansson, or a
     * copy of each row, cost more than the statement for a namespace of
     * 54,000. */
    struct page_text w;
    pt_init(&w, 2);
    pt_open(&w, NULL, '[');
    struct error e;
    if (db_begin_read_snapshot(db->pg, &e) != 0 ||
        store_tables_list(db, cat.id, ns_id, snap, write_summary, &w, &e) != 0 ||
        db_commit(db->pg, &e) != 0) {
        db_rollback(db->pg);
        pt_free(&w);
        return api_from_error(err, &e, "table list");
    }
    pt_close(&w, ']');
    return pt_respond(&w, res, err);
}

/* Applies the optional create-time metadata through the same rules as the
 * alter ops, so a table can be created partitioned and sorted atomically. */
static int apply_create_options(struct lake_table *t, json_t *comment, json_t *properties,
                                json_t *partition_fields, json_t *sort_fields, json_t *primary_ts,
                                struct api_error *err)
{
    struct {
        const char *field; /* the create request's member, named in errors */
        const char *op;
        const char *key;
        json_t *value;
    } opts[] = {
        {"comment", "set_table_comment", "comment", comment},
        {"properties", "set_properties", "properties", properties},
        {"partition_fields", "set_partition_spec", "fields", partition_fields},
        {"sort_fields", "set_sort_order", "sort_fields", sort_fields},
        {"primary_timestamp_column", "set_primary_timestamp_column", "column", primary_ts},
    };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        if (!opts[i].value || json_is_null(opts[i].value))
            continue;
        json_t *op = json_pack("{s:s,s:O}", "op", opts[i].op, opts[i].key, opts[i].value);
        if (!op)
            return api_nomem(err);
        struct error lerr;
        int rc = lake_table_apply_op(t, op, &lerr);
        json_decref(op);
        if (rc != 0) {
            char msg[sizeof lerr.msg];
            snprintf(msg, sizeof msg, "%s: %.700s", opts[i].field, lerr.msg);
            memcpy(lerr.msg, msg, sizeof msg);
            return api_from_error(err, &lerr, "the table definition");
        }
    }
    return 0;
}

int h_tables_create(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    json_t *jname, *jcols, *jcomment, *jprops, *jpart, *jsort, *jprimary;
    const struct jfield fields[] = {
        {"name", JF_STRING, true, false, &jname},
        {"columns", JF_ARRAY, true, false, &jcols},
        {"comment", JF_STRING, false, true, &jcomment},
        {"properties", JF_OBJECT, false, false, &jprops},
        {"partition_fields", JF_ARRAY, false, false, &jpart},
        {"sort_fields", JF_ARRAY, false, false, &jsort},
        {"primary_timestamp_column", JF_STRING, false, true, &jprimary},
    };
    json_t *body = req_json_fields(req, fields, sizeof fields / sizeof fields[0], err);
    if (!body)
        return -1;
    struct lake_table t;
    lake_table_init(&t, &req->arena);
    int rc = -1;
    struct error e;
    const char *name = json_string_value(jname);
    if (api_check_ident("table", name, err) != 0)
        goto out;
    t.name = name;
    t.properties = json_object();
    struct error lerr;
    if (!t.properties) {
        api_nomem(err);
        goto out;
    }
    if (lake_table_add_columns(&t, jcols, &lerr) != 0) {
        api_from_error(err, &lerr, "the table definition");
        goto out;
    }
    if (apply_create_options(&t, jcomment, jprops, jpart, jsort, jprimary, err) != 0)
        goto out;

    struct catalog_row cat;
    struct ddl_txn txn;
    int64_t ns_id;
    const char *ns = req->params[1];
    if (ddl_begin_in_namespace(req, &cat, &txn, &ns_id, err) != 0)
        goto out;
    int exists = store_table_name_taken(txn.ctx.db, cat.id, ns_id, name, &e);
    if (exists < 0) {
        api_from_error(err, &e, "table create");
        goto out;
    }
    if (exists) {
        api_conflict(err, "already_exists", "table '%s' already exists in namespace '%s'", name,
                     ns);
        goto out;
    }
    struct table_ref ref;
    if (ddl_allocate(&txn, &e) != 0 ||
        store_table_insert(ddl_store(&txn), ns_id, &t, &ref, &e) != 0 ||
        ddl_change(&txn, "table_created", ref.table_id, &e) != 0 || ddl_commit(&txn, &e) != 0) {
        api_from_error(err, &e, "table");
        goto out;
    }
    struct table_totals zero = {0, 0, 0};
    json_t *o = table_to_json(&t, ns, &ref, txn.snapshot_id, &zero, true, txn.snapshot_id);
    if (api_json(res, 201, o) != 0) {
        api_nomem(err);
        goto out;
    }
    rc = 0;
out:
    lake_table_release(&t);
    json_decref(body);
    return rc;
}

int h_table_get(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    bool has_totals, want_totals = true;
    if (req_arg_bool(req, "totals", &has_totals, &want_totals, err) != 0)
        return -1;
    struct catalog_row cat;
    int64_t snap, ns_id;
    bool at_head;
    struct table_ref ref;
    if (catalog_load(req, req->params[0], &cat, err) != 0 ||
        timetravel_resolve(req, &cat, &snap, &at_head, err) != 0 ||
        namespace_resolve(req, &cat, req->params[1], snap, !at_head, &ns_id, err) != 0 ||
        table_resolve(req, &cat, req->params[1], ns_id, req->params[2], snap, !at_head, &ref,
                      err) != 0)
        return -1;
    struct lake_table t;
    lake_table_init(&t, &req->arena);
    struct table_totals totals;
    int rc = -1;
    struct error e;
    struct srv_ctx ctx;
    if (req_ctx(req, &ctx, err) != 0 ||
        stored(store_table_load(&ctx, &cat, &ref, snap, false, &t, &e), &e, err, "table load") != 0)
        goto out;
    if (want_totals && stored(store_table_totals(&ctx, &cat, ref.table_id, snap, &totals, &e), &e,
                              err, "table totals") != 0)
        goto out;
    json_t *o =
        table_to_json(&t, req->params[1], &ref, snap, want_totals ? &totals : NULL, at_head, -1);
    if (api_json(res, 200, o) != 0) {
        api_nomem(err);
        goto out;
    }
    rc = 0;
out:
    lake_table_release(&t);
    return rc;
}

/* 409 table_recreated: the name now belongs to another incarnation. */
static int table_recreated(struct api_error *err, const char *ns, const struct table_ref *ref,
                           const char *expected)
{
    api_conflict(err, "table_recreated",
                 "table '%s.%s' is incarnation %s, not the expected %.40s: it was dropped and "
                 "recreated",
                 ns, ref->name, ref->table_uuid, expected);
    char qualified[300];
    snprintf(qualified, sizeof qualified, "%s.%s", ns, ref->name);
    api_error_set_extra(err, "tables", json_pack("[s]", qualified));
    api_error_set_extra(err, "retry", json_string("re-prepare"));
    return -1;
}

static int read_expected_uuid(struct srv_req *req, const char **out, struct api_error *err)
{
    *out = req_arg(req, "expected_table_uuid");
    if (*out && !str_is_uuid(*out))
        return api_bad_request(err, "expected_table_uuid must be a UUID, got '%.40s'", *out);
    return 0;
}

static bool uuid_equal(const char *a, const char *b)
{
    return strcasecmp(a, b) == 0;
}

int h_table_drop(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *expected;
    if (read_expected_uuid(req, &expected, err) != 0)
        return -1;
    struct catalog_row cat;
    struct ddl_txn txn;
    int64_t ns_id;
    struct table_ref ref;
    const char *ns = req->params[1];
    if (ddl_begin_in_namespace(req, &cat, &txn, &ns_id, err) != 0 ||
        table_resolve(req, &cat, ns, ns_id, req->params[2], txn.head, false, &ref, err) != 0)
        return -1;
    if (expected && !uuid_equal(expected, ref.table_uuid))
        return table_recreated(err, ns, &ref, expected);
    struct error e;
    if (ddl_allocate(&txn, &e) != 0 || store_table_drop(ddl_store(&txn), ref.table_id, &e) != 0 ||
        ddl_change(&txn, "table_dropped", ref.table_id, &e) != 0 || ddl_commit(&txn, &e) != 0)
        return api_from_error(err, &e, "table drop");
    if (api_json(res, 200, ddl_result_json(&txn)) != 0)
        return api_nomem(err);
    return 0;
}

/* Truncate: one DDL snapshot that ends every live data file and deletion
 * vector of the table. The incarnation (table_uuid), the definition rows and
 * hog_table_stats (gross append counters, row-id allocator) are untouched,
 * so row ids are never reused after a truncate. Earlier snapshots still see
 * the files. Not idempotent: every call makes a snapshot. */
int h_table_truncate(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *expected;
    if (read_expected_uuid(req, &expected, err) != 0)
        return -1;
    if (!expected)
        return api_bad_request(err, "query parameter 'expected_table_uuid' is required: a "
                                    "truncate must name the incarnation it empties");
    struct catalog_row cat;
    struct ddl_txn txn;
    int64_t ns_id;
    struct table_ref ref;
    const char *ns = req->params[1];
    if (ddl_begin_in_namespace(req, &cat, &txn, &ns_id, err) != 0 ||
        table_resolve(req, &cat, ns, ns_id, req->params[2], txn.head, false, &ref, err) != 0)
        return -1;
    if (!uuid_equal(expected, ref.table_uuid))
        return table_recreated(err, ns, &ref, expected);
    struct error e;
    if (ddl_allocate(&txn, &e) != 0 ||
        store_table_truncate(ddl_store(&txn), ref.table_id, &e) != 0 ||
        ddl_change(&txn, "table_altered", ref.table_id, &e) != 0 ||
        ddl_change(&txn, "table_deleted_from", ref.table_id, &e) != 0 || ddl_commit(&txn, &e) != 0)
        return api_from_error(err, &e, "table truncate");
    if (api_json(res, 200, ddl_result_json(&txn)) != 0)
        return api_nomem(err);
    return 0;
}

/* Refuses an alter whose writer read the table before a later DDL on it:
 * 409 ddl_since_read_snapshot, with the tables and the read snapshot. */
static int check_read_snapshot(const struct ddl_txn *txn, const char *ns,
                               const struct table_ref *ref, int64_t read_snapshot,
                               struct api_error *err)
{
    if (read_snapshot < 0 || read_snapshot > txn->head)
        return api_validation(err, "read_snapshot %lld must be between 0 and the catalog head %lld",
                              (long long)read_snapshot, (long long)txn->head);
    if (read_snapshot < txn->earliest) {
        struct catalog_row floor = *txn->cat;
        floor.earliest = txn->earliest;
        return timetravel_expired(err, &floor, read_snapshot, "read_snapshot");
    }
    struct error e;
    int64_t first = 0;
    int conflict =
        store_table_ddl_after(txn->ctx.db, txn->cat->id, ref->table_id, read_snapshot, &first, &e);
    if (conflict < 0)
        return api_from_error(err, &e, "conflict check");
    if (!conflict)
        return 0;
    api_conflict(err, "ddl_since_read_snapshot",
                 "table '%s.%s' changed by DDL at snapshot %lld, after read_snapshot %lld; re-read "
                 "the table and rebuild the request",
                 ns, ref->name, (long long)first, (long long)read_snapshot);
    char qualified[300];
    snprintf(qualified, sizeof qualified, "%s.%s", ns, ref->name);
    api_error_set_extra(err, "tables", json_pack("[s]", qualified));
    api_error_set_extra(err, "read_snapshot", json_integer(read_snapshot));
    api_error_set_extra(err, "retry", json_string("re-prepare"));
    return -1;
}

int h_table_alter(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *expected;
    bool has_read;
    int64_t read_snapshot;
    if (read_expected_uuid(req, &expected, err) != 0 ||
        req_arg_i64(req, "read_snapshot", &has_read, &read_snapshot, err) != 0)
        return -1;
    json_t *jops;
    const struct jfield fields[] = {{"ops", JF_ARRAY, true, false, &jops}};
    json_t *body = req_json_fields(req, fields, 1, err);
    if (!body)
        return -1;
    struct lake_table t;
    lake_table_init(&t, &req->arena);
    int rc = -1;
    struct error e;
    if (json_array_size(jops) == 0) {
        api_bad_request(err, "ops must contain at least one operation");
        goto out;
    }
    struct catalog_row cat;
    struct ddl_txn txn;
    int64_t ns_id;
    struct table_ref ref;
    const char *ns = req->params[1];
    if (ddl_begin_in_namespace(req, &cat, &txn, &ns_id, err) != 0 ||
        table_resolve(req, &cat, ns, ns_id, req->params[2], txn.head, false, &ref, err) != 0)
        goto out;
    if (expected && !uuid_equal(expected, ref.table_uuid)) {
        table_recreated(err, ns, &ref, expected);
        goto out;
    }
    if ((has_read && check_read_snapshot(&txn, ns, &ref, read_snapshot, err) != 0) ||
        stored(store_table_load(&txn.ctx, &cat, &ref, txn.head, true, &t, &e), &e, err,
               "table load") != 0)
        goto out;
    struct error lerr;
    if (lake_table_apply_ops(&t, jops, &lerr) != 0) {
        api_from_error(err, &lerr, "the table definition");
        goto out;
    }
    if (strcmp(t.name, ref.name) != 0) {
        struct table_ref other;
        if (table_resolve(req, &cat, ns, ns_id, t.name, txn.head, false, &other, err) == 0) {
            api_conflict(err, "already_exists", "table '%s' already exists in namespace '%s'",
                         t.name, ns);
            goto out;
        }
        if (err->status != 404)
            goto out;
        memset(err, 0, sizeof *err);
    }
    if (ddl_allocate(&txn, &e) != 0 ||
        store_table_write_changes(ddl_store(&txn), ns_id, &ref, &t, &e) != 0 ||
        ddl_change(&txn, "table_altered", ref.table_id, &e) != 0 || ddl_commit(&txn, &e) != 0) {
        api_from_error(err, &e, "table");
        goto out;
    }
    struct table_totals totals;
    if (stored(store_table_totals(&txn.ctx, &cat, ref.table_id, txn.snapshot_id, &totals, &e), &e,
               err, "table totals") != 0)
        goto out;
    json_t *o = table_to_json(&t, ns, &ref, txn.snapshot_id, &totals, true, txn.snapshot_id);
    if (api_json(res, 200, o) != 0) {
        api_nomem(err);
        goto out;
    }
    rc = 0;
out:
    lake_table_release(&t);
    json_decref(body);
    return rc;
}
