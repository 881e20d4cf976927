/* Authentication and authorization against a real hoglaked and PostgreSQL:
 *   - the role matrix: every route of the router x {no token, reader,
 *     writer, owner (all three scoped to catalog A), catalog B's owner,
 *     admin, a revoked admin, an expired admin}, the expected status
 *     derived from the route's declared policy, so a new route is covered
 *     the day it is added;
 *   - the bootstrap admin token (0600, one per database, kept across
 *     restarts, replaced by --reset-admin-token);
 *   - the token API's refusals, scoped catalog listings;
 *   - a revocation seen by a second server within 5 s;
 *   - refusals audited and counted; no secret in any log, audit line,
 *     error body or token listing;
 *   - --auth off: loopback only, Host names checked. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "server/http/router.h"
#include "util/timefmt.h"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

/* Every secret the tests saw, to look for in the logs at the end. */
enum { MAX_SECRETS = 64 };
static char secrets[MAX_SECRETS][128];
static int nsecrets;

static void remember_secret(const char *s)
{
    assert_true(nsecrets < MAX_SECRETS);
    snprintf(secrets[nsecrets++], sizeof secrets[0], "%s", s);
}

/* A request with exactly this credential: token NULL sends none, a token
 * starting with "Bearer"/"Basic" is sent as the whole header value. */
static void call(struct http_result *r, const struct test_server *s, const char *method,
                 const char *path, const char *token, const char *body, const char *host)
{
    char url[1024], authz[300], hosthdr[200];
    snprintf(url, sizeof url, "%s%s", s->base, path);
    const char *headers[3] = {NULL, NULL, NULL};
    int n = 0;
    if (!token)
        snprintf(authz, sizeof authz, "Authorization:");
    else if (strncmp(token, "Bearer", 6) == 0 || strncmp(token, "Basic", 5) == 0)
        snprintf(authz, sizeof authz, "Authorization: %s", token);
    else
        snprintf(authz, sizeof authz, "Authorization: Bearer %s", token);
    headers[n++] = authz;
    if (host) {
        snprintf(hosthdr, sizeof hosthdr, "Host: %s", host);
        headers[n++] = hosthdr;
    }
    http_call(r, method, url, body ? "application/json" : NULL, body, body ? strlen(body) : 0,
              headers);
}

/* call, expecting `status`. */
static void expect_call(const struct test_server *s, const char *method, const char *path,
                        const char *token, long status)
{
    struct http_result r;
    call(&r, s, method, path, token, NULL, NULL);
    expect_status(&r, status);
    http_result_free(&r);
}

struct token {
    char id[64];
    char secret[128];
};

/* Creates a token through the API as the admin; expires_in 0 = never. */
static void make_token(const struct test_server *s, struct token *t, const char *name,
                       const char *role, const char *catalog, int expires_in)
{
    json_t *body = jpack("{s:s,s:s}", "name", name, "role", role);
    if (catalog)
        json_object_set_new(body, "catalog", json_string(catalog));
    if (expires_in)
        json_object_set_new(body, "expires_in_seconds", json_integer(expires_in));
    struct http_result r;
    api_send(&r, s, "POST", body, "/v1/tokens");
    expect_status(&r, 201);
    assert_string_equal(r.cache_control, "no-store");
    snprintf(t->id, sizeof t->id, "%s", jstr(r.json, "token_id"));
    snprintf(t->secret, sizeof t->secret, "%s", jstr(r.json, "secret"));
    assert_string_equal(jstr(r.json, "name"), name);
    assert_string_equal(jstr(r.json, "role"), role);
    remember_secret(t->secret);
    http_result_free(&r);
}

static void revoke_token(const struct test_server *s, const char *id)
{
    struct http_result r;
    api_delete(&r, s, "/v1/tokens/%s", id);
    expect_status(&r, 204);
    assert_int_equal(r.body_len, 0);
    http_result_free(&r);
}

static int setup(void **state)
{
    (void)state;
    test_db_create(&db, "auth");
    test_server_start(&srv, &db, NULL);
    pg = test_db_connect(&db);
    test_sql_use(pg);
    remember_secret(srv.token);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* ---- the role matrix ---- */

enum who { NOBODY, READER, WRITER, OWNER, OTHER_OWNER, ADMIN, REVOKED, EXPIRED, NWHO };
static const char *const who_names[NWHO] = {"no token",      "reader A",     "writer A",
                                            "owner A",       "owner B",      "admin",
                                            "revoked admin", "expired admin"};

/* The path of a route with its parameters filled with real objects of
 * catalog A (or names that need not exist). */
static void fill_path(const char *pattern, const char *table_uuid, char *out, size_t size)
{
    static const struct {
        const char *param, *value;
    } values[] = {{"{catalog}", "cat_a"},
                  {"{namespace}", "ns"},
                  {"{table}", "t"},
                  {"{view}", "v"},
                  {"{file_id}", "1"},
                  {"{operation}", "op1"},
                  {"{consumer}", "c1"},
                  {"{publication}", "p1"},
                  {"{upload}", "00000000-0000-4000-8000-000000000001"},
                  {"{token_id}", "00000000-0000-4000-8000-000000000000"}};
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = pattern; *p;) {
        bool replaced = false;
        for (size_t i = 0; i < sizeof values / sizeof values[0] && !replaced; i++) {
            size_t k = strlen(values[i].param);
            if (strncmp(p, values[i].param, k) == 0) {
                n += (size_t)snprintf(out + n, size - n, "%s", values[i].value);
                p += k;
                replaced = true;
            }
        }
        if (!replaced && strncmp(p, "{table_uuid}", 12) == 0) {
            n += (size_t)snprintf(out + n, size - n, "%s", table_uuid);
            p += 12;
            replaced = true;
        }
        if (!replaced) {
            assert_true(*p != '{'); /* a parameter this test does not know */
            if (n + 1 < size) {
                out[n++] = *p;
                out[n] = '\0';
            }
            p++;
        }
    }
}

static enum auth_role_needed {
    NEED_NONE,
    NEED_READER,
    NEED_WRITER,
    NEED_OWNER,
    NEED_ADMIN
} needed_of(enum route_access a)
{
    switch (a) {
    case ACCESS_READER: return NEED_READER;
    case ACCESS_WRITER: return NEED_WRITER;
    case ACCESS_OWNER: return NEED_OWNER;
    case ACCESS_ADMIN: return NEED_ADMIN;
    default: return NEED_NONE;
    }
}

static const char *need_name(enum auth_role_needed n)
{
    static const char *const names[] = {"none", "reader", "writer", "owner", "admin"};
    return names[n];
}

/* The role each caller holds, and whether it is scoped to a catalog. */
static enum auth_role_needed role_of(enum who w)
{
    switch (w) {
    case READER: return NEED_READER;
    case WRITER: return NEED_WRITER;
    case OWNER:
    case OTHER_OWNER: return NEED_OWNER;
    default: return NEED_ADMIN;
    }
}

static void check_cell(const struct route *rt, enum who w, const struct http_result *r,
                       long allowed_status, const char *path)
{
    char where[400];
    snprintf(where, sizeof where, "%s %s as %s", rt->method, path, who_names[w]);
    enum route_access a = rt->access;
    bool scoped = w == READER || w == WRITER || w == OWNER || w == OTHER_OWNER;
    const char *err = r->json ? json_string_value(json_object_get(r->json, "error")) : NULL;
    if (a == ACCESS_PUBLIC) {
        if (r->status != allowed_status)
            fail_msg("%s: public route answered %ld, expected %ld", where, r->status,
                     allowed_status);
        return;
    }
    if (w == NOBODY || w == REVOKED || w == EXPIRED) {
        if (r->status != 401 || !err || strcmp(err, "unauthenticated") != 0)
            fail_msg("%s: expected 401 unauthenticated, got %ld %s", where, r->status, r->body);
        if (strncmp(r->www_authenticate, "Bearer", 6) != 0)
            fail_msg("%s: a 401 without WWW-Authenticate: Bearer", where);
        if ((w == NOBODY) != (strstr(r->www_authenticate, "invalid_token") == NULL))
            fail_msg("%s: WWW-Authenticate '%s'", where, r->www_authenticate);
        return;
    }
    if (w == OTHER_OWNER && route_in_catalog(rt)) {
        /* Exactly what a catalog that does not exist answers. */
        if (r->status != 404 || !err || strcmp(err, "not_found") != 0 ||
            strcmp(json_string_value(json_object_get(r->json, "detail")), "catalog 'cat_a'") != 0)
            fail_msg("%s: expected the missing catalog's 404, got %ld %s", where, r->status,
                     r->body);
        return;
    }
    bool ok;
    enum auth_role_needed need = needed_of(a);
    if (a == ACCESS_METRICS)
        ok = !scoped;
    else
        ok = role_of(w) >= need;
    if (!ok) {
        if (r->status != 403 || !err || strcmp(err, "forbidden") != 0)
            fail_msg("%s: expected 403 forbidden, got %ld %s", where, r->status, r->body);
        const char *req = json_string_value(json_object_get(r->json, "required_role"));
        if (need != NEED_NONE && (!req || strcmp(req, need_name(need)) != 0))
            fail_msg("%s: required_role should be %s: %s", where, need_name(need), r->body);
        return;
    }
    if (r->status != allowed_status)
        fail_msg("%s: allowed, so expected the admin's %ld, got %ld %s", where, allowed_status,
                 r->status, r->body);
}

static void role_matrix_over_every_route(void **state)
{
    (void)state;
    make_catalog(&srv, "cat_a");
    make_catalog(&srv, "cat_b");
    make_namespace(&srv, "cat_a", "ns");
    json_t *t = make_table(&srv, "cat_a", "ns", "t", "[{\"name\":\"id\",\"type\":\"long\"}]");
    char table_uuid[64];
    snprintf(table_uuid, sizeof table_uuid, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    struct http_result r;
    api_send(&r, &srv, "POST", jpack("{s:s,s:s}", "name", "v", "sql", "select 1"),
             "/v1/catalogs/cat_a/namespaces/ns/views");
    expect_status(&r, 201);
    http_result_free(&r);

    struct token tok[NWHO];
    memset(tok, 0, sizeof tok);
    make_token(&srv, &tok[EXPIRED], "expiring", "admin", NULL, 1);
    int64_t expiring_since = time_mono_ns();
    make_token(&srv, &tok[READER], "reader-a", "reader", "cat_a", 0);
    make_token(&srv, &tok[WRITER], "writer-a", "writer", "cat_a", 0);
    make_token(&srv, &tok[OWNER], "owner-a", "owner", "cat_a", 0);
    make_token(&srv, &tok[OTHER_OWNER], "owner-b", "owner", "cat_b", 0);
    make_token(&srv, &tok[REVOKED], "revoked", "admin", NULL, 0);
    snprintf(tok[ADMIN].secret, sizeof tok[ADMIN].secret, "%s", srv.token);
    /* Used once, so a cached grant exists when it is revoked. */
    expect_call(&srv, "GET", "/v1/info", tok[REVOKED].secret, 200);
    revoke_token(&srv, tok[REVOKED].id);
    while (time_mono_ns() - expiring_since < 1100000000LL)
        sleep_ms(50);

    size_t n;
    const struct route *routes = router_routes(&n);
    int cells = 0;
    for (size_t i = 0; i < n; i++) {
        const struct route *rt = &routes[i];
        char path[600];
        fill_path(rt->pattern, table_uuid, path, sizeof path);
        /* Anything but a read carries an unknown query parameter: an
         * allowed caller is answered 400 before the handler runs, so the
         * matrix changes nothing (the gate comes first, then the
         * parameters). */
        bool read = strcmp(rt->method, "GET") == 0;
        if (!read)
            strcat(path, "?matrix_probe=1");
        call(&r, &srv, rt->method, path, srv.token, NULL, NULL);
        long allowed = r.status;
        if (!read && rt->args && allowed != 400)
            fail_msg("%s %s as admin: expected the unknown parameter's 400, got %ld %s", rt->method,
                     path, allowed, r.body);
        if (allowed == 401 || allowed == 403)
            fail_msg("%s %s: the admin was refused: %s", rt->method, path, r.body);
        http_result_free(&r);
        for (int w = 0; w < NWHO; w++) {
            call(&r, &srv, rt->method, path, w == NOBODY ? NULL : tok[w].secret, NULL, NULL);
            check_cell(rt, (enum who)w, &r, allowed, path);
            http_result_free(&r);
            cells++;
        }
    }
    assert_int_equal(cells, (int)n * NWHO);

    /* Instance-wide roles reach every catalog. */
    struct token any_reader;
    make_token(&srv, &any_reader, "reader-any", "reader", NULL, 0);
    expect_call(&srv, "GET", "/v1/catalogs/cat_b", any_reader.secret, 200);
    call(&r, &srv, "GET", "/v1/catalogs", any_reader.secret, NULL, NULL);
    expect_status(&r, 200);
    assert_int_equal(json_array_size(r.json), 2);
    http_result_free(&r);
    /* A scoped token lists only its catalog, and another catalog looks
     * exactly like one that does not exist. */
    call(&r, &srv, "GET", "/v1/catalogs", tok[READER].secret, NULL, NULL);
    expect_status(&r, 200);
    assert_int_equal(json_array_size(r.json), 1);
    assert_string_equal(jstr(json_array_get(r.json, 0), "name"), "cat_a");
    http_result_free(&r);
    struct http_result missing;
    call(&r, &srv, "GET", "/v1/catalogs/cat_b/snapshots", tok[READER].secret, NULL, NULL);
    call(&missing, &srv, "GET", "/v1/catalogs/cat_b/snapshots", tok[OTHER_OWNER].secret, NULL,
         NULL);
    expect_status(&missing, 200);
    http_result_free(&missing);
    call(&missing, &srv, "GET", "/v1/catalogs/cat_zz/snapshots", srv.token, NULL, NULL);
    expect_error(&r, 404, "not_found");
    expect_error(&missing, 404, "not_found");
    assert_string_equal(jstr(r.json, "detail"), "catalog 'cat_b'");
    assert_string_equal(jstr(missing.json, "detail"), "catalog 'cat_zz'");
    http_result_free(&r);
    http_result_free(&missing);
    /* Who the server takes each caller for. */
    call(&r, &srv, "GET", "/v1/info", tok[WRITER].secret, NULL, NULL);
    expect_status(&r, 200);
    json_t *caller = json_object_get(r.json, "caller");
    assert_string_equal(jstr(caller, "token_id"), tok[WRITER].id);
    assert_string_equal(jstr(caller, "role"), "writer");
    assert_string_equal(jstr(caller, "catalog"), "cat_a");
    http_result_free(&r);
}

/* Credentials that are not ours, in every shape: 401 and nothing else. */
static void malformed_credentials(void **state)
{
    (void)state;
    const char *const shapes[] = {
        "Basic YWRtaW46YWRtaW4=",
        "Bearer",
        "Bearer not-a-hoglake-token",
        "Bearer hlk_0000000000000000000000000000000000000000000000000000000000000000",
        "Bearer hlk_ZZZZ000000000000000000000000000000000000000000000000000000000000",
        "bearer hlk_1111111111111111111111111111111111111111111111111111111111111111",
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        struct http_result r;
        call(&r, &srv, "GET", "/v1/catalogs", shapes[i], NULL, NULL);
        expect_error(&r, 401, "unauthenticated");
        assert_true(strstr(r.www_authenticate, "invalid_token") != NULL);
        /* The credential is never echoed. */
        const char *cred = strchr(shapes[i], ' ');
        if (cred && strlen(cred) > 4)
            assert_null(strstr(r.body, cred + 1));
        http_result_free(&r);
        if (cred)
            remember_secret(cred + 1);
    }
    /* The same unknown token twice: refused both times (the second from
     * the cache), counted as unknown. */
    int64_t before = sqli("SELECT count(*) FROM hog_token");
    struct http_result r;
    call(&r, &srv, "GET", "/v1/catalogs", shapes[3], NULL, NULL);
    expect_error(&r, 401, "unauthenticated");
    http_result_free(&r);
    assert_int_equal(sqli("SELECT count(*) FROM hog_token"), before);
}

/* ---- the token API ---- */

static void token_api_refuses_bad_requests(void **state)
{
    (void)state;
    make_catalog(&srv, "api_cat");
    static const struct {
        const char *body;
        long status;
        const char *code;
    } cases[] = {
        {"{\"name\":\"x\",\"role\":\"root\"}", 422, "validation"},
        {"{\"name\":\"x\",\"role\":\"Admin\"}", 422, "validation"},
        {"{\"name\":\"\",\"role\":\"reader\"}", 422, "validation"},
        {"{\"name\":\"a\\u0001b\",\"role\":\"reader\"}", 422, "validation"},
        {"{\"name\":\"x\",\"role\":\"admin\",\"catalog\":\"api_cat\"}", 422, "validation"},
        {"{\"name\":\"x\",\"role\":\"reader\",\"catalog\":\"nope\"}", 404, "not_found"},
        {"{\"name\":\"x\",\"role\":\"reader\",\"expires_in_seconds\":0}", 422, "validation"},
        {"{\"name\":\"x\",\"role\":\"reader\",\"expires_in_seconds\":-5}", 422, "validation"},
        {"{\"name\":\"x\",\"role\":\"reader\",\"expires_in_seconds\":999999999999}", 422,
         "validation"},
        {"{\"name\":\"x\",\"role\":\"reader\",\"secret\":\"hlk_chosen\"}", 400, "bad_request"},
        {"{\"role\":\"reader\"}", 400, "bad_request"},
        {"[1]", 400, "bad_request"},
    };
    int64_t before = sqli("SELECT count(*) FROM hog_token");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct http_result r;
        api_send_text(&r, &srv, "POST", cases[i].body, "/v1/tokens");
        if (r.status != cases[i].status)
            fail_msg("%s: expected %ld, got %ld %s", cases[i].body, cases[i].status, r.status,
                     r.body);
        expect_error(&r, cases[i].status, cases[i].code);
        http_result_free(&r);
    }
    assert_int_equal(sqli("SELECT count(*) FROM hog_token"), before);

    /* Revocation: unknown and malformed ids are 404; twice is fine. */
    struct http_result r;
    api_delete(&r, &srv, "/v1/tokens/00000000-0000-4000-8000-000000000000");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/tokens/not-a-uuid");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    struct token t;
    make_token(&srv, &t, "twice", "writer", "api_cat", 3600);
    revoke_token(&srv, t.id);
    revoke_token(&srv, t.id);

    /* The listing never holds a secret, and says what each token is. */
    api_get(&r, &srv, "/v1/tokens");
    expect_status(&r, 200);
    for (int i = 0; i < nsecrets; i++)
        assert_null(strstr(r.body, secrets[i]));
    size_t k;
    json_t *e;
    bool seen = false;
    json_array_foreach (r.json, k, e) {
        assert_null(json_object_get(e, "secret"));
        if (strcmp(jstr(e, "token_id"), t.id) == 0) {
            seen = true;
            assert_string_equal(jstr(e, "catalog"), "api_cat");
            assert_true(json_is_string(json_object_get(e, "revoked_at")));
            assert_true(json_is_string(json_object_get(e, "expires_at")));
        }
    }
    assert_true(seen);
    http_result_free(&r);
    /* Only a digest is stored. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_token WHERE length(secret_hash) <> 32"), 0);
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM hog_token WHERE secret_hash = sha256(convert_to('%s', 'UTF8'))",
             t.secret);
    assert_int_equal(sqli("%s", sql), 1);
}

/* ---- bootstrap ---- */

/* The whole file (malloc'd), or NULL when it cannot be opened. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, k;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void bootstrap_token_once_per_database(void **state)
{
    (void)state;
    struct test_db d;
    test_db_create(&d, "authboot");
    struct test_server a;
    test_server_start(&a, &d, NULL);
    char path[400];
    snprintf(path, sizeof path, "%s/admin.token", a.data_dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_uid, geteuid());
    char *first = read_file(path);
    assert_int_equal(strlen(first), 69); /* hlk_ + 64 hex + newline */
    assert_memory_equal(first, "hlk_", 4);
    assert_memory_equal(a.token, first, 68);
    remember_secret(a.token);
    /* The log names the file, never the secret. */
    char *log = read_file(a.log);
    assert_non_null(strstr(log, path));
    assert_null(strstr(log, a.token));
    free(log);

    /* A second server on the same database makes no other admin. */
    struct test_server b;
    test_server_start(&b, &d, NULL);
    char path_b[400];
    snprintf(path_b, sizeof path_b, "%s/admin.token", b.data_dir);
    assert_int_not_equal(access(path_b, F_OK), 0);
    struct http_result r;
    api_get(&r, &b, "/v1/tokens");
    expect_status(&r, 200);
    assert_int_equal(json_array_size(r.json), 1);
    http_result_free(&r);
    test_server_stop(&b);

    /* A restart on the same data dir keeps the file and the token. */
    test_server_stop(&a);
    const char *const same_dir[] = {"--data-dir", a.data_dir, NULL};
    struct test_server again;
    test_server_start(&again, &d, same_dir);
    char *second = read_file(path);
    assert_string_equal(first, second);
    free(second);
    api_get(&r, &again, "/v1/catalogs");
    expect_status(&r, 200);
    http_result_free(&r);

    /* A lost admin token: --reset-admin-token revokes the server's own
     * admin tokens and writes a new one. An admin a person made stays. */
    struct token mine;
    make_token(&again, &mine, "ops-admin", "admin", NULL, 0);
    test_server_stop(&again);
    const char *const reset[] = {"--data-dir", a.data_dir, "--reset-admin-token", NULL};
    struct test_server fresh;
    test_server_start(&fresh, &d, reset);
    char *third = read_file(path);
    assert_string_not_equal(first, third);
    remember_secret(fresh.token);
    call(&r, &fresh, "GET", "/v1/catalogs", a.token, NULL, NULL);
    expect_error(&r, 401, "unauthenticated");
    http_result_free(&r);
    expect_call(&fresh, "GET", "/v1/catalogs", fresh.token, 200);
    expect_call(&fresh, "GET", "/v1/catalogs", mine.secret, 200);
    free(first);
    free(third);
    test_server_stop(&fresh);
    test_db_drop(&d);
}

/* ---- replicas ---- */

static void revocation_reaches_another_server_within_5s(void **state)
{
    (void)state;
    struct test_server other;
    test_server_start(&other, &db, NULL);
    struct token t;
    make_token(&srv, &t, "short-lived", "reader", NULL, 0);
    struct http_result r;
    /* Both servers now hold the token in their caches. */
    expect_call(&other, "GET", "/v1/catalogs", t.secret, 200);
    expect_call(&srv, "GET", "/v1/catalogs", t.secret, 200);
    revoke_token(&srv, t.id);
    int64_t revoked_at = time_mono_ns();
    /* The server that revoked it refuses at once. */
    call(&r, &srv, "GET", "/v1/catalogs", t.secret, NULL, NULL);
    expect_error(&r, 401, "unauthenticated");
    expect_detail_contains(&r, "revoked");
    http_result_free(&r);
    for (;;) {
        call(&r, &other, "GET", "/v1/catalogs", t.secret, NULL, NULL);
        long status = r.status;
        http_result_free(&r);
        int64_t waited_ms = (time_mono_ns() - revoked_at) / 1000000;
        if (status == 401) {
            printf("revocation seen by the second server after %lld ms\n", (long long)waited_ms);
            break;
        }
        assert_int_equal(status, 200);
        if (waited_ms > 5000)
            fail_msg("the second server still accepts a token revoked %lld ms ago",
                     (long long)waited_ms);
        sleep_ms(50);
    }
    test_server_stop(&other);
}

/* ---- audit, metrics, secrets ---- */

static double metric(const char *series)
{
    struct http_result r;
    api_get(&r, &srv, "/metrics");
    expect_status(&r, 200);
    double v = 0;
    const char *at = strstr(r.body, series);
    if (at)
        v = strtod(at + strlen(series), NULL);
    http_result_free(&r);
    return v;
}

static void refusals_are_audited_and_counted(void **state)
{
    (void)state;
    double missing = metric("hoglake_auth_refusals_total{reason=\"missing\"}");
    double forbidden = metric("hoglake_auth_refusals_total{reason=\"forbidden\"}");
    struct token reader;
    make_token(&srv, &reader, "audited-reader", "reader", NULL, 0);
    struct http_result r;
    expect_call(&srv, "GET", "/v1/catalogs", NULL, 401);
    call(&r, &srv, "POST", "/v1/catalogs", reader.secret, "{\"name\":\"nope\"}", NULL);
    expect_error(&r, 403, "forbidden");
    assert_string_equal(jstr(r.json, "required_role"), "admin");
    char rid[160];
    snprintf(rid, sizeof rid, "%s", r.request_id);
    http_result_free(&r);
    assert_true(metric("hoglake_auth_refusals_total{reason=\"missing\"}") >= missing + 1);
    assert_true(metric("hoglake_auth_refusals_total{reason=\"forbidden\"}") >= forbidden + 1);
    /* The matrix before this test met every kind of refusal. */
    static const char *const reasons[] = {"revoked", "expired", "catalog_scope", "unknown",
                                          "malformed"};
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++) {
        char series[96];
        snprintf(series, sizeof series, "hoglake_auth_refusals_total{reason=\"%s\"}", reasons[i]);
        if (metric(series) < 1)
            fail_msg("no refusal counted as %s", reasons[i]);
    }
    /* The refusal's audit line names the token (id and name) and the
     * route, with the request id the client got. */
    char *log = NULL;
    const char *line = NULL;
    for (int waited = 0; waited < 5000 && !line; waited += 50) {
        free(log);
        log = read_file(srv.log);
        line = log ? strstr(log, rid) : NULL;
        if (!line)
            sleep_ms(50);
    }
    assert_non_null(line);
    const char *start = line;
    while (start > log && start[-1] != '\n')
        start--;
    const char *json = strchr(start, '{');
    json_t *o = json_loadb(json, strcspn(json, "\n"), 0, NULL);
    assert_non_null(o);
    assert_string_equal(jstr(o, "action"), "access_denied");
    assert_string_equal(jstr(o, "outcome"), "forbidden");
    json_t *actor = json_object_get(o, "actor");
    assert_string_equal(jstr(actor, "token_id"), reader.id);
    assert_string_equal(jstr(actor, "name"), "audited-reader");
    json_t *detail = json_object_get(o, "detail");
    assert_string_equal(jstr(detail, "route"), "/v1/catalogs");
    assert_string_equal(jstr(detail, "reason"), "forbidden");
    assert_string_equal(jstr(detail, "required_role"), "admin");
    json_decref(o);
    free(log);
}

/* Runs last: every secret any test saw, looked for everywhere the server
 * writes. */
static void no_secret_in_any_log(void **state)
{
    (void)state;
    char *log = read_file(srv.log);
    assert_non_null(log);
    assert_non_null(strstr(log, "access_denied")); /* the log is the one we think */
    for (int i = 0; i < nsecrets; i++)
        if (strlen(secrets[i]) >= 16 && strstr(log, secrets[i]))
            fail_msg("secret %.8s... appears in the server log", secrets[i]);
    free(log);
}

/* ---- --auth off ---- */

static int run_server_expecting_exit(const char *const *args)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        execv(HOGLAKED_BIN, (char *const *)args);
        _exit(127);
    }
    int status;
    for (int waited = 0; waitpid(pid, &status, WNOHANG) != pid; waited += 20) {
        if (waited > 20000) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fail_msg("hoglaked kept running with %s", args[1]);
        }
        sleep_ms(20);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void auth_off_is_loopback_only(void **state)
{
    (void)state;
    const char *const wide[] = {HOGLAKED_BIN, "--auth",         "off",  "--listen",
                                "0.0.0.0",    "--database-url", db.url, NULL};
    assert_int_equal(run_server_expecting_exit(wide), 2);
    const char *const typo[] = {HOGLAKED_BIN, "--auth", "no", "--database-url", db.url, NULL};
    assert_int_equal(run_server_expecting_exit(typo), 2);

    const char *const off[] = {"--auth", "off", NULL};
    struct test_server dev;
    test_server_start(&dev, &db, off);
    char *log = read_file(dev.log);
    assert_non_null(strstr(log, "authentication is OFF"));
    free(log);
    struct http_result r;
    call(&r, &dev, "GET", "/v1/info", NULL, NULL, NULL);
    expect_status(&r, 200);
    json_t *caller = json_object_get(r.json, "caller");
    assert_string_equal(jstr(caller, "name"), "anonymous");
    assert_string_equal(jstr(caller, "role"), "admin");
    assert_true(json_is_null(json_object_get(caller, "token_id")));
    http_result_free(&r);
    const char *const good_hosts[] = {"localhost", "127.0.0.1:8080", "[::1]:1"};
    for (size_t i = 0; i < 3; i++) {
        call(&r, &dev, "GET", "/v1/catalogs", NULL, NULL, good_hosts[i]);
        expect_status(&r, 200);
        http_result_free(&r);
    }
    /* A web page that rebinds its own name to 127.0.0.1 still sends its
     * name: refused before anything runs. */
    const char *const bad_hosts[] = {"evil.example", "evil.example:8080", "localhost.evil.example"};
    for (size_t i = 0; i < 3; i++) {
        call(&r, &dev, "POST", "/v1/catalogs", NULL,
             "{\"name\":\"rebound\",\"data_path\":\"s3://hoglake-test/rebound\"}", bad_hosts[i]);
        expect_error(&r, 403, "forbidden");
        http_result_free(&r);
    }
    assert_int_equal(sqli("SELECT count(*) FROM hog_catalog WHERE name = 'rebound'"), 0);
    test_server_stop(&dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(role_matrix_over_every_route),
        cmocka_unit_test(malformed_credentials),
        cmocka_unit_test(token_api_refuses_bad_requests),
        cmocka_unit_test(bootstrap_token_once_per_database),
        cmocka_unit_test(revocation_reaches_another_server_within_5s),
        cmocka_unit_test(refusals_are_audited_and_counted),
        cmocka_unit_test(auth_off_is_loopback_only),
        cmocka_unit_test(no_secret_in_any_log),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
