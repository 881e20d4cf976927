/* hoglake files and changes: a table's data files as of a snapshot and
 * its changefeed plan between two snapshots. Read-only. Both come in
 * pages: every page is read (all at the first page's snapshot) and the
 * whole listing shown. (Consumers' offsets: cmd_consumers.c.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "util/timefmt.h"

/* How a column shows its member: a number, text, or compact JSON (which
 * keeps a NULL partition value apart from the string "null"). */
enum cell_kind { CELL_INT, CELL_TEXT, CELL_JSON };

struct column {
    const char *header;
    const char *key;
    enum cell_kind kind;
};

/* One row per object of `rows`; a missing member is an empty cell. The
 * last column is never cut: it holds what a reader copies (paths). */
static void print_rows(const json_t *rows, const struct column *cols, int ncols)
{
    const char *headers[OUT_MAX_COLS];
    for (int c = 0; c < ncols; c++)
        headers[c] = cols[c].header;
    struct out_table t;
    out_table_init(&t, ncols, headers);
    out_table_keep_whole(&t, ncols - 1);
    size_t i;
    json_t *row;
    json_array_foreach (rows, i, row) {
        const char *cells[OUT_MAX_COLS];
        char nums[OUT_MAX_COLS][24];
        char *owned[OUT_MAX_COLS] = {NULL};
        for (int c = 0; c < ncols; c++) {
            const json_t *v = json_object_get(row, cols[c].key);
            cells[c] = "";
            if (cols[c].kind == CELL_INT && json_is_integer(v)) {
                snprintf(nums[c], sizeof nums[c], "%lld", (long long)json_integer_value(v));
                cells[c] = nums[c];
            } else if (cols[c].kind == CELL_TEXT && json_is_string(v)) {
                cells[c] = json_string_value(v);
            } else if (cols[c].kind == CELL_JSON && v) {
                owned[c] = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
                cells[c] = owned[c];
            }
        }
        out_table_add(&t, cells);
        for (int c = 0; c < ncols; c++)
            free(owned[c]);
    }
    out_table_print(&t);
    out_table_free(&t);
}

static const struct column data_file_columns[] = {
    {"ID", "data_file_id", CELL_INT},
    {"ROWS", "record_count", CELL_INT},
    {"BYTES", "file_size_bytes", CELL_INT},
    {"STATS", "stats_state", CELL_TEXT},
    {"ROW_ID_START", "row_id_start", CELL_INT},
    {"BEGIN_SNAPSHOT", "begin_snapshot", CELL_INT},
    {"PARTITION", "partition_values", CELL_JSON},
    {"PATH", "path", CELL_TEXT},
};

static const struct column delete_file_columns[] = {
    {"ID", "delete_file_id", CELL_INT},
    {"DATA_FILE", "data_file_id", CELL_INT},
    {"DELETES", "delete_count", CELL_INT},
    {"BYTES", "file_size_bytes", CELL_INT},
    {"BEGIN_SNAPSHOT", "begin_snapshot", CELL_INT},
    {"PATH", "path", CELL_TEXT},
};

#define NCOLS(cols) ((int)(sizeof cols / sizeof cols[0]))

/* Every page of the paged listing at path, merged into one document. */
static int get_all_pages(struct cli *cli, const char *path, json_t **whole)
{
    char *text = NULL;
    struct hl_error err;
    hl_status st = hl_client_get_pages(cli->client, path, &text, &err);
    if (st != HL_OK)
        return cli_report(st, &err);
    json_error_t jerr;
    *whole = json_loads(text, 0, &jerr);
    free(text);
    if (!*whole) {
        fprintf(stderr, "hoglake: out of memory\n");
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

/* --snapshot and --at, checked before any request: a snapshot id, an
 * instant the server can resolve (an offset is required), not both. */
static int time_travel_path(char *path, size_t size, const struct cli_args *a)
{
    int64_t snapshot, micros;
    int rc = cli_opt_i64(a, "snapshot", 0, &snapshot);
    if (rc != EXIT_OK)
        return rc;
    const char *at = cli_opt_value(a, "at");
    if (at && cli_opt_given(a, "snapshot"))
        return cli_usage_error("give at most one of --snapshot and --at");
    if (at && !time_parse_iso8601(at, &micros))
        return cli_usage_error("--at takes an ISO-8601 instant with an offset "
                               "(2026-09-05T00:00:00Z), got '%s'",
                               at);
    if (!cli_add_time_travel(path, size, a))
        return cli_usage_error("--snapshot/--at value too long");
    return EXIT_OK;
}

/* ---- data files ---- */

/* "N files, R rows, B bytes" under a listing. */
static void print_file_totals(const json_t *files)
{
    long long rows = 0, bytes = 0;
    size_t i;
    json_t *f;
    json_array_foreach (files, i, f) {
        rows += (long long)json_integer_value(json_object_get(f, "record_count"));
        bytes += (long long)json_integer_value(json_object_get(f, "file_size_bytes"));
    }
    printf("%zu file%s, %lld rows, %lld bytes\n", json_array_size(files),
           json_array_size(files) == 1 ? "" : "s", rows, bytes);
}

static int run_files(struct cli *cli, const struct cli_args *a)
{
    char path[1200];
    int rc = cli_object_path(path, sizeof path, a->positional[0], 3, "tables", "/files");
    if (rc != EXIT_OK || (rc = time_travel_path(path, sizeof path, a)) != EXIT_OK)
        return rc;
    json_t *listing;
    if ((rc = get_all_pages(cli, path, &listing)) != EXIT_OK)
        return rc;
    /* The whole listing: every page's files, as one array. */
    const json_t *files = json_object_get(listing, "files");
    if (!json_is_array(files)) {
        json_decref(listing);
        fprintf(stderr, "hoglake: the server's file listing has no files array\n");
        return EXIT_FAILURE_OTHER;
    }
    if (cli->json) {
        cli_print_json(files);
    } else {
        print_rows(files, data_file_columns, NCOLS(data_file_columns));
        print_file_totals(files);
    }
    json_decref(listing);
    return EXIT_OK;
}

/* ---- changes ---- */

static const struct cli_opt changes_opts[] = {
    {"from", true, false, "N  changes after snapshot N (required; exclusive)"},
    {"to", true, false, "M  up to and including snapshot M (default: the head)"},
    {"rows", false, false,
     "print the rows instead of the plan: those inserted, then those deleted, each with its "
     "_row_id and _change_type (insert|delete)"},
    {"format", true, false, "csv|jsonl  the rows' format with --rows (default jsonl)"},
};

static void print_change_plan(const char *qualified, const json_t *plan)
{
    const json_t *files = json_object_get(plan, "files");
    const json_t *deletes = json_object_get(plan, "delete_files");
    const char *uuid = json_string_value(json_object_get(plan, "table_uuid"));
    printf("table           %s\n", qualified);
    printf("uuid            %s\n", uuid ? uuid : "");
    printf("changes         after snapshot %lld, up to snapshot %lld\n",
           (long long)json_integer_value(json_object_get(plan, "from_snapshot")),
           (long long)json_integer_value(json_object_get(plan, "to_snapshot")));
    printf("data files      %zu\n", json_array_size(files));
    printf("delete files    %zu\n\n", json_array_size(deletes));
    print_rows(files, data_file_columns, NCOLS(data_file_columns));
    printf("\n");
    print_rows(deletes, delete_file_columns, NCOLS(delete_file_columns));
}

static void show_changes(const json_t *resp, const char *name)
{
    print_change_plan(name, resp);
}

static int run_changes(struct cli *cli, const struct cli_args *a)
{
    int64_t from = 0, to = 0;
    int rc;
    if (!cli_opt_given(a, "from"))
        return cli_usage_error("--from N is required");
    if ((rc = cli_opt_i64(a, "from", 0, &from)) != EXIT_OK ||
        (rc = cli_opt_i64(a, "to", 0, &to)) != EXIT_OK)
        return rc;
    if (cli_opt_given(a, "format") && !cli_opt_given(a, "rows"))
        return cli_usage_error("--format goes with --rows");
    if (cli_opt_given(a, "rows"))
        return cli_print_changed_rows(cli, a->positional[0], from, cli_opt_given(a, "to") ? to : -1,
                                      cli_opt_value(a, "format"));
    char path[1300], query[80];
    if ((rc = cli_object_path(path, sizeof path, a->positional[0], 3, "tables", "/changes")) !=
        EXIT_OK)
        return rc;
    if (cli_opt_given(a, "to"))
        snprintf(query, sizeof query, "?from_snapshot=%lld&to_snapshot=%lld", (long long)from,
                 (long long)to);
    else
        snprintf(query, sizeof query, "?from_snapshot=%lld", (long long)from);
    strncat(path, query, sizeof path - strlen(path) - 1);
    json_t *resp = NULL;
    if ((rc = get_all_pages(cli, path, &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_changes, a->positional[0]);
}

/* ---- commands ---- */

int cmd_files(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb command = {
        "files",
        "list a table's live data files, as of a snapshot or instant",
        "files CATALOG.NAMESPACE.TABLE [--snapshot N | --at TIME]",
        cli_time_travel_opts,
        2,
        1,
        1,
        run_files};
    return cli_run_command(cli, &command, argc, argv);
}

int cmd_changes(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb command = {
        "changes",
        "show a table's changefeed plan: the files and deletion vectors added in "
        "(from, to]",
        "changes CATALOG.NAMESPACE.TABLE --from N [--to M] [--rows [--format csv|jsonl]]",
        changes_opts,
        sizeof changes_opts / sizeof changes_opts[0],
        1,
        1,
        run_changes};
    return cli_run_command(cli, &command, argc, argv);
}
