/* Page compression; see compress.h. */
#include "parquet/compress.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <brotli/decode.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "util/bytes.h"

#define ZSTD_DEFAULT_LEVEL 3

struct pq_codec_ctx {
    ZSTD_CCtx *zc;
    ZSTD_DCtx *zd;
    /* zlib streams are set up once and reset per page: deflateInit
     * allocates a few hundred KiB. */
    z_stream def, inf;
    bool def_ready, inf_ready;
};

struct pq_codec_ctx *pq_codec_ctx_new(void)
{
    return calloc(1, sizeof(struct pq_codec_ctx));
}

static void ctx_release(struct pq_codec_ctx *ctx)
{
    ZSTD_freeCCtx(ctx->zc);
    ZSTD_freeDCtx(ctx->zd);
    if (ctx->def_ready)
        deflateEnd(&ctx->def);
    if (ctx->inf_ready)
        inflateEnd(&ctx->inf);
}

void pq_codec_ctx_free(struct pq_codec_ctx *ctx)
{
    if (!ctx)
        return;
    ctx_release(ctx);
    free(ctx);
}

bool pq_codec_can_write(enum pq_codec codec)
{
    switch (codec) {
    case PQ_UNCOMPRESSED:
    case PQ_SNAPPY:
    case PQ_GZIP:
    case PQ_ZSTD:
    case PQ_LZ4_RAW: return true;
    default: return false;
    }
}

/* LZ4 and BROTLI are read for the files other writers made, not written:
 * LZ4 is deprecated (its framing was never specified), and BROTLI is rare
 * enough that ZSTD serves anyone who wants a strong codec. */
bool pq_codec_can_read(enum pq_codec codec)
{
    return pq_codec_can_write(codec) || codec == PQ_LZ4 || codec == PQ_BROTLI;
}

static int unsupported(enum pq_codec codec, struct error *err)
{
    switch (codec) {
    case PQ_LZ4:
        return error_fail(err, ERR_UNSUPPORTED,
                          "codec LZ4 (the deprecated Hadoop-framed LZ4) is read but not written; "
                          "LZ4_RAW is both");
    case PQ_BROTLI: return error_fail(err, ERR_UNSUPPORTED, "codec BROTLI is read but not written");
    case PQ_LZO:
        return error_fail(err, ERR_UNSUPPORTED, "codec %s is not supported",
                          pq_codec_name((int)codec));
    default: return error_fail(err, ERR_UNSUPPORTED, "unknown codec %d", (int)codec);
    }
}

static int nomem(const char *what, struct error *err)
{
    return error_fail(err, ERR_NOMEM, "out of memory in %s", what);
}

/* ---- compression ---- */

int pq_codec_check_level(enum pq_codec codec, int level, struct error *err)
{
    if (codec == PQ_ZSTD && level != 0 && (level < 1 || level > ZSTD_maxCLevel()))
        return error_fail(err, ERR_INVALID, "ZSTD level %d out of range 1..%d", level,
                          ZSTD_maxCLevel());
    return 0;
}

static int zstd_compress(struct pq_codec_ctx *ctx, int level, const void *src, size_t n,
                         struct buf *out, struct error *err)
{
    if (pq_codec_check_level(PQ_ZSTD, level, err) != 0)
        return -1;
    if (level == 0)
        level = ZSTD_DEFAULT_LEVEL;
    if (!ctx->zc && !(ctx->zc = ZSTD_createCCtx()))
        return nomem("ZSTD", err);
    size_t bound = ZSTD_compressBound(n);
    if (ZSTD_isError(bound))
        return error_fail(err, ERR_INVALID, "page of %zu bytes too large for ZSTD", n);
    if (buf_reserve(out, bound) != 0)
        return nomem("ZSTD", err);
    size_t r = ZSTD_compressCCtx(ctx->zc, out->data + out->len, bound, src, n, level);
    if (ZSTD_isError(r))
        return error_fail(err, ERR_INVALID, "ZSTD compression failed: %s", ZSTD_getErrorName(r));
    out->len += r;
    out->data[out->len] = '\0';
    return 0;
}

static int snappy_compress_page(const void *src, size_t n, struct buf *out, struct error *err)
{
    /* The format stores the uncompressed length as a 32-bit varint. */
    if (n > UINT32_MAX)
        return error_fail(err, ERR_INVALID, "page of %zu bytes too large for SNAPPY", n);
    size_t bound = snappy_max_compressed_length(n);
    if (buf_reserve(out, bound) != 0)
        return nomem("SNAPPY", err);
    size_t got = bound;
    if (snappy_compress(src, n, out->data + out->len, &got) != SNAPPY_OK)
        return error_fail(err, ERR_INVALID, "SNAPPY compression failed");
    out->len += got;
    out->data[out->len] = '\0';
    return 0;
}

static int gzip_compress(struct pq_codec_ctx *ctx, const void *src, size_t n, struct buf *out,
                         struct error *err)
{
    z_stream *z = &ctx->def;
    if (!ctx->def_ready) {
        memset(z, 0, sizeof *z);
        /* 15 + 16: a gzip header and trailer rather than zlib's. */
        if (deflateInit2(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
            Z_OK)
            return nomem("GZIP", err);
        ctx->def_ready = true;
    } else if (deflateReset(z) != Z_OK) {
        return error_fail(err, ERR_INVALID, "GZIP: deflateReset failed");
    }
    /* deflateBound covers the whole output, so normally one pass; the
     * loop also feeds inputs larger than zlib's 32-bit counters. */
    size_t bound = n <= ULONG_MAX ? deflateBound(z, (uLong)n) : n + n / 1000 + 64;
    if (buf_reserve(out, bound) != 0)
        return nomem("GZIP", err);
    const unsigned char *in = src;
    size_t in_left = n;
    for (;;) {
        if (out->cap - out->len - 1 < 64 && buf_reserve(out, out->cap) != 0)
            return nomem("GZIP", err);
        uInt in_chunk = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
        size_t room = out->cap - out->len - 1;
        uInt out_chunk = room > UINT_MAX ? UINT_MAX : (uInt)room;
        z->next_in = (Bytef *)(uintptr_t)in;
        z->avail_in = in_chunk;
        z->next_out = (Bytef *)out->data + out->len;
        z->avail_out = out_chunk;
        int rc = deflate(z, in_chunk == in_left ? Z_FINISH : Z_NO_FLUSH);
        in += in_chunk - z->avail_in;
        in_left -= in_chunk - z->avail_in;
        out->len += out_chunk - z->avail_out;
        if (rc == Z_STREAM_END)
            break;
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return error_fail(err, ERR_INVALID, "GZIP compression failed (%d)", rc);
    }
    out->data[out->len] = '\0';
    return 0;
}

static int lz4_compress_page(const void *src, size_t n, struct buf *out, struct error *err)
{
    if (n > LZ4_MAX_INPUT_SIZE)
        return error_fail(err, ERR_INVALID, "page of %zu bytes too large for LZ4_RAW", n);
    int bound = LZ4_compressBound((int)n);
    if (buf_reserve(out, (size_t)bound) != 0)
        return nomem("LZ4_RAW", err);
    int got = LZ4_compress_default(src, out->data + out->len, (int)n, bound);
    if (got <= 0)
        return error_fail(err, ERR_INVALID, "LZ4_RAW compression failed");
    out->len += (size_t)got;
    out->data[out->len] = '\0';
    return 0;
}

static int compress_with(struct pq_codec_ctx *ctx, enum pq_codec codec, int level, const void *src,
                         size_t n, struct buf *out, struct error *err)
{
    switch (codec) {
    case PQ_UNCOMPRESSED:
        if (buf_append(out, src, n) != 0)
            return nomem("UNCOMPRESSED", err);
        return 0;
    case PQ_ZSTD: return zstd_compress(ctx, level, src, n, out, err);
    case PQ_SNAPPY: return snappy_compress_page(src, n, out, err);
    case PQ_GZIP: return gzip_compress(ctx, src, n, out, err);
    case PQ_LZ4_RAW: return lz4_compress_page(src, n, out, err);
    default: return unsupported(codec, err);
    }
}

int pq_compress(struct pq_codec_ctx *ctx, enum pq_codec codec, int level, const void *src, size_t n,
                struct buf *out, struct error *err)
{
    static const char empty[1];
    if (!src)
        src = empty; /* the libraries dislike NULL even for 0 bytes */
    const size_t start = out->len;
    int rc;
    if (ctx) {
        rc = compress_with(ctx, codec, level, src, n, out, err);
    } else {
        struct pq_codec_ctx tmp = {0};
        rc = compress_with(&tmp, codec, level, src, n, out, err);
        ctx_release(&tmp);
    }
    if (rc != 0) {
        /* Drop any partial output. */
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
    }
    return rc;
}

/* ---- decompression ---- */

static int corrupt(enum pq_codec codec, const char *why, struct error *err)
{
    return error_fail(err, ERR_CORRUPT, "%s page does not decompress: %s",
                      pq_codec_name((int)codec), why);
}

static int zstd_decompress(struct pq_codec_ctx *ctx, const void *src, size_t n, void *dst,
                           size_t dst_len, struct error *err)
{
    if (!ctx->zd && !(ctx->zd = ZSTD_createDCtx()))
        return nomem("ZSTD", err);
    /* Decodes every frame present (concatenated frames are valid) into
     * dst, and fails rather than write past dst_len. */
    size_t r = ZSTD_decompressDCtx(ctx->zd, dst, dst_len, src, n);
    if (ZSTD_isError(r))
        return corrupt(PQ_ZSTD, ZSTD_getErrorName(r), err);
    if (r != dst_len)
        return corrupt(PQ_ZSTD, "shorter than the page's uncompressed size", err);
    return 0;
}

static int snappy_decompress_page(const void *src, size_t n, void *dst, size_t dst_len,
                                  struct error *err)
{
    size_t want;
    if (snappy_uncompressed_length(src, n, &want) != SNAPPY_OK)
        return corrupt(PQ_SNAPPY, "bad length header", err);
    if (want != dst_len)
        return corrupt(PQ_SNAPPY, "length differs from the page's uncompressed size", err);
    size_t got = dst_len;
    if (snappy_uncompress(src, n, dst, &got) != SNAPPY_OK || got != dst_len)
        return corrupt(PQ_SNAPPY, "malformed data", err);
    return 0;
}

static int gzip_decompress(struct pq_codec_ctx *ctx, const void *src, size_t n, void *dst,
                           size_t dst_len, struct error *err)
{
    z_stream *z = &ctx->inf;
    if (!ctx->inf_ready) {
        memset(z, 0, sizeof *z);
        /* 15 + 32: accept a gzip or a zlib header. */
        if (inflateInit2(z, 15 + 32) != Z_OK)
            return nomem("GZIP", err);
        ctx->inf_ready = true;
    } else if (inflateReset(z) != Z_OK) {
        return corrupt(PQ_GZIP, "inflateReset failed", err);
    }
    const unsigned char *in = src;
    unsigned char *out = dst;
    size_t in_left = n, out_left = dst_len;
    for (;;) {
        uInt in_chunk = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
        uInt out_chunk = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
        z->next_in = (Bytef *)(uintptr_t)in;
        z->avail_in = in_chunk;
        z->next_out = out;
        z->avail_out = out_chunk;
        int rc = inflate(z, Z_NO_FLUSH);
        size_t used = in_chunk - z->avail_in, made = out_chunk - z->avail_out;
        in += used;
        in_left -= used;
        out += made;
        out_left -= made;
        if (rc == Z_STREAM_END) {
            if (in_left == 0)
                break;
            /* Another gzip member follows (writers may concatenate). */
            if (inflateReset(z) != Z_OK)
                return corrupt(PQ_GZIP, "inflateReset failed", err);
            continue;
        }
        if (rc == Z_MEM_ERROR)
            return nomem("GZIP", err);
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return corrupt(PQ_GZIP, z->msg ? z->msg : "malformed data", err);
        if (used == 0 && made == 0) {
            /* No progress: out of input mid-stream, or out of room. */
            return corrupt(PQ_GZIP,
                           out_left == 0 ? "longer than the page's uncompressed size" : "truncated",
                           err);
        }
    }
    if (out_left != 0)
        return corrupt(PQ_GZIP, "shorter than the page's uncompressed size", err);
    return 0;
}

static int lz4_decompress_page(const void *src, size_t n, void *dst, size_t dst_len,
                               struct error *err)
{
    if (n > INT_MAX || dst_len > INT_MAX)
        return corrupt(PQ_LZ4_RAW, "page too large", err);
    int got = LZ4_decompress_safe(src, dst, (int)n, (int)dst_len);
    if (got < 0 || (size_t)got != dst_len)
        return corrupt(PQ_LZ4_RAW, got < 0 ? "malformed data" : "wrong uncompressed size", err);
    return 0;
}

/* ---- the deprecated LZ4 codec ----
 *
 * Parquet never specified codec LZ4's framing. parquet-mr wrote it through
 * Hadoop's Lz4Codec, whose block stream is a sequence of blocks, each a
 * 4-byte big-endian uncompressed length followed by one or more chunks
 * ([4-byte big-endian compressed length][LZ4 block]) that decompress to
 * that length; Arrow C++ writes the same with one chunk per block. Older
 * Arrow C++ wrote one bare LZ4 block. Nothing marks which one a page is,
 * so, as Arrow C++ does, the Hadoop reading is tried first and must add up
 * exactly (every length within the input and the page, every chunk
 * decompressing to what it claims, the input used to its last byte, the
 * page filled); otherwise the page is read as one bare LZ4 block. */

/* A cursor over the page's bytes and the output still to fill. */
struct lz4_hadoop_cursor {
    const uint8_t *in;
    size_t in_left;
    uint8_t *out;
    size_t out_left;
};

static bool take_be32(struct lz4_hadoop_cursor *c, uint32_t *v)
{
    if (c->in_left < 4)
        return false;
    *v = be_load32(c->in);
    c->in += 4;
    c->in_left -= 4;
    return true;
}

/* Decompresses one chunk into at most `room` bytes of c->out; returns the
 * bytes made, or -1 when the chunk is not a whole LZ4 block within the
 * input. An empty chunk (the zero lengths some writers end with) makes
 * nothing. */
static int hadoop_chunk(struct lz4_hadoop_cursor *c, size_t room)
{
    uint32_t clen;
    if (!take_be32(c, &clen) || clen > c->in_left || clen > INT_MAX)
        return -1;
    int made = 0;
    if (clen > 0) {
        /* LZ4 counts in int; a block never makes more than INT_MAX. */
        int cap = room > INT_MAX ? INT_MAX : (int)room;
        made = LZ4_decompress_safe((const char *)c->in, (char *)c->out, (int)clen, cap);
        if (made < 0)
            return -1;
    }
    c->in += clen;
    c->in_left -= clen;
    return made;
}

/* One outer block: its uncompressed length, then at least one chunk,
 * chunks until they have made exactly that length. */
static bool hadoop_block(struct lz4_hadoop_cursor *c)
{
    uint32_t want;
    if (!take_be32(c, &want) || want > c->out_left)
        return false;
    size_t made = 0;
    do {
        int got = hadoop_chunk(c, want - made);
        if (got < 0)
            return false;
        made += (size_t)got;
        c->out += got;
        c->out_left -= (size_t)got;
    } while (made < want);
    return true;
}

/* Whether the page reads as Hadoop-framed LZ4 filling dst exactly. Each
 * chunk takes at least 4 input bytes, so the loops end. */
static bool lz4_hadoop_decompress(const void *src, size_t n, void *dst, size_t dst_len)
{
    struct lz4_hadoop_cursor c = {src, n, dst, dst_len};
    while (c.in_left > 0)
        if (!hadoop_block(&c))
            return false;
    return c.out_left == 0;
}

static int lz4_legacy_decompress(const void *src, size_t n, void *dst, size_t dst_len,
                                 struct error *err)
{
    if (lz4_hadoop_decompress(src, n, dst, dst_len))
        return 0;
    /* Not Hadoop framing: one bare block (what dst held from the failed
     * attempt is overwritten). */
    if (n <= INT_MAX && dst_len <= INT_MAX) {
        int got = LZ4_decompress_safe(src, dst, (int)n, (int)dst_len);
        if (got >= 0 && (size_t)got == dst_len)
            return 0;
    }
    return corrupt(PQ_LZ4,
                   "neither Hadoop-framed LZ4 blocks nor one LZ4 block of the page's "
                   "uncompressed size",
                   err);
}

/* ---- BROTLI ---- */

static bool brotli_alloc_error(BrotliDecoderErrorCode e)
{
    return e <= BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES &&
           e >= BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES;
}

/* The decoder has no reset, so one instance per page; it allocates its
 * window (at most 16 MiB, as large windows stay off) as the stream asks. */
static int brotli_decompress(const void *src, size_t n, void *dst, size_t dst_len,
                             struct error *err)
{
    BrotliDecoderState *s = BrotliDecoderCreateInstance(NULL, NULL, NULL);
    if (!s)
        return nomem("BROTLI", err);
    const uint8_t *in = src;
    uint8_t *out = dst;
    size_t in_left = n, out_left = dst_len;
    /* All the input and all the room at once: one call runs to the end of
     * the stream, or to where it needs what it cannot have. */
    BrotliDecoderResult r = BrotliDecoderDecompressStream(s, &in_left, &in, &out_left, &out, NULL);
    int rc = 0;
    if (r == BROTLI_DECODER_RESULT_SUCCESS) {
        if (in_left != 0)
            rc = corrupt(PQ_BROTLI, "bytes after the end of the stream", err);
        else if (out_left != 0)
            rc = corrupt(PQ_BROTLI, "shorter than the page's uncompressed size", err);
    } else if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
        rc = corrupt(PQ_BROTLI, "longer than the page's uncompressed size", err);
    } else if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
        rc = corrupt(PQ_BROTLI, "truncated", err);
    } else {
        BrotliDecoderErrorCode e = BrotliDecoderGetErrorCode(s);
        rc = brotli_alloc_error(e) ? nomem("BROTLI", err)
                                   : corrupt(PQ_BROTLI, BrotliDecoderErrorString(e), err);
    }
    BrotliDecoderDestroyInstance(s);
    return rc;
}

static int decompress_with(struct pq_codec_ctx *ctx, enum pq_codec codec, const void *src, size_t n,
                           void *dst, size_t dst_len, struct error *err)
{
    switch (codec) {
    case PQ_UNCOMPRESSED:
        if (n != dst_len)
            return corrupt(codec, "size differs from the page's uncompressed size", err);
        if (n)
            memcpy(dst, src, n);
        return 0;
    case PQ_ZSTD: return zstd_decompress(ctx, src, n, dst, dst_len, err);
    case PQ_SNAPPY: return snappy_decompress_page(src, n, dst, dst_len, err);
    case PQ_GZIP: return gzip_decompress(ctx, src, n, dst, dst_len, err);
    case PQ_LZ4_RAW: return lz4_decompress_page(src, n, dst, dst_len, err);
    case PQ_LZ4: return lz4_legacy_decompress(src, n, dst, dst_len, err);
    case PQ_BROTLI: return brotli_decompress(src, n, dst, dst_len, err);
    default: return unsupported(codec, err);
    }
}

int pq_decompress(struct pq_codec_ctx *ctx, enum pq_codec codec, const void *src, size_t n,
                  void *dst, size_t dst_len, struct error *err)
{
    static const char empty[1];
    if (!pq_codec_can_read(codec))
        return unsupported(codec, err);
    if (n == 0) {
        /* Nothing compressed: only an empty page is consistent with it. */
        if (dst_len != 0)
            return corrupt(codec, "no data", err);
        return 0;
    }
    char spare;
    if (!src)
        src = empty;
    if (!dst)
        dst = &spare; /* only for dst_len 0; keeps NULL away from the libraries */
    if (ctx)
        return decompress_with(ctx, codec, src, n, dst, dst_len, err);
    struct pq_codec_ctx tmp = {0};
    int rc = decompress_with(&tmp, codec, src, n, dst, dst_len, err);
    ctx_release(&tmp);
    return rc;
}
