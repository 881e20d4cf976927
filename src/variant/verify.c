/* The writer rules and the canonical encoding of a Variant: see verify.h.
 * Every check runs after variant_check, so offsets, ids and lengths are
 * known to lie within the bytes; what is left is which of the valid
 * spellings these bytes are. */
#include "variant/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "variant/variant.h"
#include "variant/variant_format.h"

enum { PATH_BYTES = 512 };

struct verifier {
    struct variant_dict dict;
    bool canonical;
    bool *used;       /* per key: some field names it (whole rows only) */
    int dict_id_size; /* the id size the whole dictionary needs */
    char path[PATH_BYTES];
    size_t path_len;
    struct error *err;
};

__extension__ typedef __int128 i128;

static int width_for(uint64_t max)
{
    return max <= 0xFF ? 1 : max <= 0xFFFF ? 2 : max <= 0xFFFFFF ? 3 : 4;
}

static int fault(struct verifier *v, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fault(struct verifier *v, const char *rule, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return error_fail_reason(v->err, ERR_INVALID, "variant_encoding", "variant: %s: %s: %s",
                             v->path, rule, what);
}

/* Appends a step to the path (cut short when too long: a message, not a
 * key); returns the length to restore. */
static size_t path_push(struct verifier *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static size_t path_push(struct verifier *v, const char *fmt, ...)
{
    size_t mark = v->path_len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(v->path + mark, sizeof v->path - mark, fmt, ap);
    va_end(ap);
    if (n > 0)
        v->path_len = mark + (size_t)n < sizeof v->path ? mark + (size_t)n : sizeof v->path - 1;
    return mark;
}

static void path_pop(struct verifier *v, size_t mark)
{
    v->path_len = mark;
    v->path[mark] = '\0';
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

/* ---- primitives ---- */

static int int_width(int64_t x)
{
    return x >= INT8_MIN && x <= INT8_MAX     ? 1
           : x >= INT16_MIN && x <= INT16_MAX ? 2
           : x >= INT32_MIN && x <= INT32_MAX ? 4
                                              : 8;
}

static int64_t signed_le(const uint8_t *p, int w)
{
    uint64_t u = variant_get_le(p, w);
    if (w < 8 && (u >> (8 * w - 1)) & 1)
        u |= ~UINT64_C(0) << (8 * w);
    return (int64_t)u;
}

/* The unscaled digits of a decimal fit 9 or 18 digits: the narrowest
 * width whose precision holds them. */
static int decimal_width(const uint8_t *p, int w)
{
    uint8_t bytes[16];
    memcpy(bytes, p, (size_t)w);
    memset(bytes + w, (p[w - 1] & 0x80) ? 0xFF : 0, (size_t)(16 - w));
    i128 x;
    memcpy(&x, bytes, 16);
    i128 e9 = 1000000000, e18 = e9 * e9;
    return x < e9 && x > -e9 ? 4 : x < e18 && x > -e18 ? 8 : 16;
}

static int primitive(struct verifier *v, int type, const uint8_t *p)
{
    static const int int_bytes[] = {[VT_INT8] = 1, [VT_INT16] = 2, [VT_INT32] = 4, [VT_INT64] = 8};
    switch (type) {
    case VT_INT16:
    case VT_INT32:
    case VT_INT64: {
        int w = int_bytes[type], need = int_width(signed_le(p, w));
        return need == w
                   ? 0
                   : fault(v, VARIANT_RULE_INT, "an integer in %d bytes that fits in %d", w, need);
    }
    case VT_DECIMAL8:
    case VT_DECIMAL16: {
        int w = type == VT_DECIMAL8 ? 8 : 16, need = decimal_width(p + 1, w);
        return need == w ? 0
                         : fault(v, VARIANT_RULE_DECIMAL, "a decimal%d whose digits fit decimal%d",
                                 w, need);
    }
    case VT_STRING: {
        uint64_t n = variant_get_le(p, 4);
        return n >= VARIANT_SHORT_STRING_MAX
                   ? 0
                   : fault(v, VARIANT_RULE_STRING, "a string of %u bytes not a short string",
                           (unsigned)n);
    }
    default: return 0; /* floats, doubles, temporals, binary, uuid: as themselves */
    }
}

/* ---- containers ---- */

static int walk(struct verifier *v, const uint8_t *p, size_t len);

struct container {
    bool object;
    int off_size, id_size, count_size;
    uint64_t n, total;
    const uint8_t *ids, *offsets, *values;
};

static void container_open(const uint8_t *p, struct container *c)
{
    int header = p[0] >> 2;
    c->object = (p[0] & 3) == VB_OBJECT;
    c->off_size = (header & 3) + 1;
    c->id_size = c->object ? ((header >> 2) & 3) + 1 : 0;
    c->count_size = (header >> (c->object ? 4 : 2)) & 1 ? 4 : 1;
    c->n = variant_get_le(p + 1, c->count_size);
    c->ids = p + 1 + c->count_size;
    c->offsets = c->ids + c->n * (size_t)c->id_size;
    c->values = c->offsets + (c->n + 1) * (size_t)c->off_size;
    c->total = variant_get_le(c->offsets + c->n * (size_t)c->off_size, c->off_size);
}

static uint64_t offset_of(const struct container *c, uint64_t i)
{
    return variant_get_le(c->offsets + i * (size_t)c->off_size, c->off_size);
}

static uint64_t id_of(const struct container *c, uint64_t i)
{
    return variant_get_le(c->ids + i * (size_t)c->id_size, c->id_size);
}

/* Sizes, value order and unused header bits: one spelling per layout. */
static int layout(struct verifier *v, const uint8_t *p, const struct container *c, bool ordered)
{
    int unused = c->object ? (p[0] >> 7) & 1 : (p[0] >> 5) & 7;
    if (unused)
        return fault(v, VARIANT_RULE_LAYOUT, "unused header bits set");
    if (c->count_size != (c->n > 0xFF ? 4 : 1))
        return fault(v, VARIANT_RULE_LAYOUT, "a %d-byte count of %llu elements", c->count_size,
                     (unsigned long long)c->n);
    if (c->off_size != width_for(c->total))
        return fault(v, VARIANT_RULE_LAYOUT, "%d-byte offsets where %d hold them", c->off_size,
                     width_for(c->total));
    if (!ordered)
        return fault(v, VARIANT_RULE_LAYOUT, "values not laid out in %s order",
                     c->object ? "key" : "element");
    if (!c->object || c->n == 0)
        return 0;
    uint64_t max_id = 0;
    for (uint64_t i = 0; i < c->n; i++)
        max_id = id_of(c, i) > max_id ? id_of(c, i) : max_id;
    if (c->id_size != width_for(max_id) && c->id_size != v->dict_id_size)
        return fault(v, VARIANT_RULE_LAYOUT, "%d-byte field ids where %d hold them", c->id_size,
                     width_for(max_id));
    return 0;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Where the value at offset `at` ends: the next offset up (sorted holds
 * every offset and the total, ascending). */
static uint64_t next_offset(const uint64_t *sorted, uint64_t n, uint64_t at)
{
    uint64_t lo = 0, hi = n + 1;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return sorted[lo];
}

/* An object's keys: each named in the dictionary (used), listed in key
 * order. */
static int object_keys(struct verifier *v, const struct container *c)
{
    const char *prev = NULL, *key;
    size_t prev_len = 0, key_len;
    for (uint64_t i = 0; i < c->n; i++) {
        uint64_t id = id_of(c, i);
        if (!variant_dict_key(&v->dict, id, &key, &key_len))
            return fault(v, VARIANT_RULE_FIELD_ORDER, "a field id past the dictionary");
        if (v->used)
            v->used[id] = true;
        if (prev && cmp_bytes(prev, prev_len, key, key_len) >= 0)
            return fault(v, VARIANT_RULE_FIELD_ORDER, "field '%.*s' listed after '%.*s'",
                         (int)(key_len > 64 ? 64 : key_len), key,
                         (int)(prev_len > 64 ? 64 : prev_len), prev);
        prev = key;
        prev_len = key_len;
    }
    return 0;
}

static int element(struct verifier *v, const struct container *c, uint64_t i, uint64_t end)
{
    uint64_t at = offset_of(c, i);
    size_t mark;
    if (c->object) {
        const char *key = "";
        size_t key_len = 0;
        variant_dict_key(&v->dict, id_of(c, i), &key, &key_len);
        mark = path_push(v, ".%.*s", (int)(key_len > 128 ? 128 : key_len), key);
    } else {
        mark = path_push(v, "[%llu]", (unsigned long long)i);
    }
    int rc = walk(v, c->values + at, (size_t)(end - at));
    if (rc == 0)
        path_pop(v, mark);
    return rc;
}

static int container(struct verifier *v, const uint8_t *p)
{
    struct container c;
    container_open(p, &c);
    if (c.object && object_keys(v, &c) != 0)
        return -1;
    bool ordered = true;
    for (uint64_t i = 0; i < c.n && ordered; i++)
        ordered = offset_of(&c, i) < offset_of(&c, i + 1);
    if (v->canonical && layout(v, p, &c, ordered) != 0)
        return -1;
    if (ordered) {
        for (uint64_t i = 0; i < c.n; i++)
            if (element(v, &c, i, offset_of(&c, i + 1)) != 0)
                return -1;
        return 0;
    }
    /* An object whose values lie in another order (valid, not ours): each
     * ends at the next offset up. */
    uint64_t *sorted = malloc((size_t)(c.n + 1) * sizeof *sorted);
    if (!sorted)
        return error_nomem(v->err);
    for (uint64_t i = 0; i <= c.n; i++)
        sorted[i] = offset_of(&c, i);
    qsort(sorted, (size_t)c.n + 1, sizeof *sorted, cmp_u64);
    int rc = 0;
    for (uint64_t i = 0; i < c.n && rc == 0; i++)
        rc = element(v, &c, i, next_offset(sorted, c.n, offset_of(&c, i)));
    free(sorted);
    return rc;
}

static int walk(struct verifier *v, const uint8_t *p, size_t len)
{
    (void)len; /* variant_check has found every value within its bytes */
    switch (p[0] & 3) {
    case VB_PRIMITIVE: return v->canonical ? primitive(v, p[0] >> 2, p + 1) : 0;
    case VB_SHORT_STRING: return 0;
    default: return container(v, p);
    }
}

/* ---- the dictionary ---- */

static bool dict_increasing(const struct verifier *v)
{
    const char *prev = NULL, *key;
    size_t prev_len = 0, key_len;
    for (uint64_t k = 0; k < v->dict.n; k++) {
        if (!variant_dict_key(&v->dict, k, &key, &key_len) ||
            (prev && cmp_bytes(prev, prev_len, key, key_len) >= 0))
            return false;
        prev = key;
        prev_len = key_len;
    }
    return true;
}

static int dictionary_sorted_flag(struct verifier *v, const uint8_t *metadata)
{
    if ((metadata[0] & VARIANT_SORTED_STRINGS) && !dict_increasing(v))
        return fault(v, VARIANT_RULE_SORTED_FLAG,
                     "a dictionary flagged sorted whose keys are not in strictly increasing order");
    return 0;
}

static int dictionary_canonical(struct verifier *v, const uint8_t *metadata)
{
    if (!(metadata[0] & VARIANT_SORTED_STRINGS))
        return fault(v, VARIANT_RULE_DICTIONARY, "a dictionary not flagged sorted");
    if (metadata[0] & 0x20)
        return fault(v, VARIANT_RULE_DICTIONARY, "the metadata's unused header bit set");
    for (uint64_t k = 0; k < v->dict.n; k++) {
        const char *key = "";
        size_t key_len = 0;
        variant_dict_key(&v->dict, k, &key, &key_len);
        if (!v->used[k])
            return fault(v, VARIANT_RULE_DICTIONARY, "key '%.*s' is not used by the value",
                         (int)(key_len > 64 ? 64 : key_len), key);
    }
    uint64_t most = v->dict.strings_len > v->dict.n ? v->dict.strings_len : v->dict.n;
    if (v->dict.off_size != width_for(most))
        return fault(v, VARIANT_RULE_DICTIONARY, "%d-byte dictionary offsets where %d hold them",
                     v->dict.off_size, width_for(most));
    return 0;
}

static int verify(const uint8_t *metadata, size_t metadata_len, const uint8_t *value,
                  size_t value_len, bool canonical, bool whole, const char *root, struct error *err)
{
    if (variant_check(metadata, metadata_len, value, value_len, err) != 0)
        return -1;
    struct verifier v = {.canonical = canonical, .err = err};
    path_push(&v, "%s", root ? root : "$");
    if (variant_dict_open(metadata, metadata_len, &v.dict, err) != 0)
        return -1;
    v.dict_id_size = width_for(v.dict.n ? v.dict.n - 1 : 0);
    if (whole && dictionary_sorted_flag(&v, metadata) != 0)
        return -1;
    if (whole && canonical && !(v.used = calloc(v.dict.n ? v.dict.n : 1, sizeof *v.used)))
        return error_nomem(err);
    int rc = walk(&v, value, value_len);
    if (rc == 0 && whole && canonical) {
        path_pop(&v, 0);
        path_push(&v, "%s", root ? root : "$");
        rc = dictionary_canonical(&v, metadata);
    }
    free(v.used);
    return rc;
}

int variant_verify(const uint8_t *metadata, size_t metadata_len, const uint8_t *value,
                   size_t value_len, bool canonical, struct error *err)
{
    return verify(metadata, metadata_len, value, value_len, canonical, true, NULL, err);
}

int variant_verify_part(const uint8_t *metadata, size_t metadata_len, const uint8_t *value,
                        size_t value_len, bool canonical, const char *root, struct error *err)
{
    return verify(metadata, metadata_len, value, value_len, canonical, false, root, err);
}
