/* The Variant binary encoding (Parquet's VariantEncoding.md): a value's
 * metadata (a dictionary of object keys) and its value bytes.
 *
 * The encoder takes JSON text and writes the canonical encoding:
 *  - metadata: version 1, sorted_strings set, each key once, sorted by its
 *    UTF-8 bytes, with the smallest offset size that holds them;
 *  - an integer within int64 is the smallest of int8/16/32/64 that holds
 *    it; a larger one of at most 38 digits is decimal16 with scale 0 (no
 *    other decimal, no float); a number with a fraction or an exponent is
 *    a double; a string under 64 bytes is a short string, else a string;
 *  - objects list their fields, and lay out their values, in key order;
 *    arrays and objects use the smallest id and offset sizes, and a 4-byte
 *    element count only past 255 elements.
 * The decoder reads any valid encoding (whatever its sizes and value
 * order), checking every length, offset and id against the bytes it has:
 * each nested value must end exactly where the next begins and the last
 * where its container says, strings must be UTF-8, an object may not name
 * a key twice. It writes JSON text, an object's fields in key order.
 *
 * Nesting past VARIANT_MAX_DEPTH levels is refused both ways
 * (nesting_too_deep). Errors are ERR_INVALID with a typed reason (error.h's
 * reason): "invalid_json", "nesting_too_deep", "duplicate_key",
 * "number_out_of_range" encoding; "variant_encoding" decoding; ERR_NOMEM.
 * Not installed. */
#ifndef HL_VARIANT_VARIANT_H
#define HL_VARIANT_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/error.h"

enum { VARIANT_MAX_DEPTH = 128 };

/* The Variant of one JSON text, appended to metadata and value. On failure
 * both are left as they were. */
int variant_from_json(const char *json, size_t len, struct buf *metadata, struct buf *value,
                      struct error *err);

/* The same with memory kept from one value to the next, and the sorted
 * dictionary reused while values have the same keys in the same order:
 * for encoding many values (a column). Not thread-safe. */
struct variant_encoder;
struct variant_encoder *variant_encoder_new(void);
void variant_encoder_free(struct variant_encoder *e);
int variant_encoder_encode(struct variant_encoder *e, const char *json, size_t len,
                           struct buf *metadata, struct buf *value, struct error *err);

/* A metadata's dictionary, read in place. Opening checks its header and
 * that its offsets and strings lie within its bytes, not that they rise,
 * are sorted or are UTF-8 (variant_check does). */
struct variant_dict {
    const uint8_t *offsets, *strings;
    uint64_t n, strings_len;
    int off_size;
};
/* 0, or -1 with ERR_INVALID, reason "variant_encoding". */
int variant_dict_open(const uint8_t *metadata, size_t len, struct variant_dict *d,
                      struct error *err);
/* Offset k (0..n) into the strings. */
uint64_t variant_dict_offset(const struct variant_dict *d, uint64_t k);
/* Key id's bytes; false when id is past the dictionary or its offsets
 * are out of order or of bounds. */
bool variant_dict_key(const struct variant_dict *d, uint64_t id, const char **s, size_t *n);

/* Whether a Variant is valid, as variant_to_json would find it, without
 * writing its JSON: 0, or -1 with variant_to_json's error. */
int variant_check(const uint8_t *metadata, size_t metadata_len, const uint8_t *value,
                  size_t value_len, struct error *err);

/* The JSON text of a Variant, appended to out (left as it was on
 * failure). Dates and times are ISO-8601 strings, binary is base64, a
 * uuid its canonical text, a non-finite double the string "NaN",
 * "Infinity" or "-Infinity". */
int variant_to_json(const uint8_t *metadata, size_t metadata_len, const uint8_t *value,
                    size_t value_len, struct buf *out, struct error *err);

#endif
