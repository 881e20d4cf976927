/* Writes Iceberg manifest lists and manifests with src/iceberg/avro (v2 and
 * v3, null and deflate codecs, several blocks) into a directory, each
 * NAME.avro with NAME.json beside it holding the records as the writer got
 * them, for read_avro.mjs to decode with icebird's Avro reader.
 *
 *   avro_interop_write DIR */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "iceberg/avro.h"
#include "iceberg/manifest_schema.h"

static const struct avro_partition_field spec[] = {{"ts_day", "date", 1000}};

static json_t *list_record(int version, int i)
{
    json_t *r = json_pack(
        "{s:s,s:I,s:i,s:i,s:I,s:I,s:I,s:i,s:i,s:i,s:I,s:I,s:I,s:[{s:b,s:n,s:s,s:s}],s:n}",
        "manifest_path", "file:///t/metadata/0a-m0.avro", "manifest_length", (json_int_t)7021 + i,
        "partition_spec_id", 0, "content", 0, "sequence_number", (json_int_t)2,
        "min_sequence_number", (json_int_t)1, "added_snapshot_id", (json_int_t)4353535345353,
        "added_files_count", 2, "existing_files_count", i, "deleted_files_count", 0,
        "added_rows_count", (json_int_t)3, "existing_rows_count", (json_int_t)0,
        "deleted_rows_count", (json_int_t)0, "partitions", "contains_null", 0, "contains_nan",
        "lower_bound", "TkQAAA==", "upper_bound", "T0QAAA==", "key_metadata");
    if (version == 3)
        json_object_set_new(r, "first_row_id", json_integer(3 + i));
    return r;
}

static json_t *entry_record(int version, int i)
{
    json_t *r = json_pack(
        "{s:i,s:I,s:n,s:n,s:{s:i,s:s,s:s,s:{s:i},s:I,s:I,s:n,s:[{s:i,s:I}],s:[{s:i,s:I}],s:n,"
        "s:[{s:i,s:s}],s:[{s:i,s:s}],s:n,s:[I],s:n,s:i,s:n}}",
        "status", 1, "snapshot_id", (json_int_t)4353535345353, "sequence_number",
        "file_sequence_number", "data_file", "content", 0, "file_path",
        "file:///t/data/ts_day=2017-11-16/f.parquet", "file_format", "PARQUET", "partition",
        "ts_day", 17486 + i, "record_count", (json_int_t)2, "file_size_in_bytes",
        (json_int_t)1234 + i, "column_sizes", "value_counts", "key", 1, "value", (json_int_t)2,
        "null_value_counts", "key", 1, "value", (json_int_t)0, "nan_value_counts", "lower_bounds",
        "key", 1, "value", "AMMmLSFeBQA=", "upper_bounds", "key", 1, "value",
        "AMMmLSFeBQA=", "key_metadata", "split_offsets", (json_int_t)4, "equality_ids",
        "sort_order_id", 1, "referenced_data_file");
    if (version == 3) {
        json_t *d = json_object_get(r, "data_file");
        json_object_set_new(d, "first_row_id", json_null());
        json_object_set_new(d, "content_offset", json_null());
        json_object_set_new(d, "content_size_in_bytes", json_null());
    }
    return r;
}

static int write_one(const char *dir, const char *name, const char *schema, int version,
                     enum avro_codec codec, json_t *(*make)(int, int))
{
    struct avro_writer_options o = {.codec = codec, .block_bytes = 256};
    struct avro_writer *w;
    struct error err = {0};
    json_t *records = json_array();
    struct buf file = BUF_INIT;
    int rc = -1;
    char path[4096];
    if (!records || avro_writer_new(schema, &o, &w, &err) < 0) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        json_decref(records);
        return -1;
    }
    if (avro_writer_set_meta_str(w, "format-version", version == 3 ? "3" : "2", &err) < 0 ||
        avro_writer_set_meta_str(w, "schema", "{\"type\":\"struct\",\"fields\":[]}", &err) < 0)
        goto out;
    for (int i = 0; i < 20; i++) {
        json_t *r = make(version, i);
        if (!r || avro_writer_append(w, r, &err) < 0 || json_array_append_new(records, r) < 0)
            goto out;
    }
    if (avro_writer_finish(w, &file, &err) < 0)
        goto out;
    snprintf(path, sizeof path, "%s/%s.avro", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        goto out;
    bool written = fwrite(file.data, 1, file.len, f) == file.len;
    if (fclose(f) != 0 || !written)
        goto out;
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    if (json_dump_file(records, path, JSON_COMPACT) < 0)
        goto out;
    rc = 0;
out:
    if (rc < 0)
        fprintf(stderr, "%s: failed: %s\n", name, err.msg);
    avro_writer_free(w);
    json_decref(records);
    buf_free(&file);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: avro_interop_write DIR\n");
        return 2;
    }
    int rc = 0;
    for (int version = 2; version <= 3; version++) {
        struct error err = {0};
        char *list = iceberg_manifest_list_schema(version, &err);
        char *entry = iceberg_manifest_entry_schema(version, spec, 1, &err);
        enum avro_codec codec = version == 2 ? AVRO_CODEC_NULL : AVRO_CODEC_DEFLATE;
        char name[64];
        if (!list || !entry) {
            fprintf(stderr, "schema: %s\n", err.msg);
            rc = 1;
        } else {
            snprintf(name, sizeof name, "list_v%d", version);
            rc |= write_one(argv[1], name, list, version, codec, list_record) < 0;
            snprintf(name, sizeof name, "entry_v%d", version);
            rc |= write_one(argv[1], name, entry, version, codec, entry_record) < 0;
        }
        free(list);
        free(entry);
    }
    return rc;
}
