/* Compaction's catalog side: the staging ticket queued before a rewrite,
 * and the commit that swaps the inputs for the output under the catalog
 * lock. */
#ifndef HL_SERVER_MAINTENANCE_COMPACTION_COMMIT_H
#define HL_SERVER_MAINTENANCE_COMPACTION_COMMIT_H

#include <stdint.h>

#include "server/catalog/catalog.h"
#include "server/maintenance/compaction_internal.h"
#include "util/arena.h"
#include "util/error.h"

/* Queues a fresh output path (a UUID under the table's data directory) as
 * a compaction_staging removal ticket, in its own transaction, before any
 * byte is written: until the commit settles it, cleanup may delete it.
 * *path (in a) and *ticket get the path and the ticket's removal_id. */
int cpt_stage(struct srv_ctx *ctx, const struct catalog_row *cat, const struct cpt_group *g,
              struct arena *a, const char **path, int64_t *ticket, struct error *err);

enum cpt_commit_outcome {
    CPT_COMMITTED,
    CPT_CONFLICT,      /* an input changed, the table was altered or dropped, the ticket
                          or the claim was touched */
    CPT_DV_SUPERSEDED, /* an input's live deletion vector is not the planned one */
};

/* One transaction under the catalog lock: re-verifies g's inputs (live,
 * same path and rows, the planned deletion vector or none), that the table
 * has not been altered or dropped since schema_snapshot, that the ticket
 * is untouched and the claim still `claimant`'s; then ends the inputs and
 * their deletion vectors and registers `out` (none when out->path is NULL:
 * every row was deleted) at a new table_compacted snapshot
 * (*snapshot_id), settles the ticket ('registered', or 'absent' when
 * nothing was written) and keeps the claim COMPACTION_COMMITTED_TTL_S.
 * Anything off: rolled back, *o says why. Returns 0, or -1 with err. */
int cpt_commit(struct srv_ctx *ctx, const struct catalog_row *cat, const char *claimant,
               const struct cpt_group *g, int64_t schema_snapshot, int64_t ticket,
               const struct store_compaction_output *out, enum cpt_commit_outcome *o,
               int64_t *snapshot_id, struct error *err);

#endif
