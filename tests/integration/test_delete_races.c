/* Deletes racing other writers (issue 17), through two hoglaked servers
 * sharing one database:
 *
 *   - deletes through one server while appends land through the other:
 *     no delete is lost (the snapshot a delete committed at holds no row it
 *     selected), no row comes back (a row a delete removed is in no later
 *     snapshot), row ids are never reused, and each delete's window of the
 *     changefeed reports exactly the rows it deleted;
 *   - deletes racing compactions of the same files: a compaction that read
 *     a file before a delete grew its vector does not commit its stale
 *     rewrite, a delete that read before a compaction retried on the
 *     outputs, and the table ends holding exactly the rows no delete
 *     selected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "client_harness.h"
#include "harness.h"
#include "hoglake/arrow_abi.h"
#include "hoglake/hoglake.h"
#include "util/buf.h"

enum {
    KEYS = 7,         /* k = id % KEYS */
    DELETED_KEYS = 5, /* deletes of k = 0 .. DELETED_KEYS - 1 */
};

static struct client_stack st;

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int setup(void **state)
{
    (void)state;
    client_stack_up(&st, "delete_races");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    client_stack_down(&st);
    return 0;
}

/* Handles on table ns.t of a catalog, through one client (each thread has
 * its own). */
struct handles {
    hl_client *client;
    hl_catalog *catalog;
    hl_namespace *ns;
    hl_table *table;
};

static void handles_open(struct handles *h, const char *server_url, const char *catalog)
{
    memset(h, 0, sizeof *h);
    h->client = test_client_new(server_url, NULL);
    struct hl_error err;
    test_check(hl_catalog_open(h->client, catalog, &h->catalog, &err), &err, "catalog open");
    test_check(hl_namespace_open(h->catalog, "ns", &h->ns, &err), &err, "namespace open");
    test_check(hl_table_open(h->ns, "t", &h->table, &err), &err, "table open");
}

static void handles_close(struct handles *h)
{
    hl_table_free(h->table);
    hl_namespace_free(h->ns);
    hl_catalog_free(h->catalog);
    hl_client_free(h->client);
}

static void create_table(const char *catalog)
{
    hl_client *c = st.file_client;
    char data_path[512];
    client_stack_data_path(&st, c, catalog, data_path, sizeof data_path);
    hl_catalog *cat = NULL;
    hl_namespace *ns = NULL;
    hl_table *t = NULL;
    struct hl_error err;
    test_check(hl_catalog_create(c, catalog, data_path, &cat, &err), &err, "catalog create");
    test_check(hl_namespace_create(cat, "ns", &ns, &err), &err, "namespace create");
    test_check(hl_table_create(ns, "t",
                               "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"k\",\"type\":\"long\",\"nullable\":false}]",
                               NULL, &t, &err),
               &err, "table create");
    hl_table_free(t);
    hl_namespace_free(ns);
    hl_catalog_free(cat);
}

/* Appends rows id first .. first + n - 1 (k = id % KEYS) as one file. */
static void append_ids(hl_table *t, int64_t first, int64_t n)
{
    struct buf b = BUF_INIT;
    for (int64_t id = first; id < first + n; id++)
        assert_int_equal(
            buf_printf(&b, "{\"id\":%lld,\"k\":%lld}\n", (long long)id, (long long)(id % KEYS)), 0);
    struct ArrowArrayStream s;
    test_rows_stream("id:long!, k:long!", b.data, &s);
    buf_free(&b);
    struct hl_append_options o;
    hl_append_options_init(&o);
    struct hl_error err;
    test_check(hl_table_append(t, &s, &o, NULL, &err), &err, "append");
}

/* The ids the table holds at `snapshot` (-1: the head), sorted; *n gets
 * how many. Caller frees. */
static int64_t *ids_at(hl_table *t, int64_t snapshot, size_t *n)
{
    struct hl_at at = {snapshot, NULL};
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan(t, snapshot < 0 ? NULL : &at, &s, &err), &err, "scan");
    int64_t *ids = NULL;
    size_t count = 0, cap = 0;
    for (;;) {
        struct ArrowArray b;
        if (s.get_next(&s, &b) != 0)
            fail_msg("scan: %s", s.get_last_error(&s));
        if (!b.release)
            break;
        const struct ArrowArray *col = b.children[0];
        const int64_t *v = col->buffers[1];
        for (int64_t i = 0; i < b.length; i++) {
            if (count == cap) {
                cap = cap ? 2 * cap : 1024;
                ids = realloc(ids, cap * sizeof *ids);
                assert_non_null(ids);
            }
            ids[count++] = v[col->offset + i];
        }
        b.release(&b);
    }
    s.release(&s);
    if (count > 0)
        qsort(ids, count, sizeof *ids, by_value);
    *n = count;
    return ids;
}

/* Rows the changefeed reports in (from, to] as deleted; each must have
 * k = key. */
static int64_t deleted_in_window(hl_table *t, int64_t from, int64_t to, int64_t key)
{
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan_changes(t, from, to, &s, NULL, &err), &err, "changes");
    int64_t deleted = 0;
    for (;;) {
        struct ArrowArray b;
        if (s.get_next(&s, &b) != 0)
            fail_msg("changes: %s", s.get_last_error(&s));
        if (!b.release)
            break;
        const struct ArrowArray *k = b.children[1], *kind = b.children[b.n_children - 1];
        const int64_t *kv = k->buffers[1];
        const int32_t *off = kind->buffers[1];
        const char *text = kind->buffers[2];
        for (int64_t i = 0; i < b.length; i++) {
            int64_t j = kind->offset + i;
            bool is_delete = off[j + 1] - off[j] == 6 && memcmp(text + off[j], "delete", 6) == 0;
            if (is_delete) {
                assert_int_equal(kv[k->offset + i], key);
                deleted++;
            }
        }
        b.release(&b);
    }
    s.release(&s);
    return deleted;
}

/* ---- deletes through one server, appends through the other ---- */

enum { INITIAL_FILES = 4, ROWS_PER_FILE = 700, APPENDS = 12 };

struct appender {
    const char *catalog;
    int64_t appended; /* rows, once joined */
};

static void *append_loop(void *arg)
{
    struct appender *a = arg;
    struct handles h;
    handles_open(&h, st.srv.base, a->catalog);
    for (int i = 0; i < APPENDS; i++) {
        int64_t first = (int64_t)(INITIAL_FILES + i) * ROWS_PER_FILE;
        append_ids(h.table, first, ROWS_PER_FILE);
        a->appended += ROWS_PER_FILE;
    }
    handles_close(&h);
    return NULL;
}

struct deleter {
    const char *catalog;
    const char *server;
    struct hl_delete_result res[DELETED_KEYS];
    int attempts_over_one;
};

static void *delete_loop(void *arg)
{
    struct deleter *d = arg;
    struct handles h;
    handles_open(&h, d->server, d->catalog);
    for (int key = 0; key < DELETED_KEYS; key++) {
        char pred[64];
        snprintf(pred, sizeof pred, "k = %d", key);
        struct hl_delete_options o;
        hl_delete_options_init(&o);
        o.max_attempts = 50; /* the appender keeps committing */
        struct hl_error err;
        test_check(hl_table_delete(h.table, pred, &o, &d->res[key], &err), &err, "delete");
        d->attempts_over_one += d->res[key].attempts > 1;
    }
    handles_close(&h);
    return NULL;
}

/* Checks each delete against the snapshots around it and the changefeed,
 * and the table's row ids; returns the rows the deletes removed. */
static int64_t check_deletes(hl_table *t, const char *catalog, const struct deleter *d)
{
    int64_t removed = 0;
    for (int key = 0; key < DELETED_KEYS; key++) {
        const struct hl_delete_result *r = &d->res[key];
        assert_true(r->snapshot_id > 0);
        assert_true(r->rows_deleted > 0);
        removed += r->rows_deleted;
        /* No lost delete: the delete's snapshot holds no row of its key,
         * and the snapshot before held exactly the rows it deleted. */
        size_t nafter = 0, nbefore = 0;
        int64_t *after = ids_at(t, r->snapshot_id, &nafter);
        int64_t *before = ids_at(t, r->snapshot_id - 1, &nbefore);
        int64_t had = 0;
        for (size_t i = 0; i < nafter; i++)
            assert_true(after[i] % KEYS != key);
        for (size_t i = 0; i < nbefore; i++)
            had += before[i] % KEYS == key;
        assert_int_equal(had, r->rows_deleted);
        assert_int_equal((int64_t)nbefore - had, (int64_t)nafter);
        free(after);
        free(before);
        assert_int_equal(deleted_in_window(t, r->snapshot_id - 1, r->snapshot_id, key),
                         r->rows_deleted);
    }
    /* Row ids tile [0, next_row_id) without overlap: never reused. */
    int64_t cat = cat_id(catalog);
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file a JOIN hog_data_file b"
                          " ON a.catalog_id = b.catalog_id AND a.table_id = b.table_id"
                          " AND a.data_file_id < b.data_file_id"
                          " AND a.row_id_start < b.row_id_start + b.record_count"
                          " AND b.row_id_start < a.row_id_start + a.record_count"
                          " WHERE a.catalog_id = %lld",
                          (long long)cat),
                     0);
    assert_int_equal(
        sqli("SELECT coalesce(sum(record_count), 0) FROM hog_data_file WHERE catalog_id = %lld",
             (long long)cat),
        sqli("SELECT next_row_id FROM hog_table_stats WHERE catalog_id = %lld", (long long)cat));
    return removed;
}

static void deletes_race_appends(void **state)
{
    (void)state;
    const char *catalog = "dra";
    create_table(catalog);
    struct handles h;
    handles_open(&h, st.srv.base, catalog);
    for (int i = 0; i < INITIAL_FILES; i++)
        append_ids(h.table, (int64_t)i * ROWS_PER_FILE, ROWS_PER_FILE);
    struct appender a = {.catalog = catalog};
    struct deleter d = {.catalog = catalog, .server = st.srv2.base};
    pthread_t ta, td;
    assert_int_equal(pthread_create(&ta, NULL, append_loop, &a), 0);
    assert_int_equal(pthread_create(&td, NULL, delete_loop, &d), 0);
    pthread_join(ta, NULL);
    pthread_join(td, NULL);
    print_message("deletes racing appends: %d of %d deletes retried after a conflict\n",
                  d.attempts_over_one, DELETED_KEYS);

    int64_t removed = check_deletes(h.table, catalog, &d);
    int64_t total = (int64_t)INITIAL_FILES * ROWS_PER_FILE + a.appended;
    size_t n = 0;
    int64_t *ids = ids_at(h.table, -1, &n);
    assert_int_equal((int64_t)n, total - removed);
    /* No row comes back: a row of a deleted key is left only when it was
     * appended after its delete committed. */
    for (size_t i = 0; i < n; i++) {
        int64_t key = ids[i] % KEYS;
        if (key >= DELETED_KEYS)
            continue;
        size_t nat = 0;
        int64_t *at = ids_at(h.table, d.res[key].snapshot_id, &nat);
        if (nat > 0)
            assert_null(bsearch(&ids[i], at, nat, sizeof *at, by_value));
        free(at);
    }
    free(ids);
    handles_close(&h);
}

/* ---- deletes racing compactions ---- */

enum { SMALL_FILES = 12, SMALL_ROWS = 300 };

struct compactor {
    const char *catalog;
    volatile int stop;
    int passes, groups;
};

/* One compaction pass through the second server; the groups compacted. */
static int compact_once(const char *catalog)
{
    char url[512];
    snprintf(url, sizeof url, "%s/v1/catalogs/%s/maintenance/compact?batch=4", st.srv2.base,
             catalog);
    struct http_result r;
    http_call(&r, "POST", url, NULL, NULL, 0, NULL);
    if (r.status != 200)
        fail_msg("compact: %ld %s", r.status, r.body);
    json_t *res = jparse(r.body);
    int groups = (int)jint(res, "groups_compacted");
    json_decref(res);
    http_result_free(&r);
    return groups;
}

static void *compact_loop(void *arg)
{
    struct compactor *c = arg;
    while (!c->stop) {
        c->groups += compact_once(c->catalog);
        c->passes++;
    }
    return NULL;
}

static void deletes_race_compaction(void **state)
{
    (void)state;
    const char *catalog = "drc";
    create_table(catalog);
    struct handles h;
    handles_open(&h, st.srv.base, catalog);
    for (int i = 0; i < SMALL_FILES; i++)
        append_ids(h.table, (int64_t)i * SMALL_ROWS, SMALL_ROWS);
    struct compactor c = {.catalog = catalog};
    struct deleter d = {.catalog = catalog, .server = st.srv.base};
    pthread_t tc, td;
    assert_int_equal(pthread_create(&tc, NULL, compact_loop, &c), 0);
    assert_int_equal(pthread_create(&td, NULL, delete_loop, &d), 0);
    pthread_join(td, NULL);
    c.stop = 1;
    pthread_join(tc, NULL);
    print_message("deletes racing compaction: %d passes compacted %d groups; %d of %d deletes "
                  "retried\n",
                  c.passes, c.groups, d.attempts_over_one, DELETED_KEYS);
    assert_true(c.passes > 0);

    int64_t removed = 0;
    for (int key = 0; key < DELETED_KEYS; key++) {
        assert_true(d.res[key].snapshot_id > 0);
        removed += d.res[key].rows_deleted;
    }
    /* Exactly the rows of the keys no delete selected, each once. */
    size_t n = 0;
    int64_t *ids = ids_at(h.table, -1, &n);
    int64_t want = 0;
    for (int64_t id = 0; id < (int64_t)SMALL_FILES * SMALL_ROWS; id++)
        if (id % KEYS >= DELETED_KEYS) {
            assert_true((size_t)want < n);
            assert_int_equal(ids[want], id);
            want++;
        }
    assert_int_equal((int64_t)n, want);
    assert_int_equal(removed, (int64_t)SMALL_FILES * SMALL_ROWS - want);
    /* A pass after the deletes rewrites what they left; the rows stay. */
    compact_once(catalog);
    size_t n2 = 0;
    int64_t *ids2 = ids_at(h.table, -1, &n2);
    assert_int_equal((int64_t)n2, (int64_t)n);
    assert_memory_equal(ids2, ids, n * sizeof *ids);
    free(ids2);
    free(ids);
    handles_close(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deletes_race_appends),
        cmocka_unit_test(deletes_race_compaction),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
