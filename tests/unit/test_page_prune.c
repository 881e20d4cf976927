/* Page-level pruning (src/expr expr_stats_from_page, src/client prune):
 * a file written with small pages, each page's statistics read back from
 * its page index, the row ranges a predicate keeps (AND, OR, NOT, nulls,
 * a column without bounds), and the file positions of a range read's rows
 * matched against a deletion vector. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "client/prune.h"
#include "expr/expr.h"
#include "lake/dv.h"
#include "pq_testlib.h"
#include "rows/rows_adapt.h"
#include "rows/rows_project.h"
#include "rows/rows_variant.h"
#include "rows/rows_schema.h"

enum { ROWS = 1000, PAGE = 100, GROUP = 500 };

/* k = row, s = 's' + row (null below 100), f = row / 2. */
struct fixture {
    struct test_table tt;
    struct buf file;
    struct pq_source src;
    struct pq_reader *r;
    struct arena a;
};

/* The batch written in pages of PAGE rows and row groups of GROUP, no
 * dictionary, and opened. */
static void open_written(struct fixture *f, const struct ArrowSchema *schema,
                         const struct ArrowArray *batch)
{
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.page_rows = PAGE;
    o.row_group_rows = GROUP;
    o.dictionary = false;
    struct pq_write_result res;
    write_batches(&f->tt.t, &o, schema, batch, 1, &f->file, &res);
    assert_int_equal(res.meta.nrow_groups, ROWS / GROUP);
    pq_write_result_release(&res);
    pq_source_memory(&f->src, f->file.data, f->file.len);
    struct error err;
    assert_int_equal(pq_reader_open(&f->src, &f->r, &err), 0);
    arena_init(&f->a, 0);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    test_table_init(&f->tt, "[{'name':'k','type':'long','nullable':false},"
                            "{'name':'s','type':'string'},{'name':'f','type':'double'}]");
    static int64_t k[ROWS];
    static double fv[ROWS];
    static char text[ROWS][8];
    static const char *strs[ROWS];
    static bool valid[ROWS];
    for (int i = 0; i < ROWS; i++) {
        k[i] = i;
        fv[i] = i / 2.0;
        snprintf(text[i], sizeof text[i], "s%04d", i);
        strs[i] = text[i];
        valid[i] = i >= PAGE;
    }
    struct ArrowSchema cols[3], schema;
    struct ArrowArray arrays[3], batch;
    col_fixed(&cols[0], &arrays[0], "k", "l", k, 8, ROWS, NULL);
    col_bytes(&cols[1], &arrays[1], "s", "u", strs, NULL, ROWS, valid);
    col_fixed(&cols[2], &arrays[2], "f", "g", fv, 8, ROWS, NULL);
    batch_of(&schema, &batch, cols, arrays, 3, ROWS);
    open_written(f, &schema, &batch);
    schema.release(&schema);
    batch.release(&batch);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    arena_free(&f->a);
    pq_reader_free(f->r);
    buf_free(&f->file);
    test_table_release(&f->tt);
    free(f);
    return 0;
}

static void page_stats_from_the_index(void **state)
{
    struct fixture *f = *state;
    const struct pq_schema *schema = pq_reader_schema(f->r);
    struct error err;
    for (size_t g = 0; g < 2; g++) {
        struct pq_page_index ki, si;
        assert_int_equal(pq_reader_page_index(f->r, g, 0, &f->a, &ki, &err), 0);
        assert_int_equal(pq_reader_page_index(f->r, g, 1, &f->a, &si, &err), 0);
        assert_int_equal(ki.offsets.npages, GROUP / PAGE);
        for (size_t p = 0; p < GROUP / PAGE; p++) {
            int64_t first = (int64_t)(g * GROUP + p * PAGE);
            struct expr_field_stats s;
            assert_int_equal(expr_stats_from_page(&f->tt.t, schema, 0, &ki, p, &f->a, &s, &err), 0);
            assert_int_equal(s.field_id, f->tt.t.root.children[0]->field_id);
            assert_int_equal(s.value_count, PAGE);
            assert_int_equal(s.null_count, 0);
            assert_int_equal(s.nan_count, -1);
            int64_t lo, hi;
            assert_int_equal(s.lower_len, 8);
            memcpy(&lo, s.lower, 8);
            memcpy(&hi, s.upper, 8);
            assert_int_equal(lo, first);
            assert_int_equal(hi, first + PAGE - 1);
            /* The string column: the first page holds nulls only. */
            assert_int_equal(expr_stats_from_page(&f->tt.t, schema, 1, &si, p, &f->a, &s, &err), 0);
            if (first == 0) {
                assert_null(s.lower);
                assert_null(s.upper);
                assert_int_equal(s.null_count, PAGE);
            } else {
                char want[8];
                snprintf(want, sizeof want, "s%04d", (int)first);
                assert_int_equal(s.lower_len, 5);
                assert_memory_equal(s.lower, want, 5);
                assert_int_equal(s.null_count, 0);
            }
        }
        /* Past the pages, or a leaf the table does not know: nothing to say. */
        struct expr_field_stats s;
        assert_int_equal(
            expr_stats_from_page(&f->tt.t, schema, 0, &ki, GROUP / PAGE, &f->a, &s, &err), 1);
        struct test_table other;
        test_table_init(&other, "[{'name':'z','type':'long'}]");
        other.t.root.children[0]->field_id = 99;
        assert_int_equal(expr_stats_from_page(&other.t, schema, 0, &ki, 0, &f->a, &s, &err), 1);
        test_table_release(&other);
    }
}

/* The ranges `text` keeps in row group g, as "[b,e)" joined. */
static const char *kept(struct fixture *f, size_t g, const char *text)
{
    static char out[256];
    struct expr_pred *p;
    struct error err;
    if (expr_compile_predicate(&f->a, &f->tt.t, text, strlen(text), &p, &err) != 0)
        fail_msg("%s: %s", text, err.msg);
    struct pq_row_range *r;
    size_t n;
    if (client_row_group_pages(&f->tt.t, p, f->r, g, &f->a, &r, &n) != 0)
        return "whole";
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(out + len, sizeof out - len, "[%lld,%lld)", (long long)r[i].begin,
                                (long long)r[i].end);
    return out;
}

static void ranges_kept(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(kept(f, 0, "k BETWEEN 150 AND 250"), "[100,300)");
    assert_string_equal(kept(f, 1, "k BETWEEN 150 AND 250"), "");
    assert_string_equal(kept(f, 1, "k = 777"), "[200,300)"); /* rows of the row group */
    assert_string_equal(kept(f, 0, "k < 50 OR k >= 450"), "[0,100)[400,500)");
    assert_string_equal(kept(f, 0, "NOT (k < 400)"), "[400,500)");
    assert_string_equal(kept(f, 0, "NOT (k >= 100 AND k < 400)"), "[0,100)[400,500)");
    /* AND of two columns: the pages of both must allow it. */
    assert_string_equal(kept(f, 0, "k < 300 AND s >= 's0250'"), "[200,300)");
    assert_string_equal(kept(f, 0, "k < 300 OR s >= 's0450'"), "[0,300)[400,500)");
    /* Nulls: a page of nulls only holds no value, a page without nulls no
     * null. */
    assert_string_equal(kept(f, 0, "s IS NULL"), "[0,100)");
    assert_string_equal(kept(f, 0, "s = 's0050'"), "");
    assert_string_equal(kept(f, 0, "s IS NOT NULL AND k < 200"), "[100,200)");
    /* A float: no NaN count in the index, so only the lower side prunes. */
    assert_string_equal(kept(f, 0, "f < 60"), "[0,200)");
    assert_string_equal(kept(f, 0, "f > 240"), "[0,500)");
    /* A predicate that reads no column: the page index cannot help. */
    assert_string_equal(kept(f, 0, "true"), "whole");
}

/* k = row; v = {"n": row, "os": "os" + row} shredded into n (int64) and
 * os (string), except row 777, whose n is a string (left in n's value). */
static int setup_variant(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    test_table_init(&f->tt, "[{'name':'k','type':'long','nullable':false},"
                            "{'name':'v','type':'variant','type_params':{'shredding':"
                            "{'type':'object','fields':[{'name':'n','type':'int64'},"
                            "{'name':'os','type':'string'}]}}}]");
    static int64_t k[ROWS];
    static char text[ROWS][40];
    static const char *docs[ROWS];
    for (int i = 0; i < ROWS; i++) {
        k[i] = i;
        if (i == 777)
            snprintf(text[i], sizeof text[i], "{\"n\":\"x\",\"os\":\"os%04d\"}", i);
        else
            snprintf(text[i], sizeof text[i], "{\"n\":%d,\"os\":\"os%04d\"}", i, i);
        docs[i] = text[i];
    }
    struct ArrowSchema cols[2], in, schema;
    struct ArrowArray arrays[2], batch;
    col_fixed(&cols[0], &arrays[0], "k", "l", k, 8, ROWS, NULL);
    col_bytes(&cols[1], &arrays[1], "v", "u", docs, NULL, ROWS, NULL);
    batch_of(&in, &batch, cols, arrays, 2, ROWS);
    struct error err;
    if (rows_adapt_batch(&in, &batch, &f->tt.t, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(rows_table_arrow_schema(&f->tt.t, &schema), 0);
    open_written(f, &schema, &batch);
    in.release(&in);
    schema.release(&schema);
    batch.release(&batch);
    *state = f;
    return 0;
}

/* A variant path's shredded leaf prunes pages as a column does, where its
 * field's residual value is empty in the row group; row group 1, whose n
 * holds a string in one row, is read whole for n but still pruned by os. */
static void variant_path_pages(void **state)
{
    struct fixture *f = *state;
    assert_string_equal(kept(f, 0, "v.n BETWEEN 150 AND 250"), "[100,300)");
    assert_string_equal(kept(f, 0, "v.n = 777"), "");
    assert_string_equal(kept(f, 0, "v.os = 'os0250'"), "[200,300)");
    assert_string_equal(kept(f, 0, "k < 300 AND v.n >= 250"), "[200,300)");
    assert_string_equal(kept(f, 0, "v.n < 50 OR v.os >= 'os0450'"), "[0,100)[400,500)");
    /* A string literal never equals an int leaf's value. */
    assert_string_equal(kept(f, 0, "v.n = 'x'"), "");
    assert_string_equal(kept(f, 1, "v.n = 777"), "whole");
    assert_string_equal(kept(f, 1, "v.n = 777 AND v.os = 'os0777'"), "[200,300)");
    assert_string_equal(kept(f, 1, "v.os = 'os0650'"), "[100,200)");

    /* The kept pages read back as the table's rows. */
    struct pq_row_range range = {100, 300};
    struct rows_projection proj = {0};
    struct ArrowArray b;
    struct error err;
    assert_int_equal(rows_project_open(f->r, &f->tt.t, &proj, &err), 0);
    struct rows_chunks *chunks;
    int64_t first;
    if (rows_project_chunks_ranges(f->r, 0, &range, 1, &proj, &f->tt.t, &chunks, NULL, &err) != 0 ||
        rows_chunks_next(chunks, &b, &first, &err) != 1)
        fail_msg("%s", err.msg);
    rows_chunks_free(chunks);
    assert_int_equal(b.length, 200);
    struct ArrowArray text;
    assert_int_equal(rows_variant_to_json(b.children[1], &text, &err), 0);
    const int32_t *off = text.buffers[1];
    for (int64_t i = 0; i < 200; i++) {
        char want[40];
        snprintf(want, sizeof want, "{\"n\":%lld,\"os\":\"os%04lld\"}", (long long)(100 + i),
                 (long long)(100 + i));
        assert_int_equal(off[i + 1] - off[i], (int32_t)strlen(want));
        assert_memory_equal((const char *)text.buffers[2] + off[i], want, strlen(want));
    }
    text.release(&text);
    b.release(&b);
    rows_project_free(&proj);
}

static void positions_of_ranges(void **state)
{
    (void)state;
    struct lake_dv dv;
    lake_dv_init(&dv);
    /* The row group starts at file position 1000: rows 2, 103 and 109 of
     * it are deleted, and 50 (outside the ranges read). */
    uint64_t del[] = {1002, 1050, 1103, 1109};
    struct error err;
    assert_int_equal(lake_dv_add(&dv, del, 4, &err), 0);
    struct pq_row_range ranges[] = {{0, 5}, {100, 110}};
    struct client_rows_at at = {1000, ranges, 2};
    uint8_t keep[15], want[15];
    memset(keep, 1, sizeof keep);
    memset(want, 1, sizeof want);
    want[2] = want[5 + 3] = want[5 + 9] = 0;
    client_mask_positions(&dv, &at, keep);
    assert_memory_equal(keep, want, sizeof keep);
    /* A row already dropped stays dropped. */
    memset(keep, 0, sizeof keep);
    client_mask_positions(&dv, &at, keep);
    for (size_t i = 0; i < sizeof keep; i++)
        assert_int_equal(keep[i], 0);
    lake_dv_free(&dv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(page_stats_from_the_index, setup, teardown),
        cmocka_unit_test_setup_teardown(ranges_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(variant_path_pages, setup_variant, teardown),
        cmocka_unit_test(positions_of_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
