/* Unit tests for src/iceberg: the schema/spec/sort-order mapping of a
 * hoglake table and the table metadata model (create, load, add snapshot,
 * sort order and schema updates, serialization, refusals).
 *
 * JSON in this file is written with single quotes; sq() swaps them for
 * double quotes before parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "iceberg/metadata.h"
#include "iceberg/schema_map.h"
#include "lake/schema.h"
#include "util/arena.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* text with every ' turned into " (a new string). */
static char *quoted(const char *single)
{
    char *s = strdup(single);
    assert_non_null(s);
    for (char *p = strchr(s, '\''); p; p = strchr(p + 1, '\''))
        *p = '"';
    return s;
}

static json_t *sq(const char *text)
{
    char *s = quoted(text);
    json_t *v = json_loads(s, JSON_DECODE_ANY, NULL);
    free(s);
    assert_non_null(v);
    return v;
}

/* Fails unless got equals the single-quoted JSON want (key order ignored). */
static void expect_json(const json_t *got, const char *want)
{
    json_t *w = sq(want);
    char *gs = got ? json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS) : strdup("(null)");
    char *ws = json_dumps(w, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(w);
    assert_non_null(gs);
    assert_non_null(ws);
    assert_string_equal(gs, ws);
    free(gs);
    free(ws);
}

/* A table definition from a single-quoted ColumnDef array. */
struct tbl {
    struct arena arena;
    struct lake_table t;
};

static struct tbl *tbl_new(const char *columns)
{
    struct tbl *x = calloc(1, sizeof *x);
    assert_non_null(x);
    arena_init(&x->arena, 0);
    lake_table_init(&x->t, &x->arena);
    json_t *cols = sq(columns);
    struct error e;
    if (lake_table_add_columns(&x->t, cols, &e) != 0)
        fail_msg("table definition refused: %s", e.msg);
    json_decref(cols);
    return x;
}

static void tbl_free(struct tbl *x)
{
    lake_table_release(&x->t);
    arena_free(&x->arena);
    free(x);
}

/* Field ids: id 1, session_id 2, conversation_id 3, message_created_at 4,
 * date 5, payload 6, addr 7 (zip 8, city 9), tags 10 (element 11), attrs 12
 * (key 13, value 14), events 15 (element 16 (at 17, kind 18)). */
static const char *const GATEWAY =
    "[{'name':'id','type':'long','nullable':false},"
    " {'name':'session_id','type':'string','nullable':false},"
    " {'name':'conversation_id','type':'string'},"
    " {'name':'message_created_at','type':'timestamptz'},"
    " {'name':'date','type':'date'},"
    " {'name':'payload','type':'string','comment':'the message body'},"
    " {'name':'addr','type':'struct','children':["
    "    {'name':'zip','type':'string'},{'name':'city','type':'string','nullable':false}]},"
    " {'name':'tags','type':'list','children':[{'name':'element','type':'string',"
    "    'nullable':false}]},"
    " {'name':'attrs','type':'map','children':["
    "    {'name':'key','type':'string','nullable':false},{'name':'value','type':'int'}]},"
    " {'name':'events','type':'list','children':[{'name':'element','type':'struct',"
    "    'children':[{'name':'at','type':'timestamp'},{'name':'kind','type':'string'}]}]}]";

/* ------------------------------------------------------------ schema mapping */

static void test_type_mapping_every_scalar(void **state)
{
    (void)state;
    static const struct {
        const char *def, *v3; /* v2 equals v3 unless v2_refused */
        int v2_refused;
    } cases[] = {
        {"{'name':'c','type':'boolean'}", "boolean", 0},
        {"{'name':'c','type':'int8'}", "int", 0},
        {"{'name':'c','type':'int16'}", "int", 0},
        {"{'name':'c','type':'int'}", "int", 0},
        {"{'name':'c','type':'long'}", "long", 0},
        {"{'name':'c','type':'uint8'}", "int", 0},
        {"{'name':'c','type':'uint16'}", "int", 0},
        {"{'name':'c','type':'uint32'}", "long", 0},
        {"{'name':'c','type':'uint64'}", "decimal(20, 0)", 0},
        {"{'name':'c','type':'float'}", "float", 0},
        {"{'name':'c','type':'double'}", "double", 0},
        {"{'name':'c','type':'decimal','type_params':{'precision':14,'scale':2}}", "decimal(14, 2)",
         0},
        {"{'name':'c','type':'decimal'}", "decimal(38, 0)", 0},
        {"{'name':'c','type':'date'}", "date", 0},
        {"{'name':'c','type':'time'}", "time", 0},
        {"{'name':'c','type':'timestamp_s'}", "timestamp", 0},
        {"{'name':'c','type':'timestamp_ms'}", "timestamp", 0},
        {"{'name':'c','type':'timestamp'}", "timestamp", 0},
        {"{'name':'c','type':'timestamp_ns'}", "timestamp_ns", 1},
        {"{'name':'c','type':'timestamptz'}", "timestamptz", 0},
        {"{'name':'c','type':'string'}", "string", 0},
        {"{'name':'c','type':'json'}", "string", 0},
        {"{'name':'c','type':'uuid'}", "uuid", 0},
        {"{'name':'c','type':'binary'}", "binary", 0},
        {"{'name':'c','type':'variant'}", "variant", 1},
    };
    for (size_t i = 0; i < N_OF(cases); i++) {
        char def[200];
        snprintf(def, sizeof def, "[%s]", cases[i].def);
        struct tbl *x = tbl_new(def);
        struct error err = {0};
        char got[48];
        const struct lake_column *c = x->t.root.children[0];
        assert_int_equal(ice_type_string(c, 3, got, sizeof got, &err), 0);
        assert_string_equal(got, cases[i].v3);

        int rc = ice_type_string(c, 2, got, sizeof got, &err);
        json_t *s2 = ice_schema_json(&x->t, 2, 0, NULL, &err);
        if (cases[i].v2_refused) {
            assert_int_equal(rc, -1);
            assert_int_equal(err.code, ERR_UNSUPPORTED);
            assert_non_null(strstr(err.msg, "'c'"));
            assert_non_null(strstr(err.msg, "format version 3"));
            assert_null(s2);
        } else {
            assert_int_equal(rc, 0);
            assert_string_equal(got, cases[i].v3);
            assert_non_null(s2);
        }
        json_decref(s2);
        tbl_free(x);
    }
}

static void test_schema_nested(void **state)
{
    (void)state;
    struct tbl *x = tbl_new(GATEWAY);
    struct error err = {0};
    int64_t max_id = -1;
    json_t *s = ice_schema_json(&x->t, 3, 0, &max_id, &err);
    assert_non_null(s);
    assert_int_equal(max_id, 18);
    expect_json(
        s, "{'type':'struct','schema-id':0,'fields':["
           "{'id':1,'name':'id','required':true,'type':'long'},"
           "{'id':2,'name':'session_id','required':true,'type':'string'},"
           "{'id':3,'name':'conversation_id','required':false,'type':'string'},"
           "{'id':4,'name':'message_created_at','required':false,'type':'timestamptz'},"
           "{'id':5,'name':'date','required':false,'type':'date'},"
           "{'id':6,'name':'payload','required':false,'type':'string','doc':'the message body'},"
           "{'id':7,'name':'addr','required':false,'type':{'type':'struct','fields':["
           "  {'id':8,'name':'zip','required':false,'type':'string'},"
           "  {'id':9,'name':'city','required':true,'type':'string'}]}},"
           "{'id':10,'name':'tags','required':false,'type':{'type':'list','element-id':11,"
           "  'element-required':true,'element':'string'}},"
           "{'id':12,'name':'attrs','required':false,'type':{'type':'map','key-id':13,"
           "  'key':'string','value-id':14,'value-required':false,'value':'int'}},"
           "{'id':15,'name':'events','required':false,'type':{'type':'list','element-id':16,"
           "  'element-required':false,'element':{'type':'struct','fields':["
           "    {'id':17,'name':'at','required':false,'type':'timestamp'},"
           "    {'id':18,'name':'kind','required':false,'type':'string'}]}}}]}");
    /* Key order inside a field is the reference's: id, name, required, type. */
    char *text = json_dumps(json_array_get(json_object_get(s, "fields"), 0), JSON_COMPACT);
    assert_string_equal(text, "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}");
    free(text);
    json_decref(s);

    /* A field id outside Iceberg's range is refused. */
    x->t.root.children[1]->field_id = 2147483540;
    assert_null(ice_schema_json(&x->t, 3, 0, NULL, &err));
    assert_int_equal(err.code, ERR_INVALID);
    assert_non_null(strstr(err.msg, "session_id"));
    tbl_free(x);

    /* A variant nested in a struct is refused under v2, named by path. */
    x = tbl_new("[{'name':'s','type':'struct','children':[{'name':'v','type':'variant'}]}]");
    assert_null(ice_schema_json(&x->t, 2, 0, NULL, &err));
    assert_int_equal(err.code, ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "'s.v'"));
    assert_null(ice_schema_json(&x->t, 1, 0, NULL, &err));
    assert_int_equal(err.code, ERR_INVALID);
    tbl_free(x);
}

/* ------------------------------------------------------------ partition spec, drift */

static void test_partition_spec(void **state)
{
    (void)state;
    struct tbl *x = tbl_new(GATEWAY);
    struct error err = {0};
    json_t *spec = ice_partition_spec_json(&x->t, 4, &err);
    expect_json(spec, "{'spec-id':0,'fields':[{'name':'message_created_at_day',"
                      "'transform':'day','source-id':4,'field-id':1000}]}");
    char text[200];
    ice_spec_describe(spec, &x->t, text, sizeof text);
    assert_string_equal(text, "day(message_created_at)");
    json_decref(spec);

    spec = ice_partition_spec_json(&x->t, 5, &err); /* a date column */
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(spec, "fields"), 0), "name")),
                        "date_day");
    json_decref(spec);

    spec = ice_partition_spec_json(&x->t, 0, &err);
    expect_json(spec, "{'spec-id':0,'fields':[]}");
    ice_spec_describe(spec, &x->t, text, sizeof text);
    assert_string_equal(text, "unpartitioned");
    json_decref(spec);

    /* Not temporal, unknown, inside a list: refused. */
    static const int64_t bad[] = {2, 99, 17};
    static const char *const why[] = {"not a date or timestamp", "no field 99", "inside a list"};
    for (size_t i = 0; i < N_OF(bad); i++) {
        assert_null(ice_partition_spec_json(&x->t, bad[i], &err));
        assert_int_equal(err.code, ERR_INVALID);
        assert_non_null(strstr(err.msg, why[i]));
    }
    tbl_free(x);

    /* The name becomes an Avro name and never equals a column name. */
    x = tbl_new("[{'name':'ts','type':'timestamp'},{'name':'ts_day','type':'int'},"
                " {'name':'ts_day_2','type':'int'},{'name':'a-b','type':'date'},"
                " {'name':'s','type':'struct','children':[{'name':'t','type':'date'}]}]");
    spec = ice_partition_spec_json(&x->t, 1, &err);
    json_t *f = json_array_get(json_object_get(spec, "fields"), 0);
    assert_string_equal(json_string_value(json_object_get(f, "name")), "ts_day_3");
    json_decref(spec);
    spec = ice_partition_spec_json(&x->t, 4, &err);
    f = json_array_get(json_object_get(spec, "fields"), 0);
    assert_string_equal(json_string_value(json_object_get(f, "name")), "a_b_day");
    json_decref(spec);
    spec = ice_partition_spec_json(&x->t, 6, &err);
    f = json_array_get(json_object_get(spec, "fields"), 0);
    assert_string_equal(json_string_value(json_object_get(f, "name")), "s_t_day");
    assert_int_equal(json_integer_value(json_object_get(f, "source-id")), 6);
    json_decref(spec);
    tbl_free(x);
}

static void test_spec_drift(void **state)
{
    (void)state;
    struct tbl *x = tbl_new(GATEWAY);
    struct error err = {0};
    json_t *day = ice_partition_spec_json(&x->t, 4, &err);
    json_t *none = ice_partition_spec_json(&x->t, 0, &err);
    json_t *other_col = ice_partition_spec_json(&x->t, 5, &err);
    /* Another engine's spec for the same layout: other name, id and key order. */
    json_t *same_foreign =
        sq("{'fields':[{'field-id':1005,'source-id':4,'transform':'day','name':'d'}],"
           "'spec-id':3}");
    json_t *hour = sq("{'spec-id':0,'fields':[{'name':'h','transform':'hour','source-id':4,"
                      "'field-id':1000}]}");
    json_t *two = sq("{'spec-id':0,'fields':[{'name':'a','transform':'day','source-id':4,"
                     "'field-id':1000},{'name':'b','transform':'identity','source-id':2,"
                     "'field-id':1001}]}");
    json_t *shapeless = sq("{'spec-id':0}");
    char msg[600];

    assert_int_equal(ice_spec_compare(day, day, &x->t, msg, sizeof msg), ICE_SPEC_SAME);
    assert_int_equal(ice_spec_compare(day, same_foreign, &x->t, NULL, 0), ICE_SPEC_SAME);
    assert_int_equal(ice_spec_compare(none, none, &x->t, NULL, 0), ICE_SPEC_SAME);

    assert_int_equal(ice_spec_compare(day, none, &x->t, msg, sizeof msg), ICE_SPEC_DRIFT_ADDED);
    assert_non_null(strstr(msg, "(added)"));
    assert_non_null(strstr(msg, "spec is unpartitioned"));
    assert_non_null(strstr(msg, "derives day(message_created_at)"));

    assert_int_equal(ice_spec_compare(none, day, &x->t, msg, sizeof msg), ICE_SPEC_DRIFT_REMOVED);
    assert_non_null(strstr(msg, "spec is day(message_created_at)"));
    assert_non_null(strstr(msg, "derives unpartitioned"));

    assert_int_equal(ice_spec_compare(day, other_col, &x->t, msg, sizeof msg),
                     ICE_SPEC_DRIFT_CHANGED);
    assert_non_null(strstr(msg, "day(date)"));
    assert_int_equal(ice_spec_compare(day, hour, &x->t, msg, sizeof msg), ICE_SPEC_DRIFT_CHANGED);
    assert_non_null(strstr(msg, "hour(message_created_at)"));
    assert_int_equal(ice_spec_compare(day, two, &x->t, msg, sizeof msg), ICE_SPEC_DRIFT_CHANGED);
    assert_non_null(strstr(msg, "day(message_created_at), identity(session_id)"));
    assert_int_equal(ice_spec_compare(two, day, NULL, msg, sizeof msg), ICE_SPEC_DRIFT_CHANGED);
    assert_non_null(strstr(msg, "identity(field 2)"));
    assert_int_equal(ice_spec_compare(day, shapeless, &x->t, NULL, 0), ICE_SPEC_DRIFT_CHANGED);
    assert_string_equal(ice_spec_drift_name(ICE_SPEC_DRIFT_REMOVED), "removed");

    json_t *all[] = {day, none, other_col, same_foreign, hour, two, shapeless};
    for (size_t i = 0; i < N_OF(all); i++)
        json_decref(all[i]);
    tbl_free(x);
}

/* ------------------------------------------------------------ sort order */

static void test_sort_order(void **state)
{
    (void)state;
    struct tbl *x = tbl_new(GATEWAY);
    struct error err = {0};
    const struct lake_sort_field key[] = {{2, false, true}, {3, false, true}, {8, true, false}};
    json_t *o = ice_sort_order_json(&x->t, key, 3, &err);
    expect_json(o, "{'order-id':1,'fields':["
                   "{'transform':'identity','source-id':2,'direction':'asc',"
                   "'null-order':'nulls-first'},"
                   "{'transform':'identity','source-id':3,'direction':'asc',"
                   "'null-order':'nulls-first'},"
                   "{'transform':'identity','source-id':8,'direction':'desc',"
                   "'null-order':'nulls-last'}]}");
    char text[200];
    ice_sort_describe(o, &x->t, text, sizeof text);
    assert_string_equal(text, "session_id,conversation_id,addr.zip");
    json_decref(o);

    o = ice_sort_order_json(&x->t, NULL, 0, &err);
    expect_json(o, "{'order-id':0,'fields':[]}");
    ice_sort_describe(o, &x->t, text, sizeof text);
    assert_string_equal(text, "");
    json_decref(o);

    const struct lake_sort_field twice[] = {{2, false, true}, {2, true, true}};
    assert_null(ice_sort_order_json(&x->t, twice, 2, &err));
    assert_non_null(strstr(err.msg, "named twice"));
    const struct lake_sort_field container[] = {{7, false, true}};
    assert_null(ice_sort_order_json(&x->t, container, 1, &err));
    assert_non_null(strstr(err.msg, "'addr' is struct"));
    const struct lake_sort_field in_list[] = {{11, false, true}};
    assert_null(ice_sort_order_json(&x->t, in_list, 1, &err));
    assert_non_null(strstr(err.msg, "inside a list"));
    const struct lake_sort_field in_map[] = {{14, false, true}};
    assert_null(ice_sort_order_json(&x->t, in_map, 1, &err));
    assert_non_null(strstr(err.msg, "inside a map"));
    assert_int_equal(err.code, ERR_INVALID);
    tbl_free(x);
}

/* ------------------------------------------------------------ metadata: create */

static const char *const UUID = "5f0c4ab2-0d3e-4c5b-9a7e-2b1f3c4d5e6f";
#define LOC "file:///tmp/export/ai_gateway"

/* New metadata for GATEWAY, partitioned by day(message_created_at) when
 * partitioned, sorted by session_id, conversation_id. */
static void make_meta(struct ice_meta *m, int version, bool partitioned, const json_t *props)
{
    struct tbl *x = tbl_new(GATEWAY);
    struct error err = {0};
    const struct lake_sort_field key[] = {{2, false, true}, {3, false, true}};
    json_t *schema = ice_schema_json(&x->t, version, 0, NULL, &err);
    json_t *spec = ice_partition_spec_json(&x->t, partitioned ? 4 : 0, &err);
    json_t *order = ice_sort_order_json(&x->t, key, 2, &err);
    assert_non_null(schema);
    assert_non_null(spec);
    assert_non_null(order);
    struct ice_new_table in = {version, UUID, LOC, schema, spec, order, props, 1700000000000};
    if (ice_meta_create(m, &in, &err) != 0)
        fail_msg("create: %s", err.msg);
    json_decref(schema);
    json_decref(spec);
    json_decref(order);
    tbl_free(x);
}

/* The document's top-level keys in serialized order, comma-separated. */
static void keys_of(const struct ice_meta *m, char *out, size_t size)
{
    char *text = ice_meta_dumps(m);
    assert_non_null(text);
    /* Reload preserving order (jansson keeps insertion order). */
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    free(text);
    out[0] = '\0';
    const char *k;
    json_t *v;
    size_t n = 0;
    json_object_foreach (doc, k, v) {
        n += (size_t)snprintf(out + n, size - n, "%s%s", n ? "," : "", k);
        assert_true(n < size);
    }
    json_decref(doc);
}

static void test_create_v3_shape(void **state)
{
    (void)state;
    struct ice_meta m;
    make_meta(&m, 3, true, NULL);
    char keys[1000];
    keys_of(&m, keys, sizeof keys);
    assert_string_equal(keys, "format-version,table-uuid,location,last-sequence-number,"
                              "last-updated-ms,last-column-id,current-schema-id,schemas,"
                              "default-spec-id,partition-specs,last-partition-id,"
                              "default-sort-order-id,sort-orders,properties,next-row-id,refs,"
                              "snapshots,statistics,partition-statistics,snapshot-log,"
                              "metadata-log");
    assert_int_equal(m.format_version, 3);
    assert_int_equal(m.last_column_id, 18);
    assert_int_equal(m.next_row_id, 0);
    assert_int_equal(m.last_sequence_number, 0);
    assert_false(m.has_current_snapshot);
    assert_null(m.current_snapshot);
    assert_string_equal(m.location, LOC);
    assert_string_equal(m.table_uuid, UUID);
    assert_int_equal(json_integer_value(json_object_get(m.doc, "last-partition-id")), 1000);
    assert_int_equal(json_integer_value(json_object_get(m.doc, "default-sort-order-id")), 1);
    assert_int_equal(json_integer_value(json_object_get(m.doc, "last-updated-ms")), 1700000000000);
    assert_int_equal(ice_meta_next_sequence_number(&m), 1);
    expect_json(json_object_get(m.doc, "refs"), "{}");
    expect_json(json_object_get(m.doc, "properties"), "{}");
    ice_meta_free(&m);
}

static void test_create_v2_shape(void **state)
{
    (void)state;
    struct ice_meta m;
    json_t *props = sq("{'write.parquet.compression-codec':'zstd'}");
    make_meta(&m, 2, false, props);
    json_decref(props);
    char keys[1000];
    keys_of(&m, keys, sizeof keys);
    assert_string_equal(keys, "format-version,table-uuid,location,last-sequence-number,"
                              "last-updated-ms,last-column-id,current-schema-id,schemas,"
                              "default-spec-id,partition-specs,last-partition-id,"
                              "default-sort-order-id,sort-orders,properties,current-snapshot-id,"
                              "refs,snapshots,statistics,partition-statistics,snapshot-log,"
                              "metadata-log");
    assert_int_equal(json_integer_value(json_object_get(m.doc, "current-snapshot-id")), -1);
    assert_int_equal(json_integer_value(json_object_get(m.doc, "last-partition-id")), 999);
    assert_null(json_object_get(m.doc, "next-row-id"));
    expect_json(json_object_get(m.doc, "properties"), "{'write.parquet.compression-codec':'zstd'}");
    ice_meta_free(&m);

    /* Reserved or non-string properties and bad inputs are refused. */
    struct error err = {0};
    struct tbl *x = tbl_new(GATEWAY);
    json_t *schema = ice_schema_json(&x->t, 2, 0, NULL, &err);
    json_t *spec = ice_partition_spec_json(&x->t, 0, &err);
    json_t *order = ice_sort_order_json(&x->t, NULL, 0, &err);
    json_t *reserved = sq("{'format-version':'2'}");
    json_t *numeric = sq("{'a':1}");
    json_t *idless = sq("{'type':'struct','fields':[]}");
    const struct ice_new_table bad[] = {
        {2, UUID, LOC, schema, spec, order, reserved, 1},
        {2, UUID, LOC, schema, spec, order, numeric, 1},
        {1, UUID, LOC, schema, spec, order, NULL, 1},
        {2, "not-a-uuid", LOC, schema, spec, order, NULL, 1},
        {2, UUID, "/tmp/no/scheme", schema, spec, order, NULL, 1},
        {2, UUID, "file:///tmp/slash/", schema, spec, order, NULL, 1},
        {2, UUID, LOC, idless, spec, order, NULL, 1},
        {2, UUID, LOC, NULL, spec, order, NULL, 1},
    };
    for (size_t i = 0; i < N_OF(bad); i++) {
        err.code = ERR_OK;
        assert_int_equal(ice_meta_create(&m, &bad[i], &err), -1);
        assert_int_equal(err.code, ERR_INVALID);
    }
    json_t *all[] = {schema, spec, order, reserved, numeric, idless};
    for (size_t i = 0; i < N_OF(all); i++)
        json_decref(all[i]);
    tbl_free(x);
}

/* ------------------------------------------------------------ metadata: snapshots */

static struct ice_snapshot_add append_of(int64_t id, int64_t files, int64_t records)
{
    static char list[200];
    snprintf(list, sizeof list, "%s/metadata/snap-%lld-1-x.avro", LOC, (long long)id);
    struct ice_snapshot_add a = {0};
    a.snapshot_id = id;
    a.timestamp_ms = 1700000001000;
    a.manifest_list = list;
    a.operation = ICE_OP_APPEND;
    a.added_data_files = files;
    a.added_records = records;
    a.added_files_size = files * 1000;
    a.changed_partition_count = files;
    a.added_rows = records;
    return a;
}

static const char *summary_of(const json_t *snap, const char *key)
{
    const char *v = ice_snapshot_summary(snap, key);
    return v ? v : "(absent)";
}

static void test_add_snapshot_twice_v3(void **state)
{
    (void)state;
    struct ice_meta m;
    make_meta(&m, 3, true, NULL);
    struct error err = {0};
    int64_t id1, id2;
    assert_int_equal(ice_meta_pick_snapshot_id(&m, &id1, &err), 0);
    assert_true(id1 > 0 && id1 < (INT64_C(1) << 53));

    const struct ice_summary_kv range1[] = {{"hoglake.source-snapshot-from", "0"},
                                            {"hoglake.source-snapshot-to", "7"}};
    struct ice_snapshot_add a = append_of(id1, 3, 120);
    a.extra = range1;
    a.nextra = 2;
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    assert_int_equal(m.last_sequence_number, 1);
    assert_int_equal(m.next_row_id, 120);
    assert_true(m.has_current_snapshot);
    assert_int_equal(m.current_snapshot_id, id1);
    const json_t *s1 = m.current_snapshot;
    assert_null(json_object_get(s1, "parent-snapshot-id"));
    assert_int_equal(json_integer_value(json_object_get(s1, "sequence-number")), 1);
    assert_int_equal(json_integer_value(json_object_get(s1, "first-row-id")), 0);
    assert_int_equal(json_integer_value(json_object_get(s1, "added-rows")), 120);
    assert_int_equal(json_integer_value(json_object_get(s1, "schema-id")), 0);
    assert_string_equal(summary_of(s1, "operation"), "append");
    assert_string_equal(summary_of(s1, "added-data-files"), "3");
    assert_string_equal(summary_of(s1, "total-records"), "120");
    assert_string_equal(summary_of(s1, "total-data-files"), "3");
    assert_string_equal(summary_of(s1, "total-files-size"), "3000");
    assert_string_equal(summary_of(s1, "total-delete-files"), "0");
    assert_string_equal(summary_of(s1, "hoglake.source-snapshot-to"), "7");
    assert_string_equal(summary_of(s1, "deleted-data-files"), "(absent)");
    assert_int_equal(json_array_size(json_object_get(m.doc, "metadata-log")), 0);

    /* The second commit, against v1 written at last-updated-ms. */
    int64_t v1_updated = m.last_updated_ms;
    do
        assert_int_equal(ice_meta_pick_snapshot_id(&m, &id2, &err), 0);
    while (id2 == id1);
    const struct ice_summary_kv range2[] = {{"hoglake.source-snapshot-from", "7"},
                                            {"hoglake.source-snapshot-to", "9"}};
    a = append_of(id2, 2, 30);
    a.timestamp_ms = 1600000000000; /* a clock behind the table: raised */
    a.previous_metadata_file = LOC "/metadata/v1.metadata.json";
    a.extra = range2;
    a.nextra = 2;
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    assert_int_equal(m.last_sequence_number, 2);
    assert_int_equal(m.next_row_id, 150);
    const json_t *s2 = m.current_snapshot;
    assert_int_equal(json_integer_value(json_object_get(s2, "parent-snapshot-id")), id1);
    assert_int_equal(json_integer_value(json_object_get(s2, "sequence-number")), 2);
    assert_int_equal(json_integer_value(json_object_get(s2, "first-row-id")), 120);
    assert_int_equal(json_integer_value(json_object_get(s2, "added-rows")), 30);
    assert_int_equal(json_integer_value(json_object_get(s2, "timestamp-ms")), v1_updated);
    assert_string_equal(summary_of(s2, "total-records"), "150");
    assert_string_equal(summary_of(s2, "total-data-files"), "5");
    assert_string_equal(summary_of(s2, "total-files-size"), "5000");

    char want[400];
    snprintf(want, sizeof want, "{'main':{'snapshot-id':%lld,'type':'branch'}}", (long long)id2);
    expect_json(json_object_get(m.doc, "refs"), want);
    assert_int_equal(json_integer_value(json_object_get(m.doc, "current-snapshot-id")), id2);
    snprintf(want, sizeof want,
             "[{'timestamp-ms':%lld,'snapshot-id':%lld},{'timestamp-ms':%lld,'snapshot-id':%lld}]",
             (long long)v1_updated, (long long)id1, (long long)v1_updated, (long long)id2);
    expect_json(json_object_get(m.doc, "snapshot-log"), want);
    snprintf(want, sizeof want, "[{'timestamp-ms':%lld,'metadata-file':'%s'}]",
             (long long)v1_updated, LOC "/metadata/v1.metadata.json");
    expect_json(json_object_get(m.doc, "metadata-log"), want);

    /* Reconciliation finds the newest snapshot carrying the range. */
    assert_ptr_equal(ice_meta_find_summary_key(&m, "hoglake.source-snapshot-to"), s2);
    assert_null(ice_meta_find_summary_key(&m, "hoglake.nothing"));

    /* A replace (compaction) keeps the records and drops files. */
    int64_t id3;
    assert_int_equal(ice_meta_pick_snapshot_id(&m, &id3, &err), 0);
    struct ice_snapshot_add r = append_of(id3, 1, 150);
    r.operation = ICE_OP_REPLACE;
    r.removed_data_files = 5;
    r.deleted_records = 150;
    r.removed_files_size = 5000;
    r.added_files_size = 4000;
    r.added_rows = 0;
    assert_int_equal(ice_meta_add_snapshot(&m, &r, &err), 0);
    assert_string_equal(summary_of(m.current_snapshot, "operation"), "replace");
    assert_string_equal(summary_of(m.current_snapshot, "total-records"), "150");
    assert_string_equal(summary_of(m.current_snapshot, "total-data-files"), "1");
    assert_string_equal(summary_of(m.current_snapshot, "total-files-size"), "4000");
    assert_string_equal(summary_of(m.current_snapshot, "deleted-data-files"), "5");
    assert_int_equal(m.next_row_id, 150);
    /* ...and the range is still found through the parent chain. */
    assert_ptr_equal(ice_meta_find_summary_key(&m, "hoglake.source-snapshot-to"),
                     json_array_get(json_object_get(m.doc, "snapshots"), 1));
    ice_meta_free(&m);
}

static void test_add_snapshot_v2(void **state)
{
    (void)state;
    struct ice_meta m;
    make_meta(&m, 2, true, NULL);
    struct error err = {0};
    struct ice_snapshot_add a = append_of(42, 1, 10);
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    a = append_of(43, 1, 5);
    a.previous_metadata_file = LOC "/metadata/v1.metadata.json";
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    assert_null(json_object_get(m.current_snapshot, "first-row-id"));
    assert_null(json_object_get(m.current_snapshot, "added-rows"));
    assert_null(json_object_get(m.doc, "next-row-id"));
    assert_int_equal(json_integer_value(json_object_get(m.current_snapshot, "parent-snapshot-id")),
                     42);
    assert_int_equal(json_integer_value(json_object_get(m.doc, "current-snapshot-id")), 43);
    assert_string_equal(summary_of(m.current_snapshot, "total-records"), "15");
    ice_meta_free(&m);
}

static void test_add_snapshot_refusals_leave_model(void **state)
{
    (void)state;
    struct ice_meta m;
    make_meta(&m, 3, true, NULL);
    struct error err = {0};
    struct ice_snapshot_add ok = append_of(42, 1, 10);
    assert_int_equal(ice_meta_add_snapshot(&m, &ok, &err), 0);
    char *before = ice_meta_dumps(&m);
    assert_non_null(before);

    const struct ice_summary_kv reserved[] = {{"total-records", "1"}};
    const struct ice_summary_kv empty_key[] = {{"", "1"}};
    struct ice_snapshot_add bad[9];
    for (size_t i = 0; i < N_OF(bad); i++)
        bad[i] = append_of(100 + (int64_t)i, 1, 10);
    bad[0].snapshot_id = 42;               /* taken */
    bad[1].snapshot_id = INT64_C(1) << 53; /* beyond JavaScript's exact range */
    bad[2].added_data_files = 0;           /* an empty append */
    bad[3].removed_data_files = 1;         /* an append that removes */
    bad[4].operation = ICE_OP_REPLACE;     /* a replace that removes nothing */
    bad[5].extra = reserved, bad[5].nextra = 1;
    bad[6].extra = empty_key, bad[6].nextra = 1;
    bad[7].manifest_list = "snap.avro"; /* not a URI */
    bad[8].operation = ICE_OP_REPLACE;  /* a replace that changes the records */
    bad[8].removed_data_files = 1;
    bad[8].deleted_records = 11;
    for (size_t i = 0; i < N_OF(bad); i++) {
        err.code = ERR_OK;
        assert_int_equal(ice_meta_add_snapshot(&m, &bad[i], &err), -1);
        assert_int_equal(err.code, ERR_INVALID);
        char *after = ice_meta_dumps(&m);
        assert_string_equal(after, before);
        free(after);
    }
    free(before);
    ice_meta_free(&m);
}

static void test_metadata_log_trimmed(void **state)
{
    (void)state;
    struct ice_meta m;
    json_t *props = sq("{'write.metadata.previous-versions-max':'2'}");
    make_meta(&m, 3, false, props);
    json_decref(props);
    struct error err = {0};
    for (int v = 1; v <= 4; v++) {
        char prev[200];
        snprintf(prev, sizeof prev, "%s/metadata/v%d.metadata.json", LOC, v);
        struct ice_snapshot_add a = append_of(v, 1, 1);
        a.previous_metadata_file = prev;
        assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    }
    const json_t *log = json_object_get(m.doc, "metadata-log");
    assert_int_equal(json_array_size(log), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(log, 0), "metadata-file")),
                        LOC "/metadata/v3.metadata.json");
    assert_string_equal(json_string_value(json_object_get(json_array_get(log, 1), "metadata-file")),
                        LOC "/metadata/v4.metadata.json");
    assert_int_equal(json_array_size(json_object_get(m.doc, "snapshot-log")), 4);
    ice_meta_free(&m);
}

/* ------------------------------------------------------------ sort order / schema updates */

static void test_set_sort_order(void **state)
{
    (void)state;
    struct ice_meta m;
    make_meta(&m, 3, true, NULL);
    struct tbl *x = tbl_new(GATEWAY);
    struct error err = {0};
    bool changed = true;

    const struct lake_sort_field same[] = {{2, false, true}, {3, false, true}};
    json_t *o = ice_sort_order_json(&x->t, same, 2, &err);
    assert_int_equal(ice_meta_set_sort_order(&m, o, &changed, &err), 0);
    assert_false(changed);
    assert_int_equal(json_array_size(json_object_get(m.doc, "sort-orders")), 1);
    json_decref(o);

    const struct lake_sort_field other[] = {{2, false, true}};
    o = ice_sort_order_json(&x->t, other, 1, &err);
    assert_int_equal(ice_meta_set_sort_order(&m, o, &changed, &err), 0);
    assert_true(changed);
    assert_int_equal(json_integer_value(json_object_get(m.default_sort_order, "order-id")), 2);
    assert_int_equal(json_array_size(json_object_get(m.default_sort_order, "fields")), 1);
    json_decref(o);

    o = ice_sort_order_json(&x->t, same, 2, &err); /* back to order 1, reused */
    assert_int_equal(ice_meta_set_sort_order(&m, o, &changed, &err), 0);
    assert_true(changed);
    assert_int_equal(json_integer_value(json_object_get(m.doc, "default-sort-order-id")), 1);
    assert_int_equal(json_array_size(json_object_get(m.doc, "sort-orders")), 2);
    json_decref(o);

    o = ice_sort_order_json(&x->t, NULL, 0, &err); /* unsorted: order 0, added */
    assert_int_equal(ice_meta_set_sort_order(&m, o, &changed, &err), 0);
    assert_true(changed);
    assert_int_equal(json_integer_value(json_object_get(m.doc, "default-sort-order-id")), 0);
    assert_int_equal(json_array_size(json_object_get(m.doc, "sort-orders")), 3);
    assert_int_equal(ice_meta_set_sort_order(&m, o, &changed, &err), 0);
    assert_false(changed);
    json_decref(o);

    json_t *shapeless = sq("{'order-id':1}");
    assert_int_equal(ice_meta_set_sort_order(&m, shapeless, &changed, &err), -1);
    json_decref(shapeless);
    tbl_free(x);
    ice_meta_free(&m);
}

/* Owner properties: set, merged with others, unchanged when equal;
 * format-version and non-strings refused. An overwrite replaces the
 * totals. */
static void test_properties_and_overwrite(void **state)
{
    (void)state;
    struct ice_meta m;
    json_t *props = sq("{'owner.team':'data'}");
    make_meta(&m, 3, true, props);
    json_decref(props);
    struct error err = {0};
    bool changed = false;
    json_t *owner = sq("{'hoglake.table-uuid':'u1','hoglake.catalog':'ai'}");
    assert_int_equal(ice_meta_set_properties(&m, owner, &changed, &err), 0);
    assert_true(changed);
    assert_string_equal(ice_meta_property(&m, "hoglake.table-uuid"), "u1");
    assert_string_equal(ice_meta_property(&m, "owner.team"), "data");
    assert_int_equal(ice_meta_set_properties(&m, owner, &changed, &err), 0);
    assert_false(changed);
    json_decref(owner);
    assert_null(ice_meta_property(&m, "hoglake.table"));
    json_t *bad = sq("{'format-version':'3'}");
    assert_int_equal(ice_meta_set_properties(&m, bad, &changed, &err), -1);
    json_decref(bad);
    bad = sq("{'hoglake.table-uuid':7}");
    assert_int_equal(ice_meta_set_properties(&m, bad, &changed, &err), -1);
    json_decref(bad);
    assert_string_equal(ice_meta_property(&m, "hoglake.table-uuid"), "u1");

    struct ice_snapshot_add a = append_of(42, 2, 10);
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    a = append_of(43, 1, 4);
    a.operation = ICE_OP_OVERWRITE;
    a.removed_data_files = 2;
    a.deleted_records = 10;
    a.added_rows = 4;
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    assert_string_equal(summary_of(m.current_snapshot, "operation"), "overwrite");
    assert_string_equal(summary_of(m.current_snapshot, "total-records"), "4");
    assert_string_equal(summary_of(m.current_snapshot, "total-data-files"), "1");
    assert_int_equal(m.next_row_id, 14); /* row ids are never reused */
    a = append_of(44, 0, 0);
    a.operation = ICE_OP_OVERWRITE; /* an overwrite adds a file */
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), -1);

    /* A delete adds delete files and no data file; its counts go into the
     * summary and the totals. */
    a = append_of(45, 0, 0);
    a.operation = ICE_OP_DELETE;
    a.added_rows = 0;
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), -1); /* no delete file */
    a.added_delete_files = 2;
    a.added_dvs = 2;
    a.added_position_deletes = 3;
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    assert_string_equal(summary_of(m.current_snapshot, "operation"), "delete");
    assert_string_equal(summary_of(m.current_snapshot, "added-dvs"), "2");
    assert_string_equal(summary_of(m.current_snapshot, "added-position-delete-files"), "0");
    assert_string_equal(summary_of(m.current_snapshot, "total-delete-files"), "2");
    assert_string_equal(summary_of(m.current_snapshot, "total-position-deletes"), "3");
    assert_string_equal(summary_of(m.current_snapshot, "total-records"), "4");
    assert_int_equal(m.next_row_id, 14);
    /* A vector replaced by a larger one: an overwrite that adds no data. */
    a = append_of(46, 0, 0);
    a.operation = ICE_OP_OVERWRITE;
    a.added_rows = 0;
    a.added_delete_files = 1;
    a.added_dvs = 1;
    a.added_position_deletes = 2;
    a.removed_delete_files = 1;
    a.removed_dvs = 1;
    a.removed_position_deletes = 1;
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    assert_string_equal(summary_of(m.current_snapshot, "removed-dvs"), "1");
    assert_string_equal(summary_of(m.current_snapshot, "total-delete-files"), "2");
    assert_string_equal(summary_of(m.current_snapshot, "total-position-deletes"), "4");
    /* A replace that applies them: the live rows stay (4 - 4 deleted). */
    a = append_of(47, 1, 1);
    a.operation = ICE_OP_REPLACE;
    a.added_rows = 0;
    a.removed_data_files = 1;
    a.deleted_records = 4;
    a.removed_delete_files = 2;
    a.removed_dvs = 2;
    a.removed_position_deletes = 4;
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), -1); /* 1 != 4 - 4 */
    a.added_records = 0;
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    assert_string_equal(summary_of(m.current_snapshot, "total-delete-files"), "0");
    assert_string_equal(summary_of(m.current_snapshot, "total-position-deletes"), "0");
    /* More vectors removed than delete files: refused. */
    a = append_of(48, 1, 1);
    a.removed_delete_files = 0;
    a.removed_dvs = 1;
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), -1);
    ice_meta_free(&m);
}

/* Expired snapshots leave "snapshots" and "snapshot-log"; the replaced
 * version is logged; the current snapshot is refused, changing nothing. */
static void test_remove_snapshots(void **state)
{
    (void)state;
    struct ice_meta m;
    make_meta(&m, 3, true, NULL);
    struct error err = {0};
    for (int64_t id = 41; id <= 43; id++) {
        struct ice_snapshot_add a = append_of(id, 1, 5);
        assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    }
    assert_true(ice_meta_snapshot_pinned(&m, 43));
    assert_false(ice_meta_snapshot_pinned(&m, 42));
    char *before = ice_meta_dumps(&m);
    const int64_t current[] = {42, 43};
    assert_int_equal(
        ice_meta_remove_snapshots(&m, current, 2, 1700000009000, LOC "/metadata/v1", &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    char *after = ice_meta_dumps(&m);
    assert_string_equal(after, before);
    free(after);
    free(before);
    const int64_t old[] = {41, 42};
    assert_int_equal(ice_meta_remove_snapshots(&m, old, 2, 1700000009000,
                                               LOC "/metadata/v4.metadata.json", &err),
                     0);
    assert_int_equal(json_array_size(json_object_get(m.doc, "snapshots")), 1);
    const json_t *log = json_object_get(m.doc, "snapshot-log");
    assert_int_equal(json_array_size(log), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(log, 0), "snapshot-id")),
                     43);
    assert_int_equal(m.current_snapshot_id, 43);
    assert_int_equal(m.last_updated_ms, 1700000009000);
    const json_t *mlog = json_object_get(m.doc, "metadata-log");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(mlog, json_array_size(mlog) - 1), "metadata-file")),
                        LOC "/metadata/v4.metadata.json");
    /* The survivor names an expired parent: the model still loads. */
    char *text = ice_meta_dumps(&m);
    struct ice_meta again;
    assert_int_equal(ice_meta_load(&again, text, strlen(text), &err), 0);
    ice_meta_free(&again);
    free(text);
    ice_meta_free(&m);
}

static void test_set_schema(void **state)
{
    (void)state;
    struct ice_meta m;
    make_meta(&m, 3, true, NULL);
    struct error err = {0};
    bool changed = true;
    struct tbl *x = tbl_new(GATEWAY);
    json_t *s = ice_schema_json(&x->t, 3, 7, NULL, &err); /* the id is ignored */
    assert_int_equal(ice_meta_set_schema(&m, s, &changed, &err), 0);
    assert_false(changed);
    json_decref(s);
    tbl_free(x);

    /* The catalog added a column (id 19): a new schema 1, last-column-id 19. */
    char evolved[2000];
    snprintf(evolved, sizeof evolved, "%.*s,{'name':'cwd','type':'string'}]",
             (int)strlen(GATEWAY) - 1, GATEWAY);
    x = tbl_new(evolved);
    s = ice_schema_json(&x->t, 3, 0, NULL, &err);
    assert_int_equal(ice_meta_set_schema(&m, s, &changed, &err), 0);
    assert_true(changed);
    assert_int_equal(json_integer_value(json_object_get(m.current_schema, "schema-id")), 1);
    assert_int_equal(m.last_column_id, 19);
    assert_int_equal(json_array_size(json_object_get(m.doc, "schemas")), 2);
    struct ice_snapshot_add a = append_of(5, 1, 1);
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    assert_int_equal(json_integer_value(json_object_get(m.current_snapshot, "schema-id")), 1);
    json_decref(s);
    tbl_free(x);
    ice_meta_free(&m);
}

/* ------------------------------------------------------------ load: round trip, refusals */

/* Another engine's v2 metadata with keys this writer does not interpret. */
static const char *const FOREIGN =
    "{'format-version':2,'table-uuid':'5f0c4ab2-0d3e-4c5b-9a7e-2b1f3c4d5e6f',"
    "'location':'s3://bucket/t','last-sequence-number':2,'last-updated-ms':1700000005000,"
    "'last-column-id':3,'schemas':[{'type':'struct','schema-id':0,'identifier-field-ids':[],"
    "'fields':[{'id':1,'name':'a','required':true,'type':'long'},"
    "{'id':2,'name':'ts','required':false,'type':'timestamptz'},"
    "{'id':3,'name':'r','required':false,'type':'double','initial-default':0.5}]}],"
    "'current-schema-id':0,'partition-specs':[{'spec-id':0,'fields':[{'name':'ts_day',"
    "'transform':'day','source-id':2,'field-id':1000}]}],'default-spec-id':0,"
    "'last-partition-id':1000,'properties':{'owner':'trino','write.format.default':'parquet'},"
    "'current-snapshot-id':9007199254740991,"
    "'refs':{'main':{'snapshot-id':9007199254740991,'type':'branch'},"
    "'audit':{'snapshot-id':11,'type':'tag','max-ref-age-ms':86400000}},"
    "'snapshots':[{'snapshot-id':11,'timestamp-ms':1700000001000,'sequence-number':1,"
    "'summary':{'operation':'append','total-records':'4','spark.app.id':'x'},"
    "'manifest-list':'s3://bucket/t/metadata/snap-11.avro','schema-id':0},"
    "{'snapshot-id':9007199254740991,'parent-snapshot-id':11,'timestamp-ms':1700000005000,"
    "'sequence-number':2,'summary':{'operation':'append','total-records':'6',"
    "'total-data-files':'2','hoglake.source-snapshot-to':'3'},"
    "'manifest-list':'s3://bucket/t/metadata/snap-big.avro','schema-id':0,"
    "'engine-specific':{'k':[1,2,3]}}],"
    "'snapshot-log':[{'timestamp-ms':1700000001000,'snapshot-id':11},"
    "{'timestamp-ms':1700000005000,'snapshot-id':9007199254740991}],"
    "'metadata-log':[{'timestamp-ms':1700000001000,'metadata-file':'s3://bucket/t/metadata/"
    "v1.metadata.json'}],'sort-orders':[{'order-id':0,'fields':[]}],'default-sort-order-id':0,"
    "'statistics':[{'snapshot-id':11,'statistics-path':'s3://bucket/t/stats.puffin',"
    "'file-size-in-bytes':100,'file-footer-size-in-bytes':10,'blob-metadata':[]}],"
    "'x-engine-extra':{'nested':[true,null,-9223372036854775808]},'z-last':'kept'}";

static void test_load_round_trip(void **state)
{
    (void)state;
    char *text = quoted(FOREIGN);
    struct ice_meta m;
    struct error err = {0};
    if (ice_meta_load(&m, text, strlen(text), &err) != 0)
        fail_msg("load: %s", err.msg);
    assert_int_equal(m.format_version, 2);
    assert_true(m.has_current_snapshot);
    assert_int_equal(m.current_snapshot_id, INT64_C(9007199254740991));
    assert_int_equal(m.last_sequence_number, 2);
    assert_int_equal(ice_meta_next_sequence_number(&m), 3);
    assert_string_equal(m.location, "s3://bucket/t");
    assert_string_equal(summary_of(m.current_snapshot, "hoglake.source-snapshot-to"), "3");
    assert_int_equal(json_integer_value(json_object_get(m.default_spec, "spec-id")), 0);

    /* Unchanged, the dump is the same document. */
    char *out = ice_meta_dumps(&m);
    json_t *a = json_loads(text, 0, NULL), *b = json_loads(out, 0, NULL);
    assert_true(json_equal(a, b));
    /* Known keys first in the fixed order, then the others as loaded. */
    assert_true(strncmp(out, "{\"format-version\":2,\"table-uuid\":", 33) == 0);
    char *x_extra = strstr(out, "\"x-engine-extra\""), *z = strstr(out, "\"z-last\"");
    char *mlog = strstr(out, "\"metadata-log\"");
    assert_true(mlog && x_extra && z && mlog < x_extra && x_extra < z);
    /* int64 values stay exact integers. */
    assert_non_null(strstr(out, "-9223372036854775808"));
    assert_non_null(strstr(out, "\"current-snapshot-id\":9007199254740991"));
    json_decref(a);
    json_decref(b);
    free(out);

    /* Committing on top keeps every foreign key and the other ref. */
    struct ice_snapshot_add add = append_of(77, 1, 4);
    add.manifest_list = "s3://bucket/t/metadata/snap-77-1-x.avro";
    add.previous_metadata_file = "s3://bucket/t/metadata/v2.metadata.json";
    assert_int_equal(ice_meta_add_snapshot(&m, &add, &err), 0);
    out = ice_meta_dumps(&m);
    json_t *doc = json_loads(out, 0, NULL);
    json_t *orig = json_loads(text, 0, NULL);
    static const char *const carried[] = {"x-engine-extra", "z-last", "statistics", "properties",
                                          "schemas"};
    for (size_t i = 0; i < N_OF(carried); i++)
        assert_true(
            json_equal(json_object_get(doc, carried[i]), json_object_get(orig, carried[i])));
    expect_json(json_object_get(json_object_get(doc, "refs"), "audit"),
                "{'snapshot-id':11,'type':'tag','max-ref-age-ms':86400000}");
    assert_true(json_equal(json_array_get(json_object_get(doc, "snapshots"), 1),
                           json_array_get(json_object_get(orig, "snapshots"), 1)));
    assert_int_equal(json_integer_value(json_object_get(doc, "last-sequence-number")), 3);
    assert_int_equal(json_integer_value(json_object_get(m.current_snapshot, "parent-snapshot-id")),
                     INT64_C(9007199254740991));
    /* Totals continue from the parent; a total it lacks is left out. */
    assert_string_equal(summary_of(m.current_snapshot, "total-records"), "10");
    assert_string_equal(summary_of(m.current_snapshot, "total-data-files"), "3");
    assert_string_equal(summary_of(m.current_snapshot, "total-files-size"), "(absent)");
    assert_int_equal(json_array_size(json_object_get(doc, "metadata-log")), 2);
    json_decref(doc);
    json_decref(orig);

    /* The written text loads again. */
    struct ice_meta again;
    assert_int_equal(ice_meta_load(&again, out, strlen(out), &err), 0);
    assert_int_equal(again.current_snapshot_id, 77);
    ice_meta_free(&again);
    free(out);
    free(text);
    ice_meta_free(&m);
}

/* FOREIGN with the first occurrence of `from` replaced by `to`. */
static char *foreign_with(const char *from, const char *to)
{
    char *base = quoted(FOREIGN), *f = quoted(from), *t = quoted(to);
    char *at = strstr(base, f);
    if (!at)
        fail_msg("fixture lacks %s", f);
    size_t n = strlen(base) - strlen(f) + strlen(t) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(at - base), base, t, at + strlen(f));
    free(base);
    free(f);
    free(t);
    return out;
}

static void test_load_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *from, *to;
        enum error_code kind;
        const char *says;
    } cases[] = {
        {"'format-version':2", "'format-version':1", ERR_UNSUPPORTED, "version 1"},
        {"'format-version':2", "'format-version':4", ERR_UNSUPPORTED, "version 4"},
        {"'format-version':2", "'format-version':'2'", ERR_MALFORMED, "format-version"},
        {"'format-version':2,", "", ERR_MALFORMED, "\"format-version\" is missing"},
        {"'table-uuid':'5f0c4ab2-0d3e-4c5b-9a7e-2b1f3c4d5e6f',", "", ERR_MALFORMED, "table-uuid"},
        {"'table-uuid':'5f0c4ab2-0d3e-4c5b-9a7e-2b1f3c4d5e6f'", "'table-uuid':'x'", ERR_MALFORMED,
         "not a UUID"},
        {"'location':'s3://bucket/t'", "'location':''", ERR_MALFORMED, "location"},
        {"'last-sequence-number':2", "'last-sequence-number':2.0", ERR_MALFORMED, "not an integer"},
        {"'last-sequence-number':2", "'last-sequence-number':1", ERR_MALFORMED,
         "above last-sequence-number"},
        {"'last-sequence-number':2", "'last-sequence-number':99999999999999999999", ERR_MALFORMED,
         "not valid JSON"},
        {"'current-schema-id':0", "'current-schema-id':5", ERR_MALFORMED, "current-schema-id"},
        {"'default-spec-id':0", "'default-spec-id':1", ERR_MALFORMED, "default-spec-id"},
        {"'default-sort-order-id':0", "'default-sort-order-id':1", ERR_MALFORMED,
         "default-sort-order-id"},
        {"'sort-orders':[{'order-id':0,'fields':[]}],", "", ERR_MALFORMED, "sort-orders"},
        {"'current-snapshot-id':9007199254740991", "'current-snapshot-id':12", ERR_MALFORMED,
         "current-snapshot-id"},
        {"'main':{'snapshot-id':9007199254740991", "'main':{'snapshot-id':11", ERR_MALFORMED,
         "refs.main"},
        {"'audit':{'snapshot-id':11", "'audit':{'snapshot-id':13", ERR_MALFORMED, "refs.audit"},
        {"{'snapshot-id':11,'timestamp-ms'", "{'snapshot-id':9007199254740991,'timestamp-ms'",
         ERR_MALFORMED, "listed twice"},
        {"'summary':{'operation':'append','total-records':'4'", "'summary':{'total-records':'4'",
         ERR_MALFORMED, "operation"},
        {"'manifest-list':'s3://bucket/t/metadata/snap-11.avro',", "", ERR_MALFORMED,
         "manifest-list"},
        {"'transform':'day','source-id':2,", "'transform':'day',", ERR_MALFORMED, "source-id"},
        {"'properties':{'owner':'trino'", "'properties':{'owner':7", ERR_MALFORMED, "owner"},
        {"'metadata-log':[{'timestamp-ms':1700000001000,'metadata-file':'s3://bucket/t/metadata/"
         "v1.metadata.json'}]",
         "'metadata-log':{}", ERR_MALFORMED, "\"metadata-log\" is not an array"},
        {"'schemas':[", "'schemas':[7,", ERR_MALFORMED, "schemas[0] is not an object"},
        {"'z-last':'kept'", "'z-last':'kept','location':'s3://other'", ERR_MALFORMED,
         "not valid JSON"},
    };
    for (size_t i = 0; i < N_OF(cases); i++) {
        char *text = foreign_with(cases[i].from, cases[i].to);
        struct ice_meta m;
        struct error err = {0};
        int rc = ice_meta_load(&m, text, strlen(text), &err);
        if (rc != -1 || err.code != cases[i].kind || !strstr(err.msg, cases[i].says))
            fail_msg("case %zu: rc %d kind %s msg %s", i, rc, error_code_name(err.code), err.msg);
        assert_null(m.doc);
        free(text);
    }

    /* Not metadata at all. */
    static const char *const junk[] = {"", "[]", "null", "{", "{\"format-version\":3}", "\xff\xfe"};
    for (size_t i = 0; i < N_OF(junk); i++) {
        struct ice_meta m;
        struct error err = {0};
        assert_int_equal(ice_meta_load(&m, junk[i], strlen(junk[i]), &err), -1);
        assert_int_equal(err.code, ERR_MALFORMED);
    }
    /* Deep nesting is refused by the parser, not by a crash. */
    size_t depth = 100000;
    char *deep = malloc(depth * 2 + 1);
    assert_non_null(deep);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[depth * 2] = '\0';
    struct ice_meta m;
    struct error err = {0};
    assert_int_equal(ice_meta_load(&m, deep, depth * 2, &err), -1);
    assert_int_equal(err.code, ERR_MALFORMED);
    free(deep);
}

static void test_load_v3_needs_next_row_id(void **state)
{
    (void)state;
    struct ice_meta m;
    make_meta(&m, 3, true, NULL);
    struct error err = {0};
    struct ice_snapshot_add a = append_of(8, 2, 50);
    assert_int_equal(ice_meta_add_snapshot(&m, &a, &err), 0);
    char *text = ice_meta_dumps(&m);
    ice_meta_free(&m);

    struct ice_meta back;
    assert_int_equal(ice_meta_load(&back, text, strlen(text), &err), 0);
    assert_int_equal(back.next_row_id, 50);
    assert_int_equal(back.format_version, 3);
    assert_int_equal(back.current_snapshot_id, 8);
    ice_meta_free(&back);

    char *cut = strstr(text, "\"next-row-id\":50,");
    assert_non_null(cut);
    memmove(cut, cut + strlen("\"next-row-id\":50,"),
            strlen(cut + strlen("\"next-row-id\":50,")) + 1);
    assert_int_equal(ice_meta_load(&back, text, strlen(text), &err), -1);
    assert_int_equal(err.code, ERR_MALFORMED);
    assert_non_null(strstr(err.msg, "next-row-id"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_mapping_every_scalar),
        cmocka_unit_test(test_schema_nested),
        cmocka_unit_test(test_partition_spec),
        cmocka_unit_test(test_spec_drift),
        cmocka_unit_test(test_sort_order),
        cmocka_unit_test(test_create_v3_shape),
        cmocka_unit_test(test_create_v2_shape),
        cmocka_unit_test(test_add_snapshot_twice_v3),
        cmocka_unit_test(test_add_snapshot_v2),
        cmocka_unit_test(test_add_snapshot_refusals_leave_model),
        cmocka_unit_test(test_metadata_log_trimmed),
        cmocka_unit_test(test_set_sort_order),
        cmocka_unit_test(test_set_schema),
        cmocka_unit_test(test_properties_and_overwrite),
        cmocka_unit_test(test_remove_snapshots),
        cmocka_unit_test(test_load_round_trip),
        cmocka_unit_test(test_load_refusals),
        cmocka_unit_test(test_load_v3_needs_next_row_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
