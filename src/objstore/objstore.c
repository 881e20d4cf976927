/* The object store handle: configuration resolved once, and each call
 * dispatched by URI scheme to the file or S3 backend. */
#include "objstore/objstore.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "objstore/errors.h"
#include "objstore/filestore.h"
#include "objstore/s3.h"
#include "objstore/uri.h"

enum { DEFAULT_CONNECT_TIMEOUT_MS = 10000, DEFAULT_TIMEOUT_MS = 300000, DEFAULT_RETRIES = 3 };

struct objstore {
    struct s3_client *s3;
    int list_page_size;
    /* A view (objstore_confine): the root every URI must lie under, and
     * the handle whose S3 client it borrows. */
    char *root;                 /* the root URI, no trailing '/' */
    struct objstore_uri root_u; /* parsed root; key points into root */
    const struct objstore *base;
};

static const char *or_env(const char *v, const char *name)
{
    if (v)
        return v;
    const char *e = getenv(name);
    return e && *e ? e : NULL;
}

int objstore_open(const struct objstore_config *cfg, struct objstore **out, struct hl_error *err)
{
    static const struct objstore_config none;
    if (!out)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "objstore_open needs somewhere to put the handle");
    *out = NULL;
    if (!cfg)
        cfg = &none;
    if (cfg->connect_timeout_ms < 0 || cfg->timeout_ms < 0 || cfg->max_retries < -1)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_config",
                       "timeouts must be >= 0 and max_retries >= -1");
    struct s3_settings st = {
        .endpoint = or_env(cfg->s3_endpoint, "AWS_ENDPOINT_URL"),
        .region = or_env(cfg->s3_region, "AWS_REGION"),
        .access_key = or_env(cfg->s3_access_key, "AWS_ACCESS_KEY_ID"),
        .secret_key = or_env(cfg->s3_secret_key, "AWS_SECRET_ACCESS_KEY"),
        .session_token = or_env(cfg->s3_session_token, "AWS_SESSION_TOKEN"),
        .connect_timeout_ms =
            cfg->connect_timeout_ms ? cfg->connect_timeout_ms : DEFAULT_CONNECT_TIMEOUT_MS,
        .timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : DEFAULT_TIMEOUT_MS,
        .max_retries = cfg->max_retries == 0  ? DEFAULT_RETRIES
                       : cfg->max_retries < 0 ? 0
                                              : cfg->max_retries,
        .log = cfg->log,
    };
    if (!st.access_key != !st.secret_key)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_config",
                       "S3 needs both an access key and a secret key, or neither");
    struct objstore *s = calloc(1, sizeof *s);
    if (!s)
        return os_nomem(err);
    s->list_page_size = 1000;
    if (s3_client_new(&st, &s->s3, err) != 0) {
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void objstore_free(struct objstore *s)
{
    if (!s)
        return;
    if (!s->base)
        s3_client_free(s->s3);
    free(s->root);
    free(s);
}

static int need_handle(const struct objstore *s, struct hl_error *err)
{
    return s ? 0
             : os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "no object store handle");
}

int objstore_confine(struct objstore *s, const char *root_uri, struct objstore **out,
                     struct hl_error *err)
{
    *out = NULL;
    if (need_handle(s, err) != 0)
        return -1;
    struct objstore *v = calloc(1, sizeof *v);
    if (!v || !(v->root = strdup(root_uri ? root_uri : ""))) {
        free(v);
        return os_nomem(err);
    }
    size_t n = strlen(v->root);
    while (n > 0 && v->root[n - 1] == '/')
        v->root[--n] = '\0';
    if (objstore_uri_parse(v->root, true, &v->root_u, err) != 0 ||
        (v->root_u.scheme == OBJSTORE_FILE && strcmp(v->root_u.key, "/") == 0) || n == 0) {
        free(v->root);
        free(v);
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_uri",
                       "'%.200s' cannot be a root to confine objects to", root_uri);
    }
    v->s3 = s->s3;
    v->list_page_size = s->list_page_size;
    v->base = s;
    *out = v;
    return 0;
}

/* A view refuses what does not lie under its root: another scheme or
 * bucket, a key outside the prefix, or (S3) a key with an empty, "." or
 * ".." segment below it. file:// is checked again, and resolved, by the
 * file backend. */
static int check_root(const struct objstore *s, const struct objstore_uri *u, const char *uri,
                      struct hl_error *err)
{
    if (!s->root)
        return 0;
    const struct objstore_uri *r = &s->root_u;
    size_t rn = strlen(r->key);
    bool under = u->scheme == r->scheme && strcmp(u->bucket, r->bucket) == 0 &&
                 (rn == 0 || (strncmp(u->key, r->key, rn) == 0 && u->key[rn] == '/'));
    const char *rel = rn == 0 ? u->key : u->key + rn + 1;
    for (const char *seg = rel; under && *seg;) {
        size_t len = strcspn(seg, "/");
        if (len == 0 || (len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
            under = false;
        seg += len;
        if (*seg == '/')
            seg++;
    }
    if (!under)
        return os_fail(err, HL_ERR_FORBIDDEN, 0, false, "outside_root", "%.300s: outside %.300s",
                       uri, s->root);
    return 0;
}

/* The file backend's root: the view's directory, NULL when unconfined. */
static const char *file_root(const struct objstore *s)
{
    return s->root && s->root_u.scheme == OBJSTORE_FILE ? s->root_u.key : NULL;
}

void objstore_set_list_page_size(struct objstore *s, int keys)
{
    s->list_page_size = keys < 1 ? 1 : keys > 1000 ? 1000 : keys;
}

static int check_flags(unsigned flags, struct hl_error *err)
{
    if (flags & ~(unsigned)(OBJSTORE_IF_NONE_MATCH | OBJSTORE_MULTIPART))
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "unknown put flags 0x%x", flags);
    return 0;
}

int objstore_put(struct objstore *s, const char *uri, const void *data, size_t len, unsigned flags,
                 struct hl_error *err)
{
    struct objstore_uri u;
    if (need_handle(s, err) != 0 || objstore_uri_parse(uri, false, &u, err) != 0 ||
        check_flags(flags, err) != 0 || check_root(s, &u, uri, err) != 0)
        return -1;
    if (!data && len)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "put of %zu bytes from NULL", len);
    if (u.scheme == OBJSTORE_FILE)
        return file_put(file_root(s), u.key, data ? data : "", len, flags, err);
    return s3_put(s->s3, u.bucket, u.key, data, len, flags, err);
}

/* One backend's writer. */
struct objstore_writer {
    struct file_writer *file;
    struct s3_writer *s3;
};

int objstore_writer_open(struct objstore *s, const char *uri, unsigned flags,
                         struct objstore_writer **out, struct hl_error *err)
{
    struct objstore_uri u;
    if (!out)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "objstore_writer_open needs somewhere to put the writer");
    *out = NULL;
    if (need_handle(s, err) != 0 || objstore_uri_parse(uri, false, &u, err) != 0 ||
        check_flags(flags, err) != 0 || check_root(s, &u, uri, err) != 0)
        return -1;
    struct objstore_writer *w = calloc(1, sizeof *w);
    if (!w)
        return os_nomem(err);
    int rc = u.scheme == OBJSTORE_FILE ? file_writer_open(file_root(s), u.key, flags, &w->file, err)
                                       : s3_writer_open(s->s3, u.bucket, u.key, flags, &w->s3, err);
    if (rc != 0) {
        free(w);
        return -1;
    }
    *out = w;
    return 0;
}

int objstore_writer_write(struct objstore_writer *w, const void *data, size_t len,
                          struct hl_error *err)
{
    if (!w || (!data && len))
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "write of %zu bytes from NULL or to no writer", len);
    return w->file ? file_writer_write(w->file, data, len, err)
                   : s3_writer_write(w->s3, data, len, err);
}

int objstore_writer_commit(struct objstore_writer *w, uint64_t *size, struct hl_error *err)
{
    if (!w)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "commit of no writer");
    int rc = w->file ? file_writer_commit(w->file, size, err) : s3_writer_commit(w->s3, size, err);
    free(w);
    return rc;
}

void objstore_writer_abort(struct objstore_writer *w)
{
    if (!w)
        return;
    if (w->file)
        file_writer_abort(w->file);
    else
        s3_writer_abort(w->s3);
    free(w);
}

int objstore_get(struct objstore *s, const char *uri, uint64_t offset, uint64_t length,
                 struct buf *out, struct hl_error *err)
{
    struct objstore_uri u;
    if (need_handle(s, err) != 0 || objstore_uri_parse(uri, false, &u, err) != 0 ||
        check_root(s, &u, uri, err) != 0)
        return -1;
    if (!out)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "get needs an output buffer");
    if (u.scheme == OBJSTORE_FILE)
        return file_get(file_root(s), u.key, offset, length, out, err);
    return s3_get(s->s3, u.bucket, u.key, offset, length, out, err);
}

int objstore_get_sized(struct objstore *s, const char *uri, uint64_t size, struct buf *out,
                       struct hl_error *err)
{
    if (size > INT64_MAX)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "%s: a recorded size of %llu bytes is not a size", uri,
                       (unsigned long long)size);
    uint64_t held = 0;
    bool over = false;
    if (size > 0 && objstore_get(s, uri, 0, size + 1, out, err) == 0) {
        held = out->len;
        over = held > size; /* read size + 1: it holds at least that */
    } else if (size > 0 && err && err->status != HL_ERR_INVALID_ARGUMENT) {
        buf_free(out);
        return -1;
    } else if (objstore_head(s, uri, &held, err) != 0) {
        /* Nothing to read, or a ranged read refused at the end of an
         * empty object: the size alone answers. */
        return -1;
    }
    if (held == size)
        return 0;
    buf_free(out);
    return os_fail(err, HL_ERR_FORBIDDEN, 0, false, "size_mismatch",
                   "%s: the object holds %s%llu bytes, %llu were recorded", uri,
                   over ? "more than " : "", (unsigned long long)(over ? size : held),
                   (unsigned long long)size);
}

int objstore_head(struct objstore *s, const char *uri, uint64_t *size, struct hl_error *err)
{
    struct objstore_uri u;
    if (need_handle(s, err) != 0 || objstore_uri_parse(uri, false, &u, err) != 0 ||
        check_root(s, &u, uri, err) != 0)
        return -1;
    if (u.scheme == OBJSTORE_FILE)
        return file_head(file_root(s), u.key, size, err);
    return s3_head(s->s3, u.bucket, u.key, size, err);
}

/* What every listing checks: a handle, not a view, a prefix and a callback. */
static int list_prefix(const struct objstore *s, const char *prefix_uri, bool has_fn,
                       struct objstore_uri *u, struct hl_error *err)
{
    if (need_handle(s, err) != 0 || objstore_uri_parse(prefix_uri, true, u, err) != 0)
        return -1;
    if (s->root)
        return os_fail(err, HL_ERR_FORBIDDEN, 0, false, "outside_root",
                       "listing through a confined view is not supported");
    if (!has_fn)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "list needs a callback");
    return 0;
}

int objstore_list_entries(struct objstore *s, const char *prefix_uri, unsigned flags,
                          int (*fn)(void *ctx, const struct objstore_entry *e), void *ctx,
                          struct hl_error *err)
{
    struct objstore_uri u;
    if (list_prefix(s, prefix_uri, fn != NULL, &u, err) != 0)
        return -1;
    if (u.scheme == OBJSTORE_FILE)
        return file_list(u.key, flags, fn, ctx, err);
    return s3_list(s->s3, u.bucket, u.key, s->list_page_size, fn, ctx, err);
}

int objstore_list_uploads(struct objstore *s, const char *prefix_uri,
                          int (*fn)(void *ctx, const struct objstore_upload *u), void *ctx,
                          struct hl_error *err)
{
    struct objstore_uri u;
    if (list_prefix(s, prefix_uri, fn != NULL, &u, err) != 0)
        return -1;
    if (u.scheme == OBJSTORE_FILE)
        return 0;
    return s3_list_uploads(s->s3, u.bucket, u.key, fn, ctx, err);
}

int objstore_abort_upload(struct objstore *s, const char *uri, const char *upload_id,
                          struct hl_error *err)
{
    struct objstore_uri u;
    if (need_handle(s, err) != 0 || objstore_uri_parse(uri, false, &u, err) != 0 ||
        check_root(s, &u, uri, err) != 0)
        return -1;
    if (u.scheme == OBJSTORE_FILE || !upload_id || !*upload_id)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "%s: only an S3 object has multipart uploads to abort", uri);
    return s3_abort_upload(s->s3, u.bucket, u.key, upload_id, err);
}

/* objstore_list's callback over objstore_list_entries'. */
struct list_plain {
    int (*fn)(void *ctx, const char *uri, uint64_t size);
    void *ctx;
};

static int list_plain_one(void *ctx, const struct objstore_entry *e)
{
    const struct list_plain *l = ctx;
    return l->fn(l->ctx, e->uri, e->size);
}

int objstore_list(struct objstore *s, const char *prefix_uri,
                  int (*fn)(void *ctx, const char *uri, uint64_t size), void *ctx,
                  struct hl_error *err)
{
    struct list_plain l = {fn, ctx};
    return objstore_list_entries(s, prefix_uri, 0, fn ? list_plain_one : NULL, &l, err);
}

/* Deletes keys[0..n) of one bucket, S3_DELETE_BATCH per request; every
 * batch is tried, the first failure reported. */
static int delete_bucket_run(struct objstore *s, const char *bucket, const char **keys, size_t n,
                             size_t *deleted, struct hl_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < n; i += S3_DELETE_BATCH) {
        size_t m = n - i < S3_DELETE_BATCH ? n - i : S3_DELETE_BATCH;
        size_t gone = 0;
        struct hl_error e;
        if (s3_delete_keys(s->s3, bucket, keys + i, m, &gone, &e) != 0 && rc == 0) {
            if (err)
                *err = e;
            rc = -1;
        }
        *deleted += gone;
    }
    return rc;
}

int objstore_delete(struct objstore *s, const char *const *uris, size_t n, size_t *deleted,
                    struct hl_error *err)
{
    size_t gone = 0;
    if (deleted)
        *deleted = 0;
    if (need_handle(s, err) != 0)
        return -1;
    if (n && !uris)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_argument",
                       "delete of %zu URIs from NULL", n);
    /* Validate everything first: a bad URI deletes nothing. */
    struct objstore_uri *u = calloc(n ? n : 1, sizeof *u);
    const char **keys = calloc(n ? n : 1, sizeof *keys);
    bool *done = calloc(n ? n : 1, sizeof *done);
    int rc = (!u || !keys || !done) ? os_nomem(err) : 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = objstore_uri_parse(uris[i], false, &u[i], err) != 0 ||
                     check_root(s, &u[i], uris[i], err) != 0
                 ? -1
                 : 0;
    /* Then every object is attempted; the first failure is reported. */
    bool failed = false;
    struct hl_error e;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (done[i])
            continue;
        int r;
        if (u[i].scheme == OBJSTORE_FILE) {
            bool existed = false;
            r = file_delete(file_root(s), u[i].key, &existed, &e);
            gone += existed;
            done[i] = true;
        } else {
            /* Every remaining key of this bucket, in one run. */
            size_t m = 0;
            for (size_t j = i; j < n; j++) {
                if (!done[j] && u[j].scheme == OBJSTORE_S3 &&
                    strcmp(u[j].bucket, u[i].bucket) == 0) {
                    keys[m++] = u[j].key;
                    done[j] = true;
                }
            }
            r = delete_bucket_run(s, u[i].bucket, keys, m, &gone, &e);
        }
        if (r != 0 && !failed) {
            failed = true;
            if (err)
                *err = e;
        }
    }
    if (failed)
        rc = -1;
    free(u);
    free(keys);
    free(done);
    if (deleted)
        *deleted = gone;
    return rc;
}
