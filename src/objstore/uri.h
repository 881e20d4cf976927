/* Object URIs: `file:///abs/path` and `s3://bucket/key`. */
#ifndef HL_OBJSTORE_URI_H
#define HL_OBJSTORE_URI_H

#include <stdbool.h>

#include "hoglake/error.h"

enum objstore_scheme { OBJSTORE_FILE, OBJSTORE_S3 };

enum { OBJSTORE_BUCKET_MAX = 63, OBJSTORE_KEY_MAX = 1024, OBJSTORE_PATH_MAX = 4095 };

struct objstore_uri {
    enum objstore_scheme scheme;
    char bucket[OBJSTORE_BUCKET_MAX + 1]; /* s3 only */
    /* Points into the parsed string: s3, the key after "bucket/" ("" when
     * none); file, the absolute path (from its leading '/'). */
    const char *key;
};

/* Parses uri into *out. An object URI needs a key (s3) or a path that does
 * not end in '/' (file); a prefix URI (as_prefix) may have an empty key or
 * end in '/'. file paths must be absolute with no empty, `.` or `..`
 * segment; s3 buckets follow the S3 naming rules (3-63 of [a-z0-9.-],
 * starting and ending alphanumeric), keys are valid UTF-8 of at most 1024
 * bytes. No control characters anywhere. Returns 0, or -1 with
 * HL_ERR_INVALID_ARGUMENT saying what is wrong. */
int objstore_uri_parse(const char *uri, bool as_prefix, struct objstore_uri *out,
                       struct hl_error *err);

#endif
