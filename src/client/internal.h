/* What libhoglake's modules share: the handles' layouts, error helpers and
 * the JSON request helpers. Not installed. */
#ifndef HL_CLIENT_INTERNAL_H
#define HL_CLIENT_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>

#include "hoglake/hoglake.h"
#include "util/buf.h"

struct objstore;

struct hl_client {
    char *base; /* server URL without a trailing slash */
    long timeout_ms;
    long connect_timeout_ms;
    /* Object store settings (copied strings; NULL = the environment's). */
    char *s3_endpoint, *s3_region, *s3_access_key, *s3_secret_key, *s3_session_token;
    int storage_retries;
    unsigned upload_flags;      /* objstore put flags of data objects (streaming_uploads) */
    int read_threads;           /* hl_client_options.read_threads */
    char *auth_header;          /* "Authorization: Bearer <token>", NULL = none; wiped on free */
    char *ca_file;              /* NULL = the system's authorities */
    pthread_mutex_t store_lock; /* guards the lazy opening of store */
    struct objstore *store;
    /* The caller's log (hl_client_options); NULL: the library is silent. */
    hl_log_fn log;
    void *log_ctx;
    hl_log_level log_level;
};

struct hl_catalog {
    hl_client *client;
    char *name;
    char *data_path;
    /* The retention the writer cache ages against, read once (see
     * writer_cache.c). */
    pthread_mutex_t lock;
    bool retention_known;
    double retention_seconds;   /* INFINITY when retention is disabled */
    double retention_failed_at; /* monotonic seconds; 0 = never failed */
};

struct hl_namespace {
    hl_catalog *catalog;
    char *name;
};

struct hl_table {
    hl_namespace *ns;
    char *name;
    char *uuid;           /* the incarnation the handle was resolved as */
    int64_t ddl_snapshot; /* -1: none */
    /* The writer cache: the last head read of the table and the snapshot
     * it resolved at, with when it was read. */
    pthread_mutex_t lock;
    json_t *cached_info; /* TableInfo; NULL = empty */
    int64_t cached_read_snapshot;
    double cached_at; /* monotonic seconds */
};

/* Fills err (when not NULL) and returns status. */
hl_status client_fail(struct hl_error *err, hl_status status, const char *code, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
hl_status client_nomem(struct hl_error *err);
/* Prefixes err's message with context ("uploading x: ..."). */
void client_error_prefix(struct hl_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Monotonic seconds. */
double client_now(void);

/* Appends "/<segment>" percent-encoded. 0 or -1 (out of memory). */
int client_path_seg(struct buf *path, const char *segment);
/* "/v1/catalogs/<c>[/namespaces/<ns>[/tables/<t>]]" into path. */
int client_catalog_path(struct buf *path, const hl_catalog *c);
int client_namespace_path(struct buf *path, const hl_namespace *ns);
int client_table_path(struct buf *path, const hl_table *t);
/* Appends time travel query parameters ("?snapshot=N", "&at_timestamp=...")
 * given whether the path has a query already. */
int client_query_at(struct buf *path, const struct hl_at *at, bool *has_query);
/* Validates at: at most one of its two settings. */
hl_status client_check_at(const struct hl_at *at, struct hl_error *err);

/* Sends a request whose answer is JSON: *out (may be NULL) gets the parsed
 * document (a new reference). An unparseable answer is HL_ERR_PROTOCOL. */
hl_status client_json(hl_client *c, const char *method, const char *path, const json_t *body,
                      json_t **out, struct hl_error *err);
/* Sends a request on a path the caller built (freed here) and hands back
 * the answer's text (json may be NULL: the answer is dropped). */
hl_status client_request_text(hl_client *c, const char *method, struct buf *path,
                              const json_t *body, char **json, struct hl_error *err);
/* A GET of path as of `at` (checked; its query appended). Frees path. */
hl_status client_get_at(hl_client *c, struct buf *path, const struct hl_at *at, char **json,
                        struct hl_error *err);
/* Reads an int64 member; false when missing or not an integer. */
bool client_json_int(const json_t *obj, const char *key, int64_t *out);

/* Opens (once) and returns the client's object store. */
hl_status client_store(hl_client *c, struct objstore **out, struct hl_error *err);
void client_store_free(hl_client *c);

/* Streams the rows of `plan` (ScanFile objects: {"data_file": {"path",
 * "file_size_bytes"}}; owned from here, freed whatever the outcome) with
 * the table as `info` (a Table object) describes it: files' columns matched
 * by field id, absent ones read as nulls (scan.c). A file of another size
 * than file_size_bytes is refused. */
/* Reads deletion vector `dv` (a DeleteFile of a plan) of data file `path`
 * (of `rows` rows) into *out (scan.c). The catalog's delete_count must be
 * the vector's: a Puffin file that disagrees with the catalog is not
 * trusted (HL_ERR_IO, corrupt_delete_file). */
struct lake_dv;
struct objstore;
hl_status client_dv_load(struct objstore *store, const json_t *dv, const char *path, uint64_t rows,
                         struct lake_dv *out, struct hl_error *err);
/* The scan entries of a changefeed window's ChangePlan (changes_plan.c):
 * {data_file, change "insert"|"delete", delete_file?,
 * baseline_delete_file?}, the inserts first. */
hl_status client_changes_plan(const json_t *changes, json_t **plan, struct hl_error *err);
hl_status client_scan_plan(hl_table *t, const json_t *info, json_t *plan,
                           struct ArrowArrayStream *out, struct hl_error *err);

/* One page of a table's scan plan as `at` names it (table.c), its files'
 * column_stats included when with_stats: *files is its ScanFile array (a
 * new reference), *next_page_token (malloc'd) the token of the page after
 * it, NULL on the last. */
hl_status client_plan_page(hl_table *t, const struct hl_at *at, bool with_stats,
                           const char *page_token, json_t **files, char **next_page_token,
                           struct hl_error *err);

/* hl_table_info's Table object, parsed (*info: a new reference; table.c). */
hl_status table_info_doc(hl_table *t, const struct hl_at *at, json_t **info, struct hl_error *err);

/* The writer cache (writer_cache.c). */
void table_cache_adopt(hl_table *t, json_t *info);
void table_cache_clear(hl_table *t);
/* The cached Table object while it is fresh (a new reference), else NULL. */
json_t *table_cache_fresh(hl_table *t);
/* The table's info and the read snapshot to prepare against: from the
 * cache when it is fresh (no request), else a catalog GET and a table GET
 * (totals=false). The uuid must match expected_uuid or the call fails with
 * HL_ERR_TABLE_RECREATED; NULL checks none (an unguarded append resolves
 * the name: a cold read adopts whatever incarnation it finds, so that a
 * later guarded call refuses it). *info is a new reference. */
hl_status table_cache_basis(hl_table *t, const char *expected_uuid, json_t **info,
                            int64_t *read_snapshot, bool *from_cache, struct hl_error *err);
/* The same from a fresh read, whatever the cache holds (which adopts it). */
hl_status table_fresh_basis(hl_table *t, const char *expected_uuid, json_t **info,
                            int64_t *read_snapshot, struct hl_error *err);
/* The layout (columns, partition spec, sort order) of a Table object equals
 * the caller's, else HL_ERR_DDL_SINCE_READ naming what differs
 * (layout.c). */
hl_status client_layout_check(const json_t *info, const struct hl_table_details *expected,
                              struct hl_error *err);
/* A Table object decoded (table_details.c). */
hl_status client_details_decode(const json_t *doc, struct hl_table_details *out,
                                struct hl_error *err);
/* A commit made against a basis was refused: drops the cache when the
 * refusal says re-prepare, or when a non-retryable refusal hit a cached
 * basis. */
void table_cache_after_refusal(hl_table *t, const struct hl_error *err, bool basis_from_cache);
/* Forgets the catalog's retention (after a 410 or a change of it). */
void catalog_forget_retention(hl_catalog *c);

/* Shredding declarations in ColumnDefs (client/shredding.c): those of the
 * columns (a JSON array; parent: the dotted path they are added under,
 * NULL at the top) checked as the server checks them, HL_ERR_VALIDATION in
 * its words. */
hl_status client_check_columns(const json_t *columns, const char *parent, struct hl_error *err);
/* Refuses (HL_ERR_INVALID_ARGUMENT, naming `what` and the path) a string
 * holding a NUL or, when lone (jsonx_loadb_lenient met one), a lone
 * surrogate's stand-in: the request could not carry either. */
hl_status client_check_unstorable(const json_t *v, bool lone, const char *what,
                                  struct hl_error *err);

#endif
