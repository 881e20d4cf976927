/* The compact forms the CLI accepts for columns, partition specs and sort
 * orders, turned into the server's JSON shapes.
 *
 *   columns   id:long!, name:string, amount:decimal(10,2), tags:list<string>,
 *             attrs:map<string,long>, addr:struct<zip:string,city:string!>
 *             ("!" marks a column or element NOT NULL; map keys always are)
 *   partition team_id, month(ts), bucket(16, id), truncate(4, name)
 *   sort      ts desc, id asc nulls last
 */
#include "textio/colspec.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *s;
    size_t pos;
    struct error *err;
    int depth;
};

static void skip_ws(struct parser *p)
{
    while (isspace((unsigned char)p->s[p->pos]))
        p->pos++;
}

static bool fail(struct parser *p, enum error_code code, const char *what)
{
    error_fail(p->err, code, "%s at position %zu of '%s'", what, p->pos + 1, p->s);
    return false;
}

static bool eat(struct parser *p, char c)
{
    skip_ws(p);
    if (p->s[p->pos] != c)
        return false;
    p->pos++;
    return true;
}

/* A name: letters, digits, '_', '-', '.' (dots only where the caller
 * allows them, i.e. in paths). */
static bool read_word(struct parser *p, char *out, size_t size, bool allow_dot)
{
    skip_ws(p);
    size_t n = 0;
    for (;;) {
        char c = p->s[p->pos];
        if (!(isalnum((unsigned char)c) || c == '_' || c == '-' || (allow_dot && c == '.')))
            break;
        if (n + 1 >= size)
            return fail(p, ERR_LIMIT, "name too long");
        out[n++] = c;
        p->pos++;
    }
    out[n] = '\0';
    return n > 0 ? true : fail(p, ERR_MALFORMED, "expected a name");
}

static bool read_int(struct parser *p, long *out)
{
    skip_ws(p);
    char *end;
    long v = strtol(p->s + p->pos, &end, 10);
    if (end == p->s + p->pos)
        return fail(p, ERR_MALFORMED, "expected a number");
    p->pos = (size_t)(end - p->s);
    *out = v;
    return true;
}

static json_t *parse_type(struct parser *p);

static json_t *column_def(const char *name, json_t *type_def, bool nullable)
{
    json_object_set_new(type_def, "name", json_string(name));
    json_object_set_new(type_def, "nullable", json_boolean(nullable));
    return type_def;
}

/* type ['!'], as a child of a list or map. */
static json_t *parse_child(struct parser *p, const char *name, bool force_required)
{
    json_t *t = parse_type(p);
    if (!t)
        return NULL;
    bool required = eat(p, '!') || force_required;
    return column_def(name, t, !required);
}

static json_t *parse_column(struct parser *p)
{
    char name[200];
    if (!read_word(p, name, sizeof name, false))
        return NULL;
    if (!eat(p, ':')) {
        fail(p, ERR_MALFORMED, "expected ':' after a column name");
        return NULL;
    }
    json_t *t = parse_type(p);
    if (!t)
        return NULL;
    bool required = eat(p, '!');
    return column_def(name, t, !required);
}

static json_t *parse_type(struct parser *p)
{
    if (++p->depth > 16) {
        fail(p, ERR_LIMIT, "types nested too deeply");
        return NULL;
    }
    char type[64];
    if (!read_word(p, type, sizeof type, false))
        return NULL;
    for (char *c = type; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    json_t *def = json_pack("{s:s}", "type", type);
    json_t *children = NULL;
    if (strcmp(type, "list") == 0 || strcmp(type, "map") == 0 || strcmp(type, "struct") == 0) {
        if (!eat(p, '<')) {
            fail(p, ERR_MALFORMED, "expected '<' after a container type");
            goto bad;
        }
        children = json_array();
        if (strcmp(type, "list") == 0) {
            json_t *element = parse_child(p, "element", false);
            if (!element)
                goto bad;
            json_array_append_new(children, element);
        } else if (strcmp(type, "map") == 0) {
            json_t *key = parse_child(p, "key", true);
            if (!key)
                goto bad;
            json_array_append_new(children, key);
            if (!eat(p, ',')) {
                fail(p, ERR_MALFORMED, "expected ',' between a map's key and value types");
                goto bad;
            }
            json_t *value = parse_child(p, "value", false);
            if (!value)
                goto bad;
            json_array_append_new(children, value);
        } else {
            do {
                json_t *c = parse_column(p);
                if (!c)
                    goto bad;
                json_array_append_new(children, c);
            } while (eat(p, ','));
        }
        if (!eat(p, '>')) {
            fail(p, ERR_MALFORMED, "expected '>' closing a container type");
            goto bad;
        }
        json_object_set_new(def, "children", children);
        children = NULL;
    } else if (eat(p, '(')) {
        long precision, scale = 0;
        if (!read_int(p, &precision))
            goto bad;
        if (eat(p, ',') && !read_int(p, &scale))
            goto bad;
        if (!eat(p, ')')) {
            fail(p, ERR_MALFORMED, "expected ')'");
            goto bad;
        }
        json_object_set_new(
            def, "type_params",
            json_pack("{s:I,s:I}", "precision", (json_int_t)precision, "scale", (json_int_t)scale));
    }
    p->depth--;
    return def;
bad:
    json_decref(children);
    json_decref(def);
    return NULL;
}

json_t *colspec_parse_columns(const char *spec, struct error *err)
{
    struct parser p = {spec, 0, err, 0};
    json_t *cols = json_array();
    do {
        json_t *c = parse_column(&p);
        if (!c) {
            json_decref(cols);
            return NULL;
        }
        json_array_append_new(cols, c);
    } while (eat(&p, ','));
    skip_ws(&p);
    if (p.s[p.pos] != '\0') {
        fail(&p, ERR_MALFORMED, "unexpected text");
        json_decref(cols);
        return NULL;
    }
    return cols;
}

static void assign_ids(json_t *cols, json_int_t *next)
{
    size_t i;
    json_t *c;
    json_array_foreach (cols, i, c) {
        json_object_set_new(c, "field_id", json_integer((*next)++));
        json_t *kids = json_object_get(c, "children");
        if (kids)
            assign_ids(kids, next);
    }
}

void colspec_predict_field_ids(json_t *columns)
{
    /* The server assigns ids depth-first from 1 at create (contract §6.2). */
    json_int_t next = 1;
    assign_ids(columns, &next);
}

json_int_t colspec_find_field_id(const json_t *columns, const char *path)
{
    const json_t *level = columns;
    const char *seg = path;
    for (;;) {
        const char *dot = strchr(seg, '.');
        size_t len = dot ? (size_t)(dot - seg) : strlen(seg);
        const json_t *hit = NULL;
        size_t i;
        json_t *c;
        json_array_foreach (level, i, c) {
            const char *n = json_string_value(json_object_get(c, "name"));
            if (n && strlen(n) == len && strncmp(n, seg, len) == 0)
                hit = c;
        }
        if (!hit)
            return -1;
        if (!dot)
            return json_integer_value(json_object_get(hit, "field_id"));
        level = json_object_get(hit, "children");
        if (!level)
            return -1;
        seg = dot + 1;
    }
}

/* Splits a comma-separated list at top level (commas inside parentheses
 * belong to their item) and calls fn on each trimmed item. */
static bool for_each_item(const char *spec, bool (*fn)(const char *item, void *ctx), void *ctx,
                          struct error *err)
{
    char item[512];
    size_t n = 0;
    int depth = 0;
    for (const char *c = spec;; c++) {
        if (*c == '\0' || (*c == ',' && depth == 0)) {
            item[n] = '\0';
            char *start = item;
            while (isspace((unsigned char)*start))
                start++;
            char *end = start + strlen(start);
            while (end > start && isspace((unsigned char)end[-1]))
                *--end = '\0';
            if (!fn(start, ctx))
                return false;
            n = 0;
            if (*c == '\0')
                return true;
            continue;
        }
        if (*c == '(')
            depth++;
        else if (*c == ')')
            depth--;
        if (n + 1 >= sizeof item) {
            error_fail(err, ERR_LIMIT, "cannot parse '%s'", spec);
            return false;
        }
        item[n++] = *c;
    }
}

struct spec_ctx {
    const json_t *columns;
    json_t *out;
    struct error *err;
};

static bool resolve(struct spec_ctx *ctx, const char *name, json_int_t *id)
{
    *id = colspec_find_field_id(ctx->columns, name);
    if (*id < 0) {
        error_fail(ctx->err, ERR_NOT_FOUND, "no column '%s' in the table", name);
        return false;
    }
    return true;
}

static bool partition_item(const char *item, void *vctx)
{
    struct spec_ctx *ctx = vctx;
    char transform[32], arg1[256], arg2[256];
    json_int_t id;
    if (sscanf(item, "%31[a-zA-Z] ( %255[^,)] , %255[^)] )", transform, arg1, arg2) == 3) {
        char *end;
        long param = strtol(arg1, &end, 10);
        if (*end != '\0' && !isspace((unsigned char)*end)) {
            error_fail(ctx->err, ERR_MALFORMED, "'%s': the first argument must be a number", item);
            return false;
        }
        char *name = arg2;
        while (isspace((unsigned char)*name))
            name++;
        if (!resolve(ctx, name, &id))
            return false;
        json_array_append_new(ctx->out,
                              json_pack("{s:I,s:s,s:I}", "source_field_id", id, "transform",
                                        transform, "transform_param", (json_int_t)param));
        return true;
    }
    if (sscanf(item, "%31[a-zA-Z] ( %255[^) ] )", transform, arg1) == 2) {
        if (!resolve(ctx, arg1, &id))
            return false;
        json_array_append_new(
            ctx->out, json_pack("{s:I,s:s}", "source_field_id", id, "transform", transform));
        return true;
    }
    if (!resolve(ctx, item, &id))
        return false;
    json_array_append_new(ctx->out,
                          json_pack("{s:I,s:s}", "source_field_id", id, "transform", "identity"));
    return true;
}

static bool sort_item(const char *item, void *vctx)
{
    struct spec_ctx *ctx = vctx;
    char name[256], w1[16] = "", w2[16] = "", w3[16] = "";
    int n = sscanf(item, "%255s %15s %15s %15s", name, w1, w2, w3);
    if (n < 1) {
        error_fail(ctx->err, ERR_MALFORMED, "empty sort field");
        return false;
    }
    json_int_t id;
    if (!resolve(ctx, name, &id))
        return false;
    json_t *f = json_pack("{s:I}", "source_field_id", id);
    const char *nulls_word = w1;
    const char *order_word = w2;
    if (strcmp(w1, "asc") == 0 || strcmp(w1, "desc") == 0) {
        json_object_set_new(f, "direction", json_string(w1));
        nulls_word = w2;
        order_word = w3;
    }
    if (nulls_word[0]) {
        if (strcmp(nulls_word, "nulls") != 0 ||
            (strcmp(order_word, "first") != 0 && strcmp(order_word, "last") != 0)) {
            error_fail(ctx->err, ERR_MALFORMED,
                       "'%s': expected NAME [asc|desc] [nulls first|nulls last]", item);
            json_decref(f);
            return false;
        }
        json_object_set_new(
            f, "null_order",
            json_string(strcmp(order_word, "first") == 0 ? "nulls_first" : "nulls_last"));
    }
    json_array_append_new(ctx->out, f);
    return true;
}

static json_t *parse_list(const char *spec, const json_t *columns, bool (*fn)(const char *, void *),
                          struct error *err)
{
    struct spec_ctx ctx = {columns, json_array(), err};
    if (strcmp(spec, "none") == 0 || spec[0] == '\0')
        return ctx.out;
    if (!for_each_item(spec, fn, &ctx, err)) {
        json_decref(ctx.out);
        return NULL;
    }
    return ctx.out;
}

json_t *colspec_parse_partition(const char *spec, const json_t *columns, struct error *err)
{
    return parse_list(spec, columns, partition_item, err);
}

json_t *colspec_parse_sort(const char *spec, const json_t *columns, struct error *err)
{
    return parse_list(spec, columns, sort_item, err);
}
