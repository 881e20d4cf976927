/* Compressed text inputs (gzip, zstd) read as plain streams: a FILE*
 * (glibc's fopencookie) that yields the decompressed bytes, so the CSV and
 * JSON readers take it unchanged. Memory stays bounded: one buffer of
 * compressed input and the codec's state. A corrupt or truncated input
 * is a read error on the stream, its reason kept for messages. */
#ifndef HL_TEXTIO_DECOMPRESS_H
#define HL_TEXTIO_DECOMPRESS_H

#include <stdio.h>

enum textio_compression { TEXTIO_PLAIN, TEXTIO_GZIP, TEXTIO_ZSTD };

/* Opens a stream of raw's bytes decompressed with c (GZIP or ZSTD; gzip
 * members may follow each other, as may zstd frames). raw stays the
 * caller's, to close after the stream. *why points at the reason of a
 * failed read ("gzip data is corrupt (...)", "truncated zstd data"; ""
 * until one fails), valid until the stream is closed. NULL when out of
 * memory. */
FILE *textio_decompress_open(FILE *raw, enum textio_compression c, const char **why);

#endif
