/* Unit tests for src/iceberg/avro*: zigzag vectors, value encoding against
 * hand-computed bytes, container round trips (every type, both codecs,
 * many blocks, header metadata), the Iceberg manifest schemas (field ids
 * per the spec, a realistic record in v2 and v3), and hostile files:
 * every truncation, every bit flip, bad sync, absurd counts and lengths,
 * deflate bombs, deep recursion; each must give a typed error (ASan and
 * LeakSanitizer check that nothing crashes or leaks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "iceberg/avro.h"
#include "iceberg/manifest_schema.h"

static const uint8_t fixed_sync[16] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
                                       0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf};

static json_t *load(const char *text)
{
    json_error_t jerr;
    json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!v)
        fail_msg("bad test JSON: %s: %s", jerr.text, text);
    return v;
}

/* Writes records (a JSON array text) with schema into out. */
static void write_file(const char *schema, const char *records, enum avro_codec codec,
                       size_t block_bytes, struct buf *out)
{
    struct avro_writer_options o = {.codec = codec, .block_bytes = block_bytes, .sync = fixed_sync};
    struct avro_writer *w;
    struct error err = {0};
    if (avro_writer_new(schema, &o, &w, &err) < 0)
        fail_msg("writer: %s", err.msg);
    json_t *recs = load(records);
    size_t i;
    json_t *r;
    json_array_foreach (recs, i, r) {
        if (avro_writer_append(w, r, &err) < 0)
            fail_msg("append %zu: %s", i, err.msg);
    }
    json_decref(recs);
    assert_int_equal(avro_writer_finish(w, out, &err), 0);
    avro_writer_free(w);
}

/* Reads every record of a file: 0 with *records (an array) or -1. */
static int read_all(const void *data, size_t len, const struct avro_reader_options *o,
                    json_t **records, struct error *err)
{
    *records = NULL;
    struct avro_reader *r;
    if (avro_reader_open(data, len, o, &r, err) < 0)
        return -1;
    json_t *all = json_array();
    assert_non_null(all);
    int rc;
    json_t *v;
    while ((rc = avro_reader_next(r, &v, err)) == 1)
        json_array_append_new(all, v);
    avro_reader_free(r);
    if (rc < 0) {
        json_decref(all);
        return -1;
    }
    *records = all;
    return 0;
}

static void assert_round_trip(const char *schema, const char *records, enum avro_codec codec,
                              size_t block_bytes)
{
    struct buf file = BUF_INIT;
    write_file(schema, records, codec, block_bytes, &file);
    json_t *got, *want = load(records);
    struct error err = {0};
    if (read_all(file.data, file.len, NULL, &got, &err) < 0)
        fail_msg("read: %s", err.msg);
    if (!json_equal(got, want)) {
        char *a = json_dumps(got, JSON_ENCODE_ANY), *b = json_dumps(want, JSON_ENCODE_ANY);
        fail_msg("round trip differs:\n got  %s\n want %s", a, b);
    }
    json_decref(got);
    json_decref(want);
    buf_free(&file);
}

/* ---- zigzag ---- */

static void test_zigzag_vectors(void **state)
{
    (void)state;
    static const struct {
        int64_t v;
        uint8_t bytes[10];
        size_t n;
    } vec[] = {
        {0, {0x00}, 1},
        {-1, {0x01}, 1},
        {1, {0x02}, 1},
        {-2, {0x03}, 1},
        {2, {0x04}, 1},
        {63, {0x7e}, 1},
        {-64, {0x7f}, 1},
        {64, {0x80, 0x01}, 2},
        {-65, {0x81, 0x01}, 2},
        {INT32_MAX, {0xfe, 0xff, 0xff, 0xff, 0x0f}, 5},
        {INT32_MIN, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5},
        {INT64_MAX, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
        {INT64_MIN, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10},
    };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        uint8_t out[10];
        size_t n = avro_zigzag_encode_long(vec[i].v, out);
        assert_int_equal(n, vec[i].n);
        assert_memory_equal(out, vec[i].bytes, n);
        int64_t back;
        size_t used;
        assert_int_equal(avro_zigzag_decode_long(vec[i].bytes, vec[i].n, &back, &used), 0);
        assert_int_equal(back, vec[i].v);
        assert_int_equal(used, vec[i].n);
        if (vec[i].v >= INT32_MIN && vec[i].v <= INT32_MAX) {
            n = avro_zigzag_encode_int((int32_t)vec[i].v, out);
            assert_int_equal(n, vec[i].n);
            assert_memory_equal(out, vec[i].bytes, n);
            int32_t b32;
            assert_int_equal(avro_zigzag_decode_int(vec[i].bytes, vec[i].n, &b32, &used), 0);
            assert_int_equal(b32, vec[i].v);
        }
        /* Every strict prefix is truncated. */
        for (size_t k = 0; k < vec[i].n; k++)
            assert_int_equal(avro_zigzag_decode_long(vec[i].bytes, k, &back, &used), -1);
    }
    int64_t v;
    int32_t v32;
    size_t used;
    /* Eleven bytes, and a tenth byte carrying more than the last bit. */
    static const uint8_t overlong[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                         0x80, 0x80, 0x80, 0x80, 0x00};
    static const uint8_t too_big[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    static const uint8_t int_too_big[5] = {0xff, 0xff, 0xff, 0xff, 0x1f};
    assert_int_equal(avro_zigzag_decode_long(overlong, 11, &v, &used), -1);
    assert_int_equal(avro_zigzag_decode_long(too_big, 10, &v, &used), -1);
    assert_int_equal(avro_zigzag_decode_int(int_too_big, 5, &v32, &used), -1);
    assert_int_equal(avro_zigzag_decode_int(too_big, 10, &v32, &used), -1);
}

/* ---- values ---- */

static struct avro_schema *parse_or_fail(const char *text)
{
    struct avro_schema *s;
    struct error err = {0};
    if (avro_schema_parse(text, strlen(text), &s, &err) < 0)
        fail_msg("schema: %s", err.msg);
    return s;
}

static void assert_encodes(const char *schema_text, const char *value, const uint8_t *bytes,
                           size_t n)
{
    struct avro_schema *s = parse_or_fail(schema_text);
    struct error err = {0};
    json_t *v = load(value);
    struct buf out = BUF_INIT;
    if (avro_encode(avro_schema_root(s), v, &out, &err) < 0)
        fail_msg("encode %s: %s", value, err.msg);
    assert_int_equal(out.len, n);
    assert_memory_equal(out.data, bytes, n);
    json_t *back;
    size_t used;
    assert_int_equal(avro_decode(avro_schema_root(s), bytes, n, &back, &used, &err), 0);
    assert_int_equal(used, n);
    assert_true(json_equal(back, v));
    json_decref(back);
    json_decref(v);
    buf_free(&out);
    avro_schema_free(s);
}

static void test_value_bytes(void **state)
{
    (void)state;
    static const uint8_t rec[] = {0x81, 0x01, 0x02, 0x04, 'h', 'i'};
    assert_encodes("{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":"
                   "\"long\"},{\"name\":\"b\",\"type\":[\"null\",\"string\"]}]}",
                   "{\"a\":-65,\"b\":\"hi\"}", rec, sizeof rec);
    static const uint8_t null_branch[] = {0x00};
    assert_encodes("[\"null\",\"string\"]", "null", null_branch, 1);
    /* 1.5f = 0x3fc00000, little-endian. */
    static const uint8_t f[] = {0x00, 0x00, 0xc0, 0x3f};
    assert_encodes("\"float\"", "1.5", f, 4);
    /* -0.0 as a double. */
    static const uint8_t d[] = {0, 0, 0, 0, 0, 0, 0, 0x80};
    assert_encodes("\"double\"", "-0.0", d, 8);
    static const uint8_t nan[] = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
    assert_encodes("\"double\"", "\"NaN\"", nan, 8);
    /* bytes 4e440000 (day 17486 as a bound) = base64 "TkQAAA==". */
    static const uint8_t by[] = {0x08, 0x4e, 0x44, 0x00, 0x00};
    assert_encodes("\"bytes\"", "\"TkQAAA==\"", by, 5);
    static const uint8_t fx[] = {0x4e, 0x44};
    assert_encodes("{\"type\":\"fixed\",\"name\":\"f2\",\"size\":2}", "\"TkQ=\"", fx, 2);
    /* array [1, 2]: count 2, items, 0; map {"k": true}. */
    static const uint8_t arr[] = {0x04, 0x02, 0x04, 0x00};
    assert_encodes("{\"type\":\"array\",\"items\":\"int\"}", "[1,2]", arr, 4);
    static const uint8_t map[] = {0x02, 0x02, 'k', 0x01, 0x00};
    assert_encodes("{\"type\":\"map\",\"values\":\"boolean\"}", "{\"k\":true}", map, 5);
    static const uint8_t en[] = {0x04};
    assert_encodes("{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[\"A\",\"B\",\"C\"]}", "\"C\"",
                   en, 1);
    /* The first branch that fits: 5 is an int here, a string after null. */
    static const uint8_t u_int[] = {0x02, 0x0a};
    assert_encodes("[\"null\",\"int\",\"long\"]", "5", u_int, 2);
    static const uint8_t u_long[] = {0x04, 0x80, 0x80, 0x80, 0x80, 0x10};
    assert_encodes("[\"null\",\"int\",\"long\"]", "2147483648", u_long, 6);
}

static void assert_value_error(const char *schema_text, const char *value, const char *want)
{
    struct avro_schema *s = parse_or_fail(schema_text);
    struct error err = {0};
    json_t *v = load(value);
    struct buf out = BUF_INIT;
    assert_int_equal(buf_puts(&out, "keep"), 0);
    assert_int_equal(avro_encode(avro_schema_root(s), v, &out, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    if (!strstr(err.msg, want))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    assert_int_equal(out.len, 4); /* nothing half-written */
    assert_string_equal(out.data, "keep");
    json_decref(v);
    buf_free(&out);
    avro_schema_free(s);
}

static void test_value_errors(void **state)
{
    (void)state;
    const char *rec = "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
                      "{\"name\":\"a\",\"type\":\"int\"},"
                      "{\"name\":\"b\",\"type\":[\"null\",\"long\"],\"default\":null},"
                      "{\"name\":\"c\",\"type\":{\"type\":\"record\",\"name\":\"inner\","
                      "\"fields\":[{\"name\":\"x\",\"type\":{\"type\":\"fixed\",\"name\":\"f4\","
                      "\"size\":4}}]}}]}";
    assert_value_error(rec, "{\"b\":1,\"c\":{\"x\":\"AAAAAA==\"}}", "missing field \"a\"");
    assert_value_error(rec, "{\"a\":1,\"zz\":1,\"c\":{\"x\":\"AAAAAA==\"}}", "no field \"zz\"");
    assert_value_error(rec, "{\"a\":2147483648,\"c\":{\"x\":\"AAAAAA==\"}}", "a: ");
    assert_value_error(rec, "{\"a\":1,\"c\":{\"x\":\"AAA=\"}}", "c: x: fixed f4 takes 4");
    assert_value_error(rec, "{\"a\":1,\"c\":{\"x\":\"!!\"}}", "c: x: not base64");
    assert_value_error(rec, "{\"a\":1,\"b\":\"s\",\"c\":{\"x\":\"AAAAAA==\"}}",
                       "b: string fits no branch");
    assert_value_error("{\"type\":\"array\",\"items\":\"long\"}", "[1,2,\"x\"]", "[2]: ");
    assert_value_error("\"float\"", "1e300", "out of float range");
    assert_value_error("{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[\"A\"]}", "\"B\"",
                       "not a symbol");
    /* A left-out field with a default is written from it. */
    struct avro_schema *s;
    struct error err = {0};
    assert_int_equal(avro_schema_parse(rec, strlen(rec), &s, &err), 0);
    json_t *v = load("{\"a\":1,\"c\":{\"x\":\"AAAAAA==\"}}");
    struct buf out = BUF_INIT;
    assert_int_equal(avro_encode(avro_schema_root(s), v, &out, &err), 0);
    static const uint8_t with_default[] = {0x02, 0x00, 0, 0, 0, 0};
    assert_int_equal(out.len, sizeof with_default);
    assert_memory_equal(out.data, with_default, sizeof with_default);
    json_decref(v);
    buf_free(&out);
    avro_schema_free(s);
}

static void assert_schema_error(const char *text)
{
    struct avro_schema *s = NULL;
    struct error err = {0};
    assert_int_equal(avro_schema_parse(text, strlen(text), &s, &err), -1);
    assert_int_equal(err.code, ERR_MALFORMED);
    assert_null(s);
}

static void test_schema_parse(void **state)
{
    (void)state;
    assert_schema_error("{");
    assert_schema_error("\"nope\"");
    assert_schema_error("{\"type\":\"record\",\"name\":\"r\"}");
    assert_schema_error("{\"type\":\"record\",\"name\":\"1r\",\"fields\":[]}");
    assert_schema_error("[\"null\",\"null\"]");
    assert_schema_error("[\"null\",[\"int\"]]");
    assert_schema_error("{\"type\":\"fixed\",\"name\":\"f\",\"size\":-1}");
    assert_schema_error("{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[\"A\",\"A\"]}");
    assert_schema_error("{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\","
                        "\"type\":\"int\"},{\"name\":\"a\",\"type\":\"int\"}]}");
    assert_schema_error("{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\","
                        "\"type\":\"int\",\"field-id\":\"1\"}]}");
    assert_schema_error("{\"type\":\"array\",\"items\":\"int\",\"element-id\":1.5}");
    /* Named types: namespaces, references, a recursive record. */
    const char *text = "{\"type\":\"record\",\"name\":\"node\",\"namespace\":\"a.b\",\"fields\":["
                       "{\"name\":\"v\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"},"
                       "\"field-id\":7},"
                       "{\"name\":\"next\",\"type\":[\"null\",\"node\"],\"field-id\":8},"
                       "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"a.b.node\","
                       "\"key-id\":9,\"value-id\":10}}]}";
    struct avro_schema *s;
    struct error err = {0};
    if (avro_schema_parse(text, strlen(text), &s, &err) < 0)
        fail_msg("%s", err.msg);
    const struct avro_node *root = avro_schema_root(s);
    assert_string_equal(root->name, "a.b.node");
    assert_string_equal(avro_record_field_by_id(root, 7)->type->logical_type, "date");
    const struct avro_field *next = avro_record_field(root, "next");
    assert_ptr_equal(next->type->branches[1], root);
    const struct avro_node *m = avro_record_field(root, "m")->type;
    assert_true(m->has_key_id && m->key_id == 9 && m->has_value_id && m->value_id == 10);
    assert_ptr_equal(m->items, root);
    assert_null(avro_record_field_by_id(root, 99));
    assert_string_equal(avro_schema_text(s, NULL), text);
    json_t *v = load("{\"v\":1,\"next\":{\"v\":2,\"next\":null,\"m\":{}},\"m\":{\"k\":{\"v\":3,"
                     "\"next\":null,\"m\":{}}}}");
    assert_int_equal(json_integer_value(avro_record_get_by_id(root, v, 7)), 1);
    struct buf out = BUF_INIT;
    assert_int_equal(avro_encode(root, v, &out, &err), 0);
    json_t *back;
    size_t used;
    assert_int_equal(avro_decode(root, (const uint8_t *)out.data, out.len, &back, &used, &err), 0);
    assert_true(json_equal(back, v));
    json_decref(back);
    json_decref(v);
    buf_free(&out);
    avro_schema_free(s);
}

static void test_name_sanitize(void **state)
{
    (void)state;
    static const char *const vec[][2] = {
        {"ok_1", "ok_1"},     {"a-b", "a_x2Db"}, {"1x", "_1x"},     {"ts day", "ts_x20day"},
        {"\xc3\xa9", "_xE9"}, {"_", "_"},        {"x.y", "x_x2Ey"}, {"\xf0\x9f\x98\x80", "_x1F600"},
    };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        char *got = avro_name_sanitize(vec[i][0]);
        assert_non_null(got);
        assert_string_equal(got, vec[i][1]);
        assert_true(avro_name_valid(got));
        free(got);
    }
    assert_null(avro_name_sanitize(""));
    assert_null(avro_name_sanitize("a\xff"));
    assert_false(avro_name_valid("a-b"));
    assert_false(avro_name_valid("9"));
}

/* ---- container files ---- */

static const char all_types_schema[] =
    "{\"type\":\"record\",\"name\":\"all\",\"fields\":["
    "{\"name\":\"n\",\"type\":\"null\"},"
    "{\"name\":\"b\",\"type\":\"boolean\"},"
    "{\"name\":\"i\",\"type\":\"int\"},"
    "{\"name\":\"l\",\"type\":\"long\"},"
    "{\"name\":\"f\",\"type\":\"float\"},"
    "{\"name\":\"d\",\"type\":\"double\"},"
    "{\"name\":\"by\",\"type\":\"bytes\"},"
    "{\"name\":\"s\",\"type\":\"string\"},"
    "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"color\",\"symbols\":[\"RED\","
    "\"GREEN\"]}},"
    "{\"name\":\"fx\",\"type\":{\"type\":\"fixed\",\"name\":\"f3\",\"size\":3}},"
    "{\"name\":\"arr\",\"type\":{\"type\":\"array\",\"items\":[\"null\",\"long\"],"
    "\"element-id\":20}},"
    "{\"name\":\"mp\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"array\",\"items\":"
    "\"string\"}}},"
    "{\"name\":\"u\",\"type\":[\"null\",\"string\",{\"type\":\"record\",\"name\":\"sub\","
    "\"fields\":[{\"name\":\"x\",\"type\":[\"null\",\"f3\"]},{\"name\":\"deep\",\"type\":{"
    "\"type\":\"array\",\"items\":{\"type\":\"map\",\"values\":[\"null\",\"double\",\"color\"]}}}"
    "]}]},"
    "{\"name\":\"t\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}}]}";

static const char all_types_records[] =
    "[{\"n\":null,\"b\":true,\"i\":-2147483648,\"l\":9223372036854775807,\"f\":1.5,"
    "\"d\":-2.25,\"by\":\"AAECAw==\",\"s\":\"h\\u00e9llo \\u0000 x\",\"e\":\"GREEN\","
    "\"fx\":\"AQID\",\"arr\":[1,null,-3],\"mp\":{\"a\":[\"x\",\"y\"],\"\":[]},\"u\":null,"
    "\"t\":1510871468000000},"
    "{\"n\":null,\"b\":false,\"i\":0,\"l\":-9223372036854775808,\"f\":\"-Infinity\","
    "\"d\":\"NaN\",\"by\":\"\",\"s\":\"\",\"e\":\"RED\",\"fx\":\"AAAA\",\"arr\":[],\"mp\":{},"
    "\"u\":\"str\",\"t\":-1},"
    "{\"n\":null,\"b\":true,\"i\":7,\"l\":0,\"f\":0.0,\"d\":\"Infinity\",\"by\":\"/w==\","
    "\"s\":\"z\",\"e\":\"RED\",\"fx\":\"////\",\"arr\":[null],\"mp\":{\"k\":[\"\"]},"
    "\"u\":{\"x\":\"AQID\",\"deep\":[{\"p\":1.0,\"q\":null,\"r\":\"GREEN\"},{}]},\"t\":0}]";

static void test_round_trip_all_types(void **state)
{
    (void)state;
    assert_round_trip(all_types_schema, all_types_records, AVRO_CODEC_NULL, 0);
    assert_round_trip(all_types_schema, all_types_records, AVRO_CODEC_DEFLATE, 0);
    assert_round_trip(all_types_schema, all_types_records, AVRO_CODEC_NULL, 1);
    assert_round_trip(all_types_schema, all_types_records, AVRO_CODEC_DEFLATE, 1);
}

static size_t count_sync(const struct buf *file)
{
    size_t n = 0;
    for (size_t i = 0; i + 16 <= file->len; i++)
        n += memcmp(file->data + i, fixed_sync, 16) == 0;
    return n;
}

static void test_many_blocks(void **state)
{
    (void)state;
    const char *schema = "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"id\","
                         "\"type\":\"long\"},{\"name\":\"s\",\"type\":\"string\"}]}";
    for (int codec = 0; codec < 2; codec++) {
        struct avro_writer_options o = {
            .codec = (enum avro_codec)codec, .block_bytes = 100, .sync = fixed_sync};
        struct avro_writer *w;
        struct error err = {0};
        assert_int_equal(avro_writer_new(schema, &o, &w, &err), 0);
        for (int i = 0; i < 1000; i++) {
            json_t *r = json_pack("{s:I,s:s}", "id", (json_int_t)i * 1000003, "s",
                                  i % 3 ? "some text" : "");
            assert_int_equal(avro_writer_append(w, r, &err), 0);
            json_decref(r);
        }
        assert_int_equal(avro_writer_count(w), 1000);
        struct buf file = BUF_INIT;
        assert_int_equal(avro_writer_finish(w, &file, &err), 0);
        assert_int_equal(avro_writer_append(w, json_null(), &err), -1);
        assert_int_equal(err.code, ERR_INVALID);
        avro_writer_free(w);
        /* 1000 records of ~13 bytes in 100-byte blocks: about 8 per block,
         * so well over 100 blocks (header sync + one per block). */
        size_t syncs = count_sync(&file);
        assert_true(syncs > 100);
        json_t *all;
        assert_int_equal(read_all(file.data, file.len, NULL, &all, &err), 0);
        assert_int_equal(json_array_size(all), 1000);
        for (int i = 0; i < 1000; i++) {
            json_t *r = json_array_get(all, (size_t)i);
            assert_int_equal(json_integer_value(json_object_get(r, "id")), (json_int_t)i * 1000003);
            assert_string_equal(json_string_value(json_object_get(r, "s")),
                                i % 3 ? "some text" : "");
        }
        json_decref(all);
        buf_free(&file);
    }
}

static void test_header_metadata(void **state)
{
    (void)state;
    const char *schema = " { \"type\" : \"int\" } ";
    struct avro_writer *w;
    struct error err = {0};
    struct avro_writer_options o = {.codec = AVRO_CODEC_DEFLATE};
    assert_int_equal(avro_writer_new(schema, &o, &w, &err), 0);
    assert_int_equal(avro_writer_set_meta_str(w, "format-version", "1", &err), 0);
    assert_int_equal(avro_writer_set_meta_str(w, "content", "data", &err), 0);
    assert_int_equal(avro_writer_set_meta_str(w, "format-version", "2", &err), 0);
    static const uint8_t bin[3] = {0, 0xff, 0};
    assert_int_equal(avro_writer_set_meta(w, "binary", bin, 3, &err), 0);
    assert_int_equal(avro_writer_set_meta_str(w, "avro.codec", "snappy", &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    json_t *one = json_integer(42);
    assert_int_equal(avro_writer_append(w, one, &err), 0);
    json_decref(one);
    struct buf a = BUF_INIT, b = BUF_INIT;
    assert_int_equal(avro_writer_finish(w, &a, &err), 0);
    avro_writer_free(w);
    /* A second writer gets another random sync marker. */
    assert_int_equal(avro_writer_new(schema, NULL, &w, &err), 0);
    assert_int_equal(avro_writer_finish(w, &b, &err), 0);
    avro_writer_free(w);
    assert_memory_not_equal(a.data + a.len - 16, b.data + b.len - 16, 16);

    struct avro_reader *r;
    assert_int_equal(avro_reader_open(a.data, a.len, NULL, &r, &err), 0);
    size_t len;
    const char *v = avro_reader_meta(r, "avro.schema", &len);
    assert_int_equal(len, strlen(schema));
    assert_memory_equal(v, schema, len);
    v = avro_reader_meta(r, "avro.codec", &len);
    assert_int_equal(len, 7);
    assert_memory_equal(v, "deflate", 7);
    assert_int_equal(avro_reader_codec(r), AVRO_CODEC_DEFLATE);
    v = avro_reader_meta(r, "format-version", &len);
    assert_int_equal(len, 1);
    assert_memory_equal(v, "2", 1);
    v = avro_reader_meta(r, "binary", &len);
    assert_int_equal(len, 3);
    assert_memory_equal(v, bin, 3);
    assert_null(avro_reader_meta(r, "absent", &len));
    assert_int_equal(avro_reader_meta_count(r), 5);
    const void *val;
    assert_string_equal(avro_reader_meta_at(r, 0, &val, &len), "avro.schema");
    assert_string_equal(avro_reader_meta_at(r, 3, &val, &len), "content");
    assert_null(avro_reader_meta_at(r, 5, &val, &len));
    json_t *rec;
    assert_int_equal(avro_reader_next(r, &rec, &err), 1);
    assert_int_equal(json_integer_value(rec), 42);
    json_decref(rec);
    assert_int_equal(avro_reader_next(r, &rec, &err), 0);
    avro_reader_free(r);
    /* The header-only file reads as no records. */
    json_t *all;
    assert_int_equal(read_all(b.data, b.len, NULL, &all, &err), 0);
    assert_int_equal(json_array_size(all), 0);
    json_decref(all);
    buf_free(&a);
    buf_free(&b);
}

/* ---- Iceberg manifest schemas ---- */

static const struct avro_node *unwrap_optional(const struct avro_field *f)
{
    assert_non_null(f);
    assert_int_equal(f->type->type, AVRO_UNION);
    assert_int_equal(f->type->nbranches, 2);
    assert_int_equal(f->type->branches[0]->type, AVRO_NULL);
    assert_true(json_is_null(f->default_value));
    return f->type->branches[1];
}

static void assert_int_map(const struct avro_node *data_file, int32_t id, int32_t kid, int32_t vid,
                           enum avro_type vtype)
{
    const struct avro_node *arr = unwrap_optional(avro_record_field_by_id(data_file, id));
    assert_int_equal(arr->type, AVRO_ARRAY);
    assert_string_equal(arr->logical_type, "map");
    const struct avro_node *kv = arr->items;
    char name[32];
    snprintf(name, sizeof name, "k%d_v%d", kid, vid);
    assert_string_equal(kv->name, name);
    assert_int_equal(avro_record_field_by_id(kv, kid)->type->type, AVRO_INT);
    assert_string_equal(avro_record_field_by_id(kv, kid)->name, "key");
    assert_int_equal(avro_record_field_by_id(kv, vid)->type->type, vtype);
    assert_string_equal(avro_record_field_by_id(kv, vid)->name, "value");
}

static const struct avro_partition_field day_spec[] = {
    {"ts_day", "date", 1000},
    {"id_bucket", "int", 1001},
    {"price", "decimal(9, 2)", 1002},
    {"u", "uuid", 1003},
};

static void test_manifest_schemas(void **state)
{
    (void)state;
    for (int version = 2; version <= 3; version++) {
        struct error err = {0};
        char *list = iceberg_manifest_list_schema(version, &err);
        char *entry = iceberg_manifest_entry_schema(version, day_spec, 4, &err);
        assert_non_null(list);
        assert_non_null(entry);
        struct avro_schema *ls, *es;
        if (avro_schema_parse(list, strlen(list), &ls, &err) < 0 ||
            avro_schema_parse(entry, strlen(entry), &es, &err) < 0)
            fail_msg("v%d: %s", version, err.msg);
        const struct avro_node *mf = avro_schema_root(ls);
        assert_string_equal(mf->name, "manifest_file");
        static const struct {
            int32_t id;
            const char *name;
            enum avro_type type;
        } list_fields[] = {
            {500, "manifest_path", AVRO_STRING},     {501, "manifest_length", AVRO_LONG},
            {502, "partition_spec_id", AVRO_INT},    {517, "content", AVRO_INT},
            {515, "sequence_number", AVRO_LONG},     {516, "min_sequence_number", AVRO_LONG},
            {503, "added_snapshot_id", AVRO_LONG},   {504, "added_files_count", AVRO_INT},
            {505, "existing_files_count", AVRO_INT}, {506, "deleted_files_count", AVRO_INT},
            {512, "added_rows_count", AVRO_LONG},    {513, "existing_rows_count", AVRO_LONG},
            {514, "deleted_rows_count", AVRO_LONG},  {507, "partitions", AVRO_UNION},
            {519, "key_metadata", AVRO_UNION},
        };
        assert_int_equal(mf->nfields, 15 + (version == 3));
        for (size_t i = 0; i < sizeof list_fields / sizeof list_fields[0]; i++) {
            assert_string_equal(mf->fields[i].name, list_fields[i].name);
            assert_int_equal(mf->fields[i].field_id, list_fields[i].id);
            assert_int_equal(mf->fields[i].type->type, list_fields[i].type);
        }
        const struct avro_node *parts = unwrap_optional(avro_record_field_by_id(mf, 507));
        assert_true(parts->has_element_id && parts->element_id == 508);
        assert_string_equal(parts->items->name, "r508");
        assert_int_equal(avro_record_field_by_id(parts->items, 509)->type->type, AVRO_BOOLEAN);
        assert_int_equal(unwrap_optional(avro_record_field_by_id(parts->items, 518))->type,
                         AVRO_BOOLEAN);
        assert_int_equal(unwrap_optional(avro_record_field_by_id(parts->items, 510))->type,
                         AVRO_BYTES);
        assert_int_equal(unwrap_optional(avro_record_field_by_id(parts->items, 511))->type,
                         AVRO_BYTES);
        if (version == 3)
            assert_int_equal(unwrap_optional(avro_record_field_by_id(mf, 520))->type, AVRO_LONG);
        else
            assert_null(avro_record_field_by_id(mf, 520));

        const struct avro_node *me = avro_schema_root(es);
        assert_string_equal(me->name, "manifest_entry");
        assert_int_equal(me->nfields, 5);
        assert_int_equal(avro_record_field_by_id(me, 0)->type->type, AVRO_INT);
        assert_int_equal(unwrap_optional(avro_record_field_by_id(me, 1))->type, AVRO_LONG);
        assert_int_equal(unwrap_optional(avro_record_field_by_id(me, 3))->type, AVRO_LONG);
        assert_int_equal(unwrap_optional(avro_record_field_by_id(me, 4))->type, AVRO_LONG);
        const struct avro_node *df = avro_record_field_by_id(me, 2)->type;
        assert_string_equal(df->name, "r2");
        static const struct {
            int32_t id;
            const char *name;
        } df_fields[] = {
            {134, "content"},          {100, "file_path"},     {101, "file_format"},
            {102, "partition"},        {103, "record_count"},  {104, "file_size_in_bytes"},
            {108, "column_sizes"},     {109, "value_counts"},  {110, "null_value_counts"},
            {137, "nan_value_counts"}, {125, "lower_bounds"},  {128, "upper_bounds"},
            {131, "key_metadata"},     {132, "split_offsets"}, {135, "equality_ids"},
            {140, "sort_order_id"},
        };
        for (size_t i = 0; i < sizeof df_fields / sizeof df_fields[0]; i++) {
            assert_string_equal(df->fields[i].name, df_fields[i].name);
            assert_int_equal(df->fields[i].field_id, df_fields[i].id);
        }
        assert_int_equal(df->nfields, version == 3 ? 20 : 17);
        assert_string_equal(df->fields[16].name,
                            version == 3 ? "first_row_id" : "referenced_data_file");
        if (version == 3) {
            assert_int_equal(df->fields[16].field_id, 142);
            assert_int_equal(df->fields[17].field_id, 143);
            assert_int_equal(df->fields[18].field_id, 144);
            assert_int_equal(df->fields[19].field_id, 145);
        } else {
            assert_int_equal(df->fields[16].field_id, 143);
        }
        assert_int_map(df, 108, 117, 118, AVRO_LONG);
        assert_int_map(df, 109, 119, 120, AVRO_LONG);
        assert_int_map(df, 110, 121, 122, AVRO_LONG);
        assert_int_map(df, 137, 138, 139, AVRO_LONG);
        assert_int_map(df, 125, 126, 127, AVRO_BYTES);
        assert_int_map(df, 128, 129, 130, AVRO_BYTES);
        const struct avro_node *so = unwrap_optional(avro_record_field_by_id(df, 132));
        assert_true(so->has_element_id && so->element_id == 133 && so->items->type == AVRO_LONG);
        const struct avro_node *eq = unwrap_optional(avro_record_field_by_id(df, 135));
        assert_true(eq->has_element_id && eq->element_id == 136 && eq->items->type == AVRO_INT);
        const struct avro_node *r102 = avro_record_field_by_id(df, 102)->type;
        assert_string_equal(r102->name, "r102");
        assert_int_equal(r102->nfields, 4);
        const struct avro_node *day = unwrap_optional(avro_record_field_by_id(r102, 1000));
        assert_string_equal(avro_record_field_by_id(r102, 1000)->name, "ts_day");
        assert_int_equal(day->type, AVRO_INT);
        assert_string_equal(day->logical_type, "date");
        assert_int_equal(unwrap_optional(avro_record_field_by_id(r102, 1001))->type, AVRO_INT);
        const struct avro_node *dec = unwrap_optional(avro_record_field_by_id(r102, 1002));
        assert_int_equal(dec->type, AVRO_FIXED);
        assert_int_equal(dec->size, 4); /* precision 9 fits 4 bytes */
        assert_int_equal(unwrap_optional(avro_record_field_by_id(r102, 1003))->size, 16);

        /* A realistic list record and entry, through files and back. */
        json_t *lrec = load("{\"manifest_path\":\"file:///t/metadata/a-m0.avro\","
                            "\"manifest_length\":7021,\"partition_spec_id\":0,\"content\":0,"
                            "\"sequence_number\":2,\"min_sequence_number\":2,"
                            "\"added_snapshot_id\":4353535345353,\"added_files_count\":2,"
                            "\"existing_files_count\":0,\"deleted_files_count\":0,"
                            "\"added_rows_count\":3,\"existing_rows_count\":0,"
                            "\"deleted_rows_count\":0,\"partitions\":[{\"contains_null\":false,"
                            "\"contains_nan\":null,\"lower_bound\":\"TkQAAA==\","
                            "\"upper_bound\":\"T0QAAA==\"}],\"key_metadata\":null}");
        if (version == 3)
            json_object_set_new(lrec, "first_row_id", json_integer(3));
        json_t *erec =
            load("{\"status\":1,\"snapshot_id\":4353535345353,\"sequence_number\":null,"
                 "\"file_sequence_number\":null,\"data_file\":{\"content\":0,\"file_path\":"
                 "\"file:///t/data/ts_day=2017-11-16/f.parquet\",\"file_format\":\"PARQUET\","
                 "\"partition\":{\"ts_day\":17486,\"id_bucket\":3,\"price\":null,\"u\":null},"
                 "\"record_count\":2,\"file_size_in_bytes\":1234,\"column_sizes\":null,"
                 "\"value_counts\":[{\"key\":1,\"value\":2}],\"null_value_counts\":[{\"key\":1,"
                 "\"value\":0}],\"nan_value_counts\":null,\"lower_bounds\":[{\"key\":1,\"value\":"
                 "\"AMMmLSFeBQA=\"}],\"upper_bounds\":[{\"key\":1,\"value\":\"AMMmLSFeBQA=\"}],"
                 "\"key_metadata\":null,\"split_offsets\":[4],\"equality_ids\":null,"
                 "\"sort_order_id\":1,\"referenced_data_file\":null}}");
        if (version == 3) {
            json_t *d = json_object_get(erec, "data_file");
            json_object_set_new(d, "first_row_id", json_null());
            json_object_set_new(d, "content_offset", json_null());
            json_object_set_new(d, "content_size_in_bytes", json_null());
        }
        for (int which = 0; which < 2; which++) {
            const char *schema = which ? entry : list;
            json_t *rec = which ? erec : lrec;
            struct avro_writer *w;
            assert_int_equal(avro_writer_new(schema, NULL, &w, &err), 0);
            assert_int_equal(
                avro_writer_set_meta_str(w, "format-version", version == 3 ? "3" : "2", &err), 0);
            if (avro_writer_append(w, rec, &err) < 0)
                fail_msg("v%d %s: %s", version, which ? "entry" : "list", err.msg);
            struct buf file = BUF_INIT;
            assert_int_equal(avro_writer_finish(w, &file, &err), 0);
            avro_writer_free(w);
            json_t *all;
            assert_int_equal(read_all(file.data, file.len, NULL, &all, &err), 0);
            assert_int_equal(json_array_size(all), 1);
            assert_true(json_equal(json_array_get(all, 0), rec));
            json_decref(all);
            buf_free(&file);
        }
        /* Read by id, whatever the name. */
        assert_int_equal(json_integer_value(avro_record_get_by_id(mf, lrec, 504)), 2);
        json_decref(lrec);
        json_decref(erec);
        avro_schema_free(ls);
        avro_schema_free(es);
        free(list);
        free(entry);
    }
    struct error err = {0};
    assert_null(iceberg_manifest_list_schema(1, &err));
    assert_int_equal(err.code, ERR_INVALID);
    /* A name that is not an Avro name is sanitized, the original kept. */
    const struct avro_partition_field odd_name[] = {{"ts day", "date", 1000}};
    char *odd = iceberg_manifest_entry_schema(2, odd_name, 1, &err);
    assert_non_null(odd);
    struct avro_schema *os = parse_or_fail(odd);
    const struct avro_node *odd_r102 =
        avro_record_field_by_id(avro_record_field_by_id(avro_schema_root(os), 2)->type, 102)->type;
    const struct avro_field *odd_f = avro_record_field_by_id(odd_r102, 1000);
    assert_string_equal(odd_f->name, "ts_x20day");
    assert_string_equal(json_string_value(json_object_get(odd_f->json, "iceberg-field-name")),
                        "ts day");
    avro_schema_free(os);
    free(odd);
    const struct avro_partition_field bad_name[] = {{"", "date", 1000}};
    assert_null(iceberg_manifest_entry_schema(2, bad_name, 1, &err));
    assert_int_equal(err.code, ERR_INVALID);
    const struct avro_partition_field bad_type[] = {{"x", "decimal(40,2)", 1000}};
    assert_null(iceberg_manifest_entry_schema(2, bad_type, 1, &err));
    const struct avro_partition_field bad_fixed[] = {{"x", "fixed[4]x", 1000}};
    assert_null(iceberg_manifest_entry_schema(2, bad_fixed, 1, &err));
    /* Unpartitioned: an empty r102. */
    char *unpart = iceberg_manifest_entry_schema(3, NULL, 0, &err);
    assert_non_null(unpart);
    assert_non_null(strstr(unpart, "\"name\":\"r102\",\"fields\":[]"));
    struct avro_schema *s;
    assert_int_equal(avro_schema_parse(unpart, strlen(unpart), &s, &err), 0);
    avro_schema_free(s);
    free(unpart);
}

/* ---- hostile input ---- */

static void assert_typed_failure_or_ok(const void *data, size_t len,
                                       const struct avro_reader_options *o, bool *failed)
{
    json_t *all = NULL;
    struct error err = {0};
    int rc = read_all(data, len, o, &all, &err);
    if (rc < 0) {
        assert_true(err.code == ERR_CORRUPT || err.code == ERR_UNSUPPORTED);
        assert_true(err.msg[0] != '\0');
    }
    json_decref(all);
    *failed = rc < 0;
}

static void test_truncation_and_flips(void **state)
{
    (void)state;
    for (int codec = 0; codec < 2; codec++) {
        struct buf file = BUF_INIT;
        write_file(all_types_schema, all_types_records, (enum avro_codec)codec, 0, &file);
        /* The header ends after the first sync marker. */
        size_t header_end = 0;
        for (size_t i = 0; i + 16 <= file.len; i++) {
            if (memcmp(file.data + i, fixed_sync, 16) == 0) {
                header_end = i + 16;
                break;
            }
        }
        assert_true(header_end > 0 && header_end < file.len);
        for (size_t n = 0; n < file.len; n++) {
            uint8_t *copy = malloc(n ? n : 1);
            memcpy(copy, file.data, n);
            bool failed;
            assert_typed_failure_or_ok(copy, n, NULL, &failed);
            /* Only the header alone is a whole (empty) file. */
            if (!failed && n != header_end)
                fail_msg("codec %d: truncation at %zu of %zu read as valid", codec, n, file.len);
            free(copy);
        }
        size_t failures = 0, body_flips = 0;
        uint8_t *copy = malloc(file.len);
        for (size_t i = 0; i < file.len; i++) {
            for (int bit = 0; bit < 8; bit++) {
                memcpy(copy, file.data, file.len);
                copy[i] ^= (uint8_t)(1u << bit);
                bool failed;
                assert_typed_failure_or_ok(copy, file.len, NULL, &failed);
                if (i >= header_end) {
                    failures += failed;
                    body_flips++;
                }
            }
        }
        /* Flips in string and number payloads read as other valid values;
         * most of the rest break something the reader checks. */
        printf("codec %d: %zu of %zu block bit flips detected\n", codec, failures, body_flips);
        assert_true(failures * 3 > body_flips);
        /* A different sync marker after the block. */
        memcpy(copy, file.data, file.len);
        copy[file.len - 1] ^= 0x55;
        struct error err = {0};
        json_t *all;
        assert_int_equal(read_all(copy, file.len, NULL, &all, &err), -1);
        assert_int_equal(err.code, ERR_CORRUPT);
        assert_non_null(strstr(err.msg, "sync"));
        free(copy);
        buf_free(&file);
    }
}

/* Builds a file by hand: header with the schema, then raw body bytes. */
static void hand_file(struct buf *out, const char *schema, const char *codec, const uint8_t *body,
                      size_t n)
{
    buf_reset(out);
    buf_append(out, "Obj\x01", 4);
    avro_put_long(out, codec ? 2 : 1);
    avro_put_long(out, 11);
    buf_append(out, "avro.schema", 11);
    avro_put_long(out, (int64_t)strlen(schema));
    buf_append(out, schema, strlen(schema));
    if (codec) {
        avro_put_long(out, 10);
        buf_append(out, "avro.codec", 10);
        avro_put_long(out, (int64_t)strlen(codec));
        buf_append(out, codec, strlen(codec));
    }
    avro_put_long(out, 0);
    buf_append(out, fixed_sync, 16);
    buf_append(out, body, n);
}

static void assert_hand_error(const char *schema, const char *codec, const uint8_t *body, size_t n,
                              enum error_code code, const char *want)
{
    struct buf file = BUF_INIT;
    hand_file(&file, schema, codec, body, n);
    json_t *all;
    struct error err = {0};
    struct avro_reader_options o = {.max_block_bytes = 1 << 16};
    assert_int_equal(read_all(file.data, file.len, &o, &all, &err), -1);
    assert_int_equal(err.code, code);
    if (!strstr(err.msg, want))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    buf_free(&file);
}

static void test_absurd_counts(void **state)
{
    (void)state;
    /* A block claiming 2^62 records of a long. */
    struct buf b = BUF_INIT;
    avro_put_long(&b, INT64_C(1) << 62);
    avro_put_long(&b, 2);
    buf_append(&b, "\x02\x04", 2);
    buf_append(&b, fixed_sync, 16);
    assert_hand_error("\"long\"", NULL, (uint8_t *)b.data, b.len, ERR_CORRUPT, "count exceeds");
    /* Block size past the end of the file; negative count. */
    buf_reset(&b);
    avro_put_long(&b, 1);
    avro_put_long(&b, INT64_MAX);
    assert_hand_error("\"long\"", NULL, (uint8_t *)b.data, b.len, ERR_CORRUPT, "exceeds the file");
    buf_reset(&b);
    avro_put_long(&b, -1);
    avro_put_long(&b, 1);
    assert_hand_error("\"long\"", NULL, (uint8_t *)b.data, b.len, ERR_CORRUPT, "negative");
    /* A string claiming 2^60 bytes; an array claiming 2^60 items; a
     * negative array count of INT64_MIN. */
    static const struct {
        const char *schema;
        int64_t count;
        const char *want;
    } inner[] = {
        {"\"string\"", INT64_C(1) << 60, "truncated string"},
        {"{\"type\":\"array\",\"items\":\"long\"}", INT64_C(1) << 60, "exceeds the data"},
        {"{\"type\":\"array\",\"items\":\"long\"}", INT64_MIN, "absurd"},
        {"{\"type\":\"array\",\"items\":\"null\"}", INT64_C(1) << 40, "too many empty"},
        {"{\"type\":\"map\",\"values\":\"null\"}", INT64_C(1) << 40, "exceeds the data"},
        {"[\"null\",\"long\"]", 5, "branch 5 out of range"},
        {"{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[\"A\"]}", -1, "out of range"},
        {"\"boolean\"", 1, "boolean byte"}, /* the byte 0x02 */
    };
    for (size_t i = 0; i < sizeof inner / sizeof inner[0]; i++) {
        struct buf data = BUF_INIT;
        avro_put_long(&data, inner[i].count);
        buf_append(&data, "\x02\x02\x02", 3);
        buf_reset(&b);
        avro_put_long(&b, 1);
        avro_put_long(&b, (int64_t)data.len);
        buf_append(&b, data.data, data.len);
        buf_append(&b, fixed_sync, 16);
        assert_hand_error(inner[i].schema, NULL, (uint8_t *)b.data, b.len, ERR_CORRUPT,
                          inner[i].want);
        buf_free(&data);
    }
    /* Records of an empty record type: 2^40 of them in a block. */
    buf_reset(&b);
    avro_put_long(&b, INT64_C(1) << 40);
    avro_put_long(&b, 0);
    buf_append(&b, fixed_sync, 16);
    assert_hand_error("{\"type\":\"record\",\"name\":\"e\",\"fields\":[]}", NULL, (uint8_t *)b.data,
                      b.len, ERR_CORRUPT, "too many empty");
    /* A block with bytes left over after its records. */
    buf_reset(&b);
    avro_put_long(&b, 1);
    avro_put_long(&b, 2);
    buf_append(&b, "\x02\x02", 2);
    buf_append(&b, fixed_sync, 16);
    assert_hand_error("\"long\"", NULL, (uint8_t *)b.data, b.len, ERR_CORRUPT, "past its");
    /* Codecs: snappy is refused by name; a deflate bomb stops at the limit. */
    assert_hand_error("\"long\"", "snappy", NULL, 0, ERR_UNSUPPORTED, "snappy");
    {
        struct avro_writer_options o = {
            .codec = AVRO_CODEC_DEFLATE, .sync = fixed_sync, .block_bytes = 1 << 20};
        struct avro_writer *w;
        struct error err = {0};
        assert_int_equal(avro_writer_new("\"string\"", &o, &w, &err), 0);
        char *big = malloc(200000);
        memset(big, 'a', 200000);
        json_t *s = json_stringn(big, 200000);
        assert_int_equal(avro_writer_append(w, s, &err), 0);
        json_decref(s);
        free(big);
        struct buf file = BUF_INIT;
        assert_int_equal(avro_writer_finish(w, &file, &err), 0);
        avro_writer_free(w);
        assert_true(file.len < 2000);
        struct avro_reader_options ro = {.max_block_bytes = 1 << 16};
        json_t *all;
        assert_int_equal(read_all(file.data, file.len, &ro, &all, &err), -1);
        assert_int_equal(err.code, ERR_CORRUPT);
        assert_non_null(strstr(err.msg, "size limit"));
        assert_int_equal(read_all(file.data, file.len, NULL, &all, &err), 0);
        assert_int_equal(json_string_length(json_array_get(all, 0)), 200000);
        json_decref(all);
        buf_free(&file);
    }
    /* A recursive schema and 1000 levels of nesting in 1000 bytes. */
    struct buf deep = BUF_INIT;
    for (int i = 0; i < 1000; i++)
        buf_putc(&deep, 0x02);
    buf_putc(&deep, 0x00);
    buf_reset(&b);
    avro_put_long(&b, 1);
    avro_put_long(&b, (int64_t)deep.len);
    buf_append(&b, deep.data, deep.len);
    buf_append(&b, fixed_sync, 16);
    assert_hand_error("{\"type\":\"record\",\"name\":\"n\",\"fields\":[{\"name\":\"next\","
                      "\"type\":[\"null\",\"n\"]}]}",
                      NULL, (uint8_t *)b.data, b.len, ERR_CORRUPT, "deeper");
    /* Not UTF-8 in a string; a header schema that is not a schema; a
     * header count past the file. */
    static const uint8_t bad_utf8[] = {0x02, 0x06, 0x04, 0xc3, 0x28};
    buf_reset(&b);
    buf_append(&b, bad_utf8, sizeof bad_utf8);
    buf_append(&b, fixed_sync, 16);
    assert_hand_error("\"string\"", NULL, (uint8_t *)b.data, b.len, ERR_CORRUPT, "UTF-8");
    assert_hand_error("{\"type\":\"bogus\"}", NULL, NULL, 0, ERR_CORRUPT, "unknown type");
    struct buf h = BUF_INIT;
    buf_append(&h, "Obj\x01", 4);
    avro_put_long(&h, INT64_C(1) << 50);
    struct avro_reader *r;
    struct error err = {0};
    assert_int_equal(avro_reader_open(h.data, h.len, NULL, &r, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    assert_int_equal(avro_reader_open("Obj\x02", 4, NULL, &r, &err), -1);
    assert_non_null(strstr(err.msg, "magic"));
    buf_free(&h);
    buf_free(&deep);
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zigzag_vectors),   cmocka_unit_test(test_value_bytes),
        cmocka_unit_test(test_value_errors),     cmocka_unit_test(test_schema_parse),
        cmocka_unit_test(test_name_sanitize),    cmocka_unit_test(test_round_trip_all_types),
        cmocka_unit_test(test_many_blocks),      cmocka_unit_test(test_header_metadata),
        cmocka_unit_test(test_manifest_schemas), cmocka_unit_test(test_truncation_and_flips),
        cmocka_unit_test(test_absurd_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
