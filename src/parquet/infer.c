#include "parquet/infer.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

struct inferrer {
    int32_t *ids; /* depth-first, one per column; 0 = the element has none */
    size_t n, cap;
    struct error *err;
    const struct pq_infer_options *opts;
    /* GEOMETRY and GEOGRAPHY leaves, for the annotations handed back */
    struct geo_leaf {
        size_t column; /* depth-first, as ids are numbered */
        const struct pq_schema_element *el;
    } * geo;
    size_t ngeo, geocap;
};

static int push_geo(struct inferrer *in, const struct pq_schema_element *e)
{
    if (ARRAY_RESERVE(in->geo, in->geocap, in->ngeo + 1, 8) != 0)
        return error_fail(in->err, ERR_NOMEM, "out of memory");
    in->geo[in->ngeo++] = (struct geo_leaf){in->n - 1, e}; /* the column just numbered */
    return 0;
}

/* The VARIANT layout's frame (Parquet's VariantEncoding): a required
 * binary metadata, and a binary value or a typed_value (shredded). */
static bool variant_shaped(const struct pq_node *x)
{
    bool metadata = false, value = false;
    for (int i = 0; i < x->nchildren; i++) {
        const struct pq_schema_element *c = x->children[i]->el;
        bool binary = c->has_type && c->type == PQ_BYTE_ARRAY;
        if (strcmp(c->name, "metadata") == 0)
            metadata = binary && c->repetition == PQ_REQUIRED;
        else if (strcmp(c->name, "value") == 0 || strcmp(c->name, "typed_value") == 0)
            value = value || binary || strcmp(c->name, "typed_value") == 0;
    }
    return metadata && value;
}

static int unsupported(struct inferrer *in, const struct pq_node *x, const char *what)
{
    return error_fail(in->err, ERR_UNSUPPORTED, "column '%.200s': %s has no catalog type", x->path,
                      what);
}

static int push_id(struct inferrer *in, int32_t id)
{
    if (ARRAY_RESERVE(in->ids, in->cap, in->n + 1, 32) != 0)
        return error_fail(in->err, ERR_NOMEM, "out of memory");
    in->ids[in->n++] = id;
    return 0;
}

static bool has_ct(const struct pq_schema_element *e, enum pq_converted ct)
{
    return e->has_converted && e->converted == ct;
}

/* The lake type of a leaf; decimals fill precision and scale. */
static const char *leaf_type(struct inferrer *in, const struct pq_node *x, int *precision,
                             int *scale)
{
    const struct pq_schema_element *e = x->el;
    const struct pq_logical *l = &e->logical;
    if (l->kind == PQ_LT_DECIMAL || has_ct(e, PQ_CT_DECIMAL)) {
        *precision = l->kind == PQ_LT_DECIMAL ? l->precision : e->precision;
        *scale = l->kind == PQ_LT_DECIMAL ? l->scale : e->scale;
        if (*precision < 1 || *precision > 38 || *scale < 0 || *scale > *precision ||
            (e->type == PQ_FIXED_LEN_BYTE_ARRAY && e->type_length > 16) || e->type == PQ_BOOLEAN ||
            e->type == PQ_INT96 || e->type == PQ_FLOAT || e->type == PQ_DOUBLE) {
            unsupported(in, x, "a decimal past precision 38 (or on an odd physical type)");
            return NULL;
        }
        return "decimal";
    }
    if (l->kind == PQ_LT_UNKNOWN && in->opts->unknown_as)
        return in->opts->unknown_as;
    const char *bad =
        l->kind == PQ_LT_UNKNOWN
            ? "the null (UNKNOWN) type (it holds only nulls: 'hoglake parquet convert "
              "--unknown-as TYPE' gives it a type)"
        : l->kind == PQ_LT_OTHER ? "a logical type this reader does not know"
        : pq_logical_is_geo(l) && e->type != PQ_BYTE_ARRAY
            ? "GEOMETRY or GEOGRAPHY on a type other than BYTE_ARRAY"
        : has_ct(e, PQ_CT_INTERVAL) ? "INTERVAL"
                                    : NULL;
    if (bad) {
        unsupported(in, x, bad);
        return NULL;
    }
    bool integer = l->kind == PQ_LT_INTEGER;
    switch (e->type) {
    case PQ_BOOLEAN: return "boolean";
    case PQ_INT32: {
        int bits = integer                                               ? l->bit_width
                   : has_ct(e, PQ_CT_INT_8) || has_ct(e, PQ_CT_UINT_8)   ? 8
                   : has_ct(e, PQ_CT_INT_16) || has_ct(e, PQ_CT_UINT_16) ? 16
                   : has_ct(e, PQ_CT_INT_32) || has_ct(e, PQ_CT_UINT_32) ? 32
                                                                         : 0;
        bool is_signed = integer ? l->is_signed
                                 : !(has_ct(e, PQ_CT_UINT_8) || has_ct(e, PQ_CT_UINT_16) ||
                                     has_ct(e, PQ_CT_UINT_32));
        if (bits == 8)
            return is_signed ? "int8" : "uint8";
        if (bits == 16)
            return is_signed ? "int16" : "uint16";
        if (bits != 0)
            return is_signed ? "int" : "uint32";
        if (l->kind == PQ_LT_DATE || has_ct(e, PQ_CT_DATE))
            return "date";
        if ((l->kind == PQ_LT_TIME && l->unit == PQ_MILLIS) || has_ct(e, PQ_CT_TIME_MILLIS))
            return "time";
        return "int";
    }
    case PQ_INT64:
        if ((integer && !l->is_signed) || has_ct(e, PQ_CT_UINT_64))
            return "uint64";
        if (l->kind == PQ_LT_TIMESTAMP) {
            if (!l->utc)
                return l->unit == PQ_MILLIS  ? "timestamp_ms"
                       : l->unit == PQ_NANOS ? "timestamp_ns"
                                             : "timestamp";
            if (l->unit == PQ_NANOS) {
                unsupported(in, x, "TIMESTAMP(isAdjustedToUTC=true, NANOS)");
                return NULL;
            }
            return "timestamptz";
        }
        if (has_ct(e, PQ_CT_TIMESTAMP_MILLIS) || has_ct(e, PQ_CT_TIMESTAMP_MICROS))
            return "timestamptz";
        if (l->kind == PQ_LT_TIME && l->unit == PQ_NANOS) {
            unsupported(in, x, "TIME(NANOS)");
            return NULL;
        }
        if (l->kind == PQ_LT_TIME || has_ct(e, PQ_CT_TIME_MICROS))
            return "time";
        return "long";
    case PQ_INT96: return "timestamp_ns";
    case PQ_FLOAT: return "float";
    case PQ_DOUBLE: return "double";
    case PQ_BYTE_ARRAY:
        if (l->kind == PQ_LT_JSON || has_ct(e, PQ_CT_JSON))
            return "json";
        if (l->kind == PQ_LT_STRING || l->kind == PQ_LT_ENUM || has_ct(e, PQ_CT_UTF8) ||
            has_ct(e, PQ_CT_ENUM))
            return "string";
        return "binary";
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (l->kind == PQ_LT_UUID && e->type_length == 16)
            return "uuid";
        if (l->kind == PQ_LT_FLOAT16 && e->type_length == 2)
            return "float";
        return "binary";
    }
    unsupported(in, x, "an unknown physical type");
    return NULL;
}

static json_t *column_def(struct inferrer *in, const struct pq_node *x, const char *name,
                          bool nullable, const struct pq_node *list);

/* Appends the defs of a node's fields (its children) to kids. */
static int add_child(struct inferrer *in, json_t *kids, const struct pq_node *x, const char *name,
                     bool nullable, const struct pq_node *list)
{
    json_t *d = column_def(in, x, name, nullable, list);
    if (!d || json_array_append_new(kids, d) != 0)
        return d ? error_fail(in->err, ERR_NOMEM, "out of memory") : -1;
    return 0;
}

/* list: the LIST node whose element x is (NULL otherwise): a bare
 * repeated field is its own element, and its id belongs to the list. */
static json_t *column_def(struct inferrer *in, const struct pq_node *x, const char *name,
                          bool nullable, const struct pq_node *list)
{
    const struct pq_schema_element *e = x->el;
    bool own_id = e->has_field_id && !(list && list->el == e);
    if (push_id(in, own_id ? e->field_id : 0) != 0)
        return NULL;
    /* A null-only column takes values of its new type only as nulls. */
    if (x->kind == PQN_LEAF && e->logical.kind == PQ_LT_UNKNOWN)
        nullable = true;
    json_t *d = json_pack("{s:s,s:b}", "name", name, "nullable", nullable);
    json_t *kids = NULL;
    if (!d) {
        error_fail(in->err, ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (x->kind == PQN_LEAF) {
        int precision = 0, scale = 0;
        const char *type = leaf_type(in, x, &precision, &scale);
        if (!type || (pq_logical_is_geo(&e->logical) && push_geo(in, e) != 0))
            goto bad;
        json_object_set_new(d, "type", json_string(type));
        if (strcmp(type, "decimal") == 0)
            json_object_set_new(d, "type_params",
                                json_pack("{s:i,s:i}", "precision", precision, "scale", scale));
        return d;
    }
    if (e->logical.kind == PQ_LT_VARIANT) {
        if (!in->opts->variants) {
            unsupported(in, x, "VARIANT (written by its producers, not converted)");
            goto bad;
        }
        if (!variant_shaped(x)) {
            unsupported(in, x,
                        "a VARIANT group without a required binary 'metadata' and a "
                        "binary 'value' or 'typed_value'");
            goto bad;
        }
        /* Its storage (metadata, value, typed_value) is not columns of its own. */
        json_object_set_new(d, "type", json_string("variant"));
        return d;
    }
    kids = json_array();
    if (!kids) {
        error_fail(in->err, ERR_NOMEM, "out of memory");
        goto bad;
    }
    const struct pq_node *el = x->element;
    switch (x->kind) {
    case PQN_STRUCT:
        json_object_set_new(d, "type", json_string("struct"));
        for (int i = 0; i < x->nchildren; i++) {
            const struct pq_node *k = x->children[i];
            if (add_child(in, kids, k, k->el->name, k->arrow_nullable, NULL) != 0)
                goto bad;
        }
        break;
    case PQN_LIST:
        json_object_set_new(d, "type", json_string("list"));
        if (add_child(in, kids, el, "element", el->arrow_nullable, x) != 0)
            goto bad;
        break;
    case PQN_MAP:
        json_object_set_new(d, "type", json_string("map"));
        if (el->nchildren != 2) {
            unsupported(in, x, "a map without values");
            goto bad;
        }
        /* The key_value group carries no column of its own. */
        if (add_child(in, kids, el->children[0], "key", false, NULL) != 0 ||
            add_child(in, kids, el->children[1], "value", el->children[1]->arrow_nullable, NULL) !=
                0)
            goto bad;
        break;
    case PQN_LEAF: break;
    }
    json_object_set_new(d, "children", kids);
    return d;
bad:
    json_decref(kids);
    json_decref(d);
    return NULL;
}

struct assign {
    const int32_t *ids;
    size_t next;
};

static void assign_id(struct lake_column *c, void *ctx)
{
    struct assign *a = ctx;
    c->field_id = a->ids[a->next++];
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Whether the recorded ids are all present, positive and distinct. */
static bool ids_usable(const struct inferrer *in)
{
    if (in->n == 0)
        return false;
    int32_t *sorted = malloc(in->n * sizeof *sorted);
    if (!sorted)
        return false;
    memcpy(sorted, in->ids, in->n * sizeof *sorted);
    qsort(sorted, in->n, sizeof *sorted, cmp_i32);
    bool ok = sorted[0] > 0;
    for (size_t i = 1; ok && i < in->n; i++)
        ok = sorted[i] != sorted[i - 1];
    free(sorted);
    return ok;
}

struct geo_numbering {
    const struct inferrer *in;
    struct pq_column_logical *out;
    size_t column, next;
};

static void number_geo(struct lake_column *c, void *ctx)
{
    struct geo_numbering *g = ctx;
    if (g->next < g->in->ngeo && g->in->geo[g->next].column == g->column) {
        g->out[g->next].field_id = c->field_id;
        g->out[g->next].logical = g->in->geo[g->next].el->logical;
        g->next++;
    }
    g->column++;
}

/* The GEOMETRY/GEOGRAPHY annotations of t's binary columns, from t's arena. */
static int geo_annotations(const struct inferrer *in, struct lake_table *t,
                           struct pq_infer_result *res)
{
    if (!res || in->ngeo == 0)
        return 0;
    res->logicals = arena_calloc(t->arena, in->ngeo, sizeof *res->logicals);
    if (!res->logicals)
        return error_fail(in->err, ERR_NOMEM, "out of memory");
    struct geo_numbering g = {in, res->logicals, 0, 0};
    lake_table_walk(t, number_geo, &g);
    res->nlogicals = g.next;
    return 0;
}

int pq_infer_table_with(const struct pq_schema *s, struct lake_table *t,
                        const struct pq_infer_options *opts, struct pq_infer_result *res,
                        struct error *err)
{
    static const struct pq_infer_options none = {0};
    struct inferrer in = {.err = err, .opts = opts ? opts : &none};
    if (res)
        memset(res, 0, sizeof *res);
    json_t *defs = json_array();
    int rc = -1;
    if (!defs) {
        error_fail(err, ERR_NOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < s->root->nchildren; i++) {
        const struct pq_node *x = s->root->children[i];
        if (add_child(&in, defs, x, x->el->name, x->arrow_nullable, NULL) != 0)
            goto out;
    }
    struct error lerr = {0};
    if (lake_table_add_columns(t, defs, &lerr) != 0) {
        error_fail(err, ERR_UNSUPPORTED, "the file's schema is not a catalog table: %s", lerr.msg);
        goto out;
    }
    if (ids_usable(&in)) {
        struct assign a = {in.ids, 0};
        lake_table_walk(t, assign_id, &a);
        int32_t max = 0;
        for (size_t i = 0; i < in.n; i++)
            if (in.ids[i] > max)
                max = in.ids[i];
        t->next_field_id = (int64_t)max + 1;
    }
    rc = geo_annotations(&in, t, res);
out:
    json_decref(defs);
    free(in.ids);
    free(in.geo);
    return rc;
}
