/* Consumer offsets: per (consumer, table incarnation) the last snapshot a
 * changefeed consumer has committed. Offsets are not snapshots: they take
 * no catalog lock and allocate nothing. Monotonicity is enforced by one
 * conditional upsert, never by a read followed by a write. */
#include <stdio.h>
#include <string.h>

#include "server/catalog/catalog.h"
#include "server/http/handlers.h"
#include "server/store/consumers.h"
#include "util/jsonx.h"
#include "util/strutil.h"
#include "util/timefmt.h"

enum { CONSUMER_ID_MAX = 128 };

#define CONSUMER_ID_PATTERN "^[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,127}$"

/* Path parameters of the consumer routes, in pattern order after the
 * catalog. */
enum { P_CATALOG = 0, P_CONSUMER = 1, P_TABLE_UUID = 2 };

static bool consumer_char(char c, bool first)
{
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
        return true;
    return !first && (c == '.' || c == ':' || c == '@' || c == '-');
}

/* Consumer ids are chosen by clients and live in URL paths: a conservative
 * ASCII set that needs no escaping, and never "." or ".." (which URL
 * libraries collapse). */
static bool consumer_id_valid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > CONSUMER_ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!consumer_char(s[i], i == 0))
            return false;
    return true;
}

static int check_consumer_id(const char *id, struct api_error *err)
{
    if (consumer_id_valid(id))
        return 0;
    return api_validation(err, "invalid consumer id '%.130s' (must match %s)", id,
                          CONSUMER_ID_PATTERN);
}

static int check_table_uuid(const char *uuid, struct api_error *err)
{
    if (str_is_uuid(uuid))
        return 0;
    return api_bad_request(err, "path parameter {table_uuid} must be a UUID, got '%.40s'", uuid);
}

/* ConsumerOffset. */
static json_t *offset_to_json(const struct store_consumer_offset *o)
{
    char ts[48];
    time_format_iso8601(o->updated_at_us, ts, sizeof ts);
    return json_pack("{s:s,s:s,s:I,s:s}", "consumer_id", o->consumer_id, "table_uuid",
                     o->table_uuid, "committed_snapshot", (json_int_t)o->committed_snapshot,
                     "updated_at", ts);
}

/* The upsert matched no row: either the stored offset is ahead (409), or
 * expiry moved the floor past the offset since the catalog was read (410). */
static int classify_refused_offset(struct srv_req *req, const struct catalog_row *cat,
                                   const char *consumer, const char *uuid, int64_t snapshot,
                                   struct api_error *err)
{
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct store_offset_refusal seen;
    struct error dberr;
    int found = store_consumer_offset_refusal(db, cat->id, consumer, uuid, &seen, &dberr);
    if (found < 0)
        return api_from_error(err, &dberr, "consumer offset");
    if (!found)
        return api_not_found(err, "catalog '%s'", cat->name);
    bool stored_present = seen.has_stored;
    int64_t stored = seen.stored;
    struct catalog_row floor = *cat;
    floor.earliest = seen.earliest;
    floor.has_earliest_time = seen.has_earliest_time;
    floor.earliest_time_us = seen.earliest_time_us;
    /* Offsets only grow, so a stored offset seen ahead now was ahead when
     * the upsert refused. */
    if (stored_present && stored > snapshot)
        return api_conflict(err, "offset_regression",
                            "offset %lld for consumer '%s' on table %s is lower than its "
                            "committed offset %lld; offsets only move forward",
                            (long long)snapshot, consumer, uuid, (long long)stored);
    if (snapshot < floor.earliest)
        return timetravel_expired(err, &floor, snapshot, "snapshot_id");
    return api_fail(err, 500, "internal_error", "internal server error");
}

int h_consumer_offset_put(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *consumer = req->params[P_CONSUMER], *uuid = req->params[P_TABLE_UUID];
    if (check_table_uuid(uuid, err) != 0)
        return -1;
    json_t *jsnap;
    const struct jfield fields[] = {{"snapshot_id", JF_INT, true, false, &jsnap}};
    json_t *body = req_json_fields(req, fields, 1, err);
    if (!body)
        return -1;
    int64_t snapshot = (int64_t)json_integer_value(jsnap);
    json_decref(body);
    if (check_consumer_id(consumer, err) != 0)
        return -1;
    struct catalog_row cat;
    if (catalog_load(req, req->params[P_CATALOG], &cat, err) != 0)
        return -1;
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct error dberr;
    int exists = store_consumer_table_exists(db, cat.id, uuid, &dberr);
    if (exists < 0)
        return api_from_error(err, &dberr, "consumer offset table");
    if (!exists)
        return api_not_found(err, "table with table_uuid %s in catalog '%s'", uuid, cat.name);
    if (snapshot < 0 || snapshot > cat.head)
        return api_validation(err, "snapshot_id %lld out of range [0, %lld] for catalog '%s'",
                              (long long)snapshot, (long long)cat.head, cat.name);
    if (snapshot < cat.earliest)
        return timetravel_expired(err, &cat, snapshot, "snapshot_id");

    struct store_consumer_offset stored;
    int took = store_consumer_offset_upsert(db, &req->arena, cat.id, consumer, uuid, snapshot,
                                            &stored, &dberr);
    if (took < 0)
        return api_from_error(err, &dberr, "consumer offset");
    if (!took)
        return classify_refused_offset(req, &cat, consumer, uuid, snapshot, err);
    if (api_json(res, 200, offset_to_json(&stored)) != 0)
        return api_nomem(err);
    return 0;
}

int h_consumer_offset_get(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *consumer = req->params[P_CONSUMER], *uuid = req->params[P_TABLE_UUID];
    if (check_table_uuid(uuid, err) != 0)
        return -1;
    struct catalog_row cat;
    if (catalog_load(req, req->params[P_CATALOG], &cat, err) != 0)
        return -1;
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct store_consumer_offset o;
    struct error dberr;
    int found = store_consumer_offset_get(db, &req->arena, cat.id, consumer, uuid, &o, &dberr);
    if (found < 0)
        return api_from_error(err, &dberr, "consumer offset");
    if (!found)
        return api_not_found(err, "no offset for consumer '%.130s' on table %s in catalog '%s'",
                             consumer, uuid, cat.name);
    if (api_json(res, 200, offset_to_json(&o)) != 0)
        return api_nomem(err);
    return 0;
}

int h_consumer_offsets_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    const char *consumer = req->params[P_CONSUMER];
    struct catalog_row cat;
    if (catalog_load(req, req->params[P_CATALOG], &cat, err) != 0)
        return -1;
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct store_consumer_offset *offs;
    size_t n;
    struct error dberr;
    if (store_consumer_offsets_list(db, &req->arena, cat.id, consumer, &offs, &n, &dberr) != 0)
        return api_from_error(err, &dberr, "consumer offsets");
    if (n == 0) {
        /* A consumer exists only through its offsets. */
        return api_not_found(err, "consumer '%.130s' in catalog '%s' (it has no offsets)", consumer,
                             cat.name);
    }
    json_t *out = json_array();
    for (size_t i = 0; out && i < n; i++) {
        if (json_array_append_new(out, offset_to_json(&offs[i])) != 0) {
            json_decref(out);
            out = NULL;
        }
    }
    if (api_json(res, 200, out) != 0)
        return api_nomem(err);
    return 0;
}

int h_consumers_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    struct catalog_row cat;
    if (catalog_load(req, req->params[P_CATALOG], &cat, err) != 0)
        return -1;
    struct db_conn *db = req_db(req, err);
    if (!db)
        return -1;
    struct store_consumer_offset *offs;
    size_t n;
    struct error dberr;
    if (store_consumers_list(db, &req->arena, cat.id, &offs, &n, &dberr) != 0)
        return api_from_error(err, &dberr, "consumer list");
    json_t *consumers = json_array(), *offsets = NULL;
    const char *current = NULL;
    for (size_t i = 0; consumers && i < n; i++) {
        const struct store_consumer_offset *off = &offs[i];
        const char *id = off->consumer_id;
        if (!current || strcmp(current, id) != 0) {
            offsets = json_array();
            json_t *c = json_pack("{s:s,s:o*}", "consumer_id", id, "offsets", offsets);
            if (!offsets || !c || json_array_append_new(consumers, c) != 0) {
                json_decref(consumers);
                consumers = NULL;
                break;
            }
            current = id;
        }
        char ts[48];
        time_format_iso8601(off->updated_at_us, ts, sizeof ts);
        bool dropped = off->table_name == NULL;
        json_t *o = json_pack("{s:s,s:I,s:s,s:b}", "table_uuid", off->table_uuid,
                              "committed_snapshot", (json_int_t)off->committed_snapshot,
                              "updated_at", ts, "table_dropped", dropped);
        if (o && !dropped) {
            json_object_set_new(o, "namespace", json_string(off->namespace_name));
            json_object_set_new(o, "table_name", json_string(off->table_name));
        }
        if (!o || json_array_append_new(offsets, o) != 0) {
            json_decref(consumers);
            consumers = NULL;
        }
    }
    if (!consumers)
        return api_nomem(err);
    if (api_json(res, 200, json_pack("{s:o}", "consumers", consumers)) != 0)
        return api_nomem(err);
    return 0;
}
