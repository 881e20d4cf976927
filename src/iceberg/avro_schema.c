/* Avro schema JSON -> a tree of avro_node (named types resolved, names and
 * union rules checked, Iceberg id attributes picked up). */
#include "iceberg/avro_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/strutil.h"

struct avro_schema {
    struct arena arena; /* every node, field and name */
    json_t *json;
    char *text;
    size_t len;
    const struct avro_node *root;
};

struct named {
    const char *full_name;
    const struct avro_node *node;
};

struct parser {
    struct arena *a;
    struct named *names;
    size_t nnames, cap;
    struct error *err;
};

static const struct {
    const char *name;
    enum avro_type type;
    size_t min_bytes;
} primitives[] = {
    {"null", AVRO_NULL, 0},   {"boolean", AVRO_BOOLEAN, 1}, {"int", AVRO_INT, 1},
    {"long", AVRO_LONG, 1},   {"float", AVRO_FLOAT, 4},     {"double", AVRO_DOUBLE, 8},
    {"bytes", AVRO_BYTES, 1}, {"string", AVRO_STRING, 1},
};

static int find_primitive(const char *s)
{
    for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++) {
        if (strcmp(primitives[i].name, s) == 0)
            return (int)i;
    }
    return -1;
}

bool avro_name_valid(const char *s)
{
    if (!s || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (s++; *s; s++) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    }
    return true;
}

static bool name_start(uint32_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

char *avro_name_sanitize(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || !str_utf8_valid(s, n, NULL))
        return NULL;
    if (avro_name_valid(s))
        return strdup(s);
    struct buf out = BUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0;) {
        const unsigned char *p = (const unsigned char *)s + i;
        size_t len = str_utf8_seq(p, n - i);
        uint32_t c = len == 1   ? p[0]
                     : len == 2 ? (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f)
                     : len == 3 ? (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 |
                                      (p[2] & 0x3f)
                                : (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 |
                                      (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
        bool digit = c >= '0' && c <= '9';
        if (name_start(c) || (i > 0 && digit))
            rc = buf_putc(&out, (char)c);
        else if (digit)
            rc = buf_printf(&out, "_%c", (char)c);
        else
            rc = buf_printf(&out, "_x%X", (unsigned)c);
        i += len;
    }
    if (rc < 0) {
        buf_free(&out);
        return NULL;
    }
    return buf_take(&out);
}

/* A full name: dot-separated valid names. */
static bool valid_full_name(const char *s, struct arena *a)
{
    char *copy = arena_strdup(a, s);
    if (!copy)
        return false;
    for (char *part = copy, *dot; part; part = dot ? dot + 1 : NULL) {
        dot = strchr(part, '.');
        if (dot)
            *dot = '\0';
        if (!avro_name_valid(part))
            return false;
    }
    return true;
}

static const struct avro_node *lookup(const struct parser *ps, const char *full_name)
{
    for (size_t i = 0; i < ps->nnames; i++) {
        if (strcmp(ps->names[i].full_name, full_name) == 0)
            return ps->names[i].node;
    }
    return NULL;
}

static void *fail_null(struct parser *ps, enum error_code code, const char *msg, const char *what)
{
    error_fail(ps->err, code, "%s%s%s", msg, what ? ": " : "", what ? what : "");
    return NULL;
}

static void *oom(struct parser *ps)
{
    return fail_null(ps, ERR_NOMEM, "out of memory", NULL);
}

static struct avro_node *new_node(struct parser *ps, enum avro_type t, const json_t *j)
{
    struct avro_node *n = arena_calloc(ps->a, 1, sizeof *n);
    if (!n)
        return oom(ps);
    n->type = t;
    n->json = j;
    const char *lt = json_string_value(json_object_get(j, "logicalType"));
    if (lt && !(n->logical_type = arena_strdup(ps->a, lt)))
        return oom(ps);
    return n;
}

/* Registers a named type before its body is parsed, so the body may
 * refer to it (recursive records). */
static int define_name(struct parser *ps, struct avro_node *n, const json_t *j, const char *ns,
                       const char **child_ns)
{
    const char *name = json_string_value(json_object_get(j, "name"));
    if (!name)
        return fail_null(ps, ERR_MALFORMED, "named type without a \"name\"", NULL), -1;
    const json_t *nsj = json_object_get(j, "namespace");
    if (nsj && !json_is_string(nsj) && !json_is_null(nsj))
        return fail_null(ps, ERR_MALFORMED, "\"namespace\" is not a string", name), -1;
    const char *own_ns = json_string_value(nsj);
    const char *full;
    if (strchr(name, '.'))
        full = arena_strdup(ps->a, name);
    else if (own_ns ? *own_ns : (ns && *ns))
        full = arena_sprintf(ps->a, "%s.%s", own_ns ? own_ns : ns, name);
    else
        full = arena_strdup(ps->a, name);
    if (!full)
        return oom(ps), -1;
    if (!valid_full_name(full, ps->a))
        return fail_null(ps, ERR_MALFORMED, "invalid name", full), -1;
    if (find_primitive(full) >= 0 || lookup(ps, full))
        return fail_null(ps, ERR_MALFORMED, "type name defined twice", full), -1;
    if (ARRAY_RESERVE(ps->names, ps->cap, ps->nnames + 1, 16) != 0)
        return oom(ps), -1;
    ps->names[ps->nnames++] = (struct named){full, n};
    n->name = full;
    /* The namespace of what the body names is the full name's prefix. */
    const char *dot = strrchr(full, '.');
    *child_ns = dot ? arena_strndup(ps->a, full, (size_t)(dot - full)) : "";
    return *child_ns ? 0 : (oom(ps), -1);
}

static int id_attr(struct parser *ps, const json_t *j, const char *key, bool *has, int32_t *id)
{
    const json_t *v = json_object_get(j, key);
    *has = v != NULL;
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN ||
        json_integer_value(v) > INT32_MAX)
        return fail_null(ps, ERR_MALFORMED, "id attribute is not a 32-bit integer", key), -1;
    *id = (int32_t)json_integer_value(v);
    return 0;
}

static size_t add_sat(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static const struct avro_node *parse(struct parser *ps, const json_t *j, const char *ns, int depth);

static const struct avro_node *parse_record(struct parser *ps, const json_t *j, const char *ns,
                                            int depth)
{
    struct avro_node *n = new_node(ps, AVRO_RECORD, j);
    const char *child_ns;
    if (!n || define_name(ps, n, j, ns, &child_ns) < 0)
        return NULL;
    const json_t *fields = json_object_get(j, "fields");
    if (!json_is_array(fields))
        return fail_null(ps, ERR_MALFORMED, "record without a \"fields\" array", n->name);
    size_t nf = json_array_size(fields);
    struct avro_field *fs = arena_calloc(ps->a, nf ? nf : 1, sizeof *fs);
    if (!fs)
        return oom(ps);
    size_t min = 0;
    for (size_t i = 0; i < nf; i++) {
        const json_t *fj = json_array_get(fields, i);
        const char *fname = json_string_value(json_object_get(fj, "name"));
        if (!fname || !avro_name_valid(fname))
            return fail_null(ps, ERR_MALFORMED, "record field without a valid \"name\"", n->name);
        for (size_t k = 0; k < i; k++) {
            if (strcmp(fs[k].name, fname) == 0)
                return fail_null(ps, ERR_MALFORMED, "field name repeated", fname);
        }
        const json_t *ft = json_object_get(fj, "type");
        if (!ft)
            return fail_null(ps, ERR_MALFORMED, "field without a \"type\"", fname);
        if (!(fs[i].name = arena_strdup(ps->a, fname)))
            return oom(ps);
        if (!(fs[i].type = parse(ps, ft, child_ns, depth + 1)))
            return NULL;
        fs[i].default_value = json_object_get(fj, "default");
        fs[i].json = fj;
        if (id_attr(ps, fj, "field-id", &fs[i].has_field_id, &fs[i].field_id) < 0)
            return NULL;
        min = add_sat(min, fs[i].type->min_bytes);
    }
    n->fields = fs;
    n->nfields = nf;
    n->min_bytes = min;
    return n;
}

static const struct avro_node *parse_enum(struct parser *ps, const json_t *j, const char *ns)
{
    struct avro_node *n = new_node(ps, AVRO_ENUM, j);
    const char *child_ns;
    if (!n || define_name(ps, n, j, ns, &child_ns) < 0)
        return NULL;
    const json_t *syms = json_object_get(j, "symbols");
    if (!json_is_array(syms) || json_array_size(syms) == 0)
        return fail_null(ps, ERR_MALFORMED, "enum without \"symbols\"", n->name);
    size_t ns_count = json_array_size(syms);
    const char **out = arena_calloc(ps->a, ns_count, sizeof *out);
    if (!out)
        return oom(ps);
    for (size_t i = 0; i < ns_count; i++) {
        const char *s = json_string_value(json_array_get(syms, i));
        if (!s || !avro_name_valid(s))
            return fail_null(ps, ERR_MALFORMED, "invalid enum symbol", n->name);
        for (size_t k = 0; k < i; k++) {
            if (strcmp(out[k], s) == 0)
                return fail_null(ps, ERR_MALFORMED, "enum symbol repeated", s);
        }
        if (!(out[i] = arena_strdup(ps->a, s)))
            return oom(ps);
    }
    n->symbols = out;
    n->nsymbols = ns_count;
    n->min_bytes = 1;
    return n;
}

static const struct avro_node *parse_fixed(struct parser *ps, const json_t *j, const char *ns)
{
    struct avro_node *n = new_node(ps, AVRO_FIXED, j);
    const char *child_ns;
    if (!n || define_name(ps, n, j, ns, &child_ns) < 0)
        return NULL;
    const json_t *size = json_object_get(j, "size");
    if (!json_is_integer(size) || json_integer_value(size) < 0 ||
        json_integer_value(size) > INT32_MAX)
        return fail_null(ps, ERR_MALFORMED, "fixed without a valid \"size\"", n->name);
    n->size = (size_t)json_integer_value(size);
    n->min_bytes = n->size;
    return n;
}

static const struct avro_node *parse_union(struct parser *ps, const json_t *j, const char *ns,
                                           int depth)
{
    struct avro_node *n = new_node(ps, AVRO_UNION, j);
    if (!n)
        return NULL;
    size_t nb = json_array_size(j);
    const struct avro_node **bs = arena_calloc(ps->a, nb ? nb : 1, sizeof *bs);
    if (!bs)
        return oom(ps);
    size_t min = SIZE_MAX;
    for (size_t i = 0; i < nb; i++) {
        const struct avro_node *b = parse(ps, json_array_get(j, i), ns, depth + 1);
        if (!b)
            return NULL;
        if (b->type == AVRO_UNION)
            return fail_null(ps, ERR_MALFORMED, "a union directly inside a union", NULL);
        /* Spec: at most one branch per unnamed type, and per name. */
        for (size_t k = 0; k < i; k++) {
            bool named = b->name != NULL;
            if (named ? (bs[k]->name && strcmp(bs[k]->name, b->name) == 0)
                      : (!bs[k]->name && bs[k]->type == b->type))
                return fail_null(ps, ERR_MALFORMED, "union repeats a type", b->name);
        }
        bs[i] = b;
        if (b->min_bytes < min)
            min = b->min_bytes;
    }
    n->branches = bs;
    n->nbranches = nb;
    n->min_bytes = nb ? add_sat(min, 1) : 1;
    return n;
}

static const struct avro_node *parse_reference(struct parser *ps, const json_t *j, const char *s,
                                               const char *ns)
{
    int p = find_primitive(s);
    if (p >= 0) {
        struct avro_node *n = new_node(ps, primitives[p].type, j);
        if (n)
            n->min_bytes = primitives[p].min_bytes;
        return n;
    }
    const struct avro_node *n = NULL;
    if (!strchr(s, '.') && ns && *ns) {
        char *full = arena_sprintf(ps->a, "%s.%s", ns, s);
        if (!full)
            return oom(ps);
        n = lookup(ps, full);
    }
    if (!n)
        n = lookup(ps, s);
    return n ? n : fail_null(ps, ERR_MALFORMED, "unknown type", s);
}

static const struct avro_node *parse(struct parser *ps, const json_t *j, const char *ns, int depth)
{
    if (depth > AVRO_MAX_DEPTH)
        return fail_null(ps, ERR_MALFORMED, "schema nests too deeply", NULL);
    if (json_is_string(j))
        return parse_reference(ps, j, json_string_value(j), ns);
    if (json_is_array(j))
        return parse_union(ps, j, ns, depth);
    if (!json_is_object(j))
        return fail_null(ps, ERR_MALFORMED, "a schema is a string, an array or an object", NULL);
    const json_t *t = json_object_get(j, "type");
    if (json_is_object(t) || json_is_array(t))
        return parse(ps, t, ns, depth + 1);
    const char *ts = json_string_value(t);
    if (!ts)
        return fail_null(ps, ERR_MALFORMED, "schema object without a \"type\"", NULL);
    if (strcmp(ts, "record") == 0 || strcmp(ts, "error") == 0)
        return parse_record(ps, j, ns, depth);
    if (strcmp(ts, "enum") == 0)
        return parse_enum(ps, j, ns);
    if (strcmp(ts, "fixed") == 0)
        return parse_fixed(ps, j, ns);
    if (strcmp(ts, "array") == 0 || strcmp(ts, "map") == 0) {
        bool array = ts[0] == 'a';
        struct avro_node *n = new_node(ps, array ? AVRO_ARRAY : AVRO_MAP, j);
        if (!n)
            return NULL;
        const json_t *inner = json_object_get(j, array ? "items" : "values");
        if (!inner)
            return fail_null(ps, ERR_MALFORMED,
                             array ? "array without \"items\"" : "map without \"values\"", NULL);
        if (!(n->items = parse(ps, inner, ns, depth + 1)))
            return NULL;
        n->min_bytes = 1;
        if (array ? id_attr(ps, j, "element-id", &n->has_element_id, &n->element_id) < 0
                  : (id_attr(ps, j, "key-id", &n->has_key_id, &n->key_id) < 0 ||
                     id_attr(ps, j, "value-id", &n->has_value_id, &n->value_id) < 0))
            return NULL;
        return n;
    }
    if (find_primitive(ts) >= 0) {
        /* A primitive in object form, usually to carry a logicalType. */
        const struct avro_node *n = parse_reference(ps, j, ts, ns);
        return n;
    }
    /* {"type": "SomeNamedType"} refers to a named type. */
    return parse_reference(ps, j, ts, ns);
}

int avro_schema_parse(const char *text, size_t len, struct avro_schema **out, struct error *err)
{
    *out = NULL;
    if (!text)
        return error_fail(err, ERR_INVALID, "no schema text");
    struct avro_schema *s = calloc(1, sizeof *s);
    if (!s)
        return error_fail(err, ERR_NOMEM, "out of memory");
    arena_init(&s->arena, 0);
    json_error_t jerr;
    s->json = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (!s->json) {
        avro_schema_free(s);
        return error_fail(err, ERR_MALFORMED, "schema is not JSON: %s", jerr.text);
    }
    s->text = arena_strndup(&s->arena, text, len);
    s->len = len;
    struct parser ps = {.a = &s->arena, .err = err};
    s->root = s->text ? parse(&ps, s->json, "", 0) : oom(&ps);
    free(ps.names);
    if (!s->root) {
        avro_schema_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void avro_schema_free(struct avro_schema *s)
{
    if (!s)
        return;
    json_decref(s->json);
    arena_free(&s->arena);
    free(s);
}

const struct avro_node *avro_schema_root(const struct avro_schema *s)
{
    return s->root;
}

const char *avro_schema_text(const struct avro_schema *s, size_t *len)
{
    if (len)
        *len = s->len;
    return s->text;
}

const struct avro_field *avro_record_field(const struct avro_node *rec, const char *name)
{
    if (!rec || rec->type != AVRO_RECORD)
        return NULL;
    for (size_t i = 0; i < rec->nfields; i++) {
        if (strcmp(rec->fields[i].name, name) == 0)
            return &rec->fields[i];
    }
    return NULL;
}

const struct avro_field *avro_record_field_by_id(const struct avro_node *rec, int32_t field_id)
{
    if (!rec || rec->type != AVRO_RECORD)
        return NULL;
    for (size_t i = 0; i < rec->nfields; i++) {
        if (rec->fields[i].has_field_id && rec->fields[i].field_id == field_id)
            return &rec->fields[i];
    }
    return NULL;
}

json_t *avro_record_get_by_id(const struct avro_node *rec, const json_t *value, int32_t field_id)
{
    const struct avro_field *f = avro_record_field_by_id(rec, field_id);
    return f ? json_object_get(value, f->name) : NULL;
}
