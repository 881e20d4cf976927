/* The Variant codec (src/variant): the canonical bytes of JSON text
 * checked by hand against VariantEncoding.md; JSON -> Variant -> JSON over
 * generated documents (every JSON type, deep nesting, unicode keys, big
 * numbers) compared with jansson's reading of the same text; hostile bytes
 * (every truncation, random mutations, the 64-byte string DuckDB 1.5.5
 * misencodes, duplicate keys, unsorted fields) decoded without a crash,
 * refused with a typed error or read as what they say. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "util/buf.h"
#include "variant/variant.h"

struct encoded {
    struct buf m, v;
};

static void encode_ok(const char *json, struct encoded *out)
{
    *out = (struct encoded){BUF_INIT, BUF_INIT};
    struct error e;
    if (variant_from_json(json, strlen(json), &out->m, &out->v, &e) != 0)
        fail_msg("encoding %.80s: %s", json, e.msg);
}

static void encoded_free(struct encoded *x)
{
    buf_free(&x->m);
    buf_free(&x->v);
}

static char *decode_ok(const struct encoded *x)
{
    struct buf out = BUF_INIT;
    struct error e;
    if (variant_to_json((const uint8_t *)x->m.data, x->m.len, (const uint8_t *)x->v.data, x->v.len,
                        &out, &e) != 0)
        fail_msg("decoding: %s", e.msg);
    return buf_take(&out);
}

static void expect_bytes(const struct buf *b, const uint8_t *want, size_t n)
{
    if (b->len != n || memcmp(b->data, want, n) != 0) {
        for (size_t i = 0; i < b->len; i++)
            printf("%02x ", (uint8_t)b->data[i]);
        printf("\n");
        fail_msg("bytes differ (%zu vs %zu)", b->len, n);
    }
}

/* Hand-checked canonical bytes. */
static void canonical_bytes(void **state)
{
    (void)state;
    struct encoded x;
    encode_ok("{\"b\":1,\"a\":\"hi\"}", &x);
    /* header: version 1, sorted, 1-byte offsets; 2 keys; offsets 0 1 2; "ab" */
    static const uint8_t meta[] = {0x11, 2, 0, 1, 2, 'a', 'b'};
    expect_bytes(&x.m, meta, sizeof meta);
    /* object, 1-byte ids and offsets: count 2, ids a=0 b=1, offsets 0 3 5,
     * "hi" as a short string, 1 as int8 */
    static const uint8_t value[] = {0x02, 2, 0, 1, 0, 3, 5, 0x09, 'h', 'i', 0x0C, 1};
    expect_bytes(&x.v, value, sizeof value);
    encoded_free(&x);

    encode_ok("[null,true,false,-129,1.5]", &x);
    static const uint8_t meta0[] = {0x11, 0, 0};
    expect_bytes(&x.m, meta0, sizeof meta0);
    static const uint8_t arr[] = {0x03, 5,    0,    1, 2, 3, 6, 15, 0x00, 0x04, 0x08, 0x10,
                                  0x7f, 0xff, 0x1c, 0, 0, 0, 0, 0,  0,    0xf8, 0x3f};
    expect_bytes(&x.v, arr, sizeof arr);
    encoded_free(&x);

    /* Past int64: decimal16 scale 0; 64 bytes: a long string. */
    encode_ok("18446744073709551616", &x);
    static const uint8_t dec[] = {0x28, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    expect_bytes(&x.v, dec, sizeof dec);
    encoded_free(&x);
    char s64[80];
    memset(s64, 'x', sizeof s64);
    s64[0] = '"';
    s64[65] = '"';
    s64[66] = '\0';
    encode_ok(s64, &x);
    assert_int_equal(x.v.len, 5 + 64);
    assert_int_equal((uint8_t)x.v.data[0], 0x40);
    encoded_free(&x);
}

/* JSON -> Variant -> JSON, compared with what jansson reads of the text. */
static void round_trip(const char *json)
{
    struct encoded x;
    encode_ok(json, &x);
    char *back = decode_ok(&x);
    json_error_t je;
    json_t *a = json_loads(json, JSON_DECODE_ANY, &je), *b = json_loads(back, JSON_DECODE_ANY, &je);
    if (!a || !b || !json_equal(a, b))
        fail_msg("round trip of %.200s gave %.200s", json, back);
    json_decref(a);
    json_decref(b);
    free(back);
    encoded_free(&x);
}

static void round_trips(void **state)
{
    (void)state;
    round_trip("{}");
    round_trip("[]");
    round_trip("\"\"");
    round_trip("0");
    round_trip("-9223372036854775808");
    round_trip("9223372036854775807");
    round_trip("1e300");
    round_trip("-0.0");
    round_trip("{\"$browser\":\"Chrome\",\"price\":9.99,\"tags\":[\"a\",\"b\"],\"nested\":"
               "{\"x\":null,\"y\":[1,2,{\"z\":true}]}}");
    round_trip("{\"\\u00e9t\\u00e9\":\"\\ud83d\\ude00\",\"\\u03a3\":\"tab\\there\\n\\\"q\\\"\"}");
    round_trip("{\"k\":\"\\u0001\\u001f\"}");
}

/* A generated document of every JSON type. */
static void gen(struct buf *b, unsigned *seed, int depth)
{
    int kind = rand_r(seed) % (depth > 5 ? 6 : 8);
    switch (kind) {
    case 0: buf_puts(b, "null"); break;
    case 1: buf_puts(b, rand_r(seed) % 2 ? "true" : "false"); break;
    case 2: buf_printf(b, "%d", rand_r(seed) % 100000 - 50000); break;
    case 3:
        buf_printf(b, "%lld",
                   (long long)(rand_r(seed) % 1000000) * (rand_r(seed) % 1000000) * 1000);
        break;
    case 4: buf_printf(b, "%.6g", (rand_r(seed) % 10000) / 7.0); break;
    case 5: {
        int n = rand_r(seed) % 80;
        buf_putc(b, '"');
        for (int i = 0; i < n; i++)
            buf_puts(b, (const char *[]){"a", "\\u00e9", "\\\"", "\\ud83d\\ude00", "z",
                                         " "}[rand_r(seed) % 6]);
        buf_putc(b, '"');
        break;
    }
    case 6: {
        int n = rand_r(seed) % 6;
        buf_putc(b, '[');
        for (int i = 0; i < n; i++) {
            if (i)
                buf_putc(b, ',');
            gen(b, seed, depth + 1);
        }
        buf_putc(b, ']');
        break;
    }
    default: {
        int n = rand_r(seed) % 6;
        buf_putc(b, '{');
        for (int i = 0; i < n; i++) {
            if (i)
                buf_putc(b, ',');
            buf_printf(b, "\"k%d\\u00e9%d\":", i, rand_r(seed) % 3);
            gen(b, seed, depth + 1);
        }
        buf_putc(b, '}');
    }
    }
}

static void generated_round_trips(void **state)
{
    (void)state;
    unsigned seed = 7;
    for (int i = 0; i < 2000; i++) {
        struct buf b = BUF_INIT;
        gen(&b, &seed, 0);
        /* Generated objects may repeat a key: those are refused. */
        struct encoded x = {BUF_INIT, BUF_INIT};
        struct error e;
        if (variant_from_json(b.data, b.len, &x.m, &x.v, &e) == 0) {
            encoded_free(&x);
            round_trip(b.data);
        } else {
            assert_string_equal(e.reason, "duplicate_key");
        }
        buf_free(&b);
    }
}

static void refusals(void **state)
{
    (void)state;
    static const struct {
        const char *json, *reason;
    } cases[] = {
        {"{\"a\":1,\"a\":2}", "duplicate_key"},
        {"[1,", "invalid_json"},
        {"\"\\ud800\"", "invalid_json"},
        {"01", "invalid_json"},
        {"1e999", "number_out_of_range"},
        {"{\"a\" 1}", "invalid_json"},
        {"\"a\" x", "invalid_json"},
        {"nul", "invalid_json"},
        {"\"\\x\"", "invalid_json"},
        {"\"\xff\"", "invalid_json"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct buf m = BUF_INIT, v = BUF_INIT;
        struct error e;
        if (variant_from_json(cases[i].json, strlen(cases[i].json), &m, &v, &e) == 0)
            fail_msg("accepted %s", cases[i].json);
        assert_string_equal(e.reason, cases[i].reason);
        assert_int_equal(m.len, 0);
        assert_int_equal(v.len, 0);
        buf_free(&m);
        buf_free(&v);
    }
    /* 128 levels encode and decode; 129 do not. */
    for (int levels = 128; levels <= 129; levels++) {
        struct buf b = BUF_INIT;
        for (int k = 0; k < levels; k++)
            buf_putc(&b, '[');
        for (int k = 0; k < levels; k++)
            buf_putc(&b, ']');
        struct encoded x = {BUF_INIT, BUF_INIT};
        struct error e;
        int rc = variant_from_json(b.data, b.len, &x.m, &x.v, &e);
        if (levels == 128) {
            assert_int_equal(rc, 0);
            free(decode_ok(&x));
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(e.reason, "nesting_too_deep");
        }
        encoded_free(&x);
        buf_free(&b);
    }
}

/* One encoder kept across values (as a column's) against a fresh one per
 * value: the same bytes and the same refusals, while values repeat their
 * keys in order, drop or add one, reorder them, spell one key two ways,
 * or change how many there are past 256 (the ids' width). */
static void persistent_encoder(void **state)
{
    (void)state;
    struct buf docs[12];
    static const char *const fixed[] = {
        "{\"b\":1,\"a\":[1,{\"c\":2,\"a\":3}],\"\\u00e9\":\"x\",\"d\":{\"e\":null}}",
        "{\"b\":2,\"a\":[],\"\\u00e9\":\"y\",\"d\":{\"e\":true}}",
        "{\"b\":3,\"a\":[1,{\"c\":2,\"a\":3}],\"\xc3\xa9\":\"z\",\"d\":{\"e\":1.5}}",
        "{\"b\":4,\"a\":[1,{\"c\":2,\"a\":3}],\"\xc3\xa9\":\"z\"}",
        "{\"b\":5,\"a\":[1,{\"c\":2,\"a\":3}],\"new\":0,\"\xc3\xa9\":\"z\",\"d\":{}}",
        "{\"d\":{\"e\":[]},\"\xc3\xa9\":1,\"a\":2,\"b\":3,\"new\":{\"a\\\"b\":4}}",
        "{\"b\":1,\"a\":2,\"b\":3}",
        "{\"b\":1,\"a\":[1,{\"c\":2,\"c\":3}],\"\xc3\xa9\":\"z\",\"a\":2}",
        "{\"b\":1,\"a\":[1,{\"c\":2,\"a\":3}],\"\xc3\xa9\":\"z\",\"d\":{\"e\":1}",
        "7",
    };
    size_t n = 0;
    for (; n < sizeof fixed / sizeof fixed[0]; n++) {
        docs[n] = (struct buf)BUF_INIT;
        buf_puts(&docs[n], fixed[n]);
    }
    for (int keys = 300; n < 12; n++, keys = 70000) { /* ids of 2, then 3 bytes */
        docs[n] = (struct buf)BUF_INIT;
        buf_putc(&docs[n], '{');
        for (int k = 0; k < keys; k++)
            buf_printf(&docs[n], "%s\"k%d\":%d", k ? "," : "", (k * 7919) % keys, k);
        buf_putc(&docs[n], '}');
    }
    static const int order[] = {0, 0, 1,  2, 2,  3,  2, 4,  2,  5, 5, 6, 2, 7, 2, 8, 2,
                                9, 2, 10, 2, 10, 10, 0, 11, 11, 1, 3, 0, 4, 4, 0, 9, 0};
    struct variant_encoder *enc = variant_encoder_new();
    assert_non_null(enc);
    struct buf m = BUF_INIT, v = BUF_INIT;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const struct buf *d = &docs[order[i]];
        struct encoded want = {BUF_INIT, BUF_INIT};
        struct error e1, e2;
        int rc1 = variant_from_json(d->data, d->len, &want.m, &want.v, &e1);
        size_t mlen = m.len, vlen = v.len;
        int rc2 = variant_encoder_encode(enc, d->data, d->len, &m, &v, &e2);
        assert_int_equal(rc1, rc2);
        if (rc1 != 0) {
            assert_string_equal(e1.reason, e2.reason);
            assert_string_equal(e1.msg, e2.msg);
            assert_int_equal(m.len, mlen);
            assert_int_equal(v.len, vlen);
        } else {
            assert_int_equal(m.len - mlen, want.m.len);
            assert_int_equal(v.len - vlen, want.v.len);
            assert_memory_equal(m.data + mlen, want.m.data, want.m.len);
            assert_memory_equal(v.data + vlen, want.v.data, want.v.len);
        }
        encoded_free(&want);
    }
    variant_encoder_free(enc);
    buf_free(&m);
    buf_free(&v);
    for (size_t i = 0; i < n; i++)
        buf_free(&docs[i]);
}

/* Which refusal a text with several problems gets: an error in the text
 * before a key named twice; of keys named twice, the object that closes
 * first, and in it the first key in order. */
static void refusal_precedence(void **state)
{
    (void)state;
    static const struct {
        const char *json, *msg;
    } cases[] = {
        {"{\"a\":1,\"a\":2", "invalid JSON at byte 12: expected ',' or '}'"},
        {"{\"a\":1,\"a\":2,\"x\":1e999}", "1e999 is beyond a double's range"},
        {"[{\"b\":1,\"b\":2},{\"a\":1,\"a\":2}]", "an object names the key 'b' twice"},
        {"{\"a\":1,\"a\":2,\"x\":{\"b\":1,\"b\":2}}", "an object names the key 'b' twice"},
        {"{\"b\":1,\"a\":1,\"b\":2,\"a\":2}", "an object names the key 'a' twice"},
        {"{\"\\u00e9\":1,\"\xc3\xa9\":2}", "an object names the key '\xc3\xa9' twice"},
        {"\"ab\xff\\n\"", "invalid JSON at byte 3: a string that is not UTF-8"},
        {"\"ab\\n\xff\"", "invalid JSON at byte 5: a string that is not UTF-8"},
        {"\"ab\x01\xff\"", "invalid JSON at byte 3: a control character in a string"},
        {"\"ab\xc3\x01\"", "invalid JSON at byte 3: a string that is not UTF-8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct encoded x = {BUF_INIT, BUF_INIT};
        struct error e;
        if (variant_from_json(cases[i].json, strlen(cases[i].json), &x.m, &x.v, &e) == 0)
            fail_msg("accepted %s", cases[i].json);
        assert_string_equal(e.msg, cases[i].msg);
        encoded_free(&x);
    }
}

static int decode_raw(const uint8_t *m, size_t mlen, const uint8_t *v, size_t vlen, struct error *e)
{
    struct buf out = BUF_INIT;
    int rc = variant_to_json(m, mlen, v, vlen, &out, e);
    if (rc != 0 && strcmp(e->reason, "variant_encoding") != 0)
        assert_string_equal(e->reason, "nesting_too_deep");
    buf_free(&out);
    return rc;
}

/* Every truncation and many random byte changes of real encodings: typed
 * refusals or readings, never a crash (run under ASan in CI). */
static void hostile_bytes(void **state)
{
    (void)state;
    struct encoded x;
    encode_ok("{\"$browser\":\"Chrome\",\"n\":[1,2.5,{\"deep\":[true,null]}],\"s\":"
              "\"0123456789012345678901234567890123456789012345678901234567890123456789\"}",
              &x);
    struct error e;
    for (size_t cut = 0; cut < x.v.len; cut++)
        assert_int_equal(
            decode_raw((const uint8_t *)x.m.data, x.m.len, (const uint8_t *)x.v.data, cut, &e), -1);
    for (size_t cut = 0; cut < x.m.len; cut++)
        assert_int_equal(
            decode_raw((const uint8_t *)x.m.data, cut, (const uint8_t *)x.v.data, x.v.len, &e), -1);
    unsigned seed = 3;
    uint8_t *m = malloc(x.m.len), *v = malloc(x.v.len);
    for (int round = 0; round < 20000; round++) {
        memcpy(m, x.m.data, x.m.len);
        memcpy(v, x.v.data, x.v.len);
        for (int k = rand_r(&seed) % 3 + 1; k > 0; k--) {
            if (rand_r(&seed) % 4 == 0)
                m[(size_t)rand_r(&seed) % x.m.len] = (uint8_t)rand_r(&seed);
            else
                v[(size_t)rand_r(&seed) % x.v.len] = (uint8_t)rand_r(&seed);
        }
        (void)decode_raw(m, x.m.len, v, x.v.len, &e);
    }
    free(m);
    free(v);
    encoded_free(&x);
}

/* Writers' mistakes the reader must refuse or read as the spec says. */
static void foreign_encodings(void **state)
{
    (void)state;
    static const uint8_t meta[] = {0x01, 2, 0, 1, 2, 'b', 'a'}; /* unsorted, not flagged */
    struct error e;
    struct buf out = BUF_INIT;
    /* Fields listed as inserted (b, a), values in that order: read in key
     * order. */
    static const uint8_t obj[] = {0x02, 2, 0, 1, 0, 2, 4, 0x0C, 1, 0x0C, 2};
    assert_int_equal(variant_to_json(meta, sizeof meta, obj, sizeof obj, &out, &e), 0);
    assert_string_equal(out.data, "{\"a\":2,\"b\":1}");
    /* Two ids naming one key through a repeated dictionary entry. */
    static const uint8_t meta_dup[] = {0x01, 2, 0, 1, 2, 'a', 'a'};
    assert_int_equal(variant_to_json(meta_dup, sizeof meta_dup, obj, sizeof obj, &out, &e), -1);
    assert_string_equal(e.reason, "variant_encoding");
    /* DuckDB 1.5.5's 64-byte string: an empty short string, then the
     * bytes. */
    static const uint8_t meta0[] = {0x11, 0, 0};
    uint8_t bad[65] = {0x01};
    memset(bad + 1, 'x', 64);
    assert_int_equal(variant_to_json(meta0, sizeof meta0, bad, sizeof bad, &out, &e), -1);
    uint8_t in_array[1 + 1 + 2 + 65] = {0x03, 1, 0, 65, 0x01};
    memset(in_array + 5, 'x', 64);
    assert_int_equal(variant_to_json(meta0, sizeof meta0, in_array, sizeof in_array, &out, &e), -1);
    /* A gap between two elements. */
    static const uint8_t gap[] = {0x03, 2, 0, 3, 4, 0x0C, 1, 0, 0x00};
    assert_int_equal(variant_to_json(meta0, sizeof meta0, gap, sizeof gap, &out, &e), -1);
    /* Other primitives: date, uuid, decimal8 of scale 2, binary. */
    static const uint8_t date[] = {0x2C, 0x01, 0, 0, 0};
    buf_reset(&out);
    assert_int_equal(variant_to_json(meta0, sizeof meta0, date, sizeof date, &out, &e), 0);
    assert_string_equal(out.data, "\"1970-01-02\"");
    static const uint8_t dec8[] = {0x24, 2, 0x39, 0x30, 0, 0, 0, 0, 0, 0};
    buf_reset(&out);
    assert_int_equal(variant_to_json(meta0, sizeof meta0, dec8, sizeof dec8, &out, &e), 0);
    assert_string_equal(out.data, "123.45");
    static const uint8_t bin[] = {0x3C, 3, 0, 0, 0, 'a', 'b', 'c'};
    buf_reset(&out);
    assert_int_equal(variant_to_json(meta0, sizeof meta0, bin, sizeof bin, &out, &e), 0);
    assert_string_equal(out.data, "\"YWJj\"");
    buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(canonical_bytes),       cmocka_unit_test(round_trips),
        cmocka_unit_test(generated_round_trips), cmocka_unit_test(refusals),
        cmocka_unit_test(hostile_bytes),         cmocka_unit_test(foreign_encodings),
        cmocka_unit_test(persistent_encoder),    cmocka_unit_test(refusal_precedence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
