#include "util/jsonx.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *type_name(enum jfield_type t)
{
    switch (t) {
    case JF_STRING: return "a string";
    case JF_INT: return "an integer";
    case JF_BOOL: return "a boolean";
    case JF_OBJECT: return "an object";
    case JF_ARRAY: return "an array";
    case JF_ANY: return "a value";
    }
    return "a value";
}

static bool type_matches(const json_t *v, enum jfield_type t)
{
    switch (t) {
    case JF_STRING: return json_is_string(v);
    case JF_INT: return json_is_integer(v);
    case JF_BOOL: return json_is_boolean(v);
    case JF_OBJECT: return json_is_object(v);
    case JF_ARRAY: return json_is_array(v);
    case JF_ANY: return true;
    }
    return false;
}

static const char *sep(const char *where)
{
    return where[0] ? "." : "";
}

int jsonx_read_object(const json_t *obj, const char *where, const struct jfield *fields,
                      size_t nfields, struct error *err)
{
    if (!json_is_object(obj)) {
        return error_fail(err, ERR_MALFORMED, "%s must be a JSON object",
                          where[0] ? where : "the body");
    }
    const char *key;
    const json_t *value;
    json_object_foreach ((json_t *)obj, key, value) {
        bool known = false;
        for (size_t i = 0; i < nfields; i++) {
            if (strcmp(fields[i].name, key) == 0) {
                known = true;
                break;
            }
        }
        if (!known) {
            return error_fail(err, ERR_MALFORMED, "unknown field '%s%s%.200s'", where, sep(where),
                              key);
        }
    }
    for (size_t i = 0; i < nfields; i++) {
        const struct jfield *f = &fields[i];
        json_t *v = json_object_get(obj, f->name);
        *f->out = NULL;
        if (!v) {
            if (f->required) {
                return error_fail(err, ERR_MALFORMED, "missing required field '%s%s%s'", where,
                                  sep(where), f->name);
            }
            continue;
        }
        if (json_is_null(v)) {
            if (!f->nullable) {
                return error_fail(err, ERR_MALFORMED, "field '%s%s%s' must not be null", where,
                                  sep(where), f->name);
            }
            *f->out = v;
            continue;
        }
        if (!type_matches(v, f->type)) {
            return error_fail(err, ERR_MALFORMED, "field '%s%s%s' must be %s", where, sep(where),
                              f->name, type_name(f->type));
        }
        *f->out = v;
    }
    return 0;
}

/* Appends a path step; a path that no longer fits keeps its prefix and
 * ends in "..." (detection never depends on the path fitting). */
static size_t push_step(char *path, size_t size, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t push_step(char *path, size_t size, size_t len, const char *fmt, ...)
{
    if (len + 4 >= size)
        return len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(path + len, size - len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size - len - 4) {
        memcpy(path + size - 4, "...", 4);
        return size - 1;
    }
    return len + (size_t)n;
}

static bool find_nul(const json_t *v, char *path, size_t size, size_t len)
{
    if (json_is_string(v))
        return strlen(json_string_value(v)) != json_string_length(v);
    if (json_is_array(v)) {
        size_t i;
        const json_t *item;
        json_array_foreach ((json_t *)v, i, item) {
            if (find_nul(item, path, size, push_step(path, size, len, "[%zu]", i)))
                return true;
            path[len] = '\0';
        }
    } else if (json_is_object(v)) {
        const char *key;
        const json_t *item;
        json_object_foreach ((json_t *)v, key, item) {
            if (find_nul(item, path, size, push_step(path, size, len, ".%s", key)))
                return true;
            path[len] = '\0';
        }
    }
    return false;
}

bool jsonx_find_nul(const json_t *v, char *path, size_t path_size)
{
    if (path_size < 2)
        return false;
    path[0] = '$';
    path[1] = '\0';
    return find_nul(v, path, path_size, 1);
}
