#include "objstore/s3.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objstore/errors.h"
#include "objstore/objstore.h"
#include "objstore/s3xml.h"
#include "util/base64.h"

int s3_bad_answer(struct hl_error *err, const char *what, const char *bucket, const char *key)
{
    return os_fail(err, HL_ERR_PROTOCOL, 0, false, "protocol",
                   "%s s3://%s/%.300s: cannot read the answer", what, bucket, key);
}

struct s3_request s3_request_for(const char *method, const char *bucket, const char *key,
                                 const struct sigv4_kv *query, size_t n_query)
{
    return (struct s3_request){
        .method = method, .bucket = bucket, .key = key, .query = query, .n_query = n_query};
}

/* ---- get / head ---- */

int s3_head(struct s3_client *c, const char *bucket, const char *key, uint64_t *size,
            struct hl_error *err)
{
    struct s3_request r = s3_request_for("HEAD", bucket, key, NULL, 0);
    r.head = true;
    struct s3_response resp;
    if (s3_call(c, &r, &resp, err) != 0)
        return -1;
    if (resp.content_length < 0)
        return os_fail(err, HL_ERR_PROTOCOL, 0, false, "protocol",
                       "HEAD s3://%s/%.300s: no Content-Length in the answer", bucket, key);
    if (size)
        *size = (uint64_t)resp.content_length;
    return 0;
}

int s3_get(struct s3_client *c, const char *bucket, const char *key, uint64_t offset,
           uint64_t length, struct buf *out, struct hl_error *err)
{
    if (length == 0)
        return s3_head(c, bucket, key, NULL, err);
    bool whole = offset == 0 && length == UINT64_MAX;
    bool to_end = length == UINT64_MAX || length - 1 > UINT64_MAX - offset;
    char range[64];
    if (to_end)
        snprintf(range, sizeof range, "bytes=%llu-", (unsigned long long)offset);
    else
        snprintf(range, sizeof range, "bytes=%llu-%llu", (unsigned long long)offset,
                 (unsigned long long)(offset + length - 1));
    size_t base = out->len;
    struct s3_request r = s3_request_for("GET", bucket, key, NULL, 0);
    r.range = whole ? NULL : range;
    r.out = out;
    struct s3_response resp;
    if (s3_call(c, &r, &resp, err) != 0)
        return -1;
    size_t got = out->len - base;
    if (!whole && resp.http == 200) {
        /* The server ignored Range and sent everything: keep the slice. */
        size_t from = offset < got ? (size_t)offset : got;
        size_t n = got - from;
        if (!to_end && length < n)
            n = (size_t)length;
        if (from == got && offset > 0) {
            out->len = base;
            out->data[base] = '\0';
            return os_fail(err, HL_ERR_INVALID_ARGUMENT, 416, false, "InvalidRange",
                           "GET s3://%s/%.300s: offset %llu is past the end (%zu bytes)", bucket,
                           key, (unsigned long long)offset, got);
        }
        memmove(out->data + base, out->data + base + from, n);
        out->len = base + n;
        out->data[out->len] = '\0';
    } else if (!to_end && got > length) {
        out->len = base;
        if (out->data)
            out->data[base] = '\0';
        return os_fail(err, HL_ERR_PROTOCOL, 0, false, "protocol",
                       "GET s3://%s/%.300s: the answer is longer than the range", bucket, key);
    }
    return 0;
}

/* ---- list ---- */

/* One kind of bucket listing (ListObjectsV2, ListMultipartUploads): its
 * query from the continuation markers the last page gave, and its page
 * parser, which hands each item to the caller's callback. */
struct lister {
    const char *what; /* the operation, for errors */
    const char *bucket;
    const char *prefix;
    struct buf marker[2]; /* the continuation the last page gave */
    struct buf uri;       /* the current item's URI */
    bool oom;
    size_t (*query)(struct lister *l, struct sigv4_kv *q); /* q holds 5 */
    int (*parse)(struct lister *l, const char *doc, size_t len, bool *truncated);
};

/* "s3://bucket/key" of the current item, or NULL (l->oom) without memory. */
static const char *item_uri(struct lister *l, const char *key)
{
    buf_reset(&l->uri);
    if (buf_printf(&l->uri, "s3://%s/%s", l->bucket, key) != 0) {
        l->oom = true;
        return NULL;
    }
    return l->uri.data;
}

/* Requests page after page until one is not truncated or a callback
 * stops; frees what the lister holds. */
static int list_pages(struct s3_client *c, struct lister *l, struct hl_error *err)
{
    struct buf page = BUF_INIT;
    int rc = 0;
    for (;;) {
        struct sigv4_kv q[5];
        size_t nq = l->query(l, q);
        buf_reset(&page);
        struct s3_request r = s3_request_for("GET", l->bucket, "", q, nq);
        r.out = &page;
        r.out_max = 64u << 20;
        if ((rc = s3_call(c, &r, NULL, err)) != 0)
            break;
        bool truncated = false;
        int x = l->parse(l, page.data ? page.data : "", page.len, &truncated);
        if (l->oom || x == S3XML_NOMEM) {
            rc = os_nomem(err);
            break;
        }
        if (x == S3XML_BAD) {
            rc = s3_bad_answer(err, l->what, l->bucket, l->prefix);
            break;
        }
        if (x == S3XML_STOP || !truncated)
            break;
    }
    buf_free(&page);
    buf_free(&l->marker[0]);
    buf_free(&l->marker[1]);
    buf_free(&l->uri);
    return rc;
}

struct object_lister {
    struct lister l; /* first: the parser gets it back */
    char max_keys[16];
    int (*fn)(void *ctx, const struct objstore_entry *e);
    void *ctx;
};

static size_t objects_query(struct lister *l, struct sigv4_kv *q)
{
    const struct object_lister *ol = (const struct object_lister *)l;
    q[0] = (struct sigv4_kv){"list-type", "2"};
    q[1] = (struct sigv4_kv){"max-keys", ol->max_keys};
    q[2] = (struct sigv4_kv){"prefix", l->prefix};
    if (!l->marker[0].len)
        return 3;
    q[3] = (struct sigv4_kv){"continuation-token", l->marker[0].data};
    return 4;
}

static int object_one(void *ud, const struct s3xml_object *o)
{
    struct object_lister *ol = ud;
    const char *uri = item_uri(&ol->l, o->key);
    if (!uri)
        return 1;
    struct objstore_entry e = {uri, o->size, o->mtime_s, false};
    return ol->fn(ol->ctx, &e);
}

static int objects_parse(struct lister *l, const char *doc, size_t len, bool *truncated)
{
    return s3xml_list_page(doc, len, object_one, l, truncated, &l->marker[0]);
}

int s3_list(struct s3_client *c, const char *bucket, const char *prefix, int page_size,
            int (*fn)(void *ctx, const struct objstore_entry *e), void *ctx, struct hl_error *err)
{
    struct object_lister ol = {.l = {.what = "ListObjectsV2",
                                     .bucket = bucket,
                                     .prefix = prefix,
                                     .marker = {BUF_INIT, BUF_INIT},
                                     .uri = BUF_INIT,
                                     .query = objects_query,
                                     .parse = objects_parse},
                               .fn = fn,
                               .ctx = ctx};
    snprintf(ol.max_keys, sizeof ol.max_keys, "%d", page_size);
    return list_pages(c, &ol.l, err);
}

/* ---- incomplete multipart uploads ---- */

struct upload_lister {
    struct lister l; /* first: the parser gets it back */
    int (*fn)(void *ctx, const struct objstore_upload *u);
    void *ctx;
};

static size_t uploads_query(struct lister *l, struct sigv4_kv *q)
{
    size_t n = 0;
    q[n++] = (struct sigv4_kv){"uploads", ""};
    q[n++] = (struct sigv4_kv){"prefix", l->prefix};
    if (l->marker[0].len)
        q[n++] = (struct sigv4_kv){"key-marker", l->marker[0].data};
    if (l->marker[1].len)
        q[n++] = (struct sigv4_kv){"upload-id-marker", l->marker[1].data};
    return n;
}

static int upload_one(void *ud, const struct s3xml_upload *x)
{
    struct upload_lister *ul = ud;
    const char *uri = item_uri(&ul->l, x->key);
    if (!uri)
        return 1;
    struct objstore_upload u = {uri, x->upload_id, x->initiated_s};
    return ul->fn(ul->ctx, &u);
}

static int uploads_parse(struct lister *l, const char *doc, size_t len, bool *truncated)
{
    return s3xml_uploads_page(doc, len, upload_one, l, truncated, &l->marker[0], &l->marker[1]);
}

int s3_list_uploads(struct s3_client *c, const char *bucket, const char *prefix,
                    int (*fn)(void *ctx, const struct objstore_upload *u), void *ctx,
                    struct hl_error *err)
{
    struct upload_lister ul = {.l = {.what = "ListMultipartUploads",
                                     .bucket = bucket,
                                     .prefix = prefix,
                                     .marker = {BUF_INIT, BUF_INIT},
                                     .uri = BUF_INIT,
                                     .query = uploads_query,
                                     .parse = uploads_parse},
                               .fn = fn,
                               .ctx = ctx};
    return list_pages(c, &ul.l, err);
}

/* ---- delete ---- */

static int md5_base64(const struct buf *body, struct buf *out)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_Digest(body->data, body->len, d, &n, EVP_md5(), NULL) != 1)
        return -1;
    return base64_encode(out, d, n);
}

/* Reads the <Error> entries of a quiet DeleteResult: counts them and
 * reports the first into *err. */
static int delete_errors(const struct buf *answer, const char *bucket, size_t *errors,
                         struct hl_error *err)
{
    size_t pos = 0, n = 0;
    const char *t;
    size_t tl;
    const char *doc = answer->data ? answer->data : "";
    while (s3xml_next(doc, answer->len, &pos, "Error", &t, &tl)) {
        if (n++ > 0)
            continue;
        struct buf key = BUF_INIT, code = BUF_INIT, msg = BUF_INIT;
        s3xml_first(t, tl, "Key", &key);
        s3xml_first(t, tl, "Code", &code);
        s3xml_first(t, tl, "Message", &msg);
        const char *cs = code.data ? code.data : "unknown";
        os_fail(err, HL_ERR_IO, 200, s3_retryable_code(cs), cs,
                "DeleteObjects s3://%s/%.300s: %s: %.300s", bucket, key.data ? key.data : "?", cs,
                msg.data ? msg.data : "no detail");
        buf_free(&key);
        buf_free(&code);
        buf_free(&msg);
    }
    *errors = n;
    return n ? -1 : 0;
}

int s3_delete_keys(struct s3_client *c, const char *bucket, const char *const *keys, size_t n,
                   size_t *deleted, struct hl_error *err)
{
    *deleted = 0;
    if (n == 0)
        return 0;
    struct buf body = BUF_INIT, md5 = BUF_INIT, answer = BUF_INIT;
    int rc = buf_puts(&body, "<Delete><Quiet>true</Quiet>");
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = buf_puts(&body, "<Object><Key>");
        if (rc == 0)
            rc = s3xml_escape(&body, keys[i]);
        if (rc == 0)
            rc = buf_puts(&body, "</Key></Object>");
    }
    if (rc == 0)
        rc = buf_puts(&body, "</Delete>");
    if (rc == 0)
        rc = md5_base64(&body, &md5);
    if (rc != 0) {
        rc = os_nomem(err);
    } else {
        struct sigv4_kv q[] = {{"delete", ""}};
        struct s3_request r = s3_request_for("POST", bucket, "", q, 1);
        r.body = body.data;
        r.body_len = body.len;
        r.content_type = "application/xml";
        r.content_md5 = md5.data;
        r.out = &answer;
        r.out_max = 16u << 20;
        rc = s3_call(c, &r, NULL, err);
        if (rc == 0) {
            size_t errors = 0;
            rc = delete_errors(&answer, bucket, &errors, err);
            *deleted = n - (errors < n ? errors : n);
        }
    }
    buf_free(&body);
    buf_free(&md5);
    buf_free(&answer);
    return rc;
}
