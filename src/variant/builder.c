/* A Variant from a sequence of calls: see builder.h.
 *
 * The calls build a small tree: each value a node, a primitive's bytes
 * encoded at once into `scalars`, a container's children listed (an
 * object's in key order, sorted when it closes). Nothing is laid out
 * until finish, because the field ids' width depends on how many keys
 * the whole value uses and every container's offsets on its children's
 * sizes: finish sorts the dictionary, sizes the nodes children first and
 * writes each byte once. Keys are interned per value (a hash table over
 * their bytes), so a key met twice is one dictionary entry and a
 * duplicate within an object is two equal indexes side by side. */
#include "variant/builder.h"

#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/hash.h"
#include "util/strutil.h"
#include "variant/variant.h"
#include "variant/variant_format.h"

typedef variant_builder_i128 i128;

enum {
    INSERTION_SORT_MAX = 16, /* fewer keys are sorted by insertion, more by qsort */
    SLOTS_FIRST = 64,
};

enum node_kind { NK_SCALAR, NK_ARRAY, NK_OBJECT };

struct node {
    enum node_kind kind;
    uint32_t key;  /* as an object's field: its key (index into keys) */
    size_t at, n;  /* a scalar's bytes in scalars; a container's children in kids */
    uint64_t size; /* its encoding's bytes, set by finish */
};

/* A key of the value: its bytes in key_bytes, its slot in the hash table. */
struct key {
    size_t off, slot;
    uint32_t len;
    uint64_t hash;
};

/* A container still open: its node and where its children start in
 * pending; for an object, the key given for the next value. */
struct open {
    uint32_t node;
    size_t base;
    bool has_key;
    uint32_t key;
};

/* A key's bytes with what to carry through a sort. */
struct sorted_key {
    const char *s;
    uint32_t len, key, node;
};

struct variant_builder {
    struct node *nodes;
    size_t nnodes, nodes_cap;
    uint32_t *pending; /* the open containers' children, in the order given */
    size_t npending, pending_cap;
    uint32_t *kids; /* closed containers' children, in layout order */
    size_t nkids, kids_cap;
    struct open *open;
    size_t nopen, open_cap;
    struct buf scalars;
    bool has_root;

    struct key *keys;
    size_t nkeys, keys_cap;
    struct buf key_bytes;
    uint32_t *slots; /* index + 1, 0 empty */
    size_t nslots;

    /* Scratch: keys being sorted; each key's rank in the dictionary. */
    struct sorted_key *pairs;
    size_t pairs_cap;
    uint32_t *rank;
    size_t rank_cap;
};

struct variant_builder *variant_builder_new(void)
{
    return calloc(1, sizeof(struct variant_builder));
}

void variant_builder_free(struct variant_builder *b)
{
    if (!b)
        return;
    free(b->nodes);
    free(b->pending);
    free(b->kids);
    free(b->open);
    buf_free(&b->scalars);
    free(b->keys);
    buf_free(&b->key_bytes);
    free(b->slots);
    free(b->pairs);
    free(b->rank);
    free(b);
}

void variant_builder_reset(struct variant_builder *b)
{
    for (size_t k = 0; k < b->nkeys; k++)
        b->slots[b->keys[k].slot] = 0;
    b->nkeys = b->nnodes = b->npending = b->nkids = b->nopen = 0;
    buf_reset(&b->scalars);
    buf_reset(&b->key_bytes);
    b->has_root = false;
}

static int misuse(struct error *err, const char *what)
{
    return error_fail(err, ERR_INTERNAL, "variant builder: %s", what);
}

static int out_of_range(struct error *err, const char *what)
{
    return error_fail_reason(err, ERR_INVALID, "number_out_of_range", "%s", what);
}

/* ---- the tree ---- */

/* A new node of kind k where the value's next element goes: the root,
 * the open array's next element, or the open object's field named by the
 * key given last. */
static int add_node(struct variant_builder *b, enum node_kind k, struct error *err)
{
    struct open *o = b->nopen ? &b->open[b->nopen - 1] : NULL;
    if (!o && b->has_root)
        return misuse(err, "a second value at the top");
    bool object = o && b->nodes[o->node].kind == NK_OBJECT;
    if (object && !o->has_key)
        return misuse(err, "an object's value without a key");
    if (b->nnodes >= UINT32_MAX)
        return out_of_range(err, "a value of more than 4 billion elements");
    if (ARRAY_RESERVE(b->nodes, b->nodes_cap, b->nnodes + 1, 64) != 0 ||
        (o && ARRAY_RESERVE(b->pending, b->pending_cap, b->npending + 1, 64) != 0))
        return error_nomem(err);
    uint32_t id = (uint32_t)b->nnodes++;
    b->nodes[id] = (struct node){.kind = k, .key = object ? o->key : 0};
    if (o)
        b->pending[b->npending++] = id;
    else
        b->has_root = true;
    if (object)
        o->has_key = false;
    return 0;
}

/* A primitive: its header byte and n bytes of payload (copied from p,
 * unless p is NULL: the caller writes them at the pointer returned). */
static uint8_t *add_scalar(struct variant_builder *b, uint8_t head, const void *p, size_t n,
                           struct error *err)
{
    if (add_node(b, NK_SCALAR, err) != 0)
        return NULL;
    struct node *x = &b->nodes[b->nnodes - 1];
    x->at = b->scalars.len;
    x->n = 1 + n;
    if (buf_reserve(&b->scalars, 1 + n) != 0) {
        error_nomem(err);
        return NULL;
    }
    uint8_t *q = (uint8_t *)b->scalars.data + b->scalars.len;
    *q = head;
    if (p && n)
        memcpy(q + 1, p, n);
    b->scalars.len += 1 + n;
    return q + 1;
}

/* A primitive of type t holding the width low bytes of v. */
static int add_fixed(struct variant_builder *b, int t, uint64_t v, int width, struct error *err)
{
    uint8_t *q = add_scalar(b, VARIANT_PRIMITIVE(t), NULL, (size_t)width, err);
    if (!q)
        return -1;
    variant_put_le(q, v, width);
    return 0;
}

static int begin(struct variant_builder *b, enum node_kind k, struct error *err)
{
    if (b->nopen >= VARIANT_MAX_DEPTH)
        return error_fail_reason(err, ERR_INVALID, "nesting_too_deep",
                                 "a value nested more than %d levels deep", VARIANT_MAX_DEPTH);
    if (ARRAY_RESERVE(b->open, b->open_cap, b->nopen + 1, 16) != 0)
        return error_nomem(err);
    if (add_node(b, k, err) != 0)
        return -1;
    b->open[b->nopen++] = (struct open){.node = (uint32_t)b->nnodes - 1, .base = b->npending};
    return 0;
}

int variant_builder_begin_object(struct variant_builder *b, struct error *err)
{
    return begin(b, NK_OBJECT, err);
}

int variant_builder_begin_array(struct variant_builder *b, struct error *err)
{
    return begin(b, NK_ARRAY, err);
}

/* ---- keys ---- */

static const char *key_text(const struct variant_builder *b, uint32_t k)
{
    return b->key_bytes.data + b->keys[k].off;
}

static int grow_slots(struct variant_builder *b, struct error *err)
{
    size_t nslots = b->nslots ? b->nslots * 2 : SLOTS_FIRST;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return error_nomem(err);
    for (size_t k = 0; k < b->nkeys; k++) {
        size_t at = b->keys[k].hash & (nslots - 1);
        while (slots[at])
            at = (at + 1) & (nslots - 1);
        slots[at] = (uint32_t)k + 1;
        b->keys[k].slot = at;
    }
    free(b->slots);
    b->slots = slots;
    b->nslots = nslots;
    return 0;
}

/* The index of key s, added on first sight. */
static int intern(struct variant_builder *b, const char *s, size_t n, uint32_t *index,
                  struct error *err)
{
    if (b->nkeys * 2 >= b->nslots && grow_slots(b, err) != 0)
        return -1;
    uint64_t h = hash_bytes(s, n);
    size_t at = h & (b->nslots - 1);
    for (; b->slots[at]; at = (at + 1) & (b->nslots - 1)) {
        uint32_t k = b->slots[at] - 1;
        if (b->keys[k].hash == h && b->keys[k].len == n && memcmp(key_text(b, k), s, n) == 0) {
            *index = k;
            return 0;
        }
    }
    if (ARRAY_RESERVE(b->keys, b->keys_cap, b->nkeys + 1, 16) != 0)
        return error_nomem(err);
    size_t off = b->key_bytes.len;
    if (buf_append(&b->key_bytes, s, n) != 0)
        return error_nomem(err);
    b->keys[b->nkeys] = (struct key){.off = off, .slot = at, .len = (uint32_t)n, .hash = h};
    b->slots[at] = (uint32_t)++b->nkeys;
    *index = (uint32_t)b->nkeys - 1;
    return 0;
}

static int not_utf8(struct error *err, const char *what)
{
    return error_fail_reason(err, ERR_INVALID, "variant_encoding", "%s that is not UTF-8", what);
}

int variant_builder_key(struct variant_builder *b, const char *key, size_t len, struct error *err)
{
    struct open *o = b->nopen ? &b->open[b->nopen - 1] : NULL;
    if (!o || b->nodes[o->node].kind != NK_OBJECT || o->has_key)
        return misuse(err, "a key outside an object or twice before a value");
    if (len > UINT32_MAX)
        return out_of_range(err, "a key of more than 4 GiB");
    if (!str_utf8_valid(key, len, NULL))
        return not_utf8(err, "an object key");
    if (intern(b, key, len, &o->key, err) != 0)
        return -1;
    o->has_key = true;
    return 0;
}

/* ---- closing containers ---- */

static int cmp_sorted_key(const void *x, const void *y)
{
    const struct sorted_key *a = x, *b = y;
    int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* Sorts n keys by their bytes: by insertion when they are few. */
static void sort_keys(struct sorted_key *r, size_t n)
{
    if (n > INSERTION_SORT_MAX) {
        qsort(r, n, sizeof *r, cmp_sorted_key);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        struct sorted_key x = r[i];
        size_t j = i;
        for (; j > 0 && cmp_sorted_key(&r[j - 1], &x) > 0; j--)
            r[j] = r[j - 1];
        r[j] = x;
    }
}

/* Fills pairs with the n keys (children's, or the dictionary's when
 * nodes is NULL). */
static int fill_pairs(struct variant_builder *b, const uint32_t *nodes, size_t n, struct error *err)
{
    if (ARRAY_RESERVE(b->pairs, b->pairs_cap, n, 16) != 0)
        return error_nomem(err);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = nodes ? b->nodes[nodes[i]].key : (uint32_t)i;
        b->pairs[i] = (struct sorted_key){key_text(b, k), b->keys[k].len, k, nodes ? nodes[i] : 0};
    }
    sort_keys(b->pairs, n);
    return 0;
}

/* The object's children in key order: a key named twice is refused. */
static int order_fields(struct variant_builder *b, uint32_t *children, size_t n, struct error *err)
{
    if (fill_pairs(b, children, n, err) != 0)
        return -1;
    for (size_t j = 0; j < n; j++) {
        const struct sorted_key *p = &b->pairs[j];
        if (j > 0 && p->key == b->pairs[j - 1].key)
            return error_fail_reason(err, ERR_INVALID, "duplicate_key",
                                     "an object names the key '%.*s' twice",
                                     (int)(p->len < 64 ? p->len : 64), p->s);
        children[j] = p->node;
    }
    return 0;
}

static int end(struct variant_builder *b, enum node_kind k, struct error *err)
{
    struct open *o = b->nopen ? &b->open[b->nopen - 1] : NULL;
    if (!o || b->nodes[o->node].kind != k || o->has_key)
        return misuse(err, "a container closed that is not open, or a key without a value");
    size_t n = b->npending - o->base;
    uint32_t *children = b->pending + o->base;
    if (k == NK_OBJECT && order_fields(b, children, n, err) != 0)
        return -1;
    if (ARRAY_RESERVE(b->kids, b->kids_cap, b->nkids + n, 64) != 0)
        return error_nomem(err);
    if (n) /* (pending is NULL until an element is met) */
        memcpy(b->kids + b->nkids, children, n * sizeof *children);
    b->nodes[o->node].at = b->nkids;
    b->nodes[o->node].n = n;
    b->nkids += n;
    b->npending = o->base;
    b->nopen--;
    return 0;
}

int variant_builder_end_object(struct variant_builder *b, struct error *err)
{
    return end(b, NK_OBJECT, err);
}

int variant_builder_end_array(struct variant_builder *b, struct error *err)
{
    return end(b, NK_ARRAY, err);
}

/* ---- primitives ---- */

int variant_builder_null(struct variant_builder *b, struct error *err)
{
    return add_scalar(b, VARIANT_PRIMITIVE(VT_NULL), NULL, 0, err) ? 0 : -1;
}

int variant_builder_bool(struct variant_builder *b, bool v, struct error *err)
{
    return add_scalar(b, VARIANT_PRIMITIVE(v ? VT_TRUE : VT_FALSE), NULL, 0, err) ? 0 : -1;
}

int variant_builder_int(struct variant_builder *b, int64_t v, struct error *err)
{
    int w = variant_int_width(v);
    return add_fixed(b, variant_int_type(w), (uint64_t)v, w, err);
}

int variant_builder_float(struct variant_builder *b, float v, struct error *err)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    return add_fixed(b, VT_FLOAT, bits, 4, err);
}

int variant_builder_double(struct variant_builder *b, double v, struct error *err)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    return add_fixed(b, VT_DOUBLE, bits, 8, err);
}

/* The fewest decimal digits (9, 18 or 38) of a Variant decimal holding v,
 * or 0 when it has more than 38. */
static int decimal_digits(i128 v)
{
    const i128 e9 = 1000000000, e18 = e9 * e9, e38 = e18 * e18 * 100;
    if (v <= -e38 || v >= e38) /* (first: -v of the least i128 overflows) */
        return 0;
    i128 mag = v < 0 ? -v : v;
    return mag < e9 ? 9 : mag < e18 ? 18 : 38;
}

int variant_builder_decimal(struct variant_builder *b, i128 unscaled, int scale, struct error *err)
{
    int digits = decimal_digits(unscaled);
    if (scale < 0 || scale > 38)
        return out_of_range(err, "a decimal of a scale outside 0 to 38");
    if (digits == 0)
        return out_of_range(err, "a decimal of more than 38 digits");
    int t = digits == 9 ? VT_DECIMAL4 : digits == 18 ? VT_DECIMAL8 : VT_DECIMAL16;
    size_t width = digits == 9 ? 4 : digits == 18 ? 8 : 16;
    uint8_t *q = add_scalar(b, VARIANT_PRIMITIVE(t), NULL, 1 + width, err);
    if (!q)
        return -1;
    __extension__ unsigned __int128 u = (unsigned __int128)unscaled;
    q[0] = (uint8_t)scale;
    variant_put_le(q + 1, (uint64_t)u, width < 8 ? (int)width : 8);
    if (width == 16)
        variant_put_le(q + 9, (uint64_t)(u >> 64), 8);
    return 0;
}

/* A length-prefixed primitive (string, binary). */
static int add_bytes(struct variant_builder *b, int t, const void *p, size_t len, struct error *err)
{
    if (len > UINT32_MAX)
        return out_of_range(err, "a string or binary of more than 4 GiB");
    uint8_t *q = add_scalar(b, VARIANT_PRIMITIVE(t), NULL, 4 + len, err);
    if (!q)
        return -1;
    variant_put_le(q, len, 4);
    if (len) /* (p may be NULL for no bytes) */
        memcpy(q + 4, p, len);
    return 0;
}

int variant_builder_string(struct variant_builder *b, const char *s, size_t len, struct error *err)
{
    if (!str_utf8_valid(s, len, NULL))
        return not_utf8(err, "a string");
    if (len >= VARIANT_SHORT_STRING_MAX)
        return add_bytes(b, VT_STRING, s, len, err);
    return add_scalar(b, (uint8_t)(VB_SHORT_STRING | len << 2), s, len, err) ? 0 : -1;
}

int variant_builder_binary(struct variant_builder *b, const void *p, size_t len, struct error *err)
{
    return add_bytes(b, VT_BINARY, p, len, err);
}

int variant_builder_date(struct variant_builder *b, int32_t days, struct error *err)
{
    return add_fixed(b, VT_DATE, (uint64_t)(int64_t)days, 4, err);
}

int variant_builder_time(struct variant_builder *b, int64_t micros, struct error *err)
{
    if (micros < 0 || micros >= INT64_C(86400000000))
        return out_of_range(err, "a time of day outside 00:00 to 24:00");
    return add_fixed(b, VT_TIME_NTZ, (uint64_t)micros, 8, err);
}

int variant_builder_timestamp(struct variant_builder *b, int64_t v, bool nanos, bool utc,
                              struct error *err)
{
    int t = nanos ? (utc ? VT_TIMESTAMP_NANOS : VT_TIMESTAMP_NTZ_NANOS)
                  : (utc ? VT_TIMESTAMP : VT_TIMESTAMP_NTZ);
    return add_fixed(b, t, (uint64_t)v, 8, err);
}

int variant_builder_uuid(struct variant_builder *b, const uint8_t bytes[16], struct error *err)
{
    return add_scalar(b, VARIANT_PRIMITIVE(VT_UUID), bytes, 16, err) ? 0 : -1;
}

/* ---- finishing ---- */

/* The dictionary sorted into pairs, each key's rank into rank. */
static int rank_keys(struct variant_builder *b, struct error *err)
{
    if (fill_pairs(b, NULL, b->nkeys, err) != 0)
        return -1;
    if (ARRAY_RESERVE(b->rank, b->rank_cap, b->nkeys, 16) != 0)
        return error_nomem(err);
    for (size_t j = 0; j < b->nkeys; j++)
        b->rank[b->pairs[j].key] = (uint32_t)j;
    return 0;
}

static int write_metadata(const struct variant_builder *b, struct buf *out, struct error *err)
{
    size_t n = b->nkeys, bytes = b->key_bytes.len;
    if (bytes > UINT32_MAX)
        return out_of_range(err, "a dictionary of more than 4 GiB");
    int w = variant_width_for(bytes > n ? bytes : n);
    size_t size = 1 + (size_t)w * (n + 2) + bytes;
    if (buf_reserve(out, size) != 0)
        return error_nomem(err);
    uint8_t *p = (uint8_t *)out->data + out->len;
    *p++ = variant_metadata_head(w);
    variant_put_le(p, n, w);
    p += w;
    uint8_t *strings = p + (size_t)w * (n + 1);
    size_t at = 0;
    for (size_t k = 0; k < n; k++, p += w) {
        variant_put_le(p, at, w);
        memcpy(strings + at, b->pairs[k].s, b->pairs[k].len);
        at += b->pairs[k].len;
    }
    variant_put_le(p, at, w);
    out->len += size;
    out->data[out->len] = '\0';
    return 0;
}

/* A container's header bytes, from its data's size. */
static uint64_t head_size(const struct node *x, int id_width, uint64_t data)
{
    int iw = x->kind == NK_OBJECT ? id_width : 0;
    return 1 + (x->n > 255 ? 4 : 1) + (uint64_t)iw * x->n +
           (uint64_t)variant_width_for(data) * (x->n + 1);
}

/* Every node's size, children before parents (a child's node comes after
 * its parent's). */
static int size_nodes(struct variant_builder *b, int id_width, struct error *err)
{
    for (size_t i = b->nnodes; i-- > 0;) {
        struct node *x = &b->nodes[i];
        if (x->kind == NK_SCALAR) {
            x->size = x->n;
            continue;
        }
        uint64_t data = 0;
        for (size_t j = 0; j < x->n; j++)
            data += b->nodes[b->kids[x->at + j]].size;
        if (data > UINT32_MAX)
            return out_of_range(err, "a value of more than 4 GiB");
        x->size = head_size(x, id_width, data) + data;
    }
    return 0;
}

/* Writes node i at p; returns the end of its bytes. */
static uint8_t *write_node(const struct variant_builder *b, uint32_t i, int id_width, uint8_t *p)
{
    const struct node *x = &b->nodes[i];
    if (x->kind == NK_SCALAR) {
        memcpy(p, b->scalars.data + x->at, x->n);
        return p + x->n;
    }
    const uint32_t *kids = b->kids + x->at;
    uint64_t data = 0;
    for (size_t j = 0; j < x->n; j++)
        data += b->nodes[kids[j]].size;
    int ow = variant_width_for(data), large = x->n > 255;
    bool object = x->kind == NK_OBJECT;
    uint8_t first =
        object ? variant_object_head(large, id_width, ow) : variant_array_head(large, ow);
    p = variant_put_count(p, first, x->n);
    for (size_t j = 0; object && j < x->n; j++, p += id_width)
        variant_put_le(p, b->rank[b->nodes[kids[j]].key], id_width);
    uint64_t at = 0;
    for (size_t j = 0; j <= x->n; j++, p += ow) {
        variant_put_le(p, at, ow);
        if (j < x->n)
            at += b->nodes[kids[j]].size;
    }
    for (size_t j = 0; j < x->n; j++)
        p = write_node(b, kids[j], id_width, p);
    return p;
}

int variant_builder_finish(struct variant_builder *b, struct buf *metadata, struct buf *value,
                           struct error *err)
{
    if (!b->has_root || b->nopen)
        return misuse(err, "finish before the value is complete");
    int id_width = variant_width_for(b->nkeys ? b->nkeys - 1 : 0);
    if (rank_keys(b, err) != 0 || size_nodes(b, id_width, err) != 0)
        return -1;
    uint64_t size = b->nodes[0].size;
    if (buf_reserve(value, (size_t)size) != 0)
        return error_nomem(err);
    if (write_metadata(b, metadata, err) != 0)
        return -1;
    uint8_t *end = write_node(b, 0, id_width, (uint8_t *)value->data + value->len);
    value->len = (size_t)(end - (uint8_t *)value->data);
    value->data[value->len] = '\0';
    variant_builder_reset(b);
    return 0;
}
