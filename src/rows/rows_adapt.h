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
    /* Chunked adapting (rows_chunks_open): strings are checked to be UTF-8
     * (a file another tool wrote) rather than trusted (Arrow utf8 from a
     * caller). */
    bool check_utf8;
    /* Chunked adapting's bounds (0: ROWS_CHUNK_ROWS, ROWS_CHUNK_BYTES;
     * failpoint variant_small_chunks makes them tiny, as for a huge
     * batch). */
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

/* A batch's chunks, converted one at a time: rows_chunks_open takes the
 * batch (released on failure too) and converts in place the columns not
 * chunked (all of them when the batch is within one chunk's bounds);
 * rows_chunks_next gives the next chunk, the caller's to release whenever
 * it likes: its variant columns converted for its rows alone, its other
 * columns views of the batch's (util/arrow.h arrow_share: no copy). opt
 * (may be NULL) must outlive the chunks; its counts are added to as
 * chunks are made. */
struct rows_chunks;
int rows_chunks_open(const struct ArrowSchema *from, struct ArrowArray *batch,
                     const struct lake_table *t, struct rows_adapt_options *opt,
                     struct rows_chunks **out, struct error *err);
/* 1 with *out and the chunk's first row within the batch, 0 after the
 * last, -1 on failure (errors number rows within the batch). */
int rows_chunks_next(struct rows_chunks *c, struct ArrowArray *out, int64_t *first_row,
                     struct error *err);
void rows_chunks_free(struct rows_chunks *c);

/* Given each chunk, to read during the call; 0, or -1 with err filled to
 * stop. */
typedef int (*rows_chunk_fn)(void *ctx, const struct ArrowArray *chunk, struct error *err);
/* Every chunk of the batch (taken) to fn, in order. */
int rows_adapt_chunks(const struct ArrowSchema *from, struct ArrowArray *batch,
                      const struct lake_table *t, struct rows_adapt_options *opt, rows_chunk_fn fn,
                      void *fn_ctx, struct error *err);

#endif
