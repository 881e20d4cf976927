/* hoglake parquet verify run as a process: files our writer wrote
 * (unshredded and through a declaration) pass, with one summary line a
 * column (files written through a declaration: tests/unit/test_rows_variant.c,
 * since --schema declares none); DuckDB 1.5's variant files are refused (a dictionary flagged
 * sorted that is not, fields listed as inserted), one of them passing
 * only with --no-canonical; a declaration the storage is not a form of is
 * invalid_shredding; a usage error is exit 2. No server: the verb is
 * local. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#ifndef HL_NODE
#error "HL_NODE, HL_INTEROP_DIR and HOGLAKE_CLI_BIN must be defined by the build"
#endif

static char dir[256];

static void duckdb_file(const char *name, const char *values)
{
    char sql[2048];
    snprintf(sql, sizeof sql,
             "COPY (SELECT id::BIGINT AS id, j::JSON::VARIANT AS v FROM (VALUES %s) t(id, j) "
             "ORDER BY id) TO '%s/%s' (FORMAT parquet)",
             values, dir, name);
    free(test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql));
}

static int setup(void **state)
{
    (void)state;
    test_scratch_dir(dir, sizeof dir, "variant-verify");
    cli_session(HOGLAKE_CLI_BIN, "http://127.0.0.1:9", dir);
    test_write_file(
        dir, "in.jsonl",
        "{\"id\":1,\"v\":{\"b\":1,\"a\":2,\"t\":[1,\"x\",{\"z\":1,\"y\":2}]}}\n"
        "{\"id\":2,\"v\":{\"a\":300,\"s\":\"0123456789012345678901234567890123456789"
        "012345678901234567890123456789\"}}\n"
        "{\"id\":3,\"v\":null}\n{\"id\":4,\"v\":[1.5,123456789012345678901234567890]}\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_remove_tree(dir);
    return 0;
}

static void our_files_pass(void **state)
{
    (void)state;
    struct cli_out o;
    cli_do(&o, "parquet convert in.jsonl plain.parquet --schema 'id:long, v:variant'");
    cli_out_expect(&o, 0, "convert");
    cli_out_free(&o);
    cli_do(&o, "parquet verify plain.parquet");
    cli_out_expect(&o, 0, "verify");
    assert_string_equal(
        o.out, "plain.parquet: column 'v': 4 rows verified (canonical, form not checked)\n");
    cli_out_free(&o);
    cli_do(&o, "parquet verify plain.parquet --column v --shredding null --not-null");
    assert_int_equal(o.code, 1);
    expect_contains(o.err, "column 'v': row 2: SQL NULL in a NOT NULL variant column (not_null)",
                    "NOT NULL");
    cli_out_free(&o);
    cli_do(&o, "parquet verify plain.parquet --shredding null");
    cli_out_expect(&o, 0, "the unshredded form");
    expect_contains(o.out, "4 rows verified (canonical, unshredded form)", "summary");
    cli_out_free(&o);
    /* a declaration the plain file is not a form of */
    cli_do(&o, "parquet verify plain.parquet --shredding "
               "'{\"type\":\"object\",\"fields\":[{\"name\":\"a\",\"type\":\"int64\"}]}'");
    assert_int_equal(o.code, 1);
    expect_contains(o.err,
                    "plain.parquet: column 'v': storage field v: has 2 fields where the "
                    "layout has 3, not the declaration's layout (invalid_shredding)",
                    "form mismatch");
    assert_string_equal(o.out, "");
    cli_out_free(&o);
}

static void duckdb_files_refused(void **state)
{
    (void)state;
    /* {"b","a"}: DuckDB flags ["b", "a"] sorted and lists b first, which
     * no --no-canonical excuses */
    duckdb_file("duck.parquet", "(1, '{\"b\":\"x\",\"a\":\"y\"}'), (2, '[1]'), (3, 'true')");
    struct cli_out o;
    cli_do(&o, "parquet verify duck.parquet");
    assert_int_equal(o.code, 1);
    expect_contains(o.err, "duck.parquet: column 'v': row 0", "the row");
    expect_contains(o.err, "field_order", "the rule");
    expect_contains(o.err, "(variant_encoding)", "the reason");
    cli_out_free(&o);
    cli_do(&o, "parquet verify duck.parquet --no-canonical");
    assert_int_equal(o.code, 1);
    expect_contains(o.err, "field_order", "a writer rule");
    cli_out_free(&o);
    /* one key: only canonicity is broken (DuckDB leaves the dictionary
     * unflagged), which --no-canonical lets pass */
    duckdb_file("duck1.parquet", "(1, '{\"a\":\"y\"}'), (2, '[1]'), (3, '\"s\"')");
    cli_do(&o, "parquet verify duck1.parquet");
    assert_int_equal(o.code, 1);
    expect_contains(o.err, "canonical_dictionary", "canonical");
    cli_out_free(&o);
    cli_do(&o, "parquet verify duck1.parquet --no-canonical");
    cli_out_expect(&o, 0, "writer rules only");
    assert_string_equal(
        o.out, "duck1.parquet: column 'v': 3 rows verified (writer rules, form not checked)\n");
    cli_out_free(&o);
}

static void usage_errors(void **state)
{
    (void)state;
    struct cli_out o;
    cli_do(&o, "parquet verify plain.parquet --shredding '{\"type\":\"nope\"}'");
    assert_int_equal(o.code, 2);
    cli_out_free(&o);
    cli_do(&o, "parquet verify plain.parquet --column id");
    assert_int_equal(o.code, 1);
    expect_contains(o.err, "column 'id' is not a variant column", "not a variant");
    cli_out_free(&o);
    cli_do(&o, "parquet verify missing.parquet");
    assert_int_equal(o.code, 3);
    cli_out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(our_files_pass),
        cmocka_unit_test(duckdb_files_refused),
        cmocka_unit_test(usage_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
