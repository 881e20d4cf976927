/* libhoglake: the C client of a hoglake catalog server.
 *
 * This header is the library's public API. Every function returns an
 * hl_status (include/hoglake/error.h) and, on failure, fills a caller-owned
 * struct hl_error; nothing is allocated on the error path.
 *
 * Handles: a client (server URL, object store, timeouts), and from it a
 * catalog, a namespace and a table. A handle borrows its parent: free
 * tables before their namespace, namespaces before their catalog, and the
 * catalog before the client.
 *
 * Thread-safety: an hl_client and an hl_catalog may be shared by threads.
 * An hl_table may be shared too (its writer cache is locked), and so may an
 * hl_namespace. Each call uses its own connection state.
 *
 * Ownership: strings and results returned to the caller are the caller's
 * (free() strings; results have their own _free functions). Inputs are
 * borrowed for the duration of the call unless a function says otherwise.
 *
 * Metadata reads (lists, infos, file lists, scan plans, change plans)
 * return the server's JSON text as documented in docs/openapi.yaml. The
 * writer path returns typed results, as do the file listing, the Table
 * object, the catalog settings and the maintenance passes. */
#ifndef HOGLAKE_H
#define HOGLAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "hoglake/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hl_client hl_client;
typedef struct hl_catalog hl_catalog;
typedef struct hl_namespace hl_namespace;
typedef struct hl_table hl_table;

/* ---- the client ---- */

/* How much the library says: a level passes when it is at least as severe
 * as hl_client_options.log_level. */
typedef enum {
    HL_LOG_ERROR = 1,
    HL_LOG_WARN = 2, /* the default: a storage request retried, an upload not cleaned up */
    HL_LOG_INFO = 3,
    HL_LOG_DEBUG = 4,
} hl_log_level;

/* Receives one diagnostic line (no newline; never a secret). Called on the
 * thread whose call logs, possibly several threads at once; it must not
 * call back into the library. */
typedef void (*hl_log_fn)(void *ctx, hl_log_level level, const char *message);

struct hl_client_options {
    const char *server_url;  /* "http://127.0.0.1:8080"; required */
    long timeout_ms;         /* whole-request timeout; 0 = 60000 */
    long connect_timeout_ms; /* 0 = 10000 */
    /* The object store data files go to (s3:// data paths). NULL fields
     * fall back to the environment: AWS_ENDPOINT_URL, AWS_REGION (else
     * us-east-1), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
     * AWS_SESSION_TOKEN. An endpoint selects path-style addressing. */
    const char *s3_endpoint;
    const char *s3_region;
    const char *s3_access_key;
    const char *s3_secret_key;
    const char *s3_session_token;
    int storage_retries; /* retries of a failed storage request; 0 = 3, -1 = none */
    /* The seed's single_request_uploads=False. false (the default): a data
     * object of up to 8 MiB goes to S3 in one PUT, larger ones as a
     * multipart upload. true: every data object is a multipart upload
     * (create, parts, complete: three requests for a small one), the
     * streaming path, chosen deliberately; it logs nothing. file:// data
     * paths are written the same either way. */
    bool streaming_uploads;
    /* Threads that read one data file's row groups at once when a delete
     * looks for its rows (0 = the online CPUs, at most 8; 1 = only the
     * calling thread). Updates read on the calling thread. */
    int read_threads;
    /* The bearer token sent with every request (NULL: $HOGLAKE_TOKEN, else
     * none). Copied, wiped from memory when the client is freed, never put
     * in an error message. */
    const char *token;
    /* A PEM file of the certificate authorities an https:// server's
     * certificate must chain to (NULL: $HOGLAKE_CACERT, else the system's).
     * Certificates are always verified. */
    const char *ca_file;
    /* Where the library's diagnostics go, for levels up to log_level (0 =
     * HL_LOG_WARN). NULL: nowhere. The library never writes to stderr. */
    hl_log_fn log;
    void *log_ctx;
    hl_log_level log_level;
};

/* Creates a client. The options are copied. */
HL_API hl_status hl_client_new(const struct hl_client_options *options, hl_client **out,
                               struct hl_error *err);
HL_API void hl_client_free(hl_client *client);

/* The raw JSON interface: sends `json_body` (NULL for none) to `path`
 * (e.g. "/v1/catalogs", query string included, already URL-encoded) and
 * returns the response body of a 2xx answer in *response (caller frees; may
 * be NULL when the caller does not want it). A non-2xx answer becomes the
 * matching hl_status, with the server's error code, detail and retry
 * advice in err. */
HL_API hl_status hl_client_request(hl_client *client, const char *method, const char *path,
                                   const char *json_body, char **response, struct hl_error *err);

/* GETs every page of a paged listing (GET .../files, .../scan or
 * .../changes) at `path` (query included, without limit or page_token)
 * and returns the whole listing in *response (caller frees): the first
 * page with every later page's "files" and "delete_files" appended and
 * next_page_token removed. Every page reads the snapshot the first page
 * read. Memory grows with the listing; the hl_table_*_page calls hold one
 * page at a time. */
HL_API hl_status hl_client_get_pages(hl_client *client, const char *path, char **response,
                                     struct hl_error *err);

/* Percent-encodes a path segment or query value into out (RFC 3986
 * unreserved characters are kept). Returns the length written, or 0 when
 * out is too small. */
HL_API size_t hl_url_encode(const char *in, char *out, size_t out_size);

/* Lists catalogs: a JSON array of Catalog objects. */
HL_API hl_status hl_catalogs_list(hl_client *client, char **json, struct hl_error *err);

/* ---- time travel ---- */

/* Where a read looks: at most one of a snapshot id (>= 0) and an ISO-8601
 * instant with an offset. A NULL hl_at (or {-1, NULL}) is the default of
 * the call: a table handle's DDL snapshot if it has one, else the head. */
struct hl_at {
    int64_t snapshot;         /* -1: none */
    const char *at_timestamp; /* NULL: none */
};

/* ---- catalogs ---- */

/* Creates a catalog whose data goes under data_path ("s3://bucket/prefix"
 * or "file:///dir"). */
HL_API hl_status hl_catalog_create(hl_client *client, const char *name, const char *data_path,
                                   hl_catalog **out, struct hl_error *err);
/* Opens an existing catalog (one GET: HL_ERR_NOT_FOUND when missing). */
HL_API hl_status hl_catalog_open(hl_client *client, const char *name, hl_catalog **out,
                                 struct hl_error *err);
HL_API void hl_catalog_free(hl_catalog *catalog);
HL_API const char *hl_catalog_name(const hl_catalog *catalog);
HL_API const char *hl_catalog_data_path(const hl_catalog *catalog);

/* The catalog's current Catalog object (head_snapshot_id...) as JSON. */
HL_API hl_status hl_catalog_info(hl_catalog *catalog, char **json, struct hl_error *err);
/* The catalog's CatalogOptions (retention, consumer_floor and the expiry
 * floor earliest_snapshot_id) as JSON. */
HL_API hl_status hl_catalog_options(hl_catalog *catalog, char **json, struct hl_error *err);
/* Sets the snapshot retention (seconds; < 0 disables it) and, when
 * consumer_floor is 0 or 1, whether consumer offsets hold the expiry floor
 * (-1 leaves it). Returns the CatalogOptions JSON (json may be NULL). */
HL_API hl_status hl_catalog_set_retention(hl_catalog *catalog, int64_t seconds, int consumer_floor,
                                          char **json, struct hl_error *err);

/* ---- catalog settings and maintenance, typed ----
 *
 * The same requests as the JSON calls above and the server's maintenance
 * routes, with the answers decoded into structs. Options structs are set
 * up by their _init function before the caller changes a field, so that a
 * later release can add fields with defaults. Result structs are the
 * caller's (any storage, nothing to free); a counter the server did not
 * report reads 0. On failure *out is zeroed. */

/* The catalog's CatalogOptions. */
struct hl_catalog_settings {
    int64_t retention_seconds;    /* snapshot retention; -1: none (expiry disabled) */
    bool consumer_floor;          /* consumer offsets hold back expiry */
    int64_t earliest_snapshot_id; /* the expiry floor: snapshots below it are gone */
};
HL_API hl_status hl_catalog_get_settings(hl_catalog *catalog, struct hl_catalog_settings *out,
                                         struct hl_error *err);

/* A change of the settings; what is left as _init set it is unchanged. */
struct hl_catalog_settings_change {
    bool set_retention;        /* send retention_seconds */
    int64_t retention_seconds; /* 1..3153600000; <= 0 disables expiry */
    int consumer_floor;        /* 0 or 1; -1 leaves it */
};
/* Changes nothing: set_retention false, consumer_floor -1. */
HL_API void hl_catalog_settings_change_init(struct hl_catalog_settings_change *change);
/* Applies the change (one PATCH; a change of nothing reads the settings)
 * and returns the settings after it in *out (may be NULL). A retention out
 * of range is HL_ERR_VALIDATION in the server's words. */
HL_API hl_status hl_catalog_change_settings(hl_catalog *catalog,
                                            const struct hl_catalog_settings_change *change,
                                            struct hl_catalog_settings *out, struct hl_error *err);

/* One maintenance pass run now (the server's POST .../maintenance/<task>,
 * recorded with trigger manual; HL_ERR_UNAVAILABLE, code
 * maintenance_busy, while another run holds the task). */
struct hl_maintenance_options {
    int64_t batch; /* the pass's bound (snapshots, queue rows, groups, files); 0: the server's */
};
/* Zeroes o. */
HL_API void hl_maintenance_options_init(struct hl_maintenance_options *o);

/* Expires the snapshots below the retention window (docs/openapi.yaml
 * ExpiryResult). */
struct hl_expire_result {
    int64_t snapshots_expired;
    int64_t data_files_queued;   /* ended data files queued for removal */
    int64_t delete_files_queued; /* ended deletion vectors queued for removal */
    int64_t new_earliest_snapshot_id;
    bool floored_by_consumer; /* the lowest consumer offset was the binding bound */
    int64_t offsets_released; /* offsets on replaced incarnations released */
    int64_t purge_pages;
    bool purge_truncated; /* ended file rows are left for the next pass */
    int64_t advance_halvings, purge_failures, purge_halvings, purge_page;
};
HL_API hl_status hl_catalog_expire(hl_catalog *catalog,
                                   const struct hl_maintenance_options *options,
                                   struct hl_expire_result *out, struct hl_error *err);

/* Deletes the queued objects nothing references (CleanupResult). */
struct hl_cleanup_result {
    int64_t removed;          /* objects deleted */
    int64_t missing;          /* already gone (file:// only) */
    int64_t still_referenced; /* never deleted: anything but 0 is a queue writer's bug */
    int64_t refused;          /* outside the data path, a symbolic link, not a file */
    int64_t settled_elsewhere, failed, ledger_purged, runs_purged, receipts_purged;
    int64_t receipts_purge_failures;
};
HL_API hl_status hl_catalog_cleanup(hl_catalog *catalog,
                                    const struct hl_maintenance_options *options,
                                    struct hl_cleanup_result *out, struct hl_error *err);

/* Rewrites groups of small files into one (CompactionResult). */
struct hl_compact_result {
    int64_t groups_compacted, files_in, files_out, bytes_in, bytes_out;
    /* Groups not compacted, by reason. */
    int64_t skipped_conflicts, dv_superseded, unconvertible_schema, invalid_data;
    int64_t heap_budget_exceeded, failed_groups, storage_refused, claimed_elsewhere;
    int64_t dvs_applied, rows_dropped; /* deletion vectors applied by committed groups */
    int64_t variant_columns_carried, variant_columns_reencoded;
    /* What the planner saw and left. */
    int64_t candidates_files, candidates_with_dv, candidates_claimed;
    int64_t left_too_few_files, left_too_few_partitions, left_over_budget_files;
    int64_t left_claimed_files;
    bool batch_reached; /* more groups may be waiting */
    int64_t plan_ms;
};
HL_API hl_status hl_catalog_compact(hl_catalog *catalog,
                                    const struct hl_maintenance_options *options,
                                    struct hl_compact_result *out, struct hl_error *err);

/* Fills the statistics of files appended with deferred_stats
 * (HydrateResult). */
struct hl_hydrate_result {
    int64_t hydrated;         /* files whose statistics were filled */
    int64_t failed;           /* files whose footer disagrees or is gone */
    int64_t transient_errors; /* files left pending after a storage error */
    int64_t still_pending;    /* pending live files of the catalog after the pass */
};
HL_API hl_status hl_catalog_hydrate(hl_catalog *catalog,
                                    const struct hl_maintenance_options *options,
                                    struct hl_hydrate_result *out, struct hl_error *err);

/* One snapshot of the log. */
struct hl_snapshot {
    int64_t snapshot_id;
    int64_t schema_version;
    char snapshot_time[40]; /* ISO-8601, as the server wrote it */
    char *json;             /* the whole Snapshot object (author, message, changes) */
    char *author;           /* NULL: none recorded */
    char *message;          /* NULL: none recorded */
};
typedef struct hl_snapshot_iter hl_snapshot_iter;
/* Walks the snapshot log, paging as needed: ascending from after (> after)
 * when before < 0, else descending below before (after must then be 0).
 * limit is the page size (0 = the server's default). */
HL_API hl_status hl_snapshot_iter_new(hl_catalog *catalog, int64_t after, int64_t before, int limit,
                                      hl_snapshot_iter **out, struct hl_error *err);
/* Gives the next snapshot in *snap, or sets *done at the end. *snap must
 * be zeroed before the first call: each call clears what it held (its
 * json), and the caller clears the last with hl_snapshot_clear. */
HL_API hl_status hl_snapshot_iter_next(hl_snapshot_iter *it, struct hl_snapshot *snap, bool *done,
                                       struct hl_error *err);
HL_API void hl_snapshot_iter_free(hl_snapshot_iter *it);

/* The snapshot an instant resolves to (the largest with snapshot_time <=
 * t; HL_ERR_EXPIRED below the floor, HL_ERR_NOT_FOUND with code
 * before_catalog before the catalog was created), with its recorded time. */
HL_API hl_status hl_catalog_resolve_snapshot(hl_catalog *catalog, const char *at_timestamp,
                                             struct hl_snapshot *out, struct hl_error *err);
HL_API void hl_snapshot_clear(struct hl_snapshot *snap);

/* Consumer offsets. commit_offset refuses a regression (HL_ERR_CONFLICT)
 * and a snapshot below the floor (HL_ERR_EXPIRED). */
HL_API hl_status hl_catalog_commit_offset(hl_catalog *catalog, const char *consumer_id,
                                          const char *table_uuid, int64_t snapshot_id,
                                          struct hl_error *err);
/* *snapshot_id is -1 when the consumer has no offset for the table. */
HL_API hl_status hl_catalog_offset(hl_catalog *catalog, const char *consumer_id,
                                   const char *table_uuid, int64_t *snapshot_id,
                                   struct hl_error *err);
/* A consumer's offsets: a JSON array of ConsumerOffset objects. */
HL_API hl_status hl_catalog_offsets(hl_catalog *catalog, const char *consumer_id, char **json,
                                    struct hl_error *err);

/* ---- namespaces ---- */

HL_API hl_status hl_namespace_create(hl_catalog *catalog, const char *name, hl_namespace **out,
                                     struct hl_error *err);
/* Opens an existing namespace (HL_ERR_NOT_FOUND when missing). */
HL_API hl_status hl_namespace_open(hl_catalog *catalog, const char *name, hl_namespace **out,
                                   struct hl_error *err);
HL_API void hl_namespace_free(hl_namespace *ns);
HL_API hl_status hl_namespaces_list(hl_catalog *catalog, const struct hl_at *at, char **json,
                                    struct hl_error *err);
HL_API hl_status hl_namespace_drop(hl_namespace *ns, struct hl_error *err);

/* ---- views ---- */

/* Creates a view; returns the View JSON (json may be NULL). */
HL_API hl_status hl_view_create(hl_namespace *ns, const char *name, const char *sql,
                                const char *dialect, char **json, struct hl_error *err);
HL_API hl_status hl_view_get(hl_namespace *ns, const char *name, char **json, struct hl_error *err);
HL_API hl_status hl_views_list(hl_namespace *ns, char **json, struct hl_error *err);
HL_API hl_status hl_view_drop(hl_namespace *ns, const char *name, struct hl_error *err);

/* ---- tables ---- */

/* Creates a table from a ColumnDef JSON array ([{"name","type","nullable",
 * "type_params"?,"children"?}]) and optional properties (a JSON object or
 * NULL). The handle keeps the creation's snapshot as its DDL snapshot. */
HL_API hl_status hl_table_create(hl_namespace *ns, const char *name, const char *columns_json,
                                 const char *properties_json, hl_table **out, struct hl_error *err);
/* How hl_namespace_create_table_arrow creates a table. */
struct hl_table_create_options {
    const char *properties_json; /* a JSON object of table properties; NULL: none */
};
/* Zeroes o. */
HL_API void hl_table_create_options_init(struct hl_table_create_options *o);
/* Creates a table whose columns are the fields of an Arrow schema (a
 * struct; borrowed, not released), as hl_table_create does (options may be
 * NULL). Each field's type maps to a catalog type, both directions
 * agreeing with what appends and reads use: bool boolean; int8/16/32/64
 * int8, int16, int, long; uint8/16/32/64 uint8 ... uint64; float float;
 * double double; decimal128(p, s) (p <= 38) decimal(p, s); date32 date;
 * time64[us] time; timestamp[s], [ms], [us], [ns] without a time zone
 * timestamp_s, timestamp_ms, timestamp, timestamp_ns; timestamp[us] with
 * any time zone timestamptz; utf8 and large utf8 string, or json when
 * marked "arrow.json"; binary and large binary binary;
 * fixed_size_binary(16) marked "arrow.uuid" uuid; Variant storage, a
 * struct marked "arrow.parquet.variant", variant (no shredding declared); list and large
 * list list (its child named element); struct struct; map map (key and
 * value; the key not null). A field's nullability is the column's; a field
 * id in its metadata (PARQUET:field_id) is not sent: the server assigns
 * ids depth first from 1. Any other type (dictionary-encoded included) is
 * HL_ERR_INVALID_ARGUMENT naming the field's dotted path and its format,
 * before any request. */
HL_API hl_status hl_namespace_create_table_arrow(hl_namespace *ns, const char *name,
                                                 const struct ArrowSchema *schema,
                                                 const struct hl_table_create_options *options,
                                                 hl_table **out, struct hl_error *err);
/* One Arrow field as a ColumnDef JSON object (caller frees *json), by the
 * mapping above: for an alter's add_column from an Arrow type. name (NULL:
 * the field's own) names the column; nullable is 0 or 1, or -1 for the
 * field's flag. Refusals as hl_namespace_create_table_arrow's, with no
 * request. */
HL_API hl_status hl_arrow_column_def(const struct ArrowSchema *field, const char *name,
                                     int nullable, char **json, struct hl_error *err);
/* Checks a variant column's shredding declaration (JSON text, as a
 * ColumnDef's type_params.shredding carries it; "null" declares nothing)
 * against the catalog's grammar, with no request: HL_OK, or
 * HL_ERR_VALIDATION (code "validation") in the server's own words,
 * "variant column '<column>' has an invalid type_params.shredding: <path>
 * <problem>", the path naming the node at fault ($.price, $.tags[*]).
 * hl_table_create and hl_table_alter run the same check on the columns
 * they create or add, before any request. */
HL_API hl_status hl_shredding_validate(const char *column, const char *declaration_json,
                                       struct hl_error *err);
/* The leaves of a declaration that values libhoglake encodes from JSON
 * text fill rarely or never, so that their columns would stay empty: JSON
 * has no float, temporal, binary or uuid values; an integer within int64
 * is an integer, never a decimal or a double; a fraction is a double,
 * never a decimal; an integer past int64 fills only decimal16 with scale 0
 * and a precision of at least 19. *paths_json (the caller's to free()) is
 * a JSON array of their paths in document order ("$.price",
 * "$.tags[*]"). Other writers type JSON their own way, so the list speaks
 * for this encoder only. A declaration hl_shredding_validate refuses is
 * HL_ERR_VALIDATION with its words. */
HL_API hl_status hl_shredding_unshreddable_paths(const char *declaration_json, char **paths_json,
                                                 struct hl_error *err);
/* What hl_variant_verify checks beyond the writer rules. Zeroed (or
 * NULL): the canonical encoding too, SQL NULL rows allowed. */
struct hl_variant_verify_options {
    bool no_canonical; /* only validity, the writer rules and placement */
    bool not_null;     /* refuse a SQL NULL row (a NOT NULL column) */
};
/* Verifies a variant column's storage, opt-in and byte by byte: Arrow's
 * VARIANT storage struct (metadata, value and/or typed_value, in any
 * layout a Parquet VARIANT group reads as), every row. Beyond the validity
 * every read checks: the spec's writer rules (no null field or element
 * group, no element with neither value nor typed_value, a value beside
 * typed_value only as a non-empty residual object that repeats no shredded
 * field, every key in the row's dictionary, a sorted flag only on a
 * sorted dictionary, fields in key order); placement (no value left in
 * value that its group's typed_value takes); unless no_canonical, the
 * canonical encoding libhoglake writes (docs/variant.md). shredding_json:
 * NULL checks no form; "null" (a column declaring nothing) the unshredded
 * form; a declaration, the layout libhoglake writes for it. HL_OK, or
 * HL_ERR_VALIDATION with the reason as code ("variant_encoding",
 * "invalid_shredding", "not_null", or "validation" for a declaration the
 * grammar refuses) and a message naming the row and the path ("row 3,
 * $.a[2].b: misplaced: ..."); HL_ERR_INVALID_ARGUMENT for storage that is
 * not a VARIANT's. */
HL_API hl_status hl_variant_verify(const struct ArrowSchema *storage_schema,
                                   const struct ArrowArray *storage, const char *shredding_json,
                                   const struct hl_variant_verify_options *options,
                                   struct hl_error *err);
/* Opens an existing table at the head; the handle has no DDL snapshot. */
HL_API hl_status hl_table_open(hl_namespace *ns, const char *name, hl_table **out,
                               struct hl_error *err);
HL_API void hl_table_free(hl_table *table);
HL_API hl_status hl_tables_list(hl_namespace *ns, const struct hl_at *at, char **json,
                                struct hl_error *err);

HL_API const char *hl_table_name(const hl_table *table);
/* The incarnation the handle was resolved as. */
HL_API const char *hl_table_uuid(const hl_table *table);
/* The snapshot of the handle's own create or alter, or -1. */
HL_API int64_t hl_table_ddl_snapshot(const hl_table *table);

/* The Table object (columns, specs, totals) at `at`, as JSON. A head read
 * (no travel) refreshes the writer cache. */
HL_API hl_status hl_table_info(hl_table *table, const struct hl_at *at, char **json,
                               struct hl_error *err);
/* The Table object as the handle last read it (hl_table_open, a head
 * hl_table_info, an append's basis), with no request while that read is
 * fresh as the writer cache counts it (half the catalog's retention);
 * otherwise a head read, as hl_table_info(table, NULL, ...). For callers
 * that need the columns before appending (to parse text into the table's
 * types): the append then commits against the same read, without another
 * GET. */
HL_API hl_status hl_table_definition(hl_table *table, char **json, struct hl_error *err);
/* The Table object, typed (docs/openapi.yaml Table, Column,
 * PartitionSpec, SortSpec). Strings are NULL when the server omits them. */
struct hl_column {
    int64_t field_id;
    char *name;
    char *type; /* the wire name, lower case: "long", "decimal", "list", ... */
    bool nullable;
    int precision, scale; /* a decimal's; 0 otherwise */
    char *type_params;    /* the type_params object as JSON text (decimal, variant) */
    char *comment;
    size_t nchildren; /* a list's element, a map's key and value, a struct's fields */
    struct hl_column *children;
};
struct hl_partition_field {
    int64_t source_field_id;
    char *transform;         /* identity, bucket, truncate, year, month, day, hour */
    int64_t transform_param; /* bucket N, truncate W; 0 otherwise */
};
struct hl_sort_field {
    int64_t source_field_id;
    bool descending;
    bool nulls_first; /* the server's, or Iceberg's default for the direction */
};
struct hl_table_details {
    char *name;
    char *namespace_name;
    char *table_uuid;
    char *comment;
    char *primary_timestamp_column;
    char *properties; /* the TableProperties object as JSON text */
    int64_t read_snapshot_id;
    /* The totals of the files visible at read_snapshot_id; each -1 when the
     * server omits it (totals_snapshot_id under time travel). */
    int64_t record_count, file_count, file_size_bytes, totals_snapshot_id;
    size_t ncolumns;
    struct hl_column *columns;
    int64_t spec_id; /* -1 when unpartitioned */
    size_t npartition_fields;
    struct hl_partition_field *partition_fields;
    int64_t sort_id; /* -1 when unsorted */
    size_t nsort_fields;
    struct hl_sort_field *sort_fields;
};
/* hl_table_info decoded into *out (the caller's; zeroed on failure), to be
 * released with hl_table_details_clear. */
HL_API hl_status hl_table_describe(hl_table *table, const struct hl_at *at,
                                   struct hl_table_details *out, struct hl_error *err);
HL_API void hl_table_details_clear(struct hl_table_details *details);
/* hl_table_definition decoded as hl_table_describe decodes (release with
 * hl_table_details_clear): the layout an append would write, with no
 * request while the handle's read is fresh. */
HL_API hl_status hl_table_definition_details(hl_table *table, struct hl_table_details *out,
                                             struct hl_error *err);
/* Applies alter ops (a JSON array of op objects); the handle adopts the
 * receipt (its DDL snapshot and writer cache move to the alter's snapshot).
 * Returns the new Table JSON (json may be NULL). */
HL_API hl_status hl_table_alter(hl_table *table, const char *ops_json, char **json,
                                struct hl_error *err);
/* Drops the table; *snapshot_id (may be NULL) gets the drop's snapshot. */
HL_API hl_status hl_table_drop(hl_table *table, int64_t *snapshot_id, struct hl_error *err);
/* Forgets the writer cache: the next append or prepare reads the table. */
HL_API void hl_table_invalidate(hl_table *table);

/* Reads. files: a JSON array of DataFile; scan plan: a JSON array of
 * ScanFile; changes: a ChangesPlan object (to_snapshot < 0: the head).
 * The server answers these in pages; each call fetches every page and
 * returns the whole listing, read at one snapshot (the first page's) even
 * while commits land. Its size grows with the table: to hold one page at a
 * time, use the _page calls below. */
HL_API hl_status hl_table_files(hl_table *table, const struct hl_at *at, char **json,
                                struct hl_error *err);
HL_API hl_status hl_table_scan_plan(hl_table *table, const struct hl_at *at, char **json,
                                    struct hl_error *err);
HL_API hl_status hl_table_changes(hl_table *table, int64_t from_snapshot, int64_t to_snapshot,
                                  char **json, struct hl_error *err);

/* The same reads, one page at a time. limit: entries per page (0: the
 * server's default, 1000; the server caps it at its --page-size-max);
 * page_token: NULL for the first page, else the previous page's
 * *next_page_token, with the same other arguments. *json (may be NULL) is
 * the page as the server sent it: {"files": [...], "next_page_token"} for
 * files and scan plans, the ChangesPlan object with next_page_token for
 * changes (whose page holds the window's data files first, then its
 * deletion vectors). *next_page_token (may be NULL; caller frees) is NULL
 * on the last page. A token is tied to its listing: another table,
 * snapshot or set of arguments is HL_ERR_BAD_REQUEST. */
HL_API hl_status hl_table_files_page(hl_table *table, const struct hl_at *at, int limit,
                                     const char *page_token, char **json, char **next_page_token,
                                     struct hl_error *err);
HL_API hl_status hl_table_scan_plan_page(hl_table *table, const struct hl_at *at, int limit,
                                         const char *page_token, char **json,
                                         char **next_page_token, struct hl_error *err);
HL_API hl_status hl_table_changes_page(hl_table *table, int64_t from_snapshot, int64_t to_snapshot,
                                       int limit, const char *page_token, char **json,
                                       char **next_page_token, struct hl_error *err);

/* One data file of a listing, typed (docs/openapi.yaml DataFile). */
enum hl_stats_state {
    HL_STATS_PROVIDED = 0, /* statistics came with the commit or were collected */
    HL_STATS_PENDING = 1,  /* not collected yet (deferred_stats) */
    HL_STATS_FAILED = 2,   /* collecting them failed */
};
struct hl_data_file {
    int64_t data_file_id;
    char *path;           /* the object's full path, under the catalog's data_path */
    int64_t record_count; /* rows, before deletion vectors */
    int64_t file_size_bytes;
    int64_t row_id_start;   /* the first row id */
    int64_t begin_snapshot; /* the snapshot that added the file */
    enum hl_stats_state stats_state;
    bool explicit_row_ids; /* row ids stored in the file (compaction outputs) */
    int64_t footer_size;   /* -1 when the writer did not give it */
    int64_t spec_id;       /* -1 when unpartitioned */
    size_t npartition_values;
    char **partition_values; /* stored (transformed) values in key order; NULL entries are null */
};
/* The live data files at `at`, as hl_table_files reads them (every page,
 * one snapshot), decoded: *files (an array of *nfiles, NULL when none) is
 * the caller's to free with hl_data_files_free. */
HL_API hl_status hl_table_files_list(hl_table *table, const struct hl_at *at,
                                     struct hl_data_file **files, size_t *nfiles,
                                     struct hl_error *err);
HL_API void hl_data_files_free(struct hl_data_file *files, size_t nfiles);

/* One deletion vector, typed (docs/openapi.yaml DeleteFile). */
struct hl_delete_file {
    int64_t delete_file_id;
    int64_t data_file_id; /* the data file whose rows it masks */
    char *path;
    int64_t delete_count; /* rows it deletes, cumulative (a vector supersedes its predecessor) */
    int64_t file_size_bytes;
    int64_t begin_snapshot;
};
/* One entry of a scan plan (ScanFile): a live data file and the vector
 * masking its deleted rows, NULL when it has none. */
struct hl_scan_file {
    struct hl_data_file data_file;
    struct hl_delete_file *delete_file;
};
/* The scan plan at `at`, as hl_table_scan_plan reads it (every page, one
 * snapshot), decoded: *files (an array of *nfiles, NULL when none) is the
 * caller's to free with hl_scan_files_free. */
HL_API hl_status hl_table_scan_plan_list(hl_table *table, const struct hl_at *at,
                                         struct hl_scan_file **files, size_t *nfiles,
                                         struct hl_error *err);
HL_API void hl_scan_files_free(struct hl_scan_file *files, size_t nfiles);

/* A deletion vector of a changes window (ChangeDeleteFile): the vector,
 * the data file it deletes from (whatever that file's state), and the
 * vector it replaced on that file, NULL when it was the file's first. What
 * the window deleted from a data file is its newest vector in the window
 * minus the superseded vector of its oldest one there. */
struct hl_change_delete_file {
    struct hl_delete_file delete_file;
    struct hl_data_file data_file;
    struct hl_delete_file *superseded;
};
/* The changes of the window (from_snapshot, to_snapshot] (ChangePlan). */
struct hl_changes_plan {
    char *table_uuid; /* the incarnation visible at to_snapshot */
    int64_t from_snapshot;
    int64_t to_snapshot; /* resolved: the head when the call gave < 0 */
    size_t nfiles;
    struct hl_data_file *files; /* appended in the window, compaction outputs excluded */
    size_t ndelete_files;
    struct hl_change_delete_file *delete_files; /* appended in the window */
};
/* hl_table_changes decoded into *plan (the caller's; zeroed on failure),
 * to be released with hl_changes_plan_clear. */
HL_API hl_status hl_table_changes_plan(hl_table *table, int64_t from_snapshot, int64_t to_snapshot,
                                       struct hl_changes_plan *plan, struct hl_error *err);
HL_API void hl_changes_plan_clear(struct hl_changes_plan *plan);

/* Reads the table's rows at `at` (default: the DDL snapshot, else the
 * head) as an Arrow stream, through the scan plan: each data file is
 * fetched from storage and its columns matched to the table's by field id
 * (a column added since a file was written reads as nulls). The schema is
 * the table's at that snapshot. The plan is held a page at a time, the
 * next page read (at the same snapshot) when the stream reaches it. The
 * rows a file's deletion vector (the one visible at that snapshot) deletes
 * are left out: its Puffin file is fetched with the data file, and a
 * vector that disagrees with the catalog's count fails the stream. A
 * variant column reads, whatever layout each file stores it in, as Arrow's
 * canonical "arrow.parquet.variant" struct<metadata: binary, value:
 * binary> of unshredded Variant bytes, each row checked (or as JSON text:
 * hl_scan_options.variant_as_json); a json column as utf8 marked
 * "arrow.json", at any depth, so that its schema makes a json column again
 * (hl_namespace_create_table_arrow). The caller releases the stream; the
 * table must outlive it. */
HL_API hl_status hl_table_scan(hl_table *table, const struct hl_at *at,
                               struct ArrowArrayStream *out, struct hl_error *err);
/* What a filtered scan did, counted as the stream goes (final once it has
 * ended). Files and row groups are counted once each: read, or ruled out
 * unread. Pages are the data pages of the decoded columns in row groups
 * read through the page index: pages_pruned those it let the read skip. */
struct hl_scan_stats {
    int64_t files_scanned;      /* data files fetched and read */
    int64_t files_pruned;       /* ruled out by partition values or the plan's statistics */
    int64_t row_groups_scanned; /* row groups decoded */
    int64_t row_groups_pruned;  /* ruled out by footer statistics or the page index */
    int64_t pages_scanned;      /* data pages decoded through the page index */
    int64_t pages_pruned;       /* data pages the page index let the read skip */
    int64_t rows_matched;       /* rows the stream handed out */
};

struct hl_scan_options {
    /* The stream's columns, by top-level name (exact), in this order; NULL
     * (ncolumns 0): every column, in the table's order. An unknown or
     * repeated name is HL_ERR_INVALID_ARGUMENT (code unknown_column). */
    const char *const *columns;
    size_t ncolumns;
    /* Only the rows it selects (the predicate language of hl_table_delete;
     * NULL: every row). A predicate that does not parse or bind is
     * HL_ERR_INVALID_ARGUMENT (code invalid_predicate). Columns it reads
     * but the projection lacks are decoded, not handed out. */
    const char *predicate;
    /* Stop after this many rows; < 0 (the default): no limit. */
    int64_t limit;
    /* Counters (may be NULL); the caller keeps them alive with the
     * stream. */
    struct hl_scan_stats *stats;
    /* Variant columns as JSON text (utf8 marked "arrow.json"), not as
     * their "arrow.parquet.variant" storage struct<metadata, value>. */
    bool variant_as_json;
};
/* No projection, predicate or limit (-1), no stats. */
HL_API void hl_scan_options_init(struct hl_scan_options *o);

/* hl_table_scan with options (NULL: the defaults, which is hl_table_scan).
 * Only the projected columns and those the predicate reads are decoded.
 * With a predicate, nothing is read that cannot hold a selected row, in
 * this order: files by their partition values (through the partition
 * transforms: identity, year, month, day, hour and truncate for ranges,
 * bucket for = and IN) and the scan plan's per-file statistics, row groups
 * by their footer statistics, then pages by the page index of the
 * predicate's columns, where a file has one: only the rows of the pages
 * that may match are decoded. Deletion vectors apply as in hl_table_scan.
 * The stream's schema is the projection. */
HL_API hl_status hl_table_scan_with(hl_table *table, const struct hl_at *at,
                                    const struct hl_scan_options *options,
                                    struct ArrowArrayStream *out, struct hl_error *err);

/* The rows the changefeed reports in (from_snapshot, to_snapshot] (to < 0:
 * the head), as an Arrow stream in the table's shape as of the window's
 * end plus two trailing columns: `_row_id` (int64, the row's id: never
 * reused, kept by compaction) and `_change_type` (utf8, "insert" or
 * "delete"). First the rows the window inserted (each appended file less
 * the rows its newest vector in the window deletes), then the rows it
 * deleted from files older than the window (or compaction outputs): the
 * positions of each file's newest vector in the window that its vector
 * before the window did not hold. Applied in order, the stream takes a
 * copy of the table at from_snapshot to the table at the window's end; a
 * row inserted and deleted inside the window is not reported, except one
 * whose file a compaction inside the window rewrote, which is reported
 * inserted and then deleted. *resolved_to (may be NULL) gets the window's
 * end. Below the expiry floor the call is HL_ERR_EXPIRED, across a
 * truncate HL_ERR_CONFLICT (reconciliation_required). */
HL_API hl_status hl_table_scan_changes(hl_table *table, int64_t from_snapshot, int64_t to_snapshot,
                                       struct ArrowArrayStream *out, int64_t *resolved_to,
                                       struct hl_error *err);

/* ---- row-level deletes ---- */

/* The options of a row-level change: hl_table_delete and hl_table_update. */
struct hl_delete_options {
    const char *author;  /* NULL: none */
    const char *message; /* NULL: none */
    /* Find the rows and count them (an update also computes their new
     * values, so that an assignment that fails fails here); write and
     * commit nothing. */
    bool dry_run;
    /* Attempts in all when a concurrent commit on the table conflicts
     * (each reads the table again); 0: 5. */
    int max_attempts;
};
/* Zeroes o. */
HL_API void hl_delete_options_init(struct hl_delete_options *o);

struct hl_delete_result {
    int64_t snapshot_id;        /* the delete's snapshot; -1 when nothing was committed */
    int64_t read_snapshot;      /* the snapshot the rows were found at */
    int64_t rows_deleted;       /* live rows the predicate selected (deleted, unless dry_run) */
    int64_t files_affected;     /* data files whose deletion vector grew */
    int64_t files_scanned;      /* data files read */
    int64_t files_pruned;       /* ruled out by partition values or file statistics */
    int64_t row_groups_scanned; /* row groups decoded */
    int64_t row_groups_pruned;  /* ruled out by their statistics */
    int64_t pages_scanned;      /* data pages decoded by the page index (none without one) */
    int64_t pages_pruned;       /* data pages the page index ruled out */
    int64_t bytes_written;      /* the Puffin files of the new vectors */
    int attempts;               /* 1, or more after conflicts */
};

/* Deletes the rows `predicate` selects at the table's head (the predicate
 * language: src/expr/expr.h and docs/client.md; "true" selects every row)
 * as deletion vectors, in one commit (POST /commit/deletes/prepared:
 * idempotent, guarded by the snapshot read and the table's uuid). Files
 * whose partition values or statistics cannot match are not read; of the
 * others only the columns the predicate reads are decoded. Each affected
 * file's vector holds its earlier positions and the new ones, in a Puffin
 * file of its own written at an upload claim. A concurrent insert or delete
 * on the table makes the delete read and try again (max_attempts). A
 * predicate that selects no live row commits nothing (snapshot_id -1). A
 * predicate that does not parse or bind is HL_ERR_INVALID_ARGUMENT
 * (code invalid_predicate) naming the position and token at fault.
 * result (may be NULL) is filled whatever the outcome. */
HL_API hl_status hl_table_delete(hl_table *table, const char *predicate,
                                 const struct hl_delete_options *options,
                                 struct hl_delete_result *result, struct hl_error *err);

/* ---- row-level updates ---- */

struct hl_update_result {
    int64_t snapshot_id;        /* the update's snapshot; -1 when nothing was committed */
    int64_t read_snapshot;      /* the snapshot the rows were found at */
    int64_t rows_updated;       /* live rows the predicate selected (updated, unless dry_run) */
    int64_t files_affected;     /* data files whose deletion vector grew */
    int64_t files_scanned;      /* data files read */
    int64_t files_pruned;       /* ruled out by partition values or file statistics */
    int64_t row_groups_scanned; /* row groups decoded */
    int64_t row_groups_pruned;  /* ruled out by their statistics */
    int64_t pages_scanned;      /* data pages decoded by the page index (none without one) */
    int64_t pages_pruned;       /* data pages the page index ruled out */
    int64_t files_written;      /* data files of the rewritten rows */
    int64_t bytes_written;      /* those files and the new vectors' Puffin files */
    int attempts;               /* 1, or more after conflicts */
};

/* Updates the rows `predicate` selects at the table's head (options as
 * hl_table_delete's):
 * `set_clause` is "col = value, ..." (literals, columns, + - * /, CASE
 * WHEN, NULL; every value computed from the row before the update:
 * docs/expressions.md). The selected rows are read whole (files and row
 * groups pruned as hl_table_delete prunes), given their new values, and
 * written as new Parquet files partitioned as an append partitions them
 * (a row whose partition column changed moves to its new partition), each
 * row keeping its row id (the files carry it in _hog_row_id and are
 * registered with explicit_row_ids); the old rows are deleted with grown
 * deletion vectors. Everything commits in one snapshot (POST
 * /commit/mutations/prepared: idempotent, guarded by the snapshot read and
 * the table's uuid), which the changefeed reports as a delete and an
 * insert of each row's _row_id. A concurrent insert or delete on the table
 * makes the update discard what it wrote and run again from a fresh read
 * (max_attempts). A predicate that selects no live row commits nothing.
 * A clause that does not parse or bind (an unknown column, a value of
 * another type, NULL for a required column) is HL_ERR_INVALID_ARGUMENT
 * (code invalid_predicate or invalid_set) naming the token at fault, as is
 * a value that fails for some row (overflow, division by zero, NULL for a
 * required column from a CASE), which fails the update before any file is
 * finished. An update that does not commit deletes what it wrote and
 * abandons its upload claims. result (may be NULL) is filled whatever the
 * outcome. */
HL_API hl_status hl_table_update(hl_table *table, const char *set_clause, const char *predicate,
                                 const struct hl_delete_options *options,
                                 struct hl_update_result *result, struct hl_error *err);

/* ---- multi-table transactions ----
 *
 * Appends, deletes and updates on several tables of one catalog, made
 * visible together in one snapshot (POST /commit/transaction, with one
 * idempotency key):
 *
 *     hl_transaction *tx;
 *     hl_transaction_begin(catalog, &tx, &err);
 *     hl_transaction_append(tx, orders, stream, NULL, &err);
 *     hl_transaction_delete(tx, carts, "session_id = 'abc'", NULL, &err);
 *     hl_transaction_commit(tx, NULL, NULL, &snapshot, &err);
 *     hl_transaction_free(tx);
 *
 * Every operation reads its table as of the catalog's head when the
 * transaction began (its read snapshot), not the transaction's own
 * writes: a delete or update of a table must therefore come before any
 * other operation of the transaction on that table (else
 * HL_ERR_INVALID_ARGUMENT). Each operation writes its files and deletion
 * vectors at once, at upload claims of the transaction; nothing is
 * visible before the commit. An operation that fails fails the
 * transaction: what it wrote is deleted, its claims abandoned, and every
 * later call but hl_transaction_free is refused (code
 * transaction_closed).
 *
 * The commit is refused with HL_ERR_CONFLICT (code commit_conflict) when
 * a table the transaction deleted from or updated saw an insert or delete
 * after the read snapshot: the transaction's objects are then deleted and
 * the caller runs the whole transaction again (a new one), since its
 * appends consumed their streams. A commit whose outcome is unknown (a
 * timeout, a transport failure, a 5xx) may be called again: it resends
 * the same request with the same key, which the server replays. Not
 * thread-safe. */
typedef struct hl_transaction hl_transaction;

HL_API hl_status hl_transaction_begin(hl_catalog *catalog, hl_transaction **tx,
                                      struct hl_error *err);
/* Appends the stream's rows (consumed and released) to the table, as
 * hl_table_append does; *rows (may be NULL) gets how many. An input
 * without rows adds nothing. */
HL_API hl_status hl_transaction_append(hl_transaction *tx, hl_table *table,
                                       struct ArrowArrayStream *stream, int64_t *rows,
                                       struct hl_error *err);
/* Deletes the rows predicate selects, as hl_table_delete does; *rows_deleted
 * (may be NULL) gets how many. */
HL_API hl_status hl_transaction_delete(hl_transaction *tx, hl_table *table, const char *predicate,
                                       int64_t *rows_deleted, struct hl_error *err);
/* Updates the rows predicate selects, as hl_table_update does;
 * *rows_updated (may be NULL) gets how many. */
HL_API hl_status hl_transaction_update(hl_transaction *tx, hl_table *table, const char *set_clause,
                                       const char *predicate, int64_t *rows_updated,
                                       struct hl_error *err);
/* Commits every operation in one snapshot (*snapshot_id; -1 when the
 * operations changed nothing, and nothing is sent). author and message
 * (may be NULL) are recorded on the snapshot; a resend keeps the first
 * call's. Called again after success, answers the same snapshot. */
HL_API hl_status hl_transaction_commit(hl_transaction *tx, const char *author, const char *message,
                                       int64_t *snapshot_id, struct hl_error *err);
/* Frees the transaction. One never committed deletes what it wrote and
 * abandons its claims; one whose commit's outcome is unknown abandons its
 * claims (a committed file's claim is never touched) and leaves its
 * objects to the server's cleanup. */
HL_API void hl_transaction_free(hl_transaction *tx);

/* ---- the writer path ---- */

/* What one append wrote. Filled on failure too, as far as it got:
 * snapshot_id is -1, `uploaded` lists the objects still in storage and
 * `nremoved` counts those the append deleted. An append the server refused,
 * or that failed or was cancelled before its commit was sent, deletes what
 * it wrote (what it could not delete stays listed); one whose commit's
 * outcome is unknown (a timeout, a transport failure, a 5xx) deletes
 * nothing, as the commit may have landed. Either way its upload claims are
 * abandoned, so the server's cleanup reclaims what is left. */
struct hl_appended_file {
    char *path;
    int64_t record_count;
    int64_t file_size_bytes;
    size_t npartition_values;
    char **partition_values; /* wire strings; NULL entries are null values */
};
/* Where the values at one node of a variant column's shredding
 * declaration went in an append (the encoding report). */
struct hl_variant_path_counts {
    char *path;           /* "$", "$.os", "$.tags[*]": hl_shredding_validate's syntax */
    int64_t typed;        /* into the node's typed column (or object or array shredded on) */
    int64_t fallback;     /* present, of another type: left in its Variant bytes */
    int64_t variant_null; /* a Variant null */
    int64_t missing;      /* an object without the field */
};

/* One variant column's encoding report. Every row is counted once in rows;
 * a node's counts add up to the times its parent was shredded (an object
 * for a field, each element of an array for its element). */
struct hl_variant_report {
    char *column;
    int64_t field_id;
    int64_t rows;     /* rows appended */
    int64_t sql_null; /* of them SQL NULL, invalid text made NULL included */
    /* Text made NULL (HL_VARIANT_INVALID_NULL), by reason. */
    int64_t invalid_json, duplicate_key, nesting_too_deep, number_out_of_range;
    size_t npaths; /* a declared column's nodes, depth first; 0 when undeclared */
    struct hl_variant_path_counts *paths;
};

struct hl_append_result {
    int64_t snapshot_id; /* -1 when nothing was committed */
    int64_t schema_version;
    size_t nfiles;
    struct hl_appended_file *files;
    size_t nuploaded;
    char **uploaded; /* objects written and still in storage, committed or not */
    size_t nremoved; /* objects written, then deleted after a failure */
    /* Rows whose variant JSON text was not a JSON value, written as SQL
     * NULL (HL_VARIANT_INVALID_NULL). */
    int64_t variant_invalid_rows;
    /* Per top-level variant column, in table order: what became of its
     * values. */
    size_t nvariant;
    struct hl_variant_report *variant;
};
HL_API void hl_append_result_free(struct hl_append_result *result);

/* What an append does with a variant column's JSON text that is not one
 * JSON value. */
enum hl_variant_on_invalid {
    HL_VARIANT_INVALID_ERROR = 0, /* the append fails (HL_ERR_VALIDATION, code invalid_json) */
    HL_VARIANT_INVALID_NULL = 1,  /* the row's value is SQL NULL, counted in the result */
};

struct hl_append_options {
    const char *author;  /* NULL: none */
    const char *message; /* NULL: none */
    /* Register the files without statistics (the server hydrates them). */
    bool deferred_stats;
    /* The incarnation guard: NULL = the handle's uuid; unguarded = true
     * omits it and checks none before uploading: the append writes into
     * whatever table has the name (after a drop and recreate, the new
     * one). */
    const char *expected_table_uuid;
    bool unguarded;
    /* The snapshot the data was derived from (conflict window); -1 = none
     * (a partitioned append then uses the table read it makes). */
    int64_t read_snapshot;
    /* Start a new Parquet file past this many bytes of one partition's
     * data (0 = 512 MiB); row groups past row_group_bytes (0 = 128 MiB).
     * Files stream to storage as they are encoded; when the row groups
     * being built in all open files (one per partition tuple) hold more
     * than memory_bytes (0 = 1 GiB), the largest is finished early. */
    int64_t file_bytes;
    int64_t row_group_bytes;
    int64_t memory_bytes;
    /* Called after each input batch with the rows taken so far (may be
     * NULL). */
    void (*progress)(void *ctx, int64_t rows);
    void *progress_ctx;
    /* Polled after each input batch and before the commit is sent (may be
     * NULL): returning true stops the append, which aborts its open
     * uploads, deletes the objects it finished, abandons its upload claims
     * and returns HL_ERR_CANCELLED. A commit already sent is not
     * interrupted. Runs on the calling thread. */
    bool (*cancelled)(void *ctx);
    void *cancel_ctx;
    /* A variant column's text that is not one JSON value. */
    enum hl_variant_on_invalid variant_on_invalid;
    /* NULL: none. Else a UUID naming this append: the commit carries it,
     * so that its receipt answers a repeat with the same files (the server
     * never commits one key twice), the objects go under a directory of
     * that name, and GET .../commit/receipts/{key} tells whether it
     * committed. A repeat whose files differ (re-encoded: new paths) is
     * refused 422 and its uploads deleted. */
    const char *idempotency_key;
    /* Threads that encode and compress each Parquet file's pages, the
     * calling one included: 0 or 1 (the default) = the calling thread
     * alone; at most 64 (more is HL_ERR_VALIDATION). The files are the
     * same bytes whatever the count.
     * Each open file (one per partition tuple) starts encode_threads - 1
     * threads of its own, joined when the file is finished. */
    int encode_threads;
};
/* Zeroes o and sets read_snapshot to -1. */
HL_API void hl_append_options_init(struct hl_append_options *o);

/* Appends the stream's rows in one commit. Columns are matched to the
 * table's by name (a missing nullable column reads as nulls; an unknown
 * column, a missing required one or a type that does not convert exactly
 * is an error naming the column). A partitioned table gets one file per
 * partition tuple. The stream is consumed and released. An input that
 * holds no rows writes and commits nothing: HL_OK with snapshot_id -1 and
 * no files. *result (may be NULL) is the caller's to free with
 * hl_append_result_free, on success and on failure.
 *
 * A variant column takes JSON text (utf8, large utf8 or binary: one JSON
 * value a row, encoded as Parquet's Variant; a null slot is SQL NULL, the
 * text `null` a Variant null) or Variant bytes in Arrow's canonical
 * "arrow.parquet.variant" storage, struct<metadata: binary, value:
 * binary>, whose every row is checked to decode. Text that is not JSON
 * fails with code invalid_json (or duplicate_key, nesting_too_deep past
 * 128 levels, number_out_of_range) naming the column and row, unless
 * options->variant_on_invalid makes it NULL. Any other Arrow type is
 * encoded value by value (a null slot at the top is SQL NULL, a null
 * inside a Variant null): bool; integers the smallest Variant integer
 * (uint64 past int64 a decimal of scale 0); float16/float a float,
 * double a double; decimal32/64/128 (decimal256 within 38 digits) a
 * decimal of the same scale; date32/date64 a date; time32/time64 a time
 * (µs; nanoseconds only when whole); timestamps a timestamp in µs, or ns
 * for a ns unit, UTC-adjusted when the type has a time zone; utf8 and
 * large utf8 inside a value (at the top they are JSON text) and string
 * view a string, binary types (binary at the top: JSON text) a binary;
 * fixed_size_binary(16) marked arrow.uuid a uuid; struct an object; list,
 * large list and fixed-size list an array; a map of string keys an
 * object; the null type a null; dictionary-encoded arrays their values.
 * Other types (unions, run-end encoded, ...) fail naming the type; a
 * value that does not convert exactly fails with number_out_of_range,
 * a key twice with duplicate_key (variant_on_invalid does not apply). */
HL_API hl_status hl_table_append(hl_table *table, struct ArrowArrayStream *stream,
                                 const struct hl_append_options *options,
                                 struct hl_append_result **result, struct hl_error *err);
/* The same for several streams (each with its own schema, each matched to
 * the table by name), all in one commit. Every stream is released. */
HL_API hl_status hl_table_append_streams(hl_table *table, struct ArrowArrayStream *const *streams,
                                         size_t nstreams, const struct hl_append_options *options,
                                         struct hl_append_result **result, struct hl_error *err);

/* Prepared appends: encode and upload now, publish later (or elsewhere)
 * with one idempotent commit. The payload is JSON text (caller frees):
 * persist it durably before committing, and on any uncertain outcome
 * replay the same bytes. idempotency_key must be a UUID. *uploaded (may be
 * NULL) gets the objects written, on success and on failure (a failed
 * prepare deletes what it wrote, as a failed append does). The objects are
 * upload claims of the payload's upload_owner, leased for 24 h: commit
 * within that, or the server's cleanup reclaims them. */
HL_API hl_status hl_table_prepare_append(hl_table *table, struct ArrowArrayStream *stream,
                                         const char *idempotency_key, char **payload,
                                         struct hl_append_result **uploaded, struct hl_error *err);
/* What a prepare checks before it uploads. */
struct hl_prepare_options {
    /* The incarnation the payload is for (the commit's guard): NULL = the
     * handle's uuid. Another one is refused before any upload when the
     * table read says otherwise (HL_ERR_TABLE_RECREATED, re_prepare). */
    const char *expected_table_uuid;
    /* NULL: prepare against the writer cache. Else the layout the caller
     * shaped its rows for (as hl_table_describe gave it; its columns,
     * partition spec and sort order are compared, nothing else): the
     * table is read afresh, whatever the cache holds, and a different
     * layout is refused before any upload with HL_ERR_DDL_SINCE_READ (code
     * ddl_since_read_snapshot, re_prepare) naming what changed. */
    const struct hl_table_details *expected_table_info;
    /* hl_table_prepare_files only: a column the table requires, written
     * OPTIONAL in a file, is accepted when the file's statistics prove it
     * holds no nulls; without this it is refused. Arrow prepares check
     * the values themselves and ignore it. */
    bool allow_optional_fields;
};
/* One group of rows a writer partitioned itself. */
struct hl_prepare_group {
    struct ArrowArrayStream *stream;
    /* The group's partition tuple: npartition_values wire strings, in the
     * spec's field order (NULL entries: a null value), as the server
     * spells them (month 672 = 2026-01). NULL: computed per row as an
     * append does. The arity must be the table's (0 when unpartitioned);
     * every row is checked to be in the tuple, and one that is not refuses
     * the prepare (HL_ERR_VALIDATION naming both tuples). */
    const char *const *partition_values;
    size_t npartition_values;
};
/* hl_table_prepare_append over several groups, all in one payload: each
 * group's rows go to files of their own tuple (one or more per group;
 * groups of one tuple may share a file). options may be NULL. Every
 * stream is released. */
HL_API hl_status hl_table_prepare_append_groups(hl_table *table,
                                                const struct hl_prepare_group *groups,
                                                size_t ngroups, const char *idempotency_key,
                                                const struct hl_prepare_options *options,
                                                char **payload, struct hl_append_result **uploaded,
                                                struct hl_error *err);
/* The same from existing Parquet files (local paths): each footer is read
 * and checked against the table (field ids, types, nullability: see
 * allow_optional_fields), and the original bytes uploaded.
 * partition_values: per file, the spec's wire strings (NULL when the table
 * is unpartitioned). options (may be NULL) as for the groups above. */
HL_API hl_status hl_table_prepare_files(hl_table *table, const char *const *paths, size_t nfiles,
                                        const char *const *const *partition_values,
                                        const char *idempotency_key,
                                        const struct hl_prepare_options *options, char **payload,
                                        struct hl_append_result **uploaded, struct hl_error *err);
/* Publishes a prepared payload; safe to retry with the same payload. The
 * table form also drops its writer cache on a refusal marked re_prepare. */
HL_API hl_status hl_table_commit_prepared(hl_table *table, const char *payload,
                                          int64_t *snapshot_id, struct hl_error *err);
HL_API hl_status hl_catalog_commit_prepared(hl_catalog *catalog, const char *payload,
                                            int64_t *snapshot_id, struct hl_error *err);

#ifdef __cplusplus
}
#endif

#endif
