/* A data file's partition values as a person reads them, named by the
 * table's partition spec and joined like an Iceberg partition path:
 *
 *   ts_day=2024-03-01/team="Government"/id_bucket[16]=5
 *
 * Each field is named as Iceberg names it by default: the source column
 * for identity, column_year, _month, _day, _hour for the temporal
 * transforms, column_bucket[N] and column_truncate[W] with their parameter.
 * Temporal values are dates (year 2024, month 2024-03, day 2024-03-01, hour
 * 2024-03-01-13, Iceberg's human forms of the stored ordinal); bucket
 * numbers as stored; identity and truncate values in their column's type:
 * text quoted and escaped as JSON strings, binary as 0x and hex, numbers,
 * dates, times and uuids as stored. A null value reads `null`. */
#ifndef HL_CLI_PARTITION_TEXT_H
#define HL_CLI_PARTITION_TEXT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "lake/transform.h"
#include "lake/types.h"
#include "util/buf.h"

struct part_field {
    char *name; /* as shown: "ts_day", "team", "id_bucket[16]" */
    enum lake_transform transform;
    enum lake_type source; /* the source column's type */
};

/* A partition spec, as the text needs it. Owns its names. */
struct part_spec {
    int64_t spec_id; /* -1 when unpartitioned */
    size_t nfields;
    struct part_field *fields;
};

/* The spec of a Table document (its "partition_spec" and "columns"); an
 * unpartitioned table gives no fields. A field whose source or transform
 * the document does not describe gets the name "?" and shows its values as
 * text. Returns 0, or -1 when memory runs out (out is then empty). */
int part_spec_from_table(const json_t *table, struct part_spec *out);
void part_spec_free(struct part_spec *s);

/* Appends the text of one partition tuple (values[k] the stored string of
 * field k, NULL for a null value). When spec is NULL or has another number
 * of fields, the values are shown as a JSON array, unnamed. Returns 0, or
 * -1 when memory runs out. */
int part_text(const struct part_spec *spec, const char *const *values, size_t n, struct buf *out);

#endif
