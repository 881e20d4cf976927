/* Unit tests for src/lake/types: names, lookup, refused names, promotion
 * matrix and type predicates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lake/types.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The wire enum, in order (contract §6.1). */
static const char *const wire_names[] = {
    "boolean",     "int8",         "int16",     "int",          "long",        "uint8",  "uint16",
    "uint32",      "uint64",       "float",     "double",       "decimal",     "date",   "time",
    "timestamp_s", "timestamp_ms", "timestamp", "timestamp_ns", "timestamptz", "string", "json",
    "uuid",        "binary",       "variant",   "list",         "struct",      "map",
};

static enum lake_type type_of(const char *name)
{
    enum lake_type t = LT__COUNT;
    if (lake_type_lookup(name, &t, NULL) != LAKE_TYPE_OK)
        fail_msg("type '%s' not found", name);
    return t;
}

static void upper(char *dst, size_t size, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++)
        dst[i] = (src[i] >= 'a' && src[i] <= 'z') ? (char)(src[i] - 'a' + 'A') : src[i];
    dst[i] = '\0';
}

static void test_27_names_in_order(void **state)
{
    (void)state;
    assert_int_equal(LT__COUNT, 27);
    assert_int_equal(ARRAY_LEN(wire_names), 27);
    for (int t = 0; t < LT__COUNT; t++)
        assert_string_equal(lake_type_name((enum lake_type)t), wire_names[t]);
    assert_string_equal(lake_type_name(LT__COUNT), "unknown");
    assert_string_equal(lake_type_name((enum lake_type) - 1), "unknown");
    /* Spot-check enum constants against positions. */
    assert_int_equal(LT_BOOLEAN, 0);
    assert_int_equal(LT_DECIMAL, 11);
    assert_int_equal(LT_TIMESTAMPTZ, 18);
    assert_int_equal(LT_VARIANT, 23);
    assert_int_equal(LT_MAP, 26);
}

static void test_lookup_every_name_case_insensitive(void **state)
{
    (void)state;
    for (int t = 0; t < LT__COUNT; t++) {
        enum lake_type out = LT__COUNT;
        const char *reason = "untouched";
        assert_int_equal(lake_type_lookup(wire_names[t], &out, &reason), LAKE_TYPE_OK);
        assert_int_equal(out, t);

        char up[32];
        upper(up, sizeof up, wire_names[t]);
        out = LT__COUNT;
        if (lake_type_lookup(up, &out, &reason) != LAKE_TYPE_OK)
            fail_msg("'%s' not accepted", up);
        assert_int_equal(out, t);

        char mixed[32];
        snprintf(mixed, sizeof mixed, "%s", wire_names[t]);
        mixed[0] = up[0]; /* e.g. "Timestamp_ns" */
        out = LT__COUNT;
        assert_int_equal(lake_type_lookup(mixed, &out, NULL), LAKE_TYPE_OK);
        assert_int_equal(out, t);
    }
    assert_int_equal(type_of("UUID"), LT_UUID);
    assert_int_equal(type_of("TimestampTZ"), LT_TIMESTAMPTZ);
}

static void test_lookup_unknown(void **state)
{
    (void)state;
    static const char *const unknown[] = {
        "uuid_t",       "UUID_T",        "",         " int",   "int ",    "integer", "int32",
        "int64",        "bigint",        "str",      "text",   "varchar", "bool",    "timestamp_us",
        "timestamp_tz", "decimal(10,2)", "array",    "object", "bytes",   "real",    "hugeint",
        "int12",        "uint128x",      "geometry",
    };
    for (size_t i = 0; i < ARRAY_LEN(unknown); i++) {
        enum lake_type out = LT_BOOLEAN;
        const char *reason = NULL;
        enum lake_type_lookup r = lake_type_lookup(unknown[i], &out, &reason);
        if (r != LAKE_TYPE_UNKNOWN)
            fail_msg("'%s' gave %d, want LAKE_TYPE_UNKNOWN", unknown[i], r);
    }
}

struct refused_case {
    const char *name;
    const char *reason_has;
};

static void test_lookup_refused(void **state)
{
    (void)state;
    static const struct refused_case refused[] = {
        {"int128", "39 decimal digits"},
        {"uint128", "39 decimal digits"},
        {"timetz", "no Iceberg mapping"},
        {"interval", "no Iceberg mapping"},
        {"point", "geometry"},
        {"linestring", "geometry"},
        {"polygon", "geometry"},
        {"multipoint", "geometry"},
        {"multilinestring", "geometry"},
        {"multipolygon", "geometry"},
        {"linestring_z", "geometry"},
        {"geometrycollection", "geometry"},
    };
    assert_int_equal(ARRAY_LEN(refused), 12);
    for (size_t i = 0; i < ARRAY_LEN(refused); i++) {
        enum lake_type out = LT__COUNT;
        const char *reason = NULL;
        enum lake_type_lookup r = lake_type_lookup(refused[i].name, &out, &reason);
        if (r != LAKE_TYPE_REFUSED)
            fail_msg("'%s' gave %d, want LAKE_TYPE_REFUSED", refused[i].name, r);
        assert_non_null(reason);
        assert_true(strlen(reason) > 10);
        if (!strstr(reason, refused[i].reason_has))
            fail_msg("reason for '%s' is \"%s\", expected it to mention \"%s\"", refused[i].name,
                     reason, refused[i].reason_has);
        assert_int_equal(out, LT__COUNT); /* no type handed out */

        char up[40];
        upper(up, sizeof up, refused[i].name);
        reason = NULL;
        assert_int_equal(lake_type_lookup(up, &out, &reason), LAKE_TYPE_REFUSED);
        assert_non_null(reason);
        /* A NULL reason pointer is allowed. */
        assert_int_equal(lake_type_lookup(refused[i].name, &out, NULL), LAKE_TYPE_REFUSED);
    }
    const char *reason = NULL;
    enum lake_type out;
    lake_type_lookup("int128", &out, &reason);
    assert_string_equal(reason, "needs 39 decimal digits, which exceeds Iceberg's widest exact "
                                "numeric type decimal(38), and is not supported");
    lake_type_lookup("point", &out, &reason);
    assert_string_equal(reason,
                        "is a DuckLake geometry type; geometry is out of scope for hoglake and "
                        "is not supported");
}

/* Contract §6.4: the only legal promotions. */
struct promo {
    const char *from, *to;
};

static const struct promo legal[] = {
    {"int8", "int16"},    {"int8", "int"},     {"int8", "long"},    {"int16", "int"},
    {"int16", "long"},    {"int", "long"},     {"uint8", "uint16"}, {"uint8", "uint32"},
    {"uint16", "uint32"}, {"float", "double"},
};

static bool expected_promotion(enum lake_type from, enum lake_type to)
{
    for (size_t i = 0; i < ARRAY_LEN(legal); i++)
        if (type_of(legal[i].from) == from && type_of(legal[i].to) == to)
            return true;
    return false;
}

static void test_promotion_matrix_exhaustive(void **state)
{
    (void)state;
    int mismatches = 0, allowed = 0;
    for (int f = 0; f < LT__COUNT; f++) {
        for (int t = 0; t < LT__COUNT; t++) {
            bool want = expected_promotion((enum lake_type)f, (enum lake_type)t);
            bool got = lake_type_can_promote((enum lake_type)f, (enum lake_type)t);
            allowed += got;
            if (want != got) {
                print_error("promotion %s -> %s: got %d, want %d\n", wire_names[f], wire_names[t],
                            got, want);
                mismatches++;
            }
        }
    }
    assert_int_equal(mismatches, 0);
    assert_int_equal(allowed, 10);
}

static void test_promotion_spot_checks(void **state)
{
    (void)state;
    assert_true(lake_type_can_promote(LT_INT, LT_LONG));
    assert_false(lake_type_can_promote(LT_LONG, LT_INT));      /* narrowing */
    assert_false(lake_type_can_promote(LT_INT, LT_INT));       /* identity is no promotion */
    assert_false(lake_type_can_promote(LT_UINT32, LT_UINT64)); /* no ->uint64 */
    assert_false(lake_type_can_promote(LT_UINT8, LT_INT16));   /* no signedness change */
    assert_false(lake_type_can_promote(LT_INT, LT_DOUBLE));
    assert_false(lake_type_can_promote(LT_DECIMAL, LT_DECIMAL));
    assert_false(lake_type_can_promote(LT_DATE, LT_TIMESTAMP));
    assert_false(lake_type_can_promote(LT_TIMESTAMP_MS, LT_TIMESTAMP));
    assert_false(lake_type_can_promote(LT_STRING, LT_BINARY));
    assert_false(lake_type_can_promote(LT_LIST, LT_LIST));
    assert_false(lake_type_can_promote(LT_STRUCT, LT_STRUCT));
}

static void check_predicate(bool (*pred)(enum lake_type), const char *pred_name,
                            const char *const *members, size_t nmembers)
{
    int mismatches = 0;
    for (int t = 0; t < LT__COUNT; t++) {
        bool want = false;
        for (size_t i = 0; i < nmembers; i++)
            want |= strcmp(members[i], wire_names[t]) == 0;
        if (pred((enum lake_type)t) != want) {
            print_error("%s(%s) = %d, want %d\n", pred_name, wire_names[t], !want, want);
            mismatches++;
        }
    }
    assert_int_equal(mismatches, 0);
}

static void test_predicates(void **state)
{
    (void)state;
    static const char *const containers[] = {"list", "struct", "map"};
    static const char *const timestamps[] = {"timestamp_s", "timestamp_ms", "timestamp",
                                             "timestamp_ns", "timestamptz"};
    static const char *const temporal[] = {"date",      "timestamp_s",  "timestamp_ms",
                                           "timestamp", "timestamp_ns", "timestamptz"};
    check_predicate(lake_type_is_container, "is_container", containers, ARRAY_LEN(containers));
    check_predicate(lake_type_is_timestamp, "is_timestamp", timestamps, ARRAY_LEN(timestamps));
    check_predicate(lake_type_is_temporal, "is_temporal", temporal, ARRAY_LEN(temporal));
    /* time-of-day is not temporal in this sense; variant is not a container. */
    assert_false(lake_type_is_temporal(LT_TIME));
    assert_false(lake_type_is_container(LT_VARIANT));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_27_names_in_order),
        cmocka_unit_test(test_lookup_every_name_case_insensitive),
        cmocka_unit_test(test_lookup_unknown),
        cmocka_unit_test(test_lookup_refused),
        cmocka_unit_test(test_promotion_matrix_exhaustive),
        cmocka_unit_test(test_promotion_spot_checks),
        cmocka_unit_test(test_predicates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
