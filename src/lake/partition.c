#include "lake/partition.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/bounds.h"
#include "lake/bucket.h"
#include "lake/ident.h"
#include "util/arrow.h"
#include "util/base64.h"
#include "util/numfmt.h"
#include "util/strutil.h"
#include "util/timefmt.h"

#define MICROS_PER_DAY INT64_C(86400000000)
#define MICROS_PER_HOUR INT64_C(3600000000)

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

enum lake_type lake_partition_result_type(enum lake_transform t, enum lake_type source)
{
    return t == LTR_IDENTITY || t == LTR_TRUNCATE ? source : LT_INT;
}

int lake_partition_parse_transform(const char *name, enum lake_transform *out, struct error *err)
{
    if (name && lake_transform_parse(name, out))
        return 0;
    char shown[80];
    lake_ident_shown(name ? name : "", shown, sizeof shown);
    str_utf8_sanitize(shown); /* the cut may split a character */
    return error_fail(err, ERR_INVALID,
                      "unknown partition transform '%s' (one of identity, bucket, truncate, "
                      "year, month, day, hour; bucket and truncate take transform_param)",
                      shown);
}

int lake_partition_check(enum lake_transform t, bool has_param, int64_t param,
                         enum lake_type source, struct error *err)
{
    if ((unsigned)t >= LTR__COUNT)
        return error_fail(err, ERR_INVALID, "unknown partition transform #%d", (int)t);
    const char *name = lake_transform_name(t);
    if (lake_transform_takes_param(t)) {
        if (!has_param)
            return error_fail(err, ERR_INVALID, "%s transform requires transform_param", name);
        if (param <= 0)
            return error_fail(err, ERR_INVALID, "%s transform requires a %s, got %lld", name,
                              t == LTR_BUCKET ? "positive bucket count" : "positive width",
                              (long long)param);
        if (param > INT32_MAX)
            return error_fail(err, ERR_INVALID, "%s transform_param %lld is above 2147483647", name,
                              (long long)param);
    }
    if (!lake_transform_accepts(t, source)) {
        if (t == LTR_BUCKET || t == LTR_TRUNCATE)
            return error_fail(err, ERR_INVALID,
                              "%s cannot be applied to type '%s'; %s types are [%s]", name,
                              lake_type_name(source), t == LTR_BUCKET ? "bucketable" : "accepted",
                              lake_transform_accepted_types(t));
        return error_fail(err, ERR_INVALID,
                          "%s transform cannot be applied to type '%s'; accepted types are [%s]",
                          name, lake_type_name(source), lake_transform_accepted_types(t));
    }
    if (!lake_transform_takes_param(t) && has_param)
        return error_fail(err, ERR_INVALID, "transform '%s' does not take transform_param", name);
    return 0;
}

/* A timestamp's ticks as microseconds: seconds and milliseconds scale up
 * with an overflow check, nanoseconds floor. */
static int timestamp_micros(enum lake_type t, int64_t v, int64_t *out, struct error *err)
{
    int64_t scale = 1;
    switch (t) {
    case LT_TIMESTAMP_S: scale = 1000000; break;
    case LT_TIMESTAMP_MS: scale = 1000; break;
    case LT_TIMESTAMP_NS: *out = floor_div(v, 1000); return 0;
    default: break;
    }
    if (__builtin_mul_overflow(v, scale, out))
        return error_fail(
            err, ERR_INVALID,
            "%s value %lld overflows int64 microseconds (a timestamp must stay within "
            "about 292,000 years of 1970)",
            lake_type_name(t), (long long)v);
    return 0;
}

static int apply_temporal(enum lake_transform t, enum lake_type source, int64_t v, int64_t *out,
                          struct error *err)
{
    int64_t days = v;
    if (source != LT_DATE) {
        int64_t micros;
        if (timestamp_micros(source, v, &micros, err) != 0)
            return -1;
        if (t == LTR_HOUR) {
            *out = floor_div(micros, MICROS_PER_HOUR);
            return 0;
        }
        days = floor_div(micros, MICROS_PER_DAY);
    }
    if (t == LTR_DAY) {
        *out = days;
        return 0;
    }
    int64_t y;
    unsigned m, d;
    time_civil_from_days(days, &y, &m, &d);
    *out = t == LTR_YEAR ? y - 1970 : (y - 1970) * 12 + (int64_t)m - 1;
    return 0;
}

static int32_t bucket_hash(enum lake_type source, const struct lake_value *in)
{
    uint8_t b[16];
    switch (source) {
    case LT_DECIMAL: {
        size_t n = bound_decimal_minimal(in->dec, b);
        return lake_murmur3_32(b, n);
    }
    case LT_STRING:
    case LT_UUID:
    case LT_BINARY: return lake_murmur3_32(in->bytes.data, in->bytes.len);
    default: lake_bucket_input_long(in->i, b); return lake_murmur3_32(b, 8);
    }
}

/* The first w code points of a UTF-8 string: a code point starts at every
 * byte that is not a continuation byte. */
static size_t utf8_prefix(const uint8_t *s, size_t n, int32_t w)
{
    size_t i = 0;
    for (int32_t k = 0; k < w && i < n; k++) {
        i++;
        while (i < n && (s[i] & 0xc0) == 0x80)
            i++;
    }
    return i;
}

static int apply_truncate(int32_t w, enum lake_type source, const struct lake_value *in,
                          struct lake_value *out, struct error *err)
{
    switch (source) {
    case LT_UINT64: out->u = in->u - in->u % (uint32_t)w; return 0;
    case LT_DECIMAL: {
        __extension__ __int128 m = in->dec % w;
        if (m < 0)
            m += w;
        if (__builtin_sub_overflow(in->dec, m, &out->dec))
            return error_fail(err, ERR_INVALID, "truncate[%d] of a decimal overflows", (int)w);
        return 0;
    }
    case LT_STRING:
        out->bytes.data = in->bytes.data;
        out->bytes.len = utf8_prefix(in->bytes.data, in->bytes.len, w);
        return 0;
    case LT_BINARY:
        out->bytes.data = in->bytes.data;
        out->bytes.len = in->bytes.len < (size_t)w ? in->bytes.len : (size_t)w;
        return 0;
    default: {
        int64_t m = in->i % w;
        if (m < 0)
            m += w;
        if (__builtin_sub_overflow(in->i, m, &out->i))
            return error_fail(err, ERR_INVALID, "truncate[%d] of %lld overflows int64", (int)w,
                              (long long)in->i);
        return 0;
    }
    }
}

/* lake_partition_apply once the transform is known to fit the source. */
static int transform_value(enum lake_transform t, int32_t param, enum lake_type source,
                           const struct lake_value *in, struct lake_value *out, struct error *err)
{
    if (in->null) {
        *out = (struct lake_value){.null = true};
        return 0;
    }
    *out = (struct lake_value){.null = false};
    switch (t) {
    case LTR_IDENTITY: *out = *in; return 0;
    case LTR_BUCKET: out->i = lake_bucket_of(bucket_hash(source, in), param); return 0;
    case LTR_TRUNCATE: return apply_truncate(param, source, in, out, err);
    case LTR_YEAR:
    case LTR_MONTH:
    case LTR_DAY:
    case LTR_HOUR: return apply_temporal(t, source, in->i, &out->i, err);
    case LTR__COUNT: break;
    }
    return error_fail(err, ERR_INVALID, "unknown partition transform");
}

int lake_partition_apply(enum lake_transform t, int32_t param, enum lake_type source,
                         const struct lake_value *in, struct lake_value *out, struct error *err)
{
    if (lake_partition_check(t, lake_transform_takes_param(t), param, source, err) != 0)
        return -1;
    return transform_value(t, param, source, in, out, err);
}

/* ---- wire strings ---- */

static int nomem(struct error *err)
{
    return error_fail(err, ERR_NOMEM, "out of memory");
}

static int put(struct buf *out, const char *s, size_t n, struct error *err)
{
    return buf_append(out, s, n) == 0 ? 0 : nomem(err);
}

/* Python's str(Decimal) of unscaled * 10^-scale: plain while the adjusted
 * exponent is at least -6, else one digit, the rest after a point, and
 * "E-n" ("0E-8", "1.5E-7"). */
__extension__ static int render_decimal(__int128 v, int scale, struct buf *out, struct error *err)
{
    __extension__ unsigned __int128 mag = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    char digits[48];
    int nd = 0;
    char rev[48];
    do {
        rev[nd++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag);
    for (int k = 0; k < nd; k++)
        digits[k] = rev[nd - 1 - k];
    int leftdigits = nd - scale;
    int dotplace = leftdigits > -6 ? leftdigits : 1;
    char text[128];
    size_t n = 0;
    if (v < 0)
        text[n++] = '-';
    if (dotplace <= 0) {
        /* At most five zeros: dotplace > -6 here. */
        text[n++] = '0';
        text[n++] = '.';
        for (int k = dotplace; k < 0 && n < 8; k++)
            text[n++] = '0';
        memcpy(text + n, digits, (size_t)nd);
        n += (size_t)nd;
    } else if (dotplace >= nd) {
        /* A scale >= 0 never puts the point past the digits. */
        memcpy(text + n, digits, (size_t)nd);
        n += (size_t)nd;
    } else {
        memcpy(text + n, digits, (size_t)dotplace);
        n += (size_t)dotplace;
        text[n++] = '.';
        memcpy(text + n, digits + dotplace, (size_t)(nd - dotplace));
        n += (size_t)(nd - dotplace);
    }
    if (leftdigits != dotplace)
        n += (size_t)snprintf(text + n, sizeof text - n, "E%+d", leftdigits - dotplace);
    return put(out, text, n, err);
}

static int render_double(double d, struct buf *out, struct error *err)
{
    char text[NUMFMT_TEXT_MAX];
    size_t n;
    if (isnan(d))
        n = (size_t)snprintf(text, sizeof text, "nan");
    else if (isinf(d))
        n = (size_t)snprintf(text, sizeof text, "%s", d < 0 ? "-inf" : "inf");
    else
        n = numfmt_shortest(d, false, text);
    return put(out, text, n, err);
}

/* "HH:MM:SS", then ".ffffff" when the microseconds are not zero. */
static size_t clock_text(int64_t micros_of_day, char *text, size_t size)
{
    int64_t secs = micros_of_day / 1000000, us = micros_of_day % 1000000;
    int n = snprintf(text, size, "%02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60),
                     (int)(secs % 60));
    if (us != 0)
        n += snprintf(text + n, size - (size_t)n, ".%06d", (int)us);
    return (size_t)n;
}

/* Python's date.isoformat(); its date type holds years 1 to 9999 only. */
static int date_text(int64_t days, char *text, size_t size, size_t *n, struct error *err)
{
    int64_t y;
    unsigned m, d;
    time_civil_from_days(days, &y, &m, &d);
    if (y < 1 || y > 9999)
        return error_fail(err, ERR_INVALID,
                          "day %lld is outside years 1..9999 and has no partition value text",
                          (long long)days);
    *n = (size_t)snprintf(text, size, "%04d-%02u-%02u", (int)y, m, d);
    return 0;
}

static int render_temporal(enum lake_type type, int64_t v, struct buf *out, struct error *err)
{
    char text[64];
    size_t n = 0;
    if (type == LT_DATE) {
        if (date_text(v, text, sizeof text, &n, err) != 0)
            return -1;
        return put(out, text, n, err);
    }
    if (type == LT_TIME) {
        if (v < 0 || v >= MICROS_PER_DAY)
            return error_fail(err, ERR_INVALID, "time %lld µs is outside one day", (long long)v);
        n = clock_text(v, text, sizeof text);
        return put(out, text, n, err);
    }
    int64_t micros;
    if (timestamp_micros(type, v, &micros, err) != 0)
        return -1;
    int64_t days = floor_div(micros, MICROS_PER_DAY);
    if (date_text(days, text, sizeof text, &n, err) != 0)
        return -1;
    text[n++] = 'T';
    n += clock_text(micros - days * MICROS_PER_DAY, text + n, sizeof text - n);
    if (type == LT_TIMESTAMPTZ)
        n += (size_t)snprintf(text + n, sizeof text - n, "+00:00");
    return put(out, text, n, err);
}

static int render_uuid(const uint8_t *b, size_t len, struct buf *out, struct error *err)
{
    if (len != 16)
        return error_fail(err, ERR_INVALID, "a uuid has 16 bytes, not %zu", len);
    char text[37];
    return put(out, text, str_format_uuid(b, text), err);
}

int lake_partition_render(enum lake_type type, int scale, const struct lake_value *v,
                          struct buf *out, struct error *err)
{
    if (v->null)
        return error_fail(err, ERR_INVALID, "a null partition value has no text");
    char text[64];
    switch (type) {
    case LT_BOOLEAN: return buf_puts(out, v->b ? "true" : "false") == 0 ? 0 : nomem(err);
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_LONG:
    case LT_UINT8:
    case LT_UINT16:
    case LT_UINT32:
    case LT_TIMESTAMP_NS:
        return put(out, text, (size_t)snprintf(text, sizeof text, "%lld", (long long)v->i), err);
    case LT_UINT64:
        return put(out, text, (size_t)snprintf(text, sizeof text, "%llu", (unsigned long long)v->u),
                   err);
    case LT_FLOAT:
    case LT_DOUBLE: return render_double(v->d, out, err);
    case LT_DECIMAL:
        if (scale < 0 || scale > LAKE_DECIMAL_MAX_PRECISION)
            return error_fail(err, ERR_INVALID, "decimal scale %d is outside 0..38", scale);
        return render_decimal(v->dec, scale, out, err);
    case LT_DATE:
    case LT_TIME:
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP:
    case LT_TIMESTAMPTZ: return render_temporal(type, v->i, out, err);
    case LT_STRING:
    case LT_JSON: {
        const char *s = (const char *)v->bytes.data;
        size_t n = v->bytes.len;
        if (n && (!str_utf8_valid(s, n, NULL) || memchr(s, '\0', n)))
            return error_fail(err, ERR_INVALID,
                              "a %s partition value must be UTF-8 without NUL bytes",
                              lake_type_name(type));
        return put(out, n ? s : "", n, err);
    }
    case LT_UUID: return render_uuid(v->bytes.data, v->bytes.len, out, err);
    case LT_BINARY:
        return base64_encode(out, v->bytes.len ? v->bytes.data : (const uint8_t *)"",
                             v->bytes.len) == 0
                   ? 0
                   : nomem(err);
    default: break;
    }
    return error_fail(err, ERR_INVALID, "a '%s' value has no partition value text",
                      lake_type_name(type));
}

/* ---- the batch driver ---- */

/* How a source column's values sit in their Arrow array. */
enum src_kind {
    SK_BOOL,
    SK_I8,
    SK_I16,
    SK_I32,
    SK_I64,
    SK_U8,
    SK_U16,
    SK_U32,
    SK_U64,
    SK_F32,
    SK_F64,
    SK_DEC128,
    SK_BYTES32, /* int32 offsets: "u", "z" */
    SK_BYTES64, /* int64 offsets: "U", "Z" */
    SK_FIXED16  /* "w:16" */
};

/* The Arrow formats the Parquet writer takes for each column type (its
 * pq_arrow_format_for and format check): the same names, large string and
 * binary variants, any time zone on timestamptz, and a decimal128 of the
 * column's scale and at most its precision. */
static bool source_kind(const struct lake_column *c, const char *f, enum src_kind *k)
{
    switch (c->type) {
    case LT_BOOLEAN: *k = SK_BOOL; return strcmp(f, "b") == 0;
    case LT_INT8: *k = SK_I8; return strcmp(f, "c") == 0;
    case LT_INT16: *k = SK_I16; return strcmp(f, "s") == 0;
    case LT_INT: *k = SK_I32; return strcmp(f, "i") == 0;
    case LT_LONG: *k = SK_I64; return strcmp(f, "l") == 0;
    case LT_UINT8: *k = SK_U8; return strcmp(f, "C") == 0;
    case LT_UINT16: *k = SK_U16; return strcmp(f, "S") == 0;
    case LT_UINT32: *k = SK_U32; return strcmp(f, "I") == 0;
    case LT_UINT64: *k = SK_U64; return strcmp(f, "L") == 0;
    case LT_FLOAT: *k = SK_F32; return strcmp(f, "f") == 0;
    case LT_DOUBLE: *k = SK_F64; return strcmp(f, "g") == 0;
    case LT_DATE: *k = SK_I32; return strcmp(f, "tdD") == 0;
    case LT_TIME: *k = SK_I64; return strcmp(f, "ttu") == 0;
    case LT_TIMESTAMP_S: *k = SK_I64; return strcmp(f, "tss:") == 0;
    case LT_TIMESTAMP_MS: *k = SK_I64; return strcmp(f, "tsm:") == 0;
    case LT_TIMESTAMP: *k = SK_I64; return strcmp(f, "tsu:") == 0;
    case LT_TIMESTAMP_NS: *k = SK_I64; return strcmp(f, "tsn:") == 0;
    case LT_TIMESTAMPTZ: *k = SK_I64; return strncmp(f, "tsu:", 4) == 0 && f[4] != '\0';
    case LT_STRING:
    case LT_JSON:
        *k = f[0] == 'U' ? SK_BYTES64 : SK_BYTES32;
        return strcmp(f, "u") == 0 || strcmp(f, "U") == 0;
    case LT_BINARY:
        *k = f[0] == 'Z' ? SK_BYTES64 : SK_BYTES32;
        return strcmp(f, "z") == 0 || strcmp(f, "Z") == 0;
    case LT_UUID: *k = SK_FIXED16; return strcmp(f, "w:16") == 0;
    case LT_DECIMAL: {
        int p, s, bits = 128;
        char tail;
        int n = sscanf(f, "d:%d,%d,%d%c", &p, &s, &bits, &tail);
        *k = SK_DEC128;
        return (n == 2 || n == 3) && bits == 128 && s == c->scale && p <= c->precision && p > 0;
    }
    default: return false;
    }
}

/* One spec field's source in the batch: the arrays from the top-level
 * column down to the leaf, and where batch row 0 sits in each. */
struct source {
    const struct lake_column *col;
    enum lake_transform transform;
    int32_t param;
    enum lake_type result; /* the result's type, for keys and text */
    enum src_kind kind;
    int nlevels;
    const struct ArrowArray *level[LAKE_MAX_DEPTH + 1];
    int64_t base[LAKE_MAX_DEPTH + 1];
};

static bool level_has_nulls(const struct ArrowArray *a)
{
    return a->null_count != 0 && a->buffers[0] != NULL;
}

/* Checks one array on a source's path: its shape and that rows
 * [base, base + nrows) exist. */
static int check_level(const struct ArrowArray *a, const struct ArrowSchema *s, int64_t buffers,
                       int64_t base, int64_t nrows, const char *path, struct error *err)
{
    if (!a || !s || !s->format)
        return error_fail(err, ERR_INVALID, "column '%s': missing schema or array", path);
    if (a->length < 0 || a->offset < 0 || a->n_buffers != buffers || !a->buffers ||
        base + nrows > a->offset + a->length)
        return error_fail(
            err, ERR_INVALID,
            "column '%s': malformed Arrow array (length %lld, offset %lld, buffers %lld)", path,
            (long long)a->length, (long long)a->offset, (long long)a->n_buffers);
    for (int64_t b = 1; b < buffers; b++)
        if (nrows > 0 && !a->buffers[b])
            return error_fail(err, ERR_INVALID, "column '%s': buffer %lld is missing", path,
                              (long long)b);
    return 0;
}

static int resolve_source(const struct lake_table *t, const struct lake_partition_field *pf,
                          const struct ArrowSchema *schema, const struct ArrowArray *batch,
                          struct source *src, struct error *err)
{
    const struct lake_column *c = lake_table_find_field(t, pf->source_field_id);
    if (!c)
        return error_fail(err, ERR_INVALID, "partition source field_id %lld is not a live column",
                          (long long)pf->source_field_id);
    char path[1200];
    lake_column_path(c, path, sizeof path);
    const struct lake_column *chain[LAKE_MAX_DEPTH + 1];
    int n = 0;
    for (const struct lake_column *a = c; a; a = a->parent) {
        if (n == LAKE_MAX_DEPTH + 1)
            return error_fail(err, ERR_INVALID, "partition source '%s' is nested too deeply", path);
        if (a != c && a->type != LT_STRUCT)
            return error_fail(
                err, ERR_INVALID,
                "partition source '%s' sits under '%s', a '%s': only struct leaves can "
                "be partition sources",
                path, a->name, lake_type_name(a->type));
        chain[n++] = a;
    }
    if (lake_partition_check(pf->transform, lake_transform_takes_param(pf->transform), pf->param,
                             c->type, err) != 0) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return error_fail(err, ERR_INVALID, "partition field on '%s': %s", path, why);
    }
    *src = (struct source){.col = c, .transform = pf->transform, .param = pf->param};
    src->result = lake_partition_result_type(pf->transform, c->type);
    const struct lake_column *parent = &t->root;
    const struct ArrowSchema *s = schema;
    const struct ArrowArray *a = batch;
    int64_t base = batch->offset;
    for (int k = n - 1; k >= 0; k--) {
        size_t idx = 0;
        while (idx < parent->nchildren && parent->children[idx] != chain[k])
            idx++;
        if (idx == parent->nchildren || (int64_t)idx >= s->n_children ||
            (int64_t)idx >= a->n_children || !s->children || !a->children)
            return error_fail(err, ERR_INVALID, "column '%s' is missing from the batch", path);
        s = s->children[idx];
        a = a->children[idx];
        if (!s || !s->name || strcmp(s->name, chain[k]->name) != 0)
            return error_fail(err, ERR_INVALID, "batch field for '%s' is named '%s'", path,
                              s && s->name ? s->name : "");
        bool leaf = k == 0;
        if (!leaf && (!s->format || strcmp(s->format, "+s") != 0))
            return error_fail(err, ERR_INVALID, "'%s' above column '%s' is not an Arrow struct",
                              chain[k]->name, path);
        if (leaf && (!s->format || !source_kind(c, s->format, &src->kind)))
            return error_fail(err, ERR_INVALID, "column '%s' is '%s' and cannot be Arrow '%s'",
                              path, lake_type_name(c->type), s->format ? s->format : "");
        int64_t buffers = !leaf ? 1 : src->kind >= SK_BYTES32 && src->kind <= SK_BYTES64 ? 3 : 2;
        if (a)
            base += a->offset;
        if (check_level(a, s, buffers, base, batch->length, path, err) != 0)
            return -1;
        src->level[src->nlevels] = a;
        src->base[src->nlevels++] = base;
        parent = chain[k];
    }
    return 0;
}

static bool row_is_null(const struct source *src, int64_t r)
{
    for (int k = 0; k < src->nlevels; k++) {
        const struct ArrowArray *a = src->level[k];
        if (level_has_nulls(a) && !arrow_bit(a->buffers[0], src->base[k] + r))
            return true;
    }
    return false;
}

/* Reads row r's value (not null) of the source's leaf. */
static int read_value(const struct source *src, int64_t r, struct lake_value *v, struct error *err)
{
    const struct ArrowArray *a = src->level[src->nlevels - 1];
    int64_t p = src->base[src->nlevels - 1] + r;
    const void *data = a->buffers[1];
    v->null = false;
    switch (src->kind) {
    case SK_BOOL: v->b = arrow_bit(data, p); return 0;
    case SK_I8: v->i = ((const int8_t *)data)[p]; return 0;
    case SK_I16: v->i = ((const int16_t *)data)[p]; return 0;
    case SK_I32: v->i = ((const int32_t *)data)[p]; return 0;
    case SK_I64: v->i = ((const int64_t *)data)[p]; return 0;
    case SK_U8: v->i = ((const uint8_t *)data)[p]; return 0;
    case SK_U16: v->i = ((const uint16_t *)data)[p]; return 0;
    case SK_U32: v->i = ((const uint32_t *)data)[p]; return 0;
    case SK_U64: v->u = ((const uint64_t *)data)[p]; return 0;
    case SK_F32: v->d = ((const float *)data)[p]; return 0;
    case SK_F64: v->d = ((const double *)data)[p]; return 0;
    case SK_DEC128: memcpy(&v->dec, (const uint8_t *)data + 16 * p, 16); return 0;
    case SK_FIXED16:
        v->bytes.data = (const uint8_t *)data + 16 * p;
        v->bytes.len = 16;
        return 0;
    case SK_BYTES32:
    case SK_BYTES64: {
        int64_t lo, hi;
        if (src->kind == SK_BYTES32) {
            lo = ((const int32_t *)data)[p];
            hi = ((const int32_t *)data)[p + 1];
        } else {
            lo = ((const int64_t *)data)[p];
            hi = ((const int64_t *)data)[p + 1];
        }
        if (lo < 0 || hi < lo)
            return error_fail(err, ERR_INVALID, "column '%s': offsets are not increasing",
                              src->col->name);
        if (hi > lo && !a->buffers[2])
            return error_fail(err, ERR_INVALID, "column '%s': the data buffer is missing",
                              src->col->name);
        v->bytes.data = hi > lo ? (const uint8_t *)a->buffers[2] + lo : NULL;
        v->bytes.len = (size_t)(hi - lo);
        return 0;
    }
    }
    return error_fail(err, ERR_INVALID, "column '%s': unreadable Arrow format", src->col->name);
}

/* How a result is keyed for grouping: integers and floats by their 64
 * bits (exact), decimals and byte strings by a hash checked against the
 * distinct values kept. */
enum key_kind { KEY_BITS, KEY_DEC, KEY_BYTES };

static enum key_kind key_kind_of(enum lake_type result)
{
    switch (result) {
    case LT_DECIMAL: return KEY_DEC;
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY:
    case LT_UUID: return KEY_BYTES;
    default: return KEY_BITS;
    }
}

static uint64_t mix64(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    k *= UINT64_C(0xc4ceb9fe1a85ec53);
    k ^= k >> 33;
    return k;
}

/* The 64-bit key of a non-null result. Every NaN is one key: they all
 * print as "nan", and rows group by their text. */
static uint64_t result_key(enum lake_type result, const struct lake_value *v)
{
    switch (result) {
    case LT_BOOLEAN: return v->b;
    case LT_UINT64: return v->u;
    case LT_FLOAT:
    case LT_DOUBLE: {
        double d = isnan(v->d) ? NAN : v->d;
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        return bits;
    }
    case LT_DECIMAL: {
        uint64_t h[2];
        memcpy(h, &v->dec, sizeof h);
        return mix64(h[0] ^ mix64(h[1]));
    }
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY:
    case LT_UUID: return (uint64_t)(uint32_t)lake_murmur3_32(v->bytes.data, v->bytes.len);
    default: return (uint64_t)v->i;
    }
}

/* Open addressing from a 64-bit key to a first-occurrence number. With
 * KEY_BITS the key is the value; otherwise it is a hash and `values` says
 * whether two entries are the same value. */
struct slot {
    uint64_t key;
    uint32_t id; /* id + 1; 0 = empty */
};

struct key_table {
    struct slot *slots;
    size_t mask;
    size_t count;
};

static void table_free(struct key_table *kt)
{
    free(kt->slots);
    *kt = (struct key_table){0};
}

static int table_grow(struct key_table *kt)
{
    size_t cap = kt->slots ? 2 * (kt->mask + 1) : 64;
    struct slot *s = calloc(cap, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; kt->slots && i <= kt->mask; i++) {
        if (!kt->slots[i].id)
            continue;
        size_t h = (size_t)mix64(kt->slots[i].key) & (cap - 1);
        while (s[h].id)
            h = (h + 1) & (cap - 1);
        s[h] = kt->slots[i];
    }
    free(kt->slots);
    kt->slots = s;
    kt->mask = cap - 1;
    return 0;
}

static bool same_value(enum key_kind kk, const struct lake_value *a, const struct lake_value *b)
{
    if (kk == KEY_DEC)
        return a->dec == b->dec;
    return a->bytes.len == b->bytes.len &&
           (a->bytes.len == 0 || memcmp(a->bytes.data, b->bytes.data, a->bytes.len) == 0);
}

/* The number of key (and of value v, for hashed kinds: values[] holds the
 * numbered values), or new_id when new (*added set). -1 on no memory. */
static int64_t table_intern(struct key_table *kt, enum key_kind kk, uint64_t key,
                            const struct lake_value *v, const struct lake_value *values,
                            uint32_t new_id, bool *added)
{
    if (kt->count * 2 >= (kt->slots ? kt->mask + 1 : 0) && table_grow(kt) != 0)
        return -1;
    size_t h = (size_t)mix64(key) & kt->mask;
    for (;; h = (h + 1) & kt->mask) {
        struct slot *s = &kt->slots[h];
        if (!s->id)
            break;
        if (s->key == key && (kk == KEY_BITS || same_value(kk, v, &values[s->id - 1]))) {
            *added = false;
            return s->id - 1;
        }
    }
    kt->slots[h] = (struct slot){key, new_id + 1};
    kt->count++;
    *added = true;
    return new_id;
}

/* One field's distinct results, numbered by first occurrence. */
struct field_values {
    struct lake_value *values;
    uint32_t count, cap;
};

static int add_distinct(struct field_values *fv, const struct lake_value *v)
{
    if (fv->count == fv->cap) {
        uint32_t cap = fv->cap ? 2 * fv->cap : 16;
        struct lake_value *grown = realloc(fv->values, cap * sizeof *grown);
        if (!grown)
            return -1;
        fv->values = grown;
        fv->cap = cap;
    }
    fv->values[fv->count++] = *v;
    return 0;
}

/* Numbers every row's result for one field (ids[row]); fv receives the
 * distinct results (a null among them, if any). */
static int field_ids(const struct source *src, int64_t nrows, uint32_t *ids,
                     struct field_values *fv, struct error *err)
{
    enum key_kind kk = key_kind_of(src->result);
    struct key_table kt = {0};
    uint32_t null_id = UINT32_MAX, last_id = UINT32_MAX;
    uint64_t last_key = 0;
    int rc = 0;
    for (int64_t r = 0; r < nrows && rc == 0; r++) {
        struct lake_value in, out;
        if (row_is_null(src, r)) {
            if (null_id == UINT32_MAX) {
                null_id = fv->count;
                if (add_distinct(fv, &(struct lake_value){.null = true}) != 0)
                    rc = error_fail(err, ERR_NOMEM, "out of memory");
            }
            ids[r] = null_id;
            continue;
        }
        if (read_value(src, r, &in, err) != 0 ||
            transform_value(src->transform, src->param, src->col->type, &in, &out, err) != 0) {
            rc = -1;
            break;
        }
        uint64_t key = result_key(src->result, &out);
        /* Runs of one value (sorted or clustered data) skip the table. */
        if (kk == KEY_BITS && last_id != UINT32_MAX && key == last_key) {
            ids[r] = last_id;
            continue;
        }
        bool added;
        int64_t id = table_intern(&kt, kk, key, &out, fv->values, fv->count, &added);
        if (id < 0 || (added && add_distinct(fv, &out) != 0)) {
            rc = error_fail(err, ERR_NOMEM, "out of memory");
            break;
        }
        ids[r] = (uint32_t)id;
        last_key = key;
        last_id = (uint32_t)id;
    }
    table_free(&kt);
    return rc;
}

/* Numbers the pairs (acc[r], ids[r]) by first occurrence into acc. */
static int combine(uint32_t *acc, const uint32_t *ids, int64_t nrows, uint32_t *ngroups)
{
    struct key_table kt = {0};
    uint32_t n = 0;
    for (int64_t r = 0; r < nrows; r++) {
        bool added;
        int64_t g =
            table_intern(&kt, KEY_BITS, (uint64_t)acc[r] << 32 | ids[r], NULL, NULL, n, &added);
        if (g < 0) {
            table_free(&kt);
            return -1;
        }
        n += added;
        acc[r] = (uint32_t)g;
    }
    table_free(&kt);
    *ngroups = n;
    return 0;
}

/* Renders every distinct value of every field into text (each followed by
 * a NUL); offs[f][d] is where value d of field f starts, SIZE_MAX for a
 * null. */
static int render_fields(const struct source *srcs, const struct field_values *fvs, size_t nf,
                         size_t **offs, struct buf *text, struct error *err)
{
    for (size_t f = 0; f < nf; f++) {
        if (!(offs[f] = malloc((fvs[f].count ? fvs[f].count : 1) * sizeof *offs[f])))
            return error_fail(err, ERR_NOMEM, "out of memory");
        for (uint32_t d = 0; d < fvs[f].count; d++) {
            const struct lake_value *v = &fvs[f].values[d];
            if (v->null) {
                offs[f][d] = SIZE_MAX;
                continue;
            }
            offs[f][d] = text->len;
            if (lake_partition_render(srcs[f].result, srcs[f].col->scale, v, text, err) != 0)
                return -1;
            if (buf_append(text, "", 1) != 0)
                return error_fail(err, ERR_NOMEM, "out of memory");
        }
    }
    return 0;
}

/* Fills out's arrays from the rows' group numbers (acc) and the fields'
 * numbers (ids). */
static int build_groups(const struct source *srcs, const struct field_values *fvs, size_t nf,
                        const uint32_t *ids, uint32_t *acc, uint32_t ngroups, int64_t nrows,
                        struct lake_partition_groups *out, struct error *err)
{
    size_t n = ngroups ? ngroups : 1;
    int64_t *first = malloc(n * sizeof *first);
    int64_t *counts = calloc(n, sizeof *counts);
    size_t **offs = calloc(nf, sizeof *offs);
    struct buf text = BUF_INIT;
    int rc = -1;
    if (!first || !counts || !offs) {
        error_fail(err, ERR_NOMEM, "out of memory");
        goto done;
    }
    uint32_t seen = 0;
    for (int64_t r = 0; r < nrows; r++) {
        if (acc[r] == seen)
            first[seen++] = r;
        counts[acc[r]]++;
    }
    if (render_fields(srcs, fvs, nf, offs, &text, err) != 0)
        goto done;
    size_t table = (size_t)ngroups * nf * sizeof(char *);
    char **values = malloc(table + text.len + 1);
    if (!values) {
        error_fail(err, ERR_NOMEM, "out of memory");
        goto done;
    }
    char *strings = (char *)values + table;
    if (text.len)
        memcpy(strings, text.data, text.len);
    for (uint32_t g = 0; g < ngroups; g++)
        for (size_t f = 0; f < nf; f++) {
            size_t off = offs[f][ids[f * (size_t)nrows + (size_t)first[g]]];
            values[g * nf + f] = off == SIZE_MAX ? NULL : strings + off;
        }
    *out = (struct lake_partition_groups){.nfields = nf,
                                          .ngroups = ngroups,
                                          .nrows = nrows,
                                          .values = values,
                                          .group_of_row = acc,
                                          .group_rows = counts};
    counts = NULL;
    rc = 0;
done:
    for (size_t f = 0; offs && f < nf; f++)
        free(offs[f]);
    free(offs);
    free(first);
    free(counts);
    buf_free(&text);
    return rc;
}

static int check_batch(const struct lake_table *t, const struct ArrowSchema *schema,
                       const struct ArrowArray *batch, struct error *err)
{
    if (!t->partitioned || t->nspec_fields == 0)
        return error_fail(err, ERR_INVALID, "the table is not partitioned");
    if (!schema || !batch || !schema->format || strcmp(schema->format, "+s") != 0)
        return error_fail(err, ERR_INVALID, "a batch must be an Arrow struct array");
    if (schema->n_children != (int64_t)t->root.nchildren ||
        batch->n_children != (int64_t)t->root.nchildren)
        return error_fail(err, ERR_INVALID, "the batch has %lld columns, the table %zu",
                          (long long)batch->n_children, t->root.nchildren);
    if (batch->length < 0 || batch->offset < 0)
        return error_fail(err, ERR_INVALID, "a negative batch length or offset");
    if (batch->length >= UINT32_MAX)
        return error_fail(err, ERR_INVALID, "a batch of %lld rows is too long to partition",
                          (long long)batch->length);
    if (batch->null_count != 0 && batch->n_buffers > 0 && batch->buffers && batch->buffers[0])
        for (int64_t r = 0; r < batch->length; r++)
            if (!arrow_bit(batch->buffers[0], batch->offset + r))
                return error_fail(err, ERR_INVALID, "a batch row is null; rows cannot be null");
    return 0;
}

int lake_partition_group_rows(const struct lake_table *t, const struct ArrowSchema *schema,
                              const struct ArrowArray *batch, struct lake_partition_groups *out,
                              struct error *err)
{
    *out = (struct lake_partition_groups){0};
    if (check_batch(t, schema, batch, err) != 0)
        return -1;
    size_t nf = t->nspec_fields;
    int64_t nrows = batch->length;
    struct source *srcs = calloc(nf, sizeof *srcs);
    struct field_values *fvs = calloc(nf, sizeof *fvs);
    uint32_t *ids = malloc(nf * (size_t)(nrows ? nrows : 1) * sizeof *ids);
    uint32_t *acc = malloc((size_t)(nrows ? nrows : 1) * sizeof *acc);
    int rc = -1;
    if (!srcs || !fvs || !ids || !acc) {
        error_fail(err, ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t f = 0; f < nf; f++)
        if (resolve_source(t, &t->spec_fields[f], schema, batch, &srcs[f], err) != 0)
            goto done;
    uint32_t ngroups = 0;
    for (size_t f = 0; f < nf; f++) {
        uint32_t *fid = ids + f * (size_t)nrows;
        if (field_ids(&srcs[f], nrows, fid, &fvs[f], err) != 0)
            goto done;
        if (f == 0) {
            memcpy(acc, fid, (size_t)nrows * sizeof *acc);
            ngroups = fvs[0].count;
        } else if (combine(acc, fid, nrows, &ngroups) != 0) {
            error_fail(err, ERR_NOMEM, "out of memory");
            goto done;
        }
    }
    if (build_groups(srcs, fvs, nf, ids, acc, ngroups, nrows, out, err) != 0)
        goto done;
    acc = NULL; /* now out->group_of_row */
    rc = 0;
done:
    for (size_t f = 0; fvs && f < nf; f++)
        free(fvs[f].values);
    free(fvs);
    free(srcs);
    free(ids);
    free(acc);
    return rc;
}

void lake_partition_groups_free(struct lake_partition_groups *g)
{
    if (!g)
        return;
    free(g->values);
    free(g->group_of_row);
    free(g->group_rows);
    *g = (struct lake_partition_groups){0};
}
