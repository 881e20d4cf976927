/* Page compression: ZSTD, SNAPPY, GZIP, LZ4_RAW and UNCOMPRESSED both
 * ways; the deprecated LZ4 (Hadoop-framed, or a bare block) and BROTLI
 * read only.
 *
 * A pq_codec_ctx caches the codec libraries' state (ZSTD contexts) across
 * calls; it belongs to one writer or reader and is not thread-safe. */
#ifndef HL_PARQUET_COMPRESS_H
#define HL_PARQUET_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "parquet/pq.h"
#include "util/buf.h"

struct pq_codec_ctx;

struct pq_codec_ctx *pq_codec_ctx_new(void);
void pq_codec_ctx_free(struct pq_codec_ctx *ctx);

/* Whether this build can write / read the codec. */
bool pq_codec_can_write(enum pq_codec codec);
bool pq_codec_can_read(enum pq_codec codec);

/* Checks a compression level for the codec (ZSTD: 0 = the default 3, or
 * 1..22; the other codecs take any level and ignore it). */
int pq_codec_check_level(enum pq_codec codec, int level, struct error *err);

/* Appends the compressed form of src to out. level is the ZSTD level (1..22;
 * 0 = the default 3) and is ignored by the other codecs. */
int pq_compress(struct pq_codec_ctx *ctx, enum pq_codec codec, int level, const void *src, size_t n,
                struct buf *out, struct error *err);

/* Decompresses src into dst, which must come out exactly dst_len bytes
 * long (the page header's uncompressed size); anything else is corrupt. */
int pq_decompress(struct pq_codec_ctx *ctx, enum pq_codec codec, const void *src, size_t n,
                  void *dst, size_t dst_len, struct error *err);

#endif
