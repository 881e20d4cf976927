/* `hoglake maintenance cleanup CATALOG [--batch N]`: runs one cleanup pass
 * over the catalog's removal queue on the server and prints what it did.
 * The verb is merged into the `maintenance` command's verb table. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct cli_opt cleanup_opts[] = {
    {"batch", true, false, "N  most queue rows to work this pass (default: the server's, 2000)"},
};

static int run_cleanup(struct cli *cli, const struct cli_args *a)
{
    int64_t batch = 0;
    int rc = cli_opt_i64(a, "batch", 1, &batch);
    if (rc != EXIT_OK)
        return rc;
    char suffix[64] = "/maintenance/cleanup";
    if (cli_opt_given(a, "batch"))
        snprintf(suffix, sizeof suffix, "/maintenance/cleanup?batch=%" PRId64, batch);
    char path[1200];
    if ((rc = cli_object_path(path, sizeof path, a->positional[0], 1, NULL, suffix)) != EXIT_OK)
        return rc;
    json_t *resp;
    if ((rc = cli_request(cli, "POST", path, NULL, &resp)) != EXIT_OK)
        return rc;
    if (cli->json) {
        cli_print_json(resp);
    } else {
        json_int_t removed = json_integer_value(json_object_get(resp, "removed"));
        json_int_t missing = json_integer_value(json_object_get(resp, "missing"));
        json_int_t referenced = json_integer_value(json_object_get(resp, "still_referenced"));
        json_int_t failed = json_integer_value(json_object_get(resp, "failed"));
        printf("removed %lld, missing %lld, still referenced %lld, failed %lld\n",
               (long long)removed, (long long)missing, (long long)referenced, (long long)failed);
        /* A referenced path in the queue means a queue writer is wrong. */
        if (referenced > 0)
            fprintf(stderr,
                    "warning: %lld queued paths are still referenced and were kept "
                    "(see the server log: cleanup_violation)\n",
                    (long long)referenced);
    }
    json_decref(resp);
    return EXIT_OK;
}

const struct cli_verb cli_maintenance_cleanup_verb = {
    "cleanup",
    "delete the objects in a catalog's removal queue that nothing references",
    "maintenance cleanup CATALOG [--batch N]",
    cleanup_opts,
    sizeof cleanup_opts / sizeof cleanup_opts[0],
    1,
    1,
    run_cleanup};
