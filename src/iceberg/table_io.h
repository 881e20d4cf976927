/* An Iceberg table's metadata files in object storage, the file-catalog way:
 * <location>/metadata/v<N>.metadata.json with version-hint.text naming the
 * current N. A commit creates v<N+1> only if no one else has (link() on
 * file://, If-None-Match: * on S3), then updates the hint (best effort: a
 * reader that finds a stale hint looks for newer versions). Thread-safe as
 * far as the object store is. */
#ifndef HL_ICEBERG_TABLE_IO_H
#define HL_ICEBERG_TABLE_IO_H

#include <stdint.h>

#include "hoglake/error.h"
#include "util/buf.h"

struct objstore;

/* The table's current metadata: *version (0 when the table has no metadata
 * yet: HL_OK with an empty text) and its JSON text appended to `json`.
 * The hint is trusted only as far as the files agree: a newer vN beside it
 * wins. A hint or a listing that cannot be read is HL_ERR_IO; a hint that
 * is not a version number is ignored. */
int iceberg_load_current(struct objstore *store, const char *location, int64_t *version,
                         struct buf *json, struct hl_error *err);

/* Publishes `json` as version `version` (the loaded one + 1). Another
 * writer's version already there is HL_ERR_ALREADY_EXISTS (reload and
 * retry). The hint is updated afterwards; its failure is not the commit's. */
int iceberg_commit_version(struct objstore *store, const char *location, int64_t version,
                           const char *json, size_t len, struct hl_error *err);

/* "<location>/metadata/v<N>.metadata.json" into out. 0, or -1 when it does
 * not fit. */
int iceberg_metadata_uri(const char *location, int64_t version, char *out, size_t size);

#endif
