/* hoglake maintenance compact (cmd_maintenance_compact.h). */
#include "cli/cmd_maintenance_compact.h"

#include <inttypes.h>
#include <stdio.h>

const struct cli_opt cli_compact_opts[] = {
    {"batch", true, false,
     "N  compact at most N file groups in this pass (default 1, at most 1000)"},
};

static int64_t member(const json_t *o, const char *key)
{
    return (int64_t)json_integer_value(json_object_get(o, key));
}

static void print_result(const json_t *r)
{
    printf("groups compacted     %" PRId64 "\n", member(r, "groups_compacted"));
    printf("files                %" PRId64 " in, %" PRId64 " out\n", member(r, "files_in"),
           member(r, "files_out"));
    printf("bytes                %" PRId64 " in, %" PRId64 " out\n", member(r, "bytes_in"),
           member(r, "bytes_out"));
    printf("skipped              %" PRId64 " conflicts, %" PRId64 " deletion vectors, %" PRId64
           " unconvertible, %" PRId64 " invalid data, %" PRId64 " over budget, %" PRId64
           " failed, %" PRId64 " claimed elsewhere\n",
           member(r, "skipped_conflicts"), member(r, "dv_superseded"),
           member(r, "unconvertible_schema"), member(r, "invalid_data"),
           member(r, "heap_budget_exceeded"), member(r, "failed_groups"),
           member(r, "claimed_elsewhere"));
}

int cli_run_compact(struct cli *cli, const struct cli_args *a)
{
    int64_t batch = 0;
    int rc = cli_opt_i64(a, "batch", 1, &batch);
    if (rc != EXIT_OK)
        return rc;
    char suffix[64] = "/maintenance/compact";
    if (cli_opt_given(a, "batch"))
        snprintf(suffix, sizeof suffix, "/maintenance/compact?batch=%" PRId64, batch);
    return cli_post_catalog(cli, a->positional[0], suffix, print_result);
}
