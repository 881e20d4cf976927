/* Files in layouts older writers left behind, through `hoglake parquet
 * convert` as a user runs it: DuckDB's read of what we wrote must equal
 * DuckDB's read of the input, value for value and shape for shape. The
 * inputs are tests/unit/corpus/legacy_*, layout_* and lenient_*.parquet
 * (assembled by tests/unit/test_pq_layouts.c and test_pq_lenient.c). No
 * server is involved. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

#if !defined(HOGLAKE_CLI_BIN) || !defined(HL_NODE) || !defined(HL_INTEROP_DIR) ||                  \
    !defined(HL_PQ_CORPUS)
#error "HOGLAKE_CLI_BIN, HL_NODE, HL_INTEROP_DIR and HL_PQ_CORPUS must be defined by the build"
#endif

static char dir[256];

static int setup(void **state)
{
    (void)state;
    test_scratch_dir(dir, sizeof dir, "pq-legacy");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_remove_tree(dir);
    return 0;
}

static char *duckdb_rows(const char *file)
{
    char sql[1200];
    snprintf(sql, sizeof sql, "SELECT * FROM read_parquet('%s')", file);
    return test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
}

static char *duckdb_types(const char *file)
{
    char sql[1200];
    snprintf(sql, sizeof sql,
             "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "
             "read_parquet('%s'))",
             file);
    return test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
}

/* types: also compare DuckDB's column types. (The lenient files are
 * assembled with a STRING logical type and no UTF8 converted type, which
 * DuckDB 1.x types BLOB; our output carries both, so there only the
 * values are compared.) */
static void converts_as_duckdb_reads(const char *name, bool types)
{
    char in[600], out[600], cmd[2000];
    snprintf(in, sizeof in, "%s/%s.parquet", HL_PQ_CORPUS, name);
    snprintf(out, sizeof out, "%s/%s-converted.parquet", dir, name);
    snprintf(cmd, sizeof cmd, "'%s' parquet convert '%s' '%s' >'%s/out.txt' 2>&1", HOGLAKE_CLI_BIN,
             in, out, dir);
    int status = system(cmd);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char log[700];
        snprintf(log, sizeof log, "%s/out.txt", dir);
        char *text = test_read_text(log);
        fail_msg("%s: parquet convert failed: %s", name, text);
    }
    char *want = duckdb_rows(in), *got = duckdb_rows(out);
    if (strcmp(want, got) != 0)
        fail_msg("%s: DuckDB reads the input as\n%sand our conversion as\n%s", name, want, got);
    free(want);
    free(got);
    if (!types)
        return;
    want = duckdb_types(in);
    got = duckdb_types(out);
    if (strcmp(want, got) != 0)
        fail_msg("%s: DuckDB types the input as\n%sand our conversion as\n%s", name, want, got);
    free(want);
    free(got);
}

/* A two-level list whose repeated group is itself a LIST: a list of
 * lists (read as a list of structs before). */
static void list_of_lists(void **state)
{
    (void)state;
    converts_as_duckdb_reads("legacy_list_of_lists", true);
}

/* The writer quirks the reader accepts (docs/parquet-robustness.md,
 * "Leniencies"), in files tests/unit/test_pq_lenient.c assembled. */
static void lenient_files(void **state)
{
    (void)state;
    static const char *const names[] = {
        "lenient_dict_no_offset_short_size", "lenient_footer_num_rows_zero",
        "lenient_int96_year_9999",           "lenient_v2_flat_rep_levels",
        "lenient_empty_offsets_in_magic",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        converts_as_duckdb_reads(names[i], false);
}

/* INT96 within the nanosecond range keeps its nanoseconds (Impala writes
 * them); DuckDB reads INT96 at microseconds, so our output, truncated to
 * microseconds, must read as DuckDB reads the input. */
static void int96_keeps_its_nanoseconds(void **state)
{
    (void)state;
    char in[600], out[600], cmd[2000], sql[1400];
    snprintf(in, sizeof in, "%s/lenient_int96_in_range.parquet", HL_PQ_CORPUS);
    snprintf(out, sizeof out, "%s/int96-converted.parquet", dir);
    snprintf(cmd, sizeof cmd, "'%s' parquet convert '%s' '%s' >/dev/null 2>&1", HOGLAKE_CLI_BIN, in,
             out);
    int status = system(cmd);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *want = duckdb_rows(in);
    snprintf(sql, sizeof sql, "SELECT CAST(ts AS TIMESTAMP) FROM read_parquet('%s')", out);
    char *got = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    if (strcmp(want, got) != 0)
        fail_msg("DuckDB reads the input as\n%sand our conversion, at microseconds, as\n%s", want,
                 got);
    free(want);
    free(got);
    snprintf(sql, sizeof sql, "SELECT typeof(ts) FROM read_parquet('%s') LIMIT 1", out);
    got = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    assert_string_equal(got, "TIMESTAMP_NS\n");
    free(got);
}

/* FLOAT16 half floats: DuckDB reads them as FLOAT, and so does our
 * conversion (a float column). */
static void float16(void **state)
{
    (void)state;
    converts_as_duckdb_reads("layout_float16", true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(list_of_lists),
        cmocka_unit_test(lenient_files),
        cmocka_unit_test(int96_keeps_its_nanoseconds),
        cmocka_unit_test(float16),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
