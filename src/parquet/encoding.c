/* Parquet value and level encodings; see encoding.h.
 *
 * Bit unpacking works a group of 8 values at a time: a group of width w is
 * exactly w bytes, so it is loaded as whole 64-bit little-endian words and
 * the values are cut out with shifts. Every width gets its own copy of the
 * group routine (generated below) so the shifts and masks are constants.
 * Those routines read up to 7 bytes past the group; callers only use them
 * where the input has 8 bytes of slack and go through a zero-padded copy
 * for the last groups. */
#include "parquet/encoding.h"

#include <string.h>

#include "util/bytes.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "the codec reads and writes little-endian values in place");

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* Run lengths are at most 2^31 - 1 values (Encodings.md, RLE note 3). */
#define RLE_MAX_RUN ((size_t)INT32_MAX)
#define BP_MAX_GROUPS (RLE_MAX_RUN / 8)
/* A DELTA_BINARY_PACKED block larger than this is refused rather than
 * trusted; writers use 128 (sometimes 256 or 1024). */
#define DELTA_MAX_BLOCK ((uint64_t)1 << 24)

int pq_bit_width(uint64_t v)
{
    return v ? 64 - __builtin_clzll(v) : 0;
}

static ALWAYS_INLINE uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static ALWAYS_INLINE size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* ULEB128 of at most 64 bits at p[*pos], which it advances. */
static ALWAYS_INLINE bool read_uleb(const uint8_t *p, size_t len, size_t *pos, uint64_t *out)
{
    size_t n = *pos < len ? varint_decode(p + *pos, len - *pos, 64, out) : 0;
    *pos += n;
    return n != 0;
}

/* ---- group-of-8 bit packing, LSB first ---- */

/* Unpacks 8 values of width w (1..64) into out, whose elements are esize
 * bytes. Reads 8 * ceil(w / 8) bytes. The words are all loaded before the
 * first store, and values go straight to out: staging them in a local
 * array let the vectoriser reload them through the stack, which stalled. */
static ALWAYS_INLINE void unpack8(const uint8_t *in, void *out, const int w, const int esize)
{
    uint64_t wd[8];
    const int nw = (w + 7) / 8;
#pragma GCC unroll 8
    for (int k = 0; k < nw; k++)
        wd[k] = load64(in + 8 * k);
    const uint64_t mask = w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        const int b = i * w, k = b >> 6, s = b & 63;
        uint64_t x = wd[k] >> s;
        if (s + w > 64)
            x |= wd[k + 1] << (64 - s);
        x &= mask;
        if (esize == 2)
            ((uint16_t *)out)[i] = (uint16_t)x;
        else if (esize == 4)
            ((uint32_t *)out)[i] = (uint32_t)x;
        else
            ((uint64_t *)out)[i] = x;
    }
}

/* Packs 8 values (already masked to w bits) into exactly w bytes. */
static ALWAYS_INLINE void pack8(const uint64_t v[8], uint8_t *out, const int w)
{
    uint64_t wd[8] = {0};
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        const int b = i * w, k = b >> 6, s = b & 63;
        wd[k] |= v[i] << s;
        if (s + w > 64)
            wd[k + 1] |= v[i] >> (64 - s);
    }
    memcpy(out, wd, (size_t)w);
}

typedef void (*unpack16_fn)(const uint8_t *in, uint16_t *out, size_t groups);
typedef void (*unpack32_fn)(const uint8_t *in, uint32_t *out, size_t groups);
typedef void (*unpack64_fn)(const uint8_t *in, uint64_t *out, size_t groups);
typedef void (*pack16_fn)(const uint16_t *in, uint8_t *out, size_t groups);
typedef void (*pack32_fn)(const uint32_t *in, uint8_t *out, size_t groups);

#define WIDTHS_1_16(X)                                                                             \
    X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
#define WIDTHS_17_32(X)                                                                            \
    X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31) X(32)
#define WIDTHS_33_48(X)                                                                            \
    X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47) X(48)
#define WIDTHS_49_64(X)                                                                            \
    X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61) X(62) X(63) X(64)

#define DEF_UNPACK(T, BITS, W)                                                                     \
    static void unpack##BITS##_##W(const uint8_t *in, T *out, size_t groups)                       \
    {                                                                                              \
        for (size_t g = 0; g < groups; g++, in += W, out += 8)                                     \
            unpack8(in, out, W, (int)sizeof(T));                                                   \
    }
#define DEF_PACK(T, BITS, W)                                                                       \
    static void pack##BITS##_##W(const T *in, uint8_t *out, size_t groups)                         \
    {                                                                                              \
        const uint64_t mask = ((uint64_t)1 << W) - 1;                                              \
        for (size_t g = 0; g < groups; g++, in += 8, out += W) {                                   \
            uint64_t v[8];                                                                         \
            for (int i = 0; i < 8; i++)                                                            \
                v[i] = in[i] & mask;                                                               \
            pack8(v, out, W);                                                                      \
        }                                                                                          \
    }
#define DEF_16(W) DEF_UNPACK(uint16_t, 16, W) DEF_PACK(uint16_t, 16, W)
#define DEF_32(W) DEF_UNPACK(uint32_t, 32, W) DEF_PACK(uint32_t, 32, W)
#define DEF_64(W) DEF_UNPACK(uint64_t, 64, W)
WIDTHS_1_16(DEF_16)
WIDTHS_1_16(DEF_32)
WIDTHS_17_32(DEF_32)
WIDTHS_1_16(DEF_64)
WIDTHS_17_32(DEF_64)
WIDTHS_33_48(DEF_64)
WIDTHS_49_64(DEF_64)

#define REF_UNPACK16(W) unpack16_##W,
#define REF_UNPACK32(W) unpack32_##W,
#define REF_UNPACK64(W) unpack64_##W,
#define REF_PACK16(W) pack16_##W,
#define REF_PACK32(W) pack32_##W,
/* Index 0 is never called: width 0 has no bytes and is handled inline. */
static const unpack16_fn unpack16_tab[17] = {NULL, WIDTHS_1_16(REF_UNPACK16)};
static const unpack32_fn unpack32_tab[33] = {NULL,
                                             WIDTHS_1_16(REF_UNPACK32) WIDTHS_17_32(REF_UNPACK32)};
static const unpack64_fn unpack64_tab[65] = {
    NULL, WIDTHS_1_16(REF_UNPACK64) WIDTHS_17_32(REF_UNPACK64) WIDTHS_33_48(REF_UNPACK64)
              WIDTHS_49_64(REF_UNPACK64)};
static const pack16_fn pack16_tab[17] = {NULL, WIDTHS_1_16(REF_PACK16)};
static const pack32_fn pack32_tab[33] = {NULL, WIDTHS_1_16(REF_PACK32) WIDTHS_17_32(REF_PACK32)};

/* Unpacks `groups` groups of width w (0..64) from `in` into out, whose
 * element size is esize (2, 4 or 8). `avail` bytes are readable from `in`
 * and must cover groups * w; groups near the end, which lack the 8 bytes of
 * slack the word loads need, go through a zero-padded copy. */
static ALWAYS_INLINE void unpack_groups(const uint8_t *in, size_t avail, int w, void *out,
                                        size_t groups, const int esize)
{
    if (w == 0) {
        memset(out, 0, groups * 8 * (size_t)esize);
        return;
    }
    size_t fast = avail >= 8 ? min_size(groups, (avail - 8) / (size_t)w) : 0;
    if (fast) {
        if (esize == 2)
            unpack16_tab[w](in, out, fast);
        else if (esize == 4)
            unpack32_tab[w](in, out, fast);
        else
            unpack64_tab[w](in, out, fast);
    }
    for (size_t g = fast; g < groups; g++) {
        uint8_t tmp[64 + 8] = {0};
        memcpy(tmp, in + g * (size_t)w, (size_t)w);
        char *o = (char *)out + g * 8 * (size_t)esize;
        if (esize == 2)
            unpack16_tab[w](tmp, (uint16_t *)o, 1);
        else if (esize == 4)
            unpack32_tab[w](tmp, (uint32_t *)o, 1);
        else
            unpack64_tab[w](tmp, (uint64_t *)o, 1);
    }
}

/* ---- RLE / bit-packed hybrid ---- */

/* Run fills, 32 bytes a step (plain loops stayed scalar at -O2). */
static ALWAYS_INLINE void fill16(uint16_t *o, uint16_t v, size_t n)
{
    uint16_t blk[16];
    for (int k = 0; k < 16; k++)
        blk[k] = v;
    size_t k = 0;
    for (; k + 16 <= n; k += 16)
        memcpy(o + k, blk, sizeof blk);
    for (; k < n; k++)
        o[k] = v;
}

static ALWAYS_INLINE void fill32(uint32_t *o, uint32_t v, size_t n)
{
    uint32_t blk[8];
    for (int k = 0; k < 8; k++)
        blk[k] = v;
    size_t k = 0;
    for (; k + 8 <= n; k += 8)
        memcpy(o + k, blk, sizeof blk);
    for (; k < n; k++)
        o[k] = v;
}

static ALWAYS_INLINE int rle_decode(const uint8_t *data, size_t len, int bw, void *out, size_t n,
                                    const int esize, struct error *err)
{
    const int maxw = esize == 2 ? 16 : 32;
    if (bw < 0 || bw > maxw)
        return error_fail(err, ERR_CORRUPT, "RLE bit width %d out of range 0..%d", bw, maxw);
    const size_t vbytes = (size_t)(bw + 7) / 8;
    size_t pos = 0, i = 0;
    while (i < n) {
        uint64_t h;
        if (!read_uleb(data, len, &pos, &h))
            return error_fail(err, ERR_CORRUPT, "RLE data truncated at value %zu of %zu", i, n);
        const size_t want = n - i;
        if (h & 1) {
            uint64_t groups = h >> 1;
            if (groups == 0)
                return error_fail(err, ERR_CORRUPT, "RLE bit-packed run of length 0");
            size_t take = groups >= (want + 7) / 8 ? want : (size_t)groups * 8;
            size_t avail = len - pos;
            if (bw && (take + 7) / 8 > avail / (size_t)bw)
                return error_fail(err, ERR_CORRUPT, "RLE bit-packed run truncated");
            const uint8_t *in = data + pos;
            size_t full = take / 8;
            unpack_groups(in, avail, bw, (char *)out + i * (size_t)esize, full, esize);
            if (take % 8) {
                /* The last group is only partly wanted: unpack it aside. */
                union {
                    uint16_t h[8];
                    uint32_t w[8];
                } tail;
                size_t at = full * (size_t)bw;
                unpack_groups(in + at, avail - at, bw, &tail, 1, esize);
                memcpy((char *)out + (i + full * 8) * (size_t)esize, &tail,
                       (take % 8) * (size_t)esize);
            }
            /* Only reached again if the run was consumed whole. */
            pos += (take + 7) / 8 * (size_t)bw;
            i += take;
        } else {
            uint64_t count = h >> 1;
            if (count == 0)
                return error_fail(err, ERR_CORRUPT, "RLE run of length 0");
            if (vbytes > len - pos)
                return error_fail(err, ERR_CORRUPT, "RLE run value truncated");
            uint32_t v = 0;
            for (size_t k = 0; k < vbytes; k++)
                v |= (uint32_t)data[pos + k] << (8 * k);
            pos += vbytes;
            if (bw < 32 && (v >> bw) != 0)
                return error_fail(err, ERR_CORRUPT, "RLE run value %u exceeds bit width %d", v, bw);
            size_t take = count < want ? (size_t)count : want;
            if (esize == 2)
                fill16((uint16_t *)out + i, (uint16_t)v, take);
            else
                fill32((uint32_t *)out + i, v, take);
            i += take;
        }
    }
    return 0;
}

int pq_rle_decode_u16(const uint8_t *data, size_t len, int bit_width, uint16_t *out, size_t n,
                      struct error *err)
{
    return rle_decode(data, len, bit_width, out, n, 2, err);
}

int pq_rle_decode_u32(const uint8_t *data, size_t len, int bit_width, uint32_t *out, size_t n,
                      struct error *err)
{
    return rle_decode(data, len, bit_width, out, n, 4, err);
}

static int emit_rle_run(struct buf *out, uint32_t v, size_t count, int bw)
{
    const size_t vbytes = (size_t)(bw + 7) / 8;
    while (count) {
        size_t c = min_size(count, RLE_MAX_RUN);
        if (buf_reserve(out, 10 + 4) != 0)
            return -1;
        uint8_t *p = (uint8_t *)out->data + out->len;
        size_t k = varint_encode((uint64_t)c << 1, p);
        for (size_t b = 0; b < vbytes; b++)
            p[k++] = (uint8_t)(v >> (8 * b));
        out->len += k;
        count -= c;
    }
    out->data[out->len] = '\0';
    return 0;
}

/* Bit-packs count values starting at vals (element size esize); a final
 * partial group is padded with zeros. */
static ALWAYS_INLINE int emit_bitpacked(struct buf *out, const void *vals, size_t count, int bw,
                                        const int esize)
{
    size_t groups = (count + 7) / 8;
    const char *src = vals;
    while (groups) {
        size_t g = min_size(groups, BP_MAX_GROUPS);
        if (g > (SIZE_MAX - 10) / (size_t)bw || buf_reserve(out, 10 + g * (size_t)bw) != 0)
            return -1;
        uint8_t *p = (uint8_t *)out->data + out->len;
        p += varint_encode((uint64_t)g << 1 | 1, p);
        size_t full = g == groups ? count / 8 : g;
        if (esize == 2)
            pack16_tab[bw]((const uint16_t *)src, p, full);
        else
            pack32_tab[bw]((const uint32_t *)src, p, full);
        p += full * (size_t)bw;
        if (full < g) {
            /* The last, partial group. */
            if (esize == 2) {
                uint16_t t[8] = {0};
                memcpy(t, src + full * 8 * 2, (count % 8) * 2);
                pack16_tab[bw](t, p, 1);
            } else {
                uint32_t t[8] = {0};
                memcpy(t, src + full * 8 * 4, (count % 8) * 4);
                pack32_tab[bw](t, p, 1);
            }
            p += bw;
        }
        out->len = (size_t)(p - (uint8_t *)out->data);
        src += g * 8 * (size_t)esize;
        count -= min_size(count, g * 8);
        groups -= g;
    }
    out->data[out->len] = '\0';
    return 0;
}

static ALWAYS_INLINE int rle_encode(const void *values, size_t n, int bw, struct buf *out,
                                    const int esize)
{
    if (bw < 0 || bw > (esize == 2 ? 16 : 32))
        return -1;
    if (n == 0)
        return 0;
    const uint32_t mask = bw == 32 ? UINT32_MAX : ((uint32_t)1 << bw) - 1;
    if (bw == 0)
        return emit_rle_run(out, 0, n, 0);
    const uint16_t *v16 = values;
    const uint32_t *v32 = values;
#define GET(k) (esize == 2 ? (uint32_t)v16[k] : v32[k])
    size_t lit = 0; /* first value not yet written */
    size_t i = 0;
    /* Run starts are found 64 values at a time: bit k of a window means
     * values base + k and base + k + 1 are equal, and folding 7 such bits
     * into one marks where a run of 8 starts (bits 0..57 are meaningful).
     * That avoids a hard-to-predict branch per value, and a window's
     * candidates stay valid across the runs found in it. */
    size_t base = 0;
    uint64_t starts = 0;
    bool have_window = false;
    while (i < n) {
        if (have_window && i < base + 58) {
            uint64_t m = starts & (~(uint64_t)0 << (i - base));
            if (!m) {
                i = base + 58;
                have_window = false;
                continue;
            }
            i = base + (size_t)__builtin_ctzll(m);
        } else if (n - i > 64) {
            /* Byte flags first (a loop the compiler can vectorise), then
             * gathered 8 at a time as in pq_plain_encode_bool. */
            uint8_t eq[64];
            for (unsigned k = 0; k < 64; k++)
                eq[k] = GET(i + k + 1) == GET(i + k);
            uint64_t m = 0;
            for (unsigned k = 0; k < 64; k += 8)
                m |= ((load64(eq + k) * 0x0102040810204080ULL) >> 56) << k;
            m &= m >> 1;
            m &= m >> 2;
            m &= m >> 3;
            base = i;
            starts = m;
            have_window = true;
            continue;
        } else {
            have_window = false; /* the tail goes value by value */
        }
        uint32_t v = GET(i);
        size_t j = i + 1;
        while (j < n && GET(j) == v)
            j++;
        if (j - i >= 8) {
            /* Literals go out in whole groups of 8, so borrow the first
             * few repeats to complete the pending group. */
            size_t pad = (8 - (i - lit) % 8) % 8;
            if (j - i - pad >= 8) {
                if (i + pad > lit && emit_bitpacked(out, (const char *)values + lit * (size_t)esize,
                                                    i + pad - lit, bw, esize) != 0)
                    return -1;
                if (emit_rle_run(out, v & mask, j - i - pad, bw) != 0)
                    return -1;
                lit = j;
            }
        }
        i = j;
    }
#undef GET
    if (lit < n)
        return emit_bitpacked(out, (const char *)values + lit * (size_t)esize, n - lit, bw, esize);
    return 0;
}

/* A failed encode leaves out as it was, like the buf functions do. */
static int rollback(struct buf *out, size_t len)
{
    out->len = len;
    if (out->data)
        out->data[len] = '\0';
    return -1;
}

int pq_rle_encode_u16(const uint16_t *values, size_t n, int bit_width, struct buf *out)
{
    size_t start = out->len;
    return rle_encode(values, n, bit_width, out, 2) == 0 ? 0 : rollback(out, start);
}

int pq_rle_encode_u32(const uint32_t *values, size_t n, int bit_width, struct buf *out)
{
    size_t start = out->len;
    return rle_encode(values, n, bit_width, out, 4) == 0 ? 0 : rollback(out, start);
}

int pq_bitpacked_decode_levels(const uint8_t *data, size_t len, int bit_width, uint16_t *out,
                               size_t n, struct error *err)
{
    if (bit_width < 0 || bit_width > 16)
        return error_fail(err, ERR_CORRUPT, "BIT_PACKED bit width %d out of range", bit_width);
    if (bit_width == 0) {
        memset(out, 0, n * sizeof *out);
        return 0;
    }
    const size_t w = (size_t)bit_width;
    /* ceil(n * w / 8) without overflowing n * w. */
    if (n / 8 > len / w || n / 8 * w + ((n % 8) * w + 7) / 8 > len)
        return error_fail(err, ERR_CORRUPT, "BIT_PACKED levels truncated: %zu values of %d bits", n,
                          bit_width);
    const uint32_t mask = ((uint32_t)1 << w) - 1;
    const uint8_t *p = data;
    uint32_t acc = 0;
    size_t bits = 0;
    for (size_t i = 0; i < n; i++) {
        while (bits < w) {
            acc = acc << 8 | *p++;
            bits += 8;
        }
        bits -= w;
        out[i] = (uint16_t)(acc >> bits & mask);
    }
    return 0;
}

/* ---- PLAIN ---- */

int pq_plain_encode_bool(const uint8_t *values, size_t n, struct buf *out)
{
    size_t nbytes = n / 8 + (n % 8 != 0);
    if (buf_reserve(out, nbytes) != 0)
        return -1;
    uint8_t *p = (uint8_t *)out->data + out->len;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        /* Gathers bit 0 of each of 8 bytes into the top byte. */
        uint64_t x = load64(values + i) & 0x0101010101010101ULL;
        *p++ = (uint8_t)((x * 0x0102040810204080ULL) >> 56);
    }
    if (i < n) {
        uint8_t b = 0;
        for (size_t k = 0; i + k < n; k++)
            b |= (uint8_t)((values[i + k] & 1) << k);
        *p++ = b;
    }
    out->len += nbytes;
    out->data[out->len] = '\0';
    return 0;
}

int pq_plain_decode_bool(const uint8_t *data, size_t len, uint8_t *out, size_t n, struct error *err)
{
    if (n / 8 + (n % 8 != 0) > len)
        return error_fail(err, ERR_CORRUPT, "PLAIN booleans truncated: %zu values, %zu bytes", n,
                          len);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        /* Byte k of the product isolates bit k; then map nonzero to 1. */
        uint64_t x = (data[i / 8] * 0x0101010101010101ULL) & 0x8040201008040201ULL;
        x = ((x + 0x7f7f7f7f7f7f7f7fULL) >> 7) & 0x0101010101010101ULL;
        memcpy(out + i, &x, 8);
    }
    for (; i < n; i++)
        out[i] = (uint8_t)(data[i / 8] >> (i % 8) & 1);
    return 0;
}

int pq_plain_decode_fixed(const uint8_t *data, size_t len, size_t width, void *out, size_t n,
                          struct error *err)
{
    if (width && n > len / width)
        return error_fail(err, ERR_CORRUPT,
                          "PLAIN values truncated: %zu values of %zu bytes, %zu bytes present", n,
                          width, len);
    if (n && width)
        memcpy(out, data, n * width);
    return 0;
}

int pq_plain_decode_byte_array(const uint8_t *data, size_t len, size_t n, int64_t *offsets,
                               struct buf *data_out, struct error *err)
{
    if (n > len / 4)
        return error_fail(err, ERR_CORRUPT, "PLAIN byte arrays truncated: %zu values, %zu bytes", n,
                          len);
    /* The value bytes fit in what the length prefixes leave; the extra 16
     * lets short values be copied with two fixed 8-byte moves. */
    const size_t base = data_out->len;
    if (buf_reserve(data_out, len - n * 4 + 16) != 0)
        return error_fail(err, ERR_NOMEM, "out of memory decoding byte arrays");
    uint8_t *dst = (uint8_t *)data_out->data + base;
    size_t o = 0, pos = 0;
    offsets[0] = (int64_t)base;
    for (size_t i = 0; i < n; i++) {
        uint32_t l;
        if (len - pos < 4)
            return error_fail(err, ERR_CORRUPT, "PLAIN byte array %zu: length truncated", i);
        memcpy(&l, data + pos, 4);
        pos += 4;
        /* Leaving room for the remaining prefixes keeps the bytes within
         * the reservation (n <= len / 4, so this does not overflow). */
        if (l > len - pos || len - pos - l < 4 * (n - 1 - i))
            return error_fail(err, ERR_CORRUPT,
                              "PLAIN byte array %zu: length %u past the end of the page", i, l);
        if (l <= 16 && len - pos >= 16) {
            memcpy(dst + o, data + pos, 8);
            memcpy(dst + o + 8, data + pos + 8, 8);
        } else {
            memcpy(dst + o, data + pos, l);
        }
        o += l;
        pos += l;
        offsets[i + 1] = (int64_t)(base + o);
    }
    data_out->len = base + o;
    data_out->data[data_out->len] = '\0';
    return 0;
}

/* ---- DELTA_BINARY_PACKED ---- */

struct delta_dec {
    const uint8_t *p;
    size_t len, pos;
    uint64_t vpm;         /* values per miniblock */
    uint64_t mb_count;    /* miniblocks per block */
    uint64_t total;       /* the header's value count */
    uint64_t first;       /* the header's first value */
    uint64_t deltas_left; /* deltas neither decoded nor skipped */
    uint64_t last;        /* the last value produced */
    uint64_t min_delta;
    const uint8_t *widths; /* the current block's miniblock widths */
    uint64_t mb_next;      /* next miniblock of the current block */
    const uint8_t *mb;     /* the current miniblock's body */
    uint64_t mb_off;       /* values taken from it so far */
    uint64_t mb_avail;     /* values it still holds (bounded by deltas_left) */
    int w, maxw;
};

static int delta_init(struct delta_dec *d, const uint8_t *data, size_t len, int maxw,
                      struct error *err)
{
    memset(d, 0, sizeof *d);
    d->p = data;
    d->len = len;
    d->maxw = maxw;
    uint64_t block, first;
    if (!read_uleb(data, len, &d->pos, &block) || !read_uleb(data, len, &d->pos, &d->mb_count) ||
        !read_uleb(data, len, &d->pos, &d->total) || !read_uleb(data, len, &d->pos, &first))
        return error_fail(err, ERR_CORRUPT, "DELTA_BINARY_PACKED header truncated");
    if (block == 0 || block % 128 != 0 || block > DELTA_MAX_BLOCK)
        return error_fail(err, ERR_CORRUPT, "DELTA_BINARY_PACKED block size %llu invalid",
                          (unsigned long long)block);
    if (d->mb_count == 0 || block % d->mb_count != 0 || (block / d->mb_count) % 32 != 0)
        return error_fail(err, ERR_CORRUPT,
                          "DELTA_BINARY_PACKED miniblock count %llu invalid for block size %llu",
                          (unsigned long long)d->mb_count, (unsigned long long)block);
    d->vpm = block / d->mb_count;
    d->first = d->last = (uint64_t)zigzag_decode(first);
    d->deltas_left = d->total ? d->total - 1 : 0;
    return 0;
}

static int delta_next_miniblock(struct delta_dec *d, struct error *err)
{
    if (d->widths == NULL || d->mb_next == d->mb_count) {
        uint64_t md;
        if (!read_uleb(d->p, d->len, &d->pos, &md))
            return error_fail(err, ERR_CORRUPT, "DELTA_BINARY_PACKED block header truncated");
        if (d->mb_count > d->len - d->pos)
            return error_fail(err, ERR_CORRUPT, "DELTA_BINARY_PACKED bit widths truncated");
        d->min_delta = (uint64_t)zigzag_decode(md);
        d->widths = d->p + d->pos;
        d->pos += d->mb_count;
        d->mb_next = 0;
    }
    int w = d->widths[d->mb_next++];
    if (w > d->maxw)
        return error_fail(err, ERR_CORRUPT, "DELTA_BINARY_PACKED bit width %d exceeds %d", w,
                          d->maxw);
    /* The last miniblock is padded to full size too, so the whole body
     * must be there. vpm <= 2^24, so this does not overflow. */
    size_t bytes = (size_t)(d->vpm / 8) * (size_t)w;
    if (bytes > d->len - d->pos)
        return error_fail(err, ERR_CORRUPT, "DELTA_BINARY_PACKED miniblock truncated");
    d->mb = d->p + d->pos;
    d->pos += bytes;
    d->w = w;
    d->mb_off = 0;
    d->mb_avail = d->deltas_left < d->vpm ? d->deltas_left : d->vpm;
    return 0;
}

/* Produces the next k values (after the first), as wrapped 64-bit sums. */
static int delta_take(struct delta_dec *d, uint64_t *out, size_t k, struct error *err)
{
    uint64_t tmp[256 + 16];
    while (k) {
        if (d->mb_avail == 0) {
            if (d->deltas_left == 0)
                return error_fail(err, ERR_CORRUPT, "DELTA_BINARY_PACKED holds too few values");
            if (delta_next_miniblock(d, err) != 0)
                return -1;
        }
        size_t c = min_size(min_size(k, 256), (size_t)d->mb_avail);
        size_t start = (size_t)d->mb_off;
        size_t g0 = start / 8, groups = (start + c + 7) / 8 - g0;
        const uint8_t *src = d->mb + g0 * (size_t)d->w;
        unpack_groups(src, (size_t)(d->p + d->len - src), d->w, tmp, groups, 8);
        const uint64_t *t = tmp + start % 8;
        uint64_t last = d->last;
        const uint64_t md = d->min_delta;
        for (size_t i = 0; i < c; i++) {
            last += md + t[i];
            out[i] = last;
        }
        d->last = last;
        d->mb_off += c;
        d->mb_avail -= c;
        d->deltas_left -= c;
        out += c;
        k -= c;
    }
    return 0;
}

/* Walks the rest of the stream without decoding, to find where it ends. */
static int delta_skip_rest(struct delta_dec *d, struct error *err)
{
    while (d->deltas_left) {
        if (d->mb_avail == 0 && delta_next_miniblock(d, err) != 0)
            return -1;
        d->deltas_left -= d->mb_avail;
        d->mb_avail = 0;
    }
    return 0;
}

static int delta_open(struct delta_dec *d, const uint8_t *data, size_t len, int maxw, size_t n,
                      struct error *err)
{
    if (delta_init(d, data, len, maxw, err) != 0)
        return -1;
    if (d->total < n)
        return error_fail(err, ERR_CORRUPT, "DELTA_BINARY_PACKED holds %llu values, %zu expected",
                          (unsigned long long)d->total, n);
    return 0;
}

int pq_delta_decode_i64(const uint8_t *data, size_t len, int64_t *out, size_t n, size_t *consumed,
                        struct error *err)
{
    struct delta_dec d;
    if (delta_open(&d, data, len, 64, n, err) != 0)
        return -1;
    if (n) {
        /* int64_t and uint64_t may alias; the wrapped sums are the values. */
        uint64_t *o = (uint64_t *)out;
        o[0] = d.first;
        if (delta_take(&d, o + 1, n - 1, err) != 0)
            return -1;
    }
    if (delta_skip_rest(&d, err) != 0)
        return -1;
    if (consumed)
        *consumed = d.pos;
    return 0;
}

int pq_delta_decode_i32(const uint8_t *data, size_t len, int32_t *out, size_t n, size_t *consumed,
                        struct error *err)
{
    struct delta_dec d;
    /* Writers compute INT32 deltas in 64 bits (DuckDB needs 33 for a
     * column spanning INT32_MIN..INT32_MAX); the 64-bit sums truncated to
     * 32 bits equal 32-bit wrapping sums, so any width up to 64 decodes. */
    if (delta_open(&d, data, len, 64, n, err) != 0)
        return -1;
    if (n) {
        out[0] = (int32_t)(uint32_t)d.first;
        uint64_t tmp[256];
        for (size_t i = 1; i < n;) {
            size_t c = min_size(n - i, 256);
            if (delta_take(&d, tmp, c, err) != 0)
                return -1;
            for (size_t k = 0; k < c; k++)
                out[i + k] = (int32_t)(uint32_t)tmp[k];
            i += c;
        }
    }
    if (delta_skip_rest(&d, err) != 0)
        return -1;
    if (consumed)
        *consumed = d.pos;
    return 0;
}

/* Bit-packs 32 values of width w (0..64) into 4 * w bytes. */
static void pack32_values(const uint64_t *v, int w, uint8_t *out)
{
    if (w == 0)
        return;
    const uint64_t mask = w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
    for (int g = 0; g < 4; g++) {
        uint64_t t[8];
        for (int i = 0; i < 8; i++)
            t[i] = v[8 * g + i] & mask;
        pack8(t, out + g * w, w);
    }
}

int pq_delta_encode_i64(const int64_t *values, size_t n, struct buf *out)
{
    enum { BLOCK = 128, MINIBLOCKS = 4, VPM = BLOCK / MINIBLOCKS };
    /* The header is at most 4 varints; a block at most a varint, the
     * widths and 4 * 32 * 8 bytes. Reserved per block, so a stream that
     * compresses well does not hold memory for the worst case. */
    enum { BLOCK_MAX_BYTES = 10 + MINIBLOCKS + BLOCK * 8 };
    if (buf_reserve(out, 40) != 0)
        return -1;
    const uint64_t *v = (const uint64_t *)values;
    size_t o = out->len; /* write position; out->len moves only at the end */
    uint8_t *p = (uint8_t *)out->data + o;
    p += varint_encode(BLOCK, p);
    p += varint_encode(MINIBLOCKS, p);
    p += varint_encode(n, p);
    p += varint_encode(zigzag_encode((int64_t)(n ? v[0] : 0)), p);
    o = (size_t)(p - (uint8_t *)out->data);
    for (size_t i = 1; i < n; i += BLOCK) {
        if (out->cap - o <= BLOCK_MAX_BYTES &&
            buf_reserve(out, o - out->len + BLOCK_MAX_BYTES) != 0)
            return -1;
        p = (uint8_t *)out->data + o;
        size_t c = min_size(BLOCK, n - i);
        uint64_t d[BLOCK] = {0};
        /* Signed minimum of the wrapped deltas, compared with the sign bit
         * flipped so everything stays unsigned. */
        uint64_t min = UINT64_MAX;
        for (size_t k = 0; k < c; k++) {
            d[k] = v[i + k] - v[i + k - 1];
            uint64_t biased = d[k] ^ (1ULL << 63);
            if (biased < min)
                min = biased;
        }
        min ^= 1ULL << 63;
        p += varint_encode(zigzag_encode((int64_t)min), p);
        uint8_t *widths = p;
        p += MINIBLOCKS;
        for (size_t m = 0; m < MINIBLOCKS; m++) {
            if (m * VPM >= c) {
                widths[m] = 0;
                continue;
            }
            uint64_t rel[VPM] = {0}, any = 0;
            size_t cm = min_size(VPM, c - m * VPM);
            for (size_t k = 0; k < cm; k++) {
                rel[k] = d[m * VPM + k] - min;
                any |= rel[k];
            }
            int w = pq_bit_width(any);
            widths[m] = (uint8_t)w;
            pack32_values(rel, w, p);
            p += 4 * w;
        }
        o = (size_t)(p - (uint8_t *)out->data);
    }
    out->len = o;
    out->data[out->len] = '\0';
    return 0;
}

/* ---- byte arrays in delta encodings ---- */

/* Lengths are INT32 streams; a value outside 0..INT32_MAX is corrupt. */
static ALWAYS_INLINE int64_t as_len(uint64_t raw)
{
    return (int32_t)(uint32_t)raw;
}

int pq_delta_length_decode(const uint8_t *data, size_t len, size_t n, int64_t *offsets,
                           struct buf *data_out, struct error *err)
{
    struct delta_dec d;
    if (delta_open(&d, data, len, 64, n, err) != 0)
        return -1;
    /* The lengths land in offsets[1..n] and become offsets in place. */
    uint64_t *raw = (uint64_t *)(offsets + 1);
    if (n) {
        raw[0] = d.first;
        if (delta_take(&d, raw + 1, n - 1, err) != 0)
            return -1;
    }
    if (delta_skip_rest(&d, err) != 0)
        return -1;
    const size_t base = data_out->len, start = d.pos, rem = len - start;
    size_t sum = 0;
    offsets[0] = (int64_t)base;
    for (size_t i = 0; i < n; i++) {
        int64_t l = as_len(raw[i]);
        if (l < 0 || (uint64_t)l > rem - sum)
            return error_fail(
                err, ERR_CORRUPT,
                "DELTA_LENGTH_BYTE_ARRAY value %zu: length %lld invalid or past the end", i,
                (long long)l);
        sum += (size_t)l;
        offsets[i + 1] = (int64_t)(base + sum);
    }
    if (buf_append(data_out, data + start, sum) != 0)
        return error_fail(err, ERR_NOMEM, "out of memory decoding byte arrays");
    return 0;
}

/* The next c suffix lengths, the i-th value onwards. */
static int suffix_lengths(struct delta_dec *d, size_t i, uint64_t *sl, size_t c, struct error *err)
{
    size_t got = 0;
    if (i == 0 && c)
        sl[got++] = d->first;
    return delta_take(d, sl + got, c - got, err);
}

int pq_delta_byte_array_decode(const uint8_t *data, size_t len, size_t n, int64_t *offsets,
                               struct buf *data_out, struct error *err)
{
    struct delta_dec dp, ds;
    if (delta_open(&dp, data, len, 64, n, err) != 0)
        return -1;
    uint64_t *prefix = (uint64_t *)(offsets + 1);
    if (n) {
        prefix[0] = dp.first;
        if (delta_take(&dp, prefix + 1, n - 1, err) != 0)
            return -1;
    }
    if (delta_skip_rest(&dp, err) != 0)
        return -1;
    const size_t s_at = dp.pos;
    if (delta_open(&ds, data + s_at, len - s_at, 64, n, err) != 0)
        return -1;

    /* Pass 1, on a copy of the suffix-length stream: validate every value
     * and size the output. Shared prefixes can make it far larger than the
     * input, so it is capped before anything is allocated. */
    struct delta_dec walk = ds;
    uint64_t sl[256];
    size_t prev_len = 0, total = 0, suf_total = 0;
    for (size_t i = 0; i < n;) {
        size_t c = min_size(n - i, 256);
        if (suffix_lengths(&walk, i, sl, c, err) != 0)
            return -1;
        for (size_t k = 0; k < c; k++, i++) {
            int64_t pl = as_len(prefix[i]), sk = as_len(sl[k]);
            if (pl < 0 || (uint64_t)pl > prev_len)
                return error_fail(
                    err, ERR_CORRUPT,
                    "DELTA_BYTE_ARRAY value %zu: prefix %lld longer than the previous "
                    "value (%zu)",
                    i, (long long)pl, prev_len);
            if (sk < 0)
                return error_fail(err, ERR_CORRUPT,
                                  "DELTA_BYTE_ARRAY value %zu: negative suffix length", i);
            prev_len = (size_t)pl + (size_t)sk;
            if (prev_len > (size_t)PQ_MAX_PAGE_BYTES - total)
                return error_fail(err, ERR_UNSUPPORTED,
                                  "DELTA_BYTE_ARRAY page expands past %d bytes", PQ_MAX_PAGE_BYTES);
            total += prev_len;
            suf_total += (size_t)sk;
        }
    }
    /* The suffix bytes start where the suffix-length stream ends. */
    if (delta_skip_rest(&walk, err) != 0)
        return -1;
    const uint8_t *suf = data + s_at + walk.pos;
    if (suf_total > len - s_at - walk.pos)
        return error_fail(err, ERR_CORRUPT, "DELTA_BYTE_ARRAY suffixes past the end of the page");

    /* Pass 2: build the values; everything has been checked. */
    const size_t base = data_out->len;
    if (buf_reserve(data_out, total) != 0)
        return error_fail(err, ERR_NOMEM, "out of memory decoding byte arrays");
    char *dst = data_out->data;
    size_t cur = base, prev = base;
    offsets[0] = (int64_t)base;
    for (size_t i = 0; i < n;) {
        size_t c = min_size(n - i, 256);
        if (suffix_lengths(&ds, i, sl, c, err) != 0)
            return -1;
        for (size_t k = 0; k < c; k++, i++) {
            size_t plen = (size_t)as_len(prefix[i]), slen = (size_t)as_len(sl[k]);
            memcpy(dst + cur, dst + prev, plen);
            memcpy(dst + cur + plen, suf, slen);
            suf += slen;
            prev = cur;
            cur += plen + slen;
            /* Overwrites prefix[i], which has been used. */
            offsets[i + 1] = (int64_t)cur;
        }
    }
    data_out->len = cur;
    dst[cur] = '\0';
    return 0;
}

/* ---- BYTE_STREAM_SPLIT ---- */

int pq_byte_stream_split_decode(const uint8_t *data, size_t len, size_t width, void *out, size_t n,
                                struct error *err)
{
    if (width == 0)
        return 0;
    /* The streams are len / width long (the page's value count); we take
     * the first n values of each. */
    if (len % width != 0 || len / width < n)
        return error_fail(err, ERR_CORRUPT,
                          "BYTE_STREAM_SPLIT: %zu bytes do not hold %zu values of %zu bytes", len,
                          n, width);
    const size_t stride = len / width;
    uint8_t *o = out;
    if (width == 4) {
        const uint8_t *s0 = data, *s1 = s0 + stride, *s2 = s1 + stride, *s3 = s2 + stride;
        for (size_t i = 0; i < n; i++) {
            uint32_t x = (uint32_t)s0[i] | (uint32_t)s1[i] << 8 | (uint32_t)s2[i] << 16 |
                         (uint32_t)s3[i] << 24;
            memcpy(o + 4 * i, &x, 4);
        }
    } else if (width == 8) {
        const uint8_t *s[8];
        for (size_t k = 0; k < 8; k++)
            s[k] = data + k * stride;
        for (size_t i = 0; i < n; i++) {
            uint64_t x = 0;
            for (unsigned k = 0; k < 8; k++)
                x |= (uint64_t)s[k][i] << (8 * k);
            memcpy(o + 8 * i, &x, 8);
        }
    } else {
        for (size_t k = 0; k < width; k++) {
            const uint8_t *s = data + k * stride;
            for (size_t i = 0; i < n; i++)
                o[i * width + k] = s[i];
        }
    }
    return 0;
}
