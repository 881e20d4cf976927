/* The predicate and value-expression language shared by every command that
 * selects rows (delete, update, filtered reads): text parsed into one tree,
 * bound to a table definition, then evaluated over Arrow batches, or used
 * to prune partitions, files and row groups by their statistics.
 *
 * Grammar (SQL-like; keywords are case-insensitive):
 *
 *   predicate   := or
 *   or          := and (OR and)*
 *   and         := not (AND not)*
 *   not         := NOT not | '(' or ')' | test
 *   test        := operand [ ('=' | '!=' | '<>' | '<' | '<=' | '>' | '>=') operand
 *                          | IS [NOT] NULL
 *                          | [NOT] IN '(' operand (',' operand)* ')'
 *                          | [NOT] BETWEEN operand AND operand ]
 *   operand     := column | literal
 *   column      := name ('.' name)*      a struct field by its path: a.b.c;
 *                                        past a variant column, object keys
 *   name        := bare | '"' text '"'   bare: a letter or _ first, then letters,
 *                                        digits, _ and $; quoted: any text, "" for "
 *   literal     := ['-' | '+'] number | 'text' | TRUE | FALSE | NULL
 *                | DATE 'YYYY-MM-DD' | TIME 'HH:MM[:SS[.f]]'
 *                | TIMESTAMP 'YYYY-MM-DD[( |T)HH:MM[:SS[.f]]][Z|(+|-)HH[:MM]]'
 *                | TIMESTAMPTZ '...' | UUID '8-4-4-4-12' | X'hex'
 *   number      := digits ['.' digits] [(e|E) ['+'|'-'] digits]  (or '.' digits ...)
 *
 *   assignments := column '=' value (',' column '=' value)*
 *   value       := term (('+' | '-') term)*
 *   term        := unary (('*' | '/') unary)*
 *   unary       := ('-' | '+') unary | column | literal | '(' value ')'
 *                | CASE (WHEN predicate THEN value)+ [ELSE value] END
 *
 * Precedence NOT > AND > OR. A test with no operator is a boolean column
 * (or TRUE, FALSE, NULL). Either side of a comparison may be the column
 * (5 < x), and two columns may be compared. Reserved words (AND OR NOT IN
 * IS NULL BETWEEN TRUE FALSE CASE WHEN THEN ELSE END) name a column only
 * when quoted; DATE, TIME, TIMESTAMP, TIMESTAMPTZ, UUID and X are literal
 * prefixes only when a string follows.
 *
 * Meaning:
 *  - SQL's three-valued logic: a comparison with NULL is unknown, NOT
 *    unknown is unknown, a row is selected only when the predicate is TRUE.
 *    x IN (1, NULL) is TRUE for 1 and unknown otherwise; x NOT IN (.., NULL)
 *    is never TRUE. A struct field under a null struct is null.
 *  - A literal takes the type of the column it meets, exactly or not at all:
 *    an integer out of the column's range, a decimal with more fraction
 *    digits than the column's scale or more digits than its precision, a
 *    timestamp finer than the column's unit, a time-zone offset on a
 *    timestamp without time zone are refused. Strings convert to dates,
 *    times, timestamps and uuids ('2026-01-01' for a timestamp is midnight),
 *    to binary as their UTF-8 bytes, and 'NaN', 'Infinity', '-Infinity' to
 *    floats. A timestamptz literal without offset is UTC.
 *  - Floats compare as PostgreSQL and DuckDB do: NaN equals NaN and sorts
 *    above +Infinity; -0.0 equals 0.0.
 *  - Strings, json, binary and uuids compare as unsigned bytes.
 *  - Columns compare with columns of the same family: numbers of any type
 *    (exactly; as doubles when a float is involved), dates and timestamps of
 *    any unit (as instants; timestamptz as UTC), times, strings with json,
 *    binary, uuids, booleans.
 *  - Value expressions compute in the assigned column's type: integers
 *    exactly (overflow of the column's range is an error), decimals at
 *    growing scales then rounded half away from zero to the column's scale,
 *    floats as doubles; division by zero is an error; NULL propagates;
 *    integer division truncates toward zero. Arithmetic applies to numeric
 *    columns only; other columns take literals, columns of their type (or
 *    one that promotes to it), CASE and NULL.
 *
 * Errors are ERR_INVALID with the 1-based character position and the
 * offending token: "at 14 ('AND'): expected a value". Bounds: text up to
 * EXPR_MAX_TEXT bytes, nesting up to EXPR_MAX_DEPTH, an IN list up to
 * EXPR_MAX_IN_ITEMS items. Out of memory is ERR_NOMEM.
 *
 * Memory: trees and bound forms live in the caller's arena. A bound
 * predicate or update does not point into the table definition; it is
 * immutable, and evaluations may run on it from several threads at once. */
#ifndef HL_EXPR_EXPR_H
#define HL_EXPR_EXPR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "parquet/meta.h"
#include "parquet/reader.h"
#include "parquet/schema.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

enum { EXPR_MAX_TEXT = 64 * 1024, EXPR_MAX_DEPTH = 64, EXPR_MAX_IN_ITEMS = 100000 };

/* ---- parsing ---- */

struct expr;             /* a parsed predicate */
struct expr_assignments; /* a parsed `col = value, ...` list */

int expr_parse_predicate(struct arena *a, const char *text, size_t len, struct expr **out,
                         struct error *err);
int expr_parse_assignments(struct arena *a, const char *text, size_t len,
                           struct expr_assignments **out, struct error *err);

/* The parsed tree as fully parenthesised text, every literal in canonical
 * form ("((a = 1) OR ((b.c < DATE '2026-01-02') AND (NOT (d IS NULL))))"),
 * which parses back to the same tree. 0, or -1 when memory runs out. */
int expr_to_text(const struct expr *e, struct buf *out);
int expr_assignments_to_text(const struct expr_assignments *as, struct buf *out);

/* ---- binding ---- */

struct expr_pred;   /* a predicate bound to a table */
struct expr_update; /* assignments bound to a table */

/* The columns an expression reads: top-level column indexes of the table
 * (ascending; what a reader must decode: pq_reader_select_field_ids takes
 * their field ids) and the leaf field ids whose statistics it can use
 * (ascending). */
struct expr_columns {
    const size_t *top;
    size_t ntop;
    const int64_t *field_ids;
    size_t nfield_ids;
};

/* Resolves every column path against t (top-level columns and struct
 * fields; a name matches exactly first, then case-insensitively when only
 * one sibling matches), converts every literal to its column's type and
 * refuses comparisons of struct, list, map and whole variant columns. A
 * path that goes on past a variant column names object keys inside it
 * (exactly, case included): props."$os" = 'Mac' compares the value at
 * $.$os with a string, number or boolean literal; a value of another
 * family, a missing key or a Variant null compares as NULL (unknown),
 * and IS NULL holds for all three. */
int expr_bind_predicate(struct arena *a, const struct lake_table *t, const struct expr *e,
                        struct expr_pred **out, struct error *err);
/* expr_parse_predicate, then expr_bind_predicate. */
int expr_compile_predicate(struct arena *a, const struct lake_table *t, const char *text,
                           size_t len, struct expr_pred **out, struct error *err);
const struct expr_columns *expr_pred_columns(const struct expr_pred *p);

/* Binds each assignment's target (a top-level column that is not a struct,
 * list, map or variant; each at most once) and value. */
int expr_bind_assignments(struct arena *a, const struct lake_table *t,
                          const struct expr_assignments *as, struct expr_update **out,
                          struct error *err);
int expr_compile_assignments(struct arena *a, const struct lake_table *t, const char *text,
                             size_t len, struct expr_update **out, struct error *err);
size_t expr_update_count(const struct expr_update *u);
/* The top-level column index assignment i writes. */
size_t expr_update_target(const struct expr_update *u, size_t i);
/* The columns the assignments read, their targets included. */
const struct expr_columns *expr_update_columns(const struct expr_update *u);

/* ---- evaluating over Arrow batches ----
 *
 * A batch is shaped as t's writer takes it (rows_table_arrow_schema): a
 * struct array whose children are t's top-level columns in order, each in
 * a format the writer accepts for its type (strings "u" or "U", binary "z"
 * or "Z", timestamptz "tsu:" with any zone, decimals "d:P,S[,128]" at the
 * column's scale). Only the columns the expression reads are looked at;
 * the others may be anything (all-null arrays, say). Arrays may have
 * offsets and validity bitmaps at any level. A batch that does not fit is
 * ERR_INVALID. */

/* selected[r] = 1 when row r satisfies the predicate (it is TRUE), else 0;
 * *nselected (may be NULL) receives how many rows are selected. */
int expr_pred_eval(const struct expr_pred *p, const struct ArrowSchema *schema,
                   const struct ArrowArray *batch, uint8_t *selected, int64_t *nselected,
                   struct error *err);

/* The new values of assignment i's column for every row of the batch, into
 * *out (an array of the writer's format for the column,
 * pq_arrow_format_for; the caller releases it): rows with rows[r] != 0 (or
 * every row when rows is NULL) take the value, the others keep the
 * column's current value. Runtime errors (overflow, division by zero, a
 * value outside the column's range, NULL into a required column) name the
 * row and the operator's position; only the rows being assigned are
 * computed, and a CASE branch only for the rows that take it. */
int expr_update_eval(const struct expr_update *u, size_t i, const struct ArrowSchema *schema,
                     const struct ArrowArray *batch, const uint8_t *rows, struct ArrowArray *out,
                     struct error *err);

/* ---- pruning ---- */

/* Statistics of one leaf column over some set of rows (a file, a row
 * group): bounds as Iceberg single-value binary of the column's type
 * (lake/bounds.h; NULL when absent), counts -1 when unknown. */
struct expr_field_stats {
    int64_t field_id;
    const uint8_t *lower, *upper;
    size_t lower_len, upper_len;
    int64_t value_count; /* values, nulls included */
    int64_t null_count;
    int64_t nan_count; /* float and double columns; -1 unknown */
};

/* False only when no row with these statistics can satisfy the predicate.
 * Fields absent from stats constrain nothing. A float column whose
 * nan_count is unknown or positive may hold NaN above its upper bound. */
bool expr_pred_may_match(const struct expr_pred *p, const struct expr_field_stats *stats, size_t n);

/* The scan plan's `column_stats` array (ScanColumnStats: field_id,
 * value_count, null_count, lower_bound, upper_bound decoded as
 * bound_to_json renders them, optional nan_count) as statistics of t's
 * columns, into the arena. Numbers may be jansson integers or reals, raw
 * numbers (util/jsonnum.h) or strings; a bound that does not decode
 * exactly as the column's type is left absent (a real that cannot hold a
 * decimal or a large integer exactly, text that does not parse); entries
 * for fields t does not have are skipped. A malformed entry is
 * ERR_MALFORMED. */
int expr_stats_from_json(const struct lake_table *t, const json_t *column_stats, struct arena *a,
                         struct expr_field_stats **out, size_t *n, struct error *err);

/* Row group g's statistics of t's columns, from a Parquet footer and its
 * schema tree (pq_row_group_column_stats; nan counts unknown). */
int expr_stats_from_row_group(const struct lake_table *t, const struct pq_file_meta *meta,
                              const struct pq_schema *schema, size_t g, struct arena *a,
                              struct expr_field_stats **out, size_t *n, struct error *err);

/* Row group g's statistics of the shredded leaves p's variant paths reach
 * (props."$os" = 'Mac' reads typed_value.$os.typed_value), as entries
 * only p's pruning understands (negative field ids, bounds as Variant
 * primitives): for a file hoglake wrote (whose writer places every value
 * its declaration takes in the typed leaf), a path that is shredded to a
 * string, signed integer, decimal, float or boolean leaf, and whose field
 * holds nothing in its residual value in this row group. Paths without
 * such a leaf get no entry. */
int expr_stats_variant_leaves(const struct expr_pred *p, const struct pq_file_meta *meta,
                              const struct pq_schema *schema, size_t g, struct arena *a,
                              struct expr_field_stats **out, size_t *n, struct error *err);

/* A variant path of a predicate whose shredded leaf's statistics (the row
 * group's, its page index's) can prune: expr_stats_variant_leaves'
 * conditions (a file hoglake wrote, the field's residual value empty in
 * the row group). */
struct expr_variant_leaf {
    int leaf;   /* in the file's schema */
    size_t col; /* the predicate's column reference */
};
/* Row group g's such paths, in the arena. 0, or -1 for ERR_NOMEM. */
int expr_variant_page_leaves(const struct expr_pred *p, const struct pq_file_meta *meta,
                             const struct pq_schema *schema, size_t g, struct arena *a,
                             struct expr_variant_leaf **out, size_t *n, struct error *err);
/* Page p of such a leaf's page index (pi) as statistics p's pruning reads
 * as the path's (bounds as Variant primitives). 1 when the index says
 * nothing, 0 with *out, -1 for ERR_NOMEM. The leaf is not repeated (a
 * path runs through objects only), so a page's rows are its values. */
int expr_stats_variant_page(const struct expr_variant_leaf *vl, const struct pq_schema *schema,
                            const struct pq_page_index *pi, size_t p, struct arena *a,
                            struct expr_field_stats *out, struct error *err);

/* Page p's statistics of leaf `leaf` of a Parquet file (pi: that column
 * chunk's page index, read with pq_reader_page_index; schema: the file's
 * schema tree), as statistics of the column of t with the leaf's field id:
 * its PLAIN min and max as bounds (colstats' rules: absent when the leaf
 * cannot bound the column's type or a value does not decode; a byte
 * array's cut bounds still bound), its null count when the index has one,
 * and as value count the page's rows when the leaf is not repeated. A
 * page of nulls only (null_pages) has every value null. Returns 1 when
 * there is nothing to say (no bounds in the index, a leaf without a field
 * id or one t does not have), 0 with *out filled, -1 for ERR_NOMEM. */
int expr_stats_from_page(const struct lake_table *t, const struct pq_schema *schema, int leaf,
                         const struct pq_page_index *pi, size_t p, struct arena *a,
                         struct expr_field_stats *out, struct error *err);

/* False only when no row of a file with these partition values can
 * satisfy the predicate. spec is the partition spec the file was written
 * under (nspec fields), values its stored partition values in spec order
 * as the scan plan gives them (wire strings, lake_partition_render; NULL
 * for a null value). Comparisons project through the transforms: identity
 * exactly; year, month, day, hour and truncate as ranges (they keep
 * order); bucket for = and IN only. A value that does not parse, a
 * count that does not match the spec, an unknown case: maybe (true). */
bool expr_pred_may_match_partition(const struct expr_pred *p,
                                   const struct lake_partition_field *spec, size_t nspec,
                                   const char *const *values, size_t nvalues);

#endif
