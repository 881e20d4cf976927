/* hoglake: the command-line client. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void print_help(void)
{
    printf("usage: hoglake [--server URL] [--token SECRET] [--cacert FILE] [--read-threads N] "
           "[--json]\n"
           "               COMMAND ...\n\n"
           "The command-line client of a hoglake catalog server.\n\n"
           "commands:\n"
           "  catalog     list, create, show, options, set-options, set-retention\n"
           "  namespace   list, create, show, drop\n"
           "  table       list, create, show, drop, alter\n"
           "  view        list, create, show, drop\n"
           "  append      append rows from CSV, JSON Lines or Parquet files (one commit)\n"
           "  read        print a table's rows as JSON Lines or CSV (time travel too)\n"
           "  delete      delete the rows a predicate selects (deletion vectors)\n"
           "  update      set columns of the rows a predicate selects (row ids kept)\n"
           "  export      iceberg: export a table's new rows to an Iceberg table\n"
           "  snapshots   list, resolve: a catalog's snapshots and their changes, the snapshot\n"
           "              an instant resolves to\n"
           "  files       list a table's data files (time travel with --snapshot/--at)\n"
           "  changes     a table's changefeed plan between two snapshots\n"
           "  consumers   a catalog's changefeed consumers, their offsets and lag\n"
           "  offsets     list, commit: a changefeed consumer's committed offsets\n"
           "  maintenance expire, retire, runs, status, compact, hydrate, rehydrate, cleanup,\n"
           "              orphans: server-owned maintenance of a catalog\n"
           "  parquet     inspect, cat, convert, verify: local Parquet files (no server)\n"
           "  token       create, list, revoke: API tokens (admin)\n\n"
           "options:\n"
           "  --server URL   the server (default $HOGLAKE_URL, else\n"
           "                 http://127.0.0.1:$HOGLAKE_PORT, port 8080 when unset)\n"
           "  --token SECRET the bearer token (else $HOGLAKE_TOKEN, else the file\n"
           "                 $HOGLAKE_TOKEN_FILE names, else, for the default local server,\n"
           "                 its data dir's admin.token when readable)\n"
           "  --cacert FILE  PEM authorities an https:// server's certificate must chain to\n"
           "                 (default $HOGLAKE_CACERT, else the system's)\n"
           "  --read-threads N  threads reading one data file's row groups when a delete\n"
           "                 looks for its rows (default: the CPUs, at most 8)\n"
           "  --json         print the server's JSON instead of a human view (also\n"
           "                 accepted anywhere after the command)\n"
           "  --version      print the version\n"
           "  --help         this text; 'hoglake COMMAND --help' for a command's\n\n"
           "Objects are named CATALOG, CATALOG.NAMESPACE or CATALOG.NAMESPACE.TABLE.\n"
           "Object storage (s3:// data paths) is configured by the environment:\n"
           "AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY.\n\n"
           "exit codes: 0 ok, 1 failure, 2 usage error, 3 not found, 4 conflict,\n"
           "5 not authenticated or not allowed\n");
}

/* The library's warnings (storage retries) are the user's to see. */
static void warn_on_stderr(void *ctx, hl_log_level level, const char *message)
{
    (void)ctx;
    fprintf(stderr, "hoglake: %s%s\n", level == HL_LOG_ERROR ? "error: " : "", message);
}

int main(int argc, char **argv)
{
    const char *server = getenv("HOGLAKE_URL");
    const char *token = NULL, *cacert = NULL, *threads = NULL;
    bool json = false;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0) {
            print_help();
            return EXIT_OK;
        }
        if (strcmp(a, "--version") == 0) {
            printf("hoglake %s\n", HOGLAKE_VERSION);
            return EXIT_OK;
        }
        if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--server") == 0 && i + 1 < argc) {
            server = argv[++i];
        } else if (strncmp(a, "--server=", 9) == 0) {
            server = a + 9;
        } else if (strcmp(a, "--token") == 0 && i + 1 < argc) {
            token = argv[++i];
        } else if (strncmp(a, "--token=", 8) == 0) {
            token = a + 8;
        } else if (strcmp(a, "--cacert") == 0 && i + 1 < argc) {
            cacert = argv[++i];
        } else if (strncmp(a, "--cacert=", 9) == 0) {
            cacert = a + 9;
        } else if (strcmp(a, "--read-threads") == 0 && i + 1 < argc) {
            threads = argv[++i];
        } else if (strncmp(a, "--read-threads=", 15) == 0) {
            threads = a + 15;
        } else {
            return cli_usage_error("unknown option '%s'", a);
        }
    }
    if (i >= argc) {
        print_help();
        return EXIT_USAGE;
    }
    int read_threads = 0;
    if (threads) {
        char *end;
        long n = strtol(threads, &end, 10);
        if (!*threads || *end || n < 1 || n > 64)
            return cli_usage_error("--read-threads takes a number from 1 to 64, got '%s'", threads);
        read_threads = (int)n;
    }
    static const struct {
        const char *name;
        int (*run)(struct cli *, int, char **);
    } commands[] = {
        {"catalog", cmd_catalog},     {"namespace", cmd_namespace},
        {"table", cmd_table},         {"view", cmd_view},
        {"snapshots", cmd_snapshots}, {"files", cmd_files},
        {"changes", cmd_changes},     {"offsets", cmd_offsets},
        {"parquet", cmd_parquet},     {"append", cmd_append},
        {"read", cmd_read},           {"delete", cmd_delete},
        {"export", cmd_export},       {"maintenance", cmd_maintenance},
        {"token", cmd_token},         {"update", cmd_update},
        {"consumers", cmd_consumers},
    };
    const char *command = argv[i];
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
        if (strcmp(command, commands[c].name) != 0)
            continue;
        char default_url[64];
        if (!server || !*server) {
            const char *port = getenv("HOGLAKE_PORT");
            snprintf(default_url, sizeof default_url, "http://127.0.0.1:%.8s",
                     port && *port ? port : "8080");
            server = default_url;
        }
        char *secret;
        int rc = cli_credentials(token, server, &secret);
        if (rc != EXIT_OK)
            return rc;
        struct hl_client_options opts = {.server_url = server,
                                         .token = secret,
                                         .ca_file = cacert,
                                         .read_threads = read_threads,
                                         .log = warn_on_stderr};
        struct cli cli = {NULL, json};
        struct hl_error err;
        hl_status st = hl_client_new(&opts, &cli.client, &err);
        if (secret)
            explicit_bzero(secret, strlen(secret));
        free(secret);
        if (st != HL_OK)
            return cli_usage_error("%s", err.message);
        rc = commands[c].run(&cli, argc - i - 1, argv + i + 1);
        hl_client_free(cli.client);
        return rc;
    }
    return cli_usage_error("unknown command '%s'", command);
}
