/* Puffin files (Iceberg's blob container) holding deletion vectors:
 *   "PFA1" blob... "PFA1" footer-payload payload-size:u32le flags:u32le "PFA1"
 * where the footer payload is UTF-8 JSON listing every blob (type, fields,
 * snapshot-id, sequence-number, offset, length, properties). A
 * `deletion-vector-v1` blob names its data file in the
 * `referenced-data-file` property and its count in `cardinality`; its
 * snapshot-id and sequence-number are -1 (inherited from the manifest).
 *
 * Files come from storage: the reader checks every offset against the file
 * before it is used, and refuses what it does not support (a compressed
 * footer or blob) with ERR_UNSUPPORTED. */
#ifndef HL_LAKE_PUFFIN_H
#define HL_LAKE_PUFFIN_H

#include <stddef.h>
#include <stdint.h>

#include "lake/dv.h"

struct buf;
struct error;

/* Iceberg's reserved field id of the row position (`_pos`), which a
 * deletion vector blob's `fields` names. */
#define LAKE_PUFFIN_POS_FIELD_ID 2147483645

/* One deletion vector to write: its data file and its positions. */
struct lake_puffin_dv_in {
    const char *referenced_data_file;
    const struct lake_dv *dv;
};

/* Where a blob landed (the manifest's content_offset and
 * content_size_in_bytes). */
struct lake_puffin_blob_pos {
    uint64_t offset, length;
};

/* Writes a Puffin file of the n vectors (n >= 1) into the empty out, and
 * each blob's position into pos[i]. created_by names the writer (may be
 * NULL). 0, or -1 with err filled. */
int lake_puffin_write_dvs(const struct lake_puffin_dv_in *dvs, size_t n, const char *created_by,
                          struct buf *out, struct lake_puffin_blob_pos *pos, struct error *err);

/* A deletion-vector blob the footer lists. */
struct lake_puffin_dv_blob {
    char *referenced_data_file; /* owned */
    uint64_t cardinality;
    uint64_t offset, length;
};

struct lake_puffin_footer {
    struct lake_puffin_dv_blob *dvs; /* owned; the file's deletion-vector blobs, in order */
    size_t ndvs;
    size_t nother; /* blobs of other types, skipped */
};

/* Reads the footer of a whole Puffin file. ERR_CORRUPT or ERR_UNSUPPORTED
 * (naming what) on failure, with *out empty. */
int lake_puffin_read_footer(const uint8_t *file, size_t len, struct lake_puffin_footer *out,
                            struct error *err);
void lake_puffin_footer_free(struct lake_puffin_footer *f);

/* Decodes the vector of blob b (from the footer of the same file) into the
 * empty *out; positions must be below rows, and their count must be the
 * blob's cardinality. */
int lake_puffin_read_dv(const uint8_t *file, size_t len, const struct lake_puffin_dv_blob *b,
                        uint64_t rows, struct lake_dv *out, struct error *err);
/* The deletion vector a whole Puffin file holds for data_file (a path, as
 * the blob's referenced-data-file names it), decoded into the empty *out
 * with rows the data file's row count. A file with no blob for it, or with
 * two, is ERR_CORRUPT: a catalog's delete file names the data file it
 * deletes from, so its vector must be there, once. */
int lake_puffin_load_dv(const uint8_t *file, size_t len, const char *data_file, uint64_t rows,
                        struct lake_dv *out, struct error *err);

#endif
