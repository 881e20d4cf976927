#include "parquet/schema.h"

#include <math.h>
#include <string.h>

#include "util/search.h"

int pq_decimal_bytes(int precision)
{
    /* Smallest n with 10^p - 1 <= 2^(8n - 1) - 1, i.e. p digits fit in a
     * signed n-byte integer. */
    for (int n = 1; n <= 16; n++) {
        double bits = 8.0 * n - 1;
        if ((double)precision <= floor(bits * log10(2.0)))
            return n;
    }
    return 16;
}

/* ---- building the tree from a flattened element list ---- */

struct builder {
    const struct pq_schema_element *el;
    size_t n;
    size_t next; /* next element to consume */
    struct arena *a;
    struct pq_schema *s;
    int nleaves;
    struct error *err;
};

static bool is_list_annotated(const struct pq_schema_element *e)
{
    return e->logical.kind == PQ_LT_LIST || (e->has_converted && e->converted == PQ_CT_LIST);
}

static bool is_map_annotated(const struct pq_schema_element *e)
{
    return e->logical.kind == PQ_LT_MAP ||
           (e->has_converted && (e->converted == PQ_CT_MAP || e->converted == PQ_CT_MAP_KEY_VALUE));
}

static char *join_path(struct arena *a, const char *parent, const char *name)
{
    if (!parent || !*parent)
        return arena_strdup(a, name);
    return arena_sprintf(a, "%s.%s", parent, name);
}

/* Siblings' elements lie in the flattened list in their order, so the
 * element's address breaks a tie by position. */
static int cmp_position(const struct pq_node *x, const struct pq_node *y)
{
    return (x->el > y->el) - (x->el < y->el);
}

static int cmp_by_name(const void *a, const void *b)
{
    const struct pq_node *x = *(struct pq_node *const *)a, *y = *(struct pq_node *const *)b;
    int c = strcmp(x->el->name, y->el->name);
    return c ? c : cmp_position(x, y);
}

static int cmp_by_id(const void *a, const void *b)
{
    const struct pq_node *x = *(struct pq_node *const *)a, *y = *(struct pq_node *const *)b;
    if (x->el->field_id != y->el->field_id)
        return x->el->field_id < y->el->field_id ? -1 : 1;
    return cmp_position(x, y);
}

/* A sorted copy of n node pointers (at least one slot), or NULL. */
static struct pq_node **sorted_children(struct arena *a, struct pq_node *const *nodes, int n,
                                        int (*cmp)(const void *, const void *))
{
    struct pq_node **out = arena_calloc(a, (size_t)(n ? n : 1), sizeof *out);
    if (!out)
        return NULL;
    if (n) {
        memcpy(out, nodes, (size_t)n * sizeof *out);
        qsort(out, (size_t)n, sizeof *out, cmp);
    }
    return out;
}

static struct pq_node *build(struct builder *b, struct pq_node *parent, int depth)
{
    if (b->next >= b->n) {
        error_fail(b->err, ERR_CORRUPT, "the schema lists fewer elements than its groups claim");
        return NULL;
    }
    if (depth > PQ_MAX_SCHEMA_DEPTH) {
        error_fail(b->err, ERR_CORRUPT, "the schema is nested more than %d levels deep",
                   PQ_MAX_SCHEMA_DEPTH);
        return NULL;
    }
    const struct pq_schema_element *e = &b->el[b->next++];
    struct pq_node *node = arena_calloc(b->a, 1, sizeof *node);
    if (!node) {
        error_fail(b->err, ERR_NOMEM, "out of memory");
        return NULL;
    }
    node->el = e;
    node->parent = parent;
    node->leaf_index = -1;
    if (parent) {
        if (!e->has_repetition) {
            error_fail(b->err, ERR_CORRUPT, "schema element '%.100s' has no repetition type",
                       e->name);
            return NULL;
        }
        node->def_level = (int16_t)(parent->def_level + (e->repetition != PQ_REQUIRED));
        node->rep_level = (int16_t)(parent->rep_level + (e->repetition == PQ_REPEATED));
        node->path = join_path(b->a, parent->path, e->name);
    } else {
        node->path = "";
    }
    if (!node->path) {
        error_fail(b->err, ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (depth > b->s->max_depth)
        b->s->max_depth = (int16_t)depth;

    bool group = e->has_num_children || !e->has_type;
    if (!parent && !group) {
        error_fail(b->err, ERR_CORRUPT, "the schema root is not a group");
        return NULL;
    }
    if (!group) {
        if (e->type == PQ_FIXED_LEN_BYTE_ARRAY && e->type_length <= 0) {
            error_fail(b->err, ERR_CORRUPT,
                       "column '%.100s' is FIXED_LEN_BYTE_ARRAY without a length", node->path);
            return NULL;
        }
        node->leaf_index = b->nleaves++;
        node->first_leaf = node->leaf_index;
        node->nleaves = 1;
        return node;
    }
    int32_t nc = e->num_children;
    if (nc < 0 || (size_t)nc > b->n - b->next) {
        error_fail(b->err, ERR_CORRUPT, "schema group '%.100s' claims %d children", node->path,
                   (int)nc);
        return NULL;
    }
    if (nc == 0 && parent) {
        error_fail(b->err, ERR_UNSUPPORTED, "schema group '%.100s' has no fields", node->path);
        return NULL;
    }
    node->children = arena_calloc(b->a, (size_t)(nc ? nc : 1), sizeof *node->children);
    if (!node->children) {
        error_fail(b->err, ERR_NOMEM, "out of memory");
        return NULL;
    }
    node->first_leaf = b->nleaves;
    for (int32_t i = 0; i < nc; i++) {
        node->children[i] = build(b, node, depth + 1);
        if (!node->children[i])
            return NULL;
        node->nchildren++;
    }
    node->nleaves = b->nleaves - node->first_leaf;
    node->by_name = sorted_children(b->a, node->children, nc, cmp_by_name);
    if (!node->by_name) {
        error_fail(b->err, ERR_NOMEM, "out of memory");
        return NULL;
    }
    return node;
}

static struct pq_node *synthetic_element(struct arena *a, const struct pq_node *repeated)
{
    /* A repeated field read as a list of required elements: the element is
     * the same schema element seen once per repetition. */
    struct pq_node *e = arena_alloc(a, sizeof *e);
    if (e)
        *e = *repeated;
    return e;
}

static int classify(struct pq_schema *s, struct arena *a, struct pq_node *x, int16_t slot_rep,
                    int16_t slot_def, bool as_element, struct error *err);

/* Sets up x as a list or map whose repeated node is m and whose element
 * view is elem. */
static int classify_repeated(struct pq_schema *s, struct arena *a, struct pq_node *x,
                             struct pq_node *m, struct pq_node *elem, enum pq_node_kind kind,
                             int16_t null_def, bool nullable, struct error *err)
{
    x->kind = kind;
    x->element = elem;
    x->list_rep = m->rep_level;
    x->elem_def = m->def_level;
    x->null_def = null_def;
    x->arrow_nullable = nullable;
    return classify(s, a, elem, m->rep_level, m->def_level, elem == m || elem->el == m->el, err);
}

/* Parquet's backward-compatibility rules for the element of a LIST whose
 * repeated field is m (LogicalTypes.md): m is itself the element (a
 * two-level list, elements required) when it is a primitive, a group of
 * several fields, a group whose one field is repeated (that field cannot
 * be a three-level list's element), or a group named "array" or
 * "<list>_tuple"; otherwise the element is m's one child. DuckDB 1.x
 * skips the single-field rules and reads the field as the element, so
 * there it loses the group (docs/parquet-robustness.md). */
static int list_element(struct arena *a, const struct pq_schema_element *list, struct pq_node *m,
                        struct pq_node **elem, struct error *err)
{
    *elem = m;
    if (m->leaf_index >= 0 || m->nchildren != 1 || m->children[0]->el->repetition == PQ_REPEATED ||
        strcmp(m->el->name, "array") == 0)
        return 0;
    const char *tuple = arena_sprintf(a, "%s_tuple", list->name);
    if (!tuple)
        return error_fail(err, ERR_NOMEM, "out of memory");
    if (strcmp(m->el->name, tuple) != 0)
        *elem = m->children[0];
    return 0;
}

/* as_element: x is the repeated node itself seen as a list element (or the
 * key_value group of a map): required, present whenever its slot is. */
static int classify(struct pq_schema *s, struct arena *a, struct pq_node *x, int16_t slot_rep,
                    int16_t slot_def, bool as_element, struct error *err)
{
    const struct pq_schema_element *e = x->el;
    x->slot_rep = slot_rep;
    x->slot_def = slot_def;
    if (as_element) {
        x->null_def = slot_def;
        x->arrow_nullable = false;
    } else {
        x->null_def = x->def_level;
        x->arrow_nullable = e->repetition == PQ_OPTIONAL;
    }

    if (!as_element && e->repetition == PQ_REPEATED) {
        /* A repeated field outside a LIST group: a list of required elements
         * that is never null, only empty. */
        struct pq_node *elem = synthetic_element(a, x);
        if (!elem)
            return error_fail(err, ERR_NOMEM, "out of memory");
        return classify_repeated(s, a, x, x, elem, PQN_LIST, (int16_t)(x->def_level - 1), false,
                                 err);
    }
    if (x->leaf_index >= 0) {
        x->kind = PQN_LEAF;
        s->leaves[x->leaf_index] = x;
        return 0;
    }
    /* The repeated group of a two-level list may itself be a LIST: the
     * old list-of-lists layout ("repeated group array (LIST) { repeated
     * int32 array; }"), a list of lists, never a list of structs. */
    bool inner_list = as_element && x->parent && x->parent->kind == PQN_LIST &&
                      x->parent->element == x && e->repetition == PQ_REPEATED;
    if ((!as_element || inner_list) && is_list_annotated(e)) {
        struct pq_node *m = x->nchildren == 1 ? x->children[0] : NULL;
        if (!m || m->el->repetition != PQ_REPEATED)
            return error_fail(err, ERR_UNSUPPORTED,
                              "list '%.100s' does not hold exactly one repeated field", x->path);
        struct pq_node *elem = NULL;
        if (list_element(a, e, m, &elem, err) != 0)
            return -1;
        return classify_repeated(s, a, x, m, elem, PQN_LIST, x->def_level,
                                 !as_element && e->repetition == PQ_OPTIONAL, err);
    }
    if (!as_element && is_map_annotated(e)) {
        struct pq_node *m = x->nchildren == 1 ? x->children[0] : NULL;
        if (!m || m->el->repetition != PQ_REPEATED || m->leaf_index >= 0 || m->nchildren < 1 ||
            m->nchildren > 2)
            return error_fail(err, ERR_UNSUPPORTED,
                              "map '%.100s' does not hold one repeated key/value group", x->path);
        return classify_repeated(s, a, x, m, m, PQN_MAP, x->def_level, e->repetition == PQ_OPTIONAL,
                                 err);
    }
    x->kind = PQN_STRUCT;
    for (int i = 0; i < x->nchildren; i++)
        if (classify(s, a, x->children[i], slot_rep, slot_def, false, err) != 0)
            return -1;
    return 0;
}

static int build_schema(const struct pq_schema_element *el, size_t n, struct arena *a,
                        struct pq_schema *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    out->elements = el;
    out->nelements = n;
    if (n == 0)
        return error_fail(err, ERR_CORRUPT, "the schema is empty");
    struct builder b = {el, n, 0, a, out, 0, err};
    out->root = build(&b, NULL, 0);
    if (!out->root)
        return -1;
    if (b.next != n)
        return error_fail(err, ERR_CORRUPT, "the schema has %zu elements outside its tree",
                          n - b.next);
    out->nleaves = b.nleaves;
    out->leaves = arena_calloc(a, (size_t)(b.nleaves ? b.nleaves : 1), sizeof *out->leaves);
    if (!out->leaves)
        return error_fail(err, ERR_NOMEM, "out of memory");
    struct pq_node **with_id =
        arena_calloc(a, (size_t)(out->root->nchildren ? out->root->nchildren : 1), sizeof *with_id);
    if (!with_id)
        return error_fail(err, ERR_NOMEM, "out of memory");
    for (int i = 0; i < out->root->nchildren; i++)
        if (out->root->children[i]->el->has_field_id)
            with_id[out->ntop_by_id++] = out->root->children[i];
    qsort(with_id, (size_t)out->ntop_by_id, sizeof *with_id, cmp_by_id);
    out->top_by_id = with_id;
    out->root->kind = PQN_STRUCT;
    for (int i = 0; i < out->root->nchildren; i++)
        if (classify(out, a, out->root->children[i], 0, 0, false, err) != 0)
            return -1;
    return 0;
}

int pq_schema_from_file(const struct pq_file_meta *m, struct arena *a, struct pq_schema *out,
                        struct error *err)
{
    return build_schema(m->schema, m->nschema, a, out, err);
}

/* ---- the writer's schema from a catalog table ---- */

struct emitter {
    struct pq_schema_element *el;
    size_t n, cap;
    struct arena *a;
    struct error *err;
};

static struct pq_schema_element *emit(struct emitter *em, const char *name, enum pq_repetition rep)
{
    if (em->n == em->cap) {
        error_fail(em->err, ERR_INVALID, "schema element count miscomputed");
        return NULL;
    }
    struct pq_schema_element *e = &em->el[em->n++];
    memset(e, 0, sizeof *e);
    e->name = name;
    e->has_repetition = true;
    e->repetition = rep;
    return e;
}

static void set_int(struct pq_schema_element *e, enum pq_type phys, int bits, bool is_signed,
                    enum pq_converted ct)
{
    e->has_type = true;
    e->type = phys;
    e->logical.kind = PQ_LT_INTEGER;
    e->logical.bit_width = (int8_t)bits;
    e->logical.is_signed = is_signed;
    e->has_converted = true;
    e->converted = ct;
}

static void set_decimal(struct pq_schema_element *e, const struct lake_column *c)
{
    e->logical.kind = PQ_LT_DECIMAL;
    e->logical.precision = c->precision;
    e->logical.scale = c->scale;
    e->has_converted = true;
    e->converted = PQ_CT_DECIMAL;
    e->has_decimal = true;
    e->precision = c->precision;
    e->scale = c->scale;
}

/* A shredded Variant decimal4/decimal8 leaf (parquet/variant_layout.h) is
 * an int or long storage column with a precision: its unscaled INT32 or
 * INT64 is stamped DECIMAL(p, s). Catalog columns of those types have
 * none. */
static int set_int_decimal(struct pq_schema_element *e, const struct lake_column *c)
{
    if (c->precision > 0 && c->field_id <= 0)
        set_decimal(e, c);
    return 0;
}

static void set_time(struct pq_schema_element *e, enum pq_logical_kind kind, enum pq_time_unit unit,
                     bool utc)
{
    e->has_type = true;
    e->type = PQ_INT64;
    e->logical.kind = kind;
    e->logical.unit = unit;
    e->logical.utc = utc;
    /* The legacy converted types mean "adjusted to UTC"; a local time or
     * timestamp must not carry one. */
    if (kind == PQ_LT_TIMESTAMP && utc) {
        e->has_converted = true;
        e->converted = unit == PQ_MILLIS ? PQ_CT_TIMESTAMP_MILLIS : PQ_CT_TIMESTAMP_MICROS;
    }
}

static size_t count_elements(const struct lake_column *c)
{
    size_t n = 1 + (c->type == LT_LIST || c->type == LT_MAP);
    for (size_t i = 0; i < c->nchildren; i++)
        n += count_elements(c->children[i]);
    return n;
}

static int emit_column(struct emitter *em, const struct lake_column *c, const char *name,
                       enum pq_repetition rep)
{
    struct pq_schema_element *e = emit(em, name, rep);
    if (!e)
        return -1;
    /* A variant's storage fields (metadata, value, typed_value and below)
     * are the encoding's, not the table's: they carry no field id. */
    e->has_field_id = c->field_id > 0;
    e->field_id = (int32_t)c->field_id;
    switch (c->type) {
    case LT_BOOLEAN:
        e->has_type = true;
        e->type = PQ_BOOLEAN;
        return 0;
    case LT_INT8: set_int(e, PQ_INT32, 8, true, PQ_CT_INT_8); return 0;
    case LT_INT16: set_int(e, PQ_INT32, 16, true, PQ_CT_INT_16); return 0;
    case LT_UINT8: set_int(e, PQ_INT32, 8, false, PQ_CT_UINT_8); return 0;
    case LT_UINT16: set_int(e, PQ_INT32, 16, false, PQ_CT_UINT_16); return 0;
    case LT_UINT64: set_int(e, PQ_INT64, 64, false, PQ_CT_UINT_64); return 0;
    case LT_INT:
        e->has_type = true;
        e->type = PQ_INT32;
        return set_int_decimal(e, c);
    case LT_LONG:
    case LT_UINT32: /* INT64: Iceberg readers take an unsigned INT32 as signed */
        e->has_type = true;
        e->type = PQ_INT64;
        return set_int_decimal(e, c);
    case LT_FLOAT:
        e->has_type = true;
        e->type = PQ_FLOAT;
        return 0;
    case LT_DOUBLE:
        e->has_type = true;
        e->type = PQ_DOUBLE;
        return 0;
    case LT_DECIMAL:
        e->has_type = true;
        e->type = PQ_FIXED_LEN_BYTE_ARRAY;
        e->type_length = pq_decimal_bytes(c->precision);
        set_decimal(e, c);
        return 0;
    case LT_DATE:
        e->has_type = true;
        e->type = PQ_INT32;
        e->logical.kind = PQ_LT_DATE;
        e->has_converted = true;
        e->converted = PQ_CT_DATE;
        return 0;
    /* A time of day, not an instant: local, as Iceberg's Parquet mapping
     * has it (pyarrow marks it UTC-adjusted, which DuckDB then reads as
     * TIME WITH TIME ZONE). */
    case LT_TIME: set_time(e, PQ_LT_TIME, PQ_MICROS, false); return 0;
    case LT_TIMESTAMP_S: /* Parquet has no seconds: written as millis */
    case LT_TIMESTAMP_MS: set_time(e, PQ_LT_TIMESTAMP, PQ_MILLIS, false); return 0;
    case LT_TIMESTAMP: set_time(e, PQ_LT_TIMESTAMP, PQ_MICROS, false); return 0;
    case LT_TIMESTAMP_NS: set_time(e, PQ_LT_TIMESTAMP, PQ_NANOS, c->instant); return 0;
    case LT_TIMESTAMPTZ: set_time(e, PQ_LT_TIMESTAMP, PQ_MICROS, true); return 0;
    case LT_STRING:
        e->has_type = true;
        e->type = PQ_BYTE_ARRAY;
        e->logical.kind = PQ_LT_STRING;
        e->has_converted = true;
        e->converted = PQ_CT_UTF8;
        return 0;
    case LT_JSON:
        e->has_type = true;
        e->type = PQ_BYTE_ARRAY;
        e->logical.kind = PQ_LT_JSON;
        e->has_converted = true;
        e->converted = PQ_CT_JSON;
        return 0;
    case LT_UUID:
        e->has_type = true;
        e->type = PQ_FIXED_LEN_BYTE_ARRAY;
        e->type_length = 16;
        e->logical.kind = PQ_LT_UUID;
        return 0;
    case LT_BINARY:
        e->has_type = true;
        e->type = PQ_BYTE_ARRAY;
        return 0;
    case LT_STRUCT:
        e->has_num_children = true;
        e->num_children = (int32_t)c->nchildren;
        for (size_t i = 0; i < c->nchildren; i++) {
            const struct lake_column *k = c->children[i];
            if (emit_column(em, k, k->name, k->nullable ? PQ_OPTIONAL : PQ_REQUIRED) != 0)
                return -1;
        }
        return 0;
    case LT_LIST: {
        e->has_num_children = true;
        e->num_children = 1;
        e->logical.kind = PQ_LT_LIST;
        e->has_converted = true;
        e->converted = PQ_CT_LIST;
        struct pq_schema_element *m = emit(em, "list", PQ_REPEATED);
        if (!m)
            return -1;
        m->has_num_children = true;
        m->num_children = 1;
        const struct lake_column *el = c->children[0];
        return emit_column(em, el, "element", el->nullable ? PQ_OPTIONAL : PQ_REQUIRED);
    }
    case LT_MAP: {
        e->has_num_children = true;
        e->num_children = 1;
        e->logical.kind = PQ_LT_MAP;
        e->has_converted = true;
        e->converted = PQ_CT_MAP;
        struct pq_schema_element *m = emit(em, "key_value", PQ_REPEATED);
        if (!m)
            return -1;
        m->has_num_children = true;
        m->num_children = 2;
        const struct lake_column *v = c->children[1];
        if (emit_column(em, c->children[0], "key", PQ_REQUIRED) != 0)
            return -1;
        return emit_column(em, v, "value", v->nullable ? PQ_OPTIONAL : PQ_REQUIRED);
    }
    case LT_VARIANT:
        /* The group of its storage fields (parquet/variant_layout.h). */
        if (c->nchildren == 0)
            return error_fail(em->err, ERR_INVALID, "variant column '%s' has no storage layout",
                              c->name);
        e->has_num_children = true;
        e->num_children = (int32_t)c->nchildren;
        e->logical.kind = PQ_LT_VARIANT;
        e->logical.variant_version = 1;
        for (size_t i = 0; i < c->nchildren; i++) {
            const struct lake_column *k = c->children[i];
            if (emit_column(em, k, k->name, k->nullable ? PQ_OPTIONAL : PQ_REQUIRED) != 0)
                return -1;
        }
        return 0;
    case LT__COUNT: break;
    }
    return error_fail(em->err, ERR_INVALID, "column '%s' has an unknown type", c->name);
}

int pq_schema_from_table(const struct lake_table *t, struct arena *a, struct pq_schema *out,
                         struct error *err)
{
    size_t n = 1;
    for (size_t i = 0; i < t->root.nchildren; i++)
        n += count_elements(t->root.children[i]);
    struct emitter em = {arena_calloc(a, n, sizeof *em.el), 0, n, a, err};
    if (!em.el)
        return error_fail(err, ERR_NOMEM, "out of memory");
    struct pq_schema_element *root = emit(&em, "schema", PQ_REQUIRED);
    root->has_repetition = false;
    root->has_num_children = true;
    root->num_children = (int32_t)t->root.nchildren;
    for (size_t i = 0; i < t->root.nchildren; i++) {
        const struct lake_column *c = t->root.children[i];
        if (emit_column(&em, c, c->name, c->nullable ? PQ_OPTIONAL : PQ_REQUIRED) != 0)
            return -1;
    }
    return build_schema(em.el, em.n, a, out, err);
}

bool pq_node_is_path(const struct pq_node *node, const char *const *path, size_t npath)
{
    size_t i = npath;
    for (const struct pq_node *n = node; n->parent; n = n->parent) {
        if (i == 0 || !path[i - 1] || strcmp(path[i - 1], n->el->name) != 0)
            return false;
        i--;
    }
    return i == 0;
}

struct pq_node *pq_node_child_named(const struct pq_node *node, const char *name)
{
    if (!node)
        return NULL;
    size_t n = (size_t)node->nchildren;
    size_t at = LOWER_BOUND(n, i, strcmp(node->by_name[i]->el->name, name) < 0);
    return at < n && strcmp(node->by_name[at]->el->name, name) == 0 ? node->by_name[at] : NULL;
}

struct pq_node *pq_schema_find_top(const struct pq_schema *s, const char *name)
{
    return pq_node_child_named(s->root, name);
}

struct pq_node *pq_schema_find_top_by_id(const struct pq_schema *s, int32_t field_id)
{
    size_t n = (size_t)s->ntop_by_id;
    size_t at = LOWER_BOUND(n, i, s->top_by_id[i]->el->field_id < field_id);
    return at < n && s->top_by_id[at]->el->field_id == field_id ? s->top_by_id[at] : NULL;
}
