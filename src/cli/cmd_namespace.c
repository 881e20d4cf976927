/* hoglake namespace list|create|show|drop, and the view verbs, which share
 * the CATALOG.NS[.NAME] addressing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"

static void show_list(const json_t *resp, const char *name)
{
    (void)name;
    static const char *const headers[] = {"NAME", "ID"};
    struct out_table t;
    out_table_init(&t, 2, headers);
    size_t i;
    json_t *n;
    json_array_foreach (resp, i, n) {
        char id[24];
        snprintf(id, sizeof id, "%lld",
                 (long long)json_integer_value(json_object_get(n, "namespace_id")));
        out_table_row(&t, json_string_value(json_object_get(n, "name")), id);
    }
    out_table_print(&t);
    out_table_free(&t);
}

static int run_list(struct cli *cli, const struct cli_args *a)
{
    json_t *resp;
    int rc = cli_get(cli, a, 1, "namespaces", "", true, &resp);
    if (rc != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_list, a->positional[0]);
}

static void show_create(const json_t *resp, const char *name)
{
    printf("created namespace %s (id %lld, snapshot %lld)\n", name,
           (long long)json_integer_value(json_object_get(resp, "namespace_id")),
           (long long)json_integer_value(json_object_get(resp, "snapshot_id")));
}

static int run_create(struct cli *cli, const struct cli_args *a)
{
    char parts[2][200];
    if (!cli_split_name(a->positional[0], 2, parts))
        return cli_usage_error("expected CATALOG.NAMESPACE, got '%s'", a->positional[0]);
    char path[700];
    int rc = cli_object_path(path, sizeof path, parts[0], 1, "namespaces", "");
    json_t *resp;
    if (rc != EXIT_OK || (rc = cli_request(cli, "POST", path, json_pack("{s:s}", "name", parts[1]),
                                           &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_create, a->positional[0]);
}

static void show_show(const json_t *resp, const char *name)
{
    printf("namespace %s (id %lld)\n", name,
           (long long)json_integer_value(json_object_get(resp, "namespace_id")));
}

static int run_show(struct cli *cli, const struct cli_args *a)
{
    json_t *resp;
    int rc = cli_get(cli, a, 2, NULL, "", true, &resp);
    if (rc != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_show, a->positional[0]);
}

static const struct cli_opt drop_opts[] = {
    {"expected-id", true, false, "N  refuse unless the live namespace has this id"},
};

static void print_commit(const char *what, const char *name, const json_t *resp)
{
    printf("%s %s (snapshot %lld)\n", what, name,
           (long long)json_integer_value(json_object_get(resp, "snapshot_id")));
}

static void show_drop(const json_t *resp, const char *name)
{
    print_commit("dropped namespace", name, resp);
}

static int run_drop(struct cli *cli, const struct cli_args *a)
{
    char path[800];
    int rc = cli_object_path(path, sizeof path, a->positional[0], 2, NULL, "");
    if (rc != EXIT_OK)
        return rc;
    const char *expected = cli_opt_value(a, "expected-id");
    if (expected) {
        char enc[64];
        if (!hl_url_encode(expected, enc, sizeof enc))
            return cli_usage_error("bad --expected-id");
        snprintf(path + strlen(path), sizeof path - strlen(path), "?expected_namespace_id=%s", enc);
    }
    json_t *resp;
    if ((rc = cli_request(cli, "DELETE", path, NULL, &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_drop, a->positional[0]);
}

static const struct cli_verb ns_verbs[] = {
    {"list", "list namespaces", "namespace list CATALOG [--snapshot N | --at TIME]",
     cli_time_travel_opts, 2, 1, 1, run_list},
    {"create", "create a namespace", "namespace create CATALOG.NAMESPACE", NULL, 0, 1, 1,
     run_create},
    {"show", "show a namespace", "namespace show CATALOG.NAMESPACE [--snapshot N | --at TIME]",
     cli_time_travel_opts, 2, 1, 1, run_show},
    {"drop", "drop an empty namespace", "namespace drop CATALOG.NAMESPACE [--expected-id N]",
     drop_opts, 1, 1, 1, run_drop},
};

int cmd_namespace(struct cli *cli, int argc, char **argv)
{
    return cli_run_verbs(cli, "namespace", ns_verbs, sizeof ns_verbs / sizeof ns_verbs[0], argc,
                         argv);
}

/* ---- views ---- */

static void show_view_list(const json_t *resp, const char *name)
{
    (void)name;
    static const char *const headers[] = {"NAME", "DIALECT", "SQL"};
    struct out_table t;
    out_table_init(&t, 3, headers);
    size_t i;
    json_t *v;
    json_array_foreach (resp, i, v)
        out_table_row(&t, json_string_value(json_object_get(v, "name")),
                      json_string_value(json_object_get(v, "dialect")),
                      json_string_value(json_object_get(v, "sql")));
    out_table_print(&t);
    out_table_free(&t);
}

static int run_view_list(struct cli *cli, const struct cli_args *a)
{
    json_t *resp;
    int rc = cli_get(cli, a, 2, "views", "", true, &resp);
    if (rc != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_view_list, a->positional[0]);
}

static const struct cli_opt view_create_opts[] = {
    {"sql", true, false, "TEXT  the view's SQL, stored verbatim (@FILE reads a file)"},
    {"dialect", true, false, "NAME  the SQL dialect (default trino)"},
};

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    size_t len = 0, cap = 0;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *grown = realloc(data, cap);
            if (!grown) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = grown;
        }
        memcpy(data + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (!data)
        data = calloc(1, 1);
    else
        data[len] = '\0';
    return data;
}

static void show_view_create(const json_t *resp, const char *name)
{
    printf("created view %s (snapshot %lld)\n", name,
           (long long)json_integer_value(json_object_get(resp, "snapshot_id")));
}

static int run_view_create(struct cli *cli, const struct cli_args *a)
{
    char parts[3][200];
    if (!cli_split_name(a->positional[0], 3, parts))
        return cli_usage_error("expected CATALOG.NAMESPACE.VIEW, got '%s'", a->positional[0]);
    const char *sql = cli_opt_value(a, "sql");
    if (!sql)
        return cli_usage_error("--sql is required");
    char *from_file = NULL;
    if (sql[0] == '@') {
        from_file = read_file(sql + 1);
        if (!from_file) {
            fprintf(stderr, "hoglake: cannot read %s\n", sql + 1);
            return EXIT_FAILURE_OTHER;
        }
        sql = from_file;
    }
    json_t *body = json_pack("{s:s,s:s}", "name", parts[2], "sql", sql);
    free(from_file);
    const char *dialect = cli_opt_value(a, "dialect");
    if (dialect)
        json_object_set_new(body, "dialect", json_string(dialect));
    char qualified[420], path[900];
    snprintf(qualified, sizeof qualified, "%s.%s", parts[0], parts[1]);
    int rc = cli_object_path(path, sizeof path, qualified, 2, "views", "");
    json_t *resp;
    if (rc != EXIT_OK) {
        json_decref(body);
        return rc;
    }
    if ((rc = cli_request(cli, "POST", path, body, &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_view_create, a->positional[0]);
}

static void show_view_show(const json_t *resp, const char *name)
{
    printf("view %s  (%s, uuid %s)\n%s\n", name,
           json_string_value(json_object_get(resp, "dialect")),
           json_string_value(json_object_get(resp, "view_uuid")),
           json_string_value(json_object_get(resp, "sql")));
}

static int run_view_show(struct cli *cli, const struct cli_args *a)
{
    json_t *resp;
    int rc = cli_get(cli, a, 3, "views", "", true, &resp);
    if (rc != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_view_show, a->positional[0]);
}

static void show_view_drop(const json_t *resp, const char *name)
{
    print_commit("dropped view", name, resp);
}

static int run_view_drop(struct cli *cli, const struct cli_args *a)
{
    char path[900];
    int rc = cli_object_path(path, sizeof path, a->positional[0], 3, "views", "");
    json_t *resp;
    if (rc != EXIT_OK || (rc = cli_request(cli, "DELETE", path, NULL, &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_view_drop, a->positional[0]);
}

static const struct cli_verb view_verbs[] = {
    {"list", "list views", "view list CATALOG.NAMESPACE [--snapshot N | --at TIME]",
     cli_time_travel_opts, 2, 1, 1, run_view_list},
    {"create", "create a view", "view create CATALOG.NAMESPACE.VIEW --sql TEXT [--dialect NAME]",
     view_create_opts, 2, 1, 1, run_view_create},
    {"show", "show a view", "view show CATALOG.NAMESPACE.VIEW [--snapshot N | --at TIME]",
     cli_time_travel_opts, 2, 1, 1, run_view_show},
    {"drop", "drop a view", "view drop CATALOG.NAMESPACE.VIEW", NULL, 0, 1, 1, run_view_drop},
};

int cmd_view(struct cli *cli, int argc, char **argv)
{
    return cli_run_verbs(cli, "view", view_verbs, sizeof view_verbs / sizeof view_verbs[0], argc,
                         argv);
}
