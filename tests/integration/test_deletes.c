/* Deletion vectors on the read side, end to end against a real hoglaked,
 * PostgreSQL, a local warehouse (file://) and moto (S3):
 *   - hl_table_scan leaves out the rows a file's deletion vector deletes,
 *     and DuckDB, reading the same data files and leaving out the same
 *     positions, finds exactly the same rows (a vector over several row
 *     groups, one that empties a row group, one that supersedes another,
 *     one that deletes a whole file);
 *   - time travel reads the vector visible at the snapshot;
 *   - a vector whose Puffin file disagrees with the catalog (its count, the
 *     data file it names, its size) fails the read with a clear error.
 * The vectors are written here with lake/puffin and registered with a
 * plain /commit, as any writer may. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client_harness.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "hoglake/sys/table.h"
#include "lake/dv.h"
#include "lake/puffin.h"
#include "objstore/objstore.h"
#include "util/buf.h"
#include "util/error.h"

#if !defined(HL_NODE) || !defined(HOGLAKE_CLI_BIN)
#error "HL_NODE, HL_INTEROP_DIR and HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct client_stack stack;

enum { NROWS = 40000, NFILES = 4 };

/* The DuckDB oracle's table size (deletes_match_duckdb): NROWS, quick
 * under the sanitizers; HOGLAKE_TEST_DELETE_ROWS sets another, as the
 * 1M-row run does: by hand, from a Release build, the binary run directly
 * with the suite's environment (its two oracles take ~5 minutes, past
 * ctest's limit for the suite): HOGLAKE_TEST_DELETE_ROWS=1000000
 * tests/integration/test_deletes. */
static int oracle_rows = NROWS;

static int setup(void **state)
{
    (void)state;
    const char *rows = getenv("HOGLAKE_TEST_DELETE_ROWS");
    if (rows && atoi(rows) >= NROWS)
        oracle_rows = atoi(rows) / NFILES * NFILES;
    client_stack_up(&stack, "deletes");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    client_stack_down(&stack);
    return 0;
}

struct fixture {
    hl_client *client;
    hl_catalog *catalog;
    hl_namespace *ns;
    hl_table *table;
    const char *catalog_name;
};

static void fixture_up(struct fixture *f, hl_client *c, const char *catalog, const char *table)
{
    memset(f, 0, sizeof *f);
    f->client = c;
    f->catalog_name = catalog;
    char data_path[512];
    client_stack_data_path(&stack, c, catalog, data_path, sizeof data_path);
    struct hl_error err;
    if (hl_catalog_open(c, catalog, &f->catalog, &err) != HL_OK) {
        test_check(hl_catalog_create(c, catalog, data_path, &f->catalog, &err), &err,
                   "catalog create");
        test_check(hl_namespace_create(f->catalog, "ns", &f->ns, &err), &err, "namespace");
    } else {
        test_check(hl_namespace_open(f->catalog, "ns", &f->ns, &err), &err, "namespace");
    }
    test_check(hl_table_create(f->ns, table,
                               "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                               "{\"name\":\"team_id\",\"type\":\"int\",\"nullable\":false},"
                               "{\"name\":\"name\",\"type\":\"string\"}]",
                               NULL, &f->table, &err),
               &err, "table create");
    /* A handle reading the head (a create's reads its own snapshot). */
    hl_table_free(f->table);
    test_check(hl_table_open(f->ns, table, &f->table, &err), &err, "table open");
}

static void fixture_free(struct fixture *f)
{
    hl_table_free(f->table);
    hl_namespace_free(f->ns);
    hl_catalog_free(f->catalog);
}

/* nrows rows (id i, team i % 5, a name that is not ASCII for some) in
 * NFILES appends of one file each, of several row groups; returns the
 * last append's snapshot. */
static int64_t append_n(struct fixture *f, int nrows)
{
    int64_t snap = -1;
    for (int file = 0; file < NFILES; file++) {
        struct buf jsonl = BUF_INIT;
        for (int i = file * (nrows / NFILES); i < (file + 1) * (nrows / NFILES); i++) {
            char line[128];
            int n = snprintf(line, sizeof line, "{\"id\":%d,\"team_id\":%d,\"name\":\"%s%d\"}\n", i,
                             i % 5, i % 3 ? "n" : "\xc3\xa9t\xc3\xa9-", i);
            assert_int_equal(buf_append(&jsonl, line, (size_t)n), 0);
        }
        assert_int_equal(buf_append(&jsonl, "", 1), 0);
        struct ArrowArrayStream s;
        test_rows_stream("id:long!, team_id:int!, name:string", jsonl.data, &s);
        buf_free(&jsonl);
        struct hl_append_options o;
        hl_append_options_init(&o);
        o.row_group_bytes = nrows > 100000 ? 1 << 20 : 24 * 1024;
        struct hl_append_result *res = NULL;
        struct hl_error err;
        test_check(hl_table_append(f->table, &s, &o, &res, &err), &err, "append");
        snap = res->snapshot_id;
        hl_append_result_free(res);
    }
    return snap;
}

static int64_t append_rows(struct fixture *f)
{
    return append_n(f, NROWS);
}

/* The scan plan at the head (one page), parsed. */
static json_t *scan_plan(struct fixture *f)
{
    char *text = NULL;
    struct hl_error err;
    test_check(hl_table_scan_plan(f->table, NULL, &text, &err), &err, "scan plan");
    json_t *plan = jparse(text);
    free(text);
    assert_true(json_is_array(plan));
    return plan;
}

/* The positions of a file that `rule` keeps: every row whose position p
 * has (p * 7919 + seed) % 50 == 0, plus [range_lo, range_hi]. The same
 * rule is written as SQL for DuckDB (rule_sql). */
struct rule {
    unsigned seed;
    int64_t range_lo, range_hi; /* -1: no range */
    bool all;                   /* every row */
};

static bool rule_deletes(const struct rule *r, uint64_t p)
{
    if (r->all)
        return true;
    if (r->range_lo >= 0 && (int64_t)p >= r->range_lo && (int64_t)p <= r->range_hi)
        return true;
    return (p * 7919 + r->seed) % 50 == 0;
}

static void rule_sql(const struct rule *r, char *out, size_t size)
{
    if (r->all)
        snprintf(out, size, "true");
    else
        snprintf(out, size,
                 "((file_row_number * 7919 + %u) %% 50 = 0 OR file_row_number BETWEEN %" PRId64
                 " AND %" PRId64 ")",
                 r->seed, r->range_lo, r->range_hi);
}

/* Writes a Puffin file holding `dv` for data file `target` (its blob
 * naming `named`, normally the target) and registers it with /commit;
 * delete_count is `count` (normally dv->n). Returns the commit's answer
 * status. */
static long commit_dv(struct fixture *f, const char *tname, const json_t *target, const char *named,
                      const struct lake_dv *dv, int64_t count)
{
    const char *path = json_string_value(json_object_get(target, "path"));
    struct lake_puffin_dv_in in = {named, dv};
    struct lake_puffin_blob_pos pos;
    struct buf file = BUF_INIT;
    struct error e;
    assert_int_equal(lake_puffin_write_dvs(&in, 1, "test", &file, &pos, &e), 0);
    static int serial;
    char dv_path[700];
    snprintf(dv_path, sizeof dv_path, "%.*s/dv-%d-%d.puffin", (int)(strrchr(path, '/') - path),
             path, (int)getpid(), serial++);
    struct objstore *store;
    struct hl_error err;
    test_check(hl_table_object_store(f->table, &store, &err), &err, "object store");
    if (objstore_put(store, dv_path, file.data, file.len, 0, &err) != 0)
        fail_msg("put %s: %s", dv_path, err.message);
    json_t *body =
        jpack("{s:I,s:[{s:s,s:s,s:[{s:I,s:s,s:I,s:I}]}]}", "read_snapshot",
              (json_int_t)head_of(f->catalog_name), "deletes", "namespace", "ns", "table", tname,
              "files", "data_file_id", jint(target, "data_file_id"), "path", dv_path,
              "delete_count", (json_int_t)count, "file_size_bytes", (json_int_t)file.len);
    buf_free(&file);
    struct http_result r;
    api_send(&r, &stack.srv, "POST", body, "/v1/catalogs/%s/commit",
             f->catalog_name); /* takes body */
    long code = r.status;
    http_result_free(&r);
    return code;
}

/* The vector of `rule` over a file of `rows` rows. */
static void rule_dv(const struct rule *r, uint64_t rows, struct lake_dv *out)
{
    lake_dv_init(out);
    struct error e;
    for (uint64_t p = 0; p < rows; p++)
        if (rule_deletes(r, p))
            assert_int_equal(lake_dv_add(out, &p, 1, &e), 0);
}

/* "id\tteam\tname" lines of the stream's rows, ordered by id. */
static int by_id(const void *a, const void *b)
{
    long x = strtol(*(char *const *)a, NULL, 10), y = strtol(*(char *const *)b, NULL, 10);
    return (x > y) - (x < y);
}

static char *scan_text(struct ArrowArrayStream *s, int64_t *nrows)
{
    char **lines = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        struct ArrowArray b;
        if (s->get_next(s, &b) != 0)
            fail_msg("reading the scan: %s", s->get_last_error(s));
        if (!b.release)
            break;
        assert_true(b.length > 0); /* an emptied row group is skipped */
        const struct ArrowArray *id = b.children[0], *team = b.children[1], *name = b.children[2];
        /* A changefeed's rows carry _row_id and _change_type. */
        const struct ArrowArray *row_id = b.n_children == 5 ? b.children[3] : NULL,
                                *kind = b.n_children == 5 ? b.children[4] : NULL;
        for (int64_t i = 0; i < b.length; i++) {
            const int32_t *off = name->buffers[1];
            int64_t k = name->offset + i;
            char line[256], extra[64] = "";
            if (row_id) {
                const int32_t *ko = kind->buffers[1];
                int64_t j = kind->offset + i;
                snprintf(extra, sizeof extra, "\t%" PRId64 "\t%.*s",
                         ((const int64_t *)row_id->buffers[1])[row_id->offset + i],
                         ko[j + 1] - ko[j], (const char *)kind->buffers[2] + ko[j]);
            }
            snprintf(line, sizeof line, "%" PRId64 "\t%d\t%.*s%s\n",
                     ((const int64_t *)id->buffers[1])[id->offset + i],
                     ((const int32_t *)team->buffers[1])[team->offset + i], off[k + 1] - off[k],
                     (const char *)name->buffers[2] + off[k], extra);
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                lines = realloc(lines, cap * sizeof *lines);
                assert_non_null(lines);
            }
            lines[n++] = strdup(line);
        }
        b.release(&b);
    }
    s->release(s);
    if (n > 0)
        qsort(lines, n, sizeof *lines, by_id);
    struct buf out = BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(buf_append(&out, lines[i], strlen(lines[i])), 0);
        free(lines[i]);
    }
    free(lines);
    *nrows = (int64_t)n;
    return out.data ? buf_take(&out) : strdup("");
}

static char *read_at(struct fixture *f, int64_t snapshot, int64_t *nrows)
{
    struct hl_at at = {snapshot, NULL};
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan(f->table, &at, &s, &err), &err, "scan");
    return scan_text(&s, nrows);
}

/* A local copy of a data file, for DuckDB. Caller frees. */
static char *local_copy(struct fixture *f, const char *uri)
{
    if (strncmp(uri, "file://", 7) == 0)
        return strdup(uri + 7);
    struct objstore *store;
    struct hl_error err;
    test_check(hl_table_object_store(f->table, &store, &err), &err, "object store");
    struct buf b = BUF_INIT;
    if (objstore_get(store, uri, 0, UINT64_MAX, &b, &err) != 0)
        fail_msg("fetching %s: %s", uri, err.message);
    char path[600];
    snprintf(path, sizeof path, "%s/copy-%s", stack.warehouse, strrchr(uri, '/') + 1);
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(b.data, 1, b.len, out), b.len);
    fclose(out);
    buf_free(&b);
    return strdup(path);
}

/* What DuckDB reads from the plan's data files when the rows rules[i]
 * names in file i are left out, as scan_text prints rows. */
static char *duckdb_expected(struct fixture *f, const json_t *files, const struct rule *rules)
{
    struct buf sql = BUF_INIT;
    size_t i;
    const json_t *sf;
    json_array_foreach (files, i, sf) {
        char *local = local_copy(f, jstr(json_object_get(sf, "data_file"), "path"));
        char where[256] = "false";
        if (rules[i].all || rules[i].seed)
            rule_sql(&rules[i], where, sizeof where);
        char part[1200];
        int n = snprintf(part, sizeof part,
                         "%sSELECT id, team_id, name FROM read_parquet('%s', "
                         "file_row_number=true) WHERE NOT %s",
                         i ? " UNION ALL " : "", local, where);
        assert_int_equal(buf_append(&sql, part, (size_t)n), 0);
        free(local);
    }
    assert_int_equal(buf_append(&sql, " ORDER BY id", 13), 0);
    char *rows = test_duckdb(HL_NODE, HL_INTEROP_DIR, stack.warehouse, sql.data);
    buf_free(&sql);
    return rows;
}

static void expect_same(const char *got, const char *want, const char *what)
{
    if (strcmp(got, want) != 0)
        fail_msg("%s: the scan and DuckDB disagree (%zu vs %zu bytes)", what, strlen(got),
                 strlen(want));
}

static void scan_applies_vectors(hl_client *c, const char *catalog)
{
    struct fixture f;
    fixture_up(&f, c, catalog, "events");
    int64_t s_append = append_rows(&f);
    json_t *plan = scan_plan(&f);
    size_t nfiles = json_array_size(plan);
    if (nfiles < 3)
        fail_msg("the append wrote %zu files; the test needs 3", nfiles);
    struct rule *rules = calloc(nfiles, sizeof *rules);
    assert_non_null(rules);
    unsigned seed = (unsigned)time(NULL);
    print_message("seed %u\n", seed);
    /* File 0: scattered rows and a range wider than a row group (so some
     * group is emptied). File 1: scattered rows only. */
    rules[0] = (struct rule){seed % 50 + 1, 100, 2100, false};
    rules[1] = (struct rule){seed % 47 + 3, -1, -1, false};
    for (size_t i = 0; i < 2; i++) {
        const json_t *df = json_object_get(json_array_get(plan, i), "data_file");
        struct lake_dv dv;
        rule_dv(&rules[i], (uint64_t)jint(df, "record_count"), &dv);
        assert_int_equal(commit_dv(&f, "events", df, jstr(df, "path"), &dv, (int64_t)dv.n), 200);
        lake_dv_free(&dv);
    }
    int64_t s_deleted = head_of(catalog);
    int64_t n = 0;
    char *got = read_at(&f, -1, &n);
    char *want = duckdb_expected(&f, plan, rules);
    expect_same(got, want, "after two vectors");
    assert_true(n < NROWS - 2000);
    free(got);

    /* A vector superseding file 1's: its positions and more. */
    rules[1].range_lo = 0;
    rules[1].range_hi = 10;
    const json_t *df1 = json_object_get(json_array_get(plan, 1), "data_file");
    struct lake_dv dv;
    rule_dv(&rules[1], (uint64_t)jint(df1, "record_count"), &dv);
    assert_int_equal(commit_dv(&f, "events", df1, jstr(df1, "path"), &dv, (int64_t)dv.n), 200);
    lake_dv_free(&dv);
    /* Every row of file 2. */
    rules[2].all = true;
    const json_t *df2 = json_object_get(json_array_get(plan, 2), "data_file");
    rule_dv(&rules[2], (uint64_t)jint(df2, "record_count"), &dv);
    assert_int_equal(commit_dv(&f, "events", df2, jstr(df2, "path"), &dv, (int64_t)dv.n), 200);
    lake_dv_free(&dv);
    got = read_at(&f, -1, &n);
    free(want);
    want = duckdb_expected(&f, plan, rules);
    expect_same(got, want, "after a superseding vector and a whole file's");
    free(got);
    free(want);

    /* Time travel: before any vector, every row; at the first vectors'
     * snapshot, what DuckDB reads with the first two rules. */
    got = read_at(&f, s_append, &n);
    assert_int_equal(n, NROWS);
    free(got);
    rules[1].range_lo = rules[1].range_hi = -1;
    rules[2].all = false;
    got = read_at(&f, s_deleted, &n);
    want = duckdb_expected(&f, plan, rules);
    expect_same(got, want, "at the first vectors' snapshot");
    free(got);
    free(want);
    free(rules);
    json_decref(plan);
    fixture_free(&f);
}

static void scan_file(void **state)
{
    (void)state;
    scan_applies_vectors(stack.file_client, "dvfile");
}

static void scan_moto(void **state)
{
    (void)state;
    scan_applies_vectors(stack.moto_client, "dvmoto");
}

/* A scan whose stream must fail, naming `needle`. */
static void expect_scan_fails(struct fixture *f, const char *needle)
{
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan(f->table, NULL, &s, &err), &err, "scan");
    int rc = 0;
    for (;;) {
        struct ArrowArray b;
        if ((rc = s.get_next(&s, &b)) != 0)
            break;
        if (!b.release)
            break;
        b.release(&b);
    }
    if (rc == 0)
        fail_msg("the scan read a table whose vector is wrong (expected '%s')", needle);
    expect_contains(s.get_last_error(&s), needle, "the scan's error");
    s.release(&s);
}

static void vectors_that_disagree(void **state)
{
    (void)state;
    struct lake_dv dv;
    struct rule r = {7, -1, -1, false};
    struct error e;

    /* The catalog's count is not the vector's. */
    struct fixture f;
    fixture_up(&f, stack.file_client, "dvbad", "count");
    append_rows(&f);
    json_t *plan = scan_plan(&f);
    const json_t *df = json_object_get(json_array_get(plan, 0), "data_file");
    rule_dv(&r, (uint64_t)jint(df, "record_count"), &dv);
    assert_int_equal(commit_dv(&f, "count", df, jstr(df, "path"), &dv, (int64_t)dv.n + 1), 200);
    expect_scan_fails(&f, "the catalog says");
    json_decref(plan);
    fixture_free(&f);

    /* The Puffin file holds the vector of another file. */
    fixture_up(&f, stack.file_client, "dvbad", "other");
    append_rows(&f);
    plan = scan_plan(&f);
    df = json_object_get(json_array_get(plan, 0), "data_file");
    const char *other = jstr(json_object_get(json_array_get(plan, 1), "data_file"), "path");
    assert_int_equal(commit_dv(&f, "other", df, other, &dv, (int64_t)dv.n), 200);
    expect_scan_fails(&f, "no deletion vector for");
    json_decref(plan);
    fixture_free(&f);

    /* A position past the file's rows. */
    fixture_up(&f, stack.file_client, "dvbad", "past");
    append_rows(&f);
    plan = scan_plan(&f);
    df = json_object_get(json_array_get(plan, 0), "data_file");
    uint64_t past = (uint64_t)jint(df, "record_count");
    assert_int_equal(lake_dv_add(&dv, &past, 1, &e), 0);
    assert_int_equal(commit_dv(&f, "past", df, jstr(df, "path"), &dv, (int64_t)dv.n), 200);
    expect_scan_fails(&f, "puffin");
    json_decref(plan);
    fixture_free(&f);
    lake_dv_free(&dv);
}

/* The changefeed's rows of file `df` as DuckDB reads them: `where` over
 * file_row_number, with the row id row_id_start + position and `kind`. */
static char *duckdb_changes(struct fixture *f, const json_t *df, const char *where,
                            const char *kind)
{
    char *local = local_copy(f, jstr(df, "path"));
    char sql[2000];
    snprintf(sql, sizeof sql,
             "SELECT id, team_id, name, %lld + file_row_number, '%s' FROM read_parquet('%s', "
             "file_row_number=true) WHERE %s ORDER BY id",
             (long long)jint(df, "row_id_start"), kind, local, where);
    free(local);
    return test_duckdb(HL_NODE, HL_INTEROP_DIR, stack.warehouse, sql);
}

/* Every line of want is a line of got. */
static void expect_lines_in(const char *got, const char *want)
{
    for (const char *p = want; *p;) {
        const char *nl = strchr(p, '\n');
        char line[300]; /* "\n<row>\n": a whole line of got, or its first */
        snprintf(line, sizeof line, "\n%.*s\n", (int)(nl - p), p);
        if (!strstr(got, line) && strncmp(got, line + 1, strlen(line + 1)) != 0)
            fail_msg("the changefeed lacks the row '%.*s'", (int)(nl - p), p);
        p = nl + 1;
    }
}

static char *changes_text(struct fixture *f, int64_t from, int64_t *n)
{
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan_changes(f->table, from, -1, &s, NULL, &err), &err, "scan changes");
    return scan_text(&s, n);
}

/* Lines of text that hold `needle`. */
static int64_t lines_with(const char *text, const char *needle)
{
    int64_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

static void changes_report_deletes(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, stack.file_client, "dvchanges", "events");
    int64_t s_appends = append_rows(&f);
    json_t *plan = scan_plan(&f);
    json_t *old_file = json_incref(json_object_get(json_array_get(plan, 0), "data_file"));
    json_decref(plan);
    /* A first vector on an old file, then a new file with a vector of its
     * own, then a second vector on the old file. */
    struct rule first = {11, -1, -1, false}, second = {11, 300, 900, false},
                young = {5, -1, -1, false};
    struct lake_dv dv;
    rule_dv(&first, (uint64_t)jint(old_file, "record_count"), &dv);
    assert_int_equal(commit_dv(&f, "events", old_file, jstr(old_file, "path"), &dv, (int64_t)dv.n),
                     200);
    lake_dv_free(&dv);
    int64_t s_first = head_of("dvchanges");
    append_rows(&f);
    plan = scan_plan(&f);
    json_t *new_file = NULL;
    size_t i;
    const json_t *sf;
    json_array_foreach (plan, i, sf) {
        const json_t *df = json_object_get(sf, "data_file");
        if (jint(df, "begin_snapshot") > s_first && !new_file)
            new_file = json_incref((json_t *)df);
    }
    json_decref(plan);
    assert_non_null(new_file);
    rule_dv(&young, (uint64_t)jint(new_file, "record_count"), &dv);
    assert_int_equal(commit_dv(&f, "events", new_file, jstr(new_file, "path"), &dv, (int64_t)dv.n),
                     200);
    lake_dv_free(&dv);
    rule_dv(&second, (uint64_t)jint(old_file, "record_count"), &dv);
    assert_int_equal(commit_dv(&f, "events", old_file, jstr(old_file, "path"), &dv, (int64_t)dv.n),
                     200);
    lake_dv_free(&dv);

    /* From before the first vector: the old file's rows of the second
     * vector are deleted; every appended file's rows less its vector are
     * inserted. */
    char y[256], o1[256], o2[256], where[800];
    rule_sql(&young, y, sizeof y);
    rule_sql(&first, o1, sizeof o1);
    rule_sql(&second, o2, sizeof o2);
    int64_t n;
    char *got = changes_text(&f, s_first, &n);
    char *want_deleted = duckdb_changes(&f, old_file, o2, "delete");
    snprintf(where, sizeof where, "%s AND NOT %s", o2, o1);
    char *want_deleted_since = duckdb_changes(&f, old_file, where, "delete");
    snprintf(where, sizeof where, "NOT %s", y);
    char *want_inserted_young = duckdb_changes(&f, new_file, where, "insert");
    /* Only the window's delta of the old file: the first vector was before
     * it. */
    expect_lines_in(got, want_deleted_since);
    assert_int_equal(lines_with(got, "\tdelete\n"), lines_with(want_deleted_since, "\n"));
    expect_lines_in(got, want_inserted_young);
    assert_int_equal(lines_with(got, "\tinsert\n"),
                     NROWS - (NROWS / NFILES - lines_with(want_inserted_young, "\n")));
    free(got);

    /* From before every vector: the second vector's rows all, and the
     * appends' rows. */
    got = changes_text(&f, s_appends, &n);
    assert_int_equal(lines_with(got, "\tdelete\n"), lines_with(want_deleted, "\n"));
    expect_lines_in(got, want_deleted);
    int64_t young_deleted = NROWS / NFILES - lines_with(want_inserted_young, "\n");
    assert_int_equal(lines_with(got, "\tinsert\n"), NROWS - young_deleted);
    free(got);

    /* The CLI prints the same rows. */
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "changes dvchanges.ns.events --from %lld --rows --format csv", (long long)s_first);
    cli_out_expect(&o, 0, "changes --rows");
    expect_contains(o.out, "_row_id,_change_type", "the CSV header");
    assert_int_equal(lines_with(o.out, ",delete"), lines_with(want_deleted_since, "\n"));
    assert_int_equal(lines_with(o.out, ",insert"),
                     NROWS - (NROWS / NFILES - lines_with(want_inserted_young, "\n")));
    cli_out_free(&o);
    free(want_deleted);
    free(want_deleted_since);
    free(want_inserted_young);
    json_decref(old_file);
    json_decref(new_file);
    fixture_free(&f);
}

/* ---- hl_table_delete and hoglake delete ---- */

/* A random predicate both DuckDB and hoglake read the same way. */
static void random_atom(unsigned *seed, char *out, size_t size)
{
    int k = rand_r(seed) % oracle_rows;
    switch (rand_r(seed) % 7) {
    case 0: snprintf(out, size, "id < %d", k / 20); break;
    case 1: snprintf(out, size, "id BETWEEN %d AND %d", k, k + rand_r(seed) % 3000); break;
    case 2: snprintf(out, size, "team_id = %d", rand_r(seed) % 5); break;
    case 3: snprintf(out, size, "team_id IN (%d, %d)", rand_r(seed) % 5, rand_r(seed) % 5); break;
    case 4:
        snprintf(out, size, "name IN ('n%d', '\xc3\xa9t\xc3\xa9-%d', 'x')", k | 1, k / 3 * 3);
        break;
    case 5: snprintf(out, size, "id = %d", k); break;
    default: snprintf(out, size, "name IS NULL"); break;
    }
}

static void random_predicate(unsigned *seed, char *out, size_t size)
{
    char a[160], b[160];
    random_atom(seed, a, sizeof a);
    random_atom(seed, b, sizeof b);
    switch (rand_r(seed) % 4) {
    case 0: snprintf(out, size, "%s", a); break;
    case 1: snprintf(out, size, "%s AND %s", a, b); break;
    case 2: snprintf(out, size, "(%s) OR %s", a, b); break;
    default: snprintf(out, size, "NOT (%s) AND id < %d", a, rand_r(seed) % oracle_rows); break;
    }
}

/* The rows of the plan's files DuckDB keeps when the predicates deleted
 * (each deletes where it is TRUE), and how many the last one deleted. */
static char *duckdb_after(struct fixture *f, const json_t *files, const struct buf *kept,
                          const char *last, int64_t *last_count)
{
    struct buf list = BUF_INIT;
    size_t i;
    const json_t *sf;
    json_array_foreach (files, i, sf) {
        char *local = local_copy(f, jstr(json_object_get(sf, "data_file"), "path"));
        assert_int_equal(buf_printf(&list, "%s'%s'", i ? ", " : "", local), 0);
        free(local);
    }
    struct buf sql = BUF_INIT;
    assert_int_equal(buf_printf(&sql,
                                "SELECT count(*) FROM read_parquet([%s]) WHERE %s AND "
                                "coalesce(%s, false)",
                                list.data, kept->data, last),
                     0);
    char *n = test_duckdb(HL_NODE, HL_INTEROP_DIR, stack.warehouse, sql.data);
    *last_count = strtoll(n, NULL, 10);
    free(n);
    buf_free(&sql);
    assert_int_equal(buf_printf(&sql,
                                "SELECT id, team_id, name FROM read_parquet([%s]) WHERE %s AND "
                                "coalesce(NOT (%s), true) ORDER BY id",
                                list.data, kept->data, last),
                     0);
    char *rows = test_duckdb(HL_NODE, HL_INTEROP_DIR, stack.warehouse, sql.data);
    buf_free(&sql);
    buf_free(&list);
    return rows;
}

static void deletes_match_duckdb(hl_client *c, const char *catalog)
{
    struct fixture f;
    fixture_up(&f, c, catalog, "events");
    struct hl_error err;
    test_check(hl_table_alter(f.table,
                              "[{\"op\":\"set_partition_spec\",\"fields\":[{\"source_field_"
                              "id\":2,\"transform\":\"identity\"}]}]",
                              NULL, &err),
               &err, "partition by team");
    hl_table_free(f.table); /* a handle that reads the head, not the alter's snapshot */
    test_check(hl_table_open(f.ns, "events", &f.table, &err), &err, "table open");
    append_n(&f, oracle_rows);
    json_t *plan = scan_plan(&f); /* every data file the deletes can touch */
    struct buf kept = BUF_INIT;   /* what DuckDB keeps: no predicate TRUE so far */
    assert_int_equal(buf_puts(&kept, "true"), 0);
    unsigned seed = (unsigned)time(NULL);
    print_message("seed %u\n", seed);
    int64_t total = 0;
    for (int round = 0; round < 6; round++) {
        char pred[400];
        if (round == 0)
            snprintf(pred, sizeof pred, "team_id = 3 AND id BETWEEN 1000 AND 1999");
        else
            random_predicate(&seed, pred, sizeof pred);
        int64_t head = head_of(catalog), want_count;
        char *want = duckdb_after(&f, plan, &kept, pred, &want_count);
        struct hl_delete_options o;
        hl_delete_options_init(&o);
        struct hl_delete_result r;
        /* A dry run counts and commits nothing. */
        o.dry_run = true;
        test_check(hl_table_delete(f.table, pred, &o, &r, &err), &err, pred);
        assert_int_equal(head_of(catalog), head);
        if (r.rows_deleted != want_count)
            fail_msg("dry run of '%s': %lld rows, DuckDB %lld", pred, (long long)r.rows_deleted,
                     (long long)want_count);
        o.dry_run = false;
        test_check(hl_table_delete(f.table, pred, &o, &r, &err), &err, pred);
        print_message("'%s': %lld rows, %lld files read, %lld pruned, %lld/%lld row groups "
                      "pruned\n",
                      pred, (long long)r.rows_deleted, (long long)r.files_scanned,
                      (long long)r.files_pruned, (long long)r.row_groups_pruned,
                      (long long)(r.row_groups_pruned + r.row_groups_scanned));
        assert_int_equal(r.rows_deleted, want_count);
        /* A delete that matches nothing commits nothing. */
        assert_int_equal(head_of(catalog), want_count > 0 ? head + 1 : head);
        assert_int_equal(r.snapshot_id, want_count > 0 ? head + 1 : -1);
        if (round == 0) {
            /* Partition values rule out the other teams' files, the id
             * range the team's files of later appends, and the row groups
             * of the one file read that hold other ids. */
            assert_int_equal(r.files_scanned, 1);
            assert_int_equal(r.files_pruned, (int64_t)json_array_size(plan) - 1);
            assert_true(r.row_groups_pruned > 0);
        }
        int64_t n;
        char *got = read_at(&f, -1, &n);
        expect_same(got, want, pred);
        total += want_count;
        assert_int_equal(n, oracle_rows - total);
        free(got);
        free(want);
        assert_int_equal(buf_printf(&kept, " AND coalesce(NOT (%s), true)", pred), 0);
    }
    buf_free(&kept);
    /* Deleting what is left empties every file, which the delete then
     * removes (removes_file): the plan at the head lists none, the
     * snapshot before lists them all, and the changefeed reports every
     * row deleted. */
    int64_t before = head_of(catalog);
    json_t *live = scan_plan(&f);
    struct hl_delete_options o;
    hl_delete_options_init(&o);
    struct hl_delete_result r;
    test_check(hl_table_delete(f.table, "true", &o, &r, &err), &err, "true");
    assert_int_equal(r.rows_deleted, oracle_rows - total);
    json_t *empty = scan_plan(&f);
    assert_int_equal(json_array_size(empty), 0);
    json_decref(empty);
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld"
                          " AND end_snapshot = %lld",
                          (long long)cat_id(catalog), (long long)r.snapshot_id),
                     (int64_t)json_array_size(live));
    json_decref(live);
    int64_t n = 0;
    free(changes_text(&f, before, &n));
    assert_int_equal(n, r.rows_deleted);
    char *none = read_at(&f, -1, &n);
    assert_int_equal(n, 0);
    free(none);
    json_decref(plan);
    fixture_free(&f);
}

static void delete_file(void **state)
{
    (void)state;
    deletes_match_duckdb(stack.file_client, "deletefile");
}

static void delete_moto(void **state)
{
    (void)state;
    deletes_match_duckdb(stack.moto_client, "deletemoto");
}

/* hoglake delete as a user runs it: a dry run (on one thread, and on
 * three), the delete, one that matches nothing, and a predicate that does
 * not parse, or a thread count that is not one. */
static void delete_cli(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, stack.file_client, "deletecli", "events");
    append_rows(&f);
    int64_t head = head_of("deletecli");
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "delete deletecli.ns.events --where \"id < 100 OR name = 'n101'\" --dry-run");
    cli_out_expect(&o, 0, "delete --dry-run");
    expect_contains(o.out, "would delete 101 rows from 1 file", "the dry run");
    cli_out_free(&o);
    for (int threads = 1; threads <= 3; threads += 2) {
        cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
                "--read-threads %d delete deletecli.ns.events --where \"id < 100 OR name = "
                "'n101'\" --dry-run",
                threads);
        cli_out_expect(&o, 0, "delete --dry-run on threads");
        expect_contains(o.out, "would delete 101 rows from 1 file", "the dry run on threads");
        cli_out_free(&o);
    }
    const char *const bad_threads[] = {"0", "-2", "x", "65", ""};
    for (size_t i = 0; i < sizeof bad_threads / sizeof *bad_threads; i++) {
        cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
                "--read-threads '%s' delete deletecli.ns.events --where true", bad_threads[i]);
        assert_int_equal(o.code, 2);
        expect_contains(o.err, "--read-threads takes a number from 1 to 64", bad_threads[i]);
        cli_out_free(&o);
    }
    assert_int_equal(head_of("deletecli"), head);
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "--json delete deletecli.ns.events --where \"id < 100 OR name = 'n101'\"");
    cli_out_expect(&o, 0, "delete");
    json_t *doc = jparse(o.out);
    assert_int_equal(jint(doc, "rows_deleted"), 101);
    assert_int_equal(jint(doc, "snapshot_id"), head + 1);
    json_decref(doc);
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "delete deletecli.ns.events --where \"id < 100\"");
    cli_out_expect(&o, 0, "delete again");
    expect_contains(o.out, "nothing deleted", "a delete of deleted rows");
    cli_out_free(&o);
    assert_int_equal(head_of("deletecli"), head + 1);
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "delete deletecli.ns.events --where \"id < 100 AND AND\"");
    assert_int_not_equal(o.code, 0);
    expect_contains(o.err, "'AND'", "the offending token");
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "delete deletecli.ns.events --where \"nope = 1\"");
    assert_int_not_equal(o.code, 0);
    expect_contains(o.err, "nope", "the unknown column");
    cli_out_free(&o);
    assert_int_equal(head_of("deletecli"), head + 1);
    int64_t n;
    char *got = read_at(&f, -1, &n);
    assert_int_equal(n, NROWS - 101);
    free(got);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scan_file),
        cmocka_unit_test(scan_moto),
        cmocka_unit_test(vectors_that_disagree),
        cmocka_unit_test(changes_report_deletes),
        cmocka_unit_test(delete_file),
        cmocka_unit_test(delete_moto),
        cmocka_unit_test(delete_cli),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
