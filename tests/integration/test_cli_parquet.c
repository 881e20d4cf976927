/* `hoglake parquet` end to end, as scripts use it: convert between CSV,
 * JSON Lines and Parquet, cat, inspect; exit codes, messages, and that a
 * failed conversion leaves no file behind. No server is involved.
 *
 * Expected texts are written out by hand from the conventions in
 * docs/cli-parquet.md. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

static char dir[256];

struct run {
    int code;
    char *out;
    size_t out_len;
    char *err;
};

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (len)
            *len = 0;
        return NULL;
    }
    struct buf {
        char *p;
        size_t n, cap;
    } b = {NULL, 0, 0};
    char chunk[65536];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.n + k + 1 > b.cap) {
            b.cap = (b.n + k + 1) * 2;
            b.p = realloc(b.p, b.cap);
            assert_non_null(b.p);
        }
        memcpy(b.p + b.n, chunk, k);
        b.n += k;
    }
    fclose(f);
    if (!b.p)
        b.p = calloc(1, 1);
    b.p[b.n] = '\0';
    if (len)
        *len = b.n;
    return b.p;
}

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* Runs `hoglake <args>` in the scratch directory; args is printf-formatted
 * and already shell-quoted. */
static void hl(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hl(struct run *r, const char *fmt, ...)
{
    char args[8192], cmd[9000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "cd %s && %s %s >.stdout 2>.stderr", dir, HOGLAKE_CLI_BIN, args);
    int status = system(cmd);
    r->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    char path[400];
    snprintf(path, sizeof path, "%s/.stdout", dir);
    r->out = slurp(path, &r->out_len);
    unlink(path);
    snprintf(path, sizeof path, "%s/.stderr", dir);
    r->err = slurp(path, NULL);
    unlink(path);
}

#define expect_code(r, want)                                                                       \
    do {                                                                                           \
        if ((r)->code != (want))                                                                   \
            fail_msg("exit %d, expected %d\nstdout: %.2000s\nstderr: %s", (r)->code, (want),       \
                     (r)->out, (r)->err);                                                          \
    } while (0)

#define expect_err(r, needle)                                                                      \
    do {                                                                                           \
        if (!strstr((r)->err, (needle)))                                                           \
            fail_msg("stderr lacks '%s':\n%s", (needle), (r)->err);                                \
    } while (0)

static void write_file(const char *name, const char *content, size_t len)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(content, 1, len, f), len);
    fclose(f);
}

static void write_text(const char *name, const char *content)
{
    write_file(name, content, strlen(content));
}

static bool exists(const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static char *read_back(const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *s = slurp(path, NULL);
    assert_non_null(s);
    return s;
}

/* No temporary file of a conversion is left in the directory. */
static void expect_no_leftovers(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp-"))
            fail_msg("left behind: %s", e->d_name);
    closedir(d);
}

static void expect_stdout(struct run *r, const char *want)
{
    if (strcmp(r->out, want) != 0)
        fail_msg("stdout:\n%s\nexpected:\n%s", r->out, want);
}

static int setup(void **state)
{
    (void)state;
    test_scratch_dir(dir, sizeof dir, "cli-parquet");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- round trips ---- */

static const char schema_spec[] =
    "'id:long!, name:string, amount:decimal(12,3), ts:timestamp, tz:timestamptz, d:date, "
    "t:time, f:float, g:double, u:uuid, b:binary, j:json, u64:uint64, tags:list<string>, "
    "attrs:map<string,long>, pts:map<int,string>, addr:struct<zip:string,n:list<int!>>'";

static const char rows_jsonl[] =
    "{\"id\":-9223372036854775808,\"name\":\"h\xc3\xa9llo "
    "\\\"x\\\"\",\"amount\":\"-123456789.123\","
    "\"ts\":\"1969-12-31T23:59:59.999999\",\"tz\":\"2024-01-02T03:04:05.123456Z\","
    "\"d\":\"1900-03-01\",\"t\":\"23:59:59.000001\",\"f\":1.5,\"g\":\"NaN\","
    "\"u\":\"0123abcd-0000-4000-8000-0000ffee000f\",\"b\":\"AP8=\",\"j\":\"{\\\"k\\\":[1,2]}\","
    "\"u64\":18446744073709551615,\"tags\":[\"a\",null,\"\"],\"attrs\":{\"x\":1,\"y\":null},"
    "\"pts\":[{\"key\":-1,\"value\":\"neg\"}],\"addr\":{\"zip\":\"02139\",\"n\":[1,2]}}\n"
    "{\"id\":9223372036854775807,\"name\":null,\"amount\":null,\"ts\":null,\"tz\":null,"
    "\"d\":null,\"t\":null,\"f\":-0.0,\"g\":-1e-300,\"u\":null,\"b\":null,\"j\":null,"
    "\"u64\":null,\"tags\":null,\"attrs\":null,\"pts\":null,\"addr\":null}\n"
    "{\"id\":0,\"name\":\"\",\"amount\":\"0.000\",\"ts\":\"2262-01-01T00:00:00.000000\","
    "\"tz\":\"1970-01-01T00:00:00.000000Z\",\"d\":\"-00001-12-31\",\"t\":\"00:00:00.000000\","
    "\"f\":\"Infinity\",\"g\":1e+100,\"u\":null,\"b\":\"\",\"j\":\"null\",\"u64\":0,"
    "\"tags\":[],\"attrs\":{},\"pts\":[],\"addr\":{\"zip\":null,\"n\":[]}}\n";

static const char rows_csv[] =
    "id,name,amount,ts,tz,d,t,f,g,u,b,j,u64,tags,attrs,pts,addr\r\n"
    "-9223372036854775808,\"h\xc3\xa9llo \"\"x\"\"\",-123456789.123,1969-12-31T23:59:59.999999,"
    "2024-01-02T03:04:05.123456Z,1900-03-01,23:59:59.000001,1.5,NaN,"
    "0123abcd-0000-4000-8000-0000ffee000f,AP8=,\"{\"\"k\"\":[1,2]}\",18446744073709551615,"
    "\"[\"\"a\"\",null,\"\"\"\"]\",\"{\"\"x\"\":1,\"\"y\"\":null}\","
    "\"[{\"\"key\"\":-1,\"\"value\"\":\"\"neg\"\"}]\","
    "\"{\"\"zip\"\":\"\"02139\"\",\"\"n\"\":[1,2]}\"\r\n"
    "9223372036854775807,,,,,,,-0.0,-1e-300,,,,,,,,\r\n"
    "0,\"\",0.000,2262-01-01T00:00:00.000000,1970-01-01T00:00:00.000000Z,-00001-12-31,"
    "00:00:00.000000,Infinity,1e+100,,\"\",null,0,[],{},[],\"{\"\"zip\"\":null,\"\"n\"\":[]}\"\r\n";

static void jsonl_csv_parquet_round_trips(void **state)
{
    (void)state;
    struct run r;
    write_text("rows.jsonl", rows_jsonl);
    hl(&r, "parquet convert rows.jsonl rows.parquet --schema %s", schema_spec);
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet cat rows.parquet");
    expect_code(&r, 0);
    expect_stdout(&r, rows_jsonl);
    run_free(&r);
    hl(&r, "parquet cat rows.parquet --format csv");
    expect_code(&r, 0);
    expect_stdout(&r, rows_csv);
    run_free(&r);

    /* CSV in, the same file content out. */
    write_text("rows.csv", rows_csv);
    hl(&r, "parquet convert rows.csv from-csv.parquet --schema %s --compression snappy",
       schema_spec);
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet cat from-csv.parquet --format csv");
    expect_stdout(&r, rows_csv);
    run_free(&r);
    hl(&r, "parquet cat from-csv.parquet");
    expect_stdout(&r, rows_jsonl);
    run_free(&r);

    /* .ndjson and --from. */
    write_text("rows.ndjson", rows_jsonl);
    write_text("rows.txt", rows_jsonl);
    hl(&r, "parquet convert rows.ndjson nd.parquet --schema %s", schema_spec);
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet convert rows.txt txt.parquet --from jsonl --schema %s", schema_spec);
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet cat txt.parquet");
    expect_stdout(&r, rows_jsonl);
    run_free(&r);
    expect_no_leftovers();
}

static void cat_options(void **state)
{
    (void)state;
    struct run r;
    write_text("small.csv", "a,b,c\n1,x,2024-01-01\n2,,\n3,\"z,z\",1999-12-31\n");
    hl(&r, "parquet convert small.csv small.parquet --schema 'a:int!, b:string, c:date'");
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet cat small.parquet --columns c,a --limit 2");
    expect_code(&r, 0);
    expect_stdout(&r, "{\"c\":\"2024-01-01\",\"a\":1}\n{\"c\":null,\"a\":2}\n");
    run_free(&r);
    hl(&r, "parquet cat small.parquet --columns 'b' --format csv");
    expect_stdout(&r, "b\r\nx\r\n\r\n\"z,z\"\r\n");
    run_free(&r);
    hl(&r, "parquet cat small.parquet --limit 0 --format csv");
    expect_code(&r, 0);
    expect_stdout(&r, "a,b,c\r\n");
    run_free(&r);
    hl(&r, "parquet cat small.parquet --limit 0");
    expect_stdout(&r, "");
    run_free(&r);
    hl(&r, "parquet cat small.parquet --columns a,nope");
    expect_code(&r, 1);
    expect_err(&r, "nope");
    run_free(&r);
    hl(&r, "parquet cat small.parquet --format xml");
    expect_code(&r, 2);
    run_free(&r);
    hl(&r, "parquet cat small.parquet --limit -1");
    expect_code(&r, 2);
    run_free(&r);
    hl(&r, "parquet cat missing.parquet");
    expect_code(&r, 3);
    run_free(&r);
    hl(&r, "parquet cat small.csv");
    expect_code(&r, 1);
    run_free(&r);
}

/* ---- inspect, field ids ---- */

/* Parses JSON with every number as a double: jansson's integers stop at
 * INT64_MAX, and statistics may hold a uint64. */
static json_t *parse_doc(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, JSON_DECODE_INT_AS_REAL, &e);
    if (!v)
        fail_msg("not JSON (%s): %s", e.text, text);
    return v;
}

static json_int_t num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        fail_msg("'%s' is not a number", key);
    return (json_int_t)json_number_value(v);
}

static json_t *inspect(const char *file)
{
    struct run r;
    hl(&r, "parquet inspect %s --json", file);
    expect_code(&r, 0);
    json_t *doc = parse_doc(r.out);
    run_free(&r);
    return doc;
}

static json_t *schema_child(json_t *doc, size_t i)
{
    return json_array_get(json_object_get(json_object_get(doc, "schema"), "children"), i);
}

static json_t *chunk(json_t *doc, size_t group, size_t column)
{
    json_t *g = json_array_get(json_object_get(doc, "row_groups"), group);
    return json_array_get(json_object_get(g, "columns"), column);
}

static void field_ids_and_inspect(void **state)
{
    (void)state;
    struct run r;
    write_text("ids.jsonl", "{\"a\":5,\"l\":[\"x\"],\"m\":{\"k\":1.25},\"ts\":"
                            "\"2024-01-02T03:04:05.000001Z\",\"dec\":\"-1.50\"}\n"
                            "{\"a\":-3,\"l\":null,\"m\":null,\"ts\":null,\"dec\":\"99.99\"}\n");
    write_text("ids.json", "[{\"name\":\"a\",\"type\":\"long\",\"nullable\":false,"
                           "\"field_id\":100},"
                           "{\"name\":\"l\",\"type\":\"list\",\"field_id\":7,\"children\":["
                           "{\"name\":\"element\",\"type\":\"string\",\"field_id\":8}]},"
                           "{\"name\":\"m\",\"type\":\"map\",\"children\":["
                           "{\"name\":\"key\",\"type\":\"string\",\"nullable\":false},"
                           "{\"name\":\"value\",\"type\":\"double\",\"field_id\":1}]},"
                           "{\"name\":\"ts\",\"type\":\"timestamptz\"},"
                           "{\"name\":\"dec\",\"type\":\"decimal\",\"type_params\":"
                           "{\"precision\":4,\"scale\":2}}]");
    hl(&r, "parquet convert ids.jsonl ids.parquet --schema @ids.json");
    expect_code(&r, 0);
    run_free(&r);
    json_t *doc = inspect("ids.parquet");
    /* Given ids kept; m, its key, ts, dec take 2, 3, 4, 5 (the smallest unclaimed). */
    json_t *a = schema_child(doc, 0), *l = schema_child(doc, 1), *m = schema_child(doc, 2);
    assert_int_equal(num(a, "field_id"), 100);
    assert_string_equal(jstr(a, "repetition"), "REQUIRED");
    assert_string_equal(jstr(a, "physical_type"), "INT64");
    assert_int_equal(num(l, "field_id"), 7);
    json_t *list = json_array_get(json_object_get(l, "children"), 0);
    assert_true(json_is_null(json_object_get(list, "field_id")));
    assert_string_equal(jstr(list, "repetition"), "REPEATED");
    json_t *element = json_array_get(json_object_get(list, "children"), 0);
    assert_int_equal(num(element, "field_id"), 8);
    assert_string_equal(jstr(json_object_get(element, "logical_type"), "type"), "STRING");
    assert_string_equal(jstr(element, "converted_type"), "UTF8");
    assert_int_equal(num(m, "field_id"), 2);
    json_t *kv = json_array_get(json_object_get(m, "children"), 0);
    assert_int_equal(num(json_array_get(json_object_get(kv, "children"), 0), "field_id"), 3);
    assert_int_equal(num(json_array_get(json_object_get(kv, "children"), 1), "field_id"), 1);
    json_t *ts = schema_child(doc, 3);
    assert_int_equal(num(ts, "field_id"), 4);
    json_t *lt = json_object_get(ts, "logical_type");
    assert_string_equal(jstr(lt, "type"), "TIMESTAMP");
    assert_string_equal(jstr(lt, "unit"), "MICROS");
    assert_true(json_is_true(json_object_get(lt, "is_adjusted_to_utc")));
    json_t *dec = schema_child(doc, 4);
    assert_int_equal(num(dec, "field_id"), 5);
    assert_int_equal(num(dec, "type_length"), 2);
    assert_int_equal(num(dec, "decimal_precision"), 4);

    /* File facts and chunks. */
    json_t *file = json_object_get(doc, "file");
    assert_int_equal(num(file, "num_rows"), 2);
    assert_int_equal(num(file, "num_row_groups"), 1);
    assert_string_equal(jstr(file, "created_by"), "hoglake version " HOGLAKE_VERSION);
    assert_string_equal(jstr(file, "path"), "ids.parquet");
    json_t *c0 = chunk(doc, 0, 0);
    assert_string_equal(jstr(c0, "path"), "a");
    assert_int_equal(num(c0, "field_id"), 100);
    assert_string_equal(jstr(c0, "codec"), "ZSTD");
    assert_int_equal(num(c0, "num_values"), 2);
    json_t *st = json_object_get(c0, "statistics");
    assert_int_equal(num(st, "null_count"), 0);
    assert_int_equal(num(st, "min"), -3);
    assert_int_equal(num(st, "max"), 5);
    assert_true(json_is_false(json_object_get(st, "legacy_min_max")));
    json_t *c1 = chunk(doc, 0, 1);
    assert_string_equal(jstr(c1, "path"), "l.list.element");
    assert_int_equal(num(c1, "field_id"), 8);
    assert_string_equal(jstr(json_object_get(c1, "statistics"), "min"), "x");
    json_t *c3 = chunk(doc, 0, 3);
    assert_string_equal(jstr(c3, "path"), "m.key_value.value");
    assert_true(json_number_value(json_object_get(json_object_get(c3, "statistics"), "max")) ==
                1.25);
    json_t *c4 = chunk(doc, 0, 4);
    assert_string_equal(jstr(json_object_get(c4, "statistics"), "min"),
                        "2024-01-02T03:04:05.000001Z");
    assert_int_equal(num(json_object_get(c4, "statistics"), "null_count"), 1);
    json_t *c5 = chunk(doc, 0, 5);
    assert_string_equal(jstr(json_object_get(c5, "statistics"), "min"), "-1.50");
    assert_string_equal(jstr(json_object_get(c5, "statistics"), "max"), "99.99");
    assert_true(num(c5, "data_page_offset") > 0);
    assert_true(num(c5, "column_index_offset") > num(c5, "data_page_offset"));
    assert_true(num(c5, "offset_index_length") > 0);
    json_decref(doc);

    /* The global --json flag works too, and the human view names the same facts. */
    hl(&r, "--json parquet inspect ids.parquet");
    expect_code(&r, 0);
    json_decref(parse_doc(r.out));
    run_free(&r);
    hl(&r, "parquet inspect ids.parquet");
    expect_code(&r, 0);
    assert_non_null(strstr(r.out, "rows         2"));
    assert_non_null(strstr(r.out, "field_id=100"));
    assert_non_null(strstr(r.out, "INT64 TIMESTAMP(MICROS,utc) (TIMESTAMP_MICROS)"));
    assert_non_null(strstr(r.out, "statistics   nulls 0, min \"-1.50\", max \"99.99\""));
    assert_non_null(strstr(r.out, "statistics   nulls 0, min -3, max 5"));
    run_free(&r);

    /* Inline JSON and the compact spec. */
    write_text("one.csv", "x\n1\n");
    hl(&r, "parquet convert one.csv one.parquet --schema '[{\"name\":\"x\",\"type\":\"int\","
           "\"field_id\":42}]'");
    expect_code(&r, 0);
    run_free(&r);
    doc = inspect("one.parquet");
    assert_int_equal(num(schema_child(doc, 0), "field_id"), 42);
    json_decref(doc);
    hl(&r, "parquet inspect missing.parquet");
    expect_code(&r, 3);
    run_free(&r);
    hl(&r, "parquet inspect one.csv");
    expect_code(&r, 1);
    run_free(&r);
}

static void parquet_to_parquet(void **state)
{
    (void)state;
    struct run r;
    write_text("p.jsonl", rows_jsonl);
    write_text("p.json", "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"field_id\":11},"
                         "{\"name\":\"s\",\"type\":\"struct\",\"field_id\":12,\"children\":["
                         "{\"name\":\"x\",\"type\":\"int\",\"field_id\":13}]},"
                         "{\"name\":\"l\",\"type\":\"list\",\"field_id\":14,\"children\":["
                         "{\"name\":\"element\",\"type\":\"int8\",\"field_id\":15}]}]");
    write_text("p2.jsonl", "{\"id\":1,\"s\":{\"x\":-2},\"l\":[1,null,-128]}\n"
                           "{\"id\":2,\"s\":null,\"l\":[]}\n");
    hl(&r, "parquet convert p2.jsonl p2.parquet --schema @p.json");
    expect_code(&r, 0);
    run_free(&r);
    /* Without --schema: the file's definition and ids; other writer settings. */
    hl(&r, "parquet convert p2.parquet p3.parquet --compression gzip --no-dictionary "
           "--batch-rows 1");
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet cat p3.parquet");
    expect_stdout(&r, "{\"id\":1,\"s\":{\"x\":-2},\"l\":[1,null,-128]}\n"
                      "{\"id\":2,\"s\":null,\"l\":[]}\n");
    run_free(&r);
    json_t *doc = inspect("p3.parquet");
    assert_int_equal(num(schema_child(doc, 0), "field_id"), 11);
    json_t *s = schema_child(doc, 1);
    assert_int_equal(num(s, "field_id"), 12);
    assert_int_equal(num(json_array_get(json_object_get(s, "children"), 0), "field_id"), 13);
    json_t *l = schema_child(doc, 2);
    assert_int_equal(num(l, "field_id"), 14);
    json_t *el = json_array_get(
        json_object_get(json_array_get(json_object_get(l, "children"), 0), "children"), 0);
    assert_int_equal(num(el, "field_id"), 15);
    assert_int_equal(num(json_object_get(el, "logical_type"), "bit_width"), 8);
    json_t *c = chunk(doc, 0, 0);
    assert_string_equal(jstr(c, "codec"), "GZIP");
    assert_true(json_is_null(json_object_get(c, "dictionary_page_offset")));
    json_decref(doc);

    /* The big mixed file, through Parquet twice, with small row groups. */
    hl(&r,
       "parquet convert p.jsonl p4.parquet --schema %s --row-group-bytes 200 "
       "--page-bytes 64 --compression lz4_raw",
       schema_spec);
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet convert p4.parquet p5.parquet --compression uncompressed");
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet cat p5.parquet");
    expect_stdout(&r, rows_jsonl);
    run_free(&r);
    doc = inspect("p4.parquet");
    json_t *d4 = json_deep_copy(json_object_get(doc, "schema"));
    json_decref(doc);
    doc = inspect("p5.parquet");
    /* The same schema, ids and annotations included. */
    assert_true(json_equal(d4, json_object_get(doc, "schema")));
    assert_string_equal(jstr(chunk(doc, 0, 0), "codec"), "UNCOMPRESSED");
    json_decref(d4);
    json_decref(doc);

    /* With --schema: columns by name, converted where exact. */
    hl(&r, "parquet convert p2.parquet p6.parquet --schema 'l:list<long>, id:int!'");
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet cat p6.parquet");
    expect_stdout(&r, "{\"l\":[1,null,-128],\"id\":1}\n{\"l\":[],\"id\":2}\n");
    run_free(&r);
    hl(&r, "parquet convert p2.parquet p7.parquet --schema 'id:long, nope:int'");
    expect_code(&r, 1);
    expect_err(&r, "nope");
    run_free(&r);
    hl(&r, "parquet convert p2.parquet p7.parquet --schema 'l:list<uint8>'");
    expect_code(&r, 1);
    expect_err(&r, "row group 0: column 'l[]': value -128 does not fit a uint8");
    run_free(&r);
    assert_false(exists("p7.parquet"));
    expect_no_leftovers();
}

static void many_rows(void **state)
{
    (void)state;
    /* 30000 rows in batches of 777, several row groups. */
    size_t cap = 30000 * 64;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t n = 0;
    for (int i = 0; i < 30000; i++)
        n += (size_t)snprintf(text + n, cap - n, "{\"i\":%d,\"s\":\"row %d\",\"f\":%d.5}\n",
                              i - 15000, i * 7, i);
    write_file("many.jsonl", text, n);
    struct run r;
    hl(&r, "parquet convert many.jsonl many.parquet --schema 'i:int!, s:string, f:double' "
           "--batch-rows 777 --row-group-bytes 100000");
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet cat many.parquet");
    expect_code(&r, 0);
    assert_int_equal(r.out_len, n);
    assert_memory_equal(r.out, text, n);
    run_free(&r);
    json_t *doc = inspect("many.parquet");
    assert_int_equal(num(json_object_get(doc, "file"), "num_rows"), 30000);
    assert_true(json_array_size(json_object_get(doc, "row_groups")) > 2);
    json_decref(doc);
    hl(&r, "parquet cat many.parquet --limit 3 --format csv");
    expect_stdout(&r, "i,s,f\r\n-15000,row 0,0.5\r\n-14999,row 7,1.5\r\n-14998,row 14,2.5\r\n");
    run_free(&r);
    /* An error after several batches were written still leaves nothing. */
    char *bad = strstr(text, "\"row 209993\"");
    assert_non_null(bad);
    bad[5] = '\xff'; /* the last line: not UTF-8 */
    write_file("late.jsonl", text, n);
    hl(&r, "parquet convert late.jsonl late.parquet --schema 'i:int!, s:string, f:double' "
           "--batch-rows 100");
    expect_code(&r, 1);
    expect_err(&r, "late.jsonl line 30000: invalid JSON at byte");
    run_free(&r);
    assert_false(exists("late.parquet"));
    expect_no_leftovers();
    free(text);
}

/* ---- errors ---- */

/* A conversion that must fail with `code`, a message holding `needle`, and
 * no output file. */
static void expect_convert_error(const char *input_name, const char *input, const char *args,
                                 int code, const char *needle)
{
    write_text(input_name, input);
    struct run r;
    hl(&r, "parquet convert %s out.parquet %s", input_name, args);
    expect_code(&r, code);
    expect_err(&r, needle);
    run_free(&r);
    assert_false(exists("out.parquet"));
    expect_no_leftovers();
}

static void conversion_errors(void **state)
{
    (void)state;
    const char *s = "--schema 'id:long!, d:date, s:string, j:json, m:map<string,int>'";
    expect_convert_error("e.csv", "id,d\n1,2024-01-01\n2x,2024-01-02\n", s, 1,
                         "hoglake: e.csv line 3: column 'id': expected an integer: '2x' (long)");
    expect_convert_error("e.csv", "id,d\n1,2024-02-30\n", s, 1,
                         "e.csv line 2: column 'd': not a calendar date: '2024-02-30' (date)");
    expect_convert_error("e.csv", "id,s\n1,\"multi\nline\"\n2,\"a\xff\"\n", s, 1,
                         "e.csv line 4: column 's': invalid UTF-8 at byte 2 of the text");
    expect_convert_error("e.csv", "id,j\n1,\"{\"\"a\"\":}\"\n", s, 1,
                         "e.csv line 2: column 'j': invalid JSON text at byte 6");
    expect_convert_error("e.csv", "id,d\n1,2024-01-01\n2\n", s, 1,
                         "e.csv line 3: the record has 1 fields, the header 2");
    expect_convert_error("e.csv", "id,d\n1,\"2024\"-01-01\n", s, 1,
                         "e.csv line 2: text after the closing quote of a field");
    expect_convert_error("e.csv", "d\n2024-01-01\n", s, 1,
                         "e.csv line 1: the header lacks column 'id', which is required");
    expect_convert_error("e.csv", "", s, 1, "e.csv: empty input (CSV needs a header row)");
    expect_convert_error("e.jsonl", "{\"id\":1}\n\n{\"id\":\"2\"}\n", s, 1,
                         "e.jsonl line 3: column 'id': expected an integer, got a string");
    expect_convert_error("e.jsonl", "{\"id\":1,\"zz\":2}\n", s, 1,
                         "e.jsonl line 1: unknown column 'zz'");
    expect_convert_error("e.jsonl", "{\"d\":\"2024-01-01\"}\n", s, 1,
                         "e.jsonl line 1: column 'id': a required value is missing");
    expect_convert_error("e.jsonl", "{\"id\":1,\"m\":{\"k\":1.5}}\n", s, 1,
                         "e.jsonl line 1: column 'm{k}': expected an integer: '1.5' (int)");
    expect_convert_error("e.jsonl", "{\"id\":1,\"j\":\"[1,\"}\n", s, 1,
                         "e.jsonl line 1: column 'j': invalid JSON text");
    expect_convert_error("e.jsonl", "{\"id\":1,\"s\":\"\xc3\"}\n", s, 1,
                         "e.jsonl line 1: invalid JSON at byte 14: invalid UTF-8");
    expect_convert_error("e.jsonl", "[1]\n", s, 1,
                         "e.jsonl line 1: a row must be a JSON object, not an array");
    /* Usage errors and missing inputs. */
    /* Without --schema the columns are inferred (docs/inference.md). */
    expect_convert_error("e.csv", "id\n1\nx\n", "--sample-rows 1", 1,
                         "give --schema, or a larger --sample-rows");
    expect_convert_error("e.jsonl", "{}\n", "", 1, "no member in the sampled rows");
    expect_convert_error("e.dat", "id\n1\n", s, 2, "cannot tell the format of 'e.dat'");
    expect_convert_error("e.csv", "id\n1\n", "--schema 'id:lung'", 2,
                         "--schema: unknown column type 'lung'");
    expect_convert_error("e.csv", "id\n1\n", "--schema 'id:long,'", 2, "--schema: expected a name");
    expect_convert_error("e.csv", "id\n1\n", "--schema @nope.json", 2, "nope.json");
    expect_convert_error("e.csv", "v\n{oops\n", "--schema 'v:variant'", 1,
                         "column 'v': row 0: invalid JSON at byte 1");
    expect_convert_error("e.csv", "id\n1\n", "--schema 'id:long' --compression lzo", 2,
                         "--compression takes zstd, snappy, gzip, lz4_raw or uncompressed");
    expect_convert_error("e.csv", "id\n1\n", "--schema 'id:long' --compression snappy --level 3", 2,
                         "--level sets the zstd level");
    expect_convert_error("e.csv", "id\n1\n", "--schema 'id:long' --batch-rows 0", 2,
                         "--batch-rows takes a whole number of at least 1");
    expect_convert_error("e.csv", "id\n1\n", "--schema 'id:long' --from xml", 2,
                         "--from takes csv, tsv, json, jsonl or parquet");
    expect_convert_error("e.parquet", "not parquet at all", "", 1, "e.parquet");
    struct run r;
    hl(&r, "parquet convert absent.csv out.parquet --schema 'id:long'");
    expect_code(&r, 3);
    expect_err(&r, "absent.csv");
    run_free(&r);
    hl(&r, "parquet convert only-one-arg.csv");
    expect_code(&r, 2);
    run_free(&r);
    hl(&r, "parquet frobnicate x");
    expect_code(&r, 2);
    run_free(&r);
    assert_false(exists("out.parquet"));
}

static void no_silent_overwrite(void **state)
{
    (void)state;
    struct run r;
    write_text("ow.csv", "id\n1\n");
    write_text("taken.parquet", "precious");
    hl(&r, "parquet convert ow.csv taken.parquet --schema 'id:long'");
    expect_code(&r, 4);
    expect_err(&r, "taken.parquet exists (give --force to overwrite it)");
    run_free(&r);
    char *kept = read_back("taken.parquet");
    assert_string_equal(kept, "precious");
    free(kept);
    hl(&r, "parquet convert ow.csv taken.parquet --schema 'id:long' --force");
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet cat taken.parquet");
    expect_stdout(&r, "{\"id\":1}\n");
    run_free(&r);
    /* Converting a file onto itself needs --force, and works with it. */
    hl(&r, "parquet convert taken.parquet taken.parquet");
    expect_code(&r, 4);
    run_free(&r);
    hl(&r, "parquet convert taken.parquet taken.parquet --force --compression gzip");
    expect_code(&r, 0);
    run_free(&r);
    hl(&r, "parquet cat taken.parquet");
    expect_stdout(&r, "{\"id\":1}\n");
    run_free(&r);
    /* The result gets the usual file mode, not mkstemp's 0600. */
    struct stat st;
    char path[400];
    snprintf(path, sizeof path, "%s/taken.parquet", dir);
    assert_int_equal(stat(path, &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
    /* A directory that does not exist. */
    hl(&r, "parquet convert ow.csv no/such/dir/x.parquet --schema 'id:long'");
    expect_code(&r, 1);
    expect_err(&r, "cannot create a file next to no/such/dir/x.parquet");
    run_free(&r);
    expect_no_leftovers();
}

static void help(void **state)
{
    (void)state;
    struct run r;
    hl(&r, "parquet --help");
    expect_code(&r, 0);
    assert_non_null(strstr(r.out, "inspect"));
    assert_non_null(strstr(r.out, "convert"));
    run_free(&r);
    hl(&r, "parquet convert --help");
    expect_code(&r, 0);
    assert_non_null(strstr(r.out, "--row-group-bytes"));
    run_free(&r);
    hl(&r, "--help");
    assert_non_null(strstr(r.out, "parquet"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(jsonl_csv_parquet_round_trips),
        cmocka_unit_test(cat_options),
        cmocka_unit_test(field_ids_and_inspect),
        cmocka_unit_test(parquet_to_parquet),
        cmocka_unit_test(many_rows),
        cmocka_unit_test(conversion_errors),
        cmocka_unit_test(no_silent_overwrite),
        cmocka_unit_test(help),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
