/* Consumer offsets over HTTP against a real hoglaked and PostgreSQL: the
 * PUT/GET round trip and response shapes, monotonicity (regression 409,
 * equal is a no-op, eight concurrent writers end at the maximum), the
 * snapshot range (head 422, floor 410), strict bodies and path parameters,
 * every 404, the cleanup of offsets on replaced incarnations (followed
 * transitively), the consumer list with names resolved at the head, and
 * offsets never waiting for the catalog lock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define CAT "csm"
#define NS "ns"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

/* ---- helpers ---- */

static const char *cols = "[{'name':'id','type':'long'}]";

/* Creates CAT.NS.name (or in `ns`) and returns its table_uuid (static
 * ring of buffers, enough for one test). */
static const char *create_table_in(const char *cat, const char *ns, const char *name)
{
    static char ring[16][40];
    static int next;
    char *c = dq(cols);
    json_t *t = make_table(&srv, cat, ns, name, c);
    free(c);
    char *out = ring[next++ % 16];
    snprintf(out, 40, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    return out;
}

static const char *create_table(const char *name)
{
    return create_table_in(CAT, NS, name);
}

static void put_offset_body(struct http_result *r, const char *cat, const char *consumer,
                            const char *uuid, const char *body)
{
    char *b = dq(body);
    api_send_text(r, &srv, "PUT", b, "/v1/catalogs/%s/consumers/%s/offsets/%s", cat, consumer,
                  uuid);
    free(b);
}

static void put_offset(struct http_result *r, const char *cat, const char *consumer,
                       const char *uuid, int64_t snap)
{
    api_send(r, &srv, "PUT", jpack("{s:I}", "snapshot_id", (json_int_t)snap),
             "/v1/catalogs/%s/consumers/%s/offsets/%s", cat, consumer, uuid);
}

static json_t *put_ok(const char *cat, const char *consumer, const char *uuid, int64_t snap)
{
    struct http_result r;
    put_offset(&r, cat, consumer, uuid, snap);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    return out;
}

static void put_fails(const char *cat, const char *consumer, const char *uuid, int64_t snap,
                      long status, const char *code, const char *needle)
{
    struct http_result r;
    put_offset(&r, cat, consumer, uuid, snap);
    expect_error(&r, status, code);
    if (needle)
        expect_detail_contains(&r, needle);
    http_result_free(&r);
}

/* The stored offset, -1 when there is none. */
static int64_t stored(const char *cat, const char *consumer, const char *uuid)
{
    return sqli("SELECT (SELECT committed_snapshot FROM hog_consumer_offset WHERE catalog_id ="
                " %lld AND consumer_id = '%s' AND table_uuid = '%s')",
                (long long)cat_id(cat), consumer, uuid);
}

static int64_t offset_rows(const char *cat)
{
    return sqli("SELECT count(*) FROM hog_consumer_offset WHERE catalog_id = %lld",
                (long long)cat_id(cat));
}

/* Advances the catalog head by n snapshots the way data commits do (no
 * schema_version bump, no change rows needed for this test). */
static void add_snapshots(const char *cat, int n)
{
    int64_t c = cat_id(cat);
    sql_exec("WITH h AS (SELECT last_snapshot_id AS h, schema_version AS sv FROM hog_catalog"
             " WHERE catalog_id = %lld)"
             " INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time, schema_version)"
             " SELECT %lld, h.h + g, clock_timestamp(), h.sv FROM h, generate_series(1, %d) g",
             (long long)c, (long long)c, n);
    sql_exec("UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + %d WHERE catalog_id ="
             " %lld",
             n, (long long)c);
}

static json_t *jget(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        char *dump = json_dumps(o, JSON_COMPACT);
        fail_msg("missing member '%s' in %s", key, dump ? dump : "?");
    }
    return v;
}

static void expect_absent(const json_t *o, const char *key)
{
    if (json_object_get(o, key)) {
        char *dump = json_dumps(o, JSON_COMPACT);
        fail_msg("member '%s' should be absent in %s", key, dump ? dump : "?");
    }
}

static void upper_case(char *s)
{
    for (; *s; s++)
        if (*s >= 'a' && *s <= 'f')
            *s = (char)(*s - 'a' + 'A');
}

/* ---- setup ---- */

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "consumers", CAT, NS);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* ---- tests ---- */

static void put_and_get_round_trip(void **state)
{
    (void)state;
    const char *uuid = create_table("rt");
    int64_t h0, sv0;
    api_head(&srv, CAT, &h0, &sv0);

    json_t *o = put_ok(CAT, "reader-1", uuid, h0);
    assert_int_equal(json_object_size(o), 4);
    assert_string_equal(jstr(o, "consumer_id"), "reader-1");
    assert_string_equal(jstr(o, "table_uuid"), uuid);
    assert_int_equal(jint(o, "committed_snapshot"), h0);
    const char *at = jstr(o, "updated_at");
    assert_true(strlen(at) >= 20 && at[strlen(at) - 1] == 'Z' && at[10] == 'T');
    /* Offsets are not snapshots. */
    expect_api_head(&srv, CAT, h0, sv0);
    assert_int_equal(stored(CAT, "reader-1", uuid), h0);

    json_t *g = api_get_json(&srv, "/v1/catalogs/" CAT "/consumers/reader-1/offsets/%s", uuid);
    assert_true(json_equal(g, o));
    json_decref(g);

    /* An upper-case UUID names the same table; responses are canonical. */
    char upper[40];
    snprintf(upper, sizeof upper, "%s", uuid);
    upper_case(upper);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/consumers/reader-1/offsets/%s", upper);
    assert_string_equal(jstr(g, "table_uuid"), uuid);
    json_decref(g);
    json_t *o2 = put_ok(CAT, "reader-1", upper, h0);
    assert_string_equal(jstr(o2, "table_uuid"), uuid);
    assert_int_equal(sqli("SELECT count(*) FROM hog_consumer_offset WHERE catalog_id = %lld AND"
                          " consumer_id = 'reader-1'",
                          (long long)cat_id(CAT)),
                     1);

    /* One consumer's offsets. */
    json_t *list = api_get_json(&srv, "/v1/catalogs/" CAT "/consumers/reader-1/offsets");
    assert_true(json_is_array(list));
    assert_int_equal(json_array_size(list), 1);
    assert_true(json_equal(json_array_get(list, 0), o));
    json_decref(list);
    json_decref(o);
    json_decref(o2);
}

static void offsets_are_monotonic(void **state)
{
    (void)state;
    const char *uuid = create_table("mono");
    add_snapshots(CAT, 5);
    int64_t h = head_of(CAT);

    json_t *first = put_ok(CAT, "mono", uuid, h - 2);
    /* Lower: 409, nothing changes. */
    put_fails(CAT, "mono", uuid, h - 3, 409, "offset_regression", "committed offset");
    put_fails(CAT, "mono", uuid, 0, 409, "offset_regression", NULL);
    assert_int_equal(stored(CAT, "mono", uuid), h - 2);

    /* Equal: a no-op success; updated_at is kept. */
    sleep_ms(20);
    json_t *same = put_ok(CAT, "mono", uuid, h - 2);
    assert_true(json_equal(same, first));

    /* Forward: moves, with a new updated_at. */
    sleep_ms(20);
    json_t *fwd = put_ok(CAT, "mono", uuid, h);
    assert_int_equal(jint(fwd, "committed_snapshot"), h);
    assert_true(strcmp(jstr(fwd, "updated_at"), jstr(first, "updated_at")) > 0);
    put_fails(CAT, "mono", uuid, h - 1, 409, "offset_regression", NULL);
    assert_int_equal(stored(CAT, "mono", uuid), h);

    /* Independent per consumer and per table. */
    json_t *other = put_ok(CAT, "mono-2", uuid, 1);
    assert_int_equal(jint(other, "committed_snapshot"), 1);
    json_decref(first);
    json_decref(same);
    json_decref(fwd);
    json_decref(other);
}

static void snapshot_range_and_floor(void **state)
{
    (void)state;
    const char *cat = "csmfloor";
    make_catalog(&srv, cat);
    make_namespace(&srv, cat, NS);
    const char *uuid = create_table_in(cat, NS, "t");
    add_snapshots(cat, 10);
    int64_t h = head_of(cat);

    put_fails(cat, "c", uuid, h + 1, 422, "validation", "out of range");
    put_fails(cat, "c", uuid, -1, 422, "validation", "out of range");
    put_fails(cat, "c", uuid, INT64_MAX, 422, "validation", NULL);
    json_t *o = put_ok(cat, "c", uuid, h);
    json_decref(o);
    o = put_ok(cat, "low", uuid, 3);
    json_decref(o);

    /* Expiry (simulated) moves the floor to h - 4. */
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = %lld, earliest_snapshot_time ="
             " '2026-09-05T12:00:00Z' WHERE catalog_id = %lld",
             (long long)(h - 4), (long long)cat_id(cat));
    char needle[320];
    snprintf(needle, sizeof needle,
             "snapshot_id %lld is below the expiry floor (earliest retained snapshot is %lld, "
             "reached at 2026-09-05T12:00:00Z) for catalog '%s'",
             (long long)(h - 5), (long long)(h - 4), cat);
    put_fails(cat, "new", uuid, h - 5, 410, "expired", needle);
    /* Below the floor is 410 before the regression check. */
    put_fails(cat, "c", uuid, 0, 410, "expired", NULL);
    assert_int_equal(stored(cat, "new", uuid), -1);
    /* The floor itself is accepted; an offset left below it (written before
     * the floor moved) can still move forward. */
    o = put_ok(cat, "new", uuid, h - 4);
    json_decref(o);
    o = put_ok(cat, "low", uuid, h - 4);
    assert_int_equal(jint(o, "committed_snapshot"), h - 4);
    json_decref(o);
}

static void bodies_and_path_parameters(void **state)
{
    (void)state;
    const char *uuid = create_table("strict");
    int64_t rows = offset_rows(CAT);
    struct http_result r;

    /* Strict body. */
    const char *bad_bodies[] = {
        "{'snapshot_id':1,'extra':true}",
        "{}",
        "{'snapshot_id':'1'}",
        "{'snapshot_id':null}",
        "{'snapshot_id':1.5}",
        "[1]",
        "{'snapshot_id':1",
    };
    for (size_t i = 0; i < sizeof bad_bodies / sizeof bad_bodies[0]; i++) {
        put_offset_body(&r, CAT, "strict", uuid, bad_bodies[i]);
        expect_error(&r, 400, "bad_request");
        http_result_free(&r);
    }
    put_offset_body(&r, CAT, "strict", uuid, "{'snapshot_id':1,'extra':true}");
    expect_detail_contains(&r, "unknown field 'extra'");
    http_result_free(&r);
    char url[512];
    snprintf(url, sizeof url, "%s/v1/catalogs/" CAT "/consumers/strict/offsets/%s", srv.base, uuid);
    http_call(&r, "PUT", url, NULL, NULL, 0, NULL);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    http_call(&r, "PUT", url, "text/plain", "{\"snapshot_id\":1}", 17, NULL);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    api_send_text(&r, &srv, "PUT", "{\"snapshot_id\":1}",
                  "/v1/catalogs/" CAT "/consumers/strict/offsets/%s?force=true", uuid);
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "unknown query parameter 'force'");
    http_result_free(&r);

    /* The table UUID: 400 when malformed, on every route that takes one,
     * and before the body is read. */
    put_offset_body(&r, CAT, "strict", "not-a-uuid", "{'snapshot_id':1}");
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "must be a UUID");
    http_result_free(&r);
    put_offset_body(&r, CAT, "strict", "not-a-uuid", "{}");
    expect_detail_contains(&r, "must be a UUID");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/" CAT "/consumers/strict/offsets/%.35s", uuid);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);

    /* Consumer ids: 1..128 of [A-Za-z0-9_.:@-], not starting with . : @ -. */
    char id128[130], id129[131];
    memset(id128, 'c', 128);
    id128[128] = '\0';
    memset(id129, 'c', 129);
    id129[129] = '\0';
    json_t *o = put_ok(CAT, id128, uuid, 1);
    assert_string_equal(jstr(o, "consumer_id"), id128);
    json_decref(o);
    o = put_ok(CAT, "Svc_1.orders:v2@eu-west", uuid, 1);
    json_decref(o);
    const char *bad_ids[] = {id129, "a%20b", "caf%C3%A9", "-x", ".hidden", "a~b", "a+b"};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
        put_offset_body(&r, CAT, bad_ids[i], uuid, "{'snapshot_id':1}");
        expect_error(&r, 422, "validation");
        expect_detail_contains(&r, "invalid consumer id");
        http_result_free(&r);
    }
    /* A control character is refused for every path parameter (400). */
    put_offset_body(&r, CAT, "a%01b", uuid, "{'snapshot_id':1}");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    assert_int_equal(offset_rows(CAT), rows + 2);
}

static void not_found(void **state)
{
    (void)state;
    const char *uuid = create_table("nf");
    int64_t h = head_of(CAT);
    struct http_result r;

    /* Catalog. */
    put_offset(&r, "nocat", "c", uuid, 0);
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/nocat/consumers");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/nocat/consumers/c/offsets");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/nocat/consumers/c/offsets/%s", uuid);
    expect_error(&r, 404, "not_found");
    http_result_free(&r);

    /* A well-formed UUID naming no table of this catalog (including a
     * table of another catalog). */
    put_fails(CAT, "c", "00000000-0000-4000-8000-000000000000", h, 404, "not_found",
              "table_uuid 00000000-0000-4000-8000-000000000000");
    make_catalog(&srv, "csmother");
    make_namespace(&srv, "csmother", NS);
    const char *foreign = create_table_in("csmother", NS, "t");
    put_fails(CAT, "c", foreign, 0, 404, "not_found", NULL);
    /* Before the range checks: an unknown table is 404 even out of range. */
    put_fails(CAT, "c", "00000000-0000-4000-8000-000000000000", h + 100, 404, "not_found", NULL);

    /* No offset yet; a consumer without offsets. */
    api_get(&r, &srv, "/v1/catalogs/" CAT "/consumers/nobody/offsets/%s", uuid);
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/" CAT "/consumers/nobody/offsets");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);

    /* A catalog without consumers lists none, on a last page. */
    json_t *l = api_get_json(&srv, "/v1/catalogs/csmother/consumers");
    assert_int_equal(json_object_size(l), 2);
    assert_true(json_is_array(jget(l, "consumers")));
    assert_int_equal(json_array_size(jget(l, "consumers")), 0);
    assert_true(json_is_null(jget(l, "next_page_token")));
    json_decref(l);

    /* Methods. */
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/consumers/c/offsets/%s", uuid);
    expect_error(&r, 405, "method_not_allowed");
    http_result_free(&r);
}

static void dropped_tables_keep_offsets(void **state)
{
    (void)state;
    const char *uuid = create_table("gone");
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/gone");
    expect_status(&r, 200);
    http_result_free(&r);
    /* A dropped incarnation still takes offsets (a consumer finishing it). */
    int64_t h = head_of(CAT);
    json_t *o = put_ok(CAT, "drain", uuid, h);
    assert_int_equal(jint(o, "committed_snapshot"), h);
    json_decref(o);
}

static void replaced_incarnations_are_cleaned_up(void **state)
{
    (void)state;
    const char *cat = "csmrep";
    make_catalog(&srv, cat);
    make_namespace(&srv, cat, NS);
    const char *u1 = create_table_in(cat, NS, "t1");
    const char *u2 = create_table_in(cat, NS, "t2");
    const char *u3 = create_table_in(cat, NS, "t3");
    const char *u4 = create_table_in(cat, NS, "t4");
    int64_t c = cat_id(cat);
    int64_t id1 = table_id_of(cat, NS, "t1"), id2 = table_id_of(cat, NS, "t2"),
            id3 = table_id_of(cat, NS, "t3"), id4 = table_id_of(cat, NS, "t4");
    int64_t h = head_of(cat);

    for (int i = 0; i < 2; i++) {
        const char *who = i ? "y" : "x";
        json_decref(put_ok(cat, who, u1, 1));
        json_decref(put_ok(cat, who, u2, 2));
        json_decref(put_ok(cat, who, u4, 2));
    }
    /* Lineage t3 replaced t2, which replaced t1; t4 is unrelated. */
    sql_exec("UPDATE hog_table SET replaced_table_id = %lld WHERE catalog_id = %lld AND"
             " table_id = %lld",
             (long long)id1, (long long)c, (long long)id2);
    sql_exec("UPDATE hog_table SET replaced_table_id = %lld WHERE catalog_id = %lld AND"
             " table_id = %lld",
             (long long)id2, (long long)c, (long long)id3);

    /* x commits on t3: its rows on t2 and (transitively) t1 go; y's and the
     * unrelated table's stay. */
    json_decref(put_ok(cat, "x", u3, h));
    assert_int_equal(stored(cat, "x", u1), -1);
    assert_int_equal(stored(cat, "x", u2), -1);
    assert_int_equal(stored(cat, "x", u3), h);
    assert_int_equal(stored(cat, "x", u4), 2);
    assert_int_equal(stored(cat, "y", u1), 1);
    assert_int_equal(stored(cat, "y", u2), 2);

    /* A refused PUT (regression) deletes nothing. */
    json_decref(put_ok(cat, "y", u3, h));
    assert_int_equal(stored(cat, "y", u1), -1);
    json_decref(put_ok(cat, "y", u1, 1)); /* y writes on the old one again */
    put_fails(cat, "y", u3, h - 1, 409, "offset_regression", NULL);
    assert_int_equal(stored(cat, "y", u1), 1);
    /* An equal PUT succeeds and cleans up. */
    json_decref(put_ok(cat, "y", u3, h));
    assert_int_equal(stored(cat, "y", u1), -1);

    /* A PUT on the middle incarnation cleans only what it replaced. */
    json_decref(put_ok(cat, "z", u1, 1));
    json_decref(put_ok(cat, "z", u3, 1));
    json_decref(put_ok(cat, "z", u2, 2));
    assert_int_equal(stored(cat, "z", u1), -1);
    assert_int_equal(stored(cat, "z", u3), 1);

    /* A lineage cycle (not produced by the server) terminates and never
     * deletes the row being written. */
    sql_exec("UPDATE hog_table SET replaced_table_id = %lld WHERE catalog_id = %lld AND"
             " table_id = %lld",
             (long long)id3, (long long)c, (long long)id1);
    json_decref(put_ok(cat, "x", u1, h));
    assert_int_equal(stored(cat, "x", u1), h);
    assert_int_equal(stored(cat, "x", u3), -1);
    json_decref(put_ok(cat, "x", u3, h));
    assert_int_equal(stored(cat, "x", u3), h);
    assert_int_equal(stored(cat, "x", u1), -1);
    (void)id4;
}

static void consumer_list_shapes(void **state)
{
    (void)state;
    const char *cat = "csmlist";
    make_catalog(&srv, cat);
    make_namespace(&srv, cat, "a");
    make_namespace(&srv, cat, "b");
    const char *live1 = create_table_in(cat, "a", "orders");
    const char *live2 = create_table_in(cat, "b", "users");
    const char *dropped = create_table_in(cat, "b", "old");
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/%s/namespaces/b/tables/old", cat);
    expect_status(&r, 200);
    http_result_free(&r);
    /* Renamed after the offsets: names come from the head. */
    int64_t h = head_of(cat);
    json_decref(put_ok(cat, "beta", live1, h));
    json_decref(put_ok(cat, "beta", live2, 1));
    json_decref(put_ok(cat, "beta", dropped, 2));
    json_decref(put_ok(cat, "Alpha", live2, h));
    json_decref(put_ok(cat, "_z", live1, 3));
    char *ops = dq("{'ops':[{'op':'rename_table','new_name':'orders2'}]}");
    api_send_text(&r, &srv, "POST", ops, "/v1/catalogs/%s/namespaces/a/tables/orders/alter", cat);
    free(ops);
    expect_status(&r, 200);
    http_result_free(&r);

    json_t *l = api_get_json(&srv, "/v1/catalogs/%s/consumers", cat);
    json_t *cs = jget(l, "consumers");
    assert_int_equal(json_array_size(cs), 3);
    /* Ordered by consumer id, bytewise. */
    assert_string_equal(jstr(json_array_get(cs, 0), "consumer_id"), "Alpha");
    assert_string_equal(jstr(json_array_get(cs, 1), "consumer_id"), "_z");
    assert_string_equal(jstr(json_array_get(cs, 2), "consumer_id"), "beta");
    json_t *beta = json_array_get(cs, 2);
    assert_int_equal(json_object_size(beta), 2);
    json_t *offs = jget(beta, "offsets");
    assert_int_equal(json_array_size(offs), 3);
    /* Ordered by table_uuid. */
    for (size_t i = 1; i < json_array_size(offs); i++)
        assert_true(strcmp(jstr(json_array_get(offs, i - 1), "table_uuid"),
                           jstr(json_array_get(offs, i), "table_uuid")) < 0);
    int seen = 0;
    size_t i;
    json_t *o;
    json_array_foreach (offs, i, o) {
        const char *u = jstr(o, "table_uuid");
        assert_true(json_is_string(jget(o, "updated_at")));
        if (strcmp(u, live1) == 0) {
            assert_int_equal(jint(o, "committed_snapshot"), h);
            assert_true(json_is_false(jget(o, "table_dropped")));
            assert_string_equal(jstr(o, "namespace"), "a");
            assert_string_equal(jstr(o, "table_name"), "orders2");
            assert_int_equal(json_object_size(o), 6);
            seen |= 1;
        } else if (strcmp(u, live2) == 0) {
            assert_int_equal(jint(o, "committed_snapshot"), 1);
            assert_string_equal(jstr(o, "namespace"), "b");
            assert_string_equal(jstr(o, "table_name"), "users");
            seen |= 2;
        } else if (strcmp(u, dropped) == 0) {
            assert_int_equal(jint(o, "committed_snapshot"), 2);
            assert_true(json_is_true(jget(o, "table_dropped")));
            expect_absent(o, "namespace");
            expect_absent(o, "table_name");
            assert_int_equal(json_object_size(o), 4);
            seen |= 4;
        }
    }
    assert_int_equal(seen, 7);

    /* One consumer's offsets: ConsumerOffset[] in the same order. */
    json_t *arr = api_get_json(&srv, "/v1/catalogs/%s/consumers/beta/offsets", cat);
    assert_int_equal(json_array_size(arr), 3);
    json_array_foreach (arr, i, o) {
        json_t *listed = json_array_get(offs, i);
        assert_int_equal(json_object_size(o), 4);
        assert_string_equal(jstr(o, "consumer_id"), "beta");
        assert_string_equal(jstr(o, "table_uuid"), jstr(listed, "table_uuid"));
        assert_int_equal(jint(o, "committed_snapshot"), jint(listed, "committed_snapshot"));
        assert_string_equal(jstr(o, "updated_at"), jstr(listed, "updated_at"));
    }
    json_decref(arr);
    json_decref(l);
}

/* The listing as "consumer/uuid,..." pairs, walking its pages of `limit`
 * offsets; *pages gets how many it took. */
static char *walk_pages(const char *cat, int limit, int *pages)
{
    char out[4096];
    size_t len = 0;
    char *token = NULL;
    *pages = 0;
    do {
        json_t *l = token ? api_get_json(&srv, "/v1/catalogs/%s/consumers?limit=%d&page_token=%s",
                                         cat, limit, token)
                          : api_get_json(&srv, "/v1/catalogs/%s/consumers?limit=%d", cat, limit);
        free(token);
        token = NULL;
        (*pages)++;
        size_t i, k, entries = 0;
        json_t *c, *o;
        json_array_foreach (jget(l, "consumers"), i, c)
            json_array_foreach (jget(c, "offsets"), k, o) {
                len += (size_t)snprintf(out + len, sizeof out - len, "%s/%s,",
                                        jstr(c, "consumer_id"), jstr(o, "table_uuid"));
                assert_true(len < sizeof out);
                entries++;
            }
        /* A page that is not the last is full. */
        json_t *next = jget(l, "next_page_token");
        if (json_is_string(next)) {
            assert_int_equal(entries, limit);
            token = strdup(json_string_value(next));
        } else {
            assert_true(json_is_null(next));
            assert_true(entries <= (size_t)limit);
        }
        json_decref(l);
        assert_true(*pages < 100);
    } while (token);
    out[len] = '\0';
    return strdup(out);
}

/* The listing comes in pages of `limit` offsets that resume after the last
 * (consumer, table) pair: walked at every page size, they give exactly the
 * one-page listing, in its order, a consumer's offsets split across pages
 * where a page ends among them. */
static void consumer_list_pages(void **state)
{
    (void)state;
    const char *cat = "csmpages";
    make_catalog(&srv, cat);
    make_namespace(&srv, cat, NS);
    const char *tables[3];
    for (int t = 0; t < 3; t++) {
        char name[8];
        snprintf(name, sizeof name, "t%d", t);
        tables[t] = create_table_in(cat, NS, name);
    }
    /* Bytewise order differs from a natural-language collation's. */
    static const char *const consumers[] = {"b", "A", "_c", "a.d", "Z"};
    for (size_t c = 0; c < 5; c++)
        for (int t = 0; t <= (int)c % 3; t++)
            json_decref(put_ok(cat, consumers[c], tables[t], 1));
    int pages;
    char *whole = walk_pages(cat, 1000, &pages);
    assert_int_equal(pages, 1);
    assert_int_equal(offset_rows(cat), 9);
    assert_true(strncmp(whole, "A/", 2) == 0);
    assert_non_null(strstr(whole, "Z/"));
    assert_true(strstr(whole, "Z/") < strstr(whole, "_c/"));
    assert_true(strstr(whole, "_c/") < strstr(whole, "a.d/"));
    assert_true(strstr(whole, "a.d/") < strstr(whole, "b/"));
    for (int limit = 1; limit <= 10; limit++) {
        char *walked = walk_pages(cat, limit, &pages);
        assert_string_equal(walked, whole);
        assert_int_equal(pages, (9 + limit - 1) / limit);
        free(walked);
    }
    free(whole);

    /* A consumer split across pages: in order the offsets are A A Z Z _c
     * _c _c a.d b, so pages of three end and start with one of Z's. */
    json_t *p1 = api_get_json(&srv, "/v1/catalogs/%s/consumers?limit=3", cat);
    json_t *c1 = jget(p1, "consumers");
    assert_int_equal(json_array_size(c1), 2);
    assert_string_equal(jstr(json_array_get(c1, 1), "consumer_id"), "Z");
    assert_int_equal(json_array_size(jget(json_array_get(c1, 1), "offsets")), 1);
    const char *token = json_string_value(jget(p1, "next_page_token"));
    assert_non_null(token);
    json_t *p2 = api_get_json(&srv, "/v1/catalogs/%s/consumers?limit=3&page_token=%s", cat, token);
    json_t *c2 = json_array_get(jget(p2, "consumers"), 0);
    assert_string_equal(jstr(c2, "consumer_id"), "Z");
    assert_int_equal(json_array_size(jget(c2, "offsets")), 1);
    json_decref(p2);

    /* Limits and tokens. */
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/%s/consumers?limit=0", cat);
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/%s/consumers?limit=x", cat);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    json_t *big = api_get_json(&srv, "/v1/catalogs/%s/consumers?limit=99999999", cat);
    assert_true(json_is_null(jget(big, "next_page_token")));
    json_decref(big);
    static const char *const bad[] = {
        "zz",
        "0",
        "",
        /* hex of a uuid with no consumer, and of one with a bad consumer */
        "30303030303030302d303030302d343030302d383030302d303030303030303030303030",
        "30303030303030302d303030302d343030302d383030302d3030303030303030303030302f2f",
        /* hex of text that is not a uuid first */
        "7878787878787878787878787878787878787878787878787878787878787878787878786162",
        /* hex of a uuid and "b\0c": the NUL would end the id at "b" */
        "30303030303030302d303030302d343030302d383030302d303030303030303030303030620063",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        api_get(&r, &srv, "/v1/catalogs/%s/consumers?page_token=%s", cat, bad[i]);
        expect_error(&r, 400, "bad_request");
        expect_detail_contains(&r, "page_token");
        http_result_free(&r);
    }
    /* Only limit and page_token are taken. */
    api_get(&r, &srv, "/v1/catalogs/%s/consumers?after=a", cat);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    json_decref(p1);
    /* A token naming the last pair ("b" on its table) resumes to an empty
     * last page. */
    char plain[64], tail[130];
    snprintf(plain, sizeof plain, "%sb", tables[0]);
    for (size_t i = 0; plain[i]; i++)
        snprintf(tail + 2 * i, 3, "%02x", (unsigned char)plain[i]);
    json_t *end = api_get_json(&srv, "/v1/catalogs/%s/consumers?page_token=%s", cat, tail);
    assert_int_equal(json_array_size(jget(end, "consumers")), 0);
    assert_true(json_is_null(jget(end, "next_page_token")));
    json_decref(end);
}

/* ---- concurrency ---- */

enum { WRITERS = 8, PUTS_PER_WRITER = 25 };

struct writer {
    const char *uuid;
    int64_t head;
    unsigned seed;
    int64_t max_sent;
    int ok, regressions, other;
    char failure[512];
};

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    for (int i = 0; i < PUTS_PER_WRITER; i++) {
        int64_t v = (int64_t)(rand_r(&w->seed) % (unsigned)(w->head + 1));
        if (v > w->max_sent)
            w->max_sent = v;
        struct http_result r;
        put_offset(&r, CAT, "racer", w->uuid, v);
        const char *code = r.json ? json_string_value(json_object_get(r.json, "error")) : NULL;
        if (r.status == 200 && r.json &&
            json_integer_value(json_object_get(r.json, "committed_snapshot")) == v)
            w->ok++;
        else if (r.status == 409 && code && strcmp(code, "offset_regression") == 0)
            w->regressions++;
        else if (w->other++ == 0)
            snprintf(w->failure, sizeof w->failure, "value %lld: %ld %.300s", (long long)v,
                     r.status, r.body ? r.body : "");
        http_result_free(&r);
    }
    return NULL;
}

static void concurrent_puts_end_at_the_maximum(void **state)
{
    (void)state;
    const char *uuid = create_table("race");
    add_snapshots(CAT, 500);
    int64_t head = head_of(CAT);
    for (int round = 0; round < 3; round++) {
        sql_exec("DELETE FROM hog_consumer_offset WHERE consumer_id = 'racer'");
        struct writer w[WRITERS];
        pthread_t th[WRITERS];
        for (int i = 0; i < WRITERS; i++) {
            memset(&w[i], 0, sizeof w[i]);
            w[i].uuid = uuid;
            w[i].head = head;
            w[i].seed = (unsigned)(round * 131 + i * 7919 + 1);
            w[i].max_sent = -1;
            assert_int_equal(pthread_create(&th[i], NULL, writer_main, &w[i]), 0);
        }
        int64_t max = -1;
        int ok = 0, regressions = 0;
        for (int i = 0; i < WRITERS; i++) {
            pthread_join(th[i], NULL);
            if (w[i].other)
                fail_msg("writer %d: %s", i, w[i].failure);
            if (w[i].max_sent > max)
                max = w[i].max_sent;
            ok += w[i].ok;
            regressions += w[i].regressions;
        }
        assert_int_equal(ok + regressions, WRITERS * PUTS_PER_WRITER);
        assert_true(ok >= 1);
        assert_int_equal(stored(CAT, "racer", uuid), max);
        json_t *g = api_get_json(&srv, "/v1/catalogs/" CAT "/consumers/racer/offsets/%s", uuid);
        assert_int_equal(jint(g, "committed_snapshot"), max);
        json_decref(g);
    }
}

/* Offsets never take the catalog lock: a PUT completes while another
 * session holds it. */
static void offsets_do_not_take_the_catalog_lock(void **state)
{
    (void)state;
    const char *uuid = create_table("nolock");
    int64_t key = (int64_t)((4740871ULL << 32) | ((uint64_t)cat_id(CAT) & 0xffffffffu));
    PGconn *locker = test_db_connect(&db);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT pg_advisory_lock(%lld)", (long long)key);
    PGresult *res = PQexec(locker, sql);
    assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
    PQclear(res);
    json_t *o = put_ok(CAT, "nolock", uuid, head_of(CAT));
    json_decref(o);
    o = api_get_json(&srv, "/v1/catalogs/" CAT "/consumers");
    json_decref(o);
    snprintf(sql, sizeof sql, "SELECT pg_advisory_unlock(%lld)", (long long)key);
    res = PQexec(locker, sql);
    PQclear(res);
    PQfinish(locker);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(put_and_get_round_trip),
        cmocka_unit_test(offsets_are_monotonic),
        cmocka_unit_test(snapshot_range_and_floor),
        cmocka_unit_test(bodies_and_path_parameters),
        cmocka_unit_test(not_found),
        cmocka_unit_test(dropped_tables_keep_offsets),
        cmocka_unit_test(replaced_incarnations_are_cleaned_up),
        cmocka_unit_test(consumer_list_shapes),
        cmocka_unit_test(consumer_list_pages),
        cmocka_unit_test(concurrent_puts_end_at_the_maximum),
        cmocka_unit_test(offsets_do_not_take_the_catalog_lock),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
