/* hoglake: the command-line client. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"

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
            cli_print_help(stdout);
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
        cli_print_help(stdout);
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
    const char *command = argv[i];
    const struct cli_command *c = cli_command_find(command);
    if (!c)
        return cli_usage_error("unknown command '%s'", command);
    if (c->offline) {
        struct cli cli = {NULL, json, NULL};
        return c->run(&cli, argc - i - 1, argv + i + 1);
    }
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
    struct cli cli = {NULL, json, NULL};
    struct hl_error err;
    hl_status st = hl_client_new(&opts, &cli.client, &err);
    if (secret)
        explicit_bzero(secret, strlen(secret));
    free(secret);
    if (st != HL_OK)
        return cli_usage_error("%s", err.message);
    rc = c->run(&cli, argc - i - 1, argv + i + 1);
    hl_client_free(cli.client);
    return rc;
}
