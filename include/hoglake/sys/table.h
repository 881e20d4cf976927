/* libhoglake's advanced tier: what a tool built on the library needs beyond
 * hoglake.h (the Iceberg exporter in this tree): the object store a table's
 * client writes with, and reading the files of a scan plan it chose. The
 * types are the tree's own (src/objstore/objstore.h, jansson), so this
 * header is not installed; hoglake.h never includes it. */
#ifndef HOGLAKE_SYS_TABLE_H
#define HOGLAKE_SYS_TABLE_H

#include <jansson.h>

#include "hoglake/hoglake.h"

#ifdef __cplusplus
extern "C" {
#endif

struct objstore;

/* The catalog handle the table was opened from (borrowed). */
HL_API hl_catalog *hl_table_catalog(hl_table *table);

/* The object store the table's client writes data files with (opened on
 * first use, with the client's settings; owned by the client). */
HL_API hl_status hl_table_object_store(hl_table *table, struct objstore **out,
                                       struct hl_error *err);

/* Streams the rows of `plan`, a JSON array of ScanFile objects
 * ({"data_file": {"path", "file_size_bytes"}}; owned from here, freed
 * whatever the outcome), read as the Table object `info` describes the
 * table: columns matched by field id, absent ones null. A file of another
 * size than its file_size_bytes is refused. */
HL_API hl_status hl_table_read_plan(hl_table *table, const json_t *info, json_t *plan,
                                    struct ArrowArrayStream *out, struct hl_error *err);

#ifdef __cplusplus
}
#endif

#endif
