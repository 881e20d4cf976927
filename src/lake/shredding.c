/* The shredding declaration's grammar: see shredding.h. */
#include "lake/shredding.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lake/namecase.h"
#include "util/buf.h"

enum shred_kind { SK_OBJECT, SK_ARRAY, SK_DECIMAL, SK_OTHER };

static const struct {
    const char *name;
    enum shred_kind kind;
    int max_precision; /* decimals */
} shred_types[] = {
    {"object", SK_OBJECT, 0},        {"array", SK_ARRAY, 0},        {"variant", SK_OTHER, 0},
    {"boolean", SK_OTHER, 0},        {"int8", SK_OTHER, 0},         {"int16", SK_OTHER, 0},
    {"int32", SK_OTHER, 0},          {"int64", SK_OTHER, 0},        {"float", SK_OTHER, 0},
    {"double", SK_OTHER, 0},         {"date", SK_OTHER, 0},         {"time", SK_OTHER, 0},
    {"timestamp", SK_OTHER, 0},      {"timestamp_ns", SK_OTHER, 0}, {"timestamptz", SK_OTHER, 0},
    {"timestamptz_ns", SK_OTHER, 0}, {"binary", SK_OTHER, 0},       {"string", SK_OTHER, 0},
    {"uuid", SK_OTHER, 0},           {"decimal4", SK_DECIMAL, 9},   {"decimal8", SK_DECIMAL, 18},
    {"decimal16", SK_DECIMAL, 38},
};

struct check {
    struct buf path; /* the node's, as messages show it */
    struct buf msg;  /* scratch for a message */
    size_t nodes;    /* fields and arrays met so far */
    struct error *err;
};

/* Fails with "<path> <problem>" (the message is built in c->msg, so a
 * quoted name of any length fits before error_fail cuts it). */
static int fail(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct check *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_reset(&c->msg);
    int rc = buf_append(&c->msg, c->path.data, c->path.len) || buf_putc(&c->msg, ' ') ||
             buf_vprintf(&c->msg, fmt, ap);
    va_end(ap);
    if (rc != 0)
        return error_nomem(c->err);
    return error_fail(c->err, ERR_INVALID, "%s", c->msg.data);
}

/* A fault of the whole declaration, named at its root. */
static int fail_root(struct check *c, const char *problem)
{
    c->path.len = 1;
    c->path.data[1] = '\0';
    return fail(c, "%s", problem);
}

/* s (len bytes) quoted as messages show a name, into a fresh buffer the
 * caller frees; NULL when out of memory. */
static char *quoted(const char *s, size_t len)
{
    struct buf q = BUF_INIT;
    if (buf_append(&q, "", 0) != 0 || lake_name_quote(s, len, &q) != 0) {
        buf_free(&q);
        return NULL;
    }
    return buf_take(&q);
}

static int fail_quoting(struct check *c, const char *what, const char *s, size_t len)
{
    char *q = quoted(s, len);
    if (!q)
        return error_nomem(c->err);
    fail(c, "has an unknown %s '%s'", what, q);
    free(q);
    return -1;
}

static bool key_allowed(const char *key, enum shred_kind kind, bool is_field)
{
    if (strcmp(key, "type") == 0)
        return true;
    if (strcmp(key, "name") == 0)
        return is_field;
    if (strcmp(key, "fields") == 0)
        return kind == SK_OBJECT;
    if (strcmp(key, "element") == 0)
        return kind == SK_ARRAY;
    return kind == SK_DECIMAL && (strcmp(key, "precision") == 0 || strcmp(key, "scale") == 0);
}

/* The int the member holds, when it is a JSON integer an int holds. */
static bool int_member(const json_t *node, const char *key, int *out)
{
    const json_t *v = json_object_get(node, key);
    if (!json_is_integer(v))
        return false;
    json_int_t x = json_integer_value(v);
    if (x < INT32_MIN || x > INT32_MAX)
        return false;
    *out = (int)x;
    return true;
}

static int check_decimal(struct check *c, const json_t *node, const char *type, int max)
{
    int p, s;
    if (!int_member(node, "precision", &p))
        return fail(c, "has no integer precision");
    if (!int_member(node, "scale", &s))
        return fail(c, "has no integer scale");
    if (p < 1 || p > max || s < 0 || s > p)
        return fail(c, "has precision %d and scale %d, which %s does not hold", p, s, type);
    return 0;
}

static int check_node(struct check *c, const json_t *node, int depth, bool is_field,
                      size_t bytes_above);

/* The names already met among an object's fields, and their lowercase. */
struct seen_name {
    const char *name;
    size_t len;
    char *lower;
    size_t lower_len;
};

/* Refuses a name equal to an earlier one, or equal to one ignoring case. */
static int check_unique(struct check *c, const struct seen_name *seen, size_t n,
                        const struct seen_name *name)
{
    for (size_t i = 0; i < n; i++) {
        bool same = seen[i].len == name->len && memcmp(seen[i].name, name->name, name->len) == 0;
        if (!same && (seen[i].lower_len != name->lower_len ||
                      memcmp(seen[i].lower, name->lower, name->lower_len) != 0))
            continue;
        char *a = quoted(seen[i].name, seen[i].len), *b = quoted(name->name, name->len);
        if (!a || !b)
            error_nomem(c->err);
        else if (same)
            fail(c, "has duplicate field '%s'", a);
        else
            fail(c, "has fields that differ only by case: '%s' and '%s'", a, b);
        free(a);
        free(b);
        return -1;
    }
    return 0;
}

/* A field's name, before its node. */
static int check_name(struct check *c, const char *name, size_t len, size_t bytes_above)
{
    if (strlen(name) != len)
        return fail(c, "has a field name with a NUL character");
    if (lake_name_has_lone_surrogate(name, len))
        return fail(c, "has a field name with an unpaired surrogate");
    if (len == 0)
        return fail(c, "has a field with an empty name");
    if (bytes_above + len > LAKE_SHRED_MAX_PATH_BYTES)
        return fail(c, "has a field whose name, with the names above it, is longer than %d bytes",
                    LAKE_SHRED_MAX_PATH_BYTES);
    return 0;
}

static int check_fields(struct check *c, const json_t *node, int depth, size_t bytes_above)
{
    const json_t *fields = json_object_get(node, "fields");
    size_t n = json_array_size(fields);
    if (n == 0)
        return fail(c, "has no fields");
    /* The count fails past LAKE_SHRED_MAX_NODES fields, so no more names
     * than that are ever kept, however long the array. */
    size_t kept = n < LAKE_SHRED_MAX_NODES ? n : LAKE_SHRED_MAX_NODES;
    struct seen_name *seen = calloc(kept, sizeof *seen);
    if (!seen)
        return error_nomem(c->err);
    struct buf lower = BUF_INIT;
    size_t path_len = c->path.len;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const json_t *f = json_array_get(fields, i);
        const json_t *jname = json_object_get(f, "name");
        if (!json_is_object(f) || !json_is_string(jname)) {
            rc = fail(c, "has a field without a name");
            break;
        }
        if (++c->nodes > LAKE_SHRED_MAX_NODES) {
            rc = fail_root(c, "has more than 1000 fields and arrays");
            break;
        }
        struct seen_name *s = &seen[i];
        s->name = json_string_value(jname);
        s->len = json_string_length(jname);
        if ((rc = check_name(c, s->name, s->len, bytes_above)) != 0)
            break;
        if (buf_append(&lower, "", 0) != 0 || lake_name_lower(s->name, s->len, &lower) != 0) {
            rc = error_nomem(c->err);
            break;
        }
        s->lower_len = lower.len;
        s->lower = buf_take(&lower);
        if ((rc = check_unique(c, seen, i, s)) != 0)
            break;
        char *q = quoted(s->name, s->len);
        if (!q || buf_putc(&c->path, '.') != 0 || buf_puts(&c->path, q) != 0) {
            free(q);
            rc = error_nomem(c->err);
            break;
        }
        free(q);
        rc = check_node(c, f, depth + 1, true, bytes_above + s->len);
        c->path.len = path_len;
        c->path.data[path_len] = '\0';
    }
    for (size_t i = 0; i < kept; i++)
        free(seen[i].lower);
    free(seen);
    buf_free(&lower);
    return rc;
}

static int check_node(struct check *c, const json_t *node, int depth, bool is_field,
                      size_t bytes_above)
{
    if (!json_is_object(node))
        return fail(c, "is not a JSON object");
    const json_t *jtype = json_object_get(node, "type");
    if (!json_is_string(jtype))
        return fail(c, "has no type");
    const char *type = json_string_value(jtype);
    size_t t = 0, ntypes = sizeof shred_types / sizeof *shred_types;
    while (t < ntypes && strcmp(shred_types[t].name, type) != 0)
        t++;
    if (t == ntypes || strlen(type) != json_string_length(jtype))
        return fail_quoting(c, "type", type, json_string_length(jtype));
    enum shred_kind kind = shred_types[t].kind;
    const char *key;
    const json_t *value;
    json_object_foreach ((json_t *)node, key, value) {
        if (!key_allowed(key, kind, is_field))
            return fail_quoting(c, "key", key, strlen(key));
    }
    if ((kind == SK_OBJECT || kind == SK_ARRAY) && depth > LAKE_SHRED_MAX_DEPTH)
        return fail(c, "is nested more than %d levels deep", LAKE_SHRED_MAX_DEPTH);
    switch (kind) {
    case SK_DECIMAL: return check_decimal(c, node, type, shred_types[t].max_precision);
    case SK_OBJECT: return check_fields(c, node, depth, bytes_above);
    case SK_ARRAY: {
        if (++c->nodes > LAKE_SHRED_MAX_NODES)
            return fail_root(c, "has more than 1000 fields and arrays");
        const json_t *element = json_object_get(node, "element");
        if (!element || json_is_null(element))
            return fail(c, "has no element");
        size_t path_len = c->path.len;
        if (buf_puts(&c->path, "[*]") != 0)
            return error_nomem(c->err);
        int rc = check_node(c, element, depth + 1, false, bytes_above);
        c->path.len = path_len;
        c->path.data[path_len] = '\0';
        return rc;
    }
    case SK_OTHER: return 0;
    }
    return 0;
}

int lake_shredding_check(const json_t *decl, struct error *err)
{
    struct check c = {.path = BUF_INIT, .msg = BUF_INIT, .err = err};
    int rc = buf_putc(&c.path, '$') == 0 ? check_node(&c, decl, 1, false, 0) : error_nomem(err);
    buf_free(&c.path);
    buf_free(&c.msg);
    return rc;
}

/* ---- leaves JSON text does not fill ---- */

/* Whether values encoded from JSON text (variant/variant.h) can land in a
 * leaf of this type: booleans, integers (of any width, when they fit),
 * doubles (fractions), strings, and decimal16 with scale 0 and at least 19
 * digits (integers past int64). */
static bool json_fills(const json_t *node, const char *type)
{
    static const char *const filled[] = {"variant", "boolean", "int8",   "int16",
                                         "int32",   "int64",   "double", "string"};
    for (size_t i = 0; i < sizeof filled / sizeof filled[0]; i++)
        if (strcmp(type, filled[i]) == 0)
            return true;
    return strcmp(type, "decimal16") == 0 &&
           json_integer_value(json_object_get(node, "scale")) == 0 &&
           json_integer_value(json_object_get(node, "precision")) >= 19;
}

/* Visits every node of a declaration depth first, parents before their
 * fields and elements, with its path ("$", "$.a", "$.tags[*]"). */
typedef int (*node_visit)(const json_t *node, const char *type, const char *path, json_t *out,
                          struct error *err);

static int walk(const json_t *node, struct buf *path, node_visit visit, json_t *out,
                struct error *err)
{
    const char *type = json_string_value(json_object_get(node, "type"));
    size_t len = path->len;
    int rc = visit(node, type, path->data, out, err);
    if (rc == 0 && strcmp(type, "object") == 0) {
        size_t i;
        const json_t *f;
        json_array_foreach (json_object_get(node, "fields"), i, f) {
            const json_t *name = json_object_get(f, "name");
            char *q = quoted(json_string_value(name), json_string_length(name));
            rc = q && buf_putc(path, '.') == 0 && buf_puts(path, q) == 0 ? 0 : error_nomem(err);
            free(q);
            if (rc == 0)
                rc = walk(f, path, visit, out, err);
            path->len = len;
            path->data[len] = '\0';
            if (rc != 0)
                return rc;
        }
    } else if (rc == 0 && strcmp(type, "array") == 0) {
        if (buf_puts(path, "[*]") != 0)
            return error_nomem(err);
        rc = walk(json_object_get(node, "element"), path, visit, out, err);
        path->len = len;
        path->data[len] = '\0';
    }
    return rc;
}

static int append_path(json_t *out, const char *path, struct error *err)
{
    return json_array_append_new(out, json_string(path)) == 0 ? 0 : error_nomem(err);
}

static int visit_unshreddable(const json_t *node, const char *type, const char *path, json_t *out,
                              struct error *err)
{
    if (strcmp(type, "object") == 0 || strcmp(type, "array") == 0 || json_fills(node, type))
        return 0;
    return append_path(out, path, err);
}

static int visit_any(const json_t *node, const char *type, const char *path, json_t *out,
                     struct error *err)
{
    (void)node, (void)type;
    return append_path(out, path, err);
}

/* The paths of the nodes visit keeps, into *out, once decl is checked. */
static int node_paths(const json_t *decl, node_visit visit, json_t **out, struct error *err)
{
    if (lake_shredding_check(decl, err) != 0)
        return -1;
    struct buf path = BUF_INIT;
    *out = json_array();
    int rc =
        *out && buf_putc(&path, '$') == 0 ? walk(decl, &path, visit, *out, err) : error_nomem(err);
    buf_free(&path);
    if (rc != 0) {
        json_decref(*out);
        *out = NULL;
    }
    return rc;
}

int lake_shredding_unshreddable(const json_t *decl, json_t **out, struct error *err)
{
    return node_paths(decl, visit_unshreddable, out, err);
}

int lake_shredding_node_paths(const json_t *decl, json_t **out, struct error *err)
{
    return node_paths(decl, visit_any, out, err);
}
