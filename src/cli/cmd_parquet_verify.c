/* hoglake parquet verify FILE [--column NAME] [--shredding JSON]
 * [--no-canonical] [--not-null]: the opt-in check of a file's variant
 * columns as stored (their VARIANT groups' storage, not unshredded), every
 * row (rows/rows_variant_verify.h). One line a column when all pass; the
 * first fault (column, row, path, reason) and exit 1 otherwise. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_parquet.h"
#include "cli/output.h"
#include "lake/shredding.h"
#include "rows/rows_schema.h"
#include "rows/rows_variant_verify.h"

const struct cli_opt cli_parquet_verify_opts[] = {
    {"column", true, false, "NAME  only this variant column (default: every one)"},
    {"shredding", true, false,
     "JSON  check the storage is the layout of this declaration ('null': unshredded)"},
    {"no-canonical", false, false,
     "check validity, writer rules and placement, not canonical form"},
    {"not-null", false, false, "refuse SQL NULL rows (a NOT NULL column)"},
};

/* --shredding's text as rows_variant_verify takes it: *out NULL for
 * "null", else the declaration's compact JSON (the caller's to free()).
 * EXIT_OK or EXIT_USAGE. */
static int parse_shredding(const char *text, char **out)
{
    *out = NULL;
    json_error_t je;
    json_t *decl = json_loads(text, JSON_DECODE_ANY, &je);
    if (!decl)
        return cli_usage_error("--shredding is not JSON: %s", je.text);
    struct error err = {0};
    int rc = EXIT_OK;
    if (!json_is_null(decl) && lake_shredding_check(decl, &err) != 0)
        rc = cli_usage_error("--shredding is not a shredding declaration: %s", err.msg);
    else if (!json_is_null(decl) && !(*out = json_dumps(decl, JSON_COMPACT | JSON_ENCODE_ANY)))
        rc = cli_usage_error("out of memory");
    json_decref(decl);
    return rc;
}

struct verified {
    const char *name;
    int index; /* among the batch's columns */
    int64_t rows;
};

/* The variant columns of the file's schema (the one --column names, when
 * given) into *cols; their count, or -1 (the error printed). */
static int variant_columns(const char *path, const struct ArrowSchema *schema, const char *only,
                           struct verified **cols)
{
    *cols = calloc((size_t)schema->n_children + 1, sizeof **cols);
    if (!*cols) {
        fprintf(stderr, "hoglake: out of memory\n");
        return -1;
    }
    int n = 0;
    for (int64_t i = 0; i < schema->n_children; i++) {
        const struct ArrowSchema *c = schema->children[i];
        if (rows_schema_is_variant(c))
            (*cols)[n++] = (struct verified){.name = c->name, .index = (int)i};
        else if (only)
            fprintf(stderr, "hoglake: %s: column '%s' is not a variant column\n", path, only);
    }
    if (n == 0 && !only)
        fprintf(stderr, "hoglake: %s: no variant column\n", path);
    return n == 0 ? -1 : n;
}

/* Every row group, every column: EXIT_OK, or 1 with the first fault. */
static int verify_rows(const char *path, struct pq_reader *r, const struct ArrowSchema *schema,
                       struct verified *cols, int ncols, struct rows_variant_verify_options *o)
{
    const struct pq_file_meta *m = pq_reader_meta(r);
    int64_t first = 0;
    struct error err = {0};
    for (size_t g = 0; g < m->nrow_groups; g++) {
        struct ArrowArray batch;
        if (pq_reader_read_row_group(r, g, &batch, &err) != 0) {
            fprintf(stderr, "hoglake: %s: row group %zu: %s\n", path, g, err.msg);
            return EXIT_FAILURE_OTHER;
        }
        o->first_row = first;
        for (int k = 0; k < ncols; k++) {
            int i = cols[k].index;
            if (rows_variant_verify(schema->children[i], batch.children[i], o, &err) != 0) {
                fprintf(stderr, "hoglake: %s: column '%s': %s (%s)\n", path, cols[k].name, err.msg,
                        err.reason ? err.reason : error_code_name(err.code));
                batch.release(&batch);
                return EXIT_FAILURE_OTHER;
            }
            cols[k].rows += batch.length;
        }
        first += batch.length;
        batch.release(&batch);
    }
    return EXIT_OK;
}

int cli_run_parquet_verify(struct cli *cli, const struct cli_args *a)
{
    (void)cli;
    const char *path = a->positional[0];
    const char *only = cli_opt_value(a, "column");
    struct rows_variant_verify_options o = {.canonical = !cli_opt_given(a, "no-canonical"),
                                            .not_null = cli_opt_given(a, "not-null")};
    char *shredding = NULL;
    if (cli_opt_given(a, "shredding")) {
        int rc = parse_shredding(cli_opt_value(a, "shredding"), &shredding);
        if (rc != EXIT_OK)
            return rc;
        o.check_form = true;
        o.shredding = shredding;
    }
    struct pq_source src;
    int rc = cli_parquet_open_source(path, &src);
    if (rc != EXIT_OK) {
        free(shredding);
        return rc;
    }
    struct pq_reader *r = NULL;
    struct ArrowSchema schema = {0};
    struct verified *cols = NULL;
    rc = EXIT_FAILURE_OTHER;
    if (cli_parquet_open_reader(path, &src, &only, only ? 1 : 0, &r, &schema) != 0)
        goto out;
    int ncols = variant_columns(path, &schema, only, &cols);
    if (ncols < 0 || verify_rows(path, r, &schema, cols, ncols, &o) != EXIT_OK)
        goto out;
    char rows[OUT_NUM_MAX];
    for (int k = 0; k < ncols; k++)
        printf("%s: column '%s': %s verified (%s%s)\n", path, cols[k].name,
               out_count(cols[k].rows, "row", "rows", rows, sizeof rows),
               o.canonical ? "canonical" : "writer rules",
               !o.check_form ? ", form not checked"
               : o.shredding ? ", declared layout"
                             : ", unshredded form");
    rc = fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILURE_OTHER;
out:
    free(cols);
    free(shredding);
    if (schema.release)
        schema.release(&schema);
    pq_reader_free(r);
    pq_source_close(&src);
    return rc;
}
