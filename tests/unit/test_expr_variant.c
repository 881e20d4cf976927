/* Predicates on variant paths (src/expr): props."$os" = 'Mac' evaluated
 * over the table form of a variant column (its storage struct), every
 * family of literal, missing keys, Variant nulls and values of another
 * type as unknown; the binding errors; and pruning by the shredded
 * leaves' row-group statistics, checked against evaluation row by row:
 * a row group that holds a matching row is never ruled out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expr_testlib.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "pq_testlib.h"
#include "rows/rows_adapt.h"
#include "rows/rows_schema.h"
#include "rows/rows_variant.h"
#include "util/arena.h"
#include "util/arrow.h"

static const char columns[] = "[{'name':'id','type':'long','nullable':false},"
                              "{'name':'v','type':'variant'}]";

static const char rows[] =
    "{'id':0,'v':{'os':'Mac','n':5,'price':9.99,'ok':true,'big':12345678901234567890123,"
    "'nested':{'k':'x'}}}\n"
    "{'id':1,'v':{'os':'Linux','n':-3,'price':10,'ok':false,'nested':{'k':null}}}\n"
    "{'id':2,'v':{'os':5,'n':'5','ok':'true','nested':'x'}}\n"
    "{'id':3,'v':null}\n"
    "{'id':4,'v':'just a string'}\n"
    "{'id':5,'v':{'os':null,'n':1e400}}\n"
    "{'id':6,'v':{'$os':'iOS','n':5.0,'OS':'Mac'}}\n";

/* The batch in the table's form: JSON text encoded by rows_adapt. */
static struct xt_fixture *fixture(void)
{
    struct xt_fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    test_table_init(&f->tt, columns);
    char *text = strdup(rows);
    assert_non_null(text);
    /* 1e400 is no double: the row keeps a number the encoder refuses, so
     * it is given as text instead. */
    char *big = strstr(text, "1e400");
    memcpy(big, "'zz' ", 5);
    struct ArrowSchema in;
    xt_batch(&f->tt.t, text, &in, &f->batch);
    free(text);
    struct error err = {0};
    if (rows_adapt_batch(&in, &f->batch, &f->tt.t, &err) != 0)
        fail_msg("adapt: %s", err.msg);
    in.release(&in);
    assert_int_equal(rows_table_arrow_schema(&f->tt.t, &f->schema), 0);
    return f;
}

static int setup(void **state)
{
    *state = fixture();
    return 0;
}

static int teardown(void **state)
{
    xt_fixture_free(*state);
    return 0;
}

#define SELECT(text, want)                                                                         \
    assert_string_equal(xt_select(&f->tt.t, text, &f->schema, &f->batch), want)

static void strings(void **state)
{
    struct xt_fixture *f = *state;
    SELECT("v.os = 'Mac'", "0");
    SELECT("'Mac' = v.os", "0");
    /* Row 2's os is a number, row 5's a Variant null, rows 3, 4, 6 have
     * none: unknown, so neither = nor != (nor NOT) selects them. */
    SELECT("v.os != 'Mac'", "1");
    SELECT("NOT (v.os = 'Mac')", "1");
    SELECT("v.os > 'M'", "0");
    SELECT("v.os BETWEEN 'A' AND 'Mz'", "0,1");
    SELECT("v.os IN ('Linux', 'Windows')", "1");
    SELECT("v.os NOT IN ('Linux')", "0");
    SELECT("v.os NOT IN ('Linux', NULL)", "");
    SELECT("v.\"$os\" = 'iOS'", "6");
    SELECT("v.OS = 'Mac'", "6"); /* keys match exactly, case included */
    SELECT("v.nested.k = 'x'", "0");
    SELECT("v.os = 'Mac' OR v.\"$os\" = 'iOS'", "0,6");
}

static void numbers_and_booleans(void **state)
{
    struct xt_fixture *f = *state;
    SELECT("v.n = 5", "0,6"); /* an int8 and a double 5.0 */
    SELECT("v.n = 5.00", "0,6");
    SELECT("v.n > 4.5", "0,6");
    SELECT("v.n < 0", "1");
    SELECT("v.n >= -3 AND v.n < 5", "1");
    SELECT("v.n IN (5, -3)", "0,1,6");
    SELECT("v.n NOT IN (5)", "1");
    SELECT("v.n = '5'", "2"); /* the string "5", not the number */
    SELECT("v.price = 9.99", "0");
    SELECT("v.price >= 10", "1");
    SELECT("v.price > 9.989999999999999", "0,1");
    SELECT("v.big = 12345678901234567890123", "0");
    SELECT("v.big > 1e22", "0");
    SELECT("v.big < 12345678901234567890123.5", "0");
    SELECT("v.big > 123456789012345678901234567890123456789012", "");
    SELECT("v.ok", "0");
    SELECT("NOT v.ok", "1");
    SELECT("v.ok = FALSE", "1");
    SELECT("v.ok = TRUE OR v.ok = 'true'", "0,2");
}

static void null_tests(void **state)
{
    struct xt_fixture *f = *state;
    SELECT("v IS NULL", "3");
    SELECT("v IS NOT NULL", "0,1,2,4,5,6");
    /* Missing (3, 4, 6), a Variant null (5), or SQL NULL. */
    SELECT("v.os IS NULL", "3,4,5,6");
    SELECT("v.os IS NOT NULL", "0,1,2");
    SELECT("NOT (v.os IS NULL)", "0,1,2");
    SELECT("v.nested.k IS NULL", "1,2,3,4,5,6");
    SELECT("v.nested IS NOT NULL", "0,1,2");
}

static void binding_errors(void **state)
{
    struct xt_fixture *f = *state;
    assert_string_equal(xt_bind_error(&f->tt.t, "v = 'x'"),
                        "at 1 ('v'): 'v' is a variant; compare a path into it (v.key), or test "
                        "IS NULL");
    assert_string_equal(xt_bind_error(&f->tt.t, "v.os = DATE '2026-01-01'"),
                        "at 8 ('DATE '2026-01-01''): 'v.os' is a variant path: compare it with a "
                        "string, a number or TRUE/FALSE");
    assert_string_equal(xt_bind_error(&f->tt.t, "v.os = id"),
                        "at 6 ('='): a variant path compares with a literal only");
    assert_string_equal(xt_bind_error(&f->tt.t, "v.n IN (1, id)"),
                        "at 5 ('IN'): a variant path compares with a literal only");
}

/* The batch at non-zero offsets at every level gives the same rows. */
static void offsets(void **state)
{
    (void)state;
    struct xt_fixture *f = fixture();
    /* Row 0 dropped by the batch's offset, which then moves into the
     * columns and the variant's metadata and value. */
    xt_drop(&f->batch, 1);
    xt_push_offsets(&f->batch, 1, true);
    SELECT("v.os = 'Linux'", "0");
    SELECT("v.n = 5", "5");
    SELECT("v.os IS NULL", "2,3,4,5");
    xt_fixture_free(f);
}

/* ---- pruning ---- */

static const char declared[] =
    "[{'name':'id','type':'long','nullable':false},"
    "{'name':'v','type':'variant','type_params':{'shredding':{'type':'object','fields':["
    "{'name':'os','type':'string'},{'name':'n','type':'int64'},{'name':'d','type':'double'},"
    "{'name':'ok','type':'boolean'},"
    "{'name':'dec','type':'decimal8','precision':18,'scale':2},"
    "{'name':'o','type':'object','fields':[{'name':'k','type':'string'}]}]}}}]";

/* Row i: groups of 50 rows share an os; n rises; every 7th group puts a
 * string into n (so n's residual is not empty there); d is a double or,
 * in group 3, a string. */
static void gen_rows(struct buf *out, int nrows)
{
    static const char *const os[] = {"Linux", "Mac", "Windows", "iOS"};
    for (int i = 0; i < nrows; i++) {
        int g = i / 50;
        buf_printf(out, "{'id':%d,'v':{'os':'%s',", i, os[g % 4]);
        if (g % 7 == 6)
            buf_printf(out, "'n':'s%d',", i);
        else
            buf_printf(out, "'n':%d,", i);
        if (g == 3)
            buf_printf(out, "'d':'x',");
        else
            buf_printf(out, "'d':%d.5,", i);
        buf_printf(out, "'ok':%s,'o':{'k':'k%03d'},'extra':%d}}\n", g % 2 ? "true" : "false", g, i);
    }
    buf_putc(out, '\0');
}

struct pruned_file {
    struct test_table tt;
    struct buf file;
    struct pq_reader *rd;
    struct ArrowSchema read_schema; /* the table's form */
};

static void pruned_file_open(struct pruned_file *pf, int nrows)
{
    test_table_init(&pf->tt, declared);
    struct buf text = BUF_INIT;
    gen_rows(&text, nrows);
    struct ArrowSchema in, schema;
    struct ArrowArray batch;
    xt_batch(&pf->tt.t, text.data, &in, &batch);
    buf_free(&text);
    struct error err = {0};
    if (rows_adapt_batch(&in, &batch, &pf->tt.t, &err) != 0)
        fail_msg("adapt: %s", err.msg);
    in.release(&in);
    assert_int_equal(rows_table_arrow_schema(&pf->tt.t, &schema), 0);
    struct pq_write_options o;
    pq_write_options_default(&o);
    o.row_group_rows = 50;
    struct pq_write_result res;
    pf->file = (struct buf)BUF_INIT;
    write_batches(&pf->tt.t, &o, &schema, &batch, 1, &pf->file, &res);
    pq_write_result_release(&res);
    batch.release(&batch);
    struct pq_source src;
    pq_source_memory(&src, pf->file.data, pf->file.len);
    assert_int_equal(pq_reader_open(&src, &pf->rd, &err), 0);
    pf->read_schema = schema;
}

static void pruned_file_close(struct pruned_file *pf)
{
    pf->read_schema.release(&pf->read_schema);
    pq_reader_free(pf->rd);
    buf_free(&pf->file);
    test_table_release(&pf->tt);
}

/* Row group g in the table's form. */
static void read_group(struct pruned_file *pf, size_t g, struct ArrowArray *out)
{
    struct error err = {0};
    struct ArrowSchema fs;
    assert_int_equal(pq_reader_arrow_schema(pf->rd, &fs, &err), 0);
    if (pq_reader_read_row_group(pf->rd, g, out, &err) != 0 ||
        rows_variant_unshred(fs.children[1], out->children[1], 0, &err) != 0)
        fail_msg("read group %zu: %s", g, err.msg);
    fs.release(&fs);
}

/* How many row groups p rules out; fails when it rules out one that
 * holds a row p selects. */
static size_t groups_pruned(struct pruned_file *pf, const char *text)
{
    struct arena a;
    arena_init(&a, 0);
    struct expr_pred *p;
    struct error err = {0};
    if (expr_compile_predicate(&a, &pf->tt.t, text, strlen(text), &p, &err) != 0)
        fail_msg("'%s': %s", text, err.msg);
    const struct pq_file_meta *meta = pq_reader_meta(pf->rd);
    size_t pruned = 0;
    for (size_t g = 0; g < meta->nrow_groups; g++) {
        struct expr_field_stats *s;
        size_t n;
        assert_int_equal(
            expr_stats_variant_leaves(p, meta, pq_reader_schema(pf->rd), g, &a, &s, &n, &err), 0);
        bool may = expr_pred_may_match(p, s, n);
        struct ArrowArray b;
        read_group(pf, g, &b);
        const char *sel = xt_rows(p, &pf->read_schema, &b);
        b.release(&b);
        if (!may && *sel)
            fail_msg("'%s': row group %zu ruled out, yet rows %s match", text, g, sel);
        pruned += !may;
    }
    arena_free(&a);
    return pruned;
}

static void pruning_by_shredded_leaves(void **state)
{
    (void)state;
    struct pruned_file pf;
    pruned_file_open(&pf, 1000); /* 20 row groups of 50 */
    assert_int_equal(pq_reader_meta(pf.rd)->nrow_groups, 20);
    /* os: one value a group, Windows in groups 2, 6, 10, 14, 18. */
    assert_int_equal(groups_pruned(&pf, "v.os = 'Windows'"), 15);
    assert_int_equal(groups_pruned(&pf, "v.os > 'Mac'"), 10);
    assert_int_equal(groups_pruned(&pf, "v.os IN ('Linux', 'iOS')"), 10);
    assert_int_equal(groups_pruned(&pf, "v.os != 'Mac'"), 5);
    /* Never a number: every group is ruled out. */
    assert_int_equal(groups_pruned(&pf, "v.os = 5"), 20);
    /* n: groups 6 and 13 hold strings in n's value; they are read. */
    assert_int_equal(groups_pruned(&pf, "v.n >= 900"), 16);
    assert_int_equal(groups_pruned(&pf, "v.n < 100.5"), 15);
    assert_int_equal(groups_pruned(&pf, "v.n = 'x'"), 18);
    /* d: group 3's strings keep it; upper bounds of doubles are not used
     * (NaN sorts above them). */
    assert_int_equal(groups_pruned(&pf, "v.d < 100"), 17);
    assert_int_equal(groups_pruned(&pf, "v.d > 100"), 0);
    assert_int_equal(groups_pruned(&pf, "v.ok = TRUE"), 10);
    assert_int_equal(groups_pruned(&pf, "v.o.k = 'k007'"), 19);
    assert_int_equal(groups_pruned(&pf, "v.o.k = 'k007' OR v.os = 'iOS'"), 15);
    assert_int_equal(groups_pruned(&pf, "v.os = 'Windows' AND v.n < 200"), 18);
    /* Nothing to say: an undeclared key, a leaf JSON never fills, a null
     * test. */
    assert_int_equal(groups_pruned(&pf, "v.extra = 3"), 0);
    assert_int_equal(groups_pruned(&pf, "v.dec = 3"), 20); /* always empty */
    assert_int_equal(groups_pruned(&pf, "v.os IS NULL"), 0);
    pruned_file_close(&pf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(strings, setup, teardown),
        cmocka_unit_test_setup_teardown(numbers_and_booleans, setup, teardown),
        cmocka_unit_test_setup_teardown(null_tests, setup, teardown),
        cmocka_unit_test_setup_teardown(binding_errors, setup, teardown),
        cmocka_unit_test(offsets),
        cmocka_unit_test(pruning_by_shredded_leaves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
