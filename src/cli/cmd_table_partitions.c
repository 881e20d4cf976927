/* hoglake table partitions CATALOG.NAMESPACE.TABLE: the table's partition
 * groups as the sampled summary counts them, one row each, values named by
 * the table's live spec (groups of an older spec show their values as
 * stored). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_table_partitions.h"
#include "cli/output.h"
#include "cli/partition_text.h"
#include "util/buf.h"

const struct cli_opt cli_table_partitions_opts[] = {
    {"sort", true, false,
     "KEY  partition (default), files, small_files, debt, total_size, avg_size, dvs, rows or "
     "last_written"},
    {"order", true, false, "asc|desc  (default: asc for partition, desc for the others)"},
    {"limit", true, false, "N  groups to show (default 100, at most 1000)"},
    {"offset", true, false, "N  groups to skip"},
    {"filter", true, true,
     "K:PREFIX  only groups whose value K (0 first) starts with PREFIX, case aside; an empty "
     "PREFIX matches null (repeatable: all must hold)"},
};

/* The group's values, named by spec when it is theirs. */
static char *values_text(const struct part_spec *spec, const json_t *group)
{
    const json_t *values = json_object_get(group, "partition_values");
    size_t n = json_array_size(values);
    if (n == 0)
        return strdup("-");
    const char **v = calloc(n, sizeof *v);
    if (!v)
        return NULL;
    for (size_t k = 0; k < n; k++)
        v[k] = json_string_value(json_array_get(values, k));
    bool ours = spec && json_integer_value(json_object_get(group, "spec_id")) == spec->spec_id;
    struct buf out = BUF_INIT;
    char *text = part_text(ours ? spec : NULL, v, n, &out) == 0 ? buf_take(&out) : NULL;
    buf_free(&out);
    free(v);
    return text;
}

static void print_listing(const json_t *r, const struct part_spec *spec)
{
    const json_t *sampled = json_object_get(r, "sampled_at");
    if (!json_is_string(sampled)) {
        printf("not sampled yet: no walk of the summary sampler has finished on this catalog\n");
        return;
    }
    printf("sampled at %s (snapshot %lld): %lld partition group%s\n", json_string_value(sampled),
           (long long)cli_json_i64(r, "sampled_snapshot_id"), (long long)cli_json_i64(r, "total"),
           cli_json_i64(r, "total") == 1 ? "" : "s");
    static const char *const headers[] = {"PARTITION", "FILES", "SMALL", "BYTES",
                                          "ROWS",      "DVS",   "DEBT"};
    struct out_table t;
    out_table_init(&t, 7, headers);
    size_t i;
    const json_t *g;
    json_array_foreach (json_object_get(r, "partitions"), i, g) {
        char files[OUT_NUM_MAX], small[OUT_NUM_MAX], bytes[OUT_NUM_MAX], rows[OUT_NUM_MAX],
            dvs[OUT_NUM_MAX], debt[OUT_NUM_MAX];
        char *values = values_text(spec, g);
        out_table_row(&t, values ? values : "?", out_number(files, cli_json_i64(g, "file_count")),
                      out_number(small, cli_json_i64(g, "small_file_count")),
                      out_bytes(bytes, (uint64_t)cli_json_i64(g, "total_bytes")),
                      out_number(rows, cli_json_i64(g, "record_count")),
                      out_number(dvs, cli_json_i64(g, "dv_count")),
                      out_number(debt, cli_json_i64(g, "debt_score")));
        free(values);
    }
    out_table_print(&t);
    out_table_free(&t);
    int64_t stale = cli_json_i64(r, "stale_spec_groups");
    if (stale > 0)
        printf("%lld group%s hold%s files of a spec the table no longer has\n", (long long)stale,
               stale == 1 ? "" : "s", stale == 1 ? "s" : "");
}

int cli_run_table_partitions(struct cli *cli, const struct cli_args *a)
{
    char path[2048];
    int rc = cli_object_path(path, sizeof path, a->positional[0], 3, "tables", "/partitions");
    if (rc != EXIT_OK)
        return rc;
    int64_t n;
    char text[32];
    static const char *const numbers[] = {"limit", "offset"};
    for (size_t i = 0; i < 2; i++) {
        if (!cli_opt_given(a, numbers[i]))
            continue;
        if ((rc = cli_opt_i64(a, numbers[i], 0, &n)) != EXIT_OK)
            return rc;
        snprintf(text, sizeof text, "%lld", (long long)n);
        cli_path_add_query(path, sizeof path, numbers[i], text);
    }
    static const char *const words[] = {"sort", "order"};
    for (size_t i = 0; i < 2; i++) {
        const char *word = cli_opt_value(a, words[i]);
        if (word && strlen(word) > 64)
            return cli_usage_error("--%s takes a word such as %s", words[i], i ? "desc" : "files");
        if (word)
            cli_path_add_query(path, sizeof path, words[i], word);
    }
    const char *filters[CLI_MAX_VALUES];
    int nfilters = cli_opt_values(a, "filter", filters, CLI_MAX_VALUES);
    for (int i = 0; i < nfilters; i++) {
        if (strlen(filters[i]) > 100)
            return cli_usage_error("--filter takes K:PREFIX of at most 100 bytes");
        cli_path_add_query(path, sizeof path, "filter", filters[i]);
    }
    json_t *r;
    if ((rc = cli_request(cli, "GET", path, NULL, &r)) != EXIT_OK)
        return rc;
    if (cli->json) {
        cli_print_json(r);
        json_decref(r);
        return EXIT_OK;
    }
    /* The live spec names the values; without it they show as stored. */
    struct part_spec spec = {.spec_id = -1};
    char table_path[2048];
    json_t *table = NULL;
    if (cli_object_path(table_path, sizeof table_path, a->positional[0], 3, "tables",
                        "?totals=false") == EXIT_OK &&
        cli_request(cli, "GET", table_path, NULL, &table) == EXIT_OK && table)
        part_spec_from_table(table, &spec);
    json_decref(table);
    print_listing(r, spec.nfields ? &spec : NULL);
    part_spec_free(&spec);
    json_decref(r);
    return EXIT_OK;
}
