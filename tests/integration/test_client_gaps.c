/* What libhoglake gained for the Python client (issue 20), against a real
 * hoglaked, PostgreSQL and a local warehouse:
 *   - an unguarded append writes by name into a table dropped and
 *     recreated under the handle, with a cold writer cache and a warm one,
 *     while a guarded append through the same handle is refused as
 *     recreated;
 *   - the typed settings and maintenance calls (get and change the
 *     settings, hydrate, compact, expire, cleanup) return the server's
 *     counters, which agree with what the catalog and storage then hold. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_harness.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "util/buf.h"

static struct client_stack stack;

static int setup(void **state)
{
    (void)state;
    client_stack_up(&stack, "client_gaps");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    client_stack_down(&stack);
    return 0;
}

static const char *const columns = "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                                   "{\"name\":\"name\",\"type\":\"string\"}]";

struct fixture {
    hl_catalog *catalog;
    hl_namespace *ns;
    char data_dir[600]; /* the catalog's data path, as a local directory */
};

static void fixture_up(struct fixture *f, const char *name)
{
    memset(f, 0, sizeof *f);
    char data_path[512];
    client_stack_data_path(&stack, stack.file_client, name, data_path, sizeof data_path);
    snprintf(f->data_dir, sizeof f->data_dir, "%s", data_path + strlen("file://"));
    struct hl_error err;
    test_check(hl_catalog_create(stack.file_client, name, data_path, &f->catalog, &err), &err,
               "catalog");
    test_check(hl_namespace_create(f->catalog, "ns", &f->ns, &err), &err, "namespace");
}

static void fixture_free(struct fixture *f)
{
    hl_namespace_free(f->ns);
    hl_catalog_free(f->catalog);
}

static hl_table *table_new(struct fixture *f, const char *name)
{
    hl_table *t;
    struct hl_error err;
    test_check(hl_table_create(f->ns, name, columns, NULL, &t, &err), &err, "table create");
    hl_table_free(t); /* a handle that reads the head */
    test_check(hl_table_open(f->ns, name, &t, &err), &err, "table open");
    return t;
}

/* Rows [from, to) (id i, name "n<i>") as a stream. */
static void rows(int from, int to, struct ArrowArrayStream *s)
{
    struct buf jsonl = BUF_INIT;
    for (int i = from; i < to; i++)
        assert_int_equal(buf_printf(&jsonl, "{\"id\":%d,\"name\":\"n%d\"}\n", i, i), 0);
    test_rows_stream("id:long!, name:string", jsonl.data, s);
    buf_free(&jsonl);
}

static hl_status append(hl_table *t, int from, int to, const struct hl_append_options *o,
                        struct hl_error *err)
{
    struct ArrowArrayStream s;
    rows(from, to, &s);
    return hl_table_append(t, &s, o, NULL, err);
}

/* How many rows the table holds at its head (t has no DDL snapshot), and the sum of their ids. */
static int64_t count_rows(hl_table *t, int64_t *id_sum)
{
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan(t, NULL, &s, &err), &err, "scan");
    int64_t n = 0;
    *id_sum = 0;
    for (;;) {
        struct ArrowArray batch;
        assert_int_equal(s.get_next(&s, &batch), 0);
        if (!batch.release)
            break;
        const int64_t *ids = batch.children[0]->buffers[1];
        for (int64_t i = 0; i < batch.length; i++)
            *id_sum += ids[batch.children[0]->offset + i];
        n += batch.length;
        batch.release(&batch);
    }
    s.release(&s);
    return n;
}

/* ---- unguarded appends across a drop and recreate ---- */

static void drop_and_recreate(struct fixture *f, const char *name)
{
    hl_table *other;
    struct hl_error err;
    test_check(hl_table_open(f->ns, name, &other, &err), &err, "open for drop");
    test_check(hl_table_drop(other, NULL, &err), &err, "drop");
    hl_table_free(other);
    hl_table_free(table_new(f, name));
}

static void check_recreated_table(struct fixture *f, const char *name, const char *old_uuid,
                                  int64_t want_rows, int64_t want_sum)
{
    hl_table *fresh;
    struct hl_error err;
    test_check(hl_table_open(f->ns, name, &fresh, &err), &err, "open the new table");
    assert_string_not_equal(hl_table_uuid(fresh), old_uuid);
    int64_t sum;
    assert_int_equal(count_rows(fresh, &sum), want_rows);
    assert_int_equal(sum, want_sum);
    hl_table_free(fresh);
}

static void test_unguarded_after_recreate(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "unguarded");
    struct hl_error err;
    hl_table *t = table_new(&f, "events");
    test_check(append(t, 0, 3, NULL, &err), &err, "first append");
    char old_uuid[64];
    snprintf(old_uuid, sizeof old_uuid, "%s", hl_table_uuid(t));

    struct hl_append_options unguarded;
    hl_append_options_init(&unguarded);
    unguarded.unguarded = true;

    /* Cold cache: the append reads the table by name and writes into the
     * new incarnation. */
    drop_and_recreate(&f, "events");
    hl_table_invalidate(t);
    test_check(append(t, 10, 12, &unguarded, &err), &err, "unguarded append, cold cache");
    check_recreated_table(&f, "events", old_uuid, 2, 21);

    /* The guarded append through the same handle is refused, warm (the
     * unguarded read adopted the new incarnation) and cold. */
    assert_int_equal(append(t, 20, 21, NULL, &err), HL_ERR_TABLE_RECREATED);
    assert_true(err.re_prepare);
    hl_table_invalidate(t);
    assert_int_equal(append(t, 20, 21, NULL, &err), HL_ERR_TABLE_RECREATED);
    assert_non_null(strstr(err.message, old_uuid));
    check_recreated_table(&f, "events", old_uuid, 2, 21);

    /* Warm cache over a second recreate: still by name. */
    test_check(append(t, 30, 31, &unguarded, &err), &err, "warm the cache");
    drop_and_recreate(&f, "events");
    hl_status st = append(t, 40, 42, &unguarded, &err);
    if (st != HL_OK) {
        /* A cache of the dropped incarnation may be refused once with
         * re_prepare; the append run again reads the table afresh. */
        assert_true(err.re_prepare);
        test_check(append(t, 40, 42, &unguarded, &err), &err, "unguarded append after refusal");
    }
    check_recreated_table(&f, "events", old_uuid, 2, 81);

    /* An explicit expected_table_uuid is checked too. */
    struct hl_append_options pinned;
    hl_append_options_init(&pinned);
    pinned.expected_table_uuid = old_uuid;
    hl_table_invalidate(t);
    assert_int_equal(append(t, 50, 51, &pinned, &err), HL_ERR_TABLE_RECREATED);
    hl_table_free(t);
    fixture_free(&f);
}

/* ---- typed settings ---- */

static void test_settings(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "settings");
    struct hl_error err;
    struct hl_catalog_settings s;
    test_check(hl_catalog_get_settings(f.catalog, &s, &err), &err, "get settings");
    int64_t floor = s.earliest_snapshot_id;
    assert_true(floor >= 0);

    struct hl_catalog_settings_change c;
    hl_catalog_settings_change_init(&c);
    c.set_retention = true;
    c.retention_seconds = 3600;
    c.consumer_floor = 0;
    test_check(hl_catalog_change_settings(f.catalog, &c, &s, &err), &err, "change settings");
    assert_int_equal(s.retention_seconds, 3600);
    assert_false(s.consumer_floor);
    assert_int_equal(s.earliest_snapshot_id, floor);

    /* Only the consumer floor: the retention stays. */
    hl_catalog_settings_change_init(&c);
    c.consumer_floor = 1;
    test_check(hl_catalog_change_settings(f.catalog, &c, NULL, &err), &err, "floor only");
    test_check(hl_catalog_get_settings(f.catalog, &s, &err), &err, "get again");
    assert_int_equal(s.retention_seconds, 3600);
    assert_true(s.consumer_floor);

    /* Disabling the retention reads back as -1; the JSON call agrees. */
    hl_catalog_settings_change_init(&c);
    c.set_retention = true;
    c.retention_seconds = 0;
    test_check(hl_catalog_change_settings(f.catalog, &c, &s, &err), &err, "disable");
    assert_int_equal(s.retention_seconds, -1);
    char *json = NULL;
    test_check(hl_catalog_options(f.catalog, &json, &err), &err, "options json");
    assert_null(strstr(json, "snapshot_retention_seconds\":3"));
    free(json);

    /* Refusals: the server's range, the library's argument check. */
    c.retention_seconds = 3153600001;
    assert_int_equal(hl_catalog_change_settings(f.catalog, &c, &s, &err), HL_ERR_VALIDATION);
    assert_non_null(strstr(err.message, "3153600001"));
    assert_int_equal(s.retention_seconds, 0); /* zeroed on failure */
    hl_catalog_settings_change_init(&c);
    c.consumer_floor = 2;
    assert_int_equal(hl_catalog_change_settings(f.catalog, &c, NULL, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "consumer_floor"));
    fixture_free(&f);
}

/* ---- typed maintenance passes ---- */

static int64_t head_snapshot(hl_catalog *c)
{
    struct hl_snapshot_iter *it;
    struct hl_snapshot snap = {0}; /* the iterator clears it first */
    bool done;
    struct hl_error err;
    test_check(hl_snapshot_iter_new(c, 0, INT64_MAX, 1, &it, &err), &err, "snapshots");
    test_check(hl_snapshot_iter_next(it, &snap, &done, &err), &err, "head snapshot");
    assert_false(done);
    int64_t id = snap.snapshot_id;
    hl_snapshot_iter_free(it);
    return id;
}

static void test_maintenance(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "maint");
    struct hl_error err;
    hl_table *t = table_new(&f, "events");

    /* Five small appends with deferred statistics: five pending files. */
    struct hl_append_options deferred;
    hl_append_options_init(&deferred);
    deferred.deferred_stats = true;
    for (int i = 0; i < 5; i++)
        test_check(append(t, i * 10, i * 10 + 10, &deferred, &err), &err, "append");

    struct hl_maintenance_options o;
    hl_maintenance_options_init(&o);
    o.batch = 2;
    struct hl_hydrate_result h;
    test_check(hl_catalog_hydrate(f.catalog, &o, &h, &err), &err, "hydrate 2");
    assert_int_equal(h.hydrated, 2);
    assert_int_equal(h.failed, 0);
    assert_int_equal(h.transient_errors, 0);
    assert_int_equal(h.still_pending, 3);
    test_check(hl_catalog_hydrate(f.catalog, NULL, &h, &err), &err, "hydrate the rest");
    assert_int_equal(h.hydrated, 3);
    assert_int_equal(h.still_pending, 0);

    struct hl_compact_result k;
    test_check(hl_catalog_compact(f.catalog, NULL, &k, &err), &err, "compact");
    assert_int_equal(k.groups_compacted, 1);
    assert_int_equal(k.files_in, 5);
    assert_int_equal(k.files_out, 1);
    assert_true(k.bytes_in > 0 && k.bytes_out > 0);
    assert_int_equal(k.failed_groups + k.skipped_conflicts + k.invalid_data, 0);
    assert_int_equal(k.candidates_files, 5);
    int64_t sum;
    assert_int_equal(count_rows(t, &sum), 50);
    assert_int_equal(sum, 49 * 50 / 2);

    /* Expiry with the retention at one second: the floor goes to the head
     * and the five ended inputs are queued for removal. */
    struct hl_catalog_settings_change c;
    hl_catalog_settings_change_init(&c);
    c.set_retention = true;
    c.retention_seconds = 1;
    test_check(hl_catalog_change_settings(f.catalog, &c, NULL, &err), &err, "retention 1 s");
    sleep(2);
    int64_t head = head_snapshot(f.catalog);
    struct hl_expire_result e;
    test_check(hl_catalog_expire(f.catalog, NULL, &e, &err), &err, "expire");
    assert_int_equal(e.new_earliest_snapshot_id, head);
    assert_true(e.snapshots_expired >= 7); /* namespace, table, five appends */
    assert_int_equal(e.data_files_queued, 5);
    assert_int_equal(e.delete_files_queued, 0);
    assert_false(e.floored_by_consumer);
    struct hl_catalog_settings s;
    test_check(hl_catalog_get_settings(f.catalog, &s, &err), &err, "settings");
    assert_int_equal(s.earliest_snapshot_id, head);

    /* Cleanup deletes exactly the five queued objects. */
    char table_dir[700];
    snprintf(table_dir, sizeof table_dir, "%s/data", f.data_dir);
    int64_t before = test_count_files(table_dir, ".parquet");
    struct hl_cleanup_result r;
    test_check(hl_catalog_cleanup(f.catalog, NULL, &r, &err), &err, "cleanup");
    assert_int_equal(r.removed, 5);
    assert_int_equal(r.missing + r.still_referenced + r.refused + r.failed, 0);
    assert_int_equal(test_count_files(table_dir, ".parquet"), before - 5);
    assert_int_equal(count_rows(t, &sum), 50);
    test_check(hl_catalog_cleanup(f.catalog, NULL, &r, &err), &err, "cleanup again");
    assert_int_equal(r.removed, 0);

    /* Refusals: the library's and the server's, with *out zeroed. */
    o.batch = -1;
    e.snapshots_expired = 99;
    assert_int_equal(hl_catalog_expire(f.catalog, &o, &e, &err), HL_ERR_INVALID_ARGUMENT);
    assert_int_equal(e.snapshots_expired, 0);
    o.batch = 2000;
    assert_int_equal(hl_catalog_compact(f.catalog, &o, &k, &err), HL_ERR_VALIDATION);
    assert_int_equal(hl_catalog_compact(f.catalog, &o, NULL, &err), HL_ERR_INVALID_ARGUMENT);
    hl_table_free(t);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unguarded_after_recreate),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_maintenance),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
