/* POST .../tables/{t}/alter against a real hoglaked and PostgreSQL: every
 * op, the column-path rules, one snapshot and one table_altered change per
 * request, all-or-nothing application, the incarnation and read_snapshot
 * guards, the id-less-file guard and required columns over live files.
 *
 * Every successful alter is checked against a GET at head (the response
 * must be the table as a reader then sees it, plus snapshot_id), and every
 * refused alter is checked to have consumed no snapshot.
 *
 * Request bodies are written with single quotes; the helpers turn every '
 * into " before sending. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness.h"

#define CAT "ac"
#define NS "ns"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

/* ---- helpers ---- */

static int64_t tid(const char *t)
{
    return table_id_of(CAT, NS, t);
}

static int64_t next_field_id(const char *t)
{
    return sqli("SELECT next_field_id FROM hog_table WHERE catalog_id = %lld AND table_id = %lld",
                (long long)cat_id(CAT), (long long)tid(t));
}

/* Number of hog_column rows (all versions) of one field. */
static int64_t column_rows(const char *t, int64_t field_id)
{
    return sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id = %lld AND"
                " field_id = %lld",
                (long long)cat_id(CAT), (long long)tid(t), (long long)field_id);
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

static json_t *find_column(const json_t *table, const char *path, bool must)
{
    const json_t *cols = jget(table, "columns");
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = NULL;
    char *save = NULL;
    for (char *seg = strtok_r(buf, ".", &save); seg; seg = strtok_r(NULL, ".", &save)) {
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
            if (!must)
                return NULL;
            char *dump = json_dumps(table, JSON_COMPACT);
            fail_msg("no column '%s' (segment '%s') in %s", path, seg, dump ? dump : "?");
        }
    }
    return cur;
}

static json_t *colpath(const json_t *table, const char *path)
{
    return find_column(table, path, true);
}

static json_t *create_in(const char *cat, const char *ns, const char *body)
{
    char *b = dq(body);
    struct http_result r;
    api_send_text(&r, &srv, "POST", b, "/v1/catalogs/%s/namespaces/%s/tables", cat, ns);
    free(b);
    expect_status(&r, 201);
    json_t *t = json_incref(r.json);
    http_result_free(&r);
    return t;
}

static json_t *create(const char *body)
{
    return create_in(CAT, NS, body);
}

static void create_quiet(const char *body)
{
    json_decref(create(body));
}

static void alter_send(struct http_result *r, const char *cat, const char *table, const char *query,
                       const char *ops)
{
    char *b = dq(ops);
    api_send_text(r, &srv, "POST", b, "/v1/catalogs/%s/namespaces/" NS "/tables/%s/alter%s", cat,
                  table, query ? query : "");
    free(b);
}

/* The alter response must be what a reader sees at head afterwards. */
static void expect_same_as_get(const char *cat, const json_t *resp)
{
    json_t *copy = json_deep_copy(resp);
    json_object_del(copy, "snapshot_id");
    json_t *g = api_get_json(&srv, "/v1/catalogs/%s/namespaces/%s/tables/%s", cat,
                             jstr(resp, "namespace"), jstr(resp, "name"));
    if (!json_equal(copy, g)) {
        char *a = json_dumps(copy, JSON_COMPACT), *b = json_dumps(g, JSON_COMPACT);
        fail_msg("alter response and GET at head differ:\n  alter %s\n  get   %s", a, b);
    }
    json_decref(copy);
    json_decref(g);
}

static json_t *alter_ok_at(const char *cat, const char *table, const char *query, const char *ops)
{
    int64_t h0 = head_of(cat);
    struct http_result r;
    alter_send(&r, cat, table, query, ops);
    expect_status(&r, 200);
    json_t *out = json_incref(r.json);
    http_result_free(&r);
    assert_int_equal(jint(out, "snapshot_id"), h0 + 1);
    assert_int_equal(jint(out, "read_snapshot_id"), h0 + 1);
    assert_int_equal(head_of(cat), h0 + 1);
    expect_same_as_get(cat, out);
    return out;
}

static json_t *alter_ok(const char *table, const char *ops)
{
    return alter_ok_at(CAT, table, NULL, ops);
}

static void alter_quiet(const char *table, const char *ops)
{
    json_decref(alter_ok(table, ops));
}

/* A refused alter: the status, code and detail, and no snapshot consumed. */
static void alter_fails_at(const char *cat, const char *table, const char *query, const char *ops,
                           long status, const char *code, const char *needle)
{
    int64_t h0 = head_of(cat);
    struct http_result r;
    alter_send(&r, cat, table, query, ops);
    expect_error(&r, status, code);
    if (needle)
        expect_detail_contains(&r, needle);
    http_result_free(&r);
    assert_int_equal(head_of(cat), h0);
}

static void alter_fails(const char *table, const char *ops, long status, const char *code,
                        const char *needle)
{
    alter_fails_at(CAT, table, NULL, ops, status, code, needle);
}

/* Registers a data file row straight in the manifest; returns its id. */
static int64_t insert_file(const char *table, const char *stats_state, bool missing_ids)
{
    int64_t c = cat_id(CAT), t = tid(table);
    int64_t begin = sqli("SELECT created_snapshot FROM hog_table WHERE catalog_id = %lld AND"
                         " table_id = %lld",
                         (long long)c, (long long)t);
    int64_t id = sqli("SELECT coalesce(max(data_file_id), 0) + 1 FROM hog_data_file WHERE"
                      " catalog_id = %lld",
                      (long long)c);
    sql_exec("INSERT INTO hog_data_file (catalog_id, data_file_id, table_id, begin_snapshot,"
             " path, record_count, file_size_bytes, row_id_start, stats_state, missing_field_ids)"
             " VALUES (%lld, %lld, %lld, %lld, 's3://hoglake-test/" CAT "/f%lld.parquet', 10,"
             " 100, 0, '%s', %s)",
             (long long)c, (long long)id, (long long)t, (long long)begin, (long long)id,
             stats_state, missing_ids ? "true" : "false");
    return id;
}

static void end_file(int64_t data_file_id)
{
    sql_exec("UPDATE hog_data_file SET end_snapshot = (SELECT last_snapshot_id FROM hog_catalog"
             " WHERE catalog_id = %lld) WHERE catalog_id = %lld AND data_file_id = %lld",
             (long long)cat_id(CAT), (long long)cat_id(CAT), (long long)data_file_id);
}

/* ---- setup ---- */

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "alter", CAT, NS);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* ---- add_column ---- */

static void add_column_top_level_and_nested(void **state)
{
    (void)state;
    create_quiet("{'name':'adds','columns':[{'name':'id','type':'long'},"
                 "{'name':'addr','type':'struct','children':[{'name':'street','type':'string'},"
                 "{'name':'zip','type':'string'}]}]}");
    assert_int_equal(next_field_id("adds"), 5);
    json_t *t =
        alter_ok("adds", "{'ops':[{'op':'add_column','column':{'name':'c','type':'int'}}]}");
    int64_t s1 = jint(t, "snapshot_id");
    json_t *c = colpath(t, "c");
    assert_int_equal(jint(c, "field_id"), 5);
    assert_int_equal(jint(c, "ordinal"), 2);
    assert_true(json_is_true(jget(c, "nullable")));
    assert_int_equal(json_array_size(jget(t, "columns")), 3);
    json_decref(t);

    t = alter_ok("adds", "{'ops':[{'op':'add_column','parent':'addr','column':{'name':'city',"
                         "'type':'string','nullable':false}}]}");
    int64_t s2 = jint(t, "snapshot_id");
    c = colpath(t, "addr.city");
    assert_int_equal(jint(c, "field_id"), 6);
    assert_int_equal(jint(c, "ordinal"), 2);
    assert_true(json_is_false(jget(c, "nullable")));
    json_decref(t);

    t = alter_ok("adds", "{'ops':[{'op':'add_column','column':{'name':'s2','type':'struct',"
                         "'children':[{'name':'a','type':'int'},{'name':'b','type':'list',"
                         "'children':[{'name':'element','type':'decimal','type_params':"
                         "{'precision':9,'scale':3}}]}]}}]}");
    int64_t s3 = jint(t, "snapshot_id");
    assert_int_equal(jint(colpath(t, "s2"), "field_id"), 7);
    assert_int_equal(jint(colpath(t, "s2"), "ordinal"), 3);
    assert_int_equal(jint(colpath(t, "s2.a"), "field_id"), 8);
    assert_int_equal(jint(colpath(t, "s2.a"), "ordinal"), 0);
    assert_int_equal(jint(colpath(t, "s2.b"), "field_id"), 9);
    assert_int_equal(jint(colpath(t, "s2.b"), "ordinal"), 1);
    json_t *el = colpath(t, "s2.b.element");
    assert_int_equal(jint(el, "field_id"), 10);
    assert_int_equal(jint(jget(el, "type_params"), "precision"), 9);
    assert_int_equal(jint(jget(el, "type_params"), "scale"), 3);
    json_decref(t);

    int64_t cid = cat_id(CAT), t_id = tid("adds");
    expect_sql("1:-:0:1,2:-:1:1,3:2:0:1,4:2:1:1,5:-:2:1,6:2:2:1,7:-:3:1,8:7:0:1,9:7:1:1,10:9:0:1",
               "SELECT string_agg(field_id || ':' || coalesce(parent_field_id::text, '-') || ':'"
               " || ordinal || ':' || n, ',' ORDER BY field_id) FROM (SELECT field_id,"
               " max(parent_field_id) AS parent_field_id, max(ordinal) AS ordinal, count(*) AS n"
               " FROM hog_column WHERE catalog_id = %lld AND table_id = %lld GROUP BY field_id) x",
               (long long)cid, (long long)t_id);
    /* Each add inserted only its own rows, at its own snapshot. */
    expect_sql("5@s1,6@s2,7@s3,8@s3,9@s3,10@s3",
               "SELECT string_agg(field_id || '@' || CASE begin_snapshot WHEN %lld THEN 's1'"
               " WHEN %lld THEN 's2' WHEN %lld THEN 's3' ELSE begin_snapshot::text END, ','"
               " ORDER BY field_id) FROM hog_column WHERE catalog_id = %lld AND table_id = %lld"
               " AND field_id >= 5",
               (long long)s1, (long long)s2, (long long)s3, (long long)cid, (long long)t_id);
    assert_int_equal(next_field_id("adds"), 11);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NOT NULL",
                          (long long)cid, (long long)t_id),
                     0);
    /* Each alter is one table_altered change. */
    expect_sql("table_altered,table_altered,table_altered",
               "SELECT string_agg(kind, ',' ORDER BY snapshot_id) FROM hog_snapshot_change WHERE"
               " catalog_id = %lld AND object_id = %lld AND snapshot_id IN (%lld, %lld, %lld)",
               (long long)cid, (long long)t_id, (long long)s1, (long long)s2, (long long)s3);

    /* Sibling names are unique case-insensitively; the column rules apply. */
    alter_fails("adds", "{'ops':[{'op':'add_column','column':{'name':'ID','type':'int'}}]}", 422,
                "validation", "column 'ID' already exists");
    alter_fails("adds",
                "{'ops':[{'op':'add_column','parent':'addr','column':{'name':'Zip',"
                "'type':'int'}}]}",
                422, "validation", "column 'Zip' of struct 'addr' already exists");
    alter_fails("adds", "{'ops':[{'op':'add_column','column':{'name':'_hog_x','type':'int'}}]}",
                422, "validation", "reserved prefix '_hog'");
    alter_fails("adds",
                "{'ops':[{'op':'add_column','parent':'addr','column':{'name':'_hogz',"
                "'type':'int'}}]}",
                422, "validation", "'addr._hogz'");
    alter_fails("adds", "{'ops':[{'op':'add_column','column':{'name':'bad','type':'int128'}}]}",
                422, "validation", "decimal(38)");
    alter_fails("adds",
                "{'ops':[{'op':'add_column','column':{'name':'bad','type':'list',"
                "'children':[{'name':'elem','type':'int'}]}}]}",
                422, "validation", "'element'");
    alter_fails("adds",
                "{'ops':[{'op':'add_column','column':{'name':'bad','type':'int',"
                "'extra':1}}]}",
                400, "bad_request", "unknown field");
    assert_int_equal(next_field_id("adds"), 11);
}

static void add_column_with_metadata(void **state)
{
    (void)state;
    create_quiet("{'name':'addmeta','columns':[{'name':'id','type':'long'},"
                 "{'name':'s','type':'struct','children':[{'name':'a','type':'int'}]}]}");
    json_t *t = alter_ok("addmeta", "{'ops':[{'op':'add_column_with_metadata','column':{'name':"
                                    "'note','type':'string','comment':'free text'}},"
                                    "{'op':'add_column_with_metadata','parent':'s','column':"
                                    "{'name':'b','type':'uuid','comment':'nested'}}]}");
    assert_string_equal(jstr(colpath(t, "note"), "comment"), "free text");
    assert_int_equal(jint(colpath(t, "note"), "field_id"), 4);
    assert_string_equal(jstr(colpath(t, "s.b"), "comment"), "nested");
    assert_int_equal(jint(colpath(t, "s.b"), "field_id"), 5);
    json_decref(t);
    expect_sql("note=free text,b=nested",
               "SELECT string_agg(name || '=' || comment, ',' ORDER BY field_id) FROM hog_column"
               " WHERE catalog_id = %lld AND table_id = %lld AND comment IS NOT NULL",
               (long long)cat_id(CAT), (long long)tid("addmeta"));
    /* add_column takes a comment too. */
    t = alter_ok("addmeta", "{'ops':[{'op':'add_column','column':{'name':'c2','type':'int',"
                            "'comment':'plain'}}]}");
    assert_string_equal(jstr(colpath(t, "c2"), "comment"), "plain");
    json_decref(t);
    char *big = malloc(16500);
    assert_non_null(big);
    int n = snprintf(big, 200,
                     "{'ops':[{'op':'add_column_with_metadata','column':{'name':'x',"
                     "'type':'int','comment':'");
    memset(big + n, 'x', 16385);
    strcpy(big + n + 16385, "'}}]}");
    alter_fails("addmeta", big, 422, "validation", "16384");
    free(big);
}

static void field_ids_are_never_reused(void **state)
{
    (void)state;
    create_quiet("{'name':'reuse','columns':[{'name':'a','type':'int'},{'name':'b','type':'int'},"
                 "{'name':'c','type':'int'}]}");
    json_t *t = alter_ok("reuse", "{'ops':[{'op':'drop_column','name':'c'}]}");
    assert_null(find_column(t, "c", false));
    json_decref(t);
    assert_int_equal(next_field_id("reuse"), 4);
    /* The dropped id 3 is not handed out again; the ordinal is max + 1. */
    t = alter_ok("reuse", "{'ops':[{'op':'add_column','column':{'name':'d','type':'int'}}]}");
    assert_int_equal(jint(colpath(t, "d"), "field_id"), 4);
    assert_int_equal(jint(colpath(t, "d"), "ordinal"), 2);
    json_decref(t);
    /* Drop from the middle: gaps stay, the next ordinal is still max + 1. */
    alter_quiet("reuse", "{'ops':[{'op':'drop_column','name':'b'}]}");
    t = alter_ok("reuse", "{'ops':[{'op':'add_column','column':{'name':'c','type':'long'}}]}");
    assert_int_equal(jint(colpath(t, "c"), "field_id"), 5);
    assert_int_equal(jint(colpath(t, "c"), "ordinal"), 3);
    assert_int_equal(jint(colpath(t, "a"), "ordinal"), 0);
    assert_int_equal(jint(colpath(t, "d"), "ordinal"), 2);
    json_decref(t);
    /* Dropping the newest column and adding in the same request. */
    t = alter_ok("reuse", "{'ops':[{'op':'drop_column','name':'c'},{'op':'add_column','column':"
                          "{'name':'c','type':'string'}}]}");
    assert_int_equal(jint(colpath(t, "c"), "field_id"), 6);
    assert_string_equal(jstr(colpath(t, "c"), "type"), "string");
    json_decref(t);
    /* A rename or promotion undone by a drop in the same request only ends
     * the stored row. */
    alter_quiet("reuse", "{'ops':[{'op':'add_column','column':{'name':'r1','type':'int'}},"
                         "{'op':'add_column','column':{'name':'r2','type':'int'}}]}");
    int64_t r1 = 7, r2 = 8;
    t = alter_ok("reuse", "{'ops':[{'op':'rename_column','from':'r1','to':'r1x'},"
                          "{'op':'drop_column','name':'r1x'},"
                          "{'op':'promote_column','name':'r2','to':'long'},"
                          "{'op':'drop_column','name':'r2'}]}");
    assert_null(find_column(t, "r1x", false));
    assert_null(find_column(t, "r2", false));
    json_decref(t);
    assert_int_equal(column_rows("reuse", r1), 1);
    assert_int_equal(column_rows("reuse", r2), 1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld AND field_id IN (7, 8) AND end_snapshot IS NOT NULL AND name IN"
                          " ('r1', 'r2') AND col_type = 'int'",
                          (long long)cat_id(CAT), (long long)tid("reuse")),
                     2);
    /* A name freed by a drop can be taken by a rename in the same request. */
    t = alter_ok("reuse", "{'ops':[{'op':'drop_column','name':'d'},"
                          "{'op':'rename_column','from':'a','to':'d'}]}");
    assert_int_equal(jint(colpath(t, "d"), "field_id"), 1);
    assert_int_equal(jint(colpath(t, "d"), "ordinal"), 0);
    json_decref(t);
    alter_quiet("reuse", "{'ops':[{'op':'rename_column','from':'d','to':'a'}]}");
    /* An add undone in the same request writes nothing, but its id is gone. */
    t = alter_ok("reuse", "{'ops':[{'op':'add_column','column':{'name':'tmp','type':'int'}},"
                          "{'op':'drop_column','name':'tmp'}]}");
    assert_null(find_column(t, "tmp", false));
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld AND name = 'tmp'",
                          (long long)cat_id(CAT), (long long)tid("reuse")),
                     0);
    t = alter_ok("reuse", "{'ops':[{'op':'add_column','column':{'name':'e','type':'int'}}]}");
    assert_true(jint(colpath(t, "e"), "field_id") > 9);
    json_decref(t);
    expect_sql("1:a:ended,1:d:ended,1:a:live,2:b:ended,3:c:ended,4:d:ended,5:c:ended,6:c:live",
               "SELECT string_agg(field_id || ':' || name || ':' || CASE WHEN end_snapshot IS NULL"
               " THEN 'live' ELSE 'ended' END, ',' ORDER BY field_id, begin_snapshot) FROM"
               " hog_column WHERE"
               " catalog_id = %lld AND table_id = %lld AND field_id <= 6",
               (long long)cat_id(CAT), (long long)tid("reuse"));
}

/* ---- drop_column ---- */

static void drop_column_ends_the_subtree(void **state)
{
    (void)state;
    create_quiet("{'name':'dropsub','columns':[{'name':'id','type':'int'},"
                 "{'name':'s','type':'struct','children':[{'name':'a','type':'int'},"
                 "{'name':'l','type':'list','children':[{'name':'element','type':'struct',"
                 "'children':[{'name':'x','type':'int'},{'name':'y','type':'int'}]}]}]},"
                 "{'name':'z','type':'int'}]}");
    json_t *t = alter_ok("dropsub", "{'ops':[{'op':'drop_column','name':'s'}]}");
    int64_t s = jint(t, "snapshot_id");
    assert_int_equal(json_array_size(jget(t, "columns")), 2);
    assert_null(find_column(t, "s", false));
    assert_int_equal(jint(colpath(t, "z"), "ordinal"), 2);
    json_decref(t);
    int64_t cid = cat_id(CAT), t_id = tid("dropsub");
    expect_sql("2,3,4,5,6,7",
               "SELECT string_agg(field_id::text, ',' ORDER BY field_id) FROM hog_column WHERE"
               " catalog_id = %lld AND table_id = %lld AND end_snapshot = %lld",
               (long long)cid, (long long)t_id, (long long)s);
    expect_sql("1,8",
               "SELECT string_agg(field_id::text, ',' ORDER BY field_id) FROM hog_column WHERE"
               " catalog_id = %lld AND table_id = %lld AND end_snapshot IS NULL",
               (long long)cid, (long long)t_id);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld",
                          (long long)cid, (long long)t_id),
                     8);
    /* The past still has the whole tree. */
    json_t *g =
        api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/dropsub?snapshot=%lld",
                     (long long)s - 1);
    assert_int_equal(jint(colpath(g, "s.l.element.y"), "field_id"), 7);
    json_decref(g);

    /* A nested field. */
    create_quiet("{'name':'dropnest','columns':[{'name':'id','type':'int'},"
                 "{'name':'s','type':'struct','children':[{'name':'a','type':'int'},"
                 "{'name':'b','type':'int'}]}]}");
    t = alter_ok("dropnest", "{'ops':[{'op':'drop_column','name':'s.a'}]}");
    assert_null(find_column(t, "s.a", false));
    assert_int_equal(jint(colpath(t, "s.b"), "ordinal"), 1);
    json_decref(t);
    expect_sql("3",
               "SELECT string_agg(field_id::text, ',') FROM hog_column WHERE catalog_id = %lld"
               " AND table_id = %lld AND end_snapshot IS NOT NULL",
               (long long)cid, (long long)tid("dropnest"));
    /* Now b is the struct's last field, and s cannot be emptied. */
    alter_fails("dropnest", "{'ops':[{'op':'drop_column','name':'s.b'}]}", 422, "validation",
                "it is the last field of struct 's'");
    alter_quiet("dropnest", "{'ops':[{'op':'drop_column','name':'s'}]}");
    alter_fails("dropnest", "{'ops':[{'op':'drop_column','name':'id'}]}", 422, "validation",
                "it is the last column");
    /* A drop of every column but one in one request leaves the last. */
    create_quiet("{'name':'droplast','columns':[{'name':'a','type':'int'},"
                 "{'name':'b','type':'int'}]}");
    alter_fails("droplast",
                "{'ops':[{'op':'drop_column','name':'a'},{'op':'drop_column','name':"
                "'b'}]}",
                422, "validation", "ops[1]");
}

static void drop_column_refuses_spec_sources(void **state)
{
    (void)state;
    create_quiet("{'name':'srcs','columns':[{'name':'id','type':'long'},"
                 "{'name':'ts','type':'timestamp'},"
                 "{'name':'s','type':'struct','children':[{'name':'k','type':'int'},"
                 "{'name':'j','type':'int'},{'name':'extra','type':'int'}]},"
                 "{'name':'t','type':'struct','children':[{'name':'u','type':'int'},"
                 "{'name':'w','type':'int'}]}],"
                 "'partition_fields':[{'source_field_id':1,'transform':'identity'},"
                 "{'source_field_id':4,'transform':'identity'}],"
                 "'sort_fields':[{'source_field_id':2},{'source_field_id':8}]}");
    alter_fails("srcs", "{'ops':[{'op':'drop_column','name':'id'}]}", 422, "validation",
                "cannot drop column 'id': it is a source of the live partition spec");
    alter_fails("srcs", "{'ops':[{'op':'drop_column','name':'s.k'}]}", 422, "validation",
                "cannot drop column 's.k': it is a source of the live partition spec");
    alter_fails("srcs", "{'ops':[{'op':'drop_column','name':'s'}]}", 422, "validation",
                "field_id 4 inside it is a source of the live partition spec");
    alter_fails("srcs", "{'ops':[{'op':'drop_column','name':'ts'}]}", 422, "validation",
                "cannot drop column 'ts': it is a source of the live sort order");
    alter_fails("srcs", "{'ops':[{'op':'drop_column','name':'t.u'}]}", 422, "validation",
                "it is a source of the live sort order");
    alter_fails("srcs", "{'ops':[{'op':'drop_column','name':'t'}]}", 422, "validation",
                "field_id 8 inside it is a source of the live sort order");
    /* A spec set earlier in the same request counts. */
    alter_fails("srcs",
                "{'ops':[{'op':'set_sort_order','sort_fields':[{'source_field_id':5}]},"
                "{'op':'drop_column','name':'s.j'}]}",
                422, "validation", "sort order");
    /* Siblings of sources can go; the specs are untouched by a drop. */
    json_t *t = alter_ok("srcs", "{'ops':[{'op':'drop_column','name':'s.j'},"
                                 "{'op':'drop_column','name':'t.w'}]}");
    assert_int_equal(jint(jget(t, "partition_spec"), "spec_id"), 1);
    assert_int_equal(jint(jget(t, "sort_spec"), "sort_id"), 1);
    json_decref(t);
    /* Once the specs no longer use them, the sources can be dropped. */
    t = alter_ok("srcs", "{'ops':[{'op':'set_partition_spec','fields':[]},"
                         "{'op':'set_sort_order','sort_fields':[]},"
                         "{'op':'drop_column','name':'id'},{'op':'drop_column','name':'s'},"
                         "{'op':'drop_column','name':'t'}]}");
    expect_absent(t, "partition_spec");
    expect_absent(t, "sort_spec");
    assert_int_equal(json_array_size(jget(t, "columns")), 1);
    assert_string_equal(jstr(json_array_get(jget(t, "columns"), 0), "name"), "ts");
    json_decref(t);
}

/* ---- rename_column ---- */

static void rename_column_keeps_the_field_id(void **state)
{
    (void)state;
    create_quiet("{'name':'ren','columns':[{'name':'id','type':'int'},"
                 "{'name':'addr','type':'struct','children':[{'name':'zip','type':'string'},"
                 "{'name':'city','type':'string'}]},{'name':'v','type':'int','comment':'vee'}],"
                 "'partition_fields':[{'source_field_id':1,'transform':'identity'}]}");
    json_t *t = alter_ok("ren", "{'ops':[{'op':'rename_column','from':'v','to':'w'}]}");
    int64_t s1 = jint(t, "snapshot_id");
    json_t *w = colpath(t, "w");
    assert_int_equal(jint(w, "field_id"), 5);
    assert_int_equal(jint(w, "ordinal"), 2);
    assert_string_equal(jstr(w, "comment"), "vee");
    assert_null(find_column(t, "v", false));
    json_decref(t);
    int64_t cid = cat_id(CAT), t_id = tid("ren");
    expect_sql("v@ended,w@live",
               "SELECT string_agg(name || '@' || CASE WHEN end_snapshot = %lld THEN 'ended' WHEN"
               " end_snapshot IS NULL AND begin_snapshot = %lld THEN 'live' ELSE '?' END, ','"
               " ORDER BY begin_snapshot) FROM hog_column WHERE catalog_id = %lld AND table_id ="
               " %lld AND field_id = 5",
               (long long)s1, (long long)s1, (long long)cid, (long long)t_id);
    for (int f = 1; f <= 4; f++)
        assert_int_equal(column_rows("ren", f), 1);

    /* A nested field, by path; the parent row is not re-versioned. */
    t = alter_ok("ren", "{'ops':[{'op':'rename_column','from':'addr.zip','to':'code'}]}");
    assert_int_equal(jint(colpath(t, "addr.code"), "field_id"), 3);
    assert_int_equal(jint(colpath(t, "addr.code"), "ordinal"), 0);
    assert_null(find_column(t, "addr.zip", false));
    json_decref(t);
    assert_int_equal(column_rows("ren", 2), 1);
    assert_int_equal(column_rows("ren", 3), 2);
    assert_int_equal(column_rows("ren", 4), 1);

    /* Renaming a struct keeps its children's rows. */
    t = alter_ok("ren", "{'ops':[{'op':'rename_column','from':'addr','to':'address'}]}");
    assert_int_equal(jint(colpath(t, "address"), "field_id"), 2);
    assert_int_equal(jint(colpath(t, "address.code"), "field_id"), 3);
    json_decref(t);
    assert_int_equal(column_rows("ren", 2), 2);
    assert_int_equal(column_rows("ren", 3), 2);
    assert_int_equal(column_rows("ren", 4), 1);

    /* Renaming a partition source leaves the spec alone. */
    t = alter_ok("ren", "{'ops':[{'op':'rename_column','from':'id','to':'ident'}]}");
    assert_int_equal(jint(colpath(t, "ident"), "field_id"), 1);
    json_t *spec = jget(t, "partition_spec");
    assert_int_equal(jint(spec, "spec_id"), 1);
    assert_int_equal(jint(json_array_get(jget(spec, "fields"), 0), "source_field_id"), 1);
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_partition_spec WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)cid, (long long)t_id),
                     1);
    /* A case-only rename of the column itself is allowed. */
    t = alter_ok("ren", "{'ops':[{'op':'rename_column','from':'w','to':'W'}]}");
    assert_int_equal(jint(colpath(t, "W"), "field_id"), 5);
    json_decref(t);

    /* The old names at the old snapshots. */
    json_t *g = api_get_json(
        &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/ren?snapshot=%lld", (long long)s1 - 1);
    assert_int_equal(jint(colpath(g, "v"), "field_id"), 5);
    assert_int_equal(jint(colpath(g, "addr.zip"), "field_id"), 3);
    json_decref(g);

    alter_fails("ren", "{'ops':[{'op':'rename_column','from':'address.city','to':'CODE'}]}", 422,
                "validation", "column 'CODE' of struct 'address' already exists");
    alter_fails("ren", "{'ops':[{'op':'rename_column','from':'ident','to':'w'}]}", 422,
                "validation", "column 'w' already exists");
    alter_fails("ren", "{'ops':[{'op':'rename_column','from':'ident','to':'_hog_id'}]}", 422,
                "validation", "column name '_hog_id' uses the reserved prefix '_hog'");
    alter_fails("ren", "{'ops':[{'op':'rename_column','from':'address.city','to':'_hogc'}]}", 422,
                "validation", "'address._hogc'");
    alter_fails("ren", "{'ops':[{'op':'rename_column','from':'ident','to':'a.b'}]}", 422,
                "validation", "invalid column name 'a.b'");
    alter_fails("ren", "{'ops':[{'op':'rename_column','from':'ident','to':''}]}", 422, "validation",
                "invalid column name");
    alter_fails("ren", "{'ops':[{'op':'rename_column','from':'nope','to':'x'}]}", 422, "validation",
                "column 'nope' does not exist");
    alter_fails("ren", "{'ops':[{'op':'rename_column','from':'ident'}]}", 400, "bad_request", "to");
}

/* ---- promote_column ---- */

static void promote_column_matrix(void **state)
{
    (void)state;
    static const struct {
        const char *from, *to;
    } allowed[] = {
        {"int8", "int16"},    {"int8", "int"},     {"int8", "long"},    {"int16", "int"},
        {"int16", "long"},    {"int", "long"},     {"uint8", "uint16"}, {"uint8", "uint32"},
        {"uint16", "uint32"}, {"float", "double"},
    };
    size_t n = sizeof allowed / sizeof allowed[0];
    json_t *cols = json_array();
    json_t *ops = json_array();
    for (size_t i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%zu", i);
        json_array_append_new(cols, jpack("{s:s,s:s}", "name", name, "type", allowed[i].from));
        json_array_append_new(
            ops, jpack("{s:s,s:s,s:s}", "op", "promote_column", "name", name, "to", allowed[i].to));
    }
    json_array_append_new(cols, jpack("{s:s,s:s,s:[{s:s,s:s}]}", "name", "s", "type", "struct",
                                      "children", "name", "n", "type", "int"));
    json_array_append_new(
        ops, jpack("{s:s,s:s,s:s}", "op", "promote_column", "name", "s.n", "to", "LONG"));
    struct http_result r;
    api_send(&r, &srv, "POST", jpack("{s:s,s:o}", "name", "promo", "columns", cols),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_status(&r, 201);
    http_result_free(&r);
    int64_t h0 = head_of(CAT);
    api_send(&r, &srv, "POST", jpack("{s:o}", "ops", ops),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables/promo/alter");
    expect_status(&r, 200);
    int64_t s = jint(r.json, "snapshot_id");
    assert_int_equal(s, h0 + 1);
    for (size_t i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%zu", i);
        json_t *c = colpath(r.json, name);
        assert_string_equal(jstr(c, "type"), allowed[i].to);
        assert_int_equal(jint(c, "field_id"), (int64_t)i + 1);
    }
    assert_string_equal(jstr(colpath(r.json, "s.n"), "type"), "long");
    assert_int_equal(jint(colpath(r.json, "s.n"), "field_id"), 12);
    expect_same_as_get(CAT, r.json);
    http_result_free(&r);
    int64_t cid = cat_id(CAT), t_id = tid("promo");
    expect_sql("int16,int,long,int,long,long,uint16,uint32,uint32,double,struct,long",
               "SELECT string_agg(col_type, ',' ORDER BY field_id) FROM hog_column WHERE"
               " catalog_id = %lld AND table_id = %lld AND end_snapshot IS NULL",
               (long long)cid, (long long)t_id);
    /* Each promoted field is re-versioned at the alter; the struct is not. */
    expect_sql("1,2,3,4,5,6,7,8,9,10,12",
               "SELECT string_agg(field_id::text, ',' ORDER BY field_id) FROM hog_column WHERE"
               " catalog_id = %lld AND table_id = %lld AND end_snapshot = %lld",
               (long long)cid, (long long)t_id, (long long)s);
    assert_int_equal(column_rows("promo", 11), 1);

    /* Ops apply in order: a chain in one request. */
    create_quiet("{'name':'chain','columns':[{'name':'c','type':'int8'}]}");
    json_t *t = alter_ok("chain", "{'ops':[{'op':'promote_column','name':'c','to':'int16'},"
                                  "{'op':'promote_column','name':'c','to':'int'},"
                                  "{'op':'promote_column','name':'c','to':'long'}]}");
    assert_string_equal(jstr(colpath(t, "c"), "type"), "long");
    json_decref(t);
    assert_int_equal(column_rows("chain", 1), 2);

    create_quiet(
        "{'name':'promobad','columns':[{'name':'l','type':'long'},{'name':'i','type':'int'},"
        "{'name':'f','type':'float'},{'name':'d','type':'double'},"
        "{'name':'u8','type':'uint8'},{'name':'u16','type':'uint16'},"
        "{'name':'u32','type':'uint32'},{'name':'u64','type':'uint64'},"
        "{'name':'i8','type':'int8'},{'name':'dec','type':'decimal','type_params':"
        "{'precision':10,'scale':2}},{'name':'dt','type':'date'},"
        "{'name':'ts','type':'timestamp'},{'name':'tms','type':'timestamp_ms'},"
        "{'name':'s','type':'string'},{'name':'j','type':'json'},"
        "{'name':'st','type':'struct','children':[{'name':'x','type':'int'}]},"
        "{'name':'li','type':'list','children':[{'name':'element','type':'int'}]},"
        "{'name':'m','type':'map','children':[{'name':'key','type':'int',"
        "'nullable':false},{'name':'value','type':'int'}]}]}");
    static const struct {
        const char *name, *to, *needle;
    } refused[] = {
        {"l", "int", "cannot promote column 'l' from 'long' to 'int'"},
        {"i", "int16", "from 'int' to 'int16'"},
        {"i", "double", "from 'int' to 'double'"},
        {"i", "decimal", "from 'int' to 'decimal'"},
        {"i", "uint32", "from 'int' to 'uint32'"},
        {"i", "int", "from 'int' to 'int'"},
        {"f", "long", "from 'float' to 'long'"},
        {"d", "float", "from 'double' to 'float'"},
        {"u8", "int16", "from 'uint8' to 'int16'"},
        {"u16", "uint64", "from 'uint16' to 'uint64'"},
        {"u32", "uint64", "from 'uint32' to 'uint64'"},
        {"u32", "long", "from 'uint32' to 'long'"},
        {"u64", "decimal", "from 'uint64' to 'decimal'"},
        {"i8", "uint8", "from 'int8' to 'uint8'"},
        {"dec", "decimal", "from 'decimal' to 'decimal'"},
        {"dt", "timestamp", "from 'date' to 'timestamp'"},
        {"ts", "timestamptz", "from 'timestamp' to 'timestamptz'"},
        {"tms", "timestamp", "from 'timestamp_ms' to 'timestamp'"},
        {"s", "binary", "from 'string' to 'binary'"},
        {"j", "string", "from 'json' to 'string'"},
        {"st", "long", "nested container"},
        {"i", "struct", "nested container"},
        {"li", "list", "nested container"},
        {"m", "map", "nested container"},
        {"st.x", "int8", "from 'int' to 'int8'"},
        {"i", "bigint", "unknown column type 'bigint'"},
        {"i", "int128", "decimal(38)"},
        {"i", "interval", "no Iceberg mapping"},
        {"nope", "long", "column 'nope' does not exist"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char ops_text[256];
        snprintf(ops_text, sizeof ops_text,
                 "{'ops':[{'op':'promote_column','name':'%s','to':'%s'}]}", refused[i].name,
                 refused[i].to);
        alter_fails("promobad", ops_text, 422, "validation", refused[i].needle);
    }
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld AND end_snapshot IS NOT NULL",
                          (long long)cid, (long long)tid("promobad")),
                     0);

    /* A partition field over the column must accept the promoted type:
     * bucket takes uint16 but not uint32; identity takes any scalar. */
    create_quiet("{'name':'promopart','columns':[{'name':'u','type':'uint16'},"
                 "{'name':'i','type':'int8'}],'partition_fields':[{'source_field_id':1,"
                 "'transform':'bucket','transform_param':4},{'source_field_id':2,"
                 "'transform':'identity'}]}");
    alter_fails("promopart", "{'ops':[{'op':'promote_column','name':'u','to':'uint32'}]}", 422,
                "validation", "partition");
    t = alter_ok("promopart", "{'ops':[{'op':'promote_column','name':'i','to':'int16'}]}");
    assert_string_equal(jstr(colpath(t, "i"), "type"), "int16");
    assert_int_equal(jint(jget(t, "partition_spec"), "spec_id"), 1);
    json_decref(t);
    t = alter_ok("promopart", "{'ops':[{'op':'set_partition_spec','fields':[{'source_field_id':2,"
                              "'transform':'identity'}]},{'op':'promote_column','name':'u',"
                              "'to':'uint32'}]}");
    assert_string_equal(jstr(colpath(t, "u"), "type"), "uint32");
    json_decref(t);
}

/* ---- rename_table ---- */

static void rename_table(void **state)
{
    (void)state;
    json_t *a = create("{'name':'rt_a','columns':[{'name':'x','type':'int'}]}");
    char uuid[64];
    snprintf(uuid, sizeof uuid, "%s", jstr(a, "table_uuid"));
    json_decref(a);
    create_quiet("{'name':'rt_b','columns':[{'name':'x','type':'int'}]}");
    int64_t cid = cat_id(CAT), t_id = tid("rt_a");

    alter_fails("rt_a", "{'ops':[{'op':'rename_table','new_name':'rt_b'}]}", 409, "already_exists",
                "table 'rt_b' already exists");
    alter_fails("rt_a", "{'ops':[{'op':'rename_table','new_name':'9bad'}]}", 422, "validation",
                "invalid table name '9bad'");
    alter_fails("rt_a", "{'ops':[{'op':'rename_table','new_name':'a.b'}]}", 422, "validation",
                "invalid table name");
    alter_fails("rt_a", "{'ops':[{'op':'rename_table'}]}", 400, "bad_request", "new_name");

    /* The same name is a no-op: the version row stays. */
    json_t *t = alter_ok("rt_a", "{'ops':[{'op':'rename_table','new_name':'rt_a'}]}");
    assert_string_equal(jstr(t, "name"), "rt_a");
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)cid, (long long)t_id),
                     1);

    t = alter_ok("rt_a", "{'ops':[{'op':'rename_table','new_name':'rt_c'}]}");
    int64_t s = jint(t, "snapshot_id");
    assert_string_equal(jstr(t, "name"), "rt_c");
    assert_string_equal(jstr(t, "table_uuid"), uuid);
    json_decref(t);
    expect_sql("rt_a@ended,rt_c@live",
               "SELECT string_agg(name || '@' || CASE WHEN end_snapshot = %lld THEN 'ended' WHEN"
               " end_snapshot IS NULL AND begin_snapshot = %lld THEN 'live' ELSE '?' END, ','"
               " ORDER BY begin_snapshot) FROM hog_table_version WHERE catalog_id = %lld AND"
               " table_id = %lld",
               (long long)s, (long long)s, (long long)cid, (long long)t_id);
    assert_int_equal(tid("rt_c"), t_id);
    /* Columns are untouched by a table rename. */
    assert_int_equal(column_rows("rt_c", 1), 1);

    struct http_result r;
    api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/rt_a");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    alter_fails("rt_a", "{'ops':[{'op':'set_table_comment','comment':'x'}]}", 404, "not_found",
                "rt_a");
    /* Time travel shows the old name. */
    json_t *g = api_get_json(
        &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/rt_a?snapshot=%lld", (long long)s - 1);
    assert_string_equal(jstr(g, "name"), "rt_a");
    assert_string_equal(jstr(g, "table_uuid"), uuid);
    json_decref(g);
    api_get(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/rt_c?snapshot=%lld",
            (long long)s - 1);
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    /* The old name is free for a new table. */
    create_quiet("{'name':'rt_a','columns':[{'name':'y','type':'int'}]}");
    json_t *l = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables?snapshot=%lld",
                             (long long)s - 1);
    size_t i, found = 0;
    json_t *e;
    json_array_foreach (l, i, e) {
        if (strcmp(jstr(e, "table_uuid"), uuid) == 0) {
            assert_string_equal(jstr(e, "name"), "rt_a");
            found++;
        }
    }
    assert_int_equal(found, 1);
    json_decref(l);

    /* Away and back in one request ends where it started: the table does
     * not collide with itself. */
    t = alter_ok("rt_c", "{'ops':[{'op':'rename_table','new_name':'rt_tmp'},"
                         "{'op':'rename_table','new_name':'rt_c'}]}");
    assert_string_equal(jstr(t, "name"), "rt_c");
    assert_string_equal(jstr(t, "table_uuid"), uuid);
    json_decref(t);
}

/* ---- set_partition_spec ---- */

static void partition_spec_transforms(void **state)
{
    (void)state;
    /* Field ids: id 1, ts 2, d 3, s 4, f 5, u64 6, v 7, l 8 (element 9),
     * st 10 (leaf 11), tz 12, dec 13, m 14 (key 15, value 16), u32 17,
     * tns 18, b 19, tm 20, uu 21, bin 22, i8 23. */
    create_quiet("{'name':'parts','columns':[{'name':'id','type':'long'},"
                 "{'name':'ts','type':'timestamp'},{'name':'d','type':'date'},"
                 "{'name':'s','type':'string'},{'name':'f','type':'float'},"
                 "{'name':'u64','type':'uint64'},{'name':'v','type':'variant'},"
                 "{'name':'l','type':'list','children':[{'name':'element','type':'int'}]},"
                 "{'name':'st','type':'struct','children':[{'name':'leaf','type':'int'}]},"
                 "{'name':'tz','type':'timestamptz'},{'name':'dec','type':'decimal',"
                 "'type_params':{'precision':10,'scale':2}},"
                 "{'name':'m','type':'map','children':[{'name':'key','type':'string',"
                 "'nullable':false},{'name':'value','type':'int'}]},"
                 "{'name':'u32','type':'uint32'},{'name':'tns','type':'timestamp_ns'},"
                 "{'name':'b','type':'boolean'},{'name':'tm','type':'time'},"
                 "{'name':'uu','type':'uuid'},{'name':'bin','type':'binary'},"
                 "{'name':'i8','type':'int8'}]}");
    int64_t cid = cat_id(CAT), t_id = tid("parts");

    json_t *t = alter_ok("parts", "{'ops':[{'op':'set_partition_spec','fields':["
                                  "{'source_field_id':1,'transform':'IDENTITY'}]}]}");
    int64_t s1 = jint(t, "snapshot_id");
    json_t *want = jparse("{\"spec_id\":1,\"fields\":[{\"source_field_id\":1,\"transform\":"
                          "\"identity\"}]}");
    assert_true(json_equal(jget(t, "partition_spec"), want));
    json_decref(want);
    json_decref(t);

    t = alter_ok("parts",
                 "{'ops':[{'op':'set_partition_spec','fields':["
                 "{'source_field_id':1,'transform':'bucket','transform_param':16},"
                 "{'source_field_id':4,'transform':'truncate','transform_param':4},"
                 "{'source_field_id':2,'transform':'year'},"
                 "{'source_field_id':3,'transform':'month'},"
                 "{'source_field_id':12,'transform':'day'},"
                 "{'source_field_id':2,'transform':'hour'},"
                 "{'source_field_id':3,'transform':'identity','transform_param':null}]}]}");
    int64_t s2 = jint(t, "snapshot_id");
    want = jparse("{\"spec_id\":2,\"fields\":["
                  "{\"source_field_id\":1,\"transform\":\"bucket\",\"transform_param\":16},"
                  "{\"source_field_id\":4,\"transform\":\"truncate\",\"transform_param\":4},"
                  "{\"source_field_id\":2,\"transform\":\"year\"},"
                  "{\"source_field_id\":3,\"transform\":\"month\"},"
                  "{\"source_field_id\":12,\"transform\":\"day\"},"
                  "{\"source_field_id\":2,\"transform\":\"hour\"},"
                  "{\"source_field_id\":3,\"transform\":\"identity\"}]}");
    assert_true(json_equal(jget(t, "partition_spec"), want));
    json_decref(want);
    json_decref(t);
    expect_sql("0:1:bucket:16,1:4:truncate:4,2:2:year:-,3:3:month:-,4:12:day:-,5:2:hour:-,"
               "6:3:identity:-",
               "SELECT string_agg(key_index || ':' || source_field_id || ':' || transform || ':'"
               " || coalesce(transform_param::text, '-'), ',' ORDER BY key_index)"
               " FROM hog_partition_field WHERE catalog_id = %lld AND table_id = %lld AND"
               " spec_id = 2",
               (long long)cid, (long long)t_id);

    t = alter_ok("parts", "{'ops':[{'op':'set_partition_spec','fields':[]}]}");
    int64_t s3 = jint(t, "snapshot_id");
    expect_absent(t, "partition_spec");
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_partition_spec WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NULL",
                          (long long)cid, (long long)t_id),
                     0);

    t = alter_ok("parts",
                 "{'ops':[{'op':'set_partition_spec','fields':["
                 "{'source_field_id':11,'transform':'identity'},"
                 "{'source_field_id':6,'transform':'truncate','transform_param':10},"
                 "{'source_field_id':13,'transform':'bucket','transform_param':8},"
                 "{'source_field_id':18,'transform':'hour'},"
                 "{'source_field_id':21,'transform':'bucket','transform_param':4},"
                 "{'source_field_id':20,'transform':'bucket','transform_param':2},"
                 "{'source_field_id':22,'transform':'truncate','transform_param':3},"
                 "{'source_field_id':23,'transform':'bucket','transform_param':2147483647},"
                 "{'source_field_id':17,'transform':'truncate','transform_param':5},"
                 "{'source_field_id':19,'transform':'identity'},"
                 "{'source_field_id':3,'transform':'Day'}]}]}");
    int64_t s4 = jint(t, "snapshot_id");
    json_t *spec = jget(t, "partition_spec");
    assert_int_equal(jint(spec, "spec_id"), 3);
    assert_int_equal(json_array_size(jget(spec, "fields")), 11);
    assert_string_equal(jstr(json_array_get(jget(spec, "fields"), 10), "transform"), "day");
    json_decref(t);
    expect_sql("1:s1-s2,2:s2-s3,3:s4-live",
               "SELECT string_agg(spec_id || ':' || CASE begin_snapshot WHEN %lld THEN 's1' WHEN"
               " %lld THEN 's2' WHEN %lld THEN 's4' ELSE '?' END || '-' || CASE WHEN end_snapshot"
               " IS NULL THEN 'live' WHEN end_snapshot = %lld THEN 's2' WHEN end_snapshot = %lld"
               " THEN 's3' ELSE '?' END, ',' ORDER BY spec_id) FROM hog_partition_spec WHERE"
               " catalog_id = %lld AND table_id = %lld",
               (long long)s1, (long long)s2, (long long)s4, (long long)s2, (long long)s3,
               (long long)cid, (long long)t_id);
    /* The past spec is still readable. */
    json_t *g = api_get_json(
        &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/parts?snapshot=%lld", (long long)s2);
    assert_int_equal(jint(jget(g, "partition_spec"), "spec_id"), 2);
    json_decref(g);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/parts?snapshot=%lld",
                     (long long)s3);
    expect_absent(g, "partition_spec");
    json_decref(g);

    /* Each refusal names the transform (or problem) and the column or
     * type at fault. */
    static const struct {
        const char *field, *needle, *needle2;
    } refused[] = {
        {"{'source_field_id':3,'transform':'hour'}", "hour", "'date'"},
        {"{'source_field_id':5,'transform':'bucket','transform_param':4}", "bucket", "'float'"},
        {"{'source_field_id':17,'transform':'bucket','transform_param':4}", "bucket", "'uint32'"},
        {"{'source_field_id':6,'transform':'bucket','transform_param':4}", "bucket", "'uint64'"},
        {"{'source_field_id':19,'transform':'bucket','transform_param':4}", "bucket", "'boolean'"},
        {"{'source_field_id':18,'transform':'bucket','transform_param':4}", "bucket",
         "'timestamp_ns'"},
        {"{'source_field_id':5,'transform':'truncate','transform_param':4}", "truncate", "'float'"},
        {"{'source_field_id':3,'transform':'truncate','transform_param':4}", "truncate", "'date'"},
        {"{'source_field_id':4,'transform':'year'}", "year", "'string'"},
        {"{'source_field_id':1,'transform':'month'}", "month", "'long'"},
        {"{'source_field_id':1,'transform':'day'}", "day", "'long'"},
        {"{'source_field_id':20,'transform':'hour'}", "hour", "'time'"},
        {"{'source_field_id':1,'transform':'bucket'}", "bucket", "transform_param"},
        {"{'source_field_id':1,'transform':'bucket','transform_param':0}", "bucket",
         "transform_param"},
        {"{'source_field_id':1,'transform':'bucket','transform_param':-3}", "bucket",
         "transform_param"},
        {"{'source_field_id':1,'transform':'bucket','transform_param':2147483648}", "bucket",
         "2147483647"},
        {"{'source_field_id':4,'transform':'truncate'}", "truncate", "transform_param"},
        {"{'source_field_id':4,'transform':'truncate','transform_param':0}", "truncate",
         "transform_param"},
        {"{'source_field_id':1,'transform':'identity','transform_param':3}",
         "transform 'identity' does not take transform_param", NULL},
        {"{'source_field_id':2,'transform':'year','transform_param':1}",
         "transform 'year' does not take transform_param", NULL},
        {"{'source_field_id':7,'transform':'identity'}",
         "partition source field_id 7 ('v') is a 'variant'", NULL},
        {"{'source_field_id':10,'transform':'identity'}",
         "partition source field_id 10 ('st') is a 'struct'", NULL},
        {"{'source_field_id':8,'transform':'identity'}", "is a 'list'", NULL},
        {"{'source_field_id':14,'transform':'identity'}", "is a 'map'", NULL},
        {"{'source_field_id':9,'transform':'identity'}", "sits under 'l', a 'list'", NULL},
        {"{'source_field_id':16,'transform':'identity'}", "sits under 'm', a 'map'", NULL},
        {"{'source_field_id':15,'transform':'bucket','transform_param':2}",
         "sits under 'm', a 'map'", NULL},
        {"{'source_field_id':999,'transform':'identity'}",
         "partition source field_id 999 is not a live column", NULL},
        {"{'source_field_id':0,'transform':'identity'}", "is not a live column", NULL},
        {"{'source_field_id':1,'transform':'bucket[16]'}", "unknown partition transform",
         "'bucket[16]'"},
        {"{'source_field_id':4,'transform':'truncate[10]'}", "unknown partition transform", NULL},
        {"{'source_field_id':1,'transform':'void'}", "unknown partition transform 'void'", NULL},
        {"{'source_field_id':1,'transform':'identity'},{'source_field_id':1,'transform':"
         "'identity'}",
         "duplicate partition field", NULL},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char ops_text[512];
        snprintf(ops_text, sizeof ops_text, "{'ops':[{'op':'set_partition_spec','fields':[%s]}]}",
                 refused[i].field);
        alter_fails("parts", ops_text, 422, "validation", refused[i].needle);
        if (refused[i].needle2)
            alter_fails("parts", ops_text, 422, "validation", refused[i].needle2);
    }
    alter_fails("parts", "{'ops':[{'op':'set_partition_spec','fields':[{'source_field_id':1}]}]}",
                400, "bad_request", "transform");
    alter_fails("parts",
                "{'ops':[{'op':'set_partition_spec','fields':[{'source_field_id':1,"
                "'transform':'identity','name':'p'}]}]}",
                400, "bad_request", "unknown field");
    alter_fails("parts",
                "{'ops':[{'op':'set_partition_spec','fields':[{'source_field_id':'1',"
                "'transform':'identity'}]}]}",
                400, "bad_request", NULL);
    alter_fails("parts", "{'ops':[{'op':'set_partition_spec'}]}", 400, "bad_request", "fields");
    assert_int_equal(sqli("SELECT max(spec_id) FROM hog_partition_spec WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)cid, (long long)t_id),
                     3);
}

/* ---- set_sort_order ---- */

static void sort_order(void **state)
{
    (void)state;
    create_quiet("{'name':'sorts','columns':[{'name':'id','type':'long'},"
                 "{'name':'ts','type':'timestamp'},{'name':'s','type':'string'},"
                 "{'name':'v','type':'variant'},"
                 "{'name':'st','type':'struct','children':[{'name':'x','type':'int'}]},"
                 "{'name':'l','type':'list','children':[{'name':'element','type':'int'}]}]}");
    int64_t cid = cat_id(CAT), t_id = tid("sorts");
    json_t *t = alter_ok("sorts",
                         "{'ops':[{'op':'set_sort_order','sort_fields':[{'source_field_id':1}]}]}");
    json_t *want = jparse("{\"sort_id\":1,\"fields\":[{\"source_field_id\":1,\"direction\":"
                          "\"asc\",\"null_order\":\"nulls_first\"}]}");
    assert_true(json_equal(jget(t, "sort_spec"), want));
    json_decref(want);
    json_decref(t);
    t = alter_ok("sorts", "{'ops':[{'op':'set_sort_order','sort_fields':[{'source_field_id':1,"
                          "'direction':'desc'}]}]}");
    want = jparse("{\"sort_id\":2,\"fields\":[{\"source_field_id\":1,\"direction\":\"desc\","
                  "\"null_order\":\"nulls_last\"}]}");
    assert_true(json_equal(jget(t, "sort_spec"), want));
    json_decref(want);
    json_decref(t);
    t = alter_ok("sorts", "{'ops':[{'op':'set_sort_order','sort_fields':["
                          "{'source_field_id':1,'direction':'ASC','null_order':'nulls_last'},"
                          "{'source_field_id':2,'direction':'desc','null_order':'NULLS_FIRST'},"
                          "{'source_field_id':6}]}]}");
    want = jparse("{\"sort_id\":3,\"fields\":[{\"source_field_id\":1,\"direction\":\"asc\","
                  "\"null_order\":\"nulls_last\"},{\"source_field_id\":2,\"direction\":\"desc\","
                  "\"null_order\":\"nulls_first\"},{\"source_field_id\":6,\"direction\":\"asc\","
                  "\"null_order\":\"nulls_first\"}]}");
    assert_true(json_equal(jget(t, "sort_spec"), want));
    json_decref(want);
    json_decref(t);
    expect_sql("0:1:asc:nulls_last,1:2:desc:nulls_first,2:6:asc:nulls_first",
               "SELECT string_agg(f.key_index || ':' || f.source_field_id || ':' || f.direction ||"
               " ':' || f.null_order, ',' ORDER BY f.key_index) FROM hog_sort_spec s JOIN"
               " hog_sort_field f USING (catalog_id, table_id, sort_id) WHERE s.catalog_id = %lld"
               " AND s.table_id = %lld AND s.end_snapshot IS NULL",
               (long long)cid, (long long)t_id);
    t = alter_ok("sorts", "{'ops':[{'op':'set_sort_order','sort_fields':[]}]}");
    expect_absent(t, "sort_spec");
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_sort_spec WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NULL",
                          (long long)cid, (long long)t_id),
                     0);
    t = alter_ok("sorts", "{'ops':[{'op':'set_sort_order','sort_fields':[{'source_field_id':3,"
                          "'direction':'desc'}]}]}");
    assert_int_equal(jint(jget(t, "sort_spec"), "sort_id"), 4);
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_sort_spec WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NOT NULL",
                          (long long)cid, (long long)t_id),
                     3);

    static const struct {
        const char *fields, *needle;
    } refused[] = {
        {"{'source_field_id':1},{'source_field_id':1,'direction':'desc'}",
         "duplicate sort source field_id 1"},
        {"{'source_field_id':2},{'source_field_id':3},{'source_field_id':2}",
         "duplicate sort source field_id 2"},
        {"{'source_field_id':1,'direction':'up'}", "unknown sort direction 'up'"},
        {"{'source_field_id':1,'null_order':'nulls_middle'}", "unknown null order 'nulls_middle'"},
        {"{'source_field_id':4}", "sort source field_id 4 ('v') is a 'variant'"},
        {"{'source_field_id':5}", "sort source field_id 5 ('st') is a 'struct'"},
        {"{'source_field_id':8}", "sits under 'l', a 'list'"},
        {"{'source_field_id':77}", "sort source field_id 77 is not a live column"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char ops_text[512];
        snprintf(ops_text, sizeof ops_text, "{'ops':[{'op':'set_sort_order','sort_fields':[%s]}]}",
                 refused[i].fields);
        alter_fails("sorts", ops_text, 422, "validation", refused[i].needle);
    }
    alter_fails("sorts", "{'ops':[{'op':'set_sort_order','sort_fields':[{'direction':'asc'}]}]}",
                400, "bad_request", "source_field_id");
    alter_fails("sorts", "{'ops':[{'op':'set_sort_order','sort_fields':null}]}", 400, "bad_request",
                NULL);
}

/* ---- comments and properties ---- */

static void comments(void **state)
{
    (void)state;
    create_quiet("{'name':'cm','columns':[{'name':'id','type':'int'},"
                 "{'name':'addr','type':'struct','children':[{'name':'zip','type':'string'}]}]}");
    int64_t cid = cat_id(CAT), t_id = tid("cm");
    json_t *t = alter_ok("cm", "{'ops':[{'op':'set_table_comment','comment':'hello'}]}");
    assert_string_equal(jstr(t, "comment"), "hello");
    int64_t s1 = jint(t, "snapshot_id");
    json_decref(t);
    expect_sql("<null>@ended,hello@live",
               "SELECT string_agg(coalesce(comment, '<null>') || '@' || CASE WHEN end_snapshot ="
               " %lld THEN 'ended' WHEN end_snapshot IS NULL THEN 'live' ELSE '?' END, ','"
               " ORDER BY begin_snapshot) FROM hog_table_version WHERE catalog_id = %lld AND"
               " table_id = %lld",
               (long long)s1, (long long)cid, (long long)t_id);
    json_t *l = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    size_t i;
    json_t *e;
    json_array_foreach (l, i, e) {
        if (strcmp(jstr(e, "name"), "cm") == 0)
            assert_string_equal(jstr(e, "comment"), "hello");
    }
    json_decref(l);

    /* "" is a comment, distinct from none. */
    t = alter_ok("cm", "{'ops':[{'op':'set_table_comment','comment':''}]}");
    assert_string_equal(jstr(t, "comment"), "");
    json_decref(t);
    t = alter_ok("cm", "{'ops':[{'op':'set_table_comment','comment':null}]}");
    expect_absent(t, "comment");
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NULL AND comment IS NULL",
                          (long long)cid, (long long)t_id),
                     1);
    alter_quiet("cm", "{'ops':[{'op':'set_table_comment','comment':'again'}]}");
    t = alter_ok("cm", "{'ops':[{'op':'set_table_comment'}]}");
    expect_absent(t, "comment");
    json_decref(t);
    /* The comment at an older snapshot. */
    json_t *g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/cm?snapshot=%lld",
                             (long long)s1);
    assert_string_equal(jstr(g, "comment"), "hello");
    json_decref(g);

    char *big = malloc(16500);
    assert_non_null(big);
    int n = snprintf(big, 100, "{'ops':[{'op':'set_table_comment','comment':'");
    memset(big + n, 'c', 16384);
    strcpy(big + n + 16384, "'}]}");
    t = alter_ok("cm", big);
    assert_int_equal(strlen(jstr(t, "comment")), 16384);
    json_decref(t);
    n = snprintf(big, 100, "{'ops':[{'op':'set_table_comment','comment':'");
    memset(big + n, 'c', 16385);
    strcpy(big + n + 16385, "'}]}");
    alter_fails("cm", big, 422, "validation", "16384");
    n = snprintf(big, 100, "{'ops':[{'op':'set_column_comment','name':'id','comment':'");
    memset(big + n, 'c', 16385);
    strcpy(big + n + 16385, "'}]}");
    alter_fails("cm", big, 422, "validation", "16384");
    free(big);
    alter_fails("cm", "{'ops':[{'op':'set_table_comment','comment':5}]}", 400, "bad_request", NULL);
    /* The limit counts characters, not bytes: 16384 two-byte characters. */
    for (int count = 16384; count <= 16385; count++) {
        size_t bytes = (size_t)count * 2;
        char *u = malloc(bytes + 1);
        assert_non_null(u);
        for (size_t k = 0; k < bytes; k += 2)
            memcpy(u + k, "\xc3\xa9", 2);
        u[bytes] = '\0';
        int64_t h0 = head_of(CAT);
        struct http_result r;
        api_send(&r, &srv, "POST",
                 jpack("{s:[{s:s,s:s}]}", "ops", "op", "set_table_comment", "comment", u),
                 "/v1/catalogs/" CAT "/namespaces/" NS "/tables/cm/alter");
        if (count == 16384) {
            expect_status(&r, 200);
            assert_string_equal(jstr(r.json, "comment"), u);
            expect_same_as_get(CAT, r.json);
        } else {
            expect_error(&r, 422, "validation");
            assert_int_equal(head_of(CAT), h0);
        }
        http_result_free(&r);
        free(u);
    }

    t = alter_ok("cm", "{'ops':[{'op':'set_column_comment','name':'addr.zip','comment':'zip code'},"
                       "{'op':'set_column_comment','name':'addr','comment':'where'}]}");
    int64_t s2 = jint(t, "snapshot_id");
    assert_string_equal(jstr(colpath(t, "addr.zip"), "comment"), "zip code");
    assert_string_equal(jstr(colpath(t, "addr"), "comment"), "where");
    expect_absent(colpath(t, "id"), "comment");
    json_decref(t);
    expect_sql("2:where,3:zip code",
               "SELECT string_agg(field_id || ':' || comment, ',' ORDER BY field_id) FROM"
               " hog_column WHERE catalog_id = %lld AND table_id = %lld AND begin_snapshot = %lld",
               (long long)cid, (long long)t_id, (long long)s2);
    assert_int_equal(column_rows("cm", 1), 1);
    t = alter_ok("cm", "{'ops':[{'op':'set_column_comment','name':'addr.zip','comment':null}]}");
    expect_absent(colpath(t, "addr.zip"), "comment");
    assert_string_equal(jstr(colpath(t, "addr"), "comment"), "where");
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld AND field_id = 3 AND end_snapshot IS NULL AND comment IS NULL",
                          (long long)cid, (long long)t_id),
                     1);
    alter_fails("cm", "{'ops':[{'op':'set_column_comment','name':'nope','comment':'x'}]}", 422,
                "validation", "column 'nope' does not exist");
    alter_fails("cm", "{'ops':[{'op':'set_column_comment','comment':'x'}]}", 400, "bad_request",
                "name");
}

static void properties(void **state)
{
    (void)state;
    create_quiet("{'name':'props','columns':[{'name':'id','type':'int'}]}");
    int64_t cid = cat_id(CAT), t_id = tid("props");
    json_t *t = alter_ok("props", "{'ops':[{'op':'set_properties','properties':{'a':'1',"
                                  "'b.c-d_e':'2','hoglake':'not a prefix'}}]}");
    json_t *p = jget(t, "properties");
    assert_int_equal(json_object_size(p), 3);
    assert_string_equal(jstr(p, "a"), "1");
    assert_string_equal(jstr(p, "b.c-d_e"), "2");
    int64_t s1 = jint(t, "snapshot_id");
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NULL AND properties ="
                          " '{\"a\":\"1\",\"b.c-d_e\":\"2\",\"hoglake\":\"not a prefix\"}'::jsonb",
                          (long long)cid, (long long)t_id),
                     1);
    /* set_properties replaces the whole map. */
    t = alter_ok("props", "{'ops':[{'op':'set_properties','properties':{'x':'y'}}]}");
    p = jget(t, "properties");
    assert_int_equal(json_object_size(p), 1);
    assert_string_equal(jstr(p, "x"), "y");
    json_decref(t);
    t = alter_ok("props", "{'ops':[{'op':'set_properties','properties':{}}]}");
    assert_int_equal(json_object_size(jget(t, "properties")), 0);
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld AND"
                          " table_id = %lld AND end_snapshot IS NULL AND properties = '{}'::jsonb",
                          (long long)cid, (long long)t_id),
                     1);
    /* Properties are versioned: the first map at its snapshot. */
    json_t *g = api_get_json(
        &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/props?snapshot=%lld", (long long)s1);
    assert_int_equal(json_object_size(jget(g, "properties")), 3);
    assert_string_equal(jstr(jget(g, "properties"), "hoglake"), "not a prefix");
    json_decref(g);
    g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/props?snapshot=%lld",
                     (long long)s1 - 1);
    assert_int_equal(json_object_size(jget(g, "properties")), 0);
    json_decref(g);

    static const char *const bad_keys[] = {
        "comment", "location", "format", "partitioning", "sorted_by", "hoglake.x",
        "trino.y", "Upper",    "1abc",   "_x",           "a b",       "",
    };
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
        char ops_text[256], needle[64];
        snprintf(ops_text, sizeof ops_text,
                 "{'ops':[{'op':'set_properties','properties':{'ok':'1','%s':'v'}}]}", bad_keys[i]);
        snprintf(needle, sizeof needle, "key '%s'", bad_keys[i]);
        alter_fails("props", ops_text, 422, "validation", needle);
    }
    char long_key[140];
    memset(long_key, 'k', 129);
    long_key[129] = '\0';
    json_t *props = json_object();
    json_object_set_new(props, long_key, json_string("v"));
    struct http_result r;
    api_send(&r, &srv, "POST",
             jpack("{s:[{s:s,s:o}]}", "ops", "op", "set_properties", "properties", props),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables/props/alter");
    expect_error(&r, 422, "validation");
    http_result_free(&r);

    /* At most 100 keys; values at most 4096 characters. */
    for (int count = 100; count <= 101; count++) {
        props = json_object();
        for (int i = 0; i < count; i++) {
            char k[16];
            snprintf(k, sizeof k, "k%03d", i);
            json_object_set_new(props, k, json_string("v"));
        }
        int64_t h0 = head_of(CAT);
        api_send(&r, &srv, "POST",
                 jpack("{s:[{s:s,s:o}]}", "ops", "op", "set_properties", "properties", props),
                 "/v1/catalogs/" CAT "/namespaces/" NS "/tables/props/alter");
        if (count == 100) {
            expect_status(&r, 200);
            assert_int_equal(json_object_size(jget(r.json, "properties")), 100);
            expect_same_as_get(CAT, r.json);
        } else {
            expect_error(&r, 422, "validation");
            expect_detail_contains(&r, "at most 100");
            assert_int_equal(head_of(CAT), h0);
        }
        http_result_free(&r);
    }
    for (int len = 4096; len <= 4097; len++) {
        char *v = malloc((size_t)len + 1);
        assert_non_null(v);
        memset(v, 'v', (size_t)len);
        v[len] = '\0';
        api_send(
            &r, &srv, "POST",
            jpack("{s:[{s:s,s:{s:s}}]}", "ops", "op", "set_properties", "properties", "big", v),
            "/v1/catalogs/" CAT "/namespaces/" NS "/tables/props/alter");
        free(v);
        if (len == 4096) {
            expect_status(&r, 200);
        } else {
            expect_error(&r, 422, "validation");
            expect_detail_contains(&r, "4096");
        }
        http_result_free(&r);
    }
    /* Engines read write.format.default; it can only name Parquet. */
    t = alter_ok("props", "{'ops':[{'op':'set_properties','properties':{'write.format.default':"
                          "'parquet'}}]}");
    assert_string_equal(jstr(jget(t, "properties"), "write.format.default"), "parquet");
    json_decref(t);
    alter_fails("props",
                "{'ops':[{'op':'set_properties','properties':{'write.format.default':"
                "'orc'}}]}",
                422, "validation", "write.format.default");
    alter_fails("props", "{'ops':[{'op':'set_properties','properties':{'a':1}}]}", 400,
                "bad_request", NULL);
    alter_fails("props", "{'ops':[{'op':'set_properties','properties':null}]}", 400, "bad_request",
                NULL);
    alter_fails("props", "{'ops':[{'op':'set_properties'}]}", 400, "bad_request", "properties");
}

/* ---- paths and malformed requests ---- */

static void path_errors(void **state)
{
    (void)state;
    create_quiet("{'name':'paths','columns':[{'name':'id','type':'int'},"
                 "{'name':'l','type':'list','children':[{'name':'element','type':'struct',"
                 "'children':[{'name':'x','type':'int'},{'name':'y','type':'int'}]}]},"
                 "{'name':'m','type':'map','children':[{'name':'key','type':'string',"
                 "'nullable':false},{'name':'value','type':'int'}]},"
                 "{'name':'s','type':'struct','children':[{'name':'a','type':'int'},"
                 "{'name':'b','type':'int'}]}]}");
    static const struct {
        const char *ops, *needle;
    } cases[] = {
        {"{'op':'drop_column','name':'l.element'}", "cannot address 'l.element': 'l' is a 'list'"},
        {"{'op':'drop_column','name':'l.element.x'}", "'l' is a 'list'"},
        {"{'op':'rename_column','from':'l.element.x','to':'z'}", "'l' is a 'list'"},
        {"{'op':'rename_column','from':'m.value','to':'v'}", "'m' is a 'map'"},
        {"{'op':'promote_column','name':'m.value','to':'long'}", "'m' is a 'map'"},
        {"{'op':'set_column_comment','name':'m.key','comment':'k'}", "'m' is a 'map'"},
        {"{'op':'drop_column','name':'id.x'}",
         "cannot address 'id.x': 'id' is 'int', not a struct"},
        {"{'op':'drop_column','name':'s.a.q'}", "'s.a' is 'int', not a struct"},
        {"{'op':'drop_column','name':'nope'}", "column 'nope' does not exist"},
        {"{'op':'drop_column','name':'s.nope'}", "struct 's' has no field 'nope'"},
        {"{'op':'drop_column','name':'s..a'}", "none empty"},
        {"{'op':'drop_column','name':''}", "none empty"},
        {"{'op':'drop_column','name':'.s'}", "none empty"},
        {"{'op':'drop_column','name':'s.'}", "none empty"},
        {"{'op':'add_column','parent':'l','column':{'name':'z','type':'int'}}", "'l'"},
        {"{'op':'add_column','parent':'l.element','column':{'name':'z','type':'int'}}",
         "'l' is a 'list'"},
        {"{'op':'add_column','parent':'m','column':{'name':'z','type':'int'}}", "'m'"},
        {"{'op':'add_column','parent':'id','column':{'name':'z','type':'int'}}", "not a struct"},
        {"{'op':'add_column','parent':'nope','column':{'name':'z','type':'int'}}",
         "column 'nope' does not exist"},
        {"{'op':'add_column','parent':'s.nope','column':{'name':'z','type':'int'}}",
         "has no field 'nope'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char ops_text[512];
        snprintf(ops_text, sizeof ops_text, "{'ops':[%s]}", cases[i].ops);
        alter_fails("paths", ops_text, 422, "validation", cases[i].needle);
    }
    /* parent is for the add ops only. */
    static const char *const with_parent[] = {
        "{'op':'drop_column','name':'a','parent':'s'}",
        "{'op':'rename_column','from':'a','to':'c','parent':'s'}",
        "{'op':'promote_column','name':'a','to':'long','parent':'s'}",
        "{'op':'set_column_comment','name':'a','comment':'x','parent':'s'}",
        "{'op':'set_properties','properties':{},'parent':'s'}",
    };
    for (size_t i = 0; i < sizeof with_parent / sizeof with_parent[0]; i++) {
        char ops_text[512];
        snprintf(ops_text, sizeof ops_text, "{'ops':[%s]}", with_parent[i]);
        alter_fails("paths", ops_text, 422, "validation", "does not take 'parent'");
    }
    /* Struct interiors are addressable at any depth. */
    json_t *t = alter_ok("paths", "{'ops':[{'op':'rename_column','from':'s.a','to':'aa'},"
                                  "{'op':'promote_column','name':'s.aa','to':'long'},"
                                  "{'op':'drop_column','name':'s.b'},"
                                  "{'op':'add_column','parent':'s','column':{'name':'b',"
                                  "'type':'string'}}]}");
    assert_string_equal(jstr(colpath(t, "s.aa"), "type"), "long");
    assert_int_equal(jint(colpath(t, "s.b"), "field_id"), 12);
    json_decref(t);
}

static void malformed_alters(void **state)
{
    (void)state;
    create_quiet("{'name':'mal','columns':[{'name':'a','type':'int'},{'name':'b','type':'int'}]}");
    static const struct {
        const char *body, *needle;
    } cases[] = {
        {"{'ops':[{'op':'frobnicate'}]}", "unknown alter op 'frobnicate'"},
        {"{'ops':[{'op':'ADD_COLUMN','column':{'name':'c','type':'int'}}]}", "unknown alter op"},
        {"{'ops':[]}", "at least one operation"},
        {"{}", "ops"},
        {"{'ops':{}}", "ops"},
        {"{'ops':null}", "ops"},
        {"{'ops':[1]}", NULL},
        {"{'ops':[{'name':'a'}]}", "op"},
        {"{'ops':[{'op':7}]}", NULL},
        {"{'ops':[{'op':'drop_column'}]}", "name"},
        {"{'ops':[{'op':'drop_column','name':'b','extra':1}]}", "unknown field"},
        {"{'ops':[{'op':'add_column'}]}", "column"},
        {"{'ops':[{'op':'add_column','column':'c'}]}", NULL},
        {"{'ops':[{'op':'promote_column','name':'a'}]}", "to"},
        {"{'ops':[{'op':'drop_column','name':'b'}],'read_snapshot':1}", "unknown field"},
        {"{'ops':[{'op':'drop_column','name':'b'},{'op':'nope'}]}", "unknown alter op 'nope'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        alter_fails("mal", cases[i].body, 400, "bad_request", cases[i].needle);
    alter_fails_at(CAT, "mal", "?bogus=1", "{'ops':[{'op':'drop_column','name':'b'}]}", 400,
                   "bad_request", "bogus");
    alter_fails("missing", "{'ops':[{'op':'drop_column','name':'b'}]}", 404, "not_found",
                "missing");
    struct http_result r;
    api_send_text(&r, &srv, "POST", "{\"ops\":[{\"op\":\"drop_column\",\"name\":\"b\"}]}",
                  "/v1/catalogs/" CAT "/namespaces/nope/tables/mal/alter");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    api_send_text(&r, &srv, "POST", "{\"ops\":[{\"op\":\"drop_column\",\"name\":\"b\"}]}",
                  "/v1/catalogs/nocat/namespaces/" NS "/tables/mal/alter");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    /* Nothing was applied. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld AND end_snapshot IS NULL",
                          (long long)cat_id(CAT), (long long)tid("mal")),
                     2);
}

/* ---- one request, one snapshot, all or nothing ---- */

static void ops_apply_in_order_as_one_snapshot(void **state)
{
    (void)state;
    create_quiet("{'name':'seq','columns':[{'name':'a','type':'int'}]}");
    int64_t cid = cat_id(CAT), t_id = tid("seq");
    int64_t h0 = head_of(CAT);
    int64_t sv0 =
        sqli("SELECT schema_version FROM hog_catalog WHERE catalog_id = %lld", (long long)cid);
    json_t *t = alter_ok(
        "seq",
        "{'ops':[{'op':'add_column','column':{'name':'tmp','type':'int'}},"
        "{'op':'rename_column','from':'tmp','to':'final'},"
        "{'op':'promote_column','name':'final','to':'long'},"
        "{'op':'set_column_comment','name':'final','comment':'c'},"
        "{'op':'add_column','column':{'name':'s','type':'struct','children':["
        "{'name':'x','type':'int'}]}},"
        "{'op':'add_column','parent':'s','column':{'name':'y','type':'int'}},"
        "{'op':'rename_column','from':'s.x','to':'x2'},"
        "{'op':'add_column','column':{'name':'p','type':'int'}},"
        "{'op':'set_table_comment','comment':'seq table'},"
        "{'op':'set_properties','properties':{'k':'v'}},"
        "{'op':'set_partition_spec','fields':[{'source_field_id':1,'transform':'identity'}]},"
        "{'op':'set_sort_order','sort_fields':[{'source_field_id':2}]},"
        "{'op':'set_partition_spec','fields':[{'source_field_id':1,'transform':'bucket',"
        "'transform_param':4}]}]}");
    int64_t s = jint(t, "snapshot_id");
    assert_int_equal(s, h0 + 1);
    json_t *fin = colpath(t, "final");
    assert_int_equal(jint(fin, "field_id"), 2);
    assert_int_equal(jint(fin, "ordinal"), 1);
    assert_string_equal(jstr(fin, "type"), "long");
    assert_string_equal(jstr(fin, "comment"), "c");
    assert_int_equal(jint(colpath(t, "s"), "field_id"), 3);
    assert_int_equal(jint(colpath(t, "s.x2"), "field_id"), 4);
    assert_int_equal(jint(colpath(t, "s.x2"), "ordinal"), 0);
    assert_int_equal(jint(colpath(t, "s.y"), "field_id"), 5);
    assert_int_equal(jint(colpath(t, "s.y"), "ordinal"), 1);
    assert_int_equal(jint(colpath(t, "p"), "field_id"), 6);
    assert_string_equal(jstr(t, "comment"), "seq table");
    assert_int_equal(jint(jget(t, "partition_spec"), "spec_id"), 1);
    assert_string_equal(
        jstr(json_array_get(jget(jget(t, "partition_spec"), "fields"), 0), "transform"), "bucket");
    assert_int_equal(jint(jget(t, "sort_spec"), "sort_id"), 1);
    json_decref(t);

    /* One snapshot, one change, schema_version + 1. */
    assert_int_equal(
        sqli("SELECT schema_version FROM hog_catalog WHERE catalog_id = %lld", (long long)cid),
        sv0 + 1);
    expect_sql("table_altered",
               "SELECT string_agg(kind || CASE WHEN object_id = %lld THEN '' ELSE '?' END, ',')"
               " FROM hog_snapshot_change WHERE catalog_id = %lld AND snapshot_id = %lld",
               (long long)t_id, (long long)cid, (long long)s);
    /* Rows created in this request are written once, never ended. */
    expect_sql("2:final:long,3:s:struct,4:x2:int,5:y:int,6:p:int",
               "SELECT string_agg(field_id || ':' || name || ':' || col_type, ',' ORDER BY"
               " field_id) FROM hog_column WHERE catalog_id = %lld AND table_id = %lld AND"
               " begin_snapshot = %lld AND end_snapshot IS NULL",
               (long long)cid, (long long)t_id, (long long)s);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld",
                          (long long)cid, (long long)t_id),
                     6);
    assert_int_equal(sqli("SELECT count(*) FROM hog_partition_spec WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)cid, (long long)t_id),
                     1);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)cid, (long long)t_id),
                     2);
    assert_int_equal(next_field_id("seq"), 7);

    /* A failing later op refuses the whole request. */
    alter_fails("seq",
                "{'ops':[{'op':'add_column','column':{'name':'good','type':'int'}},"
                "{'op':'rename_table','new_name':'seq2'},"
                "{'op':'set_table_comment','comment':'zzz'},"
                "{'op':'set_partition_spec','fields':[]},"
                "{'op':'drop_column','name':'nope'}]}",
                422, "validation", "ops[4]");
    alter_fails("seq",
                "{'ops':[{'op':'drop_column','name':'p'},"
                "{'op':'rename_column','from':'p','to':'q'}]}",
                422, "validation", "ops[1]: column 'p' does not exist");
    alter_fails("seq", "{'ops':[{'op':'drop_column','name':'p'},{'op':'bogus'}]}", 400,
                "bad_request", "ops[1]");
    json_t *g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/seq");
    assert_null(find_column(g, "good", false));
    assert_non_null(find_column(g, "p", false));
    assert_string_equal(jstr(g, "comment"), "seq table");
    assert_int_equal(jint(jget(g, "partition_spec"), "spec_id"), 1);
    json_decref(g);
    assert_int_equal(next_field_id("seq"), 7);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld",
                          (long long)cid, (long long)t_id),
                     6);
    assert_int_equal(sqli("SELECT count(*) FROM hog_table_version WHERE catalog_id = %lld AND"
                          " name = 'seq2'",
                          (long long)cid),
                     0);
}

/* ---- guards ---- */

static void upcase_hex(char *s)
{
    for (char *p = s; *p; p++)
        if (*p >= 'a' && *p <= 'f')
            *p = (char)(*p - 'a' + 'A');
}

static void expected_table_uuid_guard(void **state)
{
    (void)state;
    json_t *t = create("{'name':'inc','columns':[{'name':'a','type':'int'},"
                       "{'name':'b','type':'int'}]}");
    char old_uuid[64], q[160];
    snprintf(old_uuid, sizeof old_uuid, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    snprintf(q, sizeof q, "?expected_table_uuid=%s", old_uuid);
    json_decref(alter_ok_at(CAT, "inc", q, "{'ops':[{'op':'set_table_comment','comment':'x'}]}"));
    upcase_hex(q + strlen("?expected_table_uuid="));
    json_decref(alter_ok_at(CAT, "inc", q, "{'ops':[{'op':'set_table_comment','comment':'y'}]}"));

    /* Drop and recreate: a writer holding the old incarnation is refused. */
    struct http_result r;
    api_delete(&r, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/inc");
    expect_status(&r, 200);
    http_result_free(&r);
    create_quiet("{'name':'inc','columns':[{'name':'a','type':'int'},{'name':'b','type':'int'}]}");
    snprintf(q, sizeof q, "?expected_table_uuid=%s", old_uuid);
    int64_t h0 = head_of(CAT);
    alter_send(&r, CAT, "inc", q, "{'ops':[{'op':'drop_column','name':'b'}]}");
    expect_error(&r, 409, "table_recreated");
    json_t *tables = jget(r.json, "tables");
    assert_int_equal(json_array_size(tables), 1);
    assert_string_equal(json_string_value(json_array_get(tables, 0)), NS ".inc");
    assert_string_equal(jstr(r.json, "retry"), "re-prepare");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), h0);
    alter_fails_at(CAT, "inc", "?expected_table_uuid=00000000-0000-4000-8000-000000000000",
                   "{'ops':[{'op':'drop_column','name':'b'}]}", 409, "table_recreated", "inc");
    alter_fails_at(CAT, "inc", "?expected_table_uuid=nope",
                   "{'ops':[{'op':'drop_column','name':'b'}]}", 400, "bad_request",
                   "expected_table_uuid");
    alter_fails_at(CAT, "inc", "?expected_table_uuid=", "{'ops':[{'op':'drop_column','name':'b'}]}",
                   400, "bad_request", NULL);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld AND end_snapshot IS NULL",
                          (long long)cat_id(CAT), (long long)tid("inc")),
                     2);
}

static void read_snapshot_guard(void **state)
{
    (void)state;
    create_quiet("{'name':'g1','columns':[{'name':'a','type':'int'}]}");
    create_quiet("{'name':'g2','columns':[{'name':'a','type':'int'}]}");
    int64_t r0 = head_of(CAT);
    alter_quiet("g1", "{'ops':[{'op':'add_column','column':{'name':'b','type':'int'}}]}");
    int64_t r1 = head_of(CAT);

    /* A DDL on the table after the read: not retryable as is. */
    char q[64];
    snprintf(q, sizeof q, "?read_snapshot=%lld", (long long)r0);
    struct http_result r;
    alter_send(&r, CAT, "g1", q,
               "{'ops':[{'op':'add_column','column':{'name':'c','type':'int'}}]}");
    expect_error(&r, 409, "ddl_since_read_snapshot");
    json_t *tables = jget(r.json, "tables");
    assert_int_equal(json_array_size(tables), 1);
    assert_string_equal(json_string_value(json_array_get(tables, 0)), NS ".g1");
    assert_int_equal(jint(r.json, "read_snapshot"), r0);
    assert_string_equal(jstr(r.json, "retry"), "re-prepare");
    http_result_free(&r);
    assert_int_equal(head_of(CAT), r1);
    /* Renames count as DDL too. */
    alter_quiet("g2", "{'ops':[{'op':'rename_table','new_name':'g2r'}]}");
    snprintf(q, sizeof q, "?read_snapshot=%lld", (long long)r1);
    alter_fails_at(CAT, "g2r", q, "{'ops':[{'op':'set_table_comment','comment':'x'}]}", 409,
                   "ddl_since_read_snapshot", NULL);

    /* Reading at the table's last DDL is fine. */
    json_decref(alter_ok_at(CAT, "g1", q,
                            "{'ops':[{'op':'add_column','column':{'name':'c','type':'int'}}]}"));
    int64_t r2 = head_of(CAT);
    /* Another table's DDL does not conflict. */
    alter_quiet("g2r", "{'ops':[{'op':'add_column','column':{'name':'z','type':'int'}}]}");
    snprintf(q, sizeof q, "?read_snapshot=%lld", (long long)r2);
    json_decref(alter_ok_at(CAT, "g1", q,
                            "{'ops':[{'op':'add_column','column':{'name':'d','type':'int'}}]}"));
    /* Nor does a data commit on the table itself. */
    int64_t r3 = head_of(CAT);
    alter_quiet("g2r", "{'ops':[{'op':'set_table_comment','comment':'bump'}]}");
    sql_exec("INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind, object_id) VALUES"
             " (%lld, %lld, 'table_inserted_into', %lld)",
             (long long)cat_id(CAT), (long long)head_of(CAT), (long long)tid("g1"));
    snprintf(q, sizeof q, "?read_snapshot=%lld", (long long)r3);
    json_decref(alter_ok_at(CAT, "g1", q, "{'ops':[{'op':'set_table_comment','comment':'ok'}]}"));
    /* read_snapshot at head. */
    snprintf(q, sizeof q, "?read_snapshot=%lld", (long long)head_of(CAT));
    json_decref(alter_ok_at(CAT, "g1", q, "{'ops':[{'op':'set_table_comment','comment':'ok2'}]}"));

    /* Out of range and malformed. */
    snprintf(q, sizeof q, "?read_snapshot=%lld", (long long)head_of(CAT) + 1);
    alter_fails_at(CAT, "g1", q, "{'ops':[{'op':'set_table_comment','comment':'x'}]}", 422,
                   "validation", "read_snapshot");
    alter_fails_at(CAT, "g1", "?read_snapshot=-1",
                   "{'ops':[{'op':'set_table_comment','comment':'x'}]}", 422, "validation",
                   "read_snapshot");
    alter_fails_at(CAT, "g1", "?read_snapshot=abc",
                   "{'ops':[{'op':'set_table_comment','comment':'x'}]}", 400, "bad_request",
                   "read_snapshot");
    alter_fails_at(CAT, "g1", "?read_snapshot=1.5",
                   "{'ops':[{'op':'set_table_comment','comment':'x'}]}", 400, "bad_request",
                   "read_snapshot");
    /* The incarnation guard and read_snapshot together. */
    char q2[200];
    struct http_result g;
    api_get(&g, &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/g1");
    expect_status(&g, 200);
    snprintf(q2, sizeof q2, "?expected_table_uuid=%s&read_snapshot=%lld",
             jstr(g.json, "table_uuid"), (long long)jint(g.json, "read_snapshot_id"));
    http_result_free(&g);
    json_decref(alter_ok_at(CAT, "g1", q2, "{'ops':[{'op':'set_table_comment','comment':'z'}]}"));

    /* A table created after the read did not exist when it was read. */
    int64_t before = head_of(CAT);
    create_quiet("{'name':'g3','columns':[{'name':'a','type':'int'}]}");
    snprintf(q, sizeof q, "?read_snapshot=%lld", (long long)before);
    alter_fails_at(CAT, "g3", q, "{'ops':[{'op':'set_table_comment','comment':'x'}]}", 409,
                   "ddl_since_read_snapshot", NULL);
}

static void read_snapshot_below_the_floor(void **state)
{
    (void)state;
    make_catalog(&srv, "afloor");
    make_namespace(&srv, "afloor", NS); /* 1 */
    json_decref(
        create_in("afloor", NS, "{'name':'ft','columns':[{'name':'a','type':'int'}]}")); /* 2 */
    json_decref(alter_ok_at("afloor", "ft", NULL,
                            "{'ops':[{'op':'add_column','column':"
                            "{'name':'b','type':'int'}}]}")); /* 3 */
    json_decref(alter_ok_at("afloor", "ft", NULL,
                            "{'ops':[{'op':'add_column','column':"
                            "{'name':'c','type':'int'}}]}")); /* 4 */
    assert_int_equal(head_of("afloor"), 4);
    sql_exec("UPDATE hog_catalog SET earliest_snapshot_id = 3 WHERE name = 'afloor'");
    alter_fails_at("afloor", "ft", "?read_snapshot=2",
                   "{'ops':[{'op':'set_table_comment','comment':'x'}]}", 410, "expired", "floor");
    alter_fails_at("afloor", "ft", "?read_snapshot=0",
                   "{'ops':[{'op':'set_table_comment','comment':'x'}]}", 410, "expired", NULL);
    alter_fails_at("afloor", "ft", "?read_snapshot=3",
                   "{'ops':[{'op':'set_table_comment','comment':'x'}]}", 409,
                   "ddl_since_read_snapshot", NULL);
    json_decref(alter_ok_at("afloor", "ft", "?read_snapshot=4",
                            "{'ops':[{'op':'set_table_comment','comment':'x'}]}"));
}

static void idless_files_guard(void **state)
{
    (void)state;
    create_quiet("{'name':'idl','columns':[{'name':'a','type':'int'},{'name':'b','type':'int'},"
                 "{'name':'c','type':'int'},{'name':'d','type':'int'},"
                 "{'name':'s','type':'struct','children':[{'name':'x','type':'int'},"
                 "{'name':'y','type':'int'}]}]}");
    create_quiet("{'name':'idl_other','columns':[{'name':'a','type':'int'}]}");
    /* An id-less file elsewhere is no obstacle. */
    int64_t other = insert_file("idl_other", "pending", true);
    int64_t f = insert_file("idl", "provided", true);
    alter_fails("idl", "{'ops':[{'op':'add_column','column':{'name':'n','type':'int'}}]}", 409,
                "idless_files_present", "cannot add column 'n': 1 id-less");
    alter_fails("idl",
                "{'ops':[{'op':'add_column_with_metadata','column':{'name':'n',"
                "'type':'int','comment':'c'}}]}",
                409, "idless_files_present", NULL);
    alter_fails("idl",
                "{'ops':[{'op':'add_column','parent':'s','column':{'name':'n',"
                "'type':'int'}}]}",
                409, "idless_files_present", NULL);
    alter_fails("idl", "{'ops':[{'op':'rename_column','from':'a','to':'a2'}]}", 409,
                "idless_files_present", "cannot rename column 'a' to 'a2'");
    alter_fails("idl", "{'ops':[{'op':'rename_column','from':'s.x','to':'x2'}]}", 409,
                "idless_files_present", NULL);
    /* Renaming a column to its own name changes nothing and is allowed. */
    alter_quiet("idl", "{'ops':[{'op':'rename_column','from':'a','to':'a'}]}");
    assert_int_equal(column_rows("idl", 1), 1);
    /* A guarded op anywhere in the request refuses all of it. */
    alter_fails("idl",
                "{'ops':[{'op':'drop_column','name':'d'},"
                "{'op':'rename_column','from':'a','to':'a2'}]}",
                409, "idless_files_present", NULL);
    /* Drops and other ops do not bind columns by name. */
    json_t *t = alter_ok("idl", "{'ops':[{'op':'drop_column','name':'d'}]}");
    assert_null(find_column(t, "d", false));
    json_decref(t);
    alter_quiet("idl", "{'ops':[{'op':'drop_column','name':'s.y'},"
                       "{'op':'promote_column','name':'a','to':'long'},"
                       "{'op':'set_table_comment','comment':'still fine'}]}");
    end_file(f);
    alter_quiet("idl", "{'ops':[{'op':'add_column','column':{'name':'n1','type':'int'}},"
                       "{'op':'rename_column','from':'b','to':'b1'}]}");

    /* Files whose stats (and so ids) are not hydrated yet count too. */
    f = insert_file("idl", "pending", false);
    alter_fails("idl", "{'ops':[{'op':'add_column','column':{'name':'n2','type':'int'}}]}", 409,
                "idless_files_present", "1 not-yet-hydrated");
    alter_fails("idl", "{'ops':[{'op':'rename_column','from':'b1','to':'b2'}]}", 409,
                "idless_files_present", NULL);
    alter_quiet("idl", "{'ops':[{'op':'drop_column','name':'c'}]}");
    sql_exec("UPDATE hog_data_file SET stats_state = 'failed' WHERE catalog_id = %lld AND"
             " data_file_id = %lld",
             (long long)cat_id(CAT), (long long)f);
    alter_fails("idl", "{'ops':[{'op':'add_column','column':{'name':'n2','type':'int'}}]}", 409,
                "idless_files_present", NULL);
    sql_exec("UPDATE hog_data_file SET stats_state = 'provided' WHERE catalog_id = %lld AND"
             " data_file_id = %lld",
             (long long)cat_id(CAT), (long long)f);
    t = alter_ok("idl", "{'ops':[{'op':'add_column','column':{'name':'n2','type':'int'}},"
                        "{'op':'rename_column','from':'b1','to':'b2'}]}");
    assert_non_null(find_column(t, "n2", false));
    assert_non_null(find_column(t, "b2", false));
    assert_int_equal(jint(t, "file_count"), 1);
    assert_int_equal(jint(t, "record_count"), 10);
    json_decref(t);
    end_file(other);
}

static void required_columns_over_live_files(void **state)
{
    (void)state;
    create_quiet("{'name':'req','columns':[{'name':'a','type':'int'},"
                 "{'name':'s','type':'struct','children':[{'name':'x','type':'int'}]}]}");
    /* An empty table may gain required columns. */
    json_t *t = alter_ok("req", "{'ops':[{'op':'add_column','column':{'name':'r','type':'int',"
                                "'nullable':false}},{'op':'add_column','parent':'s','column':"
                                "{'name':'rx','type':'int','nullable':false}}]}");
    assert_true(json_is_false(jget(colpath(t, "r"), "nullable")));
    assert_true(json_is_false(jget(colpath(t, "s.rx"), "nullable")));
    json_decref(t);
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld AND NOT nullable",
                          (long long)cat_id(CAT), (long long)tid("req")),
                     2);
    int64_t f = insert_file("req", "provided", false);
    alter_fails("req",
                "{'ops':[{'op':'add_column','column':{'name':'r2','type':'int',"
                "'nullable':false}}]}",
                422, "validation", "cannot add required column 'r2'");
    alter_fails("req",
                "{'ops':[{'op':'add_column','parent':'s','column':{'name':'r3',"
                "'type':'string','nullable':false}}]}",
                422, "validation", "'s.r3'");
    alter_fails("req",
                "{'ops':[{'op':'add_column_with_metadata','column':{'name':'r4',"
                "'type':'struct','nullable':false,'children':[{'name':'q','type':'int'}]}}]}",
                422, "validation", "required");
    t = alter_ok("req", "{'ops':[{'op':'add_column','column':{'name':'opt','type':'int'}},"
                        "{'op':'add_column','column':{'name':'opt2','type':'int',"
                        "'nullable':true}}]}");
    assert_true(json_is_true(jget(colpath(t, "opt"), "nullable")));
    json_decref(t);
    /* Once the file is gone the table is empty again. */
    end_file(f);
    t = alter_ok("req", "{'ops':[{'op':'add_column','column':{'name':'r2','type':'int',"
                        "'nullable':false}}]}");
    assert_true(json_is_false(jget(colpath(t, "r2"), "nullable")));
    assert_int_equal(jint(t, "file_count"), 0);
    json_decref(t);
}

/* The table's column rows: name, nullable and whether live, by field id. */
#define DNN_ROWS_SQL                                                                               \
    "SELECT string_agg(field_id || ':' || nullable || CASE WHEN end_snapshot IS NULL THEN"         \
    " '@live' ELSE '@ended' END, ',' ORDER BY field_id, begin_snapshot) FROM hog_column"           \
    " WHERE catalog_id = %lld AND table_id = %lld"

static void drop_not_null_relaxes_required_columns(void **state)
{
    (void)state;
    create_quiet("{'name':'dnn','columns':[{'name':'id','type':'long','nullable':false},"
                 "{'name':'title','type':'string','nullable':false},"
                 "{'name':'s','type':'struct','nullable':false,'children':[{'name':'x','type':"
                 "'int','nullable':false},{'name':'y','type':'int','nullable':false}]},"
                 "{'name':'note','type':'string'},"
                 "{'name':'m','type':'map','nullable':false,'children':[{'name':'key','type':"
                 "'string','nullable':false},{'name':'value','type':'int','nullable':false}]},"
                 "{'name':'l','type':'list','children':[{'name':'element','type':'int',"
                 "'nullable':false}]}],"
                 "'partition_fields':[{'source_field_id':1,'transform':'identity'}],"
                 "'sort_fields':[{'source_field_id':2}]}");
    /* Unlike adding a required column, relaxing one is fine over live files. */
    insert_file("dnn", "provided", false);
    int64_t cid = cat_id(CAT), t_id = tid("dnn");
    json_t *t = alter_ok("dnn", "{'ops':[{'op':'drop_not_null','name':'title'}]}");
    int64_t s1 = jint(t, "snapshot_id");
    json_t *title = colpath(t, "title");
    assert_true(json_is_true(jget(title, "nullable")));
    assert_int_equal(jint(title, "field_id"), 2);
    assert_string_equal(jstr(title, "type"), "string");
    assert_true(json_is_false(jget(colpath(t, "id"), "nullable")));
    json_decref(t);
    /* Only that column's row is re-versioned. */
    expect_sql("2:false@ended,2:true@live",
               "SELECT string_agg(field_id || ':' || nullable || CASE WHEN end_snapshot = %lld"
               " THEN '@ended' WHEN end_snapshot IS NULL AND begin_snapshot = %lld THEN '@live'"
               " ELSE '@?' END, ',' ORDER BY begin_snapshot) FROM hog_column WHERE catalog_id ="
               " %lld AND table_id = %lld AND field_id = 2",
               (long long)s1, (long long)s1, (long long)cid, (long long)t_id);
    assert_int_equal(column_rows("dnn", 1), 1);
    /* A read before the alter still sees it required. */
    json_t *g = api_get_json(
        &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/dnn?snapshot=%lld", (long long)s1 - 1);
    assert_true(json_is_false(jget(colpath(g, "title"), "nullable")));
    json_decref(g);

    /* A nested field by its path, a struct, a partition source, a map's
     * value and a list's element at once; the specs are untouched. */
    t = alter_ok("dnn", "{'ops':[{'op':'drop_not_null','name':'s.x'},"
                        "{'op':'drop_not_null','name':'s'},{'op':'drop_not_null','name':'id'},"
                        "{'op':'drop_not_null','name':'m'},{'op':'drop_not_null','name':'m.value'},"
                        "{'op':'drop_not_null','name':'l.element'}]}");
    assert_true(json_is_true(jget(colpath(t, "s.x"), "nullable")));
    assert_true(json_is_false(jget(colpath(t, "s.y"), "nullable")));
    assert_true(json_is_true(jget(colpath(t, "s"), "nullable")));
    assert_true(json_is_true(jget(colpath(t, "id"), "nullable")));
    assert_true(json_is_true(jget(colpath(t, "m"), "nullable")));
    assert_true(json_is_false(jget(colpath(t, "m.key"), "nullable")));
    assert_true(json_is_true(jget(colpath(t, "m.value"), "nullable")));
    assert_true(json_is_true(jget(colpath(t, "l.element"), "nullable")));
    assert_int_equal(jint(jget(t, "partition_spec"), "spec_id"), 1);
    assert_int_equal(jint(jget(t, "sort_spec"), "sort_id"), 1);
    json_decref(t);
    assert_int_equal(column_rows("dnn", 5), 1); /* s.y */

    /* Already nullable: accepted as a no-op (a retry succeeds), no new row. */
    static const char after[] = "1:false@ended,1:true@live,2:false@ended,2:true@live,"
                                "3:false@ended,3:true@live,4:false@ended,4:true@live,"
                                "5:false@live,6:true@live,7:false@ended,7:true@live,"
                                "8:false@live,9:false@ended,9:true@live,10:true@live,"
                                "11:false@ended,11:true@live";
    expect_sql(after, DNN_ROWS_SQL, (long long)cid, (long long)t_id);
    alter_quiet("dnn", "{'ops':[{'op':'drop_not_null','name':'note'},"
                       "{'op':'drop_not_null','name':'title'}]}");
    expect_sql(after, DNN_ROWS_SQL, (long long)cid, (long long)t_id);

    /* Refusals: typed, and nothing changes (an earlier valid op included). */
    static const struct {
        const char *ops;
        long status;
        const char *code, *needle;
    } refused[] = {
        {"{'op':'drop_not_null','name':'nope'}", 422, "validation", "column 'nope' does not exist"},
        {"{'op':'drop_not_null','name':'_hog_row_id'}", 422, "validation",
         "column '_hog_row_id' does not exist"},
        {"{'op':'drop_not_null','name':'s.nope'}", 422, "validation",
         "struct 's' has no field 'nope'"},
        {"{'op':'drop_not_null','name':'m.key'}", 422, "validation",
         "cannot make 'm.key' nullable: it is a map key, and Iceberg map keys are always "
         "required"},
        {"{'op':'drop_not_null','name':'l.item'}", 422, "validation",
         "'l' is a 'list', whose children are 'element'"},
        {"{'op':'drop_not_null','name':''}", 422, "validation", "none empty"},
        {"{'op':'drop_not_null','name':'s.y','parent':'s'}", 422, "validation",
         "does not take 'parent'"},
        {"{'op':'drop_not_null'}", 400, "bad_request", "missing required field 'name'"},
        {"{'op':'drop_not_null','name':7}", 400, "bad_request", "name"},
        {"{'op':'drop_not_null','name':'s.y','to':'x'}", 400, "bad_request", "unknown field 'to'"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char body[512];
        snprintf(body, sizeof body, "{'ops':[{'op':'drop_not_null','name':'s.y'},%s]}",
                 refused[i].ops);
        alter_fails("dnn", body, refused[i].status, refused[i].code, refused[i].needle);
    }
    expect_sql(after, DNN_ROWS_SQL, (long long)cid, (long long)t_id);
}

static void caps_count_existing_columns(void **state)
{
    (void)state;
    /* Depth: a chain 6 deep, then additions at depths 7, 8 and 9. */
    json_t *c = jpack("{s:s,s:s}", "name", "leaf", "type", "int");
    for (int d = 6; d >= 1; d--) {
        char name[16];
        snprintf(name, sizeof name, "s%d", d);
        c = jpack("{s:s,s:s,s:[o]}", "name", name, "type", "struct", "children", c);
    }
    struct http_result r;
    api_send(&r, &srv, "POST", jpack("{s:s,s:[o]}", "name", "deepalter", "columns", c),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_status(&r, 201);
    http_result_free(&r);
    json_t *t = alter_ok("deepalter", "{'ops':[{'op':'add_column','parent':'s1.s2.s3.s4.s5.s6',"
                                      "'column':{'name':'x','type':'struct','children':["
                                      "{'name':'y','type':'int'}]}}]}");
    assert_non_null(find_column(t, "s1.s2.s3.s4.s5.s6.x.y", false));
    json_decref(t);
    alter_fails("deepalter",
                "{'ops':[{'op':'add_column','parent':'s1.s2.s3.s4.s5.s6.x',"
                "'column':{'name':'z','type':'struct','children':["
                "{'name':'w','type':'int'}]}}]}",
                422, "validation", "nesting depth 9 exceeds the maximum 8");
    alter_fails("deepalter",
                "{'ops':[{'op':'add_column','parent':'s1.s2.s3.s4.s5.s6.x',"
                "'column':{'name':'z','type':'list','children':["
                "{'name':'element','type':'int'}]}}]}",
                422, "validation", "nesting depth 9");
    alter_quiet("deepalter", "{'ops':[{'op':'add_column','parent':'s1.s2.s3.s4.s5.s6.x',"
                             "'column':{'name':'z','type':'int'}}]}");

    /* Nodes: 9998 existing (id + a struct of 9996). */
    json_t *kids = json_array();
    for (int i = 0; i < 9996; i++) {
        char n[16];
        snprintf(n, sizeof n, "f%d", i);
        json_array_append_new(kids, jpack("{s:s,s:s}", "name", n, "type", "int"));
    }
    api_send(&r, &srv, "POST",
             jpack("{s:s,s:[{s:s,s:s},{s:s,s:s,s:o}]}", "name", "widealter", "columns", "name",
                   "id", "type", "long", "name", "wide", "type", "struct", "children", kids),
             "/v1/catalogs/" CAT "/namespaces/" NS "/tables");
    expect_status(&r, 201);
    http_result_free(&r);
    alter_fails("widealter",
                "{'ops':[{'op':'add_column','column':{'name':'x','type':'struct',"
                "'children':[{'name':'a','type':'int'},{'name':'b','type':'int'}]}}]}",
                422, "validation", "too many columns: 10001");
    /* Two ops that together pass the cap. */
    alter_fails("widealter",
                "{'ops':[{'op':'add_column','column':{'name':'x','type':'int'}},"
                "{'op':'add_column','column':{'name':'y','type':'int'}},"
                "{'op':'add_column','column':{'name':'z','type':'int'}}]}",
                422, "validation", "ops[2]");
    alter_quiet("widealter", "{'ops':[{'op':'add_column','column':{'name':'x','type':'int'}},"
                             "{'op':'add_column','parent':'wide','column':{'name':'g',"
                             "'type':'int'}}]}");
    assert_int_equal(sqli("SELECT count(*) FROM hog_column WHERE catalog_id = %lld AND table_id ="
                          " %lld AND end_snapshot IS NULL",
                          (long long)cat_id(CAT), (long long)tid("widealter")),
                     10000);
    alter_fails("widealter", "{'ops':[{'op':'add_column','column':{'name':'y','type':'int'}}]}",
                422, "validation", "too many columns");
    /* A drop frees room. */
    alter_quiet("widealter", "{'ops':[{'op':'drop_column','name':'x'},"
                             "{'op':'add_column','column':{'name':'y','type':'int'}}]}");
    t = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/widealter");
    assert_int_equal(jint(colpath(t, "y"), "field_id"), 10001);
    json_decref(t);
}

/* A broad alter whose response must equal what GET then returns. */
static void alter_response_equals_get(void **state)
{
    (void)state;
    create_quiet("{'name':'same','columns':[{'name':'id','type':'long','nullable':false},"
                 "{'name':'ts','type':'timestamp'},{'name':'amount','type':'decimal',"
                 "'type_params':{'precision':12,'scale':2}},"
                 "{'name':'tags','type':'map','children':[{'name':'key','type':'string',"
                 "'nullable':false},{'name':'value','type':'string'}]},"
                 "{'name':'addr','type':'struct','children':[{'name':'zip','type':'string'}]}]}");
    json_t *t = alter_ok(
        "same", "{'ops':[{'op':'add_column','parent':'addr','column':{'name':'city',"
                "'type':'string','comment':'c'}},"
                "{'op':'rename_column','from':'addr.zip','to':'postcode'},"
                "{'op':'add_column','column':{'name':'f','type':'float'}},"
                "{'op':'promote_column','name':'f','to':'double'},"
                "{'op':'set_partition_spec','fields':[{'source_field_id':2,'transform':'day'},"
                "{'source_field_id':1,'transform':'bucket','transform_param':32}]},"
                "{'op':'set_sort_order','sort_fields':[{'source_field_id':3,'direction':'desc'},"
                "{'source_field_id':8}]},"
                "{'op':'set_table_comment','comment':'tc'},"
                "{'op':'set_properties','properties':{'owner':'me'}},"
                "{'op':'rename_table','new_name':'same2'}]}");
    /* alter_ok compared it with GET already; spot-check the content too. */
    assert_string_equal(jstr(t, "name"), "same2");
    assert_string_equal(jstr(colpath(t, "addr.postcode"), "type"), "string");
    assert_int_equal(jint(colpath(t, "addr.city"), "field_id"), 9);
    assert_int_equal(jint(colpath(t, "f"), "field_id"), 10);
    assert_string_equal(jstr(colpath(t, "f"), "type"), "double");
    assert_int_equal(jint(jget(colpath(t, "amount"), "type_params"), "precision"), 12);
    assert_int_equal(jint(t, "totals_snapshot_id"), jint(t, "snapshot_id"));
    json_decref(t);
    /* And at an explicit snapshot equal to the alter's. */
    int64_t h = head_of(CAT);
    json_t *g = api_get_json(
        &srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/same2?snapshot=%lld", (long long)h);
    json_t *head = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/same2");
    assert_true(json_equal(jget(g, "columns"), jget(head, "columns")));
    assert_true(json_equal(jget(g, "partition_spec"), jget(head, "partition_spec")));
    assert_true(json_equal(jget(g, "sort_spec"), jget(head, "sort_spec")));
    json_decref(g);
    json_decref(head);
}

/* A JSON "\u0000" is valid JSON: a NUL in a comment or a property value
 * is a semantic refusal (422 validation), never stored. */
static void nul_characters_are_refused_as_validation(void **state)
{
    (void)state;
    create_quiet("{'name':'nul','columns':[{'name':'a','type':'int'}]}");
    static const char *const bodies[] = {
        "{\"ops\":[{\"op\":\"set_table_comment\",\"comment\":\"a\\u0000b\"}]}",
        "{\"ops\":[{\"op\":\"set_column_comment\",\"name\":\"a\",\"comment\":\"a\\u0000b\"}]}",
        "{\"ops\":[{\"op\":\"set_properties\",\"properties\":{\"k\":\"a\\u0000b\"}}]}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        int64_t h0 = head_of(CAT);
        struct http_result r;
        api_send_text(&r, &srv, "POST", bodies[i],
                      "/v1/catalogs/" CAT "/namespaces/" NS "/tables/nul/alter");
        expect_error(&r, 422, "validation");
        expect_detail_contains(&r, "NUL");
        http_result_free(&r);
        assert_int_equal(head_of(CAT), h0);
    }
}

static void op_count_limit(void **state)
{
    (void)state;
    create_quiet("{'name':'many','columns':[{'name':'a','type':'int'}]}");
    for (int n = 1000; n <= 1001; n++) {
        json_t *ops = json_array();
        for (int i = 0; i < n; i++) {
            char c[16];
            snprintf(c, sizeof c, "c%d", i);
            json_array_append_new(ops, jpack("{s:s,s:s}", "op", "set_table_comment", "comment", c));
        }
        int64_t h0 = head_of(CAT);
        struct http_result r;
        api_send(&r, &srv, "POST", jpack("{s:o}", "ops", ops),
                 "/v1/catalogs/" CAT "/namespaces/" NS "/tables/many/alter");
        if (n == 1000) {
            expect_status(&r, 200);
            assert_string_equal(jstr(r.json, "comment"), "c999");
            assert_int_equal(head_of(CAT), h0 + 1);
        } else {
            expect_error(&r, 422, "validation");
            expect_detail_contains(&r, "1000");
            assert_int_equal(head_of(CAT), h0);
        }
        http_result_free(&r);
    }
}

/* The primary timestamp column as read at snapshot `snap` (NULL: none). */
static const char *primary_ts_at(int64_t snap, char *out, size_t size)
{
    json_t *g = api_get_json(&srv, "/v1/catalogs/" CAT "/namespaces/" NS "/tables/pt?snapshot=%lld",
                             (long long)snap);
    json_t *v = json_object_get(g, "primary_timestamp_column");
    const char *r = NULL;
    if (v) {
        snprintf(out, size, "%s", jstr(g, "primary_timestamp_column"));
        r = out;
    }
    json_decref(g);
    return r;
}

/* The table's version rows as "<primary field id or ->@<begin>-<end or live>". */
#define PT_VERSIONS_SQL                                                                            \
    "SELECT string_agg(coalesce(primary_timestamp_field_id::text, '-') || '@' ||"                  \
    " begin_snapshot || '-' || coalesce(end_snapshot::text, 'live'), ','"                          \
    " ORDER BY begin_snapshot) FROM hog_table_version WHERE catalog_id = %lld AND"                 \
    " table_id = %lld"

/* set_primary_timestamp_column: one snapshot and one table_altered change
 * per alter, a new version row only when the value changes, the field id
 * followed through renames, drops of it refused, time travel by snapshot. */
static void primary_timestamp_column(void **state)
{
    (void)state;
    create_quiet("{'name':'pt','columns':[{'name':'id','type':'long'},"
                 "{'name':'at','type':'timestamp_ms'},{'name':'d','type':'date'},"
                 "{'name':'n','type':'int'}]}");
    int64_t cid = cat_id(CAT), t_id = tid("pt"), s0 = head_of(CAT);

    json_t *t = alter_ok("pt", "{'ops':[{'op':'set_primary_timestamp_column','column':'at'}]}");
    int64_t s1 = jint(t, "snapshot_id");
    assert_string_equal(jstr(t, "primary_timestamp_column"), "at");
    json_decref(t);
    assert_int_equal(change_rows(CAT, s1, NULL, 0), 1);
    assert_int_equal(change_rows(CAT, s1, "table_altered", t_id), 1);
    char want[200];
    snprintf(want, sizeof want, "-@%lld-%lld,2@%lld-live", (long long)s0, (long long)s1,
             (long long)s1);
    expect_sql(want, PT_VERSIONS_SQL, (long long)cid, (long long)t_id);

    /* A rename carries it (by field id) and adds no version row. */
    t = alter_ok("pt", "{'ops':[{'op':'rename_column','from':'at','to':'created_at'}]}");
    int64_t s2 = jint(t, "snapshot_id");
    assert_string_equal(jstr(t, "primary_timestamp_column"), "created_at");
    json_decref(t);
    expect_sql(want, PT_VERSIONS_SQL, (long long)cid, (long long)t_id);

    /* Refusals consume no snapshot. */
    alter_fails("pt", "{'ops':[{'op':'drop_column','name':'created_at'}]}", 422, "validation",
                "ops[0]: cannot drop column 'created_at': it is the table's primary timestamp "
                "column; clear it first");
    alter_fails("pt", "{'ops':[{'op':'set_primary_timestamp_column','column':'n'}]}", 422,
                "validation", "primary timestamp column 'n' is 'int'");
    alter_fails("pt", "{'ops':[{'op':'set_primary_timestamp_column','column':'at'}]}", 422,
                "validation", "column 'at' does not exist");
    alter_fails("pt", "{'ops':[{'op':'set_primary_timestamp_column'}]}", 400, "bad_request",
                "missing required field 'column'");
    alter_fails("pt", "{'ops':[{'op':'set_primary_timestamp_column','column':['d']}]}", 400,
                "bad_request", "must be a string");
    /* All or nothing: a valid set before a failing op is not kept. */
    alter_fails("pt",
                "{'ops':[{'op':'set_primary_timestamp_column','column':'d'},"
                "{'op':'drop_column','name':'d'}]}",
                422, "validation", "ops[1]: cannot drop column 'd'");

    /* Moving it frees the old column for a drop. */
    t = alter_ok("pt", "{'ops':[{'op':'set_primary_timestamp_column','column':'d'}]}");
    int64_t s3 = jint(t, "snapshot_id");
    assert_string_equal(jstr(t, "primary_timestamp_column"), "d");
    json_decref(t);
    /* Setting the same value again is still one DDL, with no new version. */
    t = alter_ok("pt", "{'ops':[{'op':'set_primary_timestamp_column','column':'d'},"
                       "{'op':'drop_column','name':'created_at'}]}");
    int64_t s4 = jint(t, "snapshot_id");
    assert_string_equal(jstr(t, "primary_timestamp_column"), "d");
    json_decref(t);
    assert_int_equal(change_rows(CAT, s4, NULL, 0), 1);
    snprintf(want, sizeof want, "-@%lld-%lld,2@%lld-%lld,3@%lld-live", (long long)s0, (long long)s1,
             (long long)s1, (long long)s3, (long long)s3);
    expect_sql(want, PT_VERSIONS_SQL, (long long)cid, (long long)t_id);

    /* Clearing it and dropping the column in one alter. */
    t = alter_ok("pt", "{'ops':[{'op':'set_primary_timestamp_column','column':null},"
                       "{'op':'drop_column','name':'d'}]}");
    int64_t s5 = jint(t, "snapshot_id");
    expect_absent(t, "primary_timestamp_column");
    json_decref(t);
    assert_int_equal(change_rows(CAT, s5, "table_altered", t_id), 1);
    assert_int_equal(change_rows(CAT, s5, NULL, 0), 1);

    /* Time travel: each snapshot's value, under that snapshot's names. */
    char buf[64];
    assert_null(primary_ts_at(s0, buf, sizeof buf));
    assert_string_equal(primary_ts_at(s1, buf, sizeof buf), "at");
    assert_string_equal(primary_ts_at(s2, buf, sizeof buf), "created_at");
    assert_string_equal(primary_ts_at(s3, buf, sizeof buf), "d");
    assert_string_equal(primary_ts_at(s4, buf, sizeof buf), "d");
    assert_null(primary_ts_at(s5, buf, sizeof buf));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_column_top_level_and_nested),
        cmocka_unit_test(add_column_with_metadata),
        cmocka_unit_test(field_ids_are_never_reused),
        cmocka_unit_test(drop_column_ends_the_subtree),
        cmocka_unit_test(drop_column_refuses_spec_sources),
        cmocka_unit_test(rename_column_keeps_the_field_id),
        cmocka_unit_test(promote_column_matrix),
        cmocka_unit_test(rename_table),
        cmocka_unit_test(partition_spec_transforms),
        cmocka_unit_test(sort_order),
        cmocka_unit_test(comments),
        cmocka_unit_test(properties),
        cmocka_unit_test(path_errors),
        cmocka_unit_test(malformed_alters),
        cmocka_unit_test(ops_apply_in_order_as_one_snapshot),
        cmocka_unit_test(expected_table_uuid_guard),
        cmocka_unit_test(read_snapshot_guard),
        cmocka_unit_test(read_snapshot_below_the_floor),
        cmocka_unit_test(idless_files_guard),
        cmocka_unit_test(required_columns_over_live_files),
        cmocka_unit_test(drop_not_null_relaxes_required_columns),
        cmocka_unit_test(caps_count_existing_columns),
        cmocka_unit_test(alter_response_equals_get),
        cmocka_unit_test(op_count_limit),
        cmocka_unit_test(nul_characters_are_refused_as_validation),
        cmocka_unit_test(primary_timestamp_column),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
