/* Consumer offsets: per (consumer, table incarnation) the last snapshot a
 * changefeed consumer has committed. Offsets are not snapshots: they take
 * no catalog lock and allocate nothing. Monotonicity is enforced by one
 * conditional upsert, never by a read followed by a write. */
#include <stdio.h>
#include <string.h>

#include "server/catalog/catalog.h"
#include "server/http/handlers.h"
#include "server/server.h"
#include "server/store/consumers.h"
#include "util/jsonx.h"
#include "util/strutil.h"
#include "util/timefmt.h"

/* A page of the consumer listing: offsets, as the other paged reads count
 * entries. */
enum { CONSUMER_ID_MAX = 128, CONSUMER_PAGE_DEFAULT = 1000 };

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

/* The path's catalog, and the request's connection: NULL with err set. */
static struct db_conn *catalog_db(struct srv_req *req, struct catalog_row *cat,
                                  struct api_error *err)
{
    if (catalog_load(req, req->params[P_CATALOG], cat, err) != 0)
        return NULL;
    return req_db(req, err);
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
    struct db_conn *db = catalog_db(req, &cat, err);
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
    struct db_conn *db = catalog_db(req, &cat, err);
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
    struct db_conn *db = catalog_db(req, &cat, err);
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

/* ---- GET .../consumers, a page at a time ----
 *
 * A page holds at most `limit` offsets in (consumer id bytewise, table
 * uuid) order and resumes after the last one: its next_page_token is that
 * pair, hex-encoded (the uuid's 36 characters, then the consumer id).
 * Nothing in it needs hiding or pinning: offsets have no snapshot, and a
 * made-up token names a position in a listing the caller may read
 * anyway; it is checked for form only. */

enum { UUID_TEXT = 36, CONSUMER_TOKEN_MAX = 2 * (UUID_TEXT + CONSUMER_ID_MAX) };

static int consumer_token_invalid(struct api_error *err)
{
    return api_bad_request(err, "query parameter 'page_token' is not a page token this server "
                                "issued (send next_page_token back exactly as received)");
}

/* Reads ?page_token= into uuid (UUID_TEXT + 1 bytes) and consumer
 * (CONSUMER_ID_MAX + 1): 1 resumed, 0 no token, -1 a bad one. */
static int consumer_token_parse(const struct srv_req *req, char *uuid, char *consumer,
                                struct api_error *err)
{
    const char *text = req_arg(req, "page_token");
    if (!text)
        return 0;
    size_t len = strlen(text);
    if (len % 2 != 0 || len <= 2 * UUID_TEXT || len > CONSUMER_TOKEN_MAX)
        return consumer_token_invalid(err);
    char plain[UUID_TEXT + CONSUMER_ID_MAX + 1];
    /* A NUL byte would end the consumer id early: a token naming another
     * id than its bytes spell is not one this server issued. */
    if (str_hex_decode(text, len, plain) != 0 || memchr(plain, '\0', len / 2))
        return consumer_token_invalid(err);
    plain[len / 2] = '\0';
    memcpy(uuid, plain, UUID_TEXT);
    uuid[UUID_TEXT] = '\0';
    strcpy(consumer, plain + UUID_TEXT);
    if (!str_is_uuid(uuid) || !consumer_id_valid(consumer))
        return consumer_token_invalid(err);
    return 1;
}

/* The token resuming after this offset, in the arena; NULL out of memory. */
static const char *consumer_token(struct arena *a, const struct store_consumer_offset *o)
{
    char plain[UUID_TEXT + CONSUMER_ID_MAX + 1];
    int n = snprintf(plain, sizeof plain, "%s%s", o->table_uuid, o->consumer_id);
    if (n < 0 || (size_t)n >= sizeof plain)
        return NULL;
    char *text = arena_alloc(a, 2 * (size_t)n + 1);
    if (text)
        str_hex_encode(plain, (size_t)n, text);
    return text;
}

/* The page's offsets grouped by consumer, in order; NULL out of memory. */
static json_t *consumers_json(const struct store_consumer_offset *offs, size_t n)
{
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
                return NULL;
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
            return NULL;
        }
    }
    return consumers;
}

int h_consumers_list(struct srv_req *req, struct srv_res *res, struct api_error *err)
{
    int64_t limit;
    if (req_page_limit(req, CONSUMER_PAGE_DEFAULT, req->srv->cfg.page_size_max, &limit, err) != 0)
        return -1;
    char after_uuid[UUID_TEXT + 1], after_consumer[CONSUMER_ID_MAX + 1];
    int resumed = consumer_token_parse(req, after_uuid, after_consumer, err);
    if (resumed < 0)
        return -1;
    struct catalog_row cat;
    struct db_conn *db = catalog_db(req, &cat, err);
    if (!db)
        return -1;
    struct store_consumer_offset *offs;
    size_t n;
    struct error dberr;
    if (store_consumers_page(db, &req->arena, cat.id, resumed ? after_consumer : NULL,
                             resumed ? after_uuid : NULL, limit + 1, &offs, &n, &dberr) != 0)
        return api_from_error(err, &dberr, "consumer list");
    bool more = n > (size_t)limit;
    if (more)
        n = (size_t)limit;
    const char *next = more ? consumer_token(&req->arena, &offs[n - 1]) : NULL;
    json_t *consumers = consumers_json(offs, n);
    if (!consumers || (more && !next)) {
        json_decref(consumers);
        return api_nomem(err);
    }
    if (api_json(res, 200,
                 json_pack("{s:o,s:s?}", "consumers", consumers, "next_page_token", next)) != 0)
        return api_nomem(err);
    return 0;
}
