/* Unit tests for src/server/db/pgarray: PostgreSQL array literals for
 * unnest()-based bulk statements.
 *
 * The literals are checked as text, and, when HOGLAKE_TEST_PG_URL names a
 * PostgreSQL server, read back by that server: every element must come out
 * of `unnest($1::text[])` (or bigint[], bytea[], the nested int8 lists cast
 * back with ::bigint[]) exactly as it went in. Without the variable that
 * part is skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libpq-fe.h>

#include "server/db/pgarray.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Text elements that need quoting or escaping, or that look like syntax. */
static const char *const tricky[] = {
    "",
    "NULL",
    "null",
    "NuLl",
    "\"NULL\"",
    "plain",
    "a,b",
    ",",
    "{",
    "}",
    "{x}",
    "{1,2}",
    "\"",
    "\"\"",
    "\\",
    "\\\\",
    "a\"b\\c",
    "\\\"",
    "\\x00",
    "'single'",
    " ",
    " lead",
    "trail ",
    "tab\there",
    "new\nline",
    "cr\rlf",
    "\x01\x1f\x7f",
    "s3://bucket/prefix/a b/c,d{e}.parquet",
    "\xc3\xa9t\xc3\xa9", /* été */
    "\xe2\x9c\x93",      /* U+2713 */
    "\xf0\x9f\x98\x80",  /* U+1F600 */
    "\xc2\xa0nbsp",      /* U+00A0 */
    "\xe2\x80\xa8",      /* U+2028 */
    "\xef\xbb\xbf"
    "bom", /* U+FEFF */
    "2026-01-01",
    "-1",
};

/* ---- the literals as text ---- */

static void test_empty(void **state)
{
    (void)state;
    struct pg_array a;
    pg_array_init(&a);
    assert_string_equal(pg_array_text(&a), "{}");
    pg_array_free(&a);
}

static void test_ints(void **state)
{
    (void)state;
    struct pg_array a;
    pg_array_init(&a);
    pg_array_i64(&a, 1);
    pg_array_i64(&a, 0);
    pg_array_i64(&a, -2);
    pg_array_i64(&a, INT64_MAX);
    pg_array_i64(&a, INT64_MIN);
    assert_string_equal(pg_array_text(&a), "{1,0,-2,9223372036854775807,-9223372036854775808}");
    pg_array_free(&a);
    pg_array_init(&a);
    pg_array_i64(&a, 42);
    assert_string_equal(pg_array_text(&a), "{42}");
    pg_array_free(&a);
}

static void test_nulls(void **state)
{
    (void)state;
    struct pg_array a;
    pg_array_init(&a);
    pg_array_null(&a);
    pg_array_i64(&a, 1);
    pg_array_str(&a, NULL);
    pg_array_bytes(&a, NULL, 0);
    pg_array_i64_list(&a, NULL, 0);
    pg_array_null(&a);
    assert_string_equal(pg_array_text(&a), "{NULL,1,NULL,NULL,NULL,NULL}");
    pg_array_free(&a);
}

static void test_text_escapes(void **state)
{
    (void)state;
    static const struct {
        const char *in, *literal;
    } cases[] = {
        {"", "\"\""},
        {"NULL", "\"NULL\""}, /* quoted: data, not SQL NULL */
        {"null", "\"null\""},
        {"a,b", "\"a,b\""},
        {"{x}", "\"{x}\""},
        {"\"", "\"\\\"\""},
        {"\\", "\"\\\\\""},
        {"a\"b\\c", "\"a\\\"b\\\\c\""},
        {" x ", "\" x \""},
        {"tab\there", "\"tab\there\""},
        {"\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\""},
        {"'", "\"'\""},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        struct pg_array a;
        pg_array_init(&a);
        pg_array_str(&a, cases[i].in);
        char want[128];
        snprintf(want, sizeof want, "{%s}", cases[i].literal);
        assert_string_equal(pg_array_text(&a), want);
        pg_array_free(&a);
    }
    struct pg_array a;
    pg_array_init(&a);
    pg_array_str(&a, "x");
    pg_array_str(&a, "");
    pg_array_str(&a, NULL);
    pg_array_str(&a, "NULL");
    assert_string_equal(pg_array_text(&a), "{\"x\",\"\",NULL,\"NULL\"}");
    pg_array_free(&a);
}

static void test_bytes(void **state)
{
    (void)state;
    static const uint8_t b[] = {0x00, 0xff, 0x10, 0x5c, 0x22, 0x7b};
    struct pg_array a;
    pg_array_init(&a);
    pg_array_bytes(&a, b, sizeof b);
    pg_array_bytes(&a, b, 0); /* empty, not NULL */
    pg_array_bytes(&a, NULL, 0);
    pg_array_bytes(&a, b + 1, 1);
    /* The array literal unescapes \\ to \, leaving bytea's hex form. */
    assert_string_equal(pg_array_text(&a), "{\"\\\\x00ff105c227b\",\"\\\\x\",NULL,\"\\\\xff\"}");
    pg_array_free(&a);
}

static void test_i64_lists(void **state)
{
    (void)state;
    static const int64_t v[] = {4, 500, INT64_MAX, INT64_MIN, 0};
    struct pg_array a;
    pg_array_init(&a);
    pg_array_i64_list(&a, v, 2);
    pg_array_i64_list(&a, NULL, 0);
    pg_array_i64_list(&a, v, 0); /* an empty list, not NULL */
    pg_array_i64_list(&a, v, ARRAY_LEN(v));
    pg_array_i64_list(&a, v + 1, 1);
    assert_string_equal(pg_array_text(&a), "{\"{4,500}\",NULL,\"{}\",\"{4,500,9223372036854775807,"
                                           "-9223372036854775808,0}\",\"{500}\"}");
    pg_array_free(&a);
}

static void test_text_idempotent(void **state)
{
    (void)state;
    struct pg_array a;
    pg_array_init(&a);
    pg_array_i64(&a, 7);
    pg_array_str(&a, "x");
    const char *t1 = pg_array_text(&a);
    assert_non_null(t1);
    char copy[64];
    snprintf(copy, sizeof copy, "%s", t1);
    const char *t2 = pg_array_text(&a);
    assert_ptr_equal(t1, t2);
    assert_string_equal(t2, copy);
    assert_string_equal(pg_array_text(&a), "{7,\"x\"}");
    pg_array_free(&a);
    /* An empty array too. */
    pg_array_init(&a);
    assert_string_equal(pg_array_text(&a), "{}");
    assert_string_equal(pg_array_text(&a), "{}");
    pg_array_free(&a);
}

static void test_append_after_finish_fails(void **state)
{
    (void)state;
    for (int kind = 0; kind < 6; kind++) {
        struct pg_array a;
        pg_array_init(&a);
        pg_array_i64(&a, 1);
        assert_string_equal(pg_array_text(&a), "{1}");
        static const uint8_t b[] = {1};
        static const int64_t v[] = {1};
        switch (kind) {
        case 0: pg_array_i64(&a, 2); break;
        case 1: pg_array_null(&a); break;
        case 2: pg_array_str(&a, "x"); break;
        case 3: pg_array_str(&a, NULL); break;
        case 4: pg_array_bytes(&a, b, 1); break;
        default: pg_array_i64_list(&a, v, 1); break;
        }
        /* Never a literal that silently lacks the element. */
        assert_null(pg_array_text(&a));
        assert_null(pg_array_text(&a));
        pg_array_free(&a);
    }
}

/* ---- the literals read back by PostgreSQL ---- */

static PGconn *pg;

static int pg_setup(void **state)
{
    (void)state;
    const char *url = getenv("HOGLAKE_TEST_PG_URL");
    if (!url || !*url)
        return 0;
    pg = PQconnectdb(url);
    if (PQstatus(pg) != CONNECTION_OK) {
        fprintf(stderr, "test_pgarray: cannot connect to HOGLAKE_TEST_PG_URL: %s",
                PQerrorMessage(pg));
        PQfinish(pg);
        pg = NULL;
        return -1; /* set but unusable: a failure, not a skip */
    }
    PQclear(PQexec(pg, "SET client_encoding = 'UTF8'"));
    return 0;
}

static int pg_teardown(void **state)
{
    (void)state;
    if (pg)
        PQfinish(pg);
    pg = NULL;
    return 0;
}

static void need_pg(void)
{
    if (!pg) {
        print_message("HOGLAKE_TEST_PG_URL is not set: skipping the PostgreSQL round trip\n");
        skip();
    }
}

/* Runs `sql` with the literals as text parameters; the result must have
 * `ncols` columns. */
static PGresult *run(const char *sql, const char *const *params, int nparams, int ncols)
{
    PGresult *r = PQexecParams(pg, sql, nparams, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQresultErrorMessage(r));
    assert_int_equal(PQnfields(r), ncols);
    return r;
}

/* Checks row i of r: column 0 is "t" for NULL, column 1 the text. */
static void expect_row(PGresult *r, int i, const char *want)
{
    bool null = strcmp(PQgetvalue(r, i, 0), "t") == 0;
    if (!want) {
        if (!null)
            fail_msg("element %d: want NULL, got '%s'", i, PQgetvalue(r, i, 1));
        return;
    }
    if (null)
        fail_msg("element %d: want '%s', got NULL", i, want);
    if (strcmp(PQgetvalue(r, i, 1), want) != 0)
        fail_msg("element %d: want '%s', got '%s'", i, want, PQgetvalue(r, i, 1));
}

static void check_text_roundtrip(const char *const *strs, size_t n)
{
    struct pg_array a;
    pg_array_init(&a);
    for (size_t i = 0; i < n; i++)
        pg_array_str(&a, strs[i]);
    const char *lit = pg_array_text(&a);
    assert_non_null(lit);
    PGresult *r = run("SELECT x IS NULL, coalesce(x, '') FROM unnest($1::text[])"
                      " WITH ORDINALITY AS u(x, i) ORDER BY i",
                      &lit, 1, 2);
    assert_int_equal(PQntuples(r), (int)n);
    for (size_t i = 0; i < n; i++)
        expect_row(r, (int)i, strs[i]);
    PQclear(r);
    pg_array_free(&a);
}

static void test_pg_text(void **state)
{
    (void)state;
    need_pg();
    check_text_roundtrip(tricky, ARRAY_LEN(tricky));
    /* With NULLs among them. */
    const char *mixed[] = {NULL, "NULL", NULL, "", "\"", NULL};
    check_text_roundtrip(mixed, ARRAY_LEN(mixed));
    /* Every ASCII character but NUL, alone and all together. */
    static char singles[127][2];
    const char *ascii[128];
    static char all[128];
    for (int c = 1; c < 128; c++) {
        singles[c - 1][0] = (char)c;
        singles[c - 1][1] = '\0';
        ascii[c - 1] = singles[c - 1];
        all[c - 1] = (char)c;
    }
    all[127] = '\0';
    ascii[127] = all;
    check_text_roundtrip(ascii, 128);
    /* One long element full of characters that need escaping. */
    size_t n = 100000;
    char *big = malloc(n + 1);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = "\"\\,{} aZ"[i % 8];
    big[n] = '\0';
    const char *one[] = {big, "after"};
    check_text_roundtrip(one, 2);
    free(big);
    /* No element at all. */
    check_text_roundtrip(NULL, 0);
}

static void test_pg_ints(void **state)
{
    (void)state;
    need_pg();
    static const int64_t v[] = {0, 1, -1, INT64_MAX, INT64_MIN, 281474976710656};
    struct pg_array a;
    pg_array_init(&a);
    for (size_t i = 0; i < ARRAY_LEN(v); i++) {
        pg_array_i64(&a, v[i]);
        if (i == 2)
            pg_array_null(&a);
    }
    const char *lit = pg_array_text(&a);
    PGresult *r = run("SELECT x IS NULL, coalesce(x::text, '') FROM unnest($1::bigint[])"
                      " WITH ORDINALITY AS u(x, i) ORDER BY i",
                      &lit, 1, 2);
    assert_int_equal(PQntuples(r), (int)ARRAY_LEN(v) + 1);
    for (size_t i = 0, row = 0; i < ARRAY_LEN(v); i++, row++) {
        char want[32];
        snprintf(want, sizeof want, "%lld", (long long)v[i]);
        expect_row(r, (int)row, want);
        if (i == 2)
            expect_row(r, (int)++row, NULL);
    }
    PQclear(r);
    pg_array_free(&a);
}

static void test_pg_bytes(void **state)
{
    (void)state;
    need_pg();
    uint8_t all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (uint8_t)i;
    static const uint8_t quote[] = {'"', '\\', ',', '{', '}'};
    struct pg_array a;
    pg_array_init(&a);
    pg_array_bytes(&a, all, sizeof all);
    pg_array_bytes(&a, NULL, 0);
    pg_array_bytes(&a, all, 0);
    pg_array_bytes(&a, quote, sizeof quote);
    pg_array_bytes(&a, all + 255, 1);
    const char *lit = pg_array_text(&a);
    PGresult *r = run("SELECT x IS NULL, coalesce(encode(x, 'hex'), '') FROM unnest($1::bytea[])"
                      " WITH ORDINALITY AS u(x, i) ORDER BY i",
                      &lit, 1, 2);
    assert_int_equal(PQntuples(r), 5);
    char hex[513];
    for (int i = 0; i < 256; i++)
        snprintf(hex + 2 * i, 3, "%02x", i);
    expect_row(r, 0, hex);
    expect_row(r, 1, NULL);
    expect_row(r, 2, "");
    expect_row(r, 3, "225c2c7b7d");
    expect_row(r, 4, "ff");
    PQclear(r);
    pg_array_free(&a);
}

static void test_pg_i64_lists(void **state)
{
    (void)state;
    need_pg();
    static const int64_t v[] = {4, 500, INT64_MAX, INT64_MIN};
    struct pg_array a;
    pg_array_init(&a);
    pg_array_i64_list(&a, v, 2);
    pg_array_i64_list(&a, NULL, 0);
    pg_array_i64_list(&a, v, 0);
    pg_array_i64_list(&a, v, ARRAY_LEN(v));
    const char *lit = pg_array_text(&a);
    /* As commit.c reads split_offsets: text elements cast to bigint[]. */
    PGresult *r = run("SELECT x IS NULL, coalesce(cardinality(x::bigint[]) || ':' ||"
                      " array_to_string(x::bigint[], ','), '')"
                      " FROM unnest($1::text[]) WITH ORDINALITY AS u(x, i) ORDER BY i",
                      &lit, 1, 2);
    assert_int_equal(PQntuples(r), 4);
    expect_row(r, 0, "2:4,500");
    expect_row(r, 1, NULL);
    expect_row(r, 2, "0:");
    expect_row(r, 3, "4:4,500,9223372036854775807,-9223372036854775808");
    PQclear(r);
    pg_array_free(&a);
}

/* Parallel arrays unnested together, as the commit's bulk inserts do. */
static void test_pg_parallel_unnest(void **state)
{
    (void)state;
    need_pg();
    struct pg_array ids, paths, bounds;
    pg_array_init(&ids);
    pg_array_init(&paths);
    pg_array_init(&bounds);
    size_t n = ARRAY_LEN(tricky);
    for (size_t i = 0; i < n; i++) {
        pg_array_i64(&ids, (int64_t)i * 1000003);
        pg_array_str(&paths, tricky[i]);
        pg_array_bytes(&bounds, (const uint8_t *)tricky[i], strlen(tricky[i]));
    }
    const char *lits[] = {pg_array_text(&ids), pg_array_text(&paths), pg_array_text(&bounds)};
    PGresult *r = run("SELECT u.id, u.path, u.bound = convert_to(u.path, 'UTF8')"
                      " FROM unnest($1::bigint[], $2::text[], $3::bytea[]) AS u(id, path, bound)",
                      lits, 3, 3);
    assert_int_equal(PQntuples(r), (int)n);
    for (size_t i = 0; i < n; i++) {
        char want[32];
        snprintf(want, sizeof want, "%lld", (long long)i * 1000003);
        assert_string_equal(PQgetvalue(r, (int)i, 0), want);
        assert_string_equal(PQgetvalue(r, (int)i, 1), tricky[i]);
        assert_string_equal(PQgetvalue(r, (int)i, 2), "t");
    }
    PQclear(r);
    pg_array_free(&ids);
    pg_array_free(&paths);
    pg_array_free(&bounds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_ints),
        cmocka_unit_test(test_nulls),
        cmocka_unit_test(test_text_escapes),
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_i64_lists),
        cmocka_unit_test(test_text_idempotent),
        cmocka_unit_test(test_append_after_finish_fails),
        cmocka_unit_test(test_pg_text),
        cmocka_unit_test(test_pg_ints),
        cmocka_unit_test(test_pg_bytes),
        cmocka_unit_test(test_pg_i64_lists),
        cmocka_unit_test(test_pg_parallel_unnest),
    };
    return cmocka_run_group_tests(tests, pg_setup, pg_teardown);
}
