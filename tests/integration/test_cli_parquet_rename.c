/* `hoglake parquet convert --rename`: inputs whose column names a catalog
 * table cannot have (spaces, a leading digit, non-ASCII, the reserved
 * _hog prefix, names equal but for case, at top level and in structs) are
 * refused with the --rename that fixes them, and converted with it;
 * DuckDB writes the inputs and checks that values and types survive.
 * Bad --rename values are usage errors that leave no file behind. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#if !defined(HOGLAKE_CLI_BIN) || !defined(HL_NODE) || !defined(HL_INTEROP_DIR)
#error "HOGLAKE_CLI_BIN, HL_NODE and HL_INTEROP_DIR must be defined by the build"
#endif

static char dir[256];

struct run {
    int code;
    char *err;
};

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *s = calloc(1, 65536);
    assert_non_null(s);
    size_t n = fread(s, 1, 65535, f);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* Runs `hoglake <args>` in the scratch directory (args shell-quoted). */
static void hl(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hl(struct run *r, const char *fmt, ...)
{
    char args[4096], cmd[5000], path[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd %s && %s %s >/dev/null 2>.stderr", dir, HOGLAKE_CLI_BIN, args);
    int status = system(cmd);
    r->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    snprintf(path, sizeof path, "%s/.stderr", dir);
    r->err = slurp(path);
    unlink(path);
}

static void expect(struct run *r, int code, const char *needle)
{
    if (r->code != code || !strstr(r->err, needle))
        fail_msg("exit %d (want %d), stderr lacks '%s':\n%s", r->code, code, needle, r->err);
    free(r->err);
    r->err = NULL;
}

static bool exists(const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static char *duckdb(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *duckdb(const char *fmt, ...)
{
    char sql[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    return test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
}

static void expect_duckdb(const char *want, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void expect_duckdb(const char *want, const char *fmt, ...)
{
    char sql[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    char *got = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    if (strcmp(got, want) != 0)
        fail_msg("%s\ngave:\n%s\nwant:\n%s", sql, got, want);
    free(got);
}

static int setup(void **state)
{
    (void)state;
    test_scratch_dir(dir, sizeof dir, "cli-parquet-rename");
    /* Names no table accepts, at top level, in a struct and in a struct
     * inside a list; "ok" columns and fields keep theirs. */
    free(duckdb("COPY (SELECT 1::BIGINT AS \"order id\", 'x' AS \"1st\", 2.5::DOUBLE AS "
                "\"Gr\xc3\xb6\xc3\x9f"
                "e\", {'b c': 7::INTEGER, 'ok': 'y'} AS meta, 5::SMALLINT AS _hog_x, "
                "[{'p q': DATE '2024-02-29'}] AS l, 9::DECIMAL(10,2) AS ok) "
                "TO '%s/bad.parquet' (FORMAT PARQUET)",
                dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char fix[] = "order id=order_id,1st=_1st,Gr\xc3\xb6\xc3\x9f"
                          "e=Gr_e,meta.b c=b_c,_hog_x=x_hog_x,l.element.p q=p_q";

static void refused_with_the_rename_to_give(void **state)
{
    (void)state;
    struct run r;
    hl(&r, "parquet convert bad.parquet out.parquet");
    char want[600];
    snprintf(want, sizeof want, "--rename '%s'", fix);
    assert_non_null(strstr(r.err, "'order id': not a valid identifier"));
    assert_non_null(strstr(r.err, "'meta.b c': not a valid identifier"));
    assert_non_null(strstr(r.err, "'_hog_x': starts with the reserved prefix _hog"));
    expect(&r, 1, want);
    assert_false(exists("out.parquet"));
}

static void renamed_keeps_values_and_types(void **state)
{
    (void)state;
    struct run r;
    /* The suggestion, given as two --rename options. */
    hl(&r, "parquet convert bad.parquet out.parquet --rename 'order id=order_id,1st=_1st' "
           "--rename 'Gr\xc3\xb6\xc3\x9f"
           "e=Gr_e,meta.b c=b_c,_hog_x=x_hog_x,l.element.p q=p_q'");
    expect(&r, 0, "");
    expect_duckdb("order_id\tBIGINT\n_1st\tVARCHAR\nGr_e\tDOUBLE\n"
                  "meta\tSTRUCT(b_c INTEGER, ok VARCHAR)\nx_hog_x\tSMALLINT\n"
                  "l\tSTRUCT(p_q DATE)[]\nok\tDECIMAL(10,2)\n",
                  "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "
                  "read_parquet('%s/out.parquet'))",
                  dir);
    expect_duckdb("1\tx\t2.5\t{'b_c': 7, 'ok': y}\t5\t[{'p_q': 2024-02-29}]\t9.00\n",
                  "SELECT * FROM read_parquet('%s/out.parquet')", dir);
}

static void with_a_schema_columns_are_picked_by_input_name(void **state)
{
    (void)state;
    struct run r;
    hl(&r, "parquet convert bad.parquet picked.parquet --schema 'meta:struct<b_c:int, ok:string>, "
           "order_id:long' --rename 'order id=order_id,meta.b c=b_c'");
    expect(&r, 0, "");
    expect_duckdb("{'b_c': 7, 'ok': y}\t1\n", "SELECT * FROM read_parquet('%s/picked.parquet')",
                  dir);
}

static void csv_header_names(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/h.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("order id,ID,id\n1,2,3\n", f);
    fclose(f);
    const char *schema = "--schema 'order_id:long, ID:int, id_2:int'";
    struct run r;
    hl(&r, "parquet convert h.csv h.parquet %s", schema);
    assert_non_null(strstr(r.err, "'id': differs from another name only in case"));
    expect(&r, 1, "--rename 'order id=order_id,id=id_2'");
    assert_false(exists("h.parquet"));
    hl(&r, "parquet convert h.csv h.parquet %s --rename 'order id=order_id,id=id_2'", schema);
    expect(&r, 0, "");
    expect_duckdb("1\t2\t3\n", "SELECT order_id, \"ID\", id_2 FROM read_parquet('%s/h.parquet')",
                  dir);
}

/* A bad --rename: exit 2, this message, no output. */
static void bad_rename(const char *value, const char *needle)
{
    struct run r;
    hl(&r, "parquet convert bad.parquet e.parquet --rename '%s'", value);
    expect(&r, 2, needle);
    assert_false(exists("e.parquet"));
}

static void bad_rename_arguments(void **state)
{
    (void)state;
    bad_rename("nope=x", "bad.parquet has no column 'nope'");
    bad_rename("meta.nope=x", "has no column 'meta.nope'");
    bad_rename("order id=1bad", "'1bad' is not a valid column name");
    bad_rename("order id=_hogz", "reserved prefix '_hog'");
    bad_rename("order id=a,1st=a", "'order id' and '1st' would both be named 'a'");
    bad_rename("order id=OK",
               "'order id' and 'ok' would be named 'OK' and 'ok', equal but for case");
    bad_rename("", "not an empty value");
    bad_rename("order id", "no '=' (expected OLD=NEW)");
    bad_rename("=x", "an empty name in OLD");
    bad_rename("order id=", "NEW is empty");
    bad_rename("order id=a,,1st=b", "an empty OLD=NEW pair");
    bad_rename("order id=a,order id=b", "renamed twice");
    bad_rename("l.element=z", "a list element or map key/value keeps its name");
    struct run r;
    hl(&r, "parquet convert x.jsonl e.parquet --schema 'a:int' --rename 'a=b'");
    expect(&r, 2, "not JSON Lines");
}

static void write_text(const char *name, const char *text)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The text input options convert shares with append: --map with a .tsv
 * and --null; --no-header with --columns from standard input; unknown
 * headers listed together; - without --from. */
static void text_input_options(void **state)
{
    (void)state;
    write_text("m.tsv", "Order ID\tPrice $\n1\tNA\n2\t2.5\n");
    struct run r;
    hl(&r, "parquet convert m.tsv m.parquet --schema 'order_id:long, price:double' --map "
           "'Order ID=order_id,Price $=price' --null NA");
    expect(&r, 0, "");
    expect_duckdb("2\t1\t2.5\n",
                  "SELECT count(*), count(*) FILTER (WHERE price IS NULL), max(price) FROM "
                  "read_parquet('%s/m.parquet')",
                  dir);
    write_text("n.csv", "3;x\n4;y\n");
    hl(&r, "parquet convert - n.parquet --from csv --delimiter ';' --no-header --columns id,name "
           "--schema 'name:string, id:long' < n.csv");
    expect(&r, 0, "");
    expect_duckdb("3\tx\n4\ty\n", "SELECT id, name FROM read_parquet('%s/n.parquet') ORDER BY id",
                  dir);
    hl(&r, "parquet convert - e.parquet --schema 'a:int' < n.csv");
    expect(&r, 2, "reading standard input (-) needs --from");
    hl(&r, "parquet convert m.tsv e.parquet --schema 'order_id:long, price:double, Zone:string'");
    expect(&r, 1, "rename them, for example with --rename 'Order ID=Order_ID,Price $=Price_'");
    write_text("k.csv", "id,Zone,extra\n1,a,b\n");
    hl(&r, "parquet convert k.csv e.parquet --schema 'id:long, zone:string'");
    expect(&r, 1, "the header names 2 columns the schema lacks: 'Zone', 'extra'");
    hl(&r, "parquet convert k.csv e.parquet --schema 'id:long, zone:string'");
    expect(&r, 1, "--map 'Zone=zone,extra=COLUMN'");
    hl(&r, "parquet convert k.csv e.parquet --schema 'id:long' --delimiter ';;'");
    expect(&r, 2, "--delimiter takes one ASCII character");
    assert_false(exists("e.parquet"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refused_with_the_rename_to_give),
        cmocka_unit_test(renamed_keeps_values_and_types),
        cmocka_unit_test(with_a_schema_columns_are_picked_by_input_name),
        cmocka_unit_test(csv_header_names),
        cmocka_unit_test(bad_rename_arguments),
        cmocka_unit_test(text_input_options),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
