/* Shredding variant values into a declared layout (parquet/variant_layout.h)
 * as the writer takes them: the table's form of a variant column,
 * struct<metadata, value> of Variant bytes (rows/rows_variant.h), becomes
 * Arrow arrays shaped like the column's storage fields.
 *
 * Placement: a value goes to its group's typed_value when its Variant type
 * is the leaf's (an integer of any width that fits an int leaf; a decimal
 * of the leaf's scale whose digits fit its precision, whatever its width;
 * a short or long string to a string leaf; otherwise the same primitive),
 * an object to a shredded object (each declared field to its group, the
 * others left in value as an object of the row's dictionary), an array to
 * a shredded array; anything else stays in value. A declared field the
 * object lacks has neither value nor typed_value. The metadata is the
 * row's, unchanged. The input is trusted to be valid Variant (every path
 * into the writer checks it); a value that does not parse as one is still
 * refused (ERR_INVALID, variant_encoding), never read past. */
#ifndef HL_PARQUET_VARIANT_SHRED_H
#define HL_PARQUET_VARIANT_SHRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "util/error.h"

/* Where the values of one group of a layout went (the seed's encoding
 * report): into its typed_value (a primitive of the leaf's type, or an
 * object or array shredded further), left in value (another type), a
 * Variant null (in value), or missing (an object without the field). */
struct pq_shred_counts {
    int64_t typed, fallback, variant_null, missing;
};

/* The groups of laid-out column v: the column itself, then depth first
 * every field group and element group, the order of
 * lake_shredding_node_paths over its declaration. */
size_t pq_variant_groups(const struct lake_column *v);

/* Rows [begin, begin + n) (logical indexes of in) of the table-form array
 * in, shredded into *out (n rows, the caller's to release) for laid-out
 * column v. counts (may be NULL; pq_variant_groups(v) entries) is added
 * to. */
int pq_variant_shred(const struct lake_column *v, const struct ArrowArray *in, int64_t begin,
                     int64_t n, struct ArrowArray *out, struct pq_shred_counts *counts,
                     struct error *err);

/* Whether the shredder puts Variant value v (n bytes) into a typed_value
 * leaf of column type c (a laid-out leaf: decimal4/8 an int or long with
 * a precision): the placement rule above. A value it takes and a writer
 * left in value is a second spelling of the row (verify's "misplaced"). */
bool pq_variant_leaf_takes(const struct lake_column *c, const uint8_t *v, size_t n);

/* The Arrow schema of v's storage fields, as pq_variant_shred builds them
 * (named v's name). 0, or -1 when out of memory. */
int pq_variant_shred_schema(const struct lake_column *v, struct ArrowSchema *out);

/* The same for a table's variant column c (not laid out): the storage the
 * writer writes it as, shredded or not. ERR_UNSUPPORTED for a declaration
 * the writer cannot honour (pq_variant_layout). */
int pq_variant_storage_schema(const struct lake_column *c, struct ArrowSchema *out,
                              struct error *err);

#endif
