/* cli_parse_duration: the durations of --older-than and --expires. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/duration.h"

static void expect_seconds(const char *s, int64_t want)
{
    int64_t got = -1;
    if (!cli_parse_duration(s, &got) || got != want)
        fail_msg("'%s': want %lld seconds, got %lld", s, (long long)want, (long long)got);
}

static void test_units(void **state)
{
    (void)state;
    expect_seconds("90s", 90);
    expect_seconds("10m", 600);
    expect_seconds("24h", 86400);
    expect_seconds("7d", 7 * 86400);
    expect_seconds("2w", 14 * 86400);
    expect_seconds("61", 61);
    expect_seconds("1", 1);
}

static void test_refused(void **state)
{
    (void)state;
    const char *bad[] = {"",    "s",    "0",  "0s", "-5m", "1.5h", "10x",
                         "h10", "10 m", "1y", "ms", "abc", "10mm", "99999999999999999999w"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t got = 12345;
        if (cli_parse_duration(bad[i], &got))
            fail_msg("'%s' was accepted as %lld seconds", bad[i], (long long)got);
        assert_int_equal(got, 12345); /* untouched */
    }
    /* The largest week count that fits, and one past it. */
    expect_seconds("15250284452471w", 15250284452471LL * 604800);
    int64_t got;
    assert_false(cli_parse_duration("15250284452472w", &got));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_units),
                                       cmocka_unit_test(test_refused)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
