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

/* A manifest's entries, its header's content being `content`. */
static json_t *read_manifest(const struct buf *b, const char *content, struct avro_reader **r)
{
    json_t *all = read_all(b, r);
    size_t len;
    const char *got = avro_reader_meta(*r, "content", &len);
    assert_true(got && len == strlen(content) && memcmp(got, content, len) == 0);
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
                                         1000,
                                         false};
        struct ice_data_file files[] = {
            {"file:///t/data/a.parquet", 10, 1234, false, 20454, stats, 2, 1, nans, 1, 0, NULL,
             NULL, 0, 0},
            {"file:///t/data/b.parquet", 3, 200, true, 0, stats, 1, 1, NULL, 0, 0, NULL, NULL, 0,
             0},
            {"file:///t/data/c.parquet", 5, 300, false, 20450, NULL, 0, 1, NULL, 0, 0, NULL, NULL,
             0, 0},
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
        json_t *all = read_manifest(&b, "data", &r);
        size_t len;
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

/* A delete manifest: the live delete entries carried EXISTING (their
 * snapshot id and sequence numbers kept, counted as existing, the lowest
 * sequence number the list's min_sequence_number), then the new ones:
 * deletion vectors (v3: Puffin, the referenced file and the blob's range)
 * and position delete files; content 1 everywhere, no first_row_id, no
 * sort order. An existing entry that lacks its sequence numbers is
 * refused. */
static void test_delete_manifest(void **state)
{
    (void)state;
    struct ice_manifest_spec spec = {
        3, "{\"type\":\"struct\",\"fields\":[]}", 0, 0, "[]", "ts_day", 1000, true};
    json_t *existing =
        json_pack("[{s:i, s:I, s:I, s:I, s:{s:i, s:s, s:s, s:{s:i}, s:I, s:I}}]", "status", 1,
                  "snapshot_id", (json_int_t)11, "sequence_number", (json_int_t)2,
                  "file_sequence_number", (json_int_t)2, "data_file", "content", 1, "file_path",
                  "file:///t/data/old.parquet", "file_format", "PARQUET", "partition", "ts_day",
                  20450, "record_count", (json_int_t)4, "file_size_in_bytes", (json_int_t)99);
    assert_non_null(existing);
    struct ice_data_file files[] = {
        {.path = "file:///t/data/x-deletes.puffin",
         .record_count = 3,
         .file_size = 500,
         .partition_day = 20454,
         .content = 1,
         .format = "PUFFIN",
         .referenced_data_file = "file:///t/data/a.parquet",
         .content_offset = 4,
         .content_size = 60},
    };
    struct buf b = BUF_INIT;
    struct ice_manifest_summary s;
    struct error err;
    if (ice_manifest_write_existing(&spec, existing, files, 1, &b, &s, &err) != 0)
        fail_msg("write: %s", err.msg);
    assert_int_equal(s.added_files, 1);
    assert_int_equal(s.added_rows, 3);
    assert_int_equal(s.existing_files, 1);
    assert_int_equal(s.existing_rows, 4);
    assert_int_equal(s.min_sequence_number, 2);
    assert_int_equal(s.min_day, 20450);
    assert_int_equal(s.max_day, 20454);
    struct avro_reader *r;
    json_t *all = read_manifest(&b, "deletes", &r);
    assert_int_equal(json_array_size(all), 2);
    json_t *old = json_array_get(all, 0), *dv = json_array_get(all, 1);
    assert_int_equal(json_integer_value(json_object_get(old, "status")), 0);
    assert_int_equal(json_integer_value(json_object_get(old, "sequence_number")), 2);
    assert_int_equal(json_integer_value(json_object_get(old, "snapshot_id")), 11);
    json_t *df = json_object_get(dv, "data_file");
    assert_int_equal(json_integer_value(json_object_get(dv, "status")), 1);
    assert_int_equal(json_integer_value(json_object_get(df, "content")), 1);
    assert_string_equal(json_string_value(json_object_get(df, "file_format")), "PUFFIN");
    assert_string_equal(json_string_value(json_object_get(df, "referenced_data_file")),
                        "file:///t/data/a.parquet");
    assert_int_equal(json_integer_value(json_object_get(df, "content_offset")), 4);
    assert_int_equal(json_integer_value(json_object_get(df, "content_size_in_bytes")), 60);
    assert_true(json_is_null(json_object_get(df, "sort_order_id")));
    json_decref(all);
    avro_reader_free(r);

    json_t *rec = ice_manifest_file_record(&spec, "file:///t/metadata/d.avro", (int64_t)b.len, 77,
                                           5, 100, &s);
    assert_non_null(rec);
    assert_int_equal(json_integer_value(json_object_get(rec, "content")), 1);
    assert_int_equal(json_integer_value(json_object_get(rec, "min_sequence_number")), 2);
    assert_int_equal(json_integer_value(json_object_get(rec, "existing_files_count")), 1);
    assert_int_equal(json_integer_value(json_object_get(rec, "existing_rows_count")), 4);
    assert_null(json_object_get(rec, "first_row_id"));
    json_decref(rec);
    buf_free(&b);

    /* An existing entry must carry its sequence numbers. */
    json_object_del(json_array_get(existing, 0), "sequence_number");
    struct buf c = BUF_INIT;
    err.code = ERR_OK;
    assert_int_equal(ice_manifest_write_existing(&spec, existing, files, 1, &c, &s, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    buf_free(&c);
    json_decref(existing);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_manifest),
                                       cmocka_unit_test(test_delete_manifest)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
