#include "lake/schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lake/ident.h"
#include "lake/partition.h"
#include "lake/shredding.h"
#include "util/jsonx.h"
#include "util/strutil.h"

static int nomem(struct error *err)
{
    return error_fail(err, ERR_NOMEM, "out of memory");
}

void lake_table_init(struct lake_table *t, struct arena *arena)
{
    memset(t, 0, sizeof *t);
    t->arena = arena;
    t->root.type = LT_STRUCT;
    t->root.name = "";
    t->next_field_id = 1;
}

void lake_table_release(struct lake_table *t)
{
    json_decref(t->properties);
    t->properties = NULL;
}

/* ---- tree helpers ---- */

static int attach_child(struct lake_table *t, struct lake_column *parent, struct lake_column *c,
                        struct error *err)
{
    if (parent->nchildren == parent->children_cap) {
        size_t cap = parent->children_cap ? parent->children_cap * 2 : 4;
        struct lake_column **grown = arena_alloc(t->arena, cap * sizeof *grown);
        if (!grown)
            return nomem(err);
        if (parent->nchildren)
            memcpy(grown, parent->children, parent->nchildren * sizeof *grown);
        parent->children = grown;
        parent->children_cap = cap;
    }
    parent->children[parent->nchildren++] = c;
    c->parent = parent == &t->root ? NULL : parent;
    return 0;
}

static struct lake_column *parent_of(struct lake_table *t, struct lake_column *c)
{
    return c->parent ? c->parent : &t->root;
}

static void detach_child(struct lake_table *t, struct lake_column *c)
{
    struct lake_column *p = parent_of(t, c);
    for (size_t i = 0; i < p->nchildren; i++) {
        if (p->children[i] == c) {
            memmove(&p->children[i], &p->children[i + 1],
                    (p->nchildren - i - 1) * sizeof p->children[0]);
            p->nchildren--;
            return;
        }
    }
}

static size_t depth_of(const struct lake_column *c)
{
    size_t d = 0;
    for (; c; c = c->parent)
        d++;
    return d;
}

static size_t subtree_size(const struct lake_column *c)
{
    size_t n = 1;
    for (size_t i = 0; i < c->nchildren; i++)
        n += subtree_size(c->children[i]);
    return n;
}

void lake_column_path(const struct lake_column *c, char *out, size_t out_size)
{
    const struct lake_column *chain[LAKE_MAX_DEPTH + 8];
    size_t n = 0;
    for (; c && n < sizeof chain / sizeof chain[0]; c = c->parent)
        chain[n++] = c;
    size_t len = 0;
    out[0] = '\0';
    while (n-- > 0) {
        int w = snprintf(out + len, out_size - len, "%s%s", len ? "." : "", chain[n]->name);
        if (w < 0 || (size_t)w >= out_size - len)
            return;
        len += (size_t)w;
    }
}

static void walk(struct lake_column *c, lake_column_visit_fn fn, void *ctx)
{
    fn(c, ctx);
    for (size_t i = 0; i < c->nchildren; i++)
        walk(c->children[i], fn, ctx);
}

void lake_table_walk(struct lake_table *t, lake_column_visit_fn fn, void *ctx)
{
    for (size_t i = 0; i < t->root.nchildren; i++)
        walk(t->root.children[i], fn, ctx);
}

static struct lake_column *find_field_in(struct lake_column *c, int64_t field_id)
{
    if (c->field_id == field_id)
        return c;
    for (size_t i = 0; i < c->nchildren; i++) {
        struct lake_column *hit = find_field_in(c->children[i], field_id);
        if (hit)
            return hit;
    }
    return NULL;
}

struct lake_column *lake_table_find_field(const struct lake_table *t, int64_t field_id)
{
    if (field_id <= 0)
        return NULL;
    for (size_t i = 0; i < t->root.nchildren; i++) {
        struct lake_column *hit = find_field_in(t->root.children[i], field_id);
        if (hit)
            return hit;
    }
    return NULL;
}

static struct lake_column *child_named(const struct lake_column *parent, const char *name,
                                       const struct lake_column *except)
{
    for (size_t i = 0; i < parent->nchildren; i++) {
        struct lake_column *c = parent->children[i];
        if (c != except && strcasecmp(c->name, name) == 0)
            return c;
    }
    return NULL;
}

static int next_ordinal(const struct lake_column *parent)
{
    int max = -1;
    for (size_t i = 0; i < parent->nchildren; i++)
        if (parent->children[i]->ordinal > max)
            max = parent->children[i]->ordinal;
    return max + 1;
}

/* ---- building columns from client JSON ---- */

/* Counts nodes and depth of a ColumnDef list without trusting its shape;
 * stops counting past the caps so a hostile body costs little. */
static void measure(const json_t *defs, size_t depth, size_t *nodes, size_t *max_depth)
{
    if (!json_is_array(defs))
        return;
    size_t i;
    const json_t *d;
    json_array_foreach (defs, i, d) {
        if (*nodes > LAKE_MAX_NODES || *max_depth > LAKE_MAX_DEPTH + 2)
            return;
        (*nodes)++;
        if (depth > *max_depth)
            *max_depth = depth;
        if (json_is_object(d))
            measure(json_object_get(d, "children"), depth + 1, nodes, max_depth);
    }
}

static int parse_decimal_params(const json_t *params, const char *path, int *precision, int *scale,
                                struct error *err)
{
    json_t *p = NULL, *s = NULL;
    const struct jfield fields[] = {
        {"precision", JF_ANY, false, false, &p},
        {"scale", JF_ANY, false, false, &s},
    };
    if (jsonx_read_object(params, "type_params", fields, 2, err) != 0)
        return error_prefix(err, "decimal column '%s'", path);
    json_int_t pv = LAKE_DECIMAL_MAX_PRECISION, sv = 0;
    if (p) {
        if (!json_is_integer(p))
            return error_fail(err, ERR_MALFORMED,
                              "decimal column '%s' has a non-integer 'precision'", path);
        pv = json_integer_value(p);
    }
    if (s) {
        if (!json_is_integer(s))
            return error_fail(err, ERR_MALFORMED, "decimal column '%s' has a non-integer 'scale'",
                              path);
        sv = json_integer_value(s);
    }
    if (pv < 1 || pv > LAKE_DECIMAL_MAX_PRECISION)
        return error_fail(err, ERR_INVALID, "decimal column '%s' has precision %lld, outside 1..38",
                          path, (long long)pv);
    if (sv < 0)
        return error_fail(err, ERR_INVALID, "decimal column '%s' has a negative scale %lld", path,
                          (long long)sv);
    if (sv > pv)
        return error_fail(err, ERR_INVALID,
                          "decimal column '%s' has scale %lld above its precision %lld", path,
                          (long long)sv, (long long)pv);
    *precision = (int)pv;
    *scale = (int)sv;
    return 0;
}

/* A declaration as the column keeps it: compact JSON text in the arena. */
static int keep_shredding(struct lake_table *t, struct lake_column *c, const json_t *decl,
                          struct error *err)
{
    char *text = json_dumps(decl, JSON_COMPACT | JSON_ENCODE_ANY);
    c->shredding = text ? arena_strdup(t->arena, text) : NULL;
    free(text);
    return c->shredding ? 0 : nomem(err);
}

static int check_shredding(const json_t *decl, const char *path, struct error *err)
{
    if (lake_shredding_check(decl, err) == 0)
        return 0;
    if (err && err->code == ERR_INVALID)
        error_prefix(err, "variant column '%s' has an invalid type_params.shredding", path);
    return -1;
}

/* A variant column's type_params: {"shredding": declaration or null}, the
 * declaration only on a top-level column. */
static int parse_variant_params(struct lake_table *t, struct lake_column *c, const json_t *params,
                                const char *path, bool nested, struct error *err)
{
    json_t *decl = NULL;
    const struct jfield fields[] = {{"shredding", JF_ANY, false, true, &decl}};
    if (jsonx_read_object(params, "type_params", fields, 1, err) != 0)
        return error_prefix(err, "variant column '%s'", path);
    if (!decl || json_is_null(decl))
        return 0;
    if (nested)
        return error_fail(err, ERR_INVALID,
                          "variant column '%s' is nested in a struct, list or map: only a "
                          "top-level variant column declares type_params.shredding",
                          path);
    if (check_shredding(decl, path, err) != 0)
        return -1;
    return keep_shredding(t, c, decl, err);
}

static int check_column_name(const char *name, const char *path, struct error *err)
{
    char shown[80];
    lake_ident_shown(name, shown, sizeof shown);
    if (!lake_ident_valid(name))
        return error_fail(err, ERR_INVALID, "invalid column name '%s' (must match %s)", shown,
                          LAKE_IDENT_PATTERN);
    if (lake_ident_reserved(name))
        return error_fail(
            err, ERR_INVALID,
            "column name '%s' uses the reserved prefix '_hog': names starting with it "
            "belong to hoglake's own physical columns (compaction's _hog_row_id)",
            path);
    return 0;
}

/* Whether a JSON string holds a NUL (which C strings and PostgreSQL text
 * cannot carry). */
static bool has_nul(const json_t *s)
{
    return strlen(json_string_value(s)) != json_string_length(s);
}

static int check_comment(const json_t *comment, struct error *err)
{
    if (comment && json_is_string(comment) &&
        (has_nul(comment) || str_utf8_length(json_string_value(comment)) > LAKE_COMMENT_MAX))
        return error_fail(err, ERR_INVALID, "comment must contain at most %d characters and no NUL",
                          LAKE_COMMENT_MAX);
    return 0;
}

/* Whether a struct's children are exactly those of a VARIANT group as a
 * Parquet reader hands it out (metadata, value, optionally typed_value):
 * such a column was meant to be a variant, and as a struct it would hold
 * bytes no engine reads as one. */
static bool shaped_as_variant_storage(const struct lake_column *c)
{
    if (c->nchildren != 2 && c->nchildren != 3)
        return false;
    const struct lake_column *m = c->children[0], *v = c->children[1];
    return strcmp(m->name, "metadata") == 0 && m->type == LT_BINARY && !m->nullable &&
           strcmp(v->name, "value") == 0 && v->type == LT_BINARY &&
           (c->nchildren == 2 || strcmp(c->children[2]->name, "typed_value") == 0);
}

/* Parses one ColumnDef into a new node under `parent` (not yet attached).
 * `path` is the parent's dotted path ("" at top level). `synthetic` names
 * the child a list/map requires ("element", "key", "value"), or NULL. */
static struct lake_column *parse_column(struct lake_table *t, const json_t *def,
                                        const char *parent_path, const char *where,
                                        const char *synthetic, size_t index, struct error *err)
{
    json_t *jname, *jtype, *jparams, *jnullable, *jchildren, *jcomment;
    const struct jfield fields[] = {
        {"name", JF_STRING, true, false, &jname},
        {"type", JF_STRING, true, false, &jtype},
        {"type_params", JF_OBJECT, false, true, &jparams},
        {"nullable", JF_BOOL, false, false, &jnullable},
        {"children", JF_ARRAY, false, true, &jchildren},
        {"comment", JF_STRING, false, true, &jcomment},
    };
    if (jsonx_read_object(def, where, fields, sizeof fields / sizeof fields[0], err) != 0)
        return NULL;
    if (jparams && json_is_null(jparams))
        jparams = NULL;
    if (jchildren && json_is_null(jchildren))
        jchildren = NULL;
    if (jcomment && json_is_null(jcomment))
        jcomment = NULL;

    const char *name = json_string_value(jname);
    char path[1200];
    snprintf(path, sizeof path, "%s%s%s", parent_path, parent_path[0] ? "." : "", name);

    if (synthetic) {
        if (strcmp(name, synthetic) != 0) {
            char shown[80];
            lake_ident_shown(name, shown, sizeof shown);
            error_fail(
                err, ERR_INVALID,
                "child %zu of %s column '%s' must be named '%s' (Iceberg's synthetic name), not "
                "'%s'",
                index, strcmp(synthetic, "element") == 0 ? "list" : "map", parent_path, synthetic,
                shown);
            return NULL;
        }
    } else if (check_column_name(name, path, err) != 0) {
        return NULL;
    }

    enum lake_type type;
    const char *reason = NULL;
    const char *tname = json_string_value(jtype);
    char tshown[80];
    lake_ident_shown(tname, tshown, sizeof tshown);
    switch (lake_type_lookup(tname, &type, &reason)) {
    case LAKE_TYPE_OK: break;
    case LAKE_TYPE_REFUSED:
        error_fail(err, ERR_INVALID, "type '%s' %s", tshown, reason);
        return NULL;
    case LAKE_TYPE_UNKNOWN:
        error_fail(err, ERR_INVALID, "unknown column type '%s' for column '%s'", tshown, path);
        return NULL;
    }

    if (check_comment(jcomment, err) != 0)
        return NULL;

    struct lake_column *c = arena_calloc(t->arena, 1, sizeof *c);
    if (!c) {
        nomem(err);
        return NULL;
    }
    c->name = arena_strdup(t->arena, name);
    c->comment = jcomment ? arena_strdup(t->arena, json_string_value(jcomment)) : NULL;
    if (!c->name || (jcomment && !c->comment)) {
        nomem(err);
        return NULL;
    }
    c->type = type;
    c->nullable = jnullable ? json_is_true(jnullable) : true;
    c->field_id = t->next_field_id++;

    bool container = lake_type_is_container(type);
    if (container && jparams) {
        error_fail(err, ERR_INVALID,
                   "column '%s' is '%s', a nested container, and cannot have type_params: a "
                   "container's shape is its children, not its parameters",
                   path, lake_type_name(type));
        return NULL;
    }
    if (!container && jchildren) {
        error_fail(err, ERR_INVALID, "column '%s' is '%s', a scalar type, and cannot have children",
                   path, lake_type_name(type));
        return NULL;
    }
    if (type == LT_DECIMAL) {
        c->precision = LAKE_DECIMAL_MAX_PRECISION;
        if (jparams && parse_decimal_params(jparams, path, &c->precision, &c->scale, err) != 0)
            return NULL;
    } else if (type == LT_VARIANT && jparams) {
        if (parse_variant_params(t, c, jparams, path, parent_path[0] != '\0', err) != 0)
            return NULL;
    } else if (jparams) {
        error_fail(err, ERR_INVALID, "column '%s' of type '%s' takes no type_params", path,
                   lake_type_name(type));
        return NULL;
    }

    if (!container)
        return c;

    size_t n = jchildren ? json_array_size(jchildren) : 0;
    if (type == LT_LIST && n != 1) {
        error_fail(err, ERR_INVALID,
                   "list column '%s' requires exactly one child (its 'element'); got %zu", path, n);
        return NULL;
    }
    if (type == LT_MAP && n != 2) {
        error_fail(err, ERR_INVALID,
                   "map column '%s' requires exactly two children ('key' then 'value'); got %zu",
                   path, n);
        return NULL;
    }
    if (type == LT_STRUCT && n == 0) {
        error_fail(err, ERR_INVALID, "struct column '%s' requires at least one child field", path);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const char *syn = NULL;
        if (type == LT_LIST)
            syn = "element";
        else if (type == LT_MAP)
            syn = i == 0 ? "key" : "value";
        char child_where[1300];
        snprintf(child_where, sizeof child_where, "%s.children[%zu]", where, i);
        struct lake_column *child =
            parse_column(t, json_array_get(jchildren, i), path, child_where, syn, i, err);
        if (!child)
            return NULL;
        if (type == LT_STRUCT && child_named(c, child->name, NULL)) {
            error_fail(err, ERR_INVALID, "duplicate column names in '%s': '%s'", path, child->name);
            return NULL;
        }
        if (type == LT_MAP && i == 0 && child->nullable) {
            error_fail(
                err, ERR_INVALID,
                "the key of map column '%s' must be required (nullable=false): Iceberg map keys "
                "are non-nullable",
                path);
            return NULL;
        }
        child->ordinal = (int)i;
        if (attach_child(t, c, child, err) != 0)
            return NULL;
        child->parent = c;
    }
    if (type == LT_STRUCT && shaped_as_variant_storage(c)) {
        error_fail(err, ERR_INVALID,
                   "struct column '%s' is shaped as VARIANT storage (metadata binary not null, "
                   "value binary[, typed_value]): declare it as type 'variant', with "
                   "type_params.shredding for a shredded layout",
                   path);
        return NULL;
    }
    return c;
}

/* Parses `defs` (an array of ColumnDef) and attaches the results under
 * `parent`, after the caps on nodes and depth are checked. */
static int add_columns_under(struct lake_table *t, struct lake_column *parent, const json_t *defs,
                             const char *where, bool single, struct error *err)
{
    size_t nodes = 0, max_depth = 0;
    size_t base_depth = parent == &t->root ? 0 : depth_of(parent);
    measure(defs, base_depth + 1, &nodes, &max_depth);
    if (t->node_count + nodes > LAKE_MAX_NODES)
        return error_fail(
            err, ERR_INVALID, "too many columns: %zu%s nested column nodes exceeds the maximum %d",
            t->node_count + nodes, nodes > LAKE_MAX_NODES ? " or more" : "", LAKE_MAX_NODES);
    if (max_depth > LAKE_MAX_DEPTH)
        return error_fail(
            err, ERR_INVALID,
            "column nesting depth %zu%s exceeds the maximum %d (a top-level column is "
            "depth 1)",
            max_depth, max_depth > LAKE_MAX_DEPTH + 1 ? " or more" : "", LAKE_MAX_DEPTH);

    char parent_path[1200] = "";
    if (parent != &t->root)
        lake_column_path(parent, parent_path, sizeof parent_path);
    size_t i;
    const json_t *def;
    json_array_foreach (defs, i, def) {
        /* A single added column is addressed as "column", a create's list
         * as "columns[i]". */
        char item_where[64];
        if (single)
            snprintf(item_where, sizeof item_where, "%s", where);
        else
            snprintf(item_where, sizeof item_where, "%s[%zu]", where, i);
        struct lake_column *c = parse_column(t, def, parent_path, item_where, NULL, i, err);
        if (!c)
            return -1;
        if (child_named(parent, c->name, NULL)) {
            if (parent == &t->root)
                return error_fail(err, ERR_INVALID, "column '%s' already exists", c->name);
            return error_fail(err, ERR_INVALID, "column '%s' of struct '%s' already exists",
                              c->name, parent_path);
        }
        c->ordinal = next_ordinal(parent);
        if (attach_child(t, parent, c, err) != 0)
            return -1;
    }
    t->node_count += nodes;
    return 0;
}

int lake_table_add_columns(struct lake_table *t, const json_t *columns, struct error *err)
{
    err->code = ERR_OK;
    if (!json_is_array(columns))
        return error_fail(err, ERR_MALFORMED, "field 'columns' must be an array");
    if (json_array_size(columns) == 0)
        return error_fail(err, ERR_INVALID, "a table must have at least one column");
    return add_columns_under(t, &t->root, columns, "columns", false, err);
}

/* ---- loading stored rows ---- */

int lake_table_load_column(struct lake_table *t, int64_t field_id, int64_t parent_field_id,
                           const char *name, enum lake_type type, int precision, int scale,
                           bool nullable, int ordinal, const char *comment, struct error *err)
{
    struct lake_column *parent = &t->root;
    if (parent_field_id > 0) {
        parent = lake_table_find_field(t, parent_field_id);
        if (!parent)
            return error_fail(err, ERR_INVALID, "stored column %lld has no live parent %lld",
                              (long long)field_id, (long long)parent_field_id);
    }
    struct lake_column *c = arena_calloc(t->arena, 1, sizeof *c);
    if (!c)
        return nomem(err);
    c->field_id = field_id;
    c->name = arena_strdup(t->arena, name);
    c->comment = comment ? arena_strdup(t->arena, comment) : NULL;
    if (!c->name || (comment && !c->comment))
        return nomem(err);
    c->type = type;
    c->precision = precision;
    c->scale = scale;
    c->nullable = nullable;
    c->ordinal = ordinal;
    c->stored = true;
    /* Keep siblings in ordinal order so output and Parquet order agree. */
    if (attach_child(t, parent, c, err) != 0)
        return -1;
    for (size_t i = parent->nchildren - 1; i > 0; i--) {
        if (parent->children[i - 1]->ordinal <= parent->children[i]->ordinal)
            break;
        struct lake_column *tmp = parent->children[i - 1];
        parent->children[i - 1] = parent->children[i];
        parent->children[i] = tmp;
    }
    t->node_count++;
    if (field_id >= t->next_field_id)
        t->next_field_id = field_id + 1;
    return 0;
}

static int grow_array(struct lake_table *t, void **items, size_t n, size_t elem, struct error *err)
{
    /* Arena arrays grow by copying into a fresh block; specs are tiny. */
    void *grown = arena_alloc(t->arena, (n + 1) * elem);
    if (!grown)
        return nomem(err);
    if (n)
        memcpy(grown, *items, n * elem);
    *items = grown;
    return 0;
}

int lake_table_load_partition_field(struct lake_table *t, const struct lake_partition_field *f,
                                    struct error *err)
{
    if (grow_array(t, (void **)&t->spec_fields, t->nspec_fields, sizeof *f, err) != 0)
        return -1;
    t->spec_fields[t->nspec_fields++] = *f;
    t->partitioned = true;
    return 0;
}

int lake_table_load_sort_field(struct lake_table *t, const struct lake_sort_field *f,
                               struct error *err)
{
    if (grow_array(t, (void **)&t->sort_fields, t->nsort_fields, sizeof *f, err) != 0)
        return -1;
    t->sort_fields[t->nsort_fields++] = *f;
    t->sorted = true;
    return 0;
}

int lake_table_load_primary_ts(struct lake_table *t, int64_t field_id, struct error *err)
{
    const struct lake_column *c = lake_table_find_field(t, field_id);
    if (!c || c->parent || !lake_type_is_temporal(c->type))
        return error_fail(err, ERR_INVALID,
                          "stored primary timestamp field_id %lld is not a live top-level date or "
                          "timestamp column",
                          (long long)field_id);
    t->primary_ts_field_id = field_id;
    return 0;
}

/* ---- paths ---- */

/* The child of list or map `c` that segment [seg, seg+len) names by its
 * fixed name ("element"; "key" or "value"), or NULL. */
static struct lake_column *internal_child(struct lake_column *c, const char *seg, size_t len)
{
    static const char *const list_names[] = {"element"}, *const map_names[] = {"key", "value"};
    const char *const *names = c->type == LT_LIST ? list_names : map_names;
    size_t n = c->type == LT_LIST ? 1 : c->type == LT_MAP ? 2 : 0;
    for (size_t i = 0; i < n && i < c->nchildren; i++)
        if (strlen(names[i]) == len && memcmp(names[i], seg, len) == 0)
            return c->children[i];
    return NULL;
}

/* One path step below a non-struct `cur` (shown as `prefix`). */
static struct lake_column *step_into_container(struct lake_column *cur, const char *seg, size_t len,
                                               bool internals, const char *shown,
                                               const char *prefix, struct error *err)
{
    struct lake_column *next = internals ? internal_child(cur, seg, len) : NULL;
    if (next)
        return next;
    if (internals && (cur->type == LT_LIST || cur->type == LT_MAP))
        error_fail(err, ERR_INVALID, "cannot address '%s': '%s' is a '%s', whose children are %s",
                   shown, prefix, lake_type_name(cur->type),
                   cur->type == LT_LIST ? "'element'" : "'key' and 'value'");
    else if (cur->type == LT_LIST || cur->type == LT_MAP)
        error_fail(err, ERR_INVALID,
                   "cannot address '%s': '%s' is a '%s', and list/map internals (element, key, "
                   "value) cannot be added, dropped or renamed; only struct fields can",
                   shown, prefix, lake_type_name(cur->type));
    else
        error_fail(err, ERR_INVALID, "cannot address '%s': '%s' is '%s', not a struct", shown,
                   prefix, lake_type_name(cur->type));
    return NULL;
}

/* One path step below the root or a struct `cur` (shown as `prefix`). */
static struct lake_column *step_into_struct(struct lake_table *t, struct lake_column *cur,
                                            const char *seg, size_t len, const char *shown,
                                            const char *prefix, struct error *err)
{
    char name[130];
    if (len >= sizeof name) {
        error_fail(err, ERR_INVALID, "column '%s' does not exist", shown);
        return NULL;
    }
    memcpy(name, seg, len);
    name[len] = '\0';
    for (size_t i = 0; i < cur->nchildren; i++)
        if (strcmp(cur->children[i]->name, name) == 0)
            return cur->children[i];
    if (cur == &t->root)
        error_fail(err, ERR_INVALID, "column '%s' does not exist", shown);
    else
        error_fail(err, ERR_INVALID, "column '%s' does not exist: struct '%s' has no field '%s'",
                   shown, prefix, name);
    return NULL;
}

/* `internals`: whether the path may step into a list's element or a map's
 * key or value (only ops that change a node in place, never its shape). */
static struct lake_column *find_path_in(struct lake_table *t, const char *path, bool internals,
                                        struct error *err)
{
    char shown[160];
    snprintf(shown, sizeof shown, "%.150s", path);
    if (!*path || strlen(path) > 1200) {
        error_fail(err, ERR_INVALID,
                   "invalid column path '%s': a path is dot-separated column names, none empty",
                   shown);
        return NULL;
    }
    struct lake_column *cur = &t->root;
    const char *seg = path;
    char prefix[1300] = "";
    for (;;) {
        const char *dot = strchr(seg, '.');
        size_t len = dot ? (size_t)(dot - seg) : strlen(seg);
        if (len == 0) {
            error_fail(err, ERR_INVALID,
                       "invalid column path '%s': a path is dot-separated column names, none empty",
                       shown);
            return NULL;
        }
        struct lake_column *next =
            cur != &t->root && cur->type != LT_STRUCT
                ? step_into_container(cur, seg, len, internals, shown, prefix, err)
                : step_into_struct(t, cur, seg, len, shown, prefix, err);
        if (!next)
            return NULL;
        size_t plen = strlen(prefix);
        snprintf(prefix + plen, sizeof prefix - plen, "%s%s", plen ? "." : "", next->name);
        cur = next;
        if (!dot)
            return cur;
        seg = dot + 1;
    }
}

struct lake_column *lake_table_find_path(struct lake_table *t, const char *path, struct error *err)
{
    return find_path_in(t, path, false, err);
}

/* ---- alter ops ---- */

static int record_ended(struct lake_table *t, int64_t field_id, struct error *err)
{
    if (t->nended == t->ended_cap) {
        size_t cap = t->ended_cap ? t->ended_cap * 2 : 16;
        int64_t *grown = arena_alloc(t->arena, cap * sizeof *grown);
        if (!grown)
            return nomem(err);
        if (t->nended)
            memcpy(grown, t->ended_field_ids, t->nended * sizeof *grown);
        t->ended_field_ids = grown;
        t->ended_cap = cap;
    }
    t->ended_field_ids[t->nended++] = field_id;
    return 0;
}

static int end_subtree(struct lake_table *t, struct lake_column *c, struct error *err)
{
    if (c->stored && record_ended(t, c->field_id, err) != 0)
        return -1;
    for (size_t i = 0; i < c->nchildren; i++)
        if (end_subtree(t, c->children[i], err) != 0)
            return -1;
    return 0;
}

static bool subtree_has_field(const struct lake_column *c, int64_t field_id)
{
    if (c->field_id == field_id)
        return true;
    for (size_t i = 0; i < c->nchildren; i++)
        if (subtree_has_field(c->children[i], field_id))
            return true;
    return false;
}

static int check_no_idless_files(const struct lake_table *t, const char *what, struct error *err)
{
    if (t->idless_files == 0 && t->pending_files == 0)
        return 0;
    return error_fail_reason(
        err, ERR_CONFLICT, "idless_files_present",
        "%s: %lld id-less and/or %lld not-yet-hydrated (id state unknown until the "
        "footer is read) live data file(s) may bind columns by name; hydrate, rewrite, "
        "or retire them first",
        what, (long long)t->idless_files, (long long)t->pending_files);
}

static const char *str_field(const json_t *v)
{
    return v && json_is_string(v) ? json_string_value(v) : NULL;
}

static int op_add_column(struct lake_table *t, const json_t *column, const json_t *parent_path,
                         struct error *err)
{
    struct lake_column *parent = &t->root;
    if (parent_path) {
        parent = lake_table_find_path(t, json_string_value(parent_path), err);
        if (!parent)
            return -1;
        if (parent->type != LT_STRUCT) {
            char p[1200];
            lake_column_path(parent, p, sizeof p);
            return error_fail(err, ERR_INVALID,
                              "cannot add a column under '%s': it is '%s', not a struct", p,
                              lake_type_name(parent->type));
        }
    }
    const char *name = json_is_object(column) ? str_field(json_object_get(column, "name")) : NULL;
    char what[300];
    snprintf(what, sizeof what, "cannot add column '%.128s'", name ? name : "");
    if (check_no_idless_files(t, what, err) != 0)
        return -1;
    json_t *one = json_array();
    if (!one || json_array_append(one, (json_t *)column) != 0) {
        json_decref(one);
        return nomem(err);
    }
    size_t before = parent->nchildren;
    int rc = add_columns_under(t, parent, one, "column", true, err);
    json_decref(one);
    if (rc != 0)
        return -1;
    struct lake_column *added = parent->children[before];
    if (!added->nullable && t->live_files > 0) {
        char p[1200];
        lake_column_path(added, p, sizeof p);
        return error_fail(
            err, ERR_INVALID,
            "cannot add required column '%s': the table's %lld live data file(s) have no "
            "values for it; add it with nullable=true",
            p, (long long)t->live_files);
    }
    return 0;
}

static int check_not_spec_source(struct lake_table *t, struct lake_column *c, const char *path,
                                 struct error *err)
{
    for (size_t i = 0; i < t->nspec_fields; i++) {
        int64_t src = t->spec_fields[i].source_field_id;
        if (src == c->field_id)
            return error_fail(err, ERR_INVALID,
                              "cannot drop column '%s': it is a source of the live partition spec",
                              path);
        if (subtree_has_field(c, src))
            return error_fail(
                err, ERR_INVALID,
                "cannot drop column '%s': field_id %lld inside it is a source of the live "
                "partition spec",
                path, (long long)src);
    }
    for (size_t i = 0; i < t->nsort_fields; i++) {
        int64_t src = t->sort_fields[i].source_field_id;
        if (src == c->field_id)
            return error_fail(err, ERR_INVALID,
                              "cannot drop column '%s': it is a source of the live sort order",
                              path);
        if (subtree_has_field(c, src))
            return error_fail(
                err, ERR_INVALID,
                "cannot drop column '%s': field_id %lld inside it is a source of the live "
                "sort order",
                path, (long long)src);
    }
    return 0;
}

/* A drop never clears the primary timestamp column silently: the Iceberg
 * export derives its day partitioning from it, and losing it would turn the
 * next export into partition-spec drift. Clearing or moving it first (in
 * the same alter, if wanted) makes that choice explicit. */
static int check_not_primary_ts(const struct lake_table *t, const struct lake_column *c,
                                const char *path, struct error *err)
{
    if (t->primary_ts_field_id == 0 || !subtree_has_field(c, t->primary_ts_field_id))
        return 0;
    return error_fail(err, ERR_INVALID,
                      "cannot drop column '%s': it is the table's primary timestamp column; clear "
                      "it first (set_primary_timestamp_column with column null) or point it at "
                      "another column",
                      path);
}

static int op_drop_column(struct lake_table *t, const char *path, struct error *err)
{
    struct lake_column *c = lake_table_find_path(t, path, err);
    if (!c)
        return -1;
    char p[1200];
    lake_column_path(c, p, sizeof p);
    struct lake_column *parent = parent_of(t, c);
    if (parent->nchildren == 1) {
        if (parent == &t->root)
            return error_fail(err, ERR_INVALID, "cannot drop '%s': it is the last column", p);
        char pp[1200];
        lake_column_path(parent, pp, sizeof pp);
        return error_fail(
            err, ERR_INVALID,
            "cannot drop '%s': it is the last field of struct '%s', and a struct with no "
            "fields has no representation in parquet or Iceberg",
            p, pp);
    }
    if (check_not_spec_source(t, c, p, err) != 0 || check_not_primary_ts(t, c, p, err) != 0)
        return -1;
    if (end_subtree(t, c, err) != 0)
        return -1;
    t->node_count -= subtree_size(c);
    detach_child(t, c);
    return 0;
}

static int op_rename_column(struct lake_table *t, const char *from, const char *to,
                            struct error *err)
{
    struct lake_column *c = lake_table_find_path(t, from, err);
    if (!c)
        return -1;
    char p[1200];
    lake_column_path(c, p, sizeof p);
    struct lake_column *parent = parent_of(t, c);
    char parent_path[1200] = "";
    if (parent != &t->root)
        lake_column_path(parent, parent_path, sizeof parent_path);
    char new_path[1400];
    snprintf(new_path, sizeof new_path, "%s%s%s", parent_path, parent_path[0] ? "." : "", to);
    if (check_column_name(to, new_path, err) != 0)
        return -1;
    if (child_named(parent, to, c)) {
        if (parent == &t->root)
            return error_fail(err, ERR_INVALID, "column '%s' already exists", to);
        return error_fail(err, ERR_INVALID, "column '%s' of struct '%s' already exists", to,
                          parent_path);
    }
    if (strcmp(c->name, to) == 0)
        return 0;
    char what[1500];
    snprintf(what, sizeof what, "cannot rename column '%s' to '%s'", p, to);
    if (check_no_idless_files(t, what, err) != 0)
        return -1;
    c->name = arena_strdup(t->arena, to);
    if (!c->name)
        return nomem(err);
    c->changed = true;
    return 0;
}

static int op_promote_column(struct lake_table *t, const char *path, const char *to,
                             struct error *err)
{
    struct lake_column *c = lake_table_find_path(t, path, err);
    if (!c)
        return -1;
    char p[1200];
    lake_column_path(c, p, sizeof p);
    enum lake_type target;
    const char *reason = NULL;
    char shown[80];
    lake_ident_shown(to, shown, sizeof shown);
    switch (lake_type_lookup(to, &target, &reason)) {
    case LAKE_TYPE_OK: break;
    case LAKE_TYPE_REFUSED: return error_fail(err, ERR_INVALID, "type '%s' %s", shown, reason);
    case LAKE_TYPE_UNKNOWN: return error_fail(err, ERR_INVALID, "unknown column type '%s'", shown);
    }
    if (lake_type_is_container(c->type) || lake_type_is_container(target))
        return error_fail(
            err, ERR_INVALID,
            "cannot promote column '%s': '%s' and '%s' include a nested container type, "
            "and nested containers are not promotable; promote a struct's leaf field "
            "instead",
            p, lake_type_name(c->type), lake_type_name(target));
    if (!lake_type_can_promote(c->type, target))
        return error_fail(err, ERR_INVALID, "cannot promote column '%s' from '%s' to '%s'", p,
                          lake_type_name(c->type), lake_type_name(target));
    /* A partition field over the column must still accept its new type
     * (bucket takes uint16 but not uint32). */
    for (size_t i = 0; i < t->nspec_fields; i++) {
        const struct lake_partition_field *f = &t->spec_fields[i];
        if (f->source_field_id == c->field_id && !lake_transform_accepts(f->transform, target))
            return error_fail(
                err, ERR_INVALID,
                "cannot promote column '%s' to '%s': it is the source of a %s partition "
                "field, which does not accept '%s'; change the partition spec first",
                p, lake_type_name(target), lake_transform_name(f->transform),
                lake_type_name(target));
    }
    c->type = target;
    c->changed = true;
    return 0;
}

/* Making a column nullable never invalidates a file: a required Parquet
 * column reads as an optional one with no nulls, so no file check is
 * needed. An already-nullable column is a no-op, as renaming a column to
 * its own name is: a retried alter (after a lost answer) then succeeds.
 * A list's element and a map's value may be relaxed too; a map key may
 * not (Iceberg map keys are required). */
static int op_drop_not_null(struct lake_table *t, const char *path, struct error *err)
{
    struct lake_column *c = find_path_in(t, path, true, err);
    if (!c)
        return -1;
    if (c->parent && c->parent->type == LT_MAP && c == c->parent->children[0]) {
        char p[1200];
        lake_column_path(c, p, sizeof p);
        return error_fail(err, ERR_INVALID,
                          "cannot make '%s' nullable: it is a map key, and Iceberg map keys are "
                          "always required",
                          p);
    }
    if (c->nullable)
        return 0;
    c->nullable = true;
    c->changed = true;
    return 0;
}

/* The rules shared by partition and sort sources: a live leaf that is not a
 * variant and has no list or map above it. */
static struct lake_column *source_column(struct lake_table *t, const json_t *jid, const char *what,
                                         struct error *err)
{
    json_int_t id = json_integer_value(jid);
    struct lake_column *c = lake_table_find_field(t, id);
    if (!c) {
        error_fail(err, ERR_INVALID, "%s source field_id %lld is not a live column", what,
                   (long long)id);
        return NULL;
    }
    char p[1200];
    lake_column_path(c, p, sizeof p);
    if (c->type == LT_VARIANT) {
        error_fail(err, ERR_INVALID,
                   "%s source field_id %lld ('%s') is a 'variant': a variant has no single scalar "
                   "value, so it cannot be a %s source",
                   what, (long long)id, p, what);
        return NULL;
    }
    if (lake_type_is_container(c->type)) {
        error_fail(
            err, ERR_INVALID,
            "%s source field_id %lld ('%s') is a '%s': a nested container has no single value "
            "per row and cannot be a %s source; use one of its leaf fields",
            what, (long long)id, p, lake_type_name(c->type), what);
        return NULL;
    }
    for (const struct lake_column *a = c->parent; a; a = a->parent) {
        if (a->type == LT_LIST || a->type == LT_MAP) {
            error_fail(
                err, ERR_INVALID,
                "%s source field_id %lld ('%s') sits under '%s', a '%s': a row has many such "
                "values, so it cannot be a %s source; struct leaves are the only nested fields "
                "that can",
                what, (long long)id, p, a->name, lake_type_name(a->type), what);
            return NULL;
        }
    }
    return c;
}

static int op_set_partition_spec(struct lake_table *t, const json_t *fields, struct error *err)
{
    size_t n = json_array_size(fields);
    if (n > LAKE_MAX_SPEC_FIELDS)
        return error_fail(err, ERR_INVALID, "a partition spec has at most %d fields, got %zu",
                          LAKE_MAX_SPEC_FIELDS, n);
    struct lake_partition_field *out = n ? arena_calloc(t->arena, n, sizeof *out) : NULL;
    if (n && !out)
        return nomem(err);
    for (size_t i = 0; i < n; i++) {
        json_t *src, *tr, *param;
        const struct jfield spec[] = {
            {"source_field_id", JF_INT, true, false, &src},
            {"transform", JF_STRING, true, false, &tr},
            {"transform_param", JF_INT, false, true, &param},
        };
        char where[48];
        snprintf(where, sizeof where, "fields[%zu]", i);
        if (jsonx_read_object(json_array_get(fields, i), where, spec, 3, err) != 0)
            return -1;
        if (param && json_is_null(param))
            param = NULL;
        enum lake_transform transform;
        if (lake_partition_parse_transform(json_string_value(tr), &transform, err) != 0)
            return -1;
        struct lake_column *c = source_column(t, src, "partition", err);
        if (!c)
            return -1;
        int32_t p = 0;
        if (lake_transform_takes_param(transform)) {
            json_int_t v = param ? json_integer_value(param) : 0;
            if (!param || v < 1)
                return error_fail(err, ERR_INVALID, "%s transform requires transform_param >= 1",
                                  lake_transform_name(transform));
            if (v > INT32_MAX)
                return error_fail(err, ERR_INVALID,
                                  "%s transform_param %lld is above the maximum 2147483647",
                                  lake_transform_name(transform), (long long)v);
            p = (int32_t)v;
        } else if (param) {
            return error_fail(err, ERR_INVALID, "transform '%s' does not take transform_param",
                              lake_transform_name(transform));
        }
        if (!lake_transform_accepts(transform, c->type)) {
            char path[1200];
            lake_column_path(c, path, sizeof path);
            if (transform == LTR_YEAR || transform == LTR_MONTH || transform == LTR_DAY ||
                transform == LTR_HOUR)
                return error_fail(err, ERR_INVALID,
                                  "transform '%s' requires a %s column; '%s' is '%s'",
                                  lake_transform_name(transform),
                                  transform == LTR_HOUR ? "timestamp" : "date or timestamp", path,
                                  lake_type_name(c->type));
            return error_fail(
                err, ERR_INVALID,
                "%s transform cannot be applied to column '%s' of type '%s'; %s types "
                "are [%s]",
                lake_transform_name(transform), path, lake_type_name(c->type),
                transform == LTR_BUCKET ? "bucketable" : "accepted",
                lake_transform_accepted_types(transform));
        }
        for (size_t j = 0; j < i; j++) {
            if (out[j].source_field_id == c->field_id && out[j].transform == transform)
                return error_fail(err, ERR_INVALID,
                                  "duplicate partition field: field_id %lld with transform '%s'",
                                  (long long)c->field_id, lake_transform_name(transform));
        }
        out[i] = (struct lake_partition_field){c->field_id, transform, p};
    }
    t->spec_fields = out;
    t->nspec_fields = n;
    t->partitioned = n > 0;
    t->spec_changed = true;
    return 0;
}

static int op_set_sort_order(struct lake_table *t, const json_t *fields, struct error *err)
{
    size_t n = json_array_size(fields);
    if (n > LAKE_MAX_SPEC_FIELDS)
        return error_fail(err, ERR_INVALID, "a sort order has at most %d fields, got %zu",
                          LAKE_MAX_SPEC_FIELDS, n);
    struct lake_sort_field *out = n ? arena_calloc(t->arena, n, sizeof *out) : NULL;
    if (n && !out)
        return nomem(err);
    for (size_t i = 0; i < n; i++) {
        json_t *src, *dir, *nulls;
        const struct jfield spec[] = {
            {"source_field_id", JF_INT, true, false, &src},
            {"direction", JF_STRING, false, false, &dir},
            {"null_order", JF_STRING, false, false, &nulls},
        };
        char where[48];
        snprintf(where, sizeof where, "sort_fields[%zu]", i);
        if (jsonx_read_object(json_array_get(fields, i), where, spec, 3, err) != 0)
            return -1;
        struct lake_column *c = source_column(t, src, "sort", err);
        if (!c)
            return -1;
        bool desc = false;
        if (dir) {
            const char *d = json_string_value(dir);
            if (strcasecmp(d, "desc") == 0)
                desc = true;
            else if (strcasecmp(d, "asc") != 0)
                return error_fail(err, ERR_INVALID, "unknown sort direction '%.64s' (asc or desc)",
                                  d);
        }
        /* Iceberg's defaults: nulls sort first ascending, last descending. */
        bool nulls_first = !desc;
        if (nulls) {
            const char *v = json_string_value(nulls);
            if (strcasecmp(v, "nulls_first") == 0)
                nulls_first = true;
            else if (strcasecmp(v, "nulls_last") == 0)
                nulls_first = false;
            else
                return error_fail(err, ERR_INVALID,
                                  "unknown null order '%.64s' (nulls_first or nulls_last)", v);
        }
        for (size_t j = 0; j < i; j++)
            if (out[j].source_field_id == c->field_id)
                return error_fail(err, ERR_INVALID, "duplicate sort source field_id %lld",
                                  (long long)c->field_id);
        out[i] = (struct lake_sort_field){c->field_id, desc, nulls_first};
    }
    t->sort_fields = out;
    t->nsort_fields = n;
    t->sorted = n > 0;
    t->sort_changed = true;
    return 0;
}

static int op_set_properties(struct lake_table *t, const json_t *props, struct error *err)
{
    if (json_object_size(props) > LAKE_PROPERTIES_MAX)
        return error_fail(err, ERR_INVALID, "at most %d custom properties are allowed",
                          LAKE_PROPERTIES_MAX);
    const char *key;
    const json_t *value;
    json_object_foreach ((json_t *)props, key, value) {
        if (!json_is_string(value))
            return error_fail(err, ERR_MALFORMED, "property '%.128s' must have a string value",
                              key);
        if (!lake_property_key_valid(key))
            return error_fail(
                err, ERR_INVALID,
                "invalid or reserved custom property key '%.128s' (must match %s and not "
                "start with 'hoglake.' or 'trino.')",
                key, LAKE_PROPERTY_KEY_PATTERN);
        if (has_nul(value) || str_utf8_length(json_string_value(value)) > LAKE_PROPERTY_VALUE_MAX)
            return error_fail(
                err, ERR_INVALID,
                "custom property values must contain at most %d characters and no NUL",
                LAKE_PROPERTY_VALUE_MAX);
        /* hoglake writes Parquet only; the key exists for engines that read
         * it, so it may only name that format. */
        if (strcmp(key, "write.format.default") == 0 &&
            strcmp(json_string_value(value), "parquet") != 0)
            return error_fail(err, ERR_INVALID,
                              "property 'write.format.default' must be 'parquet', the only format "
                              "hoglake tables hold");
    }
    json_t *copy = json_deep_copy(props);
    if (!copy)
        return nomem(err);
    json_decref(t->properties);
    t->properties = copy;
    t->properties_changed = true;
    return 0;
}

/* The primary timestamp column must be a top-level date or timestamp
 * column: the export partitions by day() of it, which needs one temporal
 * value per row. NULL clears the setting. */
static int op_set_primary_ts(struct lake_table *t, const char *path, struct error *err)
{
    int64_t id = 0;
    if (path) {
        struct lake_column *c = lake_table_find_path(t, path, err);
        if (!c)
            return error_prefix(err, "primary timestamp column");
        char p[1200];
        lake_column_path(c, p, sizeof p);
        if (c->parent)
            return error_fail(err, ERR_INVALID,
                              "primary timestamp column '%s' must be a top-level column, not a "
                              "field inside '%s'",
                              p, c->parent->name);
        if (!lake_type_is_temporal(c->type))
            return error_fail(err, ERR_INVALID,
                              "primary timestamp column '%s' is '%s'; it must be a date or "
                              "timestamp column (date, timestamp_s, timestamp_ms, timestamp, "
                              "timestamp_ns or timestamptz)",
                              p, lake_type_name(c->type));
        id = c->field_id;
    }
    if (id != t->primary_ts_field_id) {
        t->primary_ts_field_id = id;
        t->primary_ts_changed = true;
    }
    return 0;
}

/* Each op's accepted fields; anything else in the op object is a 400. */
struct op_fields {
    json_t *op, *column, *parent, *name, *from, *to, *new_name, *fields, *sort_fields, *comment,
        *properties;
};

int lake_table_apply_op(struct lake_table *t, const json_t *op, struct error *err)
{
    err->code = ERR_OK;
    if (!json_is_object(op))
        return error_fail(err, ERR_MALFORMED, "each op must be a JSON object");
    const char *kind = str_field(json_object_get(op, "op"));
    if (!kind)
        return error_fail(err, ERR_MALFORMED, "each op needs a string field 'op'");
    struct op_fields f;
    memset(&f, 0, sizeof f);
    /* `parent` is accepted by the add ops only; elsewhere it gets a
     * pointed 422 rather than a bare unknown-field 400. */
    bool accepts_parent =
        strcmp(kind, "add_column") == 0 || strcmp(kind, "add_column_with_metadata") == 0;
    static const char *const known_ops[] = {
        "add_column",         "add_column_with_metadata", "drop_column",
        "rename_column",      "promote_column",           "rename_table",
        "set_partition_spec", "set_sort_order",           "set_table_comment",
        "set_column_comment", "set_properties",           "set_primary_timestamp_column",
        "drop_not_null",
    };
    bool known = false;
    for (size_t i = 0; i < sizeof known_ops / sizeof known_ops[0]; i++)
        known |= strcmp(kind, known_ops[i]) == 0;
    if (!known) {
        char shown[80];
        lake_ident_shown(kind, shown, sizeof shown);
        return error_fail(err, ERR_MALFORMED, "unknown alter op '%s'", shown);
    }
    if (json_object_get(op, "parent") && !accepts_parent)
        return error_fail(
            err, ERR_INVALID,
            "op '%.64s' does not take 'parent' (only add_column does); address a nested "
            "column by its dotted path instead, e.g. \"addr.zip\"",
            kind);
#define READ_OP(...)                                                                               \
    do {                                                                                           \
        const struct jfield spec_[] = {{"op", JF_STRING, true, false, &f.op}, __VA_ARGS__};        \
        if (jsonx_read_object(op, "", spec_, sizeof spec_ / sizeof spec_[0], err) != 0)            \
            return error_prefix(err, "op '%s'", kind);                                             \
    } while (0)

    if (accepts_parent) {
        READ_OP({"column", JF_OBJECT, true, false, &f.column},
                {"parent", JF_STRING, false, true, &f.parent});
        if (f.parent && json_is_null(f.parent))
            f.parent = NULL;
        return op_add_column(t, f.column, f.parent, err);
    }
    if (strcmp(kind, "drop_column") == 0) {
        READ_OP({"name", JF_STRING, true, false, &f.name});
        return op_drop_column(t, json_string_value(f.name), err);
    }
    if (strcmp(kind, "rename_column") == 0) {
        READ_OP({"from", JF_STRING, true, false, &f.from}, {"to", JF_STRING, true, false, &f.to});
        return op_rename_column(t, json_string_value(f.from), json_string_value(f.to), err);
    }
    if (strcmp(kind, "promote_column") == 0) {
        READ_OP({"name", JF_STRING, true, false, &f.name}, {"to", JF_STRING, true, false, &f.to});
        return op_promote_column(t, json_string_value(f.name), json_string_value(f.to), err);
    }
    if (strcmp(kind, "drop_not_null") == 0) {
        READ_OP({"name", JF_STRING, true, false, &f.name});
        return op_drop_not_null(t, json_string_value(f.name), err);
    }
    if (strcmp(kind, "rename_table") == 0) {
        READ_OP({"new_name", JF_STRING, true, false, &f.new_name});
        const char *nn = json_string_value(f.new_name);
        if (!lake_ident_valid(nn)) {
            char shown[80];
            lake_ident_shown(nn, shown, sizeof shown);
            return error_fail(err, ERR_INVALID, "invalid table name '%s' (must match %s)", shown,
                              LAKE_IDENT_PATTERN);
        }
        if (strcmp(nn, t->name ? t->name : "") != 0) {
            t->name = arena_strdup(t->arena, nn);
            if (!t->name)
                return nomem(err);
            t->name_changed = true;
        }
        return 0;
    }
    if (strcmp(kind, "set_partition_spec") == 0) {
        READ_OP({"fields", JF_ARRAY, true, false, &f.fields});
        return op_set_partition_spec(t, f.fields, err);
    }
    if (strcmp(kind, "set_sort_order") == 0) {
        READ_OP({"sort_fields", JF_ARRAY, true, false, &f.sort_fields});
        return op_set_sort_order(t, f.sort_fields, err);
    }
    if (strcmp(kind, "set_table_comment") == 0) {
        READ_OP({"comment", JF_STRING, false, true, &f.comment});
        if (check_comment(f.comment, err) != 0)
            return -1;
        const char *cm = str_field(f.comment);
        t->comment = cm ? arena_strdup(t->arena, cm) : NULL;
        if (cm && !t->comment)
            return nomem(err);
        t->comment_changed = true;
        return 0;
    }
    if (strcmp(kind, "set_column_comment") == 0) {
        READ_OP({"name", JF_STRING, true, false, &f.name},
                {"comment", JF_STRING, false, true, &f.comment});
        if (check_comment(f.comment, err) != 0)
            return -1;
        struct lake_column *c = lake_table_find_path(t, json_string_value(f.name), err);
        if (!c)
            return -1;
        const char *cm = str_field(f.comment);
        c->comment = cm ? arena_strdup(t->arena, cm) : NULL;
        if (cm && !c->comment)
            return nomem(err);
        c->changed = true;
        return 0;
    }
    if (strcmp(kind, "set_properties") == 0) {
        READ_OP({"properties", JF_OBJECT, true, false, &f.properties});
        return op_set_properties(t, f.properties, err);
    }
    if (strcmp(kind, "set_primary_timestamp_column") == 0) {
        READ_OP({"column", JF_STRING, true, true, &f.column});
        return op_set_primary_ts(t, str_field(f.column), err);
    }
#undef READ_OP
    return error_fail(err, ERR_MALFORMED, "unknown alter op");
}

int lake_table_apply_ops(struct lake_table *t, const json_t *ops, struct error *err)
{
    err->code = ERR_OK;
    if (!json_is_array(ops))
        return error_fail(err, ERR_MALFORMED, "field 'ops' must be an array");
    size_t n = json_array_size(ops);
    if (n == 0)
        return error_fail(err, ERR_MALFORMED, "ops must contain at least one operation");
    if (n > LAKE_MAX_ALTER_OPS)
        return error_fail(err, ERR_INVALID, "at most %d ops per alter, got %zu", LAKE_MAX_ALTER_OPS,
                          n);
    for (size_t i = 0; i < n; i++) {
        /* Say which op failed: a long list is otherwise hard to debug. */
        if (lake_table_apply_op(t, json_array_get(ops, i), err) != 0)
            return error_prefix(err, "ops[%zu]", i);
    }
    return 0;
}

int lake_table_load_shredding(struct lake_table *t, int64_t field_id, const json_t *decl,
                              struct error *err)
{
    struct lake_column *c = lake_table_find_field(t, field_id);
    if (!c || c->type != LT_VARIANT || c->parent)
        return error_fail(err, ERR_INVALID,
                          "column %lld holds a shredding declaration but is no top-level variant",
                          (long long)field_id);
    if (check_shredding(decl, c->name, err) != 0)
        return -1;
    return keep_shredding(t, c, decl, err);
}

/* ---- JSON rendering ---- */

json_t *lake_column_type_params(const struct lake_column *c)
{
    if (c->type == LT_VARIANT && c->shredding) {
        json_t *decl = json_loads(c->shredding, JSON_DECODE_ANY, NULL);
        return decl ? json_pack("{s:o}", "shredding", decl) : NULL;
    }
    if (c->type != LT_DECIMAL)
        return NULL;
    return json_pack("{s:i,s:i}", "precision", c->precision, "scale", c->scale);
}

static json_t *column_to_json(const struct lake_column *c)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad = 0;
    bad |= json_object_set_new(o, "name", json_string(c->name));
    bad |= json_object_set_new(o, "type", json_string(lake_type_name(c->type)));
    json_t *params = lake_column_type_params(c);
    if (params)
        bad |= json_object_set_new(o, "type_params", params);
    bad |= json_object_set_new(o, "nullable", json_boolean(c->nullable));
    if (c->comment)
        bad |= json_object_set_new(o, "comment", json_string(c->comment));
    bad |= json_object_set_new(o, "field_id", json_integer(c->field_id));
    bad |= json_object_set_new(o, "ordinal", json_integer(c->ordinal));
    if (lake_type_is_container(c->type)) {
        json_t *kids = json_array();
        bad |= json_object_set_new(o, "children", kids);
        for (size_t i = 0; kids && i < c->nchildren; i++)
            bad |= json_array_append_new(kids, column_to_json(c->children[i]));
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *lake_columns_to_json(const struct lake_table *t)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < t->root.nchildren; i++) {
        if (json_array_append_new(a, column_to_json(t->root.children[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

json_t *lake_partition_spec_to_json(const struct lake_table *t)
{
    if (!t->partitioned)
        return NULL;
    json_t *fields = json_array();
    for (size_t i = 0; fields && i < t->nspec_fields; i++) {
        const struct lake_partition_field *f = &t->spec_fields[i];
        json_t *o = json_pack("{s:I,s:s}", "source_field_id", (json_int_t)f->source_field_id,
                              "transform", lake_transform_name(f->transform));
        if (o && lake_transform_takes_param(f->transform) &&
            json_object_set_new(o, "transform_param", json_integer(f->param)) != 0) {
            json_decref(o);
            o = NULL;
        }
        if (json_array_append_new(fields, o) != 0) {
            json_decref(fields);
            return NULL;
        }
    }
    if (!fields)
        return NULL;
    return json_pack("{s:I,s:o}", "spec_id", (json_int_t)t->spec_id, "fields", fields);
}

const char *lake_table_primary_ts_name(const struct lake_table *t)
{
    const struct lake_column *c = lake_table_find_field(t, t->primary_ts_field_id);
    return c ? c->name : NULL;
}

json_t *lake_sort_spec_to_json(const struct lake_table *t)
{
    if (!t->sorted)
        return NULL;
    json_t *fields = json_array();
    for (size_t i = 0; fields && i < t->nsort_fields; i++) {
        const struct lake_sort_field *f = &t->sort_fields[i];
        json_t *o = json_pack("{s:I,s:s,s:s}", "source_field_id", (json_int_t)f->source_field_id,
                              "direction", f->descending ? "desc" : "asc", "null_order",
                              f->nulls_first ? "nulls_first" : "nulls_last");
        if (json_array_append_new(fields, o) != 0) {
            json_decref(fields);
            return NULL;
        }
    }
    if (!fields)
        return NULL;
    return json_pack("{s:I,s:o}", "sort_id", (json_int_t)t->sort_id, "fields", fields);
}
