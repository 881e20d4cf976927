/* Compaction's rewrite: a group's input files read in the table's live
 * shape, sorted, and written as one Parquet file with each row's id. Runs
 * outside every transaction; touches only object storage. */
#ifndef HL_SERVER_MAINTENANCE_COMPACTION_REWRITE_H
#define HL_SERVER_MAINTENANCE_COMPACTION_REWRITE_H

#include <stddef.h>

#include "hoglake/error.h"
#include "lake/schema.h"
#include "server/maintenance/compaction_internal.h"
#include "util/arena.h"

struct objstore;

/* The physical row-id column of compaction outputs (contract §5,
 * invariant 2); the _hog prefix is reserved, so no table column has it. */

enum cpt_rewrite_outcome {
    CPT_REWRITTEN,
    CPT_UNCONVERTIBLE, /* an input column does not convert to its live type */
    CPT_INVALID_DATA,  /* an input is not what the catalog says (rows, row ids, Parquet, its
                          deletion vector) */
    CPT_STORAGE,       /* reading or writing an object failed */
    CPT_REFUSED,       /* storage confinement refused an object, or an input is not its size */
};

/* What was refused, for the caller to count and audit. */
struct cpt_refusal {
    const char *path;      /* the input's or the output's (borrowed) */
    const char *operation; /* "read" or "write" */
    struct hl_error err;   /* code: the reason (outside_root, symlink, size_mismatch, ...) */
};

/* Appends the _hog_row_id column (long, required) after t's top-level
 * columns: t becomes the output's layout. 0, or -1 with msg. */
int cpt_add_row_id_column(struct lake_table *t, char *msg, size_t msg_size);

/* Rewrites g into out_path, through `os` (confined to the catalog's data
 * path). Each input, and the Puffin file of its planned deletion vector,
 * is read only up to its registered size (plus one byte, to see it is no
 * larger): an object of another size is refused, so the memory a group
 * takes is what its registered sizes promised. `live` is the table's live
 * definition (binding by field id, sort order, statistics), `layout` the
 * same plus the row-id column (cpt_add_row_id_column). Inputs bind by
 * field id: columns added since are null, promotions are applied. Row ids:
 * an input with explicit row ids gives them in its _hog_row_id column, any
 * other has row_id_start + position (and must not have the column). The
 * rows an input's deletion vector deletes (by position in the file) are
 * dropped after each row's id is set, so the rows left keep theirs; a
 * vector that is not the input's, or whose count is not the catalog's, is
 * invalid data. Rows are sorted stably by the live sort order, if any. On
 * CPT_REWRITTEN *out describes the file (statistics from the footer
 * written, none for the row ids; min_row_id the smallest id left; in a),
 * or has a NULL path when no row is left and nothing was written. Returns
 * 0 with *o set (msg says why when not rewritten; *refusal what was
 * refused on CPT_REFUSED), or -1 out of memory. */
int cpt_rewrite(struct objstore *os, const struct lake_table *live, const struct lake_table *layout,
                const struct cpt_group *g, const char *out_path, struct arena *a,
                struct store_compaction_output *out, enum cpt_rewrite_outcome *o,
                struct cpt_refusal *refusal, char *msg, size_t msg_size);

#endif
