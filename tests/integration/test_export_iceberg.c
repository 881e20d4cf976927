/* `hoglake export iceberg` end to end, against a real hoglaked and
 * PostgreSQL: an "ai-gateway messages" table (thousands of conversations
 * over weeks, a ~1.5 KB payload, appended in many batches) exported to
 * file:// and to moto, as format versions 3 and 2, incrementally; icebird
 * 0.3.1 (tests/interop/verify_iceberg.mjs) reads every export back and
 * checks rows, day partitions, lookup-key order and bounds. Also: a run with
 * nothing new is a no-op, a crash between the Iceberg commit and the offset
 * commit never duplicates rows, a drifted partitioning is refused writing
 * nothing, and the spans record the layout. */
#define _XOPEN_SOURCE 700 /* nftw: the FTW_ flags are XSI */
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "iceberg/manifest.h"
#include "util/buf.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN, HL_NODE and HL_INTEROP_DIR must be defined by the build"
#endif

static struct test_db db;
static const char *stack_name = "export_iceberg";
static struct test_server srv;
static PGconn *pg;
static char dir[256];

enum { BATCHES = 16, ROWS_PER_BATCH = 250, DAYS = 21 };

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Batch b of the messages as JSON Lines (batch-<b>.jsonl), and appended to
 * the file of every row so far (rows-<upto>.jsonl is written by
 * rows_upto). ~2,000 conversations in 400 sessions over 21 days. */
static void write_batch(int b)
{
    char path[512];
    snprintf(path, sizeof path, "%s/batch-%02d.jsonl", dir, b);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    char payload[1601];
    for (int r = 0; r < ROWS_PER_BATCH; r++) {
        int session = (int)(next_random() % 400);
        int conversation = (int)(next_random() % 5);
        bool no_conversation = next_random() % 10 == 0;
        int64_t day = 20580 + (int64_t)(next_random() % DAYS);
        int64_t second = (int64_t)(next_random() % 86400);
        time_t t = (time_t)(day * 86400 + second);
        struct tm tm;
        gmtime_r(&t, &tm);
        char ts[40], date[16];
        strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
        strftime(date, sizeof date, "%Y-%m-%d", &tm);
        size_t len = 1400 + next_random() % 200;
        for (size_t i = 0; i < len; i++)
            payload[i] = (char)('a' + next_random() % 26);
        payload[len] = '\0';
        char conv[32] = "null";
        if (!no_conversation)
            snprintf(conv, sizeof conv, "\"c%03d-%d\"", session, conversation);
        fprintf(f,
                "{\"session_id\":\"s%03d\",\"conversation_id\":%s,\"cwd\":\"/work/%d\","
                "\"date\":\"%s\",\"message_created_at\":\"%s.%03dZ\",\"payload\":\"%d-%d %s\"}\n",
                session, conv, session % 7, date, ts, (int)(next_random() % 1000), b, r, payload);
    }
    fclose(f);
}

/* rows.jsonl: batches [0, upto) concatenated, the rows the export holds. */
static void rows_upto(int upto)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && : > rows.jsonl && for i in $(seq -f %%02g 0 %d); do cat batch-$i.jsonl "
             ">> rows.jsonl; done",
             dir, upto - 1);
    assert_int_equal(system(cmd), 0);
}

/* Appends batches [from, to) to a table (CATALOG.NS.TABLE), one commit
 * each. */
static void append_to(const char *qualified, int from, int to)
{
    for (int b = from; b < to; b++) {
        struct cli_out o;
        cli_do(&o, "append %s batch-%02d.jsonl", qualified, b);
        cli_out_expect(&o, 0, "append");
        cli_out_free(&o);
    }
}

static void append_batches_to(const char *table, int from, int to)
{
    char qualified[256];
    snprintf(qualified, sizeof qualified, "ai.gw.%s", table);
    append_to(qualified, from, to);
}

/* A messages table (CATALOG.NS.TABLE) sorted by the lookup key and
 * partitioned for export by day(message_created_at). */
static void create_messages(const char *qualified)
{
    struct cli_out o;
    cli_do(&o,
           "table create %s --columns 'session_id:string!, conversation_id:string, cwd:string, "
           "date:string, message_created_at:timestamptz, payload:string' --sort-by 'session_id, "
           "conversation_id, cwd, date' --primary-timestamp message_created_at",
           qualified);
    cli_out_expect(&o, 0, "table create");
    cli_out_free(&o);
}

/* `export iceberg QUALIFIED --to URL EXTRA --json`, which must succeed:
 * its result. */
static json_t *export_ok(const char *qualified, const char *url, const char *extra,
                         const char *what)
{
    struct cli_out o;
    cli_do(&o, "--json export iceberg %s --to %s %s", qualified, url, extra);
    cli_out_expect(&o, 0, what);
    json_t *r = jparse(o.out);
    cli_out_free(&o);
    return r;
}

/* A catalog of its own (its floor is not held by the other tests'
 * exports), with namespace CATALOG.gw. */
static void create_catalog(const char *name)
{
    struct cli_out o;
    cli_do(&o, "catalog create %s --data-path file://%s/wh-%s", name, dir, name);
    cli_out_expect(&o, 0, "catalog create");
    cli_out_free(&o);
    cli_do(&o, "namespace create %s.gw", name);
    cli_out_expect(&o, 0, "namespace create");
    cli_out_free(&o);
}

/* Expires every snapshot the retention (1 second) allows: the floor moves
 * to the head unless a consumer offset holds it. Returns the new floor. */
static int64_t expire_all(const char *catalog, const char *consumer_floor)
{
    struct cli_out o;
    cli_do(&o, "catalog set-options %s --retention 1 --consumer-floor %s", catalog, consumer_floor);
    cli_out_expect(&o, 0, "set-options");
    cli_out_free(&o);
    sleep_ms(1200);
    cli_do(&o, "--json maintenance expire %s", catalog);
    cli_out_expect(&o, 0, "expire");
    json_t *r = jparse(o.out);
    int64_t floor = jint(r, "new_earliest_snapshot_id");
    json_decref(r);
    cli_out_free(&o);
    return floor;
}

static void append_batches(int from, int to)
{
    append_batches_to("messages", from, to);
}

/* icebird reads the table at `url` and checks it against rows.jsonl; on
 * v3 next-row-id must be `assigned` (< 0: the number of rows, as when no
 * rows were ever replaced). */
static void verify_args(const char *url, int version, const char *s3_endpoint, bool by_day,
                        int64_t assigned, const char *extra)
{
    char cmd[2048], rows_assigned[64] = "";
    if (assigned >= 0)
        snprintf(rows_assigned, sizeof rows_assigned, "--rows-assigned %lld", (long long)assigned);
    int n = snprintf(
        cmd, sizeof cmd,
        "cd '%s' && '%s' '%s/verify_iceberg.mjs' --table-url '%s' --rows rows.jsonl --key "
        "payload %s --sort-keys session_id,conversation_id,cwd,date --format-version %d "
        "%s%s %s %s > verify.out 2>&1",
        dir, HL_NODE, HL_INTEROP_DIR, url, by_day ? "--day-column message_created_at" : "", version,
        s3_endpoint ? "--s3-endpoint " : "", s3_endpoint ? s3_endpoint : "", rows_assigned, extra);
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    if (system(cmd) != 0) {
        char out[600];
        snprintf(out, sizeof out, "cat '%s/verify.out'", dir);
        (void)system(out);
        fail_msg("icebird does not read %s as the source rows", url);
    }
}

static void verify_assigned(const char *url, int version, const char *s3_endpoint, bool by_day,
                            int64_t assigned)
{
    verify_args(url, version, s3_endpoint, by_day, assigned, "");
}

static void verify(const char *url, int version, const char *s3_endpoint, bool by_day)
{
    verify_assigned(url, version, s3_endpoint, by_day, -1);
}

/* Points the object store at moto (through the environment) and makes a
 * fresh s3:// table location under `label`; returns moto's endpoint. */
static const char *moto_location(const char *label, char *url, size_t size)
{
    const char *endpoint = getenv("HOGLAKE_TEST_MOTO_ENDPOINT");
    if (!endpoint)
        fail_msg("HOGLAKE_TEST_MOTO_ENDPOINT is not set: run the suite through scripts/test.sh");
    setenv("AWS_ENDPOINT_URL", endpoint, 1);
    setenv("AWS_ACCESS_KEY_ID", getenv("HOGLAKE_TEST_S3_ACCESS_KEY"), 1);
    setenv("AWS_SECRET_ACCESS_KEY", getenv("HOGLAKE_TEST_S3_SECRET_KEY"), 1);
    setenv("AWS_REGION", getenv("HOGLAKE_TEST_S3_REGION"), 1);
    snprintf(url, size, "s3://%s/%s-%ld-%d/messages", getenv("HOGLAKE_TEST_S3_BUCKET"), label,
             (long)time(NULL), (int)getpid());
    return endpoint;
}

static int count_versions(const char *table_dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/metadata", table_dir);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strstr(e->d_name, ".metadata.json") != NULL;
    closedir(d);
    return n;
}

/* Parquet data files under a table directory. */
static int count_files(const char *table_dir)
{
    char data[700];
    snprintf(data, sizeof data, "%s/data", table_dir);
    return (int)test_count_files(data, ".parquet");
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, stack_name, NULL, NULL);
    test_scratch_dir(dir, sizeof dir, "export");
    cli_session(HOGLAKE_CLI_BIN, srv.base, dir);
    struct cli_out o;
    cli_do(&o, "catalog create ai --data-path file://%s/warehouse", dir);
    cli_out_expect(&o, 0, "catalog create");
    cli_out_free(&o);
    cli_do(&o, "namespace create ai.gw");
    cli_out_expect(&o, 0, "namespace create");
    cli_out_free(&o);
    create_messages("ai.gw.messages");
    for (int b = 0; b < BATCHES; b++)
        write_batch(b);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

static void incremental_v3(void **state)
{
    (void)state;
    char url[1024], table_dir[512], spans[512];
    snprintf(table_dir, sizeof table_dir, "%s/iceberg/messages", dir);
    snprintf(url, sizeof url, "file://%s", table_dir);
    snprintf(spans, sizeof spans, "%s/spans.jsonl", dir);
    append_batches(0, 10);
    struct cli_out o;
    cli_do(&o, "export iceberg ai.gw.messages --to %s --trace %s", url, spans);
    cli_out_expect(&o, 0, "the first export");
    assert_non_null(strstr(o.out, "created the Iceberg table with 2,500 rows"));
    cli_out_free(&o);
    rows_upto(10);
    verify(url, 3, NULL, true);

    /* The layout, as the spans recorded it. */
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "grep -c '\"name\":\"iceberg.table.create\".*\"hyp_partition_spec\":\"day(message_"
             "created_at)\",\"hyp_sort_order\":\"session_id,conversation_id,cwd,date\"' '%s' | "
             "grep -qx 1",
             spans);
    assert_int_equal(system(cmd), 0);

    /* Nothing new: no commit. */
    cli_do(&o, "export iceberg ai.gw.messages --to %s", url);
    cli_out_expect(&o, 0, "a run with nothing new");
    assert_non_null(strstr(o.out, "nothing new"));
    cli_out_free(&o);
    assert_int_equal(count_versions(table_dir), 1);

    /* More batches: only they are exported. Another writer's commit lands
     * first (a failpoint): the export reloads and commits after it. */
    append_batches(10, BATCHES);
    setenv("HOGLAKE_FAILPOINTS", "iceberg-lost-race", 1);
    cli_do(&o, "--json export iceberg ai.gw.messages --to %s", url);
    unsetenv("HOGLAKE_FAILPOINTS");
    cli_out_expect(&o, 0, "the second export");
    json_t *r = jparse(o.out);
    assert_int_equal(jint(r, "rows"), (BATCHES - 10) * ROWS_PER_BATCH);
    assert_false(json_is_true(json_object_get(r, "created")));
    json_decref(r);
    cli_out_free(&o);
    assert_int_equal(count_versions(table_dir), 3); /* the rival's, then ours */
    rows_upto(BATCHES);
    verify(url, 3, NULL, true);

    /* A crash after the Iceberg commit but before the offset's: the next
     * run reconciles from the snapshot summary and exports nothing twice. */
    sql_exec("DELETE FROM hog_consumer_offset");
    cli_do(&o, "export iceberg ai.gw.messages --to %s", url);
    cli_out_expect(&o, 0, "a run after a lost offset");
    assert_non_null(strstr(o.out, "caught up"));
    cli_out_free(&o);
    assert_int_equal(count_versions(table_dir), 3);
    verify(url, 3, NULL, true);
}

static void version_2_and_s3(void **state)
{
    (void)state;
    char url[512];
    snprintf(url, sizeof url, "file://%s/iceberg/v2", dir);
    struct cli_out o;
    cli_do(&o, "export iceberg ai.gw.messages --to %s --format-version 2", url);
    cli_out_expect(&o, 0, "a v2 export");
    cli_out_free(&o);
    rows_upto(BATCHES);
    verify(url, 2, NULL, true);

    const char *endpoint = moto_location("export", url, sizeof url);
    cli_do(&o, "export iceberg ai.gw.messages --to %s", url);
    cli_out_expect(&o, 0, "an export to S3");
    cli_out_free(&o);
    verify(url, 3, endpoint, true);
}

static void drift_is_refused(void **state)
{
    (void)state;
    char url[1024], table_dir[512], spans[512];
    snprintf(table_dir, sizeof table_dir, "%s/iceberg/messages", dir);
    snprintf(url, sizeof url, "file://%s", table_dir);
    snprintf(spans, sizeof spans, "%s/drift-spans.jsonl", dir);
    struct cli_out o;
    cli_do(&o, "table alter ai.gw.messages --primary-timestamp none");
    cli_out_expect(&o, 0, "clear the primary timestamp");
    cli_out_free(&o);
    write_batch(BATCHES);
    append_batches(BATCHES, BATCHES + 1);
    int before = count_versions(table_dir);
    cli_do(&o, "export iceberg ai.gw.messages --to %s --trace %s", url, spans);
    assert_int_equal(o.code, 1);
    assert_non_null(strstr(o.err, "iceberg_partition_spec_drift"));
    cli_out_free(&o);
    assert_int_equal(count_versions(table_dir), before);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "grep -q '\"error_kind\":\"iceberg_partition_spec_drift\"' '%s' && grep -q "
             "'\"status_code\":\"ERROR\"' '%s'",
             spans, spans);
    assert_int_equal(system(cmd), 0);
    /* Without a primary timestamp a new target is unpartitioned, sorted
     * by the same key. */
    char flat[1024];
    snprintf(flat, sizeof flat, "file://%s/iceberg/unpartitioned", dir);
    cli_do(&o, "export iceberg ai.gw.messages --to %s", flat);
    cli_out_expect(&o, 0, "an unpartitioned export");
    assert_non_null(strstr(o.out, "format version 3, unpartitioned, sorted by "));
    cli_out_free(&o);
    rows_upto(BATCHES + 1);
    verify(flat, 3, NULL, false);
    /* Declared again, the export goes on where it stopped. */
    cli_do(&o, "table alter ai.gw.messages --primary-timestamp message_created_at");
    cli_out_expect(&o, 0, "declare it again");
    cli_out_free(&o);
    cli_do(&o, "export iceberg ai.gw.messages --to %s", url);
    cli_out_expect(&o, 0, "the export after the drift");
    cli_out_free(&o);
    /* ... while the unpartitioned target now drifts the other way. */
    cli_do(&o, "export iceberg ai.gw.messages --to %s", flat);
    assert_int_equal(o.code, 1);
    assert_non_null(strstr(o.err, "iceberg_partition_spec_drift"));
    cli_out_free(&o);
    rows_upto(BATCHES + 1);
    verify(url, 3, NULL, true);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    struct buf b = BUF_INIT;
    char chunk[65536];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
        assert_int_equal(buf_append(&b, chunk, k), 0);
    fclose(f);
    *len = b.len;
    return b.data ? buf_take(&b) : strdup("");
}

/* The table's current vN.metadata.json (through version-hint.text). */
static json_t *current_metadata(const char *table_dir)
{
    char path[700];
    snprintf(path, sizeof path, "%s/metadata/version-hint.text", table_dir);
    size_t len;
    char *hint = slurp(path, &len);
    snprintf(path, sizeof path, "%s/metadata/v%d.metadata.json", table_dir, atoi(hint));
    free(hint);
    char *text = slurp(path, &len);
    json_t *meta = jparse(text);
    free(text);
    return meta;
}

/* The live manifest entries (status != DELETED) of the snapshot's
 * manifests, as a JSON array. */
static json_t *snapshot_entries(const json_t *snap)
{
    size_t len, i;
    char *data = slurp(jstr(snap, "manifest-list") + 7, &len);
    json_t *manifests, *entries = json_array();
    struct error ae;
    if (ice_manifest_list_read(data, len, &manifests, &ae) != 0)
        fail_msg("manifest list: %s", ae.msg);
    free(data);
    json_t *mf;
    json_array_foreach (manifests, i, mf) {
        char *m = slurp(jstr(mf, "manifest_path") + 7, &len);
        struct avro_reader *r;
        if (avro_reader_open(m, len, NULL, &r, &ae) != 0)
            fail_msg("manifest: %s", ae.msg);
        json_t *e;
        while (avro_reader_next(r, &e, &ae) == 1) {
            if (jint(e, "status") != 2)
                json_array_append(entries, e);
            json_decref(e);
        }
        avro_reader_free(r);
        free(m);
    }
    json_decref(manifests);
    return entries;
}

/* The live manifest entries of the table's current snapshot. */
static json_t *current_entries(const char *table_dir)
{
    json_t *meta = current_metadata(table_dir);
    int64_t current = jint(meta, "current-snapshot-id");
    const json_t *found = NULL;
    size_t i;
    json_t *snap;
    json_array_foreach (json_object_get(meta, "snapshots"), i, snap) {
        if (jint(snap, "snapshot-id") == current)
            found = snap;
    }
    assert_non_null(found);
    json_t *entries = snapshot_entries(found);
    json_decref(meta);
    return entries;
}

/* The data files of the table's current snapshot, as a DuckDB list
 * literal ['a', 'b']. */
static void current_files(const char *table_dir, struct buf *list)
{
    json_t *entries = current_entries(table_dir);
    assert_int_equal(buf_putc(list, '['), 0);
    size_t i;
    json_t *e;
    json_array_foreach (entries, i, e)
        buf_printf(list, "%s'%s'", list->len > 1 ? ", " : "",
                   jstr(json_object_get(e, "data_file"), "file_path") + 7);
    assert_int_equal(buf_putc(list, ']'), 0);
    json_decref(entries);
}

static char *duckdb(const char *sql)
{
    return test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
}

/* Compaction: gates, the replace snapshot read back by icebird, and v3
 * row lineage kept through the rewrite. */
static void compaction(void **state)
{
    (void)state;
    char url[1024], table_dir[512];
    snprintf(table_dir, sizeof table_dir, "%s/iceberg/messages", dir);
    snprintf(url, sizeof url, "file://%s", table_dir);
    struct cli_out o;
    cli_do(&o, "export maintain ai.gw.messages --to file://%s/iceberg/none --compact", dir);
    cli_out_expect(&o, 0, "no table");
    assert_non_null(strstr(o.out, "no-table"));
    cli_out_free(&o);
    cli_do(&o, "export maintain ai.gw.messages --to %s --compact --compact-max-bytes 1", url);
    cli_out_expect(&o, 0, "above the byte cap");
    assert_non_null(strstr(o.out, "above-byte-cap"));
    cli_out_free(&o);
    /* A rewrite that dies while staging leaves nothing; one that loses the
     * commit race deletes what it staged and says so (exit 0). */
    int before = count_versions(table_dir);
    int data_files = count_files(table_dir);
    /* Files all at the target size: nothing to gain, nothing written. */
    cli_do(&o, "export maintain ai.gw.messages --to %s --compact --compact-target-bytes 1", url);
    cli_out_expect(&o, 0, "files at the target size");
    expect_contains(o.out, "below-threshold", "files at the target size");
    cli_out_free(&o);
    assert_int_equal(count_files(table_dir), data_files);
    assert_int_equal(count_versions(table_dir), before);
    setenv("HOGLAKE_FAILPOINTS", "iceberg-die-mid-stage", 1);
    cli_do(&o, "export maintain ai.gw.messages --to %s --compact", url);
    unsetenv("HOGLAKE_FAILPOINTS");
    assert_int_equal(o.code, 1);
    cli_out_free(&o);
    assert_int_equal(count_files(table_dir), data_files);
    assert_int_equal(count_versions(table_dir), before);
    setenv("HOGLAKE_FAILPOINTS", "iceberg-lost-race", 1);
    cli_do(&o, "export maintain ai.gw.messages --to %s --compact", url);
    unsetenv("HOGLAKE_FAILPOINTS");
    cli_out_expect(&o, 0, "a lost race");
    assert_non_null(strstr(o.out, "conflict"));
    cli_out_free(&o);
    assert_int_equal(count_files(table_dir), data_files);
    assert_int_equal(count_versions(table_dir), ++before); /* the rival's */
    /* A failed commit whose outcome cannot be verified leaves the staged
     * files where they are, and says so. */
    setenv("HOGLAKE_FAILPOINTS", "iceberg-lost-race,iceberg-unverifiable", 1);
    cli_do(&o, "export maintain ai.gw.messages --to %s --compact", url);
    unsetenv("HOGLAKE_FAILPOINTS");
    assert_int_equal(o.code, 1);
    assert_non_null(strstr(o.err, "left in place"));
    cli_out_free(&o);
    assert_true(count_files(table_dir) > data_files);
    assert_int_equal(count_versions(table_dir), ++before);
    cli_do(&o, "--json export maintain ai.gw.messages --to %s --compact", url);
    cli_out_expect(&o, 0, "compaction");
    json_t *r = jparse(o.out);
    assert_string_equal(jstr(r, "outcome"), "compacted");
    int64_t files_before = jint(r, "files_before"), files_after = jint(r, "files_after");
    assert_true(files_before >= 32);
    assert_true(files_after <= DAYS + 1);
    json_decref(r);
    cli_out_free(&o);
    assert_int_equal(count_versions(table_dir), before + 1);
    rows_upto(BATCHES + 1);
    verify(url, 3, NULL, true);

    /* Every row kept its id (the ids handed out by the appends, 0..n-1)
     * and the sequence number of the export that added it. */
    struct buf files = BUF_INIT;
    current_files(table_dir, &files);
    char sql[1 << 16];
    snprintf(sql, sizeof sql,
             "SELECT count(*), count(DISTINCT _row_id), min(_row_id), max(_row_id), "
             "min(_last_updated_sequence_number), max(_last_updated_sequence_number) FROM "
             "read_parquet(%s)",
             files.data);
    char *got = duckdb(sql);
    int n = (BATCHES + 1) * ROWS_PER_BATCH;
    char want[128];
    snprintf(want, sizeof want, "%d\t%d\t0\t%d\t1\t3\n", n, n, n - 1);
    if (strcmp(got, want) != 0)
        fail_msg("lineage after compaction: %s, expected %s", got, want);
    free(got);
    buf_free(&files);

    /* Now below the threshold: nothing to do. */
    cli_do(&o, "export maintain ai.gw.messages --to %s --compact", url);
    cli_out_expect(&o, 0, "below the threshold");
    assert_non_null(strstr(o.out, "below-threshold"));
    cli_out_free(&o);
    assert_int_equal(count_versions(table_dir), before + 1);
    /* Every partition is one file: even with the file-count gate down, a
     * rewrite would change nothing, so none happens (finding 6). */
    data_files = count_files(table_dir);
    cli_do(&o, "export maintain ai.gw.messages --to %s --compact --compact-file-count 2", url);
    cli_out_expect(&o, 0, "already compact");
    expect_contains(o.out, "below-threshold", "already compact");
    cli_out_free(&o);
    assert_int_equal(count_versions(table_dir), before + 1);
    assert_int_equal(count_files(table_dir), data_files);
}

/* Without a sort order the lookup key is the identity partition sources;
 * a changed sort order is not drift: the table's sort order moves. */
static void lookup_key(void **state)
{
    (void)state;
    struct cli_out o;
    cli_do(&o, "table create ai.gw.byteam --columns 'session_id:string!, conversation_id:string, "
               "cwd:string, date:string, message_created_at:timestamptz, payload:string' "
               "--partition-by 'session_id' --primary-timestamp message_created_at");
    cli_out_expect(&o, 0, "table create");
    cli_out_free(&o);
    for (int b = 0; b < 3; b++) {
        cli_do(&o, "append ai.gw.byteam batch-%02d.jsonl", b);
        cli_out_expect(&o, 0, "append");
        cli_out_free(&o);
    }
    char url[1024], table_dir[512];
    snprintf(table_dir, sizeof table_dir, "%s/iceberg/byteam", dir);
    snprintf(url, sizeof url, "file://%s", table_dir);
    cli_do(&o, "--json export iceberg ai.gw.byteam --to %s", url);
    cli_out_expect(&o, 0, "export");
    json_t *r = jparse(o.out);
    assert_string_equal(jstr(r, "sort_order"), "session_id");
    int64_t first_files = jint(r, "files");
    json_decref(r);
    cli_out_free(&o);
    rows_upto(3);
    char cmd[2048];
    int n =
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && '%s' '%s/verify_iceberg.mjs' --table-url '%s' --rows rows.jsonl --key "
                 "payload --day-column message_created_at --sort-keys session_id > verify.out 2>&1",
                 dir, HL_NODE, HL_INTEROP_DIR, url);
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    assert_int_equal(system(cmd), 0);

    cli_do(&o, "table alter ai.gw.byteam --sort-by 'cwd'");
    cli_out_expect(&o, 0, "a new sort order");
    cli_out_free(&o);
    cli_do(&o, "append ai.gw.byteam batch-03.jsonl");
    cli_out_expect(&o, 0, "append");
    cli_out_free(&o);
    cli_do(&o, "--json export iceberg ai.gw.byteam --to %s", url);
    cli_out_expect(&o, 0, "an export after the sort order changed");
    r = jparse(o.out);
    assert_string_equal(jstr(r, "sort_order"), "cwd");
    int64_t second_files = jint(r, "files");
    json_decref(r);
    cli_out_free(&o);
    /* Each data file records the order it was sorted by: the first
     * export's keep order 1, the new ones say 2. */
    json_t *entries = current_entries(table_dir);
    int64_t by_order[3] = {0};
    size_t i;
    json_t *e;
    json_array_foreach (entries, i, e) {
        int64_t id = jint(json_object_get(e, "data_file"), "sort_order_id");
        assert_true(id >= 1 && id <= 2);
        by_order[id]++;
    }
    json_decref(entries);
    assert_int_equal(by_order[1], first_files);
    assert_int_equal(by_order[2], second_files);
    snprintf(cmd, sizeof cmd,
             "grep -o '\"default-sort-order-id\":[0-9]*' '%s/metadata/v2.metadata.json' | grep -qx "
             "'\"default-sort-order-id\":2'",
             table_dir);
    assert_int_equal(system(cmd), 0);
}

/* The server compacts the table between two incremental runs: the next
 * run exports only the new rows (the changefeed leaves the compaction
 * output out), and a fresh export reads the compacted file. */
static void server_compaction(void **state)
{
    (void)state;
    struct cli_out o;
    create_messages("ai.gw.compacted");
    append_batches_to("compacted", 0, 5);
    char url[1024], fresh[1024];
    snprintf(url, sizeof url, "file://%s/iceberg/compacted", dir);
    snprintf(fresh, sizeof fresh, "file://%s/iceberg/compacted-fresh", dir);
    cli_do(&o, "export iceberg ai.gw.compacted --to %s", url);
    cli_out_expect(&o, 0, "the first export");
    cli_out_free(&o);
    cli_do(&o, "--json maintenance compact ai");
    cli_out_expect(&o, 0, "compact");
    json_t *r = jparse(o.out);
    assert_int_equal(jint(r, "groups_compacted"), 1);
    assert_int_equal(jint(r, "files_in"), 5);
    json_decref(r);
    cli_out_free(&o);
    append_batches_to("compacted", 5, 8);
    cli_do(&o, "--json export iceberg ai.gw.compacted --to %s", url);
    cli_out_expect(&o, 0, "the export after the compaction");
    r = jparse(o.out);
    assert_int_equal(jint(r, "rows"), 3 * ROWS_PER_BATCH);
    json_decref(r);
    cli_out_free(&o);
    rows_upto(8);
    verify(url, 3, NULL, true);
    cli_do(&o, "export iceberg ai.gw.compacted --to %s", fresh);
    cli_out_expect(&o, 0, "a fresh export");
    cli_out_free(&o);
    verify(fresh, 3, NULL, true);
}

/* The consumer offset of the export of `location` for table uuid. */
static int64_t offset_of(const char *table_uuid)
{
    return sqli("SELECT committed_snapshot FROM hog_consumer_offset WHERE table_uuid = '%s'",
                table_uuid);
}

static char *table_uuid_of(const char *qualified)
{
    struct cli_out o;
    cli_do(&o, "--json table show %s", qualified);
    cli_out_expect(&o, 0, "table show");
    json_t *r = jparse(o.out);
    char *uuid = strdup(jstr(r, "table_uuid"));
    json_decref(r);
    cli_out_free(&o);
    return uuid;
}

/* A new export after expiry passed the table's creation bootstraps from the
 * live rows at the floor (finding 3), to file:// and to S3; later runs go
 * on with the changefeed. An offset the floor passed fails, naming
 * --restart; with it the live rows replace the Iceberg table's. */
static void bootstrap_after_expiry(void **state)
{
    (void)state;
    create_catalog("boot");
    create_messages("boot.gw.messages");
    int64_t created = head_of("boot");
    append_to("boot.gw.messages", 0, 4);
    int64_t floor = expire_all("boot", "on");
    assert_int_equal(floor, head_of("boot"));
    assert_true(floor > created);

    char url[1024], table_dir[512];
    snprintf(table_dir, sizeof table_dir, "%s/iceberg/boot", dir);
    snprintf(url, sizeof url, "file://%s", table_dir);
    struct cli_out o;
    json_t *r = export_ok("boot.gw.messages", url, "", "a new export after expiry");
    assert_true(json_is_true(json_object_get(r, "bootstrapped")));
    assert_int_equal(jint(r, "bootstrap_snapshot"), floor);
    assert_int_equal(jint(r, "rows"), 4 * ROWS_PER_BATCH);
    json_decref(r);
    rows_upto(4);
    verify(url, 3, NULL, true);

    /* The same to S3 (moto). */
    char s3[512];
    const char *endpoint = moto_location("boot", s3, sizeof s3);
    cli_do(&o, "export iceberg boot.gw.messages --to %s", s3);
    cli_out_expect(&o, 0, "a bootstrap to S3");
    expect_contains(o.out, "bootstrapped", "the S3 export");
    cli_out_free(&o);
    verify(s3, 3, endpoint, true);

    /* More rows: the changefeed goes on from the bootstrap. */
    append_to("boot.gw.messages", 4, 6);
    r = export_ok("boot.gw.messages", url, "", "the export after the bootstrap");
    assert_false(json_is_true(json_object_get(r, "bootstrapped")));
    assert_int_equal(jint(r, "rows"), 2 * ROWS_PER_BATCH);
    json_decref(r);
    rows_upto(6);
    verify(url, 3, NULL, true);

    /* Without the consumer floor, expiry passes the offset: the run fails
     * with a typed error that names --restart, and writes nothing. */
    append_to("boot.gw.messages", 6, 7);
    assert_true(expire_all("boot", "off") > floor);
    int versions = count_versions(table_dir), files = count_files(table_dir);
    cli_do(&o, "export iceberg boot.gw.messages --to %s", url);
    assert_int_equal(o.code, 1);
    expect_contains(o.err, "export_offset_expired", "an expired offset");
    expect_contains(o.err, "--restart", "an expired offset");
    cli_out_free(&o);
    assert_int_equal(count_versions(table_dir), versions);
    assert_int_equal(count_files(table_dir), files);
    /* --restart: the live rows replace the Iceberg table's (each once). */
    r = export_ok("boot.gw.messages", url, "--restart", "a restart");
    assert_true(json_is_true(json_object_get(r, "bootstrapped")));
    assert_int_equal(jint(r, "rows"), 7 * ROWS_PER_BATCH);
    json_decref(r);
    rows_upto(7);
    verify_assigned(url, 3, NULL, true, (6 + 7) * ROWS_PER_BATCH); /* ids are never reused */
    json_t *meta = current_metadata(table_dir);
    json_t *snaps = json_object_get(meta, "snapshots");
    json_t *last = json_array_get(snaps, json_array_size(snaps) - 1);
    assert_string_equal(jstr(json_object_get(last, "summary"), "operation"), "overwrite");
    json_decref(meta);
}

/* The required flag of a field of the current Iceberg schema. */
static bool iceberg_required(const char *table_dir, const char *field)
{
    json_t *meta = current_metadata(table_dir);
    int64_t current = jint(meta, "current-schema-id");
    size_t i, j;
    json_t *schema, *f;
    int found = -1;
    json_array_foreach (json_object_get(meta, "schemas"), i, schema) {
        if (jint(schema, "schema-id") != current)
            continue;
        json_array_foreach (json_object_get(schema, "fields"), j, f)
            if (strcmp(jstr(f, "name"), field) == 0)
                found = json_is_true(json_object_get(f, "required"));
    }
    json_decref(meta);
    if (found < 0)
        fail_msg("no field %s in the current Iceberg schema", field);
    return found == 1;
}

/* A required column made nullable after an export: the next export adds
 * a schema where the field is optional, and readers see the null. */
static void drop_not_null_after_export(void **state)
{
    (void)state;
    create_catalog("nn");
    create_messages("nn.gw.messages");
    append_to("nn.gw.messages", 0, 2);
    char url[1024], table_dir[512];
    snprintf(table_dir, sizeof table_dir, "%s/iceberg/nn", dir);
    snprintf(url, sizeof url, "file://%s", table_dir);
    json_decref(export_ok("nn.gw.messages", url, "", "the first export"));
    assert_true(iceberg_required(table_dir, "session_id"));

    struct cli_out o;
    cli_do(&o, "table alter nn.gw.messages --drop-not-null session_id");
    cli_out_expect(&o, 0, "drop not null");
    cli_out_free(&o);
    char path[600];
    snprintf(path, sizeof path, "%s/null-session.jsonl", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"session_id\":null,\"conversation_id\":null,\"cwd\":\"/work/0\",\"date\":"
          "\"2026-05-05\",\"message_created_at\":\"2026-05-05T10:00:00.000Z\",\"payload\":"
          "\"no session\"}\n",
          f);
    fclose(f);
    cli_do(&o, "append nn.gw.messages null-session.jsonl");
    cli_out_expect(&o, 0, "append a null session");
    cli_out_free(&o);
    json_t *r = export_ok("nn.gw.messages", url, "", "the export after drop_not_null");
    assert_int_equal(jint(r, "rows"), 1);
    json_decref(r);
    assert_false(iceberg_required(table_dir, "session_id"));
    json_t *meta = current_metadata(table_dir);
    assert_int_equal(json_array_size(json_object_get(meta, "schemas")), 2);
    json_decref(meta);
    rows_upto(2);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cat '%s' >> '%s/rows.jsonl'", path, dir);
    assert_int_equal(system(cmd), 0);
    verify(url, 3, NULL, true);
}

/* A catalog of its own with tables CATALOG.gw.messages and
 * CATALOG.gw.<second>. */
static void two_tables(const char *catalog, const char *second)
{
    char name[256];
    create_catalog(catalog);
    snprintf(name, sizeof name, "%s.gw.messages", catalog);
    create_messages(name);
    snprintf(name, sizeof name, "%s.gw.%s", catalog, second);
    create_messages(name);
}

/* A run with nothing new moves its offset to the head (finding 4): a quiet
 * table's export no longer holds the catalog's consumer floor. */
static void quiet_table_advances(void **state)
{
    (void)state;
    two_tables("quiet", "busy");
    append_to("quiet.gw.messages", 0, 1);
    char url[1024];
    snprintf(url, sizeof url, "file://%s/iceberg/quiet", dir);
    json_decref(export_ok("quiet.gw.messages", url, "", "the first export"));
    struct cli_out o;
    char *uuid = table_uuid_of("quiet.gw.messages");
    int64_t first = offset_of(uuid);
    append_to("quiet.gw.busy", 0, 2); /* another table's commits */
    int64_t head = head_of("quiet");
    assert_true(head > first);
    cli_do(&o, "export iceberg quiet.gw.messages --to %s", url);
    cli_out_expect(&o, 0, "a run with nothing new");
    expect_contains(o.out, "nothing new", "a quiet run");
    cli_out_free(&o);
    assert_int_equal(offset_of(uuid), head);
    /* With the consumer floor on, expiry reaches the head. */
    assert_int_equal(expire_all("quiet", "on"), head);
    free(uuid);
}

/* An Iceberg location belongs to one table (finding 5): another table's
 * export there fails, naming both, and writes nothing; a recreated table
 * needs --adopt, which records the new owner and bootstraps. */
static void ownership(void **state)
{
    (void)state;
    two_tables("own", "other");
    append_to("own.gw.messages", 0, 2);
    append_to("own.gw.other", 2, 3);
    char url[1024], table_dir[512];
    snprintf(table_dir, sizeof table_dir, "%s/iceberg/own", dir);
    snprintf(url, sizeof url, "file://%s", table_dir);
    json_decref(export_ok("own.gw.messages", url, "", "the owner's export"));
    struct cli_out o;
    char *uuid = table_uuid_of("own.gw.messages");
    json_t *meta = current_metadata(table_dir);
    json_t *props = json_object_get(meta, "properties");
    assert_string_equal(jstr(props, "hoglake.table-uuid"), uuid);
    assert_string_equal(jstr(props, "hoglake.catalog"), "own");
    json_decref(meta);

    int64_t objects = test_count_files(table_dir, "");
    cli_do(&o, "export iceberg own.gw.other --to %s", url);
    assert_int_equal(o.code, 1);
    expect_contains(o.err, "iceberg_target_owned_by_other_table", "another table's export");
    expect_contains(o.err, "own.gw.messages", "the owner named");
    expect_contains(o.err, "own.gw.other", "the exporter named");
    cli_out_free(&o);
    assert_int_equal(test_count_files(table_dir, ""), objects);

    /* Recreated under the same name: a new uuid, refused without --adopt. */
    cli_do(&o, "table drop own.gw.messages");
    cli_out_expect(&o, 0, "drop");
    cli_out_free(&o);
    create_messages("own.gw.messages");
    append_to("own.gw.messages", 3, 4);
    cli_do(&o, "export iceberg own.gw.messages --to %s", url);
    assert_int_equal(o.code, 1);
    expect_contains(o.err, "iceberg_target_owned_by_other_table", "a recreated table");
    expect_contains(o.err, "--adopt", "a recreated table");
    cli_out_free(&o);
    assert_int_equal(test_count_files(table_dir, ""), objects);
    json_t *r = export_ok("own.gw.messages", url, "--adopt", "an adopting export");
    assert_true(json_is_true(json_object_get(r, "adopted")));
    assert_true(json_is_true(json_object_get(r, "bootstrapped")));
    json_decref(r);
    char *fresh = table_uuid_of("own.gw.messages");
    assert_string_not_equal(fresh, uuid);
    meta = current_metadata(table_dir);
    assert_string_equal(jstr(json_object_get(meta, "properties"), "hoglake.table-uuid"), fresh);
    json_decref(meta);
    /* Only the new incarnation's rows. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && cp batch-03.jsonl rows.jsonl", dir);
    assert_int_equal(system(cmd), 0);
    verify_assigned(url, 3, NULL, true, 3 * ROWS_PER_BATCH);
    free(uuid);
    free(fresh);
}

/* The paths (without file://) every snapshot of the table's current
 * metadata references: manifest lists, manifests, data files; as a set. */
static json_t *referenced_paths(const char *table_dir)
{
    json_t *meta = current_metadata(table_dir), *set = json_object();
    size_t i, k, len;
    json_t *snap, *mf;
    struct error ae;
    json_array_foreach (json_object_get(meta, "snapshots"), i, snap) {
        const char *list = jstr(snap, "manifest-list") + 7;
        json_object_set_new(set, list, json_true());
        char *data = slurp(list, &len);
        json_t *manifests;
        if (ice_manifest_list_read(data, len, &manifests, &ae) != 0)
            fail_msg("manifest list: %s", ae.msg);
        free(data);
        json_array_foreach (manifests, k, mf)
            json_object_set_new(set, jstr(mf, "manifest_path") + 7, json_true());
        json_decref(manifests);
        json_t *entries = snapshot_entries(snap), *e;
        json_array_foreach (entries, k, e)
            json_object_set_new(set, jstr(json_object_get(e, "data_file"), "file_path") + 7,
                                json_true());
        json_decref(entries);
    }
    json_decref(meta);
    return set;
}

static json_t *walked; /* the files nftw found */
static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (type == FTW_F && ((n > 8 && strcmp(path + n - 8, ".parquet") == 0) ||
                          (n > 7 && strcmp(path + n - 7, ".puffin") == 0) ||
                          (n > 5 && strcmp(path + n - 5, ".avro") == 0)))
        json_object_set_new(walked, path, json_true());
    return 0;
}

/* Every data file, manifest and manifest list under the table directory
 * is referenced by a snapshot of its current metadata, and every one
 * referenced is there. */
static void expect_no_unreferenced(const char *table_dir)
{
    json_t *want = referenced_paths(table_dir);
    walked = json_object();
    assert_int_equal(nftw(table_dir, walk_one, 16, FTW_PHYS), 0);
    const char *path;
    json_t *v;
    json_object_foreach (walked, path, v) {
        if (!json_object_get(want, path))
            fail_msg("%s is left, but no snapshot references it", path);
    }
    json_object_foreach (want, path, v) {
        if (!json_object_get(walked, path))
            fail_msg("%s is referenced, but gone", path);
    }
    json_decref(walked);
    json_decref(want);
}

/* `export maintain --to URL ARGS --json`, which must succeed: its expire
 * counts. */
static json_t *expire_ok(const char *qualified, const char *url, const char *args)
{
    struct cli_out o;
    cli_do(&o, "--json export maintain %s --to %s %s", qualified, url, args);
    cli_out_expect(&o, 0, "export maintain");
    json_t *r = jparse(o.out);
    json_t *counts = json_incref(json_object_get(r, "expire"));
    assert_non_null(counts);
    json_decref(r);
    cli_out_free(&o);
    return counts;
}

/* Three exports and a compaction, then --expire-snapshots: the three
 * older snapshots go, with the files only they referenced (the exports'
 * data files, their manifests and lists); icebird still reads the table
 * and nothing unreferenced is left. The same on S3 (moto). */
static void expire_snapshots(void **state)
{
    (void)state;
    create_catalog("exp");
    create_messages("exp.gw.messages");
    char url[1024], table_dir[512], s3[512];
    snprintf(table_dir, sizeof table_dir, "%s/iceberg/exp", dir);
    snprintf(url, sizeof url, "file://%s", table_dir);
    const char *endpoint = moto_location("expire", s3, sizeof s3);
    int64_t exported_files = 0;
    for (int b = 0; b < 6; b += 2) {
        append_to("exp.gw.messages", b, b + 2);
        json_t *r = export_ok("exp.gw.messages", url, "", "an export");
        exported_files += jint(r, "files");
        json_decref(r);
        json_decref(export_ok("exp.gw.messages", s3, "", "an export to S3"));
    }
    json_t *r = expire_ok("exp.gw.messages", url, "--expire-snapshots");
    assert_int_equal(jint(r, "snapshots_expired"), 0); /* none is 7 days old */
    json_decref(r);
    struct cli_out o;
    cli_do(&o, "export maintain exp.gw.messages --to %s --compact --compact-file-count 2", url);
    cli_out_expect(&o, 0, "compaction");
    expect_contains(o.out, "compacted", "compaction");
    cli_out_free(&o);
    sleep_ms(1100);
    r = expire_ok("exp.gw.messages", url, "--expire-snapshots --older-than 1s --retain-last 1");
    assert_int_equal(jint(r, "snapshots_expired"), 3);
    assert_int_equal(jint(r, "snapshots_retained"), 1);
    assert_int_equal(jint(r, "manifest_lists_deleted"), 3);
    assert_int_equal(jint(r, "manifests_deleted"), 3);
    assert_int_equal(jint(r, "data_files_deleted"), exported_files);
    assert_true(jint(r, "bytes_deleted") > 0);
    json_decref(r);
    rows_upto(6);
    verify(url, 3, NULL, true);
    expect_no_unreferenced(table_dir);
    /* Nothing more to expire: the current snapshot always stays. */
    r = expire_ok("exp.gw.messages", url, "--expire-snapshots --older-than 1s");
    assert_int_equal(jint(r, "snapshots_expired"), 0);
    json_decref(r);

    /* S3: compaction and expiry in one run. */
    r = expire_ok("exp.gw.messages", s3,
                  "--compact --compact-file-count 2 --expire-snapshots --older-than 1s");
    assert_int_equal(jint(r, "snapshots_expired"), 3);
    assert_int_equal(jint(r, "manifest_lists_deleted"), 3);
    assert_int_equal(jint(r, "data_files_deleted"), exported_files);
    json_decref(r);
    verify(s3, 3, endpoint, true);
}

/* ---- deletes ---- */

/* `delete QUALIFIED --where EXPR`, which must delete something. */
static void delete_rows(const char *qualified, const char *where)
{
    struct cli_out o;
    cli_do(&o, "--json delete %s --where \"%s\"", qualified, where);
    cli_out_expect(&o, 0, "delete");
    json_t *r = jparse(o.out);
    assert_true(jint(r, "rows_deleted") > 0);
    json_decref(r);
    cli_out_free(&o);
}

/* rows.jsonl: batches [0, upto) less the lines grep -E `gone` matches
 * (the rows the test deleted, found by their JSON text alone). */
static void rows_without(int upto, const char *gone)
{
    rows_upto(upto);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && grep -v -E '%s' rows.jsonl > rows.kept; mv rows.kept rows.jsonl", dir,
             gone);
    assert_int_equal(system(cmd), 0);
}

/* The current snapshot's summary value of key. */
static char *current_summary(const char *table_dir, const char *key)
{
    json_t *meta = current_metadata(table_dir);
    int64_t id = jint(meta, "current-snapshot-id");
    size_t i;
    json_t *snap;
    char *out = NULL;
    json_array_foreach (json_object_get(meta, "snapshots"), i, snap) {
        if (jint(snap, "snapshot-id") == id)
            out = strdup(jstr(json_object_get(snap, "summary"), key));
    }
    json_decref(meta);
    assert_non_null(out);
    return out;
}

static void expect_operation(const char *table_dir, const char *operation)
{
    char *op = current_summary(table_dir, "operation");
    if (strcmp(op, operation) != 0)
        fail_msg("%s: the current snapshot is a %s, expected %s", table_dir, op, operation);
    free(op);
}

/* Both tables (v3 and v2) read as rows.jsonl, deletes applied. */
static void verify_both(char urls[2][1024], const char *extra)
{
    verify_args(urls[0], 3, NULL, true, -1, extra);
    verify_args(urls[1], 2, NULL, true, -1, extra);
}

/* Windows that delete rows are exported: v3 as deletion vectors (one per
 * data file, merged with the one before), v2 as position delete files;
 * an independent reader applying them reads exactly the live rows (v2:
 * icebird; v3: the Puffin files decoded against the spec in the verifier,
 * icebird 0.3.1 having no deletion vectors), and every row keeps its
 * hoglake row id; the same to S3 (moto). Then compaction applies and drops the delete files,
 * expiry removes what nothing references any more, a bootstrap reads
 * files with deletion vectors, and --restart replaces the table. */
static void deletes(void **state)
{
    (void)state;
    create_catalog("del");
    create_messages("del.gw.messages");
    char dirs[2][512], urls[2][1024];
    for (int v = 0; v < 2; v++) {
        snprintf(dirs[v], sizeof dirs[v], "%s/iceberg-del-v%d", dir, 3 - v);
        snprintf(urls[v], sizeof urls[v], "file://%s", dirs[v]);
    }
    append_to("del.gw.messages", 0, 4);
    json_decref(export_ok("del.gw.messages", urls[0], "", "the first v3 export"));
    json_decref(export_ok("del.gw.messages", urls[1], "--format-version 2", "the first v2 export"));
    rows_upto(4);
    verify_both(urls, "--row-ids");
    /* The same windows go to S3 (moto) as v3 too. */
    char s3[512];
    const char *endpoint = moto_location("del", s3, sizeof s3);
    json_decref(export_ok("del.gw.messages", s3, "", "the first v3 export to S3"));

    /* A window that appends and deletes (also some of its own rows, which
     * it then never reports): an overwrite. */
    append_to("del.gw.messages", 4, 6);
    delete_rows("del.gw.messages", "session_id < 's050'");
    const char *gone = "\"session_id\":\"s0[0-4][0-9]\"";
    for (int v = 0; v < 2; v++) {
        json_t *r = export_ok("del.gw.messages", urls[v], "", "an export that deletes");
        assert_true(jint(r, "rows") > 0 && jint(r, "rows") < 2 * ROWS_PER_BATCH);
        assert_true(jint(r, "rows_deleted") > 0);
        assert_true(jint(r, "delete_files") > 0);
        json_decref(r);
        expect_operation(dirs[v], "overwrite");
    }
    rows_without(6, gone);
    verify_both(urls, "--row-ids --expect-deletes --rows-assigned 1500");
    json_t *r3 = export_ok("del.gw.messages", s3, "", "an export to S3 that deletes");
    assert_true(jint(r3, "rows_deleted") > 0 && jint(r3, "delete_files") > 0);
    json_decref(r3);
    verify_args(s3, 3, endpoint, true, -1, "--row-ids --expect-deletes --rows-assigned 1500");

    /* A window that only deletes, some rows from files that have a vector
     * already (v3: the new vector replaces it). */
    delete_rows("del.gw.messages", "cwd = '/work/3' OR session_id < 's100'");
    gone = "\"session_id\":\"s0[0-9][0-9]\"|\"cwd\":\"/work/3\"";
    for (int v = 0; v < 2; v++) {
        json_t *r = export_ok("del.gw.messages", urls[v], "", "an export that only deletes");
        assert_int_equal(jint(r, "rows"), 0);
        assert_true(jint(r, "rows_deleted") > 0);
        json_decref(r);
        expect_operation(dirs[v], "delete");
    }
    char *dvs = current_summary(dirs[0], "removed-dvs");
    assert_true(atoi(dvs) > 0); /* some vectors were replaced */
    free(dvs);
    rows_without(6, gone);
    verify_both(urls, "--row-ids --expect-deletes");
    r3 = export_ok("del.gw.messages", s3, "", "an export to S3 that only deletes");
    assert_int_equal(jint(r3, "rows"), 0);
    json_decref(r3);
    verify_args(s3, 3, endpoint, true, -1, "--row-ids --expect-deletes");

    /* A window in which the server compacts the table (files with
     * vectors among them) between two deletes: the export leaves the
     * compaction's output out and deletes the rows of both, those deleted
     * after the compaction found by their row ids in the files it
     * exported before. */
    delete_rows("del.gw.messages", "cwd = '/work/1'");
    struct cli_out co;
    cli_do(&co, "--json maintenance compact del");
    cli_out_expect(&co, 0, "the server's compaction");
    json_t *cr = jparse(co.out);
    assert_true(jint(cr, "groups_compacted") >= 1);
    json_decref(cr);
    cli_out_free(&co);
    delete_rows("del.gw.messages", "cwd = '/work/2'");
    for (int v = 0; v < 2; v++) {
        json_t *r = export_ok("del.gw.messages", urls[v], "", "an export over a compaction");
        assert_int_equal(jint(r, "rows"), 0);
        assert_true(jint(r, "rows_deleted") > 0);
        json_decref(r);
    }
    json_decref(export_ok("del.gw.messages", s3, "", "an export to S3 over a compaction"));
    gone = "\"session_id\":\"s0[0-9][0-9]\"|\"cwd\":\"/work/[123]\"";
    rows_without(6, gone);
    verify_both(urls, "--row-ids --expect-deletes");
    verify_args(s3, 3, endpoint, true, -1, "--row-ids --expect-deletes");

    /* Compaction applies the delete files and drops them. */
    for (int v = 0; v < 2; v++) {
        struct cli_out o;
        cli_do(&o, "export maintain del.gw.messages --to %s --compact --compact-file-count 2",
               urls[v]);
        cli_out_expect(&o, 0, "compaction");
        expect_contains(o.out, "compacted", "compaction");
        cli_out_free(&o);
        char *deletes_left = current_summary(dirs[v], "total-position-deletes");
        assert_string_equal(deletes_left, "0");
        free(deletes_left);
    }
    verify_both(urls, "--row-ids");

    /* Expiry: the delete files only expired snapshots referenced go too. */
    sleep_ms(1100);
    for (int v = 0; v < 2; v++) {
        json_t *r = expire_ok("del.gw.messages", urls[v],
                              "--expire-snapshots --older-than 1s --retain-last 1");
        assert_true(jint(r, "snapshots_expired") >= 3);
        json_decref(r);
        expect_no_unreferenced(dirs[v]);
    }
    verify_both(urls, "--row-ids");

    /* More deletes after the compaction, then a bootstrap over files with
     * deletion vectors (the floor moves to the head), and --restart. */
    delete_rows("del.gw.messages", "cwd = '/work/5'");
    for (int v = 0; v < 2; v++)
        json_decref(export_ok("del.gw.messages", urls[v], "", "an export after compaction"));
    gone = "\"session_id\":\"s0[0-9][0-9]\"|\"cwd\":\"/work/[1235]\"";
    rows_without(6, gone);
    verify_both(urls, "--row-ids --expect-deletes");
    expire_all("del", "off");
    char fresh[1024];
    snprintf(fresh, sizeof fresh, "file://%s/iceberg-del-fresh", dir);
    json_t *r = export_ok("del.gw.messages", fresh, "", "a bootstrap over deletion vectors");
    assert_true(json_is_true(json_object_get(r, "bootstrapped")));
    json_decref(r);
    verify_args(fresh, 3, NULL, true, -1, "--row-ids");
    for (int v = 0; v < 2; v++) {
        r = export_ok("del.gw.messages", urls[v], "--restart", "a restart after deletes");
        assert_true(json_is_true(json_object_get(r, "bootstrapped")));
        json_decref(r);
        expect_operation(dirs[v], "overwrite");
    }
    verify_both(urls, "--row-ids");
}

/* Files exported before they carried their rows' ids (a failpoint writes
 * them without _row_id bounds): a window that deletes from them fails with
 * a typed error naming --restart and writes nothing; --restart re-exports
 * the live rows, and deletes export after it. */
static void deletes_before_row_ids(void **state)
{
    (void)state;
    create_catalog("old");
    create_messages("old.gw.messages");
    char table_dir[512], url[1024];
    snprintf(table_dir, sizeof table_dir, "%s/iceberg-old", dir);
    snprintf(url, sizeof url, "file://%s", table_dir);
    append_to("old.gw.messages", 0, 2);
    setenv("HOGLAKE_FAILPOINTS", "iceberg-no-row-id-bounds", 1);
    json_decref(export_ok("old.gw.messages", url, "", "an export without row id bounds"));
    unsetenv("HOGLAKE_FAILPOINTS");
    delete_rows("old.gw.messages", "session_id < 's050'");
    int versions = count_versions(table_dir);
    int objects = (int)test_count_files(table_dir, "");
    struct cli_out o;
    cli_do(&o, "export iceberg old.gw.messages --to %s", url);
    assert_int_equal(o.code, 1);
    expect_contains(o.err, "iceberg_export_lacks_row_ids", "a delete from old files");
    expect_contains(o.err, "--restart", "a delete from old files");
    cli_out_free(&o);
    assert_int_equal(count_versions(table_dir), versions);
    assert_int_equal((int)test_count_files(table_dir, ""), objects);

    json_decref(export_ok("old.gw.messages", url, "--restart", "a restart"));
    rows_without(2, "\"session_id\":\"s0[0-4][0-9]\"");
    verify_args(url, 3, NULL, true, -1, "--row-ids");
    delete_rows("old.gw.messages", "cwd = '/work/1'");
    json_decref(export_ok("old.gw.messages", url, "", "deletes after the restart"));
    rows_without(2, "\"session_id\":\"s0[0-4][0-9]\"|\"cwd\":\"/work/1\"");
    verify_args(url, 3, NULL, true, -1, "--row-ids --expect-deletes");
}

/* `test_export_iceberg deletes` runs the delete tests alone (a ctest of
 * their own, run beside the rest); no argument, the others. */
int main(int argc, char **argv)
{
    const struct CMUnitTest delete_tests[] = {
        cmocka_unit_test(deletes),
        cmocka_unit_test(deletes_before_row_ids),
    };
    if (argc > 1 && strcmp(argv[1], "deletes") == 0) {
        stack_name = "export_iceberg_deletes";
        return cmocka_run_group_tests(delete_tests, setup, teardown);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(incremental_v3),
        cmocka_unit_test(version_2_and_s3),
        cmocka_unit_test(drift_is_refused),
        cmocka_unit_test(compaction),
        cmocka_unit_test(lookup_key),
        cmocka_unit_test(server_compaction),
        cmocka_unit_test(bootstrap_after_expiry),
        cmocka_unit_test(drop_not_null_after_export),
        cmocka_unit_test(quiet_table_advances),
        cmocka_unit_test(ownership),
        cmocka_unit_test(expire_snapshots),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
