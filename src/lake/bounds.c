#include "lake/bounds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base64.h"
#include "util/numfmt.h"
#include "util/jsonnum.h"
#include "util/strutil.h"
#include "util/timefmt.h"
#include "util/bytes.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

enum {
    MAX_DECIMAL_PRECISION = 38,
    MAX_DECIMAL_BYTES = 16,
    MAX_UINT64_BYTES = 9,
    TEXT_MAX = 96 /* any number or temporal text, NUL included */
};

static const int64_t MICROS_PER_DAY = INT64_C(86400000000);

static const char *const NO_MEMORY = "out of memory";

const char *bound_fix_name(enum bound_fix f)
{
    switch (f) {
    case BOUND_KEEP: return "keep";
    case BOUND_CANONICAL: return "canonical";
    case BOUND_DROP_UNDECODABLE: return "undecodable";
    case BOUND_DROP_NAN: return "nan";
    case BOUND_DROP_INVERTED: return "inverted";
    case BOUND_DROP_TOO_LONG: return "too_long";
    }
    return "unknown";
}

bool bound_type_has_bounds(enum lake_type t)
{
    return (int)t >= 0 && t < LT_VARIANT;
}

/* Every refusal is the caller's input (ERR_INVALID) but running out of
 * memory; the message is the reason itself ("nan_bound" is also typed). */
static int fail(struct error *err, const char *reason)
{
    if (reason == NO_MEMORY)
        error_nomem(err);
    else if (strcmp(reason, "nan_bound") == 0)
        error_fail_reason(err, ERR_INVALID, "nan_bound", "%s", reason);
    else
        error_fail(err, ERR_INVALID, "%s", reason);
    return -1;
}

/* ---- byte forms ---- */

/* Big-endian two's complement of 1..16 bytes. */
static i128 get_be(const uint8_t *b, size_t n)
{
    u128 u = 0;
    for (size_t i = 0; i < n; i++)
        u = u << 8 | b[i];
    if (n < 16 && (b[0] & 0x80))
        u |= ~(u128)0 << (8 * n);
    return (i128)u;
}

/* Bytes of the minimal two's complement form of v (1..16). */
static size_t minimal_len(i128 v)
{
    size_t n = 1;
    while (n < 16) {
        i128 lim = (i128)1 << (8 * n - 1);
        if (v >= -lim && v < lim)
            break;
        n++;
    }
    return n;
}

static void put_be(uint8_t *b, size_t n, i128 v)
{
    u128 u = (u128)v;
    for (size_t i = 0; i < n; i++)
        b[n - 1 - i] = (uint8_t)(u >> (8 * i));
}

size_t bound_decimal_minimal(__int128 unscaled, uint8_t out[16])
{
    size_t n = minimal_len(unscaled);
    put_be(out, n, unscaled);
    return n;
}

static i128 pow10_i128(int p)
{
    i128 v = 1;
    for (int i = 0; i < p; i++)
        v *= 10;
    return v;
}

static bool decimal_params_ok(int precision, int scale)
{
    return precision >= 1 && precision <= MAX_DECIMAL_PRECISION && scale >= 0 && scale <= precision;
}

static uint32_t float_bits(const uint8_t *b)
{
    return le_load32(b);
}

static uint64_t double_bits(const uint8_t *b)
{
    return le_load64(b);
}

static float float_of(const uint8_t *b)
{
    uint32_t u = float_bits(b);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static double double_of(const uint8_t *b)
{
    uint64_t u = double_bits(b);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* ---- check ---- */

static int check_int32(const uint8_t *b, size_t n, int64_t lo, int64_t hi, struct error *err)
{
    if (n != 4)
        return fail(err, "an int bound is 4 bytes");
    int32_t v = (int32_t)le_load32(b);
    if (v < lo || v > hi)
        return fail(err, "bound outside the column type's range");
    return 0;
}

int bound_check(enum lake_type t, int precision, int scale, const uint8_t *b, size_t n,
                struct error *err)
{
    switch (t) {
    case LT_BOOLEAN:
        if (n != 1 || b[0] > 1)
            return fail(err, "a boolean bound is one byte, 00 or 01");
        return 0;
    case LT_INT8: return check_int32(b, n, INT8_MIN, INT8_MAX, err);
    case LT_INT16: return check_int32(b, n, INT16_MIN, INT16_MAX, err);
    case LT_UINT8: return check_int32(b, n, 0, UINT8_MAX, err);
    case LT_UINT16: return check_int32(b, n, 0, UINT16_MAX, err);
    case LT_INT:
    case LT_DATE: return check_int32(b, n, INT32_MIN, INT32_MAX, err);
    case LT_LONG:
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP:
    case LT_TIMESTAMP_NS:
    case LT_TIMESTAMPTZ:
        if (n != 8)
            return fail(err, "a long or timestamp bound is 8 bytes");
        return 0;
    case LT_UINT32:
        if (n != 8)
            return fail(err, "a uint32 bound is 8 bytes (an Iceberg long)");
        if ((int64_t)le_load64(b) < 0 || (int64_t)le_load64(b) > (int64_t)UINT32_MAX)
            return fail(err, "bound outside the column type's range");
        return 0;
    case LT_TIME:
        if (n != 8)
            return fail(err, "a time bound is 8 bytes");
        if ((int64_t)le_load64(b) < 0 || (int64_t)le_load64(b) >= MICROS_PER_DAY)
            return fail(err, "a time bound must lie within one day");
        return 0;
    case LT_UINT64: {
        if (n < 1 || n > MAX_UINT64_BYTES)
            return fail(err, "a uint64 bound is 1 to 9 bytes (decimal(20,0))");
        i128 v = get_be(b, n);
        if (v < 0 || v > (i128)UINT64_MAX)
            return fail(err, "bound outside the column type's range");
        return 0;
    }
    case LT_DECIMAL: {
        if (!decimal_params_ok(precision, scale))
            return fail(err, "invalid decimal precision or scale");
        if (n < 1 || n > MAX_DECIMAL_BYTES)
            return fail(err, "a decimal bound is 1 to 16 bytes");
        i128 v = get_be(b, n), lim = pow10_i128(precision);
        if (v <= -lim || v >= lim)
            return fail(err, "decimal bound exceeds the column's precision");
        return 0;
    }
    case LT_FLOAT:
        if (n != 4)
            return fail(err, "a float bound is 4 bytes");
        return 0;
    case LT_DOUBLE:
        if (n != 8)
            return fail(err, "a double bound is 8 bytes");
        return 0;
    case LT_STRING:
    case LT_JSON:
        if (!str_utf8_valid((const char *)b, n, NULL))
            return fail(err, "a string bound must be valid UTF-8");
        return 0;
    case LT_UUID:
        if (n != 16)
            return fail(err, "a uuid bound is 16 bytes");
        return 0;
    case LT_BINARY: return 0;
    case LT_VARIANT:
    case LT_LIST:
    case LT_STRUCT:
    case LT_MAP:
    case LT__COUNT: break;
    }
    return fail(err, "the column type has no bounds");
}

/* ---- order ---- */

static int cmp_i128(i128 a, i128 b)
{
    return (a > b) - (a < b);
}

static int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = n ? memcmp(a, b, n) : 0;
    if (c != 0)
        return c < 0 ? -1 : 1;
    return (an > bn) - (an < bn);
}

/* IEEE bit patterns mapped to a monotone integer: -0.0 just below +0.0. */
static i128 float_key(uint32_t bits)
{
    return (bits & 0x80000000u) ? -(i128)(bits & 0x7fffffffu) - 1 : (i128)bits;
}

static i128 double_key(uint64_t bits)
{
    return (bits >> 63) ? -(i128)(bits & UINT64_C(0x7fffffffffffffff)) - 1 : (i128)bits;
}

int bound_compare(enum lake_type t, const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t width = bound_int_width(t);
    if (width == 4 && an == 4 && bn == 4)
        return cmp_i128((int32_t)le_load32(a), (int32_t)le_load32(b));
    if (width == 8 && an == 8 && bn == 8)
        return cmp_i128((int64_t)le_load64(a), (int64_t)le_load64(b));
    switch (t) {
    case LT_UINT64:
    case LT_DECIMAL:
        if (an >= 1 && an <= MAX_DECIMAL_BYTES && bn >= 1 && bn <= MAX_DECIMAL_BYTES)
            return cmp_i128(get_be(a, an), get_be(b, bn));
        break;
    case LT_FLOAT:
        if (an == 4 && bn == 4)
            return cmp_i128(float_key(float_bits(a)), float_key(float_bits(b)));
        break;
    case LT_DOUBLE:
        if (an == 8 && bn == 8)
            return cmp_i128(double_key(double_bits(a)), double_key(double_bits(b)));
        break;
    default: break; /* byte-ordered, or a width that does not decode */
    }
    return cmp_bytes(a, an, b, bn);
}

/* ---- sanitize ---- */

enum bound_fix bound_sanitize(enum lake_type t, int precision, int scale, enum bound_role role,
                              uint8_t *b, size_t *n)
{
    if (*n > BOUND_MAX_BYTES)
        return BOUND_DROP_TOO_LONG;
    if (bound_check(t, precision, scale, b, *n, NULL) != 0)
        return BOUND_DROP_UNDECODABLE;
    switch (t) {
    case LT_FLOAT: {
        uint32_t bits = float_bits(b);
        if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu))
            return BOUND_DROP_NAN;
        if ((bits & 0x7fffffffu) != 0)
            return BOUND_KEEP;
        uint32_t want = role == BOUND_LOWER ? 0x80000000u : 0;
        if (bits == want)
            return BOUND_KEEP;
        le_store(b, want, 4);
        return BOUND_CANONICAL;
    }
    case LT_DOUBLE: {
        uint64_t bits = double_bits(b);
        const uint64_t exp = UINT64_C(0x7ff0000000000000), sign = UINT64_C(1) << 63;
        if ((bits & exp) == exp && (bits & ~(exp | sign)))
            return BOUND_DROP_NAN;
        if ((bits & ~sign) != 0)
            return BOUND_KEEP;
        uint64_t want = role == BOUND_LOWER ? sign : 0;
        if (bits == want)
            return BOUND_KEEP;
        le_store(b, want, 8);
        return BOUND_CANONICAL;
    }
    case LT_UINT64:
    case LT_DECIMAL: {
        i128 v = get_be(b, *n);
        size_t m = minimal_len(v);
        if (m == *n)
            return BOUND_KEEP;
        put_be(b, m, v);
        *n = m;
        return BOUND_CANONICAL;
    }
    default: return BOUND_KEEP;
    }
}

int bound_sanitize_pair(enum lake_type t, int precision, int scale, struct bound_slot *lower,
                        struct bound_slot *upper)
{
    struct bound_slot *slots[2] = {lower, upper};
    for (int i = 0; i < 2; i++) {
        struct bound_slot *s = slots[i];
        s->fix = BOUND_KEEP;
        if (!s->present)
            continue;
        s->fix = bound_sanitize(t, precision, scale, i == 0 ? BOUND_LOWER : BOUND_UPPER, s->data,
                                &s->len);
        if (s->fix != BOUND_KEEP && s->fix != BOUND_CANONICAL)
            s->present = false;
    }
    if (lower->present && upper->present &&
        bound_compare(t, lower->data, lower->len, upper->data, upper->len) > 0) {
        lower->present = upper->present = false;
        lower->fix = upper->fix = BOUND_DROP_INVERTED;
    }
    return (lower->fix != BOUND_KEEP) + (upper->fix != BOUND_KEEP);
}

/* ---- text ---- */

/* "-"? digits, the whole text; leading zeros accepted; refused beyond the
 * int128 range. */
static bool parse_i128(const char *s, size_t n, i128 *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && s[i] == '-') {
        neg = true;
        i++;
    }
    if (i == n)
        return false;
    u128 u = 0;
    const u128 cap = ~(u128)0 >> 1; /* INT128_MAX, above 10^38 */
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        u128 d = (u128)(s[i] - '0');
        if (u > (cap - d) / 10)
            return false;
        u = u * 10 + d;
    }
    *out = neg ? -(i128)u : (i128)u;
    return true;
}

static bool text_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* A float/double in decimal text (JSON number grammar, at most a few hundred
 * characters) or NaN / Infinity / -Infinity; correctly rounded to the width. */
static int parse_floating(const char *s, size_t n, bool single, double *out, struct error *err)
{
    if (text_is(s, n, "NaN")) {
        *out = NAN;
        return 0;
    }
    if (text_is(s, n, "Infinity") || text_is(s, n, "-Infinity")) {
        *out = s[0] == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    char tmp[TEXT_MAX * 4];
    if (!jsonnum_valid(s, n) || n >= sizeof tmp)
        return fail(err, "expected a decimal number, NaN, Infinity or -Infinity");
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    double v = single ? (double)strtof(tmp, NULL) : strtod(tmp, NULL);
    if (isinf(v))
        return fail(err, single ? "value out of range for float" : "value out of range for double");
    *out = v;
    return 0;
}

/* Integer range of the types whose value text is a decimal integer. */
static bool int_domain(enum lake_type t, i128 *lo, i128 *hi)
{
    switch (t) {
    case LT_INT8: *lo = INT8_MIN, *hi = INT8_MAX; return true;
    case LT_INT16: *lo = INT16_MIN, *hi = INT16_MAX; return true;
    case LT_INT:
    case LT_DATE: *lo = INT32_MIN, *hi = INT32_MAX; return true;
    case LT_UINT8: *lo = 0, *hi = UINT8_MAX; return true;
    case LT_UINT16: *lo = 0, *hi = UINT16_MAX; return true;
    case LT_UINT32: *lo = 0, *hi = UINT32_MAX; return true;
    case LT_UINT64: *lo = 0, *hi = UINT64_MAX; return true;
    case LT_TIME: *lo = 0, *hi = MICROS_PER_DAY - 1; return true;
    case LT_LONG:
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP:
    case LT_TIMESTAMP_NS:
    case LT_TIMESTAMPTZ: *lo = INT64_MIN, *hi = INT64_MAX; return true;
    default: return false;
    }
}

size_t bound_int_width(enum lake_type t)
{
    switch (t) {
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_UINT8:
    case LT_UINT16:
    case LT_DATE: return 4;
    case LT_LONG:
    case LT_UINT32:
    case LT_TIME:
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP:
    case LT_TIMESTAMP_NS:
    case LT_TIMESTAMPTZ: return 8;
    default: return 0;
    }
}

/* The bound bytes of an int_domain value of type t (little-endian at the
 * type's width; uint64 big-endian minimal) into out: the length, or 0 when
 * v is outside the type's range. */
static size_t encode_int(enum lake_type t, i128 v, uint8_t out[16])
{
    i128 lo, hi;
    if (!int_domain(t, &lo, &hi) || v < lo || v > hi)
        return 0;
    if (t == LT_UINT64)
        return bound_decimal_minimal(v, out);
    size_t n = bound_int_width(t);
    le_store(out, (uint64_t)(int64_t)v, n);
    return n;
}

static int64_t sign_extended(const uint8_t *b, size_t n)
{
    uint64_t v = le_load(b, n);
    if (n < 8 && (b[n - 1] & 0x80))
        v |= ~(uint64_t)0 << (8 * n);
    return (int64_t)v;
}

bool bound_adapt_width(enum lake_type t, const uint8_t *b, size_t n, uint8_t out[8],
                       size_t *out_len)
{
    switch (t) {
    case LT_LONG:
    case LT_UINT32:
        if (n != 4)
            return false;
        le_store(out, (uint64_t)sign_extended(b, 4), 8);
        *out_len = 8;
        return true;
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_UINT8:
    case LT_UINT16: {
        int64_t v = n == 8 ? sign_extended(b, 8) : 0;
        if (n != 8 || v < INT32_MIN || v > INT32_MAX)
            return false;
        le_store(out, (uint64_t)v, 4);
        *out_len = 4;
        return true;
    }
    case LT_DOUBLE: {
        if (n != 4)
            return false;
        uint32_t bits = le_load32(b);
        float f;
        memcpy(&f, &bits, sizeof f);
        double d = (double)f;
        uint64_t dbits;
        memcpy(&dbits, &d, sizeof dbits);
        le_store(out, dbits, 8);
        *out_len = 8;
        return true;
    }
    case LT_FLOAT: {
        if (n != 8)
            return false;
        uint64_t bits = le_load64(b);
        double d;
        memcpy(&d, &bits, sizeof d);
        float f = (float)d;
        if (isnan(d) || (double)f != d)
            return false;
        uint32_t fbits;
        memcpy(&fbits, &f, sizeof fbits);
        le_store(out, fbits, 4);
        *out_len = 4;
        return true;
    }
    default: return false;
    }
}

static int append_be_minimal(struct buf *out, i128 v, struct error *err)
{
    uint8_t b[16];
    size_t m = minimal_len(v);
    put_be(b, m, v);
    return buf_append(out, b, m) == 0 ? 0 : fail(err, NO_MEMORY);
}

int bound_encode_text(enum lake_type t, int precision, int scale, const char *value, size_t len,
                      struct buf *out, struct error *err)
{
    uint8_t b[16];
    i128 lo, hi;
    if (!bound_type_has_bounds(t))
        return fail(err, "the column type has no bounds");
    if (t == LT_BOOLEAN) {
        if (!text_is(value, len, "true") && !text_is(value, len, "false"))
            return fail(err, "expected true or false");
        b[0] = value[0] == 't';
        return buf_append(out, b, 1) == 0 ? 0 : fail(err, NO_MEMORY);
    }
    if (int_domain(t, &lo, &hi)) {
        i128 v;
        if (!parse_i128(value, len, &v))
            return fail(err, "expected a decimal integer");
        size_t n = encode_int(t, v, b);
        if (n == 0)
            return fail(err, "value outside the column type's range");
        return buf_append(out, b, n) == 0 ? 0 : fail(err, NO_MEMORY);
    }
    switch (t) {
    case LT_DECIMAL: {
        if (!decimal_params_ok(precision, scale))
            return fail(err, "invalid decimal precision or scale");
        i128 v, lim = pow10_i128(precision);
        if (!parse_i128(value, len, &v))
            return fail(err, "expected the unscaled decimal as an integer");
        if (v <= -lim || v >= lim)
            return fail(err, "value exceeds the column's precision");
        return append_be_minimal(out, v, err);
    }
    case LT_FLOAT:
    case LT_DOUBLE: {
        double v = 0;
        if (parse_floating(value, len, t == LT_FLOAT, &v, err) != 0)
            return -1;
        if (t == LT_FLOAT) {
            float f = (float)v;
            uint32_t u;
            memcpy(&u, &f, sizeof u);
            if (isnan(v))
                u = 0x7fc00000u;
            le_store(b, u, 4);
            return buf_append(out, b, 4) == 0 ? 0 : fail(err, NO_MEMORY);
        }
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        if (isnan(v))
            u = UINT64_C(0x7ff8000000000000);
        le_store(b, u, 8);
        return buf_append(out, b, 8) == 0 ? 0 : fail(err, NO_MEMORY);
    }
    case LT_STRING:
    case LT_JSON:
        if (!str_utf8_valid(value, len, NULL))
            return fail(err, "a string bound must be valid UTF-8");
        return buf_append(out, value, len) == 0 ? 0 : fail(err, NO_MEMORY);
    case LT_UUID:
        if (!str_parse_uuid(value, len, b))
            return fail(err, "expected a uuid as 8-4-4-4-12 hex digits");
        return buf_append(out, b, 16) == 0 ? 0 : fail(err, NO_MEMORY);
    case LT_BINARY: {
        size_t before = out->len;
        const char *bad = base64_decode(value, len, out);
        if (bad) {
            out->len = before;
            if (out->data)
                out->data[before] = '\0';
            return fail(err, bad);
        }
        return 0;
    }
    default: return fail(err, "the column type has no bounds");
    }
}

/* Decoded numeric value of an integer-like bound (bound_check passed). */
static i128 int_value(enum lake_type t, const uint8_t *b, size_t n)
{
    if (t == LT_UINT64)
        return get_be(b, n);
    return n == 4 ? (i128)(int32_t)le_load32(b) : (i128)(int64_t)le_load64(b);
}

static size_t format_int(i128 v, char *out)
{
    return numfmt_decimal(v, 0, out);
}

int bound_decode_text(enum lake_type t, int precision, int scale, const uint8_t *b, size_t n,
                      struct buf *out, struct error *err)
{
    if (bound_check(t, precision, scale, b, n, err) != 0)
        return -1;
    char text[TEXT_MAX];
    size_t tn;
    i128 lo, hi;
    if (t == LT_BOOLEAN) {
        tn = (size_t)snprintf(text, sizeof text, "%s", b[0] ? "true" : "false");
    } else if (int_domain(t, &lo, &hi)) {
        tn = format_int(int_value(t, b, n), text);
    } else {
        switch (t) {
        case LT_DECIMAL: tn = format_int(get_be(b, n), text); break;
        case LT_FLOAT:
        case LT_DOUBLE: {
            double v = t == LT_FLOAT ? (double)float_of(b) : double_of(b);
            if (isnan(v))
                tn = (size_t)snprintf(text, sizeof text, "NaN");
            else if (isinf(v))
                tn = (size_t)snprintf(text, sizeof text, "%s", v < 0 ? "-Infinity" : "Infinity");
            else
                tn = numfmt_shortest(v, t == LT_FLOAT, text);
            break;
        }
        case LT_UUID: tn = str_format_uuid(b, text); break;
        case LT_BINARY: return base64_encode(out, b, n) == 0 ? 0 : fail(err, NO_MEMORY);
        default: /* string, json */ return buf_append(out, b, n) == 0 ? 0 : fail(err, NO_MEMORY);
        }
    }
    return buf_append(out, text, tn) == 0 ? 0 : fail(err, NO_MEMORY);
}

/* ---- JSON ---- */

static json_t *raw_number(const char *text, size_t n, struct error *err)
{
    json_t *v = jsonnum_new(text, n);
    if (!v)
        fail(err, NO_MEMORY);
    return v;
}

static json_t *or_oom(json_t *v, struct error *err)
{
    if (!v)
        fail(err, NO_MEMORY);
    return v;
}

json_t *bound_to_json(enum lake_type t, int precision, int scale, const uint8_t *b, size_t n,
                      struct error *err)
{
    if (bound_check(t, precision, scale, b, n, err) != 0)
        return NULL;
    char text[TEXT_MAX];
    size_t tn = 0;
    switch (t) {
    case LT_BOOLEAN: return or_oom(json_boolean(b[0] != 0), err);
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_UINT8:
    case LT_UINT16:
    case LT_LONG:
    case LT_UINT32: return or_oom(json_integer((json_int_t)int_value(t, b, n)), err);
    case LT_UINT64: {
        i128 v = get_be(b, n);
        if (v <= INT64_MAX)
            return or_oom(json_integer((json_int_t)v), err);
        tn = format_int(v, text);
        return raw_number(text, tn, err);
    }
    case LT_DECIMAL:
        tn = numfmt_decimal(get_be(b, n), scale, text);
        return raw_number(text, tn, err);
    case LT_FLOAT:
    case LT_DOUBLE: {
        double v = t == LT_FLOAT ? (double)float_of(b) : double_of(b);
        if (isnan(v)) {
            fail(err, "nan_bound");
            return NULL;
        }
        if (isinf(v))
            return or_oom(json_string(v < 0 ? "-Infinity" : "Infinity"), err);
        tn = numfmt_shortest(v, t == LT_FLOAT, text);
        return raw_number(text, tn, err);
    }
    case LT_DATE: tn = time_format_local_date((int32_t)le_load32(b), text, sizeof text); break;
    case LT_TIME: tn = time_format_local_time((int64_t)le_load64(b), 6, text, sizeof text); break;
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP:
        tn = time_format_local_datetime((int64_t)le_load64(b), 6, text, sizeof text);
        break;
    case LT_TIMESTAMP_NS:
        tn = time_format_local_datetime((int64_t)le_load64(b), 9, text, sizeof text);
        break;
    case LT_TIMESTAMPTZ:
        tn = time_format_instant((int64_t)le_load64(b), 6, text, sizeof text);
        break;
    case LT_STRING:
    case LT_JSON: return or_oom(json_stringn((const char *)b, n), err);
    case LT_UUID: tn = str_format_uuid(b, text); break;
    case LT_BINARY: {
        struct buf s = BUF_INIT;
        if (base64_encode(&s, b, n) != 0) {
            fail(err, NO_MEMORY);
            return NULL;
        }
        json_t *v = json_stringn(s.data ? s.data : "", s.len);
        buf_free(&s);
        return or_oom(v, err);
    }
    default: fail(err, "the column type has no bounds"); return NULL;
    }
    if (tn == 0) {
        fail(err, "bound cannot be rendered");
        return NULL;
    }
    return or_oom(json_stringn(text, tn), err);
}
