#include "rows/rows_json.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/strutil.h"
#include "util/jsonnum.h"

struct rjp {
    const char *s;
    size_t n, pos;
    struct arena *a; /* NULL: validate only */
    struct error *err;
    int depth;
    struct buf scratch;
};

static bool fail(struct rjp *p, enum error_code code, const char *what)
{
    error_fail(p->err, code, "at byte %zu: %s", p->pos + 1, what);
    return false;
}

static void skip_ws(struct rjp *p)
{
    while (p->pos < p->n) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static bool literal(struct rjp *p, const char *word, enum rj_type t, struct rj_value *out)
{
    size_t k = strlen(word);
    if (p->n - p->pos < k || memcmp(p->s + p->pos, word, k) != 0)
        return fail(p, ERR_MALFORMED, "expected a JSON value");
    p->pos += k;
    out->type = t;
    return true;
}

static char *keep(struct rjp *p, const char *s, size_t n)
{
    if (!p->a)
        return (char *)"";
    return arena_strndup(p->a, s, n);
}

static bool number(struct rjp *p, struct rj_value *out)
{
    size_t len = jsonnum_span(p->s + p->pos, p->n - p->pos);
    if (len == 0)
        return fail(p, ERR_MALFORMED, "expected a JSON value");
    out->type = RJ_NUMBER;
    out->len = len;
    out->str = keep(p, p->s + p->pos, len);
    p->pos += len;
    return out->str != NULL || fail(p, ERR_NOMEM, "out of memory");
}

/* An escape after the backslash at p->pos; appends its bytes. */
static bool escape(struct rjp *p, struct buf *b)
{
    const char *s = p->s;
    char c = p->pos + 1 < p->n ? s[p->pos + 1] : '\0';
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *hit = c ? strchr(from, c) : NULL;
    if (hit) {
        buf_putc(b, to[hit - from]);
        p->pos += 2;
        return true;
    }
    if (c != 'u')
        return fail(p, ERR_MALFORMED, "bad escape in a string");
    int v = p->n - p->pos >= 6 ? str_hex4(s + p->pos + 2) : -1;
    if (v < 0)
        return fail(p, ERR_MALFORMED, "bad \\u escape");
    p->pos += 6;
    uint32_t cp = (uint32_t)v;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return fail(p, ERR_MALFORMED, "a lone low surrogate in a \\u escape");
    if (cp >= 0xd800 && cp <= 0xdbff) {
        int lo = p->n - p->pos >= 6 && s[p->pos] == '\\' && s[p->pos + 1] == 'u'
                     ? str_hex4(s + p->pos + 2)
                     : -1;
        if (lo < 0xdc00 || lo > 0xdfff)
            return fail(p, ERR_MALFORMED, "a high surrogate not followed by a low one");
        p->pos += 6;
        cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
    }
    char u[4];
    buf_append(b, u, str_utf8_encode(cp, u));
    return true;
}

static bool string(struct rjp *p, const char **out, size_t *len)
{
    p->pos++; /* the opening quote */
    struct buf *b = &p->scratch;
    buf_reset(b);
    const unsigned char *s = (const unsigned char *)p->s;
    for (;;) {
        size_t run = p->pos;
        while (run < p->n && s[run] != '"' && s[run] != '\\' && s[run] >= 0x20 && s[run] < 0x80)
            run++;
        buf_append(b, p->s + p->pos, run - p->pos);
        p->pos = run;
        if (p->pos >= p->n)
            return fail(p, ERR_MALFORMED, "unterminated string");
        unsigned char c = s[p->pos];
        if (c == '"')
            break;
        if (c == '\\') {
            if (!escape(p, b))
                return false;
        } else if (c < 0x20) {
            return fail(p, ERR_MALFORMED, "a control character in a string (escape it)");
        } else {
            size_t k = str_utf8_seq(s + p->pos, p->n - p->pos);
            if (k == 0)
                return fail(p, ERR_MALFORMED, "invalid UTF-8");
            buf_append(b, p->s + p->pos, k);
            p->pos += k;
        }
    }
    p->pos++;
    *len = b->len;
    *out = keep(p, b->data ? b->data : "", b->len);
    return *out != NULL || fail(p, ERR_NOMEM, "out of memory");
}

struct vec {
    struct rj_value *items;
    const char **keys;
    size_t *key_lens;
    size_t n, cap;
};

static bool vec_push(struct rjp *p, struct vec *v, const struct rj_value *item, const char *key,
                     size_t key_len)
{
    if (!p->a)
        return true;
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        struct rj_value *items = realloc(v->items, cap * sizeof *items);
        if (items)
            v->items = items;
        const char **keys = realloc(v->keys, cap * sizeof *keys);
        if (keys)
            v->keys = keys;
        size_t *lens = realloc(v->key_lens, cap * sizeof *lens);
        if (lens)
            v->key_lens = lens;
        if (!items || !keys || !lens)
            return fail(p, ERR_NOMEM, "out of memory");
        v->cap = cap;
    }
    v->items[v->n] = *item;
    v->keys[v->n] = key;
    v->key_lens[v->n++] = key_len;
    return true;
}

static void vec_free(struct vec *v)
{
    free(v->items);
    free(v->keys);
    free(v->key_lens);
}

/* Moves the collected members into the arena. */
static bool vec_finish(struct rjp *p, struct vec *v, bool object, struct rj_value *out)
{
    out->n = v->n;
    if (!p->a || v->n == 0)
        return true;
    out->items = arena_alloc(p->a, v->n * sizeof *out->items);
    if (!out->items)
        return fail(p, ERR_NOMEM, "out of memory");
    memcpy(out->items, v->items, v->n * sizeof *out->items);
    if (object) {
        out->keys = arena_alloc(p->a, v->n * sizeof *out->keys);
        out->key_lens = arena_alloc(p->a, v->n * sizeof *out->key_lens);
        if (!out->keys || !out->key_lens)
            return fail(p, ERR_NOMEM, "out of memory");
        memcpy(out->keys, v->keys, v->n * sizeof *out->keys);
        memcpy(out->key_lens, v->key_lens, v->n * sizeof *out->key_lens);
    }
    return true;
}

static bool value(struct rjp *p, struct rj_value *out);

static bool container(struct rjp *p, struct rj_value *out, bool object)
{
    if (++p->depth > RJ_MAX_DEPTH)
        return fail(p, ERR_LIMIT, "nested too deeply");
    out->type = object ? RJ_OBJECT : RJ_ARRAY;
    char close = object ? '}' : ']';
    p->pos++;
    struct vec v = {0};
    bool ok = true;
    skip_ws(p);
    if (p->pos < p->n && p->s[p->pos] == close) {
        p->pos++;
    } else {
        for (;;) {
            const char *key = NULL;
            size_t key_len = 0;
            skip_ws(p);
            if (object) {
                if (p->pos >= p->n || p->s[p->pos] != '"') {
                    ok = fail(p, ERR_MALFORMED, "expected a string key");
                    break;
                }
                if (!string(p, &key, &key_len)) {
                    ok = false;
                    break;
                }
                skip_ws(p);
                if (p->pos >= p->n || p->s[p->pos] != ':') {
                    ok = fail(p, ERR_MALFORMED, "expected ':'");
                    break;
                }
                p->pos++;
            }
            struct rj_value item = {0};
            if (!value(p, &item) || !vec_push(p, &v, &item, key, key_len)) {
                ok = false;
                break;
            }
            skip_ws(p);
            if (p->pos < p->n && p->s[p->pos] == ',') {
                p->pos++;
                continue;
            }
            if (p->pos < p->n && p->s[p->pos] == close) {
                p->pos++;
                break;
            }
            ok = fail(p, ERR_MALFORMED, object ? "expected ',' or '}'" : "expected ',' or ']'");
            break;
        }
    }
    ok = ok && vec_finish(p, &v, object, out);
    vec_free(&v);
    p->depth--;
    return ok;
}

static bool value(struct rjp *p, struct rj_value *out)
{
    skip_ws(p);
    if (p->pos >= p->n)
        return fail(p, ERR_MALFORMED, "expected a JSON value");
    switch (p->s[p->pos]) {
    case '{': return container(p, out, true);
    case '[': return container(p, out, false);
    case '"': out->type = RJ_STRING; return string(p, &out->str, &out->len);
    case 't': return literal(p, "true", RJ_TRUE, out);
    case 'f': return literal(p, "false", RJ_FALSE, out);
    case 'n': return literal(p, "null", RJ_NULL, out);
    default: return number(p, out);
    }
}

const struct rj_value *rj_parse(const char *text, size_t len, struct arena *a, struct error *err)
{
    static const struct rj_value dummy = {RJ_NULL, NULL, 0, NULL, NULL, NULL, 0};
    struct rjp p = {text, len, 0, a, err, 0, BUF_INIT};
    /* Without an arena the text is only validated, into a throwaway value. */
    struct rj_value scratch_value = {0};
    struct rj_value *out = a ? arena_calloc(a, 1, sizeof *out) : NULL;
    if (a && !out) {
        error_nomem(err);
        return NULL;
    }
    bool ok = value(&p, out ? out : &scratch_value);
    if (ok) {
        skip_ws(&p);
        if (p.pos != p.n)
            ok = fail(&p, ERR_MALFORMED, "unexpected text after the JSON value");
    }
    buf_free(&p.scratch);
    if (!ok)
        return NULL;
    return out ? out : &dummy;
}

bool rj_key_is(const struct rj_value *obj, size_t i, const char *s)
{
    size_t n = strlen(s);
    return obj->key_lens[i] == n && memcmp(obj->keys[i], s, n) == 0;
}

const char *rj_type_name(enum rj_type t)
{
    switch (t) {
    case RJ_NULL: return "null";
    case RJ_FALSE:
    case RJ_TRUE: return "a boolean";
    case RJ_NUMBER: return "a number";
    case RJ_STRING: return "a string";
    case RJ_ARRAY: return "an array";
    case RJ_OBJECT: return "an object";
    }
    return "a value";
}
