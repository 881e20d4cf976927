#include "rows/rows_schema.h"

#include <stdio.h>
#include <string.h>

#include "parquet/writer.h"
#include "util/arrow.h"

static const char *const extension_name_key = "ARROW:extension:name";

/* Whether a field carries this extension name. */
static bool has_extension(const struct ArrowSchema *s, const char *name)
{
    char v[32];
    return s->metadata && arrow_metadata_get(s->metadata, extension_name_key, v, sizeof v) &&
           strcmp(v, name) == 0;
}

bool rows_schema_is_uuid(const struct ArrowSchema *s)
{
    return has_extension(s, "arrow.uuid");
}

bool rows_schema_is_wkb(const struct ArrowSchema *s)
{
    return has_extension(s, "geoarrow.wkb");
}

int rows_schema_mark_uuid(struct ArrowSchema *s)
{
    char id[32];
    const char *keys[2] = {extension_name_key, "PARQUET:field_id"};
    const char *values[2] = {"arrow.uuid", id};
    bool has_id = s->metadata && arrow_metadata_get(s->metadata, keys[1], id, sizeof id);
    return arrow_schema_set_metadata(s, keys, values, has_id ? 2 : 1);
}

/* Marks a VARIANT group read as a struct, keeping a "PARQUET:field_id". */
static int mark_variant(struct ArrowSchema *s)
{
    char id[32];
    const char *keys[3] = {extension_name_key, "ARROW:extension:metadata", "PARQUET:field_id"};
    const char *values[3] = {"arrow.parquet.variant", "", id};
    bool has_id = s->metadata && arrow_metadata_get(s->metadata, keys[2], id, sizeof id);
    return arrow_schema_set_metadata(s, keys, values, has_id ? 3 : 2);
}

static int mark_node(struct ArrowSchema *s, const struct pq_node *x)
{
    switch (x->kind) {
    case PQN_LEAF:
        if (x->el->logical.kind == PQ_LT_UUID && strcmp(s->format, "w:16") == 0)
            return rows_schema_mark_uuid(s);
        return 0;
    case PQN_STRUCT:
        if (x->el->logical.kind == PQ_LT_VARIANT && strcmp(s->format, "+s") == 0)
            return mark_variant(s);
        for (int i = 0; i < x->nchildren && i < s->n_children; i++)
            if (mark_node(s->children[i], x->children[i]) != 0)
                return -1;
        return 0;
    case PQN_LIST:
    case PQN_MAP:
        /* A map's entries struct is its key_value node's view. */
        return s->n_children == 1 ? mark_node(s->children[0], x->element) : 0;
    }
    return 0;
}

int rows_schema_mark_file_extensions(struct ArrowSchema *schema, const struct pq_schema *ps)
{
    for (int64_t i = 0; i < schema->n_children; i++) {
        const struct pq_node *x = pq_schema_find_top(ps, schema->children[i]->name);
        if (x && mark_node(schema->children[i], x) != 0)
            return -1;
    }
    return 0;
}

int rows_schema_mark_json(struct ArrowSchema *s, const struct lake_column *c)
{
    if (c->type == LT_JSON) {
        const char *key = extension_name_key, *value = "arrow.json";
        return arrow_schema_set_metadata(s, &key, &value, 1);
    }
    if (c->type == LT_STRUCT) {
        for (size_t i = 0; i < c->nchildren && (int64_t)i < s->n_children; i++)
            if (rows_schema_mark_json(s->children[i], c->children[i]) != 0)
                return -1;
    } else if (c->type == LT_LIST && s->n_children == 1) {
        return rows_schema_mark_json(s->children[0], c->children[0]);
    } else if (c->type == LT_MAP && s->n_children == 1 && s->children[0]->n_children == 2) {
        /* The map's entries struct holds its key and value. */
        for (int i = 0; i < 2; i++)
            if (rows_schema_mark_json(s->children[0]->children[i], c->children[i]) != 0)
                return -1;
    }
    return 0;
}

bool rows_schema_is_json(const struct ArrowSchema *s)
{
    return has_extension(s, "arrow.json");
}

bool rows_schema_is_variant(const struct ArrowSchema *s)
{
    return has_extension(s, "arrow.parquet.variant");
}

/* The unshredded storage struct, under Arrow's canonical extension name. */
static int variant_schema(const struct lake_column *c, const char *name, struct ArrowSchema *s)
{
    const char *keys[2] = {extension_name_key, "ARROW:extension:metadata"};
    const char *values[2] = {"arrow.parquet.variant", ""};
    if (arrow_schema_init(s, "+s", name, c->nullable ? ARROW_FLAG_NULLABLE : 0, 2) != 0 ||
        arrow_schema_set_metadata(s, keys, values, 2) != 0 ||
        arrow_schema_init(s->children[0], "z", "metadata", 0, 0) != 0)
        return -1;
    return arrow_schema_init(s->children[1], "z", "value", 0, 0);
}

int rows_column_arrow_schema(const struct lake_column *c, const char *name, struct ArrowSchema *s)
{
    if (c->type == LT_VARIANT)
        return variant_schema(c, name, s);
    char fmt[32];
    int64_t nkids = c->type == LT_STRUCT                      ? (int64_t)c->nchildren
                    : c->type == LT_LIST || c->type == LT_MAP ? 1
                                                              : 0;
    if (arrow_schema_init(s, pq_arrow_format_for(c, fmt, sizeof fmt), name,
                          c->nullable ? ARROW_FLAG_NULLABLE : 0, nkids) != 0)
        return -1;
    if (c->type == LT_UUID && rows_schema_mark_uuid(s) != 0)
        return -1;
    if (c->type == LT_STRUCT) {
        for (size_t i = 0; i < c->nchildren; i++)
            if (rows_column_arrow_schema(c->children[i], c->children[i]->name, s->children[i]) != 0)
                return -1;
    } else if (c->type == LT_LIST) {
        return rows_column_arrow_schema(c->children[0], "element", s->children[0]);
    } else if (c->type == LT_MAP) {
        struct ArrowSchema *e = s->children[0];
        if (arrow_schema_init(e, "+s", "entries", 0, 2) != 0 ||
            rows_column_arrow_schema(c->children[0], "key", e->children[0]) != 0)
            return -1;
        return rows_column_arrow_schema(c->children[1], "value", e->children[1]);
    }
    return 0;
}

int rows_table_arrow_schema(const struct lake_table *t, struct ArrowSchema *out)
{
    size_t n = t->root.nchildren;
    if (arrow_schema_init(out, "+s", "", 0, (int64_t)n) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct lake_column *c = t->root.children[i];
        if (rows_column_arrow_schema(c, c->name, out->children[i]) != 0) {
            out->release(out);
            return -1;
        }
    }
    return 0;
}

/* A decimal128 format, "d:P,S" or "d:P,S,128", within the catalog's
 * precision. */
static bool decimal_type(const char *f, int *precision, int *scale)
{
    int p, sc, bits = 128;
    char tail;
    int n = sscanf(f, "d:%d,%d,%d%c", &p, &sc, &bits, &tail);
    if ((n != 2 && n != 3) || bits != 128 || p < 1 || p > LAKE_DECIMAL_MAX_PRECISION || sc < 0 ||
        sc > p)
        return false;
    *precision = p;
    *scale = sc;
    return true;
}

int rows_arrow_column_type(const struct ArrowSchema *s, enum lake_type *type, int *precision,
                           int *scale)
{
    *precision = *scale = 0;
    const char *f = s->format;
    if (!f || s->dictionary)
        return -1;
    if (rows_schema_is_variant(s)) {
        *type = LT_VARIANT;
        return strcmp(f, "+s") == 0 ? 0 : -1; /* the storage struct */
    }
    bool text = strcmp(f, "u") == 0 || strcmp(f, "U") == 0;
    if (rows_schema_is_json(s) || rows_schema_is_uuid(s)) {
        bool json = rows_schema_is_json(s);
        if (json ? !text : strcmp(f, "w:16") != 0)
            return -1;
        *type = json ? LT_JSON : LT_UUID;
        return 0;
    }
    if (strncmp(f, "d:", 2) == 0) {
        *type = LT_DECIMAL;
        return decimal_type(f, precision, scale) ? 0 : -1;
    }
    /* The writer's wider input, as the format the writer names. */
    const char *want = text                                 ? "u"
                       : strcmp(f, "Z") == 0                ? "z"
                       : strcmp(f, "+L") == 0               ? "+l"
                       : strncmp(f, "tsu:", 4) == 0 && f[4] ? "tsu:UTC"
                                                            : f;
    for (int t = 0; t < LT__COUNT; t++) {
        /* Those are told apart above, by extension name or parameters. */
        if (t == LT_VARIANT || t == LT_UUID || t == LT_JSON || t == LT_DECIMAL)
            continue;
        struct lake_column probe = {.type = (enum lake_type)t};
        char buf[32];
        if (strcmp(pq_arrow_format_for(&probe, buf, sizeof buf), want) == 0) {
            *type = (enum lake_type)t;
            return 0;
        }
    }
    return -1;
}
