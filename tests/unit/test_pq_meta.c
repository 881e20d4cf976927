/* Parquet metadata: the Thrift compact protocol (thrift.c) and the
 * FileMetaData, PageHeader, ColumnIndex and OffsetIndex codecs (meta.c).
 *
 * Round trips of every field; hand-made byte sequences from the compact
 * protocol spec (varints, zigzag, field-id deltas and the long form, bool
 * fields and elements, nested lists and structs, every type skipped as an
 * unknown field); and refusal of malformed input (truncation at every
 * byte, counts and lengths past the input, negative sizes, nesting past
 * the limit, wrong wire types for known fields) with ERR_CORRUPT.
 * Decoders are handed exact-size heap copies, so ASan sees any read past
 * the input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parquet/meta.h"
#include "parquet/thrift.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* An exact-size heap copy, so that a read one byte past the end is an ASan
 * report rather than a silent read of the caller's buffer. */
static uint8_t *dup_exact(const void *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    assert_non_null(c);
    if (n)
        memcpy(c, p, n);
    return c;
}

/* ---- the writer produces the spec's bytes ---- */

static void expect_bytes(const struct buf *b, const uint8_t *want, size_t n)
{
    if (b->len != n || memcmp(b->data, want, n) != 0) {
        char got[512] = "";
        for (size_t i = 0; i < b->len && i < 100; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%02x ", (uint8_t)b->data[i]);
        fail_msg("encoded %zu bytes: %s(expected %zu)", b->len, got, n);
    }
}

static void test_writer_bytes(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    struct tc_writer w;
    tcw_init(&w, &b);
    tcw_struct_begin(&w);
    tcw_field_i32(&w, 1, 0);                /* 0x15 0x00 */
    tcw_field_i32(&w, 2, -1);               /* 0x15 0x01 */
    tcw_field_i32(&w, 3, 64);               /* 0x15 0x80 0x01 */
    tcw_field_i64(&w, 5, INT64_MIN);        /* delta 2: 0x26, ten bytes */
    tcw_field_bool(&w, 6, true);            /* 0x11 */
    tcw_field_bool(&w, 7, false);           /* 0x12 */
    tcw_field_i32(&w, 30, INT32_MAX);       /* delta 23: long form 0x05, zigzag(30) = 60 */
    tcw_field_i16(&w, 2, -2);               /* backwards: long form 0x04, zigzag(2) = 4 */
    tcw_field_byte(&w, 3, -1);              /* 0x13 0xff */
    tcw_field_string(&w, 4, "ab");          /* 0x18 0x02 'a' 'b' */
    tcw_field_list_begin(&w, 5, TC_I32, 2); /* 0x19 0x25 */
    tcw_elem_i32(&w, 1);
    tcw_elem_i32(&w, -2);
    tcw_field_list_begin(&w, 6, TC_BINARY, 15); /* 0x19 0xf8 0x0f: the long count */
    for (int i = 0; i < 15; i++)
        tcw_elem_binary(&w, "", 0);
    tcw_field_struct_begin(&w, 7); /* 0x1c */
    tcw_field_bool(&w, 1, true);   /* the inner struct's ids start over: 0x11 */
    tcw_struct_end(&w);            /* 0x00 */
    tcw_field_i32(&w, 8, 1);       /* the outer id continues from 7: 0x15 0x02 */
    tcw_struct_end(&w);
    assert_false(w.failed);
    static const uint8_t want[] = {0x15, 0x00, 0x15, 0x01, 0x15, 0x80, 0x01, 0x26, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x11, 0x12, 0x05, 60,
                                   0xfe, 0xff, 0xff, 0xff, 0x0f, 0x04, 0x04, 0x03, 0x13, 0xff, 0x18,
                                   0x02, 'a',  'b',  0x19, 0x25, 0x02, 0x03, 0x19, 0xf8, 0x0f, 0,
                                   0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
                                   0,    0,    0,    0x1c, 0x11, 0x00, 0x15, 0x02, 0x00};
    expect_bytes(&b, want, sizeof want);
    buf_free(&b);
}

/* ---- reading hand-made bytes ---- */

static void test_varints_and_zigzag(void **state)
{
    (void)state;
    static const uint8_t in[] = {
        0x15, 0x00,                                                       /* 1: 0 */
        0x15, 0x01,                                                       /* 2: -1 */
        0x15, 0x02,                                                       /* 3: 1 */
        0x15, 0x7f,                                                       /* 4: -64 */
        0x15, 0x80, 0x01,                                                 /* 5: 64 */
        0x15, 0xfe, 0xff, 0xff, 0xff, 0x0f,                               /* 6: INT32_MAX */
        0x15, 0xff, 0xff, 0xff, 0xff, 0x0f,                               /* 7: INT32_MIN */
        0x16, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* 8: INT64_MAX */
        0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* 9: INT64_MIN */
        0x14, 0xfe, 0xff, 0x03,                                           /* 10: i16 max */
        0x13, 0x80,                                                       /* 11: byte -128 */
        0x16, 0x81, 0x80, 0x80, 0x00, /* 12: zigzag 1 in a padded (non-minimal) varint */
        0x00};
    static const int64_t want[] = {0,         -1,        1,         -64,       64,   INT32_MAX,
                                   INT32_MIN, INT64_MAX, INT64_MIN, INT16_MAX, -128, -1};
    uint8_t *p = dup_exact(in, sizeof in);
    struct tc_reader r;
    tcr_init(&r, p, sizeof in);
    tcr_struct_begin(&r);
    int16_t id;
    enum tc_type t;
    size_t n = 0;
    while (tcr_field(&r, &id, &t)) {
        assert_int_equal(id, (int16_t)(n + 1));
        int64_t v = t == TC_I32    ? tcr_i32(&r)
                    : t == TC_I16  ? tcr_i16(&r)
                    : t == TC_BYTE ? tcr_byte(&r)
                                   : tcr_i64(&r);
        assert_int_equal(v, want[n]);
        n++;
    }
    tcr_struct_end(&r);
    assert_false(r.failed);
    assert_int_equal(n, ARRAY_LEN(want));
    assert_ptr_equal(r.p, r.end);
    free(p);
}

/* Reads one value of type t from a one-field struct; returns whether the
 * reader failed. */
static bool read_one(const uint8_t *in, size_t n, int64_t *out)
{
    uint8_t *p = dup_exact(in, n);
    struct tc_reader r;
    tcr_init(&r, p, n);
    tcr_struct_begin(&r);
    int16_t id;
    enum tc_type t;
    *out = 0;
    while (tcr_field(&r, &id, &t)) {
        if (t == TC_I32)
            *out = tcr_i32(&r);
        else if (t == TC_I16)
            *out = tcr_i16(&r);
        else if (t == TC_I64)
            *out = tcr_i64(&r);
        else
            tcr_skip(&r, t);
    }
    free(p);
    return r.failed;
}

static void test_bad_varints(void **state)
{
    (void)state;
    int64_t v;
    /* An i32 field holding a value past 32 bits. */
    static const uint8_t i32_big[] = {0x15, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00};
    assert_true(read_one(i32_big, sizeof i32_big, &v));
    static const uint8_t i16_big[] = {0x14, 0x80, 0x80, 0x04, 0x00};
    assert_true(read_one(i16_big, sizeof i16_big, &v));
    /* Eleven bytes of varint. */
    static const uint8_t long_varint[] = {0x16, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                          0x80, 0x80, 0x80, 0x80, 0x01, 0x00};
    assert_true(read_one(long_varint, sizeof long_varint, &v));
    /* A varint whose last byte still has its continuation bit. */
    static const uint8_t open_varint[] = {0x16, 0x80, 0x80};
    assert_true(read_one(open_varint, sizeof open_varint, &v));
    /* Ten bytes is the most, and fine. */
    static const uint8_t ten[] = {0x16, 0x80, 0x80, 0x80, 0x80, 0x80,
                                  0x80, 0x80, 0x80, 0x80, 0x01, 0x00};
    assert_false(read_one(ten, sizeof ten, &v));
    assert_int_equal(v, INT64_C(1) << 62); /* unzigzag(2^63) */
}

static void test_field_ids(void **state)
{
    (void)state;
    static const uint8_t in[] = {0x15, 0x00,                   /* delta 1: id 1 */
                                 0xf5, 0x00,                   /* delta 15: id 16 */
                                 0x05, 0xc8, 0x01, 0x00,       /* long form: id 100 */
                                 0x05, 0x03, 0x00,             /* long form, backwards: id -2 */
                                 0x35, 0x00,                   /* delta 3 from -2: id 1 */
                                 0x05, 0x00, 0x00,             /* long form id 0 */
                                 0x05, 0xfe, 0xff, 0x03, 0x00, /* id 32767 */
                                 0x00};
    static const int16_t want[] = {1, 16, 100, -2, 1, 0, INT16_MAX};
    uint8_t *p = dup_exact(in, sizeof in);
    struct tc_reader r;
    tcr_init(&r, p, sizeof in);
    tcr_struct_begin(&r);
    int16_t id;
    enum tc_type t;
    size_t n = 0;
    while (tcr_field(&r, &id, &t)) {
        assert_true(n < ARRAY_LEN(want));
        assert_int_equal(id, want[n]);
        assert_int_equal(t, TC_I32);
        assert_int_equal(tcr_i32(&r), 0);
        n++;
    }
    assert_false(r.failed);
    assert_int_equal(n, ARRAY_LEN(want));
    free(p);

    int64_t v;
    /* Past INT16_MAX, by long form and by delta. */
    static const uint8_t big[] = {0x05, 0x80, 0x80, 0x04, 0x00, 0x00};
    assert_true(read_one(big, sizeof big, &v));
    static const uint8_t wrap[] = {0x05, 0xfe, 0xff, 0x03, 0x00, 0x15, 0x00, 0x00};
    assert_true(read_one(wrap, sizeof wrap, &v));
    /* Type nibbles 13..15 are not types. */
    for (uint8_t ty = 13; ty <= 15; ty++) {
        uint8_t bad[] = {(uint8_t)(0x10 | ty), 0x00, 0x00};
        assert_true(read_one(bad, sizeof bad, &v));
    }
}

static void test_bools(void **state)
{
    (void)state;
    /* Bool fields carry the value in the type nibble; bool list elements
     * are a byte each, 1 true and 2 (or 0) false. */
    static const uint8_t in[] = {0x11, 0x12, 0x19, 0x41, 0x01, 0x02, 0x00, 0x01, 0x12, 0x00};
    uint8_t *p = dup_exact(in, sizeof in);
    struct tc_reader r;
    tcr_init(&r, p, sizeof in);
    tcr_struct_begin(&r);
    int16_t id;
    enum tc_type t;
    assert_true(tcr_field(&r, &id, &t));
    assert_int_equal(id, 1);
    assert_true(tcr_bool_field(&r));
    assert_true(tcr_field(&r, &id, &t));
    assert_int_equal(id, 2);
    assert_false(tcr_bool_field(&r));
    assert_true(tcr_field(&r, &id, &t));
    assert_int_equal(t, TC_LIST);
    enum tc_type et;
    assert_int_equal(tcr_list(&r, &et), 4);
    assert_int_equal(et, TC_TRUE);
    assert_true(tcr_bool_elem(&r));
    assert_false(tcr_bool_elem(&r));
    assert_false(tcr_bool_elem(&r));
    assert_true(tcr_bool_elem(&r));
    assert_true(tcr_field(&r, &id, &t));
    assert_int_equal(id, 4);
    assert_int_equal(t, TC_FALSE);
    assert_false(tcr_bool_field(&r));
    assert_false(tcr_field(&r, &id, &t));
    assert_false(r.failed);
    free(p);
}

static void test_nested_lists_and_structs(void **state)
{
    (void)state;
    /* 1: list of 2 structs {1: i32}, 2: struct {1: struct {3: binary}},
     * 3: list of 2 lists of i64, 4: list of 16 i32 (long count). */
    struct buf b = BUF_INIT;
    static const uint8_t head[] = {0x19, 0x2c, 0x15, 0x02, 0x00, 0x15, 0x04, 0x00,       /* 1 */
                                   0x1c, 0x1c, 0x38, 0x03, 'x',  'y',  'z',  0x00, 0x00, /* 2 */
                                   0x19, 0x29, 0x16, 0x02, 0x16, 0x04,                   /* 3 */
                                   0x19, 0xf5, 0x10};                                    /* 4 */
    buf_append(&b, head, sizeof head);
    for (int i = 0; i < 16; i++)
        buf_putc(&b, (char)(i * 2));
    buf_putc(&b, 0);
    uint8_t *p = dup_exact(b.data, b.len);
    struct tc_reader r;
    tcr_init(&r, p, b.len);
    tcr_struct_begin(&r);
    int16_t id, fid;
    enum tc_type t, ft, et;
    assert_true(tcr_field(&r, &id, &t));
    assert_int_equal(tcr_list(&r, &et), 2);
    assert_int_equal(et, TC_STRUCT);
    for (int i = 0; i < 2; i++) {
        tcr_struct_begin(&r);
        assert_true(tcr_field(&r, &fid, &ft));
        assert_int_equal(fid, 1);
        assert_int_equal(tcr_i32(&r), i + 1);
        assert_false(tcr_field(&r, &fid, &ft));
        tcr_struct_end(&r);
    }
    assert_true(tcr_field(&r, &id, &t));
    assert_int_equal(id, 2);
    tcr_struct_begin(&r);
    assert_true(tcr_field(&r, &fid, &ft));
    assert_int_equal(ft, TC_STRUCT);
    tcr_struct_begin(&r);
    assert_true(tcr_field(&r, &fid, &ft));
    assert_int_equal(fid, 3);
    size_t n;
    const uint8_t *s = tcr_binary(&r, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(s, "xyz", 3);
    assert_false(tcr_field(&r, &fid, &ft));
    tcr_struct_end(&r);
    assert_false(tcr_field(&r, &fid, &ft));
    tcr_struct_end(&r);
    assert_true(tcr_field(&r, &id, &t));
    assert_int_equal(id, 3);
    assert_int_equal(tcr_list(&r, &et), 2);
    assert_int_equal(et, TC_LIST);
    for (int i = 0; i < 2; i++) {
        enum tc_type it;
        assert_int_equal(tcr_list(&r, &it), 1);
        assert_int_equal(it, TC_I64);
        assert_int_equal(tcr_i64(&r), i + 1);
    }
    assert_true(tcr_field(&r, &id, &t));
    assert_int_equal(id, 4);
    assert_int_equal(tcr_list(&r, &et), 16);
    for (int i = 0; i < 16; i++)
        assert_int_equal(tcr_i32(&r), i);
    assert_false(tcr_field(&r, &id, &t));
    assert_false(r.failed);
    assert_ptr_equal(r.p, r.end);
    free(p);
    buf_free(&b);
}

/* One value of every type, as an unknown field's payload would hold it. */
struct typed_value {
    enum tc_type type;
    const char *bytes;
    size_t len;
};

#define TV(t, s)                                                                                   \
    {                                                                                              \
        t, s, sizeof(s) - 1                                                                        \
    }
static const struct typed_value every_type[] = {
    TV(TC_TRUE, ""),
    TV(TC_FALSE, ""),
    TV(TC_BYTE, "\x80"),
    TV(TC_I16, "\xfe\xff\x03"),
    TV(TC_I32, "\xfe\xff\xff\xff\x0f"),
    TV(TC_I64, "\x81\x80\x80\x80\x80\x80\x80\x80\x80\x01"),
    TV(TC_DOUBLE, "\x00\x00\x00\x00\x00\x00\xf0\x3f"),
    TV(TC_BINARY, "\x03\x00\x01\x02"),
    TV(TC_BINARY, "\x00"),
    TV(TC_LIST, "\x35\x02\x04\x06"),                /* 3 x i32 */
    TV(TC_LIST, "\x21\x01\x02"),                    /* 2 x bool */
    TV(TC_LIST, "\x2c\x15\x02\x00\x00"),            /* 2 x struct */
    TV(TC_LIST, "\x19\x15\x02"),                    /* 1 x list of 1 i32 */
    TV(TC_SET, "\x28\x01x\x00"),                    /* set of 2 binaries */
    TV(TC_MAP, "\x00"),                             /* empty map */
    TV(TC_MAP, "\x02\x5c\x02\x15\x02\x00\x04\x00"), /* 2 x i32 -> struct */
    TV(TC_MAP, "\x01\x11\x01\x02"),                 /* 1 x bool -> bool */
    TV(TC_MAP, "\x01\x89\x01x\x11\x01"),            /* binary -> list<bool> */
    TV(TC_STRUCT, "\x00"),
    TV(TC_STRUCT, "\x15\x02\x1c\x16\x04\x00\x19\x35\x01\x02\x03\x00"),
};
#undef TV

static void test_skip_every_type(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(every_type); i++) {
        const struct typed_value *v = &every_type[i];
        /* {50: the value, 51: i32 7, STOP}, the unknown field long-form. */
        struct buf b = BUF_INIT;
        buf_putc(&b, (char)v->type);
        buf_putc(&b, 100); /* zigzag(50) */
        buf_append(&b, v->bytes, v->len);
        static const uint8_t tail[] = {0x15, 0x0e, 0x00};
        buf_append(&b, tail, sizeof tail);
        uint8_t *p = dup_exact(b.data, b.len);
        struct tc_reader r;
        tcr_init(&r, p, b.len);
        tcr_struct_begin(&r);
        int16_t id;
        enum tc_type t;
        assert_true(tcr_field(&r, &id, &t));
        assert_int_equal(id, 50);
        assert_int_equal(t, v->type);
        tcr_skip(&r, t);
        if (r.failed)
            fail_msg("every_type[%zu]: %s", i, r.error);
        assert_true(tcr_field(&r, &id, &t));
        assert_int_equal(id, 51);
        assert_int_equal(tcr_i32(&r), 7);
        assert_false(tcr_field(&r, &id, &t));
        assert_false(r.failed);
        assert_ptr_equal(r.p, r.end);
        /* Every truncation of the value fails instead. */
        for (size_t cut = 2; cut < 2 + v->len; cut++) {
            uint8_t *q = dup_exact(b.data, cut);
            tcr_init(&r, q, cut);
            tcr_struct_begin(&r);
            assert_true(tcr_field(&r, &id, &t));
            tcr_skip(&r, t);
            assert_true(r.failed);
            free(q);
        }
        free(p);
        buf_free(&b);
    }
}

/* ---- FileMetaData, PageHeader and the page index: round trips ---- */

static struct pq_schema_element el_leaf(const char *name, enum pq_type type, enum pq_repetition rep,
                                        int32_t field_id)
{
    struct pq_schema_element e = {0};
    e.name = name;
    e.has_type = true;
    e.type = type;
    e.has_repetition = true;
    e.repetition = rep;
    e.has_field_id = true;
    e.field_id = field_id;
    return e;
}

/* A schema using every SchemaElement field and every logical type. */
static size_t full_schema(struct pq_schema_element *el)
{
    size_t n = 0;
    struct pq_schema_element root = {0};
    root.name = "schema";
    root.has_num_children = true;
    el[n++] = root;
    struct pq_logical lts[] = {
        {.kind = PQ_LT_STRING},
        {.kind = PQ_LT_ENUM},
        {.kind = PQ_LT_DECIMAL, .scale = 3, .precision = 21},
        {.kind = PQ_LT_DATE},
        {.kind = PQ_LT_TIME, .utc = true, .unit = PQ_MILLIS},
        {.kind = PQ_LT_TIME, .utc = false, .unit = PQ_NANOS},
        {.kind = PQ_LT_TIMESTAMP, .utc = true, .unit = PQ_MICROS},
        {.kind = PQ_LT_TIMESTAMP, .utc = false, .unit = PQ_NANOS},
        {.kind = PQ_LT_INTEGER, .bit_width = 8, .is_signed = false},
        {.kind = PQ_LT_INTEGER, .bit_width = 64, .is_signed = true},
        {.kind = PQ_LT_UNKNOWN},
        {.kind = PQ_LT_JSON},
        {.kind = PQ_LT_BSON},
        {.kind = PQ_LT_UUID},
        {.kind = PQ_LT_FLOAT16},
        {.kind = PQ_LT_VARIANT, .variant_version = 1},
    };
    static const char *const names[] = {"s",  "e",   "dec", "d", "tm", "tn",   "tsu", "tsn",
                                        "u8", "i64", "unk", "j", "b",  "uuid", "f16", "var"};
    for (size_t i = 0; i < ARRAY_LEN(lts); i++) {
        struct pq_schema_element e =
            el_leaf(names[i], i % 2 ? PQ_FIXED_LEN_BYTE_ARRAY : PQ_BYTE_ARRAY,
                    (enum pq_repetition)(i % 3), (int32_t)(i + 1) * 1000);
        if (e.type == PQ_FIXED_LEN_BYTE_ARRAY)
            e.type_length = (int32_t)i + 1;
        e.logical = lts[i];
        el[n++] = e;
    }
    struct pq_schema_element dec = el_leaf("legacy_dec", PQ_INT64, PQ_OPTIONAL, -5);
    dec.has_converted = true;
    dec.converted = PQ_CT_DECIMAL;
    dec.has_decimal = true;
    dec.scale = 2;
    dec.precision = 18;
    el[n++] = dec;
    struct pq_schema_element list = {0};
    list.name = "l";
    list.has_repetition = true;
    list.repetition = PQ_OPTIONAL;
    list.has_num_children = true;
    list.num_children = 1;
    list.has_converted = true;
    list.converted = PQ_CT_LIST;
    list.logical.kind = PQ_LT_LIST;
    el[n++] = list;
    struct pq_schema_element rep = {0};
    rep.name = "list";
    rep.has_repetition = true;
    rep.repetition = PQ_REPEATED;
    rep.has_num_children = true;
    rep.num_children = 1;
    el[n++] = rep;
    el[n++] = el_leaf("element", PQ_INT96, PQ_REQUIRED, INT32_MAX);
    struct pq_schema_element map = list;
    map.name = "m";
    map.converted = PQ_CT_MAP;
    map.logical.kind = PQ_LT_MAP;
    map.has_field_id = true;
    map.field_id = 0;
    el[n++] = map;
    rep.name = "key_value";
    rep.num_children = 2;
    rep.has_converted = true;
    rep.converted = PQ_CT_MAP_KEY_VALUE;
    el[n++] = rep;
    el[n++] = el_leaf("key", PQ_BOOLEAN, PQ_REQUIRED, 1);
    el[n++] = el_leaf("value", PQ_DOUBLE, PQ_OPTIONAL, 2);
    el[0].num_children = (int32_t)ARRAY_LEN(lts) + 3;
    return n;
}

static void expect_stats_equal(const struct pq_statistics *a, const struct pq_statistics *b)
{
    assert_int_equal(a->has_null_count, b->has_null_count);
    if (a->has_null_count)
        assert_int_equal(a->null_count, b->null_count);
    assert_int_equal(a->has_distinct_count, b->has_distinct_count);
    if (a->has_distinct_count)
        assert_int_equal(a->distinct_count, b->distinct_count);
    assert_int_equal(a->has_min, b->has_min);
    assert_int_equal(a->has_max, b->has_max);
    assert_int_equal(a->has_legacy_min, b->has_legacy_min);
    assert_int_equal(a->has_legacy_max, b->has_legacy_max);
    if (a->has_min) {
        assert_int_equal(a->min_len, b->min_len);
        assert_memory_equal(a->min, b->min, a->min_len);
    }
    if (a->has_max) {
        assert_int_equal(a->max_len, b->max_len);
        assert_memory_equal(a->max, b->max, a->max_len);
    }
    if (a->has_legacy_min) {
        assert_int_equal(a->legacy_min_len, b->legacy_min_len);
        assert_memory_equal(a->legacy_min, b->legacy_min, a->legacy_min_len);
    }
    if (a->has_legacy_max) {
        assert_int_equal(a->legacy_max_len, b->legacy_max_len);
        assert_memory_equal(a->legacy_max, b->legacy_max, a->legacy_max_len);
    }
}

static void expect_element_equal(const struct pq_schema_element *a,
                                 const struct pq_schema_element *b)
{
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->has_type, b->has_type);
    assert_int_equal(a->type, b->type);
    assert_int_equal(a->type_length, b->type_length);
    assert_int_equal(a->has_repetition, b->has_repetition);
    if (a->has_repetition)
        assert_int_equal(a->repetition, b->repetition);
    assert_int_equal(a->has_num_children, b->has_num_children);
    assert_int_equal(a->num_children, b->num_children);
    assert_int_equal(a->has_converted, b->has_converted);
    if (a->has_converted)
        assert_int_equal(a->converted, b->converted);
    assert_int_equal(a->has_decimal, b->has_decimal);
    assert_int_equal(a->scale, b->scale);
    assert_int_equal(a->precision, b->precision);
    assert_int_equal(a->has_field_id, b->has_field_id);
    assert_int_equal(a->field_id, b->field_id);
    const struct pq_logical *x = &a->logical, *y = &b->logical;
    assert_int_equal(x->kind, y->kind);
    assert_int_equal(x->scale, y->scale);
    assert_int_equal(x->precision, y->precision);
    assert_int_equal(x->utc, y->utc);
    assert_int_equal(x->unit, y->unit);
    assert_int_equal(x->bit_width, y->bit_width);
    assert_int_equal(x->is_signed, y->is_signed);
    assert_int_equal(x->variant_version, y->variant_version);
}

struct full_meta {
    struct pq_schema_element el[32];
    struct pq_column_chunk cols[2][3];
    struct pq_row_group groups[2];
    struct pq_key_value kv[3];
    int32_t encodings[3];
    const char *path[2];
    struct pq_file_meta m;
};

static void full_meta_init(struct full_meta *f)
{
    memset(f, 0, sizeof *f);
    f->m.version = 2;
    f->m.schema = f->el;
    f->m.nschema = full_schema(f->el);
    f->encodings[0] = PQ_ENC_PLAIN;
    f->encodings[1] = PQ_ENC_RLE_DICTIONARY;
    f->encodings[2] = 1234; /* unknown encodings survive */
    f->path[0] = "m";
    f->path[1] = "key_value";
    for (size_t g = 0; g < 2; g++) {
        struct pq_row_group *rg = &f->groups[g];
        rg->columns = f->cols[g];
        rg->ncolumns = 3;
        rg->total_byte_size = 1000 + (int64_t)g;
        rg->num_rows = g ? 0 : 77;
        rg->has_file_offset = g == 0;
        rg->file_offset = 4;
        rg->has_total_compressed_size = true;
        rg->total_compressed_size = INT64_MAX;
        rg->has_ordinal = true;
        rg->ordinal = (int16_t)(g ? INT16_MAX : 0);
        for (size_t c = 0; c < 3; c++) {
            struct pq_column_chunk *cc = &f->cols[g][c];
            cc->file_path = c == 2 ? "other/file.parquet" : NULL;
            cc->file_offset = (int64_t)(c * 100);
            cc->has_meta = c != 1 || g != 1;
            struct pq_column_meta *m = &cc->meta;
            m->type = (enum pq_type)c;
            m->encodings = f->encodings;
            m->nencodings = c + 1;
            m->path = f->path;
            m->npath = c == 0 ? 1 : 2;
            m->codec = c == 1 ? PQ_ZSTD : PQ_SNAPPY;
            m->num_values = INT64_MIN + (int64_t)c;
            m->total_uncompressed_size = 10;
            m->total_compressed_size = 20;
            m->data_page_offset = 30;
            m->has_index_page_offset = c == 1;
            m->index_page_offset = 40;
            m->has_dictionary_page_offset = c != 1;
            m->dictionary_page_offset = 4;
            m->has_statistics = c != 2;
            struct pq_statistics *s = &m->statistics;
            s->has_null_count = true;
            s->null_count = 5;
            s->has_distinct_count = c == 0;
            s->distinct_count = 9;
            s->has_min = s->has_max = true;
            s->min = (const uint8_t *)"\x00\x01";
            s->min_len = 2;
            s->max = (const uint8_t *)"";
            s->max_len = 0;
            s->has_legacy_min = s->has_legacy_max = c == 1;
            s->legacy_min = (const uint8_t *)"lo";
            s->legacy_min_len = 2;
            s->legacy_max = (const uint8_t *)"high";
            s->legacy_max_len = 4;
            cc->has_offset_index = c != 0;
            cc->offset_index_offset = 500;
            cc->offset_index_length = 12;
            cc->has_column_index = c != 2;
            cc->column_index_offset = 600;
            cc->column_index_length = 34;
        }
    }
    f->m.row_groups = f->groups;
    f->m.nrow_groups = 2;
    f->m.num_rows = 77;
    f->kv[0] = (struct pq_key_value){"k", "v"};
    f->kv[1] = (struct pq_key_value){"no value", NULL};
    f->kv[2] = (struct pq_key_value){"", ""};
    f->m.kv = f->kv;
    f->m.nkv = 3;
    f->m.created_by = "test_pq_meta";
    f->m.ncolumn_orders = 4;
}

static void expect_meta_equal(const struct pq_file_meta *a, const struct pq_file_meta *b)
{
    assert_int_equal(a->version, b->version);
    assert_int_equal(a->num_rows, b->num_rows);
    assert_int_equal(a->nschema, b->nschema);
    for (size_t i = 0; i < a->nschema; i++)
        expect_element_equal(&a->schema[i], &b->schema[i]);
    assert_int_equal(a->nrow_groups, b->nrow_groups);
    for (size_t g = 0; g < a->nrow_groups; g++) {
        const struct pq_row_group *x = &a->row_groups[g], *y = &b->row_groups[g];
        assert_int_equal(x->total_byte_size, y->total_byte_size);
        assert_int_equal(x->num_rows, y->num_rows);
        assert_int_equal(x->has_file_offset, y->has_file_offset);
        if (x->has_file_offset)
            assert_int_equal(x->file_offset, y->file_offset);
        assert_int_equal(x->has_total_compressed_size, y->has_total_compressed_size);
        assert_int_equal(x->total_compressed_size, y->total_compressed_size);
        assert_int_equal(x->has_ordinal, y->has_ordinal);
        assert_int_equal(x->ordinal, y->ordinal);
        assert_int_equal(x->ncolumns, y->ncolumns);
        for (size_t c = 0; c < x->ncolumns; c++) {
            const struct pq_column_chunk *p = &x->columns[c], *q = &y->columns[c];
            if (p->file_path)
                assert_string_equal(p->file_path, q->file_path);
            else
                assert_null(q->file_path);
            assert_int_equal(p->file_offset, q->file_offset);
            assert_int_equal(p->has_offset_index, q->has_offset_index);
            assert_int_equal(p->has_column_index, q->has_column_index);
            if (p->has_offset_index) {
                assert_int_equal(p->offset_index_offset, q->offset_index_offset);
                assert_int_equal(p->offset_index_length, q->offset_index_length);
            }
            if (p->has_column_index) {
                assert_int_equal(p->column_index_offset, q->column_index_offset);
                assert_int_equal(p->column_index_length, q->column_index_length);
            }
            assert_int_equal(p->has_meta, q->has_meta);
            if (!p->has_meta)
                continue;
            const struct pq_column_meta *m = &p->meta, *n = &q->meta;
            assert_int_equal(m->type, n->type);
            assert_int_equal(m->nencodings, n->nencodings);
            assert_memory_equal(m->encodings, n->encodings, m->nencodings * sizeof *m->encodings);
            assert_int_equal(m->npath, n->npath);
            for (size_t i = 0; i < m->npath; i++)
                assert_string_equal(m->path[i], n->path[i]);
            assert_int_equal(m->codec, n->codec);
            assert_int_equal(m->num_values, n->num_values);
            assert_int_equal(m->total_uncompressed_size, n->total_uncompressed_size);
            assert_int_equal(m->total_compressed_size, n->total_compressed_size);
            assert_int_equal(m->data_page_offset, n->data_page_offset);
            assert_int_equal(m->has_index_page_offset, n->has_index_page_offset);
            if (m->has_index_page_offset)
                assert_int_equal(m->index_page_offset, n->index_page_offset);
            assert_int_equal(m->has_dictionary_page_offset, n->has_dictionary_page_offset);
            if (m->has_dictionary_page_offset)
                assert_int_equal(m->dictionary_page_offset, n->dictionary_page_offset);
            assert_int_equal(m->has_statistics, n->has_statistics);
            if (m->has_statistics)
                expect_stats_equal(&m->statistics, &n->statistics);
        }
    }
    assert_int_equal(a->nkv, b->nkv);
    for (size_t i = 0; i < a->nkv; i++) {
        assert_string_equal(a->kv[i].key, b->kv[i].key);
        if (a->kv[i].value)
            assert_string_equal(a->kv[i].value, b->kv[i].value);
        else
            assert_null(b->kv[i].value);
    }
    if (a->created_by)
        assert_string_equal(a->created_by, b->created_by);
    else
        assert_null(b->created_by);
    assert_int_equal(a->ncolumn_orders, b->ncolumn_orders);
    assert_false(b->encrypted);
}

/* Decodes `in` as FileMetaData from an exact-size copy. */
static int decode_meta(const void *in, size_t n, struct arena *a, struct pq_file_meta *m,
                       struct error *err)
{
    uint8_t *p = dup_exact(in, n);
    int rc = pq_decode_file_meta(p, n, a, m, err);
    free(p);
    return rc;
}

static void test_file_meta_round_trip(void **state)
{
    (void)state;
    struct full_meta f;
    full_meta_init(&f);
    struct buf b = BUF_INIT;
    assert_int_equal(pq_encode_file_meta(&f.m, &b), 0);
    struct arena a;
    arena_init(&a, 0);
    struct pq_file_meta m;
    struct error err = {0};
    if (decode_meta(b.data, b.len, &a, &m, &err) != 0)
        fail_msg("%s", err.msg);
    expect_meta_equal(&f.m, &m);
    /* Decoding copies: the result outlives the input. */
    struct buf again = BUF_INIT;
    assert_int_equal(pq_encode_file_meta(&m, &again), 0);
    assert_int_equal(again.len, b.len);
    assert_memory_equal(again.data, b.data, b.len);
    buf_free(&again);
    arena_free(&a);
    buf_free(&b);
}

static void page_headers(struct pq_page_header *h)
{
    static const struct pq_statistics stats = {.has_null_count = true,
                                               .null_count = 3,
                                               .has_min = true,
                                               .min = (const uint8_t *)"\x01\x00\x00\x00",
                                               .min_len = 4,
                                               .has_max = true,
                                               .max = (const uint8_t *)"\x09\x00\x00\x00",
                                               .max_len = 4};
    memset(h, 0, 3 * sizeof *h);
    h[0] = (struct pq_page_header){.type = PQ_DATA_PAGE,
                                   .uncompressed_size = 100,
                                   .compressed_size = 60,
                                   .has_crc = true,
                                   .crc = -559038737,
                                   .num_values = 10,
                                   .encoding = PQ_ENC_RLE_DICTIONARY,
                                   .def_encoding = PQ_ENC_RLE,
                                   .rep_encoding = PQ_ENC_BIT_PACKED,
                                   .is_compressed = true,
                                   .has_statistics = true,
                                   .statistics = stats};
    h[1] = (struct pq_page_header){.type = PQ_DATA_PAGE_V2,
                                   .uncompressed_size = INT32_MAX,
                                   .compressed_size = 0,
                                   .num_values = 12,
                                   .encoding = PQ_ENC_DELTA_BINARY_PACKED,
                                   .num_nulls = 2,
                                   .num_rows = 5,
                                   .def_levels_len = 7,
                                   .rep_levels_len = 3,
                                   .is_compressed = false,
                                   .has_statistics = true,
                                   .statistics = stats};
    h[2] = (struct pq_page_header){.type = PQ_DICTIONARY_PAGE,
                                   .uncompressed_size = 8,
                                   .compressed_size = 8,
                                   .num_values = 2,
                                   .encoding = PQ_ENC_PLAIN,
                                   .is_sorted = true,
                                   .is_compressed = true};
}

static void expect_header_equal(const struct pq_page_header *a, const struct pq_page_header *b,
                                bool with_stats)
{
    assert_int_equal(a->type, b->type);
    assert_int_equal(a->uncompressed_size, b->uncompressed_size);
    assert_int_equal(a->compressed_size, b->compressed_size);
    assert_int_equal(a->has_crc, b->has_crc);
    assert_int_equal(a->crc, b->crc);
    assert_int_equal(a->num_values, b->num_values);
    assert_int_equal(a->encoding, b->encoding);
    assert_int_equal(a->def_encoding, b->def_encoding);
    assert_int_equal(a->rep_encoding, b->rep_encoding);
    assert_int_equal(a->num_nulls, b->num_nulls);
    assert_int_equal(a->num_rows, b->num_rows);
    assert_int_equal(a->def_levels_len, b->def_levels_len);
    assert_int_equal(a->rep_levels_len, b->rep_levels_len);
    assert_int_equal(a->is_compressed, b->is_compressed);
    assert_int_equal(a->is_sorted, b->is_sorted);
    if (with_stats) {
        assert_int_equal(a->has_statistics, b->has_statistics);
        if (a->has_statistics)
            expect_stats_equal(&a->statistics, &b->statistics);
    } else {
        assert_false(b->has_statistics);
    }
}

static void test_page_header_round_trip(void **state)
{
    (void)state;
    struct pq_page_header h[3];
    page_headers(h);
    for (size_t i = 0; i < 3; i++) {
        struct buf b = BUF_INIT;
        assert_int_equal(pq_encode_page_header(&h[i], &b), 0);
        size_t hlen = b.len;
        buf_append(&b, "page body", 9); /* a header is followed by its page */
        uint8_t *p = dup_exact(b.data, b.len);
        struct arena a;
        arena_init(&a, 0);
        struct pq_page_header out;
        size_t used = 0;
        struct error err = {0};
        if (pq_decode_page_header(p, b.len, &a, &out, &used, &err) != 0)
            fail_msg("header %zu: %s", i, err.msg);
        assert_int_equal(used, hlen);
        expect_header_equal(&h[i], &out, true);
        /* Without an arena, statistics are skipped. */
        assert_int_equal(pq_decode_page_header(p, b.len, NULL, &out, &used, &err), 0);
        assert_int_equal(used, hlen);
        expect_header_equal(&h[i], &out, false);
        arena_free(&a);
        free(p);
        buf_free(&b);
    }
}

static void page_index(struct pq_column_index *ci, struct pq_offset_index *oi, bool null_counts)
{
    static bool nulls[] = {false, true, false};
    static const uint8_t *mins[] = {(const uint8_t *)"a", (const uint8_t *)"",
                                    (const uint8_t *)"\x00\xff"};
    static const uint8_t *maxs[] = {(const uint8_t *)"zz", (const uint8_t *)"",
                                    (const uint8_t *)"\xff"};
    static uint32_t min_lens[] = {1, 0, 2}, max_lens[] = {2, 0, 1};
    static int64_t counts[] = {0, 100, INT64_MAX};
    *ci = (struct pq_column_index){.null_pages = nulls,
                                   .min_values = mins,
                                   .max_values = maxs,
                                   .min_lens = min_lens,
                                   .max_lens = max_lens,
                                   .npages = 3,
                                   .boundary_order = PQ_DESCENDING,
                                   .null_counts = null_counts ? counts : NULL};
    static struct pq_page_location locs[] = {
        {4, 100, 0}, {104, 2000, 50}, {INT64_MAX, INT32_MAX, INT64_MAX}};
    *oi = (struct pq_offset_index){.pages = locs, .npages = 3};
}

static void test_page_index_round_trip(void **state)
{
    (void)state;
    for (int with_counts = 0; with_counts < 2; with_counts++) {
        struct pq_column_index ci, ci2;
        struct pq_offset_index oi, oi2;
        page_index(&ci, &oi, with_counts);
        struct buf b = BUF_INIT, c = BUF_INIT;
        assert_int_equal(pq_encode_column_index(&ci, &b), 0);
        assert_int_equal(pq_encode_offset_index(&oi, &c), 0);
        struct arena a;
        arena_init(&a, 0);
        struct error err = {0};
        uint8_t *p = dup_exact(b.data, b.len), *q = dup_exact(c.data, c.len);
        assert_int_equal(pq_decode_column_index(p, b.len, &a, &ci2, &err), 0);
        assert_int_equal(pq_decode_offset_index(q, c.len, &a, &oi2, &err), 0);
        assert_int_equal(ci2.npages, 3);
        assert_int_equal(ci2.boundary_order, PQ_DESCENDING);
        for (size_t i = 0; i < 3; i++) {
            assert_int_equal(ci2.null_pages[i], ci.null_pages[i]);
            assert_int_equal(ci2.min_lens[i], ci.min_lens[i]);
            assert_int_equal(ci2.max_lens[i], ci.max_lens[i]);
            assert_memory_equal(ci2.min_values[i], ci.min_values[i], ci.min_lens[i]);
            assert_memory_equal(ci2.max_values[i], ci.max_values[i], ci.max_lens[i]);
        }
        if (with_counts)
            assert_memory_equal(ci2.null_counts, ci.null_counts, 3 * sizeof(int64_t));
        else
            assert_null(ci2.null_counts);
        assert_int_equal(oi2.npages, 3);
        for (size_t i = 0; i < 3; i++) {
            assert_int_equal(oi2.pages[i].offset, oi.pages[i].offset);
            assert_int_equal(oi2.pages[i].compressed_page_size, oi.pages[i].compressed_page_size);
            assert_int_equal(oi2.pages[i].first_row_index, oi.pages[i].first_row_index);
        }
        free(p);
        free(q);
        arena_free(&a);
        buf_free(&b);
        buf_free(&c);
    }
}

static void put_varint(struct buf *b, uint64_t v)
{
    while (v >= 0x80) {
        buf_putc(b, (char)(uint8_t)(v | 0x80));
        v >>= 7;
    }
    buf_putc(b, (char)(uint8_t)v);
}

/* Reads a footer produced by hand from the spec: the smallest valid
 * FileMetaData, with unknown fields of every type interleaved, some
 * fields out of id order and ids in long form. */
static void test_file_meta_hand_made(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    struct tc_writer w;
    tcw_init(&w, &b);
    tcw_struct_begin(&w);
    /* An unknown field of every type before each known one. */
    size_t k = 0;
#define UNKNOWN()                                                                                  \
    do {                                                                                           \
        const struct typed_value *v = &every_type[k++ % ARRAY_LEN(every_type)];                    \
        buf_putc(&b, (char)v->type); /* long form, id 200 + k */                                   \
        put_varint(&b, 2 * (200 + (uint64_t)k));                                                   \
        buf_append(&b, v->bytes, v->len);                                                          \
        w.last_id[w.depth] = (int16_t)(200 + k);                                                   \
    } while (0)
    UNKNOWN();
    tcw_field_i64(&w, 3, 5); /* num_rows before the schema */
    UNKNOWN();
    tcw_field_list_begin(&w, 2, TC_STRUCT, 2);
    tcw_struct_begin(&w);
    UNKNOWN();
    tcw_field_string(&w, 4, "root");
    UNKNOWN();
    tcw_field_i32(&w, 5, 1);
    UNKNOWN();
    tcw_struct_end(&w);
    tcw_struct_begin(&w);
    tcw_field_i32(&w, 1, PQ_INT32);
    UNKNOWN();
    tcw_field_i32(&w, 3, PQ_OPTIONAL);
    tcw_field_string(&w, 4, "x");
    tcw_field_struct_begin(&w, 10); /* LogicalType: a union, so one member */
    tcw_field_struct_begin(&w, 10); /* INTEGER */
    UNKNOWN();
    tcw_field_byte(&w, 1, 16);
    UNKNOWN();
    tcw_field_bool(&w, 2, true);
    UNKNOWN();
    tcw_struct_end(&w);
    tcw_struct_end(&w);
    UNKNOWN();
    tcw_struct_end(&w);
    UNKNOWN();
    tcw_field_list_begin(&w, 4, TC_STRUCT, 0);
    UNKNOWN();
    tcw_field_i32(&w, 1, 1); /* version last */
    while (k < ARRAY_LEN(every_type) + 1)
        UNKNOWN();
#undef UNKNOWN
    tcw_struct_end(&w);
    assert_false(w.failed);
    struct arena a;
    arena_init(&a, 0);
    struct pq_file_meta m;
    struct error err = {0};
    if (decode_meta(b.data, b.len, &a, &m, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(m.version, 1);
    assert_int_equal(m.num_rows, 5);
    assert_int_equal(m.nschema, 2);
    assert_string_equal(m.schema[0].name, "root");
    assert_int_equal(m.schema[0].num_children, 1);
    assert_string_equal(m.schema[1].name, "x");
    assert_int_equal(m.schema[1].logical.kind, PQ_LT_INTEGER);
    assert_int_equal(m.schema[1].logical.bit_width, 16);
    assert_true(m.schema[1].logical.is_signed);
    assert_int_equal(m.nrow_groups, 0);
    arena_free(&a);
    buf_free(&b);
}

/* ---- malformed input ---- */

static void expect_corrupt(int rc, const struct error *err, const char *what, size_t at)
{
    if (rc != -1 || err->code != ERR_CORRUPT)
        fail_msg("%s (at %zu): rc %d code %d '%s', expected ERR_CORRUPT", what, at, rc,
                 (int)err->code, err->msg);
}

enum which { W_META, W_HEADER, W_HEADER_NOARENA, W_CI, W_OI };

static int decode_as(enum which which, const uint8_t *in, size_t n, struct error *err)
{
    uint8_t *p = dup_exact(in, n);
    struct arena a;
    arena_init(&a, 0);
    int rc;
    switch (which) {
    case W_META: {
        struct pq_file_meta m;
        rc = pq_decode_file_meta(p, n, &a, &m, err);
        break;
    }
    case W_HEADER:
    case W_HEADER_NOARENA: {
        struct pq_page_header h;
        size_t used;
        rc = pq_decode_page_header(p, n, which == W_HEADER ? &a : NULL, &h, &used, err);
        if (rc == 0)
            assert_true(used <= n);
        break;
    }
    case W_CI: {
        struct pq_column_index ci;
        rc = pq_decode_column_index(p, n, &a, &ci, err);
        break;
    }
    default: {
        struct pq_offset_index oi;
        rc = pq_decode_offset_index(p, n, &a, &oi, err);
        break;
    }
    }
    arena_free(&a);
    free(p);
    return rc;
}

static void test_truncation_at_every_byte(void **state)
{
    (void)state;
    struct buf enc[7] = {BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT};
    enum which which[7] = {W_META, W_HEADER, W_HEADER, W_HEADER_NOARENA, W_CI, W_CI, W_OI};
    struct full_meta f;
    full_meta_init(&f);
    assert_int_equal(pq_encode_file_meta(&f.m, &enc[0]), 0);
    struct pq_page_header h[3];
    page_headers(h);
    for (int i = 0; i < 3; i++)
        assert_int_equal(pq_encode_page_header(&h[i], &enc[1 + i]), 0);
    struct pq_column_index ci;
    struct pq_offset_index oi;
    page_index(&ci, &oi, true);
    assert_int_equal(pq_encode_column_index(&ci, &enc[4]), 0);
    page_index(&ci, &oi, false);
    assert_int_equal(pq_encode_column_index(&ci, &enc[5]), 0);
    assert_int_equal(pq_encode_offset_index(&oi, &enc[6]), 0);
    size_t checked = 0;
    for (size_t e = 0; e < ARRAY_LEN(enc); e++) {
        struct error err = {0};
        assert_int_equal(decode_as(which[e], (const uint8_t *)enc[e].data, enc[e].len, &err), 0);
        /* Every proper prefix lacks at least the final STOP. */
        for (size_t cut = 0; cut < enc[e].len; cut++) {
            memset(&err, 0, sizeof err);
            int rc = decode_as(which[e], (const uint8_t *)enc[e].data, cut, &err);
            expect_corrupt(rc, &err, "a truncated encoding", cut);
            checked++;
        }
        buf_free(&enc[e]);
    }
    assert_true(checked > 500);
}

/* Encodings that claim more than they hold. */
static void test_lengths_and_counts_past_the_input(void **state)
{
    (void)state;
    struct {
        enum which which;
        const char *bytes;
        size_t len;
    } cases[] = {
#define C(w, s) {w, s, sizeof(s) - 1}
        /* schema: a list of 200 structs in 3 bytes */
        C(W_META, "\x29\xfc\xc8\x01\x00"),
        /* schema: a long-form count of 2^63 */
        C(W_META, "\x29\xfc\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"),
        /* created_by: a binary of 100 bytes holding 2 */
        C(W_META, "\x68\x64"
                  "ab\x00"),
        /* created_by: a binary length of 2^64 - 1 */
        C(W_META, "\x68\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00"),
        /* an unknown map of 100 entries */
        C(W_META, "\xfb\x64\x55\x02\x02\x00"),
        /* an unknown set of 9 i64 */
        C(W_META, "\xfa\x96\x02\x00"),
        /* an unknown double cut short */
        C(W_META, "\xf7\x00\x00\x00"),
        /* column index: 50 null_pages in 3 bytes */
        C(W_CI, "\x19\xf1\x32\x01\x01\x00"),
        /* column index: min_values of 3 binaries, the second too long */
        C(W_CI, "\x29\x38\x01\x61\x05\x62\x00"),
        /* offset index: 4 page locations, one present */
        C(W_OI, "\x19\x4c\x16\x02\x15\x04\x16\x00\x00\x00"),
        /* page header: statistics with a min longer than the header */
        C(W_HEADER, "\x15\x00\x15\x02\x15\x02\x2c\x15\x02\x4c\x68\x7f\x00"),
        /* list element type 0 and 13 */
        C(W_META, "\xf9\x20\x00\x00"),
        C(W_META, "\xf9\x2d\x00\x00"),
#undef C
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        struct error err = {0};
        int rc = decode_as(cases[i].which, (const uint8_t *)cases[i].bytes, cases[i].len, &err);
        expect_corrupt(rc, &err, "a count or length past the input", i);
    }
}

/* A page header with each size or count negative. */
static void test_negative_sizes(void **state)
{
    (void)state;
    for (int field = 0; field < 7; field++) {
        struct pq_page_header h = {.type = PQ_DATA_PAGE_V2,
                                   .uncompressed_size = 10,
                                   .compressed_size = 10,
                                   .num_values = 1,
                                   .num_rows = 1,
                                   .is_compressed = true};
        int32_t *f[] = {&h.uncompressed_size, &h.compressed_size, &h.num_values,    &h.num_nulls,
                        &h.num_rows,          &h.def_levels_len,  &h.rep_levels_len};
        *f[field] = field % 2 ? -1 : INT32_MIN;
        struct buf b = BUF_INIT;
        assert_int_equal(pq_encode_page_header(&h, &b), 0);
        struct error err = {0};
        int rc = decode_as(W_HEADER, (const uint8_t *)b.data, b.len, &err);
        expect_corrupt(rc, &err, "a negative page size", (size_t)field);
        buf_free(&b);
    }
    /* And the data page v1 and dictionary page counts. */
    for (int type = 0; type < 3; type += 2) {
        struct pq_page_header h = {.type = (enum pq_page_type)type, .num_values = -3};
        struct buf b = BUF_INIT;
        assert_int_equal(pq_encode_page_header(&h, &b), 0);
        struct error err = {0};
        expect_corrupt(decode_as(W_HEADER, (const uint8_t *)b.data, b.len, &err), &err,
                       "a negative value count", (size_t)type);
        buf_free(&b);
    }
}

/* Structs, lists, sets and maps nested past TC_MAX_DEPTH, as an unknown
 * field (skipped) and inside known ones. */
static void test_nesting_past_the_limit(void **state)
{
    (void)state;
    for (int kind = 0; kind < 4; kind++) {
        for (int depth = TC_MAX_DEPTH - 4; depth <= TC_MAX_DEPTH + 40; depth += 4) {
            struct buf b = BUF_INIT;
            /* field 100 of FileMetaData, long form */
            static const enum tc_type outer[] = {TC_STRUCT, TC_LIST, TC_SET, TC_MAP};
            buf_putc(&b, (char)outer[kind]);
            buf_append(&b, "\xc8\x01", 2);
            for (int i = 0; i < depth; i++) {
                switch (kind) {
                case 0: buf_putc(&b, 0x1c); break; /* {1: struct ... */
                case 1: buf_putc(&b, 0x19); break; /* [1 list ... */
                case 2: buf_putc(&b, 0x1a); break; /* [1 set ... */
                default:
                    buf_append(&b, "\x01\x5b", 2); /* {i32: map ... */
                    buf_putc(&b, 0x00);            /* the key */
                }
            }
            buf_putc(&b, kind == 0 ? 0x00 : kind == 3 ? 0x00 : 0x05);
            for (int i = 0; i < depth && kind == 0; i++)
                buf_putc(&b, 0x00);
            buf_putc(&b, 0x00);
            struct error err = {0};
            int rc = decode_as(W_META, (const uint8_t *)b.data, b.len, &err);
            /* Shallow ones are well formed but lack the required fields;
             * deep ones fail on depth. Either way: corrupt, no crash. */
            expect_corrupt(rc, &err, "deep nesting", (size_t)depth);
            if (depth > TC_MAX_DEPTH + 2 && !strstr(err.msg, "nested too deeply"))
                fail_msg("kind %d depth %d: '%s'", kind, depth, err.msg);
            buf_free(&b);
        }
    }
    /* Through the known structs: a LogicalType nested in itself. */
    struct buf b = BUF_INIT;
    buf_append(&b, "\x29\x1c", 2); /* schema: [1 struct */
    for (int i = 0; i < 2 * TC_MAX_DEPTH; i++)
        buf_append(&b, "\xac", 1); /* field 10 (delta 10) struct ... */
    struct error err = {0};
    expect_corrupt(decode_as(W_META, (const uint8_t *)b.data, b.len, &err), &err,
                   "deep logical types", 0);
    buf_free(&b);
}

/* Known fields with the wrong wire type. */
static void test_wrong_wire_types(void **state)
{
    (void)state;
    /* FileMetaData: each required field in turn replaced by an i64 64
     * (and the i64 field by an i32); the rest valid. */
    for (int bad = 1; bad <= 7; bad++) {
        struct buf b = BUF_INIT;
        struct tc_writer w;
        tcw_init(&w, &b);
        tcw_struct_begin(&w);
        if (bad == 1)
            tcw_field_i64(&w, 1, 1);
        else
            tcw_field_i32(&w, 1, 1);
        if (bad == 2) {
            tcw_field_i32(&w, 2, 1);
        } else {
            tcw_field_list_begin(&w, 2, TC_STRUCT, 1);
            tcw_struct_begin(&w);
            if (bad == 7)
                tcw_field_i32(&w, 4, 3); /* the element's name as an i32 */
            else
                tcw_field_string(&w, 4, "root");
            tcw_struct_end(&w);
        }
        if (bad == 3)
            tcw_field_i32(&w, 3, 0);
        else
            tcw_field_i64(&w, 3, 0);
        if (bad == 4) {
            tcw_field_list_begin(&w, 4, TC_I32, 1);
            tcw_elem_i32(&w, 1);
        } else {
            tcw_field_list_begin(&w, 4, TC_STRUCT, 0);
        }
        if (bad == 5)
            tcw_field_i32(&w, 5, 0);
        if (bad == 6)
            tcw_field_i64(&w, 6, 0); /* created_by as an i64 */
        tcw_struct_end(&w);
        struct error err = {0};
        int rc = decode_as(W_META, (const uint8_t *)b.data, b.len, &err);
        expect_corrupt(rc, &err, "a wrongly typed footer field", (size_t)bad);
        buf_free(&b);
    }
    /* PageHeader: type, sizes, the sub-header. */
    for (int bad = 1; bad <= 5; bad++) {
        struct buf b = BUF_INIT;
        struct tc_writer w;
        tcw_init(&w, &b);
        tcw_struct_begin(&w);
        for (int16_t id = 1; id <= 3; id++)
            if (id == bad)
                tcw_field_binary(&w, id, "x", 1);
            else
                tcw_field_i32(&w, id, 0);
        if (bad == 4) {
            tcw_field_i32(&w, 5, 0);
        } else {
            tcw_field_struct_begin(&w, 5);
            if (bad == 5)
                tcw_field_i64(&w, 5, 0); /* statistics as an i64: skipped */
            tcw_struct_end(&w);
        }
        tcw_struct_end(&w);
        struct error err = {0};
        int rc = decode_as(W_HEADER, (const uint8_t *)b.data, b.len, &err);
        if (bad == 5)
            assert_int_equal(rc, 0); /* unknown in that position: skipped */
        else
            expect_corrupt(rc, &err, "a wrongly typed page header field", (size_t)bad);
        buf_free(&b);
    }
    /* ColumnIndex and OffsetIndex. */
    static const struct {
        enum which which;
        const char *bytes;
        size_t len;
    } cases[] = {
#define C(w, s) {w, s, sizeof(s) - 1}
        C(W_CI, "\x46\x02\x00"),             /* boundary_order as an i64 */
        C(W_CI, "\x29\x15\x02\x00"),         /* min_values as a list of i32 */
        C(W_CI, "\x59\x18\x01\x61\x00"),     /* null_counts as a list of binary */
        C(W_OI, "\x19\x15\x02\x00"),         /* page_locations as a list of i32 */
        C(W_OI, "\x19\x1c\x15\x02\x00\x00"), /* offset as an i32 */
        C(W_OI, "\x19\x1c\x26\x02\x00\x00"), /* compressed_page_size as an i64 */
#undef C
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        struct error err = {0};
        int rc = decode_as(cases[i].which, (const uint8_t *)cases[i].bytes, cases[i].len, &err);
        expect_corrupt(rc, &err, "a wrongly typed page index field", i);
    }
}

static void test_missing_required_fields(void **state)
{
    (void)state;
    struct error err;
    /* A footer without row groups: field 4 left out. */
    struct buf b = BUF_INIT;
    struct tc_writer w;
    tcw_init(&w, &b);
    tcw_struct_begin(&w);
    tcw_field_i32(&w, 1, 1);
    tcw_field_list_begin(&w, 2, TC_STRUCT, 0);
    tcw_field_i64(&w, 3, 0);
    tcw_struct_end(&w);
    memset(&err, 0, sizeof err);
    expect_corrupt(decode_as(W_META, (const uint8_t *)b.data, b.len, &err), &err,
                   "a footer without row groups", 0);
    buf_reset(&b);
    /* A page header without sizes, and a data page without its
     * sub-header. */
    tcw_init(&w, &b);
    tcw_struct_begin(&w);
    tcw_field_i32(&w, 1, PQ_DATA_PAGE);
    tcw_field_i32(&w, 2, 5);
    tcw_field_struct_begin(&w, 5);
    tcw_struct_end(&w);
    tcw_struct_end(&w);
    expect_corrupt(decode_as(W_HEADER, (const uint8_t *)b.data, b.len, &err), &err,
                   "a page header without sizes", 0);
    buf_reset(&b);
    tcw_init(&w, &b);
    tcw_struct_begin(&w);
    tcw_field_i32(&w, 1, PQ_DATA_PAGE);
    tcw_field_i32(&w, 2, 5);
    tcw_field_i32(&w, 3, 5);
    tcw_struct_end(&w);
    expect_corrupt(decode_as(W_HEADER, (const uint8_t *)b.data, b.len, &err), &err,
                   "a data page header without its sub-header", 0);
    /* Column metadata without a path, a schema element without a name, a
     * key-value entry without a key. */
    for (int bad = 0; bad < 3; bad++) {
        buf_reset(&b);
        tcw_init(&w, &b);
        tcw_struct_begin(&w);
        tcw_field_list_begin(&w, 2, TC_STRUCT, 1);
        tcw_struct_begin(&w);
        if (bad != 1)
            tcw_field_string(&w, 4, "root");
        tcw_struct_end(&w);
        tcw_field_i64(&w, 3, 0);
        tcw_field_list_begin(&w, 4, TC_STRUCT, bad == 0 ? 1 : 0);
        if (bad == 0) {
            tcw_struct_begin(&w);
            tcw_field_list_begin(&w, 1, TC_STRUCT, 1);
            tcw_struct_begin(&w);
            tcw_field_struct_begin(&w, 3);
            tcw_field_i32(&w, 1, 0);
            tcw_field_i32(&w, 4, 0); /* no path (3) */
            tcw_field_i64(&w, 5, 0);
            tcw_field_i64(&w, 9, 4);
            tcw_struct_end(&w);
            tcw_struct_end(&w);
            tcw_field_i64(&w, 3, 0);
            tcw_struct_end(&w);
        }
        if (bad == 2) {
            tcw_field_list_begin(&w, 5, TC_STRUCT, 1);
            tcw_struct_begin(&w);
            tcw_field_string(&w, 2, "value only");
            tcw_struct_end(&w);
        }
        tcw_struct_end(&w);
        memset(&err, 0, sizeof err);
        expect_corrupt(decode_as(W_META, (const uint8_t *)b.data, b.len, &err), &err,
                       "a missing required field", (size_t)bad);
    }
    buf_free(&b);
}

/* Each known page type needs its own sub-header; an index page has none,
 * and a page type added after this reader decodes (to be skipped). */
static void test_page_header_sub_headers(void **state)
{
    (void)state;
    static const struct {
        int32_t type;
        int16_t sub; /* 0: none */
        bool ok;
    } cases[] = {
        {PQ_DATA_PAGE, 5, true},
        {PQ_DATA_PAGE, 7, false},
        {PQ_DATA_PAGE, 8, false},
        {PQ_DICTIONARY_PAGE, 7, true},
        {PQ_DICTIONARY_PAGE, 5, false},
        {PQ_DATA_PAGE_V2, 8, true},
        {PQ_DATA_PAGE_V2, 5, false},
        {PQ_DATA_PAGE_V2, 0, false},
        {PQ_INDEX_PAGE, 0, true},
        {77, 0, true},
        {77, 9, true},
        {-1, 0, true},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        struct buf b = BUF_INIT;
        struct tc_writer w;
        tcw_init(&w, &b);
        tcw_struct_begin(&w);
        tcw_field_i32(&w, 1, cases[i].type);
        tcw_field_i32(&w, 2, 0);
        tcw_field_i32(&w, 3, 0);
        if (cases[i].sub) {
            tcw_field_struct_begin(&w, cases[i].sub);
            tcw_field_i32(&w, 1, 3);
            tcw_struct_end(&w);
        }
        tcw_struct_end(&w);
        struct error err = {0};
        int rc = decode_as(W_HEADER, (const uint8_t *)b.data, b.len, &err);
        if (cases[i].ok)
            assert_int_equal(rc, 0);
        else
            expect_corrupt(rc, &err, "a page header without its own sub-header", i);
        buf_free(&b);
    }
}

/* Out of arena memory is ERR_NOMEM, at any limit, never a crash. */
static void test_arena_limit(void **state)
{
    (void)state;
    struct full_meta f;
    full_meta_init(&f);
    struct buf b = BUF_INIT;
    assert_int_equal(pq_encode_file_meta(&f.m, &b), 0);
    uint8_t *p = dup_exact(b.data, b.len);
    bool nomem = false, ok = false;
    for (size_t limit = 64; limit < 64 * 1024 && !ok; limit += limit / 4) {
        struct arena a;
        arena_init(&a, limit);
        struct pq_file_meta m;
        struct error err = {0};
        int rc = pq_decode_file_meta(p, b.len, &a, &m, &err);
        if (rc == 0)
            ok = true;
        else if (err.code == ERR_NOMEM)
            nomem = true;
        else
            fail_msg("limit %zu: code %d '%s'", limit, (int)err.code, err.msg);
        arena_free(&a);
    }
    assert_true(nomem);
    assert_true(ok);
    free(p);
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_bytes),
        cmocka_unit_test(test_varints_and_zigzag),
        cmocka_unit_test(test_bad_varints),
        cmocka_unit_test(test_field_ids),
        cmocka_unit_test(test_bools),
        cmocka_unit_test(test_nested_lists_and_structs),
        cmocka_unit_test(test_skip_every_type),
        cmocka_unit_test(test_file_meta_round_trip),
        cmocka_unit_test(test_page_header_round_trip),
        cmocka_unit_test(test_page_index_round_trip),
        cmocka_unit_test(test_file_meta_hand_made),
        cmocka_unit_test(test_truncation_at_every_byte),
        cmocka_unit_test(test_lengths_and_counts_past_the_input),
        cmocka_unit_test(test_negative_sizes),
        cmocka_unit_test(test_nesting_past_the_limit),
        cmocka_unit_test(test_wrong_wire_types),
        cmocka_unit_test(test_missing_required_fields),
        cmocka_unit_test(test_page_header_sub_headers),
        cmocka_unit_test(test_arena_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
