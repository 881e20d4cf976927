/* events_dump: writes the standard event table's rows (bench/parquet's
 * events.h generator, as append_bench streams them) to stdout as raw Arrow
 * buffers, so that bench/python's Python side appends the very bytes the C
 * side appends, with the same Arrow formats and the same batch boundaries.
 *
 *   events_dump [--rows N] [--batch-rows N] [--seed N] > FILE
 *
 * The stream, native byte order (it is read on the same machine):
 *   "HLEVTS1\n", i64 batch_rows (the batch size asked for)
 *   u32 length + text: the table's ColumnDef JSON (events_table_json)
 *   i64 ncols; per column: u32 length + Arrow format, u32 length + name
 *   per batch: i64 rows (> 0); per column: i64 null_count, i64 n_buffers,
 *              per buffer: i64 byte length (0: a NULL buffer) + the bytes
 *   i64 0: the end
 * Exits 0, 1 on a write error, 2 on bad arguments. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

static const char MAGIC[8] = "HLEVTS1\n";

static int64_t parse_count(const char *flag, const char *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < 0) {
        fprintf(stderr, "events_dump: %s: bad number '%s'\n", flag, v);
        exit(2);
    }
    return x;
}

/* Writes are checked once, by ferror, before exiting. */
static void put_i64(int64_t v)
{
    fwrite(&v, sizeof v, 1, stdout);
}

static void put_text(const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    fwrite(&n, sizeof n, 1, stdout);
    fwrite(s, 1, n, stdout);
}

static void put_buffer(const void *p, int64_t bytes)
{
    put_i64(p ? bytes : 0);
    if (p)
        fwrite(p, 1, (size_t)bytes, stdout);
}

/* The byte length of buffer k of column c in a batch of n rows, from the
 * layout events_batch_init gives each column: strings (validity, int32
 * offsets, data), doubles with a validity bitmap, plain 64-bit values. */
static int64_t buffer_bytes(const struct events_batch *b, int c, int k, int64_t n)
{
    const struct ArrowArray *a = &b->kids[c];
    if (k == 0)
        return (n + 7) / 8;
    if (a->n_buffers == 3)
        return k == 1 ? (n + 1) * 4 : ((const int32_t *)a->buffers[1])[n];
    return n * 8;
}

int main(int argc, char **argv)
{
    int64_t rows = 2000000, batch_rows = 65536;
    uint64_t seed = 42; /* append_bench's default */
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            fprintf(stderr, "usage: events_dump [--rows N] [--batch-rows N] [--seed N]\n");
            return 2;
        }
        if (strcmp(argv[i], "--rows") == 0)
            rows = parse_count(argv[i], argv[i + 1]);
        else if (strcmp(argv[i], "--batch-rows") == 0)
            batch_rows = parse_count(argv[i], argv[i + 1]);
        else if (strcmp(argv[i], "--seed") == 0)
            seed = (uint64_t)parse_count(argv[i], argv[i + 1]);
        else {
            fprintf(stderr, "events_dump: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (batch_rows < 1) {
        fprintf(stderr, "events_dump: --batch-rows must be at least 1\n");
        return 2;
    }

    struct arena arena;
    struct lake_table lt;
    char msg[256];
    struct events_gen *g = malloc(sizeof *g);
    struct events_batch b;
    if (events_table_init(&arena, &lt, msg, sizeof msg) != 0) {
        fprintf(stderr, "events_dump: %s\n", msg);
        return 1;
    }
    if (!g || events_batch_init(&b, batch_rows, &lt) != 0) {
        fprintf(stderr, "events_dump: out of memory\n");
        return 1;
    }
    events_gen_init(g, seed);

    fwrite(MAGIC, 1, sizeof MAGIC, stdout);
    put_i64(batch_rows);
    put_text(events_table_json);
    put_i64(EVENTS_NCOLS);
    for (int c = 0; c < EVENTS_NCOLS; c++) {
        put_text(b.schema.children[c]->format);
        put_text(b.schema.children[c]->name);
    }
    for (int64_t first = 0; first < rows && !ferror(stdout); first += batch_rows) {
        int64_t n = rows - first < batch_rows ? rows - first : batch_rows;
        events_gen_batch(g, &b, first, n);
        put_i64(n);
        for (int c = 0; c < EVENTS_NCOLS; c++) {
            const struct ArrowArray *a = &b.kids[c];
            put_i64(a->null_count);
            put_i64(a->n_buffers);
            for (int k = 0; k < a->n_buffers; k++)
                put_buffer(a->buffers[k], buffer_bytes(&b, c, k, n));
        }
    }
    put_i64(0);
    int failed = fflush(stdout) != 0 || ferror(stdout);
    if (failed)
        fprintf(stderr, "events_dump: writing the rows: %s\n", strerror(errno));

    events_batch_free(&b);
    free(g);
    lake_table_release(&lt);
    arena_free(&arena);
    return failed ? 1 : 0;
}
