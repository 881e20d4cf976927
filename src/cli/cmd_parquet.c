/* hoglake parquet: look into Parquet files and convert rows to and from
 * them, locally (no server involved).
 *
 *   inspect FILE [--json]         the footer: schema, row groups, chunks, stats
 *   cat FILE [--format jsonl|csv] [--columns A,B] [--limit N] [--geometry hex|wkt]
 *   convert IN OUT [--from csv|jsonl|parquet] [--schema SPEC] [--rename OLD=NEW,...]
 *                  [--unknown-as TYPE]
 *                  [writer options]
 *
 * Value conventions and the inspect document are in docs/cli-parquet.md. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/convert_rename.h"
#include "rows/csv.h"
#include "rows/rows_adapt.h"
#include "rows/rows_json.h"
#include "rows/rows_parse.h"
#include "rows/rows_render.h"
#include "rows/rows_schema.h"
#include "rows/rows_text.h"
#include "parquet/infer.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "util/strutil.h"

enum { OUT_FLUSH_BYTES = 1 << 20, DEFAULT_BATCH_ROWS = 65536 };

/* Opens a Parquet file for reading; a missing file is EXIT_NOT_FOUND. */
static int open_source(const char *path, struct pq_source *src)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", path, strerror(errno));
        return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_FAILURE_OTHER;
    }
    struct pq_error err = {0};
    if (pq_source_file(src, path, &err) != 0) {
        fprintf(stderr, "hoglake: %s\n", err.msg);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

static bool parse_count(const char *opt, const char *v, int64_t min, int64_t *out)
{
    if (!str_parse_int64(v, out) || *out < min) {
        cli_usage_error("--%s takes a whole number of at least %lld, not '%s'", opt, (long long)min,
                        v);
        return false;
    }
    return true;
}

/* ---- inspect ---- */

static const char *const converted_names[] = {
    "UTF8",
    "MAP",
    "MAP_KEY_VALUE",
    "LIST",
    "ENUM",
    "DECIMAL",
    "DATE",
    "TIME_MILLIS",
    "TIME_MICROS",
    "TIMESTAMP_MILLIS",
    "TIMESTAMP_MICROS",
    "UINT_8",
    "UINT_16",
    "UINT_32",
    "UINT_64",
    "INT_8",
    "INT_16",
    "INT_32",
    "INT_64",
    "JSON",
    "BSON",
    "INTERVAL",
};

static const char *converted_name(const struct pq_schema_element *e)
{
    if (!e->has_converted)
        return NULL;
    return (unsigned)e->converted < sizeof converted_names / sizeof converted_names[0]
               ? converted_names[e->converted]
               : "UNKNOWN";
}

static const char *logical_name(enum pq_logical_kind k)
{
    switch (k) {
    case PQ_LT_NONE: return NULL;
    case PQ_LT_STRING: return "STRING";
    case PQ_LT_MAP: return "MAP";
    case PQ_LT_LIST: return "LIST";
    case PQ_LT_ENUM: return "ENUM";
    case PQ_LT_DECIMAL: return "DECIMAL";
    case PQ_LT_DATE: return "DATE";
    case PQ_LT_TIME: return "TIME";
    case PQ_LT_TIMESTAMP: return "TIMESTAMP";
    case PQ_LT_INTEGER: return "INTEGER";
    case PQ_LT_UNKNOWN: return "UNKNOWN";
    case PQ_LT_JSON: return "JSON";
    case PQ_LT_BSON: return "BSON";
    case PQ_LT_UUID: return "UUID";
    case PQ_LT_FLOAT16: return "FLOAT16";
    case PQ_LT_VARIANT: return "VARIANT";
    case PQ_LT_GEOMETRY: return "GEOMETRY";
    case PQ_LT_GEOGRAPHY: return "GEOGRAPHY";
    case PQ_LT_OTHER: return "OTHER";
    }
    return "OTHER";
}

static const char *unit_name(enum pq_time_unit u)
{
    return u == PQ_MILLIS ? "MILLIS" : u == PQ_NANOS ? "NANOS" : "MICROS";
}

static const char *edge_algorithm_name(int32_t a)
{
    static const char *const names[] = {"SPHERICAL", "VINCENTY", "THOMAS", "ANDOYER", "KARNEY"};
    return a >= 0 && (size_t)a < sizeof names / sizeof names[0] ? names[a] : "OTHER";
}

/* GEOMETRY and GEOGRAPHY as the schema listing shows them: the CRS (cut
 * short, a PROJJSON one runs to kilobytes; --json has it whole) and the
 * edge algorithm. */
static void geo_text(const struct pq_logical *l, const char *n, char *out, size_t size)
{
    enum { CRS_SHOWN = 24 };
    const char *crs = l->crs ? l->crs : "OGC:CRS84";
    bool cut = strlen(crs) > CRS_SHOWN;
    if (l->kind == PQ_LT_GEOMETRY)
        snprintf(out, size, "%s(%.*s%s)", n, CRS_SHOWN, crs, cut ? "..." : "");
    else
        snprintf(out, size, "%s(%.*s%s,%s)", n, CRS_SHOWN, crs, cut ? "..." : "",
                 edge_algorithm_name(l->edge_algorithm));
}

static const char *repetition_name(const struct pq_schema_element *e)
{
    static const char *const names[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
    return e->has_repetition && (unsigned)e->repetition < 3 ? names[e->repetition] : NULL;
}

/* "DECIMAL(10,2)", "TIMESTAMP(MICROS,utc)", "INTEGER(8,signed)"... */
static void logical_text(const struct pq_logical *l, char *out, size_t size)
{
    const char *n = logical_name(l->kind);
    switch (l->kind) {
    case PQ_LT_DECIMAL:
        snprintf(out, size, "%s(%d,%d)", n, (int)l->precision, (int)l->scale);
        break;
    case PQ_LT_TIME:
    case PQ_LT_TIMESTAMP:
        snprintf(out, size, "%s(%s,%s)", n, unit_name(l->unit), l->utc ? "utc" : "local");
        break;
    case PQ_LT_INTEGER:
        snprintf(out, size, "%s(%d,%s)", n, (int)l->bit_width,
                 l->is_signed ? "signed" : "unsigned");
        break;
    case PQ_LT_VARIANT: snprintf(out, size, "%s(%d)", n, (int)l->variant_version); break;
    case PQ_LT_GEOMETRY:
    case PQ_LT_GEOGRAPHY: geo_text(l, n, out, size); break;
    default: snprintf(out, size, "%s", n ? n : "");
    }
}

static void json_int_or_null(struct jw *w, const char *key, bool has, int64_t v)
{
    jw_key(w, key);
    if (has)
        jw_int(w, v);
    else
        jw_null(w);
}

static void json_logical(struct jw *w, const struct pq_logical *l)
{
    jw_key(w, "logical_type");
    if (l->kind == PQ_LT_NONE) {
        jw_null(w);
        return;
    }
    jw_begin_object(w);
    jw_key(w, "type");
    jw_cstring(w, logical_name(l->kind));
    if (l->kind == PQ_LT_DECIMAL) {
        json_int_or_null(w, "precision", true, l->precision);
        json_int_or_null(w, "scale", true, l->scale);
    } else if (l->kind == PQ_LT_TIME || l->kind == PQ_LT_TIMESTAMP) {
        jw_key(w, "unit");
        jw_cstring(w, unit_name(l->unit));
        jw_key(w, "is_adjusted_to_utc");
        jw_bool(w, l->utc);
    } else if (l->kind == PQ_LT_INTEGER) {
        json_int_or_null(w, "bit_width", true, l->bit_width);
        jw_key(w, "is_signed");
        jw_bool(w, l->is_signed);
    } else if (l->kind == PQ_LT_VARIANT) {
        json_int_or_null(w, "specification_version", true, l->variant_version);
    } else if (l->kind == PQ_LT_GEOMETRY || l->kind == PQ_LT_GEOGRAPHY) {
        jw_key(w, "crs");
        jw_cstring(w, l->crs ? l->crs : "OGC:CRS84");
        if (l->kind == PQ_LT_GEOGRAPHY) {
            jw_key(w, "algorithm");
            jw_cstring(w, edge_algorithm_name(l->edge_algorithm));
        }
    }
    jw_end_object(w);
}

static void json_node(struct jw *w, const struct pq_node *x)
{
    const struct pq_schema_element *e = x->el;
    jw_begin_object(w);
    jw_key(w, "name");
    jw_cstring(w, e->name);
    jw_key(w, "path");
    jw_cstring(w, x->path);
    json_int_or_null(w, "field_id", e->has_field_id, e->field_id);
    jw_key(w, "repetition");
    jw_cstring(w, repetition_name(e));
    jw_key(w, "physical_type");
    jw_cstring(w, x->leaf_index >= 0 ? pq_type_name(e->type) : NULL);
    json_int_or_null(w, "type_length", e->type == PQ_FIXED_LEN_BYTE_ARRAY && x->leaf_index >= 0,
                     e->type_length);
    json_logical(w, &e->logical);
    jw_key(w, "converted_type");
    jw_cstring(w, converted_name(e));
    json_int_or_null(w, "decimal_precision", e->has_decimal, e->precision);
    json_int_or_null(w, "decimal_scale", e->has_decimal, e->scale);
    jw_key(w, "children");
    if (x->leaf_index >= 0) {
        jw_null(w);
    } else {
        jw_begin_array(w);
        for (int i = 0; i < x->nchildren; i++)
            json_node(w, x->children[i]);
        jw_end_array(w);
    }
    jw_end_object(w);
}

static bool is_decimal(const struct pq_schema_element *e)
{
    return e->logical.kind == PQ_LT_DECIMAL || (e->has_converted && e->converted == PQ_CT_DECIMAL);
}

static int decimal_scale(const struct pq_schema_element *e)
{
    return e->logical.kind == PQ_LT_DECIMAL ? e->logical.scale : e->scale;
}

/* A statistics bound (PLAIN bytes of the physical type) as JSON, read
 * through the column's annotations; bytes that do not fit are hex. */
static void json_stat_value(struct jw *w, const struct pq_schema_element *e, const uint8_t *v,
                            uint32_t n, struct buf *tmp)
{
    const struct pq_logical *l = &e->logical;
    bool ct = e->has_converted;
    char t[RT_TEXT_MAX];
    bool fixed = (e->type == PQ_INT32 && n == 4) || (e->type == PQ_INT64 && n == 8);
    if (is_decimal(e) &&
        (fixed ||
         ((e->type == PQ_BYTE_ARRAY || e->type == PQ_FIXED_LEN_BYTE_ARRAY) && n >= 1 && n <= 16))) {
        rt_i128 d = (int8_t)v[0] < 0 ? -1 : 0; /* big-endian two's complement */
        if (fixed)
            d = rt_load_signed(v, (int)n);
        else
            for (uint32_t i = 0; i < n; i++)
                d = (rt_i128)(((rt_u128)d << 8) | v[i]);
        jw_string(w, t, rt_format_decimal(d, decimal_scale(e), t));
        return;
    }
    enum rt_unit u = l->unit == PQ_MILLIS ? RT_MILLIS : l->unit == PQ_NANOS ? RT_NANOS : RT_MICROS;
    bool is_unsigned = (l->kind == PQ_LT_INTEGER && !l->is_signed) ||
                       (ct && e->converted >= PQ_CT_UINT_8 && e->converted <= PQ_CT_UINT_64);
    bool legacy_ts =
        ct && (e->converted == PQ_CT_TIMESTAMP_MILLIS || e->converted == PQ_CT_TIMESTAMP_MICROS);
    if (fixed) {
        int64_t x = rt_load_signed(v, (int)n);
        if (is_unsigned)
            jw_raw(w, t, rt_format_u64(n == 4 ? (uint32_t)x : (uint64_t)x, t));
        else if (n == 4 && (l->kind == PQ_LT_DATE || (ct && e->converted == PQ_CT_DATE)))
            jw_string(w, t, rt_format_date(x, t));
        else if (n == 8 && l->kind == PQ_LT_TIMESTAMP)
            jw_string(w, t, rt_format_timestamp(x, u, l->utc, t));
        else if (n == 8 && legacy_ts)
            jw_string(
                w, t,
                rt_format_timestamp(
                    x, e->converted == PQ_CT_TIMESTAMP_MILLIS ? RT_MILLIS : RT_MICROS, true, t));
        else if ((l->kind == PQ_LT_TIME || (ct && (e->converted == PQ_CT_TIME_MILLIS ||
                                                   e->converted == PQ_CT_TIME_MICROS))) &&
                 rt_format_time(x,
                                n == 4                  ? RT_MILLIS
                                : l->kind == PQ_LT_TIME ? u
                                                        : RT_MICROS,
                                t))
            jw_string(w, t, strlen(t));
        else
            jw_raw(w, t, rt_format_i64(x, t));
        return;
    }
    if (e->type == PQ_BOOLEAN && n == 1) {
        jw_bool(w, v[0] != 0);
        return;
    }
    if ((e->type == PQ_FLOAT && n == 4) ||
        (e->type == PQ_FIXED_LEN_BYTE_ARRAY && l->kind == PQ_LT_FLOAT16 && n == 2)) {
        float f;
        if (n == 4)
            memcpy(&f, v, 4);
        else
            f = rt_half_to_float((uint16_t)rt_load_unsigned(v, 2));
        jw_float(w, f, true);
        return;
    }
    if (e->type == PQ_DOUBLE && n == 8) {
        double x;
        memcpy(&x, v, 8);
        jw_float(w, x, false);
        return;
    }
    bool text = l->kind == PQ_LT_STRING || l->kind == PQ_LT_JSON || l->kind == PQ_LT_ENUM ||
                (ct && (e->converted == PQ_CT_UTF8 || e->converted == PQ_CT_JSON ||
                        e->converted == PQ_CT_ENUM));
    if (e->type == PQ_BYTE_ARRAY && text && str_utf8_valid((const char *)v, n, NULL)) {
        jw_string(w, (const char *)v, n);
        return;
    }
    if (e->type == PQ_FIXED_LEN_BYTE_ARRAY && l->kind == PQ_LT_UUID && n == 16) {
        jw_string(w, t, rt_format_uuid(v, t));
        return;
    }
    buf_reset(tmp);
    rt_hex_encode(tmp, v, n);
    jw_string(w, tmp->data ? tmp->data : "", tmp->len);
}

static void json_stats(struct jw *w, const struct pq_column_meta *m,
                       const struct pq_schema_element *leaf, struct buf *tmp)
{
    jw_key(w, "statistics");
    if (!m->has_statistics) {
        jw_null(w);
        return;
    }
    const struct pq_statistics *s = &m->statistics;
    bool legacy = !s->has_min && !s->has_max && (s->has_legacy_min || s->has_legacy_max);
    jw_begin_object(w);
    json_int_or_null(w, "null_count", s->has_null_count, s->null_count);
    json_int_or_null(w, "distinct_count", s->has_distinct_count, s->distinct_count);
    bool hmin = legacy ? s->has_legacy_min : s->has_min,
         hmax = legacy ? s->has_legacy_max : s->has_max;
    const uint8_t *mn = legacy ? s->legacy_min : s->min, *mx = legacy ? s->legacy_max : s->max;
    uint32_t nmn = legacy ? s->legacy_min_len : s->min_len;
    uint32_t nmx = legacy ? s->legacy_max_len : s->max_len;
    jw_key(w, "min");
    if (hmin && leaf)
        json_stat_value(w, leaf, mn, nmn, tmp);
    else
        jw_null(w);
    jw_key(w, "max");
    if (hmax && leaf)
        json_stat_value(w, leaf, mx, nmx, tmp);
    else
        jw_null(w);
    jw_key(w, "legacy_min_max");
    jw_bool(w, legacy);
    jw_end_object(w);
}

static void json_geo_stats(struct jw *w, const struct pq_column_meta *m)
{
    jw_key(w, "geospatial_statistics");
    if (!m->has_geo_statistics) {
        jw_null(w);
        return;
    }
    const struct pq_geo_statistics *g = &m->geo_statistics;
    jw_begin_object(w);
    jw_key(w, "bbox");
    if (g->has_bbox) {
        const struct {
            const char *name;
            bool has;
            double v;
        } bounds[] = {{"xmin", true, g->xmin},     {"xmax", true, g->xmax},
                      {"ymin", true, g->ymin},     {"ymax", true, g->ymax},
                      {"zmin", g->has_z, g->zmin}, {"zmax", g->has_z, g->zmax},
                      {"mmin", g->has_m, g->mmin}, {"mmax", g->has_m, g->mmax}};
        jw_begin_object(w);
        for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
            if (bounds[i].has) {
                jw_key(w, bounds[i].name);
                jw_float(w, bounds[i].v, false);
            }
        jw_end_object(w);
    } else {
        jw_null(w);
    }
    jw_key(w, "geospatial_types");
    jw_begin_array(w);
    for (size_t i = 0; i < g->ntypes; i++)
        jw_int(w, g->types[i]);
    jw_end_array(w);
    jw_end_object(w);
}

static void json_path(struct buf *out, const struct pq_column_meta *m)
{
    buf_reset(out);
    for (size_t i = 0; i < m->npath; i++) {
        if (i)
            buf_putc(out, '.');
        buf_puts(out, m->path[i] ? m->path[i] : "");
    }
    if (!out->data)
        buf_puts(out, "");
}

static const struct pq_node *chunk_leaf(const struct pq_schema *s, const struct pq_row_group *g,
                                        size_t c)
{
    return (size_t)s->nleaves == g->ncolumns ? s->leaves[c] : NULL;
}

static void json_chunk(struct jw *w, const struct pq_column_chunk *cc, const struct pq_node *leaf,
                       struct buf *tmp)
{
    const struct pq_column_meta *m = &cc->meta;
    jw_begin_object(w);
    jw_key(w, "path");
    if (cc->has_meta) {
        json_path(tmp, m);
        jw_string(w, tmp->data, tmp->len);
    } else {
        jw_cstring(w, leaf ? leaf->path : NULL);
    }
    json_int_or_null(w, "field_id", leaf && leaf->el->has_field_id, leaf ? leaf->el->field_id : 0);
    jw_key(w, "file_path");
    jw_cstring(w, cc->file_path);
    jw_key(w, "physical_type");
    jw_cstring(w, cc->has_meta ? pq_type_name(m->type) : NULL);
    jw_key(w, "codec");
    jw_cstring(w, cc->has_meta ? pq_codec_name(m->codec) : NULL);
    jw_key(w, "encodings");
    jw_begin_array(w);
    for (size_t i = 0; cc->has_meta && i < m->nencodings; i++)
        jw_cstring(w, pq_encoding_name(m->encodings[i]));
    jw_end_array(w);
    json_int_or_null(w, "num_values", cc->has_meta, m->num_values);
    json_int_or_null(w, "total_compressed_size", cc->has_meta, m->total_compressed_size);
    json_int_or_null(w, "total_uncompressed_size", cc->has_meta, m->total_uncompressed_size);
    json_int_or_null(w, "data_page_offset", cc->has_meta, m->data_page_offset);
    json_int_or_null(w, "dictionary_page_offset", cc->has_meta && m->has_dictionary_page_offset,
                     m->dictionary_page_offset);
    json_int_or_null(w, "index_page_offset", cc->has_meta && m->has_index_page_offset,
                     m->index_page_offset);
    json_int_or_null(w, "column_index_offset", cc->has_column_index, cc->column_index_offset);
    json_int_or_null(w, "column_index_length", cc->has_column_index, cc->column_index_length);
    json_int_or_null(w, "offset_index_offset", cc->has_offset_index, cc->offset_index_offset);
    json_int_or_null(w, "offset_index_length", cc->has_offset_index, cc->offset_index_length);
    if (cc->has_meta) {
        json_stats(w, m, leaf ? leaf->el : NULL, tmp);
        json_geo_stats(w, m);
    } else {
        jw_key(w, "statistics");
        jw_null(w);
        jw_key(w, "geospatial_statistics");
        jw_null(w);
    }
    jw_end_object(w);
}

/* An old parquet-rs wrote 0 as the file's row count: readers trust the
 * row groups' counts then (pq_meta_rows_only_in_groups), and inspect, which
 * shows the footer as it is, says so. */
static bool rows_warning(const struct pq_file_meta *m, char *out, size_t size)
{
    int64_t rows;
    if (!pq_meta_rows_only_in_groups(m, &rows))
        return false;
    snprintf(out, size, "the footer says 0 rows but its row groups hold %lld: read as %lld rows",
             (long long)rows, (long long)rows);
    return true;
}

static void inspect_json(const char *path, uint64_t size, uint32_t footer_len,
                         const struct pq_file_meta *m, const struct pq_schema *s, struct buf *out)
{
    struct jw w;
    struct buf tmp = BUF_INIT;
    jw_init(&w, out, true);
    jw_begin_object(&w);
    jw_key(&w, "file");
    jw_begin_object(&w);
    jw_key(&w, "path");
    jw_cstring(&w, path);
    json_int_or_null(&w, "size", true, (int64_t)size);
    json_int_or_null(&w, "footer_size", true, footer_len);
    json_int_or_null(&w, "format_version", true, m->version);
    json_int_or_null(&w, "num_rows", true, m->num_rows);
    json_int_or_null(&w, "num_row_groups", true, (int64_t)m->nrow_groups);
    /* Present only when there is something to warn of. */
    char warning[160];
    if (rows_warning(m, warning, sizeof warning)) {
        jw_key(&w, "warnings");
        jw_begin_array(&w);
        jw_cstring(&w, warning);
        jw_end_array(&w);
    }
    jw_key(&w, "created_by");
    jw_cstring(&w, m->created_by);
    jw_key(&w, "key_value_metadata");
    jw_begin_array(&w);
    for (size_t i = 0; i < m->nkv; i++) {
        jw_begin_object(&w);
        jw_key(&w, "key");
        jw_cstring(&w, m->kv[i].key);
        jw_key(&w, "value");
        jw_cstring(&w, m->kv[i].value);
        jw_end_object(&w);
    }
    jw_end_array(&w);
    jw_end_object(&w);
    jw_key(&w, "schema");
    json_node(&w, s->root);
    jw_key(&w, "row_groups");
    jw_begin_array(&w);
    for (size_t g = 0; g < m->nrow_groups; g++) {
        const struct pq_row_group *rg = &m->row_groups[g];
        jw_begin_object(&w);
        json_int_or_null(&w, "index", true, (int64_t)g);
        json_int_or_null(&w, "num_rows", true, rg->num_rows);
        json_int_or_null(&w, "total_byte_size", true, rg->total_byte_size);
        json_int_or_null(&w, "total_compressed_size", rg->has_total_compressed_size,
                         rg->total_compressed_size);
        json_int_or_null(&w, "file_offset", rg->has_file_offset, rg->file_offset);
        json_int_or_null(&w, "ordinal", rg->has_ordinal, rg->ordinal);
        jw_key(&w, "columns");
        jw_begin_array(&w);
        for (size_t c = 0; c < rg->ncolumns; c++)
            json_chunk(&w, &rg->columns[c], chunk_leaf(s, rg, c), &tmp);
        jw_end_array(&w);
        jw_end_object(&w);
    }
    jw_end_array(&w);
    jw_end_object(&w);
    buf_putc(out, '\n');
    buf_free(&tmp);
}

static void human_node(const struct pq_node *x, int depth)
{
    const struct pq_schema_element *e = x->el;
    char type[160], logical[64] = "", id[32] = "";
    logical_text(&e->logical, logical, sizeof logical);
    const char *conv = converted_name(e);
    int n = snprintf(type, sizeof type, "%s", x->leaf_index >= 0 ? pq_type_name(e->type) : "group");
    if (x->leaf_index >= 0 && e->type == PQ_FIXED_LEN_BYTE_ARRAY)
        n += snprintf(type + n, sizeof type - (size_t)n, "(%d)", (int)e->type_length);
    if (logical[0])
        n += snprintf(type + n, sizeof type - (size_t)n, " %s", logical);
    if (conv)
        snprintf(type + n, sizeof type - (size_t)n, " (%s)", conv);
    if (e->has_field_id)
        snprintf(id, sizeof id, "field_id=%d", (int)e->field_id);
    const char *rep = repetition_name(e);
    printf("  %*s%-*s %-48s %-9s %s\n", depth * 2, "", 24 - depth * 2 > 1 ? 24 - depth * 2 : 1,
           e->name, type, rep ? rep : "", id);
    for (int i = 0; i < x->nchildren; i++)
        human_node(x->children[i], depth + 1);
}

static void human_offset(const char *what, bool has, int64_t v, bool last)
{
    if (has)
        printf("%s %lld%s", what, (long long)v, last ? "" : ", ");
    else
        printf("%s -%s", what, last ? "" : ", ");
}

/* "bbox x [0, 1] y [2, 3], types 1, 2", the numbers as --json writes them. */
static void human_geo_stats(const struct pq_geo_statistics *g)
{
    struct buf js = BUF_INIT;
    struct jw w;
    jw_init(&w, &js, false);
    const double v[] = {g->xmin, g->xmax, g->ymin, g->ymax, g->zmin, g->zmax, g->mmin, g->mmax};
    const bool has[] = {g->has_bbox, g->has_bbox && g->has_z, g->has_bbox && g->has_m};
    for (int axis = 0; axis < 4; axis++) {
        if (!has[axis < 2 ? 0 : axis - 1])
            continue;
        buf_printf(&js, "%s%c [", js.len ? " " : "", "xyzm"[axis]);
        jw_float(&w, v[2 * axis], false);
        buf_puts(&js, ", ");
        jw_float(&w, v[2 * axis + 1], false);
        buf_puts(&js, "]");
    }
    printf("    %-12s bbox %s, types ", "geospatial", g->has_bbox ? js.data : "-");
    for (size_t i = 0; i < g->ntypes; i++)
        printf("%s%d", i ? ", " : "", (int)g->types[i]);
    printf("%s\n", g->ntypes ? "" : "-");
    buf_free(&js);
}

static void human_chunk(const struct pq_column_chunk *cc, const struct pq_node *leaf,
                        struct buf *tmp)
{
    const struct pq_column_meta *m = &cc->meta;
    if (!cc->has_meta) {
        printf("  %s\n    (no column metadata)\n", leaf ? leaf->path : "?");
        return;
    }
    json_path(tmp, m);
    printf("  %s\n", tmp->data);
    printf("    %-12s %s\n", "codec", pq_codec_name(m->codec));
    printf("    %-12s ", "encodings");
    for (size_t i = 0; i < m->nencodings; i++)
        printf("%s%s", i ? ", " : "", pq_encoding_name(m->encodings[i]));
    printf("\n    %-12s %lld\n", "values", (long long)m->num_values);
    printf("    %-12s %lld compressed, %lld uncompressed\n", "size",
           (long long)m->total_compressed_size, (long long)m->total_uncompressed_size);
    printf("    %-12s ", "offsets");
    human_offset("data", true, m->data_page_offset, false);
    human_offset("dictionary", m->has_dictionary_page_offset, m->dictionary_page_offset, false);
    human_offset("column index", cc->has_column_index, cc->column_index_offset, false);
    human_offset("offset index", cc->has_offset_index, cc->offset_index_offset, true);
    printf("\n");
    if (m->has_geo_statistics)
        human_geo_stats(&m->geo_statistics);
    if (!m->has_statistics) {
        printf("    %-12s none\n", "statistics");
        return;
    }
    const struct pq_statistics *st = &m->statistics;
    bool legacy = !st->has_min && !st->has_max && (st->has_legacy_min || st->has_legacy_max);
    printf("    %-12s nulls ", "statistics");
    if (st->has_null_count)
        printf("%lld", (long long)st->null_count);
    else
        printf("-");
    if (st->has_distinct_count)
        printf(", distinct %lld", (long long)st->distinct_count);
    /* The bounds as the JSON document renders them. */
    for (int k = 0; k < 2; k++) {
        bool has = k == 0 ? (legacy ? st->has_legacy_min : st->has_min)
                          : (legacy ? st->has_legacy_max : st->has_max);
        const uint8_t *v =
            k == 0 ? (legacy ? st->legacy_min : st->min) : (legacy ? st->legacy_max : st->max);
        uint32_t n = k == 0 ? (legacy ? st->legacy_min_len : st->min_len)
                            : (legacy ? st->legacy_max_len : st->max_len);
        struct buf js = BUF_INIT;
        struct jw w;
        jw_init(&w, &js, false);
        if (has && leaf)
            json_stat_value(&w, leaf->el, v, n, tmp);
        else
            jw_raw(&w, "-", 1);
        printf(", %s %s", k == 0 ? "min" : "max", js.data);
        buf_free(&js);
    }
    printf("%s\n", legacy ? " (deprecated min/max fields)" : "");
}

static void inspect_human(const char *path, uint64_t size, uint32_t footer_len,
                          const struct pq_file_meta *m, const struct pq_schema *s)
{
    printf("%-12s %s\n", "file", path);
    printf("%-12s %llu bytes (footer %u)\n", "size", (unsigned long long)size, footer_len);
    printf("%-12s %lld\n", "rows", (long long)m->num_rows);
    char warning[160];
    if (rows_warning(m, warning, sizeof warning))
        printf("%-12s %s\n", "warning", warning);
    printf("%-12s %zu\n", "row groups", m->nrow_groups);
    printf("%-12s %s\n", "created by", m->created_by ? m->created_by : "-");
    printf("%-12s %d\n", "version", (int)m->version);
    for (size_t i = 0; i < m->nkv; i++) {
        const char *v = m->kv[i].value ? m->kv[i].value : "";
        printf("%-12s %s = %.200s%s\n", i == 0 ? "metadata" : "", m->kv[i].key, v,
               strlen(v) > 200 ? "..." : "");
    }
    printf("\nschema\n");
    human_node(s->root, 0);
    struct buf tmp = BUF_INIT;
    for (size_t g = 0; g < m->nrow_groups; g++) {
        const struct pq_row_group *rg = &m->row_groups[g];
        printf("\nrow group %zu: %lld rows, %lld bytes", g, (long long)rg->num_rows,
               (long long)rg->total_byte_size);
        if (rg->has_total_compressed_size)
            printf(" (%lld compressed)", (long long)rg->total_compressed_size);
        printf("\n");
        for (size_t c = 0; c < rg->ncolumns; c++)
            human_chunk(&rg->columns[c], chunk_leaf(s, rg, c), &tmp);
    }
    buf_free(&tmp);
}

static int run_inspect(struct cli *cli, const struct cli_args *a)
{
    const char *path = a->positional[0];
    struct pq_source src;
    int rc = open_source(path, &src);
    if (rc != EXIT_OK)
        return rc;
    struct arena ar;
    arena_init(&ar, 0);
    struct pq_file_meta m;
    struct pq_schema s;
    uint32_t footer_len = 0;
    struct pq_error err = {0};
    if (pq_read_footer(&src, &ar, &m, &footer_len, &err) != 0 ||
        pq_schema_from_file(&m, &ar, &s, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", path, err.msg);
        rc = EXIT_FAILURE_OTHER;
    } else if (cli->json || cli_opt_given(a, "json")) {
        struct buf out = BUF_INIT;
        inspect_json(path, src.size, footer_len, &m, &s, &out);
        fwrite(out.data, 1, out.len, stdout);
        buf_free(&out);
    } else {
        inspect_human(path, src.size, footer_len, &m, &s);
    }
    arena_free(&ar);
    pq_source_close(&src);
    return rc;
}

/* ---- cat ---- */

static int flush_out(struct buf *out)
{
    if (out->len && fwrite(out->data, 1, out->len, stdout) != out->len) {
        fprintf(stderr, "hoglake: writing the output: %s\n", strerror(errno));
        return -1;
    }
    buf_reset(out);
    return 0;
}

/* Splits "a, b,c" into names (malloc'd copy in *storage). */
static size_t split_names(const char *list, char **storage, const char ***names)
{
    char *copy = strdup(list);
    size_t n = 0, cap = 8;
    const char **v = malloc(cap * sizeof *v);
    *storage = copy;
    *names = v;
    if (!copy || !v)
        return 0;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        while (*tok == ' ')
            tok++;
        size_t len = strlen(tok);
        while (len && tok[len - 1] == ' ')
            tok[--len] = '\0';
        if (n == cap) {
            const char **grown = realloc(v, cap * 2 * sizeof *v);
            if (!grown)
                break;
            *names = v = grown;
            cap *= 2;
        }
        v[n++] = tok;
    }
    return n;
}

static int run_cat(struct cli *cli, const struct cli_args *a)
{
    (void)cli;
    const char *path = a->positional[0];
    const char *fmt = cli_opt_value(a, "format");
    enum rows_format format = ROWS_JSONL;
    if (fmt && strcmp(fmt, "csv") == 0)
        format = ROWS_CSV;
    else if (fmt && strcmp(fmt, "jsonl") != 0)
        return cli_usage_error("--format takes jsonl or csv, not '%s'", fmt);
    int64_t limit = INT64_MAX;
    if (cli_opt_given(a, "limit") && !parse_count("limit", cli_opt_value(a, "limit"), 0, &limit))
        return EXIT_USAGE;
    const char *geometry = cli_opt_value(a, "geometry");
    if (geometry && strcmp(geometry, "wkt") != 0 && strcmp(geometry, "hex") != 0)
        return cli_usage_error("--geometry takes hex or wkt, not '%s'", geometry);
    char *storage = NULL;
    const char **names = NULL;
    size_t nnames = 0;
    if (cli_opt_given(a, "columns")) {
        nnames = split_names(cli_opt_value(a, "columns"), &storage, &names);
        if (nnames == 0) {
            free(storage);
            free(names);
            return cli_usage_error("--columns takes a comma-separated list of column names");
        }
    }

    struct pq_source src;
    int rc = open_source(path, &src);
    if (rc != EXIT_OK) {
        free(storage);
        free(names);
        return rc;
    }
    struct pq_reader *r = NULL;
    struct rows_render *render = NULL;
    struct ArrowSchema schema = {0};
    struct buf out = BUF_INIT;
    struct pq_error err = {0};
    char msg[800];
    rc = EXIT_FAILURE_OTHER;
    if (pq_reader_open(&src, &r, &err) != 0 ||
        (nnames && pq_reader_select_names(r, names, nnames, &err) != 0) ||
        pq_reader_arrow_schema(r, &schema, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", path, err.msg);
        goto out;
    }
    if (rows_schema_mark_file_uuids(&schema, pq_reader_schema(r)) != 0) {
        fprintf(stderr, "hoglake: out of memory\n");
        goto out;
    }
    if (rows_render_new(&schema, format, &render, msg, sizeof msg) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", path, msg);
        goto out;
    }
    rows_render_geometry_as_wkt(render, geometry && strcmp(geometry, "wkt") == 0);
    rows_render_header(render, &out);
    int64_t done = 0;
    const struct pq_file_meta *m = pq_reader_meta(r);
    for (size_t g = 0; g < m->nrow_groups && done < limit; g++) {
        struct ArrowArray batch;
        if (pq_reader_read_row_group(r, g, &batch, &err) != 0) {
            fprintf(stderr, "hoglake: %s: row group %zu: %s\n", path, g, err.msg);
            goto out;
        }
        for (int64_t i = 0; i < batch.length && done < limit; i++, done++) {
            if (rows_render_row(render, &batch, i, &out, msg, sizeof msg) != 0) {
                fprintf(stderr, "hoglake: %s: row group %zu, row %lld: %s\n", path, g, (long long)i,
                        msg);
                batch.release(&batch);
                goto out;
            }
            if (out.len >= OUT_FLUSH_BYTES && flush_out(&out) != 0) {
                batch.release(&batch);
                goto out;
            }
        }
        batch.release(&batch);
    }
    if (flush_out(&out) == 0 && fflush(stdout) == 0)
        rc = EXIT_OK;
out:
    rows_render_free(render);
    if (schema.release)
        schema.release(&schema);
    pq_reader_free(r);
    pq_source_close(&src);
    buf_free(&out);
    free(storage);
    free(names);
    return rc;
}

/* ---- convert ---- */

enum input_format { IN_CSV, IN_JSONL, IN_PARQUET };

/* An output written to a temporary file next to OUT and renamed into place
 * only on success, so a failed conversion leaves nothing behind. */
struct output {
    const char *path;
    char tmp[4096];
    int fd;
    bool force;
};

static int output_open(struct output *o, const char *path, bool force)
{
    o->path = path;
    o->force = force;
    o->fd = -1;
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    if (snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.tmp-XXXXXX", dirlen, path,
                 slash ? slash + 1 : path) >= (int)sizeof o->tmp) {
        fprintf(stderr, "hoglake: %s: path too long\n", path);
        return -1;
    }
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        fprintf(stderr, "hoglake: cannot create a file next to %s: %s\n", path, strerror(errno));
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(o->fd, 0666 & ~mask) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", o->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

/* Removes the temporary file (after a failure). */
static void output_abandon(struct output *o)
{
    if (o->fd >= 0) {
        close(o->fd);
        unlink(o->tmp);
        o->fd = -1;
    }
}

static int output_publish(struct output *o)
{
    if (fsync(o->fd) != 0 || close(o->fd) != 0) {
        o->fd = -1;
        fprintf(stderr, "hoglake: writing %s: %s\n", o->path, strerror(errno));
        unlink(o->tmp);
        return EXIT_FAILURE_OTHER;
    }
    o->fd = -1;
    if (o->force) {
        if (rename(o->tmp, o->path) == 0)
            return EXIT_OK;
    } else if (link(o->tmp, o->path) == 0) {
        unlink(o->tmp);
        return EXIT_OK;
    } else if (errno == EEXIST) {
        unlink(o->tmp);
        fprintf(stderr, "hoglake: %s exists (give --force to overwrite it)\n", o->path);
        return EXIT_CONFLICT;
    } else if (access(o->path, F_OK) != 0 && rename(o->tmp, o->path) == 0) {
        return EXIT_OK; /* a file system without hard links */
    }
    fprintf(stderr, "hoglake: cannot move the result to %s: %s\n", o->path, strerror(errno));
    unlink(o->tmp);
    return EXIT_FAILURE_OTHER;
}

struct convert {
    const char *in_path;
    enum input_format from;
    int64_t batch_rows;
    struct lake_table *t;
    struct pq_writer *w;
    struct ArrowSchema wschema; /* the batches the writer takes */
    struct convert_renames *renames;
    const char *unknown_as;           /* --unknown-as: the type of null-only columns */
    struct pq_infer_result annotated; /* GEOMETRY/GEOGRAPHY columns the output keeps */
    struct arena *arena;              /* lives as long as the conversion */
    int fail_code; /* the exit code of a failure (EXIT_FAILURE_OTHER unless usage) */
};

static int write_batch(struct convert *c, const struct ArrowArray *batch)
{
    struct pq_error err = {0};
    if (pq_writer_write(c->w, &c->wschema, batch, &err) != 0) {
        fprintf(stderr, "hoglake: writing Parquet: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int flush_rows(struct convert *c, struct rows_parser *p)
{
    struct ArrowSchema s;
    struct ArrowArray b;
    char msg[300];
    if (rows_parser_take(p, &s, &b, msg, sizeof msg) != 0) {
        fprintf(stderr, "hoglake: %s\n", msg);
        return -1;
    }
    int rc = write_batch(c, &b);
    b.release(&b);
    s.release(&s);
    return rc;
}

/* Binds the header's names, renamed, to the schema's columns: a header
 * name that cannot be a column is reported with the --rename to give. */
static int bind_csv_header(struct convert *c, struct rows_parser *p, const struct csv_reader *r)
{
    const char **in = arena_calloc(c->arena, r->nfields ? r->nfields : 1, sizeof *in);
    const char **names = NULL;
    char msg[1200];
    if (!in) {
        fprintf(stderr, "hoglake: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < r->nfields; i++) {
        size_t len;
        in[i] = csv_field_text(r, i, &len, NULL);
        if (strlen(in[i]) != len) {
            fprintf(stderr, "hoglake: %s line %lld: header field %zu holds a NUL byte\n",
                    c->in_path, (long long)r->record_line, i + 1);
            return -1;
        }
    }
    int rc = convert_renames_header(c->renames, in, r->nfields, c->in_path, c->arena, &names);
    if (rc != EXIT_OK) {
        c->fail_code = rc;
        return -1;
    }
    if (rows_parser_csv_names(p, names, r->nfields, msg, sizeof msg) != 0) {
        fprintf(stderr, "hoglake: %s line %lld: %s\n", c->in_path, (long long)r->record_line, msg);
        return -1;
    }
    return 0;
}

static int convert_csv(struct convert *c, FILE *f, struct rows_parser *p)
{
    struct csv_reader r;
    csv_reader_init(&r, f);
    char msg[1200];
    int rc = -1, got = csv_read_record(&r);
    if (got == 0) {
        fprintf(stderr, "hoglake: %s: empty input (CSV needs a header row)\n", c->in_path);
        goto out;
    }
    if (got < 0) {
        fprintf(stderr, "hoglake: %s %s\n", c->in_path, r.err);
        goto out;
    }
    if (bind_csv_header(c, p, &r) != 0)
        goto out;
    while ((got = csv_read_record(&r)) > 0) {
        if (rows_parser_csv_row(p, &r, msg, sizeof msg) != 0) {
            fprintf(stderr, "hoglake: %s line %lld: %s\n", c->in_path, (long long)r.record_line,
                    msg);
            goto out;
        }
        if (rows_parser_pending(p) >= c->batch_rows && flush_rows(c, p) != 0)
            goto out;
    }
    if (got < 0) {
        fprintf(stderr, "hoglake: %s %s\n", c->in_path, r.err);
        goto out;
    }
    rc = rows_parser_pending(p) > 0 ? flush_rows(c, p) : 0;
out:
    csv_reader_free(&r);
    return rc;
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return false;
    return true;
}

static int convert_jsonl(struct convert *c, FILE *f, struct rows_parser *p)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int64_t lineno = 0;
    char msg[1200];
    int rc = -1;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (blank(line, (size_t)len))
            continue;
        if (rows_parser_json_row(p, line, (size_t)len, msg, sizeof msg) != 0) {
            fprintf(stderr, "hoglake: %s line %lld: %s\n", c->in_path, (long long)lineno, msg);
            goto out;
        }
        if (rows_parser_pending(p) >= c->batch_rows && flush_rows(c, p) != 0)
            goto out;
    }
    if (ferror(f)) {
        fprintf(stderr, "hoglake: %s: %s\n", c->in_path, strerror(errno));
        goto out;
    }
    rc = rows_parser_pending(p) > 0 ? flush_rows(c, p) : 0;
out:
    free(line);
    return rc;
}

static int convert_parquet(struct convert *c, struct pq_reader *r)
{
    struct ArrowSchema from;
    struct pq_error err = {0};
    char msg[800];
    if (pq_reader_arrow_schema(r, &from, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", c->in_path, err.msg);
        return -1;
    }
    int rc = -1;
    if (convert_renames_arrow(c->renames, &from, c->arena) != 0) {
        fprintf(stderr, "hoglake: out of memory\n");
        goto out;
    }
    if (rows_adapt_check(&from, c->t, msg, sizeof msg) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", c->in_path, msg);
        goto out;
    }
    const struct pq_file_meta *m = pq_reader_meta(r);
    for (size_t g = 0; g < m->nrow_groups; g++) {
        struct ArrowArray batch;
        if (pq_reader_read_row_group(r, g, &batch, &err) != 0) {
            fprintf(stderr, "hoglake: %s: row group %zu: %s\n", c->in_path, g, err.msg);
            goto out;
        }
        bool ok = rows_adapt_foreign_batch(&from, &batch, c->t, msg, sizeof msg) == 0;
        if (!ok)
            fprintf(stderr, "hoglake: %s: row group %zu: %s\n", c->in_path, g, msg);
        for (int64_t at = 0; ok && at < batch.length; at += c->batch_rows) {
            struct ArrowArray slice = batch;
            slice.offset = batch.offset + at;
            slice.length = batch.length - at < c->batch_rows ? batch.length - at : c->batch_rows;
            ok = write_batch(c, &slice) == 0;
        }
        batch.release(&batch);
        if (!ok)
            goto out;
    }
    rc = 0;
out:
    from.release(&from);
    return rc;
}

static bool format_from_name(const char *path, enum input_format *out)
{
    static const struct {
        const char *ext;
        enum input_format f;
    } exts[] = {
        {".csv", IN_CSV}, {".jsonl", IN_JSONL}, {".ndjson", IN_JSONL}, {".parquet", IN_PARQUET}};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t k = strlen(exts[i].ext);
        if (n > k && strcasecmp(path + n - k, exts[i].ext) == 0) {
            *out = exts[i].f;
            return true;
        }
    }
    return false;
}

/* The writer options from the command line. */
static bool write_options(const struct cli_args *a, struct pq_write_options *o)
{
    pq_write_options_default(o);
    const char *codec = cli_opt_value(a, "compression");
    if (codec) {
        static const char *const allowed[] = {"zstd", "snappy", "gzip", "lz4_raw", "uncompressed"};
        bool ok = false;
        for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
            ok |= strcasecmp(codec, allowed[i]) == 0;
        if (!ok || !pq_codec_parse(codec, &o->codec)) {
            cli_usage_error("--compression takes zstd, snappy, gzip, lz4_raw or uncompressed");
            return false;
        }
    }
    int64_t v;
    if (cli_opt_given(a, "level")) {
        if (!parse_count("level", cli_opt_value(a, "level"), 1, &v))
            return false;
        if (o->codec != PQ_ZSTD || v > 22) {
            cli_usage_error("--level sets the zstd level (1 to 22)");
            return false;
        }
        o->level = (int)v;
    }
    if (cli_opt_given(a, "row-group-bytes")) {
        if (!parse_count("row-group-bytes", cli_opt_value(a, "row-group-bytes"), 1, &v))
            return false;
        o->row_group_bytes = v;
    }
    if (cli_opt_given(a, "page-bytes")) {
        if (!parse_count("page-bytes", cli_opt_value(a, "page-bytes"), 1, &v))
            return false;
        o->page_bytes = v;
    }
    o->dictionary = !cli_opt_given(a, "no-dictionary");
    return true;
}

/* Runs the conversion into o's file; returns 0 or -1 (message printed). */
static int convert_into(struct convert *c, struct output *o, const struct pq_write_options *wo,
                        struct pq_reader *r)
{
    char msg[400];
    struct pq_error err = {0};
    struct rows_parser *p = NULL;
    FILE *f = NULL;
    int rc = -1;
    if (rows_table_arrow_schema(c->t, &c->wschema) != 0) {
        fprintf(stderr, "hoglake: out of memory\n");
        return -1;
    }
    if (c->from != IN_PARQUET) {
        if (rows_parser_new(c->t, &p, msg, sizeof msg) != 0) {
            fprintf(stderr, "hoglake: %s\n", msg);
            goto out;
        }
        f = fopen(c->in_path, "rb");
        if (!f) {
            fprintf(stderr, "hoglake: %s: %s\n", c->in_path, strerror(errno));
            goto out;
        }
    }
    struct pq_sink sink = {pq_sink_fd_write, &o->fd};
    struct pq_write_options keep = *wo;
    keep.logicals = c->annotated.logicals;
    keep.nlogicals = c->annotated.nlogicals;
    if (pq_writer_open(c->t, &keep, &sink, &c->w, &err) != 0) {
        fprintf(stderr, "hoglake: %s\n", err.msg);
        goto out;
    }
    if (c->from == IN_CSV)
        rc = convert_csv(c, f, p);
    else if (c->from == IN_JSONL)
        rc = convert_jsonl(c, f, p);
    else
        rc = convert_parquet(c, r);
    if (rc == 0) {
        struct pq_write_result res;
        rc = pq_writer_close(c->w, &res, &err);
        c->w = NULL;
        if (rc != 0)
            fprintf(stderr, "hoglake: writing Parquet: %s\n", err.msg);
        else
            pq_write_result_release(&res);
    }
out:
    if (c->w)
        pq_writer_free(c->w);
    if (f)
        fclose(f);
    rows_parser_free(p);
    c->wschema.release(&c->wschema);
    return rc;
}

static int parse_renames(const struct cli_args *a, struct arena *arena, struct convert_renames *out)
{
    const char *values[CLI_MAX_VALUES];
    int n = cli_opt_values(a, "rename", values, CLI_MAX_VALUES);
    return convert_renames_parse(values, (size_t)n, arena, out);
}

/* INT96 infers as timestamp_ns, but a column holding instants past the
 * nanosecond range (Spark's 9999-12-31, BC dates) reads at microseconds
 * (src/parquet/reader.c): the table follows what the reader hands out. */
static void follow_int96_units(struct lake_column *col, const struct ArrowSchema *s)
{
    if (col->type == LT_TIMESTAMP_NS && strcmp(s->format, "tsu:") == 0)
        col->type = LT_TIMESTAMP;
    if (col->type == LT_STRUCT && (size_t)s->n_children == col->nchildren)
        for (size_t i = 0; i < col->nchildren; i++)
            follow_int96_units(col->children[i], s->children[i]);
    else if (col->type == LT_LIST && col->nchildren == 1 && s->n_children == 1)
        follow_int96_units(col->children[0], s->children[0]);
}

static int follow_reader_units(struct convert *c, struct pq_reader *r)
{
    struct ArrowSchema s;
    struct pq_error err = {0};
    if (pq_reader_arrow_schema(r, &s, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", c->in_path, err.msg);
        return EXIT_FAILURE_OTHER;
    }
    if ((size_t)s.n_children == c->t->root.nchildren)
        for (size_t i = 0; i < c->t->root.nchildren; i++)
            follow_int96_units(c->t->root.children[i], s.children[i]);
    s.release(&s);
    return EXIT_OK;
}

/* The table a Parquet input fills, its columns renamed: the --schema's
 * (t already holds them), picked from the file by their input names; or
 * the file's own, when their names (renamed) can be columns. */
static int parquet_table(struct convert *c, struct pq_reader *r, bool have_spec)
{
    struct pq_schema renamed;
    struct pq_error err = {0};
    int rc = convert_renames_parquet(c->renames, pq_reader_schema(r), !have_spec, c->in_path,
                                     c->arena, &renamed);
    if (rc != EXIT_OK)
        return rc;
    if (!have_spec) {
        const struct pq_infer_options opts = {.unknown_as = c->unknown_as};
        if (pq_infer_table_with(&renamed, c->t, &opts, &c->annotated, &err) == 0)
            return follow_reader_units(c, r);
        fprintf(stderr, "hoglake: %s: %s\n", c->in_path, err.msg);
        return EXIT_FAILURE_OTHER;
    }
    /* The schema's columns, by their names in the file, in its order. */
    size_t n = c->t->root.nchildren;
    const char **names = arena_calloc(c->arena, n ? n : 1, sizeof *names);
    if (!names) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    for (size_t i = 0; i < n; i++)
        names[i] = convert_renames_source_of(c->renames, c->t->root.children[i]->name);
    if (pq_reader_select_names(r, names, n, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", c->in_path, err.msg);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

/* Whether null-only columns can take this type: a scalar that needs no
 * parameters (a decimal would need its precision). */
static bool null_column_type(const char *name)
{
    enum lake_type t;
    const char *why;
    return lake_type_lookup(name, &t, &why) == LAKE_TYPE_OK && !lake_type_is_container(t) &&
           t != LT_VARIANT && t != LT_DECIMAL;
}

static int run_convert(struct cli *cli, const struct cli_args *a)
{
    (void)cli;
    struct convert c = {0};
    c.in_path = a->positional[0];
    const char *out_path = a->positional[1];
    const char *from = cli_opt_value(a, "from");
    if (from) {
        if (strcmp(from, "csv") == 0)
            c.from = IN_CSV;
        else if (strcmp(from, "jsonl") == 0)
            c.from = IN_JSONL;
        else if (strcmp(from, "parquet") == 0)
            c.from = IN_PARQUET;
        else
            return cli_usage_error("--from takes csv, jsonl or parquet, not '%s'", from);
    } else if (!format_from_name(c.in_path, &c.from)) {
        return cli_usage_error("cannot tell the format of '%s' from its name: give --from",
                               c.in_path);
    }
    const char *spec = cli_opt_value(a, "schema");
    if (!spec && c.from != IN_PARQUET)
        return cli_usage_error("--schema is required for %s input",
                               c.from == IN_CSV ? "CSV" : "JSON Lines");
    c.batch_rows = DEFAULT_BATCH_ROWS;
    if (cli_opt_given(a, "batch-rows") &&
        !parse_count("batch-rows", cli_opt_value(a, "batch-rows"), 1, &c.batch_rows))
        return EXIT_USAGE;
    struct pq_write_options wo;
    if (!write_options(a, &wo))
        return EXIT_USAGE;
    if (c.from == IN_JSONL && cli_opt_given(a, "rename"))
        return cli_usage_error("--rename applies to CSV and Parquet input, not JSON Lines");
    c.unknown_as = cli_opt_value(a, "unknown-as");
    if (c.unknown_as && (c.from != IN_PARQUET || spec))
        return cli_usage_error("--unknown-as applies to Parquet input converted without --schema");
    if (c.unknown_as && !null_column_type(c.unknown_as))
        return cli_usage_error("--unknown-as takes a scalar type without parameters (string, long, "
                               "double, timestamp...), not '%s'",
                               c.unknown_as);
    bool force = cli_opt_given(a, "force");
    if (!force && access(out_path, F_OK) == 0) {
        fprintf(stderr, "hoglake: %s exists (give --force to overwrite it)\n", out_path);
        return EXIT_CONFLICT;
    }
    struct stat st;
    if (stat(c.in_path, &st) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", c.in_path, strerror(errno));
        return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_FAILURE_OTHER;
    }

    struct arena arena;
    arena_init(&arena, 0);
    struct lake_table t;
    lake_table_init(&t, &arena);
    t.name = "converted";
    c.t = &t;
    c.arena = &arena;
    c.fail_code = EXIT_FAILURE_OTHER;
    struct convert_renames renames = {0};
    c.renames = &renames;
    struct pq_source src = {0};
    src.fd = -1;
    struct pq_reader *r = NULL;
    struct output o = {0};
    o.fd = -1;
    char msg[800];
    struct pq_error err = {0};
    int rc = EXIT_FAILURE_OTHER;
    if ((rc = parse_renames(a, &arena, &renames)) != EXIT_OK)
        goto out;
    rc = EXIT_FAILURE_OTHER;
    if (spec && rows_table_from_spec(spec, &t, msg, sizeof msg) != 0) {
        rc = cli_usage_error("--schema: %s", msg);
        goto out;
    }
    if (c.from == IN_PARQUET) {
        if ((rc = open_source(c.in_path, &src)) != EXIT_OK)
            goto out;
        rc = EXIT_FAILURE_OTHER;
        if (pq_reader_open(&src, &r, &err) != 0) {
            fprintf(stderr, "hoglake: %s: %s\n", c.in_path, err.msg);
            goto out;
        }
        if ((rc = parquet_table(&c, r, spec != NULL)) != EXIT_OK)
            goto out;
        rc = EXIT_FAILURE_OTHER;
    }
    if (output_open(&o, out_path, force) != 0)
        goto out;
    if (convert_into(&c, &o, &wo, r) != 0) {
        rc = c.fail_code;
        goto out;
    }
    rc = output_publish(&o);
out:
    output_abandon(&o);
    pq_reader_free(r);
    if (src.fd >= 0)
        pq_source_close(&src);
    lake_table_release(&t);
    arena_free(&arena);
    return rc;
}

/* ---- the group ---- */

static const struct cli_opt inspect_opts[] = {
    {"json", false, false, "print a JSON document (see docs/cli-parquet.md)"},
};

static const struct cli_opt cat_opts[] = {
    {"format", true, false, "jsonl|csv  output format (default jsonl)"},
    {"columns", true, false, "A,B,...  only these top-level columns, in this order"},
    {"limit", true, false, "N  at most N rows"},
    {"geometry", true, false, "hex|wkt  GEOMETRY/GEOGRAPHY values as hex WKB (default) or WKT"},
};

static const struct cli_opt convert_opts[] = {
    {"from", true, false, "csv|jsonl|parquet  IN's format (default: from its extension)"},
    {"schema", true, false,
     "SPEC  'id:long!, name:string', ColumnDef JSON (may set field_id), or @FILE"},
    {"compression", true, false, "zstd|snappy|gzip|lz4_raw|uncompressed (default zstd)"},
    {"level", true, false, "N  zstd level, 1 to 22 (default 3)"},
    {"row-group-bytes", true, false, "N  cut row groups past N bytes (default 128 MiB)"},
    {"page-bytes", true, false, "N  cut data pages past N bytes (default 1 MiB)"},
    {"no-dictionary", false, false, "no dictionary encoding"},
    {"batch-rows", true, false, "N  rows handed to the writer at a time (default 65536)"},
    {"rename", true, true,
     "OLD=NEW,...  give input columns (a.b for struct fields) names a table accepts"},
    {"unknown-as", true, false,
     "TYPE  the type of Parquet columns of the null (UNKNOWN) type (they hold only nulls)"},
    {"force", false, false, "overwrite OUT when it exists"},
};

#define NOPTS(o) (sizeof(o) / sizeof((o)[0]))

int cmd_parquet(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"inspect", "show a Parquet file's footer: schema, row groups, column chunks, statistics",
         "parquet inspect FILE [--json]", inspect_opts, NOPTS(inspect_opts), 1, 1, run_inspect},
        {"cat", "print a Parquet file's rows as JSON Lines or CSV",
         "parquet cat FILE [--format jsonl|csv] [--columns A,B,...] [--limit N] [--geometry "
         "hex|wkt]",
         cat_opts, NOPTS(cat_opts), 1, 1, run_cat},
        {"convert", "convert rows between CSV, JSON Lines and Parquet, into Parquet",
         "parquet convert IN OUT [--from csv|jsonl|parquet] [--schema SPEC] "
         "[--rename OLD=NEW[,OLD=NEW...]] [--unknown-as TYPE] [--compression C] "
         "[--level N] [--row-group-bytes N] [--page-bytes N] [--no-dictionary] [--batch-rows N] "
         "[--force]",
         convert_opts, NOPTS(convert_opts), 2, 2, run_convert},
    };
    return cli_run_verbs(cli, "parquet", verbs, NOPTS(verbs), argc, argv);
}
