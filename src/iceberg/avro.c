/* Avro binary encoding: zigzag varints and values (json_t <-> bytes). */
#include "iceberg/avro_internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/base64.h"
#include "util/bytes.h"
#include "util/strutil.h"

/* Puts `what: ` in front of the message, so a failure deep in a record
 * names its path ("data_file: partition: ts_day: expected int"). */
static int prefix_path(struct error *err, const char *what)
{
    if (!err)
        return -1;
    size_t wl = strlen(what), ol = strnlen(err->msg, sizeof err->msg - 1);
    if (wl + 2 >= sizeof err->msg)
        return -1;
    size_t keep = ol < sizeof err->msg - 1 - wl - 2 ? ol : sizeof err->msg - 1 - wl - 2;
    memmove(err->msg + wl + 2, err->msg, keep);
    memcpy(err->msg, what, wl);
    memcpy(err->msg + wl, ": ", 2);
    err->msg[wl + 2 + keep] = '\0';
    return -1;
}

/* ---- zigzag varints ---- */

size_t avro_zigzag_encode_int(int32_t v, uint8_t out[5])
{
    /* Shifts on unsigned values: left-shifting a negative int is undefined. */
    return varint_encode((uint32_t)zigzag_encode(v), out);
}

size_t avro_zigzag_encode_long(int64_t v, uint8_t out[AVRO_MAX_VARINT])
{
    return varint_encode(zigzag_encode(v), out);
}

int avro_zigzag_decode_long(const uint8_t *p, size_t avail, int64_t *out, size_t *used)
{
    uint64_t u;
    if ((*used = varint_decode(p, avail, 64, &u)) == 0)
        return -1;
    *out = zigzag_decode(u);
    return 0;
}

int avro_zigzag_decode_int(const uint8_t *p, size_t avail, int32_t *out, size_t *used)
{
    uint64_t u;
    if ((*used = varint_decode(p, avail, 32, &u)) == 0)
        return -1;
    *out = (int32_t)zigzag_decode(u);
    return 0;
}

int avro_put_long(struct buf *b, int64_t v)
{
    uint8_t tmp[AVRO_MAX_VARINT];
    return buf_append(b, tmp, avro_zigzag_encode_long(v, tmp));
}

/* ---- encoding ---- */

static int put_bytes(struct buf *out, const void *p, size_t n)
{
    if (avro_put_long(out, (int64_t)n) < 0 || buf_append(out, p, n) < 0)
        return -1;
    return 0;
}

static int put_le(struct buf *out, uint64_t u, size_t n)
{
    uint8_t b[8];
    le_store(b, u, n);
    return buf_append(out, b, n);
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER: return "integer";
    case JSON_REAL: return "real";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

static int mismatch(struct error *err, const char *want, const json_t *v)
{
    return error_fail(err, ERR_INVALID, "expected %s, got %s", want, json_kind(v));
}

static int nomem(struct error *err)
{
    return error_fail(err, ERR_NOMEM, "out of memory");
}

/* A float or double value: a JSON number or one of the non-finite names. */
static int number_value(const json_t *v, double *d, struct error *err)
{
    if (json_is_number(v)) {
        *d = json_number_value(v);
        return 0;
    }
    const char *s = json_string_value(v);
    if (s && strcmp(s, "NaN") == 0)
        *d = NAN;
    else if (s && strcmp(s, "Infinity") == 0)
        *d = INFINITY;
    else if (s && strcmp(s, "-Infinity") == 0)
        *d = -INFINITY;
    else
        return mismatch(err, "a number, \"NaN\", \"Infinity\" or \"-Infinity\"", v);
    return 0;
}

/* bytes and fixed: base64 text to raw bytes in tmp. */
static int binary_value(const json_t *v, struct buf *tmp, struct error *err)
{
    if (!json_is_string(v))
        return mismatch(err, "base64 string", v);
    const char *bad = base64_decode(json_string_value(v), json_string_length(v), tmp);
    if (bad) {
        if (strcmp(bad, "out of memory") == 0)
            return nomem(err);
        return error_fail(err, ERR_INVALID, "not base64: %s", bad);
    }
    return 0;
}

static int encode_node(const struct avro_node *n, const json_t *v, struct buf *out, int depth,
                       struct error *err);

static int encode_record(const struct avro_node *n, const json_t *v, struct buf *out, int depth,
                         struct error *err)
{
    if (!json_is_object(v))
        return mismatch(err, "object (record)", v);
    const char *key;
    json_t *member;
    json_object_foreach ((json_t *)v, key, member) {
        if (!avro_record_field(n, key))
            return error_fail(err, ERR_INVALID, "record %s has no field \"%s\"", n->name, key);
    }
    for (size_t i = 0; i < n->nfields; i++) {
        const struct avro_field *f = &n->fields[i];
        const json_t *fv = json_object_get(v, f->name);
        int rc;
        if (fv) {
            rc = encode_node(f->type, fv, out, depth + 1, err);
        } else if (!f->default_value) {
            return error_fail(err, ERR_INVALID, "missing field \"%s\" (no default)", f->name);
        } else if (f->type->type == AVRO_UNION) {
            /* A union's default belongs to its first branch (spec). */
            rc = f->type->nbranches == 0 ? error_fail(err, ERR_INVALID, "empty union")
                 : avro_put_long(out, 0) < 0
                     ? nomem(err)
                     : encode_node(f->type->branches[0], f->default_value, out, depth + 1, err);
        } else {
            rc = encode_node(f->type, f->default_value, out, depth + 1, err);
        }
        if (rc < 0)
            return err && err->code == ERR_NOMEM ? -1 : prefix_path(err, f->name);
    }
    return 0;
}

static int encode_union(const struct avro_node *n, const json_t *v, struct buf *out, int depth,
                        struct error *err)
{
    size_t mark = out->len;
    for (size_t i = 0; i < n->nbranches; i++) {
        struct error trial = {0};
        if (avro_put_long(out, (int64_t)i) < 0)
            return nomem(err);
        if (encode_node(n->branches[i], v, out, depth + 1, &trial) == 0)
            return 0;
        out->len = mark;
        if (trial.code == ERR_NOMEM)
            return nomem(err);
    }
    return error_fail(err, ERR_INVALID, "%s fits no branch of the union", json_kind(v));
}

static int encode_items(const struct avro_node *n, const json_t *v, struct buf *out, int depth,
                        struct error *err)
{
    size_t count = n->type == AVRO_ARRAY ? json_array_size(v) : json_object_size(v);
    if (count > 0 && avro_put_long(out, (int64_t)count) < 0)
        return nomem(err);
    if (n->type == AVRO_ARRAY) {
        for (size_t i = 0; i < count; i++) {
            if (encode_node(n->items, json_array_get(v, i), out, depth + 1, err) < 0) {
                char where[32];
                snprintf(where, sizeof where, "[%zu]", i);
                return err && err->code == ERR_NOMEM ? -1 : prefix_path(err, where);
            }
        }
    } else {
        const char *key;
        size_t klen;
        json_t *member;
        json_object_keylen_foreach((json_t *)v, key, klen, member)
        {
            if (put_bytes(out, key, klen) < 0)
                return nomem(err);
            if (encode_node(n->items, member, out, depth + 1, err) < 0)
                return err && err->code == ERR_NOMEM ? -1 : prefix_path(err, key);
        }
    }
    return avro_put_long(out, 0) < 0 ? nomem(err) : 0;
}

static int encode_node(const struct avro_node *n, const json_t *v, struct buf *out, int depth,
                       struct error *err)
{
    if (depth > AVRO_MAX_DEPTH)
        return error_fail(err, ERR_INVALID, "value nests deeper than %d", AVRO_MAX_DEPTH);
    int rc = 0;
    switch (n->type) {
    case AVRO_NULL: return json_is_null(v) ? 0 : mismatch(err, "null", v);
    case AVRO_BOOLEAN:
        if (!json_is_boolean(v))
            return mismatch(err, "boolean", v);
        rc = buf_putc(out, json_is_true(v) ? 1 : 0);
        break;
    case AVRO_INT:
    case AVRO_LONG: {
        if (!json_is_integer(v))
            return mismatch(err, n->type == AVRO_INT ? "int" : "long", v);
        json_int_t x = json_integer_value(v);
        if (n->type == AVRO_INT && (x < INT32_MIN || x > INT32_MAX))
            return error_fail(err, ERR_INVALID, "%lld is out of int range", (long long)x);
        rc = avro_put_long(out, (int64_t)x);
        break;
    }
    case AVRO_FLOAT: {
        double d;
        if (number_value(v, &d, err) < 0)
            return -1;
        if (isfinite(d) && fabs(d) > FLT_MAX)
            return error_fail(err, ERR_INVALID, "%g is out of float range", d);
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        rc = put_le(out, u, 4);
        break;
    }
    case AVRO_DOUBLE: {
        double d;
        if (number_value(v, &d, err) < 0)
            return -1;
        uint64_t u;
        memcpy(&u, &d, 8);
        rc = put_le(out, u, 8);
        break;
    }
    case AVRO_STRING:
        if (!json_is_string(v))
            return mismatch(err, "string", v);
        rc = put_bytes(out, json_string_value(v), json_string_length(v));
        break;
    case AVRO_BYTES:
    case AVRO_FIXED: {
        struct buf tmp = BUF_INIT;
        if (binary_value(v, &tmp, err) < 0) {
            buf_free(&tmp);
            return -1;
        }
        if (n->type == AVRO_FIXED && tmp.len != n->size) {
            buf_free(&tmp);
            return error_fail(err, ERR_INVALID, "fixed %s takes %zu bytes, got %zu", n->name,
                              n->size, tmp.len);
        }
        rc = n->type == AVRO_FIXED ? buf_append(out, tmp.data, tmp.len)
                                   : put_bytes(out, tmp.data, tmp.len);
        buf_free(&tmp);
        break;
    }
    case AVRO_ENUM: {
        const char *s = json_string_value(v);
        if (!s)
            return mismatch(err, "enum symbol", v);
        for (size_t i = 0; i < n->nsymbols; i++) {
            if (strcmp(n->symbols[i], s) == 0)
                return avro_put_long(out, (int64_t)i) < 0 ? nomem(err) : 0;
        }
        return error_fail(err, ERR_INVALID, "\"%s\" is not a symbol of enum %s", s, n->name);
    }
    case AVRO_ARRAY:
        if (!json_is_array(v))
            return mismatch(err, "array", v);
        return encode_items(n, v, out, depth, err);
    case AVRO_MAP:
        if (!json_is_object(v))
            return mismatch(err, "object (map)", v);
        return encode_items(n, v, out, depth, err);
    case AVRO_RECORD: return encode_record(n, v, out, depth, err);
    case AVRO_UNION: return encode_union(n, v, out, depth, err);
    }
    return rc < 0 ? nomem(err) : 0;
}

int avro_encode(const struct avro_node *schema, const json_t *value, struct buf *out,
                struct error *err)
{
    if (!schema || !value || !out)
        return error_fail(err, ERR_INVALID, "avro_encode: NULL argument");
    size_t mark = out->len;
    if (encode_node(schema, value, out, 0, err) < 0) {
        out->len = mark;
        if (out->data)
            out->data[mark] = '\0';
        return -1;
    }
    return 0;
}

/* ---- decoding ---- */

static int truncated(struct error *err, const char *what)
{
    return error_fail(err, ERR_CORRUPT, "truncated %s", what);
}

int avro_cursor_long(struct avro_cursor *c, int64_t *v, struct error *err)
{
    size_t used;
    if (avro_zigzag_decode_long(c->p, c->avail, v, &used) < 0)
        return error_fail(err, ERR_CORRUPT,
                          c->avail < AVRO_MAX_VARINT ? "truncated varint" : "overlong varint");
    c->p += used;
    c->avail -= used;
    return 0;
}

static int cursor_take(struct avro_cursor *c, size_t n, const uint8_t **p, struct error *err,
                       const char *what)
{
    *p = NULL; /* set on every path: callers read it only on success */
    if (n > c->avail)
        return truncated(err, what);
    *p = c->p;
    c->p += n;
    c->avail -= n;
    return 0;
}

/* A length or count that must fit in what is left: the cheapest guard
 * against a hostile varint asking for a huge allocation. */
static int cursor_length(struct avro_cursor *c, size_t *len, struct error *err, const char *what)
{
    *len = 0; /* set on every path: callers read it only on success */
    int64_t v;
    if (avro_cursor_long(c, &v, err) < 0)
        return -1;
    if (v < 0)
        return error_fail(err, ERR_CORRUPT, "negative %s length %lld", what, (long long)v);
    if ((uint64_t)v > c->avail)
        return truncated(err, what);
    *len = (size_t)v;
    return 0;
}

static json_t *decoded_double(double d)
{
    if (isnan(d))
        return json_string("NaN");
    if (isinf(d))
        return json_string(d > 0 ? "Infinity" : "-Infinity");
    return json_real(d);
}

static uint64_t get_le(const uint8_t *p, size_t n)
{
    uint64_t u = 0;
    for (size_t i = 0; i < n; i++)
        u |= (uint64_t)p[i] << (8 * i);
    return u;
}

static json_t *base64_json(const uint8_t *p, size_t n)
{
    struct buf tmp = BUF_INIT;
    if (base64_encode(&tmp, p, n) < 0)
        return NULL;
    json_t *s = json_stringn(tmp.data ? tmp.data : "", tmp.len);
    buf_free(&tmp);
    return s;
}

static json_t *utf8_json(const uint8_t *p, size_t n, struct error *err)
{
    if (!str_utf8_valid((const char *)p, n, NULL)) {
        error_fail(err, ERR_CORRUPT, "string is not valid UTF-8");
        return NULL;
    }
    json_t *s = json_stringn((const char *)p, n);
    if (!s)
        nomem(err);
    return s;
}

/* Items of an array or map, in blocks of (count[, byte size], items)
 * ending with count 0; a negative count is followed by the block size. */
static int decode_items(const struct avro_node *n, struct avro_cursor *c, int depth, json_t *dst,
                        struct error *err)
{
    for (;;) {
        int64_t count;
        if (avro_cursor_long(c, &count, err) < 0)
            return -1;
        if (count == 0)
            return 0;
        if (count < 0) {
            int64_t size;
            if (count == INT64_MIN)
                return error_fail(err, ERR_CORRUPT, "absurd block count");
            count = -count;
            if (avro_cursor_long(c, &size, err) < 0)
                return -1;
            if (size < 0 || (uint64_t)size > c->avail)
                return error_fail(err, ERR_CORRUPT, "bad block size %lld", (long long)size);
        }
        size_t item_min = n->items->min_bytes + (n->type == AVRO_MAP ? 1 : 0);
        if (item_min > 0 && (uint64_t)count > c->avail / item_min)
            return error_fail(err, ERR_CORRUPT, "count %lld exceeds the data left",
                              (long long)count);
        if (item_min == 0) {
            if ((uint64_t)count > *c->empty_budget)
                return error_fail(err, ERR_CORRUPT, "too many empty values (%lld)",
                                  (long long)count);
            *c->empty_budget -= (uint64_t)count;
        }
        for (int64_t i = 0; i < count; i++) {
            json_t *item = NULL;
            if (n->type == AVRO_MAP) {
                size_t klen;
                const uint8_t *k;
                if (cursor_length(c, &klen, err, "map key") < 0 ||
                    cursor_take(c, klen, &k, err, "map key") < 0)
                    return -1;
                if (!str_utf8_valid((const char *)k, klen, NULL) || memchr(k, 0, klen))
                    return error_fail(err, ERR_CORRUPT, "map key is not UTF-8 text");
                if (avro_decode_value(n->items, c, depth + 1, &item, err) < 0)
                    return -1;
                if (json_object_setn_new(dst, (const char *)k, klen, item) < 0)
                    return nomem(err);
            } else {
                if (avro_decode_value(n->items, c, depth + 1, &item, err) < 0)
                    return -1;
                if (json_array_append_new(dst, item) < 0)
                    return nomem(err);
            }
        }
    }
}

static int decode_record(const struct avro_node *n, struct avro_cursor *c, int depth, json_t *dst,
                         struct error *err)
{
    for (size_t i = 0; i < n->nfields; i++) {
        json_t *fv = NULL;
        if (avro_decode_value(n->fields[i].type, c, depth + 1, &fv, err) < 0)
            return -1;
        if (json_object_set_new(dst, n->fields[i].name, fv) < 0)
            return nomem(err);
    }
    return 0;
}

int avro_decode_value(const struct avro_node *n, struct avro_cursor *c, int depth, json_t **out,
                      struct error *err)
{
    *out = NULL;
    if (depth > AVRO_MAX_DEPTH)
        return error_fail(err, ERR_CORRUPT, "value nests deeper than %d", AVRO_MAX_DEPTH);
    const uint8_t *p;
    size_t len;
    json_t *v = NULL;
    switch (n->type) {
    case AVRO_NULL: v = json_null(); break;
    case AVRO_BOOLEAN:
        if (cursor_take(c, 1, &p, err, "boolean") < 0)
            return -1;
        if (*p > 1)
            return error_fail(err, ERR_CORRUPT, "boolean byte %u", *p);
        v = json_boolean(*p);
        break;
    case AVRO_INT:
    case AVRO_LONG: {
        int64_t x;
        if (avro_cursor_long(c, &x, err) < 0)
            return -1;
        if (n->type == AVRO_INT && (x < INT32_MIN || x > INT32_MAX))
            return error_fail(err, ERR_CORRUPT, "int out of range");
        v = json_integer((json_int_t)x);
        break;
    }
    case AVRO_FLOAT: {
        if (cursor_take(c, 4, &p, err, "float") < 0)
            return -1;
        uint32_t u = (uint32_t)get_le(p, 4);
        float f;
        memcpy(&f, &u, 4);
        v = decoded_double((double)f);
        break;
    }
    case AVRO_DOUBLE: {
        if (cursor_take(c, 8, &p, err, "double") < 0)
            return -1;
        uint64_t u = get_le(p, 8);
        double d;
        memcpy(&d, &u, 8);
        v = decoded_double(d);
        break;
    }
    case AVRO_STRING:
        if (cursor_length(c, &len, err, "string") < 0 || cursor_take(c, len, &p, err, "string") < 0)
            return -1;
        *out = utf8_json(p, len, err);
        return *out ? 0 : -1;
    case AVRO_BYTES:
        if (cursor_length(c, &len, err, "bytes") < 0 || cursor_take(c, len, &p, err, "bytes") < 0)
            return -1;
        v = base64_json(p, len);
        break;
    case AVRO_FIXED:
        if (cursor_take(c, n->size, &p, err, "fixed") < 0)
            return -1;
        v = base64_json(p, n->size);
        break;
    case AVRO_ENUM: {
        int64_t i;
        if (avro_cursor_long(c, &i, err) < 0)
            return -1;
        if (i < 0 || (uint64_t)i >= n->nsymbols)
            return error_fail(err, ERR_CORRUPT, "enum index %lld out of range", (long long)i);
        v = json_string(n->symbols[i]);
        break;
    }
    case AVRO_UNION: {
        int64_t i;
        if (avro_cursor_long(c, &i, err) < 0)
            return -1;
        if (i < 0 || (uint64_t)i >= n->nbranches)
            return error_fail(err, ERR_CORRUPT, "union branch %lld out of range", (long long)i);
        return avro_decode_value(n->branches[i], c, depth + 1, out, err);
    }
    case AVRO_ARRAY:
    case AVRO_MAP:
    case AVRO_RECORD: {
        json_t *dst = n->type == AVRO_ARRAY ? json_array() : json_object();
        if (!dst)
            return nomem(err);
        int rc = n->type == AVRO_RECORD ? decode_record(n, c, depth, dst, err)
                                        : decode_items(n, c, depth, dst, err);
        if (rc < 0) {
            json_decref(dst);
            return -1;
        }
        *out = dst;
        return 0;
    }
    }
    if (!v)
        return nomem(err);
    *out = v;
    return 0;
}

int avro_decode(const struct avro_node *schema, const uint8_t *p, size_t avail, json_t **out,
                size_t *used, struct error *err)
{
    if (!schema || (!p && avail) || !out)
        return error_fail(err, ERR_INVALID, "avro_decode: NULL argument");
    /* One value: allow as many empty values as a whole reader would. */
    uint64_t budget = (uint64_t)1 << 22;
    struct avro_cursor c = {p, avail, &budget};
    if (avro_decode_value(schema, &c, 0, out, err) < 0)
        return -1;
    if (used)
        *used = avail - c.avail;
    return 0;
}
