/* Concurrent DDL: eight clients in one catalog, through one server and
 * through two servers sharing the database. Snapshot ids must come out
 * dense and commit-ordered, with no deadlock and no 5xx. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { CLIENTS = 8, OPS_PER_CLIENT = 24 };

struct client {
    const struct test_server *servers[2];
    int nservers;
    const char *catalog;
    int id;
    /* results */
    int64_t snapshots[OPS_PER_CLIENT * 2];
    int nsnapshots;
    int failures;
    char failure[512];
};

static void record(struct client *c, const struct http_result *r, long expected)
{
    if (r->status != expected) {
        if (c->failures++ == 0)
            snprintf(c->failure, sizeof c->failure, "client %d: expected %ld, got %ld: %.300s",
                     c->id, expected, r->status, r->body);
        return;
    }
    json_t *snap = r->json ? json_object_get(r->json, "snapshot_id") : NULL;
    if (json_is_integer(snap))
        c->snapshots[c->nsnapshots++] = json_integer_value(snap);
}

/* A mix of every DDL kind: namespace create, table create, alter, view
 * create and drop, table drop, namespace drop. */
static void *client_main(void *arg)
{
    struct client *c = arg;
    for (int i = 0; i < OPS_PER_CLIENT / 8; i++) {
        const struct test_server *s = c->servers[i % c->nservers];
        char ns[32], cat_path[96];
        snprintf(ns, sizeof ns, "ns_%d_%d", c->id, i);
        snprintf(cat_path, sizeof cat_path, "/v1/catalogs/%s/namespaces", c->catalog);
        struct http_result r;
        api_send(&r, s, "POST", jpack("{s:s}", "name", ns), "%s", cat_path);
        record(c, &r, 201);
        http_result_free(&r);
        api_send(&r, s, "POST",
                 jpack("{s:s,s:[{s:s,s:s},{s:s,s:s}]}", "name", "t", "columns", "name", "id",
                       "type", "long", "name", "v", "type", "string"),
                 "%s/%s/tables", cat_path, ns);
        record(c, &r, 201);
        http_result_free(&r);
        for (int k = 0; k < 2; k++) {
            char col[16];
            snprintf(col, sizeof col, "c%d", k);
            api_send(&r, s, "POST",
                     jpack("{s:[{s:s,s:{s:s,s:s}}]}", "ops", "op", "add_column", "column", "name",
                           col, "type", "int"),
                     "%s/%s/tables/t/alter", cat_path, ns);
            record(c, &r, 200);
            http_result_free(&r);
        }
        api_send(&r, s, "POST", jpack("{s:s,s:s}", "name", "v", "sql", "SELECT 1"), "%s/%s/views",
                 cat_path, ns);
        record(c, &r, 201);
        http_result_free(&r);
        api_delete(&r, s, "%s/%s/views/v", cat_path, ns);
        record(c, &r, 200);
        http_result_free(&r);
        api_delete(&r, s, "%s/%s/tables/t", cat_path, ns);
        record(c, &r, 200);
        http_result_free(&r);
        api_delete(&r, s, "%s/%s", cat_path, ns);
        record(c, &r, 200);
        http_result_free(&r);
    }
    return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void run_clients(const struct test_server *const *servers, int nservers,
                        const struct test_db *db, const char *catalog)
{
    make_catalog(servers[0], catalog);
    static struct client clients[CLIENTS];
    pthread_t threads[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        memset(&clients[i], 0, sizeof clients[i]);
        clients[i].servers[0] = servers[0];
        clients[i].servers[1] = servers[nservers - 1];
        clients[i].nservers = nservers;
        clients[i].catalog = catalog;
        clients[i].id = i;
        assert_int_equal(pthread_create(&threads[i], NULL, client_main, &clients[i]), 0);
    }
    int64_t all[CLIENTS * OPS_PER_CLIENT * 2];
    int n = 0;
    for (int i = 0; i < CLIENTS; i++) {
        pthread_join(threads[i], NULL);
        if (clients[i].failures)
            fail_msg("%d failure(s); first: %s", clients[i].failures, clients[i].failure);
        for (int k = 0; k < clients[i].nsnapshots; k++)
            all[n++] = clients[i].snapshots[k];
    }
    /* Every acknowledged DDL got its own snapshot; together they are
     * exactly 1..head with no gap and no repeat. */
    assert_int_equal(n, CLIENTS * OPS_PER_CLIENT);
    qsort(all, (size_t)n, sizeof all[0], cmp_i64);
    for (int i = 0; i < n; i++)
        assert_int_equal(all[i], i + 1);

    PGconn *c = test_db_connect(db);
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT last_snapshot_id FROM hog_catalog WHERE name = '%s'",
             catalog);
    int64_t head = test_db_scalar(c, sql);
    assert_int_equal(head, n);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM hog_snapshot s JOIN hog_catalog c USING (catalog_id)"
             " WHERE c.name = '%s'",
             catalog);
    assert_int_equal(test_db_scalar(c, sql), head + 1);
    /* Snapshot times are monotone in id order: they are stamped under the
     * catalog lock. */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT snapshot_time < lag(snapshot_time) OVER (ORDER BY"
             " snapshot_id) AS backwards FROM hog_snapshot s JOIN hog_catalog c USING (catalog_id)"
             " WHERE c.name = '%s') x WHERE backwards",
             catalog);
    assert_int_equal(test_db_scalar(c, sql), 0);
    /* Every DDL bumped schema_version once. */
    snprintf(sql, sizeof sql, "SELECT schema_version FROM hog_catalog WHERE name = '%s'", catalog);
    assert_int_equal(test_db_scalar(c, sql), head);
    /* One change row per snapshot, none lost. */
    snprintf(sql, sizeof sql,
             "SELECT count(DISTINCT snapshot_id) FROM hog_snapshot_change s JOIN hog_catalog c"
             " USING (catalog_id) WHERE c.name = '%s'",
             catalog);
    assert_int_equal(test_db_scalar(c, sql), head);
    /* Everything created was dropped again. */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM hog_namespace s JOIN hog_catalog c USING (catalog_id)"
             " WHERE c.name = '%s' AND dropped_snapshot IS NULL",
             catalog);
    assert_int_equal(test_db_scalar(c, sql), 0);
    PQfinish(c);
}

static void one_server_eight_clients(void **state)
{
    (void)state;
    struct test_db db;
    test_db_create(&db, "conc1");
    struct test_server s;
    test_server_start(&s, &db, NULL);
    const struct test_server *servers[] = {&s};
    run_clients(servers, 1, &db, "conc");
    test_server_stop(&s);
    test_db_drop(&db);
}

static void two_servers_share_one_database(void **state)
{
    (void)state;
    struct test_db db;
    test_db_create(&db, "conc2");
    struct test_server a, b;
    test_server_start(&a, &db, NULL);
    test_server_start(&b, &db, NULL);
    const struct test_server *servers[] = {&a, &b};
    run_clients(servers, 2, &db, "shared");
    test_server_stop(&a);
    test_server_stop(&b);
    test_db_drop(&db);
}

struct racer {
    const struct test_server *server;
    long status;
};

static void *race_create(void *arg)
{
    struct racer *r = arg;
    struct http_result res;
    api_send(&res, r->server, "POST", jpack("{s:s}", "name", "same"),
             "/v1/catalogs/race/namespaces");
    r->status = res.status;
    http_result_free(&res);
    return NULL;
}

/* Eight clients create the same name at once: exactly one wins. */
static void same_name_race_has_one_winner(void **state)
{
    (void)state;
    struct test_db db;
    test_db_create(&db, "conc3");
    struct test_server a, b;
    test_server_start(&a, &db, NULL);
    test_server_start(&b, &db, NULL);
    make_catalog(&a, "race");
    struct racer racers[CLIENTS];
    pthread_t threads[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        racers[i].server = i % 2 ? &b : &a;
        assert_int_equal(pthread_create(&threads[i], NULL, race_create, &racers[i]), 0);
    }
    int created = 0, conflicts = 0;
    for (int i = 0; i < CLIENTS; i++) {
        pthread_join(threads[i], NULL);
        if (racers[i].status == 201)
            created++;
        else if (racers[i].status == 409)
            conflicts++;
        else
            fail_msg("racer %d got %ld", i, racers[i].status);
    }
    assert_int_equal(created, 1);
    assert_int_equal(conflicts, CLIENTS - 1);
    PGconn *c = test_db_connect(&db);
    assert_int_equal(test_db_scalar(c, "SELECT last_snapshot_id FROM hog_catalog"), 1);
    PQfinish(c);
    test_server_stop(&a);
    test_server_stop(&b);
    test_db_drop(&db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_server_eight_clients),
        cmocka_unit_test(two_servers_share_one_database),
        cmocka_unit_test(same_name_race_has_one_winner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
