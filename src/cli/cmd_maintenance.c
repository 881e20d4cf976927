/* hoglake maintenance
 * expire|retire|runs|status|partitions|compact|hydrate|rehydrate|cleanup|orphans:
 * server-owned maintenance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_maintenance_cleanup.h"
#include "cli/cmd_maintenance_compact.h"
#include "cli/cmd_maintenance_hydrate.h"
#include "cli/cmd_maintenance_orphans.h"
#include "cli/cmd_maintenance_partitions.h"
#include "cli/output.h"

static const struct cli_opt expire_opts[] = {
    {"batch", true, false, "N  most snapshots to expire (default: the server's)"},
};

int64_t cli_json_i64(const json_t *o, const char *key)
{
    return (int64_t)json_integer_value(json_object_get(o, key));
}

int cli_maintenance_pass(struct cli *cli, const struct cli_args *a, const char *task,
                         cli_human_fn human)
{
    int64_t batch;
    int rc = cli_opt_i64(a, "batch", 1, &batch);
    if (rc != EXIT_OK)
        return rc;
    char suffix[96];
    if (cli_opt_given(a, "batch"))
        snprintf(suffix, sizeof suffix, "/maintenance/%s?batch=%lld", task, (long long)batch);
    else
        snprintf(suffix, sizeof suffix, "/maintenance/%s", task);
    return cli_post_catalog(cli, a->positional[0], suffix, human);
}

static void print_expiry(const json_t *r, const char *catalog)
{
    (void)catalog;
    printf("snapshots expired    %lld\n", (long long)cli_json_i64(r, "snapshots_expired"));
    printf("earliest snapshot    %lld%s\n", (long long)cli_json_i64(r, "new_earliest_snapshot_id"),
           json_is_true(json_object_get(r, "floored_by_consumer")) ? " (held by a consumer offset)"
                                                                   : "");
    printf("files queued         %lld data, %lld delete\n",
           (long long)cli_json_i64(r, "data_files_queued"),
           (long long)cli_json_i64(r, "delete_files_queued"));
}

static int run_expire(struct cli *cli, const struct cli_args *a)
{
    return cli_maintenance_pass(cli, a, "expire", print_expiry);
}

static const struct cli_opt retire_opts[] = {
    {"batch", true, false, "N  most files per page (default: the server's, 8000)"},
};

static void print_retirement(const json_t *r, const char *catalog)
{
    (void)catalog;
    printf("tables retired       %lld (%lld newly marked)\n",
           (long long)cli_json_i64(r, "tables_retired"),
           (long long)cli_json_i64(r, "tables_marked"));
    printf("files removed        %lld data, %lld delete\n",
           (long long)cli_json_i64(r, "data_files_removed"),
           (long long)cli_json_i64(r, "delete_files_removed"));
    printf("objects              removed %lld, missing %lld, still referenced %lld, refused %lld, "
           "failed %lld\n",
           (long long)cli_json_i64(r, "removed"), (long long)cli_json_i64(r, "missing"),
           (long long)cli_json_i64(r, "still_referenced"), (long long)cli_json_i64(r, "refused"),
           (long long)cli_json_i64(r, "failed"));
    printf("catalog lock held    %.3f ms\n", (double)cli_json_i64(r, "lock_held_us") / 1000.0);
    int64_t pending = cli_json_i64(r, "tables_pending");
    if (pending > 0)
        printf("tables pending       %lld (%s)\n", (long long)pending,
               cli_json_i64(r, "failed") > 0 ? "failed deletes are retried by the next run"
                                             : "the next run continues");
}

static int run_retire(struct cli *cli, const struct cli_args *a)
{
    return cli_maintenance_pass(cli, a, "retire", print_retirement);
}

static void print_run(const json_t *run)
{
    char *result = json_dumps(json_object_get(run, "result"), JSON_COMPACT);
    const json_t *error = json_object_get(run, "error");
    printf("%-8lld %-10s %-6s %-25s %-6s %s\n",
           (long long)json_integer_value(json_object_get(run, "run_id")),
           json_string_value(json_object_get(run, "task")),
           json_string_value(json_object_get(run, "trigger")),
           json_string_value(json_object_get(run, "started_at")),
           json_string_value(json_object_get(run, "status")),
           error ? json_string_value(error) : (result ? result : ""));
    free(result);
}

static const struct cli_opt runs_opts[] = {
    {"task", true, false, "TASK  only this task's runs (expiry, cleanup, hydrator, ...)"},
    {"limit", true, false, "N  runs to show, newest first (default 50, at most 500)"},
};

static int run_runs(struct cli *cli, const struct cli_args *a)
{
    char suffix[160] = "/maintenance/runs";
    const char *task = cli_opt_value(a, "task");
    int64_t limit = 50;
    int rc = cli_opt_i64(a, "limit", 1, &limit);
    if (rc != EXIT_OK)
        return rc;
    if (task && strspn(task, "abcdefghijklmnopqrstuvwxyz") != strlen(task))
        return cli_usage_error("--task takes a task name such as expiry");
    snprintf(suffix, sizeof suffix, "/maintenance/runs?limit=%lld%s%.40s", (long long)limit,
             task ? "&task=" : "", task ? task : "");
    char path[512];
    if ((rc = cli_object_path(path, sizeof path, a->positional[0], 1, NULL, suffix)) != EXIT_OK)
        return rc;
    json_t *r;
    if ((rc = cli_request(cli, "GET", path, NULL, &r)) != EXIT_OK)
        return rc;
    if (cli->json) {
        cli_print_json(r);
    } else {
        printf("%-8s %-10s %-6s %-25s %-6s %s\n", "RUN", "TASK", "BY", "STARTED", "STATUS",
               "RESULT");
        json_t *runs = json_object_get(r, "runs");
        for (size_t i = 0; i < json_array_size(runs); i++)
            print_run(json_array_get(runs, i));
    }
    json_decref(r);
    return EXIT_OK;
}

/* Compaction's backlog says why small files may stay (nothing to group
 * them with); other tasks' backlogs are shown as the server sends them. */
static void print_backlog(const char *task, const json_t *backlog)
{
    if (task && strcmp(task, "compaction") == 0 && json_is_object(backlog)) {
        int64_t small = cli_json_i64(backlog, "small_files");
        int64_t alone = cli_json_i64(backlog, "alone_files");
        char files[OUT_NUM_MAX], parts[OUT_NUM_MAX];
        printf("  backlog      %s in %s",
               out_count(small, "small file", "small files", files, sizeof files),
               out_count(cli_json_i64(backlog, "small_file_partitions"), "partition", "partitions",
                         parts, sizeof parts));
        if (alone > 0)
            printf("; %lld alone in their partition (no group can take %s)", (long long)alone,
                   alone == 1 ? "it" : "them");
        printf("\n");
        return;
    }
    char *text = json_dumps(backlog, JSON_COMPACT);
    printf("  backlog      %s\n", text ? text : "{}");
    free(text);
}

static int run_status(struct cli *cli, const struct cli_args *a)
{
    json_t *r;
    int rc = cli_get(cli, a, 1, NULL, "/maintenance/status", false, &r);
    if (rc != EXIT_OK)
        return rc;
    if (cli->json) {
        cli_print_json(r);
    } else {
        json_t *tasks = json_object_get(r, "tasks");
        for (size_t i = 0; i < json_array_size(tasks); i++) {
            const json_t *t = json_array_get(tasks, i);
            const json_t *loop = json_object_get(t, "loop");
            const json_t *last = json_object_get(t, "last_run");
            printf("%s\n", json_string_value(json_object_get(t, "task")));
            if (json_is_object(loop))
                printf("  loop         every %lld ms, next due %s\n",
                       (long long)json_integer_value(json_object_get(loop, "interval_ms")),
                       json_string_value(json_object_get(loop, "next_due_at"))
                           ? json_string_value(json_object_get(loop, "next_due_at"))
                           : "-");
            else
                printf("  loop         off on this server\n");
            if (json_is_object(last))
                printf("  last run     %s, %s (%s)\n",
                       json_string_value(json_object_get(last, "finished_at")),
                       json_string_value(json_object_get(last, "status")),
                       json_string_value(json_object_get(last, "trigger")));
            else
                printf("  last run     never\n");
            print_backlog(json_string_value(json_object_get(t, "task")),
                          json_object_get(t, "backlog"));
        }
    }
    json_decref(r);
    return EXIT_OK;
}

static const struct cli_verb verbs[] = {
    {"expire", "expire snapshots past the catalog's retention now",
     "maintenance expire CATALOG [--batch N]", expire_opts, 1, 1, 1, run_expire},
    {"retire", "reclaim the files and rows of tables dropped before the expiry floor now",
     "maintenance retire CATALOG [--batch N]", retire_opts, 1, 1, 1, run_retire},
    {"runs", "the maintenance runs ledger, newest first",
     "maintenance runs CATALOG [--task TASK] [--limit N]", runs_opts, 2, 1, 1, run_runs},
    {"status", "each maintenance task's last run, backlog and loop", "maintenance status CATALOG",
     NULL, 0, 1, 1, run_status},
    {"partitions", "the partitions with compaction debt, most first (sampled)",
     "maintenance partitions CATALOG [--namespace NAMESPACE | --table NAMESPACE.TABLE] "
     "[--limit N]",
     cli_partitions_opts, 3, 1, 1, cli_run_partitions},
    {"compact", "rewrite small files into larger sorted ones now (one compaction pass)",
     "maintenance compact CATALOG [--batch N]", cli_compact_opts, 1, 1, 1, cli_run_compact},
    {"hydrate", "fill deferred statistics now (one hydrator pass)",
     "maintenance hydrate CATALOG [--batch N]", cli_hydrate_opts, 1, 1, 1, cli_run_hydrate},
    {"rehydrate", "requeue files whose hydration failed",
     "maintenance rehydrate CATALOG [--table NAMESPACE.TABLE]", cli_rehydrate_opts, 1, 1, 1,
     cli_run_rehydrate},
    {"cleanup", "delete the objects in the removal queue that nothing references",
     "maintenance cleanup CATALOG [--batch N]", cli_cleanup_opts, 1, 1, 1, cli_run_cleanup},
    {"orphans", "delete the objects in the catalog's storage that nothing references",
     "maintenance orphans CATALOG [--older-than DURATION] [--dry-run] [--limit N]",
     cli_orphans_opts, 3, 1, 1, cli_run_orphans},
};

int cmd_maintenance(struct cli *cli, int argc, char **argv)
{
    return cli_run_verbs(cli, "maintenance", verbs, sizeof verbs / sizeof verbs[0], argc, argv);
}
