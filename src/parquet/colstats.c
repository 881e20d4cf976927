#include "parquet/colstats.h"

#include <math.h>
#include <string.h>

#include "lake/bounds.h"
#include "util/bytes.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/* ---- what a footer leaf is ---- */

/* The meaning a leaf's annotation gives its physical values. */
enum leaf_class {
    LC_PLAIN, /* no annotation, or an INTEGER one: numbers, bytes */
    LC_DATE,
    LC_TIME,
    LC_TIMESTAMP,
    LC_DECIMAL,
    LC_TEXT,      /* STRING, ENUM, JSON, BSON */
    LC_OTHER,     /* anything else (UUID, INTERVAL, FLOAT16, ...) */
    LC_UNORDERED, /* GEOMETRY, GEOGRAPHY: min/max mean nothing, whoever wrote them */
};

struct leaf_shape {
    enum pq_type phys;
    int32_t type_length;
    enum leaf_class cls;
    int unsigned_width; /* 8..64 for an unsigned INTEGER annotation, else 0 */
    enum pq_time_unit unit;
    int32_t scale;
};

/* The logical annotation wins over the converted one when both exist. */
static void shape_of(const struct pq_schema_element *e, struct leaf_shape *s)
{
    memset(s, 0, sizeof *s);
    s->phys = e->type;
    s->type_length = e->type_length;
    s->cls = LC_PLAIN;
    const struct pq_logical *l = &e->logical;
    if (l->kind != PQ_LT_NONE) {
        switch (l->kind) {
        case PQ_LT_INTEGER:
            if (!l->is_signed)
                s->unsigned_width = l->bit_width;
            return;
        case PQ_LT_DATE: s->cls = LC_DATE; return;
        case PQ_LT_TIME:
        case PQ_LT_TIMESTAMP:
            s->cls = l->kind == PQ_LT_TIME ? LC_TIME : LC_TIMESTAMP;
            s->unit = l->unit;
            return;
        case PQ_LT_DECIMAL:
            s->cls = LC_DECIMAL;
            s->scale = l->scale;
            return;
        case PQ_LT_STRING:
        case PQ_LT_ENUM:
        case PQ_LT_JSON:
        case PQ_LT_BSON: s->cls = LC_TEXT; return;
        case PQ_LT_GEOMETRY:
        case PQ_LT_GEOGRAPHY: s->cls = LC_UNORDERED; return;
        default: s->cls = LC_OTHER; return;
        }
    }
    if (!e->has_converted)
        return;
    switch (e->converted) {
    case PQ_CT_UINT_8: s->unsigned_width = 8; return;
    case PQ_CT_UINT_16: s->unsigned_width = 16; return;
    case PQ_CT_UINT_32: s->unsigned_width = 32; return;
    case PQ_CT_UINT_64: s->unsigned_width = 64; return;
    case PQ_CT_INT_8:
    case PQ_CT_INT_16:
    case PQ_CT_INT_32:
    case PQ_CT_INT_64: return;
    case PQ_CT_DATE: s->cls = LC_DATE; return;
    case PQ_CT_TIME_MILLIS:
    case PQ_CT_TIME_MICROS:
        s->cls = LC_TIME;
        s->unit = e->converted == PQ_CT_TIME_MILLIS ? PQ_MILLIS : PQ_MICROS;
        return;
    case PQ_CT_TIMESTAMP_MILLIS:
    case PQ_CT_TIMESTAMP_MICROS:
        s->cls = LC_TIMESTAMP;
        s->unit = e->converted == PQ_CT_TIMESTAMP_MILLIS ? PQ_MILLIS : PQ_MICROS;
        return;
    case PQ_CT_DECIMAL:
        s->cls = e->has_decimal ? LC_DECIMAL : LC_OTHER;
        s->scale = e->scale;
        return;
    case PQ_CT_UTF8:
    case PQ_CT_ENUM:
    case PQ_CT_JSON:
    case PQ_CT_BSON: s->cls = LC_TEXT; return;
    default: s->cls = LC_OTHER; return;
    }
}

/* The widest unsigned INTEGER leaf a catalog type can read: one whose
 * domain holds [0, 2^w). */
static int max_unsigned_width(enum lake_type t)
{
    switch (t) {
    case LT_UINT64: return 64;
    case LT_UINT32:
    case LT_LONG:
    case LT_TIME:
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP:
    case LT_TIMESTAMP_NS:
    case LT_TIMESTAMPTZ: return 32;
    case LT_UINT16:
    case LT_INT:
    case LT_DATE: return 16;
    case LT_UINT8:
    case LT_INT16: return 8;
    default: return 0;
    }
}

/* Whether a leaf of this shape can honestly bound a column of type c. */
static bool readable(const struct lake_column *c, const struct leaf_shape *s)
{
    if (s->unsigned_width > max_unsigned_width(c->type) || s->cls == LC_UNORDERED)
        return false;
    bool integer = s->cls == LC_PLAIN && (s->phys == PQ_INT32 || s->phys == PQ_INT64);
    switch (c->type) {
    case LT_BOOLEAN: return s->phys == PQ_BOOLEAN;
    case LT_INT8:
    case LT_INT16:
    case LT_UINT8:
    case LT_UINT16:
    case LT_INT: return integer && s->phys == PQ_INT32;
    case LT_DATE: return s->phys == PQ_INT32 && (s->cls == LC_DATE || s->cls == LC_PLAIN);
    case LT_UINT32: return integer && (s->phys == PQ_INT64 || s->unsigned_width == 32);
    case LT_UINT64: return integer && s->phys == PQ_INT64 && s->unsigned_width == 64;
    case LT_LONG: return integer;
    case LT_FLOAT: return s->phys == PQ_FLOAT;
    case LT_DOUBLE: return s->phys == PQ_DOUBLE || s->phys == PQ_FLOAT;
    case LT_TIME:
        return s->cls == LC_TIME && ((s->phys == PQ_INT64 && s->unit == PQ_MICROS) ||
                                     (s->phys == PQ_INT32 && s->unit == PQ_MILLIS));
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP:
    case LT_TIMESTAMP_NS:
    case LT_TIMESTAMPTZ:
        return s->cls == LC_TIMESTAMP && s->phys == PQ_INT64 && s->unit >= PQ_MILLIS &&
               s->unit <= PQ_NANOS;
    case LT_STRING:
    case LT_JSON: return s->phys == PQ_BYTE_ARRAY && s->cls != LC_DECIMAL;
    case LT_BINARY:
        return (s->phys == PQ_BYTE_ARRAY || s->phys == PQ_FIXED_LEN_BYTE_ARRAY) &&
               s->cls != LC_DECIMAL;
    case LT_UUID:
        return s->phys == PQ_FIXED_LEN_BYTE_ARRAY && s->type_length == 16 && s->cls != LC_DECIMAL;
    case LT_DECIMAL:
        return s->cls == LC_DECIMAL && s->scale == c->scale &&
               (s->phys == PQ_INT32 || s->phys == PQ_INT64 || s->phys == PQ_BYTE_ARRAY ||
                s->phys == PQ_FIXED_LEN_BYTE_ARRAY);
    default: return false;
    }
}

/* ---- statistics as values of the catalog type ---- */

enum val_kind { VK_INT, VK_FLOAT, VK_BYTES };

static enum val_kind kind_of(enum lake_type t)
{
    switch (t) {
    case LT_FLOAT:
    case LT_DOUBLE: return VK_FLOAT;
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY:
    case LT_UUID: return VK_BYTES;
    default: return VK_INT;
    }
}

/* One statistic, in the catalog type's terms: integers (booleans, days,
 * micros or nanos, unscaled decimals, unsigned values) as i128, floats
 * widened to double, bytes as they are. */
struct val {
    i128 i;
    double f;
    const uint8_t *b;
    size_t n;
};

static int64_t le_i64(const uint8_t *b, size_t n)
{
    uint64_t u = 0;
    for (size_t k = 0; k < n; k++)
        u |= (uint64_t)b[k] << (8 * k);
    if (n < 8 && (b[n - 1] & 0x80))
        u |= ~UINT64_C(0) << (8 * n); /* sign-extend */
    return (int64_t)u;
}

static uint64_t le_u64(const uint8_t *b, size_t n)
{
    uint64_t u = 0;
    for (size_t k = 0; k < n; k++)
        u |= (uint64_t)b[k] << (8 * k);
    return u;
}

/* A big-endian two's complement integer of any length, if it fits 16
 * bytes once its redundant sign bytes are dropped. */
static bool be_i128(const uint8_t *b, size_t n, i128 *out)
{
    if (n == 0)
        return false;
    uint8_t sign = b[0] & 0x80 ? 0xff : 0x00;
    while (n > 16 && b[0] == sign && ((b[1] ^ sign) & 0x80) == 0) {
        b++;
        n--;
    }
    if (n > 16)
        return false;
    u128 u = sign ? ~(u128)0 : 0;
    for (size_t k = 0; k < n; k++)
        u = u << 8 | b[k];
    *out = (i128)u;
    return true;
}

/* x * k within int64, for the scaling of temporal ticks. */
static bool scale_i64(int64_t x, int64_t k, i128 *out)
{
    int64_t r;
    if (__builtin_mul_overflow(x, k, &r))
        return false;
    *out = r;
    return true;
}

static int64_t ticks_per(enum pq_time_unit unit, int64_t millis, int64_t micros, int64_t nanos)
{
    return unit == PQ_MILLIS ? millis : unit == PQ_MICROS ? micros : nanos;
}

/* Decodes one PLAIN statistic of leaf shape s as a value of c's type. */
static bool decode(const struct lake_column *c, const struct leaf_shape *s, const uint8_t *b,
                   size_t n, struct val *v)
{
    memset(v, 0, sizeof *v);
    size_t width = s->phys == PQ_BOOLEAN                         ? 1
                   : s->phys == PQ_INT32 || s->phys == PQ_FLOAT  ? 4
                   : s->phys == PQ_INT64 || s->phys == PQ_DOUBLE ? 8
                   : s->phys == PQ_FIXED_LEN_BYTE_ARRAY          ? (size_t)s->type_length
                                                                 : n;
    if (n != width)
        return false;
    switch (s->phys) {
    case PQ_BOOLEAN:
        if (b[0] > 1)
            return false;
        v->i = b[0];
        return true;
    case PQ_FLOAT: {
        float f;
        memcpy(&f, b, 4);
        v->f = f;
        return true;
    }
    case PQ_DOUBLE: memcpy(&v->f, b, 8); return true;
    case PQ_INT32:
    case PQ_INT64: break;
    default:
        if (c->type == LT_DECIMAL)
            return be_i128(b, n, &v->i);
        v->b = b;
        v->n = n;
        return true;
    }
    /* INT32 and INT64 */
    if (s->unsigned_width) {
        v->i = le_u64(b, n);
        return true;
    }
    int64_t x = le_i64(b, n);
    if (s->cls == LC_TIME)
        return scale_i64(x, s->unit == PQ_MILLIS ? 1000 : 1, &v->i);
    if (s->cls != LC_TIMESTAMP) {
        v->i = x;
        return true;
    }
    if (c->type == LT_TIMESTAMP_NS)
        return scale_i64(x, ticks_per(s->unit, 1000000, 1000, 1), &v->i);
    /* Micros types: a nanos footer would lose its sub-micro digits. */
    return s->unit != PQ_NANOS && scale_i64(x, ticks_per(s->unit, 1000, 1, 0), &v->i);
}

/* IEEE 754 total order as a monotone integer: -NaN < -Inf < ... < -0.0 <
 * +0.0 < ... < +Inf < +NaN. */
static int64_t total_order_key(double d)
{
    int64_t bits;
    memcpy(&bits, &d, 8);
    return bits >= 0 ? bits : -(bits & INT64_MAX) - 1;
}

static int cmp_val(enum val_kind k, const struct val *a, const struct val *b)
{
    switch (k) {
    case VK_INT: return (a->i > b->i) - (a->i < b->i);
    case VK_FLOAT: {
        int64_t x = total_order_key(a->f), y = total_order_key(b->f);
        return (x > y) - (x < y);
    }
    case VK_BYTES: {
        size_t m = a->n < b->n ? a->n : b->n;
        int r = m ? memcmp(a->b, b->b, m) : 0;
        return r ? r : (a->n > b->n) - (a->n < b->n);
    }
    }
    return 0;
}

/* ---- encoding a bound ---- */

/* The Iceberg single-value bytes of v for column c, into the arena. NULL
 * with *oom false when v is not representable (a 4-byte type out of int32
 * range, a long out of int64, a NaN float). */
static const uint8_t *encode(const struct lake_column *c, const struct val *v, bool lower,
                             struct arena *a, size_t *len, bool *oom)
{
    uint8_t tmp[16];
    const uint8_t *src = tmp;
    size_t n;
    switch (c->type) {
    case LT_BOOLEAN:
        tmp[0] = (uint8_t)v->i;
        n = 1;
        break;
    case LT_UINT64:
    case LT_DECIMAL: n = bound_decimal_minimal(v->i, tmp); break;
    case LT_FLOAT:
    case LT_DOUBLE: {
        if (isnan(v->f))
            return NULL;
        /* Iceberg's rule: a zero says nothing about which zeros exist. */
        double d = v->f == 0.0 ? (lower ? -0.0 : 0.0) : v->f;
        if (c->type == LT_FLOAT) {
            float f = (float)d; /* exact: float columns read FLOAT leaves only */
            memcpy(tmp, &f, 4);
            n = 4;
        } else {
            memcpy(tmp, &d, 8);
            n = 8;
        }
        break;
    }
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY:
    case LT_UUID:
        src = v->b;
        n = v->n;
        break;
    default: /* the other integers, dates, times and timestamps: the width's range only */
        n = bound_int_width(c->type);
        if (!n || v->i < (n == 4 ? INT32_MIN : INT64_MIN) ||
            v->i > (n == 4 ? INT32_MAX : INT64_MAX))
            return NULL;
        le_store(tmp, (uint64_t)(int64_t)v->i, n);
        break;
    }
    uint8_t *out = arena_alloc(a, n ? n : 1);
    if (!out) {
        *oom = true;
        return NULL;
    }
    if (n)
        memcpy(out, src, n);
    *len = n;
    return out;
}

const uint8_t *pq_stat_bound(const struct lake_column *c, const struct pq_schema_element *el,
                             const uint8_t *plain, size_t len, bool lower, struct arena *arena,
                             size_t *bound_len, bool *oom)
{
    struct leaf_shape shape;
    struct val v;
    shape_of(el, &shape);
    *bound_len = 0;
    if (!readable(c, &shape) || !decode(c, &shape, plain, len, &v))
        return NULL;
    return encode(c, &v, lower, arena, bound_len, oom);
}

/* ---- one leaf ---- */

struct ctx {
    const struct pq_file_meta *meta;
    size_t g0, g1; /* the row groups summed: [g0, g1) */
    struct arena *arena;
    struct pq_col_stats *out;
    size_t n;
    struct error *err;
};

static bool add_count(int64_t *sum, int64_t x)
{
    return x >= 0 && !__builtin_add_overflow(*sum, x, sum);
}

/* Stats of catalog leaf c stored in footer leaf node; appends one entry
 * unless some chunk lacks its counts. */
static int leaf_stats(struct ctx *x, const struct lake_column *c, const struct pq_node *node)
{
    struct pq_col_stats st = {.field_id = c->field_id};
    struct leaf_shape shape;
    shape_of(node->el, &shape);
    bool bounds = readable(c, &shape);
    enum val_kind kind = kind_of(c->type);
    struct val lo = {0}, hi = {0}, v;
    bool any = false;
    for (size_t g = x->g0; g < x->g1; g++) {
        const struct pq_column_chunk *cc = &x->meta->row_groups[g].columns[node->leaf_index];
        if (!cc->has_meta)
            return 0;
        const struct pq_column_meta *m = &cc->meta;
        if (!pq_node_is_path(node, m->path, m->npath))
            return error_fail(x->err, ERR_CORRUPT,
                              "row group %zu: column chunk %d is not the schema's column '%.200s'",
                              g, node->leaf_index, node->path);
        const struct pq_statistics *s = &m->statistics;
        if (!m->has_statistics || !s->has_null_count)
            return 0;
        if (!add_count(&st.value_count, m->num_values) ||
            !add_count(&st.null_count, s->null_count) ||
            !add_count(&st.size_bytes, m->total_compressed_size) || s->null_count > m->num_values)
            return error_fail(x->err, ERR_CORRUPT,
                              "row group %zu: the counts of column '%.200s' do not add up", g,
                              node->path);
        if (!bounds || m->num_values == s->null_count)
            continue; /* all null: nothing to bound */
        if (!s->has_min || !s->has_max || !decode(c, &shape, s->min, s->min_len, &v)) {
            bounds = false;
            continue;
        }
        if (!any || cmp_val(kind, &v, &lo) < 0)
            lo = v;
        if (!decode(c, &shape, s->max, s->max_len, &v)) {
            bounds = false;
            continue;
        }
        if (!any || cmp_val(kind, &v, &hi) > 0)
            hi = v;
        any = true;
    }
    if (bounds && any) {
        bool oom = false;
        st.lower = encode(c, &lo, true, x->arena, &st.lower_len, &oom);
        st.upper = encode(c, &hi, false, x->arena, &st.upper_len, &oom);
        if (oom)
            return error_fail(x->err, ERR_NOMEM, "out of memory");
        /* An unrepresentable integer voids both bounds; a NaN float only
         * itself (the other side still bounds the non-NaN values). */
        if (kind != VK_FLOAT && (!st.lower || !st.upper)) {
            st.lower = st.upper = NULL;
            st.lower_len = st.upper_len = 0;
        }
    }
    x->out[x->n++] = st;
    return 0;
}

/* ---- walking the catalog against the footer ---- */

static int visit(struct ctx *x, const struct lake_column *c, const struct pq_node *node)
{
    if (!node)
        return 0;
    switch (c->type) {
    case LT_VARIANT: return 0;
    case LT_STRUCT:
        for (size_t i = 0; i < c->nchildren; i++)
            if (visit(x, c->children[i], pq_node_child_named(node, c->children[i]->name)) != 0)
                return -1;
        return 0;
    case LT_LIST:
        return c->nchildren == 1
                   ? visit(x, c->children[0],
                           pq_node_child_named(pq_node_child_named(node, "list"), "element"))
                   : 0;
    case LT_MAP: {
        if (c->nchildren != 2)
            return 0;
        const struct pq_node *kv = pq_node_child_named(node, "key_value");
        if (visit(x, c->children[0], pq_node_child_named(kv, "key")) != 0)
            return -1;
        return visit(x, c->children[1], pq_node_child_named(kv, "value"));
    }
    default:
        /* A catalog leaf over a footer group has no chunk of its own. */
        return node->leaf_index >= 0 ? leaf_stats(x, c, node) : 0;
    }
}

static size_t count_leaves(const struct lake_column *c)
{
    if (c->type == LT_VARIANT)
        return 0;
    if (!lake_type_is_container(c->type))
        return 1;
    size_t n = 0;
    for (size_t i = 0; i < c->nchildren; i++)
        n += count_leaves(c->children[i]);
    return n;
}

/* Stats of row groups [g0, g1) of the file. */
static int range_stats(const struct pq_file_meta *meta, const struct pq_schema *schema,
                       const struct lake_table *table, size_t g0, size_t g1, struct arena *arena,
                       struct pq_col_stats **out, size_t *n, struct error *err)
{
    *out = NULL;
    *n = 0;
    struct pq_schema built;
    if (!schema) {
        if (pq_schema_from_file(meta, arena, &built, err) != 0)
            return -1;
        schema = &built;
    }
    if (g0 >= g1)
        return 0;
    for (size_t g = g0; g < g1; g++)
        if (meta->row_groups[g].ncolumns != (size_t)schema->nleaves)
            return error_fail(err, ERR_CORRUPT,
                              "row group %zu has %zu columns for %d schema leaves", g,
                              meta->row_groups[g].ncolumns, schema->nleaves);
    size_t cap = 0;
    for (size_t i = 0; i < table->root.nchildren; i++)
        cap += count_leaves(table->root.children[i]);
    if (cap == 0)
        return 0;
    struct ctx x = {meta, g0, g1, arena, arena_calloc(arena, cap, sizeof *x.out), 0, err};
    if (!x.out)
        return error_fail(err, ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < table->root.nchildren; i++) {
        const struct lake_column *c = table->root.children[i];
        if (visit(&x, c, pq_node_child_named(schema->root, c->name)) != 0)
            return -1;
    }
    *out = x.n ? x.out : NULL;
    *n = x.n;
    return 0;
}

int pq_footer_column_stats(const struct pq_file_meta *meta, const struct pq_schema *schema,
                           const struct lake_table *table, struct arena *arena,
                           struct pq_col_stats **out, size_t *n, struct error *err)
{
    return range_stats(meta, schema, table, 0, meta->nrow_groups, arena, out, n, err);
}

int pq_row_group_column_stats(const struct pq_file_meta *meta, const struct pq_schema *schema,
                              const struct lake_table *table, size_t g, struct arena *arena,
                              struct pq_col_stats **out, size_t *n, struct error *err)
{
    if (g >= meta->nrow_groups) {
        *out = NULL;
        *n = 0;
        return error_fail(err, ERR_INVALID, "row group %zu of %zu", g, meta->nrow_groups);
    }
    return range_stats(meta, schema, table, g, g + 1, arena, out, n, err);
}
