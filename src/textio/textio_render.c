#include "textio/textio_render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rows/rows_schema.h"
#include "rows/rows_unshred.h"
#include "rows/rows_value.h"
#include "textio/csv.h"
#include "textio/textio_json.h"
#include "textio/textio_text.h"
#include "textio/textio_wkt.h"
#include "util/arrow.h"
#include "variant/variant.h"

enum kind {
    K_BOOL,
    K_I8,
    K_I16,
    K_I32,
    K_I64,
    K_U8,
    K_U16,
    K_U32,
    K_U64,
    K_F16,
    K_F32,
    K_F64,
    K_DECIMAL,
    K_DATE,
    K_TIME32,
    K_TIME64,
    K_TIMESTAMP,
    K_INTERVAL, /* Arrow month_day_nano (Parquet's INTERVAL) */
    K_STRING,
    K_BINARY,
    K_FIXED,
    K_UUID,
    K_WKB,     /* binary that the field's extension name says is a geometry */
    K_JSON,    /* utf8 marked "arrow.json": JSON text, carried as JSON */
    K_VARIANT, /* an "arrow.parquet.variant" storage struct: its value as JSON */
    K_NULL,
    K_STRUCT,
    K_LIST,
    K_MAP,
};

struct plan {
    enum kind kind;
    char *name;
    int scale;                    /* K_DECIMAL */
    enum rows_unit unit;          /* times and timestamps */
    bool utc;                     /* K_TIMESTAMP */
    int width;                    /* K_FIXED */
    bool string_keys;             /* K_MAP: rendered as an object */
    struct unshred_plan *variant; /* K_VARIANT: how its storage reads */
    struct plan *kids;            /* struct fields; list: [element]; map: [key, value] */
    size_t nkids;
};

struct textio_render {
    enum textio_format format;
    bool wkt; /* geometries as WKT (else their WKB in hex) */
    struct plan top;
    struct buf tmp;         /* scalar text (base64) */
    struct buf cell;        /* CSV: a nested value's JSON */
    struct buf meta, value; /* a variant's bytes, unshredded */
    struct error *err;
};

static void plan_free(struct plan *p)
{
    unshred_plan_free(p->variant);
    for (size_t i = 0; i < p->nkids; i++)
        plan_free(&p->kids[i]);
    free(p->kids);
    free(p->name);
}

static int plan_build(const struct ArrowSchema *s, struct plan *p, struct error *err);

static int plan_kids(const struct ArrowSchema *s, struct plan *p, struct error *err)
{
    p->nkids = (size_t)s->n_children;
    p->kids = calloc(p->nkids ? p->nkids : 1, sizeof *p->kids);
    if (!p->kids)
        return error_nomem(err);
    for (size_t i = 0; i < p->nkids; i++)
        if (plan_build(s->children[i], &p->kids[i], err) != 0)
            return -1;
    return 0;
}

/* A VARIANT's storage in any layout, shredded or not. */
static int plan_variant(const struct ArrowSchema *s, struct plan *p, struct error *err)
{
    p->kind = K_VARIANT;
    if (!(p->variant = unshred_plan_new(s, err)))
        return error_prefix(err, "column '%s'", p->name);
    return 0;
}

static int plan_build(const struct ArrowSchema *s, struct plan *p, struct error *err)
{
    const char *f = s->format;
    p->name = strdup(s->name ? s->name : "");
    if (!p->name)
        return error_nomem(err);
    static const struct {
        const char *format;
        enum kind kind;
    } simple[] = {
        {"b", K_BOOL}, {"c", K_I8},         {"s", K_I16},    {"i", K_I32},    {"l", K_I64},
        {"C", K_U8},   {"S", K_U16},        {"I", K_U32},    {"L", K_U64},    {"e", K_F16},
        {"f", K_F32},  {"g", K_F64},        {"u", K_STRING}, {"z", K_BINARY}, {"tdD", K_DATE},
        {"n", K_NULL}, {"tin", K_INTERVAL},
    };
    if (strcmp(f, "+s") == 0 && rows_schema_is_variant(s))
        return plan_variant(s, p, err);
    if (strcmp(f, "u") == 0 && rows_schema_is_json(s)) {
        p->kind = K_JSON;
        return 0;
    }
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
        if (strcmp(f, simple[i].format) == 0) {
            p->kind = simple[i].kind == K_BINARY && rows_schema_is_wkb(s) ? K_WKB : simple[i].kind;
            return 0;
        }
    }
    int precision, bits = 128;
    char tail;
    if (f[0] == 'd' && f[1] == ':') {
        int n = sscanf(f, "d:%d,%d,%d%c", &precision, &p->scale, &bits, &tail);
        if ((n == 2 || n == 3) && bits == 128) {
            p->kind = K_DECIMAL;
            return 0;
        }
    } else if (f[0] == 'w' && f[1] == ':') {
        p->width = atoi(f + 2);
        if (p->width > 0) {
            p->kind = p->width == 16 && rows_schema_is_uuid(s) ? K_UUID : K_FIXED;
            return 0;
        }
    } else if (f[0] == 't' && f[1] == 't' && rows_unit_of(f[2], &p->unit) && !f[3]) {
        p->kind = p->unit <= ROWS_MILLIS ? K_TIME32 : K_TIME64;
        return 0;
    } else if (f[0] == 't' && f[1] == 's' && rows_unit_of(f[2], &p->unit) && f[3] == ':') {
        p->kind = K_TIMESTAMP;
        p->utc = f[4] != '\0';
        return 0;
    } else if (strcmp(f, "+s") == 0 || strcmp(f, "+l") == 0) {
        p->kind = f[1] == 's' ? K_STRUCT : K_LIST;
        if (p->kind == K_LIST && s->n_children != 1)
            goto bad;
        return plan_kids(s, p, err);
    } else if (strcmp(f, "+m") == 0) {
        const struct ArrowSchema *e = s->n_children == 1 ? s->children[0] : NULL;
        if (!e || e->n_children != 2)
            goto bad;
        p->kind = K_MAP;
        if (plan_kids(e, p, err) != 0)
            return -1;
        p->string_keys = p->kids[0].kind == K_STRING;
        return 0;
    }
bad:
    return error_fail(err, ERR_UNSUPPORTED, "column '%s': Arrow format '%s' is not supported",
                      p->name, f);
}

int textio_render_new(const struct ArrowSchema *schema, enum textio_format format,
                      struct textio_render **out, struct error *err)
{
    *out = NULL;
    if (strcmp(schema->format, "+s") != 0)
        return error_fail(err, ERR_INVALID, "rows must be an Arrow struct");
    struct textio_render *r = calloc(1, sizeof *r);
    if (!r)
        return error_nomem(err);
    r->format = format;
    if (plan_build(schema, &r->top, err) != 0) {
        textio_render_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

void textio_render_geometry_as_wkt(struct textio_render *r, bool wkt)
{
    r->wkt = wkt;
}

void textio_render_free(struct textio_render *r)
{
    if (!r)
        return;
    plan_free(&r->top);
    buf_free(&r->tmp);
    buf_free(&r->cell);
    buf_free(&r->meta);
    buf_free(&r->value);
    free(r);
}

void textio_render_header(struct textio_render *r, struct buf *out)
{
    if (r->format != TEXTIO_CSV)
        return;
    for (size_t i = 0; i < r->top.nkids; i++)
        csv_write_field(out, i == 0, r->top.kids[i].name, strlen(r->top.kids[i].name));
    csv_end_record(out);
}

/* ---- values ---- */

static bool is_null(const struct plan *p, const struct ArrowArray *a, int64_t i)
{
    if (p->kind == K_NULL)
        return true;
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return v && a->null_count != 0 && !arrow_bit(v, a->offset + i);
}

static const uint8_t *value_at(const struct ArrowArray *a, int64_t i, int width)
{
    return (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * (size_t)width;
}

static int64_t signed_at(const struct ArrowArray *a, int64_t i, int width)
{
    return rows_load_signed(value_at(a, i, width), width);
}

static uint64_t unsigned_at(const struct ArrowArray *a, int64_t i, int width)
{
    return rows_load_unsigned(value_at(a, i, width), width);
}

static void bytes_at(const struct ArrowArray *a, int64_t i, const char **p, size_t *n)
{
    const int32_t *off = a->buffers[1];
    int64_t k = a->offset + i;
    *p = (const char *)a->buffers[2] + off[k];
    *n = (size_t)(off[k + 1] - off[k]);
}

static int fail(struct textio_render *r, const struct plan *p, enum error_code code,
                const char *what, long long v)
{
    return error_fail(r->err, code, "column '%s': %s (%lld)", p->name, what, v);
}

/* WKB as WKT, or as lower-case hex (the form geometry tools take). */
static int geometry_text(struct textio_render *r, const struct plan *p, const struct ArrowArray *a,
                         int64_t i, const char **s, size_t *n)
{
    const char *b;
    size_t len;
    bytes_at(a, i, &b, &len);
    buf_reset(&r->tmp);
    if (r->wkt) {
        if (textio_wkb_to_wkt((const uint8_t *)b, len, &r->tmp, r->err) != 0)
            return error_prefix(r->err, "column '%s': a geometry that is not WKB", p->name);
    } else if (rt_hex_encode(&r->tmp, b, len) != 0) {
        return fail(r, p, ERR_NOMEM, "out of memory", 0);
    }
    *s = r->tmp.data ? r->tmp.data : "";
    *n = r->tmp.len;
    return 0;
}

/* A scalar's text. *quote: JSON carries it as a string. The text lives in
 * buf (or in the array for strings). */
static int scalar_text(struct textio_render *r, const struct plan *p, const struct ArrowArray *a,
                       int64_t i, char *buf, const char **s, size_t *n, bool *quote)
{
    *s = buf;
    *quote = true;
    switch (p->kind) {
    case K_BOOL: {
        bool v = arrow_bit(a->buffers[1], a->offset + i);
        *s = v ? "true" : "false";
        *n = v ? 4 : 5;
        *quote = false;
        return 0;
    }
    case K_I8:
    case K_I16:
    case K_I32:
    case K_I64:
    case K_U8:
    case K_U16:
    case K_U32:
    case K_U64: {
        int k = p->kind - K_I8, width = 1 << (k % 4);
        *n = k < 4 ? rt_format_i64(signed_at(a, i, width), buf)
                   : rt_format_u64(unsigned_at(a, i, width), buf);
        *quote = false;
        return 0;
    }
    case K_F16:
    case K_F32: {
        float v;
        if (p->kind == K_F16)
            v = rows_half_to_float((uint16_t)unsigned_at(a, i, 2));
        else
            memcpy(&v, value_at(a, i, 4), 4);
        *n = rt_format_float(v, buf);
        *quote = rt_float_is_special(v);
        return 0;
    }
    case K_F64: {
        double v;
        memcpy(&v, value_at(a, i, 8), 8);
        *n = rt_format_double(v, buf);
        *quote = rt_float_is_special(v);
        return 0;
    }
    case K_DECIMAL: {
        rt_i128 v;
        memcpy(&v, value_at(a, i, 16), 16);
        *n = rt_format_decimal(v, p->scale, buf);
        return 0;
    }
    case K_DATE: *n = rt_format_date(signed_at(a, i, 4), buf); return 0;
    case K_TIME32:
    case K_TIME64: {
        int64_t v = signed_at(a, i, p->kind == K_TIME32 ? 4 : 8);
        *n = rt_format_time(v, p->unit, buf);
        return *n ? 0 : fail(r, p, ERR_INVALID, "a time of day outside a day", (long long)v);
    }
    case K_TIMESTAMP: *n = rt_format_timestamp(signed_at(a, i, 8), p->unit, p->utc, buf); return 0;
    case K_UUID: *n = rt_format_uuid(value_at(a, i, 16), buf); return 0;
    case K_INTERVAL: {
        const uint8_t *v = value_at(a, i, 16);
        int32_t months, days;
        int64_t nanos;
        memcpy(&months, v, 4);
        memcpy(&days, v + 4, 4);
        memcpy(&nanos, v + 8, 8);
        *n = rt_format_interval(months, days, nanos, buf);
        return 0;
    }
    case K_STRING:
    case K_JSON: bytes_at(a, i, s, n); return 0;
    case K_WKB: return geometry_text(r, p, a, i, s, n);
    case K_BINARY:
    case K_FIXED: {
        const char *b;
        size_t len = (size_t)p->width;
        if (p->kind == K_BINARY)
            bytes_at(a, i, &b, &len);
        else
            b = (const char *)value_at(a, i, p->width);
        buf_reset(&r->tmp);
        if (rt_base64_encode(&r->tmp, b, len) != 0)
            return fail(r, p, ERR_NOMEM, "out of memory", 0);
        *s = r->tmp.data;
        *n = r->tmp.len;
        return 0;
    }
    default: break;
    }
    return fail(r, p, ERR_INTERNAL, "not a scalar", 0);
}

/* A scalar as scalar_text renders it. */
struct scalar {
    char buf[RT_TEXT_MAX];
    const char *s;
    size_t n;
    bool quote;
};

static int scalar_of(struct textio_render *r, const struct plan *p, const struct ArrowArray *a,
                     int64_t i, struct scalar *v)
{
    return scalar_text(r, p, a, i, v->buf, &v->s, &v->n, &v->quote);
}

static int render_json(struct textio_render *r, struct jw *w, const struct plan *p,
                       const struct ArrowArray *a, int64_t i);

/* A variant's value as JSON text, into r->tmp. */
static int variant_text(struct textio_render *r, const struct plan *p, const struct ArrowArray *a,
                        int64_t i, const char **s, size_t *n)
{
    buf_reset(&r->meta);
    buf_reset(&r->value);
    buf_reset(&r->tmp);
    if (unshred_row(p->variant, a, i, &r->meta, &r->value, r->err) != 0 ||
        variant_to_json((const uint8_t *)r->meta.data, r->meta.len, (const uint8_t *)r->value.data,
                        r->value.len, &r->tmp, r->err) != 0)
        return error_prefix(r->err, "column '%s'", p->name);
    *s = r->tmp.data;
    *n = r->tmp.len;
    return 0;
}

static int render_map(struct textio_render *r, struct jw *w, const struct plan *p,
                      const struct ArrowArray *a, int64_t i)
{
    const int32_t *off = a->buffers[1];
    int64_t b = off[a->offset + i], e = off[a->offset + i + 1];
    const struct ArrowArray *entries = a->children[0];
    const struct ArrowArray *keys = entries->children[0], *values = entries->children[1];
    if (p->string_keys)
        jw_begin_object(w);
    else
        jw_begin_array(w);
    for (int64_t j = b; j < e; j++) {
        int64_t k = entries->offset + j;
        if (p->string_keys) {
            if (is_null(&p->kids[0], keys, k))
                return fail(r, p, ERR_INVALID, "a null map key", (long long)j);
            const char *s;
            size_t n;
            bytes_at(keys, k, &s, &n);
            jw_keyn(w, s, n);
        } else {
            jw_begin_object(w);
            jw_key(w, "key");
            if (render_json(r, w, &p->kids[0], keys, k) != 0)
                return -1;
            jw_key(w, "value");
        }
        if (render_json(r, w, &p->kids[1], values, k) != 0)
            return -1;
        if (!p->string_keys)
            jw_end_object(w);
    }
    if (p->string_keys)
        jw_end_object(w);
    else
        jw_end_array(w);
    return 0;
}

static int render_json(struct textio_render *r, struct jw *w, const struct plan *p,
                       const struct ArrowArray *a, int64_t i)
{
    if (is_null(p, a, i)) {
        jw_null(w);
        return 0;
    }
    switch (p->kind) {
    case K_STRUCT:
        jw_begin_object(w);
        for (size_t k = 0; k < p->nkids; k++) {
            jw_key(w, p->kids[k].name);
            if (render_json(r, w, &p->kids[k], a->children[k], a->offset + i) != 0)
                return -1;
        }
        jw_end_object(w);
        return 0;
    case K_LIST: {
        const int32_t *off = a->buffers[1];
        jw_begin_array(w);
        for (int64_t j = off[a->offset + i]; j < off[a->offset + i + 1]; j++)
            if (render_json(r, w, &p->kids[0], a->children[0], j) != 0)
                return -1;
        jw_end_array(w);
        return 0;
    }
    case K_MAP: return render_map(r, w, p, a, i);
    case K_JSON: {
        const char *t;
        size_t n;
        bytes_at(a, i, &t, &n);
        jw_raw(w, t, n);
        return 0;
    }
    case K_VARIANT: {
        const char *t;
        size_t n;
        if (variant_text(r, p, a, i, &t, &n) != 0)
            return -1;
        jw_raw(w, t, n);
        return 0;
    }
    default: {
        struct scalar v;
        if (scalar_of(r, p, a, i, &v) != 0)
            return -1;
        if (v.quote)
            jw_string(w, v.s, v.n);
        else
            jw_raw(w, v.s, v.n);
        return 0;
    }
    }
}

static int render_cell(struct textio_render *r, const struct plan *p, const struct ArrowArray *a,
                       int64_t i, bool first, struct buf *out)
{
    if (is_null(p, a, i)) {
        csv_write_null(out, first);
        return 0;
    }
    if (p->kind == K_VARIANT) {
        const char *t;
        size_t n;
        if (variant_text(r, p, a, i, &t, &n) != 0)
            return -1;
        csv_write_field(out, first, t, n);
        return 0;
    }
    if (p->kind == K_STRUCT || p->kind == K_LIST || p->kind == K_MAP) {
        struct jw w;
        buf_reset(&r->cell);
        jw_init(&w, &r->cell, false);
        if (render_json(r, &w, p, a, i) != 0)
            return -1;
        csv_write_field(out, first, r->cell.data, r->cell.len);
        return 0;
    }
    struct scalar v;
    if (scalar_of(r, p, a, i, &v) != 0)
        return -1;
    csv_write_field(out, first, v.s, v.n);
    return 0;
}

int textio_render_row(struct textio_render *r, const struct ArrowArray *batch, int64_t row,
                      struct buf *out, struct error *err)
{
    r->err = err;
    int64_t i = batch->offset + row;
    if (r->format == TEXTIO_CSV) {
        for (size_t k = 0; k < r->top.nkids; k++)
            if (render_cell(r, &r->top.kids[k], batch->children[k], i, k == 0, out) != 0)
                return -1;
        csv_end_record(out);
        return 0;
    }
    struct jw w;
    jw_init(&w, out, false);
    jw_begin_object(&w);
    for (size_t k = 0; k < r->top.nkids; k++) {
        jw_key(&w, r->top.kids[k].name);
        if (render_json(r, &w, &r->top.kids[k], batch->children[k], i) != 0)
            return -1;
    }
    jw_end_object(&w);
    buf_putc(out, '\n');
    return 0;
}
