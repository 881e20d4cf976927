/* Shared by the file read handlers (files.c: the listing and per-file
 * stats; scan.c: the scan plan; changes.c: the changefeed plan): resolving
 * the table and its definition at a snapshot, the DataFile and DeleteFile
 * response shapes, decoded bounds and pages. The statements behind them are
 * server/store/files.h's. */
#ifndef HL_SERVER_CATALOG_FILES_H
#define HL_SERVER_CATALOG_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lake/schema.h"
#include "server/catalog/catalog.h"
#include "server/db/pgarray.h"
#include "server/http/api.h"
#include "server/store/files.h"
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

/* ---- partition filters (?partition=K:V, repeatable, ANDed) ---- */

/* Splits a `key_index[:value]` query argument: the key index (0 to
 * INT32_MAX) and the text after the first colon (NULL without one). false
 * when the key index is not such a number. */
bool partition_arg_split(const char *arg, int64_t *key, const char **value);

struct partition_filters {
    struct pg_array keys, values;
    size_t n;
    bool first_is_null;
};
void partition_filters_init(struct partition_filters *f);
void partition_filters_free(struct partition_filters *f);
/* Every `partition` argument: `<key_index>:<value>` matches that stored
 * value exactly, `<key_index>` alone a NULL one; 400 on a malformed one or
 * past the cap (LAKE_MAX_SPEC_FIELDS). */
int partition_filters_parse(struct srv_req *req, struct partition_filters *f,
                            struct api_error *err);
/* The filters as the store takes them (no filter when none was given). */
int partition_filters_store(struct partition_filters *f, struct store_partition_filter *out,
                            struct api_error *err);

/* A stored bound (store_column_stats' bytea text) decoded as the column's
 * type (contract §6.1), or JSON null when there is none or it cannot be
 * decoded. A bound stored before a promotion (int -> long, uint16 ->
 * uint32, float -> double) is widened, and one re-encoded wider than a
 * snapshot's older type is narrowed when the value fits, so a time-travel
 * read still decodes it. Contains raw numbers: serialize with
 * jsonnum_dumps (the dispatcher does). */
json_t *file_bound_json(const struct lake_column *c, const uint8_t *bound, size_t len);

/* ---- page text ----
 *
 * A page is written as compact JSON text straight into one buffer, byte
 * for byte what json_dumps(JSON_COMPACT) prints for the same values: a
 * page of thousands of files would otherwise build and free a tree of
 * some thirty allocations per file. Writers take a member key (NULL for an
 * array element) and put the commas; a failure sticks in `bad`. */
struct page_text {
    struct buf out;
    bool first; /* the next member or element is its container's first */
    int bad;    /* out of memory, or a stored value that did not parse */
};

/* Bytes a page reserves per file up front. */
enum { PAGE_TEXT_PER_FILE = 320 };

void pt_init(struct page_text *w, size_t expect);
void pt_free(struct page_text *w);
/* The separator and "key": of the next member (no key: an element). */
void pt_key(struct page_text *w, const char *key);
/* Opens ('{' or '[') a member or element; pt_close ends it. */
void pt_open(struct page_text *w, const char *key, char bracket);
void pt_close(struct page_text *w, char bracket);
void pt_i64(struct page_text *w, const char *key, int64_t v);
void pt_bool(struct page_text *w, const char *key, bool v);
void pt_null(struct page_text *w, const char *key);
void pt_str(struct page_text *w, const char *key, const char *s);
/* A value through the exact serializer (raw numbers; see jsonnum.h);
 * NULL is a failure. The value stays the caller's. */
void pt_json(struct page_text *w, const char *key, const json_t *v);
/* Makes the text the 200 answer (500 when a write failed); frees w. */
int pt_respond(struct page_text *w, struct srv_res *res, struct api_error *err);

/* The DataFile members, inside an object the caller opened (so it can add
 * members). */
void data_file_members(struct page_text *w, const struct store_data_file *f);
/* The DeleteFile members, inside an object the caller opened. */
void delete_file_members(struct page_text *w, const struct store_delete_file *v);
/* A DeleteFile object. */
void delete_file_object(struct page_text *w, const char *key, const struct store_delete_file *v);

/* Sets a member, dropping the value when the object is NULL or the set
 * fails; returns -1 on failure so builders can count failures. */
int file_json_set(json_t *o, const char *key, json_t *value);

/* ---- pages (files, scan, changes) ----
 *
 * The three listings answer in pages of at most `limit` entries (default
 * PAGE_DEFAULT_LIMIT, at most --page-size-max) so that what one request
 * holds is bounded by the page, never by the table. A page that is not the
 * last carries next_page_token: an opaque token naming where the listing
 * resumes (the last entry's sort key, never an OFFSET) and what pins it
 * (the catalog, the table, the snapshot the first page read, a digest of
 * the listing's other query parameters). The client sends it back with
 * the first page's parameters unchanged; every page then reads the same
 * snapshot, however many commits land meanwhile.
 *
 * A token is hex text and is not secret: everything in it is checked
 * again against the request (400 bad_request when it does not belong to
 * it), and a made-up token can only name a position in a listing the
 * caller may read anyway. */

enum page_kind { PAGE_FILES = 1, PAGE_SCAN = 2, PAGE_CHANGES = 3 };

enum { PAGE_DEFAULT_LIMIT = 1000, PAGE_MAX_KEYS = 3, PAGE_DIGEST_BYTES = 8 };

struct page_token {
    uint8_t kind;    /* enum page_kind */
    uint8_t variant; /* what the keys mean: the files sort, the changes phase */
    int64_t catalog_id, table_id;
    int64_t snapshot; /* files, scan: the snapshot read; changes: the window's end */
    uint8_t digest[PAGE_DIGEST_BYTES];
    size_t nkeys;
    int64_t keys[PAGE_MAX_KEYS]; /* the last entry's sort key */
};

/* One page request: ?limit= and ?page_token=. */
struct page {
    int64_t limit;
    int64_t budget_bytes;              /* --page-bytes-max: see store_scan_query */
    bool resumed;                      /* a page_token was given: `from` holds it */
    struct page_token from;            /* decoded and checked against `kind` and the digest */
    uint8_t digest[PAGE_DIGEST_BYTES]; /* of this request's listing parameters */
};

/* Reads ?limit= (400 not an integer, 422 below 1, clamped to
 * --page-size-max) and ?page_token= (400 unless it is a token of `kind`
 * issued for these query parameters); the byte budget is the server's
 * --page-bytes-max. */
int page_parse(struct srv_req *req, enum page_kind kind, struct page *pg, struct api_error *err);
/* 400 unless the resumed token's keys are `variant` with nkeys keys. */
int page_expect_keys(const struct page *pg, uint8_t variant, size_t nkeys, struct api_error *err);
/* The snapshot a resumed listing reads (pg->resumed): the token's, checked
 * against the catalog (400 another catalog or past the head, 410 below the
 * expiry floor). */
int page_pinned_snapshot(const struct page *pg, const struct catalog_row *cat, int64_t *snapshot,
                         struct api_error *err);
/* 400 unless the resumed token was issued for this table incarnation. */
int page_check_table(const struct page *pg, int64_t table_id, struct api_error *err);
/* table_read_open for a paged listing: at the token's snapshot when
 * resuming, else as table_read_open resolves it. */
int table_read_open_page(struct srv_req *req, struct table_read *tr, const struct page *pg,
                         struct api_error *err);

/* A token for the page after this one, keys left for the caller. */
void page_token_next(struct page_token *t, const struct page *pg, enum page_kind kind,
                     int64_t catalog_id, int64_t table_id, int64_t snapshot);
/* The page's next_page_token member: the token, or null (the last page)
 * when t is NULL. */
void page_token_member(struct page_text *w, const struct page_token *t);

/* The page key of a data file in the order of the scan and changes pages:
 * (begin_snapshot, row_id_start, data_file_id). */
void data_file_page_key(const struct store_data_file *f, int64_t keys[3]);

#endif
