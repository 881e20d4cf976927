/* The pieces of authentication that need no server: secrets and their
 * digests, bearer header parsing, the token cache, the loopback rules of
 * --auth off, and the route table's policies, pinned here route by route
 * so that a new route cannot be added without a deliberate policy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/auth/auth.h"
#include "server/auth/auth_cache.h"
#include "server/auth/token.h"
#include "server/http/router.h"

static void secrets_are_random_and_well_formed(void **state)
{
    (void)state;
    char a[TOKEN_SECRET_LEN + 1], b[TOKEN_SECRET_LEN + 1];
    assert_int_equal(token_secret_new(a), 0);
    assert_int_equal(token_secret_new(b), 0);
    assert_int_equal(strlen(a), 68);
    assert_memory_equal(a, "hlk_", 4);
    assert_true(token_secret_wellformed(a, strlen(a)));
    assert_string_not_equal(a, b);
    /* Shapes that are not secrets: no lookup is made for them. */
    char upper[TOKEN_SECRET_LEN + 1];
    memcpy(upper, a, sizeof upper);
    upper[10] = 'A';
    const char *bad[] = {"", "hlk_", "hlk_abc", upper,
                         "xyz_"
                         "0000000000000000000000000000000000000000000000000000000000000000"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(token_secret_wellformed(bad[i], strlen(bad[i])));
    assert_false(token_secret_wellformed(a, strlen(a) - 1));
}

static void digests_compare_whole(void **state)
{
    (void)state;
    uint8_t x[SHA256_BYTES], y[SHA256_BYTES];
    assert_int_equal(token_secret_hash("hlk_a", 5, x), 0);
    assert_int_equal(token_secret_hash("hlk_a", 5, y), 0);
    assert_true(token_digest_equal(x, y));
    for (size_t i = 0; i < SHA256_BYTES; i += 7) {
        y[i] ^= 0x01;
        assert_false(token_digest_equal(x, y));
        y[i] ^= 0x01;
    }
    /* SHA-256("abc"), a published vector: the digest is plain SHA-256. */
    static const uint8_t abc[SHA256_BYTES] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
                                              0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
                                              0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
                                              0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
    assert_int_equal(token_secret_hash("abc", 3, x), 0);
    assert_memory_equal(x, abc, SHA256_BYTES);
}

static void bearer_header_parsing(void **state)
{
    (void)state;
    size_t n = 0;
    const char *t = token_bearer("Bearer hlk_x", &n);
    assert_non_null(t);
    assert_int_equal(n, 5);
    assert_memory_equal(t, "hlk_x", 5);
    t = token_bearer("bEaReR    hlk_y   ", &n);
    assert_non_null(t);
    assert_int_equal(n, 5);
    assert_memory_equal(t, "hlk_y", 5);
    assert_null(token_bearer("Basic dXNlcjpwYXNz", &n));
    assert_null(token_bearer("Bearer", &n));
    assert_null(token_bearer("Bearer    ", &n));
    assert_null(token_bearer("Bearerhlk_x", &n));
    assert_null(token_bearer(NULL, &n));
}

static void roles_are_ordered_and_named(void **state)
{
    (void)state;
    assert_true(ROLE_READER < ROLE_WRITER && ROLE_WRITER < ROLE_OWNER && ROLE_OWNER < ROLE_ADMIN);
    const char *names[] = {"reader", "writer", "owner", "admin"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(role_parse(names[i]), ROLE_READER + i);
        assert_string_equal(role_name(role_parse(names[i])), names[i]);
    }
    assert_int_equal(role_parse("Admin"), ROLE_NONE);
    assert_int_equal(role_parse("root"), ROLE_NONE);
    assert_int_equal(role_parse(NULL), ROLE_NONE);
    assert_string_equal(role_name(ROLE_NONE), "none");
}

static void digest_of(const char *s, uint8_t out[SHA256_BYTES])
{
    assert_int_equal(token_secret_hash(s, strlen(s), out), 0);
}

static void cache_answers_within_its_ttl(void **state)
{
    (void)state;
    const int64_t ttl = 2000000000;
    struct auth_cache *c = auth_cache_new(ttl);
    assert_non_null(c);
    uint8_t known[SHA256_BYTES], unknown[SHA256_BYTES], other[SHA256_BYTES];
    digest_of("hlk_known", known);
    digest_of("hlk_unknown", unknown);
    digest_of("hlk_other", other);
    struct token_grant g = {.role = ROLE_WRITER, .catalog_id = 7};
    strcpy(g.token_id, "11111111-1111-1111-1111-111111111111");
    strcpy(g.name, "etl");
    strcpy(g.catalog, "shop");
    struct token_grant out;
    assert_int_equal(auth_cache_get(c, known, 1000, &out), AUTH_CACHE_MISS);
    auth_cache_put(c, known, &g, 1000);
    auth_cache_put(c, unknown, NULL, 1000);
    memset(&out, 0, sizeof out);
    assert_int_equal(auth_cache_get(c, known, 1000 + ttl - 1, &out), AUTH_CACHE_GRANT);
    assert_string_equal(out.name, "etl");
    assert_int_equal(out.role, ROLE_WRITER);
    assert_int_equal(out.catalog_id, 7);
    assert_int_equal(auth_cache_get(c, unknown, 1000 + ttl - 1, &out), AUTH_CACHE_UNKNOWN);
    /* Past the TTL the store must be asked again: that is what bounds a
     * revocation's delay on other replicas. */
    assert_int_equal(auth_cache_get(c, known, 1000 + ttl, &out), AUTH_CACHE_MISS);
    assert_int_equal(auth_cache_get(c, unknown, 1000 + ttl, &out), AUTH_CACHE_MISS);
    /* A clock that went backwards is not trusted either. */
    assert_int_equal(auth_cache_get(c, known, 999, &out), AUTH_CACHE_MISS);
    assert_int_equal(auth_cache_get(c, other, 1000, &out), AUTH_CACHE_MISS);
    /* Forgetting a token drops it at once. */
    auth_cache_put(c, known, &g, 5000);
    auth_cache_forget(c, g.token_id);
    assert_int_equal(auth_cache_get(c, known, 5000, &out), AUTH_CACHE_MISS);
    auth_cache_free(c);
}

/* Many more digests than slots: memory stays fixed, each answer is the
 * right one or a miss, never another token's grant. */
static void cache_collisions_never_mix_tokens(void **state)
{
    (void)state;
    struct auth_cache *c = auth_cache_new(1000000000);
    enum { N = 5000 };
    for (int i = 0; i < N; i++) {
        char secret[32];
        snprintf(secret, sizeof secret, "hlk_%d", i);
        uint8_t d[SHA256_BYTES];
        digest_of(secret, d);
        struct token_grant g = {.role = ROLE_READER};
        snprintf(g.name, sizeof g.name, "t%d", i);
        auth_cache_put(c, d, &g, 1);
    }
    int hits = 0;
    for (int i = 0; i < N; i++) {
        char secret[32], name[32];
        snprintf(secret, sizeof secret, "hlk_%d", i);
        snprintf(name, sizeof name, "t%d", i);
        uint8_t d[SHA256_BYTES];
        digest_of(secret, d);
        struct token_grant out;
        if (auth_cache_get(c, d, 2, &out) == AUTH_CACHE_GRANT) {
            assert_string_equal(out.name, name);
            hits++;
        }
    }
    assert_true(hits > 0 && hits < N);
    auth_cache_free(c);
}

static void loopback_names_and_addresses(void **state)
{
    (void)state;
    const char *yes[] = {"localhost",   "LOCALHOST:8080", "127.0.0.1",
                         "127.0.0.1:1", "[::1]",          "[::1]:65535"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        assert_true(auth_host_is_loopback(yes[i]));
    /* DNS rebinding sends the attacker's name; a port suffix or a look-alike
     * must not pass. */
    const char *no[] = {"evil.example",
                        "localhost.evil.example",
                        "127.0.0.1.nip.io",
                        "localhost:",
                        "localhost:80x",
                        "127.0.0.1:99999",
                        "127.0.0.2",
                        "[::1]evil",
                        "",
                        "localhostx",
                        "10.0.0.1:8080",
                        "[::2]"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        assert_false(auth_host_is_loopback(no[i]));
    assert_true(auth_listen_is_loopback("127.0.0.1"));
    assert_true(auth_listen_is_loopback("127.8.9.10"));
    assert_true(auth_listen_is_loopback("::1"));
    assert_false(auth_listen_is_loopback("0.0.0.0"));
    assert_false(auth_listen_is_loopback("::"));
    assert_false(auth_listen_is_loopback("10.1.2.3"));
    assert_false(auth_listen_is_loopback("localhost"));
}

/* The policy of every route, written out independently of router.c: a
 * route missing here, or one whose policy differs, fails. */
static const struct {
    const char *method, *pattern;
    enum route_access access;
} pinned[] = {
#define C "/v1/catalogs/{catalog}"
#define N C "/namespaces/{namespace}"
    {"GET", "/livez", ACCESS_PUBLIC},
    {"GET", "/healthz", ACCESS_PUBLIC},
    {"GET", "/metrics", ACCESS_METRICS},
    {"GET", "/openapi.yaml", ACCESS_ANY},
    {"GET", "/v1/info", ACCESS_ANY},
    {"GET", "/v1/catalogs", ACCESS_ANY},
    {"POST", "/v1/catalogs", ACCESS_ADMIN},
    {"GET", C, ACCESS_READER},
    {"GET", C "/options", ACCESS_READER},
    {"PATCH", C "/options", ACCESS_OWNER},
    {"GET", C "/namespaces", ACCESS_READER},
    {"POST", C "/namespaces", ACCESS_OWNER},
    {"GET", N, ACCESS_READER},
    {"DELETE", N, ACCESS_OWNER},
    {"GET", N "/tables", ACCESS_READER},
    {"POST", N "/tables", ACCESS_OWNER},
    {"GET", N "/tables/{table}", ACCESS_READER},
    {"DELETE", N "/tables/{table}", ACCESS_OWNER},
    {"POST", N "/tables/{table}/alter", ACCESS_OWNER},
    {"POST", N "/tables/{table}/truncate", ACCESS_OWNER},
    {"GET", N "/tables/{table}/files", ACCESS_READER},
    {"GET", N "/tables/{table}/files/{file_id}/stats", ACCESS_READER},
    {"GET", N "/tables/{table}/scan", ACCESS_READER},
    {"GET", N "/tables/{table}/changes", ACCESS_READER},
    {"GET", N "/tables/{table}/partitions", ACCESS_READER},
    {"GET", N "/views", ACCESS_READER},
    {"POST", N "/views", ACCESS_OWNER},
    {"GET", N "/views/{view}", ACCESS_READER},
    {"DELETE", N "/views/{view}", ACCESS_OWNER},
    {"GET", C "/snapshots", ACCESS_READER},
    {"GET", C "/snapshots/resolve", ACCESS_READER},
    {"POST", C "/commit", ACCESS_WRITER},
    {"POST", C "/commit/prepared", ACCESS_WRITER},
    {"POST", C "/commit/deletes/prepared", ACCESS_WRITER},
    {"POST", C "/commit/mutations/prepared", ACCESS_WRITER},
    {"POST", C "/commit/uploads", ACCESS_WRITER},
    {"POST", C "/commit/transaction", ACCESS_WRITER},
    {"GET", C "/commit/receipts/{operation}", ACCESS_WRITER},
    {"POST", C "/uploads", ACCESS_WRITER},
    {"PUT", C "/uploads/{upload}", ACCESS_WRITER},
    {"POST", C "/uploads/renew", ACCESS_WRITER},
    {"POST", C "/uploads/abandon", ACCESS_WRITER},
    {"POST", C "/uploads/schedule-expired", ACCESS_WRITER},
    {"GET", C "/consumers", ACCESS_READER},
    {"GET", C "/consumers/{consumer}/offsets", ACCESS_READER},
    {"GET", C "/consumers/{consumer}/offsets/{table_uuid}", ACCESS_READER},
    {"PUT", C "/consumers/{consumer}/offsets/{table_uuid}", ACCESS_WRITER},
    {"POST", C "/maintenance/expire", ACCESS_OWNER},
    {"POST", C "/maintenance/retire", ACCESS_OWNER},
    {"POST", C "/maintenance/compact", ACCESS_OWNER},
    {"GET", C "/maintenance/status", ACCESS_READER},
    {"GET", C "/maintenance/runs", ACCESS_READER},
    {"POST", C "/maintenance/hydrate", ACCESS_OWNER},
    {"POST", C "/maintenance/rehydrate", ACCESS_OWNER},
    {"POST", C "/maintenance/cleanup", ACCESS_OWNER},
    {"POST", C "/maintenance/orphans", ACCESS_OWNER},
    {"GET", C "/stats/partitions", ACCESS_READER},
    {"GET", C "/publications", ACCESS_READER},
    {"POST", C "/publications", ACCESS_OWNER},
    {"GET", C "/publications/{publication}", ACCESS_READER},
    {"DELETE", C "/publications/{publication}", ACCESS_OWNER},
    {"GET", C "/export", ACCESS_READER},
    {"GET", "/v1/tokens", ACCESS_ADMIN},
    {"POST", "/v1/tokens", ACCESS_ADMIN},
    {"DELETE", "/v1/tokens/{token_id}", ACCESS_ADMIN},
#undef N
#undef C
};

static void every_route_has_its_pinned_policy(void **state)
{
    (void)state;
    const struct route *bad = NULL;
    assert_true(router_check(&bad));
    size_t n;
    const struct route *routes = router_routes(&n);
    assert_int_equal(n, sizeof pinned / sizeof pinned[0]);
    for (size_t i = 0; i < n; i++) {
        const struct route *r = &routes[i];
        size_t k = 0;
        while (k < n && !(strcmp(pinned[k].method, r->method) == 0 &&
                          strcmp(pinned[k].pattern, r->pattern) == 0))
            k++;
        if (k == n)
            fail_msg("route %s %s has no pinned policy in this test: decide who may call it",
                     r->method, r->pattern);
        if (pinned[k].access != r->access)
            fail_msg("route %s %s: policy %d, pinned %d", r->method, r->pattern, (int)r->access,
                     (int)pinned[k].access);
        /* Role policies act on one catalog, except the instance-wide
         * admin routes. */
        bool role = r->access >= ACCESS_READER && r->access <= ACCESS_OWNER;
        if (role && !route_in_catalog(r))
            fail_msg("route %s %s: a catalog role on a route outside a catalog", r->method,
                     r->pattern);
    }
}

static void catalog_routes_are_recognised(void **state)
{
    (void)state;
    struct route r = {.pattern = "/v1/catalogs/{catalog}"};
    assert_true(route_in_catalog(&r));
    r.pattern = "/v1/catalogs/{catalog}/commit";
    assert_true(route_in_catalog(&r));
    r.pattern = "/v1/catalogs";
    assert_false(route_in_catalog(&r));
    r.pattern = "/v1/catalogs/{catalog}x";
    assert_false(route_in_catalog(&r));
    r.pattern = "/v1/tokens/{token_id}";
    assert_false(route_in_catalog(&r));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(secrets_are_random_and_well_formed),
        cmocka_unit_test(digests_compare_whole),
        cmocka_unit_test(bearer_header_parsing),
        cmocka_unit_test(roles_are_ordered_and_named),
        cmocka_unit_test(cache_answers_within_its_ttl),
        cmocka_unit_test(cache_collisions_never_mix_tokens),
        cmocka_unit_test(loopback_names_and_addresses),
        cmocka_unit_test(every_route_has_its_pinned_policy),
        cmocka_unit_test(catalog_routes_are_recognised),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
