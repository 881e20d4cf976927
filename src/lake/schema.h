/* A table's definition in memory: its column tree, partition spec, sort
 * order, name, comment, properties and primary timestamp column, with the
 * rules for building it from client JSON and for changing it by alter ops.
 *
 * The model is loaded from the catalog (or built from a create request),
 * edited by lake_table_apply_op(), and then written back by the caller, who
 * uses the change flags to end and insert exactly the versioned rows that
 * changed.
 *
 * Memory: every node and string lives in the arena passed at init; json
 * values held by the table (properties, comments) are owned references
 * released by lake_table_release(). Not thread-safe. */
#ifndef HL_LAKE_SCHEMA_H
#define HL_LAKE_SCHEMA_H

/* Reserved field ids, above any a table assigns. A data file that keeps its
 * rows' ids (compaction outputs, updates: explicit_row_ids) holds them in a
 * required long column _hog_row_id; the changefeed's stream adds _row_id
 * (the same id) and _change_type, which exist only client-side. */
#define LAKE_ROW_ID_FIELD_ID ((int64_t)2147483646)
#define LAKE_ROW_ID_COLUMN "_hog_row_id"
#define LAKE_CHANGE_TYPE_FIELD_ID ((int64_t)2147483000)

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lake/transform.h"
#include "lake/types.h"
#include "util/arena.h"
#include "util/error.h"

enum {
    LAKE_MAX_DEPTH = 8,
    LAKE_MAX_NODES = 10000,
    LAKE_MAX_SPEC_FIELDS = 64,
    LAKE_MAX_ALTER_OPS = 1000,
    LAKE_DECIMAL_MAX_PRECISION = 38
};

struct lake_column {
    int64_t field_id;
    const char *name;
    enum lake_type type;
    int precision, scale; /* decimal only */
    /* A top-level variant column's shredding declaration, as compact JSON
     * text (lake/shredding.h); NULL when it declares none. */
    const char *shredding;
    /* A variant storage leaf of type timestamp_ns that holds instants (a
     * timestamptz_ns declaration): written adjusted to UTC. Catalog
     * columns never set it. */
    bool instant;
    bool nullable;
    const char *comment;        /* NULL = none */
    int ordinal;                /* among siblings */
    struct lake_column *parent; /* NULL for top-level columns */
    struct lake_column **children;
    size_t nchildren, children_cap;
    /* Change tracking. `stored`: a live row exists in the catalog.
     * `changed`: that row must be ended and a new version inserted. */
    bool stored;
    bool changed;
};

struct lake_partition_field {
    int64_t source_field_id;
    enum lake_transform transform;
    int32_t param; /* bucket N / truncate W; 0 otherwise */
};

struct lake_sort_field {
    int64_t source_field_id;
    bool descending;
    bool nulls_first;
};

struct lake_table {
    struct arena *arena;
    struct lake_column root; /* pseudo-struct holding the top-level columns */
    int64_t next_field_id;
    size_t node_count;

    const char *name;
    const char *comment; /* NULL = none */
    json_t *properties;  /* owned; an object of string values */
    /* Field id of the primary timestamp column (a top-level date or
     * timestamp column the Iceberg export partitions by day), 0 = none.
     * Kept by field id so a rename carries it; dropping it is refused. */
    int64_t primary_ts_field_id;

    bool partitioned;
    int64_t spec_id; /* live spec id when partitioned */
    struct lake_partition_field *spec_fields;
    size_t nspec_fields;

    bool sorted;
    int64_t sort_id;
    struct lake_sort_field *sort_fields;
    size_t nsort_fields;

    /* Facts about the table's files, supplied by the loader: adding or
     * renaming columns is refused while a live file may bind columns by
     * name, and a required column cannot be added over existing files. */
    int64_t live_files;
    int64_t idless_files;  /* live files lacking Parquet field ids */
    int64_t pending_files; /* live files whose stats (and ids) are not hydrated */

    /* Change flags set by lake_table_apply_op(). */
    bool name_changed, comment_changed, properties_changed, spec_changed, sort_changed;
    bool primary_ts_changed;
    int64_t *ended_field_ids; /* stored columns dropped by the ops */
    size_t nended, ended_cap;
};

void lake_table_init(struct lake_table *t, struct arena *arena);
void lake_table_release(struct lake_table *t);

/* Builds top-level columns from a create request's `columns` array. Ids are
 * assigned depth-first from t->next_field_id. */
int lake_table_add_columns(struct lake_table *t, const json_t *columns, struct error *err);

/* Loader entry: attaches one stored column row. Rows must arrive parents
 * first (field ids ascending does that, since parent ids are lower). */
int lake_table_load_column(struct lake_table *t, int64_t field_id, int64_t parent_field_id,
                           const char *name, enum lake_type type, int precision, int scale,
                           bool nullable, int ordinal, const char *comment, struct error *err);
/* Gives the loaded column field_id its stored shredding declaration
 * (checked again: a stored one the grammar refuses is ERR_INVALID). */
int lake_table_load_shredding(struct lake_table *t, int64_t field_id, const json_t *decl,
                              struct error *err);
/* Loader entries for the live partition spec and sort order. */
int lake_table_load_partition_field(struct lake_table *t, const struct lake_partition_field *f,
                                    struct error *err);
int lake_table_load_sort_field(struct lake_table *t, const struct lake_sort_field *f,
                               struct error *err);
/* Loader entry for the stored primary timestamp field id (after the
 * columns): refuses an id that is not a live column. */
int lake_table_load_primary_ts(struct lake_table *t, int64_t field_id, struct error *err);

/* Applies one alter op object against the current state. */
int lake_table_apply_op(struct lake_table *t, const json_t *op, struct error *err);
/* Validates an alter request's `ops` array and applies each op in order. */
int lake_table_apply_ops(struct lake_table *t, const json_t *ops, struct error *err);

/* Finds a column by dotted path through structs ("addr.zip"). */
struct lake_column *lake_table_find_path(struct lake_table *t, const char *path, struct error *err);
struct lake_column *lake_table_find_field(const struct lake_table *t, int64_t field_id);
/* "addr.zip" for a column; written into out. */
void lake_column_path(const struct lake_column *c, char *out, size_t out_size);

/* Visits every column depth-first (parents before children). */
typedef void (*lake_column_visit_fn)(struct lake_column *c, void *ctx);
void lake_table_walk(struct lake_table *t, lake_column_visit_fn fn, void *ctx);

/* Response shapes. New references; NULL when memory runs out. */
json_t *lake_columns_to_json(const struct lake_table *t);
json_t *lake_partition_spec_to_json(const struct lake_table *t); /* NULL if unpartitioned */
json_t *lake_sort_spec_to_json(const struct lake_table *t);      /* NULL if unsorted */
/* The primary timestamp column's current name, or NULL when none. */
const char *lake_table_primary_ts_name(const struct lake_table *t);
/* The stored type_params of a column ({"precision":P,"scale":S} for
 * decimal), or NULL for none. New reference. */
json_t *lake_column_type_params(const struct lake_column *c);

#endif
