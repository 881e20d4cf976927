#include "parquet/variant_shred.h"

#include <stdlib.h>
#include <string.h>

#include "parquet/variant_layout.h"
#include "parquet/writer.h"
#include "util/arrow.h"
#include "util/buf.h"
#include "util/search.h"
#include "variant/access.h"
#include "variant/variant.h"
#include "variant/variant_format.h"

__extension__ typedef __int128 i128;

/* ---- builders, one per storage field ---- */

struct builder {
    const struct lake_column *col;
    int width;        /* fixed-width leaves: bytes a value; 0: bytes or nested */
    struct buf valid; /* validity bits */
    bool any_null;
    int64_t len;
    struct buf data;    /* fixed values, bits (boolean) or bytes */
    struct buf offsets; /* int32: byte arrays and lists */
    struct builder *kids;
    size_t nkids;
    int value, typed;              /* groups: the value and typed_value fields, -1 when absent */
    struct pq_shred_counts counts; /* groups */
    /* An object's typed_value: its fields' indexes by name bytes, and what
     * a row's object needs, kept from row to row. */
    uint32_t *by_name;
    struct object_scratch {
        bool *keep;        /* per field of the row's object: left in the residual */
        uint64_t *end;     /* per field: where its value ends */
        uint64_t *order;   /* the fields by offset */
        int64_t *field_of; /* per declared field: its index in the object, -1 none */
        size_t cap;
    } scratch;
};

static int fixed_width(const struct lake_column *c)
{
    switch (c->type) {
    case LT_INT8: return 1;
    case LT_INT16: return 2;
    case LT_INT:
    case LT_DATE:
    case LT_FLOAT: return 4;
    case LT_LONG:
    case LT_DOUBLE:
    case LT_TIME:
    case LT_TIMESTAMP:
    case LT_TIMESTAMP_NS:
    case LT_TIMESTAMPTZ: return 8;
    case LT_DECIMAL:
    case LT_UUID: return 16;
    default: return 0;
    }
}

static bool has_offsets(const struct builder *b)
{
    enum lake_type t = b->col->type;
    return t == LT_BINARY || t == LT_STRING || t == LT_LIST;
}

static void builder_free(struct builder *b)
{
    for (size_t i = 0; i < b->nkids; i++)
        builder_free(&b->kids[i]);
    free(b->kids);
    free(b->by_name);
    free(b->scratch.keep);
    free(b->scratch.end);
    free(b->scratch.order);
    free(b->scratch.field_of);
    buf_free(&b->valid);
    buf_free(&b->data);
    buf_free(&b->offsets);
}

/* An object's declared fields sorted by name (insertion: at most 1000,
 * once a batch), for finding a row's keys among them in log time. */
static int index_names(struct builder *b)
{
    if (!(b->by_name = malloc((b->nkids ? b->nkids : 1) * sizeof *b->by_name)) ||
        !(b->scratch.field_of = malloc((b->nkids ? b->nkids : 1) * sizeof *b->scratch.field_of)))
        return -1;
    for (size_t i = 0; i < b->nkids; i++) {
        uint32_t k = (uint32_t)i;
        size_t j = i;
        for (; j > 0 && strcmp(b->kids[b->by_name[j - 1]].col->name, b->kids[k].col->name) > 0; j--)
            b->by_name[j] = b->by_name[j - 1];
        b->by_name[j] = k;
    }
    return 0;
}

/* strcmp of the string f with name's len bytes. */
static int name_cmp(const char *f, const char *name, size_t len)
{
    size_t flen = strlen(f);
    int c = memcmp(f, name, flen < len ? flen : len);
    return c ? c : (flen > len) - (flen < len);
}

/* The name of the declared field at position k in name order. */
static const char *sorted_name(const struct builder *t, size_t k)
{
    return t->kids[t->by_name[k]].col->name;
}

/* The declared field named name, or -1. */
static int64_t declared_field(const struct builder *t, const char *name, size_t len)
{
    size_t at = LOWER_BOUND(t->nkids, i, name_cmp(sorted_name(t, i), name, len) < 0);
    return at < t->nkids && name_cmp(sorted_name(t, at), name, len) == 0 ? (int64_t)t->by_name[at]
                                                                         : -1;
}

/* A builder for c and its fields. group: c is a group (the column, a field
 * or an element group), whose value and typed_value the shredder fills;
 * the fields of an object's typed_value and the element of an array's are
 * groups in turn, whatever their names. */
static int builder_init(struct builder *b, const struct lake_column *c, bool group,
                        struct error *err)
{
    memset(b, 0, sizeof *b);
    b->col = c;
    b->width = fixed_width(c);
    b->value = b->typed = -1;
    int32_t zero = 0;
    if (has_offsets(b) && buf_append(&b->offsets, &zero, sizeof zero) != 0)
        return error_nomem(err);
    if (!c->nchildren)
        return 0;
    if (!(b->kids = calloc(c->nchildren, sizeof *b->kids)))
        return error_nomem(err);
    b->nkids = c->nchildren;
    for (size_t i = 0; i < c->nchildren; i++) {
        const char *name = c->children[i]->name;
        if (group && strcmp(name, "value") == 0)
            b->value = (int)i;
        else if (group && strcmp(name, "typed_value") == 0)
            b->typed = (int)i;
        bool kid_group = !group && (c->type == LT_STRUCT || c->type == LT_LIST);
        if (builder_init(&b->kids[i], c->children[i], kid_group, err) != 0)
            return -1;
    }
    if (!group && c->type == LT_STRUCT && index_names(b) != 0)
        return error_nomem(err);
    return 0;
}

static int push_valid(struct builder *b, bool v, struct error *err)
{
    if ((b->len & 7) == 0 && buf_putc(&b->valid, 0) != 0)
        return error_nomem(err);
    if (v)
        arrow_set_bit((uint8_t *)b->valid.data, b->len, true);
    else
        b->any_null = true;
    b->len++;
    return 0;
}

static int push_offset(struct builder *b, size_t end, struct error *err)
{
    if (end > INT32_MAX)
        return error_fail(err, ERR_LIMIT, "a variant batch holds more than 2 GiB in one column");
    int32_t o = (int32_t)end;
    return buf_append(&b->offsets, &o, sizeof o) == 0 ? 0 : error_nomem(err);
}

/* A null slot (with an entry in every field below it). */
static int push_null(struct builder *b, struct error *err)
{
    if (push_valid(b, false, err) != 0)
        return -1;
    if (b->col->type == LT_BOOLEAN) {
        if (((b->len - 1) & 7) == 0 && buf_putc(&b->data, 0) != 0)
            return error_nomem(err);
        return 0;
    }
    if (b->width) {
        static const uint8_t zeros[16];
        return buf_append(&b->data, zeros, (size_t)b->width) == 0 ? 0 : error_nomem(err);
    }
    if (b->col->type == LT_LIST)
        return push_offset(b, (size_t)b->kids[0].len, err);
    if (has_offsets(b))
        return push_offset(b, b->data.len, err);
    for (size_t i = 0; i < b->nkids; i++)
        if (push_null(&b->kids[i], err) != 0)
            return -1;
    return 0;
}

static int push_bytes(struct builder *b, const void *p, size_t n, struct error *err)
{
    if (push_valid(b, true, err) != 0 || (n && buf_append(&b->data, p, n) != 0))
        return error_nomem(err);
    return push_offset(b, b->data.len, err);
}

static int push_fixed(struct builder *b, const void *p, struct error *err)
{
    if (push_valid(b, true, err) != 0)
        return -1;
    return buf_append(&b->data, p, (size_t)b->width) == 0 ? 0 : error_nomem(err);
}

static int push_bool(struct builder *b, bool v, struct error *err)
{
    if (push_valid(b, true, err) != 0)
        return -1;
    if (((b->len - 1) & 7) == 0 && buf_putc(&b->data, 0) != 0)
        return error_nomem(err);
    if (v)
        arrow_set_bit((uint8_t *)b->data.data, b->len - 1, true);
    return 0;
}

static int finish(struct builder *b, struct ArrowArray *out, struct error *err)
{
    enum lake_type t = b->col->type;
    bool nested = t == LT_STRUCT || t == LT_VARIANT || t == LT_LIST;
    int64_t nbuf = t == LT_STRUCT || t == LT_VARIANT ? 1 : has_offsets(b) && t != LT_LIST ? 3 : 2;
    if (arrow_array_init(out, nbuf, nested ? (int64_t)b->nkids : 0) != 0)
        return error_nomem(err);
    out->length = b->len;
    out->null_count = 0;
    if (b->any_null) {
        for (int64_t i = 0; i < b->len; i++)
            out->null_count += !arrow_bit((const uint8_t *)b->valid.data, i);
        arrow_array_own_buffer(out, 0, buf_take(&b->valid));
    }
    if (t == LT_LIST || (has_offsets(b) && t != LT_LIST))
        arrow_array_own_buffer(out, 1, buf_take(&b->offsets));
    if (t != LT_LIST && has_offsets(b))
        arrow_array_own_buffer(out, 2, b->data.data ? buf_take(&b->data) : calloc(1, 1));
    else if (!nested)
        arrow_array_own_buffer(out, 1, b->data.data ? buf_take(&b->data) : calloc(1, 16));
    for (size_t i = 0; i < b->nkids; i++)
        if (finish(&b->kids[i], out->children[i], err) != 0) {
            out->release(out);
            return -1;
        }
    return 0;
}

/* ---- reading Variant values ---- */

static int corrupt(struct error *err, const char *what)
{
    return error_fail_reason(err, ERR_INVALID, "variant_encoding", "variant: %s", what);
}

/* A container whose values fill exactly its len bytes (as the unshredded
 * storage the shredder takes always does). */
static int open_container(const uint8_t *v, size_t len, struct variant_container *c,
                          struct error *err)
{
    if (!variant_container_open(v, len, c))
        return corrupt(err, "a truncated container");
    if ((size_t)(c->values - v) + c->values_len != len)
        return corrupt(err, "a value that does not end where its container says");
    return 0;
}

static uint64_t offset_at(const struct variant_container *c, uint64_t k)
{
    return variant_get_le(c->offsets + k * (size_t)c->offset_size, c->offset_size);
}

/* Array element k's bytes: from its offset to the next one. */
static int array_element(const struct variant_container *c, uint64_t k, const uint8_t **p,
                         size_t *n, struct error *err)
{
    uint64_t start = offset_at(c, k), end = offset_at(c, k + 1);
    if (start >= end || end > c->values_len)
        return corrupt(err, "an element outside its container");
    *p = c->values + start;
    *n = (size_t)(end - start);
    return 0;
}

/* Where each field of object c ends: at the next offset above its own
 * (an object's values may lie in any order), into s->end. Fields sorted
 * by offset once: n log n, never a scan per field. */
static int object_ends(const struct variant_container *c, struct object_scratch *s,
                       struct error *err)
{
    uint64_t *order = s->order;
    for (uint64_t k = 0; k < c->n; k++) {
        uint64_t o = offset_at(c, k);
        if (o >= c->values_len)
            return corrupt(err, "an element outside its container");
        order[k] = o << 32 | k; /* offsets and counts fit 32 bits: values are < 4 GiB */
    }
    for (uint64_t w = 1; w < c->n; w *= 2) /* bottom-up merge sort through end */
        for (uint64_t lo = 0; lo < c->n; lo += 2 * w) {
            uint64_t mid = lo + w < c->n ? lo + w : c->n,
                     hi = lo + 2 * w < c->n ? lo + 2 * w : c->n;
            uint64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                s->end[o++] = order[j] < order[i] ? order[j++] : order[i++];
            while (i < mid)
                s->end[o++] = order[i++];
            while (j < hi)
                s->end[o++] = order[j++];
            memcpy(order + lo, s->end + lo, (size_t)(hi - lo) * sizeof *order);
        }
    for (uint64_t r = 0; r < c->n; r++) {
        uint64_t start = order[r] >> 32, next = r + 1 < c->n ? order[r + 1] >> 32 : c->values_len;
        if (next <= start)
            return corrupt(err, "two fields at one offset");
        s->end[order[r] & 0xffffffffu] = next;
    }
    return 0;
}

static void object_field(const struct variant_container *c, const struct object_scratch *s,
                         uint64_t k, const uint8_t **p, size_t *n)
{
    uint64_t start = offset_at(c, k);
    *p = c->values + start;
    *n = (size_t)(s->end[k] - start);
}

/* ---- placement ---- */

static bool int_value(const uint8_t *v, size_t n, int64_t *out)
{
    int prim = v[0] >> 2;
    int w = prim == VT_INT8    ? 1
            : prim == VT_INT16 ? 2
            : prim == VT_INT32 ? 4
            : prim == VT_INT64 ? 8
                               : 0;
    if ((v[0] & 3) != VB_PRIMITIVE || !w || n != 1 + (size_t)w)
        return false;
    uint64_t u = variant_get_le(v + 1, w);
    if (w < 8 && (u >> (8 * w - 1)) & 1)
        u |= ~0ULL << (8 * w); /* sign-extend */
    *out = (int64_t)u;
    return true;
}

static bool decimal_value(const uint8_t *v, size_t n, int *scale, i128 *out)
{
    int prim = v[0] >> 2;
    int w = prim == VT_DECIMAL4 ? 4 : prim == VT_DECIMAL8 ? 8 : prim == VT_DECIMAL16 ? 16 : 0;
    if ((v[0] & 3) != VB_PRIMITIVE || !w || n != 2 + (size_t)w)
        return false;
    *scale = v[1];
    uint8_t bytes[16];
    memcpy(bytes, v + 2, (size_t)w);
    memset(bytes + w, (v[1 + w] & 0x80) ? 0xff : 0, (size_t)(16 - w));
    memcpy(out, bytes, 16);
    return true;
}

static bool fits_digits(i128 v, int digits)
{
    i128 limit = 1;
    for (int k = 0; k < digits; k++)
        limit *= 10;
    return v < limit && v > -limit;
}

/* The Variant primitive a leaf type holds exactly (timestamps, floats...). */
static int exact_primitive(const struct lake_column *c)
{
    switch (c->type) {
    case LT_FLOAT: return VT_FLOAT;
    case LT_DOUBLE: return VT_DOUBLE;
    case LT_DATE: return VT_DATE;
    case LT_TIME: return VT_TIME_NTZ;
    case LT_TIMESTAMP: return VT_TIMESTAMP_NTZ;
    case LT_TIMESTAMP_NS: return c->instant ? VT_TIMESTAMP_NANOS : VT_TIMESTAMP_NTZ_NANOS;
    case LT_TIMESTAMPTZ: return VT_TIMESTAMP;
    case LT_UUID: return VT_UUID;
    default: return -1;
    }
}

bool pq_variant_leaf_takes(const struct lake_column *c, const uint8_t *v, size_t n)
{
    if (n == 0)
        return false;
    int basic = v[0] & 3, prim = v[0] >> 2;
    switch (c->type) {
    case LT_BOOLEAN:
        return basic == VB_PRIMITIVE && (prim == VT_TRUE || prim == VT_FALSE) && n == 1;
    case LT_STRING:
        if (basic == VB_SHORT_STRING)
            return n == 1 + (size_t)prim;
        __attribute__((fallthrough));
    case LT_BINARY: {
        int want = c->type == LT_STRING ? VT_STRING : VT_BINARY;
        return basic == VB_PRIMITIVE && prim == want && n >= 5 && variant_get_le(v + 1, 4) == n - 5;
    }
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_LONG:
        if (c->precision == 0) {
            int64_t x;
            int bits = 8 * fixed_width(c);
            return int_value(v, n, &x) && (bits == 64 || (x >= -(INT64_C(1) << (bits - 1)) &&
                                                          x < (INT64_C(1) << (bits - 1))));
        }
        /* decimal4 and decimal8: their unscaled ints */
        __attribute__((fallthrough));
    case LT_DECIMAL: {
        int scale;
        i128 x;
        return decimal_value(v, n, &scale, &x) && scale == c->scale && fits_digits(x, c->precision);
    }
    default: {
        int want = exact_primitive(c);
        return want >= 0 && basic == VB_PRIMITIVE && prim == want &&
               n == 1 + (size_t)fixed_width(c);
    }
    }
}

/* Puts v into typed leaf b when its type is the leaf's; *taken says. */
static int typed_leaf(struct builder *b, const uint8_t *v, size_t n, bool *taken, struct error *err)
{
    const struct lake_column *c = b->col;
    *taken = pq_variant_leaf_takes(c, v, n);
    if (!*taken)
        return 0;
    switch (c->type) {
    case LT_BOOLEAN: return push_bool(b, (v[0] >> 2) == VT_TRUE, err);
    case LT_STRING:
        if ((v[0] & 3) == VB_SHORT_STRING)
            return push_bytes(b, v + 1, n - 1, err);
        __attribute__((fallthrough));
    case LT_BINARY: return push_bytes(b, v + 5, n - 5, err);
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_LONG:
        if (c->precision == 0) {
            int64_t x = 0;
            int_value(v, n, &x);
            return push_fixed(b, &x, err); /* little-endian: the low bytes */
        }
        __attribute__((fallthrough));
    case LT_DECIMAL: {
        int scale;
        i128 x = 0;
        decimal_value(v, n, &scale, &x);
        return push_fixed(b, &x, err);
    }
    default: return push_fixed(b, v + 1, err);
    }
}

/* ---- shredding ---- */

static int shred_group(struct builder *g, const struct variant_dict *d, const uint8_t *v, size_t n,
                       int depth, struct error *err);

/* A group with neither value nor typed_value: a missing object field. */
static int missing(struct builder *g, struct error *err)
{
    g->counts.missing++;
    if (push_valid(g, true, err) != 0)
        return -1;
    for (size_t i = 0; i < g->nkids; i++)
        if (push_null(&g->kids[i], err) != 0)
            return -1;
    return 0;
}

/* The residual object: the fields of c not shredded (keep[k]), in their
 * order, with their ids (of the row's dictionary). */
static int residual(const struct variant_container *c, const struct object_scratch *s,
                    struct buf *out, struct error *err)
{
    uint64_t n = 0, bytes = 0, max_id = 0;
    for (uint64_t k = 0; k < c->n; k++) {
        if (!s->keep[k])
            continue;
        uint64_t id = variant_get_le(c->ids + k * (size_t)c->id_size, c->id_size);
        max_id = id > max_id ? id : max_id;
        bytes += s->end[k] - offset_at(c, k);
        n++;
    }
    int id_size = max_id <= 0xff ? 1 : max_id <= 0xffff ? 2 : max_id <= 0xffffff ? 3 : 4;
    int off_size = bytes <= 0xff ? 1 : bytes <= 0xffff ? 2 : bytes <= 0xffffff ? 3 : 4;
    bool large = n > 0xff;
    size_t need = 1 + (large ? 4 : 1) + n * (size_t)(id_size + off_size) + (size_t)off_size + bytes;
    if (buf_reserve(out, need) != 0)
        return error_nomem(err);
    uint8_t *h = (uint8_t *)out->data + out->len;
    h[0] = (uint8_t)(VB_OBJECT | ((off_size - 1) | (id_size - 1) << 2 | (large ? 1 : 0) << 4) << 2);
    variant_put_le(h + 1, n, large ? 4 : 1);
    uint8_t *ids = h + 1 + (large ? 4 : 1);
    uint8_t *offs = ids + n * (size_t)id_size;
    uint8_t *data = offs + (n + 1) * (size_t)off_size;
    uint64_t at = 0, j = 0;
    for (uint64_t k = 0; k < c->n; k++) {
        if (!s->keep[k])
            continue;
        const uint8_t *p;
        size_t len;
        object_field(c, s, k, &p, &len);
        variant_put_le(ids + j * (size_t)id_size,
                       variant_get_le(c->ids + k * (size_t)c->id_size, c->id_size), id_size);
        variant_put_le(offs + j * (size_t)off_size, at, off_size);
        memcpy(data + at, p, len);
        at += len;
        j++;
    }
    variant_put_le(offs + n * (size_t)off_size, at, off_size);
    out->len += need;
    return 0;
}

/* Room in t's scratch for an object of n fields. */
static int scratch_reserve(struct object_scratch *s, uint64_t n, struct error *err)
{
    if (n <= s->cap)
        return 0;
    size_t cap = (size_t)n;
    bool *keep = realloc(s->keep, cap * sizeof *keep);
    if (keep)
        s->keep = keep;
    uint64_t *end = realloc(s->end, cap * sizeof *end);
    if (end)
        s->end = end;
    uint64_t *order = realloc(s->order, cap * sizeof *order);
    if (order)
        s->order = order;
    if (!keep || !end || !order)
        return error_nomem(err);
    s->cap = cap;
    return 0;
}

static int typed_object(struct builder *g, struct builder *t, const struct variant_dict *d,
                        const uint8_t *v, size_t n, int depth, struct error *err)
{
    struct variant_container c;
    struct object_scratch *s = &t->scratch;
    if (open_container(v, n, &c, err) != 0 || scratch_reserve(s, c.n, err) != 0 ||
        object_ends(&c, s, err) != 0)
        return -1;
    for (size_t f = 0; f < t->nkids; f++)
        s->field_of[f] = -1;
    uint64_t kept = 0;
    for (uint64_t k = 0; k < c.n; k++) {
        const char *name;
        size_t len;
        if (!variant_dict_key(d, variant_get_le(c.ids + k * (size_t)c.id_size, c.id_size), &name,
                              &len))
            return corrupt(err, "a field id past the dictionary");
        int64_t f = declared_field(t, name, len);
        s->keep[k] = f < 0;
        if (f >= 0)
            s->field_of[f] = (int64_t)k;
        kept += s->keep[k];
    }
    if (push_valid(t, true, err) != 0)
        return -1;
    for (size_t f = 0; f < t->nkids; f++) {
        if (s->field_of[f] < 0) {
            if (missing(&t->kids[f], err) != 0)
                return -1;
            continue;
        }
        const uint8_t *p;
        size_t len;
        object_field(&c, s, (uint64_t)s->field_of[f], &p, &len);
        if (shred_group(&t->kids[f], d, p, len, depth + 1, err) != 0)
            return -1;
    }
    struct builder *val = &g->kids[g->value];
    if (kept == 0)
        return push_null(val, err);
    size_t mark = val->data.len;
    if (push_valid(val, true, err) != 0 || residual(&c, s, &val->data, err) != 0) {
        val->data.len = mark;
        return -1;
    }
    return push_offset(val, val->data.len, err);
}

static int typed_array(struct builder *g, struct builder *t, const struct variant_dict *d,
                       const uint8_t *v, size_t n, int depth, struct error *err)
{
    struct variant_container c;
    if (open_container(v, n, &c, err) != 0)
        return -1;
    struct builder *el = &t->kids[0];
    for (uint64_t k = 0; k < c.n; k++) {
        const uint8_t *p = NULL;
        size_t len = 0;
        if (array_element(&c, k, &p, &len, err) != 0 ||
            shred_group(el, d, p, len, depth + 1, err) != 0)
            return -1;
    }
    if (push_valid(t, true, err) != 0 || push_offset(t, (size_t)el->len, err) != 0)
        return -1;
    return push_null(&g->kids[g->value], err);
}

/* Value v into group g: typed where its layout takes it, else in value. */
static int shred_group(struct builder *g, const struct variant_dict *d, const uint8_t *v, size_t n,
                       int depth, struct error *err)
{
    (void)depth; /* bounded by the layout's nesting (16 levels) */
    if (n == 0)
        return corrupt(err, "an empty value");
    bool is_group = g->col->type == LT_STRUCT; /* field and element groups have validity */
    if (is_group && push_valid(g, true, err) != 0)
        return -1;
    if (g->typed >= 0) {
        struct builder *t = &g->kids[g->typed];
        int basic = v[0] & 3;
        if (t->col->type == LT_STRUCT && basic == VB_OBJECT) {
            g->counts.typed++;
            return typed_object(g, t, d, v, n, depth, err);
        }
        if (t->col->type == LT_LIST && basic == VB_ARRAY) {
            g->counts.typed++;
            return typed_array(g, t, d, v, n, depth, err);
        }
        if (t->col->type != LT_STRUCT && t->col->type != LT_LIST) {
            bool taken;
            if (typed_leaf(t, v, n, &taken, err) != 0)
                return -1;
            if (taken) {
                g->counts.typed++;
                return push_null(&g->kids[g->value], err);
            }
        }
        if (push_null(t, err) != 0)
            return -1;
    }
    if (n == 1 && v[0] == VARIANT_PRIMITIVE(VT_NULL))
        g->counts.variant_null++;
    else
        g->counts.fallback++;
    return push_bytes(&g->kids[g->value], v, n, err);
}

static void bytes_of(const struct ArrowArray *a, int64_t i, const uint8_t **p, size_t *n)
{
    const int32_t *off = a->buffers[1];
    int64_t k = a->offset + i;
    *p = (const uint8_t *)(a->buffers[2] ? a->buffers[2] : "") + off[k];
    *n = (size_t)(off[k + 1] - off[k]);
}

/* The groups under builder g (g included when it is one), depth first. */
static bool is_group(const struct builder *g)
{
    return g->value >= 0 || g->typed >= 0;
}

static size_t add_counts(const struct builder *g, struct pq_shred_counts *out, size_t at)
{
    if (is_group(g)) {
        out[at].typed += g->counts.typed;
        out[at].fallback += g->counts.fallback;
        out[at].variant_null += g->counts.variant_null;
        out[at].missing += g->counts.missing;
        at++;
    }
    for (size_t i = 0; i < g->nkids; i++)
        at = add_counts(&g->kids[i], out, at);
    return at;
}

static size_t groups_of(const struct lake_column *c, bool group)
{
    size_t n = group;
    for (size_t i = 0; i < c->nchildren; i++)
        n += groups_of(c->children[i], !group && (c->type == LT_STRUCT || c->type == LT_LIST));
    return n;
}

size_t pq_variant_groups(const struct lake_column *v)
{
    return groups_of(v, true);
}

int pq_variant_shred(const struct lake_column *v, const struct ArrowArray *in, int64_t begin,
                     int64_t n, struct ArrowArray *out, struct pq_shred_counts *counts,
                     struct error *err)
{
    if (in->n_children != 2 || in->children[0]->n_buffers != 3 || in->children[1]->n_buffers != 3)
        return error_fail(err, ERR_INVALID, "column '%s': not a variant's unshredded storage",
                          v->name);
    struct builder top;
    if (builder_init(&top, v, true, err) != 0) {
        builder_free(&top);
        return -1;
    }
    const uint8_t *valid = in->n_buffers > 0 ? in->buffers[0] : NULL;
    int rc = 0;
    for (int64_t r = 0; r < n && rc == 0; r++) {
        int64_t i = begin + r;
        if (valid && in->null_count != 0 && !arrow_bit(valid, in->offset + i)) {
            rc = push_null(&top, err);
            continue;
        }
        const uint8_t *m, *val;
        size_t mn, vn;
        bytes_of(in->children[0], in->offset + i, &m, &mn);
        bytes_of(in->children[1], in->offset + i, &val, &vn);
        struct variant_dict d;
        rc = variant_dict_open(m, mn, &d, err);
        if (rc == 0)
            rc = push_valid(&top, true, err);
        if (rc == 0)
            rc = push_bytes(&top.kids[0], m, mn, err);
        if (rc == 0)
            rc = shred_group(&top, &d, val, vn, 0, err);
        if (rc != 0)
            error_prefix(err, "column '%s', row %lld", v->name, (long long)i);
    }
    if (rc == 0)
        rc = finish(&top, out, err);
    if (rc == 0 && counts)
        add_counts(&top, counts, 0);
    builder_free(&top);
    return rc;
}

static int field_schema(const struct lake_column *c, struct ArrowSchema *s)
{
    char fmt[32];
    const char *f = c->type == LT_VARIANT ? "+s" : pq_arrow_format_for(c, fmt, sizeof fmt);
    bool nested = c->type == LT_STRUCT || c->type == LT_VARIANT || c->type == LT_LIST;
    if (arrow_schema_init(s, f, c->name, c->nullable ? ARROW_FLAG_NULLABLE : 0,
                          nested ? (int64_t)c->nchildren : 0) != 0)
        return -1;
    for (size_t i = 0; nested && i < c->nchildren; i++)
        if (field_schema(c->children[i], s->children[i]) != 0)
            return -1;
    return 0;
}

int pq_variant_shred_schema(const struct lake_column *v, struct ArrowSchema *out)
{
    if (field_schema(v, out) != 0) {
        if (out->release)
            out->release(out);
        return -1;
    }
    return 0;
}

int pq_variant_storage_schema(const struct lake_column *c, struct ArrowSchema *out,
                              struct error *err)
{
    struct arena a;
    arena_init(&a, 0);
    struct lake_column copy = {.field_id = c->field_id,
                               .name = c->name,
                               .type = c->type,
                               .shredding = c->shredding,
                               .nullable = c->nullable};
    int rc = pq_variant_layout(&a, &copy, err);
    if (rc == 0 && pq_variant_shred_schema(&copy, out) != 0)
        rc = error_nomem(err);
    arena_free(&a);
    return rc;
}
