/* Unit tests for src/lake/ident: identifier, catalog-name and property-key
 * rules at their boundaries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lake/ident.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* `first` followed by n-1 copies of `fill`, in a static buffer. */
static const char *repeat(char first, char fill, size_t n)
{
    static char buf[512];
    assert_true(n < sizeof buf);
    if (n > 0)
        buf[0] = first;
    for (size_t i = 1; i < n; i++)
        buf[i] = fill;
    buf[n] = '\0';
    return buf;
}

static void expect_all(bool (*fn)(const char *), const char *fn_name, const char *const *in,
                       size_t n, bool want)
{
    for (size_t i = 0; i < n; i++)
        if (fn(in[i]) != want)
            fail_msg("%s(\"%s\") = %d, want %d", fn_name, in[i], !want, want);
}

static void test_ident_valid(void **state)
{
    (void)state;
    static const char *const good[] = {
        "a",  "A",   "_",  "_a", "a1",  "a_b",       "a-b",
        "A-", "a--", "_1", "_-", "Zz9", "camelCase", "snake_case_123"};
    static const char *const bad[] = {"",    "1a",  "9",  "-a",  ".a",      "a.b",  "a b",
                                      " a",  "a ",  "a$", "a/b", "a:b",     "a\tb", "caf\xc3\xa9",
                                      "a\"", "a'b", "a@", "a+b", "\xc3\xa9"};
    expect_all(lake_ident_valid, "lake_ident_valid", good, ARRAY_LEN(good), true);
    expect_all(lake_ident_valid, "lake_ident_valid", bad, ARRAY_LEN(bad), false);
}

static void test_ident_length_boundary(void **state)
{
    (void)state;
    assert_true(lake_ident_valid(repeat('a', 'b', 127)));
    assert_true(lake_ident_valid(repeat('a', 'b', 128)));
    assert_false(lake_ident_valid(repeat('a', 'b', 129)));
    assert_false(lake_ident_valid(repeat('a', 'b', 300)));
    assert_true(lake_ident_valid(repeat('_', '-', 128)));
    assert_false(lake_ident_valid(repeat('_', '-', 129)));
    assert_false(lake_ident_valid(repeat('1', 'a', 5)));
    assert_false(lake_ident_valid(repeat('-', 'a', 5)));
}

static void test_catalog_name(void **state)
{
    (void)state;
    /* Contract §6.3 and the DB CHECK: ^[a-z0-9][a-z0-9_-]{0,62}$ */
    static const char *const good[] = {"a",   "0",      "0abc", "9lives", "a-b",
                                       "a_b", "abc123", "a-",   "a_"};
    static const char *const bad[] = {"",    "A",   "aB",  "_a",  "-a", "a.b",        "a b",
                                      "ab$", "a/b", "Abc", "abC", " a", "caf\xc3\xa9"};
    expect_all(lake_catalog_name_valid, "lake_catalog_name_valid", good, ARRAY_LEN(good), true);
    expect_all(lake_catalog_name_valid, "lake_catalog_name_valid", bad, ARRAY_LEN(bad), false);
    assert_true(lake_catalog_name_valid(repeat('a', 'z', 62)));
    assert_true(lake_catalog_name_valid(repeat('a', 'z', 63)));
    assert_false(lake_catalog_name_valid(repeat('a', 'z', 64)));
    assert_true(lake_catalog_name_valid(repeat('7', '-', 63)));
    assert_false(lake_catalog_name_valid(repeat('7', '-', 64)));
    assert_false(lake_catalog_name_valid(repeat('a', 'Z', 10)));
}

static void test_ident_reserved(void **state)
{
    (void)state;
    static const char *const reserved[] = {"_hog", "_hog_row_id", "_hogwarts", "_hog-x", "_hog1"};
    static const char *const free_names[] = {"_ho", "hog", "x_hog", "a_hog_b",
                                             "_h",  "",    "__hog", "hog_"};
    expect_all(lake_ident_reserved, "lake_ident_reserved", reserved, ARRAY_LEN(reserved), true);
    expect_all(lake_ident_reserved, "lake_ident_reserved", free_names, ARRAY_LEN(free_names),
               false);
    assert_string_equal(LAKE_RESERVED_PREFIX, "_hog");
}

static void test_property_key_pattern(void **state)
{
    (void)state;
    static const char *const good[] = {"a",
                                       "z",
                                       "a1",
                                       "a.b",
                                       "a-b",
                                       "a_b",
                                       "write.format.default",
                                       "a..b",
                                       "a.",
                                       "x9.y_z-w",
                                       "comments",
                                       "formats",
                                       "location2",
                                       "format.x",
                                       "comment.x",
                                       "hoglake",
                                       "trino",
                                       "hoglakex.y",
                                       "trinox",
                                       "sorted",
                                       "partition"};
    static const char *const bad[] = {"",    "A",   "Ab",  "aB", "1a", "_a",  ".a",         "-a",
                                      "a b", "a/b", "a:b", "a$", " a", "a\t", "caf\xc3\xa9"};
    expect_all(lake_property_key_valid, "lake_property_key_valid", good, ARRAY_LEN(good), true);
    expect_all(lake_property_key_valid, "lake_property_key_valid", bad, ARRAY_LEN(bad), false);
    assert_true(lake_property_key_valid(repeat('k', '.', 128)));
    assert_false(lake_property_key_valid(repeat('k', '.', 129)));
    assert_true(lake_property_key_valid(repeat('k', '9', 128)));
    assert_false(lake_property_key_valid(repeat('k', '9', 129)));
}

static void test_property_key_reserved(void **state)
{
    (void)state;
    static const char *const reserved[] = {
        "partitioning", "sorted_by", "location",  "format",
        "comment",      "hoglake.",  "hoglake.x", "hoglake.write.format",
        "trino.",       "trino.x",   "trino.a.b",
    };
    expect_all(lake_property_key_valid, "lake_property_key_valid", reserved, ARRAY_LEN(reserved),
               false);
}

static void test_ident_shown(void **state)
{
    (void)state;
    char out[80];
    lake_ident_shown("short", out, sizeof out);
    assert_string_equal(out, "short");
    const char *s64 = repeat('a', 'b', 64);
    lake_ident_shown(s64, out, sizeof out);
    assert_string_equal(out, s64); /* 64 characters: shown whole */

    char s65[66];
    snprintf(s65, sizeof s65, "%s", repeat('c', 'd', 65));
    lake_ident_shown(s65, out, sizeof out);
    assert_int_equal(strlen(out), 64);
    assert_memory_equal(out, s65, 61);
    assert_string_equal(out + 61, "...");

    lake_ident_shown(repeat('x', 'y', 500), out, sizeof out);
    assert_int_equal(strlen(out), 64);
    assert_string_equal(out + 61, "...");

    /* A small output buffer is never overrun. */
    char tiny[8];
    memset(tiny, '#', sizeof tiny);
    lake_ident_shown("abcdefghijkl", tiny, sizeof tiny);
    assert_string_equal(tiny, "abcdefg");
}

static void test_limits_constants(void **state)
{
    (void)state;
    assert_int_equal(LAKE_COMMENT_MAX, 16384);
    assert_int_equal(LAKE_PROPERTIES_MAX, 100);
    assert_int_equal(LAKE_PROPERTY_VALUE_MAX, 4096);
    assert_string_equal(LAKE_IDENT_PATTERN, "^[A-Za-z_][A-Za-z0-9_-]{0,127}$");
    assert_string_equal(LAKE_CATALOG_PATTERN, "^[a-z0-9][a-z0-9_-]{0,62}$");
    assert_string_equal(LAKE_PROPERTY_KEY_PATTERN, "^[a-z][a-z0-9_.-]{0,127}$");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ident_valid),          cmocka_unit_test(test_ident_length_boundary),
        cmocka_unit_test(test_catalog_name),         cmocka_unit_test(test_ident_reserved),
        cmocka_unit_test(test_property_key_pattern), cmocka_unit_test(test_property_key_reserved),
        cmocka_unit_test(test_ident_shown),          cmocka_unit_test(test_limits_constants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
