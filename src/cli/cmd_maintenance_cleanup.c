/* `hoglake maintenance cleanup CATALOG [--batch N]`: runs one cleanup pass
 * over the catalog's removal queue on the server and prints what it did.
 * Listed in cmd_maintenance.c's verb table. */
#include <stdio.h>

#include "cli/cmd_maintenance_cleanup.h"

const struct cli_opt cli_cleanup_opts[1] = {
    {"batch", true, false, "N  most queue rows to work this pass (default: the server's, 2000)"},
};

static void print_cleanup(const json_t *r, const char *catalog)
{
    (void)catalog;
    int64_t referenced = cli_json_i64(r, "still_referenced");
    printf("removed %lld, missing %lld, still referenced %lld, failed %lld\n",
           (long long)cli_json_i64(r, "removed"), (long long)cli_json_i64(r, "missing"),
           (long long)referenced, (long long)cli_json_i64(r, "failed"));
    /* A referenced path in the queue means a queue writer is wrong. */
    if (referenced > 0)
        fprintf(stderr,
                "warning: %lld queued paths are still referenced and were kept "
                "(see the server log: cleanup_violation)\n",
                (long long)referenced);
}

int cli_run_cleanup(struct cli *cli, const struct cli_args *a)
{
    return cli_maintenance_pass(cli, a, "cleanup", print_cleanup);
}
