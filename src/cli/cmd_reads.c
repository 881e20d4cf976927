/* hoglake files and changes: a table's data files as of a snapshot and
 * its changefeed plan between two snapshots. Read-only. Both come in
 * pages: every page is read (all at the first page's snapshot) and the
 * whole listing shown. (Consumers' offsets: cmd_consumers.c.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "cli/partition_text.h"
#include "util/timefmt.h"

/* How a column shows its member: an id, a count, a size, text, or a
 * file's partition values (named by its spec, see partition_text.h). */
enum cell_kind { CELL_INT, CELL_COUNT, CELL_BYTES, CELL_TEXT, CELL_PARTITION };

/* The partition specs files of a listing were written under, by spec id,
 * read from the table as the listing needs them. */
struct specs {
    struct cli *cli;
    char table_path[1200]; /* the table's GET, without a query */
    struct part_spec *list;
    size_t n;
};

/* Room for one more spec: the new last one, not yet counted; NULL when
 * memory runs out. */
static struct part_spec *specs_room(struct specs *s)
{
    struct part_spec *grown = realloc(s->list, (s->n + 1) * sizeof *s->list);
    if (!grown)
        return NULL;
    s->list = grown;
    return &s->list[s->n];
}

/* Reads the table at `query` ("?snapshot=N", "" for the head) and keeps
 * its spec. A table that cannot be read adds nothing: its files' values
 * then show unnamed. */
static void specs_load(struct specs *s, const char *query)
{
    char path[1400];
    snprintf(path, sizeof path, "%s%s%stotals=false", s->table_path, query, *query ? "&" : "?");
    char *text = NULL;
    struct hl_error err;
    if (hl_client_request(s->cli->client, "GET", path, NULL, &text, &err) != HL_OK)
        return;
    json_t *table = json_loads(text, 0, NULL);
    free(text);
    struct part_spec *room = specs_room(s);
    if (room && part_spec_from_table(table, room) == 0)
        s->n++;
    json_decref(table);
}

static const struct part_spec *specs_find(const struct specs *s, json_int_t id)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->list[i].spec_id == id)
            return &s->list[i];
    return NULL;
}

/* The spec of a file: one already read, else the table's as of the
 * snapshot that wrote the file (the spec then current). A spec that
 * cannot be found so is remembered empty, asked for once: its files'
 * values show unnamed. */
static const struct part_spec *specs_of_file(struct specs *s, const json_t *file)
{
    json_int_t id = json_integer_value(json_object_get(file, "spec_id"));
    const struct part_spec *spec = specs_find(s, id);
    if (spec)
        return spec;
    char query[64];
    snprintf(query, sizeof query, "?snapshot=%" JSON_INTEGER_FORMAT,
             json_integer_value(json_object_get(file, "begin_snapshot")));
    specs_load(s, query);
    if ((spec = specs_find(s, id)) != NULL)
        return spec;
    struct part_spec *room = specs_room(s);
    if (!room)
        return NULL;
    *room = (struct part_spec){.spec_id = id};
    s->n++;
    return room;
}

static void specs_free(struct specs *s)
{
    for (size_t i = 0; i < s->n; i++)
        part_spec_free(&s->list[i]);
    free(s->list);
}

/* A file's partition values as text (NULL when it has none; caller frees). */
static char *partition_cell(struct specs *s, const json_t *file)
{
    const json_t *values = json_object_get(file, "partition_values");
    size_t n = json_array_size(values);
    if (!s || n == 0)
        return NULL;
    const char **v = calloc(n, sizeof *v);
    if (!v)
        return NULL;
    for (size_t k = 0; k < n; k++)
        v[k] = json_string_value(json_array_get(values, k));
    struct buf out = BUF_INIT;
    char *text = part_text(specs_of_file(s, file), v, n, &out) == 0 ? buf_take(&out) : NULL;
    buf_free(&out);
    free(v);
    return text;
}

struct column {
    const char *header;
    const char *key;
    enum cell_kind kind;
};

/* One row per object of `rows`; a missing member is an empty cell. The
 * last column is never cut: it holds what a reader copies (paths). Data
 * files' partitions are named by `specs`. */
static void print_rows(const json_t *rows, const struct column *cols, int ncols,
                       struct specs *specs)
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
        char nums[OUT_MAX_COLS][OUT_NUM_MAX];
        char *owned[OUT_MAX_COLS] = {NULL};
        for (int c = 0; c < ncols; c++) {
            const json_t *v = json_object_get(row, cols[c].key);
            json_int_t num = json_integer_value(v);
            cells[c] = "";
            if (cols[c].kind == CELL_INT && json_is_integer(v)) {
                snprintf(nums[c], sizeof nums[c], "%lld", (long long)num);
                cells[c] = nums[c];
            } else if (cols[c].kind == CELL_COUNT && json_is_integer(v)) {
                cells[c] = out_number(nums[c], num);
            } else if (cols[c].kind == CELL_BYTES && json_is_integer(v)) {
                cells[c] = out_bytes(nums[c], num < 0 ? 0 : (uint64_t)num);
            } else if (cols[c].kind == CELL_TEXT && json_is_string(v)) {
                cells[c] = json_string_value(v);
            } else if (cols[c].kind == CELL_PARTITION) {
                owned[c] = partition_cell(specs, row);
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
    {"ROWS", "record_count", CELL_COUNT},
    {"BYTES", "file_size_bytes", CELL_BYTES},
    {"STATS", "stats_state", CELL_TEXT},
    {"ROW_ID_START", "row_id_start", CELL_INT},
    {"BEGIN_SNAPSHOT", "begin_snapshot", CELL_INT},
    {"PARTITION", "partition_values", CELL_PARTITION},
    {"PATH", "path", CELL_TEXT},
};

static const struct column delete_file_columns[] = {
    {"ID", "delete_file_id", CELL_INT},
    {"DATA_FILE", "data_file_id", CELL_INT},
    {"DELETES", "delete_count", CELL_COUNT},
    {"BYTES", "file_size_bytes", CELL_BYTES},
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

/* "N files, R rows, B MiB" under a listing. */
static void print_file_totals(const json_t *files)
{
    int64_t rows = 0, bytes = 0;
    size_t i;
    json_t *f;
    json_array_foreach (files, i, f) {
        rows += json_integer_value(json_object_get(f, "record_count"));
        bytes += json_integer_value(json_object_get(f, "file_size_bytes"));
    }
    char a[OUT_NUM_MAX], b[OUT_NUM_MAX], c[OUT_NUM_MAX];
    printf("%s, %s, %s\n", out_count((int64_t)json_array_size(files), "file", "files", a, sizeof a),
           out_count(rows, "row", "rows", b, sizeof b),
           out_bytes(c, bytes < 0 ? 0 : (uint64_t)bytes));
}

/* The specs of a table's listing, starting with the table's at `query`. */
static int specs_start(struct specs *s, struct cli *cli, const char *qualified, const char *query)
{
    memset(s, 0, sizeof *s);
    s->cli = cli;
    int rc = cli_object_path(s->table_path, sizeof s->table_path, qualified, 3, "tables", "");
    if (rc == EXIT_OK)
        specs_load(s, query);
    return rc;
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
        /* The table as of the listing's snapshot: its spec names most
         * files' partitions. */
        char query[200] = "";
        cli_add_time_travel(query, sizeof query, a);
        struct specs specs;
        if ((rc = specs_start(&specs, cli, a->positional[0], query)) == EXIT_OK) {
            print_rows(files, data_file_columns, NCOLS(data_file_columns), &specs);
            print_file_totals(files);
        }
        specs_free(&specs);
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

static void print_change_plan(const char *qualified, const json_t *plan, struct specs *specs)
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
    print_rows(files, data_file_columns, NCOLS(data_file_columns), specs);
    printf("\n");
    print_rows(deletes, delete_file_columns, NCOLS(delete_file_columns), NULL);
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
    if (cli->json) {
        cli_print_json(resp);
    } else {
        /* The table as of the plan's last snapshot names its partitions. */
        snprintf(query, sizeof query, "?snapshot=%" JSON_INTEGER_FORMAT,
                 json_integer_value(json_object_get(resp, "to_snapshot")));
        struct specs specs;
        if ((rc = specs_start(&specs, cli, a->positional[0], query)) == EXIT_OK)
            print_change_plan(a->positional[0], resp, &specs);
        specs_free(&specs);
    }
    json_decref(resp);
    return rc;
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
