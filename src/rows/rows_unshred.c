#include "rows/rows_unshred.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arrow.h"
#include "variant/variant.h"
#include "variant/variant_format.h"

enum shape { SH_NONE, SH_PRIMITIVE, SH_ARRAY, SH_OBJECT };

/* One field of a rebuilt object: its name and value bytes. */
struct field {
    const char *name;
    size_t len;
    uint32_t id;
    const uint8_t *bytes; /* residual fields: in the row's value */
    size_t start, size;   /* shredded fields: in a scratch buffer */
};

struct span {
    uint64_t start;
    size_t index;
};

/* A {value, typed_value} group of the storage. */
struct group {
    int value, typed; /* child positions in the group's struct; -1: absent */
    bool value_large; /* value has 64-bit offsets */
    enum shape shape;
    uint8_t primitive; /* SH_PRIMITIVE: enum variant_primitive */
    int width;         /* its Arrow value width in bytes (0: variable) */
    int scale;         /* decimals */
    bool large;        /* strings, binaries and lists with 64-bit offsets */
    struct group *element;
    struct group *fields;
    char **names;
    size_t *name_lens;
    size_t nfields;
};

/* Scratch of one nesting depth, kept from row to row: a container's
 * fields (or element ends) and its shredded children's bytes. */
struct level {
    struct buf bytes;
    struct field *fields;
    struct span *spans;
    size_t cap; /* of fields and spans */
    size_t *ends;
    size_t ends_cap;
};

struct unshred_plan {
    int metadata;
    bool canonical_numbers; /* unshred_plan_canonical_numbers */
    bool metadata_large;
    struct group top;
    struct level **levels; /* by depth, each allocated once: callers hold them */
    size_t nlevels;
    /* names the row's dictionary lacks, kept from row to row */
    const char **extra;
    size_t *extra_len;
    size_t extra_cap;
};

/* ---- the plan ---- */

static void group_free(struct group *g)
{
    if (g->element) {
        group_free(g->element);
        free(g->element);
    }
    for (size_t i = 0; i < g->nfields; i++) {
        group_free(&g->fields[i]);
        free(g->names[i]);
    }
    free(g->fields);
    free(g->names);
    free(g->name_lens);
}

void unshred_plan_free(struct unshred_plan *p)
{
    if (!p)
        return;
    group_free(&p->top);
    for (size_t k = 0; k < p->nlevels; k++) {
        buf_free(&p->levels[k]->bytes);
        free(p->levels[k]->fields);
        free(p->levels[k]->spans);
        free(p->levels[k]->ends);
        free(p->levels[k]);
    }
    free(p->levels);
    free(p->extra);
    free(p->extra_len);
    free(p);
}

static int child_index(const struct ArrowSchema *s, const char *name)
{
    for (int64_t i = 0; i < s->n_children; i++)
        if (s->children[i]->name && strcmp(s->children[i]->name, name) == 0)
            return (int)i;
    return -1;
}

static bool binary_format(const char *f, bool *large)
{
    *large = strcmp(f, "Z") == 0;
    return *large || strcmp(f, "z") == 0;
}

static int plan_group(const struct ArrowSchema *s, struct group *g, const char *path, int depth,
                      struct error *err);

/* The Variant primitive a typed_value leaf's Arrow format stands for. */
static int plan_primitive(const char *f, struct group *g, const char *path, struct error *err)
{
    static const struct {
        const char *format;
        uint8_t primitive;
        int width;
    } map[] = {
        {"b", VT_TRUE, 0},
        {"c", VT_INT8, 1},
        {"s", VT_INT16, 2},
        {"i", VT_INT32, 4},
        {"l", VT_INT64, 8},
        {"f", VT_FLOAT, 4},
        {"g", VT_DOUBLE, 8},
        {"tdD", VT_DATE, 4},
        {"ttu", VT_TIME_NTZ, 8},
        {"tsu:", VT_TIMESTAMP_NTZ, 8},
        {"tsn:", VT_TIMESTAMP_NTZ_NANOS, 8},
        {"u", VT_STRING, 0},
        {"U", VT_STRING, 0},
        {"z", VT_BINARY, 0},
        {"Z", VT_BINARY, 0},
        {"w:16", VT_UUID, 16},
    };
    g->shape = SH_PRIMITIVE;
    g->large = strcmp(f, "U") == 0 || strcmp(f, "Z") == 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(f, map[i].format) == 0) {
            g->primitive = map[i].primitive;
            g->width = map[i].width;
            return 0;
        }
    }
    if (strncmp(f, "tsu:", 4) == 0 || strncmp(f, "tsn:", 4) == 0) { /* with a zone: UTC */
        g->primitive = f[2] == 'u' ? VT_TIMESTAMP : VT_TIMESTAMP_NANOS;
        g->width = 8;
        return 0;
    }
    int precision, scale, bits = 128;
    char tail;
    int n = sscanf(f, "d:%d,%d,%d%c", &precision, &scale, &bits, &tail);
    if ((n == 2 || n == 3) && bits == 128 && precision >= 1 && precision <= 38 && scale >= 0 &&
        scale <= precision) {
        g->primitive = precision <= 9 ? VT_DECIMAL4 : precision <= 18 ? VT_DECIMAL8 : VT_DECIMAL16;
        g->width = 16;
        g->scale = scale;
        return 0;
    }
    return error_fail_reason(
        err, ERR_INVALID, "variant_encoding",
        "%s: a typed_value of Arrow type '%s', which no Variant type shreds to", path, f);
}

static int plan_typed(const struct ArrowSchema *t, struct group *g, const char *path, int depth,
                      struct error *err)
{
    char sub[600];
    if (strcmp(t->format, "+l") == 0 || strcmp(t->format, "+L") == 0) {
        g->shape = SH_ARRAY;
        g->large = t->format[1] == 'L';
        if (t->n_children != 1 || !(g->element = calloc(1, sizeof *g->element)))
            return t->n_children != 1 ? error_fail(err, ERR_INVALID,
                                                   "%s: a list without its "
                                                   "element",
                                                   path)
                                      : error_nomem(err);
        snprintf(sub, sizeof sub, "%.500s[*]", path);
        return plan_group(t->children[0], g->element, sub, depth + 1, err);
    }
    if (strcmp(t->format, "+s") != 0)
        return plan_primitive(t->format, g, path, err);
    g->shape = SH_OBJECT;
    size_t n = (size_t)t->n_children;
    g->fields = calloc(n ? n : 1, sizeof *g->fields);
    g->names = calloc(n ? n : 1, sizeof *g->names);
    g->name_lens = calloc(n ? n : 1, sizeof *g->name_lens);
    if (!g->fields || !g->names || !g->name_lens)
        return error_nomem(err);
    for (size_t i = 0; i < n; i++) {
        const char *name = t->children[i]->name ? t->children[i]->name : "";
        g->nfields = i + 1;
        if (!(g->names[i] = strdup(name)))
            return error_nomem(err);
        g->name_lens[i] = strlen(name);
        snprintf(sub, sizeof sub, "%.300s.%.200s", path, name);
        if (plan_group(t->children[i], &g->fields[i], sub, depth + 1, err) != 0)
            return -1;
    }
    return 0;
}

static int plan_group(const struct ArrowSchema *s, struct group *g, const char *path, int depth,
                      struct error *err)
{
    g->value = g->typed = -1;
    if (depth > VARIANT_MAX_DEPTH)
        return error_fail_reason(err, ERR_INVALID, "nesting_too_deep",
                                 "%s: shredded more than %d levels deep", path, VARIANT_MAX_DEPTH);
    if (strcmp(s->format, "+s") != 0)
        return error_fail(err, ERR_INVALID, "%s: a shredded group that is not a struct", path);
    g->value = child_index(s, "value");
    g->typed = child_index(s, "typed_value");
    if (g->value >= 0 && !binary_format(s->children[g->value]->format, &g->value_large))
        return error_fail(err, ERR_INVALID, "%s: a value that is not binary", path);
    if (g->value < 0 && g->typed < 0)
        return error_fail(err, ERR_INVALID, "%s: a group with neither value nor typed_value", path);
    return g->typed >= 0 ? plan_typed(s->children[g->typed], g, path, depth, err) : 0;
}

struct unshred_plan *unshred_plan_new(const struct ArrowSchema *s, struct error *err)
{
    struct unshred_plan *p = calloc(1, sizeof *p);
    if (!p) {
        error_nomem(err);
        return NULL;
    }
    p->metadata = child_index(s, "metadata");
    if (p->metadata < 0 || !binary_format(s->children[p->metadata]->format, &p->metadata_large) ||
        plan_group(s, &p->top, "$", 0, err) != 0) {
        if (p->metadata < 0)
            error_fail(err, ERR_INVALID, "a VARIANT's storage without binary metadata");
        unshred_plan_free(p);
        return NULL;
    }
    return p;
}

void unshred_plan_canonical_numbers(struct unshred_plan *p)
{
    p->canonical_numbers = true;
}

/* ---- reading Arrow arrays (logical indexes: a->offset applied here) ---- */

static bool is_valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return !v || a->null_count == 0 || arrow_bit(v, a->offset + i);
}

static void bytes_of(const struct ArrowArray *a, bool large, int64_t i, const uint8_t **p,
                     size_t *n)
{
    int64_t k = a->offset + i, b, e;
    if (large) {
        b = ((const int64_t *)a->buffers[1])[k];
        e = ((const int64_t *)a->buffers[1])[k + 1];
    } else {
        b = ((const int32_t *)a->buffers[1])[k];
        e = ((const int32_t *)a->buffers[1])[k + 1];
    }
    *p = (const uint8_t *)(a->buffers[2] ? a->buffers[2] : "") + b;
    *n = (size_t)(e - b);
}

static void list_range(const struct ArrowArray *a, bool large, int64_t i, int64_t *b, int64_t *e)
{
    int64_t k = a->offset + i;
    if (large) {
        *b = ((const int64_t *)a->buffers[1])[k];
        *e = ((const int64_t *)a->buffers[1])[k + 1];
    } else {
        *b = ((const int32_t *)a->buffers[1])[k];
        *e = ((const int32_t *)a->buffers[1])[k + 1];
    }
}

/* ---- one row ---- */

struct row {
    struct unshred_plan *plan; /* its scratch */
    const uint8_t *meta;
    size_t meta_len;
    struct variant_dict dict;
    size_t nextra; /* names the row's dictionary lacks, appended to it (plan->extra) */
    struct error *err;
};

/* The scratch of depth d. */
static struct level *level_at(struct row *r, int depth)
{
    struct unshred_plan *p = r->plan;
    size_t d = (size_t)depth;
    if (d >= p->nlevels) {
        struct level **l = realloc(p->levels, (d + 1) * sizeof *l);
        if (!l)
            return NULL;
        p->levels = l;
        for (; p->nlevels <= d; p->nlevels++)
            if (!(l[p->nlevels] = calloc(1, sizeof **l)))
                return NULL;
    }
    return p->levels[d];
}

/* Room for n fields (and spans) in a level. */
static int level_fields(struct level *lv, size_t n)
{
    if (n <= lv->cap)
        return 0;
    size_t cap = n > 2 * lv->cap ? n : 2 * lv->cap;
    struct field *f = realloc(lv->fields, cap * sizeof *f);
    if (!f)
        return -1;
    lv->fields = f;
    struct span *s = realloc(lv->spans, cap * sizeof *s);
    if (!s)
        return -1;
    lv->spans = s;
    lv->cap = cap;
    return 0;
}

static int bad(struct row *r, const char *what)
{
    return error_fail_reason(r->err, ERR_INVALID, "variant_encoding", "shredded storage: %s", what);
}

/* The id of a name in the row's dictionary (with the names added), adding
 * it when absent. */
static int key_id(struct row *r, const char *name, size_t len, uint32_t *id)
{
    for (uint64_t k = 0; k < r->dict.n; k++) {
        const char *s;
        size_t n;
        if (variant_dict_key(&r->dict, k, &s, &n) && n == len && memcmp(s, name, len) == 0) {
            *id = (uint32_t)k;
            return 0;
        }
    }
    struct unshred_plan *p = r->plan;
    for (size_t k = 0; k < r->nextra; k++) {
        if (p->extra_len[k] == len && memcmp(p->extra[k], name, len) == 0) {
            *id = (uint32_t)r->dict.n + (uint32_t)k;
            return 0;
        }
    }
    if (r->nextra == p->extra_cap) {
        size_t cap = p->extra_cap ? 2 * p->extra_cap : 8;
        const char **e = realloc(p->extra, cap * sizeof *e);
        if (!e)
            return error_nomem(r->err);
        p->extra = e;
        size_t *l = realloc(p->extra_len, cap * sizeof *l);
        if (!l)
            return error_nomem(r->err);
        p->extra_len = l;
        p->extra_cap = cap;
    }
    p->extra[r->nextra] = name;
    p->extra_len[r->nextra] = len;
    *id = (uint32_t)r->dict.n + (uint32_t)r->nextra++;
    return 0;
}

/* The name of dictionary entry id (of the row's own dictionary). */
static int key_name(struct row *r, uint64_t id, const char **name, size_t *len)
{
    return variant_dict_key(&r->dict, id, name, len) ? 0 : bad(r, "a field id past the dictionary");
}

static int width_for(uint64_t max)
{
    return max <= 0xff ? 1 : max <= 0xffff ? 2 : max <= 0xffffff ? 3 : 4;
}

/* An int leaf's value as the smallest of int8/16/32/64 that holds it, as
 * the encoder spells it (the shredder takes an integer of any width that
 * fits the leaf). */
static int canonical_int(struct row *r, const struct group *g, const uint8_t *fixed,
                         struct buf *out)
{
    uint64_t u = variant_get_le(fixed, g->width);
    if (g->width < 8 && (u >> (8 * g->width - 1)) & 1)
        u |= ~UINT64_C(0) << (8 * g->width);
    int64_t x = (int64_t)u;
    int w = x >= INT8_MIN && x <= INT8_MAX     ? 1
            : x >= INT16_MIN && x <= INT16_MAX ? 2
            : x >= INT32_MIN && x <= INT32_MAX ? 4
                                               : 8;
    uint8_t head[9];
    head[0] = VARIANT_PRIMITIVE(w == 1   ? VT_INT8
                                : w == 2 ? VT_INT16
                                : w == 4 ? VT_INT32
                                         : VT_INT64);
    variant_put_le(head + 1, u, w);
    return buf_append(out, head, 1 + (size_t)w) == 0 ? 0 : error_nomem(r->err);
}

__extension__ typedef __int128 i128;

/* The narrowest decimal width whose precision (9, 18, 38) holds v. */
static int decimal_bytes(i128 v)
{
    i128 e9 = 1000000000, e18 = e9 * e9;
    return v < e9 && v > -e9 ? 4 : v < e18 && v > -e18 ? 8 : 16;
}

static int typed_primitive(struct row *r, const struct group *g, const struct ArrowArray *a,
                           int64_t i, struct buf *out)
{
    uint8_t head[18];
    size_t n = 1;
    const uint8_t *fixed =
        g->width ? (const uint8_t *)a->buffers[1] + (size_t)(a->offset + i) * (size_t)g->width
                 : NULL;
    if (r->plan->canonical_numbers && g->primitive >= VT_INT8 && g->primitive <= VT_INT64)
        return canonical_int(r, g, fixed, out);
    switch (g->primitive) {
    case VT_TRUE: {
        bool v = arrow_bit(a->buffers[1], a->offset + i);
        head[0] = VARIANT_PRIMITIVE(v ? VT_TRUE : VT_FALSE);
        return buf_append(out, head, 1) == 0 ? 0 : error_nomem(r->err);
    }
    case VT_STRING:
    case VT_BINARY: {
        const uint8_t *p;
        size_t len;
        bytes_of(a, g->large, i, &p, &len);
        if (len > UINT32_MAX)
            return bad(r, "a value past 4 GiB");
        if (g->primitive == VT_STRING && len < VARIANT_SHORT_STRING_MAX) {
            head[0] = (uint8_t)(VB_SHORT_STRING | len << 2);
        } else {
            head[0] = VARIANT_PRIMITIVE(g->primitive);
            variant_put_le(head + 1, len, 4);
            n = 5;
        }
        if (buf_append(out, head, n) != 0 || buf_append(out, p, len) != 0)
            return error_nomem(r->err);
        return 0;
    }
    case VT_DECIMAL4:
    case VT_DECIMAL8:
    case VT_DECIMAL16: {
        __extension__ __int128 v;
        memcpy(&v, fixed, 16);
        int w = r->plan->canonical_numbers    ? decimal_bytes(v)
                : g->primitive == VT_DECIMAL4 ? 4
                : g->primitive == VT_DECIMAL8 ? 8
                                              : 16;
        if ((w == 4 && (v < INT32_MIN || v > INT32_MAX)) ||
            (w == 8 && (v < INT64_MIN || v > INT64_MAX)))
            return bad(r, "a decimal past its precision");
        head[0] = VARIANT_PRIMITIVE(w == 4 ? VT_DECIMAL4 : w == 8 ? VT_DECIMAL8 : VT_DECIMAL16);
        head[1] = (uint8_t)g->scale;
        memcpy(head + 2, fixed, (size_t)w); /* little-endian: the low bytes */
        n = 2 + (size_t)w;
        break;
    }
    default:
        head[0] = VARIANT_PRIMITIVE(g->primitive);
        memcpy(head + 1, fixed, (size_t)g->width);
        n = 1 + (size_t)g->width;
    }
    return buf_append(out, head, n) == 0 ? 0 : error_nomem(r->err);
}

static int group_value(struct row *r, const struct group *g, const struct ArrowArray *a, int64_t i,
                       int depth, bool *missing, struct buf *out);

/* A container's header, then its ids (objects) and offsets: the values
 * (total bytes) follow. */
static uint8_t *container_head(struct row *r, bool object, uint32_t max_id, size_t n, size_t total,
                               struct buf *out, int *off_size, int *id_size)
{
    *id_size = object ? width_for(max_id) : 0;
    *off_size = width_for(total);
    bool large = n > 0xff;
    uint8_t header = (uint8_t)((*off_size - 1) | (large ? 1 : 0) << (object ? 4 : 2));
    if (object)
        header = (uint8_t)(header | (*id_size - 1) << 2);
    size_t need = 1 + (large ? 4 : 1) + n * (size_t)*id_size + (n + 1) * (size_t)*off_size + total;
    if (buf_reserve(out, need) != 0) {
        error_nomem(r->err);
        return NULL;
    }
    uint8_t *p = (uint8_t *)out->data + out->len;
    out->len += need;
    *p++ = (uint8_t)((object ? VB_OBJECT : VB_ARRAY) | header << 2);
    variant_put_le(p, n, large ? 4 : 1);
    return p + (large ? 4 : 1);
}

static int typed_array(struct row *r, const struct group *g, const struct ArrowArray *a, int64_t i,
                       int depth, struct buf *out)
{
    int64_t b, e;
    list_range(a, g->large, i, &b, &e);
    size_t n = (size_t)(e - b);
    struct level *lv = level_at(r, depth);
    if (!lv)
        return error_nomem(r->err);
    if (n > lv->ends_cap) {
        size_t *ends = realloc(lv->ends, n * sizeof *ends);
        if (!ends)
            return error_nomem(r->err);
        lv->ends = ends;
        lv->ends_cap = n;
    }
    buf_reset(&lv->bytes);
    for (size_t k = 0; k < n; k++) {
        bool missing;
        if (group_value(r, g->element, a->children[0], b + (int64_t)k, depth + 1, &missing,
                        &lv->bytes) != 0)
            return -1;
        if (missing)
            return bad(r, "an array element with neither value nor typed_value");
        lv->ends[k] = lv->bytes.len;
    }
    int off_size, id_size;
    uint8_t *p = container_head(r, false, 0, n, lv->bytes.len, out, &off_size, &id_size);
    if (!p)
        return -1;
    variant_put_le(p, 0, off_size);
    p += off_size;
    for (size_t k = 0; k < n; k++, p += off_size)
        variant_put_le(p, lv->ends[k], off_size);
    if (lv->bytes.len)
        memcpy(p, lv->bytes.data, lv->bytes.len);
    return 0;
}

static int cmp_field(const void *x, const void *y)
{
    const struct field *a = x, *b = y;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int cmp_span(const void *x, const void *y)
{
    const struct span *a = x, *b = y;
    return (a->start > b->start) - (a->start < b->start);
}

/* The fields of a residual object (value bytes v) into lv's fields. */
static int residual_fields(struct row *r, struct level *lv, const uint8_t *v, size_t len,
                           size_t extra, size_t *n)
{
    *n = 0;
    if (len < 2 || (v[0] & 3) != VB_OBJECT)
        return bad(r, "a value beside a shredded object that is not an object");
    int vh = v[0] >> 2;
    int off_size = (vh & 3) + 1, id_size = ((vh >> 2) & 3) + 1;
    size_t count_size = (vh >> 4) & 1 ? 4 : 1;
    if (len < 1 + count_size)
        return bad(r, "a truncated object");
    uint64_t count = variant_get_le(v + 1, (int)count_size);
    size_t head = 1 + count_size;
    if (count > (len - head) / (size_t)(id_size + off_size))
        return bad(r, "an object with more fields than bytes");
    const uint8_t *ids = v + head, *offs = ids + count * (size_t)id_size;
    const uint8_t *data = offs + (count + 1) * (size_t)off_size;
    if ((size_t)(data - v) > len)
        return bad(r, "a truncated object");
    size_t avail = len - (size_t)(data - v);
    uint64_t total = variant_get_le(offs + count * (size_t)off_size, off_size);
    if (total > avail)
        return bad(r, "an object's values past its end");
    if (level_fields(lv, (size_t)count + extra) != 0)
        return error_nomem(r->err);
    struct field *f = lv->fields;
    struct span *sp = lv->spans;
    for (size_t k = 0; k < count; k++) {
        uint64_t id = variant_get_le(ids + k * (size_t)id_size, id_size);
        sp[k].start = variant_get_le(offs + k * (size_t)off_size, off_size);
        sp[k].index = k;
        f[k] = (struct field){.id = (uint32_t)id};
        if (key_name(r, id, &f[k].name, &f[k].len) != 0)
            return -1;
        if (sp[k].start >= total)
            return bad(r, "an object's field offset past its values");
    }
    /* Each value ends where the next one up begins (the decoder checks
     * that they tile). */
    qsort(sp, count, sizeof *sp, cmp_span);
    for (size_t k = 0; k < count; k++) {
        uint64_t end = k + 1 < count ? sp[k + 1].start : total;
        f[sp[k].index].bytes = data + sp[k].start;
        f[sp[k].index].size = (size_t)(end - sp[k].start);
    }
    *n = count;
    return 0;
}

static int typed_object(struct row *r, const struct group *g, const struct ArrowArray *a, int64_t i,
                        const uint8_t *residual, size_t residual_len, int depth, struct buf *out)
{
    struct level *lv = level_at(r, depth);
    if (!lv)
        return error_nomem(r->err);
    size_t nrest = 0;
    if (residual) {
        if (residual_fields(r, lv, residual, residual_len, g->nfields, &nrest) != 0)
            return -1;
    } else if (level_fields(lv, g->nfields) != 0) {
        return error_nomem(r->err);
    }
    buf_reset(&lv->bytes);
    size_t n = nrest;
    for (size_t k = 0; k < g->nfields; k++) {
        for (size_t j = 0; j < nrest; j++)
            if (lv->fields[j].len == g->name_lens[k] &&
                memcmp(lv->fields[j].name, g->names[k], g->name_lens[k]) == 0)
                return bad(r, "a value that repeats a shredded field");
        bool missing;
        size_t start = lv->bytes.len;
        if (group_value(r, &g->fields[k], a->children[k], a->offset + i, depth + 1, &missing,
                        &lv->bytes) != 0)
            return -1;
        if (missing)
            continue;
        lv->fields[n] = (struct field){.name = g->names[k],
                                       .len = g->name_lens[k],
                                       .start = start,
                                       .size = lv->bytes.len - start};
        if (key_id(r, g->names[k], g->name_lens[k], &lv->fields[n].id) != 0)
            return -1;
        n++;
    }
    qsort(lv->fields, n, sizeof *lv->fields, cmp_field);
    uint32_t max_id = 0;
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        max_id = lv->fields[k].id > max_id ? lv->fields[k].id : max_id;
        total += lv->fields[k].size;
    }
    int off_size, id_size;
    uint8_t *p = container_head(r, true, max_id, n, total, out, &off_size, &id_size);
    if (!p)
        return -1;
    for (size_t k = 0; k < n; k++, p += id_size)
        variant_put_le(p, lv->fields[k].id, id_size);
    uint8_t *offs = p, *data = p + (n + 1) * (size_t)off_size;
    size_t at = 0;
    for (size_t k = 0; k < n; k++) {
        const struct field *f = &lv->fields[k];
        variant_put_le(offs + k * (size_t)off_size, at, off_size);
        memcpy(data + at, f->bytes ? f->bytes : (const uint8_t *)lv->bytes.data + f->start,
               f->size);
        at += f->size;
    }
    variant_put_le(offs + n * (size_t)off_size, at, off_size);
    return 0;
}

/* The Variant of group g at row i of its struct array a (*missing when it
 * holds neither value nor typed_value, or is a null group). */
static int group_value(struct row *r, const struct group *g, const struct ArrowArray *a, int64_t i,
                       int depth, bool *missing, struct buf *out)
{
    *missing = false;
    if (depth > VARIANT_MAX_DEPTH)
        return error_fail_reason(r->err, ERR_INVALID, "nesting_too_deep",
                                 "a value nested more than %d levels deep", VARIANT_MAX_DEPTH);
    if (!is_valid(a, i)) {
        *missing = true; /* DuckDB's optional groups: a missing field */
        return 0;
    }
    int64_t k = a->offset + i;
    const struct ArrowArray *va = g->value >= 0 ? a->children[g->value] : NULL;
    const struct ArrowArray *ta = g->typed >= 0 ? a->children[g->typed] : NULL;
    bool has_value = va && is_valid(va, k);
    bool has_typed = ta && is_valid(ta, k);
    const uint8_t *v = NULL;
    size_t vlen = 0;
    if (has_value)
        bytes_of(va, g->value_large, k, &v, &vlen);
    if (!has_typed) {
        if (!has_value) {
            *missing = true;
            return 0;
        }
        return buf_append(out, v, vlen) == 0 ? 0 : error_nomem(r->err);
    }
    switch (g->shape) {
    case SH_OBJECT: return typed_object(r, g, ta, k, v, vlen, depth, out);
    case SH_ARRAY:
        if (has_value)
            return bad(r, "both a value and a typed array");
        return typed_array(r, g, ta, k, depth, out);
    case SH_PRIMITIVE:
        if (has_value)
            return bad(r, "both a value and a typed primitive");
        return typed_primitive(r, g, ta, k, out);
    case SH_NONE: break;
    }
    return bad(r, "a typed_value the plan does not know");
}

/* The row's dictionary with the added names: unsorted from then on. */
static int write_metadata(struct row *r, struct buf *out)
{
    if (r->nextra == 0)
        return buf_append(out, r->meta, r->meta_len) == 0 ? 0 : error_nomem(r->err);
    uint64_t old_end = variant_dict_offset(&r->dict, r->dict.n);
    uint64_t total = old_end;
    for (size_t k = 0; k < r->nextra; k++)
        total += r->plan->extra_len[k];
    uint64_t n = r->dict.n + r->nextra;
    int off_size = width_for(total > n ? total : n);
    size_t need = 1 + (size_t)off_size * (n + 2) + (size_t)total;
    if (buf_reserve(out, need) != 0)
        return error_nomem(r->err);
    uint8_t *p = (uint8_t *)out->data + out->len;
    *p++ = (uint8_t)(VARIANT_VERSION | (off_size - 1) << 6);
    variant_put_le(p, n, off_size);
    p += off_size;
    for (uint64_t k = 0; k <= r->dict.n; k++, p += off_size)
        variant_put_le(p, variant_dict_offset(&r->dict, k), off_size);
    uint64_t at = old_end;
    for (size_t k = 0; k < r->nextra; k++, p += off_size) {
        at += r->plan->extra_len[k];
        variant_put_le(p, at, off_size);
    }
    memcpy(p, r->dict.strings, (size_t)old_end);
    p += old_end;
    for (size_t k = 0; k < r->nextra; k++) {
        memcpy(p, r->plan->extra[k], r->plan->extra_len[k]);
        p += r->plan->extra_len[k];
    }
    out->len += need;
    return 0;
}

int unshred_row(struct unshred_plan *p, const struct ArrowArray *a, int64_t i, struct buf *metadata,
                struct buf *value, struct error *err)
{
    struct row r = {.plan = p, .err = err};
    bytes_of(a->children[p->metadata], p->metadata_large, a->offset + i, &r.meta, &r.meta_len);
    size_t mark = value->len;
    bool missing;
    int rc = variant_dict_open(r.meta, r.meta_len, &r.dict, err);
    if (rc == 0)
        rc = group_value(&r, &p->top, a, i, 0, &missing, value);
    if (rc == 0 && missing)
        rc = bad(&r, "a row with neither value nor typed_value");
    if (rc == 0)
        rc = write_metadata(&r, metadata);
    if (rc != 0)
        value->len = mark;
    return rc;
}
