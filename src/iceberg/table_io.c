/* Iceberg metadata versions in object storage (see table_io.h). */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/table_io.h"
#include "objstore/objstore.h"
#include "util/error.h"
#include "util/log.h"

/* Probing past a stale hint stops here and lists instead. */
enum { HINT_PROBES = 16 };

static int fail(struct hl_error *err, hl_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct hl_error *err, hl_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_setv(err, st, 0, false, st == HL_ERR_NOMEM ? "out_of_memory" : "invalid_argument", fmt,
               ap);
    va_end(ap);
    return -1;
}

/* The location without trailing slashes. */
static int base_len(const char *location)
{
    size_t n = strlen(location);
    while (n > 0 && location[n - 1] == '/')
        n--;
    return (int)n;
}

int iceberg_metadata_uri(const char *location, int64_t version, char *out, size_t size)
{
    int n = snprintf(out, size, "%.*s/metadata/v%" PRId64 ".metadata.json", base_len(location),
                     location, version);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static int hint_uri(const char *location, char *out, size_t size)
{
    int n = snprintf(out, size, "%.*s/metadata/version-hint.text", base_len(location), location);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Whether version v exists (a HEAD); -1 on an error other than absence. */
static int version_exists(struct objstore *store, const char *location, int64_t v,
                          struct hl_error *err)
{
    char uri[4096];
    if (iceberg_metadata_uri(location, v, uri, sizeof uri) != 0)
        return fail(err, HL_ERR_INVALID_ARGUMENT, "the table location is too long");
    uint64_t size;
    struct hl_error e;
    if (objstore_head(store, uri, &size, &e) == 0)
        return 1;
    if (e.status == HL_ERR_NOT_FOUND)
        return 0;
    if (err)
        *err = e;
    return -1;
}

/* The version a name v<N>.metadata.json stands for, or 0. */
static int64_t version_of_name(const char *name)
{
    if (name[0] != 'v' || !isdigit((unsigned char)name[1]))
        return 0;
    char *end;
    long long v = strtoll(name + 1, &end, 10);
    return v > 0 && strcmp(end, ".metadata.json") == 0 ? (int64_t)v : 0;
}

struct newest {
    int64_t version;
};

static int note_version(void *ctx, const char *uri, uint64_t size)
{
    (void)size;
    struct newest *n = ctx;
    const char *slash = strrchr(uri, '/');
    int64_t v = version_of_name(slash ? slash + 1 : uri);
    if (v > n->version)
        n->version = v;
    return 0;
}

/* The highest version the metadata directory holds (0: none). */
static int list_newest(struct objstore *store, const char *location, int64_t *version,
                       struct hl_error *err)
{
    char prefix[4096];
    int n = snprintf(prefix, sizeof prefix, "%.*s/metadata/v", base_len(location), location);
    if (n < 0 || (size_t)n >= sizeof prefix)
        return fail(err, HL_ERR_INVALID_ARGUMENT, "the table location is too long");
    struct newest found = {0};
    if (objstore_list(store, prefix, note_version, &found, err) != 0)
        return -1;
    *version = found.version;
    return 0;
}

/* The hint's version, or 0 when there is none or it says nothing usable. */
static int read_hint(struct objstore *store, const char *location, int64_t *version,
                     struct hl_error *err)
{
    *version = 0;
    char uri[4096];
    if (hint_uri(location, uri, sizeof uri) != 0)
        return fail(err, HL_ERR_INVALID_ARGUMENT, "the table location is too long");
    struct buf b = BUF_INIT;
    struct hl_error e;
    if (objstore_get(store, uri, 0, 64, &b, &e) != 0) {
        buf_free(&b);
        if (e.status == HL_ERR_NOT_FOUND || e.status == HL_ERR_INVALID_ARGUMENT)
            return 0; /* none, or empty */
        if (err)
            *err = e;
        return -1;
    }
    if (buf_putc(&b, '\0') != 0) {
        buf_free(&b);
        return fail(err, HL_ERR_NOMEM, "out of memory");
    }
    char *end;
    long long v = strtoll(b.data, &end, 10);
    while (*end && isspace((unsigned char)*end))
        end++;
    if (v > 0 && *end == '\0' && end != b.data)
        *version = (int64_t)v;
    buf_free(&b);
    return 0;
}

int iceberg_load_current(struct objstore *store, const char *location, int64_t *version,
                         struct buf *json, struct hl_error *err)
{
    *version = 0;
    int64_t v;
    if (read_hint(store, location, &v, err) != 0)
        return -1;
    int exists = v > 0 ? version_exists(store, location, v, err) : 0;
    if (exists < 0)
        return -1;
    if (exists) {
        /* A hint may lag a commit whose hint update failed. */
        int probes = 0, next;
        while ((next = version_exists(store, location, v + 1, err)) == 1 && ++probes < HINT_PROBES)
            v++;
        if (next < 0)
            return -1;
        if (next == 1 && list_newest(store, location, &v, err) != 0)
            return -1;
    } else if (list_newest(store, location, &v, err) != 0) {
        return -1;
    }
    if (v == 0)
        return 0;
    char uri[4096];
    if (iceberg_metadata_uri(location, v, uri, sizeof uri) != 0)
        return fail(err, HL_ERR_INVALID_ARGUMENT, "the table location is too long");
    if (objstore_get(store, uri, 0, UINT64_MAX, json, err) != 0)
        return -1;
    *version = v;
    return 0;
}

int iceberg_commit_version(struct objstore *store, const char *location, int64_t version,
                           const char *json, size_t len, struct hl_error *err)
{
    char uri[4096], hint[4096];
    if (version < 1 || iceberg_metadata_uri(location, version, uri, sizeof uri) != 0 ||
        hint_uri(location, hint, sizeof hint) != 0)
        return fail(err, HL_ERR_INVALID_ARGUMENT, "a bad version (%" PRId64 ") or location",
                    version);
    if (objstore_put(store, uri, json, len, OBJSTORE_IF_NONE_MATCH, err) != 0)
        return -1;
    char text[32];
    int n = snprintf(text, sizeof text, "%" PRId64, version);
    struct hl_error e;
    if (objstore_put(store, hint, text, (size_t)n, 0, &e) != 0)
        log_warn("iceberg: version %" PRId64 " is committed, but its hint was not updated: %s",
                 version, e.message);
    return 0;
}
