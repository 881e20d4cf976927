/* hoglake maintenance compact (cmd_maintenance_compact.h). */
#include "cli/cmd_maintenance_compact.h"

#include <inttypes.h>
#include <stdio.h>

const struct cli_opt cli_compact_opts[] = {
    {"batch", true, false,
     "N  compact at most N file groups in this pass (default 1, at most 1000)"},
};

static void print_result(const json_t *r, const char *catalog)
{
    (void)catalog;
    printf("groups compacted     %" PRId64 "\n", cli_json_i64(r, "groups_compacted"));
    printf("files                %" PRId64 " in, %" PRId64 " out\n", cli_json_i64(r, "files_in"),
           cli_json_i64(r, "files_out"));
    printf("bytes                %" PRId64 " in, %" PRId64 " out\n", cli_json_i64(r, "bytes_in"),
           cli_json_i64(r, "bytes_out"));
    printf("skipped              %" PRId64 " conflicts, %" PRId64 " deletion vectors, %" PRId64
           " unconvertible, %" PRId64 " invalid data, %" PRId64 " over budget, %" PRId64
           " failed, %" PRId64 " claimed elsewhere\n",
           cli_json_i64(r, "skipped_conflicts"), cli_json_i64(r, "dv_superseded"),
           cli_json_i64(r, "unconvertible_schema"), cli_json_i64(r, "invalid_data"),
           cli_json_i64(r, "heap_budget_exceeded"), cli_json_i64(r, "failed_groups"),
           cli_json_i64(r, "claimed_elsewhere"));
}

int cli_run_compact(struct cli *cli, const struct cli_args *a)
{
    return cli_maintenance_pass(cli, a, "compact", print_result);
}
