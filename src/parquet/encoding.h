/* Parquet value and level encodings.
 *
 * Encoders append to a struct buf and return 0, or -1 when memory runs
 * out. Decoders read from a bounded byte range and write into caller
 * buffers sized for exactly `n` values; they never read past `len`, and any
 * input that does not decode to exactly what was asked (too short, a bit
 * width out of range, a length past the end, an overflowing delta) is
 * ERR_CORRUPT. Values are little-endian, as the format defines (the
 * build targets little-endian hosts; see the static assert in encoding.c).
 *
 * Thread-safety: all functions are reentrant. */
#ifndef HL_PARQUET_ENCODING_H
#define HL_PARQUET_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/pq.h"
#include "util/buf.h"

/* Smallest bit width that holds v (0 for 0). */
int pq_bit_width(uint64_t v);

/* ---- RLE / bit-packed hybrid (levels, dictionary indices, booleans) ----
 * The raw run stream, without any length prefix; callers add the 4-byte
 * prefix where a page format wants one. bit_width is 0..32. */
int pq_rle_encode_u16(const uint16_t *values, size_t n, int bit_width, struct buf *out);
int pq_rle_encode_u32(const uint32_t *values, size_t n, int bit_width, struct buf *out);
/* Decodes exactly n values. Every decoded value is checked to fit in
 * bit_width (a longer run value is corrupt). */
int pq_rle_decode_u16(const uint8_t *data, size_t len, int bit_width, uint16_t *out, size_t n,
                      struct error *err);
int pq_rle_decode_u32(const uint8_t *data, size_t len, int bit_width, uint32_t *out, size_t n,
                      struct error *err);
/* The deprecated BIT_PACKED level encoding (MSB-first), for old files. */
int pq_bitpacked_decode_levels(const uint8_t *data, size_t len, int bit_width, uint16_t *out,
                               size_t n, struct error *err);

/* ---- PLAIN ---- */

/* Booleans: one bit per value, LSB first. `values` are 0/1 bytes. */
int pq_plain_encode_bool(const uint8_t *values, size_t n, struct buf *out);
int pq_plain_decode_bool(const uint8_t *data, size_t len, uint8_t *out, size_t n,
                         struct error *err);
/* Fixed-width values (INT32/INT64/FLOAT/DOUBLE: width 4 or 8; INT96: 12;
 * FIXED_LEN_BYTE_ARRAY: its length): a straight copy of n * width bytes. */
int pq_plain_decode_fixed(const uint8_t *data, size_t len, size_t width, void *out, size_t n,
                          struct error *err);
/* BYTE_ARRAY: each value is a 4-byte length then the bytes. The decoder
 * produces Arrow's layout: offsets[0..n] (offsets[0] = base, relative to
 * the caller's data buffer) and the bytes appended to `data_out`. */
int pq_plain_decode_byte_array(const uint8_t *data, size_t len, size_t n, int64_t *offsets,
                               struct buf *data_out, struct error *err);

/* ---- DELTA_BINARY_PACKED (INT32 and INT64) ----
 * Decodes exactly n values (the page's non-null count); the header's own
 * total must be at least n. *consumed receives the bytes read, which
 * DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY need. Arithmetic wraps as
 * the format specifies (two's complement). */
int pq_delta_decode_i32(const uint8_t *data, size_t len, int32_t *out, size_t n, size_t *consumed,
                        struct error *err);
int pq_delta_decode_i64(const uint8_t *data, size_t len, int64_t *out, size_t n, size_t *consumed,
                        struct error *err);
/* The encoder (block 128, 4 miniblocks), used by tests and for DELTA
 * lengths; writes the total count n. */
int pq_delta_encode_i64(const int64_t *values, size_t n, struct buf *out);

/* ---- byte arrays in delta encodings (Arrow layout out, as above) ---- */
int pq_delta_length_decode(const uint8_t *data, size_t len, size_t n, int64_t *offsets,
                           struct buf *data_out, struct error *err);
int pq_delta_byte_array_decode(const uint8_t *data, size_t len, size_t n, int64_t *offsets,
                               struct buf *data_out, struct error *err);

/* ---- BYTE_STREAM_SPLIT (FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY) ---- */
int pq_byte_stream_split_decode(const uint8_t *data, size_t len, size_t width, void *out, size_t n,
                                struct error *err);

#endif
