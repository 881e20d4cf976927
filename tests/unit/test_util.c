/* Unit tests for src/util: arena, buf, strutil, timefmt, jsonx. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/arena.h"
#include "util/array.h"
#include "util/arrow.h"
#include "util/buf.h"
#include "util/jsonx.h"
#include "util/strutil.h"
#include "util/timefmt.h"
#include "util/bytes.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ arena */

static size_t max_align(void)
{
    return _Alignof(max_align_t);
}

static void test_arena_many_allocations(void **state)
{
    (void)state;
    struct arena a;
    arena_init(&a, 0);
    enum { N = 50000 };
    unsigned char **ptrs = calloc(N, sizeof *ptrs);
    assert_non_null(ptrs);
    /* Sizes 1..300 cycle through chunk boundaries many times. */
    for (size_t i = 0; i < N; i++) {
        size_t size = 1 + i % 300;
        ptrs[i] = arena_alloc(&a, size);
        assert_non_null(ptrs[i]);
        assert_int_equal((uintptr_t)ptrs[i] % max_align(), 0);
        memset(ptrs[i], (int)(i & 0xff), size);
    }
    /* Nothing overlapped: every block still holds its own pattern. */
    for (size_t i = 0; i < N; i++) {
        size_t size = 1 + i % 300;
        for (size_t k = 0; k < size; k++)
            if (ptrs[i][k] != (unsigned char)(i & 0xff))
                fail_msg("block %zu byte %zu was overwritten", i, k);
    }
    assert_true(a.used_bytes >= (size_t)N * 150);
    free(ptrs);
    arena_free(&a);
    assert_null(a.head);
    assert_int_equal(a.used_bytes, 0);
}

static void test_arena_large_and_zero_sizes(void **state)
{
    (void)state;
    struct arena a;
    arena_init(&a, 0);
    size_t big = 3 * 1024 * 1024 + 7; /* larger than any regular chunk */
    unsigned char *p = arena_alloc(&a, big);
    assert_non_null(p);
    p[0] = 1;
    p[big - 1] = 2;
    void *z1 = arena_alloc(&a, 0);
    void *z2 = arena_alloc(&a, 0);
    assert_non_null(z1);
    assert_non_null(z2);
    assert_ptr_not_equal(z1, z2); /* distinct pointers even for size 0 */
    assert_int_equal(p[0], 1);
    assert_int_equal(p[big - 1], 2);
    assert_null(arena_alloc(&a, SIZE_MAX));
    assert_null(arena_alloc(&a, SIZE_MAX / 2 + 1));
    arena_free(&a);
}

static void test_arena_calloc(void **state)
{
    (void)state;
    struct arena a;
    arena_init(&a, 0);
    /* Dirty the arena first so zeroing is observable. */
    unsigned char *dirty = arena_alloc(&a, 4096);
    assert_non_null(dirty);
    memset(dirty, 0xab, 4096);
    uint32_t *v = arena_calloc(&a, 1000, sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < 1000; i++)
        assert_int_equal(v[i], 0);
    /* n * size overflows: refused rather than a short allocation. */
    assert_null(arena_calloc(&a, SIZE_MAX / 2, 4));
    assert_null(arena_calloc(&a, SIZE_MAX, SIZE_MAX));
    assert_non_null(arena_calloc(&a, 0, 8));
    arena_free(&a);
}

static void test_arena_limit(void **state)
{
    (void)state;
    const size_t limit = 1000;
    struct arena a;
    arena_init(&a, limit);
    size_t count = 0;
    while (arena_alloc(&a, 100) != NULL) {
        count++;
        assert_true(a.used_bytes <= limit);
        assert_true(count <= limit / 100); /* cannot hand out more than the limit */
    }
    assert_true(count >= 1);
    assert_true(a.used_bytes <= limit);
    /* Larger requests keep failing once the limit is near. */
    assert_null(arena_alloc(&a, limit));
    char longstr[2048];
    memset(longstr, 'x', sizeof longstr - 1);
    longstr[sizeof longstr - 1] = '\0';
    assert_null(arena_strdup(&a, longstr));
    assert_null(arena_sprintf(&a, "%s", longstr));
    assert_true(a.used_bytes <= limit);

    /* Freeing resets the accounting: the arena is usable again. */
    arena_free(&a);
    assert_int_equal(a.used_bytes, 0);
    assert_int_equal(a.limit_bytes, limit);
    assert_non_null(arena_alloc(&a, 100));
    assert_null(arena_alloc(&a, limit + 1));
    arena_free(&a);
}

static void test_arena_limit_exact_fit(void **state)
{
    (void)state;
    /* A single allocation of exactly the limit fits; one byte more does not. */
    size_t limit = 64 * max_align();
    struct arena a;
    arena_init(&a, limit);
    assert_null(arena_alloc(&a, limit + 1));
    assert_non_null(arena_alloc(&a, limit));
    assert_null(arena_alloc(&a, 1));
    arena_free(&a);
}

static void test_arena_strings(void **state)
{
    (void)state;
    struct arena a;
    arena_init(&a, 0);
    char *s = arena_strdup(&a, "hello");
    assert_string_equal(s, "hello");
    char *e = arena_strdup(&a, "");
    assert_string_equal(e, "");
    char *n = arena_strndup(&a, "hello world", 5);
    assert_string_equal(n, "hello");
    char *n0 = arena_strndup(&a, "abc", 0);
    assert_string_equal(n0, "");
    /* strdup copies: changing the source does not change the copy. */
    char src[] = "mutable";
    char *copy = arena_strdup(&a, src);
    src[0] = 'M';
    assert_string_equal(copy, "mutable");

    char *f = arena_sprintf(&a, "%d-%s-%05.1f-%lld", 42, "x", 3.14159, (long long)INT64_MIN);
    assert_string_equal(f, "42-x-003.1--9223372036854775808");
    char *empty = arena_sprintf(&a, "%s", "");
    assert_string_equal(empty, "");

    /* A long formatted string beyond a chunk. */
    char *longs = arena_sprintf(&a, "%*s|", 40000, "end");
    assert_non_null(longs);
    assert_int_equal(strlen(longs), 40001);
    assert_string_equal(longs + 39997, "end|");
    /* Earlier strings survived the new chunk. */
    assert_string_equal(s, "hello");
    assert_string_equal(f, "42-x-003.1--9223372036854775808");
    arena_free(&a);
}

/* -------------------------------------------------------------------- buf */

static void test_buf_append_puts_putc(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "abc"), 0);
    assert_int_equal(buf_putc(&b, '-'), 0);
    assert_int_equal(buf_append(&b, "xyz123", 3), 0);
    assert_int_equal(b.len, 7);
    assert_string_equal(b.data, "abc-xyz");
    assert_true(b.cap >= b.len + 1);
    /* Embedded NUL bytes are data; len counts them. */
    assert_int_equal(buf_append(&b, "a\0b", 3), 0);
    assert_int_equal(b.len, 10);
    assert_memory_equal(b.data, "abc-xyza\0b", 11);
    /* Appending nothing keeps contents and termination. */
    assert_int_equal(buf_append(&b, NULL, 0), 0);
    assert_int_equal(b.len, 10);
    assert_int_equal(b.data[10], '\0');
    buf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);
}

static void test_buf_growth(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    enum { N = 100000 };
    for (size_t i = 0; i < N; i++)
        assert_int_equal(buf_putc(&b, (char)('a' + i % 26)), 0);
    assert_int_equal(b.len, N);
    assert_true(b.cap > N);
    assert_int_equal(b.data[N], '\0');
    for (size_t i = 0; i < N; i++)
        if (b.data[i] != (char)('a' + i % 26))
            fail_msg("byte %zu is '%c'", i, b.data[i]);
    /* One big append after many small ones. */
    char *chunk = malloc(1 << 20);
    assert_non_null(chunk);
    memset(chunk, 'Z', 1 << 20);
    assert_int_equal(buf_append(&b, chunk, 1 << 20), 0);
    assert_int_equal(b.len, N + (1 << 20));
    assert_int_equal(b.data[N - 1], (char)('a' + (N - 1) % 26));
    assert_int_equal(b.data[N], 'Z');
    assert_int_equal(b.data[b.len - 1], 'Z');
    assert_int_equal(b.data[b.len], '\0');
    free(chunk);
    buf_free(&b);
}

static void test_buf_printf(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_printf(&b, "%s=%d", "n", 5), 0);
    assert_int_equal(buf_printf(&b, ",%lld", (long long)INT64_MAX), 0);
    assert_string_equal(b.data, "n=5,9223372036854775807");
    assert_int_equal(b.len, strlen("n=5,9223372036854775807"));
    /* Output much longer than the initial capacity. */
    assert_int_equal(buf_printf(&b, "%0500d|", 7), 0);
    assert_int_equal(b.len, 23 + 501);
    assert_string_equal(b.data + b.len - 2, "7|");
    assert_int_equal(b.data[23], '0');
    /* An empty format still leaves a terminated buffer. */
    struct buf e = BUF_INIT;
    assert_int_equal(buf_printf(&e, "%s", ""), 0);
    assert_int_equal(e.len, 0);
    assert_non_null(e.data);
    assert_string_equal(e.data, "");
    buf_free(&e);
    buf_free(&b);
}

static void test_buf_reset_keeps_memory(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    buf_reset(&b); /* on an empty buffer: harmless */
    assert_null(b.data);
    assert_int_equal(buf_puts(&b, "some text that is here"), 0);
    char *data = b.data;
    size_t cap = b.cap;
    buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_ptr_equal(b.data, data);
    assert_int_equal(b.cap, cap);
    assert_string_equal(b.data, "");
    assert_int_equal(buf_puts(&b, "new"), 0);
    assert_string_equal(b.data, "new");
    buf_free(&b);
}

static void test_buf_reserve_overflow_keeps_contents(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "keep"), 0);
    assert_int_equal(buf_reserve(&b, SIZE_MAX), -1);
    assert_int_equal(buf_reserve(&b, SIZE_MAX - 4), -1);
    assert_int_equal(b.len, 4);
    assert_string_equal(b.data, "keep");
    assert_int_equal(buf_reserve(&b, 1000), 0);
    assert_true(b.cap >= 1005);
    assert_string_equal(b.data, "keep");
    buf_free(&b);
}

static void test_buf_take(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "owned"), 0);
    char *s = buf_take(&b);
    assert_string_equal(s, "owned");
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);
    /* The buffer is reusable and independent of the taken string. */
    assert_int_equal(buf_puts(&b, "again"), 0);
    assert_string_equal(s, "owned");
    assert_string_equal(b.data, "again");
    free(s);
    buf_free(&b);
    /* Taking from an empty buffer gives an empty, freeable string. */
    struct buf e = BUF_INIT;
    char *t = buf_take(&e);
    assert_non_null(t);
    assert_string_equal(t, "");
    free(t);
}

/* ---------------------------------------------------------------- strutil */

struct int_case {
    const char *in;
    bool ok;
    int64_t want;
};

static void test_str_parse_int64(void **state)
{
    (void)state;
    static const struct int_case cases[] = {
        {"0", true, 0},
        {"-0", true, 0},
        {"1", true, 1},
        {"-1", true, -1},
        {"42", true, 42},
        {"01", true, 1}, /* leading zeros: digits only, so allowed */
        {"0000000000000000000000000007", true, 7},
        {"9223372036854775807", true, INT64_MAX},
        {"-9223372036854775808", true, INT64_MIN},
        {"9223372036854775806", true, INT64_MAX - 1},
        {"-9223372036854775807", true, INT64_MIN + 1},
        {"9223372036854775808", false, 0},  /* INT64_MAX + 1 */
        {"-9223372036854775809", false, 0}, /* INT64_MIN - 1 */
        {"9223372036854775810", false, 0},
        {"18446744073709551615", false, 0},
        {"18446744073709551616", false, 0}, /* wraps uint64 to 0 */
        {"99999999999999999999999", false, 0},
        {"+1", false, 0},
        {"", false, 0},
        {"-", false, 0},
        {"--1", false, 0},
        {"-+1", false, 0},
        {" 1", false, 0},
        {"1 ", false, 0},
        {"1\n", false, 0},
        {"\t1", false, 0},
        {"1e3", false, 0},
        {"0x10", false, 0},
        {"1.0", false, 0},
        {"1_000", false, 0},
        {"abc", false, 0},
        {"12a", false, 0},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        int64_t out = 12345;
        bool ok = str_parse_int64(cases[i].in, &out);
        if (ok != cases[i].ok)
            fail_msg("str_parse_int64(\"%s\") returned %d, want %d", cases[i].in, ok, cases[i].ok);
        if (ok && out != cases[i].want)
            fail_msg("str_parse_int64(\"%s\") = %lld, want %lld", cases[i].in, (long long)out,
                     (long long)cases[i].want);
        if (!ok && out != 12345)
            fail_msg("str_parse_int64(\"%s\") failed but wrote %lld", cases[i].in, (long long)out);
    }
    int64_t out = 9;
    assert_false(str_parse_int64(NULL, &out));
    assert_int_equal(out, 9);
}

static void test_str_parse_int64_round_trip(void **state)
{
    (void)state;
    /* Every power of ten and its neighbours, both signs. */
    int64_t p = 1;
    for (int e = 0; e <= 18; e++) {
        if (e > 0)
            p *= 10;
        const int64_t vals[] = {p, p - 1, p + 1, -p, -p + 1, -p - 1};
        for (size_t i = 0; i < ARRAY_LEN(vals); i++) {
            char s[32];
            snprintf(s, sizeof s, "%lld", (long long)vals[i]);
            int64_t out = 0;
            assert_true(str_parse_int64(s, &out));
            assert_int_equal(out, vals[i]);
        }
    }
}

static void test_str_parse_bool(void **state)
{
    (void)state;
    bool b = false;
    assert_true(str_parse_bool("true", &b));
    assert_true(b);
    assert_true(str_parse_bool("false", &b));
    assert_false(b);
    static const char *const bad[] = {"TRUE", "True",  "FALSE", "1", "0", "",      "yes",
                                      "no",   "true ", " true", "t", "f", "truex", "fals"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        bool out = true;
        if (str_parse_bool(bad[i], &out))
            fail_msg("str_parse_bool(\"%s\") accepted", bad[i]);
        assert_true(out); /* untouched */
        out = false;
        assert_false(str_parse_bool(bad[i], &out));
        assert_false(out);
    }
    bool out = true;
    assert_false(str_parse_bool(NULL, &out));
    assert_true(out);
}

static void test_str_is_uuid(void **state)
{
    (void)state;
    static const char *const good[] = {
        "123e4567-e89b-12d3-a456-426614174000",
        "00000000-0000-0000-0000-000000000000",
        "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
        "aBcDeF01-2345-6789-AbCd-eF0123456789",
    };
    static const char *const bad[] = {
        "",
        "123e4567-e89b-12d3-a456-42661417400",   /* 35 chars */
        "123e4567-e89b-12d3-a456-4266141740000", /* 37 chars */
        "123e4567e89b12d3a456426614174000",      /* no dashes */
        "123e4567-e89b-12d3-a456_426614174000",  /* wrong separator */
        "123e456-7e89b-12d3-a456-426614174000",  /* dash misplaced */
        "123e4567-e89b-12d3-a4566-42661417400",  /* dash misplaced */
        "g23e4567-e89b-12d3-a456-426614174000",  /* non-hex */
        "123e4567-e89b-12d3-a456-42661417400z",
        "{23e4567-e89b-12d3-a456-42661417400}",
        " 23e4567-e89b-12d3-a456-426614174000",
        "123e4567-e89b-12d3-a456-4266141740-0",
    };
    for (size_t i = 0; i < ARRAY_LEN(good); i++)
        if (!str_is_uuid(good[i]))
            fail_msg("str_is_uuid(\"%s\") refused", good[i]);
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        if (str_is_uuid(bad[i]))
            fail_msg("str_is_uuid(\"%s\") accepted", bad[i]);
    /* The parse gives the bytes in order; a length that is not the text's
     * is refused. */
    uint8_t b[16];
    assert_true(str_parse_uuid(good[0], 36, b));
    assert_int_equal(b[0], 0x12);
    assert_int_equal(b[15], 0x00);
    assert_int_equal(b[6], 0x12);
    assert_false(str_parse_uuid(good[0], 35, b));
    /* Formatting is the parse's inverse, lowercase whatever the text's
     * case; the groups are 8-4-4-4-12. */
    char text[37];
    for (size_t i = 0; i < ARRAY_LEN(good); i++) {
        assert_true(str_parse_uuid(good[i], strlen(good[i]), b));
        assert_int_equal(str_format_uuid(b, text), 36);
        char lower[37];
        assert_true(str_lower(lower, sizeof lower, good[i]));
        assert_string_equal(text, lower);
    }
    const uint8_t seq[16] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                             0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0xff};
    str_format_uuid(seq, text);
    assert_string_equal(text, "00010203-0405-0607-0809-0a0b0c0d0eff");
}

static void test_str_has_space_or_control(void **state)
{
    (void)state;
    assert_false(str_has_space_or_control(""));
    assert_false(str_has_space_or_control("abc"));
    assert_false(str_has_space_or_control("s3://bucket/path-_.~"));
    assert_false(str_has_space_or_control("caf\xc3\xa9")); /* UTF-8 bytes >= 0x80 */
    assert_true(str_has_space_or_control(" "));
    assert_true(str_has_space_or_control("a b"));
    assert_true(str_has_space_or_control("a\tb"));
    assert_true(str_has_space_or_control("a\n"));
    assert_true(str_has_space_or_control("\ra"));
    assert_true(str_has_space_or_control("a\x01"));
    assert_true(str_has_space_or_control("a\x1f"));
    assert_true(str_has_space_or_control("a\x7f"));
    assert_true(str_has_space_or_control("\x0b"));
    assert_true(str_has_space_or_control("\x0c"));
}

static void test_str_misc(void **state)
{
    (void)state;
    assert_true(str_starts_with("hoglake.x", "hoglake."));
    assert_true(str_starts_with("abc", ""));
    assert_false(str_starts_with("hog", "hoglake"));
    assert_true(str_ends_with("file.parquet", ".parquet"));
    assert_true(str_ends_with("x", ""));
    assert_false(str_ends_with("parquet", "file.parquet"));

    char dst[6];
    assert_true(str_copy(dst, sizeof dst, "hello"));
    assert_string_equal(dst, "hello");
    assert_false(str_copy(dst, sizeof dst, "hello!"));
    assert_string_equal(dst, "hello");
    assert_false(str_copy(dst, 0, "x"));
    assert_true(str_copy(dst, 1, ""));
    assert_string_equal(dst, "");

    char low[8];
    assert_true(str_lower(low, sizeof low, "AbC-9_Z"));
    assert_string_equal(low, "abc-9_z");
    assert_false(str_lower(low, sizeof low, "ABCDEFGH"));
    assert_string_equal(low, "abcdefg");
    assert_true(str_lower(low, 1, ""));
    assert_string_equal(low, "");
}

/* ---------------------------------------------------------------- timefmt */

enum { SEC = 1000000 };
static const int64_t JAN1_2024 = INT64_C(1704067200) * SEC;

struct time_case {
    const char *in;
    int64_t want;
};

static void test_time_parse_valid(void **state)
{
    (void)state;
    static const struct time_case cases[] = {
        {"1970-01-01T00:00:00Z", 0},
        {"2024-01-01T00:00:00Z", INT64_C(1704067200) * SEC},
        {"2024-01-01 00:00:00Z", INT64_C(1704067200) * SEC},
        {"2024-01-01T02:00:00+02:00", INT64_C(1704067200) * SEC},
        {"2024-01-01T02:00:00+0200", INT64_C(1704067200) * SEC},
        {"2024-01-01T02:00:00+02", INT64_C(1704067200) * SEC},
        {"2023-12-31T18:30:00-0530", INT64_C(1704067200) * SEC},
        {"2023-12-31T18:30:00-05:30", INT64_C(1704067200) * SEC},
        {"2024-01-01T05:00:00+05", INT64_C(1704067200) * SEC},
        {"2024-01-01T00:00:00+00:00", INT64_C(1704067200) * SEC},
        {"2024-01-01T00:00:00-00:00", INT64_C(1704067200) * SEC},
        {"2024-01-01T18:00:00+18:00", INT64_C(1704067200) * SEC},
        {"2024-02-29T12:34:56Z", INT64_C(1709210096) * SEC},
        {"2000-02-29T00:00:00Z", INT64_C(951782400) * SEC},
        {"1969-12-31T23:59:59Z", -SEC},
        {"1969-12-31T23:59:59.5Z", -SEC / 2},
        {"1969-12-31T23:59:59.999999Z", -1},
        {"1900-01-01T00:00:00Z", INT64_C(-2208988800) * SEC},
        {"0001-01-01T00:00:00Z", INT64_C(-62135596800) * SEC},
        {"9999-12-31T23:59:59.999999Z", INT64_C(253402300799999999)},
        {"2024-12-31T23:59:59Z", INT64_C(1735689599) * SEC},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        int64_t out = 0;
        if (!time_parse_iso8601(cases[i].in, &out))
            fail_msg("time_parse_iso8601(\"%s\") refused", cases[i].in);
        if (out != cases[i].want)
            fail_msg("time_parse_iso8601(\"%s\") = %lld, want %lld", cases[i].in, (long long)out,
                     (long long)cases[i].want);
    }
}

static void test_time_parse_fractions(void **state)
{
    (void)state;
    static const struct time_case cases[] = {
        {"2024-01-01T00:00:00.1Z", 100000},
        {"2024-01-01T00:00:00.12Z", 120000},
        {"2024-01-01T00:00:00.123Z", 123000},
        {"2024-01-01T00:00:00.1234Z", 123400},
        {"2024-01-01T00:00:00.12345Z", 123450},
        {"2024-01-01T00:00:00.123456Z", 123456},
        {"2024-01-01T00:00:00.1234567Z", 123456}, /* sub-microsecond truncated */
        {"2024-01-01T00:00:00.12345678Z", 123456},
        {"2024-01-01T00:00:00.123456789Z", 123456},
        {"2024-01-01T00:00:00.999999999Z", 999999},
        {"2024-01-01T00:00:00.000001Z", 1},
        {"2024-01-01T00:00:00.000000Z", 0},
        {"2024-01-01T00:00:00.5+01:00", -3600 * (int64_t)SEC + 500000},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        int64_t out = 0;
        if (!time_parse_iso8601(cases[i].in, &out))
            fail_msg("time_parse_iso8601(\"%s\") refused", cases[i].in);
        if (out != JAN1_2024 + cases[i].want)
            fail_msg("time_parse_iso8601(\"%s\") = %lld, want %lld", cases[i].in, (long long)out,
                     (long long)(JAN1_2024 + cases[i].want));
    }
}

static void test_time_parse_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "garbage",
        "2024-01-01T00:00:00", /* no offset: a local time names no instant */
        "2024-01-01 00:00:00",
        "2024-01-01T00:00:00.123",
        "2024-01-01",
        "2024-01-01T00:00Z",               /* seconds are required */
        "2024-01-01T00:00:00.1234567890Z", /* 10 fraction digits */
        "2024-01-01T00:00:00.Z",           /* empty fraction */
        "2023-02-29T00:00:00Z",            /* not a leap year */
        "1900-02-29T00:00:00Z",            /* century, not leap */
        "2024-02-30T00:00:00Z",
        "2024-04-31T00:00:00Z",
        "2024-13-01T00:00:00Z",
        "2024-00-01T00:00:00Z",
        "2024-01-00T00:00:00Z",
        "2024-01-32T00:00:00Z",
        "2024-01-01T24:00:00Z",
        "2024-01-01T00:60:00Z",
        "2024-01-01T00:00:60Z",
        "2024-1-01T00:00:00Z",
        "24-01-01T00:00:00Z",
        "2024/01/01T00:00:00Z",
        "2024-01-01X00:00:00Z",
        "2024-01-01T00:00:00ZZ",
        "2024-01-01T00:00:00Z ",
        " 2024-01-01T00:00:00Z",
        "2024-01-01T00:00:00+",
        "2024-01-01T00:00:00+1",
        "2024-01-01T00:00:00+123",
        "2024-01-01T00:00:00+05:3",
        "2024-01-01T00:00:00+05:",
        "2024-01-01T00:00:00+05:60",
        "2024-01-01T00:00:00+19:00",
        "2024-01-01T00:00:00+05:30:00",
        "2024-01-01T00:00:00UTC",
        "+12024-01-01T00:00:00Z",
        "2024-01-01T0:00:00Z",
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        int64_t out = 777;
        if (time_parse_iso8601(bad[i], &out))
            fail_msg("time_parse_iso8601(\"%s\") accepted as %lld", bad[i], (long long)out);
        assert_int_equal(out, 777);
    }
}

static void test_time_parse_offset_range(void **state)
{
    (void)state;
    int64_t out = 0;
    assert_false(time_parse_iso8601("2024-01-01T00:00:00+18:30", &out));
    assert_false(time_parse_iso8601("2024-01-01T00:00:00-18:59", &out));
    assert_true(time_parse_iso8601("2024-01-01T00:00:00-18:00", &out));
}

struct fmt_case {
    int64_t micros;
    const char *want;
};

static void test_time_format(void **state)
{
    (void)state;
    static const struct fmt_case cases[] = {
        {0, "1970-01-01T00:00:00Z"},
        {INT64_C(1704067200) * SEC, "2024-01-01T00:00:00Z"},
        {INT64_C(1704067200) * SEC + 123000, "2024-01-01T00:00:00.123Z"},
        {INT64_C(1704067200) * SEC + 120000, "2024-01-01T00:00:00.120Z"},
        {INT64_C(1704067200) * SEC + 100000, "2024-01-01T00:00:00.100Z"},
        {INT64_C(1704067200) * SEC + 123456, "2024-01-01T00:00:00.123456Z"},
        {INT64_C(1704067200) * SEC + 123400, "2024-01-01T00:00:00.123400Z"},
        {INT64_C(1704067200) * SEC + 1000, "2024-01-01T00:00:00.001Z"},
        {INT64_C(1704067200) * SEC + 1, "2024-01-01T00:00:00.000001Z"},
        {INT64_C(1709210096) * SEC, "2024-02-29T12:34:56Z"},
        {-1, "1969-12-31T23:59:59.999999Z"},
        {-SEC / 2, "1969-12-31T23:59:59.500Z"},
        {-SEC, "1969-12-31T23:59:59Z"},
        {-86400 * (int64_t)SEC, "1969-12-31T00:00:00Z"},
        {-86400 * (int64_t)SEC - 1, "1969-12-30T23:59:59.999999Z"},
        {INT64_C(-2208988800) * SEC, "1900-01-01T00:00:00Z"},
        {INT64_C(-62135596800) * SEC, "0001-01-01T00:00:00Z"},
        {INT64_C(-719528) * 86400 * SEC, "0000-01-01T00:00:00Z"},
        {INT64_C(-719529) * 86400 * SEC, "-00001-12-31T00:00:00Z"},
        {INT64_C(253402300799999999), "9999-12-31T23:59:59.999999Z"},
        {INT64_C(253402300800) * SEC, "+10000-01-01T00:00:00Z"},
        {INT64_MAX, "+294247-01-10T04:00:54.775807Z"},
        {INT64_MIN, "-290308-12-21T19:59:05.224192Z"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        char out[40];
        memset(out, '#', sizeof out);
        size_t n = time_format_iso8601(cases[i].micros, out, sizeof out);
        if (strcmp(out, cases[i].want) != 0)
            fail_msg("time_format_iso8601(%lld) = \"%s\", want \"%s\"", (long long)cases[i].micros,
                     out, cases[i].want);
        assert_int_equal(n, strlen(cases[i].want));
    }
}

static void test_time_format_large_years(void **state)
{
    (void)state;
    char out[40];
    int64_t d = time_days_from_civil(123456, 7, 8);
    time_format_iso8601(d * 86400 * SEC, out, sizeof out);
    assert_string_equal(out, "+123456-07-08T00:00:00Z");
    d = time_days_from_civil(-5, 3, 1);
    time_format_iso8601(d * 86400 * SEC, out, sizeof out);
    assert_string_equal(out, "-00005-03-01T00:00:00Z");
    d = time_days_from_civil(-12345, 3, 1);
    time_format_iso8601(d * 86400 * SEC, out, sizeof out);
    assert_string_equal(out, "-12345-03-01T00:00:00Z");
    /* A short buffer is never overrun and stays terminated. */
    char small[12];
    memset(small, '#', sizeof small);
    time_format_iso8601(0, small + 2, 8);
    assert_string_equal(small + 2, "1970-01");
    assert_int_equal(small[0], '#');
    assert_int_equal(small[1], '#');
    assert_int_equal(small[11], '#');
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 11;
}

static void round_trip(int64_t micros)
{
    char out[40];
    time_format_iso8601(micros, out, sizeof out);
    int64_t back = 0;
    if (!time_parse_iso8601(out, &back))
        fail_msg("formatted \"%s\" (from %lld) does not parse", out, (long long)micros);
    if (back != micros)
        fail_msg("\"%s\" parsed to %lld, want %lld", out, (long long)back, (long long)micros);
}

static void test_time_round_trip(void **state)
{
    (void)state;
    const int64_t lo = INT64_C(-62167219200) * SEC; /* 0000-01-01 */
    const int64_t hi = INT64_C(253402300799999999); /* 9999-12-31T23:59:59.999999 */
    const int64_t fixed[] = {0,
                             1,
                             -1,
                             999,
                             1000,
                             1001,
                             SEC - 1,
                             SEC,
                             -SEC,
                             lo,
                             hi,
                             JAN1_2024,
                             JAN1_2024 + 123000,
                             JAN1_2024 + 123456};
    for (size_t i = 0; i < ARRAY_LEN(fixed); i++)
        round_trip(fixed[i]);
    uint64_t seed = 42;
    const uint64_t span = (uint64_t)(hi - lo);
    for (int i = 0; i < 200000; i++) {
        int64_t v = lo + (int64_t)(lcg(&seed) % span);
        /* Exercise each sub-second shape: none, millis, micros. */
        if (i % 3 == 0)
            v -= v % SEC;
        else if (i % 3 == 1)
            v -= v % 1000;
        if (v < lo)
            v += SEC;
        round_trip(v);
    }
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned month_days(int64_t y, unsigned m)
{
    static const unsigned dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : dm[m - 1];
}

static void test_time_civil_known_days(void **state)
{
    (void)state;
    assert_int_equal(time_days_from_civil(1970, 1, 1), 0);
    assert_int_equal(time_days_from_civil(1969, 12, 31), -1);
    assert_int_equal(time_days_from_civil(2000, 3, 1), 11017);
    assert_int_equal(time_days_from_civil(10000, 1, 1), 2932897);
    assert_int_equal(time_days_from_civil(0, 1, 1), -719528);
    int64_t y;
    unsigned m, d;
    time_civil_from_days(-719529, &y, &m, &d);
    assert_int_equal(y, -1);
    assert_int_equal(m, 12);
    assert_int_equal(d, 31);
}

/* Walks every day from year -1000 to 3000 with an independent calendar and
 * checks both conversions; then samples a far wider range sparsely. */
static void test_time_civil_round_trip(void **state)
{
    (void)state;
    int64_t y = -1000;
    unsigned m = 1, d = 1;
    int64_t days = time_days_from_civil(y, m, d);
    while (y <= 3000) {
        int64_t gy;
        unsigned gm, gd;
        time_civil_from_days(days, &gy, &gm, &gd);
        if (gy != y || gm != m || gd != d)
            fail_msg("civil_from_days(%lld) = %lld-%u-%u, want %lld-%u-%u", (long long)days,
                     (long long)gy, gm, gd, (long long)y, m, d);
        if (time_days_from_civil(y, m, d) != days)
            fail_msg("days_from_civil(%lld-%u-%u) != %lld", (long long)y, m, d, (long long)days);
        days++;
        if (++d > month_days(y, m)) {
            d = 1;
            if (++m > 12) {
                m = 1;
                y++;
            }
        }
    }
    for (int64_t z = INT64_C(-400000000); z <= INT64_C(400000000); z += 9973) {
        int64_t gy;
        unsigned gm, gd;
        time_civil_from_days(z, &gy, &gm, &gd);
        assert_true(gm >= 1 && gm <= 12);
        assert_true(gd >= 1 && gd <= month_days(gy, gm));
        if (time_days_from_civil(gy, gm, gd) != z)
            fail_msg("round trip of day %lld failed", (long long)z);
    }
}

static void test_time_clocks(void **state)
{
    (void)state;
    int64_t now = time_now_micros();
    assert_true(now > INT64_C(1704067200) * SEC); /* after 2024 */
    int64_t a = time_mono_ns();
    int64_t b = time_mono_ns();
    assert_true(b >= a);
}

/* ------------------------------------------------------------------ jsonx */

static json_t *parse(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &e);
    if (!v)
        fail_msg("bad test JSON %s: %s", text, e.text);
    return v;
}

struct fields_out {
    json_t *name, *count, *flag, *obj, *arr, *any;
};

static bool read_fields(const char *text, const char *where, struct fields_out *o,
                        struct error *err)
{
    const struct jfield fields[] = {
        {"name", JF_STRING, true, false, &o->name}, {"count", JF_INT, false, false, &o->count},
        {"flag", JF_BOOL, false, true, &o->flag},   {"obj", JF_OBJECT, false, true, &o->obj},
        {"arr", JF_ARRAY, false, false, &o->arr},   {"any", JF_ANY, false, false, &o->any},
    };
    json_t *v = parse(text);
    bool ok = jsonx_read_object(v, where, fields, ARRAY_LEN(fields), err) == 0;
    json_decref(v); /* only the verdict and message are inspected */
    return ok;
}

static void test_jsonx_accepts_and_hands_out(void **state)
{
    (void)state;
    json_t *name, *count, *flag, *obj, *arr, *any;
    const struct jfield fields[] = {
        {"name", JF_STRING, true, false, &name}, {"count", JF_INT, false, false, &count},
        {"flag", JF_BOOL, false, true, &flag},   {"obj", JF_OBJECT, false, true, &obj},
        {"arr", JF_ARRAY, false, false, &arr},   {"any", JF_ANY, false, false, &any},
    };
    struct error err;
    json_t *v = parse("{\"name\":\"n\",\"count\":3,\"flag\":null,\"arr\":[1],\"any\":1.5}");
    assert_int_equal(jsonx_read_object(v, "", fields, ARRAY_LEN(fields), &err), 0);
    assert_string_equal(json_string_value(name), "n");
    assert_int_equal(json_integer_value(count), 3);
    assert_true(json_is_null(flag)); /* nullable: handed out as JSON null */
    assert_null(obj);                /* absent */
    assert_true(json_is_array(arr));
    assert_true(json_is_real(any));
    json_decref(v);

    /* Absent optional fields reset stale outputs to NULL. */
    count = flag = obj = arr = any = (json_t *)1;
    v = parse("{\"name\":\"x\"}");
    assert_int_equal(jsonx_read_object(v, "", fields, ARRAY_LEN(fields), &err), 0);
    assert_non_null(name);
    assert_null(count);
    assert_null(flag);
    assert_null(obj);
    assert_null(arr);
    assert_null(any);
    json_decref(v);
}

struct jsonx_err_case {
    const char *body;
    const char *where;
    const char *want;
};

static void test_jsonx_errors(void **state)
{
    (void)state;
    static const struct jsonx_err_case cases[] = {
        {"{\"name\":\"n\",\"extra\":1}", "", "unknown field 'extra'"},
        {"{\"name\":\"n\",\"extra\":1}", "columns[2]", "unknown field 'columns[2].extra'"},
        {"{\"name\":\"n\",\"Name\":\"m\"}", "", "unknown field 'Name'"}, /* case-sensitive keys */
        {"{}", "", "missing required field 'name'"},
        {"{}", "columns[0].children[1]", "missing required field 'columns[0].children[1].name'"},
        {"{\"count\":1}", "op", "missing required field 'op.name'"},
        {"{\"name\":1}", "", "field 'name' must be a string"},
        {"{\"name\":\"n\",\"count\":\"1\"}", "", "field 'count' must be an integer"},
        {"{\"name\":\"n\",\"count\":1.0}", "", "field 'count' must be an integer"},
        {"{\"name\":\"n\",\"count\":true}", "x", "field 'x.count' must be an integer"},
        {"{\"name\":\"n\",\"flag\":\"true\"}", "", "field 'flag' must be a boolean"},
        {"{\"name\":\"n\",\"flag\":0}", "", "field 'flag' must be a boolean"},
        {"{\"name\":\"n\",\"obj\":[]}", "a.b", "field 'a.b.obj' must be an object"},
        {"{\"name\":\"n\",\"arr\":{}}", "", "field 'arr' must be an array"},
        {"{\"name\":null}", "", "field 'name' must not be null"},
        {"{\"name\":null}", "columns[3]", "field 'columns[3].name' must not be null"},
        {"{\"name\":\"n\",\"count\":null}", "", "field 'count' must not be null"},
        {"{\"name\":\"n\",\"any\":null}", "", "field 'any' must not be null"},
        {"[]", "", "the body must be a JSON object"},
        {"null", "", "the body must be a JSON object"},
        {"\"s\"", "columns[0]", "columns[0] must be a JSON object"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        struct fields_out o;
        struct error err;
        if (read_fields(cases[i].body, cases[i].where, &o, &err))
            fail_msg("case %zu (%s) was accepted", i, cases[i].body);
        if (err.code != ERR_MALFORMED || strcmp(err.msg, cases[i].want) != 0)
            fail_msg("case %zu (%s at '%s'): %s \"%s\", want malformed \"%s\"", i, cases[i].body,
                     cases[i].where, error_code_name(err.code), err.msg, cases[i].want);
    }
}

/* Every internal code reaches the public edge as the status a caller acts
 * on; an input failure reads as the edge's own status when it gives one,
 * while running out of memory, I/O and bugs keep theirs. */
static void test_error_publish_statuses(void **state)
{
    (void)state;
    static const struct {
        enum error_code code;
        hl_status plain, as_validation;
    } cases[] = {
        {ERR_INVALID, HL_ERR_VALIDATION, HL_ERR_VALIDATION},
        {ERR_MALFORMED, HL_ERR_PROTOCOL, HL_ERR_VALIDATION},
        {ERR_NOT_FOUND, HL_ERR_NOT_FOUND, HL_ERR_VALIDATION},
        {ERR_EXPIRED, HL_ERR_EXPIRED, HL_ERR_VALIDATION},
        {ERR_CONFLICT, HL_ERR_CONFLICT, HL_ERR_VALIDATION},
        {ERR_IO, HL_ERR_IO, HL_ERR_IO},
        {ERR_NOMEM, HL_ERR_NOMEM, HL_ERR_NOMEM},
        {ERR_UNAVAILABLE, HL_ERR_UNAVAILABLE, HL_ERR_UNAVAILABLE},
        {ERR_INTERNAL, HL_ERR_INTERNAL, HL_ERR_INTERNAL},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        struct error e;
        error_fail(&e, cases[i].code, "snapshot %d", 7);
        struct hl_error out;
        assert_int_equal(error_publish(&out, HL_OK, &e, "reading"), cases[i].plain);
        assert_string_equal(out.message, "reading: snapshot 7");
        assert_string_equal(out.code, hl_status_name(cases[i].plain));
        assert_int_equal(error_publish(&out, HL_ERR_VALIDATION, &e, NULL), cases[i].as_validation);
        assert_string_equal(out.message, "snapshot 7");
    }
    struct error e;
    error_fail_reason(&e, ERR_EXPIRED, "expired", "gone");
    assert_string_equal(error_code_name(e.code), "expired");
}

/* Capacity doubles from the first size; a request past what size_t can
 * count fails and leaves the array as it was. */
static void test_array_reserve(void **state)
{
    (void)state;
    int64_t *items = NULL;
    size_t cap = 0;
    assert_int_equal(ARRAY_RESERVE(items, cap, 1, 4), 0);
    assert_int_equal(cap, 4);
    items[0] = 7;
    assert_int_equal(ARRAY_RESERVE(items, cap, 4, 4), 0); /* fits: no growth */
    assert_int_equal(cap, 4);
    assert_int_equal(ARRAY_RESERVE(items, cap, 9, 4), 0);
    assert_int_equal(cap, 16);
    assert_int_equal(items[0], 7);
    int64_t *before = items;
    assert_int_equal(ARRAY_RESERVE(items, cap, SIZE_MAX / 4, 4), -1);
    assert_int_equal(ARRAY_RESERVE(items, cap, SIZE_MAX, 4), -1);
    assert_ptr_equal(items, before);
    assert_int_equal(cap, 16);
    assert_int_equal(items[0], 7);
    free(items);
}

static void test_jsonx_message_is_bounded(void **state)
{
    (void)state;
    char key[1000];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    json_t *v = json_object();
    json_object_set_new(v, key, json_true());
    json_t *out;
    const struct jfield f[] = {{"name", JF_STRING, false, false, &out}};
    struct error err;
    memset(&err, '#', sizeof err);
    assert_int_equal(jsonx_read_object(v, "", f, 1, &err), -1);
    assert_true(memchr(err.msg, '\0', sizeof err.msg) != NULL);
    /* The key is cut at 200 characters, whatever room the message has. */
    assert_true(str_starts_with(err.msg, "unknown field 'kkkk"));
    assert_int_equal(strlen(err.msg), strlen("unknown field ''") + 200);
    json_decref(v);
}

static json_t *parse_with_nul(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, JSON_ALLOW_NUL, &e);
    if (!v)
        fail_msg("bad test JSON: %s", e.text);
    return v;
}

static void test_jsonx_find_unstorable(void **state)
{
    (void)state;
    char path[64];
    json_t *v = parse_with_nul("{\"a\":[1,\"x\",{\"b\":\"ok\",\"c\":\"n\\u0000ul\"}]}");
    assert_int_equal(jsonx_find_unstorable(v, true, NULL, NULL, path, sizeof path), JSONX_NUL);
    assert_string_equal(path, "$.a[2].c");
    json_decref(v);
    v = parse_with_nul("{\"a\":[\"x\"],\"b\":{\"c\":\"d\"}}");
    assert_int_equal(jsonx_find_unstorable(v, true, NULL, NULL, path, sizeof path), JSONX_STORABLE);
    json_decref(v);
    /* A path longer than the buffer is cut, never the detection. */
    char text[600];
    snprintf(text, sizeof text, "{\"%0300d\":{\"k\":\"\\u0000\"}}", 7);
    v = parse_with_nul(text);
    assert_int_equal(jsonx_find_unstorable(v, true, NULL, NULL, path, sizeof path), JSONX_NUL);
    assert_int_equal(strlen(path), sizeof path - 1);
    assert_string_equal(path + sizeof path - 4, "...");
    json_decref(v);
    /* A lone surrogate reads as its stand-in and is found; the names under
     * "s" are left to their validator, nothing else there is. */
    const char *lone = "{\"s\":{\"f\":[{\"name\":\"\\ud800\"}]},\"t\":\"a\\udc00\"}";
    json_error_t e;
    bool had = false;
    v = jsonx_loadb_lenient(lone, strlen(lone), 0, &e, &had);
    assert_non_null(v);
    assert_true(had);
    assert_int_equal(jsonx_find_unstorable(v, true, "s", "name", path, sizeof path),
                     JSONX_LONE_SURROGATE);
    assert_string_equal(path, "$.t");
    assert_int_equal(json_object_del(v, "t"), 0);
    assert_int_equal(jsonx_find_unstorable(v, true, "s", "name", path, sizeof path),
                     JSONX_STORABLE);
    assert_int_equal(jsonx_find_unstorable(v, true, NULL, NULL, path, sizeof path),
                     JSONX_LONE_SURROGATE);
    assert_string_equal(path, "$.s.f[0].name");
    json_decref(v);
    /* Without lone surrogates in the text, U+10F800.. are characters. */
    const char *pua = "{\"c\":\"\\udbfe\\udc00\"}";
    v = jsonx_loadb_lenient(pua, strlen(pua), 0, &e, &had);
    assert_non_null(v);
    assert_false(had);
    assert_int_equal(jsonx_find_unstorable(v, had, NULL, NULL, path, sizeof path), JSONX_STORABLE);
    json_decref(v);
    /* Pairs stay characters; an integer past int64 reads as a real. */
    const char *big =
        "{\"p\":\"\\ud83d\\ude00\",\"n\":18446744073709551616,\"m\":-9223372036854775808}";
    v = jsonx_loadb_lenient(big, strlen(big), 0, &e, &had);
    assert_non_null(v);
    assert_false(had);
    assert_string_equal(json_string_value(json_object_get(v, "p")), "\xf0\x9f\x98\x80");
    assert_true(json_is_real(json_object_get(v, "n")));
    assert_true(json_is_integer(json_object_get(v, "m")));
    json_decref(v);
}

/* Lower-case hex, every byte value, and back through str_hex_digit. */
static void test_str_hex_encode(void **state)
{
    (void)state;
    char out[2 * 256 + 1];
    memset(out, 'x', sizeof out);
    str_hex_encode("", 0, out);
    assert_string_equal(out, "");
    str_hex_encode("\x00\x0f\xa5\xff", 4, out);
    assert_string_equal(out, "000fa5ff");
    unsigned char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    str_hex_encode(all, sizeof all, out);
    assert_int_equal(strlen(out), 512);
    for (int i = 0; i < 256; i++)
        assert_int_equal(str_hex_digit(out[2 * i]) * 16 + str_hex_digit(out[2 * i + 1]), i);
    /* And back through str_hex_decode, either case. */
    unsigned char back[256];
    assert_int_equal(str_hex_decode(out, 512, back), 0);
    assert_memory_equal(back, all, sizeof all);
    assert_int_equal(str_hex_decode("A5fF", 4, back), 0);
    assert_int_equal(back[0], 0xa5);
    assert_int_equal(back[1], 0xff);
    assert_int_equal(str_hex_decode("", 0, back), 0);
    assert_int_equal(str_hex_decode("abc", 3, back), -1);
    assert_int_equal(str_hex_decode("0g", 2, back), -1);
    assert_int_equal(str_hex_decode("g0", 2, back), -1);
}

/* ---- bytes ---- */

static void test_bytes_le_and_zigzag(void **state)
{
    (void)state;
    uint8_t b[8];
    le_store(b, 0x0102030405060708u, 8);
    assert_int_equal(b[0], 8);
    assert_int_equal(b[7], 1);
    assert_true(le_load64(b) == 0x0102030405060708u);
    assert_int_equal(le_load32(b), 0x05060708u);
    assert_true(le_load(b, 3) == 0x060708u);
    static const int64_t vs[] = {0, -1, 1, -2, INT64_MAX, INT64_MIN, INT32_MIN, 12345};
    static const uint64_t zz[] = {0, 1, 2, 3, UINT64_MAX - 1, UINT64_MAX, 0xFFFFFFFFu, 24690};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        assert_true(zigzag_encode(vs[i]) == zz[i]);
        assert_true(zigzag_decode(zz[i]) == vs[i]);
    }
}

static void test_bytes_varints(void **state)
{
    (void)state;
    uint8_t b[VARINT_MAX_BYTES];
    uint64_t v;
    static const uint64_t values[] = {0, 1, 127, 128, 300, UINT32_MAX, UINT64_MAX};
    static const size_t lengths[] = {1, 1, 1, 2, 2, 5, 10};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        size_t n = varint_encode(values[i], b);
        assert_int_equal(n, lengths[i]);
        assert_int_equal(varint_decode(b, n, 64, &v), n);
        assert_true(v == values[i]);
        assert_int_equal(varint_decode(b, n - 1, 64, &v), 0); /* cut short */
        assert_int_equal(varint_decode(b, n, 32, &v), values[i] <= UINT32_MAX ? n : 0);
    }
    /* A tenth byte past the 64th bit, a fifth past the 32nd, an eleventh. */
    static const uint8_t over64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    assert_int_equal(varint_decode(over64, sizeof over64, 64, &v), 0);
    static const uint8_t over32[] = {0xff, 0xff, 0xff, 0xff, 0x10};
    assert_int_equal(varint_decode(over32, sizeof over32, 32, &v), 0);
    static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0};
    assert_int_equal(varint_decode(eleven, sizeof eleven, 64, &v), 0);
}

/* ---- arrow_bytes ---- */

/* String arrays read in place at an offset, in both offset widths, and
 * the approximate size of a struct of them. */
static void test_arrow_bytes(void **state)
{
    (void)state;
    static const int32_t o32[] = {0, 2, 5, 5, 9};
    static const int64_t o64[] = {0, 3, 3, 10};
    static const uint8_t valid = 0x0b; /* values 0, 1, 3 */
    struct ArrowArray small = {.length = 3,
                               .offset = 1,
                               .null_count = 1,
                               .n_buffers = 3,
                               .buffers = (const void *[]){&valid, o32, "abcdefghi"}};
    struct arrow_bytes in;
    assert_false(arrow_bytes_open(&in, "i", &small));
    assert_true(arrow_bytes_open(&in, "u", &small));
    const uint8_t *p;
    size_t n;
    arrow_bytes_at(&in, 0, &p, &n); /* row 1 of the buffers: "cde" */
    assert_int_equal(n, 3);
    assert_memory_equal(p, "cde", 3);
    assert_true(arrow_bytes_valid(&in, 0));
    assert_false(arrow_bytes_valid(&in, 1));
    assert_int_equal(arrow_bytes_span(&in, 0, 3), 7); /* "cde" "" "fghi" */
    assert_int_equal(arrow_bytes_span(&in, 2, 1), 4);
    assert_int_equal(arrow_bytes_span(&in, 1, 0), 0);
    struct ArrowArray large = {
        .length = 3, .n_buffers = 3, .buffers = (const void *[]){NULL, o64, "xyz0123456"}};
    assert_true(arrow_bytes_open(&in, "Z", &large));
    arrow_bytes_at(&in, 2, &p, &n);
    assert_int_equal(n, 7);
    assert_memory_equal(p, "0123456", 7);
    /* A struct of both, plus an int column: bytes with their offsets, 8
     * a fixed-width value, 4 the struct's slot. */
    struct ArrowArray ints = {.length = 3, .n_buffers = 2};
    struct ArrowArray *kids[] = {&small, &large, &ints};
    struct ArrowArray row = {.length = 3, .n_buffers = 1, .n_children = 3, .children = kids};
    struct ArrowSchema su = {.format = "u"}, sz = {.format = "Z"}, si = {.format = "i"};
    struct ArrowSchema *skids[] = {&su, &sz, &si};
    struct ArrowSchema srow = {.format = "+s", .n_children = 3, .children = skids};
    assert_true(arrow_approx_bytes(&srow, &row) == 4 * 3 + (7 + 4 * 3) + (10 + 8 * 3) + 8 * 3);
}

/* ---- arrow_share ---- */

/* An int32 array of n values v[i], or a list's offsets. */
static void ints(struct ArrowArray *a, const int32_t *v, int64_t n, int64_t nvalues)
{
    assert_int_equal(arrow_array_init(a, 2, 0), 0);
    int32_t *copy = malloc((size_t)nvalues * sizeof *copy);
    assert_non_null(copy);
    memcpy(copy, v, (size_t)nvalues * sizeof *copy);
    arrow_array_own_buffer(a, 1, copy);
    a->length = n;
}

/* Views of a batch {k: dictionary-encoded int32, l: list<int32>} outlive
 * the share and each other, see the rows they were cut at, and free the
 * batch with the last (the sanitizers check that nothing leaks or is
 * read after it is freed). */
static void test_arrow_share_views(void **state)
{
    (void)state;
    static const int32_t idx[] = {1, 0, 1, 1, 0, 1};
    static const int32_t dict[] = {70, 80};
    static const int32_t offs[] = {0, 1, 3, 3, 4, 6, 7};
    static const int32_t elems[] = {1, 2, 3, 4, 5, 6, 7};
    struct ArrowArray batch;
    assert_int_equal(arrow_array_init(&batch, 1, 2), 0);
    batch.length = 6;
    ints(batch.children[0], idx, 6, 6);
    struct ArrowArray *d = malloc(sizeof *d);
    assert_non_null(d);
    ints(d, dict, 2, 2);
    batch.children[0]->dictionary = d; /* freed below: the batch's own release does not */
    struct ArrowArray *l = batch.children[1];
    assert_int_equal(arrow_array_init(l, 2, 1), 0);
    int32_t *o = malloc(sizeof offs);
    assert_non_null(o);
    memcpy(o, offs, sizeof offs);
    arrow_array_own_buffer(l, 1, o);
    l->length = 6;
    ints(l->children[0], elems, 7, 7);

    struct arrow_share *s = arrow_share_new(&batch);
    assert_non_null(s);
    assert_null(batch.release); /* moved in */
    struct ArrowArray k_view, l_view;
    assert_int_equal(arrow_share_view(s, 0, 2, 3, &k_view), 0);
    assert_int_equal(arrow_share_view(s, 1, 4, 2, &l_view), 0);
    struct ArrowArray out_of_range;
    assert_int_equal(arrow_share_view(s, 1, 5, 2, &out_of_range), -1);
    assert_int_equal(arrow_share_view(s, 2, 0, 1, &out_of_range), -1);
    arrow_share_unref(s); /* the views hold the batch now */

    assert_int_equal(k_view.length, 3);
    assert_int_equal(k_view.offset, 2);
    assert_non_null(k_view.dictionary);
    const int32_t *ki = k_view.buffers[1], *kd = k_view.dictionary->buffers[1];
    assert_int_equal(kd[ki[k_view.offset + 0]], 80);
    assert_int_equal(kd[ki[k_view.offset + 1]], 80);
    assert_int_equal(kd[ki[k_view.offset + 2]], 70);
    /* Row 0 of the list view is the batch's row 4: [5, 6]. */
    const int32_t *lo = l_view.buffers[1];
    const int32_t *le = l_view.children[0]->buffers[1];
    assert_int_equal(lo[l_view.offset + 1] - lo[l_view.offset], 2);
    assert_int_equal(le[lo[l_view.offset]], 5);
    /* A child moved out lives on after its parent view goes. */
    struct ArrowArray elements;
    arrow_array_move(l_view.children[0], &elements);
    l_view.release(&l_view);
    k_view.release(&k_view);
    assert_int_equal(((const int32_t *)elements.buffers[1])[6], 7);
    elements.release(&elements);
    d->release(d);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arrow_bytes),
        cmocka_unit_test(test_arrow_share_views),
        cmocka_unit_test(test_arena_many_allocations),
        cmocka_unit_test(test_arena_large_and_zero_sizes),
        cmocka_unit_test(test_arena_calloc),
        cmocka_unit_test(test_arena_limit),
        cmocka_unit_test(test_arena_limit_exact_fit),
        cmocka_unit_test(test_arena_strings),
        cmocka_unit_test(test_buf_append_puts_putc),
        cmocka_unit_test(test_buf_growth),
        cmocka_unit_test(test_buf_printf),
        cmocka_unit_test(test_buf_reset_keeps_memory),
        cmocka_unit_test(test_buf_reserve_overflow_keeps_contents),
        cmocka_unit_test(test_buf_take),
        cmocka_unit_test(test_str_parse_int64),
        cmocka_unit_test(test_str_parse_int64_round_trip),
        cmocka_unit_test(test_str_parse_bool),
        cmocka_unit_test(test_str_is_uuid),
        cmocka_unit_test(test_str_hex_encode),
        cmocka_unit_test(test_str_has_space_or_control),
        cmocka_unit_test(test_str_misc),
        cmocka_unit_test(test_time_parse_valid),
        cmocka_unit_test(test_time_parse_fractions),
        cmocka_unit_test(test_time_parse_refused),
        cmocka_unit_test(test_time_parse_offset_range),
        cmocka_unit_test(test_time_format),
        cmocka_unit_test(test_time_format_large_years),
        cmocka_unit_test(test_time_round_trip),
        cmocka_unit_test(test_time_civil_known_days),
        cmocka_unit_test(test_time_civil_round_trip),
        cmocka_unit_test(test_time_clocks),
        cmocka_unit_test(test_jsonx_accepts_and_hands_out),
        cmocka_unit_test(test_jsonx_errors),
        cmocka_unit_test(test_error_publish_statuses),
        cmocka_unit_test(test_array_reserve),
        cmocka_unit_test(test_jsonx_message_is_bounded),
        cmocka_unit_test(test_jsonx_find_unstorable),
        cmocka_unit_test(test_bytes_le_and_zigzag),
        cmocka_unit_test(test_bytes_varints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
