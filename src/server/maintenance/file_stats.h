/* A data file's statistics as the server derives them from a Parquet
 * footer (the hydrator from one it fetched, compaction from the one it
 * wrote): the commit path's repairs and the split offsets. The rows are
 * written by server/store/hydration.h. */
#ifndef HL_SERVER_MAINTENANCE_FILE_STATS_H
#define HL_SERVER_MAINTENANCE_FILE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "lake/schema.h"
#include "parquet/colstats.h"
#include "parquet/meta.h"
#include "util/arena.h"

/* The commit path's repairs (server/commit/commit_check.c) in place: counts clamped to
 * what a file of record_count rows can hold, bounds sanitised against the
 * column types of t. Returns how many fixes were made. */
int file_stats_repair(const struct lake_table *t, int64_t record_count, struct pq_col_stats *stats,
                      size_t n);

/* Split offsets: each row group's start, when every row group gives one
 * (*out NULL and *n 0 otherwise). Returns 0, or -1 out of memory. */
int file_stats_splits(const struct pq_file_meta *m, struct arena *a, int64_t **out, size_t *n);

#endif
