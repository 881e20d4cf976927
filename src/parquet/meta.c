#include "parquet/meta.h"

#include <stdio.h>
#include <string.h>

#include "parquet/thrift.h"

/* ---- shared ---- */

const char *pq_type_name(enum pq_type t)
{
    static const char *const names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                        "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return (unsigned)t < 8 ? names[t] : "UNKNOWN";
}

const char *pq_encoding_name(int e)
{
    switch (e) {
    case PQ_ENC_PLAIN: return "PLAIN";
    case PQ_ENC_PLAIN_DICTIONARY: return "PLAIN_DICTIONARY";
    case PQ_ENC_RLE: return "RLE";
    case PQ_ENC_BIT_PACKED: return "BIT_PACKED";
    case PQ_ENC_DELTA_BINARY_PACKED: return "DELTA_BINARY_PACKED";
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LENGTH_BYTE_ARRAY";
    case PQ_ENC_DELTA_BYTE_ARRAY: return "DELTA_BYTE_ARRAY";
    case PQ_ENC_RLE_DICTIONARY: return "RLE_DICTIONARY";
    case PQ_ENC_BYTE_STREAM_SPLIT: return "BYTE_STREAM_SPLIT";
    default: return "UNKNOWN";
    }
}

static const char *const codec_names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                          "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};

const char *pq_codec_name(int c)
{
    return (unsigned)c < 8 ? codec_names[c] : "UNKNOWN";
}

bool pq_logical_is_geo(const struct pq_logical *l)
{
    return l->kind == PQ_LT_GEOMETRY || l->kind == PQ_LT_GEOGRAPHY;
}

const char *pq_logical_crs(const struct pq_logical *l)
{
    return l->crs ? l->crs : "OGC:CRS84";
}

const char *pq_edge_algorithm_name(int32_t a)
{
    static const char *const names[] = {"SPHERICAL", "VINCENTY", "THOMAS", "ANDOYER", "KARNEY"};
    return a >= 0 && (size_t)a < sizeof names / sizeof names[0] ? names[a] : "OTHER";
}

bool pq_codec_parse(const char *name, enum pq_codec *out)
{
    for (int c = 0; c < 8; c++) {
        const char *n = codec_names[c];
        size_t i = 0;
        for (; n[i] && name[i]; i++) {
            char x = name[i];
            if (x >= 'a' && x <= 'z')
                x = (char)(x - 'a' + 'A');
            if (x != n[i])
                break;
        }
        if (!n[i] && !name[i]) {
            *out = (enum pq_codec)c;
            return true;
        }
    }
    return false;
}

/* ---- decoding helpers ---- */

struct dec {
    struct tc_reader r;
    struct arena *a;
    bool nomem;
};

static const char *dec_string(struct dec *d)
{
    size_t n;
    const uint8_t *p = tcr_binary(&d->r, &n);
    if (d->r.failed)
        return NULL;
    char *s = arena_strndup(d->a, (const char *)p, n);
    if (!s)
        d->nomem = true;
    return s;
}

static const uint8_t *dec_binary(struct dec *d, uint32_t *len)
{
    size_t n;
    const uint8_t *p = tcr_binary(&d->r, &n);
    if (d->r.failed)
        return NULL;
    if (n > UINT32_MAX) {
        tcr_fail(&d->r, "binary too long");
        return NULL;
    }
    uint8_t *copy = arena_alloc(d->a, n ? n : 1);
    if (!copy) {
        d->nomem = true;
        tcr_fail(&d->r, "out of memory");
        return NULL;
    }
    if (n)
        memcpy(copy, p, n);
    *len = (uint32_t)n;
    return copy;
}

/* Allocates an array for a list read from the wire; n is already bounded
 * by the input's size. */
static void *dec_array(struct dec *d, size_t n, size_t elem)
{
    void *p = arena_calloc(d->a, n ? n : 1, elem);
    if (!p) {
        d->nomem = true;
        tcr_fail(&d->r, "out of memory");
    }
    return p;
}

static int dec_finish(struct dec *d, const char *what, struct error *err)
{
    if (d->nomem)
        return error_fail(err, ERR_NOMEM, "out of memory decoding %s", what);
    if (d->r.failed)
        return error_fail(err, ERR_CORRUPT, "corrupt %s: %s", what,
                          d->r.error ? d->r.error : "malformed");
    return 0;
}

#define EXPECT(d, got, want) tcr_expect(&(d)->r, (got), (want))

/* ---- Statistics ---- */

static void dec_statistics(struct dec *d, struct pq_statistics *s)
{
    memset(s, 0, sizeof *s);
    tcr_struct_begin(&d->r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d->r, &id, &t)) {
        switch (id) {
        case 1:
            if (EXPECT(d, t, TC_BINARY)) {
                s->legacy_max = dec_binary(d, &s->legacy_max_len);
                s->has_legacy_max = !d->r.failed;
            }
            break;
        case 2:
            if (EXPECT(d, t, TC_BINARY)) {
                s->legacy_min = dec_binary(d, &s->legacy_min_len);
                s->has_legacy_min = !d->r.failed;
            }
            break;
        case 3:
            if (EXPECT(d, t, TC_I64)) {
                s->null_count = tcr_i64(&d->r);
                s->has_null_count = true;
            }
            break;
        case 4:
            if (EXPECT(d, t, TC_I64)) {
                s->distinct_count = tcr_i64(&d->r);
                s->has_distinct_count = true;
            }
            break;
        case 5:
            if (EXPECT(d, t, TC_BINARY)) {
                s->max = dec_binary(d, &s->max_len);
                s->has_max = !d->r.failed;
            }
            break;
        case 6:
            if (EXPECT(d, t, TC_BINARY)) {
                s->min = dec_binary(d, &s->min_len);
                s->has_min = !d->r.failed;
            }
            break;
        default: tcr_skip(&d->r, t);
        }
    }
    tcr_struct_end(&d->r);
}

/* ---- LogicalType ---- */

static enum pq_time_unit dec_time_unit(struct dec *d)
{
    enum pq_time_unit unit = 0;
    tcr_struct_begin(&d->r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d->r, &id, &t)) {
        if (id >= PQ_MILLIS && id <= PQ_NANOS && t == TC_STRUCT)
            unit = (enum pq_time_unit)id;
        tcr_skip(&d->r, t);
    }
    tcr_struct_end(&d->r);
    return unit;
}

/* TimeType / TimestampType: {1: isAdjustedToUTC, 2: unit}. */
static void dec_time_type(struct dec *d, struct pq_logical *lt)
{
    tcr_struct_begin(&d->r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d->r, &id, &t)) {
        if (id == 1 && EXPECT(d, t, TC_TRUE))
            lt->utc = tcr_bool_field(&d->r);
        else if (id == 2 && EXPECT(d, t, TC_STRUCT))
            lt->unit = dec_time_unit(d);
        else
            tcr_skip(&d->r, t);
    }
    tcr_struct_end(&d->r);
}

/* GeometryType {1: crs} and GeographyType {1: crs, 2: algorithm}. */
static void dec_geo_type(struct dec *d, struct pq_logical *lt)
{
    tcr_struct_begin(&d->r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d->r, &id, &t)) {
        if (id == 1 && EXPECT(d, t, TC_BINARY))
            lt->crs = dec_string(d);
        else if (id == 2 && lt->kind == PQ_LT_GEOGRAPHY && EXPECT(d, t, TC_I32))
            lt->edge_algorithm = tcr_i32(&d->r);
        else
            tcr_skip(&d->r, t);
    }
    tcr_struct_end(&d->r);
}

static void dec_logical(struct dec *d, struct pq_logical *lt)
{
    memset(lt, 0, sizeof *lt);
    tcr_struct_begin(&d->r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d->r, &id, &t)) {
        if (t != TC_STRUCT) {
            tcr_skip(&d->r, t);
            continue;
        }
        switch (id) {
        case PQ_LT_DECIMAL: {
            lt->kind = PQ_LT_DECIMAL;
            tcr_struct_begin(&d->r);
            int16_t fid;
            enum tc_type ft;
            while (tcr_field(&d->r, &fid, &ft)) {
                if (fid == 1 && EXPECT(d, ft, TC_I32))
                    lt->scale = tcr_i32(&d->r);
                else if (fid == 2 && EXPECT(d, ft, TC_I32))
                    lt->precision = tcr_i32(&d->r);
                else
                    tcr_skip(&d->r, ft);
            }
            tcr_struct_end(&d->r);
            break;
        }
        case PQ_LT_TIME:
        case PQ_LT_TIMESTAMP:
            lt->kind = (enum pq_logical_kind)id;
            dec_time_type(d, lt);
            break;
        case PQ_LT_INTEGER: {
            lt->kind = PQ_LT_INTEGER;
            tcr_struct_begin(&d->r);
            int16_t fid;
            enum tc_type ft;
            while (tcr_field(&d->r, &fid, &ft)) {
                if (fid == 1 && EXPECT(d, ft, TC_BYTE))
                    lt->bit_width = tcr_byte(&d->r);
                else if (fid == 2 && EXPECT(d, ft, TC_TRUE))
                    lt->is_signed = tcr_bool_field(&d->r);
                else
                    tcr_skip(&d->r, ft);
            }
            tcr_struct_end(&d->r);
            break;
        }
        case PQ_LT_VARIANT: {
            lt->kind = PQ_LT_VARIANT;
            tcr_struct_begin(&d->r);
            int16_t fid;
            enum tc_type ft;
            while (tcr_field(&d->r, &fid, &ft)) {
                if (fid == 1 && EXPECT(d, ft, TC_BYTE))
                    lt->variant_version = tcr_byte(&d->r);
                else
                    tcr_skip(&d->r, ft);
            }
            tcr_struct_end(&d->r);
            break;
        }
        case PQ_LT_GEOMETRY:
        case PQ_LT_GEOGRAPHY:
            lt->kind = (enum pq_logical_kind)id;
            dec_geo_type(d, lt);
            break;
        case PQ_LT_STRING:
        case PQ_LT_MAP:
        case PQ_LT_LIST:
        case PQ_LT_ENUM:
        case PQ_LT_DATE:
        case PQ_LT_UNKNOWN:
        case PQ_LT_JSON:
        case PQ_LT_BSON:
        case PQ_LT_UUID:
        case PQ_LT_FLOAT16:
            lt->kind = (enum pq_logical_kind)id;
            tcr_skip(&d->r, t);
            break;
        default: lt->kind = PQ_LT_OTHER; tcr_skip(&d->r, t);
        }
    }
    tcr_struct_end(&d->r);
}

/* ---- SchemaElement ---- */

static void dec_schema_element(struct dec *d, struct pq_schema_element *e)
{
    memset(e, 0, sizeof *e);
    bool has_name = false;
    tcr_struct_begin(&d->r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d->r, &id, &t)) {
        switch (id) {
        case 1:
            if (EXPECT(d, t, TC_I32)) {
                int32_t v = tcr_i32(&d->r);
                if (v < 0 || v > PQ_FIXED_LEN_BYTE_ARRAY)
                    tcr_fail(&d->r, "unknown physical type");
                e->type = (enum pq_type)v;
                e->has_type = true;
            }
            break;
        case 2:
            if (EXPECT(d, t, TC_I32))
                e->type_length = tcr_i32(&d->r);
            break;
        case 3:
            if (EXPECT(d, t, TC_I32)) {
                int32_t v = tcr_i32(&d->r);
                if (v < 0 || v > PQ_REPEATED)
                    tcr_fail(&d->r, "unknown repetition type");
                e->repetition = (enum pq_repetition)v;
                e->has_repetition = true;
            }
            break;
        case 4:
            if (EXPECT(d, t, TC_BINARY)) {
                e->name = dec_string(d);
                has_name = e->name != NULL;
            }
            break;
        case 5:
            if (EXPECT(d, t, TC_I32)) {
                e->num_children = tcr_i32(&d->r);
                e->has_num_children = true;
            }
            break;
        case 6:
            if (EXPECT(d, t, TC_I32)) {
                e->converted = (enum pq_converted)tcr_i32(&d->r);
                e->has_converted = true;
            }
            break;
        case 7:
            if (EXPECT(d, t, TC_I32)) {
                e->scale = tcr_i32(&d->r);
                e->has_decimal = true;
            }
            break;
        case 8:
            if (EXPECT(d, t, TC_I32)) {
                e->precision = tcr_i32(&d->r);
                e->has_decimal = true;
            }
            break;
        case 9:
            if (EXPECT(d, t, TC_I32)) {
                e->field_id = tcr_i32(&d->r);
                e->has_field_id = true;
            }
            break;
        case 10:
            if (EXPECT(d, t, TC_STRUCT))
                dec_logical(d, &e->logical);
            break;
        default: tcr_skip(&d->r, t);
        }
    }
    tcr_struct_end(&d->r);
    if (!has_name)
        tcr_fail(&d->r, "a schema element has no name");
}

/* ---- ColumnMetaData / ColumnChunk / RowGroup ---- */

static void dec_bbox(struct dec *d, struct pq_geo_statistics *g)
{
    unsigned seen = 0;
    double v[9] = {0};
    tcr_struct_begin(&d->r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d->r, &id, &t)) {
        if (id >= 1 && id <= 8 && EXPECT(d, t, TC_DOUBLE)) {
            v[id] = tcr_double(&d->r);
            seen |= 1u << id;
        } else {
            tcr_skip(&d->r, t);
        }
    }
    tcr_struct_end(&d->r);
    if ((seen & 0x1e) != 0x1e)
        return; /* x and y bounds are required: no box without them */
    g->has_bbox = true;
    g->xmin = v[1], g->xmax = v[2], g->ymin = v[3], g->ymax = v[4];
    g->has_z = (seen & 0x60) == 0x60;
    g->zmin = v[5], g->zmax = v[6];
    g->has_m = (seen & 0x180) == 0x180;
    g->mmin = v[7], g->mmax = v[8];
}

static void dec_geo_statistics(struct dec *d, struct pq_geo_statistics *g)
{
    tcr_struct_begin(&d->r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d->r, &id, &t)) {
        if (id == 1 && EXPECT(d, t, TC_STRUCT)) {
            dec_bbox(d, g);
        } else if (id == 2 && EXPECT(d, t, TC_LIST)) {
            enum tc_type et;
            size_t n = tcr_list(&d->r, &et);
            if (n && !EXPECT(d, et, TC_I32))
                break;
            g->types = dec_array(d, n, sizeof *g->types);
            for (size_t i = 0; i < n && !d->r.failed; i++)
                g->types[i] = tcr_i32(&d->r);
            g->ntypes = n;
        } else {
            tcr_skip(&d->r, t);
        }
    }
    tcr_struct_end(&d->r);
}

static void dec_column_meta(struct dec *d, struct pq_column_meta *m)
{
    memset(m, 0, sizeof *m);
    bool seen_type = false, seen_path = false, seen_codec = false, seen_values = false,
         seen_data = false;
    tcr_struct_begin(&d->r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d->r, &id, &t)) {
        switch (id) {
        case 1:
            if (EXPECT(d, t, TC_I32)) {
                int32_t v = tcr_i32(&d->r);
                if (v < 0 || v > PQ_FIXED_LEN_BYTE_ARRAY)
                    tcr_fail(&d->r, "unknown physical type");
                m->type = (enum pq_type)v;
                seen_type = true;
            }
            break;
        case 2:
            if (EXPECT(d, t, TC_LIST)) {
                enum tc_type et;
                size_t n = tcr_list(&d->r, &et);
                if (n && !EXPECT(d, et, TC_I32))
                    break;
                m->encodings = dec_array(d, n, sizeof *m->encodings);
                for (size_t i = 0; i < n && !d->r.failed; i++)
                    m->encodings[i] = tcr_i32(&d->r);
                m->nencodings = n;
            }
            break;
        case 3:
            if (EXPECT(d, t, TC_LIST)) {
                enum tc_type et;
                size_t n = tcr_list(&d->r, &et);
                if (n && !EXPECT(d, et, TC_BINARY))
                    break;
                m->path = dec_array(d, n, sizeof *m->path);
                for (size_t i = 0; i < n && !d->r.failed; i++)
                    m->path[i] = dec_string(d);
                m->npath = n;
                seen_path = true;
            }
            break;
        case 4:
            if (EXPECT(d, t, TC_I32)) {
                m->codec = (enum pq_codec)tcr_i32(&d->r);
                seen_codec = true;
            }
            break;
        case 5:
            if (EXPECT(d, t, TC_I64)) {
                m->num_values = tcr_i64(&d->r);
                seen_values = true;
            }
            break;
        case 6:
            if (EXPECT(d, t, TC_I64))
                m->total_uncompressed_size = tcr_i64(&d->r);
            break;
        case 7:
            if (EXPECT(d, t, TC_I64))
                m->total_compressed_size = tcr_i64(&d->r);
            break;
        case 9:
            if (EXPECT(d, t, TC_I64)) {
                m->data_page_offset = tcr_i64(&d->r);
                seen_data = true;
            }
            break;
        case 10:
            if (EXPECT(d, t, TC_I64)) {
                m->index_page_offset = tcr_i64(&d->r);
                m->has_index_page_offset = true;
            }
            break;
        case 11:
            if (EXPECT(d, t, TC_I64)) {
                m->dictionary_page_offset = tcr_i64(&d->r);
                m->has_dictionary_page_offset = true;
            }
            break;
        case 12:
            if (EXPECT(d, t, TC_STRUCT)) {
                dec_statistics(d, &m->statistics);
                m->has_statistics = true;
            }
            break;
        case 17:
            if (EXPECT(d, t, TC_STRUCT)) {
                dec_geo_statistics(d, &m->geo_statistics);
                m->has_geo_statistics = true;
            }
            break;
        default: tcr_skip(&d->r, t);
        }
    }
    tcr_struct_end(&d->r);
    if (!d->r.failed && !(seen_type && seen_path && seen_codec && seen_values && seen_data))
        tcr_fail(&d->r, "column metadata lacks a required field");
}

static void dec_column_chunk(struct dec *d, struct pq_column_chunk *c)
{
    memset(c, 0, sizeof *c);
    tcr_struct_begin(&d->r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d->r, &id, &t)) {
        switch (id) {
        case 1:
            if (EXPECT(d, t, TC_BINARY))
                c->file_path = dec_string(d);
            break;
        case 2:
            if (EXPECT(d, t, TC_I64))
                c->file_offset = tcr_i64(&d->r);
            break;
        case 3:
            if (EXPECT(d, t, TC_STRUCT)) {
                dec_column_meta(d, &c->meta);
                c->has_meta = true;
            }
            break;
        case 4:
            if (EXPECT(d, t, TC_I64)) {
                c->offset_index_offset = tcr_i64(&d->r);
                c->has_offset_index = true;
            }
            break;
        case 5:
            if (EXPECT(d, t, TC_I32))
                c->offset_index_length = tcr_i32(&d->r);
            break;
        case 6:
            if (EXPECT(d, t, TC_I64)) {
                c->column_index_offset = tcr_i64(&d->r);
                c->has_column_index = true;
            }
            break;
        case 7:
            if (EXPECT(d, t, TC_I32))
                c->column_index_length = tcr_i32(&d->r);
            break;
        default: tcr_skip(&d->r, t);
        }
    }
    tcr_struct_end(&d->r);
}

static void dec_row_group(struct dec *d, struct pq_row_group *g)
{
    memset(g, 0, sizeof *g);
    bool seen_columns = false, seen_rows = false;
    tcr_struct_begin(&d->r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d->r, &id, &t)) {
        switch (id) {
        case 1:
            if (EXPECT(d, t, TC_LIST)) {
                enum tc_type et;
                size_t n = tcr_list(&d->r, &et);
                if (n && !EXPECT(d, et, TC_STRUCT))
                    break;
                g->columns = dec_array(d, n, sizeof *g->columns);
                for (size_t i = 0; i < n && !d->r.failed; i++)
                    dec_column_chunk(d, &g->columns[i]);
                g->ncolumns = n;
                seen_columns = true;
            }
            break;
        case 2:
            if (EXPECT(d, t, TC_I64))
                g->total_byte_size = tcr_i64(&d->r);
            break;
        case 3:
            if (EXPECT(d, t, TC_I64)) {
                g->num_rows = tcr_i64(&d->r);
                seen_rows = true;
            }
            break;
        case 5:
            if (EXPECT(d, t, TC_I64)) {
                g->file_offset = tcr_i64(&d->r);
                g->has_file_offset = true;
            }
            break;
        case 6:
            if (EXPECT(d, t, TC_I64)) {
                g->total_compressed_size = tcr_i64(&d->r);
                g->has_total_compressed_size = true;
            }
            break;
        case 7:
            if (EXPECT(d, t, TC_I16)) {
                g->ordinal = tcr_i16(&d->r);
                g->has_ordinal = true;
            }
            break;
        default: tcr_skip(&d->r, t);
        }
    }
    tcr_struct_end(&d->r);
    if (!d->r.failed && !(seen_columns && seen_rows))
        tcr_fail(&d->r, "a row group lacks a required field");
}

/* ---- FileMetaData ---- */

int pq_decode_file_meta(const void *data, size_t len, struct arena *a, struct pq_file_meta *out,
                        struct error *err)
{
    memset(out, 0, sizeof *out);
    struct dec d = {.a = a};
    tcr_init(&d.r, data, len);
    bool seen_schema = false, seen_rows = false, seen_groups = false;
    tcr_struct_begin(&d.r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d.r, &id, &t)) {
        switch (id) {
        case 1:
            if (EXPECT(&d, t, TC_I32))
                out->version = tcr_i32(&d.r);
            break;
        case 2:
            if (EXPECT(&d, t, TC_LIST)) {
                enum tc_type et;
                size_t n = tcr_list(&d.r, &et);
                if (n && !EXPECT(&d, et, TC_STRUCT))
                    break;
                out->schema = dec_array(&d, n, sizeof *out->schema);
                for (size_t i = 0; i < n && !d.r.failed; i++)
                    dec_schema_element(&d, &out->schema[i]);
                out->nschema = n;
                seen_schema = true;
            }
            break;
        case 3:
            if (EXPECT(&d, t, TC_I64)) {
                out->num_rows = tcr_i64(&d.r);
                seen_rows = true;
            }
            break;
        case 4:
            if (EXPECT(&d, t, TC_LIST)) {
                enum tc_type et;
                size_t n = tcr_list(&d.r, &et);
                if (n && !EXPECT(&d, et, TC_STRUCT))
                    break;
                out->row_groups = dec_array(&d, n, sizeof *out->row_groups);
                for (size_t i = 0; i < n && !d.r.failed; i++)
                    dec_row_group(&d, &out->row_groups[i]);
                out->nrow_groups = n;
                seen_groups = true;
            }
            break;
        case 5:
            if (EXPECT(&d, t, TC_LIST)) {
                enum tc_type et;
                size_t n = tcr_list(&d.r, &et);
                if (n && !EXPECT(&d, et, TC_STRUCT))
                    break;
                out->kv = dec_array(&d, n, sizeof *out->kv);
                for (size_t i = 0; i < n && !d.r.failed; i++) {
                    tcr_struct_begin(&d.r);
                    int16_t fid;
                    enum tc_type ft;
                    while (tcr_field(&d.r, &fid, &ft)) {
                        if (fid == 1 && EXPECT(&d, ft, TC_BINARY))
                            out->kv[i].key = dec_string(&d);
                        else if (fid == 2 && EXPECT(&d, ft, TC_BINARY))
                            out->kv[i].value = dec_string(&d);
                        else
                            tcr_skip(&d.r, ft);
                    }
                    tcr_struct_end(&d.r);
                    if (!out->kv[i].key)
                        tcr_fail(&d.r, "a key-value entry has no key");
                }
                out->nkv = n;
            }
            break;
        case 6:
            if (EXPECT(&d, t, TC_BINARY))
                out->created_by = dec_string(&d);
            break;
        case 7:
            if (EXPECT(&d, t, TC_LIST)) {
                enum tc_type et;
                size_t n = tcr_list(&d.r, &et);
                for (size_t i = 0; i < n && !d.r.failed; i++)
                    tcr_skip(&d.r, et);
                out->ncolumn_orders = n;
            }
            break;
        case 8:
            out->encrypted = true;
            tcr_skip(&d.r, t);
            break;
        default: tcr_skip(&d.r, t);
        }
    }
    tcr_struct_end(&d.r);
    if (!d.r.failed && !(seen_schema && seen_rows && seen_groups))
        tcr_fail(&d.r, "the footer lacks a required field");
    return dec_finish(&d, "footer", err);
}

/* ---- PageHeader ---- */

bool pq_meta_rows_only_in_groups(const struct pq_file_meta *m, int64_t *rows)
{
    if (m->num_rows != 0)
        return false;
    int64_t sum = 0;
    for (size_t g = 0; g < m->nrow_groups; g++) {
        int64_t n = m->row_groups[g].num_rows;
        if (n < 0 || __builtin_add_overflow(sum, n, &sum))
            return false;
    }
    *rows = sum;
    return sum > 0;
}

int pq_decode_page_header(const void *data, size_t avail, struct arena *a,
                          struct pq_page_header *out, size_t *header_len, struct error *err)
{
    memset(out, 0, sizeof *out);
    out->is_compressed = true; /* the v2 default */
    struct dec d = {.a = a};
    tcr_init(&d.r, data, avail);
    bool seen_type = false, seen_sizes = false;
    unsigned seen_sub = 0; /* bit n: the sub-header in field n */
    tcr_struct_begin(&d.r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d.r, &id, &t)) {
        switch (id) {
        case 1:
            if (EXPECT(&d, t, TC_I32)) {
                out->type = (enum pq_page_type)tcr_i32(&d.r);
                seen_type = true;
            }
            break;
        case 2:
            if (EXPECT(&d, t, TC_I32))
                out->uncompressed_size = tcr_i32(&d.r);
            break;
        case 3:
            if (EXPECT(&d, t, TC_I32)) {
                out->compressed_size = tcr_i32(&d.r);
                seen_sizes = true;
            }
            break;
        case 4:
            if (EXPECT(&d, t, TC_I32)) {
                out->crc = tcr_i32(&d.r);
                out->has_crc = true;
            }
            break;
        case 5:
        case 7:
        case 8: {
            if (!EXPECT(&d, t, TC_STRUCT))
                break;
            seen_sub |= 1u << id;
            tcr_struct_begin(&d.r);
            int16_t fid;
            enum tc_type ft;
            while (tcr_field(&d.r, &fid, &ft)) {
                /* DataPageHeader (5), DictionaryPageHeader (7), DataPageHeaderV2 (8) */
                bool stats_field = (id == 5 && fid == 5) || (id == 8 && fid == 8);
                if (stats_field && ft == TC_STRUCT && a) {
                    dec_statistics(&d, &out->statistics);
                    out->has_statistics = true;
                } else if (ft == TC_I32 && fid == 1) {
                    out->num_values = tcr_i32(&d.r);
                } else if (ft == TC_I32 && fid == 2) {
                    int32_t v = tcr_i32(&d.r);
                    if (id == 8)
                        out->num_nulls = v;
                    else
                        out->encoding = (enum pq_encoding)v;
                } else if (ft == TC_I32 && fid == 3 && id == 5) {
                    out->def_encoding = (enum pq_encoding)tcr_i32(&d.r);
                } else if (ft == TC_I32 && fid == 3 && id == 8) {
                    out->num_rows = tcr_i32(&d.r);
                } else if (ft == TC_I32 && fid == 4 && id == 5) {
                    out->rep_encoding = (enum pq_encoding)tcr_i32(&d.r);
                } else if (ft == TC_I32 && fid == 4 && id == 8) {
                    out->encoding = (enum pq_encoding)tcr_i32(&d.r);
                } else if (ft == TC_I32 && fid == 5 && id == 8) {
                    out->def_levels_len = tcr_i32(&d.r);
                } else if (ft == TC_I32 && fid == 6 && id == 8) {
                    out->rep_levels_len = tcr_i32(&d.r);
                } else if ((ft == TC_TRUE || ft == TC_FALSE) && fid == 7 && id == 8) {
                    out->is_compressed = tcr_bool_field(&d.r);
                } else if ((ft == TC_TRUE || ft == TC_FALSE) && fid == 3 && id == 7) {
                    out->is_sorted = tcr_bool_field(&d.r);
                } else {
                    tcr_skip(&d.r, ft);
                }
            }
            tcr_struct_end(&d.r);
            break;
        }
        default: tcr_skip(&d.r, t);
        }
    }
    tcr_struct_end(&d.r);
    if (!d.r.failed && !(seen_type && seen_sizes))
        tcr_fail(&d.r, "a page header lacks a required field");
    /* The known page types need their own sub-header; an index page has
     * none, and page types added after this reader are skipped whole. */
    int want_sub = out->type == PQ_DATA_PAGE         ? 5
                   : out->type == PQ_DICTIONARY_PAGE ? 7
                   : out->type == PQ_DATA_PAGE_V2    ? 8
                                                     : 0;
    if (!d.r.failed && want_sub && !(seen_sub & (1u << want_sub)))
        tcr_fail(&d.r, "a page header lacks its page-type header");
    if (!d.r.failed && (out->compressed_size < 0 || out->uncompressed_size < 0 ||
                        out->num_values < 0 || out->num_nulls < 0 || out->num_rows < 0 ||
                        out->def_levels_len < 0 || out->rep_levels_len < 0))
        tcr_fail(&d.r, "a page header has a negative size or count");
    if (dec_finish(&d, "page header", err) != 0)
        return -1;
    *header_len = (size_t)(d.r.p - (const uint8_t *)data);
    return 0;
}

/* ---- page index ---- */

int pq_decode_offset_index(const void *data, size_t len, struct arena *a,
                           struct pq_offset_index *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    struct dec d = {.a = a};
    tcr_init(&d.r, data, len);
    tcr_struct_begin(&d.r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d.r, &id, &t)) {
        if (id != 1 || !EXPECT(&d, t, TC_LIST)) {
            tcr_skip(&d.r, t);
            continue;
        }
        enum tc_type et;
        size_t n = tcr_list(&d.r, &et);
        if (n && !EXPECT(&d, et, TC_STRUCT))
            break;
        out->pages = dec_array(&d, n, sizeof *out->pages);
        for (size_t i = 0; i < n && !d.r.failed; i++) {
            tcr_struct_begin(&d.r);
            int16_t fid;
            enum tc_type ft;
            while (tcr_field(&d.r, &fid, &ft)) {
                if (fid == 1 && EXPECT(&d, ft, TC_I64))
                    out->pages[i].offset = tcr_i64(&d.r);
                else if (fid == 2 && EXPECT(&d, ft, TC_I32))
                    out->pages[i].compressed_page_size = tcr_i32(&d.r);
                else if (fid == 3 && EXPECT(&d, ft, TC_I64))
                    out->pages[i].first_row_index = tcr_i64(&d.r);
                else
                    tcr_skip(&d.r, ft);
            }
            tcr_struct_end(&d.r);
        }
        out->npages = n;
    }
    tcr_struct_end(&d.r);
    return dec_finish(&d, "offset index", err);
}

int pq_decode_column_index(const void *data, size_t len, struct arena *a,
                           struct pq_column_index *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    struct dec d = {.a = a};
    tcr_init(&d.r, data, len);
    size_t counts[4] = {0}; /* null_pages, min, max, null_counts */
    tcr_struct_begin(&d.r);
    int16_t id;
    enum tc_type t;
    while (tcr_field(&d.r, &id, &t)) {
        if (id == 4 && EXPECT(&d, t, TC_I32)) {
            out->boundary_order = (enum pq_boundary_order)tcr_i32(&d.r);
            continue;
        }
        if ((id < 1 || id > 5 || id == 4) || t != TC_LIST) {
            tcr_skip(&d.r, t);
            continue;
        }
        enum tc_type et;
        size_t n = tcr_list(&d.r, &et);
        if (id == 1) {
            out->null_pages = dec_array(&d, n, sizeof *out->null_pages);
            for (size_t i = 0; i < n && !d.r.failed; i++)
                out->null_pages[i] = tcr_bool_elem(&d.r);
            counts[0] = n;
        } else if (id == 2 || id == 3) {
            if (n && !EXPECT(&d, et, TC_BINARY))
                break;
            const uint8_t **vals = dec_array(&d, n, sizeof *vals);
            uint32_t *lens = dec_array(&d, n, sizeof *lens);
            for (size_t i = 0; i < n && !d.r.failed && vals && lens; i++)
                vals[i] = dec_binary(&d, &lens[i]);
            if (id == 2) {
                out->min_values = vals;
                out->min_lens = lens;
                counts[1] = n;
            } else {
                out->max_values = vals;
                out->max_lens = lens;
                counts[2] = n;
            }
        } else {
            if (n && !EXPECT(&d, et, TC_I64))
                break;
            out->null_counts = dec_array(&d, n, sizeof *out->null_counts);
            for (size_t i = 0; i < n && !d.r.failed; i++)
                out->null_counts[i] = tcr_i64(&d.r);
            counts[3] = n;
        }
    }
    tcr_struct_end(&d.r);
    out->npages = counts[0];
    if (!d.r.failed && (counts[1] != counts[0] || counts[2] != counts[0] ||
                        (out->null_counts && counts[3] != counts[0])))
        tcr_fail(&d.r, "column index lists differ in length");
    return dec_finish(&d, "column index", err);
}

/* ---- encoding ---- */

static void enc_statistics(struct tc_writer *w, int16_t id, const struct pq_statistics *s)
{
    tcw_field_struct_begin(w, id);
    if (s->has_legacy_max)
        tcw_field_binary(w, 1, s->legacy_max, s->legacy_max_len);
    if (s->has_legacy_min)
        tcw_field_binary(w, 2, s->legacy_min, s->legacy_min_len);
    if (s->has_null_count)
        tcw_field_i64(w, 3, s->null_count);
    if (s->has_distinct_count)
        tcw_field_i64(w, 4, s->distinct_count);
    if (s->has_max)
        tcw_field_binary(w, 5, s->max, s->max_len);
    if (s->has_min)
        tcw_field_binary(w, 6, s->min, s->min_len);
    tcw_struct_end(w);
}

static void enc_empty_struct(struct tc_writer *w, int16_t id)
{
    tcw_field_struct_begin(w, id);
    tcw_struct_end(w);
}

static void enc_logical(struct tc_writer *w, const struct pq_logical *lt)
{
    tcw_field_struct_begin(w, 10);
    int16_t kind = (int16_t)lt->kind;
    switch (lt->kind) {
    case PQ_LT_DECIMAL:
        tcw_field_struct_begin(w, kind);
        tcw_field_i32(w, 1, lt->scale);
        tcw_field_i32(w, 2, lt->precision);
        tcw_struct_end(w);
        break;
    case PQ_LT_TIME:
    case PQ_LT_TIMESTAMP:
        tcw_field_struct_begin(w, kind);
        tcw_field_bool(w, 1, lt->utc);
        tcw_field_struct_begin(w, 2);
        enc_empty_struct(w, (int16_t)lt->unit);
        tcw_struct_end(w);
        tcw_struct_end(w);
        break;
    case PQ_LT_INTEGER:
        tcw_field_struct_begin(w, kind);
        tcw_field_byte(w, 1, lt->bit_width);
        tcw_field_bool(w, 2, lt->is_signed);
        tcw_struct_end(w);
        break;
    case PQ_LT_VARIANT:
        tcw_field_struct_begin(w, kind);
        tcw_field_byte(w, 1, lt->variant_version);
        tcw_struct_end(w);
        break;
    case PQ_LT_GEOMETRY:
    case PQ_LT_GEOGRAPHY:
        tcw_field_struct_begin(w, kind);
        if (lt->crs)
            tcw_field_string(w, 1, lt->crs);
        if (lt->kind == PQ_LT_GEOGRAPHY && lt->edge_algorithm != PQ_EDGE_SPHERICAL)
            tcw_field_i32(w, 2, lt->edge_algorithm);
        tcw_struct_end(w);
        break;
    default: enc_empty_struct(w, kind);
    }
    tcw_struct_end(w);
}

static void enc_schema_element(struct tc_writer *w, const struct pq_schema_element *e)
{
    tcw_struct_begin(w);
    if (e->has_type)
        tcw_field_i32(w, 1, (int32_t)e->type);
    if (e->type_length)
        tcw_field_i32(w, 2, e->type_length);
    if (e->has_repetition)
        tcw_field_i32(w, 3, (int32_t)e->repetition);
    tcw_field_string(w, 4, e->name);
    if (e->has_num_children)
        tcw_field_i32(w, 5, e->num_children);
    if (e->has_converted)
        tcw_field_i32(w, 6, (int32_t)e->converted);
    if (e->has_decimal) {
        tcw_field_i32(w, 7, e->scale);
        tcw_field_i32(w, 8, e->precision);
    }
    if (e->has_field_id)
        tcw_field_i32(w, 9, e->field_id);
    if (e->logical.kind != PQ_LT_NONE && e->logical.kind != PQ_LT_OTHER)
        enc_logical(w, &e->logical);
    tcw_struct_end(w);
}

static void enc_geo_statistics(struct tc_writer *w, int16_t id, const struct pq_geo_statistics *g)
{
    tcw_field_struct_begin(w, id);
    if (g->has_bbox) {
        tcw_field_struct_begin(w, 1);
        tcw_field_double(w, 1, g->xmin);
        tcw_field_double(w, 2, g->xmax);
        tcw_field_double(w, 3, g->ymin);
        tcw_field_double(w, 4, g->ymax);
        if (g->has_z) {
            tcw_field_double(w, 5, g->zmin);
            tcw_field_double(w, 6, g->zmax);
        }
        if (g->has_m) {
            tcw_field_double(w, 7, g->mmin);
            tcw_field_double(w, 8, g->mmax);
        }
        tcw_struct_end(w);
    }
    tcw_field_list_begin(w, 2, TC_I32, g->ntypes);
    for (size_t i = 0; i < g->ntypes; i++)
        tcw_elem_i32(w, g->types[i]);
    tcw_struct_end(w);
}

static void enc_column_meta(struct tc_writer *w, const struct pq_column_meta *m)
{
    tcw_field_struct_begin(w, 3);
    tcw_field_i32(w, 1, (int32_t)m->type);
    tcw_field_list_begin(w, 2, TC_I32, m->nencodings);
    for (size_t i = 0; i < m->nencodings; i++)
        tcw_elem_i32(w, m->encodings[i]);
    tcw_field_list_begin(w, 3, TC_BINARY, m->npath);
    for (size_t i = 0; i < m->npath; i++)
        tcw_elem_binary(w, m->path[i], strlen(m->path[i]));
    tcw_field_i32(w, 4, (int32_t)m->codec);
    tcw_field_i64(w, 5, m->num_values);
    tcw_field_i64(w, 6, m->total_uncompressed_size);
    tcw_field_i64(w, 7, m->total_compressed_size);
    tcw_field_i64(w, 9, m->data_page_offset);
    if (m->has_index_page_offset)
        tcw_field_i64(w, 10, m->index_page_offset);
    if (m->has_dictionary_page_offset)
        tcw_field_i64(w, 11, m->dictionary_page_offset);
    if (m->has_statistics)
        enc_statistics(w, 12, &m->statistics);
    if (m->has_geo_statistics)
        enc_geo_statistics(w, 17, &m->geo_statistics);
    tcw_struct_end(w);
}

int pq_encode_file_meta(const struct pq_file_meta *m, struct buf *out)
{
    struct tc_writer w;
    tcw_init(&w, out);
    tcw_struct_begin(&w);
    tcw_field_i32(&w, 1, m->version);
    tcw_field_list_begin(&w, 2, TC_STRUCT, m->nschema);
    for (size_t i = 0; i < m->nschema; i++)
        enc_schema_element(&w, &m->schema[i]);
    tcw_field_i64(&w, 3, m->num_rows);
    tcw_field_list_begin(&w, 4, TC_STRUCT, m->nrow_groups);
    for (size_t g = 0; g < m->nrow_groups; g++) {
        const struct pq_row_group *rg = &m->row_groups[g];
        tcw_struct_begin(&w);
        tcw_field_list_begin(&w, 1, TC_STRUCT, rg->ncolumns);
        for (size_t c = 0; c < rg->ncolumns; c++) {
            const struct pq_column_chunk *cc = &rg->columns[c];
            tcw_struct_begin(&w);
            if (cc->file_path)
                tcw_field_string(&w, 1, cc->file_path);
            tcw_field_i64(&w, 2, cc->file_offset);
            if (cc->has_meta)
                enc_column_meta(&w, &cc->meta);
            if (cc->has_offset_index) {
                tcw_field_i64(&w, 4, cc->offset_index_offset);
                tcw_field_i32(&w, 5, cc->offset_index_length);
            }
            if (cc->has_column_index) {
                tcw_field_i64(&w, 6, cc->column_index_offset);
                tcw_field_i32(&w, 7, cc->column_index_length);
            }
            tcw_struct_end(&w);
        }
        tcw_field_i64(&w, 2, rg->total_byte_size);
        tcw_field_i64(&w, 3, rg->num_rows);
        if (rg->has_file_offset)
            tcw_field_i64(&w, 5, rg->file_offset);
        if (rg->has_total_compressed_size)
            tcw_field_i64(&w, 6, rg->total_compressed_size);
        if (rg->has_ordinal)
            tcw_field_i16(&w, 7, rg->ordinal);
        tcw_struct_end(&w);
    }
    if (m->nkv) {
        tcw_field_list_begin(&w, 5, TC_STRUCT, m->nkv);
        for (size_t i = 0; i < m->nkv; i++) {
            tcw_struct_begin(&w);
            tcw_field_string(&w, 1, m->kv[i].key);
            if (m->kv[i].value)
                tcw_field_string(&w, 2, m->kv[i].value);
            tcw_struct_end(&w);
        }
    }
    if (m->created_by)
        tcw_field_string(&w, 6, m->created_by);
    if (m->ncolumn_orders) {
        /* Every leaf uses the order its type defines (TYPE_ORDER). */
        tcw_field_list_begin(&w, 7, TC_STRUCT, m->ncolumn_orders);
        for (size_t i = 0; i < m->ncolumn_orders; i++) {
            tcw_struct_begin(&w);
            enc_empty_struct(&w, 1);
            tcw_struct_end(&w);
        }
    }
    tcw_struct_end(&w);
    return w.failed ? -1 : 0;
}

int pq_encode_page_header(const struct pq_page_header *h, struct buf *out)
{
    struct tc_writer w;
    tcw_init(&w, out);
    tcw_struct_begin(&w);
    tcw_field_i32(&w, 1, (int32_t)h->type);
    tcw_field_i32(&w, 2, h->uncompressed_size);
    tcw_field_i32(&w, 3, h->compressed_size);
    if (h->has_crc)
        tcw_field_i32(&w, 4, h->crc);
    switch (h->type) {
    case PQ_DATA_PAGE:
        tcw_field_struct_begin(&w, 5);
        tcw_field_i32(&w, 1, h->num_values);
        tcw_field_i32(&w, 2, (int32_t)h->encoding);
        tcw_field_i32(&w, 3, (int32_t)h->def_encoding);
        tcw_field_i32(&w, 4, (int32_t)h->rep_encoding);
        if (h->has_statistics)
            enc_statistics(&w, 5, &h->statistics);
        tcw_struct_end(&w);
        break;
    case PQ_DICTIONARY_PAGE:
        tcw_field_struct_begin(&w, 7);
        tcw_field_i32(&w, 1, h->num_values);
        tcw_field_i32(&w, 2, (int32_t)h->encoding);
        if (h->is_sorted)
            tcw_field_bool(&w, 3, true);
        tcw_struct_end(&w);
        break;
    case PQ_DATA_PAGE_V2:
        tcw_field_struct_begin(&w, 8);
        tcw_field_i32(&w, 1, h->num_values);
        tcw_field_i32(&w, 2, h->num_nulls);
        tcw_field_i32(&w, 3, h->num_rows);
        tcw_field_i32(&w, 4, (int32_t)h->encoding);
        tcw_field_i32(&w, 5, h->def_levels_len);
        tcw_field_i32(&w, 6, h->rep_levels_len);
        if (!h->is_compressed)
            tcw_field_bool(&w, 7, false);
        if (h->has_statistics)
            enc_statistics(&w, 8, &h->statistics);
        tcw_struct_end(&w);
        break;
    case PQ_INDEX_PAGE: break;
    }
    tcw_struct_end(&w);
    return w.failed ? -1 : 0;
}

int pq_encode_offset_index(const struct pq_offset_index *oi, struct buf *out)
{
    struct tc_writer w;
    tcw_init(&w, out);
    tcw_struct_begin(&w);
    tcw_field_list_begin(&w, 1, TC_STRUCT, oi->npages);
    for (size_t i = 0; i < oi->npages; i++) {
        tcw_struct_begin(&w);
        tcw_field_i64(&w, 1, oi->pages[i].offset);
        tcw_field_i32(&w, 2, oi->pages[i].compressed_page_size);
        tcw_field_i64(&w, 3, oi->pages[i].first_row_index);
        tcw_struct_end(&w);
    }
    tcw_struct_end(&w);
    return w.failed ? -1 : 0;
}

int pq_encode_column_index(const struct pq_column_index *ci, struct buf *out)
{
    struct tc_writer w;
    tcw_init(&w, out);
    tcw_struct_begin(&w);
    tcw_field_list_begin(&w, 1, TC_TRUE, ci->npages);
    for (size_t i = 0; i < ci->npages; i++)
        tcw_elem_bool(&w, ci->null_pages[i]);
    tcw_field_list_begin(&w, 2, TC_BINARY, ci->npages);
    for (size_t i = 0; i < ci->npages; i++)
        tcw_elem_binary(&w, ci->min_values[i], ci->min_lens[i]);
    tcw_field_list_begin(&w, 3, TC_BINARY, ci->npages);
    for (size_t i = 0; i < ci->npages; i++)
        tcw_elem_binary(&w, ci->max_values[i], ci->max_lens[i]);
    tcw_field_i32(&w, 4, (int32_t)ci->boundary_order);
    if (ci->null_counts) {
        tcw_field_list_begin(&w, 5, TC_I64, ci->npages);
        for (size_t i = 0; i < ci->npages; i++)
            tcw_elem_i64(&w, ci->null_counts[i]);
    }
    tcw_struct_end(&w);
    return w.failed ? -1 : 0;
}
