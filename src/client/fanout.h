/* The open Parquet files of one append: one per partition tuple (one in
 * all for an unpartitioned table), each encoded straight into a streaming
 * upload, so that nothing is visible in storage before a file is finished
 * and memory stays bounded:
 *   - a file rolls over to a new one past `file_bytes` of Parquet;
 *   - when the row groups being built in all open files together hold more
 *     than `memory_bytes`, the largest file is finished early.
 * Each object is written at the next path the append's upload claims give.
 * Finishing a file commits its upload and adds its FileRegistration (path,
 * counts, sizes, footer statistics unless deferred, partition values) to
 * the caller's array, and the file to the result. Not thread-safe. */
#ifndef HL_CLIENT_FANOUT_H
#define HL_CLIENT_FANOUT_H

#include <jansson.h>

#include "client/claims.h"
#include "client/internal.h"
#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "parquet/writer.h"

struct fanout_config {
    const struct lake_table *table;      /* borrowed */
    const struct ArrowSchema *schema;    /* the batches' (the writer's) schema; borrowed */
    const struct pq_write_options *wopt; /* borrowed */
    struct objstore *store;
    struct claims *claims; /* where each object goes (claims_take); borrowed */
    unsigned upload_flags; /* objstore_writer_open's */
    bool deferred_stats;
    int64_t file_bytes;   /* 0: 512 MiB */
    int64_t memory_bytes; /* 0: 1 GiB */
};

struct fanout;

/* res and files (a JSON array) receive what finished files are; both are
 * borrowed for the fanout's life. */
hl_status fanout_new(const struct fanout_config *cfg, struct hl_append_result *res, json_t *files,
                     struct fanout **out, struct hl_error *err);
/* Writes a batch of the configured schema, by partition tuple. */
hl_status fanout_write(struct fanout *f, const struct ArrowArray *batch, struct hl_error *err);
/* Writes a batch whose rows the caller grouped under one partition tuple
 * (nfields wire strings, NULL entries for nulls; nfields is 0 when the
 * table is unpartitioned, or the batch is refused). Each row's tuple is computed all the same, and
 * a row outside the caller's refuses the batch: a file registered under the wrong tuple would hide
 * its rows from pruned scans. */
hl_status fanout_write_as(struct fanout *f, const struct ArrowArray *batch,
                          const char *const *tuple, size_t nfields, struct hl_error *err);
/* Finishes every open file (an unpartitioned append with no rows at all
 * still gets one, empty). */
hl_status fanout_finish(struct fanout *f, struct hl_error *err);
/* Frees; uploads of files not finished are abandoned, leaving nothing. */
void fanout_free(struct fanout *f);

#endif
