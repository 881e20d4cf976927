/* The storage a variant column's Parquet group holds (Parquet's
 * VariantEncoding.md and VariantShredding.md), as lake columns: the writer
 * lays them out as a struct's fields under a VARIANT(1)-annotated group,
 * with no field ids of their own.
 *
 * An undeclared column (or one declared {"type": "variant"}) is stored
 * unshredded: a required binary `metadata` and a required binary `value`,
 * the only unshredded shape the Trino connector reads. A declared one is
 * the connector's VariantShreddingSchema layout: required `metadata`, an
 * optional binary `value` and an optional `typed_value` in every group;
 * objects as structs of required field groups (declared order and case),
 * arrays as lists of required `element` groups, a "variant" node a group
 * of `value` alone; a primitive leaf is the column of its type, decimal4
 * and decimal8 as int and long columns with the precision and scale (an
 * unscaled INT32/INT64 stamped DECIMAL(p, s)), decimal16 a decimal column,
 * timestamptz_ns a timestamp_ns column marked `instant` (INT64
 * TIMESTAMP(NANOS) adjusted to UTC). A declaration this writer cannot
 * honour (a node type it does not know, one that fails the grammar) is ERR_UNSUPPORTED
 * with reason "unsupported_shredding": it never writes another layout. */
#ifndef HL_PARQUET_VARIANT_LAYOUT_H
#define HL_PARQUET_VARIANT_LAYOUT_H

#include <stdbool.h>

#include "lake/schema.h"
#include "util/arena.h"
#include "util/error.h"

/* Gives v (a writer's private copy of a variant column, childless) its
 * storage fields, allocated from a. */
int pq_variant_layout(struct arena *a, struct lake_column *v, struct error *err);

/* Whether a laid-out variant column is shredded (has a typed_value). */
bool pq_variant_is_shredded(const struct lake_column *v);

#endif
