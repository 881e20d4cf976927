/* textio_wkb_to_wkt (src/textio/textio_wkt.c): WKB built here, in both byte orders, against the
 * text DuckDB 1.5.6 prints for the same bytes (ST_GeomFromWKB(...)::VARCHAR, and a Parquet GEOMETRY
 * column read back, agree); EWKB flags; and the refusals: every truncation of valid input,
 * counts past the end, deep nesting, bad byte orders and types, trailing bytes, mixed dimensions
 * and wrong children, plus random corruption. Inputs sit in exactly-sized heap blocks so that
 * ASan sees any read past the end. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "textio/textio_wkt.h"

/* ---- building WKB ---- */

struct wkb {
    uint8_t data[16384];
    size_t len;
};

enum { LE = 0, BE = 1 };

/* ISO type codes and EWKB flags. */
enum { PT = 1, LS, POLY, MPT, MLS, MPOLY, GC };
enum { Z = 1000, M = 2000, ZM = 3000 };
#define EWKB_Z 0x80000000u
#define EWKB_M 0x40000000u
#define EWKB_SRID 0x20000000u

static void put_uint(struct wkb *b, int order, uint64_t v, size_t n)
{
    assert_true(b->len + n <= sizeof b->data);
    for (size_t i = 0; i < n; i++) {
        size_t shift = order == BE ? n - 1 - i : i;
        b->data[b->len++] = (uint8_t)(v >> (8 * shift));
    }
}

static void u32(struct wkb *b, int order, uint32_t v)
{
    put_uint(b, order, v, 4);
}

static void f64(struct wkb *b, int order, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_uint(b, order, bits, 8);
}

/* A geometry's byte-order byte and type word. */
static void head(struct wkb *b, int order, uint32_t type)
{
    put_uint(b, order, order == BE ? 0 : 1, 1);
    u32(b, order, type);
}

/* A header then a count (points, rings or geometries). */
static void head_n(struct wkb *b, int order, uint32_t type, uint32_t count)
{
    head(b, order, type);
    u32(b, order, count);
}

static void coords(struct wkb *b, int order, size_t n, const double *c)
{
    for (size_t i = 0; i < n; i++)
        f64(b, order, c[i]);
}

#define COORDS(b, order, ...)                                                                      \
    coords(b, order, sizeof((double[]){__VA_ARGS__}) / sizeof(double), (double[]){__VA_ARGS__})

static void point(struct wkb *b, int order, double x, double y)
{
    head(b, order, PT);
    COORDS(b, order, x, y);
}

/* ---- checking ---- */

/* The bytes in a block of exactly their size. */
static uint8_t *exact_copy(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    assert_non_null(c);
    if (n)
        memcpy(c, p, n);
    return c;
}

/* Renders p[0..n) after some existing text; NULL on success, else the message. */
static const char *render(const uint8_t *p, size_t n, struct buf *out)
{
    static struct error err;
    buf_reset(out);
    assert_int_equal(buf_puts(out, "kept|"), 0);
    uint8_t *copy = exact_copy(p, n);
    err = (struct error){0};
    int rc = textio_wkb_to_wkt(copy, n, out, &err);
    free(copy);
    if (rc == 0)
        return NULL;
    assert_int_equal(rc, -1);
    assert_true(err.msg[0] != '\0');
    assert_int_equal(out->len, 5); /* what was there before the call */
    assert_string_equal(out->data, "kept|");
    return err.msg;
}

static void expect_wkt(const struct wkb *b, const char *want)
{
    struct buf out = BUF_INIT;
    const char *err = render(b->data, b->len, &out);
    if (err)
        fail_msg("expected %s, refused: %s", want, err);
    assert_string_equal(out.data + 5, want);
    buf_free(&out);
}

static void expect_refused(const struct wkb *b, const char *want)
{
    struct buf out = BUF_INIT;
    const char *err = render(b->data, b->len, &out);
    if (!err)
        fail_msg("expected a refusal (%s), got %s", want, out.data + 5);
    if (!strstr(err, want))
        fail_msg("expected a message with \"%s\", got \"%s\"", want, err);
    buf_free(&out);
}

/* ---- what DuckDB prints ---- */

static void test_points(void **state)
{
    (void)state;
    static const struct {
        double x, y;
        const char *want;
    } cases[] = {
        {0.1, 1e20, "POINT (0.1 1e+20)"},
        {-0.0, 1.2345678901234568e+17, "POINT (-0 1.2345678901234568e+17)"},
        {1.0000000000000002, 1e-300, "POINT (1.0000000000000002 1e-300)"},
        {1e15, 1e16, "POINT (1000000000000000 1e+16)"},
        {0.0001, 1e-05, "POINT (0.0001 1e-05)"},
        {5e-324, 1e-300, "POINT (5e-324 1e-300)"},
        {1.7976931348623157e308, -123.456, "POINT (1.7976931348623157e+308 -123.456)"},
        {123456789, -2.5, "POINT (123456789 -2.5)"},
        {1e21, 12345.678, "POINT (1e+21 12345.678)"},
        {-1.5e-7, 0.5, "POINT (-1.5e-07 0.5)"},
        {NAN, 1, "POINT (nan 1)"},
        {-NAN, 1, "POINT (-nan 1)"},
        {INFINITY, -INFINITY, "POINT (inf -inf)"},
        {NAN, NAN, "POINT EMPTY"},
        {-NAN, -NAN, "POINT EMPTY"},
    };
    for (int order = LE; order <= BE; order++) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            struct wkb b = {.len = 0};
            point(&b, order, cases[i].x, cases[i].y);
            expect_wkt(&b, cases[i].want);
        }
    }
}

static void test_dimensions(void **state)
{
    (void)state;
    for (int order = LE; order <= BE; order++) {
        struct wkb b = {.len = 0};
        head(&b, order, PT + Z);
        COORDS(&b, order, 1, 2, 3);
        expect_wkt(&b, "POINT Z (1 2 3)");

        b.len = 0;
        head(&b, order, PT + M);
        COORDS(&b, order, 1, 2, 4);
        expect_wkt(&b, "POINT M (1 2 4)");

        b.len = 0;
        head(&b, order, PT + ZM);
        COORDS(&b, order, 1, 2, 3, 4);
        expect_wkt(&b, "POINT ZM (1 2 3 4)");

        /* Empty only when every coordinate, M included, is NaN. */
        b.len = 0;
        head(&b, order, PT + Z);
        COORDS(&b, order, NAN, NAN, NAN);
        expect_wkt(&b, "POINT Z EMPTY");

        b.len = 0;
        head(&b, order, PT + M);
        COORDS(&b, order, NAN, NAN, NAN);
        expect_wkt(&b, "POINT M EMPTY");

        b.len = 0;
        head(&b, order, PT + Z);
        COORDS(&b, order, NAN, NAN, 1);
        expect_wkt(&b, "POINT Z (nan nan 1)");

        b.len = 0;
        head(&b, order, PT + Z);
        COORDS(&b, order, 1, 2, -INFINITY);
        expect_wkt(&b, "POINT Z (1 2 -inf)");
    }
}

static void test_lines_and_polygons(void **state)
{
    (void)state;
    for (int order = LE; order <= BE; order++) {
        struct wkb b = {.len = 0};
        head_n(&b, order, LS, 0);
        expect_wkt(&b, "LINESTRING EMPTY");

        b.len = 0;
        head_n(&b, order, LS, 1);
        COORDS(&b, order, 1, 2);
        expect_wkt(&b, "LINESTRING (1 2)");

        /* NaN positions in a line stay positions. */
        b.len = 0;
        head_n(&b, order, LS, 2);
        COORDS(&b, order, NAN, NAN, 1, 2);
        expect_wkt(&b, "LINESTRING (nan nan, 1 2)");

        b.len = 0;
        head_n(&b, order, LS + Z, 0);
        expect_wkt(&b, "LINESTRING Z EMPTY");

        b.len = 0;
        head_n(&b, order, POLY, 2);
        u32(&b, order, 4);
        COORDS(&b, order, 0, 0, 1, 0, 1, 1, 0, 0);
        u32(&b, order, 4);
        COORDS(&b, order, 0.1, 0.1, 0.2, 0.1, 0.1, 0.2, 0.1, 0.1);
        expect_wkt(&b, "POLYGON ((0 0, 1 0, 1 1, 0 0), (0.1 0.1, 0.2 0.1, 0.1 0.2, 0.1 0.1))");

        b.len = 0;
        head_n(&b, order, POLY, 2);
        u32(&b, order, 4);
        COORDS(&b, order, 0, 0, 1, 0, 1, 1, 0, 0);
        u32(&b, order, 0);
        expect_wkt(&b, "POLYGON ((0 0, 1 0, 1 1, 0 0), EMPTY)");

        b.len = 0;
        head_n(&b, order, POLY, 1);
        u32(&b, order, 0);
        expect_wkt(&b, "POLYGON (EMPTY)");

        b.len = 0;
        head_n(&b, order, POLY, 0);
        expect_wkt(&b, "POLYGON EMPTY");

        b.len = 0;
        head_n(&b, order, POLY + Z, 0);
        expect_wkt(&b, "POLYGON Z EMPTY");

        /* Rings are printed, not validated (DuckDB does the same). */
        b.len = 0;
        head_n(&b, order, POLY, 1);
        u32(&b, order, 2);
        COORDS(&b, order, 0, 0, 1, 0);
        expect_wkt(&b, "POLYGON ((0 0, 1 0))");
    }
}

static void test_multi(void **state)
{
    (void)state;
    for (int order = LE; order <= BE; order++) {
        int other = order == LE ? BE : LE;
        struct wkb b = {.len = 0};
        head_n(&b, order, MPT, 2);
        point(&b, order, 1, 2);
        point(&b, other, 3, 4); /* each child has its own byte order */
        expect_wkt(&b, "MULTIPOINT (1 2, 3 4)");

        b.len = 0;
        head_n(&b, order, MPT, 2);
        point(&b, order, NAN, NAN);
        point(&b, order, 3, 4);
        expect_wkt(&b, "MULTIPOINT (EMPTY, 3 4)");

        b.len = 0;
        head_n(&b, order, MPT, 1);
        point(&b, order, NAN, NAN);
        expect_wkt(&b, "MULTIPOINT (EMPTY)");

        b.len = 0;
        head_n(&b, order, MLS, 2);
        head_n(&b, order, LS, 2);
        COORDS(&b, order, 1, 2, 3, 4);
        head_n(&b, other, LS, 2);
        COORDS(&b, other, 5, 6, 7, 8);
        expect_wkt(&b, "MULTILINESTRING ((1 2, 3 4), (5 6, 7 8))");

        b.len = 0;
        head_n(&b, order, MPOLY, 2);
        head_n(&b, order, POLY, 1);
        u32(&b, order, 4);
        COORDS(&b, order, 0, 0, 1, 0, 1, 1, 0, 0);
        head_n(&b, order, POLY, 0);
        expect_wkt(&b, "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), EMPTY)");

        static const struct {
            uint32_t type;
            const char *want;
        } empties[] = {
            {MPT, "MULTIPOINT EMPTY"},        {MLS, "MULTILINESTRING EMPTY"},
            {MPOLY, "MULTIPOLYGON EMPTY"},    {MPOLY + ZM, "MULTIPOLYGON ZM EMPTY"},
            {GC, "GEOMETRYCOLLECTION EMPTY"}, {GC + Z, "GEOMETRYCOLLECTION Z EMPTY"},
        };
        for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
            b.len = 0;
            head_n(&b, order, empties[i].type, 0);
            expect_wkt(&b, empties[i].want);
        }
    }
}

static void test_multi_dimensions(void **state)
{
    (void)state;
    for (int order = LE; order <= BE; order++) {
        struct wkb b = {.len = 0};
        head_n(&b, order, MPT + Z, 2);
        head(&b, order, PT + Z);
        COORDS(&b, order, NAN, NAN, NAN);
        head(&b, order, PT + Z);
        COORDS(&b, order, 1, 2, 3);
        expect_wkt(&b, "MULTIPOINT Z (EMPTY, 1 2 3)");

        b.len = 0;
        head_n(&b, order, MLS + Z, 2);
        head_n(&b, order, LS + Z, 2);
        COORDS(&b, order, 1, 2, 3, 4, 5, 6);
        head_n(&b, order, LS + Z, 0);
        expect_wkt(&b, "MULTILINESTRING Z ((1 2 3, 4 5 6), EMPTY)");

        b.len = 0;
        head_n(&b, order, MPOLY + M, 2);
        head_n(&b, order, POLY + M, 1);
        u32(&b, order, 4);
        COORDS(&b, order, 0, 0, 1, 1, 0, 2, 1, 1, 3, 0, 0, 1);
        head_n(&b, order, POLY + M, 2);
        u32(&b, order, 4);
        COORDS(&b, order, 5, 5, 5, 6, 5, 5, 6, 6, 5, 5, 5, 5);
        u32(&b, order, 4);
        COORDS(&b, order, 5.1, 5.1, 0, 5.2, 5.1, 0, 5.1, 5.2, 0, 5.1, 5.1, 0);
        expect_wkt(&b, "MULTIPOLYGON M (((0 0 1, 1 0 2, 1 1 3, 0 0 1)), ((5 5 5, 6 5 5, 6 6 5, 5 5 "
                       "5), (5.1 5.1 0, 5.2 5.1 0, 5.1 5.2 0, 5.1 5.1 0)))");
    }
}

static void test_collections(void **state)
{
    (void)state;
    for (int order = LE; order <= BE; order++) {
        int other = order == LE ? BE : LE;
        struct wkb b = {.len = 0};
        head_n(&b, order, GC, 2);
        point(&b, other, 1, 2);
        head_n(&b, other, GC, 1);
        head_n(&b, order, LS, 2);
        COORDS(&b, order, 1, 2, 3, 4);
        expect_wkt(&b,
                   "GEOMETRYCOLLECTION (POINT (1 2), GEOMETRYCOLLECTION (LINESTRING (1 2, 3 4)))");

        b.len = 0;
        head_n(&b, order, GC, 5);
        head_n(&b, order, MPT, 0);
        head_n(&b, order, GC, 0);
        head_n(&b, order, POLY, 0);
        head_n(&b, order, LS, 0);
        point(&b, order, NAN, NAN);
        expect_wkt(&b, "GEOMETRYCOLLECTION (MULTIPOINT EMPTY, GEOMETRYCOLLECTION EMPTY, POLYGON "
                       "EMPTY, LINESTRING EMPTY, POINT EMPTY)");

        b.len = 0;
        head_n(&b, order, GC + Z, 1);
        head_n(&b, other, GC + Z, 1);
        head_n(&b, order, LS + Z, 2);
        COORDS(&b, order, 1, 2, 3, 4, 5, 6);
        expect_wkt(&b, "GEOMETRYCOLLECTION Z (GEOMETRYCOLLECTION Z (LINESTRING Z (1 2 3, 4 5 6)))");

        b.len = 0;
        head_n(&b, order, GC + Z, 1);
        head(&b, order, PT + Z);
        COORDS(&b, order, NAN, NAN, NAN);
        expect_wkt(&b, "GEOMETRYCOLLECTION Z (POINT Z EMPTY)");

        b.len = 0;
        head_n(&b, order, GC + ZM, 3);
        head(&b, order, PT + ZM);
        COORDS(&b, order, 1, 2, 3, 4);
        head_n(&b, other, MPT + ZM, 1);
        head(&b, order, PT + ZM);
        COORDS(&b, order, 1, 2, 3, 4);
        head_n(&b, order, POLY + ZM, 1);
        u32(&b, order, 4);
        COORDS(&b, order, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0);
        expect_wkt(&b,
                   "GEOMETRYCOLLECTION ZM (POINT ZM (1 2 3 4), MULTIPOINT ZM (1 2 3 4), POLYGON "
                   "ZM ((0 0 0 0, 1 0 0 0, 1 1 0 0, 0 0 0 0)))");
    }
}

/* EWKB: the Z and M flags, alone or with an ISO code, and an SRID that is skipped. Bits 16..28 of
 * the type word are ignored, as DuckDB ignores them. */
static void test_ewkb(void **state)
{
    (void)state;
    for (int order = LE; order <= BE; order++) {
        struct wkb b = {.len = 0};
        head(&b, order, PT | EWKB_Z);
        COORDS(&b, order, 1, 2, 3);
        expect_wkt(&b, "POINT Z (1 2 3)");

        b.len = 0;
        head(&b, order, PT | EWKB_M);
        COORDS(&b, order, 1, 2, 3);
        expect_wkt(&b, "POINT M (1 2 3)");

        b.len = 0;
        head(&b, order, PT | EWKB_Z | EWKB_M);
        COORDS(&b, order, 1, 2, 3, 4);
        expect_wkt(&b, "POINT ZM (1 2 3 4)");

        b.len = 0;
        head(&b, order, PT | EWKB_SRID);
        u32(&b, order, 4326);
        COORDS(&b, order, 1, 2);
        expect_wkt(&b, "POINT (1 2)");

        b.len = 0;
        head(&b, order, PT | EWKB_Z | EWKB_SRID);
        u32(&b, order, 4326);
        COORDS(&b, order, 1, 2, 3);
        expect_wkt(&b, "POINT Z (1 2 3)");

        b.len = 0;
        head(&b, order, (PT + Z) | EWKB_Z);
        COORDS(&b, order, 1, 2, 3);
        expect_wkt(&b, "POINT Z (1 2 3)");

        b.len = 0;
        head(&b, order, (PT + M) | EWKB_Z);
        COORDS(&b, order, 1, 2, 3, 4);
        expect_wkt(&b, "POINT ZM (1 2 3 4)");

        b.len = 0;
        head_n(&b, order, MPT | EWKB_SRID, 4326);
        u32(&b, order, 1);
        head(&b, order, PT | EWKB_SRID);
        u32(&b, order, 4326);
        COORDS(&b, order, 1, 2);
        expect_wkt(&b, "MULTIPOINT (1 2)");

        b.len = 0;
        head_n(&b, order, MPT | EWKB_Z, 1);
        head(&b, order, PT + Z);
        COORDS(&b, order, 1, 2, 3);
        expect_wkt(&b, "MULTIPOINT Z (1 2 3)");

        b.len = 0;
        head(&b, order, PT | 0x10000000u);
        COORDS(&b, order, 1, 2);
        expect_wkt(&b, "POINT (1 2)");

        b.len = 0;
        head(&b, order, 0x10000u + PT + Z);
        COORDS(&b, order, 1, 2, 3);
        expect_wkt(&b, "POINT Z (1 2 3)");
    }
}

/* ---- refusals ---- */

/* A collection holding one of everything, in mixed byte orders, with EWKB and an SRID. */
static void build_everything(struct wkb *b, int order)
{
    int other = order == LE ? BE : LE;
    head_n(b, order, GC, 7);
    point(b, order, 1, 2);
    head_n(b, other, LS, 2);
    COORDS(b, other, 1, 2, 3, 4);
    head_n(b, order, POLY, 2);
    u32(b, order, 4);
    COORDS(b, order, 0, 0, 1, 0, 1, 1, 0, 0);
    u32(b, order, 0);
    head_n(b, other, MPT, 2);
    point(b, order, NAN, NAN);
    point(b, other, 3, 4);
    head_n(b, order, MLS, 1);
    head_n(b, order, LS, 0);
    head_n(b, order, MPOLY, 1);
    head_n(b, other, POLY, 0);
    head(b, order, GC | EWKB_SRID);
    u32(b, order, 4326);
    u32(b, order, 1);
    head_n(b, other, GC, 0);
}

static void test_every_truncation(void **state)
{
    (void)state;
    for (int order = LE; order <= BE; order++) {
        struct wkb b = {.len = 0};
        build_everything(&b, order);
        expect_wkt(&b,
                   "GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (1 2, 3 4), POLYGON ((0 0, 1 0, "
                   "1 1, 0 0), EMPTY), MULTIPOINT (EMPTY, 3 4), MULTILINESTRING (EMPTY), "
                   "MULTIPOLYGON (EMPTY), GEOMETRYCOLLECTION (GEOMETRYCOLLECTION EMPTY))");
        struct buf out = BUF_INIT;
        for (size_t n = 0; n < b.len; n++)
            if (!render(b.data, n, &out))
                fail_msg("a %zu-byte prefix of %zu was accepted: %s", n, b.len, out.data);
        buf_free(&out);

        b.len = 0;
        head(&b, order, PT + ZM);
        COORDS(&b, order, 1, 2, 3, 4);
        for (size_t full = b.len, n = 1; n < full; n++) {
            b.len = n;
            expect_refused(&b, "truncated WKB at byte");
        }
    }
    struct wkb b = {.len = 0};
    expect_refused(&b, "empty WKB");
}

static void test_counts_past_the_end(void **state)
{
    (void)state;
    for (int order = LE; order <= BE; order++) {
        struct wkb b = {.len = 0};
        head_n(&b, order, LS, 0xFFFFFFFFu);
        expect_refused(&b, "WKB LINESTRING at byte 5 claims 4294967295 points but only 0 bytes");

        /* One point short. */
        b.len = 0;
        head_n(&b, order, LS + Z, 3);
        COORDS(&b, order, 1, 2, 3, 4, 5, 6);
        expect_refused(&b, "claims 3 points but only 48 bytes follow");

        b.len = 0;
        head_n(&b, order, POLY, 0x40000000u);
        u32(&b, order, 0);
        expect_refused(&b, "WKB POLYGON at byte 5 claims 1073741824 rings but only 4 bytes");

        b.len = 0;
        head_n(&b, order, POLY, 1);
        u32(&b, order, 0xFFFFFFFFu);
        expect_refused(&b, "claims 4294967295 points");

        b.len = 0;
        head_n(&b, order, GC, 0xFFFFFFFFu);
        point(&b, order, 1, 2);
        expect_refused(&b, "WKB GEOMETRYCOLLECTION at byte 5 claims 4294967295 geometries");

        b.len = 0;
        head_n(&b, order, MPT, 3);
        point(&b, order, 1, 2);
        expect_refused(&b, "claims 3 geometries but only 21 bytes follow");

        /* Within the bound, the missing child is a truncation. */
        b.len = 0;
        head_n(&b, order, MPT, 2);
        point(&b, order, 1, 2);
        expect_refused(&b, "truncated WKB at byte 30: the byte order needs 1 byte, 0 left");
    }
}

/* levels collections, the innermost empty. */
static void build_nested(struct wkb *b, unsigned levels)
{
    for (unsigned i = 1; i < levels; i++)
        head_n(b, i % 2 ? LE : BE, GC, 1);
    head_n(b, LE, GC, 0);
}

static void test_nesting(void **state)
{
    (void)state;
    /* The one expectation DuckDB cannot confirm: it refuses more than 16 levels. The layout is
     * the one it prints at 16. */
    struct wkb b = {.len = 0};
    build_nested(&b, TEXTIO_WKT_MAX_DEPTH);
    char want[2048] = "";
    for (unsigned i = 1; i < TEXTIO_WKT_MAX_DEPTH; i++)
        strcat(want, "GEOMETRYCOLLECTION (");
    strcat(want, "GEOMETRYCOLLECTION EMPTY");
    for (unsigned i = 1; i < TEXTIO_WKT_MAX_DEPTH; i++)
        strcat(want, ")");
    expect_wkt(&b, want);

    b.len = 0;
    build_nested(&b, TEXTIO_WKT_MAX_DEPTH + 1);
    expect_refused(&b, "WKB geometries nest deeper than 32 levels at byte 288");

    /* A point is a level too. */
    b.len = 0;
    for (unsigned i = 1; i < TEXTIO_WKT_MAX_DEPTH + 1; i++)
        head_n(&b, LE, GC, 1);
    point(&b, LE, 1, 2);
    expect_refused(&b, "nest deeper than 32 levels");

    b.len = 0;
    build_nested(&b, 1000);
    expect_refused(&b, "nest deeper than 32 levels");
}

static void test_bad_headers(void **state)
{
    (void)state;
    for (int order = LE; order <= BE; order++) {
        struct wkb b = {.len = 0};
        point(&b, order, 1, 2);
        b.data[0] = 2;
        expect_refused(&b, "bad WKB byte order 2 at byte 0 (0 or 1 expected)");

        b.len = 0;
        head_n(&b, order, MPT, 1);
        point(&b, order, 1, 2);
        b.data[9] = 0xFF;
        expect_refused(&b, "bad WKB byte order 255 at byte 9");

        static const uint32_t unknown[] = {0, 8, 17, 1000, 1008, 4001, 0xFFFF};
        for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
            char want[64];
            snprintf(want, sizeof want, "unsupported WKB geometry type %u at byte 1",
                     (unsigned)unknown[i]);
            b.len = 0;
            head_n(&b, order, unknown[i], 0);
            COORDS(&b, order, 1, 2, 3, 4);
            expect_refused(&b, want);
        }
        b.len = 0;
        head_n(&b, order, 8 | EWKB_Z, 0);
        expect_refused(&b, "unsupported WKB geometry type 8");

        b.len = 0;
        head_n(&b, order, GC, 1);
        head_n(&b, order, 9, 0);
        expect_refused(&b, "unsupported WKB geometry type 9 at byte 10");
    }
}

static void test_trailing_bytes(void **state)
{
    (void)state;
    struct wkb b = {.len = 0};
    point(&b, LE, 1, 2);
    b.data[b.len++] = 0;
    expect_refused(&b, "1 trailing byte after the WKB geometry, from byte 21");

    b.len = 0;
    head_n(&b, BE, GC, 0);
    point(&b, BE, 1, 2);
    expect_refused(&b, "21 trailing bytes after the WKB geometry, from byte 9");
}

static void test_mixed_children(void **state)
{
    (void)state;
    for (int order = LE; order <= BE; order++) {
        struct wkb b = {.len = 0};
        head_n(&b, order, MPT, 1);
        head(&b, order, PT + Z);
        COORDS(&b, order, 1, 2, 3);
        expect_refused(&b, "WKB POINT at byte 9 is XYZ inside a MULTIPOINT that is XY");

        b.len = 0;
        head_n(&b, order, GC + Z, 2);
        head(&b, order, PT + Z);
        COORDS(&b, order, 1, 2, 3);
        point(&b, order, 1, 2);
        expect_refused(&b, "WKB POINT at byte 38 is XY inside a GEOMETRYCOLLECTION that is XYZ");

        b.len = 0;
        head_n(&b, order, GC, 1);
        head_n(&b, order, GC, 1);
        head_n(&b, order, LS | EWKB_M, 0);
        expect_refused(&b,
                       "WKB LINESTRING at byte 18 is XYM inside a GEOMETRYCOLLECTION that is XY");

        b.len = 0;
        head_n(&b, order, MPT, 1);
        head_n(&b, order, LS, 0);
        expect_refused(&b, "WKB MULTIPOINT holds a LINESTRING at byte 9 (only POINT allowed)");

        b.len = 0;
        head_n(&b, order, MPOLY, 1);
        head_n(&b, order, GC, 0);
        expect_refused(&b, "WKB MULTIPOLYGON holds a GEOMETRYCOLLECTION at byte 9 (only POLYGON "
                           "allowed)");

        b.len = 0;
        head_n(&b, order, MLS, 1);
        head_n(&b, order, MLS, 0);
        expect_refused(&b, "WKB MULTILINESTRING holds a MULTILINESTRING at byte 9");
    }
}

/* Random corruption of valid input: every result is a clean refusal or text, never a fault. */
static void test_random_corruption(void **state)
{
    (void)state;
    struct wkb base = {.len = 0};
    build_everything(&base, LE);
    uint32_t seed = 12345;
    struct buf out = BUF_INIT;
    size_t accepted = 0;
    for (int iter = 0; iter < 20000; iter++) {
        struct wkb b = base;
        int flips = 1 + iter % 4;
        for (int f = 0; f < flips; f++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % b.len;
            seed = seed * 1103515245u + 12345u;
            b.data[at] = (uint8_t)(seed >> 16);
        }
        seed = seed * 1103515245u + 12345u;
        size_t n = iter % 3 == 0 ? (seed >> 8) % (b.len + 1) : b.len;
        if (!render(b.data, n, &out)) {
            accepted++;
            assert_true(out.len < 5 + 64 * n); /* output stays proportional to input */
        }
    }
    assert_true(accepted > 0);
    buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_dimensions),
        cmocka_unit_test(test_lines_and_polygons),
        cmocka_unit_test(test_multi),
        cmocka_unit_test(test_multi_dimensions),
        cmocka_unit_test(test_collections),
        cmocka_unit_test(test_ewkb),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_counts_past_the_end),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_bad_headers),
        cmocka_unit_test(test_trailing_bytes),
        cmocka_unit_test(test_mixed_children),
        cmocka_unit_test(test_random_corruption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
