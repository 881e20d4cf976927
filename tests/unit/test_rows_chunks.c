/* Adapting a batch in chunks (rows/rows_adapt.h, rows_adapt_chunks): a
 * variant column is encoded a chunk of rows at a time, the other columns
 * lent to each chunk at an offset. The chunks written by the Parquet writer
 * must give the file the whole batch gives, nested columns included; chunks
 * end at their row and byte bounds; errors and invalid-row counts speak of
 * the whole batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pq_testlib.h"
#include "rows/rows_adapt.h"
#include "rows/rows_schema.h"
#include "util/arrow.h"
#include "util/buf.h"

/* Nested columns (structs, lists, a map) for gen_batch, then with a
 * variant column v: the table. */
#define NESTED_COLUMNS                                                                             \
    "{'name':'id','type':'long','nullable':false},"                                                \
    " {'name':'s','type':'struct','children':["                                                    \
    "   {'name':'a','type':'int'},"                                                                \
    "   {'name':'l','type':'list','children':[{'name':'element','type':'struct','children':["      \
    "       {'name':'x','type':'double'},"                                                         \
    "       {'name':'m','type':'map','children':["                                                 \
    "         {'name':'key','type':'string','nullable':false},"                                    \
    "         {'name':'value','type':'long'}]}]}]}]},"                                             \
    " {'name':'ll','type':'list','nullable':false,'children':[{'name':'element','type':'list',"    \
    "   'children':[{'name':'element','type':'string'}]}]}"
static const char plain_json[] = "[" NESTED_COLUMNS "]";
static const char table_json[] = "[" NESTED_COLUMNS ", {'name':'v','type':'variant'}]";

/* Row i's JSON text: sizes vary from row to row; NULL for a SQL NULL. */
static char *row_json(int64_t i, bool *valid)
{
    *valid = i % 11 != 3;
    struct buf b = BUF_INIT;
    buf_printf(&b, "{\"n\":%lld,\"tags\":[", (long long)i);
    for (int64_t k = 0; k < i % 17; k++)
        buf_printf(&b, "%s\"t%lld\"", k ? "," : "", (long long)(k * i));
    buf_printf(&b, "],\"deep\":{\"x\":%g,\"s\":\"%.*s\"}}", (double)i / 8, (int)(i % 90),
               "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcde"
               "fghijklm");
    return buf_take(&b);
}

/* A batch of n rows of the table: the nested columns drawn at random
 * (seed), v JSON text. Same seed, same batch. */
static void make_batch(const struct lake_table *plain, int64_t n, uint64_t seed,
                       struct ArrowSchema *schema, struct ArrowArray *batch)
{
    struct rng g = {seed};
    struct gen_options o = {.null_per_mille = 100, .max_list_len = 4, .max_string_len = 12};
    struct ArrowSchema gs;
    struct ArrowArray gb;
    gen_batch(plain, n, &o, &g, &gs, &gb);
    int64_t nc = gs.n_children;
    struct ArrowSchema *cols = calloc((size_t)nc + 1, sizeof *cols);
    struct ArrowArray *arrays = calloc((size_t)nc + 1, sizeof *arrays);
    assert_non_null(cols);
    assert_non_null(arrays);
    for (int64_t c = 0; c < nc; c++) {
        arrow_schema_move(gs.children[c], &cols[c]);
        arrow_array_move(gb.children[c], &arrays[c]);
    }
    gs.release(&gs);
    gb.release(&gb);
    char **texts = calloc((size_t)n, sizeof *texts);
    bool *valid = calloc((size_t)n, sizeof *valid);
    assert_non_null(texts);
    assert_non_null(valid);
    for (int64_t i = 0; i < n; i++)
        texts[i] = row_json(i, &valid[i]);
    col_bytes(&cols[nc], &arrays[nc], "v", "u", (const char *const *)texts, NULL, n, valid);
    for (int64_t i = 0; i < n; i++)
        free(texts[i]);
    free(texts);
    free(valid);
    batch_of(schema, batch, cols, arrays, nc + 1, n);
    free(cols);
    free(arrays);
}

struct collect {
    struct pq_writer *w;
    const struct ArrowSchema *wschema;
    int64_t lengths[64];
    const struct ArrowArray *first;
    int nchunks;
};

static int write_to_file(void *ctx, const struct ArrowArray *chunk, struct error *err)
{
    struct collect *c = ctx;
    assert_true(c->nchunks < 64);
    if (c->nchunks == 0)
        c->first = chunk;
    c->lengths[c->nchunks++] = chunk->length;
    return pq_writer_write(c->w, c->wschema, chunk, err);
}

struct fixture {
    struct test_table tt, plain;
    struct ArrowSchema wschema; /* the table's Arrow form */
};

static void fixture_init(struct fixture *f)
{
    test_table_init(&f->tt, table_json);
    test_table_init(&f->plain, plain_json);
    assert_int_equal(rows_table_arrow_schema(&f->tt.t, &f->wschema), 0);
}

static void fixture_free(struct fixture *f)
{
    f->wschema.release(&f->wschema);
    test_table_release(&f->tt);
    test_table_release(&f->plain);
}

/* A collector writing the table's file into out. */
static void collect_open(struct fixture *f, struct collect *c, struct buf *out)
{
    struct pq_write_options wo;
    pq_write_options_default(&wo);
    struct pq_sink sink = {test_sink_buf_write, out};
    memset(c, 0, sizeof *c);
    c->wschema = &f->wschema;
    struct error err;
    if (pq_writer_open(&f->tt.t, &wo, &sink, &c->w, &err) != 0)
        fail_msg("writer: %s", err.msg);
}

/* Closes the collector's file (ok) or drops it. */
static void collect_close(struct collect *c, bool ok)
{
    struct pq_write_result res;
    struct error err;
    if (!ok) {
        pq_writer_free(c->w);
        return;
    }
    if (pq_writer_close(c->w, &res, &err) != 0)
        fail_msg("close: %s", err.msg);
    pq_write_result_release(&res);
}

/* Adapts (and writes) a batch made from seed with the options; *out is
 * the file. Returns rows_adapt_chunks' result. */
static int adapt_into(struct fixture *f, int64_t n, uint64_t seed, struct rows_adapt_options *ao,
                      struct buf *out, struct collect *c, struct error *err)
{
    struct ArrowSchema schema;
    struct ArrowArray batch;
    make_batch(&f->plain.t, n, seed, &schema, &batch);
    collect_open(f, c, out);
    int rc = rows_adapt_chunks(&schema, &batch, &f->tt.t, ao, write_to_file, c, err);
    collect_close(c, rc == 0);
    schema.release(&schema);
    return rc;
}

/* The batch made from seed, converted whole in place: the reference. */
static void whole_batch(struct fixture *f, int64_t n, uint64_t seed, struct ArrowArray *out)
{
    struct ArrowSchema schema;
    make_batch(&f->plain.t, n, seed, &schema, out);
    struct error err;
    if (rows_adapt_batch(&schema, out, &f->tt.t, &err) != 0)
        fail_msg("%s", err.msg);
    schema.release(&schema);
}

/* 5000 rows in chunks of 777: the same file as the batch in one piece. */
static void chunks_write_the_whole_batch(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f);
    struct error err = {0};
    struct ArrowArray whole;
    whole_batch(&f, 5000, 42, &whole);
    struct buf file1 = BUF_INIT, file2 = BUF_INIT;
    struct collect c1, c2;
    struct rows_adapt_options one = {0}, many = {.chunk_rows = 777};
    assert_int_equal(adapt_into(&f, 5000, 42, &one, &file1, &c1, &err), 0);
    assert_int_equal(c1.nchunks, 1);
    if (adapt_into(&f, 5000, 42, &many, &file2, &c2, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(c2.nchunks, 7);
    for (int k = 0; k < 6; k++)
        assert_int_equal(c2.lengths[k], 777);
    assert_int_equal(c2.lengths[6], 5000 - 6 * 777);
    /* The chunked file holds the rows of the batch converted whole. */
    expect_file_equals(&f.tt.t, &file2, &f.wschema, &whole, 1);
    expect_file_equals(&f.tt.t, &file1, &f.wschema, &whole, 1);
    /* Storage input (the table's form, as a file's VARIANT group reads)
     * is unshredded a chunk at a time too. */
    struct ArrowArray storage_in;
    whole_batch(&f, 5000, 42, &storage_in);
    struct buf file3 = BUF_INIT;
    struct collect c3;
    struct rows_adapt_options storage = {.chunk_rows = 1500};
    collect_open(&f, &c3, &file3);
    if (rows_adapt_chunks(&f.wschema, &storage_in, &f.tt.t, &storage, write_to_file, &c3, &err) !=
        0)
        fail_msg("%s", err.msg);
    collect_close(&c3, true);
    assert_int_equal(c3.nchunks, 4);
    expect_file_equals(&f.tt.t, &file3, &f.wschema, &whole, 1);
    buf_free(&file3);
    whole.release(&whole);
    buf_free(&file1);
    buf_free(&file2);
    fixture_free(&f);
}

/* Chunks are the caller's: kept past the iterator (which releases the
 * batch's own hold), released out of order, a child moved out of one,
 * they still hold their rows (the views keep the batch's buffers). */
static void chunks_outlive_the_iterator(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f);
    struct ArrowArray whole;
    whole_batch(&f, 2000, 9, &whole);
    struct ArrowSchema schema;
    struct ArrowArray batch;
    make_batch(&f.plain.t, 2000, 9, &schema, &batch);
    struct rows_adapt_options ao = {.chunk_rows = 600};
    struct rows_chunks *c;
    struct error err;
    assert_int_equal(rows_chunks_open(&schema, &batch, &f.tt.t, &ao, &c, &err), 0);
    struct ArrowArray chunks[4];
    int64_t first[4];
    for (int k = 0; k < 4; k++)
        assert_int_equal(rows_chunks_next(c, &chunks[k], &first[k], &err), 1);
    struct ArrowArray none;
    int64_t at;
    assert_int_equal(rows_chunks_next(c, &none, &at, &err), 0);
    rows_chunks_free(c);
    schema.release(&schema);
    assert_int_equal(first[3], 1800);
    assert_int_equal(chunks[3].length, 200);
    /* Column s of chunk 1 moved out and chunk 0 released first. */
    struct ArrowArray s1;
    arrow_array_move(chunks[1].children[1], &s1);
    struct buf file = BUF_INIT;
    struct collect col;
    collect_open(&f, &col, &file);
    chunks[0].release(&chunks[0]);
    s1.release(&s1);
    for (int k = 2; k < 4; k++)
        assert_int_equal(write_to_file(&col, &chunks[k], &err), 0);
    collect_close(&col, true);
    /* The last two chunks' rows: rows 1200..1999 of the batch. */
    struct arrow_share *ws = arrow_share_new(&whole);
    assert_non_null(ws);
    struct ArrowArray tail;
    assert_int_equal(arrow_array_init(&tail, 1, 4), 0);
    tail.length = 800;
    for (int64_t k = 0; k < 4; k++)
        assert_int_equal(arrow_share_view(ws, k, 1200, 800, tail.children[k]), 0);
    arrow_share_unref(ws);
    expect_file_equals(&f.tt.t, &file, &f.wschema, &tail, 1);
    tail.release(&tail);
    for (int k = 1; k < 4; k++)
        chunks[k].release(&chunks[k]);
    buf_free(&file);
    fixture_free(&f);
}

/* A chunk ends at the row that brings its JSON text to the byte bound. */
static void chunks_end_at_the_byte_bound(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f);
    struct error err = {0};
    struct buf file = BUF_INIT;
    struct collect c;
    const int64_t bound = 20000;
    struct rows_adapt_options ao = {.chunk_bytes = bound};
    if (adapt_into(&f, 3000, 7, &ao, &file, &c, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(c.nchunks > 3);
    /* Each chunk's rows, their text and offsets: under the bound without
     * its last row, at or past it with (the last chunk may fall short). */
    struct ArrowSchema s;
    struct ArrowArray b;
    make_batch(&f.plain.t, 3000, 7, &s, &b);
    const struct ArrowArray *v = b.children[3];
    const int32_t *off = v->buffers[1];
    int64_t start = 0;
    for (int k = 0; k < c.nchunks; k++) {
        int64_t end = start + c.lengths[k];
        int64_t bytes = off[end] - off[start] + 4 * (end - start);
        int64_t last = off[end] - off[end - 1] + 4;
        assert_true(bytes - last < bound);
        if (k + 1 < c.nchunks)
            assert_true(bytes >= bound);
        start = end;
    }
    assert_int_equal(start, 3000);
    b.release(&b);
    s.release(&s);
    buf_free(&file);
    fixture_free(&f);
}

/* Rows 5 and 701 (when given) of a 1000-row batch made not JSON: a
 * '{' made '['. */
static void make_broken_batch(struct fixture *f, bool break5, struct ArrowSchema *s,
                              struct ArrowArray *b)
{
    make_batch(&f->plain.t, 1000, 3, s, b);
    struct ArrowArray *v = b->children[3];
    const int32_t *off = v->buffers[1];
    char *data = (char *)v->buffers[2];
    if (break5)
        data[off[5]] = '[';
    data[off[701]] = '[';
}

/* A bad row in the fourth chunk is named by its row in the batch; with
 * on_invalid null, every chunk's invalid rows are counted. */
static void chunk_errors_speak_of_the_batch(void **state)
{
    (void)state;
    struct fixture f;
    fixture_init(&f);
    struct ArrowSchema s;
    struct ArrowArray b;
    struct buf file = BUF_INIT;
    struct collect c;
    struct error err = {0};
    struct rows_adapt_options strict = {.chunk_rows = 200};
    for (int break5 = 1; break5 >= 0; break5--) {
        make_broken_batch(&f, break5, &s, &b);
        collect_open(&f, &c, &file);
        assert_int_equal(rows_adapt_chunks(&s, &b, &f.tt.t, &strict, write_to_file, &c, &err), -1);
        assert_string_equal(err.reason, "invalid_json");
        const char *want = break5 ? "column 'v': row 5:" : "column 'v': row 701:";
        if (!strstr(err.msg, want))
            fail_msg("%s", err.msg);
        /* Row 701 is in the fourth chunk: three were written. */
        assert_int_equal(c.nchunks, break5 ? 0 : 3);
        collect_close(&c, false);
        s.release(&s);
        buf_free(&file);
    }

    make_broken_batch(&f, true, &s, &b);
    struct rows_variant_invalid by_column[4] = {0};
    struct rows_adapt_options lenient = {.chunk_rows = 200,
                                         .variant_on_invalid = ROWS_VARIANT_INVALID_NULL,
                                         .variant_invalid_by_column = by_column};
    collect_open(&f, &c, &file);
    if (rows_adapt_chunks(&s, &b, &f.tt.t, &lenient, write_to_file, &c, &err) != 0)
        fail_msg("%s", err.msg);
    collect_close(&c, true);
    assert_int_equal(lenient.variant_invalid, 2);
    assert_int_equal(by_column[3].by_reason[RV_INVALID_JSON], 2);
    assert_int_equal(c.nchunks, 5);
    s.release(&s);
    buf_free(&file);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunks_write_the_whole_batch),
        cmocka_unit_test(chunks_outlive_the_iterator),
        cmocka_unit_test(chunks_end_at_the_byte_bound),
        cmocka_unit_test(chunk_errors_speak_of_the_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
