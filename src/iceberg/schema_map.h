/* A hoglake table definition seen as Iceberg: its schema, the export's
 * day-grain partition spec, its sort order, and the drift check between a
 * derived spec and an existing table's (docs: the Iceberg export reference
 * §1.2, contract §6.1 for the type mapping).
 *
 * Pure functions: no I/O. Every json_t returned is a new reference owned by
 * the caller (json_decref). Strings handed back in fixed buffers are
 * truncated safely, never overrun. */
#ifndef HL_ICEBERG_SCHEMA_MAP_H
#define HL_ICEBERG_SCHEMA_MAP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lake/schema.h"

/* The Iceberg type string of a scalar column under format_version (2 or 3):
 *   boolean; int8 int16 int uint8 uint16 -> int; long uint32 -> long;
 *   uint64 -> decimal(20, 0); decimal -> decimal(P, S); float; double;
 *   date; time; timestamp_s timestamp_ms timestamp -> timestamp;
 *   timestamptz; timestamp_ns -> timestamp_ns (v3; v2 refuses it, since a
 *   µs column would silently drop the nanoseconds); string json -> string;
 *   uuid; binary; variant -> variant (v3; v2 refuses it).
 * Containers (list, struct, map) are refused: their JSON is an object, built
 * by ice_schema_json. Returns 0 and writes into out, or -1 with err. */
int ice_type_string(const struct lake_column *c, int format_version, char *out, size_t out_size,
                    struct error *err);

/* The table's columns as an Iceberg schema object:
 *   {"type":"struct","schema-id":S,"fields":[{"id","name","required","type"[,"doc"]}...]}
 * with nested {"type":"struct","fields":[...]}, {"type":"list","element-id",
 * "element-required","element"} and {"type":"map","key-id","key","value-id",
 * "value-required","value"}; ids are the hoglake field ids, "required" is
 * !nullable, "doc" is the column comment. *max_field_id (when not NULL)
 * receives the highest id in the tree (the metadata's last-column-id).
 * Refuses a table without columns, a field id outside [1, 2147483447] and
 * types the version cannot hold. */
json_t *ice_schema_json(const struct lake_table *t, int format_version, int64_t schema_id,
                        int64_t *max_field_id, struct error *err);

/* The export's partition spec under spec id 0:
 *   day_source_id > 0: {"spec-id":0,"fields":[{"name":"<col>_day","transform":"day",
 *                        "source-id":<id>,"field-id":1000}]}
 *   day_source_id == 0: {"spec-id":0,"fields":[]} (unpartitioned).
 * The source must be a date or timestamp column of the table, outside any
 * list or map. The field name is the column path with every character that
 * is not valid in an Avro name replaced by '_' (the name becomes a field of
 * the manifests' partition record), suffixed "_day", and suffixed further
 * ("_2", "_3"...) if it would equal a top-level column name. */
json_t *ice_partition_spec_json(const struct lake_table *t, int64_t day_source_id,
                                struct error *err);

/* The sort order from sort fields (identity transform; direction and null
 * order from each field; a lookup key is {id, descending=false,
 * nulls_first=true}): {"order-id":1,"fields":[{"transform":"identity",
 * "source-id","direction","null-order"}...]}, or {"order-id":0,"fields":[]}
 * when n == 0. Sources must be primitive (not variant) columns outside any
 * list or map, each named once. */
json_t *ice_sort_order_json(const struct lake_table *t, const struct lake_sort_field *fields,
                            size_t n, struct error *err);

/* How a derived spec compares with a table's current spec. Fields compare
 * by (source-id, transform) in order; names and partition field ids are not
 * compared (another engine may have chosen them). */
enum ice_spec_drift {
    ICE_SPEC_SAME = 0,
    ICE_SPEC_DRIFT_ADDED,   /* derived is partitioned, the table is not */
    ICE_SPEC_DRIFT_REMOVED, /* the table is partitioned, derived is not */
    ICE_SPEC_DRIFT_CHANGED, /* both partitioned, differently */
};

/* "same", "added", "removed", "changed". */
const char *ice_spec_drift_name(enum ice_spec_drift d);

/* Compares two partition spec objects (each {"fields":[...]}). describe,
 * when not NULL, receives a sentence naming both sides by
 * ice_spec_describe (columns resolved through t, which may be NULL).
 * A spec whose shape cannot be read counts as ICE_SPEC_DRIFT_CHANGED. */
enum ice_spec_drift ice_spec_compare(const json_t *derived, const json_t *existing,
                                     const struct lake_table *t, char *describe,
                                     size_t describe_size);

/* "day(message_created_at)" / "bucket[16](id), identity(region)" /
 * "unpartitioned": a spec's fields as transform(column path), the column
 * looked up by source-id in t ("field <id>" when t is NULL or lacks it).
 * The hyp_partition_spec span attribute. */
void ice_spec_describe(const json_t *spec, const struct lake_table *t, char *out, size_t out_size);

/* "session_id,conversation_id" (column paths in order) or "" for an
 * unsorted order: the hyp_sort_order span attribute. */
void ice_sort_describe(const json_t *order, const struct lake_table *t, char *out, size_t out_size);

#endif
