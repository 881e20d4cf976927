/* Iceberg manifests (the data files a snapshot adds) and manifest lists (a
 * snapshot's manifests), as Avro container files (iceberg/avro.h). A
 * partition is at most one day field (the exporter's day(primary
 * timestamp)), or none.
 *
 * Entries are written ADDED with a null snapshot id and null sequence
 * numbers, which readers inherit from the manifest list (Iceberg's
 * inheritance rules), so a manifest does not depend on the commit attempt
 * that publishes it. */
#ifndef HL_ICEBERG_MANIFEST_H
#define HL_ICEBERG_MANIFEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "iceberg/avro.h"
#include "parquet/colstats.h"
#include "util/buf.h"

/* One data file as the manifest records it. */
struct ice_data_file {
    const char *path;
    int64_t record_count;
    int64_t file_size;
    bool partition_null;   /* the day is null (rows without a timestamp) */
    int32_t partition_day; /* days since the epoch */
    const struct pq_col_stats *stats;
    size_t nstats;
    int32_t sort_order_id;
    /* NaN counts of float and double columns (field id, count); the
     * footer has none, so the writer counts them. */
    const int64_t (*nan_counts)[2];
    size_t nnan;
    /* A delete file (content 1, position deletes): a Parquet file of
     * (file_path, pos), or (format "PUFFIN") one deletion vector of a
     * Puffin file at content_offset, content_size bytes. Data files leave
     * these zero. */
    int content;
    const char *format;               /* NULL: "PARQUET" */
    const char *referenced_data_file; /* NULL: none (several) */
    int64_t content_offset, content_size;
};

/* The partition field of the manifest (NULL name: unpartitioned). */
struct ice_manifest_spec {
    int format_version;
    const char *schema_json; /* the table schema, for the header */
    int64_t schema_id;
    int32_t spec_id;
    const char *spec_fields_json; /* the spec's "fields" array, for the header */
    const char *day_field_name;   /* e.g. "message_created_at_day"; NULL: none */
    int32_t day_field_id;         /* 1000 */
    bool deletes;                 /* a delete manifest (content 1) */
};

/* What a manifest list says of a manifest's partitions. */
struct ice_manifest_summary {
    int64_t added_files, added_rows;
    int64_t existing_files, existing_rows;
    int64_t min_sequence_number; /* of the existing entries; -1: none */
    bool contains_null;
    bool has_bounds;
    int32_t min_day, max_day;
};

/* Writes a manifest of ADDED data files into out. */
int ice_manifest_write(const struct ice_manifest_spec *spec, const struct ice_data_file *files,
                       size_t n, struct buf *out, struct ice_manifest_summary *summary,
                       struct error *err);
/* The same, after the entries of `existing` (a JSON array of manifest
 * entries as the Avro reader decodes them, carried from another manifest:
 * their status is written EXISTING, and each must hold its snapshot id and
 * sequence numbers, since an EXISTING entry inherits none). */
int ice_manifest_write_existing(const struct ice_manifest_spec *spec, const json_t *existing,
                                const struct ice_data_file *files, size_t n, struct buf *out,
                                struct ice_manifest_summary *summary, struct error *err);

/* The manifest list record of a manifest this snapshot adds (content 1
 * for a delete manifest, which gets no first_row_id). */
json_t *ice_manifest_file_record(const struct ice_manifest_spec *spec, const char *path,
                                 int64_t length, int64_t snapshot_id, int64_t sequence_number,
                                 int64_t first_row_id, const struct ice_manifest_summary *s);

/* Writes a manifest list: the parent's records (copied unchanged; may be
 * NULL) and then `added`. first_row_id is the v3 header's (ignored on v2);
 * parent_id < 0: none. */
int ice_manifest_list_write(int format_version, int64_t snapshot_id, int64_t parent_id,
                            int64_t sequence_number, int64_t first_row_id, const json_t *parent,
                            const json_t *added, struct buf *out, struct error *err);

/* Reads a manifest list's records (a new JSON array). */
int ice_manifest_list_read(const void *data, size_t len, json_t **records, struct error *err);

#endif
