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
#include "util/buf.h"
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

/* Typed Arrow values encoded as Variants (variant/builder.h), into *out
 * (the caller's to release): the storage struct. A null slot of `in`
 * itself is SQL NULL; a null anywhere inside (a struct's field, a list's
 * element, a map's value) is a Variant null. Mapping: bool; int8 to
 * int64 and uint8 to uint32 the smallest integer, uint64 past int64 a
 * decimal16 of scale 0; float16 and float a float, double a double;
 * decimal32/64/128 (and decimal256 within 38 digits) the narrowest
 * decimal holding the value, scale kept; date32/date64 (whole days) a
 * date; time32/time64 a time in microseconds (nanoseconds only when
 * whole); timestamps in s, ms or µs a timestamp in µs (with a time zone:
 * UTC-adjusted, else _ntz), in ns a timestamp_nanos; utf8, large utf8
 * and string view a string; binary, large binary, binary view and
 * fixed-size binary a binary, fixed_size_binary(16) marked "arrow.uuid" a
 * uuid; struct an object of its fields; list, large list and fixed-size
 * list an array; a map of string keys an object; the null type a null; a
 * dictionary-encoded array its values. Anything else (unions, run-end
 * encoded, list views, maps of other keys) is refused naming its format.
 * Errors carry the row (numbered from first_row) and the codec's reason
 * (number_out_of_range for a value that does not convert exactly,
 * duplicate_key, nesting_too_deep, variant_encoding). */
int rows_variant_from_arrow(const struct ArrowSchema *s, const struct ArrowArray *in,
                            int64_t first_row, struct ArrowArray *out, struct error *err);
/* Whether rows_variant_from_arrow takes arrays of s: 0, or -1 naming what
 * it refuses. A top-level dictionary of text is refused: it is ambiguous
 * between JSON text (what plain text means there) and strings. */
int rows_variant_arrow_check(const struct ArrowSchema *s, struct error *err);

/* One row's Variant appended to metadata and value, or *null set for SQL
 * NULL (nothing appended): 0, or -1 with err filled. */
typedef int (*rows_variant_row_fn)(void *ctx, int64_t i, struct buf *metadata, struct buf *value,
                                   bool *null, struct error *err);
/* The storage struct of `rows` rows given by fn, into *out, its value
 * buffer reserved for about `reserve` bytes (0: none); a failure is
 * prefixed with its row, numbered from first_row. */
int rows_variant_build(int64_t rows, int64_t first_row, size_t reserve, rows_variant_row_fn fn,
                       void *ctx, struct ArrowArray *out, struct error *err);

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
