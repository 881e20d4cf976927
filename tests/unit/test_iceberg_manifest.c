/* Iceberg manifests and manifest lists (src/iceberg/manifest.c): what they
 * hold, read back through the Avro reader by the spec's field ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "iceberg/manifest.h"

static const uint8_t lo[8] = {1, 0, 0, 0, 0, 0, 0, 0}, hi[8] = {9, 0, 0, 0, 0, 0, 0, 0};
static const struct pq_col_stats stats[] = {{1, 10, 0, 80, lo, hi, 8, 8},
                                            {2, 10, 4, 33, NULL, NULL, 0, 0}};

static const int64_t nans[][2] = {{3, 2}};

static json_t *read_all(const struct buf *b, struct avro_reader **r)
{
    struct error err;
    if (avro_reader_open(b->data, b->len, NULL, r, &err) != 0)
        fail_msg("open: %s", err.msg);
    json_t *all = json_array(), *rec;
    int got;
    while ((got = avro_reader_next(*r, &rec, &err)) == 1)
        json_array_append_new(all, rec);
    if (got < 0)
        fail_msg("read: %s", err.msg);
    return all;
}

static void test_manifest(void **state)
{
    (void)state;
    for (int version = 2; version <= 3; version++) {
        struct ice_manifest_spec spec = {version,
                                         "{\"type\":\"struct\",\"fields\":[]}",
                                         0,
                                         0,
                                         "[{\"name\":\"ts_day\",\"transform\":\"day\","
                                         "\"source-id\":5,\"field-id\":1000}]",
                                         "ts_day",
                                         1000};
        struct ice_data_file files[] = {
            {"file:///t/data/a.parquet", 10, 1234, false, 20454, stats, 2, 1, nans, 1},
            {"file:///t/data/b.parquet", 3, 200, true, 0, stats, 1, 1, NULL, 0},
            {"file:///t/data/c.parquet", 5, 300, false, 20450, NULL, 0, 1, NULL, 0},
        };
        struct buf b = BUF_INIT;
        struct ice_manifest_summary s;
        struct error err;
        if (ice_manifest_write(&spec, files, 3, &b, &s, &err) != 0)
            fail_msg("write: %s", err.msg);
        assert_int_equal(s.added_files, 3);
        assert_int_equal(s.added_rows, 18);
        assert_true(s.contains_null);
        assert_true(s.has_bounds);
        assert_int_equal(s.min_day, 20450);
        assert_int_equal(s.max_day, 20454);
        struct avro_reader *r;
        json_t *all = read_all(&b, &r);
        size_t len;
        const char *content = avro_reader_meta(r, "content", &len);
        assert_true(content && len == 4 && memcmp(content, "data", 4) == 0);
        assert_int_equal(json_array_size(all), 3);
        json_t *e = json_array_get(all, 0);
        assert_int_equal(json_integer_value(json_object_get(e, "status")), 1);
        assert_true(json_is_null(json_object_get(e, "snapshot_id")));
        assert_true(json_is_null(json_object_get(e, "sequence_number")));
        json_t *df = json_object_get(e, "data_file");
        assert_string_equal(json_string_value(json_object_get(df, "file_path")),
                            "file:///t/data/a.parquet");
        assert_string_equal(json_string_value(json_object_get(df, "file_format")), "PARQUET");
        assert_int_equal(json_integer_value(json_object_get(df, "record_count")), 10);
        assert_int_equal(json_integer_value(json_object_get(df, "file_size_in_bytes")), 1234);
        assert_int_equal(
            json_integer_value(json_object_get(json_object_get(df, "partition"), "ts_day")), 20454);
        json_t *nulls = json_object_get(df, "null_value_counts");
        assert_int_equal(json_array_size(nulls), 2);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(nulls, 1), "value")), 4);
        json_t *nan = json_array_get(json_object_get(df, "nan_value_counts"), 0);
        assert_int_equal(json_integer_value(json_object_get(nan, "key")), 3);
        assert_int_equal(json_integer_value(json_object_get(nan, "value")), 2);
        json_t *lower = json_object_get(df, "lower_bounds");
        assert_int_equal(json_array_size(lower), 1); /* field 2 has no bounds */
        assert_string_equal(json_string_value(json_object_get(json_array_get(lower, 0), "value")),
                            "AQAAAAAAAAA=");
        assert_true(json_is_null(json_object_get(
            json_object_get(json_object_get(json_array_get(all, 1), "data_file"), "partition"),
            "ts_day")));
        json_decref(all);
        avro_reader_free(r);

        /* The list: the parent's record copied, then ours. */
        json_t *mine = ice_manifest_file_record(&spec, "file:///t/metadata/m.avro", (int64_t)b.len,
                                                77, 4, 100, &s);
        assert_non_null(mine);
        struct buf list = BUF_INIT;
        if (ice_manifest_list_write(version, 77, 66, 4, 100, NULL, mine, &list, &err) != 0)
            fail_msg("list: %s", err.msg);
        json_t *parent = NULL;
        if (ice_manifest_list_read(list.data, list.len, &parent, &err) != 0)
            fail_msg("list read: %s", err.msg);
        struct buf list2 = BUF_INIT;
        if (ice_manifest_list_write(version, 88, 77, 5, 118, parent, mine, &list2, &err) != 0)
            fail_msg("list 2: %s", err.msg);
        json_t *records = read_all(&list2, &r);
        assert_int_equal(json_array_size(records), 2);
        json_t *m = json_array_get(records, 1);
        assert_int_equal(json_integer_value(json_object_get(m, "added_snapshot_id")), 77);
        assert_int_equal(json_integer_value(json_object_get(m, "added_files_count")), 3);
        assert_int_equal(json_integer_value(json_object_get(m, "added_rows_count")), 18);
        json_t *p = json_array_get(json_object_get(m, "partitions"), 0);
        assert_true(json_is_true(json_object_get(p, "contains_null")));
        assert_string_equal(json_string_value(json_object_get(p, "lower_bound")), "4k8AAA==");
        assert_string_equal(json_string_value(json_object_get(p, "upper_bound")), "5k8AAA==");
        if (version == 3)
            assert_int_equal(json_integer_value(json_object_get(m, "first_row_id")), 100);
        const char *parent_id = avro_reader_meta(r, "parent-snapshot-id", &len);
        assert_true(parent_id && len == 2 && memcmp(parent_id, "77", 2) == 0);
        json_decref(records);
        avro_reader_free(r);
        json_decref(parent);
        json_decref(mine);
        buf_free(&list);
        buf_free(&list2);
        buf_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_manifest)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
