/* Unit tests for src/lake/bucket: murmur3_x86_32 and the bucket hash
 * inputs, against tests/vectors/transform_vectors.json (every
 * `murmur3_32`, `bucket_hash` and `bucket_encode` vector: the Iceberg
 * spec's Appendix B values), and the bucket of a hash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "lake/bounds.h"
#include "lake/bucket.h"
#include "util/timefmt.h"

#ifndef HL_SHARED_VECTORS
#error "HL_SHARED_VECTORS must name the shared vectors directory"
#endif

static json_t *vectors;

static int setup(void **state)
{
    (void)state;
    json_error_t jerr;
    /* Integers as reals: the file holds uint64 values jansson cannot keep
     * as integers; every number these tests read is exact as a double. */
    json_t *doc =
        json_load_file(HL_SHARED_VECTORS "/transform_vectors.json", JSON_DECODE_INT_AS_REAL, &jerr);
    if (!doc)
        fail_msg("transform_vectors.json: %s", jerr.text);
    vectors = json_incref(json_object_get(doc, "vectors"));
    json_decref(doc);
    return vectors ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    json_decref(vectors);
    return 0;
}

static size_t from_hex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = strlen(hex) / 2;
    assert_true(n <= cap);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
    return n;
}

static void to_hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * n] = '\0';
}

/* The hash input of a vector's `input` for its type, as hex. */
static void hash_input(const json_t *v, char *hex)
{
    const char *type = json_string_value(json_object_get(v, "type"));
    const json_t *in = json_object_get(v, "input");
    uint8_t b[64];
    size_t n = 0;
    int64_t micros;
    if (json_is_number(in)) {
        lake_bucket_input_long((int64_t)json_number_value(in), b);
        n = 8;
    } else if (!strcmp(type, "date")) {
        int y, m, d;
        assert_int_equal(sscanf(json_string_value(in), "%d-%d-%d", &y, &m, &d), 3);
        lake_bucket_input_long(time_days_from_civil(y, (unsigned)m, (unsigned)d), b);
        n = 8;
    } else if (!strcmp(type, "time")) {
        int h, mi, s;
        assert_int_equal(sscanf(json_string_value(in), "%d:%d:%d", &h, &mi, &s), 3);
        lake_bucket_input_long(((int64_t)h * 3600 + mi * 60 + s) * 1000000, b);
        n = 8;
    } else if (!strcmp(type, "timestamp") || !strcmp(type, "timestamptz")) {
        /* A naive timestamp hashes its wall-clock value as if it were UTC. */
        char text[64];
        snprintf(text, sizeof text, "%s%s", json_string_value(in),
                 strcmp(type, "timestamp") ? "" : "Z");
        assert_true(time_parse_iso8601(text, &micros));
        lake_bucket_input_long(micros, b);
        n = 8;
    } else if (!strcmp(type, "decimal")) {
        /* "14.20" at its scale: the unscaled 1420. */
        __extension__ __int128 unscaled = 0;
        for (const char *c = json_string_value(in); *c; c++)
            if (*c >= '0' && *c <= '9')
                unscaled = unscaled * 10 + (*c - '0');
        n = bound_decimal_minimal(unscaled, b);
    } else if (!strcmp(type, "uuid")) {
        char compact[33];
        size_t k = 0;
        for (const char *c = json_string_value(in); *c && k < 32; c++)
            if (*c != '-')
                compact[k++] = *c;
        compact[k] = '\0';
        n = from_hex(compact, b, sizeof b);
    } else if (!strcmp(type, "binary")) {
        n = from_hex(json_string_value(in), b, sizeof b);
    } else {
        const char *s = json_string_value(in);
        n = strlen(s);
        memcpy(b, s, n);
    }
    to_hex(b, n, hex);
}

/* Runs check on every vector of `transform`; returns how many there were. */
static size_t each_vector(const char *transform, void (*check)(const json_t *v))
{
    size_t i, seen = 0;
    json_t *v;
    json_array_foreach (vectors, i, v)
        if (strcmp(json_string_value(json_object_get(v, "transform")), transform) == 0) {
            check(v);
            seen++;
        }
    return seen;
}

static int64_t expected_int(const json_t *v)
{
    return (int64_t)json_number_value(json_object_get(v, "expected"));
}

static void check_murmur3(const json_t *v)
{
    uint8_t b[64];
    size_t n = from_hex(json_string_value(json_object_get(v, "input")), b, sizeof b);
    assert_int_equal(lake_murmur3_32(b, n), expected_int(v));
}

static void check_bucket_hash(const json_t *v)
{
    const char *want_hex = json_string_value(json_object_get(v, "hash_input_hex"));
    char hex[130];
    hash_input(v, hex);
    if (strcmp(hex, want_hex) != 0)
        fail_msg("%s: hash input %s, want %s", json_string_value(json_object_get(v, "type")), hex,
                 want_hex);
    uint8_t b[64];
    size_t n = from_hex(want_hex, b, sizeof b);
    assert_int_equal(lake_murmur3_32(b, n), expected_int(v));
}

static void check_bucket_encode(const json_t *v)
{
    char hex[130];
    hash_input(v, hex);
    assert_string_equal(hex, json_string_value(json_object_get(v, "expected")));
}

static void test_murmur3_vectors(void **state)
{
    (void)state;
    assert_int_equal(each_vector("murmur3_32", check_murmur3), 2);
}

static void test_bucket_hash_vectors(void **state)
{
    (void)state;
    assert_int_equal(each_vector("bucket_hash", check_bucket_hash), 10);
}

static void test_bucket_encode_vectors(void **state)
{
    (void)state;
    assert_int_equal(each_vector("bucket_encode", check_bucket_encode), 6);
}

static void test_bucket_of(void **state)
{
    (void)state;
    /* Appendix B: 34 hashes to 2017239379. */
    assert_int_equal(lake_bucket_of(2017239379, 16), 2017239379 % 16);
    /* A negative hash loses its sign bit, not its magnitude. */
    assert_int_equal(lake_bucket_of(-1, 16), 0x7fffffff % 16);
    assert_int_equal(lake_bucket_of(INT32_MIN, 7), 0);
    assert_int_equal(lake_bucket_of(12345, 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_murmur3_vectors),
        cmocka_unit_test(test_bucket_hash_vectors),
        cmocka_unit_test(test_bucket_encode_vectors),
        cmocka_unit_test(test_bucket_of),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
