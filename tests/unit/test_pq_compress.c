/* Unit tests for src/parquet/compress.c: round trips for every writable
 * codec, exact-size enforcement, hostile compressed input, gzip members. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "parquet/compress.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const enum pq_codec writable[] = {PQ_UNCOMPRESSED, PQ_SNAPPY, PQ_GZIP, PQ_ZSTD, PQ_LZ4_RAW};

static uint64_t rng_state = 0x853C49E6748FEA9BULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static uint8_t *random_bytes(size_t n)
{
    uint8_t *p = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rnd();
    return p;
}

static uint8_t *repetitive_bytes(size_t n)
{
    static const char text[] = "the quick brown fox jumps over the lazy dog; ";
    uint8_t *p = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        p[i] = i % 4096 < 3000 ? (uint8_t)text[i % (sizeof text - 1)] : (uint8_t)(i / 7);
    return p;
}

static void compress_ok(struct pq_codec_ctx *ctx, enum pq_codec c, int level, const void *src,
                        size_t n, struct buf *out)
{
    struct error err = {0};
    buf_reset(out);
    if (pq_compress(ctx, c, level, src, n, out, &err) != 0)
        fail_msg("%s: compress failed: %s", pq_codec_name((int)c), err.msg);
}

/* Decompresses into an exact-size heap block, so ASan catches overflow. */
static int decompress_exact(struct pq_codec_ctx *ctx, enum pq_codec c, const void *src, size_t n,
                            size_t dst_len, uint8_t **out, struct error *err)
{
    /* An exact-size copy of the input too, so over-reads show up. */
    uint8_t *in = malloc(n ? n : 1);
    if (n)
        memcpy(in, src, n);
    uint8_t *dst = malloc(dst_len ? dst_len : 1);
    int rc = pq_decompress(ctx, c, in, n, dst, dst_len, err);
    free(in);
    if (out)
        *out = dst;
    else
        free(dst);
    return rc;
}

static void check_round_trip(struct pq_codec_ctx *ctx, enum pq_codec c, int level,
                             const uint8_t *src, size_t n)
{
    struct buf out = BUF_INIT;
    struct error err = {0};
    compress_ok(ctx, c, level, src, n, &out);
    uint8_t *dst;
    if (decompress_exact(ctx, c, out.data, out.len, n, &dst, &err) != 0)
        fail_msg("%s, %zu bytes: %s", pq_codec_name((int)c), n, err.msg);
    if (n)
        assert_memory_equal(dst, src, n);
    free(dst);
    /* A dst_len one short or one long is corrupt. */
    if (n) {
        assert_int_equal(decompress_exact(ctx, c, out.data, out.len, n - 1, NULL, &err), -1);
        assert_int_equal(err.code, ERR_CORRUPT);
    }
    assert_int_equal(decompress_exact(ctx, c, out.data, out.len, n + 1, NULL, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);
    buf_free(&out);
}

static void test_round_trips(void **state)
{
    (void)state;
    struct pq_codec_ctx *ctx = pq_codec_ctx_new();
    assert_non_null(ctx);
    const size_t mib = 1024 * 1024;
    uint8_t *rnd_data = random_bytes(mib), *rep = repetitive_bytes(mib);
    const uint8_t small[] = "hello, parquet";
    for (size_t i = 0; i < ARRAY_LEN(writable); i++) {
        enum pq_codec c = writable[i];
        check_round_trip(ctx, c, 0, NULL, 0);
        check_round_trip(ctx, c, 0, small, sizeof small - 1);
        check_round_trip(ctx, c, 0, rnd_data, mib);
        check_round_trip(ctx, c, 0, rep, mib);
        /* Without a context, too. */
        check_round_trip(NULL, c, 0, rep, 1000);
    }
    /* Repetitive data actually shrinks. */
    struct buf out = BUF_INIT;
    for (size_t i = 1; i < ARRAY_LEN(writable); i++) {
        compress_ok(ctx, writable[i], 0, rep, mib, &out);
        assert_true(out.len < mib / 4);
    }
    buf_free(&out);
    free(rnd_data);
    free(rep);
    pq_codec_ctx_free(ctx);
}

static void test_zstd_levels(void **state)
{
    (void)state;
    struct pq_codec_ctx *ctx = pq_codec_ctx_new();
    uint8_t *rep = repetitive_bytes(200000);
    struct buf out = BUF_INIT;
    struct error err = {0};
    for (int level = 1; level <= 22; level += 3)
        check_round_trip(ctx, PQ_ZSTD, level, rep, 200000);
    /* 0 means the default, 3. */
    compress_ok(ctx, PQ_ZSTD, 0, rep, 200000, &out);
    struct buf out3 = BUF_INIT;
    compress_ok(ctx, PQ_ZSTD, 3, rep, 200000, &out3);
    assert_int_equal(out.len, out3.len);
    assert_memory_equal(out.data, out3.data, out.len);
    /* Out-of-range levels are the caller's mistake; out is left alone. */
    buf_reset(&out);
    buf_puts(&out, "keep");
    assert_int_equal(pq_compress(ctx, PQ_ZSTD, 23, rep, 100, &out, &err), -1);
    assert_int_equal(err.code, ERR_INVALID);
    assert_int_equal(pq_compress(ctx, PQ_ZSTD, -1, rep, 100, &out, &err), -1);
    assert_string_equal(out.data, "keep");
    /* The level is ignored by the other codecs. */
    assert_int_equal(pq_compress(ctx, PQ_SNAPPY, 99, rep, 100, &out, &err), 0);
    buf_free(&out);
    buf_free(&out3);
    free(rep);
    pq_codec_ctx_free(ctx);
}

static void test_compress_appends(void **state)
{
    (void)state;
    const char *src = "appended after existing bytes, appended after existing bytes";
    size_t n = strlen(src);
    for (size_t i = 0; i < ARRAY_LEN(writable); i++) {
        struct buf out = BUF_INIT;
        struct error err = {0};
        buf_puts(&out, "HEAD");
        assert_int_equal(pq_compress(NULL, writable[i], 0, src, n, &out, &err), 0);
        assert_memory_equal(out.data, "HEAD", 4);
        char got[128];
        assert_int_equal(pq_decompress(NULL, writable[i], out.data + 4, out.len - 4, got, n, &err),
                         0);
        assert_memory_equal(got, src, n);
        buf_free(&out);
    }
}

static void test_unsupported_codecs(void **state)
{
    (void)state;
    const enum pq_codec unsup[] = {PQ_LZO, (enum pq_codec)99};
    struct buf out = BUF_INIT;
    struct error err = {0};
    char dst[8];
    for (size_t i = 0; i < ARRAY_LEN(unsup); i++) {
        assert_false(pq_codec_can_write(unsup[i]));
        assert_false(pq_codec_can_read(unsup[i]));
        assert_int_equal(pq_compress(NULL, unsup[i], 0, "abc", 3, &out, &err), -1);
        assert_int_equal(err.code, ERR_UNSUPPORTED);
        assert_int_equal(out.len, 0);
        assert_int_equal(pq_decompress(NULL, unsup[i], "abc", 3, dst, 3, &err), -1);
        assert_int_equal(err.code, ERR_UNSUPPORTED);
    }
    assert_non_null(strstr(err.msg, "99"));
    /* Read-only codecs (tests/unit/test_pq_codecs_legacy.c reads them):
     * writing them is refused, and garbage in them is corrupt, not
     * unsupported. */
    const enum pq_codec read_only[] = {PQ_LZ4, PQ_BROTLI};
    for (size_t i = 0; i < ARRAY_LEN(read_only); i++) {
        assert_false(pq_codec_can_write(read_only[i]));
        assert_true(pq_codec_can_read(read_only[i]));
        assert_int_equal(pq_compress(NULL, read_only[i], 0, "abc", 3, &out, &err), -1);
        assert_int_equal(err.code, ERR_UNSUPPORTED);
        assert_non_null(strstr(err.msg, "not written"));
        assert_int_equal(out.len, 0);
        assert_int_equal(pq_decompress(NULL, read_only[i], "abc", 3, dst, 3, &err), -1);
        assert_int_equal(err.code, ERR_CORRUPT);
    }
    assert_int_equal(pq_compress(NULL, PQ_LZ4, 0, "abc", 3, &out, &err), -1);
    assert_non_null(strstr(err.msg, "LZ4_RAW"));
    for (size_t i = 0; i < ARRAY_LEN(writable); i++) {
        assert_true(pq_codec_can_write(writable[i]));
        assert_true(pq_codec_can_read(writable[i]));
    }
    buf_free(&out);
}

static void test_corrupt_input(void **state)
{
    (void)state;
    struct pq_codec_ctx *ctx = pq_codec_ctx_new();
    uint8_t *src = repetitive_bytes(600);
    memcpy(src + 100, "some less regular bytes: 8f3a1c", 31);
    struct buf out = BUF_INIT;
    struct error err = {0};
    for (size_t i = 0; i < ARRAY_LEN(writable); i++) {
        enum pq_codec c = writable[i];
        compress_ok(ctx, c, 0, src, 600, &out);
        /* Every truncation fails. */
        for (size_t cut = 0; cut < out.len; cut++) {
            if (decompress_exact(ctx, c, out.data, cut, 600, NULL, &err) == 0)
                fail_msg("%s: truncation to %zu of %zu bytes decoded", pq_codec_name((int)c), cut,
                         out.len);
            assert_int_equal(err.code, ERR_CORRUPT);
        }
        /* Flipped bytes may or may not be noticed (snappy and LZ4 carry no
         * checksum), but never break anything; gzip and zstd frames do. */
        uint8_t *copy = malloc(out.len);
        for (size_t pos = 0; pos < out.len; pos++) {
            for (int f = 0; f < 3; f++) {
                memcpy(copy, out.data, out.len);
                copy[pos] ^= (uint8_t)(f == 0 ? 0xFF : f == 1 ? 0x01 : 0x80);
                int rc = decompress_exact(ctx, c, copy, out.len, 600, NULL, &err);
                if (rc != 0)
                    assert_int_equal(err.code, ERR_CORRUPT);
            }
        }
        /* Random garbage of every length up to 64. */
        for (size_t len = 0; len < 64; len++) {
            for (size_t k = 0; k < len; k++)
                copy[k] = (uint8_t)rnd();
            (void)decompress_exact(ctx, c, copy, len < out.len ? len : out.len, 600, NULL, &err);
            (void)decompress_exact(ctx, c, copy, len < out.len ? len : out.len, 3, NULL, &err);
        }
        free(copy);
    }
    /* A flip in a gzip or zstd page is always caught by the checksum or
     * the format (zstd: the content size; gzip: CRC32 and ISIZE). */
    compress_ok(ctx, PQ_GZIP, 0, src, 600, &out);
    for (size_t pos = 0; pos < out.len; pos++) {
        uint8_t *copy = malloc(out.len);
        memcpy(copy, out.data, out.len);
        copy[pos] ^= 0x55;
        uint8_t *dst;
        int rc = decompress_exact(ctx, PQ_GZIP, copy, out.len, 600, &dst, &err);
        /* Header bytes like MTIME or OS may change harmlessly. */
        if (rc == 0)
            assert_memory_equal(dst, src, 600);
        free(dst);
        free(copy);
    }
    buf_free(&out);
    free(src);
    pq_codec_ctx_free(ctx);
}

static void test_gzip_members_and_zlib(void **state)
{
    (void)state;
    struct pq_codec_ctx *ctx = pq_codec_ctx_new();
    struct buf a = BUF_INIT, b = BUF_INIT;
    struct error err = {0};
    compress_ok(ctx, PQ_GZIP, 0, "hello ", 6, &a);
    compress_ok(ctx, PQ_GZIP, 0, "gzip world", 10, &b);
    /* The output really is gzip. */
    assert_int_equal((uint8_t)a.data[0], 0x1f);
    assert_int_equal((uint8_t)a.data[1], 0x8b);
    buf_append(&a, b.data, b.len);
    buf_append(&a, b.data, b.len);
    uint8_t *dst;
    assert_int_equal(decompress_exact(ctx, PQ_GZIP, a.data, a.len, 26, &dst, &err), 0);
    assert_memory_equal(dst, "hello gzip worldgzip world", 26);
    free(dst);
    /* Sizes must still match across members. */
    assert_int_equal(decompress_exact(ctx, PQ_GZIP, a.data, a.len, 25, NULL, &err), -1);
    assert_int_equal(decompress_exact(ctx, PQ_GZIP, a.data, a.len, 27, NULL, &err), -1);
    /* An empty member among others. */
    struct buf e = BUF_INIT;
    compress_ok(ctx, PQ_GZIP, 0, "", 0, &e);
    buf_append(&e, b.data, b.len);
    assert_int_equal(decompress_exact(ctx, PQ_GZIP, e.data, e.len, 10, &dst, &err), 0);
    assert_memory_equal(dst, "gzip world", 10);
    free(dst);
    /* Trailing garbage after a member is corrupt. */
    buf_append(&e, "junk", 4);
    assert_int_equal(decompress_exact(ctx, PQ_GZIP, e.data, e.len, 10, NULL, &err), -1);
    assert_int_equal(err.code, ERR_CORRUPT);

    /* zlib-wrapped data is accepted too. */
    const char *text = "zlib framed, not gzip framed";
    uLongf zlen = compressBound((uLong)strlen(text));
    Bytef *z = malloc(zlen);
    assert_int_equal(compress2(z, &zlen, (const Bytef *)text, (uLong)strlen(text), 6), Z_OK);
    assert_int_equal(decompress_exact(ctx, PQ_GZIP, z, zlen, strlen(text), &dst, &err), 0);
    assert_memory_equal(dst, text, strlen(text));
    free(dst);
    free(z);
    buf_free(&a);
    buf_free(&b);
    buf_free(&e);
    pq_codec_ctx_free(ctx);
}

static void test_context_reuse(void **state)
{
    (void)state;
    /* One context across many pages and codecs, interleaved, including
     * failed calls in between. */
    struct pq_codec_ctx *ctx = pq_codec_ctx_new();
    struct error err = {0};
    struct buf out = BUF_INIT;
    for (int round = 0; round < 200; round++) {
        size_t n = rnd() % 5000;
        uint8_t *src = rnd() % 2 ? random_bytes(n) : repetitive_bytes(n);
        enum pq_codec c = writable[rnd() % ARRAY_LEN(writable)];
        compress_ok(ctx, c, 0, src, n, &out);
        uint8_t *dst;
        if (decompress_exact(ctx, c, out.data, out.len, n, &dst, &err) != 0)
            fail_msg("round %d %s: %s", round, pq_codec_name((int)c), err.msg);
        if (n)
            assert_memory_equal(dst, src, n);
        free(dst);
        if (out.len > 2)
            (void)decompress_exact(ctx, c, out.data, out.len / 2, n, NULL, &err);
        free(src);
    }
    buf_free(&out);
    pq_codec_ctx_free(ctx);
    pq_codec_ctx_free(NULL);
}

static void test_empty_and_mismatched(void **state)
{
    (void)state;
    struct error err = {0};
    char dst[4];
    for (size_t i = 0; i < ARRAY_LEN(writable); i++) {
        /* No bytes for an empty page is fine; for a non-empty one not. */
        assert_int_equal(pq_decompress(NULL, writable[i], NULL, 0, NULL, 0, &err), 0);
        assert_int_equal(pq_decompress(NULL, writable[i], NULL, 0, dst, 4, &err), -1);
        assert_int_equal(err.code, ERR_CORRUPT);
    }
    assert_int_equal(pq_decompress(NULL, PQ_UNCOMPRESSED, "abcd", 4, dst, 3, &err), -1);
    assert_int_equal(pq_decompress(NULL, PQ_UNCOMPRESSED, "abc", 3, dst, 4, &err), -1);
    assert_int_equal(pq_decompress(NULL, PQ_UNCOMPRESSED, "abcd", 4, dst, 4, &err), 0);
    assert_memory_equal(dst, "abcd", 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),      cmocka_unit_test(test_zstd_levels),
        cmocka_unit_test(test_compress_appends), cmocka_unit_test(test_unsupported_codecs),
        cmocka_unit_test(test_corrupt_input),    cmocka_unit_test(test_gzip_members_and_zlib),
        cmocka_unit_test(test_context_reuse),    cmocka_unit_test(test_empty_and_mismatched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
