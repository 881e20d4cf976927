/* Table handles: DDL, the metadata reads (with the handle's DDL-snapshot
 * pin), and publishing prepared payloads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "hoglake/sys/table.h"
#include "util/jsonx.h"
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
    bool lone = false;
    json_t *columns =
        jsonx_loadb_lenient(columns_json, strlen(columns_json), JSON_ALLOW_NUL, &jerr, &lone);
    if (!json_is_array(columns)) {
        json_decref(columns);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "columns must be a JSON array of ColumnDef objects");
    }
    hl_status checked = client_check_columns(columns, NULL, err);
    if (checked == HL_OK)
        checked = client_check_unstorable(columns, lone, "columns", err);
    if (checked != HL_OK) {
        json_decref(columns);
        return checked;
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

/* The path of a table sub-resource ("" for the table itself) as of `at`,
 * or of the handle's DDL snapshot when `pin` and at names nothing. */
static hl_status table_read_path(hl_table *t, const char *sub, const struct hl_at *at, bool pin,
                                 struct buf *path, struct hl_error *err)
{
    hl_status st = client_check_at(at, err);
    if (st != HL_OK)
        return st;
    struct hl_at pinned = {t->ddl_snapshot, NULL};
    bool travel = at && (at->snapshot >= 0 || at->at_timestamp);
    const struct hl_at *use = travel ? at : pin && t->ddl_snapshot >= 0 ? &pinned : NULL;
    bool has_query = strchr(sub, '?') != NULL;
    if (client_table_path(path, t) != 0 || buf_puts(path, sub) != 0 ||
        client_query_at(path, use, &has_query) != 0) {
        buf_free(path);
        return client_nomem(err);
    }
    return HL_OK;
}

/* GETs a table sub-resource at `at` (see table_read_path). */
static hl_status table_read(hl_table *t, const char *sub, const struct hl_at *at, bool pin,
                            json_t **out, struct hl_error *err)
{
    struct buf path = BUF_INIT;
    hl_status st = table_read_path(t, sub, at, pin, &path, err);
    if (st != HL_OK)
        return st;
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

hl_status table_info_doc(hl_table *t, const struct hl_at *at, json_t **info, struct hl_error *err)
{
    /* info() is not pinned: it reads the head unless told otherwise. */
    hl_status st = table_read(t, "", at, false, info, err);
    if (st == HL_OK && (!at || (at->snapshot < 0 && !at->at_timestamp)))
        table_cache_adopt(t, *info);
    return st;
}

hl_status hl_table_info(hl_table *t, const struct hl_at *at, char **json, struct hl_error *err)
{
    if (json)
        *json = NULL;
    json_t *info = NULL;
    hl_status st = table_info_doc(t, at, &info, err);
    return st == HL_OK ? dump_to(info, json, err) : st;
}

hl_catalog *hl_table_catalog(hl_table *t)
{
    return t->ns->catalog;
}

hl_status hl_table_definition(hl_table *t, char **json, struct hl_error *err)
{
    json_t *info = table_cache_fresh(t);
    if (!info)
        return hl_table_info(t, NULL, json, err);
    if (json)
        *json = NULL;
    return dump_to(info, json, err);
}

/* ---- paged reads ----
 *
 * files, scan and changes answer in pages; a page names the next one with
 * next_page_token, which pins the snapshot the first page read, so the
 * pages of one listing agree whatever commits land meanwhile. */

/* One page of the listing at `base` (with its query): `limit` entries at
 * most (0: the server's default), from `token` (NULL: the first page). */
static hl_status read_page(hl_client *c, const char *base, int limit, const char *token,
                           json_t **page, struct hl_error *err)
{
    *page = NULL;
    bool has_query = strchr(base, '?') != NULL;
    if (limit < 0)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a page limit is >= 0 (0: the server's default), got %d", limit);
    struct buf path = BUF_INIT;
    int rc = buf_puts(&path, base);
    if (rc == 0 && limit > 0)
        rc = buf_printf(&path, "%climit=%d", has_query ? '&' : '?', limit);
    has_query |= limit > 0;
    char *enc = NULL;
    if (rc == 0 && token) {
        size_t cap = strlen(token) * 3 + 1;
        rc = (enc = malloc(cap)) ? 0 : -1;
        if (rc == 0) {
            hl_url_encode(token, enc, cap);
            rc = buf_printf(&path, "%cpage_token=%s", has_query ? '&' : '?', enc);
        }
    }
    free(enc);
    hl_status st = rc == 0 ? client_json(c, "GET", path.data, NULL, page, err) : client_nomem(err);
    buf_free(&path);
    if (st == HL_OK && !json_is_object(*page)) {
        json_decref(*page);
        *page = NULL;
        st =
            client_fail(err, HL_ERR_PROTOCOL, "protocol", "GET %s: the answer is not a page", base);
    }
    return st;
}

/* A page's next_page_token (borrowed), NULL on the last page. */
static hl_status page_next(const json_t *page, const char **next, struct hl_error *err)
{
    const json_t *v = json_object_get(page, "next_page_token");
    *next = json_string_value(v);
    if (v && !*next && !json_is_null(v))
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "next_page_token is neither a string nor null");
    if (*next && !**next)
        return client_fail(err, HL_ERR_PROTOCOL, "protocol", "next_page_token is empty");
    return HL_OK;
}

/* Appends a later page's arrays to the listing gathered so far. */
static hl_status merge_page(json_t *whole, const json_t *page, struct hl_error *err)
{
    static const char *const members[] = {"files", "delete_files"};
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
        json_t *into = json_object_get(whole, members[i]);
        const json_t *more = json_object_get(page, members[i]);
        if (!into && !more)
            continue;
        if (!json_is_array(into) || !json_is_array(more))
            return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                               "a page lacks the array '%s' the first page had", members[i]);
        if (json_array_extend(into, (json_t *)more) != 0)
            return client_nomem(err);
    }
    return HL_OK;
}

/* Every page of the listing at `base` (with its query), merged into the
 * first page (its arrays extended, next_page_token dropped): the whole
 * listing. */
static hl_status read_all_pages(hl_client *c, const char *base, json_t **whole,
                                struct hl_error *err)
{
    hl_status st = read_page(c, base, 0, NULL, whole, err);
    const char *next = NULL;
    char *token = NULL;
    if (st == HL_OK)
        st = page_next(*whole, &next, err);
    if (st == HL_OK && next && !(token = strdup(next)))
        st = client_nomem(err);
    while (st == HL_OK && token) {
        json_t *page = NULL;
        st = read_page(c, base, 0, token, &page, err);
        if (st == HL_OK)
            st = merge_page(*whole, page, err);
        if (st == HL_OK)
            st = page_next(page, &next, err);
        /* A server handing back the token it was given would loop. */
        if (st == HL_OK && next && strcmp(next, token) == 0)
            st = client_fail(err, HL_ERR_PROTOCOL, "protocol", "a page repeats its own token");
        free(token);
        token = NULL;
        if (st == HL_OK && next && !(token = strdup(next)))
            st = client_nomem(err);
        json_decref(page);
    }
    free(token);
    if (st == HL_OK) {
        json_object_del(*whole, "next_page_token");
    } else {
        json_decref(*whole);
        *whole = NULL;
    }
    return st;
}

hl_status hl_client_get_pages(hl_client *client, const char *path, char **response,
                              struct hl_error *err)
{
    if (response)
        *response = NULL;
    json_t *whole = NULL;
    hl_status st = read_all_pages(client, path, &whole, err);
    return st == HL_OK ? dump_to(whole, response, err) : st;
}

/* Hands a page to the caller: its text and its next_page_token. */
static hl_status page_out(json_t *page, char **json, char **next_page_token, struct hl_error *err)
{
    const char *next = NULL;
    hl_status st = page_next(page, &next, err);
    if (st == HL_OK && next && next_page_token && !(*next_page_token = strdup(next)))
        st = client_nomem(err);
    if (st != HL_OK) {
        json_decref(page);
        return st;
    }
    st = dump_to(page, json, err);
    if (st != HL_OK && next_page_token) {
        free(*next_page_token);
        *next_page_token = NULL;
    }
    return st;
}

/* Which paged listing of a table: a sub-resource at `at` (files, scan),
 * or the changes of the window (from, to]. */
struct listing {
    const char *sub; /* NULL: the changes */
    const struct hl_at *at;
    int64_t from, to;
};

/* The listing's path, with its query. */
static hl_status listing_path(hl_table *t, const struct listing *l, struct buf *path,
                              struct hl_error *err)
{
    if (l->sub)
        return table_read_path(t, l->sub, l->at, true, path, err);
    if (l->from < 0)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "from_snapshot is >= 0, got %lld", (long long)l->from);
    int rc = client_table_path(path, t);
    if (rc == 0)
        rc = buf_printf(path, "/changes?from_snapshot=%lld", (long long)l->from);
    if (rc == 0 && l->to >= 0)
        rc = buf_printf(path, "&to_snapshot=%lld", (long long)l->to);
    if (rc != 0) {
        buf_free(path);
        return client_nomem(err);
    }
    return HL_OK;
}

/* One page of the listing, parsed. */
static hl_status listing_page_json(hl_table *t, const struct listing *l, int limit,
                                   const char *page_token, json_t **page, struct hl_error *err)
{
    *page = NULL;
    struct buf path = BUF_INIT;
    hl_status st = listing_path(t, l, &path, err);
    if (st != HL_OK)
        return st;
    st = read_page(t->ns->catalog->client, path.data, limit, page_token, page, err);
    buf_free(&path);
    return st;
}

/* The same as text, with its next_page_token. */
static hl_status listing_page(hl_table *t, const struct listing *l, int limit,
                              const char *page_token, char **json, char **next_page_token,
                              struct hl_error *err)
{
    if (json)
        *json = NULL;
    if (next_page_token)
        *next_page_token = NULL;
    json_t *page = NULL;
    hl_status st = listing_page_json(t, l, limit, page_token, &page, err);
    return st == HL_OK ? page_out(page, json, next_page_token, err) : st;
}

/* Every page of the listing, merged (see read_all_pages). */
static hl_status listing_whole(hl_table *t, const struct listing *l, json_t **whole,
                               struct hl_error *err)
{
    struct buf path = BUF_INIT;
    hl_status st = listing_path(t, l, &path, err);
    if (st != HL_OK)
        return st;
    st = read_all_pages(t->ns->catalog->client, path.data, whole, err);
    buf_free(&path);
    return st;
}

/* The whole listing of a table's files or scan plan: the pages' `files`
 * arrays end to end. */
static hl_status whole_file_listing(hl_table *t, const char *sub, const struct hl_at *at,
                                    char **json, struct hl_error *err)
{
    if (json)
        *json = NULL;
    json_t *whole = NULL;
    hl_status st = listing_whole(t, &(struct listing){sub, at, 0, 0}, &whole, err);
    if (st != HL_OK)
        return st;
    json_t *files = json_incref(json_object_get(whole, "files"));
    json_decref(whole);
    if (!json_is_array(files)) {
        json_decref(files);
        return client_fail(err, HL_ERR_PROTOCOL, "protocol", "the listing has no files array");
    }
    return dump_to(files, json, err);
}

hl_status client_plan_page(hl_table *t, const struct hl_at *at, bool with_stats,
                           const char *page_token, json_t **files, char **next_page_token,
                           struct hl_error *err)
{
    *files = NULL;
    *next_page_token = NULL;
    json_t *page = NULL;
    const char *sub = with_stats ? "/scan?include=column_stats" : "/scan";
    hl_status st =
        listing_page_json(t, &(struct listing){sub, at, 0, 0}, 0, page_token, &page, err);
    const char *next = NULL;
    if (st == HL_OK)
        st = page_next(page, &next, err);
    json_t *a = st == HL_OK ? json_object_get(page, "files") : NULL;
    if (st == HL_OK && !json_is_array(a))
        st = client_fail(err, HL_ERR_PROTOCOL, "protocol", "the scan plan page has no files array");
    if (st == HL_OK && next && !(*next_page_token = strdup(next)))
        st = client_nomem(err);
    if (st == HL_OK)
        *files = json_incref(a);
    json_decref(page);
    return st;
}

hl_status hl_table_files(hl_table *t, const struct hl_at *at, char **json, struct hl_error *err)
{
    return whole_file_listing(t, "/files", at, json, err);
}

hl_status hl_table_scan_plan(hl_table *t, const struct hl_at *at, char **json, struct hl_error *err)
{
    return whole_file_listing(t, "/scan", at, json, err);
}

hl_status hl_table_changes(hl_table *t, int64_t from_snapshot, int64_t to_snapshot, char **json,
                           struct hl_error *err)
{
    if (json)
        *json = NULL;
    json_t *whole = NULL;
    hl_status st =
        listing_whole(t, &(struct listing){NULL, NULL, from_snapshot, to_snapshot}, &whole, err);
    return st == HL_OK ? dump_to(whole, json, err) : st;
}

hl_status hl_table_files_page(hl_table *t, const struct hl_at *at, int limit,
                              const char *page_token, char **json, char **next_page_token,
                              struct hl_error *err)
{
    return listing_page(t, &(struct listing){"/files", at, 0, 0}, limit, page_token, json,
                        next_page_token, err);
}

hl_status hl_table_scan_plan_page(hl_table *t, const struct hl_at *at, int limit,
                                  const char *page_token, char **json, char **next_page_token,
                                  struct hl_error *err)
{
    return listing_page(t, &(struct listing){"/scan", at, 0, 0}, limit, page_token, json,
                        next_page_token, err);
}

hl_status hl_table_changes_page(hl_table *t, int64_t from_snapshot, int64_t to_snapshot, int limit,
                                const char *page_token, char **json, char **next_page_token,
                                struct hl_error *err)
{
    return listing_page(t, &(struct listing){NULL, NULL, from_snapshot, to_snapshot}, limit,
                        page_token, json, next_page_token, err);
}

/* The columns the ops add, checked as the server checks them. */
static hl_status check_added_columns(const json_t *ops, struct hl_error *err)
{
    size_t i;
    const json_t *op;
    json_array_foreach (ops, i, op) {
        const json_t *column = json_object_get(op, "column");
        if (!json_is_object(column))
            continue;
        json_t *one = json_pack("[O]", column);
        if (!one)
            return client_nomem(err);
        hl_status st =
            client_check_columns(one, json_string_value(json_object_get(op, "parent")), err);
        json_decref(one);
        if (st != HL_OK)
            return st;
    }
    return HL_OK;
}

hl_status hl_table_alter(hl_table *t, const char *ops_json, char **json, struct hl_error *err)
{
    if (json)
        *json = NULL;
    json_error_t jerr;
    bool lone = false;
    json_t *ops =
        ops_json ? jsonx_loadb_lenient(ops_json, strlen(ops_json), JSON_ALLOW_NUL, &jerr, &lone)
                 : NULL;
    if (!json_is_array(ops)) {
        json_decref(ops);
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "ops must be a JSON array of alter op objects");
    }
    hl_status checked = check_added_columns(ops, err);
    if (checked == HL_OK)
        checked = client_check_unstorable(ops, lone, "ops", err);
    if (checked != HL_OK) {
        json_decref(ops);
        return checked;
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
