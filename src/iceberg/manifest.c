/* Iceberg manifests and manifest lists as Avro files (see manifest.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/manifest.h"
#include "iceberg/manifest_schema.h"
#include "util/base64.h"

static int nomem(struct error *err)
{
    if (err) {
        err->code = ERR_NOMEM;
        snprintf(err->msg, sizeof err->msg, "out of memory");
    }
    return -1;
}

/* Bytes as the Avro layer takes them: canonical padded base64 text. */
static json_t *bytes_value(const uint8_t *b, size_t n)
{
    struct buf enc = BUF_INIT;
    json_t *v = base64_encode(&enc, b, n) == 0 ? json_stringn(enc.data, enc.len) : NULL;
    buf_free(&enc);
    return v;
}

static json_t *day_bytes(int32_t day)
{
    uint8_t b[4];
    uint32_t u = (uint32_t)day;
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(u >> (8 * i));
    return bytes_value(b, 4);
}

/* An Iceberg int-keyed map: an array of {key, value} records. */
static int map_add(json_t *map, int64_t key, json_t *value)
{
    if (!value)
        return -1;
    return json_array_append_new(map,
                                 json_pack("{s:I, s:o}", "key", (json_int_t)key, "value", value));
}

/* What a delete file's entry adds to (and a data file's sort order):
 * position deletes are sorted by file and position, never by a table order
 * (sort_order_id stays null). */
static int delete_fields(const struct ice_manifest_spec *spec, const struct ice_data_file *f,
                         json_t *rec)
{
    if (f->content == 0)
        return json_object_set_new(rec, "sort_order_id", json_integer(f->sort_order_id));
    int rc = 0;
    if (f->referenced_data_file)
        rc = json_object_set_new(rec, "referenced_data_file", json_string(f->referenced_data_file));
    if (rc == 0 && spec->format_version >= 3 && f->format && strcmp(f->format, "PUFFIN") == 0)
        rc = json_object_set_new(rec, "content_offset", json_integer(f->content_offset)) ||
             json_object_set_new(rec, "content_size_in_bytes", json_integer(f->content_size));
    return rc;
}

static json_t *data_file_record(const struct ice_manifest_spec *spec, const struct ice_data_file *f)
{
    json_t *sizes = json_array(), *values = json_array(), *nulls = json_array(),
           *nans = json_array(), *lower = json_array(), *upper = json_array(),
           *partition = json_object();
    bool ok = sizes && values && nulls && nans && lower && upper && partition;
    for (size_t i = 0; ok && i < f->nnan; i++)
        ok = map_add(nans, f->nan_counts[i][0], json_integer(f->nan_counts[i][1])) == 0;
    for (size_t i = 0; ok && i < f->nstats; i++) {
        const struct pq_col_stats *s = &f->stats[i];
        ok = map_add(sizes, s->field_id, json_integer(s->size_bytes)) == 0 &&
             map_add(values, s->field_id, json_integer(s->value_count)) == 0 &&
             map_add(nulls, s->field_id, json_integer(s->null_count)) == 0 &&
             (!s->lower || map_add(lower, s->field_id, bytes_value(s->lower, s->lower_len)) == 0) &&
             (!s->upper || map_add(upper, s->field_id, bytes_value(s->upper, s->upper_len)) == 0);
    }
    if (ok && spec->day_field_name)
        ok = json_object_set_new(partition, spec->day_field_name,
                                 f->partition_null ? json_null()
                                                   : json_integer(f->partition_day)) == 0;
    json_t *rec = NULL;
    if (ok)
        rec = json_pack("{s:i, s:s, s:s, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "content",
                        f->content, "file_path", f->path, "file_format",
                        f->format ? f->format : "PARQUET", "partition", partition, "record_count",
                        (json_int_t)f->record_count, "file_size_in_bytes", (json_int_t)f->file_size,
                        "column_sizes", sizes, "value_counts", values, "null_value_counts", nulls,
                        "nan_value_counts", nans, "lower_bounds", lower, "upper_bounds", upper);
    else {
        json_decref(sizes);
        json_decref(values);
        json_decref(nulls);
        json_decref(nans);
        json_decref(lower);
        json_decref(upper);
        json_decref(partition);
    }
    return rec && delete_fields(spec, f, rec) != 0 ? (json_decref(rec), NULL) : rec;
}

static void summarize_partition(bool null_day, int32_t day, struct ice_manifest_summary *s)
{
    if (null_day) {
        s->contains_null = true;
        return;
    }
    if (!s->has_bounds || day < s->min_day)
        s->min_day = day;
    if (!s->has_bounds || day > s->max_day)
        s->max_day = day;
    s->has_bounds = true;
}

static void summarize(const struct ice_data_file *f, struct ice_manifest_summary *s)
{
    s->added_files++;
    s->added_rows += f->record_count;
    summarize_partition(f->partition_null, f->partition_day, s);
}

/* An existing entry carried into the manifest: EXISTING, counted, its
 * partition summarized. A copy (the caller's stays as it was). */
static json_t *existing_entry(const struct ice_manifest_spec *spec, const json_t *e,
                              struct ice_manifest_summary *s, struct error *err)
{
    const json_t *df = json_object_get(e, "data_file");
    const json_t *seq = json_object_get(e, "sequence_number");
    if (!json_is_integer(json_object_get(e, "snapshot_id")) || !json_is_integer(seq) ||
        !json_is_integer(json_object_get(e, "file_sequence_number")) || !json_is_object(df)) {
        error_fail(err, ERR_INVALID,
                   "an existing manifest entry without its snapshot id and "
                   "sequence numbers");
        return NULL;
    }
    json_t *copy = json_deep_copy(e);
    if (!copy || json_object_set_new(copy, "status", json_integer(0)) != 0) {
        json_decref(copy);
        nomem(err);
        return NULL;
    }
    s->existing_files++;
    s->existing_rows += json_integer_value(json_object_get(df, "record_count"));
    int64_t v = json_integer_value(seq);
    if (s->min_sequence_number < 0 || v < s->min_sequence_number)
        s->min_sequence_number = v;
    if (spec->day_field_name) {
        const json_t *day = json_object_get(json_object_get(df, "partition"), spec->day_field_name);
        summarize_partition(!json_is_integer(day), (int32_t)json_integer_value(day), s);
    }
    return copy;
}

static int set_meta_int(struct avro_writer *w, const char *key, int64_t v, struct error *err)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    return avro_writer_set_meta_str(w, key, text, err);
}

/* An Avro writer for `schema` (the schema builders' malloc'd text, NULL
 * when they failed with err filled), which it frees. */
static struct avro_writer *writer_for(char *schema, struct error *err)
{
    if (!schema)
        return NULL;
    struct avro_writer *w = NULL;
    int rc = avro_writer_new(schema, NULL, &w, err);
    free(schema);
    return rc == 0 ? w : NULL;
}

int ice_manifest_write(const struct ice_manifest_spec *spec, const struct ice_data_file *files,
                       size_t n, struct buf *out, struct ice_manifest_summary *summary,
                       struct error *err)
{
    return ice_manifest_write_existing(spec, NULL, files, n, out, summary, err);
}

int ice_manifest_write_existing(const struct ice_manifest_spec *spec, const json_t *existing,
                                const struct ice_data_file *files, size_t n, struct buf *out,
                                struct ice_manifest_summary *summary, struct error *err)
{
    memset(summary, 0, sizeof *summary);
    summary->min_sequence_number = -1;
    struct avro_partition_field pf = {spec->day_field_name, "date", spec->day_field_id};
    struct avro_writer *w = writer_for(
        iceberg_manifest_entry_schema(spec->format_version, &pf, spec->day_field_name ? 1 : 0, err),
        err);
    if (!w)
        return -1;
    char version[8];
    snprintf(version, sizeof version, "%d", spec->format_version);
    int rc =
        avro_writer_set_meta_str(w, "schema", spec->schema_json, err) == 0 &&
                set_meta_int(w, "schema-id", spec->schema_id, err) == 0 &&
                avro_writer_set_meta_str(w, "partition-spec", spec->spec_fields_json, err) == 0 &&
                set_meta_int(w, "partition-spec-id", spec->spec_id, err) == 0 &&
                avro_writer_set_meta_str(w, "format-version", version, err) == 0 &&
                avro_writer_set_meta_str(w, "content", spec->deletes ? "deletes" : "data", err) == 0
            ? 0
            : -1;
    size_t k;
    const json_t *old;
    json_array_foreach (existing, k, old) {
        json_t *entry = rc == 0 ? existing_entry(spec, old, summary, err) : NULL;
        if (!entry)
            rc = -1;
        else
            rc = avro_writer_append(w, entry, err);
        json_decref(entry);
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        json_t *df = data_file_record(spec, &files[i]);
        json_t *entry = df ? json_pack("{s:i, s:n, s:n, s:n, s:o}", "status", 1, "snapshot_id",
                                       "sequence_number", "file_sequence_number", "data_file", df)
                           : NULL;
        if (!entry)
            rc = nomem(err);
        else
            rc = avro_writer_append(w, entry, err);
        json_decref(entry);
        if (rc == 0)
            summarize(&files[i], summary);
    }
    if (rc == 0)
        rc = avro_writer_finish(w, out, err);
    avro_writer_free(w);
    return rc;
}

json_t *ice_manifest_file_record(const struct ice_manifest_spec *spec, const char *path,
                                 int64_t length, int64_t snapshot_id, int64_t sequence_number,
                                 int64_t first_row_id, const struct ice_manifest_summary *s)
{
    json_t *partitions = json_array();
    if (partitions && spec->day_field_name) {
        json_t *p =
            json_pack("{s:b, s:b}", "contains_null", s->contains_null, "contains_nan", false);
        if (p && s->has_bounds) {
            json_object_set_new(p, "lower_bound", day_bytes(s->min_day));
            json_object_set_new(p, "upper_bound", day_bytes(s->max_day));
        }
        if (!p || json_array_append_new(partitions, p) != 0) {
            json_decref(partitions);
            partitions = NULL;
        }
    }
    if (!partitions)
        return NULL;
    int64_t min_seq = s->min_sequence_number >= 0 && s->min_sequence_number < sequence_number
                          ? s->min_sequence_number
                          : sequence_number;
    json_t *rec = json_pack(
        "{s:s, s:I, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:i, s:I, s:I, s:I, s:o}", "manifest_path",
        path, "manifest_length", (json_int_t)length, "partition_spec_id", (int)spec->spec_id,
        "content", spec->deletes ? 1 : 0, "sequence_number", (json_int_t)sequence_number,
        "min_sequence_number", (json_int_t)min_seq, "added_snapshot_id", (json_int_t)snapshot_id,
        "added_files_count", (json_int_t)s->added_files, "existing_files_count",
        (json_int_t)s->existing_files, "deleted_files_count", 0, "added_rows_count",
        (json_int_t)s->added_rows, "existing_rows_count", (json_int_t)s->existing_rows,
        "deleted_rows_count", (json_int_t)0, "partitions", partitions);
    if (rec && spec->format_version >= 3 && !spec->deletes &&
        json_object_set_new(rec, "first_row_id", json_integer(first_row_id)) != 0) {
        json_decref(rec);
        rec = NULL;
    }
    return rec;
}

int ice_manifest_list_write(int format_version, int64_t snapshot_id, int64_t parent_id,
                            int64_t sequence_number, int64_t first_row_id, const json_t *parent,
                            const json_t *added, struct buf *out, struct error *err)
{
    struct avro_writer *w = writer_for(iceberg_manifest_list_schema(format_version, err), err);
    if (!w)
        return -1;
    char version[8];
    snprintf(version, sizeof version, "%d", format_version);
    int rc =
        set_meta_int(w, "snapshot-id", snapshot_id, err) == 0 &&
                (parent_id < 0 || set_meta_int(w, "parent-snapshot-id", parent_id, err) == 0) &&
                set_meta_int(w, "sequence-number", sequence_number, err) == 0 &&
                avro_writer_set_meta_str(w, "format-version", version, err) == 0 &&
                (format_version < 3 || set_meta_int(w, "first-row-id", first_row_id, err) == 0)
            ? 0
            : -1;
    size_t i;
    const json_t *rec;
    if (parent) {
        json_array_foreach (parent, i, rec) {
            if (rc == 0)
                rc = avro_writer_append(w, rec, err);
        }
    }
    if (rc == 0)
        rc = avro_writer_append(w, added, err);
    if (rc == 0)
        rc = avro_writer_finish(w, out, err);
    avro_writer_free(w);
    return rc;
}

int ice_manifest_list_read(const void *data, size_t len, json_t **records, struct error *err)
{
    *records = NULL;
    struct avro_reader *r;
    if (avro_reader_open(data, len, NULL, &r, err) != 0)
        return -1;
    json_t *all = json_array();
    int rc = all ? 0 : nomem(err);
    json_t *rec;
    int got;
    while (rc == 0 && (got = avro_reader_next(r, &rec, err)) == 1) {
        if (json_array_append_new(all, rec) != 0)
            rc = nomem(err);
    }
    if (rc == 0 && got < 0)
        rc = -1;
    avro_reader_free(r);
    if (rc != 0) {
        json_decref(all);
        return -1;
    }
    *records = all;
    return 0;
}
