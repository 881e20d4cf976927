/* The files of a table as the readers see them: hog_data_file (with its
 * partition values, hog_file_partition_value), hog_delete_file (deletion
 * vectors) and the files' column statistics (hog_data_file.column_stats,
 * column_stats.h). It offers the statements behind the
 * file listing (GET .../files), one file's statistics, the scan plan (a
 * page of files with their vectors, then their statistics) and the
 * changefeed plan (the files and vectors appended inside a window). Writing
 * files stays with the commit and maintenance paths.
 *
 * Every query reads versioned rows through hog_visible() only. Pages hold
 * up to thousands of files, so their results are not copied: each is a
 * row view over the query's result (struct store_*_rows), read a row at a
 * time into a struct whose strings are borrowed from the rows and stay
 * valid until the rows are freed. A page reads one row past its limit,
 * which tells whether another page follows.
 *
 * A page is also bounded in bytes (a budget, --page-bytes-max): every
 * row weighs its paths and partition values, and whatever statistics or
 * split offsets it carries, as stored; the rows from the first whose
 * predecessors hold the budget come without them (their *_page_length
 * ends the page before them, never before the first row). */
#ifndef HL_SERVER_STORE_FILES_H
#define HL_SERVER_STORE_FILES_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/store/column_stats.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

/* The CTE every statement that deletes data file rows adds (expiry,
 * retirement), so their partition values go with them: no cascade does it
 * (migration 17). The statement's CTE `gone` returns the deleted rows'
 * data_file_id; $1 is the catalog. */
#define STORE_GONE_FILES_PARTITION_VALUES                                                          \
    " pv AS (DELETE FROM hog_file_partition_value p WHERE p.catalog_id = $1"                       \
    "   AND p.data_file_id = ANY(ARRAY(SELECT data_file_id FROM gone))),"

struct db_conn;

/* A data file; strings borrowed from its rows. */
struct store_data_file {
    int64_t data_file_id;
    const char *path;
    const char *file_format;
    int64_t record_count;
    int64_t file_size_bytes;
    int64_t row_id_start;
    const char *stats_state; /* "failed", "pending" or "provided" */
    int64_t begin_snapshot;
    bool has_footer_size;
    int64_t footer_size;
    bool has_spec_id;
    int64_t spec_id;
    const char *partition_values; /* JSON array text by key index; NULL: unpartitioned */
    bool explicit_row_ids;
};

/* A deletion vector; strings borrowed from its rows. */
struct store_delete_file {
    int64_t delete_file_id;
    int64_t data_file_id;
    const char *path;
    const char *file_format;
    int64_t delete_count;
    int64_t file_size_bytes;
    int64_t begin_snapshot;
};

/* One value of a page's keyset: text when `text` is set, else `num`. */
struct store_key {
    const char *text;
    int64_t num;
};

/* ---- the file listing ---- */

/* The listing's sorts (their values are part of page tokens: keep them).
 * data_file_id ends every sort, so the order is total. */
enum store_file_sort {
    STORE_FILES_BY_ID,
    STORE_FILES_BY_PATH, /* path in C collation, data_file_id */
    STORE_FILES_BY_RECORDS,
    STORE_FILES_BY_SIZE,
    STORE_FILES_BY_STATS, /* stats_state, data_file_id */
    STORE_FILES_BY_BEGIN, /* begin_snapshot, row_id_start, data_file_id */
};
/* How many keys the sort orders by. */
size_t store_files_sort_nkeys(enum store_file_sort sort);

/* Partition filters, ANDed: (key index, stored value) pairs as int[] and
 * text[] literals, a NULL value matching NULL. The first pair drives the
 * statement through hog_file_partition_value_in_table, so a filter costs
 * the files it matches rather than the table's. */
struct store_partition_filter {
    const char *keys, *values; /* NULL keys: no filter */
    bool first_is_null;        /* the first pair matches a NULL value */
};

struct store_files_query {
    int64_t catalog_id, table_id, snapshot;
    bool has_lead; /* each row carries this field's bounds (the sort order's lead) */
    int64_t lead_field_id;
    struct store_partition_filter partition;
    enum store_file_sort sort;
    bool desc;
    const struct store_key *after; /* the sort's keys to resume after; NULL: from the start */
    int64_t limit, offset;
    int64_t budget_bytes; /* the page's bytes: see store_file_rows_page_length */
};

/* Data files: listing and changefeed rows. */
struct store_file_rows {
    PGresult *r;
};
int store_file_rows_count(const struct store_file_rows *rows);
void store_file_row(const struct store_file_rows *rows, int i, struct store_data_file *out);
/* The lead field's statistics of a listing row (their bounds decoded into
 * scratch): 1, 0 when the file has none, -1 (ERR_CORRUPT). */
int store_file_row_lead(const struct store_file_rows *rows, int i, int64_t lead_field_id,
                        struct buf *scratch, struct store_column_stats *out, struct error *err);
/* How many listing or changefeed rows make the page: at most `limit`,
 * and none from the first whose files before it weigh the budget (that
 * row comes without its path, partition values and statistics); never
 * fewer than one of a non-empty result. */
int store_file_rows_page_length(const struct store_file_rows *rows, int64_t limit);
/* What the first n rows weigh against the budget. */
int64_t store_file_rows_weight(const struct store_file_rows *rows, int n);
void store_file_rows_free(struct store_file_rows *rows);

/* A page of the files visible at the snapshot, filtered and sorted (up to
 * limit + 1 rows, after `offset` of them). 0 or -1. */
int store_files_page(struct db_conn *db, const struct store_files_query *q,
                     struct store_file_rows *out, struct error *err);
/* The path of a file of the table visible at the snapshot (arena): 1, 0
 * when there is no such file, -1. */
int store_file_path(struct db_conn *db, struct arena *arena, int64_t catalog_id, int64_t table_id,
                    int64_t data_file_id, int64_t snapshot, const char **path, struct error *err);

/* ---- one file's statistics ---- */

/* The file's stats_state and statistics; no row when the table has no
 * such file at the snapshot. */
struct store_file_stats_rows {
    PGresult *r;
    struct buf bytes; /* the statistics, decoded */
};
int store_file_stats(struct db_conn *db, int64_t catalog_id, int64_t table_id, int64_t snapshot,
                     int64_t data_file_id, struct store_file_stats_rows *out, struct error *err);
bool store_file_stats_found(const struct store_file_stats_rows *rows);
/* The file's stats_state (found). */
const char *store_file_stats_state(const struct store_file_stats_rows *rows);
/* A reader over the file's statistics in field id order (found); the
 * bounds stay valid until the rows are freed. */
int store_file_stats_read(struct store_file_stats_rows *rows, struct store_column_stats_reader *rd,
                          struct error *err);
void store_file_stats_free(struct store_file_stats_rows *rows);

/* ---- the scan plan ---- */

struct store_scan_query {
    int64_t catalog_id, table_id, snapshot;
    struct store_partition_filter partition;
    bool column_stats, split_offsets;
    const int64_t *after; /* (begin_snapshot, row_id_start, data_file_id) to resume after */
    int64_t limit;
    int64_t budget_bytes; /* the page's bytes: see store_scan_rows_page_length */
};

/* The scan's rows: a data file, its split offsets when asked, the vector
 * visible at the snapshot and, with column statistics, the file's
 * statistics when they are provided. */
struct store_scan_rows {
    PGresult *r;
};
/* A page of the files visible at the snapshot in (begin_snapshot,
 * row_id_start, data_file_id) order, up to limit + 1 rows. 0 or -1. */
int store_files_page_scan(struct db_conn *db, const struct store_scan_query *q,
                          struct store_scan_rows *out, struct error *err);
int store_scan_rows_count(const struct store_scan_rows *rows);
void store_scan_row(const struct store_scan_rows *rows, int i, struct store_data_file *out);
const char *store_scan_row_stats_state(const struct store_scan_rows *rows, int i);
/* How many rows make the page: at most `limit`, and none from the first
 * whose files before it weigh the budget (their paths, partition values,
 * vectors' paths, and the statistics and split offsets asked: that row
 * comes without them); never fewer than one of a non-empty result. */
int store_scan_rows_page_length(const struct store_scan_rows *rows, int64_t limit);
/* The split offsets as a JSON array text; NULL when none or not asked. */
const char *store_scan_row_split_offsets(const struct store_scan_rows *rows, int i);
/* The deletion vector visible at the snapshot: false when there is none. */
bool store_scan_row_delete_file(const struct store_scan_rows *rows, int i,
                                struct store_delete_file *out);
/* A reader over the file's statistics, decoded into scratch (no columns
 * unless column statistics were asked and the file's are provided). */
int store_scan_row_stats(const struct store_scan_rows *rows, int i, struct buf *scratch,
                         struct store_column_stats_reader *rd, struct error *err);
void store_scan_rows_free(struct store_scan_rows *rows);

/* ---- the changefeed plan ---- */

/* What a changefeed page reads: the files and vectors of the table
 * appended in (from, to]. */
struct store_window {
    int64_t catalog_id, table_id, from, to;
};
/* Where a page of one of the window's listings starts and what it holds. */
struct store_window_page {
    const int64_t *after; /* the listing's keys to resume after; NULL: from the start */
    int64_t limit, budget_bytes;
};
/* The data files appended in the window but compaction outputs, in
 * (begin_snapshot, row_id_start, data_file_id) order after three keys, up
 * to limit + 1 rows (store_file_rows_page_length cuts the page). 0 or
 * -1. */
int store_files_page_changed(struct db_conn *db, const struct store_window *w,
                             const struct store_window_page *pg, struct store_file_rows *out,
                             struct error *err);

/* A deletion vector begun in the window, with what a reader needs to
 * tell what it deleted: the data file it deletes from, whatever that
 * file's state now (ended or not, appended before the window or in it, a
 * compaction output), and the vector it replaced on that file. */
struct store_changed_dv {
    struct store_delete_file dv;
    struct store_data_file target;
    bool has_superseded; /* false: the vector was its target's first */
    struct store_delete_file superseded;
};

/* Deletion vectors. */
struct store_dv_rows {
    PGresult *r;
};
/* The deletion vectors appended in the window, in (begin_snapshot,
 * delete_file_id) order after two keys, up to limit + 1 rows, each with
 * its target and the vector it superseded. 0 or -1. */
int store_files_page_changed_dvs(struct db_conn *db, const struct store_window *w,
                                 const struct store_window_page *pg, struct store_dv_rows *out,
                                 struct error *err);
int store_dv_rows_count(const struct store_dv_rows *rows);
/* store_file_rows_page_length for vectors: a row weighs its target's,
 * its own and its superseded vector's paths and the target's partition
 * values. */
int store_dv_rows_page_length(const struct store_dv_rows *rows, int64_t limit);
void store_dv_row(const struct store_dv_rows *rows, int i, struct store_changed_dv *out);
void store_dv_rows_free(struct store_dv_rows *rows);

#endif
