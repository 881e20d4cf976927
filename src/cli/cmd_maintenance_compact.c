/* hoglake maintenance compact (cmd_maintenance_compact.h). */
#include "cli/cmd_maintenance_compact.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

const struct cli_opt cli_compact_opts[] = {
    {"batch", true, false,
     "N  compact at most N file groups in this pass (default 1, at most 1000)"},
};

/* Prints one reason files were left, when it applies: "left" on the
 * first line, aligned under it on the next. */
static void print_left(bool *first, int64_t files, const char *why)
{
    if (files <= 0)
        return;
    printf("%-21s%" PRId64 " file%s %s\n", *first ? "left" : "", files, files == 1 ? "" : "s", why);
    *first = false;
}

/* Why the planner left candidates alone, so "0 groups" never stands
 * without a reason. */
static void print_reasons(const json_t *r)
{
    if (cli_json_i64(r, "candidates_files") == 0 && cli_json_i64(r, "groups_compacted") == 0) {
        printf("left                 nothing: no live file is under the target size\n");
        return;
    }
    bool first = true;
    char why[160];
    int64_t partitions = cli_json_i64(r, "left_too_few_partitions");
    snprintf(why, sizeof why,
             "with too few small files in their partition to make a group (%" PRId64
             " partition%s)",
             partitions, partitions == 1 ? "" : "s");
    print_left(&first, cli_json_i64(r, "left_too_few_files"), why);
    print_left(&first, cli_json_i64(r, "left_over_budget_files"),
               "in groups over the memory budget (HOGLAKE_COMPACTION_MAX_GROUP_BYTES)");
    print_left(&first, cli_json_i64(r, "left_claimed_files"), "claimed by another compaction pass");
    if (json_is_true(json_object_get(r, "batch_reached")))
        printf("more                 the pass stopped at its batch of groups: run it again or "
               "raise --batch\n");
}

static void print_result(const json_t *r, const char *catalog)
{
    (void)catalog;
    printf("groups compacted     %" PRId64 "\n", cli_json_i64(r, "groups_compacted"));
    printf("files                %" PRId64 " in, %" PRId64 " out\n", cli_json_i64(r, "files_in"),
           cli_json_i64(r, "files_out"));
    printf("bytes                %" PRId64 " in, %" PRId64 " out\n", cli_json_i64(r, "bytes_in"),
           cli_json_i64(r, "bytes_out"));
    printf("skipped groups       %" PRId64 " conflicts, %" PRId64
           " deletion vectors changed, %" PRId64 " unconvertible, %" PRId64
           " invalid data, %" PRId64 " over budget, %" PRId64 " failed, %" PRId64
           " claimed elsewhere\n",
           cli_json_i64(r, "skipped_conflicts"), cli_json_i64(r, "dv_superseded"),
           cli_json_i64(r, "unconvertible_schema"), cli_json_i64(r, "invalid_data"),
           cli_json_i64(r, "heap_budget_exceeded"), cli_json_i64(r, "failed_groups"),
           cli_json_i64(r, "claimed_elsewhere"));
    print_reasons(r);
}

int cli_run_compact(struct cli *cli, const struct cli_args *a)
{
    return cli_maintenance_pass(cli, a, "compact", print_result);
}
