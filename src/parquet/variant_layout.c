#include "parquet/variant_layout.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "lake/shredding.h"

static struct lake_column *storage_field(struct arena *a, struct lake_column *parent,
                                         const char *name, enum lake_type type, bool nullable)
{
    struct lake_column *k = arena_calloc(a, 1, sizeof *k);
    if (!k)
        return NULL;
    k->name = name;
    k->type = type;
    k->nullable = nullable;
    k->parent = parent;
    k->ordinal = (int)parent->nchildren;
    parent->children[parent->nchildren++] = k;
    return k;
}

static bool make_room(struct arena *a, struct lake_column *c, size_t n)
{
    c->children = arena_calloc(a, n ? n : 1, sizeof *c->children);
    c->children_cap = n;
    return c->children != NULL;
}

/* The Variant primitives and the storage column each is written as. */
static const struct {
    const char *name;
    enum lake_type type;
    bool instant;
} primitives[] = {
    {"boolean", LT_BOOLEAN, false},
    {"int8", LT_INT8, false},
    {"int16", LT_INT16, false},
    {"int32", LT_INT, false},
    {"int64", LT_LONG, false},
    {"float", LT_FLOAT, false},
    {"double", LT_DOUBLE, false},
    {"date", LT_DATE, false},
    {"time", LT_TIME, false},
    {"timestamp", LT_TIMESTAMP, false},
    {"timestamp_ns", LT_TIMESTAMP_NS, false},
    {"timestamptz", LT_TIMESTAMPTZ, false},
    {"timestamptz_ns", LT_TIMESTAMP_NS, true},
    {"binary", LT_BINARY, false},
    {"string", LT_STRING, false},
    {"uuid", LT_UUID, false},
    {"decimal4", LT_INT, false},
    {"decimal8", LT_LONG, false},
    {"decimal16", LT_DECIMAL, false},
};

static int unsupported(struct error *err, const struct lake_column *v, const char *what)
{
    return error_fail_reason(err, ERR_UNSUPPORTED, "unsupported_shredding",
                             "variant column '%s' declares %s, which this writer cannot write",
                             v->name, what);
}

static int add_group(struct arena *a, const struct lake_column *v, struct lake_column *g,
                     const json_t *node, int depth, struct error *err);

/* typed_value of node under group g. */
static int add_typed(struct arena *a, const struct lake_column *v, struct lake_column *g,
                     const json_t *node, int depth, struct error *err)
{
    const char *type = json_string_value(json_object_get(node, "type"));
    if (!type)
        return unsupported(err, v, "a node without a type");
    if (strcmp(type, "object") == 0) {
        const json_t *fields = json_object_get(node, "fields");
        struct lake_column *t = storage_field(a, g, "typed_value", LT_STRUCT, true);
        if (!t || !make_room(a, t, json_array_size(fields)))
            return error_nomem(err);
        size_t i;
        const json_t *f;
        json_array_foreach (fields, i, f) {
            const char *name = json_string_value(json_object_get(f, "name"));
            char *copy = name ? arena_strdup(a, name) : NULL;
            struct lake_column *fg = copy ? storage_field(a, t, copy, LT_STRUCT, false) : NULL;
            if (!fg)
                return error_nomem(err);
            if (add_group(a, v, fg, f, depth + 1, err) != 0)
                return -1;
        }
        return 0;
    }
    if (strcmp(type, "array") == 0) {
        struct lake_column *t = storage_field(a, g, "typed_value", LT_LIST, true);
        if (!t || !make_room(a, t, 1))
            return error_nomem(err);
        struct lake_column *eg = storage_field(a, t, "element", LT_STRUCT, false);
        if (!eg)
            return error_nomem(err);
        return add_group(a, v, eg, json_object_get(node, "element"), depth + 1, err);
    }
    for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++) {
        if (strcmp(type, primitives[i].name) != 0)
            continue;
        struct lake_column *t = storage_field(a, g, "typed_value", primitives[i].type, true);
        if (!t)
            return error_nomem(err);
        t->instant = primitives[i].instant;
        if (strncmp(type, "decimal", 7) == 0) {
            t->precision = (int)json_integer_value(json_object_get(node, "precision"));
            t->scale = (int)json_integer_value(json_object_get(node, "scale"));
        }
        return 0;
    }
    /* A name this version does not know. */
    char what[96];
    snprintf(what, sizeof what, "a %.40s leaf", type);
    return unsupported(err, v, what);
}

/* The fields of a group: value, and typed_value unless the node is
 * "variant" (then value alone). */
static int add_group(struct arena *a, const struct lake_column *v, struct lake_column *g,
                     const json_t *node, int depth, struct error *err)
{
    if (depth > LAKE_SHRED_MAX_DEPTH * 2 + 1)
        return unsupported(err, v, "a layout nested too deep");
    const char *type = json_string_value(json_object_get(node, "type"));
    bool plain = type && strcmp(type, "variant") == 0;
    if (!make_room(a, g, plain ? 1 : 2) || !storage_field(a, g, "value", LT_BINARY, true))
        return error_nomem(err);
    return plain ? 0 : add_typed(a, v, g, node, depth, err);
}

int pq_variant_layout(struct arena *a, struct lake_column *v, struct error *err)
{
    if (v->type != LT_VARIANT || v->nchildren)
        return error_fail(err, ERR_INVALID, "column '%s' is not a bare variant column", v->name);
    json_t *decl = NULL;
    if (v->shredding) {
        json_error_t je;
        decl = json_loads(v->shredding, 0, &je);
        struct error check;
        if (!decl || lake_shredding_check(decl, &check) != 0) {
            json_decref(decl);
            return unsupported(err, v, "a shredding it cannot read");
        }
    }
    const char *type = decl ? json_string_value(json_object_get(decl, "type")) : NULL;
    int rc;
    if (!decl || (type && strcmp(type, "variant") == 0)) {
        /* Unshredded: a required value, the only such shape Trino reads. */
        rc = make_room(a, v, 2) && storage_field(a, v, "metadata", LT_BINARY, false) &&
                     storage_field(a, v, "value", LT_BINARY, false)
                 ? 0
                 : error_nomem(err);
    } else {
        if (!make_room(a, v, 3) || !storage_field(a, v, "metadata", LT_BINARY, false) ||
            !storage_field(a, v, "value", LT_BINARY, true))
            rc = error_nomem(err);
        else
            rc = add_typed(a, v, v, decl, 0, err);
    }
    json_decref(decl);
    return rc;
}

bool pq_variant_is_shredded(const struct lake_column *v)
{
    return v->type == LT_VARIANT && v->nchildren == 3;
}
