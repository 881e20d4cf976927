/* Table handles: DDL, the metadata reads (with the handle's DDL-snapshot
 * pin), and publishing prepared payloads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "util/strutil.h"

static hl_status table_handle(hl_namespace *ns, const char *name, const json_t *info,
                              hl_table **out, struct hl_error *err)
{
    const char *uuid = json_string_value(json_object_get(info, "table_uuid"));
    if (!uuid)
        return client_fail(err, HL_ERR_PROTOCOL, "protocol", "the Table answer has no table_uuid");
    hl_table *t = calloc(1, sizeof *t);
    if (!t)
        return client_nomem(err);
    t->ns = ns;
    t->ddl_snapshot = -1;
    pthread_mutex_init(&t->lock, NULL);
    if (!(t->name = strdup(name)) || !(t->uuid = strdup(uuid))) {
        hl_table_free(t);
        return client_nomem(err);
    }
    *out = t;
    return HL_OK;
}

hl_status hl_table_create(hl_namespace *ns, const char *name, const char *columns_json,
                          const char *properties_json, hl_table **out, struct hl_error *err)
{
    *out = NULL;
    if (!name || !columns_json)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a table needs a name and columns");
    json_error_t jerr;
    json_t *columns = json_loads(columns_json, 0, &jerr);
    if (!json_is_array(columns)) {
        json_decref(columns);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "columns must be a JSON array of ColumnDef objects");
    }
    json_t *props = properties_json ? json_loads(properties_json, 0, &jerr) : NULL;
    if (properties_json && !json_is_object(props)) {
        json_decref(columns);
        json_decref(props);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "properties must be a JSON object");
    }
    json_t *body = json_pack("{s:s, s:o}", "name", name, "columns", columns);
    struct buf path = BUF_INIT;
    if (!body || (props && json_object_set_new(body, "properties", props) != 0) ||
        client_namespace_path(&path, ns) != 0 || buf_puts(&path, "/tables") != 0) {
        if (!body)
            json_decref(props);
        json_decref(body);
        buf_free(&path);
        return client_nomem(err);
    }
    json_t *info = NULL;
    hl_status st = client_json(ns->catalog->client, "POST", path.data, body, &info, err);
    json_decref(body);
    buf_free(&path);
    if (st == HL_OK && (st = table_handle(ns, name, info, out, err)) == HL_OK) {
        client_json_int(info, "snapshot_id", &(*out)->ddl_snapshot);
        table_cache_adopt(*out, info);
    }
    json_decref(info);
    return st;
}

hl_status hl_table_open(hl_namespace *ns, const char *name, hl_table **out, struct hl_error *err)
{
    *out = NULL;
    if (!name)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a table needs a name");
    hl_table probe = {.ns = ns, .name = (char *)name};
    struct buf path = BUF_INIT;
    if (client_table_path(&path, &probe) != 0 || buf_puts(&path, "?totals=false") != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    json_t *info = NULL;
    hl_status st = client_json(ns->catalog->client, "GET", path.data, NULL, &info, err);
    buf_free(&path);
    if (st == HL_OK && (st = table_handle(ns, name, info, out, err)) == HL_OK)
        table_cache_adopt(*out, info);
    json_decref(info);
    return st;
}

void hl_table_free(hl_table *t)
{
    if (!t)
        return;
    table_cache_clear(t);
    pthread_mutex_destroy(&t->lock);
    free(t->name);
    free(t->uuid);
    free(t);
}

hl_status hl_tables_list(hl_namespace *ns, const struct hl_at *at, char **json,
                         struct hl_error *err)
{
    struct buf path = BUF_INIT;
    if (client_namespace_path(&path, ns) != 0 || buf_puts(&path, "/tables") != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    return client_get_at(ns->catalog->client, &path, at, json, err);
}

const char *hl_table_name(const hl_table *t)
{
    return t->name;
}

const char *hl_table_uuid(const hl_table *t)
{
    return t->uuid;
}

int64_t hl_table_ddl_snapshot(const hl_table *t)
{
    return t->ddl_snapshot;
}

/* GETs a table sub-resource ("" for the table itself) at `at`, or at the
 * handle's DDL snapshot when at names nothing. */
static hl_status table_read(hl_table *t, const char *sub, const struct hl_at *at, bool pin,
                            json_t **out, struct hl_error *err)
{
    hl_status st = client_check_at(at, err);
    if (st != HL_OK)
        return st;
    struct hl_at pinned = {t->ddl_snapshot, NULL};
    bool travel = at && (at->snapshot >= 0 || at->at_timestamp);
    const struct hl_at *use = travel ? at : pin && t->ddl_snapshot >= 0 ? &pinned : NULL;
    struct buf path = BUF_INIT;
    bool q = false;
    if (client_table_path(&path, t) != 0 || buf_puts(&path, sub) != 0 ||
        client_query_at(&path, use, &q) != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    st = client_json(t->ns->catalog->client, "GET", path.data, NULL, out, err);
    buf_free(&path);
    return st;
}

static hl_status dump_to(json_t *doc, char **json, struct hl_error *err)
{
    hl_status st = HL_OK;
    if (json && !(*json = json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY)))
        st = client_nomem(err);
    json_decref(doc);
    return st;
}

hl_status hl_table_info(hl_table *t, const struct hl_at *at, char **json, struct hl_error *err)
{
    if (json)
        *json = NULL;
    json_t *info = NULL;
    /* info() is not pinned: it reads the head unless told otherwise. */
    hl_status st = table_read(t, "", at, false, &info, err);
    if (st != HL_OK)
        return st;
    if (!at || (at->snapshot < 0 && !at->at_timestamp))
        table_cache_adopt(t, info);
    return dump_to(info, json, err);
}

hl_status hl_table_files(hl_table *t, const struct hl_at *at, char **json, struct hl_error *err)
{
    if (json)
        *json = NULL;
    json_t *doc = NULL;
    hl_status st = table_read(t, "/files", at, true, &doc, err);
    return st == HL_OK ? dump_to(doc, json, err) : st;
}

hl_status hl_table_scan_plan(hl_table *t, const struct hl_at *at, char **json, struct hl_error *err)
{
    if (json)
        *json = NULL;
    json_t *doc = NULL;
    hl_status st = table_read(t, "/scan", at, true, &doc, err);
    return st == HL_OK ? dump_to(doc, json, err) : st;
}

hl_status hl_table_changes(hl_table *t, int64_t from_snapshot, int64_t to_snapshot, char **json,
                           struct hl_error *err)
{
    if (json)
        *json = NULL;
    if (from_snapshot < 0)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "from_snapshot is >= 0, got %lld", (long long)from_snapshot);
    struct buf path = BUF_INIT;
    int rc = client_table_path(&path, t);
    if (rc == 0)
        rc = buf_printf(&path, "/changes?from_snapshot=%lld", (long long)from_snapshot);
    if (rc == 0 && to_snapshot >= 0)
        rc = buf_printf(&path, "&to_snapshot=%lld", (long long)to_snapshot);
    if (rc != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    json_t *doc = NULL;
    hl_status st = client_json(t->ns->catalog->client, "GET", path.data, NULL, &doc, err);
    buf_free(&path);
    return st == HL_OK ? dump_to(doc, json, err) : st;
}

hl_status hl_table_alter(hl_table *t, const char *ops_json, char **json, struct hl_error *err)
{
    if (json)
        *json = NULL;
    json_error_t jerr;
    json_t *ops = ops_json ? json_loads(ops_json, 0, &jerr) : NULL;
    if (!json_is_array(ops)) {
        json_decref(ops);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "ops must be a JSON array of alter op objects");
    }
    json_t *body = json_pack("{s:o}", "ops", ops);
    struct buf path = BUF_INIT;
    if (!body || client_table_path(&path, t) != 0 || buf_puts(&path, "/alter") != 0) {
        json_decref(body);
        buf_free(&path);
        return client_nomem(err);
    }
    json_t *info = NULL;
    hl_status st = client_json(t->ns->catalog->client, "POST", path.data, body, &info, err);
    json_decref(body);
    buf_free(&path);
    if (st != HL_OK)
        return st;
    /* A rename moves the handle with the table. */
    const char *name = json_string_value(json_object_get(info, "name"));
    if (name && strcmp(name, t->name) != 0) {
        char *copy = strdup(name);
        if (!copy) {
            json_decref(info);
            return client_nomem(err);
        }
        free(t->name);
        t->name = copy;
    }
    client_json_int(info, "snapshot_id", &t->ddl_snapshot);
    table_cache_adopt(t, info);
    return dump_to(info, json, err);
}

hl_status hl_table_drop(hl_table *t, int64_t *snapshot_id, struct hl_error *err)
{
    if (snapshot_id)
        *snapshot_id = -1;
    struct buf path = BUF_INIT;
    if (client_table_path(&path, t) != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    json_t *ans = NULL;
    hl_status st = client_json(t->ns->catalog->client, "DELETE", path.data, NULL, &ans, err);
    buf_free(&path);
    if (st == HL_OK) {
        t->ddl_snapshot = -1;
        table_cache_clear(t);
        if (snapshot_id)
            client_json_int(ans, "snapshot_id", snapshot_id);
    }
    json_decref(ans);
    return st;
}

void hl_table_invalidate(hl_table *t)
{
    table_cache_clear(t);
}

/* ---- publishing prepared payloads ---- */

static hl_status commit_prepared(hl_catalog *c, const char *payload, int64_t *snapshot_id,
                                 json_t **parsed_out, struct hl_error *err)
{
    if (snapshot_id)
        *snapshot_id = -1;
    json_error_t jerr;
    json_t *doc = payload ? json_loads(payload, 0, &jerr) : NULL;
    const char *key = json_string_value(json_object_get(doc, "idempotency_key"));
    if (!json_is_object(doc) || !key || !*key) {
        json_decref(doc);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a prepared payload is a JSON object with an idempotency_key");
    }
    struct buf path = BUF_INIT;
    if (client_catalog_path(&path, c) != 0 || buf_puts(&path, "/commit/prepared") != 0) {
        json_decref(doc);
        buf_free(&path);
        return client_nomem(err);
    }
    /* The payload goes out byte for byte as it was persisted. */
    char *resp = NULL;
    hl_status st = hl_client_request(c->client, "POST", path.data, payload, &resp, err);
    buf_free(&path);
    if (st == HL_OK) {
        json_t *ans = json_loads(resp ? resp : "", 0, &jerr);
        if (!ans || !client_json_int(ans, "snapshot_id", snapshot_id ? snapshot_id : &(int64_t){0}))
            st = client_fail(err, HL_ERR_PROTOCOL, "protocol",
                             "the commit answer has no snapshot_id");
        json_decref(ans);
    } else if (st == HL_ERR_EXPIRED) {
        /* The payload's read snapshot fell below the floor: only a new
         * payload can succeed. */
        catalog_forget_retention(c);
        if (err)
            err->re_prepare = true;
    }
    free(resp);
    if (parsed_out)
        *parsed_out = doc;
    else
        json_decref(doc);
    return st;
}

hl_status hl_catalog_commit_prepared(hl_catalog *c, const char *payload, int64_t *snapshot_id,
                                     struct hl_error *err)
{
    return commit_prepared(c, payload, snapshot_id, NULL, err);
}

hl_status hl_table_commit_prepared(hl_table *t, const char *payload, int64_t *snapshot_id,
                                   struct hl_error *err)
{
    json_t *doc = NULL;
    hl_status st = commit_prepared(t->ns->catalog, payload, snapshot_id, &doc, err);
    if (st != HL_OK && doc) {
        /* The basis was the cache when the payload's read snapshot is the
         * cached one. */
        int64_t basis = -1;
        client_json_int(doc, "read_snapshot", &basis);
        pthread_mutex_lock(&t->lock);
        bool from_cache = t->cached_info && basis == t->cached_read_snapshot;
        pthread_mutex_unlock(&t->lock);
        table_cache_after_refusal(t, err, from_cache);
    }
    json_decref(doc);
    return st;
}
