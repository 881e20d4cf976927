/* Value expressions for updates: `col = expr, ...` bound in the assigned
 * column's type, and evaluated over a batch a chunk of rows at a time
 * into a new Arrow array of that column. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr_internal.h"
#include "parquet/writer.h"
#include "rows/rows_json.h"
#include "util/arrow.h"

/* The domain a column's values are computed in. */
enum dom {
    D_EXACT, /* i128 at a scale: integers, decimals, and the ticks of temporals */
    D_FLOAT, /* double */
    D_BOOL,
    D_BYTES
};

struct bref {
    const uint8_t *p;
    size_t len;
};

enum vn_kind { VN_NULL, VN_LIT, VN_COL, VN_ARITH, VN_NEG, VN_CASE };

struct vnode {
    enum vn_kind kind;
    struct expr_span at;
    int scale;  /* D_EXACT: the scale of the node's values */
    int digits; /* D_EXACT: at most this many digits before the point */
    /* VN_LIT */
    i128 x;
    double f;
    bool b;
    struct bref s;
    /* VN_COL: the column, and the ticks of the target per tick of it */
    size_t col;
    int64_t factor;
    /* VN_ARITH: kids[0] ops[1] kids[1] ...; scales[k] after step k.
     * VN_NEG: kids[0]. VN_CASE: WHEN whens[k] THEN kids[k]; kids[nwhen]
     * the ELSE, or NULL. */
    struct vnode **kids;
    size_t nkids;
    const enum expr_op *ops;
    int *scales;
    struct pnode **whens;
    size_t nwhen;
};

struct assignment {
    size_t col;          /* the target, as a column read for the rows not assigned */
    struct expr_span at; /* the target's name, where results that do not fit point */
    enum dom dom;
    struct vnode *value;
    size_t levels;
};

struct expr_update {
    struct colset cols;
    struct assignment *items;
    size_t n;
    size_t pred_levels;
};

/* ---- binding ---- */

struct vbinder {
    struct arena *a;
    const struct lake_table *t;
    struct colset *cs;
    struct error *err;
    const struct colref *target;
    enum dom dom;
    size_t pred_levels;
};

static bool numeric(enum lake_type t)
{
    enum vkind k = expr_vkind(t);
    return k == VK_UINT64 || k == VK_DEC || k == VK_FLOAT ||
           (k == VK_INT && !lake_type_is_temporal(t) && t != LT_TIME);
}

static bool integer(enum lake_type t)
{
    i128 lo, hi;
    return expr_int_range(t, &lo, &hi);
}

static bool temporal(enum lake_type t)
{
    return lake_type_is_temporal(t) || t == LT_TIME;
}

static enum dom dom_of(enum lake_type t)
{
    switch (expr_vkind(t)) {
    case VK_FLOAT: return D_FLOAT;
    case VK_BOOL: return D_BOOL;
    case VK_BYTES: return D_BYTES;
    default: return D_EXACT;
    }
}

static int target_scale(const struct vbinder *b)
{
    return b->target->type == LT_DECIMAL ? b->target->scale : 0;
}

static int max_int(int x, int y)
{
    return x > y ? x : y;
}

static int min_int(int x, int y)
{
    return x < y ? x : y;
}

/* Digits before the point a column's values have at most. */
static int integer_digits(const struct colref *r)
{
    switch (r->type) {
    case LT_INT8:
    case LT_UINT8: return 3;
    case LT_INT16:
    case LT_UINT16: return 5;
    case LT_INT:
    case LT_UINT32: return 10;
    case LT_UINT64: return 20;
    case LT_DECIMAL: return max_int(r->precision - r->scale, 1);
    default: return 19;
    }
}

static struct vnode *vnode_new(struct vbinder *b, enum vn_kind kind, const struct expr *e)
{
    struct vnode *n = arena_calloc(b->a, 1, sizeof *n);
    if (!n) {
        error_nomem(b->err);
        return NULL;
    }
    n->kind = kind;
    n->at = e->at;
    n->factor = 1;
    return n;
}

static struct vnode *literal(struct vbinder *b, const struct expr *e)
{
    const struct colref *t = b->target;
    struct vnode *n = vnode_new(b, e->lit == LIT_NULL ? VN_NULL : VN_LIT, e);
    if (!n || e->lit == LIT_NULL)
        return n;
    struct expr_type type = {t->type, t->precision, t->scale, t->name};
    if (b->dom == D_EXACT && numeric(t->type)) {
        /* Exact at the literal's own scale; the result is rounded once. */
        int scale = 0;
        if (e->lit != LIT_NUMBER || !expr_number_exact(e->text, e->len, &n->x, &scale) ||
            (t->type != LT_DECIMAL && scale != 0)) {
            expr_fail_at(b->err, &e->at, "expected %s for column '%s' (%s)",
                         t->type == LT_DECIMAL ? "a number of at most 38 digits"
                                               : "an integer of at most 38 digits",
                         t->name, lake_type_name(t->type));
            return NULL;
        }
        n->scale = scale;
        i128 mag = n->x < 0 ? -n->x : n->x;
        for (n->digits = -scale; mag > 0; mag /= 10)
            n->digits++;
        n->digits = max_int(n->digits, 1);
        return n;
    }
    if (b->dom == D_FLOAT)
        type.type = LT_DOUBLE;
    struct bval v;
    if (expr_literal_convert(b->a, e, &type, &v, b->err) != 0)
        return NULL;
    switch (b->dom) {
    case D_EXACT: n->x = v.v.i; break; /* a temporal's ticks */
    case D_FLOAT: n->f = v.v.d; break;
    case D_BOOL: n->b = v.v.b; break;
    case D_BYTES: n->s = (struct bref){v.v.bytes.data, v.v.bytes.len}; break;
    }
    if (t->type == LT_JSON && !rj_parse(e->text, e->len, NULL, b->err)) {
        expr_fail_at(b->err, &e->at, "not valid JSON for column '%s' (json)", t->name);
        return NULL;
    }
    return n;
}

/* Whether a column of type s can feed the target (exactly). */
static bool source_fits(const struct vbinder *b, enum lake_type s, int64_t *factor)
{
    enum lake_type t = b->target->type;
    *factor = 1;
    switch (b->dom) {
    case D_FLOAT: return numeric(s);
    case D_BOOL: return s == LT_BOOLEAN;
    case D_BYTES:
        return s == t || (t == LT_STRING && s == LT_JSON) || (t == LT_BINARY && s == LT_STRING);
    case D_EXACT: break;
    }
    if (!temporal(t))
        return numeric(s) && expr_vkind(s) != VK_FLOAT;
    if (!temporal(s) || (s == LT_TIME) != (t == LT_TIME))
        return false;
    int64_t from = expr_nanos_per_tick(s), to = expr_nanos_per_tick(t);
    *factor = from / to;
    return from % to == 0;
}

static struct vnode *column(struct vbinder *b, const struct expr *e)
{
    size_t col;
    if (expr_resolve_column(b->a, b->t, b->cs, e, &col, b->err) != 0)
        return NULL;
    const struct colref *r = &b->cs->refs[col];
    struct vnode *n = vnode_new(b, VN_COL, e);
    if (!n)
        return NULL;
    bool fits = source_fits(b, r->type, &n->factor);
    /* A decimal with fraction digits does not fit an integer column. */
    if (fits && b->dom == D_EXACT && r->type == LT_DECIMAL && b->target->type != LT_DECIMAL &&
        r->scale > 0)
        fits = false;
    if (!fits) {
        expr_fail_at(b->err, &e->at, "'%s' (%s) does not fit column '%s' (%s)", r->name,
                     lake_type_name(r->type), b->target->name, lake_type_name(b->target->type));
        return NULL;
    }
    n->col = col;
    n->scale = r->type == LT_DECIMAL ? r->scale : 0;
    n->digits = integer_digits(r);
    return n;
}

static struct vnode *bind_value(struct vbinder *b, const struct expr *e);

static struct vnode *arithmetic(struct vbinder *b, const struct expr *e)
{
    if (!numeric(b->target->type)) {
        expr_fail_at(b->err, &e->at, "arithmetic needs a numeric column; '%s' is %s",
                     b->target->name, lake_type_name(b->target->type));
        return NULL;
    }
    struct vnode *n = vnode_new(b, e->kind == EK_NEG ? VN_NEG : VN_ARITH, e);
    struct vnode **kids = arena_alloc(b->a, e->nargs * sizeof *kids);
    int *scales = arena_alloc(b->a, e->nargs * sizeof *scales);
    if (!n || !kids || !scales) {
        error_nomem(b->err);
        return NULL;
    }
    for (size_t k = 0; k < e->nargs; k++)
        if (!(kids[k] = bind_value(b, e->args[k])))
            return NULL;
    int scale = scales[0] = kids[0]->scale, digits = kids[0]->digits;
    for (size_t k = 1; k < e->nargs; k++) {
        int s = kids[k]->scale, d = kids[k]->digits;
        switch (e->ops[k]) {
        case OP_MUL:
            scale += s;
            digits += d;
            break;
        case OP_DIV:
            if (b->target->type != LT_DECIMAL) {
                scale = 0; /* integers divide whole */
                break;
            }
            /* Six digits more than the operands and the column have, as
             * far as the quotient's integer digits leave room for them,
             * and never fewer than the dividend's scale needs. */
            digits += s;
            int want = max_int(max_int(scale, s), target_scale(b)) + 6;
            int to = min_int(want, max_int(38 - digits, target_scale(b)));
            scale = min_int(max_int(to, max_int(scale - s, 0)), 38);
            break;
        default:
            scale = max_int(scale, s);
            digits = max_int(digits, d) + 1;
            break;
        }
        if (scale > 38 && b->dom == D_EXACT) {
            expr_fail_at(b->err, &e->at, "the result has more than 38 fraction digits");
            return NULL;
        }
        scales[k] = scale;
    }
    n->kids = kids;
    n->nkids = e->nargs;
    n->ops = e->ops;
    n->scales = scales;
    n->scale = b->dom == D_EXACT ? scale : 0;
    n->digits = min_int(digits, 77);
    return n;
}

static struct vnode *case_value(struct vbinder *b, const struct expr *e)
{
    size_t nwhen = (e->nargs - e->has_else) / 2;
    struct vnode *n = vnode_new(b, VN_CASE, e);
    struct pnode **whens = arena_alloc(b->a, (nwhen ? nwhen : 1) * sizeof *whens);
    struct vnode **kids = arena_calloc(b->a, nwhen + 1, sizeof *kids);
    if (!n || !whens || !kids) {
        error_nomem(b->err);
        return NULL;
    }
    for (size_t k = 0; k < nwhen; k++) {
        if (expr_bind_pnode(b->a, b->t, b->cs, e->args[2 * k], false, &whens[k], b->err) != 0 ||
            !(kids[k] = bind_value(b, e->args[2 * k + 1])))
            return NULL;
        size_t levels = expr_pnode_levels(whens[k]);
        b->pred_levels = levels > b->pred_levels ? levels : b->pred_levels;
        n->scale = max_int(n->scale, kids[k]->scale);
        n->digits = max_int(n->digits, kids[k]->digits);
    }
    if (e->has_else) {
        if (!(kids[nwhen] = bind_value(b, e->args[e->nargs - 1])))
            return NULL;
        n->scale = max_int(n->scale, kids[nwhen]->scale);
        n->digits = max_int(n->digits, kids[nwhen]->digits);
    }
    n->whens = whens;
    n->nwhen = nwhen;
    n->kids = kids;
    n->nkids = nwhen + 1;
    return n;
}

static struct vnode *bind_value(struct vbinder *b, const struct expr *e)
{
    switch (e->kind) {
    case EK_LITERAL: return literal(b, e);
    case EK_COLUMN: return column(b, e);
    case EK_ARITH:
    case EK_NEG: return arithmetic(b, e);
    case EK_CASE: return case_value(b, e);
    default: expr_fail_at(b->err, &e->at, "expected a value"); return NULL;
    }
}

/* Buffers (levels) evaluating n needs. */
static size_t vnode_levels(const struct vnode *n)
{
    size_t need = 1;
    for (size_t k = 0; k < n->nkids; k++) {
        if (!n->kids[k])
            continue;
        /* An operation's first operand shares its level; the others sit
         * one above. */
        size_t kid = vnode_levels(n->kids[k]) + (k > 0 || n->kind == VN_CASE);
        need = kid > need ? kid : need;
    }
    return need;
}

static int bind_target(struct vbinder *b, const struct expr *e, size_t *col)
{
    if (expr_resolve_column(b->a, b->t, b->cs, e, col, b->err) != 0)
        return -1;
    const struct colref *r = &b->cs->refs[*col];
    if (r->depth > 1)
        return expr_fail_at(b->err, &e->at,
                            "'%s' is a struct field; assignments name top-level columns", r->name);
    if (expr_vkind(r->type) == VK_NONE)
        return expr_fail_at(b->err, &e->at, "'%s' is a %s, which cannot be assigned", r->name,
                            lake_type_name(r->type));
    return 0;
}

int expr_bind_assignments(struct arena *a, const struct lake_table *t,
                          const struct expr_assignments *as, struct expr_update **out,
                          struct error *err)
{
    struct expr_update *u = arena_calloc(a, 1, sizeof *u);
    struct assignment *items = u ? arena_calloc(a, as->n, sizeof *items) : NULL;
    if (!items)
        return error_nomem(err);
    struct vbinder b = {a, t, &u->cols, err, NULL, D_EXACT, 0};
    for (size_t k = 0; k < as->n; k++) {
        const struct expr *target = as->items[k].target, *value = as->items[k].value;
        struct assignment *it = &items[k];
        if (bind_target(&b, target, &it->col) != 0)
            return -1;
        it->at = target->at;
        for (size_t j = 0; j < k; j++)
            if (items[j].col == it->col)
                return expr_fail_at(err, &target->at, "column '%s' is assigned twice",
                                    u->cols.refs[it->col].name);
        b.target = &u->cols.refs[it->col];
        b.dom = it->dom = dom_of(b.target->type);
        if (value->kind == EK_LITERAL && value->lit == LIT_NULL && b.target->required)
            return expr_fail_at(err, &value->at, "column '%s' is required: it cannot be NULL",
                                b.target->name);
        struct colref target_copy = *b.target; /* the set may move as it grows */
        b.target = &target_copy;
        if (!(it->value = bind_value(&b, value)))
            return -1;
        it->levels = vnode_levels(it->value);
    }
    if (expr_colset_finish(a, &u->cols, err) != 0)
        return -1;
    u->items = items;
    u->n = as->n;
    u->pred_levels = b.pred_levels;
    *out = u;
    return 0;
}

int expr_compile_assignments(struct arena *a, const struct lake_table *t, const char *text,
                             size_t len, struct expr_update **out, struct error *err)
{
    struct expr_assignments *as;
    if (expr_parse_assignments(a, text, len, &as, err) != 0)
        return -1;
    return expr_bind_assignments(a, t, as, out, err);
}

size_t expr_update_count(const struct expr_update *u)
{
    return u->n;
}

size_t expr_update_target(const struct expr_update *u, size_t i)
{
    return u->cols.refs[u->items[i].col].path[0];
}

const struct expr_columns *expr_update_columns(const struct expr_update *u)
{
    return &u->cols.used;
}

/* ---- evaluation ---- */

/* One level's buffers: a vector of values and the masks a CASE needs. */
struct level {
    uint8_t *valid;
    void *values; /* EXPR_CHUNK values of 16 bytes */
    uint8_t *sel, *branch, *taken;
};

struct vctx {
    const struct expr_update *u;
    const struct colview *views;
    struct level *levels;
    uint8_t *pred_scratch;
    enum dom dom;
    bool whole; /* an integer column: division truncates */
    int64_t r0;
    struct error *err;
};

static int fail_row(const struct vctx *c, const struct expr_span *at, int64_t i, const char *what)
{
    return expr_fail_at(c->err, at, "%s in row %lld", what, (long long)(c->r0 + i));
}

static bool is_active(const uint8_t *active, int64_t i)
{
    return !active || active[i];
}

static int eval_value(const struct vctx *c, const struct vnode *v, int64_t n, const uint8_t *active,
                      size_t level);

static void load_column(const struct vctx *c, const struct vnode *v, int64_t n, struct level *l)
{
    const struct colview *w = &c->views[v->col];
    const struct colref *r = &c->u->cols.refs[v->col];
    if (!expr_view_valid(w, c->r0, n, l->valid))
        memset(l->valid, 1, (size_t)n);
    int64_t r0 = c->r0;
    switch (c->dom) {
    case D_EXACT: {
        i128 *x = l->values;
        for (int64_t i = 0; i < n; i++)
            x[i] = expr_view_dec(w, r0 + i) * v->factor;
        return;
    }
    case D_FLOAT: {
        double *f = l->values;
        bool floating = w->st == ST_F32 || w->st == ST_F64;
        double unit = (double)expr_pow10(r->type == LT_DECIMAL ? r->scale : 0);
        for (int64_t i = 0; i < n; i++)
            f[i] = floating ? expr_view_double(w, r0 + i) : (double)expr_view_dec(w, r0 + i) / unit;
        return;
    }
    case D_BOOL: {
        uint8_t *b = l->values;
        for (int64_t i = 0; i < n; i++)
            b[i] = (uint8_t)expr_view_int(w, r0 + i);
        return;
    }
    case D_BYTES: {
        struct bref *s = l->values;
        for (int64_t i = 0; i < n; i++)
            s[i].p = expr_view_bytes(w, r0 + i, &s[i].len);
        return;
    }
    }
}

static void fill_literal(const struct vctx *c, const struct vnode *v, int64_t n, struct level *l)
{
    memset(l->valid, v->kind == VN_LIT, (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        switch (c->dom) {
        case D_EXACT: ((i128 *)l->values)[i] = v->x; break;
        case D_FLOAT: ((double *)l->values)[i] = v->f; break;
        case D_BOOL: ((uint8_t *)l->values)[i] = v->b; break;
        case D_BYTES: ((struct bref *)l->values)[i] = v->s; break;
        }
    }
}

static u128 magnitude(i128 v)
{
    return v < 0 ? (u128)0 - (u128)v : (u128)v;
}

/* x * 10^e / y rounded half away from zero (e >= 0, y != 0); false when
 * the quotient leaves i128. Long division when x * 10^e itself would. */
static bool divide_round(i128 x, int e, i128 y, i128 *out)
{
    const u128 max = ~(u128)0 >> 1;
    u128 n = magnitude(x), d = magnitude(y);
    i128 scaled;
    u128 q, r;
    if (expr_rescale(x, 0, e, &scaled)) {
        q = magnitude(scaled) / d;
        r = magnitude(scaled) % d;
    } else {
        q = n / d;
        r = n % d;
        for (int k = 0; k < e; k++) {
            /* The next digit, floor(10r / d), adding r ten times modulo d
             * (each sum stays below 2d, within u128). */
            u128 acc = 0;
            unsigned digit = 0;
            for (int t = 0; t < 10; t++) {
                acc += r;
                if (acc >= d) {
                    acc -= d;
                    digit++;
                }
            }
            if (q > (max - digit) / 10)
                return false;
            q = q * 10 + digit;
            r = acc;
        }
    }
    if (r >= d - r)
        q++;
    if (q > max)
        return false;
    *out = (x < 0) != (y < 0) ? -(i128)q : (i128)q;
    return true;
}

/* x op y at scales sx, sy into scale `to` (the step's), exactly; NULL, or
 * what went wrong. Integer division (every scale 0 in an integer column)
 * truncates toward zero. */
static const char *exact_step(enum expr_op op, i128 x, int sx, i128 y, int sy, int to, bool whole,
                              i128 *out)
{
    static const char *const overflow = "numeric overflow";
    switch (op) {
    case OP_ADD:
    case OP_SUB:
        if (!expr_rescale(x, sx, to, &x) || !expr_rescale(y, sy, to, &y))
            return overflow;
        if (op == OP_ADD ? __builtin_add_overflow(x, y, out) : __builtin_sub_overflow(x, y, out))
            return overflow;
        return NULL;
    case OP_MUL: return __builtin_mul_overflow(x, y, out) ? overflow : NULL;
    default: break;
    }
    if (y == 0)
        return "division by zero";
    if (whole) {
        if (y == -1 && x == -(i128)(~(u128)0 >> 1) - 1)
            return overflow;
        *out = x / y;
        return NULL;
    }
    return divide_round(x, to - sx + sy, y, out) ? NULL : overflow;
}

static const char *float_step(enum expr_op op, double x, double y, double *out)
{
    if (op == OP_DIV && y == 0)
        return "division by zero";
    double r = op == OP_ADD ? x + y : op == OP_SUB ? x - y : op == OP_MUL ? x * y : x / y;
    if (isinf(r) && isfinite(x) && isfinite(y))
        return "float overflow";
    *out = r;
    return NULL;
}

static int arith(const struct vctx *c, const struct vnode *v, int64_t n, const uint8_t *active,
                 size_t level)
{
    struct level *acc = &c->levels[level], *rhs = &c->levels[level + 1];
    if (eval_value(c, v->kids[0], n, active, level) != 0)
        return -1;
    for (size_t k = 1; k < v->nkids; k++) {
        if (eval_value(c, v->kids[k], n, active, level + 1) != 0)
            return -1;
        int sx = v->scales[k - 1], sy = v->kids[k]->scale, to = v->scales[k];
        for (int64_t i = 0; i < n; i++) {
            if (!(acc->valid[i] &= rhs->valid[i]))
                continue;
            const char *why;
            if (c->dom == D_EXACT)
                why = exact_step(v->ops[k], ((i128 *)acc->values)[i], sx, ((i128 *)rhs->values)[i],
                                 sy, to, c->whole, &((i128 *)acc->values)[i]);
            else
                why = float_step(v->ops[k], ((double *)acc->values)[i], ((double *)rhs->values)[i],
                                 &((double *)acc->values)[i]);
            if (why && is_active(active, i))
                return fail_row(c, &v->at, i, why);
            if (why)
                acc->valid[i] = 0;
        }
    }
    return 0;
}

static int negate(const struct vctx *c, const struct vnode *v, int64_t n, const uint8_t *active,
                  size_t level)
{
    struct level *l = &c->levels[level];
    if (eval_value(c, v->kids[0], n, active, level) != 0)
        return -1;
    for (int64_t i = 0; i < n; i++) {
        if (c->dom == D_FLOAT) {
            ((double *)l->values)[i] = -((double *)l->values)[i];
        } else {
            i128 *x = &((i128 *)l->values)[i];
            if (__builtin_sub_overflow((i128)0, *x, x) && l->valid[i] && is_active(active, i))
                return fail_row(c, &v->at, i, "numeric overflow");
        }
    }
    return 0;
}

/* Copies rows of `from` (at scale sfrom) where mask is set into `to` (at
 * scale sto). */
static int merge_rows(const struct vctx *c, const struct vnode *v, struct level *to, int sto,
                      const struct level *from, int sfrom, const uint8_t *mask, int64_t n)
{
    size_t width = c->dom == D_EXACT   ? sizeof(i128)
                   : c->dom == D_FLOAT ? sizeof(double)
                   : c->dom == D_BOOL  ? 1
                                       : sizeof(struct bref);
    for (int64_t i = 0; i < n; i++) {
        if (!mask[i])
            continue;
        to->valid[i] = from->valid[i];
        memcpy((uint8_t *)to->values + width * (size_t)i,
               (const uint8_t *)from->values + width * (size_t)i, width);
        i128 *x = &((i128 *)to->values)[i];
        if (c->dom == D_EXACT && from->valid[i] && !expr_rescale(*x, sfrom, sto, x))
            return fail_row(c, &v->at, i, "numeric overflow");
    }
    return 0;
}

static int case_of(const struct vctx *c, const struct vnode *v, int64_t n, const uint8_t *active,
                   size_t level)
{
    struct level *l = &c->levels[level], *kid = &c->levels[level + 1];
    memset(l->valid, 0, (size_t)n);
    memset(l->taken, 0, (size_t)n);
    for (size_t k = 0; k <= v->nwhen; k++) {
        if (k < v->nwhen)
            expr_pnode_eval(v->whens[k], c->u->cols.refs, c->views, c->r0, n, l->sel,
                            c->pred_scratch);
        else if (!v->kids[k])
            break; /* no ELSE: NULL */
        bool any = false;
        for (int64_t i = 0; i < n; i++) {
            bool take = is_active(active, i) && !l->taken[i] && (k == v->nwhen || l->sel[i]);
            l->branch[i] = take;
            l->taken[i] |= take;
            any |= take;
        }
        if (!any)
            continue;
        /* The branch's kids use levels above: l's masks stay intact. */
        if (eval_value(c, v->kids[k], n, l->branch, level + 1) != 0 ||
            merge_rows(c, v, l, v->scale, kid, v->kids[k]->scale, l->branch, n) != 0)
            return -1;
    }
    return 0;
}

static int eval_value(const struct vctx *c, const struct vnode *v, int64_t n, const uint8_t *active,
                      size_t level)
{
    struct level *l = &c->levels[level];
    switch (v->kind) {
    case VN_NULL:
    case VN_LIT: fill_literal(c, v, n, l); return 0;
    case VN_COL: load_column(c, v, n, l); return 0;
    case VN_ARITH: return arith(c, v, n, active, level);
    case VN_NEG: return negate(c, v, n, active, level);
    case VN_CASE: return case_of(c, v, n, active, level);
    }
    return 0;
}

/* ---- the output column ---- */

struct outcol {
    const struct colref *r;
    int64_t length, null_count;
    uint8_t *validity;
    uint8_t *values; /* fixed width, or int32 offsets */
    struct buf data; /* strings and binary */
    size_t width;    /* bytes per value; 0 for booleans and variable sizes */
    bool variable;   /* strings and binary: int32 offsets and data */
};

/* The output in the writer's format for the column (pq_arrow_format_for). */
static int out_open(struct outcol *o, const struct colref *r, int64_t length, struct error *err)
{
    memset(o, 0, sizeof *o);
    o->r = r;
    o->length = length;
    struct lake_column c = {.type = r->type, .precision = r->precision, .scale = r->scale};
    char format[32];
    enum store st;
    if (!expr_store_of(r, pq_arrow_format_for(&c, format, sizeof format), &st))
        return error_fail(err, ERR_INTERNAL, "column '%s' has no Arrow store", r->name);
    o->variable = st == ST_STR32;
    o->width = expr_store_width(st);
    size_t bits = (size_t)(length + 7) / 8 + 1;
    size_t bytes = st == ST_BOOL ? bits
                   : o->variable ? ((size_t)length + 1) * sizeof(int32_t)
                                 : (size_t)length * o->width + 1;
    o->validity = calloc(bits, 1);
    o->values = calloc(bytes, 1);
    if (!o->validity || !o->values || buf_reserve(&o->data, 1) != 0)
        return error_nomem(err);
    return 0;
}

static void out_free(struct outcol *o)
{
    free(o->validity);
    free(o->values);
    buf_free(&o->data);
}

/* A D_EXACT value as the column's integer, decimal or ticks. */
static const char *exact_fits(const struct colref *r, int scale, i128 x, i128 *out)
{
    i128 lo, hi;
    if (r->type == LT_DECIMAL) {
        i128 lim = expr_pow10(r->precision);
        if (!expr_rescale(x, scale, r->scale, &x) || x >= lim || x <= -lim)
            return "the value does not fit the column's precision";
    } else if (!expr_int_range(r->type, &lo, &hi)) {
        lo = r->type == LT_DATE ? INT32_MIN : r->type == LT_TIME ? 0 : INT64_MIN;
        hi = r->type == LT_DATE   ? INT32_MAX
             : r->type == LT_TIME ? INT64_C(86400000000) - 1
                                  : INT64_MAX;
        if (x < lo || x > hi)
            return "the value is outside the column type's range";
    } else if (x < lo || x > hi) {
        return "the value is outside the column type's range";
    }
    *out = x;
    return NULL;
}

/* Where a chunk's rows come from: the computed values for the rows
 * assigned (all when rows is NULL), the column's own for the others. */
struct chunk_values {
    const struct level *assigned, *kept;
    int assigned_scale, kept_scale;
    const uint8_t *rows;
};

/* Writes rows r0..r0+n in order (strings append). */
static int out_put(const struct vctx *c, struct outcol *o, const struct chunk_values *cv, int64_t n,
                   const struct expr_span *at)
{
    const struct colref *r = o->r;
    for (int64_t i = 0; i < n; i++) {
        int64_t row = c->r0 + i;
        bool assigned = is_active(cv->rows, i);
        const struct level *l = assigned ? cv->assigned : cv->kept;
        int scale = assigned ? cv->assigned_scale : cv->kept_scale;
        if (!l->valid[i]) {
            if (r->required)
                return fail_row(c, at, i, "NULL for a required column");
            o->null_count++;
        } else {
            arrow_set_bit(o->validity, row, true);
        }
        uint8_t *dst = o->values + o->width * (size_t)row;
        switch (c->dom) {
        case D_EXACT: {
            i128 x = 0;
            const char *why =
                l->valid[i] ? exact_fits(r, scale, ((const i128 *)l->values)[i], &x) : NULL;
            if (why)
                return fail_row(c, at, i, why);
            memcpy(dst, &x, o->width); /* little-endian: the low bytes */
            break;
        }
        case D_FLOAT: {
            double d = ((const double *)l->values)[i];
            if (r->type == LT_FLOAT) {
                float f = (float)d;
                if (l->valid[i] && isinf(f) && !isinf(d))
                    return fail_row(c, at, i, "float overflow");
                memcpy(dst, &f, 4);
            } else {
                memcpy(dst, &d, 8);
            }
            break;
        }
        case D_BOOL:
            arrow_set_bit(o->values, row, l->valid[i] && ((const uint8_t *)l->values)[i]);
            break;
        case D_BYTES: {
            const struct bref *s = &((const struct bref *)l->values)[i];
            size_t len = l->valid[i] ? s->len : 0;
            if (r->type == LT_UUID) {
                if (len)
                    memcpy(dst, s->p, 16);
                break;
            }
            if (len && buf_append(&o->data, s->p, len) != 0)
                return error_nomem(c->err);
            if (o->data.len > INT32_MAX)
                return error_fail(c->err, ERR_LIMIT, "column '%s': more than 2 GiB of values",
                                  r->name);
            int32_t end = (int32_t)o->data.len;
            memcpy(o->values + 4 * (size_t)(row + 1), &end, 4);
            break;
        }
        }
    }
    return 0;
}

/* Hands o's buffers to out. */
static int out_finish(struct outcol *o, struct ArrowArray *out, struct error *err)
{
    bool var = o->variable;
    if (arrow_array_init(out, var ? 3 : 2, 0) != 0)
        return error_nomem(err);
    out->length = o->length;
    out->null_count = o->null_count;
    arrow_array_own_buffer(out, 0, o->validity);
    arrow_array_own_buffer(out, 1, o->values);
    if (var)
        arrow_array_own_buffer(out, 2, buf_take(&o->data));
    o->validity = o->values = NULL;
    return 0;
}

int expr_update_eval(const struct expr_update *u, size_t i, const struct ArrowSchema *schema,
                     const struct ArrowArray *batch, const uint8_t *rows, struct ArrowArray *out,
                     struct error *err)
{
    memset(out, 0, sizeof *out);
    if (i >= u->n)
        return error_fail(err, ERR_INVALID, "assignment %zu of %zu", i, u->n);
    const struct assignment *as = &u->items[i];
    size_t nlevels = as->levels + 1; /* and one for the values kept */
    struct colview *views = calloc(u->cols.n, sizeof *views);
    struct level *levels = calloc(nlevels, sizeof *levels);
    uint8_t *block = malloc(nlevels * EXPR_CHUNK * (16 + 4));
    uint8_t *pred_scratch = malloc((u->pred_levels + 1) * EXPR_CHUNK);
    uint8_t *not_rows = malloc(EXPR_CHUNK);
    struct outcol o = {0};
    int rc = -1;
    if (!views || !levels || !block || !pred_scratch || !not_rows) {
        error_nomem(err);
        goto done;
    }
    for (size_t k = 0; k < nlevels; k++) {
        uint8_t *base = block + k * EXPR_CHUNK * 20;
        levels[k] = (struct level){base, base + 4 * EXPR_CHUNK, base + EXPR_CHUNK,
                                   base + 2 * EXPR_CHUNK, base + 3 * EXPR_CHUNK};
    }
    if (expr_views_open(&u->cols, schema, batch, views, err) != 0 ||
        out_open(&o, &u->cols.refs[as->col], batch->length, err) != 0)
        goto done;
    const struct colref *target = &u->cols.refs[as->col];
    struct vctx c = {u, views, levels, pred_scratch, as->dom, integer(target->type), 0, err};
    /* The rows not assigned keep their value: the target column read as a
     * value of its own type. */
    struct vnode keep = {.kind = VN_COL, .at = as->at, .factor = 1, .col = as->col};
    keep.scale = target->type == LT_DECIMAL ? target->scale : 0;
    for (int64_t r0 = 0; r0 < batch->length; r0 += EXPR_CHUNK) {
        int64_t n = batch->length - r0 < EXPR_CHUNK ? batch->length - r0 : EXPR_CHUNK;
        const uint8_t *active = rows ? rows + r0 : NULL;
        c.r0 = r0;
        if (eval_value(&c, as->value, n, active, 0) != 0)
            goto done;
        if (active) {
            for (int64_t k = 0; k < n; k++)
                not_rows[k] = !active[k];
            if (eval_value(&c, &keep, n, not_rows, 1) != 0)
                goto done;
        }
        struct chunk_values cv = {&levels[0], &levels[1], as->value->scale, keep.scale, active};
        if (out_put(&c, &o, &cv, n, &as->at) != 0)
            goto done;
    }
    rc = out_finish(&o, out, err);
done:
    out_free(&o);
    free(views);
    free(levels);
    free(block);
    free(pred_scratch);
    free(not_rows);
    return rc;
}
