/* How `hoglake append` and `hoglake parquet convert` read text inputs, in
 * one place so both verbs take the same options: the format from an
 * option or the name (".tsv" is CSV separated by tabs; "-" is standard
 * input, whose format must be given), CSV's --delimiter, --no-header with
 * --columns, --null, and --map from input names to columns. */
#ifndef HL_CLI_TEXT_INPUT_H
#define HL_CLI_TEXT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/name_map.h"
#include "lake/schema.h"
#include "textio/csv.h"
#include "textio/textio_parse.h"
#include "util/arena.h"

enum text_format { TEXT_CSV, TEXT_JSONL, TEXT_PARQUET };

struct text_options {
    int delimiter;           /* --delimiter, or 0: ',' (a tab for TSV) */
    const char *null_marker; /* --null, or NULL */
    bool no_header;
    const char **columns; /* --columns: the fields of a header-less file */
    size_t ncolumns;
    struct name_map map; /* --map (and convert's --rename) */
};

/* Whether path names standard input. */
bool text_is_stdin(const char *path);
/* The name of an input in messages. */
const char *text_shown_path(const char *path);

/* The format of input `path`: `forced` (the value of option `opt`: csv,
 * tsv, jsonl or parquet) when given, else from the name's extension.
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

/* Opens an input for reading: standard input for "-". Prints the problem
 * and returns NULL on failure. text_close leaves standard input open. */
FILE *text_open(const char *path);
void text_close(FILE *f);

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

/* Starts a JSON Lines input: members named by --map fill their columns.
 * Returns EXIT_OK, or EXIT_FAILURE_OTHER (printed) out of memory. */
int text_json_begin(const struct text_options *o, struct textio_parser *p,
                    const struct lake_table *t, struct arena *ar);

#endif
