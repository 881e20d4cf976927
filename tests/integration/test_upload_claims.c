/* Upload claims (POST/PUT .../uploads, renew, abandon, schedule-expired)
 * and their consumption by commits, against a real hoglaked, PostgreSQL
 * and a file:// warehouse.
 *
 * A claim's path is the writer's prefix plus its id, inside the data path;
 * replays return the same claim and a clashing replay is 409; bad input
 * changes nothing. A commit naming its upload_owner registers the claimed
 * paths and releases the owner's unused claims; a path claimed by another
 * owner, or abandoned, cannot be registered. Abandoned and expired claims
 * are queued and cleanup deletes their objects, never a registered one. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

#define CAT "up"
#define NS "ns"
#define OWNER "11111111-1111-4111-8111-111111111111"
#define OTHER "22222222-2222-4222-8222-222222222222"
#define OWNER2 "44444444-4444-4444-8444-444444444444"
#define OTHER2 "55555555-5555-4555-8555-555555555555"
#define OWNER3 "66666666-6666-4666-8666-666666666666"
#define OTHER3 "77777777-7777-4777-8777-777777777777"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];
static char prefix[400]; /* file://<dir>/wh/data/ns/t/ */

static void uuid_n(char out[37], int n)
{
    snprintf(out, 37, "aaaaaaaa-0000-4000-8000-%012d", n);
}

static void send(struct http_result *r, const char *method, const char *suffix, const char *fmt,
                 ...) __attribute__((format(printf, 4, 5)));
static void send(struct http_result *r, const char *method, const char *suffix, const char *fmt,
                 ...)
{
    char body[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    char *b = dq(body);
    api_send_text(r, &srv, method, b, "/v1/catalogs/" CAT "%s", suffix);
    free(b);
}

/* Claims ids n0..n0+count-1 for owner; returns the response (caller
 * decrefs). */
static json_t *claim(const char *owner, int n0, int count)
{
    char ids[8192] = "";
    size_t len = 0;
    for (int i = 0; i < count; i++) {
        char id[37];
        uuid_n(id, n0 + i);
        len += (size_t)snprintf(ids + len, sizeof ids - len, "%s'%s'", i ? "," : "", id);
    }
    struct http_result r;
    send(&r, "POST", "/uploads",
         "{'owner':'%s','prefix':'%s','file_kind':'data','upload_ids':[%s]}", owner, prefix, ids);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    return out;
}

static const char *claim_path(const json_t *resp, size_t i)
{
    return jstr(json_array_get(json_object_get(resp, "uploads"), i), "path");
}

static int64_t claims(const char *where)
{
    return sqli("SELECT count(*) FROM hog_upload WHERE catalog_id = %lld AND %s",
                (long long)cat_id(CAT), where);
}

static void put_object(const char *uri)
{
    assert_true(strncmp(uri, "file://", 7) == 0);
    const char *rel = uri + 7 + strlen(dir) + 1;
    test_write_file(dir, rel, "parquet-ish");
}

static bool object_exists(const char *uri)
{
    struct stat st;
    return stat(uri + 7, &st) == 0;
}

static json_t *cleanup(void)
{
    struct http_result r;
    char url[300];
    snprintf(url, sizeof url, "%s/v1/catalogs/" CAT "/maintenance/cleanup", srv.base);
    http_call(&r, "POST", url, NULL, NULL, 0, NULL);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    return out;
}

/* A one-file commit body part for path. */
#define FILE_JSON "{'path':'%s','record_count':1,'file_size_bytes':100,'footer_size':4}"

/* ---- setup ---- */

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "upload_claims", NULL, NULL);
    test_scratch_dir(dir, sizeof dir, "upload-claims");
    char path[300];
    snprintf(path, sizeof path, "file://%s/wh", dir);
    make_catalog_at(&srv, CAT, path);
    make_namespace(&srv, CAT, NS);
    json_decref(make_table(&srv, CAT, NS, "t", "[{\"name\":\"id\",\"type\":\"long\"}]"));
    snprintf(prefix, sizeof prefix, "file://%s/wh/data/ns/t/", dir);
    char mk[400];
    snprintf(mk, sizeof mk, "mkdir -p %s/wh/data/ns/t", dir);
    assert_int_equal(system(mk), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

/* ---- tests ---- */

static void claims_and_replays(void **state)
{
    (void)state;
    json_t *c = claim(OWNER, 1, 3);
    assert_string_equal(jstr(c, "owner"), OWNER);
    json_t *ups = json_object_get(c, "uploads");
    assert_int_equal(json_array_size(ups), 3);
    char want[600], id[37];
    uuid_n(id, 2);
    snprintf(want, sizeof want, "%s%s.parquet", prefix, id);
    assert_string_equal(claim_path(c, 1), want);
    assert_string_equal(jstr(json_array_get(ups, 1), "state"), "active");
    assert_int_equal(claims("state = 'active' AND expires_at > now() + interval '23 hours'"), 3);
    /* A replay (here of a subset) answers the same claims. */
    json_t *again = claim(OWNER, 2, 1);
    assert_string_equal(claim_path(again, 0), want);
    json_decref(again);
    json_decref(c);
    assert_int_equal(claims("true"), 3);

    /* The single-claim route. */
    struct http_result r;
    uuid_n(id, 9);
    char suffix[80];
    snprintf(suffix, sizeof suffix, "/uploads/%s", id);
    send(&r, "PUT", suffix, "{'owner':'%s','prefix':'%s','file_kind':'delete'}", OWNER, prefix);
    expect_status(&r, 200);
    snprintf(want, sizeof want, "%s%s.puffin", prefix, id);
    assert_string_equal(jstr(r.json, "path"), want);
    assert_string_equal(jstr(r.json, "file_kind"), "delete");
    http_result_free(&r);

    /* The same id with another owner or kind: 409, nothing changes. */
    send(&r, "PUT", suffix, "{'owner':'%s','prefix':'%s','file_kind':'delete'}", OTHER, prefix);
    expect_error(&r, 409, "upload_id_conflict");
    http_result_free(&r);
    send(&r, "PUT", suffix, "{'owner':'%s','prefix':'%s','file_kind':'data'}", OWNER, prefix);
    expect_error(&r, 409, "upload_id_conflict");
    http_result_free(&r);
    assert_int_equal(claims("owner = '" OTHER "'"), 0);

    /* Bad input: 400/422, no row. */
    int64_t before = claims("true");
    uuid_n(id, 10);
    snprintf(suffix, sizeof suffix, "/uploads/%s", id);
    send(&r, "PUT", suffix, "{'owner':'%s','prefix':'s3://elsewhere/x/','file_kind':'data'}",
         OWNER);
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    send(&r, "PUT", suffix, "{'owner':'%s','prefix':'%s../../','file_kind':'data'}", OWNER, prefix);
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    send(&r, "PUT", suffix, "{'owner':'%s','prefix':'%s','file_kind':'index'}", OWNER, prefix);
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    send(&r, "PUT", suffix, "{'owner':'not-a-uuid','prefix':'%s','file_kind':'data'}", prefix);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    send(&r, "PUT", "/uploads/nope", "{'owner':'%s','prefix':'%s','file_kind':'data'}", OWNER,
         prefix);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    send(&r, "POST", "/uploads", "{'owner':'%s','prefix':'%s','file_kind':'data','upload_ids':[]}",
         OWNER, prefix);
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    send(&r, "POST", "/uploads",
         "{'owner':'%s','prefix':'%s','file_kind':'data','upload_ids':['%s','%s']}", OWNER, prefix,
         id, id);
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    send(&r, "POST", "/uploads",
         "{'owner':'%s','prefix':'%s','file_kind':'data','upload_ids':['%s'],'x':1}", OWNER, prefix,
         id);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    assert_int_equal(claims("true"), before);
    api_send_text(&r, &srv, "PUT", "{}", "/v1/catalogs/nope/uploads/%s", id);
    assert_true(r.status == 400 || r.status == 404);
    http_result_free(&r);
}

static void commits_consume_claims(void **state)
{
    (void)state;
    json_t *c = claim(OWNER2, 100, 3);
    char p0[600], p1[600], p2[600];
    snprintf(p0, sizeof p0, "%s", claim_path(c, 0));
    snprintf(p1, sizeof p1, "%s", claim_path(c, 1));
    snprintf(p2, sizeof p2, "%s", claim_path(c, 2));
    json_decref(c);
    int64_t h0 = head_of(CAT);
    struct http_result r;

    /* Another owner's claim, or none named: refused, nothing written (the
     * optimistic path's assertion and the locked path's guard agree). */
    send(&r, "POST", "/commit",
         "{'upload_owner':'" OTHER2 "','appends':[{'namespace':'" NS
         "','table':'t','files':[" FILE_JSON "]}]}",
         p0);
    expect_error(&r, 409, "upload_not_owned");
    http_result_free(&r);
    send(&r, "POST", "/commit",
         "{'appends':[{'namespace':'" NS "','table':'t','files':[" FILE_JSON "]}]}", p0);
    expect_error(&r, 409, "upload_not_owned");
    http_result_free(&r);
    send(&r, "POST", "/commit",
         "{'upload_owner':'bad','appends':[{'namespace':'" NS "','table':'t','files':[" FILE_JSON
         "]}]}",
         p0);
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
    assert_int_equal(claims("state = 'active' AND owner = '" OWNER2 "'"), 3);

    /* The owner registers two of its three: those become registered, the
     * third is released. */
    send(&r, "POST", "/commit",
         "{'upload_owner':'" OWNER2 "','appends':[{'namespace':'" NS
         "','table':'t','files':[" FILE_JSON "," FILE_JSON "]}]}",
         p0, p1);
    expect_status(&r, 200);
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0 + 1);
    expect_sql("registered,registered",
               "SELECT string_agg(state, ',' ORDER BY path) FROM hog_upload WHERE catalog_id = %lld"
               " AND path IN ('%s', '%s', '%s')",
               (long long)cat_id(CAT), p0, p1, p2);
    /* Abandoning after the commit landed touches nothing. */
    send(&r, "POST", "/uploads/abandon", "{'owner':'" OWNER2 "'}");
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "abandoned"), 0);
    http_result_free(&r);
    /* A registered claim's path cannot be registered again. */
    send(&r, "POST", "/commit",
         "{'upload_owner':'" OWNER2 "','appends':[{'namespace':'" NS
         "','table':'t','files':[" FILE_JSON "]}]}",
         p0);
    assert_true(r.status == 409 || r.status == 422);
    http_result_free(&r);

    /* The prepared commit consumes claims too. */
    c = claim(OTHER2, 200, 1);
    char p3[600];
    snprintf(p3, sizeof p3, "%s", claim_path(c, 0));
    json_decref(c);
    send(&r, "POST", "/commit/prepared",
         "{'idempotency_key':'33333333-3333-4333-8333-333333333333','upload_owner':'" OTHER2
         "','appends':[{'namespace':'" NS "','table':'t','files':[" FILE_JSON "]}]}",
         p3);
    expect_status(&r, 200);
    http_result_free(&r);
    assert_int_equal(claims("state = 'registered' AND owner = '" OTHER2 "'"), 1);
}

static void abandon_expire_and_cleanup(void **state)
{
    (void)state;
    json_t *c = claim(OWNER3, 300, 3);
    char paths[3][600];
    for (int i = 0; i < 3; i++) {
        snprintf(paths[i], sizeof paths[i], "%s", claim_path(c, (size_t)i));
        put_object(paths[i]);
    }
    json_decref(c);
    struct http_result r;
    /* Abandon one path, then the rest. */
    send(&r, "POST", "/uploads/abandon", "{'owner':'" OWNER3 "','paths':['%s']}", paths[0]);
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "abandoned"), 1);
    http_result_free(&r);
    send(&r, "POST", "/uploads/abandon", "{'owner':'" OWNER3 "'}");
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "abandoned"), 2);
    http_result_free(&r);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld AND"
                          " reason = 'upload_abandoned' AND drained_at IS NULL",
                          (long long)cat_id(CAT)),
                     3);
    /* An abandoned path cannot be registered. */
    send(&r, "POST", "/commit",
         "{'upload_owner':'" OWNER3 "','appends':[{'namespace':'" NS
         "','table':'t','files':[" FILE_JSON "]}]}",
         paths[1]);
    expect_status(&r, 409);
    http_result_free(&r);

    /* Renew touches active claims only; an expired one is scheduled. */
    c = claim(OTHER3, 400, 2);
    char late[600];
    snprintf(late, sizeof late, "%s", claim_path(c, 0));
    put_object(late);
    json_decref(c);
    send(&r, "POST", "/uploads/renew", "{'owner':'" OTHER3 "'}");
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "renewed"), 2);
    http_result_free(&r);
    sql_exec("UPDATE hog_upload SET expires_at = now() - interval '1 second' WHERE path = '%s'",
             late);
    send(&r, "POST", "/uploads/schedule-expired?limit=0", "{}");
    expect_error(&r, 422, "validation");
    http_result_free(&r);

    /* Cleanup schedules the expired claim itself and deletes every
     * abandoned object; the registered objects of the other tests stay. */
    json_t *res = cleanup();
    assert_int_equal(jint(res, "uploads_scheduled"), 1);
    assert_int_equal(jint(res, "removed"), 4);
    assert_int_equal(jint(res, "still_referenced"), 0);
    json_decref(res);
    for (int i = 0; i < 3; i++)
        assert_false(object_exists(paths[i]));
    assert_false(object_exists(late));
    assert_int_equal(claims("state = 'active' AND owner = '" OTHER3 "'"), 1);
    send(&r, "POST", "/uploads/schedule-expired", "{}");
    expect_status(&r, 200);
    assert_int_equal(jint(r.json, "scheduled"), 0);
    http_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(claims_and_replays),
        cmocka_unit_test(commits_consume_claims),
        cmocka_unit_test(abandon_expire_and_cleanup),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
