/* Unit tests for src/server/commit/commit_req: reading a CommitRequest strictly
 * (every 400 for shape and 422 for range, each naming the member path),
 * merging groups by table, the canonical fingerprint and its invariances,
 * and commit_check_path.
 *
 * Bodies are written with single quotes; js() makes them JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "server/commit/commit_req.h"
#include "server/http/api.h"
#include "util/sha256.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static struct arena arena;

static int setup(void **state)
{
    (void)state;
    arena_init(&arena, 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    arena_free(&arena);
    return 0;
}

/* A printf-formatted, single-quoted JSON text, parsed as the server does. */
static json_t *js(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *js(const char *fmt, ...)
{
    static char text[65536];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof text);
    for (char *p = text; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_error_t jerr;
    json_t *v = json_loads(text, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!v)
        fail_msg("test body does not parse: %s: %s", jerr.text, text);
    return v;
}

/* Parses a body sent to the endpoint of `rules` that must be accepted. */
static void parse_ok_at(const struct commit_rules *rules, json_t *body, struct commit_request *c)
{
    struct api_error err = {0};
    int rc = commit_request_parse(body, rules, &arena, c, &err);
    json_decref(body);
    if (rc != 0)
        fail_msg("refused with %d %s: %s", err.status, err.code, err.detail);
    assert_null(err.extra);
}

/* The same for POST /commit. */
static void parse_ok(json_t *body, struct commit_request *c)
{
    parse_ok_at(&commit_rules_plain, body, c);
}

/* Parses a body sent to the endpoint of `rules` that must be refused with
 * `status` and a detail holding `needle`. */
static void parse_fails_at(const struct commit_rules *rules, int status, const char *needle,
                           json_t *body)
{
    struct api_error err = {0};
    struct commit_request c;
    int rc = commit_request_parse(body, rules, &arena, &c, &err);
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (rc == 0)
        fail_msg("accepted, want %d '%s': %s", status, needle, text);
    if (err.status != status || !strstr(err.detail, needle))
        fail_msg("got %d %s '%s', want %d with '%s': %s", err.status, err.code, err.detail, status,
                 needle, text);
    assert_string_equal(err.code, status == 400 ? "bad_request" : "validation");
    free(text);
    json_decref(err.extra);
}

/* The same for POST /commit. */
static void parse_fails(int status, const char *needle, json_t *body)
{
    parse_fails_at(&commit_rules_plain, status, needle, body);
}

/* The fingerprint of a body that must be accepted. */
static void fp_of(json_t *body, uint8_t out[COMMIT_FINGERPRINT_BYTES])
{
    struct commit_request c;
    parse_ok(body, &c);
    memcpy(out, c.fingerprint, COMMIT_FINGERPRINT_BYTES);
}

#define NS_T "'namespace':'ns','table':'t'"
#define F1 "{'path':'s3://b/p/1','record_count':1,'file_size_bytes':10}"
/* One file in one group, with `extra` members on the file. */
#define ONE_FILE(extra)                                                                            \
    "{'appends':[{" NS_T ",'files':[{'path':'s3://b/p/f','record_count':5,"                        \
    "'file_size_bytes':100" extra "}]}]}"
/* One stats entry with `stat` members on the only file. */
#define ONE_STAT(stat) ONE_FILE(",'column_stats':[{" stat "}]")
/* One deletion vector, with `extra` members on it. */
#define ONE_DV(extra)                                                                              \
    "{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'data_file_id':7,"                          \
    "'path':'s3://b/p/d.puffin','delete_count':2,'file_size_bytes':50" extra "}]}]}"

/* ---- accepted bodies ---- */

static void test_minimal_append(void **state)
{
    (void)state;
    struct commit_request c;
    parse_ok(js("{'appends':[{" NS_T ",'files':[" F1 "]}]}"), &c);
    assert_false(c.has_key);
    assert_false(c.has_read_snapshot);
    assert_null(c.author);
    assert_null(c.message);
    assert_int_equal(c.ntables, 1);
    assert_int_equal(c.nfiles, 1);
    assert_int_equal(c.ndvs, 0);
    assert_false(c.has_partition_values);
    const struct commit_table *t = &c.tables[0];
    assert_string_equal(t->namespace_name, "ns");
    assert_string_equal(t->name, "t");
    assert_int_equal(t->nexpected, 0);
    assert_int_equal(t->nfiles, 1);
    assert_int_equal(t->ndvs, 0);
    const struct commit_file *f = &t->files[0];
    assert_string_equal(f->path, "s3://b/p/1");
    assert_int_equal(f->record_count, 1);
    assert_int_equal(f->file_size_bytes, 10);
    assert_false(f->has_footer_size);
    assert_false(f->has_stats); /* absent column_stats: stats_state pending */
    assert_int_equal(f->nstats, 0);
    assert_false(f->has_partition_values);
    assert_null(f->split_offsets);
    assert_int_equal(f->nsplit_offsets, 0);
    assert_int_equal(c.fingerprint[0], COMMIT_FINGERPRINT_VERSION);
}

static void test_full_request(void **state)
{
    (void)state;
    struct commit_request c;
    parse_ok(js("{'idempotency_key':'0B9F1A6E-5C7D-4E1B-9A2F-3C4D5E6F7A8B','read_snapshot':42,"
                "'author':'me','message':'m\\u00e9ssage','appends':[{" NS_T
                ",'expected_table_uuid':'ABCDEF01-2345-6789-ABCD-EF0123456789','files':[{"
                "'path':'s3://b/p/f','record_count':281474976710656,'file_size_bytes':1000,"
                "'footer_size':992,'split_offsets':[0,4,999],'partition_values':['x',null,'']"
                ",'column_stats':[{'field_id':3,'value_count':9,'null_count':1,'nan_count':2,"
                "'size_bytes':77,'lower_bound':'AQ==','upper_bound':'Ag=='},"
                "{'field_id':2147483647,'value_count':0,'null_count':0}]}]}],"
                "'deletes':[{" NS_T ",'files':[{'data_file_id':0,'path':'s3://b/p/d',"
                "'delete_count':281474976710656,'file_size_bytes':0}]}]}"),
             &c);
    assert_true(c.has_key);
    assert_string_equal(c.key, "0b9f1a6e-5c7d-4e1b-9a2f-3c4d5e6f7a8b");
    assert_true(c.has_read_snapshot);
    assert_int_equal(c.read_snapshot, 42);
    assert_string_equal(c.author, "me");
    assert_string_equal(c.message, "m\xc3\xa9ssage");
    assert_true(c.has_partition_values);
    assert_int_equal(c.ntables, 1); /* the append and the delete group merged */
    assert_int_equal(c.nfiles, 1);
    assert_int_equal(c.ndvs, 1);
    const struct commit_table *t = &c.tables[0];
    assert_int_equal(t->nexpected, 1);
    assert_string_equal(t->expected_uuids[0], "abcdef01-2345-6789-abcd-ef0123456789");
    const struct commit_file *f = &t->files[0];
    assert_int_equal(f->record_count, COMMIT_MAX_RECORD_COUNT);
    assert_true(f->has_footer_size);
    assert_int_equal(f->footer_size, 992);
    assert_int_equal(f->nsplit_offsets, 3);
    assert_int_equal(f->split_offsets[0], 0);
    assert_int_equal(f->split_offsets[2], 999);
    assert_true(f->has_partition_values);
    assert_int_equal(f->npartition_values, 3);
    assert_string_equal(f->partition_values[0], "x");
    assert_null(f->partition_values[1]);
    assert_string_equal(f->partition_values[2], "");
    assert_true(f->has_stats);
    assert_int_equal(f->nstats, 2);
    const struct commit_stat *s = &f->stats[0];
    assert_int_equal(s->field_id, 3);
    assert_int_equal(s->value_count, 9);
    assert_int_equal(s->null_count, 1);
    assert_true(s->has_nan_count);
    assert_int_equal(s->nan_count, 2);
    assert_true(s->has_size_bytes);
    assert_int_equal(s->size_bytes, 77);
    assert_string_equal(s->lower_b64, "AQ==");
    assert_string_equal(s->upper_b64, "Ag==");
    assert_null(s->lower); /* decoded by the commit, not the parser */
    s = &f->stats[1];
    assert_int_equal(s->field_id, INT32_MAX);
    assert_false(s->has_nan_count);
    assert_false(s->has_size_bytes);
    assert_null(s->lower_b64);
    assert_null(s->upper_b64);
    const struct commit_dv *d = &t->dvs[0];
    assert_int_equal(d->data_file_id, 0);
    assert_string_equal(d->path, "s3://b/p/d");
    assert_int_equal(d->delete_count, COMMIT_MAX_RECORD_COUNT);
    assert_int_equal(d->file_size_bytes, 0);
}

static void test_nulls_are_absent(void **state)
{
    (void)state;
    struct commit_request c;
    parse_ok(js("{'idempotency_key':null,'read_snapshot':null,'author':null,'message':null,"
                "'deletes':null,'appends':[{" NS_T ",'expected_table_uuid':null,'files':[{"
                "'path':'s3://b/p/f','record_count':0,'file_size_bytes':0,'footer_size':null,"
                "'column_stats':null,'partition_values':null,'split_offsets':null}]}]}"),
             &c);
    assert_false(c.has_key);
    assert_false(c.has_read_snapshot);
    assert_null(c.author);
    assert_int_equal(c.tables[0].nexpected, 0);
    const struct commit_file *f = &c.tables[0].files[0];
    assert_int_equal(f->record_count, 0);
    assert_false(f->has_footer_size);
    assert_false(f->has_stats);
    assert_false(f->has_partition_values);
    assert_false(c.has_partition_values);
    assert_int_equal(f->nsplit_offsets, 0);
    /* Null members inside a stat are absent too. */
    parse_ok(js(ONE_STAT("'field_id':1,'value_count':1,'null_count':0,'nan_count':null,"
                         "'size_bytes':null,'lower_bound':null,'upper_bound':null")),
             &c);
    const struct commit_stat *s = &c.tables[0].files[0].stats[0];
    assert_false(s->has_nan_count);
    assert_false(s->has_size_bytes);
    assert_null(s->lower_b64);
    assert_null(s->upper_b64);
}

static void test_empty_stats_and_partitions(void **state)
{
    (void)state;
    struct commit_request c;
    /* [] is "provided, nothing for any column", not "pending". */
    parse_ok(js(ONE_FILE(",'column_stats':[]")), &c);
    assert_true(c.tables[0].files[0].has_stats);
    assert_int_equal(c.tables[0].files[0].nstats, 0);
    /* [] partition values parse (the arity is checked against the table's
     * spec by the commit). */
    parse_ok(js(ONE_FILE(",'partition_values':[]")), &c);
    assert_true(c.tables[0].files[0].has_partition_values);
    assert_int_equal(c.tables[0].files[0].npartition_values, 0);
    assert_true(c.has_partition_values);
}

static void test_range_edges_accepted(void **state)
{
    (void)state;
    struct commit_request c;
    /* footer_size may be file_size_bytes - 8 exactly. */
    parse_ok(js(ONE_FILE(",'footer_size':92")), &c);
    assert_int_equal(c.tables[0].files[0].footer_size, 92);
    parse_ok(js(ONE_FILE(",'footer_size':0")), &c);
    /* Large sizes. */
    parse_ok(js("{'appends':[{" NS_T ",'files':[{'path':'s3://b/p/f','record_count':0,"
                "'file_size_bytes':9223372036854775807,'footer_size':9223372036854775799,"
                "'split_offsets':[9223372036854775806]}]}]}"),
             &c);
    assert_int_equal(c.tables[0].files[0].split_offsets[0], INT64_MAX - 1);
    /* One offset at 0 and one at size - 1. */
    parse_ok(js(ONE_FILE(",'split_offsets':[0]")), &c);
    parse_ok(js(ONE_FILE(",'split_offsets':[99]")), &c);
    /* read_snapshot 0; counts at the int64 maximum. */
    parse_ok(js("{'read_snapshot':0,'appends':[{" NS_T ",'files':[" F1 "]}]}"), &c);
    assert_true(c.has_read_snapshot);
    assert_int_equal(c.read_snapshot, 0);
    parse_ok(js(ONE_STAT("'field_id':1,'value_count':9223372036854775807,"
                         "'null_count':9223372036854775807,'nan_count':9223372036854775807,"
                         "'size_bytes':9223372036854775807")),
             &c);
    /* Bounds are taken as text; decoding is the commit's. */
    parse_ok(js(ONE_STAT("'field_id':1,'value_count':1,'null_count':0,'lower_bound':'!!!',"
                         "'upper_bound':''")),
             &c);
    assert_string_equal(c.tables[0].files[0].stats[0].lower_b64, "!!!");
    assert_string_equal(c.tables[0].files[0].stats[0].upper_b64, "");
    /* Duplicate field ids are the commit's to refuse (it knows the
     * columns), not the parser's. */
    parse_ok(js(ONE_FILE(",'column_stats':[{'field_id':1,'value_count':1,'null_count':0},"
                         "{'field_id':1,'value_count':1,'null_count':0}]")),
             &c);
    /* A delete group without files is allowed next to an append. */
    parse_ok(js("{'read_snapshot':1,'appends':[{" NS_T ",'files':[" F1 "]}],'deletes':[{"
                "'namespace':'ns','table':'u','files':[]}]}"),
             &c);
    assert_int_equal(c.ntables, 2);
    assert_int_equal(c.tables[1].ndvs, 0);
}

static void test_max_split_offsets(void **state)
{
    (void)state;
    for (size_t n = COMMIT_MAX_SPLITS; n <= COMMIT_MAX_SPLITS + 1; n++) {
        json_t *body = js(ONE_FILE(",'split_offsets':[]"));
        json_t *file = json_array_get(
            json_object_get(json_array_get(json_object_get(body, "appends"), 0), "files"), 0);
        json_object_set_new(file, "file_size_bytes", json_integer(1000000));
        json_t *splits = json_object_get(file, "split_offsets");
        for (size_t i = 0; i < n; i++)
            json_array_append_new(splits, json_integer((json_int_t)i * 4));
        if (n == COMMIT_MAX_SPLITS) {
            struct commit_request c;
            parse_ok(body, &c);
            assert_int_equal(c.tables[0].files[0].nsplit_offsets, COMMIT_MAX_SPLITS);
            assert_int_equal(c.tables[0].files[0].split_offsets[n - 1], (int64_t)(n - 1) * 4);
        } else {
            parse_fails(422,
                        "appends[0].files[0].split_offsets must hold 1 to 100000 offsets, "
                        "got 100001",
                        body);
        }
    }
}

/* ---- 400: shape ---- */

static void test_shape_errors(void **state)
{
    (void)state;
    static const struct {
        const char *body, *needle;
    } cases[] = {
        /* the body */
        {"[]", "the body must be a JSON object"},
        {"{'appends':[{" NS_T ",'files':[" F1 "]}],'colour':1}", "unknown field 'colour'"},
        {"{'idempotency_key':5,'appends':[]}", "field 'idempotency_key' must be"},
        {"{'idempotency_key':'nope','appends':[{" NS_T ",'files':[" F1 "]}]}",
         "idempotency_key must be a UUID"},
        {"{'idempotency_key':'0b9f1a6e5c7d4e1b9a2f3c4d5e6f7a8b','appends':[]}",
         "idempotency_key must be a UUID"},
        {"{'idempotency_key':'{0b9f1a6e-5c7d-4e1b-9a2f-3c4d5e6f7a8b}','appends':[]}",
         "idempotency_key must be a UUID"},
        {"{'read_snapshot':'1','appends':[]}", "field 'read_snapshot' must be"},
        {"{'read_snapshot':1.0,'appends':[]}", "field 'read_snapshot' must be"},
        {"{'read_snapshot':true,'appends':[]}", "field 'read_snapshot' must be"},
        {"{'appends':{}}", "field 'appends' must be"},
        {"{'deletes':'x'}", "field 'deletes' must be"},
        {"{'author':1,'appends':[]}", "field 'author' must be"},
        {"{'message':[],'appends':[]}", "field 'message' must be"},
        /* a group */
        {"{'appends':[1]}", "appends[0] must be a JSON object"},
        {"{'appends':[{'table':'t','files':[" F1 "]}]}",
         "missing required field 'appends[0].namespace'"},
        {"{'appends':[{'namespace':'ns','files':[" F1 "]}]}",
         "missing required field 'appends[0].table'"},
        {"{'appends':[{" NS_T "}]}", "missing required field 'appends[0].files'"},
        {"{'appends':[{" NS_T ",'files':null}]}", "field 'appends[0].files' must not be null"},
        {"{'appends':[{'namespace':null,'table':'t','files':[" F1 "]}]}",
         "field 'appends[0].namespace' must not be null"},
        {"{'appends':[{'namespace':1,'table':'t','files':[" F1 "]}]}",
         "field 'appends[0].namespace' must be"},
        {"{'appends':[{" NS_T ",'files':{}}]}", "field 'appends[0].files' must be"},
        {"{'appends':[{" NS_T ",'files':[" F1 "],'ttl':1}]}", "unknown field 'appends[0].ttl'"},
        {"{'appends':[{" NS_T ",'files':[" F1 "]},{" NS_T ",'files':[" F1 "],'x':1}]}",
         "unknown field 'appends[1].x'"},
        {"{'appends':[{" NS_T ",'expected_table_uuid':'x','files':[" F1 "]}]}",
         "appends[0].expected_table_uuid must be a UUID"},
        {"{'appends':[{" NS_T ",'expected_table_uuid':7,'files':[" F1 "]}]}",
         "field 'appends[0].expected_table_uuid' must be"},
        /* a file */
        {"{'appends':[{" NS_T ",'files':['s3://b/p/1']}]}",
         "appends[0].files[0] must be a JSON object"},
        {"{'appends':[{" NS_T ",'files':[" F1 ",{'record_count':1,'file_size_bytes':1}]}]}",
         "missing required field 'appends[0].files[1].path'"},
        {ONE_FILE(",'colour':'red'"), "unknown field 'appends[0].files[0].colour'"},
        {"{'appends':[{" NS_T ",'files':[{'path':'s3://b/p/f','file_size_bytes':1}]}]}",
         "missing required field 'appends[0].files[0].record_count'"},
        {"{'appends':[{" NS_T ",'files':[{'path':'s3://b/p/f','record_count':1}]}]}",
         "missing required field 'appends[0].files[0].file_size_bytes'"},
        {"{'appends':[{" NS_T ",'files':[{'path':'s3://b/p/f','record_count':'1',"
         "'file_size_bytes':1}]}]}",
         "field 'appends[0].files[0].record_count' must be"},
        {"{'appends':[{" NS_T ",'files':[{'path':'s3://b/p/f','record_count':1e3,"
         "'file_size_bytes':1}]}]}",
         "field 'appends[0].files[0].record_count' must be"},
        {"{'appends':[{" NS_T ",'files':[{'path':null,'record_count':1,'file_size_bytes':1}]}]}",
         "field 'appends[0].files[0].path' must not be null"},
        {ONE_FILE(",'footer_size':'8'"), "field 'appends[0].files[0].footer_size' must be"},
        {ONE_FILE(",'column_stats':{}"), "field 'appends[0].files[0].column_stats' must be"},
        {ONE_FILE(",'partition_values':'x'"),
         "field 'appends[0].files[0].partition_values' must be"},
        {ONE_FILE(",'partition_values':['a',1]"),
         "appends[0].files[0].partition_values[1] must be a string or null"},
        {ONE_FILE(",'partition_values':[['a']]"),
         "appends[0].files[0].partition_values[0] must be a string or null"},
        {ONE_FILE(",'split_offsets':{}"), "field 'appends[0].files[0].split_offsets' must be"},
        {ONE_FILE(",'split_offsets':[4,'8']"),
         "appends[0].files[0].split_offsets[1] must be an integer"},
        {ONE_FILE(",'split_offsets':[4,null]"),
         "appends[0].files[0].split_offsets[1] must be an integer"},
        {ONE_FILE(",'split_offsets':[4.0]"),
         "appends[0].files[0].split_offsets[0] must be an integer"},
        /* a stat */
        {ONE_FILE(",'column_stats':[1]"),
         "appends[0].files[0].column_stats[0] must be a JSON object"},
        {ONE_STAT("'value_count':1,'null_count':0"),
         "missing required field 'appends[0].files[0].column_stats[0].field_id'"},
        {ONE_STAT("'field_id':1,'null_count':0"),
         "missing required field 'appends[0].files[0].column_stats[0].value_count'"},
        {ONE_STAT("'field_id':1,'value_count':1"),
         "missing required field 'appends[0].files[0].column_stats[0].null_count'"},
        {ONE_STAT("'field_id':1,'value_count':1,'null_count':0,'min':1"),
         "unknown field 'appends[0].files[0].column_stats[0].min'"},
        {ONE_STAT("'field_id':'1','value_count':1,'null_count':0"),
         "field 'appends[0].files[0].column_stats[0].field_id' must be"},
        {ONE_STAT("'field_id':1,'value_count':null,'null_count':0"),
         "field 'appends[0].files[0].column_stats[0].value_count' must not be null"},
        {ONE_STAT("'field_id':1,'value_count':1,'null_count':0,'lower_bound':1"),
         "field 'appends[0].files[0].column_stats[0].lower_bound' must be"},
        {ONE_STAT("'field_id':1,'value_count':1,'null_count':0,'upper_bound':[1]"),
         "field 'appends[0].files[0].column_stats[0].upper_bound' must be"},
        {ONE_STAT("'field_id':1,'value_count':1,'null_count':0,'nan_count':'0'"),
         "field 'appends[0].files[0].column_stats[0].nan_count' must be"},
        {ONE_STAT("'field_id':1,'value_count':1,'null_count':0,'size_bytes':true"),
         "field 'appends[0].files[0].column_stats[0].size_bytes' must be"},
        /* a deletion vector */
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'path':'s3://b/p/d',"
         "'delete_count':1,'file_size_bytes':1}]}]}",
         "missing required field 'deletes[0].files[0].data_file_id'"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'data_file_id':1,"
         "'delete_count':1,'file_size_bytes':1}]}]}",
         "missing required field 'deletes[0].files[0].path'"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'data_file_id':1,'path':'p',"
         "'file_size_bytes':1}]}]}",
         "missing required field 'deletes[0].files[0].delete_count'"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'data_file_id':1,'path':'p',"
         "'delete_count':1}]}]}",
         "missing required field 'deletes[0].files[0].file_size_bytes'"},
        {ONE_DV(",'record_count':1"), "unknown field 'deletes[0].files[0].record_count'"},
        {ONE_DV(",'data_file_path':5"), "field 'deletes[0].files[0].data_file_path' must be"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'data_file_id':'7','path':'p',"
         "'delete_count':1,'file_size_bytes':1}]}]}",
         "field 'deletes[0].files[0].data_file_id' must be"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[1]}]}",
         "deletes[0].files[0] must be a JSON object"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'expected_table_uuid':'1','files':[]}]}",
         "deletes[0].expected_table_uuid must be a UUID"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[],'x':1}]}",
         "unknown field 'deletes[0].x'"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++)
        parse_fails(400, cases[i].needle, js("%s", cases[i].body));
}

/* ---- 422: ranges and meaning ---- */

static void test_range_errors(void **state)
{
    (void)state;
    static const struct {
        const char *body, *needle;
    } cases[] = {
        /* the request as a whole */
        {"{}", "nothing to commit"},
        {"{'appends':[]}", "nothing to commit"},
        {"{'appends':[],'deletes':[]}", "nothing to commit"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[]}]}", "nothing to commit"},
        {"{'read_snapshot':-1,'appends':[{" NS_T ",'files':[" F1 "]}]}",
         "read_snapshot must not be negative"},
        {"{'deletes':[{" NS_T ",'files':[{'data_file_id':1,'path':'p','delete_count':1,"
         "'file_size_bytes':1}]}]}",
         "a commit with deletes needs read_snapshot"},
        /* a group */
        {"{'appends':[{" NS_T ",'files':[]}]}", "appends[0].files must hold at least one file"},
        {"{'appends':[{" NS_T ",'files':[" F1 "]},{" NS_T ",'files':[]}]}",
         "appends[1].files must hold at least one file"},
        {"{'appends':[{'namespace':'','table':'t','files':[" F1 "]}]}", "invalid namespace name"},
        {"{'appends':[{'namespace':'a.b','table':'t','files':[" F1 "]}]}",
         "invalid namespace name 'a.b'"},
        {"{'appends':[{'namespace':'ns','table':'1t','files':[" F1 "]}]}",
         "invalid table name '1t'"},
        {"{'appends':[{'namespace':'ns','table':'t t','files':[" F1 "]}]}", "invalid table name"},
        {"{'read_snapshot':1,'deletes':[{'namespace':'ns','table':'','files':[]}]}",
         "invalid table name"},
        /* a file */
        {"{'appends':[{" NS_T ",'files':[{'path':'p','record_count':-1,'file_size_bytes':1}]}]}",
         "appends[0].files[0].record_count must be between 0 and 281474976710656, got -1"},
        {"{'appends':[{" NS_T ",'files':[{'path':'p','record_count':281474976710657,"
         "'file_size_bytes':1}]}]}",
         "appends[0].files[0].record_count must be between 0 and 281474976710656"},
        {"{'appends':[{" NS_T ",'files':[{'path':'p','record_count':1,'file_size_bytes':-5}]}]}",
         "appends[0].files[0].file_size_bytes must be between 0 and"},
        {"{'appends':[{" NS_T ",'files':[" F1 ",{'path':'p','record_count':1,"
         "'file_size_bytes':1,'footer_size':-1}]}]}",
         "appends[0].files[1].footer_size must be between 0 and"},
        {ONE_FILE(",'footer_size':93"), "appends[0].files[0].footer_size 93 does not fit"},
        {"{'appends':[{" NS_T ",'files':[{'path':'p','record_count':1,'file_size_bytes':7,"
         "'footer_size':0}]}]}",
         "appends[0].files[0].footer_size 0 does not fit in a 7-byte"},
        {ONE_FILE(",'split_offsets':[]"),
         "appends[0].files[0].split_offsets must hold 1 to 100000 offsets, got 0"},
        {ONE_FILE(",'split_offsets':[4,4]"), "appends[0].files[0].split_offsets must increase"},
        {ONE_FILE(",'split_offsets':[8,4]"), "offset 1 is 4"},
        {ONE_FILE(",'split_offsets':[-1]"), "offset 0 is -1"},
        {ONE_FILE(",'split_offsets':[4,100]"), "offset 1 is 100"},
        {"{'appends':[{" NS_T ",'files':[{'path':'p','record_count':0,'file_size_bytes':0,"
         "'split_offsets':[0]}]}]}",
         "split_offsets must increase strictly within [0, file_size_bytes)"},
        /* a stat */
        {ONE_STAT("'field_id':0,'value_count':1,'null_count':0"),
         "appends[0].files[0].column_stats[0].field_id must be a column's field id, got 0"},
        {ONE_STAT("'field_id':-3,'value_count':1,'null_count':0"), "field id, got -3"},
        {ONE_STAT("'field_id':2147483648,'value_count':1,'null_count':0"),
         "field id, got 2147483648"},
        {ONE_STAT("'field_id':1,'value_count':-1,'null_count':0"),
         "appends[0].files[0].column_stats[0].value_count must be between 0 and"},
        {ONE_STAT("'field_id':1,'value_count':1,'null_count':-1"),
         "appends[0].files[0].column_stats[0].null_count must be between 0 and"},
        {ONE_STAT("'field_id':1,'value_count':1,'null_count':0,'nan_count':-1"),
         "appends[0].files[0].column_stats[0].nan_count must be between 0 and"},
        {ONE_STAT("'field_id':1,'value_count':1,'null_count':0,'size_bytes':-1"),
         "appends[0].files[0].column_stats[0].size_bytes must be between 0 and"},
        {ONE_FILE(",'column_stats':[{'field_id':1,'value_count':1,'null_count':0},"
                  "{'field_id':2,'value_count':1,'null_count':-2}]"),
         "appends[0].files[0].column_stats[1].null_count"},
        /* a deletion vector */
        {ONE_DV(",'data_file_path':'s3://b/p/f'"),
         "deletes[0].files[0].data_file_path is only accepted by the transaction endpoint"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'data_file_id':-1,'path':'p',"
         "'delete_count':1,'file_size_bytes':1}]}]}",
         "deletes[0].files[0].data_file_id must be between 0 and"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'data_file_id':1,'path':'p',"
         "'delete_count':1,'file_size_bytes':-1}]}]}",
         "deletes[0].files[0].file_size_bytes must be between 0 and"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'data_file_id':1,'path':'p',"
         "'delete_count':0,'file_size_bytes':1}]}]}",
         "deletes[0].files[0].delete_count must be positive"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'data_file_id':1,'path':'p',"
         "'delete_count':-1,'file_size_bytes':1}]}]}",
         "deletes[0].files[0].delete_count must be between 0 and 281474976710656"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'data_file_id':1,'path':'p',"
         "'delete_count':281474976710657,'file_size_bytes':1}]}]}",
         "deletes[0].files[0].delete_count must be between 0 and 281474976710656"},
        {"{'read_snapshot':1,'deletes':[{" NS_T ",'files':[{'data_file_id':1,'path':'p',"
         "'delete_count':1,'file_size_bytes':1}]},{" NS_T ",'files':[{'data_file_id':2,"
         "'path':'q','delete_count':0,'file_size_bytes':1}]}]}",
         "deletes[1].files[0].delete_count must be positive"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++)
        parse_fails(422, cases[i].needle, js("%s", cases[i].body));
}

/* The body is read in document order, so the first problem wins whatever
 * its status: a 422 early in the body hides a 400 later in it. */
static void test_first_problem_wins(void **state)
{
    (void)state;
    parse_fails(422, "appends[0].files[0].record_count",
                js("{'appends':[{" NS_T ",'files':[{'path':'p','record_count':-1,"
                   "'file_size_bytes':1},{'colour':1}]}]}"));
    parse_fails(400, "unknown field 'appends[0].files[0].colour'",
                js("{'appends':[{" NS_T ",'files':[{'path':'p','record_count':1,"
                   "'file_size_bytes':1,'colour':1},{'path':'p','record_count':-1,"
                   "'file_size_bytes':1}]}]}"));
    /* Top-level members are all checked for shape before any value. */
    parse_fails(400, "field 'author' must be", js("{'read_snapshot':-1,'author':1,'appends':[]}"));
    /* Appends are read before deletes. */
    parse_fails(422, "appends[0].files[0].record_count",
                js("{'deletes':[{" NS_T ",'files':[{'x':1}]}],'appends':[{" NS_T
                   ",'files':[{'path':'p','record_count':-1,'file_size_bytes':1}]}]}"));
    /* "nothing to commit" and the read_snapshot rule come after every
     * member was read. */
    parse_fails(400, "unknown field 'deletes[0].files[0].x'",
                js("{'deletes':[{" NS_T ",'files':[{'x':1}]}]}"));
}

/* ---- merging ---- */

static void test_merge_groups(void **state)
{
    (void)state;
    struct commit_request c;
    parse_ok(js("{'read_snapshot':5,'appends':["
                "{" NS_T ",'expected_table_uuid':'11111111-1111-1111-1111-111111111111',"
                "'files':[{'path':'s3://b/p/a1','record_count':1,'file_size_bytes':1}]},"
                "{'namespace':'ns','table':'u','files':[{'path':'s3://b/p/b1','record_count':2,"
                "'file_size_bytes':1}]},"
                "{'namespace':'other','table':'t','files':[{'path':'s3://b/p/c1',"
                "'record_count':3,'file_size_bytes':1}]},"
                "{" NS_T ",'expected_table_uuid':'22222222-2222-2222-2222-2222222222AA',"
                "'files':[{'path':'s3://b/p/a2','record_count':4,'file_size_bytes':1},"
                "{'path':'s3://b/p/a3','record_count':5,'file_size_bytes':1}]},"
                "{'namespace':'ns','table':'T','files':[{'path':'s3://b/p/d1','record_count':6,"
                "'file_size_bytes':1}]}],"
                "'deletes':["
                "{'namespace':'ns','table':'v','files':[{'data_file_id':1,'path':'s3://b/p/x1',"
                "'delete_count':1,'file_size_bytes':1}]},"
                "{" NS_T ",'expected_table_uuid':'33333333-3333-3333-3333-333333333333',"
                "'files':[{'data_file_id':2,'path':'s3://b/p/x2','delete_count':1,"
                "'file_size_bytes':1},{'data_file_id':3,'path':'s3://b/p/x3','delete_count':1,"
                "'file_size_bytes':1}]},"
                "{'namespace':'ns','table':'v','files':[{'data_file_id':4,'path':'s3://b/p/x4',"
                "'delete_count':1,'file_size_bytes':1}]}]}"),
             &c);
    /* First-occurrence order; names are compared exactly (T is not t;
     * other.t is not ns.t). */
    assert_int_equal(c.ntables, 5);
    static const char *const names[][2] = {
        {"ns", "t"}, {"ns", "u"}, {"other", "t"}, {"ns", "T"}, {"ns", "v"}};
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(c.tables[i].namespace_name, names[i][0]);
        assert_string_equal(c.tables[i].name, names[i][1]);
    }
    assert_int_equal(c.nfiles, 6);
    assert_int_equal(c.ndvs, 4);
    /* ns.t: appends concatenated in request order, its deletes too. */
    const struct commit_table *t = &c.tables[0];
    assert_int_equal(t->nfiles, 3);
    assert_string_equal(t->files[0].path, "s3://b/p/a1");
    assert_string_equal(t->files[1].path, "s3://b/p/a2");
    assert_string_equal(t->files[2].path, "s3://b/p/a3");
    assert_int_equal(t->files[2].record_count, 5);
    assert_int_equal(t->ndvs, 2);
    assert_int_equal(t->dvs[0].data_file_id, 2);
    assert_int_equal(t->dvs[1].data_file_id, 3);
    /* Every expected_table_uuid is collected, lowercased, in order. */
    assert_int_equal(t->nexpected, 3);
    assert_string_equal(t->expected_uuids[0], "11111111-1111-1111-1111-111111111111");
    assert_string_equal(t->expected_uuids[1], "22222222-2222-2222-2222-2222222222aa");
    assert_string_equal(t->expected_uuids[2], "33333333-3333-3333-3333-333333333333");
    /* ns.v: delete-only, its two groups merged. */
    t = &c.tables[4];
    assert_int_equal(t->nfiles, 0);
    assert_int_equal(t->ndvs, 2);
    assert_int_equal(t->dvs[0].data_file_id, 1);
    assert_int_equal(t->dvs[1].data_file_id, 4);
    assert_int_equal(t->nexpected, 0);
    assert_int_equal(c.tables[1].nfiles, 1);
    assert_int_equal(c.tables[1].ndvs, 0);
}

/* Many tables, each named twice: the table list grows and stays merged. */
static void test_merge_many_tables(void **state)
{
    (void)state;
    json_t *body = js("{'appends':[]}");
    json_t *groups = json_object_get(body, "appends");
    enum { NT = 37 };
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < NT; i++) {
            char name[16], path[64];
            snprintf(name, sizeof name, "t%d", i);
            snprintf(path, sizeof path, "s3://b/p/%s-%d", name, round);
            json_array_append_new(groups,
                                  json_pack("{s:s,s:s,s:[{s:s,s:i,s:i}]}", "namespace", "ns",
                                            "table", name, "files", "path", path, "record_count",
                                            round + 1, "file_size_bytes", 1));
        }
    struct commit_request c;
    parse_ok(body, &c);
    assert_int_equal(c.ntables, NT);
    assert_int_equal(c.nfiles, 2 * NT);
    for (int i = 0; i < NT; i++) {
        char name[16], path[64];
        snprintf(name, sizeof name, "t%d", i);
        assert_string_equal(c.tables[i].name, name);
        assert_int_equal(c.tables[i].nfiles, 2);
        snprintf(path, sizeof path, "s3://b/p/%s-1", name);
        assert_string_equal(c.tables[i].files[1].path, path);
        assert_int_equal(c.tables[i].files[1].record_count, 2);
    }
}

/* author and message: at most COMMIT_MAX_TEXT_BYTES bytes each (they come
 * back with every snapshot page holding their snapshot). */
static void test_author_message_length(void **state)
{
    (void)state;
    static const char *const members[] = {"author", "message"};
    char *text = malloc(COMMIT_MAX_TEXT_BYTES + 2);
    assert_non_null(text);
    memset(text, 'm', COMMIT_MAX_TEXT_BYTES + 1);
    for (size_t i = 0; i < ARRAY_LEN(members); i++) {
        text[COMMIT_MAX_TEXT_BYTES] = '\0';
        json_t *body = js("{'appends':[{" NS_T ",'files':[" F1 "]}]}");
        json_object_set_new(body, members[i], json_string(text));
        struct commit_request c;
        parse_ok(body, &c);
        assert_int_equal(strlen(i == 0 ? c.author : c.message), COMMIT_MAX_TEXT_BYTES);
        text[COMMIT_MAX_TEXT_BYTES] = 'm';
        text[COMMIT_MAX_TEXT_BYTES + 1] = '\0';
        body = js("{'appends':[{" NS_T ",'files':[" F1 "]}]}");
        json_object_set_new(body, members[i], json_string(text));
        char needle[64];
        snprintf(needle, sizeof needle, "%s must be at most %d bytes", members[i],
                 COMMIT_MAX_TEXT_BYTES);
        parse_fails(422, needle, body);
    }
    free(text);
}

/* A partition value: at most COMMIT_MAX_PARTITION_VALUE_BYTES (a btree
 * key of the partition value lookup). */
static void test_partition_value_length(void **state)
{
    (void)state;
    char value[COMMIT_MAX_PARTITION_VALUE_BYTES + 2];
    memset(value, 'v', sizeof value - 1);
    value[COMMIT_MAX_PARTITION_VALUE_BYTES] = '\0';
    json_t *body = js("{'appends':[{" NS_T ",'files':[" F1 "]}]}");
    json_t *file = json_array_get(
        json_object_get(json_array_get(json_object_get(body, "appends"), 0), "files"), 0);
    json_object_set_new(file, "partition_values", json_pack("[s,n]", value));
    struct commit_request c;
    parse_ok(json_deep_copy(body), &c);
    assert_int_equal(strlen(c.tables[0].files[0].partition_values[0]),
                     COMMIT_MAX_PARTITION_VALUE_BYTES);
    value[COMMIT_MAX_PARTITION_VALUE_BYTES] = 'v';
    value[COMMIT_MAX_PARTITION_VALUE_BYTES + 1] = '\0';
    json_object_set_new(file, "partition_values", json_pack("[s,n]", value));
    parse_fails(422, "appends[0].files[0].partition_values[0] is 2049 bytes, longer than 2048",
                body);
}

/* ---- bodies of many groups ---- */

/* The shapes of a big body an attacker could send. */
enum big_shape {
    BIG_DISTINCT_TABLES, /* n tables, each named by two groups, interleaved */
    BIG_ONE_TABLE,       /* n groups, all of one table */
    BIG_DVS_BY_PATH,     /* one table: n appended files, n vectors naming them by path */
};

static json_t *big_body(enum big_shape shape, size_t n)
{
    json_t *body =
        json_pack("{s:s,s:i,s:[],s:[]}", "idempotency_key", "0b9f1a6e-5c7d-4e1b-9a2f-3c4d5e6f7a8b",
                  "read_snapshot", 3, "appends", "deletes");
    json_t *appends = json_object_get(body, "appends"), *deletes = json_object_get(body, "deletes");
    const char *uuid = "11111111-1111-4111-8111-111111111111";
    char name[32], path[64], dv[64];
    json_t *files = json_array(), *dvs = json_array();
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "s3://b/p/f%zu", i);
        json_t *f =
            json_pack("{s:s,s:i,s:i}", "path", path, "record_count", 1, "file_size_bytes", 1);
        switch (shape) {
        case BIG_DISTINCT_TABLES:
            /* t0..t(n/2-1), then the same names again. */
            snprintf(name, sizeof name, "t%zu", i % (n / 2));
            json_array_append_new(appends,
                                  json_pack("{s:s,s:s,s:s,s:[o]}", "namespace", "ns", "table", name,
                                            "expected_table_uuid", uuid, "files", f));
            break;
        case BIG_ONE_TABLE:
            json_array_append_new(appends,
                                  json_pack("{s:s,s:s,s:s,s:[o]}", "namespace", "ns", "table", "t",
                                            "expected_table_uuid", uuid, "files", f));
            break;
        case BIG_DVS_BY_PATH:
            json_array_append_new(files, f);
            snprintf(dv, sizeof dv, "s3://b/p/d%zu", i);
            json_array_append_new(dvs, json_pack("{s:i,s:s,s:s,s:i,s:i}", "data_file_id", 0,
                                                 "data_file_path", path, "path", dv, "delete_count",
                                                 1, "file_size_bytes", 1));
            break;
        }
    }
    if (shape == BIG_DVS_BY_PATH) {
        json_array_append_new(appends, json_pack("{s:s,s:s,s:s,s:o}", "namespace", "ns", "table",
                                                 "t", "expected_table_uuid", uuid, "files", files));
        json_array_append_new(deletes, json_pack("{s:s,s:s,s:s,s:o}", "namespace", "ns", "table",
                                                 "t", "expected_table_uuid", uuid, "files", dvs));
    } else {
        json_decref(files);
        json_decref(dvs);
    }
    return body;
}

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The least CPU time of three parses of body (each checked). */
static double parse_cpu(enum big_shape shape, size_t n, json_t *body)
{
    double best = 1e9;
    for (int round = 0; round < 3; round++) {
        arena_free(&arena);
        arena_init(&arena, 0);
        struct commit_request c;
        struct api_error err = {0};
        double t0 = cpu_seconds();
        int rc = commit_request_parse(body, &commit_rules_transaction, &arena, &c, &err);
        double t = cpu_seconds() - t0;
        if (rc != 0)
            fail_msg("a body of %zu groups was refused: %s", n, err.detail);
        switch (shape) {
        case BIG_DISTINCT_TABLES:
            assert_int_equal(c.ntables, n / 2);
            assert_int_equal(c.tables[n / 2 - 1].nfiles, 2);
            break;
        case BIG_ONE_TABLE:
            assert_int_equal(c.ntables, 1);
            assert_int_equal(c.tables[0].nfiles, n);
            assert_int_equal(c.tables[0].nexpected, n);
            break;
        case BIG_DVS_BY_PATH:
            assert_int_equal(c.tables[0].ndvs, n);
            assert_int_equal(c.tables[0].dvs[n - 1].append_index, n - 1);
            break;
        }
        if (t < best)
            best = t;
    }
    return best;
}

/* A body's groups cost n log n, not a search of the earlier ones per group
 * (a 64 MiB body holds some 500,000): four times the groups take well
 * under the sixteen times a quadratic parse would. A ratio of one
 * process's CPU times, not a time: it holds under sanitizers and load. */
static void test_many_groups_scale(void **state)
{
    (void)state;
    static const char *const what[] = {"distinct tables", "one table", "vectors by path"};
    enum { SMALL = 4000 };
    for (int shape = BIG_DISTINCT_TABLES; shape <= BIG_DVS_BY_PATH; shape++) {
        json_t *small = big_body((enum big_shape)shape, SMALL);
        json_t *large = big_body((enum big_shape)shape, 4 * SMALL);
        double a = parse_cpu((enum big_shape)shape, SMALL, small);
        double b = parse_cpu((enum big_shape)shape, 4 * SMALL, large);
        print_message("%s: %d groups %.4f s, %d groups %.4f s: %.1fx\n", what[shape], SMALL, a,
                      4 * SMALL, b, b / a);
        if (b > 8 * a)
            fail_msg("%s: 4x the groups took %.1fx the CPU time", what[shape], b / a);
        json_decref(small);
        json_decref(large);
    }
}

/* ---- the fingerprint ---- */

static void expect_same_fp(const uint8_t *a, const uint8_t *b, const char *what)
{
    if (memcmp(a, b, COMMIT_FINGERPRINT_BYTES) != 0)
        fail_msg("the fingerprint changed: %s", what);
}

static void expect_other_fp(const uint8_t *a, const uint8_t *b, const char *what)
{
    if (memcmp(a, b, COMMIT_FINGERPRINT_BYTES) == 0)
        fail_msg("the fingerprint did not change: %s", what);
}

#define FP_KEY "0b9f1a6e-5c7d-4e1b-9a2f-3c4d5e6f7a8b"
/* The reference request. */
#define FP_BASE                                                                                    \
    "{'idempotency_key':'" FP_KEY "','read_snapshot':3,'author':'a','message':'m',"                \
    "'appends':[{'namespace':'ns','table':'t','files':["                                           \
    "{'path':'s3://b/p/1','record_count':1,'file_size_bytes':10,'partition_values':['x',null,"     \
    "'z'],'column_stats':[{'field_id':1,'value_count':1,'null_count':0,'lower_bound':'AQ==',"      \
    "'upper_bound':'Ag=='},{'field_id':2,'value_count':1,'null_count':1}]},"                       \
    "{'path':'s3://b/p/2','record_count':2,'file_size_bytes':20,'partition_values':['y',null,"     \
    "'z']}]},"                                                                                     \
    "{'namespace':'ns','table':'u','files':[{'path':'s3://b/p/3','record_count':3,"                \
    "'file_size_bytes':30}]}],"                                                                    \
    "'deletes':[{'namespace':'ns','table':'t','files':[{'data_file_id':7,'path':'s3://b/p/d1',"    \
    "'delete_count':1,'file_size_bytes':5},{'data_file_id':8,'path':'s3://b/p/d2',"                \
    "'delete_count':2,'file_size_bytes':5}]},{'namespace':'ns','table':'w','files':[{"             \
    "'data_file_id':9,'path':'s3://b/p/d3','delete_count':3,'file_size_bytes':5}]}]}"

static void test_fingerprint_format(void **state)
{
    (void)state;
    uint8_t fp[COMMIT_FINGERPRINT_BYTES];
    fp_of(js(FP_BASE), fp);
    assert_int_equal(COMMIT_FINGERPRINT_BYTES, 33);
    assert_int_equal(fp[0], 0xC1);
    /* A golden value: version byte 0xC1, then SHA-256 of the canonical text
     * (the body without idempotency_key and null members, UUIDs in lower
     * case, keys sorted, compact, the files' stats, the files and the groups
     * sorted by their canonical text).
     * The digest is stored in receipts: if this changes, every stored
     * receipt stops matching, so COMMIT_FINGERPRINT_VERSION must change
     * with it. */
    static const char canonical[] =
        "{\"appends\":[{\"files\":[{\"column_stats\":[{\"field_id\":1,\"lower_bound\":\"AQ==\","
        "\"null_count\":0,\"value_count\":1},{\"field_id\":2,\"null_count\":0,\"value_count\":1}"
        "],\"file_size_bytes\":10,\"path\":\"s3://b/p/1\",\"record_count\":1},{\"file_size_bytes"
        "\":20,\"path\":\"s3://b/p/2\",\"record_count\":2}],\"namespace\":\"ns\",\"table\":\"t\"}"
        "],\"read_snapshot\":3}";
    static const uint8_t golden[COMMIT_FINGERPRINT_BYTES] = {
        0xC1, 0xf7, 0x14, 0x20, 0x7f, 0x16, 0x94, 0xbb, 0x96, 0x64, 0x13,
        0x4b, 0x7b, 0x55, 0x68, 0x09, 0x22, 0xdd, 0xbd, 0x7e, 0x1b, 0x13,
        0x61, 0xd0, 0x29, 0xc6, 0xf4, 0x2c, 0xcf, 0x8d, 0xfa, 0xb2, 0x60};
    uint8_t digest[SHA256_BYTES];
    assert_int_equal(sha256(canonical, strlen(canonical), digest), 0);
    assert_memory_equal(digest, golden + 1, SHA256_BYTES);
    /* Sent in another order, with a key: the same digest. */
    fp_of(js("{'read_snapshot':3,'idempotency_key':'" FP_KEY "','appends':[{'table':'t',"
             "'namespace':'ns','files':[{'record_count':2,'path':'s3://b/p/2',"
             "'file_size_bytes':20},{'path':'s3://b/p/1','record_count':1,'file_size_bytes':10,"
             "'column_stats':[{'value_count':1,'field_id':2,'null_count':0},{'field_id':1,"
             "'value_count':1,'null_count':0,'lower_bound':'AQ=='}]}]}]}"),
          fp);
    assert_memory_equal(fp, golden, COMMIT_FINGERPRINT_BYTES);
}

static void test_fingerprint_invariances(void **state)
{
    (void)state;
    uint8_t base[COMMIT_FINGERPRINT_BYTES], fp[COMMIT_FINGERPRINT_BYTES];
    fp_of(js(FP_BASE), base);
    /* Groups reordered (appends and deletes), files reordered inside
     * their groups, stats reordered, every object's keys reordered. */
    fp_of(js("{'deletes':[{'files':[{'file_size_bytes':5,'delete_count':3,'path':'s3://b/p/d3',"
             "'data_file_id':9}],'table':'w','namespace':'ns'},{'table':'t','namespace':'ns',"
             "'files':[{'data_file_id':8,'path':'s3://b/p/d2','delete_count':2,"
             "'file_size_bytes':5},{'delete_count':1,'data_file_id':7,'path':'s3://b/p/d1',"
             "'file_size_bytes':5}]}],"
             "'appends':[{'files':[{'file_size_bytes':30,'path':'s3://b/p/3','record_count':3}],"
             "'table':'u','namespace':'ns'},{'table':'t','namespace':'ns','files':["
             "{'partition_values':['y',null,'z'],'file_size_bytes':20,'record_count':2,"
             "'path':'s3://b/p/2'},{'column_stats':[{'null_count':1,'value_count':1,"
             "'field_id':2},{'upper_bound':'Ag==','lower_bound':'AQ==','null_count':0,"
             "'value_count':1,'field_id':1}],'partition_values':['x',null,'z'],"
             "'file_size_bytes':10,'record_count':1,'path':'s3://b/p/1'}]}],"
             "'message':'m','author':'a','read_snapshot':3,'idempotency_key':'" FP_KEY "'}"),
          fp);
    expect_same_fp(base, fp, "groups, files, stats and keys reordered");
    /* The key is excluded: another key, an upper-case key, or none. */
    char *other = strdup(FP_BASE);
    memcpy(strstr(other, FP_KEY), "ffffffff-5c7d-4e1b-9a2f-3c4d5e6f7a8b", 36);
    fp_of(js("%s", other), fp);
    expect_same_fp(base, fp, "another idempotency_key");
    memcpy(strstr(other, "ffffffff"), "0B9F1A6E-5C7D-4E1B-9A2F-3C4D5E6F7A8B", 36);
    fp_of(js("%s", other), fp);
    expect_same_fp(base, fp, "the idempotency_key in capitals");
    free(other);
    json_t *body = js(FP_BASE);
    json_object_del(body, "idempotency_key");
    fp_of(body, fp);
    expect_same_fp(base, fp, "no idempotency_key");
    /* A null member means the same as an absent one; null partition
     * values are values and stay (they are covered by the edits test). */
    body = js(FP_BASE);
    json_t *files = json_object_get(json_array_get(json_object_get(body, "appends"), 0), "files");
    json_object_set_new(json_array_get(files, 1), "footer_size", json_null());
    json_object_set_new(json_array_get(files, 1), "column_stats", json_null());
    fp_of(body, fp);
    expect_same_fp(base, fp, "null members added");
    /* expected_table_uuid is compared without regard to case. */
    uint8_t lower[COMMIT_FINGERPRINT_BYTES];
    body = js(FP_BASE);
    json_object_set_new(json_array_get(json_object_get(body, "appends"), 0), "expected_table_uuid",
                        json_string("0b9f1a6e-5c7d-4e1b-9a2f-3c4d5e6f7a8b"));
    fp_of(body, lower);
    body = js(FP_BASE);
    json_object_set_new(json_array_get(json_object_get(body, "appends"), 0), "expected_table_uuid",
                        json_string("0B9F1A6E-5C7D-4E1B-9A2F-3C4D5E6F7A8B"));
    fp_of(body, fp);
    expect_same_fp(lower, fp, "expected_table_uuid in capitals");
    /* An empty list of delete groups asks for nothing more than none. */
    body = js(FP_BASE);
    json_object_del(body, "deletes");
    fp_of(body, lower);
    body = js(FP_BASE);
    json_object_set_new(body, "deletes", json_array());
    fp_of(body, fp);
    expect_same_fp(lower, fp, "an empty deletes list");
}

/* FP_BASE with the first occurrence of `from` replaced by `to`. */
static json_t *base_with(const char *from, const char *to)
{
    static char text[8192];
    const char *at = strstr(FP_BASE, from);
    if (!at)
        fail_msg("'%s' is not in the reference request", from);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - FP_BASE), FP_BASE, to, at + strlen(from));
    return js("%s", text);
}

static void test_fingerprint_changes(void **state)
{
    (void)state;
    uint8_t base[COMMIT_FINGERPRINT_BYTES], fp[COMMIT_FINGERPRINT_BYTES];
    fp_of(js(FP_BASE), base);
    static const struct {
        const char *from, *to, *what;
    } edits[] = {
        {"'lower_bound':'AQ=='", "'lower_bound':'AA=='", "a lower bound"},
        {"'upper_bound':'Ag=='", "'upper_bound':'Aw=='", "an upper bound"},
        {",'upper_bound':'Ag=='", "", "a bound removed"},
        {"'author':'a'", "'author':'b'", "author"},
        {"'author':'a',", "", "author removed"},
        {"'message':'m'", "'message':'M'", "message"},
        {"'read_snapshot':3", "'read_snapshot':4", "read_snapshot"},
        {"['x',null,'z']", "[null,'x','z']", "a partition value's position"},
        {"['x',null,'z']", "['z',null,'x']", "partition values reversed"},
        {"['x',null,'z']", "['x','','z']", "a null partition value made empty"},
        {"'record_count':1,", "'record_count':0,", "a record count"},
        {"'file_size_bytes':10,", "'file_size_bytes':11,", "a file size"},
        {"'s3://b/p/1'", "'s3://b/p/1x'", "a path"},
        {"'file_size_bytes':10,", "'file_size_bytes':10,'footer_size':2,", "a footer size added"},
        {"'file_size_bytes':10,", "'file_size_bytes':10,'split_offsets':[4],", "split offsets"},
        {"'null_count':1}", "'null_count':0}", "a null count"},
        {"'null_count':1}", "'null_count':1,'nan_count':0}", "a nan count added"},
        {"'null_count':1}", "'null_count':1,'size_bytes':9}", "a size_bytes added"},
        {"'field_id':2", "'field_id':3", "a field id"},
        {"'table':'u'", "'table':'u2'", "a table name"},
        {"'namespace':'ns','table':'u'", "'namespace':'ns2','table':'u'", "a namespace"},
        {"'table':'u',",
         "'table':'u','expected_table_uuid':'11111111-1111-1111-1111-111111111111',",
         "an expected_table_uuid"},
        {"'delete_count':1,", "'delete_count':2,", "a delete count"},
        {"'data_file_id':7", "'data_file_id':6", "a DV target"},
        {"'s3://b/p/d1'", "'s3://b/p/d9'", "a DV path"},
        /* Moving a file to another group of the same table is another
         * request as sent (the fingerprint sorts, it does not merge). */
        {"'record_count':3,'file_size_bytes':30}]}]",
         "'record_count':3,'file_size_bytes':30}]},{'namespace':'ns','table':'u','files':[{"
         "'path':'s3://b/p/4','record_count':1,'file_size_bytes':1}]}]",
         "a group added"},
        {"'column_stats':[{'field_id':1", "'column_stats':[{'field_id':1,'nan_count':0",
         "a stat member added"},
    };
    for (size_t i = 0; i < ARRAY_LEN(edits); i++) {
        fp_of(base_with(edits[i].from, edits[i].to), fp);
        expect_other_fp(base, fp, edits[i].what);
        assert_int_equal(fp[0], COMMIT_FINGERPRINT_VERSION);
    }
    /* read_snapshot present or absent (on a request without deletes). */
    uint8_t with[COMMIT_FINGERPRINT_BYTES];
    fp_of(js("{'read_snapshot':0,'appends':[{" NS_T ",'files':[" F1 "]}]}"), with);
    fp_of(js("{'appends':[{" NS_T ",'files':[" F1 "]}]}"), fp);
    expect_other_fp(with, fp, "read_snapshot removed");
    /* Two changes that undo each other's order are still detected: the
     * two files of ns.t swap their partition values. */
    json_t *body = js(FP_BASE);
    json_t *files = json_object_get(json_array_get(json_object_get(body, "appends"), 0), "files");
    json_t *p0 = json_incref(json_object_get(json_array_get(files, 0), "partition_values"));
    json_t *p1 = json_incref(json_object_get(json_array_get(files, 1), "partition_values"));
    json_object_set_new(json_array_get(files, 0), "partition_values", p1);
    json_object_set_new(json_array_get(files, 1), "partition_values", p0);
    fp_of(body, fp);
    expect_other_fp(base, fp, "partition values swapped between files");
}

/* ---- paths ---- */

/* commit_check_path as the commit answers it: its struct error through
 * the HTTP edge. */
static int check_path(const char *data_path, const char *path, const char *what,
                      struct api_error *err)
{
    struct error e;
    if (commit_check_path(data_path, path, what, &e) == 0)
        return 0;
    return api_from_error(err, &e, "path");
}

/* ---- the endpoints' rules ---- */

#define KEY "'idempotency_key':'0b9f1a6e-5c7d-4e1b-9a2f-3c4d5e6f7a8b'"
#define UUID_T "'expected_table_uuid':'11111111-1111-4111-8111-111111111111'"
/* A deletes group of ns.t with the table's uuid and `files`. */
#define DEL_GROUP(files) "{" NS_T "," UUID_T ",'files':[" files "]}"
#define DV7 "{'data_file_id':7,'path':'s3://b/p/d.puffin','delete_count':2,'file_size_bytes':5}"
#define APPEND_F "{" NS_T "," UUID_T ",'files':[" F1 "]}"

/* Each guarded endpoint needs a key, read_snapshot and the table's uuid
 * on every group; what it refuses is refused with the endpoint's
 * reason. */
static void test_endpoint_requirements(void **state)
{
    (void)state;
    const struct commit_rules *guarded[] = {&commit_rules_deletes, &commit_rules_mutations,
                                            &commit_rules_uploads, &commit_rules_transaction};
    for (size_t i = 0; i < ARRAY_LEN(guarded); i++) {
        const struct commit_rules *r = guarded[i];
        parse_fails_at(r, 422, "this endpoint needs an idempotency_key",
                       js("{'read_snapshot':3,'deletes':[" DEL_GROUP(DV7) "]}"));
        /* Without read_snapshot, something else to commit than deletion
         * vectors (which need one anyway). */
        parse_fails_at(r, 422, "this endpoint needs read_snapshot",
                       r->refuses_appends ? js("{" KEY ",'deletes':[" DEL_GROUP("") "]}")
                                          : js("{" KEY ",'appends':[" APPEND_F
                                               "],'deletes':[" DEL_GROUP("") "]}"));
        parse_fails_at(r, 422, "deletes[0].expected_table_uuid is required by this endpoint",
                       js("{" KEY ",'read_snapshot':3,'deletes':[{" NS_T ",'files':[" DV7 "]}]}"));
        /* Every group, even when another group of the table has it. */
        parse_fails_at(
            r, 422, "deletes[1].expected_table_uuid is required by this endpoint",
            js("{" KEY ",'read_snapshot':3,'deletes':[" DEL_GROUP(DV7) ",{" NS_T ",'files':[]}]}"));
        struct commit_request c;
        parse_ok_at(r, js("{" KEY ",'read_snapshot':3,'deletes':[" DEL_GROUP(DV7) "]}"), &c);
        assert_ptr_equal(c.rules, r);
        assert_true(c.tables[0].in_deletes);
    }
    /* /commit/prepared needs the key only; /commit nothing. */
    parse_fails_at(&commit_rules_prepared, 422, "this endpoint needs an idempotency_key",
                   js("{'appends':[{" NS_T ",'files':[" F1 "]}]}"));
    struct commit_request c;
    parse_ok_at(&commit_rules_prepared, js("{" KEY ",'appends':[{" NS_T ",'files':[" F1 "]}]}"),
                &c);
    parse_ok(js("{'appends':[{" NS_T ",'files':[" F1 "]}]}"), &c);
    assert_false(c.tables[0].in_deletes);

    /* Deletes: no appends, at least a deletes group, which may be empty
     * (a statement that deleted nothing). */
    parse_fails_at(
        &commit_rules_deletes, 422, "this endpoint takes no appends",
        js("{" KEY ",'read_snapshot':3,'appends':[" APPEND_F "],'deletes':[" DEL_GROUP(DV7) "]}"));
    parse_ok_at(&commit_rules_deletes,
                js("{" KEY ",'read_snapshot':3,'appends':[],'deletes':[" DEL_GROUP(DV7) "]}"), &c);
    parse_fails_at(&commit_rules_deletes, 422, "nothing to commit",
                   js("{" KEY ",'read_snapshot':3}"));
    parse_ok_at(&commit_rules_deletes,
                js("{" KEY ",'read_snapshot':3,'deletes':[" DEL_GROUP("") "]}"), &c);
    assert_int_equal(c.ndvs, 0);
    assert_int_equal(c.ntables, 1);
    /* Elsewhere an empty group alone is still nothing to commit. */
    parse_fails_at(&commit_rules_mutations, 422, "nothing to commit",
                   js("{" KEY ",'read_snapshot':3,'deletes':[" DEL_GROUP("") "]}"));
    parse_fails_at(&commit_rules_transaction, 422, "nothing to commit",
                   js("{" KEY ",'read_snapshot':3,'deletes':[" DEL_GROUP("") "]}"));

    /* Mutations need a deletes group; transactions and uploads do not. */
    parse_fails_at(&commit_rules_mutations, 422, "this endpoint needs at least one deletes group",
                   js("{" KEY ",'read_snapshot':3,'appends':[" APPEND_F "]}"));
    parse_ok_at(
        &commit_rules_mutations,
        js("{" KEY ",'read_snapshot':3,'appends':[" APPEND_F "],'deletes':[" DEL_GROUP("") "]}"),
        &c);
    parse_ok_at(&commit_rules_transaction,
                js("{" KEY ",'read_snapshot':3,'appends':[" APPEND_F "]}"), &c);
    parse_ok_at(&commit_rules_uploads, js("{" KEY ",'read_snapshot':3,'appends':[" APPEND_F "]}"),
                &c);
}

/* /commit/uploads: the claims' owner is the key; upload_owner is refused
 * there and kept elsewhere. */
static void test_uploads_owner_is_the_key(void **state)
{
    (void)state;
    struct commit_request c;
    parse_ok_at(&commit_rules_uploads,
                js("{'idempotency_key':'0B9F1A6E-5C7D-4E1B-9A2F-3C4D5E6F7A8B','read_snapshot':3,"
                   "'appends':[" APPEND_F "]}"),
                &c);
    assert_true(c.has_upload_owner);
    assert_string_equal(c.upload_owner, "0b9f1a6e-5c7d-4e1b-9a2f-3c4d5e6f7a8b");
    parse_fails_at(&commit_rules_uploads, 422, "upload_owner is not accepted by this endpoint",
                   js("{" KEY ",'upload_owner':'0b9f1a6e-5c7d-4e1b-9a2f-3c4d5e6f7a8b',"
                      "'read_snapshot':3,'appends':[" APPEND_F "]}"));
    parse_ok_at(&commit_rules_transaction,
                js("{" KEY ",'upload_owner':'22222222-2222-4222-8222-222222222222',"
                   "'read_snapshot':3,'appends':[" APPEND_F "]}"),
                &c);
    assert_string_equal(c.upload_owner, "22222222-2222-4222-8222-222222222222");
    parse_ok_at(&commit_rules_transaction,
                js("{" KEY ",'read_snapshot':3,'appends':[" APPEND_F "]}"), &c);
    assert_false(c.has_upload_owner);
}

/* data_file_path: the transaction endpoint's only, with data_file_id 0,
 * naming a file the same commit appends to the same table. */
static void test_pending_delete_targets(void **state)
{
    (void)state;
#define PENDING_DV(id, path)                                                                       \
    "{'data_file_id':" id ",'data_file_path':'" path "','path':'s3://b/p/d.puffin',"               \
    "'delete_count':1,'file_size_bytes':5}"
#define TXN(appends, dv) "{" KEY ",'read_snapshot':3,'appends':[" appends "],'deletes':[" dv "]}"
#define APPEND2                                                                                    \
    "{" NS_T "," UUID_T ",'files':[" F1 ",{'path':'s3://b/p/2','record_count':4,"                  \
    "'file_size_bytes':10}]}"
    struct commit_request c;
    parse_ok_at(&commit_rules_transaction,
                js(TXN(APPEND2, DEL_GROUP(PENDING_DV("0", "s3://b/p/2")))), &c);
    const struct commit_table *t = &c.tables[0];
    assert_int_equal(t->ndvs, 1);
    assert_true(t->dvs[0].targets_append);
    assert_int_equal(t->dvs[0].append_index, 1);
    assert_int_equal(t->dvs[0].data_file_id, 0);
    /* Other endpoints: refused, as on /commit. */
    const struct commit_rules *others[] = {&commit_rules_plain, &commit_rules_prepared,
                                           &commit_rules_mutations, &commit_rules_uploads};
    for (size_t i = 0; i < ARRAY_LEN(others); i++)
        parse_fails_at(others[i], 422,
                       "deletes[0].files[0].data_file_path is only accepted by the transaction "
                       "endpoint",
                       js(TXN(APPEND2, DEL_GROUP(PENDING_DV("0", "s3://b/p/2")))));
    parse_fails_at(&commit_rules_transaction, 422, "its data_file_id must be 0, got 7",
                   js(TXN(APPEND2, DEL_GROUP(PENDING_DV("7", "s3://b/p/2")))));
    parse_fails_at(&commit_rules_transaction, 422,
                   "deletes[0].files[0].data_file_path 's3://b/p/9' is not a file this commit "
                   "appends to ns.t",
                   js(TXN(APPEND2, DEL_GROUP(PENDING_DV("0", "s3://b/p/9")))));
    /* Another table's append is not this table's. */
    parse_fails_at(&commit_rules_transaction, 422, "is not a file this commit appends to ns.u",
                   js(TXN(APPEND2, "{'namespace':'ns','table':'u'," UUID_T
                                   ",'files':[" PENDING_DV("0", "s3://b/p/2") "]}")));
    /* The refusal names the vector where the request had it, whatever the
     * merge made of its groups. */
    parse_fails_at(&commit_rules_transaction, 422,
                   "deletes[1].files[1].data_file_path 's3://b/p/9' is not a file this commit "
                   "appends to ns.t",
                   js(TXN(APPEND2, DEL_GROUP(DV7) "," DEL_GROUP(
                                       "{'data_file_id':8,'path':'s3://b/p/e.puffin',"
                                       "'delete_count':1,'file_size_bytes':5}," PENDING_DV(
                                           "0", "s3://b/p/9")))));
    /* Nor is a path only given as another deletion vector's. */
    parse_fails_at(&commit_rules_transaction, 422, "is not a file this commit appends to ns.t",
                   js(TXN(APPEND2, DEL_GROUP(DV7 "," PENDING_DV("0", "s3://b/p/d.puffin")))));
}

/* explicit_row_ids: accepted by mutations and transaction only; false is
 * the default everywhere. */
static void test_explicit_row_ids_endpoints(void **state)
{
    (void)state;
#define EXPLICIT_APPEND(v)                                                                         \
    "{" NS_T "," UUID_T ",'files':[{'path':'s3://b/p/e','record_count':2,'file_size_bytes':10,"    \
    "'explicit_row_ids':" v "}]}"
    struct commit_request c;
    const struct commit_rules *takes[] = {&commit_rules_mutations, &commit_rules_transaction};
    for (size_t i = 0; i < ARRAY_LEN(takes); i++) {
        parse_ok_at(takes[i], js(TXN(EXPLICIT_APPEND("true"), DEL_GROUP(DV7))), &c);
        assert_true(c.tables[0].files[0].explicit_row_ids);
    }
    const struct commit_rules *refuse[] = {&commit_rules_plain, &commit_rules_prepared,
                                           &commit_rules_uploads};
    for (size_t i = 0; i < ARRAY_LEN(refuse); i++) {
        parse_fails_at(refuse[i], 422,
                       "appends[0].files[0].explicit_row_ids is only accepted by the mutations "
                       "and transaction endpoints",
                       js(TXN(EXPLICIT_APPEND("true"), DEL_GROUP(DV7))));
        parse_ok_at(refuse[i], js(TXN(EXPLICIT_APPEND("false"), DEL_GROUP(DV7))), &c);
        assert_false(c.tables[0].files[0].explicit_row_ids);
    }
    parse_fails(400, "field 'appends[0].files[0].explicit_row_ids' must be",
                js(TXN(EXPLICIT_APPEND("1"), DEL_GROUP(DV7))));
    /* Part of the request: it changes the fingerprint. */
    uint8_t a[COMMIT_FINGERPRINT_BYTES], b[COMMIT_FINGERPRINT_BYTES];
    parse_ok_at(&commit_rules_mutations, js(TXN(EXPLICIT_APPEND("true"), DEL_GROUP(DV7))), &c);
    memcpy(a, c.fingerprint, sizeof a);
    parse_ok_at(&commit_rules_mutations, js(TXN(EXPLICIT_APPEND("false"), DEL_GROUP(DV7))), &c);
    memcpy(b, c.fingerprint, sizeof b);
    expect_other_fp(a, b, "explicit_row_ids");
}

static void expect_path(const char *data_path, const char *path, bool ok)
{
    struct api_error err = {0};
    int rc = check_path(data_path, path, "file path", &err);
    if (ok && rc != 0)
        fail_msg("'%s' under '%s' refused: %s", path, data_path, err.detail);
    if (!ok) {
        if (rc == 0)
            fail_msg("'%s' under '%s' accepted", path, data_path);
        assert_int_equal(err.status, 422);
        assert_string_equal(err.code, "validation");
        assert_non_null(strstr(err.detail, "file path"));
    }
    json_decref(err.extra);
}

static void test_check_path(void **state)
{
    (void)state;
    static const char *const data_paths[] = {"s3://b/p", "s3://b/p/", "s3://b/p//"};
    static const char *const good[] = {
        "s3://b/p/x.parquet", "s3://b/p/a/b/c.parquet", "s3://b/p/.hidden",
        "s3://b/p/..x",       "s3://b/p/x..",           "s3://b/p/...",
        "s3://b/p/a/.x/b",    "s3://b/p/a.b/c..d/e",    "s3://b/p/\xc3\xa9t\xc3\xa9.parquet",
    };
    static const char *const bad[] = {
        "",
        "s3://b/p",              /* the data_path itself */
        "s3://b/px/x.parquet",   /* a prefix without '/' */
        "s3://b/px",             /* ditto */
        "s3://b/q/x.parquet",    /* elsewhere */
        "S3://b/p/x.parquet",    /* compared exactly */
        "s3://b/P/x.parquet",    /* ditto */
        "s3://b/p/",             /* no file */
        "s3://b/p//x.parquet",   /* an empty first segment */
        "s3://b/p/a//x.parquet", /* an empty segment */
        "s3://b/p/a/",           /* a trailing '/' */
        "s3://b/p/a/b//",        /* trailing empty segments */
        "s3://b/p/./x",          /* '.' segments */
        "s3://b/p/a/./x",
        "s3://b/p/a/.",
        "s3://b/p/.",
        "s3://b/p/../x", /* '..' segments */
        "s3://b/p/a/../x",
        "s3://b/p/a/..",
        "s3://b/p/..",
        "s3://b/p/a b.parquet", /* whitespace */
        " s3://b/p/x.parquet",
        "s3://b/p/x.parquet ",
        "s3://b/p/x\t.parquet",
        "s3://b/p/x\n",
        "s3://b/p/x\r.parquet",
        "s3://b/p/x\x01", /* control characters */
        "s3://b/p/x\x1f",
        "s3://b/p/x\x7f",
        "s3://b/p/\x7f/x", /* also in a segment of its own */
        /* A second spelling a later layer could decode or split. */
        "s3://b/p/data/ns/t/00000-0-f.parquet?x=1",
        "s3://b/p/x.parquet#frag",
        "s3://b/p/a%2e%2e/x.parquet",
        "s3://b/p/a%2Fb.parquet",
        "s3://b/p/a\\..\\x.parquet",
    };
    for (size_t d = 0; d < ARRAY_LEN(data_paths); d++) {
        for (size_t i = 0; i < ARRAY_LEN(good); i++)
            expect_path(data_paths[d], good[i], true);
        for (size_t i = 0; i < ARRAY_LEN(bad); i++)
            expect_path(data_paths[d], bad[i], false);
    }
    /* A data_path that is a bucket or a local directory. */
    expect_path("s3://bucket", "s3://bucket/x", true);
    expect_path("s3://bucket", "s3://bucketx/x", false);
    expect_path("s3://bucket", "s3://bucket/", false);
    expect_path("file:///var/lib/hoglake/warehouse/demo",
                "file:///var/lib/hoglake/warehouse/demo/data/f.parquet", true);
    expect_path("file:///var/lib/hoglake/warehouse/demo",
                "file:///var/lib/hoglake/warehouse/demo2/f.parquet", false);
    expect_path("file:///var/lib/hoglake/warehouse/demo",
                "file:///var/lib/hoglake/warehouse/demo/../demo2/f.parquet", false);
    /* At most COMMIT_MAX_PATH_BYTES: a path is a btree key. */
    char longest[COMMIT_MAX_PATH_BYTES + 2];
    memset(longest, 'x', sizeof longest - 1);
    memcpy(longest, "s3://b/p/", 9);
    longest[COMMIT_MAX_PATH_BYTES] = '\0';
    expect_path("s3://b/p", longest, true);
    longest[COMMIT_MAX_PATH_BYTES] = 'x';
    longest[COMMIT_MAX_PATH_BYTES + 1] = '\0';
    expect_path("s3://b/p", longest, false);
    /* The detail says which rule and quotes the path; `what` names it. */
    struct api_error err = {0};
    assert_int_equal(check_path("s3://b/p", longest, "file path", &err), -1);
    assert_non_null(strstr(err.detail, "is 2049 bytes, longer than 2048"));
    assert_int_equal(check_path("s3://b/p", "s3://b/q/x", "deletion vector path", &err), -1);
    assert_non_null(strstr(err.detail, "deletion vector path 's3://b/q/x' is not under the "
                                       "catalog's data_path 's3://b/p'"));
    assert_int_equal(check_path("s3://b/p", "s3://b/p/a b", "file path", &err), -1);
    assert_non_null(strstr(err.detail, "whitespace or a control character"));
    assert_int_equal(check_path("s3://b/p", "s3://b/p/", "file path", &err), -1);
    assert_non_null(strstr(err.detail, "names no file"));
    assert_int_equal(check_path("s3://b/p", "s3://b/p/a/../b", "file path", &err), -1);
    assert_non_null(strstr(err.detail, "empty, '.' or '..' segment"));
    assert_int_equal(check_path("s3://b/p", "s3://b/p/a/", "file path", &err), -1);
    assert_non_null(strstr(err.detail, "ends with '/'"));
    json_decref(err.extra);
}

/* ---- the canonical text against a direct construction ---- */

/* The canonical text built the slow, obvious way (the oracle): copy the
 * body, drop the key, null members and empty group lists, lower-case
 * expected_table_uuid, sort the lists by each element's json_dumps text,
 * and dump it all with sorted keys. */
static void oracle_normalize(json_t *v)
{
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            oracle_normalize(json_array_get(v, i));
        return;
    }
    const char *key;
    json_t *m;
    void *tmp;
    json_object_foreach_safe (v, tmp, key, m) {
        if (json_is_null(m)) {
            json_object_del(v, key);
        } else if (!strcmp(key, "expected_table_uuid")) {
            char lower[64];
            snprintf(lower, sizeof lower, "%s", json_string_value(m));
            for (char *c = lower; *c; c++)
                if (*c >= 'A' && *c <= 'Z')
                    *c = (char)(*c - 'A' + 'a');
            json_string_set(m, lower);
        } else {
            oracle_normalize(m);
        }
    }
}

static int oracle_cmp(const void *a, const void *b)
{
    char *x = json_dumps(*(json_t *const *)a, JSON_COMPACT | JSON_SORT_KEYS);
    char *y = json_dumps(*(json_t *const *)b, JSON_COMPACT | JSON_SORT_KEYS);
    int r = strcmp(x, y);
    free(x);
    free(y);
    return r;
}

static void oracle_sort(json_t *arr)
{
    size_t n = json_array_size(arr);
    json_t **items = calloc(n ? n : 1, sizeof *items);
    for (size_t i = 0; i < n; i++)
        items[i] = json_incref(json_array_get(arr, i));
    qsort(items, n, sizeof *items, oracle_cmp);
    json_array_clear(arr);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, items[i]);
    free(items);
}

static void oracle_fingerprint(const json_t *body, uint8_t out[COMMIT_FINGERPRINT_BYTES])
{
    json_t *c = json_deep_copy(body);
    json_object_del(c, "idempotency_key");
    const char *lists[] = {"appends", "deletes"};
    for (int k = 0; k < 2; k++)
        if (json_array_size(json_object_get(c, lists[k])) == 0)
            json_object_del(c, lists[k]);
    oracle_normalize(c);
    for (int k = 0; k < 2; k++) {
        json_t *groups = json_object_get(c, lists[k]);
        for (size_t g = 0; g < json_array_size(groups); g++) {
            json_t *files = json_object_get(json_array_get(groups, g), "files");
            for (size_t i = 0; i < json_array_size(files); i++)
                oracle_sort(json_object_get(json_array_get(files, i), "column_stats"));
            oracle_sort(files);
        }
        oracle_sort(groups);
    }
    char *text = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
    out[0] = COMMIT_FINGERPRINT_VERSION;
    assert_int_equal(sha256(text, strlen(text), out + 1), 0);
    free(text);
    json_decref(c);
}

static void test_fingerprint_matches_oracle(void **state)
{
    (void)state;
    const char *bodies[] = {
        FP_BASE,
        /* Text that needs escaping (quotes and backslashes alone, control
         * characters), and text beyond ASCII. */
        "{'author':'a \\\"quoted\\\" back\\\\slash','message':'tab\\there\\u0001\\u001f\\u007f "
        "caf\\u00e9 \\u2028 \\ud83d\\ude00','appends':[{" NS_T ",'expected_table_uuid':"
        "'0B9F1A6E-5C7D-4E1B-9A2F-3C4D5E6F7A8B','files':[" F1 "]}],'deletes':[]}",
        /* Partition values with nulls, split offsets, empty stats. */
        "{'read_snapshot':0,'idempotency_key':'" FP_KEY "','appends':[{" NS_T ",'files':["
        "{'path':'s3://b/p/z','record_count':9,'file_size_bytes':99,'footer_size':8,"
        "'split_offsets':[4,50],'partition_values':[null,'b',null],'column_stats':[]},"
        "{'path':'s3://b/p/a','record_count':9,'file_size_bytes':99,'partition_values':['a',"
        "null,'c'],'column_stats':[{'field_id':3,'value_count':9,'null_count':1,'nan_count':0,"
        "'size_bytes':12,'lower_bound':null}]}]}]}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        uint8_t want[COMMIT_FINGERPRINT_BYTES], got[COMMIT_FINGERPRINT_BYTES];
        json_t *body = js("%s", bodies[i]);
        oracle_fingerprint(body, want);
        fp_of(body, got);
        if (memcmp(want, got, sizeof want) != 0)
            fail_msg("body %zu: the canonical text differs from the oracle's", i);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_minimal_append, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nulls_are_absent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_stats_and_partitions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_range_edges_accepted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_max_split_offsets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shape_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_range_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_problem_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_groups, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_many_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_groups_scale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_author_message_length, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partition_value_length, setup, teardown),
        cmocka_unit_test_setup_teardown(test_endpoint_requirements, setup, teardown),
        cmocka_unit_test_setup_teardown(test_uploads_owner_is_the_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pending_delete_targets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_explicit_row_ids_endpoints, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fingerprint_format, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fingerprint_invariances, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fingerprint_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fingerprint_matches_oracle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_path, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
