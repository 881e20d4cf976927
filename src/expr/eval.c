/* Evaluating bound predicates over Arrow batches, a chunk of rows at a
 * time: each test is one tight loop over a column's values (no
 * allocation per value), nulls masked out afterwards; AND and OR combine
 * byte masks and stop early when a chunk is decided. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr_internal.h"
#include "util/arrow.h"
#include "util/search.h"

/* ---- finding columns in a batch ---- */

static int batch_fail(struct error *err, const struct colref *r, const char *what, const char *f)
{
    return error_fail(err, ERR_INVALID, "column '%s' (%s): the batch %s ('%.40s')", r->name,
                      lake_type_name(r->type), what, f);
}

static bool decimal_format_ok(const char *f, int scale)
{
    int p, s, bits = 128;
    char tail;
    int n = sscanf(f, "d:%d,%d,%d%c", &p, &s, &bits, &tail);
    return (n == 2 || n == 3) && bits == 128 && s == scale && p > 0 && p <= 38;
}

/* The store a column of type r->type has in an array of format f. */
bool expr_store_of(const struct colref *r, const char *f, enum store *st)
{
    static const struct {
        enum lake_type type;
        const char *format;
        enum store st;
    } fixed[] = {
        {LT_BOOLEAN, "b", ST_BOOL},
        {LT_INT8, "c", ST_I8},
        {LT_INT16, "s", ST_I16},
        {LT_INT, "i", ST_I32},
        {LT_LONG, "l", ST_I64},
        {LT_UINT8, "C", ST_U8},
        {LT_UINT16, "S", ST_U16},
        {LT_UINT32, "I", ST_U32},
        {LT_UINT64, "L", ST_U64},
        {LT_FLOAT, "f", ST_F32},
        {LT_DOUBLE, "g", ST_F64},
        {LT_DATE, "tdD", ST_I32},
        {LT_TIME, "ttu", ST_I64},
        {LT_TIMESTAMP_S, "tss:", ST_I64},
        {LT_TIMESTAMP_MS, "tsm:", ST_I64},
        {LT_TIMESTAMP, "tsu:", ST_I64},
        {LT_TIMESTAMP_NS, "tsn:", ST_I64},
        {LT_STRING, "u", ST_STR32},
        {LT_STRING, "U", ST_STR64},
        {LT_JSON, "u", ST_STR32},
        {LT_JSON, "U", ST_STR64},
        {LT_BINARY, "z", ST_STR32},
        {LT_BINARY, "Z", ST_STR64},
        {LT_UUID, "w:16", ST_FIX16},
        {LT_STRUCT, "+s", ST_NONE},
        {LT_LIST, "+l", ST_NONE},
        {LT_LIST, "+L", ST_NONE},
        {LT_MAP, "+m", ST_NONE},
        {LT_VARIANT, "+s", ST_NONE},
    };
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
        if (fixed[k].type == r->type && strcmp(fixed[k].format, f) == 0) {
            *st = fixed[k].st;
            return true;
        }
    *st = r->type == LT_DECIMAL ? ST_D128 : ST_I64;
    if (r->type == LT_DECIMAL)
        return decimal_format_ok(f, r->scale);
    return r->type == LT_TIMESTAMPTZ && strncmp(f, "tsu:", 4) == 0 && f[4] != '\0';
}

size_t expr_store_width(enum store st)
{
    static const unsigned char width[ST_NONE + 1] = {
        [ST_I8] = 1,  [ST_U8] = 1,  [ST_I16] = 2, [ST_U16] = 2, [ST_I32] = 4,   [ST_U32] = 4,
        [ST_F32] = 4, [ST_I64] = 8, [ST_U64] = 8, [ST_F64] = 8, [ST_D128] = 16, [ST_FIX16] = 16,
    };
    return width[st];
}

static int buffers_of(enum store st)
{
    return st == ST_NONE || st == ST_VARIANT ? 1 : st == ST_STR32 || st == ST_STR64 ? 3 : 2;
}

/* The binary child `name` of a variant's storage struct s / arr, whose row
 * 0 is at physical index lo. */
static bool open_binary_child(const struct ArrowSchema *s, const struct ArrowArray *arr, int64_t lo,
                              int64_t length, const char *name, struct binview *out)
{
    for (int64_t k = 0; k < s->n_children && k < arr->n_children; k++) {
        const struct ArrowSchema *cs = s->children[k];
        const struct ArrowArray *ca = arr->children[k];
        if (!cs->name || strcmp(cs->name, name) != 0)
            continue;
        bool wide = strcmp(cs->format, "Z") == 0;
        if ((!wide && strcmp(cs->format, "z") != 0) || ca->offset < 0 || ca->n_buffers < 3 ||
            ca->length < lo + length || !ca->buffers ||
            (length > 0 && (!ca->buffers[1] || !ca->buffers[2])))
            return false;
        *out = (struct binview){ca->buffers[1], ca->buffers[2], wide, lo + ca->offset};
        return true;
    }
    return false;
}

/* A variant path's column: the storage struct's metadata and value. */
static int open_variant(const struct colref *r, const struct ArrowSchema *s,
                        const struct ArrowArray *arr, int64_t lo, int64_t length, struct colview *v,
                        struct error *err)
{
    if (strcmp(s->format, "+s") != 0 ||
        !open_binary_child(s, arr, lo, length, "metadata", &v->vmeta) ||
        !open_binary_child(s, arr, lo, length, "value", &v->vvalue))
        return batch_fail(err, r, "has no variant storage (metadata, value binary) for it",
                          s->format);
    v->st = ST_VARIANT;
    return 0;
}

static int open_view(const struct colref *r, const struct ArrowSchema *schema,
                     const struct ArrowArray *batch, struct colview *v, struct error *err)
{
    memset(v, 0, sizeof *v);
    const struct ArrowSchema *s = schema;
    const struct ArrowArray *arr = batch;
    int64_t lo = batch->offset; /* logical index of batch row 0 in arr */
    for (uint32_t d = 0; d < r->depth; d++) {
        uint32_t i = r->path[d];
        if (strcmp(s->format, "+s") != 0 || (int64_t)i >= s->n_children ||
            (int64_t)i >= arr->n_children)
            return batch_fail(err, r, d ? "has no struct on its path" : "has no such column",
                              s->format);
        s = s->children[i];
        arr = arr->children[i];
        if (arr->offset < 0 || arr->length < lo + batch->length || !arr->buffers)
            return batch_fail(err, r, "array is shorter than the batch", s->format);
        lo += arr->offset; /* now the physical index in arr */
        if (arr->null_count != 0 && arr->n_buffers > 0 && arr->buffers[0]) {
            v->valid[v->nvalid] = arr->buffers[0];
            v->valid_off[v->nvalid++] = lo;
        }
    }
    if (r->nvkeys)
        return open_variant(r, s, arr, lo, batch->length, v, err);
    if (!expr_store_of(r, s->format, &v->st))
        return batch_fail(err, r, "array's format does not fit", s->format);
    if (arr->n_buffers < buffers_of(v->st) ||
        (batch->length > 0 && v->st != ST_NONE &&
         (!arr->buffers[1] || (buffers_of(v->st) == 3 && !arr->buffers[2]))))
        return batch_fail(err, r, "array lacks its buffers", s->format);
    v->off = lo;
    v->values = v->st == ST_NONE ? NULL : arr->buffers[1];
    v->data = buffers_of(v->st) == 3 ? arr->buffers[2] : NULL;
    return 0;
}

int expr_views_open(const struct colset *cs, const struct ArrowSchema *schema,
                    const struct ArrowArray *batch, struct colview *views, struct error *err)
{
    if (strcmp(schema->format, "+s") != 0 || batch->length < 0 || batch->offset < 0)
        return error_fail(err, ERR_INVALID, "a batch is a struct array, not '%.40s'",
                          schema->format);
    for (size_t k = 0; k < cs->n; k++)
        if (open_view(&cs->refs[k], schema, batch, &views[k], err) != 0)
            return -1;
    return 0;
}

/* ---- reading values ---- */

/* ok[i] (and=false) or ok[i] &= (and=true) bit base+i, a byte of bits at
 * a time where the bits start on a byte. */
static void bits_to_bytes(const uint8_t *bits, int64_t base, int64_t n, uint8_t *ok, bool and)
{
    int64_t i = 0;
    if (base % 8 == 0) {
        const uint8_t *b = bits + base / 8;
        for (; i + 8 <= n; i += 8) {
            uint8_t x = b[i / 8], *o = ok + i;
            for (int k = 0; k < 8; k++)
                o[k] = (uint8_t)(and? o[k] & (x >> k) : (x >> k) & 1);
        }
    }
    for (; i < n; i++)
        ok[i] = and? (uint8_t)(ok[i] & arrow_bit(bits, base + i)) : arrow_bit(bits, base + i);
}

bool expr_view_valid(const struct colview *v, int64_t r0, int64_t n, uint8_t *ok)
{
    if (v->nvalid == 0)
        return false;
    for (int k = 0; k < v->nvalid; k++)
        bits_to_bytes(v->valid[k], v->valid_off[k] + r0, n, ok, k > 0);
    return true;
}

/* Value i of a binary array's offsets (32- or 64-bit) and data. */
static const uint8_t *offsets_bytes(const uint8_t *offsets, const uint8_t *data, bool wide,
                                    int64_t i, size_t *len)
{
    int64_t a, b;
    if (wide) {
        int64_t o[2];
        memcpy(o, offsets + 8 * i, sizeof o);
        a = o[0], b = o[1];
    } else {
        int32_t o[2];
        memcpy(o, offsets + 4 * i, sizeof o);
        a = o[0], b = o[1];
    }
    *len = b > a ? (size_t)(b - a) : 0;
    return data + a;
}

const uint8_t *expr_view_bytes(const struct colview *v, int64_t row, size_t *len)
{
    int64_t i = v->off + row;
    if (v->st == ST_FIX16) {
        *len = 16;
        return v->values + 16 * i;
    }
    return offsets_bytes(v->values, v->data, v->st == ST_STR64, i, len);
}

#define LOAD(T, v, i)                                                                              \
    __extension__({                                                                                \
        T x_;                                                                                      \
        memcpy(&x_, (v)->values + sizeof(T) * (size_t)(i), sizeof x_);                             \
        x_;                                                                                        \
    })

int64_t expr_view_int(const struct colview *v, int64_t row)
{
    int64_t i = v->off + row;
    switch (v->st) {
    case ST_BOOL: return arrow_bit(v->values, i);
    case ST_I8: return LOAD(int8_t, v, i);
    case ST_I16: return LOAD(int16_t, v, i);
    case ST_I32: return LOAD(int32_t, v, i);
    case ST_U8: return LOAD(uint8_t, v, i);
    case ST_U16: return LOAD(uint16_t, v, i);
    case ST_U32: return LOAD(uint32_t, v, i);
    case ST_U64: return (int64_t)LOAD(uint64_t, v, i);
    default: return LOAD(int64_t, v, i);
    }
}

uint64_t expr_view_u64(const struct colview *v, int64_t row)
{
    return LOAD(uint64_t, v, v->off + row);
}

i128 expr_view_dec(const struct colview *v, int64_t row)
{
    if (v->st == ST_D128)
        return LOAD(i128, v, v->off + row);
    if (v->st == ST_U64)
        return (i128)expr_view_u64(v, row);
    return expr_view_int(v, row);
}

double expr_view_double(const struct colview *v, int64_t row)
{
    if (v->st == ST_F32)
        return LOAD(float, v, v->off + row);
    return LOAD(double, v, v->off + row);
}

/* ---- comparison kernels ---- */

/* One kernel for every numeric type. Floats compare as the language does:
 * NaN equals NaN and sorts above everything (so x > c holds for a NaN x,
 * hence !(x <= c)); -0.0 equals 0.0, as IEEE == already says. ISNAN is
 * never_nan for the integers, where the NaN branches fold away. */
#define never_nan(x) false
#define CMP_KERNEL(NAME, T, ISNAN)                                                                 \
    static void NAME(const uint8_t *base, int64_t n, T c, enum expr_op op, uint8_t *restrict out)  \
    {                                                                                              \
        const T *restrict v = (const T *)(const void *)base;                                       \
        if (ISNAN(c)) {                                                                            \
            bool eq = op == OP_EQ || op == OP_LE || op == OP_GE,                                   \
                 lt = op == OP_LT || op == OP_LE || op == OP_NE;                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                out[i] = ISNAN(v[i]) ? eq : lt;                                                    \
            return;                                                                                \
        }                                                                                          \
        switch (op) {                                                                              \
        case OP_EQ:                                                                                \
            for (int64_t i = 0; i < n; i++)                                                        \
                out[i] = v[i] == c;                                                                \
            break;                                                                                 \
        case OP_NE:                                                                                \
            for (int64_t i = 0; i < n; i++)                                                        \
                out[i] = !(v[i] == c);                                                             \
            break;                                                                                 \
        case OP_LT:                                                                                \
            for (int64_t i = 0; i < n; i++)                                                        \
                out[i] = v[i] < c;                                                                 \
            break;                                                                                 \
        case OP_LE:                                                                                \
            for (int64_t i = 0; i < n; i++)                                                        \
                out[i] = v[i] <= c;                                                                \
            break;                                                                                 \
        case OP_GT:                                                                                \
            for (int64_t i = 0; i < n; i++)                                                        \
                out[i] = !(v[i] <= c);                                                             \
            break;                                                                                 \
        default:                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                out[i] = !(v[i] < c);                                                              \
            break;                                                                                 \
        }                                                                                          \
    }

CMP_KERNEL(cmp_i8, int8_t, never_nan)
CMP_KERNEL(cmp_i16, int16_t, never_nan)
CMP_KERNEL(cmp_i32, int32_t, never_nan)
CMP_KERNEL(cmp_i64, int64_t, never_nan)
CMP_KERNEL(cmp_u8, uint8_t, never_nan)
CMP_KERNEL(cmp_u16, uint16_t, never_nan)
CMP_KERNEL(cmp_u32, uint32_t, never_nan)
CMP_KERNEL(cmp_u64, uint64_t, never_nan)
CMP_KERNEL(cmp_f32, float, isnan)
CMP_KERNEL(cmp_f64, double, isnan)

bool expr_op_holds(enum expr_op op, int c)
{
    switch (op) {
    case OP_EQ: return c == 0;
    case OP_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    default: return c >= 0;
    }
}

static int cmp_mem(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (an > bn) - (an < bn);
}

/* Byte order of short strings without a call: most differ early. */
static inline int cmp_short(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    if (n > 16)
        return cmp_mem(a, an, b, bn);
    for (size_t k = 0; k < n; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return (an > bn) - (an < bn);
}

static inline bool bytes_equal(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an == bn && (an == 0 || (a[0] == b[0] && memcmp(a, b, an) == 0));
}

/* Strings and binary with offsets of type OT, straight from the buffers. */
#define BYTES_KERNEL(NAME, OT)                                                                     \
    static void NAME(const struct colview *v, int64_t i0, int64_t n, const struct lake_value *c,   \
                     enum expr_op op, uint8_t *restrict out)                                       \
    {                                                                                              \
        const OT *o = (const OT *)(const void *)v->values + i0;                                    \
        const uint8_t *cb = c->bytes.data;                                                         \
        size_t cn = c->bytes.len;                                                                  \
        if (op == OP_EQ || op == OP_NE) {                                                          \
            for (int64_t i = 0; i < n; i++)                                                        \
                out[i] = bytes_equal(v->data + o[i], (size_t)(o[i + 1] - o[i]), cb, cn) ==         \
                         (op == OP_EQ);                                                            \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            out[i] =                                                                               \
                expr_op_holds(op, cmp_short(v->data + o[i], (size_t)(o[i + 1] - o[i]), cb, cn));   \
    }

BYTES_KERNEL(cmp_str32, int32_t)
BYTES_KERNEL(cmp_str64, int64_t)

static void cmp_fixed16(const struct colview *v, int64_t r0, int64_t n, const struct lake_value *c,
                        enum expr_op op, uint8_t *out)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = expr_op_holds(
            op, cmp_mem(v->values + 16 * (v->off + r0 + i), 16, c->bytes.data, c->bytes.len));
}

static void cmp_literal(const struct pnode *p, const struct colview *v, int64_t r0, int64_t n,
                        uint8_t *out)
{
    const struct lake_value *c = &p->lit.v;
    int64_t i0 = v->off + r0;
    const uint8_t *b = v->values;
    switch (v->st) {
    case ST_I8: cmp_i8(b + i0, n, (int8_t)c->i, p->op, out); break;
    case ST_I16: cmp_i16(b + 2 * i0, n, (int16_t)c->i, p->op, out); break;
    case ST_I32: cmp_i32(b + 4 * i0, n, (int32_t)c->i, p->op, out); break;
    case ST_I64: cmp_i64(b + 8 * i0, n, c->i, p->op, out); break;
    case ST_U8: cmp_u8(b + i0, n, (uint8_t)c->i, p->op, out); break;
    case ST_U16: cmp_u16(b + 2 * i0, n, (uint16_t)c->i, p->op, out); break;
    case ST_U32: cmp_u32(b + 4 * i0, n, (uint32_t)c->i, p->op, out); break;
    case ST_U64: cmp_u64(b + 8 * i0, n, c->u, p->op, out); break;
    case ST_F32: cmp_f32(b + 4 * i0, n, (float)c->d, p->op, out); break;
    case ST_F64: cmp_f64(b + 8 * i0, n, c->d, p->op, out); break;
    case ST_D128:
        for (int64_t i = 0; i < n; i++) {
            i128 x = LOAD(i128, v, i0 + i);
            out[i] = expr_op_holds(p->op, (x > c->dec) - (x < c->dec));
        }
        break;
    case ST_BOOL:
        for (int64_t i = 0; i < n; i++)
            out[i] = expr_op_holds(p->op, (int)arrow_bit(b, i0 + i) - (int)c->b);
        break;
    case ST_STR32: cmp_str32(v, i0, n, c, p->op, out); break;
    case ST_STR64: cmp_str64(v, i0, n, c, p->op, out); break;
    default: cmp_fixed16(v, r0, n, c, p->op, out); break;
    }
}

/* ---- IN ---- */

static bool in_keys(const int64_t *keys, size_t n, int64_t x)
{
    size_t at = LOWER_BOUND(n, i, keys[i] < x);
    return at < n && keys[at] == x;
}

/* Binary search of the set's items with a comparison of the row's value
 * against item k. */
#define IN_ITEMS(set, cmp_k)                                                                       \
    __extension__({                                                                                \
        size_t k_ = LOWER_BOUND((set)->n, k, (cmp_k) > 0);                                         \
        size_t k = k_;                                                                             \
        k < (set)->n && (cmp_k) == 0;                                                              \
    })

static inline bool in_bitmap(const struct in_set *s, int64_t x)
{
    uint64_t at = (uint64_t)x - (uint64_t)s->keys[0];
    return at <= (uint64_t)s->keys[s->n - 1] - (uint64_t)s->keys[0] &&
           (s->bitmap[at / 8] >> (at % 8) & 1);
}

#define IN_INT_LOOP(T)                                                                             \
    do {                                                                                           \
        const T *restrict vv = (const T *)(const void *)(v->values) + i0;                          \
        if (s->bitmap)                                                                             \
            for (int64_t i = 0; i < n; i++)                                                        \
                out[i] = in_bitmap(s, (int64_t)vv[i]) != neg;                                      \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                out[i] = in_keys(s->keys, s->n, (int64_t)vv[i]) != neg;                            \
    } while (0)

static void in_set(const struct pnode *p, const struct colview *v, int64_t r0, int64_t n,
                   uint8_t *out)
{
    const struct in_set *s = &p->in;
    int64_t i0 = v->off + r0;
    bool neg = p->negated;
    switch (v->st) {
    case ST_I8: IN_INT_LOOP(int8_t); break;
    case ST_I16: IN_INT_LOOP(int16_t); break;
    case ST_I32: IN_INT_LOOP(int32_t); break;
    case ST_I64: IN_INT_LOOP(int64_t); break;
    case ST_U8: IN_INT_LOOP(uint8_t); break;
    case ST_U16: IN_INT_LOOP(uint16_t); break;
    case ST_U32: IN_INT_LOOP(uint32_t); break;
    case ST_BOOL:
        for (int64_t i = 0; i < n; i++)
            out[i] = in_keys(s->keys, s->n, arrow_bit(v->values, i0 + i)) != neg;
        break;
    case ST_F32:
    case ST_F64:
        for (int64_t i = 0; i < n; i++)
            out[i] = in_keys(s->keys, s->n, expr_float_key(expr_view_double(v, r0 + i))) != neg;
        break;
    case ST_U64:
        for (int64_t i = 0; i < n; i++) {
            uint64_t x = expr_view_u64(v, r0 + i);
            out[i] = IN_ITEMS(s, (x > s->items[k].v.u) - (x < s->items[k].v.u)) != neg;
        }
        break;
    case ST_D128:
        for (int64_t i = 0; i < n; i++) {
            i128 x = expr_view_dec(v, r0 + i);
            out[i] = IN_ITEMS(s, (x > s->items[k].v.dec) - (x < s->items[k].v.dec)) != neg;
        }
        break;
    default:
        for (int64_t i = 0; i < n; i++) {
            size_t len;
            const uint8_t *b = expr_view_bytes(v, r0 + i, &len);
            out[i] = IN_ITEMS(s, cmp_short(b, len, s->items[k].v.bytes.data,
                                           s->items[k].v.bytes.len)) != neg;
        }
        break;
    }
}

/* ---- two columns ---- */

/* a * 10^ka against b * 10^kb, without overflow: whichever side would
 * overflow is beyond any value of the other (both below 10^38 or 2^64). */
static int cmp_scaled(i128 a, int sa, i128 b, int sb)
{
    i128 x;
    if (sa < sb) {
        if (!expr_rescale(a, sa, sb, &x))
            return a < 0 ? -1 : 1;
        return (x > b) - (x < b);
    }
    if (!expr_rescale(b, sb, sa, &x))
        return b < 0 ? 1 : -1;
    return (a > x) - (a < x);
}

/* Doubles in the language's order (expr_float_key: NaN above all, -0.0
 * as 0.0). */
static int cmp_doubles(double a, double b)
{
    int64_t ka = expr_float_key(a), kb = expr_float_key(b);
    return (ka > kb) - (ka < kb);
}

static int column_scale(const struct colref *r)
{
    return r->type == LT_DECIMAL ? r->scale : 0;
}

static int compare_rows(const struct pnode *p, const struct colref *rx, const struct colref *ry,
                        const struct colview *x, const struct colview *y, int64_t row)
{
    switch (p->family) {
    case CF_INT:
        return cmp_scaled(expr_view_dec(x, row), column_scale(rx), expr_view_dec(y, row),
                          column_scale(ry));
    case CF_FLOAT: {
        double a = x->st == ST_F32 || x->st == ST_F64
                       ? expr_view_double(x, row)
                       : (double)expr_view_dec(x, row) / (double)expr_pow10(column_scale(rx));
        double b = y->st == ST_F32 || y->st == ST_F64
                       ? expr_view_double(y, row)
                       : (double)expr_view_dec(y, row) / (double)expr_pow10(column_scale(ry));
        return cmp_doubles(a, b);
    }
    case CF_TIME: {
        i128 a = (i128)expr_view_int(x, row) * expr_nanos_per_tick(rx->type);
        i128 b = (i128)expr_view_int(y, row) * expr_nanos_per_tick(ry->type);
        return (a > b) - (a < b);
    }
    case CF_BOOL: return (int)expr_view_int(x, row) - (int)expr_view_int(y, row);
    case CF_BYTES: {
        size_t an, bn;
        const uint8_t *a = expr_view_bytes(x, row, &an), *b = expr_view_bytes(y, row, &bn);
        return cmp_mem(a, an, b, bn);
    }
    }
    return 0;
}

/* ---- variant paths ---- */

static void and_mask(uint8_t *restrict out, const uint8_t *restrict mask, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out[i] &= mask[i];
}

static const uint8_t *binview_bytes(const struct binview *b, int64_t row, size_t *len)
{
    return offsets_bytes(b->offsets, b->data, b->wide, b->off + row, len);
}

/* The scalar at r's path in row `row`; false when the path is missing
 * (a key absent, a value on the way not an object) or the bytes do not
 * read. A null row's bytes read as whatever they are: its result is
 * masked out. */
static bool variant_at(const struct colref *r, const struct colview *v, int64_t row,
                       struct variant_scalar *x)
{
    size_t mlen, vlen;
    const uint8_t *m = binview_bytes(&v->vmeta, row, &mlen);
    const uint8_t *p = binview_bytes(&v->vvalue, row, &vlen);
    struct variant_dict d;
    struct error e;
    if (variant_dict_open(m, mlen, &d, &e) != 0)
        return false;
    for (size_t k = 0; k < r->nvkeys; k++)
        if (variant_object_field(&d, p, vlen, r->vkeys[k], r->vkey_lens[k], &p, &vlen) != 1)
            return false;
    return variant_scalar_read(p, vlen, x);
}

bool expr_vlit_compare(const struct variant_scalar *x, const struct vlit *l, int *c)
{
    switch (l->kind) {
    case VS_STRING:
        if (x->kind != VS_STRING)
            return false;
        *c = cmp_mem((const uint8_t *)x->s, x->len, (const uint8_t *)l->s, l->len);
        return true;
    case VS_BOOL:
        if (x->kind != VS_BOOL)
            return false;
        *c = (int)x->b - (int)l->b;
        return true;
    default: /* a number */
        if (x->kind == VS_DOUBLE || (!l->exact && (x->kind == VS_INT || x->kind == VS_DECIMAL)))
            *c = cmp_doubles(x->kind == VS_DOUBLE ? x->d
                             : x->kind == VS_INT
                                 ? (double)x->i
                                 : (double)x->unscaled / (double)expr_pow10(x->scale),
                             l->d);
        else if (x->kind == VS_INT)
            *c = cmp_scaled(x->i, 0, l->unscaled, l->scale);
        else if (x->kind == VS_DECIMAL)
            *c = cmp_scaled(x->unscaled, x->scale, l->unscaled, l->scale);
        else
            return false;
        return true;
    }
}

static void variant_compare(const struct pnode *p, const struct colref *r, const struct colview *v,
                            int64_t r0, int64_t n, uint8_t *out)
{
    for (int64_t i = 0; i < n; i++) {
        struct variant_scalar x;
        int c = 0;
        out[i] = variant_at(r, v, r0 + i, &x) && expr_vlit_compare(&x, &p->vlit, &c) &&
                 expr_op_holds(p->op, c);
    }
}

/* IS [NOT] NULL of a variant path: null when the row is, when the path is
 * missing, or when it holds a Variant null. */
static void variant_null(const struct pnode *p, const struct colref *r, const struct colview *v,
                         int64_t r0, int64_t n, uint8_t *out, uint8_t *tmp)
{
    for (int64_t i = 0; i < n; i++) {
        struct variant_scalar x;
        out[i] = variant_at(r, v, r0 + i, &x) && x.kind != VS_NULL; /* present */
    }
    if (expr_view_valid(v, r0, n, tmp))
        and_mask(out, tmp, n);
    if (!p->negated)
        for (int64_t i = 0; i < n; i++)
            out[i] ^= 1;
}

/* ---- the tree ---- */

struct eval_ctx {
    const struct colref *refs;
    const struct colview *views;
    uint8_t *scratch;
};

static void eval_node(const struct pnode *p, const struct eval_ctx *c, int64_t r0, int64_t n,
                      uint8_t *out, size_t level)
{
    uint8_t *tmp = c->scratch + level * EXPR_CHUNK;
    const struct colview *v = p->kind == PN_CONST ? NULL : &c->views[p->col];
    switch (p->kind) {
    case PN_CONST: memset(out, p->value, (size_t)n); return;
    case PN_AND:
    case PN_OR: {
        bool and = p->kind == PN_AND;
        eval_node(p->kids[0], c, r0, n, out, level);
        for (size_t k = 1; k < p->nkids; k++) {
            /* A chunk all FALSE (AND) or all TRUE (OR) is decided. */
            if (!memchr(out, and? 1 : 0, (size_t)n))
                return;
            eval_node(p->kids[k], c, r0, n, tmp, level + 1);
            if (and)
                and_mask(out, tmp, n);
            else
                for (int64_t i = 0; i < n; i++)
                    out[i] |= tmp[i];
        }
        return;
    }
    case PN_NULL:
        if (c->refs[p->col].nvkeys) {
            variant_null(p, &c->refs[p->col], v, r0, n, out, tmp);
            return;
        }
        if (!expr_view_valid(v, r0, n, out))
            memset(out, p->negated, (size_t)n);
        else if (!p->negated)
            for (int64_t i = 0; i < n; i++)
                out[i] ^= 1;
        return;
    case PN_CMP: cmp_literal(p, v, r0, n, out); break;
    case PN_VCMP: variant_compare(p, &c->refs[p->col], v, r0, n, out); break;
    case PN_IN: in_set(p, v, r0, n, out); break;
    case PN_CMP_COLS: {
        const struct colview *w = &c->views[p->col2];
        for (int64_t i = 0; i < n; i++)
            out[i] = expr_op_holds(
                p->op, compare_rows(p, &c->refs[p->col], &c->refs[p->col2], v, w, r0 + i));
        if (expr_view_valid(w, r0, n, tmp))
            and_mask(out, tmp, n);
        break;
    }
    }
    /* A test on a null value is unknown: not TRUE. */
    if (expr_view_valid(v, r0, n, tmp))
        and_mask(out, tmp, n);
}

void expr_pnode_eval(const struct pnode *p, const struct colref *refs, const struct colview *views,
                     int64_t r0, int64_t n, uint8_t *out, uint8_t *scratch)
{
    struct eval_ctx c = {refs, views, scratch};
    eval_node(p, &c, r0, n, out, 0);
}

int expr_pred_eval(const struct expr_pred *p, const struct ArrowSchema *schema,
                   const struct ArrowArray *batch, uint8_t *selected, int64_t *nselected,
                   struct error *err)
{
    struct colview *views = calloc(p->cols.n ? p->cols.n : 1, sizeof *views);
    uint8_t *scratch = malloc((p->levels ? p->levels : 1) * EXPR_CHUNK);
    int rc = -1;
    if (!views || !scratch) {
        error_nomem(err);
        goto out;
    }
    if (expr_views_open(&p->cols, schema, batch, views, err) != 0)
        goto out;
    struct eval_ctx c = {p->cols.refs, views, scratch};
    int64_t count = 0;
    for (int64_t r0 = 0; r0 < batch->length; r0 += EXPR_CHUNK) {
        int64_t n = batch->length - r0 < EXPR_CHUNK ? batch->length - r0 : EXPR_CHUNK;
        eval_node(p->root, &c, r0, n, selected + r0, 0);
        for (int64_t i = 0; i < n; i++)
            count += selected[r0 + i];
    }
    if (nselected)
        *nselected = count;
    rc = 0;
out:
    free(views);
    free(scratch);
    return rc;
}
