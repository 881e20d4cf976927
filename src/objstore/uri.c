#include "objstore/uri.h"

#include <string.h>

#include "objstore/errors.h"
#include "util/strutil.h"

static int bad(struct hl_error *err, const char *uri, const char *why)
{
    return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_uri", "object URI '%.200s': %s",
                   uri, why);
}

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int parse_file(const char *uri, const char *path, bool as_prefix, struct objstore_uri *out,
                      struct hl_error *err)
{
    if (path[0] != '/')
        return bad(err, uri, "a file URI is file:///absolute/path (no host)");
    size_t n = strlen(path);
    if (n > OBJSTORE_PATH_MAX)
        return bad(err, uri, "path too long");
    if (!as_prefix && path[n - 1] == '/')
        return bad(err, uri, "an object path must not end in '/'");
    /* Walk the segments between slashes; a prefix may end in one. */
    for (const char *seg = path + 1; *seg;) {
        const char *end = strchr(seg, '/');
        size_t len = end ? (size_t)(end - seg) : strlen(seg);
        if (len == 0)
            return bad(err, uri, "empty path segment");
        if ((len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
            return bad(err, uri, "'.' and '..' segments are not allowed");
        if (!end)
            break;
        seg = end + 1;
    }
    out->scheme = OBJSTORE_FILE;
    out->bucket[0] = '\0';
    out->key = path;
    return 0;
}

static int parse_s3(const char *uri, const char *rest, bool as_prefix, struct objstore_uri *out,
                    struct hl_error *err)
{
    const char *slash = strchr(rest, '/');
    size_t blen = slash ? (size_t)(slash - rest) : strlen(rest);
    if (blen < 3 || blen > OBJSTORE_BUCKET_MAX)
        return bad(err, uri, "the bucket name must be 3 to 63 characters");
    for (size_t i = 0; i < blen; i++)
        if (!is_lower_alnum(rest[i]) && rest[i] != '.' && rest[i] != '-')
            return bad(err, uri, "the bucket name may hold only a-z, 0-9, '.' and '-'");
    if (!is_lower_alnum(rest[0]) || !is_lower_alnum(rest[blen - 1]))
        return bad(err, uri, "the bucket name must start and end with a letter or digit");
    const char *key = slash ? slash + 1 : rest + blen;
    size_t klen = strlen(key);
    if (!as_prefix && klen == 0)
        return bad(err, uri, "an object URI needs a key after the bucket");
    if (klen > OBJSTORE_KEY_MAX)
        return bad(err, uri, "the key is longer than 1024 bytes");
    if (!str_utf8_valid(key, klen, NULL))
        return bad(err, uri, "the key is not valid UTF-8");
    memcpy(out->bucket, rest, blen);
    out->bucket[blen] = '\0';
    out->scheme = OBJSTORE_S3;
    out->key = key;
    return 0;
}

int objstore_uri_parse(const char *uri, bool as_prefix, struct objstore_uri *out,
                       struct hl_error *err)
{
    if (!uri || !out)
        return os_fail(err, HL_ERR_INVALID_ARGUMENT, 0, false, "invalid_uri",
                       "an object URI is required");
    if (str_has_control(uri))
        return bad(err, uri, "control characters are not allowed");
    if (str_starts_with(uri, "file://"))
        return parse_file(uri, uri + 7, as_prefix, out, err);
    if (str_starts_with(uri, "s3://"))
        return parse_s3(uri, uri + 5, as_prefix, out, err);
    return bad(err, uri, "only file:// and s3:// URIs are supported");
}
