/* Table creation from an Arrow schema: the fields become a ColumnDef array
 * (types by rows_arrow_column_type, the one Arrow-to-catalog mapping) and
 * the table is created as from JSON. */
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "rows/rows_schema.h"

/* What a refused field's message lists. */
#define SUPPORTED                                                                                  \
    "bool, int8-64, uint8-64, float, double, decimal128(p<=38), date32, time64[us], "              \
    "timestamp[s|ms|us|ns] (with a time zone: [us] only), utf8, large utf8, binary, large "        \
    "binary, fixed_size_binary(16) marked arrow.uuid, utf8 marked arrow.json, a struct marked "    \
    "arrow.parquet.variant, list, large list, struct and map"

void hl_table_create_options_init(struct hl_table_create_options *o)
{
    memset(o, 0, sizeof *o);
}

static hl_status refuse(struct hl_error *err, const struct buf *path, const char *why)
{
    return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument", "Arrow field '%s' %s",
                       path->data, why);
}

/* Appends ".<name>" (or "<name>" at the top) to path. 0 or -1. */
static int path_push(struct buf *path, const char *name)
{
    return (path->len > 0 ? buf_putc(path, '.') : 0) == 0 && buf_puts(path, name) == 0 ? 0 : -1;
}

/* Cuts path back to its first len bytes. */
static void path_pop(struct buf *path, size_t len)
{
    path->len = len;
    if (path->data)
        path->data[len] = '\0';
}

static hl_status column_def(const struct ArrowSchema *s, const char *name, bool nullable,
                            struct buf *path, int depth, json_t **out, struct hl_error *err);

/* Sets def's children to those of s: each child named by `names` when
 * given (a list's element, a map's key and value), else by its own name. */
static hl_status children_defs(json_t *def, const struct ArrowSchema *s, const char *const *names,
                               struct buf *path, int depth, struct hl_error *err)
{
    json_t *children = json_array();
    if (!children || json_object_set_new(def, "children", children) != 0)
        return client_nomem(err);
    size_t mark = path->len;
    for (int64_t i = 0; i < s->n_children; i++) {
        const struct ArrowSchema *c = s->children ? s->children[i] : NULL;
        const char *child_name = !c ? NULL : names ? names[i] : c->name;
        if (!child_name || !*child_name)
            return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                               "Arrow field %lld of %s%s%s is missing or has no name", (long long)i,
                               path->len ? "'" : "the schema", path->len ? path->data : "",
                               path->len ? "'" : "");
        /* Iceberg map keys are required; Arrow's are never null. */
        bool nullable =
            names && strcmp(child_name, "key") == 0 ? false : (c->flags & ARROW_FLAG_NULLABLE) != 0;
        json_t *child = NULL;
        hl_status st = column_def(c, child_name, nullable, path, depth + 1, &child, err);
        path_pop(path, mark);
        if (st != HL_OK)
            return st;
        if (json_array_append_new(children, child) != 0)
            return client_nomem(err);
    }
    return HL_OK;
}

/* Field s's ColumnDef into *out (a new reference). */
static hl_status column_def(const struct ArrowSchema *s, const char *name, bool nullable,
                            struct buf *path, int depth, json_t **out, struct hl_error *err)
{
    *out = NULL;
    if (path_push(path, name) != 0)
        return client_nomem(err);
    /* The catalog refuses deeper nesting; refusing here bounds the
     * recursion over a schema the caller built. */
    if (depth > LAKE_MAX_DEPTH)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "Arrow field '%s' is nested deeper than the catalog's %d levels",
                           path->data, LAKE_MAX_DEPTH);
    enum lake_type type;
    int precision, scale;
    if (rows_arrow_column_type(s, &type, &precision, &scale) != 0)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "Arrow field '%s' has format '%s'%s, which maps to no catalog type; "
                           "supported: " SUPPORTED,
                           path->data, s->format ? s->format : "(none)",
                           s->dictionary ? " (dictionary-encoded)" : "");
    json_t *def = json_pack("{s:s, s:s, s:b}", "name", name, "type", lake_type_name(type),
                            "nullable", nullable);
    if (!def)
        return client_nomem(err);
    hl_status st = HL_OK;
    static const char *const element[] = {"element"};
    static const char *const key_value[] = {"key", "value"};
    if (type == LT_DECIMAL) {
        json_t *params = json_pack("{s:i, s:i}", "precision", precision, "scale", scale);
        if (!params || json_object_set_new(def, "type_params", params) != 0)
            st = client_nomem(err);
    } else if (type == LT_LIST) {
        st = s->n_children == 1 ? children_defs(def, s, element, path, depth, err)
                                : refuse(err, path, "is a list without one child");
    } else if (type == LT_MAP) {
        const struct ArrowSchema *entries = s->n_children == 1 ? s->children[0] : NULL;
        st = entries && entries->n_children == 2
                 ? children_defs(def, entries, key_value, path, depth, err)
                 : refuse(err, path, "is a map without a key and value entries struct");
    } else if (type == LT_STRUCT) {
        st = children_defs(def, s, NULL, path, depth, err);
    }
    if (st != HL_OK) {
        json_decref(def);
        return st;
    }
    *out = def;
    return HL_OK;
}

hl_status hl_namespace_create_table_arrow(hl_namespace *ns, const char *name,
                                          const struct ArrowSchema *schema,
                                          const struct hl_table_create_options *options,
                                          hl_table **out, struct hl_error *err)
{
    *out = NULL;
    if (!ns || !name || !schema || !schema->release)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a namespace, a name and a live Arrow schema are required");
    if (!schema->format || strcmp(schema->format, "+s") != 0 || schema->n_children < 1)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the Arrow schema must be a struct of at least one field (format "
                           "'+s'), not '%s'",
                           schema->format ? schema->format : "(none)");
    json_t *holder = json_object();
    struct buf path = BUF_INIT;
    /* The top-level fields, as the children of a holder object. */
    hl_status st = holder ? children_defs(holder, schema, NULL, &path, 0, err) : client_nomem(err);
    buf_free(&path);
    char *columns = NULL;
    if (st == HL_OK && !(columns = json_dumps(json_object_get(holder, "children"), JSON_COMPACT)))
        st = client_nomem(err);
    json_decref(holder);
    if (st == HL_OK)
        st =
            hl_table_create(ns, name, columns, options ? options->properties_json : NULL, out, err);
    free(columns);
    return st;
}

hl_status hl_arrow_column_def(const struct ArrowSchema *field, const char *name, int nullable,
                              char **json, struct hl_error *err)
{
    *json = NULL;
    if (!field || !field->release || nullable < -1 || nullable > 1)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "a live Arrow field and nullable 0, 1 or -1 are required");
    const char *column = name ? name : field->name;
    if (!column || !*column)
        return client_fail(err, HL_ERR_INVALID_ARGUMENT, "invalid_argument",
                           "the column needs a name: the Arrow field has none");
    bool is_nullable = nullable < 0 ? (field->flags & ARROW_FLAG_NULLABLE) != 0 : nullable == 1;
    struct buf path = BUF_INIT;
    json_t *def = NULL;
    hl_status st = column_def(field, column, is_nullable, &path, 1, &def, err);
    buf_free(&path);
    if (st == HL_OK && !(*json = json_dumps(def, JSON_COMPACT)))
        st = client_nomem(err);
    json_decref(def);
    return st;
}
