/* Iceberg manifest and manifest-list Avro schemas as JSON text. */
#include "iceberg/manifest_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "iceberg/avro_internal.h"
#include "util/buf.h"

/* An optional field: null first, default null (spec). */
#define OPT(name, type, id)                                                                        \
    "{\"name\":\"" name "\",\"type\":[\"null\"," type "],\"default\":null,\"field-id\":" #id "}"
#define REQ(name, type, id) "{\"name\":\"" name "\",\"type\":" type ",\"field-id\":" #id "}"
/* Iceberg map<int, V> in Avro: an array of key/value records. */
#define INT_MAP(name, id, kid, vid, vtype)                                                         \
    OPT(name,                                                                                      \
        "{\"type\":\"array\",\"logicalType\":\"map\",\"items\":{\"type\":\"record\",\"name\":"     \
        "\"k" #kid "_v" #vid                                                                       \
        "\",\"fields\":[" REQ("key", "\"int\"", kid) "," REQ("value", vtype, vid) "]}}",           \
        id)

static const char manifest_list_fields[] =
    REQ("manifest_path", "\"string\"", 500) "," REQ(
        "manifest_length", "\"long\"",
        501) "," REQ("partition_spec_id", "\"int\"",
                     502) "," REQ("content", "\"int\"",
                                  517) "," REQ("sequence_number", "\"long\"",
                                               515) "," REQ("min_sequence_"
                                                            "number",
                                                            "\"long\"",
                                                            516) "," REQ("added_snapshot_id",
                                                                         "\"long\"", 503) "," REQ("added_files_count", "\"int\"", 504) "," REQ("existing_files_count", "\"int\"", 505) "," REQ("deleted_files_count", "\"int\"", 506) "," REQ("added_rows_count", "\"long\"", 512) "," REQ("existing_rows_count", "\"long\"", 513) "," REQ("deleted_rows_count", "\"long\"", 514) "," OPT("partitions",
                                                                                                                                                                                                                                                                                                                                                                                          "{\"type\":\"array\",\"element-id\":508,\"items\":{\"type\":\"record\",\"name\":"
                                                                                                                                                                                                                                                                                                                                                                                          "\"r508\",\"fields\":[" REQ("contains_null", "\"boolean\"", 509) "," OPT("contains_nan", "\"boolean\"", 518) "," OPT("lower_bound", "\"bytes\"", 510) "," OPT("upper_bound",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                        "\"bytes\"",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                        511) "]}}",
                                                                                                                                                                                                                                                                                                                                                                                          507) "," OPT("key_metadata",
                                                                                                                                                                                                                                                                                                                                                                                                       "\"bytes\"",
                                                                                                                                                                                                                                                                                                                                                                                                       519);

/* data_file (r2) up to and including partition, then the rest. */
static const char data_file_head[] =
    REQ("content", "\"int\"", 134) "," REQ("file_path", "\"string\"", 100) "," REQ(
        "file_format", "\"string\"", 101) ",{\"name\":\"partition\",\"field-id\":102,\"type\":";

static const char data_file_stats[] =
    REQ("record_count", "\"long\"", 103) "," REQ("file_size_in_bytes", "\"long\"", 104) "," INT_MAP("column_sizes", 108, 117, 118, "\"long\"") "," INT_MAP(
        "value_counts", 109, 119, 120,
        "\"long\"") "," INT_MAP("null_value_counts", 110, 121, 122,
                                "\"long\"") "," INT_MAP("nan_value_counts", 137, 138, 139,
                                                        "\"long\"") "," INT_MAP("lower_bounds", 125,
                                                                                126, 127,
                                                                                "\"bytes\"") "," INT_MAP("upper_bounds",
                                                                                                         128,
                                                                                                         129,
                                                                                                         130,
                                                                                                         "\"bytes\"") "," OPT("key_metadata",
                                                                                                                              "\"bytes\"",
                                                                                                                              131) "," OPT("split_offsets",
                                                                                                                                           "{\"type\":\"array\",\"items\":\"long\",\"element-id\":133}",
                                                                                                                                           132) "," OPT("equality_ids",
                                                                                                                                                        "{\"type\":\"array\",\"items\":\"int\",\"element-id\":136}",
                                                                                                                                                        135) "," OPT("sort_order_id",
                                                                                                                                                                     "\"int\"",
                                                                                                                                                                     140);

static const char data_file_tail_v2[] = OPT("referenced_data_file", "\"string\"", 143);

static const char data_file_tail_v3[] =
    OPT("first_row_id", "\"long\"", 142) "," OPT("referenced_data_file", "\"string\"", 143) "," OPT(
        "content_offset", "\"long\"", 144) "," OPT("content_size_in_bytes", "\"long\"", 145);

static const char entry_head[] =
    "{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":[" REQ(
        "status", "\"int\"",
        0) "," OPT("snapshot_id", "\"long\"",
                   1) "," OPT("sequence_number", "\"long\"",
                              3) "," OPT("file_sequence_number", "\"long\"",
                                         4) ","
                                            "{\"name\":\"data_file\",\"field-id\":2,\"type\":{"
                                            "\"type\":\"record\",\"name\":\"r2\","
                                            "\"fields\":[";

static char *take_text(struct buf *b, struct error *err)
{
    char *s = buf_take(b);
    if (!s)
        error_fail(err, ERR_NOMEM, "out of memory");
    return s;
}

char *iceberg_manifest_list_schema(int format_version, struct error *err)
{
    if (format_version != 2 && format_version != 3) {
        error_fail(err, ERR_INVALID, "format version %d (2 or 3)", format_version);
        return NULL;
    }
    struct buf b = BUF_INIT;
    if (buf_printf(&b, "{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":[%s%s]}",
                   manifest_list_fields,
                   format_version == 3 ? "," OPT("first_row_id", "\"long\"", 520) : "") < 0) {
        buf_free(&b);
        error_fail(err, ERR_NOMEM, "out of memory");
        return NULL;
    }
    return take_text(&b, err);
}

/* Bytes of the smallest two's complement holding every P-digit unscaled
 * value (what the spec sizes a decimal's fixed by). */
static int decimal_bytes(int precision)
{
    for (int n = 1; n <= 16; n++) {
        /* 10^P - 1 < 2^(8n-1); doubles are close enough here (P <= 38,
         * and no power of ten lies near a power of two). */
        double max = 1;
        for (int i = 0; i < 8 * n - 1; i++)
            max *= 2;
        double ten = 1;
        for (int i = 0; i < precision; i++)
            ten *= 10;
        if (ten - 1 < max)
            return n;
    }
    return -1;
}

/* Appends the Avro type of an Iceberg partition result type. Named fixed
 * types get a per-field name so two decimal fields never collide. */
static int append_type(struct buf *b, const struct avro_partition_field *f, struct error *err)
{
    static const struct {
        const char *iceberg, *avro;
    } simple[] = {
        {"boolean", "\"boolean\""},
        {"int", "\"int\""},
        {"long", "\"long\""},
        {"float", "\"float\""},
        {"double", "\"double\""},
        {"string", "\"string\""},
        {"binary", "\"bytes\""},
        {"date", "{\"type\":\"int\",\"logicalType\":\"date\"}"},
        {"time", "{\"type\":\"long\",\"logicalType\":\"time-micros\"}"},
        {"timestamp",
         "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":false}"},
        {"timestamptz",
         "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":true}"},
        {"timestamp_ns",
         "{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\",\"adjust-to-utc\":false}"},
        {"timestamptz_ns",
         "{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\",\"adjust-to-utc\":true}"},
    };
    const char *t = f->result_type ? f->result_type : "";
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
        if (strcmp(t, simple[i].iceberg) == 0)
            return buf_puts(b, simple[i].avro);
    }
    unsigned p, s, len;
    int end = -1;
    if (strcmp(t, "uuid") == 0)
        return buf_printf(b,
                          "{\"type\":\"fixed\",\"name\":\"r102_f%d\",\"size\":16,"
                          "\"logicalType\":\"uuid\"}",
                          (int)f->field_id);
    if (sscanf(t, "fixed[%u]%n", &len, &end) == 1 && end > 0 && t[end] == '\0' && len > 0 &&
        len <= INT32_MAX)
        return buf_printf(b, "{\"type\":\"fixed\",\"name\":\"r102_f%d\",\"size\":%u}",
                          (int)f->field_id, len);
    end = -1;
    if (sscanf(t, "decimal(%u,%u)%n", &p, &s, &end) == 2 && end > 0 && t[end] == '\0' && p >= 1 &&
        p <= 38 && s <= p)
        return buf_printf(b,
                          "{\"type\":\"fixed\",\"name\":\"r102_f%d\",\"size\":%d,"
                          "\"logicalType\":\"decimal\",\"precision\":%u,\"scale\":%u}",
                          (int)f->field_id, decimal_bytes((int)p), p, s);
    error_fail(err, ERR_INVALID, "partition field %s: unknown result type \"%s\"",
               f->name ? f->name : "?", t);
    return -2;
}

static int append_original_name(struct buf *b, const char *name)
{
    json_t *s = json_string(name);
    char *text = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
    int rc = text ? buf_printf(b, "\"iceberg-field-name\":%s,", text) : -1;
    free(text);
    json_decref(s);
    return rc;
}

char *iceberg_manifest_entry_schema(int format_version, const struct avro_partition_field *fields,
                                    size_t n, struct error *err)
{
    if (format_version != 2 && format_version != 3) {
        error_fail(err, ERR_INVALID, "format version %d (2 or 3)", format_version);
        return NULL;
    }
    if (n && !fields) {
        error_fail(err, ERR_INVALID, "no partition fields");
        return NULL;
    }
    struct buf b = BUF_INIT;
    int rc = buf_puts(&b, entry_head) < 0 || buf_puts(&b, data_file_head) < 0 ||
                     buf_puts(&b, "{\"type\":\"record\",\"name\":\"r102\",\"fields\":[") < 0
                 ? -1
                 : 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct avro_partition_field *f = &fields[i];
        char *name = avro_name_sanitize(f->name);
        if (!name) {
            error_fail(err, ERR_INVALID, "partition field name is empty or not UTF-8");
            rc = -2;
            break;
        }
        rc = buf_printf(&b, "%s{\"name\":\"%s\",\"field-id\":%d,", i ? "," : "", name,
                        (int)f->field_id);
        /* Java keeps the original of a sanitized name here. */
        if (rc == 0 && strcmp(name, f->name) != 0)
            rc = append_original_name(&b, f->name);
        free(name);
        rc = rc < 0 || buf_puts(&b, "\"default\":null,\"type\":[\"null\",") < 0
                 ? -1
                 : append_type(&b, f, err);
        if (rc == 0)
            rc = buf_puts(&b, "]}");
    }
    if (rc == 0)
        rc = buf_printf(&b, "]}},%s,%s]}}]}", data_file_stats,
                        format_version == 3 ? data_file_tail_v3 : data_file_tail_v2);
    if (rc < 0) {
        buf_free(&b);
        if (rc == -1)
            error_fail(err, ERR_NOMEM, "out of memory");
        return NULL;
    }
    return take_text(&b, err);
}
