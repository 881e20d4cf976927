/* What libhoglake gained for the Python client (issue 20), against a real
 * hoglaked, PostgreSQL and a local warehouse:
 *   - an unguarded append writes by name into a table dropped and
 *     recreated under the handle, with a cold writer cache and a warm one,
 *     while a guarded append through the same handle is refused as
 *     recreated;
 *   - the typed settings and maintenance calls (get and change the
 *     settings, hydrate, compact, expire, cleanup) return the server's
 *     counters, which agree with what the catalog and storage then hold;
 *   - typed file listings (hl_table_files_list) follow appends,
 *     hydration, compaction, time travel and partition values with nulls,
 *     and the typed Table object (hl_table_describe) its columns, specs,
 *     sort order and totals, at the head and in the past;
 *   - a table created from an Arrow schema has every catalog type an Arrow
 *     type maps to (the 26 of the 27 the writer takes as plain Arrow, plus
 *     variant by its extension name), nested and with the fields'
 *     nullability; a batch of that schema appended reads back equal; an
 *     Arrow type with no catalog type is refused naming field and format. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_harness.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "textio/textio_render.h"
#include "util/arrow.h"
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
    struct hl_snapshot snap = {0}; /* each call clears what it held */
    bool done;
    struct hl_error err;
    test_check(hl_snapshot_iter_new(c, 0, INT64_MAX, 1, &it, &err), &err, "snapshots");
    test_check(hl_snapshot_iter_next(it, &snap, &done, &err), &err, "head snapshot");
    assert_false(done);
    int64_t id = snap.snapshot_id;
    hl_snapshot_clear(&snap);
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
    deferred.author = "loader";
    for (int i = 0; i < 5; i++) {
        deferred.message = i == 4 ? "the last one" : NULL;
        test_check(append(t, i * 10, i * 10 + 10, &deferred, &err), &err, "append");
    }
    /* The snapshot log, typed: the last append's author and message. */
    struct hl_snapshot_iter *it;
    struct hl_snapshot snap = {0};
    bool done;
    test_check(hl_snapshot_iter_new(f.catalog, 0, INT64_MAX, 2, &it, &err), &err, "log");
    test_check(hl_snapshot_iter_next(it, &snap, &done, &err), &err, "newest");
    assert_string_equal(snap.author, "loader");
    assert_string_equal(snap.message, "the last one");
    test_check(hl_snapshot_iter_next(it, &snap, &done, &err), &err, "the one before");
    assert_string_equal(snap.author, "loader");
    assert_null(snap.message);
    hl_snapshot_clear(&snap);
    hl_snapshot_iter_free(it);

    struct hl_data_file *files;
    size_t nfiles;
    test_check(hl_table_files_list(t, NULL, &files, &nfiles, &err), &err, "files");
    assert_int_equal(nfiles, 5);
    for (size_t i = 0; i < nfiles; i++) {
        assert_int_equal(files[i].stats_state, HL_STATS_PENDING);
        assert_int_equal(files[i].record_count, 10);
        assert_true(files[i].file_size_bytes > 0);
        assert_false(files[i].explicit_row_ids);
        assert_int_equal(files[i].spec_id, -1);
        assert_int_equal(files[i].npartition_values, 0);
        assert_non_null(strstr(files[i].path, f.data_dir));
        assert_true(i == 0 || files[i].begin_snapshot > files[i - 1].begin_snapshot);
    }
    int64_t last_append = files[4].begin_snapshot;
    hl_data_files_free(files, nfiles);

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
    /* The typed listing sees the compaction, and the files before it. */
    test_check(hl_table_files_list(t, NULL, &files, &nfiles, &err), &err, "files after");
    assert_int_equal(nfiles, 1);
    assert_int_equal(files[0].record_count, 50);
    assert_true(files[0].explicit_row_ids);
    assert_int_equal(files[0].stats_state, HL_STATS_PROVIDED);
    assert_int_equal(files[0].file_size_bytes, k.bytes_out);
    hl_data_files_free(files, nfiles);
    struct hl_at before_compaction = {last_append, NULL};
    test_check(hl_table_files_list(t, &before_compaction, &files, &nfiles, &err), &err,
               "files before");
    assert_int_equal(nfiles, 5);
    for (size_t i = 0; i < nfiles; i++)
        assert_int_equal(files[i].stats_state, HL_STATS_PROVIDED);
    hl_data_files_free(files, nfiles);

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

/* ---- typed file listings ---- */

static void test_files_list_partitioned(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "files_list");
    struct hl_error err;
    hl_table *t = table_new(&f, "events");
    test_check(hl_table_alter(t,
                              "[{\"op\":\"set_partition_spec\",\"fields\":[{\"source_field_"
                              "id\":2,\"transform\":\"identity\"}]},"
                              "{\"op\":\"set_sort_order\",\"sort_fields\":[{\"source_field_"
                              "id\":1,\"direction\":\"desc\"}]}]",
                              NULL, &err),
               &err, "partition by name, sort by id");
    struct ArrowArrayStream s;
    test_rows_stream("id:long!, name:string",
                     "{\"id\":1,\"name\":\"a\"}\n"
                     "{\"id\":2,\"name\":null}\n{\"id\":3,\"name\":\"a\"}\n",
                     &s);
    test_check(hl_table_append(t, &s, NULL, NULL, &err), &err, "append");
    hl_table_free(t);
    test_check(hl_table_open(f.ns, "events", &t, &err), &err, "open");
    struct hl_data_file *files;
    size_t nfiles;
    test_check(hl_table_files_list(t, NULL, &files, &nfiles, &err), &err, "files");
    assert_int_equal(nfiles, 2);
    int seen_a = 0, seen_null = 0;
    for (size_t i = 0; i < nfiles; i++) {
        assert_true(files[i].spec_id >= 1);
        assert_int_equal(files[i].npartition_values, 1);
        assert_true(files[i].footer_size > 0);
        if (files[i].partition_values[0]) {
            assert_string_equal(files[i].partition_values[0], "a");
            assert_int_equal(files[i].record_count, 2);
            seen_a++;
        } else {
            assert_int_equal(files[i].record_count, 1);
            seen_null++;
        }
    }
    assert_int_equal(seen_a + seen_null * 10, 11);
    hl_data_files_free(files, nfiles);

    /* The Table object, typed: identity, columns, specs and totals. */
    struct hl_table_details d;
    test_check(hl_table_describe(t, NULL, &d, &err), &err, "describe");
    assert_string_equal(d.name, "events");
    assert_string_equal(d.namespace_name, "ns");
    assert_string_equal(d.table_uuid, hl_table_uuid(t));
    assert_null(d.comment);
    assert_string_equal(d.properties, "{}");
    assert_int_equal(d.ncolumns, 2);
    assert_int_equal(d.columns[0].field_id, 1);
    assert_string_equal(d.columns[0].name, "id");
    assert_string_equal(d.columns[0].type, "long");
    assert_false(d.columns[0].nullable);
    assert_true(d.columns[1].nullable);
    assert_int_equal(d.columns[1].nchildren, 0);
    assert_true(d.spec_id >= 1);
    assert_int_equal(d.npartition_fields, 1);
    assert_int_equal(d.partition_fields[0].source_field_id, 2);
    assert_string_equal(d.partition_fields[0].transform, "identity");
    assert_int_equal(d.nsort_fields, 1);
    assert_true(d.sort_fields[0].descending);
    assert_false(d.sort_fields[0].nulls_first); /* Iceberg's default for desc */
    assert_int_equal(d.record_count, 3);
    assert_int_equal(d.file_count, 2);
    assert_int_equal(d.totals_snapshot_id, d.read_snapshot_id);
    int64_t appended = d.read_snapshot_id;
    hl_table_details_clear(&d);
    /* Under time travel: the totals of then, with no totals snapshot;
     * before the alter, no specs. */
    struct hl_at before_alter = {appended - 2, NULL};
    test_check(hl_table_describe(t, &before_alter, &d, &err), &err, "describe at");
    assert_int_equal(d.read_snapshot_id, appended - 2);
    assert_int_equal(d.record_count, 0);
    assert_int_equal(d.totals_snapshot_id, -1);
    assert_int_equal(d.spec_id, -1);
    assert_int_equal(d.sort_id, -1);
    assert_int_equal(d.npartition_fields + d.nsort_fields, 0);
    hl_table_details_clear(&d);
    /* An empty table lists nothing; a bad travel argument is refused. */
    hl_table *empty = table_new(&f, "empty");
    test_check(hl_table_files_list(empty, NULL, &files, &nfiles, &err), &err, "empty");
    assert_null(files);
    assert_int_equal(nfiles, 0);
    struct hl_at both = {1, "2024-01-01T00:00:00Z"};
    assert_int_equal(hl_table_files_list(empty, &both, &files, &nfiles, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_int_equal(hl_table_describe(empty, &both, &d, &err), HL_ERR_INVALID_ARGUMENT);
    assert_null(d.name);
    hl_table_free(empty);
    hl_table_free(t);
    fixture_free(&f);
}

/* ---- tables from Arrow schemas ---- */

/* Every catalog type, nested ones and required fields among them. */
static const char *const all_spec =
    "b:boolean!, i8:int8, i16:int16, i32:int!, i64:long, u8:uint8, u16:uint16, u32:uint32, "
    "u64:uint64, f32:float, f64:double, dec:decimal(10,2)!, d:date, t:time, ts_s:timestamp_s, "
    "ts_ms:timestamp_ms, ts:timestamp, ts_ns:timestamp_ns, tstz:timestamptz, s:string, "
    "j:json, id:uuid, bin:binary, tags:list<string>, "
    "pt:struct<x:double!,y:list<long!>>, attrs:map<string,struct<n:long,u:uuid>>";

/* The type each column of the table made from all_spec's Arrow schema
 * must have, in order ("j" is marked arrow.json by the test). */
static const char *const all_types[][2] = {
    {"b", "boolean"},        {"i8", "int8"},
    {"i16", "int16"},        {"i32", "int"},
    {"i64", "long"},         {"u8", "uint8"},
    {"u16", "uint16"},       {"u32", "uint32"},
    {"u64", "uint64"},       {"f32", "float"},
    {"f64", "double"},       {"dec", "decimal"},
    {"d", "date"},           {"t", "time"},
    {"ts_s", "timestamp_s"}, {"ts_ms", "timestamp_ms"},
    {"ts", "timestamp"},     {"ts_ns", "timestamp_ns"},
    {"tstz", "timestamptz"}, {"s", "string"},
    {"j", "json"},           {"id", "uuid"},
    {"bin", "binary"},       {"tags", "list"},
    {"pt", "struct"},        {"attrs", "map"},
};

static const char *const all_rows =
    "{\"b\":true,\"i8\":-128,\"i16\":-32768,\"i32\":-2147483648,"
    "\"i64\":-9223372036854775808,\"u8\":255,\"u16\":65535,\"u32\":4294967295,"
    "\"u64\":18446744073709551615,\"f32\":1.5,\"f64\":-0.25,\"dec\":\"-123.45\","
    "\"d\":\"1969-12-31\",\"t\":\"23:59:59.000001\",\"ts_s\":\"2024-01-02T03:04:05\","
    "\"ts_ms\":\"2024-01-02T03:04:05.123\",\"ts\":\"2024-01-02T03:04:05.123456\","
    "\"ts_ns\":\"2024-01-02T03:04:05.123456789\",\"tstz\":\"2024-01-02T03:04:05.123456Z\","
    "\"s\":\"h\u00e9llo\",\"j\":\"{\\\"a\\\":1}\","
    "\"id\":\"0123abcd-0000-4000-8000-00000000000f\",\"bin\":\"aGVsbG8=\","
    "\"tags\":[\"a\",null],\"pt\":{\"x\":1.0,\"y\":[1,2]},"
    "\"attrs\":{\"p\":{\"n\":7,\"u\":null}}}\n"
    "{\"b\":false,\"i8\":null,\"i16\":null,\"i32\":0,\"i64\":null,\"u8\":null,"
    "\"u16\":null,\"u32\":null,\"u64\":null,\"f32\":null,\"f64\":null,\"dec\":\"0.00\","
    "\"d\":null,\"t\":null,\"ts_s\":null,\"ts_ms\":null,\"ts\":null,\"ts_ns\":null,"
    "\"tstz\":null,\"s\":null,\"j\":null,\"id\":null,\"bin\":null,"
    "\"tags\":null,\"pt\":null,\"attrs\":null}\n";

/* Marks the top-level field `name` of schema with an extension name. */
static void mark_extension(struct ArrowSchema *schema, const char *name, const char *extension)
{
    for (int64_t i = 0; i < schema->n_children; i++)
        if (strcmp(schema->children[i]->name, name) == 0) {
            const char *key = "ARROW:extension:name";
            assert_int_equal(arrow_schema_set_metadata(schema->children[i], &key, &extension, 1),
                             0);
            return;
        }
    fail_msg("no field %s", name);
}

/* Every row of the stream (released) as JSON Lines. */
static char *render_all(struct ArrowArrayStream *s)
{
    struct ArrowSchema schema;
    assert_int_equal(s->get_schema(s, &schema), 0);
    struct textio_render *r;
    struct error e;
    if (textio_render_new(&schema, TEXTIO_JSONL, &r, &e) != 0)
        fail_msg("render: %s", e.msg);
    struct buf out = BUF_INIT;
    for (;;) {
        struct ArrowArray batch;
        assert_int_equal(s->get_next(s, &batch), 0);
        if (!batch.release)
            break;
        for (int64_t i = 0; i < batch.length; i++)
            if (textio_render_row(r, &batch, i, &out, &e) != 0)
                fail_msg("render row: %s", e.msg);
        batch.release(&batch);
    }
    textio_render_free(r);
    schema.release(&schema);
    s->release(s);
    assert_int_equal(buf_putc(&out, '\0'), 0);
    return buf_take(&out);
}

static void test_create_from_arrow(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "arrow_create");
    struct hl_error err;
    struct ArrowArrayStream in;
    test_rows_stream(all_spec, all_rows, &in);
    struct ArrowSchema schema;
    assert_int_equal(in.get_schema(&in, &schema), 0);
    /* A json column's text is plain utf8 in the stream: pa.json_() marks it. */
    mark_extension(&schema, "j", "arrow.json");
    struct hl_table_create_options o;
    hl_table_create_options_init(&o);
    o.properties_json = "{\"owner\":\"arrow\"}";
    hl_table *t;
    test_check(hl_namespace_create_table_arrow(f.ns, "all", &schema, &o, &t, &err), &err,
               "create from arrow");
    schema.release(&schema);
    hl_table_free(t);
    test_check(hl_table_open(f.ns, "all", &t, &err), &err, "open");

    /* The columns: every type, nullability and nesting as the fields say. */
    char *info = NULL;
    test_check(hl_table_info(t, NULL, &info, &err), &err, "info");
    json_t *doc = json_loads(info, 0, NULL);
    assert_non_null(doc);
    json_t *cols = json_object_get(doc, "columns");
    size_t ntypes = sizeof all_types / sizeof all_types[0];
    assert_int_equal(json_array_size(cols), ntypes);
    for (size_t i = 0; i < ntypes; i++) {
        json_t *c = json_array_get(cols, i);
        assert_string_equal(json_string_value(json_object_get(c, "name")), all_types[i][0]);
        assert_string_equal(json_string_value(json_object_get(c, "type")), all_types[i][1]);
        bool required = strstr(all_spec, all_types[i][0]) &&
                        (strcmp(all_types[i][0], "b") == 0 || strcmp(all_types[i][0], "i32") == 0 ||
                         strcmp(all_types[i][0], "dec") == 0);
        assert_int_equal(json_is_true(json_object_get(c, "nullable")), !required);
    }
    json_t *dec = json_object_get(json_array_get(cols, 11), "type_params");
    assert_int_equal(json_integer_value(json_object_get(dec, "precision")), 10);
    assert_int_equal(json_integer_value(json_object_get(dec, "scale")), 2);
    /* pt: struct<x: double not null, y: list<long not null>> */
    json_t *pt = json_object_get(json_array_get(cols, 24), "children");
    json_t *x = json_array_get(pt, 0), *y = json_array_get(pt, 1);
    assert_string_equal(json_string_value(json_object_get(x, "type")), "double");
    assert_false(json_is_true(json_object_get(x, "nullable")));
    json_t *y_el = json_array_get(json_object_get(y, "children"), 0);
    assert_string_equal(json_string_value(json_object_get(y_el, "name")), "element");
    assert_string_equal(json_string_value(json_object_get(y_el, "type")), "long");
    assert_false(json_is_true(json_object_get(y_el, "nullable")));
    /* attrs: map<string, struct<n: long, u: uuid>>, the key required. */
    json_t *kv = json_object_get(json_array_get(cols, 25), "children");
    assert_string_equal(json_string_value(json_object_get(json_array_get(kv, 0), "name")), "key");
    assert_false(json_is_true(json_object_get(json_array_get(kv, 0), "nullable")));
    json_t *value = json_array_get(kv, 1);
    assert_string_equal(json_string_value(json_object_get(value, "type")), "struct");
    json_t *u = json_array_get(json_object_get(value, "children"), 1);
    assert_string_equal(json_string_value(json_object_get(u, "type")), "uuid");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(doc, "properties"), "owner")), "arrow");
    json_decref(doc);
    free(info);
    /* The same through the typed Table object. */
    struct hl_table_details d;
    test_check(hl_table_describe(t, NULL, &d, &err), &err, "describe");
    assert_int_equal(d.ncolumns, ntypes);
    assert_int_equal(d.columns[11].precision, 10);
    assert_int_equal(d.columns[11].scale, 2);
    assert_string_equal(d.columns[11].type_params, "{\"precision\":10,\"scale\":2}");
    const struct hl_column *attrs = &d.columns[25];
    assert_int_equal(attrs->nchildren, 2);
    assert_string_equal(attrs->children[1].children[1].type, "uuid");
    assert_int_equal(attrs->children[1].children[1].field_id,
                     attrs->children[1].children[0].field_id + 1);
    hl_table_details_clear(&d);

    /* Round trip: the batch appended reads back equal, value for value. */
    test_check(hl_table_append(t, &in, NULL, NULL, &err), &err, "append");
    struct ArrowArrayStream src, back;
    test_rows_stream(all_spec, all_rows, &src);
    test_check(hl_table_scan(t, NULL, &back, &err), &err, "scan");
    char *want = render_all(&src), *got = render_all(&back);
    assert_non_null(strstr(want, "18446744073709551615"));
    assert_non_null(strstr(want, "\"ts_ns\":\"2024-01-02T03:04:05.123456789\""));
    assert_string_equal(got, want);
    free(want);
    free(got);
    hl_table_free(t);
    fixture_free(&f);
}

/* A struct schema of one field: format, name and flags given. */
static void one_field(struct ArrowSchema *s, const char *format, int64_t n_children)
{
    assert_int_equal(arrow_schema_init(s, "+s", NULL, 0, 1), 0);
    assert_int_equal(
        arrow_schema_init(s->children[0], format, "f", ARROW_FLAG_NULLABLE, n_children), 0);
}

/* The wider Arrow input and the types with no catalog type. */
static void test_create_from_arrow_edges(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, "arrow_edges");
    struct hl_error err;
    hl_table *t;

    /* Large types, any time zone, Arrow's own child names. */
    struct ArrowSchema s;
    assert_int_equal(arrow_schema_init(&s, "+s", NULL, 0, 6), 0);
    assert_int_equal(arrow_schema_init(s.children[0], "U", "big_text", 0, 0), 0);
    assert_int_equal(arrow_schema_init(s.children[1], "Z", "big_bin", ARROW_FLAG_NULLABLE, 0), 0);
    assert_int_equal(arrow_schema_init(s.children[2], "tsu:America/New_York", "at", 0, 0), 0);
    assert_int_equal(arrow_schema_init(s.children[3], "+L", "items", ARROW_FLAG_NULLABLE, 1), 0);
    assert_int_equal(arrow_schema_init(s.children[3]->children[0], "i", "item", 0, 0), 0);
    struct ArrowSchema *m = s.children[4];
    assert_int_equal(arrow_schema_init(m, "+m", "m", ARROW_FLAG_NULLABLE, 1), 0);
    assert_int_equal(arrow_schema_init(m->children[0], "+s", "entries", 0, 2), 0);
    assert_int_equal(arrow_schema_init(m->children[0]->children[0], "u", "k", 0, 0), 0);
    assert_int_equal(
        arrow_schema_init(m->children[0]->children[1], "g", "v", ARROW_FLAG_NULLABLE, 0), 0);
    struct ArrowSchema *v = s.children[5];
    assert_int_equal(arrow_schema_init(v, "+s", "v", ARROW_FLAG_NULLABLE, 2), 0);
    assert_int_equal(arrow_schema_init(v->children[0], "z", "metadata", 0, 0), 0);
    assert_int_equal(arrow_schema_init(v->children[1], "z", "value", 0, 0), 0);
    const char *ext_key = "ARROW:extension:name", *ext = "arrow.parquet.variant";
    assert_int_equal(arrow_schema_set_metadata(v, &ext_key, &ext, 1), 0);
    test_check(hl_namespace_create_table_arrow(f.ns, "wide", &s, NULL, &t, &err), &err, "wide");
    s.release(&s);
    char *info = NULL;
    test_check(hl_table_info(t, NULL, &info, &err), &err, "info");
    json_t *doc = json_loads(info, 0, NULL);
    json_t *cols = json_object_get(doc, "columns");
    static const char *const want[] = {"string", "binary", "timestamptz", "list", "map", "variant"};
    assert_int_equal(json_array_size(cols), 6);
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(cols, i), "type")),
                            want[i]);
    assert_false(json_is_true(json_object_get(json_array_get(cols, 0), "nullable")));
    json_t *el = json_array_get(json_object_get(json_array_get(cols, 3), "children"), 0);
    assert_string_equal(json_string_value(json_object_get(el, "name")), "element");
    assert_string_equal(json_string_value(json_object_get(el, "type")), "int");
    json_decref(doc);
    free(info);
    hl_table_free(t);

    /* Refused before any request, naming the field and its format. */
    static const char *const refused[] = {"tsn:UTC", "tsm:UTC", "ttm", "w:8", "d:10,2,256",
                                          "d:40,2",  "e",       "n",   "+w:3"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        one_field(&s, refused[i], strcmp(refused[i], "+w:3") == 0 ? 1 : 0);
        if (s.children[0]->n_children)
            assert_int_equal(arrow_schema_init(s.children[0]->children[0], "i", "item", 0, 0), 0);
        assert_int_equal(hl_namespace_create_table_arrow(f.ns, "bad", &s, NULL, &t, &err),
                         HL_ERR_INVALID_ARGUMENT);
        assert_null(t);
        char want_text[64];
        snprintf(want_text, sizeof want_text, "'f' has format '%s'", refused[i]);
        if (!strstr(err.message, want_text) || !strstr(err.message, "supported:"))
            fail_msg("%s: %s", refused[i], err.message);
        s.release(&s);
    }
    /* A bare fixed_size_binary(16) is not a uuid; a dictionary is refused;
     * the path names a nested field. */
    one_field(&s, "w:16", 0);
    assert_int_equal(hl_namespace_create_table_arrow(f.ns, "bad", &s, NULL, &t, &err),
                     HL_ERR_INVALID_ARGUMENT);
    s.release(&s);
    one_field(&s, "i", 0);
    struct ArrowSchema dict;
    assert_int_equal(arrow_schema_init(&dict, "u", NULL, 0, 0), 0);
    s.children[0]->dictionary = &dict;
    assert_int_equal(hl_namespace_create_table_arrow(f.ns, "bad", &s, NULL, &t, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "dictionary-encoded"));
    s.children[0]->dictionary = NULL;
    dict.release(&dict);
    s.release(&s);
    one_field(&s, "+s", 1);
    assert_int_equal(arrow_schema_init(s.children[0]->children[0], "+l", "inner", 0, 1), 0);
    assert_int_equal(
        arrow_schema_init(s.children[0]->children[0]->children[0], "tsn:UTC", "item", 0, 0), 0);
    assert_int_equal(hl_namespace_create_table_arrow(f.ns, "bad", &s, NULL, &t, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "'f.inner.element' has format 'tsn:UTC'"));
    s.release(&s);
    /* Deeper than the catalog nests: refused by the library. */
    one_field(&s, "+l", 1);
    struct ArrowSchema *node = s.children[0];
    for (int depth = 2; depth <= 9; depth++) {
        assert_int_equal(arrow_schema_init(node->children[0], depth < 9 ? "+l" : "i", "item", 0,
                                           depth < 9 ? 1 : 0),
                         0);
        node = node->children[0];
    }
    assert_int_equal(hl_namespace_create_table_arrow(f.ns, "bad", &s, NULL, &t, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "deeper"));
    s.release(&s);
    /* A field without a name. */
    assert_int_equal(arrow_schema_init(&s, "+s", NULL, 0, 1), 0);
    assert_int_equal(arrow_schema_init(s.children[0], "l", NULL, 0, 0), 0);
    assert_int_equal(hl_namespace_create_table_arrow(f.ns, "bad", &s, NULL, &t, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "field 0 of the schema is missing or has no name"));
    s.release(&s);
    /* Not a struct at the top. */
    assert_int_equal(arrow_schema_init(&s, "i", NULL, 0, 0), 0);
    assert_int_equal(hl_namespace_create_table_arrow(f.ns, "bad", &s, NULL, &t, &err),
                     HL_ERR_INVALID_ARGUMENT);
    s.release(&s);
    /* Nothing was created. */
    assert_int_equal(hl_table_open(f.ns, "bad", &t, &err), HL_ERR_NOT_FOUND);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unguarded_after_recreate),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_maintenance),
        cmocka_unit_test(test_files_list_partitioned),
        cmocka_unit_test(test_create_from_arrow),
        cmocka_unit_test(test_create_from_arrow_edges),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
