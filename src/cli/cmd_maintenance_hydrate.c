/* hoglake maintenance hydrate|rehydrate (cmd_maintenance_hydrate.h). */
#include "cli/cmd_maintenance_hydrate.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const struct cli_opt cli_hydrate_opts[] = {
    {"batch", true, false, "N  settle at most N files in this pass (default 100, at most 10000)"},
};

static int64_t member(const json_t *o, const char *key)
{
    return (int64_t)json_integer_value(json_object_get(o, key));
}

static void print_pass(const json_t *r)
{
    printf("hydrated %" PRId64 ", failed %" PRId64 ", transient errors %" PRId64
           ", still pending %" PRId64 "\n",
           member(r, "hydrated"), member(r, "failed"), member(r, "transient_errors"),
           member(r, "still_pending"));
}

int cli_run_hydrate(struct cli *cli, const struct cli_args *a)
{
    int64_t batch = 0;
    int rc = cli_opt_i64(a, "batch", 1, &batch);
    if (rc != EXIT_OK)
        return rc;
    char suffix[64] = "/maintenance/hydrate";
    if (batch > 0)
        snprintf(suffix, sizeof suffix, "/maintenance/hydrate?batch=%" PRId64, batch);
    return cli_post_catalog(cli, a->positional[0], suffix, print_pass);
}

const struct cli_opt cli_rehydrate_opts[] = {
    {"table", true, false, "NAMESPACE.TABLE  requeue only this table's failed files"},
};

static void print_requeued(const json_t *r)
{
    printf("requeued %" PRId64 " failed file(s)\n", member(r, "requeued"));
}

int cli_run_rehydrate(struct cli *cli, const struct cli_args *a)
{
    char suffix[600] = "/maintenance/rehydrate";
    const char *table = cli_opt_value(a, "table");
    if (table) {
        char parts[2][200];
        if (!cli_split_name(table, 2, parts) || strpbrk(table, "&=?#%+ "))
            return cli_usage_error("--table takes NAMESPACE.TABLE, got '%s'", table);
        /* Names without query metacharacters go into the query as they are
         * (valid identifiers never hold any). */
        snprintf(suffix, sizeof suffix, "/maintenance/rehydrate?namespace=%s&table=%s", parts[0],
                 parts[1]);
    }
    return cli_post_catalog(cli, a->positional[0], suffix, print_requeued);
}
