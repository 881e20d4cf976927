/* Variant columns carry data end to end: JSON text in (the CLI's CSV and
 * JSON Lines, libhoglake's Arrow utf8 or Variant storage), Parquet VARIANT
 * groups written, read back as JSON by the CLI and as Arrow's
 * arrow.parquet.variant storage by libhoglake, and read by DuckDB from the
 * files we wrote. Bad input is refused with a typed code and commits
 * nothing, or becomes NULL when asked. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "client_harness.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "util/arrow.h"
#include "textio/textio_json.h"
#include "util/buf.h"
#include "variant/variant.h"

#ifndef HL_NODE
#error "HL_NODE, HL_INTEROP_DIR and HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static char dir[256];
static hl_client *client;

static void run_ok(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_ok(const char *what, const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, srv.base, dir, "%s", args);
    cli_out_expect(&o, 0, what);
    cli_out_free(&o);
}

static void expect_text_eq(const char *got, const char *want, const char *what)
{
    if (strcmp(got, want) != 0)
        fail_msg("%s:\n--- got\n%s--- want\n%s", what, got, want);
}

static int64_t data_files(void)
{
    return sqli("SELECT count(*) FROM hog_data_file");
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "variant_data", NULL, NULL);
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    test_scratch_dir(dir, sizeof dir, "variant-data");
    cli_session(HOGLAKE_CLI_BIN, srv.base, dir);
    client = test_client_new(srv.base, NULL);
    run_ok("catalog create", "catalog create local --data-path file://%s/wh", dir);
    run_ok("namespace create", "namespace create local.ns");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hl_client_free(client);
    test_stack_down(&db, &srv, &pg);
    test_remove_tree(dir);
    return 0;
}

/* The data file the table's latest append wrote, as a local path. */
static char *latest_file(const char *table)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT path FROM hog_data_file WHERE table_id = %lld ORDER BY data_file_id DESC "
             "LIMIT 1",
             (long long)table_id_of("local", "ns", table));
    PGresult *r = PQexec(pg, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    assert_int_equal(PQntuples(r), 1);
    const char *uri = PQgetvalue(r, 0, 0);
    assert_true(strncmp(uri, "file://", 7) == 0);
    char *path = strdup(uri + 7);
    PQclear(r);
    return path;
}

/* ---- JSON text in, JSON out, DuckDB agreeing ---- */

static const char events_jsonl[] =
    "{\"id\":1,\"props\":{\"b\":1,\"a\":\"x\",\"$browser\":\"Chrome\",\"price\":9.99,"
    "\"nested\":{\"z\":[1,2,{\"k\":null}],\"big\":123456789012345678901234567890}}}\n"
    "{\"id\":2,\"props\":null}\n"
    "{\"id\":3,\"props\":[]}\n"
    "{\"id\":4,\"props\":{\"\\u043a\\u043b\\u044e\\u0447\":\"\\u00fc\",\"e\\ud83d\\ude00\":true}}\n"
    "{\"id\":5,\"props\":-9223372036854775808}\n"
    "{\"id\":6,\"props\":\"0123456789012345678901234567890123456789012345678901234567890123\"}\n"
    "{\"id\":7}\n";

/* Our decoder's JSON: object keys in UTF-8 byte order, whatever the
 * input's. */
static const char events_read[] =
    "{\"id\":1,\"props\":{\"$browser\":\"Chrome\",\"a\":\"x\",\"b\":1,\"nested\":{\"big\":"
    "123456789012345678901234567890,\"z\":[1,2,{\"k\":null}]},\"price\":9.99}}\n"
    "{\"id\":2,\"props\":null}\n"
    "{\"id\":3,\"props\":[]}\n"
    "{\"id\":4,\"props\":{\"e\xf0\x9f\x98\x80\":true,\"\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87\":"
    "\"\xc3\xbc\"}}\n"
    "{\"id\":5,\"props\":-9223372036854775808}\n"
    "{\"id\":6,\"props\":\"0123456789012345678901234567890123456789012345678901234567890123\"}\n"
    "{\"id\":7,\"props\":null}\n";

static void jsonl_in_json_out(void **state)
{
    (void)state;
    run_ok("create", "table create local.ns.ev --columns 'id:long!, props:variant'");
    test_write_file(dir, "ev.jsonl", events_jsonl);
    run_ok("append", "append local.ns.ev ev.jsonl");

    struct cli_out o;
    cli_do(&o, "read local.ns.ev --format jsonl");
    cli_out_expect(&o, 0, "read");
    expect_text_eq(o.out, events_read, "the rows read back");
    cli_out_free(&o);

    /* The file holds a VARIANT(1) group of required binary metadata and
     * value, the table's field id on the group alone. */
    char *path = latest_file("ev");
    cli_do(&o, "parquet inspect '%s' --json", path);
    cli_out_expect(&o, 0, "inspect");
    expect_contains(o.out, "VARIANT", "the annotation");
    cli_out_free(&o);
    cli_do(&o, "parquet cat '%s'", path);
    cli_out_expect(&o, 0, "parquet cat");
    expect_text_eq(o.out, events_read, "parquet cat of our file");
    cli_out_free(&o);

    /* DuckDB reads the same values from our file. */
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT id, props IS NULL, props::JSON FROM read_parquet('%s') ORDER BY id", path);
    char *got = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    expect_text_eq(
        got,
        "1\tfalse\t{\"$browser\":\"Chrome\",\"a\":\"x\",\"b\":1,\"nested\":{\"big\":"
        "123456789012345678901234567890,\"z\":[1,2,{\"k\":null}]},\"price\":9.99}\n"
        "2\ttrue\tnull\n" /* DuckDB casts a NULL variant to JSON null */
        "3\tfalse\t[]\n"
        "4\tfalse\t{\"e\xf0\x9f\x98\x80\":true,\"\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87\":"
        "\"\xc3\xbc\"}\n"
        "5\tfalse\t-9223372036854775808\n"
        "6\tfalse\t\"0123456789012345678901234567890123456789012345678901234567890123\"\n"
        "7\ttrue\tnull\n",
        "DuckDB's reading of our file");
    free(got);
    snprintf(sql, sizeof sql,
             "SELECT name, repetition_type, logical_type FROM parquet_schema('%s') "
             "WHERE name IN ('props', 'metadata', 'value')",
             path);
    got = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    expect_contains(got, "metadata\tREQUIRED", "a required metadata");
    expect_contains(got, "value\tREQUIRED", "a required value");
    free(got);
    free(path);
}

/* Deletes and updates rewrite nothing of the variant they do not touch:
 * an update carries each row's value through its rewrite. */
static void mutations_keep_values(void **state)
{
    (void)state;
    run_ok("create", "table create local.ns.mut --columns 'id:long!, props:variant'");
    test_write_file(dir, "mut.jsonl", events_jsonl);
    run_ok("append", "append local.ns.mut mut.jsonl");
    run_ok("delete", "delete local.ns.mut --where 'id = 3'");
    run_ok("update", "update local.ns.mut --set 'id = id + 100' --where 'id >= 5'");
    struct cli_out o;
    cli_do(&o, "read local.ns.mut --format jsonl --where 'id >= 100'");
    cli_out_expect(&o, 0, "read");
    expect_text_eq(o.out,
                   "{\"id\":105,\"props\":-9223372036854775808}\n"
                   "{\"id\":106,\"props\":"
                   "\"0123456789012345678901234567890123456789012345678901234567890123\"}\n"
                   "{\"id\":107,\"props\":null}\n",
                   "the updated rows");
    cli_out_free(&o);
    cli_do(&o, "read local.ns.mut --format jsonl --where 'id < 100'");
    cli_out_expect(&o, 0, "read");
    expect_contains(o.out, "{\"id\":4,\"props\":{\"e\xf0\x9f\x98\x80\":true", "an untouched row");
    assert_null(strstr(o.out, "\"id\":3,"));
    cli_out_free(&o);
}

/* CSV cells are JSON text; an empty unquoted cell is NULL, the text null a
 * Variant null. */
static void csv_and_invalid_text(void **state)
{
    (void)state;
    run_ok("create", "table create local.ns.csvv --columns 'id:long!, v:variant'");
    test_write_file(dir, "ok.csv", "id,v\n1,\"{\"\"k\"\":[true,false]}\"\n2,\n3,null\n4,42\n");
    run_ok("append", "append local.ns.csvv ok.csv");
    struct cli_out o;
    cli_do(&o, "read local.ns.csvv --format csv");
    cli_out_expect(&o, 0, "read csv");
    expect_text_eq(o.out, "id,v\r\n1,\"{\"\"k\"\":[true,false]}\"\r\n2,\r\n3,null\r\n4,42\r\n",
                   "CSV round trip");
    cli_out_free(&o);

    /* Text that is not JSON fails the append with the codec's reason,
     * naming the column and row, and commits nothing. */
    int64_t before = data_files();
    test_write_file(dir, "bad.csv",
                    "id,v\n5,\"{\"\"a\"\":1}\"\n6,{oops\n7,\"{\"\"a\"\":1,\"\"a\"\":2}\"\n");
    cli_do(&o, "append local.ns.csvv bad.csv");
    assert_int_not_equal(o.code, 0);
    expect_contains(o.err, "invalid JSON", "the codec's words");
    expect_contains(o.err, "column 'v'", "the column");
    expect_contains(o.err, "row 1", "the row");
    cli_out_free(&o);
    assert_int_equal(data_files(), before);

    cli_do(&o, "append local.ns.csvv bad.csv --variant-on-invalid maybe");
    assert_int_equal(o.code, 2);
    cli_out_free(&o);

    /* --variant-on-invalid null: both bad rows (bad text, a key named
     * twice) become NULL, and the summary counts them. */
    cli_do(&o, "append local.ns.csvv bad.csv --variant-on-invalid null");
    cli_out_expect(&o, 0, "append, invalid as null");
    expect_contains(o.out, "2 rows of variant text that is not JSON written as NULL", "the count");
    cli_out_free(&o);
    cli_do(&o, "read local.ns.csvv --where 'id >= 5' --format jsonl");
    cli_out_expect(&o, 0, "read back");
    expect_text_eq(o.out,
                   "{\"id\":5,\"v\":{\"a\":1}}\n{\"id\":6,\"v\":null}\n{\"id\":7,\"v\":null}\n",
                   "the bad rows as NULL");
    cli_out_free(&o);
}

/* The Iceberg export writes a v3 table with a variant column: the schema
 * says "variant", the data files hold the values (DuckDB reads them back);
 * format version 2 has no variant type and is refused. */
static void iceberg_export(void **state)
{
    (void)state;
    struct cli_out o;
    cli_do(&o, "export iceberg local.ns.ev --to file://%s/ice2 --format-version 2", dir);
    assert_int_not_equal(o.code, 0);
    expect_contains(o.err, "export with format version 3", "the v2 refusal");
    cli_out_free(&o);
    run_ok("export", "export iceberg local.ns.ev --to file://%s/ice --format-version 3", dir);

    char cmd[800];
    snprintf(cmd, sizeof cmd, "cat $(ls %s/ice/metadata/*.metadata.json | sort | tail -1)", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char meta[65536];
    size_t n = fread(meta, 1, sizeof meta - 1, p);
    meta[n] = '\0';
    pclose(p);
    expect_contains(meta, "\"type\":\"variant\"", "the Iceberg schema's variant");
    expect_contains(meta, "\"format-version\":3", "format version 3");

    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT id, props IS NULL, props::JSON FROM read_parquet('%s/ice/data/**/*.parquet') "
             "ORDER BY id",
             dir);
    char *got = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    expect_contains(got, "1\tfalse\t{\"$browser\":\"Chrome\"", "the first row");
    expect_contains(got, "4\tfalse\t{\"e\xf0\x9f\x98\x80\":true", "the unicode keys");
    expect_contains(got, "7\ttrue\t", "the NULL row");
    free(got);
}

/* ---- files DuckDB wrote: shredded, read by any layout ---- */

/* DuckDB 1.5 shreds what it writes (typed_value groups per field and
 * element, optional groups, its own JSON typing). */
static const char duckdb_values[] =
    "(1, '{\"a\":1,\"b\":\"x\",\"t\":[1,2]}'), (2, '{\"a\":2,\"b\":\"y\",\"c\":{\"d\":true}}'), "
    "(3, '{\"a\":\"str\",\"b\":null}'), (4, '[1,\"two\",3.5,null,{\"k\":\"v\"}]'), "
    "(5, '\"plain\"'), (6, '{\"a\":-5,\"b\":\"z\",\"t\":[]}'), "
    "(7, '{\"\xd0\xba\":\"\xc3\xa9\",\"a\":7}')";

static const char duckdb_read[] = "{\"id\":1,\"v\":{\"a\":1,\"b\":\"x\",\"t\":[1,2]}}\n"
                                  "{\"id\":2,\"v\":{\"a\":2,\"b\":\"y\",\"c\":{\"d\":true}}}\n"
                                  "{\"id\":3,\"v\":{\"a\":\"str\",\"b\":null}}\n"
                                  "{\"id\":4,\"v\":[1,\"two\",3.5,null,{\"k\":\"v\"}]}\n"
                                  "{\"id\":5,\"v\":\"plain\"}\n"
                                  "{\"id\":6,\"v\":{\"a\":-5,\"b\":\"z\",\"t\":[]}}\n"
                                  "{\"id\":7,\"v\":{\"a\":7,\"\xd0\xba\":\"\xc3\xa9\"}}\n";

static void duckdb_shredded_files(void **state)
{
    (void)state;
    char path[600], sql[2048];
    snprintf(path, sizeof path, "%s/duck.parquet", dir);
    snprintf(sql, sizeof sql,
             "COPY (SELECT id::BIGINT AS id, j::JSON::VARIANT AS v FROM (VALUES %s) t(id, j) "
             "ORDER BY id) TO '%s' (FORMAT parquet)",
             duckdb_values, path);
    free(test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql));
    struct cli_out o;
    cli_do(&o, "parquet inspect duck.parquet");
    cli_out_expect(&o, 0, "inspect");
    expect_contains(o.out, "typed_value", "DuckDB shredded the column");
    cli_out_free(&o);

    /* Read as it lies, and DuckDB's own reading agrees value for value. */
    cli_do(&o, "parquet cat duck.parquet");
    cli_out_expect(&o, 0, "parquet cat");
    expect_text_eq(o.out, duckdb_read, "the shredded file unshredded");
    cli_out_free(&o);
    snprintf(sql, sizeof sql, "SELECT id, v::JSON FROM read_parquet('%s') ORDER BY id", path);
    char *theirs = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    expect_text_eq(
        theirs,
        "1\t{\"a\":1,\"b\":\"x\",\"t\":[1,2]}\n2\t{\"a\":2,\"b\":\"y\",\"c\":{\"d\":true}}\n"
        "3\t{\"a\":\"str\",\"b\":null}\n4\t[1,\"two\",3.5,null,{\"k\":\"v\"}]\n"
        "5\t\"plain\"\n6\t{\"a\":-5,\"b\":\"z\",\"t\":[]}\n"
        "7\t{\"a\":7,\"\xd0\xba\":\"\xc3\xa9\"}\n",
        "DuckDB's reading of its file");
    free(theirs);

    /* Appended to a table: unshredded on the way in, written as ours. */
    run_ok("create", "table create local.ns.duck --columns 'id:long!, v:variant'");
    run_ok("append", "append local.ns.duck duck.parquet");
    cli_do(&o, "read local.ns.duck --format jsonl");
    cli_out_expect(&o, 0, "read");
    expect_text_eq(o.out, duckdb_read, "the table's rows");
    cli_out_free(&o);

    /* DuckDB 1.5's 64-byte string (an empty short string, then the bytes)
     * is refused, not read as "". */
    snprintf(
        sql, sizeof sql,
        "COPY (SELECT id::BIGINT AS id, j::JSON::VARIANT AS v FROM (VALUES (1, '{\"a\":1}'), "
        "(2, '[\"0123456789012345678901234567890123456789012345678901234567890123\"]')) t(id, j)) "
        "TO '%s/duck64.parquet' (FORMAT parquet)",
        dir);
    free(test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql));
    cli_do(&o, "parquet cat duck64.parquet");
    assert_int_equal(o.code, 1);
    expect_contains(o.err, "does not end where the next one begins", "the misencoding named");
    cli_out_free(&o);
    int64_t before = data_files();
    cli_do(&o, "append local.ns.duck duck64.parquet");
    assert_int_not_equal(o.code, 0);
    expect_contains(o.err, "row 1", "the row");
    cli_out_free(&o);
    assert_int_equal(data_files(), before);
}

/* ---- libhoglake ---- */

struct fixture {
    hl_catalog *catalog;
    hl_namespace *ns;
};

static void fixture_up(struct fixture *f)
{
    struct hl_error err;
    test_check(hl_catalog_open(client, "local", &f->catalog, &err), &err, "catalog");
    test_check(hl_namespace_open(f->catalog, "ns", &f->ns, &err), &err, "namespace");
}

static void fixture_down(struct fixture *f)
{
    hl_namespace_free(f->ns);
    hl_catalog_free(f->catalog);
}

static hl_table *create(struct fixture *f, const char *name, const char *columns)
{
    hl_table *t;
    struct hl_error err;
    test_check(hl_table_create(f->ns, name, columns, NULL, &t, &err), &err, "create");
    return t;
}

/* A stream of one batch whose schema and array are moved in. */
struct one {
    struct ArrowSchema schema;
    struct ArrowArray batch;
};

static int one_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct one *o = s->private_data;
    if (!o->schema.release)
        return EINVAL;
    arrow_schema_move(&o->schema, out);
    return 0;
}

static int one_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct one *o = s->private_data;
    if (o->batch.release)
        arrow_array_move(&o->batch, out);
    else
        out->release = NULL;
    return 0;
}

static const char *one_error(struct ArrowArrayStream *s)
{
    (void)s;
    return NULL;
}

static void one_release(struct ArrowArrayStream *s)
{
    struct one *o = s->private_data;
    if (o->schema.release)
        o->schema.release(&o->schema);
    if (o->batch.release)
        o->batch.release(&o->batch);
    free(o);
    s->release = NULL;
}

static void one_stream(struct ArrowSchema *schema, struct ArrowArray *batch,
                       struct ArrowArrayStream *out)
{
    struct one *o = calloc(1, sizeof *o);
    assert_non_null(o);
    arrow_schema_move(schema, &o->schema);
    arrow_array_move(batch, &o->batch);
    *out = (struct ArrowArrayStream){.get_schema = one_schema,
                                     .get_next = one_next,
                                     .get_last_error = one_error,
                                     .release = one_release,
                                     .private_data = o};
}

/* The whole table at its head read as one batch (the first the stream
 * gives), through a fresh handle (a handle reads as of its opening). */
static void scan_one(struct fixture *f, hl_table *handle, bool as_json, struct ArrowSchema *schema,
                     struct ArrowArray *batch)
{
    hl_table *t;
    struct hl_error err;
    test_check(hl_table_open(f->ns, hl_table_name(handle), &t, &err), &err, "reopen");
    struct hl_scan_options o;
    hl_scan_options_init(&o);
    o.variant_as_json = as_json;
    struct ArrowArrayStream s;
    test_check(hl_table_scan_with(t, NULL, &o, &s, &err), &err, "scan");
    assert_int_equal(s.get_schema(&s, schema), 0);
    assert_int_equal(s.get_next(&s, batch), 0);
    assert_non_null(batch->release);
    s.release(&s);
    hl_table_free(t);
}

static void bytes_at(const struct ArrowArray *a, int64_t i, const uint8_t **p, size_t *n)
{
    const int32_t *off = a->buffers[1];
    *p = (const uint8_t *)a->buffers[2] + off[a->offset + i];
    *n = (size_t)(off[a->offset + i + 1] - off[a->offset + i]);
}

/* Row i of a storage struct as JSON (our decoder), "SQL NULL" for a null. */
static char *row_json(const struct ArrowArray *v, int64_t i)
{
    const uint8_t *valid = v->buffers[0];
    if (valid && !arrow_bit(valid, v->offset + i))
        return strdup("SQL NULL");
    const uint8_t *m, *b;
    size_t mn, bn;
    bytes_at(v->children[0], v->offset + i, &m, &mn);
    bytes_at(v->children[1], v->offset + i, &b, &bn);
    struct buf out = BUF_INIT;
    struct error e;
    if (variant_to_json(m, mn, b, bn, &out, &e) != 0)
        fail_msg("row %lld does not decode: %s", (long long)i, e.msg);
    buf_putc(&out, '\0');
    return buf_take(&out);
}

static void expect_row(const struct ArrowArray *v, int64_t i, const char *want)
{
    char *got = row_json(v, i);
    expect_text_eq(got, want, "a row's value");
    free(got);
}

/* Appends rows of (id, v as JSON text) given as JSON Lines, which it frees. */
static void append_jsonl(hl_table *t, struct buf *jsonl)
{
    buf_putc(jsonl, '\0');
    struct ArrowArrayStream in;
    test_rows_stream("id:long!, v:string", jsonl->data, &in);
    buf_free(jsonl);
    test_append(t, &in, 0);
}

/* JSON text as Arrow utf8 in; the canonical storage struct out, or JSON
 * text when asked. */
static void library_round_trip(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f);
    hl_table *t = create(&f, "lib",
                         "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                         "{\"name\":\"v\",\"type\":\"variant\"}]");
    /* The input's v is plain utf8 holding JSON text. */
    struct ArrowArrayStream in;
    test_rows_stream("id:long!, v:string",
                     "{\"id\":1,\"v\":\"{\\\"b\\\":[1,2.5,\\\"s\\\"],\\\"a\\\":null}\"}\n"
                     "{\"id\":2}\n"
                     "{\"id\":3,\"v\":\"null\"}\n",
                     &in);
    test_append(t, &in, 0);

    struct ArrowSchema schema;
    struct ArrowArray batch;
    scan_one(&f, t, false, &schema, &batch);
    const struct ArrowSchema *vs = schema.children[1];
    assert_string_equal(vs->format, "+s");
    char ext[64];
    assert_true(arrow_metadata_get(vs->metadata, "ARROW:extension:name", ext, sizeof ext));
    assert_string_equal(ext, "arrow.parquet.variant");
    assert_string_equal(vs->children[0]->name, "metadata");
    assert_string_equal(vs->children[1]->name, "value");
    assert_int_equal(batch.length, 3);
    expect_row(batch.children[1], 0, "{\"a\":null,\"b\":[1,2.5,\"s\"]}");
    expect_row(batch.children[1], 1, "SQL NULL");
    expect_row(batch.children[1], 2, "null"); /* a Variant null, not SQL NULL */

    /* The storage struct goes back in as it came out: a second table gets
     * the same bytes. */
    hl_table *copy = create(&f, "lib_copy",
                            "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                            "{\"name\":\"v\",\"type\":\"variant\"}]");
    struct ArrowArrayStream again;
    one_stream(&schema, &batch, &again);
    test_append(copy, &again, 0);
    scan_one(&f, copy, true, &schema, &batch);
    assert_string_equal(schema.children[1]->format, "u");
    assert_true(
        arrow_metadata_get(schema.children[1]->metadata, "ARROW:extension:name", ext, sizeof ext));
    assert_string_equal(ext, "arrow.json");
    const uint8_t *p;
    size_t n;
    bytes_at(batch.children[1], 0, &p, &n);
    assert_int_equal(n, strlen("{\"a\":null,\"b\":[1,2.5,\"s\"]}"));
    assert_memory_equal(p, "{\"a\":null,\"b\":[1,2.5,\"s\"]}", n);
    assert_false(arrow_bit(batch.children[1]->buffers[0], 1));
    schema.release(&schema);
    batch.release(&batch);
    hl_table_free(copy);
    hl_table_free(t);
    fixture_down(&f);
}

/* Corrupt Variant bytes, text that is not JSON and a declared (shredded)
 * layout are refused with typed codes, and nothing is committed. */
static void library_refusals(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f);
    const char *cols = "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                       "{\"name\":\"v\",\"type\":\"variant\"}]";
    hl_table *src = create(&f, "ref_src", cols);
    struct ArrowArrayStream in;
    test_rows_stream("id:long!, v:string",
                     "{\"id\":1,\"v\":\"[1,2,3]\"}\n{\"id\":2,\"v\":\"{\\\"k\\\":\\\"v\\\"}\"}\n",
                     &in);
    test_append(src, &in, 0);
    hl_table *dst = create(&f, "ref_dst", cols);
    int64_t before = data_files();

    /* Row 1's value claims a field id past its dictionary. */
    struct ArrowSchema schema;
    struct ArrowArray batch;
    scan_one(&f, src, false, &schema, &batch);
    const uint8_t *p;
    size_t n;
    bytes_at(batch.children[1]->children[1], 1, &p, &n);
    assert_true(n >= 3);
    ((uint8_t *)p)[2] = 0x7f; /* the object's first field id */
    struct ArrowArrayStream bad;
    one_stream(&schema, &batch, &bad);
    struct hl_error err;
    struct hl_append_result *res = NULL;
    assert_int_equal(hl_table_append(dst, &bad, NULL, &res, &err), HL_ERR_VALIDATION);
    assert_string_equal(err.code, "variant_encoding");
    expect_contains(err.message, "row 1", "the row");
    hl_append_result_free(res);

    /* Text that is not JSON; then the same as NULL. */
    const char *rows = "{\"id\":1,\"v\":\"[1,\"}\n{\"id\":2,\"v\":\"{}\"}\n";
    test_rows_stream("id:long!, v:string", rows, &in);
    res = NULL;
    assert_int_equal(hl_table_append(dst, &in, NULL, &res, &err), HL_ERR_VALIDATION);
    assert_string_equal(err.code, "invalid_json");
    hl_append_result_free(res);
    assert_int_equal(data_files(), before);

    struct hl_append_options o;
    hl_append_options_init(&o);
    o.variant_on_invalid = HL_VARIANT_INVALID_NULL;
    test_rows_stream("id:long!, v:string", rows, &in);
    res = NULL;
    test_check(hl_table_append(dst, &in, &o, &res, &err), &err, "append, invalid as null");
    assert_int_equal(res->variant_invalid_rows, 1);
    hl_append_result_free(res);
    scan_one(&f, dst, false, &schema, &batch);
    expect_row(batch.children[1], 0, "SQL NULL");
    expect_row(batch.children[1], 1, "{}");
    schema.release(&schema);
    batch.release(&batch);

    /* A NOT NULL variant column takes no NULL, invalid text or not. */
    hl_table *req = create(&f, "ref_req",
                           "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                           "{\"name\":\"v\",\"type\":\"variant\",\"nullable\":false}]");
    test_rows_stream("id:long!, v:string", rows, &in);
    res = NULL;
    assert_int_equal(hl_table_append(req, &in, &o, &res, &err), HL_ERR_VALIDATION);
    hl_append_result_free(res);

    hl_table_free(req);
    hl_table_free(dst);
    hl_table_free(src);
    fixture_down(&f);
}

/* hl_variant_verify on a scan's storage: the writer's values pass, as
 * the unshredded form or with no form; a declaration they are not a form
 * of, a SQL NULL under not_null, a dictionary no longer flagged sorted
 * (canonical only), a bad declaration and a struct that is no storage are
 * refused with their codes. */
static void library_verify(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f);
    hl_table *t = create(&f, "verified",
                         "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                         "{\"name\":\"v\",\"type\":\"variant\"}]");
    struct ArrowArrayStream in;
    test_rows_stream("id:long!, v:string",
                     "{\"id\":1,\"v\":\"{\\\"b\\\":[1,\\\"x\\\"],\\\"a\\\":2.5}\"}\n"
                     "{\"id\":2,\"v\":null}\n",
                     &in);
    test_append(t, &in, 0);
    struct ArrowSchema schema;
    struct ArrowArray batch;
    scan_one(&f, t, false, &schema, &batch);
    const struct ArrowSchema *vs = schema.children[1];
    const struct ArrowArray *va = batch.children[1];
    struct hl_error err;
    test_check(hl_variant_verify(vs, va, NULL, NULL, &err), &err, "verify, no form");
    test_check(hl_variant_verify(vs, va, "null", NULL, &err), &err, "verify, unshredded form");
    assert_int_equal(hl_variant_verify(vs, va,
                                       "{\"type\":\"object\",\"fields\":"
                                       "[{\"name\":\"a\",\"type\":\"double\"}]}",
                                       NULL, &err),
                     HL_ERR_VALIDATION);
    assert_string_equal(err.code, "invalid_shredding");
    struct hl_variant_verify_options o = {.not_null = true};
    assert_int_equal(hl_variant_verify(vs, va, NULL, &o, &err), HL_ERR_VALIDATION);
    assert_string_equal(err.code, "not_null");
    expect_contains(err.message, "row 1", "the row");
    assert_int_equal(hl_variant_verify(vs, va, "{\"type\":\"object\"}", NULL, &err),
                     HL_ERR_VALIDATION);
    assert_string_equal(err.code, "validation");
    assert_int_equal(hl_variant_verify(&schema, &batch, NULL, NULL, &err), HL_ERR_INVALID_ARGUMENT);

    /* Row 0's dictionary no longer flagged sorted: valid, not canonical. */
    const uint8_t *m;
    size_t n;
    bytes_at(va->children[0], 0, &m, &n);
    assert_int_equal(m[0] & 0x10, 0x10);
    ((uint8_t *)m)[0] &= (uint8_t)~0x10;
    assert_int_equal(hl_variant_verify(vs, va, NULL, NULL, &err), HL_ERR_VALIDATION);
    assert_string_equal(err.code, "variant_encoding");
    expect_contains(err.message, "row 0", "the row");
    struct hl_variant_verify_options lax = {.no_canonical = true};
    test_check(hl_variant_verify(vs, va, NULL, &lax, &err), &err, "verify, not canonical");
    schema.release(&schema);
    batch.release(&batch);
    hl_table_free(t);
    fixture_down(&f);
}

/* Typed Arrow values for a variant column (a struct with an int, a
 * double, a string, a list, a nested struct, a UTC timestamp and a
 * decimal): encoded value by value, a null field a Variant null, a null
 * struct SQL NULL. They read back as JSON and in DuckDB; in a declared
 * layout the timestamp, decimal and double fill their typed leaves, which
 * JSON text never does. */
static const char typed_spec[] =
    "id:long!, v:struct<a:long, d:double, s:string, l:list<long>, o:struct<x:string>, "
    "ts:timestamptz, dec:decimal(10,2)>";
static const char typed_rows[] =
    "{\"id\":1,\"v\":{\"a\":5,\"d\":2.5,\"s\":\"hi\",\"l\":[1,2],\"o\":{\"x\":\"y\"},"
    "\"ts\":\"2026-01-02T03:04:05Z\",\"dec\":\"12.34\"}}\n"
    "{\"id\":2,\"v\":{\"a\":null,\"d\":-1.0,\"s\":null,\"l\":[],\"o\":null,\"ts\":null,"
    "\"dec\":null}}\n"
    "{\"id\":3,\"v\":null}\n";

static void typed_arrow_values(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f);
    const char *decl =
        "{\"type\":\"object\",\"fields\":[{\"name\":\"ts\",\"type\":\"timestamptz\"},"
        "{\"name\":\"dec\",\"type\":\"decimal8\",\"precision\":10,\"scale\":2},"
        "{\"name\":\"d\",\"type\":\"double\"},{\"name\":\"a\",\"type\":\"int64\"}]}";
    char cols[1024];
    snprintf(cols, sizeof cols,
             "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
             "{\"name\":\"v\",\"type\":\"variant\",\"type_params\":{\"shredding\":%s}}]",
             decl);
    hl_table *plain = create(&f, "typed",
                             "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                             "{\"name\":\"v\",\"type\":\"variant\"}]");
    hl_table *declared = create(&f, "typed_decl", cols);
    hl_table *tables[] = {plain, declared};
    for (int k = 0; k < 2; k++) {
        struct ArrowArrayStream in;
        test_rows_stream(typed_spec, typed_rows, &in);
        struct hl_append_result *res = NULL;
        struct hl_error err;
        test_check(hl_table_append(tables[k], &in, NULL, &res, &err), &err, "append typed");
        assert_int_equal(res->nvariant, 1);
        assert_int_equal(res->variant[0].rows, 3);
        assert_int_equal(res->variant[0].sql_null, 1);
        if (k == 1) {
            /* $, then $.ts, $.dec, $.d, $.a: every present value typed. */
            const struct hl_variant_report *r = &res->variant[0];
            assert_int_equal(r->npaths, 5);
            static const int64_t typed[] = {2, 1, 1, 2, 1}, vnull[] = {0, 1, 1, 0, 1};
            for (size_t i = 0; i < 5; i++) {
                assert_int_equal(r->paths[i].typed, typed[i]);
                assert_int_equal(r->paths[i].fallback, 0);
                assert_int_equal(r->paths[i].variant_null, vnull[i]);
            }
        }
        hl_append_result_free(res);
        struct ArrowSchema schema;
        struct ArrowArray batch;
        scan_one(&f, tables[k], false, &schema, &batch);
        expect_row(batch.children[1], 0,
                   "{\"a\":5,\"d\":2.5,\"dec\":12.34,\"l\":[1,2],\"o\":{\"x\":\"y\"},\"s\":\"hi\","
                   "\"ts\":\"2026-01-02T03:04:05Z\"}");
        expect_row(batch.children[1], 1,
                   "{\"a\":null,\"d\":-1.0,\"dec\":null,\"l\":[],\"o\":null,\"s\":null,"
                   "\"ts\":null}");
        expect_row(batch.children[1], 2, "SQL NULL");
        schema.release(&schema);
        batch.release(&batch);
        char *path = latest_file(k ? "typed_decl" : "typed");
        char sql[1024];
        snprintf(sql, sizeof sql, "SELECT id, v::JSON FROM read_parquet('%s') ORDER BY id", path);
        char *got = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
        expect_text_eq(got,
                       "1\t{\"a\":5,\"d\":2.5,\"dec\":12.34,\"l\":[1,2],\"o\":{\"x\":\"y\"},"
                       "\"s\":\"hi\",\"ts\":\"2026-01-02 03:04:05+00\"}\n"
                       "2\t{\"a\":null,\"d\":-1.0,\"dec\":null,\"l\":[],\"o\":null,\"s\":null,"
                       "\"ts\":null}\n"
                       "3\tnull\n",
                       "DuckDB reads the typed values");
        free(got);
        free(path);
    }
    hl_table_free(declared);
    hl_table_free(plain);
    fixture_down(&f);
}

/* The rows a scan gives (id, s.a, v as JSON), one a line, read through
 * every offset the batches carry (a chunk's columns are views). */
static char *scan_text(struct fixture *f, hl_table *t, const char *predicate)
{
    hl_table *h;
    struct hl_error err;
    test_check(hl_table_open(f->ns, hl_table_name(t), &h, &err), &err, "reopen");
    struct hl_scan_options o;
    hl_scan_options_init(&o);
    o.variant_as_json = true;
    o.predicate = predicate;
    struct ArrowArrayStream st;
    test_check(hl_table_scan_with(h, NULL, &o, &st, &err), &err, "scan");
    struct buf out = BUF_INIT;
    for (;;) {
        struct ArrowArray b;
        assert_int_equal(st.get_next(&st, &b), 0);
        if (!b.release)
            break;
        const struct ArrowArray *id = b.children[0], *s = b.children[1], *v = b.children[2];
        const struct ArrowArray *a = s->children[0];
        for (int64_t i = 0; i < b.length; i++) {
            int64_t ai = s->offset + a->offset + i;
            const int32_t *off = v->buffers[1];
            int64_t k = v->offset + i;
            bool vnull = v->buffers[0] && !arrow_bit(v->buffers[0], k);
            buf_printf(&out, "%lld|", (long long)((const int64_t *)id->buffers[1])[id->offset + i]);
            if (a->buffers[0] && !arrow_bit(a->buffers[0], ai))
                buf_puts(&out, "null|");
            else
                buf_printf(&out, "%lld|", (long long)((const int64_t *)a->buffers[1])[ai]);
            if (vnull)
                buf_puts(&out, "SQL NULL\n");
            else
                buf_printf(&out, "%.*s\n", (int)(off[k + 1] - off[k]),
                           (const char *)v->buffers[2] + off[k]);
        }
        b.release(&b);
    }
    st.release(&st);
    hl_table_free(h);
    buf_putc(&out, '\0');
    return buf_take(&out);
}

/* Reads, deletes, updates and compaction a chunk at a time (failpoint
 * variant_small_chunks makes every row group of a variant table many
 * chunks, as a row group of big documents is): the same rows as read
 * whole, deleted rows (a vector's positions across chunks) left out,
 * predicates on a variant path and a struct field alike. */
static void reads_in_chunks(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f);
    hl_table *t =
        create(&f, "chunked",
               "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
               "{\"name\":\"s\",\"type\":\"struct\",\"children\":"
               "[{\"name\":\"a\",\"type\":\"long\"}]},"
               "{\"name\":\"v\",\"type\":\"variant\",\"type_params\":{\"shredding\":"
               "{\"type\":\"object\",\"fields\":[{\"name\":\"n\",\"type\":\"int64\"}]}}}]");
    struct buf rows = BUF_INIT;
    for (int i = 0; i < 300; i++)
        buf_printf(
            &rows,
            "{\"id\":%d,\"s\":{\"a\":%d},\"v\":\"{\\\"n\\\":%d,\\\"pad\\\":\\\"%.*s\\\"}\"}\n", i,
            i % 10 ? i * 3 : -1, i, i % 40, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    struct ArrowArrayStream in;
    test_rows_stream("id:long!, s:struct<a:long>, v:string", rows.data, &in);
    buf_free(&rows);
    test_append(t, &in, 0);
    struct hl_error err;
    struct hl_delete_result dr;
    /* Every eleventh row deleted: a vector whose positions fall in most
     * chunks, at other places in each. */
    struct buf del = BUF_INIT;
    buf_puts(&del, "id IN (3");
    for (int i = 14; i < 300; i += 11)
        buf_printf(&del, ", %d", i);
    buf_puts(&del, ")");
    test_check(hl_table_delete(t, del.data, NULL, &dr, &err), &err, "delete");
    buf_free(&del);
    assert_true(dr.rows_deleted > 0);

    static const char *const preds[] = {NULL, "v.n >= 100 AND v.n < 211", "s.a > 500",
                                        "id < 20 OR v.n = 299"};
    char *whole[4];
    for (int k = 0; k < 4; k++)
        whole[k] = scan_text(&f, t, preds[k]);
    assert_non_null(strstr(whole[0], "\n299|897|{\"n\":299,"));
    assert_null(strstr(whole[0], "\n3|9|"));
    setenv("HOGLAKE_FAILPOINTS", "variant_small_chunks", 1);
    for (int k = 0; k < 4; k++) {
        char *chunked = scan_text(&f, t, preds[k]);
        expect_text_eq(chunked, whole[k], "a scan in chunks");
        free(chunked);
    }
    /* A delete and an update find their rows a chunk at a time. */
    test_check(hl_table_delete(t, "v.n BETWEEN 20 AND 40", NULL, &dr, &err), &err,
               "delete in chunks");
    unsetenv("HOGLAKE_FAILPOINTS");
    char *after = scan_text(&f, t, NULL);
    assert_null(strstr(after, "\n30|90|"));
    assert_non_null(strstr(after, "\n41|123|"));
    free(after);
    for (int k = 0; k < 4; k++)
        free(whole[k]);
    hl_table_free(t);
    fixture_down(&f);
}

/* A timestamptz_ns leaf is an INT64 TIMESTAMP(NANOS) adjusted to UTC,
 * which DuckDB reads; JSON text never fills it (its values stay in
 * value). */
static void nanosecond_instant_leaf(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f);
    hl_table *t = create(
        &f, "tsns",
        "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
        "{\"name\":\"v\",\"type\":\"variant\",\"type_params\":{\"shredding\":"
        "{\"type\":\"object\",\"fields\":[{\"name\":\"a\",\"type\":\"timestamptz_ns\"}]}}}]");
    struct ArrowArrayStream in;
    test_rows_stream("id:long!, v:string",
                     "{\"id\":1,\"v\":\"{\\\"a\\\":\\\"2026-01-01T00:00:00Z\\\"}\"}\n", &in);
    test_append(t, &in, 0);
    char *path = latest_file("tsns");
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT type, logical_type FROM parquet_schema('%s') WHERE name = 'typed_value' "
             "AND type = 'INT64'",
             path);
    char *got = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    expect_contains(got, "isAdjustedToUTC=1", "adjusted to UTC");
    expect_contains(got, "NANOS", "nanoseconds");
    free(got);
    snprintf(sql, sizeof sql, "SELECT id, v::JSON FROM read_parquet('%s')", path);
    got = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    expect_text_eq(got, "1\t{\"a\":\"2026-01-01T00:00:00Z\"}\n", "the value, a string in value");
    free(got);
    free(path);
    hl_table_free(t);
    fixture_down(&f);
}

/* The encoding report: `append --variant-report` says where each declared
 * node's values went, and how many rows were NULL or invalid text. */
static void encoding_report(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f);
    hl_table *t = create(
        &f, "report",
        "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
        "{\"name\":\"v\",\"type\":\"variant\",\"type_params\":{\"shredding\":{\"type\":\"object\","
        "\"fields\":[{\"name\":\"os\",\"type\":\"string\"},{\"name\":\"n\",\"type\":\"int64\"},"
        "{\"name\":\"tags\",\"type\":\"array\",\"element\":{\"type\":\"string\"}},"
        "{\"name\":\"o\",\"type\":\"object\",\"fields\":[{\"name\":\"k\",\"type\":\"string\"}]}]"
        "}}}]");
    test_write_file(dir, "report.csv",
                    "id,v\n"
                    "1,\"{\"\"os\"\":\"\"Mac\"\",\"\"n\"\":1,\"\"tags\"\":[\"\"a\"\",\"\"b\"\"],"
                    "\"\"o\"\":{\"\"k\"\":\"\"x\"\"}}\"\n"
                    "2,\"{\"\"os\"\":5,\"\"n\"\":null,\"\"tags\"\":[\"\"c\"\",1]}\"\n"
                    "3,\n"
                    "4,\"\"\"not an object\"\"\"\n"
                    "5,{oops\n"
                    "6,\"{\"\"a\"\":1,\"\"a\"\":2}\"\n");
    struct cli_out o;
    cli_do(&o, "append local.ns.report report.csv --variant-on-invalid null --variant-report");
    cli_out_expect(&o, 0, "append with a report");
    expect_contains(o.out,
                    "variant column v: 6 rows, 3 NULL (2 from invalid text: invalid_json 1, "
                    "duplicate_key 1, nesting_too_deep 0, number_out_of_range 0)\n"
                    "  PATH             TYPED     FALLBACK VARIANT NULL      MISSING\n"
                    "  $                    2            1            0            0\n"
                    "  $.os                 1            1            0            0\n"
                    "  $.n                  1            0            1            0\n"
                    "  $.tags               2            0            0            0\n"
                    "  $.tags[*]            3            1            0            0\n"
                    "  $.o                  1            0            0            1\n"
                    "  $.o.k                1            0            0            0\n",
                    "the report");
    cli_out_free(&o);
    /* Machine output carries it too. */
    cli_do(&o, "--json append local.ns.report report.csv --variant-on-invalid null");
    cli_out_expect(&o, 0, "append --json");
    json_t *doc = json_loads(o.out, 0, NULL);
    assert_non_null(doc);
    json_t *col = json_array_get(json_object_get(doc, "variant"), 0);
    assert_string_equal(json_string_value(json_object_get(col, "column")), "v");
    assert_int_equal(json_integer_value(json_object_get(col, "sql_null")), 3);
    json_t *tags = json_array_get(json_object_get(col, "paths"), 4);
    assert_string_equal(json_string_value(json_object_get(tags, "path")), "$.tags[*]");
    assert_int_equal(json_integer_value(json_object_get(tags, "typed")), 3);
    assert_int_equal(json_integer_value(json_object_get(tags, "fallback")), 1);
    json_decref(doc);
    cli_out_free(&o);
    hl_table_free(t);
    fixture_down(&f);
}

/* A declared column is written in its layout: values of the declared
 * types in typed_value columns, the rest in value; DuckDB and we read the
 * same JSON back. */
static void declared_layout_written(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f);
    hl_table *t = create(
        &f, "shred",
        "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
        "{\"name\":\"v\",\"type\":\"variant\",\"type_params\":{\"shredding\":{\"type\":\"object\","
        "\"fields\":[{\"name\":\"$browser\",\"type\":\"string\"},"
        "{\"name\":\"price\",\"type\":\"decimal8\",\"precision\":18,\"scale\":2},"
        "{\"name\":\"n\",\"type\":\"int64\"},"
        "{\"name\":\"big\",\"type\":\"decimal16\",\"precision\":38,\"scale\":0},"
        "{\"name\":\"tags\",\"type\":\"array\",\"element\":{\"type\":\"string\"}},"
        "{\"name\":\"o\",\"type\":\"object\",\"fields\":[{\"name\":\"x\",\"type\":\"double\"}]},"
        "{\"name\":\"any\",\"type\":\"variant\"}]}}}]");
    /* The leaves JSON text will not fill, by libhoglake's own account:
     * price, which the file below shows empty. */
    char *unfilled = NULL;
    struct hl_error err;
    test_check(hl_shredding_unshreddable_paths(
                   "{\"type\":\"object\",\"fields\":[{\"name\":\"$browser\",\"type\":\"string\"},"
                   "{\"name\":\"price\",\"type\":\"decimal8\",\"precision\":18,\"scale\":2},"
                   "{\"name\":\"n\",\"type\":\"int64\"},"
                   "{\"name\":\"big\",\"type\":\"decimal16\",\"precision\":38,\"scale\":0}]}",
                   &unfilled, &err),
               &err, "unshreddable paths");
    assert_string_equal(unfilled, "[\"$.price\"]");
    free(unfilled);
    assert_int_equal(hl_shredding_unshreddable_paths("{\"type\":\"array\"}", &unfilled, &err),
                     HL_ERR_VALIDATION);
    expect_contains(err.message, "$ has no element", "the grammar's words");
    /* Each row as JSON text, and as it reads back (keys in order). */
    static const char *const rows[][2] = {
        {"{\"$browser\":\"Chrome\",\"price\":9.99,\"n\":7}",
         "{\"$browser\":\"Chrome\",\"n\":7,\"price\":9.99}"},
        {"{\"$browser\":\"Firefox\",\"n\":-5,\"tags\":[\"a\",\"b\"],\"o\":{\"x\":1.5,\"y\":2},"
         "\"extra\":true,\"any\":{\"deep\":[null]},\"big\":123456789012345678901234567890}",
         "{\"$browser\":\"Firefox\",\"any\":{\"deep\":[null]},\"big\":"
         "123456789012345678901234567890,"
         "\"extra\":true,\"n\":-5,\"o\":{\"x\":1.5,\"y\":2},\"tags\":[\"a\",\"b\"]}"},
        {"{\"n\":\"seven\",\"tags\":[1,\"x\"],\"o\":[]}",
         "{\"n\":\"seven\",\"o\":[],\"tags\":[1,\"x\"]}"},
        {"[1,2]", "[1,2]"},
        {"\"0123456789012345678901234567890123456789012345678901234567890123\"",
         "\"0123456789012345678901234567890123456789012345678901234567890123\""},
        {"{}", "{}"},
        {NULL, "SQL NULL"},
    };
    size_t nrows = sizeof rows / sizeof rows[0];
    struct buf jsonl = BUF_INIT;
    for (size_t i = 0; i < nrows; i++) {
        buf_printf(&jsonl, "{\"id\":%zu", i);
        if (rows[i][0]) {
            buf_puts(&jsonl, ",\"v\":");
            jw_escape(&jsonl, rows[i][0], strlen(rows[i][0]));
        }
        buf_puts(&jsonl, "}\n");
    }
    append_jsonl(t, &jsonl);

    struct ArrowSchema schema;
    struct ArrowArray batch;
    scan_one(&f, t, false, &schema, &batch);
    for (size_t i = 0; i < nrows; i++)
        expect_row(batch.children[1], (int64_t)i, rows[i][1]);
    schema.release(&schema);
    batch.release(&batch);

    /* The file's layout, and where the values went: typed leaves hold the
     * values of their type, and a null for every row (or element) whose
     * value is elsewhere. price stays in value: 9.99 is a double in JSON,
     * never a decimal. tags holds "a", "b" and "x" of its 9 entries. */
    char *path = latest_file("shred");
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT path_in_schema, type, stats_null_count FROM parquet_metadata('%s') "
             "WHERE path_in_schema LIKE 'v, typed_value, %%typed_value' ORDER BY column_id",
             path);
    char *got = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    expect_text_eq(got,
                   "v, typed_value, $browser, typed_value\tBYTE_ARRAY\t5\n"
                   "v, typed_value, price, typed_value\tINT64\t7\n"
                   "v, typed_value, n, typed_value\tINT64\t5\n"
                   "v, typed_value, big, typed_value\tFIXED_LEN_BYTE_ARRAY\t6\n"
                   "v, typed_value, tags, typed_value, list, element, typed_value\tBYTE_ARRAY\t6\n"
                   "v, typed_value, o, typed_value, x, typed_value\tDOUBLE\t6\n",
                   "the typed leaves and their nulls");
    free(got);
    snprintf(sql, sizeof sql, "SELECT id, v::JSON FROM read_parquet('%s') ORDER BY id", path);
    got = test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
    struct buf want = BUF_INIT;
    for (size_t i = 0; i < nrows; i++)
        buf_printf(&want, "%zu\t%s\n", i, rows[i][0] ? rows[i][1] : "null");
    buf_putc(&want, '\0');
    expect_text_eq(got, want.data, "DuckDB's reading of our shredded file");
    buf_free(&want);
    free(got);
    free(path);
    hl_table_free(t);
    fixture_down(&f);
}

/* One appended file of rows lo..hi-1 of the where table: os by file, n the
 * row number, and in the last file a string n in one row. */
static void append_where_rows(hl_table *t, int lo, int hi, const char *os, bool odd_n)
{
    struct buf jsonl = BUF_INIT;
    for (int i = lo; i < hi; i++) {
        char v[160];
        if (odd_n && i == hi - 1)
            snprintf(v, sizeof v, "{\"os\":\"%s\",\"n\":\"many\",\"o\":{\"k\":\"k%d\"}}", os, i);
        else
            snprintf(v, sizeof v, "{\"os\":\"%s\",\"n\":%d,\"o\":{\"k\":\"k%d\"}}", os, i, i);
        buf_printf(&jsonl, "{\"id\":%d,\"v\":", i);
        jw_escape(&jsonl, v, strlen(v));
        buf_puts(&jsonl, "}\n");
    }
    append_jsonl(t, &jsonl);
}

/* The ids `read --where` prints, one a line, with its --stats line. */
static char *read_ids(const char *where, char **stats)
{
    struct cli_out o;
    cli_do(&o, "read local.ns.vwhere --columns id --format csv --stats --where \"%s\"", where);
    cli_out_expect(&o, 0, where);
    char *ids = strdup(o.out);
    *stats = strdup(o.err);
    assert_non_null(ids);
    /* CSV lines end in CRLF. */
    char *w = ids;
    for (const char *r = ids; *r; r++)
        if (*r != '\r')
            *w++ = *r;
    *w = '\0';
    cli_out_free(&o);
    return ids;
}

static void expect_where(const char *where, const char *ids, const char *row_groups)
{
    char *stats;
    char *got = read_ids(where, &stats);
    expect_text_eq(got, ids, where);
    expect_contains(stats, row_groups, "the row groups read and pruned");
    free(got);
    free(stats);
}

/* Predicates on variant paths: read --where and delete --where select by
 * the values inside, and the shredded leaves' statistics rule out the
 * files whose row groups cannot match. */
static void where_on_variant_paths(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f);
    hl_table *t = create(
        &f, "vwhere",
        "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
        "{\"name\":\"v\",\"type\":\"variant\",\"type_params\":{\"shredding\":{\"type\":\"object\","
        "\"fields\":[{\"name\":\"os\",\"type\":\"string\"},{\"name\":\"n\",\"type\":\"int64\"},"
        "{\"name\":\"o\",\"type\":\"object\",\"fields\":[{\"name\":\"k\",\"type\":\"string\"}]}]"
        "}}}]");
    append_where_rows(t, 0, 4, "Linux", false);
    append_where_rows(t, 4, 8, "Mac", false);
    append_where_rows(t, 8, 12, "Windows", true); /* n of row 11 is "many" */

    expect_where("v.os = 'Mac'", "id\n4\n5\n6\n7\n", "row groups: 1 read, 2 pruned");
    /* The third file's n holds a string in one row: its leaf cannot rule
     * it out. */
    expect_where("v.os IN ('Linux', 'Windows') AND v.n < 2", "id\n0\n1\n",
                 "row groups: 2 read, 1 pruned");
    expect_where("v.n >= 6", "id\n6\n7\n8\n9\n10\n", "row groups: 2 read, 1 pruned");
    expect_where("v.n = 'many'", "id\n11\n", "row groups: 1 read, 2 pruned");
    expect_where("v.o.k = 'k9'", "id\n9\n", "row groups: 1 read, 2 pruned");
    expect_where("v.o.k IS NULL OR v.nope = 1", "id\n", "row groups: 3 read, 0 pruned");

    struct cli_out o;
    cli_do(&o, "read local.ns.vwhere --where \"v.os = DATE '2026-01-01'\"");
    cli_out_expect(&o, 1, "a literal of no variant family");
    expect_contains(o.err, "compare it with a string, a number or TRUE/FALSE", "the refusal");
    cli_out_free(&o);

    run_ok("delete", "delete local.ns.vwhere --where \"v.os = 'Mac' AND v.n > 5\"");
    expect_where("v.os = 'Mac'", "id\n4\n5\n", "pruned");
    hl_table_free(t);
    fixture_down(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(jsonl_in_json_out),       cmocka_unit_test(iceberg_export),
        cmocka_unit_test(mutations_keep_values),   cmocka_unit_test(csv_and_invalid_text),
        cmocka_unit_test(duckdb_shredded_files),   cmocka_unit_test(library_round_trip),
        cmocka_unit_test(library_refusals),        cmocka_unit_test(library_verify),
        cmocka_unit_test(typed_arrow_values),      cmocka_unit_test(reads_in_chunks),
        cmocka_unit_test(declared_layout_written), cmocka_unit_test(where_on_variant_paths),
        cmocka_unit_test(nanosecond_instant_leaf), cmocka_unit_test(encoding_report),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
