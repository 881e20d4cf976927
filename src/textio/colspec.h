/* Compact command-line forms of columns, partition specs and sort orders. */
#ifndef HL_COLSPEC_H
#define HL_COLSPEC_H

#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

/* "id:long!, name:string, tags:list<string>" -> a ColumnDef JSON array.
 * NULL with ERR_MALFORMED on a syntax error (ERR_LIMIT for a name too long
 * or types nested too deeply); types are checked by the server. */
json_t *colspec_parse_columns(const char *spec, struct error *err);

/* Adds the field ids the server will assign at create (depth-first from 1)
 * to a ColumnDef array, so specs can name columns before they exist. */
void colspec_predict_field_ids(json_t *columns);

/* The field id of a dotted column path in a Column array (with field_id
 * members), or -1. */
json_int_t colspec_find_field_id(const json_t *columns, const char *path);

/* "team_id, month(ts), bucket(16, id)" -> PartitionField array; "none" or
 * "" -> []. Names are resolved against `columns` (ERR_NOT_FOUND for one
 * that names no column, ERR_MALFORMED for an item that does not parse). */
json_t *colspec_parse_partition(const char *spec, const json_t *columns, struct error *err);
/* "ts desc, id asc nulls last" -> SortField array; "none" or "" -> []. */
json_t *colspec_parse_sort(const char *spec, const json_t *columns, struct error *err);

#endif
