/* Unit tests for src/lake/schema: building tables from ColumnDef JSON,
 * alter ops, change tracking and the JSON response shapes.
 *
 * Test JSON is written with single quotes for readability; J() turns them
 * into double quotes before parsing (no test string needs a literal '). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "lake/ident.h"
#include "lake/schema.h"
#include "lake/transform.h"
#include "lake/types.h"
#include "util/arena.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ fixture */

struct fx {
    struct arena arena;
    struct lake_table t;
    struct error err;
};

static int fx_setup(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    arena_init(&f->arena, 0);
    lake_table_init(&f->t, &f->arena);
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;
    lake_table_release(&f->t);
    arena_free(&f->arena);
    free(f);
    return 0;
}

/* A fresh, empty table in the same fixture (for loops over many tables). */
static void fx_reset(struct fx *f)
{
    lake_table_release(&f->t);
    arena_free(&f->arena);
    arena_init(&f->arena, 0);
    lake_table_init(&f->t, &f->arena);
    memset(&f->err, 0, sizeof f->err);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

/* ------------------------------------------------------------ helpers */

static json_t *J(const char *text)
{
    size_t n = strlen(text);
    char *s = malloc(n + 1);
    assert_non_null(s);
    for (size_t i = 0; i <= n; i++)
        s[i] = text[i] == '\'' ? '"' : text[i];
    json_error_t e;
    json_t *v = json_loads(s, JSON_DECODE_ANY, &e);
    if (!v)
        fail_msg("bad test JSON (%s): %s", e.text, s);
    free(s);
    return v;
}

/* A JSON string of n copies of `unit`. */
static json_t *long_string(size_t n, const char *unit)
{
    size_t u = strlen(unit);
    char *s = malloc(n * u + 1);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++)
        memcpy(s + i * u, unit, u);
    s[n * u] = '\0';
    json_t *v = json_string(s);
    free(s);
    assert_non_null(v);
    return v;
}

static int create_j(struct fx *f, json_t *columns)
{
    int rc = lake_table_add_columns(&f->t, columns, &f->err);
    json_decref(columns);
    return rc;
}

static int create(struct fx *f, const char *columns)
{
    return create_j(f, J(columns));
}

static int op_j(struct fx *f, json_t *o)
{
    int rc = lake_table_apply_op(&f->t, o, &f->err);
    json_decref(o);
    return rc;
}

static int op(struct fx *f, const char *o)
{
    return op_j(f, J(o));
}

static int ops_j(struct fx *f, json_t *list)
{
    int rc = lake_table_apply_ops(&f->t, list, &f->err);
    json_decref(list);
    return rc;
}

static int ops(struct fx *f, const char *list)
{
    return ops_j(f, J(list));
}

static void check_ok(struct fx *f, int rc, const char *file, int line)
{
    if (rc != 0) {
        print_error("expected success, got rc %d kind %d: %s\n", rc, f->err.code, f->err.msg);
        _fail(file, line);
    }
}

static void check_err(struct fx *f, int rc, enum error_code kind, const char *sub, const char *file,
                      int line)
{
    if (rc == 0) {
        print_error("expected failure kind %d (\"%s\"), got success\n", kind, sub ? sub : "");
        _fail(file, line);
    }
    if (rc != -1) {
        print_error("expected rc -1, got %d\n", rc);
        _fail(file, line);
    }
    if (f->err.code != kind) {
        print_error("expected kind %d, got kind %d: %s\n", kind, f->err.code, f->err.msg);
        _fail(file, line);
    }
    /* Only the id-less refusal carries a typed reason (409 idless_files_present). */
    const char *want_reason = kind == ERR_CONFLICT ? "idless_files_present" : NULL;
    if ((want_reason == NULL) != (f->err.reason == NULL) ||
        (want_reason && strcmp(want_reason, f->err.reason) != 0)) {
        print_error("expected reason %s, got %s\n", want_reason ? want_reason : "(none)",
                    f->err.reason ? f->err.reason : "(none)");
        _fail(file, line);
    }
    if (sub && !strstr(f->err.msg, sub)) {
        print_error("message \"%s\"\n   lacks \"%s\"\n", f->err.msg, sub);
        _fail(file, line);
    }
}

#define OK(f, rc) check_ok((f), (rc), __FILE__, __LINE__)
#define BAD(f, rc, sub) check_err((f), (rc), ERR_MALFORMED, (sub), __FILE__, __LINE__)
#define INVALID(f, rc, sub) check_err((f), (rc), ERR_INVALID, (sub), __FILE__, __LINE__)
#define IDLESS(f, rc, sub) check_err((f), (rc), ERR_CONFLICT, (sub), __FILE__, __LINE__)

static struct lake_column *col_at(struct fx *f, const char *path, const char *file, int line)
{
    struct error e;
    struct lake_column *c = lake_table_find_path(&f->t, path, &e);
    if (!c) {
        print_error("column '%s' not found: %s\n", path, e.msg);
        _fail(file, line);
    }
    return c;
}

#define COL(f, path) col_at((f), (path), __FILE__, __LINE__)

static bool has_path(struct fx *f, const char *path)
{
    struct error e;
    return lake_table_find_path(&f->t, path, &e) != NULL;
}

static void check_json(const json_t *got, const char *want_text, const char *file, int line)
{
    json_t *want = J(want_text);
    if (!got || !json_equal(got, want)) {
        char *g = got ? json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        char *w = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS);
        print_error("JSON mismatch\n  got:  %s\n  want: %s\n", g ? g : "(null)", w);
        free(g);
        free(w);
        json_decref(want);
        _fail(file, line);
    }
    json_decref(want);
}

#define JSON_EQ(got, want) check_json((got), (want), __FILE__, __LINE__)

/* The base table used by the alter tests. Field ids:
 * id 1, name 2, addr 3 (zip 4, city 5), tags 6 (element 7),
 * attrs 8 (key 9, value 10), v 11, n 12, f 13, ts 14, d 15, amount 16. */
static const char *const BASE =
    "[{'name':'id','type':'long','nullable':false},"
    " {'name':'name','type':'string'},"
    " {'name':'addr','type':'struct','children':["
    "    {'name':'zip','type':'string'},{'name':'city','type':'string'}]},"
    " {'name':'tags','type':'list','children':[{'name':'element','type':'string'}]},"
    " {'name':'attrs','type':'map','children':["
    "    {'name':'key','type':'string','nullable':false},{'name':'value','type':'int'}]},"
    " {'name':'v','type':'variant'},"
    " {'name':'n','type':'int'},"
    " {'name':'f','type':'float'},"
    " {'name':'ts','type':'timestamptz'},"
    " {'name':'d','type':'date'},"
    " {'name':'amount','type':'decimal','type_params':{'precision':10,'scale':2}}]";

static void make_base(struct fx *f)
{
    OK(f, create(f, BASE));
    assert_int_equal(f->t.next_field_id, 17);
    assert_int_equal(f->t.node_count, 16);
}

/* A table as the loader would build it from stored rows:
 * id 1, s 2 (a 3, b 4 (x 5, y 6)), z 7; every row stored. */
static void make_loaded(struct fx *f)
{
    struct error *e = &f->err;
    struct lake_table *t = &f->t;
    OK(f, lake_table_load_column(t, 1, 0, "id", LT_LONG, 0, 0, false, 0, NULL, e));
    OK(f, lake_table_load_column(t, 2, 0, "s", LT_STRUCT, 0, 0, true, 1, NULL, e));
    OK(f, lake_table_load_column(t, 3, 2, "a", LT_INT, 0, 0, true, 0, NULL, e));
    OK(f, lake_table_load_column(t, 4, 2, "b", LT_STRUCT, 0, 0, true, 1, NULL, e));
    OK(f, lake_table_load_column(t, 5, 4, "x", LT_INT, 0, 0, true, 0, NULL, e));
    OK(f, lake_table_load_column(t, 6, 4, "y", LT_STRING, 0, 0, true, 1, "why", e));
    OK(f, lake_table_load_column(t, 7, 0, "z", LT_INT, 0, 0, true, 2, NULL, e));
    assert_int_equal(t->next_field_id, 8);
    assert_int_equal(t->node_count, 7);
}

static void collect_id(struct lake_column *c, void *ctx)
{
    json_t *a = ctx;
    json_array_append_new(a, json_integer(c->field_id));
}

static void check_walk(struct fx *f, const char *want, const char *file, int line)
{
    json_t *a = json_array();
    lake_table_walk(&f->t, collect_id, a);
    check_json(a, want, file, line);
    json_decref(a);
}

#define WALK_EQ(f, want) check_walk((f), (want), __FILE__, __LINE__)

static void check_ended(struct fx *f, const char *want, const char *file, int line)
{
    json_t *a = json_array();
    for (size_t i = 0; i < f->t.nended; i++)
        json_array_append_new(a, json_integer(f->t.ended_field_ids[i]));
    check_json(a, want, file, line);
    json_decref(a);
}

#define ENDED_EQ(f, want) check_ended((f), (want), __FILE__, __LINE__)

/* ---------------------------------------------------- building columns */

static void test_create_ids_depth_first(void **state)
{
    struct fx *f = *state;
    OK(f, create(f, "[{'name':'id','type':'int'},"
                    " {'name':'s','type':'struct','children':["
                    "   {'name':'a','type':'int'},"
                    "   {'name':'b','type':'list','children':["
                    "     {'name':'element','type':'struct','children':["
                    "       {'name':'x','type':'int'},"
                    "       {'name':'y','type':'map','children':["
                    "         {'name':'key','type':'string','nullable':false},"
                    "         {'name':'value','type':'long'}]}]}]},"
                    "   {'name':'c','type':'string'}]},"
                    " {'name':'z','type':'double'}]"));
    static const struct {
        const char *path;
        int64_t id;
        int ordinal;
        enum lake_type type;
    } want[] = {
        {"id", 1, 0, LT_INT},   {"s", 2, 1, LT_STRUCT},    {"s.a", 3, 0, LT_INT},
        {"s.b", 4, 1, LT_LIST}, {"s.c", 10, 2, LT_STRING}, {"z", 11, 2, LT_DOUBLE},
    };
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        struct lake_column *c = COL(f, want[i].path);
        if (c->field_id != want[i].id || c->ordinal != want[i].ordinal || c->type != want[i].type)
            fail_msg("%s: id %lld ordinal %d type %s", want[i].path, (long long)c->field_id,
                     c->ordinal, lake_type_name(c->type));
        assert_false(c->stored);
        assert_false(c->changed);
    }
    /* Inside the list and map (not addressable by path; use ids). */
    struct lake_column *el = lake_table_find_field(&f->t, 5);
    assert_non_null(el);
    assert_string_equal(el->name, "element");
    assert_int_equal(el->type, LT_STRUCT);
    assert_ptr_equal(el->parent, COL(f, "s.b"));
    assert_int_equal(el->ordinal, 0);
    struct lake_column *x = lake_table_find_field(&f->t, 6);
    struct lake_column *y = lake_table_find_field(&f->t, 7);
    struct lake_column *key = lake_table_find_field(&f->t, 8);
    struct lake_column *value = lake_table_find_field(&f->t, 9);
    assert_string_equal(x->name, "x");
    assert_int_equal(x->ordinal, 0);
    assert_string_equal(y->name, "y");
    assert_int_equal(y->ordinal, 1);
    assert_int_equal(y->type, LT_MAP);
    assert_string_equal(key->name, "key");
    assert_int_equal(key->ordinal, 0);
    assert_false(key->nullable);
    assert_string_equal(value->name, "value");
    assert_int_equal(value->ordinal, 1);
    assert_true(value->nullable); /* default */
    assert_ptr_equal(key->parent, y);
    assert_ptr_equal(y->parent, el);
    assert_null(COL(f, "s")->parent); /* top level */
    assert_ptr_equal(COL(f, "s.a")->parent, COL(f, "s"));

    assert_null(lake_table_find_field(&f->t, 12));
    assert_null(lake_table_find_field(&f->t, 0));
    assert_null(lake_table_find_field(&f->t, -1));
    assert_int_equal(f->t.next_field_id, 12);
    assert_int_equal(f->t.node_count, 11);
    WALK_EQ(f, "[1,2,3,4,5,6,7,8,9,10,11]");

    char path[256];
    lake_column_path(value, path, sizeof path);
    assert_string_equal(path, "s.b.element.y.value");
}

static void test_create_ids_start_at_next_field_id(void **state)
{
    struct fx *f = *state;
    f->t.next_field_id = 100;
    OK(f, create(f, "[{'name':'a','type':'int'},{'name':'s','type':'struct','children':["
                    "{'name':'b','type':'int'}]}]"));
    assert_int_equal(COL(f, "a")->field_id, 100);
    assert_int_equal(COL(f, "s")->field_id, 101);
    assert_int_equal(COL(f, "s.b")->field_id, 102);
    assert_int_equal(f->t.next_field_id, 103);
}

static void test_create_defaults_and_every_scalar_type(void **state)
{
    struct fx *f = *state;
    json_t *cols = json_array();
    for (int t = 0; t < LT__COUNT; t++) {
        enum lake_type ty = (enum lake_type)t;
        if (lake_type_is_container(ty))
            continue;
        json_array_append_new(
            cols, json_pack("{s:s,s:s}", "name", lake_type_name(ty), "type", lake_type_name(ty)));
    }
    OK(f, create_j(f, cols));
    int ordinal = 0;
    for (int t = 0; t < LT__COUNT; t++) {
        enum lake_type ty = (enum lake_type)t;
        if (lake_type_is_container(ty))
            continue;
        struct lake_column *c = COL(f, lake_type_name(ty));
        assert_int_equal(c->type, ty);
        assert_true(c->nullable);
        assert_null(c->comment);
        assert_int_equal(c->ordinal, ordinal++);
        assert_int_equal(c->nchildren, 0);
    }
    assert_int_equal(ordinal, 24);
    assert_int_equal(f->t.node_count, 24);
}

static void test_create_type_names_case_insensitive(void **state)
{
    struct fx *f = *state;
    OK(f, create(f, "[{'name':'u','type':'UUID'},{'name':'s','type':'Struct','children':["
                    "{'name':'t','type':'TimestampTZ'}]}]"));
    assert_int_equal(COL(f, "u")->type, LT_UUID);
    assert_int_equal(COL(f, "s")->type, LT_STRUCT);
    assert_int_equal(COL(f, "s.t")->type, LT_TIMESTAMPTZ);
}

static void test_create_unknown_and_refused_types(void **state)
{
    struct fx *f = *state;
    INVALID(f, create(f, "[{'name':'c','type':'uuid_t'}]"),
            "unknown column type 'uuid_t' for column 'c'");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'s','type':'struct','children':[{'name':'c','type':'int32'}]}]"),
            "unknown column type 'int32' for column 's.c'");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'c','type':'int128'}]"),
            "type 'int128' needs 39 decimal digits, which exceeds Iceberg's widest exact numeric "
            "type decimal(38), and is not supported");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'c','type':'INTERVAL'}]"),
            "type 'INTERVAL' has no Iceberg mapping");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'c','type':'geometrycollection'}]"),
            "type 'geometrycollection' is a DuckLake geometry type; geometry is out of scope for "
            "hoglake");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'c','type':''}]"), "unknown column type ''");
}

static void test_refused_type_messages_exact(void **state)
{
    struct fx *f = *state;
    INVALID(f, create(f, "[{'name':'c','type':'timetz'}]"),
            "type 'timetz' has no Iceberg mapping and is not supported");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'c','type':'point'}]"),
            "type 'point' is a DuckLake geometry type; geometry is out of scope for hoglake and "
            "is not supported");
    fx_reset(f);
    OK(f, create(f, "[{'name':'c','type':'int'}]"));
    INVALID(f, op(f, "{'op':'promote_column','name':'c','to':'interval'}"),
            "type 'interval' has no Iceberg mapping and is not supported");
}

static void test_create_bad_request_shapes(void **state)
{
    struct fx *f = *state;
    static const struct {
        const char *cols;
        const char *msg;
    } cases[] = {
        {"[{'name':'a','type':'int','foo':1}]", "unknown field 'columns[0].foo'"},
        {"[{'name':'a','type':'int'},{'name':'s','type':'struct','children':["
         "{'name':'x','type':'int','bogus':true}]}]",
         "unknown field 'columns[1].children[0].bogus'"},
        {"[{'name':'l','type':'list','children':[{'name':'element','type':'struct',"
         "'children':[{'name':'x','type':'int','Nullable':true}]}]}]",
         "unknown field 'columns[0].children[0].children[0].Nullable'"},
        {"[{'type':'int'}]", "missing required field 'columns[0].name'"},
        {"[{'name':'a'}]", "missing required field 'columns[0].type'"},
        {"[{'name':'a','type':5}]", "field 'columns[0].type' must be a string"},
        {"[{'name':7,'type':'int'}]", "field 'columns[0].name' must be a string"},
        {"[{'name':null,'type':'int'}]", "field 'columns[0].name' must not be null"},
        {"[{'name':'a','type':'int','nullable':'yes'}]",
         "field 'columns[0].nullable' must be a boolean"},
        {"[{'name':'a','type':'int','nullable':null}]",
         "field 'columns[0].nullable' must not be null"},
        {"[{'name':'s','type':'struct','children':{}}]",
         "field 'columns[0].children' must be an array"},
        {"[{'name':'d','type':'decimal','type_params':[]}]",
         "field 'columns[0].type_params' must be an object"},
        {"[{'name':'a','type':'int','comment':5}]", "field 'columns[0].comment' must be a string"},
        {"[null]", "columns[0] must be a JSON object"},
        {"[{'name':'a','type':'int'},'b']", "columns[1] must be a JSON object"},
        {"[{'name':'s','type':'struct','children':[null]}]",
         "columns[0].children[0] must be a JSON object"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        fx_reset(f);
        int rc = create(f, cases[i].cols);
        if (rc == 0 || f->err.code != ERR_MALFORMED || strcmp(f->err.msg, cases[i].msg))
            fail_msg("case %zu: rc %d kind %d msg \"%s\", want BAD_REQUEST \"%s\"", i, rc,
                     f->err.code, f->err.msg, cases[i].msg);
    }
    fx_reset(f);
    BAD(f, create(f, "{}"), "field 'columns' must be an array");
    fx_reset(f);
    BAD(f, create(f, "null"), "field 'columns' must be an array");
    fx_reset(f);
    INVALID(f, create(f, "[]"), "a table must have at least one column");
}

static json_t *struct_chain(int depth, const char *leaf_type)
{
    json_t *node = json_pack("{s:s,s:s}", "name", "leaf", "type", leaf_type);
    for (int d = depth - 1; d >= 1; d--) {
        char name[16];
        snprintf(name, sizeof name, "s%d", d);
        node = json_pack("{s:s,s:s,s:[o]}", "name", name, "type", "struct", "children", node);
    }
    assert_non_null(node);
    return json_pack("[o]", node);
}

static json_t *list_chain(int depth)
{
    json_t *node = json_pack("{s:s,s:s}", "name", "element", "type", "int");
    for (int d = depth - 1; d >= 1; d--)
        node = json_pack("{s:s,s:s,s:[o]}", "name", d == 1 ? "l" : "element", "type", "list",
                         "children", node);
    assert_non_null(node);
    return json_pack("[o]", node);
}

static void test_create_depth_limit(void **state)
{
    struct fx *f = *state;
    OK(f, create_j(f, struct_chain(8, "int")));
    assert_int_equal(f->t.node_count, 8);
    struct lake_column *leaf = COL(f, "s1.s2.s3.s4.s5.s6.s7.leaf");
    assert_int_equal(leaf->field_id, 8);

    fx_reset(f);
    INVALID(f, create_j(f, struct_chain(9, "int")),
            "column nesting depth 9 exceeds the maximum 8 (a top-level column is depth 1)");
    assert_int_equal(f->t.root.nchildren, 0); /* refused before anything was built */

    fx_reset(f);
    OK(f, create_j(f, list_chain(8)));
    fx_reset(f);
    INVALID(f, create_j(f, list_chain(9)), "column nesting depth 9 exceeds the maximum 8");

    /* A hostile depth is refused cheaply, and says so. */
    fx_reset(f);
    INVALID(f, create_j(f, struct_chain(500, "int")), "or more exceeds the maximum 8");

    /* A deep tree alongside a shallow column: the max depth counts. */
    fx_reset(f);
    json_t *cols = struct_chain(9, "int");
    json_array_insert_new(cols, 0, json_pack("{s:s,s:s}", "name", "flat", "type", "int"));
    INVALID(f, create_j(f, cols), "depth 9");
}

static json_t *wide_columns(size_t n, const char *prefix)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%zu", prefix, i);
        json_array_append_new(a, json_pack("{s:s,s:s}", "name", name, "type", "int"));
    }
    return a;
}

static void test_create_node_limit(void **state)
{
    struct fx *f = *state;
    OK(f, create_j(f, wide_columns(10000, "c")));
    assert_int_equal(f->t.node_count, 10000);
    assert_int_equal(f->t.root.nchildren, 10000);
    assert_int_equal(COL(f, "c9999")->ordinal, 9999);
    assert_int_equal(COL(f, "c9999")->field_id, 10000);

    fx_reset(f);
    INVALID(f, create_j(f, wide_columns(10001, "c")),
            "nested column nodes exceeds the maximum 10000");
    assert_true(strstr(f->err.msg, "too many columns: 10001") != NULL);

    /* Nested nodes count too: a struct with 9999 fields is 10000 nodes. */
    fx_reset(f);
    OK(f, create_j(f, json_pack("[{s:s,s:s,s:o}]", "name", "s", "type", "struct", "children",
                                wide_columns(9999, "f"))));
    assert_int_equal(f->t.node_count, 10000);
    fx_reset(f);
    INVALID(f,
            create_j(f, json_pack("[{s:s,s:s,s:o}]", "name", "s", "type", "struct", "children",
                                  wide_columns(10000, "f"))),
            "too many columns");
}

static void test_alter_node_limit_counts_existing(void **state)
{
    struct fx *f = *state;
    OK(f, create_j(f, wide_columns(9999, "c")));
    OK(f, op(f, "{'op':'add_column','column':{'name':'last','type':'int'}}"));
    assert_int_equal(f->t.node_count, 10000);
    INVALID(f, op(f, "{'op':'add_column','column':{'name':'more','type':'int'}}"),
            "too many columns: 10001 nested column nodes exceeds the maximum 10000");
    /* Dropping frees room: the count follows drops. */
    OK(f, op(f, "{'op':'drop_column','name':'c5'}"));
    assert_int_equal(f->t.node_count, 9999);
    OK(f, op(f, "{'op':'add_column','column':{'name':'more','type':'int'}}"));
    assert_int_equal(f->t.node_count, 10000);
    /* A 2-node subtree does not fit into 1 free slot. */
    OK(f, op(f, "{'op':'drop_column','name':'c6'}"));
    INVALID(f,
            op(f, "{'op':'add_column','column':{'name':'s','type':'struct','children':["
                  "{'name':'a','type':'int'}]}}"),
            "too many columns: 10001");
}

static void test_list_shape(void **state)
{
    struct fx *f = *state;
    INVALID(f, create(f, "[{'name':'l','type':'list'}]"),
            "list column 'l' requires exactly one child (its 'element'); got 0");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'l','type':'list','children':[]}]"), "got 0");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'l','type':'list','children':["
                      "{'name':'element','type':'int'},{'name':'element','type':'int'}]}]"),
            "list column 'l' requires exactly one child (its 'element'); got 2");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'l','type':'list','children':[{'name':'elem','type':'int'}]}]"),
            "must be named 'element' (Iceberg's synthetic name), not 'elem'");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'l','type':'list','children':[{'name':'Element','type':'int'}]}]"),
            "must be named 'element'");
    fx_reset(f);
    OK(f, create(f, "[{'name':'l','type':'list','children':"
                    "[{'name':'element','type':'int','nullable':false}]}]"));
    struct lake_column *l = COL(f, "l");
    assert_int_equal(l->nchildren, 1);
    assert_string_equal(l->children[0]->name, "element");
    assert_false(l->children[0]->nullable);
}

static void test_map_shape(void **state)
{
    struct fx *f = *state;
    INVALID(f,
            create(f, "[{'name':'m','type':'map','children':["
                      "{'name':'key','type':'string','nullable':false}]}]"),
            "map column 'm' requires exactly two children ('key' then 'value'); got 1");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'m','type':'map'}]"), "got 0");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'m','type':'map','children':["
                      "{'name':'key','type':'string','nullable':false},"
                      "{'name':'value','type':'int'},{'name':'value','type':'int'}]}]"),
            "got 3");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'m','type':'map','children':["
                      "{'name':'value','type':'int'},"
                      "{'name':'key','type':'string','nullable':false}]}]"),
            "must be named 'key'");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'m','type':'map','children':["
                      "{'name':'key','type':'string','nullable':false},"
                      "{'name':'val','type':'int'}]}]"),
            "must be named 'value' (Iceberg's synthetic name), not 'val'");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'m','type':'map','children':["
                      "{'name':'key','type':'string'},{'name':'value','type':'int'}]}]"),
            "the key of map column 'm' must be required (nullable=false): Iceberg map keys are "
            "non-nullable");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'m','type':'map','children':["
                      "{'name':'key','type':'string','nullable':true},"
                      "{'name':'value','type':'int'}]}]"),
            "the key of map column 'm' must be required");
    fx_reset(f);
    OK(f, create(f, "[{'name':'m','type':'map','children':["
                    "{'name':'key','type':'string','nullable':false},"
                    "{'name':'value','type':'int','nullable':false}]}]"));
    assert_false(COL(f, "m")->children[1]->nullable);
}

static void test_synthetic_name_message_exact(void **state)
{
    struct fx *f = *state;
    INVALID(f,
            create(f, "[{'name':'m','type':'map','children':["
                      "{'name':'key','type':'string','nullable':false},"
                      "{'name':'val','type':'int'}]}]"),
            "child 1 of map column 'm' must be named 'value' (Iceberg's synthetic name), not "
            "'val'");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'l','type':'list','children':[{'name':'e','type':'int'}]}]"),
            "child 0 of list column 'l' must be named 'element' (Iceberg's synthetic name), not "
            "'e'");
}

static void test_struct_shape(void **state)
{
    struct fx *f = *state;
    INVALID(f, create(f, "[{'name':'s','type':'struct'}]"),
            "struct column 's' requires at least one child field");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'s','type':'struct','children':[]}]"),
            "struct column 's' requires at least one child field");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'s','type':'struct','children':null}]"),
            "struct column 's' requires at least one child field");
    fx_reset(f);
    /* Struct children are ordinary names: 'element' is fine, any name is. */
    OK(f, create(f, "[{'name':'s','type':'struct','children':["
                    "{'name':'element','type':'int'},{'name':'key','type':'int'}]}]"));
}

static void test_decimal_params(void **state)
{
    struct fx *f = *state;
    OK(f, create(f, "[{'name':'d0','type':'decimal'},"
                    " {'name':'d1','type':'decimal','type_params':{'precision':10,'scale':2}},"
                    " {'name':'d2','type':'decimal','type_params':{'precision':1}},"
                    " {'name':'d3','type':'decimal','type_params':{'scale':38}},"
                    " {'name':'d4','type':'decimal','type_params':{}},"
                    " {'name':'d5','type':'decimal','type_params':null},"
                    " {'name':'d6','type':'decimal','type_params':{'precision':38,'scale':0}},"
                    " {'name':'d7','type':'decimal','type_params':{'precision':5,'scale':5}}]"));
    static const struct {
        const char *name;
        int p, s;
    } want[] = {{"d0", 38, 0}, {"d1", 10, 2}, {"d2", 1, 0},  {"d3", 38, 38},
                {"d4", 38, 0}, {"d5", 38, 0}, {"d6", 38, 0}, {"d7", 5, 5}};
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        struct lake_column *c = COL(f, want[i].name);
        if (c->precision != want[i].p || c->scale != want[i].s)
            fail_msg("%s: decimal(%d,%d), want (%d,%d)", want[i].name, c->precision, c->scale,
                     want[i].p, want[i].s);
    }

    /* Out-of-range values are semantic refusals (422); a wrong JSON type or
     * an unknown key is a malformed request (400). */
    static const struct {
        const char *params;
        const char *msg;
        enum error_code kind;
    } bad[] = {
        {"{'precision':0}", "decimal column 'd' has precision 0, outside 1..38", ERR_INVALID},
        {"{'precision':39}", "decimal column 'd' has precision 39, outside 1..38", ERR_INVALID},
        {"{'precision':-5}", "has precision -5, outside 1..38", ERR_INVALID},
        {"{'precision':9999999999}", "outside 1..38", ERR_INVALID},
        {"{'scale':-1}", "decimal column 'd' has a negative scale -1", ERR_INVALID},
        {"{'precision':10,'scale':11}", "decimal column 'd' has scale 11 above its precision 10",
         ERR_INVALID},
        {"{'scale':39}", "has scale 39 above its precision 38", ERR_INVALID},
        {"{'precision':'10'}", "decimal column 'd' has a non-integer 'precision'", ERR_MALFORMED},
        {"{'precision':10.0}", "has a non-integer 'precision'", ERR_MALFORMED},
        {"{'precision':10,'scale':2.5}", "has a non-integer 'scale'", ERR_MALFORMED},
        {"{'precision':10,'scale':true}", "has a non-integer 'scale'", ERR_MALFORMED},
        {"{'precision':null}", "decimal column 'd'", ERR_MALFORMED},
        {"{'precision':10,'scal':2}", "decimal column 'd'", ERR_MALFORMED},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        fx_reset(f);
        char cols[256];
        snprintf(cols, sizeof cols, "[{'name':'d','type':'decimal','type_params':%s}]",
                 bad[i].params);
        int rc = create(f, cols);
        if (rc == 0 || f->err.code != bad[i].kind || !strstr(f->err.msg, bad[i].msg))
            fail_msg("type_params %s: rc %d kind %d \"%s\", want kind %d \"%s\"", bad[i].params, rc,
                     f->err.code, f->err.msg, bad[i].kind, bad[i].msg);
    }
    /* The path of a nested decimal is named. */
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'s','type':'struct','children':[{'name':'d','type':'decimal',"
                      "'type_params':{'precision':40}}]}]"),
            "decimal column 's.d' has precision 40");
}

static void test_type_params_forbidden(void **state)
{
    struct fx *f = *state;
    INVALID(f,
            create(f, "[{'name':'s','type':'struct','type_params':{},'children':["
                      "{'name':'a','type':'int'}]}]"),
            "column 's' is 'struct', a nested container, and cannot have type_params: a "
            "container's shape is its children, not its parameters");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'l','type':'list','type_params':{'precision':3},'children':["
                      "{'name':'element','type':'int'}]}]"),
            "column 'l' is 'list', a nested container, and cannot have type_params");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'m','type':'map','type_params':{},'children':["
                      "{'name':'key','type':'int','nullable':false},"
                      "{'name':'value','type':'int'}]}]"),
            "'map', a nested container");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'i','type':'int','type_params':{}}]"),
            "column 'i' of type 'int' takes no type_params");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'s','type':'string','type_params':{'length':10}}]"),
            "column 's' of type 'string' takes no type_params");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'t','type':'timestamp','type_params':{'precision':6}}]"),
            "takes no type_params");
    fx_reset(f);
    /* A variant takes a shredding declaration, checked by its grammar, on
     * top-level columns only; {} declares nothing. */
    INVALID(f, create(f, "[{'name':'v','type':'variant','type_params':{'shredding':'x'}}]"),
            "variant column 'v' has an invalid type_params.shredding: $ is not a JSON object");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'s','type':'struct','children':[{'name':'v','type':'variant',"
                      "'type_params':{'shredding':{'type':'string'}}}]}]"),
            "variant column 's.v' is nested in a struct, list or map");
    fx_reset(f);
    OK(f, create(f, "[{'name':'v','type':'variant','type_params':{}},"
                    " {'name':'w','type':'variant','type_params':{'shredding':{'type':'array',"
                    "'element':{'type':'decimal8','precision':18,'scale':2}}}}]"));
    assert_null(lake_table_find_field(&f->t, 1)->shredding);
    assert_string_equal(lake_table_find_field(&f->t, 2)->shredding,
                        "{\"type\":\"array\",\"element\":{\"type\":\"decimal8\","
                        "\"precision\":18,\"scale\":2}}");
    /* null type_params is the same as absent. */
    fx_reset(f);
    OK(f, create(f, "[{'name':'i','type':'int','type_params':null},"
                    " {'name':'s','type':'struct','type_params':null,'children':["
                    "   {'name':'a','type':'int'}]}]"));
}

static void test_children_forbidden_on_scalars(void **state)
{
    struct fx *f = *state;
    INVALID(f, create(f, "[{'name':'i','type':'int','children':[]}]"),
            "column 'i' is 'int', a scalar type, and cannot have children");
    fx_reset(f);
    INVALID(f, create(f, "[{'name':'v','type':'variant','children':[{'name':'a','type':'int'}]}]"),
            "column 'v' is 'variant', a scalar type, and cannot have children");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'s','type':'struct','children':[{'name':'d','type':'decimal',"
                      "'children':[]}]}]"),
            "column 's.d' is 'decimal', a scalar type, and cannot have children");
    fx_reset(f);
    OK(f, create(f, "[{'name':'i','type':'int','children':null}]"));
}

static void test_duplicate_sibling_names(void **state)
{
    struct fx *f = *state;
    INVALID(f,
            create(f, "[{'name':'a','type':'int'},{'name':'b','type':'int'},"
                      "{'name':'A','type':'string'}]"),
            "column 'A' already exists");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'s','type':'struct','children':["
                      "{'name':'x','type':'int'},{'name':'X','type':'int'}]}]"),
            "duplicate column names in 's'");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'s','type':'struct','children':["
                      "{'name':'t','type':'struct','children':["
                      "{'name':'Zip','type':'int'},{'name':'zIP','type':'int'}]}]}]"),
            "duplicate column names in 's.t'");
    /* The same name at different levels or in different structs is fine. */
    fx_reset(f);
    OK(f, create(f, "[{'name':'a','type':'struct','children':[{'name':'a','type':'int'}]},"
                    " {'name':'b','type':'struct','children':[{'name':'a','type':'int'}]}]"));
}

static void test_reserved_prefix_any_depth(void **state)
{
    struct fx *f = *state;
    INVALID(f, create(f, "[{'name':'_hog_row_id','type':'long'}]"),
            "column name '_hog_row_id' uses the reserved prefix '_hog': names starting with it "
            "belong to hoglake's own physical columns (compaction's _hog_row_id)");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'addr','type':'struct','children':["
                      "{'name':'_hog_x','type':'int'}]}]"),
            "column name 'addr._hog_x' uses the reserved prefix '_hog'");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'l','type':'list','children':[{'name':'element',"
                      "'type':'struct','children':[{'name':'_hog','type':'int'}]}]}]"),
            "column name 'l.element._hog' uses the reserved prefix");
    fx_reset(f);
    INVALID(f,
            create(f, "[{'name':'m','type':'map','children':["
                      "{'name':'key','type':'int','nullable':false},{'name':'value',"
                      "'type':'struct','children':[{'name':'_hogwarts','type':'int'}]}]}]"),
            "column name 'm.value._hogwarts' uses the reserved prefix");
    fx_reset(f);
    OK(f, create(f, "[{'name':'_ho','type':'int'},{'name':'x_hog','type':'int'},"
                    " {'name':'hog','type':'int'},{'name':'__hog','type':'int'}]"));
}

static void test_invalid_column_names(void **state)
{
    struct fx *f = *state;
    static const char *const bad[] = {"1a", "a.b", "", "a b", "-a", "a$", "caf\xc3\xa9"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        fx_reset(f);
        json_t *cols = json_pack("[{s:s,s:s}]", "name", bad[i], "type", "int");
        int rc = create_j(f, cols);
        if (rc == 0 || f->err.code != ERR_INVALID || !strstr(f->err.msg, "invalid column name") ||
            !strstr(f->err.msg, "(must match ^[A-Za-z_][A-Za-z0-9_-]{0,127}$)"))
            fail_msg("name \"%s\": rc %d kind %d \"%s\"", bad[i], rc, f->err.code, f->err.msg);
    }
    /* 128 characters are fine; 129 are not, and the message shortens the name. */
    char name[200];
    memset(name, 'n', 129);
    name[128] = '\0';
    fx_reset(f);
    OK(f, create_j(f, json_pack("[{s:s,s:s}]", "name", name, "type", "int")));
    name[128] = 'n';
    name[129] = '\0';
    fx_reset(f);
    char want[100];
    snprintf(want, sizeof want, "invalid column name '%.61s...'", name);
    INVALID(f, create_j(f, json_pack("[{s:s,s:s}]", "name", name, "type", "int")), want);
    assert_null(strstr(f->err.msg, name)); /* the full name is not echoed */
}

static void test_column_comments_on_create(void **state)
{
    struct fx *f = *state;
    json_t *cols = J("[{'name':'a','type':'int','comment':'hello'},"
                     " {'name':'b','type':'int','comment':null},"
                     " {'name':'c','type':'int','comment':''},"
                     " {'name':'s','type':'struct','comment':'outer','children':["
                     "   {'name':'x','type':'int','comment':'inner'}]}]");
    json_array_append_new(cols, json_pack("{s:s,s:s,s:o}", "name", "max", "type", "int", "comment",
                                          long_string(16384, "x")));
    OK(f, create_j(f, cols));
    assert_string_equal(COL(f, "a")->comment, "hello");
    assert_null(COL(f, "b")->comment);
    assert_string_equal(COL(f, "c")->comment, "");
    assert_string_equal(COL(f, "s")->comment, "outer");
    assert_string_equal(COL(f, "s.x")->comment, "inner");
    assert_int_equal(strlen(COL(f, "max")->comment), 16384);

    fx_reset(f);
    INVALID(f,
            create_j(f, json_pack("[{s:s,s:s,s:o}]", "name", "a", "type", "int", "comment",
                                  long_string(16385, "x"))),
            "comment must contain at most 16384 characters");
}

/* ------------------------------------------------------------ add_column */

static void test_add_column_top_level(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op(f, "{'op':'add_column','column':{'name':'extra','type':'string'}}"));
    struct lake_column *c = COL(f, "extra");
    assert_int_equal(c->field_id, 17);
    assert_int_equal(c->ordinal, 11);
    assert_null(c->parent);
    assert_false(c->stored);
    assert_int_equal(f->t.next_field_id, 18);
    assert_int_equal(f->t.node_count, 17);

    /* A nested subtree: ids continue depth-first, child ordinals restart. */
    OK(f, op(f, "{'op':'add_column','column':{'name':'s2','type':'struct','children':["
                "{'name':'p','type':'int'},{'name':'q','type':'list','children':["
                "{'name':'element','type':'int'}]},{'name':'r','type':'int'}]}}"));
    assert_int_equal(COL(f, "s2")->field_id, 18);
    assert_int_equal(COL(f, "s2")->ordinal, 12);
    assert_int_equal(COL(f, "s2.p")->field_id, 19);
    assert_int_equal(COL(f, "s2.p")->ordinal, 0);
    assert_int_equal(COL(f, "s2.q")->field_id, 20);
    assert_int_equal(COL(f, "s2.q")->children[0]->field_id, 21);
    assert_int_equal(COL(f, "s2.r")->field_id, 22);
    assert_int_equal(COL(f, "s2.r")->ordinal, 2);
    assert_int_equal(f->t.next_field_id, 23);
    assert_int_equal(f->t.node_count, 22);

    /* parent: null is top level. */
    OK(f, op(f, "{'op':'add_column','parent':null,'column':{'name':'t','type':'int'}}"));
    assert_null(COL(f, "t")->parent);
    assert_int_equal(COL(f, "t")->ordinal, 13);
}

static void test_add_column_ordinal_is_max_plus_one(void **state)
{
    struct fx *f = *state;
    make_base(f);
    /* Drop the last top-level column: ordinal 10 is free, max is now 9. */
    OK(f, op(f, "{'op':'drop_column','name':'amount'}"));
    OK(f, op(f, "{'op':'add_column','column':{'name':'a1','type':'int'}}"));
    assert_int_equal(COL(f, "a1")->ordinal, 10);
    /* Drop a middle column: ordinals are not compacted, so gaps stay. */
    OK(f, op(f, "{'op':'drop_column','name':'name'}"));
    OK(f, op(f, "{'op':'add_column','column':{'name':'a2','type':'int'}}"));
    assert_int_equal(COL(f, "a2")->ordinal, 11);
    assert_int_equal(COL(f, "id")->ordinal, 0);
    assert_int_equal(COL(f, "addr")->ordinal, 2);
    /* Ids are never reused. */
    assert_int_equal(COL(f, "a1")->field_id, 17);
    assert_int_equal(COL(f, "a2")->field_id, 18);
}

static void test_add_column_into_struct(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op(f, "{'op':'add_column','parent':'addr','column':{'name':'country','type':'string'}}"));
    struct lake_column *c = COL(f, "addr.country");
    assert_int_equal(c->field_id, 17);
    assert_int_equal(c->ordinal, 2);
    assert_ptr_equal(c->parent, COL(f, "addr"));
    assert_int_equal(COL(f, "addr")->nchildren, 3);
    char path[128];
    lake_column_path(c, path, sizeof path);
    assert_string_equal(path, "addr.country");
    assert_false(has_path(f, "country"));
    assert_int_equal(f->t.node_count, 17);

    /* Deeper: a struct added into a struct, then into it. */
    OK(f, op(f, "{'op':'add_column','parent':'addr','column':{'name':'geo','type':'struct',"
                "'children':[{'name':'lat','type':'double'}]}}"));
    OK(f, op(f, "{'op':'add_column','parent':'addr.geo','column':{'name':'lon','type':'double'}}"));
    assert_int_equal(COL(f, "addr.geo")->field_id, 18);
    assert_int_equal(COL(f, "addr.geo.lat")->field_id, 19);
    assert_int_equal(COL(f, "addr.geo.lon")->field_id, 20);
    assert_int_equal(COL(f, "addr.geo.lon")->ordinal, 1);
    assert_int_equal(COL(f, "addr.geo")->ordinal, 3);

    /* Duplicate inside the struct, case-insensitively. */
    INVALID(f, op(f, "{'op':'add_column','parent':'addr','column':{'name':'ZIP','type':'int'}}"),
            "column 'ZIP' of struct 'addr' already exists");
    /* _hog inside a struct names the full path. */
    INVALID(f,
            op(f, "{'op':'add_column','parent':'addr.geo','column':{'name':'_hog1','type':'int'}}"),
            "column name 'addr.geo._hog1' uses the reserved prefix '_hog'");
}

static void test_add_column_bad_parents(void **state)
{
    struct fx *f = *state;
    make_base(f);
    INVALID(f, op(f, "{'op':'add_column','parent':'tags','column':{'name':'x','type':'int'}}"),
            "cannot add a column under 'tags': it is 'list', not a struct");
    INVALID(f, op(f, "{'op':'add_column','parent':'attrs','column':{'name':'x','type':'int'}}"),
            "it is 'map', not a struct");
    INVALID(f, op(f, "{'op':'add_column','parent':'name','column':{'name':'x','type':'int'}}"),
            "cannot add a column under 'name': it is 'string', not a struct");
    INVALID(f,
            op(f, "{'op':'add_column','parent':'tags.element','column':{'name':'x',"
                  "'type':'int'}}"),
            "cannot address 'tags.element': 'tags' is a 'list', and list/map internals");
    INVALID(f, op(f, "{'op':'add_column','parent':'nope','column':{'name':'x','type':'int'}}"),
            "column 'nope' does not exist");
    INVALID(f, op(f, "{'op':'add_column','parent':'addr.nope','column':{'name':'x','type':'int'}}"),
            "column 'addr.nope' does not exist: struct 'addr' has no field 'nope'");
    INVALID(f, op(f, "{'op':'add_column','parent':'addr..zip','column':{'name':'x','type':'int'}}"),
            "invalid column path 'addr..zip': a path is dot-separated column names, none empty");
    INVALID(f, op(f, "{'op':'add_column','parent':'','column':{'name':'x','type':'int'}}"),
            "invalid column path ''");
    BAD(f, op(f, "{'op':'add_column','parent':5,'column':{'name':'x','type':'int'}}"),
        "field 'parent' must be a string");
    assert_int_equal(f->t.node_count, 16);
    assert_int_equal(f->t.next_field_id, 17);
}

static void test_add_column_depth_via_parent(void **state)
{
    struct fx *f = *state;
    OK(f, create_j(f, struct_chain(8, "int"))); /* s1..s7, leaf at depth 8 */
    const char *s7 = "s1.s2.s3.s4.s5.s6.s7";
    json_t *o = json_pack("{s:s,s:s,s:{s:s,s:s}}", "op", "add_column", "parent", s7, "column",
                          "name", "x", "type", "int");
    OK(f, op_j(f, o)); /* depth 8: allowed */
    o = json_pack("{s:s,s:s,s:{s:s,s:s,s:[{s:s,s:s}]}}", "op", "add_column", "parent", s7, "column",
                  "name", "deep", "type", "struct", "children", "name", "y", "type", "int");
    INVALID(f, op_j(f, o), "column nesting depth 9 exceeds the maximum 8");
    o = json_pack("{s:s,s:s,s:{s:s,s:s,s:[{s:s,s:s}]}}", "op", "add_column", "parent",
                  "s1.s2.s3.s4.s5.s6", "column", "name", "ok", "type", "struct", "children", "name",
                  "y", "type", "int");
    OK(f, op_j(f, o)); /* struct at depth 7, its field at depth 8 */
    char path[256];
    lake_column_path(COL(f, "s1.s2.s3.s4.s5.s6.ok.y"), path, sizeof path);
    assert_string_equal(path, "s1.s2.s3.s4.s5.s6.ok.y");
}

static void test_add_column_duplicates_and_names(void **state)
{
    struct fx *f = *state;
    make_base(f);
    INVALID(f, op(f, "{'op':'add_column','column':{'name':'ID','type':'int'}}"),
            "column 'ID' already exists");
    INVALID(f, op(f, "{'op':'add_column','column':{'name':'_hog_row_id','type':'long'}}"),
            "column name '_hog_row_id' uses the reserved prefix '_hog'");
    INVALID(f, op(f, "{'op':'add_column','column':{'name':'9x','type':'int'}}"),
            "invalid column name '9x'");
    INVALID(f, op(f, "{'op':'add_column','column':{'name':'x','type':'hugeint'}}"),
            "unknown column type 'hugeint' for column 'x'");
    INVALID(f, op(f, "{'op':'add_column','column':{'name':'x','type':'uint128'}}"),
            "needs 39 decimal digits");
    BAD(f, op(f, "{'op':'add_column','column':{'name':'x','type':'int','bogus':1}}"),
        "unknown field");
    BAD(f, op(f, "{'op':'add_column','column':{'name':'x'}}"), "missing required field");
    BAD(f, op(f, "{'op':'add_column'}"), "missing required field 'column'");
    BAD(f, op(f, "{'op':'add_column','column':[]}"), "field 'column' must be an object");
}

static void test_add_column_where_path(void **state)
{
    struct fx *f = *state;
    make_base(f);
    BAD(f, op(f, "{'op':'add_column','column':{'name':'x','type':'int','bogus':1}}"),
        "unknown field 'column.bogus'");
    BAD(f,
        op(f, "{'op':'add_column','column':{'name':'s','type':'struct','children':["
              "{'name':'x','type':'int','bogus':1}]}}"),
        "unknown field 'column.children[0].bogus'");
}

static void test_add_column_with_metadata(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op(f, "{'op':'add_column_with_metadata','parent':'addr','column':{'name':'note',"
                "'type':'string','comment':'free text'}}"));
    assert_string_equal(COL(f, "addr.note")->comment, "free text");
    assert_int_equal(COL(f, "addr.note")->field_id, 17);
}

static void test_add_column_idless_guard(void **state)
{
    struct fx *f = *state;
    make_base(f);
    f->t.idless_files = 2;
    IDLESS(f, op(f, "{'op':'add_column','column':{'name':'x','type':'int'}}"),
           "cannot add column 'x': 2 id-less and/or 0 not-yet-hydrated (id state unknown until "
           "the footer is read) live data file(s) may bind columns by name; hydrate, rewrite, or "
           "retire them first");
    IDLESS(f,
           op(f, "{'op':'add_column_with_metadata','parent':'addr','column':{'name':'x',"
                 "'type':'int'}}"),
           "cannot add column 'x'");
    assert_false(has_path(f, "x"));
    assert_false(has_path(f, "addr.x"));

    f->t.idless_files = 0;
    f->t.pending_files = 3;
    IDLESS(f, op(f, "{'op':'add_column','column':{'name':'x','type':'int'}}"),
           "0 id-less and/or 3 not-yet-hydrated");
    assert_int_equal(f->t.node_count, 16);
    assert_int_equal(f->t.next_field_id, 17);

    /* Ops that do not bind by name are unaffected. */
    OK(f, op(f, "{'op':'drop_column','name':'n'}"));
    OK(f, op(f, "{'op':'promote_column','name':'f','to':'double'}"));
    OK(f, op(f, "{'op':'set_column_comment','name':'id','comment':'c'}"));

    f->t.pending_files = 0;
    OK(f, op(f, "{'op':'add_column','column':{'name':'x','type':'int'}}"));
}

static void test_add_required_column_over_live_files(void **state)
{
    struct fx *f = *state;
    make_base(f);
    f->t.live_files = 5;
    INVALID(f, op(f, "{'op':'add_column','column':{'name':'req','type':'int','nullable':false}}"),
            "cannot add required column 'req': the table's 5 live data file(s) have no values "
            "for it; add it with nullable=true");
    INVALID(f,
            op(f, "{'op':'add_column','parent':'addr','column':{'name':'req','type':'int',"
                  "'nullable':false}}"),
            "cannot add required column 'addr.req'");
    OK(f, op(f, "{'op':'add_column','column':{'name':'opt','type':'int','nullable':true}}"));
    OK(f, op(f, "{'op':'add_column','column':{'name':'opt2','type':'int'}}"));

    fx_reset(f);
    make_base(f);
    f->t.live_files = 0; /* an empty table may gain required columns */
    OK(f, op(f, "{'op':'add_column','column':{'name':'req','type':'int','nullable':false}}"));
    assert_false(COL(f, "req")->nullable);
}

/* ----------------------------------------------------------- drop_column */

static void test_drop_column(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op(f, "{'op':'drop_column','name':'addr'}"));
    assert_false(has_path(f, "addr"));
    assert_false(has_path(f, "addr.zip"));
    assert_null(lake_table_find_field(&f->t, 3));
    assert_null(lake_table_find_field(&f->t, 4));
    assert_int_equal(f->t.node_count, 13);
    assert_int_equal(f->t.root.nchildren, 10);
    assert_int_equal(f->t.nended, 0); /* nothing stored was dropped */
    OK(f, op(f, "{'op':'drop_column','name':'tags'}"));
    assert_int_equal(f->t.node_count, 11);
    INVALID(f, op(f, "{'op':'drop_column','name':'addr2'}"), "column 'addr2' does not exist");
    INVALID(f, op(f, "{'op':'drop_column','name':'addr'}"), "column 'addr' does not exist");
    INVALID(f, op(f, "{'op':'drop_column','name':'ID'}"), "column 'ID' does not exist");
    INVALID(f, op(f, "{'op':'drop_column','name':'attrs.key'}"),
            "cannot address 'attrs.key': 'attrs' is a 'map', and list/map internals (element, "
            "key, value) cannot be added, dropped or renamed");
    INVALID(f, op(f, "{'op':'drop_column','name':'n.x'}"),
            "cannot address 'n.x': 'n' is 'int', not a struct");
    OK(f, op(f, "{'op':'drop_column','name':'id'}"));
    assert_int_equal(f->t.root.nchildren, 8);
    assert_int_equal(f->t.node_count, 10);
}

static void test_drop_last_column_and_last_field(void **state)
{
    struct fx *f = *state;
    OK(f, create(f, "[{'name':'only','type':'struct','children':[{'name':'one','type':'int'}]}]"));
    INVALID(f, op(f, "{'op':'drop_column','name':'only'}"),
            "cannot drop 'only': it is the last column");
    INVALID(f, op(f, "{'op':'drop_column','name':'only.one'}"),
            "cannot drop 'only.one': it is the last field of struct 'only', and a struct with "
            "no fields has no representation in parquet or Iceberg");
    OK(f, op(f, "{'op':'add_column','parent':'only','column':{'name':'two','type':'int'}}"));
    OK(f, op(f, "{'op':'drop_column','name':'only.one'}"));
    INVALID(f, op(f, "{'op':'drop_column','name':'only.two'}"), "last field of struct 'only'");
    assert_int_equal(f->t.node_count, 2);
}

static void test_drop_spec_and_sort_sources(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op(f, "{'op':'set_partition_spec','fields':["
                "{'source_field_id':4,'transform':'identity'},"
                "{'source_field_id':14,'transform':'day'}]}"));
    OK(f, op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':12}]}"));
    INVALID(f, op(f, "{'op':'drop_column','name':'ts'}"),
            "cannot drop column 'ts': it is a source of the live partition spec");
    INVALID(f, op(f, "{'op':'drop_column','name':'addr.zip'}"),
            "cannot drop column 'addr.zip': it is a source of the live partition spec");
    INVALID(f, op(f, "{'op':'drop_column','name':'addr'}"),
            "cannot drop column 'addr': field_id 4 inside it is a source of the live partition "
            "spec");
    INVALID(f, op(f, "{'op':'drop_column','name':'n'}"),
            "cannot drop column 'n': it is a source of the live sort order");
    /* The sibling of a source may go. */
    OK(f, op(f, "{'op':'drop_column','name':'addr.city'}"));
    /* Once the spec and order are cleared, the sources may be dropped. */
    OK(f, op(f, "{'op':'set_partition_spec','fields':[]}"));
    OK(f, op(f, "{'op':'set_sort_order','sort_fields':[]}"));
    OK(f, op(f, "{'op':'drop_column','name':'ts'}"));
    OK(f, op(f, "{'op':'drop_column','name':'addr'}"));
    OK(f, op(f, "{'op':'drop_column','name':'n'}"));

    /* A sort source nested in a struct blocks dropping the struct. */
    fx_reset(f);
    make_base(f);
    OK(f, op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':5}]}"));
    INVALID(f, op(f, "{'op':'drop_column','name':'addr'}"),
            "cannot drop column 'addr': field_id 5 inside it is a source of the live sort order");
}

static void test_drop_loaded_spec_source(void **state)
{
    struct fx *f = *state;
    make_loaded(f);
    struct lake_partition_field pf = {5, LTR_BUCKET, 8};
    OK(f, lake_table_load_partition_field(&f->t, &pf, &f->err));
    struct lake_sort_field sf = {7, true, false};
    OK(f, lake_table_load_sort_field(&f->t, &sf, &f->err));
    assert_true(f->t.partitioned);
    assert_true(f->t.sorted);
    INVALID(f, op(f, "{'op':'drop_column','name':'s'}"), "field_id 5 inside it");
    INVALID(f, op(f, "{'op':'drop_column','name':'s.b'}"), "field_id 5 inside it");
    INVALID(f, op(f, "{'op':'drop_column','name':'s.b.x'}"),
            "it is a source of the live "
            "partition spec");
    INVALID(f, op(f, "{'op':'drop_column','name':'z'}"), "source of the live sort order");
    assert_int_equal(f->t.nended, 0);
    OK(f, op(f, "{'op':'drop_column','name':'s.b.y'}"));
    ENDED_EQ(f, "[6]");
}

static void test_drop_ended_field_ids(void **state)
{
    struct fx *f = *state;
    make_loaded(f);
    OK(f, op(f, "{'op':'drop_column','name':'s.b'}"));
    ENDED_EQ(f, "[4,5,6]");
    assert_int_equal(f->t.node_count, 4);
    OK(f, op(f, "{'op':'drop_column','name':'z'}"));
    ENDED_EQ(f, "[4,5,6,7]");

    /* New (unstored) columns inside a dropped stored struct are not ended. */
    fx_reset(f);
    make_loaded(f);
    OK(f, op(f, "{'op':'add_column','parent':'s.b','column':{'name':'w','type':'int'}}"));
    assert_int_equal(COL(f, "s.b.w")->field_id, 8);
    assert_false(COL(f, "s.b.w")->stored);
    OK(f, op(f, "{'op':'drop_column','name':'s'}"));
    ENDED_EQ(f, "[2,3,4,5,6]");
    assert_int_equal(f->t.node_count, 2);
    WALK_EQ(f, "[1,7]");

    /* Adding and then dropping in the same request ends nothing. */
    fx_reset(f);
    make_loaded(f);
    OK(f, ops(f, "[{'op':'add_column','column':{'name':'tmp','type':'int'}},"
                 " {'op':'drop_column','name':'tmp'}]"));
    assert_int_equal(f->t.nended, 0);
    assert_int_equal(f->t.next_field_id, 9); /* the id stays consumed */
}

/* --------------------------------------------------------- rename_column */

static void test_rename_column(void **state)
{
    struct fx *f = *state;
    make_loaded(f);
    OK(f, op(f, "{'op':'rename_column','from':'s.b.x','to':'ex'}"));
    struct lake_column *c = COL(f, "s.b.ex");
    assert_int_equal(c->field_id, 5);
    assert_true(c->changed);
    assert_true(c->stored);
    assert_false(has_path(f, "s.b.x"));
    assert_false(COL(f, "s.b")->changed); /* only that node */
    assert_false(COL(f, "s.b.y")->changed);

    /* Renaming a struct keeps its children (ids and rows). */
    OK(f, op(f, "{'op':'rename_column','from':'s','to':'t'}"));
    assert_int_equal(COL(f, "t")->field_id, 2);
    assert_int_equal(COL(f, "t.b.ex")->field_id, 5);
    assert_true(COL(f, "t")->changed);
    assert_false(COL(f, "t.a")->changed);
    assert_int_equal(f->t.nended, 0);

    /* Case-only rename of itself is allowed. */
    OK(f, op(f, "{'op':'rename_column','from':'z','to':'Z'}"));
    assert_int_equal(COL(f, "Z")->field_id, 7);

    /* Renaming to its current name is a no-op. */
    OK(f, op(f, "{'op':'rename_column','from':'id','to':'id'}"));
    assert_false(COL(f, "id")->changed);
}

static void test_rename_column_refusals(void **state)
{
    struct fx *f = *state;
    make_base(f);
    INVALID(f, op(f, "{'op':'rename_column','from':'name','to':'ID'}"),
            "column 'ID' already exists");
    INVALID(f, op(f, "{'op':'rename_column','from':'addr.zip','to':'City'}"),
            "column 'City' of struct 'addr' already exists");
    INVALID(f, op(f, "{'op':'rename_column','from':'name','to':'_hog_name'}"),
            "column name '_hog_name' uses the reserved prefix '_hog'");
    INVALID(f, op(f, "{'op':'rename_column','from':'addr.zip','to':'_hogzip'}"),
            "column name 'addr._hogzip' uses the reserved prefix '_hog'");
    INVALID(f, op(f, "{'op':'rename_column','from':'name','to':'a.b'}"),
            "invalid column name 'a.b'");
    INVALID(f, op(f, "{'op':'rename_column','from':'name','to':''}"), "invalid column name ''");
    INVALID(f, op(f, "{'op':'rename_column','from':'missing','to':'x'}"),
            "column 'missing' does not exist");
    INVALID(f, op(f, "{'op':'rename_column','from':'tags.element','to':'x'}"),
            "cannot address 'tags.element'");
    BAD(f, op(f, "{'op':'rename_column','from':'name'}"), "missing required field 'to'");
    BAD(f, op(f, "{'op':'rename_column','to':'x'}"), "missing required field 'from'");
    BAD(f, op(f, "{'op':'rename_column','from':'name','to':null}"), "must not be null");
    assert_false(COL(f, "name")->changed);
    assert_string_equal(COL(f, "addr.zip")->name, "zip");
}

static void test_rename_column_idless_guard(void **state)
{
    struct fx *f = *state;
    make_base(f);
    f->t.idless_files = 1;
    IDLESS(f, op(f, "{'op':'rename_column','from':'addr.zip','to':'code'}"),
           "cannot rename column 'addr.zip' to 'code': 1 id-less and/or 0 not-yet-hydrated");
    f->t.idless_files = 0;
    f->t.pending_files = 1;
    IDLESS(f, op(f, "{'op':'rename_column','from':'name','to':'title'}"),
           "live data file(s) may bind columns by name");
    assert_string_equal(COL(f, "name")->name, "name");
    assert_false(COL(f, "name")->changed);
    f->t.pending_files = 0;
    OK(f, op(f, "{'op':'rename_column','from':'name','to':'title'}"));
    assert_int_equal(COL(f, "title")->field_id, 2);
}

/* -------------------------------------------------------- promote_column */

static const struct {
    const char *from, *to;
} legal_promotions[] = {
    {"int8", "int16"},    {"int8", "int"},     {"int8", "long"},    {"int16", "int"},
    {"int16", "long"},    {"int", "long"},     {"uint8", "uint16"}, {"uint8", "uint32"},
    {"uint16", "uint32"}, {"float", "double"},
};

static bool promotion_is_legal(const char *from, const char *to)
{
    for (size_t i = 0; i < ARRAY_LEN(legal_promotions); i++)
        if (!strcmp(legal_promotions[i].from, from) && !strcmp(legal_promotions[i].to, to))
            return true;
    return false;
}

static json_t *column_of_type(const char *name, enum lake_type t)
{
    switch (t) {
    case LT_LIST:
        return json_pack("{s:s,s:s,s:[{s:s,s:s}]}", "name", name, "type", "list", "children",
                         "name", "element", "type", "int");
    case LT_STRUCT:
        return json_pack("{s:s,s:s,s:[{s:s,s:s}]}", "name", name, "type", "struct", "children",
                         "name", "a", "type", "int");
    case LT_MAP:
        return json_pack("{s:s,s:s,s:[{s:s,s:s,s:b},{s:s,s:s}]}", "name", name, "type", "map",
                         "children", "name", "key", "type", "string", "nullable", 0, "name",
                         "value", "type", "int");
    default: return json_pack("{s:s,s:s}", "name", name, "type", lake_type_name(t));
    }
}

static void test_promote_matrix_through_op(void **state)
{
    struct fx *f = *state;
    int allowed = 0;
    for (int from = 0; from < LT__COUNT; from++) {
        for (int to = 0; to < LT__COUNT; to++) {
            const char *fn = lake_type_name((enum lake_type)from);
            const char *tn = lake_type_name((enum lake_type)to);
            fx_reset(f);
            OK(f, create_j(f, json_pack("[{s:s,s:s},o]", "name", "keep", "type", "int",
                                        column_of_type("c", (enum lake_type)from))));
            int64_t id = COL(f, "c")->field_id;
            int rc =
                op_j(f, json_pack("{s:s,s:s,s:s}", "op", "promote_column", "name", "c", "to", tn));
            struct lake_column *c = COL(f, "c");
            if (promotion_is_legal(fn, tn)) {
                allowed++;
                if (rc != 0)
                    fail_msg("promote %s -> %s refused: %s", fn, tn, f->err.msg);
                assert_int_equal(c->type, to);
                assert_true(c->changed);
            } else {
                if (rc == 0 || f->err.code != ERR_INVALID)
                    fail_msg("promote %s -> %s: rc %d kind %d (want INVALID)", fn, tn, rc,
                             f->err.code);
                bool container = lake_type_is_container((enum lake_type)from) ||
                                 lake_type_is_container((enum lake_type)to);
                char want[160];
                if (container)
                    snprintf(want, sizeof want,
                             "cannot promote column 'c': '%s' and '%s' include "
                             "a nested container type",
                             fn, tn);
                else
                    snprintf(want, sizeof want, "cannot promote column 'c' from '%s' to '%s'", fn,
                             tn);
                if (!strstr(f->err.msg, want))
                    fail_msg("promote %s -> %s: \"%s\" lacks \"%s\"", fn, tn, f->err.msg, want);
                assert_int_equal(c->type, from);
                assert_false(c->changed);
            }
            assert_int_equal(c->field_id, id);
        }
    }
    assert_int_equal(allowed, 10);
}

static void test_promote_misc(void **state)
{
    struct fx *f = *state;
    OK(f, create(f, "[{'name':'s','type':'struct','children':[{'name':'a','type':'int'},"
                    "{'name':'l','type':'list','children':[{'name':'element','type':'int'}]}]}]"));
    OK(f, op(f, "{'op':'promote_column','name':'s.a','to':'LONG'}")); /* case-insensitive */
    assert_int_equal(COL(f, "s.a")->type, LT_LONG);
    assert_int_equal(COL(f, "s.a")->field_id, 2);
    INVALID(f, op(f, "{'op':'promote_column','name':'s.l.element','to':'long'}"),
            "cannot address 's.l.element'");
    INVALID(f, op(f, "{'op':'promote_column','name':'s.a','to':'bigint'}"),
            "unknown column type 'bigint'");
    INVALID(f, op(f, "{'op':'promote_column','name':'s.a','to':'int128'}"),
            "type 'int128' needs 39 decimal digits");
    INVALID(f, op(f, "{'op':'promote_column','name':'s.b','to':'long'}"),
            "column 's.b' does not exist");
    BAD(f, op(f, "{'op':'promote_column','name':'s.a'}"), "missing required field 'to'");
}

/* --------------------------------------------------------- drop_not_null */

static void test_drop_not_null(void **state)
{
    struct fx *f = *state;
    make_loaded(f);
    struct error *e = &f->err;
    OK(f, lake_table_load_column(&f->t, 8, 4, "w", LT_INT, 0, 0, false, 2, NULL, e));
    OK(f, op(f, "{'op':'drop_not_null','name':'id'}"));
    struct lake_column *c = COL(f, "id");
    assert_true(c->nullable);
    assert_true(c->changed); /* its row is re-versioned, keeping its id and type */
    assert_int_equal(c->field_id, 1);
    assert_int_equal(c->type, LT_LONG);
    assert_int_equal(f->t.nended, 0);
    assert_false(COL(f, "s")->changed);

    /* A nested struct field by its dotted path: only that node changes. */
    OK(f, op(f, "{'op':'drop_not_null','name':'s.b.w'}"));
    assert_true(COL(f, "s.b.w")->nullable);
    assert_true(COL(f, "s.b.w")->changed);
    assert_false(COL(f, "s.b")->changed);
    assert_false(COL(f, "s.b.x")->changed);

    /* Already nullable: a no-op that marks nothing for rewriting. */
    OK(f, op(f, "{'op':'drop_not_null','name':'z'}"));
    assert_true(COL(f, "z")->nullable);
    assert_false(COL(f, "z")->changed);

    /* The response shows the column as nullable. */
    json_t *cols = lake_columns_to_json(&f->t);
    assert_non_null(cols);
    assert_true(json_is_true(json_object_get(json_array_get(cols, 0), "nullable")));
    json_decref(cols);
}

static void test_drop_not_null_refusals(void **state)
{
    struct fx *f = *state;
    OK(f, create(f, "[{'name':'id','type':'long','nullable':false},"
                    " {'name':'m','type':'map','nullable':false,'children':["
                    "   {'name':'key','type':'string','nullable':false},"
                    "   {'name':'value','type':'int','nullable':false}]},"
                    " {'name':'l','type':'list','children':["
                    "   {'name':'element','type':'struct','nullable':false,'children':["
                    "     {'name':'x','type':'int','nullable':false}]}]}]"));
    static const struct {
        const char *op;
        enum error_code code;
        const char *needle;
    } refused[] = {
        {"{'op':'drop_not_null','name':'nope'}", ERR_INVALID, "column 'nope' does not exist"},
        {"{'op':'drop_not_null','name':'_hog_row_id'}", ERR_INVALID,
         "column '_hog_row_id' does not exist"},
        {"{'op':'drop_not_null','name':'id.x'}", ERR_INVALID,
         "cannot address 'id.x': 'id' is 'long', not a struct"},
        /* Iceberg map keys are always required. */
        {"{'op':'drop_not_null','name':'m.key'}", ERR_INVALID,
         "cannot make 'm.key' nullable: it is a map key"},
        {"{'op':'drop_not_null','name':'l.item'}", ERR_INVALID,
         "cannot address 'l.item': 'l' is a 'list', whose children are 'element'"},
        {"{'op':'drop_not_null','name':'m.k'}", ERR_INVALID,
         "'m' is a 'map', whose children are 'key' and 'value'"},
        {"{'op':'drop_not_null','name':'l.element.nope'}", ERR_INVALID,
         "struct 'l.element' has no field 'nope'"},
        {"{'op':'drop_not_null','name':''}", ERR_INVALID, "invalid column path ''"},
        {"{'op':'drop_not_null'}", ERR_MALFORMED,
         "op 'drop_not_null': missing required field 'name'"},
        {"{'op':'drop_not_null','name':'id','to':'x'}", ERR_MALFORMED,
         "op 'drop_not_null': unknown field 'to'"},
        {"{'op':'drop_not_null','name':true}", ERR_MALFORMED, "field 'name' must be a string"},
        {"{'op':'drop_not_null','name':'id','parent':'m'}", ERR_INVALID,
         "op 'drop_not_null' does not take 'parent'"},
    };
    for (size_t i = 0; i < ARRAY_LEN(refused); i++)
        check_err(f, op(f, refused[i].op), refused[i].code, refused[i].needle, __FILE__, __LINE__);
    /* Nothing changed. */
    assert_false(COL(f, "id")->nullable);
    assert_false(COL(f, "m")->nullable);

    /* The map itself, its value and a list's element (and fields inside it)
     * may become nullable; the key stays required. */
    OK(f, op(f, "{'op':'drop_not_null','name':'m'}"));
    OK(f, op(f, "{'op':'drop_not_null','name':'m.value'}"));
    OK(f, op(f, "{'op':'drop_not_null','name':'l.element'}"));
    OK(f, op(f, "{'op':'drop_not_null','name':'l.element.x'}"));
    struct lake_column *m = COL(f, "m"), *l = COL(f, "l");
    assert_true(m->nullable);
    assert_false(m->children[0]->nullable);
    assert_true(m->children[1]->nullable);
    assert_true(l->children[0]->nullable);
    assert_true(l->children[0]->children[0]->nullable);
    assert_true(l->children[0]->children[0]->changed);
    /* Other ops still cannot address list/map internals. */
    INVALID(f, op(f, "{'op':'drop_column','name':'l.element.x'}"), "cannot address 'l.element.x'");
}

/* ----------------------------------------------------------- rename_table */

static void test_rename_table(void **state)
{
    struct fx *f = *state;
    make_base(f);
    f->t.name = "orders";
    OK(f, op(f, "{'op':'rename_table','new_name':'orders'}"));
    assert_false(f->t.name_changed);
    OK(f, op(f, "{'op':'rename_table','new_name':'Orders_2024-v2'}"));
    assert_true(f->t.name_changed);
    assert_string_equal(f->t.name, "Orders_2024-v2");
    INVALID(f, op(f, "{'op':'rename_table','new_name':'2024'}"),
            "invalid table name '2024' (must match ^[A-Za-z_][A-Za-z0-9_-]{0,127}$)");
    INVALID(f, op(f, "{'op':'rename_table','new_name':'a.b'}"), "invalid table name 'a.b'");
    INVALID(f, op(f, "{'op':'rename_table','new_name':''}"), "invalid table name ''");
    json_t *o = json_pack("{s:s,s:o}", "op", "rename_table", "new_name", long_string(129, "t"));
    INVALID(f, op_j(f, o), "invalid table name 'ttttt");
    o = json_pack("{s:s,s:o}", "op", "rename_table", "new_name", long_string(128, "t"));
    OK(f, op_j(f, o));
    assert_int_equal(strlen(f->t.name), 128);
    BAD(f, op(f, "{'op':'rename_table','name':'x'}"), "unknown field 'name'");
    BAD(f, op(f, "{'op':'rename_table'}"), "missing required field 'new_name'");
}

/* ----------------------------------------------------- set_partition_spec */

static void test_partition_spec_every_transform(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op(f, "{'op':'set_partition_spec','fields':["
                "{'source_field_id':1,'transform':'identity'},"
                "{'source_field_id':1,'transform':'bucket','transform_param':16},"
                "{'source_field_id':2,'transform':'truncate','transform_param':4},"
                "{'source_field_id':14,'transform':'year'},"
                "{'source_field_id':14,'transform':'month'},"
                "{'source_field_id':15,'transform':'day'},"
                "{'source_field_id':14,'transform':'hour'},"
                "{'source_field_id':4,'transform':'IDENTITY'},"
                "{'source_field_id':16,'transform':'Bucket','transform_param':2147483647}]}"));
    assert_true(f->t.partitioned);
    assert_true(f->t.spec_changed);
    assert_int_equal(f->t.nspec_fields, 9);
    static const struct lake_partition_field want[] = {
        {1, LTR_IDENTITY, 0}, {1, LTR_BUCKET, 16},  {2, LTR_TRUNCATE, 4},
        {14, LTR_YEAR, 0},    {14, LTR_MONTH, 0},   {15, LTR_DAY, 0},
        {14, LTR_HOUR, 0},    {4, LTR_IDENTITY, 0}, {16, LTR_BUCKET, INT32_MAX},
    };
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        const struct lake_partition_field *got = &f->t.spec_fields[i];
        if (got->source_field_id != want[i].source_field_id ||
            got->transform != want[i].transform || got->param != want[i].param)
            fail_msg("spec field %zu: {%lld, %s, %d}", i, (long long)got->source_field_id,
                     lake_transform_name(got->transform), got->param);
    }
}

static void test_partition_spec_params(void **state)
{
    struct fx *f = *state;
    make_base(f);
    static const struct {
        const char *field;
        const char *msg;
    } bad[] = {
        {"{'source_field_id':1,'transform':'bucket'}",
         "bucket transform requires transform_param >= 1"},
        {"{'source_field_id':1,'transform':'bucket','transform_param':null}",
         "bucket transform requires transform_param"},
        {"{'source_field_id':1,'transform':'bucket','transform_param':0}",
         "bucket transform requires transform_param"},
        {"{'source_field_id':1,'transform':'bucket','transform_param':-3}",
         "bucket transform requires transform_param"},
        {"{'source_field_id':1,'transform':'bucket','transform_param':2147483648}",
         "bucket transform_param 2147483648 is above the maximum 2147483647"},
        {"{'source_field_id':2,'transform':'truncate'}",
         "truncate transform requires transform_param >= 1"},
        {"{'source_field_id':2,'transform':'truncate','transform_param':0}",
         "truncate transform requires transform_param"},
        {"{'source_field_id':1,'transform':'identity','transform_param':1}",
         "transform 'identity' does not take transform_param"},
        {"{'source_field_id':14,'transform':'day','transform_param':3}",
         "transform 'day' does not take transform_param"},
        {"{'source_field_id':14,'transform':'year','transform_param':0}",
         "transform 'year' does not take transform_param"},
        {"{'source_field_id':1,'transform':'bucket[16]'}",
         "unknown partition transform 'bucket[16]'"},
        {"{'source_field_id':1,'transform':'void'}", "unknown partition transform 'void'"},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        char o[300];
        snprintf(o, sizeof o, "{'op':'set_partition_spec','fields':[%s]}", bad[i].field);
        int rc = op(f, o);
        if (rc == 0 || f->err.code != ERR_INVALID || !strstr(f->err.msg, bad[i].msg))
            fail_msg("%s: rc %d kind %d \"%s\", want INVALID \"%s\"", bad[i].field, rc, f->err.code,
                     f->err.msg, bad[i].msg);
    }
    assert_false(f->t.partitioned);
    assert_false(f->t.spec_changed);
    /* transform_param: null is absent for transforms without a parameter. */
    OK(f, op(f, "{'op':'set_partition_spec','fields':[{'source_field_id':14,'transform':'day',"
                "'transform_param':null}]}"));
    assert_int_equal(f->t.spec_fields[0].param, 0);
    /* Shape errors are 400. */
    BAD(f, op(f, "{'op':'set_partition_spec','fields':[{'transform':'day'}]}"),
        "missing required field 'fields[0].source_field_id'");
    BAD(f,
        op(f, "{'op':'set_partition_spec','fields':[{'source_field_id':14,'transform':'day',"
              "'name':'x'}]}"),
        "unknown field 'fields[0].name'");
    BAD(f,
        op(f, "{'op':'set_partition_spec','fields':[{'source_field_id':14,"
              "'transform':'bucket','transform_param':'8'}]}"),
        "field 'fields[0].transform_param' must be an integer");
    BAD(f,
        op(f, "{'op':'set_partition_spec','fields':[{'source_field_id':'14',"
              "'transform':'day'}]}"),
        "must be an integer");
    BAD(f, op(f, "{'op':'set_partition_spec','fields':[null]}"), "must be a JSON object");
    BAD(f, op(f, "{'op':'set_partition_spec'}"), "missing required field 'fields'");
    BAD(f, op(f, "{'op':'set_partition_spec','fields':{}}"), "must be an array");
}

static void test_transform_messages_exact(void **state)
{
    struct fx *f = *state;
    make_base(f);
    INVALID(f,
            op(f, "{'op':'set_partition_spec','fields':[{'source_field_id':1,"
                  "'transform':'bucket','transform_param':0}]}"),
            "bucket transform requires transform_param >= 1");
    INVALID(f,
            op(f, "{'op':'set_partition_spec','fields':[{'source_field_id':13,"
                  "'transform':'bucket','transform_param':4}]}"),
            "; bucketable types are [binary, date, decimal, int, int16, int8, long, string, "
            "time, timestamp, timestamptz, uint16, uint8, uuid]");
    INVALID(f,
            op(f, "{'op':'set_partition_spec','fields':[{'source_field_id':12,"
                  "'transform':'year'}]}"),
            "transform 'year' requires a date or timestamp column; 'n' is 'int'");
}

static void test_partition_spec_sources(void **state)
{
    struct fx *f = *state;
    make_base(f);
    static const struct {
        const char *field;
        const char *msg;
    } bad[] = {
        {"{'source_field_id':999,'transform':'identity'}",
         "partition source field_id 999 is not a live column"},
        {"{'source_field_id':0,'transform':'identity'}",
         "partition source field_id 0 is not a live column"},
        {"{'source_field_id':-1,'transform':'identity'}", "is not a live column"},
        {"{'source_field_id':11,'transform':'identity'}",
         "partition source field_id 11 ('v') is a 'variant': a variant has no single scalar "
         "value, so it cannot be a partition source"},
        {"{'source_field_id':3,'transform':'identity'}",
         "partition source field_id 3 ('addr') is a 'struct': a nested container has no single "
         "value per row and cannot be a partition source; use one of its leaf fields"},
        {"{'source_field_id':6,'transform':'identity'}", "('tags') is a 'list'"},
        {"{'source_field_id':8,'transform':'identity'}", "('attrs') is a 'map'"},
        {"{'source_field_id':7,'transform':'identity'}",
         "partition source field_id 7 ('tags.element') sits under 'tags', a 'list': a row has "
         "many such values, so it cannot be a partition source; struct leaves are the only "
         "nested fields that can"},
        {"{'source_field_id':9,'transform':'identity'}",
         "field_id 9 ('attrs.key') sits under 'attrs', a 'map'"},
        {"{'source_field_id':10,'transform':'bucket','transform_param':4}",
         "sits under 'attrs', a 'map'"},
        {"{'source_field_id':13,'transform':'bucket','transform_param':4}",
         "bucket transform cannot be applied to column 'f' of type 'float'; bucketable types are "
         "[binary, "
         "date, decimal, int, int16, int8, long, string, time, timestamp, timestamptz, uint16, "
         "uint8, uuid]"},
        {"{'source_field_id':15,'transform':'hour'}",
         "transform 'hour' requires a timestamp column; 'd' is 'date'"},
        {"{'source_field_id':12,'transform':'year'}",
         "transform 'year' requires a date or timestamp column; 'n' is 'int'"},
        {"{'source_field_id':13,'transform':'truncate','transform_param':2}",
         "truncate transform cannot be applied to column 'f' of type 'float'"},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        char o[300];
        snprintf(o, sizeof o, "{'op':'set_partition_spec','fields':[%s]}", bad[i].field);
        int rc = op(f, o);
        if (rc == 0 || f->err.code != ERR_INVALID || !strstr(f->err.msg, bad[i].msg))
            fail_msg("%s: rc %d kind %d \"%s\", want INVALID \"%s\"", bad[i].field, rc, f->err.code,
                     f->err.msg, bad[i].msg);
    }
    /* A struct leaf is allowed; a leaf inside a struct inside a list is not. */
    OK(f, op(f, "{'op':'set_partition_spec','fields':[{'source_field_id':5,'transform':'truncate',"
                "'transform_param':3}]}"));
    OK(f, op(f, "{'op':'add_column','column':{'name':'events','type':'list','children':["
                "{'name':'element','type':'struct','children':[{'name':'at','type':'date'}]}]}}"));
    struct lake_column *at = lake_table_find_field(&f->t, 19);
    assert_non_null(at);
    assert_string_equal(at->name, "at");
    INVALID(f,
            op(f, "{'op':'set_partition_spec','fields':[{'source_field_id':19,"
                  "'transform':'day'}]}"),
            "('events.element.at') sits under 'events', a 'list'");
    /* A variant nested in a struct is still a variant. */
    OK(f, op(f, "{'op':'add_column','parent':'addr','column':{'name':'raw','type':'variant'}}"));
    INVALID(f,
            op(f, "{'op':'set_partition_spec','fields':[{'source_field_id':20,"
                  "'transform':'identity'}]}"),
            "('addr.raw') is a 'variant'");
}

static void test_partition_spec_duplicates_and_reset(void **state)
{
    struct fx *f = *state;
    make_base(f);
    INVALID(f,
            op(f, "{'op':'set_partition_spec','fields':["
                  "{'source_field_id':14,'transform':'day'},"
                  "{'source_field_id':12,'transform':'identity'},"
                  "{'source_field_id':14,'transform':'DAY'}]}"),
            "duplicate partition field: field_id 14 with transform 'day'");
    INVALID(f,
            op(f, "{'op':'set_partition_spec','fields':["
                  "{'source_field_id':1,'transform':'bucket','transform_param':4},"
                  "{'source_field_id':1,'transform':'bucket','transform_param':8}]}"),
            "duplicate partition field: field_id 1 with transform 'bucket'");
    assert_false(f->t.partitioned);
    /* The same source with different transforms is fine. */
    OK(f, op(f, "{'op':'set_partition_spec','fields':["
                "{'source_field_id':14,'transform':'day'},"
                "{'source_field_id':14,'transform':'bucket','transform_param':8}]}"));
    assert_true(f->t.partitioned);
    assert_int_equal(f->t.nspec_fields, 2);
    /* [] means unpartitioned. */
    f->t.spec_changed = false;
    OK(f, op(f, "{'op':'set_partition_spec','fields':[]}"));
    assert_false(f->t.partitioned);
    assert_int_equal(f->t.nspec_fields, 0);
    assert_true(f->t.spec_changed);
    assert_null(lake_partition_spec_to_json(&f->t));
}

static void test_partition_spec_field_limit(void **state)
{
    struct fx *f = *state;
    OK(f, create_j(f, wide_columns(70, "c")));
    json_t *fields = json_array();
    for (int i = 1; i <= 64; i++)
        json_array_append_new(
            fields, json_pack("{s:i,s:s}", "source_field_id", i, "transform", "identity"));
    OK(f, op_j(f, json_pack("{s:s,s:O}", "op", "set_partition_spec", "fields", fields)));
    assert_int_equal(f->t.nspec_fields, 64);
    json_array_append_new(fields,
                          json_pack("{s:i,s:s}", "source_field_id", 65, "transform", "identity"));
    INVALID(f, op_j(f, json_pack("{s:s,s:o}", "op", "set_partition_spec", "fields", fields)),
            "a partition spec has at most 64 fields, got 65");
    assert_int_equal(f->t.nspec_fields, 64);
}

/* Every transform on every type through the op; the gates themselves are
 * checked against the shared vectors in test_lake_transform. */
static void test_partition_spec_gate_through_op(void **state)
{
    struct fx *f = *state;
    for (int tr = 0; tr < LTR__COUNT; tr++) {
        for (int ty = 0; ty < LT__COUNT; ty++) {
            fx_reset(f);
            OK(f, create_j(f, json_pack("[o]", column_of_type("c", (enum lake_type)ty))));
            json_t *field = json_pack("{s:i,s:s}", "source_field_id", 1, "transform",
                                      lake_transform_name((enum lake_transform)tr));
            if (lake_transform_takes_param((enum lake_transform)tr))
                json_object_set_new(field, "transform_param", json_integer(7));
            int rc = op_j(f, json_pack("{s:s,s:[o]}", "op", "set_partition_spec", "fields", field));
            bool want = lake_transform_accepts((enum lake_transform)tr, (enum lake_type)ty);
            if ((rc == 0) != want)
                fail_msg("%s on %s: rc %d (%s)", lake_transform_name((enum lake_transform)tr),
                         lake_type_name((enum lake_type)ty), rc, f->err.msg);
            if (!want)
                assert_int_equal(f->err.code, ERR_INVALID);
        }
    }
}

/* -------------------------------------------------------- set_sort_order */

static void test_sort_order(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op(f, "{'op':'set_sort_order','sort_fields':["
                "{'source_field_id':1},"
                "{'source_field_id':2,'direction':'desc'},"
                "{'source_field_id':4,'direction':'asc'},"
                "{'source_field_id':12,'direction':'DESC','null_order':'nulls_first'},"
                "{'source_field_id':13,'direction':'asc','null_order':'NULLS_LAST'},"
                "{'source_field_id':14,'null_order':'nulls_last'}]}"));
    assert_true(f->t.sorted);
    assert_true(f->t.sort_changed);
    static const struct lake_sort_field want[] = {
        {1, false, true}, {2, true, false},   {4, false, true},
        {12, true, true}, {13, false, false}, {14, false, false},
    };
    assert_int_equal(f->t.nsort_fields, ARRAY_LEN(want));
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        const struct lake_sort_field *g = &f->t.sort_fields[i];
        if (g->source_field_id != want[i].source_field_id || g->descending != want[i].descending ||
            g->nulls_first != want[i].nulls_first)
            fail_msg("sort field %zu: {%lld, desc=%d, nulls_first=%d}", i,
                     (long long)g->source_field_id, g->descending, g->nulls_first);
    }
    f->t.sort_changed = false;
    OK(f, op(f, "{'op':'set_sort_order','sort_fields':[]}"));
    assert_false(f->t.sorted);
    assert_true(f->t.sort_changed);
    assert_int_equal(f->t.nsort_fields, 0);
    assert_null(lake_sort_spec_to_json(&f->t));
}

static void test_sort_order_refusals(void **state)
{
    struct fx *f = *state;
    make_base(f);
    INVALID(f,
            op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':1},"
                  "{'source_field_id':2},{'source_field_id':1,'direction':'desc'}]}"),
            "duplicate sort source field_id 1");
    INVALID(f,
            op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':1,"
                  "'direction':'up'}]}"),
            "unknown sort direction 'up' (asc or desc)");
    INVALID(f,
            op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':1,"
                  "'null_order':'first'}]}"),
            "unknown null order 'first' (nulls_first or nulls_last)");
    INVALID(f, op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':11}]}"),
            "sort source field_id 11 ('v') is a 'variant': a variant has no single scalar value, "
            "so it cannot be a sort source");
    INVALID(f, op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':3}]}"),
            "sort source field_id 3 ('addr') is a 'struct'");
    INVALID(f, op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':7}]}"),
            "sort source field_id 7 ('tags.element') sits under 'tags', a 'list'");
    INVALID(f, op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':77}]}"),
            "sort source field_id 77 is not a live column");
    BAD(f, op(f, "{'op':'set_sort_order','sort_fields':[{'direction':'asc'}]}"),
        "missing required field 'sort_fields[0].source_field_id'");
    BAD(f, op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':1,'direction':null}]}"),
        "field 'sort_fields[0].direction' must not be null");
    BAD(f, op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':1,'transform':'x'}]}"),
        "unknown field 'sort_fields[0].transform'");
    BAD(f, op(f, "{'op':'set_sort_order','fields':[]}"), "unknown field 'fields'");
    assert_false(f->t.sorted);
    assert_false(f->t.sort_changed);
    /* Struct leaves may be sort sources. */
    OK(f, op(f, "{'op':'set_sort_order','sort_fields':[{'source_field_id':5}]}"));
}

static void test_sort_order_field_limit(void **state)
{
    struct fx *f = *state;
    OK(f, create_j(f, wide_columns(70, "c")));
    json_t *fields = json_array();
    for (int i = 1; i <= 64; i++)
        json_array_append_new(fields, json_pack("{s:i}", "source_field_id", i));
    OK(f, op_j(f, json_pack("{s:s,s:O}", "op", "set_sort_order", "sort_fields", fields)));
    json_array_append_new(fields, json_pack("{s:i}", "source_field_id", 65));
    INVALID(f, op_j(f, json_pack("{s:s,s:o}", "op", "set_sort_order", "sort_fields", fields)),
            "a sort order has at most 64 fields, got 65");
}

/* -------------------------------------------------------------- comments */

static void test_table_comment(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op(f, "{'op':'set_table_comment','comment':'orders table'}"));
    assert_string_equal(f->t.comment, "orders table");
    assert_true(f->t.comment_changed);
    OK(f, op(f, "{'op':'set_table_comment','comment':''}"));
    assert_non_null(f->t.comment);
    assert_string_equal(f->t.comment, ""); /* distinct from no comment */
    OK(f, op(f, "{'op':'set_table_comment','comment':null}"));
    assert_null(f->t.comment);
    OK(f, op(f, "{'op':'set_table_comment','comment':'again'}"));
    OK(f, op(f, "{'op':'set_table_comment'}")); /* absent = remove */
    assert_null(f->t.comment);

    OK(f, op_j(f, json_pack("{s:s,s:o}", "op", "set_table_comment", "comment",
                            long_string(16384, "c"))));
    assert_int_equal(strlen(f->t.comment), 16384);
    INVALID(f,
            op_j(f, json_pack("{s:s,s:o}", "op", "set_table_comment", "comment",
                              long_string(16385, "c"))),
            "comment must contain at most 16384 characters");
    assert_int_equal(strlen(f->t.comment), 16384); /* unchanged */
    BAD(f, op(f, "{'op':'set_table_comment','comment':5}"), "must be a string");
    BAD(f, op(f, "{'op':'set_table_comment','name':'id','comment':'x'}"), "unknown field 'name'");
}

static void test_column_comment(void **state)
{
    struct fx *f = *state;
    make_loaded(f);
    OK(f, op(f, "{'op':'set_column_comment','name':'s.b.x','comment':'the x'}"));
    struct lake_column *x = COL(f, "s.b.x");
    assert_string_equal(x->comment, "the x");
    assert_true(x->changed);
    assert_false(COL(f, "s.b")->changed);
    assert_string_equal(COL(f, "s.b.y")->comment, "why"); /* loaded comment kept */
    OK(f, op(f, "{'op':'set_column_comment','name':'s.b.y','comment':null}"));
    assert_null(COL(f, "s.b.y")->comment);
    assert_true(COL(f, "s.b.y")->changed);
    OK(f, op(f, "{'op':'set_column_comment','name':'z'}"));
    assert_null(COL(f, "z")->comment);
    INVALID(f, op(f, "{'op':'set_column_comment','name':'nope','comment':'c'}"),
            "column 'nope' does not exist");
    INVALID(f,
            op_j(f, json_pack("{s:s,s:s,s:o}", "op", "set_column_comment", "name", "id", "comment",
                              long_string(16385, "c"))),
            "comment must contain at most 16384 characters");
    assert_false(COL(f, "id")->changed);
    OK(f, op_j(f, json_pack("{s:s,s:s,s:o}", "op", "set_column_comment", "name", "id", "comment",
                            long_string(16384, "c"))));
    BAD(f, op(f, "{'op':'set_column_comment','comment':'c'}"), "missing required field 'name'");
}

static void test_comment_length_counts_characters(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op_j(f, json_pack("{s:s,s:o}", "op", "set_table_comment", "comment",
                            long_string(16384, "\xc3\xa9"))));
    INVALID(f,
            op_j(f, json_pack("{s:s,s:o}", "op", "set_table_comment", "comment",
                              long_string(16385, "\xc3\xa9"))),
            "at most 16384 characters");
    OK(f, op_j(f, json_pack("{s:s,s:s,s:o}", "op", "set_column_comment", "name", "id", "comment",
                            long_string(16384, "\xe2\x82\xac"))));
}

static void test_comment_refuses_nul(void **state)
{
    struct fx *f = *state;
    make_base(f);
    INVALID(
        f,
        op_j(f, json_pack("{s:s,s:s%}", "op", "set_table_comment", "comment", "a\0b", (size_t)3)),
        "NUL");
    INVALID(f,
            op_j(f, json_pack("{s:s,s:s,s:s%}", "op", "set_column_comment", "name", "id", "comment",
                              "a\0b", (size_t)3)),
            "NUL");
}

/* --------------------------------------------------------- set_properties */

static void test_set_properties(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op(f, "{'op':'set_properties','properties':{'owner':'team-a','write.format.default':"
                "'parquet'}}"));
    assert_true(f->t.properties_changed);
    JSON_EQ(f->t.properties, "{'owner':'team-a','write.format.default':'parquet'}");
    /* set_properties replaces the whole map. */
    OK(f, op(f, "{'op':'set_properties','properties':{'tier':'gold'}}"));
    JSON_EQ(f->t.properties, "{'tier':'gold'}");
    OK(f, op(f, "{'op':'set_properties','properties':{}}"));
    JSON_EQ(f->t.properties, "{}");

    static const char *const reserved[] = {"partitioning", "sorted_by", "location", "format",
                                           "comment",      "hoglake.x", "trino.y",  "Owner",
                                           "1key",         "_k",        "a b"};
    for (size_t i = 0; i < ARRAY_LEN(reserved); i++) {
        json_t *o =
            json_pack("{s:s,s:{s:s}}", "op", "set_properties", "properties", reserved[i], "v");
        int rc = op_j(f, o);
        if (rc == 0 || f->err.code != ERR_INVALID ||
            !strstr(f->err.msg, "invalid or reserved custom property key"))
            fail_msg("key '%s': rc %d kind %d \"%s\"", reserved[i], rc, f->err.code, f->err.msg);
    }
    BAD(f, op(f, "{'op':'set_properties','properties':{'k':1}}"),
        "property 'k' must have a string value");
    BAD(f, op(f, "{'op':'set_properties','properties':{'k':null}}"),
        "property 'k' must have a string value");
    BAD(f, op(f, "{'op':'set_properties','properties':[]}"), "must be an object");
    BAD(f, op(f, "{'op':'set_properties'}"), "missing required field 'properties'");
    JSON_EQ(f->t.properties, "{}"); /* failed ops changed nothing */
}

static json_t *many_properties(int n)
{
    json_t *p = json_object();
    for (int i = 0; i < n; i++) {
        char k[16];
        snprintf(k, sizeof k, "key%d", i);
        json_object_set_new(p, k, json_string("v"));
    }
    return p;
}

static void test_set_properties_limits(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f,
       op_j(f, json_pack("{s:s,s:o}", "op", "set_properties", "properties", many_properties(100))));
    assert_int_equal(json_object_size(f->t.properties), 100);
    INVALID(
        f,
        op_j(f, json_pack("{s:s,s:o}", "op", "set_properties", "properties", many_properties(101))),
        "at most 100 custom properties are allowed");
    assert_int_equal(json_object_size(f->t.properties), 100);

    OK(f, op_j(f, json_pack("{s:s,s:{s:o}}", "op", "set_properties", "properties", "k",
                            long_string(4096, "v"))));
    INVALID(f,
            op_j(f, json_pack("{s:s,s:{s:o}}", "op", "set_properties", "properties", "k",
                              long_string(4097, "v"))),
            "custom property values must contain at most 4096 characters");
    /* Key length boundary (pattern allows 128). */
    char key[140];
    memset(key, 'k', 129);
    key[128] = '\0';
    OK(f, op_j(f, json_pack("{s:s,s:{s:s}}", "op", "set_properties", "properties", key, "v")));
    key[128] = 'k';
    key[129] = '\0';
    INVALID(f, op_j(f, json_pack("{s:s,s:{s:s}}", "op", "set_properties", "properties", key, "v")),
            "invalid or reserved custom property key");
}

static void test_write_format_default_property(void **state)
{
    struct fx *f = *state;
    make_base(f);
    INVALID(f, op(f, "{'op':'set_properties','properties':{'write.format.default':'orc'}}"),
            "write.format.default");
    OK(f, op(f, "{'op':'set_properties','properties':{'write.format.default':'parquet'}}"));
    INVALID(f,
            op(f, "{'op':'set_properties','properties':{'write.format.default':"
                  "'clickhouse-mergetree-packed'}}"),
            "property 'write.format.default' must be 'parquet'");
}

static void test_property_value_length_counts_characters(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op_j(f, json_pack("{s:s,s:{s:o}}", "op", "set_properties", "properties", "k",
                            long_string(4096, "\xc3\xa9"))));
    INVALID(f,
            op_j(f, json_pack("{s:s,s:{s:o}}", "op", "set_properties", "properties", "k",
                              long_string(4097, "\xc3\xa9"))),
            "at most 4096 characters");
}

static void test_property_value_refuses_nul(void **state)
{
    struct fx *f = *state;
    make_base(f);
    INVALID(f,
            op_j(f, json_pack("{s:s,s:{s:s%}}", "op", "set_properties", "properties", "k", "a\0b",
                              (size_t)3)),
            "NUL");
}

/* ------------------------------------------------------- op dispatching */

static void test_apply_op_shape_errors(void **state)
{
    struct fx *f = *state;
    make_base(f);
    BAD(f, op(f, "{'op':'frobnicate'}"), "unknown alter op 'frobnicate'");
    BAD(f, op(f, "{'op':'DROP_COLUMN','name':'n'}"), "unknown alter op 'DROP_COLUMN'");
    BAD(f, op(f, "{'op':'frobnicate','parent':'x'}"), "unknown alter op");
    BAD(f, op(f, "{'name':'n'}"), "each op needs a string field 'op'");
    BAD(f, op(f, "{'op':5}"), "each op needs a string field 'op'");
    BAD(f, op(f, "[]"), "each op must be a JSON object");
    BAD(f, op(f, "null"), "each op must be a JSON object");
    BAD(f, op(f, "{'op':'drop_column'}"), "op 'drop_column': missing required field 'name'");
    BAD(f, op(f, "{'op':'drop_column','name':'n','to':'x'}"),
        "op 'drop_column': unknown field 'to'");
    BAD(f, op(f, "{'op':'drop_column','name':3}"), "field 'name' must be a string");
    INVALID(f, op(f, "{'op':'drop_column','name':'addr.zip','parent':'addr'}"),
            "op 'drop_column' does not take 'parent' (only add_column does); address a nested "
            "column by its dotted path instead, e.g. \"addr.zip\"");
    INVALID(f, op(f, "{'op':'rename_column','from':'zip','to':'z','parent':'addr'}"),
            "op 'rename_column' does not take 'parent'");
    INVALID(f, op(f, "{'op':'set_column_comment','name':'zip','parent':'addr'}"),
            "op 'set_column_comment' does not take 'parent'");
    /* Nothing changed. */
    assert_true(has_path(f, "n"));
    assert_true(has_path(f, "addr.zip"));
    assert_int_equal(f->t.node_count, 16);
}

static void test_missing_op_field_message(void **state)
{
    struct fx *f = *state;
    make_base(f);
    BAD(f, op(f, "{'op':'drop_column'}"), "op 'drop_column': missing required field 'name'");
    BAD(f, op(f, "{'op':'rename_column','from':'n'}"),
        "op 'rename_column': missing required field 'to'");
}

static void test_apply_ops_sequencing(void **state)
{
    struct fx *f = *state;
    make_base(f);
    BAD(f, ops(f, "[]"), "ops must contain at least one operation");
    BAD(f, ops(f, "{}"), "field 'ops' must be an array");
    BAD(f, ops(f, "[null]"), "ops[0]: each op must be a JSON object");

    /* Later ops see earlier ones. */
    OK(f, ops(f, "[{'op':'add_column','column':{'name':'tmp','type':'int8'}},"
                 " {'op':'rename_column','from':'tmp','to':'final'},"
                 " {'op':'promote_column','name':'final','to':'int16'},"
                 " {'op':'set_sort_order','sort_fields':[{'source_field_id':17}]}]"));
    assert_false(has_path(f, "tmp"));
    assert_int_equal(COL(f, "final")->field_id, 17);
    assert_int_equal(COL(f, "final")->type, LT_INT16);
    assert_true(f->t.sorted);

    INVALID(f,
            ops(f, "[{'op':'drop_column','name':'n'},"
                   " {'op':'rename_column','from':'n','to':'m'}]"),
            "column 'n' does not exist");
    assert_true(strncmp(f->err.msg, "ops[1]: ", 8) == 0);
    assert_string_equal(f->err.msg, "ops[1]: column 'n' does not exist");

    /* A dropped column is no longer a live partition source (a failed
     * request leaves partial state, so start from a fresh table). */
    fx_reset(f);
    make_base(f);
    INVALID(f,
            ops(f, "[{'op':'drop_column','name':'n'},"
                   " {'op':'set_partition_spec','fields':[{'source_field_id':12,"
                   "'transform':'identity'}]}]"),
            "ops[1]: partition source field_id 12 is not a live column");
}

static void test_apply_ops_error_prefix_and_limit(void **state)
{
    struct fx *f = *state;
    make_base(f);
    f->t.idless_files = 1;
    IDLESS(f,
           ops(f, "[{'op':'set_table_comment','comment':'x'},"
                  " {'op':'drop_column','name':'n'},"
                  " {'op':'add_column','column':{'name':'q','type':'int'}}]"),
           "ops[2]: cannot add column 'q'");
    BAD(f, ops(f, "[{'op':'set_table_comment'},{'op':'nope'}]"), "ops[1]: unknown alter op 'nope'");
    f->t.idless_files = 0;

    fx_reset(f);
    make_base(f);
    json_t *list = json_array();
    for (int i = 0; i < 1000; i++)
        json_array_append_new(list, J("{'op':'set_table_comment','comment':'c'}"));
    OK(f, ops_j(f, json_incref(list)));
    assert_string_equal(f->t.comment, "c");
    fx_reset(f);
    make_base(f);
    json_array_append_new(list, J("{'op':'set_table_comment','comment':'c'}"));
    INVALID(f, ops_j(f, list), "at most 1000 ops per alter, got 1001");
    assert_false(f->t.comment_changed); /* nothing was applied */
}

/* ------------------------------------------------------ loading and paths */

static void test_load_column_orders_siblings(void **state)
{
    struct fx *f = *state;
    struct lake_table *t = &f->t;
    struct error *e = &f->err;
    OK(f, lake_table_load_column(t, 3, 0, "c", LT_INT, 0, 0, true, 2, NULL, e));
    OK(f, lake_table_load_column(t, 1, 0, "a", LT_DECIMAL, 12, 3, false, 0, "money", e));
    OK(f, lake_table_load_column(t, 5, 0, "s", LT_STRUCT, 0, 0, true, 5, NULL, e));
    OK(f, lake_table_load_column(t, 2, 0, "b", LT_STRING, 0, 0, true, 1, NULL, e));
    OK(f, lake_table_load_column(t, 9, 5, "y", LT_INT, 0, 0, true, 1, NULL, e));
    OK(f, lake_table_load_column(t, 8, 5, "x", LT_INT, 0, 0, true, 0, NULL, e));
    assert_int_equal(t->root.nchildren, 4);
    assert_string_equal(t->root.children[0]->name, "a");
    assert_string_equal(t->root.children[1]->name, "b");
    assert_string_equal(t->root.children[2]->name, "c");
    assert_string_equal(t->root.children[3]->name, "s");
    assert_string_equal(COL(f, "s")->children[0]->name, "x");
    assert_string_equal(COL(f, "s")->children[1]->name, "y");
    assert_int_equal(t->next_field_id, 10);
    assert_int_equal(t->node_count, 6);
    struct lake_column *a = COL(f, "a");
    assert_true(a->stored);
    assert_false(a->changed);
    assert_int_equal(a->precision, 12);
    assert_int_equal(a->scale, 3);
    assert_false(a->nullable);
    assert_string_equal(a->comment, "money");
    WALK_EQ(f, "[1,2,3,5,8,9]");

    INVALID(f, lake_table_load_column(t, 20, 19, "orphan", LT_INT, 0, 0, true, 0, NULL, e),
            "stored column 20 has no live parent 19");

    /* A new column after loading: ordinal max+1, id after the highest. */
    OK(f, op(f, "{'op':'add_column','column':{'name':'d','type':'int'}}"));
    assert_int_equal(COL(f, "d")->ordinal, 6);
    assert_int_equal(COL(f, "d")->field_id, 10);
}

static void test_find_path(void **state)
{
    struct fx *f = *state;
    make_base(f);
    struct error e;
    assert_ptr_equal(lake_table_find_path(&f->t, "addr.city", &e), lake_table_find_field(&f->t, 5));
    static const struct {
        const char *path;
        const char *msg;
    } bad[] = {
        {"", "invalid column path '': a path is dot-separated column names, none empty"},
        {".addr", "invalid column path '.addr'"},
        {"addr.", "invalid column path 'addr.'"},
        {"addr..zip", "none empty"},
        {"Addr.zip", "column 'Addr.zip' does not exist"},
        {"addr.zip.x", "cannot address 'addr.zip.x': 'addr.zip' is 'string', not a struct"},
        {"tags.element", "cannot address 'tags.element': 'tags' is a 'list'"},
        {"attrs.value", "'attrs' is a 'map'"},
        {"v.x", "'v' is 'variant', not a struct"},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        memset(&e, 0, sizeof e);
        if (lake_table_find_path(&f->t, bad[i].path, &e) != NULL)
            fail_msg("path '%s' resolved", bad[i].path);
        if (e.code != ERR_INVALID || !strstr(e.msg, bad[i].msg))
            fail_msg("path '%s': kind %d \"%s\", want \"%s\"", bad[i].path, e.code, e.msg,
                     bad[i].msg);
    }
    /* A very long path is refused without overrunning anything. */
    char longp[2000];
    memset(longp, 'a', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    assert_null(lake_table_find_path(&f->t, longp, &e));
    assert_int_equal(e.code, ERR_INVALID);
    longp[300] = '\0';
    assert_null(lake_table_find_path(&f->t, longp, &e));
    assert_int_equal(e.code, ERR_INVALID);
}

/* ------------------------------------------------------------- rendering */

static void test_columns_to_json(void **state)
{
    struct fx *f = *state;
    OK(f, create(f, "[{'name':'id','type':'long','nullable':false},"
                    " {'name':'amount','type':'decimal','type_params':{'precision':10,'scale':2},"
                    "  'comment':'money'},"
                    " {'name':'s','type':'struct','children':[{'name':'a','type':'int'}]},"
                    " {'name':'l','type':'list','children':[{'name':'element','type':'decimal'}]},"
                    " {'name':'m','type':'map','children':["
                    "   {'name':'key','type':'string','nullable':false},"
                    "   {'name':'value','type':'variant','comment':''}]}]"));
    json_t *got = lake_columns_to_json(&f->t);
    JSON_EQ(got,
            "[{'name':'id','type':'long','nullable':false,'field_id':1,'ordinal':0},"
            " {'name':'amount','type':'decimal','type_params':{'precision':10,'scale':2},"
            "  'nullable':true,'comment':'money','field_id':2,'ordinal':1},"
            " {'name':'s','type':'struct','nullable':true,'field_id':3,'ordinal':2,'children':["
            "   {'name':'a','type':'int','nullable':true,'field_id':4,'ordinal':0}]},"
            " {'name':'l','type':'list','nullable':true,'field_id':5,'ordinal':3,'children':["
            "   {'name':'element','type':'decimal','type_params':{'precision':38,'scale':0},"
            "    'nullable':true,'field_id':6,'ordinal':0}]},"
            " {'name':'m','type':'map','nullable':true,'field_id':7,'ordinal':4,'children':["
            "   {'name':'key','type':'string','nullable':false,'field_id':8,'ordinal':0},"
            "   {'name':'value','type':'variant','nullable':true,'comment':'','field_id':9,"
            "    'ordinal':1}]}]");
    json_decref(got);

    json_t *tp = lake_column_type_params(COL(f, "amount"));
    JSON_EQ(tp, "{'precision':10,'scale':2}");
    json_decref(tp);
    assert_null(lake_column_type_params(COL(f, "id")));
    assert_null(lake_column_type_params(COL(f, "s")));

    /* After alter ops the rendering follows the model. */
    OK(f, ops(f, "[{'op':'rename_column','from':'s.a','to':'b'},"
                 " {'op':'promote_column','name':'s.b','to':'long'},"
                 " {'op':'drop_column','name':'l'},"
                 " {'op':'set_column_comment','name':'amount','comment':null}]"));
    got = lake_columns_to_json(&f->t);
    JSON_EQ(got,
            "[{'name':'id','type':'long','nullable':false,'field_id':1,'ordinal':0},"
            " {'name':'amount','type':'decimal','type_params':{'precision':10,'scale':2},"
            "  'nullable':true,'field_id':2,'ordinal':1},"
            " {'name':'s','type':'struct','nullable':true,'field_id':3,'ordinal':2,'children':["
            "   {'name':'b','type':'long','nullable':true,'field_id':4,'ordinal':0}]},"
            " {'name':'m','type':'map','nullable':true,'field_id':7,'ordinal':4,'children':["
            "   {'name':'key','type':'string','nullable':false,'field_id':8,'ordinal':0},"
            "   {'name':'value','type':'variant','nullable':true,'comment':'','field_id':9,"
            "    'ordinal':1}]}]");
    json_decref(got);
}

static void test_columns_to_json_empty_table(void **state)
{
    struct fx *f = *state;
    json_t *got = lake_columns_to_json(&f->t);
    JSON_EQ(got, "[]");
    json_decref(got);
}

static void test_partition_and_sort_json(void **state)
{
    struct fx *f = *state;
    make_base(f);
    assert_null(lake_partition_spec_to_json(&f->t));
    assert_null(lake_sort_spec_to_json(&f->t));
    OK(f, op(f, "{'op':'set_partition_spec','fields':["
                "{'source_field_id':1,'transform':'BUCKET','transform_param':16},"
                "{'source_field_id':14,'transform':'day','transform_param':null},"
                "{'source_field_id':4,'transform':'identity'},"
                "{'source_field_id':2,'transform':'truncate','transform_param':3}]}"));
    f->t.spec_id = 3; /* assigned by the caller when writing */
    json_t *p = lake_partition_spec_to_json(&f->t);
    JSON_EQ(p, "{'spec_id':3,'fields':["
               "{'source_field_id':1,'transform':'bucket','transform_param':16},"
               "{'source_field_id':14,'transform':'day'},"
               "{'source_field_id':4,'transform':'identity'},"
               "{'source_field_id':2,'transform':'truncate','transform_param':3}]}");
    json_decref(p);

    OK(f, op(f, "{'op':'set_sort_order','sort_fields':["
                "{'source_field_id':1},"
                "{'source_field_id':14,'direction':'desc'},"
                "{'source_field_id':5,'direction':'asc','null_order':'nulls_last'}]}"));
    f->t.sort_id = 2;
    json_t *s = lake_sort_spec_to_json(&f->t);
    JSON_EQ(s, "{'sort_id':2,'fields':["
               "{'source_field_id':1,'direction':'asc','null_order':'nulls_first'},"
               "{'source_field_id':14,'direction':'desc','null_order':'nulls_last'},"
               "{'source_field_id':5,'direction':'asc','null_order':'nulls_last'}]}");
    json_decref(s);
}

static void test_loaded_spec_json(void **state)
{
    struct fx *f = *state;
    make_loaded(f);
    struct lake_partition_field a = {1, LTR_BUCKET, 8}, b = {3, LTR_IDENTITY, 0};
    OK(f, lake_table_load_partition_field(&f->t, &a, &f->err));
    OK(f, lake_table_load_partition_field(&f->t, &b, &f->err));
    struct lake_sort_field s = {7, true, true};
    OK(f, lake_table_load_sort_field(&f->t, &s, &f->err));
    f->t.spec_id = 7;
    f->t.sort_id = 1;
    json_t *p = lake_partition_spec_to_json(&f->t);
    JSON_EQ(p, "{'spec_id':7,'fields':[{'source_field_id':1,'transform':'bucket',"
               "'transform_param':8},{'source_field_id':3,'transform':'identity'}]}");
    json_decref(p);
    json_t *so = lake_sort_spec_to_json(&f->t);
    JSON_EQ(so, "{'sort_id':1,'fields':[{'source_field_id':7,'direction':'desc',"
                "'null_order':'nulls_first'}]}");
    json_decref(so);
    assert_false(f->t.spec_changed);
    assert_false(f->t.sort_changed);
}

/* ------------------------------------------------ primary timestamp */

static void test_primary_ts_set_clear_and_noop(void **state)
{
    struct fx *f = *state;
    make_base(f);
    assert_int_equal(f->t.primary_ts_field_id, 0);
    assert_null(lake_table_primary_ts_name(&f->t));
    OK(f, op(f, "{'op':'set_primary_timestamp_column','column':'ts'}"));
    assert_int_equal(f->t.primary_ts_field_id, 14);
    assert_true(f->t.primary_ts_changed);
    assert_string_equal(lake_table_primary_ts_name(&f->t), "ts");
    OK(f, op(f, "{'op':'set_primary_timestamp_column','column':'d'}"));
    assert_int_equal(f->t.primary_ts_field_id, 15);
    assert_string_equal(lake_table_primary_ts_name(&f->t), "d");

    /* Setting the current value again changes nothing. */
    f->t.primary_ts_changed = false;
    OK(f, op(f, "{'op':'set_primary_timestamp_column','column':'d'}"));
    assert_false(f->t.primary_ts_changed);

    OK(f, op(f, "{'op':'set_primary_timestamp_column','column':null}"));
    assert_int_equal(f->t.primary_ts_field_id, 0);
    assert_true(f->t.primary_ts_changed);
    assert_null(lake_table_primary_ts_name(&f->t));
    /* No other change flag moves. */
    assert_false(f->t.comment_changed);
    assert_false(f->t.properties_changed);
    assert_false(f->t.name_changed);
    assert_int_equal(f->t.nended, 0);
}

static void test_primary_ts_type_gate(void **state)
{
    struct fx *f = *state;
    static const char *const accepted[] = {"date",      "timestamp_s",  "timestamp_ms",
                                           "timestamp", "timestamp_ns", "timestamptz"};
    for (size_t i = 0; i < ARRAY_LEN(accepted); i++) {
        fx_reset(f);
        OK(f, create_j(f, json_pack("[{s:s,s:s},{s:s,s:s}]", "name", "id", "type", "long", "name",
                                    "at", "type", accepted[i])));
        OK(f, op(f, "{'op':'set_primary_timestamp_column','column':'at'}"));
        assert_int_equal(f->t.primary_ts_field_id, 2);
    }
    static const char *const refused[] = {"time", "long", "string", "int", "json", "uuid"};
    for (size_t i = 0; i < ARRAY_LEN(refused); i++) {
        fx_reset(f);
        OK(f, create_j(f, json_pack("[{s:s,s:s}]", "name", "at", "type", refused[i])));
        char want[200];
        snprintf(want, sizeof want,
                 "primary timestamp column 'at' is '%s'; it must be a date or timestamp column",
                 refused[i]);
        INVALID(f, op(f, "{'op':'set_primary_timestamp_column','column':'at'}"), want);
        assert_int_equal(f->t.primary_ts_field_id, 0);
        assert_false(f->t.primary_ts_changed);
    }
}

static void test_primary_ts_refusals(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f,
       op(f, "{'op':'add_column','parent':'addr','column':{'name':'seen','type':'timestamptz'}}"));
    INVALID(f, op(f, "{'op':'set_primary_timestamp_column','column':'nope'}"),
            "primary timestamp column: column 'nope' does not exist");
    INVALID(f, op(f, "{'op':'set_primary_timestamp_column','column':'addr.seen'}"),
            "primary timestamp column 'addr.seen' must be a top-level column, not a field inside "
            "'addr'");
    INVALID(f, op(f, "{'op':'set_primary_timestamp_column','column':'addr'}"), "is 'struct'");
    INVALID(f, op(f, "{'op':'set_primary_timestamp_column','column':'tags.element'}"),
            "list/map internals");
    INVALID(f, op(f, "{'op':'set_primary_timestamp_column','column':''}"), "invalid column path");
    /* Paths match exactly, as for every other op. */
    INVALID(f, op(f, "{'op':'set_primary_timestamp_column','column':'TS'}"), "does not exist");
    BAD(f, op(f, "{'op':'set_primary_timestamp_column'}"), "missing required field 'column'");
    BAD(f, op(f, "{'op':'set_primary_timestamp_column','column':5}"), "must be a string");
    BAD(f, op(f, "{'op':'set_primary_timestamp_column','column':'ts','name':'x'}"),
        "unknown field 'name'");
    assert_int_equal(f->t.primary_ts_field_id, 0);
    assert_false(f->t.primary_ts_changed);
}

static void test_primary_ts_follows_renames_and_blocks_drops(void **state)
{
    struct fx *f = *state;
    make_base(f);
    OK(f, op(f, "{'op':'set_primary_timestamp_column','column':'ts'}"));
    OK(f, op(f, "{'op':'rename_column','from':'ts','to':'created_at'}"));
    assert_int_equal(f->t.primary_ts_field_id, 14);
    assert_string_equal(lake_table_primary_ts_name(&f->t), "created_at");

    INVALID(f, op(f, "{'op':'drop_column','name':'created_at'}"),
            "cannot drop column 'created_at': it is the table's primary timestamp column");
    assert_true(has_path(f, "created_at"));
    assert_int_equal(f->t.nended, 0);
    /* Other columns still drop. */
    OK(f, op(f, "{'op':'drop_column','name':'d'}"));

    /* Clearing (or moving) it first lets the drop through, in one alter. */
    OK(f, ops(f, "[{'op':'set_primary_timestamp_column','column':null},"
                 "{'op':'drop_column','name':'created_at'}]"));
    assert_int_equal(f->t.primary_ts_field_id, 0);
    assert_false(has_path(f, "created_at"));

    /* A column added earlier in the same alter can be named. */
    OK(f, ops(f, "[{'op':'add_column','column':{'name':'at','type':'timestamp_ns'}},"
                 "{'op':'set_primary_timestamp_column','column':'at'}]"));
    assert_int_equal(f->t.primary_ts_field_id, 17);
}

static void test_primary_ts_loader(void **state)
{
    struct fx *f = *state;
    make_loaded(f);
    OK(f, lake_table_load_column(&f->t, 8, 0, "at", LT_TIMESTAMPTZ, 0, 0, true, 3, NULL, &f->err));
    OK(f, lake_table_load_column(&f->t, 9, 2, "inner", LT_DATE, 0, 0, true, 2, NULL, &f->err));
    INVALID(f, lake_table_load_primary_ts(&f->t, 99, &f->err), "field_id 99");
    INVALID(f, lake_table_load_primary_ts(&f->t, 7, &f->err), "field_id 7");
    INVALID(f, lake_table_load_primary_ts(&f->t, 9, &f->err), "field_id 9");
    assert_int_equal(f->t.primary_ts_field_id, 0);
    OK(f, lake_table_load_primary_ts(&f->t, 8, &f->err));
    assert_int_equal(f->t.primary_ts_field_id, 8);
    assert_string_equal(lake_table_primary_ts_name(&f->t), "at");
    assert_false(f->t.primary_ts_changed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_create_ids_depth_first),
        TEST(test_create_ids_start_at_next_field_id),
        TEST(test_create_defaults_and_every_scalar_type),
        TEST(test_create_type_names_case_insensitive),
        TEST(test_create_unknown_and_refused_types),
        TEST(test_refused_type_messages_exact),
        TEST(test_create_bad_request_shapes),
        TEST(test_create_depth_limit),
        TEST(test_create_node_limit),
        TEST(test_alter_node_limit_counts_existing),
        TEST(test_list_shape),
        TEST(test_map_shape),
        TEST(test_synthetic_name_message_exact),
        TEST(test_struct_shape),
        TEST(test_decimal_params),
        TEST(test_type_params_forbidden),
        TEST(test_children_forbidden_on_scalars),
        TEST(test_duplicate_sibling_names),
        TEST(test_reserved_prefix_any_depth),
        TEST(test_invalid_column_names),
        TEST(test_column_comments_on_create),
        TEST(test_add_column_top_level),
        TEST(test_add_column_ordinal_is_max_plus_one),
        TEST(test_add_column_into_struct),
        TEST(test_add_column_bad_parents),
        TEST(test_add_column_depth_via_parent),
        TEST(test_add_column_duplicates_and_names),
        TEST(test_add_column_where_path),
        TEST(test_add_column_with_metadata),
        TEST(test_add_column_idless_guard),
        TEST(test_add_required_column_over_live_files),
        TEST(test_drop_column),
        TEST(test_drop_last_column_and_last_field),
        TEST(test_drop_spec_and_sort_sources),
        TEST(test_drop_loaded_spec_source),
        TEST(test_drop_ended_field_ids),
        TEST(test_rename_column),
        TEST(test_rename_column_refusals),
        TEST(test_rename_column_idless_guard),
        TEST(test_promote_matrix_through_op),
        TEST(test_promote_misc),
        TEST(test_drop_not_null),
        TEST(test_drop_not_null_refusals),
        TEST(test_rename_table),
        TEST(test_partition_spec_every_transform),
        TEST(test_partition_spec_params),
        TEST(test_transform_messages_exact),
        TEST(test_partition_spec_sources),
        TEST(test_partition_spec_duplicates_and_reset),
        TEST(test_partition_spec_field_limit),
        TEST(test_partition_spec_gate_through_op),
        TEST(test_sort_order),
        TEST(test_sort_order_refusals),
        TEST(test_sort_order_field_limit),
        TEST(test_table_comment),
        TEST(test_column_comment),
        TEST(test_comment_length_counts_characters),
        TEST(test_comment_refuses_nul),
        TEST(test_set_properties),
        TEST(test_set_properties_limits),
        TEST(test_write_format_default_property),
        TEST(test_property_value_length_counts_characters),
        TEST(test_property_value_refuses_nul),
        TEST(test_apply_op_shape_errors),
        TEST(test_missing_op_field_message),
        TEST(test_apply_ops_sequencing),
        TEST(test_apply_ops_error_prefix_and_limit),
        TEST(test_load_column_orders_siblings),
        TEST(test_find_path),
        TEST(test_columns_to_json),
        TEST(test_columns_to_json_empty_table),
        TEST(test_partition_and_sort_json),
        TEST(test_loaded_spec_json),
        TEST(test_primary_ts_set_clear_and_noop),
        TEST(test_primary_ts_type_gate),
        TEST(test_primary_ts_refusals),
        TEST(test_primary_ts_follows_renames_and_blocks_drops),
        TEST(test_primary_ts_loader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
