/* Single Arrow values, as the batch operations convert them: time units,
 * little-endian integers of any width, half-precision floats, and where a
 * conversion is (the column path) for its messages. The text codecs
 * (textio/textio_text.h) build on these. */
#ifndef HL_ROWS_VALUE_H
#define HL_ROWS_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* Sub-second digits of a time unit: 0 seconds, 3 millis, 6 micros, 9 nanos. */
enum rows_unit { ROWS_SECONDS = 0, ROWS_MILLIS = 3, ROWS_MICROS = 6, ROWS_NANOS = 9 };
/* 10^digits for a unit (1, 1000, 1000000, 1000000000). */
int64_t rows_unit_per_second(enum rows_unit u);
/* The unit an Arrow time or timestamp format names by its letter (the
 * third of "tts", "tsu:..."): 's', 'm', 'u' or 'n'; false for another. */
bool rows_unit_of(char c, enum rows_unit *u);

/* A little-endian integer of 1, 2, 4 or 8 bytes (an Arrow value), sign-
 * or zero-extended. */
int64_t rows_load_signed(const void *p, int width);
uint64_t rows_load_unsigned(const void *p, int width);

/* An IEEE half-precision value (float16) as a float (exact). */
float rows_half_to_float(uint16_t h);

/* Where a conversion is (the column path, "addr.zip", "tags[2]") and where
 * its error goes. */
struct rows_where {
    char path[800];
    size_t path_len;
    struct error *err;
};
void rows_where_init(struct rows_where *w, struct error *err);
/* Fails with "column '<path>': <message>" (no prefix at an empty path) and
 * returns -1, for `return rows_fail(...)`. */
int rows_fail(struct rows_where *w, enum error_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
