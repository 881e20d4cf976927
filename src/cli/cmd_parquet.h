/* The verbs of `hoglake parquet` (cmd_parquet.c lists them), one file
 * each: inspect (cmd_parquet_inspect.c), cat (cmd_parquet_cat.c),
 * convert (cmd_parquet_convert.c) and verify (cmd_parquet_verify.c), and
 * what they share. */
#ifndef HL_CLI_CMD_PARQUET_H
#define HL_CLI_CMD_PARQUET_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cli.h"
#include "parquet/reader.h"

/* Opens a Parquet file for reading; a missing file is EXIT_NOT_FOUND. */
int cli_parquet_open_source(const char *path, struct pq_source *src);
/* Opens a reader on src (path: for messages) with the named top-level
 * columns selected (nnames 0: all) and their Arrow schema, file-level
 * extension types marked (rows_schema_mark_file_extensions); a failure is
 * printed. 0, or -1 with *r and *schema left for the caller to free. */
int cli_parquet_open_reader(const char *path, struct pq_source *src, const char *const *names,
                            size_t nnames, struct pq_reader **r, struct ArrowSchema *schema);
/* Parses option --opt's value as a whole number of at least min; false
 * (the usage error printed) when it is not one. */
bool cli_parse_count(const char *opt, const char *v, int64_t min, int64_t *out);

extern const struct cli_opt cli_parquet_inspect_opts[1];
extern const struct cli_opt cli_parquet_cat_opts[4];
extern const struct cli_opt cli_parquet_convert_opts[21];
extern const struct cli_opt cli_parquet_verify_opts[4];
int cli_run_parquet_inspect(struct cli *cli, const struct cli_args *a);
int cli_run_parquet_cat(struct cli *cli, const struct cli_args *a);
int cli_run_parquet_convert(struct cli *cli, const struct cli_args *a);
int cli_run_parquet_verify(struct cli *cli, const struct cli_args *a);

#endif
