/* How `hoglake append` and `hoglake parquet convert` read text inputs, in
 * one place so both verbs take the same options: the format from an
 * option or the name (".tsv" is CSV separated by tabs, ".json" JSON Lines
 * or one JSON array; a ".gz" or ".zst" after it says the compression; "-"
 * is standard input, whose format must be given), CSV's --delimiter,
 * --no-header with --columns, --null, --map from input names to columns,
 * and for both formats --timestamp-format, --timezone and
 * --input-compression. */
#ifndef HL_CLI_TEXT_INPUT_H
#define HL_CLI_TEXT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/name_map.h"
#include "lake/schema.h"
#include "textio/csv.h"
#include "textio/textio_decompress.h"
#include "textio/textio_jsonrows.h"
#include "textio/textio_parse.h"
#include "textio/textio_timefmt.h"
#include "textio/textio_tz.h"
#include "util/arena.h"

/* TEXT_JSON: JSON Lines or one JSON array, told apart by the first byte. */
enum text_format { TEXT_CSV, TEXT_JSONL, TEXT_JSON, TEXT_PARQUET };

struct text_options {
    int delimiter;           /* --delimiter, or 0: ',' (a tab for TSV) */
    const char *null_marker; /* --null, or NULL */
    bool no_header;
    const char **columns; /* --columns: the fields of a header-less file */
    size_t ncolumns;
    struct name_map map;                    /* --map (and convert's --rename) */
    const struct textio_timefmt *time_fmts; /* --timestamp-format, tried in order */
    size_t ntime_fmts;
    const struct textio_tz *tz; /* --timezone, or NULL */
    bool compression_given;     /* --input-compression, else from each name */
    enum textio_compression compression;
};

/* The help lines of the options both verbs share beyond their own
 * wording of the CSV ones, for their option tables. */
/* clang-format off */
#define TEXT_INPUT_OPTS                                                                            \
    {"timestamp-format", true, true,                                                               \
     "FMT  date and timestamp text in this layout: %Y %m %d %H %I %M %S %f %p %b %z %F %T "        \
     "(repeat to try several in order; ISO 8601 text still reads after them)"},                    \
    {"timezone", true, false,                                                                      \
     "TZ  the zone of timestamptz text without an offset: UTC, +05:30 or an IANA name "            \
     "(America/New_York) (default: such text is refused)"},                                        \
    {"input-compression", true, false,                                                             \
     "gzip|zstd|none  the text inputs' compression (default: from the name, .gz or .zst)"}
/* clang-format on */

/* An open text input: the text (decompressed), and the file as stored. */
struct text_in {
    FILE *f;
    FILE *raw;
    const char *read_error; /* why a read of f failed, when decompressed */
};

/* Whether path names standard input. */
bool text_is_stdin(const char *path);
/* The name of an input in messages. */
const char *text_shown_path(const char *path);

/* The format of input `path`: `forced` (the value of option `opt`: csv,
 * tsv, json, jsonl or parquet) when given, else from the name's extension
 * (before a ".gz" or ".zst").
 * *tab is set for TSV. Returns EXIT_OK, or EXIT_USAGE after printing why
 * the format is unknown (always for "-" without `forced`, and Parquet from
 * "-", which is read at offsets). */
int text_format_of(const char *path, const char *forced, const char *opt, enum text_format *fmt,
                   bool *tab);

/* Splits list at commas, in place, into at most max non-empty names.
 * Returns EXIT_OK, or EXIT_USAGE (printed, naming option opt). */
int text_split_names(char *list, const char *opt, const char **names, size_t max, size_t *n);

/* Reads the options above (and --rename, dotted paths, when `rename`)
 * into *o, allocated from ar. Returns EXIT_OK, or EXIT_USAGE after
 * printing why one is unusable. */
int text_options_parse(const struct cli_args *a, bool rename, struct arena *ar,
                       struct text_options *o);

/* Checks --columns and --map against t (named `what` in messages: "the
 * table"): --columns names each of its columns once and every required
 * one; each --map names one. Returns EXIT_OK, or EXIT_USAGE (printed). */
int text_options_check(const struct text_options *o, const struct lake_table *t, const char *what);

/* Opens an input for reading: standard input for "-", decompressed as
 * --input-compression or the name says. Returns EXIT_OK, or the exit code
 * of the problem printed. text_close leaves standard input open. */
int text_open(const char *path, const struct text_options *o, struct text_in *in);
void text_close(struct text_in *in);
/* How far into the input as stored reading has come, in bytes (0 when
 * unknown, as for a pipe). */
uint64_t text_in_position(const struct text_in *in);

/* Starts a reader of in's CSV or JSON rows (with its read errors; JSON
 * read as fmt says). */
void text_csv_init(struct csv_reader *r, const struct text_in *in);
void text_json_init(struct jsonrows *r, const struct text_in *in, enum text_format fmt);

/* Starts a CSV input read through r into p for table t: sets the
 * delimiter and the null marker, reads the first record and binds the
 * fields to columns, by the header's names (mapped, then checked as
 * `checks` says and against t, every unknown name reported at once), or
 * with --no-header by position. *first_is_row then says the record read
 * is a row the caller still has to add. Returns EXIT_OK, or the exit code
 * of the problem printed. */
int text_csv_begin(struct text_options *o, bool tab, struct csv_reader *r, struct textio_parser *p,
                   const struct lake_table *t, int checks, const char *what, const char *in_path,
                   struct arena *ar, bool *first_is_row);

/* Starts a JSON input (JSON Lines or an array): members named by --map
 * fill their columns.
 * Returns EXIT_OK, or EXIT_FAILURE_OTHER (printed) out of memory. */
int text_json_begin(const struct text_options *o, struct textio_parser *p,
                    const struct lake_table *t, struct arena *ar);

#endif
