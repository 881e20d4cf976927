/* An append's upload claims: batches claimed ahead of the files, the
 * owner named on the commit, and the clean-up of an append that did not
 * commit (see claims.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/claims.h"
#include "objstore/objstore.h"
#include "util/random.h"

/* Leases last 24 h; an append renews its claims well before. */
#define RENEW_AFTER_SECONDS (6.0 * 3600)

static const char *suffix_of(enum claims_kind kind)
{
    return kind == CLAIMS_DELETES ? ".puffin" : ".parquet";
}

hl_status claims_init(struct claims *c, hl_catalog *catalog, enum claims_kind kind,
                      const char *prefix, size_t first_batch, size_t total, struct hl_error *err)
{
    memset(c, 0, sizeof *c);
    c->catalog = catalog;
    c->kind = kind;
    c->batch = first_batch < 1                  ? 1
               : first_batch > CLAIMS_MAX_BATCH ? CLAIMS_MAX_BATCH
                                                : first_batch;
    c->budget = total ? total : SIZE_MAX;
    c->renew_after = RENEW_AFTER_SECONDS;
    if (random_uuid4(c->owner) != 0)
        return client_fail(err, HL_ERR_INTERNAL, "internal",
                           "no randomness for an upload owner: %s", strerror(errno));
    if (!(c->prefix = strdup(prefix)))
        return client_nomem(err);
    return HL_OK;
}

void claims_free(struct claims *c)
{
    for (size_t i = 0; i < c->npaths; i++)
        free(c->paths[i]);
    free(c->paths);
    free(c->prefix);
    memset(c, 0, sizeof *c);
}

size_t claims_next_batch(size_t previous)
{
    return previous >= CLAIMS_MAX_BATCH / 2 ? CLAIMS_MAX_BATCH : previous * 2;
}

/* Whether path is prefix followed by one segment ending in the suffix. */
static bool path_in_prefix(const char *path, const char *prefix, const char *suffix)
{
    size_t pl = strlen(prefix), sl = strlen(suffix);
    if (strncmp(path, prefix, pl) != 0)
        return false;
    const char *name = path + pl;
    size_t nl = strlen(name);
    return nl > sl && !strchr(name, '/') && strcmp(name + nl - sl, suffix) == 0;
}

hl_status claims_accept(struct claims *c, const json_t *answer, char (*ids)[37], size_t n,
                        struct hl_error *err)
{
    json_t *uploads = json_object_get(answer, "uploads");
    if (!json_is_array(uploads) || json_array_size(uploads) != n)
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the claim answer does not hold the %zu uploads asked for", n);
    for (size_t i = 0; i < n; i++) {
        json_t *u = json_array_get(uploads, i);
        const char *id = json_string_value(json_object_get(u, "upload_id"));
        const char *path = json_string_value(json_object_get(u, "path"));
        if (!id || strcasecmp(id, ids[i]) != 0 || !path ||
            !path_in_prefix(path, c->prefix, suffix_of(c->kind)))
            return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                               "claim %zu of the answer is not upload %s at a '%s' path under %s",
                               i, ids[i], suffix_of(c->kind), c->prefix);
    }
    char **grown = realloc(c->paths, (c->npaths + n) * sizeof *grown);
    if (!grown)
        return client_nomem(err);
    c->paths = grown;
    for (size_t i = 0; i < n; i++) {
        json_t *u = json_array_get(uploads, i);
        if (!(c->paths[c->npaths] = strdup(json_string_value(json_object_get(u, "path")))))
            return client_nomem(err);
        c->npaths++;
    }
    return HL_OK;
}

/* "/v1/catalogs/<c>/uploads<tail>" into path. */
static int uploads_path(struct buf *path, const struct claims *c, const char *tail)
{
    return client_catalog_path(path, c->catalog) == 0 && buf_puts(path, "/uploads") == 0 &&
                   buf_puts(path, tail) == 0
               ? 0
               : -1;
}

/* Sends {"owner", ...members} to .../uploads<tail>; *answer (may be NULL)
 * gets the answer. Consumes body. */
static hl_status owner_request(struct claims *c, const char *tail, json_t *body, json_t **answer,
                               struct hl_error *err)
{
    struct buf path = BUF_INIT;
    hl_status st = HL_OK;
    if (!body || json_object_set_new(body, "owner", json_string(c->owner)) != 0 ||
        uploads_path(&path, c, tail) != 0)
        st = client_nomem(err);
    if (st == HL_OK)
        st = client_json(c->catalog->client, "POST", path.data, body, answer, err);
    buf_free(&path);
    json_decref(body);
    return st;
}

/* Claims the next batch of ids. */
static hl_status claim_batch(struct claims *c, struct hl_error *err)
{
    size_t n = c->batch < c->budget ? c->batch : c->budget;
    if (n == 0)
        return client_fail(err, HL_ERR_INTERNAL, "internal", "more files than were claimed");
    char(*ids)[37] = calloc(n, sizeof *ids);
    json_t *list = json_array();
    hl_status st = ids && list ? HL_OK : client_nomem(err);
    for (size_t i = 0; st == HL_OK && i < n; i++) {
        if (random_uuid4(ids[i]) != 0)
            st = client_fail(err, HL_ERR_INTERNAL, "internal", "no randomness for an upload id: %s",
                             strerror(errno));
        else if (json_array_append_new(list, json_string(ids[i])) != 0)
            st = client_nomem(err);
    }
    json_t *body = NULL, *answer = NULL;
    if (st == HL_OK &&
        !(body = json_pack("{s:s, s:s, s:O}", "prefix", c->prefix, "file_kind",
                           c->kind == CLAIMS_DELETES ? "delete" : "data", "upload_ids", list)))
        st = client_nomem(err);
    if (st == HL_OK) {
        if (!c->requested)
            c->renewed_at = client_now();
        c->requested = true;
        st = owner_request(c, "", body, &answer, err);
    } else {
        json_decref(body);
    }
    if (st == HL_OK)
        st = claims_accept(c, answer, ids, n, err);
    if (st == HL_OK) {
        c->budget -= n;
        c->batch = claims_next_batch(c->batch);
    } else {
        client_error_prefix(err, "claiming upload paths under %s", c->prefix);
    }
    json_decref(answer);
    json_decref(list);
    free(ids);
    return st;
}

hl_status claims_take(struct claims *c, char *out, size_t size, struct hl_error *err)
{
    if (c->taken_from == c->npaths) {
        hl_status st = claim_batch(c, err);
        if (st != HL_OK)
            return st;
    }
    const char *path = c->paths[c->taken_from];
    if (strlen(path) >= size)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the catalog's data path is too long");
    memcpy(out, path, strlen(path) + 1);
    c->taken_from++;
    return HL_OK;
}

int claims_name_owner(const struct claims *c, json_t *body)
{
    return json_object_set_new(body, "upload_owner", json_string(c->owner));
}

static void log_warning(const struct claims *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void log_warning(const struct claims *c, const char *fmt, ...)
{
    const hl_client *client = c->catalog->client;
    if (!client->log || client->log_level < HL_LOG_WARN)
        return;
    char line[HL_ERROR_MESSAGE_MAX + 512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    client->log(client->log_ctx, HL_LOG_WARN, line);
}

/* Deletes what res->uploaded lists; keeps listed what could not be. */
static void delete_uploaded(struct claims *c, struct hl_append_result *res)
{
    struct objstore *store;
    struct hl_error e;
    if (res->nuploaded == 0 || client_store(c->catalog->client, &store, &e) != HL_OK)
        return;
    /* One batch; when it fails, object by object to learn which remain. */
    if (objstore_delete(store, (const char *const *)res->uploaded, res->nuploaded, NULL, &e) == 0) {
        for (size_t i = 0; i < res->nuploaded; i++)
            free(res->uploaded[i]);
        res->nremoved += res->nuploaded;
        res->nuploaded = 0;
        return;
    }
    size_t kept = 0;
    for (size_t i = 0; i < res->nuploaded; i++) {
        const char *one[] = {res->uploaded[i]};
        if (objstore_delete(store, one, 1, NULL, &e) == 0) {
            free(res->uploaded[i]);
            res->nremoved++;
        } else {
            log_warning(c, "could not delete %s, which a failed append wrote: %s", one[0],
                        e.message);
            res->uploaded[kept++] = res->uploaded[i];
        }
    }
    res->nuploaded = kept;
}

void claims_keep_alive(struct claims *c)
{
    if (!c->requested || client_now() - c->renewed_at < c->renew_after)
        return;
    struct hl_error e;
    if (owner_request(c, "/renew", json_object(), NULL, &e) == HL_OK)
        c->renewed_at = client_now();
    else
        log_warning(c, "could not renew the upload claims of owner %s: %s", c->owner, e.message);
}

void claims_discard(struct claims *c, struct hl_append_result *res, bool delete_objects)
{
    if (delete_objects)
        delete_uploaded(c, res);
    if (!c->requested)
        return;
    struct hl_error e;
    if (owner_request(c, "/abandon", json_object(), NULL, &e) != HL_OK)
        log_warning(c,
                    "could not abandon the upload claims of owner %s (%s); they expire in 24 h "
                    "and the server's cleanup then removes what they name",
                    c->owner, e.message);
}

bool claims_refused(hl_status st, const struct hl_error *err)
{
    return st != HL_OK && err->http_status >= 400 && err->http_status <= 499;
}
