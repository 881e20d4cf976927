/* Ranged reads of an object as a Parquet source: see object_source.h. */
#include "client/object_source.h"

#include <string.h>

#include "client/internal.h"
#include "objstore/objstore.h"
#include "util/error.h"

static int object_read_at(void *ctx, uint64_t offset, void *dst, size_t len, struct error *err)
{
    struct client_object_source *os = ctx;
    if (len == 0)
        return 0;
    buf_reset(&os->chunk);
    struct hl_error e;
    if (objstore_get(os->store, os->uri, offset, len, &os->chunk, &e) != 0)
        return error_fail(err, e.status == HL_ERR_NOMEM ? ERR_NOMEM : ERR_IO, "%s", e.message);
    if (os->chunk.len != len)
        return error_fail(err, ERR_CORRUPT,
                          "%s holds %zu bytes at offset %llu where its recorded size promises "
                          "%zu",
                          os->uri, os->chunk.len, (unsigned long long)offset, len);
    memcpy(dst, os->chunk.data, len);
    os->bytes_read += len;
    os->reads++;
    return 0;
}

void client_object_source_init(struct client_object_source *os, struct pq_source *src,
                               struct objstore *store, const char *uri, uint64_t size)
{
    *os = (struct client_object_source){.store = store, .uri = uri, .chunk = BUF_INIT};
    *src = (struct pq_source){.read_at = object_read_at, .size = size, .ctx = os, .fd = -1};
}

int client_object_source_open(struct client_object_source *os, struct pq_source *src,
                              struct objstore *store, const char *uri, uint64_t size,
                              struct hl_error *err)
{
    client_object_source_init(os, src, store, uri, size);
    uint64_t held = 0;
    if (objstore_head(store, uri, &held, err) != 0)
        return -1;
    if (held == size)
        return 0;
    client_fail(err, HL_ERR_FORBIDDEN, "size_mismatch",
                "%s: the object holds %s%llu bytes, %llu were recorded", uri,
                held > size ? "more than " : "", (unsigned long long)(held > size ? size : held),
                (unsigned long long)size);
    return -1;
}

void client_object_source_free(struct client_object_source *os)
{
    buf_free(&os->chunk);
}
