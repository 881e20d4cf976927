/* Iceberg's bucket transform: murmur3_x86_32 (seed 0) of a value's hash
 * input, then (hash & INT32_MAX) mod N. The hash input is the spec's
 * (Appendix B): every integer, date, time and timestamp type as the 8-byte
 * little-endian long of its value in the column's unit, a decimal as its
 * unscaled value's minimal big-endian two's complement bytes, strings,
 * binary and UUIDs as their bytes. Pure functions; thread-safe. */
#ifndef HL_LAKE_BUCKET_H
#define HL_LAKE_BUCKET_H

#include <stddef.h>
#include <stdint.h>

/* murmur3_x86_32 with seed 0, as a signed 32-bit value (Java's int). */
int32_t lake_murmur3_32(const void *data, size_t len);

/* The hash input of an integer-like value (int8..int64, uint8..uint32,
 * date days, time and timestamp units): 8 bytes, little-endian. */
void lake_bucket_input_long(int64_t v, uint8_t out[8]);

/* The bucket (0..n-1) of a hash; n >= 1. */
int32_t lake_bucket_of(int32_t hash, int32_t n);

#endif
