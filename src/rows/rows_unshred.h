/* Reading shredded VARIANT storage (Parquet's VariantShredding.md) back
 * into one Variant per row: the row's value bytes with its typed_value
 * columns merged in. Internal to rows_variant.c.
 *
 * A plan is built once per storage schema (any conformant layout: ours,
 * the Trino connector's, DuckDB's with optional groups), then each row is
 * rebuilt: a typed primitive encoded as its Variant type, a shredded array
 * from its element groups, a shredded object from its field groups and the
 * residual object in value (whose bytes are reused as they are; field
 * names the row's dictionary lacks are appended to it). The result is
 * valid if its parts are; the caller checks it by decoding. The plan
 * keeps scratch memory from row to row: one plan per thread. */
#ifndef HL_ROWS_UNSHRED_H
#define HL_ROWS_UNSHRED_H

#include <stdbool.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "util/buf.h"
#include "util/error.h"

struct unshred_plan;

/* The plan for storage s (a struct of metadata, value, typed_value), or
 * NULL with ERR_INVALID (a typed_value of a type no Variant shreds to,
 * named by its path) or ERR_NOMEM. */
struct unshred_plan *unshred_plan_new(const struct ArrowSchema *s, struct error *err);
void unshred_plan_free(struct unshred_plan *p);

/* From now on, rebuilds a typed int leaf's value as the smallest integer
 * type that holds it and a decimal leaf's as the narrowest decimal, as the
 * encoder spells them: the row as it was before it was shredded, which
 * verify's canonical check reads. */
void unshred_plan_canonical_numbers(struct unshred_plan *p);

/* Row i (logical, within a) of storage array a: its metadata and value
 * appended to the two buffers. The row must not be null. ERR_INVALID
 * (reason variant_encoding) for storage the spec calls invalid: no value
 * and no typed_value at the top or in an array, a value beside a typed
 * primitive or array, a residual that is not an object or repeats a
 * shredded field, nesting past 128 levels (nesting_too_deep). */
int unshred_row(struct unshred_plan *p, const struct ArrowArray *a, int64_t i, struct buf *metadata,
                struct buf *value, struct error *err);

#endif
