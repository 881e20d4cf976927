/* hoglake table list|create|show|drop|alter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_table_partitions.h"
#include "cli/output.h"
#include "cli/text_infer.h"
#include "cli/text_input.h"
#include "textio/colspec.h"
#include "util/strutil.h"

static const char *int_str(const json_t *o, const char *key, char *buf, size_t size)
{
    snprintf(buf, size, "%lld", (long long)json_integer_value(json_object_get(o, key)));
    return buf;
}

static void show_list(const json_t *resp, const char *name)
{
    (void)name;
    static const char *const headers[] = {"NAME", "UUID", "ROWS", "FILES", "BYTES", "SNAPSHOTS"};
    struct out_table t;
    out_table_init(&t, 6, headers);
    size_t i;
    json_t *tb;
    json_array_foreach (resp, i, tb) {
        char rows[24], files[24], bytes[24], snaps[24];
        out_table_row(&t, json_string_value(json_object_get(tb, "name")),
                      json_string_value(json_object_get(tb, "table_uuid")),
                      int_str(tb, "record_count", rows, sizeof rows),
                      int_str(tb, "file_count", files, sizeof files),
                      int_str(tb, "file_size_bytes", bytes, sizeof bytes),
                      int_str(tb, "snapshot_count", snaps, sizeof snaps));
    }
    out_table_print(&t);
    out_table_free(&t);
}

static int run_list(struct cli *cli, const struct cli_args *a)
{
    json_t *resp;
    int rc = cli_get(cli, a, 2, "tables", "", true, &resp);
    if (rc != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_list, a->positional[0]);
}

/* ---- show ---- */

static void type_text(const json_t *col, char *out, size_t size)
{
    const char *type = json_string_value(json_object_get(col, "type"));
    json_t *params = json_object_get(col, "type_params");
    if (params && json_object_get(params, "precision"))
        snprintf(out, size, "%s(%lld,%lld)", type,
                 (long long)json_integer_value(json_object_get(params, "precision")),
                 (long long)json_integer_value(json_object_get(params, "scale")));
    else
        snprintf(out, size, "%s", type);
}

static void column_rows(struct out_table *t, const json_t *cols, int depth)
{
    size_t i;
    json_t *c;
    json_array_foreach (cols, i, c) {
        char id[24], name[200], type[64];
        snprintf(name, sizeof name, "%*s%s", depth * 2, "",
                 json_string_value(json_object_get(c, "name")));
        type_text(c, type, sizeof type);
        const char *comment = json_string_value(json_object_get(c, "comment"));
        out_table_row(t, int_str(c, "field_id", id, sizeof id), name, type,
                      json_is_true(json_object_get(c, "nullable")) ? "yes" : "no",
                      comment ? comment : "");
        json_t *kids = json_object_get(c, "children");
        if (kids)
            column_rows(t, kids, depth + 1);
    }
}

/* The dotted path of a field id, for showing specs by name. */
static bool field_path(const json_t *cols, json_int_t id, char *out, size_t size)
{
    size_t i;
    json_t *c;
    json_array_foreach (cols, i, c) {
        const char *name = json_string_value(json_object_get(c, "name"));
        if (json_integer_value(json_object_get(c, "field_id")) == id) {
            snprintf(out, size, "%s", name);
            return true;
        }
        json_t *kids = json_object_get(c, "children");
        char rest[400];
        if (kids && field_path(kids, id, rest, sizeof rest))
            return snprintf(out, size, "%s.%s", name, rest) < (int)size;
    }
    return false;
}

static void print_specs(const json_t *table)
{
    const json_t *cols = json_object_get(table, "columns");
    json_t *spec = json_object_get(table, "partition_spec");
    if (spec) {
        printf("partitioned by  ");
        size_t i;
        json_t *f;
        json_array_foreach (json_object_get(spec, "fields"), i, f) {
            char src[400] = "?";
            field_path(cols, json_integer_value(json_object_get(f, "source_field_id")), src,
                       sizeof src);
            const char *tr = json_string_value(json_object_get(f, "transform"));
            json_t *param = json_object_get(f, "transform_param");
            if (param)
                printf("%s%s(%lld, %s)", i ? ", " : "", tr, (long long)json_integer_value(param),
                       src);
            else if (strcmp(tr, "identity") == 0)
                printf("%s%s", i ? ", " : "", src);
            else
                printf("%s%s(%s)", i ? ", " : "", tr, src);
        }
        printf("  (spec %lld)\n", (long long)json_integer_value(json_object_get(spec, "spec_id")));
    }
    json_t *sort = json_object_get(table, "sort_spec");
    if (sort) {
        printf("sorted by       ");
        size_t i;
        json_t *f;
        json_array_foreach (json_object_get(sort, "fields"), i, f) {
            char src[400] = "?";
            field_path(cols, json_integer_value(json_object_get(f, "source_field_id")), src,
                       sizeof src);
            const char *nulls = json_string_value(json_object_get(f, "null_order"));
            printf("%s%s %s nulls %s", i ? ", " : "", src,
                   json_string_value(json_object_get(f, "direction")),
                   nulls && strcmp(nulls, "nulls_first") == 0 ? "first" : "last");
        }
        printf("  (sort %lld)\n", (long long)json_integer_value(json_object_get(sort, "sort_id")));
    }
}

static void print_table(const char *qualified, const json_t *t)
{
    printf("table           %s\n", qualified);
    printf("uuid            %s\n", json_string_value(json_object_get(t, "table_uuid")));
    printf("read snapshot   %lld\n",
           (long long)json_integer_value(json_object_get(t, "read_snapshot_id")));
    if (json_object_get(t, "record_count")) {
        char rows[OUT_NUM_MAX], files[OUT_NUM_MAX], bytes[OUT_NUM_MAX];
        json_int_t size = json_integer_value(json_object_get(t, "file_size_bytes"));
        printf("totals          %s in %s, %s\n",
               out_count(json_integer_value(json_object_get(t, "record_count")), "row", "rows",
                         rows, sizeof rows),
               out_count(json_integer_value(json_object_get(t, "file_count")), "file", "files",
                         files, sizeof files),
               out_bytes(bytes, size < 0 ? 0 : (uint64_t)size));
    }
    const char *comment = json_string_value(json_object_get(t, "comment"));
    if (comment)
        printf("comment         %s\n", comment);
    const char *primary_ts = json_string_value(json_object_get(t, "primary_timestamp_column"));
    if (primary_ts)
        printf("primary ts      %s\n", primary_ts);
    print_specs(t);
    json_t *props = json_object_get(t, "properties");
    if (json_object_size(props)) {
        printf("properties     ");
        const char *k;
        json_t *v;
        json_object_foreach (props, k, v)
            printf(" %s=%s", k, json_string_value(v));
        printf("\n");
    }
    printf("\n");
    static const char *const headers[] = {"FIELD", "NAME", "TYPE", "NULLABLE", "COMMENT"};
    struct out_table tab;
    out_table_init(&tab, 5, headers);
    column_rows(&tab, json_object_get(t, "columns"), 0);
    out_table_print(&tab);
    out_table_free(&tab);
}

static const struct cli_opt show_opts[] = {
    {"snapshot", true, false, "N  read as of snapshot N"},
    {"at", true, false, "TIME  read as of an ISO-8601 instant"},
    {"no-totals", false, false, "skip the row/file/byte totals (cheaper on big tables)"},
};

static void show_show(const json_t *resp, const char *name)
{
    print_table(name, resp);
}

static int run_show(struct cli *cli, const struct cli_args *a)
{
    char path[900];
    int rc = cli_object_path(path, sizeof path, a->positional[0], 3, "tables", "");
    json_t *resp;
    if (rc != EXIT_OK)
        return rc;
    if (!cli_add_time_travel(path, sizeof path, a))
        return cli_usage_error("bad --snapshot/--at value");
    if (cli_opt_given(a, "no-totals"))
        cli_path_add_query(path, sizeof path, "totals", "false");
    if ((rc = cli_request(cli, "GET", path, NULL, &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_show, a->positional[0]);
}

/* ---- create ---- */

static const struct cli_opt create_opts[] = {
    {"columns", true, false, "SPEC  compact columns: 'id:long!, name:string, tags:list<string>'"},
    {"columns-json", true, false, "JSON  ColumnDef array, or @FILE"},
    {"partition-by", true, false, "SPEC  'team_id, month(ts), bucket(16, id), truncate(4, s)'"},
    {"sort-by", true, false, "SPEC  'ts desc, id asc nulls last'"},
    {"comment", true, false, "TEXT  table comment"},
    {"property", true, true, "KEY=VALUE  a custom property (repeatable)"},
    {"primary-timestamp", true, false, "COL  the primary timestamp column (date or timestamp)"},
    {"from", true, false,
     "FILE  the columns of a CSV, TSV, JSON, JSON Lines or Parquet file (text: inferred from a "
     "sample)"},
    {"format", true, false, "csv|tsv|json|jsonl|parquet  --from's format (default: its extension)"},
    {"sample-rows", true, false,
     "N  rows of a CSV or JSON Lines --from the inferred types must read (default 20480; 0: "
     "all)"},
    {"not-null-from-sample", false, false,
     "make NOT NULL the columns the sample has no null in (a later null fails the append)"},
    {"dry-run", false, false, "print the columns --from gives and create nothing"},
    {"delimiter", true, false, "C  CSV's field separator (default ',', a tab for .tsv)"},
    {"no-header", false, false, "the CSV has no header row: columns column0, column1, ..."},
    {"null", true, false, "STRING  an unquoted CSV field equal to STRING is NULL"},
    {"map", true, true, "'Source Header=column,...'  input names to column names"},
    TEXT_INPUT_OPTS,
};

/* The text-input options that only make sense with --from. */
static const char *const from_only[] = {
    "format", "sample-rows", "not-null-from-sample", "dry-run",  "delimiter",        "no-header",
    "null",   "map",         "timestamp-format",     "timezone", "input-compression"};

/* Infers the columns of --from into *spec (in ar), printing them: on
 * standard output for --dry-run (JSON with --json), else on standard
 * error so the created table's output stays as it was. */
static int columns_from_file(const struct cli *cli, const struct cli_args *a, const char *path,
                             struct arena *ar, const char **spec)
{
    enum text_format fmt;
    bool tab;
    struct text_options o;
    struct text_infer ti;
    int rc = text_format_of(path, cli_opt_value(a, "format"), "--format", &fmt, &tab);
    if (rc != EXIT_OK || (rc = text_infer_options(a, &ti)) != EXIT_OK ||
        (rc = text_options_parse(a, false, ar, &o)) != EXIT_OK)
        return rc;
    static const char *const text_only[] = {"sample-rows", "not-null-from-sample", "map"};
    static const char *const csv_only[] = {"delimiter", "no-header", "null"};
    for (size_t i = 0; fmt == TEXT_PARQUET && i < sizeof text_only / sizeof *text_only; i++)
        if (cli_opt_given(a, text_only[i]))
            return cli_usage_error("--%s applies to CSV and JSON Lines, not Parquet", text_only[i]);
    for (size_t i = 0; fmt != TEXT_CSV && i < sizeof csv_only / sizeof *csv_only; i++)
        if (cli_opt_given(a, csv_only[i]))
            return cli_usage_error("--%s applies to CSV input", csv_only[i]);
    if ((rc = text_infer_columns(path, fmt, tab, &o, &ti, ar)) != EXIT_OK)
        return rc;
    bool dry = cli_opt_given(a, "dry-run");
    if (dry && cli->json) {
        json_t *layouts = json_array();
        for (size_t i = 0; layouts && i < ti.nformats; i++)
            json_array_append_new(layouts, json_string(ti.formats[i].text));
        json_t *out = json_pack("{s:s,s:s?,s:o}", "columns", ti.spec, "map", ti.map,
                                "timestamp_formats", layouts);
        if (!out) {
            fprintf(stderr, "hoglake: out of memory\n");
            return EXIT_FAILURE_OTHER;
        }
        if (ti.rows >= 0)
            json_object_set_new(out, "rows_sampled", json_integer(ti.rows));
        cli_print_json(out);
        json_decref(out);
    } else {
        text_infer_print(dry ? stdout : stderr, path, "--columns", &ti);
    }
    *spec = ti.spec;
    return EXIT_OK;
}

static int parse_properties(const struct cli_args *a, const char *opt, json_t **out)
{
    const char *vals[CLI_MAX_VALUES];
    int n = cli_opt_values(a, opt, vals, CLI_MAX_VALUES);
    *out = NULL;
    if (n == 0)
        return EXIT_OK;
    *out = json_object();
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(vals[i], '=');
        if (!eq || eq == vals[i]) {
            json_decref(*out);
            *out = NULL;
            return cli_usage_error("--%s takes KEY=VALUE, got '%s'", opt, vals[i]);
        }
        char key[200];
        snprintf(key, sizeof key, "%.*s", (int)(eq - vals[i]), vals[i]);
        json_object_set_new(*out, key, json_string(eq + 1));
    }
    return EXIT_OK;
}

static void show_create(const json_t *resp, const char *name)
{
    printf("created table %s (snapshot %lld)\n\n", name,
           (long long)json_integer_value(json_object_get(resp, "snapshot_id")));
    print_table(name, resp);
}

/* Creates the table from a column spec or ColumnDef JSON (one is NULL). */
static int create_table(struct cli *cli, const struct cli_args *a, const char *spec,
                        const char *spec_json)
{
    char parts[3][200];
    cli_split_name(a->positional[0], 3, parts);
    struct error err;
    json_t *cols = spec ? colspec_parse_columns(spec, &err) : cli_read_json_arg(spec_json);
    if (!cols) {
        if (spec)
            return cli_usage_error("--columns: %s", err.msg);
        return EXIT_USAGE;
    }
    json_t *body = json_pack("{s:s,s:o}", "name", parts[2], "columns", cols);
    int rc = EXIT_OK;
    const char *part = cli_opt_value(a, "partition-by");
    const char *sort = cli_opt_value(a, "sort-by");
    if (part || sort) {
        /* Names resolve against the ids the server will assign. */
        json_t *predicted = json_deep_copy(cols);
        colspec_predict_field_ids(predicted);
        json_t *pf = part ? colspec_parse_partition(part, predicted, &err) : NULL;
        if (part && !pf)
            rc = cli_usage_error("--partition-by: %s", err.msg);
        json_t *sf = sort && rc == EXIT_OK ? colspec_parse_sort(sort, predicted, &err) : NULL;
        if (sort && rc == EXIT_OK && !sf)
            rc = cli_usage_error("--sort-by: %s", err.msg);
        json_decref(predicted);
        if (pf)
            json_object_set_new(body, "partition_fields", pf);
        if (sf)
            json_object_set_new(body, "sort_fields", sf);
    }
    const char *comment = cli_opt_value(a, "comment");
    if (comment)
        json_object_set_new(body, "comment", json_string(comment));
    const char *primary_ts = cli_opt_value(a, "primary-timestamp");
    if (rc == EXIT_OK && primary_ts &&
        json_object_set_new(body, "primary_timestamp_column", json_string(primary_ts)) != 0)
        rc = cli_usage_error("--primary-timestamp: '%s' is not a UTF-8 column name", primary_ts);
    json_t *props = NULL;
    if (rc == EXIT_OK && (rc = parse_properties(a, "property", &props)) == EXIT_OK && props)
        json_object_set_new(body, "properties", props);
    if (rc != EXIT_OK) {
        json_decref(body);
        return rc;
    }
    char path[800], ns[420];
    snprintf(ns, sizeof ns, "%s.%s", parts[0], parts[1]);
    if ((rc = cli_object_path(path, sizeof path, ns, 2, "tables", "")) != EXIT_OK) {
        json_decref(body);
        return rc;
    }
    json_t *resp;
    if ((rc = cli_request(cli, "POST", path, body, &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_create, a->positional[0]);
}

static int run_create(struct cli *cli, const struct cli_args *a)
{
    char parts[3][200];
    if (!cli_split_name(a->positional[0], 3, parts))
        return cli_usage_error("expected CATALOG.NAMESPACE.TABLE, got '%s'", a->positional[0]);
    const char *spec = cli_opt_value(a, "columns");
    const char *spec_json = cli_opt_value(a, "columns-json");
    const char *from = cli_opt_value(a, "from");
    if ((!spec + !spec_json + !from) != 2)
        return cli_usage_error("give exactly one of --columns, --columns-json and --from");
    for (size_t i = 0; !from && i < sizeof from_only / sizeof *from_only; i++)
        if (cli_opt_given(a, from_only[i]))
            return cli_usage_error("--%s applies to --from", from_only[i]);
    if (!from)
        return create_table(cli, a, spec, spec_json);
    struct arena ar;
    arena_init(&ar, 0);
    int rc = columns_from_file(cli, a, from, &ar, &spec);
    if (rc == EXIT_OK && !cli_opt_given(a, "dry-run"))
        rc = create_table(cli, a, spec, NULL);
    arena_free(&ar);
    return rc;
}

/* ---- drop ---- */

static const struct cli_opt drop_opts[] = {
    {"expected-uuid", true, false, "UUID  refuse unless the live table is this incarnation"},
};

static void show_drop(const json_t *resp, const char *name)
{
    printf("dropped table %s (snapshot %lld)\n", name,
           (long long)json_integer_value(json_object_get(resp, "snapshot_id")));
}

static int run_drop(struct cli *cli, const struct cli_args *a)
{
    char path[900];
    int rc = cli_object_path(path, sizeof path, a->positional[0], 3, "tables", "");
    if (rc != EXIT_OK)
        return rc;
    const char *expected = cli_opt_value(a, "expected-uuid");
    if (expected)
        cli_path_add_query(path, sizeof path, "expected_table_uuid", expected);
    json_t *resp;
    if ((rc = cli_request(cli, "DELETE", path, NULL, &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_drop, a->positional[0]);
}

/* ---- alter ---- */

static const struct cli_opt alter_opts[] = {
    {"ops", true, false, "JSON  AlterOp array (or {\"ops\": [...]}), or @FILE"},
    {"add-column", true, true, "SPEC  add a column: 'score:double' or 'addr.zip:string'"},
    {"drop-column", true, true, "PATH  drop a column (and everything inside it)"},
    {"rename-column", true, true, "PATH=NAME  rename a column, keeping its field id"},
    {"promote-column", true, true, "PATH=TYPE  widen a column's type (int -> long...)"},
    {"drop-not-null", true, true, "PATH  make a required column nullable"},
    {"column-comment", true, true, "PATH=TEXT  set a column's comment (PATH= removes it)"},
    {"comment", true, false, "TEXT  set the table comment"},
    {"no-comment", false, false, "remove the table comment"},
    {"properties", true, false, "K=V[,K=V...]|none  replace the custom properties"},
    {"partition-by", true, false, "SPEC|none  set the partition spec"},
    {"sort-by", true, false, "SPEC|none  set the sort order"},
    {"primary-timestamp", true, false, "COL|none  set (or clear) the primary timestamp column"},
    {"rename-to", true, false, "NAME  rename the table"},
    {"read-snapshot", true, false, "N  refuse if the table changed by DDL after snapshot N"},
    {"expected-uuid", true, false, "UUID  refuse unless the live table is this incarnation"},
};

static json_t *op_pair(const char *op, const char *value, const char *k1, const char *k2)
{
    const char *eq = strchr(value, '=');
    if (!eq || eq == value)
        return NULL;
    char left[400];
    snprintf(left, sizeof left, "%.*s", (int)(eq - value), value);
    return json_pack("{s:s,s:s,s:s}", "op", op, k1, left, k2, eq + 1);
}

/* Adds the ops given by the convenience options, in a fixed order. */
static int sugar_ops(const struct cli_args *a, json_t *ops, const json_t *table)
{
    const char *vals[CLI_MAX_VALUES];
    struct error err;
    int n = cli_opt_values(a, "add-column", vals, CLI_MAX_VALUES);
    for (int i = 0; i < n; i++) {
        /* "addr.zip:string" adds zip under the struct addr. */
        const char *colon = strchr(vals[i], ':');
        const char *dot = NULL;
        for (const char *c = vals[i]; colon && c < colon; c++)
            if (*c == '.')
                dot = c;
        json_t *cols = colspec_parse_columns(dot ? dot + 1 : vals[i], &err);
        if (!cols || json_array_size(cols) != 1) {
            json_decref(cols);
            return cli_usage_error("--add-column '%s': %s", vals[i],
                                   cols ? "one column per --add-column" : err.msg);
        }
        json_t *op = json_pack("{s:s,s:O}", "op", "add_column", "column", json_array_get(cols, 0));
        if (dot) {
            char parent[400];
            snprintf(parent, sizeof parent, "%.*s", (int)(dot - vals[i]), vals[i]);
            json_object_set_new(op, "parent", json_string(parent));
        }
        json_decref(cols);
        json_array_append_new(ops, op);
    }
    /* After the adds (a new column can be named) and before the drops and
     * renames (so it names a column as the table has it now, and the old
     * one can be dropped in the same alter). */
    const char *primary_ts = cli_opt_value(a, "primary-timestamp");
    if (primary_ts) {
        json_t *column = strcmp(primary_ts, "none") == 0 ? json_null() : json_string(primary_ts);
        json_t *op = json_pack("{s:s,s:o}", "op", "set_primary_timestamp_column", "column", column);
        if (!op)
            return cli_usage_error("--primary-timestamp: '%s' is not a UTF-8 column name",
                                   primary_ts);
        json_array_append_new(ops, op);
    }
    /* Ops naming one column, by its path as the table has it now. */
    static const struct {
        const char *opt, *op;
    } singles[] = {
        {"drop-column", "drop_column"},
        {"drop-not-null", "drop_not_null"},
    };
    for (size_t s = 0; s < sizeof singles / sizeof singles[0]; s++) {
        n = cli_opt_values(a, singles[s].opt, vals, CLI_MAX_VALUES);
        for (int i = 0; i < n; i++)
            json_array_append_new(ops,
                                  json_pack("{s:s,s:s}", "op", singles[s].op, "name", vals[i]));
    }
    static const struct {
        const char *opt, *op, *k1, *k2;
    } pairs[] = {
        {"rename-column", "rename_column", "from", "to"},
        {"promote-column", "promote_column", "name", "to"},
        {"column-comment", "set_column_comment", "name", "comment"},
    };
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        n = cli_opt_values(a, pairs[p].opt, vals, CLI_MAX_VALUES);
        for (int i = 0; i < n; i++) {
            json_t *op = op_pair(pairs[p].op, vals[i], pairs[p].k1, pairs[p].k2);
            if (!op)
                return cli_usage_error("--%s takes LEFT=RIGHT, got '%s'", pairs[p].opt, vals[i]);
            json_t *c = json_object_get(op, "comment");
            if (c && json_string_length(c) == 0)
                json_object_set_new(op, "comment", json_null());
            json_array_append_new(ops, op);
        }
    }
    if (cli_opt_given(a, "comment"))
        json_array_append_new(ops, json_pack("{s:s,s:s}", "op", "set_table_comment", "comment",
                                             cli_opt_value(a, "comment")));
    if (cli_opt_given(a, "no-comment"))
        json_array_append_new(ops, json_pack("{s:s,s:n}", "op", "set_table_comment", "comment"));
    const char *props = cli_opt_value(a, "properties");
    if (props) {
        json_t *map = json_object();
        if (strcmp(props, "none") != 0) {
            char *copy = strdup(props);
            char *save = NULL;
            for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(kv, '=');
                if (!eq || eq == kv) {
                    free(copy);
                    json_decref(map);
                    return cli_usage_error("--properties takes K=V[,K=V...] or none");
                }
                *eq = '\0';
                json_object_set_new(map, kv, json_string(eq + 1));
            }
            free(copy);
        }
        json_array_append_new(ops,
                              json_pack("{s:s,s:o}", "op", "set_properties", "properties", map));
    }
    const json_t *cols = table ? json_object_get(table, "columns") : NULL;
    const char *part = cli_opt_value(a, "partition-by");
    if (part) {
        json_t *fields = colspec_parse_partition(part, cols, &err);
        if (!fields)
            return cli_usage_error("--partition-by: %s", err.msg);
        json_array_append_new(ops,
                              json_pack("{s:s,s:o}", "op", "set_partition_spec", "fields", fields));
    }
    const char *sort = cli_opt_value(a, "sort-by");
    if (sort) {
        json_t *fields = colspec_parse_sort(sort, cols, &err);
        if (!fields)
            return cli_usage_error("--sort-by: %s", err.msg);
        json_array_append_new(
            ops, json_pack("{s:s,s:o}", "op", "set_sort_order", "sort_fields", fields));
    }
    const char *rename = cli_opt_value(a, "rename-to");
    if (rename)
        json_array_append_new(ops,
                              json_pack("{s:s,s:s}", "op", "rename_table", "new_name", rename));
    return EXIT_OK;
}

static void show_alter(const json_t *resp, const char *name)
{
    printf("altered table %s (snapshot %lld)\n\n", name,
           (long long)json_integer_value(json_object_get(resp, "snapshot_id")));
    char qualified[600], parts[3][200];
    cli_split_name(name, 3, parts);
    snprintf(qualified, sizeof qualified, "%s.%s.%s", parts[0], parts[1],
             json_string_value(json_object_get(resp, "name")));
    print_table(qualified, resp);
}

static int run_alter(struct cli *cli, const struct cli_args *a)
{
    char base[900];
    int rc = cli_object_path(base, sizeof base, a->positional[0], 3, "tables", "");
    if (rc != EXIT_OK)
        return rc;
    json_t *ops = json_array();
    const char *raw = cli_opt_value(a, "ops");
    if (raw) {
        json_t *given = cli_read_json_arg(raw);
        if (!given) {
            json_decref(ops);
            return EXIT_USAGE;
        }
        json_t *list = json_is_object(given) ? json_object_get(given, "ops") : given;
        if (!json_is_array(list)) {
            json_decref(given);
            json_decref(ops);
            return cli_usage_error("--ops must be a JSON array of ops or {\"ops\": [...]}");
        }
        json_array_extend(ops, list);
        json_decref(given);
    }
    /* Partition and sort specs name columns; resolve them against the table
     * as read now, and send that read as read_snapshot so a concurrent
     * schema change is refused rather than misapplied. */
    json_t *table = NULL;
    const char *read_snapshot = cli_opt_value(a, "read-snapshot");
    char read_buf[32];
    if (cli_opt_given(a, "partition-by") || cli_opt_given(a, "sort-by")) {
        char path[1000];
        snprintf(path, sizeof path, "%s?totals=false", base);
        if ((rc = cli_request(cli, "GET", path, NULL, &table)) != EXIT_OK) {
            json_decref(ops);
            return rc;
        }
        if (!read_snapshot) {
            snprintf(read_buf, sizeof read_buf, "%lld",
                     (long long)json_integer_value(json_object_get(table, "read_snapshot_id")));
            read_snapshot = read_buf;
        }
    }
    rc = sugar_ops(a, ops, table);
    json_decref(table);
    if (rc != EXIT_OK) {
        json_decref(ops);
        return rc;
    }
    if (json_array_size(ops) == 0) {
        json_decref(ops);
        return cli_usage_error("nothing to alter: give --ops or a change option");
    }
    char path[1000];
    snprintf(path, sizeof path, "%s/alter", base);
    if (read_snapshot)
        cli_path_add_query(path, sizeof path, "read_snapshot", read_snapshot);
    const char *expected = cli_opt_value(a, "expected-uuid");
    if (expected)
        cli_path_add_query(path, sizeof path, "expected_table_uuid", expected);
    json_t *resp;
    if ((rc = cli_request(cli, "POST", path, json_pack("{s:o}", "ops", ops), &resp)) != EXIT_OK)
        return rc;
    return cli_show(cli, resp, show_alter, a->positional[0]);
}

static const struct cli_verb verbs[] = {
    {"list", "list tables with their totals",
     "table list CATALOG.NAMESPACE [--snapshot N | --at TIME]", cli_time_travel_opts, 2, 1, 1,
     run_list},
    {"create", "create a table",
     "table create CATALOG.NAMESPACE.TABLE (--columns SPEC | --columns-json JSON | --from FILE "
     "[--dry-run] [--sample-rows N] [CSV options]) [--partition-by SPEC] [--sort-by SPEC] "
     "[--comment TEXT] [--property K=V]... "
     "[--primary-timestamp COL]",
     create_opts, sizeof create_opts / sizeof create_opts[0], 1, 1, run_create},
    {"show", "show a table's schema, specs and totals",
     "table show CATALOG.NAMESPACE.TABLE [--snapshot N | --at TIME] [--no-totals]", show_opts,
     sizeof show_opts / sizeof show_opts[0], 1, 1, run_show},
    {"drop", "drop a table", "table drop CATALOG.NAMESPACE.TABLE [--expected-uuid UUID]", drop_opts,
     1, 1, 1, run_drop},
    {"alter", "change a table in one DDL snapshot",
     "table alter CATALOG.NAMESPACE.TABLE [--ops JSON] [change options...]", alter_opts,
     sizeof alter_opts / sizeof alter_opts[0], 1, 1, run_alter},
    {"partitions", "the table's partition groups as the sampled summary counts them",
     "table partitions CATALOG.NAMESPACE.TABLE [--sort KEY] [--order asc|desc] [--limit N] "
     "[--offset N] [--filter K:PREFIX]...",
     cli_table_partitions_opts, 5, 1, 1, cli_run_table_partitions},
};

int cmd_table(struct cli *cli, int argc, char **argv)
{
    return cli_run_verbs(cli, "table", verbs, sizeof verbs / sizeof verbs[0], argc, argv);
}
