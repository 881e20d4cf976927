/* `hoglake maintenance orphans CATALOG [--older-than DURATION] [--dry-run]
 * [--limit N]`: runs one orphan sweep of the catalog's storage on the
 * server (POST .../maintenance/orphans) and prints the paths it deleted
 * (would delete, with --dry-run), one a line, then the counts. */
#include <stdio.h>

#include "cli/cmd_maintenance_orphans.h"
#include "cli/duration.h"
#include "cli/output.h"

/* The server refuses less; saying so here spares the round trip. */
enum { ORPHANS_MIN_OLDER_THAN = 60 };

const struct cli_opt cli_orphans_opts[3] = {
    {"older-than", true, false,
     "DURATION  only objects older than this (90s, 10m, 24h, 7d or seconds; at least 60s;\n"
     "default: the server's --orphan-grace-seconds)"},
    {"dry-run", false, false, "list what would be deleted; delete nothing"},
    {"limit", true, false, "N  most objects to list this run (default 100000)"},
};

static void print_orphans(const json_t *r, const char *catalog)
{
    (void)catalog;
    bool dry = json_is_true(json_object_get(r, "dry_run"));
    const json_t *paths = json_object_get(r, "paths");
    for (size_t i = 0; i < json_array_size(paths); i++)
        printf("%s\n", json_string_value(json_array_get(paths, i)));
    int64_t shown = (int64_t)json_array_size(paths);
    int64_t total = cli_json_i64(r, dry ? "orphans" : "deleted");
    if (total > shown)
        printf("... and %lld more\n", (long long)(total - shown));
    char count[OUT_NUM_MAX], bytes[OUT_NUM_MAX];
    int64_t size = cli_json_i64(r, dry ? "orphan_bytes" : "bytes_deleted");
    printf("%s %s (%s), listed %lld, referenced %lld, claimed %lld, queued %lld, "
           "young %lld\n",
           dry ? "would delete" : "deleted", out_number(count, total),
           out_bytes(bytes, size < 0 ? 0 : (uint64_t)size), (long long)cli_json_i64(r, "listed"),
           (long long)cli_json_i64(r, "referenced"), (long long)cli_json_i64(r, "claimed"),
           (long long)cli_json_i64(r, "queued"), (long long)cli_json_i64(r, "young"));
    int64_t failed = cli_json_i64(r, "failed"), refused = cli_json_i64(r, "refused");
    if (failed > 0 || refused > 0)
        printf("failed %lld (left queued for cleanup), refused %lld\n", (long long)failed,
               (long long)refused);
    int64_t uploads = cli_json_i64(r, dry ? "uploads_orphaned" : "uploads_aborted");
    if (uploads > 0)
        printf("incomplete multipart uploads %s %lld\n", dry ? "to abort" : "aborted",
               (long long)uploads);
    if (json_is_true(json_object_get(r, "truncated")))
        printf("truncated: the run stopped at its limit or time budget; run it again\n");
}

int cli_run_orphans(struct cli *cli, const struct cli_args *a)
{
    int64_t limit = 0;
    int rc = cli_opt_i64(a, "limit", 1, &limit);
    if (rc != EXIT_OK)
        return rc;
    const char *older = cli_opt_value(a, "older-than");
    int64_t seconds = 0;
    if (older && !cli_parse_duration(older, &seconds))
        return cli_usage_error("--older-than must be a duration like 90s, 10m, 24h, 7d or "
                               "seconds, got '%.40s'",
                               older);
    if (older && seconds < ORPHANS_MIN_OLDER_THAN)
        return cli_usage_error("--older-than must be at least %ds, got %llds",
                               ORPHANS_MIN_OLDER_THAN, (long long)seconds);
    char suffix[160];
    int n = snprintf(suffix, sizeof suffix, "/maintenance/orphans?dry_run=%s",
                     cli_opt_given(a, "dry-run") ? "true" : "false");
    if (older)
        n += snprintf(suffix + n, sizeof suffix - (size_t)n, "&older_than_seconds=%lld",
                      (long long)seconds);
    if (cli_opt_given(a, "limit"))
        snprintf(suffix + n, sizeof suffix - (size_t)n, "&limit=%lld", (long long)limit);
    return cli_post_catalog(cli, a->positional[0], suffix, print_orphans);
}
