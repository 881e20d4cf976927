/* Literals as values of a column's type: exact numbers, dates, times and
 * timestamps in every unit, uuids, bytes; their Iceberg bound bytes; and
 * the text forms values come back in (partition values, decoded bounds). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/expr_internal.h"
#include "lake/bounds.h"
#include "util/base64.h"
#include "util/bytes.h"
#include "util/strutil.h"
#include "util/timefmt.h"

enum { MAX_SCALE = 38, MAX_EXPONENT = 4000 };

static const int64_t NANOS_PER_DAY = INT64_C(86400000000000);

/* ---- value kinds and order ---- */

enum vkind expr_vkind(enum lake_type t)
{
    switch (t) {
    case LT_BOOLEAN: return VK_BOOL;
    case LT_UINT64: return VK_UINT64;
    case LT_FLOAT:
    case LT_DOUBLE: return VK_FLOAT;
    case LT_DECIMAL: return VK_DEC;
    case LT_STRING:
    case LT_JSON:
    case LT_UUID:
    case LT_BINARY: return VK_BYTES;
    case LT_VARIANT:
    case LT_LIST:
    case LT_STRUCT:
    case LT_MAP:
    case LT__COUNT: return VK_NONE;
    default: return VK_INT;
    }
}

int64_t expr_float_key(double d)
{
    if (isnan(d))
        return INT64_MAX;
    if (d == 0)
        return 0;
    int64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits >= 0 ? bits : -(bits & INT64_MAX);
}

i128 expr_pow10(int n)
{
    i128 v = 1;
    for (int k = 0; k < n; k++)
        v *= 10;
    return v;
}

static int cmp_bytes(const struct lake_value *x, const struct lake_value *y)
{
    size_t n = x->bytes.len < y->bytes.len ? x->bytes.len : y->bytes.len;
    int c = n ? memcmp(x->bytes.data, y->bytes.data, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return (x->bytes.len > y->bytes.len) - (x->bytes.len < y->bytes.len);
}

int expr_value_compare(enum vkind k, const struct lake_value *x, const struct lake_value *y)
{
    switch (k) {
    case VK_BOOL: return (int)x->b - (int)y->b;
    case VK_INT: return (x->i > y->i) - (x->i < y->i);
    case VK_UINT64: return (x->u > y->u) - (x->u < y->u);
    case VK_FLOAT: {
        int64_t a = expr_float_key(x->d), b = expr_float_key(y->d);
        return (a > b) - (a < b);
    }
    case VK_DEC: return (x->dec > y->dec) - (x->dec < y->dec);
    case VK_BYTES: return cmp_bytes(x, y);
    case VK_NONE: break;
    }
    return 0;
}

/* ---- exact numbers ---- */

bool expr_number_exact(const char *text, size_t len, i128 *unscaled, int *scale)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (text[i] == '-' || text[i] == '+'))
        neg = text[i++] == '-';
    i128 m = 0;
    int digits = 0, frac = 0;
    bool any = false, point = false;
    for (; i < len; i++) {
        char c = text[i];
        if (c == '.' && !point) {
            point = true;
            continue;
        }
        if (c < '0' || c > '9')
            break;
        any = true;
        if (m == 0 && c == '0') {
            frac += point;
            continue;
        }
        if (++digits > MAX_SCALE)
            return false;
        m = m * 10 + (c - '0');
        frac += point;
    }
    if (!any)
        return false;
    int64_t exp = 0;
    if (i < len && (text[i] == 'e' || text[i] == 'E')) {
        bool eneg = false;
        if (++i < len && (text[i] == '-' || text[i] == '+'))
            eneg = text[i++] == '-';
        if (i == len)
            return false;
        for (; i < len && text[i] >= '0' && text[i] <= '9'; i++)
            if ((exp = exp * 10 + (text[i] - '0')) > MAX_EXPONENT)
                return false;
        exp = eneg ? -exp : exp;
    }
    if (i != len)
        return false;
    int64_t s = (int64_t)frac - exp;
    while (s > 0 && m != 0 && m % 10 == 0) {
        m /= 10;
        s--;
    }
    if (m == 0)
        s = 0;
    if (s > MAX_SCALE)
        return false;
    if (s < 0) {
        if (-s > MAX_SCALE || !expr_rescale(m, 0, (int)-s, &m) || m >= expr_pow10(MAX_SCALE))
            return false;
        s = 0;
    }
    *unscaled = neg ? -m : m;
    *scale = (int)s;
    return true;
}

bool expr_rescale(i128 v, int from, int to, i128 *out)
{
    if (to - from > MAX_SCALE) {
        *out = 0;
        return v == 0;
    }
    if (to >= from) {
        i128 f = expr_pow10(to - from);
        return !__builtin_mul_overflow(v, f, out);
    }
    if (from - to > MAX_SCALE) {
        *out = 0;
        return true;
    }
    i128 f = expr_pow10(from - to), q = v / f, r = v % f;
    i128 half_away = r < 0 ? -r : r; /* rounds away when at least half of f */
    if (half_away >= f - half_away)
        q += v < 0 ? -1 : 1;
    *out = q;
    return true;
}

/* ---- temporal text ---- */

static bool digits_at(const char *s, size_t n, size_t at, size_t count, int64_t *out)
{
    if (at + count > n)
        return false;
    int64_t v = 0;
    for (size_t k = 0; k < count; k++) {
        if (s[at + k] < '0' || s[at + k] > '9')
            return false;
        v = v * 10 + (s[at + k] - '0');
    }
    *out = v;
    return true;
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* [+-]YYYY[Y..]-MM-DD as days since 1970-01-01; *used the length. */
static bool parse_date(const char *s, size_t n, size_t *used, int64_t *days)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    size_t start = i;
    int64_t y = 0, m, d;
    while (i < n && s[i] >= '0' && s[i] <= '9' && i - start < 9)
        y = y * 10 + (s[i++] - '0');
    if (i - start < 4 || i >= n || s[i] != '-' || !digits_at(s, n, i + 1, 2, &m) || i + 3 >= n ||
        s[i + 3] != '-' || !digits_at(s, n, i + 4, 2, &d))
        return false;
    y = neg ? -y : y;
    static const int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1 || d > month_days[m - 1] + (m == 2 && is_leap(y)))
        return false;
    *days = time_days_from_civil(y, (unsigned)m, (unsigned)d);
    *used = i + 6;
    return true;
}

/* HH:MM[:SS[.f{1,9}]] as nanoseconds of the day. */
static bool parse_clock(const char *s, size_t n, size_t *used, int64_t *nanos)
{
    int64_t h, m, sec = 0, frac = 0;
    if (!digits_at(s, n, 0, 2, &h) || n < 3 || s[2] != ':' || !digits_at(s, n, 3, 2, &m))
        return false;
    size_t i = 5;
    if (i < n && s[i] == ':') {
        if (!digits_at(s, n, i + 1, 2, &sec))
            return false;
        i += 3;
        if (i < n && s[i] == '.') {
            size_t k = ++i;
            while (i < n && s[i] >= '0' && s[i] <= '9' && i - k < 9)
                frac = frac * 10 + (s[i++] - '0');
            if (i == k || (i < n && s[i] >= '0' && s[i] <= '9'))
                return false;
            for (size_t z = i - k; z < 9; z++)
                frac *= 10;
        }
    }
    if (h > 23 || m > 59 || sec > 59)
        return false;
    *nanos = ((h * 60 + m) * 60 + sec) * INT64_C(1000000000) + frac;
    *used = i;
    return true;
}

/* Z, or (+|-)HH[[:]MM], as seconds east of UTC. */
static bool parse_offset(const char *s, size_t n, int64_t *seconds)
{
    if (n == 1 && (s[0] == 'Z' || s[0] == 'z')) {
        *seconds = 0;
        return true;
    }
    int64_t h, m = 0;
    if (n < 3 || (s[0] != '+' && s[0] != '-') || !digits_at(s, n, 1, 2, &h))
        return false;
    if (n == 6 && s[3] == ':') {
        if (!digits_at(s, n, 4, 2, &m))
            return false;
    } else if (n == 5) {
        if (!digits_at(s, n, 3, 2, &m))
            return false;
    } else if (n != 3) {
        return false;
    }
    if (h > 18 || m > 59)
        return false;
    *seconds = (s[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
    return true;
}

struct stamp {
    i128 nanos; /* since the epoch, in UTC when an offset was given */
    bool has_time, has_offset;
};

/* date [(' '|'T') clock] [offset] */
static bool parse_stamp(const char *s, size_t n, struct stamp *out)
{
    size_t used, i;
    int64_t days, clock = 0, offset = 0;
    if (!parse_date(s, n, &used, &days))
        return false;
    memset(out, 0, sizeof *out);
    i = used;
    if (i < n && (s[i] == ' ' || s[i] == 'T' || s[i] == 't')) {
        if (!parse_clock(s + i + 1, n - i - 1, &used, &clock))
            return false;
        i += 1 + used;
        out->has_time = true;
    }
    if (i < n) {
        if (!parse_offset(s + i, n - i, &offset))
            return false;
        out->has_offset = true;
    }
    out->nanos = (i128)days * NANOS_PER_DAY + clock - (i128)offset * 1000000000;
    return true;
}

int64_t expr_nanos_per_tick(enum lake_type t)
{
    switch (t) {
    case LT_DATE: return NANOS_PER_DAY;
    case LT_TIMESTAMP_S: return 1000000000;
    case LT_TIMESTAMP_MS: return 1000000;
    case LT_TIMESTAMP_NS: return 1;
    default: return 1000; /* time, timestamp, timestamptz: microseconds */
    }
}

/* ---- conversion ---- */

struct conv {
    struct arena *a;
    const struct expr *lit;
    const struct expr_type *t;
    struct error *err;
};

static int refuse(const struct conv *c, const char *what)
{
    if (c->t->column)
        return expr_fail_at(c->err, &c->lit->at, "%s for column '%.300s' (%s)", what, c->t->column,
                            lake_type_name(c->t->type));
    return expr_fail_at(c->err, &c->lit->at, "%s for a %s value", what, lake_type_name(c->t->type));
}

static const char *lit_kind_name(enum lit_kind k)
{
    switch (k) {
    case LIT_NUMBER: return "a number";
    case LIT_STRING: return "a string";
    case LIT_TRUE:
    case LIT_FALSE: return "a boolean";
    case LIT_DATE: return "a DATE";
    case LIT_TIME: return "a TIME";
    case LIT_TIMESTAMP: return "a TIMESTAMP";
    case LIT_TIMESTAMPTZ: return "a TIMESTAMPTZ";
    case LIT_UUID: return "a UUID";
    case LIT_BINARY: return "a hex literal";
    case LIT_NULL: return "NULL";
    }
    return "a literal";
}

static int wrong_kind(const struct conv *c, const char *expected)
{
    char what[120];
    snprintf(what, sizeof what, "expected %s, not %s", expected, lit_kind_name(c->lit->lit));
    return refuse(c, what);
}

bool expr_int_range(enum lake_type t, i128 *lo, i128 *hi)
{
    switch (t) {
    case LT_INT8: *lo = INT8_MIN, *hi = INT8_MAX; return true;
    case LT_INT16: *lo = INT16_MIN, *hi = INT16_MAX; return true;
    case LT_INT: *lo = INT32_MIN, *hi = INT32_MAX; return true;
    case LT_LONG: *lo = INT64_MIN, *hi = INT64_MAX; return true;
    case LT_UINT8: *lo = 0, *hi = UINT8_MAX; return true;
    case LT_UINT16: *lo = 0, *hi = UINT16_MAX; return true;
    case LT_UINT32: *lo = 0, *hi = UINT32_MAX; return true;
    case LT_UINT64: *lo = 0, *hi = UINT64_MAX; return true;
    default: return false;
    }
}

static int convert_integer(const struct conv *c, struct lake_value *v)
{
    if (c->lit->lit != LIT_NUMBER)
        return wrong_kind(c, "an integer");
    i128 m, lo = 0, hi = 0;
    int scale;
    if (!expr_number_exact(c->lit->text, c->lit->len, &m, &scale))
        return refuse(c, "out of range");
    if (scale != 0)
        return refuse(c, "not an integer");
    expr_int_range(c->t->type, &lo, &hi);
    if (m < lo || m > hi)
        return refuse(c, "out of range");
    if (c->t->type == LT_UINT64)
        v->u = (uint64_t)m;
    else
        v->i = (int64_t)m;
    return 0;
}

static int convert_decimal(const struct conv *c, struct lake_value *v)
{
    if (c->lit->lit != LIT_NUMBER)
        return wrong_kind(c, "a number");
    i128 m;
    int scale;
    if (!expr_number_exact(c->lit->text, c->lit->len, &m, &scale))
        return refuse(c, "out of range");
    char why[80];
    snprintf(why, sizeof why, "more than %d fraction digits", c->t->scale);
    if (scale > c->t->scale)
        return refuse(c, why);
    snprintf(why, sizeof why, "more than %d digits", c->t->precision);
    if (!expr_rescale(m, scale, c->t->scale, &m) || m >= expr_pow10(c->t->precision) ||
        m <= -expr_pow10(c->t->precision))
        return refuse(c, why);
    v->dec = m;
    return 0;
}

static bool special_float(const char *s, size_t n, double *out)
{
    static const struct {
        const char *text;
        double v;
    } names[] = {{"NaN", NAN},      {"Infinity", INFINITY}, {"-Infinity", -INFINITY},
                 {"inf", INFINITY}, {"-inf", -INFINITY},    {"+Infinity", INFINITY},
                 {"+inf", INFINITY}};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (strlen(names[k].text) == n && strncasecmp(s, names[k].text, n) == 0) {
            *out = names[k].v;
            return true;
        }
    return false;
}

/* A decimal number's text as a float or double, correctly rounded;
 * false when it is not a number or overflows the type. */
static bool text_float(const char *s, size_t n, bool single, double *out)
{
    char tmp[512];
    if (n == 0 || n >= sizeof tmp || s[0] == ' ')
        return false;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *end;
    double v = single ? (double)strtof(tmp, &end) : strtod(tmp, &end);
    if (*end != '\0' || (isinf(v) && !special_float(s, n, &v)))
        return false;
    *out = v;
    return true;
}

static int convert_float(const struct conv *c, struct lake_value *v)
{
    bool single = c->t->type == LT_FLOAT;
    if (c->lit->lit == LIT_STRING) {
        if (!special_float(c->lit->text, c->lit->len, &v->d))
            return refuse(c, "expected a number, 'NaN', 'Infinity' or '-Infinity'");
        return 0;
    }
    if (c->lit->lit != LIT_NUMBER)
        return wrong_kind(c, "a number");
    if (!text_float(c->lit->text, c->lit->len, single, &v->d))
        return refuse(c, "out of range");
    return 0;
}

/* A stamp as ticks of type t, exactly. */
static int stamp_ticks(const struct conv *c, const struct stamp *s, int64_t *out)
{
    enum lake_type t = c->t->type;
    if (s->has_offset && t != LT_TIMESTAMPTZ)
        return refuse(c, t == LT_DATE ? "a date has no time zone"
                                      : "a timestamp without time zone takes no offset");
    int64_t per = expr_nanos_per_tick(t);
    i128 ticks = s->nanos / per;
    if (s->nanos % per != 0)
        return refuse(c, t == LT_DATE ? "not midnight" : "finer than the column's unit");
    if (ticks < (t == LT_DATE ? INT32_MIN : INT64_MIN) ||
        ticks > (t == LT_DATE ? INT32_MAX : INT64_MAX))
        return refuse(c, "out of range");
    *out = (int64_t)ticks;
    return 0;
}

static int convert_temporal(const struct conv *c, struct lake_value *v)
{
    enum lit_kind k = c->lit->lit;
    enum lake_type t = c->t->type;
    const char *s = c->lit->text;
    size_t n = c->lit->len, used;
    if (t == LT_TIME) {
        int64_t nanos;
        if (k != LIT_TIME && k != LIT_STRING)
            return wrong_kind(c, "a TIME or a string");
        if (!parse_clock(s, n, &used, &nanos) || used != n)
            return refuse(c, "expected a time HH:MM[:SS[.fraction]]");
        if (nanos % 1000 != 0)
            return refuse(c, "finer than the column's unit");
        v->i = nanos / 1000;
        return 0;
    }
    if (k != LIT_DATE && k != LIT_TIMESTAMP && k != LIT_TIMESTAMPTZ && k != LIT_STRING)
        return wrong_kind(c, t == LT_DATE ? "a DATE or a string" : "a TIMESTAMP or a string");
    struct stamp st;
    if (!parse_stamp(s, n, &st) || (k == LIT_DATE && (st.has_time || st.has_offset)))
        return refuse(c, k == LIT_DATE ? "expected a date YYYY-MM-DD"
                                       : "expected YYYY-MM-DD[ HH:MM[:SS[.fraction]]][offset]");
    return stamp_ticks(c, &st, &v->i);
}

static int convert_bytes(const struct conv *c, struct lake_value *v)
{
    enum lit_kind k = c->lit->lit;
    enum lake_type t = c->t->type;
    if (t == LT_UUID) {
        if (k != LIT_UUID && k != LIT_STRING)
            return wrong_kind(c, "a UUID or a string");
        uint8_t *b = arena_alloc(c->a, 16);
        if (!b)
            return error_nomem(c->err);
        if (!str_parse_uuid(c->lit->text, c->lit->len, b))
            return refuse(c, "expected a uuid as 8-4-4-4-12 hex digits");
        v->bytes.data = b;
        v->bytes.len = 16;
        return 0;
    }
    if (k != LIT_STRING && !(t == LT_BINARY && k == LIT_BINARY))
        return wrong_kind(c, t == LT_BINARY ? "a string or a hex literal X'..'" : "a string");
    v->bytes.data = (const uint8_t *)c->lit->text;
    v->bytes.len = c->lit->len;
    return 0;
}

int expr_literal_convert(struct arena *a, const struct expr *lit, const struct expr_type *t,
                         struct bval *out, struct error *err)
{
    struct conv c = {a, lit, t, err};
    memset(out, 0, sizeof *out);
    struct lake_value *v = &out->v;
    int r;
    switch (expr_vkind(t->type)) {
    case VK_BOOL:
        if (lit->lit != LIT_TRUE && lit->lit != LIT_FALSE)
            return wrong_kind(&c, "TRUE or FALSE");
        v->b = lit->lit == LIT_TRUE;
        r = 0;
        break;
    case VK_UINT64: r = convert_integer(&c, v); break;
    case VK_INT:
        r = lake_type_is_temporal(t->type) || t->type == LT_TIME ? convert_temporal(&c, v)
                                                                 : convert_integer(&c, v);
        break;
    case VK_FLOAT: r = convert_float(&c, v); break;
    case VK_DEC: r = convert_decimal(&c, v); break;
    case VK_BYTES: r = convert_bytes(&c, v); break;
    default: return refuse(&c, "a value of this type cannot be compared");
    }
    if (r != 0)
        return -1;
    return expr_value_bound(a, t, out) == 0 ? 0 : error_nomem(err);
}

/* ---- bound bytes ---- */

int expr_value_bound(struct arena *a, const struct expr_type *t, struct bval *out)
{
    uint8_t tmp[16];
    const uint8_t *src = tmp;
    size_t n = 0;
    const struct lake_value *v = &out->v;
    switch (t->type) {
    case LT_BOOLEAN: tmp[0] = v->b, n = 1; break;
    case LT_UINT64: n = bound_decimal_minimal((i128)v->u, tmp); break;
    case LT_DECIMAL: n = bound_decimal_minimal(v->dec, tmp); break;
    case LT_FLOAT: {
        float f = (float)v->d;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        le_store(tmp, bits, 4);
        n = 4;
        break;
    }
    case LT_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &v->d, 8);
        le_store(tmp, bits, 8);
        n = 8;
        break;
    }
    case LT_STRING:
    case LT_JSON:
    case LT_UUID:
    case LT_BINARY:
        src = v->bytes.data;
        n = v->bytes.len;
        break;
    default: {
        /* Integers, dates, times, timestamps; seconds and milliseconds are
         * bounded in microseconds. */
        int64_t x = v->i, scale = t->type == LT_TIMESTAMP_S    ? 1000000
                                  : t->type == LT_TIMESTAMP_MS ? 1000
                                                               : 1;
        n = bound_int_width(t->type);
        if (n == 0 || __builtin_mul_overflow(x, scale, &x)) {
            out->bound = NULL; /* no bound form: nothing prunes on it */
            out->bound_len = 0;
            return 0;
        }
        le_store(tmp, (uint64_t)x, n);
    }
    }
    uint8_t *b = arena_alloc(a, n ? n : 1);
    if (!b)
        return -1;
    if (n)
        memcpy(b, src, n);
    out->bound = b;
    out->bound_len = n;
    return 0;
}

/* ---- values from text ---- */

static bool text_int(const char *s, size_t n, i128 lo, i128 hi, i128 *out)
{
    i128 m;
    int scale;
    if (n == 0 || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) ||
        !expr_number_exact(s, n, &m, &scale) || scale != 0 || m < lo || m > hi)
        return false;
    for (size_t k = 0; k < n; k++)
        if (s[k] == '.' || s[k] == 'e' || s[k] == 'E')
            return false;
    *out = m;
    return true;
}

static bool text_value(struct arena *a, const struct expr_type *t, const char *s, size_t n,
                       bool wire, struct lake_value *out)
{
    memset(out, 0, sizeof *out);
    i128 lo, hi, m;
    if (t->type == LT_BOOLEAN) {
        bool yes = n == 4 && memcmp(s, "true", 4) == 0;
        out->b = yes;
        return yes || (n == 5 && memcmp(s, "false", 5) == 0);
    }
    if (expr_int_range(t->type, &lo, &hi) || (wire && t->type == LT_TIMESTAMP_NS)) {
        if (t->type == LT_TIMESTAMP_NS)
            lo = INT64_MIN, hi = INT64_MAX;
        if (!text_int(s, n, lo, hi, &m))
            return false;
        if (t->type == LT_UINT64)
            out->u = (uint64_t)m;
        else
            out->i = (int64_t)m;
        return true;
    }
    switch (t->type) {
    case LT_FLOAT:
    case LT_DOUBLE: return text_float(s, n, t->type == LT_FLOAT, &out->d);
    case LT_DECIMAL: {
        int scale;
        if (!expr_number_exact(s, n, &m, &scale) || scale > t->scale ||
            !expr_rescale(m, scale, t->scale, &m))
            return false;
        out->dec = m;
        return true;
    }
    case LT_TIME: {
        size_t used;
        int64_t nanos;
        if (!parse_clock(s, n, &used, &nanos) || used != n || nanos % 1000 != 0)
            return false;
        out->i = nanos / 1000;
        return true;
    }
    case LT_STRING:
    case LT_JSON:
        out->bytes.data = (const uint8_t *)s;
        out->bytes.len = n;
        return true;
    case LT_UUID: {
        uint8_t *b = arena_alloc(a, 16);
        out->bytes.data = b;
        out->bytes.len = 16;
        return b && str_parse_uuid(s, n, b);
    }
    case LT_BINARY: {
        struct buf raw = BUF_INIT;
        bool ok = base64_decode(s, n, &raw) == NULL;
        size_t len = raw.len;
        uint8_t *b = ok ? arena_alloc(a, len ? len : 1) : NULL;
        if (b && len)
            memcpy(b, raw.data, len);
        buf_free(&raw);
        out->bytes.data = b;
        out->bytes.len = len;
        return b != NULL;
    }
    default: break;
    }
    struct stamp st;
    if (!lake_type_is_temporal(t->type) || !parse_stamp(s, n, &st) ||
        (st.has_offset && t->type != LT_TIMESTAMPTZ))
        return false;
    int64_t per = expr_nanos_per_tick(t->type);
    i128 ticks = st.nanos / per;
    if (st.nanos % per != 0 || ticks < INT64_MIN || ticks > INT64_MAX)
        return false;
    out->i = (int64_t)ticks;
    return true;
}

bool expr_parse_wire(struct arena *a, const struct expr_type *t, const char *text,
                     struct lake_value *out)
{
    return text_value(a, t, text, strlen(text), true, out);
}

bool expr_parse_bound_text(struct arena *a, const struct expr_type *t, const char *text, size_t len,
                           struct lake_value *out)
{
    return text_value(a, t, text, len, false, out);
}
