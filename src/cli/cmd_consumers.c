/* hoglake consumers and hoglake offsets [list]|commit: a catalog's
 * changefeed consumers with their offsets and lag, one consumer's
 * offsets, and moving an offset forward. Offsets are not snapshots: no
 * catalog lock, no snapshot (docs/openapi.yaml, tag consumers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "util/strutil.h"

/* ---- consumers ---- */

/* The catalog's head, read after the consumer listing so that no offset
 * in it is past the head (offsets never pass the head they were written
 * at, and heads only grow): every lag is >= 0. */
static int catalog_head(struct cli *cli, const char *catalog, int64_t *head)
{
    char path[600];
    int rc = cli_object_path(path, sizeof path, catalog, 1, NULL, "");
    json_t *cat = NULL;
    if (rc == EXIT_OK && (rc = cli_request(cli, "GET", path, NULL, &cat)) == EXIT_OK) {
        if (json_is_integer(json_object_get(cat, "head_snapshot_id"))) {
            *head = cli_json_i64(cat, "head_snapshot_id");
        } else {
            fprintf(stderr, "hoglake: the server's catalog has no head_snapshot_id\n");
            rc = EXIT_FAILURE_OTHER;
        }
    }
    json_decref(cat);
    return rc;
}

/* Sets each offset's lag: the snapshots the catalog has taken since it
 * (head - committed_snapshot), whether or not they touched the table. A
 * count of the table's own changes would need the whole log since the
 * oldest offset; this needs nothing but the head. */
static void add_lags(json_t *list, int64_t head)
{
    json_object_set_new(list, "head_snapshot_id", json_integer(head));
    size_t i, k;
    json_t *consumer, *off;
    json_array_foreach (json_object_get(list, "consumers"), i, consumer)
        json_array_foreach (json_object_get(consumer, "offsets"), k, off)
            json_object_set_new(off, "lag",
                                json_integer(head - cli_json_i64(off, "committed_snapshot")));
}

static void show_consumers(const json_t *list, const char *catalog)
{
    const json_t *consumers = json_object_get(list, "consumers");
    printf("catalog %s: head snapshot %lld, %zu consumer%s\n", catalog,
           (long long)cli_json_i64(list, "head_snapshot_id"), json_array_size(consumers),
           json_array_size(consumers) == 1 ? "" : "s");
    if (json_array_size(consumers) == 0)
        return;
    static const char *const headers[] = {"CONSUMER", "TABLE",      "OFFSET",
                                          "LAG",      "UPDATED_AT", "TABLE_UUID"};
    struct out_table t;
    out_table_init(&t, 6, headers);
    out_table_keep_whole(&t, 5);
    size_t i, k;
    json_t *consumer, *off;
    json_array_foreach (consumers, i, consumer) {
        json_array_foreach (json_object_get(consumer, "offsets"), k, off) {
            char table[300], offset[24], lag[24];
            if (json_is_true(json_object_get(off, "table_dropped")))
                snprintf(table, sizeof table, "(dropped)");
            else
                snprintf(table, sizeof table, "%s.%s",
                         json_string_value(json_object_get(off, "namespace")),
                         json_string_value(json_object_get(off, "table_name")));
            snprintf(offset, sizeof offset, "%lld",
                     (long long)cli_json_i64(off, "committed_snapshot"));
            snprintf(lag, sizeof lag, "%lld", (long long)cli_json_i64(off, "lag"));
            out_table_row(&t, json_string_value(json_object_get(consumer, "consumer_id")), table,
                          offset, lag, json_string_value(json_object_get(off, "updated_at")),
                          json_string_value(json_object_get(off, "table_uuid")));
        }
    }
    out_table_print(&t);
    out_table_free(&t);
}

static int out_of_memory(void)
{
    fprintf(stderr, "hoglake: out of memory\n");
    return EXIT_FAILURE_OTHER;
}

/* Appends a page's consumers to the listing's; a consumer the last page
 * ended among continues with its first entry here. 0, or -1 out of
 * memory. */
static int merge_page(json_t *all, const json_t *page)
{
    size_t i;
    json_t *c;
    json_array_foreach (page, i, c) {
        json_t *last = json_array_size(all) ? json_array_get(all, json_array_size(all) - 1) : NULL;
        const char *id = json_string_value(json_object_get(c, "consumer_id"));
        if (i == 0 && last && id &&
            strcmp(id, json_string_value(json_object_get(last, "consumer_id"))) == 0) {
            if (json_array_extend(json_object_get(last, "offsets"), json_object_get(c, "offsets")))
                return -1;
        } else if (json_array_append(all, c) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Every page of the consumer listing into one {"consumers": [...]}. */
static int fetch_consumers(struct cli *cli, const char *catalog, json_t **out)
{
    char base[600], path[900];
    int rc = cli_object_path(base, sizeof base, catalog, 1, NULL, "/consumers");
    json_t *all = json_array();
    if (!all)
        return out_of_memory();
    char *token = NULL;
    while (rc == EXIT_OK) {
        int n = token ? snprintf(path, sizeof path, "%s?page_token=%s", base, token)
                      : snprintf(path, sizeof path, "%s", base);
        free(token);
        token = NULL;
        if (n < 0 || (size_t)n >= sizeof path) {
            fprintf(stderr, "hoglake: the server's page token is too long\n");
            rc = EXIT_FAILURE_OTHER;
            break;
        }
        json_t *page = NULL;
        if ((rc = cli_request(cli, "GET", path, NULL, &page)) != EXIT_OK)
            break;
        const json_t *consumers = json_object_get(page, "consumers");
        const json_t *next = json_object_get(page, "next_page_token");
        if (!json_is_array(consumers)) {
            fprintf(stderr, "hoglake: the server's consumer listing has no consumers array\n");
            rc = EXIT_FAILURE_OTHER;
        } else if (merge_page(all, consumers) != 0 ||
                   (json_is_string(next) && !(token = strdup(json_string_value(next))))) {
            rc = out_of_memory();
        }
        json_decref(page);
        if (!token)
            break;
    }
    free(token);
    if (rc != EXIT_OK) {
        json_decref(all);
        return rc;
    }
    if (!(*out = json_pack("{s:o}", "consumers", all)))
        return out_of_memory();
    return EXIT_OK;
}

static int run_consumers(struct cli *cli, const struct cli_args *a)
{
    json_t *list = NULL;
    int64_t head = 0;
    int rc = fetch_consumers(cli, a->positional[0], &list);
    if (rc == EXIT_OK)
        rc = catalog_head(cli, a->positional[0], &head);
    if (rc != EXIT_OK) {
        json_decref(list);
        return rc;
    }
    add_lags(list, head);
    return cli_show(cli, list, show_consumers, a->positional[0]);
}

/* ---- offsets ---- */

/* /v1/catalogs/C/consumers/CONSUMER/offsets[/TABLE_UUID] into path. */
static int offsets_path(char *path, size_t size, const char *catalog, const char *consumer,
                        const char *table_uuid)
{
    int rc = cli_object_path(path, size, catalog, 1, NULL, "/consumers");
    if (rc != EXIT_OK)
        return rc;
    if (!cli_path_append(path, size, consumer) || strlen(path) + sizeof "/offsets" > size)
        return cli_usage_error("consumer id too long");
    strcat(path, "/offsets");
    if (table_uuid && !cli_path_append(path, size, table_uuid))
        return cli_usage_error("table uuid too long");
    return EXIT_OK;
}

static void add_offset_row(struct out_table *t, const json_t *off)
{
    char snap[24];
    snprintf(snap, sizeof snap, "%lld", (long long)cli_json_i64(off, "committed_snapshot"));
    out_table_row(t, json_string_value(json_object_get(off, "consumer_id")),
                  json_string_value(json_object_get(off, "table_uuid")), snap,
                  json_string_value(json_object_get(off, "updated_at")));
}

/* All of a consumer's offsets (an array), or one (an object: a table of
 * one). */
static void show_offsets(const json_t *offsets, const char *name)
{
    (void)name;
    static const char *const headers[] = {"CONSUMER", "TABLE_UUID", "COMMITTED_SNAPSHOT",
                                          "UPDATED_AT"};
    struct out_table t;
    out_table_init(&t, 4, headers);
    if (json_is_array(offsets)) {
        size_t i;
        const json_t *off;
        json_array_foreach (offsets, i, off)
            add_offset_row(&t, off);
    } else {
        add_offset_row(&t, offsets);
    }
    out_table_print(&t);
    out_table_free(&t);
}

static int run_offsets(struct cli *cli, const struct cli_args *a)
{
    char path[1200];
    int rc = offsets_path(path, sizeof path, a->positional[0], a->positional[1],
                          a->npositional == 3 ? a->positional[2] : NULL);
    json_t *resp;
    if (rc != EXIT_OK || (rc = cli_request(cli, "GET", path, NULL, &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_offsets, a->positional[0]);
}

/* The uuid of TABLE: taken as it is when it is one (an offset may be on a
 * dropped incarnation), else NAMESPACE.TABLE in the catalog, looked up
 * at the head. */
static int table_uuid_of(struct cli *cli, const char *catalog, const char *table, char uuid[37])
{
    if (str_is_uuid(table)) {
        snprintf(uuid, 37, "%s", table);
        return EXIT_OK;
    }
    char qualified[700], path[1200];
    if (strchr(catalog, '.') ||
        snprintf(qualified, sizeof qualified, "%s.%s", catalog, table) >= (int)sizeof qualified)
        return cli_usage_error("expected CATALOG, then NAMESPACE.TABLE or a table uuid");
    int rc = cli_object_path(path, sizeof path, qualified, 3, "tables", "");
    json_t *info = NULL;
    if (rc != EXIT_OK || (rc = cli_request(cli, "GET", path, NULL, &info)) != EXIT_OK)
        return rc;
    const char *got = json_string_value(json_object_get(info, "table_uuid"));
    if (!got || !str_is_uuid(got)) {
        fprintf(stderr, "hoglake: the server's table has no table_uuid\n");
        rc = EXIT_FAILURE_OTHER;
    } else {
        snprintf(uuid, 37, "%s", got);
    }
    json_decref(info);
    return rc;
}

static void show_committed(const json_t *off, const char *table)
{
    printf("consumer %s: offset on %s (%s) is snapshot %lld\n",
           json_string_value(json_object_get(off, "consumer_id")), table,
           json_string_value(json_object_get(off, "table_uuid")),
           (long long)cli_json_i64(off, "committed_snapshot"));
}

/* PUT of the offset. The server keeps offsets monotonic: a lower one is
 * 409 offset_regression (exit 4), an equal one a no-op. */
static int run_commit(struct cli *cli, const struct cli_args *a)
{
    int64_t snapshot = 0;
    const char *text = a->positional[3];
    if (!str_parse_int64(text, &snapshot) || snapshot < 0)
        return cli_usage_error("SNAPSHOT must be a snapshot id (an integer >= 0), got '%s'", text);
    char uuid[37], path[1200];
    int rc = table_uuid_of(cli, a->positional[0], a->positional[2], uuid);
    if (rc == EXIT_OK)
        rc = offsets_path(path, sizeof path, a->positional[0], a->positional[1], uuid);
    if (rc != EXIT_OK)
        return rc;
    json_t *resp = NULL;
    rc = cli_request(cli, "PUT", path, json_pack("{s:I}", "snapshot_id", (json_int_t)snapshot),
                     &resp);
    if (rc != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_committed, a->positional[2]);
}

int cmd_consumers(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb command = {
        "consumers",
        "list a catalog's changefeed consumers: each offset, and its lag (the snapshots the "
        "catalog took since)",
        "consumers CATALOG",
        NULL,
        0,
        1,
        1,
        run_consumers};
    return cli_run_command(cli, &command, argc, argv);
}

int cmd_offsets(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"list", "show a changefeed consumer's committed offsets (all, or one table's)",
         "offsets [list] CATALOG CONSUMER [TABLE_UUID]", NULL, 0, 2, 3, run_offsets},
        {"commit", "move a consumer's offset on a table forward to SNAPSHOT (never back)",
         "offsets commit CATALOG CONSUMER NAMESPACE.TABLE|TABLE_UUID SNAPSHOT", NULL, 0, 4, 4,
         run_commit},
    };
    return cli_run_verbs_default(cli, "offsets", verbs, sizeof verbs / sizeof verbs[0], argc, argv);
}
