/* Unit tests for src/parquet/encoding.c: RLE/bit-packed hybrid, BIT_PACKED,
 * PLAIN, DELTA_BINARY_PACKED, the delta byte-array encodings and
 * BYTE_STREAM_SPLIT. Expected bytes come from Encodings.md or from the
 * slow bit-at-a-time reference packers below, never from the code under
 * test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parquet/encoding.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void)
{
    /* xorshift64*: deterministic, so failures reproduce. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static uint64_t mask_of(int w)
{
    return w >= 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1;
}

static void assert_bytes(const void *got, size_t got_len, const void *want, size_t want_len)
{
    assert_int_equal(got_len, want_len);
    if (want_len && memcmp(got, want, want_len) != 0) {
        const uint8_t *g = got, *w = want;
        for (size_t i = 0; i < want_len; i++)
            if (g[i] != w[i])
                fail_msg("byte %zu: got 0x%02x, want 0x%02x", i, g[i], w[i]);
    }
}

/* ---- reference writers, one bit at a time ---- */

struct bitw {
    uint8_t *p;
    size_t len, cap, bits;
};

static void bitw_put(struct bitw *b, uint64_t v, int w)
{
    for (int i = 0; i < w; i++, b->bits++) {
        if (b->bits / 8 >= b->len) {
            if (b->len == b->cap) {
                b->cap = b->cap ? b->cap * 2 : 64;
                b->p = realloc(b->p, b->cap);
                assert_non_null(b->p);
            }
            b->p[b->len++] = 0;
        }
        if (v >> i & 1)
            b->p[b->bits / 8] |= (uint8_t)(1u << (b->bits % 8));
    }
}

static void bitw_uleb(struct bitw *b, uint64_t v)
{
    do {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            byte |= 0x80;
        bitw_put(b, byte, 8);
    } while (v);
}

static uint64_t zz(int64_t v)
{
    return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
}

/* A DELTA_BINARY_PACKED stream with any block layout. Deltas wrap at
 * `bits` (32 or 64); unused miniblock widths are written as `junk`. */
static struct bitw ref_delta(const int64_t *v, size_t n, unsigned block, unsigned mbs, int bits,
                             uint8_t junk)
{
    struct bitw b = {0};
    uint64_t m = bits == 32 ? 0xFFFFFFFFu : UINT64_MAX;
    unsigned vpm = block / mbs;
    bitw_uleb(&b, block);
    bitw_uleb(&b, mbs);
    bitw_uleb(&b, n);
    bitw_uleb(&b, zz(n ? v[0] : 0));
    for (size_t i = 1; i < n; i += block) {
        size_t c = n - i < block ? n - i : block;
        int64_t *d = calloc(block, sizeof *d);
        int64_t min = INT64_MAX;
        for (size_t k = 0; k < c; k++) {
            uint64_t dd = ((uint64_t)v[i + k] - (uint64_t)v[i + k - 1]) & m;
            if (bits == 32)
                d[k] = (int32_t)(uint32_t)dd;
            else
                memcpy(&d[k], &dd, 8);
            if (d[k] < min)
                min = d[k];
        }
        bitw_uleb(&b, zz(min));
        int widths[64];
        for (unsigned mb = 0; mb < mbs; mb++) {
            uint64_t any = 0;
            for (size_t k = mb * vpm; k < c && k < (mb + 1) * vpm; k++)
                any |= ((uint64_t)d[k] - (uint64_t)min) & m;
            widths[mb] = pq_bit_width(any);
            bitw_put(&b, mb * vpm < c ? (uint64_t)widths[mb] : junk, 8);
        }
        for (unsigned mb = 0; mb < mbs && mb * vpm < c; mb++)
            for (size_t k = mb * vpm; k < (mb + 1) * vpm; k++)
                bitw_put(&b, k < c ? ((uint64_t)d[k] - (uint64_t)min) & m : 0, widths[mb]);
        free(d);
    }
    return b;
}

/* ---- bit widths ---- */

/* PLAIN BYTE_ARRAY values, as input for the decoder under test (the
 * writer builds its pages in place, value by value). */
static int plain_encode_byte_array(const uint8_t *const *values, const uint32_t *lens, size_t n,
                                   struct buf *out)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (total > SIZE_MAX - 4 - lens[i])
            return -1;
        total += 4 + (size_t)lens[i];
    }
    if (buf_reserve(out, total) != 0)
        return -1;
    uint8_t *p = (uint8_t *)out->data + out->len;
    for (size_t i = 0; i < n; i++) {
        memcpy(p, &lens[i], 4);
        if (lens[i])
            memcpy(p + 4, values[i], lens[i]);
        p += 4 + (size_t)lens[i];
    }
    out->len += total;
    out->data[out->len] = '\0';
    return 0;
}

static void test_bit_width(void **state)
{
    (void)state;
    assert_int_equal(pq_bit_width(0), 0);
    assert_int_equal(pq_bit_width(1), 1);
    assert_int_equal(pq_bit_width(2), 2);
    assert_int_equal(pq_bit_width(3), 2);
    assert_int_equal(pq_bit_width(255), 8);
    assert_int_equal(pq_bit_width(256), 9);
    assert_int_equal(pq_bit_width(UINT32_MAX), 32);
    assert_int_equal(pq_bit_width((uint64_t)1 << 32), 33);
    assert_int_equal(pq_bit_width(UINT64_MAX), 64);
}

/* ---- RLE / bit-packed hybrid ---- */

static void test_rle_spec_bitpacked_example(void **state)
{
    (void)state;
    /* Encodings.md: 0..7 at width 3 pack to 10001000 11000110 11111010,
     * behind a header for one group of 8: (1 << 1) | 1. */
    const uint8_t want[] = {0x03, 0x88, 0xC6, 0xFA};
    uint32_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    struct buf out = BUF_INIT;
    assert_int_equal(pq_rle_encode_u32(v, 8, 3, &out), 0);
    assert_bytes(out.data, out.len, want, sizeof want);
    uint16_t v16[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    buf_reset(&out);
    assert_int_equal(pq_rle_encode_u16(v16, 8, 3, &out), 0);
    assert_bytes(out.data, out.len, want, sizeof want);
    buf_free(&out);

    struct error err = {0};
    uint32_t got[8];
    uint16_t got16[8];
    assert_int_equal(pq_rle_decode_u32(want, sizeof want, 3, got, 8, &err), 0);
    assert_int_equal(pq_rle_decode_u16(want, sizeof want, 3, got16, 8, &err), 0);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(got[i], i);
        assert_int_equal(got16[i], i);
    }
    /* Fewer values than the group holds: the rest is padding. */
    memset(got, 0xff, sizeof got);
    assert_int_equal(pq_rle_decode_u32(want, sizeof want, 3, got, 5, &err), 0);
    assert_int_equal(got[4], 4);
    assert_int_equal(got[5], 0xffffffffu);
}

static void test_rle_spec_run_headers(void **state)
{
    (void)state;
    struct {
        int width;
        uint32_t value;
        size_t count;
        uint8_t bytes[8];
        size_t len;
    } cases[] = {
        /* rle-header = varint(count << 1), then ceil(width / 8) value bytes */
        {3, 4, 100, {0xC8, 0x01, 0x04}, 3},
        {0, 0, 10, {0x14}, 1},
        {1, 1, 8, {0x10, 0x01}, 2},
        {8, 0xAB, 63, {0x7E, 0xAB}, 2},
        {9, 0x1FF, 64, {0x80, 0x01, 0xFF, 0x01}, 4},
        {16, 0x1234, 8, {0x10, 0x34, 0x12}, 3},
        {24, 0xABCDEF, 9, {0x12, 0xEF, 0xCD, 0xAB}, 4},
        {32, 0xDEADBEEF, 300, {0xD8, 0x04, 0xEF, 0xBE, 0xAD, 0xDE}, 6},
    };
    for (size_t c = 0; c < ARRAY_LEN(cases); c++) {
        uint32_t *v = malloc(cases[c].count * sizeof *v);
        for (size_t i = 0; i < cases[c].count; i++)
            v[i] = cases[c].value;
        struct buf out = BUF_INIT;
        assert_int_equal(pq_rle_encode_u32(v, cases[c].count, cases[c].width, &out), 0);
        assert_bytes(out.data, out.len, cases[c].bytes, cases[c].len);
        buf_free(&out);
        uint32_t *got = calloc(cases[c].count, sizeof *got);
        struct error err = {0};
        assert_int_equal(pq_rle_decode_u32(cases[c].bytes, cases[c].len, cases[c].width, got,
                                           cases[c].count, &err),
                         0);
        assert_memory_equal(got, v, cases[c].count * sizeof *v);
        free(got);
        free(v);
    }
}

static void test_rle_run_literal_layout(void **state)
{
    (void)state;
    /* Five literals, then twenty 7s: three 7s complete the literal group
     * and the other seventeen become a run. */
    uint32_t v[25] = {1, 2, 3, 4, 5};
    for (int i = 5; i < 25; i++)
        v[i] = 7;
    struct bitw want = {0};
    bitw_uleb(&want, 1 << 1 | 1);
    for (int i = 0; i < 8; i++)
        bitw_put(&want, v[i], 3);
    bitw_uleb(&want, 17 << 1);
    bitw_put(&want, 7, 8);
    struct buf out = BUF_INIT;
    assert_int_equal(pq_rle_encode_u32(v, 25, 3, &out), 0);
    assert_bytes(out.data, out.len, want.p, want.len);
    free(want.p);

    /* A run of 8 that would drop below 8 after completing the group stays
     * literal; the final partial group is zero-padded. */
    uint32_t w[14] = {1, 2, 3, 6, 6, 6, 6, 6, 6, 6, 6, 2, 1, 0};
    struct bitw want2 = {0};
    bitw_uleb(&want2, 2 << 1 | 1);
    for (int i = 0; i < 16; i++)
        bitw_put(&want2, i < 14 ? w[i] : 0, 3);
    buf_reset(&out);
    assert_int_equal(pq_rle_encode_u32(w, 14, 3, &out), 0);
    assert_bytes(out.data, out.len, want2.p, want2.len);
    free(want2.p);

    /* Runs at the start, between groups and at the end. */
    uint32_t x[8 + 16 + 10] = {0};
    for (int i = 8; i < 24; i++)
        x[i] = (uint32_t)(i % 5);
    for (int i = 24; i < 34; i++)
        x[i] = 3;
    struct bitw want3 = {0};
    bitw_uleb(&want3, 8 << 1);
    bitw_put(&want3, 0, 8);
    bitw_uleb(&want3, 2 << 1 | 1);
    for (int i = 8; i < 24; i++)
        bitw_put(&want3, x[i], 3);
    bitw_uleb(&want3, 10 << 1);
    bitw_put(&want3, 3, 8);
    buf_reset(&out);
    assert_int_equal(pq_rle_encode_u32(x, ARRAY_LEN(x), 3, &out), 0);
    assert_bytes(out.data, out.len, want3.p, want3.len);
    free(want3.p);
    buf_free(&out);
}

enum pattern { PAT_RANDOM, PAT_RUNS, PAT_MIXED, PAT_CONST, PAT_COUNT };

static void fill_pattern(uint32_t *v, size_t n, int w, enum pattern p)
{
    uint64_t m = mask_of(w);
    size_t i = 0;
    while (i < n) {
        size_t len = 1;
        switch (p) {
        case PAT_RANDOM: len = 1; break;
        case PAT_RUNS: len = 1 + rnd() % 40; break;
        case PAT_MIXED: len = rnd() % 3 == 0 ? 1 + rnd() % 20 : 1; break;
        case PAT_CONST: len = n; break;
        default: break;
        }
        uint32_t x = (uint32_t)(rnd() & m);
        for (size_t k = 0; k < len && i < n; k++)
            v[i++] = x;
    }
}

static void check_rle_round_trip(const uint32_t *v, size_t n, int w, bool check_truncation)
{
    struct buf out = BUF_INIT;
    struct error err = {0};
    assert_int_equal(pq_rle_encode_u32(v, n, w, &out), 0);
    /* Exact-size heap copy, so ASan sees any read past the end. */
    uint8_t *enc = malloc(out.len + 1);
    memcpy(enc, out.data ? out.data : "", out.len);
    uint32_t *got = malloc((n + 1) * sizeof *got);
    if (pq_rle_decode_u32(enc, out.len, w, got, n, &err) != 0)
        fail_msg("width %d n %zu: %s", w, n, err.msg);
    assert_memory_equal(got, v, n * sizeof *v);
    if (w <= 16) {
        uint16_t *v16 = malloc((n + 1) * sizeof *v16), *got16 = malloc((n + 1) * sizeof *got16);
        for (size_t i = 0; i < n; i++)
            v16[i] = (uint16_t)v[i];
        struct buf out16 = BUF_INIT;
        assert_int_equal(pq_rle_encode_u16(v16, n, w, &out16), 0);
        assert_bytes(out16.data, out16.len, enc, out.len);
        assert_int_equal(pq_rle_decode_u16(enc, out.len, w, got16, n, &err), 0);
        assert_memory_equal(got16, v16, n * sizeof *v16);
        buf_free(&out16);
        free(v16);
        free(got16);
    }
    if (check_truncation && n > 0) {
        for (size_t cut = 0; cut < out.len; cut++) {
            uint8_t *t = malloc(cut + 1);
            memcpy(t, enc, cut);
            if (pq_rle_decode_u32(t, cut, w, got, n, &err) == 0)
                fail_msg("width %d n %zu: truncation to %zu bytes decoded", w, n, cut);
            assert_int_equal(err.code, ERR_CORRUPT);
            free(t);
        }
    }
    free(got);
    free(enc);
    buf_free(&out);
}

static void test_rle_round_trip_all_widths(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 100, 1000, 4097};
    uint32_t *v = malloc(4097 * sizeof *v);
    for (int w = 0; w <= 32; w++)
        for (size_t s = 0; s < ARRAY_LEN(sizes); s++)
            for (int p = 0; p < PAT_COUNT; p++) {
                fill_pattern(v, sizes[s], w, (enum pattern)p);
                check_rle_round_trip(v, sizes[s], w, sizes[s] <= 100);
            }
    free(v);
}

static void test_rle_long_runs(void **state)
{
    (void)state;
    size_t n = 3000000;
    uint32_t *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = 5;
    struct buf out = BUF_INIT;
    assert_int_equal(pq_rle_encode_u32(v, n, 3, &out), 0);
    /* varint(3000000 << 1) is 4 bytes, then one value byte. */
    const uint8_t want[] = {0x80, 0x9B, 0xEE, 0x02, 0x05};
    assert_bytes(out.data, out.len, want, sizeof want);
    buf_free(&out);
    /* Long runs separated by single literals; long literal stretches. */
    for (size_t i = 0; i < n; i++)
        v[i] = i % 100000 == 0 ? 1 : i < n / 2 ? 0 : (uint32_t)(rnd() & 0x3ff);
    check_rle_round_trip(v, n, 10, false);
    free(v);
}

static void test_rle_decode_hand_built(void **state)
{
    (void)state;
    /* run of 3 zeros, a bit-packed run of 2 groups of which only 11 values
     * are wanted, at width 5; trailing bytes after the last run are fine. */
    struct bitw b = {0};
    bitw_uleb(&b, 3 << 1);
    bitw_put(&b, 0, 8);
    bitw_uleb(&b, 2 << 1 | 1);
    for (int i = 0; i < 16; i++)
        bitw_put(&b, (uint64_t)(31 - i), 5);
    bitw_put(&b, 0xEE, 8);
    uint32_t got[14];
    struct error err = {0};
    assert_int_equal(pq_rle_decode_u32(b.p, b.len, 5, got, 14, &err), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(got[i], 0);
    for (int i = 3; i < 14; i++)
        assert_int_equal(got[i], 31 - (i - 3));
    /* A run longer than needed. */
    const uint8_t run[] = {0xE8, 0x07, 0x02}; /* 1000 x 2 */
    assert_int_equal(pq_rle_decode_u32(run, sizeof run, 2, got, 14, &err), 0);
    for (int i = 0; i < 14; i++)
        assert_int_equal(got[i], 2);
    free(b.p);
}

static void test_rle_decode_rejects(void **state)
{
    (void)state;
    struct error err = {0};
    uint32_t got[16];
    uint16_t got16[16];
    /* Run value wider than the bit width. */
    const uint8_t wide[] = {0x10, 0x08};
    assert_int_equal(pq_rle_decode_u32(wide, sizeof wide, 3, got, 8, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    assert_int_equal(pq_rle_decode_u16(wide, sizeof wide, 3, got16, 8, &err), -1);
    const uint8_t wide9[] = {0x10, 0x00, 0x02};
    assert_int_equal(pq_rle_decode_u32(wide9, sizeof wide9, 9, got, 8, &err), -1);
    const uint8_t wide1[] = {0x10, 0x02};
    assert_int_equal(pq_rle_decode_u16(wide1, sizeof wide1, 1, got16, 8, &err), -1);
    const uint8_t ok9[] = {0x10, 0xFF, 0x01};
    assert_int_equal(pq_rle_decode_u32(ok9, sizeof ok9, 9, got, 8, &err), 0);
    assert_int_equal(got[7], 511);
    /* Bit widths out of range. */
    const uint8_t any[] = {0x10, 0x00, 0x00, 0x00, 0x00, 0x00};
    assert_int_equal(pq_rle_decode_u32(any, sizeof any, 33, got, 8, &err), -1);
    assert_int_equal(pq_rle_decode_u32(any, sizeof any, -1, got, 8, &err), -1);
    assert_int_equal(pq_rle_decode_u16(any, sizeof any, 17, got16, 8, &err), -1);
    assert_int_equal(pq_rle_decode_u32(any, sizeof any, 32, got, 8, &err), 0);
    assert_int_equal(pq_rle_decode_u16(any, sizeof any, 16, got16, 8, &err), 0);
    /* Zero-length runs. */
    const uint8_t zero_rle[] = {0x00, 0x01, 0x10, 0x01};
    assert_int_equal(pq_rle_decode_u32(zero_rle, sizeof zero_rle, 1, got, 8, &err), -1);
    const uint8_t zero_bp[] = {0x01, 0x10, 0x01};
    assert_int_equal(pq_rle_decode_u32(zero_bp, sizeof zero_bp, 1, got, 8, &err), -1);
    /* A header varint longer than 64 bits. */
    const uint8_t long_hdr[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0x00};
    assert_int_equal(pq_rle_decode_u32(long_hdr, sizeof long_hdr, 1, got, 8, &err), -1);
    /* A huge bit-packed run that is not there. */
    const uint8_t huge[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x00};
    assert_int_equal(pq_rle_decode_u32(huge, sizeof huge, 20, got, 16, &err), -1);
    /* Width 0 needs no value bytes, but still needs run headers. */
    assert_int_equal(pq_rle_decode_u32(NULL, 0, 0, got, 1, &err), -1);
    assert_int_equal(pq_rle_decode_u32(NULL, 0, 0, got, 0, &err), 0);
    const uint8_t bp0[] = {0x03};
    assert_int_equal(pq_rle_decode_u32(bp0, 1, 0, got, 8, &err), 0);
    assert_int_equal(got[7], 0);
    /* Encoder refuses widths it cannot write. */
    struct buf out = BUF_INIT;
    assert_int_equal(pq_rle_encode_u32(got, 1, 33, &out), -1);
    assert_int_equal(pq_rle_encode_u16(got16, 1, 17, &out), -1);
    assert_int_equal(out.len, 0);
    buf_free(&out);
}

/* ---- deprecated BIT_PACKED ---- */

static void test_bitpacked_levels(void **state)
{
    (void)state;
    struct error err = {0};
    const uint8_t spec[] = {0x05, 0x39, 0x77}; /* Encodings.md: 0..7 at width 3 */
    uint16_t got[8];
    assert_int_equal(pq_bitpacked_decode_levels(spec, sizeof spec, 3, got, 8, &err), 0);
    for (int i = 0; i < 8; i++)
        assert_int_equal(got[i], i);
    assert_int_equal(pq_bitpacked_decode_levels(spec, 2, 3, got, 8, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    assert_int_equal(pq_bitpacked_decode_levels(spec, 2, 3, got, 5, &err), 0); /* 15 bits */
    assert_int_equal(pq_bitpacked_decode_levels(spec, 1, 3, got, 3, &err), -1);
    assert_int_equal(pq_bitpacked_decode_levels(spec, 3, 17, got, 1, &err), -1);
    assert_int_equal(pq_bitpacked_decode_levels(spec, 3, -1, got, 1, &err), -1);
    assert_int_equal(pq_bitpacked_decode_levels(NULL, 0, 0, got, 8, &err), 0);
    assert_int_equal(got[7], 0);
    assert_int_equal(pq_bitpacked_decode_levels(spec, 3, 1, got, SIZE_MAX, &err), -1);

    /* Against an MSB-first reference, every width. */
    for (int w = 1; w <= 16; w++) {
        size_t n = 1 + rnd() % 300;
        uint16_t *v = malloc(n * sizeof *v), *o = malloc(n * sizeof *o);
        size_t nbytes = (n * (size_t)w + 7) / 8;
        uint8_t *enc = calloc(nbytes, 1);
        size_t bit = 0;
        for (size_t i = 0; i < n; i++) {
            v[i] = (uint16_t)(rnd() & mask_of(w));
            for (int k = w - 1; k >= 0; k--, bit++)
                if (v[i] >> k & 1)
                    enc[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
        }
        assert_int_equal(pq_bitpacked_decode_levels(enc, nbytes, w, o, n, &err), 0);
        assert_memory_equal(o, v, n * sizeof *v);
        assert_int_equal(pq_bitpacked_decode_levels(enc, nbytes - 1, w, o, n, &err), -1);
        free(v);
        free(o);
        free(enc);
    }
}

/* ---- PLAIN ---- */

static void test_plain_bool(void **state)
{
    (void)state;
    const uint8_t v[9] = {1, 0, 1, 1, 0, 0, 0, 1, 1};
    const uint8_t want[] = {0x8D, 0x01};
    struct buf out = BUF_INIT;
    assert_int_equal(pq_plain_encode_bool(v, 9, &out), 0);
    assert_bytes(out.data, out.len, want, sizeof want);
    struct error err = {0};
    uint8_t got[9];
    assert_int_equal(pq_plain_decode_bool(want, sizeof want, got, 9, &err), 0);
    assert_memory_equal(got, v, 9);
    assert_int_equal(pq_plain_decode_bool(want, 1, got, 9, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    assert_int_equal(pq_plain_decode_bool(want, 1, got, 8, &err), 0);

    for (size_t n = 0; n < 200; n++) {
        uint8_t *in = malloc(n + 1), *o = malloc(n + 1);
        for (size_t i = 0; i < n; i++)
            in[i] = (uint8_t)(rnd() & 1);
        buf_reset(&out);
        assert_int_equal(pq_plain_encode_bool(in, n, &out), 0);
        assert_int_equal(out.len, (n + 7) / 8);
        for (size_t i = 0; i < n; i++)
            assert_int_equal((uint8_t)out.data[i / 8] >> (i % 8) & 1, in[i]);
        assert_int_equal(pq_plain_decode_bool((const uint8_t *)out.data, out.len, o, n, &err), 0);
        assert_memory_equal(o, in, n);
        free(in);
        free(o);
    }
    buf_free(&out);
}

static void test_plain_fixed(void **state)
{
    (void)state;
    struct error err = {0};
    const int64_t v[3] = {1, -2, INT64_MAX};
    int64_t got[3];
    assert_int_equal(pq_plain_decode_fixed((const uint8_t *)v, sizeof v, 8, got, 3, &err), 0);
    assert_memory_equal(got, v, sizeof v);
    assert_int_equal(pq_plain_decode_fixed((const uint8_t *)v, sizeof v - 1, 8, got, 3, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    /* n * width would overflow. */
    assert_int_equal(
        pq_plain_decode_fixed((const uint8_t *)v, sizeof v, 12, got, SIZE_MAX / 8, &err), -1);
    uint8_t flba[24];
    assert_int_equal(pq_plain_decode_fixed((const uint8_t *)v, sizeof v, 12, flba, 2, &err), 0);
    assert_memory_equal(flba, v, 24);
    assert_int_equal(pq_plain_decode_fixed(NULL, 0, 4, got, 0, &err), 0);
}

static void test_plain_byte_array(void **state)
{
    (void)state;
    const char *s[] = {"",
                       "a",
                       "hello",
                       "",
                       "exactly sixteen!",
                       "seventeen bytes!!",
                       "a considerably longer value that goes past the short-copy path"};
    enum { N = ARRAY_LEN(s) };
    const uint8_t *vals[N];
    uint32_t lens[N];
    for (size_t i = 0; i < N; i++) {
        vals[i] = (const uint8_t *)s[i];
        lens[i] = (uint32_t)strlen(s[i]);
    }
    vals[0] = NULL; /* zero-length values need no pointer */
    struct buf enc = BUF_INIT;
    assert_int_equal(plain_encode_byte_array(vals, lens, N, &enc), 0);
    size_t total = 0;
    for (size_t i = 0; i < N; i++)
        total += 4 + lens[i];
    assert_int_equal(enc.len, total);
    assert_memory_equal(enc.data, "\0\0\0\0\1\0\0\0a\5\0\0\0hello", 18);

    uint8_t *e = malloc(enc.len);
    memcpy(e, enc.data, enc.len);
    struct buf data = BUF_INIT;
    buf_puts(&data, "xyz"); /* offsets are relative to what is already there */
    int64_t off[32];
    struct error err = {0};
    assert_int_equal(pq_plain_decode_byte_array(e, enc.len, N, off, &data, &err), 0);
    assert_int_equal(off[0], 3);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(off[i + 1] - off[i], lens[i]);
        assert_memory_equal(data.data + off[i], s[i], lens[i]);
    }
    assert_int_equal(data.len, 3 + total - 4 * N);

    /* Every truncation fails and leaves data_out as it was. */
    for (size_t cut = 0; cut < enc.len; cut++) {
        uint8_t *t = malloc(cut + 1);
        memcpy(t, e, cut);
        size_t before = data.len;
        assert_int_equal(pq_plain_decode_byte_array(t, cut, N, off, &data, &err), -1);
        assert_int_equal(err.code, ERR_CORRUPT);
        assert_int_equal(data.len, before);
        free(t);
    }
    /* A length past the end; a huge length. */
    const uint8_t bad[] = {0x05, 0, 0, 0, 'a', 'b'};
    assert_int_equal(pq_plain_decode_byte_array(bad, sizeof bad, 1, off, &data, &err), -1);
    const uint8_t huge[] = {0xFF, 0xFF, 0xFF, 0xFF, 'a'};
    assert_int_equal(pq_plain_decode_byte_array(huge, sizeof huge, 1, off, &data, &err), -1);
    /* An early value eating the bytes later prefixes need (once wrote past
     * the output reservation). */
    uint8_t greedy[4 + 143];
    memset(greedy, 'g', sizeof greedy);
    greedy[0] = 143;
    greedy[1] = greedy[2] = greedy[3] = 0;
    /* 25 values: 147 - 100 + 16 = 63 bytes reserved in a fresh buffer. */
    struct buf fresh = BUF_INIT;
    assert_int_equal(pq_plain_decode_byte_array(greedy, sizeof greedy, 25, off, &fresh, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    assert_int_equal(pq_plain_decode_byte_array(greedy, sizeof greedy, 1, off, &fresh, &err), 0);
    assert_int_equal(fresh.len, 143);
    buf_free(&fresh);
    /* More values than length prefixes could fit. */
    assert_int_equal(pq_plain_decode_byte_array(bad, sizeof bad, 2, off, &data, &err), -1);
    assert_int_equal(pq_plain_decode_byte_array(bad, 0, 0, off, &data, &err), 0);

    /* Random round trip. */
    enum { M = 2000 };
    uint8_t **rv = malloc(M * sizeof *rv);
    uint32_t *rl = malloc(M * sizeof *rl);
    for (size_t i = 0; i < M; i++) {
        rl[i] = (uint32_t)(rnd() % 5 == 0 ? rnd() % 200 : rnd() % 20);
        rv[i] = malloc(rl[i] + 1);
        for (uint32_t k = 0; k < rl[i]; k++)
            rv[i][k] = (uint8_t)rnd();
    }
    buf_reset(&enc);
    assert_int_equal(plain_encode_byte_array((const uint8_t *const *)rv, rl, M, &enc), 0);
    free(e);
    e = malloc(enc.len);
    memcpy(e, enc.data, enc.len);
    int64_t *ro = malloc((M + 1) * sizeof *ro);
    buf_reset(&data);
    assert_int_equal(pq_plain_decode_byte_array(e, enc.len, M, ro, &data, &err), 0);
    for (size_t i = 0; i < M; i++) {
        assert_int_equal(ro[i + 1] - ro[i], rl[i]);
        assert_memory_equal(data.data + ro[i], rv[i], rl[i]);
        free(rv[i]);
    }
    free(rv);
    free(rl);
    free(ro);
    free(e);
    buf_free(&enc);
    buf_free(&data);
}

/* ---- DELTA_BINARY_PACKED ---- */

static void delta_encode(const int64_t *v, size_t n, struct buf *out)
{
    buf_reset(out);
    assert_int_equal(pq_delta_encode_i64(v, n, out), 0);
}

static void test_delta_spec_examples(void **state)
{
    (void)state;
    /* Encodings.md's examples, with the real block layout (128 values in
     * 4 miniblocks of 32) instead of the illustrative block of 8. */
    struct buf out = BUF_INIT;
    const int64_t ex1[] = {1, 2, 3, 4, 5};
    /* header 128, 4, 5, zigzag(1); min delta zigzag(1); widths 0 0 0 0 */
    const uint8_t want1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
    delta_encode(ex1, 5, &out);
    assert_bytes(out.data, out.len, want1, sizeof want1);

    const int64_t ex2[] = {7, 5, 3, 1, 2, 3, 4, 5};
    /* min delta -2 (zigzag 3); relative 0,0,0,3,3,3,3 at width 2, padded
     * to 32 values: 0b11000000, 0b00111111, then zeros. */
    const uint8_t want2[] = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00,
                             0x00, 0xC0, 0x3F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    delta_encode(ex2, 8, &out);
    assert_bytes(out.data, out.len, want2, sizeof want2);
    buf_free(&out);

    struct error err = {0};
    int64_t got[8];
    int32_t got32[8];
    size_t used = 0;
    assert_int_equal(pq_delta_decode_i64(want1, sizeof want1, got, 5, &used, &err), 0);
    assert_memory_equal(got, ex1, sizeof ex1);
    assert_int_equal(used, sizeof want1);
    assert_int_equal(pq_delta_decode_i64(want2, sizeof want2, got, 8, &used, &err), 0);
    assert_memory_equal(got, ex2, sizeof ex2);
    assert_int_equal(used, sizeof want2);
    assert_int_equal(pq_delta_decode_i32(want2, sizeof want2, got32, 8, &used, &err), 0);
    for (int i = 0; i < 8; i++)
        assert_int_equal(got32[i], ex2[i]);

    /* The spec's literal block-of-8 form is not a valid real stream. */
    const uint8_t block8[] = {0x08, 0x01, 0x05, 0x02, 0x02, 0x00};
    assert_int_equal(pq_delta_decode_i64(block8, sizeof block8, got, 5, &used, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);

    /* Widths of unneeded miniblocks may be anything. */
    uint8_t junk[sizeof want1];
    memcpy(junk, want1, sizeof junk);
    junk[7] = junk[8] = junk[9] = 0xFF;
    assert_int_equal(pq_delta_decode_i64(junk, sizeof junk, got, 5, &used, &err), 0);
    assert_memory_equal(got, ex1, sizeof ex1);
    /* ...but not of the ones holding values. */
    junk[6] = 65;
    assert_int_equal(pq_delta_decode_i64(junk, sizeof junk, got, 5, &used, &err), -1);
}

static void check_delta_round_trip(const int64_t *v, size_t n, bool check_truncation)
{
    struct buf out = BUF_INIT;
    delta_encode(v, n, &out);
    size_t elen = out.len;
    /* With trailing bytes that must not be counted as consumed. */
    uint8_t *e = malloc(elen + 3);
    memcpy(e, out.data, elen);
    memset(e + elen, 0xAB, 3);
    int64_t *got = malloc((n + 1) * sizeof *got);
    struct error err = {0};
    size_t used = 0;
    if (pq_delta_decode_i64(e, elen + 3, got, n, &used, &err) != 0)
        fail_msg("n %zu: %s", n, err.msg);
    assert_memory_equal(got, v, n * sizeof *v);
    assert_int_equal(used, elen);
    /* Decoding fewer values still reports the whole stream. */
    if (n > 1) {
        assert_int_equal(pq_delta_decode_i64(e, elen, got, n / 2, &used, &err), 0);
        assert_memory_equal(got, v, n / 2 * sizeof *v);
        assert_int_equal(used, elen);
    }
    /* Asking for more than the header holds is corrupt. */
    assert_int_equal(pq_delta_decode_i64(e, elen + 3, got, n + 1, &used, &err), -1);
    if (check_truncation) {
        for (size_t cut = 0; cut < elen; cut++) {
            uint8_t *t = malloc(cut + 1);
            memcpy(t, e, cut);
            if (pq_delta_decode_i64(t, cut, got, n, &used, &err) == 0)
                fail_msg("n %zu: truncation to %zu of %zu bytes decoded", n, cut, elen);
            assert_int_equal(err.code, ERR_CORRUPT);
            free(t);
        }
    }
    free(got);
    free(e);
    buf_free(&out);
}

static void test_delta_round_trips(void **state)
{
    (void)state;
    check_delta_round_trip(NULL, 0, true);
    const int64_t one[] = {-42};
    check_delta_round_trip(one, 1, true);
    const int64_t extremes[] = {INT64_MIN, INT64_MAX, INT64_MIN, 0, INT64_MAX, -1, 1, INT64_MIN};
    check_delta_round_trip(extremes, ARRAY_LEN(extremes), true);
    const int64_t wrap[] = {INT64_MAX, INT64_MIN, INT64_MIN + 5, INT64_MAX - 3, 0};
    check_delta_round_trip(wrap, ARRAY_LEN(wrap), true);

    size_t sizes[] = {2, 31, 32, 33, 127, 128, 129, 130, 255, 256, 257, 1000, 10000};
    int64_t *v = malloc(10000 * sizeof *v);
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        size_t n = sizes[s];
        for (int kind = 0; kind < 5; kind++) {
            for (size_t i = 0; i < n; i++) {
                switch (kind) {
                case 0: v[i] = (int64_t)rnd(); break;                /* full width */
                case 1: v[i] = (int64_t)(i * 3) - 7; break;          /* constant step */
                case 2: v[i] = (int64_t)(rnd() % 1000) - 500; break; /* small */
                case 3: v[i] = i % 2 ? INT64_MIN : INT64_MAX; break; /* wrapping */
                default: v[i] = (int64_t)(rnd() >> (rnd() % 64)) * (i % 3 ? 1 : -1); /* mixed */
                }
            }
            check_delta_round_trip(v, n, n <= 130);
        }
    }
    free(v);
}

static void test_delta_decode_layouts(void **state)
{
    (void)state;
    /* Other valid layouts, from the reference writer: bigger blocks, one
     * miniblock per block, junk widths in unused miniblocks. */
    const struct {
        unsigned block, mbs;
    } layouts[] = {{128, 1}, {128, 4}, {256, 8}, {256, 2}, {1024, 4}, {1024, 32}};
    size_t n = 3000;
    int64_t *v = malloc(n * sizeof *v), *got = malloc(n * sizeof *got);
    int32_t *v32 = malloc(n * sizeof *v32), *got32 = malloc(n * sizeof *got32);
    struct error err = {0};
    for (size_t l = 0; l < ARRAY_LEN(layouts); l++) {
        for (size_t i = 0; i < n; i++) {
            v[i] = (int64_t)(rnd() >> (i / 100 % 64));
            v32[i] = (int32_t)(uint32_t)rnd();
            if (i % 700 < 3)
                v32[i] = i % 2 ? INT32_MIN : INT32_MAX;
        }
        for (size_t len = 1; len <= n; len = len * 3 + 1) {
            struct bitw b = ref_delta(v, len, layouts[l].block, layouts[l].mbs, 64, 0xEE);
            size_t used = 0;
            assert_int_equal(pq_delta_decode_i64(b.p, b.len, got, len, &used, &err), 0);
            assert_memory_equal(got, v, len * sizeof *v);
            assert_int_equal(used, b.len);
            free(b.p);

            /* INT32 written with 32-bit wrapping deltas. */
            int64_t *w = malloc(len * sizeof *w);
            for (size_t i = 0; i < len; i++)
                w[i] = v32[i];
            b = ref_delta(w, len, layouts[l].block, layouts[l].mbs, 32, 0x77);
            assert_int_equal(pq_delta_decode_i32(b.p, b.len, got32, len, &used, &err), 0);
            assert_memory_equal(got32, v32, len * sizeof *v32);
            assert_int_equal(used, b.len);
            free(b.p);
            /* The same values through the 64-bit encoder also decode as
             * INT32 (deltas there fit in 33 bits only if small, so keep
             * the check to in-range encodings). */
            struct buf out = BUF_INIT;
            delta_encode(w, len, &out);
            int rc =
                pq_delta_decode_i32((const uint8_t *)out.data, out.len, got32, len, &used, &err);
            if (rc == 0)
                assert_memory_equal(got32, v32, len * sizeof *v32);
            buf_free(&out);
            free(w);
        }
    }
    free(v);
    free(got);
    free(v32);
    free(got32);
}

static void test_delta_rejects(void **state)
{
    (void)state;
    struct error err = {0};
    int64_t got[300];
    int32_t got32[300];
    size_t used;
    const struct {
        uint8_t bytes[16];
        size_t len;
    } bad[] = {
        {{0x00, 0x04, 0x05, 0x02}, 4},                                      /* block size 0 */
        {{0x64, 0x04, 0x05, 0x02}, 4},                                      /* block size 100 */
        {{0x80, 0x01, 0x00, 0x05, 0x02}, 5},                                /* no miniblocks */
        {{0x80, 0x01, 0x03, 0x05, 0x02}, 5},                                /* 128 / 3 */
        {{0x80, 0x01, 0x08, 0x05, 0x02}, 5},                                /* miniblocks of 16 */
        {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}, 10}, /* > 64 bits */
        {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 11},
        {{0x80, 0x80, 0x80, 0x08, 0x04, 0x05, 0x02}, 7}, /* block 2^24 + 2^21... too big */
        {{0x80, 0x01, 0x04, 0x05}, 4},                   /* first value missing */
        {{0x80, 0x01, 0x04, 0x05, 0x02}, 5},             /* block missing */
        {{0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00}, 7}, /* widths truncated */
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        if (pq_delta_decode_i64(bad[i].bytes, bad[i].len, got, 5, &used, &err) == 0)
            fail_msg("case %zu decoded", i);
        assert_int_equal(err.code, ERR_CORRUPT);
    }
    /* Width 33 decodes for INT64, and for INT32 with 32-bit wrapping (as
     * writers computing deltas in 64 bits produce); width 65 for neither. */
    struct bitw b = {0};
    bitw_uleb(&b, 128);
    bitw_uleb(&b, 4);
    bitw_uleb(&b, 3);
    bitw_uleb(&b, 0);
    bitw_uleb(&b, 0);
    bitw_put(&b, 33, 8);
    bitw_put(&b, 0, 24);
    bitw_put(&b, 1, 33);
    bitw_put(&b, (uint64_t)1 << 32, 33);
    for (int i = 2; i < 32; i++)
        bitw_put(&b, 0, 33);
    assert_int_equal(pq_delta_decode_i64(b.p, b.len, got, 3, &used, &err), 0);
    assert_int_equal(got[1], 1);
    assert_int_equal(got[2], ((int64_t)1 << 32) + 1);
    assert_int_equal(pq_delta_decode_i32(b.p, b.len, got32, 3, &used, &err), 0);
    assert_int_equal(got32[1], 1);
    assert_int_equal(got32[2], 1); /* 2^32 + 1 wrapped */
    b.p[6] = 65;
    assert_int_equal(pq_delta_decode_i64(b.p, b.len, got, 3, &used, &err), -1);
    free(b.p);
    /* The full INT32 range: deltas of 2^31 - 1 and -(2^32 - 1) take 33 bits. */
    const int64_t span[] = {0, INT32_MAX, INT32_MIN, INT32_MAX, 0};
    struct buf enc = BUF_INIT;
    assert_int_equal(pq_delta_encode_i64(span, 5, &enc), 0);
    assert_int_equal(pq_delta_decode_i32((const uint8_t *)enc.data, enc.len, got32, 5, &used, &err),
                     0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(got32[i], span[i]);
    buf_free(&enc);
    /* A header promising far more values than are there. */
    const uint8_t many[] = {0x80, 0x01, 0x04, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x02, 0x02, 0, 0, 0, 0};
    assert_int_equal(pq_delta_decode_i64(many, sizeof many, got, 200, &used, &err), -1);
    assert_int_equal(pq_delta_decode_i64(many, sizeof many, got, 2, &used, &err), -1);
}

/* ---- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY ---- */

static size_t build_dlba(struct buf *b, const char *const *s, size_t n)
{
    int64_t *lens = malloc((n + 1) * sizeof *lens);
    for (size_t i = 0; i < n; i++)
        lens[i] = (int64_t)strlen(s[i]);
    assert_int_equal(pq_delta_encode_i64(lens, n, b), 0);
    for (size_t i = 0; i < n; i++)
        buf_puts(b, s[i]);
    free(lens);
    return b->len;
}

static void test_delta_length_byte_array(void **state)
{
    (void)state;
    const char *s[] = {"Hello", "World", "Foobar", "ABCDEF"};
    struct buf enc = BUF_INIT;
    size_t len = build_dlba(&enc, s, 4);
    assert_memory_equal(enc.data + len - 22, "HelloWorldFoobarABCDEF", 22);
    uint8_t *e = malloc(len);
    memcpy(e, enc.data, len);

    struct buf data = BUF_INIT;
    buf_puts(&data, "pre");
    int64_t off[5];
    struct error err = {0};
    assert_int_equal(pq_delta_length_decode(e, len, 4, off, &data, &err), 0);
    const int64_t want_off[] = {3, 8, 13, 19, 25};
    assert_memory_equal(off, want_off, sizeof want_off);
    assert_int_equal(data.len, 25);
    assert_memory_equal(data.data, "preHelloWorldFoobarABCDEF", 25);

    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *t = malloc(cut + 1);
        memcpy(t, e, cut);
        assert_int_equal(pq_delta_length_decode(t, cut, 4, off, &data, &err), -1);
        assert_int_equal(err.code, ERR_CORRUPT);
        assert_int_equal(data.len, 25);
        free(t);
    }
    /* A negative length. */
    const int64_t neg[] = {3, -1};
    buf_reset(&enc);
    assert_int_equal(pq_delta_encode_i64(neg, 2, &enc), 0);
    buf_puts(&enc, "abcdef");
    assert_int_equal(
        pq_delta_length_decode((const uint8_t *)enc.data, enc.len, 2, off, &data, &err), -1);
    /* Zero values; all-empty values. */
    buf_reset(&enc);
    assert_int_equal(pq_delta_encode_i64(NULL, 0, &enc), 0);
    assert_int_equal(
        pq_delta_length_decode((const uint8_t *)enc.data, enc.len, 0, off, &data, &err), 0);
    assert_int_equal(off[0], 25);
    const char *empties[] = {"", "", ""};
    buf_reset(&enc);
    build_dlba(&enc, empties, 3);
    assert_int_equal(
        pq_delta_length_decode((const uint8_t *)enc.data, enc.len, 3, off, &data, &err), 0);
    assert_int_equal(off[3], 25);
    free(e);
    buf_free(&enc);
    buf_free(&data);
}

static void build_dba(struct buf *b, const int64_t *prefix, const char *const *suffix, size_t n)
{
    assert_int_equal(pq_delta_encode_i64(prefix, n, b), 0);
    build_dlba(b, suffix, n);
}

static void test_delta_byte_array(void **state)
{
    (void)state;
    const int64_t prefix[] = {0, 2, 0, 3};
    const char *suffix[] = {"axis", "le", "babble", "yhood"};
    struct buf enc = BUF_INIT;
    build_dba(&enc, prefix, suffix, 4);
    assert_memory_equal(enc.data + enc.len - 17, "axislebabbleyhood", 17);
    size_t len = enc.len;
    uint8_t *e = malloc(len);
    memcpy(e, enc.data, len);
    struct buf data = BUF_INIT;
    buf_puts(&data, "#");
    int64_t off[5];
    struct error err = {0};
    assert_int_equal(pq_delta_byte_array_decode(e, len, 4, off, &data, &err), 0);
    const int64_t want_off[] = {1, 5, 9, 15, 23};
    assert_memory_equal(off, want_off, sizeof want_off);
    assert_int_equal(data.len, 23);
    assert_memory_equal(data.data, "#axisaxlebabblebabyhood", 23);

    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *t = malloc(cut + 1);
        memcpy(t, e, cut);
        assert_int_equal(pq_delta_byte_array_decode(t, cut, 4, off, &data, &err), -1);
        assert_int_equal(err.code, ERR_CORRUPT);
        assert_int_equal(data.len, 23);
        free(t);
    }
    free(e);

    /* A prefix longer than the previous value; a first value with a
     * prefix; a negative prefix. */
    const int64_t bad1[] = {0, 5, 0, 3};
    const int64_t bad2[] = {1, 2, 0, 3};
    const int64_t bad3[] = {0, -1, 0, 3};
    const int64_t *bads[] = {bad1, bad2, bad3};
    for (size_t k = 0; k < ARRAY_LEN(bads); k++) {
        buf_reset(&enc);
        build_dba(&enc, bads[k], suffix, 4);
        assert_int_equal(
            pq_delta_byte_array_decode((const uint8_t *)enc.data, enc.len, 4, off, &data, &err),
            -1);
        assert_int_equal(err.code, ERR_CORRUPT);
        assert_int_equal(data.len, 23);
    }

    /* Many values with long shared prefixes, against a direct build. */
    enum { M = 3000 };
    char **vals = malloc(M * sizeof *vals);
    int64_t *pl = malloc(M * sizeof *pl);
    const char **sf = malloc(M * sizeof *sf);
    size_t total = 0;
    for (size_t i = 0; i < M; i++) {
        size_t prev_len = i ? strlen(vals[i - 1]) : 0;
        size_t p = prev_len ? rnd() % (prev_len + 1) : 0;
        size_t sl = rnd() % 40;
        vals[i] = malloc(p + sl + 1);
        if (p)
            memcpy(vals[i], vals[i - 1], p);
        for (size_t k = 0; k < sl; k++)
            vals[i][p + k] = (char)('a' + rnd() % 26);
        vals[i][p + sl] = '\0';
        pl[i] = (int64_t)p;
        sf[i] = vals[i] + p;
        total += p + sl;
    }
    buf_reset(&enc);
    build_dba(&enc, pl, sf, M);
    int64_t *ro = malloc((M + 1) * sizeof *ro);
    buf_reset(&data);
    assert_int_equal(
        pq_delta_byte_array_decode((const uint8_t *)enc.data, enc.len, M, ro, &data, &err), 0);
    assert_int_equal(data.len, total);
    for (size_t i = 0; i < M; i++) {
        assert_int_equal(ro[i + 1] - ro[i], strlen(vals[i]));
        assert_memory_equal(data.data + ro[i], vals[i], strlen(vals[i]));
        free(vals[i]);
    }
    free(vals);
    free(pl);
    free(sf);
    free(ro);

    /* A tiny page that would expand past the page limit is refused before
     * anything is allocated for it. */
    enum { BIG = 1100000 };
    int64_t *bp = malloc(BIG * sizeof *bp);
    const char **bs = malloc(BIG * sizeof *bs);
    char *first = malloc(1001);
    memset(first, 'x', 1000);
    first[1000] = '\0';
    for (size_t i = 0; i < BIG; i++) {
        bp[i] = i ? 1000 : 0;
        bs[i] = i ? "" : first;
    }
    buf_reset(&enc);
    build_dba(&enc, bp, bs, BIG);
    assert_true(enc.len < 100000);
    int64_t *bo = malloc((BIG + 1) * sizeof *bo);
    buf_free(&data);
    assert_int_equal(
        pq_delta_byte_array_decode((const uint8_t *)enc.data, enc.len, BIG, bo, &data, &err), -1);
    assert_int_equal(err.code, ERR_UNSUPPORTED);
    assert_true(data.cap < 1000000);
    free(bp);
    free(bs);
    free(bo);
    free(first);
    buf_free(&enc);
    buf_free(&data);
}

/* ---- BYTE_STREAM_SPLIT ---- */

static void test_byte_stream_split(void **state)
{
    (void)state;
    struct error err = {0};
    /* Encodings.md's example. */
    const uint8_t enc[] = {0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6};
    const uint8_t want[] = {0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6};
    uint8_t got[12];
    assert_int_equal(pq_byte_stream_split_decode(enc, sizeof enc, 4, got, 3, &err), 0);
    assert_memory_equal(got, want, sizeof want);
    /* First values of a longer page. */
    assert_int_equal(pq_byte_stream_split_decode(enc, sizeof enc, 4, got, 2, &err), 0);
    assert_memory_equal(got, want, 8);
    /* Length not a multiple of the width; too few values. */
    assert_int_equal(pq_byte_stream_split_decode(enc, 11, 4, got, 2, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    assert_int_equal(pq_byte_stream_split_decode(enc, 12, 4, got, 4, &err), -1);
    assert_int_equal(pq_byte_stream_split_decode(enc, 12, 3, got, 5, &err), -1);

    const size_t widths[] = {1, 2, 3, 4, 8, 12, 16};
    for (size_t wi = 0; wi < ARRAY_LEN(widths); wi++) {
        size_t w = widths[wi];
        for (size_t n = 0; n < 70; n += 1 + n / 4) {
            uint8_t *vals = malloc(n * w + 1), *split = malloc(n * w + 1), *o = malloc(n * w + 1);
            for (size_t i = 0; i < n * w; i++)
                vals[i] = (uint8_t)rnd();
            for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < w; k++)
                    split[k * n + i] = vals[i * w + k];
            assert_int_equal(pq_byte_stream_split_decode(split, n * w, w, o, n, &err), 0);
            assert_memory_equal(o, vals, n * w);
            free(vals);
            free(split);
            free(o);
        }
    }
}

/* ---- hostile input ---- */

static void test_decoders_survive_garbage(void **state)
{
    (void)state;
    /* Random bytes, biased toward small varints so the decoders get past
     * their headers; outputs are exact-size heap blocks so ASan notices any
     * stray write. Results do not matter, only that nothing breaks. */
    struct error err;
    struct buf data = BUF_INIT;
    for (int iter = 0; iter < 20000; iter++) {
        size_t len = rnd() % 80;
        uint8_t *in = malloc(len + 1);
        for (size_t i = 0; i < len; i++)
            in[i] = (uint8_t)(rnd() % 4 ? rnd() % 16 : rnd());
        if (len > 4 && rnd() % 2) {
            in[0] = 0x80;
            in[1] = 0x01;
            in[2] = (uint8_t)(1u << (rnd() % 3));
        }
        size_t n = rnd() % 40;
        int w = (int)(rnd() % 34);
        uint32_t *o32 = malloc(n * 4 + 1);
        uint16_t *o16 = malloc(n * 2 + 1);
        int64_t *o64 = malloc(n * 8 + 1);
        int32_t *oi32 = malloc(n * 4 + 1);
        int64_t *off = malloc((n + 1) * 8);
        size_t used;
        (void)pq_rle_decode_u32(in, len, w, o32, n, &err);
        (void)pq_rle_decode_u16(in, len, w % 17, o16, n, &err);
        (void)pq_bitpacked_decode_levels(in, len, w % 17, o16, n, &err);
        (void)pq_delta_decode_i64(in, len, o64, n, &used, &err);
        (void)pq_delta_decode_i32(in, len, oi32, n, &used, &err);
        buf_reset(&data);
        (void)pq_plain_decode_byte_array(in, len, n, off, &data, &err);
        (void)pq_delta_length_decode(in, len, n, off, &data, &err);
        (void)pq_delta_byte_array_decode(in, len, n, off, &data, &err);
        free(in);
        free(o32);
        free(o16);
        free(o64);
        free(oi32);
        free(off);
    }
    buf_free(&data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bit_width),
        cmocka_unit_test(test_rle_spec_bitpacked_example),
        cmocka_unit_test(test_rle_spec_run_headers),
        cmocka_unit_test(test_rle_run_literal_layout),
        cmocka_unit_test(test_rle_round_trip_all_widths),
        cmocka_unit_test(test_rle_long_runs),
        cmocka_unit_test(test_rle_decode_hand_built),
        cmocka_unit_test(test_rle_decode_rejects),
        cmocka_unit_test(test_bitpacked_levels),
        cmocka_unit_test(test_plain_bool),
        cmocka_unit_test(test_plain_fixed),
        cmocka_unit_test(test_plain_byte_array),
        cmocka_unit_test(test_delta_spec_examples),
        cmocka_unit_test(test_delta_round_trips),
        cmocka_unit_test(test_delta_decode_layouts),
        cmocka_unit_test(test_delta_rejects),
        cmocka_unit_test(test_delta_length_byte_array),
        cmocka_unit_test(test_delta_byte_array),
        cmocka_unit_test(test_byte_stream_split),
        cmocka_unit_test(test_decoders_survive_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
