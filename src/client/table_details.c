/* The Table object, typed: hl_table_info's answer decoded into struct
 * hl_table_details, its column tree, partition spec and sort order. */
#include <stdlib.h>
#include <string.h>

#include "client/decode.h"

#define D struct hl_table_details
static const struct client_member details_members[] = {
    CM(D, name, CM_STRING, true),
    {"namespace", offsetof(D, namespace_name), CM_STRING, true},
    CM(D, table_uuid, CM_STRING, true),
    CM(D, comment, CM_STRING, false),
    CM(D, primary_timestamp_column, CM_STRING, false),
    CM(D, read_snapshot_id, CM_I64, true),
    CM(D, record_count, CM_I64, false),
    CM(D, file_count, CM_I64, false),
    CM(D, file_size_bytes, CM_I64, false),
    CM(D, totals_snapshot_id, CM_I64, false),
};
#undef D

#define C struct hl_column
static const struct client_member column_members[] = {
    CM(C, field_id, CM_I64, true),  CM(C, name, CM_STRING, true),     CM(C, type, CM_STRING, true),
    CM(C, nullable, CM_BOOL, true), CM(C, comment, CM_STRING, false),
};
#undef C

#define P struct hl_partition_field
static const struct client_member partition_members[] = {
    CM(P, source_field_id, CM_I64, true),
    CM(P, transform, CM_STRING, true),
    CM(P, transform_param, CM_I64, false),
};
#undef P

#define NMEMB(a) (sizeof(a) / sizeof((a)[0]))

/* Deeper than any table the catalog holds (8 levels): an answer past it is
 * refused rather than followed. */
enum { MAX_COLUMN_DEPTH = 16 };

static void column_clear(struct hl_column *c)
{
    client_decode_free(column_members, NMEMB(column_members), c);
    free(c->type_params);
    for (size_t i = 0; i < c->nchildren; i++)
        column_clear(&c->children[i]);
    free(c->children);
    memset(c, 0, sizeof *c);
}

void hl_table_details_clear(struct hl_table_details *d)
{
    if (!d)
        return;
    client_decode_free(details_members, NMEMB(details_members), d);
    free(d->properties);
    for (size_t i = 0; i < d->ncolumns; i++)
        column_clear(&d->columns[i]);
    free(d->columns);
    for (size_t i = 0; i < d->npartition_fields; i++)
        client_decode_free(partition_members, NMEMB(partition_members), &d->partition_fields[i]);
    free(d->partition_fields);
    free(d->sort_fields);
    memset(d, 0, sizeof *d);
}

/* *out (n entries of size bytes, zeroed) for a JSON array member; NULL
 * when the array is empty. */
static hl_status alloc_entries(const json_t *array, const char *what, size_t size, void **out,
                               size_t *n, struct hl_error *err)
{
    *out = NULL;
    *n = 0;
    if (!json_is_array(array))
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the Table answer's %s is not an array", what);
    size_t count = json_array_size(array);
    if (count == 0)
        return HL_OK;
    if (!(*out = calloc(count, size)))
        return client_nomem(err);
    *n = count;
    return HL_OK;
}

/* obj's member `key` as compact JSON text into *out (NULL when absent). */
static hl_status json_text(const json_t *obj, const char *key, char **out, struct hl_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return HL_OK;
    return (*out = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)) ? HL_OK : client_nomem(err);
}

static hl_status columns_decode(const json_t *array, struct hl_column **out, size_t *n, int depth,
                                struct hl_error *err);

static hl_status column_decode(const json_t *obj, struct hl_column *c, int depth,
                               struct hl_error *err)
{
    hl_status st =
        client_decode(obj, "Column", column_members, NMEMB(column_members), c, sizeof *c, err);
    if (st == HL_OK)
        st = json_text(obj, "type_params", &c->type_params, err);
    if (st == HL_OK && strcmp(c->type, "decimal") == 0) {
        int64_t p = 38, s = 0; /* the catalog's defaults */
        json_t *params = json_object_get(obj, "type_params");
        client_json_int(params, "precision", &p);
        client_json_int(params, "scale", &s);
        c->precision = (int)p;
        c->scale = (int)s;
    }
    json_t *children = json_object_get(obj, "children");
    if (st == HL_OK && children && !json_is_null(children))
        st = columns_decode(children, &c->children, &c->nchildren, depth + 1, err);
    return st;
}

static hl_status columns_decode(const json_t *array, struct hl_column **out, size_t *n, int depth,
                                struct hl_error *err)
{
    if (depth > MAX_COLUMN_DEPTH)
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the Table answer's columns nest deeper than %d", MAX_COLUMN_DEPTH);
    hl_status st = alloc_entries(array, "columns", sizeof **out, (void **)out, n, err);
    /* Entries left unfilled are zeroed: clearing them is harmless. */
    for (size_t i = 0; st == HL_OK && i < *n; i++)
        st = column_decode(json_array_get(array, i), &(*out)[i], depth, err);
    return st;
}

static hl_status partition_decode(const json_t *spec, struct hl_table_details *d,
                                  struct hl_error *err)
{
    d->spec_id = -1;
    if (!spec || json_is_null(spec))
        return HL_OK;
    if (!client_json_int(spec, "spec_id", &d->spec_id))
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the Table answer's partition_spec has no spec_id");
    hl_status st = alloc_entries(json_object_get(spec, "fields"), "partition fields",
                                 sizeof *d->partition_fields, (void **)&d->partition_fields,
                                 &d->npartition_fields, err);
    for (size_t i = 0; st == HL_OK && i < d->npartition_fields; i++)
        st = client_decode(json_array_get(json_object_get(spec, "fields"), i), "PartitionField",
                           partition_members, NMEMB(partition_members), &d->partition_fields[i],
                           sizeof d->partition_fields[i], err);
    return st;
}

static hl_status sort_decode(const json_t *spec, struct hl_table_details *d, struct hl_error *err)
{
    d->sort_id = -1;
    if (!spec || json_is_null(spec))
        return HL_OK;
    json_t *fields = json_object_get(spec, "fields");
    if (!client_json_int(spec, "sort_id", &d->sort_id))
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the Table answer's sort_spec has no sort_id");
    hl_status st = alloc_entries(fields, "sort fields", sizeof *d->sort_fields,
                                 (void **)&d->sort_fields, &d->nsort_fields, err);
    for (size_t i = 0; st == HL_OK && i < d->nsort_fields; i++) {
        json_t *f = json_array_get(fields, i);
        struct hl_sort_field *out = &d->sort_fields[i];
        const char *dir = json_string_value(json_object_get(f, "direction"));
        const char *nulls = json_string_value(json_object_get(f, "null_order"));
        if (!client_json_int(f, "source_field_id", &out->source_field_id))
            return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                               "the Table answer's sort field %zu has no source_field_id", i);
        out->descending = dir && strcmp(dir, "desc") == 0;
        /* Iceberg's defaults: nulls first ascending, last descending. */
        out->nulls_first = nulls ? strcmp(nulls, "nulls_first") == 0 : !out->descending;
    }
    return st;
}

hl_status hl_table_describe(hl_table *t, const struct hl_at *at, struct hl_table_details *out,
                            struct hl_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *doc = NULL;
    hl_status st = table_info_doc(t, at, &doc, err);
    if (st != HL_OK)
        return st;
    st = client_details_decode(doc, out, err);
    json_decref(doc);
    return st;
}

hl_status hl_table_definition_details(hl_table *t, struct hl_table_details *out,
                                      struct hl_error *err)
{
    /* The cached read is decoded in place (it is replaced, never changed). */
    json_t *info = table_cache_fresh(t);
    if (!info)
        return hl_table_describe(t, NULL, out, err);
    hl_status st = client_details_decode(info, out, err);
    json_decref(info);
    return st;
}

hl_status client_details_decode(const json_t *doc, struct hl_table_details *out,
                                struct hl_error *err)
{
    memset(out, 0, sizeof *out);
    hl_status st =
        client_decode(doc, "Table", details_members, NMEMB(details_members), out, sizeof *out, err);
    if (st == HL_OK) {
        /* Totals are omitted under time travel. */
        static const char *const totals[] = {"record_count", "file_count", "file_size_bytes",
                                             "totals_snapshot_id"};
        int64_t *fields[] = {&out->record_count, &out->file_count, &out->file_size_bytes,
                             &out->totals_snapshot_id};
        for (size_t i = 0; i < 4; i++)
            if (!json_object_get(doc, totals[i]))
                *fields[i] = -1;
        st = json_text(doc, "properties", &out->properties, err);
    }
    if (st == HL_OK)
        st = columns_decode(json_object_get(doc, "columns"), &out->columns, &out->ncolumns, 1, err);
    if (st == HL_OK)
        st = partition_decode(json_object_get(doc, "partition_spec"), out, err);
    if (st == HL_OK)
        st = sort_decode(json_object_get(doc, "sort_spec"), out, err);
    if (st != HL_OK)
        hl_table_details_clear(out);
    return st;
}
