/* Unit tests for src/lake/transform: names, parameters and the source-type
 * gates, checked against tests/vectors/transform_vectors.json `type_gates`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "lake/transform.h"
#include "lake/types.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#ifndef HL_SHARED_VECTORS
#error "HL_SHARED_VECTORS must name the shared vectors directory"
#endif

static json_t *load_gates(void)
{
    json_error_t e;
    /* The vectors hold uint64 values beyond json_int_t; only the gate name
     * lists are used here, so numbers may decode as reals. */
    json_t *root =
        json_load_file(HL_SHARED_VECTORS "/transform_vectors.json", JSON_DECODE_INT_AS_REAL, &e);
    if (!root)
        fail_msg("cannot load %s: %s (line %d)", HL_SHARED_VECTORS "/transform_vectors.json",
                 e.text, e.line);
    json_t *gates = json_object_get(root, "type_gates");
    if (!json_is_object(gates))
        fail_msg("transform_vectors.json has no object 'type_gates'");
    json_incref(gates);
    json_decref(root);
    return gates;
}

/* Reads one gate list into a per-type membership table, failing on names
 * that are not one of the 27 types. */
static void gate_set(const json_t *gates, const char *key, bool member[LT__COUNT])
{
    memset(member, 0, LT__COUNT * sizeof member[0]);
    const json_t *list = json_object_get(gates, key);
    if (!json_is_array(list) || json_array_size(list) == 0)
        fail_msg("type_gates.%s is missing or empty", key);
    size_t i;
    const json_t *v;
    json_array_foreach (list, i, v) {
        const char *name = json_string_value(v);
        if (!name)
            fail_msg("type_gates.%s[%zu] is not a string", key, i);
        enum lake_type t;
        if (lake_type_lookup(name, &t, NULL) != LAKE_TYPE_OK)
            fail_msg("type_gates.%s names unknown type '%s'", key, name);
        if (member[t])
            fail_msg("type_gates.%s lists '%s' twice", key, name);
        member[t] = true;
    }
}

static int compare_gate(enum lake_transform tr, const bool want[LT__COUNT])
{
    int mismatches = 0;
    for (int t = 0; t < LT__COUNT; t++) {
        bool got = lake_transform_accepts(tr, (enum lake_type)t);
        if (got != want[t]) {
            print_error("%s on %s: accepts=%d, vectors say %d\n", lake_transform_name(tr),
                        lake_type_name((enum lake_type)t), got, want[t]);
            mismatches++;
        }
    }
    return mismatches;
}

static void test_gates_match_vectors(void **state)
{
    (void)state;
    json_t *gates = load_gates();
    bool bucket[LT__COUNT], truncate[LT__COUNT], ymd[LT__COUNT], hour[LT__COUNT];
    gate_set(gates, "bucket", bucket);
    gate_set(gates, "truncate", truncate);
    gate_set(gates, "year_month_day", ymd);
    gate_set(gates, "hour", hour);
    int mismatches = 0;
    mismatches += compare_gate(LTR_BUCKET, bucket);
    mismatches += compare_gate(LTR_TRUNCATE, truncate);
    mismatches += compare_gate(LTR_YEAR, ymd);
    mismatches += compare_gate(LTR_MONTH, ymd);
    mismatches += compare_gate(LTR_DAY, ymd);
    mismatches += compare_gate(LTR_HOUR, hour);
    assert_int_equal(mismatches, 0);
    json_decref(gates);
}

static void test_not_bucketable_vector_is_consistent(void **state)
{
    (void)state;
    json_t *gates = load_gates();
    bool bucket[LT__COUNT], refused[LT__COUNT];
    gate_set(gates, "bucket", bucket);
    gate_set(gates, "not_bucketable", refused);
    for (int t = 0; t < LT__COUNT; t++) {
        if (!refused[t])
            continue;
        assert_false(bucket[t]);
        if (lake_transform_accepts(LTR_BUCKET, (enum lake_type)t))
            fail_msg("bucket accepts '%s', listed as not bucketable",
                     lake_type_name((enum lake_type)t));
    }
    json_decref(gates);
}

static void test_identity_gate(void **state)
{
    (void)state;
    for (int t = 0; t < LT__COUNT; t++) {
        enum lake_type ty = (enum lake_type)t;
        bool want = !lake_type_is_container(ty) && ty != LT_VARIANT;
        if (lake_transform_accepts(LTR_IDENTITY, ty) != want)
            fail_msg("identity on %s: got %d", lake_type_name(ty), !want);
    }
    assert_true(lake_transform_accepts(LTR_IDENTITY, LT_BOOLEAN));
    assert_true(lake_transform_accepts(LTR_IDENTITY, LT_JSON));
    assert_true(lake_transform_accepts(LTR_IDENTITY, LT_DOUBLE));
    assert_false(lake_transform_accepts(LTR_IDENTITY, LT_VARIANT));
    assert_false(lake_transform_accepts(LTR_IDENTITY, LT_STRUCT));
}

static void test_no_transform_accepts_containers_or_variant(void **state)
{
    (void)state;
    const enum lake_type never[] = {LT_LIST, LT_STRUCT, LT_MAP, LT_VARIANT};
    for (int tr = 0; tr < LTR__COUNT; tr++)
        for (size_t i = 0; i < ARRAY_LEN(never); i++)
            if (lake_transform_accepts((enum lake_transform)tr, never[i]))
                fail_msg("%s accepts %s", lake_transform_name((enum lake_transform)tr),
                         lake_type_name(never[i]));
    assert_false(lake_transform_accepts(LTR__COUNT, LT_INT));
}

/* The accepted-types message must list exactly the accepted types. */
static void test_accepted_types_message_matches_gate(void **state)
{
    (void)state;
    const enum lake_transform listed[] = {LTR_BUCKET, LTR_TRUNCATE, LTR_YEAR,
                                          LTR_MONTH,  LTR_DAY,      LTR_HOUR};
    for (size_t k = 0; k < ARRAY_LEN(listed); k++) {
        enum lake_transform tr = listed[k];
        bool in_msg[LT__COUNT] = {false};
        char copy[512];
        snprintf(copy, sizeof copy, "%s", lake_transform_accepted_types(tr));
        char *save = NULL;
        for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
            enum lake_type t;
            if (lake_type_lookup(tok, &t, NULL) != LAKE_TYPE_OK)
                fail_msg("%s message lists unknown type '%s'", lake_transform_name(tr), tok);
            in_msg[t] = true;
        }
        for (int t = 0; t < LT__COUNT; t++)
            if (in_msg[t] != lake_transform_accepts(tr, (enum lake_type)t))
                fail_msg("%s: message and gate disagree on '%s'", lake_transform_name(tr),
                         lake_type_name((enum lake_type)t));
    }
    assert_true(strlen(lake_transform_accepted_types(LTR_IDENTITY)) > 0);
}

static void test_names_and_parse(void **state)
{
    (void)state;
    static const char *const names[] = {"identity", "bucket", "truncate", "year",
                                        "month",    "day",    "hour"};
    assert_int_equal(LTR__COUNT, 7);
    for (int t = 0; t < LTR__COUNT; t++) {
        assert_string_equal(lake_transform_name((enum lake_transform)t), names[t]);
        enum lake_transform out = LTR__COUNT;
        assert_true(lake_transform_parse(names[t], &out));
        assert_int_equal(out, t);
        char up[16];
        size_t i = 0;
        for (; names[t][i]; i++)
            up[i] = (char)(names[t][i] - 'a' + 'A');
        up[i] = '\0';
        out = LTR__COUNT;
        assert_true(lake_transform_parse(up, &out));
        assert_int_equal(out, t);
    }
    enum lake_transform out = LTR_HOUR;
    assert_true(lake_transform_parse("Bucket", &out));
    assert_int_equal(out, LTR_BUCKET);
    static const char *const bad[] = {"",          "bucket[16]", "truncate[10]", "years",
                                      "void",      " day",       "day ",         "buckets",
                                      "identity_", "dayofweek",  "bucket16",     "hours"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        out = LTR_HOUR;
        if (lake_transform_parse(bad[i], &out))
            fail_msg("lake_transform_parse(\"%s\") accepted", bad[i]);
    }
    assert_string_equal(lake_transform_name(LTR__COUNT), "unknown");
}

static void test_takes_param(void **state)
{
    (void)state;
    for (int t = 0; t < LTR__COUNT; t++) {
        bool want = t == LTR_BUCKET || t == LTR_TRUNCATE;
        assert_int_equal(lake_transform_takes_param((enum lake_transform)t), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gates_match_vectors),
        cmocka_unit_test(test_not_bucketable_vector_is_consistent),
        cmocka_unit_test(test_identity_gate),
        cmocka_unit_test(test_no_transform_accepts_containers_or_variant),
        cmocka_unit_test(test_accepted_types_message_matches_gate),
        cmocka_unit_test(test_names_and_parse),
        cmocka_unit_test(test_takes_param),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
