/* JSON text to the canonical Variant encoding: see variant.h.
 *
 * One pass: each value is written into the output as soon as it is read.
 * A container's elements are written one after another from its start;
 * when it closes, its header goes in front of them (an object's values
 * reordered into key order on the way). An object's field ids are written
 * as the keys' indexes in the order the value met them, since the sorted
 * dictionary is known only at the end, then rewritten to ranks there.
 *
 * Kept from one value to the next (rows of one source mostly have the same
 * keys in the same order): the keys met (bytes, hash, rank in the last
 * dictionary), so a key read where the last value had it is recognised by
 * comparing its bytes, with no hashing, and an object's fields are ordered
 * by their ranks rather than by comparing bytes; the last dictionary and
 * its metadata bytes, reused when a value meets the same keys in the same
 * order; and the width of field ids, which a value with a different number
 * of keys (past 256, 65536...) corrects by encoding again. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/strutil.h"
#include "variant/variant.h"
#include "variant/variant_format.h"

enum {
    KEYS_KEPT = 4096,           /* keys remembered across values, at most */
    KEY_BYTES_KEPT = 1 << 20,   /* and their bytes */
    RANKED_MAX = 64,            /* dictionaries small enough to order fields by a bitmap */
    INSERTION_SORT_MAX = 16,    /* fewer keys are sorted by insertion, more by qsort */
    SLOTS_KEPT = 4 * KEYS_KEPT, /* a larger hash table is freed, not cleared */
    COPY_OVER_MAX = 128,        /* longer copies call memcpy */
};

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

/* A key met by this encoder. */
struct key {
    const char *s; /* its bytes, in e->key_arena */
    uint32_t len;
    uint32_t hash;
    uint32_t seen;  /* the pass (e->pass) that last met it */
    uint32_t local; /* its index among that pass's keys, in the order met */
    uint32_t dict;  /* the dictionary that ranked it (e->dict_no), 0 none */
    uint32_t rank;  /* its rank in that dictionary */
    bool plain;     /* read without escapes: its JSON text is its bytes */
};

/* An element written of a container still open. */
struct elem {
    size_t off, size; /* its bytes in the output */
    uint32_t key;     /* an object field's key (index into e->keys) */
};

/* A key with an index to carry through a sort. */
struct ranked {
    const struct key *k;
    uint32_t i;
};

struct encoder {
    /* The text being read. */
    const char *p, *end, *start;
    struct error *err;

    /* The output: value bytes are written from out->len to cur. */
    struct buf *out;
    size_t cur;
    int id_width; /* field ids' width: the last value's, else 1 */

    /* Keys met, kept across values. */
    struct key *keys;
    size_t nkeys, keys_cap;
    uint32_t *slots; /* open addressing over keys: index + 1, 0 empty */
    size_t nslots;
    struct arena key_arena;
    size_t key_bytes;
    uint32_t pass; /* one per encoding pass, for key.seen */

    /* The keys of the last value, one per field in the order read: the
     * next value's are predicted from them. */
    uint32_t *seq;
    size_t nseq, seq_cap, at;

    /* This pass's keys in the order met (key.local is the index), and
     * whether they are the dictionary's so far. */
    uint32_t *row;
    size_t nrow, row_cap;
    bool same;
    /* Whether the ids written so far are ranks in the last dictionary
     * (while the value has its keys, its dictionary will be the same), else
     * keys' indexes in the order met. */
    bool ids_ranked;

    /* The last dictionary: its keys in the order its value met them, each
     * one's rank, its keys by rank, its number and its metadata bytes
     * (empty when none). */
    uint32_t *dict_keys, *rank_of, *dict_sorted;
    size_t ndict, dict_cap, rank_cap, sorted_cap;
    uint32_t dict_no;
    bool dict_identity; /* rank_of[i] == i for all i */
    struct buf dict_meta;

    /* Scratch: the open containers' elements, innermost last; an object's
     * field order; pairs to sort; the values of an object being
     * reordered; a string being unescaped. */
    struct elem *elems;
    size_t nelems, elems_cap;
    uint32_t *order;
    size_t order_cap;
    struct ranked *pairs;
    size_t pairs_cap;
    struct buf moved;
    struct buf scratch;

    /* The string read last: in the input when it has no escape (which is
     * alive for the whole call), else in scratch. */
    const char *str;
    size_t str_len;
    bool str_in_input;

    /* An error found when a container closed (duplicate key, oversize):
     * reported once the whole text has parsed, as an error in the text
     * comes first. */
    bool late;
};

static int bad_json(struct encoder *e, const char *what)
{
    return error_fail_reason(e->err, ERR_INVALID, "invalid_json", "invalid JSON at byte %zu: %s",
                             (size_t)(e->p - e->start), what);
}

/* Whether an error found at a container's close is the first (see late),
 * to be recorded. */
static bool first_late(struct encoder *e)
{
    bool first = !e->late;
    e->late = true;
    return first;
}

static void skip_ws(struct encoder *e)
{
    while (e->p < e->end && (*e->p == ' ' || *e->p == '\t' || *e->p == '\n' || *e->p == '\r'))
        e->p++;
}

/* Grows a vector of elements of `size` bytes to hold n (more than it
 * does). */
static int grow_to(struct encoder *e, void **items, size_t n, size_t *cap, size_t size)
{
    size_t c = *cap ? *cap : 8;
    while (c < n)
        c *= 2;
    void *grown = realloc(*items, c * size);
    if (!grown)
        return error_nomem(e->err);
    *items = grown;
    *cap = c;
    return 0;
}

/* Makes a vector of elements of `size` bytes hold n. */
static inline int grow(struct encoder *e, void **items, size_t n, size_t *cap, size_t size)
{
    return n <= *cap ? 0 : grow_to(e, items, n, cap, size);
}

static uint64_t load64(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t load32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* ---- output ---- */

/* Where n more bytes go (at e->cur), or NULL when out of memory. */
static uint8_t *room(struct encoder *e, size_t n)
{
    struct buf *b = e->out;
    if (b->cap - e->cur <= n && buf_reserve(b, e->cur - b->len + n) != 0) {
        error_nomem(e->err);
        return NULL;
    }
    return (uint8_t *)b->data + e->cur;
}

static int put_byte(struct encoder *e, uint8_t byte)
{
    uint8_t *p = room(e, 1);
    if (!p)
        return -1;
    *p = byte;
    e->cur++;
    return 0;
}

static int put_int(struct encoder *e, int64_t v)
{
    uint8_t *p = room(e, 9);
    if (!p)
        return -1;
    int w = variant_int_width(v);
    *p = VARIANT_PRIMITIVE(variant_int_type(w));
    variant_put_le(p + 1, (uint64_t)v, w);
    e->cur += 1 + (size_t)w;
    return 0;
}

static int put_double(struct encoder *e, double d)
{
    uint8_t *p = room(e, 9);
    if (!p)
        return -1;
    uint64_t bits;
    memcpy(&bits, &d, 8);
    *p = VARIANT_PRIMITIVE(VT_DOUBLE);
    variant_put_le(p + 1, bits, 8);
    e->cur += 9;
    return 0;
}

static int put_decimal(struct encoder *e, int128 dec)
{
    uint8_t *p = room(e, 18);
    if (!p)
        return -1;
    uint128 v = (uint128)dec;
    *p = VARIANT_PRIMITIVE(VT_DECIMAL16);
    p[1] = 0; /* scale */
    variant_put_le(p + 2, (uint64_t)v, 8);
    variant_put_le(p + 10, (uint64_t)(v >> 64), 8);
    e->cur += 18;
    return 0;
}

/* Copies n bytes from s to d in 16-byte pieces, reading and writing up to
 * 15 bytes past them: short copies (most strings and values) without a
 * call. */
static void copy_over(uint8_t *d, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 16)
        memcpy(d + i, s + i, 16);
}

/* Whether copy_over may copy n bytes from s, which ends at or before
 * end. */
static bool may_copy_over(const char *s, size_t n, const char *end)
{
    return n <= COPY_OVER_MAX && (size_t)(end - s) >= n + 16;
}

/* Writes the string read last (e->str). */
static int put_string(struct encoder *e)
{
    size_t n = e->str_len;
    uint8_t *p = room(e, 5 + n + 16); /* 16: copy_over's slack */
    if (!p)
        return -1;
    if (n < VARIANT_SHORT_STRING_MAX) {
        *p++ = (uint8_t)(VB_SHORT_STRING | n << 2);
        e->cur += 1 + n;
    } else {
        *p = VARIANT_PRIMITIVE(VT_STRING);
        variant_put_le(p + 1, n, 4);
        p += 5;
        e->cur += 5 + n;
    }
    if (e->str_in_input && may_copy_over(e->str, n, e->end))
        copy_over(p, e->str, n);
    else
        memcpy(p, e->str, n);
    return 0;
}

/* ---- strings ---- */

/* The value of the four hex digits at p (end bounds them), or -1. */
static long hex4(const char *p, const char *end)
{
    return end - p >= 4 ? str_hex4(p) : -1;
}

/* The first byte from p on (before end) that a string's plain run stops
 * at: '"', '\\', a control character or a byte past ASCII; end if none. */
static const char *plain_run(const char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Eight bytes at a time. Each test below flags exactly its first byte
     * (a borrow only runs upward from a true hit), so the lowest flag is
     * the first byte to stop at. */
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    while (end - p >= 8) {
        uint64_t w = load64(p), q = w ^ ('"' * ones), b = w ^ ('\\' * ones);
        uint64_t hit = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - 0x20 * ones) & ~w) | w;
        if (hit & high)
            return p + (__builtin_ctzll(hit & high) >> 3);
        p += 8;
    }
#endif
    while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20 &&
           (unsigned char)*p < 0x80)
        p++;
    return p;
}

static int too_long_string(struct encoder *e)
{
    return error_fail_reason(e->err, ERR_INVALID, "number_out_of_range",
                             "a string of more than 4 GiB");
}

/* The string at e->p (its opening quote), unescaped into e->scratch. */
static int read_escaped_string(struct encoder *e)
{
    buf_reset(&e->scratch);
    const char *p = e->p + 1, *run;
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
        return too_long_string(e);
    e->str = e->scratch.data ? e->scratch.data : "";
    e->str_len = e->scratch.len;
    e->str_in_input = false;
    return 0;
}

/* The string at e->p (its opening quote), into e->str: in place when it
 * has no escape (the common case), else unescaped into e->scratch. The
 * first byte that is not UTF-8 is found before anything after it, as the
 * escaped path finds it. */
static int read_string(struct encoder *e)
{
    const char *s = e->p + 1, *p = s;
    for (;;) {
        p = plain_run(p, e->end);
        if (p == e->end || (unsigned char)*p < 0x80)
            break;
        size_t n = str_utf8_seq((const unsigned char *)p, (size_t)(e->end - p));
        if (n == 0) {
            e->p = p;
            return bad_json(e, "a string that is not UTF-8");
        }
        p += n;
    }
    if (p == e->end || *p != '"')
        return read_escaped_string(e);
    if ((size_t)(p - s) > UINT32_MAX)
        return too_long_string(e);
    e->str = s;
    e->str_len = (size_t)(p - s);
    e->str_in_input = true;
    e->p = p + 1;
    return 0;
}

/* ---- keys ---- */

/* A hash of n bytes, reading them a word at a time (the last word may
 * overlap the one before). */
static uint32_t key_hash(const char *s, size_t n)
{
    const uint64_t m = 0x9e3779b97f4a7c15u;
    uint64_t h = (uint64_t)n * m;
    if (n >= 8) {
        for (; n > 8; s += 8, n -= 8)
            h = (h ^ load64(s)) * m;
        h = (h ^ load64(s + n - 8)) * m;
    } else if (n >= 4) {
        h = (h ^ (load32(s) | (uint64_t)load32(s + n - 4) << 32)) * m;
    } else if (n > 0) {
        h = (h ^ ((uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 |
                  (uint64_t)(unsigned char)s[n - 1] << 16)) *
            m;
    }
    return (uint32_t)(h >> 32 ^ h);
}

static int cmp_key_bytes(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

/* Key order (by UTF-8 bytes): by ranks when one dictionary ranked both. */
static int cmp_key(const struct key *a, const struct key *b)
{
    if (a == b)
        return 0;
    if (a->dict && a->dict == b->dict)
        return a->rank < b->rank ? -1 : 1;
    return cmp_key_bytes(a->s, a->len, b->s, b->len);
}

/* Forgets every key, and the dictionary that ranked them. */
static void forget_keys(struct encoder *e)
{
    e->nkeys = 0;
    e->key_bytes = 0;
    arena_reset(&e->key_arena);
    if (e->nslots > SLOTS_KEPT) {
        free(e->slots);
        e->slots = NULL;
        e->nslots = 0;
    } else if (e->slots) {
        memset(e->slots, 0, e->nslots * sizeof *e->slots);
    }
    e->nseq = 0;
    e->ndict = 0;
    buf_reset(&e->dict_meta);
}

/* Doubles the hash table. */
static int grow_slots(struct encoder *e)
{
    size_t nslots = e->nslots ? e->nslots * 2 : 64;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return error_nomem(e->err);
    for (size_t k = 0; k < e->nkeys; k++) {
        size_t at = e->keys[k].hash & (nslots - 1);
        while (slots[at])
            at = (at + 1) & (nslots - 1);
        slots[at] = (uint32_t)k + 1;
    }
    free(e->slots);
    e->slots = slots;
    e->nslots = nslots;
    return 0;
}

/* A new key of the bytes in e->str at hash table slot `at`. */
static int add_key(struct encoder *e, uint32_t hash, size_t at, uint32_t *index)
{
    if (grow(e, (void **)&e->keys, e->nkeys + 1, &e->keys_cap, sizeof *e->keys) != 0)
        return -1;
    char *copy = arena_alloc(&e->key_arena, e->str_len + 1);
    if (!copy)
        return error_nomem(e->err);
    memcpy(copy, e->str, e->str_len);
    e->keys[e->nkeys] = (struct key){
        .s = copy, .len = (uint32_t)e->str_len, .hash = hash, .plain = e->str_in_input};
    e->key_bytes += e->str_len;
    e->slots[at] = (uint32_t)++e->nkeys;
    *index = (uint32_t)e->nkeys - 1;
    return 0;
}

/* The index of the key in e->str, added on first sight. */
static int find_key(struct encoder *e, uint32_t *index)
{
    if (e->nkeys * 2 >= e->nslots && grow_slots(e) != 0)
        return -1;
    uint32_t hash = key_hash(e->str, e->str_len);
    size_t at = hash & (e->nslots - 1);
    for (; e->slots[at]; at = (at + 1) & (e->nslots - 1)) {
        const struct key *k = &e->keys[e->slots[at] - 1];
        if (k->hash == hash && k->len == e->str_len && memcmp(k->s, e->str, k->len) == 0) {
            *index = e->slots[at] - 1;
            return 0;
        }
    }
    return add_key(e, hash, at, index);
}

/* Whether the n bytes at a and b are equal: a word at a time, as keys are
 * short (the last word may overlap the one before). */
static bool same_bytes(const char *a, const char *b, size_t n)
{
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8)
            if (load64(a + i) != load64(b + i))
                return false;
        return load64(a + n - 8) == load64(b + n - 8);
    }
    if (n >= 4)
        return load32(a) == load32(b) && load32(a + n - 4) == load32(b + n - 4);
    return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

/* Whether the key at e->p (its opening quote) is keys[k], read in place
 * when it is (its bytes hold nothing a string escapes or stops at). */
static bool key_is(struct encoder *e, uint32_t k)
{
    const struct key *key = &e->keys[k];
    size_t n = key->len;
    if (!key->plain || (size_t)(e->end - e->p) < n + 2 || e->p[n + 1] != '"' ||
        !same_bytes(e->p + 1, key->s, n))
        return false;
    e->p += n + 2;
    return true;
}

/* How ids written are rewritten: from ranks in the last dictionary to
 * keys' indexes in the order met, or back. */
enum remap { RANK_TO_LOCAL, LOCAL_TO_RANK };

static bool is_container(const uint8_t *p)
{
    return (*p & 3) == VB_OBJECT || (*p & 3) == VB_ARRAY;
}

/* Rewrites the field ids of the objects in the container at p. */
static void remap_ids(const struct encoder *e, uint8_t *p, enum remap how)
{
    int vh = p[0] >> 2;
    bool object = (p[0] & 3) == VB_OBJECT;
    int ow = (vh & 3) + 1, iw = object ? (vh >> 2 & 3) + 1 : 0;
    int count = (object ? vh >> 4 : vh >> 2) & 1 ? 4 : 1;
    size_t n = (size_t)variant_get_le(p + 1, count);
    uint8_t *q = p + 1 + count;
    for (size_t i = 0; i < n; i++, q += iw) {
        uint64_t id = variant_get_le(q, iw);
        variant_put_le(q, how == LOCAL_TO_RANK ? e->rank_of[id] : e->keys[e->dict_sorted[id]].local,
                       iw);
    }
    uint8_t *values = q + (size_t)ow * (n + 1);
    for (size_t i = 0; i < n; i++, q += ow) {
        uint8_t *child = values + variant_get_le(q, ow);
        if (is_container(child))
            remap_ids(e, child, how);
    }
}

/* The value turned out to have keys the last dictionary lacks: the ids
 * written so far (in the open containers' elements) become keys' indexes
 * in the order met, as those to come. */
static void unrank_written(struct encoder *e)
{
    e->ids_ranked = false;
    for (size_t i = 0; i < e->nelems; i++) {
        uint8_t *p = (uint8_t *)e->out->data + e->elems[i].off;
        if (is_container(p))
            remap_ids(e, p, RANK_TO_LOCAL);
    }
}

/* Counts keys[k] among this pass's keys. */
static int meet_key(struct encoder *e, uint32_t k)
{
    struct key *key = &e->keys[k];
    if (key->seen == e->pass)
        return 0;
    if (grow(e, (void **)&e->row, e->nrow + 1, &e->row_cap, sizeof *e->row) != 0)
        return -1;
    key->seen = e->pass;
    key->local = (uint32_t)e->nrow;
    e->same = e->same && e->nrow < e->ndict && e->dict_keys[e->nrow] == k;
    e->row[e->nrow++] = k;
    if (!e->same && e->ids_ranked)
        unrank_written(e);
    return 0;
}

/* The object key at e->p: first tried as the key the last value read at
 * this point. */
static int read_key(struct encoder *e, uint32_t *index)
{
    uint32_t k = 0;
    if (!(e->at < e->nseq && key_is(e, k = e->seq[e->at])) &&
        (read_string(e) != 0 || find_key(e, &k) != 0))
        return -1;
    if (meet_key(e, k) != 0 ||
        grow(e, (void **)&e->seq, e->at + 1, &e->seq_cap, sizeof *e->seq) != 0)
        return -1;
    e->seq[e->at++] = k;
    *index = k;
    return 0;
}

/* ---- numbers ---- */

/* The double of a number of at most 15 significant digits m times ten to
 * the power x, when both are exact doubles (|x| <= 22): one correctly
 * rounded operation, so strtod's value. False when it needs strtod. */
static bool exact_double(uint64_t m, int x, bool negative, double *d)
{
#if FLT_EVAL_METHOD == 0
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (x < -22 || x > 22)
        return false;
    double v = x < 0 ? (double)m / pow10[-x] : (double)m * pow10[x];
    *d = negative ? -v : v;
    return true;
#else
    (void)m, (void)x, (void)negative, (void)d;
    return false;
#endif
}

/* A real, or an integer past decimal16, by strtod on a bounded copy (the
 * text holds no locale-dependent form). */
static int put_strtod(struct encoder *e, const char *s, const char *p)
{
    char text[512];
    if ((size_t)(p - s) >= sizeof text)
        return error_fail_reason(e->err, ERR_INVALID, "number_out_of_range",
                                 "a number of %zu characters", (size_t)(p - s));
    memcpy(text, s, (size_t)(p - s));
    text[p - s] = '\0';
    errno = 0;
    double d = strtod(text, NULL);
    if (!isfinite(d))
        return error_fail_reason(e->err, ERR_INVALID, "number_out_of_range",
                                 "%.40s is beyond a double's range", text);
    return put_double(e, d);
}

/* The digits from p on (before end), accumulated into *m while there are
 * at most 15 significant ones (*sig counts them, 16 once past). */
static const char *digits(const char *p, const char *end, uint64_t *m, int *sig)
{
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (*sig > 15)
            continue;
        *m = *m * 10 + (unsigned)(*p - '0');
        if (*m)
            ++*sig;
    }
    return p;
}

static int read_number(struct encoder *e)
{
    const char *s = e->p, *p = s;
    bool negative = p < e->end && *p == '-';
    if (negative)
        p++;
    const char *int_digits = p;
    uint64_t m = 0;
    int sig = 0;
    if (p < e->end && *p == '0')
        p++;
    else
        p = digits(p, e->end, &m, &sig);
    if (p == int_digits) {
        e->p = p;
        return bad_json(e, "a number without digits");
    }
    size_t ndigits = (size_t)(p - int_digits);
    bool integer = true;
    int scale = 0; /* the exact double's power of ten */
    if (p < e->end && *p == '.') {
        integer = false;
        const char *f = ++p;
        p = digits(p, e->end, &m, &sig);
        if (p == f) {
            e->p = p;
            return bad_json(e, "a fraction without digits");
        }
        scale = -(int)(p - f < 1000 ? p - f : 1000);
    }
    if (p < e->end && (*p == 'e' || *p == 'E')) {
        integer = false;
        p++;
        bool minus = p < e->end && *p == '-';
        if (p < e->end && (*p == '+' || *p == '-'))
            p++;
        const char *x = p;
        int exp = 0;
        for (; p < e->end && *p >= '0' && *p <= '9'; p++)
            if (exp < 1000)
                exp = exp * 10 + (*p - '0');
        if (p == x) {
            e->p = p;
            return bad_json(e, "an exponent without digits");
        }
        scale += minus ? -exp : exp;
    }
    e->p = p;
    if (integer && ndigits <= 15)
        return put_int(e, negative ? -(int64_t)m : (int64_t)m);
    if (integer && ndigits <= 38) {
        uint128 mag = 0;
        for (const char *d = int_digits; d < p; d++)
            mag = mag * 10 + (unsigned)(*d - '0');
        if (mag <= (negative ? (uint128)INT64_MAX + 1 : (uint128)INT64_MAX))
            return put_int(e, negative ? (int64_t)(0 - (uint64_t)mag) : (int64_t)mag);
        return put_decimal(e, negative ? -(int128)mag : (int128)mag);
    }
    double d;
    if (!integer && sig <= 15 && exact_double(m, scale, negative, &d))
        return put_double(e, d);
    return put_strtod(e, s, p);
}

/* ---- containers ---- */

/* The element just written, from `at` on, to its container. */
static int push_elem(struct encoder *e, size_t at, uint32_t key)
{
    if (grow(e, (void **)&e->elems, e->nelems + 1, &e->elems_cap, sizeof *e->elems) != 0)
        return -1;
    e->elems[e->nelems++] = (struct elem){at, e->cur - at, key};
    return 0;
}

/* Records a container's data (the elements from start on) of more than
 * 4 GiB, which its offsets cannot hold. */
static void check_size(struct encoder *e, size_t data)
{
    if (data > UINT32_MAX && first_late(e))
        error_fail_reason(e->err, ERR_INVALID, "number_out_of_range", "a value of more than 4 GiB");
}

/* Writes a container's first byte and element count at start, and
 * returns where the rest of its header goes. */
static uint8_t *open_header(struct encoder *e, size_t start, uint8_t first, size_t n)
{
    return variant_put_count((uint8_t *)e->out->data + start, first, n);
}

static int close_array(struct encoder *e, size_t base, size_t start)
{
    size_t n = e->nelems - base, data = e->cur - start;
    check_size(e, data);
    int large = n > 255, ow = variant_width_for(data);
    size_t head = 1 + (large ? 4 : 1) + (size_t)ow * (n + 1);
    uint8_t first = variant_array_head(large, ow);
    if (!room(e, head))
        return -1;
    uint8_t *values = (uint8_t *)e->out->data + start + head;
    memmove(values, values - head, data);
    uint8_t *p = open_header(e, start, first, n);
    for (size_t i = 0; i < n; i++, p += ow)
        variant_put_le(p, e->elems[base + i].off - start, ow);
    variant_put_le(p, data, ow);
    e->cur += head;
    return 0;
}

/* Orders the n fields f by their keys' ranks in the dictionary, when it
 * ranked every one, is small and they are distinct: one bit per rank. */
static bool order_by_rank(const struct encoder *e, const struct elem *f, size_t n, uint32_t *order)
{
    if (e->ndict == 0 || e->ndict > RANKED_MAX || n > RANKED_MAX)
        return false;
    uint64_t bits = 0;
    uint8_t field_of[RANKED_MAX];
    for (size_t i = 0; i < n; i++) {
        const struct key *k = &e->keys[f[i].key];
        if (k->dict != e->dict_no)
            return false;
        uint64_t bit = (uint64_t)1 << k->rank;
        if (bits & bit)
            return false;
        bits |= bit;
        field_of[k->rank] = (uint8_t)i;
    }
    for (size_t j = 0; bits; bits &= bits - 1, j++)
        order[j] = field_of[__builtin_ctzll(bits)];
    return true;
}

static int cmp_ranked(const void *x, const void *y)
{
    return cmp_key(((const struct ranked *)x)->k, ((const struct ranked *)y)->k);
}

/* Sorts n pairs by key: by insertion when they are few. */
static void sort_ranked(struct ranked *r, size_t n)
{
    if (n > INSERTION_SORT_MAX) {
        qsort(r, n, sizeof *r, cmp_ranked);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        struct ranked x = r[i];
        size_t j = i;
        for (; j > 0 && cmp_key(r[j - 1].k, x.k) > 0; j--)
            r[j] = r[j - 1];
        r[j] = x;
    }
}

/* Orders the n fields f by key, comparing them; a key named twice is
 * recorded (the first in key order, as the message names it). */
static int order_by_sort(struct encoder *e, const struct elem *f, size_t n, uint32_t *order)
{
    if (grow(e, (void **)&e->pairs, n, &e->pairs_cap, sizeof *e->pairs) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        e->pairs[i] = (struct ranked){&e->keys[f[i].key], (uint32_t)i};
    sort_ranked(e->pairs, n);
    for (size_t j = 0; j < n; j++) {
        order[j] = e->pairs[j].i;
        const struct key *k = e->pairs[j].k; /* not NUL-terminated */
        if (j > 0 && k == e->pairs[j - 1].k && first_late(e))
            error_fail_reason(e->err, ERR_INVALID, "duplicate_key",
                              "an object names the key '%.*s' twice",
                              (int)(k->len < 64 ? k->len : 64), k->s);
    }
    return 0;
}

/* Writes the object's header and its values in key order. */
static int close_object(struct encoder *e, size_t base, size_t start)
{
    size_t n = e->nelems - base, data = e->cur - start;
    /* (elems is NULL until an element is met) */
    const struct elem *f = e->elems ? e->elems + base : NULL;
    if (grow(e, (void **)&e->order, n, &e->order_cap, sizeof *e->order) != 0)
        return -1;
    check_size(e, data);
    if (!order_by_rank(e, f, n, e->order) && order_by_sort(e, f, n, e->order) != 0)
        return -1;
    bool in_order = true;
    for (size_t j = 0; j < n && in_order; j++)
        in_order = e->order[j] == j;
    int large = n > 255, iw = e->id_width, ow = variant_width_for(data);
    size_t head = 1 + (large ? 4 : 1) + (size_t)iw * n + (size_t)ow * (n + 1);
    uint8_t first = variant_object_head(large, iw, ow);
    /* The values move behind the header: in one piece when already in key
     * order, else each from a copy. */
    const char *from = NULL;
    if (!in_order) {
        buf_reset(&e->moved);
        if (buf_reserve(&e->moved, data + 16) != 0) /* 16: copy_over's slack */
            return error_nomem(e->err);
        memcpy(e->moved.data, e->out->data + start, data);
        from = e->moved.data;
    }
    if (!room(e, head + 16)) /* 16: copy_over's slack */
        return -1;
    uint8_t *values = (uint8_t *)e->out->data + start + head;
    if (in_order)
        memmove(values, values - head, data);
    uint8_t *p = open_header(e, start, first, n);
    for (size_t j = 0; j < n; j++, p += iw) {
        const struct key *k = &e->keys[f[e->order[j]].key];
        variant_put_le(p, e->ids_ranked ? k->rank : k->local, iw);
    }
    size_t at = 0;
    for (size_t j = 0; j < n; j++, p += ow) {
        const struct elem *v = &f[e->order[j]];
        variant_put_le(p, at, ow);
        if (!in_order && v->size <= COPY_OVER_MAX)
            copy_over(values + at, from + (v->off - start), v->size);
        else if (!in_order)
            memcpy(values + at, from + (v->off - start), v->size);
        at += v->size;
    }
    variant_put_le(p, at, ow);
    e->cur += head;
    return 0;
}

/* ---- values ---- */

static int read_value(struct encoder *e, int depth);

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

static int read_array(struct encoder *e, int depth)
{
    e->p++;
    size_t base = e->nelems, start = e->cur;
    int end;
    while ((end = ends(e, ']', e->nelems == base)) == 0) {
        size_t at = e->cur;
        if (read_value(e, depth + 1) != 0 || push_elem(e, at, 0) != 0) {
            end = -1;
            break;
        }
    }
    int rc = end == 1 ? close_array(e, base, start) : -1;
    e->nelems = base;
    return rc;
}

/* One "key": value of an object. */
static int read_field(struct encoder *e, int depth)
{
    skip_ws(e);
    if (e->p == e->end || *e->p != '"')
        return bad_json(e, "expected a key");
    uint32_t key;
    if (read_key(e, &key) != 0)
        return -1;
    skip_ws(e);
    if (e->p == e->end || *e->p != ':')
        return bad_json(e, "expected ':'");
    e->p++;
    size_t at = e->cur;
    if (read_value(e, depth + 1) != 0)
        return -1;
    return push_elem(e, at, key);
}

static int read_object(struct encoder *e, int depth)
{
    e->p++;
    size_t base = e->nelems, start = e->cur;
    int end;
    while ((end = ends(e, '}', e->nelems == base)) == 0)
        if (read_field(e, depth) != 0) {
            end = -1;
            break;
        }
    int rc = end == 1 ? close_object(e, base, start) : -1;
    e->nelems = base;
    return rc;
}

static bool literal(struct encoder *e, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(e->end - e->p) < n || memcmp(e->p, word, n) != 0)
        return false;
    e->p += n;
    return true;
}

static int read_value(struct encoder *e, int depth)
{
    skip_ws(e);
    if (e->p == e->end)
        return bad_json(e, "expected a value");
    char c = *e->p;
    if ((c == '[' || c == '{') && depth >= VARIANT_MAX_DEPTH)
        return error_fail_reason(e->err, ERR_INVALID, "nesting_too_deep",
                                 "a value nested more than %d levels deep", VARIANT_MAX_DEPTH);
    switch (c) {
    case '[': return read_array(e, depth);
    case '{': return read_object(e, depth);
    case '"': return read_string(e) == 0 ? put_string(e) : -1;
    case 't':
        if (literal(e, "true"))
            return put_byte(e, VARIANT_PRIMITIVE(VT_TRUE));
        break;
    case 'f':
        if (literal(e, "false"))
            return put_byte(e, VARIANT_PRIMITIVE(VT_FALSE));
        break;
    case 'n':
        if (literal(e, "null"))
            return put_byte(e, VARIANT_PRIMITIVE(VT_NULL));
        break;
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return read_number(e);
    }
    return bad_json(e, "expected a value");
}

/* ---- the dictionary ---- */

/* Forgets the last dictionary (after a failure half way through making
 * the next one). */
static void forget_dictionary(struct encoder *e)
{
    e->ndict = 0;
    buf_reset(&e->dict_meta);
}

/* The metadata of the n keys in r, sorted, into e->dict_meta. */
static int write_metadata(struct encoder *e, const struct ranked *r, size_t n)
{
    size_t bytes = 0;
    for (size_t k = 0; k < n; k++)
        bytes += r[k].k->len;
    if (bytes > UINT32_MAX || n > UINT32_MAX)
        return error_fail_reason(e->err, ERR_INVALID, "number_out_of_range",
                                 "a dictionary of more than 4 GiB");
    int w = variant_width_for(bytes > n ? bytes : n);
    size_t size = 1 + (size_t)w * (n + 2) + bytes;
    buf_reset(&e->dict_meta);
    if (buf_reserve(&e->dict_meta, size) != 0)
        return error_nomem(e->err);
    uint8_t *p = (uint8_t *)e->dict_meta.data;
    *p++ = variant_metadata_head(w);
    variant_put_le(p, n, w);
    p += w;
    size_t at = 0;
    for (size_t k = 0; k < n; k++, p += w) {
        variant_put_le(p, at, w);
        at += r[k].k->len;
    }
    variant_put_le(p, at, w);
    p += w;
    for (size_t k = 0; k < n; k++) {
        memcpy(p, r[k].k->s, r[k].k->len);
        p += r[k].k->len;
    }
    e->dict_meta.len = size;
    return 0;
}

/* Makes this pass's keys the dictionary: sorted, each one ranked. */
static int sort_dictionary(struct encoder *e)
{
    size_t n = e->nrow;
    if (grow(e, (void **)&e->pairs, n, &e->pairs_cap, sizeof *e->pairs) != 0 ||
        grow(e, (void **)&e->dict_keys, n, &e->dict_cap, sizeof *e->dict_keys) != 0 ||
        grow(e, (void **)&e->rank_of, n, &e->rank_cap, sizeof *e->rank_of) != 0 ||
        grow(e, (void **)&e->dict_sorted, n, &e->sorted_cap, sizeof *e->dict_sorted) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        e->pairs[i] = (struct ranked){&e->keys[e->row[i]], (uint32_t)i};
    sort_ranked(e->pairs, n);
    if (write_metadata(e, e->pairs, n) != 0)
        return -1;
    e->dict_no++;
    e->dict_identity = true;
    for (size_t j = 0; j < n; j++) {
        struct key *k = &e->keys[e->row[e->pairs[j].i]];
        k->dict = e->dict_no;
        k->rank = (uint32_t)j;
        e->rank_of[e->pairs[j].i] = (uint32_t)j;
        e->dict_sorted[j] = e->row[e->pairs[j].i];
        e->dict_identity = e->dict_identity && e->pairs[j].i == j;
    }
    if (n > 0) /* (row is NULL until a key is met) */
        memcpy(e->dict_keys, e->row, n * sizeof *e->row);
    e->ndict = n;
    return 0;
}

/* ---- encoding ---- */

/* One pass over the text: 0, -1 on error, or 1 when the ids' width
 * guessed was wrong (now corrected: the text must be encoded again). */
static int encode_pass(struct encoder *e, const char *json, size_t len, struct buf *metadata,
                       struct buf *value)
{
    e->p = e->start = json;
    e->end = json + len;
    e->out = value;
    e->cur = value->len;
    e->nelems = e->nrow = e->at = 0;
    e->same = true;
    e->ids_ranked =
        e->dict_meta.len > 0 && variant_width_for(e->ndict ? e->ndict - 1 : 0) == e->id_width;
    e->late = false;
    e->pass++;
    int rc = read_value(e, 0);
    if (rc == 0) {
        skip_ws(e);
        if (e->p != e->end)
            rc = bad_json(e, "text after the value");
    }
    e->nseq = e->at;
    if (rc != 0)
        return -1;
    int iw = variant_width_for(e->nrow ? e->nrow - 1 : 0);
    if (iw != e->id_width) {
        e->id_width = iw;
        return 1;
    }
    if (e->late)
        return -1;
    uint8_t *root = (uint8_t *)value->data + value->len;
    if (!(e->same && e->nrow == e->ndict && e->dict_meta.len > 0)) {
        if (e->ids_ranked && is_container(root)) /* it had fewer keys */
            remap_ids(e, root, RANK_TO_LOCAL);
        e->ids_ranked = false;
        if (sort_dictionary(e) != 0) {
            forget_dictionary(e);
            return -1;
        }
    }
    if (buf_append(metadata, e->dict_meta.data, e->dict_meta.len) != 0)
        return error_nomem(e->err);
    if (!e->ids_ranked && !e->dict_identity && is_container(root))
        remap_ids(e, root, LOCAL_TO_RANK);
    value->len = e->cur;
    value->data[value->len] = '\0';
    return 0;
}

struct variant_encoder *variant_encoder_new(void)
{
    struct encoder *e = calloc(1, sizeof *e);
    if (e) {
        arena_init(&e->key_arena, 0);
        e->id_width = 1;
    }
    return (struct variant_encoder *)e;
}

void variant_encoder_free(struct variant_encoder *ve)
{
    struct encoder *e = (struct encoder *)ve;
    if (!e)
        return;
    free(e->keys);
    free(e->slots);
    arena_free(&e->key_arena);
    free(e->seq);
    free(e->row);
    free(e->dict_keys);
    free(e->rank_of);
    free(e->dict_sorted);
    buf_free(&e->dict_meta);
    free(e->elems);
    free(e->order);
    free(e->pairs);
    buf_free(&e->moved);
    buf_free(&e->scratch);
    free(e);
}

int variant_encoder_encode(struct variant_encoder *ve, const char *json, size_t len,
                           struct buf *metadata, struct buf *value, struct error *err)
{
    struct encoder *e = (struct encoder *)ve;
    e->err = err;
    /* A value with very many keys leaves none of them behind; counters
     * about to wrap start again. */
    if (e->nkeys > KEYS_KEPT || e->key_bytes > KEY_BYTES_KEPT || e->pass > UINT32_MAX - 2 ||
        e->dict_no == UINT32_MAX) {
        forget_keys(e);
        e->pass = e->dict_no = 0;
    }
    int rc = encode_pass(e, json, len, metadata, value);
    if (rc == 1) /* the same keys again: the width is right this time */
        rc = encode_pass(e, json, len, metadata, value);
    if (rc != 0) {
        /* Metadata is appended last, so only value has bytes past its
         * length (and its NUL overwritten). */
        if (value->data)
            value->data[value->len] = '\0';
        return -1;
    }
    return 0;
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
