/* hoglake parquet: look into Parquet files and convert rows to and from
 * them, locally (no server involved).
 *
 *   inspect FILE [--json]         the footer: schema, row groups, chunks, stats
 *   cat FILE [--format jsonl|csv] [--columns A,B] [--limit N] [--geometry hex|wkt]
 *   convert IN OUT [--from csv|tsv|jsonl|parquet] [--schema SPEC] [--rename OLD=NEW,...]
 *                  [--unknown-as TYPE]
 *                  [writer options]
 *   verify FILE [--column NAME] [--shredding JSON] [--no-canonical] [--not-null]
 *                                 variant columns as stored: writer rules,
 *                                 placement, canonical encoding, form
 *
 * Value conventions and the inspect document are in docs/cli-parquet.md. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd_parquet.h"
#include "rows/rows_schema.h"
#include "util/strutil.h"

int cli_parquet_open_source(const char *path, struct pq_source *src)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", path, strerror(errno));
        return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_FAILURE_OTHER;
    }
    struct error err = {0};
    if (pq_source_file(src, path, &err) != 0) {
        fprintf(stderr, "hoglake: %s\n", err.msg);
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

int cli_parquet_open_reader(const char *path, struct pq_source *src, const char *const *names,
                            size_t nnames, struct pq_reader **r, struct ArrowSchema *schema)
{
    struct error err = {0};
    if (pq_reader_open(src, r, &err) != 0 ||
        (nnames && pq_reader_select_names(*r, names, nnames, &err) != 0) ||
        pq_reader_arrow_schema(*r, schema, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", path, err.msg);
        return -1;
    }
    if (rows_schema_mark_file_extensions(schema, pq_reader_schema(*r)) != 0) {
        fprintf(stderr, "hoglake: out of memory\n");
        return -1;
    }
    return 0;
}

bool cli_parse_count(const char *opt, const char *v, int64_t min, int64_t *out)
{
    if (!str_parse_int64(v, out) || *out < min) {
        cli_usage_error("--%s takes a whole number of at least %lld, not '%s'", opt, (long long)min,
                        v);
        return false;
    }
    return true;
}

/* ---- the group ---- */

#define NOPTS(o) (sizeof(o) / sizeof((o)[0]))

int cmd_parquet(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"inspect", "show a Parquet file's footer: schema, row groups, column chunks, statistics",
         "parquet inspect FILE [--json]", cli_parquet_inspect_opts, NOPTS(cli_parquet_inspect_opts),
         1, 1, cli_run_parquet_inspect},
        {"cat", "print a Parquet file's rows as JSON Lines or CSV",
         "parquet cat FILE [--format jsonl|csv] [--columns A,B,...] [--limit N] [--geometry "
         "hex|wkt]",
         cli_parquet_cat_opts, NOPTS(cli_parquet_cat_opts), 1, 1, cli_run_parquet_cat},
        {"convert", "convert rows between CSV, JSON Lines and Parquet, into Parquet",
         "parquet convert IN|- OUT [--from csv|tsv|jsonl|parquet] [--schema SPEC] "
         "[--rename OLD=NEW[,OLD=NEW...]] [--map 'Header=col,...'] [--delimiter C] "
         "[--null STRING] [--no-header [--columns A,B,...]] [--unknown-as TYPE] [--compression C] "
         "[--level N] [--row-group-bytes N] [--page-bytes N] [--no-dictionary] [--batch-rows N] "
         "[--force]",
         cli_parquet_convert_opts, NOPTS(cli_parquet_convert_opts), 2, 2, cli_run_parquet_convert},
        {"verify",
         "check a Parquet file's variant columns as stored, row by row: the spec's writer rules, "
         "placement and (unless --no-canonical) the canonical encoding; with --shredding, that "
         "the storage is that declaration's layout ('null': the unshredded form)",
         "parquet verify FILE [--column NAME] [--shredding JSON] [--no-canonical] [--not-null]",
         cli_parquet_verify_opts, NOPTS(cli_parquet_verify_opts), 1, 1, cli_run_parquet_verify},
    };
    return cli_run_verbs(cli, "parquet", verbs, NOPTS(verbs), argc, argv);
}
