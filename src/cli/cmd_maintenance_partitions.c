/* hoglake maintenance partitions: the partitions with compaction debt,
 * most first, from the catalog's sampled partition summary
 * (GET .../stats/partitions). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_maintenance_partitions.h"
#include "cli/output.h"
#include "util/buf.h"

const struct cli_opt cli_partitions_opts[] = {
    {"namespace", true, false, "NAMESPACE  only this namespace's partitions"},
    {"table", true, false, "NAMESPACE.TABLE  only this table's partitions"},
    {"limit", true, false, "N  partitions to show, most debt first (default 50, at most 500)"},
};

/* The values as stored, joined by '/'; "-" when the files have no spec. */
static char *values_text(const json_t *values)
{
    struct buf b = BUF_INIT;
    int bad = 0;
    size_t i;
    const json_t *v;
    json_array_foreach (values, i, v) {
        bad |= buf_puts(&b, i ? "/" : "");
        bad |= buf_puts(&b, json_is_string(v) ? json_string_value(v) : "null");
    }
    if (json_array_size(values) == 0)
        bad |= buf_puts(&b, "-");
    if (bad) {
        buf_free(&b);
        return NULL;
    }
    return buf_take(&b);
}

static void print_report(const json_t *r)
{
    const json_t *sampled = json_object_get(r, "sampled_at");
    if (!json_is_string(sampled)) {
        printf("not sampled yet: no walk of the summary sampler has finished on this catalog\n");
        return;
    }
    printf("sampled at %s (snapshot %lld, walked in %.1f s)\n", json_string_value(sampled),
           (long long)cli_json_i64(r, "sampled_snapshot_id"),
           (double)cli_json_i64(r, "sample_walk_ms") / 1000.0);
    static const char *const headers[] = {"TABLE", "PARTITION", "FILES", "SMALL",
                                          "BYTES", "DVS",       "DEBT"};
    struct out_table t;
    out_table_init(&t, 7, headers);
    const json_t *parts = json_object_get(r, "partitions");
    size_t i;
    const json_t *p;
    json_array_foreach (parts, i, p) {
        char table[420], files[OUT_NUM_MAX], small[OUT_NUM_MAX], bytes[OUT_NUM_MAX],
            dvs[OUT_NUM_MAX], debt[OUT_NUM_MAX];
        snprintf(table, sizeof table, "%s.%s", json_string_value(json_object_get(p, "namespace")),
                 json_string_value(json_object_get(p, "table")));
        char *values = values_text(json_object_get(p, "partition_values"));
        out_table_row(&t, table, values ? values : "?",
                      out_number(files, cli_json_i64(p, "file_count")),
                      out_number(small, cli_json_i64(p, "small_file_count")),
                      out_bytes(bytes, (uint64_t)cli_json_i64(p, "total_bytes")),
                      out_number(dvs, cli_json_i64(p, "dv_count")),
                      out_number(debt, cli_json_i64(p, "debt_score")));
        free(values);
    }
    out_table_print(&t);
    out_table_free(&t);
    if (json_array_size(parts) == 0)
        printf("no partition has compaction debt\n");
    if (json_is_true(json_object_get(r, "truncated")))
        printf("more partitions have debt: --limit shows more\n");
    int64_t stale = cli_json_i64(r, "stale_spec_groups");
    if (stale > 0)
        printf("%lld partition group%s hold%s files of a spec the table no longer has\n",
               (long long)stale, stale == 1 ? "" : "s", stale == 1 ? "s" : "");
}

int cli_run_partitions(struct cli *cli, const struct cli_args *a)
{
    int64_t limit = 50;
    int rc = cli_opt_i64(a, "limit", 1, &limit);
    if (rc != EXIT_OK)
        return rc;
    const char *ns = cli_opt_value(a, "namespace"), *table = cli_opt_value(a, "table");
    if (ns && table)
        return cli_usage_error("give --namespace or --table, not both");
    char suffix[600];
    int len = snprintf(suffix, sizeof suffix, "/stats/partitions?limit=%lld", (long long)limit);
    /* Names without query metacharacters go into the query as they are
     * (valid identifiers never hold any). */
    if (ns) {
        if (strpbrk(ns, "&=?#%+. ") || strlen(ns) > 200)
            return cli_usage_error("--namespace takes a namespace name, got '%s'", ns);
        snprintf(suffix + len, sizeof suffix - (size_t)len, "&namespace=%s", ns);
    }
    if (table) {
        char parts[2][200];
        if (!cli_split_name(table, 2, parts) || strpbrk(table, "&=?#%+ "))
            return cli_usage_error("--table takes NAMESPACE.TABLE, got '%s'", table);
        snprintf(suffix + len, sizeof suffix - (size_t)len, "&namespace=%s&table=%s", parts[0],
                 parts[1]);
    }
    char path[900];
    if ((rc = cli_object_path(path, sizeof path, a->positional[0], 1, NULL, suffix)) != EXIT_OK)
        return rc;
    json_t *r;
    if ((rc = cli_request(cli, "GET", path, NULL, &r)) != EXIT_OK)
        return rc;
    if (cli->json)
        cli_print_json(r);
    else
        print_report(r);
    json_decref(r);
    return EXIT_OK;
}
