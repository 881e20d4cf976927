/* S3 operations over the transport in s3http.h: objects addressed by
 * bucket and key, semantics as objstore.h describes them. */
#ifndef HL_OBJSTORE_S3_H
#define HL_OBJSTORE_S3_H

#include <stddef.h>
#include <stdint.h>

#include "objstore/s3http.h"

/* One PUT up to OBJSTORE_PART_SIZE bytes, else a multipart upload that is
 * aborted when any step fails (an s3_writer fed the whole object). */
int s3_put(struct s3_client *c, const char *bucket, const char *key, const void *data, size_t len,
           unsigned flags, struct hl_error *err);

/* A streamed upload (s3upload.c), as objstore_writer_* describe it: bytes
 * are buffered up to one part; a full part is uploaded once more bytes
 * follow it (creating the multipart upload with the first), so an object
 * of at most one part goes up in a single PUT at commit. A failed write
 * aborts the upload at once and leaves the writer failed: later writes and
 * the commit report the same error. Commit and abort free the writer.
 * bucket and key are copied. */
struct s3_writer;
int s3_writer_open(struct s3_client *c, const char *bucket, const char *key, unsigned flags,
                   struct s3_writer **out, struct hl_error *err);
int s3_writer_write(struct s3_writer *w, const void *data, size_t len, struct hl_error *err);
int s3_writer_commit(struct s3_writer *w, uint64_t *size, struct hl_error *err);
void s3_writer_abort(struct s3_writer *w);

/* Shared by the operations: a request for bucket/key with the given query
 * (the caller adds the rest), and the error for an answer we cannot read. */
struct s3_request s3_request_for(const char *method, const char *bucket, const char *key,
                                 const struct sigv4_kv *query, size_t n_query);
int s3_bad_answer(struct hl_error *err, const char *what, const char *bucket, const char *key);
int s3_get(struct s3_client *c, const char *bucket, const char *key, uint64_t offset,
           uint64_t length, struct buf *out, struct hl_error *err);
int s3_head(struct s3_client *c, const char *bucket, const char *key, uint64_t *size,
            struct hl_error *err);
/* ListObjectsV2 pages of page_size keys, following continuation tokens;
 * fn gets "s3://bucket/key", its size and LastModified. */
struct objstore_entry;
int s3_list(struct s3_client *c, const char *bucket, const char *prefix, int page_size,
            int (*fn)(void *ctx, const struct objstore_entry *e), void *ctx, struct hl_error *err);
/* ListMultipartUploads of the keys under prefix, page by page (following
 * the key and upload-id markers); fn gets each incomplete upload with
 * its "s3://bucket/key". */
struct objstore_upload;
int s3_list_uploads(struct s3_client *c, const char *bucket, const char *prefix,
                    int (*fn)(void *ctx, const struct objstore_upload *u), void *ctx,
                    struct hl_error *err);
/* AbortMultipartUpload; an upload already gone (NoSuchUpload) is not an
 * error. */
int s3_abort_upload(struct s3_client *c, const char *bucket, const char *key, const char *upload_id,
                    struct hl_error *err);
/* One DeleteObjects request (n <= 1000, quiet mode); *deleted gets the keys
 * not reported as errors. The first reported error fails the call. */
int s3_delete_keys(struct s3_client *c, const char *bucket, const char *const *keys, size_t n,
                   size_t *deleted, struct hl_error *err);

enum { S3_DELETE_BATCH = 1000 };

#endif
