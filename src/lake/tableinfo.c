/* A server's Table object (columns with field ids, the partition spec and
 * the sort order, docs/openapi.yaml) read into a table definition: what
 * libhoglake's writer path encodes for and the exporter maps to Iceberg. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lake/tableinfo.h"

/* A refusal of lake's, said of the answer it was found in (the message
 * keeps its text; the kind says the answer was malformed). */
static int answer_error(struct error *err)
{
    if (err->code != ERR_NOMEM) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        error_fail(err, ERR_MALFORMED, "the Table answer: %.700s", msg);
    }
    return -1;
}

static int malformed(struct error *err, const char *what)
{
    return error_fail(err, ERR_MALFORMED, "the Table answer: %s", what);
}

static bool int_member(const json_t *obj, const char *key, int64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v))
        return false;
    *out = (int64_t)json_integer_value(v);
    return true;
}

static int load_columns(struct lake_table *t, const json_t *columns, int64_t parent, int depth,
                        struct error *err)
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
        if (!name || !type_name || !int_member(c, "field_id", &field_id) ||
            !int_member(c, "ordinal", &ordinal))
            return malformed(err, "a column lacks name, type, field_id or ordinal");
        if (field_id <= 0 || lake_table_find_field(t, field_id))
            return error_fail(err, ERR_MALFORMED,
                              "the Table answer: field id %lld is not positive or appears twice",
                              (long long)field_id);
        enum lake_type type;
        if (lake_type_lookup(type_name, &type, NULL) != LAKE_TYPE_OK)
            return error_fail(err, ERR_MALFORMED,
                              "column '%s' has type '%s', which this client does not know", name,
                              type_name);
        const json_t *params = json_object_get(c, "type_params");
        int64_t precision = 0, scale = 0;
        int_member(params, "precision", &precision);
        int_member(params, "scale", &scale);
        const json_t *nullable = json_object_get(c, "nullable");
        if (lake_table_load_column(t, field_id, parent, name, type, (int)precision, (int)scale,
                                   !json_is_false(nullable), (int)ordinal,
                                   json_string_value(json_object_get(c, "comment")), err) != 0)
            return answer_error(err);
        const json_t *decl = json_object_get(params, "shredding");
        if (decl && !json_is_null(decl) && lake_table_load_shredding(t, field_id, decl, err) != 0)
            return answer_error(err);
        const json_t *children = json_object_get(c, "children");
        if (children && !json_is_null(children)) {
            if (load_columns(t, children, field_id, depth + 1, err) != 0)
                return -1;
        }
    }
    return 0;
}

static int load_partition_spec(struct lake_table *t, const json_t *spec, struct error *err)
{
    if (!spec || json_is_null(spec))
        return 0;
    const json_t *fields = json_object_get(spec, "fields");
    if (!json_is_array(fields))
        return malformed(err, "partition_spec has no fields array");
    int_member(spec, "spec_id", &t->spec_id);
    size_t i;
    const json_t *f;
    json_array_foreach (fields, i, f) {
        struct lake_partition_field pf = {0};
        const char *transform = json_string_value(json_object_get(f, "transform"));
        int64_t param = 0;
        if (!int_member(f, "source_field_id", &pf.source_field_id) || !transform ||
            !lake_transform_parse(transform, &pf.transform))
            return malformed(err, "a partition field lacks source_field_id or a known transform");
        int_member(f, "transform_param", &param);
        pf.param = (int32_t)param;
        if (lake_table_load_partition_field(t, &pf, err) != 0)
            return answer_error(err);
    }
    return 0;
}

static int load_sort_spec(struct lake_table *t, const json_t *spec, struct error *err)
{
    if (!spec || json_is_null(spec))
        return 0;
    const json_t *fields = json_object_get(spec, "fields");
    if (!json_is_array(fields))
        return malformed(err, "sort_spec has no fields array");
    int_member(spec, "sort_id", &t->sort_id);
    size_t i;
    const json_t *f;
    json_array_foreach (fields, i, f) {
        struct lake_sort_field sf = {0};
        const char *dir = json_string_value(json_object_get(f, "direction"));
        const char *nulls = json_string_value(json_object_get(f, "null_order"));
        if (!int_member(f, "source_field_id", &sf.source_field_id))
            return malformed(err, "a sort field lacks source_field_id");
        sf.descending = dir && strcmp(dir, "desc") == 0;
        sf.nulls_first = nulls && strcmp(nulls, "nulls_first") == 0;
        if (lake_table_load_sort_field(t, &sf, err) != 0)
            return answer_error(err);
    }
    return 0;
}

int lake_table_from_info(const json_t *info, struct lake_table *t, struct error *err)
{
    const char *name = json_string_value(json_object_get(info, "name"));
    if (!name)
        return malformed(err, "no name");
    if (!(t->name = arena_strdup(t->arena, name)))
        return error_fail(err, ERR_NOMEM, "out of memory");
    if (load_columns(t, json_object_get(info, "columns"), 0, 0, err) != 0 ||
        load_partition_spec(t, json_object_get(info, "partition_spec"), err) != 0 ||
        load_sort_spec(t, json_object_get(info, "sort_spec"), err) != 0)
        return -1;
    return 0;
}
