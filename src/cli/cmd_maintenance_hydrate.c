/* hoglake maintenance hydrate|rehydrate (cmd_maintenance_hydrate.h). */
#include "cli/cmd_maintenance_hydrate.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/output.h"

const struct cli_opt cli_hydrate_opts[] = {
    {"batch", true, false, "N  settle at most N files in this pass (default 100, at most 10000)"},
};

static void print_pass(const json_t *r, const char *catalog)
{
    (void)catalog;
    printf("hydrated %" PRId64 ", failed %" PRId64 ", transient errors %" PRId64
           ", still pending %" PRId64 "\n",
           cli_json_i64(r, "hydrated"), cli_json_i64(r, "failed"),
           cli_json_i64(r, "transient_errors"), cli_json_i64(r, "still_pending"));
}

int cli_run_hydrate(struct cli *cli, const struct cli_args *a)
{
    return cli_maintenance_pass(cli, a, "hydrate", print_pass);
}

const struct cli_opt cli_rehydrate_opts[] = {
    {"table", true, false, "NAMESPACE.TABLE  requeue only this table's failed files"},
};

static void print_requeued(const json_t *r, const char *catalog)
{
    (void)catalog;
    char files[OUT_NUM_MAX];
    printf("requeued %s\n", out_count(cli_json_i64(r, "requeued"), "failed file", "failed files",
                                      files, sizeof files));
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
