/* A table's columns inferred from a sample of rows: CSV records or JSON
 * Lines objects, fed one at a time, then the columns as a compact column
 * spec (textio/colspec.h: "id:long, name:string") that `table create
 * --columns` and `parquet convert --schema` take.
 *
 * Every scalar column keeps the set of candidate types whose own reader
 * (textio_text.h's rt_parse_*, what append and convert use) accepted each
 * non-null value so far, and ends as the first candidate left in this
 * order (docs/inference.md):
 *
 *   boolean  long  decimal(38,0)  double  date  time  timestamp
 *   timestamp_ns  timestamptz  string
 *
 * So the inferred type reads every sampled value; a value past the sample
 * may still not fit (a later "abc" in a long column). A column with only
 * nulls is a string. JSON: true/false fit boolean, numbers the numeric
 * types, strings the temporal types and string; objects are structs of
 * the members seen, arrays lists; a value that mixes kinds (a number here,
 * a string there) or nests past a struct-field name a table cannot take
 * is a variant. Columns are nullable unless the caller asks for NOT NULL
 * where the sample held no null. */
#ifndef HL_TEXTIO_INFER_H
#define HL_TEXTIO_INFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "textio/csv.h"
#include "util/buf.h"
#include "util/error.h"

struct textio_infer;

struct textio_infer *textio_infer_new(void);
void textio_infer_free(struct textio_infer *inf);

/* CSV: the columns, in the file's order (the header's names, or the
 * caller's). Once, before the first row. 0, or -1 (ERR_NOMEM, ERR_LIMIT
 * past TEXTIO_INFER_MAX_COLUMNS). */
enum { TEXTIO_INFER_MAX_COLUMNS = 4096 };
int textio_infer_csv_columns(struct textio_infer *inf, const char *const *names, size_t n,
                             struct error *err);
/* CSV: the reader's current record as a row. An unquoted empty field, or
 * one equal to null_marker (may be NULL), is a null. Fails with
 * ERR_INVALID when the record's field count differs from the columns' or
 * a field is not UTF-8. */
int textio_infer_csv_row(struct textio_infer *inf, const struct csv_reader *r,
                         const char *null_marker, struct error *err);

/* JSON Lines: one line, a JSON object; a member not seen before adds a
 * column (after the others). Fails with rj_parse's code for text that is
 * not JSON, ERR_INVALID for a row that is not an object. */
int textio_infer_json_row(struct textio_infer *inf, const char *text, size_t len,
                          struct error *err);

/* Rows fed so far. */
int64_t textio_infer_rows(const struct textio_infer *inf);
/* The columns so far, and their names as the input has them. */
size_t textio_infer_ncolumns(const struct textio_infer *inf);
const char *textio_infer_column_name(const struct textio_infer *inf, size_t i);

/* Date and timestamp layouts (textio/textio_timefmt.h, borrowed) tried on
 * text after ISO 8601, before string: a column whose every value matches
 * one is a date, a timestamp, or with %z a timestamptz, read by the first
 * such layout in the list. At most TEXTIO_INFER_MAX_FORMATS (ERR_LIMIT);
 * once, before the first row. */
enum { TEXTIO_INFER_MAX_FORMATS = 32 };
struct textio_timefmt;
int textio_infer_formats(struct textio_infer *inf, const struct textio_timefmt *fmts, size_t n,
                         struct error *err);
/* The layouts given, which formats_used's bits index. */
const struct textio_timefmt *textio_infer_tried_formats(const struct textio_infer *inf);

/* Appends the columns as a column spec, column i named names[i] (the
 * caller's final name; NULL, or a NULL entry: its own). not_null marks
 * "!" the top-level columns that had a value in every sampled row (none
 * when no row was sampled). *formats_used (may be NULL) gets a bit per
 * layout some column relies on: the --timestamp-format an append of the
 * input needs. Returns 0, or -1 out of memory. */
int textio_infer_spec(const struct textio_infer *inf, const char *const *names, bool not_null,
                      struct buf *out, uint32_t *formats_used);

#endif
