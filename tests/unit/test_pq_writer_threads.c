/* The Parquet writer on several threads (pq_write_options.threads): the
 * file is byte for byte the single-thread writer's, whatever the shape,
 * codec or thread count, and reads back; a failure in the middle, from a
 * bad batch or from a page job, leaves no thread running and (under ASan)
 * nothing leaked. */
#include <dirent.h>
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

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char flat_table[] =
    "[{'name':'id','type':'long','nullable':false},{'name':'b','type':'boolean'},"
    " {'name':'i8','type':'int8'},{'name':'i','type':'int'},{'name':'u32','type':'uint32'},"
    " {'name':'f','type':'float'},{'name':'d','type':'double'},{'name':'day','type':'date'},"
    " {'name':'tss','type':'timestamp_s'},{'name':'ts','type':'timestamptz'},"
    " {'name':'s','type':'string'},{'name':'j','type':'json'},{'name':'u','type':'uuid'},"
    " {'name':'bin','type':'binary'},"
    " {'name':'dec','type':'decimal','type_params':{'precision':18,'scale':2}}]";

/* Threads the process runs now, from /proc/self/task. */
static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

struct shape {
    const char *name;
    const char *columns;
    int batches;
    int64_t rows_per_batch;
    struct gen_options gen;
    int64_t row_group_bytes, page_bytes, page_rows;
    bool dictionary;
};

static const struct shape shapes[] = {
    /* many row groups and pages, a few values repeated (dictionaries) */
    {"many row groups", flat_table, 6, 700, {100, 0, 12, true}, 24 * 1024, 2048, 300, true},
    /* distinct values: dictionaries give up part way */
    {"distinct values", flat_table, 3, 3000, {50, 0, 40, false}, 256 * 1024, 8192, 0, true},
    /* one row, one row group */
    {"one row", flat_table, 1, 1, {0, 0, 8, false}, 128 * 1024 * 1024, 1024 * 1024, 20000, true},
    /* mostly nulls, PLAIN only */
    {"nulls", flat_table, 4, 900, {700, 0, 16, false}, 64 * 1024, 4096, 0, false},
    /* structs, lists and maps, nulls at every level */
    {"nested", pq_nested_table, 5, 400, {200, 4, 10, true}, 32 * 1024, 2048, 500, true},
};

static const enum pq_codec codecs[] = {PQ_UNCOMPRESSED, PQ_SNAPPY, PQ_GZIP, PQ_ZSTD, PQ_LZ4_RAW};

/* Writes the shape's batches with `threads` threads into file. */
static void write_shape(const struct test_table *tt, const struct shape *sh, enum pq_codec codec,
                        int threads, const struct ArrowSchema *schema,
                        const struct ArrowArray *batches, struct buf *file)
{
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.codec = codec;
    o.row_group_bytes = sh->row_group_bytes;
    o.page_bytes = sh->page_bytes;
    o.page_rows = sh->page_rows;
    o.dictionary = sh->dictionary;
    o.threads = threads;
    const int32_t delta_ids[] = {1}; /* `id`, where the table has it as its first column */
    o.delta_field_ids = delta_ids;
    o.ndelta = 1;
    struct pq_write_result res;
    buf_reset(file);
    write_batches(&tt->t, &o, schema, batches, (size_t)sh->batches, file, &res);
    pq_write_result_release(&res);
}

static void test_same_bytes_as_one_thread(void **state)
{
    (void)state;
    struct rng g = {0x5eed};
    for (size_t k = 0; k < ARRAY_LEN(shapes); k++) {
        const struct shape *sh = &shapes[k];
        struct test_table tt;
        test_table_init(&tt, sh->columns);
        struct ArrowSchema schemas[8];
        struct ArrowArray batches[8];
        assert_true((size_t)sh->batches <= ARRAY_LEN(batches));
        for (int b = 0; b < sh->batches; b++)
            gen_batch(&tt.t, sh->rows_per_batch, &sh->gen, &g, &schemas[b], &batches[b]);
        for (size_t c = 0; c < ARRAY_LEN(codecs); c++) {
            struct buf one = BUF_INIT, many = BUF_INIT;
            write_shape(&tt, sh, codecs[c], 1, &schemas[0], batches, &one);
            const int counts[] = {0, 2, 3, 5};
            for (size_t t = 0; t < ARRAY_LEN(counts); t++) {
                write_shape(&tt, sh, codecs[c], counts[t], &schemas[0], batches, &many);
                if (many.len != one.len || memcmp(many.data, one.data, one.len) != 0)
                    fail_msg("%s, %s, %d threads: %zu bytes differ from one thread's %zu", sh->name,
                             pq_codec_name(codecs[c]), counts[t], many.len, one.len);
            }
            expect_file_equals(&tt.t, &many, &schemas[0], batches, (size_t)sh->batches);
            buf_free(&one);
            buf_free(&many);
        }
        for (int b = 0; b < sh->batches; b++) {
            batches[b].release(&batches[b]);
            schemas[b].release(&schemas[b]);
        }
        test_table_release(&tt);
    }
}

/* Opens a writer on `threads` threads for the flat table, writes `good`
 * random batches (pages in flight on the workers), and returns it. */
static struct pq_writer *open_busy(const struct test_table *tt, int threads, int good,
                                   struct buf *file, struct rng *g)
{
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.page_bytes = 1024;
    o.row_group_bytes = 1024 * 1024;
    o.threads = threads;
    struct pq_sink sink = {test_sink_buf_write, file};
    struct pq_writer *w;
    struct error err = {0};
    int before = thread_count();
    assert_int_equal(pq_writer_open(&tt->t, &o, &sink, &w, &err), 0);
    assert_int_equal(thread_count(), before + threads - 1);
    struct gen_options gen = {100, 0, 20, false};
    for (int b = 0; b < good; b++) {
        struct ArrowSchema s;
        struct ArrowArray a;
        gen_batch(&tt->t, 2000, &gen, g, &s, &a);
        assert_int_equal(pq_writer_write(w, &s, &a, &err), 0);
        a.release(&a);
        s.release(&s);
    }
    return w;
}

static void test_bad_batch_midway(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, flat_table);
    struct rng g = {7};
    int before = thread_count();
    for (int closing = 0; closing < 2; closing++) {
        struct buf file = BUF_INIT;
        struct pq_writer *w = open_busy(&tt, 4, 3, &file, &g);
        /* A timestamp in seconds past what milliseconds hold: the writer
         * fails part way through shredding the batch. */
        struct gen_options gen = {0, 0, 20, false};
        struct ArrowSchema s;
        struct ArrowArray a;
        gen_batch(&tt.t, 3000, &gen, &g, &s, &a);
        int64_t *secs = (int64_t *)a.children[8]->buffers[1];
        secs[a.children[8]->offset + 2500] = INT64_MAX / 10;
        struct error err = {0};
        assert_int_equal(pq_writer_write(w, &s, &a, &err), -1);
        assert_non_null(strstr(err.msg, "out of range"));
        a.release(&a);
        s.release(&s);
        if (closing) {
            struct pq_write_result res;
            assert_int_equal(pq_writer_close(w, &res, &err), -1);
        } else {
            pq_writer_free(w);
        }
        assert_int_equal(thread_count(), before);
        buf_free(&file);
    }
    test_table_release(&tt);
}

static void test_page_job_failure(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, flat_table);
    struct rng g = {11};
    int before = thread_count();
    for (int threads = 1; threads <= 3; threads += 2) {
        struct buf file = BUF_INIT;
        struct pq_writer *w = open_busy(&tt, threads, 1, &file, &g);
        assert_int_equal(setenv("HOGLAKE_FAILPOINTS", "parquet-page-job-nomem", 1), 0);
        struct gen_options gen = {100, 0, 20, false};
        struct ArrowSchema s;
        struct ArrowArray a;
        gen_batch(&tt.t, 4000, &gen, &g, &s, &a);
        struct error err = {0};
        assert_int_equal(pq_writer_write(w, &s, &a, &err), -1);
        assert_int_equal(err.code, ERR_NOMEM);
        assert_int_equal(unsetenv("HOGLAKE_FAILPOINTS"), 0);
        /* The writer stays failed: nothing more goes in. */
        assert_int_equal(pq_writer_write(w, &s, &a, &err), -1);
        assert_non_null(strstr(err.msg, "failed earlier"));
        a.release(&a);
        s.release(&s);
        pq_writer_free(w);
        assert_int_equal(thread_count(), before);
        buf_free(&file);
    }
    test_table_release(&tt);
}

static void test_thread_counts_refused(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, flat_table);
    struct buf file = BUF_INIT;
    struct pq_sink sink = {test_sink_buf_write, &file};
    struct pq_write_options o;
    pq_write_options_default(&o);
    assert_int_equal(o.threads, 0);
    struct pq_writer *w = NULL;
    struct error err = {0};
    const int bad[] = {-1, PQ_WRITE_MAX_THREADS + 1};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        o.threads = bad[i];
        assert_int_equal(pq_writer_open(&tt.t, &o, &sink, &w, &err), -1);
        assert_int_equal(err.code, ERR_INVALID);
        assert_null(w);
    }
    buf_free(&file);
    test_table_release(&tt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes_as_one_thread),
        cmocka_unit_test(test_bad_batch_midway),
        cmocka_unit_test(test_page_job_failure),
        cmocka_unit_test(test_thread_counts_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
