/* The little XML S3 speaks, read and written minimally: leaf elements
 * found by exact tag name, the five predefined entities and numeric
 * character references decoded, nothing else (no DTDs, no CDATA: S3 does
 * not send them, and anything unexpected is rejected, not guessed). */
#ifndef HL_OBJSTORE_S3XML_H
#define HL_OBJSTORE_S3XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

enum { S3XML_OK = 0, S3XML_NOMEM = -1, S3XML_BAD = -2, S3XML_STOP = 1 };

/* Bytes: the first occurrence of needle[0..m) in hay[0..n), or NULL. */
const char *s3xml_find(const char *hay, size_t n, const char *needle, size_t m);

/* Finds the next <tag>...</tag> (no attributes) starting at *pos in
 * doc[0..len): its raw inner text goes to *text and *text_len, and *pos moves
 * past the closing tag. False when there is none. */
bool s3xml_next(const char *doc, size_t len, size_t *pos, const char *tag, const char **text,
                size_t *text_len);

/* Appends s[0..n) with entities decoded. S3XML_OK, _NOMEM or _BAD (an
 * unknown entity, a reference to NUL or past U+10FFFF, a stray '<'). */
int s3xml_decode(struct buf *out, const char *s, size_t n);

/* The decoded text of the first <tag> in doc[0..len), appended to out:
 * S3XML_OK, S3XML_STOP when there is no such element, _NOMEM or _BAD. */
int s3xml_first(const char *doc, size_t len, const char *tag, struct buf *out);

/* Appends s escaped for element text (& < > " '). */
int s3xml_escape(struct buf *out, const char *s);

/* One <Contents> of a listing page. */
struct s3xml_object {
    const char *key; /* decoded */
    uint64_t size;
    int64_t mtime_s; /* <LastModified> in seconds since the epoch; 0 when it is
                        missing or not an ISO-8601 instant */
};

/* One ListObjectsV2 page: calls fn for every <Contents> (its Key, Size and
 * LastModified) in order; fills *truncated from <IsTruncated> and
 * next_token (reset first) from <NextContinuationToken>. S3XML_OK,
 * S3XML_STOP when fn returned nonzero, _NOMEM or _BAD. */
int s3xml_list_page(const char *doc, size_t len, int (*fn)(void *ctx, const struct s3xml_object *o),
                    void *ctx, bool *truncated, struct buf *next_token);

/* One <Upload> of a ListMultipartUploads page. */
struct s3xml_upload {
    const char *key; /* decoded */
    const char *upload_id;
    int64_t initiated_s; /* <Initiated> in seconds since the epoch; 0 when missing */
};

/* One ListMultipartUploads page: calls fn for every <Upload> in order;
 * fills *truncated, next_key (<NextKeyMarker>) and next_upload_id
 * (<NextUploadIdMarker>). Returns as s3xml_list_page. */
int s3xml_uploads_page(const char *doc, size_t len,
                       int (*fn)(void *ctx, const struct s3xml_upload *u), void *ctx,
                       bool *truncated, struct buf *next_key, struct buf *next_upload_id);

#endif
