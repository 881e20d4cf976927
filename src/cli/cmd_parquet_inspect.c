/* hoglake parquet inspect FILE [--json]: the footer (schema, row groups,
 * column chunks, statistics) as text or as the JSON document of
 * docs/cli-parquet.md. Reads no data page. */
#include <stdio.h>
#include <string.h>

#include "cli/cmd_parquet.h"
#include "cli/output.h"
#include "rows/rows_value.h"
#include "textio/textio_json.h"
#include "textio/textio_text.h"
#include "util/strutil.h"

const struct cli_opt cli_parquet_inspect_opts[] = {
    {"json", false, false, "print a JSON document (see docs/cli-parquet.md)"},
};

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

/* GEOMETRY and GEOGRAPHY as the schema listing shows them: the CRS (cut
 * short, a PROJJSON one runs to kilobytes; --json has it whole) and the
 * edge algorithm. */
static void geo_text(const struct pq_logical *l, const char *n, char *out, size_t size)
{
    enum { CRS_SHOWN = 24 };
    const char *crs = pq_logical_crs(l);
    bool cut = strlen(crs) > CRS_SHOWN;
    if (l->kind == PQ_LT_GEOMETRY)
        snprintf(out, size, "%s(%.*s%s)", n, CRS_SHOWN, crs, cut ? "..." : "");
    else
        snprintf(out, size, "%s(%.*s%s,%s)", n, CRS_SHOWN, crs, cut ? "..." : "",
                 pq_edge_algorithm_name(l->edge_algorithm));
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
    } else if (pq_logical_is_geo(l)) {
        jw_key(w, "crs");
        jw_cstring(w, pq_logical_crs(l));
        if (l->kind == PQ_LT_GEOGRAPHY) {
            jw_key(w, "algorithm");
            jw_cstring(w, pq_edge_algorithm_name(l->edge_algorithm));
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
            d = rows_load_signed(v, (int)n);
        else
            for (uint32_t i = 0; i < n; i++)
                d = (rt_i128)(((rt_u128)d << 8) | v[i]);
        jw_string(w, t, rt_format_decimal(d, decimal_scale(e), t));
        return;
    }
    enum rows_unit u = l->unit == PQ_MILLIS  ? ROWS_MILLIS
                       : l->unit == PQ_NANOS ? ROWS_NANOS
                                             : ROWS_MICROS;
    bool is_unsigned = (l->kind == PQ_LT_INTEGER && !l->is_signed) ||
                       (ct && e->converted >= PQ_CT_UINT_8 && e->converted <= PQ_CT_UINT_64);
    bool legacy_ts =
        ct && (e->converted == PQ_CT_TIMESTAMP_MILLIS || e->converted == PQ_CT_TIMESTAMP_MICROS);
    if (fixed) {
        int64_t x = rows_load_signed(v, (int)n);
        if (is_unsigned)
            jw_raw(w, t, rt_format_u64(n == 4 ? (uint32_t)x : (uint64_t)x, t));
        else if (n == 4 && (l->kind == PQ_LT_DATE || (ct && e->converted == PQ_CT_DATE)))
            jw_string(w, t, rt_format_date(x, t));
        else if (n == 8 && l->kind == PQ_LT_TIMESTAMP)
            jw_string(w, t, rt_format_timestamp(x, u, l->utc, t));
        else if (n == 8 && legacy_ts)
            jw_string(w, t,
                      rt_format_timestamp(
                          x, e->converted == PQ_CT_TIMESTAMP_MILLIS ? ROWS_MILLIS : ROWS_MICROS,
                          true, t));
        else if ((l->kind == PQ_LT_TIME || (ct && (e->converted == PQ_CT_TIME_MILLIS ||
                                                   e->converted == PQ_CT_TIME_MICROS))) &&
                 rt_format_time(x,
                                n == 4                  ? ROWS_MILLIS
                                : l->kind == PQ_LT_TIME ? u
                                                        : ROWS_MICROS,
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
            f = rows_half_to_float((uint16_t)rows_load_unsigned(v, 2));
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
    char n[OUT_NUM_MAX], counted[OUT_NUM_MAX];
    snprintf(out, size, "the footer says 0 rows but its row groups hold %s: read as %s",
             out_number(n, rows), out_count(rows, "row", "rows", counted, sizeof counted));
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
    /* Exact sizes: this is where a file's layout is checked. */
    char n1[OUT_NUM_MAX], n2[OUT_NUM_MAX];
    printf("%-12s %s (footer %s)\n", "size",
           out_count((int64_t)size, "byte", "bytes", n1, sizeof n1), out_number(n2, footer_len));
    printf("%-12s %s\n", "rows", out_number(n1, m->num_rows));
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
        printf("\nrow group %zu: %s, %s", g, out_count(rg->num_rows, "row", "rows", n1, sizeof n1),
               out_count(rg->total_byte_size, "byte", "bytes", n2, sizeof n2));
        if (rg->has_total_compressed_size)
            printf(" (%s compressed)", out_number(n1, rg->total_compressed_size));
        printf("\n");
        for (size_t c = 0; c < rg->ncolumns; c++)
            human_chunk(&rg->columns[c], chunk_leaf(s, rg, c), &tmp);
    }
    buf_free(&tmp);
}

int cli_run_parquet_inspect(struct cli *cli, const struct cli_args *a)
{
    const char *path = a->positional[0];
    struct pq_source src;
    int rc = cli_parquet_open_source(path, &src);
    if (rc != EXIT_OK)
        return rc;
    struct arena ar;
    arena_init(&ar, 0);
    struct pq_file_meta m;
    struct pq_schema s;
    uint32_t footer_len = 0;
    struct error err = {0};
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
