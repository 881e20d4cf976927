#include "textio/textio_wkt.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/numfmt.h"

enum {
    WKB_POINT = 1,
    WKB_LINESTRING,
    WKB_POLYGON,
    WKB_MULTIPOINT,
    WKB_MULTILINESTRING,
    WKB_MULTIPOLYGON,
    WKB_COLLECTION,
};

/* EWKB's flags in the type word. */
#define EWKB_Z 0x80000000u
#define EWKB_M 0x40000000u
#define EWKB_SRID 0x20000000u

/* The smallest geometry: byte order, type, then a count or a point's 16+ bytes. Bounds a child
 * count before any child is read. */
enum { MIN_GEOMETRY_BYTES = 9 };

static const char *const type_names[] = {
    NULL,         "POINT",           "LINESTRING",   "POLYGON",
    "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION",
};

struct wkt {
    const uint8_t *wkb;
    size_t len;
    size_t pos; /* next byte to read */
    struct buf *out;
    struct error *err;
};

/* One geometry's header. */
struct geom {
    size_t at; /* offset of its byte-order byte, for messages */
    bool big;
    unsigned type; /* WKB_POINT .. WKB_COLLECTION */
    bool z, m;
};

static unsigned dims(const struct geom *g)
{
    return 2u + (unsigned)g->z + (unsigned)g->m;
}

static const char *dim_tag(const struct geom *g)
{
    return g->z ? (g->m ? " ZM" : " Z") : (g->m ? " M" : "");
}

static const char *dim_name(const struct geom *g)
{
    return g->z ? (g->m ? "XYZM" : "XYZ") : (g->m ? "XYM" : "XY");
}

__attribute__((format(printf, 3, 4))) static int fail(struct wkt *w, enum error_code code,
                                                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_failv(w->err, code, fmt, ap);
    va_end(ap);
    return -1;
}

static size_t left(const struct wkt *w)
{
    return w->len - w->pos;
}

/* Every read goes through here first: nothing past wkb + len is ever touched. */
static int need(struct wkt *w, size_t n, const char *what)
{
    if (left(w) >= n)
        return 0;
    return fail(w, ERR_MALFORMED, "truncated WKB at byte %zu: %s needs %zu byte%s, %zu left",
                w->pos, what, n, n == 1 ? "" : "s", left(w));
}

/* An n-byte unsigned integer in the geometry's byte order; need() came first. */
static uint64_t take(struct wkt *w, bool big, size_t n)
{
    const uint8_t *p = w->wkb + w->pos;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | p[big ? i : n - 1 - i];
    w->pos += n;
    return v;
}

static int read_u32(struct wkt *w, bool big, const char *what, uint32_t *v)
{
    if (need(w, 4, what) != 0)
        return -1;
    *v = (uint32_t)take(w, big, 4);
    return 0;
}

/* One position's coordinates into c; need() came first. */
static void take_position(struct wkt *w, const struct geom *g, double c[4])
{
    for (unsigned i = 0; i < dims(g); i++) {
        uint64_t bits = take(w, g->big, 8);
        memcpy(&c[i], &bits, sizeof c[i]);
    }
}

static int put(struct wkt *w, const char *s)
{
    if (buf_puts(w->out, s) == 0)
        return 0;
    return fail(w, ERR_NOMEM, "out of memory");
}

/* DuckDB's spelling: the shortest round-trip digits, integers without Python's ".0", and NaN and
 * infinities as C prints them, sign included ("-nan", "-inf"). */
static int put_coord(struct wkt *w, double v)
{
    char text[NUMFMT_TEXT_MAX];
    if (isnan(v)) {
        snprintf(text, sizeof text, "%s", signbit(v) ? "-nan" : "nan");
    } else if (isinf(v)) {
        snprintf(text, sizeof text, "%s", v < 0 ? "-inf" : "inf");
    } else {
        size_t n = numfmt_shortest(v, false, text);
        if (n >= 2 && strcmp(text + n - 2, ".0") == 0)
            text[n - 2] = '\0';
    }
    return put(w, text);
}

static int put_position(struct wkt *w, const struct geom *g, const double c[4])
{
    for (unsigned i = 0; i < dims(g); i++)
        if ((i > 0 && put(w, " ") != 0) || put_coord(w, c[i]) != 0)
            return -1;
    return 0;
}

/* WKB has no empty point: writers store one with every coordinate NaN, which reads back as
 * "EMPTY". Inside a MULTIPOINT the position goes without parentheses. */
static int put_point(struct wkt *w, const struct geom *g, bool parens)
{
    double c[4];
    if (need(w, dims(g) * 8, "a point's coordinates") != 0)
        return -1;
    take_position(w, g, c);
    bool empty = true;
    for (unsigned i = 0; i < dims(g); i++)
        empty = empty && isnan(c[i]);
    if (empty)
        return put(w, "EMPTY");
    if (parens && put(w, "(") != 0)
        return -1;
    if (put_position(w, g, c) != 0)
        return -1;
    return parens ? put(w, ")") : 0;
}

/* A count, checked against the bytes left before anything loops on it: each item takes at least
 * `unit` bytes. */
static int read_count(struct wkt *w, const struct geom *g, size_t unit, const char *items,
                      uint32_t *count)
{
    size_t at = w->pos;
    if (read_u32(w, g->big, "a count", count) != 0)
        return -1;
    if (*count <= left(w) / unit)
        return 0;
    return fail(w, ERR_MALFORMED, "WKB %s at byte %zu claims %lu %s but only %zu bytes follow",
                type_names[g->type], at, (unsigned long)*count, items, left(w));
}

/* The item lists of WKT, "EMPTY" or "(item, item)": a LINESTRING's or a
 * ring's points, a POLYGON's rings, a MULTI*'s or a collection's children.
 * The count is checked first (each item takes at least `unit` bytes). */
typedef int (*put_item_fn)(struct wkt *w, const struct geom *g, unsigned depth);

static int put_list(struct wkt *w, const struct geom *g, size_t unit, const char *items,
                    put_item_fn item, unsigned depth)
{
    uint32_t count;
    if (read_count(w, g, unit, items, &count) != 0)
        return -1;
    if (count == 0)
        return put(w, "EMPTY");
    if (put(w, "(") != 0)
        return -1;
    for (uint32_t i = 0; i < count; i++)
        if ((i > 0 && put(w, ", ") != 0) || item(w, g, depth) != 0)
            return -1;
    return put(w, ")");
}

static int put_list_position(struct wkt *w, const struct geom *g, unsigned depth)
{
    (void)depth;
    double c[4];
    take_position(w, g, c);
    return put_position(w, g, c);
}

static int put_points(struct wkt *w, const struct geom *g)
{
    return put_list(w, g, dims(g) * 8, "points", put_list_position, 0);
}

static int put_ring(struct wkt *w, const struct geom *g, unsigned depth)
{
    (void)depth;
    return put_points(w, g);
}

static int put_polygon(struct wkt *w, const struct geom *g)
{
    return put_list(w, g, 4, "rings", put_ring, 0);
}

/* Byte order, type, and the EWKB SRID skipped. The type word follows DuckDB: the ISO code is its
 * low 16 bits, the top three bits are EWKB's flags, and the bits between are ignored. */
static int read_header(struct wkt *w, struct geom *g)
{
    g->at = w->pos;
    if (need(w, 1, "the byte order") != 0)
        return -1;
    uint8_t order = w->wkb[w->pos];
    if (order > 1)
        return fail(w, ERR_MALFORMED, "bad WKB byte order %u at byte %zu (0 or 1 expected)", order,
                    w->pos);
    w->pos++;
    g->big = order == 0;
    uint32_t raw;
    if (read_u32(w, g->big, "the geometry type", &raw) != 0)
        return -1;
    unsigned code = raw & 0xFFFFu, base = code % 1000, iso_dims = code / 1000;
    if (base < WKB_POINT || base > WKB_COLLECTION || iso_dims > 3)
        return fail(w, ERR_UNSUPPORTED,
                    "unsupported WKB geometry type %u at byte %zu (supported: 1 to 7, plus 1000 Z, "
                    "2000 M, 3000 ZM)",
                    code, g->at + 1);
    g->type = base;
    g->z = (raw & EWKB_Z) || iso_dims == 1 || iso_dims == 3;
    g->m = (raw & EWKB_M) || iso_dims >= 2;
    uint32_t srid;
    if ((raw & EWKB_SRID) && read_u32(w, g->big, "the EWKB SRID", &srid) != 0)
        return -1;
    return 0;
}

/* A MULTI* holds its own element type (its code minus 3); every child has its parent's
 * dimensions. */
static int check_child(struct wkt *w, const struct geom *parent, const struct geom *g)
{
    if (parent->type != WKB_COLLECTION && g->type != parent->type - 3)
        return fail(w, ERR_MALFORMED, "WKB %s holds a %s at byte %zu (only %s allowed)",
                    type_names[parent->type], type_names[g->type], g->at,
                    type_names[parent->type - 3]);
    if (g->z != parent->z || g->m != parent->m)
        return fail(w, ERR_MALFORMED, "WKB %s at byte %zu is %s inside a %s that is %s",
                    type_names[g->type], g->at, dim_name(g), type_names[parent->type],
                    dim_name(parent));
    return 0;
}

static int put_geometry(struct wkt *w, const struct geom *parent, unsigned depth);

static int put_child(struct wkt *w, const struct geom *g, unsigned depth)
{
    return put_geometry(w, g, depth + 1);
}

/* One geometry at nesting level depth (the top is 1). It carries its type name and dimensions
 * unless it is a MULTI*'s element. */
static int put_geometry(struct wkt *w, const struct geom *parent, unsigned depth)
{
    struct geom g = {0}; /* (read_header fills it; -O3 cannot tell) */
    if (depth > TEXTIO_WKT_MAX_DEPTH)
        return fail(w, ERR_LIMIT, "WKB geometries nest deeper than %d levels at byte %zu",
                    TEXTIO_WKT_MAX_DEPTH, w->pos);
    if (read_header(w, &g) != 0 || (parent && check_child(w, parent, &g) != 0))
        return -1;
    bool tagged = !parent || parent->type == WKB_COLLECTION;
    if (tagged && (put(w, type_names[g.type]) != 0 || put(w, dim_tag(&g)) != 0 || put(w, " ") != 0))
        return -1;
    switch (g.type) {
    case WKB_POINT: return put_point(w, &g, tagged);
    case WKB_LINESTRING: return put_points(w, &g);
    case WKB_POLYGON: return put_polygon(w, &g);
    default: return put_list(w, &g, MIN_GEOMETRY_BYTES, "geometries", put_child, depth);
    }
}

int textio_wkb_to_wkt(const uint8_t *wkb, size_t len, struct buf *out, struct error *err)
{
    struct wkt w = {wkb, len, 0, out, err};
    size_t start = out->len;
    int rc =
        len == 0 ? fail(&w, ERR_MALFORMED, "empty WKB (no geometry)") : put_geometry(&w, NULL, 1);
    if (rc == 0 && w.pos < len)
        rc = fail(&w, ERR_MALFORMED, "%zu trailing byte%s after the WKB geometry, from byte %zu",
                  len - w.pos, len - w.pos == 1 ? "" : "s", w.pos);
    if (rc != 0 && out->data) {
        out->len = start;
        out->data[start] = '\0';
    }
    return rc;
}
