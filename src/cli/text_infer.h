/* The columns of an input, inferred for `table create --from FILE` and
 * `parquet convert` without --schema (docs/inference.md): CSV and JSON
 * Lines from a sample of their first rows (textio/textio_infer.h), read
 * with the options append takes (--delimiter, --no-header with --columns,
 * --null, --map); Parquet from the file's own schema. */
#ifndef HL_CLI_TEXT_INFER_H
#define HL_CLI_TEXT_INFER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/text_input.h"
#include "util/arena.h"

/* DuckDB's read_csv sample size: the same files infer from as many rows. */
enum { TEXT_INFER_DEFAULT_SAMPLE = 20480 };

struct text_infer {
    int64_t sample_rows; /* 0: every row */
    bool not_null;       /* --not-null-from-sample */
    /* The result, in the caller's arena: */
    const char *spec; /* the columns, as a column spec */
    const char *map;  /* the --map reading the input needs, or NULL */
    /* The date and time layouts (--timestamp-format) reading it needs. */
    const struct textio_timefmt *formats;
    size_t nformats;
    int64_t rows; /* rows sampled; -1 for a Parquet schema */
};

/* Reads --sample-rows and --not-null-from-sample into *ti. EXIT_OK, or
 * EXIT_USAGE (printed). */
int text_infer_options(const struct cli_args *a, struct text_infer *ti);

/* Infers the columns of input `path` in format fmt (tab: TSV) into ti.
 * Names the input has that a table cannot take are renamed, and the
 * renames added to o->map, and the date and time layouts the columns rely
 * on (from --timestamp-format, else a built-in list) become o's when it
 * had none, so reading the input through o yields ti->spec's columns. Returns EXIT_OK, or the exit
 * code of the problem printed. */
int text_infer_columns(const char *path, enum text_format fmt, bool tab, struct text_options *o,
                       struct text_infer *ti, struct arena *ar);

/* Prints the result for a person to copy: a comment line, then `opt`
 * ("--columns", "--schema") and the spec, the --map when there is one,
 * and a --timestamp-format per layout the columns rely on, shell-quoted. */
void text_infer_print(FILE *out, const char *path, const char *opt, const struct text_infer *ti);

#endif
