/* Rows as text (CSV records, JSON Lines objects) into Arrow batches for a
 * catalog table definition, in the formats the Parquet writer takes.
 *
 * Values follow the conventions of docs/cli-parquet.md (textio_text.h for
 * scalars). Rows accumulate until textio_parser_take() moves them out as a
 * batch. A failed row leaves the parser unusable for further rows (a
 * conversion stops at the first bad row). Messages name the column by its
 * path ("addr.zip", "tags[2]", "attrs{k}") and quote the offending text;
 * the caller adds the input's name and line. A value or header that does
 * not fit the table fails with ERR_INVALID, JSON text that does not parse
 * with rj_parse's code (ERR_MALFORMED), a column past 2 GiB in one batch
 * with ERR_LIMIT. */
#ifndef HL_TEXTIO_PARSE_H
#define HL_TEXTIO_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "textio/csv.h"
#include "textio/textio_timefmt.h"
#include "textio/textio_tz.h"
#include "hoglake/arrow_abi.h"
#include "lake/schema.h"
#include "util/error.h"

struct textio_parser;

/* The table must outlive the parser. */
int textio_parser_new(const struct lake_table *t, struct textio_parser **out, struct error *err);
void textio_parser_free(struct textio_parser *p);

/* CSV: binds the header record's names to columns (any order; a nullable
 * column may be left out and reads as null). Every name the schema lacks
 * is listed in one message. */
int textio_parser_csv_header(struct textio_parser *p, const struct csv_reader *r,
                             struct error *err);
/* CSV: the same, for a header whose names the caller gives (renamed). */
int textio_parser_csv_names(struct textio_parser *p, const char *const *names, size_t n,
                            struct error *err);
/* CSV: an unquoted field equal to marker (which must outlive the parser)
 * is NULL, as an empty unquoted field always is. NULL: no marker. */
void textio_parser_csv_null(struct textio_parser *p, const char *marker);
/* JSON Lines: the member name that fills each top-level column (names[k]
 * for column k; NULL, or a NULL entry, for the column's own name). The
 * array must outlive the parser. */
void textio_parser_json_names(struct textio_parser *p, const char *const *names);
/* JSON: a top-level member no column is named as binds the column named
 * as the member sanitized (lake_ident_sanitize: "Release Date" fills
 * Release_Date), unless a member names that column exactly or the caller
 * mapped another name to it. What `table create --from` infers from a
 * file then appends from it with no --map, as for CSV headers. */
void textio_parser_json_sanitized(struct textio_parser *p, bool on);
/* Dates and timestamps (CSV fields, JSON strings) in the n formats fmts,
 * tried in order, instead of ISO 8601; a timestamptz value without an
 * offset taken in zone tz (NULL: refused). Both must outlive the parser. */
void textio_parser_times(struct textio_parser *p, const struct textio_timefmt *fmts, size_t n,
                         const struct textio_tz *tz);
/* CSV: appends the reader's current record as a row. */
int textio_parser_csv_row(struct textio_parser *p, const struct csv_reader *r, struct error *err);
/* JSON Lines: appends one line (a JSON object) as a row. */
int textio_parser_json_row(struct textio_parser *p, const char *text, size_t len,
                           struct error *err);

/* Rows appended since the last take. */
int64_t textio_parser_pending(const struct textio_parser *p);
/* Moves the pending rows into a batch: *schema and *batch are the
 * caller's to release. */
int textio_parser_take(struct textio_parser *p, struct ArrowSchema *schema,
                       struct ArrowArray *batch, struct error *err);

/* The Arrow schema of the parser's batches: rows_table_arrow_schema's,
 * except that a variant column (at any depth) holds each value's JSON
 * text, utf8 marked "arrow.json", for the append to encode: a CSV cell's
 * text as it is (empty and unquoted: NULL), a JSON Lines member's value
 * written back compactly (JSON null: SQL NULL). 0, or -1 when out of
 * memory. */
int textio_arrow_schema(const struct lake_table *t, struct ArrowSchema *out);

#endif
