/* hoglake export iceberg: the incremental Iceberg export of a table
 * (src/export/export.h, docs/iceberg-export.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "cli/duration.h"
#include "export/compact.h"
#include "export/expire.h"
#include "export/export.h"
#include "util/spans.h"

/* The changefeed consumer whose offset the export of `to` moves, so that
 * `hoglake offsets` and `hoglake consumers` can be read against it. */
static void print_result(const struct cli *cli, const char *to, const char *consumer,
                         const struct ice_export_result *r)
{
    if (cli->json) {
        json_t *doc = json_pack(
            "{s:s, s:b, s:b, s:b, s:i, s:I, s:I, s:I, s:I, s:s, s:s}", "location", to,
            "nothing_new", r->nothing_new, "created", r->created, "reconciled", r->reconciled,
            "format_version", r->format_version, "iceberg_snapshot_id",
            (json_int_t)r->iceberg_snapshot_id, "from_snapshot", (json_int_t)r->from_snapshot,
            "to_snapshot", (json_int_t)r->to_snapshot, "rows", (json_int_t)r->rows,
            "partition_spec", r->partition_spec, "sort_order", r->sort_order);
        json_object_set_new(doc, "files", json_integer(r->files));
        json_object_set_new(doc, "bootstrapped", json_boolean(r->bootstrapped));
        json_object_set_new(doc, "bootstrap_snapshot", json_integer(r->bootstrap_snapshot));
        json_object_set_new(doc, "adopted", json_boolean(r->adopted));
        json_object_set_new(doc, "rows_deleted", json_integer(r->rows_deleted));
        json_object_set_new(doc, "delete_files", json_integer(r->delete_files));
        json_object_set_new(doc, "consumer", json_string(consumer));
        cli_print_json(doc);
        json_decref(doc);
        return;
    }
    if (r->nothing_new) {
        printf("nothing new since snapshot %lld: %s is up to date%s%s\n",
               (long long)r->from_snapshot, to,
               r->reconciled ? " (the offset caught up with an export that had landed)" : "",
               r->offset_advanced ? " (the offset moved to the head)" : "");
        printf("consumer: %s\n", consumer);
        return;
    }
    if (r->bootstrapped)
        printf("bootstrapped from the live rows at snapshot %lld%s\n",
               (long long)r->bootstrap_snapshot,
               r->adopted ? " (the location was adopted from another table)" : "");
    char a[OUT_NUM_MAX], b[OUT_NUM_MAX];
    printf("%s %s in %s (snapshots %lld..%lld] to %s\n",
           r->created ? "created the Iceberg table with" : "exported",
           out_count(r->rows, "row", "rows", a, sizeof a),
           out_count(r->files, "file", "files", b, sizeof b), (long long)r->from_snapshot,
           (long long)r->to_snapshot, to);
    if (r->rows_deleted)
        printf("  deleted %s of earlier exports (%s)\n",
               out_count(r->rows_deleted, "row", "rows", a, sizeof a),
               out_count(r->delete_files, "delete file", "delete files", b, sizeof b));
    bool flat = strcmp(r->partition_spec, "unpartitioned") == 0;
    printf("  Iceberg snapshot %lld, format version %d, %s%s, %s%s\n",
           (long long)r->iceberg_snapshot_id, r->format_version, flat ? "" : "partitioned by ",
           r->partition_spec, r->sort_order[0] ? "sorted by " : "unsorted", r->sort_order);
    printf("consumer: %s\n", consumer);
}

/* The tracer of --trace FILE, else of HOGLAKE_TRACE_FILE (none: no spans). */
static int open_trace(const struct cli_args *a, struct tracer **tracer)
{
    const char *trace = cli_opt_value(a, "trace");
    if (tracer_open(trace ? trace : getenv("HOGLAKE_TRACE_FILE"), "hoglake", tracer) != 0) {
        fprintf(stderr, "hoglake: cannot open the trace file: %m\n");
        return EXIT_FAILURE_OTHER;
    }
    return EXIT_OK;
}

/* What an export command works on: the table its first argument names and
 * the tracer, and the outcome so far. */
struct export_run {
    struct tracer *tracer;
    struct cli_table table;
    hl_status st; /* whether the table opened, then how the work went */
    struct hl_error err;
};

/* EXIT_OK with run open (close_export it whatever run->st says), or the
 * exit code of a bad name or trace file with nothing open. */
static int open_export(struct cli *cli, const struct cli_args *a, struct export_run *run)
{
    char parts[3][200];
    if (!cli_split_name(a->positional[0], 3, parts))
        return cli_usage_error("expected CATALOG.NAMESPACE.TABLE, got '%s'", a->positional[0]);
    run->tracer = NULL;
    if (open_trace(a, &run->tracer) != EXIT_OK)
        return EXIT_FAILURE_OTHER;
    run->st = cli_table_open(cli, parts, &run->table, &run->err);
    return EXIT_OK;
}

static void close_export(struct export_run *run)
{
    cli_table_close(&run->table);
    tracer_close(run->tracer);
}

static int run_iceberg(struct cli *cli, const struct cli_args *a)
{
    const char *to = cli_opt_value(a, "to");
    if (!to || !*to)
        return cli_usage_error("--to URI is required (file:///dir or s3://bucket/prefix)");
    int64_t version = 0;
    if (cli_opt_i64(a, "format-version", 2, &version) != EXIT_OK)
        return EXIT_USAGE;
    if (version != 0 && version != 2 && version != 3)
        return cli_usage_error("--format-version takes 2 or 3");
    struct export_run run;
    int rc = open_export(cli, a, &run);
    if (rc != EXIT_OK)
        return rc;
    struct ice_export_options o = {.location = to,
                                   .format_version = (int)version,
                                   .tracer = run.tracer,
                                   .restart = cli_opt_given(a, "restart"),
                                   .adopt = cli_opt_given(a, "adopt")};
    struct ice_export_result r;
    char consumer[48];
    if (ice_export_consumer_id(to, consumer) != 0) {
        close_export(&run);
        fprintf(stderr, "hoglake: cannot derive the export's consumer id\n");
        return EXIT_FAILURE_OTHER;
    }
    if (run.st == HL_OK)
        run.st = ice_export_run(run.table.table, &o, &r, &run.err);
    if (run.st == HL_OK) {
        print_result(cli, to, consumer, &r);
    } else if (strcmp(run.err.code, "iceberg_partition_spec_drift") == 0 ||
               strcmp(run.err.code, "iceberg_target_owned_by_other_table") == 0 ||
               strcmp(run.err.code, "export_offset_expired") == 0 ||
               strcmp(run.err.code, "iceberg_export_lacks_row_ids") == 0 ||
               strcmp(run.err.code, "iceberg_row_not_found") == 0) {
        /* The stable error kind leads, for scripts; a refusal of the
         * layout, the location or the offset, not a race, so not the
         * conflict exit code. */
        fprintf(stderr, "hoglake: %s: %s\n", run.err.code, run.err.message);
        rc = EXIT_FAILURE_OTHER;
    } else {
        rc = cli_report(run.st, &run.err);
    }
    close_export(&run);
    return rc;
}

/* --compact: its result into doc (JSON) or printed. */
static void maintain_compact(const struct cli *cli, const char *to, struct export_run *run,
                             const struct ice_compact_options *o, json_t *doc)
{
    struct ice_compact_result r = {.outcome = ICE_ERROR};
    run->st = ice_compact_run(run->table.table, o, &r, &run->err);
    const char *outcome = ice_compact_outcome_name(r.outcome);
    if (cli->json) {
        json_object_update_new(
            doc, json_pack("{s:s, s:I, s:I, s:I, s:I, s:b}", "outcome", outcome, "files_before",
                           (json_int_t)r.files_before, "files_after", (json_int_t)r.files_after,
                           "rows", (json_int_t)r.rows, "snapshot_id", (json_int_t)r.snapshot_id,
                           "staged_files_left", r.staged_files_left));
    } else if (r.outcome == ICE_COMPACTED) {
        char files[OUT_NUM_MAX], bytes[OUT_NUM_MAX], after[OUT_NUM_MAX], rows[OUT_NUM_MAX];
        printf("compacted: %s (%s) into %s, %s, Iceberg snapshot %lld\n",
               out_count(r.files_before, "file", "files", files, sizeof files),
               out_bytes(bytes, (uint64_t)r.bytes_before), out_number(after, r.files_after),
               out_count(r.rows, "row", "rows", rows, sizeof rows), (long long)r.snapshot_id);
    } else if (run->st == HL_OK) {
        char files[OUT_NUM_MAX], bytes[OUT_NUM_MAX];
        printf("not compacted: %s (%s, %s) at %s\n", outcome,
               out_count(r.files_before, "live file", "live files", files, sizeof files),
               out_bytes(bytes, (uint64_t)r.bytes_before), to);
    }
}

/* --expire-snapshots: its counts into doc["expire"] (JSON) or printed. */
static void maintain_expire(const struct cli *cli, struct export_run *run,
                            const struct ice_expire_options *o, json_t *doc)
{
    struct ice_expire_result r;
    run->st = ice_expire_run(run->table.table, o, &r, &run->err);
    if (cli->json) {
        json_object_set_new(
            doc, "expire",
            json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "no_table", r.no_table,
                      "snapshots_expired", (json_int_t)r.snapshots_expired, "snapshots_retained",
                      (json_int_t)r.snapshots_retained, "data_files_deleted",
                      (json_int_t)r.data_files_deleted, "manifests_deleted",
                      (json_int_t)r.manifests_deleted, "manifest_lists_deleted",
                      (json_int_t)r.manifest_lists_deleted, "bytes_deleted",
                      (json_int_t)r.bytes_deleted, "version", (json_int_t)r.version));
    } else if (run->st == HL_OK && r.no_table) {
        printf("no snapshots expired: no Iceberg table at %s\n", o->location);
    } else if (run->st == HL_OK) {
        char snaps[OUT_NUM_MAX], kept[OUT_NUM_MAX], files[OUT_NUM_MAX], manifests[OUT_NUM_MAX],
            lists[OUT_NUM_MAX], bytes[OUT_NUM_MAX];
        printf("expired %s (%s retained); deleted %s, %s, %s, %s\n",
               out_count(r.snapshots_expired, "snapshot", "snapshots", snaps, sizeof snaps),
               out_number(kept, r.snapshots_retained),
               out_count(r.data_files_deleted, "data file", "data files", files, sizeof files),
               out_count(r.manifests_deleted, "manifest", "manifests", manifests, sizeof manifests),
               out_count(r.manifest_lists_deleted, "manifest list", "manifest lists", lists,
                         sizeof lists),
               out_bytes(bytes, (uint64_t)r.bytes_deleted));
    }
}

static int run_maintain(struct cli *cli, const struct cli_args *a)
{
    const char *to = cli_opt_value(a, "to");
    if (!to || !*to)
        return cli_usage_error("--to URI is required (file:///dir or s3://bucket/prefix)");
    bool compact = cli_opt_given(a, "compact"), expire = cli_opt_given(a, "expire-snapshots");
    if (!compact && !expire)
        return cli_usage_error("nothing to do: give --compact and/or --expire-snapshots");
    int64_t file_count = 0, max_bytes = 0, target_bytes = 0, retain_last = 0, older_than = 0;
    if (cli_opt_i64(a, "compact-file-count", 2, &file_count) != EXIT_OK ||
        cli_opt_i64(a, "compact-max-bytes", 1, &max_bytes) != EXIT_OK ||
        cli_opt_i64(a, "compact-target-bytes", 1, &target_bytes) != EXIT_OK ||
        cli_opt_i64(a, "retain-last", 1, &retain_last) != EXIT_OK)
        return EXIT_USAGE;
    const char *older = cli_opt_value(a, "older-than");
    if (older && !cli_parse_duration(older, &older_than))
        return cli_usage_error("--older-than must be a duration like 7d, 12h, 45m, 90s, 2w or a "
                               "number of seconds, got '%s'",
                               older);
    struct export_run run;
    int rc = open_export(cli, a, &run);
    if (rc != EXIT_OK)
        return rc;
    json_t *doc = json_pack("{s:s}", "location", to);
    struct ice_compact_options co = {to, file_count, max_bytes, target_bytes, run.tracer};
    struct ice_expire_options eo = {to, older_than * 1000, retain_last, run.tracer};
    /* Compaction first: the files it replaces can go in the same run once
     * their snapshots expire. */
    if (run.st == HL_OK && compact)
        maintain_compact(cli, to, &run, &co, doc);
    if (run.st == HL_OK && expire)
        maintain_expire(cli, &run, &eo, doc);
    if (cli->json) {
        if (run.st != HL_OK)
            json_object_set_new(doc, "error", json_string(run.err.message));
        cli_print_json(doc);
    }
    json_decref(doc);
    if (run.st != HL_OK)
        rc = cli_report(run.st, &run.err);
    close_export(&run);
    return rc;
}

static const struct cli_opt maintain_opts[] = {
    {"to", true, false, "URI  the Iceberg table's location"},
    {"compact", false, false, "rewrite the live files into one per partition, sorted"},
    {"compact-file-count", true, false, "N  compact only with at least N live files (default 32)"},
    {"compact-max-bytes", true, false,
     "N  compact only up to N bytes of live files (default "
     "134217728)"},
    {"compact-target-bytes", true, false,
     "N  a file this large is compacted already (default 134217728)"},
    {"expire-snapshots", false, false,
     "expire old Iceberg snapshots and delete the files only they referenced"},
    {"older-than", true, false, "DURATION  expire snapshots older than this (default 7d)"},
    {"retain-last", true, false, "N  always keep the newest N snapshots (default 1)"},
    {"trace", true, false, "FILE  write spans as OpenTelemetry JSON lines ('-': stderr)"},
};

static const struct cli_opt iceberg_opts[] = {
    {"to", true, false, "URI  the Iceberg table's location (file:///dir or s3://bucket/prefix)"},
    {"format-version", true, false, "2|3  for a new table (default 3)"},
    {"restart", false, false,
     "re-export the live rows (they replace the Iceberg table's): after the offset fell below "
     "the expiry floor, or to export deletes from files exported before they carried row ids"},
    {"adopt", false, false,
     "take over a location another table (e.g. this one before it was recreated) exported to"},
    {"trace", true, false,
     "FILE  write spans as OpenTelemetry JSON lines ('-': stderr; default "
     "$HOGLAKE_TRACE_FILE)"},
};

int cmd_export(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"iceberg", "export the rows committed since the last run to an Iceberg table",
         "export iceberg CATALOG.NAMESPACE.TABLE --to URI [options]", iceberg_opts,
         sizeof iceberg_opts / sizeof iceberg_opts[0], 1, 1, run_iceberg},
        {"maintain", "maintain an exported Iceberg table (compaction, snapshot expiry)",
         "export maintain CATALOG.NAMESPACE.TABLE --to URI [--compact] [--expire-snapshots] "
         "[options]",
         maintain_opts, sizeof maintain_opts / sizeof maintain_opts[0], 1, 1, run_maintain},
    };
    return cli_run_verbs(cli, "export", verbs, sizeof verbs / sizeof verbs[0], argc, argv);
}
