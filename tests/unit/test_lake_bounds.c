/* Unit tests for src/lake/bounds: the Iceberg single-value bounds codec,
 * against tests/vectors/bounds_vectors.json (`vectors`, `bound_normalization`
 * and their `wire` renderings), plus refusals, ordering, sanitizing of
 * pairs, and the exact-number JSON serializer (util/jsonnum). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <math.h>

#include "lake/bounds.h"
#include "lake/types.h"
#include "util/base64.h"
#include "util/buf.h"
#include "util/jsonnum.h"
#include "util/timefmt.h"
#include "vectors_testlib.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#ifndef HL_SHARED_VECTORS
#error "HL_SHARED_VECTORS must name the shared vectors directory"
#endif

#define VECTORS_FILE HL_SHARED_VECTORS "/bounds_vectors.json"

static json_t *load_vectors(void)
{
    return vectors_load_exact(VECTORS_FILE);
}

static long num_long(const json_t *v)
{
    const char *t = vectors_num_token(v);
    return t ? strtol(t, NULL, 10) : -1;
}

static bool unhex(const char *hex, struct buf *out)
{
    size_t n = strlen(hex);
    if (n % 2)
        return false;
    for (size_t i = 0; i < n; i += 2) {
        char pair[3] = {hex[i], hex[i + 1], '\0'};
        char *end;
        unsigned long v = strtoul(pair, &end, 16);
        if (*end)
            return false;
        uint8_t b = (uint8_t)v;
        buf_append(out, &b, 1);
    }
    return true;
}

static void hex_of(const uint8_t *b, size_t n, char *out, size_t out_size)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 3 <= out_size; i++)
        k += (size_t)snprintf(out + k, out_size - k, "%02x", b[i]);
    out[k] = '\0';
}

static const uint8_t *bytes(const struct buf *b)
{
    return (const uint8_t *)(b->data ? b->data : "");
}

static enum lake_type type_named(const char *name)
{
    enum lake_type t;
    if (!name || lake_type_lookup(name, &t, NULL) != LAKE_TYPE_OK)
        fail_msg("unknown type '%s' in the vectors", name ? name : "(null)");
    return t;
}

/* type_params, or the catalog default decimal(38,0) when absent. */
static void params_of(const json_t *vec, int *precision, int *scale)
{
    const json_t *tp = json_object_get(vec, "type_params");
    *precision = 38;
    *scale = 0;
    if (json_is_object(tp)) {
        *precision = (int)num_long(json_object_get(tp, "precision"));
        *scale = (int)num_long(json_object_get(tp, "scale"));
    }
}

/* ---- comparing numbers exactly ---- */

struct decnum {
    bool neg;
    char digits[128]; /* no leading or trailing zeros; "" for zero */
    long exp;         /* value = digits x 10^exp */
};

static bool dec_parse(const char *s, struct decnum *d)
{
    memset(d, 0, sizeof *d);
    char all[128];
    size_t na = 0;
    long frac = 0;
    if (*s == '-') {
        d->neg = true;
        s++;
    }
    bool seen = false, point = false;
    for (; *s && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.') {
            if (point)
                return false;
            point = true;
            continue;
        }
        if (*s < '0' || *s > '9' || na + 1 >= sizeof all)
            return false;
        all[na++] = *s;
        seen = true;
        if (point)
            frac++;
    }
    if (!seen)
        return false;
    long e = 0;
    if (*s == 'e' || *s == 'E') {
        char *end;
        e = strtol(s + 1, &end, 10);
        if (*end)
            return false;
    }
    size_t lead = 0;
    while (lead < na && all[lead] == '0')
        lead++;
    size_t end = na;
    long exp = e - frac;
    while (end > lead && all[end - 1] == '0') {
        end--;
        exp++;
    }
    memcpy(d->digits, all + lead, end - lead);
    d->digits[end - lead] = '\0';
    d->exp = d->digits[0] ? exp : 0;
    if (!d->digits[0])
        d->neg = false;
    return true;
}

/* Equal as exact decimal values (0.0 == 0.00, 1e-38 == 0.000...1). */
static bool dec_equal(const char *a, const char *b)
{
    struct decnum x, y;
    return dec_parse(a, &x) && dec_parse(b, &y) && x.neg == y.neg && x.exp == y.exp &&
           strcmp(x.digits, y.digits) == 0;
}

/* Same bits once read at the type's width (so -0.0 != 0.0). */
static bool float_text_equal(const char *a, const char *b, bool single)
{
    if (single) {
        float x = strtof(a, NULL), y = strtof(b, NULL);
        return memcmp(&x, &y, sizeof x) == 0;
    }
    double x = strtod(a, NULL), y = strtod(b, NULL);
    return memcmp(&x, &y, sizeof x) == 0;
}

static bool is_integer_type(enum lake_type t)
{
    switch (t) {
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_LONG:
    case LT_UINT8:
    case LT_UINT16:
    case LT_UINT32:
    case LT_UINT64: return true;
    default: return false;
    }
}

/* Compares bound_to_json output with a vector's wire value; prints and
 * returns false on a mismatch. */
static bool wire_matches(enum lake_type t, int scale, const json_t *got, const json_t *want,
                         const char *what)
{
    char *text = jsonnum_dumps(got, JSON_COMPACT);
    bool ok = false;
    const char *tok = vectors_num_token(want);
    if (!text) {
        print_error("%s: cannot serialize the rendering\n", what);
        return false;
    }
    if (tok) {
        bool numeric = json_is_integer(got) || jsonnum_is(got);
        if (!numeric) {
            ok = false;
        } else if (is_integer_type(t)) {
            ok = strcmp(text, tok) == 0; /* exact token */
        } else if (t == LT_DECIMAL) {
            /* Value exactly equal, written plain with `scale` fraction digits. */
            const char *dot = strchr(text, '.');
            size_t frac = dot ? strlen(dot + 1) : 0;
            ok = dec_equal(text, tok) && !strpbrk(text, "eE") && frac == (size_t)scale;
        } else if (t == LT_FLOAT || t == LT_DOUBLE) {
            /* Same value at the width, and the same shortest text as the
             * vectors (Python's repr layout). */
            ok = float_text_equal(text, tok, t == LT_FLOAT) && strcmp(text, tok) == 0;
        }
    } else {
        ok = json_equal(got, want);
    }
    if (!ok) {
        char *w = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY);
        print_error("%s: rendered %s, vectors say %s\n", what, text, tok ? tok : w);
        free(w);
    }
    free(text);
    return ok;
}

/* ---- the 109 vectors ---- */

static bool is_nan_bytes(enum lake_type t, const uint8_t *b, size_t n)
{
    if (t == LT_FLOAT && n == 4) {
        float f;
        memcpy(&f, b, 4); /* the test host is little-endian, as is the form */
        return isnan(f);
    }
    if (t == LT_DOUBLE && n == 8) {
        double d;
        memcpy(&d, b, 8);
        return isnan(d);
    }
    return false;
}

/* Decoded value text equals the vector's value text: floats by value
 * (NaN == NaN), everything else byte for byte. */
static bool value_text_equal(enum lake_type t, const struct buf *got, const char *want,
                             size_t want_len)
{
    if (t == LT_FLOAT || t == LT_DOUBLE) {
        if (strcmp(want, "NaN") == 0 || strcmp(got->data, "NaN") == 0)
            return strcmp(want, got->data) == 0;
        if (strstr(want, "Infinity") || strstr(got->data, "Infinity"))
            return strcmp(want, got->data) == 0;
        return float_text_equal(got->data, want, t == LT_FLOAT);
    }
    return got->len == want_len && (want_len == 0 || memcmp(got->data, want, want_len) == 0);
}

static void test_vectors(void **state)
{
    (void)state;
    json_t *root = load_vectors();
    assert_string_equal(json_string_value(json_object_get(root, "format")),
                        "hoglake-bounds-vectors");
    const json_t *vectors = json_object_get(root, "vectors");
    assert_true(json_is_array(vectors));
    assert_int_equal(json_array_size(vectors), 109);

    int failures = 0, encoded = 0, roundtrips = 0, wires = 0, refused = 0, encode_only = 0;
    size_t i;
    const json_t *vec;
    json_array_foreach (vectors, i, vec) {
        enum lake_type t = type_named(json_string_value(json_object_get(vec, "type")));
        int p, s;
        params_of(vec, &p, &s);
        const json_t *jv = json_object_get(vec, "value");
        const char *value = json_string_value(jv);
        size_t value_len = json_string_length(jv);
        const char *hex = json_string_value(json_object_get(vec, "hex"));
        const char *verify = json_string_value(json_object_get(vec, "verify"));
        char what[160];
        snprintf(what, sizeof what, "vector %zu (%s %s)", i, lake_type_name(t), hex);
        assert_non_null(value);
        assert_non_null(hex);
        struct buf want = BUF_INIT, enc = BUF_INIT, dec = BUF_INIT, re = BUF_INIT;
        assert_true(unhex(hex, &want));
        bool nan = is_nan_bytes(t, bytes(&want), want.len);
        struct error why;

        /* encode(value) == hex; a NaN token encodes the canonical quiet NaN,
         * so a payload NaN's bytes are matched as "a NaN" */
        if (bound_encode_text(t, p, s, value, value_len, &enc, &why) != 0) {
            print_error("%s: encode refused: %s\n", what, why.msg);
            failures++;
        } else if (nan ? !is_nan_bytes(t, bytes(&enc), enc.len)
                       : (enc.len != want.len ||
                          (enc.len && memcmp(enc.data, want.data, enc.len) != 0))) {
            char h[80];
            hex_of(bytes(&enc), enc.len, h, sizeof h);
            print_error("%s: encoded %s\n", what, h);
            failures++;
        } else {
            encoded++;
        }
        if (nan && (strcmp(hex, "0000c07f") == 0 || strcmp(hex, "000000000000f87f") == 0) &&
            (enc.len != want.len || memcmp(enc.data, want.data, enc.len) != 0)) {
            print_error("%s: the canonical NaN must encode bit-exactly\n", what);
            failures++;
        }

        /* bound_check, decode -> value text, re-encode. Run on encode_only
         * vectors too: their marker is about a Python decode bug. */
        if (verify && strcmp(verify, "encode_only") == 0)
            encode_only++;
        if (bound_check(t, p, s, bytes(&want), want.len, &why) != 0) {
            print_error("%s: bound_check refused: %s\n", what, why.msg);
            failures++;
        } else if (bound_decode_text(t, p, s, bytes(&want), want.len, &dec, &why) != 0) {
            print_error("%s: decode refused: %s\n", what, why.msg);
            failures++;
        } else if (!value_text_equal(t, &dec, value, value_len)) {
            print_error("%s: decoded '%s', value is '%s'\n", what, dec.data, value);
            failures++;
        } else if (bound_encode_text(t, p, s, dec.data ? dec.data : "", dec.len, &re, &why) != 0) {
            print_error("%s: re-encode refused: %s\n", what, why.msg);
            failures++;
        } else if (nan ? !is_nan_bytes(t, bytes(&re), re.len)
                       : (re.len != want.len ||
                          (re.len && memcmp(re.data, want.data, re.len) != 0))) {
            print_error("%s: re-encode differs\n", what);
            failures++;
        } else {
            roundtrips++;
        }

        /* the JSON rendering */
        const json_t *wire = json_object_get(vec, "wire");
        const char *wire_refused = json_string_value(json_object_get(vec, "wire_refused"));
        json_t *got = bound_to_json(t, p, s, bytes(&want), want.len, &why);
        if (wire_refused) {
            if (got || strcmp(why.msg, wire_refused) != 0) {
                print_error("%s: rendering should be refused as %s\n", what, wire_refused);
                failures++;
            } else {
                refused++;
            }
        } else if (!wire) {
            print_error("%s: has neither wire nor wire_refused\n", what);
            failures++;
        } else if (!got) {
            print_error("%s: rendering refused: %s\n", what, why.msg);
            failures++;
        } else if (!wire_matches(t, s, got, wire, what)) {
            failures++;
        } else {
            wires++;
        }
        json_decref(got);
        buf_free(&want);
        buf_free(&enc);
        buf_free(&dec);
        buf_free(&re);
    }
    print_message("vectors: %d encoded, %d round-tripped (%d marked encode_only), %d wire "
                  "renderings matched, %d refused as the vectors say\n",
                  encoded, roundtrips, encode_only, wires, refused);
    json_decref(root);
    assert_int_equal(failures, 0);
    assert_int_equal(encoded, 109);
    assert_int_equal(roundtrips, 109);
    assert_int_equal(wires + refused, 109);
    assert_int_equal(refused, 4);
}

static void test_bound_normalization(void **state)
{
    (void)state;
    json_t *root = load_vectors();
    const json_t *cases = json_object_get(json_object_get(root, "bound_normalization"), "cases");
    assert_int_equal(json_array_size(cases), 13);
    int failures = 0, fixed_points = 0;
    size_t i;
    const json_t *c;
    json_array_foreach (cases, i, c) {
        enum lake_type t = type_named(json_string_value(json_object_get(c, "type")));
        int p, s;
        params_of(c, &p, &s);
        const char *role = json_string_value(json_object_get(c, "role"));
        const char *raw_hex = json_string_value(json_object_get(c, "raw_hex"));
        const char *stored_hex = json_string_value(json_object_get(c, "stored_hex"));
        assert_non_null(role);
        char what[128];
        snprintf(what, sizeof what, "normalization %zu (%s %s %s)", i, lake_type_name(t), role,
                 raw_hex);
        struct buf raw = BUF_INIT, stored = BUF_INIT;
        assert_true(unhex(raw_hex, &raw));
        assert_true(unhex(stored_hex, &stored));
        bool fixed = strcmp(raw_hex, stored_hex) == 0;
        fixed_points += fixed;

        struct error why;
        json_t *rw = bound_to_json(t, p, s, bytes(&raw), raw.len, &why);
        if (!rw || !wire_matches(t, s, rw, json_object_get(c, "raw_wire"), what))
            failures++;
        json_decref(rw);

        uint8_t b[16];
        size_t n = raw.len;
        memcpy(b, raw.data, n);
        enum bound_fix fix =
            bound_sanitize(t, p, s, strcmp(role, "lower") == 0 ? BOUND_LOWER : BOUND_UPPER, b, &n);
        if (fix != (fixed ? BOUND_KEEP : BOUND_CANONICAL) || n != stored.len ||
            memcmp(b, stored.data, n) != 0) {
            char h[40];
            hex_of(b, n, h, sizeof h);
            print_error("%s: sanitized to %s (%s), want %s\n", what, h, bound_fix_name(fix),
                        stored_hex);
            failures++;
        }
        json_t *sw = bound_to_json(t, p, s, b, n, &why);
        if (!sw || !wire_matches(t, s, sw, json_object_get(c, "stored_wire"), what))
            failures++;
        json_decref(sw);
        buf_free(&raw);
        buf_free(&stored);
    }
    json_decref(root);
    assert_int_equal(failures, 0);
    assert_int_equal(fixed_points, 9);
}

/* ---- refusals ---- */

struct refusal {
    enum lake_type t;
    int precision, scale;
    const char *hex;
};

static const struct refusal refusals[] = {
    {LT_BOOLEAN, 0, 0, ""},
    {LT_BOOLEAN, 0, 0, "02"},
    {LT_BOOLEAN, 0, 0, "ff"},
    {LT_BOOLEAN, 0, 0, "0100"},
    {LT_INT8, 0, 0, "80000000"},  /* 128 */
    {LT_INT8, 0, 0, "7fffffff"},  /* -129 */
    {LT_INT8, 0, 0, "7f"},        /* one byte */
    {LT_INT16, 0, 0, "00800000"}, /* 32768 */
    {LT_INT16, 0, 0, "ff7fffff"}, /* -32769 */
    {LT_INT, 0, 0, "000000"},     /* 3 bytes */
    {LT_INT, 0, 0, "0000000000"}, /* 5 bytes */
    {LT_INT, 0, 0, "0000000000000000"},
    {LT_UINT8, 0, 0, "ffffffff"},          /* -1 */
    {LT_UINT8, 0, 0, "00010000"},          /* 256 */
    {LT_UINT16, 0, 0, "00000100"},         /* 65536 */
    {LT_UINT16, 0, 0, "ffffffff"},         /* -1 */
    {LT_UINT32, 0, 0, "ffffffffffffffff"}, /* -1 */
    {LT_UINT32, 0, 0, "0000000001000000"}, /* 2^32 */
    {LT_UINT32, 0, 0, "ffffffff"},         /* 4 bytes */
    {LT_UINT64, 0, 0, ""},
    {LT_UINT64, 0, 0, "ff"},                   /* -1 */
    {LT_UINT64, 0, 0, "80"},                   /* -128 */
    {LT_UINT64, 0, 0, "010000000000000000"},   /* 2^64 */
    {LT_UINT64, 0, 0, "00000000000000000001"}, /* 10 bytes */
    {LT_LONG, 0, 0, "00000000"},
    {LT_LONG, 0, 0, "000000000000000000"},
    {LT_DATE, 0, 0, "0000000000000000"},
    {LT_TIME, 0, 0, "0060dd4114000000"}, /* 86400000000: one day */
    {LT_TIME, 0, 0, "ffffffffffffffff"}, /* -1 */
    {LT_TIME, 0, 0, "00000000"},
    {LT_TIMESTAMP_S, 0, 0, "00000000"},
    {LT_TIMESTAMP_MS, 0, 0, ""},
    {LT_TIMESTAMP, 0, 0, "00000000000000"},
    {LT_TIMESTAMP_NS, 0, 0, "000000000000000000"},
    {LT_TIMESTAMPTZ, 0, 0, "00000000"},
    {LT_DECIMAL, 2, 0, "64"}, /* 100 at precision 2 */
    {LT_DECIMAL, 2, 0, "9c"}, /* -100 */
    {LT_DECIMAL, 2, 0, "0064"},
    {LT_DECIMAL, 10, 2, ""},
    {LT_DECIMAL, 38, 0, "0000000000000000000000000000000001"}, /* 17 bytes */
    {LT_DECIMAL, 38, 0, "4b3b4ca85a86c47a098a224000000000"},   /* 10^38 */
    {LT_DECIMAL, 38, 0, "b4c4b357a5793b85f675ddc000000000"},   /* -10^38 */
    {LT_DECIMAL, 0, 0, "00"},                                  /* bad params */
    {LT_DECIMAL, 39, 0, "00"},
    {LT_DECIMAL, 5, 6, "00"},
    {LT_DECIMAL, 5, -1, "00"},
    {LT_FLOAT, 0, 0, "0000000000000000"},
    {LT_FLOAT, 0, 0, ""},
    {LT_DOUBLE, 0, 0, "0000803f"},
    {LT_STRING, 0, 0, "ff"},
    {LT_STRING, 0, 0, "c0af"},     /* overlong '/' */
    {LT_STRING, 0, 0, "eda080"},   /* surrogate U+D800 */
    {LT_STRING, 0, 0, "f4908080"}, /* above U+10FFFF */
    {LT_STRING, 0, 0, "e697"},     /* truncated */
    {LT_JSON, 0, 0, "7b80"},
    {LT_UUID, 0, 0, "000000000000000000000000000000"},
    {LT_UUID, 0, 0, "0000000000000000000000000000000000"},
    {LT_UUID, 0, 0, ""},
    {LT_VARIANT, 0, 0, ""},
    {LT_VARIANT, 0, 0, "01"},
    {LT_LIST, 0, 0, "00"},
    {LT_STRUCT, 0, 0, "00"},
    {LT_MAP, 0, 0, ""},
};

static void test_refusals(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(refusals); i++) {
        const struct refusal *r = &refusals[i];
        struct buf b = BUF_INIT;
        assert_true(unhex(r->hex, &b));
        struct error why;
        if (bound_check(r->t, r->precision, r->scale, bytes(&b), b.len, &why) == 0)
            fail_msg("%s '%s' should be refused", lake_type_name(r->t), r->hex);
        assert_true(strlen(why.msg) > 0);

        struct error why2;
        json_t *j = bound_to_json(r->t, r->precision, r->scale, bytes(&b), b.len, &why2);
        assert_null(j);
        assert_string_equal(why2.msg, why.msg);

        struct buf text = BUF_INIT;
        assert_int_equal(
            bound_decode_text(r->t, r->precision, r->scale, bytes(&b), b.len, &text, &why2), -1);
        buf_free(&text);

        uint8_t copy[32];
        size_t n = b.len;
        memcpy(copy, bytes(&b), n);
        assert_int_equal(bound_sanitize(r->t, r->precision, r->scale, BOUND_LOWER, copy, &n),
                         BOUND_DROP_UNDECODABLE);
        assert_int_equal(n, b.len);
        buf_free(&b);
    }
    /* what has no bounds at all */
    assert_false(bound_type_has_bounds(LT_VARIANT));
    assert_false(bound_type_has_bounds(LT_LIST));
    assert_false(bound_type_has_bounds(LT_STRUCT));
    assert_false(bound_type_has_bounds(LT_MAP));
    for (int t = 0; t < LT_VARIANT; t++)
        assert_true(bound_type_has_bounds((enum lake_type)t));
}

struct accept {
    enum lake_type t;
    int precision, scale;
    const char *hex;
};

static void test_edges_accepted(void **state)
{
    (void)state;
    static const struct accept ok[] = {
        {LT_TIME, 0, 0, "ff5fd71d14000000"}, /* last micro of the day */
        {LT_DECIMAL, 2, 0, "63"},            /* 99 */
        {LT_DECIMAL, 2, 0, "9d"},            /* -99 */
        {LT_DECIMAL, 2, 0, "0063"},          /* non-minimal still decodes */
        {LT_DECIMAL, 38, 0, "4b3b4ca85a86c47a098a223fffffffff"},
        {LT_UINT64, 0, 0, "00000000000000007f"}, /* non-minimal, 9 bytes */
        {LT_BINARY, 0, 0, ""},
        {LT_BINARY, 0, 0, "ff00fe"},
        {LT_STRING, 0, 0, ""},
        {LT_STRING, 0, 0, "f4808080"}, /* U+100000 */
        {LT_FLOAT, 0, 0, "0000c07f"},  /* NaN decodes; sanitize drops it */
        {LT_DATE, 0, 0, "ffffff7f"},
        {LT_UINT32, 0, 0, "ffffffff00000000"},
    };
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        struct buf b = BUF_INIT;
        assert_true(unhex(ok[i].hex, &b));
        struct error why;
        if (bound_check(ok[i].t, ok[i].precision, ok[i].scale, bytes(&b), b.len, &why) != 0)
            fail_msg("%s '%s' refused: %s", lake_type_name(ok[i].t), ok[i].hex, why.msg);
        buf_free(&b);
    }
}

/* ---- sanitize ---- */

struct fixcase {
    enum lake_type t;
    int precision, scale;
    enum bound_role role;
    const char *raw, *stored;
    enum bound_fix fix;
};

static void test_sanitize(void **state)
{
    (void)state;
    static const struct fixcase cases[] = {
        {LT_DECIMAL, 10, 2, BOUND_LOWER, "0000", "00", BOUND_CANONICAL},
        {LT_DECIMAL, 10, 2, BOUND_UPPER, "00007f", "7f", BOUND_CANONICAL},
        {LT_DECIMAL, 10, 2, BOUND_LOWER, "0080", "0080", BOUND_KEEP},
        {LT_DECIMAL, 10, 2, BOUND_LOWER, "ffff80", "80", BOUND_CANONICAL},
        {LT_DECIMAL, 10, 2, BOUND_LOWER, "ffff7f", "ff7f", BOUND_CANONICAL},
        {LT_DECIMAL, 10, 2, BOUND_LOWER, "ff7f", "ff7f", BOUND_KEEP},
        {LT_DECIMAL, 38, 0, BOUND_LOWER, "00000000000000000000000000000001", "01", BOUND_CANONICAL},
        {LT_DECIMAL, 38, 0, BOUND_LOWER, "ffffffffffffffffffffffffffffffff", "ff", BOUND_CANONICAL},
        {LT_UINT64, 0, 0, BOUND_LOWER, "000000ff", "00ff", BOUND_CANONICAL},
        {LT_UINT64, 0, 0, BOUND_UPPER, "0000000000000000", "00", BOUND_CANONICAL},
        {LT_UINT64, 0, 0, BOUND_UPPER, "00ffffffffffffffff", "00ffffffffffffffff", BOUND_KEEP},
        {LT_FLOAT, 0, 0, BOUND_LOWER, "0000c07f", "0000c07f", BOUND_DROP_NAN},
        {LT_FLOAT, 0, 0, BOUND_UPPER, "0100c0ff", "0100c0ff", BOUND_DROP_NAN}, /* -NaN */
        {LT_FLOAT, 0, 0, BOUND_UPPER, "0100807f", "0100807f", BOUND_DROP_NAN}, /* sNaN */
        {LT_FLOAT, 0, 0, BOUND_UPPER, "0000807f", "0000807f", BOUND_KEEP},     /* +inf */
        {LT_FLOAT, 0, 0, BOUND_LOWER, "01000080", "01000080", BOUND_KEEP},     /* -min subnormal */
        {LT_DOUBLE, 0, 0, BOUND_LOWER, "390500000000f87f", "390500000000f87f", BOUND_DROP_NAN},
        {LT_DOUBLE, 0, 0, BOUND_LOWER, "010000000000f0ff", "010000000000f0ff", BOUND_DROP_NAN},
        {LT_DOUBLE, 0, 0, BOUND_LOWER, "000000000000f0ff", "000000000000f0ff", BOUND_KEEP},
        {LT_INT, 0, 0, BOUND_UPPER, "00000080", "00000080", BOUND_KEEP},
        {LT_BOOLEAN, 0, 0, BOUND_UPPER, "01", "01", BOUND_KEEP},
        {LT_STRING, 0, 0, BOUND_UPPER, "", "", BOUND_KEEP},
        {LT_STRING, 0, 0, BOUND_UPPER, "ff", "ff", BOUND_DROP_UNDECODABLE},
        {LT_TIME, 0, 0, BOUND_UPPER, "0060dd4114000000", "0060dd4114000000",
         BOUND_DROP_UNDECODABLE},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const struct fixcase *c = &cases[i];
        struct buf raw = BUF_INIT, want = BUF_INIT;
        assert_true(unhex(c->raw, &raw));
        assert_true(unhex(c->stored, &want));
        uint8_t b[32];
        size_t n = raw.len;
        memcpy(b, bytes(&raw), n);
        enum bound_fix fix = bound_sanitize(c->t, c->precision, c->scale, c->role, b, &n);
        char h[80];
        hex_of(b, n, h, sizeof h);
        if (fix != c->fix || n != want.len || memcmp(b, bytes(&want), n) != 0)
            fail_msg("%s %s: got %s (%s), want %s (%s)", lake_type_name(c->t), c->raw, h,
                     bound_fix_name(fix), c->stored, bound_fix_name(c->fix));
        if (fix == BOUND_CANONICAL) /* what is stored always passes the check again */
            assert_int_equal(bound_check(c->t, c->precision, c->scale, b, n, NULL), 0);
        buf_free(&raw);
        buf_free(&want);
    }
    assert_string_equal(bound_fix_name(BOUND_KEEP), "keep");
    assert_string_equal(bound_fix_name(BOUND_DROP_INVERTED), "inverted");
}

/* ---- order ---- */

static int cmp_hex(enum lake_type t, const char *a, const char *b)
{
    struct buf x = BUF_INIT, y = BUF_INIT;
    assert_true(unhex(a, &x));
    assert_true(unhex(b, &y));
    int c = bound_compare(t, bytes(&x), x.len, bytes(&y), y.len);
    buf_free(&x);
    buf_free(&y);
    return c < 0 ? -1 : c > 0;
}

/* Every list is strictly ascending in the type's order. */
static void assert_ascending(enum lake_type t, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int want = (i > j) - (i < j);
            int got = cmp_hex(t, list[i], list[j]);
            if (got != want)
                fail_msg("%s: compare(%s, %s) = %d, want %d", lake_type_name(t), list[i], list[j],
                         got, want);
        }
}

static void test_compare(void **state)
{
    (void)state;
    static const char *const floats[] = {
        "000080ff", /* -inf */
        "ffff7fff", /* -max */
        "000080bf", /* -1 */
        "01000080", /* -min subnormal */
        "00000080", /* -0.0 */
        "00000000", /* +0.0 */
        "01000000", /* min subnormal */
        "0000803f", /* 1 */
        "ffff7f7f", /* max */
        "0000807f", /* +inf */
    };
    assert_ascending(LT_FLOAT, floats, ARRAY_LEN(floats));
    static const char *const doubles[] = {
        "000000000000f0ff", "000000000000f0bf", "0000000000000080", "0000000000000000",
        "0100000000000000", "9a9999999999b93f", "000000000000f03f", "000000000000f07f",
    };
    assert_ascending(LT_DOUBLE, doubles, ARRAY_LEN(doubles));
    /* uint64 by value: bytewise order would put 0080 (128) below 7f (127) */
    static const char *const u64[] = {
        "00",
        "01",
        "7f",
        "0080",
        "00ff",
        "7fffffffffffffff",
        "008000000000000000",
        "00ffffffffffffffff",
    };
    assert_ascending(LT_UINT64, u64, ARRAY_LEN(u64));
    /* decimals by value, across widths; non-minimal forms compare equal */
    static const char *const dec[] = {
        "b4c4b357a5793b85f675ddc000000001", /* -(10^38 - 1) */
        "ff7f",                             /* -129 */
        "80",                               /* -128 */
        "ff",                               /* -1 */
        "00",
        "7f",
        "0080",
        "4b3b4ca85a86c47a098a223fffffffff",
    };
    assert_ascending(LT_DECIMAL, dec, ARRAY_LEN(dec));
    assert_int_equal(cmp_hex(LT_DECIMAL, "00007f", "7f"), 0);
    assert_int_equal(cmp_hex(LT_DECIMAL, "ffff80", "80"), 0);
    assert_int_equal(cmp_hex(LT_UINT64, "0000ff", "00ff"), 0);
    /* signed little-endian ints: bytewise order would put -1 above 0 */
    static const char *const ints[] = {"00000080", "ffffffff", "00000000", "01000000", "ffffff7f"};
    assert_ascending(LT_INT, ints, ARRAY_LEN(ints));
    assert_ascending(LT_DATE, ints, ARRAY_LEN(ints));
    static const char *const longs[] = {"0000000000000080", "ffffffffffffffff", "0000000000000000",
                                        "0001000000000000", "ffffffffffffff7f"};
    assert_ascending(LT_LONG, longs, ARRAY_LEN(longs));
    assert_ascending(LT_TIMESTAMP_NS, longs, ARRAY_LEN(longs));
    assert_ascending(LT_TIMESTAMPTZ, longs, ARRAY_LEN(longs));
    static const char *const u32[] = {"0000000000000000", "ffffff7f00000000", "0000008000000000",
                                      "ffffffff00000000"};
    assert_ascending(LT_UINT32, u32, ARRAY_LEN(u32));
    static const char *const bools[] = {"00", "01"};
    assert_ascending(LT_BOOLEAN, bools, ARRAY_LEN(bools));
    /* strings: unsigned bytes, prefix first; U+FFFF sorts below U+1F994 as
     * UTF-8 (UTF-16 units would put the surrogate pair first) */
    static const char *const strs[] = {
        "",         "61", "6162", "7a", "c3a9", /* é */
        "efbfbf",                               /* U+FFFF */
        "f09fa694",                             /* U+1F994 hedgehog */
    };
    assert_ascending(LT_STRING, strs, ARRAY_LEN(strs));
    assert_ascending(LT_JSON, strs, ARRAY_LEN(strs));
    static const char *const uuids[] = {
        "00000000000000000000000000000000", "7fffffffffffffffffffffffffffffff",
        "80000000000000000000000000000001", "ffffffffffffffffffffffffffffffff"};
    assert_ascending(LT_UUID, uuids, ARRAY_LEN(uuids));
    static const char *const bins[] = {"", "00", "00ff", "01", "ff"};
    assert_ascending(LT_BINARY, bins, ARRAY_LEN(bins));
}

/* ---- pairs ---- */

struct paircase {
    enum lake_type t;
    int precision, scale;
    const char *lower, *upper; /* NULL = absent */
    enum bound_fix lfix, ufix;
    const char *lstored, *ustored; /* NULL = dropped/absent */
    int count;
};

static void test_pairs(void **state)
{
    (void)state;
    static const struct paircase cases[] = {
        {LT_INT, 0, 0, "05000000", "03000000", BOUND_DROP_INVERTED, BOUND_DROP_INVERTED, NULL, NULL,
         2},
        {LT_INT, 0, 0, "03000000", "05000000", BOUND_KEEP, BOUND_KEEP, "03000000", "05000000", 0},
        {LT_INT, 0, 0, "05000000", "05000000", BOUND_KEEP, BOUND_KEEP, "05000000", "05000000", 0},
        {LT_INT, 0, 0, "ffffffff", "00000000", BOUND_KEEP, BOUND_KEEP, "ffffffff", "00000000", 0},
        /* raw (+0.0, -0.0) is empty in total order; sanitized it is a zero range */
        {LT_FLOAT, 0, 0, "00000000", "00000080", BOUND_CANONICAL, BOUND_CANONICAL, "00000080",
         "00000000", 2},
        {LT_DOUBLE, 0, 0, "0000000000000000", "0000000000000000", BOUND_CANONICAL, BOUND_KEEP,
         "0000000000000080", "0000000000000000", 1},
        {LT_FLOAT, 0, 0, "0000803f", "00000080", BOUND_DROP_INVERTED, BOUND_DROP_INVERTED, NULL,
         NULL, 2},
        {LT_FLOAT, 0, 0, "0000c07f", "0000803f", BOUND_DROP_NAN, BOUND_KEEP, NULL, "0000803f", 1},
        {LT_FLOAT, 0, 0, "0000803f", "0000c07f", BOUND_KEEP, BOUND_DROP_NAN, "0000803f", NULL, 1},
        {LT_INT8, 0, 0, "00010000", "05000000", BOUND_DROP_UNDECODABLE, BOUND_KEEP, NULL,
         "05000000", 1},
        {LT_INT, 0, 0, NULL, "05000000", BOUND_KEEP, BOUND_KEEP, NULL, "05000000", 0},
        {LT_INT, 0, 0, NULL, NULL, BOUND_KEEP, BOUND_KEEP, NULL, NULL, 0},
        {LT_DECIMAL, 10, 2, "00007f", "0080", BOUND_CANONICAL, BOUND_KEEP, "7f", "0080", 1},
        {LT_DECIMAL, 10, 2, "0080", "00007f", BOUND_DROP_INVERTED, BOUND_DROP_INVERTED, NULL, NULL,
         2},
        {LT_UINT64, 0, 0, "00ffffffffffffffff", "7f", BOUND_DROP_INVERTED, BOUND_DROP_INVERTED,
         NULL, NULL, 2},
        {LT_UINT64, 0, 0, "7f", "00ffffffffffffffff", BOUND_KEEP, BOUND_KEEP, "7f",
         "00ffffffffffffffff", 0},
        {LT_STRING, 0, 0, "62", "61", BOUND_DROP_INVERTED, BOUND_DROP_INVERTED, NULL, NULL, 2},
        {LT_STRING, 0, 0, "efbfbf", "f09fa694", BOUND_KEEP, BOUND_KEEP, "efbfbf", "f09fa694", 0},
        {LT_TIMESTAMP, 0, 0, "0000000000000000", "ffffffffffffffff", BOUND_DROP_INVERTED,
         BOUND_DROP_INVERTED, NULL, NULL, 2},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const struct paircase *c = &cases[i];
        struct buf lb = BUF_INIT, ub = BUF_INIT;
        uint8_t l[32] = {0}, u[32] = {0};
        struct bound_slot lo = {l, 0, false, BOUND_KEEP}, up = {u, 0, false, BOUND_KEEP};
        if (c->lower) {
            assert_true(unhex(c->lower, &lb));
            memcpy(l, bytes(&lb), lb.len);
            lo.len = lb.len;
            lo.present = true;
        }
        if (c->upper) {
            assert_true(unhex(c->upper, &ub));
            memcpy(u, bytes(&ub), ub.len);
            up.len = ub.len;
            up.present = true;
        }
        int count = bound_sanitize_pair(c->t, c->precision, c->scale, &lo, &up);
        if (count != c->count || lo.fix != c->lfix || up.fix != c->ufix)
            fail_msg("pair %zu: count %d fixes %s/%s, want %d %s/%s", i, count,
                     bound_fix_name(lo.fix), bound_fix_name(up.fix), c->count,
                     bound_fix_name(c->lfix), bound_fix_name(c->ufix));
        const char *want[2] = {c->lstored, c->ustored};
        struct bound_slot *slots[2] = {&lo, &up};
        for (int k = 0; k < 2; k++) {
            assert_int_equal(slots[k]->present, want[k] != NULL);
            if (want[k]) {
                char h[80];
                hex_of(slots[k]->data, slots[k]->len, h, sizeof h);
                if (strcmp(h, want[k]) != 0)
                    fail_msg("pair %zu side %d: stored %s, want %s", i, k, h, want[k]);
            }
        }
        buf_free(&lb);
        buf_free(&ub);
    }
}

/* A bound longer than BOUND_MAX_BYTES is dropped, whatever it holds; one
 * of exactly that length is kept. Each side is judged alone. */
static void test_long_bounds(void **state)
{
    (void)state;
    static uint8_t lower[BOUND_MAX_BYTES + 1], upper[BOUND_MAX_BYTES + 1];
    memset(lower, 'a', sizeof lower);
    memset(upper, 'b', sizeof upper);
    static const enum lake_type types[] = {LT_STRING, LT_JSON, LT_BINARY};
    for (size_t i = 0; i < ARRAY_LEN(types); i++) {
        struct bound_slot lo = {lower, BOUND_MAX_BYTES + 1, true, BOUND_KEEP};
        struct bound_slot up = {upper, BOUND_MAX_BYTES, true, BOUND_KEEP};
        assert_int_equal(bound_sanitize_pair(types[i], 0, 0, &lo, &up), 1);
        assert_int_equal(lo.fix, BOUND_DROP_TOO_LONG);
        assert_false(lo.present);
        assert_int_equal(up.fix, BOUND_KEEP);
        assert_true(up.present);
        assert_int_equal(up.len, BOUND_MAX_BYTES);
        size_t n = BOUND_MAX_BYTES + 1;
        assert_int_equal(bound_sanitize(types[i], 0, 0, BOUND_UPPER, upper, &n),
                         BOUND_DROP_TOO_LONG);
    }
    assert_string_equal(bound_fix_name(BOUND_DROP_TOO_LONG), "too_long");
}

/* ---- JSON rendering beyond the vectors ---- */

static char *render(enum lake_type t, int p, int s, const char *hex)
{
    struct buf b = BUF_INIT;
    assert_true(unhex(hex, &b));
    struct error why;
    json_t *j = bound_to_json(t, p, s, bytes(&b), b.len, &why);
    if (!j)
        fail_msg("%s %s refused: %s", lake_type_name(t), hex, why.msg);
    char *text = jsonnum_dumps(j, JSON_COMPACT);
    assert_non_null(text);
    json_decref(j);
    buf_free(&b);
    return text;
}

static void assert_render(enum lake_type t, int p, int s, const char *hex, const char *want)
{
    char *got = render(t, p, s, hex);
    if (strcmp(got, want) != 0)
        fail_msg("%s(%d,%d) %s rendered %s, want %s", lake_type_name(t), p, s, hex, got, want);
    free(got);
}

/* hex of a little-endian int64 */
static void le64_hex(int64_t v, char out[17])
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)((uint64_t)v >> (8 * i));
    hex_of(b, 8, out, 17);
}

static void le32_hex(int32_t v, char out[9])
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)((uint32_t)v >> (8 * i));
    hex_of(b, 4, out, 9);
}

static void test_json_numbers(void **state)
{
    (void)state;
    /* decimals: plain, exactly `scale` digits, sign kept */
    assert_render(LT_DECIMAL, 10, 2, "00", "0.00");
    assert_render(LT_DECIMAL, 10, 2, "ff", "-0.01");
    assert_render(LT_DECIMAL, 10, 2, "fb2e", "-12.34");
    assert_render(LT_DECIMAL, 5, 5, "ff", "-0.00001");
    assert_render(LT_DECIMAL, 10, 0, "04d2", "1234");
    assert_render(LT_DECIMAL, 38, 38, "01", "0.00000000000000000000000000000000000001");
    assert_render(LT_DECIMAL, 38, 38, "b4c4b357a5793b85f675ddc000000001",
                  "-0.99999999999999999999999999999999999999");
    assert_render(LT_DECIMAL, 38, 0, "4b3b4ca85a86c47a098a223fffffffff",
                  "99999999999999999999999999999999999999");
    assert_render(LT_DECIMAL, 38, 9, "4b3b4ca85a86c47a098a223fffffffff",
                  "99999999999999999999999999999.999999999");
    assert_render(LT_DECIMAL, 10, 2, "00007f", "1.27"); /* non-minimal decodes */
    /* uint64: json_integer up to 2^63-1, an exact raw number above */
    assert_render(LT_UINT64, 0, 0, "7fffffffffffffff", "9223372036854775807");
    assert_render(LT_UINT64, 0, 0, "008000000000000000", "9223372036854775808");
    assert_render(LT_UINT64, 0, 0, "00ffffffffffffffff", "18446744073709551615");
    assert_render(LT_LONG, 0, 0, "0000000000000080", "-9223372036854775808");
    /* floats: shortest round trip at the width */
    assert_render(LT_FLOAT, 0, 0, "cdcccc3d", "0.1"); /* 0.1f, not 0.10000000149011612 */
    assert_render(LT_FLOAT, 0, 0, "0000804b", "16777216.0");
    assert_render(LT_FLOAT, 0, 0, "000080ff", "\"-Infinity\"");
    assert_render(LT_DOUBLE, 0, 0, "0000000000005940", "100.0");
    assert_render(LT_DOUBLE, 0, 0, "0080e03779c34143", "1e+16");
    assert_render(LT_DOUBLE, 0, 0, "f168e388b5f8e43e", "1e-05");
    assert_render(LT_DOUBLE, 0, 0, "2d431cebe2361a3f", "0.0001");
    assert_render(LT_DOUBLE, 0, 0, "000000000000f0bf", "-1.0");
    assert_render(LT_DOUBLE, 0, 0, "0000000000000080", "-0.0");
    assert_render(LT_DOUBLE, 0, 0, "000000000000f0ff", "\"-Infinity\"");

    /* every finite float text reads back to the same bits */
    static const char *const fl[] = {"01000000", "ffff7f7f", "cdcccc3d", "0000c0ff"};
    for (size_t i = 0; i < ARRAY_LEN(fl); i++) {
        struct buf b = BUF_INIT;
        assert_true(unhex(fl[i], &b));
        struct error why;
        json_t *j = bound_to_json(LT_FLOAT, 0, 0, bytes(&b), b.len, &why);
        if (i == 3) { /* -NaN */
            assert_null(j);
            assert_string_equal(why.msg, "nan_bound");
            assert_string_equal(why.reason, "nan_bound");
        } else {
            assert_true(jsonnum_is(j));
            float f = strtof(jsonnum_text(j, NULL), NULL);
            assert_memory_equal(&f, b.data, 4);
        }
        json_decref(j);
        buf_free(&b);
    }
}

static void test_json_temporals_and_text(void **state)
{
    (void)state;
    char h[17];
    /* dates: Java LocalDate years */
    le32_hex((int32_t)time_days_from_civil(10000, 1, 1), h);
    assert_render(LT_DATE, 0, 0, h, "\"+10000-01-01\"");
    le32_hex((int32_t)time_days_from_civil(-1, 12, 31), h);
    assert_render(LT_DATE, 0, 0, h, "\"-0001-12-31\"");
    le32_hex((int32_t)time_days_from_civil(0, 2, 29), h);
    assert_render(LT_DATE, 0, 0, h, "\"0000-02-29\"");
    le32_hex((int32_t)time_days_from_civil(-12345, 6, 7), h);
    assert_render(LT_DATE, 0, 0, h, "\"-12345-06-07\"");
    le32_hex(INT32_MAX, h);
    assert_render(LT_DATE, 0, 0, h, "\"+5881580-07-11\"");
    le32_hex(INT32_MIN, h);
    assert_render(LT_DATE, 0, 0, h, "\"-5877641-06-23\"");
    /* time: LocalTime drops zero seconds, fractions in groups of 3/6 */
    le64_hex(0, h);
    assert_render(LT_TIME, 0, 0, h, "\"00:00\"");
    le64_hex(60000000, h);
    assert_render(LT_TIME, 0, 0, h, "\"00:01\"");
    le64_hex(1000000, h);
    assert_render(LT_TIME, 0, 0, h, "\"00:00:01\"");
    le64_hex(1000, h);
    assert_render(LT_TIME, 0, 0, h, "\"00:00:00.001\"");
    le64_hex(1, h);
    assert_render(LT_TIME, 0, 0, h, "\"00:00:00.000001\"");
    le64_hex(45296100000, h);
    assert_render(LT_TIME, 0, 0, h, "\"12:34:56.100\"");
    /* timestamp_ns: groups of 3, 6, 9 */
    le64_hex(1, h);
    assert_render(LT_TIMESTAMP_NS, 0, 0, h, "\"1970-01-01T00:00:00.000000001\"");
    le64_hex(1000, h);
    assert_render(LT_TIMESTAMP_NS, 0, 0, h, "\"1970-01-01T00:00:00.000001\"");
    le64_hex(1000000, h);
    assert_render(LT_TIMESTAMP_NS, 0, 0, h, "\"1970-01-01T00:00:00.001\"");
    le64_hex(60000000000, h);
    assert_render(LT_TIMESTAMP_NS, 0, 0, h, "\"1970-01-01T00:01\"");
    /* the micros timestamps and their extremes */
    le64_hex(INT64_MAX, h);
    assert_render(LT_TIMESTAMP, 0, 0, h, "\"+294247-01-10T04:00:54.775807\"");
    le64_hex(INT64_MIN, h);
    assert_render(LT_TIMESTAMP, 0, 0, h, "\"-290308-12-21T19:59:05.224192\"");
    le64_hex(-62167219200000000, h); /* 0000-01-01 */
    assert_render(LT_TIMESTAMP_MS, 0, 0, h, "\"0000-01-01T00:00\"");
    le64_hex(-62167219200000001, h);
    assert_render(LT_TIMESTAMP_S, 0, 0, h, "\"-0001-12-31T23:59:59.999999\"");
    /* timestamptz: Instant keeps the seconds */
    le64_hex(0, h);
    assert_render(LT_TIMESTAMPTZ, 0, 0, h, "\"1970-01-01T00:00:00Z\"");
    le64_hex(-1, h);
    assert_render(LT_TIMESTAMPTZ, 0, 0, h, "\"1969-12-31T23:59:59.999999Z\"");
    le64_hex(123000, h);
    assert_render(LT_TIMESTAMPTZ, 0, 0, h, "\"1970-01-01T00:00:00.123Z\"");
    le64_hex(253402300800000000, h); /* 10000-01-01 */
    assert_render(LT_TIMESTAMPTZ, 0, 0, h, "\"+10000-01-01T00:00:00Z\"");
    /* text types */
    assert_render(LT_UUID, 0, 0, "f79c3e09677c4bbda4793f349cb785e7",
                  "\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"");
    assert_render(LT_BINARY, 0, 0, "", "\"\"");
    assert_render(LT_BINARY, 0, 0, "ff", "\"/w==\"");
    assert_render(LT_BINARY, 0, 0, "fffe", "\"//4=\"");
    assert_render(LT_STRING, 0, 0, "610062", "\"a\\u0000b\"");
    assert_render(LT_JSON, 0, 0, "7b2261223a317d", "\"{\\\"a\\\":1}\"");
    assert_render(LT_BOOLEAN, 0, 0, "01", "true");
    assert_render(LT_BOOLEAN, 0, 0, "00", "false");
}

/* ---- text encoding beyond the vectors ---- */

struct textcase {
    enum lake_type t;
    int precision, scale;
    const char *value;
    const char *hex; /* NULL = refused */
};

static void test_encode_text(void **state)
{
    (void)state;
    static const struct textcase cases[] = {
        {LT_BOOLEAN, 0, 0, "True", NULL},
        {LT_BOOLEAN, 0, 0, "1", NULL},
        {LT_INT8, 0, 0, "128", NULL},
        {LT_INT8, 0, 0, "-129", NULL},
        {LT_INT8, 0, 0, "-128", "80ffffff"},
        {LT_UINT8, 0, 0, "-1", NULL},
        {LT_UINT8, 0, 0, "256", NULL},
        {LT_UINT16, 0, 0, "65536", NULL},
        {LT_INT, 0, 0, "2147483648", NULL},
        {LT_INT, 0, 0, "", NULL},
        {LT_INT, 0, 0, "-", NULL},
        {LT_INT, 0, 0, "+1", NULL},
        {LT_INT, 0, 0, " 1", NULL},
        {LT_INT, 0, 0, "1.0", NULL},
        {LT_INT, 0, 0, "007", "07000000"},
        {LT_LONG, 0, 0, "9223372036854775808", NULL},
        {LT_LONG, 0, 0, "-9223372036854775809", NULL},
        {LT_LONG, 0, 0, "1000000000000000000000000000000000000000000", NULL},
        {LT_UINT32, 0, 0, "4294967296", NULL},
        {LT_UINT32, 0, 0, "-1", NULL},
        {LT_UINT64, 0, 0, "18446744073709551616", NULL},
        {LT_UINT64, 0, 0, "-1", NULL},
        {LT_UINT64, 0, 0, "255", "00ff"},
        {LT_DATE, 0, 0, "2147483648", NULL},
        {LT_TIME, 0, 0, "86400000000", NULL},
        {LT_TIME, 0, 0, "-1", NULL},
        {LT_DECIMAL, 3, 0, "1000", NULL},
        {LT_DECIMAL, 3, 0, "-1000", NULL},
        {LT_DECIMAL, 3, 0, "-999", "fc19"},
        {LT_DECIMAL, 3, 1, "12.3", NULL}, /* the text is the unscaled integer */
        {LT_DECIMAL, 0, 0, "1", NULL},
        {LT_FLOAT, 0, 0, "1e39", NULL},
        {LT_FLOAT, 0, 0, "0x1p3", NULL},
        {LT_FLOAT, 0, 0, "nan", NULL},
        {LT_FLOAT, 0, 0, "inf", NULL},
        {LT_FLOAT, 0, 0, "1.", NULL},
        {LT_FLOAT, 0, 0, "", NULL},
        {LT_FLOAT, 0, 0, "0.1", "cdcccc3d"},
        {LT_FLOAT, 0, 0, "-0", "00000080"},
        {LT_DOUBLE, 0, 0, "1e309", NULL},
        {LT_DOUBLE, 0, 0, "-Infinity", "000000000000f0ff"},
        {LT_DOUBLE, 0, 0, "NaN", "000000000000f87f"},
        {LT_UUID, 0, 0, "F79C3E09-677C-4BBD-A479-3F349CB785E7", "f79c3e09677c4bbda4793f349cb785e7"},
        {LT_UUID, 0, 0, "f79c3e09677c4bbda4793f349cb785e7", NULL},
        {LT_UUID, 0, 0, "f79c3e09-677c-4bbd-a479-3f349cb785eg", NULL},
        {LT_BINARY, 0, 0, "AAH", NULL},
        {LT_BINARY, 0, 0, "AAF=", NULL}, /* non-zero padding bits */
        {LT_BINARY, 0, 0, "/w==", "ff"},
        {LT_STRING, 0, 0, "\xff", NULL},
        {LT_JSON, 0, 0, "\xc0\xaf", NULL},
        {LT_VARIANT, 0, 0, "", NULL},
        {LT_MAP, 0, 0, "1", NULL},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const struct textcase *c = &cases[i];
        struct buf out = BUF_INIT;
        struct error why;
        int rc =
            bound_encode_text(c->t, c->precision, c->scale, c->value, strlen(c->value), &out, &why);
        if (!c->hex) {
            if (rc == 0)
                fail_msg("%s '%s' should be refused", lake_type_name(c->t), c->value);
            assert_int_equal(why.code, ERR_INVALID);
            assert_true(strlen(why.msg) > 0);
            assert_int_equal(out.len, 0);
        } else {
            if (rc != 0)
                fail_msg("%s '%s' refused: %s", lake_type_name(c->t), c->value, why.msg);
            char h[80];
            hex_of(bytes(&out), out.len, h, sizeof h);
            if (strcmp(h, c->hex) != 0)
                fail_msg("%s '%s' encoded %s, want %s", lake_type_name(c->t), c->value, h, c->hex);
            assert_int_equal(bound_check(c->t, c->precision, c->scale, bytes(&out), out.len, NULL),
                             0);
        }
        buf_free(&out);
    }
}

/* ---- util pieces the codec stands on ---- */

/* The client's loader: integers wider than int64 (what the server prints
 * for a uint64 bound above 2^63-1) read as their digits in a string, every
 * other value as jansson reads it, digits inside strings untouched. */
static void test_jsonnum_loads_wide(void **state)
{
    (void)state;
    json_t *bound = jsonnum_new("18446744073709551615", 20);
    json_t *sent =
        json_pack("{s:o,s:I,s:I,s:s,s:f}", "upper_bound", bound, "max", (json_int_t)INT64_MAX,
                  "min", (json_int_t)INT64_MIN, "s", "a\"99999999999999999999", "r", 0.5);
    char *text = jsonnum_dumps(sent, JSON_COMPACT);
    assert_non_null(text);
    json_error_t jerr;
    assert_null(json_loads(text, 0, &jerr)); /* what the client met */
    json_t *got = jsonnum_loads_wide(text, &jerr);
    assert_non_null(got);
    assert_string_equal(json_string_value(json_object_get(got, "upper_bound")),
                        "18446744073709551615");
    assert_true(json_integer_value(json_object_get(got, "max")) == INT64_MAX);
    assert_true(json_integer_value(json_object_get(got, "min")) == INT64_MIN);
    assert_string_equal(json_string_value(json_object_get(got, "s")), "a\"99999999999999999999");
    assert_true(json_real_value(json_object_get(got, "r")) == 0.5);
    json_decref(got);
    free(text);
    json_decref(sent);

    got = jsonnum_loads_wide("[-9223372036854775809,9223372036854775808,12.5e3,-0]", &jerr);
    assert_non_null(got);
    assert_string_equal(json_string_value(json_array_get(got, 0)), "-9223372036854775809");
    assert_string_equal(json_string_value(json_array_get(got, 1)), "9223372036854775808");
    assert_true(json_is_real(json_array_get(got, 2)) && json_is_integer(json_array_get(got, 3)));
    json_decref(got);
    /* Not JSON stays not JSON. */
    assert_null(jsonnum_loads_wide("[99999999999999999999", &jerr));
    assert_null(jsonnum_loads_wide("{\"a\":}", &jerr));
}

static void test_jsonnum(void **state)
{
    (void)state;
    static const char *const good[] = {
        "0", "-0", "1", "-1.5", "1e5", "1E+5", "1.0e-05", "18446744073709551615", "0.00"};
    static const char *const bad[] = {"",    "-",   "01",       "1.", ".5", "+1",  "1e",
                                      "0x1", "NaN", "Infinity", "1 ", " 1", "1e+", "--1"};
    for (size_t i = 0; i < ARRAY_LEN(good); i++)
        assert_true(jsonnum_valid(good[i], strlen(good[i])));
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        assert_false(jsonnum_valid(bad[i], strlen(bad[i])));
        assert_null(jsonnum_new(bad[i], strlen(bad[i])));
    }
    assert_false(jsonnum_is(NULL));
    json_t *plain = json_string("\xc3\xbf"
                                "1");
    assert_false(jsonnum_is(plain)); /* a parsed string can never be one */
    json_decref(plain);

    json_t *n = jsonnum_new("18446744073709551615", 20);
    assert_true(jsonnum_is(n));
    size_t len;
    assert_string_equal(jsonnum_text(n, &len), "18446744073709551615");
    assert_int_equal(len, 20);
    json_t *doc = json_pack("{s:o,s:[i,s,b,n,f],s:{}}", "lower_bound", n, "x", 1, "s\"/\xc3\xa9", 1,
                            2.5, "e");
    assert_non_null(doc);
    /* plain jansson refuses the tree instead of printing a string */
    assert_null(json_dumps(doc, JSON_COMPACT));
    char *s = jsonnum_dumps(doc, JSON_COMPACT);
    assert_string_equal(s, "{\"lower_bound\":18446744073709551615,\"x\":[1,\"s\\\"/\xc3\xa9\","
                           "true,null,2.5],\"e\":{}}");
    free(s);
    /* copies stay raw numbers */
    json_t *copy = json_deep_copy(doc);
    assert_true(jsonnum_is(json_object_get(copy, "lower_bound")));
    assert_true(json_equal(copy, doc));
    json_decref(copy);

    /* without raw numbers the layout is jansson's own, for every flag set */
    json_t *same = json_deep_copy(doc);
    json_object_set_new(same, "lower_bound", json_integer(-7));
    json_object_set_new(same, "a", json_array());
    json_object_set_new(same, "\xc3\xa9", json_pack("{s:[i,i]}", "k", 1, 2));
    static const size_t flags[] = {0,
                                   JSON_COMPACT,
                                   JSON_INDENT(2),
                                   JSON_INDENT(3) | JSON_COMPACT,
                                   JSON_SORT_KEYS,
                                   JSON_ENSURE_ASCII | JSON_ESCAPE_SLASH,
                                   JSON_INDENT(1) | JSON_SORT_KEYS | JSON_ENSURE_ASCII,
                                   JSON_REAL_PRECISION(3)};
    for (size_t i = 0; i < ARRAY_LEN(flags); i++) {
        char *a = json_dumps(same, flags[i]);
        char *b = jsonnum_dumps(same, flags[i]);
        assert_non_null(a);
        assert_non_null(b);
        if (strcmp(a, b) != 0)
            fail_msg("flags %zx: jansson %s, jsonnum %s", flags[i], a, b);
        free(a);
        free(b);
    }
    json_decref(same);
    /* scalars as the root; an invalid key is refused */
    json_t *root = jsonnum_new("-0.0", 4);
    s = jsonnum_dumps(root, 0);
    assert_string_equal(s, "-0.0");
    free(s);
    json_decref(root);
    json_t *badkey = json_object();
    json_object_setn_new_nocheck(badkey, "\xff", 1, json_true());
    assert_null(jsonnum_dumps(badkey, 0));
    json_decref(badkey);
    json_decref(doc);
}

static void test_base64(void **state)
{
    (void)state;
    static const char *const enc[] = {"", "AA==", "AAE=", "AAH/", "AAH/+g==", "AAH/+u8="};
    static const uint8_t raw[] = {0x00, 0x01, 0xff, 0xfa, 0xef};
    for (size_t n = 0; n <= 5; n++) {
        struct buf out = BUF_INIT, back = BUF_INIT;
        assert_int_equal(base64_encode(&out, raw, n), 0);
        assert_string_equal(out.data ? out.data : "", enc[n]);
        assert_null(base64_decode(out.data ? out.data : "", out.len, &back));
        assert_int_equal(back.len, n);
        if (n)
            assert_memory_equal(back.data, raw, n);
        buf_free(&out);
        buf_free(&back);
    }
    static const char *const bad[] = {
        "A", "AA=", "A===", "AA=A", "AB==", "AAF=", "AA==AAAA", "AA-_", "AA\n="};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        struct buf out = BUF_INIT;
        assert_non_null(base64_decode(bad[i], strlen(bad[i]), &out));
        buf_free(&out);
    }
}

static void test_timefmt_java(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(time_format_local_time(86400000000, 6, out, sizeof out), 0);
    assert_int_equal(time_format_local_time(-1, 6, out, sizeof out), 0);
    assert_int_equal(time_format_local_time(86399999999999, 9, out, sizeof out), 18);
    assert_string_equal(out, "23:59:59.999999999");
    assert_int_equal(time_format_local_datetime(0, 0, out, sizeof out), 16);
    assert_string_equal(out, "1970-01-01T00:00");
    assert_int_equal(time_format_instant(1, 0, out, sizeof out), 20);
    assert_string_equal(out, "1970-01-01T00:00:01Z");
    assert_int_equal(time_format_local_datetime(1788609600123, 3, out, sizeof out), 23);
    assert_string_equal(out, "2026-09-05T12:00:00.123");
    assert_int_equal(time_format_instant(INT64_MIN, 9, out, sizeof out), 30);
    assert_string_equal(out, "1677-09-21T00:12:43.145224192Z");
    /* too small a buffer gives 0, never a truncated text */
    assert_int_equal(time_format_local_datetime(0, 6, out, 10), 0);
    assert_int_equal(time_format_instant(0, 6, out, 20), 0);
    assert_int_equal(time_format_instant(0, 6, out, 21), 20);
    assert_int_equal(time_format_local_date(0, out, 10), 0);
    assert_int_equal(time_format_local_date(0, out, 11), 10);
}

/* Bounds stored under a promotion's other width, re-encoded for the
 * column's type (what the files listing shows after int -> long etc.). */
static void test_adapt_width(void **state)
{
    (void)state;
    uint8_t out[8];
    size_t n = 0;
    static const uint8_t minus5[4] = {0xfb, 0xff, 0xff, 0xff};
    assert_true(bound_adapt_width(LT_LONG, minus5, 4, out, &n));
    assert_int_equal(n, 8);
    assert_memory_equal(out, ((uint8_t[]){0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}), 8);
    static const uint8_t seven[8] = {7};
    assert_true(bound_adapt_width(LT_INT16, seven, 8, out, &n));
    assert_int_equal(n, 4);
    assert_memory_equal(out, ((uint8_t[]){7, 0, 0, 0}), 4);
    static const uint8_t big[8] = {0, 0, 0, 0, 0, 1}; /* 2^40: no int holds it */
    assert_false(bound_adapt_width(LT_INT, big, 8, out, &n));
    assert_false(bound_adapt_width(LT_LONG, seven, 8, out, &n)); /* already its width */
    float f = 1.5f;
    uint8_t fb[4];
    memcpy(fb, &f, 4);
    assert_true(bound_adapt_width(LT_DOUBLE, fb, 4, out, &n));
    double d;
    memcpy(&d, out, 8);
    assert_true(n == 8 && d == 1.5);
    d = 0.1; /* not a float exactly */
    uint8_t db[8];
    memcpy(db, &d, 8);
    assert_false(bound_adapt_width(LT_FLOAT, db, 8, out, &n));
    d = 0.5;
    memcpy(db, &d, 8);
    assert_true(bound_adapt_width(LT_FLOAT, db, 8, out, &n));
    memcpy(&f, out, 4);
    assert_true(n == 4 && f == 0.5f);
    assert_false(bound_adapt_width(LT_STRING, db, 8, out, &n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_bound_normalization),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_edges_accepted),
        cmocka_unit_test(test_sanitize),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_json_numbers),
        cmocka_unit_test(test_json_temporals_and_text),
        cmocka_unit_test(test_encode_text),
        cmocka_unit_test(test_long_bounds),
        cmocka_unit_test(test_jsonnum),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_timefmt_java),
        cmocka_unit_test(test_adapt_width),
        cmocka_unit_test(test_jsonnum_loads_wide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
