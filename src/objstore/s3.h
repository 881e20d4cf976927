/* S3 operations over the transport in s3http.h: objects addressed by
 * bucket and key, semantics as objstore.h describes them. */
#ifndef HL_OBJSTORE_S3_H
#define HL_OBJSTORE_S3_H

#include <stddef.h>
#include <stdint.h>

#include "objstore/s3http.h"

/* One PUT up to OBJSTORE_PART_SIZE bytes, else a multipart upload that is
 * aborted when any step fails. */
int s3_put(struct s3_client *c, const char *bucket, const char *key, const void *data, size_t len,
           unsigned flags, struct hl_error *err);
int s3_get(struct s3_client *c, const char *bucket, const char *key, uint64_t offset,
           uint64_t length, struct buf *out, struct hl_error *err);
int s3_head(struct s3_client *c, const char *bucket, const char *key, uint64_t *size,
            struct hl_error *err);
/* ListObjectsV2 pages of page_size keys, following continuation tokens;
 * fn gets "s3://bucket/key". */
int s3_list(struct s3_client *c, const char *bucket, const char *prefix, int page_size,
            int (*fn)(void *ctx, const char *uri, uint64_t size), void *ctx, struct hl_error *err);
/* One DeleteObjects request (n <= 1000, quiet mode); *deleted gets the keys
 * not reported as errors. The first reported error fails the call. */
int s3_delete_keys(struct s3_client *c, const char *bucket, const char *const *keys, size_t n,
                   size_t *deleted, struct hl_error *err);

enum { S3_DELETE_BATCH = 1000 };

#endif
