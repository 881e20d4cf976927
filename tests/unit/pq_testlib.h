/* Test helpers for the Parquet codec: tables from compact JSON, random
 * Arrow batches for a table, and a logical comparison of what went into
 * the writer with what the reader gives back.
 *
 * Everything here aborts the test (cmocka fail) on unexpected failure. */
#ifndef HL_TESTS_PQ_TESTLIB_H
#define HL_TESTS_PQ_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "util/arena.h"
#include "util/buf.h"

/* A pq_sink callback appending the file to a struct buf (ctx). */
int test_sink_buf_write(void *ctx, const void *data, size_t len, struct error *err);

struct rng {
    uint64_t state;
};
uint64_t rng_next(struct rng *g);
/* Uniform in [0, n). */
uint64_t rng_below(struct rng *g, uint64_t n);

/* A table from a ColumnDef array in JSON with single quotes. */
struct test_table {
    struct arena arena;
    struct lake_table t;
};
void test_table_init(struct test_table *tt, const char *columns_json);
/* A table nesting structs, lists and maps in one another, with required
 * and nullable fields at every level. */
extern const char pq_nested_table[];
void test_table_release(struct test_table *tt);

/* Shape knobs for random batches. */
struct gen_options {
    int null_per_mille;  /* chance a nullable slot is null */
    int max_list_len;    /* lists and maps hold 0..max entries */
    int max_string_len;  /* bytes per string or binary value */
    bool distinct_small; /* draw values from a small set (dictionary-friendly) */
};

/* A random batch of n rows for the table: *schema and *batch are owned by
 * the caller (release both). */
void gen_batch(const struct lake_table *t, int64_t n, const struct gen_options *o, struct rng *g,
               struct ArrowSchema *schema, struct ArrowArray *batch);

/* Bytes per value of a fixed-width column type's Arrow array (booleans:
 * 8, as they are not fixed-width; col_fixed takes them one byte each). */
int test_fixed_width(enum lake_type t);

/* Hand-made columns for exact-value tests. valid is NULL (all valid) or
 * one bool per row; values are n Arrow values of `width` bytes (booleans:
 * one byte 0/1 each, packed here). */
void col_fixed(struct ArrowSchema *s, struct ArrowArray *a, const char *name, const char *format,
               const void *values, size_t width, int64_t n, const bool *valid);
/* strings[i] with lens[i] bytes (lens NULL: NUL-terminated). */
void col_bytes(struct ArrowSchema *s, struct ArrowArray *a, const char *name, const char *format,
               const char *const *strings, const size_t *lens, int64_t n, const bool *valid);
/* A batch (struct) of the given columns, which it takes over. */
void batch_of(struct ArrowSchema *schema, struct ArrowArray *batch, struct ArrowSchema *cols,
              struct ArrowArray *arrays, int64_t ncols, int64_t n);

/* Writes batches into a buffer with the given options and returns the
 * result (release with pq_write_result_release). */
void write_batches(const struct lake_table *t, const struct pq_write_options *o,
                   const struct ArrowSchema *schema, const struct ArrowArray *batches, size_t n,
                   struct buf *file, struct pq_write_result *result);

/* Reads the whole file and checks that its rows equal the batches' rows,
 * column by column and row by row (logically: values as the table's types
 * define them, nulls, list and map shapes), and that each field carries
 * its column's field id. */
void expect_file_equals(const struct lake_table *t, const struct buf *file,
                        const struct ArrowSchema *schema, const struct ArrowArray *batches,
                        size_t n);

#endif
