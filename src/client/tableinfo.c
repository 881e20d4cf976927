/* A server's Table object (columns with field ids, the partition spec and
 * the sort order) as the catalog definition the writer path encodes for. */
#include <stdio.h>
#include <string.h>

#include "client/tableinfo.h"

static hl_status malformed(struct hl_error *err, const char *what)
{
    return client_fail(err, HL_ERR_PROTOCOL, "protocol", "the Table answer: %s", what);
}

static hl_status load_columns(struct lake_table *t, const json_t *columns, int64_t parent,
                              int depth, struct hl_error *err)
{
    if (!json_is_array(columns))
        return malformed(err, "columns is not an array");
    if (depth > 64)
        return malformed(err, "columns nest too deep");
    size_t i;
    const json_t *c;
    json_array_foreach (columns, i, c) {
        int64_t field_id, ordinal;
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *type_name = json_string_value(json_object_get(c, "type"));
        if (!name || !type_name || !client_json_int(c, "field_id", &field_id) ||
            !client_json_int(c, "ordinal", &ordinal))
            return malformed(err, "a column lacks name, type, field_id or ordinal");
        if (field_id <= 0 || lake_table_find_field(t, field_id))
            return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                               "the Table answer: field id %lld is not positive or appears twice",
                               (long long)field_id);
        enum lake_type type;
        if (lake_type_lookup(type_name, &type, NULL) != LAKE_TYPE_OK)
            return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                               "column '%s' has type '%s', which this client does not know", name,
                               type_name);
        const json_t *params = json_object_get(c, "type_params");
        int64_t precision = 0, scale = 0;
        client_json_int(params, "precision", &precision);
        client_json_int(params, "scale", &scale);
        const json_t *nullable = json_object_get(c, "nullable");
        struct lake_err lerr;
        if (lake_table_load_column(t, field_id, parent, name, type, (int)precision, (int)scale,
                                   !json_is_false(nullable), (int)ordinal,
                                   json_string_value(json_object_get(c, "comment")), &lerr) != 0)
            return client_fail(err, HL_ERR_PROTOCOL, "protocol", "the Table answer: %s", lerr.msg);
        const json_t *children = json_object_get(c, "children");
        if (children && !json_is_null(children)) {
            hl_status st = load_columns(t, children, field_id, depth + 1, err);
            if (st != HL_OK)
                return st;
        }
    }
    return HL_OK;
}

static hl_status load_partition_spec(struct lake_table *t, const json_t *spec, struct hl_error *err)
{
    if (!spec || json_is_null(spec))
        return HL_OK;
    const json_t *fields = json_object_get(spec, "fields");
    if (!json_is_array(fields))
        return malformed(err, "partition_spec has no fields array");
    client_json_int(spec, "spec_id", &t->spec_id);
    size_t i;
    const json_t *f;
    json_array_foreach (fields, i, f) {
        struct lake_partition_field pf = {0};
        const char *transform = json_string_value(json_object_get(f, "transform"));
        int64_t param = 0;
        if (!client_json_int(f, "source_field_id", &pf.source_field_id) || !transform ||
            !lake_transform_parse(transform, &pf.transform))
            return malformed(err, "a partition field lacks source_field_id or a known transform");
        client_json_int(f, "transform_param", &param);
        pf.param = (int32_t)param;
        struct lake_err lerr;
        if (lake_table_load_partition_field(t, &pf, &lerr) != 0)
            return client_fail(err, HL_ERR_PROTOCOL, "protocol", "the Table answer: %s", lerr.msg);
    }
    return HL_OK;
}

static hl_status load_sort_spec(struct lake_table *t, const json_t *spec, struct hl_error *err)
{
    if (!spec || json_is_null(spec))
        return HL_OK;
    const json_t *fields = json_object_get(spec, "fields");
    if (!json_is_array(fields))
        return malformed(err, "sort_spec has no fields array");
    client_json_int(spec, "sort_id", &t->sort_id);
    size_t i;
    const json_t *f;
    json_array_foreach (fields, i, f) {
        struct lake_sort_field sf = {0};
        const char *dir = json_string_value(json_object_get(f, "direction"));
        const char *nulls = json_string_value(json_object_get(f, "null_order"));
        if (!client_json_int(f, "source_field_id", &sf.source_field_id))
            return malformed(err, "a sort field lacks source_field_id");
        sf.descending = dir && strcmp(dir, "desc") == 0;
        sf.nulls_first = nulls && strcmp(nulls, "nulls_first") == 0;
        struct lake_err lerr;
        if (lake_table_load_sort_field(t, &sf, &lerr) != 0)
            return client_fail(err, HL_ERR_PROTOCOL, "protocol", "the Table answer: %s", lerr.msg);
    }
    return HL_OK;
}

hl_status client_table_from_info(const json_t *info, struct lake_table *t, struct hl_error *err)
{
    const char *name = json_string_value(json_object_get(info, "name"));
    if (!name)
        return malformed(err, "no name");
    if (!(t->name = arena_strdup(t->arena, name)))
        return client_nomem(err);
    hl_status st = load_columns(t, json_object_get(info, "columns"), 0, 0, err);
    if (st == HL_OK)
        st = load_partition_spec(t, json_object_get(info, "partition_spec"), err);
    if (st == HL_OK)
        st = load_sort_spec(t, json_object_get(info, "sort_spec"), err);
    return st;
}

static const struct lake_column *variant_below(const struct lake_column *c)
{
    if (c->type == LT_VARIANT)
        return c;
    for (size_t i = 0; i < c->nchildren; i++) {
        const struct lake_column *v = variant_below(c->children[i]);
        if (v)
            return v;
    }
    return NULL;
}

const struct lake_column *client_table_variant(const struct lake_table *t)
{
    return variant_below(&t->root);
}
