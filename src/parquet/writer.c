#include "parquet/writer.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parquet/bound.h"
#include "parquet/compress.h"
#include "parquet/dict_key.h"
#include "parquet/encoding.h"
#include "parquet/page_pool.h"
#include "parquet/variant_layout.h"
#include "parquet/variant_shred.h"
#include "util/array.h"
#include "util/arrow.h"
#include "util/hash.h"

enum {
    /* Byte-array bounds longer than this are omitted from a chunk's
     * statistics, never truncated; the page index cuts them to it. */
    STAT_MAX_BYTES = 4096,
    ROWS_PER_STEP = 1024, /* at most this many rows between row-group-size checks */
    /* After this many values a chunk whose values are mostly distinct
     * stops dictionary encoding: the dictionary would cost hashing and
     * space and save nothing. */
    DICT_PROBE_VALUES = 8192,
};

/* How a value in the Arrow input becomes a physical Parquet value. */
enum conv {
    CONV_COPY,      /* same width, same bits */
    CONV_I8_TO_I32, /* sign-extend */
    CONV_I16_TO_I32,
    CONV_U8_TO_I32, /* zero-extend */
    CONV_U16_TO_I32,
    CONV_U32_TO_I64,
    CONV_SEC_TO_MILLIS,
    CONV_DEC128_TO_FLBA,
    CONV_BOOL,
    CONV_BYTES32, /* BYTE_ARRAY from int32 offsets */
    CONV_BYTES64, /* BYTE_ARRAY from int64 offsets */
};

/* How statistics order values. */
enum cmp_kind {
    CMP_BOOL,
    CMP_I32,
    CMP_I64,
    CMP_U64,
    CMP_F32,
    CMP_F64,
    CMP_BYTES,       /* unsigned lexicographic, any length */
    CMP_FLBA_SIGNED, /* decimals: two's complement big-endian */
};

struct minmax {
    bool has;
    uint8_t min[16], max[16]; /* fixed-width values */
    struct buf min_var, max_var;
    bool too_long; /* a byte-array bound past STAT_MAX_BYTES */
};

struct page_entry {
    int64_t rel_offset; /* from the start of the chunk's data pages */
    int32_t size;       /* header included */
    int64_t first_row;
    bool null_page;
    int64_t nulls;
    size_t min_off, min_len, max_off, max_len; /* into colw.pidx_bounds */
};

/* One step on the way from a top-level column to a leaf. */
struct path_step {
    const struct pq_node *node;
    int child;  /* STRUCT: which child holds the leaf */
    bool large; /* LIST: the batch's list has 64-bit offsets ("+L") */
};

struct colw {
    const struct pq_node *leaf;
    int top; /* top-level column index */
    struct path_step steps[PQ_MAX_SCHEMA_DEPTH + 1];
    int nsteps;
    enum lake_type ltype;
    enum pq_type phys;
    int width; /* fixed physical width; 0 for BYTE_ARRAY */
    enum conv conv;
    enum cmp_kind cmp;
    int16_t max_def, max_rep;
    /* GEOMETRY and GEOGRAPHY: bytes have no order the format defines, so
     * no min/max (nor a ColumnIndex) is written */
    bool no_bounds;
    bool delta; /* values DELTA_BINARY_PACKED (INT64 only) */

    /* the page being filled */
    struct pq_page_bufs pg;
    int64_t page_plain_bytes;
    int64_t page_rows;
    int64_t page_values; /* non-null values */
    struct minmax page_mm;

    /* the dictionary of the current row group */
    bool dict_on;   /* new pages are dictionary-encoded */
    bool dict_used; /* some page of this chunk is */
    struct buf dict_data;
    uint32_t *dict_off; /* byte arrays: dict_n + 1 offsets into dict_data */
    uint64_t *dict_hash;
    uint32_t *dict_stamp; /* page number in which each entry was last seen */
    size_t dict_n, dict_cap;
    uint64_t *slots; /* see DICT_SLOT: 0 = empty */
    size_t nslots;
    int64_t dict_bytes;
    int64_t dict_values; /* values dictionary-encoded in this chunk */

    /* the chunk of the current row group */
    struct buf chunk;
    int64_t chunk_values;
    int64_t chunk_uncompressed;
    int64_t chunk_nulls;
    struct minmax chunk_mm;
    bool chunk_plain_pages, chunk_dict_pages;
    struct page_entry *pages;
    size_t npages, pagecap;
    size_t ncollected;    /* pages whose sealed bytes are in chunk */
    struct buf dict_page; /* the chunk's sealed dictionary page */
    int64_t dict_page_uncompressed;
    struct buf pidx_bounds;
    int64_t chunk_rows;
    uint32_t page_no;
};

struct index_ref {
    size_t ci_off, ci_len, oi_off, oi_len;
    bool has_ci;
};

struct pq_writer {
    struct arena arena;
    struct pq_schema schema;
    struct pq_write_options opt;
    struct pq_key_value *kv;
    struct pq_sink sink;
    /* Pages are encoded and compressed by page jobs, on the pool's
     * threads when there are any, and taken back in order. */
    struct pq_page_pool *pool;
    size_t inflight_bytes;    /* raw input of the jobs out */
    struct lake_column **top; /* the table's top-level columns (a private copy) */
    /* Per top-level column: the Arrow schema of a shredded variant's
     * storage, into which its table-form batches are shredded; NULL for
     * every other column. */
    struct ArrowSchema **shredded;
    /* Where the shredded columns' values went, in the arena (the result
     * takes it). */
    struct pq_variant_counts *variant;
    size_t nvariant;
    struct colw *cols;
    int ncols;
    int ntop;
    uint64_t offset;
    int64_t rg_rows;
    int64_t rg_bytes;
    struct pq_row_group *rgs;
    size_t nrg, rgcap;
    int64_t total_rows;
    struct buf ci_all, oi_all;
    struct index_ref *refs; /* nrg * ncols */
    bool failed;
    int64_t step_rows; /* rows per shredding step, sized from bytes per row */
};

void pq_write_options_default(struct pq_write_options *o)
{
    memset(o, 0, sizeof *o);
    o->codec = PQ_ZSTD;
    o->row_group_bytes = 128 * 1024 * 1024;
    o->page_bytes = 1024 * 1024;
    o->page_rows = 20000;
    o->dictionary_bytes = 1024 * 1024;
    o->dictionary = true;
    o->page_index = true;
}

/* ---- sinks ---- */

int pq_sink_fd_write(void *ctx, const void *data, size_t len, struct error *err)
{
    int fd = *(int *)ctx;
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return error_fail(err, ERR_IO, "write: %s", strerror(errno));
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ---- Arrow formats ---- */

const char *pq_arrow_format_for(const struct lake_column *c, char *buf, size_t size)
{
    switch (c->type) {
    case LT_BOOLEAN: return "b";
    case LT_INT8: return "c";
    case LT_INT16: return "s";
    case LT_INT: return "i";
    case LT_LONG: return "l";
    case LT_UINT8: return "C";
    case LT_UINT16: return "S";
    case LT_UINT32: return "I";
    case LT_UINT64: return "L";
    case LT_FLOAT: return "f";
    case LT_DOUBLE: return "g";
    case LT_DECIMAL: snprintf(buf, size, "d:%d,%d", c->precision, c->scale); return buf;
    case LT_DATE: return "tdD";
    case LT_TIME: return "ttu";
    case LT_TIMESTAMP_S: return "tss:";
    case LT_TIMESTAMP_MS: return "tsm:";
    case LT_TIMESTAMP: return "tsu:";
    case LT_TIMESTAMP_NS: return c->instant ? "tsn:UTC" : "tsn:";
    case LT_TIMESTAMPTZ: return "tsu:UTC";
    case LT_STRING:
    case LT_JSON: return "u";
    case LT_UUID: return "w:16";
    case LT_BINARY: return "z";
    case LT_LIST: return "+l";
    case LT_STRUCT: return "+s";
    case LT_MAP: return "+m";
    case LT_VARIANT: return "+s"; /* its storage struct (variant_layout.h) */
    case LT__COUNT: break;
    }
    return "?";
}

/* Whether an incoming Arrow format can feed a column of this type. */
static bool format_ok(const struct lake_column *c, const char *f)
{
    char want[32];
    const char *w = pq_arrow_format_for(c, want, sizeof want);
    switch (c->type) {
    case LT_STRING:
    case LT_JSON: return strcmp(f, "u") == 0 || strcmp(f, "U") == 0;
    case LT_BINARY: return strcmp(f, "z") == 0 || strcmp(f, "Z") == 0;
    case LT_LIST: return strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0;
    case LT_TIMESTAMPTZ: return strncmp(f, "tsu:", 4) == 0 && f[4] != '\0';
    case LT_DECIMAL: {
        /* "d:P,S" or "d:P,S,128"; the scale must match, the precision fit. */
        int p, s, bits = 128;
        char tail;
        int n = sscanf(f, "d:%d,%d,%d%c", &p, &s, &bits, &tail);
        return (n == 2 || n == 3) && bits == 128 && s == c->scale && p <= c->precision && p > 0;
    }
    default: return strcmp(f, w) == 0;
    }
}

/* ---- column setup ---- */

static int find_path(const struct pq_node *from, const struct pq_node *leaf,
                     struct path_step *steps, int *n)
{
    steps[*n].node = from;
    steps[*n].child = -1;
    (*n)++;
    if (from == leaf)
        return 0;
    if (from->kind == PQN_LIST || from->kind == PQN_MAP)
        return find_path(from->element, leaf, steps, n);
    for (int i = 0; i < from->nchildren; i++) {
        const struct pq_node *k = from->children[i];
        if (leaf->leaf_index >= k->first_leaf && leaf->leaf_index < k->first_leaf + k->nleaves) {
            steps[*n - 1].child = i;
            return find_path(k, leaf, steps, n);
        }
    }
    return -1;
}

/* The writer's column (w->top, variant storage included) that a leaf's
 * path steps lead to. */
static const struct lake_column *column_for_steps(const struct pq_writer *w, const struct colw *c)
{
    const struct lake_column *col = w->top[c->top];
    for (int k = 0; k < c->nsteps - 1 && col; k++) {
        const struct path_step *st = &c->steps[k];
        if (st->node->kind == PQN_STRUCT)
            col = (size_t)st->child < col->nchildren ? col->children[st->child] : NULL;
        else if (st->node->kind == PQN_LIST)
            col = col->nchildren == 1 ? col->children[0] : NULL;
        /* a MAP step leads to its key_value struct, whose step picks the
         * key or the value among the map column's two children */
    }
    return col;
}

/* Puts the options' GEOMETRY/GEOGRAPHY annotations on the binary leaves
 * whose field ids they name. */
static int annotate_leaves(struct pq_writer *w, const struct lake_table *t, struct error *err)
{
    for (size_t k = 0; k < w->opt.nlogicals; k++) {
        const struct pq_column_logical *cl = &w->opt.logicals[k];
        if (!pq_logical_is_geo(&cl->logical))
            return error_fail(err, ERR_INVALID, "only GEOMETRY and GEOGRAPHY annotate a column");
        for (int i = 0; i < w->schema.nleaves; i++) {
            const struct pq_node *leaf = w->schema.leaves[i];
            const struct lake_column *lc =
                leaf->el->has_field_id ? lake_table_find_field(t, leaf->el->field_id) : NULL;
            if (!leaf->el->has_field_id || leaf->el->field_id != cl->field_id || !lc ||
                lc->type != LT_BINARY)
                continue;
            /* The writer's own schema: its elements live in w->arena. */
            struct pq_schema_element *e = (struct pq_schema_element *)leaf->el;
            e->logical = cl->logical;
            if (cl->logical.crs && !(e->logical.crs = arena_strdup(&w->arena, cl->logical.crs)))
                return error_fail(err, ERR_NOMEM, "out of memory");
        }
    }
    return 0;
}

/* How a leaf's Arrow values become Parquet ones: the physical width (0:
 * byte arrays), the conversion and the statistics' order. */
static void plan_leaf(struct colw *c, int width, enum conv conv, enum cmp_kind cmp)
{
    c->width = width;
    c->conv = conv;
    c->cmp = cmp;
}

static int setup_column(struct pq_writer *w, int i, struct error *err)
{
    struct colw *c = &w->cols[i];
    const struct pq_node *leaf = w->schema.leaves[i];
    c->leaf = leaf;
    const struct pq_node *top = leaf;
    while (top->parent && top->parent != w->schema.root)
        top = top->parent;
    for (int k = 0; k < w->schema.root->nchildren; k++)
        if (w->schema.root->children[k] == top)
            c->top = k;
    if (find_path(top, leaf, c->steps, &c->nsteps) != 0)
        return error_fail(err, ERR_INVALID, "cannot find the path to column '%s'", leaf->path);
    const struct lake_column *lc = column_for_steps(w, c);
    if (!lc)
        return error_fail(err, ERR_INVALID, "no column for leaf '%s'", leaf->path);
    c->ltype = lc->type;
    c->phys = leaf->el->type;
    c->no_bounds = pq_logical_is_geo(&leaf->el->logical);
    c->max_def = leaf->def_level;
    c->max_rep = leaf->rep_level;
    for (size_t k = 0; k < w->opt.ndelta && c->phys == PQ_INT64; k++)
        c->delta = c->delta || w->opt.delta_field_ids[k] == lc->field_id;
    c->dict_on = w->opt.dictionary && c->phys != PQ_BOOLEAN && !c->delta;
    switch (lc->type) {
    case LT_BOOLEAN: plan_leaf(c, 1, CONV_BOOL, CMP_BOOL); break;
    case LT_INT8: plan_leaf(c, 4, CONV_I8_TO_I32, CMP_I32); break;
    case LT_INT16: plan_leaf(c, 4, CONV_I16_TO_I32, CMP_I32); break;
    case LT_UINT8: plan_leaf(c, 4, CONV_U8_TO_I32, CMP_I32); break;
    case LT_UINT16: plan_leaf(c, 4, CONV_U16_TO_I32, CMP_I32); break;
    case LT_INT:
    case LT_DATE: plan_leaf(c, 4, CONV_COPY, CMP_I32); break;
    case LT_UINT32: plan_leaf(c, 8, CONV_U32_TO_I64, CMP_I64); break;
    case LT_UINT64: plan_leaf(c, 8, CONV_COPY, CMP_U64); break;
    case LT_LONG:
    case LT_TIME:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP:
    case LT_TIMESTAMP_NS:
    case LT_TIMESTAMPTZ: plan_leaf(c, 8, CONV_COPY, CMP_I64); break;
    case LT_TIMESTAMP_S: plan_leaf(c, 8, CONV_SEC_TO_MILLIS, CMP_I64); break;
    case LT_FLOAT: plan_leaf(c, 4, CONV_COPY, CMP_F32); break;
    case LT_DOUBLE: plan_leaf(c, 8, CONV_COPY, CMP_F64); break;
    case LT_DECIMAL:
        plan_leaf(c, leaf->el->type_length, CONV_DEC128_TO_FLBA, CMP_FLBA_SIGNED);
        break;
    case LT_UUID: plan_leaf(c, 16, CONV_COPY, CMP_BYTES); break;
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY: plan_leaf(c, 0, CONV_BYTES32, CMP_BYTES); break;
    default: return error_fail(err, ERR_INVALID, "column '%s' cannot be written", leaf->path);
    }
    return 0;
}

/* ---- statistics ---- */

/* Returns the order of two native values of `type` stored unaligned. */
#define RETURN_ORDER_AS(type, a, b)                                                                \
    do {                                                                                           \
        type x_, y_;                                                                               \
        memcpy(&x_, (a), sizeof x_);                                                               \
        memcpy(&y_, (b), sizeof y_);                                                               \
        return (x_ > y_) - (x_ < y_);                                                              \
    } while (0)

static int cmp_values(const struct colw *c, const uint8_t *a, size_t alen, const uint8_t *b,
                      size_t blen)
{
    switch (c->cmp) {
    case CMP_BOOL: return (int)a[0] - (int)b[0];
    case CMP_I32: RETURN_ORDER_AS(int32_t, a, b);
    case CMP_I64: RETURN_ORDER_AS(int64_t, a, b);
    case CMP_U64: RETURN_ORDER_AS(uint64_t, a, b);
    case CMP_F32: RETURN_ORDER_AS(float, a, b);
    case CMP_F64: RETURN_ORDER_AS(double, a, b);
    case CMP_FLBA_SIGNED: {
        /* Same-width two's complement big-endian: flip the sign bit and
         * compare as unsigned bytes. */
        if ((a[0] ^ 0x80) != (b[0] ^ 0x80))
            return (int)(a[0] ^ 0x80) - (int)(b[0] ^ 0x80);
        return memcmp(a + 1, b + 1, alen - 1);
    }
    case CMP_BYTES: {
        size_t n = alen < blen ? alen : blen;
        int r = n ? memcmp(a, b, n) : 0;
        if (r)
            return r;
        return (alen > blen) - (alen < blen);
    }
    }
    return 0;
}

#undef RETURN_ORDER_AS

static bool is_nan(const struct colw *c, const uint8_t *v)
{
    if (c->cmp == CMP_F32) {
        float f;
        memcpy(&f, v, 4);
        return isnan(f);
    }
    if (c->cmp == CMP_F64) {
        double d;
        memcpy(&d, v, 8);
        return isnan(d);
    }
    return false;
}

static int mm_set(struct minmax *m, bool is_min, const struct colw *c, const uint8_t *v, size_t len)
{
    if (c->width) {
        memcpy(is_min ? m->min : m->max, v, (size_t)c->width);
        return 0;
    }
    struct buf *b = is_min ? &m->min_var : &m->max_var;
    buf_reset(b);
    return buf_append(b, v, len);
}

static void mm_get(const struct minmax *m, bool is_min, const struct colw *c, const uint8_t **v,
                   size_t *len)
{
    if (c->width) {
        *v = is_min ? m->min : m->max;
        *len = (size_t)c->width;
        return;
    }
    const struct buf *b = is_min ? &m->min_var : &m->max_var;
    *v = (const uint8_t *)(b->data ? b->data : "");
    *len = b->len;
}

/* Folds one non-null value into a min/max pair. */
static int mm_update(struct minmax *m, const struct colw *c, const uint8_t *v, size_t len)
{
    if (is_nan(c, v))
        return 0; /* NaN is never a bound */
    if (!c->width && len > STAT_MAX_BYTES) {
        /* The chunk's statistics are omitted, but the page index still
         * bounds the page: by the value's prefix, which orders as the
         * value does against every other value's (see page_bounds). */
        m->too_long = true;
        len = STAT_MAX_BYTES;
    }
    if (!m->has) {
        m->has = true;
        if (mm_set(m, true, c, v, len) != 0 || mm_set(m, false, c, v, len) != 0)
            return -1;
        return 0;
    }
    const uint8_t *cur;
    size_t cur_len;
    mm_get(m, true, c, &cur, &cur_len);
    if (cmp_values(c, v, len, cur, cur_len) < 0)
        return mm_set(m, true, c, v, len); /* below the minimum: not above the maximum */
    mm_get(m, false, c, &cur, &cur_len);
    if (cmp_values(c, v, len, cur, cur_len) > 0)
        return mm_set(m, false, c, v, len);
    return 0;
}

static int mm_merge(struct minmax *into, const struct colw *c, const struct minmax *from)
{
    into->too_long |= from->too_long;
    if (!from->has)
        return 0;
    const uint8_t *v;
    size_t len;
    mm_get(from, true, c, &v, &len);
    if (mm_update(into, c, v, len) != 0)
        return -1;
    mm_get(from, false, c, &v, &len);
    return mm_update(into, c, v, len);
}

/* Zero bounds as -0.0 (min) and +0.0 (max): the Parquet and Iceberg rule,
 * since a zero bound says nothing about which zeros the data holds. */
static void mm_signed_zeros(struct minmax *m, const struct colw *c)
{
    if (!m->has)
        return;
    if (c->cmp == CMP_F32) {
        float f;
        memcpy(&f, m->min, 4);
        if (f == 0.0f) {
            f = -0.0f;
            memcpy(m->min, &f, 4);
        }
        memcpy(&f, m->max, 4);
        if (f == 0.0f) {
            f = 0.0f;
            memcpy(m->max, &f, 4);
        }
    } else if (c->cmp == CMP_F64) {
        double d;
        memcpy(&d, m->min, 8);
        if (d == 0.0) {
            d = -0.0;
            memcpy(m->min, &d, 8);
        }
        memcpy(&d, m->max, 8);
        if (d == 0.0) {
            d = 0.0;
            memcpy(m->max, &d, 8);
        }
    }
}

static void mm_reset(struct minmax *m)
{
    m->has = false;
    m->too_long = false;
    buf_reset(&m->min_var);
    buf_reset(&m->max_var);
}

static void mm_free(struct minmax *m)
{
    buf_free(&m->min_var);
    buf_free(&m->max_var);
}

/* ---- dictionary ---- */

static uint64_t hash_value(const struct colw *c, const uint8_t *v, size_t len)
{
    if (c->width == 4) {
        uint32_t x;
        memcpy(&x, v, 4);
        return hash_mix64(x);
    }
    if (c->width == 8) {
        uint64_t x;
        memcpy(&x, v, 8);
        return hash_mix64(x);
    }
    return pq_key_hash(v, len);
}

static const uint8_t *dict_value(const struct colw *c, size_t k, size_t *len)
{
    if (c->width) {
        *len = (size_t)c->width;
        return (const uint8_t *)c->dict_data.data + k * (size_t)c->width;
    }
    *len = c->dict_off[k + 1] - c->dict_off[k];
    return (const uint8_t *)c->dict_data.data + c->dict_off[k];
}

/* A hash slot holds entry index + 1 in its low 32 bits and the high 32
 * bits of the entry's hash above them: a probe compares values only when
 * those agree, without loading the entry's hash. */
#define DICT_SLOT(k, h) (((h)&0xffffffff00000000ULL) | ((uint64_t)(k) + 1))

static int dict_rehash(struct colw *c)
{
    size_t n = c->nslots ? c->nslots * 2 : 4096;
    uint64_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t k = 0; k < c->dict_n; k++) {
        size_t s = (size_t)c->dict_hash[k] & (n - 1);
        while (slots[s])
            s = (s + 1) & (n - 1);
        slots[s] = DICT_SLOT(k, c->dict_hash[k]);
    }
    free(c->slots);
    c->slots = slots;
    c->nslots = n;
    return 0;
}

static bool dict_holds(const struct colw *c, size_t k, const uint8_t *v, size_t len)
{
    size_t klen;
    const uint8_t *kv = dict_value(c, k, &klen);
    return klen == len && pq_key_equal(kv, v, len);
}

/* Room for one more entry in dict_hash, dict_stamp and dict_off, which
 * share one capacity that only moves once all three have grown. */
static int dict_grow(struct colw *c)
{
    if (c->dict_n < c->dict_cap)
        return 0;
    size_t cap = c->dict_cap ? c->dict_cap * 2 : 1024;
    void *hashes = realloc(c->dict_hash, cap * sizeof *c->dict_hash);
    if (!hashes)
        return -1;
    c->dict_hash = hashes;
    void *stamp = realloc(c->dict_stamp, cap * sizeof *c->dict_stamp);
    if (!stamp)
        return -1;
    c->dict_stamp = stamp;
    if (!c->width) {
        void *off = realloc(c->dict_off, (cap + 1) * sizeof *c->dict_off);
        if (!off)
            return -1;
        c->dict_off = off;
    }
    c->dict_cap = cap;
    return 0;
}

/* Adds a value as entry dict_n, whose slot is s. */
static int64_t dict_add(struct colw *c, size_t s, uint64_t h, const uint8_t *v, size_t len)
{
    size_t k = c->dict_n;
    if (dict_grow(c) != 0)
        return -1;
    if (!c->width && k == 0)
        c->dict_off[0] = 0;
    if (buf_append(&c->dict_data, v, len) != 0)
        return -1;
    if (!c->width)
        c->dict_off[k + 1] = (uint32_t)c->dict_data.len;
    c->dict_hash[k] = h;
    c->dict_stamp[k] = UINT32_MAX;
    c->slots[s] = DICT_SLOT(k, h);
    c->dict_n++;
    c->dict_bytes += (int64_t)len + (c->width ? 0 : 4);
    return (int64_t)k;
}

/* The dictionary index of a value whose hash is h, adding it when new.
 * -1 on memory failure. */
static int64_t dict_index(struct colw *c, uint64_t h, const uint8_t *v, size_t len)
{
    if ((c->dict_n + 1) * 2 > c->nslots && dict_rehash(c) != 0)
        return -1;
    const uint64_t tag = h & 0xffffffff00000000ULL;
    size_t mask = c->nslots - 1;
    size_t s = (size_t)h & mask;
    for (;;) {
        uint64_t e = c->slots[s];
        if (!e)
            return dict_add(c, s, h, v, len);
        size_t k = (uint32_t)e - 1;
        if ((e & 0xffffffff00000000ULL) == tag && dict_holds(c, k, v, len))
            return (int64_t)k;
        s = (s + 1) & mask;
    }
}

static void dict_reset(struct colw *c)
{
    buf_reset(&c->dict_data);
    c->dict_n = 0;
    c->dict_bytes = 0;
    c->dict_values = 0;
    if (c->slots)
        memset(c->slots, 0, c->nslots * sizeof *c->slots);
}

/* ---- appending levels and values to the current page ---- */

/* Room for n more level entries. Levels whose maximum is 0 are never
 * written: flat columns keep no repetition levels, required ones no
 * definition levels. */
static int reserve_levels(struct colw *c, size_t n)
{
    size_t need = c->pg.nlev + n;
    if ((c->max_def > 0 && ARRAY_RESERVE(c->pg.def, c->pg.defcap, need, 1024) != 0) ||
        (c->max_rep > 0 && ARRAY_RESERVE(c->pg.rep, c->pg.repcap, need, 1024) != 0))
        return -1;
    return 0;
}

static int push_level(struct colw *c, uint16_t d, uint16_t r)
{
    if (reserve_levels(c, 1) != 0)
        return -1;
    if (c->max_def > 0)
        c->pg.def[c->pg.nlev] = d;
    if (c->max_rep > 0)
        c->pg.rep[c->pg.nlev] = r;
    c->pg.nlev++;
    if (r == 0)
        c->page_rows++;
    return 0;
}

/* A page's PLAIN values start after a headroom (PQ_PAGE_HEADROOM, page_job.h). */
static int start_plain(struct colw *c)
{
    if (c->pg.plain.len)
        return 0;
    if (buf_reserve(&c->pg.plain, PQ_PAGE_HEADROOM) != 0)
        return -1;
    c->pg.plain.len = PQ_PAGE_HEADROOM;
    return 0;
}

/* One non-null value of a dictionary-encoded page, whose index array has
 * room for it; h is its hash_value(). */
static int push_dict_value(struct colw *c, uint64_t h, const uint8_t *v, size_t len)
{
    c->page_values++;
    c->page_plain_bytes += c->width ? c->width : (int64_t)len + 4;
    c->dict_values++;
    int64_t k = dict_index(c, h, v, len);
    if (k < 0)
        return -1;
    c->pg.idx[c->pg.nidx++] = (uint32_t)k;
    /* Page bounds only need each distinct value once per page. */
    if (c->dict_stamp[k] != c->page_no) {
        c->dict_stamp[k] = c->page_no;
        return mm_update(&c->page_mm, c, v, len);
    }
    return 0;
}

/* One non-null value in physical form. */
static int push_value(struct colw *c, const uint8_t *v, size_t len)
{
    if (c->dict_on) {
        if (ARRAY_RESERVE(c->pg.idx, c->pg.idxcap, c->pg.nidx + 1, 1024) != 0)
            return -1;
        return push_dict_value(c, hash_value(c, v, len), v, len);
    }
    c->page_values++;
    c->page_plain_bytes += c->width ? c->width : (int64_t)len + 4;
    if (start_plain(c) != 0)
        return -1;
    if (c->width) {
        if (c->conv == CONV_BOOL) {
            if (buf_putc(&c->pg.plain, (char)v[0]) != 0)
                return -1;
        } else if (buf_append(&c->pg.plain, v, (size_t)c->width) != 0) {
            return -1;
        }
    } else {
        uint32_t l32 = (uint32_t)len;
        if (buf_append(&c->pg.plain, &l32, 4) != 0 || buf_append(&c->pg.plain, v, len) != 0)
            return -1;
    }
    return mm_update(&c->page_mm, c, v, len);
}

static bool arrow_valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *bits = a->buffers[0];
    if (!bits || a->null_count == 0)
        return true;
    int64_t p = a->offset + i;
    return (bits[p >> 3] >> (p & 7)) & 1;
}

/* Stores element p of an array of `from` values, widened to `to`, in out
 * (both read and written unaligned). */
#define WIDEN_INTO(out, data, p, from, to)                                                         \
    do {                                                                                           \
        from s_;                                                                                   \
        memcpy(&s_, (data) + (p) * (int64_t)sizeof s_, sizeof s_);                                 \
        to x_ = s_;                                                                                \
        memcpy((out), &x_, sizeof x_);                                                             \
    } while (0)

/* Reads element i of a leaf array in physical form: fixed values into tmp,
 * byte arrays as a pointer into the array. 0, or -1 with err filled. */
static int load_value(const struct colw *c, const struct ArrowArray *a, int64_t i, uint8_t *tmp,
                      const uint8_t **v, size_t *len, struct error *err)
{
    int64_t p = a->offset + i;
    const uint8_t *data = a->buffers[1];
    *v = tmp;
    *len = (size_t)c->width;
    switch (c->conv) {
    case CONV_COPY: *v = data + p * c->width; return 0;
    case CONV_BOOL: tmp[0] = (data[p >> 3] >> (p & 7)) & 1; return 0;
    case CONV_I8_TO_I32: WIDEN_INTO(tmp, data, p, int8_t, int32_t); return 0;
    case CONV_I16_TO_I32: WIDEN_INTO(tmp, data, p, int16_t, int32_t); return 0;
    case CONV_U8_TO_I32: WIDEN_INTO(tmp, data, p, uint8_t, int32_t); return 0;
    case CONV_U16_TO_I32: WIDEN_INTO(tmp, data, p, uint16_t, int32_t); return 0;
    case CONV_U32_TO_I64: WIDEN_INTO(tmp, data, p, uint32_t, int64_t); return 0;
    case CONV_SEC_TO_MILLIS: {
        int64_t s;
        memcpy(&s, data + p * 8, 8);
        if (s > INT64_MAX / 1000 || s < INT64_MIN / 1000)
            return error_fail(err, ERR_INVALID,
                              "column '%s': timestamp %lld s is out of range in milliseconds",
                              c->leaf->path, (long long)s);
        int64_t x = s * 1000;
        memcpy(tmp, &x, 8);
        return 0;
    }
    case CONV_DEC128_TO_FLBA: {
        /* Arrow decimal128 is 16 bytes little-endian; the column stores the
         * low `width` bytes big-endian, which must carry the whole value. */
        const uint8_t *le = data + p * 16;
        uint8_t sign = (le[15] & 0x80) ? 0xff : 0x00;
        for (int b = c->width; b < 16; b++)
            if (le[b] != sign)
                return error_fail(err, ERR_INVALID,
                                  "column '%s': a decimal exceeds the column's precision",
                                  c->leaf->path);
        if (c->width < 16 && ((le[c->width - 1] & 0x80) ? 0xff : 0x00) != sign)
            return error_fail(err, ERR_INVALID,
                              "column '%s': a decimal exceeds the column's precision",
                              c->leaf->path);
        for (int b = 0; b < c->width; b++)
            tmp[b] = le[c->width - 1 - b];
        return 0;
    }
    case CONV_BYTES32: {
        int32_t o0, o1;
        memcpy(&o0, (const uint8_t *)a->buffers[1] + p * 4, 4);
        memcpy(&o1, (const uint8_t *)a->buffers[1] + (p + 1) * 4, 4);
        *v = (const uint8_t *)a->buffers[2] + o0;
        *len = (size_t)(o1 - o0);
        return 0;
    }
    case CONV_BYTES64: {
        int64_t o0, o1;
        memcpy(&o0, (const uint8_t *)a->buffers[1] + p * 8, 8);
        memcpy(&o1, (const uint8_t *)a->buffers[1] + (p + 1) * 8, 8);
        *v = (const uint8_t *)a->buffers[2] + o0;
        *len = (size_t)(o1 - o0);
        return 0;
    }
    }
    return error_fail(err, ERR_INVALID, "unsupported conversion");
}
#undef WIDEN_INTO

static int nomem(struct error *err)
{
    return error_fail(err, ERR_NOMEM, "out of memory");
}

/* Shreds element i of the array at path step s into levels and values.
 * d and r are the levels reached above this step. */
static int shred(struct colw *c, int s, const struct ArrowArray *a, int64_t i, uint16_t d,
                 uint16_t r, struct error *err)
{
    const struct path_step *step = &c->steps[s];
    const struct pq_node *node = step->node;
    if (node->el->repetition == PQ_OPTIONAL) {
        if (!arrow_valid(a, i))
            return push_level(c, d, r) == 0 ? 0 : nomem(err);
        d++;
    }
    switch (node->kind) {
    case PQN_LEAF: {
        uint8_t tmp[16];
        const uint8_t *v;
        size_t len;
        if (load_value(c, a, i, tmp, &v, &len, err) != 0)
            return -1;
        if (push_level(c, d, r) != 0 || push_value(c, v, len) != 0)
            return nomem(err);
        return 0;
    }
    /* A struct's offset applies to its children's slots too. */
    case PQN_STRUCT: return shred(c, s + 1, a->children[step->child], a->offset + i, d, r, err);
    case PQN_LIST:
    case PQN_MAP: {
        int64_t p = a->offset + i, start, end;
        if (step->large) {
            const int64_t *off = a->buffers[1];
            start = off[p];
            end = off[p + 1];
        } else {
            const int32_t *off = a->buffers[1];
            start = off[p];
            end = off[p + 1];
        }
        /* An empty list is defined up to the list itself: no element. */
        if (start == end)
            return push_level(c, d, r) == 0 ? 0 : nomem(err);
        const struct ArrowArray *child = a->children[0];
        for (int64_t j = start; j < end; j++) {
            uint16_t rr = j == start ? r : (uint16_t)node->list_rep;
            if (shred(c, s + 1, child, j, (uint16_t)(d + 1), rr, err) != 0)
                return -1;
        }
        return 0;
    }
    }
    return error_fail(err, ERR_INVALID, "bad schema node");
}

/* ---- flat columns in PLAIN, a run at a time ---- */

/* Whether a column takes the run-at-a-time path: a top-level leaf whose
 * values are copied as they are, not dictionary-encoded at the moment, and
 * ordered as plain numbers. */
static bool flat_plain(const struct colw *c)
{
    return c->nsteps == 1 && c->conv == CONV_COPY && !c->dict_on && c->max_rep == 0 &&
           (c->cmp == CMP_I32 || c->cmp == CMP_I64 || c->cmp == CMP_U64 || c->cmp == CMP_F32 ||
            c->cmp == CMP_F64);
}

/* A top-level column of those kinds (or of byte arrays) while its
 * dictionary is on. */
static bool flat_dict(const struct colw *c)
{
    return c->nsteps == 1 && c->dict_on && c->max_rep == 0 &&
           ((c->conv == CONV_COPY && (c->cmp == CMP_I32 || c->cmp == CMP_I64 || c->cmp == CMP_U64 ||
                                      c->cmp == CMP_F32 || c->cmp == CMP_F64)) ||
            (c->conv == CONV_BYTES32 && c->cmp == CMP_BYTES));
}

/* The same for byte arrays (strings, JSON, binary) from 32-bit offsets. */
static bool flat_plain_bytes(const struct colw *c)
{
    return c->nsteps == 1 && c->conv == CONV_BYTES32 && !c->dict_on && c->max_rep == 0 &&
           c->cmp == CMP_BYTES;
}

/* Folds the bounds of n copied values into the page's. */
#define RUN_BOUNDS(T, SKIP_NAN)                                                                    \
    do {                                                                                           \
        T lo = 0, hi = 0;                                                                          \
        bool any = false;                                                                          \
        for (size_t k = 0; k < n; k++) {                                                           \
            T v;                                                                                   \
            memcpy(&v, vals + k * sizeof(T), sizeof(T));                                           \
            if (SKIP_NAN && v != v)                                                                \
                continue;                                                                          \
            if (!any) {                                                                            \
                lo = hi = v;                                                                       \
                any = true;                                                                        \
            } else if (v < lo) {                                                                   \
                lo = v;                                                                            \
            } else if (v > hi) {                                                                   \
                hi = v;                                                                            \
            }                                                                                      \
        }                                                                                          \
        if (any && (mm_update(&c->page_mm, c, (const uint8_t *)&lo, sizeof(T)) != 0 ||             \
                    mm_update(&c->page_mm, c, (const uint8_t *)&hi, sizeof(T)) != 0))              \
            return -1;                                                                             \
    } while (0)

static int run_bounds(struct colw *c, const uint8_t *vals, size_t n)
{
    switch (c->cmp) {
    case CMP_I32: RUN_BOUNDS(int32_t, false); break;
    case CMP_I64: RUN_BOUNDS(int64_t, false); break;
    case CMP_U64: RUN_BOUNDS(uint64_t, false); break;
    case CMP_F32: RUN_BOUNDS(float, true); break;
    case CMP_F64: RUN_BOUNDS(double, true); break;
    default: return -1;
    }
    return 0;
}
#undef RUN_BOUNDS

static int close_page(struct pq_writer *w, struct colw *c, struct error *err);
static bool dict_gives_up(const struct pq_writer *w, const struct colw *c);

/* Whether the open page is done: its values have reached page_bytes or
 * its rows page_rows. Pages close only between rows, so each starts a row
 * as the offset index says. */
static bool page_full(const struct pq_writer *w, const struct colw *c)
{
    return c->page_plain_bytes >= w->opt.page_bytes ||
           (w->opt.page_rows > 0 && c->page_rows >= w->opt.page_rows);
}

/* How many of `left` rows a run adds to the open page: at most `room`
 * (what its bytes allow), at most what its row count allows, at least 1. */
static int64_t run_rows(const struct pq_writer *w, const struct colw *c, int64_t left, int64_t room)
{
    if (w->opt.page_rows > 0 && w->opt.page_rows - c->page_rows < room)
        room = w->opt.page_rows - c->page_rows;
    if (room < 1)
        room = 1;
    return left < room ? left : room;
}

/* Rows [i0, i1) of a flat_plain() column: levels, values and bounds go in
 * runs that end where a page fills. *added counts the value bytes. */
static int shred_flat_plain(struct pq_writer *w, struct colw *c, const struct ArrowArray *a,
                            int64_t i0, int64_t i1, int64_t *added, struct error *err)
{
    const size_t width = (size_t)c->width;
    const uint8_t *data = a->buffers[1];
    /* A required column has passed check_values: its bitmap, if any, holds
     * no null. */
    const uint8_t *bits = a->null_count != 0 && c->max_def > 0 ? a->buffers[0] : NULL;
    for (int64_t i = i0; i < i1;) {
        int64_t room =
            (w->opt.page_bytes - c->page_plain_bytes + (int64_t)width - 1) / (int64_t)width;
        int64_t n = run_rows(w, c, i1 - i, room);
        if (reserve_levels(c, (size_t)n) != 0)
            return nomem(err);
        if (start_plain(c) != 0)
            return nomem(err);
        if (buf_reserve(&c->pg.plain, (size_t)n * width) != 0)
            return nomem(err);
        uint8_t *out = (uint8_t *)c->pg.plain.data + c->pg.plain.len;
        const uint8_t *src = data + (size_t)(a->offset + i) * width;
        size_t copied = 0;
        if (!bits) {
            memcpy(out, src, (size_t)n * width);
            copied = (size_t)n;
            if (c->max_def > 0)
                for (int64_t k = 0; k < n; k++)
                    c->pg.def[c->pg.nlev + (size_t)k] = 1;
        } else {
            for (int64_t k = 0; k < n; k++) {
                int64_t p = a->offset + i + k;
                bool valid = (bits[p >> 3] >> (p & 7)) & 1;
                c->pg.def[c->pg.nlev + (size_t)k] = valid;
                if (valid)
                    memcpy(out + copied++ * width, src + (size_t)k * width, width);
            }
        }
        if (copied && run_bounds(c, out, copied) != 0)
            return nomem(err);
        c->pg.plain.len += copied * width;
        c->pg.plain.data[c->pg.plain.len] = '\0';
        c->pg.nlev += (size_t)n;
        c->page_rows += n;
        c->page_values += (int64_t)copied;
        c->page_plain_bytes += (int64_t)(copied * width);
        *added += (int64_t)(copied * width);
        i += n;
        if (page_full(w, c) && close_page(w, c, err) != 0)
            return -1;
    }
    return 0;
}

/* Unsigned lexicographic order of byte strings. */
static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    return r ? r : (alen > blen) - (alen < blen);
}

/* Rows [i0, i1) of a flat_plain_bytes() column: each value as its 4-byte
 * length and bytes, bounds kept as pointers into the batch until a page
 * closes or the rows end. */
static int shred_flat_bytes(struct pq_writer *w, struct colw *c, const struct ArrowArray *a,
                            int64_t i0, int64_t i1, int64_t *added, struct error *err)
{
    const int32_t *off = a->buffers[1];
    const uint8_t *data = a->buffers[2];
    const uint8_t *bits = a->null_count != 0 && c->max_def > 0 ? a->buffers[0] : NULL;
    for (int64_t i = i0; i < i1;) {
        int64_t n = run_rows(w, c, i1 - i, i1 - i);
        if (reserve_levels(c, (size_t)n) != 0)
            return nomem(err);
        int64_t p0 = a->offset + i;
        size_t span = (size_t)(off[p0 + n] - off[p0]) + 4 * (size_t)n;
        if (start_plain(c) != 0)
            return nomem(err);
        if (buf_reserve(&c->pg.plain, span) != 0)
            return nomem(err);
        uint8_t *out = (uint8_t *)c->pg.plain.data + c->pg.plain.len;
        const uint8_t *lo = NULL, *hi = NULL;
        size_t lo_len = 0, hi_len = 0, copied = 0;
        int64_t k = 0, values = 0;
        bool too_long = false;
        while (k < n) {
            int64_t p = p0 + k++;
            bool valid = !bits || ((bits[p >> 3] >> (p & 7)) & 1);
            if (c->max_def > 0)
                c->pg.def[c->pg.nlev++] = valid;
            else
                c->pg.nlev++;
            if (!valid)
                continue;
            const uint8_t *v = data + off[p];
            uint32_t len = (uint32_t)(off[p + 1] - off[p]);
            memcpy(out + copied, &len, 4);
            memcpy(out + copied + 4, v, len);
            copied += 4 + (size_t)len;
            values++;
            size_t blen = len; /* the bytes that bound (see mm_update) */
            if (len > STAT_MAX_BYTES) {
                too_long = true;
                blen = STAT_MAX_BYTES;
            }
            if (!lo) {
                lo = hi = v;
                lo_len = hi_len = blen;
            } else if (cmp_bytes(v, blen, lo, lo_len) < 0) {
                lo = v;
                lo_len = blen;
            } else if (cmp_bytes(v, blen, hi, hi_len) > 0) {
                hi = v;
                hi_len = blen;
            }
            if (c->page_plain_bytes + (int64_t)copied >= w->opt.page_bytes)
                break;
        }
        c->page_mm.too_long |= too_long;
        if (lo && (mm_update(&c->page_mm, c, lo, lo_len) != 0 ||
                   mm_update(&c->page_mm, c, hi, hi_len) != 0))
            return nomem(err);
        c->pg.plain.len += copied;
        c->pg.plain.data[c->pg.plain.len] = '\0';
        c->page_rows += k;
        c->page_values += values;
        c->page_plain_bytes += (int64_t)copied;
        *added += (int64_t)copied;
        i += k;
        if (page_full(w, c) && close_page(w, c, err) != 0)
            return -1;
    }
    return 0;
}

/* Value p of a flat_dict() column's batch. */
static const uint8_t *flat_value(const struct colw *c, const struct ArrowArray *a, int64_t p,
                                 size_t *len)
{
    if (c->conv == CONV_BYTES32) {
        const int32_t *off = a->buffers[1];
        *len = (size_t)(off[p + 1] - off[p]);
        return (const uint8_t *)a->buffers[2] + off[p];
    }
    *len = (size_t)c->width;
    return (const uint8_t *)a->buffers[1] + (size_t)p * (size_t)c->width;
}

/* How many rows of a flat_dict() column are hashed ahead of their
 * lookups, their slots prefetched meanwhile: a dictionary of thousands of
 * entries lives in L2, and a lookup waits on a slot and then on the entry
 * it names unless the slot is already on its way. */
enum { DICT_AHEAD = 16 };

/* Rows [i, i + n) of a flat_dict() column (n <= DICT_AHEAD): the values'
 * hashes into h (nulls skipped), their slots prefetched. */
static void hash_ahead(const struct colw *c, const struct ArrowArray *a, const uint8_t *bits,
                       int64_t i, int64_t n, uint64_t *h)
{
    size_t mask = c->nslots ? c->nslots - 1 : 0;
    const int32_t *off = c->conv == CONV_BYTES32 ? a->buffers[1] : NULL;
    const uint8_t *bytes = off ? a->buffers[2] : NULL;
    for (int64_t k = 0; k < n; k++) {
        int64_t p = a->offset + i + k;
        if (bits && !((bits[p >> 3] >> (p & 7)) & 1))
            continue;
        /* (byte arrays hashed here, so that the hash is inlined) */
        h[k] = off ? pq_key_hash(bytes + off[p], (size_t)(off[p + 1] - off[p]))
                   : hash_value(c, (const uint8_t *)a->buffers[1] + (size_t)p * (size_t)c->width,
                                (size_t)c->width);
        if (c->slots)
            __builtin_prefetch(&c->slots[h[k] & mask]);
    }
}

/* Rows [i0, i1) of a top-level column of copied values or 32-bit-offset
 * byte arrays while its dictionary is on: each value through the
 * dictionary, without the general shredder's layers. When the dictionary
 * gives up, the rest of the rows take the PLAIN run path. */
static int shred_flat_dict(struct pq_writer *w, struct colw *c, const struct ArrowArray *a,
                           int64_t i0, int64_t i1, int64_t *added, struct error *err)
{
    const uint8_t *bits = a->null_count != 0 && c->max_def > 0 ? a->buffers[0] : NULL;
    uint64_t h[DICT_AHEAD];
    for (int64_t i = i0; i < i1;) {
        if (!c->dict_on)
            return flat_plain(c) ? shred_flat_plain(w, c, a, i, i1, added, err)
                                 : shred_flat_bytes(w, c, a, i, i1, added, err);
        /* Room for every row left in the open page's buffers, reserved
         * again after a page closes, since the next page's are others. */
        size_t left = (size_t)(i1 - i);
        if (reserve_levels(c, left) != 0 ||
            ARRAY_RESERVE(c->pg.idx, c->pg.idxcap, c->pg.nidx + left, 1024) != 0)
            return nomem(err);
        bool closed = false;
        while (i < i1 && !closed) {
            int64_t n = i1 - i < DICT_AHEAD ? i1 - i : DICT_AHEAD;
            hash_ahead(c, a, bits, i, n, h);
            for (int64_t k = 0; k < n && !closed; k++) {
                int64_t p = a->offset + i++;
                bool valid = !bits || ((bits[p >> 3] >> (p & 7)) & 1);
                if (c->max_def > 0)
                    c->pg.def[c->pg.nlev] = valid;
                c->pg.nlev++;
                c->page_rows++;
                if (valid) {
                    int64_t before = c->page_plain_bytes;
                    size_t len;
                    const uint8_t *v = flat_value(c, a, p, &len);
                    if (push_dict_value(c, h[k], v, len) != 0)
                        return nomem(err);
                    *added += c->page_plain_bytes - before;
                }
                if (page_full(w, c) || dict_gives_up(w, c)) {
                    if (close_page(w, c, err) != 0)
                        return -1;
                    closed = true;
                }
            }
        }
    }
    return 0;
}

/* ---- pages ---- */

static int write_out(struct pq_writer *w, const void *data, size_t len, struct error *err)
{
    if (w->sink.write(w->sink.ctx, data, len, err) != 0)
        return -1;
    w->offset += len;
    return 0;
}

static bool dict_gives_up(const struct pq_writer *w, const struct colw *c)
{
    return c->dict_bytes > w->opt.dictionary_bytes ||
           (c->dict_values >= DICT_PROBE_VALUES && (int64_t)c->dict_n * 2 > c->dict_values);
}

/* Records the open page's bounds for its ColumnIndex entry in
 * c->pidx_bounds. They are exact unless a value of the page was longer
 * than STAT_MAX_BYTES: its bounds then hold prefixes of that length (see
 * mm_update), and the lower bound keeps whole characters while the upper
 * one, if it may be such a prefix, is raised past every value it starts.
 * 0, 1 when no upper bound of bounded length exists, -1 out of memory. */
static int page_bounds(struct colw *c, struct page_entry *pe)
{
    bool utf8 = c->ltype == LT_STRING || c->ltype == LT_JSON;
    bool cut = c->page_mm.too_long;
    const uint8_t *v;
    size_t len;
    mm_get(&c->page_mm, true, c, &v, &len);
    if (cut)
        len = pq_bound_cut_min(v, len, STAT_MAX_BYTES, utf8);
    pe->min_off = c->pidx_bounds.len;
    pe->min_len = len;
    if (buf_append(&c->pidx_bounds, v, len) != 0)
        return -1;
    mm_get(&c->page_mm, false, c, &v, &len);
    pe->max_off = c->pidx_bounds.len;
    if (cut && len == STAT_MAX_BYTES) {
        int rc = pq_bound_raise(v, len, utf8, &c->pidx_bounds);
        if (rc != 0)
            return rc;
    } else if (buf_append(&c->pidx_bounds, v, len) != 0) {
        return -1;
    }
    pe->max_len = c->pidx_bounds.len - pe->max_off;
    return 0;
}

/* ---- page jobs ---- */

/* Takes back the oldest page job, which has run: its sealed page goes to
 * the end of its column's chunk, or, a dictionary page, in front of it. */
static int collect_job(struct pq_writer *w, struct pq_page_job *j, struct error *err)
{
    w->inflight_bytes -= pq_page_job_input_bytes(j);
    int rc = j->rc;
    if (rc != 0 && err)
        *err = j->err;
    struct colw *c = &w->cols[j->owner];
    int64_t sealed_uncompressed = (int64_t)j->header.len + j->uncompressed_size;
    if (rc == 0 && j->type == PQ_DICTIONARY_PAGE) {
        buf_reset(&c->dict_page);
        c->dict_page_uncompressed = sealed_uncompressed;
        if (buf_append(&c->dict_page, j->header.data, j->header.len) != 0 ||
            buf_append(&c->dict_page, j->comp.data, j->comp.len) != 0)
            rc = nomem(err);
    } else if (rc == 0) {
        struct page_entry *pe = &c->pages[c->ncollected++];
        pe->rel_offset = (int64_t)c->chunk.len;
        pe->size = (int32_t)(j->header.len + j->comp.len);
        c->chunk_uncompressed += sealed_uncompressed;
        if (buf_append(&c->chunk, j->header.data, j->header.len) != 0 ||
            buf_append(&c->chunk, j->comp.data, j->comp.len) != 0)
            rc = nomem(err);
    }
    pq_page_pool_retire(w->pool);
    return rc;
}

/* Takes back the jobs that have run, oldest first, up to the first that
 * has not; with all, waits for every job out. */
static int collect_jobs(struct pq_writer *w, bool all, struct error *err)
{
    struct pq_page_job *j;
    while ((j = pq_page_pool_oldest(w->pool, all)))
        if (collect_job(w, j, err) != 0)
            return -1;
    return 0;
}

/* After a failure: waits for every job out and drops what they made, so
 * that no work outlives the failing call. */
static void abandon_jobs(struct pq_writer *w)
{
    struct pq_page_job *j;
    while ((j = pq_page_pool_oldest(w->pool, true))) {
        w->inflight_bytes -= pq_page_job_input_bytes(j);
        pq_page_pool_retire(w->pool);
    }
}

/* A free page job, once the oldest is taken back if every job is out. */
static struct pq_page_job *next_job(struct pq_writer *w, struct error *err)
{
    struct pq_page_job *j = pq_page_pool_next(w->pool);
    if (j)
        return j;
    if (collect_job(w, pq_page_pool_oldest(w->pool, true), err) != 0)
        return NULL;
    return pq_page_pool_next(w->pool);
}

/* Submits a filled job for column c's chunk. */
static void submit_job(struct pq_writer *w, struct colw *c, struct pq_page_job *j)
{
    j->codec = w->opt.codec;
    j->level = w->opt.level;
    j->owner = (int)(c - w->cols);
    w->inflight_bytes += pq_page_job_input_bytes(j);
    pq_page_pool_submit(w->pool);
}

/* Ends the open page: its statistics and page index entry are recorded
 * here, and a page job, taking over its buffers, encodes and compresses
 * it (see collect_job for the rest). */
static int close_page(struct pq_writer *w, struct colw *c, struct error *err)
{
    if (c->pg.nlev == 0)
        return 0;
    /* A page without values needs no dictionary (and an all-null chunk
     * then writes no dictionary page at all). */
    bool dict = c->dict_on && c->page_values > 0;
    if (ARRAY_RESERVE(c->pages, c->pagecap, c->npages + 1, 1024) != 0)
        return nomem(err);
    struct page_entry *pe = &c->pages[c->npages];
    memset(pe, 0, sizeof *pe);
    pe->first_row = c->chunk_rows;
    pe->nulls = (int64_t)c->pg.nlev - c->page_values;
    pe->null_page = c->page_values == 0;
    mm_signed_zeros(&c->page_mm, c);
    int bounded = c->page_mm.has && !c->no_bounds ? page_bounds(c, pe) : 1;
    if (bounded < 0)
        return nomem(err);
    if (bounded > 0 && !pe->null_page)
        pe->max_len = SIZE_MAX; /* no usable bound: this chunk gets no ColumnIndex */
    if (mm_merge(&c->chunk_mm, c, &c->page_mm) != 0)
        return nomem(err);
    struct pq_page_job *j = next_job(w, err);
    if (!j)
        return -1;
    c->npages++;

    j->type = PQ_DATA_PAGE;
    j->encoding = dict                   ? PQ_ENC_RLE_DICTIONARY
                  : c->conv == CONV_BOOL ? PQ_ENC_RLE
                  : c->delta             ? PQ_ENC_DELTA_BINARY_PACKED
                                         : PQ_ENC_PLAIN;
    j->num_values = (int32_t)c->pg.nlev;
    j->max_def = c->max_def;
    j->max_rep = c->max_rep;
    j->dict_bit_width = pq_bit_width(c->dict_n ? c->dict_n - 1 : 0);
    c->chunk_values += (int64_t)c->pg.nlev;
    c->chunk_nulls += pe->nulls;
    c->chunk_rows += c->page_rows;
    if (dict)
        c->chunk_dict_pages = true;
    else
        c->chunk_plain_pages = true;
    w->rg_bytes += c->page_plain_bytes;
    /* The job takes the page's buffers; the column gets the job's old
     * ones (kept for their capacity) for its next page. */
    struct pq_page_bufs page = c->pg;
    c->pg = j->in;
    j->in = page;
    submit_job(w, c, j);

    c->pg.nlev = 0;
    c->pg.nidx = 0;
    buf_reset(&c->pg.plain);
    c->page_plain_bytes = 0;
    c->page_rows = 0;
    c->page_values = 0;
    mm_reset(&c->page_mm);
    c->page_no++;
    /* A dictionary past its budget, or not worth having, stops growing:
     * later pages of the chunk are PLAIN. */
    if (c->dict_on && dict_gives_up(w, c))
        c->dict_on = false;
    return collect_jobs(w, false, err);
}

/* ---- column chunks and row groups ---- */

static const char **leaf_path(struct arena *a, const struct pq_node *leaf, size_t *n)
{
    size_t depth = 0;
    for (const struct pq_node *p = leaf; p->parent; p = p->parent)
        depth++;
    const char **path = arena_calloc(a, depth ? depth : 1, sizeof *path);
    if (!path)
        return NULL;
    size_t i = depth;
    for (const struct pq_node *p = leaf; p->parent; p = p->parent)
        path[--i] = p->el->name;
    *n = depth;
    return path;
}

/* Hands the chunk's dictionary page to a page job. */
static int submit_dictionary_page(struct pq_writer *w, struct colw *c, struct error *err)
{
    struct pq_page_job *j = next_job(w, err);
    if (!j)
        return -1;
    struct buf *body = &j->in.plain;
    buf_reset(body);
    if (c->width) {
        if (c->dict_data.len && buf_append(body, c->dict_data.data, c->dict_data.len) != 0)
            return nomem(err);
    } else {
        for (size_t k = 0; k < c->dict_n; k++) {
            size_t len;
            const uint8_t *v = dict_value(c, k, &len);
            uint32_t l32 = (uint32_t)len;
            if (buf_append(body, &l32, 4) != 0 || buf_append(body, v, len) != 0)
                return nomem(err);
        }
    }
    j->type = PQ_DICTIONARY_PAGE;
    j->encoding = PQ_ENC_PLAIN;
    j->num_values = (int32_t)c->dict_n;
    j->max_def = j->max_rep = 0;
    j->in.nlev = j->in.nidx = 0;
    submit_job(w, c, j);
    return 0;
}

static bool column_index_usable(const struct colw *c)
{
    for (size_t i = 0; i < c->npages; i++)
        if (c->pages[i].max_len == SIZE_MAX)
            return false;
    return c->npages > 0;
}

static enum pq_boundary_order boundary_order(const struct colw *c)
{
    bool asc = true, desc = true;
    const struct page_entry *prev = NULL;
    const uint8_t *b = (const uint8_t *)c->pidx_bounds.data;
    for (size_t i = 0; i < c->npages; i++) {
        const struct page_entry *p = &c->pages[i];
        if (p->null_page)
            continue;
        if (prev) {
            int dmin = cmp_values(c, b + p->min_off, p->min_len, b + prev->min_off, prev->min_len);
            int dmax = cmp_values(c, b + p->max_off, p->max_len, b + prev->max_off, prev->max_len);
            if (dmin < 0 || dmax < 0)
                asc = false;
            if (dmin > 0 || dmax > 0)
                desc = false;
        }
        prev = p;
    }
    if (asc)
        return PQ_ASCENDING;
    if (desc)
        return PQ_DESCENDING;
    return PQ_UNORDERED;
}

static int encode_page_index(struct pq_writer *w, struct colw *c, int64_t data_offset,
                             struct index_ref *ref, struct error *err)
{
    struct pq_offset_index oi = {calloc(c->npages ? c->npages : 1, sizeof *oi.pages), c->npages};
    if (!oi.pages)
        return nomem(err);
    for (size_t i = 0; i < c->npages; i++) {
        oi.pages[i].offset = data_offset + c->pages[i].rel_offset;
        oi.pages[i].compressed_page_size = c->pages[i].size;
        oi.pages[i].first_row_index = c->pages[i].first_row;
    }
    ref->oi_off = w->oi_all.len;
    int rc = pq_encode_offset_index(&oi, &w->oi_all);
    free(oi.pages);
    if (rc != 0)
        return nomem(err);
    ref->oi_len = w->oi_all.len - ref->oi_off;
    ref->has_ci = column_index_usable(c);
    if (!ref->has_ci)
        return 0;
    size_t n = c->npages;
    struct pq_column_index ci = {
        .null_pages = calloc(n, sizeof *ci.null_pages),
        .min_values = calloc(n, sizeof *ci.min_values),
        .max_values = calloc(n, sizeof *ci.max_values),
        .min_lens = calloc(n, sizeof *ci.min_lens),
        .max_lens = calloc(n, sizeof *ci.max_lens),
        .npages = n,
        .boundary_order = boundary_order(c),
        .null_counts = calloc(n, sizeof *ci.null_counts),
    };
    rc = -1;
    if (ci.null_pages && ci.min_values && ci.max_values && ci.min_lens && ci.max_lens &&
        ci.null_counts) {
        const uint8_t *b = (const uint8_t *)(c->pidx_bounds.data ? c->pidx_bounds.data : "");
        for (size_t i = 0; i < n; i++) {
            const struct page_entry *p = &c->pages[i];
            ci.null_pages[i] = p->null_page;
            ci.null_counts[i] = p->nulls;
            ci.min_values[i] = b + p->min_off;
            ci.max_values[i] = b + p->max_off;
            ci.min_lens[i] = (uint32_t)p->min_len;
            ci.max_lens[i] = (uint32_t)p->max_len;
        }
        ref->ci_off = w->ci_all.len;
        rc = pq_encode_column_index(&ci, &w->ci_all);
        ref->ci_len = w->ci_all.len - ref->ci_off;
    }
    free(ci.null_pages);
    free(ci.min_values);
    free(ci.max_values);
    free(ci.min_lens);
    free(ci.max_lens);
    free(ci.null_counts);
    return rc == 0 ? 0 : nomem(err);
}

/* Writes a chunk whose pages have all been taken back from their jobs. */
static int flush_chunk(struct pq_writer *w, struct colw *c, struct pq_column_chunk *cc,
                       struct index_ref *ref, struct error *err)
{
    int64_t total_uncomp = c->chunk_uncompressed;
    uint64_t start = w->offset;
    memset(cc, 0, sizeof *cc);
    struct pq_column_meta *m = &cc->meta;
    if (c->chunk_dict_pages) {
        m->has_dictionary_page_offset = true;
        m->dictionary_page_offset = (int64_t)w->offset;
        total_uncomp += c->dict_page_uncompressed;
        if (write_out(w, c->dict_page.data, c->dict_page.len, err) != 0)
            return -1;
    }
    int64_t data_offset = (int64_t)w->offset;
    if (c->chunk.len && write_out(w, c->chunk.data, c->chunk.len, err) != 0)
        return -1;

    cc->file_offset = (int64_t)start;
    cc->has_meta = true;
    m->type = c->phys;
    int32_t encodings[4];
    size_t ne = 0;
    if (c->chunk_dict_pages) {
        encodings[ne++] = PQ_ENC_PLAIN; /* the dictionary page */
        encodings[ne++] = PQ_ENC_RLE_DICTIONARY;
    }
    if (c->chunk_plain_pages && !c->chunk_dict_pages && c->conv != CONV_BOOL)
        encodings[ne++] = c->delta ? PQ_ENC_DELTA_BINARY_PACKED : PQ_ENC_PLAIN;
    encodings[ne++] = PQ_ENC_RLE; /* levels */
    m->encodings = arena_alloc(&w->arena, ne * sizeof *m->encodings);
    m->path = leaf_path(&w->arena, c->leaf, &m->npath);
    if (!m->encodings || !m->path)
        return nomem(err);
    memcpy(m->encodings, encodings, ne * sizeof *encodings);
    m->nencodings = ne;
    m->codec = w->opt.codec;
    m->num_values = c->chunk_values;
    m->total_uncompressed_size = total_uncomp;
    m->total_compressed_size = (int64_t)(w->offset - start);
    m->data_page_offset = data_offset;
    m->has_statistics = true;
    m->statistics.has_null_count = true;
    m->statistics.null_count = c->chunk_nulls;
    mm_signed_zeros(&c->chunk_mm, c);
    if (c->chunk_mm.has && !c->chunk_mm.too_long && !c->no_bounds) {
        const uint8_t *v;
        size_t len;
        mm_get(&c->chunk_mm, true, c, &v, &len);
        uint8_t *min = arena_alloc(&w->arena, len ? len : 1);
        mm_get(&c->chunk_mm, false, c, &v, &len);
        uint8_t *max = arena_alloc(&w->arena, len ? len : 1);
        if (!min || !max)
            return nomem(err);
        mm_get(&c->chunk_mm, true, c, &v, &len);
        memcpy(min, v, len);
        m->statistics.min = min;
        m->statistics.min_len = (uint32_t)len;
        mm_get(&c->chunk_mm, false, c, &v, &len);
        memcpy(max, v, len);
        m->statistics.max = max;
        m->statistics.max_len = (uint32_t)len;
        m->statistics.has_min = m->statistics.has_max = true;
    }
    if (w->opt.page_index && encode_page_index(w, c, data_offset, ref, err) != 0)
        return -1;

    /* The next row group starts a fresh chunk, dictionary included. */
    buf_reset(&c->chunk);
    c->chunk_values = 0;
    c->chunk_uncompressed = 0;
    c->chunk_nulls = 0;
    mm_reset(&c->chunk_mm);
    c->chunk_plain_pages = c->chunk_dict_pages = false;
    c->npages = 0;
    c->ncollected = 0;
    buf_reset(&c->dict_page);
    buf_reset(&c->pidx_bounds);
    c->chunk_rows = 0;
    dict_reset(c);
    c->dict_on = w->opt.dictionary && c->phys != PQ_BOOLEAN;
    return 0;
}

static int flush_row_group(struct pq_writer *w, struct error *err)
{
    if (w->rg_rows == 0)
        return 0;
    if (w->nrg == w->rgcap) {
        size_t cap = w->rgcap ? w->rgcap * 2 : 8;
        struct pq_row_group *rgs = realloc(w->rgs, cap * sizeof *rgs);
        struct index_ref *refs = realloc(w->refs, cap * (size_t)w->ncols * sizeof *refs);
        if (rgs)
            w->rgs = rgs;
        if (refs)
            w->refs = refs;
        if (!rgs || !refs)
            return nomem(err);
        w->rgcap = cap;
    }
    struct pq_row_group *rg = &w->rgs[w->nrg];
    memset(rg, 0, sizeof *rg);
    rg->columns = arena_calloc(&w->arena, (size_t)(w->ncols ? w->ncols : 1), sizeof *rg->columns);
    if (!rg->columns)
        return nomem(err);
    rg->ncolumns = (size_t)w->ncols;
    /* Every chunk's last page and dictionary page go to page jobs at
     * once, so they are encoded side by side; the chunks are written
     * once all have been taken back. */
    for (int i = 0; i < w->ncols; i++) {
        struct colw *c = &w->cols[i];
        if (close_page(w, c, err) != 0 ||
            (c->chunk_dict_pages && submit_dictionary_page(w, c, err) != 0))
            return -1;
    }
    if (collect_jobs(w, true, err) != 0)
        return -1;
    uint64_t start = w->offset;
    for (int i = 0; i < w->ncols; i++) {
        struct index_ref *ref = &w->refs[w->nrg * (size_t)w->ncols + (size_t)i];
        memset(ref, 0, sizeof *ref);
        if (flush_chunk(w, &w->cols[i], &rg->columns[i], ref, err) != 0)
            return -1;
        rg->total_byte_size += rg->columns[i].meta.total_uncompressed_size;
    }
    rg->num_rows = w->rg_rows;
    rg->has_file_offset = true;
    rg->file_offset = (int64_t)start;
    rg->has_total_compressed_size = true;
    rg->total_compressed_size = (int64_t)(w->offset - start);
    rg->has_ordinal = w->nrg <= INT16_MAX;
    rg->ordinal = (int16_t)w->nrg;
    w->nrg++;
    w->total_rows += w->rg_rows;
    w->rg_rows = 0;
    w->rg_bytes = 0;
    return 0;
}

/* ---- validating a batch ---- */

/* An offsets buffer starts at or above 0 and never decreases; one
 * definition for Arrow's 32- and 64-bit offsets. */
#define DEFINE_OFFSETS_OK(name, type)                                                              \
    static bool name(const struct ArrowArray *a)                                                   \
    {                                                                                              \
        const type *off = a->buffers[1];                                                           \
        if (!off)                                                                                  \
            return a->length == 0;                                                                 \
        int64_t b = a->offset;                                                                     \
        if (off[b] < 0)                                                                            \
            return false;                                                                          \
        for (int64_t i = b; i < b + a->length; i++)                                                \
            if (off[i + 1] < off[i])                                                               \
                return false;                                                                      \
        return true;                                                                               \
    }
DEFINE_OFFSETS_OK(offsets_ok32, int32_t)
DEFINE_OFFSETS_OK(offsets_ok64, int64_t)
#undef DEFINE_OFFSETS_OK

/* ---- what the values say: required columns and child ranges ---- */

/* Whether a REQUIRED column at or below col has an array with nulls (or
 * an unknown null count): only then is a walk over the values needed. */
static bool may_hold_required_null(const struct lake_column *col, const struct ArrowArray *a)
{
    if (!col->nullable && a->null_count != 0 && a->n_buffers > 0 && a->buffers[0])
        return true;
    if (col->type == LT_MAP)
        a = a->children[0];
    for (size_t i = 0; i < col->nchildren; i++)
        if (may_hold_required_null(col->children[i], a->children[i]))
            return true;
    return false;
}

/* Physical slots [begin, end) of a are live (reached through valid
 * parents) where live has their bit (relative to begin), or all of them
 * when live is NULL. A live null in a REQUIRED column is refused; a null
 * under a null parent is not a value and is allowed. Child ranges are
 * checked against the child arrays on the way. */
static int check_values(const struct lake_column *col, const struct ArrowSchema *s,
                        const struct ArrowArray *a, const uint8_t *live, int64_t begin, int64_t end,
                        const char *path, struct error *err)
{
    if (!col->nullable)
        for (int64_t p = begin; p < end; p++)
            if ((!live || arrow_bit(live, p - begin)) && !arrow_valid(a, p - a->offset))
                return error_fail(err, ERR_INVALID, "column '%s' is not nullable but has a null",
                                  path);
    if (col->nchildren == 0 || !may_hold_required_null(col, a))
        return 0;

    /* The children's range (in the parent's terms) and its live slots. */
    bool list = col->type == LT_LIST || col->type == LT_MAP;
    bool large = strcmp(s->format, "+L") == 0;
    const int32_t *off32 = list && !large ? a->buffers[1] : NULL;
    const int64_t *off64 = list && large ? a->buffers[1] : NULL;
#define OFFSET_AT(p) (off64 ? off64[p] : off32 ? (int64_t)off32[p] : 0)
    int64_t cbegin = list ? OFFSET_AT(begin) : begin;
    int64_t cend = list ? OFFSET_AT(end) : end;
    uint8_t *clive = calloc((size_t)((cend - cbegin) / 8 + 1), 1);
    if (!clive)
        return nomem(err);
    for (int64_t p = begin; p < end; p++) {
        if ((live && !arrow_bit(live, p - begin)) || !arrow_valid(a, p - a->offset))
            continue;
        if (!list)
            arrow_set_bit(clive, p - begin, true);
        else
            for (int64_t k = OFFSET_AT(p); k < OFFSET_AT(p + 1); k++)
                arrow_set_bit(clive, k - cbegin, true);
    }
#undef OFFSET_AT
    /* A map's key and value sit in its entries struct. */
    const struct ArrowArray *holder = col->type == LT_MAP ? a->children[0] : a;
    const struct ArrowSchema *sholder = col->type == LT_MAP ? s->children[0] : s;
    int rc = 0;
    for (size_t i = 0; i < col->nchildren && rc == 0; i++) {
        size_t slot = col->type == LT_LIST ? 0 : i;
        const struct ArrowArray *k = holder->children[slot];
        const struct ArrowSchema *ks = sholder->children[slot];
        int64_t shift = k->offset + (col->type == LT_MAP ? holder->offset : 0);
        if (cend + shift > k->offset + k->length) {
            rc = error_fail(err, ERR_INVALID, "column '%s': a child array is too short", path);
            break;
        }
        char kp[600];
        snprintf(kp, sizeof kp, "%.300s.%.200s", path, col->children[i]->name);
        rc = check_values(col->children[i], ks, k, clive, cbegin + shift, cend + shift, kp, err);
    }
    free(clive);
    return rc;
}

/* Checks one Arrow field against its catalog column, recursively. */
static int check_field(const struct lake_column *col, const struct ArrowSchema *s,
                       const struct ArrowArray *a, const char *path, struct error *err)
{
    if (!s || !a || !s->format)
        return error_fail(err, ERR_INVALID, "column '%s': missing schema or array", path);
    if (!format_ok(col, s->format)) {
        char want[32];
        return error_fail(
            err, ERR_INVALID, "column '%s' is '%s' and takes Arrow format '%s', got '%s'", path,
            lake_type_name(col->type), pq_arrow_format_for(col, want, sizeof want), s->format);
    }
    if (a->length < 0 || a->offset < 0 || a->null_count < -1)
        return error_fail(err, ERR_INVALID, "column '%s': a negative length or offset", path);
    int64_t want_buffers;
    int64_t want_children = 0;
    switch (col->type) {
    case LT_STRING:
    case LT_JSON:
    case LT_BINARY: want_buffers = 3; break;
    case LT_LIST:
    case LT_MAP:
        want_buffers = 2;
        want_children = 1;
        break;
    case LT_STRUCT:
    case LT_VARIANT: /* its storage struct */
        want_buffers = 1;
        want_children = (int64_t)col->nchildren;
        break;
    default: want_buffers = 2;
    }
    if (a->n_buffers != want_buffers || a->n_children != want_children ||
        s->n_children != want_children)
        return error_fail(err, ERR_INVALID,
                          "column '%s': malformed Arrow array (buffers %lld, children %lld)", path,
                          (long long)a->n_buffers, (long long)a->n_children);
    if (a->length > 0)
        for (int64_t b = 1; b < want_buffers; b++)
            if (!a->buffers[b])
                return error_fail(err, ERR_INVALID, "column '%s': buffer %lld is missing", path,
                                  (long long)b);
    bool large = s->format[0] == 'U' || s->format[0] == 'Z' || strcmp(s->format, "+L") == 0;
    if ((col->type == LT_STRING || col->type == LT_JSON || col->type == LT_BINARY ||
         col->type == LT_LIST || col->type == LT_MAP) &&
        !(large ? offsets_ok64(a) : offsets_ok32(a)))
        return error_fail(err, ERR_INVALID, "column '%s': offsets are not increasing", path);
    if (col->type == LT_STRUCT || col->type == LT_VARIANT) {
        for (size_t i = 0; i < col->nchildren; i++) {
            const struct lake_column *k = col->children[i];
            char kp[600];
            snprintf(kp, sizeof kp, "%.300s.%.200s", path, k->name);
            if (!s->children[i]->name || strcmp(s->children[i]->name, k->name) != 0)
                return error_fail(err, ERR_INVALID, "column '%s': field %zu is '%s', expected '%s'",
                                  path, i, s->children[i]->name ? s->children[i]->name : "",
                                  k->name);
            if (check_field(k, s->children[i], a->children[i], kp, err) != 0)
                return -1;
        }
    } else if (col->type == LT_LIST) {
        char kp[600];
        snprintf(kp, sizeof kp, "%.300s.element", path);
        if (check_field(col->children[0], s->children[0], a->children[0], kp, err) != 0)
            return -1;
    } else if (col->type == LT_MAP) {
        const struct ArrowSchema *es = s->children[0];
        const struct ArrowArray *ea = a->children[0];
        if (!es || !ea || !es->format || strcmp(es->format, "+s") != 0 || es->n_children != 2 ||
            ea->n_children != 2)
            return error_fail(err, ERR_INVALID,
                              "column '%s': a map's entries must be a struct of key and value",
                              path);
        char kp[600];
        snprintf(kp, sizeof kp, "%.300s.key", path);
        if (check_field(col->children[0], es->children[0], ea->children[0], kp, err) != 0)
            return -1;
        snprintf(kp, sizeof kp, "%.300s.value", path);
        if (check_field(col->children[1], es->children[1], ea->children[1], kp, err) != 0)
            return -1;
    }
    return 0;
}

/* Records per batch the offset widths each column's path uses. */
static void bind_batch(struct pq_writer *w, const struct ArrowSchema *schema)
{
    for (int i = 0; i < w->ncols; i++) {
        struct colw *c = &w->cols[i];
        const struct ArrowSchema *s = schema->children[c->top];
        for (int k = 0; k < c->nsteps; k++) {
            const struct path_step *st = &c->steps[k];
            c->steps[k].large = strcmp(s->format, "+L") == 0;
            if (st->node->kind == PQN_STRUCT)
                s = s->children[st->child];
            else if (st->node->kind == PQN_LIST)
                s = s->children[0];
            else if (st->node->kind == PQN_MAP)
                s = s->children[0]; /* the entries struct, then key/value by child */
        }
        if (c->conv == CONV_BYTES32 || c->conv == CONV_BYTES64)
            c->conv = (s->format[0] == 'U' || s->format[0] == 'Z') ? CONV_BYTES64 : CONV_BYTES32;
    }
}

/* ---- the public entry points ---- */

/* A private copy of the table's column tree, a variant column with its
 * storage fields: batches are checked against it for the writer's whole
 * life, and its leaves plan the column chunks. */
static struct lake_column *copy_column(struct arena *a, const struct lake_column *c,
                                       struct lake_column *parent, struct error *err)
{
    struct lake_column *k = arena_alloc(a, sizeof *k);
    if (!k) {
        error_nomem(err);
        return NULL;
    }
    *k = *c;
    k->parent = parent;
    k->name = arena_strdup(a, c->name);
    k->comment = NULL;
    k->children = c->nchildren ? arena_calloc(a, c->nchildren, sizeof *k->children) : NULL;
    if (!k->name || (c->nchildren && !k->children)) {
        error_nomem(err);
        return NULL;
    }
    for (size_t i = 0; i < c->nchildren; i++)
        if (!(k->children[i] = copy_column(a, c->children[i], k, err)))
            return NULL;
    if (k->type == LT_VARIANT && pq_variant_layout(a, k, err) != 0)
        return NULL;
    return k;
}

int pq_writer_open(const struct lake_table *table, const struct pq_write_options *options,
                   const struct pq_sink *sink, struct pq_writer **out, struct error *err)
{
    *out = NULL;
    struct pq_writer *w = calloc(1, sizeof *w);
    if (!w)
        return nomem(err);
    arena_init(&w->arena, 0);
    if (options)
        w->opt = *options;
    else
        pq_write_options_default(&w->opt);
    if (w->opt.page_bytes <= 0 || w->opt.row_group_bytes <= 0 || w->opt.dictionary_bytes < 0 ||
        w->opt.row_group_rows < 0 || w->opt.page_rows < 0) {
        pq_writer_free(w);
        return error_fail(err, ERR_INVALID,
                          "page, row group and dictionary sizes must be positive");
    }
    if (!pq_codec_can_write(w->opt.codec)) {
        error_fail(err, ERR_UNSUPPORTED, "cannot write %s pages", pq_codec_name(w->opt.codec));
        pq_writer_free(w);
        return -1;
    }
    if (pq_codec_check_level(w->opt.codec, w->opt.level, err) != 0) {
        pq_writer_free(w);
        return -1;
    }
    if (w->opt.threads < 0 || w->opt.threads > PQ_WRITE_MAX_THREADS) {
        pq_writer_free(w);
        return error_fail(err, ERR_INVALID, "threads must be 0 to %d", PQ_WRITE_MAX_THREADS);
    }
    w->sink = *sink;
    w->step_rows = 1;
    /* The caller is one of the threads: it shreds, and encodes pages
     * whenever it would otherwise wait for the workers. Four jobs a thread
     * keep every thread busy while bounding the pages in flight. */
    int workers = w->opt.threads > 1 ? w->opt.threads - 1 : 0;
    size_t jobs = workers ? 4 * (size_t)w->opt.threads : 1;
    if (pq_page_pool_new(workers, jobs, &w->pool, err) != 0) {
        pq_writer_free(w);
        return -1;
    }
    if (w->opt.nkv) {
        w->kv = arena_calloc(&w->arena, w->opt.nkv, sizeof *w->kv);
        if (!w->kv) {
            pq_writer_free(w);
            return nomem(err);
        }
        for (size_t i = 0; i < w->opt.nkv; i++) {
            w->kv[i].key = arena_strdup(&w->arena, w->opt.kv[i].key);
            w->kv[i].value =
                w->opt.kv[i].value ? arena_strdup(&w->arena, w->opt.kv[i].value) : NULL;
            if (!w->kv[i].key || (w->opt.kv[i].value && !w->kv[i].value)) {
                pq_writer_free(w);
                return nomem(err);
            }
        }
    }
    w->opt.kv = w->kv;
    w->ntop = (int)table->root.nchildren;
    w->top = arena_calloc(&w->arena, (size_t)(w->ntop ? w->ntop : 1), sizeof *w->top);
    if (!w->top) {
        pq_writer_free(w);
        return nomem(err);
    }
    for (int i = 0; i < w->ntop; i++) {
        if (!(w->top[i] = copy_column(&w->arena, table->root.children[i], NULL, err))) {
            pq_writer_free(w);
            return -1;
        }
    }
    if (!(w->shredded = calloc((size_t)(w->ntop ? w->ntop : 1), sizeof *w->shredded))) {
        pq_writer_free(w);
        return nomem(err);
    }
    w->variant = arena_calloc(&w->arena, (size_t)(w->ntop ? w->ntop : 1), sizeof *w->variant);
    if (!w->variant) {
        pq_writer_free(w);
        return nomem(err);
    }
    for (int i = 0; i < w->ntop; i++) {
        if (!pq_variant_is_shredded(w->top[i]))
            continue;
        struct pq_variant_counts *vc = &w->variant[w->nvariant++];
        vc->field_id = w->top[i]->field_id;
        vc->ngroups = pq_variant_groups(w->top[i]);
        vc->groups = arena_calloc(&w->arena, vc->ngroups, sizeof *vc->groups);
        if (!vc->groups || !(w->shredded[i] = calloc(1, sizeof *w->shredded[i])) ||
            pq_variant_shred_schema(w->top[i], w->shredded[i]) != 0) {
            pq_writer_free(w);
            return nomem(err);
        }
    }
    /* The file's schema is the copy's: variant columns as their storage. */
    struct lake_table laid_out = {
        .root = {.type = LT_STRUCT, .children = w->top, .nchildren = (size_t)w->ntop}};
    if (pq_schema_from_table(&laid_out, &w->arena, &w->schema, err) != 0 ||
        annotate_leaves(w, table, err) != 0) {
        pq_writer_free(w);
        return -1;
    }
    w->ncols = w->schema.nleaves;
    w->cols = calloc((size_t)(w->ncols ? w->ncols : 1), sizeof *w->cols);
    if (!w->cols) {
        pq_writer_free(w);
        return nomem(err);
    }
    for (int i = 0; i < w->ncols; i++) {
        if (setup_column(w, i, err) != 0) {
            pq_writer_free(w);
            return -1;
        }
    }
    if (write_out(w, "PAR1", 4, err) != 0) {
        pq_writer_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

static bool has_null_row(const struct ArrowArray *batch)
{
    if (batch->null_count == 0 || batch->n_buffers < 1 || !batch->buffers || !batch->buffers[0])
        return false;
    for (int64_t i = 0; i < batch->length; i++)
        if (!arrow_bit(batch->buffers[0], batch->offset + i))
            return true;
    return false;
}

/* Shreds a checked batch's rows into pages, cutting row groups. */
static int shred_batch(struct pq_writer *w, const struct ArrowArray *batch, struct error *err)
{
    /* Rows go in steps, column by column within a step; pages are cut at
     * row boundaries as soon as they pass their size, and row groups
     * between steps. A step is sized from the bytes rows have taken so far
     * so that it adds at most about an eighth of a row group, however wide
     * the rows; the first steps are short, as nothing is known yet. */
    int64_t step = w->step_rows;
    for (int64_t r0 = 0; r0 < batch->length;) {
        int64_t r1 = r0 + step < batch->length ? r0 + step : batch->length;
        /* A step never crosses the row limit, so a group ends exactly on it. */
        if (w->opt.row_group_rows > 0 && r1 - r0 > w->opt.row_group_rows - w->rg_rows)
            r1 = r0 + (w->opt.row_group_rows - w->rg_rows);
        int64_t open_bytes = 0, step_bytes = 0;
        for (int i = 0; i < w->ncols; i++) {
            struct colw *c = &w->cols[i];
            const struct ArrowArray *top = batch->children[c->top];
            if (flat_dict(c) || flat_plain(c) || flat_plain_bytes(c)) {
                int64_t i0 = batch->offset + r0, i1 = batch->offset + r1;
                int rc = flat_dict(c)    ? shred_flat_dict(w, c, top, i0, i1, &step_bytes, err)
                         : flat_plain(c) ? shred_flat_plain(w, c, top, i0, i1, &step_bytes, err)
                                         : shred_flat_bytes(w, c, top, i0, i1, &step_bytes, err);
                if (rc != 0)
                    return -1;
                open_bytes += c->page_plain_bytes;
                continue;
            }
            int64_t before = c->page_plain_bytes;
            for (int64_t r = r0; r < r1; r++) {
                if (shred(c, 0, top, batch->offset + r, 0, 0, err) != 0)
                    return -1;
                if (page_full(w, c) || (c->dict_on && dict_gives_up(w, c))) {
                    step_bytes += c->page_plain_bytes - before;
                    before = 0;
                    if (close_page(w, c, err) != 0)
                        return -1;
                }
            }
            step_bytes += c->page_plain_bytes - before;
            open_bytes += c->page_plain_bytes;
        }
        w->rg_rows += r1 - r0;
        bool full = w->rg_bytes + open_bytes >= w->opt.row_group_bytes ||
                    (w->opt.row_group_rows > 0 && w->rg_rows >= w->opt.row_group_rows);
        if (full && flush_row_group(w, err) != 0)
            return -1;
        int64_t per_row = step_bytes / (r1 - r0) + 1;
        step = w->opt.row_group_bytes / 8 / per_row;
        step = step < 1 ? 1 : step > ROWS_PER_STEP ? ROWS_PER_STEP : step;
        w->step_rows = step;
        r0 = r1;
    }
    /* Every page closed so far is sealed before the call returns: no work
     * outlives it, and a page's failure is this batch's. */
    return collect_jobs(w, true, err);
}

static int write_checked(struct pq_writer *w, const struct ArrowSchema *schema,
                         const struct ArrowArray *batch, struct error *err)
{
    if (w->failed)
        return error_fail(err, ERR_INVALID, "the writer failed earlier and cannot continue");
    if (!schema || !batch || !schema->format || strcmp(schema->format, "+s") != 0)
        return error_fail(err, ERR_INVALID, "a batch must be an Arrow struct array");
    if (schema->n_children != w->ntop || batch->n_children != w->ntop)
        return error_fail(err, ERR_INVALID, "the batch has %lld columns, the table %d",
                          (long long)batch->n_children, w->ntop);
    if (batch->length < 0 || batch->offset < 0)
        return error_fail(err, ERR_INVALID, "a negative batch length or offset");
    if (has_null_row(batch))
        return error_fail(err, ERR_INVALID, "a batch row is null; rows cannot be null");
    for (int i = 0; i < w->ntop; i++) {
        const struct lake_column *col = w->top[i];
        const struct ArrowSchema *cs = schema->children[i];
        if (!cs || !cs->name || strcmp(cs->name, col->name) != 0)
            return error_fail(err, ERR_INVALID, "batch column %d is '%s', the table's is '%s'", i,
                              cs && cs->name ? cs->name : "", col->name);
        const struct ArrowArray *ca = batch->children[i];
        if (!ca || ca->length < batch->offset + batch->length)
            return error_fail(err, ERR_INVALID, "column '%s' is shorter than the batch", col->name);
        if (check_field(col, cs, ca, col->name, err) != 0 ||
            check_values(col, cs, ca, NULL, ca->offset + batch->offset,
                         ca->offset + batch->offset + batch->length, col->name, err) != 0)
            return -1;
    }
    bind_batch(w, schema);
    if (shred_batch(w, batch, err) != 0) {
        w->failed = true;
        abandon_jobs(w);
        return -1;
    }
    return 0;
}

/* Batches arrive in the table's form; a shredded variant column's values
 * are shredded into its storage first. The writer then reads a view of
 * the batch (offset 0): the other columns as they are (their offsets
 * moved by the batch's), the shredded ones freshly built. */
static struct pq_shred_counts *counts_of(struct pq_writer *w, int64_t field_id)
{
    for (size_t k = 0; k < w->nvariant; k++)
        if (w->variant[k].field_id == field_id)
            return w->variant[k].groups;
    return NULL;
}

int pq_writer_write(struct pq_writer *w, const struct ArrowSchema *schema,
                    const struct ArrowArray *batch, struct error *err)
{
    bool any = false;
    for (int i = 0; i < w->ntop; i++)
        any = any || w->shredded[i];
    if (!any || w->failed || !schema || !batch || schema->n_children != w->ntop ||
        batch->n_children != w->ntop || batch->offset < 0 || batch->length < 0)
        return write_checked(w, schema, batch, err);
    size_t n = (size_t)w->ntop;
    struct ArrowArray *cols = calloc(n, sizeof *cols), **kids = calloc(n, sizeof *kids);
    struct ArrowSchema **skids = calloc(n, sizeof *skids);
    int rc = cols && kids && skids ? 0 : nomem(err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct ArrowArray *ca = batch->children[i];
        skids[i] = w->shredded[i] ? w->shredded[i] : schema->children[i];
        kids[i] = &cols[i];
        if (!ca) {
            rc = error_fail(err, ERR_INVALID, "column '%s' is missing", w->top[i]->name);
        } else if (w->shredded[i] && schema->children[i] &&
                   arrow_schema_same_shape(schema->children[i], w->shredded[i])) {
            /* Already its storage, as laid out (compaction carrying a
             * file's groups through): written as it is. */
            cols[i] = *ca;
            cols[i].offset += batch->offset;
            cols[i].release = NULL;
        } else if (w->shredded[i]) {
            if (!schema->children[i] || strcmp(schema->children[i]->format, "+s") != 0)
                rc = error_fail(err, ERR_INVALID,
                                "column '%s' takes a variant's unshredded storage struct",
                                w->top[i]->name);
            else
                rc = pq_variant_shred(w->top[i], ca, batch->offset, batch->length, &cols[i],
                                      counts_of(w, w->top[i]->field_id), err);
        } else {
            cols[i] = *ca; /* borrowed: never released through the view */
            cols[i].offset += batch->offset;
            cols[i].release = NULL;
        }
    }
    if (rc == 0) {
        struct ArrowSchema sview = *schema;
        sview.children = skids;
        struct ArrowArray view = *batch;
        view.offset = 0;
        view.null_count = 0; /* rows are never null; checked on the original */
        view.children = kids;
        view.n_buffers = 1;
        const void *no_validity[1] = {NULL};
        view.buffers = no_validity;
        if (has_null_row(batch))
            rc = error_fail(err, ERR_INVALID, "a batch row is null; rows cannot be null");
        if (rc == 0)
            rc = write_checked(w, &sview, &view, err);
    }
    for (size_t i = 0; cols && i < n; i++)
        if (w->shredded[i] && cols[i].release)
            cols[i].release(&cols[i]);
    free(cols);
    free(kids);
    free(skids);
    return rc;
}

static int write_footer(struct pq_writer *w, struct pq_write_result *result, struct error *err)
{
    /* The page index sits between the row groups and the footer: every
     * ColumnIndex, then every OffsetIndex. */
    uint64_t ci_base = w->offset;
    if (w->ci_all.len && write_out(w, w->ci_all.data, w->ci_all.len, err) != 0)
        return -1;
    uint64_t oi_base = w->offset;
    if (w->oi_all.len && write_out(w, w->oi_all.data, w->oi_all.len, err) != 0)
        return -1;
    if (w->opt.page_index) {
        for (size_t g = 0; g < w->nrg; g++) {
            for (int i = 0; i < w->ncols; i++) {
                const struct index_ref *ref = &w->refs[g * (size_t)w->ncols + (size_t)i];
                struct pq_column_chunk *cc = &w->rgs[g].columns[i];
                cc->has_offset_index = true;
                cc->offset_index_offset = (int64_t)(oi_base + ref->oi_off);
                cc->offset_index_length = (int32_t)ref->oi_len;
                if (ref->has_ci) {
                    cc->has_column_index = true;
                    cc->column_index_offset = (int64_t)(ci_base + ref->ci_off);
                    cc->column_index_length = (int32_t)ref->ci_len;
                }
            }
        }
    }
    struct pq_file_meta *m = &result->meta;
    memset(m, 0, sizeof *m);
    m->version = 2;
    m->schema = (struct pq_schema_element *)w->schema.elements;
    m->nschema = w->schema.nelements;
    m->num_rows = w->total_rows;
    m->row_groups = w->nrg ? arena_alloc(&w->arena, w->nrg * sizeof *m->row_groups) : NULL;
    if (w->nrg && !m->row_groups)
        return nomem(err);
    if (w->nrg)
        memcpy(m->row_groups, w->rgs, w->nrg * sizeof *m->row_groups);
    m->nrow_groups = w->nrg;
    m->kv = w->kv;
    m->nkv = w->opt.nkv;
    m->created_by = "hoglake version " HOGLAKE_VERSION;
    m->ncolumn_orders = (size_t)w->ncols;
    struct buf footer = BUF_INIT;
    if (pq_encode_file_meta(m, &footer) != 0 || footer.len > UINT32_MAX) {
        buf_free(&footer);
        return nomem(err);
    }
    uint32_t flen = (uint32_t)footer.len;
    int rc = write_out(w, footer.data, footer.len, err);
    buf_free(&footer);
    if (rc != 0 || write_out(w, &flen, 4, err) != 0 || write_out(w, "PAR1", 4, err) != 0)
        return -1;
    result->footer_size = flen;
    result->file_size = w->offset;
    return 0;
}

int pq_writer_close(struct pq_writer *w, struct pq_write_result *result, struct error *err)
{
    memset(result, 0, sizeof *result);
    int rc = -1;
    if (w->failed) {
        error_fail(err, ERR_INVALID, "the writer failed earlier and cannot finish the file");
    } else if (flush_row_group(w, err) == 0 && write_footer(w, result, err) == 0) {
        /* The result takes the arena, and with it the footer and schema. */
        result->arena = w->arena;
        result->schema = w->schema;
        result->variant = w->variant;
        result->nvariant = w->nvariant;
        arena_init(&w->arena, 0);
        rc = 0;
    }
    pq_writer_free(w);
    return rc;
}

static void free_column(struct colw *c)
{
    pq_page_bufs_free(&c->pg);
    buf_free(&c->dict_page);
    mm_free(&c->page_mm);
    buf_free(&c->dict_data);
    free(c->dict_off);
    free(c->dict_hash);
    free(c->dict_stamp);
    free(c->slots);
    buf_free(&c->chunk);
    mm_free(&c->chunk_mm);
    free(c->pages);
    buf_free(&c->pidx_bounds);
}

size_t pq_writer_buffered_bytes(const struct pq_writer *w)
{
    size_t n = w->inflight_bytes;
    for (int i = 0; i < w->ncols; i++) {
        const struct colw *c = &w->cols[i];
        n += c->chunk.len + c->dict_page.len + c->pg.plain.len + c->dict_data.len +
             c->pg.nidx * sizeof *c->pg.idx + c->pg.nlev * 2 * sizeof *c->pg.def;
    }
    return n;
}

void pq_writer_free(struct pq_writer *w)
{
    if (!w)
        return;
    /* First: its workers may still be encoding pages. */
    pq_page_pool_free(w->pool);
    for (int i = 0; w->cols && i < w->ncols; i++)
        free_column(&w->cols[i]);
    free(w->cols);
    for (int i = 0; w->shredded && i < w->ntop; i++) {
        if (w->shredded[i] && w->shredded[i]->release)
            w->shredded[i]->release(w->shredded[i]);
        free(w->shredded[i]);
    }
    free(w->shredded);
    free(w->rgs);
    free(w->refs);
    buf_free(&w->ci_all);
    buf_free(&w->oi_all);
    arena_free(&w->arena);
    free(w);
}

void pq_write_result_release(struct pq_write_result *r)
{
    arena_free(&r->arena);
    memset(r, 0, sizeof *r);
}
