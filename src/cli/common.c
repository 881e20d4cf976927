/* Option parsing, qualified names, and the request/print helpers shared by
 * every subcommand. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/buf.h"
#include "util/strutil.h"

const struct cli_opt cli_time_travel_opts[2] = {
    {"snapshot", true, false, "N  read as of snapshot N"},
    {"at", true, false, "TIME  read as of an ISO-8601 instant (2026-09-05T00:00:00Z)"},
};

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("hoglake: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see --help)\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

void cli_print_usage(const char *usage, const struct cli_opt *spec, size_t nspec)
{
    printf("usage: %s\n", usage);
    if (nspec)
        printf("\noptions:\n");
    for (size_t i = 0; i < nspec; i++)
        printf("  --%-22s %s\n", spec[i].name, spec[i].help);
    printf("  --%-22s %s\n", "help", "show this help");
}

static int find_opt(const struct cli_opt *spec, size_t nspec, const char *name, size_t len)
{
    for (size_t i = 0; i < nspec; i++)
        if (strlen(spec[i].name) == len && strncmp(spec[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

bool cli_parse(int argc, char **argv, const struct cli_opt *spec, size_t nspec,
               struct cli_args *out, const char *usage)
{
    (void)usage;
    memset(out, 0, sizeof *out);
    out->spec = spec;
    out->nspec = nspec;
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
            continue;
        }
        if (!options_done && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
            out->help = true;
            continue;
        }
        if (!options_done && strncmp(a, "--", 2) == 0) {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            int o = find_opt(spec, nspec, name, len);
            /* The global --json, anywhere on the line as after the
             * command (a verb with a --json of its own takes it first). */
            if (o < 0 && strcmp(a, "--json") == 0) {
                out->json = true;
                continue;
            }
            if (o < 0) {
                cli_usage_error("unknown option '%.*s'", (int)len + 2, a);
                return false;
            }
            const char *value = "";
            if (spec[o].takes_value) {
                if (eq) {
                    value = eq + 1;
                } else if (i + 1 < argc) {
                    value = argv[++i];
                } else {
                    cli_usage_error("option --%s needs a value", spec[o].name);
                    return false;
                }
            } else if (eq) {
                cli_usage_error("option --%s takes no value", spec[o].name);
                return false;
            }
            if (!spec[o].repeatable && cli_opt_given(out, spec[o].name)) {
                cli_usage_error("option --%s given twice", spec[o].name);
                return false;
            }
            if (out->nvalues == CLI_MAX_VALUES) {
                cli_usage_error("too many options");
                return false;
            }
            out->values[out->nvalues] = value;
            out->value_opt[out->nvalues++] = o;
            continue;
        }
        if (out->npositional == CLI_MAX_POSITIONAL) {
            cli_usage_error("too many arguments");
            return false;
        }
        out->positional[out->npositional++] = a;
    }
    return true;
}

static int opt_index(const struct cli_args *a, const char *name)
{
    int o = find_opt(a->spec, a->nspec, name, strlen(name));
    if (o < 0) {
        /* Asking for an option the command never declared is a bug. */
        fprintf(stderr, "hoglake: internal error: undeclared option --%s\n", name);
        abort();
    }
    return o;
}

const char *cli_opt_value(const struct cli_args *a, const char *name)
{
    int o = opt_index(a, name);
    const char *v = NULL;
    for (int i = 0; i < a->nvalues; i++)
        if (a->value_opt[i] == o)
            v = a->values[i];
    return v;
}

bool cli_opt_given(const struct cli_args *a, const char *name)
{
    return cli_opt_value(a, name) != NULL;
}

int cli_opt_values(const struct cli_args *a, const char *name, const char **out, int max)
{
    int o = opt_index(a, name), n = 0;
    for (int i = 0; i < a->nvalues && n < max; i++)
        if (a->value_opt[i] == o)
            out[n++] = a->values[i];
    return n;
}

bool cli_split_name(const char *qualified, int n, char parts[][200])
{
    const char *p = qualified;
    for (int i = 0; i < n; i++) {
        const char *dot = strchr(p, '.');
        if ((i < n - 1) != (dot != NULL))
            return false;
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (len == 0 || len >= 200)
            return false;
        memcpy(parts[i], p, len);
        parts[i][len] = '\0';
        p = dot ? dot + 1 : p + len;
    }
    return true;
}

bool cli_path_append(char *path, size_t size, const char *segment)
{
    size_t n = strlen(path);
    if (n + 2 >= size)
        return false;
    path[n] = '/';
    return hl_url_encode(segment, path + n + 1, size - n - 1) > 0 || segment[0] == '\0';
}

void cli_path_add_query(char *path, size_t size, const char *key, const char *value)
{
    char enc[300];
    if (!hl_url_encode(value, enc, sizeof enc))
        return;
    size_t n = strlen(path);
    snprintf(path + n, size - n, "%s%s=%s", strchr(path, '?') ? "&" : "?", key, enc);
}

int cli_object_path(char *path, size_t size, const char *qualified, int nparts,
                    const char *collection, const char *suffix)
{
    static const char *const shapes[] = {"CATALOG", "CATALOG.NAMESPACE", "CATALOG.NAMESPACE.NAME"};
    char parts[3][200];
    if (nparts < 1 || nparts > 3 || !cli_split_name(qualified, nparts, parts))
        return cli_usage_error("expected %s, got '%s'", shapes[nparts > 0 ? nparts - 1 : 0],
                               qualified);
    snprintf(path, size, "/v1/catalogs");
    bool ok = cli_path_append(path, size, parts[0]);
    if (nparts >= 2) {
        strncat(path, "/namespaces", size - strlen(path) - 1);
        ok = ok && cli_path_append(path, size, parts[1]);
    }
    if (collection) {
        strncat(path, "/", size - strlen(path) - 1);
        strncat(path, collection, size - strlen(path) - 1);
        if (nparts == 3)
            ok = ok && cli_path_append(path, size, parts[2]);
    }
    if (!ok || strlen(path) + strlen(suffix) + 1 >= size)
        return cli_usage_error("name too long: '%s'", qualified);
    strcat(path, suffix);
    return EXIT_OK;
}

int cli_get(struct cli *cli, const struct cli_args *a, int nparts, const char *collection,
            const char *suffix, bool time_travel, json_t **response)
{
    char path[1200];
    int rc = cli_object_path(path, sizeof path, a->positional[0], nparts, collection, suffix);
    if (rc != EXIT_OK)
        return rc;
    if (time_travel && !cli_add_time_travel(path, sizeof path, a))
        return cli_usage_error("bad --snapshot/--at value");
    return cli_request(cli, "GET", path, NULL, response);
}

int cli_report(hl_status st, const struct hl_error *err)
{
    if (err->http_status)
        fprintf(stderr, "hoglake: %s (HTTP %d %s)%s\n", err->message, err->http_status, err->code,
                err->retryable ? "; retrying the same command may succeed" : "");
    else
        fprintf(stderr, "hoglake: %s\n", err->message);
    if (st == HL_ERR_UNAUTHENTICATED)
        fprintf(stderr, "hoglake: give a token with --token, HOGLAKE_TOKEN or HOGLAKE_TOKEN_FILE "
                        "(a local server's first admin token is in <data-dir>/admin.token; "
                        "'hoglake token create' makes others)\n");
    return cli_exit_for(st);
}

int cli_exit_for(hl_status st)
{
    switch (st) {
    case HL_ERR_NOT_FOUND: return EXIT_NOT_FOUND;
    case HL_ERR_ALREADY_EXISTS:
    case HL_ERR_CONFLICT:
    case HL_ERR_DDL_SINCE_READ:
    case HL_ERR_TABLE_RECREATED:
    case HL_ERR_TABLE_DROPPED: return EXIT_CONFLICT;
    case HL_ERR_UNAUTHENTICATED:
    case HL_ERR_FORBIDDEN: return EXIT_AUTH;
    default: return EXIT_FAILURE_OTHER;
    }
}

int cli_request(struct cli *cli, const char *method, const char *path, json_t *body,
                json_t **response)
{
    if (response)
        *response = NULL;
    char *text = NULL;
    if (body) {
        text = json_dumps(body, JSON_COMPACT);
        json_decref(body);
        if (!text) {
            fprintf(stderr, "hoglake: out of memory\n");
            return EXIT_FAILURE_OTHER;
        }
    }
    char *resp = NULL;
    struct hl_error err;
    hl_status st = hl_client_request(cli->client, method, path, text, &resp, &err);
    free(text);
    if (st != HL_OK)
        return cli_report(st, &err);
    if (response && resp && *resp) {
        json_error_t jerr;
        *response = json_loads(resp, JSON_DECODE_ANY, &jerr);
        if (!*response && strncmp(resp, "ok", 2) != 0) {
            fprintf(stderr, "hoglake: the server answered something that is not JSON: %s\n",
                    jerr.text);
            free(resp);
            return EXIT_FAILURE_OTHER;
        }
    }
    free(resp);
    return EXIT_OK;
}

hl_status cli_table_open(struct cli *cli, char parts[3][200], struct cli_table *t,
                         struct hl_error *err)
{
    memset(t, 0, sizeof *t);
    hl_status st = hl_catalog_open(cli->client, parts[0], &t->catalog, err);
    if (st == HL_OK)
        st = hl_namespace_open(t->catalog, parts[1], &t->ns, err);
    if (st == HL_OK)
        st = hl_table_open(t->ns, parts[2], &t->table, err);
    if (st != HL_OK)
        cli_table_close(t);
    return st;
}

void cli_table_close(struct cli_table *t)
{
    hl_table_free(t->table);
    hl_namespace_free(t->ns);
    hl_catalog_free(t->catalog);
    memset(t, 0, sizeof *t);
}

int cli_show(struct cli *cli, json_t *resp, cli_human_fn human, const char *name)
{
    if (cli->json)
        cli_print_json(resp);
    else
        human(resp, name);
    json_decref(resp);
    return EXIT_OK;
}

int cli_post_catalog(struct cli *cli, const char *catalog, const char *suffix, cli_human_fn human)
{
    char path[1024];
    int rc = cli_object_path(path, sizeof path, catalog, 1, NULL, suffix);
    json_t *resp;
    if (rc != EXIT_OK || (rc = cli_request(cli, "POST", path, NULL, &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, human, catalog);
}

bool cli_add_time_travel(char *path, size_t size, const struct cli_args *a)
{
    const char *snap = cli_opt_value(a, "snapshot");
    const char *at = cli_opt_value(a, "at");
    size_t n = strlen(path);
    char enc[160];
    if (snap) {
        if (!hl_url_encode(snap, enc, sizeof enc))
            return false;
        snprintf(path + n, size - n, "%ssnapshot=%s", strchr(path, '?') ? "&" : "?", enc);
    } else if (at) {
        if (!hl_url_encode(at, enc, sizeof enc))
            return false;
        snprintf(path + n, size - n, "%sat_timestamp=%s", strchr(path, '?') ? "&" : "?", enc);
    }
    return true;
}

void cli_print_json(const json_t *v)
{
    char *s = json_dumps(v, JSON_INDENT(2) | JSON_ENCODE_ANY);
    if (s) {
        puts(s);
        free(s);
    }
}

json_t *cli_read_json_arg(const char *arg)
{
    json_error_t jerr;
    json_t *v;
    if (arg[0] == '@') {
        v = json_load_file(arg + 1, JSON_DECODE_ANY, &jerr);
        if (!v)
            fprintf(stderr, "hoglake: %s: %s (line %d)\n", arg + 1, jerr.text, jerr.line);
    } else {
        v = json_loads(arg, JSON_DECODE_ANY, &jerr);
        if (!v)
            fprintf(stderr, "hoglake: invalid JSON argument: %s (column %d)\n", jerr.text,
                    jerr.column);
    }
    return v;
}

int cli_run_verbs(struct cli *cli, const char *group, const struct cli_verb *verbs, size_t n,
                  int argc, char **argv)
{
    if (cli->describe) {
        *cli->describe = (struct cli_command_info){group, verbs, n};
        return EXIT_OK;
    }
    if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        printf("usage: hoglake %s VERB ...\n\nverbs:\n", group);
        for (size_t i = 0; i < n; i++)
            printf("  %-14s %s\n", verbs[i].name, verbs[i].summary);
        printf("\nRun 'hoglake %s VERB --help' for a verb's options.\n", group);
        return argc < 1 ? EXIT_USAGE : EXIT_OK;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(argv[0], verbs[i].name) == 0)
            return cli_run_command(cli, &verbs[i], argc - 1, argv + 1);
    return cli_usage_error("unknown verb '%s' for '%s'", argv[0], group);
}

int cli_run_verbs_default(struct cli *cli, const char *group, const struct cli_verb *verbs,
                          size_t n, int argc, char **argv)
{
    if (argc >= 1 && argv[0][0] != '-')
        for (size_t i = 0; i < n; i++)
            if (strcmp(argv[0], verbs[i].name) == 0)
                return cli_run_command(cli, &verbs[i], argc - 1, argv + 1);
    if (cli->describe || argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        int rc = cli_run_verbs(cli, group, verbs, n, argc, argv);
        if (cli->describe)
            return rc;
        printf("Without a verb, 'hoglake %s ARGS...' is 'hoglake %s %s ARGS...'.\n", group, group,
               verbs[0].name);
        return rc;
    }
    return cli_run_command(cli, &verbs[0], argc, argv);
}

int cli_run_command(struct cli *cli, const struct cli_verb *v, int argc, char **argv)
{
    if (cli->describe) {
        *cli->describe = (struct cli_command_info){NULL, v, 1};
        return EXIT_OK;
    }
    char usage[300];
    snprintf(usage, sizeof usage, "hoglake %s", v->usage);
    struct cli_args args;
    if (!cli_parse(argc, argv, v->opts, v->nopts, &args, usage))
        return EXIT_USAGE;
    if (args.help) {
        printf("%s\n\n", v->summary);
        cli_print_usage(usage, v->opts, v->nopts);
        return EXIT_OK;
    }
    if (args.npositional < v->min_args || args.npositional > v->max_args)
        return cli_usage_error("usage: %s", usage);
    cli->json = cli->json || args.json;
    return v->run(cli, &args);
}

int cli_opt_i64(const struct cli_args *a, const char *name, int64_t min, int64_t *out)
{
    const char *v = cli_opt_value(a, name);
    if (!v)
        return EXIT_OK;
    int64_t n;
    if (!str_parse_int64(v, &n) || n < min)
        return cli_usage_error("--%s takes an integer >= %lld, got '%s'", name, (long long)min, v);
    *out = n;
    return EXIT_OK;
}
