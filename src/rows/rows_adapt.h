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
    /* rows_adapt_chunks: strings are checked to be UTF-8 (a file another
     * tool wrote) rather than trusted (Arrow utf8 from a caller). */
    bool check_utf8;
    /* rows_adapt_chunks' bounds (0: ROWS_CHUNK_ROWS, ROWS_CHUNK_BYTES). */
    int64_t chunk_rows, chunk_bytes;
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
/* Variant columns are converted a chunk of rows at a time so that no
 * binary child nears the 2 GiB its 32-bit offsets can address, and a
 * chunk's memory is gone before the next is made: a chunk ends at 8192
 * rows, or at the row that brings its variant columns' input (JSON text,
 * storage bytes) to 512 MiB. A Variant takes at most about 3 times its
 * JSON text's bytes, so a chunk's binary stays under 2 GiB; one that does
 * not (a single value past it) is refused with ERR_LIMIT. */
enum { ROWS_CHUNK_ROWS = 8192 };
#define ROWS_CHUNK_BYTES ((int64_t)512 << 20)

/* Given each chunk: valid only during the call (borrowed from the batch);
 * 0, or -1 with err filled to stop. */
typedef int (*rows_chunk_fn)(void *ctx, const struct ArrowArray *chunk, struct error *err);

/* rows_adapt_batch_with, handing the converted rows to fn in chunks. A
 * batch with no variant column to convert, or within one chunk's bounds,
 * is converted in place and given whole; otherwise its other columns are
 * converted in place, and each chunk lends them and converts its rows of
 * the variant columns. Errors number rows within the batch. The batch
 * stays the caller's. */
int rows_adapt_chunks(const struct ArrowSchema *from, struct ArrowArray *batch,
                      const struct lake_table *t, struct rows_adapt_options *opt, rows_chunk_fn fn,
                      void *fn_ctx, struct error *err);

#endif
