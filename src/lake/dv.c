#include "lake/dv.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/buf.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/search.h"

static const uint8_t dv_magic[4] = {0xD1, 0xD3, 0x39, 0x64};

/* The portable format's cookies (RoaringFormatSpec). */
enum {
    COOKIE_NO_RUNS = 12346, /* then a u32 container count; offsets always */
    COOKIE_RUNS = 12347,    /* low 16 bits; high 16 bits: containers - 1 */
    RUN_OFFSET_THRESHOLD = 4,
    ARRAY_MAX = 4096,
    BITMAP_BYTES = 8192,
};

void lake_dv_init(struct lake_dv *v)
{
    memset(v, 0, sizeof *v);
}

void lake_dv_free(struct lake_dv *v)
{
    free(v->pos);
    lake_dv_init(v);
}

static int reserve(struct lake_dv *v, size_t need, struct error *err)
{
    if (need <= v->cap)
        return 0;
    size_t cap = v->cap ? v->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    if (cap > SIZE_MAX / sizeof *v->pos)
        return error_nomem(err);
    uint64_t *p = realloc(v->pos, cap * sizeof *p);
    if (!p)
        return error_nomem(err);
    v->pos = p;
    v->cap = cap;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool is_sorted(const uint64_t *p, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (p[i] < p[i - 1])
            return false;
    return true;
}

/* Drops repeats from the sorted p[from..n), which follows the distinct
 * p[0..from); returns the new count. */
static size_t drop_repeats(uint64_t *p, size_t from, size_t n)
{
    size_t k = from;
    for (size_t i = from; i < n; i++)
        if (k == 0 || p[i] != p[k - 1])
            p[k++] = p[i];
    return k;
}

int lake_dv_add(struct lake_dv *v, const uint64_t *pos, size_t n, struct error *err)
{
    if (n == 0)
        return 0;
    if (n > SIZE_MAX / sizeof *v->pos - v->n)
        return error_nomem(err);
    bool sorted = is_sorted(pos, n);
    /* Positions mostly come in order, after those held: then they are
     * appended, not the whole set sorted again. */
    if (sorted && (v->n == 0 || pos[0] > v->pos[v->n - 1])) {
        if (reserve(v, v->n + n, err) != 0)
            return -1;
        memcpy(v->pos + v->n, pos, n * sizeof *pos);
        v->n = drop_repeats(v->pos, v->n, v->n + n);
        return 0;
    }
    /* Else one merge into a vector of the exact size. */
    uint64_t *out = malloc((v->n + n) * sizeof *out);
    uint64_t *copy = sorted ? NULL : malloc(n * sizeof *copy);
    if (!out || (!sorted && !copy)) {
        free(out);
        free(copy);
        return error_nomem(err);
    }
    const uint64_t *in = pos;
    if (copy) {
        memcpy(copy, pos, n * sizeof *copy);
        qsort(copy, n, sizeof *copy, cmp_u64);
        in = copy;
    }
    size_t i = 0, j = 0, k = 0;
    while (i < v->n || j < n) {
        uint64_t next = j == n || (i < v->n && v->pos[i] <= in[j]) ? v->pos[i++] : in[j++];
        if (k == 0 || next != out[k - 1])
            out[k++] = next;
    }
    free(copy);
    free(v->pos);
    v->pos = out;
    v->cap = v->n + n;
    v->n = k;
    return 0;
}

size_t lake_dv_lower_bound(const struct lake_dv *v, uint64_t pos)
{
    return LOWER_BOUND(v->n, i, v->pos[i] < pos);
}

void lake_dv_subtract(struct lake_dv *v, const struct lake_dv *other)
{
    size_t kept = 0, j = 0;
    for (size_t i = 0; i < v->n; i++) {
        while (j < other->n && other->pos[j] < v->pos[i])
            j++;
        if (j == other->n || other->pos[j] != v->pos[i])
            v->pos[kept++] = v->pos[i];
    }
    v->n = kept;
}

bool lake_dv_contains(const struct lake_dv *v, uint64_t pos)
{
    size_t i = lake_dv_lower_bound(v, pos);
    return i < v->n && v->pos[i] == pos;
}

/* ---- decoding ---- */

struct reader {
    const uint8_t *p;
    size_t len, at;
    uint64_t rows; /* every position is below this */
    struct lake_dv *out;
    struct error *err;
};

static int corrupt(struct reader *r, const char *what)
{
    return error_fail(r->err, ERR_CORRUPT, "deletion vector: %s (at byte %zu of the vector)", what,
                      r->at);
}

static const uint8_t *take(struct reader *r, size_t n)
{
    if (n > r->len - r->at)
        return NULL;
    const uint8_t *p = r->p + r->at;
    r->at += n;
    return p;
}

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* Room for a container of `card` more positions: never more than the file
 * has rows, so a hostile cardinality costs no memory. */
static int make_room(struct reader *r, uint64_t card)
{
    if (card > r->rows - r->out->n)
        return corrupt(r, "more deleted positions than the data file has rows");
    return reserve(r->out, r->out->n + card, r->err);
}

static int emit(struct reader *r, uint64_t pos)
{
    if (pos >= r->rows)
        return corrupt(r, "a position at or past the data file's row count");
    r->out->pos[r->out->n++] = pos;
    return 0;
}

static int run_container(struct reader *r, uint64_t base, uint32_t card)
{
    const uint8_t *h = take(r, 2);
    if (!h)
        return corrupt(r, "truncated run container");
    uint16_t nruns = le16(h);
    const uint8_t *runs = take(r, (size_t)nruns * 4);
    if (!runs)
        return corrupt(r, "truncated run container");
    uint32_t total = 0;
    int64_t prev_end = -1;
    for (uint16_t i = 0; i < nruns; i++) {
        uint32_t start = le16(runs + 4 * i), end = start + le16(runs + 4 * i + 2);
        if (end > 0xFFFF || (int64_t)start <= prev_end)
            return corrupt(r, "a run container's runs overlap, fall out of order or overflow");
        total += end - start + 1;
        if (total > card)
            return corrupt(r, "a run container holds more values than its cardinality");
        for (uint32_t v = start; v <= end; v++)
            if (emit(r, base | v) != 0)
                return -1;
        prev_end = end;
    }
    return total == card ? 0 : corrupt(r, "a run container's cardinality differs from its runs");
}

static int bitmap_container(struct reader *r, uint64_t base, uint32_t card)
{
    const uint8_t *bits = take(r, BITMAP_BYTES);
    if (!bits)
        return corrupt(r, "truncated bitmap container");
    uint64_t words[BITMAP_BYTES / 8];
    uint32_t seen = 0;
    for (size_t w = 0; w < BITMAP_BYTES / 8; w++) {
        words[w] = le_load64(bits + 8 * w);
        seen += (uint32_t)__builtin_popcountll(words[w]);
    }
    if (seen != card)
        return corrupt(r, "a bitmap container's cardinality differs from its bits");
    /* make_room left room for card positions. */
    for (size_t w = 0; w < BITMAP_BYTES / 8; w++)
        for (uint64_t word = words[w]; word; word &= word - 1)
            if (emit(r, base | (w * 64 + (uint64_t)__builtin_ctzll(word))) != 0)
                return -1;
    return 0;
}

static int array_container(struct reader *r, uint64_t base, uint32_t card)
{
    const uint8_t *vals = take(r, (size_t)card * 2);
    if (!vals)
        return corrupt(r, "truncated array container");
    int32_t prev = -1;
    for (uint32_t i = 0; i < card; i++) {
        uint16_t v = le16(vals + 2 * i);
        if ((int32_t)v <= prev)
            return corrupt(r, "an array container's values are not strictly rising");
        if (emit(r, base | v) != 0)
            return -1;
        prev = v;
    }
    return 0;
}

/* One 32-bit portable bitmap, whose positions have `high` as their top 32
 * bits. */
static int decode32(struct reader *r, uint64_t high)
{
    const uint8_t *c = take(r, 4);
    if (!c)
        return corrupt(r, "truncated bitmap cookie");
    uint32_t cookie = le_load32(c), n;
    const uint8_t *run_flags = NULL;
    bool offsets;
    if (cookie == COOKIE_NO_RUNS) {
        const uint8_t *cn = take(r, 4);
        if (!cn)
            return corrupt(r, "truncated container count");
        n = le_load32(cn);
        if (n > 65536)
            return corrupt(r, "more than 65536 containers");
        offsets = true;
    } else if ((cookie & 0xFFFF) == COOKIE_RUNS) {
        n = (cookie >> 16) + 1;
        if (!(run_flags = take(r, (n + 7) / 8)))
            return corrupt(r, "truncated run flags");
        offsets = n >= RUN_OFFSET_THRESHOLD;
    } else {
        return corrupt(r, "not a portable roaring bitmap (unknown cookie)");
    }
    const uint8_t *desc = take(r, (size_t)n * 4);
    if (!desc || (offsets && !take(r, (size_t)n * 4)))
        return corrupt(r, "truncated container headers");
    /* Room for the bucket's positions at once, not container by container. */
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += (uint64_t)le16(desc + 4 * i + 2) + 1;
    if (make_room(r, total) != 0)
        return -1;
    int32_t prev_key = -1;
    for (uint32_t i = 0; i < n; i++) {
        uint16_t key = le16(desc + 4 * i);
        uint32_t card = (uint32_t)le16(desc + 4 * i + 2) + 1;
        if ((int32_t)key <= prev_key)
            return corrupt(r, "container keys are not strictly rising");
        prev_key = key;
        uint64_t base = high << 32 | (uint64_t)key << 16;
        bool run = run_flags && (run_flags[i / 8] >> (i % 8) & 1);
        int rc = run                ? run_container(r, base, card)
                 : card > ARRAY_MAX ? bitmap_container(r, base, card)
                                    : array_container(r, base, card);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int lake_dv_decode(const uint8_t *blob, size_t len, uint64_t rows, struct lake_dv *out,
                   struct error *err)
{
    lake_dv_init(out);
    if (len < 12)
        return error_fail(err, ERR_CORRUPT, "deletion vector: %zu bytes, fewer than a blob holds",
                          len);
    uint32_t inner = be_load32(blob);
    if ((uint64_t)inner + 8 != len)
        return error_fail(err, ERR_CORRUPT,
                          "deletion vector: its length prefix says %u bytes, the blob has %zu",
                          inner, len > 8 ? len - 8 : 0);
    if (inner < 12 || memcmp(blob + 4, dv_magic, 4) != 0)
        return error_fail(err, ERR_CORRUPT, "deletion vector: bad magic");
    uint32_t crc = (uint32_t)crc32(0L, blob + 4, inner);
    if (crc != be_load32(blob + 4 + inner))
        return error_fail(err, ERR_CORRUPT, "deletion vector: CRC-32 mismatch");
    struct reader r = {.p = blob + 8, .len = inner - 4, .rows = rows, .out = out, .err = err};
    const uint8_t *nb = take(&r, 8);
    uint64_t buckets = le_load64(nb);
    /* A bucket takes at least 12 bytes (key, cookie, count). */
    int rc = buckets > (r.len - r.at) / 12
                 ? corrupt(&r, "more buckets than the vector has room for")
                 : 0;
    int64_t prev = -1;
    for (uint64_t b = 0; rc == 0 && b < buckets; b++) {
        const uint8_t *k = take(&r, 4);
        if (!k) {
            rc = corrupt(&r, "truncated bucket key");
            break;
        }
        uint32_t key = le_load32(k);
        if ((int64_t)key <= prev)
            rc = corrupt(&r, "bucket keys are not strictly rising");
        else
            rc = decode32(&r, key);
        prev = key;
    }
    if (rc == 0 && r.at != r.len)
        rc = corrupt(&r, "bytes after the last bucket");
    if (rc != 0)
        lake_dv_free(out);
    return rc;
}

/* ---- encoding ---- */

static int put_le(struct buf *out, uint64_t v, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    return buf_append(out, b, (size_t)bytes);
}

static int put_be32(struct buf *out, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    return buf_append(out, b, 4);
}

/* The end of the run of positions in [from, n) sharing pos[from]'s top
 * `shift`-bit prefix. */
static size_t prefix_end(const struct lake_dv *v, size_t from, int shift)
{
    size_t i = from;
    while (i < v->n && v->pos[i] >> shift == v->pos[from] >> shift)
        i++;
    return i;
}

/* One 32-bit bitmap of positions [from, to) (one bucket), without runs. */
static int encode32(const struct lake_dv *v, size_t from, size_t to, struct buf *out)
{
    uint32_t n = 0;
    for (size_t i = from; i < to; i = prefix_end(v, i, 16))
        n++;
    if (put_le(out, COOKIE_NO_RUNS, 4) != 0 || put_le(out, n, 4) != 0)
        return -1;
    for (size_t i = from; i < to; i = prefix_end(v, i, 16)) {
        size_t card = prefix_end(v, i, 16) - i;
        if (put_le(out, (v->pos[i] >> 16) & 0xFFFF, 2) != 0 || put_le(out, card - 1, 2) != 0)
            return -1;
    }
    /* Offsets count from the cookie. */
    uint64_t at = 8 + 8 * (uint64_t)n;
    for (size_t i = from; i < to; i = prefix_end(v, i, 16)) {
        size_t card = prefix_end(v, i, 16) - i;
        if (put_le(out, at, 4) != 0)
            return -1;
        at += card > ARRAY_MAX ? BITMAP_BYTES : 2 * card;
    }
    for (size_t i = from; i < to;) {
        size_t end = prefix_end(v, i, 16);
        if (end - i > ARRAY_MAX) {
            uint8_t bits[BITMAP_BYTES] = {0};
            for (size_t k = i; k < end; k++) {
                uint16_t low = (uint16_t)v->pos[k];
                bits[low >> 3] |= (uint8_t)(1u << (low & 7));
            }
            if (buf_append(out, bits, sizeof bits) != 0)
                return -1;
        } else {
            if (buf_reserve(out, 2 * (end - i)) != 0)
                return -1;
            uint8_t *p = (uint8_t *)out->data + out->len;
            for (size_t k = i; k < end; k++, p += 2) {
                p[0] = (uint8_t)v->pos[k];
                p[1] = (uint8_t)(v->pos[k] >> 8);
            }
            out->len += 2 * (end - i);
        }
        i = end;
    }
    return 0;
}

int lake_dv_encode(const struct lake_dv *v, struct buf *out, struct error *err)
{
    size_t start = out->len;
    uint64_t buckets = 0;
    for (size_t i = 0; i < v->n; i = prefix_end(v, i, 32))
        buckets++;
    /* The length prefix is patched in once the vector's size is known. */
    int rc = put_be32(out, 0) || buf_append(out, dv_magic, 4) || put_le(out, buckets, 8);
    for (size_t i = 0; rc == 0 && i < v->n; i = prefix_end(v, i, 32))
        rc = put_le(out, v->pos[i] >> 32, 4) || encode32(v, i, prefix_end(v, i, 32), out);
    size_t inner = out->len - start - 4;
    if (rc == 0 && inner > UINT32_MAX)
        rc = -1;
    if (rc == 0) {
        uint8_t *p = (uint8_t *)out->data + start;
        p[0] = (uint8_t)(inner >> 24);
        p[1] = (uint8_t)(inner >> 16);
        p[2] = (uint8_t)(inner >> 8);
        p[3] = (uint8_t)inner;
        rc = put_be32(out, (uint32_t)crc32(0L, p + 4, (uInt)inner));
    }
    if (rc != 0) {
        out->len = start;
        return error_nomem(err);
    }
    return 0;
}
