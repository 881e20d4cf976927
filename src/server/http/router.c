#include "server/http/router.h"

#include <stdio.h>
#include <string.h>

#include "server/http/handlers.h"

#define CAT "/v1/catalogs/{catalog}"
#define NS CAT "/namespaces/{namespace}"

static const char *const no_args[] = {NULL};
static const char *const time_travel[] = {"snapshot", "at_timestamp", NULL};
static const char *const table_get[] = {"snapshot", "at_timestamp", "totals", NULL};
static const char *const table_drop[] = {"expected_table_uuid", NULL};
static const char *const table_alter[] = {"expected_table_uuid", "read_snapshot", NULL};
static const char *const table_truncate[] = {"expected_table_uuid", NULL};
static const char *const table_files[] = {"snapshot", "at_timestamp", "sort",      "order", "limit",
                                          "offset",   "page_token",   "partition", NULL};
static const char *const table_scan[] = {"snapshot", "at_timestamp", "include",   "stats_fields",
                                         "limit",    "page_token",   "partition", NULL};
static const char *const table_changes[] = {"from_snapshot", "to_snapshot", "limit", "page_token",
                                            NULL};
static const char *const namespace_drop[] = {"expected_namespace_id", NULL};
static const char *const snapshot_page[] = {"after", "before", "limit", NULL};
static const char *const snapshot_resolve[] = {"at_timestamp", NULL};
static const char *const maint_batch[] = {"batch", NULL};
static const char *const maint_runs[] = {"task", "before", "limit", NULL};
static const char *const hydrate_args[] = {"batch", NULL};
static const char *const rehydrate_args[] = {"namespace", "table", NULL};
static const char *const cleanup_args[] = {"batch", NULL};
static const char *const upload_schedule[] = {"limit", NULL};
static const char *const consumer_page[] = {"limit", "page_token", NULL};
static const char *const table_partitions[] = {"sort", "order", "limit", "offset", "filter", NULL};
static const char *const stats_partitions_args[] = {"namespace", "table", "limit", NULL};
static const char *const orphans_args[] = {"dry_run", "older_than_seconds", "limit", NULL};

static const struct route routes[] = {
    {"GET", "/livez", ACCESS_PUBLIC, h_livez, ROUTE_INLINE | ROUTE_NO_SHED, NULL},
    {"GET", "/healthz", ACCESS_PUBLIC, h_healthz, ROUTE_NO_SHED, NULL},
    {"GET", "/metrics", ACCESS_METRICS, h_metrics, ROUTE_INLINE | ROUTE_NO_SHED, NULL},
    {"GET", "/openapi.yaml", ACCESS_ANY, h_openapi, ROUTE_INLINE | ROUTE_NO_SHED, NULL},
    {"GET", "/v1/info", ACCESS_ANY, h_info, 0, no_args},

    {"GET", "/v1/catalogs", ACCESS_ANY, h_catalogs_list, 0, no_args},
    {"POST", "/v1/catalogs", ACCESS_ADMIN, h_catalogs_create, 0, no_args},
    {"GET", CAT, ACCESS_READER, h_catalog_get, 0, no_args},
    {"GET", CAT "/options", ACCESS_READER, h_catalog_options_get, 0, no_args},
    {"PATCH", CAT "/options", ACCESS_OWNER, h_catalog_options_patch, 0, no_args},

    {"GET", CAT "/namespaces", ACCESS_READER, h_namespaces_list, 0, time_travel},
    {"POST", CAT "/namespaces", ACCESS_OWNER, h_namespaces_create, 0, no_args},
    {"GET", NS, ACCESS_READER, h_namespace_get, 0, time_travel},
    {"DELETE", NS, ACCESS_OWNER, h_namespace_drop, 0, namespace_drop},

    {"GET", NS "/tables", ACCESS_READER, h_tables_list, 0, time_travel},
    {"POST", NS "/tables", ACCESS_OWNER, h_tables_create, 0, no_args},
    {"GET", NS "/tables/{table}", ACCESS_READER, h_table_get, 0, table_get},
    {"DELETE", NS "/tables/{table}", ACCESS_OWNER, h_table_drop, 0, table_drop},
    {"POST", NS "/tables/{table}/alter", ACCESS_OWNER, h_table_alter, 0, table_alter},
    {"POST", NS "/tables/{table}/truncate", ACCESS_OWNER, h_table_truncate, 0, table_truncate},
    {"GET", NS "/tables/{table}/files", ACCESS_READER, h_table_files, 0, table_files},
    {"GET", NS "/tables/{table}/files/{file_id}/stats", ACCESS_READER, h_table_file_stats, 0,
     time_travel},
    {"GET", NS "/tables/{table}/scan", ACCESS_READER, h_table_scan, 0, table_scan},
    {"GET", NS "/tables/{table}/changes", ACCESS_READER, h_table_changes, 0, table_changes},
    {"GET", NS "/tables/{table}/partitions", ACCESS_READER, h_table_partitions, 0,
     table_partitions},

    {"GET", NS "/views", ACCESS_READER, h_views_list, 0, time_travel},
    {"POST", NS "/views", ACCESS_OWNER, h_views_create, ROUTE_LARGE_BODY, no_args},
    {"GET", NS "/views/{view}", ACCESS_READER, h_view_get, 0, time_travel},
    {"DELETE", NS "/views/{view}", ACCESS_OWNER, h_view_drop, 0, no_args},

    {"GET", CAT "/snapshots", ACCESS_READER, h_snapshots_list, 0, snapshot_page},
    {"GET", CAT "/snapshots/resolve", ACCESS_READER, h_snapshot_resolve, 0, snapshot_resolve},

    {"POST", CAT "/commit", ACCESS_WRITER, h_commit, ROUTE_LARGE_BODY, no_args},
    {"POST", CAT "/commit/prepared", ACCESS_WRITER, h_commit_prepared, ROUTE_LARGE_BODY, no_args},
    {"POST", CAT "/commit/deletes/prepared", ACCESS_WRITER, h_commit_deletes, ROUTE_LARGE_BODY,
     no_args},
    {"POST", CAT "/commit/mutations/prepared", ACCESS_WRITER, h_commit_mutations, ROUTE_LARGE_BODY,
     no_args},
    {"POST", CAT "/commit/uploads", ACCESS_WRITER, h_commit_uploads, ROUTE_LARGE_BODY, no_args},
    {"POST", CAT "/commit/transaction", ACCESS_WRITER, h_commit_transaction, ROUTE_LARGE_BODY,
     no_args},
    {"GET", CAT "/commit/receipts/{operation}", ACCESS_WRITER, h_commit_receipt, 0, no_args},

    {"POST", CAT "/uploads", ACCESS_WRITER, h_upload_claim_batch, 0, no_args},
    {"PUT", CAT "/uploads/{upload}", ACCESS_WRITER, h_upload_claim, 0, no_args},
    {"POST", CAT "/uploads/renew", ACCESS_WRITER, h_upload_renew, 0, no_args},
    {"POST", CAT "/uploads/abandon", ACCESS_WRITER, h_upload_abandon, ROUTE_LARGE_BODY, no_args},
    {"POST", CAT "/uploads/schedule-expired", ACCESS_WRITER, h_upload_schedule_expired, 0,
     upload_schedule},

    {"GET", CAT "/consumers", ACCESS_READER, h_consumers_list, 0, consumer_page},
    {"GET", CAT "/consumers/{consumer}/offsets", ACCESS_READER, h_consumer_offsets_list, 0,
     no_args},
    {"GET", CAT "/consumers/{consumer}/offsets/{table_uuid}", ACCESS_READER, h_consumer_offset_get,
     0, no_args},
    {"PUT", CAT "/consumers/{consumer}/offsets/{table_uuid}", ACCESS_WRITER, h_consumer_offset_put,
     0, no_args},

    {"POST", CAT "/maintenance/expire", ACCESS_OWNER, h_maintenance_expire, 0, maint_batch},
    {"POST", CAT "/maintenance/retire", ACCESS_OWNER, h_maintenance_retire, 0, maint_batch},
    {"POST", CAT "/maintenance/compact", ACCESS_OWNER, h_maintenance_compact, 0, maint_batch},
    {"GET", CAT "/maintenance/status", ACCESS_READER, h_maintenance_status, 0, no_args},
    {"GET", CAT "/maintenance/runs", ACCESS_READER, h_maintenance_runs, 0, maint_runs},
    {"POST", CAT "/maintenance/hydrate", ACCESS_OWNER, h_maintenance_hydrate, 0, hydrate_args},
    {"POST", CAT "/maintenance/rehydrate", ACCESS_OWNER, h_maintenance_rehydrate, 0,
     rehydrate_args},
    {"POST", CAT "/maintenance/cleanup", ACCESS_OWNER, h_maintenance_cleanup, 0, cleanup_args},
    {"POST", CAT "/maintenance/orphans", ACCESS_OWNER, h_maintenance_orphans, 0, orphans_args},
    {"GET", CAT "/stats/partitions", ACCESS_READER, h_stats_partitions, 0, stats_partitions_args},

    {"GET", CAT "/publications", ACCESS_READER, h_publications_stub, ROUTE_INLINE, NULL},
    {"POST", CAT "/publications", ACCESS_OWNER, h_publications_stub, ROUTE_INLINE, NULL},
    {"GET", CAT "/publications/{publication}", ACCESS_READER, h_publications_stub, ROUTE_INLINE,
     NULL},
    {"DELETE", CAT "/publications/{publication}", ACCESS_OWNER, h_publications_stub, ROUTE_INLINE,
     NULL},
    {"GET", CAT "/export", ACCESS_READER, h_export_stub, ROUTE_INLINE, NULL},

    {"GET", "/v1/tokens", ACCESS_ADMIN, h_tokens_list, 0, no_args},
    {"POST", "/v1/tokens", ACCESS_ADMIN, h_tokens_create, 0, no_args},
    {"DELETE", "/v1/tokens/{token_id}", ACCESS_ADMIN, h_token_revoke, 0, no_args},
};

const struct route *router_routes(size_t *count)
{
    *count = sizeof routes / sizeof routes[0];
    return routes;
}

bool router_check(const struct route **bad)
{
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (routes[i].access == ACCESS_UNDECLARED) {
            *bad = &routes[i];
            return false;
        }
    }
    return true;
}

bool route_in_catalog(const struct route *r)
{
    return strncmp(r->pattern, CAT, sizeof CAT - 1) == 0 &&
           (r->pattern[sizeof CAT - 1] == '\0' || r->pattern[sizeof CAT - 1] == '/');
}

/* Matches path segments against a pattern; captures {params} into
 * params[] as pointers into `segs` (already split, NUL-terminated). */
static bool pattern_matches(const char *pattern, char **segs, size_t nsegs,
                            const char *params[API_MAX_PATH_PARAMS])
{
    size_t si = 0, np = 0;
    const char *p = pattern;
    while (*p) {
        if (*p != '/')
            return false;
        p++;
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (si >= nsegs)
            return false;
        if (len >= 2 && p[0] == '{' && p[len - 1] == '}') {
            if (segs[si][0] == '\0' || np >= API_MAX_PATH_PARAMS)
                return false;
            if (params)
                params[np] = segs[si];
            np++;
        } else if (strlen(segs[si]) != len || strncmp(segs[si], p, len) != 0) {
            return false;
        }
        si++;
        p += len;
    }
    return si == nsegs;
}

enum route_match_result router_match(const char *method, const char *path, char *scratch,
                                     size_t scratch_size, const struct route **out,
                                     const char *params[API_MAX_PATH_PARAMS], char *allow,
                                     size_t allow_size)
{
    if (allow_size)
        allow[0] = '\0';
    /* No trailing-slash normalisation: "/healthz/" is not "/healthz". */
    size_t n = strlen(path);
    if (n == 0 || path[0] != '/' || n >= scratch_size)
        return ROUTE_NO_PATH;
    memcpy(scratch, path, n + 1);
    char *segs[16];
    size_t nsegs = 0;
    char *s = scratch + 1;
    for (;;) {
        if (nsegs == sizeof segs / sizeof segs[0])
            return ROUTE_NO_PATH;
        segs[nsegs++] = s;
        char *slash = strchr(s, '/');
        if (!slash)
            break;
        *slash = '\0';
        s = slash + 1;
    }
    bool path_known = false;
    size_t used = 0;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        const struct route *r = &routes[i];
        if (!pattern_matches(r->pattern, segs, nsegs, NULL))
            continue;
        if (strcmp(r->method, method) == 0) {
            pattern_matches(r->pattern, segs, nsegs, params);
            *out = r;
            if (allow_size)
                allow[0] = '\0'; /* only a 405 names the methods */
            return ROUTE_FOUND;
        }
        path_known = true;
        if (used < allow_size) {
            int w = snprintf(allow + used, allow_size - used, "%s%s", used ? ", " : "", r->method);
            if (w > 0)
                used += (size_t)w;
        }
    }
    return path_known ? ROUTE_BAD_METHOD : ROUTE_NO_PATH;
}
