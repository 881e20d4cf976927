#include "textio/textio_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/ident.h"
#include "rows/rows_json.h"
#include "rows/rows_schema.h"
#include "rows/rows_value.h"
#include "textio/textio_json.h"
#include "textio/textio_text.h"
#include "textio/textio_timefmt.h"
#include "textio/textio_tz.h"
#include "util/strutil.h"
#include "util/timefmt.h"
#include "util/arrow.h"

/* How a column's values are stored in Arrow. */
enum store { ST_BITS, ST_FIXED, ST_VARLEN, ST_STRUCT, ST_LIST, ST_MAP };

/* One column's growing Arrow array. */
struct colb {
    const struct lake_column *col;
    enum store store;
    int width;        /* ST_FIXED: bytes per value */
    struct buf valid; /* validity bits (nullable columns only) */
    struct buf vals;  /* fixed values, boolean bits, or int32 offsets */
    struct buf data;  /* ST_VARLEN bytes */
    int64_t len, nulls;
    struct colb *kids; /* struct fields; list: [element]; map: [key, value] */
    size_t nkids;
};

struct textio_parser {
    const struct lake_table *t;
    struct colb *cols;
    size_t ncols;
    struct arena scratch; /* one row's JSON */
    struct buf tmp;       /* decoded base64 */
    int *csv_map;         /* CSV field index -> column */
    size_t csv_nfields;
    bool *csv_seen;
    size_t csv_unknown;                     /* header names the schema lacks */
    const char *csv_null;                   /* an unquoted field equal to it is NULL */
    const char *const *json_names;          /* each column's member name (NULL: its own) */
    bool json_sanitized;                    /* an unknown member may name a column once sanitized */
    const struct textio_timefmt *time_fmts; /* tried in order on dates and timestamps */
    size_t ntime_fmts;
    const struct textio_tz *tz; /* of timestamptz text without an offset (NULL: refused) */
};

/* The column being filled and where messages go. */
struct ctx {
    struct textio_parser *p;
    struct rows_where at;
};

static int nomem(struct ctx *x)
{
    return rows_fail(&x->at, ERR_NOMEM, "out of memory");
}

static size_t path_push(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t path_push(struct ctx *x, const char *fmt, ...)
{
    size_t saved = x->at.path_len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(x->at.path + saved, sizeof x->at.path - saved, fmt, ap);
    va_end(ap);
    if (n > 0)
        x->at.path_len =
            saved + (size_t)n < sizeof x->at.path ? saved + (size_t)n : sizeof x->at.path - 1;
    return saved;
}

static void path_pop(struct ctx *x, size_t saved)
{
    x->at.path_len = saved;
    x->at.path[saved] = '\0';
}

/* Up to 60 bytes of a value for a message, control characters shown as '?'. */
static const char *shown(const char *s, size_t n, char *out, size_t size)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 4 < size && k < 60; i++)
        out[k++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    if (k < n && k + 4 < size) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
    return out;
}

static void type_text(const struct lake_column *c, char *out, size_t size)
{
    if (c->type == LT_DECIMAL)
        snprintf(out, size, "decimal(%d,%d)", c->precision, c->scale);
    else
        snprintf(out, size, "%s", lake_type_name(c->type));
}

/* int8 through uint64 (adjacent in the wire order). */
static bool is_integer(enum lake_type t)
{
    return t >= LT_INT8 && t <= LT_UINT64;
}

/* Integers, floats and decimals. */
static bool is_number(enum lake_type t)
{
    return is_integer(t) || t == LT_FLOAT || t == LT_DOUBLE || t == LT_DECIMAL;
}

/* Maps whose keys are text (string or json) are JSON objects. */
static bool text_keys(const struct lake_column *map)
{
    enum lake_type k = map->children[0]->type;
    return k == LT_STRING || k == LT_JSON;
}

/* ---- builders ---- */

static int builder_init(struct colb *b, const struct lake_column *c, struct error *err)
{
    memset(b, 0, sizeof *b);
    b->col = c;
    switch (c->type) {
    case LT_BOOLEAN: b->store = ST_BITS; break;
    case LT_INT8:
    case LT_UINT8: b->store = ST_FIXED, b->width = 1; break;
    case LT_INT16:
    case LT_UINT16: b->store = ST_FIXED, b->width = 2; break;
    case LT_INT:
    case LT_UINT32:
    case LT_FLOAT:
    case LT_DATE: b->store = ST_FIXED, b->width = 4; break;
    case LT_LONG:
    case LT_UINT64:
    case LT_DOUBLE:
    case LT_TIME:
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP:
    case LT_TIMESTAMP_NS:
    case LT_TIMESTAMPTZ: b->store = ST_FIXED, b->width = 8; break;
    case LT_DECIMAL:
    case LT_UUID: b->store = ST_FIXED, b->width = 16; break;
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY:
    case LT_VARIANT: /* its JSON text, encoded by the append */ b->store = ST_VARLEN; break;
    case LT_STRUCT: b->store = ST_STRUCT; break;
    case LT_LIST: b->store = ST_LIST; break;
    case LT_MAP: b->store = ST_MAP; break;
    case LT__COUNT:
        return error_fail(err, ERR_UNSUPPORTED, "column '%s' is a %s, which cannot be converted",
                          c->name, lake_type_name(c->type));
    }
    if (c->nchildren) {
        b->kids = calloc(c->nchildren, sizeof *b->kids);
        if (!b->kids)
            return error_nomem(err);
        b->nkids = c->nchildren;
        for (size_t i = 0; i < c->nchildren; i++)
            if (builder_init(&b->kids[i], c->children[i], err) != 0)
                return -1;
    }
    return 0;
}

static void builder_free(struct colb *b)
{
    buf_free(&b->valid);
    buf_free(&b->vals);
    buf_free(&b->data);
    for (size_t i = 0; i < b->nkids; i++)
        builder_free(&b->kids[i]);
    free(b->kids);
}

static bool has_offsets(const struct colb *b)
{
    return b->store == ST_VARLEN || b->store == ST_LIST || b->store == ST_MAP;
}

static int bit_push(struct buf *bits, int64_t i, bool v)
{
    size_t need = (size_t)(i / 8) + 1;
    if (bits->len < need) {
        if (buf_reserve(bits, need - bits->len) != 0)
            return -1;
        memset(bits->data + bits->len, 0, need - bits->len);
        bits->len = need;
    }
    if (v)
        bits->data[i / 8] = (char)(bits->data[i / 8] | (1 << (i % 8)));
    return 0;
}

static int offset_push(struct colb *b, int64_t end)
{
    if (b->vals.len == 0) {
        int32_t zero = 0;
        if (buf_append(&b->vals, &zero, 4) != 0)
            return -1;
    }
    if (end > INT32_MAX)
        return -2;
    int32_t o = (int32_t)end;
    return buf_append(&b->vals, &o, 4);
}

/* The end offset a new slot of an offsets column starts from. */
static int64_t child_end(const struct colb *b)
{
    if (b->store == ST_VARLEN)
        return (int64_t)b->data.len;
    return b->kids[0].len;
}

/* Opens a slot: the validity bit, then the caller fills the value. */
static int slot_valid(struct colb *b, bool valid)
{
    if (b->col->nullable && bit_push(&b->valid, b->len, valid) != 0)
        return -1;
    b->nulls += !valid;
    return 0;
}

/* Appends an empty slot: null, or (valid) the type's zero value, as the
 * required children of a null struct need. */
static int append_empty(struct colb *b, bool valid)
{
    if (slot_valid(b, valid) != 0)
        return -1;
    switch (b->store) {
    case ST_BITS:
        if (bit_push(&b->vals, b->len, false) != 0)
            return -1;
        break;
    case ST_FIXED: {
        static const uint8_t zero[16];
        if (buf_append(&b->vals, zero, (size_t)b->width) != 0)
            return -1;
        break;
    }
    case ST_VARLEN:
    case ST_LIST:
    case ST_MAP:
        if (offset_push(b, child_end(b)) != 0)
            return -1;
        break;
    case ST_STRUCT:
        for (size_t i = 0; i < b->nkids; i++)
            if (append_empty(&b->kids[i], !b->kids[i].col->nullable) != 0)
                return -1;
        break;
    }
    b->len++;
    return 0;
}

static int append_fixed(struct ctx *x, struct colb *b, const void *v)
{
    if (slot_valid(b, true) != 0 || buf_append(&b->vals, v, (size_t)b->width) != 0)
        return nomem(x);
    b->len++;
    return 0;
}

static int append_bool(struct ctx *x, struct colb *b, bool v)
{
    if (slot_valid(b, true) != 0 || bit_push(&b->vals, b->len, v) != 0)
        return nomem(x);
    b->len++;
    return 0;
}

static int close_offsets(struct ctx *x, struct colb *b)
{
    int rc = offset_push(b, child_end(b));
    if (rc == -2)
        return rows_fail(&x->at, ERR_LIMIT,
                         "more than 2 GiB in one batch of this column (lower --batch-rows)");
    if (rc != 0)
        return nomem(x);
    b->len++;
    return 0;
}

static int append_bytes(struct ctx *x, struct colb *b, const char *s, size_t n)
{
    if (slot_valid(b, true) != 0 || buf_append(&b->data, s, n) != 0)
        return nomem(x);
    return close_offsets(x, b);
}

/* ---- values ---- */

static int put_json(struct ctx *x, struct colb *b, const struct rj_value *v, bool missing);

static int put_null(struct ctx *x, struct colb *b, bool missing)
{
    if (!b->col->nullable)
        return rows_fail(&x->at, ERR_INVALID,
                         missing ? "a required value is missing" : "null in a required column");
    if (append_empty(b, false) != 0)
        return nomem(x);
    return 0;
}

static int bad_value(struct ctx *x, const struct colb *b, const char *why, const char *s, size_t n)
{
    char t[64], v[80];
    type_text(b->col, t, sizeof t);
    return rows_fail(&x->at, ERR_INVALID, "%s: '%s' (%s)", why, shown(s, n, v, sizeof v), t);
}

static int put_int(struct ctx *x, struct colb *b, const char *s, size_t n)
{
    static const struct {
        int64_t min, max;
    } range[] = {
        [LT_INT8] = {INT8_MIN, INT8_MAX},  [LT_INT16] = {INT16_MIN, INT16_MAX},
        [LT_INT] = {INT32_MIN, INT32_MAX}, [LT_LONG] = {INT64_MIN, INT64_MAX},
        [LT_UINT8] = {0, UINT8_MAX},       [LT_UINT16] = {0, UINT16_MAX},
        [LT_UINT32] = {0, UINT32_MAX},
    };
    enum lake_type t = b->col->type;
    uint64_t u;
    int64_t v;
    const char *why = t == LT_UINT64 ? rt_parse_u64(s, n, UINT64_MAX, &u)
                                     : rt_parse_i64(s, n, range[t].min, range[t].max, &v);
    if (why)
        return bad_value(x, b, why, s, n);
    if (t == LT_UINT64)
        return append_fixed(x, b, &u);
    /* Little-endian: the low bytes of the int64 are the narrower value. */
    return append_fixed(x, b, &v);
}

/* The unit of a timestamp column's values. */
static enum rows_unit timestamp_unit(enum lake_type t)
{
    switch (t) {
    case LT_TIMESTAMP_S: return ROWS_SECONDS;
    case LT_TIMESTAMP_MS: return ROWS_MILLIS;
    case LT_TIMESTAMP_NS: return ROWS_NANOS;
    default: return ROWS_MICROS;
    }
}

/* Why no format matched: the one format's reason, or the formats tried. */
static int no_format_matched(struct ctx *x, const struct colb *b, const char *why, const char *s,
                             size_t n)
{
    const struct textio_parser *p = x->p;
    char tried[512];
    size_t k = 0;
    if (p->ntime_fmts == 1) {
        snprintf(tried, sizeof tried, "does not match the format '%s' (%s), nor ISO 8601",
                 p->time_fmts[0].text, why);
        return bad_value(x, b, tried, s, n);
    }
    k += (size_t)snprintf(tried, sizeof tried, "matches none of the formats ");
    for (size_t i = 0; i < p->ntime_fmts && k < sizeof tried; i++)
        k += (size_t)snprintf(tried + k, sizeof tried - k, "%s'%s'", i ? ", " : "",
                              p->time_fmts[i].text);
    if (k < sizeof tried)
        snprintf(tried + k, sizeof tried - k, ", nor ISO 8601");
    return bad_value(x, b, tried, s, n);
}

/* Whether s matches one of the caller's formats, tried in order: *c is
 * its value; else *why says why the last one did not. */
static bool match_format(const struct textio_parser *p, const char *s, size_t n,
                         struct textio_civil *c, const char **why)
{
    for (size_t i = 0; i < p->ntime_fmts; i++)
        if ((*why = textio_timefmt_parse(&p->time_fmts[i], s, n, c)) == NULL)
            return true;
    return false;
}

/* A date or timestamp read by one of the caller's formats. */
static int put_formatted(struct ctx *x, struct colb *b, const struct textio_civil *cv,
                         const char *s, size_t n)
{
    const struct textio_parser *p = x->p;
    struct textio_civil c = *cv;
    const char *why;
    enum lake_type t = b->col->type;
    if (t == LT_DATE) {
        if (c.has_offset || c.hour || c.minute || c.second || c.nanos)
            return bad_value(x, b, "a date takes no time of day or offset", s, n);
        /* Four-digit years: always within int32 days. */
        int32_t d = (int32_t)time_days_from_civil(c.year, (unsigned)c.month, (unsigned)c.day);
        return append_fixed(x, b, &d);
    }
    int64_t secs = textio_civil_seconds(&c), v;
    if (t != LT_TIMESTAMPTZ && c.has_offset)
        return bad_value(x, b, "a timestamp without time zone takes no offset", s, n);
    if (t == LT_TIMESTAMPTZ && c.has_offset)
        secs -= c.offset;
    else if (t == LT_TIMESTAMPTZ && p->tz)
        secs = textio_tz_to_utc(p->tz, secs);
    else if (t == LT_TIMESTAMPTZ)
        return bad_value(x, b, "a timestamptz needs a UTC offset (%z in the format) or --timezone",
                         s, n);
    if ((why = textio_time_in_unit(secs, c.nanos, timestamp_unit(t), &v)) != NULL)
        return bad_value(x, b, why, s, n);
    return append_fixed(x, b, &v);
}

/* An ISO timestamptz without an offset, in the caller's time zone: NULL,
 * or why not. */
static const char *local_iso_instant(const struct textio_parser *p, const char *s, size_t n,
                                     int64_t *out)
{
    int64_t local;
    if (!p->tz || rt_parse_timestamp(s, n, ROWS_MICROS, false, &local) != NULL)
        return "not local";
    int64_t secs = local / 1000000 - (local % 1000000 < 0);
    int32_t micros = (int32_t)(local - secs * 1000000);
    return textio_time_in_unit(textio_tz_to_utc(p->tz, secs), micros * 1000, ROWS_MICROS, out);
}

static int put_temporal(struct ctx *x, struct colb *b, const char *s, size_t n)
{
    int64_t v = 0;
    int32_t d;
    const char *why;
    enum lake_type t = b->col->type;
    /* The caller's formats first; ISO 8601 text still reads after them,
     * so one list of formats serves a table whose other temporal columns
     * are ISO. */
    const char *fmt_why = NULL;
    if (x->p->ntime_fmts && t != LT_TIME) {
        struct textio_civil c;
        if (match_format(x->p, s, n, &c, &fmt_why))
            return put_formatted(x, b, &c, s, n);
    }
    switch (t) {
    case LT_DATE:
        why = rt_parse_date(s, n, &d);
        v = d;
        break;
    case LT_TIME: why = rt_parse_time(s, n, ROWS_MICROS, &v); break;
    case LT_TIMESTAMPTZ:
        why = rt_parse_timestamp(s, n, ROWS_MICROS, true, &v);
        if (why && local_iso_instant(x->p, s, n, &v) == NULL)
            why = NULL;
        break;
    default: why = rt_parse_timestamp(s, n, timestamp_unit(t), false, &v); break;
    }
    if (why && fmt_why)
        return no_format_matched(x, b, fmt_why, s, n);
    if (why)
        return bad_value(x, b, why, s, n);
    if (t == LT_DATE)
        return append_fixed(x, b, &d);
    return append_fixed(x, b, &v);
}

/* A scalar from its text. float_forms: which float spellings are allowed
 * (CSV takes both, JSON numbers only numbers, JSON strings only words). */
static int put_text(struct ctx *x, struct colb *b, const char *s, size_t n, int float_forms)
{
    const char *why;
    /* CSV's number spellings (+1, .5) read as JSON's; JSON's own are
     * numbers already. */
    char respelled[128];
    if ((float_forms & RT_TEXT_CSV) && is_number(b->col->type))
        s = rt_number_respell(s, &n, respelled, sizeof respelled);
    float_forms &= RT_FLOAT_NUMBER | RT_FLOAT_WORDS;
    if (is_integer(b->col->type))
        return put_int(x, b, s, n);
    switch (b->col->type) {
    case LT_BOOLEAN: {
        bool v;
        if ((why = rt_parse_bool(s, n, &v)) != NULL)
            return bad_value(x, b, why, s, n);
        return append_bool(x, b, v);
    }
    case LT_FLOAT: {
        float v;
        if ((why = rt_parse_float(s, n, float_forms, &v)) != NULL)
            return bad_value(x, b, why, s, n);
        return append_fixed(x, b, &v);
    }
    case LT_DOUBLE: {
        double v;
        if ((why = rt_parse_double(s, n, float_forms, &v)) != NULL)
            return bad_value(x, b, why, s, n);
        return append_fixed(x, b, &v);
    }
    case LT_DECIMAL: {
        rt_i128 v;
        why = rt_parse_decimal(s, n, b->col->precision, b->col->scale, &v);
        if (why)
            return bad_value(x, b, why, s, n);
        return append_fixed(x, b, &v);
    }
    case LT_DATE:
    case LT_TIME:
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP:
    case LT_TIMESTAMP_NS:
    case LT_TIMESTAMPTZ: return put_temporal(x, b, s, n);
    case LT_UUID: {
        uint8_t v[16];
        if ((why = rt_parse_uuid(s, n, v)) != NULL)
            return bad_value(x, b, why, s, n);
        return append_fixed(x, b, v);
    }
    case LT_STRING: {
        size_t at;
        if (!str_utf8_valid(s, n, &at))
            return rows_fail(&x->at, ERR_INVALID, "invalid UTF-8 at byte %zu of the text", at + 1);
        return append_bytes(x, b, s, n);
    }
    case LT_JSON: {
        struct error je;
        if (!rj_parse(s, n, NULL, &je))
            return rows_fail(&x->at, je.code, "invalid JSON text %s", je.msg);
        return append_bytes(x, b, s, n);
    }
    case LT_VARIANT: return append_bytes(x, b, s, n); /* checked as it is encoded */
    case LT_BINARY: {
        struct buf *tmp = &x->p->tmp;
        buf_reset(tmp);
        if ((why = rt_base64_decode(s, n, tmp)) != NULL)
            return bad_value(x, b, why, s, n);
        return append_bytes(x, b, tmp->data ? tmp->data : "", tmp->len);
    }
    default: {
        /* A nested value in a CSV cell: its JSON text. */
        struct error je;
        const struct rj_value *v = rj_parse(s, n, &x->p->scratch, &je);
        if (!v)
            return rows_fail(&x->at, je.code, "invalid JSON text %s", je.msg);
        return put_json(x, b, v, false);
    }
    }
}

static const char *expected_json(const struct lake_column *c)
{
    if (is_integer(c->type))
        return "an integer";
    switch (c->type) {
    case LT_BOOLEAN: return "true or false";
    case LT_FLOAT:
    case LT_DOUBLE: return "a number or \"NaN\", \"Infinity\", \"-Infinity\"";
    case LT_DECIMAL: return "a decimal string or number";
    case LT_STRUCT: return "an object";
    case LT_LIST: return "an array";
    case LT_MAP:
        return text_keys(c) ? "an object" : "an array of {\"key\":..,\"value\":..} objects";
    default: return "a string";
    }
}

/* Whether obj has a member named name. */
static bool has_member(const struct rj_value *obj, const char *name)
{
    for (size_t i = 0; i < obj->n; i++)
        if (rj_key_is(obj, i, name))
            return true;
    return false;
}

/* The member name that fills field k: its own, or at the top level the
 * input's name for the column when the caller gave one. */
static const char *member_name(const struct ctx *x, const struct colb *fields, size_t k, bool top)
{
    const char *const *names = x->p->json_names;
    return top && names && names[k] ? names[k] : fields[k].col->name;
}

/* The column that member i of a top-level object names once sanitized
 * (lake_ident_sanitize: how `table create --from` named it), when no
 * member named it exactly and the caller mapped no other name to it; else
 * nfields. */
static size_t sanitized_field(const struct ctx *x, const struct rj_value *obj, size_t i,
                              const struct colb *fields, size_t nfields,
                              const struct rj_value **slots)
{
    char name[LAKE_IDENT_MAX + 2], own[LAKE_IDENT_MAX + 2];
    if (obj->key_lens[i] > LAKE_IDENT_MAX || memchr(obj->keys[i], '\0', obj->key_lens[i]))
        return nfields;
    memcpy(name, obj->keys[i], obj->key_lens[i]);
    name[obj->key_lens[i]] = '\0';
    lake_ident_sanitize(name, own);
    for (size_t k = 0; k < nfields; k++)
        if (!slots[k] && strcmp(fields[k].col->name, own) == 0 &&
            strcmp(member_name(x, fields, k, true), own) == 0 && !has_member(obj, own))
            return k;
    return nfields;
}

/* An object's members bound to fields by exact name: slots[k] is the
 * value of field k, or NULL. Every unknown member is named in one
 * message, so one run shows all the names to map. */
static int bind_members(struct ctx *x, const struct rj_value *obj, const struct colb *fields,
                        size_t nfields, const struct rj_value **slots, bool top)
{
    const char *what = top ? "column" : "field";
    struct buf unknown = BUF_INIT;
    size_t nunknown = 0;
    int rc = 0;
    for (size_t i = 0; i < obj->n && rc == 0; i++) {
        size_t k = 0;
        while (k < nfields && !rj_key_is(obj, i, member_name(x, fields, k, top)))
            k++;
        if (k == nfields && top && x->p->json_sanitized)
            k = sanitized_field(x, obj, i, fields, nfields, slots);
        char v[80];
        if (k == nfields) {
            if (buf_printf(&unknown, "%s'%s'", nunknown++ ? ", " : "",
                           shown(obj->keys[i], obj->key_lens[i], v, sizeof v)) != 0)
                rc = nomem(x);
        } else if (slots[k]) {
            rc = rows_fail(&x->at, ERR_INVALID, "%s '%s' given twice", what,
                           member_name(x, fields, k, top));
        } else {
            slots[k] = &obj->items[i];
        }
    }
    if (rc == 0 && nunknown)
        rc = rows_fail(&x->at, ERR_INVALID, "unknown %s%s %s", what, nunknown > 1 ? "s" : "",
                       unknown.data);
    buf_free(&unknown);
    return rc;
}

static int put_fields(struct ctx *x, struct colb *fields, size_t nfields,
                      const struct rj_value *obj, bool top)
{
    const struct rj_value **slots = arena_calloc(&x->p->scratch, nfields, sizeof *slots);
    if (!slots)
        return nomem(x);
    if (bind_members(x, obj, fields, nfields, slots, top) != 0)
        return -1;
    for (size_t k = 0; k < nfields; k++) {
        size_t saved = path_push(x, top ? "%s" : ".%s", fields[k].col->name);
        int rc = put_json(x, &fields[k], slots[k], slots[k] == NULL);
        path_pop(x, saved);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* A map entry given as {"key": .., "value": ..}. */
static int put_entry(struct ctx *x, struct colb *b, const struct rj_value *e)
{
    if (e->type != RJ_OBJECT)
        return rows_fail(&x->at, ERR_INVALID, "expected a {\"key\":..,\"value\":..} object, got %s",
                         rj_type_name(e->type));
    const struct rj_value *k = NULL, *value = NULL;
    for (size_t m = 0; m < e->n; m++) {
        if (rj_key_is(e, m, "key") && !k)
            k = &e->items[m];
        else if (rj_key_is(e, m, "value") && !value)
            value = &e->items[m];
        else
            return rows_fail(&x->at, ERR_INVALID,
                             "a map entry holds exactly \"key\" and \"value\"");
    }
    size_t saved = path_push(x, ".key");
    int rc = put_json(x, &b->kids[0], k, k == NULL);
    path_pop(x, saved);
    if (rc != 0)
        return -1;
    saved = path_push(x, ".value");
    rc = put_json(x, &b->kids[1], value, value == NULL);
    path_pop(x, saved);
    return rc;
}

static int put_map(struct ctx *x, struct colb *b, const struct rj_value *v)
{
    bool object = text_keys(b->col);
    if (slot_valid(b, true) != 0)
        return nomem(x);
    for (size_t i = 0; i < v->n; i++) {
        char key[80];
        size_t saved;
        int rc;
        if (object) {
            saved = path_push(x, "{%s}", shown(v->keys[i], v->key_lens[i], key, sizeof key));
            rc = put_text(x, &b->kids[0], v->keys[i], v->key_lens[i], 0);
            if (rc == 0)
                rc = put_json(x, &b->kids[1], &v->items[i], false);
        } else {
            saved = path_push(x, "[%zu]", i);
            rc = put_entry(x, b, &v->items[i]);
        }
        path_pop(x, saved);
        if (rc != 0)
            return -1;
    }
    return close_offsets(x, b);
}

/* Whether a JSON value of type jt can fill column b. */
static bool json_type_fits(const struct colb *b, enum rj_type jt)
{
    enum lake_type t = b->col->type;
    if (is_integer(t))
        return jt == RJ_NUMBER;
    switch (t) {
    case LT_BOOLEAN: return jt == RJ_TRUE || jt == RJ_FALSE;
    case LT_FLOAT:
    case LT_DOUBLE:
    case LT_DECIMAL: return jt == RJ_NUMBER || jt == RJ_STRING;
    case LT_STRUCT: return jt == RJ_OBJECT;
    case LT_LIST: return jt == RJ_ARRAY;
    case LT_MAP: return jt == (text_keys(b->col) ? RJ_OBJECT : RJ_ARRAY);
    default: return jt == RJ_STRING;
    }
}

static int put_json(struct ctx *x, struct colb *b, const struct rj_value *v, bool missing)
{
    if (!v || v->type == RJ_NULL)
        return put_null(x, b, missing);
    enum lake_type t = b->col->type;
    enum rj_type jt = v->type;
    if (t == LT_VARIANT) {
        struct buf *tmp = &x->p->tmp;
        buf_reset(tmp);
        struct jw w;
        jw_init(&w, tmp, false);
        jw_value(&w, v);
        return append_bytes(x, b, tmp->data ? tmp->data : "", tmp->len);
    }
    if (!json_type_fits(b, jt))
        return rows_fail(&x->at, ERR_INVALID, "expected %s, got %s", expected_json(b->col),
                         rj_type_name(jt));
    switch (t) {
    case LT_BOOLEAN: return append_bool(x, b, jt == RJ_TRUE);
    case LT_STRUCT:
        if (slot_valid(b, true) != 0)
            return nomem(x);
        if (put_fields(x, b->kids, b->nkids, v, false) != 0)
            return -1;
        b->len++;
        return 0;
    case LT_LIST:
        if (slot_valid(b, true) != 0)
            return nomem(x);
        for (size_t i = 0; i < v->n; i++) {
            size_t saved = path_push(x, "[%zu]", i);
            int rc = put_json(x, &b->kids[0], &v->items[i], false);
            path_pop(x, saved);
            if (rc != 0)
                return -1;
        }
        return close_offsets(x, b);
    case LT_MAP: return put_map(x, b, v);
    default: break;
    }
    int forms = jt == RJ_NUMBER ? RT_FLOAT_NUMBER : RT_FLOAT_WORDS;
    return put_text(x, b, v->str, v->len, forms);
}

/* ---- the parser ---- */

int textio_parser_new(const struct lake_table *t, struct textio_parser **out, struct error *err)
{
    *out = NULL;
    struct textio_parser *p = calloc(1, sizeof *p);
    if (!p)
        return error_nomem(err);
    p->t = t;
    arena_init(&p->scratch, 0);
    p->ncols = t->root.nchildren;
    p->cols = calloc(p->ncols ? p->ncols : 1, sizeof *p->cols);
    if (!p->cols) {
        textio_parser_free(p);
        return error_nomem(err);
    }
    for (size_t i = 0; i < p->ncols; i++) {
        if (builder_init(&p->cols[i], t->root.children[i], err) != 0) {
            textio_parser_free(p);
            return -1;
        }
    }
    *out = p;
    return 0;
}

void textio_parser_free(struct textio_parser *p)
{
    if (!p)
        return;
    for (size_t i = 0; p->cols && i < p->ncols; i++)
        builder_free(&p->cols[i]);
    free(p->cols);
    arena_free(&p->scratch);
    buf_free(&p->tmp);
    free(p->csv_map);
    free(p->csv_seen);
    free(p);
}

static void ctx_init(struct ctx *x, struct textio_parser *p, struct error *err)
{
    x->p = p;
    rows_where_init(&x->at, err);
}

/* Readies the CSV binding for a header of n fields. */
static int header_begin(struct textio_parser *p, size_t n, struct error *err)
{
    free(p->csv_map);
    free(p->csv_seen);
    p->csv_nfields = n;
    p->csv_unknown = 0;
    p->csv_map = calloc(n ? n : 1, sizeof *p->csv_map);
    p->csv_seen = calloc(p->ncols ? p->ncols : 1, sizeof *p->csv_seen);
    return !p->csv_map || !p->csv_seen ? error_nomem(err) : 0;
}

/* Binds header field i, named name (len bytes), to its column. A name the
 * schema lacks is added to *unknown (reported by header_end with the
 * others). */
static int header_bind(struct textio_parser *p, size_t i, const char *name, size_t len,
                       struct buf *unknown, struct error *err)
{
    size_t k = 0;
    while (k < p->ncols &&
           !(strlen(p->cols[k].col->name) == len && memcmp(p->cols[k].col->name, name, len) == 0))
        k++;
    char v[80];
    if (k == p->ncols) {
        if (buf_printf(unknown, "%s'%s'", p->csv_unknown++ ? ", " : "",
                       shown(name, len, v, sizeof v)))
            return error_nomem(err);
        return 0;
    }
    if (p->csv_seen[k])
        return error_fail(err, ERR_INVALID, "the header names column '%s' twice",
                          p->cols[k].col->name);
    p->csv_seen[k] = true;
    p->csv_map[i] = (int)k;
    return 0;
}

/* Checks that the header named no unknown column and every required
 * column got a field. */
static int header_end(struct textio_parser *p, const struct buf *unknown, struct error *err)
{
    if (p->csv_unknown == 1)
        return error_fail(err, ERR_INVALID, "the header names column %s, which the schema lacks",
                          unknown->data);
    if (p->csv_unknown)
        return error_fail(err, ERR_INVALID, "the header names columns the schema lacks: %s",
                          unknown->data);
    for (size_t k = 0; k < p->ncols; k++)
        if (!p->csv_seen[k] && !p->cols[k].col->nullable)
            return error_fail(err, ERR_INVALID, "the header lacks column '%s', which is required",
                              p->cols[k].col->name);
    return 0;
}

int textio_parser_csv_header(struct textio_parser *p, const struct csv_reader *r, struct error *err)
{
    if (header_begin(p, r->nfields, err) != 0)
        return -1;
    struct buf unknown = BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < r->nfields && rc == 0; i++) {
        size_t len;
        const char *name = csv_field_text(r, i, &len, NULL);
        rc = header_bind(p, i, name, len, &unknown, err);
    }
    if (rc == 0)
        rc = header_end(p, &unknown, err);
    buf_free(&unknown);
    return rc;
}

int textio_parser_csv_names(struct textio_parser *p, const char *const *names, size_t n,
                            struct error *err)
{
    if (header_begin(p, n, err) != 0)
        return -1;
    struct buf unknown = BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = header_bind(p, i, names[i], strlen(names[i]), &unknown, err);
    if (rc == 0)
        rc = header_end(p, &unknown, err);
    buf_free(&unknown);
    return rc;
}

void textio_parser_csv_null(struct textio_parser *p, const char *marker)
{
    p->csv_null = marker;
}

void textio_parser_json_sanitized(struct textio_parser *p, bool on)
{
    p->json_sanitized = on;
}

void textio_parser_json_names(struct textio_parser *p, const char *const *names)
{
    p->json_names = names;
}

void textio_parser_times(struct textio_parser *p, const struct textio_timefmt *fmts, size_t n,
                         const struct textio_tz *tz)
{
    p->time_fmts = fmts;
    p->ntime_fmts = n;
    p->tz = tz;
}

/* Whether an unquoted CSV field says NULL: empty, or the caller's marker. */
static bool csv_is_null(const struct textio_parser *p, const char *s, size_t len, bool quoted)
{
    if (quoted)
        return false;
    return len == 0 ||
           (p->csv_null && strlen(p->csv_null) == len && memcmp(s, p->csv_null, len) == 0);
}

int textio_parser_csv_row(struct textio_parser *p, const struct csv_reader *r, struct error *err)
{
    if (!p->csv_map)
        return error_fail(err, ERR_INVALID, "no header");
    if (r->nfields != p->csv_nfields)
        return error_fail(err, ERR_INVALID, "the record has %zu fields, the header %zu", r->nfields,
                          p->csv_nfields);
    struct ctx x;
    ctx_init(&x, p, err);
    int rc = 0;
    for (size_t i = 0; i < r->nfields && rc == 0; i++) {
        struct colb *b = &p->cols[p->csv_map[i]];
        size_t len;
        bool quoted;
        const char *s = csv_field_text(r, i, &len, &quoted);
        path_push(&x, "%s", b->col->name);
        if (csv_is_null(p, s, len, quoted))
            rc = put_null(&x, b, false);
        else
            rc = put_text(&x, b, s, len, RT_FLOAT_NUMBER | RT_FLOAT_WORDS | RT_TEXT_CSV);
        path_pop(&x, 0);
    }
    for (size_t k = 0; k < p->ncols && rc == 0; k++) {
        if (!p->csv_seen[k]) {
            path_push(&x, "%s", p->cols[k].col->name);
            rc = put_null(&x, &p->cols[k], true);
            path_pop(&x, 0);
        }
    }
    arena_free(&p->scratch);
    return rc;
}

int textio_parser_json_row(struct textio_parser *p, const char *text, size_t len, struct error *err)
{
    struct error je;
    const struct rj_value *v = rj_parse(text, len, &p->scratch, &je);
    int rc;
    if (!v) {
        rc = error_fail(err, je.code, "invalid JSON %s", je.msg);
    } else if (v->type != RJ_OBJECT) {
        rc = error_fail(err, ERR_INVALID, "a row must be a JSON object, not %s",
                        rj_type_name(v->type));
    } else {
        struct ctx x;
        ctx_init(&x, p, err);
        rc = put_fields(&x, p->cols, p->ncols, v, true);
    }
    arena_free(&p->scratch);
    return rc;
}

int64_t textio_parser_pending(const struct textio_parser *p)
{
    return p->ncols ? p->cols[0].len : 0;
}

/* Moves a builder's contents into an Arrow array and empties it. */
static int finish(struct colb *b, struct ArrowArray *a)
{
    int64_t nbuf = b->store == ST_STRUCT ? 1 : b->store == ST_VARLEN ? 3 : 2;
    int64_t nkids = b->store == ST_STRUCT ? (int64_t)b->nkids
                    : b->store == ST_LIST ? 1
                    : b->store == ST_MAP  ? 1
                                          : 0;
    if (arrow_array_init(a, nbuf, nkids) != 0)
        return -1;
    a->length = b->len;
    a->null_count = b->nulls;
    if (b->nulls > 0)
        arrow_array_own_buffer(a, 0, buf_take(&b->valid));
    buf_free(&b->valid);
    int32_t zero = 0;
    if (has_offsets(b) && b->vals.len == 0 && buf_append(&b->vals, &zero, 4) != 0)
        return -1;
    if (b->store != ST_STRUCT)
        arrow_array_own_buffer(a, 1, buf_take(&b->vals));
    if (b->store == ST_VARLEN)
        arrow_array_own_buffer(a, 2, buf_take(&b->data));
    b->len = b->nulls = 0;
    if (b->store == ST_STRUCT || b->store == ST_LIST) {
        for (size_t i = 0; i < b->nkids; i++)
            if (finish(&b->kids[i], a->children[i]) != 0)
                return -1;
    } else if (b->store == ST_MAP) {
        struct ArrowArray *e = a->children[0];
        if (arrow_array_init(e, 1, 2) != 0)
            return -1;
        e->length = b->kids[0].len;
        if (finish(&b->kids[0], e->children[0]) != 0 || finish(&b->kids[1], e->children[1]) != 0)
            return -1;
    }
    return (a->buffers[1] || b->store == ST_STRUCT) ? 0 : -1;
}

static int variants_as_text(const struct lake_column *c, struct ArrowSchema *s)
{
    if (c->type == LT_VARIANT) {
        const char *key = "ARROW:extension:name", *value = "arrow.json";
        char *name = s->name ? strdup(s->name) : NULL;
        if (s->name && !name)
            return -1;
        s->release(s);
        int rc = arrow_schema_init(s, "u", name, c->nullable ? ARROW_FLAG_NULLABLE : 0, 0);
        free(name);
        return rc == 0 ? arrow_schema_set_metadata(s, &key, &value, 1) : -1;
    }
    if (c->type == LT_MAP)
        s = s->children[0]; /* the entries struct: key and value */
    for (size_t i = 0; i < c->nchildren; i++)
        if (variants_as_text(c->children[i], s->children[i]) != 0)
            return -1;
    return 0;
}

int textio_arrow_schema(const struct lake_table *t, struct ArrowSchema *out)
{
    if (rows_table_arrow_schema(t, out) != 0)
        return -1;
    /* json columns marked as reads mark them (hl_table_scan). */
    for (size_t i = 0; i < t->root.nchildren; i++)
        if (variants_as_text(t->root.children[i], out->children[i]) != 0 ||
            rows_schema_mark_json(out->children[i], t->root.children[i]) != 0) {
            out->release(out);
            return -1;
        }
    return 0;
}

int textio_parser_take(struct textio_parser *p, struct ArrowSchema *schema,
                       struct ArrowArray *batch, struct error *err)
{
    if (textio_arrow_schema(p->t, schema) != 0)
        return error_nomem(err);
    int64_t n = textio_parser_pending(p);
    if (arrow_array_init(batch, 1, (int64_t)p->ncols) != 0)
        goto nomem;
    batch->length = n;
    for (size_t i = 0; i < p->ncols; i++)
        if (finish(&p->cols[i], batch->children[i]) != 0)
            goto nomem;
    return 0;
nomem:
    if (batch->release)
        batch->release(batch);
    schema->release(schema);
    return error_nomem(err);
}
