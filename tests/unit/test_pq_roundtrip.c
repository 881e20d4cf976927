/* The Parquet writer and reader against each other: random batches of
 * every column type, flat and nested, with nulls at every level, through
 * every codec and layout knob, must read back exactly. (Files are also
 * checked by independent readers in tests/interop.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parquet/compress.h"
#include "pq_testlib.h"
#include "util/arrow.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const scalar_types[] = {
    "boolean", "int8",        "int16",        "int",       "long",         "uint8",
    "uint16",  "uint32",      "uint64",       "float",     "double",       "date",
    "time",    "timestamp_s", "timestamp_ms", "timestamp", "timestamp_ns", "timestamptz",
    "string",  "json",        "uuid",         "binary"};

/* Every scalar type twice (nullable and required) plus three decimals. */
static char *all_scalars_json(void)
{
    struct buf b = BUF_INIT;
    buf_puts(&b, "[");
    for (size_t i = 0; i < ARRAY_LEN(scalar_types); i++) {
        buf_printf(&b, "{'name':'n_%s','type':'%s'},", scalar_types[i], scalar_types[i]);
        buf_printf(&b, "{'name':'r_%s','type':'%s','nullable':false},", scalar_types[i],
                   scalar_types[i]);
    }
    buf_puts(&b, "{'name':'d9','type':'decimal','type_params':{'precision':9,'scale':2}},"
                 "{'name':'d18','type':'decimal','type_params':{'precision':18,'scale':0}},"
                 "{'name':'d38','type':'decimal','type_params':{'precision':38,'scale':10},"
                 "'nullable':false}]");
    return buf_take(&b);
}

struct run {
    const char *columns;
    int64_t rows_per_batch;
    size_t batches;
    struct gen_options gen;
    struct pq_write_options write;
    uint64_t seed;
};

static void round_trip(const struct run *run)
{
    struct test_table tt;
    test_table_init(&tt, run->columns);
    struct rng g = {run->seed};
    struct ArrowSchema *schemas = calloc(run->batches, sizeof *schemas);
    struct ArrowArray *batches = calloc(run->batches, sizeof *batches);
    assert_non_null(schemas);
    assert_non_null(batches);
    for (size_t b = 0; b < run->batches; b++)
        gen_batch(&tt.t, run->rows_per_batch, &run->gen, &g, &schemas[b], &batches[b]);
    struct buf file = BUF_INIT;
    struct pq_write_result result;
    write_batches(&tt.t, &run->write, &schemas[0], batches, run->batches, &file, &result);
    expect_file_equals(&tt.t, &file, &schemas[0], batches, run->batches);
    pq_write_result_release(&result);
    buf_free(&file);
    for (size_t b = 0; b < run->batches; b++) {
        batches[b].release(&batches[b]);
        schemas[b].release(&schemas[b]);
    }
    free(batches);
    free(schemas);
    test_table_release(&tt);
}

static struct run default_run(const char *columns)
{
    struct run r = {.columns = columns, .rows_per_batch = 3000, .batches = 3, .seed = 42};
    r.gen = (struct gen_options){.null_per_mille = 150, .max_list_len = 4, .max_string_len = 12};
    pq_write_options_default(&r.write);
    return r;
}

static void test_all_scalar_types(void **state)
{
    (void)state;
    char *cols = all_scalars_json();
    struct run r = default_run(cols);
    round_trip(&r);
    r.gen.distinct_small = true; /* dictionary pages */
    r.seed = 7;
    round_trip(&r);
    free(cols);
}

static void test_every_codec_and_layout(void **state)
{
    (void)state;
    char *cols = all_scalars_json();
    const enum pq_codec codecs[] = {PQ_UNCOMPRESSED, PQ_SNAPPY, PQ_GZIP, PQ_ZSTD, PQ_LZ4_RAW};
    for (size_t c = 0; c < ARRAY_LEN(codecs); c++) {
        for (int dict = 0; dict < 2; dict++) {
            struct run r = default_run(cols);
            r.rows_per_batch = 1500;
            r.seed = 100 + c * 2 + (uint64_t)dict;
            r.gen.distinct_small = c % 2 == 0;
            r.write.codec = codecs[c];
            r.write.dictionary = dict;
            /* Many pages and several row groups. */
            r.write.page_bytes = 2048;
            r.write.row_group_bytes = 48 * 1024;
            r.write.dictionary_bytes = 512; /* some dictionaries fall back to PLAIN */
            r.write.page_index = c % 2 == 1;
            round_trip(&r);
        }
    }
    free(cols);
}

static void test_nested(void **state)
{
    (void)state;
    const int null_rates[] = {0, 100, 500, 1000};
    for (size_t i = 0; i < ARRAY_LEN(null_rates); i++) {
        struct run r = default_run(pq_nested_table);
        r.gen.null_per_mille = null_rates[i];
        r.seed = 1000 + i;
        round_trip(&r);
        r.write.page_bytes = 1024;
        r.write.row_group_bytes = 32 * 1024;
        r.gen.max_list_len = 9;
        r.write.codec = PQ_SNAPPY;
        round_trip(&r);
    }
}

static void test_empty_and_tiny(void **state)
{
    (void)state;
    struct run r = default_run(pq_nested_table);
    r.batches = 1;
    r.rows_per_batch = 0;
    round_trip(&r);
    r.rows_per_batch = 1;
    round_trip(&r);
    r.batches = 4;
    r.gen.max_list_len = 0; /* only empty lists and maps */
    round_trip(&r);
}

/* Reading a subset of columns by name and by field id gives exactly those
 * columns, in the order asked. */
static void test_selection(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, pq_nested_table);
    struct run run = default_run(pq_nested_table);
    struct rng g = {5};
    struct ArrowSchema s;
    struct ArrowArray a;
    gen_batch(&tt.t, 500, &run.gen, &g, &s, &a);
    struct buf file = BUF_INIT;
    struct pq_write_result result;
    write_batches(&tt.t, &run.write, &s, &a, 1, &file, &result);

    struct pq_source src;
    pq_source_memory(&src, file.data, file.len);
    struct pq_reader *r;
    struct error err = {0};
    assert_int_equal(pq_reader_open(&src, &r, &err), 0);
    const char *names[] = {"mm", "id"};
    assert_int_equal(pq_reader_select_names(r, names, 2, &err), 0);
    struct ArrowArray rg;
    assert_int_equal(pq_reader_read_row_group(r, 0, &rg, &err), 0);
    assert_int_equal(rg.n_children, 2);
    assert_int_equal(rg.length, 500);
    assert_memory_equal(rg.children[1]->buffers[1], a.children[0]->buffers[1], 500 * 8);
    rg.release(&rg);

    int32_t ids[] = {(int32_t)tt.t.root.children[4]->field_id}; /* mm */
    assert_int_equal(pq_reader_select_field_ids(r, ids, 1, &err), 0);
    struct ArrowSchema os;
    assert_int_equal(pq_reader_arrow_schema(r, &os, &err), 0);
    assert_int_equal(os.n_children, 1);
    assert_string_equal(os.children[0]->name, "mm");
    assert_string_equal(os.children[0]->format, "+m");
    os.release(&os);

    const char *bad[] = {"nope"};
    assert_int_equal(pq_reader_select_names(r, bad, 1, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    int32_t bad_id[] = {999};
    assert_int_equal(pq_reader_select_field_ids(r, bad_id, 1, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    assert_int_equal(pq_reader_read_row_group(r, 7, &rg, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    pq_reader_free(r);

    pq_write_result_release(&result);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    test_table_release(&tt);
}

/* The stream yields every row group, then the end, and frees the reader
 * on release. */
static void test_stream(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'v','type':'long'},{'name':'s','type':'string'}]");
    struct run run = default_run("");
    run.write.row_group_bytes = 16 * 1024;
    struct rng g = {9};
    struct ArrowSchema s;
    struct ArrowArray a;
    gen_batch(&tt.t, 20000, &run.gen, &g, &s, &a);
    struct buf file = BUF_INIT;
    struct pq_write_result result;
    write_batches(&tt.t, &run.write, &s, &a, 1, &file, &result);
    assert_true(result.meta.nrow_groups > 3);

    struct pq_source src;
    pq_source_memory(&src, file.data, file.len);
    struct pq_reader *r;
    struct error err = {0};
    assert_int_equal(pq_reader_open(&src, &r, &err), 0);
    struct ArrowArrayStream stream;
    assert_int_equal(pq_reader_stream(r, &stream, &err), 0);
    struct ArrowSchema os;
    assert_int_equal(stream.get_schema(&stream, &os), 0);
    assert_int_equal(os.n_children, 2);
    os.release(&os);
    int64_t rows = 0;
    size_t groups = 0;
    for (;;) {
        struct ArrowArray b;
        assert_int_equal(stream.get_next(&stream, &b), 0);
        if (!b.release)
            break;
        rows += b.length;
        groups++;
        b.release(&b);
    }
    assert_int_equal(rows, 20000);
    assert_int_equal(groups, result.meta.nrow_groups);
    assert_null(stream.get_last_error(&stream));
    stream.release(&stream);

    pq_write_result_release(&result);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    test_table_release(&tt);
}

/* A footer whose column chunk names another column than the schema's
 * leaf at its position is refused at open. */
static void test_chunk_path_must_match_schema(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'a','type':'long'},{'name':'b','type':'long'}]");
    struct run run = default_run("");
    struct rng g = {11};
    struct ArrowSchema s;
    struct ArrowArray a;
    gen_batch(&tt.t, 10, &run.gen, &g, &s, &a);
    struct buf file = BUF_INIT;
    struct pq_write_result result;
    write_batches(&tt.t, &run.write, &s, &a, 1, &file, &result);

    /* Swap the two chunks' paths and splice the re-encoded footer in. */
    const char **pa = result.meta.row_groups[0].columns[0].meta.path;
    const char **pb = result.meta.row_groups[0].columns[1].meta.path;
    const char *tmp = pa[0];
    pa[0] = pb[0];
    pb[0] = tmp;
    struct buf footer = BUF_INIT;
    assert_int_equal(pq_encode_file_meta(&result.meta, &footer), 0);
    struct buf bad = BUF_INIT;
    uint32_t flen = (uint32_t)footer.len;
    assert_int_equal(buf_append(&bad, file.data, file.len - 8 - result.footer_size), 0);
    assert_int_equal(buf_append(&bad, footer.data, footer.len), 0);
    assert_int_equal(buf_append(&bad, &flen, 4), 0);
    assert_int_equal(buf_append(&bad, "PAR1", 4), 0);

    struct pq_source src;
    pq_source_memory(&src, bad.data, bad.len);
    struct pq_reader *r;
    struct error err = {0};
    assert_int_equal(pq_reader_open(&src, &r, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "is not the schema's column 'a'"));
    /* The untouched file opens. */
    pq_source_memory(&src, file.data, file.len);
    assert_int_equal(pq_reader_open(&src, &r, &err), 0);
    pq_reader_free(r);

    buf_free(&bad);
    buf_free(&footer);
    pq_write_result_release(&result);
    buf_free(&file);
    a.release(&a);
    s.release(&s);
    test_table_release(&tt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_scalar_types),
        cmocka_unit_test(test_every_codec_and_layout),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_empty_and_tiny),
        cmocka_unit_test(test_selection),
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_chunk_path_must_match_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
