/* Typed Arrow values into Variants: see rows_variant.h.
 *
 * The schema is read once into a plan (a node per Arrow field, its kind
 * and parameters), so a row's values are walked without comparing format
 * strings. Indexes are logical within each array: its own offset is
 * applied where a value is read; a struct's children are indexed by the
 * struct's physical slot (Arrow applies a parent's offset to them), a
 * list's by its offsets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rows/rows_value.h"
#include "rows/rows_variant.h"
#include "util/arrow.h"
#include "variant/builder.h"
#include "variant/variant.h"

typedef variant_builder_i128 i128;

enum kind {
    K_NULL,
    K_BOOL,
    K_INT,  /* width, is_signed */
    K_HALF, /* float16 */
    K_FLOAT,
    K_DOUBLE,
    K_DECIMAL, /* width (4, 8, 16, 32 bytes), scale */
    K_DATE32,
    K_DATE64,
    K_TIME,      /* width, unit */
    K_TIMESTAMP, /* unit, utc */
    K_STRING,    /* large */
    K_BINARY,    /* large */
    K_VIEW,      /* string view or binary view: is_string */
    K_FIXED,     /* width */
    K_UUID,
    K_STRUCT,
    K_LIST,       /* large */
    K_FIXED_LIST, /* width: the list size */
    K_MAP,
    K_DICT, /* width, is_signed: the indexes; dict: the values */
};

struct node {
    enum kind kind;
    int width;
    bool is_signed, large, utc, is_string;
    int scale;
    enum rows_unit unit;
    const char *name; /* a struct field's */
    struct node *children;
    int64_t nchildren;
    struct node *dict;
};

/* ---- the plan ---- */

static void node_free(struct node *n)
{
    for (int64_t c = 0; c < n->nchildren; c++)
        node_free(&n->children[c]);
    free(n->children);
    if (n->dict)
        node_free(n->dict);
    free(n->dict);
}

static int refuse(struct error *err, const char *format)
{
    return error_fail(err, ERR_INVALID, "a variant column cannot take Arrow '%s' values", format);
}

static bool int_format(const char *f, struct node *n)
{
    static const char names[] = "cCsSiIlL";
    const char *p = f[0] && !f[1] ? strchr(names, f[0]) : NULL;
    if (!p)
        return false;
    n->width = 1 << ((p - names) / 2);
    n->is_signed = (p - names) % 2 == 0;
    return true;
}

static int plan(const struct ArrowSchema *s, struct node *n, int depth, struct error *err);

/* The node's children from s's. */
static int plan_children(const struct ArrowSchema *s, struct node *n, int depth, struct error *err)
{
    if (s->n_children <= 0)
        return 0;
    if (!(n->children = calloc((size_t)s->n_children, sizeof *n->children)))
        return error_nomem(err);
    n->nchildren = s->n_children;
    for (int64_t c = 0; c < s->n_children; c++) {
        n->children[c].name = s->children[c]->name ? s->children[c]->name : "";
        if (plan(s->children[c], &n->children[c], depth + 1, err) != 0)
            return -1;
    }
    return 0;
}

/* "d:p,s" and "d:p,s,bits": decimal32, 64, 128 or 256 of scale 0..38. */
static int plan_decimal(const char *f, struct node *n, struct error *err)
{
    int p = 0, scale = 0, bits = 128, used = 0;
    int got = sscanf(f, "d:%d,%d%n,%d%n", &p, &scale, &used, &bits, &used);
    if (got < 2 || f[used] != '\0' || (bits != 32 && bits != 64 && bits != 128 && bits != 256))
        return refuse(err, f);
    if (scale < 0 || scale > 38)
        return error_fail_reason(err, ERR_INVALID, "number_out_of_range",
                                 "a variant decimal's scale is 0 to 38, not %d (Arrow '%s')", scale,
                                 f);
    n->kind = K_DECIMAL;
    n->width = bits / 8;
    n->scale = scale;
    return 0;
}

/* Dates, times ("tt?") and timestamps ("ts?:zone"). */
static int plan_temporal(const char *f, struct node *n, struct error *err)
{
    if (strcmp(f, "tdD") == 0 || strcmp(f, "tdm") == 0) {
        n->kind = f[2] == 'D' ? K_DATE32 : K_DATE64;
        return 0;
    }
    if (f[1] == 't' && rows_unit_of(f[2], &n->unit) && f[3] == '\0') {
        n->kind = K_TIME;
        n->width = n->unit <= ROWS_MILLIS ? 4 : 8;
        return 0;
    }
    if (f[1] == 's' && rows_unit_of(f[2], &n->unit) && f[3] == ':') {
        n->kind = K_TIMESTAMP;
        n->utc = f[4] != '\0';
        return 0;
    }
    return refuse(err, f);
}

/* fixed_size_binary(w), a uuid when marked "arrow.uuid". */
static int plan_fixed(const struct ArrowSchema *s, struct node *n, struct error *err)
{
    char *end;
    long w = strtol(s->format + 2, &end, 10);
    if (*end || w < 0 || w > INT32_MAX)
        return refuse(err, s->format);
    char ext[32];
    bool uuid = w == 16 && s->metadata &&
                arrow_metadata_get(s->metadata, "ARROW:extension:name", ext, sizeof ext) &&
                strcmp(ext, "arrow.uuid") == 0;
    n->kind = uuid ? K_UUID : K_FIXED;
    n->width = (int)w;
    return 0;
}

static int plan_fixed_list(const struct ArrowSchema *s, struct node *n, int depth,
                           struct error *err)
{
    char *end;
    long w = strtol(s->format + 3, &end, 10);
    if (*end || w < 0 || w > INT32_MAX || s->n_children != 1)
        return refuse(err, s->format);
    n->kind = K_FIXED_LIST;
    n->width = (int)w;
    return plan_children(s, n, depth, err);
}

/* A map of string keys: its entries' key and value nodes. */
static int plan_map(const struct ArrowSchema *s, struct node *n, int depth, struct error *err)
{
    const struct ArrowSchema *e = s->n_children == 1 ? s->children[0] : NULL;
    if (!e || e->n_children != 2)
        return refuse(err, s->format);
    const char *kf = e->children[0]->format;
    if (e->children[0]->dictionary ||
        (strcmp(kf, "u") != 0 && strcmp(kf, "U") != 0 && strcmp(kf, "vu") != 0))
        return error_fail(err, ERR_INVALID,
                          "a variant column takes maps of string keys only, not Arrow '%s' keys",
                          kf);
    n->kind = K_MAP;
    return plan_children(e, n, depth, err);
}

static int plan_dictionary(const struct ArrowSchema *s, struct node *n, int depth,
                           struct error *err)
{
    if (!int_format(s->format, n))
        return refuse(err, s->format);
    n->kind = K_DICT;
    if (!(n->dict = calloc(1, sizeof *n->dict)))
        return error_nomem(err);
    return plan(s->dictionary, n->dict, depth + 1, err);
}

/* The formats without parameters. */
static bool plan_simple(const char *f, struct node *n)
{
    static const struct {
        const char *format;
        enum kind kind;
        bool large, is_string;
    } simple[] = {
        {"n", K_NULL, false, false},  {"b", K_BOOL, false, false},   {"e", K_HALF, false, false},
        {"f", K_FLOAT, false, false}, {"g", K_DOUBLE, false, false}, {"u", K_STRING, false, false},
        {"U", K_STRING, true, false}, {"z", K_BINARY, false, false}, {"Z", K_BINARY, true, false},
        {"vu", K_VIEW, false, true},  {"vz", K_VIEW, false, false},
    };
    for (size_t k = 0; k < sizeof simple / sizeof *simple; k++)
        if (strcmp(f, simple[k].format) == 0) {
            n->kind = simple[k].kind;
            n->large = simple[k].large;
            n->is_string = simple[k].is_string;
            return true;
        }
    return false;
}

static int plan(const struct ArrowSchema *s, struct node *n, int depth, struct error *err)
{
    const char *f = s->format;
    if (depth > VARIANT_MAX_DEPTH)
        return error_fail_reason(err, ERR_INVALID, "nesting_too_deep",
                                 "Arrow types nested more than %d levels deep", VARIANT_MAX_DEPTH);
    if (s->dictionary)
        return plan_dictionary(s, n, depth, err);
    if (plan_simple(f, n))
        return 0;
    if (int_format(f, n)) {
        n->kind = K_INT;
        return 0;
    }
    if (strncmp(f, "d:", 2) == 0)
        return plan_decimal(f, n, err);
    if (f[0] == 't')
        return plan_temporal(f, n, err);
    if (strncmp(f, "w:", 2) == 0)
        return plan_fixed(s, n, err);
    if (strcmp(f, "+s") == 0) {
        n->kind = K_STRUCT;
        return plan_children(s, n, depth, err);
    }
    if ((strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0) && s->n_children == 1) {
        n->kind = K_LIST;
        n->large = f[1] == 'L';
        return plan_children(s, n, depth, err);
    }
    if (strncmp(f, "+w:", 3) == 0)
        return plan_fixed_list(s, n, depth, err);
    if (strcmp(f, "+m") == 0)
        return plan_map(s, n, depth, err);
    return refuse(err, f);
}

static bool text_format(const char *f)
{
    return strcmp(f, "u") == 0 || strcmp(f, "U") == 0 || strcmp(f, "z") == 0 || strcmp(f, "Z") == 0;
}

/* The plan of s, in *root (the caller frees it with node_free). */
static int plan_top(const struct ArrowSchema *s, struct node *root, struct error *err)
{
    memset(root, 0, sizeof *root);
    if (s->dictionary && text_format(s->dictionary->format))
        return error_fail(err, ERR_INVALID,
                          "a variant column takes JSON text as plain utf8, large utf8 or binary, "
                          "not dictionary-encoded (Arrow '%s' values)",
                          s->dictionary->format);
    return plan(s, root, 0, err);
}

int rows_variant_arrow_check(const struct ArrowSchema *s, struct error *err)
{
    struct node root;
    int rc = plan_top(s, &root, err);
    node_free(&root);
    return rc;
}

/* ---- reading values ---- */

struct walk {
    struct variant_builder *b;
    struct error *err;
};

static bool valid(const struct ArrowArray *a, int64_t k)
{
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return !v || a->null_count == 0 || arrow_bit(v, k);
}

static const uint8_t *values_at(const struct ArrowArray *a, int64_t k, int width)
{
    return (const uint8_t *)a->buffers[1] + (size_t)k * (size_t)width;
}

/* Offsets k and k + 1 of a list, string or binary (32- or 64-bit). */
static void offsets_at(const struct ArrowArray *a, bool large, int64_t k, int64_t *b, int64_t *e)
{
    if (large) {
        const int64_t *o = a->buffers[1];
        *b = o[k], *e = o[k + 1];
    } else {
        const int32_t *o = a->buffers[1];
        *b = o[k], *e = o[k + 1];
    }
}

/* Slot k's bytes of a string, binary or view array. */
static int bytes_at(struct walk *w, const struct node *n, const struct ArrowArray *a, int64_t k,
                    const uint8_t **p, size_t *len)
{
    if (n->kind != K_VIEW) {
        int64_t b, e;
        offsets_at(a, n->large, k, &b, &e);
        *p = (const uint8_t *)a->buffers[2] + b;
        *len = (size_t)(e - b);
        return 0;
    }
    const uint8_t *view = values_at(a, k, 16);
    int32_t n32, buffer, offset;
    memcpy(&n32, view, 4);
    *len = (size_t)n32;
    if (n32 <= 12) {
        *p = view + 4;
        return 0;
    }
    memcpy(&buffer, view + 8, 4);
    memcpy(&offset, view + 12, 4);
    /* data buffers follow validity and views; the last holds their sizes */
    if (buffer < 0 || 2 + (int64_t)buffer >= a->n_buffers - 1)
        return error_fail(w->err, ERR_INVALID, "a string view names data buffer %d of %lld",
                          (int)buffer, (long long)(a->n_buffers - 3));
    *p = (const uint8_t *)a->buffers[2 + buffer] + offset;
    return 0;
}

static int inexact(struct walk *w, const char *what, long long v)
{
    return error_fail_reason(w->err, ERR_INVALID, "number_out_of_range",
                             "%s %lld does not convert exactly to a Variant", what, v);
}

static int put_uint(struct walk *w, uint64_t v)
{
    if (v <= INT64_MAX)
        return variant_builder_int(w->b, (int64_t)v, w->err);
    return variant_builder_decimal(w->b, (i128)v, 0, w->err);
}

/* A decimal's unscaled value: 4, 8, 16 or (within 128 bits) 32 bytes. */
static int put_decimal(struct walk *w, const struct node *n, const uint8_t *p)
{
    if (n->width <= 8)
        return variant_builder_decimal(w->b, rows_load_signed(p, n->width), n->scale, w->err);
    uint64_t lo, hi;
    memcpy(&lo, p, 8);
    memcpy(&hi, p + 8, 8);
    i128 v = (i128)((__extension__(unsigned __int128) hi << 64) | lo);
    if (n->width == 32) {
        /* The upper half must only extend the sign of the lower. */
        uint64_t ext = v < 0 ? UINT64_MAX : 0, hi2, hi3;
        memcpy(&hi2, p + 16, 8);
        memcpy(&hi3, p + 24, 8);
        if (hi2 != ext || hi3 != ext)
            return error_fail_reason(w->err, ERR_INVALID, "number_out_of_range",
                                     "a decimal256 of more than 38 digits");
    }
    return variant_builder_decimal(w->b, v, n->scale, w->err);
}

static int put_time(struct walk *w, const struct node *n, const uint8_t *p)
{
    int64_t v = rows_load_signed(p, n->width), us;
    if (n->unit == ROWS_NANOS) {
        if (v % 1000 != 0)
            return inexact(w, "the time of day (ns)", v);
        us = v / 1000;
    } else if (__builtin_mul_overflow(v, INT64_C(1000000) / rows_unit_per_second(n->unit), &us)) {
        return inexact(w, "the time of day", v);
    }
    return variant_builder_time(w->b, us, w->err);
}

static int put_timestamp(struct walk *w, const struct node *n, int64_t v)
{
    if (n->unit == ROWS_NANOS)
        return variant_builder_timestamp(w->b, v, true, n->utc, w->err);
    int64_t us;
    if (__builtin_mul_overflow(v, INT64_C(1000000) / rows_unit_per_second(n->unit), &us))
        return inexact(w, "the timestamp", v);
    return variant_builder_timestamp(w->b, us, false, n->utc, w->err);
}

static int put_date64(struct walk *w, int64_t ms)
{
    const int64_t day = INT64_C(86400000);
    if (ms % day != 0 || ms / day < INT32_MIN || ms / day > INT32_MAX)
        return inexact(w, "the date64 (not whole days)", ms);
    return variant_builder_date(w->b, (int32_t)(ms / day), w->err);
}

static int put_bytes(struct walk *w, const struct node *n, const struct ArrowArray *a, int64_t k)
{
    const uint8_t *p = NULL; /* (set unless bytes_at fails; GCC cannot tell) */
    size_t len = 0;
    if (bytes_at(w, n, a, k, &p, &len) != 0)
        return -1;
    if (n->kind == K_STRING || (n->kind == K_VIEW && n->is_string))
        return variant_builder_string(w->b, (const char *)p, len, w->err);
    return variant_builder_binary(w->b, p, len, w->err);
}

static int put_value(struct walk *w, const struct node *n, const struct ArrowArray *a, int64_t i);

/* Elements [b, e) of the child array c, as an array. */
static int put_elements(struct walk *w, const struct node *n, const struct ArrowArray *c, int64_t b,
                        int64_t e)
{
    if (variant_builder_begin_array(w->b, w->err) != 0)
        return -1;
    for (int64_t j = b; j < e; j++)
        if (put_value(w, &n->children[0], c, j) != 0)
            return -1;
    return variant_builder_end_array(w->b, w->err);
}

static int put_struct(struct walk *w, const struct node *n, const struct ArrowArray *a, int64_t k)
{
    if (variant_builder_begin_object(w->b, w->err) != 0)
        return -1;
    for (int64_t c = 0; c < n->nchildren; c++) {
        const struct node *f = &n->children[c];
        if (variant_builder_key(w->b, f->name, strlen(f->name), w->err) != 0 ||
            put_value(w, f, a->children[c], k) != 0)
            return -1;
    }
    return variant_builder_end_object(w->b, w->err);
}

/* Entries [b, e) of a map as an object. */
static int put_map(struct walk *w, const struct node *n, const struct ArrowArray *entries,
                   int64_t b, int64_t e)
{
    const struct ArrowArray *keys = entries->children[0], *values = entries->children[1];
    if (variant_builder_begin_object(w->b, w->err) != 0)
        return -1;
    for (int64_t j = entries->offset + b; j < entries->offset + e; j++) {
        const uint8_t *p = NULL; /* (as in put_bytes) */
        size_t len = 0;
        int64_t kk = keys->offset + j;
        if (!valid(keys, kk))
            return error_fail(w->err, ERR_INVALID, "a map key is null");
        if (bytes_at(w, &n->children[0], keys, kk, &p, &len) != 0 ||
            variant_builder_key(w->b, (const char *)p, len, w->err) != 0 ||
            put_value(w, &n->children[1], values, j) != 0)
            return -1;
    }
    return variant_builder_end_object(w->b, w->err);
}

static int put_dict(struct walk *w, const struct node *n, const struct ArrowArray *a, int64_t k)
{
    const uint8_t *p = values_at(a, k, n->width);
    uint64_t u = rows_load_unsigned(p, n->width);
    int64_t at = n->is_signed ? rows_load_signed(p, n->width) : u > INT64_MAX ? -1 : (int64_t)u;
    if (!a->dictionary || at < 0 || at >= a->dictionary->length)
        return error_fail(w->err, ERR_INVALID, "a dictionary index %lld past its %lld values",
                          (long long)at, a->dictionary ? (long long)a->dictionary->length : 0LL);
    return put_value(w, n->dict, a->dictionary, at);
}

/* Scalars of one fixed-width buffer. */
static int put_scalar(struct walk *w, const struct node *n, const struct ArrowArray *a, int64_t k)
{
    const uint8_t *p = n->kind == K_BOOL ? NULL : values_at(a, k, n->width);
    switch (n->kind) {
    case K_BOOL: return variant_builder_bool(w->b, arrow_bit(a->buffers[1], k), w->err);
    case K_INT:
        return n->is_signed ? variant_builder_int(w->b, rows_load_signed(p, n->width), w->err)
                            : put_uint(w, rows_load_unsigned(p, n->width));
    case K_DECIMAL: return put_decimal(w, n, p);
    case K_TIME: return put_time(w, n, p);
    case K_FIXED: return variant_builder_binary(w->b, p, (size_t)n->width, w->err);
    case K_UUID: return variant_builder_uuid(w->b, p, w->err);
    default: return error_fail(w->err, ERR_INTERNAL, "not a scalar kind");
    }
}

/* Slot i (logical) of array a, of plan node n. */
static int put_value(struct walk *w, const struct node *n, const struct ArrowArray *a, int64_t i)
{
    int64_t k = a->offset + i, b, e;
    if (n->kind == K_NULL || !valid(a, k))
        return variant_builder_null(w->b, w->err);
    const uint8_t *raw = a->n_buffers > 1 ? a->buffers[1] : NULL;
    switch (n->kind) {
    case K_HALF: {
        uint16_t h;
        memcpy(&h, raw + k * 2, 2);
        return variant_builder_float(w->b, rows_half_to_float(h), w->err);
    }
    case K_FLOAT: {
        float f;
        memcpy(&f, raw + k * 4, 4);
        return variant_builder_float(w->b, f, w->err);
    }
    case K_DOUBLE: {
        double d;
        memcpy(&d, raw + k * 8, 8);
        return variant_builder_double(w->b, d, w->err);
    }
    case K_DATE32:
        return variant_builder_date(w->b, (int32_t)rows_load_signed(raw + k * 4, 4), w->err);
    case K_DATE64: return put_date64(w, rows_load_signed(raw + k * 8, 8));
    case K_TIMESTAMP: return put_timestamp(w, n, rows_load_signed(raw + k * 8, 8));
    case K_STRING:
    case K_BINARY:
    case K_VIEW: return put_bytes(w, n, a, k);
    case K_STRUCT: return put_struct(w, n, a, k);
    case K_LIST:
        offsets_at(a, n->large, k, &b, &e);
        return put_elements(w, n, a->children[0], b, e);
    case K_FIXED_LIST: return put_elements(w, n, a->children[0], k * n->width, (k + 1) * n->width);
    case K_MAP: offsets_at(a, false, k, &b, &e); return put_map(w, n, a->children[0], b, e);
    case K_DICT: return put_dict(w, n, a, k);
    default: return put_scalar(w, n, a, k);
    }
}

/* ---- the column ---- */

struct column {
    const struct node *root;
    const struct ArrowArray *a;
    struct walk w;
};

static int column_row(void *ctx, int64_t i, struct buf *metadata, struct buf *value, bool *null,
                      struct error *err)
{
    struct column *c = ctx;
    c->w.err = err;
    if (c->root->kind == K_NULL || !valid(c->a, c->a->offset + i)) {
        *null = true;
        return 0;
    }
    if (put_value(&c->w, c->root, c->a, i) != 0 ||
        variant_builder_finish(c->w.b, metadata, value, err) != 0) {
        variant_builder_reset(c->w.b);
        return -1;
    }
    return 0;
}

int rows_variant_from_arrow(const struct ArrowSchema *s, const struct ArrowArray *in,
                            int64_t first_row, struct ArrowArray *out, struct error *err)
{
    struct node root;
    struct column c = {.root = &root, .a = in};
    int rc = -1;
    if (plan_top(s, &root, err) != 0)
        goto done;
    if (!(c.w.b = variant_builder_new())) {
        error_nomem(err);
        goto done;
    }
    rc = rows_variant_build(in->length, first_row, 0, column_row, &c, out, err);
done:
    variant_builder_free(c.w.b);
    node_free(&root);
    return rc;
}
