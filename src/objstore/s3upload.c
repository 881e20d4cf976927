/* S3 uploads: the single PUT, and the streamed multipart upload that both
 * s3_put (for objects larger than a part) and objstore_writer use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objstore/errors.h"
#include "objstore/objstore.h"
#include "objstore/s3.h"
#include "objstore/s3xml.h"

enum {
    S3_MAX_PARTS = 10000,       /* S3's limit on part numbers */
    PART_BUF_FIRST = 64 * 1024, /* a small object holds little memory */
};

static int put_single(struct s3_client *c, const char *bucket, const char *key, const void *data,
                      size_t len, unsigned flags, struct hl_error *err)
{
    struct s3_request r = s3_request_for("PUT", bucket, key, NULL, 0);
    r.body = data ? data : "";
    r.body_len = len;
    r.if_none_match = (flags & OBJSTORE_IF_NONE_MATCH) != 0;
    return s3_call(c, &r, NULL, err);
}

int s3_abort_upload(struct s3_client *c, const char *bucket, const char *key, const char *upload_id,
                    struct hl_error *err)
{
    struct sigv4_kv q[] = {{"uploadId", upload_id}};
    struct s3_request r = s3_request_for("DELETE", bucket, key, q, 1);
    struct hl_error e;
    if (s3_call(c, &r, NULL, &e) == 0 || e.status == HL_ERR_NOT_FOUND)
        return 0;
    if (err)
        *err = e;
    return -1;
}

static void abort_upload(struct s3_client *c, const char *bucket, const char *key,
                         const char *upload_id)
{
    struct hl_error e;
    if (s3_abort_upload(c, bucket, key, upload_id, &e) != 0)
        s3_client_warn(c, "objstore: aborting a failed multipart upload: %s", e.message);
}

static int start_upload(struct s3_client *c, const char *bucket, const char *key,
                        struct buf *upload_id, struct hl_error *err)
{
    struct sigv4_kv q[] = {{"uploads", ""}};
    struct buf body = BUF_INIT;
    struct s3_request r = s3_request_for("POST", bucket, key, q, 1);
    r.body = "";
    r.out = &body;
    r.out_max = 1 << 20;
    int rc = s3_call(c, &r, NULL, err);
    if (rc == 0) {
        int x = s3xml_first(body.data ? body.data : "", body.len, "UploadId", upload_id);
        if (x == S3XML_NOMEM)
            rc = os_nomem(err);
        else if (x != S3XML_OK || upload_id->len == 0)
            rc = s3_bad_answer(err, "CreateMultipartUpload", bucket, key);
    }
    buf_free(&body);
    return rc;
}

static int put_part(struct s3_client *c, const char *bucket, const char *key, const char *upload_id,
                    int number, const void *data, size_t len, struct buf *complete,
                    struct hl_error *err)
{
    char num[16];
    snprintf(num, sizeof num, "%d", number);
    struct sigv4_kv q[] = {{"partNumber", num}, {"uploadId", upload_id}};
    struct s3_request r = s3_request_for("PUT", bucket, key, q, 2);
    r.body = data;
    r.body_len = len;
    struct s3_response resp;
    if (s3_call(c, &r, &resp, err) != 0)
        return -1;
    if (!resp.etag[0])
        return os_fail(err, HL_ERR_PROTOCOL, 0, false, "protocol",
                       "UploadPart s3://%s/%.300s: no ETag in the answer", bucket, key);
    if (buf_printf(complete, "<Part><PartNumber>%d</PartNumber><ETag>", number) != 0 ||
        s3xml_escape(complete, resp.etag) != 0 || buf_puts(complete, "</ETag></Part>") != 0)
        return os_nomem(err);
    return 0;
}

static int finish_upload(struct s3_client *c, const char *bucket, const char *key,
                         const char *upload_id, const struct buf *complete, unsigned flags,
                         struct hl_error *err)
{
    struct sigv4_kv q[] = {{"uploadId", upload_id}};
    struct buf answer = BUF_INIT;
    struct s3_request r = s3_request_for("POST", bucket, key, q, 1);
    r.body = complete->data;
    r.body_len = complete->len;
    r.content_type = "application/xml";
    r.if_none_match = (flags & OBJSTORE_IF_NONE_MATCH) != 0;
    r.out = &answer;
    r.out_max = 1 << 20;
    int rc = s3_call(c, &r, NULL, err);
    buf_free(&answer);
    return rc;
}

/* ---- the streamed upload ---- */

struct s3_writer {
    struct s3_client *c;
    char *bucket, *key;
    unsigned flags;
    uint8_t *part; /* bytes not uploaded yet: at most one part */
    size_t part_len, part_cap;
    struct buf upload_id; /* empty until the multipart upload exists */
    struct buf complete;  /* the CompleteMultipartUpload body so far */
    int parts;            /* uploaded so far */
    uint64_t size;
    bool failed;
    struct hl_error failure; /* the first error, reported again after it */
};

static void writer_free(struct s3_writer *w)
{
    free(w->bucket);
    free(w->key);
    free(w->part);
    buf_free(&w->upload_id);
    buf_free(&w->complete);
    free(w);
}

int s3_writer_open(struct s3_client *c, const char *bucket, const char *key, unsigned flags,
                   struct s3_writer **out, struct hl_error *err)
{
    *out = NULL;
    struct s3_writer *w = calloc(1, sizeof *w);
    if (!w)
        return os_nomem(err);
    w->c = c;
    w->flags = flags;
    w->bucket = strdup(bucket);
    w->key = strdup(key);
    if (!w->bucket || !w->key) {
        writer_free(w);
        return os_nomem(err);
    }
    *out = w;
    return 0;
}

static int report_failure(const struct s3_writer *w, struct hl_error *err)
{
    if (err)
        *err = w->failure;
    return -1;
}

/* The writer failed (w->failure says why): the upload is aborted now, so
 * that nothing lingers however the caller goes on. */
static int writer_fail(struct s3_writer *w, struct hl_error *err)
{
    w->failed = true;
    if (w->upload_id.len)
        abort_upload(w->c, w->bucket, w->key, w->upload_id.data);
    buf_reset(&w->upload_id);
    return report_failure(w, err);
}

/* Uploads one part, creating the multipart upload first when needed. */
static int upload_part(struct s3_writer *w, const void *data, size_t len)
{
    struct hl_error *e = &w->failure;
    if (w->parts == S3_MAX_PARTS)
        return os_fail(e, HL_ERR_INVALID_ARGUMENT, 0, false, "too_large",
                       "s3://%s/%.300s: an object of more than %d parts of %d bytes", w->bucket,
                       w->key, S3_MAX_PARTS, OBJSTORE_PART_SIZE);
    if (w->parts == 0) {
        if (start_upload(w->c, w->bucket, w->key, &w->upload_id, e) != 0)
            return -1;
        if (buf_puts(&w->complete, "<CompleteMultipartUpload>") != 0)
            return os_nomem(e);
    }
    if (put_part(w->c, w->bucket, w->key, w->upload_id.data, w->parts + 1, data, len, &w->complete,
                 e) != 0)
        return -1;
    w->parts++;
    return 0;
}

/* Room for n more buffered bytes (part_len + n <= OBJSTORE_PART_SIZE),
 * growing by doubling up to one part. */
static int part_reserve(struct s3_writer *w, size_t n)
{
    size_t need = w->part_len + n;
    if (need <= w->part_cap)
        return 0;
    size_t cap = w->part_cap ? w->part_cap : PART_BUF_FIRST;
    while (cap < need)
        cap *= 2;
    if (cap > OBJSTORE_PART_SIZE)
        cap = OBJSTORE_PART_SIZE;
    uint8_t *p = realloc(w->part, cap);
    if (!p)
        return -1;
    w->part = p;
    w->part_cap = cap;
    return 0;
}

int s3_writer_write(struct s3_writer *w, const void *data, size_t len, struct hl_error *err)
{
    if (w->failed)
        return report_failure(w, err);
    const uint8_t *p = data;
    while (len > 0) {
        /* A full part goes up only once more bytes follow it: an object of
         * exactly one part stays a single PUT, and the last part is never
         * empty. */
        if (w->part_len == OBJSTORE_PART_SIZE) {
            if (upload_part(w, w->part, w->part_len) != 0)
                return writer_fail(w, err);
            w->part_len = 0;
        }
        if (w->part_len == 0 && len > OBJSTORE_PART_SIZE) {
            /* Straight from the caller's bytes, no copy. */
            if (upload_part(w, p, OBJSTORE_PART_SIZE) != 0)
                return writer_fail(w, err);
            p += OBJSTORE_PART_SIZE;
            len -= OBJSTORE_PART_SIZE;
            w->size += OBJSTORE_PART_SIZE;
            continue;
        }
        size_t n = OBJSTORE_PART_SIZE - w->part_len;
        if (n > len)
            n = len;
        if (part_reserve(w, n) != 0) {
            os_nomem(&w->failure);
            return writer_fail(w, err);
        }
        memcpy(w->part + w->part_len, p, n);
        w->part_len += n;
        w->size += n;
        p += n;
        len -= n;
    }
    return 0;
}

int s3_writer_commit(struct s3_writer *w, uint64_t *size, struct hl_error *err)
{
    int rc;
    if (w->failed) {
        rc = report_failure(w, err);
    } else if (w->parts == 0 && !(w->flags & OBJSTORE_MULTIPART)) {
        rc = put_single(w->c, w->bucket, w->key, w->part, w->part_len, w->flags, err);
    } else {
        rc = upload_part(w, w->part, w->part_len);
        if (rc == 0 && buf_puts(&w->complete, "</CompleteMultipartUpload>") != 0)
            rc = os_nomem(&w->failure);
        if (rc == 0)
            rc = finish_upload(w->c, w->bucket, w->key, w->upload_id.data, &w->complete, w->flags,
                               &w->failure);
        if (rc != 0)
            writer_fail(w, err);
    }
    if (rc == 0 && size)
        *size = w->size;
    writer_free(w);
    return rc;
}

void s3_writer_abort(struct s3_writer *w)
{
    if (!w)
        return;
    if (w->upload_id.len)
        abort_upload(w->c, w->bucket, w->key, w->upload_id.data);
    writer_free(w);
}

int s3_put(struct s3_client *c, const char *bucket, const char *key, const void *data, size_t len,
           unsigned flags, struct hl_error *err)
{
    if (len <= OBJSTORE_PART_SIZE && !(flags & OBJSTORE_MULTIPART))
        return put_single(c, bucket, key, data, len, flags, err);
    struct s3_writer *w;
    if (s3_writer_open(c, bucket, key, flags, &w, err) != 0)
        return -1;
    if (s3_writer_write(w, data, len, err) != 0) {
        s3_writer_abort(w);
        return -1;
    }
    return s3_writer_commit(w, NULL, err);
}
