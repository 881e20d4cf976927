/* `hoglake export iceberg` end to end, against a real hoglaked and
 * PostgreSQL: an "ai-gateway messages" table (thousands of conversations
 * over weeks, a ~1.5 KB payload, appended in many batches) exported to
 * file:// and to moto, as format versions 3 and 2, incrementally; icebird
 * 0.3.1 (tests/interop/verify_iceberg.mjs) reads every export back and
 * checks rows, day partitions, lookup-key order and bounds. Also: a run with
 * nothing new is a no-op, a crash between the Iceberg commit and the offset
 * commit never duplicates rows, a drifted partitioning is refused writing
 * nothing, and the spans record the layout. */
#include <dirent.h>
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
static struct test_server srv;
static PGconn *pg;
static char dir[256];

enum { BATCHES = 16, ROWS_PER_BATCH = 250, DAYS = 21 };

static void run(struct cli_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run(struct cli_out *o, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    cli_run(o, HOGLAKE_CLI_BIN, srv.base, dir, "%s", args);
}

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

static void append_batches_to(const char *table, int from, int to)
{
    for (int b = from; b < to; b++) {
        struct cli_out o;
        run(&o, "append ai.gw.%s batch-%02d.jsonl", table, b);
        cli_out_expect(&o, 0, "append");
        cli_out_free(&o);
    }
}

static void append_batches(int from, int to)
{
    append_batches_to("messages", from, to);
}

/* icebird reads the table at `url` and checks it against rows.jsonl. */
static void verify(const char *url, int version, const char *s3_endpoint, bool by_day)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' '%s/verify_iceberg.mjs' --table-url '%s' --rows rows.jsonl --key "
             "payload %s --sort-keys session_id,conversation_id,cwd,date --format-version %d "
             "%s%s > verify.out 2>&1",
             dir, HL_NODE, HL_INTEROP_DIR, url, by_day ? "--day-column message_created_at" : "",
             version, s3_endpoint ? "--s3-endpoint " : "", s3_endpoint ? s3_endpoint : "");
    if (system(cmd) != 0) {
        char out[600];
        snprintf(out, sizeof out, "cat '%s/verify.out'", dir);
        (void)system(out);
        fail_msg("icebird does not read %s as the source rows", url);
    }
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
    test_stack_up(&db, &srv, &pg, "export_iceberg", NULL, NULL);
    test_scratch_dir(dir, sizeof dir, "export");
    struct cli_out o;
    run(&o, "catalog create ai --data-path file://%s/warehouse", dir);
    cli_out_expect(&o, 0, "catalog create");
    cli_out_free(&o);
    run(&o, "namespace create ai.gw");
    cli_out_expect(&o, 0, "namespace create");
    cli_out_free(&o);
    run(&o, "table create ai.gw.messages --columns 'session_id:string!, conversation_id:string, "
            "cwd:string, date:string, message_created_at:timestamptz, payload:string' --sort-by "
            "'session_id, conversation_id, cwd, date' --primary-timestamp message_created_at");
    cli_out_expect(&o, 0, "table create");
    cli_out_free(&o);
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
    run(&o, "export iceberg ai.gw.messages --to %s --trace %s", url, spans);
    cli_out_expect(&o, 0, "the first export");
    assert_non_null(strstr(o.out, "created the Iceberg table with 2500 rows"));
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
    run(&o, "export iceberg ai.gw.messages --to %s", url);
    cli_out_expect(&o, 0, "a run with nothing new");
    assert_non_null(strstr(o.out, "nothing new"));
    cli_out_free(&o);
    assert_int_equal(count_versions(table_dir), 1);

    /* More batches: only they are exported. Another writer's commit lands
     * first (a failpoint): the export reloads and commits after it. */
    append_batches(10, BATCHES);
    setenv("HOGLAKE_FAILPOINTS", "iceberg-lost-race", 1);
    run(&o, "--json export iceberg ai.gw.messages --to %s", url);
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
    run(&o, "export iceberg ai.gw.messages --to %s", url);
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
    run(&o, "export iceberg ai.gw.messages --to %s --format-version 2", url);
    cli_out_expect(&o, 0, "a v2 export");
    cli_out_free(&o);
    rows_upto(BATCHES);
    verify(url, 2, NULL, true);

    const char *endpoint = getenv("HOGLAKE_TEST_MOTO_ENDPOINT");
    if (!endpoint)
        fail_msg("HOGLAKE_TEST_MOTO_ENDPOINT is not set: run the suite through scripts/test.sh");
    setenv("AWS_ENDPOINT_URL", endpoint, 1);
    setenv("AWS_ACCESS_KEY_ID", getenv("HOGLAKE_TEST_S3_ACCESS_KEY"), 1);
    setenv("AWS_SECRET_ACCESS_KEY", getenv("HOGLAKE_TEST_S3_SECRET_KEY"), 1);
    setenv("AWS_REGION", getenv("HOGLAKE_TEST_S3_REGION"), 1);
    snprintf(url, sizeof url, "s3://%s/export-%ld-%d/messages", getenv("HOGLAKE_TEST_S3_BUCKET"),
             (long)time(NULL), (int)getpid());
    run(&o, "export iceberg ai.gw.messages --to %s", url);
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
    run(&o, "table alter ai.gw.messages --primary-timestamp none");
    cli_out_expect(&o, 0, "clear the primary timestamp");
    cli_out_free(&o);
    write_batch(BATCHES);
    append_batches(BATCHES, BATCHES + 1);
    int before = count_versions(table_dir);
    run(&o, "export iceberg ai.gw.messages --to %s --trace %s", url, spans);
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
    run(&o, "export iceberg ai.gw.messages --to %s", flat);
    cli_out_expect(&o, 0, "an unpartitioned export");
    assert_non_null(strstr(o.out, "partitioned unpartitioned"));
    cli_out_free(&o);
    rows_upto(BATCHES + 1);
    verify(flat, 3, NULL, false);
    /* Declared again, the export goes on where it stopped. */
    run(&o, "table alter ai.gw.messages --primary-timestamp message_created_at");
    cli_out_expect(&o, 0, "declare it again");
    cli_out_free(&o);
    run(&o, "export iceberg ai.gw.messages --to %s", url);
    cli_out_expect(&o, 0, "the export after the drift");
    cli_out_free(&o);
    /* ... while the unpartitioned target now drifts the other way. */
    run(&o, "export iceberg ai.gw.messages --to %s", flat);
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

/* The data files of the table's current snapshot, as a DuckDB list
 * literal ['a', 'b']. */
static void current_files(const char *table_dir, struct buf *list)
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
    int64_t current = jint(meta, "current-snapshot-id");
    const char *list_uri = NULL;
    size_t i;
    json_t *snap;
    json_array_foreach (json_object_get(meta, "snapshots"), i, snap) {
        if (jint(snap, "snapshot-id") == current)
            list_uri = jstr(snap, "manifest-list");
    }
    assert_non_null(list_uri);
    char *data = slurp(list_uri + 7, &len);
    json_t *manifests;
    struct error ae;
    if (ice_manifest_list_read(data, len, &manifests, &ae) != 0)
        fail_msg("manifest list: %s", ae.msg);
    free(data);
    assert_int_equal(buf_putc(list, '['), 0);
    json_t *mf;
    json_array_foreach (manifests, i, mf) {
        char *m = slurp(jstr(mf, "manifest_path") + 7, &len);
        struct avro_reader *r;
        if (avro_reader_open(m, len, NULL, &r, &ae) != 0)
            fail_msg("manifest: %s", ae.msg);
        json_t *e;
        while (avro_reader_next(r, &e, &ae) == 1) {
            if (jint(e, "status") != 2)
                buf_printf(list, "%s'%s'", list->len > 1 ? ", " : "",
                           jstr(json_object_get(e, "data_file"), "file_path") + 7);
            json_decref(e);
        }
        avro_reader_free(r);
        free(m);
    }
    assert_int_equal(buf_putc(list, ']'), 0);
    json_decref(manifests);
    json_decref(meta);
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
    run(&o, "export maintain ai.gw.messages --to file://%s/iceberg/none --compact", dir);
    cli_out_expect(&o, 0, "no table");
    assert_non_null(strstr(o.out, "no-table"));
    cli_out_free(&o);
    run(&o, "export maintain ai.gw.messages --to %s --compact --compact-max-bytes 1", url);
    cli_out_expect(&o, 0, "above the byte cap");
    assert_non_null(strstr(o.out, "above-byte-cap"));
    cli_out_free(&o);
    /* A rewrite that dies while staging leaves nothing; one that loses the
     * commit race deletes what it staged and says so (exit 0). */
    int before = count_versions(table_dir);
    int data_files = count_files(table_dir);
    setenv("HOGLAKE_FAILPOINTS", "iceberg-die-mid-stage", 1);
    run(&o, "export maintain ai.gw.messages --to %s --compact", url);
    unsetenv("HOGLAKE_FAILPOINTS");
    assert_int_equal(o.code, 1);
    cli_out_free(&o);
    assert_int_equal(count_files(table_dir), data_files);
    assert_int_equal(count_versions(table_dir), before);
    setenv("HOGLAKE_FAILPOINTS", "iceberg-lost-race", 1);
    run(&o, "export maintain ai.gw.messages --to %s --compact", url);
    unsetenv("HOGLAKE_FAILPOINTS");
    cli_out_expect(&o, 0, "a lost race");
    assert_non_null(strstr(o.out, "conflict"));
    cli_out_free(&o);
    assert_int_equal(count_files(table_dir), data_files);
    assert_int_equal(count_versions(table_dir), ++before); /* the rival's */
    /* A failed commit whose outcome cannot be verified leaves the staged
     * files where they are, and says so. */
    setenv("HOGLAKE_FAILPOINTS", "iceberg-lost-race,iceberg-unverifiable", 1);
    run(&o, "export maintain ai.gw.messages --to %s --compact", url);
    unsetenv("HOGLAKE_FAILPOINTS");
    assert_int_equal(o.code, 1);
    assert_non_null(strstr(o.err, "left in place"));
    cli_out_free(&o);
    assert_true(count_files(table_dir) > data_files);
    assert_int_equal(count_versions(table_dir), ++before);
    run(&o, "--json export maintain ai.gw.messages --to %s --compact", url);
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
    run(&o, "export maintain ai.gw.messages --to %s --compact", url);
    cli_out_expect(&o, 0, "below the threshold");
    assert_non_null(strstr(o.out, "below-threshold"));
    cli_out_free(&o);
    assert_int_equal(count_versions(table_dir), before + 1);
}

/* Without a sort order the lookup key is the identity partition sources;
 * a changed sort order is not drift: the table's sort order moves. */
static void lookup_key(void **state)
{
    (void)state;
    struct cli_out o;
    run(&o, "table create ai.gw.byteam --columns 'session_id:string!, conversation_id:string, "
            "cwd:string, date:string, message_created_at:timestamptz, payload:string' "
            "--partition-by 'session_id' --primary-timestamp message_created_at");
    cli_out_expect(&o, 0, "table create");
    cli_out_free(&o);
    for (int b = 0; b < 3; b++) {
        run(&o, "append ai.gw.byteam batch-%02d.jsonl", b);
        cli_out_expect(&o, 0, "append");
        cli_out_free(&o);
    }
    char url[1024], table_dir[512];
    snprintf(table_dir, sizeof table_dir, "%s/iceberg/byteam", dir);
    snprintf(url, sizeof url, "file://%s", table_dir);
    run(&o, "--json export iceberg ai.gw.byteam --to %s", url);
    cli_out_expect(&o, 0, "export");
    json_t *r = jparse(o.out);
    assert_string_equal(jstr(r, "sort_order"), "session_id");
    json_decref(r);
    cli_out_free(&o);
    rows_upto(3);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' '%s/verify_iceberg.mjs' --table-url '%s' --rows rows.jsonl --key "
             "payload --day-column message_created_at --sort-keys session_id > verify.out 2>&1",
             dir, HL_NODE, HL_INTEROP_DIR, url);
    assert_int_equal(system(cmd), 0);

    run(&o, "table alter ai.gw.byteam --sort-by 'cwd'");
    cli_out_expect(&o, 0, "a new sort order");
    cli_out_free(&o);
    run(&o, "append ai.gw.byteam batch-03.jsonl");
    cli_out_expect(&o, 0, "append");
    cli_out_free(&o);
    run(&o, "--json export iceberg ai.gw.byteam --to %s", url);
    cli_out_expect(&o, 0, "an export after the sort order changed");
    r = jparse(o.out);
    assert_string_equal(jstr(r, "sort_order"), "cwd");
    json_decref(r);
    cli_out_free(&o);
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
    run(&o, "table create ai.gw.compacted --columns 'session_id:string!, conversation_id:string, "
            "cwd:string, date:string, message_created_at:timestamptz, payload:string' --sort-by "
            "'session_id, conversation_id, cwd, date' --primary-timestamp message_created_at");
    cli_out_expect(&o, 0, "table create");
    cli_out_free(&o);
    append_batches_to("compacted", 0, 5);
    char url[1024], fresh[1024];
    snprintf(url, sizeof url, "file://%s/iceberg/compacted", dir);
    snprintf(fresh, sizeof fresh, "file://%s/iceberg/compacted-fresh", dir);
    run(&o, "export iceberg ai.gw.compacted --to %s", url);
    cli_out_expect(&o, 0, "the first export");
    cli_out_free(&o);
    run(&o, "--json maintenance compact ai");
    cli_out_expect(&o, 0, "compact");
    json_t *r = jparse(o.out);
    assert_int_equal(jint(r, "groups_compacted"), 1);
    assert_int_equal(jint(r, "files_in"), 5);
    json_decref(r);
    cli_out_free(&o);
    append_batches_to("compacted", 5, 8);
    run(&o, "--json export iceberg ai.gw.compacted --to %s", url);
    cli_out_expect(&o, 0, "the export after the compaction");
    r = jparse(o.out);
    assert_int_equal(jint(r, "rows"), 3 * ROWS_PER_BATCH);
    json_decref(r);
    cli_out_free(&o);
    rows_upto(8);
    verify(url, 3, NULL, true);
    run(&o, "export iceberg ai.gw.compacted --to %s", fresh);
    cli_out_expect(&o, 0, "a fresh export");
    cli_out_free(&o);
    verify(fresh, 3, NULL, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(incremental_v3),   cmocka_unit_test(version_2_and_s3),
        cmocka_unit_test(drift_is_refused), cmocka_unit_test(compaction),
        cmocka_unit_test(lookup_key),       cmocka_unit_test(server_compaction),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
