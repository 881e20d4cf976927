/* deletes_bench: row-level deletes through libhoglake (see
 * bench/deletes/README.md).
 *
 *   deletes_bench --server URL --catalog C --namespace NS --table T
 *                 [--repeat N] [--lookup SESSION_ID]
 *
 * The table (bench/parquet's event table, loaded by run.sh) is read as it
 * is. Each repetition deletes a different 1% of its rows by a predicate on
 * `value`, a column no file or row group is ordered by (slices of 1,111 of
 * its 0..99,999.99 range; 10% of values are null, so a slice holds 1.0% of
 * the rows), with one hl_table_delete, timed (wall and this process's CPU:
 * reading, decoding, evaluating, writing the vectors; the server's commit
 * is in the wall time only). With --lookup, a point lookup on the sort
 * key, `session_id = '<id>'`, twice: a dry-run delete (files and row
 * groups read), and a read of the matching rows' event_id through
 * hl_table_scan_with (files, row groups and pages read: the page index).
 *
 * Prints one JSON object on stdout: the table's data files (for the DuckDB
 * peer), the predicates, and per repetition the timings and the delete's
 * counters. HOGLAKE_TOKEN carries the bearer token. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "hoglake/hoglake.h"

enum { SLICE = 1111, TOP = 98889, MAX_REPEAT = 80 };

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("deletes_bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static double now_s(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(hl_status st, const struct hl_error *err, const char *what)
{
    if (st != HL_OK)
        die("%s: %s (%s)", what, err->message, hl_status_name(st));
}

struct opts {
    const char *server, *catalog, *ns, *table, *lookup;
    int repeat;
};

static void parse_opts(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){.server = getenv("HOGLAKE_URL"), .repeat = 3};
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (strcmp(a, "--server") == 0)
            o->server = v;
        else if (strcmp(a, "--catalog") == 0)
            o->catalog = v;
        else if (strcmp(a, "--namespace") == 0)
            o->ns = v;
        else if (strcmp(a, "--table") == 0)
            o->table = v;
        else if (strcmp(a, "--lookup") == 0)
            o->lookup = v;
        else if (strcmp(a, "--repeat") == 0) {
            char *end;
            errno = 0;
            long n = strtol(v, &end, 10);
            if (errno || *end || n < 1 || n > MAX_REPEAT)
                die("--repeat: 1 to %d, not '%s'", MAX_REPEAT, v);
            o->repeat = (int)n;
        } else
            die("unknown option %s", a);
    }
    if (argc % 2 == 0)
        die("%s needs a value", argv[argc - 1]);
    if (!o->server || !o->catalog || !o->ns || !o->table)
        die("usage: deletes_bench --server URL --catalog C --namespace NS --table T "
            "[--repeat N] [--lookup SESSION_ID]");
}

/* The table's live data files: local paths (file:// stripped) and rows. */
static json_t *data_files(hl_table *t, int64_t *rows)
{
    char *text = NULL;
    struct hl_error err;
    check(hl_table_files(t, NULL, &text, &err), &err, "files");
    json_t *files = json_loads(text, 0, NULL);
    free(text);
    json_t *paths = json_array();
    if (!json_is_array(files) || !paths)
        die("the file listing is not an array");
    *rows = 0;
    size_t i;
    json_t *f;
    json_array_foreach (files, i, f) {
        const char *p = json_string_value(json_object_get(f, "path"));
        if (!p || strncmp(p, "file://", 7) != 0)
            die("a data file that is not file://: %s", p ? p : "(none)");
        json_array_append_new(paths, json_string(p + 7));
        *rows += json_integer_value(json_object_get(f, "record_count"));
    }
    json_decref(files);
    return paths;
}

static json_t *result_json(const struct hl_delete_result *r, double wall, double cpu)
{
    return json_pack("{s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i}", "wall_s",
                     wall, "cpu_s", cpu, "rows_deleted", (json_int_t)r->rows_deleted,
                     "files_affected", (json_int_t)r->files_affected, "files_scanned",
                     (json_int_t)r->files_scanned, "files_pruned", (json_int_t)r->files_pruned,
                     "row_groups_scanned", (json_int_t)r->row_groups_scanned, "row_groups_pruned",
                     (json_int_t)r->row_groups_pruned, "pages_scanned",
                     (json_int_t)r->pages_scanned, "pages_pruned", (json_int_t)r->pages_pruned,
                     "bytes_written", (json_int_t)r->bytes_written, "snapshot_id",
                     (json_int_t)r->snapshot_id, "attempts", r->attempts);
}

/* A point lookup through the read path: the rows' event_id, counted. */
static json_t *lookup_scan(hl_table *t, const char *predicate)
{
    const char *cols[] = {"event_id"};
    struct hl_scan_stats stats = {0};
    struct hl_scan_options o;
    hl_scan_options_init(&o);
    o.columns = cols;
    o.ncolumns = 1;
    o.predicate = predicate;
    o.stats = &stats;
    struct ArrowArrayStream s;
    struct hl_error err;
    double w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    check(hl_table_scan_with(t, NULL, &o, &s, &err), &err, predicate);
    int64_t rows = 0;
    for (;;) {
        struct ArrowArray b;
        if (s.get_next(&s, &b) != 0)
            die("lookup: %s", s.get_last_error(&s));
        if (!b.release)
            break;
        rows += b.length;
        b.release(&b);
    }
    s.release(&s);
    double wall = now_s(CLOCK_MONOTONIC) - w0, cpu = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    return json_pack(
        "{s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "wall_s", wall, "cpu_s", cpu, "rows",
        (json_int_t)rows, "files_scanned", (json_int_t)stats.files_scanned, "files_pruned",
        (json_int_t)stats.files_pruned, "row_groups_scanned", (json_int_t)stats.row_groups_scanned,
        "row_groups_pruned", (json_int_t)stats.row_groups_pruned, "pages_scanned",
        (json_int_t)stats.pages_scanned, "pages_pruned", (json_int_t)stats.pages_pruned);
}

static json_t *delete_once(hl_table *t, const char *predicate, bool dry_run)
{
    struct hl_delete_options o;
    hl_delete_options_init(&o);
    o.author = "deletes_bench";
    o.dry_run = dry_run;
    struct hl_delete_result r;
    struct hl_error err;
    double w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    hl_status st = hl_table_delete(t, predicate, &o, &r, &err);
    double wall = now_s(CLOCK_MONOTONIC) - w0, cpu = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    check(st, &err, predicate);
    return result_json(&r, wall, cpu);
}

int main(int argc, char **argv)
{
    struct opts o;
    parse_opts(argc, argv, &o);
    struct hl_client_options co = {.server_url = o.server};
    hl_client *c;
    hl_catalog *cat;
    hl_namespace *ns;
    hl_table *t;
    struct hl_error err;
    check(hl_client_new(&co, &c, &err), &err, "client");
    check(hl_catalog_open(c, o.catalog, &cat, &err), &err, "catalog");
    check(hl_namespace_open(cat, o.ns, &ns, &err), &err, "namespace");
    check(hl_table_open(ns, o.table, &t, &err), &err, "table");

    int64_t rows = 0;
    json_t *out = json_object();
    json_object_set_new(out, "files", data_files(t, &rows));
    json_object_set_new(out, "rows", json_integer(rows));
    /* Before the deletes, so that DuckDB reading the files finds as many. */
    if (o.lookup) {
        char pred[128];
        snprintf(pred, sizeof pred, "session_id = '%s'", o.lookup);
        json_object_set_new(out, "lookup_predicate", json_string(pred));
        json_object_set_new(out, "lookup", delete_once(t, pred, true));
        json_object_set_new(out, "lookup_scan", lookup_scan(t, pred));
    }
    json_t *preds = json_array(), *runs = json_array();
    for (int r = 0; r < o.repeat; r++) {
        char pred[96];
        int lo = TOP - r * SLICE;
        snprintf(pred, sizeof pred, "value >= %d AND value < %d", lo, lo + SLICE);
        json_array_append_new(preds, json_string(pred));
        json_t *run = delete_once(t, pred, false);
        char *line = json_dumps(run, JSON_COMPACT);
        fprintf(stderr, "deletes_bench: %s: %s\n", pred, line ? line : "?");
        free(line);
        json_array_append_new(runs, run);
    }
    json_object_set_new(out, "predicates", preds);
    json_object_set_new(out, "deletes", runs);
    char *text = json_dumps(out, JSON_COMPACT);
    if (!text)
        die("out of memory");
    puts(text);
    free(text);
    json_decref(out);
    hl_table_free(t);
    hl_namespace_free(ns);
    hl_catalog_free(cat);
    hl_client_free(c);
    return 0;
}
