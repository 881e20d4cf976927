/* The Variant builder (variant/builder.h): the same bytes as
 * variant_from_json for thousands of generated documents driven through
 * both (every JSON type, keys in any order, unicode and escaped keys and
 * strings, integers past int64, deep nesting, containers past 255
 * elements, dictionaries past 256 keys); each primitive JSON cannot
 * express, checked byte by byte and decoded back; every refusal; memory
 * kept and reused across values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/buf.h"
#include "variant/builder.h"
#include "variant/variant.h"

typedef variant_builder_i128 i128;

/* ---- the differential property ---- */

/* One document written both ways: JSON text into json, calls into b. */
struct gen {
    unsigned seed;
    struct buf json;
    struct variant_builder *b;
    struct error err;
    int deep; /* documents nested to the limit */
};

static unsigned pick(struct gen *g, unsigned n)
{
    return (unsigned)rand_r(&g->seed) % n;
}

static void call_ok(struct gen *g, int rc)
{
    if (rc != 0)
        fail_msg("builder: %s", g->err.msg);
}

/* A UTF-8 piece of a string and its JSON text (raw, or escaped). */
struct piece {
    const char *raw, *json;
};

static const struct piece pieces[] = {
    {"a", "a"},
    {"Z", "Z"},
    {" ", " "},
    {"\xc3\xa9", "\xc3\xa9"},
    {"\xc3\xa9", "\\u00e9"},
    {"\xe6\x97\xa5", "\xe6\x97\xa5"},
    {"\xf0\x9f\x98\x80", "\\ud83d\\ude00"},
    {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"},
    {"\"", "\\\""},
    {"\\", "\\\\"},
    {"\n", "\\n"},
    {"\x01", "\\u0001"},
    {"/", "\\/"},
};

/* n pieces of a string: their bytes appended to raw, their JSON text to
 * g->json. */
static void gen_text(struct gen *g, struct buf *raw, int n)
{
    for (int i = 0; i < n; i++) {
        const struct piece *p = &pieces[pick(g, sizeof pieces / sizeof *pieces)];
        buf_puts(raw, p->raw);
        buf_puts(&g->json, p->json);
    }
}

static int string_length(struct gen *g)
{
    unsigned r = pick(g, 100);
    return r < 70 ? (int)pick(g, 20) : r < 99 ? 20 + (int)pick(g, 100) : 3000;
}

static void gen_string(struct gen *g)
{
    struct buf raw = BUF_INIT;
    buf_putc(&g->json, '"');
    gen_text(g, &raw, string_length(g));
    buf_putc(&g->json, '"');
    call_ok(g, variant_builder_string(g->b, raw.data ? raw.data : "", raw.len, &g->err));
    buf_free(&raw);
}

static int64_t gen_int64(struct gen *g)
{
    static const int64_t edges[] = {0,          -1,          127,       128,      -128,
                                    -129,       32767,       32768,     -32769,   2147483647,
                                    2147483648, -2147483649, INT64_MAX, INT64_MIN};
    if (pick(g, 4) == 0)
        return edges[pick(g, sizeof edges / sizeof *edges)];
    uint64_t v = (uint64_t)rand_r(&g->seed) << 40 ^ (uint64_t)rand_r(&g->seed) << 20 ^
                 (uint64_t)rand_r(&g->seed);
    return (int64_t)(v >> pick(g, 64));
}

static void gen_int(struct gen *g)
{
    int64_t v = gen_int64(g);
    buf_printf(&g->json, "%lld", (long long)v);
    call_ok(g, variant_builder_int(g->b, v, &g->err));
}

/* An integer past int64 of at most 38 digits: decimal16 scale 0. */
static void gen_big(struct gen *g)
{
    int n = 19 + (int)pick(g, 20);
    bool negative = pick(g, 2);
    char digits[40];
    i128 v = 0;
    for (int i = 0; i < n; i++) {
        /* 19 digits from 93... on are past int64 either side of zero */
        unsigned d = i == 0              ? (n == 19 ? 9 : 1 + pick(g, 9))
                     : i == 1 && n == 19 ? 3 + pick(g, 7)
                                         : pick(g, 10);
        digits[i] = (char)('0' + d);
        v = v * 10 + d;
    }
    buf_printf(&g->json, "%s%.*s", negative ? "-" : "", n, digits);
    call_ok(g, variant_builder_decimal(g->b, negative ? -v : v, 0, &g->err));
}

static void gen_double(struct gen *g)
{
    double d;
    if (pick(g, 2)) {
        d = (double)(rand_r(&g->seed) % 100000) / (1 + pick(g, 1000)) - 50;
    } else {
        uint64_t bits = (uint64_t)rand_r(&g->seed) << 42 ^ (uint64_t)rand_r(&g->seed) << 21 ^
                        (uint64_t)rand_r(&g->seed);
        memcpy(&d, &bits, 8);
        if (d != d || d - d != 0) /* not finite: JSON has none */
            d = -0.0;
    }
    char text[40];
    snprintf(text, sizeof text, "%.17g", d);
    /* A double's text always has a fraction or exponent (else JSON reads
     * an integer). */
    buf_puts(&g->json, text);
    if (!strpbrk(text, ".e"))
        buf_puts(&g->json, ".0");
    call_ok(g, variant_builder_double(g->b, d, &g->err));
}

static void gen_value(struct gen *g, int depth);

static void gen_array(struct gen *g, int depth)
{
    int n = depth < 2 && pick(g, 30) == 0 ? 256 + (int)pick(g, 50) : (int)pick(g, 6);
    buf_putc(&g->json, '[');
    call_ok(g, variant_builder_begin_array(g->b, &g->err));
    for (int i = 0; i < n; i++) {
        if (i)
            buf_puts(&g->json, pick(g, 2) ? "," : " , ");
        gen_value(g, depth + 1);
    }
    buf_putc(&g->json, ']');
    call_ok(g, variant_builder_end_array(g->b, &g->err));
}

/* An object of distinct keys in a random order: short, unicode and
 * escaped ones, or (for large objects) many numbered ones. */
static void gen_object(struct gen *g, int depth)
{
    bool large = depth < 2 && pick(g, 30) == 0;
    int n = large ? 256 + (int)pick(g, 300) : (int)pick(g, 7);
    buf_putc(&g->json, '{');
    call_ok(g, variant_builder_begin_object(g->b, &g->err));
    unsigned base = pick(g, 1000);
    struct buf raw = BUF_INIT;
    for (int i = 0; i < n; i++) {
        if (i)
            buf_putc(&g->json, ',');
        buf_reset(&raw);
        if (large) { /* distinct: each i once, in a scrambled order */
            buf_printf(&raw, "f%u_%d", base, (i * 7919) % n);
            buf_printf(&g->json, "\"%s\"", raw.data);
        } else { /* distinct: the field's index leads, random pieces follow */
            buf_putc(&raw, (char)('a' + i));
            buf_printf(&g->json, "\"%c", 'a' + i);
            gen_text(g, &raw, (int)pick(g, 4));
            buf_putc(&g->json, '"');
        }
        buf_putc(&g->json, ':');
        call_ok(g, variant_builder_key(g->b, raw.data, raw.len, &g->err));
        gen_value(g, depth + 1);
    }
    buf_free(&raw);
    buf_putc(&g->json, '}');
    call_ok(g, variant_builder_end_object(g->b, &g->err));
}

static void gen_deep(struct gen *g, int depth, int levels)
{
    if (levels == 0) {
        g->deep += depth == VARIANT_MAX_DEPTH;
        gen_int(g);
        return;
    }
    bool obj = pick(g, 2);
    buf_puts(&g->json, obj ? "{\"d\xc3\xa9\":" : "[");
    call_ok(g, obj ? variant_builder_begin_object(g->b, &g->err)
                   : variant_builder_begin_array(g->b, &g->err));
    if (obj)
        call_ok(g, variant_builder_key(g->b, "d\xc3\xa9", 3, &g->err));
    gen_deep(g, depth + 1, levels - 1);
    buf_puts(&g->json, obj ? "}" : "]");
    call_ok(g, obj ? variant_builder_end_object(g->b, &g->err)
                   : variant_builder_end_array(g->b, &g->err));
}

static void gen_value(struct gen *g, int depth)
{
    unsigned kind = pick(g, depth > 4 ? 8 : 11);
    switch (kind) {
    case 0: buf_puts(&g->json, "null"), call_ok(g, variant_builder_null(g->b, &g->err)); break;
    case 1: {
        bool v = pick(g, 2);
        buf_puts(&g->json, v ? "true" : "false");
        call_ok(g, variant_builder_bool(g->b, v, &g->err));
        break;
    }
    case 2:
    case 3: gen_int(g); break;
    case 4: gen_big(g); break;
    case 5: gen_double(g); break;
    case 6:
    case 7: gen_string(g); break;
    case 8: gen_array(g, depth); break;
    case 9: gen_object(g, depth); break;
    default:
        if (pick(g, 10) == 0)
            gen_deep(g, depth, VARIANT_MAX_DEPTH - depth - (int)pick(g, 3));
        else
            gen_object(g, depth);
    }
}

static void expect_same(const struct buf *got, const struct buf *want, const char *what,
                        const char *json)
{
    if (got->len == want->len && memcmp(got->data, want->data, got->len) == 0)
        return;
    size_t i = 0;
    while (i < got->len && i < want->len && got->data[i] == want->data[i])
        i++;
    fail_msg("%s differs at byte %zu (%zu vs %zu bytes) for %.200s", what, i, got->len, want->len,
             json);
}

static void matches_json_encoder(void **state)
{
    (void)state;
    struct gen g = {.seed = 20240611, .b = variant_builder_new()};
    struct variant_encoder *enc = variant_encoder_new();
    assert_non_null(g.b);
    assert_non_null(enc);
    struct buf bm = BUF_INIT, bv = BUF_INIT, jm = BUF_INIT, jv = BUF_INIT;
    struct buf fm = BUF_INIT, fv = BUF_INIT;
    int big_dicts = 0, big_values = 0;
    for (int i = 0; i < 4000; i++) {
        buf_reset(&g.json);
        gen_value(&g, 0);
        buf_reset(&bm), buf_reset(&bv), buf_reset(&jm), buf_reset(&jv);
        buf_reset(&fm), buf_reset(&fv);
        struct error e;
        call_ok(&g, variant_builder_finish(g.b, &bm, &bv, &g.err));
        if (variant_encoder_encode(enc, g.json.data, g.json.len, &jm, &jv, &e) != 0)
            fail_msg("JSON encoder: %s for %.200s", e.msg, g.json.data);
        expect_same(&bm, &jm, "metadata", g.json.data);
        expect_same(&bv, &jv, "value", g.json.data);
        /* and the one-shot encoder, which keeps nothing between values */
        assert_int_equal(variant_from_json(g.json.data, g.json.len, &fm, &fv, &e), 0);
        expect_same(&bv, &fv, "value (one-shot)", g.json.data);
        struct variant_dict d;
        assert_int_equal(variant_dict_open((const uint8_t *)bm.data, bm.len, &d, &e), 0);
        big_dicts += d.n > 256;       /* 2-byte field ids */
        big_values += bv.len > 65535; /* 3-byte offsets */
    }
    /* the cases the generator is there to reach were reached */
    assert_true(big_dicts > 0 && big_values > 0 && g.deep > 0);
    buf_free(&bm), buf_free(&bv), buf_free(&jm), buf_free(&jv), buf_free(&fm), buf_free(&fv);
    buf_free(&g.json);
    variant_encoder_free(enc);
    variant_builder_free(g.b);
}

/* ---- primitives JSON text cannot give ---- */

struct built {
    struct buf m, v;
};

static void built_free(struct built *x)
{
    buf_free(&x->m);
    buf_free(&x->v);
}

static char *as_json(const struct built *x)
{
    struct buf out = BUF_INIT;
    struct error e;
    if (variant_to_json((const uint8_t *)x->m.data, x->m.len, (const uint8_t *)x->v.data, x->v.len,
                        &out, &e) != 0)
        fail_msg("decoding: %s", e.msg);
    buf_putc(&out, '\0');
    return buf_take(&out);
}

/* A one-primitive value: its bytes must be want (n of them) and decode
 * to json. */
static void expect_primitive(struct variant_builder *b, const uint8_t *want, size_t n,
                             const char *json)
{
    struct built x = {BUF_INIT, BUF_INIT};
    struct error e;
    assert_int_equal(variant_builder_finish(b, &x.m, &x.v, &e), 0);
    static const uint8_t empty_meta[] = {0x11, 0, 0};
    assert_int_equal(x.m.len, sizeof empty_meta);
    assert_memory_equal(x.m.data, empty_meta, sizeof empty_meta);
    if (x.v.len != n || memcmp(x.v.data, want, n) != 0) {
        for (size_t i = 0; i < x.v.len; i++)
            printf("%02x ", (uint8_t)x.v.data[i]);
        fail_msg("bytes differ for %s", json);
    }
    char *got = as_json(&x);
    assert_string_equal(got, json);
    free(got);
    built_free(&x);
}

#define PRIM(b) (uint8_t)((b) << 2)

static void primitives(void **state)
{
    (void)state;
    struct variant_builder *b = variant_builder_new();
    struct error e;

    assert_int_equal(variant_builder_float(b, 1.5f, &e), 0);
    expect_primitive(b, (const uint8_t[]){PRIM(14), 0, 0, 0xc0, 0x3f}, 5, "1.5");

    /* decimals: the narrowest width whose precision holds the digits */
    assert_int_equal(variant_builder_decimal(b, 12345, 2, &e), 0);
    expect_primitive(b, (const uint8_t[]){PRIM(8), 2, 0x39, 0x30, 0, 0}, 6, "123.45");
    assert_int_equal(variant_builder_decimal(b, -999999999, 0, &e), 0);
    expect_primitive(b, (const uint8_t[]){PRIM(8), 0, 0x01, 0x36, 0x65, 0xc4}, 6, "-999999999");
    assert_int_equal(variant_builder_decimal(b, 1000000000, 9, &e), 0);
    expect_primitive(b, (const uint8_t[]){PRIM(9), 9, 0x00, 0xca, 0x9a, 0x3b, 0, 0, 0, 0}, 10,
                     "1.000000000");
    i128 e18 = (i128)1000000000000000000;
    assert_int_equal(variant_builder_decimal(b, -e18, 38, &e), 0);
    expect_primitive(b,
                     (const uint8_t[]){PRIM(10), 38, 0x00, 0x00, 0x9c, 0x58, 0x4c, 0x49, 0x1f, 0xf2,
                                       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
                     18, "-0.00000000000000000001000000000000000000");

    assert_int_equal(variant_builder_date(b, 19737, &e), 0); /* 2024-01-15 */
    expect_primitive(b, (const uint8_t[]){PRIM(11), 0x19, 0x4d, 0, 0}, 5, "\"2024-01-15\"");
    assert_int_equal(variant_builder_date(b, -1, &e), 0);
    expect_primitive(b, (const uint8_t[]){PRIM(11), 0xff, 0xff, 0xff, 0xff}, 5, "\"1969-12-31\"");
    assert_int_equal(variant_builder_time(b, INT64_C(45296000007), &e), 0); /* 12:34:56.000007 */
    expect_primitive(b, (const uint8_t[]){PRIM(17), 0x07, 0x1c, 0xda, 0x8b, 0x0a, 0, 0, 0}, 9,
                     "\"12:34:56.000007\"");

    int64_t us = INT64_C(1700000000123456);
    const uint8_t us_le[] = {0x40, 0x22, 0x20, 0x18, 0x24, 0x0a, 0x06, 0x00};
    uint8_t want[9];
    memcpy(want + 1, us_le, 8);
    assert_int_equal(variant_builder_timestamp(b, us, false, true, &e), 0);
    want[0] = PRIM(12);
    expect_primitive(b, want, 9, "\"2023-11-14T22:13:20.123456Z\"");
    assert_int_equal(variant_builder_timestamp(b, us, false, false, &e), 0);
    want[0] = PRIM(13);
    expect_primitive(b, want, 9, "\"2023-11-14T22:13:20.123456\"");
    assert_int_equal(variant_builder_timestamp(b, us, true, true, &e), 0);
    want[0] = PRIM(18);
    expect_primitive(b, want, 9, "\"1970-01-20T16:13:20.000123456Z\"");
    assert_int_equal(variant_builder_timestamp(b, us, true, false, &e), 0);
    want[0] = PRIM(19);
    expect_primitive(b, want, 9, "\"1970-01-20T16:13:20.000123456\"");

    assert_int_equal(variant_builder_binary(b, "\x00\xff\x10", 3, &e), 0);
    expect_primitive(b, (const uint8_t[]){PRIM(15), 3, 0, 0, 0, 0x00, 0xff, 0x10}, 8, "\"AP8Q\"");
    assert_int_equal(variant_builder_binary(b, NULL, 0, &e), 0);
    expect_primitive(b, (const uint8_t[]){PRIM(15), 0, 0, 0, 0}, 5, "\"\"");

    const uint8_t u[16] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3,
                           0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00};
    uint8_t uw[17] = {PRIM(20)};
    memcpy(uw + 1, u, 16);
    assert_int_equal(variant_builder_uuid(b, u, &e), 0);
    expect_primitive(b, uw, 17, "\"123e4567-e89b-12d3-a456-426614174000\"");

    /* a 64-byte string is a long string, 63 bytes a short one */
    char s64[64];
    memset(s64, 'x', sizeof s64);
    assert_int_equal(variant_builder_string(b, s64, 63, &e), 0);
    struct built x = {BUF_INIT, BUF_INIT};
    assert_int_equal(variant_builder_finish(b, &x.m, &x.v, &e), 0);
    assert_int_equal(x.v.len, 64);
    assert_int_equal((uint8_t)x.v.data[0], 1 | 63 << 2);
    built_free(&x);
    assert_int_equal(variant_builder_string(b, s64, 64, &e), 0);
    assert_int_equal(variant_builder_finish(b, &x.m, &x.v, &e), 0);
    assert_int_equal(x.v.len, 69);
    assert_int_equal((uint8_t)x.v.data[0], PRIM(16));
    built_free(&x);
    variant_builder_free(b);
}

/* Typed values inside containers keep their types and sort by key. */
static void typed_in_containers(void **state)
{
    (void)state;
    struct variant_builder *b = variant_builder_new();
    struct error e;
    assert_int_equal(variant_builder_begin_object(b, &e), 0);
    assert_int_equal(variant_builder_key(b, "t", 1, &e), 0);
    assert_int_equal(variant_builder_timestamp(b, 0, false, true, &e), 0);
    assert_int_equal(variant_builder_key(b, "d", 1, &e), 0);
    assert_int_equal(variant_builder_decimal(b, 5, 1, &e), 0);
    assert_int_equal(variant_builder_key(b, "a", 1, &e), 0);
    assert_int_equal(variant_builder_begin_array(b, &e), 0);
    assert_int_equal(variant_builder_float(b, -2.0f, &e), 0);
    assert_int_equal(variant_builder_date(b, 0, &e), 0);
    assert_int_equal(variant_builder_end_array(b, &e), 0);
    assert_int_equal(variant_builder_end_object(b, &e), 0);
    struct built x = {BUF_INIT, BUF_INIT};
    assert_int_equal(variant_builder_finish(b, &x.m, &x.v, &e), 0);
    char *got = as_json(&x);
    assert_string_equal(got, "{\"a\":[-2.0,\"1970-01-01\"],\"d\":0.5,"
                             "\"t\":\"1970-01-01T00:00:00Z\"}");
    free(got);
    assert_int_equal(
        variant_check((const uint8_t *)x.m.data, x.m.len, (const uint8_t *)x.v.data, x.v.len, &e),
        0);
    built_free(&x);
    variant_builder_free(b);
}

/* ---- refusals ---- */

static void expect_refusal(int rc, const struct error *e, enum error_code code, const char *reason)
{
    assert_int_equal(rc, -1);
    assert_int_equal(e->code, code);
    if (reason)
        assert_string_equal(e->reason, reason);
}

static void refusals(void **state)
{
    (void)state;
    struct variant_builder *b = variant_builder_new();
    struct error e;

    assert_int_equal(variant_builder_begin_object(b, &e), 0);
    assert_int_equal(variant_builder_key(b, "k", 1, &e), 0);
    assert_int_equal(variant_builder_null(b, &e), 0);
    assert_int_equal(variant_builder_key(b, "j", 1, &e), 0);
    assert_int_equal(variant_builder_null(b, &e), 0);
    assert_int_equal(variant_builder_key(b, "k", 1, &e), 0);
    assert_int_equal(variant_builder_int(b, 1, &e), 0);
    expect_refusal(variant_builder_end_object(b, &e), &e, ERR_INVALID, "duplicate_key");
    assert_non_null(strstr(e.msg, "'k'"));
    variant_builder_reset(b);

    for (int i = 0; i < VARIANT_MAX_DEPTH; i++)
        assert_int_equal(variant_builder_begin_array(b, &e), 0);
    expect_refusal(variant_builder_begin_object(b, &e), &e, ERR_INVALID, "nesting_too_deep");
    variant_builder_reset(b);

    assert_int_equal(variant_builder_begin_object(b, &e), 0);
    expect_refusal(variant_builder_key(b, "\xc3", 1, &e), &e, ERR_INVALID, "variant_encoding");
    variant_builder_reset(b);
    expect_refusal(variant_builder_string(b, "a\xed\xa0\x80", 4, &e), &e, ERR_INVALID,
                   "variant_encoding"); /* an encoded surrogate */

    i128 e38 = (i128)10000000000000000000u * (i128)10000000000000000000u;
    expect_refusal(variant_builder_decimal(b, e38, 0, &e), &e, ERR_INVALID, "number_out_of_range");
    expect_refusal(variant_builder_decimal(b, -e38, 0, &e), &e, ERR_INVALID, "number_out_of_range");
    expect_refusal(variant_builder_decimal(b, 1, 39, &e), &e, ERR_INVALID, "number_out_of_range");
    expect_refusal(variant_builder_decimal(b, 1, -1, &e), &e, ERR_INVALID, "number_out_of_range");
    expect_refusal(variant_builder_time(b, INT64_C(86400000000), &e), &e, ERR_INVALID,
                   "number_out_of_range");
    expect_refusal(variant_builder_time(b, -1, &e), &e, ERR_INVALID, "number_out_of_range");

    /* calls out of order */
    struct buf m = BUF_INIT, v = BUF_INIT;
    expect_refusal(variant_builder_finish(b, &m, &v, &e), &e, ERR_INTERNAL, NULL);
    expect_refusal(variant_builder_key(b, "k", 1, &e), &e, ERR_INTERNAL, NULL);
    expect_refusal(variant_builder_end_array(b, &e), &e, ERR_INTERNAL, NULL);
    assert_int_equal(variant_builder_begin_object(b, &e), 0);
    expect_refusal(variant_builder_int(b, 1, &e), &e, ERR_INTERNAL, NULL); /* no key */
    assert_int_equal(variant_builder_key(b, "k", 1, &e), 0);
    expect_refusal(variant_builder_key(b, "k", 1, &e), &e, ERR_INTERNAL, NULL);
    expect_refusal(variant_builder_end_object(b, &e), &e, ERR_INTERNAL, NULL); /* no value */
    variant_builder_reset(b);
    assert_int_equal(variant_builder_int(b, 1, &e), 0);
    expect_refusal(variant_builder_int(b, 2, &e), &e, ERR_INTERNAL, NULL); /* two roots */
    variant_builder_reset(b);
    assert_int_equal(variant_builder_begin_array(b, &e), 0);
    expect_refusal(variant_builder_finish(b, &m, &v, &e), &e, ERR_INTERNAL, NULL);
    assert_int_equal(m.len + v.len, 0); /* nothing appended */

    /* After a refusal and a reset, the next value is whole. */
    variant_builder_reset(b);
    assert_int_equal(variant_builder_begin_object(b, &e), 0);
    assert_int_equal(variant_builder_key(b, "z", 1, &e), 0);
    assert_int_equal(variant_builder_bool(b, true, &e), 0);
    assert_int_equal(variant_builder_end_object(b, &e), 0);
    assert_int_equal(variant_builder_finish(b, &m, &v, &e), 0);
    struct built x = {m, v};
    char *got = as_json(&x);
    assert_string_equal(got, "{\"z\":true}");
    free(got);
    built_free(&x);
    variant_builder_free(b);
}

/* ---- memory kept from value to value ---- */

/* Row r: {"k<r%3>": r, "s": [r, "x"]}, or a bare int every fourth. */
static void build_row(struct variant_builder *b, int r)
{
    struct error e;
    if (r % 4 == 3) {
        assert_int_equal(variant_builder_int(b, r * 1000, &e), 0);
        return;
    }
    char key[8];
    snprintf(key, sizeof key, "k%d", r % 3);
    assert_int_equal(variant_builder_begin_object(b, &e), 0);
    assert_int_equal(variant_builder_key(b, "s", 1, &e), 0);
    assert_int_equal(variant_builder_begin_array(b, &e), 0);
    assert_int_equal(variant_builder_int(b, r, &e), 0);
    assert_int_equal(variant_builder_string(b, "x", 1, &e), 0);
    assert_int_equal(variant_builder_end_array(b, &e), 0);
    assert_int_equal(variant_builder_key(b, key, strlen(key), &e), 0);
    assert_int_equal(variant_builder_int(b, r, &e), 0);
    assert_int_equal(variant_builder_end_object(b, &e), 0);
}

static void memory_reused(void **state)
{
    (void)state;
    struct variant_builder *kept = variant_builder_new();
    struct buf m = BUF_INIT, v = BUF_INIT;
    struct error e;
    size_t mends[200], vends[200];
    /* one builder, its output appended row after row to the same bufs */
    for (int r = 0; r < 200; r++) {
        if (r % 50 == 7) { /* a failed value between rows leaves nothing behind */
            assert_int_equal(variant_builder_begin_array(kept, &e), 0);
            assert_int_equal(variant_builder_string(kept, "\xff", 1, &e), -1);
            variant_builder_reset(kept);
        }
        build_row(kept, r);
        assert_int_equal(variant_builder_finish(kept, &m, &v, &e), 0);
        mends[r] = m.len;
        vends[r] = v.len;
    }
    /* each row as a fresh builder writes it */
    for (int r = 0; r < 200; r++) {
        struct variant_builder *fresh = variant_builder_new();
        struct built x = {BUF_INIT, BUF_INIT};
        build_row(fresh, r);
        assert_int_equal(variant_builder_finish(fresh, &x.m, &x.v, &e), 0);
        size_t m0 = r ? mends[r - 1] : 0, v0 = r ? vends[r - 1] : 0;
        assert_int_equal(mends[r] - m0, x.m.len);
        assert_memory_equal(m.data + m0, x.m.data, x.m.len);
        assert_int_equal(vends[r] - v0, x.v.len);
        assert_memory_equal(v.data + v0, x.v.data, x.v.len);
        built_free(&x);
        variant_builder_free(fresh);
    }
    buf_free(&m);
    buf_free(&v);
    variant_builder_free(kept);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_json_encoder), cmocka_unit_test(primitives),
        cmocka_unit_test(typed_in_containers),  cmocka_unit_test(refusals),
        cmocka_unit_test(memory_reused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
