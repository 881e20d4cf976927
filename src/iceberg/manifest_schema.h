/* The Avro schemas of Iceberg's manifest list (record `manifest_file`) and
 * manifest (record `manifest_entry`), format versions 2 and 3, with the
 * spec's field names and field ids (Iceberg table spec, "Manifests" and
 * "Manifest Lists"; ids also in /work/shared/reference/iceberg-export.md
 * §2.2-2.3). Optional fields are ["null", T] with "default": null; int-keyed
 * maps are arrays of k<K>_v<V> records with "logicalType": "map". */
#ifndef HL_ICEBERG_MANIFEST_SCHEMA_H
#define HL_ICEBERG_MANIFEST_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "iceberg/avro.h"

/* One field of the partition spec, as the partition tuple (r102) holds it. */
struct avro_partition_field {
    /* Partition field name. One that is not an Avro name is written
     * sanitized (avro_name_sanitize) with the original in
     * "iceberg-field-name", as Java does: records must then use the
     * sanitized name (or find the field by id). */
    const char *name;
    /* Iceberg result type of the transform: "int", "long", "boolean",
     * "float", "double", "string", "binary", "date", "time", "timestamp",
     * "timestamptz", "timestamp_ns", "timestamptz_ns", "uuid",
     * "fixed[L]", "decimal(P,S)". Pass "date" for the day transform: it is
     * written as {"type":"int","logicalType":"date"}, as Java does; hour,
     * month, year and bucket are "int"; identity and truncate keep the
     * source type. */
    const char *result_type;
    int32_t field_id; /* partition field id (1000, 1001, ...) */
};

/* Schema JSON text (malloc'd, caller frees) of the manifest list record for
 * format version 2 or 3 (3 adds first_row_id, 520). NULL with err set for
 * another version or when memory runs out. */
char *iceberg_manifest_list_schema(int format_version, struct error *err);

/* Schema JSON text (malloc'd, caller frees) of the manifest entry record
 * for format version 2 or 3 (3 adds first_row_id 142, content_offset 144,
 * content_size_in_bytes 145), its partition record r102 built from the n
 * fields given (an unpartitioned spec gives an empty record). Each
 * partition value is ["null", <type>] with "default": null. NULL with err
 * (ERR_INVALID) for a bad name, type or version. */
char *iceberg_manifest_entry_schema(int format_version, const struct avro_partition_field *fields,
                                    size_t n, struct error *err);

#endif
