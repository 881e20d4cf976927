/* Batches read from a Parquet file, made fit for the writer of a table
 * definition: `convert` from Parquet to Parquet.
 *
 * The reader gives each column the Arrow type its file annotations say;
 * the writer takes, per catalog column type, the one pq_arrow_format_for
 * names. Where they differ and the value converts exactly, the column is
 * converted (integers to a type that holds them, float to double, float16,
 * time and timestamp units, fixed-size to variable binary); strings and
 * binaries going into json or string columns are checked (valid JSON,
 * valid UTF-8). A variant column takes JSON text (encoded) or a VARIANT's
 * storage struct in any layout (checked, and unshredded to the table's
 * form: rows_variant.h). Anything else is refused, naming the column:
 * ERR_INVALID (ERR_LIMIT for a column past 2 GiB, ERR_NOMEM). */
#ifndef HL_ROWS_ADAPT_H
#define HL_ROWS_ADAPT_H

#include <stddef.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "rows/rows_variant.h"
#include "util/error.h"

struct rows_adapt_options {
    /* A variant column's JSON text that is not a JSON value. */
    enum rows_variant_on_invalid variant_on_invalid;
    int64_t variant_invalid; /* out: rows made SQL NULL by it, added to */
    /* out (may be NULL): the same by reason, per top-level column of the
     * table (its nchildren entries), added to */
    struct rows_variant_invalid *variant_invalid_by_column;
    /* (may be NULL) per top-level column: a variant's storage is left as
     * it is, unchecked: the caller knows it is already in the layout it
     * writes (compaction carrying a file's groups through). */
    const bool *variant_keep_storage;
};

/* Whether batches described by `from` (a struct of the table's top-level
 * columns, in order) can feed t. */
int rows_adapt_check(const struct ArrowSchema *from, const struct lake_table *t, struct error *err);
/* Converts, in place, the columns of a batch described by `from`. */
int rows_adapt_batch(const struct ArrowSchema *from, struct ArrowArray *batch,
                     const struct lake_table *t, struct error *err);
/* rows_adapt_batch with options. */
int rows_adapt_batch_with(const struct ArrowSchema *from, struct ArrowArray *batch,
                          const struct lake_table *t, struct rows_adapt_options *opt,
                          struct error *err);
/* The same for a batch read from a file another tool wrote: its strings,
 * though typed utf8, are checked to be UTF-8 before a string column takes
 * them (a Parquet writer's STRING may hold any bytes). */
int rows_adapt_foreign_batch(const struct ArrowSchema *from, struct ArrowArray *batch,
                             const struct lake_table *t, struct error *err);

#endif
