/* Binding: column paths to the table's columns, literals to their
 * columns' types, and predicates into negation normal form. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/expr_internal.h"

/* ---- columns ---- */

static int not_found(struct error *err, const struct expr *col, size_t k)
{
    return expr_fail_at(err, &col->at, "no column '%.*s'%s", (int)col->name_lens[k], col->names[k],
                        k ? " in the struct before it" : "");
}

/* The child of parent named name: exactly, else case-insensitively when
 * only one child matches so. */
static int find_child(const struct lake_column *parent, const struct expr *col, size_t k,
                      size_t *index, struct error *err)
{
    const char *name = col->names[k];
    size_t len = col->name_lens[k], found = SIZE_MAX, folded = 0;
    for (size_t i = 0; i < parent->nchildren; i++) {
        const char *cn = parent->children[i]->name;
        if (strlen(cn) != len)
            continue;
        if (memcmp(cn, name, len) == 0) {
            *index = i;
            return 0;
        }
        if (strncasecmp(cn, name, len) == 0) {
            found = i;
            folded++;
        }
    }
    if (folded > 1)
        return expr_fail_at(err, &col->at,
                            "'%.*s' matches %zu columns when case is ignored; quote the exact name",
                            (int)len, name, folded);
    if (folded == 0)
        return not_found(err, col, k);
    *index = found;
    return 0;
}

static bool same_variant_path(const struct colref *x, const struct colref *y)
{
    if (x->nvkeys != y->nvkeys)
        return false;
    for (size_t k = 0; k < x->nvkeys; k++)
        if (x->vkey_lens[k] != y->vkey_lens[k] ||
            memcmp(x->vkeys[k], y->vkeys[k], x->vkey_lens[k]) != 0)
            return false;
    return true;
}

/* A bound predicate outlives the parse tree: the keys move into a. */
static int copy_variant_path(struct arena *a, struct colref *r)
{
    if (r->nvkeys == 0)
        return 0;
    const char **keys = arena_alloc(a, r->nvkeys * sizeof *keys);
    size_t *lens = arena_alloc(a, r->nvkeys * sizeof *lens);
    if (!keys || !lens)
        return -1;
    for (size_t k = 0; k < r->nvkeys; k++) {
        lens[k] = r->vkey_lens[k];
        if (!(keys[k] = arena_strndup(a, r->vkeys[k], lens[k])))
            return -1;
    }
    r->vkeys = keys;
    r->vkey_lens = lens;
    return 0;
}

/* The column's dotted path, a variant path's keys after it (for messages). */
static const char *column_name(struct arena *a, const char *path, const struct colref *r)
{
    struct buf b = BUF_INIT;
    int rc = buf_append(&b, path, strlen(path));
    for (size_t k = 0; k < r->nvkeys && rc == 0; k++)
        rc = buf_append(&b, ".", 1) != 0 ? -1 : buf_append(&b, r->vkeys[k], r->vkey_lens[k]);
    const char *name = rc == 0 ? arena_strndup(a, b.data, b.len) : NULL;
    buf_free(&b);
    return name;
}

int expr_resolve_column(struct arena *a, const struct lake_table *t, struct colset *cs,
                        const struct expr *col, size_t *index, struct error *err)
{
    struct colref r = {0};
    const struct lake_column *c = &t->root;
    r.required = true;
    for (size_t k = 0; k < col->nnames; k++) {
        if (k > 0 && c->type == LT_VARIANT) {
            r.vkeys = col->names + k;
            r.vkey_lens = col->name_lens + k;
            r.nvkeys = col->nnames - k;
            break;
        }
        if (k > 0 && c->type != LT_STRUCT) {
            char path[400];
            lake_column_path(c, path, sizeof path);
            return expr_fail_at(err, &col->at, "'%s' is a %s; a path names struct fields only",
                                path, lake_type_name(c->type));
        }
        size_t i = 0;
        if (k >= LAKE_MAX_DEPTH)
            return not_found(err, col, k);
        if (find_child(c, col, k, &i, err) != 0)
            return -1;
        c = c->children[i];
        r.path[r.depth++] = (uint32_t)i;
        r.required = r.required && !c->nullable;
    }
    for (size_t k = 0; k < cs->n; k++)
        if (cs->refs[k].field_id == c->field_id && same_variant_path(&cs->refs[k], &r)) {
            *index = k;
            return 0;
        }
    char path[800];
    lake_column_path(c, path, sizeof path);
    r.field_id = c->field_id;
    r.type = c->type;
    r.precision = c->precision;
    r.scale = c->scale;
    if (!(r.name = column_name(a, path, &r)) || copy_variant_path(a, &r) != 0)
        return error_nomem(err);
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : 8;
        struct colref *refs = arena_alloc(a, cap * sizeof *refs);
        if (!refs)
            return error_nomem(err);
        if (cs->n)
            memcpy(refs, cs->refs, cs->n * sizeof *refs);
        cs->refs = refs;
        cs->cap = cap;
    }
    cs->refs[cs->n] = r;
    *index = cs->n++;
    return 0;
}

/* Sorts and deduplicates n values in place; returns the count kept. */
static size_t sort_unique_size(size_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            size_t x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

int expr_colset_finish(struct arena *a, struct colset *cs, struct error *err)
{
    size_t *top = arena_alloc(a, (cs->n + 1) * sizeof *top);
    int64_t *ids = arena_alloc(a, (cs->n + 1) * sizeof *ids);
    if (!top || !ids)
        return error_nomem(err);
    size_t nids = 0;
    for (size_t k = 0; k < cs->n; k++) {
        top[k] = cs->refs[k].path[0];
        /* A variant has no statistics by field id (its paths' leaves have
         * their own: expr_stats_variant_leaves). */
        if (!lake_type_is_container(cs->refs[k].type) && cs->refs[k].type != LT_VARIANT) {
            /* Insertion keeps them ascending; field ids are distinct. */
            size_t j = nids++;
            for (; j > 0 && ids[j - 1] > cs->refs[k].field_id; j--)
                ids[j] = ids[j - 1];
            ids[j] = cs->refs[k].field_id;
        }
    }
    cs->used.top = top;
    cs->used.ntop = sort_unique_size(top, cs->n);
    cs->used.field_ids = ids;
    cs->used.nfield_ids = nids;
    return 0;
}

/* ---- predicate nodes ---- */

struct binder {
    struct arena *a;
    const struct lake_table *t;
    struct colset *cs;
    struct error *err;
};

static struct pnode *pnode_new(struct binder *b, enum pn_kind kind)
{
    struct pnode *n = arena_calloc(b->a, 1, sizeof *n);
    if (!n)
        error_nomem(b->err);
    else
        n->kind = kind;
    return n;
}

static struct pnode *constant(struct binder *b, bool value)
{
    struct pnode *n = pnode_new(b, PN_CONST);
    if (n)
        n->value = value;
    return n;
}

static bool is_null_literal(const struct expr *e)
{
    return e->kind == EK_LITERAL && e->lit == LIT_NULL;
}

/* AND or OR of kids (nested ones of the same kind flattened), constants
 * folded: TRUE drops out of an AND and decides an OR, FALSE the reverse. */
static struct pnode *junction(struct binder *b, enum pn_kind kind, struct pnode **kids, size_t n)
{
    bool unit = kind == PN_AND; /* the constant that drops out */
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        if (kids[k]->kind == PN_CONST && kids[k]->value != unit)
            return constant(b, !unit);
        total += kids[k]->kind == kind ? kids[k]->nkids : kids[k]->kind != PN_CONST;
    }
    if (total == 0)
        return constant(b, unit);
    struct pnode **flat = arena_alloc(b->a, total * sizeof *flat);
    if (!flat) {
        error_nomem(b->err);
        return NULL;
    }
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (kids[k]->kind == kind) {
            memcpy(flat + m, kids[k]->kids, kids[k]->nkids * sizeof *flat);
            m += kids[k]->nkids;
        } else if (kids[k]->kind != PN_CONST) {
            flat[m++] = kids[k];
        }
    }
    if (m == 1)
        return flat[0];
    struct pnode *j = pnode_new(b, kind);
    if (j) {
        j->kids = flat;
        j->nkids = m;
    }
    return j;
}

static enum expr_op inverted(enum expr_op op)
{
    switch (op) {
    case OP_EQ: return OP_NE;
    case OP_NE: return OP_EQ;
    case OP_LT: return OP_GE;
    case OP_LE: return OP_GT;
    case OP_GT: return OP_LE;
    case OP_GE: return OP_LT;
    default: return op;
    }
}

/* The operator seen from the other side: 5 < x is x > 5. */
static enum expr_op mirrored(enum expr_op op)
{
    switch (op) {
    case OP_LT: return OP_GT;
    case OP_LE: return OP_GE;
    case OP_GT: return OP_LT;
    case OP_GE: return OP_LE;
    default: return op;
    }
}

/* A column operand that can be compared: any scalar type. */
static int comparable_column(struct binder *b, const struct expr *e, size_t *col)
{
    if (expr_resolve_column(b->a, b->t, b->cs, e, col, b->err) != 0)
        return -1;
    const struct colref *r = &b->cs->refs[*col];
    if (r->nvkeys == 0 && expr_vkind(r->type) == VK_NONE)
        return expr_fail_at(b->err, &e->at, "'%s' is a %s; compare %s", r->name,
                            lake_type_name(r->type),
                            r->type == LT_STRUCT    ? "one of its fields (a.b), or test IS NULL"
                            : r->type == LT_VARIANT ? "a path into it (v.key), or test IS NULL"
                                                    : "it with IS NULL only");
    return 0;
}

/* A literal a variant path compares with: its family and value. */
static int variant_literal(struct binder *b, const struct colref *r, const struct expr *lit,
                           struct vlit *out)
{
    memset(out, 0, sizeof *out);
    switch (lit->lit) {
    case LIT_STRING: {
        char *copy = arena_alloc(b->a, lit->len + 1); /* outlives the parse tree */
        if (!copy)
            return error_nomem(b->err);
        if (lit->len)
            memcpy(copy, lit->text, lit->len);
        out->kind = VS_STRING;
        out->s = copy;
        out->len = lit->len;
        return 0;
    }
    case LIT_TRUE:
    case LIT_FALSE:
        out->kind = VS_BOOL;
        out->b = lit->lit == LIT_TRUE;
        return 0;
    case LIT_NUMBER: {
        char text[128];
        if (lit->len >= sizeof text)
            return expr_fail_at(b->err, &lit->at, "a number too long to compare with '%s'",
                                r->name);
        memcpy(text, lit->text, lit->len);
        text[lit->len] = '\0';
        out->kind = VS_DECIMAL;
        out->exact = expr_number_exact(lit->text, lit->len, &out->unscaled, &out->scale);
        out->d = strtod(text, NULL);
        return 0;
    }
    default:
        return expr_fail_at(b->err, &lit->at,
                            "'%s' is a variant path: compare it with a string, a number or "
                            "TRUE/FALSE",
                            r->name);
    }
}

static struct pnode *compare_variant(struct binder *b, size_t col, enum expr_op op,
                                     const struct expr *lit)
{
    struct pnode *n = pnode_new(b, PN_VCMP);
    if (!n || variant_literal(b, &b->cs->refs[col], lit, &n->vlit) != 0)
        return NULL;
    n->op = op;
    n->col = col;
    return n;
}

static struct expr_type type_of(const struct colref *r)
{
    return (struct expr_type){r->type, r->precision, r->scale, r->name};
}

/* Which columns compare with which: the same group, and how. */
static int group_of(enum lake_type t)
{
    switch (t) {
    case LT_STRING:
    case LT_JSON: return 1;
    case LT_BINARY: return 2;
    case LT_UUID: return 3;
    case LT_BOOLEAN: return 4;
    case LT_TIME: return 5;
    case LT_FLOAT:
    case LT_DOUBLE:
    case LT_DECIMAL: return 6;
    default: return lake_type_is_temporal(t) ? 7 : 6; /* the rest: integers */
    }
}

static enum cmp_family family_of(enum lake_type x, enum lake_type y)
{
    switch (group_of(x)) {
    case 1:
    case 2:
    case 3: return CF_BYTES;
    case 4: return CF_BOOL;
    case 5:
    case 7: return CF_TIME;
    default: return expr_vkind(x) == VK_FLOAT || expr_vkind(y) == VK_FLOAT ? CF_FLOAT : CF_INT;
    }
}

static struct pnode *compare_columns(struct binder *b, const struct expr *at, size_t x, size_t y,
                                     enum expr_op op)
{
    const struct colref *rx = &b->cs->refs[x], *ry = &b->cs->refs[y];
    if (group_of(rx->type) != group_of(ry->type)) {
        expr_fail_at(b->err, &at->at, "cannot compare '%s' (%s) with '%s' (%s)", rx->name,
                     lake_type_name(rx->type), ry->name, lake_type_name(ry->type));
        return NULL;
    }
    struct pnode *n = pnode_new(b, PN_CMP_COLS);
    if (n) {
        n->op = op;
        n->col = x;
        n->col2 = y;
        n->family = family_of(rx->type, ry->type);
    }
    return n;
}

/* lhs op rhs (NOT of it when negate), where each side is a column or a
 * literal; at is where the operator is. */
static struct pnode *compare(struct binder *b, const struct expr *at, const struct expr *lhs,
                             enum expr_op op, const struct expr *rhs, bool negate)
{
    if (is_null_literal(lhs) || is_null_literal(rhs))
        return constant(b, false); /* unknown either way */
    if (negate)
        op = inverted(op);
    bool lcol = lhs->kind == EK_COLUMN, rcol = rhs->kind == EK_COLUMN;
    if (!lcol && !rcol) {
        expr_fail_at(b->err, &at->at, "a comparison needs a column on one side");
        return NULL;
    }
    size_t x, y;
    if (comparable_column(b, lcol ? lhs : rhs, &x) != 0)
        return NULL;
    if (lcol && rcol) {
        if (comparable_column(b, rhs, &y) != 0)
            return NULL;
        if (b->cs->refs[x].nvkeys || b->cs->refs[y].nvkeys) {
            expr_fail_at(b->err, &at->at, "a variant path compares with a literal only");
            return NULL;
        }
        return compare_columns(b, at, x, y, op);
    }
    const struct expr *lit = lcol ? rhs : lhs;
    if (b->cs->refs[x].nvkeys)
        return compare_variant(b, x, lcol ? op : mirrored(op), lit);
    struct expr_type type = type_of(&b->cs->refs[x]);
    struct pnode *n = pnode_new(b, PN_CMP);
    if (!n || expr_literal_convert(b->a, lit, &type, &n->lit, b->err) != 0)
        return NULL;
    n->op = lcol ? op : mirrored(op);
    n->col = x;
    return n;
}

/* ---- IN ---- */

static int compare_bval(enum vkind k, const struct bval *x, const struct bval *y)
{
    return expr_value_compare(k, &x->v, &y->v);
}

/* Sorts v ascending (merge sort through tmp) and drops duplicates;
 * returns the count kept. */
static size_t sort_values(enum vkind k, struct bval *v, struct bval *tmp, size_t n)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n,
                   hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                tmp[o++] = compare_bval(k, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
            while (i < mid)
                tmp[o++] = v[i++];
            while (j < hi)
                tmp[o++] = v[j++];
        }
        memcpy(v, tmp, n * sizeof *v);
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || compare_bval(k, &v[m - 1], &v[i]) != 0)
            v[m++] = v[i];
    return m;
}

/* x IN (a, b, ...) as x = a OR x = b ..., NOT IN as AND of !=: exact in
 * three-valued logic; used when the list names columns. */
static struct pnode *in_as_comparisons(struct binder *b, const struct expr *e, bool negated)
{
    struct pnode **kids = arena_alloc(b->a, (e->nargs - 1) * sizeof *kids);
    if (!kids) {
        error_nomem(b->err);
        return NULL;
    }
    for (size_t k = 1; k < e->nargs; k++)
        if (!(kids[k - 1] = compare(b, e, e->args[0], OP_EQ, e->args[k], negated)))
            return NULL;
    return junction(b, negated ? PN_AND : PN_OR, kids, e->nargs - 1);
}

static struct pnode *in_list(struct binder *b, const struct expr *e, bool negate)
{
    bool negated = e->negated != negate;
    if (e->args[0]->kind != EK_COLUMN) {
        if (is_null_literal(e->args[0]))
            return constant(b, false);
        expr_fail_at(b->err, &e->args[0]->at, "IN needs a column on its left");
        return NULL;
    }
    size_t col;
    if (comparable_column(b, e->args[0], &col) != 0)
        return NULL;
    bool list_names_columns = b->cs->refs[col].nvkeys > 0; /* a variant path: each its own */
    for (size_t k = 1; k < e->nargs; k++)
        list_names_columns = list_names_columns || e->args[k]->kind == EK_COLUMN;
    if (list_names_columns)
        return in_as_comparisons(b, e, negated);
    struct expr_type type = type_of(&b->cs->refs[col]);
    struct bval *items = arena_alloc(b->a, e->nargs * sizeof *items);
    struct bval *tmp = arena_alloc(b->a, e->nargs * sizeof *tmp);
    if (!items || !tmp) {
        error_nomem(b->err);
        return NULL;
    }
    size_t n = 0;
    bool has_null = false;
    for (size_t k = 1; k < e->nargs; k++) {
        if (is_null_literal(e->args[k]))
            has_null = true;
        else if (expr_literal_convert(b->a, e->args[k], &type, &items[n++], b->err) != 0)
            return NULL;
    }
    /* A NULL item makes every non-match unknown: NOT IN is never TRUE. */
    if (n == 0 || (negated && has_null))
        return constant(b, false);
    enum vkind vk = expr_vkind(type.type);
    n = sort_values(vk, items, tmp, n);
    int64_t *keys = arena_alloc(b->a, n * sizeof *keys);
    struct pnode *p = keys ? pnode_new(b, PN_IN) : NULL;
    if (!p) {
        error_nomem(b->err);
        return NULL;
    }
    for (size_t k = 0; k < n; k++)
        keys[k] = vk == VK_FLOAT  ? expr_float_key(items[k].v.d)
                  : vk == VK_BOOL ? items[k].v.b
                                  : items[k].v.i;
    p->col = col;
    p->negated = negated;
    p->in = (struct in_set){n, items, keys, NULL};
    /* A dense set of integers is a bitmap: one load a row. */
    if (vk == VK_INT && (uint64_t)keys[n - 1] - (uint64_t)keys[0] < EXPR_IN_BITMAP_SPAN) {
        uint64_t span = (uint64_t)keys[n - 1] - (uint64_t)keys[0];
        uint8_t *bits = arena_calloc(b->a, span / 8 + 1, 1);
        if (!bits) {
            error_nomem(b->err);
            return NULL;
        }
        for (size_t k = 0; k < n; k++) {
            uint64_t at = (uint64_t)keys[k] - (uint64_t)keys[0];
            bits[at / 8] = (uint8_t)(bits[at / 8] | 1u << (at % 8));
        }
        p->in.bitmap = bits;
    }
    return p;
}

/* ---- the rest ---- */

static struct pnode *bind_node(struct binder *b, const struct expr *e, bool negate);

static struct pnode *junction_of(struct binder *b, const struct expr *e, bool negate)
{
    struct pnode **kids = arena_alloc(b->a, e->nargs * sizeof *kids);
    if (!kids) {
        error_nomem(b->err);
        return NULL;
    }
    for (size_t k = 0; k < e->nargs; k++)
        if (!(kids[k] = bind_node(b, e->args[k], negate)))
            return NULL;
    /* De Morgan: NOT (a AND b) is NOT a OR NOT b. */
    bool and = (e->kind == EK_AND) != negate;
    return junction(b, and? PN_AND : PN_OR, kids, e->nargs);
}

static struct pnode *between(struct binder *b, const struct expr *e, bool negate)
{
    bool negated = e->negated != negate;
    struct pnode *kids[2];
    /* x BETWEEN lo AND hi is x >= lo AND x <= hi; NOT of it x < lo OR x > hi. */
    if (!(kids[0] = compare(b, e, e->args[0], OP_GE, e->args[1], negated)) ||
        !(kids[1] = compare(b, e, e->args[0], OP_LE, e->args[2], negated)))
        return NULL;
    return junction(b, negated ? PN_OR : PN_AND, kids, 2);
}

static struct pnode *null_test(struct binder *b, const struct expr *e, bool negate)
{
    bool negated = e->negated != negate; /* IS NOT NULL */
    const struct expr *x = e->args[0];
    if (x->kind == EK_LITERAL)
        return constant(b, (x->lit == LIT_NULL) != negated);
    size_t col;
    if (expr_resolve_column(b->a, b->t, b->cs, x, &col, b->err) != 0)
        return NULL;
    struct pnode *n = pnode_new(b, PN_NULL);
    if (n) {
        n->col = col;
        n->negated = negated;
    }
    return n;
}

/* A test with no operator: a boolean column or literal. */
static struct pnode *standalone(struct binder *b, const struct expr *e, bool negate)
{
    if (e->kind == EK_LITERAL) {
        if (e->lit == LIT_TRUE || e->lit == LIT_FALSE)
            return constant(b, (e->lit == LIT_TRUE) != negate);
        if (e->lit == LIT_NULL)
            return constant(b, false);
        expr_fail_at(b->err, &e->at, "expected a predicate, not a value");
        return NULL;
    }
    size_t col;
    if (expr_resolve_column(b->a, b->t, b->cs, e, &col, b->err) != 0)
        return NULL;
    const struct colref *r = &b->cs->refs[col];
    if (r->nvkeys) { /* props.flag: props.flag = TRUE */
        struct pnode *n = pnode_new(b, PN_VCMP);
        if (n) {
            n->op = OP_EQ;
            n->col = col;
            n->vlit = (struct vlit){.kind = VS_BOOL, .b = !negate};
        }
        return n;
    }
    if (r->type != LT_BOOLEAN) {
        expr_fail_at(b->err, &e->at, "'%s' is a %s, not a boolean: compare it with a value",
                     r->name, lake_type_name(r->type));
        return NULL;
    }
    struct pnode *n = pnode_new(b, PN_CMP);
    if (n) {
        n->op = OP_EQ;
        n->col = col;
        n->lit.v.b = !negate;
        struct expr_type type = type_of(r);
        if (expr_value_bound(b->a, &type, &n->lit) != 0) {
            error_nomem(b->err);
            return NULL;
        }
    }
    return n;
}

static struct pnode *bind_node(struct binder *b, const struct expr *e, bool negate)
{
    switch (e->kind) {
    case EK_AND:
    case EK_OR: return junction_of(b, e, negate);
    case EK_NOT: return bind_node(b, e->args[0], !negate);
    case EK_CMP: return compare(b, e, e->args[0], e->op, e->args[1], negate);
    case EK_IN: return in_list(b, e, negate);
    case EK_BETWEEN: return between(b, e, negate);
    case EK_ISNULL: return null_test(b, e, negate);
    case EK_COLUMN:
    case EK_LITERAL: return standalone(b, e, negate);
    default: expr_fail_at(b->err, &e->at, "expected a predicate"); return NULL;
    }
}

int expr_bind_pnode(struct arena *a, const struct lake_table *t, struct colset *cs,
                    const struct expr *e, bool negate, struct pnode **out, struct error *err)
{
    struct binder b = {a, t, cs, err};
    *out = bind_node(&b, e, negate);
    return *out ? 0 : -1;
}

size_t expr_pnode_levels(const struct pnode *n)
{
    if (n->kind == PN_CONST)
        return 0;
    if (n->kind != PN_AND && n->kind != PN_OR)
        return 1; /* a test's validity mask */
    size_t need = expr_pnode_levels(n->kids[0]);
    for (size_t k = 1; k < n->nkids; k++) {
        size_t kid = 1 + expr_pnode_levels(n->kids[k]);
        need = kid > need ? kid : need;
    }
    return need;
}

int expr_bind_predicate(struct arena *a, const struct lake_table *t, const struct expr *e,
                        struct expr_pred **out, struct error *err)
{
    struct expr_pred *p = arena_calloc(a, 1, sizeof *p);
    if (!p)
        return error_nomem(err);
    if (expr_bind_pnode(a, t, &p->cols, e, false, &p->root, err) != 0 ||
        expr_colset_finish(a, &p->cols, err) != 0)
        return -1;
    p->levels = expr_pnode_levels(p->root);
    *out = p;
    return 0;
}

int expr_compile_predicate(struct arena *a, const struct lake_table *t, const char *text,
                           size_t len, struct expr_pred **out, struct error *err)
{
    struct expr *e;
    if (expr_parse_predicate(a, text, len, &e, err) != 0)
        return -1;
    return expr_bind_predicate(a, t, e, out, err);
}

const struct expr_columns *expr_pred_columns(const struct expr_pred *p)
{
    return &p->cols.used;
}
