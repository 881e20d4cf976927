/* The JSON budget pre-scan (src/util/json_budget.c): counts, limits, and
 * strings that try to look like structure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/json_budget.h"

static struct json_budget_scan scan_text(const char *text, int max_depth, int64_t max_values)
{
    struct json_budget_scan s;
    json_budget_check(text, strlen(text), max_depth, max_values, &s);
    return s;
}

static void test_counts_values_not_keys(void **state)
{
    (void)state;
    struct json_budget_scan s = scan_text("{\"a\":1,\"bb\" : [true,null,\"xyz\"]}", 64, 100);
    assert_int_equal(s.verdict, JSON_BUDGET_OK);
    /* object, 1, array, true, null, "xyz" */
    assert_int_equal(s.values, 6);
    assert_int_equal(s.string_bytes, 1 + 2 + 3);
    assert_int_equal(s.deepest, 2);
    assert_int_equal(s.depth, 0);
    /* Exactly at the limit is within it; keys never count. */
    assert_int_equal(scan_text("{\"k1\":1,\"k2\":2}", 64, 3).verdict, JSON_BUDGET_OK);
    assert_int_equal(scan_text("{\"k1\":1,\"k2\":2}", 64, 2).verdict, JSON_BUDGET_TOO_MANY_VALUES);
}

static void test_scalars_at_top_level(void **state)
{
    (void)state;
    struct json_budget_scan s = scan_text("\"abc\"", 64, 10);
    assert_int_equal(s.values, 1);
    assert_int_equal(s.string_bytes, 3);
    assert_int_equal(scan_text("  -12.5e+3  ", 64, 10).values, 1);
    assert_int_equal(scan_text("", 64, 10).values, 0);
}

static void test_strings_that_look_like_structure(void **state)
{
    (void)state;
    const char *text = "[\"[[[{{{\", \"\\\"]]]}}}\", \"\\\\\", \"a\\\\\\\"b:{\", \"x,y,z\"]";
    struct json_budget_scan s = scan_text(text, 1, 6);
    assert_int_equal(s.verdict, JSON_BUDGET_OK);
    assert_int_equal(s.values, 6); /* the array and five strings */
    assert_int_equal(s.deepest, 1);
    /* A colon after a string inside a string is not a key separator. */
    s = scan_text("[\"a\\\":\", \"b\"]", 64, 10);
    assert_int_equal(s.values, 3);
}

static void test_depth(void **state)
{
    (void)state;
    enum { N = 10000 };
    char *deep = malloc(N + 1);
    assert_non_null(deep);
    memset(deep, '[', N);
    deep[N] = '\0';
    struct json_budget_scan s = scan_text(deep, 64, 1000000);
    assert_int_equal(s.verdict, JSON_BUDGET_TOO_DEEP);
    assert_int_equal(s.offset, 64); /* stopped at the 65th bracket, not the 10,000th */
    free(deep);

    /* 64 levels of mixed containers are allowed, 65 are not. */
    char ok[200] = "", bad[200] = "";
    for (int i = 0; i < 32; i++)
        strcat(ok, "{\"k\":[");
    strcpy(bad, ok);
    strcat(bad, "[");
    assert_int_equal(scan_text(ok, 64, 1000).verdict, JSON_BUDGET_OK);
    assert_int_equal(scan_text(ok, 64, 1000).deepest, 64);
    assert_int_equal(scan_text(bad, 64, 1000).verdict, JSON_BUDGET_TOO_DEEP);
    /* Closing brackets bring the depth back down. */
    assert_int_equal(scan_text("[[]] [[]] [[[]]]", 3, 100).verdict, JSON_BUDGET_OK);
}

static void test_number_array_refused_early(void **state)
{
    (void)state;
    /* "[1,1,1,...]": 2 bytes a value, four times the ratio's allowance. */
    size_t n = 4 * 1000 * 1000;
    char *body = malloc(n + 1);
    assert_non_null(body);
    body[0] = '[';
    for (size_t i = 1; i < n - 1; i += 2) {
        body[i] = '1';
        body[i + 1] = ',';
    }
    body[n - 1] = ']';
    body[n] = '\0';
    int64_t budget = json_budget_values_for(n, 4000000);
    assert_int_equal(budget, (int64_t)(n / 8) + 1024);
    struct json_budget_scan s;
    assert_int_equal(json_budget_check(body, n, 64, budget, &s), JSON_BUDGET_TOO_MANY_VALUES);
    assert_int_equal(s.values, budget + 1);
    assert_true(s.offset < n / 3); /* it stopped long before the end */
    char detail[300];
    json_budget_describe(&s, detail, sizeof detail);
    assert_non_null(strstr(detail, "values"));
    free(body);
}

static void test_values_for(void **state)
{
    (void)state;
    assert_int_equal(json_budget_values_for(0, 4000000), 1024);
    assert_int_equal(json_budget_values_for(8000, 4000000), 2024);
    assert_int_equal(json_budget_values_for((size_t)64 << 20, 4000000), 4000000);
    assert_int_equal(json_budget_values_for(100, 10), 10);
}

/* Feeding in pieces gives exactly what one pass gives, wherever the text is
 * cut: inside strings, right after a backslash, inside numbers, between a
 * key and its colon. */
static void test_chunks_match_one_pass(void **state)
{
    (void)state;
    const char *text = "{\"a\\\"b\" :[12345, \"x\\\\\", true,{\"k\":\"v:]\"}],\"z\":-0.5e3, "
                       "\"s\" : \"tail\"}";
    size_t n = strlen(text);
    struct json_budget_scan whole;
    json_budget_check(text, n, 64, 1000, &whole);
    assert_int_equal(whole.verdict, JSON_BUDGET_OK);
    assert_int_equal(whole.values, 9);
    for (size_t cut1 = 0; cut1 <= n; cut1++) {
        for (size_t cut2 = cut1; cut2 <= n; cut2 += 7) {
            struct json_budget_scan s;
            json_budget_begin(&s, 64, 1000);
            json_budget_feed(&s, text, cut1);
            json_budget_feed(&s, text + cut1, cut2 - cut1);
            json_budget_feed(&s, text + cut2, n - cut2);
            assert_int_equal(json_budget_end(&s), JSON_BUDGET_OK);
            assert_int_equal(s.values, whole.values);
            assert_int_equal(s.string_bytes, whole.string_bytes);
            assert_int_equal(s.deepest, whole.deepest);
            assert_int_equal(s.offset, n);
        }
    }
}

static void test_refusal_is_final(void **state)
{
    (void)state;
    struct json_budget_scan s;
    json_budget_begin(&s, 2, 100);
    assert_int_equal(json_budget_feed(&s, "[[[", 3), JSON_BUDGET_TOO_DEEP);
    size_t at = s.offset;
    assert_int_equal(json_budget_feed(&s, "]]]", 3), JSON_BUDGET_TOO_DEEP);
    assert_int_equal(json_budget_end(&s), JSON_BUDGET_TOO_DEEP);
    assert_int_equal(s.offset, at);
    char detail[200];
    json_budget_describe(&s, detail, sizeof detail);
    assert_non_null(strstr(detail, "deeper than 2 levels"));
}

/* Malformed text never under-counts what a parser could build before its
 * first error, and never crashes the scan. */
static void test_malformed_text(void **state)
{
    (void)state;
    /* A colon only discounts the one string right before it. */
    assert_int_equal(scan_text("[1:1:1:1]", 64, 100).values, 5);
    assert_int_equal(scan_text("[\"a\"::::1]", 64, 100).values, 2);
    assert_int_equal(scan_text("]]]]}}}[", 64, 100).depth, 1);
    assert_int_equal(scan_text("\"unterminated [[[", 64, 100).deepest, 0);
    const char bytes[] = {'[', 0, 1, (char)0xff, '"', 0, '"', ']'};
    struct json_budget_scan s;
    assert_int_equal(json_budget_check(bytes, sizeof bytes, 64, 100, &s), JSON_BUDGET_OK);
    assert_int_equal(s.values, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_values_not_keys),
        cmocka_unit_test(test_scalars_at_top_level),
        cmocka_unit_test(test_strings_that_look_like_structure),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_number_array_refused_early),
        cmocka_unit_test(test_values_for),
        cmocka_unit_test(test_chunks_match_one_pass),
        cmocka_unit_test(test_refusal_is_final),
        cmocka_unit_test(test_malformed_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
