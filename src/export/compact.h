/* Out-of-band compaction of an exported Iceberg table (run only by
 * `hoglake export maintain --compact`, never by the server or the export
 * loop): when the current snapshot has at least `file_count` live data files
 * and at most `max_bytes` of them, their rows are read, sorted globally by
 * the lookup key under the table's day partitioning, written as one file per
 * partition, and committed as a `replace` snapshot. When no partition has
 * two or more files below the target size, there is nothing to gain: the
 * outcome is below-threshold, nothing is written. On format version 3 the
 * rows keep their lineage (_row_id, _last_updated_sequence_number).
 *
 * Every file it writes is tracked. A failed commit re-loads the table: if
 * the staged snapshot landed, the run succeeded; if another writer's did
 * (a lost race), the staged files are deleted and the outcome is
 * `conflict`; if the outcome cannot be verified, the files are left and the
 * run says so. A run that fails while staging deletes what it wrote. */
#ifndef HL_EXPORT_COMPACT_H
#define HL_EXPORT_COMPACT_H

#include <stdbool.h>
#include <stdint.h>

#include "hoglake/hoglake.h"

struct tracer;

struct ice_compact_options {
    const char *location;
    int64_t file_count; /* minimum live data files (0: 32) */
    int64_t max_bytes;  /* cap on the live files' total size (0: 128 MB) */
    /* a file of at least this size is compacted already (0: 128 MB): only
     * partitions with two or more smaller files are worth a rewrite */
    int64_t target_bytes;
    struct tracer *tracer;
};

enum ice_compact_outcome {
    ICE_COMPACTED,
    ICE_BELOW_THRESHOLD,
    ICE_ABOVE_BYTE_CAP,
    ICE_NO_TABLE, /* no metadata at the location at all */
    ICE_CONFLICT, /* another writer committed first: nothing of ours stays */
    ICE_ERROR,
};

struct ice_compact_result {
    enum ice_compact_outcome outcome;
    int64_t files_before, files_after;
    int64_t bytes_before, rows;
    int64_t snapshot_id;    /* the replace snapshot, when compacted */
    bool staged_files_left; /* an unverifiable commit left its files */
};

/* "compacted", "below-threshold", "above-byte-cap", "no-table",
 * "conflict", "error". */
const char *ice_compact_outcome_name(enum ice_compact_outcome o);

/* HL_OK for every outcome but ICE_ERROR (err filled then). */
hl_status ice_compact_run(hl_table *table, const struct ice_compact_options *options,
                          struct ice_compact_result *result, struct hl_error *err);

#endif
