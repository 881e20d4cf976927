/* Typed Arrow values into Variant storage (rows_variant_from_arrow):
 * arrays built by hand for each mapping, with nulls at every level,
 * offsets at the top and in children, and every refusal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rows/rows_variant.h"
#include "util/arrow.h"
#include "util/buf.h"

/* An Arrow field: its schema and array, built together. */
struct col {
    struct ArrowSchema s;
    struct ArrowArray a;
};

static void *copy(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    assert_non_null(q);
    if (n)
        memcpy(q, p, n);
    return q;
}

/* Validity from a string of '1' and '0', one a slot (NULL: none). */
static uint8_t *bits(const char *valid, int64_t *nulls)
{
    *nulls = 0;
    if (!valid)
        return NULL;
    size_t n = strlen(valid);
    uint8_t *b = calloc(n / 8 + 1, 1);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++) {
        arrow_set_bit(b, (int64_t)i, valid[i] == '1');
        *nulls += valid[i] != '1';
    }
    return b;
}

static void start(struct col *c, const char *format, const char *name, int64_t n_buffers,
                  int64_t n_children, int64_t length, int64_t offset, const char *valid)
{
    memset(c, 0, sizeof *c);
    assert_int_equal(arrow_schema_init(&c->s, format, name, 2, n_children), 0);
    assert_int_equal(arrow_array_init(&c->a, n_buffers, n_children), 0);
    c->a.length = length;
    c->a.offset = offset;
    if (n_buffers > 0)
        arrow_array_own_buffer(&c->a, 0, bits(valid, &c->a.null_count));
}

/* A fixed-width field of `physical` slots (its array's offset + length). */
static void fixed(struct col *c, const char *format, const char *name, int64_t length,
                  int64_t offset, const void *data, size_t width, const char *valid)
{
    start(c, format, name, 2, 0, length, offset, valid);
    arrow_array_own_buffer(&c->a, 1, copy(data, width * (size_t)(offset + length)));
}

/* A utf8 or binary field of the given texts (NULL: a null slot). */
static void text(struct col *c, const char *format, const char *name, int64_t length,
                 int64_t offset, const char *const *texts)
{
    int64_t n = offset + length;
    char valid[64] = {0};
    struct buf data = BUF_INIT;
    int32_t *off = calloc((size_t)n + 1, sizeof *off);
    assert_non_null(off);
    for (int64_t i = 0; i < n; i++) {
        valid[i] = texts[i] ? '1' : '0';
        if (texts[i])
            buf_puts(&data, texts[i]);
        off[i + 1] = (int32_t)data.len;
    }
    start(c, format, name, 3, 0, length, offset, valid);
    arrow_array_own_buffer(&c->a, 1, off);
    arrow_array_own_buffer(&c->a, 2, data.data ? buf_take(&data) : copy("", 0));
}

/* A nested field: its children moved in, buffer 1 (offsets) copied. */
static void nested(struct col *c, const char *format, const char *name, int64_t length,
                   int64_t offset, const char *valid, struct col *kids, int64_t nkids,
                   const void *buf1, size_t buf1_size)
{
    start(c, format, name, buf1 ? 2 : 1, nkids, length, offset, valid);
    if (buf1)
        arrow_array_own_buffer(&c->a, 1, copy(buf1, buf1_size));
    for (int64_t k = 0; k < nkids; k++) {
        arrow_schema_move(&kids[k].s, c->s.children[k]);
        arrow_array_move(&kids[k].a, c->a.children[k]);
    }
}

/* Makes dict the dictionary of c. util/arrow.h's release callbacks do
 * not release dictionaries: these are kept here and freed by
 * free_dicts(). */
static struct ArrowSchema *dict_schemas[8];
static struct ArrowArray *dict_arrays[8];
static int ndicts;

static void set_dict(struct col *c, struct col *dict)
{
    assert_true(ndicts < 8);
    c->s.dictionary = dict_schemas[ndicts] = malloc(sizeof *c->s.dictionary);
    c->a.dictionary = dict_arrays[ndicts] = malloc(sizeof *c->a.dictionary);
    assert_non_null(c->s.dictionary);
    assert_non_null(c->a.dictionary);
    ndicts++;
    arrow_schema_move(&dict->s, c->s.dictionary);
    arrow_array_move(&dict->a, c->a.dictionary);
}

static void free_dicts(void)
{
    for (int i = 0; i < ndicts; i++) {
        dict_schemas[i]->release(dict_schemas[i]);
        dict_arrays[i]->release(dict_arrays[i]);
        free(dict_schemas[i]);
        free(dict_arrays[i]);
    }
    ndicts = 0;
}

static void col_free(struct col *c)
{
    if (c->s.release)
        c->s.release(&c->s);
    if (c->a.release)
        c->a.release(&c->a);
}

/* The rows as JSON, one a line ("SQL NULL" for a null), or the error as
 * "ERROR <reason>: <message>". */
static char *encode(const struct col *c)
{
    struct ArrowArray out, json;
    struct error e = {0};
    struct buf b = BUF_INIT;
    if (rows_variant_from_arrow(&c->s, &c->a, 0, &out, &e) != 0) {
        buf_printf(&b, "ERROR %s: %s", e.reason ? e.reason : "-", e.msg);
        return buf_take(&b);
    }
    assert_int_equal(out.length, c->a.length);
    assert_int_equal(rows_variant_to_json(&out, &json, &e), 0);
    const int32_t *off = json.buffers[1];
    const uint8_t *valid = json.buffers[0];
    for (int64_t i = 0; i < json.length; i++) {
        if (valid && !arrow_bit(valid, i))
            buf_puts(&b, "SQL NULL");
        else
            buf_append(&b, (const char *)json.buffers[2] + off[i], (size_t)(off[i + 1] - off[i]));
        buf_putc(&b, '\n');
    }
    json.release(&json);
    out.release(&out);
    return buf_take(&b);
}

static void expect(struct col *c, const char *want)
{
    char *got = encode(c);
    if (strcmp(got, want) != 0)
        fail_msg("got:\n%s\nwant:\n%s", got, want);
    free(got);
    col_free(c);
}

/* The refusal: its reason (NULL: none) and a piece of its message. */
static void expect_refused(struct col *c, const char *reason, const char *needle)
{
    char *got = encode(c);
    char head[80];
    snprintf(head, sizeof head, "ERROR %s: ", reason ? reason : "-");
    if (strncmp(got, head, strlen(head)) != 0 || !strstr(got, needle))
        fail_msg("got %s, want %s...%s", got, head, needle);
    free(got);
    col_free(c);
}

/* ---- scalars, through a sliced struct over sliced children ---- */

static void scalars(void **state)
{
    (void)state;
    /* Four physical rows; the struct shows rows 1..3 (offset 1), each
     * child has an offset of its own (1), so child slot = 1 + 1 + i. */
    struct col k[20];
    int n = 0;
    const uint8_t b8[8] = {0x04}; /* bit-packed: slot 2 true */
    fixed(&k[n++], "b", "bool", 4, 1, b8, 1, NULL);
    const int8_t i8[] = {0, 0, -5, 100, 7};
    fixed(&k[n++], "c", "i8", 4, 1, i8, 1, "11110");
    const uint64_t u64[] = {0, 0, UINT64_MAX, 1, 300};
    fixed(&k[n++], "L", "u64", 4, 1, u64, 8, NULL);
    const uint32_t u32[] = {0, 0, 4000000000u, 1, 2};
    fixed(&k[n++], "I", "u32", 4, 1, u32, 4, NULL);
    const uint16_t half[] = {0, 0, 0x3e00 /* 1.5 */, 0xc000 /* -2 */, 0};
    fixed(&k[n++], "e", "half", 4, 1, half, 2, NULL);
    const double g[] = {0, 0, 0.1, -1e300, 2};
    fixed(&k[n++], "g", "double", 4, 1, g, 8, NULL);
    const float f[] = {0, 0, 0.5f, 3, 4};
    fixed(&k[n++], "f", "float", 4, 1, f, 4, NULL);
    __extension__ const __int128 d128[] = {0, 0, 12345, -1, (__int128)1 << 70};
    fixed(&k[n++], "d:38,2", "dec", 4, 1, d128, 16, NULL);
    const int32_t d32[] = {0, 0, 15, -7, 0};
    fixed(&k[n++], "d:5,1,32", "dec32", 4, 1, d32, 4, NULL);
    const int32_t days[] = {0, 0, 19737, -1, 0};
    fixed(&k[n++], "tdD", "date", 4, 1, days, 4, NULL);
    const int64_t ms_days[] = {0, 0, 86400000, 0, 0};
    fixed(&k[n++], "tdm", "date64", 4, 1, ms_days, 8, NULL);
    const int32_t t32[] = {0, 0, 1000, 86399999, 0};
    fixed(&k[n++], "ttm", "time_ms", 4, 1, t32, 4, NULL);
    const int64_t tn[] = {0, 0, 1000, 5000000, 0};
    fixed(&k[n++], "ttn", "time_ns", 4, 1, tn, 8, NULL);
    const int64_t ts[] = {0, 0, 1, -1, 0};
    fixed(&k[n++], "tss:UTC", "ts_utc", 4, 1, ts, 8, NULL);
    fixed(&k[n++], "tsm:", "ts_ntz", 4, 1, ts, 8, NULL);
    const int64_t tsn[] = {0, 0, 1500, 0, 0};
    fixed(&k[n++], "tsn:+01:00", "ts_ns", 4, 1, tsn, 8, NULL);
    fixed(&k[n++], "tsn:", "ts_ntz_ns", 4, 1, tsn, 8, NULL);
    text(&k[n++], "u", "s", 4, 1, (const char *[]){"", "", "h\xc3\xa9", NULL, "x"});
    text(&k[n++], "z", "bin", 4, 1, (const char *[]){"", "", "\x01\x02", "", "x"});
    start(&k[n], "n", "nothing", 0, 0, 4, 1, NULL);
    n++;
    /* struct field slots: 1 + i; children read at their offset 1 more */
    struct col top;
    nested(&top, "+s", "v", 3, 1, "1101", k, n, NULL, 0);
    expect(&top,
           "{\"bin\":\"AQI=\",\"bool\":true,\"date\":\"2024-01-15\",\"date64\":\"1970-01-02\","
           "\"dec\":123.45,\"dec32\":1.5,\"double\":0.1,\"float\":0.5,\"half\":1.5,\"i8\":-5,"
           "\"nothing\":null,\"s\":\"h\xc3\xa9\",\"time_ms\":\"00:00:01\","
           "\"time_ns\":\"00:00:00.000001\",\"ts_ns\":\"1970-01-01T00:00:00.000001500Z\","
           "\"ts_ntz\":\"1970-01-01T00:00:00.001\","
           "\"ts_ntz_ns\":\"1970-01-01T00:00:00.000001500\",\"ts_utc\":\"1970-01-01T00:00:01Z\","
           "\"u32\":4000000000,\"u64\":18446744073709551615}\n"
           "SQL NULL\n"
           "{\"bin\":\"eA==\",\"bool\":false,\"date\":\"1970-01-01\",\"date64\":\"1970-01-01\","
           "\"dec\":11805916207174113034.24,\"dec32\":0.0,\"double\":2.0,\"float\":4.0,"
           "\"half\":0.0,\"i8\":null,\"nothing\":null,\"s\":\"x\",\"time_ms\":\"00:00\","
           "\"time_ns\":\"00:00\",\"ts_ns\":\"1970-01-01T00:00:00Z\","
           "\"ts_ntz\":\"1970-01-01T00:00\",\"ts_ntz_ns\":\"1970-01-01T00:00\","
           "\"ts_utc\":\"1970-01-01T00:00:00Z\",\"u32\":2,\"u64\":300}\n");
}

/* ---- containers ---- */

static void containers(void **state)
{
    (void)state;
    /* list<int32> of 3 rows over 4 (offset 1); elements from the child's
     * offset 2 on, one of them null; then a struct holding it with a map
     * and a fixed-size list. */
    struct col el, list;
    const int32_t ev[] = {9, 9, 1, 2, 3, 4, 5};
    fixed(&el, "i", "item", 5, 2, ev, 4, "1111101");
    const int32_t lo[] = {0, 0, 2, 2, 5};
    nested(&list, "+l", "v", 3, 1, "1101", &el, 1, lo, sizeof lo);
    expect(&list, "[1,2]\nSQL NULL\n[3,null,5]\n");

    struct col kv[2], entries, map;
    text(&kv[0], "u", "key", 3, 0, (const char *[]){"b", "a", "c"});
    const int64_t mv[] = {10, 20, 30};
    fixed(&kv[1], "l", "value", 3, 0, mv, 8, "101");
    nested(&entries, "+s", "entries", 3, 0, NULL, kv, 2, NULL, 0);
    const int32_t mo[] = {0, 2, 3};
    nested(&map, "+m", "v", 2, 0, NULL, &entries, 1, mo, sizeof mo);
    expect(&map, "{\"a\":null,\"b\":10}\n{\"c\":30}\n");

    struct col fel, fsl;
    const int16_t fv[] = {1, 2, 3, 4, 5, 6};
    fixed(&fel, "s", "item", 6, 0, fv, 2, NULL);
    nested(&fsl, "+w:2", "v", 2, 1, NULL, &fel, 1, NULL, 0);
    expect(&fsl, "[3,4]\n[5,6]\n");

    /* large list of structs, a dictionary-encoded string inside */
    struct col dict, idx, sf[2], st, big;
    text(&dict, "u", NULL, 2, 0, (const char *[]){"red", "blue"});
    const int8_t ix[] = {1, 0, 1};
    fixed(&idx, "c", "color", 3, 0, ix, 1, "110");
    set_dict(&idx, &dict);
    sf[0] = idx;
    const uint8_t on[8] = {0x01}; /* bit-packed (fixed() copies a byte a slot) */
    fixed(&sf[1], "b", "on", 3, 0, on, 1, NULL);
    nested(&st, "+s", "item", 3, 0, "101", sf, 2, NULL, 0);
    const int64_t bo[] = {0, 3};
    nested(&big, "+L", "v", 1, 0, NULL, &st, 1, bo, sizeof bo);
    expect(&big, "[{\"color\":\"blue\",\"on\":true},null,{\"color\":null,\"on\":false}]\n");

    /* a uuid, marked by its extension name */
    struct col u;
    const uint8_t ub[16] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3,
                            0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00};
    fixed(&u, "w:16", "v", 1, 0, ub, 16, NULL);
    const char *key = "ARROW:extension:name", *val = "arrow.uuid";
    assert_int_equal(arrow_schema_set_metadata(&u.s, &key, &val, 1), 0);
    expect(&u, "\"123e4567-e89b-12d3-a456-426614174000\"\n");
    fixed(&u, "w:3", "v", 1, 0, "abc", 3, NULL);
    expect(&u, "\"YWJj\"\n");
    free_dicts();
}

/* ---- refusals ---- */

static void refusals(void **state)
{
    (void)state;
    struct col c, k[2], e;
    const int64_t tn[] = {0, 1000, 1500};
    fixed(&c, "ttn", "v", 3, 0, tn, 8, NULL);
    expect_refused(&c, "number_out_of_range", "row 2");
    const int64_t big[] = {INT64_MAX / 10};
    fixed(&c, "tss:", "v", 1, 0, big, 8, NULL);
    expect_refused(&c, "number_out_of_range", "row 0");
    const int64_t half_day[] = {43200000};
    fixed(&c, "tdm", "v", 1, 0, half_day, 8, NULL);
    expect_refused(&c, "number_out_of_range", "date64");
    uint64_t d256[4] = {1, 0, 1, 0}; /* past 128 bits */
    fixed(&c, "d:76,0,256", "v", 1, 0, d256, 32, NULL);
    expect_refused(&c, "number_out_of_range", "decimal256");
    d256[1] = d256[2] = d256[3] = UINT64_MAX; /* -2^64 + 1: fits */
    fixed(&c, "d:76,0,256", "v", 1, 0, d256, 32, NULL);
    expect(&c, "-18446744073709551615\n");
    fixed(&c, "d:10,-1", "v", 1, 0, d256, 16, NULL);
    expect_refused(&c, "number_out_of_range", "scale");

    start(&c, "+us:0,1", "v", 2, 0, 0, 0, NULL);
    expect_refused(&c, NULL, "'+us:0,1'");
    start(&c, "+r", "v", 1, 0, 0, 0, NULL);
    expect_refused(&c, NULL, "'+r'");

    const int32_t ik[] = {1};
    fixed(&k[0], "i", "key", 1, 0, ik, 4, NULL);
    fixed(&k[1], "i", "value", 1, 0, ik, 4, NULL);
    nested(&e, "+s", "entries", 1, 0, NULL, k, 2, NULL, 0);
    const int32_t mo[] = {0, 1};
    nested(&c, "+m", "v", 1, 0, NULL, &e, 1, mo, sizeof mo);
    expect_refused(&c, NULL, "string keys");

    text(&k[0], "u", "key", 2, 0, (const char *[]){"a", "a"});
    fixed(&k[1], "i", "value", 2, 0, (const int32_t[]){1, 2}, 4, NULL);
    nested(&e, "+s", "entries", 2, 0, NULL, k, 2, NULL, 0);
    const int32_t mo2[] = {0, 0, 2};
    nested(&c, "+m", "v", 2, 0, NULL, &e, 1, mo2, sizeof mo2);
    expect_refused(&c, "duplicate_key", "row 1");

    fixed(&k[0], "i", "a", 1, 0, ik, 4, NULL);
    fixed(&k[1], "i", "a", 1, 0, ik, 4, NULL);
    nested(&c, "+s", "v", 1, 0, NULL, k, 2, NULL, 0);
    expect_refused(&c, "duplicate_key", "'a'");

    text(&c, "z", "v", 1, 0, (const char *[]){"x"});
    /* (binary is fine; a string that is not UTF-8 is not) */
    expect(&c, "\"eA==\"\n");
    text(&c, "u", "v", 1, 0, (const char *[]){"\xff"});
    expect_refused(&c, "variant_encoding", "row 0");

    /* a dictionary of text at the top is ambiguous; inside it is not */
    struct col dict;
    text(&dict, "u", NULL, 1, 0, (const char *[]){"{}"});
    fixed(&c, "c", "v", 1, 0, (const int8_t[]){0}, 1, NULL);
    set_dict(&c, &dict);
    struct error err;
    assert_int_equal(rows_variant_arrow_check(&c.s, &err), -1);
    assert_non_null(strstr(err.msg, "dictionary-encoded"));
    col_free(&c);
    free_dicts();

    /* nesting past the limit */
    struct col deep;
    fixed(&deep, "i", "item", 0, 0, ik, 4, NULL);
    for (int d = 0; d < 130; d++) {
        struct col up;
        nested(&up, "+l", "item", 0, 0, NULL, &deep, 1, (const int32_t[]){0}, 4);
        deep = up;
    }
    expect_refused(&deep, "nesting_too_deep", "128");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalars),
        cmocka_unit_test(containers),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
