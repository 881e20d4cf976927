/* Unit tests for src/server/store/column_stats: a file's column statistics
 * as one stored value. The layout is pinned byte for byte (migration 11's
 * SQL functions write and read the same bytes; the integration tests hold
 * them to it), every value round-trips, and no damaged value reads past
 * its end or comes back as statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/store/column_stats.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const uint8_t one[] = {0x01};
static const uint8_t eight[] = {1, 2, 3, 4, 5, 6, 7, 8};

/* Columns out of field-id order, every optional member on and off, an
 * empty bound and the largest counts. */
static size_t sample(struct store_column_stats *c)
{
    c[0] = (struct store_column_stats){.field_id = 300, .value_count = 5, .null_count = 1};
    c[1] = (struct store_column_stats){.field_id = 1,
                                       .value_count = INT64_MAX,
                                       .null_count = INT64_MAX,
                                       .has_nan_count = true,
                                       .nan_count = 0,
                                       .has_size_bytes = true,
                                       .size_bytes = 127,
                                       .lower = eight,
                                       .lower_len = sizeof eight,
                                       .upper = eight,
                                       .upper_len = sizeof eight};
    c[2] = (struct store_column_stats){.field_id = 7,
                                       .value_count = 128,
                                       .null_count = 0,
                                       .lower = (const uint8_t *)"",
                                       .lower_len = 0};
    c[3] = (struct store_column_stats){
        .field_id = 2147483646, .value_count = 0, .null_count = 0, .upper = one, .upper_len = 1};
    return 4;
}

static void same_column(const struct store_column_stats *want, const struct store_column_stats *got)
{
    assert_int_equal(got->field_id, want->field_id);
    assert_int_equal(got->value_count, want->value_count);
    assert_int_equal(got->null_count, want->null_count);
    assert_int_equal(got->has_nan_count, want->has_nan_count);
    if (want->has_nan_count)
        assert_int_equal(got->nan_count, want->nan_count);
    assert_int_equal(got->has_size_bytes, want->has_size_bytes);
    if (want->has_size_bytes)
        assert_int_equal(got->size_bytes, want->size_bytes);
    assert_int_equal(got->lower != NULL, want->lower != NULL);
    assert_int_equal(got->upper != NULL, want->upper != NULL);
    if (want->lower) {
        assert_int_equal(got->lower_len, want->lower_len);
        if (want->lower_len)
            assert_memory_equal(got->lower, want->lower, want->lower_len);
    }
    if (want->upper) {
        assert_int_equal(got->upper_len, want->upper_len);
        assert_memory_equal(got->upper, want->upper, want->upper_len);
    }
}

/* Decodes [data, data + n) from an allocation of exactly n bytes (so ASan
 * sees any read past the end): the columns read (up to max) or -1. */
static int decode(const uint8_t *data, size_t n, struct store_column_stats *out, size_t max,
                  enum error_code *code)
{
    uint8_t *copy = malloc(n ? n : 1);
    assert_non_null(copy);
    if (n)
        memcpy(copy, data, n);
    struct store_column_stats_reader rd;
    struct error err = {0};
    int got = store_column_stats_open(&rd, copy, n, &err);
    size_t count = 0;
    while (got == 0 &&
           (got = store_column_stats_next(&rd, &out[count < max ? count : max - 1], &err)) > 0) {
        count++;
        got = 0;
    }
    *code = err.code;
    free(copy);
    return got < 0 ? -1 : (int)count;
}

static void round_trip_in_field_order(void **state)
{
    (void)state;
    struct store_column_stats in[4], want[4], out[8];
    size_t n = sample(in);
    memcpy(want, in, sizeof in);
    struct buf value = BUF_INIT;
    struct error err;
    assert_int_equal(store_column_stats_encode(in, n, &value, &err), 0);
    /* The bounds point into the value: decode from the buffer itself. */
    struct store_column_stats_reader rd;
    assert_int_equal(store_column_stats_open(&rd, (const uint8_t *)value.data, value.len, &err), 0);
    const int64_t order[] = {1, 7, 300, 2147483646};
    for (size_t i = 0; i < ARRAY_LEN(order); i++) {
        assert_int_equal(store_column_stats_next(&rd, &out[i], &err), 1);
        for (size_t k = 0; k < n; k++)
            if (want[k].field_id == order[i])
                same_column(&want[k], &out[i]);
    }
    assert_int_equal(store_column_stats_next(&rd, &out[4], &err), 0);
    buf_free(&value);
}

/* The layout, byte for byte: version, then flags, field id, value count,
 * null count as LEB128, then each flagged member. */
static void layout_is_pinned(void **state)
{
    (void)state;
    struct store_column_stats c = {
        .field_id = 1, .value_count = 300, .null_count = 0, .lower = one, .lower_len = 1};
    struct buf value = BUF_INIT;
    struct error err;
    assert_int_equal(store_column_stats_encode(&c, 1, &value, &err), 0);
    const uint8_t want[] = {0x01, 0x04, 0x01, 0xac, 0x02, 0x00, 0x01, 0x01};
    assert_int_equal(value.len, sizeof want);
    assert_memory_equal(value.data, want, sizeof want);
    buf_free(&value);
    /* Twenty columns of 8-byte bounds, as bench/scale writes them: about
     * 28 bytes a column where a row per column took 149. */
    struct store_column_stats cols[20];
    for (int i = 0; i < 20; i++)
        cols[i] = (struct store_column_stats){.field_id = i + 1,
                                              .value_count = 100000,
                                              .null_count = 12,
                                              .has_size_bytes = true,
                                              .size_bytes = 40000,
                                              .lower = eight,
                                              .lower_len = 8,
                                              .upper = eight,
                                              .upper_len = 8};
    assert_int_equal(store_column_stats_encode(cols, 20, &value, &err), 0);
    assert_int_equal(value.len, 1 + 20 * (1 + 1 + 3 + 1 + 3 + 9 + 9));
    buf_free(&value);
}

static void no_columns(void **state)
{
    (void)state;
    struct store_column_stats out[1];
    enum error_code code;
    assert_int_equal(decode(NULL, 0, out, 1, &code), 0);
    assert_int_equal(decode(one, 1, out, 1, &code), 0);
    struct buf value = BUF_INIT;
    struct error err;
    assert_int_equal(store_column_stats_encode(NULL, 0, &value, &err), 0);
    assert_int_equal(value.len, 1);
    buf_free(&value);
}

static void refuses_what_it_cannot_store(void **state)
{
    (void)state;
    struct buf value = BUF_INIT;
    struct error err;
    struct store_column_stats twice[] = {{.field_id = 4}, {.field_id = 4}};
    assert_int_equal(store_column_stats_encode(twice, 2, &value, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    struct store_column_stats negative[] = {{.field_id = 4, .value_count = -1}};
    assert_int_equal(store_column_stats_encode(negative, 1, &value, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    struct store_column_stats nan[] = {{.field_id = 4, .has_nan_count = true, .nan_count = -2}};
    assert_int_equal(store_column_stats_encode(nan, 1, &value, &err), -1);
    buf_free(&value);
}

/* Every prefix of a valid value either reads as the columns before the
 * cut (a cut between columns) or fails as corrupt; none reads past it. */
static void truncated_values(void **state)
{
    (void)state;
    struct store_column_stats in[4], out[8];
    size_t n = sample(in);
    struct buf value = BUF_INIT;
    struct error err;
    assert_int_equal(store_column_stats_encode(in, n, &value, &err), 0);
    int whole = 0;
    for (size_t len = 1; len <= value.len; len++) {
        enum error_code code;
        int got = decode((const uint8_t *)value.data, len, out, ARRAY_LEN(out), &code);
        if (got < 0)
            assert_int_equal(code, ERR_CORRUPT);
        else
            assert_true(got <= (int)n);
        whole += got == (int)n;
    }
    assert_int_equal(whole, 1); /* only the whole value has every column */
    buf_free(&value);
}

static void damaged_values(void **state)
{
    (void)state;
    struct store_column_stats out[2];
    enum error_code code;
    const uint8_t version2[] = {0x02, 0x00, 0x01, 0x00, 0x00};
    assert_int_equal(decode(version2, sizeof version2, out, 2, &code), -1);
    assert_int_equal(code, ERR_CORRUPT);
    const uint8_t unknown_flag[] = {0x01, 0x10, 0x01, 0x00, 0x00};
    assert_int_equal(decode(unknown_flag, sizeof unknown_flag, out, 2, &code), -1);
    /* A field id past INT64_MAX, and one that never ends. */
    const uint8_t too_big[] = {0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff,
                               0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x00};
    assert_int_equal(decode(too_big, sizeof too_big, out, 2, &code), -1);
    const uint8_t endless[] = {0x01, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                               0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00};
    assert_int_equal(decode(endless, sizeof endless, out, 2, &code), -1);
    /* A bound longer than what is left. */
    const uint8_t long_bound[] = {0x01, 0x04, 0x01, 0x00, 0x00, 0x09, 0x01, 0x02};
    assert_int_equal(decode(long_bound, sizeof long_bound, out, 2, &code), -1);
    assert_int_equal(code, ERR_CORRUPT);
    /* The largest count reads back. */
    const uint8_t largest[] = {0x01, 0x00, 0x01, 0xff, 0xff, 0xff, 0xff,
                               0xff, 0xff, 0xff, 0xff, 0x7f, 0x00};
    assert_int_equal(decode(largest, sizeof largest, out, 2, &code), 1);
    assert_int_equal(out[0].value_count, INT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_in_field_order),
        cmocka_unit_test(layout_is_pinned),
        cmocka_unit_test(no_columns),
        cmocka_unit_test(refuses_what_it_cannot_store),
        cmocka_unit_test(truncated_values),
        cmocka_unit_test(damaged_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
