/* The object store client: file:// and s3:// objects behind one interface.
 *
 * URIs: `file:///abs/dir/key` (an absolute path; no `.`/`..`/empty
 * segments) and `s3://bucket/key`. S3 requests are signed with AWS SigV4
 * over the real payload hash and sent through libcurl; an endpoint given
 * in the config or in AWS_ENDPOINT_URL is addressed path-style
 * (endpoint/bucket/key), AWS itself virtual-hosted.
 *
 * Every function returns 0, or -1 with *err filled (err may be NULL):
 *   HL_ERR_NOT_FOUND        the object does not exist
 *   HL_ERR_ALREADY_EXISTS   OBJSTORE_IF_NONE_MATCH and the object exists
 *   HL_ERR_INVALID_ARGUMENT a bad URI, range or configuration
 *   HL_ERR_TIMEOUT          no answer in time (retryable; outcome unknown)
 *   HL_ERR_IO               transport or storage failure; `retryable` says
 *                           whether the same call may succeed later, `code`
 *                           holds the S3 error code when there was one
 *   HL_ERR_NOMEM, HL_ERR_PROTOCOL (an S3 answer we cannot parse)
 * Transient failures (5xx, 429, SlowDown, RequestTimeout, timeouts,
 * connection failures) are retried inside each call, up to max_retries
 * times with exponential backoff and jitter, resending the body.
 * No error message or log line ever holds a secret key, session token,
 * Authorization header or signature. */
#ifndef HL_OBJSTORE_OBJSTORE_H
#define HL_OBJSTORE_OBJSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/error.h"
#include "util/buf.h"
#include "util/log.h"

struct objstore_config {
    const char *s3_endpoint; /* "http://127.0.0.1:9000"; NULL = env AWS_ENDPOINT_URL, else AWS
                                (https://s3.<region>.amazonaws.com, virtual-hosted) */
    const char *s3_region;   /* NULL = env AWS_REGION, else us-east-1 */
    const char *s3_access_key, *s3_secret_key, *s3_session_token; /* NULL = env */
    long connect_timeout_ms;                                      /* 0 = 10000 */
    long timeout_ms;                                              /* per request; 0 = 300000 */
    int max_retries;                                              /* 0 = 3; -1 = none */
    /* Retry and cleanup warnings; fn NULL: the process log. */
    struct log_sink log;
};

/* OBJSTORE_MULTIPART: on S3, every object goes up as a multipart upload
 * (create, parts, complete: three requests for a small one) where one PUT
 * would do; file:// ignores it. */
enum { OBJSTORE_IF_NONE_MATCH = 1, OBJSTORE_MULTIPART = 2 };

/* Objects up to this size go in one PUT; larger ones as a multipart upload
 * of parts this size (the last one shorter), by objstore_put and
 * objstore_writer alike. */
enum { OBJSTORE_PART_SIZE = 8 * 1024 * 1024 };

/* Thread-safe: calls may run concurrently on one handle. The config's
 * strings are copied; cfg may be NULL (all defaults). */
struct objstore;
int objstore_open(const struct objstore_config *cfg, struct objstore **out, struct hl_error *err);
void objstore_free(struct objstore *s);

/* Writes the object whole: atomically replaced (file:// renames a synced
 * temp file; S3 replaces on completion). With OBJSTORE_IF_NONE_MATCH the
 * write fails with HL_ERR_ALREADY_EXISTS when the object exists. file://
 * creates missing parent directories.
 * On S3 a retry after a lost answer cannot know the first attempt's fate:
 * a conditional put may then report HL_ERR_ALREADY_EXISTS for its own
 * write, and a multipart completion HL_ERR_NOT_FOUND (NoSuchUpload);
 * callers that must know read the object back. */
int objstore_put(struct objstore *s, const char *uri, const void *data, size_t len, unsigned flags,
                 struct hl_error *err);

/* Streams an object in: bytes go out as they come, and nothing is visible
 * at uri until the commit, which publishes the object as objstore_put
 * would (same atomicity, same OBJSTORE_IF_NONE_MATCH semantics, checked
 * at commit). Memory held: on S3 at most one part (OBJSTORE_PART_SIZE);
 * on file:// none (the bytes go to a temp file beside the target, which
 * listings skip).
 *   S3: bytes are buffered up to one part; a full part is uploaded once
 *     more bytes follow it, the multipart upload being created with the
 *     first. An object that never outgrew one part goes up in one PUT at
 *     commit (one request, as with objstore_put); otherwise the commit
 *     uploads the last part and completes the upload. Each request is
 *     retried as objstore_put's are, with its body.
 *   file://: open creates the parent directories and the temp file; the
 *     commit fsyncs it, renames it over uri (links it, for
 *     OBJSTORE_IF_NONE_MATCH) and fsyncs the directory.
 * A failed write abandons the object at once (the multipart upload is
 * aborted, the temp file removed): later writes and the commit return the
 * same error, and the writer still has to be committed or aborted to be
 * freed. Ownership: open gives the caller the writer; commit and abort
 * free it whatever their outcome. One writer is used by one thread at a
 * time; writers on one handle may run in parallel, and the handle must
 * outlive them. */
struct objstore_writer;
int objstore_writer_open(struct objstore *s, const char *uri, unsigned flags,
                         struct objstore_writer **out, struct hl_error *err);
/* Appends data[0..len); data may be NULL when len is 0. */
int objstore_writer_write(struct objstore_writer *w, const void *data, size_t len,
                          struct hl_error *err);
/* Makes the object visible; *size (may be NULL) gets its length. */
int objstore_writer_commit(struct objstore_writer *w, uint64_t *size, struct hl_error *err);
/* Abandons the object (aborts the multipart upload, removes the temp
 * file; a failure there is only logged); w may be NULL. */
void objstore_writer_abort(struct objstore_writer *w);

/* Appends bytes [offset, offset+length) of the object to *out, fewer when
 * the object ends first; length UINT64_MAX reads to the end. An offset at
 * or past the end is HL_ERR_INVALID_ARGUMENT, except a whole read (0,
 * UINT64_MAX) of an empty object. On failure *out is as it was. */
int objstore_get(struct objstore *s, const char *uri, uint64_t offset, uint64_t length,
                 struct buf *out, struct hl_error *err);

/* Reads the whole object into the empty *out; it must hold exactly `size`
 * bytes. At most size + 1 bytes are read, so an object that grew since it
 * was recorded costs no more memory than its record promised. Another
 * size is HL_ERR_FORBIDDEN with code "size_mismatch". On failure *out is
 * left empty. */
int objstore_get_sized(struct objstore *s, const char *uri, uint64_t size, struct buf *out,
                       struct hl_error *err);

int objstore_head(struct objstore *s, const char *uri, uint64_t *size, struct hl_error *err);

/* Calls fn for each object whose URI starts with prefix_uri (a string
 * prefix, as S3 means it: "s3://b/a/x" matches "s3://b/a/xy/z"), in byte
 * order of the key, with its full URI and size; fn returning nonzero stops
 * the listing (objstore_list then returns 0). file:// lists regular files
 * only and skips the temp files of puts in progress. */
int objstore_list(struct objstore *s, const char *prefix_uri,
                  int (*fn)(void *ctx, const char *uri, uint64_t size), void *ctx,
                  struct hl_error *err);

/* One listed object, as objstore_list_entries reports it. */
struct objstore_entry {
    const char *uri; /* the full URI (valid during the call only) */
    uint64_t size;
    int64_t mtime_s; /* last modified, seconds since the epoch (S3 LastModified,
                        file:// st_mtime); 0 when the store did not say */
    bool temp;       /* a temp file of a file:// put in progress (OBJSTORE_LIST_TEMP) */
};

/* Listing flags (file:// only; S3 has neither temp files nor links):
 * OBJSTORE_LIST_TEMP also lists the temp files of puts in progress (a
 * writer that died leaves them behind); OBJSTORE_LIST_NO_LINKS does not
 * follow a symbolic link at the directory holding the prefix either (the
 * listing is then empty), where objstore_list follows it. */
enum { OBJSTORE_LIST_TEMP = 1, OBJSTORE_LIST_NO_LINKS = 2 };

/* objstore_list with each object's age: fn gets every object under
 * prefix_uri as objstore_list would, and the temp files with
 * OBJSTORE_LIST_TEMP (temp set). file:// never follows a symbolic link
 * below the directory holding the prefix: a linked directory is neither
 * listed nor entered, a linked file is not listed. S3 lists page by page
 * (ListObjectsV2), calling fn as each page arrives. */
int objstore_list_entries(struct objstore *s, const char *prefix_uri, unsigned flags,
                          int (*fn)(void *ctx, const struct objstore_entry *e), void *ctx,
                          struct hl_error *err);

/* An incomplete S3 multipart upload, as objstore_list_uploads reports it. */
struct objstore_upload {
    const char *uri;       /* the object it would create (valid during the call only) */
    const char *upload_id; /* likewise */
    int64_t initiated_s;   /* seconds since the epoch; 0 when the store did not say */
};

/* Calls fn for each incomplete multipart upload whose key starts with
 * prefix_uri (S3 ListMultipartUploads, page by page; file:// has none and
 * returns 0 at once); fn returning nonzero stops the listing. Not
 * available through a view. A writer that died mid-upload leaves one
 * behind, holding its parts' bytes until it is aborted. */
int objstore_list_uploads(struct objstore *s, const char *prefix_uri,
                          int (*fn)(void *ctx, const struct objstore_upload *u), void *ctx,
                          struct hl_error *err);

/* Aborts the multipart upload upload_id of uri (S3 only: a file:// uri is
 * HL_ERR_INVALID_ARGUMENT), freeing its parts; one already gone is not an
 * error. Through a view, uri must lie beneath the view's root. */
int objstore_abort_upload(struct objstore *s, const char *uri, const char *upload_id,
                          struct hl_error *err);

/* Deletes the objects (any mix of schemes and buckets; S3 in batches of up
 * to 1000 keys per request). A missing object counts as deleted on S3,
 * which cannot tell; file:// does not count it. *deleted (may be NULL)
 * gets how many went. Every URI is attempted; the first failure is
 * reported. */
int objstore_delete(struct objstore *s, const char *const *uris, size_t n, size_t *deleted,
                    struct hl_error *err);

/* A view of s confined to root_uri (a catalog's data path: file:///dir or
 * s3://bucket/prefix), for the server acting on what clients registered.
 * Every call through it refuses a URI outside the root with
 * HL_ERR_FORBIDDEN, code "outside_root" (on S3 also a key with an empty,
 * "." or ".." segment below the root); on file:// every path is resolved
 * beneath the root without following a symbolic link anywhere, the root
 * included (code "symlink"), and only regular files are read or deleted
 * (code "not_regular_file"). A refused delete deletes nothing. Listing is
 * not available through a view. The view borrows s's S3 client: free it
 * (objstore_free) before s. */
int objstore_confine(struct objstore *s, const char *root_uri, struct objstore **view,
                     struct hl_error *err);

/* Tests and tools: keys per ListObjectsV2 page (clamped to 1..1000;
 * default 1000). Not synchronised: call it before sharing the handle. */
void objstore_set_list_page_size(struct objstore *s, int keys);

#endif
