/* Typed catalog settings and maintenance passes: the server's
 * CatalogOptions and maintenance results decoded into the structs of
 * include/hoglake/hoglake.h by member tables (client_decode). */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "client/decode.h"

/* ---- settings ---- */

static const struct client_member settings_members[] = {
    CM(struct hl_catalog_settings, earliest_snapshot_id, CM_I64, true),
    CM(struct hl_catalog_settings, consumer_floor, CM_BOOL, true),
};

/* Sends method to the catalog's /options with body (may be NULL) and
 * decodes the CatalogOptions answer into *out (may be NULL). */
static hl_status settings_request(hl_catalog *c, const char *method, const json_t *body,
                                  struct hl_catalog_settings *out, struct hl_error *err)
{
    struct buf path = BUF_INIT;
    json_t *answer = NULL;
    hl_status st = client_catalog_path(&path, c) == 0 && buf_puts(&path, "/options") == 0
                       ? client_json(c->client, method, path.data, body, &answer, err)
                       : client_nomem(err);
    buf_free(&path);
    struct hl_catalog_settings local;
    struct hl_catalog_settings *s = out ? out : &local;
    if (st == HL_OK)
        st = client_decode(answer, "CatalogOptions", settings_members,
                           sizeof settings_members / sizeof settings_members[0], s, sizeof *s, err);
    else
        memset(s, 0, sizeof *s);
    if (st == HL_OK) {
        /* Absent (or null): no retention, expiry disabled. */
        json_t *r = json_object_get(answer, "snapshot_retention_seconds");
        s->retention_seconds = json_is_integer(r) ? (int64_t)json_integer_value(r) : -1;
    }
    json_decref(answer);
    return st;
}

hl_status hl_catalog_get_settings(hl_catalog *c, struct hl_catalog_settings *out,
                                  struct hl_error *err)
{
    if (!c || !out)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a catalog and a result are required");
    return settings_request(c, "GET", NULL, out, err);
}

void hl_catalog_settings_change_init(struct hl_catalog_settings_change *change)
{
    memset(change, 0, sizeof *change);
    change->consumer_floor = -1;
}

hl_status hl_catalog_change_settings(hl_catalog *c, const struct hl_catalog_settings_change *change,
                                     struct hl_catalog_settings *out, struct hl_error *err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!c || !change)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a catalog and a change are required");
    if (change->consumer_floor < -1 || change->consumer_floor > 1)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "consumer_floor must be -1, 0 or 1 (got %d)", change->consumer_floor);
    json_t *body = json_object();
    bool built =
        body &&
        (!change->set_retention ||
         json_object_set_new(body, "snapshot_retention_seconds",
                             change->retention_seconds <= 0
                                 ? json_null()
                                 : json_integer(change->retention_seconds)) == 0) &&
        (change->consumer_floor < 0 ||
         json_object_set_new(body, "consumer_floor", json_boolean(change->consumer_floor)) == 0);
    hl_status st = built ? settings_request(c, "PATCH", body, out, err) : client_nomem(err);
    json_decref(body);
    /* The writer cache ages out by the retention: read it again. */
    catalog_forget_retention(c);
    return st;
}

/* ---- maintenance passes ---- */

void hl_maintenance_options_init(struct hl_maintenance_options *o)
{
    memset(o, 0, sizeof *o);
}

/* POSTs .../maintenance/<task>[?batch=N] and decodes the answer. */
static hl_status run_pass(hl_catalog *c, const char *task, const struct hl_maintenance_options *o,
                          const char *what, const struct client_member *members, size_t nmembers,
                          void *out, size_t size, struct hl_error *err)
{
    if (out)
        memset(out, 0, size);
    if (!c || !out)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a catalog and a result are required");
    if (o && o->batch < 0)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "batch must be positive or 0 for the server's default (got %" PRId64 ")",
                           o->batch);
    struct buf path = BUF_INIT;
    json_t *answer = NULL;
    bool built = client_catalog_path(&path, c) == 0 && buf_puts(&path, "/maintenance/") == 0 &&
                 buf_puts(&path, task) == 0 &&
                 (!o || o->batch == 0 || buf_printf(&path, "?batch=%" PRId64, o->batch) == 0);
    hl_status st =
        built ? client_json(c->client, "POST", path.data, NULL, &answer, err) : client_nomem(err);
    buf_free(&path);
    if (st == HL_OK)
        st = client_decode(answer, what, members, nmembers, out, size, err);
    json_decref(answer);
    return st;
}

#define RUN_PASS(c, task, o, what, members, out, err)                                              \
    run_pass(c, task, o, what, members, sizeof members / sizeof members[0], out, sizeof *(out), err)

#define E struct hl_expire_result
static const struct client_member expire_members[] = {
    CM(E, snapshots_expired, CM_I64, true),     CM(E, data_files_queued, CM_I64, true),
    CM(E, delete_files_queued, CM_I64, true),   CM(E, new_earliest_snapshot_id, CM_I64, true),
    CM(E, floored_by_consumer, CM_BOOL, false), CM(E, offsets_released, CM_I64, false),
    CM(E, purge_pages, CM_I64, false),          CM(E, purge_truncated, CM_BOOL, false),
    CM(E, advance_halvings, CM_I64, false),     CM(E, purge_failures, CM_I64, false),
    CM(E, purge_halvings, CM_I64, false),       CM(E, purge_page, CM_I64, false),
};
#undef E

hl_status hl_catalog_expire(hl_catalog *c, const struct hl_maintenance_options *o,
                            struct hl_expire_result *out, struct hl_error *err)
{
    hl_status st = RUN_PASS(c, "expire", o, "ExpiryResult", expire_members, out, err);
    /* The floor moved: the writer cache's age limit is read again. */
    if (c)
        catalog_forget_retention(c);
    return st;
}

#define C struct hl_cleanup_result
static const struct client_member cleanup_members[] = {
    CM(C, removed, CM_I64, true),
    CM(C, missing, CM_I64, true),
    CM(C, still_referenced, CM_I64, true),
    CM(C, refused, CM_I64, true),
    CM(C, settled_elsewhere, CM_I64, false),
    CM(C, failed, CM_I64, false),
    CM(C, ledger_purged, CM_I64, false),
    CM(C, runs_purged, CM_I64, false),
    CM(C, receipts_purged, CM_I64, false),
    CM(C, receipts_purge_failures, CM_I64, false),
};
#undef C

hl_status hl_catalog_cleanup(hl_catalog *c, const struct hl_maintenance_options *o,
                             struct hl_cleanup_result *out, struct hl_error *err)
{
    return RUN_PASS(c, "cleanup", o, "CleanupResult", cleanup_members, out, err);
}

#define K struct hl_compact_result
static const struct client_member compact_members[] = {
    CM(K, groups_compacted, CM_I64, true),
    CM(K, files_in, CM_I64, true),
    CM(K, files_out, CM_I64, true),
    CM(K, bytes_in, CM_I64, true),
    CM(K, bytes_out, CM_I64, true),
    CM(K, skipped_conflicts, CM_I64, true),
    CM(K, dv_superseded, CM_I64, true),
    CM(K, unconvertible_schema, CM_I64, true),
    CM(K, invalid_data, CM_I64, true),
    CM(K, heap_budget_exceeded, CM_I64, true),
    CM(K, failed_groups, CM_I64, true),
    CM(K, storage_refused, CM_I64, true),
    CM(K, claimed_elsewhere, CM_I64, false),
    CM(K, dvs_applied, CM_I64, false),
    CM(K, rows_dropped, CM_I64, false),
    CM(K, variant_columns_carried, CM_I64, false),
    CM(K, variant_columns_reencoded, CM_I64, false),
    CM(K, candidates_files, CM_I64, false),
    CM(K, candidates_with_dv, CM_I64, false),
    CM(K, candidates_claimed, CM_I64, false),
    CM(K, left_too_few_files, CM_I64, false),
    CM(K, left_too_few_partitions, CM_I64, false),
    CM(K, left_over_budget_files, CM_I64, false),
    CM(K, left_claimed_files, CM_I64, false),
    CM(K, batch_reached, CM_BOOL, false),
    CM(K, plan_ms, CM_I64, false),
};
#undef K

hl_status hl_catalog_compact(hl_catalog *c, const struct hl_maintenance_options *o,
                             struct hl_compact_result *out, struct hl_error *err)
{
    return RUN_PASS(c, "compact", o, "CompactionResult", compact_members, out, err);
}

#define H struct hl_hydrate_result
static const struct client_member hydrate_members[] = {
    CM(H, hydrated, CM_I64, true),
    CM(H, failed, CM_I64, true),
    CM(H, transient_errors, CM_I64, true),
    CM(H, still_pending, CM_I64, true),
};
#undef H

hl_status hl_catalog_hydrate(hl_catalog *c, const struct hl_maintenance_options *o,
                             struct hl_hydrate_result *out, struct hl_error *err)
{
    return RUN_PASS(c, "hydrate", o, "HydrateResult", hydrate_members, out, err);
}
