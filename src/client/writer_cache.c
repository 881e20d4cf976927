/* The writer path's table cache: the last head read of a table and the
 * snapshot it resolved at, so that steady-state appends commit against it
 * without a GET. The server's conflict check is what makes this safe: a
 * commit whose read_snapshot predates an alter, drop or recreate is refused
 * with re_prepare, which empties the cache. The cache ages out at half the
 * catalog's retention, before its snapshot can fall below the expiry floor
 * (which would be refused only after the upload). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"

/* When the catalog will not say its retention, this is assumed, and the
 * question is not asked again for a while. */
#define ASSUMED_RETENTION_SECONDS 1800.0
#define RETENTION_RETRY_SECONDS 60.0

void table_cache_adopt(hl_table *t, json_t *info)
{
    int64_t snap;
    if (!client_json_int(info, "read_snapshot_id", &snap)) {
        table_cache_clear(t);
        return;
    }
    pthread_mutex_lock(&t->lock);
    json_decref(t->cached_info);
    t->cached_info = json_incref(info);
    t->cached_read_snapshot = snap;
    t->cached_at = client_now();
    pthread_mutex_unlock(&t->lock);
}

void table_cache_clear(hl_table *t)
{
    pthread_mutex_lock(&t->lock);
    json_decref(t->cached_info);
    t->cached_info = NULL;
    t->cached_read_snapshot = -1;
    pthread_mutex_unlock(&t->lock);
}

void catalog_forget_retention(hl_catalog *c)
{
    pthread_mutex_lock(&c->lock);
    c->retention_known = false;
    c->retention_failed_at = 0;
    pthread_mutex_unlock(&c->lock);
}

/* The catalog's retention in seconds (INFINITY when disabled), read once. */
static double catalog_retention(hl_catalog *c)
{
    double now = client_now();
    pthread_mutex_lock(&c->lock);
    bool known = c->retention_known;
    double value = c->retention_seconds;
    bool recently_failed =
        c->retention_failed_at > 0 && now - c->retention_failed_at < RETENTION_RETRY_SECONDS;
    pthread_mutex_unlock(&c->lock);
    if (known)
        return value;
    if (recently_failed)
        return ASSUMED_RETENTION_SECONDS;
    struct buf path = BUF_INIT;
    json_t *opts = NULL;
    struct hl_error err;
    hl_status st = client_catalog_path(&path, c) == 0 && buf_puts(&path, "/options") == 0
                       ? client_json(c->client, "GET", path.data, NULL, &opts, &err)
                       : HL_ERR_NOMEM;
    buf_free(&path);
    /* Absent or null: retention is disabled. */
    json_t *v = json_object_get(opts, "snapshot_retention_seconds");
    bool ok = st == HL_OK && json_is_object(opts) && (!v || json_is_null(v) || json_is_integer(v));
    double seconds = !ok                  ? ASSUMED_RETENTION_SECONDS
                     : json_is_integer(v) ? (double)json_integer_value(v)
                                          : INFINITY;
    json_decref(opts);
    pthread_mutex_lock(&c->lock);
    if (ok) {
        c->retention_known = true;
        c->retention_seconds = seconds;
        c->retention_failed_at = 0;
    } else {
        c->retention_failed_at = now;
    }
    pthread_mutex_unlock(&c->lock);
    return seconds;
}

static hl_status recreated(const char *name, const char *have, const char *want,
                           struct hl_error *err)
{
    hl_status st = client_fail(err, HL_ERR_TABLE_RECREATED, "table_recreated",
                               "table '%s' is now incarnation %s, not %s", name, have, want);
    if (err)
        err->re_prepare = true;
    return st;
}

/* Whether the cached read may still be used: younger than half the
 * catalog's retention (its snapshot stays above the expiry floor). Called
 * with t->lock held; max_age from cache_max_age, read before locking. */
static bool cache_usable(const hl_table *t, double max_age)
{
    return t->cached_info && client_now() - t->cached_at < max_age;
}

static double cache_max_age(hl_table *t)
{
    return catalog_retention(t->ns->catalog) / 2;
}

json_t *table_cache_fresh(hl_table *t)
{
    double max_age = cache_max_age(t);
    pthread_mutex_lock(&t->lock);
    json_t *info = cache_usable(t, max_age) ? json_incref(t->cached_info) : NULL;
    pthread_mutex_unlock(&t->lock);
    return info;
}

hl_status table_cache_basis(hl_table *t, const char *expected_uuid, json_t **info,
                            int64_t *read_snapshot, bool *from_cache, struct hl_error *err)
{
    *info = NULL;
    *read_snapshot = -1;
    *from_cache = false;
    const char *want = expected_uuid;
    double max_age = cache_max_age(t);
    pthread_mutex_lock(&t->lock);
    if (cache_usable(t, max_age)) {
        const char *have = json_string_value(json_object_get(t->cached_info, "table_uuid"));
        if (want && have && strcmp(have, want) != 0) {
            char copy[64];
            snprintf(copy, sizeof copy, "%s", have);
            pthread_mutex_unlock(&t->lock);
            return recreated(t->name, copy, want, err);
        }
        *info = json_incref(t->cached_info);
        *read_snapshot = t->cached_read_snapshot;
        *from_cache = true;
        pthread_mutex_unlock(&t->lock);
        return HL_OK;
    }
    pthread_mutex_unlock(&t->lock);

    /* Cold: the catalog's head first, so that the basis can never be newer
     * than what the table read saw. */
    hl_client *client = t->ns->catalog->client;
    struct buf path = BUF_INIT;
    json_t *cat = NULL;
    hl_status st = client_catalog_path(&path, t->ns->catalog) == 0
                       ? client_json(client, "GET", path.data, NULL, &cat, err)
                       : client_nomem(err);
    buf_free(&path);
    if (st != HL_OK)
        return st;
    int64_t head = -1;
    client_json_int(cat, "head_snapshot_id", &head);
    json_decref(cat);
    if (client_table_path(&path, t) != 0 || buf_puts(&path, "?totals=false") != 0) {
        buf_free(&path);
        return client_nomem(err);
    }
    json_t *fresh = NULL;
    st = client_json(client, "GET", path.data, NULL, &fresh, err);
    buf_free(&path);
    if (st != HL_OK)
        return st;
    const char *have = json_string_value(json_object_get(fresh, "table_uuid"));
    if (want && (!have || strcmp(have, want) != 0)) {
        st = recreated(t->name, have ? have : "(none)", want, err);
        json_decref(fresh);
        return st;
    }
    table_cache_adopt(t, fresh);
    if (!client_json_int(fresh, "read_snapshot_id", read_snapshot))
        *read_snapshot = head;
    *info = fresh;
    return HL_OK;
}

void table_cache_after_refusal(hl_table *t, const struct hl_error *err, bool basis_from_cache)
{
    /* Only the server's refusals say anything about the basis. */
    if (!err || err->http_status == 0)
        return;
    if (err->status == HL_ERR_EXPIRED)
        catalog_forget_retention(t->ns->catalog);
    if (err->re_prepare || (!err->retryable && basis_from_cache))
        table_cache_clear(t);
}
