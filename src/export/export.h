/* The incremental Iceberg export of one hoglake table to one target
 * location (docs/iceberg-export.md; the user's design is LLP 0022).
 *
 * Each run is a changefeed consumer with its own offset per target: it
 * reads the rows committed since the last run, partitions them by
 * day(primary timestamp column) when the table declares one (else
 * unpartitioned), sorts each partition by the table's lookup key, writes
 * Parquet data files with field ids and the `iceberg.schema` footer key,
 * one manifest, a manifest list and the next vN.metadata.json (never
 * overwriting another writer's), and only then commits its offset. A crash
 * between the two commits is reconciled on the next run from the snapshot
 * summary, which records the source snapshot range: rows are never
 * exported twice. */
#ifndef HL_EXPORT_EXPORT_H
#define HL_EXPORT_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "hoglake/hoglake.h"

struct tracer;

struct ice_export_options {
    const char *location; /* "file:///dir" or "s3://bucket/prefix" */
    /* 2 or 3 (0: 3) for a new table; an existing table keeps its own. */
    int format_version;
    struct tracer *tracer; /* spans iceberg.table.create / iceberg.snapshot.commit; may be NULL */
    /* Bootstrap again (the table's live rows replace the Iceberg
     * table's): what an offset below the catalog's expiry floor needs
     * (instead of failing with export_offset_expired), and what a table
     * exported before files carried their rows' ids needs to export
     * deletes. */
    bool restart;
    /* A location another hoglake table (e.g. this one's earlier
     * incarnation) exported to: take it over and bootstrap, instead of
     * failing with iceberg_target_owned_by_other_table. */
    bool adopt;
};

struct ice_export_result {
    bool nothing_new; /* no rows since the last run: no Iceberg commit */
    bool created;     /* this run created the Iceberg table */
    bool reconciled;  /* the offset was behind an export that had landed */
    /* A bootstrap: the rows live at bootstrap_snapshot (the catalog's
     * expiry floor; none when the table was created after it), then the
     * changefeed from there. On an Iceberg table with rows it is an
     * overwrite snapshot. */
    bool bootstrapped;
    int64_t bootstrap_snapshot;
    bool adopted;         /* the location was another table's (--adopt) */
    bool offset_advanced; /* nothing new, and the offset moved to the head */
    int format_version;   /* the table's */
    int64_t iceberg_snapshot_id;
    int64_t from_snapshot, to_snapshot; /* the source window (from, to] */
    int64_t rows, files;
    /* Rows of the Iceberg table's files deleted (v3: deletion vectors; v2:
     * position delete files), and the delete files written. */
    int64_t rows_deleted, delete_files;
    char partition_spec[160]; /* "day(message_created_at)" or "unpartitioned" */
    char sort_order[320];     /* "session_id,conversation_id" or "" */
    /* On failure: a stable machine-readable kind, such as
     * "iceberg_partition_spec_drift" (empty when none applies). */
    char error_kind[64];
};

/* Runs one export of table to options->location. The consumer id is
 * derived from the location ("iceberg-" and a digest of it). The Iceberg
 * table records its owner in its properties (hoglake.table-uuid,
 * hoglake.table, hoglake.catalog). Typed failures (err->code and
 * result->error_kind): iceberg_partition_spec_drift,
 * iceberg_target_owned_by_other_table (HL_ERR_CONFLICT; nothing written),
 * export_offset_expired (HL_ERR_EXPIRED; --restart). */
hl_status ice_export_run(hl_table *table, const struct ice_export_options *options,
                         struct ice_export_result *result, struct hl_error *err);

/* The consumer id the export of a location uses (out: 48 bytes). 0, or -1
 * when hashing fails. */
int ice_export_consumer_id(const char *location, char out[48]);

#endif
