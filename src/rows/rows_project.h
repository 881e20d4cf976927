/* Reading a Parquet file in a table's shape: the table's top-level columns
 * the file holds are selected by field id (never by name, so renames are
 * free), columns the file lacks become all-null, and each batch is
 * converted to the table's types (rows_adapt.h: promotions such as int to
 * long or float to double). Columns the table does not know (a dropped
 * column, compaction's _hog_row_id when the table lacks it) are not read.
 *
 * Used by the client's row scan and the server's compaction.
 *
 * Failures: the reader's own error as it gave it (corrupt or unsupported
 * data, ERR_NOMEM), or rows_adapt's for a column that cannot be converted
 * to the table's type (ERR_INVALID; ERR_LIMIT past 2 GiB). */
#ifndef HL_ROWS_PROJECT_H
#define HL_ROWS_PROJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "parquet/reader.h"
#include "rows/rows_adapt.h"
#include "util/error.h"

struct rows_projection {
    struct ArrowSchema projected; /* the file's columns in table order, nulls' for the absent */
    int64_t *map;                 /* table column -> the reader's selected column, or -1 */
    size_t ncols;
    struct arrow_zeros *zeros; /* the absent columns' nulls, batch after batch */
    /* Set by the caller (NULL: none): top-level variant columns whose
     * storage the file holds in the layout the writer writes, read as it
     * is, neither checked nor unshredded (rows_adapt_options). */
    const bool *keep_variant_storage;
    struct rows_adapt_options chunk_opt; /* the chunks being read's (rows_project_chunks) */
};

/* Selects on r the columns of t the file holds and builds p (zeroed by the
 * caller or freed before). On failure p is left empty. */
int rows_project_open(struct pq_reader *r, const struct lake_table *t, struct rows_projection *p,
                      struct error *err);
/* The same, reading only the columns c with wanted[c] (wanted has one
 * entry per top-level column; NULL: all): the others read as nulls, as if
 * the file lacked them. */
int rows_project_open_some(struct pq_reader *r, const struct lake_table *t, const bool *wanted,
                           struct rows_projection *p, struct error *err);
/* Whether table column c (top-level index) is in the file. */
static inline int rows_project_has(const struct rows_projection *p, size_t c)
{
    return p->map[c] >= 0;
}
/* Row group g through the projection: *out (the caller's to release) is a
 * struct of t's top-level columns in t's types. */
int rows_project_read(struct pq_reader *r, size_t g, struct rows_projection *p,
                      const struct lake_table *t, struct ArrowArray *out, struct error *err);
/* Row group g through the projection a chunk at a time (rows_adapt.h's
 * rows_chunks): one chunk, the whole row group, unless its variant values
 * would unshred near the byte bound, when each chunk unshreds its own
 * rows. For a row group of big documents another writer made huge, which
 * whole would pass the 2 GiB a binary array holds. */
int rows_project_chunks(struct pq_reader *r, size_t g, struct rows_projection *p,
                        const struct lake_table *t, struct rows_chunks **out, struct error *err);
/* The same for the rows of row group g in ranges[0..n) only
 * (pq_reader_read_row_ranges: only the pages holding them are decoded,
 * and the read's row i is the i-th row of the ranges). stats may be
 * NULL. */
int rows_project_chunks_ranges(struct pq_reader *r, size_t g, const struct pq_row_range *ranges,
                               size_t n, struct rows_projection *p, const struct lake_table *t,
                               struct rows_chunks **out, struct pq_range_read_stats *stats,
                               struct error *err);
void rows_project_free(struct rows_projection *p);

#endif
