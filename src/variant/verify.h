/* verify: the opt-in check of a Variant beyond validity (variant_check).
 *
 * Always, the writer rules that live in the bytes (VariantEncoding.md): a
 * dictionary flagged sorted is strictly increasing by UTF-8 bytes; an
 * object lists its fields in key order. Unless turned off, also the
 * canonical encoding variant_from_json writes (variant.h), so that a value
 * has one spelling: the dictionary is exactly the keys the value uses,
 * each once, sorted, flagged sorted, with the smallest offset size; an
 * integer is the smallest of int8/16/32/64 that holds it; a decimal the
 * narrowest of decimal4/8/16 whose precision holds its digits; a string
 * under 64 bytes a short string; a container lays its values out in order
 * from offset 0 with the smallest offset size, a 4-byte count only past
 * 255 elements, and an object's field ids either the smallest size that
 * holds its ids or the one the whole dictionary needs (the encoder sizes
 * ids by the dictionary; the shredder's residuals by the object).
 *
 * Failure: ERR_INVALID with reason "variant_encoding" and the message
 * "variant: <path>: <rule>: <what>", the path inside the value ($.a[3].b),
 * the rule one of the names below; ERR_NOMEM. Not installed. */
#ifndef HL_VARIANT_VERIFY_H
#define HL_VARIANT_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* The rules, as messages name them. */
#define VARIANT_RULE_SORTED_FLAG "sorted_flag"         /* flagged sorted, not sorted */
#define VARIANT_RULE_FIELD_ORDER "field_order"         /* fields not in key order */
#define VARIANT_RULE_DICTIONARY "canonical_dictionary" /* unused, unsorted, unflagged key */
#define VARIANT_RULE_INT "canonical_int"
#define VARIANT_RULE_DECIMAL "canonical_decimal"
#define VARIANT_RULE_STRING "canonical_string"
#define VARIANT_RULE_LAYOUT "canonical_layout" /* value order, offset/id/count sizes */

/* A whole Variant: valid (variant_check), the writer rules and, when
 * canonical, the canonical encoding. 0 or -1. */
int variant_verify(const uint8_t *metadata, size_t metadata_len, const uint8_t *value,
                   size_t value_len, bool canonical, struct error *err);

/* One value of a row that is stored in parts (a shredded column's value
 * cell): the same, less the rules about the dictionary as a whole, which
 * only the whole row can answer. root names the value's place in the row
 * ("$.a.b"; NULL: "$"). */
int variant_verify_part(const uint8_t *metadata, size_t metadata_len, const uint8_t *value,
                        size_t value_len, bool canonical, const char *root, struct error *err);

#endif
