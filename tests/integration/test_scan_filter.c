/* Reads that select and filter (hl_table_scan_with, hoglake read) end to
 * end against a real hoglaked, PostgreSQL and a local warehouse, on
 * designed data: a table partitioned by day(ts), a file a day, each of
 * several row groups of several pages, k sorted (k = id = the row's
 * number), so that a predicate on ts prunes partitions and one on k prunes
 * files, row groups and pages. The counters are checked against the files'
 * own layout (their footers and page indexes, read here), the rows against
 * DuckDB running the same filter over the same Parquet files: with a
 * deletion vector on one file, time travel, a limit, a projection, random
 * predicates; and hoglake read's flags, its Parquet output read by DuckDB
 * with its field ids. Deletes and updates prune pages alike and keep row
 * ids; a delete finds the same rows on one thread or several, and a page
 * that does not decode fails it whichever thread reads it. */
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/prune.h"
#include "client/tableinfo.h"
#include "client_harness.h"
#include "expr/expr.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "parquet/reader.h"
#include "util/buf.h"
#include "util/error.h"

#if !defined(HL_NODE) || !defined(HOGLAKE_CLI_BIN)
#error "HL_NODE, HL_INTEROP_DIR and HOGLAKE_CLI_BIN must be defined by the build"
#endif

enum { DAYS = 3, DAY_ROWS = 100000, DELETED_FROM = 150000, DELETED_TO = 150999 };

static struct client_stack stack;
static hl_catalog *catalog;
static hl_namespace *ns;
static hl_table *table;
static int64_t s_appended, s_deleted;
static char files_sql[2048]; /* DuckDB's list of the data files: ['a', 'b', 'c'] */
static char file_of_day[DAYS][600];

/* The data file holding day d's rows, as DuckDB's list holds it. */
static void local_files(void)
{
    char *text = NULL;
    struct hl_error err;
    test_check(hl_table_scan_plan(table, NULL, &text, &err), &err, "scan plan");
    json_t *plan = jparse(text);
    free(text);
    assert_int_equal(json_array_size(plan), DAYS);
    size_t i;
    const json_t *sf;
    struct buf list = BUF_INIT;
    json_array_foreach (plan, i, sf) {
        const json_t *df = json_object_get(sf, "data_file");
        const char *uri = jstr(df, "path");
        assert_true(strncmp(uri, "file://", 7) == 0);
        const char *day =
            json_string_value(json_array_get(json_object_get(df, "partition_values"), 0));
        assert_non_null(day);
        int d = (int)strtol(day, NULL, 10) - 20454; /* days since 1970: 2026-01-01 is 20454 */
        assert_true(d >= 0 && d < DAYS);
        snprintf(file_of_day[d], sizeof file_of_day[d], "%s", uri + 7);
        assert_int_equal(buf_printf(&list, "%s'%s'", i ? ", " : "[", uri + 7), 0);
    }
    assert_int_equal(buf_puts(&list, "]"), 0);
    snprintf(files_sql, sizeof files_sql, "%s", list.data);
    buf_free(&list);
    json_decref(plan);
}

static int setup(void **state)
{
    (void)state;
    client_stack_up(&stack, "scanfilter");
    hl_client *c = stack.file_client;
    char data_path[512];
    client_stack_data_path(&stack, c, "scanf", data_path, sizeof data_path);
    struct hl_error err;
    test_check(hl_catalog_create(c, "scanf", data_path, &catalog, &err), &err, "catalog");
    test_check(hl_namespace_create(catalog, "ns", &ns, &err), &err, "namespace");
    test_check(hl_table_create(ns, "events",
                               "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"ts\",\"type\":\"timestamp\",\"nullable\":false},"
                               "{\"name\":\"k\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"s\",\"type\":\"string\"}]",
                               NULL, &table, &err),
               &err, "table create");
    test_check(hl_table_alter(table,
                              "[{\"op\":\"set_partition_spec\",\"fields\":[{\"source_field_"
                              "id\":2,\"transform\":\"day\"}]}]",
                              NULL, &err),
               &err, "partition by day(ts)");
    hl_table_free(table);
    test_check(hl_table_open(ns, "events", &table, &err), &err, "table open");
    /* Row i: day i / DAY_ROWS, 864 ms apart; s null every 10th row. */
    struct buf jsonl = BUF_INIT;
    for (int i = 0; i < DAYS * DAY_ROWS; i++) {
        int d = i / DAY_ROWS;
        long ms = (long)(i % DAY_ROWS) * 864;
        char s[32] = "null";
        if (i % 10)
            snprintf(s, sizeof s, "\"s%d\"", i % 1000);
        assert_int_equal(buf_printf(&jsonl,
                                    "{\"id\":%d,\"ts\":\"2026-01-%02d %02ld:%02ld:%02ld.%03ld\","
                                    "\"k\":%d,\"s\":%s}\n",
                                    i, d + 1, ms / 3600000, ms / 60000 % 60, ms / 1000 % 60,
                                    ms % 1000, i, s),
                         0);
    }
    struct ArrowArrayStream in;
    test_rows_stream("id:long!, ts:timestamp!, k:long!, s:string", jsonl.data, &in);
    buf_free(&jsonl);
    s_appended = test_append(table, &in, 1536 * 1024);
    local_files();
    /* A deletion vector on the second day's file. */
    struct hl_delete_options d;
    hl_delete_options_init(&d);
    struct hl_delete_result dr;
    char pred[96];
    snprintf(pred, sizeof pred, "k BETWEEN %d AND %d", DELETED_FROM, DELETED_TO);
    test_check(hl_table_delete(table, pred, &d, &dr, &err), &err, "delete");
    assert_int_equal(dr.rows_deleted, DELETED_TO - DELETED_FROM + 1);
    s_deleted = dr.snapshot_id;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hl_table_free(table);
    hl_namespace_free(ns);
    hl_catalog_free(catalog);
    client_stack_down(&stack);
    return 0;
}

static int by_number(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The values of the stream's column `name` (int64), sorted, a line each;
 * the stream is released. */
static char *column_text(struct ArrowArrayStream *s, const char *name, int64_t *nrows)
{
    struct ArrowSchema schema;
    assert_int_equal(s->get_schema(s, &schema), 0);
    int64_t col = -1;
    for (int64_t i = 0; i < schema.n_children; i++)
        if (strcmp(schema.children[i]->name, name) == 0)
            col = i;
    schema.release(&schema);
    assert_true(col >= 0);
    int64_t *v = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        struct ArrowArray b;
        if (s->get_next(s, &b) != 0)
            fail_msg("reading the scan: %s", s->get_last_error(s));
        if (!b.release)
            break;
        assert_true(b.length > 0);
        const struct ArrowArray *a = b.children[col];
        for (int64_t i = 0; i < b.length; i++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                v = realloc(v, cap * sizeof *v);
                assert_non_null(v);
            }
            v[n++] = ((const int64_t *)a->buffers[1])[a->offset + i];
        }
        b.release(&b);
    }
    s->release(s);
    if (n)
        qsort(v, n, sizeof *v, by_number);
    struct buf out = BUF_INIT;
    for (size_t i = 0; i < n; i++)
        assert_int_equal(buf_printf(&out, "%" PRId64 "\n", v[i]), 0);
    free(v);
    *nrows = (int64_t)n;
    return out.data ? buf_take(&out) : strdup("");
}

/* The ids hl_table_scan_with hands out for `where` at snapshot (-1: the
 * head), with its counters. */
static char *scan_ids(const char *where, int64_t snapshot, int64_t limit,
                      struct hl_scan_stats *stats, int64_t *n)
{
    struct hl_scan_options o;
    hl_scan_options_init(&o);
    o.predicate = where;
    o.limit = limit;
    o.stats = stats;
    struct hl_at at = {snapshot, NULL};
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan_with(table, &at, &o, &s, &err), &err, where);
    return column_text(&s, "id", n);
}

/* The ids DuckDB selects with `where` from the data files, less the rows
 * deleted (unless before_delete). */
static char *duckdb_ids(const char *where, bool before_delete)
{
    char sql[4096];
    snprintf(sql, sizeof sql, "SELECT id FROM read_parquet(%s) WHERE (%s) AND %s ORDER BY id",
             files_sql, where, before_delete ? "true" : "NOT (k BETWEEN 150000 AND 150999)");
    return test_duckdb(HL_NODE, HL_INTEROP_DIR, stack.warehouse, sql);
}

static void expect_as_duckdb(const char *where, int64_t snapshot, struct hl_scan_stats *stats)
{
    int64_t n;
    char *got = scan_ids(where, snapshot, -1, stats, &n);
    char *want = duckdb_ids(where, snapshot == s_appended);
    if (strcmp(got, want) != 0)
        fail_msg("'%s': the scan (%lld rows) and DuckDB disagree", where, (long long)n);
    assert_int_equal(stats->rows_matched, n);
    print_message("'%s': %lld rows; files %lld/%lld pruned, row groups %lld/%lld, pages "
                  "%lld/%lld\n",
                  where, (long long)n, (long long)stats->files_pruned,
                  (long long)(stats->files_pruned + stats->files_scanned),
                  (long long)stats->row_groups_pruned,
                  (long long)(stats->row_groups_pruned + stats->row_groups_scanned),
                  (long long)stats->pages_pruned,
                  (long long)(stats->pages_pruned + stats->pages_scanned));
    free(got);
    free(want);
}

/* The layout of a data file: its row groups' sizes and, per column, the
 * pages of each row group. */
struct layout {
    struct pq_source src;
    struct pq_reader *r;
    struct arena a;
};

static void layout_open(struct layout *l, int day)
{
    struct error err;
    assert_int_equal(pq_source_file(&l->src, file_of_day[day], &err), 0);
    assert_int_equal(pq_reader_open(&l->src, &l->r, &err), 0);
    arena_init(&l->a, 0);
}

static void layout_close(struct layout *l)
{
    arena_free(&l->a);
    pq_reader_free(l->r);
    pq_source_close(&l->src);
}

/* The row group holding file row `row`, and that row's place in it. */
static size_t group_of(const struct layout *l, int64_t row, int64_t *in_group)
{
    const struct pq_file_meta *m = pq_reader_meta(l->r);
    for (size_t g = 0; g < m->nrow_groups; g++) {
        if (row < m->row_groups[g].num_rows) {
            *in_group = row;
            return g;
        }
        row -= m->row_groups[g].num_rows;
    }
    fail_msg("row past the file");
    return 0;
}

/* Of column leaf's pages in row group g: how many hold a row of [b, e). */
static void pages_over(struct layout *l, size_t g, int leaf, int64_t b, int64_t e, int64_t *hit,
                       int64_t *total)
{
    struct pq_page_index pi;
    struct error err;
    assert_int_equal(pq_reader_page_index(l->r, g, leaf, &l->a, &pi, &err), 0);
    assert_true(pi.has_offsets);
    *total = (int64_t)pi.offsets.npages;
    *hit = 0;
    for (size_t p = 0; p < pi.offsets.npages; p++) {
        struct pq_row_range rows;
        pq_page_index_rows(&pi, p, &rows);
        *hit += rows.begin < e && b < rows.end;
    }
}

/* The rows of the page of k (leaf 2) holding key in day d's file, in its
 * row group *g where key is row *in_group; the layout is left open. */
static struct pq_row_range page_of_key(struct layout *l, int d, int64_t key, size_t *g,
                                       int64_t *in_group)
{
    layout_open(l, d);
    *g = group_of(l, key - (int64_t)d * DAY_ROWS, in_group);
    struct pq_page_index ki;
    struct error err;
    assert_int_equal(pq_reader_page_index(l->r, *g, 2, &l->a, &ki, &err), 0);
    for (size_t p = 0; p < ki.offsets.npages; p++) {
        struct pq_row_range rows;
        pq_page_index_rows(&ki, p, &rows);
        if (rows.begin <= *in_group && *in_group < rows.end)
            return rows;
    }
    fail_msg("no page of k holds %lld", (long long)key);
    return (struct pq_row_range){0, 0};
}

/* A point lookup on k reads one file, one row group and, of each column,
 * the one page holding the row. */
static void point_lookup_prunes_pages(void **state)
{
    (void)state;
    const int64_t key = 123456; /* day 1 */
    struct layout l;
    size_t g;
    int64_t in_group;
    struct pq_row_range page = page_of_key(&l, 1, key, &g, &in_group);
    const struct pq_file_meta *m = pq_reader_meta(l.r);
    assert_true(m->nrow_groups >= 2); /* the design: several row groups... */
    assert_true(page.end - page.begin < m->row_groups[g].num_rows); /* ...of several pages */
    int64_t want_read = 0, want_skipped = 0;
    for (int leaf = 0; leaf < 4; leaf++) {
        int64_t hit, total;
        pages_over(&l, g, leaf, page.begin, page.end, &hit, &total);
        want_read += hit;
        want_skipped += total - hit;
    }
    struct hl_scan_stats st;
    char where[64];
    snprintf(where, sizeof where, "k = %lld", (long long)key);
    expect_as_duckdb(where, -1, &st);
    assert_int_equal(st.rows_matched, 1);
    assert_int_equal(st.files_scanned, 1);
    assert_int_equal(st.files_pruned, DAYS - 1);
    assert_int_equal(st.row_groups_scanned, 1);
    assert_int_equal(st.row_groups_pruned, (int64_t)m->nrow_groups - 1);
    assert_int_equal(st.pages_scanned, want_read);
    assert_int_equal(st.pages_pruned, want_skipped);
    layout_close(&l);
}

/* A client of the stack's server reading a file on `threads` threads,
 * and the test table through it. */
static hl_client *client_with_threads(int threads, hl_catalog **cat, hl_namespace **n, hl_table **t)
{
    struct hl_client_options o = {.server_url = stack.srv.base,
                                  .token = test_token_for(stack.srv.base),
                                  .read_threads = threads};
    hl_client *c;
    struct hl_error err;
    test_check(hl_client_new(&o, &c, &err), &err, "client");
    test_check(hl_catalog_open(c, "scanf", cat, &err), &err, "catalog");
    test_check(hl_namespace_open(*cat, "ns", n, &err), &err, "namespace");
    test_check(hl_table_open(*n, "events", t, &err), &err, "table");
    return c;
}

/* A delete finds the same rows, and counts the same reads, on one thread
 * or several sharing a file's row groups out; a delete on three threads
 * removes exactly the rows DuckDB selects. */
static void threads_find_alike(void **state)
{
    (void)state;
    struct hl_client_options bad = {.server_url = stack.srv.base, .read_threads = -1};
    hl_client *none = NULL;
    struct hl_error err;
    assert_int_equal(hl_client_new(&bad, &none, &err), HL_ERR_INVALID_ARGUMENT);
    assert_null(none);
    hl_catalog *cat[3];
    hl_namespace *n[3];
    hl_table *t[3];
    hl_client *c[3] = {client_with_threads(1, &cat[0], &n[0], &t[0]),
                       client_with_threads(3, &cat[1], &n[1], &t[1]),
                       client_with_threads(0, &cat[2], &n[2], &t[2])};
    const char *const wheres[] = {
        "s IN ('s17', 's18') OR k BETWEEN 20000 AND 20100",
        "s IS NULL AND k < 250000",
        "ts >= TIMESTAMP '2026-01-02 12:00:00' AND k != 200001",
        "k BETWEEN 150500 AND 151500",
    };
    struct hl_delete_options o;
    hl_delete_options_init(&o);
    o.dry_run = true;
    for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++) {
        struct hl_delete_result r[3];
        for (int i = 0; i < 3; i++)
            test_check(hl_table_delete(t[i], wheres[w], &o, &r[i], &err), &err, wheres[w]);
        print_message("'%s': %lld rows, %lld row groups read, %lld pages\n", wheres[w],
                      (long long)r[0].rows_deleted, (long long)r[0].row_groups_scanned,
                      (long long)r[0].pages_scanned);
        assert_true(r[0].rows_deleted > 0);
        for (int i = 1; i < 3; i++) {
            assert_int_equal(r[i].rows_deleted, r[0].rows_deleted);
            assert_int_equal(r[i].files_scanned, r[0].files_scanned);
            assert_int_equal(r[i].files_pruned, r[0].files_pruned);
            assert_int_equal(r[i].row_groups_scanned, r[0].row_groups_scanned);
            assert_int_equal(r[i].row_groups_pruned, r[0].row_groups_pruned);
            assert_int_equal(r[i].pages_scanned, r[0].pages_scanned);
            assert_int_equal(r[i].pages_pruned, r[0].pages_pruned);
        }
    }
    /* Every 1000th row from k 777 below 160,000: across days 0 and 1 and
     * their row groups (150,777 was deleted already). */
    o.dry_run = false;
    struct hl_delete_result r;
    test_check(hl_table_delete(t[1], "s = 's777' AND k < 160000", &o, &r, &err), &err,
               "the threaded delete");
    assert_int_equal(r.rows_deleted, 159);
    assert_int_equal(r.files_affected, 2);
    assert_true(r.row_groups_scanned > 2);
    int64_t nrows;
    char *got = scan_ids("s = 's777'", -1, -1, &(struct hl_scan_stats){0}, &nrows);
    char *want = duckdb_ids("s = 's777' AND k >= 160000", false);
    if (strcmp(got, want) != 0)
        fail_msg("after the threaded delete, the scan (%lld rows) and DuckDB disagree",
                 (long long)nrows);
    free(got);
    free(want);
    for (int i = 0; i < 3; i++) {
        hl_table_free(t[i]);
        hl_namespace_free(n[i]);
        hl_catalog_free(cat[i]);
        hl_client_free(c[i]);
    }
}

/* A page that does not decode, in a row group another thread reads: the
 * delete fails with the file named, commits nothing and leaves nothing
 * behind, on three threads as on one. */
static void thread_failure_is_the_delete_s(void **state)
{
    (void)state;
    struct hl_error err;
    hl_table *broken;
    test_check(hl_table_create(ns, "broken",
                               "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false}]", NULL,
                               &broken, &err),
               &err, "table");
    struct buf jsonl = BUF_INIT;
    for (int i = 0; i < 40000; i++)
        assert_int_equal(buf_printf(&jsonl, "{\"id\":%d}\n", i), 0);
    struct ArrowArrayStream in;
    test_rows_stream("id:long!", jsonl.data, &in);
    buf_free(&jsonl);
    test_append(broken, &in, 32 * 1024);
    hl_table_free(broken); /* a handle that reads the head */
    test_check(hl_table_open(ns, "broken", &broken, &err), &err, "table open");
    char *text = NULL;
    test_check(hl_table_scan_plan(broken, NULL, &text, &err), &err, "scan plan");
    json_t *plan = jparse(text);
    free(text);
    assert_int_equal(json_array_size(plan), 1);
    char path[600];
    snprintf(path, sizeof path, "%s",
             jstr(json_object_get(json_array_get(plan, 0), "data_file"), "path") + 7);
    json_decref(plan);
    /* The first page of the last row group: its header overwritten. */
    struct pq_source src;
    struct pq_reader *r;
    struct error e;
    assert_int_equal(pq_source_file(&src, path, &e), 0);
    assert_int_equal(pq_reader_open(&src, &r, &e), 0);
    size_t ngroups = pq_reader_meta(r)->nrow_groups;
    assert_true(ngroups >= 4);
    struct arena a;
    arena_init(&a, 0);
    struct pq_page_index pi;
    assert_int_equal(pq_reader_page_index(r, ngroups - 1, 0, &a, &pi, &e), 0);
    int64_t at = pi.offsets.pages[0].offset;
    arena_free(&a);
    pq_reader_free(r);
    pq_source_close(&src);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, (long)at, SEEK_SET), 0);
    static const uint8_t junk[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    assert_int_equal(fwrite(junk, 1, sizeof junk, f), sizeof junk);
    assert_int_equal(fclose(f), 0);
    const int threads[] = {3, 1};
    for (size_t i = 0; i < 2; i++) {
        struct hl_client_options o = {.server_url = stack.srv.base,
                                      .token = test_token_for(stack.srv.base),
                                      .read_threads = threads[i]};
        hl_client *c;
        hl_catalog *cat;
        hl_namespace *n;
        hl_table *t;
        test_check(hl_client_new(&o, &c, &err), &err, "client");
        test_check(hl_catalog_open(c, "scanf", &cat, &err), &err, "catalog");
        test_check(hl_namespace_open(cat, "ns", &n, &err), &err, "namespace");
        test_check(hl_table_open(n, "broken", &t, &err), &err, "table");
        struct hl_delete_result res;
        hl_status st = hl_table_delete(t, "id >= 0", NULL, &res, &err);
        print_message("%d threads: %s (%s)\n", threads[i], hl_status_name(st), err.message);
        assert_int_equal(st, HL_ERR_IO);
        assert_non_null(strstr(err.message, path));
        assert_int_equal(res.snapshot_id, -1);
        hl_table_free(t);
        hl_namespace_free(n);
        hl_catalog_free(cat);
        hl_client_free(c);
    }
    /* Nothing registered, and no vector left in the table's directory. */
    test_check(hl_table_scan_plan(broken, NULL, &text, &err), &err, "scan plan after");
    plan = jparse(text);
    free(text);
    json_t *dv = json_object_get(json_array_get(plan, 0), "delete_file");
    assert_true(!dv || json_is_null(dv));
    json_decref(plan);
    *strrchr(path, '/') = '\0';
    DIR *d = opendir(path);
    assert_non_null(d);
    int entries = 0;
    for (struct dirent *de; (de = readdir(d));)
        entries += de->d_name[0] != '.';
    closedir(d);
    assert_int_equal(entries, 1); /* the data file alone */
    hl_table_free(broken);
}

/* The row id the scan plan gives row `pos` of day d's file (its
 * row_id_start + pos), and the plan's snapshot. */
static int64_t planned_row_id(int d, int64_t pos)
{
    char *text = NULL;
    struct hl_error err;
    test_check(hl_table_scan_plan(table, NULL, &text, &err), &err, "scan plan");
    json_t *plan = jparse(text);
    free(text);
    int64_t start = -1;
    size_t i;
    const json_t *sf;
    json_array_foreach (plan, i, sf) {
        const json_t *df = json_object_get(sf, "data_file");
        if (strcmp(jstr(df, "path") + 7, file_of_day[d]) == 0)
            start = json_integer_value(json_object_get(df, "row_id_start"));
    }
    json_decref(plan);
    assert_true(start >= 0);
    return start + pos;
}

/* Deletes and updates read by the page index as the scan does: a dry-run
 * delete of one key reads one page of k (the only column it decodes), and
 * an update of rows in a page amid a row group keeps their row ids (their
 * positions in the file, not in the pages read). Runs last: it changes
 * the table. */
static void changes_read_by_pages(void **state)
{
    (void)state;
    const int64_t key = 163456; /* day 1 */
    struct layout l;
    size_t g;
    int64_t in_group;
    struct pq_row_range page = page_of_key(&l, 1, key, &g, &in_group);
    const struct pq_file_meta *m = pq_reader_meta(l.r);
    assert_true(page.begin > 0); /* a page after the row group's first */
    assert_true(in_group + 1 < page.end);
    int64_t hit, total;
    pages_over(&l, g, 2, page.begin, page.end, &hit, &total);
    size_t nrow_groups = m->nrow_groups;
    layout_close(&l);

    char where[96];
    snprintf(where, sizeof where, "k = %lld", (long long)key);
    struct hl_delete_options o;
    hl_delete_options_init(&o);
    o.dry_run = true;
    struct hl_delete_result d;
    struct hl_error err;
    test_check(hl_table_delete(table, where, &o, &d, &err), &err, "dry-run delete");
    assert_int_equal(d.rows_deleted, 1);
    assert_int_equal(d.files_scanned, 1);
    assert_int_equal(d.files_pruned, DAYS - 1);
    assert_int_equal(d.row_groups_scanned, 1);
    assert_int_equal(d.row_groups_pruned, (int64_t)nrow_groups - 1);
    assert_int_equal(d.pages_scanned, hit);
    assert_int_equal(d.pages_pruned, total - hit);
    assert_int_equal(d.snapshot_id, -1);

    int64_t want_id = planned_row_id(1, key - DAY_ROWS);
    snprintf(where, sizeof where, "k = %lld OR k = %lld", (long long)key, (long long)key + 1);
    struct hl_update_result u;
    o.dry_run = false;
    test_check(hl_table_update(table, "s = 'paged'", where, &o, &u, &err), &err, "update");
    assert_int_equal(u.rows_updated, 2);
    assert_int_equal(u.row_groups_scanned, 1);
    assert_true(u.pages_pruned > 0);
    /* The changefeed: each row deleted and inserted with its own id. */
    struct ArrowArrayStream s;
    test_check(hl_table_scan_changes(table, u.read_snapshot, -1, &s, NULL, &err), &err, "changes");
    struct ArrowSchema schema;
    assert_int_equal(s.get_schema(&s, &schema), 0);
    int64_t kc = -1, rc = -1, cc = -1, sc = -1;
    for (int64_t i = 0; i < schema.n_children; i++) {
        const char *name = schema.children[i]->name;
        kc = strcmp(name, "k") == 0 ? i : kc;
        sc = strcmp(name, "s") == 0 ? i : sc;
        rc = strcmp(name, "_row_id") == 0 ? i : rc;
        cc = strcmp(name, "_change_type") == 0 ? i : cc;
    }
    schema.release(&schema);
    assert_true(kc >= 0 && rc >= 0 && cc >= 0 && sc >= 0);
    int seen = 0;
    for (;;) {
        struct ArrowArray b;
        assert_int_equal(s.get_next(&s, &b), 0);
        if (!b.release)
            break;
        for (int64_t i = 0; i < b.length; i++, seen++) {
            const struct ArrowArray *kcol = b.children[kc], *rcol = b.children[rc],
                                    *ccol = b.children[cc], *scol = b.children[sc];
            int64_t k = ((const int64_t *)kcol->buffers[1])[kcol->offset + i];
            int64_t rid = ((const int64_t *)rcol->buffers[1])[rcol->offset + i];
            const int32_t *off = (const int32_t *)ccol->buffers[1] + ccol->offset;
            const char *kind = (const char *)ccol->buffers[2] + off[i];
            const int32_t *soff = (const int32_t *)scol->buffers[1] + scol->offset;
            bool inserted = strncmp(kind, "insert", 6) == 0;
            assert_true(k == key || k == key + 1);
            assert_int_equal(rid, want_id + (k - key));
            /* The insert carries the new value, the delete the old. */
            assert_int_equal(inserted,
                             soff[i + 1] - soff[i] == 5 &&
                                 memcmp((const char *)scol->buffers[2] + soff[i], "paged", 5) == 0);
        }
        b.release(&b);
    }
    s.release(&s);
    assert_int_equal(seen, 4);
}

/* A predicate on ts prunes the day(ts) partitions by their values alone
 * (the plan's statistics taken away), and the scan reads one file. */
static void ts_prunes_day_partitions(void **state)
{
    (void)state;
    const char *where = "ts >= TIMESTAMP '2026-01-02 00:00:00' AND ts < TIMESTAMP '2026-01-03'";
    char *text = NULL;
    struct hl_error err;
    test_check(hl_table_info(table, NULL, &text, &err), &err, "table info");
    json_t *info = jparse(text);
    free(text);
    struct arena a;
    arena_init(&a, 0);
    struct lake_table t;
    lake_table_init(&t, &a);
    test_check(client_table_from_info(info, &t, &err), &err, "the table");
    struct expr_pred *p;
    struct error e;
    assert_int_equal(expr_compile_predicate(&a, &t, where, strlen(where), &p, &e), 0);
    test_check(hl_table_scan_plan(table, NULL, &text, &err), &err, "scan plan");
    json_t *plan = jparse(text);
    free(text);
    size_t i, may = 0;
    const json_t *sf;
    json_array_foreach (plan, i, sf) {
        json_t *df = json_object_get(sf, "data_file");
        json_object_del(df, "column_stats");
        may += client_file_may_match(&t, p, df, &a);
    }
    assert_int_equal(may, 1);
    json_decref(plan);
    lake_table_release(&t);
    arena_free(&a);
    json_decref(info);
    struct hl_scan_stats st;
    expect_as_duckdb(where, -1, &st);
    assert_int_equal(st.rows_matched, DAY_ROWS - (DELETED_TO - DELETED_FROM + 1));
    assert_int_equal(st.files_scanned, 1);
    assert_int_equal(st.files_pruned, DAYS - 1);
    assert_int_equal(st.row_groups_pruned, 0);
}

/* The deletion vector applies to rows read by ranges, and time travel
 * reads the rows as they were before it. */
static void vectors_and_time_travel(void **state)
{
    (void)state;
    const char *where = "k BETWEEN 149990 AND 151010";
    struct hl_scan_stats st;
    expect_as_duckdb(where, -1, &st);
    assert_int_equal(st.rows_matched, 10 + 11);
    assert_true(st.pages_pruned > 0);
    expect_as_duckdb(where, s_appended, &st);
    assert_int_equal(st.rows_matched, 1021);
    /* The rows deleted are gone at the delete's snapshot, and only those. */
    expect_as_duckdb("k >= 149000 AND k < 152000 AND s IS NOT NULL", s_deleted, &st);
}

/* The limit stops the read; the projection hands out its columns in its
 * order, and not the predicate's. */
static void limit_and_projection(void **state)
{
    (void)state;
    struct hl_scan_stats st;
    int64_t n;
    char *ids = scan_ids("k >= 1000", -1, 7, &st, &n);
    assert_int_equal(n, 7);
    assert_int_equal(st.rows_matched, 7);
    assert_int_equal(st.files_scanned, 1); /* stopped in the first file */
    free(ids);
    ids = scan_ids("k >= 1000", -1, 0, &st, &n);
    assert_int_equal(n, 0);
    assert_int_equal(st.files_scanned, 0);
    free(ids);
    const char *cols[] = {"s", "id"};
    struct hl_scan_options o;
    hl_scan_options_init(&o);
    o.columns = cols;
    o.ncolumns = 2;
    o.predicate = "k < 5";
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan_with(table, NULL, &o, &s, &err), &err, "projection");
    struct ArrowSchema schema;
    assert_int_equal(s.get_schema(&s, &schema), 0);
    assert_int_equal(schema.n_children, 2);
    assert_string_equal(schema.children[0]->name, "s");
    assert_string_equal(schema.children[1]->name, "id");
    schema.release(&schema);
    struct ArrowArray b;
    assert_int_equal(s.get_next(&s, &b), 0);
    assert_int_equal(b.length, 5);
    assert_int_equal(b.n_children, 2);
    const int32_t *off = b.children[0]->buffers[1];
    const char *text = b.children[0]->buffers[2];
    for (int64_t i = 0; i < 5; i++) {
        int64_t id = ((const int64_t *)b.children[1]->buffers[1])[i];
        char want[16] = "";
        if (id % 10)
            snprintf(want, sizeof want, "s%d", (int)id);
        assert_int_equal(off[i + 1] - off[i], (int32_t)strlen(want));
        assert_memory_equal(text + off[i], want, strlen(want));
    }
    b.release(&b);
    assert_int_equal(s.get_next(&s, &b), 0);
    assert_null(b.release);
    s.release(&s);
}

static void expect_refused(const char *const *cols, size_t ncols, const char *where,
                           const char *code, const char *needle)
{
    struct hl_scan_options o;
    hl_scan_options_init(&o);
    o.columns = cols;
    o.ncolumns = ncols;
    o.predicate = where;
    struct ArrowArrayStream s;
    struct hl_error err;
    assert_int_equal(hl_table_scan_with(table, NULL, &o, &s, &err), HL_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.code, code);
    expect_contains(err.message, needle, code);
    assert_null(s.release);
}

static void bad_options(void **state)
{
    (void)state;
    const char *unknown[] = {"id", "nope"}, *twice[] = {"k", "k"}, *nested[] = {"id.x"};
    expect_refused(unknown, 2, NULL, "unknown_column", "nope");
    expect_refused(twice, 2, NULL, "unknown_column", "'k'");
    expect_refused(nested, 1, NULL, "unknown_column", "id.x");
    expect_refused(NULL, 0, "k = = 1", "invalid_predicate", "'='");
    expect_refused(NULL, 0, "nope = 1", "invalid_predicate", "nope");
}

/* A random predicate over k, id, ts and s, both readers reading it alike. */
static void random_test(unsigned *seed, char *out, size_t size)
{
    int k = rand_r(seed) % (DAYS * DAY_ROWS), w = rand_r(seed) % 40000;
    switch (rand_r(seed) % 6) {
    case 0: snprintf(out, size, "k BETWEEN %d AND %d", k, k + w); break;
    case 1: snprintf(out, size, "id %s %d", rand_r(seed) % 2 ? "<" : ">=", k); break;
    case 2: snprintf(out, size, "k IN (%d, %d, %d)", k, k + w, w); break;
    case 3:
        snprintf(out, size, "ts < TIMESTAMP '2026-01-%02d %02d:00:00'", 1 + rand_r(seed) % DAYS,
                 rand_r(seed) % 24);
        break;
    case 4: snprintf(out, size, "s = 's%d'", k % 1000); break;
    default: snprintf(out, size, "s IS NULL"); break;
    }
}

static void random_predicates(void **state)
{
    (void)state;
    unsigned seed = (unsigned)time(NULL);
    print_message("seed %u\n", seed);
    for (int round = 0; round < 12; round++) {
        char a[128], b[128], where[300];
        random_test(&seed, a, sizeof a);
        random_test(&seed, b, sizeof b);
        switch (round % 4) {
        case 0: snprintf(where, sizeof where, "%s", a); break;
        case 1: snprintf(where, sizeof where, "%s AND %s", a, b); break;
        case 2: snprintf(where, sizeof where, "(%s) OR (%s)", a, b); break;
        default: snprintf(where, sizeof where, "NOT (%s) AND %s", a, b); break;
        }
        struct hl_scan_stats st;
        expect_as_duckdb(where, -1, &st);
    }
}

/* ---- hoglake read ---- */

/* hoglake read with `flags` exits with `code`, says `needle` and prints
 * no row. */
static void expect_read_fails(const char *flags, int code, const char *needle)
{
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse, "read scanf.ns.events %s", flags);
    if (o.code != code)
        fail_msg("read %s: exit %d, not %d (%s)", flags, o.code, code, o.err);
    expect_contains(o.err, needle, flags);
    assert_string_equal(o.out, "");
    cli_out_free(&o);
}

static void cli_read(void **state)
{
    (void)state;
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "read scanf.ns.events --columns k,id --where \"k BETWEEN 10 AND 12\" --format csv "
            "--stats");
    cli_out_expect(&o, 0, "read --columns --where");
    assert_string_equal(o.out, "k,id\r\n10,10\r\n11,11\r\n12,12\r\n"); /* RFC 4180 */
    expect_contains(o.err, "files: 1 read, 2 pruned", "the counters");
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "read scanf.ns.events --where \"k >= 5\" --limit 2 --columns id");
    cli_out_expect(&o, 0, "read --limit");
    assert_string_equal(o.out, "{\"id\":5}\n{\"id\":6}\n");
    cli_out_free(&o);
    /* Parquet: one file with the table's field ids, as DuckDB reads it. */
    char path[600], sql[4096];
    snprintf(path, sizeof path, "%s/out.parquet", stack.warehouse);
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "read scanf.ns.events --columns s,k --where \"k BETWEEN 149995 AND 151004\" "
            "--format parquet --output %s",
            path);
    cli_out_expect(&o, 0, "read --format parquet");
    cli_out_free(&o);
    snprintf(sql, sizeof sql, "SELECT count(*), min(k), max(k), count(s) FROM read_parquet('%s')",
             path);
    char *got = test_duckdb(HL_NODE, HL_INTEROP_DIR, stack.warehouse, sql);
    snprintf(sql, sizeof sql,
             "SELECT count(*), min(k), max(k), count(s) FROM read_parquet(%s) WHERE k BETWEEN "
             "149995 AND 151004 AND NOT (k BETWEEN 150000 AND 150999)",
             files_sql);
    char *want = test_duckdb(HL_NODE, HL_INTEROP_DIR, stack.warehouse, sql);
    assert_string_equal(got, want);
    free(got);
    free(want);
    snprintf(sql, sizeof sql,
             "SELECT name, field_id FROM parquet_schema('%s') WHERE field_id IS NOT NULL", path);
    got = test_duckdb(HL_NODE, HL_INTEROP_DIR, stack.warehouse, sql);
    assert_string_equal(got, "s\t4\nk\t3\n");
    free(got);
    /* Bad flags: a clear error, nothing printed. */
    expect_read_fails("--columns id,nope", 1, "nope");
    expect_read_fails("--columns id,,k", 2, "--columns");
    expect_read_fails("--where \"k < 3 AND AND\"", 1, "'AND'");
    expect_read_fails("--limit -1", 2, "--limit");
    expect_read_fails("--format xml", 2, "parquet");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(point_lookup_prunes_pages),
        cmocka_unit_test(ts_prunes_day_partitions),
        cmocka_unit_test(vectors_and_time_travel),
        cmocka_unit_test(limit_and_projection),
        cmocka_unit_test(bad_options),
        cmocka_unit_test(random_predicates),
        cmocka_unit_test(cli_read),
        cmocka_unit_test(threads_find_alike),
        cmocka_unit_test(thread_failure_is_the_delete_s),
        cmocka_unit_test(changes_read_by_pages),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
