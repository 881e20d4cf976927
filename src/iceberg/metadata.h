/* Iceberg table metadata (vN.metadata.json) in memory: building a new
 * table's, loading one another writer may have written, committing a
 * snapshot into it, and serializing it (the Iceberg export reference §1).
 *
 * The model keeps the whole JSON document, so keys it does not interpret
 * (properties, other refs, statistics, encryption keys, other engines'
 * keys) are carried into the next version unchanged; the fields below are
 * views of it, refreshed after every change. A change either applies
 * completely or leaves the model as it was.
 *
 * Pure: no I/O. Snapshot ids come from getrandom(). Memory: ice_meta owns
 * its document; pointers into it (location, the json_t views) stay valid
 * until the next change or ice_meta_free. Not thread-safe. */
#ifndef HL_ICEBERG_METADATA_H
#define HL_ICEBERG_METADATA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iceberg/schema_map.h"

struct ice_meta {
    json_t *doc; /* the metadata object, owned */

    int format_version; /* 2 or 3 */
    const char *table_uuid;
    const char *location;
    int64_t last_sequence_number;
    int64_t last_updated_ms;
    int64_t last_column_id;
    int64_t next_row_id; /* v3; 0 on v2 */

    bool has_current_snapshot;
    int64_t current_snapshot_id;

    const json_t *current_schema;     /* entry of "schemas" */
    const json_t *default_spec;       /* entry of "partition-specs" */
    const json_t *default_sort_order; /* entry of "sort-orders" */
    const json_t *current_snapshot;   /* entry of "snapshots", NULL when none */
};

/* What a new table starts with. Schema, spec and order are the objects of
 * schema_map.h (borrowed; copied into the document). */
struct ice_new_table {
    int format_version;       /* 2 or 3 */
    const char *table_uuid;   /* canonical 8-4-4-4-12 */
    const char *location;     /* absolute URI with a scheme, no trailing '/' */
    const json_t *schema;     /* carries its schema-id */
    const json_t *spec;       /* carries its spec-id */
    const json_t *sort_order; /* carries its order-id */
    const json_t *properties; /* object of strings, or NULL for {} */
    int64_t now_ms;
};

/* A new table's metadata, with no snapshot: keys in the order of the
 * reference §1.5 plus Java's empty collections (v2: current-snapshot-id -1,
 * v3: none and next-row-id 0); last-partition-id 1000 when partitioned,
 * 999 when not; last-column-id from the schema's highest field id.
 * Refuses a "format-version" property (reserved) and non-string properties. */
int ice_meta_create(struct ice_meta *m, const struct ice_new_table *in, struct error *err);

/* Parses metadata JSON text (len bytes; need not be terminated). Refuses
 * with ERR_UNSUPPORTED format versions other than 2 and 3, and with
 * ERR_MALFORMED anything else the spec forbids that this writer
 * relies on: missing required keys, wrong JSON types, integers given as
 * reals, ids that do not resolve (current schema, default spec and sort
 * order, current snapshot, refs.main), current-snapshot-id differing from
 * refs.main, a snapshot sequence number above last-sequence-number,
 * duplicate snapshot ids, a v3 table without next-row-id. */
int ice_meta_load(struct ice_meta *m, const char *text, size_t len, struct error *err);

void ice_meta_free(struct ice_meta *m);

/* The document as plain JSON text (malloc'd, caller frees; NULL when memory
 * runs out): the known top-level keys first in a fixed order, then every
 * other key in the order it was loaded; int64 values as exact integers.
 * Reals in carried-over keys print with 17 significant digits (jansson):
 * the same double, not always the same text. */
char *ice_meta_dumps(const struct ice_meta *m);

/* The sequence number and (v3) first row id the next snapshot gets, for the
 * manifest list written before ice_meta_add_snapshot. */
int64_t ice_meta_next_sequence_number(const struct ice_meta *m);
/* A random snapshot id in [1, 2^53) used by no snapshot of m. */
int ice_meta_pick_snapshot_id(const struct ice_meta *m, int64_t *out, struct error *err);

/* append: adds files; replace: rewrites files, same rows (compaction,
 * which may apply delete files: the rows they delete leave with them);
 * overwrite: adds data files and deletes rows (a window that inserts and
 * deletes), or replaces the table's contents (an export's bootstrap onto
 * an existing table); delete: only deletes rows (delete files). */
enum ice_operation { ICE_OP_APPEND, ICE_OP_REPLACE, ICE_OP_OVERWRITE, ICE_OP_DELETE };

struct ice_summary_kv {
    const char *key, *value;
};

struct ice_snapshot_add {
    int64_t snapshot_id;       /* from ice_meta_pick_snapshot_id */
    int64_t timestamp_ms;      /* raised to last-updated-ms if the clock is behind */
    const char *manifest_list; /* full URI */
    enum ice_operation operation;
    /* append: added_data_files >= 1, removed/deleted 0. replace: removes at
     * least one file and keeps the live rows (added records == deleted
     * records - removed position deletes). delete: adds no data file, adds
     * delete files. overwrite: adds a data file or a delete file. */
    int64_t added_data_files, added_records, added_files_size;
    int64_t removed_data_files, deleted_records, removed_files_size;
    /* Position delete files (v2 Parquet files, v3 deletion vectors: one
     * entry per vector) added and removed, and the positions they hold;
     * dvs counts the deletion vectors among them (summary added-dvs,
     * removed-dvs). */
    int64_t added_delete_files, removed_delete_files;
    int64_t added_position_deletes, removed_position_deletes;
    int64_t added_dvs, removed_dvs;
    int64_t changed_partition_count; /* < 0: not written */
    int64_t added_rows;              /* v3: rows given row ids by this commit */
    /* The full URI of the metadata file m was loaded from (the version this
     * commit replaces), appended to metadata-log; NULL when m was never
     * written (a table created and first committed in one version). */
    const char *previous_metadata_file;
    const struct ice_summary_kv *extra; /* more summary keys, e.g.
                                         * hoglake.source-snapshot-from/to */
    size_t nextra;
};

/* Commits a snapshot on top of main: sequence number = last + 1, parent =
 * the current snapshot (none for the first), summary = operation, added-*,
 * deleted-* (when nonzero), changed-partition-count, total-* carried from
 * the parent's summary (a total the parent lacks is left out; "0" bases on
 * the first snapshot), then the extras; schema-id = the current schema.
 * v3: first-row-id = next-row-id, added-rows, next-row-id += added-rows.
 * Then last-sequence-number, last-updated-ms, current-snapshot-id,
 * refs.main, snapshot-log and metadata-log (trimmed to the property
 * write.metadata.previous-versions-max, default 100, oldest first). Extras
 * may not reuse a summary key this function writes. */
int ice_meta_add_snapshot(struct ice_meta *m, const struct ice_snapshot_add *in, struct error *err);

/* Whether the snapshot is the current one or a ref (branch, tag) names
 * it: never expired. */
bool ice_meta_snapshot_pinned(const struct ice_meta *m, int64_t id);
/* Expires snapshots: removes them from "snapshots" and "snapshot-log"
 * (other snapshots' parent-snapshot-id may still name them, as Iceberg
 * allows), sets last-updated-ms (now, or later) and logs the replaced
 * version (previous_metadata_file; NULL: none). Refuses the current
 * snapshot and any a ref names. The files they referenced are the
 * caller's to delete, once no retained snapshot references them. */
int ice_meta_remove_snapshots(struct ice_meta *m, const int64_t *ids, size_t n, int64_t now_ms,
                              const char *previous_metadata_file, struct error *err);
/* Makes order (from ice_sort_order_json; its order-id is ignored) the
 * default sort order: an existing order with the same fields is reused,
 * otherwise it is added under max(order-id) + 1 (an unsorted order under
 * 0). *changed says whether the default moved. Recorded in the next
 * version written; it is not a partition spec change. */
int ice_meta_set_sort_order(struct ice_meta *m, const json_t *order, bool *changed,
                            struct error *err);

/* Makes schema (from ice_schema_json; its schema-id is ignored) current: an
 * equal schema already listed is reused, otherwise it is added under
 * max(schema-id) + 1 and last-column-id raised to cover its ids. *changed
 * says whether the current schema moved. Compatibility is the catalog's
 * rule (hoglake only evolves schemas in Iceberg-compatible ways). */
int ice_meta_set_schema(struct ice_meta *m, const json_t *schema, bool *changed, struct error *err);

/* Sets table properties (string values; other keys are kept). *changed
 * says whether any value moved. Refuses "format-version" (reserved). */
int ice_meta_set_properties(struct ice_meta *m, const json_t *props, bool *changed,
                            struct error *err);
/* A table property's value, or NULL. */
const char *ice_meta_property(const struct ice_meta *m, const char *key);
/* The snapshot's summary value for key, or NULL. */
const char *ice_snapshot_summary(const json_t *snapshot, const char *key);

/* Walks main's history from the current snapshot through parent ids and
 * returns the newest snapshot whose summary has key (NULL when none): how
 * the exporter finds the source range it last committed even if another
 * writer committed after it. */
const json_t *ice_meta_find_summary_key(const struct ice_meta *m, const char *key);

#endif
