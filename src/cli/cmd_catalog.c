/* hoglake catalog list|create|show|options|set-options|set-retention */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "util/strutil.h"

static void print_catalog(const json_t *c)
{
    printf("catalog          %s\n", json_string_value(json_object_get(c, "name")));
    printf("data path        %s\n", json_string_value(json_object_get(c, "data_path")));
    printf("head snapshot    %lld\n",
           (long long)json_integer_value(json_object_get(c, "head_snapshot_id")));
    printf("schema version   %lld\n",
           (long long)json_integer_value(json_object_get(c, "schema_version")));
    const char *t = json_string_value(json_object_get(c, "earliest_snapshot_time"));
    if (t)
        printf("expired before   %s\n", t);
}

static void show_list(const json_t *resp, const char *name)
{
    (void)name;
    static const char *const headers[] = {"NAME", "DATA PATH", "HEAD", "SCHEMA VERSION"};
    struct out_table t;
    out_table_init(&t, 4, headers);
    size_t i;
    json_t *c;
    json_array_foreach (resp, i, c) {
        char head[24], sv[24];
        snprintf(head, sizeof head, "%lld",
                 (long long)json_integer_value(json_object_get(c, "head_snapshot_id")));
        snprintf(sv, sizeof sv, "%lld",
                 (long long)json_integer_value(json_object_get(c, "schema_version")));
        out_table_row(&t, json_string_value(json_object_get(c, "name")),
                      json_string_value(json_object_get(c, "data_path")), head, sv);
    }
    out_table_print(&t);
    out_table_free(&t);
}

static int run_list(struct cli *cli, const struct cli_args *a)
{
    (void)a;
    json_t *resp;
    int rc = cli_request(cli, "GET", "/v1/catalogs", NULL, &resp);
    if (rc != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_list, a->positional[0]);
}

static const struct cli_opt create_opts[] = {
    {"data-path", true, false,
     "URI  where the catalog's files live: s3://bucket[/prefix] or file:///dir\n"
     "                           (default: the server's warehouse)"},
};

static void show_create(const json_t *resp, const char *name)
{
    (void)name;
    printf("created catalog %s at %s\n", json_string_value(json_object_get(resp, "name")),
           json_string_value(json_object_get(resp, "data_path")));
}

static int run_create(struct cli *cli, const struct cli_args *a)
{
    json_t *body = json_pack("{s:s}", "name", a->positional[0]);
    const char *dp = cli_opt_value(a, "data-path");
    if (dp)
        json_object_set_new(body, "data_path", json_string(dp));
    json_t *resp;
    int rc = cli_request(cli, "POST", "/v1/catalogs", body, &resp);
    if (rc != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_create, a->positional[0]);
}

static void show_show(const json_t *resp, const char *name)
{
    (void)name;
    print_catalog(resp);
}

static int run_show(struct cli *cli, const struct cli_args *a)
{
    json_t *resp;
    int rc = cli_get(cli, a, 1, NULL, "", false, &resp);
    if (rc != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_show, a->positional[0]);
}

static void print_options(const json_t *o)
{
    json_t *ret = json_object_get(o, "snapshot_retention_seconds");
    if (ret)
        printf("snapshot retention   %lld s\n", (long long)json_integer_value(ret));
    else
        printf("snapshot retention   none (snapshots are kept forever)\n");
    printf("consumer floor       %s\n",
           json_is_true(json_object_get(o, "consumer_floor")) ? "on" : "off");
    printf("earliest snapshot    %lld\n",
           (long long)json_integer_value(json_object_get(o, "earliest_snapshot_id")));
}

static void show_options(const json_t *resp, const char *name)
{
    (void)name;
    print_options(resp);
}

static int run_options(struct cli *cli, const struct cli_args *a)
{
    json_t *resp;
    int rc = cli_get(cli, a, 1, NULL, "/options", false, &resp);
    if (rc != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_options, a->positional[0]);
}

static const struct cli_opt set_options_opts[] = {
    {"retention", true, false, "SECONDS|none  snapshot retention; none keeps snapshots forever"},
    {"consumer-floor", true, false, "on|off  never expire past the lowest consumer offset"},
};

/* PATCHes the options of `catalog` from the textual retention ("none" or
 * seconds; NULL = unchanged) and consumer floor ("on"/"off"; NULL =
 * unchanged), and prints the result. */
static int patch_options(struct cli *cli, const char *catalog, const char *ret, const char *floor)
{
    json_t *body = json_object();
    if (ret) {
        int64_t v;
        if (strcmp(ret, "none") == 0) {
            json_object_set_new(body, "snapshot_retention_seconds", json_null());
        } else if (str_parse_int64(ret, &v)) {
            json_object_set_new(body, "snapshot_retention_seconds", json_integer(v));
        } else {
            json_decref(body);
            return cli_usage_error("the retention is a number of seconds or 'none'");
        }
    }
    if (floor) {
        bool on = strcmp(floor, "on") == 0 || strcmp(floor, "true") == 0;
        if (!on && strcmp(floor, "off") != 0 && strcmp(floor, "false") != 0) {
            json_decref(body);
            return cli_usage_error("--consumer-floor takes on or off");
        }
        json_object_set_new(body, "consumer_floor", json_boolean(on));
    }
    char path[512];
    int rc = cli_object_path(path, sizeof path, catalog, 1, NULL, "/options");
    json_t *resp;
    if (rc != EXIT_OK) {
        json_decref(body);
        return rc;
    }
    if ((rc = cli_request(cli, "PATCH", path, body, &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_options, catalog);
}

static int run_set_options(struct cli *cli, const struct cli_args *a)
{
    const char *ret = cli_opt_value(a, "retention");
    const char *floor = cli_opt_value(a, "consumer-floor");
    if (!ret && !floor)
        return cli_usage_error("give --retention and/or --consumer-floor");
    return patch_options(cli, a->positional[0], ret, floor);
}

static int run_set_retention(struct cli *cli, const struct cli_args *a)
{
    return patch_options(cli, a->positional[0], a->positional[1],
                         cli_opt_value(a, "consumer-floor"));
}

static const struct cli_verb verbs[] = {
    {"list", "list catalogs", "catalog list", NULL, 0, 0, 0, run_list},
    {"create", "create a catalog", "catalog create NAME [--data-path URI]", create_opts, 1, 1, 1,
     run_create},
    {"show", "show a catalog", "catalog show NAME", NULL, 0, 1, 1, run_show},
    {"options", "show a catalog's retention options", "catalog options NAME", NULL, 0, 1, 1,
     run_options},
    {"set-options", "change a catalog's retention options",
     "catalog set-options NAME [--retention SECONDS|none] [--consumer-floor on|off]",
     set_options_opts, 2, 1, 1, run_set_options},
    {"set-retention", "set a catalog's snapshot retention (what expiry keeps)",
     "catalog set-retention NAME SECONDS|none [--consumer-floor on|off]", set_options_opts + 1, 1,
     2, 2, run_set_retention},
};

int cmd_catalog(struct cli *cli, int argc, char **argv)
{
    return cli_run_verbs(cli, "catalog", verbs, sizeof verbs / sizeof verbs[0], argc, argv);
}
