/* The expression language's grammar (src/expr): every construct as the
 * canonical text it parses to, precedence, quoting, literals, and every
 * error with its position and token. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expr/expr.h"

/* Parses a predicate and returns its canonical text (static buffer). */
static const char *canon(const char *text)
{
    static char out[4096];
    struct arena a;
    arena_init(&a, 0);
    struct expr *e;
    struct error err = {0};
    if (expr_parse_predicate(&a, text, strlen(text), &e, &err) != 0)
        fail_msg("'%s' does not parse: %s", text, err.msg);
    struct buf b = BUF_INIT;
    assert_int_equal(expr_to_text(e, &b), 0);
    snprintf(out, sizeof out, "%s", b.data);
    /* The canonical text parses back to itself. */
    struct expr *again;
    assert_int_equal(expr_parse_predicate(&a, b.data, b.len, &again, &err), 0);
    struct buf b2 = BUF_INIT;
    assert_int_equal(expr_to_text(again, &b2), 0);
    assert_string_equal(b.data, b2.data);
    buf_free(&b);
    buf_free(&b2);
    arena_free(&a);
    return out;
}

static const char *assign_canon(const char *text)
{
    static char out[4096];
    struct arena a;
    arena_init(&a, 0);
    struct expr_assignments *as;
    struct error err = {0};
    if (expr_parse_assignments(&a, text, strlen(text), &as, &err) != 0)
        fail_msg("'%s' does not parse: %s", text, err.msg);
    struct buf b = BUF_INIT;
    assert_int_equal(expr_assignments_to_text(as, &b), 0);
    snprintf(out, sizeof out, "%s", b.data);
    struct expr_assignments *again;
    assert_int_equal(expr_parse_assignments(&a, b.data, b.len, &again, &err), 0);
    struct buf b2 = BUF_INIT;
    assert_int_equal(expr_assignments_to_text(again, &b2), 0);
    assert_string_equal(b.data, b2.data);
    buf_free(&b);
    buf_free(&b2);
    arena_free(&a);
    return out;
}

/* The error message parsing text gives. */
static const char *parse_error_n(const char *text, size_t len, bool assignments)
{
    static char msg[ERROR_MESSAGE_MAX];
    struct arena a;
    arena_init(&a, 0);
    struct error err = {0};
    int rc;
    if (assignments) {
        struct expr_assignments *as;
        rc = expr_parse_assignments(&a, text, len, &as, &err);
    } else {
        struct expr *e;
        rc = expr_parse_predicate(&a, text, len, &e, &err);
    }
    arena_free(&a);
    if (rc == 0)
        fail_msg("'%.200s' parsed", text);
    assert_int_equal(err.code, ERR_INVALID);
    snprintf(msg, sizeof msg, "%s", err.msg);
    return msg;
}

static const char *parse_error(const char *text)
{
    return parse_error_n(text, strlen(text), false);
}

static void test_comparisons(void **state)
{
    (void)state;
    assert_string_equal(canon("a = 1"), "(a = 1)");
    assert_string_equal(canon("a == 1"), "(a = 1)");
    assert_string_equal(canon("a != 1"), "(a != 1)");
    assert_string_equal(canon("a <> 1"), "(a != 1)");
    assert_string_equal(canon("a<1"), "(a < 1)");
    assert_string_equal(canon("a<=1"), "(a <= 1)");
    assert_string_equal(canon("a>1"), "(a > 1)");
    assert_string_equal(canon("a>=1"), "(a >= 1)");
    assert_string_equal(canon("5 < x"), "(5 < x)");
    assert_string_equal(canon("a = b"), "(a = b)");
    assert_string_equal(canon("flag"), "flag");
    assert_string_equal(canon("TRUE"), "TRUE");
}

static void test_predicates(void **state)
{
    (void)state;
    assert_string_equal(canon("a IN (1, 2,3)"), "(a IN (1, 2, 3))");
    assert_string_equal(canon("a not in ('x')"), "(a NOT IN ('x'))");
    assert_string_equal(canon("a IN (1, NULL, b)"), "(a IN (1, NULL, b))");
    assert_string_equal(canon("a is null"), "(a IS NULL)");
    assert_string_equal(canon("a IS NOT NULL"), "(a IS NOT NULL)");
    assert_string_equal(canon("a BETWEEN 1 AND 5"), "(a BETWEEN 1 AND 5)");
    assert_string_equal(canon("a NOT BETWEEN -1 AND b"), "(a NOT BETWEEN -1 AND b)");
    assert_string_equal(canon("NOT a = 1"), "(NOT (a = 1))");
    assert_string_equal(canon("not not a"), "(NOT (NOT a))");
}

static void test_precedence(void **state)
{
    (void)state;
    assert_string_equal(canon("a = 1 OR b = 2 AND c = 3"), "((a = 1) OR ((b = 2) AND (c = 3)))");
    assert_string_equal(canon("a = 1 AND b = 2 OR c = 3"), "(((a = 1) AND (b = 2)) OR (c = 3))");
    assert_string_equal(canon("NOT a = 1 AND b = 2"), "((NOT (a = 1)) AND (b = 2))");
    assert_string_equal(canon("NOT (a = 1 AND b = 2)"), "(NOT ((a = 1) AND (b = 2)))");
    assert_string_equal(canon("(a = 1 OR b = 2) AND c = 3"), "(((a = 1) OR (b = 2)) AND (c = 3))");
    assert_string_equal(canon("a = 1 AND b = 2 AND c = 3"), "((a = 1) AND (b = 2) AND (c = 3))");
    assert_string_equal(canon("a BETWEEN 1 AND 2 AND b = 3"), "((a BETWEEN 1 AND 2) AND (b = 3))");
    assert_string_equal(canon("((((a = 1))))"), "(a = 1)");
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(canon("a.b.c = 1"), "(a.b.c = 1)");
    assert_string_equal(canon("\"select\" = 1"), "(select = 1)");
    assert_string_equal(canon("\"and\" = 1"), "(\"and\" = 1)");
    assert_string_equal(canon("\"a.b\" = 1"), "(\"a.b\" = 1)");
    assert_string_equal(canon("a.\"b.c\".d = 1"), "(a.\"b.c\".d = 1)");
    assert_string_equal(canon("\"say \"\"hi\"\"\" = 1"), "(\"say \"\"hi\"\"\" = 1)");
    assert_string_equal(canon("_x$1 = 1"), "(_x$1 = 1)");
    assert_string_equal(canon("\"Ünïcode\" = 1"), "(\"Ünïcode\" = 1)");
    assert_string_equal(canon("Ünïcode = 1"), "(\"Ünïcode\" = 1)");
    /* Literal prefixes name columns when no string follows. */
    assert_string_equal(canon("date = DATE '2026-01-02'"), "(\"date\" = DATE '2026-01-02')");
    assert_string_equal(canon("x = 1 AND uuid IS NULL"), "((x = 1) AND (\"uuid\" IS NULL))");
    /* After a dot a reserved word is a field name. */
    assert_string_equal(canon("s.end = 1"), "(s.\"end\" = 1)");
}

static void test_literals(void **state)
{
    (void)state;
    assert_string_equal(canon("a = 'it''s'"), "(a = 'it''s')");
    assert_string_equal(canon("a = ''"), "(a = '')");
    assert_string_equal(canon("a = -9223372036854775808"), "(a = -9223372036854775808)");
    assert_string_equal(canon("a = 18446744073709551615"), "(a = 18446744073709551615)");
    assert_string_equal(canon("a = +5"), "(a = 5)");
    assert_string_equal(canon("a = - 5"), "(a = -5)");
    assert_string_equal(canon("a = 1.5e-3"), "(a = 1.5e-3)");
    assert_string_equal(canon("a = .5"), "(a = .5)");
    assert_string_equal(canon("a = 5."), "(a = 5.)");
    assert_string_equal(canon("a = 1E+10"), "(a = 1E+10)");
    assert_string_equal(canon("a = -0.0"), "(a = -0.0)");
    assert_string_equal(canon("a = true OR b = False"), "((a = TRUE) OR (b = FALSE))");
    assert_string_equal(canon("a = null"), "(a = NULL)");
    assert_string_equal(canon("a = date '2024-02-29'"), "(a = DATE '2024-02-29')");
    assert_string_equal(canon("a = TIME '03:04:05.5'"), "(a = TIME '03:04:05.5')");
    assert_string_equal(canon("a = TimeStamp '2026-01-02T03:04:05Z'"),
                        "(a = TIMESTAMP '2026-01-02T03:04:05Z')");
    assert_string_equal(canon("a = TIMESTAMPTZ '2026-01-02 03:04:05+02:00'"),
                        "(a = TIMESTAMPTZ '2026-01-02 03:04:05+02:00')");
    assert_string_equal(canon("a = UUID '00000000-0000-0000-0000-00000000000A'"),
                        "(a = UUID '00000000-0000-0000-0000-00000000000A')");
    assert_string_equal(canon("a = x'00ff10'"), "(a = X'00FF10')");
    assert_string_equal(canon("a = X''"), "(a = X'')");
    assert_string_equal(canon("a = 'tab\there'"), "(a = 'tab\there')");
}

static void test_value_expressions(void **state)
{
    (void)state;
    assert_string_equal(assign_canon("a = 1"), "a = 1");
    assert_string_equal(assign_canon("a = b + 1, c = NULL"), "a = (b + 1), c = NULL");
    assert_string_equal(assign_canon("a = b + c * d - e / f"), "a = (b + (c * d) - (e / f))");
    assert_string_equal(assign_canon("a = (b + c) * d"), "a = ((b + c) * d)");
    assert_string_equal(assign_canon("a = -b"), "a = (-(b))");
    assert_string_equal(assign_canon("a = - -5"), "a = (-(-5))");
    assert_string_equal(assign_canon("a = -(5)"), "a = (-(5))");
    assert_string_equal(assign_canon("a = +b"), "a = b");
    assert_string_equal(assign_canon("a = b -5"), "a = (b - 5)");
    assert_string_equal(assign_canon("a = CASE WHEN b > 1 THEN 'x' WHEN b IS NULL THEN NULL END"),
                        "a = CASE WHEN (b > 1) THEN 'x' WHEN (b IS NULL) THEN NULL END");
    assert_string_equal(assign_canon("a = case when b then 1 else c + 1 end * 2"),
                        "a = (CASE WHEN b THEN 1 ELSE (c + 1) END * 2)");
    assert_string_equal(assign_canon("s.x = DATE '2026-01-01'"), "s.x = DATE '2026-01-01'");
    assert_string_equal(assign_canon("\"end\" = TRUE"), "\"end\" = TRUE");
}

static void test_errors(void **state)
{
    (void)state;
    /* len 0: the text's strlen; assignments: parsed as --set text. */
    static const struct {
        const char *text;
        size_t len;
        bool assignments;
        const char *want;
    } errors[] = {
        {"", 0, false, "at 1 (end of input): expected a predicate"},
        {"a = 1 AND AND b = 2", 0, false, "at 11 ('AND'): expected a value"},
        {"a = ", 0, false, "at 5 (end of input): expected a value"},
        {"a = 1 b = 2", 0, false, "at 7 ('b'): expected AND, OR or the end of the predicate"},
        {"(a = 1", 0, false, "at 7 (end of input): expected ')'"},
        {"a = 'abc", 0, false, "at 5 (''abc'): unterminated string"},
        {"\"abc = 1", 0, false, "at 1 ('\"abc = 1'): unterminated quoted name"},
        {"\"\" = 1", 0, false, "at 1 ('\"\"'): a quoted name must be non-empty and hold no NUL"},
        {"a = 1 # 2", 0, false, "at 7 ('#'): unexpected character"},
        {"é = 1 ; 2", 0, false, "at 7 (';'): unexpected character"},
        {"a = 12abc", 0, false, "at 5 ('12a'): a number runs into a name"},
        {"a = X'0g'", 0, false, "at 5 ('X'0g''): a hex literal holds hex digits only"},
        {"a = X'0'", 0, false, "at 5 ('X'0''): a hex literal needs an even number of digits"},
        {"a IS 5", 0, false, "at 6 ('5'): expected NULL or NOT NULL after IS"},
        {"a IS NOT 5", 0, false, "at 10 ('5'): expected NULL after IS NOT"},
        {"a NOT 5", 0, false, "at 7 ('5'): expected IN or BETWEEN after NOT"},
        {"a IN 5", 0, false, "at 6 ('5'): expected '(' after IN"},
        {"a IN (1 2)", 0, false, "at 9 ('2'): expected ',' or ')' in the IN list"},
        {"a IN ()", 0, false, "at 7 (')'): expected a value"},
        {"a BETWEEN 1 OR 2", 0, false, "at 13 ('OR'): expected AND in BETWEEN"},
        {"a + 1 = 2", 0, false,
         "at 3 ('+'): a predicate compares columns and values; it has no arithmetic"},
        {"a = -b", 0, false, "at 6 ('b'): expected a number after the sign"},
        {"a. = 1", 0, false, "at 4 ('='): expected a field name after '.'"},
        {"end = 1", 0, false, "at 1 ('end'): expected a value"},
        {"a = 1\n  AND\tb =", 0, false, "at 16 (end of input): expected a value"},
        {"a = 'x' AND b = 'ünï' AND AND", 0, false, "at 27 ('AND'): expected a value"},
        {"a = 1 bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", 0, false,
         "at 7 ('bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb...'): expected AND, OR or the end of "
         "the predicate"},
        {"a = 'é\xff'", 9, false, "at 7 ('?'): invalid UTF-8"},
        {"a = 1\0", 6, false, "at 6 ('?'): a NUL character in an expression"},
        {"a 1", 3, true, "at 3 ('1'): expected '=' after the column"},
        {"a = 1 b = 2", 11, true, "at 7 ('b'): expected ',' or the end of the assignments"},
        {"a = CASE b END", 14, true, "at 10 ('b'): expected WHEN after CASE"},
        {"a = CASE WHEN b 1 END", 21, true, "at 17 ('1'): expected THEN"},
        {"a = CASE WHEN b THEN 1", 22, true, "at 23 (end of input): expected WHEN, ELSE or END"},
        {"a = CASE WHEN b THEN 1 ELSE 2 3", 31, true, "at 31 ('3'): expected END"},
        {"a = (1 + 2", 10, true, "at 11 (end of input): expected ')'"},
        {"a = 1 +", 7, true, "at 8 (end of input): expected a value"},
    };
    for (size_t k = 0; k < sizeof errors / sizeof *errors; k++) {
        size_t len = errors[k].len ? errors[k].len : strlen(errors[k].text);
        assert_string_equal(parse_error_n(errors[k].text, len, errors[k].assignments),
                            errors[k].want);
    }
}

static void test_limits(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    /* Nesting: 64 parentheses parse, 65 do not. */
    for (int i = 0; i < 64; i++)
        buf_putc(&b, '(');
    buf_puts(&b, "a = 1");
    for (int i = 0; i < 64; i++)
        buf_putc(&b, ')');
    canon(b.data);
    buf_reset(&b);
    for (int i = 0; i < 65; i++)
        buf_putc(&b, '(');
    buf_puts(&b, "a = 1");
    assert_string_equal(parse_error(b.data), "at 65 ('('): nesting deeper than 64");
    buf_reset(&b);
    for (int i = 0; i < 100; i++)
        buf_puts(&b, "NOT ");
    buf_puts(&b, "a");
    assert_string_equal(parse_error(b.data), "at 257 ('NOT'): nesting deeper than 64");
    buf_reset(&b);
    buf_puts(&b, "x = ");
    for (int i = 0; i < 100; i++)
        buf_puts(&b, "-");
    buf_puts(&b, "1");
    assert_string_equal(parse_error_n(b.data, b.len, true), "at 69 ('-'): nesting deeper than 64");
    /* Long flat chains are not nesting. */
    buf_reset(&b);
    buf_puts(&b, "a = 0");
    for (int i = 1; i < 3000; i++)
        buf_printf(&b, " OR a = %d", i);
    canon(b.data);
    /* Text length. */
    buf_reset(&b);
    buf_puts(&b, "a IN (0");
    while (b.len < EXPR_MAX_TEXT - 10)
        buf_puts(&b, ",1");
    buf_putc(&b, ')');
    struct arena a;
    arena_init(&a, 0);
    struct expr *e;
    struct error err;
    assert_int_equal(expr_parse_predicate(&a, b.data, b.len, &e, &err), 0);
    arena_free(&a);
    while (b.len <= EXPR_MAX_TEXT)
        buf_putc(&b, ' ');
    assert_string_equal(parse_error(b.data), "an expression is at most 65536 bytes, not 65537");
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comparisons), cmocka_unit_test(test_predicates),
        cmocka_unit_test(test_precedence),  cmocka_unit_test(test_names),
        cmocka_unit_test(test_literals),    cmocka_unit_test(test_value_expressions),
        cmocka_unit_test(test_errors),      cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
