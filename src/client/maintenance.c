/* Typed catalog settings and maintenance passes: the server's
 * CatalogOptions and maintenance results decoded into the structs of
 * include/hoglake/hoglake.h, by tables of member names and offsets so that
 * each struct is described once. */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "client/internal.h"

/* One member of an answer: its JSON name and where it goes. */
struct member {
    const char *name;
    size_t offset;
    bool is_bool; /* else int64_t */
    bool required;
};

#define I64(type, field)                                                                           \
    {                                                                                              \
#field, offsetof(type, field), false, false                                                \
    }
#define I64_REQ(type, field)                                                                       \
    {                                                                                              \
#field, offsetof(type, field), false, true                                                 \
    }
#define FLAG(type, field)                                                                          \
    {                                                                                              \
#field, offsetof(type, field), true, false                                                 \
    }

/* Fills out (size bytes, zeroed first) from obj's members. A required
 * member that is missing, or any member of the wrong type, is
 * HL_ERR_PROTOCOL naming it; out is then zeroed. */
static hl_status decode(const json_t *obj, const char *what, const struct member *members,
                        size_t nmembers, void *out, size_t size, struct hl_error *err)
{
    memset(out, 0, size);
    if (!json_is_object(obj))
        return client_fail(err, HL_ERR_PROTOCOL, "protocol", "the %s answer is not an object",
                           what);
    for (size_t i = 0; i < nmembers; i++) {
        const struct member *m = &members[i];
        json_t *v = json_object_get(obj, m->name);
        bool ok = m->is_bool ? json_is_boolean(v) : json_is_integer(v);
        if (!v && !m->required)
            continue;
        if (!ok) {
            memset(out, 0, size);
            return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                               "the %s answer's '%s' is missing or not %s", what, m->name,
                               m->is_bool ? "a boolean" : "an integer");
        }
        char *at = (char *)out + m->offset;
        if (m->is_bool)
            *(bool *)at = json_is_true(v);
        else
            *(int64_t *)at = (int64_t)json_integer_value(v);
    }
    return HL_OK;
}

/* ---- settings ---- */

static const struct member settings_members[] = {
    I64_REQ(struct hl_catalog_settings, earliest_snapshot_id),
    {"consumer_floor", offsetof(struct hl_catalog_settings, consumer_floor), true, true},
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
        st = decode(answer, "CatalogOptions", settings_members,
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
                          const char *what, const struct member *members, size_t nmembers,
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
        st = decode(answer, what, members, nmembers, out, size, err);
    json_decref(answer);
    return st;
}

#define RUN_PASS(c, task, o, what, members, out, err)                                              \
    run_pass(c, task, o, what, members, sizeof members / sizeof members[0], out, sizeof *(out), err)

#define E struct hl_expire_result
static const struct member expire_members[] = {
    I64_REQ(E, snapshots_expired),
    I64_REQ(E, data_files_queued),
    I64_REQ(E, delete_files_queued),
    I64_REQ(E, new_earliest_snapshot_id),
    FLAG(E, floored_by_consumer),
    I64(E, offsets_released),
    I64(E, purge_pages),
    FLAG(E, purge_truncated),
    I64(E, advance_halvings),
    I64(E, purge_failures),
    I64(E, purge_halvings),
    I64(E, purge_page),
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
static const struct member cleanup_members[] = {
    I64_REQ(C, removed),          I64_REQ(C, missing),
    I64_REQ(C, still_referenced), I64_REQ(C, refused),
    I64(C, settled_elsewhere),    I64(C, failed),
    I64(C, ledger_purged),        I64(C, runs_purged),
    I64(C, receipts_purged),      I64(C, receipts_purge_failures),
};
#undef C

hl_status hl_catalog_cleanup(hl_catalog *c, const struct hl_maintenance_options *o,
                             struct hl_cleanup_result *out, struct hl_error *err)
{
    return RUN_PASS(c, "cleanup", o, "CleanupResult", cleanup_members, out, err);
}

#define K struct hl_compact_result
static const struct member compact_members[] = {
    I64_REQ(K, groups_compacted),
    I64_REQ(K, files_in),
    I64_REQ(K, files_out),
    I64_REQ(K, bytes_in),
    I64_REQ(K, bytes_out),
    I64_REQ(K, skipped_conflicts),
    I64_REQ(K, dv_superseded),
    I64_REQ(K, unconvertible_schema),
    I64_REQ(K, invalid_data),
    I64_REQ(K, heap_budget_exceeded),
    I64_REQ(K, failed_groups),
    I64_REQ(K, storage_refused),
    I64(K, claimed_elsewhere),
    I64(K, dvs_applied),
    I64(K, rows_dropped),
    I64(K, variant_columns_carried),
    I64(K, variant_columns_reencoded),
    I64(K, candidates_files),
    I64(K, candidates_with_dv),
    I64(K, candidates_claimed),
    I64(K, left_too_few_files),
    I64(K, left_too_few_partitions),
    I64(K, left_over_budget_files),
    I64(K, left_claimed_files),
    FLAG(K, batch_reached),
    I64(K, plan_ms),
};
#undef K

hl_status hl_catalog_compact(hl_catalog *c, const struct hl_maintenance_options *o,
                             struct hl_compact_result *out, struct hl_error *err)
{
    return RUN_PASS(c, "compact", o, "CompactionResult", compact_members, out, err);
}

#define H struct hl_hydrate_result
static const struct member hydrate_members[] = {
    I64_REQ(H, hydrated),
    I64_REQ(H, failed),
    I64_REQ(H, transient_errors),
    I64_REQ(H, still_pending),
};
#undef H

hl_status hl_catalog_hydrate(hl_catalog *c, const struct hl_maintenance_options *o,
                             struct hl_hydrate_result *out, struct hl_error *err)
{
    return RUN_PASS(c, "hydrate", o, "HydrateResult", hydrate_members, out, err);
}
