/* Catalog, namespace and view handles and calls; the snapshot iterator and
 * consumer offsets. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "util/strutil.h"

hl_status hl_catalogs_list(hl_client *client, char **json, struct hl_error *err)
{
    return hl_client_request(client, "GET", "/v1/catalogs", NULL, json, err);
}

/* Makes a handle from a Catalog object. */
static hl_status catalog_from_json(hl_client *client, const json_t *info, hl_catalog **out,
                                   struct hl_error *err)
{
    const char *name = json_string_value(json_object_get(info, "name"));
    const char *data_path = json_string_value(json_object_get(info, "data_path"));
    if (!name || !data_path)
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the Catalog answer lacks name or data_path");
    hl_catalog *c = calloc(1, sizeof *c);
    if (!c)
        return client_nomem(err);
    c->client = client;
    pthread_mutex_init(&c->lock, NULL);
    if (!(c->name = strdup(name)) || !(c->data_path = strdup(data_path))) {
        hl_catalog_free(c);
        return client_nomem(err);
    }
    *out = c;
    return HL_OK;
}

hl_status hl_catalog_create(hl_client *client, const char *name, const char *data_path,
                            hl_catalog **out, struct hl_error *err)
{
    *out = NULL;
    if (!name || !data_path)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a catalog needs a name and a data path");
    json_t *body = json_pack("{s:s, s:s}", "name", name, "data_path", data_path);
    if (!body)
        return client_nomem(err);
    json_t *info = NULL;
    hl_status st = client_json(client, "POST", "/v1/catalogs", body, &info, err);
    json_decref(body);
    if (st == HL_OK)
        st = catalog_from_json(client, info, out, err);
    json_decref(info);
    return st;
}

hl_status hl_catalog_open(hl_client *client, const char *name, hl_catalog **out,
                          struct hl_error *err)
{
    *out = NULL;
    struct buf path = BUF_INIT;
    if (buf_puts(&path, "/v1/catalogs") != 0 || client_path_seg(&path, name) != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    json_t *info = NULL;
    hl_status st = client_json(client, "GET", path.data, NULL, &info, err);
    buf_free(&path);
    if (st == HL_OK)
        st = catalog_from_json(client, info, out, err);
    json_decref(info);
    return st;
}

void hl_catalog_free(hl_catalog *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->lock);
    free(c->name);
    free(c->data_path);
    free(c);
}

const char *hl_catalog_name(const hl_catalog *c)
{
    return c->name;
}

const char *hl_catalog_data_path(const hl_catalog *c)
{
    return c->data_path;
}

hl_status hl_catalog_info(hl_catalog *c, char **json, struct hl_error *err)
{
    struct buf path = BUF_INIT;
    if (client_catalog_path(&path, c) != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    return client_request_text(c->client, "GET", &path, NULL, json, err);
}

hl_status hl_catalog_options(hl_catalog *c, char **json, struct hl_error *err)
{
    struct buf path = BUF_INIT;
    if (client_catalog_path(&path, c) != 0 || buf_puts(&path, "/options") != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    return client_request_text(c->client, "GET", &path, NULL, json, err);
}

hl_status hl_catalog_set_retention(hl_catalog *c, int64_t seconds, int consumer_floor, char **json,
                                   struct hl_error *err)
{
    json_t *body = json_object();
    struct buf path = BUF_INIT;
    if (!body ||
        json_object_set_new(body, "snapshot_retention_seconds",
                            seconds < 0 ? json_null() : json_integer(seconds)) != 0 ||
        (consumer_floor >= 0 &&
         json_object_set_new(body, "consumer_floor", json_boolean(consumer_floor)) != 0) ||
        client_catalog_path(&path, c) != 0 || buf_puts(&path, "/options") != 0) {
        json_decref(body);
        buf_free(&path);
        return client_nomem(err);
    }
    hl_status st = client_request_text(c->client, "PATCH", &path, body, json, err);
    json_decref(body);
    catalog_forget_retention(c);
    return st;
}

/* ---- the snapshot log ---- */

struct hl_snapshot_iter {
    hl_catalog *catalog;
    int64_t after, before; /* the next page's cursor (before < 0: ascending) */
    int limit;
    json_t *page; /* the current page's snapshots */
    size_t next;  /* index into page */
    bool has_more;
    bool started;
};

hl_status hl_snapshot_iter_new(hl_catalog *c, int64_t after, int64_t before, int limit,
                               hl_snapshot_iter **out, struct hl_error *err)
{
    *out = NULL;
    if (before >= 0 && after != 0)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "'before' and a non-zero 'after' are mutually exclusive");
    if (limit < 0)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a page size is >= 0, got %d", limit);
    hl_snapshot_iter *it = calloc(1, sizeof *it);
    if (!it)
        return client_nomem(err);
    it->catalog = c;
    it->after = after;
    it->before = before;
    it->limit = limit;
    *out = it;
    return HL_OK;
}

static hl_status fetch_page(hl_snapshot_iter *it, struct hl_error *err)
{
    struct buf path = BUF_INIT;
    int rc = client_catalog_path(&path, it->catalog);
    if (rc == 0)
        rc = it->before >= 0 ? buf_printf(&path, "/snapshots?before=%lld", (long long)it->before)
                             : buf_printf(&path, "/snapshots?after=%lld", (long long)it->after);
    if (rc == 0 && it->limit > 0)
        rc = buf_printf(&path, "&limit=%d", it->limit);
    if (rc != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    json_t *ans = NULL;
    hl_status st = client_json(it->catalog->client, "GET", path.data, NULL, &ans, err);
    buf_free(&path);
    if (st != HL_OK)
        return st;
    json_t *snaps = json_object_get(ans, "snapshots");
    if (!json_is_array(snaps)) {
        json_decref(ans);
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the snapshot page has no 'snapshots' array");
    }
    json_decref(it->page);
    it->page = json_incref(snaps);
    it->next = 0;
    it->has_more = json_is_true(json_object_get(ans, "has_more"));
    it->started = true;
    json_decref(ans);
    return HL_OK;
}

static hl_status snapshot_from_json(const json_t *s, struct hl_snapshot *out, struct hl_error *err)
{
    hl_snapshot_clear(out);
    const char *time = json_string_value(json_object_get(s, "snapshot_time"));
    if (!client_json_int(s, "snapshot_id", &out->snapshot_id) ||
        !client_json_int(s, "schema_version", &out->schema_version) || !time)
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "a Snapshot lacks snapshot_id, schema_version or snapshot_time");
    str_copy(out->snapshot_time, sizeof out->snapshot_time, time);
    const char *author = json_string_value(json_object_get(s, "author"));
    const char *message = json_string_value(json_object_get(s, "message"));
    if (!(out->json = json_dumps(s, JSON_COMPACT)) || (author && !(out->author = strdup(author))) ||
        (message && !(out->message = strdup(message)))) {
        hl_snapshot_clear(out);
        return client_nomem(err);
    }
    return HL_OK;
}

hl_status hl_snapshot_iter_next(hl_snapshot_iter *it, struct hl_snapshot *snap, bool *done,
                                struct hl_error *err)
{
    *done = false;
    if (!it->started || (it->next >= json_array_size(it->page) && it->has_more)) {
        hl_status st = fetch_page(it, err);
        if (st != HL_OK)
            return st;
    }
    if (it->next >= json_array_size(it->page)) {
        *done = true;
        hl_snapshot_clear(snap);
        return HL_OK;
    }
    const json_t *s = json_array_get(it->page, it->next++);
    hl_status st = snapshot_from_json(s, snap, err);
    if (st != HL_OK)
        return st;
    /* The next page continues from the last snapshot seen. */
    if (it->before >= 0)
        it->before = snap->snapshot_id;
    else
        it->after = snap->snapshot_id;
    return HL_OK;
}

void hl_snapshot_iter_free(hl_snapshot_iter *it)
{
    if (!it)
        return;
    json_decref(it->page);
    free(it);
}

void hl_snapshot_clear(struct hl_snapshot *snap)
{
    free(snap->json);
    free(snap->author);
    free(snap->message);
    memset(snap, 0, sizeof *snap);
}

/* ---- consumer offsets ---- */

static int offsets_path(struct buf *path, const hl_catalog *c, const char *consumer,
                        const char *table_uuid)
{
    return client_catalog_path(path, c) == 0 && buf_puts(path, "/consumers") == 0 &&
                   client_path_seg(path, consumer) == 0 && buf_puts(path, "/offsets") == 0 &&
                   (!table_uuid || client_path_seg(path, table_uuid) == 0)
               ? 0
               : -1;
}

hl_status hl_catalog_commit_offset(hl_catalog *c, const char *consumer_id, const char *table_uuid,
                                   int64_t snapshot_id, struct hl_error *err)
{
    if (!consumer_id || !table_uuid)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a consumer id and a table uuid are required");
    struct buf path = BUF_INIT;
    json_t *body = json_pack("{s:I}", "snapshot_id", (json_int_t)snapshot_id);
    if (!body || offsets_path(&path, c, consumer_id, table_uuid) != 0) {
        json_decref(body);
        buf_free(&path);
        return client_nomem(err);
    }
    hl_status st = client_request_text(c->client, "PUT", &path, body, NULL, err);
    json_decref(body);
    return st;
}

hl_status hl_catalog_offset(hl_catalog *c, const char *consumer_id, const char *table_uuid,
                            int64_t *snapshot_id, struct hl_error *err)
{
    *snapshot_id = -1;
    if (!consumer_id || !table_uuid)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a consumer id and a table uuid are required");
    struct buf path = BUF_INIT;
    if (offsets_path(&path, c, consumer_id, table_uuid) != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    json_t *ans = NULL;
    hl_status st = client_json(c->client, "GET", path.data, NULL, &ans, err);
    buf_free(&path);
    /* No offset yet is an answer, not a failure (a missing catalog or
     * table still is). */
    if (st == HL_ERR_NOT_FOUND && err && str_starts_with(err->message, "no offset"))
        return HL_OK;
    if (st == HL_OK && !client_json_int(ans, "committed_snapshot", snapshot_id))
        st = client_fail(err, HL_ERR_PROTOCOL, "protocol",
                         "the ConsumerOffset lacks committed_snapshot");
    json_decref(ans);
    return st;
}

hl_status hl_catalog_offsets(hl_catalog *c, const char *consumer_id, char **json,
                             struct hl_error *err)
{
    struct buf path = BUF_INIT;
    if (!consumer_id)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a consumer id is required");
    if (offsets_path(&path, c, consumer_id, NULL) != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    return client_request_text(c->client, "GET", &path, NULL, json, err);
}

/* ---- namespaces ---- */

static hl_status namespace_handle(hl_catalog *c, const char *name, hl_namespace **out,
                                  struct hl_error *err)
{
    hl_namespace *ns = calloc(1, sizeof *ns);
    if (!ns || !(ns->name = strdup(name))) {
        free(ns);
        return client_nomem(err);
    }
    ns->catalog = c;
    *out = ns;
    return HL_OK;
}

hl_status hl_namespace_create(hl_catalog *c, const char *name, hl_namespace **out,
                              struct hl_error *err)
{
    *out = NULL;
    if (!name)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a namespace needs a name");
    struct buf path = BUF_INIT;
    json_t *body = json_pack("{s:s}", "name", name);
    if (!body || client_catalog_path(&path, c) != 0 || buf_puts(&path, "/namespaces") != 0) {
        json_decref(body);
        buf_free(&path);
        return client_nomem(err);
    }
    hl_status st = client_request_text(c->client, "POST", &path, body, NULL, err);
    json_decref(body);
    return st == HL_OK ? namespace_handle(c, name, out, err) : st;
}

hl_status hl_namespace_open(hl_catalog *c, const char *name, hl_namespace **out,
                            struct hl_error *err)
{
    *out = NULL;
    if (!name)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a namespace needs a name");
    hl_namespace probe = {.catalog = c, .name = (char *)name};
    struct buf path = BUF_INIT;
    if (client_namespace_path(&path, &probe) != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    hl_status st = client_request_text(c->client, "GET", &path, NULL, NULL, err);
    return st == HL_OK ? namespace_handle(c, name, out, err) : st;
}

void hl_namespace_free(hl_namespace *ns)
{
    if (!ns)
        return;
    free(ns->name);
    free(ns);
}

hl_status hl_namespaces_list(hl_catalog *c, const struct hl_at *at, char **json,
                             struct hl_error *err)
{
    struct buf path = BUF_INIT;
    if (client_catalog_path(&path, c) != 0 || buf_puts(&path, "/namespaces") != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    return client_get_at(c->client, &path, at, json, err);
}

hl_status hl_namespace_drop(hl_namespace *ns, struct hl_error *err)
{
    struct buf path = BUF_INIT;
    if (client_namespace_path(&path, ns) != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    return client_request_text(ns->catalog->client, "DELETE", &path, NULL, NULL, err);
}

/* ---- views ---- */

static int view_path(struct buf *path, const hl_namespace *ns, const char *name)
{
    return client_namespace_path(path, ns) == 0 && buf_puts(path, "/views") == 0 &&
                   (!name || client_path_seg(path, name) == 0)
               ? 0
               : -1;
}

hl_status hl_view_create(hl_namespace *ns, const char *name, const char *sql, const char *dialect,
                         char **json, struct hl_error *err)
{
    if (!name || !sql)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a view needs a name and SQL");
    struct buf path = BUF_INIT;
    json_t *body = json_pack("{s:s, s:s, s:s}", "name", name, "sql", sql, "dialect",
                             dialect ? dialect : "trino");
    if (!body || view_path(&path, ns, NULL) != 0) {
        json_decref(body);
        buf_free(&path);
        return client_nomem(err);
    }
    hl_status st = client_request_text(ns->catalog->client, "POST", &path, body, json, err);
    json_decref(body);
    return st;
}

/* GET or DELETE of a view (name given) or of the view list. */
static hl_status view_request(hl_namespace *ns, const char *method, const char *name, bool named,
                              char **json, struct hl_error *err)
{
    if (named && !name)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a view name is required");
    struct buf path = BUF_INIT;
    if (view_path(&path, ns, named ? name : NULL) != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    return client_request_text(ns->catalog->client, method, &path, NULL, json, err);
}

hl_status hl_view_get(hl_namespace *ns, const char *name, char **json, struct hl_error *err)
{
    return view_request(ns, "GET", name, true, json, err);
}

hl_status hl_views_list(hl_namespace *ns, char **json, struct hl_error *err)
{
    return view_request(ns, "GET", NULL, false, json, err);
}

hl_status hl_view_drop(hl_namespace *ns, const char *name, struct hl_error *err)
{
    return view_request(ns, "DELETE", name, true, NULL, err);
}

hl_status hl_catalog_resolve_snapshot(hl_catalog *c, const char *at_timestamp,
                                      struct hl_snapshot *out, struct hl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!at_timestamp)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "an instant to resolve is required");
    struct hl_at at = {-1, at_timestamp};
    struct buf path = BUF_INIT;
    bool q = false;
    if (client_catalog_path(&path, c) != 0 || buf_puts(&path, "/snapshots/resolve") != 0 ||
        client_query_at(&path, &at, &q) != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    json_t *snap = NULL;
    hl_status st = client_json(c->client, "GET", path.data, NULL, &snap, err);
    buf_free(&path);
    if (st == HL_OK)
        st = snapshot_from_json(snap, out, err);
    json_decref(snap);
    return st;
}
