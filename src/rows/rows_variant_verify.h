/* verify for variant storage: the opt-in check of an Arrow VARIANT
 * storage struct (metadata, value?, typed_value?, as a Parquet VARIANT
 * group reads) row by row, beyond the validity every read checks.
 *
 * - form (when asked): the storage's shape is exactly the layout our
 *   writer writes for the declaration (parquet/variant_layout.h; decimal4
 *   and decimal8 leaves as their int or as the decimal they read back as),
 *   a column declaring nothing the unshredded form; else reason
 *   "invalid_shredding";
 * - the writer rules of VariantShredding.md: no null field or element
 *   group, no element with neither value nor typed_value, a row with
 *   neither only as SQL NULL, a value beside typed_value only as the
 *   residual of a partially shredded object (an object, not empty, not
 *   repeating a shredded field), every shredded field's name in the row's
 *   dictionary;
 * - placement: no value left in value that its group's typed_value takes
 *   (parquet/variant_shred.h's rule; an object or array where the group
 *   shreds one) ("misplaced");
 * - each value cell and the row rebuilt whole (rows_unshred.h) pass
 *   variant/verify.h: its byte rules and, when canonical, the canonical
 *   encoding, the row's metadata included;
 * - not_null: no SQL NULL row ("not_null").
 * Faults other than those two reasons are "variant_encoding"; each is
 * ERR_INVALID with "row N, <path>: <rule>: <what>". Not installed. */
#ifndef HL_ROWS_VARIANT_VERIFY_H
#define HL_ROWS_VARIANT_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "util/error.h"

struct rows_variant_verify_options {
    bool check_form;       /* compare the shape with the declaration's layout */
    const char *shredding; /* the declaration (JSON text); NULL: none, the unshredded form */
    bool canonical;
    bool not_null;
    int64_t first_row; /* the number of row 0 in messages (a batch within a file) */
};

/* Verifies every row of storage a, of schema s (rows_variant_is_storage).
 * 0, or -1 with the first fault; ERR_UNSUPPORTED (unsupported_shredding)
 * for a declaration the writer cannot lay out; ERR_NOMEM. */
int rows_variant_verify(const struct ArrowSchema *s, const struct ArrowArray *a,
                        const struct rows_variant_verify_options *o, struct error *err);

#endif
