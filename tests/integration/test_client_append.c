/* libhoglake's writer path end to end, against a real hoglaked and
 * PostgreSQL, with data in a local warehouse (file://), in moto (S3
 * semantics) and in s3rver (which checks every SigV4 signature):
 *   - appends cast Arrow input to the table by name, write one Parquet file
 *     per partition tuple, register them in one commit, and DuckDB reads
 *     back exactly the rows that went in;
 *   - prepared appends replay as no-ops, and a table recreated between
 *     prepare and commit is refused as recreated;
 *   - bad input (unknown columns, wrong types, missing required columns, a
 *     server that disappears mid-append) gets a clear error, leaves no
 *     catalog rows, and reports every object left in storage (a refused
 *     commit's objects are deleted: tests/integration/
 *     test_upload_claims_client.c);
 *   - the writer cache commits without a GET and recovers from a DDL
 *     refusal by re-reading once. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client_harness.h"
#include "fake_http.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "objstore/objstore.h"
#include "rows/rows_schema.h"
#include "textio/textio_parse.h"
#include "textio/textio_render.h"
#include "textio/textio_schema.h"
#include "util/arena.h"
#include "util/buf.h"

#ifndef HL_NODE
#error "HL_NODE and HL_INTEROP_DIR must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char warehouse[256];
static hl_client *file_client, *moto_client, *s3rver_client;
static const char *bucket;

static int setup(void **state)
{
    (void)state;
    test_need_env("HOGLAKE_TEST_MOTO_ENDPOINT");
    test_need_env("HOGLAKE_TEST_S3RVER_ENDPOINT");
    bucket = test_need_env("HOGLAKE_TEST_S3_BUCKET");
    test_stack_up(&db, &srv, &pg, "client_append", NULL, NULL);
    test_scratch_dir(warehouse, sizeof warehouse, "client-append");
    file_client = test_client_new(srv.base, NULL);
    moto_client = test_client_new(srv.base, getenv("HOGLAKE_TEST_MOTO_ENDPOINT"));
    s3rver_client = test_client_new(srv.base, getenv("HOGLAKE_TEST_S3RVER_ENDPOINT"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hl_client_free(file_client);
    hl_client_free(moto_client);
    hl_client_free(s3rver_client);
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(warehouse);
    return 0;
}

/* ---- handles ---- */

struct fixture {
    hl_client *client;
    hl_catalog *catalog;
    hl_namespace *ns;
    hl_table *table;
    char name[64];
};

static void fixture_free(struct fixture *f)
{
    hl_table_free(f->table);
    hl_namespace_free(f->ns);
    hl_catalog_free(f->catalog);
    memset(f, 0, sizeof *f);
}

static const char events_columns[] =
    "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
    "{\"name\":\"team_id\",\"type\":\"long\",\"nullable\":false},"
    "{\"name\":\"name\",\"type\":\"string\"},"
    "{\"name\":\"amount\",\"type\":\"decimal\",\"type_params\":{\"precision\":10,\"scale\":2}},"
    "{\"name\":\"ts\",\"type\":\"timestamp\"}]";

/* A catalog `name` with its data under the backend's location, a namespace
 * and the events table. */
static void fixture_up(struct fixture *f, hl_client *c, const char *name)
{
    memset(f, 0, sizeof *f);
    f->client = c;
    snprintf(f->name, sizeof f->name, "%s", name);
    char data_path[512];
    if (c == file_client)
        snprintf(data_path, sizeof data_path, "file://%s/%s", warehouse, name);
    else
        snprintf(data_path, sizeof data_path, "s3://%s/%s", bucket, name);
    struct hl_error err;
    test_check(hl_catalog_create(c, name, data_path, &f->catalog, &err), &err, "catalog create");
    test_check(hl_namespace_create(f->catalog, "ns1", &f->ns, &err), &err, "namespace create");
    test_check(hl_table_create(f->ns, "events", events_columns, NULL, &f->table, &err), &err,
               "table create");
}

/* ---- Arrow input ---- */

/* A stream over batches parsed from JSON Lines for a compact column spec
 * ("id:long!, name:string"): the shapes a caller's Arrow data can have. */
struct vec_stream {
    struct arena arena;
    struct lake_table table; /* the spec's columns: the batches' schema */
    struct ArrowArray *batches;
    size_t n, next;
    /* Called before handing out batch `next` (the mid-append failure). */
    void (*before)(size_t next);
    /* A column the spec names `hog_xy` is renamed `_hog_x` (specs refuse
     * reserved names; callers' Arrow data need not). */
    bool rename_reserved;
};

static int vs_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct vec_stream *v = s->private_data;
    if (rows_table_arrow_schema(&v->table, out) != 0)
        return ENOMEM;
    for (int64_t i = 0; v->rename_reserved && i < out->n_children; i++) {
        /* The same length: the name is rewritten in place. */
        if (strcmp(out->children[i]->name, "hog_xy") == 0)
            memcpy((char *)out->children[i]->name, "_hog_x", 6);
    }
    return 0;
}

static int vs_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct vec_stream *v = s->private_data;
    memset(out, 0, sizeof *out);
    if (v->next >= v->n)
        return 0;
    if (v->before)
        v->before(v->next);
    *out = v->batches[v->next];
    v->batches[v->next++].release = NULL;
    return 0;
}

static const char *vs_error(struct ArrowArrayStream *s)
{
    (void)s;
    return NULL;
}

static void vs_release(struct ArrowArrayStream *s)
{
    struct vec_stream *v = s->private_data;
    for (size_t i = 0; i < v->n; i++) {
        if (v->batches[i].release)
            v->batches[i].release(&v->batches[i]);
    }
    free(v->batches);
    lake_table_release(&v->table);
    arena_free(&v->arena);
    free(v);
    s->release = NULL;
}

/* Batches of spec-typed rows: each element of `jsonl` is one batch's JSON
 * Lines text. */
static void make_stream(struct ArrowArrayStream *s, const char *spec, const char *const *jsonl,
                        size_t nbatches)
{
    struct vec_stream *v = calloc(1, sizeof *v);
    assert_non_null(v);
    arena_init(&v->arena, 0);
    lake_table_init(&v->table, &v->arena);
    struct error e;
    if (textio_table_from_spec(spec, &v->table, &e) != 0)
        fail_msg("spec %s: %s", spec, e.msg);
    v->batches = calloc(nbatches ? nbatches : 1, sizeof *v->batches);
    assert_non_null(v->batches);
    for (size_t b = 0; b < nbatches; b++) {
        struct textio_parser *p;
        if (textio_parser_new(&v->table, &p, &e) != 0)
            fail_msg("parser: %s", e.msg);
        const char *line = jsonl[b];
        while (*line) {
            const char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line) : strlen(line);
            if (len && textio_parser_json_row(p, line, len, &e) != 0)
                fail_msg("row %.*s: %s", (int)len, line, e.msg);
            line += len + (end ? 1 : 0);
        }
        struct ArrowSchema bs;
        if (textio_parser_take(p, &bs, &v->batches[b], &e) != 0)
            fail_msg("take: %s", e.msg);
        bs.release(&bs);
        textio_parser_free(p);
        v->n++;
    }
    memset(s, 0, sizeof *s);
    s->get_schema = vs_schema;
    s->get_next = vs_next;
    s->get_last_error = vs_error;
    s->release = vs_release;
    s->private_data = v;
}

/* ---- checking what was written ---- */

/* The local path of an object: file:// as is, S3 objects fetched into the
 * warehouse directory (DuckDB reads local files). Caller frees. */
static char *local_copy(hl_client *c, const char *uri)
{
    if (strncmp(uri, "file://", 7) == 0)
        return strdup(uri + 7);
    struct objstore_config cfg = {.s3_endpoint = c == moto_client
                                                     ? getenv("HOGLAKE_TEST_MOTO_ENDPOINT")
                                                     : getenv("HOGLAKE_TEST_S3RVER_ENDPOINT"),
                                  .s3_region = getenv("HOGLAKE_TEST_S3_REGION"),
                                  .s3_access_key = getenv("HOGLAKE_TEST_S3_ACCESS_KEY"),
                                  .s3_secret_key = getenv("HOGLAKE_TEST_S3_SECRET_KEY")};
    struct objstore *store;
    struct hl_error err;
    if (objstore_open(&cfg, &store, &err) != 0)
        fail_msg("objstore_open: %s", err.message);
    struct buf b = BUF_INIT;
    if (objstore_get(store, uri, 0, UINT64_MAX, &b, &err) != 0)
        fail_msg("fetching %s: %s", uri, err.message);
    objstore_free(store);
    static int n;
    char path[512];
    snprintf(path, sizeof path, "%s/fetched-%d.parquet", warehouse, n++);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
    fclose(f);
    buf_free(&b);
    return strdup(path);
}

/* Runs a query in DuckDB; its rows as tab-separated lines. Caller frees. */
static char *duckdb(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *duckdb(const char *fmt, ...)
{
    char sql[8192], cmd[9000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    char qfile[512];
    snprintf(qfile, sizeof qfile, "%s/query.sql", warehouse);
    FILE *q = fopen(qfile, "w");
    assert_non_null(q);
    fputs(sql, q);
    fclose(q);
    snprintf(cmd, sizeof cmd, "%s %s/duckdb_query.mjs \"$(cat %s)\"", HL_NODE, HL_INTEROP_DIR,
             qfile);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    struct buf out = BUF_INIT;
    char chunk[4096];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, p)) > 0)
        assert_int_equal(buf_append(&out, chunk, k), 0);
    int rc = pclose(p);
    if (rc != 0)
        fail_msg("duckdb query failed (%d): %s", rc, sql);
    return out.data ? buf_take(&out) : strdup("");
}

static void expect_text(const char *got, const char *want, const char *what)
{
    if (strcmp(got, want) != 0)
        fail_msg("%s:\n--- got\n%s--- want\n%s", what, got, want);
}

static int64_t data_files(const char *catalog)
{
    return sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld",
                (long long)cat_id(catalog));
}

static bool exists_in_storage(hl_client *c, const char *uri)
{
    if (strncmp(uri, "file://", 7) == 0)
        return access(uri + 7, F_OK) == 0;
    char *p = local_copy(c, uri); /* fails the test when the object is missing */
    free(p);
    return true;
}

static const char *const five_rows[] = {
    "{\"id\":1,\"team_id\":7,\"name\":\"a\",\"amount\":\"12.34\",\"ts\":\"2026-01-15T10:00:00\"}\n"
    "{\"id\":2,\"team_id\":7,\"name\":null,\"amount\":null,\"ts\":\"2026-02-01T00:00:00\"}\n"
    "{\"id\":3,\"team_id\":8,\"name\":\"c\",\"amount\":\"-0.50\",\"ts\":null}\n",
    "{\"id\":4,\"team_id\":8,\"name\":\"d\",\"amount\":\"99999999.99\","
    "\"ts\":\"2026-03-31T23:59:59.5\"}\n"
    "{\"id\":5,\"team_id\":9,\"name\":\"\",\"amount\":\"0.00\",\"ts\":\"1969-12-31T23:00:00\"}\n",
};
static const char events_spec[] =
    "id:long!, team_id:long!, name:string, amount:decimal(10,2), ts:timestamp";
/* The same rows as DuckDB prints them. */
static const char five_rows_duckdb[] = "1\t7\ta\t12.34\t2026-01-15 10:00:00\n"
                                       "2\t7\t\\N\t\\N\t2026-02-01 00:00:00\n"
                                       "3\t8\tc\t-0.50\t\\N\n"
                                       "4\t8\td\t99999999.99\t2026-03-31 23:59:59.5\n"
                                       "5\t9\t\t0.00\t1969-12-31 23:00:00\n";

static void append_ok(hl_table *t, struct ArrowArrayStream *s, const struct hl_append_options *o,
                      struct hl_append_result **res)
{
    struct hl_error err;
    hl_status st = hl_table_append(t, s, o, res, &err);
    test_check(st, &err, "append");
    assert_true((*res)->snapshot_id > 0);
}

/* ---- tests ---- */

static void roundtrip(hl_client *c, const char *catalog)
{
    struct fixture f;
    fixture_up(&f, c, catalog);
    struct ArrowArrayStream s;
    make_stream(&s, events_spec, five_rows, 2);
    struct hl_append_options o;
    hl_append_options_init(&o);
    o.author = "tester";
    o.message = "five rows";
    struct hl_append_result *res;
    append_ok(f.table, &s, &o, &res);
    assert_int_equal(res->nfiles, 1);
    assert_int_equal(res->files[0].record_count, 5);
    assert_int_equal(res->nuploaded, 1);
    assert_string_equal(res->uploaded[0], res->files[0].path);
    assert_null(res->files[0].partition_values);
    /* <data_path>/data/<namespace>/<table>/<uuid>.parquet */
    char prefix[512];
    if (c == file_client)
        snprintf(prefix, sizeof prefix, "file://%s/%s/data/ns1/events/", warehouse, catalog);
    else
        snprintf(prefix, sizeof prefix, "s3://%s/%s/data/ns1/events/", bucket, catalog);
    assert_true(strncmp(res->files[0].path, prefix, strlen(prefix)) == 0);
    assert_int_equal(strlen(res->files[0].path), strlen(prefix) + 36 + 8);

    /* The handle reads its DDL snapshot (its creation) unless told
     * otherwise; a new handle reads the head. */
    char *files;
    struct hl_error err;
    test_check(hl_table_files(f.table, NULL, &files, &err), &err, "files at the DDL snapshot");
    assert_string_equal(files, "[]");
    free(files);
    hl_table *fresh;
    test_check(hl_table_open(f.ns, "events", &fresh, &err), &err, "open");
    assert_int_equal(hl_table_ddl_snapshot(fresh), -1);
    test_check(hl_table_files(fresh, NULL, &files, &err), &err, "files at the head");
    json_t *head_files = jparse(files);
    free(files);
    assert_int_equal(json_array_size(head_files), 1);
    json_decref(head_files);
    hl_table_free(fresh);

    /* The catalog holds the file with its statistics, at the snapshot. */
    struct hl_at at = {res->snapshot_id, NULL};
    test_check(hl_table_files(f.table, &at, &files, &err), &err, "files");
    json_t *fj = jparse(files);
    free(files);
    assert_int_equal(json_array_size(fj), 1);
    json_t *df = json_array_get(fj, 0);
    assert_string_equal(jstr(df, "path"), res->files[0].path);
    assert_int_equal(jint(df, "record_count"), 5);
    assert_int_equal(jint(df, "file_size_bytes"), res->files[0].file_size_bytes);
    assert_string_equal(jstr(df, "stats_state"), "provided");
    json_decref(fj);
    expect_sql("tester",
               "SELECT author FROM hog_snapshot WHERE catalog_id = %lld AND "
               "snapshot_id = %lld",
               (long long)cat_id(catalog), (long long)res->snapshot_id);

    /* DuckDB reads exactly the rows, with the catalog's field ids. */
    char *local = local_copy(c, res->files[0].path);
    char *rows =
        duckdb("SELECT id, team_id, name, amount, ts FROM read_parquet('%s') ORDER BY id", local);
    expect_text(rows, five_rows_duckdb, "DuckDB's rows");
    free(rows);
    char *ids = duckdb("SELECT name, field_id FROM parquet_schema('%s') WHERE field_id IS NOT "
                       "NULL ORDER BY field_id",
                       local);
    expect_text(ids, "id\t1\nteam_id\t2\nname\t3\namount\t4\nts\t5\n", "field ids");
    free(ids);
    free(local);

    /* Read back through the scan plan. */
    struct ArrowArrayStream scan;
    test_check(hl_table_scan(f.table, &at, &scan, &err), &err, "scan");
    struct ArrowSchema schema;
    assert_int_equal(scan.get_schema(&scan, &schema), 0);
    struct textio_render *r;
    struct error e;
    assert_int_equal(textio_render_new(&schema, TEXTIO_JSONL, &r, &e), 0);
    struct buf text = BUF_INIT;
    for (;;) {
        struct ArrowArray b;
        assert_int_equal(scan.get_next(&scan, &b), 0);
        if (!b.release)
            break;
        for (int64_t i = 0; i < b.length; i++)
            assert_int_equal(textio_render_row(r, &b, i, &text, &e), 0);
        b.release(&b);
    }
    scan.release(&scan);
    schema.release(&schema);
    textio_render_free(r);
    expect_text(text.data,
                "{\"id\":1,\"team_id\":7,\"name\":\"a\",\"amount\":\"12.34\","
                "\"ts\":\"2026-01-15T10:00:00.000000\"}\n"
                "{\"id\":2,\"team_id\":7,\"name\":null,\"amount\":null,"
                "\"ts\":\"2026-02-01T00:00:00.000000\"}\n"
                "{\"id\":3,\"team_id\":8,\"name\":\"c\",\"amount\":\"-0.50\",\"ts\":null}\n"
                "{\"id\":4,\"team_id\":8,\"name\":\"d\",\"amount\":\"99999999.99\","
                "\"ts\":\"2026-03-31T23:59:59.500000\"}\n"
                "{\"id\":5,\"team_id\":9,\"name\":\"\",\"amount\":\"0.00\","
                "\"ts\":\"1969-12-31T23:00:00.000000\"}\n",
                "scanned rows");
    buf_free(&text);
    hl_append_result_free(res);
    fixture_free(&f);
}

static void append_file(void **state)
{
    (void)state;
    roundtrip(file_client, "onfile");
}

static void append_moto(void **state)
{
    (void)state;
    roundtrip(moto_client, "onmoto");
}

static void append_s3rver(void **state)
{
    (void)state;
    roundtrip(s3rver_client, "ons3rver");
}

/* Columns match by name: reordered, narrower, absent nullable ones. */
static void casts_by_name(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "casts");
    static const char *const rows[] = {"{\"amount\":\"1.50\",\"team_id\":3,\"id\":10}\n{\"amount\":"
                                       "null,\"team_id\":4,\"id\":11}\n"};
    struct ArrowArrayStream s;
    make_stream(&s, "amount:decimal(10,2), team_id:int!, id:int!", rows, 1);
    struct hl_append_result *res;
    append_ok(f.table, &s, NULL, &res);
    char *local = local_copy(file_client, res->files[0].path);
    char *got = duckdb("SELECT id, team_id, name, amount, ts, typeof(id) FROM read_parquet('%s') "
                       "ORDER BY id",
                       local);
    expect_text(got, "10\t3\t\\N\t1.50\t\\N\tBIGINT\n11\t4\t\\N\t\\N\t\\N\tBIGINT\n", "cast rows");
    free(got);
    free(local);
    hl_append_result_free(res);
    fixture_free(&f);
}

/* The scan's status and error text once the plan's file has been set to
 * `size` bytes behind the catalog's back. */
static void expect_scan_error(hl_table *t, int64_t snapshot, const char *local, off_t size,
                              const char *needle)
{
    assert_int_equal(truncate(local, size), 0);
    struct ArrowArrayStream scan;
    struct hl_error err;
    struct hl_at at = {snapshot, NULL};
    test_check(hl_table_scan(t, &at, &scan, &err), &err, "scan");
    struct ArrowArray b;
    int rc = scan.get_next(&scan, &b);
    const char *why = scan.get_last_error(&scan);
    if (rc == 0 || !why || !strstr(why, needle))
        fail_msg("size %lld: got rc %d '%s', want an error with '%s'", (long long)size, rc,
                 why ? why : "", needle);
    scan.release(&scan);
}

/* A scan reads no more of a file than the catalog recorded: one that grew
 * (or shrank) since it was registered is refused, not buffered whole. */
static void scan_refuses_a_file_that_changed(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "resized");
    static const char *const rows[] = {"{\"id\":1,\"team_id\":2}\n"};
    struct ArrowArrayStream s;
    make_stream(&s, "id:long!, team_id:long!", rows, 1);
    struct hl_append_result *res;
    append_ok(f.table, &s, NULL, &res);
    const char *local = res->files[0].path + strlen("file://");
    struct stat st;
    assert_int_equal(stat(local, &st), 0);
    expect_scan_error(f.table, res->snapshot_id, local, st.st_size + (off_t)(64 << 20),
                      "holds more than");
    expect_scan_error(f.table, res->snapshot_id, local, st.st_size - 1, "were recorded");
    hl_append_result_free(res);
    fixture_free(&f);
}

/* A refusal before any upload: the status, a word of the message, nothing
 * uploaded and no catalog rows. */
static void expect_refused(struct fixture *f, const char *spec, const char *rows, hl_status want,
                           const char *needle)
{
    int64_t before = data_files(f->name);
    struct ArrowArrayStream s;
    const char *batches[] = {rows};
    make_stream(&s, spec, batches, 1);
    ((struct vec_stream *)s.private_data)->rename_reserved = true;
    struct hl_append_result *res = NULL;
    struct hl_error err;
    hl_status st = hl_table_append(f->table, &s, NULL, &res, &err);
    if (st != want || !strstr(err.message, needle))
        fail_msg("%s: got %s '%s', want %s with '%s'", spec, hl_status_name(st), err.message,
                 hl_status_name(want), needle);
    assert_non_null(res);
    assert_int_equal(res->nuploaded, 0);
    assert_int_equal(res->snapshot_id, -1);
    assert_int_equal(data_files(f->name), before);
    hl_append_result_free(res);
}

static void bad_input_changes_nothing(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "badinput");
    expect_refused(&f, "id:long!, team_id:long!, bogus:long",
                   "{\"id\":1,\"team_id\":1,\"bogus\":1}", HL_ERR_VALIDATION,
                   "'bogus' is not in the table");
    expect_refused(&f, "team_id:long!, name:string", "{\"team_id\":1,\"name\":\"x\"}",
                   HL_ERR_VALIDATION, "lacks column 'id', which is required");
    expect_refused(&f, "id:string!, team_id:long!", "{\"id\":\"x\",\"team_id\":1}",
                   HL_ERR_VALIDATION, "id");
    expect_refused(&f, "id:long!, team_id:long!, hog_xy:long", "{\"id\":1,\"team_id\":1}",
                   HL_ERR_VALIDATION, "_hog_x");
    /* An unknown table is found out before anything is written. */
    hl_table *t;
    struct hl_error err;
    assert_int_equal(hl_table_open(f.ns, "nope", &t, &err), HL_ERR_NOT_FOUND);
    fixture_free(&f);
}

static void set_spec(hl_table *t, const char *fields)
{
    char ops[512];
    snprintf(ops, sizeof ops, "[{\"op\":\"set_partition_spec\",\"fields\":%s}]", fields);
    struct hl_error err;
    test_check(hl_table_alter(t, ops, NULL, &err), &err, "set_partition_spec");
}

/* identity(team_id) x month(ts): 8 rows over 6 tuples. */
static const char *const fanout_rows[] = {
    "{\"id\":1,\"team_id\":101,\"ts\":\"2026-01-05T00:00:00\"}\n"
    "{\"id\":2,\"team_id\":102,\"ts\":\"2026-01-06T00:00:00\"}\n"
    "{\"id\":3,\"team_id\":101,\"ts\":\"2026-02-05T00:00:00\"}\n"
    "{\"id\":4,\"team_id\":101,\"ts\":\"2026-01-31T23:59:59\"}\n"
    "{\"id\":5,\"team_id\":102,\"ts\":\"2026-03-01T00:00:00\"}\n"
    "{\"id\":6,\"team_id\":101,\"ts\":\"2026-03-15T00:00:00\"}\n"
    "{\"id\":7,\"team_id\":102,\"ts\":null}\n"
    "{\"id\":8,\"team_id\":102,\"ts\":\"2026-03-02T00:00:00\"}\n"};

static void partitioned_fanout(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "fanout");
    set_spec(f.table, "[{\"source_field_id\":2,\"transform\":\"identity\"},"
                      "{\"source_field_id\":5,\"transform\":\"month\"}]");
    struct ArrowArrayStream s;
    make_stream(&s, "id:long!, team_id:long!, ts:timestamp", fanout_rows, 1);
    struct hl_append_result *res;
    append_ok(f.table, &s, NULL, &res);
    /* Files in order of first occurrence, each with its tuple. */
    static const struct {
        const char *team, *month;
        int64_t rows;
    } want[] = {{"101", "672", 2}, {"102", "672", 1}, {"101", "673", 1},
                {"102", "674", 2}, {"101", "674", 1}, {"102", NULL, 1}};
    assert_int_equal(res->nfiles, 6);
    for (size_t i = 0; i < 6; i++) {
        const struct hl_appended_file *af = &res->files[i];
        assert_int_equal(af->npartition_values, 2);
        assert_string_equal(af->partition_values[0], want[i].team);
        if (want[i].month)
            assert_string_equal(af->partition_values[1], want[i].month);
        else
            assert_null(af->partition_values[1]);
        assert_int_equal(af->record_count, want[i].rows);
        /* Each file holds only its tuple's rows. */
        char *local = local_copy(file_client, af->path);
        char *got = duckdb("SELECT count(*), count(DISTINCT team_id), min(team_id), "
                           "coalesce(min((year(ts) - 1970) * 12 + month(ts) - 1)::VARCHAR, "
                           "'null'), count(DISTINCT (year(ts) - 1970) * 12 + month(ts) - 1) "
                           "FROM read_parquet('%s')",
                           local);
        char line[200];
        snprintf(line, sizeof line, "%lld\t1\t%s\t%s\t%d\n", (long long)want[i].rows, want[i].team,
                 want[i].month ? want[i].month : "null", want[i].month ? 1 : 0);
        expect_text(got, line, "a partition's rows");
        free(got);
        free(local);
    }
    /* One commit: the snapshot registered all six. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld AND "
                          "begin_snapshot = %lld",
                          (long long)cat_id("fanout"), (long long)res->snapshot_id),
                     6);
    hl_append_result_free(res);

    /* No rows append nothing: no snapshot, no file, no upload. */
    int64_t head = sqli("SELECT last_snapshot_id FROM hog_catalog WHERE catalog_id = %lld",
                        (long long)cat_id("fanout"));
    static const char *const none[] = {""};
    make_stream(&s, "id:long!, team_id:long!, ts:timestamp", none, 1);
    struct hl_error err;
    assert_int_equal(hl_table_append(f.table, &s, NULL, &res, &err), HL_OK);
    assert_int_equal(res->snapshot_id, -1);
    assert_int_equal(res->nfiles, 0);
    assert_int_equal(res->nuploaded, 0);
    hl_append_result_free(res);
    assert_int_equal(sqli("SELECT last_snapshot_id FROM hog_catalog WHERE catalog_id = %lld",
                          (long long)cat_id("fanout")),
                     head);
    fixture_free(&f);
}

/* A batch of 20,000 rows into a partitioned table with a variant column
 * is encoded in chunks of 8,192 rows (rows_adapt_chunks): every row lands
 * in its partition's file with its own struct and Variant values, as
 * DuckDB reads them, and the encoding report counts every row. */
static void variant_batch_in_chunks(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "vchunks");
    hl_table *t;
    struct hl_error err;
    test_check(hl_table_create(f.ns, "ev",
                               "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"team\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"s\",\"type\":\"struct\",\"children\":"
                               "[{\"name\":\"a\",\"type\":\"long\"}]},"
                               "{\"name\":\"v\",\"type\":\"variant\"}]",
                               NULL, &t, &err),
               &err, "create");
    set_spec(t, "[{\"source_field_id\":2,\"transform\":\"identity\"}]");
    enum { ROWS = 20000 };
    struct buf rows = BUF_INIT;
    for (int i = 0; i < ROWS; i++)
        assert_int_equal(buf_printf(&rows,
                                    "{\"id\":%d,\"team\":%d,\"s\":{\"a\":%d},"
                                    "\"v\":\"{\\\"n\\\":%d,\\\"tag\\\":\\\"t%d\\\"}\"}\n",
                                    i, i % 3, i * 2, i, i % 7),
                         0);
    const char *batches[] = {rows.data};
    struct ArrowArrayStream in;
    make_stream(&in, "id:long!, team:long!, s:struct<a:long>, v:string", batches, 1);
    struct hl_append_result *res;
    append_ok(t, &in, NULL, &res);
    buf_free(&rows);
    assert_int_equal(res->nfiles, 3);
    int64_t total = 0;
    for (size_t i = 0; i < res->nfiles; i++) {
        total += res->files[i].record_count;
        char *local = local_copy(file_client, res->files[i].path);
        char *got =
            duckdb("SELECT count(DISTINCT team), count(*) FILTER (WHERE s.a = id * 2), "
                   "count(*) FILTER (WHERE json_extract_string(v::JSON, '$.n') = id::VARCHAR "
                   "AND json_extract_string(v::JSON, '$.tag') = 't' || (id %% 7)::VARCHAR "
                   "AND team = id %% 3) = "
                   "count(*) FROM read_parquet('%s')",
                   local);
        char want[64];
        snprintf(want, sizeof want, "1\t%lld\ttrue\n", (long long)res->files[i].record_count);
        expect_text(got, want, "a partition's rows");
        free(got);
        free(local);
    }
    assert_int_equal(total, ROWS);
    assert_int_equal(res->nvariant, 1);
    assert_int_equal(res->variant[0].rows, ROWS);
    assert_int_equal(res->variant[0].sql_null, 0);
    hl_append_result_free(res);
    hl_table_free(t);
    fixture_free(&f);
}

/* Files roll over past file_bytes; past memory_bytes the largest open file
 * is finished early; every row still lands, and a tuple may have several
 * files (encoded on several threads each). */
static void rollover_and_memory_budget(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "budget");
    struct ArrowArrayStream s;
    make_stream(&s, events_spec, five_rows, 2);
    struct hl_append_options o;
    hl_append_options_init(&o);
    o.file_bytes = 1; /* every row group ends its file */
    o.row_group_bytes = 1;
    struct hl_append_result *res;
    append_ok(f.table, &s, &o, &res);
    assert_int_equal(res->nfiles, 2);
    assert_int_equal(res->files[0].record_count + res->files[1].record_count, 5);
    hl_append_result_free(res);

    set_spec(f.table, "[{\"source_field_id\":2,\"transform\":\"identity\"},"
                      "{\"source_field_id\":5,\"transform\":\"month\"}]");
    const char *twice[] = {fanout_rows[0], fanout_rows[0]};
    make_stream(&s, "id:long!, team_id:long!, ts:timestamp", twice, 2);
    hl_append_options_init(&o);
    o.memory_bytes = 1;
    o.encode_threads = 3; /* six writers open at once, each with its workers */
    append_ok(f.table, &s, &o, &res);
    /* Six tuples; five of them finished after the first batch, and opened
     * again by the second. */
    assert_int_equal(res->nfiles, 11);
    int64_t rows = 0;
    for (size_t i = 0; i < res->nfiles; i++)
        rows += res->files[i].record_count;
    assert_int_equal(rows, 16);
    char *got = duckdb("SELECT count(*) FROM read_parquet('%s/budget/data/ns1/events/*.parquet')",
                       warehouse);
    expect_text(got, "21\n", "rows in every file");
    free(got);
    hl_append_result_free(res);

    /* More encoding threads than a writer takes. */
    make_stream(&s, "id:long!, team_id:long!, ts:timestamp", twice, 2);
    hl_append_options_init(&o);
    o.encode_threads = 65;
    struct hl_error err;
    assert_int_equal(hl_table_append(f.table, &s, &o, &res, &err), HL_ERR_VALIDATION);
    assert_non_null(strstr(err.message, "threads"));
    hl_append_result_free(res);
    fixture_free(&f);
}

/* A batch that fails after another was encoded: nothing becomes visible in
 * storage (the streamed upload is abandoned), nothing in the catalog. */
static void failure_mid_stream_leaves_nothing(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "midway");
    static const char *const rows[] = {"{\"id\":1,\"team_id\":1}\n",
                                       "{\"id\":2,\"team_id\":18446744073709551615}\n"};
    struct ArrowArrayStream s;
    make_stream(&s, "id:long!, team_id:uint64!", rows, 2);
    struct hl_append_result *res;
    struct hl_error err;
    assert_int_equal(hl_table_append(f.table, &s, NULL, &res, &err), HL_ERR_VALIDATION);
    assert_non_null(strstr(err.message, "team_id"));
    assert_int_equal(res->nuploaded, 0);
    hl_append_result_free(res);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/midway", warehouse);
    assert_int_equal(test_count_files(dir, ""), 0);
    assert_int_equal(data_files("midway"), 0);
    fixture_free(&f);
}

static void prepared_replay_and_recreate(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, moto_client, "prepared");
    struct ArrowArrayStream s;
    make_stream(&s, events_spec, five_rows, 2);
    const char *key = "3f0c4a52-9d3e-4d5b-8a0f-6f7d2b1c9e11";
    char *payload;
    struct hl_append_result *up;
    struct hl_error err;
    test_check(hl_table_prepare_append(f.table, &s, key, &payload, &up, &err), &err, "prepare");
    assert_int_equal(up->nuploaded, 1);
    char prefix[256];
    snprintf(prefix, sizeof prefix, "s3://%s/prepared/data/ns1/events/%s/", bucket, key);
    assert_true(strncmp(up->uploaded[0], prefix, strlen(prefix)) == 0);
    json_t *p = jparse(payload);
    assert_string_equal(jstr(p, "idempotency_key"), key);
    assert_true(json_is_integer(json_object_get(p, "read_snapshot")));
    json_t *entry = json_array_get(json_object_get(p, "appends"), 0);
    assert_int_equal(json_object_size(entry), 4); /* namespace, table, expected uuid, files */
    assert_string_equal(jstr(entry, "expected_table_uuid"), hl_table_uuid(f.table));
    json_decref(p);
    assert_int_equal(data_files("prepared"), 0);

    /* No rows: no payload (it would commit nothing) and no upload. */
    struct ArrowArrayStream empty;
    static const char *const none[] = {""};
    make_stream(&empty, events_spec, none, 1);
    char *no_payload = NULL;
    struct hl_append_result *no_up = NULL;
    assert_int_equal(hl_table_prepare_append(f.table, &empty,
                                             "0d4c7a8e-5b6f-4a3e-8d2c-1b0a9f8e7d6c", &no_payload,
                                             &no_up, &err),
                     HL_ERR_VALIDATION);
    expect_contains(err.message, "the input holds no rows", "an empty prepare's refusal");
    assert_null(no_payload);
    assert_int_equal(no_up->nuploaded, 0);
    hl_append_result_free(no_up);

    int64_t first, again;
    test_check(hl_catalog_commit_prepared(f.catalog, payload, &first, &err), &err, "commit");
    test_check(hl_table_commit_prepared(f.table, payload, &again, &err), &err, "replay");
    assert_int_equal(first, again);
    assert_int_equal(data_files("prepared"), 1);
    free(payload);
    hl_append_result_free(up);

    /* Dropped and recreated between prepare and commit: refused. */
    make_stream(&s, events_spec, five_rows, 1);
    const char *key2 = "7b1e9c3a-2f4d-4e6a-9b8c-0d1e2f3a4b5c";
    test_check(hl_table_prepare_append(f.table, &s, key2, &payload, &up, &err), &err, "prepare 2");
    hl_table *other, *fresh;
    test_check(hl_table_open(f.ns, "events", &other, &err), &err, "open");
    test_check(hl_table_drop(other, NULL, &err), &err, "drop");
    test_check(hl_table_create(f.ns, "events", events_columns, NULL, &fresh, &err), &err,
               "recreate");
    int64_t before = data_files("prepared");
    int64_t snap;
    assert_int_equal(hl_table_commit_prepared(f.table, payload, &snap, &err),
                     HL_ERR_TABLE_RECREATED);
    assert_true(err.re_prepare);
    assert_false(err.retryable);
    assert_int_equal(data_files("prepared"), before);
    assert_true(exists_in_storage(moto_client, up->uploaded[0]));
    free(payload);
    hl_append_result_free(up);
    hl_table_free(other);
    hl_table_free(fresh);
    fixture_free(&f);
}

static void prepare_existing_files(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "fromfiles");
    struct ArrowArrayStream s;
    make_stream(&s, events_spec, five_rows, 2);
    struct hl_append_result *res;
    append_ok(f.table, &s, NULL, &res);
    char *local = local_copy(file_client, res->files[0].path);

    /* The same bytes, prepared as another writer's file. */
    const char *key = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    const char *paths[] = {local};
    char *payload;
    struct hl_append_result *up;
    struct hl_error err;
    test_check(hl_table_prepare_files(f.table, paths, 1, NULL, key, NULL, &payload, &up, &err),
               &err, "prepare files");
    json_t *p = jparse(payload);
    json_t *reg = json_array_get(
        json_object_get(json_array_get(json_object_get(p, "appends"), 0), "files"), 0);
    assert_int_equal(jint(reg, "record_count"), 5);
    assert_int_equal(jint(reg, "file_size_bytes"), res->files[0].file_size_bytes);
    assert_int_equal(json_array_size(json_object_get(reg, "column_stats")), 5);
    json_decref(p);
    /* Uploaded byte for byte. */
    char *copy = local_copy(file_client, up->uploaded[0]);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", local, copy);
    assert_int_equal(system(cmd), 0);
    free(copy);
    int64_t snap;
    test_check(hl_table_commit_prepared(f.table, payload, &snap, &err), &err, "commit files");
    assert_int_equal(data_files("fromfiles"), 2);
    free(payload);
    hl_append_result_free(up);

    /* A table whose columns have other field ids refuses the file, before
     * any upload. */
    hl_table *other;
    test_check(hl_table_create(f.ns, "reordered",
                               "[{\"name\":\"team_id\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"name\",\"type\":\"string\"},"
                               "{\"name\":\"amount\",\"type\":\"decimal\",\"type_params\":"
                               "{\"precision\":10,\"scale\":2}},"
                               "{\"name\":\"ts\",\"type\":\"timestamp\"}]",
                               NULL, &other, &err),
               &err, "create reordered");
    const char *key2 = "1a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    assert_int_equal(hl_table_prepare_files(other, paths, 1, NULL, key2, NULL, &payload, &up, &err),
                     HL_ERR_VALIDATION);
    assert_non_null(strstr(err.message, "schema/field IDs"));
    assert_int_equal(up->nuploaded, 0);
    hl_append_result_free(up);
    /* A required column written OPTIONAL: refused, unless the caller
     * allows optional fields and the statistics prove it holds no nulls. */
    hl_table *opt, *req;
    test_check(hl_table_create(f.ns, "opt",
                               "[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"team_id\","
                               "\"type\":\"long\"}]",
                               NULL, &opt, &err),
               &err, "create opt");
    test_check(hl_table_create(f.ns, "req",
                               "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"team_id\",\"type\":\"long\",\"nullable\":false}]",
                               NULL, &req, &err),
               &err, "create req");
    static const char *const full[] = {"{\"id\":1,\"team_id\":2}\n"};
    static const char *const holes[] = {"{\"id\":1,\"team_id\":null}\n"};
    const char *const *inputs[] = {full, holes};
    for (int i = 0; i < 2; i++) {
        make_stream(&s, "id:long, team_id:long", inputs[i], 1);
        struct hl_append_result *written;
        append_ok(opt, &s, NULL, &written);
        char *optional = local_copy(file_client, written->files[0].path);
        const char *one[] = {optional};
        /* Refused unless the caller allows optional fields. */
        assert_int_equal(hl_table_prepare_files(req, one, 1, NULL, key2, NULL, &payload, &up, &err),
                         HL_ERR_VALIDATION);
        assert_non_null(strstr(err.message, "optional in the file (allow_optional_fields"));
        assert_int_equal(up->nuploaded, 0);
        hl_append_result_free(up);
        struct hl_prepare_options allow = {.allow_optional_fields = true};
        hl_status st = hl_table_prepare_files(req, one, 1, NULL, key2, &allow, &payload, &up, &err);
        if (i == 0) {
            test_check(st, &err, "prepare a proven-complete optional column");
            free(payload);
        } else {
            assert_int_equal(st, HL_ERR_VALIDATION);
            assert_non_null(strstr(err.message, "do not prove it holds no nulls"));
            assert_int_equal(up->nuploaded, 0);
        }
        hl_append_result_free(up);
        hl_append_result_free(written);
        free(optional);
    }
    hl_table_free(opt);
    hl_table_free(req);
    /* A bad key is refused before anything else. */
    assert_int_equal(
        hl_table_prepare_files(f.table, paths, 1, NULL, "not-a-uuid", NULL, &payload, &up, &err),
        HL_ERR_INVALID_ARGUMENT);
    hl_table_free(other);
    free(local);
    hl_append_result_free(res);
    fixture_free(&f);
}

/* Native VARIANT files from another writer (DuckDB) are published as they
 * are; Arrow appends to the table are refused, naming the column. */
static void prepare_native_variant(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "variants");
    hl_table *vt;
    struct hl_error err;
    test_check(hl_table_create(f.ns, "vt",
                               "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"v\",\"type\":\"variant\"}]",
                               NULL, &vt, &err),
               &err, "create vt");
    char good[512], wrong[512];
    snprintf(good, sizeof good, "%s/variant-good.parquet", warehouse);
    snprintf(wrong, sizeof wrong, "%s/variant-wrong.parquet", warehouse);
    const char *select = "SELECT 1::BIGINT AS id, '{\"a\":1,\"b\":\"x\"}'::JSON::VARIANT AS v "
                         "UNION ALL SELECT 2, NULL UNION ALL SELECT 3, '[1,2]'::JSON::VARIANT";
    free(duckdb("COPY (%s) TO '%s' (FORMAT parquet, FIELD_IDS {id: 1, v: 2})", select, good));
    free(duckdb("COPY (%s) TO '%s' (FORMAT parquet, FIELD_IDS {id: 1, v: 7})", select, wrong));

    const char *key = "5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    const char *paths[] = {good};
    char *payload;
    struct hl_append_result *up;
    /* DuckDB writes every column OPTIONAL, the required id too. */
    struct hl_prepare_options allow = {.allow_optional_fields = true};
    test_check(hl_table_prepare_files(vt, paths, 1, NULL, key, &allow, &payload, &up, &err), &err,
               "prepare a variant file");
    json_t *p = jparse(payload);
    json_t *reg = json_array_get(
        json_object_get(json_array_get(json_object_get(p, "appends"), 0), "files"), 0);
    json_t *stats = json_object_get(reg, "column_stats");
    assert_int_equal(json_array_size(stats), 1); /* id only: variants have no statistics */
    assert_int_equal(jint(json_array_get(stats, 0), "field_id"), 1);
    json_decref(p);
    char *copy = local_copy(file_client, up->uploaded[0]);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", good, copy);
    assert_int_equal(system(cmd), 0);
    free(copy);
    int64_t snap;
    test_check(hl_table_commit_prepared(vt, payload, &snap, &err), &err, "commit the variant file");
    free(payload);
    hl_append_result_free(up);

    paths[0] = wrong;
    const char *key2 = "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    assert_int_equal(hl_table_prepare_files(vt, paths, 1, NULL, key2, &allow, &payload, &up, &err),
                     HL_ERR_VALIDATION);
    assert_non_null(strstr(err.message, "column 'v'"));
    assert_int_equal(up->nuploaded, 0);
    hl_append_result_free(up);

    static const char *const rows[] = {"{\"id\":9}\n"};
    struct ArrowArrayStream s;
    make_stream(&s, "id:long!", rows, 1);
    /* Arrow rows that leave the variant out: it is NULL in them. */
    struct hl_append_result *res;
    test_check(hl_table_append(vt, &s, NULL, &res, &err), &err, "append without the variant");
    assert_int_equal(res->nuploaded, 1);
    hl_append_result_free(res);
    hl_table_free(vt);
    fixture_free(&f);
}

/* GETs of the table and catalog routes the server has answered. */
static int64_t metadata_gets(void)
{
    return test_route_requests(&srv, "GET", "/v1/catalogs/{catalog}") +
           test_route_requests(&srv, "GET",
                               "/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}");
}

static void writer_cache(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "cache");
    set_spec(f.table, "[{\"source_field_id\":2,\"transform\":\"identity\"}]");
    static const char *const rows[] = {"{\"id\":1,\"team_id\":5}\n{\"id\":2,\"team_id\":6}\n"};
    struct ArrowArrayStream s;
    struct hl_append_result *res;
    /* The alter's receipt seeded the cache: no GET before either commit. */
    int64_t gets = metadata_gets();
    for (int i = 0; i < 2; i++) {
        make_stream(&s, "id:long!, team_id:long!", rows, 1);
        append_ok(f.table, &s, NULL, &res);
        assert_int_equal(res->nfiles, 2);
        hl_append_result_free(res);
    }
    assert_int_equal(metadata_gets(), gets);

    /* Another writer changes the spec: the cached basis is refused (the
     * uploads removed, as the server definitely refused them), the cache
     * dropped, and the next append re-reads. */
    hl_table *other;
    struct hl_error err;
    test_check(hl_table_open(f.ns, "events", &other, &err), &err, "open");
    set_spec(other, "[{\"source_field_id\":2,\"transform\":\"bucket\",\"transform_param\":4}]");
    int64_t before = data_files("cache");
    make_stream(&s, "id:long!, team_id:long!", rows, 1);
    assert_int_equal(hl_table_append(f.table, &s, NULL, &res, &err), HL_ERR_DDL_SINCE_READ);
    assert_true(err.re_prepare);
    assert_int_equal(res->nuploaded, 0);
    assert_int_equal(res->nremoved, 2);
    assert_int_equal(res->nfiles, 2);
    for (size_t i = 0; i < res->nfiles; i++)
        assert_false(exists_in_storage(file_client, res->files[i].path));
    assert_int_equal(data_files("cache"), before);
    hl_append_result_free(res);
    gets = metadata_gets();
    make_stream(&s, "id:long!, team_id:long!", rows, 1);
    append_ok(f.table, &s, NULL, &res);
    assert_int_equal(metadata_gets(), gets + 2); /* the catalog, then the table */
    /* Bucketed now: teams 5 and 6 in their buckets. */
    assert_int_equal(res->files[0].npartition_values, 1);
    hl_append_result_free(res);

    /* The cache ages out at half the catalog's retention. */
    test_check(hl_catalog_set_retention(f.catalog, 2, -1, NULL, &err), &err, "retention");
    gets = metadata_gets();
    make_stream(&s, "id:long!, team_id:long!", rows, 1);
    append_ok(f.table, &s, NULL, &res);
    hl_append_result_free(res);
    assert_int_equal(metadata_gets(), gets); /* younger than a second */
    sleep_ms(1100);
    make_stream(&s, "id:long!, team_id:long!", rows, 1);
    append_ok(f.table, &s, NULL, &res);
    hl_append_result_free(res);
    assert_int_equal(metadata_gets(), gets + 2);
    hl_table_free(other);
    fixture_free(&f);
}

static void snapshots_offsets_resolve(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "logs");
    struct ArrowArrayStream s;
    struct hl_append_result *res;
    int64_t snaps[3];
    for (int i = 0; i < 3; i++) {
        make_stream(&s, events_spec, five_rows, 1);
        append_ok(f.table, &s, NULL, &res);
        snaps[i] = res->snapshot_id;
        hl_append_result_free(res);
        sleep_ms(20);
    }
    /* Pages of two, ascending and descending, see every snapshot once. */
    hl_snapshot_iter *it;
    struct hl_error err;
    struct hl_snapshot snap = {0};
    bool done;
    int64_t last = 0, n = 0;
    test_check(hl_snapshot_iter_new(f.catalog, 0, -1, 2, &it, &err), &err, "iter");
    for (;;) {
        test_check(hl_snapshot_iter_next(it, &snap, &done, &err), &err, "next");
        if (done)
            break;
        assert_true(snap.snapshot_id > last);
        last = snap.snapshot_id;
        n++;
    }
    hl_snapshot_iter_free(it);
    assert_int_equal(last, snaps[2]);
    assert_int_equal(n, snaps[2]); /* snapshots 1..head */
    test_check(hl_snapshot_iter_new(f.catalog, 0, snaps[2] + 1, 2, &it, &err), &err, "iter back");
    test_check(hl_snapshot_iter_next(it, &snap, &done, &err), &err, "next back");
    assert_int_equal(snap.snapshot_id, snaps[2]);
    hl_snapshot_iter_free(it);
    assert_int_equal(hl_snapshot_iter_new(f.catalog, 3, 5, 2, &it, &err), HL_ERR_INVALID_ARGUMENT);

    /* The instant of snapshot 2 resolves to it. */
    char at[40];
    snprintf(at, sizeof at, "%s", snap.snapshot_time);
    struct hl_snapshot got;
    test_check(hl_catalog_resolve_snapshot(f.catalog, at, &got, &err), &err, "resolve");
    assert_int_equal(got.snapshot_id, snaps[2]);
    hl_snapshot_clear(&got);
    hl_snapshot_clear(&snap);
    /* Before the catalog existed: not found, not expired. */
    assert_int_equal(hl_catalog_resolve_snapshot(f.catalog, "1970-01-01T00:00:00Z", &got, &err),
                     HL_ERR_NOT_FOUND);
    assert_string_equal(err.code, "before_catalog");

    /* Offsets: none, then committed, never backwards. */
    int64_t off;
    const char *uuid = hl_table_uuid(f.table);
    test_check(hl_catalog_offset(f.catalog, "exporter", uuid, &off, &err), &err, "offset");
    assert_int_equal(off, -1);
    test_check(hl_catalog_commit_offset(f.catalog, "exporter", uuid, snaps[1], &err), &err,
               "commit");
    test_check(hl_catalog_offset(f.catalog, "exporter", uuid, &off, &err), &err, "offset 2");
    assert_int_equal(off, snaps[1]);
    assert_int_equal(hl_catalog_commit_offset(f.catalog, "exporter", uuid, snaps[0], &err),
                     HL_ERR_CONFLICT);
    char *json;
    test_check(hl_catalog_offsets(f.catalog, "exporter", &json, &err), &err, "offsets");
    json_t *list = jparse(json);
    free(json);
    assert_int_equal(json_array_size(list), 1);
    json_decref(list);

    /* The rows the changefeed appended, as a stream. */
    static const int64_t windows[][3] = {{0, -1, 3}, {1, -1, 2}, {1, 2, 1}};
    for (size_t w = 0; w < 3; w++) {
        int64_t from = windows[w][0] == 0 ? 0 : snaps[windows[w][0] - 1];
        int64_t to = windows[w][1] < 0 ? -1 : snaps[windows[w][1] - 1];
        struct ArrowArrayStream rows;
        int64_t end;
        test_check(hl_table_scan_changes(f.table, from, to, &rows, &end, &err), &err,
                   "scan changes");
        assert_int_equal(end, to < 0 ? snaps[2] : to);
        int64_t seen = 0;
        for (;;) {
            struct ArrowArray b;
            assert_int_equal(rows.get_next(&rows, &b), 0);
            if (!b.release)
                break;
            seen += b.length;
            b.release(&b);
        }
        rows.release(&rows);
        assert_int_equal(seen, 3 * windows[w][2]); /* three rows an append */
    }

    /* The changefeed between the first and the last append. */
    test_check(hl_table_changes(f.table, snaps[0], -1, &json, &err), &err, "changes");
    json_t *plan = jparse(json);
    free(json);
    assert_int_equal(json_array_size(json_object_get(plan, "files")), 2);
    json_decref(plan);
    fixture_free(&f);
}

/* The server stops while the append is reading its input: the commit never
 * lands, the error says so, and the uploaded object is reported. */
static void stop_server_before(size_t next)
{
    if (next == 1)
        test_server_stop(&srv);
}

static void server_disappears(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "vanish");
    struct ArrowArrayStream s;
    make_stream(&s, events_spec, five_rows, 2);
    ((struct vec_stream *)s.private_data)->before = stop_server_before;
    struct hl_append_result *res;
    struct hl_error err;
    hl_status st = hl_table_append(f.table, &s, NULL, &res, &err);
    assert_int_equal(st, HL_ERR_IO);
    assert_int_equal(res->snapshot_id, -1);
    assert_int_equal(res->nuploaded, 1);
    assert_true(exists_in_storage(file_client, res->uploaded[0]));
    hl_append_result_free(res);
    fixture_free(&f);
    /* Back up: nothing of the append reached the catalog. */
    test_server_start(&srv, &db, NULL);
    assert_int_equal(data_files("vanish"), 0);
}

/* The primary timestamp column reaches library callers in the Table JSON
 * (the alter's receipt and hl_table_info, time travel included); the writer
 * cache seeded from that receipt takes it in its stride. */
static void primary_timestamp_in_table_json(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, file_client, "primaryts");
    struct hl_error err;
    char *json = NULL;
    test_check(hl_table_alter(f.table,
                              "[{\"op\":\"set_primary_timestamp_column\",\"column\":\"ts\"}]",
                              &json, &err),
               &err, "set_primary_timestamp_column");
    json_t *t = jparse(json);
    assert_string_equal(jstr(t, "primary_timestamp_column"), "ts");
    int64_t set_at = jint(t, "snapshot_id");
    json_decref(t);
    free(json);

    static const char *const rows[] = {"{\"id\":1,\"team_id\":5,\"ts\":\"2026-01-05T00:00:00\"}\n"};
    struct ArrowArrayStream s;
    struct hl_append_result *res;
    make_stream(&s, "id:long!, team_id:long!, ts:timestamp", rows, 1);
    append_ok(f.table, &s, NULL, &res);
    hl_append_result_free(res);

    test_check(hl_table_alter(f.table,
                              "[{\"op\":\"set_primary_timestamp_column\",\"column\":null}]", NULL,
                              &err),
               &err, "clear");
    test_check(hl_table_info(f.table, NULL, &json, &err), &err, "info");
    t = jparse(json);
    assert_null(json_object_get(t, "primary_timestamp_column"));
    assert_int_equal(jint(t, "record_count"), 1);
    json_decref(t);
    free(json);
    struct hl_at at = {.snapshot = set_at, .at_timestamp = NULL};
    test_check(hl_table_info(f.table, &at, &json, &err), &err, "info at");
    t = jparse(json);
    assert_string_equal(jstr(t, "primary_timestamp_column"), "ts");
    json_decref(t);
    free(json);
    fixture_free(&f);
}

/* ---- the library's diagnostics ---- */

static void always_500(void *ctx, size_t i, const struct fake_request *r, struct fake_answer *a)
{
    (void)ctx, (void)i, (void)r;
    a->status = 500;
    snprintf(a->body, sizeof a->body,
             "<Error><Code>InternalError</Code><Message>try later</Message></Error>");
}

struct captured {
    pthread_mutex_t mu;
    char text[4096];
    int lines;
};

static void capture(void *ctx, hl_log_level level, const char *message)
{
    struct captured *c = ctx;
    pthread_mutex_lock(&c->mu);
    size_t n = strlen(c->text);
    snprintf(c->text + n, sizeof c->text - n, "%d %s\n", (int)level, message);
    c->lines++;
    pthread_mutex_unlock(&c->mu);
}

/* Appends one row to a table whose storage answers 500 to everything,
 * through a client with these log settings; returns what reached stderr. */
static char *append_to_failing_store(const struct fake_http *f, hl_log_fn log, void *ctx,
                                     hl_log_level level)
{
    struct hl_client_options o = {.server_url = srv.base,
                                  .s3_endpoint = f->base,
                                  .s3_region = "us-east-1",
                                  .s3_access_key = "AKIDFAILING",
                                  .s3_secret_key = "SecretOfTheFailingStore",
                                  .storage_retries = 2,
                                  .token = test_token_for(srv.base),
                                  .log = log,
                                  .log_ctx = ctx,
                                  .log_level = level};
    hl_client *c;
    struct hl_error err;
    test_check(hl_client_new(&o, &c, &err), &err, "client");
    struct fixture fx;
    static int n;
    char name[32];
    snprintf(name, sizeof name, "quiet%d", n++);
    fixture_up(&fx, c, name);
    struct ArrowArrayStream s;
    const char *batches[] = {"{\"id\":1,\"team_id\":2}\n"};
    make_stream(&s, "id:long!, team_id:long!", batches, 1);
    char path[600];
    snprintf(path, sizeof path, "%s/stderr-%s.log", warehouse, name);
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    struct hl_append_result *res = NULL;
    hl_status st = hl_table_append(fx.table, &s, NULL, &res, &err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    assert_int_equal(st, HL_ERR_IO);
    hl_append_result_free(res);
    fixture_free(&fx);
    hl_client_free(c);
    return test_read_text(path);
}

/* A library speaks only when asked: storage retries go to the caller's log
 * callback, at the levels it asked for, redacted, and never to stderr. */
static void storage_warnings_go_to_the_callers_log(void **state)
{
    (void)state;
    struct fake_http f;
    fake_http_start(&f, always_500, NULL);
    struct captured cap = {.mu = PTHREAD_MUTEX_INITIALIZER};
    char *err_text = append_to_failing_store(&f, capture, &cap, 0);
    assert_string_equal(err_text, "");
    free(err_text);
    assert_int_equal(cap.lines, 2);
    assert_non_null(strstr(cap.text, "2 objstore: "));
    assert_non_null(strstr(cap.text, "retry 1 of 2"));
    assert_non_null(strstr(cap.text, "retry 2 of 2"));
    assert_null(strstr(cap.text, "SecretOfTheFailingStore"));
    /* Errors only: the warnings are not passed. */
    memset(cap.text, 0, sizeof cap.text);
    cap.lines = 0;
    err_text = append_to_failing_store(&f, capture, &cap, HL_LOG_ERROR);
    assert_int_equal(cap.lines, 0);
    assert_string_equal(err_text, "");
    free(err_text);
    /* No callback: silence. */
    err_text = append_to_failing_store(&f, NULL, NULL, 0);
    assert_string_equal(err_text, "");
    free(err_text);
    fake_http_stop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(append_file),
        cmocka_unit_test(append_moto),
        cmocka_unit_test(append_s3rver),
        cmocka_unit_test(casts_by_name),
        cmocka_unit_test(scan_refuses_a_file_that_changed),
        cmocka_unit_test(bad_input_changes_nothing),
        cmocka_unit_test(partitioned_fanout),
        cmocka_unit_test(variant_batch_in_chunks),
        cmocka_unit_test(rollover_and_memory_budget),
        cmocka_unit_test(failure_mid_stream_leaves_nothing),
        cmocka_unit_test(prepared_replay_and_recreate),
        cmocka_unit_test(prepare_existing_files),
        cmocka_unit_test(prepare_native_variant),
        cmocka_unit_test(writer_cache),
        cmocka_unit_test(primary_timestamp_in_table_json),
        cmocka_unit_test(snapshots_offsets_resolve),
        cmocka_unit_test(storage_warnings_go_to_the_callers_log),
        cmocka_unit_test(server_disappears),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
