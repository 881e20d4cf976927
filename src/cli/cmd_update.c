/* hoglake update: the rows a predicate selects get new values, keeping
 * their row ids, in one commit (hl_table_update). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"

static const struct cli_opt update_opts[] = {
    {"set", true, false,
     "'COL = EXPR, ...'  the new values: literals, columns, + - * /, CASE WHEN ... THEN ... "
     "ELSE ... END, NULL; each computed from the row before the update (required)"},
    {"where", true, false,
     "EXPR  the rows to update: comparisons (= != < <= > >=), IN, IS [NOT] NULL, BETWEEN, "
     "AND/OR/NOT, literals such as 'text', 42, DATE '2026-01-02' (required; 'true' updates "
     "every row)"},
    {"dry-run", false, false, "count the rows and compute their values; write and commit nothing"},
    {"author", true, false, "NAME  recorded on the snapshot"},
    {"message", true, false, "TEXT  recorded on the snapshot"},
};

static void print_json(const struct hl_update_result *r, bool dry_run)
{
    json_t *doc = json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:b}", "snapshot_id",
        (json_int_t)r->snapshot_id, "read_snapshot", (json_int_t)r->read_snapshot, "rows_updated",
        (json_int_t)r->rows_updated, "files_affected", (json_int_t)r->files_affected,
        "files_scanned", (json_int_t)r->files_scanned, "files_pruned", (json_int_t)r->files_pruned,
        "row_groups_scanned", (json_int_t)r->row_groups_scanned, "row_groups_pruned",
        (json_int_t)r->row_groups_pruned, "pages_scanned", (json_int_t)r->pages_scanned,
        "pages_pruned", (json_int_t)r->pages_pruned, "files_written", (json_int_t)r->files_written,
        "bytes_written", (json_int_t)r->bytes_written, "attempts", r->attempts, "dry_run", dry_run);
    cli_print_json(doc);
    json_decref(doc);
}

static void print_text(const struct hl_update_result *r, bool dry_run)
{
    char rows[OUT_NUM_MAX], files[OUT_NUM_MAX], written[OUT_NUM_MAX];
    out_count(r->rows_updated, "row", "rows", rows, sizeof rows);
    out_count(r->files_affected, "file", "files", files, sizeof files);
    if (dry_run)
        printf("would update %s of %s (at snapshot %lld)\n", rows, files,
               (long long)r->read_snapshot);
    else if (r->snapshot_id < 0)
        printf("nothing updated: no live row matches (at snapshot %lld)\n",
               (long long)r->read_snapshot);
    else
        printf("snapshot %lld: updated %s of %s, written to %s\n", (long long)r->snapshot_id, rows,
               files,
               out_count(r->files_written, "new file", "new files", written, sizeof written));
    cli_print_change_reads(r->files_scanned, r->files_pruned, r->row_groups_scanned,
                           r->row_groups_pruned, r->pages_scanned, r->pages_pruned);
}

static int run_update(struct cli *cli, const struct cli_args *a)
{
    const char *set = cli_opt_value(a, "set"), *where = cli_opt_value(a, "where");
    if (!set)
        return cli_usage_error("--set 'COL = EXPR, ...' is required");
    if (!where)
        return cli_usage_error("--where EXPR is required ('true' updates every row)");
    struct cli_table h;
    struct hl_delete_options o;
    int rc = cli_change_open(cli, a, &h, &o);
    if (rc != EXIT_OK)
        return rc;
    struct hl_update_result r;
    struct hl_error err;
    hl_status st = hl_table_update(h.table, set, where, &o, &r, &err);
    if (st == HL_OK && cli->json)
        print_json(&r, o.dry_run);
    else if (st == HL_OK)
        print_text(&r, o.dry_run);
    else
        rc = cli_report(st, &err);
    cli_table_close(&h);
    return rc;
}

int cmd_update(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb v = {
        "update",
        "set columns of the rows a predicate selects (the rows rewritten with their row ids and "
        "the old ones deleted, one commit)",
        "update CATALOG.NAMESPACE.TABLE --set 'COL = EXPR, ...' --where EXPR [--dry-run]",
        update_opts,
        sizeof update_opts / sizeof update_opts[0],
        1,
        1,
        run_update};
    return cli_run_command(cli, &v, argc, argv);
}
