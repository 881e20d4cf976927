/* Parquet types the catalog has no type for -- GEOMETRY, GEOGRAPHY, the null
 * (UNKNOWN) type, INTERVAL -- through `hoglake parquet` as a user runs it,
 * with DuckDB as the oracle:
 *  - DuckDB writes GEOMETRY columns (with and without a CRS); `cat` shows
 *    their WKB in hex (DuckDB turns that hex back into the same geometry)
 *    or as WKT equal to DuckDB's; `inspect --json` gives the CRS and the
 *    geospatial statistics DuckDB's parquet_metadata() reports; `convert`
 *    keeps the annotation, so DuckDB reads our output as it reads the input.
 *  - GEOGRAPHY (tests/unit/corpus/layout_geography.parquet, assembled by
 *    test_pq_layouts.c: no writer here produces it) keeps its CRS and edge
 *    algorithm through convert.
 *  - hyparquet-writer writes UNKNOWN columns: convert refuses them unless
 *    --unknown-as names a type, then DuckDB reads nulls of that type.
 *  - DuckDB writes INTERVAL: `cat` prints DuckDB's text of each; convert
 *    refuses the column, naming it.
 *  - A UTF8 column holding other bytes (hyparquet-writer): convert refuses it.
 * No server is involved. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#if !defined(HOGLAKE_CLI_BIN) || !defined(HL_NODE) || !defined(HL_INTEROP_DIR) ||                  \
    !defined(HL_PQ_CORPUS)
#error "HOGLAKE_CLI_BIN, HL_NODE, HL_INTEROP_DIR and HL_PQ_CORPUS must be defined by the build"
#endif

/* `hoglake parquet` never contacts a server. */
#define NO_SERVER "http://127.0.0.1:9"

static char dir[256];
static char geo[400]; /* DuckDB's GEOMETRY file */

/* Every geometry kind, Z/M/ZM, empties and a null; g carries a CRS, h
 * the default one. */
static const char *const shapes[] = {
    "POINT (1 2)",
    "POINT Z (1 2 3)",
    "POINT ZM (1 2 3 4)",
    "POINT EMPTY",
    "LINESTRING (0 0, 1.5 -2.25, 1e+20 3)",
    "POLYGON ((0 0, 1 0, 1 1, 0 0), (0.1 0.1, 0.2 0.1, 0.1 0.2, 0.1 0.1))",
    "MULTIPOINT (1 2, EMPTY)",
    "MULTILINESTRING ((1 2, 3 4), (5 6, 7 8))",
    "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), EMPTY)",
    "GEOMETRYCOLLECTION (POINT (1 2), GEOMETRYCOLLECTION (LINESTRING (1 2, 3 4)))",
    "GEOMETRYCOLLECTION EMPTY",
    NULL,
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static char *duckdb(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *duckdb(const char *fmt, ...)
{
    char sql[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    return test_duckdb(HL_NODE, HL_INTEROP_DIR, dir, sql);
}

static void hl(struct cli_out *o, int want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void hl(struct cli_out *o, int want, const char *fmt, ...)
{
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    cli_run(o, HOGLAKE_CLI_BIN, NO_SERVER, dir, "%s", args);
    if (want >= 0 && o->code != want)
        fail_msg("hoglake %s: exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", args, o->code, want,
                 o->out, o->err);
}

static int setup(void **state)
{
    (void)state;
    test_scratch_dir(dir, sizeof dir, "pq-foreign");
    snprintf(geo, sizeof geo, "%s/geo.parquet", dir);
    char values[4096] = "";
    for (size_t i = 0; i < NSHAPES; i++) {
        char row[400];
        if (shapes[i])
            snprintf(row, sizeof row, "%s(%zu, '%s'::GEOMETRY('OGC:CRS84'), '%s'::GEOMETRY)",
                     i ? ", " : "", i, shapes[i], shapes[i]);
        else
            snprintf(row, sizeof row, ", (%zu, NULL, NULL)", i);
        strcat(values, row);
    }
    free(duckdb("COPY (SELECT * FROM (VALUES %s) t(id, g, h)) TO '%s' (GEOPARQUET_VERSION 'V2')",
                values, geo));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_remove_tree(dir);
    return 0;
}

/* The rows `hoglake parquet cat FILE EXTRA` prints (JSON Lines), the given
 * columns of each as a tab-separated line, nulls as \N: the layout of
 * DuckDB's answers. */
static char *cat_lines(const char *file, const char *extra, const char *const *keys, int nkeys)
{
    struct cli_out o;
    hl(&o, 0, "parquet cat '%s' %s", file, extra);
    char *text = NULL;
    size_t len = 0;
    FILE *b = open_memstream(&text, &len);
    assert_non_null(b);
    char *save = NULL;
    for (char *line = strtok_r(o.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_t *row = jparse(line);
        for (int k = 0; k < nkeys; k++) {
            json_t *v = json_object_get(row, keys[k]);
            if (k)
                fputc('\t', b);
            if (json_is_integer(v))
                fprintf(b, "%lld", (long long)json_integer_value(v));
            else
                fputs(json_is_string(v) ? json_string_value(v) : "\\N", b);
        }
        fputc('\n', b);
        json_decref(row);
    }
    assert_int_equal(fclose(b), 0);
    cli_out_free(&o);
    return text;
}

static const char *const geo_keys[] = {"id", "g", "h"};

static char *duckdb_wkt(const char *file)
{
    return duckdb("SELECT id, g::VARCHAR, h::VARCHAR FROM read_parquet('%s') ORDER BY id", file);
}

static void wkt_equals_duckdb(void **state)
{
    (void)state;
    char *want = duckdb_wkt(geo), *got = cat_lines(geo, "--geometry wkt", geo_keys, 3);
    if (strcmp(want, got) != 0)
        fail_msg("DuckDB reads\n%sour cat --geometry wkt prints\n%s", want, got);
    /* The shapes above are DuckDB's own text of them. */
    for (size_t i = 0; i < NSHAPES; i++)
        if (shapes[i])
            assert_non_null(strstr(got, shapes[i]));
    free(want);
    free(got);
}

/* The hex WKB, handed back to DuckDB, is the geometry DuckDB read. */
static void hex_is_the_wkb(void **state)
{
    (void)state;
    char *hex = cat_lines(geo, "--geometry hex", geo_keys, 3);
    char *values = NULL;
    size_t len = 0;
    FILE *b = open_memstream(&values, &len);
    assert_non_null(b);
    char *save = NULL;
    for (char *line = strtok_r(hex, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *g = strchr(line, '\t') + 1, *h = strchr(g, '\t');
        *h++ = '\0';
        if (strcmp(g, "\\N") == 0)
            continue;
        assert_string_equal(g, h);
        assert_int_equal(strspn(g, "0123456789abcdef"), strlen(g));
        fprintf(b, "%s('%s')", ftell(b) ? ", " : "", g);
    }
    assert_int_equal(fclose(b), 0);
    char *got = duckdb("SELECT ST_GeomFromWKB(from_hex(x))::VARCHAR FROM (VALUES %s) t(x)", values);
    char *want =
        duckdb("SELECT g::VARCHAR FROM read_parquet('%s') WHERE g IS NOT NULL ORDER BY id", geo);
    assert_string_equal(got, want);
    free(got);
    free(want);
    free(hex);
    free(values);
}

/* inspect: the logical type with its CRS, and the geospatial statistics
 * as DuckDB decodes them. */
static void inspect_shows_crs_and_bbox(void **state)
{
    (void)state;
    struct cli_out o;
    hl(&o, 0, "parquet inspect '%s' --json", geo);
    json_t *doc = jparse(o.out);
    json_t *kids = json_object_get(json_object_get(doc, "schema"), "children");
    json_t *g = json_object_get(json_array_get(kids, 1), "logical_type");
    json_t *h = json_object_get(json_array_get(kids, 2), "logical_type");
    assert_string_equal(jstr(g, "type"), "GEOMETRY");
    assert_non_null(strstr(jstr(g, "crs"), "\"code\":\"CRS84\"")); /* DuckDB writes PROJJSON */
    assert_string_equal(jstr(h, "type"), "GEOMETRY");
    assert_string_equal(jstr(h, "crs"), "OGC:CRS84"); /* the format's default */
    json_t *col = json_array_get(
        json_object_get(json_array_get(json_object_get(doc, "row_groups"), 0), "columns"), 1);
    json_t *stats = json_object_get(col, "geospatial_statistics");
    json_t *bbox = json_object_get(stats, "bbox");
    char *want = duckdb("SELECT geo_bbox.xmin, geo_bbox.xmax, geo_bbox.ymin, geo_bbox.ymax, "
                        "geo_bbox.zmin, geo_bbox.zmax, len(geo_types) FROM parquet_metadata('%s') "
                        "WHERE path_in_schema = 'g'",
                        geo);
    char got[400];
    snprintf(got, sizeof got, "%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%zu\n",
             json_real_value(json_object_get(bbox, "xmin")),
             json_real_value(json_object_get(bbox, "xmax")),
             json_real_value(json_object_get(bbox, "ymin")),
             json_real_value(json_object_get(bbox, "ymax")),
             json_real_value(json_object_get(bbox, "zmin")),
             json_real_value(json_object_get(bbox, "zmax")),
             json_array_size(json_object_get(stats, "geospatial_types")));
    /* DuckDB prints doubles shortest; compare as numbers. */
    double a[7], b[7];
    assert_int_equal(sscanf(want, "%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf", &a[0], &a[1], &a[2], &a[3],
                            &a[4], &a[5], &a[6]),
                     7);
    assert_int_equal(sscanf(got, "%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf", &b[0], &b[1], &b[2], &b[3],
                            &b[4], &b[5], &b[6]),
                     7);
    for (int i = 0; i < 7; i++)
        if (a[i] != b[i])
            fail_msg("bound %d: DuckDB %s, ours %s", i, want, got);
    free(want);
    json_decref(doc);
    cli_out_free(&o);
    hl(&o, 0, "parquet inspect '%s'", geo);
    assert_non_null(strstr(o.out, "BYTE_ARRAY GEOMETRY(OGC:CRS84)"));
    assert_non_null(strstr(o.out, "geospatial   bbox x ["));
    cli_out_free(&o);
}

static char *duckdb_types(const char *file)
{
    return duckdb(
        "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('%s'))", file);
}

/* convert keeps GEOMETRY and its CRS: DuckDB reads our output as the input. */
static void convert_keeps_geometry(void **state)
{
    (void)state;
    char out[400];
    snprintf(out, sizeof out, "%s/geo-converted.parquet", dir);
    struct cli_out o;
    hl(&o, 0, "parquet convert '%s' '%s'", geo, out);
    cli_out_free(&o);
    char *want = duckdb_wkt(geo), *got = duckdb_wkt(out);
    assert_string_equal(got, want);
    free(want);
    free(got);
    want = duckdb_types(geo);
    got = duckdb_types(out);
    assert_string_equal(got, want);
    free(want);
    free(got);
    /* No min/max on bytes whose order means nothing. */
    hl(&o, 0, "parquet inspect '%s' --json", out);
    json_t *doc = jparse(o.out);
    json_t *col = json_array_get(
        json_object_get(json_array_get(json_object_get(doc, "row_groups"), 0), "columns"), 1);
    json_t *stats = json_object_get(col, "statistics");
    assert_true(json_is_null(json_object_get(stats, "min")));
    assert_int_equal(jint(stats, "null_count"), 1);
    json_decref(doc);
    cli_out_free(&o);
}

/* GEOGRAPHY keeps its CRS and edges through convert; DuckDB reads its
 * values (as GEOMETRY) the same before and after. */
static void convert_keeps_geography(void **state)
{
    (void)state;
    char in[400], out[400];
    snprintf(in, sizeof in, "%s/layout_geography.parquet", HL_PQ_CORPUS);
    snprintf(out, sizeof out, "%s/geography-converted.parquet", dir);
    struct cli_out o;
    hl(&o, 0, "parquet convert '%s' '%s'", in, out);
    cli_out_free(&o);
    hl(&o, 0, "parquet inspect '%s'", out);
    assert_non_null(strstr(o.out, "BYTE_ARRAY GEOGRAPHY(EPSG:4326,KARNEY)"));
    cli_out_free(&o);
    char *want = duckdb("SELECT g::VARCHAR FROM read_parquet('%s')", in);
    char *got = duckdb("SELECT g::VARCHAR FROM read_parquet('%s')", out);
    assert_string_equal(got, want);
    assert_string_equal(want, "POINT (1 2)\n\\N\nLINESTRING (0 0, 1 1)\n");
    hl(&o, 0, "parquet cat '%s' --geometry wkt --format csv", in);
    assert_string_equal(o.out, "g\r\nPOINT (1 2)\r\n\r\n\"LINESTRING (0 0, 1 1)\"\r\n");
    cli_out_free(&o);
    free(want);
    free(got);
}

/* UNKNOWN columns: refused without a type, nulls of the chosen type with. */
static void unknown_takes_a_chosen_type(void **state)
{
    (void)state;
    char in[400], out[400], cmd[1200];
    snprintf(in, sizeof in, "%s/unknown.parquet", dir);
    snprintf(out, sizeof out, "%s/unknown-converted.parquet", dir);
    snprintf(cmd, sizeof cmd, "'%s' '%s/write_hyparquet.mjs' unknown '%s'", HL_NODE, HL_INTEROP_DIR,
             in);
    assert_int_equal(system(cmd), 0);
    struct cli_out o;
    hl(&o, -1, "parquet convert '%s' '%s'", in, out);
    assert_int_not_equal(o.code, 0);
    assert_non_null(strstr(o.err, "column 'u32': the null (UNKNOWN) type"));
    assert_non_null(strstr(o.err, "--unknown-as TYPE"));
    assert_int_not_equal(access(out, F_OK), 0);
    cli_out_free(&o);
    hl(&o, 2, "parquet convert '%s' '%s' --unknown-as decimal", in, out);
    assert_non_null(strstr(o.err, "--unknown-as takes a scalar type"));
    cli_out_free(&o);
    hl(&o, 0, "parquet convert '%s' '%s' --unknown-as string", in, out);
    cli_out_free(&o);
    char *want = duckdb("SELECT * FROM read_parquet('%s')", in);
    char *got = duckdb("SELECT * FROM read_parquet('%s')", out);
    assert_string_equal(got, want);
    free(want);
    free(got);
    got = duckdb_types(out);
    assert_string_equal(got, "u32\tVARCHAR\ni\tINTEGER\nubin\tVARCHAR\n");
    free(got);
    /* With --schema, a null column fills any nullable scalar column. */
    hl(&o, 0, "parquet convert '%s' '%s' --force --schema 'u32:long, i:int!, ubin:json'", in, out);
    cli_out_free(&o);
    got = duckdb("SELECT * FROM read_parquet('%s')", out);
    want = duckdb("SELECT * FROM read_parquet('%s')", in);
    assert_string_equal(got, want);
    free(want);
    free(got);
    got = duckdb_types(out);
    assert_string_equal(got, "u32\tBIGINT\ni\tINTEGER\nubin\tJSON\n");
    free(got);
    hl(&o, 1, "parquet convert '%s' '%s' --force --schema 'u32:long!, i:int!, ubin:json'", in, out);
    assert_non_null(strstr(o.err, "column 'u32': the input holds only nulls"));
    cli_out_free(&o);
    /* A column of that type claiming values is refused, not read as nulls
     * (DuckDB drops them). */
    snprintf(in, sizeof in, "%s/layout_unknown_with_values.parquet", HL_PQ_CORPUS);
    hl(&o, -1, "parquet cat '%s'", in);
    assert_int_not_equal(o.code, 0);
    assert_non_null(strstr(o.err, "null (UNKNOWN) type but holds 1 values"));
    cli_out_free(&o);
}

/* INTERVAL (months, days, milliseconds) reads as DuckDB prints it. */
static void interval_reads_as_duckdb_prints_it(void **state)
{
    (void)state;
    char in[400], out[400];
    snprintf(in, sizeof in, "%s/interval.parquet", dir);
    snprintf(out, sizeof out, "%s/interval-converted.parquet", dir);
    free(duckdb("COPY (SELECT * FROM (VALUES (INTERVAL '1 year 2 months 3 days 04:05:06.007'), "
                "(NULL), (INTERVAL '0 seconds'), (INTERVAL '49 hours 0.001 seconds'), "
                "(INTERVAL '13 months'), (INTERVAL '1 day 1 second'), (INTERVAL '1.5 seconds'), "
                "(INTERVAL '3 days')) t(i)) TO '%s'",
                in));
    char *want = duckdb("SELECT i::VARCHAR FROM read_parquet('%s')", in);
    static const char *const key[] = {"i"};
    char *got = cat_lines(in, "", key, 1);
    assert_string_equal(got, want);
    free(got);
    free(want);
    struct cli_out o;
    hl(&o, -1, "parquet convert '%s' '%s'", in, out);
    assert_int_equal(o.code, 1);
    assert_non_null(strstr(o.err, "column 'i': INTERVAL has no catalog type"));
    assert_int_not_equal(access(out, F_OK), 0);
    cli_out_free(&o);
}

/* A UTF8 column holding bytes that are not UTF-8 (DuckDB refuses the
 * file): cat shows them replaced (U+FFFD), convert refuses to write them
 * into a string column. */
static void invalid_utf8_is_not_converted(void **state)
{
    (void)state;
    char in[400], out[400], cmd[1200];
    snprintf(in, sizeof in, "%s/bad-utf8.parquet", dir);
    snprintf(out, sizeof out, "%s/bad-utf8-converted.parquet", dir);
    snprintf(cmd, sizeof cmd, "'%s' '%s/write_hyparquet.mjs' bad_utf8 '%s'", HL_NODE,
             HL_INTEROP_DIR, in);
    assert_int_equal(system(cmd), 0);
    struct cli_out o;
    hl(&o, 0, "parquet cat '%s'", in);
    assert_string_equal(o.out, "{\"s\":\"ok\"}\n{\"s\":\"bad\xef\xbf\xbd\"}\n{\"s\":null}\n");
    cli_out_free(&o);
    hl(&o, 1, "parquet convert '%s' '%s'", in, out);
    assert_non_null(strstr(o.err, "column 's': value 1 is not valid UTF-8"));
    assert_int_not_equal(access(out, F_OK), 0);
    cli_out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wkt_equals_duckdb),
        cmocka_unit_test(hex_is_the_wkb),
        cmocka_unit_test(inspect_shows_crs_and_bbox),
        cmocka_unit_test(convert_keeps_geometry),
        cmocka_unit_test(convert_keeps_geography),
        cmocka_unit_test(unknown_takes_a_chosen_type),
        cmocka_unit_test(interval_reads_as_duckdb_prints_it),
        cmocka_unit_test(invalid_utf8_is_not_converted),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
