/* hoglake token create|list|revoke: the server's API tokens (admin only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/duration.h"
#include "cli/output.h"
#include "util/strutil.h"
#include "util/timefmt.h"

static const struct cli_opt create_opts[] = {
    {"role", true, false, "ROLE  reader, writer, owner or admin (required)"},
    {"catalog", true, false, "NAME  scope the token to one catalog (not for admin)"},
    {"expires", true, false, "DURATION  expire after 30d, 12h, 45m, 90s, 2w or N seconds"},
};

static void show_create(const json_t *resp, const char *name)
{
    const char *scope = json_string_value(json_object_get(resp, "catalog"));
    const char *until = json_string_value(json_object_get(resp, "expires_at"));
    /* The secret alone on stdout, so $(hoglake token create ...) is it;
     * what it is goes to stderr. */
    fprintf(stderr,
            "hoglake: created token %s '%s' (%s on %s%s, %s%s); its secret is shown only "
            "this once\n",
            json_string_value(json_object_get(resp, "token_id")), name,
            json_string_value(json_object_get(resp, "role")), scope ? "catalog " : "every catalog",
            scope ? scope : "", until ? "expires " : "never expires", until ? until : "");
    printf("%s\n", json_string_value(json_object_get(resp, "secret")));
}

static int run_create(struct cli *cli, const struct cli_args *a)
{
    const char *role = cli_opt_value(a, "role");
    if (!role)
        return cli_usage_error("--role is required (reader, writer, owner or admin)");
    json_t *body = json_pack("{s:s,s:s}", "name", a->positional[0], "role", role);
    const char *catalog = cli_opt_value(a, "catalog");
    if (body && catalog)
        json_object_set_new(body, "catalog", json_string(catalog));
    const char *expires = cli_opt_value(a, "expires");
    if (expires) {
        int64_t seconds;
        if (!cli_parse_duration(expires, &seconds)) {
            json_decref(body);
            return cli_usage_error("--expires must be a duration like 30d, 12h, 45m, 90s, 2w or "
                                   "a number of seconds, got '%s'",
                                   expires);
        }
        json_object_set_new(body, "expires_in_seconds", json_integer(seconds));
    }
    json_t *resp;
    int rc = cli_request(cli, "POST", "/v1/tokens", body, &resp);
    if (rc != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_create, a->positional[0]);
}

/* active, revoked or expired, as of the listing. */
static const char *token_state(const json_t *t, const char *now)
{
    if (!json_is_null(json_object_get(t, "revoked_at")))
        return "revoked";
    const char *until = json_string_value(json_object_get(t, "expires_at"));
    /* ISO-8601 instants in UTC with 'Z' compare as text, up to their
     * fraction: good enough for a listing. */
    return until && strcmp(until, now) <= 0 ? "expired" : "active";
}

static int run_list(struct cli *cli, const struct cli_args *a)
{
    (void)a;
    json_t *resp;
    int rc = cli_request(cli, "GET", "/v1/tokens", NULL, &resp);
    if (rc != EXIT_OK)
        return rc;
    if (cli->json) {
        cli_print_json(resp);
        json_decref(resp);
        return EXIT_OK;
    }
    char now[48];
    time_format_iso8601(time_now_micros(), now, sizeof now);
    static const char *const headers[] = {"ID",      "NAME",    "ROLE", "CATALOG",
                                          "CREATED", "EXPIRES", "STATE"};
    struct out_table t;
    out_table_init(&t, 7, headers);
    size_t i;
    json_t *tok;
    json_array_foreach (resp, i, tok) {
        const char *catalog = json_string_value(json_object_get(tok, "catalog"));
        const char *expires = json_string_value(json_object_get(tok, "expires_at"));
        out_table_row(&t, json_string_value(json_object_get(tok, "token_id")),
                      json_string_value(json_object_get(tok, "name")),
                      json_string_value(json_object_get(tok, "role")), catalog ? catalog : "*",
                      json_string_value(json_object_get(tok, "created_at")),
                      expires ? expires : "never", token_state(tok, now));
    }
    out_table_print(&t);
    out_table_free(&t);
    json_decref(resp);
    return EXIT_OK;
}

static int run_revoke(struct cli *cli, const struct cli_args *a)
{
    char path[200] = "/v1/tokens";
    if (!cli_path_append(path, sizeof path, a->positional[0]))
        return cli_usage_error("token id too long: '%s'", a->positional[0]);
    int rc = cli_request(cli, "DELETE", path, NULL, NULL);
    if (rc == EXIT_OK && !cli->json)
        printf("revoked token %s\n", a->positional[0]);
    return rc;
}

static const struct cli_verb token_verbs[] = {
    {"create", "create a token and print its secret (shown once)",
     "token create NAME --role ROLE [--catalog CATALOG] [--expires DURATION]", create_opts,
     sizeof create_opts / sizeof create_opts[0], 1, 1, run_create},
    {"list", "list tokens (never their secrets)", "token list", NULL, 0, 0, 0, run_list},
    {"revoke", "revoke a token at once", "token revoke TOKEN_ID", NULL, 0, 1, 1, run_revoke},
};

int cmd_token(struct cli *cli, int argc, char **argv)
{
    return cli_run_verbs(cli, "token", token_verbs, sizeof token_verbs / sizeof token_verbs[0],
                         argc, argv);
}
