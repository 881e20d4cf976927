/* Storage confinement against a real hoglaked, PostgreSQL and files
 * written by libhoglake: the attacks of issue 13, each now failing safely.
 *   1. catalogs on paths outside the file roots, on the server's own state,
 *      or through a symbolic link are refused (422 data_path_not_allowed);
 *   2. a catalog's directory swapped for a link to another catalog's files
 *      (or to canaries outside every root): truncate, expire and cleanup
 *      delete nothing through it; the removals are drained 'refused',
 *      counted and audited;
 *   3. compaction reads nothing through such a link, and refuses inputs
 *      that are not the size their writer registered (so a memory budget
 *      cannot be fooled);
 *   4. commit paths with a second spelling ('%', '\', '?', '#') are refused;
 *   5. the background loops, left running, leave every canary alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client_harness.h"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static hl_client *client;
static char scratch[256], roots[300], outside[300];

static int setup(void **state)
{
    (void)state;
    test_scratch_dir(scratch, sizeof scratch, "confine");
    snprintf(roots, sizeof roots, "%s/roots", scratch);
    snprintf(outside, sizeof outside, "%s/outside", scratch);
    assert_int_equal(mkdir(roots, 0755), 0);
    assert_int_equal(mkdir(outside, 0755), 0);
    test_db_create(&db, "confine");
    const char *const extra[] = {"--file-roots", roots, NULL};
    test_server_start(&srv, &db, extra);
    pg = test_db_connect(&db);
    test_sql_use(pg);
    client = test_client_new(srv.base, NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hl_client_free(client);
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(scratch);
    return 0;
}

static void create_catalog(const char *name, const char *data_path, long status)
{
    struct http_result r;
    api_send(&r, &srv, "POST", jpack("{s:s,s:s}", "name", name, "data_path", data_path),
             "/v1/catalogs");
    if (r.status != status)
        fail_msg("catalog %s on %s: expected %ld, got %ld %s", name, data_path, status, r.status,
                 r.body);
    if (status == 422)
        expect_error(&r, 422, "data_path_not_allowed");
    http_result_free(&r);
}

static void data_paths_outside_the_roots_are_refused(void **state)
{
    (void)state;
    char path[1400];
    const char *const outside_paths[] = {"file:///etc", "file:///root/x", "file:///tmp/x"};
    for (size_t i = 0; i < sizeof outside_paths / sizeof outside_paths[0]; i++)
        create_catalog("bad", outside_paths[i], 422);
    snprintf(path, sizeof path, "file://%s", outside);
    create_catalog("bad", path, 422);
    /* The server's own state: its data dir holds its admin token. */
    snprintf(path, sizeof path, "file://%s/pg", srv.data_dir);
    create_catalog("bad", path, 422);
    /* A symbolic link as the catalog's directory, or on its way. */
    snprintf(path, sizeof path, "%s/real", roots);
    assert_int_equal(mkdir(path, 0755), 0);
    char link[700];
    snprintf(link, sizeof link, "%s/alias", roots);
    assert_int_equal(symlink(path, link), 0);
    snprintf(path, sizeof path, "file://%s", link);
    create_catalog("bad", path, 422);
    snprintf(path, sizeof path, "file://%s/below", link);
    create_catalog("bad", path, 422);
    snprintf(link, sizeof link, "%s/etc", roots);
    assert_int_equal(symlink("/etc", link), 0);
    snprintf(path, sizeof path, "file://%s/x", link);
    create_catalog("bad", path, 422);
    assert_int_equal(sqli("SELECT count(*) FROM hog_catalog WHERE name = 'bad'"), 0);
    /* Beneath a root, on real directories (existing or not): fine. */
    snprintf(path, sizeof path, "file://%s/real/ok", roots);
    create_catalog("good", path, 201);
}

/* A catalog with one table of `files` files written by libhoglake. */
struct lake {
    hl_catalog *catalog;
    hl_namespace *ns;
    hl_table *table;
    char dir[600]; /* the table's data directory */
};

static void lake_up(struct lake *l, const char *name, int files)
{
    char path[600];
    snprintf(path, sizeof path, "file://%s/%s", roots, name);
    struct hl_error err;
    test_check(hl_catalog_create(client, name, path, &l->catalog, &err), &err, "catalog");
    test_check(hl_namespace_create(l->catalog, "ns", &l->ns, &err), &err, "namespace");
    test_check(
        hl_table_create(l->ns, "t", "[{\"name\":\"id\",\"type\":\"long\"}]", NULL, &l->table, &err),
        &err, "table");
    for (int i = 0; i < files; i++) {
        char rows[64];
        snprintf(rows, sizeof rows, "{\"id\":%d}\n{\"id\":%d}\n", 2 * i, 2 * i + 1);
        struct ArrowArrayStream s;
        test_rows_stream("id:long", rows, &s);
        struct hl_append_options o;
        hl_append_options_init(&o);
        test_check(hl_table_append(l->table, &s, &o, NULL, &err), &err, "append");
    }
    snprintf(l->dir, sizeof l->dir, "%s/%s/data/ns/t", roots, name);
}

static void lake_down(struct lake *l)
{
    hl_table_free(l->table);
    hl_namespace_free(l->ns);
    hl_catalog_free(l->catalog);
}

/* Moves the table's data directory out to `to` and leaves a symbolic link
 * in its place: every registered path now leads outside the catalog. */
static void swap_for_link(const struct lake *l, const char *to)
{
    if (rename(l->dir, to) != 0)
        fail_msg("rename %s: %s", l->dir, strerror(errno));
    if (symlink(to, l->dir) != 0)
        fail_msg("symlink %s: %s", l->dir, strerror(errno));
}

static void truncate_table(const char *catalog)
{
    json_t *t = api_get_json(&srv, "/v1/catalogs/%s/namespaces/ns/tables/t", catalog);
    char url[700];
    snprintf(url, sizeof url,
             "%s/v1/catalogs/%s/namespaces/ns/tables/t/truncate?expected_table_uuid=%s", srv.base,
             catalog, jstr(t, "table_uuid"));
    json_decref(t);
    struct http_result r;
    http_call(&r, "POST", url, NULL, NULL, 0, NULL);
    expect_status(&r, 200);
    http_result_free(&r);
}

/* Retention of 1 s, no consumer floor: what is ended expires at once. */
static void expire_quickly(const char *catalog)
{
    struct http_result r;
    api_send(&r, &srv, "PATCH",
             jpack("{s:i,s:b}", "snapshot_retention_seconds", 1, "consumer_floor", 0),
             "/v1/catalogs/%s/options", catalog);
    expect_status(&r, 200);
    http_result_free(&r);
}

static json_t *maintenance(const char *catalog, const char *task)
{
    char url[600];
    snprintf(url, sizeof url, "%s/v1/catalogs/%s/maintenance/%s", srv.base, catalog, task);
    struct http_result r;
    http_call(&r, "POST", url, NULL, NULL, 0, NULL);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    return out;
}

static double metric(const char *series)
{
    struct http_result r;
    api_get(&r, &srv, "/metrics");
    expect_status(&r, 200);
    const char *at = strstr(r.body, series);
    double v = at ? strtod(at + strlen(series), NULL) : 0;
    http_result_free(&r);
    return v;
}

static void cleanup_never_deletes_through_a_link(void **state)
{
    (void)state;
    struct lake victim, evil;
    lake_up(&victim, "victim", 3);
    lake_up(&evil, "evil", 3);
    int64_t victim_files = test_count_files(victim.dir, "");
    assert_int_equal(victim_files, 3);
    /* The attacker's table directory becomes a link to the victim's
     * (same file names do not matter: the link is refused, whatever it
     * leads to). */
    char moved[700];
    snprintf(moved, sizeof moved, "%s/evil-moved", outside);
    swap_for_link(&evil, moved);
    unlink(evil.dir);
    assert_int_equal(symlink(victim.dir, evil.dir), 0);
    truncate_table("evil");
    expire_quickly("evil");
    sleep_ms(1200);
    json_t *r = maintenance("evil", "expire");
    json_decref(r);
    double refused_before = metric("hoglake_storage_refusals_total{reason=\"symlink\"}");
    r = maintenance("evil", "cleanup");
    assert_int_equal(jint(r, "removed"), 0);
    assert_int_equal(jint(r, "refused"), 3);
    json_decref(r);
    assert_int_equal(test_count_files(victim.dir, ""), victim_files);
    assert_int_equal(test_count_files(moved, ""), 3);
    expect_sql("3",
               "SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld"
               " AND drained_outcome = 'refused'",
               (long long)cat_id("evil"));
    /* Never retried: another pass finds nothing to do. */
    r = maintenance("evil", "cleanup");
    assert_int_equal(jint(r, "refused"), 0);
    json_decref(r);
    assert_true(metric("hoglake_storage_refusals_total{reason=\"symlink\"}") >= refused_before + 3);
    char *log = test_read_text(srv.log);
    assert_non_null(strstr(log, "\"action\":\"storage_refused\""));
    free(log);
    /* The victim still reads whole. */
    struct hl_error err;
    char *files;
    test_check(hl_table_files(victim.table, NULL, &files, &err), &err, "victim files");
    free(files);
    lake_down(&victim);
    lake_down(&evil);
}

/* Compaction through a link: the inputs are refused before a byte is read,
 * so no output holds their rows. */
static void compaction_reads_nothing_through_a_link(void **state)
{
    (void)state;
    struct lake l;
    lake_up(&l, "compactlink", 6); /* compaction takes at least 5 files */
    char moved[700];
    snprintf(moved, sizeof moved, "%s/compactlink-moved", outside);
    swap_for_link(&l, moved);
    json_t *r = maintenance("compactlink", "compact");
    assert_int_equal(jint(r, "groups_compacted"), 0);
    assert_int_equal(jint(r, "storage_refused"), 1);
    json_decref(r);
    /* Nothing was written beside the link, nor through it. */
    assert_int_equal(test_count_files(moved, ""), 6);
    char parent[700];
    snprintf(parent, sizeof parent, "%s/compactlink", roots);
    assert_int_equal(test_count_files(parent, ""), 0);
    lake_down(&l);
}

/* Inputs that are not the size their writer registered: a budget counted
 * on registered sizes would let huge objects in. */
static void compaction_refuses_size_lies(void **state)
{
    (void)state;
    struct lake l;
    lake_up(&l, "liar", 6);
    sql_exec("UPDATE hog_data_file SET file_size_bytes = 100 WHERE catalog_id = %lld",
             (long long)cat_id("liar"));
    double before = metric("hoglake_storage_refusals_total{reason=\"size_mismatch\"}");
    json_t *r = maintenance("liar", "compact");
    assert_int_equal(jint(r, "groups_compacted"), 0);
    assert_int_equal(jint(r, "storage_refused"), 1);
    json_decref(r);
    assert_true(metric("hoglake_storage_refusals_total{reason=\"size_mismatch\"}") >= before + 1);
    assert_int_equal(test_count_files(l.dir, ""), 6);
    lake_down(&l);
}

static void commit_paths_have_one_spelling(void **state)
{
    (void)state;
    struct lake l;
    lake_up(&l, "spelling", 0);
    const char *const tails[] = {"a%2e%2e/x.parquet", "a\\\\..\\\\x.parquet", "x.parquet?y",
                                 "x.parquet#y"};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        char body[1200];
        snprintf(body, sizeof body,
                 "{\"appends\":[{\"namespace\":\"ns\",\"table\":\"t\",\"files\":[{\"path\":"
                 "\"file://%s/spelling/data/%s\",\"record_count\":1,\"file_size_bytes\":10}]}]}",
                 roots, tails[i]);
        struct http_result r;
        api_send_text(&r, &srv, "POST", body, "/v1/catalogs/spelling/commit");
        expect_error(&r, 422, "validation");
        expect_detail_contains(&r, "must have one spelling");
        http_result_free(&r);
    }
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld",
                          (long long)cat_id("spelling")),
                     0);
    lake_down(&l);
}

/* The loops, not the endpoints: a server expiring and cleaning every
 * 200 ms over a catalog whose files lead outside leaves them there. */
static void background_loops_leave_canaries(void **state)
{
    (void)state;
    struct lake l;
    lake_up(&l, "loops", 3);
    char moved[700];
    snprintf(moved, sizeof moved, "%s/loops-moved", outside);
    swap_for_link(&l, moved);
    truncate_table("loops");
    expire_quickly("loops");
    const char *const extra[] = {"--file-roots",
                                 roots,
                                 "--expiry-interval-ms",
                                 "200",
                                 "--cleanup-interval-ms",
                                 "200",
                                 "--hydrator-interval-ms",
                                 "200",
                                 "--compaction-interval-ms",
                                 "200",
                                 NULL};
    struct test_server looping;
    test_server_start(&looping, &db, extra);
    for (int waited = 0; waited < 20000; waited += 200) {
        if (sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld AND"
                 " drained_outcome = 'refused'",
                 (long long)cat_id("loops")) == 3)
            break;
        sleep_ms(200);
    }
    test_server_stop(&looping);
    expect_sql("3",
               "SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld"
               " AND drained_outcome = 'refused'",
               (long long)cat_id("loops"));
    assert_int_equal(test_count_files(moved, ""), 3);
    lake_down(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(data_paths_outside_the_roots_are_refused),
        cmocka_unit_test(cleanup_never_deletes_through_a_link),
        cmocka_unit_test(compaction_reads_nothing_through_a_link),
        cmocka_unit_test(compaction_refuses_size_lies),
        cmocka_unit_test(commit_paths_have_one_spelling),
        cmocka_unit_test(background_loops_leave_canaries),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
