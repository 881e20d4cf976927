/* hoglake snapshots list|resolve: a catalog's snapshot log, every page of
 * it, each snapshot's changes in words ("appended events (+3 files, 1,024
 * rows)"); and the snapshot an instant resolves to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "util/timefmt.h"

/* What each change kind did, in words, before the object's name. */
static const struct {
    const char *kind;
    const char *verb;
} change_verbs[] = {
    {"namespace_created", "created namespace"},
    {"namespace_dropped", "dropped namespace"},
    {"table_created", "created table"},
    {"table_dropped", "dropped table"},
    {"table_altered", "altered"},
    {"table_inserted_into", "appended"},
    {"table_deleted_from", "deleted from"},
    {"table_compacted", "compacted"},
    {"view_created", "created view"},
    {"view_dropped", "dropped view"},
};

/* One change in words into buf: "appended events (+3 files, 1,024
 * rows)". An object whose name the server no longer knows (its rows
 * retired) is named by its id; a kind this client does not know is shown
 * as the server spells it. */
static void change_text(const json_t *c, char *buf, size_t size)
{
    const char *kind = json_string_value(json_object_get(c, "kind"));
    const char *name = json_string_value(json_object_get(c, "name"));
    const char *verb = kind ? kind : "?";
    for (size_t i = 0; kind && i < sizeof change_verbs / sizeof change_verbs[0]; i++)
        if (strcmp(kind, change_verbs[i].kind) == 0)
            verb = change_verbs[i].verb;
    char id[40];
    if (!name) {
        snprintf(id, sizeof id, "#%lld", (long long)cli_json_i64(c, "object_id"));
        name = id;
    }
    char files[40], rows[40];
    if (json_object_get(c, "files_added") && cli_json_i64(c, "files_added") > 0)
        snprintf(buf, size, "%s %s (+%s, %s)", verb, name,
                 out_count(cli_json_i64(c, "files_added"), "file", "files", files, sizeof files),
                 out_count(cli_json_i64(c, "rows_added"), "row", "rows", rows, sizeof rows));
    else if (json_object_get(c, "delete_files_added") && cli_json_i64(c, "delete_files_added") > 0)
        snprintf(buf, size, "%s %s (%s)", verb, name,
                 out_count(cli_json_i64(c, "delete_files_added"), "deletion vector",
                           "deletion vectors", files, sizeof files));
    else
        snprintf(buf, size, "%s %s", verb, name);
}

/* A snapshot's changes in words, "; " between them (malloc'd; NULL when
 * out of memory). */
static char *changes_text(const json_t *snapshot)
{
    size_t len = 0, k;
    char *all = calloc(1, 1);
    json_t *c;
    json_array_foreach (json_object_get(snapshot, "changes"), k, c) {
        char one[400];
        change_text(c, one, sizeof one);
        size_t n = strlen(one);
        char *grown = all ? realloc(all, len + n + 3) : NULL;
        if (!grown) {
            free(all);
            return NULL;
        }
        all = grown;
        snprintf(all + len, n + 3, "%s%s", k ? "; " : "", one);
        len += n + (k ? 2 : 0);
    }
    return all;
}

/* The changes are the last column, kept whole: a snapshot's is one line
 * however much it did. */
static void print_snapshots(const json_t *snaps)
{
    static const char *const headers[] = {"SNAPSHOT", "TIME",    "SCHEMA",
                                          "AUTHOR",   "MESSAGE", "CHANGES"};
    struct out_table t;
    out_table_init(&t, 6, headers);
    out_table_keep_whole(&t, 5);
    size_t i;
    json_t *s;
    json_array_foreach (snaps, i, s) {
        char id[24], sv[24];
        snprintf(id, sizeof id, "%lld", (long long)cli_json_i64(s, "snapshot_id"));
        snprintf(sv, sizeof sv, "%lld", (long long)cli_json_i64(s, "schema_version"));
        char *changes = changes_text(s);
        out_table_row(&t, id, json_string_value(json_object_get(s, "snapshot_time")), sv,
                      json_string_value(json_object_get(s, "author")),
                      json_string_value(json_object_get(s, "message")),
                      changes ? changes : "(out of memory)");
        free(changes);
    }
    out_table_print(&t);
    out_table_free(&t);
}

/* Appends one page's snapshots to `all` and moves the cursor to the page's
 * last id. Returns false (having said why) when the server claims more but
 * the cursor would not move, which would loop forever. */
static bool take_page(json_t *all, json_t *page, bool descending, int64_t *cursor)
{
    json_t *snaps = json_object_get(page, "snapshots");
    if (!json_is_array(snaps)) {
        fprintf(stderr, "hoglake: the server's snapshot page has no 'snapshots' array\n");
        return false;
    }
    json_array_extend(all, snaps);
    if (!json_is_true(json_object_get(page, "has_more")))
        return true;
    const json_t *last =
        json_object_get(json_array_get(snaps, json_array_size(snaps) - 1), "snapshot_id");
    int64_t next = json_is_integer(last) ? json_integer_value(last) : *cursor;
    if (descending ? next >= *cursor : next <= *cursor) {
        fprintf(stderr,
                "hoglake: the server reported more snapshots but its page did not move "
                "past snapshot %lld\n",
                (long long)*cursor);
        return false;
    }
    *cursor = next;
    return true;
}

/* Every snapshot from the cursor on, one request per page (next cursor =
 * the page's last id), printed as one table or one JSON array. */
static int run_list(struct cli *cli, const struct cli_args *a)
{
    int64_t after = 0, before = 0, limit = 1000;
    int rc;
    if ((rc = cli_opt_i64(a, "after", 0, &after)) != EXIT_OK ||
        (rc = cli_opt_i64(a, "before", 0, &before)) != EXIT_OK ||
        (rc = cli_opt_i64(a, "limit", 1, &limit)) != EXIT_OK)
        return rc;
    bool descending = cli_opt_given(a, "before");
    if (descending && after != 0)
        return cli_usage_error("--before and a non-zero --after are mutually exclusive");
    char base[600];
    if ((rc = cli_object_path(base, sizeof base, a->positional[0], 1, NULL, "/snapshots")) !=
        EXIT_OK)
        return rc;
    json_t *all = json_array();
    int64_t cursor = descending ? before : after;
    bool more = true;
    while (more && rc == EXIT_OK) {
        char path[700];
        snprintf(path, sizeof path, "%s?%s=%lld&limit=%lld", base, descending ? "before" : "after",
                 (long long)cursor, (long long)limit);
        json_t *page;
        if ((rc = cli_request(cli, "GET", path, NULL, &page)) != EXIT_OK)
            break;
        more = json_is_true(json_object_get(page, "has_more"));
        if (!take_page(all, page, descending, &cursor))
            rc = EXIT_FAILURE_OTHER;
        json_decref(page);
    }
    if (rc == EXIT_OK) {
        if (cli->json)
            cli_print_json(all);
        else
            print_snapshots(all);
    }
    json_decref(all);
    return rc;
}

static void show_resolved(const json_t *snap, const char *name)
{
    (void)name;
    char *changes = changes_text(snap);
    printf("snapshot %lld at %s\n", (long long)cli_json_i64(snap, "snapshot_id"),
           json_string_value(json_object_get(snap, "snapshot_time")));
    if (changes && *changes)
        printf("  %s\n", changes);
    free(changes);
}

/* The snapshot --at resolves to: the newest taken at or before it. The
 * instant is checked here so that a typo never reaches the server. */
static int run_resolve(struct cli *cli, const struct cli_args *a)
{
    const char *at = cli_opt_value(a, "at");
    int64_t micros;
    if (!at)
        return cli_usage_error("--at TIME is required");
    if (!time_parse_iso8601(at, &micros))
        return cli_usage_error("--at takes an ISO-8601 instant with an offset "
                               "(2026-09-05T00:00:00Z), got '%s'",
                               at);
    char path[1200], enc[160];
    int rc = cli_object_path(path, sizeof path, a->positional[0], 1, NULL,
                             "/snapshots/resolve?at_timestamp=");
    if (rc != EXIT_OK)
        return rc;
    if (!hl_url_encode(at, enc, sizeof enc) || strlen(path) + strlen(enc) >= sizeof path)
        return cli_usage_error("--at value too long");
    strcat(path, enc);
    json_t *resp;
    if ((rc = cli_request(cli, "GET", path, NULL, &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_resolved, a->positional[0]);
}

static const struct cli_opt resolve_opts[] = {
    {"at", true, false, "TIME  an ISO-8601 instant with an offset (2026-09-05T00:00:00Z)"},
};

static const struct cli_opt list_opts[] = {
    {"after", true, false, "N  snapshots after N, ascending (default 0)"},
    {"before", true, false, "N  snapshots before N, descending"},
    {"limit", true, false, "N  snapshots per request (default 1000; the server caps it at 10000)"},
};

int cmd_snapshots(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"list", "list a catalog's snapshots with their changes (every page)",
         "snapshots [list] CATALOG [--after N | --before N] [--limit N]", list_opts,
         sizeof list_opts / sizeof list_opts[0], 1, 1, run_list},
        {"resolve", "the snapshot an instant resolves to (the newest at or before it)",
         "snapshots resolve CATALOG --at TIME", resolve_opts, 1, 1, 1, run_resolve},
    };
    return cli_run_verbs_default(cli, "snapshots", verbs, sizeof verbs / sizeof verbs[0], argc,
                                 argv);
}
