/* The command table and the top-level help (commands.h). */
#include "cli/commands.h"

#include <string.h>

const struct cli_command cli_commands[] = {
    {"catalog", cmd_catalog, "", false},
    {"namespace", cmd_namespace, "", false},
    {"table", cmd_table, "", false},
    {"view", cmd_view, "", false},
    {"append", cmd_append, NULL, false},
    {"read", cmd_read, NULL, false},
    {"delete", cmd_delete, NULL, false},
    {"update", cmd_update, NULL, false},
    {"export", cmd_export, "export a table's new rows to an Iceberg table", false},
    {"snapshots", cmd_snapshots, "a catalog's snapshots and their changes", false},
    {"files", cmd_files, NULL, false},
    {"changes", cmd_changes, NULL, false},
    {"consumers", cmd_consumers, NULL, false},
    {"offsets", cmd_offsets, "a changefeed consumer's committed offsets", false},
    {"maintenance", cmd_maintenance, "server-owned maintenance of a catalog", false},
    {"parquet", cmd_parquet, "local Parquet files (no server)", true},
    {"token", cmd_token, "API tokens (admin)", false},
    {"completion", cmd_completion, "shell completion scripts", true},
    {"manpage", cmd_manpage, NULL, true},
};
const size_t cli_ncommands = sizeof cli_commands / sizeof cli_commands[0];

const struct cli_opt cli_global_opts[] = {
    {"server", true, false,
     "URL  the server (default $HOGLAKE_URL, else http://127.0.0.1:$HOGLAKE_PORT, port 8080 "
     "when unset)"},
    {"token", true, false,
     "SECRET  the bearer token (else $HOGLAKE_TOKEN, else the file $HOGLAKE_TOKEN_FILE names, "
     "else, for the default local server, its data dir's admin.token when readable)"},
    {"cacert", true, false,
     "FILE  PEM authorities an https:// server's certificate must chain to (default "
     "$HOGLAKE_CACERT, else the system's)"},
    {"read-threads", true, false,
     "N  threads reading one data file's row groups when a delete looks for its rows "
     "(default: the CPUs, at most 8)"},
    {"json", false, false,
     "print the server's JSON instead of a human view (also accepted anywhere after the "
     "command)"},
    {"version", false, false, "print the version"},
    {"help", false, false, "this text; 'hoglake COMMAND --help' for a command's"},
};
const size_t cli_nglobal_opts = sizeof cli_global_opts / sizeof cli_global_opts[0];

const struct cli_command *cli_command_find(const char *name)
{
    for (size_t i = 0; i < cli_ncommands; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

struct cli_command_info cli_command_describe(const struct cli_command *c)
{
    struct cli_command_info info = {NULL, NULL, 0};
    struct cli cli = {NULL, false, &info};
    char *argv[] = {NULL};
    c->run(&cli, 0, argv);
    return info;
}

void cli_opt_placeholder(const struct cli_opt *o, char *out, size_t size)
{
    size_t n = o->takes_value ? strcspn(o->help, " ") : 0;
    snprintf(out, size, "%.*s", (int)n, o->help);
}

const char *cli_opt_description(const struct cli_opt *o)
{
    const char *d = o->help;
    if (o->takes_value)
        d += strcspn(d, " ");
    return d + strspn(d, " ");
}

/* Prints `text` from column `col`, wrapped before `width`, continuation
 * lines indented to `indent`. */
static void print_wrapped(FILE *out, const char *text, int col, int indent, int width)
{
    while (*text) {
        size_t word = strcspn(text, " ");
        if (col > indent && col + 1 + (int)word > width) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", (int)word, text);
        col += (int)word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

/* A group's line: its verbs, then what they act on. */
static void print_group_line(FILE *out, const struct cli_command *c,
                             const struct cli_command_info *info)
{
    char line[1024] = "";
    size_t len = 0;
    for (size_t v = 0; v < info->nverbs && len < sizeof line; v++)
        len += (size_t)snprintf(line + len, sizeof line - len, "%s%s", v ? ", " : "",
                                info->verbs[v].name);
    if (c->about && *c->about && len < sizeof line)
        snprintf(line + len, sizeof line - len, ": %s", c->about);
    print_wrapped(out, line, 14, 14, 79);
}

void cli_print_help(FILE *out)
{
    fprintf(out, "usage: hoglake [--server URL] [--token SECRET] [--cacert FILE] "
                 "[--read-threads N] [--json]\n"
                 "               COMMAND ...\n\n"
                 "The command-line client of a hoglake catalog server.\n\n"
                 "commands:\n");
    for (size_t i = 0; i < cli_ncommands; i++) {
        const struct cli_command *c = &cli_commands[i];
        struct cli_command_info info = cli_command_describe(c);
        fprintf(out, "  %-11s ", c->name);
        if (info.group)
            print_group_line(out, c, &info);
        else
            print_wrapped(out, info.verbs ? info.verbs[0].summary : "", 14, 14, 79);
    }
    fprintf(out, "\noptions:\n");
    for (size_t i = 0; i < cli_nglobal_opts; i++) {
        char name[64];
        char ph[32];
        cli_opt_placeholder(&cli_global_opts[i], ph, sizeof ph);
        snprintf(name, sizeof name, "--%s%s%s", cli_global_opts[i].name, *ph ? " " : "", ph);
        fprintf(out, "  %-18s ", name);
        print_wrapped(out, cli_opt_description(&cli_global_opts[i]), 21, 21, 79);
    }
    fprintf(out, "\nObjects are named CATALOG, CATALOG.NAMESPACE or CATALOG.NAMESPACE.TABLE.\n"
                 "Object storage (s3:// data paths) is configured by the environment:\n"
                 "AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY.\n\n"
                 "exit codes: 0 ok, 1 failure, 2 usage error, 3 not found, 4 conflict,\n"
                 "5 not authenticated or not allowed\n");
}
