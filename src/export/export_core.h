/* What the Iceberg export and its compaction share: the table's layout
 * (day(primary timestamp) partitioning, the lookup key), rows grouped by
 * day and sorted, data files written and tracked for cleanup, loading the
 * Iceberg table, and the spans' layout attributes. Internal. */
#ifndef HL_EXPORT_EXPORT_CORE_H
#define HL_EXPORT_EXPORT_CORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "hoglake/hoglake.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "lake/schema.h"
#include "rows/rows_sort.h"
#include "util/arena.h"

struct objstore;
struct span;
struct tracer;

/* Rows per slice handed to the Parquet writer from the sorted order; how
 * often a commit is retried after losing a race. */
enum { TAKE_ROWS = 65536, COMMIT_ATTEMPTS = 8 };

/* Iceberg v3 row lineage, carried in files as columns of their own
 * (reserved field ids). Every exported file holds _row_id, the rows'
 * hoglake row ids (on v3 they are the Iceberg row ids; v2 readers ignore
 * the column), with bounds in the manifest; _last_updated_sequence_number
 * only in compaction outputs, without statistics. */
#define ICE_FIELD_ROW_ID 2147483540
#define ICE_FIELD_LAST_UPDATED_SEQ 2147483539

/* The rows of one day (or of the whole table, unpartitioned). */
struct day_group {
    bool null_day;
    int32_t day;
    struct rows_ref *refs;
    size_t n, cap;
};

/* One run's state (an export or a compaction of one Iceberg table). */
struct exporter {
    hl_table *t;
    struct tracer *tracer;
    int format_version; /* the Iceberg table's */
    struct objstore *store;
    char loc[2048];     /* no trailing slash */
    struct arena arena; /* the table definition and footer statistics */
    struct lake_table table;
    const struct lake_column *day_col;
    struct lake_sort_field *keys;
    size_t nkeys;
    json_t *schema_json, *spec_json, *order_json;
    char partition_spec[160]; /* "day(message_created_at)" or "unpartitioned" */
    char sort_order[320];     /* "session_id,conversation_id" or "" */
    char qualified[700];      /* "catalog.namespace.table" */
    /* The Iceberg sort order id the run's files are sorted by (set by
     * xp_apply_sort_order; 0: unsorted). */
    bool order_chosen;
    int32_t sort_order_id;
    /* The files' _row_id values are hoglake row ids: their bounds go into
     * the manifest (a delete finds its candidate files by them). */
    bool row_id_bounds;
    int64_t max_row_id; /* the largest _row_id read (-1: none) */
    /* the source rows */
    struct ArrowSchema schema;
    struct ArrowArray *batches;
    size_t nbatches, batch_cap;
    int64_t rows;
    struct day_group *groups;
    size_t ngroups, group_cap;
    /* what this run wrote */
    struct ice_data_file *files;
    size_t nfiles, file_cap;
    char **staged; /* every object written, for cleanup on failure */
    size_t nstaged, staged_cap;
};

hl_status xp_nomem(struct hl_error *err);
/* Starts a run on table's target `location` (a trailing '/' dropped):
 * x->loc, its arena, table definition and object store. x must be zeroed
 * but for t and tracer; xp_exporter_free it whatever this returns. */
hl_status xp_open(struct exporter *x, const char *location, struct hl_error *err);
/* The whole object at uri into b. */
hl_status xp_get(struct exporter *x, const char *uri, struct buf *b, struct hl_error *err);
/* Calls fn for each entry of the manifest at uri (as the Avro reader
 * decodes it), in order, while it returns HL_OK. */
typedef hl_status (*xp_entry_fn)(void *ctx, const char *manifest, const json_t *entry,
                                 struct hl_error *err);
hl_status xp_manifest_entries(struct exporter *x, const char *uri, xp_entry_fn fn, void *ctx,
                              struct hl_error *err);
/* o[key] as an integer into *out; false (out untouched) when it is not one. */
bool xp_json_long(const json_t *o, const char *key, int64_t *out);
hl_status xp_fail(struct hl_error *err, hl_status st, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int64_t xp_now_ms(void);
/* The snapshot a run adds, as far as what it wrote says: snapshot_id at
 * now, over list_uri, with the run's files, records, bytes and partition
 * count, after metadata version `version` (0: none; its URI is written
 * into previous). The caller sets what its operation adds (operation,
 * removals, added rows, summary extras). */
/* Writes the manifest of the run's files under a new uuid (into uuid):
 * <location>/metadata/<uuid>-m0.avro, its URI into uri, its summary and
 * length. */
hl_status xp_write_manifest(struct exporter *x, const struct ice_manifest_spec *spec, char uuid[37],
                            char *uri, size_t uri_size, struct ice_manifest_summary *summary,
                            int64_t *len, struct hl_error *err);
hl_status xp_snapshot_add(const struct exporter *x, int64_t version, int64_t snapshot_id,
                          const char *list_uri, char *previous, size_t previous_size,
                          struct ice_snapshot_add *add, struct hl_error *err);

/* Moves b into x->batches and counts its rows; on failure (no memory) b
 * is released and -1 returned. */
int xp_add_batch(struct exporter *x, struct ArrowArray *b);

/* The _row_id column (ICE_FIELD_ROW_ID) joins x->table, after the columns
 * of the Iceberg schema xp_load_table made; with sequence, the
 * _last_updated_sequence_number column too. */
hl_status xp_add_lineage_columns(struct exporter *x, bool sequence, struct hl_error *err);
/* Appends a nullable long column to a Table object's columns. */
hl_status xp_info_add_long(json_t *info, const char *name, int64_t field_id, int ordinal,
                           struct hl_error *err);
/* Replaces child k of a batch by an int64 array whose nulls are filled:
 * first + step * row for the rows that have no value. Raises *max to the
 * largest value (max may be NULL). 0, or -1 (no memory). */
int xp_fill_long(struct ArrowArray *batch, int64_t k, int64_t first, int64_t step, int64_t *min,
                 int64_t *max);
/* The day of each row of b (a batch of x->schema's shape): null_day[r]
 * when it has none (or the table is unpartitioned), else day[r]. */
hl_status xp_row_days(struct exporter *x, const struct ArrowArray *b, bool *null_day, int32_t *day,
                      struct hl_error *err);

/* Remembers an object this run wrote; removes them all (they never became
 * part of the table). */
int xp_stage(struct exporter *x, const char *uri);
void xp_unstage(struct exporter *x);

/* Reads the table at the head: its definition, the day column, the lookup
 * key, and their Iceberg forms (schema, spec, sort order). */
hl_status xp_load_table(struct exporter *x, struct hl_error *err);
/* Makes the lookup key the default sort order of m (NULL: a table not
 * created yet, which starts with it) and records its order id as the one
 * the run's files are sorted by; once recorded, a different id (another
 * writer changed the orders meanwhile) is a conflict. */
hl_status xp_apply_sort_order(struct exporter *x, struct ice_meta *m, struct hl_error *err);
/* Puts every row of x->batches into its day's group (one group when
 * unpartitioned), groups in day order. */
hl_status xp_group_rows(struct exporter *x, struct hl_error *err);
/* Writes one group's rows, sorted by the lookup key, as one data file
 * (x->table is what it writes: its columns beyond the Iceberg schema's,
 * if any, are written but get no statistics). */
hl_status xp_write_group(struct exporter *x, struct day_group *g, struct hl_error *err);
/* Puts an Avro file this run made, never overwriting. */
hl_status xp_put_object(struct exporter *x, const char *uri, const struct buf *b,
                        struct hl_error *err);
/* The Iceberg table's current metadata (*version 0: none). */
hl_status xp_load_iceberg(struct exporter *x, struct ice_meta *m, int64_t *version,
                          struct hl_error *err);
void xp_span_layout(struct exporter *x, struct span *s);
/* Test-only (failpoint "iceberg-lost-race"): another writer commits the
 * version after `version` first. 0, or -1 when it could not. */
int xp_failpoint_rival(struct exporter *x, int64_t version);
void xp_exporter_free(struct exporter *x);

#endif
