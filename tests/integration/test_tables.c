/* Table DDL over HTTP against a real hoglaked and PostgreSQL: create (shape,
 * field ids, the 27 wire types, decimal params, refused and unknown types,
 * shape rules, depth and node caps, names, create-time metadata), get (time
 * travel, exact totals from file rows, 404 before creation, 410 below the
 * floor), list (summaries, order, snapshot_count, time travel) and drop
 * (versioned rows ended, name reuse, incarnation guard).
 *
 * Request bodies in this file are written with single quotes for
 * readability; the helpers turn every ' into " before sending. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness.h"

#define CAT "tc"
#define NS "ns"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

/* ---- helpers ---- */

static int64_t schema_version_of(const char *cat)
{
    return sqli("SELECT schema_version FROM hog_catalog WHERE name = '%s'", cat);
}

static int64_t count_named_versions(const char *cat, const char *name)
{
    return sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld AND name = '%s'",
                (long long)cat_id(cat), name);
}

static void post_table(struct http_result *r, const char *cat, const char *ns, const char *body)
{
    char *b = dq(body);
    api_send_text(r, &srv, "POST", b, "/v1/catalogs/%s/namespaces/%s/tables", cat, ns);
    free(b);
}

static json_t *create_ok(const char *cat, const char *ns, const char *body)
{
    struct http_result r;
    post_table(&r, cat, ns, body);
    expect_status(&r, 201);
    json_t *t = json_incref(r.json);
    http_result_free(&r);
    return t;
}

/* A create in CAT.NS that must fail without consuming a snapshot. */
static void create_fails(const char *body, long status, const char *code, const char *needle)
{
    int64_t h0 = head_of(CAT);
    struct http_result r;
    post_table(&r, CAT, NS, body);
    expect_error(&r, status, code);
    if (needle)
        expect_detail_contains(&r, needle);
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
}

static json_t *alter_ok(const char *cat, const char *ns, const char *t, const char *ops)
{
    char *b = dq(ops);
    struct http_result r;
    api_send_text(&r, &srv, "POST", b, "/v1/catalogs/%s/namespaces/%s/tables/%s/alter", cat, ns, t);
    free(b);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    return out;
}

static json_t *jget(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        char *dump = json_dumps(o, JSON_COMPACT);
        fail_msg("missing member '%s' in %s", key, dump ? dump : "?");
    }
    return v;
}

static void expect_absent(const json_t *o, const char *key)
{
    if (json_object_get(o, key)) {
        char *dump = json_dumps(o, JSON_COMPACT);
        fail_msg("member '%s' should be absent in %s", key, dump ? dump : "?");
    }
}

/* The column at a dotted path through children ("s.items.element.q"). */
static json_t *colpath(const json_t *table, const char *path)
{
    const json_t *cols = jget(table, "columns");
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = NULL;
    for (char *seg = strtok(buf, "."); seg; seg = strtok(NULL, ".")) {
        if (cur)
            cols = jget(cur, "children");
        cur = NULL;
        size_t i;
        json_t *c;
        json_array_foreach (cols, i, c) {
            if (strcmp(jstr(c, "name"), seg) == 0) {
                cur = c;
                break;
            }
        }
        if (!cur) {
            char *dump = json_dumps(table, JSON_COMPACT);
            fail_msg("no column '%s' (segment '%s') in %s", path, seg, dump ? dump : "?");
        }
    }
    return cur;
}

static bool looks_like_uuid(const char *s)
{
    if (strlen(s) != 36)
        return false;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !strchr("0123456789abcdefABCDEF", s[i]))
            return false;
    }
    return true;
}

/* ISO-8601 UTC text of a snapshot's time, microsecond precision. */
static void snapshot_time_text(const char *cat, int64_t snap, const char *suffix, char *out,
                               size_t size)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT to_char(snapshot_time AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US')"
             " FROM hog_snapshot WHERE catalog_id = %lld AND snapshot_id = %lld",
             (long long)cat_id(cat), (long long)snap);
    PGresult *r = PQexec(pg, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
        fail_msg("snapshot time query failed: %s", PQerrorMessage(pg));
    snprintf(out, size, "%s%s", PQgetvalue(r, 0, 0), suffix);
    PQclear(r);
}

/* The same instant written with a UTC offset of `offset_min` minutes
 * ("+05:30" is sent URL-encoded). */
static void snapshot_time_text_shifted(const char *cat, int64_t snap, int offset_min, char *out,
                                       size_t size)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT to_char(snapshot_time AT TIME ZONE 'UTC' + %d * interval '1 minute',"
             " 'YYYY-MM-DD\"T\"HH24:MI:SS.US') FROM hog_snapshot WHERE catalog_id = %lld AND"
             " snapshot_id = %lld",
             offset_min, (long long)cat_id(cat), (long long)snap);
    PGresult *r = PQexec(pg, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
        fail_msg("snapshot time query failed: %s", PQerrorMessage(pg));
    int a = offset_min < 0 ? -offset_min : offset_min;
    snprintf(out, size, "%s%s%02d:%02d", PQgetvalue(r, 0, 0), offset_min < 0 ? "-" : "%2B", a / 60,
             a % 60);
    PQclear(r);
}

/* Registers a data file row straight in the manifest. */
static void insert_file(const char *cat, int64_t table_id, int64_t begin, int64_t end,
                        int64_t records, int64_t bytes)
{
    static int seq;
    int64_t c = cat_id(cat);
    char end_text[32];
    if (end < 0)
        snprintf(end_text, sizeof end_text, "NULL");
    else
        snprintf(end_text, sizeof end_text, "%lld", (long long)end);
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot,"
             " end_snapshot, path, record_count, file_size_bytes, row_id_start)"
             " SELECT %lld, coalesce(max(data_file_id), 0) + 1, %lld, %lld, %s,"
             " 's3://hoglake-test/%s/f%d.parquet', %lld, %lld, 0"
             " FROM hog_data_file WHERE catalog_id = %lld",
             (long long)c, (long long)table_id, (long long)begin, end_text, cat, ++seq,
             (long long)records, (long long)bytes, (long long)c);
}

/* One DDL snapshot that does not touch any table. */
static int64_t bump_snapshot(const char *cat)
{
    static int n;
    char name[32];
    snprintf(name, sizeof name, "bump%d", ++n);
    make_namespace(&srv, cat, name);
    return head_of(cat);
}

/* ---- setup ---- */

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "tables", CAT, NS);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* ---- create ---- */

static void create_returns_table_shape(void **state)
{
    (void)state;
    int64_t h0 = head_of(CAT), sv0 = schema_version_of(CAT);
    json_t *t = create_ok(CAT, NS,
                          "{'name':'shape','columns':[{'name':'id','type':'long','nullable':false},"
                          "{'name':'label','type':'string','comment':'the label'}]}");
    assert_string_equal(jstr(t, "name"), "shape");
    assert_string_equal(jstr(t, "namespace"), NS);
    const char *uuid = jstr(t, "table_uuid");
    assert_true(looks_like_uuid(uuid));
    int64_t snap = jint(t, "snapshot_id");
    assert_int_equal(snap, h0 + 1);
    assert_int_equal(jint(t, "read_snapshot_id"), snap);
    assert_true(json_is_object(jget(t, "properties")));
    assert_int_equal(json_object_size(jget(t, "properties")), 0);
    assert_int_equal(jint(t, "record_count"), 0);
    assert_int_equal(jint(t, "file_count"), 0);
    assert_int_equal(jint(t, "file_size_bytes"), 0);
    expect_absent(t, "comment");
    expect_absent(t, "partition_spec");
    expect_absent(t, "sort_spec");

    json_t *cols = jget(t, "columns");
    assert_int_equal(json_array_size(cols), 2);
    json_t *id = json_array_get(cols, 0), *label = json_array_get(cols, 1);
    assert_string_equal(jstr(id, "name"), "id");
    assert_string_equal(jstr(id, "type"), "long");
    assert_true(json_is_false(jget(id, "nullable")));
    assert_int_equal(jint(id, "field_id"), 1);
    assert_int_equal(jint(id, "ordinal"), 0);
    expect_absent(id, "children");
    expect_absent(id, "type_params");
    expect_absent(id, "comment");
    assert_string_equal(jstr(label, "name"), "label");
    assert_string_equal(jstr(label, "type"), "string");
    assert_true(json_is_true(jget(label, "nullable")));
    assert_int_equal(jint(label, "field_id"), 2);
    assert_int_equal(jint(label, "ordinal"), 1);
    assert_string_equal(jstr(label, "comment"), "the label");

    /* The rows behind it. */
    int64_t c = cat_id(CAT), tid = table_id_of(CAT, NS, "shape");
    assert_int_equal(schema_version_of(CAT), sv0 + 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table WHERE catalog_id = %lld AND table_id ="
                          " %lld AND table_uuid = '%s' AND created_snapshot = %lld AND"
                          " dropped_snapshot IS NULL AND next_field_id = 3",
                          (long long)c, (long long)tid, uuid, (long long)snap),
                     1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld AND"
                          " table_id = %lld AND begin_snapshot = %lld AND end_snapshot IS NULL"
                          " AND name = 'shape' AND comment IS NULL AND properties = '{}'::jsonb",
                          (long long)c, (long long)tid, (long long)snap),
                     1);
    expect_sql("1:id:long:false:0:-:<>,2:label:string:true:1:-:the label",
               "SELECT string_agg(field_id || ':' || name || ':' || col_type || ':' || nullable"
               " || ':' || ordinal || ':' || coalesce(parent_field_id::text, '-') || ':' ||"
               " coalesce(comment, '<>'), ',' ORDER BY field_id) FROM hog_column"
               " WHERE catalog_id = %lld AND table_id = %lld AND begin_snapshot = %lld"
               " AND end_snapshot IS NULL AND type_params IS NULL",
               (long long)c, (long long)tid, (long long)snap);
    expect_sql("table_created",
               "SELECT string_agg(kind || CASE WHEN object_id = %lld THEN '' ELSE '?' END, ',')"
               " FROM hog_snapshot_change WHERE catalog_id = %lld AND snapshot_id = %lld",
               (long long)tid, (long long)c, (long long)snap);
    assert_int_equal(sqli("SELECT schema_version FROM hog_snapshot WHERE catalog_id = %lld AND"
                          " snapshot_id = %lld",
                          (long long)c, (long long)snap),
                     sv0 + 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table_stats WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)c, (long long)tid),
                     1);
    json_decref(t);
}

static void create_assigns_field_ids_depth_first(void **state)
{
    (void)state;
    json_t *t =
        create_ok(CAT, NS,
                  "{'name':'nested','columns':["
                  "{'name':'a','type':'int'},"
                  "{'name':'s','type':'struct','children':["
                  "  {'name':'x','type':'int'},"
                  "  {'name':'items','type':'list','children':["
                  "    {'name':'element','type':'struct','children':["
                  "      {'name':'p','type':'string'},{'name':'q','type':'long'}]}]},"
                  "  {'name':'y','type':'string'}]},"
                  "{'name':'m','type':'map','children':["
                  "  {'name':'key','type':'string','nullable':false},"
                  "  {'name':'value','type':'struct','children':[{'name':'v','type':'double'}]}]},"
                  "{'name':'z','type':'boolean'}]}");
    static const struct {
        const char *path;
        int id, ordinal;
    } want[] = {
        {"a", 1, 0},
        {"s", 2, 1},
        {"s.x", 3, 0},
        {"s.items", 4, 1},
        {"s.items.element", 5, 0},
        {"s.items.element.p", 6, 0},
        {"s.items.element.q", 7, 1},
        {"s.y", 8, 2},
        {"m", 9, 2},
        {"m.key", 10, 0},
        {"m.value", 11, 1},
        {"m.value.v", 12, 0},
        {"z", 13, 3},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        json_t *c = colpath(t, want[i].path);
        if (jint(c, "field_id") != want[i].id || jint(c, "ordinal") != want[i].ordinal)
            fail_msg("%s: expected field_id %d ordinal %d, got %lld / %lld", want[i].path,
                     want[i].id, want[i].ordinal, (long long)jint(c, "field_id"),
                     (long long)jint(c, "ordinal"));
    }
    assert_int_equal(json_array_size(jget(t, "columns")), 4);
    assert_int_equal(json_array_size(jget(colpath(t, "s"), "children")), 3);
    assert_int_equal(json_array_size(jget(colpath(t, "s.items"), "children")), 1);
    assert_int_equal(json_array_size(jget(colpath(t, "m"), "children")), 2);
    assert_true(json_is_false(jget(colpath(t, "m.key"), "nullable")));
    assert_true(json_is_array(jget(colpath(t, "m.value"), "children")));
    expect_absent(colpath(t, "m.value.v"), "children");
    assert_string_equal(jstr(colpath(t, "s.items.element"), "type"), "struct");

    int64_t c = cat_id(CAT), tid = table_id_of(CAT, NS, "nested");
    expect_sql("1:-:0:int,2:-:1:struct,3:2:0:int,4:2:1:list,5:4:0:struct,6:5:0:string,"
               "7:5:1:long,8:2:2:string,9:-:2:map,10:9:0:string,11:9:1:struct,12:11:0:double,"
               "13:-:3:boolean",
               "SELECT string_agg(field_id || ':' || coalesce(parent_field_id::text, '-') || ':' ||"
               " ordinal || ':' || col_type, ',' ORDER BY field_id) FROM hog_column"
               " WHERE catalog_id = %lld AND table_id = %lld AND end_snapshot IS NULL",
               (long long)c, (long long)tid);
    assert_int_equal(sqli("SELECT next_field_id FROM hog_table WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)c, (long long)tid),
                     14);
    /* GET reads the same tree back from the rows. */
    json_t *g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/nested");
    assert_true(json_equal(jget(g, "columns"), jget(t, "columns")));
    json_decref(g);
    json_decref(t);
}

static const char *const all_types[27] = {
    "boolean",     "int8",         "int16",     "int",          "long",        "uint8",  "uint16",
    "uint32",      "uint64",       "float",     "double",       "decimal",     "date",   "time",
    "timestamp_s", "timestamp_ms", "timestamp", "timestamp_ns", "timestamptz", "string", "json",
    "uuid",        "binary",       "variant",   "list",         "struct",      "map",
};

/* A ColumnDef of the given type (spelled as given), with the children a
 * container needs. */
static json_t *column_of_type(const char *name, const char *type)
{
    json_t *c = jpack("{s:s,s:s}", "name", name, "type", type);
    if (strcasecmp(type, "list") == 0)
        json_object_set_new(c, "children", jpack("[{s:s,s:s}]", "name", "element", "type", "int"));
    else if (strcasecmp(type, "struct") == 0)
        json_object_set_new(c, "children", jpack("[{s:s,s:s}]", "name", "f", "type", "int"));
    else if (strcasecmp(type, "map") == 0)
        json_object_set_new(c, "children",
                            jpack("[{s:s,s:s,s:b},{s:s,s:s}]", "name", "key", "type", "string",
                                  "nullable", 0, "name", "value", "type", "long"));
    return c;
}

static void create_accepts_all_27_types(void **state)
{
    (void)state;
    json_t *cols = json_array();
    for (int i = 0; i < 27; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%02d", i);
        json_array_append_new(cols, column_of_type(name, all_types[i]));
    }
    struct http_result r;
    api_send(&r, &srv, "POST", jpack("{s:s,s:o}", "name", "alltypes", "columns", cols),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_status(&r, 201);
    json_t *rc = jget(r.json, "columns");
    assert_int_equal(json_array_size(rc), 27);
    char expected[1024] = "";
    for (int i = 0; i < 27; i++) {
        json_t *c = json_array_get(rc, (size_t)i);
        assert_string_equal(jstr(c, "type"), all_types[i]);
        assert_int_equal(jint(c, "ordinal"), i);
        strcat(expected, i ? "," : "");
        strcat(expected, all_types[i]);
    }
    /* Depth-first: the list's element and the struct's field come before
     * the map, the last of 31 nodes (29 = map, 30 = key, 31 = value). */
    assert_int_equal(jint(json_array_get(rc, 24), "field_id"), 25);
    assert_int_equal(jint(json_array_get(rc, 25), "field_id"), 27);
    assert_int_equal(jint(json_array_get(rc, 26), "field_id"), 29);
    http_result_free(&r);
    int64_t c = cat_id(CAT), tid = table_id_of(CAT, NS, "alltypes");
    expect_sql(expected,
               "SELECT string_agg(col_type, ',' ORDER BY ordinal) FROM hog_column WHERE"
               " catalog_id = %lld AND table_id = %lld AND parent_field_id IS NULL"
               " AND end_snapshot IS NULL",
               (long long)c, (long long)tid);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NULL",
                          (long long)c, (long long)tid),
                     31);

    /* Type names are case-insensitive and stored canonically. */
    static const char *const spelled[] = {"UUID",    "Int",         "TIMESTAMPTZ", "Decimal",
                                          "VARIANT", "List",        "STRUCT",      "Map",
                                          "Uint64",  "TimeStamp_NS"};
    static const char *const canonical[] = {"uuid",    "int",         "timestamptz", "decimal",
                                            "variant", "list",        "struct",      "map",
                                            "uint64",  "timestamp_ns"};
    cols = json_array();
    for (size_t i = 0; i < sizeof spelled / sizeof spelled[0]; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%zu", i);
        json_array_append_new(cols, column_of_type(name, spelled[i]));
    }
    api_send(&r, &srv, "POST", jpack("{s:s,s:o}", "name", "casetypes", "columns", cols),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_status(&r, 201);
    rc = jget(r.json, "columns");
    expected[0] = '\0';
    for (size_t i = 0; i < sizeof spelled / sizeof spelled[0]; i++) {
        assert_string_equal(jstr(json_array_get(rc, i), "type"), canonical[i]);
        strcat(expected, i ? "," : "");
        strcat(expected, canonical[i]);
    }
    http_result_free(&r);
    expect_sql(expected,
               "SELECT string_agg(col_type, ',' ORDER BY ordinal) FROM hog_column WHERE"
               " catalog_id = %lld AND table_id = %lld AND parent_field_id IS NULL"
               " AND end_snapshot IS NULL",
               (long long)c, (long long)table_id_of(CAT, NS, "casetypes"));

    create_fails("{'name':'badtype','columns':[{'name':'a','type':'UUID_T'}]}", 422, "validation",
                 "unknown column type 'UUID_T'");
}

static void create_decimal_params(void **state)
{
    (void)state;
    json_t *t =
        create_ok(CAT, NS,
                  "{'name':'decs','columns':["
                  "{'name':'d1','type':'decimal'},"
                  "{'name':'d2','type':'decimal','type_params':{'precision':10,'scale':2}},"
                  "{'name':'d3','type':'decimal','type_params':{'precision':5}},"
                  "{'name':'d4','type':'decimal','type_params':{'scale':4}},"
                  "{'name':'d5','type':'DECIMAL','type_params':{'precision':38,'scale':38}},"
                  "{'name':'d6','type':'decimal','type_params':{'precision':1,'scale':0}},"
                  "{'name':'n','type':'int'}]}");
    static const struct {
        const char *name;
        int p, s;
    } want[] = {{"d1", 38, 0}, {"d2", 10, 2},  {"d3", 5, 0},
                {"d4", 38, 4}, {"d5", 38, 38}, {"d6", 1, 0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        json_t *c = colpath(t, want[i].name);
        assert_string_equal(jstr(c, "type"), "decimal");
        json_t *tp = jget(c, "type_params");
        assert_int_equal(json_object_size(tp), 2);
        assert_int_equal(jint(tp, "precision"), want[i].p);
        assert_int_equal(jint(tp, "scale"), want[i].s);
    }
    expect_absent(colpath(t, "n"), "type_params");
    json_decref(t);
    int64_t c = cat_id(CAT), tid = table_id_of(CAT, NS, "decs");
    expect_sql("d1=38/0,d2=10/2,d3=5/0,d4=38/4,d5=38/38,d6=1/0,n=<>",
               "SELECT string_agg(name || '=' || coalesce((type_params->>'precision') || '/' ||"
               " (type_params->>'scale'), '<>'), ',' ORDER BY field_id) FROM hog_column WHERE"
               " catalog_id = %lld AND table_id = %lld AND end_snapshot IS NULL",
               (long long)c, (long long)tid);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld AND type_params = '{\"precision\": 38, \"scale\": 0}'::jsonb",
                          (long long)c, (long long)tid),
                     1);

    static const struct {
        const char *params, *needle;
    } bad[] = {
        {"{'precision':0}", "precision 0, outside 1..38"},
        {"{'precision':39}", "precision 39, outside 1..38"},
        {"{'precision':10,'scale':-1}", "negative scale"},
        {"{'precision':5,'scale':6}", "scale 6 above its precision 5"},
        {"{'scale':39}", "scale 39 above its precision 38"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "{'name':'baddec','columns':[{'name':'d','type':'decimal','type_params':%s}]}",
                 bad[i].params);
        create_fails(body, 422, "validation", bad[i].needle);
    }
    /* Parameters that are not integers, or unknown, are malformed input. */
    static const struct {
        const char *params, *needle;
    } malformed[] = {
        {"{'precision':'10'}", "non-integer 'precision'"},
        {"{'precision':10.5}", "non-integer 'precision'"},
        {"{'precision':10,'scale':true}", "non-integer 'scale'"},
        {"{'precision':10,'digits':2}", "digits"},
    };
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "{'name':'baddec','columns':[{'name':'d','type':'decimal','type_params':%s}]}",
                 malformed[i].params);
        create_fails(body, 400, "bad_request", malformed[i].needle);
    }
    assert_int_equal(count_named_versions(CAT, "baddec"), 0);
}

static void create_refuses_named_types(void **state)
{
    (void)state;
    static const struct {
        const char *type, *reason;
    } refused[] = {
        {"int128", "decimal(38)"},
        {"uint128", "decimal(38)"},
        {"timetz", "no Iceberg mapping"},
        {"interval", "no Iceberg mapping"},
        {"point", "geometry"},
        {"linestring", "geometry"},
        {"polygon", "geometry"},
        {"multipoint", "geometry"},
        {"multilinestring", "geometry"},
        {"multipolygon", "geometry"},
        {"linestring_z", "geometry"},
        {"geometrycollection", "geometry"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char body[256], needle[64];
        snprintf(body, sizeof body, "{'name':'refused','columns':[{'name':'a','type':'%s'}]}",
                 refused[i].type);
        snprintf(needle, sizeof needle, "type '%s'", refused[i].type);
        create_fails(body, 422, "validation", needle);
        struct http_result r;
        post_table(&r, CAT, NS, body);
        expect_detail_contains(&r, refused[i].reason);
        expect_detail_contains(&r, "not supported");
        http_result_free(&r);
    }
    /* Refused inside a container too, and whatever the case. */
    create_fails("{'name':'refused','columns':[{'name':'s','type':'struct','children':["
                 "{'name':'a','type':'INT128'}]}]}",
                 422, "validation", "decimal(38)");
    create_fails("{'name':'unknown','columns':[{'name':'a','type':'varchar'}]}", 422, "validation",
                 "unknown column type 'varchar'");
    create_fails("{'name':'unknown','columns':[{'name':'l','type':'list','children':["
                 "{'name':'element','type':'bigint'}]}]}",
                 422, "validation", "unknown column type 'bigint'");
    assert_int_equal(count_named_versions(CAT, "refused"), 0);
}

static void create_enforces_shape_rules(void **state)
{
    (void)state;
    static const struct {
        const char *column, *needle;
    } cases[] = {
        {"{'name':'l','type':'list'}", "requires exactly one child"},
        {"{'name':'l','type':'list','children':[]}", "requires exactly one child"},
        {"{'name':'l','type':'list','children':[{'name':'element','type':'int'},"
         "{'name':'element','type':'int'}]}",
         "requires exactly one child"},
        {"{'name':'l','type':'list','children':[{'name':'item','type':'int'}]}",
         "must be named 'element'"},
        {"{'name':'m','type':'map','children':[{'name':'key','type':'int','nullable':false}]}",
         "requires exactly two children"},
        {"{'name':'m','type':'map'}", "requires exactly two children"},
        {"{'name':'m','type':'map','children':[{'name':'value','type':'int','nullable':false},"
         "{'name':'key','type':'int'}]}",
         "must be named 'key'"},
        {"{'name':'m','type':'map','children':[{'name':'key','type':'int','nullable':false},"
         "{'name':'val','type':'int'}]}",
         "must be named 'value'"},
        {"{'name':'m','type':'map','children':[{'name':'key','type':'int'},"
         "{'name':'value','type':'int'}]}",
         "nullable=false"},
        {"{'name':'m','type':'map','children':[{'name':'key','type':'int','nullable':true},"
         "{'name':'value','type':'int'}]}",
         "nullable=false"},
        {"{'name':'s','type':'struct','children':[]}", "at least one child"},
        {"{'name':'s','type':'struct'}", "at least one child"},
        {"{'name':'i','type':'int','children':[]}", "a scalar type, and cannot have children"},
        {"{'name':'i','type':'string','children':[{'name':'x','type':'int'}]}",
         "cannot have children"},
        {"{'name':'v','type':'variant','children':[{'name':'x','type':'int'}]}",
         "cannot have children"},
        {"{'name':'l','type':'list','type_params':{},'children':[{'name':'element','type':'int'}]}",
         "nested container, and cannot have type_params"},
        {"{'name':'s','type':'struct','type_params':{'precision':3},'children':[{'name':'x',"
         "'type':'int'}]}",
         "nested container, and cannot have type_params"},
        {"{'name':'m','type':'map','type_params':{},'children':[{'name':'key','type':'int',"
         "'nullable':false},{'name':'value','type':'int'}]}",
         "nested container"},
        {"{'name':'i','type':'int','type_params':{'precision':3}}", "takes no type_params"},
        {"{'name':'i','type':'string','type_params':{}}", "takes no type_params"},
        {"{'name':'i','type':'timestamp','type_params':{'unit':'us'}}", "takes no type_params"},
        {"{'name':'v','type':'variant','type_params':{'shredding':[]}}", "variant column 'v'"},
        {"{'name':'v','type':'variant','type_params':{'shredding':{'type':'text'}}}",
         "variant column 'v' has an invalid type_params.shredding: $ has an unknown type 'text'"},
        /* The same rules deep inside a tree name the full path. */
        {"{'name':'s','type':'struct','children':[{'name':'t','type':'struct','children':["
         "{'name':'l','type':'list'}]}]}",
         "list column 's.t.l'"},
        {"{'name':'s','type':'struct','children':[{'name':'m','type':'map','children':["
         "{'name':'key','type':'string'},{'name':'value','type':'int'}]}]}",
         "map column 's.m'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[1024];
        snprintf(body, sizeof body, "{'name':'shaped','columns':[{'name':'ok','type':'int'},%s]}",
                 cases[i].column);
        create_fails(body, 422, "validation", cases[i].needle);
    }
    assert_int_equal(count_named_versions(CAT, "shaped"), 0);
}

/* A chain of structs `depth` levels deep (a top-level column is depth 1)
 * ending in an int leaf. */
static json_t *struct_chain(int depth)
{
    json_t *c = jpack("{s:s,s:s}", "name", "leaf", "type", "int");
    for (int d = depth - 1; d >= 1; d--) {
        char name[16];
        snprintf(name, sizeof name, "s%d", d);
        c = jpack("{s:s,s:s,s:[o]}", "name", name, "type", "struct", "children", c);
    }
    return c;
}

static void create_depth_limit(void **state)
{
    (void)state;
    struct http_result r;
    api_send(&r, &srv, "POST", jpack("{s:s,s:[o]}", "name", "deep8", "columns", struct_chain(8)),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_status(&r, 201);
    json_t *leaf = colpath(r.json, "s1.s2.s3.s4.s5.s6.s7.leaf");
    assert_int_equal(jint(leaf, "field_id"), 8);
    http_result_free(&r);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld AND end_snapshot IS NULL",
                          (long long)cat_id(CAT), (long long)table_id_of(CAT, NS, "deep8")),
                     8);

    int64_t h0 = head_of(CAT);
    api_send(&r, &srv, "POST", jpack("{s:s,s:[o]}", "name", "deep9", "columns", struct_chain(9)),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "nesting depth 9 exceeds the maximum 8");
    http_result_free(&r);

    /* Lists and maps count as levels too: list(1) > element struct(2) > ...
     * a map value at depth 9. */
    json_t *value = jpack("{s:s,s:s}", "name", "value", "type", "int");
    json_t *map = jpack("{s:s,s:s,s:[{s:s,s:s,s:b},o]}", "name", "m", "type", "map", "children",
                        "name", "key", "type", "string", "nullable", 0, value);
    json_t *c = map; /* depth 8 so far: map is the 8th level */
    for (int d = 7; d >= 2; d--) {
        char name[16];
        snprintf(name, sizeof name, "t%d", d);
        c = jpack("{s:s,s:s,s:[o]}", "name", name, "type", "struct", "children", c);
    }
    c = jpack("{s:s,s:s,s:[o]}", "name", "t1", "type", "struct", "children", c);
    api_send(&r, &srv, "POST", jpack("{s:s,s:[o]}", "name", "deep9", "columns", c),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "nesting depth 9");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);

    /* Far past the limit is still a clean 422... */
    api_send(&r, &srv, "POST", jpack("{s:s,s:[o]}", "name", "deep9", "columns", struct_chain(20)),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "nesting depth");
    http_result_free(&r);
    /* ...until the body nests past the JSON budget (--json-max-depth,
     * 64 levels: two per struct), which refuses it before it is parsed. */
    api_send(&r, &srv, "POST", jpack("{s:s,s:[o]}", "name", "deep9", "columns", struct_chain(40)),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_error(&r, 400, "bad_request");
    expect_detail_contains(&r, "nests deeper than 64 levels");
    http_result_free(&r);
    assert_int_equal(count_named_versions(CAT, "deep9"), 0);
}

/* One int column plus a struct holding `kids` int fields: kids + 2 nodes. */
static json_t *wide_table(const char *name, int kids)
{
    json_t *children = json_array();
    for (int i = 0; i < kids; i++) {
        char n[16];
        snprintf(n, sizeof n, "f%d", i);
        json_array_append_new(children, jpack("{s:s,s:s}", "name", n, "type", "int"));
    }
    return jpack("{s:s,s:[{s:s,s:s},{s:s,s:s,s:o}]}", "name", name, "columns", "name", "id", "type",
                 "long", "name", "wide", "type", "struct", "children", children);
}

static void create_node_limit(void **state)
{
    (void)state;
    struct http_result r;
    api_send(&r, &srv, "POST", wide_table("nodes10000", 9998),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_status(&r, 201);
    json_t *wide = colpath(r.json, "wide");
    assert_int_equal(json_array_size(jget(wide, "children")), 9998);
    json_t *last = json_array_get(jget(wide, "children"), 9997);
    assert_int_equal(jint(last, "field_id"), 10000);
    assert_int_equal(jint(last, "ordinal"), 9997);
    http_result_free(&r);
    int64_t c = cat_id(CAT), tid = table_id_of(CAT, NS, "nodes10000");
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld AND end_snapshot IS NULL",
                          (long long)c, (long long)tid),
                     10000);
    assert_int_equal(sqli("SELECT next_field_id FROM hog_table WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)c, (long long)tid),
                     10001);

    int64_t h0 = head_of(CAT);
    api_send(&r, &srv, "POST", wide_table("nodes10001", 9999),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "too many columns");
    expect_detail_contains(&r, "10000");
    http_result_free(&r);
    /* 10001 top-level columns: the same cap. */
    json_t *cols = json_array();
    for (int i = 0; i < 10001; i++) {
        char n[16];
        snprintf(n, sizeof n, "c%d", i);
        json_array_append_new(cols, jpack("{s:s,s:s}", "name", n, "type", "int"));
    }
    api_send(&r, &srv, "POST", jpack("{s:s,s:o}", "name", "nodes10001", "columns", cols),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "too many columns");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
    assert_int_equal(count_named_versions(CAT, "nodes10001"), 0);
}

static void create_refuses_duplicate_and_reserved_names(void **state)
{
    (void)state;
    static const struct {
        const char *columns, *needle;
    } cases[] = {
        {"[{'name':'a','type':'int'},{'name':'a','type':'long'}]", "'a'"},
        {"[{'name':'a','type':'int'},{'name':'A','type':'long'}]", "'A'"},
        {"[{'name':'Name','type':'int'},{'name':'b','type':'int'},{'name':'nAME','type':'int'}]",
         "nAME"},
        {"[{'name':'s','type':'struct','children':[{'name':'x','type':'int'},"
         "{'name':'X','type':'int'}]}]",
         "duplicate column names in 's'"},
        {"[{'name':'l','type':'list','children':[{'name':'element','type':'struct','children':["
         "{'name':'p','type':'int'},{'name':'p','type':'int'}]}]}]",
         "duplicate column names in 'l.element'"},
        {"[{'name':'_hog_row_id','type':'long'}]",
         "column name '_hog_row_id' uses the reserved prefix '_hog'"},
        {"[{'name':'_hog','type':'long'}]", "reserved prefix '_hog'"},
        {"[{'name':'s','type':'struct','children':[{'name':'_hogx','type':'int'}]}]",
         "column name 's._hogx' uses the reserved prefix"},
        {"[{'name':'l','type':'list','children':[{'name':'element','type':'struct','children':["
         "{'name':'ok','type':'int'},{'name':'_hog_deep','type':'int'}]}]}]",
         "'l.element._hog_deep'"},
        {"[{'name':'m','type':'map','children':[{'name':'key','type':'string','nullable':false},"
         "{'name':'value','type':'struct','children':[{'name':'_hog1','type':'int'}]}]}]",
         "'m.value._hog1'"},
        {"[{'name':'a.b','type':'int'}]", "invalid column name 'a.b'"},
        {"[{'name':'9lives','type':'int'}]", "invalid column name '9lives'"},
        {"[{'name':'','type':'int'}]", "invalid column name"},
        {"[{'name':'s','type':'struct','children':[{'name':'has space','type':'int'}]}]",
         "invalid column name 'has space'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[1024];
        snprintf(body, sizeof body, "{'name':'names','columns':%s}", cases[i].columns);
        create_fails(body, 422, "validation", cases[i].needle);
    }
    /* A name that merely contains _hog later is fine. */
    json_t *t = create_ok(CAT, NS,
                          "{'name':'names','columns':[{'name':'x_hog','type':'int'},"
                          "{'name':'hog','type':'int'},{'name':'_h','type':'int'}]}");
    json_decref(t);
}

static void create_validates_table_name_and_body(void **state)
{
    (void)state;
    char long_name[140];
    memset(long_name, 'n', 129);
    long_name[129] = '\0';
    const char *bad_names[] = {"1abc", "a b", "a.b", "", "t/x", long_name};
    for (size_t i = 0; i < sizeof bad_names / sizeof bad_names[0]; i++) {
        char body[512];
        snprintf(body, sizeof body, "{'name':'%s','columns':[{'name':'a','type':'int'}]}",
                 bad_names[i]);
        create_fails(body, 422, "validation", "invalid table name");
    }
    /* 128 characters is the longest allowed name. */
    long_name[128] = '\0';
    char body[512];
    snprintf(body, sizeof body, "{'name':'%s','columns':[{'name':'a','type':'int'}]}", long_name);
    json_decref(create_ok(CAT, NS, body));

    create_fails("{'name':'nocols','columns':[]}", 422, "validation", "at least one column");
    create_fails("{'name':'nocols'}", 400, "bad_request", "columns");
    create_fails("{'columns':[{'name':'a','type':'int'}]}", 400, "bad_request", "name");
    create_fails("{'name':'nocols','columns':{}}", 400, "bad_request", NULL);
    create_fails("{'name':'unk','columns':[{'name':'a','type':'int','nulable':true}]}", 400,
                 "bad_request", "unknown field");
    create_fails("{'name':'unk','columns':[{'name':'s','type':'struct','children':["
                 "{'name':'a','type':'int','default':1}]}]}",
                 400, "bad_request", "unknown field");
    create_fails("{'name':'unk','columns':[{'name':'a','type':'int'}],'partitions':[]}", 400,
                 "bad_request", "unknown field 'partitions'");
    create_fails("{'name':'unk','columns':[{'name':'a'}]}", 400, "bad_request", "type");
    create_fails("{'name':'unk','columns':[{'name':'a','type':'int','nullable':'yes'}]}", 400,
                 "bad_request", NULL);
    assert_int_equal(count_named_versions(CAT, "unk"), 0);
    assert_int_equal(count_named_versions(CAT, "nocols"), 0);

    /* Column comments are limited like table comments. */
    char *huge = malloc(16400 + 200);
    assert_non_null(huge);
    int n = snprintf(huge, 200,
                     "{'name':'longcomment','columns':[{'name':'a','type':'int',"
                     "'comment':'");
    memset(huge + n, 'c', 16385);
    strcpy(huge + n + 16385, "'}]}");
    create_fails(huge, 422, "validation", "16384");
    huge[n + 16384] = '\'';
    strcpy(huge + n + 16385, "}]}");
    json_t *t = create_ok(CAT, NS, huge);
    assert_int_equal(strlen(jstr(json_array_get(jget(t, "columns"), 0), "comment")), 16384);
    json_decref(t);
    free(huge);
}

static void tables_are_scoped_by_namespace(void **state)
{
    (void)state;
    make_namespace(&srv, CAT, "scope1");
    make_namespace(&srv, CAT, "scope2");
    json_t *a = create_ok(CAT, "scope1", "{'name':'same','columns':[{'name':'a','type':'int'}]}");
    json_t *b = create_ok(CAT, "scope2", "{'name':'same','columns':[{'name':'b','type':'long'}]}");
    assert_string_not_equal(jstr(a, "table_uuid"), jstr(b, "table_uuid"));
    assert_string_equal(jstr(b, "namespace"), "scope2");
    json_t *g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/scope1/tables/same");
    assert_string_equal(jstr(g, "table_uuid"), jstr(a, "table_uuid"));
    assert_string_equal(jstr(colpath(g, "a"), "type"), "int");
    json_decref(g);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/scope2/tables/same");
    assert_string_equal(jstr(g, "table_uuid"), jstr(b, "table_uuid"));
    assert_string_equal(jstr(g, "namespace"), "scope2");
    json_decref(g);
    json_t *l = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/scope1/tables");
    assert_int_equal(json_array_size(l), 1);
    assert_string_equal(jstr(json_array_get(l, 0), "table_uuid"), jstr(a, "table_uuid"));
    json_decref(l);
    /* A name taken only in another namespace is free here. */
    json_decref(create_ok(CAT, "scope2", "{'name':'taken','columns':[{'name':'x','type':'int'}]}"));
    json_t *t =
        alter_ok(CAT, "scope1", "same", "{'ops':[{'op':'rename_table','new_name':'taken'}]}");
    assert_string_equal(jstr(t, "name"), "taken");
    assert_string_equal(jstr(t, "namespace"), "scope1");
    json_decref(t);
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/scope1/tables/taken");
    expect_status(&r, 200);
    http_result_free(&r);
    json_decref(api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/scope2/tables/taken"));
    json_decref(api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/scope2/tables/same"));
    l = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/scope1/tables");
    assert_int_equal(json_array_size(l), 0);
    json_decref(l);
    json_decref(a);
    json_decref(b);
}

static void create_duplicate_and_missing_parents(void **state)
{
    (void)state;
    json_decref(create_ok(CAT, NS, "{'name':'dup','columns':[{'name':'a','type':'int'}]}"));
    int64_t h0 = head_of(CAT);
    struct http_result r;
    post_table(&r, CAT, NS, "{'name':'dup','columns':[{'name':'b','type':'long'}]}");
    expect_error(&r, 409, "already_exists");
    expect_detail_contains(&r, "table 'dup' already exists");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
    assert_int_equal(count_named_versions(CAT, "dup"), 1);

    post_table(&r, CAT, "nope", "{'name':'t','columns':[{'name':'a','type':'int'}]}");
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "namespace 'nope'");
    http_result_free(&r);
    post_table(&r, "nocat", NS, "{'name':'t','columns':[{'name':'a','type':'int'}]}");
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "catalog 'nocat'");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
}

static void create_with_metadata_is_atomic(void **state)
{
    (void)state;
    int64_t h0 = head_of(CAT);
    json_t *t = create_ok(
        CAT, NS,
        "{'name':'opts','columns':[{'name':'id','type':'long'},{'name':'ts','type':'timestamp'},"
        "{'name':'s','type':'string'}],"
        "'comment':'a table','properties':{'owner':'team-a','retention.days':'7'},"
        "'partition_fields':[{'source_field_id':2,'transform':'day'},"
        "{'source_field_id':1,'transform':'bucket','transform_param':16}],"
        "'sort_fields':[{'source_field_id':3},{'source_field_id':1,'direction':'desc'}]}");
    int64_t snap = jint(t, "snapshot_id");
    assert_int_equal(snap, h0 + 1);
    assert_string_equal(jstr(t, "comment"), "a table");
    json_t *props = jget(t, "properties");
    assert_int_equal(json_object_size(props), 2);
    assert_string_equal(jstr(props, "owner"), "team-a");
    assert_string_equal(jstr(props, "retention.days"), "7");
    json_t *want_spec = jparse("{\"spec_id\":1,\"fields\":[{\"source_field_id\":2,\"transform\":"
                               "\"day\"},{\"source_field_id\":1,\"transform\":\"bucket\","
                               "\"transform_param\":16}]}");
    json_t *want_sort = jparse("{\"sort_id\":1,\"fields\":[{\"source_field_id\":3,\"direction\":"
                               "\"asc\",\"null_order\":\"nulls_first\"},{\"source_field_id\":1,"
                               "\"direction\":\"desc\",\"null_order\":\"nulls_last\"}]}");
    assert_true(json_equal(jget(t, "partition_spec"), want_spec));
    assert_true(json_equal(jget(t, "sort_spec"), want_sort));

    int64_t c = cat_id(CAT), tid = table_id_of(CAT, NS, "opts");
    assert_int_equal(sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld AND"
                          " table_id = %lld AND begin_snapshot = %lld AND end_snapshot IS NULL AND"
                          " comment = 'a table' AND properties ="
                          " '{\"owner\":\"team-a\",\"retention.days\":\"7\"}'::jsonb",
                          (long long)c, (long long)tid, (long long)snap),
                     1);
    expect_sql("1@<null>:0:2:day:-,1@<null>:1:1:bucket:16",
               "SELECT string_agg(s.spec_id || '@' || coalesce(s.end_snapshot::text, '<null>') ||"
               " ':' || f.key_index || ':' || f.source_field_id || ':' || f.transform || ':' ||"
               " coalesce(f.transform_param::text, '-'), ',' ORDER BY f.key_index)"
               " FROM hog_partition_spec s JOIN hog_partition_field f USING (catalog_id, table_id,"
               " spec_id) WHERE s.catalog_id = %lld AND s.table_id = %lld AND s.begin_snapshot ="
               " %lld",
               (long long)c, (long long)tid, (long long)snap);
    expect_sql("1:0:3:asc:nulls_first,1:1:1:desc:nulls_last",
               "SELECT string_agg(s.sort_id || ':' || f.key_index || ':' || f.source_field_id ||"
               " ':' || f.direction || ':' || f.null_order, ',' ORDER BY f.key_index)"
               " FROM hog_sort_spec s JOIN hog_sort_field f USING (catalog_id, table_id, sort_id)"
               " WHERE s.catalog_id = %lld AND s.table_id = %lld AND s.begin_snapshot = %lld"
               " AND s.end_snapshot IS NULL",
               (long long)c, (long long)tid, (long long)snap);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot_change WHERE catalog_id = %lld AND"
                          " snapshot_id = %lld",
                          (long long)c, (long long)snap),
                     1);
    /* A GET at head reads back the same table. */
    json_t *g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/opts");
    json_object_del(t, "snapshot_id");
    if (!json_equal(g, t)) {
        char *a = json_dumps(t, JSON_COMPACT), *b = json_dumps(g, JSON_COMPACT);
        fail_msg("create response and GET differ:\n  create %s\n  get    %s", a, b);
    }
    json_decref(g);
    json_decref(t);
    json_decref(want_spec);
    json_decref(want_sort);

    /* Any invalid part refuses the whole create: no table, no snapshot. */
    const char *cols = "'columns':[{'name':'id','type':'long'},{'name':'f','type':'float'},"
                       "{'name':'st','type':'struct','children':[{'name':'x','type':'int'}]}]";
    static const struct {
        const char *extra, *needle;
    } bad[] = {
        {"'partition_fields':[{'source_field_id':99,'transform':'identity'}]",
         "partition source field_id 99 is not a live column"},
        {"'partition_fields':[{'source_field_id':2,'transform':'bucket','transform_param':4}]",
         "bucket transform cannot be applied"},
        {"'partition_fields':[{'source_field_id':3,'transform':'identity'}]", "nested container"},
        {"'sort_fields':[{'source_field_id':1},{'source_field_id':1,'direction':'desc'}]",
         "duplicate sort source field_id 1"},
        {"'sort_fields':[{'source_field_id':1,'direction':'up'}]", "unknown sort direction"},
        {"'properties':{'location':'s3://x'}", "reserved custom property key 'location'"},
        {"'properties':{'hoglake.x':'1'}", "'hoglake.x'"},
        {"'comment':'ok','partition_fields':[{'source_field_id':1,'transform':'identity'}],"
         "'sort_fields':[{'source_field_id':5}]",
         "sort source field_id 5 is not a live column"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char body[1024];
        snprintf(body, sizeof body, "{'name':'opts_bad',%s,%s}", cols, bad[i].extra);
        create_fails(body, 422, "validation", bad[i].needle);
    }
    char *huge = malloc(16400 + 200);
    assert_non_null(huge);
    int n = snprintf(huge, 200,
                     "{'name':'opts_bad','columns':[{'name':'a','type':'int'}],"
                     "'comment':'");
    memset(huge + n, 'c', 16385);
    strcpy(huge + n + 16385, "'}");
    create_fails(huge, 422, "validation", "16384");
    free(huge);
    create_fails("{'name':'opts_bad','columns':[{'name':'a','type':'int'}],'properties':null}", 400,
                 "bad_request", "properties");
    assert_int_equal(count_named_versions(CAT, "opts_bad"), 0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table t WHERE catalog_id = %lld AND NOT EXISTS"
                          " (SELECT 1 FROM hog_table_version v WHERE v.catalog_id = t.catalog_id"
                          " AND v.table_id = t.table_id)",
                          (long long)c),
                     0);

    /* A null comment and empty lists create a plain table. */
    t = create_ok(CAT, NS,
                  "{'name':'opts_plain','columns':[{'name':'a','type':'int'}],'comment':null,"
                  "'partition_fields':[],'sort_fields':[],'properties':{}}");
    expect_absent(t, "comment");
    expect_absent(t, "partition_spec");
    expect_absent(t, "sort_spec");
    assert_int_equal(json_object_size(jget(t, "properties")), 0);
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_partition_spec WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)c, (long long)table_id_of(CAT, NS, "opts_plain")),
                     0);
}

/* ---- get ---- */

static void get_time_travel(void **state)
{
    (void)state;
    json_t *t = create_ok(CAT, NS, "{'name':'tt','columns':[{'name':'a','type':'int'}]}");
    int64_t s1 = jint(t, "snapshot_id");
    json_decref(t);
    json_decref(alter_ok(CAT, NS, "tt",
                         "{'ops':[{'op':'add_column','column':{'name':'b','type':'string'}}]}"));
    int64_t s2 = head_of(CAT);
    assert_true(s2 > s1);

    json_t *g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tt?snapshot=%lld",
                             (long long)s1);
    assert_int_equal(json_array_size(jget(g, "columns")), 1);
    assert_int_equal(jint(g, "read_snapshot_id"), s1);
    expect_absent(g, "snapshot_id");
    expect_absent(g, "totals_snapshot_id");
    assert_int_equal(jint(g, "record_count"), 0);
    json_decref(g);

    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tt");
    assert_int_equal(json_array_size(jget(g, "columns")), 2);
    assert_string_equal(jstr(colpath(g, "b"), "type"), "string");
    assert_int_equal(jint(g, "read_snapshot_id"), s2);
    expect_absent(g, "snapshot_id");
    json_decref(g);

    char ts[64], path[256];
    snapshot_time_text(CAT, s1, "Z", ts, sizeof ts);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tt?at_timestamp=%s", ts);
    assert_int_equal(jint(g, "read_snapshot_id"), s1);
    assert_int_equal(json_array_size(jget(g, "columns")), 1);
    expect_absent(g, "totals_snapshot_id");
    json_decref(g);
    snapshot_time_text(CAT, s2, "%2B00:00", ts, sizeof ts);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tt?at_timestamp=%s", ts);
    assert_int_equal(jint(g, "read_snapshot_id"), s2);
    assert_int_equal(json_array_size(jget(g, "columns")), 2);
    json_decref(g);
    /* Offsets other than UTC resolve to the same instant. */
    snapshot_time_text_shifted(CAT, s1, -5 * 60, ts, sizeof ts);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tt?at_timestamp=%s", ts);
    assert_int_equal(jint(g, "read_snapshot_id"), s1);
    json_decref(g);
    snapshot_time_text_shifted(CAT, s2, 5 * 60 + 30, ts, sizeof ts);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tt?at_timestamp=%s", ts);
    assert_int_equal(jint(g, "read_snapshot_id"), s2);
    json_decref(g);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS
                           "/tables/tt?at_timestamp=2999-01-01T00:00:00Z");
    assert_int_equal(jint(g, "read_snapshot_id"), head_of(CAT));
    json_decref(g);

    struct http_result r;
    api_get(&r, &srv,
            "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tt?at_timestamp=2020-01-01T00:00:00");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    snprintf(path, sizeof path,
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tt?snapshot=%lld&at_timestamp=%s",
             (long long)s1, "2999-01-01T00:00:00Z");
    api_get(&r, &srv, "%s", path);
    expect_error(&r, 422, "validation");
    expect_detail_contains(&r, "mutually exclusive");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tt?snapshot=%lld",
            (long long)head_of(CAT) + 100);
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tt?snapshot=-1");
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    static const char *const malformed[] = {
        "snapshot=1x", "snapshot=",  "snapshot=99999999999999999999", "snapshot=1.0",
        "totals=",     "totals=yes", "at_timestamp=yesterday",        "snapshotz=1",
    };
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tt?%s", malformed[i]);
        expect_error(&r, 400, "bad_request");
        http_result_free(&r);
    }
}

static void expect_totals(const json_t *t, int64_t records, int64_t files, int64_t bytes)
{
    if (jint(t, "record_count") != records || jint(t, "file_count") != files ||
        jint(t, "file_size_bytes") != bytes) {
        char *d = json_dumps(t, JSON_COMPACT);
        fail_msg("expected totals %lld/%lld/%lld in %s", (long long)records, (long long)files,
                 (long long)bytes, d ? d : "?");
    }
}

static void get_totals_come_from_visible_files(void **state)
{
    (void)state;
    json_t *t = create_ok(CAT, NS, "{'name':'tot','columns':[{'name':'a','type':'int'}]}");
    int64_t s1 = jint(t, "snapshot_id");
    json_decref(t);
    json_decref(create_ok(CAT, NS, "{'name':'tot_other','columns':[{'name':'a','type':'int'}]}"));
    int64_t s2 = bump_snapshot(CAT);
    int64_t s3 = bump_snapshot(CAT);
    int64_t tid = table_id_of(CAT, NS, "tot"), other = table_id_of(CAT, NS, "tot_other");
    insert_file(CAT, tid, s1, -1, 10, 1000); /* live throughout */
    insert_file(CAT, tid, s1, s3, 5, 500);   /* ended at s3 */
    insert_file(CAT, tid, s2, -1, 7, 70);    /* from s2 */
    insert_file(CAT, other, s1, -1, 1000, 99999);

    json_t *g = api_get_json(
        &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tot?snapshot=%lld", (long long)s1);
    expect_totals(g, 15, 2, 1500);
    json_decref(g);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tot?snapshot=%lld",
                     (long long)s2);
    expect_totals(g, 22, 3, 1570);
    json_decref(g);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tot?snapshot=%lld",
                     (long long)s3);
    expect_totals(g, 17, 2, 1070);
    json_decref(g);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tot");
    expect_totals(g, 17, 2, 1070);
    assert_int_equal(jint(g, "read_snapshot_id"), head_of(CAT));
    json_decref(g);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tot?totals=true");
    expect_totals(g, 17, 2, 1070);
    json_decref(g);

    /* totals=false: the totals are absent, the rest is there. */
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tot?totals=false");
    expect_absent(g, "record_count");
    expect_absent(g, "file_count");
    expect_absent(g, "file_size_bytes");
    expect_absent(g, "totals_snapshot_id");
    expect_absent(g, "totals_as_of");
    assert_int_equal(json_array_size(jget(g, "columns")), 1);
    assert_int_equal(jint(g, "read_snapshot_id"), head_of(CAT));
    json_decref(g);
    g = api_get_json(&srv,
                     "/v1/catalogs/" CAT "/namespaces/" NS "/tables/tot?snapshot=%lld&totals=false",
                     (long long)s2);
    expect_absent(g, "record_count");
    expect_absent(g, "file_count");
    expect_absent(g, "file_size_bytes");
    assert_int_equal(jint(g, "read_snapshot_id"), s2);
    json_decref(g);

    /* The listing agrees at each snapshot. */
    int64_t snaps[3] = {s1, s2, s3};
    int64_t want[3][3] = {{15, 2, 1500}, {22, 3, 1570}, {17, 2, 1070}};
    for (int i = 0; i < 3; i++) {
        json_t *l =
            api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables?snapshot=%lld",
                         (long long)snaps[i]);
        size_t k;
        json_t *e;
        bool seen = false;
        json_array_foreach (l, k, e) {
            if (strcmp(jstr(e, "name"), "tot") == 0) {
                expect_totals(e, want[i][0], want[i][1], want[i][2]);
                seen = true;
            }
        }
        assert_true(seen);
        json_decref(l);
    }
}

static void get_not_found_and_expired(void **state)
{
    (void)state;
    int64_t before = head_of(CAT);
    json_t *t = create_ok(CAT, NS, "{'name':'late','columns':[{'name':'a','type':'int'}]}");
    json_decref(t);
    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/late?snapshot=%lld",
            (long long)before);
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "late");
    expect_detail_contains(&r, "at snapshot");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/missing");
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "table 'ns.missing'");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/nope/tables/late");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/nocat/namespaces/" NS "/tables/late");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);

    /* A dedicated catalog whose floor is moved by hand. */
    make_catalog(&srv, "floorcat");
    make_namespace(&srv, "floorcat", "fns"); /* 1 */
    json_decref(create_ok("floorcat", "fns",
                          "{'name':'ft','columns':[{'name':'a','type':'int'}]}")); /* 2 */
    json_decref(alter_ok("floorcat", "fns", "ft",
                         "{'ops':[{'op':'add_column','column':{'name':'b','type':'int'}}]}"));
    json_decref(alter_ok("floorcat", "fns", "ft",
                         "{'ops':[{'op':'add_column','column':{'name':'c','type':'int'}}]}"));
    assert_int_equal(head_of("floorcat"), 4);
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = 3 WHERE name = 'floorcat'");
    api_get(&r, &srv, "/v1/catalogs/floorcat/namespaces/fns/tables/ft?snapshot=2");
    expect_error(&r, 410, "expired");
    expect_detail_contains(&r, "floor");
    expect_detail_contains(&r, "3");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/floorcat/namespaces/fns/tables/ft?snapshot=0");
    expect_error(&r, 410, "expired");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/floorcat/namespaces/fns/tables?snapshot=2");
    expect_error(&r, 410, "expired");
    http_result_free(&r);
    char ts[64];
    snapshot_time_text("floorcat", 2, "Z", ts, sizeof ts);
    api_get(&r, &srv, "/v1/catalogs/floorcat/namespaces/fns/tables/ft?at_timestamp=%s", ts);
    expect_error(&r, 410, "expired");
    http_result_free(&r);
    json_t *g = api_get_json(&srv, "/v1/catalogs/floorcat/namespaces/fns/tables/ft?snapshot=3");
    assert_int_equal(json_array_size(jget(g, "columns")), 2);
    json_decref(g);
    g = api_get_json(&srv, "/v1/catalogs/floorcat/namespaces/fns/tables/ft");
    assert_int_equal(json_array_size(jget(g, "columns")), 3);
    json_decref(g);
}

/* ---- list ---- */

static json_t *list_at(const char *ns, int64_t snap)
{
    if (snap < 0)
        return api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/%s/tables", ns);
    return api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/%s/tables?snapshot=%lld", ns,
                        (long long)snap);
}

static void expect_names(const json_t *list, const char *csv)
{
    char got[1024] = "";
    size_t i;
    json_t *e;
    json_array_foreach (list, i, e) {
        strcat(got, i ? "," : "");
        strcat(got, jstr(e, "name"));
    }
    if (strcmp(got, csv) != 0)
        fail_msg("expected tables [%s], got [%s]", csv, got);
}

/* A comment of n pseudo-random letters (incompressible: a B-tree entry
 * cannot hold one of a few kB), from seed. */
static void random_comment(char *out, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        out[i] = (char)('a' + (seed >> 16) % 26);
    }
    out[n] = '\0';
}

/* The namespace's listing at the head (the statement for the head) and
 * the head it was read at, kept to compare with the past's later. */
struct head_listing {
    int64_t snapshot;
    json_t *tables;
};

static void keep_head_listing(struct head_listing *h, const char *ns)
{
    h->snapshot = head_of(CAT);
    h->tables = list_at(ns, -1);
}

/* Comments of every length up to the limit are listed whole at the head
 * and in the past (no index may carry the longest: a B-tree entry holds
 * about 2.7 kB, and a covering listing index failed the DDL with a 500),
 * and each head's listing (read by the statement for the head) equals
 * the listing of its snapshot read once it is past (the statement for
 * any snapshot). */
static void list_tables_long_comments(void **state)
{
    (void)state;
    make_namespace(&srv, CAT, "cmt");
    static const size_t lengths[] = {1, 1024, 1025, 4000, 16384};
    enum { N = sizeof lengths / sizeof lengths[0] };
    static char comments[N][16385];
    char body[16600];
    struct head_listing heads[N + 3];
    size_t nheads = 0;
    for (size_t k = 0; k < N; k++) {
        random_comment(comments[k], lengths[k], (uint32_t)k + 7);
        snprintf(body, sizeof body,
                 "{'name':'t%zu','comment':'%.16384s','columns':[{'name':'a','type':'int'}]}", k,
                 comments[k]);
        json_decref(create_ok(CAT, "cmt", body));
        keep_head_listing(&heads[nheads++], "cmt");
    }
    json_t *l = heads[N - 1].tables;
    assert_int_equal(json_array_size(l), N);
    for (size_t k = 0; k < N; k++)
        assert_string_equal(jstr(json_array_get(l, k), "comment"), comments[k]);
    /* Swap the two longest tables' comments for short ones: the past keeps
     * the long ones. */
    json_decref(alter_ok(CAT, "cmt", "t3", "{'ops':[{'op':'set_table_comment','comment':'x'}]}"));
    keep_head_listing(&heads[nheads++], "cmt");
    json_decref(alter_ok(CAT, "cmt", "t4", "{'ops':[{'op':'set_table_comment','comment':null}]}"));
    keep_head_listing(&heads[nheads++], "cmt");
    l = heads[nheads - 1].tables;
    for (size_t k = 0; k < 3; k++)
        assert_string_equal(jstr(json_array_get(l, k), "comment"), comments[k]);
    assert_string_equal(jstr(json_array_get(l, 3), "comment"), "x");
    expect_absent(json_array_get(l, 4), "comment");
    /* And back to the longest. */
    snprintf(body, sizeof body, "{'ops':[{'op':'set_table_comment','comment':'%s'}]}",
             comments[N - 1]);
    json_decref(alter_ok(CAT, "cmt", "t3", body));
    keep_head_listing(&heads[nheads++], "cmt");
    assert_string_equal(jstr(json_array_get(heads[nheads - 1].tables, 3), "comment"),
                        comments[N - 1]);
    for (size_t i = 0; i < nheads; i++) {
        json_t *past = list_at("cmt", heads[i].snapshot);
        if (!json_equal(past, heads[i].tables))
            fail_msg("the listing at snapshot %lld differs from the head's it was",
                     (long long)heads[i].snapshot);
        json_decref(past);
        json_decref(heads[i].tables);
    }
}

static void list_tables(void **state)
{
    (void)state;
    make_namespace(&srv, CAT, "lst");
    int64_t s0 = head_of(CAT);
    json_t *b = create_ok(CAT, "lst", "{'name':'bravo','columns':[{'name':'a','type':'int'}]}");
    int64_t sb = jint(b, "snapshot_id");
    json_t *a = create_ok(CAT, "lst", "{'name':'alpha','columns':[{'name':'a','type':'int'}]}");
    int64_t sa = jint(a, "snapshot_id");
    json_t *c = create_ok(CAT, "lst", "{'name':'charlie','columns':[{'name':'a','type':'int'}]}");
    int64_t sc = jint(c, "snapshot_id");
    json_decref(
        alter_ok(CAT, "lst", "alpha", "{'ops':[{'op':'set_table_comment','comment':'first'}]}"));
    json_decref(alter_ok(CAT, "lst", "alpha",
                         "{'ops':[{'op':'add_column','column':{'name':'b','type':'int'}}]}"));
    int64_t cid = cat_id(CAT), bid = table_id_of(CAT, "lst", "bravo");
    /* A data commit on bravo at charlie's snapshot: one more snapshot for
     * bravo, and its file counts from there on. */
    sql_exec("INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)"
             " VALUES (%lld, %lld, 'table_inserted_into', %lld)",
             (long long)cid, (long long)sc, (long long)bid);
    insert_file(CAT, bid, sc, -1, 3, 30);
    /* A second table-scoped row in a snapshot already counted adds nothing,
     * and rows of other kinds whose object id happens to equal the table's
     * id are not the table's. */
    sql_exec("INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)"
             " VALUES (%lld, %lld, 'table_inserted_into', %lld),"
             " (%lld, %lld, 'view_created', %lld), (%lld, %lld, 'namespace_dropped', %lld)",
             (long long)cid, (long long)sa, (long long)table_id_of(CAT, "lst", "alpha"),
             (long long)cid, (long long)s0, (long long)bid, (long long)cid, (long long)s0,
             (long long)bid);

    json_t *l = list_at("lst", -1);
    expect_names(l, "alpha,bravo,charlie");
    json_t *ea = json_array_get(l, 0), *eb = json_array_get(l, 1), *ec = json_array_get(l, 2);
    assert_string_equal(jstr(ea, "table_uuid"), jstr(a, "table_uuid"));
    assert_string_equal(jstr(eb, "table_uuid"), jstr(b, "table_uuid"));
    assert_string_equal(jstr(ec, "table_uuid"), jstr(c, "table_uuid"));
    assert_string_equal(jstr(ea, "comment"), "first");
    assert_int_equal(jint(ea, "snapshot_count"), 3);
    expect_totals(ea, 0, 0, 0);
    assert_int_equal(jint(eb, "snapshot_count"), 2);
    expect_totals(eb, 3, 1, 30);
    expect_absent(eb, "comment");
    assert_int_equal(json_object_size(eb), 6); /* name, uuid, 3 totals, snapshot_count */
    assert_int_equal(jint(ec, "snapshot_count"), 1);
    json_decref(l);

    /* Time travel: as the namespace was after alpha's creation. */
    l = list_at("lst", sa);
    expect_names(l, "alpha,bravo");
    expect_absent(json_array_get(l, 0), "comment");
    assert_int_equal(jint(json_array_get(l, 0), "snapshot_count"), 1);
    assert_int_equal(jint(json_array_get(l, 1), "snapshot_count"), 1);
    expect_totals(json_array_get(l, 1), 0, 0, 0);
    json_decref(l);
    l = list_at("lst", sb);
    expect_names(l, "bravo");
    json_decref(l);
    l = list_at("lst", s0);
    assert_int_equal(json_array_size(l), 0);
    json_decref(l);

    /* A dropped table leaves the listing at head but not the past. */
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/lst/tables/charlie");
    expect_status(&r, 200);
    http_result_free(&r);
    l = list_at("lst", -1);
    expect_names(l, "alpha,bravo");
    assert_int_equal(jint(json_array_get(l, 1), "snapshot_count"), 2);
    json_decref(l);
    l = list_at("lst", sc);
    expect_names(l, "alpha,bravo,charlie");
    json_decref(l);

    api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/lst/tables?snapshot=%lld",
            (long long)s0 - 1);
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/nope/tables");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_get(&r, &srv, "/v1/catalogs/nocat/namespaces/lst/tables");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    json_decref(a);
    json_decref(b);
    json_decref(c);
}

/* A listing in the past merges, in name order, the tables still live with
 * the versions that have ended since (renamed and dropped tables), each with
 * its totals at that snapshot; at the head only the live names remain. */
static void list_tables_merges_ended_versions_by_name(void **state)
{
    (void)state;
    make_namespace(&srv, CAT, "mrg");
    const char *names[] = {"a", "c", "e", "g"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char body[128];
        snprintf(body, sizeof body, "{'name':'%s','columns':[{'name':'x','type':'int'}]}",
                 names[i]);
        json_decref(create_ok(CAT, "mrg", body));
    }
    int64_t cid = cat_id(CAT), gid = table_id_of(CAT, "mrg", "g");
    int64_t before = head_of(CAT);
    json_t *renamed = alter_ok(CAT, "mrg", "c", "{'ops':[{'op':'rename_table','new_name':'b'}]}");
    int64_t later = jint(renamed, "snapshot_id");
    json_decref(renamed);
    /* g's data arrives after `before`: its totals there are computed. */
    sql_exec("INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id)"
             " VALUES (%lld, %lld, 'table_inserted_into', %lld)",
             (long long)cid, (long long)later, (long long)gid);
    insert_file(CAT, gid, later, -1, 5, 50);
    json_decref(alter_ok(CAT, "mrg", "e", "{'ops':[{'op':'set_table_comment','comment':'x'}]}"));
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/mrg/tables/a");
    expect_status(&r, 200);
    http_result_free(&r);

    json_t *l = list_at("mrg", before);
    expect_names(l, "a,c,e,g");
    expect_absent(json_array_get(l, 2), "comment");
    expect_totals(json_array_get(l, 3), 0, 0, 0);
    assert_int_equal(jint(json_array_get(l, 3), "snapshot_count"), 1);
    json_decref(l);
    l = list_at("mrg", -1);
    expect_names(l, "b,e,g");
    assert_string_equal(jstr(json_array_get(l, 1), "comment"), "x");
    expect_totals(json_array_get(l, 2), 5, 1, 50);
    assert_int_equal(jint(json_array_get(l, 2), "snapshot_count"), 2);
    json_decref(l);
}

/* ---- drop ---- */

static void drop_table_ends_rows_and_frees_the_name(void **state)
{
    (void)state;
    json_t *t = create_ok(CAT, NS,
                          "{'name':'dt','columns':[{'name':'id','type':'long'},"
                          "{'name':'s','type':'struct','children':[{'name':'x','type':'int'}]}],"
                          "'partition_fields':[{'source_field_id':1,'transform':'identity'}],"
                          "'sort_fields':[{'source_field_id':3}]}");
    int64_t created = jint(t, "snapshot_id");
    char old_uuid[64];
    snprintf(old_uuid, sizeof old_uuid, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    int64_t c = cat_id(CAT), tid = table_id_of(CAT, NS, "dt");
    insert_file(CAT, tid, created, -1, 42, 4200);

    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/dt");
    expect_status(&r, 200);
    int64_t dropped = jint(r.json, "snapshot_id");
    assert_int_equal(json_object_size(r.json), 2);
    assert_int_equal(dropped, head_of(CAT));
    assert_int_equal(jint(r.json, "schema_version"), schema_version_of(CAT));
    http_result_free(&r);

    expect_sql("table_dropped",
               "SELECT string_agg(kind || CASE WHEN object_id = %lld THEN '' ELSE '?' END, ',')"
               " FROM hog_snapshot_change WHERE catalog_id = %lld AND snapshot_id = %lld",
               (long long)tid, (long long)c, (long long)dropped);
    assert_int_equal(sqli("SELECT dropped_snapshot FROM hog_table WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)c, (long long)tid),
                     dropped);
    static const char *const versioned[] = {"hog_table_version", "hog_column", "hog_partition_spec",
                                            "hog_sort_spec"};
    static const int rows[] = {1, 3, 1, 1};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(sqli("SELECT count(*) FROM %s WHERE catalog_id = %lld AND table_id ="
                              " %lld AND end_snapshot IS NULL",
                              versioned[i], (long long)c, (long long)tid),
                         0);
        assert_int_equal(sqli("SELECT count(*) FROM %s WHERE catalog_id = %lld AND table_id ="
                              " %lld AND end_snapshot = %lld",
                              versioned[i], (long long)c, (long long)tid, (long long)dropped),
                         rows[i]);
    }
    /* File rows are left for retirement. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NULL",
                          (long long)c, (long long)tid),
                     1);

    api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/dt");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/dt");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);

    /* The name is free again; the new incarnation has a new identity. */
    t = create_ok(CAT, NS, "{'name':'dt','columns':[{'name':'other','type':'string'}]}");
    assert_string_not_equal(jstr(t, "table_uuid"), old_uuid);
    assert_int_equal(jint(colpath(t, "other"), "field_id"), 1);
    expect_totals(t, 0, 0, 0);
    char new_uuid[64];
    snprintf(new_uuid, sizeof new_uuid, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    assert_true(table_id_of(CAT, NS, "dt") != tid);

    /* The old incarnation is still readable before the drop. */
    json_t *g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/dt?snapshot=%lld",
                             (long long)dropped - 1);
    assert_string_equal(jstr(g, "table_uuid"), old_uuid);
    assert_int_equal(json_array_size(jget(g, "columns")), 2);
    assert_int_equal(jint(jget(g, "partition_spec"), "spec_id"), 1);
    assert_int_equal(jint(jget(g, "sort_spec"), "sort_id"), 1);
    expect_totals(g, 42, 1, 4200);
    json_decref(g);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/dt");
    assert_string_equal(jstr(g, "table_uuid"), new_uuid);
    expect_totals(g, 0, 0, 0);
    expect_absent(g, "partition_spec");
    json_decref(g);
    api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/dt?snapshot=%lld",
            (long long)dropped);
    expect_error(&r, 404, "not_found");
    expect_detail_contains(&r, "at snapshot");
    http_result_free(&r);
    json_t *l = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    size_t i, seen = 0;
    json_t *e;
    json_array_foreach (l, i, e) {
        if (strcmp(jstr(e, "name"), "dt") == 0) {
            seen++;
            assert_string_equal(jstr(e, "table_uuid"), new_uuid);
        }
    }
    assert_int_equal(seen, 1);
    json_decref(l);
}

static void drop_table_guards(void **state)
{
    (void)state;
    json_t *t = create_ok(CAT, NS, "{'name':'guarded','columns':[{'name':'a','type':'int'}]}");
    char old_uuid[64];
    snprintf(old_uuid, sizeof old_uuid, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    struct http_result r;
    api_delete(&r, &srv,
               "/v1/catalogs/" CAT "/namespaces/" NS "/tables/guarded?expected_table_uuid=%s",
               old_uuid);
    expect_status(&r, 200);
    http_result_free(&r);
    t = create_ok(CAT, NS, "{'name':'guarded','columns':[{'name':'a','type':'int'}]}");
    char new_uuid[64];
    snprintf(new_uuid, sizeof new_uuid, "%s", jstr(t, "table_uuid"));
    json_decref(t);

    /* A writer still holding the old incarnation is refused. */
    int64_t h0 = head_of(CAT);
    api_delete(&r, &srv,
               "/v1/catalogs/" CAT "/namespaces/" NS "/tables/guarded?expected_table_uuid=%s",
               old_uuid);
    expect_error(&r, 409, "table_recreated");
    json_t *tables = jget(r.json, "tables");
    assert_int_equal(json_array_size(tables), 1);
    assert_string_equal(json_string_value(json_array_get(tables, 0)), NS ".guarded");
    assert_string_equal(jstr(r.json, "retry"), "re-prepare");
    expect_absent(r.json, "read_snapshot");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
    json_decref(api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/guarded"));

    static const char *const malformed[] = {"not-a-uuid", "12345678-1234-1234-1234-12345678901",
                                            "12345678123412341234123456789012z", ""};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        api_delete(&r, &srv,
                   "/v1/catalogs/" CAT "/namespaces/" NS "/tables/guarded?expected_table_uuid=%s",
                   malformed[i]);
        expect_error(&r, 400, "bad_request");
        http_result_free(&r);
    }
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/guarded?bogus=1");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);

    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/missing");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/nope/tables/guarded");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_delete(&r, &srv, "/v1/catalogs/nocat/namespaces/" NS "/tables/guarded");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);

    /* The UUID comparison ignores case. */
    char upper[64];
    snprintf(upper, sizeof upper, "%s", new_uuid);
    for (char *p = upper; *p; p++)
        if (*p >= 'a' && *p <= 'f')
            *p = (char)(*p - 'a' + 'A');
    api_delete(&r, &srv,
               "/v1/catalogs/" CAT "/namespaces/" NS "/tables/guarded?expected_table_uuid=%s",
               upper);
    expect_status(&r, 200);
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0 + 1);
}

/* primary_timestamp_column on create: validated with the alter op's rules,
 * stored as the column's field id in the create's version row, returned by
 * name; refusals consume no snapshot. */
static void create_with_primary_timestamp(void **state)
{
    (void)state;
    int64_t h0 = head_of(CAT), sv0 = schema_version_of(CAT);
    json_t *t = create_ok(CAT, NS,
                          "{'name':'pts','columns':[{'name':'id','type':'long'},"
                          "{'name':'day','type':'date'},{'name':'at','type':'timestamptz'}],"
                          "'primary_timestamp_column':'at'}");
    int64_t snap = jint(t, "snapshot_id");
    assert_int_equal(snap, h0 + 1);
    assert_int_equal(schema_version_of(CAT), sv0 + 1);
    assert_string_equal(jstr(t, "primary_timestamp_column"), "at");
    json_decref(t);
    int64_t c = cat_id(CAT), tid = table_id_of(CAT, NS, "pts");
    assert_int_equal(sqli("SELECT primary_timestamp_field_id FROM hog_table_version WHERE"
                          " catalog_id = %lld AND table_id = %lld AND end_snapshot IS NULL",
                          (long long)c, (long long)tid),
                     3);
    expect_sql("table_created",
               "SELECT string_agg(kind || CASE WHEN object_id = %lld THEN '' ELSE '?' END, ',')"
               " FROM hog_snapshot_change WHERE catalog_id = %lld AND snapshot_id = %lld",
               (long long)tid, (long long)c, (long long)snap);
    json_t *g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/pts");
    assert_string_equal(jstr(g, "primary_timestamp_column"), "at");
    json_decref(g);

    /* A date column qualifies too; null (or nothing) means none. */
    t = create_ok(CAT, NS,
                  "{'name':'pts_date','columns':[{'name':'d','type':'date'}],"
                  "'primary_timestamp_column':'d'}");
    assert_string_equal(jstr(t, "primary_timestamp_column"), "d");
    json_decref(t);
    t = create_ok(CAT, NS,
                  "{'name':'pts_none','columns':[{'name':'d','type':'date'}],"
                  "'primary_timestamp_column':null}");
    expect_absent(t, "primary_timestamp_column");
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld AND"
                          " table_id = %lld AND primary_timestamp_field_id IS NULL",
                          (long long)c, (long long)table_id_of(CAT, NS, "pts_none")),
                     1);

    create_fails("{'name':'pts_bad','columns':[{'name':'n','type':'long'}],"
                 "'primary_timestamp_column':'n'}",
                 422, "validation",
                 "primary_timestamp_column: primary timestamp column 'n' is 'long'; it must be a "
                 "date or timestamp column");
    create_fails("{'name':'pts_bad','columns':[{'name':'t','type':'time'}],"
                 "'primary_timestamp_column':'t'}",
                 422, "validation", "primary timestamp column 't' is 'time'");
    create_fails("{'name':'pts_bad','columns':[{'name':'at','type':'timestamp'}],"
                 "'primary_timestamp_column':'nope'}",
                 422, "validation",
                 "primary_timestamp_column: primary timestamp column: column 'nope' does not "
                 "exist");
    create_fails("{'name':'pts_bad','columns':[{'name':'s','type':'struct','children':"
                 "[{'name':'at','type':'timestamp'}]}],'primary_timestamp_column':'s.at'}",
                 422, "validation", "must be a top-level column");
    create_fails("{'name':'pts_bad','columns':[{'name':'at','type':'timestamp'}],"
                 "'primary_timestamp_column':3}",
                 400, "bad_request", "primary_timestamp_column");
    assert_int_equal(count_named_versions(CAT, "pts_bad"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_returns_table_shape),
        cmocka_unit_test(create_assigns_field_ids_depth_first),
        cmocka_unit_test(create_accepts_all_27_types),
        cmocka_unit_test(create_decimal_params),
        cmocka_unit_test(create_refuses_named_types),
        cmocka_unit_test(create_enforces_shape_rules),
        cmocka_unit_test(create_depth_limit),
        cmocka_unit_test(create_node_limit),
        cmocka_unit_test(create_refuses_duplicate_and_reserved_names),
        cmocka_unit_test(create_validates_table_name_and_body),
        cmocka_unit_test(create_duplicate_and_missing_parents),
        cmocka_unit_test(tables_are_scoped_by_namespace),
        cmocka_unit_test(create_with_metadata_is_atomic),
        cmocka_unit_test(create_with_primary_timestamp),
        cmocka_unit_test(get_time_travel),
        cmocka_unit_test(get_totals_come_from_visible_files),
        cmocka_unit_test(get_not_found_and_expired),
        cmocka_unit_test(list_tables),
        cmocka_unit_test(list_tables_long_comments),
        cmocka_unit_test(list_tables_merges_ended_versions_by_name),
        cmocka_unit_test(drop_table_ends_rows_and_frees_the_name),
        cmocka_unit_test(drop_table_guards),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
