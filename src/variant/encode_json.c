/* JSON text to the canonical Variant encoding: see variant.h.
 *
 * The text is parsed into a tree (keys interned as they come), the
 * dictionary sorted once the keys are all known, then each node's size is
 * computed bottom-up and the bytes written top-down into their final
 * place: no value is copied or re-encoded. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/hash.h"
#include "util/strutil.h"
#include "variant/variant.h"
#include "variant/variant_format.h"

enum node_kind { N_NULL, N_TRUE, N_FALSE, N_INT, N_DOUBLE, N_DECIMAL, N_STRING, N_ARRAY, N_OBJECT };

struct node;

struct field {
    uint32_t key; /* the key's index among those interned, then its id */
    struct node *value;
};

struct node {
    enum node_kind kind;
    uint32_t n;  /* a string's bytes, a container's elements */
    size_t size; /* encoded bytes, once measured */
    union {
        int64_t i;
        double d;
        __extension__ __int128 dec;
        const char *s;
        struct node **items;
        struct field *fields;
    } u;
};

struct key {
    const char *s;
    uint32_t len;
    uint32_t id; /* in the sorted dictionary */
};

/* Kept from one value to the next (variant_encoder): its memory, and the
 * last dictionary's keys and order, which the next value reuses when it
 * has the same keys in the same order (rows of one source mostly do). */
struct encoder {
    const char *p, *end, *start;
    struct arena arena;
    struct key *keys;
    size_t nkeys, keys_cap;
    uint32_t *slots; /* open addressing over keys: index + 1, 0 empty */
    size_t nslots;
    struct buf scratch; /* a string being unescaped */
    /* The string read last: in the input when it has no escape (which is
     * alive for the whole call), else in scratch. */
    const char *str;
    size_t str_len;
    bool str_in_input;
    /* Elements and fields of the containers being read, innermost last:
     * each container pops its own into the arena when it closes. */
    struct node **items;
    size_t nitems, items_cap;
    struct field *fields;
    size_t nfields, fields_cap;
    struct key **order; /* the dictionary, sorted */
    size_t order_cap;
    struct buf last_keys; /* the last value's keys, in the order met */
    uint32_t *last_ranks; /* and each one's rank in its sorted dictionary */
    size_t nlast, last_cap;
    struct error *err;
};

static int bad_json(struct encoder *e, const char *what)
{
    return error_fail_reason(e->err, ERR_INVALID, "invalid_json", "invalid JSON at byte %zu: %s",
                             (size_t)(e->p - e->start), what);
}

static void skip_ws(struct encoder *e)
{
    while (e->p < e->end && (*e->p == ' ' || *e->p == '\t' || *e->p == '\n' || *e->p == '\r'))
        e->p++;
}

static struct node *new_node(struct encoder *e, enum node_kind kind)
{
    struct node *n = arena_calloc(&e->arena, 1, sizeof *n);
    if (!n)
        error_nomem(e->err);
    else
        n->kind = kind;
    return n;
}

/* ---- strings ---- */

/* The value of the four hex digits at p (end bounds them), or -1. */
static long hex4(const char *p, const char *end)
{
    return end - p >= 4 ? str_hex4(p) : -1;
}

/* The string at e->p (its opening quote), into e->str: in place when it
 * has no escape (the common case), else unescaped into e->scratch. */
static int read_string(struct encoder *e)
{
    const char *p = e->p + 1, *run = p;
    while (p < e->end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
        p++;
    if (p < e->end && *p == '"') {
        size_t bad;
        if (!str_utf8_valid(run, (size_t)(p - run), &bad)) {
            e->p = run + bad;
            return bad_json(e, "a string that is not UTF-8");
        }
        if ((size_t)(p - run) > UINT32_MAX)
            return error_fail_reason(e->err, ERR_INVALID, "number_out_of_range",
                                     "a string of more than 4 GiB");
        e->str = run;
        e->str_len = (size_t)(p - run);
        e->str_in_input = true;
        e->p = p + 1;
        return 0;
    }
    buf_reset(&e->scratch);
    p = e->p + 1;
    for (;;) {
        run = p;
        while (p < e->end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
            p++;
        size_t bad;
        if (!str_utf8_valid(run, (size_t)(p - run), &bad)) {
            e->p = run + bad;
            return bad_json(e, "a string that is not UTF-8");
        }
        if (buf_append(&e->scratch, run, (size_t)(p - run)) != 0)
            return error_nomem(e->err);
        if (p == e->end) {
            e->p = p;
            return bad_json(e, "an unterminated string");
        }
        if (*p == '"')
            break;
        if ((unsigned char)*p < 0x20) {
            e->p = p;
            return bad_json(e, "a control character in a string");
        }
        if (++p == e->end) {
            e->p = p;
            return bad_json(e, "an unterminated escape");
        }
        char c = *p++, out;
        switch (c) {
        case '"': out = '"'; break;
        case '\\': out = '\\'; break;
        case '/': out = '/'; break;
        case 'b': out = '\b'; break;
        case 'f': out = '\f'; break;
        case 'n': out = '\n'; break;
        case 'r': out = '\r'; break;
        case 't': out = '\t'; break;
        case 'u': {
            long cp = hex4(p, e->end), low;
            if (cp < 0) {
                e->p = p;
                return bad_json(e, "a bad \\u escape");
            }
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && e->end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
                (low = hex4(p + 2, e->end)) >= 0xDC00 && low <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                p += 6;
            } else if (cp >= 0xD800 && cp <= 0xDFFF) {
                e->p = p - 6;
                return bad_json(e, "a lone surrogate, which UTF-8 cannot hold");
            }
            char u[4];
            if (buf_append(&e->scratch, u, str_utf8_encode((uint32_t)cp, u)) != 0)
                return error_nomem(e->err);
            continue;
        }
        default: e->p = p - 1; return bad_json(e, "an unknown escape");
        }
        if (buf_putc(&e->scratch, out) != 0)
            return error_nomem(e->err);
    }
    e->p = p + 1;
    if (e->scratch.len > UINT32_MAX)
        return error_fail_reason(e->err, ERR_INVALID, "number_out_of_range",
                                 "a string of more than 4 GiB");
    e->str = e->scratch.data ? e->scratch.data : "";
    e->str_len = e->scratch.len;
    e->str_in_input = false;
    return 0;
}

/* The index of the key in e->str, interned on first sight. */
static int intern_key(struct encoder *e, uint32_t *index)
{
    const char *s = e->str;
    size_t len = e->str_len;
    if (e->nkeys * 2 >= e->nslots) {
        size_t nslots = e->nslots ? e->nslots * 2 : 64;
        uint32_t *slots = calloc(nslots, sizeof *slots);
        if (!slots)
            return error_nomem(e->err);
        for (size_t k = 0; k < e->nkeys; k++) {
            size_t at = hash_bytes(e->keys[k].s, e->keys[k].len) & (nslots - 1);
            while (slots[at])
                at = (at + 1) & (nslots - 1);
            slots[at] = (uint32_t)k + 1;
        }
        free(e->slots);
        e->slots = slots;
        e->nslots = nslots;
    }
    size_t at = hash_bytes(s, len) & (e->nslots - 1);
    for (; e->slots[at]; at = (at + 1) & (e->nslots - 1)) {
        const struct key *k = &e->keys[e->slots[at] - 1];
        if (k->len == len && memcmp(k->s, s, len) == 0) {
            *index = e->slots[at] - 1;
            return 0;
        }
    }
    if (e->nkeys == e->keys_cap) {
        size_t cap = e->keys_cap ? e->keys_cap * 2 : 32;
        struct key *keys = realloc(e->keys, cap * sizeof *keys);
        if (!keys)
            return error_nomem(e->err);
        e->keys = keys;
        e->keys_cap = cap;
    }
    const char *kept = s;
    if (!e->str_in_input) { /* scratch is reused by the next string */
        char *copy = arena_alloc(&e->arena, len + 1);
        if (!copy)
            return error_nomem(e->err);
        memcpy(copy, s, len);
        kept = copy;
    }
    e->keys[e->nkeys] = (struct key){kept, (uint32_t)len, 0};
    e->slots[at] = (uint32_t)++e->nkeys;
    *index = (uint32_t)e->nkeys - 1;
    return 0;
}

/* ---- numbers ---- */

static struct node *read_number(struct encoder *e)
{
    const char *s = e->p, *p = s;
    if (p < e->end && *p == '-')
        p++;
    const char *digits = p;
    if (p < e->end && *p == '0')
        p++;
    else
        while (p < e->end && *p >= '0' && *p <= '9')
            p++;
    if (p == digits) {
        e->p = p;
        bad_json(e, "a number without digits");
        return NULL;
    }
    bool integer = true;
    if (p < e->end && *p == '.') {
        integer = false;
        const char *f = ++p;
        while (p < e->end && *p >= '0' && *p <= '9')
            p++;
        if (p == f) {
            e->p = p;
            bad_json(e, "a fraction without digits");
            return NULL;
        }
    }
    if (p < e->end && (*p == 'e' || *p == 'E')) {
        integer = false;
        p++;
        if (p < e->end && (*p == '+' || *p == '-'))
            p++;
        const char *x = p;
        while (p < e->end && *p >= '0' && *p <= '9')
            p++;
        if (p == x) {
            e->p = p;
            bad_json(e, "an exponent without digits");
            return NULL;
        }
    }
    e->p = p;
    size_t ndigits = (size_t)(p - digits);
    bool negative = *s == '-';
    if (integer && ndigits <= 38) {
        __extension__ unsigned __int128 mag = 0;
        for (const char *d = digits; d < p; d++)
            mag = mag * 10 + (unsigned)(*d - '0');
        struct node *n;
        if (mag <= (negative ? (unsigned __int128)INT64_MAX + 1 : (unsigned __int128)INT64_MAX)) {
            if ((n = new_node(e, N_INT)))
                n->u.i = negative ? (int64_t)(0 - (uint64_t)mag) : (int64_t)mag;
        } else if ((n = new_node(e, N_DECIMAL))) {
            n->u.dec = negative ? -(__int128)mag : (__int128)mag;
        }
        return n;
    }
    /* A real, or an integer past decimal16: strtod on a bounded copy (the
     * text holds no locale-dependent form). */
    char text[512];
    if ((size_t)(p - s) >= sizeof text) {
        error_fail_reason(e->err, ERR_INVALID, "number_out_of_range", "a number of %zu characters",
                          (size_t)(p - s));
        return NULL;
    }
    memcpy(text, s, (size_t)(p - s));
    text[p - s] = '\0';
    errno = 0;
    double d = strtod(text, NULL);
    if (!isfinite(d)) {
        error_fail_reason(e->err, ERR_INVALID, "number_out_of_range",
                          "%.40s is beyond a double's range", text);
        return NULL;
    }
    struct node *n = new_node(e, N_DOUBLE);
    if (n)
        n->u.d = d;
    return n;
}

/* ---- values ---- */

static struct node *read_value(struct encoder *e, int depth);

/* Grows a scratch vector of elements of `size` bytes to hold one more. */
static int grow(struct encoder *e, void **items, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 8;
    void *grown = realloc(*items, c * size);
    if (!grown)
        return error_nomem(e->err);
    *items = grown;
    *cap = c;
    return 0;
}

/* Whether the container ends at close: 1 at its opening when it is empty,
 * or after an element when close follows (both consumed); 0 when a ','
 * says another element follows; -1 else. */
static int ends(struct encoder *e, char close, bool first)
{
    skip_ws(e);
    if (e->p < e->end && *e->p == close) {
        e->p++;
        return 1;
    }
    if (first)
        return 0;
    if (e->p < e->end && *e->p == ',') {
        e->p++;
        return 0;
    }
    return bad_json(e, close == ']' ? "expected ',' or ']'" : "expected ',' or '}'");
}

/* A container node of kind holding the n scratch elements (of size
 * bytes), copied into the arena; NULL when out of memory. */
static struct node *container_node(struct encoder *e, enum node_kind kind, const void *items,
                                   size_t n, size_t size)
{
    /* (items may be NULL when n is 0: nothing was ever stacked) */
    struct node *c = new_node(e, kind);
    if (!c || n == 0)
        return c;
    void *copy = arena_calloc(&e->arena, n, size);
    if (!copy) {
        error_nomem(e->err);
        return NULL;
    }
    memcpy(copy, items, n * size);
    if (kind == N_ARRAY)
        c->u.items = copy;
    else
        c->u.fields = copy;
    c->n = (uint32_t)n;
    return c;
}

static struct node *read_array(struct encoder *e, int depth)
{
    e->p++;
    size_t base = e->nitems;
    int end;
    while ((end = ends(e, ']', e->nitems == base)) == 0) {
        struct node *v = read_value(e, depth + 1);
        if (!v || grow(e, (void **)&e->items, e->nitems, &e->items_cap, sizeof *e->items) != 0) {
            end = -1;
            break;
        }
        e->items[e->nitems++] = v;
    }
    struct node *a = end == 1 ? container_node(e, N_ARRAY, e->items ? e->items + base : NULL,
                                               e->nitems - base, sizeof *e->items)
                              : NULL;
    e->nitems = base;
    return a;
}

static struct node *read_object(struct encoder *e, int depth)
{
    e->p++;
    size_t base = e->nfields;
    int end;
    while ((end = ends(e, '}', e->nfields == base)) == 0) {
        skip_ws(e);
        uint32_t key = 0;
        struct node *v = NULL;
        if (e->p == e->end || *e->p != '"')
            bad_json(e, "expected a key");
        else if (read_string(e) == 0 && intern_key(e, &key) == 0) {
            skip_ws(e);
            if (e->p == e->end || *e->p != ':')
                bad_json(e, "expected ':'");
            else {
                e->p++;
                v = read_value(e, depth + 1);
            }
        }
        if (!v ||
            grow(e, (void **)&e->fields, e->nfields, &e->fields_cap, sizeof *e->fields) != 0) {
            end = -1;
            break;
        }
        e->fields[e->nfields++] = (struct field){key, v};
    }
    struct node *o = end == 1 ? container_node(e, N_OBJECT, e->fields ? e->fields + base : NULL,
                                               e->nfields - base, sizeof *e->fields)
                              : NULL;
    e->nfields = base;
    return o;
}

static bool literal(struct encoder *e, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(e->end - e->p) < n || memcmp(e->p, word, n) != 0)
        return false;
    e->p += n;
    return true;
}

static struct node *read_value(struct encoder *e, int depth)
{
    skip_ws(e);
    if (e->p == e->end) {
        bad_json(e, "expected a value");
        return NULL;
    }
    char c = *e->p;
    if ((c == '[' || c == '{') && depth >= VARIANT_MAX_DEPTH) {
        error_fail_reason(e->err, ERR_INVALID, "nesting_too_deep",
                          "a value nested more than %d levels deep", VARIANT_MAX_DEPTH);
        return NULL;
    }
    switch (c) {
    case '[': return read_array(e, depth);
    case '{': return read_object(e, depth);
    case '"': {
        if (read_string(e) != 0)
            return NULL;
        struct node *n = new_node(e, N_STRING);
        if (!n)
            return NULL;
        n->u.s = e->str;
        n->n = (uint32_t)e->str_len;
        if (!e->str_in_input) {
            char *s = arena_alloc(&e->arena, e->str_len + 1);
            if (!s) {
                error_nomem(e->err);
                return NULL;
            }
            memcpy(s, e->str, e->str_len);
            n->u.s = s;
        }
        return n;
    }
    case 't':
        if (literal(e, "true"))
            return new_node(e, N_TRUE);
        break;
    case 'f':
        if (literal(e, "false"))
            return new_node(e, N_FALSE);
        break;
    case 'n':
        if (literal(e, "null"))
            return new_node(e, N_NULL);
        break;
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return read_number(e);
    }
    bad_json(e, "expected a value");
    return NULL;
}

/* ---- the dictionary ---- */

static int cmp_key_bytes(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

static int cmp_keys(const void *x, const void *y)
{
    const struct key *a = *(const struct key *const *)x, *b = *(const struct key *const *)y;
    return cmp_key_bytes(a->s, a->len, b->s, b->len);
}

/* Whether this value's keys, in the order met, are the last value's. */
static bool same_keys(const struct encoder *e)
{
    if (e->nkeys != e->nlast)
        return false;
    const char *p = e->last_keys.data;
    for (size_t k = 0; k < e->nkeys; k++) {
        uint32_t len;
        memcpy(&len, p, sizeof len);
        if (len != e->keys[k].len || memcmp(p + sizeof len, e->keys[k].s, len) != 0)
            return false;
        p += sizeof len + len;
    }
    return true;
}

/* Keeps this value's keys and ranks for the next value. */
static int remember_keys(struct encoder *e)
{
    if (e->nkeys > e->last_cap) {
        uint32_t *r = realloc(e->last_ranks, e->nkeys * sizeof *r);
        if (!r)
            return error_nomem(e->err);
        e->last_ranks = r;
        e->last_cap = e->nkeys;
    }
    buf_reset(&e->last_keys);
    for (size_t k = 0; k < e->nkeys; k++) {
        uint32_t len = e->keys[k].len;
        if (buf_append(&e->last_keys, &len, sizeof len) != 0 ||
            buf_append(&e->last_keys, e->keys[k].s, len) != 0)
            return error_nomem(e->err);
        e->last_ranks[k] = e->keys[k].id;
    }
    e->nlast = e->nkeys;
    return 0;
}

/* Sorts the dictionary: each key's id is its rank, and e->order the keys
 * by rank. */
static int sort_dictionary(struct encoder *e)
{
    if (e->nkeys + 1 > e->order_cap) {
        struct key **order = realloc(e->order, (e->nkeys + 1) * sizeof *order);
        if (!order)
            return error_nomem(e->err);
        e->order = order;
        e->order_cap = e->nkeys + 1;
    }
    if (same_keys(e)) {
        for (size_t k = 0; k < e->nkeys; k++) {
            e->keys[k].id = e->last_ranks[k];
            e->order[e->last_ranks[k]] = &e->keys[k];
        }
        return 0;
    }
    for (size_t k = 0; k < e->nkeys; k++)
        e->order[k] = &e->keys[k];
    if (e->nkeys > 1)
        qsort(e->order, e->nkeys, sizeof *e->order, cmp_keys);
    for (size_t k = 0; k < e->nkeys; k++)
        e->order[k]->id = (uint32_t)k;
    return remember_keys(e);
}

/* ---- sizes ---- */

/* Fields by their keys' dictionary ids (which measure put in place of
 * the interned indexes). */
static int cmp_fields(const void *x, const void *y)
{
    const struct field *a = x, *b = y;
    return (a->key > b->key) - (a->key < b->key);
}

static int width_for(uint64_t max)
{
    return max <= 0xFF ? 1 : max <= 0xFFFF ? 2 : max <= 0xFFFFFF ? 3 : 4;
}

static int int_width(int64_t v)
{
    return v >= INT8_MIN && v <= INT8_MAX     ? 1
           : v >= INT16_MIN && v <= INT16_MAX ? 2
           : v >= INT32_MIN && v <= INT32_MAX ? 4
                                              : 8;
}

/* Sorts objects' fields by key and computes every node's size. */
static int measure(struct encoder *e, struct node *n)
{
    switch (n->kind) {
    case N_NULL:
    case N_TRUE:
    case N_FALSE: n->size = 1; return 0;
    case N_INT: n->size = 1 + (size_t)int_width(n->u.i); return 0;
    case N_DOUBLE: n->size = 9; return 0;
    case N_DECIMAL: n->size = 18; return 0;
    case N_STRING:
        n->size = n->n < VARIANT_SHORT_STRING_MAX ? 1 + n->n : 5 + (size_t)n->n;
        return 0;
    case N_ARRAY:
    case N_OBJECT: break;
    }
    size_t data = 0;
    for (uint32_t i = 0; i < n->n; i++) {
        struct node *child = n->kind == N_ARRAY ? n->u.items[i] : n->u.fields[i].value;
        if (measure(e, child) != 0)
            return -1;
        data += child->size;
    }
    if (data > UINT32_MAX)
        return error_fail_reason(e->err, ERR_INVALID, "number_out_of_range",
                                 "a value of more than 4 GiB");
    size_t count = n->n > 255 ? 4 : 1, offsets = (size_t)width_for(data) * (n->n + 1u);
    if (n->kind == N_OBJECT) {
        for (uint32_t i = 0; i < n->n; i++)
            n->u.fields[i].key = e->keys[n->u.fields[i].key].id;
        if (n->n > 1)
            qsort(n->u.fields, n->n, sizeof *n->u.fields, cmp_fields);
        for (uint32_t i = 1; i < n->n; i++)
            if (n->u.fields[i].key == n->u.fields[i - 1].key) {
                const struct key *k = e->order[n->u.fields[i].key]; /* not NUL-terminated */
                return error_fail_reason(e->err, ERR_INVALID, "duplicate_key",
                                         "an object names the key '%.*s' twice",
                                         (int)(k->len < 64 ? k->len : 64), k->s);
            }
        count += (size_t)width_for(e->nkeys ? e->nkeys - 1 : 0) * n->n;
    }
    n->size = 1 + count + offsets + data;
    return 0;
}

/* ---- writing ---- */

static void write_node(const struct encoder *e, const struct node *n, uint8_t *p)
{
    switch (n->kind) {
    case N_NULL: *p = VARIANT_PRIMITIVE(VT_NULL); return;
    case N_TRUE: *p = VARIANT_PRIMITIVE(VT_TRUE); return;
    case N_FALSE: *p = VARIANT_PRIMITIVE(VT_FALSE); return;
    case N_INT: {
        int w = int_width(n->u.i);
        *p = VARIANT_PRIMITIVE(w == 1 ? VT_INT8 : w == 2 ? VT_INT16 : w == 4 ? VT_INT32 : VT_INT64);
        variant_put_le(p + 1, (uint64_t)n->u.i, w);
        return;
    }
    case N_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &n->u.d, 8);
        *p = VARIANT_PRIMITIVE(VT_DOUBLE);
        variant_put_le(p + 1, bits, 8);
        return;
    }
    case N_DECIMAL: {
        __extension__ unsigned __int128 v = (unsigned __int128)n->u.dec;
        *p = VARIANT_PRIMITIVE(VT_DECIMAL16);
        p[1] = 0; /* scale */
        variant_put_le(p + 2, (uint64_t)v, 8);
        variant_put_le(p + 10, (uint64_t)(v >> 64), 8);
        return;
    }
    case N_STRING:
        if (n->n < VARIANT_SHORT_STRING_MAX) {
            *p = (uint8_t)(VB_SHORT_STRING | n->n << 2);
            memcpy(p + 1, n->u.s, n->n);
        } else {
            *p = VARIANT_PRIMITIVE(VT_STRING);
            variant_put_le(p + 1, n->n, 4);
            memcpy(p + 5, n->u.s, n->n);
        }
        return;
    case N_ARRAY:
    case N_OBJECT: break;
    }
    size_t data = 0;
    for (uint32_t i = 0; i < n->n; i++)
        data += n->kind == N_ARRAY ? n->u.items[i]->size : n->u.fields[i].value->size;
    int large = n->n > 255, ow = width_for(data);
    int iw = n->kind == N_OBJECT ? width_for(e->nkeys ? e->nkeys - 1 : 0) : 0;
    unsigned header = n->kind == N_ARRAY
                          ? (unsigned)(VB_ARRAY | (large << 2 | (ow - 1)) << 2)
                          : (unsigned)(VB_OBJECT | (large << 4 | (iw - 1) << 2 | (ow - 1)) << 2);
    *p++ = (uint8_t)header;
    variant_put_le(p, n->n, large ? 4 : 1);
    p += large ? 4 : 1;
    if (n->kind == N_OBJECT)
        for (uint32_t i = 0; i < n->n; i++, p += iw)
            variant_put_le(p, n->u.fields[i].key, iw);
    uint8_t *values = p + (size_t)ow * (n->n + 1u);
    size_t at = 0;
    for (uint32_t i = 0; i < n->n; i++, p += ow) {
        const struct node *child = n->kind == N_ARRAY ? n->u.items[i] : n->u.fields[i].value;
        variant_put_le(p, at, ow);
        write_node(e, child, values + at);
        at += child->size;
    }
    variant_put_le(p, at, ow);
}

static int write_metadata(struct encoder *e, struct key **order, struct buf *out)
{
    size_t bytes = 0;
    for (size_t k = 0; k < e->nkeys; k++)
        bytes += order[k]->len;
    if (bytes > UINT32_MAX || e->nkeys > UINT32_MAX)
        return error_fail_reason(e->err, ERR_INVALID, "number_out_of_range",
                                 "a dictionary of more than 4 GiB");
    int w = width_for(bytes > e->nkeys ? bytes : e->nkeys);
    size_t size = 1 + (size_t)w * (e->nkeys + 2) + bytes;
    if (buf_reserve(out, size) != 0)
        return error_nomem(e->err);
    uint8_t *p = (uint8_t *)out->data + out->len;
    *p++ = (uint8_t)(VARIANT_VERSION | VARIANT_SORTED_STRINGS | (w - 1) << 6);
    variant_put_le(p, e->nkeys, w);
    p += w;
    size_t at = 0;
    for (size_t k = 0; k < e->nkeys; k++, p += w) {
        variant_put_le(p, at, w);
        at += order[k]->len;
    }
    variant_put_le(p, at, w);
    p += w;
    for (size_t k = 0; k < e->nkeys; k++) {
        memcpy(p, order[k]->s, order[k]->len);
        p += order[k]->len;
    }
    out->len += size;
    out->data[out->len] = '\0';
    return 0;
}

struct variant_encoder *variant_encoder_new(void)
{
    struct encoder *e = calloc(1, sizeof *e);
    if (e)
        arena_init(&e->arena, 0);
    return (struct variant_encoder *)e;
}

void variant_encoder_free(struct variant_encoder *ve)
{
    struct encoder *e = (struct encoder *)ve;
    if (!e)
        return;
    free(e->order);
    free(e->keys);
    free(e->slots);
    free(e->items);
    free(e->fields);
    free(e->last_ranks);
    buf_free(&e->last_keys);
    buf_free(&e->scratch);
    arena_free(&e->arena);
    free(e);
}

int variant_encoder_encode(struct variant_encoder *ve, const char *json, size_t len,
                           struct buf *metadata, struct buf *value, struct error *err)
{
    struct encoder *e = (struct encoder *)ve;
    e->p = e->start = json;
    e->end = json + len;
    e->err = err;
    e->nkeys = 0;
    e->nitems = e->nfields = 0;
    if (e->slots)
        memset(e->slots, 0, e->nslots * sizeof *e->slots);
    buf_reset(&e->scratch);
    arena_reset(&e->arena);
    size_t mlen = metadata->len, vlen = value->len;
    struct node *root = read_value(e, 0);
    int rc = root ? 0 : -1;
    if (rc == 0) {
        skip_ws(e);
        if (e->p != e->end)
            rc = bad_json(e, "text after the value");
    }
    if (rc == 0)
        rc = sort_dictionary(e);
    if (rc == 0)
        rc = measure(e, root);
    if (rc == 0)
        rc = write_metadata(e, e->order, metadata);
    if (rc == 0 && buf_reserve(value, root->size) != 0)
        rc = error_nomem(err);
    if (rc == 0) {
        write_node(e, root, (uint8_t *)value->data + value->len);
        value->len += root->size;
        value->data[value->len] = '\0';
    } else {
        metadata->len = mlen;
        value->len = vlen;
    }
    /* A value with very many keys leaves no table behind it to clear. */
    if (e->nslots > 4096) {
        free(e->slots);
        e->slots = NULL;
        e->nslots = 0;
    }
    return rc;
}

int variant_from_json(const char *json, size_t len, struct buf *metadata, struct buf *value,
                      struct error *err)
{
    struct variant_encoder *e = variant_encoder_new();
    if (!e)
        return error_nomem(err);
    int rc = variant_encoder_encode(e, json, len, metadata, value, err);
    variant_encoder_free(e);
    return rc;
}
