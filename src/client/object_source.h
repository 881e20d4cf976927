/* A Parquet source over an object in storage: every read is a ranged read
 * of the object (a pread on file://, a ranged GET on S3), so a reader
 * fetches the footer and the column chunks it decodes, never the whole
 * object. Not installed. */
#ifndef HL_CLIENT_OBJECT_SOURCE_H
#define HL_CLIENT_OBJECT_SOURCE_H

#include <stdint.h>

#include "hoglake/error.h"
#include "parquet/reader.h"
#include "util/buf.h"

struct objstore;

struct client_object_source {
    struct objstore *store; /* borrowed */
    const char *uri;        /* borrowed */
    struct buf chunk;       /* the last read, reused */
    uint64_t bytes_read;    /* over every read */
    unsigned reads;
};

/* Sets up os and src to read `uri`, whose size the catalog recorded,
 * after checking the object still has that size (one HEAD: an object
 * that grew or shrank since it was registered was replaced behind the
 * catalog's back, HL_ERR_FORBIDDEN code size_mismatch). Reads past the
 * size are refused before any request. store and uri must outlive both;
 * free with client_object_source_free (also after a failure). */
int client_object_source_open(struct client_object_source *os, struct pq_source *src,
                              struct objstore *store, const char *uri, uint64_t size,
                              struct hl_error *err);
/* The same without the HEAD, for one more reader of an object another
 * has just opened (and so checked). */
void client_object_source_init(struct client_object_source *os, struct pq_source *src,
                               struct objstore *store, const char *uri, uint64_t size);
void client_object_source_free(struct client_object_source *os);

#endif
