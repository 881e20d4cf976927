#include "util/jsonnum.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

enum { RAW_TAG = 0xff, MAX_DEPTH = 2048 };

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

size_t jsonnum_span(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    if (i >= n || !is_digit(s[i]))
        return 0;
    if (s[i] == '0')
        i++;
    else
        while (i < n && is_digit(s[i]))
            i++;
    if (i < n && s[i] == '.') {
        if (++i >= n || !is_digit(s[i]))
            return 0;
        while (i < n && is_digit(s[i]))
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= n || !is_digit(s[i]))
            return 0;
        while (i < n && is_digit(s[i]))
            i++;
    }
    return i;
}

bool jsonnum_valid(const char *s, size_t n)
{
    return n > 0 && jsonnum_span(s, n) == n;
}

json_t *jsonnum_new(const char *text, size_t len)
{
    if (!jsonnum_valid(text, len) || len > SIZE_MAX - 2)
        return NULL;
    char *tmp = malloc(len + 1);
    if (!tmp)
        return NULL;
    tmp[0] = (char)RAW_TAG;
    memcpy(tmp + 1, text, len);
    json_t *v = json_stringn_nocheck(tmp, len + 1);
    free(tmp);
    return v;
}

bool jsonnum_is(const json_t *v)
{
    return json_is_string(v) && json_string_length(v) >= 2 &&
           (unsigned char)json_string_value(v)[0] == RAW_TAG;
}

const char *jsonnum_text(const json_t *v, size_t *len)
{
    if (!jsonnum_is(v))
        return NULL;
    if (len)
        *len = json_string_length(v) - 1;
    return json_string_value(v) + 1;
}

/* ---- the serializer: containers walked here, scalars printed by jansson
 * itself so that escaping and real formatting stay identical ---- */

struct dumper {
    struct buf out;
    size_t flags;      /* as given */
    size_t leaf_flags; /* what jansson gets for one scalar */
};

static int put_indent(struct dumper *d, int depth, bool space)
{
    size_t n = d->flags & JSON_MAX_INDENT;
    if (n > 0) {
        if (buf_putc(&d->out, '\n') != 0)
            return -1;
        for (size_t i = 0; i < n * (size_t)depth; i++)
            if (buf_putc(&d->out, ' ') != 0)
                return -1;
        return 0;
    }
    if (space && !(d->flags & JSON_COMPACT))
        return buf_putc(&d->out, ' ');
    return 0;
}

static int put_scalar(struct dumper *d, const json_t *v)
{
    char *s = json_dumps(v, d->leaf_flags);
    if (!s)
        return -1;
    int rc = buf_puts(&d->out, s);
    free(s);
    return rc;
}

static int put_key(struct dumper *d, const char *key, size_t len)
{
    json_t *k = json_stringn(key, len); /* refuses a key that is not UTF-8 */
    if (!k)
        return -1;
    int rc = put_scalar(d, k);
    json_decref(k);
    return rc;
}

struct keyref {
    const char *key;
    size_t len;
    json_t *value;
};

static int keyref_cmp(const void *a, const void *b)
{
    const struct keyref *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->key, y->key, n);
    if (c != 0)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

static int dump_value(struct dumper *d, const json_t *v, int depth);

static int dump_array(struct dumper *d, const json_t *v, int depth)
{
    size_t n = json_array_size(v);
    if (n == 0)
        return buf_puts(&d->out, "[]");
    if (buf_putc(&d->out, '[') != 0 || put_indent(d, depth + 1, false) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (dump_value(d, json_array_get(v, i), depth + 1) != 0)
            return -1;
        if (i + 1 < n) {
            if (buf_putc(&d->out, ',') != 0 || put_indent(d, depth + 1, true) != 0)
                return -1;
        } else if (put_indent(d, depth, false) != 0) {
            return -1;
        }
    }
    return buf_putc(&d->out, ']');
}

static int dump_object(struct dumper *d, const json_t *v, int depth)
{
    size_t n = json_object_size(v);
    if (n == 0)
        return buf_puts(&d->out, "{}");
    struct keyref *keys = malloc(n * sizeof *keys);
    if (!keys)
        return -1;
    size_t k = 0;
    const char *key;
    size_t key_len;
    json_t *value;
    json_object_keylen_foreach((json_t *)v, key, key_len, value)
    {
        if (k < n)
            keys[k++] = (struct keyref){key, key_len, value};
    }
    if (d->flags & JSON_SORT_KEYS)
        qsort(keys, k, sizeof *keys, keyref_cmp);
    const char *sep = (d->flags & JSON_COMPACT) ? ":" : ": ";
    int rc = -1;
    if (buf_putc(&d->out, '{') != 0 || put_indent(d, depth + 1, false) != 0)
        goto out;
    for (size_t i = 0; i < k; i++) {
        if (put_key(d, keys[i].key, keys[i].len) != 0 || buf_puts(&d->out, sep) != 0 ||
            dump_value(d, keys[i].value, depth + 1) != 0)
            goto out;
        if (i + 1 < k) {
            if (buf_putc(&d->out, ',') != 0 || put_indent(d, depth + 1, true) != 0)
                goto out;
        } else if (put_indent(d, depth, false) != 0) {
            goto out;
        }
    }
    rc = buf_putc(&d->out, '}');
out:
    free(keys);
    return rc;
}

static int dump_value(struct dumper *d, const json_t *v, int depth)
{
    if (!v || depth > MAX_DEPTH)
        return -1;
    if (jsonnum_is(v)) {
        size_t len = 0;
        const char *t = jsonnum_text(v, &len);
        return buf_append(&d->out, t, len);
    }
    if (json_is_array(v))
        return dump_array(d, v, depth);
    if (json_is_object(v))
        return dump_object(d, v, depth);
    return put_scalar(d, v);
}

char *jsonnum_dumps(const json_t *v, size_t flags)
{
    struct dumper d = {BUF_INIT, flags,
                       (flags & ~(size_t)(JSON_MAX_INDENT | JSON_SORT_KEYS | JSON_EMBED)) |
                           JSON_ENCODE_ANY};
    if (dump_value(&d, v, 0) != 0 || d.out.len == 0) {
        buf_free(&d.out);
        return NULL;
    }
    return buf_take(&d.out); /* NUL-terminated: the buffer is non-empty */
}

/* Whether the number token s[0..n) is an integer outside int64. */
static bool wide_integer(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
            return false;
    bool negative = s[0] == '-';
    size_t digits = n - negative;
    const char *limit = negative ? "9223372036854775808" : "9223372036854775807";
    return digits > 19 || (digits == 19 && memcmp(s + negative, limit, 19) > 0);
}

/* A copy of text with every integer token outside int64 (outside strings)
 * quoted; NULL when memory runs out. */
static char *quote_wide_integers(const char *text)
{
    size_t n = strlen(text);
    struct buf out = BUF_INIT;
    bool in_string = false, escaped = false;
    int rc = buf_reserve(&out, n + 64);
    for (size_t i = 0; rc == 0 && i < n;) {
        char c = text[i];
        size_t span = 0;
        if (in_string) {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if (c == '"') {
            in_string = true;
        } else if ((c == '-' || is_digit(c)) && (span = jsonnum_span(text + i, n - i)) > 0) {
            bool wide = wide_integer(text + i, span);
            rc = (wide ? buf_putc(&out, '"') : 0) || buf_append(&out, text + i, span) ||
                 (wide ? buf_putc(&out, '"') : 0);
            i += span;
            continue;
        }
        rc = buf_putc(&out, c);
        i++;
    }
    if (rc != 0) {
        buf_free(&out);
        return NULL;
    }
    return buf_take(&out);
}

json_t *jsonnum_loads_wide(const char *text, json_error_t *error)
{
    json_t *doc = json_loads(text, JSON_DECODE_ANY, error);
    if (doc || json_error_code(error) != json_error_numeric_overflow)
        return doc;
    char *quoted = quote_wide_integers(text);
    if (!quoted)
        return NULL;
    doc = json_loads(quoted, JSON_DECODE_ANY, error);
    free(quoted);
    return doc;
}
