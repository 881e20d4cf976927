/* Pruning: whether any row of a file, a row group or a partition can
 * satisfy a bound predicate, from column statistics or partition values.
 * In negation normal form a predicate is TRUE only when its AND/OR tree
 * over the tests' TRUE is, so a test that cannot be TRUE anywhere decides
 * the way an AND or OR combines it. Unknown is always "maybe". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "expr/expr_internal.h"
#include "lake/bounds.h"
#include "parquet/schema.h"
#include "parquet/colstats.h"
#include "util/bytes.h"
#include "util/jsonnum.h"

/* ---- statistics ---- */

/* A column's statistics as the tests read them. */
struct range {
    bool all_null;
    bool has_lo, has_hi;
    const uint8_t *lo, *hi;
    size_t lo_len, hi_len;
    int64_t flo, fhi; /* floats: the bounds' keys */
    bool nan;         /* floats: NaN may be there (it sorts above the upper bound) */
};

static bool float_bound(enum lake_type t, const uint8_t *b, size_t n, int64_t *key)
{
    double d;
    if (t == LT_FLOAT && n == 4) {
        uint32_t bits = le_load32(b);
        float f;
        memcpy(&f, &bits, 4);
        d = f;
    } else if (t == LT_DOUBLE && n == 8) {
        uint64_t bits = le_load64(b);
        memcpy(&d, &bits, 8);
    } else {
        return false;
    }
    *key = expr_float_key(d);
    return !isnan(d);
}

static void range_of(const struct colref *r, const struct expr_field_stats *s, struct range *g)
{
    memset(g, 0, sizeof *g);
    g->all_null = s->null_count >= 0 && s->value_count >= 0 && s->null_count >= s->value_count;
    g->has_lo = s->lower != NULL;
    g->has_hi = s->upper != NULL;
    g->lo = s->lower, g->lo_len = s->lower_len;
    g->hi = s->upper, g->hi_len = s->upper_len;
    if (expr_vkind(r->type) != VK_FLOAT)
        return;
    g->has_lo = g->has_lo && float_bound(r->type, g->lo, g->lo_len, &g->flo);
    g->has_hi = g->has_hi && float_bound(r->type, g->hi, g->hi_len, &g->fhi);
    /* NaN bounds are never stored: NaN values sit above the upper bound. */
    g->nan = s->nan_count != 0;
}

static bool is_nan(const struct colref *r, const struct bval *lit)
{
    return expr_vkind(r->type) == VK_FLOAT && isnan(lit->v.d);
}

/* The bound against the literal: <0, 0, >0. */
static int bound_vs(const struct colref *r, const struct range *g, bool upper,
                    const struct bval *lit)
{
    if (expr_vkind(r->type) == VK_FLOAT) {
        int64_t b = upper ? g->fhi : g->flo, c = expr_float_key(lit->v.d);
        return (b > c) - (b < c);
    }
    return upper ? bound_compare(r->type, g->hi, g->hi_len, lit->bound, lit->bound_len)
                 : bound_compare(r->type, g->lo, g->lo_len, lit->bound, lit->bound_len);
}

static bool may_equal(const struct colref *r, const struct range *g, const struct bval *lit)
{
    if (is_nan(r, lit))
        return g->nan;
    return (!g->has_lo || bound_vs(r, g, false, lit) <= 0) &&
           (!g->has_hi || bound_vs(r, g, true, lit) >= 0);
}

/* Whether every non-null value is the literal. */
static bool all_equal(const struct colref *r, const struct range *g, const struct bval *lit)
{
    return g->has_lo && g->has_hi && !g->nan && bound_vs(r, g, false, lit) == 0 &&
           bound_vs(r, g, true, lit) == 0;
}

static bool may_compare(const struct colref *r, const struct range *g, enum expr_op op,
                        const struct bval *lit)
{
    if (g->all_null)
        return false;
    if (!lit->bound && expr_vkind(r->type) != VK_FLOAT)
        return true; /* no bound form to compare with */
    switch (op) {
    case OP_EQ: return may_equal(r, g, lit);
    case OP_NE: return !all_equal(r, g, lit);
    case OP_LT: return !g->has_lo || bound_vs(r, g, false, lit) < 0;
    case OP_LE: return !g->has_lo || bound_vs(r, g, false, lit) <= 0;
    /* NaN is above every value but itself. */
    case OP_GT: return !g->has_hi || (g->nan && !is_nan(r, lit)) || bound_vs(r, g, true, lit) > 0;
    default: return !g->has_hi || g->nan || bound_vs(r, g, true, lit) >= 0;
    }
}

static bool may_in(const struct colref *r, const struct range *g, const struct pnode *p)
{
    if (g->all_null)
        return false;
    /* IN: some item may be there. NOT IN: unless every value is one item. */
    for (size_t k = 0; k < p->in.n; k++) {
        const struct bval *item = &p->in.items[k];
        if (!item->bound && expr_vkind(r->type) != VK_FLOAT)
            return true;
        if (p->negated ? all_equal(r, g, item) : may_equal(r, g, item))
            return !p->negated;
    }
    return p->negated;
}

struct prune {
    const struct expr_pred *p;
    const struct expr_field_stats *stats;
    size_t n;
};

static const struct expr_field_stats *stats_for(const struct prune *x, int64_t field_id)
{
    for (size_t k = 0; k < x->n; k++)
        if (x->stats[k].field_id == field_id)
            return &x->stats[k];
    return NULL;
}

/* A variant path's comparison against its shredded leaf's statistics,
 * whose bounds are Variant primitives (expr_stats_variant_leaves). */
static bool may_compare_variant(const struct expr_field_stats *s, const struct pnode *p)
{
    if (s->null_count >= 0 && s->value_count >= 0 && s->null_count >= s->value_count)
        return false; /* the path holds nothing in these rows */
    struct variant_scalar lo, hi;
    bool has_lo = s->lower && variant_scalar_read(s->lower, s->lower_len, &lo),
         has_hi = s->upper && variant_scalar_read(s->upper, s->upper_len, &hi);
    int clo = 0, chi = 0;
    /* Every value is of the leaf's type: one the literal does not compare
     * with can never be TRUE. */
    if ((has_lo && !expr_vlit_compare(&lo, &p->vlit, &clo)) ||
        (has_hi && !expr_vlit_compare(&hi, &p->vlit, &chi)))
        return false;
    switch (p->op) {
    case OP_EQ: return (!has_lo || clo <= 0) && (!has_hi || chi >= 0);
    case OP_NE: return !(has_lo && has_hi && clo == 0 && chi == 0);
    case OP_LT: return !has_lo || clo < 0;
    case OP_LE: return !has_lo || clo <= 0;
    case OP_GT: return !has_hi || chi > 0;
    default: return !has_hi || chi >= 0;
    }
}

static bool may_test(const struct prune *x, const struct pnode *p)
{
    const struct colref *r = &x->p->cols.refs[p->col];
    if (r->nvkeys) {
        const struct expr_field_stats *s = stats_for(x, expr_variant_leaf_id(p->col));
        return !s || p->kind != PN_VCMP || may_compare_variant(s, p);
    }
    const struct expr_field_stats *s = stats_for(x, r->field_id);
    if (!s || p->kind == PN_CMP_COLS)
        return true;
    if (p->kind == PN_NULL)
        return p->negated
                   ? s->null_count < 0 || s->value_count < 0 || s->null_count < s->value_count
                   : s->null_count != 0;
    struct range g;
    range_of(r, s, &g);
    return p->kind == PN_IN ? may_in(r, &g, p) : may_compare(r, &g, p->op, &p->lit);
}

/* The tree with a test's verdict from `test`. */
static bool may_tree(const struct pnode *p, bool (*test)(const void *, const struct pnode *),
                     const void *ctx)
{
    switch (p->kind) {
    case PN_CONST: return p->value;
    case PN_AND:
        for (size_t k = 0; k < p->nkids; k++)
            if (!may_tree(p->kids[k], test, ctx))
                return false;
        return true;
    case PN_OR:
        for (size_t k = 0; k < p->nkids; k++)
            if (may_tree(p->kids[k], test, ctx))
                return true;
        return false;
    default: return test(ctx, p);
    }
}

static bool stats_test(const void *ctx, const struct pnode *p)
{
    return may_test(ctx, p);
}

bool expr_pred_may_match(const struct expr_pred *p, const struct expr_field_stats *stats, size_t n)
{
    struct prune x = {p, stats, n};
    return may_tree(p->root, stats_test, &x);
}

/* ---- statistics from the scan plan's JSON ---- */

static int malformed(struct error *err, size_t i, const char *what)
{
    return error_fail(err, ERR_MALFORMED, "column_stats[%zu]: %s", i, what);
}

/* A JSON integer, or a real holding one (a reader that took every
 * integer as a real, JSON_DECODE_INT_AS_REAL, to read uint64 bounds). */
static bool integer_of(const json_t *v, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return true;
    }
    double d = json_is_real(v) ? json_real_value(v) : NAN;
    if (!(fabs(d) < 9007199254740992.0) || d != floor(d))
        return false;
    *out = (int64_t)d;
    return true;
}

static bool count_of(const json_t *v, int64_t *out)
{
    if (!v || json_is_null(v)) {
        *out = -1;
        return true;
    }
    return integer_of(v, out) && *out >= 0;
}

/* A real as the column's value when it holds it exactly: floats (a float
 * bound widened by one step outwards, as the text may have been rounded
 * twice), integers below 2^53, decimals of at most 15 digits. */
static bool real_value(const struct expr_type *t, double d, bool upper, struct lake_value *v)
{
    char text[64];
    switch (expr_vkind(t->type)) {
    case VK_FLOAT:
        v->d = t->type == LT_FLOAT ? nextafterf((float)d, upper ? INFINITY : -INFINITY) : d;
        return true;
    case VK_DEC:
        if (t->precision > 15)
            return false;
        snprintf(text, sizeof text, "%.*f", t->scale, d);
        return expr_parse_bound_text(NULL, t, text, strlen(text), v);
    case VK_INT:
    case VK_UINT64:
        if (!(fabs(d) < 9007199254740992.0) || d != floor(d) || lake_type_is_temporal(t->type) ||
            t->type == LT_TIME)
            return false;
        snprintf(text, sizeof text, "%.0f", d);
        return expr_parse_bound_text(NULL, t, text, strlen(text), v);
    default: return false;
    }
}

/* One decoded bound as bytes of the column's type; absent when it does
 * not decode exactly. */
static int bound_from_json(struct arena *a, const struct expr_type *t, const json_t *j, bool upper,
                           const uint8_t **out, size_t *len)
{
    struct bval b = {0};
    bool ok;
    char text[32];
    *out = NULL;
    *len = 0;
    if (!j || json_is_null(j))
        return 0;
    if (json_is_boolean(j)) {
        ok = t->type == LT_BOOLEAN;
        b.v.b = json_is_true(j);
    } else if (jsonnum_is(j)) {
        size_t n;
        const char *s = jsonnum_text(j, &n);
        ok = expr_parse_bound_text(a, t, s, n, &b.v);
    } else if (json_is_string(j)) {
        ok = expr_parse_bound_text(a, t, json_string_value(j), json_string_length(j), &b.v);
    } else if (json_is_integer(j)) {
        snprintf(text, sizeof text, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
        ok = expr_parse_bound_text(a, t, text, strlen(text), &b.v);
    } else if (json_is_real(j)) {
        ok = real_value(t, json_real_value(j), upper, &b.v);
    } else {
        ok = false;
    }
    if (!ok || (expr_vkind(t->type) == VK_FLOAT && isnan(b.v.d)))
        return 0;
    if (expr_value_bound(a, t, &b) != 0)
        return -1;
    *out = b.bound;
    *len = b.bound_len;
    return 0;
}

int expr_stats_from_json(const struct lake_table *t, const json_t *column_stats, struct arena *a,
                         struct expr_field_stats **out, size_t *n, struct error *err)
{
    *out = NULL;
    *n = 0;
    if (!json_is_array(column_stats))
        return error_fail(err, ERR_MALFORMED, "column_stats is not an array");
    size_t total = json_array_size(column_stats), m = 0;
    struct expr_field_stats *s = arena_calloc(a, total ? total : 1, sizeof *s);
    if (!s)
        return error_nomem(err);
    for (size_t i = 0; i < total; i++) {
        const json_t *e = json_array_get(column_stats, i);
        struct expr_field_stats *f = &s[m];
        int64_t id;
        if (!json_is_object(e) || !integer_of(json_object_get(e, "field_id"), &id))
            return malformed(err, i, "an entry is an object with an integer field_id");
        if (!count_of(json_object_get(e, "value_count"), &f->value_count) ||
            !count_of(json_object_get(e, "null_count"), &f->null_count) ||
            !count_of(json_object_get(e, "nan_count"), &f->nan_count))
            return malformed(err, i, "counts are non-negative integers");
        const struct lake_column *c = lake_table_find_field(t, id);
        if (!c || !bound_type_has_bounds(c->type))
            continue;
        struct expr_type type = {c->type, c->precision, c->scale, c->name};
        f->field_id = c->field_id;
        if (bound_from_json(a, &type, json_object_get(e, "lower_bound"), false, &f->lower,
                            &f->lower_len) != 0 ||
            bound_from_json(a, &type, json_object_get(e, "upper_bound"), true, &f->upper,
                            &f->upper_len) != 0)
            return error_nomem(err);
        m++;
    }
    *out = s;
    *n = m;
    return 0;
}

int expr_stats_from_row_group(const struct lake_table *t, const struct pq_file_meta *meta,
                              const struct pq_schema *schema, size_t g, struct arena *a,
                              struct expr_field_stats **out, size_t *n, struct error *err)
{
    struct pq_col_stats *cs;
    size_t m;
    *out = NULL;
    *n = 0;
    if (pq_row_group_column_stats(meta, schema, t, g, a, &cs, &m, err) != 0)
        return -1;
    struct expr_field_stats *s = arena_calloc(a, m ? m : 1, sizeof *s);
    if (!s)
        return error_nomem(err);
    for (size_t k = 0; k < m; k++)
        s[k] = (struct expr_field_stats){
            cs[k].field_id,  cs[k].lower,       cs[k].upper,      cs[k].lower_len,
            cs[k].upper_len, cs[k].value_count, cs[k].null_count, -1};
    *out = s;
    *n = m;
    return 0;
}

int expr_stats_from_page(const struct lake_table *t, const struct pq_schema *schema, int leaf,
                         const struct pq_page_index *pi, size_t p, struct arena *a,
                         struct expr_field_stats *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    if (leaf < 0 || leaf >= schema->nleaves || !pi->has_offsets || !pi->has_bounds ||
        p >= pi->bounds.npages || p >= pi->offsets.npages)
        return 1;
    const struct pq_node *node = schema->leaves[leaf];
    const struct lake_column *c =
        node->el->has_field_id ? lake_table_find_field(t, node->el->field_id) : NULL;
    if (!c)
        return 1;
    const struct pq_column_index *ci = &pi->bounds;
    struct pq_row_range rows;
    pq_page_index_rows(pi, p, &rows);
    int64_t nrows = rows.end - rows.begin;
    *out = (struct expr_field_stats){.field_id = c->field_id,
                                     .value_count = node->rep_level == 0 ? nrows : -1,
                                     .null_count = ci->null_counts ? ci->null_counts[p] : -1,
                                     .nan_count = -1};
    if (ci->null_pages[p]) {
        out->null_count = out->value_count;
        return 0;
    }
    bool oom = false;
    out->lower = pq_stat_bound(c, node->el, ci->min_values[p], ci->min_lens[p], true, a,
                               &out->lower_len, &oom);
    out->upper = pq_stat_bound(c, node->el, ci->max_values[p], ci->max_lens[p], false, a,
                               &out->upper_len, &oom);
    return oom ? error_nomem(err) : 0;
}

/* ---- partitions ---- */

struct pvalue {
    bool known, null;
    struct lake_value v;
};

struct partition {
    const struct expr_pred *p;
    const struct lake_partition_field *spec;
    const struct pvalue *values;
    size_t n;
};

/* T(v) for the column r, in the result type's terms. */
static bool transformed(const struct colref *r, const struct lake_partition_field *f,
                        const struct lake_value *v, struct lake_value *out)
{
    struct error ignored;
    return lake_partition_apply(f->transform, f->param, r->type, v, out, &ignored) == 0;
}

static bool may_cmp_partition(const struct colref *r, const struct lake_partition_field *f,
                              const struct pvalue *pv, enum expr_op op,
                              const struct lake_value *lit)
{
    enum vkind k = expr_vkind(lake_partition_result_type(f->transform, r->type));
    if (f->transform == LTR_IDENTITY)
        return expr_op_holds(op, expr_value_compare(k, &pv->v, lit));
    /* year, month, day, hour and truncate keep order (x <= y gives T(x) <=
     * T(y)); bucket keeps equality only. */
    struct lake_value tv, edge = *lit;
    if ((f->transform == LTR_BUCKET && op != OP_EQ) || op == OP_NE)
        return true;
    /* A strict bound on a date or timestamp is the next value inclusive:
     * ts < '2026-01-03' is ts <= its last instant before, whose day is the
     * 2nd, so day(ts) <= the 2nd. */
    bool temporal = f->transform == LTR_YEAR || f->transform == LTR_MONTH ||
                    f->transform == LTR_DAY || f->transform == LTR_HOUR;
    if (temporal && op == OP_LT && !lit->null && lit->i > INT64_MIN)
        edge.i = lit->i - 1, op = OP_LE;
    else if (temporal && op == OP_GT && !lit->null && lit->i < INT64_MAX)
        edge.i = lit->i + 1, op = OP_GE;
    if (!transformed(r, f, &edge, &tv))
        return true;
    int c = expr_value_compare(k, &pv->v, &tv);
    /* x <= lit gives T(x) <= T(lit): the bounds close over the transform. */
    switch (op) {
    case OP_EQ: return c == 0;
    case OP_LT:
    case OP_LE: return c <= 0;
    default: return c >= 0;
    }
}

static bool may_in_partition(const struct colref *r, const struct lake_partition_field *f,
                             const struct pvalue *pv, const struct pnode *p)
{
    if (p->negated && f->transform != LTR_IDENTITY)
        return true;
    for (size_t k = 0; k < p->in.n; k++) {
        bool eq = may_cmp_partition(r, f, pv, OP_EQ, &p->in.items[k].v);
        if (eq)
            return !p->negated;
    }
    return p->negated;
}

/* Whether the test can be TRUE given one partition field's value. */
static bool may_field(const struct partition *x, const struct pnode *p, size_t i)
{
    const struct colref *r = &x->p->cols.refs[p->col];
    const struct pvalue *pv = &x->values[i];
    /* Transforms keep nulls and only nulls null. */
    if (pv->null)
        return p->kind == PN_NULL && !p->negated;
    switch (p->kind) {
    case PN_NULL: return p->negated;
    case PN_CMP: return may_cmp_partition(r, &x->spec[i], pv, p->op, &p->lit.v);
    case PN_IN: return may_in_partition(r, &x->spec[i], pv, p);
    default: return true;
    }
}

static bool partition_test(const void *ctx, const struct pnode *p)
{
    const struct partition *x = ctx;
    for (size_t i = 0; i < x->n; i++) {
        if (!x->values[i].known)
            continue;
        int64_t source = x->spec[i].source_field_id;
        bool first = x->p->cols.refs[p->col].field_id == source;
        bool second = p->kind == PN_CMP_COLS && x->p->cols.refs[p->col2].field_id == source;
        /* Two columns: a null on either side makes the test unknown. */
        if (p->kind == PN_CMP_COLS && (first || second) && x->values[i].null)
            return false;
        if (first && !may_field(x, p, i))
            return false;
    }
    return true;
}

bool expr_pred_may_match_partition(const struct expr_pred *p,
                                   const struct lake_partition_field *spec, size_t nspec,
                                   const char *const *values, size_t nvalues)
{
    if (nspec != nvalues || nspec == 0)
        return true;
    struct arena a;
    arena_init(&a, 0);
    struct pvalue *pv = arena_calloc(&a, nspec, sizeof *pv);
    bool may = true;
    if (pv) {
        for (size_t i = 0; i < nspec; i++) {
            const struct colref *r = NULL;
            for (size_t k = 0; k < p->cols.n && !r; k++)
                if (p->cols.refs[k].field_id == spec[i].source_field_id)
                    r = &p->cols.refs[k];
            if (!r || expr_vkind(r->type) == VK_NONE)
                continue;
            struct expr_type t = {lake_partition_result_type(spec[i].transform, r->type),
                                  r->precision, r->scale, NULL};
            pv[i].null = values[i] == NULL;
            pv[i].known = pv[i].null || expr_parse_wire(&a, &t, values[i], &pv[i].v);
        }
        struct partition x = {p, spec, pv, nspec};
        may = may_tree(p->root, partition_test, &x);
    }
    arena_free(&a);
    return may;
}

/* ---- the shredded leaves of variant paths ---- */

static const struct pq_node *child_named(const struct pq_node *n, const char *name, size_t len)
{
    for (int k = 0; n && k < n->nchildren; k++) {
        const char *cn = n->children[k]->el->name;
        if (cn && strlen(cn) == len && memcmp(cn, name, len) == 0)
            return n->children[k];
    }
    return NULL;
}

/* What a shredded leaf holds, as a variant scalar kind (VS_OTHER: nothing
 * a literal compares with: temporal, binary, uuid, unsigned). */
static enum variant_scalar_kind leaf_kind(const struct pq_schema_element *el, int *scale)
{
    const struct pq_logical *l = &el->logical;
    bool decimal = l->kind == PQ_LT_DECIMAL;
    *scale = decimal ? l->scale : 0;
    switch (el->type) {
    case PQ_BOOLEAN: return VS_BOOL;
    case PQ_INT32:
    case PQ_INT64:
        if (decimal)
            return VS_DECIMAL;
        return l->kind == PQ_LT_NONE || (l->kind == PQ_LT_INTEGER && l->is_signed) ? VS_INT
                                                                                   : VS_OTHER;
    case PQ_FLOAT:
    case PQ_DOUBLE: return VS_DOUBLE;
    case PQ_BYTE_ARRAY: return l->kind == PQ_LT_STRING ? VS_STRING : VS_OTHER;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        return decimal && el->type_length > 0 && el->type_length <= 16 ? VS_DECIMAL : VS_OTHER;
    default: return VS_OTHER;
    }
}

/* One PLAIN statistic of a leaf of kind k as a Variant primitive in the
 * arena; NULL when it does not decode. */
static const uint8_t *leaf_bound(struct arena *a, const struct pq_schema_element *el,
                                 enum variant_scalar_kind k, int scale, const uint8_t *b, size_t n,
                                 size_t *len, bool *oom)
{
    struct variant_scalar v = {.kind = k, .scale = scale};
    switch (el->type) {
    case PQ_BOOLEAN:
        if (n != 1)
            return NULL;
        v.b = b[0] != 0;
        break;
    case PQ_INT32:
    case PQ_INT64:
        if (n != (el->type == PQ_INT32 ? 4u : 8u))
            return NULL;
        v.i = n == 4 ? (int32_t)le_load32(b) : (int64_t)le_load64(b);
        v.unscaled = v.i;
        break;
    case PQ_FLOAT:
    case PQ_DOUBLE:
        if (n != (el->type == PQ_FLOAT ? 4u : 8u))
            return NULL;
        if (n == 4) {
            uint32_t bits = le_load32(b);
            float f;
            memcpy(&f, &bits, 4);
            v.d = f;
        } else {
            uint64_t bits = le_load64(b);
            memcpy(&v.d, &bits, 8);
        }
        if (isnan(v.d))
            return NULL;
        break;
    case PQ_BYTE_ARRAY:
        v.s = (const char *)b;
        v.len = n;
        break;
    default: /* a big-endian two's complement decimal */
        if (n == 0 || n > 16)
            return NULL;
        v.unscaled = (int8_t)b[0];
        for (size_t i = 1; i < n; i++)
            v.unscaled = v.unscaled * 256 + b[i];
        break;
    }
    *len = variant_scalar_size(&v);
    uint8_t *out = arena_alloc(a, *len);
    if (out)
        variant_scalar_write(&v, out);
    *oom = *oom || !out;
    return out;
}

/* The shredded leaf colref r's path reaches in row group g when its
 * statistics say everything about the path there: a typed leaf of a kind a
 * literal compares with, and the field's residual value empty in the row
 * group (values of another type would sit there). NULL otherwise. */
static const struct pq_node *variant_path_leaf(const struct colref *r,
                                               const struct pq_file_meta *meta,
                                               const struct pq_schema *schema, size_t g)
{
    const struct pq_node *n = pq_schema_find_top_by_id(schema, (int32_t)r->field_id);
    for (size_t i = 0; n && i < r->nvkeys; i++)
        n = child_named(child_named(n, "typed_value", 11), r->vkeys[i], r->vkey_lens[i]);
    const struct pq_node *leaf = child_named(n, "typed_value", 11),
                         *value = child_named(n, "value", 5);
    if (!leaf || !value || leaf->leaf_index < 0 || value->leaf_index < 0 ||
        (size_t)leaf->leaf_index >= meta->row_groups[g].ncolumns ||
        (size_t)value->leaf_index >= meta->row_groups[g].ncolumns)
        return NULL;
    const struct pq_column_chunk *lc = &meta->row_groups[g].columns[leaf->leaf_index];
    const struct pq_column_chunk *vc = &meta->row_groups[g].columns[value->leaf_index];
    if (!lc->has_meta || !vc->has_meta || !vc->meta.statistics.has_null_count ||
        vc->meta.statistics.null_count != vc->meta.num_values ||
        !lc->meta.statistics.has_null_count)
        return NULL;
    int scale;
    return leaf_kind(leaf->el, &scale) == VS_OTHER ? NULL : leaf;
}

/* Statistics of a variant path's leaf (a row group's or a page's) under
 * colref k's id: bounds as Variant primitives (min and max NULL: none). */
static struct expr_field_stats variant_stats(size_t k, const struct pq_schema_element *el,
                                             int64_t value_count, int64_t null_count,
                                             const uint8_t *min, size_t min_len, const uint8_t *max,
                                             size_t max_len, struct arena *a, bool *oom)
{
    int scale;
    enum variant_scalar_kind kind = leaf_kind(el, &scale);
    struct expr_field_stats out = {.field_id = expr_variant_leaf_id(k),
                                   .value_count = value_count,
                                   .null_count = null_count,
                                   .nan_count = -1};
    if (min && max) {
        out.lower = leaf_bound(a, el, kind, scale, min, min_len, &out.lower_len, oom);
        out.upper = leaf_bound(a, el, kind, scale, max, max_len, &out.upper_len, oom);
        /* NaN sorts above every number but is never a bound. */
        if (kind == VS_DOUBLE)
            out.upper = NULL;
    }
    return out;
}

/* Only hoglake's writer is known to place values as its declaration says:
 * every object in typed_value, no shredded key in a residual. */
static bool placed_by_hoglake(const struct pq_file_meta *meta)
{
    return meta->created_by && strncmp(meta->created_by, "hoglake ", 8) == 0;
}

int expr_variant_page_leaves(const struct expr_pred *p, const struct pq_file_meta *meta,
                             const struct pq_schema *schema, size_t g, struct arena *a,
                             struct expr_variant_leaf **out, size_t *n, struct error *err)
{
    *out = NULL;
    *n = 0;
    if (g >= meta->nrow_groups || !placed_by_hoglake(meta))
        return 0;
    struct expr_variant_leaf *v = arena_calloc(a, p->cols.n ? p->cols.n : 1, sizeof *v);
    if (!v)
        return error_nomem(err);
    for (size_t k = 0; k < p->cols.n; k++) {
        const struct pq_node *leaf =
            p->cols.refs[k].nvkeys ? variant_path_leaf(&p->cols.refs[k], meta, schema, g) : NULL;
        if (leaf)
            v[(*n)++] = (struct expr_variant_leaf){.leaf = leaf->leaf_index, .col = k};
    }
    *out = v;
    return 0;
}

int expr_stats_variant_leaves(const struct expr_pred *p, const struct pq_file_meta *meta,
                              const struct pq_schema *schema, size_t g, struct arena *a,
                              struct expr_field_stats **out, size_t *n, struct error *err)
{
    struct expr_variant_leaf *v;
    *out = NULL;
    if (expr_variant_page_leaves(p, meta, schema, g, a, &v, n, err) != 0)
        return -1;
    struct expr_field_stats *s = arena_calloc(a, *n ? *n : 1, sizeof *s);
    if (!s)
        return error_nomem(err);
    for (size_t i = 0; i < *n; i++) {
        const struct pq_column_chunk *lc = &meta->row_groups[g].columns[v[i].leaf];
        const struct pq_statistics *st = &lc->meta.statistics;
        bool bounded = st->has_min && st->has_max, oom = false;
        s[i] = variant_stats(v[i].col, schema->leaves[v[i].leaf]->el, lc->meta.num_values,
                             st->null_count, bounded ? st->min : NULL, st->min_len,
                             bounded ? st->max : NULL, st->max_len, a, &oom);
        if (oom)
            return error_nomem(err);
    }
    *out = s;
    return 0;
}

int expr_stats_variant_page(const struct expr_variant_leaf *vl, const struct pq_schema *schema,
                            const struct pq_page_index *pi, size_t p, struct arena *a,
                            struct expr_field_stats *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    if (vl->leaf < 0 || vl->leaf >= schema->nleaves || !pi->has_offsets || !pi->has_bounds ||
        p >= pi->bounds.npages || p >= pi->offsets.npages)
        return 1;
    const struct pq_column_index *ci = &pi->bounds;
    struct pq_row_range rows;
    pq_page_index_rows(pi, p, &rows);
    int64_t nrows = rows.end - rows.begin;
    int64_t nulls = ci->null_counts ? ci->null_counts[p] : -1;
    bool oom = false;
    if (ci->null_pages[p])
        *out = variant_stats(vl->col, schema->leaves[vl->leaf]->el, nrows, nrows, NULL, 0, NULL, 0,
                             a, &oom);
    else
        *out = variant_stats(vl->col, schema->leaves[vl->leaf]->el, nrows, nulls, ci->min_values[p],
                             ci->min_lens[p], ci->max_values[p], ci->max_lens[p], a, &oom);
    return oom ? error_nomem(err) : 0;
}
