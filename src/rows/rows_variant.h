/* Variant columns in Arrow. A table's Arrow form of a variant column is its
 * unshredded storage, struct<metadata: binary, value: binary> (both not
 * null; the struct null for SQL NULL), marked "arrow.parquet.variant"
 * (rows_schema.h). These convert to and from it:
 *
 * - JSON text, one value a row, encoded by variant/variant.h: what CSV and
 *   JSON Lines input and callers without a Variant encoder hand in;
 * - the storage a file's VARIANT group reads as (from any writer), checked
 *   and made the table's form;
 * - back to JSON text, for output that has no Variant type.
 *
 * A SQL NULL (a null slot) stays one; the JSON text `null` is a Variant
 * null, a value. Failures are ERR_INVALID with the row (0-based within the
 * array) and the codec's typed reason (invalid_json, duplicate_key,
 * nesting_too_deep, number_out_of_range, variant_encoding), ERR_NOMEM,
 * ERR_LIMIT past 2 GiB of encoded bytes in one array. */
#ifndef HL_ROWS_VARIANT_H
#define HL_ROWS_VARIANT_H

#include <stdbool.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "util/error.h"

/* What to do with a row whose text is not a JSON value (the seed's
 * on_invalid). */
enum rows_variant_on_invalid {
    ROWS_VARIANT_INVALID_ERROR, /* fail the whole array */
    ROWS_VARIANT_INVALID_NULL,  /* the row becomes SQL NULL, counted */
};

/* Rows made SQL NULL by ROWS_VARIANT_INVALID_NULL, by the encoder's
 * reason. */
enum rows_variant_reason {
    RV_INVALID_JSON,
    RV_DUPLICATE_KEY,
    RV_NESTING_TOO_DEEP,
    RV_NUMBER_OUT_OF_RANGE,
    RV__COUNT
};
struct rows_variant_invalid {
    int64_t by_reason[RV__COUNT];
};
/* The reason's name (the error's reason: "invalid_json"...). */
const char *rows_variant_reason_name(enum rows_variant_reason r);
int64_t rows_variant_invalid_total(const struct rows_variant_invalid *v);

/* Encodes `in`, an array of format "u", "U", "z" or "Z" holding JSON texts,
 * into *out (the caller's to release): the unshredded storage struct.
 * *invalid (may be NULL) is added the rows made null. Errors number rows
 * from first_row (`in` may be a chunk of a larger batch). */
int rows_variant_from_json(const char *format, const struct ArrowArray *in, int64_t first_row,
                           enum rows_variant_on_invalid on_invalid, struct ArrowArray *out,
                           struct rows_variant_invalid *invalid, struct error *err);

/* Whether s, a struct field, is shaped as a VARIANT's storage: a binary
 * `metadata`, and a binary `value`, a `typed_value` or both. */
bool rows_variant_is_storage(const struct ArrowSchema *s);

/* Makes *a, storage of shape s (rows_variant_is_storage), the table's
 * unshredded form, in place: every row's bytes are checked to be a valid
 * Variant. Errors number rows from first_row. */
int rows_variant_unshred(const struct ArrowSchema *s, struct ArrowArray *a, int64_t first_row,
                         struct error *err);

/* The JSON text of each row of a (the table's form) into *out, a "u" array
 * (null where a is). */
int rows_variant_to_json(const struct ArrowArray *a, struct ArrowArray *out, struct error *err);

#endif
