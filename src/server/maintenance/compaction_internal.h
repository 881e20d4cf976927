/* What compaction's planner, rewriter and committer share (compaction.h).
 * Internal to the server. */
#ifndef HL_SERVER_MAINTENANCE_COMPACTION_INTERNAL_H
#define HL_SERVER_MAINTENANCE_COMPACTION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/colstats.h"
#include "util/sha256.h"

/* A planned input: the identity the commit re-verifies (id, path, rows). */
struct cpt_input {
    int64_t id;
    const char *path;
    int64_t record_count, size, row_id_start;
    bool explicit_row_ids;
};

/* A claimed group of one table's files sharing spec and partition values. */
struct cpt_group {
    int64_t table_id;
    const char *ns_name, *table_name;
    int64_t spec_id;            /* -1: files without a spec */
    const char *partition_json; /* the values as a JSON array ("[]" when none) */
    struct cpt_input *inputs;   /* by id */
    size_t ninputs;
    int64_t bytes, records;
    char key[SHA256_HEX_CHARS + 1];
};

/* The rewritten file, as registered. */
struct cpt_output {
    const char *path;
    int64_t file_size, footer_size, records, min_row_id;
    struct pq_col_stats *stats;
    size_t nstats;
    int64_t *splits;
    size_t nsplits;
};

#endif
