/* Test helpers for src/expr: batches of a table's rows written as JSON
 * Lines, arrays moved to non-zero offsets at every level, and predicates
 * evaluated to the list of the rows they select.
 *
 * Everything here fails the test (cmocka) on unexpected failure. */
#ifndef HL_TESTS_EXPR_TESTLIB_H
#define HL_TESTS_EXPR_TESTLIB_H

#include <stdint.h>

#include "expr/expr.h"
#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "pq_testlib.h"

/* A batch of t's rows, one JSON object per line (single quotes stand for
 * double quotes), in the writer's formats. */
void xt_batch(const struct lake_table *t, const char *jsonl, struct ArrowSchema *schema,
              struct ArrowArray *batch);
/* Drops the first n rows by the batch's offset. */
void xt_drop(struct ArrowArray *batch, int64_t n);
/* Moves d of a struct array's offset down into its children (recursively
 * into struct children when deep), shifting its own validity bitmap, which
 * keeps its values: every array then has an offset. Null counts become
 * unknown (-1). */
void xt_push_offsets(struct ArrowArray *a, int64_t d, bool deep);

/* A table and a batch of its rows, the first `drop` rows dropped by the
 * batch's offset. offsets: 0 none more, 1 the batch's offset moved into
 * its columns, 2 also into the struct columns' fields. */
struct xt_fixture {
    struct test_table tt;
    struct ArrowSchema schema;
    struct ArrowArray batch;
};
struct xt_fixture *xt_fixture_new(const char *columns, const char *jsonl, int64_t drop,
                                  int offsets);
void xt_fixture_free(struct xt_fixture *f);

/* The rows p selects, as "0,3,5" (static buffer; "" when none). */
const char *xt_rows(const struct expr_pred *p, const struct ArrowSchema *schema,
                    const struct ArrowArray *batch);
/* Compiles text against t (failing the test on an error) and returns the
 * rows it selects. */
const char *xt_select(const struct lake_table *t, const char *text,
                      const struct ArrowSchema *schema, const struct ArrowArray *batch);
/* The error compiling text against t gives (ERR_INVALID expected). */
const char *xt_bind_error(const struct lake_table *t, const char *text);

#endif
