/* The read-only codecs: the deprecated LZ4 (Hadoop-framed blocks, or one
 * bare LZ4 block, told apart per page) and BROTLI. Compressed input is
 * made here with liblz4 and libbrotlienc, the way parquet-mr (Hadoop's
 * Lz4Codec), Arrow C++ and older Arrow C++ write it, then read through
 * pq_decompress and, as whole files, through pq_reader_*; the oracle is
 * always the uncompressed original. Corrupt framing must come back as
 * ERR_CORRUPT, and inputs are exact-size heap copies so a sanitizer
 * build catches any over-read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <brotli/encode.h>
#include <cmocka.h>
#include <lz4.h>

#include "parquet/compress.h"
#include "parquet/encoding.h"
#include "parquet/reader.h"
#include "pq_shapes.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- inputs ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint8_t rnd_byte(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint8_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 56);
}

/* Text-like runs with random stretches: compressible, but not trivially. */
static uint8_t *sample_bytes(size_t n)
{
    static const char text[] = "parquet pages compressed by another writer; ";
    uint8_t *p = malloc(n ? n : 1);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = i % 1000 < 700 ? (uint8_t)text[i % (sizeof text - 1)] : rnd_byte();
    return p;
}

static void put_be32(struct buf *b, uint32_t v)
{
    uint8_t be[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    assert_int_equal(buf_append(b, be, 4), 0);
}

/* Appends one bare LZ4 block of src (what older Arrow C++ wrote). */
static void lz4_block(const uint8_t *src, size_t n, struct buf *out)
{
    int bound = LZ4_compressBound((int)n);
    assert_int_equal(buf_reserve(out, (size_t)bound), 0);
    int got = LZ4_compress_default((const char *)src, out->data + out->len, (int)n, bound);
    assert_true(got > 0);
    out->len += (size_t)got;
}

/* Hadoop's block stream: per block of at most block_size bytes, its
 * length, then per chunk of at most chunk_size bytes of it, the chunk's
 * compressed length and LZ4 block. chunk_size >= block_size gives Arrow
 * C++'s one chunk per block. */
static void lz4_hadoop(const uint8_t *src, size_t n, size_t block_size, size_t chunk_size,
                       struct buf *out)
{
    size_t at = 0;
    do {
        size_t block = n - at < block_size ? n - at : block_size;
        put_be32(out, (uint32_t)block);
        size_t done = 0;
        do {
            size_t chunk = block - done < chunk_size ? block - done : chunk_size;
            size_t len_at = out->len;
            put_be32(out, 0); /* patched below */
            lz4_block(src + at + done, chunk, out);
            uint32_t clen = (uint32_t)(out->len - len_at - 4);
            uint8_t *p = (uint8_t *)out->data + len_at;
            p[0] = (uint8_t)(clen >> 24);
            p[1] = (uint8_t)(clen >> 16);
            p[2] = (uint8_t)(clen >> 8);
            p[3] = (uint8_t)clen;
            done += chunk;
        } while (done < block);
        at += block;
    } while (at < n);
}

static void brotli(const uint8_t *src, size_t n, int quality, struct buf *out)
{
    size_t cap = BrotliEncoderMaxCompressedSize(n);
    assert_true(cap > 0);
    assert_int_equal(buf_reserve(out, cap), 0);
    size_t got = cap;
    assert_true(BrotliEncoderCompress(quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, n, src,
                                      &got, (uint8_t *)out->data + out->len));
    out->len += got;
}

/* ---- decompression through compress.c ---- */

/* Decompresses an exact-size copy of src into an exact-size block. */
static int decompress_exact(enum pq_codec c, const void *src, size_t n, size_t dst_len,
                            uint8_t **out, struct error *err)
{
    uint8_t *in = malloc(n ? n : 1);
    assert_non_null(in);
    if (n)
        memcpy(in, src, n);
    uint8_t *dst = malloc(dst_len ? dst_len : 1);
    assert_non_null(dst);
    int rc = pq_decompress(NULL, c, in, n, dst, dst_len, err);
    free(in);
    if (out)
        *out = dst;
    else
        free(dst);
    return rc;
}

static void expect_decodes(enum pq_codec c, const struct buf *z, const uint8_t *want, size_t n,
                           const char *what)
{
    struct error err = {0};
    uint8_t *got;
    if (decompress_exact(c, z->data, z->len, n, &got, &err) != 0)
        fail_msg("%s (%zu bytes): %s", what, n, err.msg);
    assert_memory_equal(got, want, n);
    free(got);
}

static void expect_corrupt(enum pq_codec c, const void *z, size_t len, size_t dst_len,
                           const char *what)
{
    struct error err = {0};
    if (decompress_exact(c, z, len, dst_len, NULL, &err) == 0)
        fail_msg("%s: %zu bytes decoded to %zu", what, len, dst_len);
    if (err.code != ERR_CORRUPT)
        fail_msg("%s: error %d (%s), expected CORRUPT", what, (int)err.code, err.msg);
}

static const size_t sizes[] = {1, 7, 100, 4096, 65536, 300000};

static void test_lz4_hadoop_round_trips(void **state)
{
    (void)state;
    /* (block, chunk): one chunk in one block (Arrow C++), several blocks
     * of one chunk, one block of several chunks (Hadoop's stream when a
     * write exceeds its buffer), several of both. */
    const size_t shapes[][2] = {
        {SIZE_MAX, SIZE_MAX}, {65536, 65536}, {SIZE_MAX, 4096}, {100000, 30000}};
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        uint8_t *src = sample_bytes(sizes[s]);
        for (size_t k = 0; k < ARRAY_LEN(shapes); k++) {
            struct buf z = BUF_INIT;
            lz4_hadoop(src, sizes[s], shapes[k][0], shapes[k][1], &z);
            expect_decodes(PQ_LZ4, &z, src, sizes[s], "Hadoop LZ4");
            /* The zero lengths some Hadoop-compatible writers end with. */
            put_be32(&z, 0);
            put_be32(&z, 0);
            expect_decodes(PQ_LZ4, &z, src, sizes[s], "Hadoop LZ4 with an empty last block");
            buf_free(&z);
        }
        free(src);
    }
}

/* The framing is what is read, not a lucky bare block: the framed bytes
 * do not decode as LZ4_RAW. */
static void test_lz4_hadoop_is_not_raw(void **state)
{
    (void)state;
    uint8_t *src = sample_bytes(5000);
    struct buf z = BUF_INIT;
    lz4_hadoop(src, 5000, SIZE_MAX, 1000, &z);
    expect_corrupt(PQ_LZ4_RAW, z.data, z.len, 5000, "Hadoop framing read as LZ4_RAW");
    expect_decodes(PQ_LZ4, &z, src, 5000, "Hadoop LZ4, five chunks");
    buf_free(&z);
    free(src);
}

static void test_lz4_bare_block(void **state)
{
    (void)state;
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        uint8_t *src = sample_bytes(sizes[s]);
        struct buf z = BUF_INIT;
        lz4_block(src, sizes[s], &z);
        expect_decodes(PQ_LZ4, &z, src, sizes[s], "bare LZ4 block");
        buf_free(&z);
        free(src);
    }
    /* An empty page's bare block is one zero byte. */
    struct buf z = BUF_INIT;
    lz4_block((const uint8_t *)"", 0, &z);
    expect_decodes(PQ_LZ4, &z, (const uint8_t *)"", 0, "empty bare LZ4 block");
    buf_free(&z);
}

static void set_be32(struct buf *z, size_t at, uint32_t v)
{
    uint8_t *p = (uint8_t *)z->data + at;
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get_be32(const struct buf *z, size_t at)
{
    const uint8_t *p = (const uint8_t *)z->data + at;
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void test_lz4_corrupt(void **state)
{
    (void)state;
    const size_t n = 3000;
    uint8_t *src = sample_bytes(n);
    struct buf z = BUF_INIT;
    /* Two blocks of 1500 bytes, one chunk each. */
    lz4_hadoop(src, n, 1500, 1500, &z);
    expect_decodes(PQ_LZ4, &z, src, n, "two blocks");
    const size_t block2 = 8 + get_be32(&z, 4);

    /* The page's uncompressed size disagrees with the blocks'. */
    expect_corrupt(PQ_LZ4, z.data, z.len, n - 1, "page size one short");
    expect_corrupt(PQ_LZ4, z.data, z.len, n + 1, "page size one long");
    expect_corrupt(PQ_LZ4, z.data, z.len, 1500, "page size of one block");

    struct buf bad = BUF_INIT;
    const struct {
        size_t at;
        uint32_t value;
        const char *what;
    } edits[] = {
        {4, get_be32(&z, 4) + 1, "compressed length one past its block"},
        {block2 + 4, get_be32(&z, block2 + 4) + 1, "last compressed length past the buffer"},
        {4, 0xFFFFFFFFu, "compressed length 4 GiB"},
        {0, 0xFFFFFFFFu, "uncompressed length 4 GiB"},
        {0, 1499, "block claims one byte less than its chunk makes"},
        {0, 1501, "block claims one byte more than its chunk makes"},
        {block2, 3000, "second block claims the whole page"},
    };
    for (size_t i = 0; i < ARRAY_LEN(edits); i++) {
        buf_reset(&bad);
        assert_int_equal(buf_append(&bad, z.data, z.len), 0);
        set_be32(&bad, edits[i].at, edits[i].value);
        expect_corrupt(PQ_LZ4, bad.data, bad.len, n, edits[i].what);
    }
    /* Blocks that each disagree but add up to the page: 1499 + 1501. */
    buf_reset(&bad);
    assert_int_equal(buf_append(&bad, z.data, z.len), 0);
    set_be32(&bad, 0, 1499);
    set_be32(&bad, block2, 1501);
    expect_corrupt(PQ_LZ4, bad.data, bad.len, n, "lengths moved between blocks");
    /* A trailing byte after the last block. */
    buf_reset(&bad);
    assert_int_equal(buf_append(&bad, z.data, z.len), 0);
    assert_int_equal(buf_putc(&bad, 0), 0);
    expect_corrupt(PQ_LZ4, bad.data, bad.len, n, "a byte after the last block");

    /* Every truncation, of the framed form and of a bare block. */
    for (size_t cut = 1; cut < z.len; cut++)
        expect_corrupt(PQ_LZ4, z.data, cut, n, "truncated Hadoop LZ4");
    struct buf raw = BUF_INIT;
    lz4_block(src, n, &raw);
    for (size_t cut = 1; cut < raw.len; cut++)
        expect_corrupt(PQ_LZ4, raw.data, cut, n, "truncated bare LZ4 block");

    /* Flipped bytes never crash or over-read; when noticed, corrupt. */
    struct error err = {0};
    for (size_t pos = 0; pos < z.len; pos++) {
        for (int f = 0; f < 3; f++) {
            buf_reset(&bad);
            assert_int_equal(buf_append(&bad, z.data, z.len), 0);
            bad.data[pos] ^= (char)(f == 0 ? 0xFF : f == 1 ? 0x01 : 0x80);
            if (decompress_exact(PQ_LZ4, bad.data, bad.len, n, NULL, &err) != 0)
                assert_int_equal(err.code, ERR_CORRUPT);
        }
    }
    /* Garbage of every length up to 64, against a few page sizes. */
    uint8_t junk[64];
    for (size_t len = 1; len <= sizeof junk; len++) {
        for (size_t k = 0; k < len; k++)
            junk[k] = rnd_byte();
        const size_t page_sizes[] = {0, 3, n};
        for (size_t i = 0; i < ARRAY_LEN(page_sizes); i++)
            if (decompress_exact(PQ_LZ4, junk, len, page_sizes[i], NULL, &err) != 0)
                assert_int_equal(err.code, ERR_CORRUPT);
    }
    buf_free(&raw);
    buf_free(&bad);
    buf_free(&z);
    free(src);
}

static void test_brotli_round_trips(void **state)
{
    (void)state;
    const int qualities[] = {0, 5, 11};
    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        uint8_t *src = sample_bytes(sizes[s]);
        for (size_t q = 0; q < ARRAY_LEN(qualities); q++) {
            struct buf z = BUF_INIT;
            brotli(src, sizes[s], qualities[q], &z);
            expect_decodes(PQ_BROTLI, &z, src, sizes[s], "BROTLI");
            buf_free(&z);
        }
        free(src);
    }
    struct buf z = BUF_INIT;
    brotli((const uint8_t *)"", 0, 5, &z);
    expect_decodes(PQ_BROTLI, &z, (const uint8_t *)"", 0, "empty BROTLI stream");
    buf_free(&z);
}

static void test_brotli_corrupt(void **state)
{
    (void)state;
    const size_t n = 3000;
    uint8_t *src = sample_bytes(n);
    struct buf z = BUF_INIT;
    brotli(src, n, 5, &z);
    expect_corrupt(PQ_BROTLI, z.data, z.len, n - 1, "page size one short");
    expect_corrupt(PQ_BROTLI, z.data, z.len, n + 1, "page size one long");
    for (size_t cut = 1; cut < z.len; cut++)
        expect_corrupt(PQ_BROTLI, z.data, cut, n, "truncated BROTLI");
    struct buf bad = BUF_INIT;
    assert_int_equal(buf_append(&bad, z.data, z.len), 0);
    assert_int_equal(buf_putc(&bad, 0), 0);
    expect_corrupt(PQ_BROTLI, bad.data, bad.len, n, "a byte after the stream");
    struct error err = {0};
    for (size_t pos = 0; pos < z.len; pos++) {
        buf_reset(&bad);
        assert_int_equal(buf_append(&bad, z.data, z.len), 0);
        bad.data[pos] ^= 0x5A;
        uint8_t *got;
        int rc = decompress_exact(PQ_BROTLI, bad.data, bad.len, n, &got, &err);
        if (rc != 0)
            assert_int_equal(err.code, ERR_CORRUPT);
        free(got);
    }
    expect_corrupt(PQ_BROTLI, "\xff\xff\xff\xff garbage", 13, n, "garbage");
    buf_free(&bad);
    buf_free(&z);
    free(src);
}

/* The reader's BROTLI bound (2^21:1) must admit what the encoder makes
 * of the most compressible data: 64 MiB of zeros come to ~51 bytes. */
static void test_brotli_best_ratio_decodes(void **state)
{
    (void)state;
    const size_t n = (size_t)64 << 20;
    uint8_t *zeros = calloc(n, 1);
    assert_non_null(zeros);
    struct buf z = BUF_INIT;
    brotli(zeros, n, 5, &z);
    assert_true(z.len * 2 * 1024 * 1024 + 1024 >= n);
    expect_decodes(PQ_BROTLI, &z, zeros, n, "64 MiB of zeros");
    buf_free(&z);
    free(zeros);
}

/* ---- whole files through the reader ---- */

enum framing { LZ4_HADOOP_ONE, LZ4_HADOOP_CHUNKS, LZ4_BARE, BROTLI_Q5 };

static enum pq_codec framing_codec(enum framing f)
{
    return f == BROTLI_Q5 ? PQ_BROTLI : PQ_LZ4;
}

static void compress_page(enum framing f, const struct buf *raw, struct buf *out)
{
    const uint8_t *p = (const uint8_t *)raw->data;
    switch (f) {
    case LZ4_HADOOP_ONE: lz4_hadoop(p, raw->len, SIZE_MAX, SIZE_MAX, out); break;
    case LZ4_HADOOP_CHUNKS: lz4_hadoop(p, raw->len, 1024, 256, out); break;
    case LZ4_BARE: lz4_block(p, raw->len, out); break;
    case BROTLI_Q5: brotli(p, raw->len, 5, out); break;
    }
}

enum { FILE_ROWS = 1000, ROWS_PER_PAGE = 400 };

/* The reader's expansion bounds (reader.c max_expansion), and page size
 * errors that claim exactly them or one byte more. */
static size_t expansion_bound(enum pq_codec c, size_t n)
{
    return c == PQ_BROTLI ? n * 2 * 1024 * 1024 + 1024 : n * 256 + 1024;
}
#define CLAIM_AT_BOUND INT32_MIN
#define CLAIM_PAST_BOUND (INT32_MIN + 1)

static int32_t declared_size(enum framing f, size_t raw_len, size_t body_len, int32_t size_error)
{
    if (size_error != CLAIM_AT_BOUND && size_error != CLAIM_PAST_BOUND)
        return (int32_t)raw_len + size_error;
    size_t claim = expansion_bound(framing_codec(f), body_len) + (size_error == CLAIM_PAST_BOUND);
    assert_true(claim > raw_len && claim < (size_t)1 << 30); /* under PQ_MAX_PAGE_BYTES */
    return (int32_t)claim;
}

struct file_data {
    int64_t ids[FILE_ROWS];
    bool present[FILE_ROWS];
    char names[FILE_ROWS][16];
};

static void make_data(struct file_data *d)
{
    for (int i = 0; i < FILE_ROWS; i++) {
        d->ids[i] = (int64_t)i * 7919 - 5000;
        d->present[i] = i % 5 != 3;
        snprintf(d->names[i], sizeof d->names[i], "name-%d", i % 37);
    }
}

/* A data page v1 of rows [from, to): levels (RLE, length-prefixed) when
 * the column is optional, then PLAIN values; compressed by f, and its
 * header's uncompressed size off by `size_error`. */
static void data_page(struct pq_craft *c, enum framing f, const struct file_data *d, bool names,
                      int from, int to, int32_t size_error)
{
    struct buf raw = BUF_INIT, body = BUF_INIT;
    if (names) {
        uint16_t def[FILE_ROWS];
        for (int i = from; i < to; i++)
            def[i - from] = d->present[i];
        struct buf lv = BUF_INIT;
        assert_int_equal(pq_rle_encode_u16(def, (size_t)(to - from), 1, &lv), 0);
        uint32_t len = (uint32_t)lv.len;
        assert_int_equal(buf_append(&raw, &len, 4), 0);
        assert_int_equal(buf_append(&raw, lv.data, lv.len), 0);
        buf_free(&lv);
        for (int i = from; i < to; i++) {
            if (!d->present[i])
                continue;
            uint32_t n = (uint32_t)strlen(d->names[i]);
            assert_int_equal(buf_append(&raw, &n, 4), 0);
            assert_int_equal(buf_append(&raw, d->names[i], n), 0);
        }
    } else {
        assert_int_equal(buf_append(&raw, &d->ids[from], sizeof(int64_t) * (size_t)(to - from)), 0);
    }
    compress_page(f, &raw, &body);
    struct pq_page_header h = {.type = PQ_DATA_PAGE,
                               .uncompressed_size = declared_size(f, raw.len, body.len, size_error),
                               .compressed_size = (int32_t)body.len,
                               .num_values = to - from,
                               .encoding = PQ_ENC_PLAIN,
                               .def_encoding = PQ_ENC_RLE,
                               .rep_encoding = PQ_ENC_RLE};
    pq_craft_page(c, &h, body.data, body.len);
    buf_free(&raw);
    buf_free(&body);
}

/* Two columns, required INT64 "id" and optional BYTE_ARRAY "name", of
 * FILE_ROWS rows in pages of ROWS_PER_PAGE; the last page of "name" has
 * its declared uncompressed size off by size_error. */
static void build_file(enum framing f, const struct file_data *d, int32_t size_error,
                       struct buf *out)
{
    static const char *const id_path[] = {"id"}, *const name_path[] = {"name"};
    struct pq_schema_element el[3] = {pq_el_root(2), pq_el_leaf("id", PQ_REQUIRED, PQ_INT64),
                                      pq_el_leaf("name", PQ_OPTIONAL, PQ_BYTE_ARRAY)};
    struct pq_craft c;
    pq_craft_begin(&c, out, framing_codec(f), el, ARRAY_LEN(el));
    pq_craft_group(&c, FILE_ROWS);
    for (int col = 0; col < 2; col++) {
        pq_craft_column(&c, col ? name_path : id_path, 1, col ? PQ_BYTE_ARRAY : PQ_INT64,
                        (int16_t)col, 0);
        for (int from = 0; from < FILE_ROWS; from += ROWS_PER_PAGE) {
            int to = from + ROWS_PER_PAGE < FILE_ROWS ? from + ROWS_PER_PAGE : FILE_ROWS;
            data_page(&c, f, d, col == 1, from, to, to == FILE_ROWS && col ? size_error : 0);
        }
        pq_craft_column_end(&c, FILE_ROWS);
    }
    pq_craft_finish(&c, NULL, NULL);
}

static bool bit(const void *bitmap, int i)
{
    return bitmap == NULL || (((const uint8_t *)bitmap)[i / 8] >> (i % 8) & 1);
}

static void expect_rows(const struct ArrowArray *rg, const struct file_data *d)
{
    assert_int_equal(rg->length, FILE_ROWS);
    assert_int_equal(rg->n_children, 2);
    const struct ArrowArray *ids = rg->children[0], *names = rg->children[1];
    assert_memory_equal(ids->buffers[1], d->ids, sizeof d->ids);
    const int32_t *off = names->buffers[1];
    const char *bytes = names->buffers[2];
    for (int i = 0; i < FILE_ROWS; i++) {
        int row = (int)names->offset + i;
        assert_int_equal(bit(names->buffers[0], row), d->present[i]);
        if (!d->present[i])
            continue;
        size_t len = (size_t)(off[row + 1] - off[row]);
        assert_int_equal(len, strlen(d->names[i]));
        assert_memory_equal(bytes + off[row], d->names[i], len);
    }
}

static int read_file(const struct buf *file, const struct file_data *d, struct error *err)
{
    struct pq_source src;
    pq_source_memory(&src, file->data, file->len);
    struct pq_reader *r;
    if (pq_reader_open(&src, &r, err) != 0)
        return -1;
    struct ArrowArray rg;
    int rc = pq_reader_read_row_group(r, 0, &rg, err);
    if (rc == 0) {
        expect_rows(&rg, d);
        rg.release(&rg);
    }
    pq_reader_free(r);
    return rc;
}

static const enum framing framings[] = {LZ4_HADOOP_ONE, LZ4_HADOOP_CHUNKS, LZ4_BARE, BROTLI_Q5};

static void test_files_read_back(void **state)
{
    (void)state;
    struct file_data *d = malloc(sizeof *d);
    assert_non_null(d);
    make_data(d);
    for (size_t i = 0; i < ARRAY_LEN(framings); i++) {
        struct buf file = BUF_INIT;
        build_file(framings[i], d, 0, &file);
        struct error err = {0};
        if (read_file(&file, d, &err) != 0)
            fail_msg("framing %zu: %s", i, err.msg);
        /* HL_KEEP_CODEC_FILES=dir keeps the files for a look with other
         * tools (DuckDB reads the BROTLI one; the values are the oracle). */
        const char *keep = getenv("HL_KEEP_CODEC_FILES");
        char path[512];
        snprintf(path, sizeof path, "%s/hl_codecs_legacy_%zu.parquet", keep ? keep : ".", i);
        FILE *fp = keep ? fopen(path, "wb") : NULL;
        if (fp) {
            (void)fwrite(file.data, 1, file.len, fp);
            fclose(fp);
        }
        buf_free(&file);
    }
    free(d);
}

/* A page whose declared uncompressed size disagrees with what its bytes
 * decompress to is corrupt, whichever way it is off. */
static void test_files_size_mismatch(void **state)
{
    (void)state;
    struct file_data *d = malloc(sizeof *d);
    assert_non_null(d);
    make_data(d);
    const int32_t errors[] = {-1, 1, 64};
    for (size_t i = 0; i < ARRAY_LEN(framings); i++) {
        for (size_t e = 0; e < ARRAY_LEN(errors); e++) {
            struct buf file = BUF_INIT;
            build_file(framings[i], d, errors[e], &file);
            struct error err = {0};
            if (read_file(&file, d, &err) == 0)
                fail_msg("framing %zu, size off by %d: read", i, (int)errors[e]);
            assert_int_equal(err.code, ERR_CORRUPT);
            assert_non_null(strstr(err.msg, pq_codec_name((int)framing_codec(framings[i]))));
            buf_free(&file);
        }
    }
    free(d);
}

/* A page claiming more than its codec can expand its bytes to is refused
 * before anything is allocated for it ("claims"); one claiming exactly
 * the bound gets to decompress, and is refused for not adding up. */
static void test_files_claim_past_ratio(void **state)
{
    (void)state;
    struct file_data *d = malloc(sizeof *d);
    assert_non_null(d);
    make_data(d);
    const enum framing cases[] = {LZ4_HADOOP_ONE, LZ4_BARE, BROTLI_Q5};
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        for (int past = 0; past < 2; past++) {
            struct buf file = BUF_INIT;
            build_file(cases[i], d, past ? CLAIM_PAST_BOUND : CLAIM_AT_BOUND, &file);
            struct error err = {0};
            assert_int_equal(read_file(&file, d, &err), -1);
            assert_int_equal(err.code, ERR_CORRUPT);
            if ((strstr(err.msg, "claims") != NULL) != (past == 1))
                fail_msg("framing %zu, %s the bound: %s", i, past ? "past" : "at", err.msg);
            buf_free(&file);
        }
    }
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lz4_hadoop_round_trips),
        cmocka_unit_test(test_lz4_hadoop_is_not_raw),
        cmocka_unit_test(test_lz4_bare_block),
        cmocka_unit_test(test_lz4_corrupt),
        cmocka_unit_test(test_brotli_round_trips),
        cmocka_unit_test(test_brotli_corrupt),
        cmocka_unit_test(test_brotli_best_ratio_decodes),
        cmocka_unit_test(test_files_read_back),
        cmocka_unit_test(test_files_size_mismatch),
        cmocka_unit_test(test_files_claim_past_ratio),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
