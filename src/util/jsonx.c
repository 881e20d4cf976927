#include "util/jsonx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/strutil.h"

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

/* Whether the UTF-8 text holds a lone surrogate's stand-in (F4 8F A0..BF:
 * U+10F800..U+10FFFF). */
static bool has_stand_in(const char *s, size_t n)
{
    for (const char *p = memchr(s, 0xF4, n); p && (size_t)(p - s) + 3 < n;
         p = memchr(p + 1, 0xF4, n - (size_t)(p + 1 - s)))
        if ((unsigned char)p[1] == 0x8F && (unsigned char)p[2] >= 0xA0)
            return true;
    return false;
}

struct unstorable_walk {
    bool stand_ins;          /* whether to look for them */
    const char *under, *key; /* left out: key members under an `under` member */
    char *path;
    size_t size;
};

static enum jsonx_unstorable find_unstorable(const struct unstorable_walk *w, const json_t *v,
                                             size_t len, bool exempt_keys)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        return strlen(s) != n                       ? JSONX_NUL
               : w->stand_ins && has_stand_in(s, n) ? JSONX_LONE_SURROGATE
                                                    : JSONX_STORABLE;
    }
    enum jsonx_unstorable found = JSONX_STORABLE;
    if (json_is_array(v)) {
        size_t i;
        const json_t *item;
        json_array_foreach ((json_t *)v, i, item) {
            found =
                find_unstorable(w, item, push_step(w->path, w->size, len, "[%zu]", i), exempt_keys);
            if (found != JSONX_STORABLE)
                return found;
            w->path[len] = '\0';
        }
    } else if (json_is_object(v)) {
        const char *key;
        const json_t *item;
        json_object_foreach ((json_t *)v, key, item) {
            if (exempt_keys && json_is_string(item) && strcmp(key, w->key) == 0)
                continue;
            bool under = exempt_keys || (w->under && strcmp(key, w->under) == 0);
            found = find_unstorable(w, item, push_step(w->path, w->size, len, ".%s", key), under);
            if (found != JSONX_STORABLE)
                return found;
            w->path[len] = '\0';
        }
    }
    return JSONX_STORABLE;
}

enum jsonx_unstorable jsonx_find_unstorable(const json_t *v, bool stand_ins, const char *under,
                                            const char *key, char *path, size_t path_size)
{
    if (path_size < 2)
        return JSONX_STORABLE;
    path[0] = '$';
    path[1] = '\0';
    struct unstorable_walk w = {stand_ins, under, key, path, path_size};
    return find_unstorable(&w, v, 1, false);
}

/* The value of the \uXXXX escape at p (avail bytes readable), or -1. */
static long escape_unit(const char *p, size_t avail)
{
    return avail >= 6 && p[0] == '\\' && p[1] == 'u' ? str_hex4(p + 2) : -1;
}

/* Whether the integer literal t[0..n) (an optional '-', digits) lies
 * outside int64. */
static bool beyond_int64(const char *t, size_t n)
{
    bool neg = n > 0 && t[0] == '-';
    const char *d = t + neg;
    size_t nd = n - neg;
    const char *max = neg ? "9223372036854775808" : "9223372036854775807";
    return nd > 19 || (nd == 19 && memcmp(d, max, 19) > 0);
}

/* Rewrites what jansson cannot read into out (see jsonx.h); returns
 * whether anything changed, -1 when out of memory. */
static int rewrite_for_jansson(const char *text, size_t len, struct buf *out, bool *lone)
{
    size_t copied = 0; /* text[0..copied) is in out */
    bool changed = false;
    for (size_t i = 0; i < len;) {
        if (text[i] == '"') {
            for (i++; i < len && text[i] != '"'; i++) {
                if (text[i] != '\\')
                    continue;
                long u = escape_unit(text + i, len - i);
                if (u < 0xD800 || u > 0xDFFF) {
                    i++; /* an escape of one character: the next cannot start one */
                    continue;
                }
                long low = u <= 0xDBFF ? escape_unit(text + i + 6, len - i - 6) : -1;
                if (low >= 0xDC00 && low <= 0xDFFF) {
                    i += 11; /* a pair, as jansson reads it */
                    continue;
                }
                /* A lone one: written as the pair of its stand-in. */
                unsigned long cp =
                    JSONX_LONE_SURROGATE_BASE + (unsigned long)(u - 0xD800) - 0x10000;
                char pair[16];
                snprintf(pair, sizeof pair, "\\u%04lX\\u%04lX", 0xD800 + (cp >> 10),
                         0xDC00 + (cp & 0x3FF));
                if (buf_append(out, text + copied, i - copied) != 0 ||
                    buf_append(out, pair, 12) != 0)
                    return -1;
                i += 5;
                copied = i + 1;
                changed = *lone = true;
            }
            i++;
        } else if (text[i] == '-' || (text[i] >= '0' && text[i] <= '9')) {
            size_t start = i++;
            while (i < len && text[i] >= '0' && text[i] <= '9')
                i++;
            bool integer = i == len || (text[i] != '.' && text[i] != 'e' && text[i] != 'E');
            if (integer && beyond_int64(text + start, i - start)) {
                /* Read as a real, as a value that is no int64 is. */
                if (buf_append(out, text + copied, i - copied) != 0 ||
                    buf_append(out, ".0", 2) != 0)
                    return -1;
                copied = i;
                changed = true;
            }
        } else {
            i++;
        }
    }
    if (changed && buf_append(out, text + copied, len - copied) != 0)
        return -1;
    return changed;
}

json_t *jsonx_loadb_lenient(const char *text, size_t len, size_t flags, json_error_t *jerr,
                            bool *lone)
{
    bool had = false;
    struct buf out = BUF_INIT;
    int changed = rewrite_for_jansson(text, len, &out, &had);
    if (lone)
        *lone = had;
    if (changed < 0) {
        buf_free(&out);
        if (jerr)
            snprintf(jerr->text, sizeof jerr->text, "out of memory");
        return NULL;
    }
    json_t *v =
        changed ? json_loadb(out.data, out.len, flags, jerr) : json_loadb(text, len, flags, jerr);
    buf_free(&out);
    return v;
}

char *jsonx_escape_stand_ins(char *text)
{
    if (!text)
        return NULL;
    size_t n = strlen(text);
    if (!has_stand_in(text, n))
        return text;
    struct buf out = BUF_INIT;
    int rc = buf_reserve(&out, n + n / 2);
    for (size_t i = 0; rc == 0 && i < n;) {
        const unsigned char *p = (const unsigned char *)text + i;
        if (i + 3 < n && p[0] == 0xF4 && p[1] == 0x8F && p[2] >= 0xA0) {
            uint32_t cp = str_utf8_decode(p, 4);
            rc = buf_printf(&out, "\\u%04x", (unsigned)(0xD800 + (cp - JSONX_LONE_SURROGATE_BASE)));
            i += 4;
        } else {
            rc = buf_putc(&out, (char)p[0]);
            i++;
        }
    }
    free(text);
    if (rc != 0) {
        buf_free(&out);
        return NULL;
    }
    return buf_take(&out);
}

int jsonx_put_string(struct buf *b, const char *s, size_t n)
{
    int bad = buf_putc(b, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c != '"' && c != '\\' && c >= 0x20)
            continue;
        bad |= buf_append(b, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': bad |= buf_puts(b, "\\\""); break;
        case '\\': bad |= buf_puts(b, "\\\\"); break;
        case '\b': bad |= buf_puts(b, "\\b"); break;
        case '\f': bad |= buf_puts(b, "\\f"); break;
        case '\n': bad |= buf_puts(b, "\\n"); break;
        case '\r': bad |= buf_puts(b, "\\r"); break;
        case '\t': bad |= buf_puts(b, "\\t"); break;
        default: bad |= buf_printf(b, "\\u%04X", c);
        }
    }
    bad |= buf_append(b, s + run, n - run);
    bad |= buf_putc(b, '"');
    return bad ? -1 : 0;
}
