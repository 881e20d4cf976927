/* The files of a table as the readers see them: hog_data_file (with its
 * partition values, hog_file_partition_value), hog_delete_file (deletion
 * vectors) and hog_file_column_stats. It offers the statements behind the
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
 * which tells whether another page follows. */
#ifndef HL_SERVER_STORE_FILES_H
#define HL_SERVER_STORE_FILES_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

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

/* One column's statistics in one file; strings borrowed from its rows.
 * Bounds are in the database's bytea text form (store_files_decode_bound decodes
 * them), NULL when there is none. */
struct store_column_stats {
    int64_t data_file_id;
    int64_t field_id;
    int64_t value_count;
    int64_t null_count;
    bool has_nan_count;
    int64_t nan_count;
    bool has_size_bytes; /* store_file_stats rows only */
    int64_t size_bytes;
    const char *lower_bound;
    const char *upper_bound;
};

/* Decodes a bound's bytea text into scratch: the bytes (n in *len), or
 * NULL for no bound or an unreadable value. */
const uint8_t *store_files_decode_bound(const char *text, struct buf *scratch, size_t *len);

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
 * statement through hog_file_partition_value_lookup, so a filter costs
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
};

/* Data files: listing and changefeed rows. */
struct store_file_rows {
    PGresult *r;
};
int store_file_rows_count(const struct store_file_rows *rows);
void store_file_row(const struct store_file_rows *rows, int i, struct store_data_file *out);
/* The lead field's bounds of a listing row (bytea text, NULL: none). */
const char *store_file_row_lower_bound(const struct store_file_rows *rows, int i);
const char *store_file_row_upper_bound(const struct store_file_rows *rows, int i);
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

/* The file's row joined to its statistics rows, ordered by field id: no
 * rows when the table has no such file at the snapshot; one row without
 * statistics (store_file_stats_row false) when the file has none. */
struct store_file_stats_rows {
    PGresult *r;
};
int store_file_stats(struct db_conn *db, int64_t catalog_id, int64_t table_id, int64_t snapshot,
                     int64_t data_file_id, struct store_file_stats_rows *out, struct error *err);
int store_file_stats_count(const struct store_file_stats_rows *rows);
/* The file's stats_state (rows not empty). */
const char *store_file_stats_state(const struct store_file_stats_rows *rows);
/* Row i's statistics; false for the row of a file without any. */
bool store_file_stats_row(const struct store_file_stats_rows *rows, int i,
                          struct store_column_stats *out);
void store_file_stats_free(struct store_file_stats_rows *rows);

/* ---- the scan plan ---- */

/* The two statements of a page with statistics (store_files_page_scan and
 * the statistics read) agree when the caller runs them in one
 * db_begin_read_snapshot transaction. */
struct store_scan_query {
    int64_t catalog_id, table_id, snapshot;
    struct store_partition_filter partition;
    const char *stats_fields; /* bigint[] literal of the field ids asked for; NULL: all */
    bool column_stats, split_offsets;
    const int64_t *after; /* (begin_snapshot, row_id_start, data_file_id) to resume after */
    int64_t limit;
};

/* The scan's rows: a data file, its split offsets when asked, the vector
 * visible at the snapshot and, with column statistics, how many
 * statistics rows the file has for the fields asked. */
struct store_scan_rows {
    PGresult *r;
};
/* A page of the files visible at the snapshot in (begin_snapshot,
 * row_id_start, data_file_id) order, up to limit + 1 rows. 0 or -1. */
int store_files_page_scan(struct db_conn *db, const struct store_scan_query *q,
                          struct store_scan_rows *out, struct error *err);
int store_scan_rows_count(const struct store_scan_rows *rows);
void store_scan_row(const struct store_scan_rows *rows, int i, struct store_data_file *out);
int64_t store_scan_row_file_id(const struct store_scan_rows *rows, int i);
const char *store_scan_row_stats_state(const struct store_scan_rows *rows, int i);
/* The split offsets as a JSON array text; NULL when none or not asked. */
const char *store_scan_row_split_offsets(const struct store_scan_rows *rows, int i);
/* The deletion vector visible at the snapshot: false when there is none. */
bool store_scan_row_delete_file(const struct store_scan_rows *rows, int i,
                                struct store_delete_file *out);
/* The file's statistics rows for the fields asked (0 unless column
 * statistics were asked and the file's are provided). */
int64_t store_scan_row_nstats(const struct store_scan_rows *rows, int i);
void store_scan_rows_free(struct store_scan_rows *rows);

/* The statistics of the files in `file_ids` (a bigint[] literal), only
 * of `fields` (a bigint[] literal; NULL: all), ordered by (data_file_id,
 * field_id). */
struct store_stats_rows {
    PGresult *r;
};
int store_files_scan_stats(struct db_conn *db, int64_t catalog_id, const char *file_ids,
                           const char *fields, struct store_stats_rows *out, struct error *err);
int store_stats_rows_count(const struct store_stats_rows *rows);
void store_stats_row(const struct store_stats_rows *rows, int i, struct store_column_stats *out);
void store_stats_rows_free(struct store_stats_rows *rows);

/* ---- the changefeed plan ---- */

/* What a changefeed page reads: the files and vectors of the table
 * appended in (from, to]. */
struct store_window {
    int64_t catalog_id, table_id, from, to;
};
/* The data files appended in the window but compaction outputs, in
 * (begin_snapshot, row_id_start, data_file_id) order after `after` (three
 * keys; NULL: from the start), up to limit + 1 rows. 0 or -1. */
int store_files_page_changed(struct db_conn *db, const struct store_window *w, const int64_t *after,
                             int64_t limit, struct store_file_rows *out, struct error *err);

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
 * delete_file_id) order after `after` (two keys; NULL: from the start),
 * up to limit + 1 rows, each with its target and the vector it
 * superseded. 0 or -1. */
int store_files_page_changed_dvs(struct db_conn *db, const struct store_window *w,
                                 const int64_t *after, int64_t limit, struct store_dv_rows *out,
                                 struct error *err);
int store_dv_rows_count(const struct store_dv_rows *rows);
void store_dv_row(const struct store_dv_rows *rows, int i, struct store_changed_dv *out);
void store_dv_rows_free(struct store_dv_rows *rows);

#endif
