/* The store of the partition summary (migration 19): hog_summary, one row
 * per catalog saying which generation of buckets is published and where
 * the walk building the next one stands, and hog_summary_bucket, the live
 * files of each (table, partition spec, partition values) at a
 * generation's snapshot, counted and sized, with their compaction debt.
 *
 * The sampler (maintenance/summary.c) drives a walk a batch at a time;
 * GET .../stats/partitions reads the published generation. Functions run
 * inside the caller's transaction: they never begin, commit or roll
 * back. */
#ifndef HL_SERVER_STORE_SUMMARY_H
#define HL_SERVER_STORE_SUMMARY_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>

struct error;

/* Creates the catalog's summary row if it has none. */
int store_summary_ensure(PGconn *pg, int64_t catalog_id, struct error *err);

/* The summary row as a batch of the walk sees it, with the catalog's
 * snapshot range. */
struct store_summary_state {
    int64_t generation;
    bool scanning; /* a walk is in progress: */
    int64_t scan_snapshot, scan_after;
    bool published; /* a generation is published: */
    int64_t published_generation, published_snapshot;
    bool refresh_due; /* none published, or it is older than the refresh age */
    int64_t head_snapshot, earliest_snapshot;
};

/* Locks the catalog's summary row for this transaction unless another
 * holds it (SKIP LOCKED): 1 with *out filled, 0 when held elsewhere (or
 * the catalog is gone). refresh_s: the age at which a published
 * generation is due for a new walk. */
int store_summary_take(PGconn *pg, int64_t catalog_id, int64_t refresh_s,
                       struct store_summary_state *out, struct error *err);

/* Starts generation state->generation + 1 at `snapshot`, from the first
 * file; updates *state. */
int store_summary_start(PGconn *pg, int64_t catalog_id, int64_t snapshot,
                        struct store_summary_state *state, struct error *err);

/* Adds the next `batch` files of the walk (in data_file_id order, past
 * state->scan_after, live at state->scan_snapshot in a table live there)
 * into the generation's buckets; files under small_bytes count as small.
 * *files how many were added and *last_id the last one's id (unchanged
 * when none). Does not move the walk's position. */
int store_summary_add(PGconn *pg, int64_t catalog_id, const struct store_summary_state *state,
                      int64_t batch, int64_t small_bytes, int64_t *files, int64_t *last_id,
                      struct error *err);

/* How many file and deletion-vector rows changed between the published
 * snapshot and the head (each of the three counts stopped at `bound`). */
int store_summary_changes_size(PGconn *pg, int64_t catalog_id,
                               const struct store_summary_state *state, int64_t bound,
                               int64_t *rows, struct error *err);
/* Brings the published generation from its snapshot to the head by the
 * changes in between (files added and ended, deletion vectors, tables
 * dropped or altered) and publishes it at the head. *rows: the changed
 * rows applied. *consistent false: the changes did not fit the published
 * counts, or expiry moved the floor past the published snapshot meanwhile;
 * what was applied must be rolled back and the catalog walked again. Needs
 * the floor at or below the published snapshot. */
int store_summary_apply_changes(PGconn *pg, int64_t catalog_id,
                                const struct store_summary_state *state, int64_t small_bytes,
                                int64_t *rows, bool *consistent, struct error *err);

/* Moves the walk past data file `last_id`. */
int store_summary_advance(PGconn *pg, int64_t catalog_id, int64_t last_id, struct error *err);

/* Publishes the walked generation (state->generation): its totals, its
 * snapshot and times; no walk is in progress after. */
int store_summary_publish(PGconn *pg, int64_t catalog_id, const struct store_summary_state *state,
                          struct error *err);

/* Deletes up to `limit` buckets of generations neither published nor
 * being built (state as taken, before any change in this transaction);
 * *purged how many. */
int store_summary_purge(PGconn *pg, int64_t catalog_id, const struct store_summary_state *state,
                        int64_t limit, int64_t *purged, struct error *err);

/* What /maintenance/status and the report say about a catalog's summary. */
struct store_summary_info {
    bool published;
    int64_t generation, snapshot;
    int64_t started_us, published_us; /* the published walk's start and end */
    int64_t live_files, live_bytes, live_rows, buckets, stale_spec_buckets;
    bool scanning;
    int64_t scan_snapshot, scan_started_us;
};
/* 0 with *out filled (all false when the catalog was never sampled), or
 * -1. */
int store_summary_info(PGconn *pg, int64_t catalog_id, struct store_summary_info *out,
                       struct error *err);

/* The report's rows: the published generation's buckets with debt, most
 * first, of tables live at head (optionally of one namespace or one
 * table). */
struct store_summary_debt_query {
    int64_t catalog_id, generation;
    int64_t namespace_id; /* 0: every namespace */
    int64_t table_id;     /* 0: every table */
    int64_t limit;
};
struct store_summary_debt_rows {
    PGresult *r;
};
int store_summary_debt(PGconn *pg, const struct store_summary_debt_query *q,
                       struct store_summary_debt_rows *out, struct error *err);
int store_summary_debt_count(const struct store_summary_debt_rows *v);
const char *store_summary_debt_namespace(const struct store_summary_debt_rows *v, int i);
const char *store_summary_debt_table(const struct store_summary_debt_rows *v, int i);
const char *store_summary_debt_table_uuid(const struct store_summary_debt_rows *v, int i);
/* -1: the files have no partition spec. */
int64_t store_summary_debt_spec_id(const struct store_summary_debt_rows *v, int i);
/* The partition values as a JSON array text (strings and nulls). */
const char *store_summary_debt_values_json(const struct store_summary_debt_rows *v, int i);
bool store_summary_debt_stale_spec(const struct store_summary_debt_rows *v, int i);
enum store_summary_measure {
    SUMMARY_FILES,
    SUMMARY_SMALL_FILES,
    SUMMARY_TOTAL_BYTES,
    SUMMARY_SMALL_BYTES,
    SUMMARY_DVS,
    SUMMARY_RECORDS,
    SUMMARY_LAST_WRITTEN,
    SUMMARY_DEBT,
};
int64_t store_summary_debt_measure(const struct store_summary_debt_rows *v, int i,
                                   enum store_summary_measure m);
void store_summary_debt_free(struct store_summary_debt_rows *v);

/* One table's partitions in the published generation, for the listing:
 * ordered by `sort` (then spec and values, so pages never overlap), with
 * filters on values: each key_index's value starts with the prefix, case
 * aside (a NULL prefix: the value is NULL). Rows are read as the debt
 * report's (store_summary_debt_*), with the namespace, table and uuid
 * columns NULL. */
enum store_summary_sort {
    SUMMARY_SORT_PARTITION,
    SUMMARY_SORT_FILES,
    SUMMARY_SORT_SMALL_FILES,
    SUMMARY_SORT_DEBT,
    SUMMARY_SORT_TOTAL_SIZE,
    SUMMARY_SORT_AVG_SIZE,
    SUMMARY_SORT_DVS,
    SUMMARY_SORT_ROWS,
    SUMMARY_SORT_LAST_WRITTEN,
};
struct store_summary_listing {
    int64_t catalog_id, generation, table_id;
    enum store_summary_sort sort;
    bool desc;
    int64_t limit, offset;
    const char *filter_keys;     /* int[] literal, NULL: no filter */
    const char *filter_prefixes; /* text[] literal, parallel to the keys */
};
int store_summary_partitions(PGconn *pg, const struct store_summary_listing *q,
                             struct store_summary_debt_rows *out, struct error *err);
/* How many of the table's partitions pass the listing's filters. */
int store_summary_partitions_total(PGconn *pg, const struct store_summary_listing *q,
                                   int64_t *total, struct error *err);

/* The buckets of the published generation with a stale spec, of one
 * namespace or one table (as in the query; both 0 is the catalog's
 * stored count, which store_summary_info gives). */
int store_summary_stale_count(PGconn *pg, const struct store_summary_debt_query *q, int64_t *count,
                              struct error *err);

#endif
