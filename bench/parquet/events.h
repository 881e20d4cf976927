/* The benchmarks' standard event table, generated deterministically: every
 * value is a hash of (seed, row, column), so the data does not depend on
 * the batch size. Shared by bench/parquet (the codec) and bench/append (the
 * library's writer path).
 *
 *   session_id  string      ~3,000 distinct UUID-shaped values
 *   event_id    long        row + 1
 *   ts          timestamptz 2024-01-01 plus 250 us per row, plus up to 1 s of jitter
 *   event       string      50 distinct names, skewed (the first is ~27% of rows)
 *   value       double      10% null; else 0.00 to 99999.99, two decimals
 *   properties  string      a JSON object of ~200 bytes (mostly distinct)
 *
 * Every column is nullable (OPTIONAL), as DuckDB writes every column, so
 * engines compared on it encode the same Parquet schema shape. */
#ifndef HL_BENCH_EVENTS_H
#define HL_BENCH_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "util/arena.h"

enum {
    EVENTS_NCOLS = 6,
    EVENTS_N_SESSIONS = 3000,
    EVENTS_N_EVENTS = 50,
    EVENTS_SESSION_LEN = 36,
    EVENTS_MAX_EVENT_LEN = 32,
    EVENTS_MAX_PROPS_LEN = 320,
};

extern const char *const events_column_names[EVENTS_NCOLS];

/* The table as a ColumnDef JSON array (hl_table_create's columns). */
extern const char events_table_json[];

/* The table as the Parquet writer sees it, in an arena the caller owns
 * (arena_free it after lake_table_release). Returns 0, or -1 with a
 * message in msg. */
int events_table_init(struct arena *a, struct lake_table *t, char *msg, size_t msg_size);

/* The generator's state: the seed and the tables every row draws from. */
struct events_gen {
    uint64_t seed;
    char sessions[EVENTS_N_SESSIONS][EVENTS_SESSION_LEN + 1];
    size_t event_len[EVENTS_N_EVENTS];
};

void events_gen_init(struct events_gen *g, uint64_t seed);

/* One input batch: buffers sized for `cap` rows, allocated once and reused
 * for every batch. `top` (a struct array of the table's columns, in order)
 * and `schema` describe it as Arrow; their release callbacks only mark
 * them released, since the buffers belong to the batch. */
struct events_batch {
    int64_t cap;
    uint64_t alloc_bytes; /* the input buffers, allocated once */
    int32_t *session_off, *event_off, *props_off;
    char *session_data, *event_data, *props_data;
    int64_t *event_id, *ts;
    uint8_t *value_valid;
    double *value;
    const void *bufs[EVENTS_NCOLS][3];
    struct ArrowArray kids[EVENTS_NCOLS];
    struct ArrowArray *kid_ptrs[EVENTS_NCOLS];
    const void *top_bufs[1];
    struct ArrowArray top;
    struct ArrowSchema schema; /* owned: released by events_batch_free */
};

/* Allocates a batch of `cap` rows whose Arrow types are the ones the
 * Parquet writer takes for table t (from events_table_init). Returns 0, or
 * -1 when out of memory (nothing is left allocated). */
int events_batch_init(struct events_batch *b, int64_t cap, const struct lake_table *t);
void events_batch_free(struct events_batch *b);

/* Fills the batch with rows [first, first + n), n <= cap. Resets the
 * lengths and null counts of `top` and its children (not their release
 * callbacks). */
void events_gen_batch(const struct events_gen *g, struct events_batch *b, int64_t first, int64_t n);

#endif
