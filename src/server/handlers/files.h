/* Shared by the file read handlers (files.c: the listing and per-file
 * stats; scan.c: the scan plan; changes.c: the changefeed plan): resolving
 * the table and its definition at a snapshot, the DataFile and DeleteFile
 * response shapes, and decoded bounds.
 *
 * Every query here reads versioned rows through hog_visible() only. */
#ifndef HL_SERVER_HANDLERS_FILES_H
#define HL_SERVER_HANDLERS_FILES_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lake/schema.h"
#include "server/api.h"
#include "server/catalog.h"
#include "util/buf.h"

struct field_slot {
    int64_t field_id;
    const struct lake_column *col;
};

/* A table as one read sees it: the catalog, the resolved snapshot, the
 * table's identity and its definition (columns, spec, sort order) at that
 * snapshot, with the columns indexed by field id. */
struct table_read {
    struct catalog_row cat;
    int64_t snapshot;
    bool time_travel; /* the snapshot was asked for (messages name it) */
    struct table_ref ref;
    struct lake_table t;
    bool loaded;               /* t holds references to release */
    struct field_slot *fields; /* sorted by field_id, request arena */
    size_t nfields;
};

/* Loads the catalog (path parameter 0), resolves ?snapshot=/?at_timestamp=
 * (400/422/410), then the namespace (parameter 1) and table (parameter 2)
 * visible at that snapshot (404) and the definition there. */
int table_read_open(struct srv_req *req, struct table_read *tr, struct api_error *err);
/* The same from namespace resolution on, at an explicit snapshot, for a
 * caller that has already loaded tr->cat. */
int table_read_open_at(struct srv_req *req, struct table_read *tr, int64_t snapshot,
                       bool time_travel, struct api_error *err);
void table_read_release(struct table_read *tr);
/* The column with this field id in the definition at the snapshot, or NULL. */
const struct lake_column *table_read_field(const struct table_read *tr, int64_t field_id);

/* Decodes the text form of a bytea result value ("\x..." hex, or the
 * escape form) into scratch. NULL for SQL NULL or an unreadable value. */
const uint8_t *file_bytea(const PGresult *r, int row, int col, struct buf *scratch, size_t *len);

/* A stored bound (the bytea result value at row/col) decoded as the
 * column's type (contract §6.1), or JSON null when there is none or it
 * cannot be decoded. A bound stored before a promotion (int -> long,
 * uint16 -> uint32, float -> double) is widened, and one re-encoded wider
 * than a snapshot's older type is narrowed when the value fits, so a
 * time-travel read still decodes it. Contains raw numbers: serialize with
 * jsonnum_dumps (the dispatcher does). */
json_t *file_bound_json(const struct lake_column *c, const PGresult *r, int row, int col,
                        struct buf *scratch);

/* The DataFile columns of `hog_data_file d`, in the order data_file_json
 * reads them. */
#define DATA_FILE_COLUMNS                                                                          \
    "d.data_file_id, d.path, d.file_format, d.record_count, d.file_size_bytes,"                    \
    " d.row_id_start, d.stats_state, d.begin_snapshot, d.footer_size, d.spec_id,"                  \
    " d.explicit_row_ids,"                                                                         \
    " CASE WHEN d.spec_id IS NULL THEN NULL ELSE (SELECT json_agg(pv.value ORDER BY"               \
    "  pv.key_index)::text FROM hog_file_partition_value pv WHERE pv.catalog_id = d.catalog_id"    \
    "  AND pv.data_file_id = d.data_file_id) END"
enum { DATA_FILE_NCOLS = 12 };

/* The DeleteFile columns of a hog_delete_file alias, in the order
 * delete_file_json reads them. */
#define DELETE_FILE_COLUMNS(a)                                                                     \
    a ".delete_file_id, " a ".data_file_id, " a ".path, " a ".file_format, " a ".delete_count, " a \
      ".file_size_bytes, " a ".begin_snapshot"
enum { DELETE_FILE_NCOLS = 7 };

/* Field positions of DATA_FILE_COLUMNS, for callers that need them. */
enum {
    DF_ID = 0,
    DF_RECORDS = 3,
    DF_ROW_ID_START = 5,
    DF_STATS_STATE = 6,
    DF_EXPLICIT_ROW_IDS = 10
};

/* DataFile from the DATA_FILE_COLUMNS starting at col0. New reference. */
json_t *data_file_json(const PGresult *r, int row, int col0);
/* DeleteFile from the DELETE_FILE_COLUMNS starting at col0; NULL (no
 * object) when the row has none (a LEFT JOIN miss). */
json_t *delete_file_json(const PGresult *r, int row, int col0);

/* Sets a member, dropping the value when the object is NULL or the set
 * fails; returns -1 on failure so builders can count failures. */
int file_json_set(json_t *o, const char *key, json_t *value);

#endif
