/* hoglake parquet cat FILE [--format jsonl|csv] [--columns A,B] [--limit N]
 * [--geometry hex|wkt]: a Parquet file's rows as text, row group by row
 * group. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_parquet.h"
#include "textio/textio_render.h"

enum { OUT_FLUSH_BYTES = 1 << 20 };

const struct cli_opt cli_parquet_cat_opts[] = {
    {"format", true, false, "jsonl|csv  output format (default jsonl)"},
    {"columns", true, false, "A,B,...  only these top-level columns, in this order"},
    {"limit", true, false, "N  at most N rows"},
    {"geometry", true, false, "hex|wkt  GEOMETRY/GEOGRAPHY values as hex WKB (default) or WKT"},
};

static int flush_out(struct buf *out)
{
    if (out->len && fwrite(out->data, 1, out->len, stdout) != out->len) {
        fprintf(stderr, "hoglake: writing the output: %s\n", strerror(errno));
        return -1;
    }
    buf_reset(out);
    return 0;
}

/* Splits "a, b,c" into names (malloc'd copy in *storage). */
static size_t split_names(const char *list, char **storage, const char ***names)
{
    char *copy = strdup(list);
    size_t n = 0, cap = 8;
    const char **v = malloc(cap * sizeof *v);
    *storage = copy;
    *names = v;
    if (!copy || !v)
        return 0;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        while (*tok == ' ')
            tok++;
        size_t len = strlen(tok);
        while (len && tok[len - 1] == ' ')
            tok[--len] = '\0';
        if (n == cap) {
            const char **grown = realloc(v, cap * 2 * sizeof *v);
            if (!grown)
                break;
            *names = v = grown;
            cap *= 2;
        }
        v[n++] = tok;
    }
    return n;
}

int cli_run_parquet_cat(struct cli *cli, const struct cli_args *a)
{
    (void)cli;
    const char *path = a->positional[0];
    const char *fmt = cli_opt_value(a, "format");
    enum textio_format format = TEXTIO_JSONL;
    if (fmt && strcmp(fmt, "csv") == 0)
        format = TEXTIO_CSV;
    else if (fmt && strcmp(fmt, "jsonl") != 0)
        return cli_usage_error("--format takes jsonl or csv, not '%s'", fmt);
    int64_t limit = INT64_MAX;
    if (cli_opt_given(a, "limit") &&
        !cli_parse_count("limit", cli_opt_value(a, "limit"), 0, &limit))
        return EXIT_USAGE;
    const char *geometry = cli_opt_value(a, "geometry");
    if (geometry && strcmp(geometry, "wkt") != 0 && strcmp(geometry, "hex") != 0)
        return cli_usage_error("--geometry takes hex or wkt, not '%s'", geometry);
    char *storage = NULL;
    const char **names = NULL;
    size_t nnames = 0;
    if (cli_opt_given(a, "columns")) {
        nnames = split_names(cli_opt_value(a, "columns"), &storage, &names);
        if (nnames == 0) {
            free(storage);
            free(names);
            return cli_usage_error("--columns takes a comma-separated list of column names");
        }
    }

    struct pq_source src;
    int rc = cli_parquet_open_source(path, &src);
    if (rc != EXIT_OK) {
        free(storage);
        free(names);
        return rc;
    }
    struct pq_reader *r = NULL;
    struct textio_render *render = NULL;
    struct ArrowSchema schema = {0};
    struct buf out = BUF_INIT;
    struct error err = {0};
    rc = EXIT_FAILURE_OTHER;
    if (cli_parquet_open_reader(path, &src, names, nnames, &r, &schema) != 0)
        goto out;
    if (textio_render_new(&schema, format, &render, &err) != 0) {
        fprintf(stderr, "hoglake: %s: %s\n", path, err.msg);
        goto out;
    }
    textio_render_geometry_as_wkt(render, geometry && strcmp(geometry, "wkt") == 0);
    textio_render_header(render, &out);
    int64_t done = 0;
    const struct pq_file_meta *m = pq_reader_meta(r);
    for (size_t g = 0; g < m->nrow_groups && done < limit; g++) {
        struct ArrowArray batch;
        if (pq_reader_read_row_group(r, g, &batch, &err) != 0) {
            fprintf(stderr, "hoglake: %s: row group %zu: %s\n", path, g, err.msg);
            goto out;
        }
        for (int64_t i = 0; i < batch.length && done < limit; i++, done++) {
            if (textio_render_row(render, &batch, i, &out, &err) != 0) {
                fprintf(stderr, "hoglake: %s: row group %zu, row %lld: %s\n", path, g, (long long)i,
                        err.msg);
                batch.release(&batch);
                goto out;
            }
            if (out.len >= OUT_FLUSH_BYTES && flush_out(&out) != 0) {
                batch.release(&batch);
                goto out;
            }
        }
        batch.release(&batch);
    }
    if (flush_out(&out) == 0 && fflush(stdout) == 0)
        rc = EXIT_OK;
out:
    textio_render_free(render);
    if (schema.release)
        schema.release(&schema);
    pq_reader_free(r);
    pq_source_close(&src);
    buf_free(&out);
    free(storage);
    free(names);
    return rc;
}
