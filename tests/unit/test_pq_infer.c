/* Parquet schema -> catalog table definition (parquet/infer.h): the
 * writer's own schemas map back to their tables (with field ids), foreign
 * shapes (legacy annotations, two-level lists, bare repeated fields,
 * INT96...) map as documented, ids are kept only when complete, and types
 * with no catalog equivalent are refused by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parquet/infer.h"
#include "pq_testlib.h"

/* "name:type[(p,s)][!]#id", containers as type<children>. */
static void describe_column(const struct lake_column *c, struct buf *out)
{
    buf_printf(out, "%s:%s", c->name, lake_type_name(c->type));
    if (c->type == LT_DECIMAL)
        buf_printf(out, "(%d,%d)", c->precision, c->scale);
    if (c->nchildren) {
        buf_putc(out, '<');
        for (size_t i = 0; i < c->nchildren; i++) {
            if (i)
                buf_puts(out, ", ");
            describe_column(c->children[i], out);
        }
        buf_putc(out, '>');
    }
    if (!c->nullable)
        buf_putc(out, '!');
    buf_printf(out, "#%lld", (long long)c->field_id);
}

static char *describe(const struct lake_table *t)
{
    struct buf out = BUF_INIT;
    for (size_t i = 0; i < t->root.nchildren; i++) {
        if (i)
            buf_puts(&out, ", ");
        describe_column(t->root.children[i], &out);
    }
    return buf_take(&out);
}

/* Whether infer() takes VARIANT groups as variant columns. */
static bool with_variants;

/* Infers from a file schema; returns the description, or NULL with err. */
static char *infer(const struct pq_schema *s, struct error *err, int64_t *next_id)
{
    struct arena a;
    arena_init(&a, 0);
    struct lake_table t;
    lake_table_init(&t, &a);
    char *out = NULL;
    const struct pq_infer_options variants = {.variants = true};
    int rc = pq_infer_table_with(s, &t, with_variants ? &variants : NULL, NULL, err);
    if (rc == 0) {
        out = describe(&t);
        if (next_id)
            *next_id = t.next_field_id;
    }
    lake_table_release(&t);
    arena_free(&a);
    return out;
}

static void expect_description(const char *got, const char *want)
{
    if (!got || strcmp(got, want) != 0)
        fail_msg("got  %s\nwant %s", got ? got : "(refused)", want);
}

static void writer_schemas_map_back(void **state)
{
    (void)state;
    struct test_table tt;
    test_table_init(&tt, "[{'name':'id','type':'long','nullable':false},"
                         "{'name':'b','type':'boolean'},{'name':'i8','type':'int8'},"
                         "{'name':'i16','type':'int16'},{'name':'i','type':'int'},"
                         "{'name':'u8','type':'uint8'},{'name':'u16','type':'uint16'},"
                         "{'name':'u32','type':'uint32'},{'name':'u64','type':'uint64'},"
                         "{'name':'f','type':'float'},{'name':'d','type':'double'},"
                         "{'name':'dec','type':'decimal','type_params':{'precision':38,'scale':9}},"
                         "{'name':'dt','type':'date'},{'name':'tm','type':'time'},"
                         "{'name':'ts','type':'timestamp_s'},{'name':'tms','type':'timestamp_ms'},"
                         "{'name':'tus','type':'timestamp'},{'name':'tns','type':'timestamp_ns'},"
                         "{'name':'tz','type':'timestamptz'},{'name':'s','type':'string'},"
                         "{'name':'j','type':'json'},{'name':'u','type':'uuid'},"
                         "{'name':'bin','type':'binary'},"
                         "{'name':'st','type':'struct','nullable':false,'children':["
                         "  {'name':'a','type':'int','nullable':false},"
                         "  {'name':'l','type':'list','children':[{'name':'element',"
                         "    'type':'string','nullable':false}]}]},"
                         "{'name':'m','type':'map','children':["
                         "  {'name':'key','type':'string','nullable':false},"
                         "  {'name':'value','type':'map','children':["
                         "    {'name':'key','type':'date','nullable':false},"
                         "    {'name':'value','type':'decimal','type_params':{'precision':5,"
                         "      'scale':5}}]}]}]");
    struct arena a;
    arena_init(&a, 0);
    struct pq_schema s;
    struct error err = {0};
    if (pq_schema_from_table(&tt.t, &a, &s, &err) != 0)
        fail_msg("%s", err.msg);
    int64_t next = 0;
    char *got = infer(&s, &err, &next);
    /* uint32 is stored as a plain INT64 and timestamp_s as milliseconds:
     * they come back as long and timestamp_ms. */
    expect_description(
        got, "id:long!#1, b:boolean#2, i8:int8#3, i16:int16#4, i:int#5, u8:uint8#6, "
             "u16:uint16#7, u32:long#8, u64:uint64#9, f:float#10, d:double#11, "
             "dec:decimal(38,9)#12, dt:date#13, tm:time#14, ts:timestamp_ms#15, "
             "tms:timestamp_ms#16, tus:timestamp#17, tns:timestamp_ns#18, tz:timestamptz#19, "
             "s:string#20, j:json#21, u:uuid#22, bin:binary#23, "
             "st:struct<a:int!#25, l:list<element:string!#27>#26>!#24, "
             "m:map<key:string!#29, value:map<key:date!#31, value:decimal(5,5)#32>#30>#28");
    assert_int_equal(next, 33);
    free(got);
    arena_free(&a);
    test_table_release(&tt);
}

/* ---- hand-built file schemas ---- */

struct elements {
    struct pq_schema_element el[64];
    size_t n;
};

static struct pq_schema_element *add(struct elements *e, const char *name, int rep, int nchildren,
                                     int type, int32_t id)
{
    assert_true(e->n < 64);
    struct pq_schema_element *x = &e->el[e->n++];
    memset(x, 0, sizeof *x);
    x->name = name;
    if (rep >= 0) {
        x->has_repetition = true;
        x->repetition = (enum pq_repetition)rep;
    }
    if (nchildren >= 0) {
        x->has_num_children = true;
        x->num_children = nchildren;
    } else {
        x->has_type = true;
        x->type = (enum pq_type)type;
    }
    if (id) {
        x->has_field_id = true;
        x->field_id = id;
    }
    return x;
}

static struct pq_schema_element *leaf(struct elements *e, const char *name, int rep, int type)
{
    return add(e, name, rep, -1, type, 0);
}

static void converted(struct pq_schema_element *x, enum pq_converted ct)
{
    x->has_converted = true;
    x->converted = ct;
}

static void build(struct elements *e, struct arena *a, struct pq_schema *s)
{
    e->el[0].num_children = 0;
    /* Count top-level children: walk the flattened tree. */
    size_t i = 1;
    int top = 0;
    while (i < e->n) {
        size_t pending = 1;
        while (pending && i < e->n) {
            pending--;
            if (e->el[i].has_num_children)
                pending += (size_t)e->el[i].num_children;
            i++;
        }
        top++;
    }
    e->el[0].num_children = top;
    struct pq_file_meta m = {0};
    m.schema = e->el;
    m.nschema = e->n;
    struct error err = {0};
    if (pq_schema_from_file(&m, a, s, &err) != 0)
        fail_msg("schema: %s", err.msg);
}

static void start(struct elements *e)
{
    e->n = 0;
    add(e, "schema", -1, 0, 0, 0);
}

/* The hand-built schema must infer to `want` (next_field_id want_next,
 * when not 0). */
static void expect_inferred(struct elements *e, const char *want, int64_t want_next)
{
    struct arena a;
    arena_init(&a, 0);
    struct pq_schema s;
    build(e, &a, &s);
    struct error err = {0};
    int64_t next = 0;
    char *got = infer(&s, &err, &next);
    if (!got)
        fail_msg("refused: %s", err.msg);
    expect_description(got, want);
    if (want_next)
        assert_int_equal(next, want_next);
    free(got);
    arena_free(&a);
}

static void legacy_and_foreign_annotations(void **state)
{
    (void)state;
    struct elements e;
    start(&e);
    converted(leaf(&e, "u8", PQ_OPTIONAL, PQ_INT32), PQ_CT_UINT_8);
    converted(leaf(&e, "i16", PQ_OPTIONAL, PQ_INT32), PQ_CT_INT_16);
    converted(leaf(&e, "u32", PQ_OPTIONAL, PQ_INT32), PQ_CT_UINT_32);
    converted(leaf(&e, "i32", PQ_REQUIRED, PQ_INT32), PQ_CT_INT_32);
    converted(leaf(&e, "d", PQ_OPTIONAL, PQ_INT32), PQ_CT_DATE);
    converted(leaf(&e, "tmil", PQ_OPTIONAL, PQ_INT32), PQ_CT_TIME_MILLIS);
    converted(leaf(&e, "tmic", PQ_OPTIONAL, PQ_INT64), PQ_CT_TIME_MICROS);
    converted(leaf(&e, "tsm", PQ_OPTIONAL, PQ_INT64), PQ_CT_TIMESTAMP_MILLIS);
    converted(leaf(&e, "tsu", PQ_OPTIONAL, PQ_INT64), PQ_CT_TIMESTAMP_MICROS);
    converted(leaf(&e, "u64", PQ_OPTIONAL, PQ_INT64), PQ_CT_UINT_64);
    converted(leaf(&e, "s", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_UTF8);
    converted(leaf(&e, "en", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_ENUM);
    converted(leaf(&e, "j", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_JSON);
    converted(leaf(&e, "bs", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_BSON);
    struct pq_schema_element *x = leaf(&e, "dec", PQ_OPTIONAL, PQ_INT64);
    converted(x, PQ_CT_DECIMAL);
    x->has_decimal = true;
    x->precision = 18;
    x->scale = 2;
    x = leaf(&e, "decb", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    x->logical.kind = PQ_LT_DECIMAL;
    x->logical.precision = 30;
    x->logical.scale = 0;
    x = leaf(&e, "uuid", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY);
    x->type_length = 16;
    x->logical.kind = PQ_LT_UUID;
    x = leaf(&e, "fl16", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY);
    x->type_length = 2;
    x->logical.kind = PQ_LT_FLOAT16;
    leaf(&e, "fixed", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY)->type_length = 7;
    leaf(&e, "i96", PQ_OPTIONAL, PQ_INT96);
    x = leaf(&e, "tns", PQ_OPTIONAL, PQ_INT64);
    x->logical = (struct pq_logical){.kind = PQ_LT_TIMESTAMP, .unit = PQ_NANOS, .utc = false};
    x = leaf(&e, "tzms", PQ_OPTIONAL, PQ_INT64);
    x->logical = (struct pq_logical){.kind = PQ_LT_TIMESTAMP, .unit = PQ_MILLIS, .utc = true};
    x = leaf(&e, "ui32", PQ_OPTIONAL, PQ_INT32);
    x->logical = (struct pq_logical){.kind = PQ_LT_INTEGER, .bit_width = 32, .is_signed = false};
    x = leaf(&e, "i64", PQ_OPTIONAL, PQ_INT64);
    x->logical = (struct pq_logical){.kind = PQ_LT_INTEGER, .bit_width = 64, .is_signed = true};
    /* No field ids in the file: assigned depth-first from 1. */
    expect_inferred(&e,
                    "u8:uint8#1, i16:int16#2, u32:uint32#3, i32:int!#4, d:date#5, "
                    "tmil:time#6, tmic:time#7, tsm:timestamptz#8, tsu:timestamptz#9, "
                    "u64:uint64#10, s:string#11, en:string#12, j:json#13, bs:binary#14, "
                    "dec:decimal(18,2)#15, decb:decimal(30,0)#16, uuid:uuid#17, "
                    "fl16:float#18, fixed:binary#19, i96:timestamp_ns#20, "
                    "tns:timestamp_ns#21, tzms:timestamptz#22, ui32:uint32#23, i64:long#24",
                    25);
}

static void list_and_map_shapes(void **state)
{
    (void)state;
    struct elements e;
    start(&e);
    /* A two-level list: the repeated primitive is the element. */
    converted(add(&e, "two", PQ_OPTIONAL, 1, 0, 10), PQ_CT_LIST);
    leaf(&e, "array", PQ_REPEATED, PQ_INT32)->has_field_id = false;
    /* A bare repeated field: a required list of required elements. */
    add(&e, "bare", PQ_REPEATED, -1, PQ_BYTE_ARRAY, 11)->logical.kind = PQ_LT_STRING;
    /* A list of structs whose repeated group is the element. */
    converted(add(&e, "recs", PQ_REQUIRED, 1, 0, 12), PQ_CT_LIST);
    add(&e, "item", PQ_REPEATED, 2, 0, 13);
    leaf(&e, "x", PQ_REQUIRED, PQ_DOUBLE);
    leaf(&e, "y", PQ_OPTIONAL, PQ_BOOLEAN);
    /* A legacy MAP_KEY_VALUE map with an OPTIONAL key (made required). */
    converted(add(&e, "mp", PQ_OPTIONAL, 1, 0, 14), PQ_CT_MAP_KEY_VALUE);
    add(&e, "map", PQ_REPEATED, 2, 0, 0);
    leaf(&e, "key", PQ_OPTIONAL, PQ_INT32);
    leaf(&e, "value", PQ_REQUIRED, PQ_FLOAT);
    /* Some elements lack ids: every id is assigned. */
    expect_inferred(&e,
                    "two:list<element:int!#2>#1, bare:list<element:string!#4>!#3, "
                    "recs:list<element:struct<x:double!#7, y:boolean#8>!#6>!#5, "
                    "mp:map<key:int!#10, value:float!#11>#9",
                    12);
}

static void field_ids_kept_only_when_complete(void **state)
{
    (void)state;
    struct elements e;
    start(&e);
    add(&e, "a", PQ_REQUIRED, -1, PQ_INT64, 40);
    add(&e, "l", PQ_OPTIONAL, 1, 0, 7)->logical.kind = PQ_LT_LIST;
    add(&e, "list", PQ_REPEATED, 1, 0, 0); /* synthetic: needs no id */
    add(&e, "element", PQ_OPTIONAL, -1, PQ_INT32, 8);
    add(&e, "st", PQ_OPTIONAL, 1, 0, 3);
    add(&e, "z", PQ_OPTIONAL, -1, PQ_FLOAT, 100);
    expect_inferred(&e, "a:long!#40, l:list<element:int#8>#7, st:struct<z:float#100>#3", 101);
    /* The same with one id duplicated: all assigned. */
    e.el[6].field_id = 40;
    expect_inferred(&e, "a:long!#1, l:list<element:int#3>#2, st:struct<z:float#5>#4", 6);
    /* And with one missing. */
    e.el[6].field_id = 100;
    e.el[4].has_field_id = false; /* the list element */
    expect_inferred(&e, "a:long!#1, l:list<element:int#3>#2, st:struct<z:float#5>#4", 6);
}

/* One top-level leaf of the given shape must be refused, naming it. */
static void expect_refused(struct elements *e, const char *needle)
{
    struct arena a;
    arena_init(&a, 0);
    struct pq_schema s;
    build(e, &a, &s);
    struct error err = {0};
    char *got = infer(&s, &err, NULL);
    if (got)
        fail_msg("accepted as %s (wanted '%s')", got, needle);
    assert_int_equal(err.code, ERR_UNSUPPORTED);
    if (!strstr(err.msg, needle))
        fail_msg("'%s' lacks '%s'", err.msg, needle);
    arena_free(&a);
}

/* Native VARIANT groups, for files published as they are: a variant
 * column with the group's field id, its storage no columns of its own. */
static void variant_groups(void **state)
{
    (void)state;
    struct elements e;
    with_variants = true;
    start(&e);
    leaf(&e, "id", PQ_REQUIRED, PQ_INT64)->field_id = 1;
    e.el[e.n - 1].has_field_id = true;
    struct pq_schema_element *v = add(&e, "v", PQ_OPTIONAL, 3, 0, 2);
    v->logical.kind = PQ_LT_VARIANT;
    leaf(&e, "metadata", PQ_REQUIRED, PQ_BYTE_ARRAY);
    leaf(&e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    add(&e, "typed_value", PQ_OPTIONAL, 1, 0, 0);
    leaf(&e, "x", PQ_OPTIONAL, PQ_INT64);
    expect_inferred(&e, "id:long!#1, v:variant#2", 3);

    /* The frame must be there: a required binary metadata... */
    start(&e);
    add(&e, "v", PQ_OPTIONAL, 2, 0, 0)->logical.kind = PQ_LT_VARIANT;
    leaf(&e, "metadata", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    leaf(&e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    expect_refused(&e, "column 'v': a VARIANT group without");
    /* ... and a value or a typed_value. */
    start(&e);
    add(&e, "v", PQ_OPTIONAL, 1, 0, 0)->logical.kind = PQ_LT_VARIANT;
    leaf(&e, "metadata", PQ_REQUIRED, PQ_BYTE_ARRAY);
    expect_refused(&e, "column 'v': a VARIANT group without");
    with_variants = false;
}

static void refusals(void **state)
{
    (void)state;
    struct elements e;
    start(&e);
    leaf(&e, "ok", PQ_OPTIONAL, PQ_INT32);
    leaf(&e, "t", PQ_OPTIONAL, PQ_INT64)->logical =
        (struct pq_logical){.kind = PQ_LT_TIME, .unit = PQ_NANOS, .utc = true};
    expect_refused(&e, "column 't': TIME(NANOS) has no catalog type");

    start(&e);
    leaf(&e, "ts", PQ_OPTIONAL, PQ_INT64)->logical =
        (struct pq_logical){.kind = PQ_LT_TIMESTAMP, .unit = PQ_NANOS, .utc = true};
    expect_refused(&e, "column 'ts': TIMESTAMP(isAdjustedToUTC=true, NANOS)");

    start(&e);
    struct pq_schema_element *x = leaf(&e, "iv", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY);
    x->type_length = 12;
    converted(x, PQ_CT_INTERVAL);
    expect_refused(&e, "column 'iv': INTERVAL has no catalog type");

    start(&e);
    leaf(&e, "n", PQ_OPTIONAL, PQ_INT32)->logical.kind = PQ_LT_UNKNOWN;
    expect_refused(&e, "column 'n': the null (UNKNOWN) type");

    start(&e);
    x = leaf(&e, "big", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY);
    x->type_length = 17;
    x->logical = (struct pq_logical){.kind = PQ_LT_DECIMAL, .precision = 40, .scale = 0};
    expect_refused(&e, "column 'big': a decimal past precision 38");

    start(&e);
    add(&e, "v", PQ_OPTIONAL, 2, 0, 0)->logical.kind = PQ_LT_VARIANT;
    leaf(&e, "metadata", PQ_REQUIRED, PQ_BYTE_ARRAY);
    leaf(&e, "value", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    expect_refused(&e, "column 'v': VARIANT");

    start(&e);
    converted(add(&e, "keys", PQ_OPTIONAL, 1, 0, 0), PQ_CT_MAP);
    add(&e, "key_value", PQ_REPEATED, 1, 0, 0);
    leaf(&e, "key", PQ_REQUIRED, PQ_INT32);
    expect_refused(&e, "column 'keys': a map without values");

    start(&e);
    leaf(&e, "my col", PQ_OPTIONAL, PQ_INT32);
    expect_refused(&e, "the file's schema is not a catalog table: invalid column name");

    start(&e);
    leaf(&e, "_hog_row_id", PQ_OPTIONAL, PQ_INT64);
    expect_refused(&e, "reserved prefix");

    /* Deeper than the catalog's eight levels. */
    start(&e);
    for (int i = 0; i < 8; i++)
        add(&e, "s", PQ_OPTIONAL, 1, 0, 0);
    leaf(&e, "x", PQ_OPTIONAL, PQ_INT32);
    expect_refused(&e, "nesting depth");
}

/* GEOMETRY and GEOGRAPHY binaries are binary columns whose annotations come
 * back by field id (a struct field's included); UNKNOWN columns take the
 * type the caller names, always nullable. */
static void geometry_and_unknown(void **state)
{
    (void)state;
    struct elements e;
    start(&e);
    struct pq_schema_element *g = leaf(&e, "g", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    g->logical = (struct pq_logical){.kind = PQ_LT_GEOMETRY, .crs = "EPSG:3857"};
    leaf(&e, "n", PQ_REQUIRED, PQ_INT32)->logical.kind = PQ_LT_UNKNOWN;
    add(&e, "st", PQ_OPTIONAL, 2, 0, 0);
    leaf(&e, "a", PQ_REQUIRED, PQ_INT32);
    leaf(&e, "where", PQ_OPTIONAL, PQ_BYTE_ARRAY)->logical =
        (struct pq_logical){.kind = PQ_LT_GEOGRAPHY, .edge_algorithm = PQ_EDGE_VINCENTY};
    struct arena a;
    arena_init(&a, 0);
    struct pq_schema s;
    build(&e, &a, &s);
    struct lake_table t;
    lake_table_init(&t, &a);
    struct error err = {0};
    const struct pq_infer_options opts = {.unknown_as = "timestamptz"};
    struct pq_infer_result res;
    if (pq_infer_table_with(&s, &t, &opts, &res, &err) != 0)
        fail_msg("%s", err.msg);
    char *got = describe(&t);
    expect_description(got, "g:binary#1, n:timestamptz#2, st:struct<a:int!#4, where:binary#5>#3");
    free(got);
    assert_int_equal(res.nlogicals, 2);
    assert_int_equal(res.logicals[0].field_id, 1);
    assert_int_equal(res.logicals[0].logical.kind, PQ_LT_GEOMETRY);
    assert_string_equal(res.logicals[0].logical.crs, "EPSG:3857");
    assert_int_equal(res.logicals[1].field_id, 5);
    assert_int_equal(res.logicals[1].logical.kind, PQ_LT_GEOGRAPHY);
    assert_int_equal(res.logicals[1].logical.edge_algorithm, PQ_EDGE_VINCENTY);
    lake_table_release(&t);
    arena_free(&a);

    /* Without a type for it, UNKNOWN is refused; GEOMETRY is WKB only. */
    start(&e);
    leaf(&e, "n", PQ_OPTIONAL, PQ_INT32)->logical.kind = PQ_LT_UNKNOWN;
    expect_refused(&e, "--unknown-as TYPE");
    start(&e);
    leaf(&e, "g", PQ_OPTIONAL, PQ_INT64)->logical.kind = PQ_LT_GEOMETRY;
    expect_refused(&e, "column 'g': GEOMETRY or GEOGRAPHY on a type other than BYTE_ARRAY");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writer_schemas_map_back),
        cmocka_unit_test(legacy_and_foreign_annotations),
        cmocka_unit_test(list_and_map_shapes),
        cmocka_unit_test(field_ids_kept_only_when_complete),
        cmocka_unit_test(refusals),
        cmocka_unit_test(variant_groups),
        cmocka_unit_test(geometry_and_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
