/* hoglake delete: the rows a predicate selects become deletion vectors, in
 * one commit (hl_table_delete). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"

static const struct cli_opt delete_opts[] = {
    {"where", true, false,
     "EXPR  the rows to delete: comparisons (= != < <= > >=), IN, IS [NOT] NULL, BETWEEN, "
     "AND/OR/NOT, literals such as 'text', 42, DATE '2026-01-02', TIMESTAMP '...' (required; "
     "'true' deletes every row)"},
    {"dry-run", false, false, "count the rows; write and commit nothing"},
    {"author", true, false, "NAME  recorded on the snapshot"},
    {"message", true, false, "TEXT  recorded on the snapshot"},
};

void cli_print_change_reads(int64_t files_scanned, int64_t files_pruned, int64_t row_groups_scanned,
                            int64_t row_groups_pruned, int64_t pages_scanned, int64_t pages_pruned)
{
    char f[OUT_NUM_MAX], fp[OUT_NUM_MAX], g[OUT_NUM_MAX], gp[OUT_NUM_MAX], p[OUT_NUM_MAX],
        pp[OUT_NUM_MAX];
    printf("read %s (%s pruned), %s (%s pruned), %s (%s pruned)\n",
           out_count(files_scanned, "file", "files", f, sizeof f), out_number(fp, files_pruned),
           out_count(row_groups_scanned, "row group", "row groups", g, sizeof g),
           out_number(gp, row_groups_pruned),
           out_count(pages_scanned, "page", "pages", p, sizeof p), out_number(pp, pages_pruned));
}

static void print_result(const struct cli *cli, const struct hl_delete_result *r, bool dry_run)
{
    if (cli->json) {
        json_t *doc = json_pack(
            "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:b}", "snapshot_id",
            (json_int_t)r->snapshot_id, "read_snapshot", (json_int_t)r->read_snapshot,
            "rows_deleted", (json_int_t)r->rows_deleted, "files_affected",
            (json_int_t)r->files_affected, "files_scanned", (json_int_t)r->files_scanned,
            "files_pruned", (json_int_t)r->files_pruned, "row_groups_scanned",
            (json_int_t)r->row_groups_scanned, "row_groups_pruned",
            (json_int_t)r->row_groups_pruned, "pages_scanned", (json_int_t)r->pages_scanned,
            "pages_pruned", (json_int_t)r->pages_pruned, "bytes_written",
            (json_int_t)r->bytes_written, "attempts", r->attempts, "dry_run", dry_run);
        cli_print_json(doc);
        json_decref(doc);
        return;
    }
    char rows[OUT_NUM_MAX], files[OUT_NUM_MAX];
    out_count(r->rows_deleted, "row", "rows", rows, sizeof rows);
    out_count(r->files_affected, "file", "files", files, sizeof files);
    if (dry_run)
        printf("would delete %s from %s (at snapshot %lld)\n", rows, files,
               (long long)r->read_snapshot);
    else if (r->snapshot_id < 0)
        printf("nothing deleted: no live row matches (at snapshot %lld)\n",
               (long long)r->read_snapshot);
    else
        printf("snapshot %lld: deleted %s from %s\n", (long long)r->snapshot_id, rows, files);
    cli_print_change_reads(r->files_scanned, r->files_pruned, r->row_groups_scanned,
                           r->row_groups_pruned, r->pages_scanned, r->pages_pruned);
}

int cli_change_open(struct cli *cli, const struct cli_args *a, struct cli_table *h,
                    struct hl_delete_options *o)
{
    char parts[3][200];
    if (!cli_split_name(a->positional[0], 3, parts))
        return cli_usage_error("expected CATALOG.NAMESPACE.TABLE, got '%s'", a->positional[0]);
    struct hl_error err;
    hl_status st = cli_table_open(cli, parts, h, &err);
    if (st != HL_OK)
        return cli_report(st, &err);
    hl_delete_options_init(o);
    o->dry_run = cli_opt_given(a, "dry-run");
    o->author = cli_opt_value(a, "author");
    o->message = cli_opt_value(a, "message");
    return EXIT_OK;
}

static int run_delete(struct cli *cli, const struct cli_args *a)
{
    const char *where = cli_opt_value(a, "where");
    if (!where)
        return cli_usage_error("--where EXPR is required ('true' deletes every row)");
    struct cli_table h;
    struct hl_delete_options o;
    int rc = cli_change_open(cli, a, &h, &o);
    if (rc != EXIT_OK)
        return rc;
    struct hl_delete_result r;
    struct hl_error err;
    hl_status st = hl_table_delete(h.table, where, &o, &r, &err);
    if (st == HL_OK)
        print_result(cli, &r, o.dry_run);
    else
        rc = cli_report(st, &err);
    cli_table_close(&h);
    return rc;
}

int cmd_delete(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb v = {"delete",
                                      "delete the rows a predicate selects (deletion vectors, one "
                                      "commit)",
                                      "delete CATALOG.NAMESPACE.TABLE --where EXPR [--dry-run]",
                                      delete_opts,
                                      sizeof delete_opts / sizeof delete_opts[0],
                                      1,
                                      1,
                                      run_delete};
    return cli_run_command(cli, &v, argc, argv);
}
