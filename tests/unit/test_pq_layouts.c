/* The layouts older and other writers leave behind, read as the values
 * they hold: Parquet's backward-compatibility rules for LIST and MAP
 * (LogicalTypes.md), and logical types few writers produce (FLOAT16). Each file is assembled here
 * level by level; the expected rows are what the spec says, which is what DuckDB 1.x reads from the
 * same bytes except where a comment says otherwise (run with HL_PQ_LISTS_DIR=<dir> to write the
 * files there and compare). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parquet/reader.h"
#include "pq_shapes.h"
#include "textio/textio_render.h"
#include "util/arrow.h"
#include "util/buf.h"

/* One leaf column of `rows` rows with the given levels; values are the
 * present entries in order, PLAIN: int32 unless a width is given (then
 * `type`, each value `width` bytes). */
struct leaf_data {
    const char *const *path;
    size_t npath;
    int16_t max_def, max_rep;
    size_t n;
    const uint16_t *rep, *def;
    const void *values;
    size_t nvalues;
    enum pq_type type;
    size_t width;
};

static void build(struct buf *out, const struct pq_schema_element *el, size_t nel, int64_t rows,
                  const struct leaf_data *leaves, size_t nleaves)
{
    struct pq_craft c;
    pq_craft_begin(&c, out, PQ_UNCOMPRESSED, el, nel);
    pq_craft_group(&c, rows);
    for (size_t k = 0; k < nleaves; k++) {
        const struct leaf_data *l = &leaves[k];
        size_t width = l->width ? l->width : 4;
        struct buf v = BUF_INIT;
        assert_int_equal(buf_append(&v, l->values, l->nvalues * width), 0);
        pq_craft_column(&c, l->path, l->npath, l->width ? l->type : PQ_INT32, l->max_def,
                        l->max_rep);
        pq_craft_v1(&c, PQ_ENC_PLAIN, l->n, l->max_rep ? l->rep : NULL, l->max_def ? l->def : NULL,
                    false, &v);
        pq_craft_column_end(&c, (int64_t)l->n);
        buf_free(&v);
    }
    pq_craft_finish(&c, NULL, NULL);
}

static void maybe_write(const char *name, const struct buf *file)
{
    const char *dir = getenv("HL_PQ_LISTS_DIR");
    if (!dir)
        return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.parquet", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(file->data, 1, file->len, f), file->len);
    fclose(f);
}

/* The file's rows as JSON Lines. */
static char *read_jsonl(const struct buf *file)
{
    struct pq_source src;
    pq_source_memory(&src, file->data, file->len);
    struct pq_reader *r;
    struct error err = {0};
    if (pq_reader_open(&src, &r, &err) != 0)
        fail_msg("open: %s", err.msg);
    struct ArrowSchema s;
    assert_int_equal(pq_reader_arrow_schema(r, &s, &err), 0);
    struct textio_render *render;
    if (textio_render_new(&s, TEXTIO_JSONL, &render, &err) != 0)
        fail_msg("render: %s", err.msg);
    struct buf text = BUF_INIT;
    for (size_t g = 0; g < (size_t)pq_reader_meta(r)->nrow_groups; g++) {
        struct ArrowArray a;
        if (pq_reader_read_row_group(r, g, &a, &err) != 0)
            fail_msg("row group %zu: %s", g, err.msg);
        for (int64_t i = 0; i < a.length; i++)
            if (textio_render_row(render, &a, i, &text, &err) != 0)
                fail_msg("row %lld: %s", (long long)i, err.msg);
        a.release(&a);
    }
    assert_int_equal(buf_append(&text, "", 1), 0);
    textio_render_free(render);
    s.release(&s);
    pq_reader_free(r);
    return text.data;
}

static void expect_rows(const char *name, const struct buf *file, const char *want)
{
    maybe_write(name, file);
    char *got = read_jsonl(file);
    if (strcmp(got, want) != 0)
        fail_msg("%s:\ngot:\n%swant:\n%s", name, got, want);
    free(got);
}

static struct pq_schema_element annotated(struct pq_schema_element e, enum pq_converted ct)
{
    e.has_converted = true;
    e.converted = ct;
    return e;
}

/* optional group l (LIST) { repeated group array (LIST) { repeated int32
 * array; } }: the old list of lists (parquet-mr's Thrift and Avro
 * writers). A list of lists of int, never a list of structs. Rows:
 * [[1,2],[3,4]], null, [], [[]], [[5]]. */
static void two_level_list_of_lists(void **state)
{
    (void)state;
    struct pq_schema_element el[] = {
        pq_el_root(1),
        annotated(pq_el_group("l", PQ_OPTIONAL, 1), PQ_CT_LIST),
        annotated(pq_el_group("array", PQ_REPEATED, 1), PQ_CT_LIST),
        pq_el_leaf("array", PQ_REPEATED, PQ_INT32),
    };
    static const char *const path[] = {"l", "array", "array"};
    static const uint16_t rep[] = {0, 2, 1, 2, 0, 0, 0, 0};
    static const uint16_t def[] = {3, 3, 3, 3, 0, 1, 2, 3};
    static const int32_t values[] = {1, 2, 3, 4, 5};
    struct leaf_data leaf = {path, 3, 3, 2, 8, rep, def, values, 5, PQ_INT32, 4};
    struct buf file = BUF_INIT;
    build(&file, el, sizeof el / sizeof el[0], 5, &leaf, 1);
    expect_rows("list_of_lists", &file,
                "{\"l\":[[1,2],[3,4]]}\n{\"l\":null}\n{\"l\":[]}\n{\"l\":[[]]}\n{\"l\":[[5]]}\n");
    buf_free(&file);
}

/* optional group l (LIST) { repeated group list { repeated int32 x; } }:
 * a group whose one field is repeated is the element (LogicalTypes.md,
 * 2024): a list of structs holding a list. (DuckDB 1.x reads x as the
 * element, [[1,2],[]], dropping the group.) Rows: [{"x":[1,2]},{"x":[]}],
 * []. */
static void repeated_child_makes_the_group_the_element(void **state)
{
    (void)state;
    struct pq_schema_element el[] = {
        pq_el_root(1),
        annotated(pq_el_group("l", PQ_OPTIONAL, 1), PQ_CT_LIST),
        pq_el_group("list", PQ_REPEATED, 1),
        pq_el_leaf("x", PQ_REPEATED, PQ_INT32),
    };
    static const char *const path[] = {"l", "list", "x"};
    static const uint16_t rep[] = {0, 2, 1, 0};
    static const uint16_t def[] = {3, 3, 2, 1};
    static const int32_t values[] = {1, 2};
    struct leaf_data leaf = {path, 3, 3, 2, 4, rep, def, values, 2, PQ_INT32, 4};
    struct buf file = BUF_INIT;
    build(&file, el, sizeof el / sizeof el[0], 2, &leaf, 1);
    expect_rows("list_of_struct_of_list", &file,
                "{\"l\":[{\"x\":[1,2]},{\"x\":[]}]}\n{\"l\":[]}\n");
    buf_free(&file);
}

/* optional group <list> (LIST) { repeated group <group> { required int32
 * a; } } where the group's name makes it the element: a list of structs
 * {a}, the records parquet-avro ("array") and parquet-thrift
 * ("<list>_tuple") wrote. (DuckDB 1.x reads a as the element, [1,2].)
 * Rows: [{"a":1},{"a":2}], null. */
static void expect_named_group_is_the_element(const char *list, const char *group,
                                              const char *file_name)
{
    struct pq_schema_element el[] = {
        pq_el_root(1),
        annotated(pq_el_group(list, PQ_OPTIONAL, 1), PQ_CT_LIST),
        pq_el_group(group, PQ_REPEATED, 1),
        pq_el_leaf("a", PQ_REQUIRED, PQ_INT32),
    };
    const char *const path[] = {list, group, "a"};
    static const uint16_t rep[] = {0, 1, 0};
    static const uint16_t def[] = {2, 2, 0};
    static const int32_t values[] = {1, 2};
    struct leaf_data leaf = {path, 3, 2, 1, 3, rep, def, values, 2, PQ_INT32, 4};
    struct buf file = BUF_INIT;
    build(&file, el, sizeof el / sizeof el[0], 2, &leaf, 1);
    char want[200];
    snprintf(want, sizeof want, "{\"%s\":[{\"a\":1},{\"a\":2}]}\n{\"%s\":null}\n", list, list);
    expect_rows(file_name, &file, want);
    buf_free(&file);
}

static void tuple_names_the_element(void **state)
{
    (void)state;
    expect_named_group_is_the_element("tup", "tup_tuple", "list_tuple");
}

static void array_names_the_element(void **state)
{
    (void)state;
    expect_named_group_is_the_element("l", "array", "list_array");
}

/* optional group m (MAP_KEY_VALUE) { repeated group map { required int32
 * key; optional int32 value; } }: MAP_KEY_VALUE where MAP belongs (old
 * parquet-mr), a map all the same (LogicalTypes.md). DuckDB 1.x refuses
 * the file ("MAP_KEY_VALUE requires two children"), so the expected rows
 * are the spec's. Rows: {1:10, 2:null}, null, {}. */
static void map_key_value_is_a_map(void **state)
{
    (void)state;
    struct pq_schema_element el[] = {
        pq_el_root(1),
        annotated(pq_el_group("m", PQ_OPTIONAL, 1), PQ_CT_MAP_KEY_VALUE),
        pq_el_group("map", PQ_REPEATED, 2),
        pq_el_leaf("key", PQ_REQUIRED, PQ_INT32),
        pq_el_leaf("value", PQ_OPTIONAL, PQ_INT32),
    };
    static const char *const kpath[] = {"m", "map", "key"}, *const vpath[] = {"m", "map", "value"};
    static const uint16_t rep[] = {0, 1, 0, 0};
    static const uint16_t kdef[] = {2, 2, 0, 1}, vdef[] = {3, 2, 0, 1};
    static const int32_t keys[] = {1, 2}, values[] = {10};
    struct leaf_data leaves[] = {{kpath, 3, 2, 1, 4, rep, kdef, keys, 2, PQ_INT32, 4},
                                 {vpath, 3, 3, 1, 4, rep, vdef, values, 1, PQ_INT32, 4}};
    struct buf file = BUF_INIT;
    build(&file, el, sizeof el / sizeof el[0], 3, leaves, 2);
    expect_rows("map_key_value", &file,
                "{\"m\":[{\"key\":1,\"value\":10},{\"key\":2,\"value\":null}]}\n{\"m\":null}\n{"
                "\"m\":[]}\n");
    buf_free(&file);
}

/* optional group m (MAP) { repeated group key_value { required int32 key;
 * } }: a map without values (the spec allows the value to be omitted),
 * read as a list of its keys' entries; DuckDB 1.x refuses the file. Rows:
 * {1, 2} (keys only), null, {}. */
static void map_without_values(void **state)
{
    (void)state;
    struct pq_schema_element el[] = {
        pq_el_root(1),
        annotated(pq_el_group("m", PQ_OPTIONAL, 1), PQ_CT_MAP),
        pq_el_group("key_value", PQ_REPEATED, 1),
        pq_el_leaf("key", PQ_REQUIRED, PQ_INT32),
    };
    static const char *const kpath[] = {"m", "key_value", "key"};
    static const uint16_t rep[] = {0, 1, 0, 0};
    static const uint16_t kdef[] = {2, 2, 0, 1};
    static const int32_t keys[] = {1, 2};
    struct leaf_data leaf = {kpath, 3, 2, 1, 4, rep, kdef, keys, 2, PQ_INT32, 4};
    struct buf file = BUF_INIT;
    build(&file, el, sizeof el / sizeof el[0], 3, &leaf, 1);
    expect_rows("map_without_values", &file,
                "{\"m\":[{\"key\":1},{\"key\":2}]}\n{\"m\":null}\n{\"m\":[]}\n");
    buf_free(&file);
}

/* optional fixed_len_byte_array(2) h (FLOAT16), the half floats Arrow C++
 * and parquet-rs write: 1.5, -2, 65504 (the largest), null, 2^-24 (the
 * smallest subnormal), shown as float32 the way DuckDB shows them. */
static void float16_reads_as_floats(void **state)
{
    (void)state;
    struct pq_schema_element h = pq_el_leaf("h", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY);
    h.type_length = 2;
    h.logical.kind = PQ_LT_FLOAT16;
    struct pq_schema_element el[] = {pq_el_root(1), h};
    static const char *const path[] = {"h"};
    static const uint16_t def[] = {1, 1, 1, 0, 1};
    static const uint8_t halves[] = {0x00, 0x3e, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00};
    struct leaf_data leaf = {path, 1, 1, 0, 5, NULL, def, halves, 4, PQ_FIXED_LEN_BYTE_ARRAY, 2};
    struct buf file = BUF_INIT;
    build(&file, el, sizeof el / sizeof el[0], 5, &leaf, 1);
    expect_rows(
        "float16", &file,
        "{\"h\":1.5}\n{\"h\":-2.0}\n{\"h\":65504.0}\n{\"h\":null}\n{\"h\":5.9604645e-08}\n");
    buf_free(&file);
}

/* PLAIN BYTE_ARRAY values: each a 4-byte little-endian length, then bytes. */
static void plain_bytes(struct buf *out, const void *v, uint32_t n)
{
    uint8_t len[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
    assert_int_equal(buf_append(out, len, 4), 0);
    assert_int_equal(buf_append(out, v, n), 0);
}

/* ISO WKB, little-endian: POINT (1 2) and LINESTRING (0 0, 1 1). */
static const uint8_t wkb_point[] = {1,    1,    0, 0, 0, 0, 0, 0, 0, 0,   0,
                                    0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0x40};
static const uint8_t wkb_line[] = {1, 2, 0, 0,    0,    2, 0, 0, 0, 0, 0, 0,    0,   0,
                                   0, 0, 0, 0,    0,    0, 0, 0, 0, 0, 0, 0,    0,   0,
                                   0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f};

static void add_geo_statistics(struct pq_file_meta *m, void *arg)
{
    (void)arg;
    static int32_t types[] = {1, 2};
    struct pq_column_meta *cm = &m->row_groups[0].columns[0].meta;
    cm->has_geo_statistics = true;
    cm->geo_statistics = (struct pq_geo_statistics){.has_bbox = true,
                                                    .xmin = 0,
                                                    .xmax = 1,
                                                    .ymin = 0,
                                                    .ymax = 2,
                                                    .has_m = true,
                                                    .mmin = -1.5,
                                                    .mmax = 7,
                                                    .types = types,
                                                    .ntypes = 2};
}

/* GEOGRAPHY(EPSG:4326, KARNEY) on BYTE_ARRAY, with geospatial statistics:
 * the values are WKB (shown as hex), the Arrow field says geoarrow.wkb with
 * the CRS and edges the file declares, and the statistics decode. No writer
 * here produces GEOGRAPHY (DuckDB writes GEOMETRY only). */
static void geography_reads_as_wkb(void **state)
{
    (void)state;
    struct pq_schema_element g = pq_el_leaf("g", PQ_OPTIONAL, PQ_BYTE_ARRAY);
    g.logical.kind = PQ_LT_GEOGRAPHY;
    g.logical.crs = "EPSG:4326";
    g.logical.edge_algorithm = PQ_EDGE_KARNEY;
    struct pq_schema_element el[] = {pq_el_root(1), g};
    static const char *const path[] = {"g"};
    static const uint16_t def[] = {1, 0, 1};
    struct buf values = BUF_INIT, file = BUF_INIT;
    plain_bytes(&values, wkb_point, sizeof wkb_point);
    plain_bytes(&values, wkb_line, sizeof wkb_line);
    struct pq_craft c;
    pq_craft_begin(&c, &file, PQ_UNCOMPRESSED, el, 2);
    pq_craft_group(&c, 3);
    pq_craft_column(&c, path, 1, PQ_BYTE_ARRAY, 1, 0);
    pq_craft_v1(&c, PQ_ENC_PLAIN, 3, NULL, def, false, &values);
    pq_craft_column_end(&c, 3);
    pq_craft_finish(&c, add_geo_statistics, NULL);
    expect_rows("layout_geography", &file,
                "{\"g\":\"0101000000000000000000f03f0000000000000040\"}\n{\"g\":null}\n"
                "{\"g\":\"010200000002000000000000000000000000000000000000000000000000"
                "00f03f000000000000f03f\"}\n");

    struct pq_source src;
    pq_source_memory(&src, file.data, file.len);
    struct pq_reader *r;
    struct error err = {0};
    assert_int_equal(pq_reader_open(&src, &r, &err), 0);
    const struct pq_column_meta *cm = &pq_reader_meta(r)->row_groups[0].columns[0].meta;
    assert_true(cm->has_geo_statistics && cm->geo_statistics.has_bbox);
    assert_true(cm->geo_statistics.ymax == 2.0 && !cm->geo_statistics.has_z);
    assert_true(cm->geo_statistics.has_m && cm->geo_statistics.mmin == -1.5);
    assert_int_equal(cm->geo_statistics.ntypes, 2);
    assert_int_equal(cm->geo_statistics.types[1], 2);
    const struct pq_logical *l = &pq_reader_schema(r)->leaves[0]->el->logical;
    assert_int_equal(l->kind, PQ_LT_GEOGRAPHY);
    assert_string_equal(l->crs, "EPSG:4326");
    assert_int_equal(l->edge_algorithm, PQ_EDGE_KARNEY);
    struct ArrowSchema s;
    assert_int_equal(pq_reader_arrow_schema(r, &s, &err), 0);
    char v[200];
    assert_true(arrow_metadata_get(s.children[0]->metadata, "ARROW:extension:name", v, sizeof v));
    assert_string_equal(v, "geoarrow.wkb");
    assert_true(
        arrow_metadata_get(s.children[0]->metadata, "ARROW:extension:metadata", v, sizeof v));
    assert_string_equal(v, "{\"crs\":\"EPSG:4326\",\"edges\":\"karney\"}");
    s.release(&s);
    pq_reader_free(r);
    buf_free(&values);
    buf_free(&file);
}

/* An INT32 leaf of the null (UNKNOWN) type next to an int: read as an
 * Arrow null column (what Arrow C++ writes for its null type). */
static void unknown_reads_as_nulls(void **state)
{
    (void)state;
    struct pq_schema_element u = pq_el_leaf("u", PQ_OPTIONAL, PQ_INT32);
    u.logical.kind = PQ_LT_UNKNOWN;
    struct pq_schema_element el[] = {pq_el_root(2), u, pq_el_leaf("i", PQ_OPTIONAL, PQ_INT32)};
    static const char *const upath[] = {"u"}, *const ipath[] = {"i"};
    static const uint16_t none[] = {0, 0, 0}, all[] = {1, 1, 1};
    static const int32_t ints[] = {7, 8, 9};
    struct leaf_data leaves[] = {
        {upath, 1, 1, 0, 3, NULL, none, ints, 0, PQ_INT32, 0},
        {ipath, 1, 1, 0, 3, NULL, all, ints, 3, PQ_INT32, 0},
    };
    struct buf file = BUF_INIT;
    build(&file, el, 3, 3, leaves, 2);
    expect_rows("layout_unknown", &file,
                "{\"u\":null,\"i\":7}\n{\"u\":null,\"i\":8}\n{\"u\":null,\"i\":9}\n");
    buf_free(&file);
}

/* A REQUIRED UNKNOWN leaf cannot say null, so its values are placeholders
 * (parquet-rs writes a non-nullable Arrow null column so): nulls. */
static void required_unknown_holds_placeholders(void **state)
{
    (void)state;
    struct pq_schema_element u = pq_el_leaf("nul", PQ_REQUIRED, PQ_INT32);
    u.logical.kind = PQ_LT_UNKNOWN;
    struct pq_schema_element el[] = {pq_el_root(1), u};
    static const char *const path[] = {"nul"};
    static const int32_t zeros[] = {0, 0};
    struct leaf_data leaf = {path, 1, 0, 0, 2, NULL, NULL, zeros, 2, PQ_INT32, 0};
    struct buf file = BUF_INIT;
    build(&file, el, 2, 2, &leaf, 1);
    expect_rows("layout_unknown_required", &file, "{\"nul\":null}\n{\"nul\":null}\n");
    buf_free(&file);
}

/* The same column holding values: the type says there are none, so the
 * file is refused rather than its values dropped. */
static void unknown_with_values_is_refused(void **state)
{
    (void)state;
    struct pq_schema_element u = pq_el_leaf("u", PQ_OPTIONAL, PQ_INT32);
    u.logical.kind = PQ_LT_UNKNOWN;
    struct pq_schema_element el[] = {pq_el_root(1), u};
    static const char *const path[] = {"u"};
    static const uint16_t def[] = {0, 1};
    static const int32_t ints[] = {5};
    struct leaf_data leaf = {path, 1, 1, 0, 2, NULL, def, ints, 1, PQ_INT32, 0};
    struct buf file = BUF_INIT;
    build(&file, el, 2, 2, &leaf, 1);
    maybe_write("layout_unknown_with_values", &file);
    struct pq_source src;
    pq_source_memory(&src, file.data, file.len);
    struct pq_reader *r;
    struct error err = {0};
    assert_int_equal(pq_reader_open(&src, &r, &err), 0);
    struct ArrowArray a;
    assert_int_equal(pq_reader_read_row_group(r, 0, &a, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    assert_non_null(strstr(err.msg, "null (UNKNOWN) type but holds 1 values"));
    pq_reader_free(r);
    buf_free(&file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_level_list_of_lists),
        cmocka_unit_test(repeated_child_makes_the_group_the_element),
        cmocka_unit_test(tuple_names_the_element),
        cmocka_unit_test(array_names_the_element),
        cmocka_unit_test(map_key_value_is_a_map),
        cmocka_unit_test(map_without_values),
        cmocka_unit_test(float16_reads_as_floats),
        cmocka_unit_test(geography_reads_as_wkb),
        cmocka_unit_test(unknown_reads_as_nulls),
        cmocka_unit_test(required_unknown_holds_placeholders),
        cmocka_unit_test(unknown_with_values_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
