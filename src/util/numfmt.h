/* Exact decimal text of numbers, the same everywhere it is printed (JSON
 * bounds, the CLI's row text): the shortest round-tripping text of a float
 * or double, integers, and a scaled 128-bit integer as a decimal.
 *
 * Thread-safe; no allocation. */
#ifndef HL_UTIL_NUMFMT_H
#define HL_UTIL_NUMFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for any result, with its NUL. */
#define NUMFMT_TEXT_MAX 48

/* v in decimal, NUL-terminated (at most 21 bytes with the NUL); returns the length. */
size_t numfmt_u64(uint64_t v, char *out);
size_t numfmt_i64(int64_t v, char *out);
/* The low `width` decimal digits of v, zero-padded, at out (no NUL). */
void numfmt_fixed(uint64_t v, int width, char *out);

/* Writes the shortest text that reads back as the same value, laid out as
 * Python's repr does ("1.0", "0.0001", "1e-05", "1.5e+16", "-0.0"). Writes the text of finite v
 * into out (NUMFMT_TEXT_MAX bytes) and returns its length. With single, v is a float widened to
 * double, and the text is the shortest that strtof reads back. NaN and infinities are the caller's
 * to spell: they have no JSON number form. */
size_t numfmt_shortest(double v, bool single, char *out);

/* Writes v / 10^scale in decimal, with exactly `scale` digits after the
 * point when scale > 0 ("-1.28", "0.00", "0.0000001"); scale is 0..38. */
__extension__ size_t numfmt_decimal(__int128 v, int scale, char *out);

#endif
