/* Iceberg schema, partition spec and sort order objects from a hoglake table
 * definition (see schema_map.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "iceberg/schema_map.h"

enum {
    ICE_MAX_FIELD_ID = 2147483447, /* ids above are reserved for metadata columns */
    ICE_FIRST_PARTITION_FIELD_ID = 1000,
};

static json_t *nomem(struct error *err)
{
    error_fail(err, ERR_NOMEM, "out of memory");
    return NULL;
}

/* Adds v under key, taking the reference; false (v released) on failure. */
static bool put(json_t *obj, const char *key, json_t *v)
{
    return v && json_object_set_new(obj, key, v) == 0;
}

int ice_type_string(const struct lake_column *c, int format_version, char *out, size_t out_size,
                    struct error *err)
{
    char path[512];
    const char *s = NULL;
    switch (c->type) {
    case LT_BOOLEAN: s = "boolean"; break;
    case LT_INT8:
    case LT_INT16:
    case LT_INT:
    case LT_UINT8:
    case LT_UINT16: s = "int"; break;
    case LT_LONG:
    case LT_UINT32: s = "long"; break;
    case LT_UINT64: s = "decimal(20, 0)"; break;
    case LT_FLOAT: s = "float"; break;
    case LT_DOUBLE: s = "double"; break;
    case LT_DATE: s = "date"; break;
    case LT_TIME: s = "time"; break;
    case LT_TIMESTAMP_S:
    case LT_TIMESTAMP_MS:
    case LT_TIMESTAMP: s = "timestamp"; break;
    case LT_TIMESTAMPTZ: s = "timestamptz"; break;
    case LT_STRING:
    case LT_JSON: s = "string"; break;
    case LT_UUID: s = "uuid"; break;
    case LT_BINARY: s = "binary"; break;
    case LT_TIMESTAMP_NS:
    case LT_VARIANT:
        if (format_version >= 3) {
            s = c->type == LT_VARIANT ? "variant" : "timestamp_ns";
            break;
        }
        lake_column_path(c, path, sizeof path);
        return error_fail(err, ERR_UNSUPPORTED,
                          "column '%s' is %s, which Iceberg format version %d cannot hold; "
                          "export with format version 3",
                          path, lake_type_name(c->type), format_version);
    case LT_DECIMAL:
        if (c->precision < 1 || c->precision > LAKE_DECIMAL_MAX_PRECISION || c->scale < 0 ||
            c->scale > c->precision) {
            lake_column_path(c, path, sizeof path);
            return error_fail(err, ERR_INVALID, "column '%s' has decimal(%d, %d)", path,
                              c->precision, c->scale);
        }
        snprintf(out, out_size, "decimal(%d, %d)", c->precision, c->scale);
        return 0;
    case LT_LIST:
    case LT_STRUCT:
    case LT_MAP:
    case LT__COUNT: break;
    }
    if (!s) {
        lake_column_path(c, path, sizeof path);
        return error_fail(err, ERR_INVALID, "column '%s' (%s) has no primitive type", path,
                          lake_type_name(c->type));
    }
    snprintf(out, out_size, "%s", s);
    return 0;
}

struct schema_ctx {
    int format_version;
    int64_t max_id;
    struct error *err;
};

static json_t *type_json(const struct lake_column *c, struct schema_ctx *x);

static bool check_id(const struct lake_column *c, struct schema_ctx *x)
{
    if (c->field_id >= 1 && c->field_id <= ICE_MAX_FIELD_ID) {
        if (c->field_id > x->max_id)
            x->max_id = c->field_id;
        return true;
    }
    char path[512];
    lake_column_path(c, path, sizeof path);
    error_fail(x->err, ERR_INVALID, "column '%s' has field id %lld, outside [1, %d]", path,
               (long long)c->field_id, ICE_MAX_FIELD_ID);
    return false;
}

/* A struct's "fields" array from a column's children. */
static json_t *fields_json(const struct lake_column *parent, struct schema_ctx *x)
{
    json_t *arr = json_array();
    if (!arr)
        return nomem(x->err);
    for (size_t i = 0; i < parent->nchildren; i++) {
        const struct lake_column *c = parent->children[i];
        if (!check_id(c, x))
            goto fail;
        json_t *type = type_json(c, x);
        if (!type)
            goto fail;
        json_t *f = json_pack("{s:I,s:s,s:b,s:o}", "id", (json_int_t)c->field_id, "name", c->name,
                              "required", !c->nullable, "type", type);
        if (!f || json_array_append_new(arr, f) != 0 ||
            (c->comment && !put(f, "doc", json_string(c->comment)))) {
            nomem(x->err);
            goto fail;
        }
    }
    return arr;
fail:
    json_decref(arr);
    return NULL;
}

/* The "type" value of a column: a string for primitives, an object for
 * containers. */
static json_t *type_json(const struct lake_column *c, struct schema_ctx *x)
{
    if (!lake_type_is_container(c->type)) {
        char s[48];
        if (ice_type_string(c, x->format_version, s, sizeof s, x->err) != 0)
            return NULL;
        json_t *v = json_string(s);
        return v ? v : nomem(x->err);
    }
    size_t want = c->type == LT_LIST ? 1 : c->type == LT_MAP ? 2 : 0;
    if ((want && c->nchildren != want) || c->nchildren == 0) {
        char path[512];
        lake_column_path(c, path, sizeof path);
        error_fail(x->err, ERR_INVALID, "%s column '%s' has %zu children", lake_type_name(c->type),
                   path, c->nchildren);
        return NULL;
    }
    json_t *o;
    if (c->type == LT_STRUCT) {
        json_t *fields = fields_json(c, x);
        if (!fields)
            return NULL;
        o = json_pack("{s:s,s:o}", "type", "struct", "fields", fields);
    } else if (c->type == LT_LIST) {
        const struct lake_column *e = c->children[0];
        json_t *et = check_id(e, x) ? type_json(e, x) : NULL;
        if (!et)
            return NULL;
        o = json_pack("{s:s,s:I,s:b,s:o}", "type", "list", "element-id", (json_int_t)e->field_id,
                      "element-required", !e->nullable, "element", et);
    } else {
        const struct lake_column *k = c->children[0], *v = c->children[1];
        json_t *kt = check_id(k, x) ? type_json(k, x) : NULL;
        if (!kt)
            return NULL;
        json_t *vt = check_id(v, x) ? type_json(v, x) : NULL;
        if (!vt) {
            json_decref(kt);
            return NULL;
        }
        o = json_pack("{s:s,s:I,s:o,s:I,s:b,s:o}", "type", "map", "key-id", (json_int_t)k->field_id,
                      "key", kt, "value-id", (json_int_t)v->field_id, "value-required",
                      !v->nullable, "value", vt);
    }
    return o ? o : nomem(x->err);
}

json_t *ice_schema_json(const struct lake_table *t, int format_version, int64_t schema_id,
                        int64_t *max_field_id, struct error *err)
{
    if (format_version != 2 && format_version != 3) {
        error_fail(err, ERR_INVALID, "format version %d (2 or 3)", format_version);
        return NULL;
    }
    if (t->root.nchildren == 0) {
        error_fail(err, ERR_INVALID, "the table has no columns");
        return NULL;
    }
    struct schema_ctx x = {format_version, 0, err};
    json_t *fields = fields_json(&t->root, &x);
    if (!fields)
        return NULL;
    json_t *s = json_pack("{s:s,s:I,s:o}", "type", "struct", "schema-id", (json_int_t)schema_id,
                          "fields", fields);
    if (!s)
        return nomem(err);
    if (max_field_id)
        *max_field_id = x.max_id;
    return s;
}

/* The column with that id when it is outside any list or map; NULL (and err
 * filled, naming `what`) otherwise. */
static const struct lake_column *addressable(const struct lake_table *t, int64_t id,
                                             const char *what, struct error *err)
{
    const struct lake_column *c = lake_table_find_field(t, id);
    if (!c) {
        error_fail(err, ERR_INVALID, "%s: the table has no field %lld", what, (long long)id);
        return NULL;
    }
    for (const struct lake_column *p = c->parent; p; p = p->parent) {
        if (p->type == LT_LIST || p->type == LT_MAP) {
            char path[512];
            lake_column_path(c, path, sizeof path);
            error_fail(err, ERR_INVALID, "%s: column '%s' is inside a %s", what, path,
                       lake_type_name(p->type));
            return NULL;
        }
    }
    return c;
}

static bool top_level_name(const struct lake_table *t, const char *name)
{
    for (size_t i = 0; i < t->root.nchildren; i++)
        if (strcmp(t->root.children[i]->name, name) == 0)
            return true;
    return false;
}

/* An Avro name ([A-Za-z_][A-Za-z0-9_]*) from a column path: hoglake names
 * already start with a letter or '_', but may hold '-', and a nested path
 * holds '.'. */
static void avro_name(const char *path, char *out, size_t out_size)
{
    size_t n = 0;
    for (const char *p = path; *p && n + 1 < out_size; p++) {
        char ch = *p;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '_';
        out[n++] = ok ? ch : '_';
    }
    out[n] = '\0';
}

json_t *ice_partition_spec_json(const struct lake_table *t, int64_t day_source_id,
                                struct error *err)
{
    json_t *fields = json_array();
    json_t *spec = json_object();
    if (!fields || !spec || !put(spec, "spec-id", json_integer(0))) {
        json_decref(fields);
        json_decref(spec);
        return nomem(err);
    }
    if (day_source_id != 0) {
        const struct lake_column *c = addressable(t, day_source_id, "day partition source", err);
        if (!c)
            goto fail;
        char path[512];
        lake_column_path(c, path, sizeof path);
        if (!lake_type_is_temporal(c->type)) {
            error_fail(err, ERR_INVALID, "day partition source '%s' is %s, not a date or timestamp",
                       path, lake_type_name(c->type));
            goto fail;
        }
        char base[300], name[320];
        avro_name(path, base, sizeof base - 4);
        snprintf(name, sizeof name, "%s_day", base);
        for (int k = 2; top_level_name(t, name); k++)
            snprintf(name, sizeof name, "%s_day_%d", base, k);
        json_t *f = json_pack("{s:s,s:s,s:I,s:I}", "name", name, "transform", "day", "source-id",
                              (json_int_t)day_source_id, "field-id",
                              (json_int_t)ICE_FIRST_PARTITION_FIELD_ID);
        if (!f || json_array_append_new(fields, f) != 0) {
            nomem(err);
            goto fail;
        }
    }
    if (json_object_set(spec, "fields", fields) != 0) {
        nomem(err);
        goto fail;
    }
    json_decref(fields);
    return spec;
fail:
    json_decref(fields);
    json_decref(spec);
    return NULL;
}

json_t *ice_sort_order_json(const struct lake_table *t, const struct lake_sort_field *sf, size_t n,
                            struct error *err)
{
    json_t *fields = json_array();
    json_t *order = json_object();
    if (!fields || !order || !put(order, "order-id", json_integer(n ? 1 : 0)) ||
        json_object_set(order, "fields", fields) != 0) {
        json_decref(fields);
        json_decref(order);
        return nomem(err);
    }
    json_decref(fields); /* order holds it */
    for (size_t i = 0; i < n; i++) {
        const struct lake_column *c = addressable(t, sf[i].source_field_id, "sort key", err);
        if (!c)
            goto fail;
        char path[512];
        lake_column_path(c, path, sizeof path);
        if (lake_type_is_container(c->type) || c->type == LT_VARIANT) {
            error_fail(err, ERR_INVALID, "sort key '%s' is %s, which has no order", path,
                       lake_type_name(c->type));
            goto fail;
        }
        for (size_t j = 0; j < i; j++) {
            if (sf[j].source_field_id == sf[i].source_field_id) {
                error_fail(err, ERR_INVALID, "sort key '%s' is named twice", path);
                goto fail;
            }
        }
        json_t *f = json_pack("{s:s,s:I,s:s,s:s}", "transform", "identity", "source-id",
                              (json_int_t)sf[i].source_field_id, "direction",
                              sf[i].descending ? "desc" : "asc", "null-order",
                              sf[i].nulls_first ? "nulls-first" : "nulls-last");
        if (!f || json_array_append_new(fields, f) != 0) {
            nomem(err);
            goto fail;
        }
    }
    return order;
fail:
    json_decref(order);
    return NULL;
}

const char *ice_spec_drift_name(enum ice_spec_drift d)
{
    switch (d) {
    case ICE_SPEC_SAME: return "same";
    case ICE_SPEC_DRIFT_ADDED: return "added";
    case ICE_SPEC_DRIFT_REMOVED: return "removed";
    case ICE_SPEC_DRIFT_CHANGED: return "changed";
    }
    return "unknown";
}

/* Appends text to out at *len, keeping it terminated and bounded. */
static void append(char *out, size_t out_size, size_t *len, const char *text)
{
    if (*len + 1 >= out_size)
        return;
    int w = snprintf(out + *len, out_size - *len, "%s", text);
    if (w > 0)
        *len += (size_t)w < out_size - *len ? (size_t)w : out_size - *len - 1;
}

static void column_named(const struct lake_table *t, const json_t *source_id, char *out,
                         size_t out_size)
{
    const struct lake_column *c = t && json_is_integer(source_id)
                                      ? lake_table_find_field(t, json_integer_value(source_id))
                                      : NULL;
    if (c)
        lake_column_path(c, out, out_size);
    else if (json_is_integer(source_id))
        snprintf(out, out_size, "field %lld", (long long)json_integer_value(source_id));
    else
        snprintf(out, out_size, "field ?");
}

void ice_spec_describe(const json_t *spec, const struct lake_table *t, char *out, size_t out_size)
{
    if (!out_size)
        return;
    out[0] = '\0';
    const json_t *fields = json_object_get(spec, "fields");
    if (json_array_size(fields) == 0) {
        snprintf(out, out_size, "unpartitioned");
        return;
    }
    size_t len = 0, i;
    const json_t *f;
    json_array_foreach (fields, i, f) {
        const char *tr = json_string_value(json_object_get(f, "transform"));
        char col[512], item[600];
        column_named(t, json_object_get(f, "source-id"), col, sizeof col);
        snprintf(item, sizeof item, "%s%s(%s)", i ? ", " : "", tr ? tr : "?", col);
        append(out, out_size, &len, item);
    }
}

void ice_sort_describe(const json_t *order, const struct lake_table *t, char *out, size_t out_size)
{
    if (!out_size)
        return;
    out[0] = '\0';
    size_t len = 0, i;
    const json_t *f;
    json_array_foreach (json_object_get(order, "fields"), i, f) {
        char col[512];
        column_named(t, json_object_get(f, "source-id"), col, sizeof col);
        if (i)
            append(out, out_size, &len, ",");
        append(out, out_size, &len, col);
    }
}

/* True when both fields name the same source (by id) under the same
 * transform. */
static bool same_field(const json_t *a, const json_t *b)
{
    const json_t *sa = json_object_get(a, "source-id"), *sb = json_object_get(b, "source-id");
    const char *ta = json_string_value(json_object_get(a, "transform"));
    const char *tb = json_string_value(json_object_get(b, "transform"));
    return json_is_integer(sa) && json_is_integer(sb) &&
           json_integer_value(sa) == json_integer_value(sb) && ta && tb && strcmp(ta, tb) == 0;
}

enum ice_spec_drift ice_spec_compare(const json_t *derived, const json_t *existing,
                                     const struct lake_table *t, char *describe,
                                     size_t describe_size)
{
    const json_t *df = json_object_get(derived, "fields");
    const json_t *ef = json_object_get(existing, "fields");
    enum ice_spec_drift d = ICE_SPEC_SAME;
    if (!json_is_array(df) || !json_is_array(ef)) {
        d = ICE_SPEC_DRIFT_CHANGED;
    } else if (json_array_size(df) == 0 || json_array_size(ef) == 0) {
        if (json_array_size(df) != json_array_size(ef))
            d = json_array_size(df) ? ICE_SPEC_DRIFT_ADDED : ICE_SPEC_DRIFT_REMOVED;
    } else if (json_array_size(df) != json_array_size(ef)) {
        d = ICE_SPEC_DRIFT_CHANGED;
    } else {
        for (size_t i = 0; i < json_array_size(df); i++)
            if (!same_field(json_array_get(df, i), json_array_get(ef, i)))
                d = ICE_SPEC_DRIFT_CHANGED;
    }
    if (describe && describe_size) {
        char a[400], b[400];
        ice_spec_describe(derived, t, a, sizeof a);
        ice_spec_describe(existing, t, b, sizeof b);
        if (d == ICE_SPEC_SAME)
            snprintf(describe, describe_size, "the table's partition spec is %s, as derived", b);
        else
            snprintf(describe, describe_size,
                     "partition spec drift (%s): the Iceberg table's spec is %s, the export "
                     "derives %s",
                     ice_spec_drift_name(d), b, a);
    }
    return d;
}
