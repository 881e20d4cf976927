/* verify for variant storage: see rows_variant_verify.h. The storage is
 * walked group by group for the rules that live in its shape (null
 * groups, placement, residuals), each value cell checked in place; then
 * the row is rebuilt whole (rows_unshred.c, numbers spelled as the encoder
 * spells them) and checked as one Variant. */
#include "rows/rows_variant_verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/variant_layout.h"
#include "parquet/variant_shred.h"
#include "parquet/writer.h"
#include "rows/rows_unshred.h"
#include "util/arena.h"
#include "util/arrow.h"
#include "util/buf.h"
#include "variant/access.h"
#include "variant/variant_format.h"
#include "variant/verify.h"

enum { PATH_BYTES = 512 };

enum group_kind { G_TOP, G_FIELD, G_ELEMENT };

struct verify_ctx {
    const struct rows_variant_verify_options *o;
    int64_t row;
    const uint8_t *meta;
    size_t meta_len;
    struct variant_dict dict;
    char path[PATH_BYTES];
    size_t path_len;
    struct error *err;
};

/* ---- paths ---- */

/* Appends sep and name (cut short when too long: a message, not a key);
 * returns the length to restore. */
static size_t path_push(char *path, size_t *len, const char *sep, const char *name)
{
    size_t mark = *len;
    int n = snprintf(path + mark, PATH_BYTES - mark, "%s%s", sep, name);
    if (n > 0)
        *len = mark + (size_t)n < PATH_BYTES ? mark + (size_t)n : PATH_BYTES - 1;
    return mark;
}

static void path_pop(char *path, size_t *len, size_t mark)
{
    *len = mark;
    path[mark] = '\0';
}

/* ---- the form ---- */

/* Whether Arrow format f stores laid-out column c: its own format, the
 * large spelling of the same layout, or for a decimal4/decimal8 leaf (an
 * int or long with a precision) the decimal it reads back as. */
static bool format_matches(const struct lake_column *c, const char *f)
{
    char want[32];
    if (strcmp(pq_arrow_format_for(c, want, sizeof want), f) == 0)
        return true;
    if ((c->type == LT_BINARY && strcmp(f, "Z") == 0) ||
        (c->type == LT_STRING && strcmp(f, "U") == 0) ||
        (c->type == LT_LIST && strcmp(f, "+L") == 0))
        return true;
    if ((c->type != LT_INT && c->type != LT_LONG) || c->precision == 0)
        return false;
    int precision, scale, bits = 128;
    char tail;
    int n = sscanf(f, "d:%d,%d,%d%c", &precision, &scale, &bits, &tail);
    return (n == 2 || n == 3) && precision == c->precision && scale == c->scale &&
           (bits == 128 || bits == (c->type == LT_INT ? 32 : 64));
}

/* The refusal: head (where, and the rule) then what, formatted. */
static int refuse(struct error *err, const char *reason, const char *head, const char *tail,
                  const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static int refuse(struct error *err, const char *reason, const char *head, const char *tail,
                  const char *fmt, va_list ap)
{
    char what[256];
    vsnprintf(what, sizeof what, fmt, ap);
    return error_fail_reason(err, ERR_INVALID, reason, "%s%s%s", head, what, tail);
}

static int form_fault(struct error *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int form_fault(struct error *err, const char *path, const char *fmt, ...)
{
    char head[PATH_BYTES + 32];
    snprintf(head, sizeof head, "storage field %s: ", path);
    va_list ap;
    va_start(ap, fmt);
    int rc = refuse(err, "invalid_shredding", head, ", not the declaration's layout", fmt, ap);
    va_end(ap);
    return rc;
}

/* Storage field s (at path) against laid-out column c: type, nullability
 * and children, names included (a list's element by position). */
static int form_node(const struct lake_column *c, const struct ArrowSchema *s, char *path,
                     size_t *len, bool top, struct error *err)
{
    char want[32];
    if (!format_matches(c, s->format))
        return form_fault(err, path, "has Arrow type '%s' where the layout has '%s'", s->format,
                          pq_arrow_format_for(c, want, sizeof want));
    if (!top && ((s->flags & ARROW_FLAG_NULLABLE) != 0) != c->nullable)
        return form_fault(err, path, "is %s where the layout has it %s",
                          s->flags & ARROW_FLAG_NULLABLE ? "optional" : "required",
                          c->nullable ? "optional" : "required");
    if ((size_t)s->n_children != c->nchildren)
        return form_fault(err, path, "has %lld fields where the layout has %zu",
                          (long long)s->n_children, c->nchildren);
    for (size_t i = 0; i < c->nchildren; i++) {
        const char *name = s->children[i]->name ? s->children[i]->name : "";
        if (c->type != LT_LIST && strcmp(name, c->children[i]->name) != 0)
            return form_fault(err, path, "has field '%s' where the layout has '%s'", name,
                              c->children[i]->name);
        size_t mark = path_push(path, len, ".", c->children[i]->name);
        if (form_node(c->children[i], s->children[i], path, len, false, err) != 0)
            return -1;
        path_pop(path, len, mark);
    }
    return 0;
}

static int check_form(const struct ArrowSchema *s, const char *shredding, struct error *err)
{
    struct arena a;
    arena_init(&a, 0);
    struct lake_column col = {
        .name = s->name ? s->name : "", .type = LT_VARIANT, .shredding = shredding};
    char path[PATH_BYTES];
    size_t len = 0;
    path_push(path, &len, "", s->name && *s->name ? s->name : "(storage)");
    int rc = pq_variant_layout(&a, &col, err);
    if (rc == 0)
        rc = form_node(&col, s, path, &len, true, err);
    arena_free(&a);
    return rc;
}

/* ---- reading the storage (logical indexes; each array's offset added) ---- */

static bool is_valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return !v || a->null_count == 0 || arrow_bit(v, a->offset + i);
}

/* Element i's [begin, end) of a binary or list array (large: 64-bit). */
static void range_of(const struct ArrowArray *a, bool large, int64_t i, int64_t *b, int64_t *e)
{
    int64_t k = a->offset + i;
    *b = large ? ((const int64_t *)a->buffers[1])[k] : ((const int32_t *)a->buffers[1])[k];
    *e = large ? ((const int64_t *)a->buffers[1])[k + 1] : ((const int32_t *)a->buffers[1])[k + 1];
}

static void bytes_at(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                     const uint8_t **p, size_t *n)
{
    int64_t b, e;
    range_of(a, strcmp(s->format, "Z") == 0, i, &b, &e);
    *p = (const uint8_t *)(a->buffers[2] ? a->buffers[2] : "") + b;
    *n = (size_t)(e - b);
}

static int child_index(const struct ArrowSchema *s, const char *name)
{
    for (int64_t i = 0; i < s->n_children; i++)
        if (s->children[i]->name && strcmp(s->children[i]->name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- faults ---- */

static int fault(struct verify_ctx *x, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fault(struct verify_ctx *x, const char *rule, const char *fmt, ...)
{
    char head[PATH_BYTES + 96];
    snprintf(head, sizeof head, "row %lld, %s: %s: ", (long long)x->row, x->path, rule);
    va_list ap;
    va_start(ap, fmt);
    int rc = refuse(x->err, "variant_encoding", head, "", fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- placement ---- */

/* The laid-out column a typed_value leaf of Arrow format f stands for, as
 * pq_variant_leaf_takes reads it; false for a format no leaf has. */
static bool leaf_column(const char *f, struct lake_column *c)
{
    static const struct {
        const char *format;
        enum lake_type type;
    } map[] = {
        {"b", LT_BOOLEAN}, {"c", LT_INT8},         {"s", LT_INT16},           {"i", LT_INT},
        {"l", LT_LONG},    {"f", LT_FLOAT},        {"g", LT_DOUBLE},          {"tdD", LT_DATE},
        {"ttu", LT_TIME},  {"tsu:", LT_TIMESTAMP}, {"tsn:", LT_TIMESTAMP_NS}, {"u", LT_STRING},
        {"U", LT_STRING},  {"z", LT_BINARY},       {"Z", LT_BINARY},          {"w:16", LT_UUID},
    };
    *c = (struct lake_column){.name = "typed_value"};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(f, map[i].format) == 0) {
            c->type = map[i].type;
            return true;
        }
    if (strncmp(f, "tsu:", 4) == 0 || strncmp(f, "tsn:", 4) == 0) { /* with a zone: an instant */
        c->type = f[2] == 'u' ? LT_TIMESTAMPTZ : LT_TIMESTAMP_NS;
        c->instant = true;
        return true;
    }
    int precision, scale, bits = 128;
    char tail;
    int n = sscanf(f, "d:%d,%d,%d%c", &precision, &scale, &bits, &tail);
    if (n != 2 && n != 3)
        return false;
    c->type = LT_DECIMAL;
    c->precision = precision;
    c->scale = scale;
    return true;
}

/* A value left in value where its group's typed_value t would take it. */
static int misplaced(struct verify_ctx *x, const struct ArrowSchema *t, const uint8_t *v, size_t n)
{
    int basic = n ? v[0] & 3 : -1;
    if (strcmp(t->format, "+s") == 0)
        return basic == VB_OBJECT
                   ? fault(x, "misplaced",
                           "an object left in value, which its shredded object takes")
                   : 0;
    if (strcmp(t->format, "+l") == 0 || strcmp(t->format, "+L") == 0)
        return basic == VB_ARRAY
                   ? fault(x, "misplaced", "an array left in value, which its shredded array takes")
                   : 0;
    struct lake_column leaf;
    if (leaf_column(t->format, &leaf) && pq_variant_leaf_takes(&leaf, v, n))
        return fault(x, "misplaced", "a value left in value, which its typed_value ('%s') takes",
                     t->format);
    return 0;
}

/* ---- the groups ---- */

static int group(struct verify_ctx *x, const struct ArrowSchema *s, const struct ArrowArray *a,
                 int64_t i, enum group_kind kind);

/* The residual object beside shredded object t: an object, not empty (the
 * writer writes none), naming no shredded field. */
static int residual(struct verify_ctx *x, const struct ArrowSchema *t, const uint8_t *v, size_t n)
{
    struct variant_container c;
    if (n == 0 || (v[0] & 3) != VB_OBJECT || !variant_container_open(v, n, &c))
        return fault(x, "value_beside_typed",
                     "a value beside a shredded object that is not an object");
    if (c.n == 0)
        return fault(x, "residual_empty", "an empty residual object (the writer writes none)");
    for (uint64_t k = 0; k < c.n; k++) {
        const char *key;
        size_t key_len;
        if (!variant_dict_key(&x->dict, variant_get_le(c.ids + k * (size_t)c.id_size, c.id_size),
                              &key, &key_len))
            return fault(x, "value_beside_typed", "a residual field id past the dictionary");
        for (int64_t f = 0; f < t->n_children; f++) {
            const char *name = t->children[f]->name ? t->children[f]->name : "";
            if (strlen(name) == key_len && memcmp(name, key, key_len) == 0)
                return fault(x, "residual_repeats", "the residual repeats shredded field '%s'",
                             name);
        }
    }
    return 0;
}

static int typed_object(struct verify_ctx *x, const struct ArrowSchema *t,
                        const struct ArrowArray *ta, int64_t k)
{
    for (int64_t f = 0; f < t->n_children; f++) {
        size_t mark = path_push(x->path, &x->path_len, ".", t->children[f]->name);
        if (group(x, t->children[f], ta->children[f], ta->offset + k, G_FIELD) != 0)
            return -1;
        path_pop(x->path, &x->path_len, mark);
    }
    return 0;
}

static int typed_array(struct verify_ctx *x, const struct ArrowSchema *t,
                       const struct ArrowArray *ta, int64_t k)
{
    int64_t b, e;
    range_of(ta, t->format[1] == 'L', k, &b, &e);
    for (int64_t j = b; j < e; j++) {
        char step[32];
        snprintf(step, sizeof step, "[%lld]", (long long)(j - b));
        size_t mark = path_push(x->path, &x->path_len, "", step);
        if (group(x, t->children[0], ta->children[0], j, G_ELEMENT) != 0)
            return -1;
        path_pop(x->path, &x->path_len, mark);
    }
    return 0;
}

/* One value cell, checked in place as a part of the row. */
static int value_cell(struct verify_ctx *x, const uint8_t *v, size_t n)
{
    if (variant_verify_part(x->meta, x->meta_len, v, n, x->o->canonical, x->path, x->err) != 0)
        return error_prefix(x->err, "row %lld", (long long)x->row);
    return 0;
}

static int group(struct verify_ctx *x, const struct ArrowSchema *s, const struct ArrowArray *a,
                 int64_t i, enum group_kind kind)
{
    if (kind != G_TOP && !is_valid(a, i))
        return fault(x, "null_group",
                     "a null %s group (write one with neither value nor typed_value)",
                     kind == G_FIELD ? "field" : "element");
    int vi = child_index(s, "value"), ti = child_index(s, "typed_value");
    int64_t k = a->offset + i;
    bool has_value = vi >= 0 && is_valid(a->children[vi], k);
    bool has_typed = ti >= 0 && is_valid(a->children[ti], k);
    if (!has_value && !has_typed) {
        if (kind == G_TOP)
            return fault(x, "missing_value", "neither value nor typed_value in a row not SQL NULL");
        return kind == G_ELEMENT ? fault(x, "missing_element",
                                         "an array element with neither value nor typed_value")
                                 : 0; /* a missing field */
    }
    const uint8_t *v = NULL;
    size_t n = 0;
    if (has_value) {
        bytes_at(s->children[vi], a->children[vi], k, &v, &n);
        if (value_cell(x, v, n) != 0)
            return -1;
    }
    if (!has_typed)
        return ti >= 0 ? misplaced(x, s->children[ti], v, n) : 0;
    const struct ArrowSchema *t = s->children[ti];
    const struct ArrowArray *ta = a->children[ti];
    if (strcmp(t->format, "+s") == 0)
        return (has_value ? residual(x, t, v, n) : 0) != 0 ? -1 : typed_object(x, t, ta, k);
    if (has_value)
        return fault(x, "value_beside_typed", "a value beside a typed %s",
                     t->format[0] == '+' ? "array" : "primitive");
    return t->format[0] == '+' ? typed_array(x, t, ta, k) : 0;
}

/* ---- rows ---- */

/* The row rebuilt whole: its dictionary already holding every shredded
 * name, and the Variant passing verify. */
static int whole_row(struct verify_ctx *x, struct unshred_plan *plan, const struct ArrowArray *a,
                     int64_t i, struct buf *meta, struct buf *value)
{
    buf_reset(meta);
    buf_reset(value);
    if (unshred_row(plan, a, i, meta, value, x->err) != 0)
        return error_prefix(x->err, "row %lld", (long long)x->row);
    if (meta->len != x->meta_len || memcmp(meta->data, x->meta, x->meta_len) != 0)
        return fault(x, "key_not_in_dictionary",
                     "a shredded field's name is missing from the row's dictionary");
    if (variant_verify((const uint8_t *)meta->data, meta->len, (const uint8_t *)value->data,
                       value->len, x->o->canonical, x->err) != 0)
        return error_prefix(x->err, "row %lld", (long long)x->row);
    return 0;
}

static int one_row(struct verify_ctx *x, const struct ArrowSchema *s, const struct ArrowArray *a,
                   int64_t i, int mi, struct unshred_plan *plan, struct buf *meta,
                   struct buf *value)
{
    path_pop(x->path, &x->path_len, 0);
    path_push(x->path, &x->path_len, "", "$");
    if (!is_valid(a, i)) {
        if (x->o->not_null)
            return error_fail_reason(x->err, ERR_INVALID, "not_null",
                                     "row %lld: SQL NULL in a NOT NULL variant column",
                                     (long long)x->row);
        return 0;
    }
    bytes_at(s->children[mi], a->children[mi], a->offset + i, &x->meta, &x->meta_len);
    if (variant_dict_open(x->meta, x->meta_len, &x->dict, x->err) != 0)
        return error_prefix(x->err, "row %lld", (long long)x->row);
    if (group(x, s, a, i, G_TOP) != 0)
        return -1;
    return whole_row(x, plan, a, i, meta, value);
}

int rows_variant_verify(const struct ArrowSchema *s, const struct ArrowArray *a,
                        const struct rows_variant_verify_options *o, struct error *err)
{
    if (o->check_form && check_form(s, o->shredding, err) != 0)
        return -1;
    int mi = child_index(s, "metadata");
    struct unshred_plan *plan = unshred_plan_new(s, err);
    if (!plan)
        return -1;
    if (mi < 0 ||
        (strcmp(s->children[mi]->format, "z") != 0 && strcmp(s->children[mi]->format, "Z") != 0)) {
        unshred_plan_free(plan);
        return error_fail(err, ERR_INVALID, "a VARIANT's storage without binary metadata");
    }
    unshred_plan_canonical_numbers(plan);
    struct verify_ctx x = {.o = o, .err = err};
    struct buf meta = BUF_INIT, value = BUF_INIT;
    int rc = 0;
    for (int64_t i = 0; i < a->length && rc == 0; i++) {
        x.row = o->first_row + i;
        rc = one_row(&x, s, a, i, mi, plan, &meta, &value);
    }
    buf_free(&meta);
    buf_free(&value);
    unshred_plan_free(plan);
    return rc;
}
