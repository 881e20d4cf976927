#include "rows/rows_sort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/types.h"
#include "util/arrow.h"
#include "util/hash.h"

/* ---- formats ---- */

enum kind {
    K_BOOL,
    K_INT,   /* signed, 1/2/4/8 bytes: integers, dates, times, timestamps */
    K_UINT,  /* unsigned, 1/2/4/8 bytes */
    K_FLOAT, /* 4 bytes */
    K_DOUBLE,
    K_DEC128,
    K_FIXED, /* w:N */
    K_BYTES32,
    K_BYTES64,
    K_STRUCT,
    K_LIST32,
    K_LIST64,
    K_MAP,
};

struct fmt {
    enum kind kind;
    int width; /* bytes per value of the fixed-width kinds */
};

static bool is_nested(enum kind k)
{
    return k >= K_STRUCT;
}

/* The formats named by whole strings (timestamps, with any zone, below). */
static const struct named_format {
    const char *name;
    struct fmt f;
} named_formats[] = {
    {"b", {K_BOOL, 0}},    {"c", {K_INT, 1}},     {"s", {K_INT, 2}},     {"i", {K_INT, 4}},
    {"l", {K_INT, 8}},     {"C", {K_UINT, 1}},    {"S", {K_UINT, 2}},    {"I", {K_UINT, 4}},
    {"L", {K_UINT, 8}},    {"f", {K_FLOAT, 4}},   {"g", {K_DOUBLE, 8}},  {"u", {K_BYTES32, 0}},
    {"z", {K_BYTES32, 0}}, {"U", {K_BYTES64, 0}}, {"Z", {K_BYTES64, 0}}, {"tdD", {K_INT, 4}},
    {"tdm", {K_INT, 8}},   {"tts", {K_INT, 4}},   {"ttm", {K_INT, 4}},   {"ttu", {K_INT, 8}},
    {"ttn", {K_INT, 8}},   {"+s", {K_STRUCT, 0}}, {"+l", {K_LIST32, 0}}, {"+L", {K_LIST64, 0}},
    {"+m", {K_MAP, 0}},
};

/* Classifies an Arrow format string; false for one this module does not
 * handle. */
static bool parse_format(const char *f, struct fmt *out)
{
    if (!f)
        return false;
    for (size_t i = 0; i < sizeof named_formats / sizeof *named_formats; i++)
        if (strcmp(f, named_formats[i].name) == 0) {
            *out = named_formats[i].f;
            return true;
        }
    if (strncmp(f, "ts", 2) == 0 && f[2] && strchr("smun", f[2]) && f[3] == ':') {
        *out = (struct fmt){K_INT, 8};
        return true;
    }
    if (strncmp(f, "d:", 2) == 0) {
        int p, s, bits = 128;
        char tail;
        int got = sscanf(f, "d:%d,%d,%d%c", &p, &s, &bits, &tail);
        *out = (struct fmt){K_DEC128, 16};
        return (got == 2 || got == 3) && bits == 128;
    }
    if (strncmp(f, "w:", 2) == 0) {
        char *end;
        long w = strtol(f + 2, &end, 10);
        *out = (struct fmt){K_FIXED, (int)(w > 0 && w <= INT32_MAX ? w : 0)};
        return end != f + 2 && !*end && out->width > 0;
    }
    return false;
}

static int64_t buffers_for(enum kind k)
{
    switch (k) {
    case K_STRUCT: return 1;
    case K_BYTES32:
    case K_BYTES64: return 3;
    default: return 2;
    }
}

static const char *name_of(const struct ArrowSchema *s)
{
    return s->name ? s->name : "";
}

/* Checks one node of one batch against its schema node: buffer and child
 * counts, value buffers present, and room for `need` logical slots. */
static int check_node(const struct ArrowSchema *s, const struct fmt *f, const struct ArrowArray *a,
                      int64_t need, const char *path, struct error *err)
{
    int64_t kids = f->kind == K_STRUCT ? s->n_children : is_nested(f->kind) ? 1 : 0;
    if (!a || a->length < 0 || a->offset < 0 || a->null_count < -1 ||
        a->n_buffers != buffers_for(f->kind) || a->n_children != kids || s->n_children != kids ||
        (kids && !a->children) || (a->n_buffers && !a->buffers))
        return error_fail(err, ERR_INVALID, "column '%s': malformed Arrow array", path);
    if (a->length < need)
        return error_fail(err, ERR_INVALID,
                          "column '%s': the array is shorter than its parent (%lld < %lld)", path,
                          (long long)a->length, (long long)need);
    if (a->length > 0)
        for (int64_t b = 1; b < a->n_buffers; b++)
            if (!a->buffers[b])
                return error_fail(err, ERR_INVALID, "column '%s': buffer %lld is missing", path,
                                  (long long)b);
    for (int64_t i = 0; i < kids; i++)
        if (!a->children[i] || !s->children[i])
            return error_fail(err, ERR_INVALID, "column '%s': a child is missing", path);
    return 0;
}

static const uint8_t *validity_of(const struct ArrowArray *a)
{
    return a->null_count != 0 ? a->buffers[0] : NULL;
}

/* Offset i (physical) of a variable-width or list array. */
static int64_t offset_at(const struct ArrowArray *a, bool large, int64_t i)
{
    return large ? ((const int64_t *)a->buffers[1])[i] : ((const int32_t *)a->buffers[1])[i];
}

/* ---- take ---- */

/* A slot of one batch's array at some level: `idx` is the logical index
 * into batch `batch`'s array (its own offset not yet added). */
struct sel {
    uint32_t batch;
    int64_t idx;
};

struct take_ctx {
    size_t nbatches;
    struct error *err;
};

static int take_node(struct take_ctx *c, const struct ArrowSchema *s,
                     const struct ArrowArray *const *arrs, const struct sel *sel, size_t n,
                     const char *path, struct ArrowArray *out);

static int no_memory(struct take_ctx *c, const char *path)
{
    return error_fail(c->err, ERR_NOMEM, "column '%s': out of memory", path);
}

/* Takes child `k` of every batch's array at this level for the slots
 * `sel` (indices into the child). */
static int take_child(struct take_ctx *c, const struct ArrowSchema *s, int64_t k,
                      const struct ArrowArray *const *arrs, const struct sel *sel, size_t n,
                      const char *path, struct ArrowArray *out)
{
    const struct ArrowArray **kids = malloc((c->nbatches ? c->nbatches : 1) * sizeof *kids);
    if (!kids)
        return no_memory(c, path);
    for (size_t b = 0; b < c->nbatches; b++)
        kids[b] = arrs[b]->children[k];
    char kp[512];
    snprintf(kp, sizeof kp, "%.250s.%.250s", path, name_of(s->children[k]));
    int rc = take_node(c, s->children[k], kids, sel, n, kp, out);
    free(kids);
    return rc;
}

/* The validity of the taken slots into out's buffer 0 (none when all are
 * valid). */
static int take_validity(struct take_ctx *c, const struct ArrowArray *const *arrs,
                         const struct sel *sel, size_t n, const char *path, struct ArrowArray *out)
{
    uint8_t *bits = malloc(n / 8 + 1);
    if (!bits)
        return no_memory(c, path);
    memset(bits, 0xff, n / 8 + 1);
    int64_t nulls = 0;
    for (size_t i = 0; i < n; i++) {
        const struct ArrowArray *a = arrs[sel[i].batch];
        const uint8_t *v = validity_of(a);
        if (v && !arrow_bit(v, a->offset + sel[i].idx)) {
            arrow_set_bit(bits, (int64_t)i, false);
            nulls++;
        }
    }
    out->null_count = nulls;
    if (nulls)
        arrow_array_own_buffer(out, 0, bits);
    else
        free(bits);
    return 0;
}

/* Copies each selected slot's `width` bytes into v, in selection order. */
static inline void gather(uint8_t *v, const struct ArrowArray *const *arrs, const struct sel *sel,
                          size_t n, size_t width)
{
    for (size_t i = 0; i < n; i++) {
        const struct ArrowArray *a = arrs[sel[i].batch];
        const uint8_t *src =
            (const uint8_t *)a->buffers[1] + (size_t)(a->offset + sel[i].idx) * width;
        memcpy(v + i * width, src, width);
    }
}

static int take_fixed(struct take_ctx *c, const struct ArrowArray *const *arrs,
                      const struct sel *sel, size_t n, size_t width, const char *path,
                      struct ArrowArray *out)
{
    if (width && n > (SIZE_MAX - 1) / width)
        return error_fail(c->err, ERR_LIMIT, "column '%s': too many rows", path);
    uint8_t *v = malloc(n * width + 1);
    if (!v)
        return no_memory(c, path);
    arrow_array_own_buffer(out, 1, v);
    /* The common widths get their own loop: a copy of a constant size is
     * a move, not a call (a take is bound by these copies). */
    switch (width) {
    case 4: gather(v, arrs, sel, n, 4); break;
    case 8: gather(v, arrs, sel, n, 8); break;
    case 16: gather(v, arrs, sel, n, 16); break;
    default: gather(v, arrs, sel, n, width); break;
    }
    return 0;
}

static int take_bool(struct take_ctx *c, const struct ArrowArray *const *arrs,
                     const struct sel *sel, size_t n, const char *path, struct ArrowArray *out)
{
    uint8_t *v = calloc(n / 8 + 1, 1);
    if (!v)
        return no_memory(c, path);
    arrow_array_own_buffer(out, 1, v);
    for (size_t i = 0; i < n; i++) {
        const struct ArrowArray *a = arrs[sel[i].batch];
        if (arrow_bit(a->buffers[1], a->offset + sel[i].idx))
            arrow_set_bit(v, (int64_t)i, true);
    }
    return 0;
}

/* Slot i's [begin, end) in its array's offsets, checked. Null slots of
 * lists read as empty so that their (unspecified) ranges are not copied. */
static int slot_range(struct take_ctx *c, const struct ArrowArray *a, bool large, int64_t idx,
                      bool skip_nulls, const char *path, int64_t *begin, int64_t *end)
{
    int64_t p = a->offset + idx;
    const uint8_t *v = validity_of(a);
    if (skip_nulls && v && !arrow_bit(v, p)) {
        *begin = *end = 0;
        return 0;
    }
    *begin = offset_at(a, large, p);
    *end = offset_at(a, large, p + 1);
    if (*begin < 0 || *end < *begin)
        return error_fail(c->err, ERR_INVALID, "column '%s': offsets are not increasing", path);
    return 0;
}

/* New offsets for the taken slots; *total is the sum of their lengths. */
static int take_offsets(struct take_ctx *c, const struct ArrowArray *const *arrs,
                        const struct sel *sel, size_t n, bool large, bool skip_nulls,
                        const char *path, struct ArrowArray *out, int64_t *total)
{
    void *offs = malloc((n + 1) * (large ? 8 : 4));
    if (!offs)
        return no_memory(c, path);
    arrow_array_own_buffer(out, 1, offs);
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t b, e;
        int rc = slot_range(c, arrs[sel[i].batch], large, sel[i].idx, skip_nulls, path, &b, &e);
        if (rc != 0)
            return rc;
        if (large)
            ((int64_t *)offs)[i] = sum;
        else
            ((int32_t *)offs)[i] = (int32_t)sum;
        sum += e - b;
        if (!large && sum > INT32_MAX)
            return error_fail(c->err, ERR_LIMIT,
                              "column '%s': the taken rows exceed 32-bit offsets", path);
    }
    if (large)
        ((int64_t *)offs)[n] = sum;
    else
        ((int32_t *)offs)[n] = (int32_t)sum;
    *total = sum;
    return 0;
}

static int take_bytes(struct take_ctx *c, const struct ArrowArray *const *arrs,
                      const struct sel *sel, size_t n, bool large, const char *path,
                      struct ArrowArray *out)
{
    int64_t total;
    int rc = take_offsets(c, arrs, sel, n, large, false, path, out, &total);
    if (rc != 0)
        return rc;
    uint8_t *data = malloc((size_t)total + 1);
    if (!data)
        return no_memory(c, path);
    arrow_array_own_buffer(out, 2, data);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const struct ArrowArray *a = arrs[sel[i].batch];
        int64_t p = a->offset + sel[i].idx;
        int64_t b = offset_at(a, large, p), e = offset_at(a, large, p + 1);
        memcpy(data + at, (const uint8_t *)a->buffers[2] + b, (size_t)(e - b));
        at += (size_t)(e - b);
    }
    return 0;
}

static int take_struct(struct take_ctx *c, const struct ArrowSchema *s,
                       const struct ArrowArray *const *arrs, const struct sel *sel, size_t n,
                       const char *path, struct ArrowArray *out)
{
    /* A struct's slot i is slot offset + i of each child. */
    struct sel *ks = malloc((n ? n : 1) * sizeof *ks);
    if (!ks)
        return no_memory(c, path);
    for (size_t i = 0; i < n; i++) {
        ks[i].batch = sel[i].batch;
        ks[i].idx = arrs[sel[i].batch]->offset + sel[i].idx;
    }
    int rc = 0;
    for (int64_t k = 0; k < s->n_children && rc == 0; k++)
        rc = take_child(c, s, k, arrs, ks, n, path, out->children[k]);
    free(ks);
    return rc;
}

static int take_list(struct take_ctx *c, const struct ArrowSchema *s,
                     const struct ArrowArray *const *arrs, const struct sel *sel, size_t n,
                     bool large, const char *path, struct ArrowArray *out)
{
    int64_t total;
    int rc = take_offsets(c, arrs, sel, n, large, true, path, out, &total);
    if (rc != 0)
        return rc;
    struct sel *ks = malloc((size_t)(total ? total : 1) * sizeof *ks);
    if (!ks)
        return no_memory(c, path);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t b, e;
        slot_range(c, arrs[sel[i].batch], large, sel[i].idx, true, path, &b, &e);
        for (int64_t j = b; j < e; j++)
            ks[at++] = (struct sel){sel[i].batch, j};
    }
    rc = take_child(c, s, 0, arrs, ks, at, path, out->children[0]);
    free(ks);
    return rc;
}

static int take_node(struct take_ctx *c, const struct ArrowSchema *s,
                     const struct ArrowArray *const *arrs, const struct sel *sel, size_t n,
                     const char *path, struct ArrowArray *out)
{
    struct fmt f;
    if (!parse_format(s->format, &f))
        return error_fail(c->err, ERR_INVALID, "column '%s': unsupported Arrow format '%s'", path,
                          s->format ? s->format : "");
    if (f.kind == K_MAP &&
        (s->n_children != 1 || !s->children[0]->format ||
         strcmp(s->children[0]->format, "+s") != 0 || s->children[0]->n_children != 2))
        return error_fail(c->err, ERR_INVALID,
                          "column '%s': a map's entries must be a struct of key and value", path);
    for (size_t b = 0; b < c->nbatches; b++) {
        int rc = check_node(s, &f, arrs[b], 0, path, c->err);
        if (rc != 0)
            return rc;
    }
    for (size_t i = 0; i < n; i++)
        if (sel[i].idx < 0 || sel[i].idx >= arrs[sel[i].batch]->length)
            return error_fail(c->err, ERR_INVALID,
                              "column '%s': slot %lld is past the array's %lld", path,
                              (long long)sel[i].idx, (long long)arrs[sel[i].batch]->length);
    int64_t kids = f.kind == K_STRUCT ? s->n_children : is_nested(f.kind) ? 1 : 0;
    if (arrow_array_init(out, buffers_for(f.kind), kids) != 0)
        return no_memory(c, path);
    out->length = (int64_t)n;
    int rc = take_validity(c, arrs, sel, n, path, out);
    if (rc == 0) {
        switch (f.kind) {
        case K_BOOL: rc = take_bool(c, arrs, sel, n, path, out); break;
        case K_BYTES32:
        case K_BYTES64: rc = take_bytes(c, arrs, sel, n, f.kind == K_BYTES64, path, out); break;
        case K_STRUCT: rc = take_struct(c, s, arrs, sel, n, path, out); break;
        case K_LIST32:
        case K_LIST64:
        case K_MAP: rc = take_list(c, s, arrs, sel, n, f.kind == K_LIST64, path, out); break;
        default: rc = take_fixed(c, arrs, sel, n, (size_t)f.width, path, out);
        }
    }
    if (rc != 0)
        out->release(out);
    return rc;
}

/* The top-level struct: its checks and the columns' slots for refs. */
static int check_batches(const struct ArrowSchema *schema, const struct ArrowArray *const *batches,
                         size_t nbatches, struct error *err)
{
    if (!schema || !schema->format || strcmp(schema->format, "+s") != 0 || (nbatches && !batches) ||
        nbatches > UINT32_MAX)
        return error_fail(err, ERR_INVALID, "the schema is not a struct of columns");
    struct fmt f = {K_STRUCT, 0};
    for (size_t b = 0; b < nbatches; b++)
        if (check_node(schema, &f, batches[b], 0, "", err) != 0)
            return error_prefix(err, "batch %zu", b);
    return 0;
}

static int check_refs(const struct ArrowArray *const *batches, size_t nbatches,
                      const struct rows_ref *refs, size_t n, struct error *err)
{
    if (n && !refs)
        return error_fail(err, ERR_INVALID, "no references");
    for (size_t i = 0; i < n; i++)
        if (refs[i].batch >= nbatches || refs[i].row >= batches[refs[i].batch]->length)
            return error_fail(err, ERR_INVALID, "reference %zu (batch %u, row %u) is out of range",
                              i, refs[i].batch, refs[i].row);
    return 0;
}

int rows_take(const struct ArrowSchema *schema, const struct ArrowArray *const *batches,
              size_t nbatches, const struct rows_ref *refs, size_t n, struct ArrowArray *out,
              struct error *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_batches(schema, batches, nbatches, err);
    if (rc == 0)
        rc = check_refs(batches, nbatches, refs, n, err);
    if (rc != 0)
        return rc;
    struct take_ctx c = {nbatches, err};
    struct sel *sel = malloc((n ? n : 1) * sizeof *sel);
    if (!sel || arrow_array_init(out, 1, schema->n_children) != 0) {
        free(sel);
        return no_memory(&c, "");
    }
    out->length = (int64_t)n;
    for (size_t i = 0; i < n; i++) {
        sel[i].batch = refs[i].batch;
        sel[i].idx = batches[refs[i].batch]->offset + refs[i].row;
    }
    for (int64_t k = 0; k < schema->n_children && rc == 0; k++) {
        const struct ArrowArray **cols = malloc((nbatches ? nbatches : 1) * sizeof *cols);
        if (!cols) {
            rc = no_memory(&c, name_of(schema->children[k]));
            break;
        }
        for (size_t b = 0; b < nbatches; b++)
            cols[b] = batches[b]->children[k];
        rc = take_node(&c, schema->children[k], cols, sel, n, name_of(schema->children[k]),
                       out->children[k]);
        free(cols);
    }
    free(sel);
    if (rc != 0)
        out->release(out);
    return rc;
}

/* ---- sort ---- */

/* One key's column in one batch, ready for row access: the value at row r
 * sits at physical slot r + add; it is null when any level's validity
 * (struct parents, then the leaf) is clear at r + lv_add[k]. */
struct key_view {
    const uint8_t *values; /* values or offsets */
    const uint8_t *data;   /* variable-width bytes */
    int64_t add;
    int nlv;
    const uint8_t *lv_bits[ROWS_SORT_MAX_DEPTH + 1];
    int64_t lv_add[ROWS_SORT_MAX_DEPTH + 1];
};

struct key_spec {
    struct fmt f;
    bool descending;
    bool nulls_first;
};

struct sorter {
    const struct key_spec *specs;
    const struct key_view *views; /* [key * nbatches + batch] */
    size_t nkeys, nbatches;
};

/* Resolves key k's path for every batch (checking arrays on the way). */
static int resolve_key(const struct ArrowSchema *schema, const struct ArrowArray *const *batches,
                       size_t nbatches, const struct rows_sort_key *key, struct key_spec *spec,
                       struct key_view *views, struct error *err)
{
    if (key->depth < 1 || key->depth > ROWS_SORT_MAX_DEPTH)
        return error_fail(err, ERR_NOT_FOUND, "a sort key's path has depth %d", key->depth);
    /* Find the leaf in the schema first: its path and format. */
    const struct ArrowSchema *s = schema;
    char path[512] = "";
    size_t plen = 0;
    for (int d = 0; d < key->depth; d++) {
        struct fmt pf;
        if (d > 0 && (!parse_format(s->format, &pf) || pf.kind != K_STRUCT))
            return error_fail(err, ERR_UNSUPPORTED,
                              "sort key '%s': only struct fields can be followed into", path);
        if (key->path[d] < 0 || key->path[d] >= s->n_children)
            return error_fail(err, ERR_NOT_FOUND, "sort key: '%s' has no field %d",
                              d ? path : "the schema", key->path[d]);
        s = s->children[key->path[d]];
        plen +=
            (size_t)snprintf(path + plen, sizeof path - plen, "%s%.100s", d ? "." : "", name_of(s));
        if (plen >= sizeof path)
            plen = sizeof path - 1;
    }
    if (!parse_format(s->format, &spec->f))
        return error_fail(err, ERR_INVALID, "sort key '%s': unsupported format '%s'", path,
                          s->format ? s->format : "");
    if (is_nested(spec->f.kind))
        return error_fail(err, ERR_UNSUPPORTED, "sort key '%s' is a %s, which has no order", path,
                          spec->f.kind == K_STRUCT ? "struct"
                          : spec->f.kind == K_MAP  ? "map"
                                                   : "list");
    spec->descending = key->descending;
    spec->nulls_first = key->nulls_first;
    for (size_t b = 0; b < nbatches; b++) {
        struct key_view *v = &views[b];
        memset(v, 0, sizeof *v);
        const struct ArrowArray *a = batches[b];
        const struct ArrowSchema *ns = schema;
        /* Row r of the batch is logical slot batch.offset + r of a column;
         * each level adds its own offset. */
        int64_t add = a->offset, need = a->offset + a->length;
        for (int d = 0; d < key->depth; d++) {
            const struct ArrowArray *kid = a->children[key->path[d]];
            ns = ns->children[key->path[d]];
            struct fmt nf;
            parse_format(ns->format, &nf);
            int rc = check_node(ns, &nf, kid, need, path, err);
            if (rc != 0)
                return rc;
            add += kid->offset;
            need = kid->offset + kid->length;
            if (validity_of(kid)) {
                v->lv_bits[v->nlv] = validity_of(kid);
                v->lv_add[v->nlv++] = add;
            }
            a = kid;
        }
        v->values = a->buffers[1];
        v->data = spec->f.kind == K_BYTES32 || spec->f.kind == K_BYTES64 ? a->buffers[2] : NULL;
        v->add = add;
        if (v->data)
            for (int64_t i = a->offset; i < a->offset + a->length; i++)
                if (offset_at(a, spec->f.kind == K_BYTES64, i) < 0 ||
                    offset_at(a, spec->f.kind == K_BYTES64, i + 1) <
                        offset_at(a, spec->f.kind == K_BYTES64, i))
                    return error_fail(err, ERR_INVALID, "sort key '%s': offsets are not increasing",
                                      path);
    }
    return 0;
}

int rows_sort_key_for_field(const struct lake_table *t, const struct lake_sort_field *field,
                            struct rows_sort_key *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    const struct lake_column *c = lake_table_find_field(t, field->source_field_id);
    if (!c)
        return error_fail(err, ERR_NOT_FOUND, "sort key: the table has no field %lld",
                          (long long)field->source_field_id);
    char path[512];
    lake_column_path(c, path, sizeof path);
    if (c->type == LT_STRUCT || c->type == LT_LIST || c->type == LT_MAP)
        return error_fail(err, ERR_UNSUPPORTED, "sort key '%s' is a %s, which has no order", path,
                          lake_type_name(c->type));
    /* Index steps from the leaf up, then reversed. */
    int depth = 0;
    for (const struct lake_column *k = c; k && k != &t->root; k = k->parent) {
        const struct lake_column *up = k->parent ? k->parent : &t->root;
        if (up->type == LT_LIST || up->type == LT_MAP)
            return error_fail(err, ERR_UNSUPPORTED,
                              "sort key '%s' is inside a %s, which has no order", path,
                              lake_type_name(up->type));
        size_t i = 0;
        while (i < up->nchildren && up->children[i] != k)
            i++;
        if (i == up->nchildren || depth == ROWS_SORT_MAX_DEPTH)
            return error_fail(err, ERR_NOT_FOUND, "sort key '%s': no usable path", path);
        out->path[depth++] = (int)i;
    }
    for (int i = 0; i < depth / 2; i++) {
        int x = out->path[i];
        out->path[i] = out->path[depth - 1 - i];
        out->path[depth - 1 - i] = x;
    }
    out->depth = depth;
    out->descending = field->descending;
    out->nulls_first = field->nulls_first;
    return 0;
}

static bool view_null(const struct key_view *v, int64_t r)
{
    for (int k = 0; k < v->nlv; k++)
        if (!arrow_bit(v->lv_bits[k], r + v->lv_add[k]))
            return true;
    return false;
}

static uint64_t load_unsigned(const uint8_t *p, int width)
{
    switch (width) {
    case 1: return p[0];
    case 2: {
        uint16_t x;
        memcpy(&x, p, 2);
        return x;
    }
    case 4: {
        uint32_t x;
        memcpy(&x, p, 4);
        return x;
    }
    default: {
        uint64_t x;
        memcpy(&x, p, 8);
        return x;
    }
    }
}

static int64_t load_signed(const uint8_t *p, int width)
{
    uint64_t u = load_unsigned(p, width);
    switch (width) {
    case 1: return (int8_t)u;
    case 2: return (int16_t)u;
    case 4: return (int32_t)u;
    default: return (int64_t)u;
    }
}

/* A double as an unsigned integer in the float order above: negatives'
 * bits inverted, positives' sign bit set, every NaN the largest. */
static uint64_t double_order(double d)
{
    if (isnan(d))
        return UINT64_MAX;
    uint64_t u;
    memcpy(&u, &d, 8);
    return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static double float_at(const uint8_t *p, enum kind k)
{
    if (k == K_FLOAT) {
        float x;
        memcpy(&x, p, 4);
        return x;
    }
    double x;
    memcpy(&x, p, 8);
    return x;
}

/* The bytes of a string, binary or fixed-size binary value. */
static void bytes_at(const struct key_view *v, const struct fmt *f, int64_t r, const uint8_t **p,
                     size_t *n)
{
    int64_t i = r + v->add, b, e;
    if (f->kind == K_FIXED) {
        *p = v->values + (size_t)i * (size_t)f->width;
        *n = (size_t)f->width;
        return;
    }
    if (f->kind == K_BYTES64) {
        const int64_t *o = (const int64_t *)v->values;
        b = o[i];
        e = o[i + 1];
    } else {
        const int32_t *o = (const int32_t *)v->values;
        b = o[i];
        e = o[i + 1];
    }
    *p = v->data + b;
    *n = (size_t)(e - b);
}

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* The ascending order of two non-null values. */
static int cmp_values(const struct fmt *f, const struct key_view *va, int64_t ra,
                      const struct key_view *vb, int64_t rb)
{
    size_t w = (size_t)f->width;
    const uint8_t *pa = va->values + (size_t)(ra + va->add) * w;
    const uint8_t *pb = vb->values + (size_t)(rb + vb->add) * w;
    switch (f->kind) {
    case K_BOOL: {
        bool x = arrow_bit(va->values, ra + va->add), y = arrow_bit(vb->values, rb + vb->add);
        return CMP(x, y);
    }
    case K_INT: {
        int64_t x = load_signed(pa, f->width), y = load_signed(pb, f->width);
        return CMP(x, y);
    }
    case K_UINT: {
        uint64_t x = load_unsigned(pa, f->width), y = load_unsigned(pb, f->width);
        return CMP(x, y);
    }
    case K_FLOAT:
    case K_DOUBLE: {
        uint64_t x = double_order(float_at(pa, f->kind)), y = double_order(float_at(pb, f->kind));
        return CMP(x, y);
    }
    case K_DEC128: {
        /* Little-endian two's complement: the high word signed. */
        int64_t xh = load_signed(pa + 8, 8), yh = load_signed(pb + 8, 8);
        if (xh != yh)
            return CMP(xh, yh);
        uint64_t xl = load_unsigned(pa, 8), yl = load_unsigned(pb, 8);
        return CMP(xl, yl);
    }
    default: {
        const uint8_t *x, *y;
        size_t nx, ny;
        bytes_at(va, f, ra, &x, &nx);
        bytes_at(vb, f, rb, &y, &ny);
        int c = memcmp(x, y, nx < ny ? nx : ny);
        return c ? CMP(c, 0) : CMP(nx, ny);
    }
    }
}

/* Key k's order of two rows, nulls placed and direction applied. */
static int cmp_key(const struct sorter *s, size_t k, struct rows_ref a, struct rows_ref b)
{
    const struct key_spec *sp = &s->specs[k];
    const struct key_view *va = &s->views[k * s->nbatches + a.batch];
    const struct key_view *vb = &s->views[k * s->nbatches + b.batch];
    bool na = view_null(va, a.row), nb = view_null(vb, b.row);
    if (na || nb)
        return na == nb ? 0 : (na ? -1 : 1) * (sp->nulls_first ? 1 : -1);
    return sp->descending ? cmp_values(&sp->f, vb, b.row, va, a.row)
                          : cmp_values(&sp->f, va, a.row, vb, b.row);
}

/* ---- sort keys squeezed into words ----
 *
 * Each row carries, for its first WORDS keys, a null bit and a 64-bit word
 * that orders as the key's values do (direction applied), so that most
 * comparisons touch no column data. A word is exact when equal words mean
 * equal values; a row whose word is not (a long string, a wide decimal)
 * has its inexact bit set and ties are settled on the values.
 *
 * Strings and binary drop the bytes every value of the sort shares (their
 * common prefix: "session-", "2024-"...), then take the next bytes. */

enum { WORDS = 3 };

struct entry {
    uint64_t w[WORDS];
    uint32_t nulls;   /* bit k: key k is null */
    uint32_t inexact; /* bit k: equal words of key k need the values compared */
    struct rows_ref ref;
};

/* What a word of a key holds. */
enum word_mode {
    W_NUMBER,    /* an exact order-preserving integer of the value */
    W_DEC_WIDE,  /* a decimal's high word: exact only with equal low words */
    W_BYTES_EQ,  /* every value has the same length, at most 8 past the prefix: exact */
    W_BYTES_LEN, /* 7 bytes past the prefix, then the remaining length capped at 8 */
};

struct key_words {
    enum word_mode mode;
    size_t skip; /* leading bytes every value shares */
};

/* Chooses a key's word mode from its values in refs (a pass over them). */
static void plan_words(const struct sorter *s, size_t k, const struct rows_ref *refs, size_t n,
                       struct key_words *kw)
{
    const struct key_spec *sp = &s->specs[k];
    kw->mode = W_NUMBER;
    kw->skip = 0;
    bool bytes = sp->f.kind == K_FIXED || sp->f.kind == K_BYTES32 || sp->f.kind == K_BYTES64;
    if (!bytes && sp->f.kind != K_DEC128)
        return;
    const uint8_t *first = NULL;
    size_t first_len = 0, common = 0;
    bool same_len = true;
    for (size_t i = 0; i < n; i++) {
        const struct key_view *v = &s->views[k * s->nbatches + refs[i].batch];
        if (view_null(v, refs[i].row))
            continue;
        if (!bytes) {
            /* A decimal fits its low word when the high word only extends
             * the low word's sign. */
            const uint8_t *p = v->values + (size_t)(refs[i].row + v->add) * 16;
            if (load_signed(p + 8, 8) != (load_signed(p, 8) < 0 ? -1 : 0)) {
                kw->mode = W_DEC_WIDE;
                return;
            }
            continue;
        }
        const uint8_t *p;
        size_t len;
        bytes_at(v, &sp->f, refs[i].row, &p, &len);
        if (!first) {
            first = p;
            first_len = common = len;
            continue;
        }
        same_len = same_len && len == first_len;
        size_t m = common < len ? common : len;
        size_t j = 0;
        while (j < m && p[j] == first[j])
            j++;
        common = j;
    }
    if (bytes) {
        kw->skip = common;
        kw->mode = same_len && first_len - common <= 8 ? W_BYTES_EQ : W_BYTES_LEN;
    }
}

/* Row r's word for key k; sets *exact. Not called for nulls. */
static uint64_t word_of(const struct sorter *s, size_t k, const struct key_words *kw,
                        struct rows_ref r, bool *exact)
{
    const struct key_spec *sp = &s->specs[k];
    const struct key_view *v = &s->views[k * s->nbatches + r.batch];
    const uint8_t *at = v->values + (size_t)(r.row + v->add) * (size_t)sp->f.width;
    const uint64_t sign = UINT64_C(1) << 63;
    uint64_t w = 0;
    *exact = true;
    switch (sp->f.kind) {
    case K_BOOL: w = arrow_bit(v->values, r.row + v->add); break;
    case K_INT: w = (uint64_t)load_signed(at, sp->f.width) ^ sign; break;
    case K_UINT: w = load_unsigned(at, sp->f.width); break;
    case K_FLOAT:
    case K_DOUBLE: w = double_order(float_at(at, sp->f.kind)); break;
    case K_DEC128:
        w = (uint64_t)load_signed(kw->mode == W_DEC_WIDE ? at + 8 : at, 8) ^ sign;
        *exact = kw->mode != W_DEC_WIDE;
        break;
    default: {
        const uint8_t *p;
        size_t len;
        bytes_at(v, &sp->f, r.row, &p, &len);
        p += kw->skip;
        len -= kw->skip;
        size_t take = kw->mode == W_BYTES_EQ ? 8 : 7;
        for (size_t i = 0; i < take; i++)
            w = w << 8 | (i < len ? p[i] : 0);
        if (kw->mode == W_BYTES_LEN) {
            /* Shorter first among equal bytes; exact up to 7 bytes. */
            w = w << 8 | (len < 8 ? len : 8);
            *exact = len <= 7;
        } else {
            *exact = len <= 8;
        }
    }
    }
    return sp->descending ? ~w : w;
}

static void fill_entry(const struct sorter *s, const struct key_words *kws, size_t nwords,
                       struct rows_ref r, struct entry *e)
{
    memset(e, 0, sizeof *e);
    e->ref = r;
    for (size_t k = 0; k < nwords; k++) {
        const struct key_view *v = &s->views[k * s->nbatches + r.batch];
        if (view_null(v, r.row)) {
            e->nulls |= 1u << k;
            continue;
        }
        bool exact;
        e->w[k] = word_of(s, k, &kws[k], r, &exact);
        if (!exact)
            e->inexact |= 1u << k;
    }
}

/* ---- exact words for long values ---- */

/* The bytes that make a string, binary, fixed-size binary or decimal value
 * (equal bytes, equal values). */
static void value_bytes(const struct fmt *f, const struct key_view *v, int64_t r, const uint8_t **p,
                        size_t *len)
{
    if (f->kind == K_DEC128) {
        *p = v->values + (size_t)(r + v->add) * 16;
        *len = 16;
    } else {
        bytes_at(v, f, r, p, len);
    }
}

/* The distinct values of a key, compact so that lookups stay in cache: an
 * open-addressing table of (high hash bits << 32 | id + 1; 0 when empty)
 * over the values' bytes copied end to end, and one entry per value for
 * sorting them. */
struct distinct {
    uint64_t *slots;
    size_t cap; /* a power of two, kept at least twice nd */
    struct entry *de;
    size_t *off; /* value j is bytes[off[j], off[j + 1]) */
    uint8_t *bytes;
    size_t nd, nbytes, ecap, ocap, bcap;
};

static bool grow_to(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 256;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * size);
    if (!q)
        return false;
    *p = q;
    *cap = nc;
    return true;
}

/* Room for one more value of len bytes. */
static bool distinct_grow(struct distinct *d, size_t len)
{
    if (!grow_to((void **)&d->de, &d->ecap, d->nd + 1, sizeof *d->de) ||
        !grow_to((void **)&d->off, &d->ocap, d->nd + 2, sizeof *d->off) ||
        !grow_to((void **)&d->bytes, &d->bcap, d->nbytes + len + 1, 1))
        return false;
    if (2 * (d->nd + 1) <= d->cap)
        return true;
    size_t nc = d->cap ? d->cap * 2 : 1024;
    uint64_t *slots = calloc(nc, sizeof *slots);
    if (!slots)
        return false;
    free(d->slots);
    d->slots = slots;
    d->cap = nc;
    for (size_t j = 0; j < d->nd; j++) {
        uint64_t h = hash_bytes(d->bytes + d->off[j], d->off[j + 1] - d->off[j]);
        size_t at = h & (nc - 1);
        while (slots[at])
            at = (at + 1) & (nc - 1);
        slots[at] = (h >> 32 << 32) | (j + 1);
    }
    return true;
}

/* The id of entry x's value of key k, adding it when new; -1 without
 * memory. */
static int64_t distinct_id(struct distinct *d, const struct sorter *one, size_t k,
                           const struct entry *x)
{
    const uint8_t *p;
    size_t len;
    value_bytes(&one->specs->f, &one->views[x->ref.batch], x->ref.row, &p, &len);
    uint64_t h = hash_bytes(p, len);
    if (!distinct_grow(d, len))
        return -1;
    size_t at = h & (d->cap - 1);
    for (; d->slots[at]; at = (at + 1) & (d->cap - 1)) {
        if (d->slots[at] >> 32 != h >> 32)
            continue;
        size_t j = (d->slots[at] & 0xffffffffu) - 1;
        if (d->off[j + 1] - d->off[j] == len && memcmp(d->bytes + d->off[j], p, len) == 0)
            return (int64_t)j;
    }
    /* With one key the entry's second word is free: it carries the id
     * through the sort of the distinct values. */
    d->de[d->nd] = (struct entry){{x->w[k], d->nd}, 0, (x->inexact >> k) & 1u, x->ref};
    if (d->nd == 0)
        d->off[0] = 0;
    memcpy(d->bytes + d->nbytes, p, len);
    d->nbytes += len;
    d->off[d->nd + 1] = d->nbytes;
    d->slots[at] = (h >> 32 << 32) | (d->nd + 1);
    return (int64_t)d->nd++;
}

static void sort_entries(const struct sorter *s, struct entry *e, struct entry *tmp, size_t n);

/* Makes key k's words exact where some are not (long strings, uuids, wide
 * decimals): each value's word becomes the rank of the value among the
 * key's distinct values, found by hashing and sorted on their own, so that
 * ties between long equal values cost no comparisons of column data. Best
 * effort: without memory the words stay as they were, still correct. */
static void rank_key(const struct sorter *s, size_t k, struct entry *e, size_t n)
{
    if (n >= UINT32_MAX)
        return;
    struct sorter one = {&s->specs[k], &s->views[k * s->nbatches], 1, s->nbatches};
    struct distinct d = {0};
    uint32_t bit = 1u << k, *rank = NULL;
    struct entry *tmp = NULL;
    size_t i = 0;
    for (; i < n; i++) {
        if (e[i].nulls & bit)
            continue;
        int64_t id = distinct_id(&d, &one, k, &e[i]);
        if (id < 0)
            break;
        e[i].w[k] = (uint64_t)id; /* the id until the ranks are known */
    }
    bool ok = i == n && (tmp = malloc((d.nd ? d.nd : 1) * sizeof *tmp)) &&
              (rank = malloc((d.nd ? d.nd : 1) * sizeof *rank));
    if (ok) {
        sort_entries(&one, d.de, tmp, d.nd);
        for (size_t p = 0; p < d.nd; p++)
            rank[d.de[p].w[1]] = (uint32_t)p;
    }
    /* Every id written goes back to a rank, or (on failure) to its
     * distinct value's original word. */
    for (size_t j = 0; j < i; j++) {
        if (e[j].nulls & bit)
            continue;
        if (ok) {
            e[j].w[k] = rank[e[j].w[k]];
            e[j].inexact &= ~bit;
        } else {
            e[j].w[k] = d.de[e[j].w[k]].w[0];
        }
    }
    free(rank);
    free(tmp);
    free(d.slots);
    free(d.de);
    free(d.off);
    free(d.bytes);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return CMP(x, y);
}

/* Whether key k's words tie often enough for ranking to cost less than
 * the comparisons it saves: a sample of the words holds many repeats
 * (about 8 rows a value or more; bench/sort measured the break-even near
 * 10, and ranking unique values only costs). Small inputs are always
 * ranked: either way is cheap there. */
static bool worth_ranking(const struct entry *e, size_t n, size_t k)
{
    enum { SAMPLE = 4096 };
    if (n < 4 * SAMPLE)
        return true;
    uint64_t *w = malloc(SAMPLE * sizeof *w);
    if (!w)
        return false;
    size_t m = 0, repeats = 0, step = n / SAMPLE;
    for (size_t i = 0; i < n && m < SAMPLE; i += step)
        if (!(e[i].nulls & (1u << k)))
            w[m++] = e[i].w[k];
    qsort(w, m, sizeof *w, cmp_u64);
    for (size_t i = 1; i < m; i++)
        repeats += w[i] == w[i - 1];
    free(w);
    return repeats * 64 >= m && m > 0;
}

static bool entry_less(const struct sorter *s, const struct entry *a, const struct entry *b)
{
    size_t nwords = s->nkeys < WORDS ? s->nkeys : WORDS;
    for (size_t k = 0; k < nwords; k++) {
        uint32_t bit = 1u << k;
        if ((a->nulls ^ b->nulls) & bit)
            return ((a->nulls & bit) != 0) == s->specs[k].nulls_first;
        if (a->nulls & bit)
            continue;
        if (a->w[k] != b->w[k])
            return a->w[k] < b->w[k];
        if ((a->inexact | b->inexact) & bit) {
            int c = cmp_key(s, k, a->ref, b->ref);
            if (c)
                return c < 0;
        }
    }
    for (size_t k = nwords; k < s->nkeys; k++) {
        int c = cmp_key(s, k, a->ref, b->ref);
        if (c)
            return c < 0;
    }
    return false;
}

enum { RUN = 16 };

/* A stable merge sort: insertion-sorted runs, then merges ping-ponging
 * between e and tmp. */
static void sort_entries(const struct sorter *s, struct entry *e, struct entry *tmp, size_t n)
{
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t hi = lo + RUN < n ? lo + RUN : n;
        for (size_t i = lo + 1; i < hi; i++) {
            struct entry x = e[i];
            size_t j = i;
            for (; j > lo && entry_less(s, &x, &e[j - 1]); j--)
                e[j] = e[j - 1];
            e[j] = x;
        }
    }
    struct entry *src = e, *dst = tmp;
    for (size_t w = RUN; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = entry_less(s, &src[j], &src[i]) ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        struct entry *t = src;
        src = dst;
        dst = t;
    }
    if (src != e)
        memcpy(e, src, n * sizeof *e);
}

int rows_sort(const struct ArrowSchema *schema, const struct ArrowArray *const *batches,
              size_t nbatches, const struct rows_sort_key *keys, size_t nkeys,
              struct rows_ref *refs, size_t n, struct error *err)
{
    int rc = check_batches(schema, batches, nbatches, err);
    if (rc == 0)
        rc = check_refs(batches, nbatches, refs, n, err);
    if (rc != 0)
        return rc;
    if (nkeys && !keys)
        return error_fail(err, ERR_NOT_FOUND, "no sort keys");
    if (nkeys == 0)
        return 0;
    struct key_spec *specs = malloc(nkeys * sizeof *specs);
    struct key_view *views = malloc(nkeys * (nbatches ? nbatches : 1) * sizeof *views);
    struct entry *e = malloc((n ? n : 1) * sizeof *e), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!specs || !views || !e || !tmp)
        rc = error_fail(err, ERR_NOMEM, "out of memory sorting %zu rows", n);
    for (size_t k = 0; k < nkeys && rc == 0; k++)
        rc = resolve_key(schema, batches, nbatches, &keys[k], &specs[k], &views[k * nbatches], err);
    if (rc == 0) {
        struct sorter s = {specs, views, nkeys, nbatches};
        size_t nwords = nkeys < WORDS ? nkeys : WORDS;
        struct key_words kws[WORDS];
        for (size_t k = 0; k < nwords; k++)
            plan_words(&s, k, refs, n, &kws[k]);
        uint32_t inexact = 0;
        for (size_t i = 0; i < n; i++) {
            fill_entry(&s, kws, nwords, refs[i], &e[i]);
            inexact |= e[i].inexact;
        }
        /* Ranks pay off where ties are many; later keys tie only within
         * the earlier keys' ties, so only the first inexact key may be
         * ranked (the others compare values on a tie). */
        for (size_t k = 0; k < nwords; k++)
            if (inexact & (1u << k)) {
                if (worth_ranking(e, n, k))
                    rank_key(&s, k, e, n);
                break;
            }
        sort_entries(&s, e, tmp, n);
        for (size_t i = 0; i < n; i++)
            refs[i] = e[i].ref;
    }
    free(specs);
    free(views);
    free(e);
    free(tmp);
    return rc;
}
