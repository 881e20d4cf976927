/* Reading a Variant in place (variant/access.h): fields found by name in
 * objects of any dictionary order, every scalar kind, scalars written and
 * read back, and truncated or arbitrary bytes read as malformed, never
 * past their end (run under ASan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pq_testlib.h"
#include "util/buf.h"
#include "variant/access.h"
#include "variant/variant.h"

struct encoded {
    struct buf m, v;
    struct variant_dict d;
};

static void encode(struct encoded *e, const char *json)
{
    struct error err;
    e->m = (struct buf)BUF_INIT;
    e->v = (struct buf)BUF_INIT;
    if (variant_from_json(json, strlen(json), &e->m, &e->v, &err) != 0 ||
        variant_dict_open((const uint8_t *)e->m.data, e->m.len, &e->d, &err) != 0)
        fail_msg("'%s': %s", json, err.msg);
}

static void encoded_free(struct encoded *e)
{
    buf_free(&e->m);
    buf_free(&e->v);
}

/* The scalar at a path of keys ("a", "b"), or kind -1 when missing. */
static int scalar_at(struct encoded *e, const char *const *keys, size_t n, struct variant_scalar *s)
{
    const uint8_t *p = (const uint8_t *)e->v.data;
    size_t avail = e->v.len;
    for (size_t k = 0; k < n; k++) {
        int rc = variant_object_field(&e->d, p, avail, keys[k], strlen(keys[k]), &p, &avail);
        if (rc != 1)
            return rc;
    }
    return variant_scalar_read(p, avail, s) ? 1 : -1;
}

static void fields_and_scalars(void **state)
{
    (void)state;
    struct encoded e;
    encode(&e, "{\"s\":\"short\",\"l\":\"0123456789012345678901234567890123456789012345678901"
               "234567890123456789\",\"i\":-300,\"big\":-12345678901234567890,\"d\":1.25,"
               "\"t\":true,\"f\":false,\"z\":null,\"o\":{\"in\":7},\"a\":[1]}");
    struct variant_scalar s;
    assert_int_equal(scalar_at(&e, (const char *[]){"s"}, 1, &s), 1);
    assert_int_equal(s.kind, VS_STRING);
    assert_int_equal(s.len, 5);
    assert_memory_equal(s.s, "short", 5);
    assert_int_equal(scalar_at(&e, (const char *[]){"l"}, 1, &s), 1);
    assert_int_equal(s.kind, VS_STRING); /* a long string */
    assert_int_equal(s.len, 70);
    assert_int_equal(scalar_at(&e, (const char *[]){"i"}, 1, &s), 1);
    assert_int_equal(s.kind, VS_INT);
    assert_int_equal(s.i, -300);
    assert_int_equal(scalar_at(&e, (const char *[]){"big"}, 1, &s), 1);
    assert_int_equal(s.kind, VS_DECIMAL);
    assert_true(s.unscaled == -(variant_i128)12345678901234567890u && s.scale == 0);
    assert_int_equal(scalar_at(&e, (const char *[]){"d"}, 1, &s), 1);
    assert_true(s.kind == VS_DOUBLE && s.d == 1.25);
    assert_int_equal(scalar_at(&e, (const char *[]){"t"}, 1, &s), 1);
    assert_true(s.kind == VS_BOOL && s.b);
    assert_int_equal(scalar_at(&e, (const char *[]){"f"}, 1, &s), 1);
    assert_true(s.kind == VS_BOOL && !s.b);
    assert_int_equal(scalar_at(&e, (const char *[]){"z"}, 1, &s), 1);
    assert_int_equal(s.kind, VS_NULL);
    assert_int_equal(scalar_at(&e, (const char *[]){"o", "in"}, 2, &s), 1);
    assert_true(s.kind == VS_INT && s.i == 7);
    assert_int_equal(scalar_at(&e, (const char *[]){"a"}, 1, &s), 1);
    assert_int_equal(s.kind, VS_OTHER);
    /* Missing: an absent key, a key of another case, a path through a
     * scalar or an array. */
    assert_int_equal(scalar_at(&e, (const char *[]){"S"}, 1, &s), 0);
    assert_int_equal(scalar_at(&e, (const char *[]){"nope"}, 1, &s), 0);
    assert_int_equal(scalar_at(&e, (const char *[]){"i", "x"}, 2, &s), 0);
    assert_int_equal(scalar_at(&e, (const char *[]){"a", "0"}, 2, &s), 0);
    encoded_free(&e);
}

/* An unsorted dictionary flagged sorted, fields listed as inserted
 * (DuckDB 1.5's): found by name all the same. */
static void unsorted_dictionary(void **state)
{
    (void)state;
    /* metadata: version 1, sorted flag, 1-byte offsets, keys "b", "a" */
    static const uint8_t m[] = {0x11, 2, 0, 1, 2, 'b', 'a'};
    /* object: 1-byte ids and offsets, 2 fields: id 0 ("b") = 1, id 1 ("a") = 2 */
    static const uint8_t v[] = {0x02, 2, 0, 1, 0, 2, 4, 0x0c, 1, 0x0c, 2};
    struct variant_dict d;
    struct error err;
    assert_int_equal(variant_dict_open(m, sizeof m, &d, &err), 0);
    const uint8_t *p;
    size_t n;
    struct variant_scalar s;
    assert_int_equal(variant_object_field(&d, v, sizeof v, "a", 1, &p, &n), 1);
    assert_true(variant_scalar_read(p, n, &s) && s.kind == VS_INT && s.i == 2);
    assert_int_equal(variant_object_field(&d, v, sizeof v, "b", 1, &p, &n), 1);
    assert_true(variant_scalar_read(p, n, &s) && s.kind == VS_INT && s.i == 1);
    /* A field id past the dictionary is malformed. */
    uint8_t bad[sizeof v];
    memcpy(bad, v, sizeof v);
    bad[3] = 9;
    assert_int_equal(variant_object_field(&d, bad, sizeof bad, "x", 1, &p, &n), -1);
}

static void scalars_written_read_back(void **state)
{
    (void)state;
    struct variant_scalar in[] = {
        {.kind = VS_INT, .i = INT64_MIN},
        {.kind = VS_DOUBLE, .d = -0.5},
        {.kind = VS_DECIMAL, .unscaled = -((variant_i128)1 << 100), .scale = 7},
        {.kind = VS_STRING, .s = "caf\xc3\xa9", .len = 5},
        {.kind = VS_STRING, .s = NULL, .len = 0},
        {.kind = VS_BOOL, .b = true},
        {.kind = VS_NULL},
    };
    for (size_t k = 0; k < sizeof in / sizeof in[0]; k++) {
        uint8_t out[64];
        size_t n = variant_scalar_size(&in[k]);
        assert_true(n <= sizeof out);
        variant_scalar_write(&in[k], out);
        struct variant_scalar s;
        assert_true(variant_scalar_read(out, n, &s));
        assert_int_equal(s.kind, in[k].kind);
        assert_true(s.i == in[k].i && s.b == in[k].b && s.unscaled == in[k].unscaled &&
                    s.scale == in[k].scale && s.len == in[k].len);
        assert_true(s.kind != VS_DOUBLE || s.d == in[k].d);
        assert_true(s.len == 0 || memcmp(s.s, in[k].s, s.len) == 0);
        /* Any shorter prefix reads as malformed (one byte holds a whole
         * null or boolean). */
        for (size_t cut = 0; cut < n; cut++)
            assert_false(variant_scalar_read(out, cut, &s) && cut < n);
    }
}

/* Truncations of a real object, then arbitrary bytes: every call stays
 * within what it was given. */
static void hostile_bytes(void **state)
{
    (void)state;
    struct encoded e;
    encode(&e, "{\"a\":{\"b\":[1,\"x\",{\"c\":2}]},\"d\":\"y\",\"e\":1.5}");
    for (size_t cut = 0; cut < e.v.len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        assert_non_null(copy);
        memcpy(copy, e.v.data, cut);
        const uint8_t *p;
        size_t n;
        struct variant_scalar s;
        if (variant_object_field(&e.d, copy, cut, "d", 1, &p, &n) == 1)
            (void)variant_scalar_read(p, n, &s);
        free(copy);
    }
    encoded_free(&e);
    struct rng g = {0xacce55};
    for (int round = 0; round < 20000; round++) {
        size_t ml = (size_t)rng_below(&g, 24), vl = (size_t)rng_below(&g, 40);
        uint8_t *m = malloc(ml ? ml : 1), *v = malloc(vl ? vl : 1);
        assert_non_null(m);
        assert_non_null(v);
        for (size_t k = 0; k < ml; k++)
            m[k] = (uint8_t)rng_next(&g);
        for (size_t k = 0; k < vl; k++)
            v[k] = (uint8_t)rng_next(&g);
        if (ml)
            m[0] = (uint8_t)((m[0] & 0xf0) | 1); /* version 1 more often than not */
        if (vl && round % 2)
            v[0] = (uint8_t)((v[0] & ~3) | 2); /* an object */
        struct variant_dict d;
        struct error err;
        if (variant_dict_open(m, ml, &d, &err) == 0) {
            const uint8_t *p = v;
            size_t n = vl;
            struct variant_scalar s;
            for (int depth = 0; depth < 3; depth++)
                if (variant_object_field(&d, p, n, "\x01", 1, &p, &n) != 1)
                    break;
            (void)variant_scalar_read(p, n, &s);
        }
        struct variant_container c;
        if (variant_container_open(v, vl, &c))
            for (uint64_t i = 0; i < c.n && i < 64; i++) {
                const uint8_t *p;
                size_t n;
                struct variant_scalar s;
                if (variant_container_element(&c, i, &p, &n))
                    (void)variant_scalar_read(p, n, &s);
            }
        free(m);
        free(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fields_and_scalars),
        cmocka_unit_test(unsorted_dictionary),
        cmocka_unit_test(scalars_written_read_back),
        cmocka_unit_test(hostile_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
