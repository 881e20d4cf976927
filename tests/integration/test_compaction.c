/* Server-side compaction (contract §7.3) against real hoglaked servers and
 * PostgreSQL, with data written by libhoglake to file:// and to moto:
 *   - rows and row ids are the same before and after (DuckDB reading the
 *     files, and our scan), the output is sorted by the sort order, carries
 *     _hog_row_id and explicit_row_ids, the changefeed leaves it out, the
 *     ticket is settled and lineage counters do not move;
 *   - a column added since is null-filled, int -> long and float -> double
 *     promotions are applied;
 *   - appends racing compactions lose nothing: row ids still tile;
 *   - two servers compacting at once never rewrite the same files; a claim
 *     held elsewhere is respected;
 *   - a server dying before its commit leaves an undrained, unreferenced
 *     staging ticket and nothing else;
 *   - a bad batch is refused; a variant table is left alone;
 *   - files with deletion vectors (Puffin files written here with
 *     lake/puffin, registered with /commit) are compacted without their
 *     deleted rows, the others keeping their ids (DuckDB reading the
 *     sources minus the same positions, EXCEPT ALL both ways, and our
 *     scan); a group whose rows are all deleted ends without an output; a
 *     file mostly deleted is rewritten alone; a vector committed between
 *     plan and commit skips the group (dv_superseded) and the next pass
 *     applies it; a vector that disagrees with the catalog, is missing, a
 *     symbolic link, outside the data path or in another catalog's skips
 *     the group and changes nothing. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client_harness.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "hoglake/sys/table.h"
#include "lake/dv.h"
#include "lake/puffin.h"
#include "objstore/objstore.h"
#include "textio/colspec.h"
#include "util/buf.h"
#include "util/error.h"

static struct client_stack st;

static int setup(void **state)
{
    (void)state;
    client_stack_up(&st, "compaction");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    client_stack_down(&st);
    return 0;
}

/* ---- fixtures ---- */

struct fixture {
    hl_client *client;
    hl_catalog *catalog;
    hl_namespace *ns;
    hl_table *table;
    const char *name;
    int64_t cat, tid;
};

static void fixture_up(struct fixture *f, hl_client *c, const char *name, const char *spec,
                       const char *ops)
{
    memset(f, 0, sizeof *f);
    f->client = c;
    f->name = name;
    char data_path[512];
    client_stack_data_path(&st, c, name, data_path, sizeof data_path);
    struct error e;
    json_t *cols = colspec_parse_columns(spec, &e);
    if (!cols)
        fail_msg("colspec: %s", e.msg);
    char *cols_text = json_dumps(cols, JSON_COMPACT);
    json_decref(cols);
    struct hl_error err;
    test_check(hl_catalog_create(c, name, data_path, &f->catalog, &err), &err, "catalog create");
    test_check(hl_namespace_create(f->catalog, "ns", &f->ns, &err), &err, "namespace create");
    test_check(hl_table_create(f->ns, "t", cols_text, NULL, &f->table, &err), &err, "table create");
    free(cols_text);
    if (ops) {
        char *q = dq(ops);
        test_check(hl_table_alter(f->table, q, NULL, &err), &err, "alter");
        free(q);
    }
    f->cat = cat_id(name);
    f->tid = table_id_of(name, "ns", "t");
}

static void fixture_free(struct fixture *f)
{
    hl_table_free(f->table);
    hl_namespace_free(f->ns);
    hl_catalog_free(f->catalog);
}

/* One file of n rows: ids first_id.., k cycling through a scrambled order
 * (so a sort has work to do), v = id * 3, some nulls. */
static void append_rows(hl_table *t, const char *spec, int64_t first_id, int n)
{
    struct buf b = BUF_INIT;
    for (int i = 0; i < n; i++) {
        int64_t id = first_id + i;
        int key = (int)((id * 7919) % 97);
        if (id % 11 == 0)
            assert_int_equal(buf_printf(&b, "{\"id\":%lld,\"k\":null,\"v\":%lld}\n", (long long)id,
                                        (long long)(id * 3)),
                             0);
        else
            assert_int_equal(buf_printf(&b, "{\"id\":%lld,\"k\":\"k%02d\",\"v\":%lld}\n",
                                        (long long)id, key, (long long)(id * 3)),
                             0);
    }
    struct ArrowArrayStream s;
    test_rows_stream(spec, b.data, &s);
    buf_free(&b);
    struct hl_append_options o;
    hl_append_options_init(&o);
    struct hl_error err;
    test_check(hl_table_append(t, &s, &o, NULL, &err), &err, "append");
}

/* Appends JSON Lines rows of a column spec as one file, read at snapshot
 * read_snapshot (-1: none). */
static void append_text(hl_table *t, const char *colspec, const char *rows, int64_t read_snapshot)
{
    struct ArrowArrayStream s;
    test_rows_stream(colspec, rows, &s);
    struct hl_append_options o;
    hl_append_options_init(&o);
    o.read_snapshot = read_snapshot;
    struct hl_error err;
    test_check(hl_table_append(t, &s, &o, NULL, &err), &err, "append");
}

/* A POST without a body. */
static void post(struct http_result *r, const struct test_server *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void post(struct http_result *r, const struct test_server *s, const char *fmt, ...)
{
    char url[1024];
    int n = snprintf(url, sizeof url, "%s", s->base);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(url + n, sizeof url - (size_t)n, fmt, ap);
    va_end(ap);
    http_call(r, "POST", url, NULL, NULL, 0, NULL);
}

/* One compaction pass; the CompactionResult (caller decrefs). */
static json_t *compact(const struct test_server *s, const char *catalog, int batch)
{
    struct http_result r;
    post(&r, s, "/v1/catalogs/%s/maintenance/compact?batch=%d", catalog, batch);
    expect_status(&r, 200);
    json_t *o = json_incref(r.json);
    http_result_free(&r);
    static const char *const required[] = {"groups_compacted", "files_in",
                                           "files_out",        "bytes_in",
                                           "bytes_out",        "skipped_conflicts",
                                           "dv_superseded",    "unconvertible_schema",
                                           "invalid_data",     "heap_budget_exceeded",
                                           "failed_groups"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!json_is_integer(json_object_get(o, required[i])))
            fail_msg("CompactionResult lacks %s", required[i]);
    return o;
}

static int64_t live_files(const struct fixture *f)
{
    return sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld AND table_id = %lld"
                " AND end_snapshot IS NULL",
                (long long)f->cat, (long long)f->tid);
}

/* ---- DuckDB, the independent reader ---- */

static char *duckdb(const char *sql)
{
    return test_duckdb(HL_NODE, HL_INTEROP_DIR, st.warehouse, sql);
}

/* A live file of the table, as the catalog has it. */
struct live_file {
    int64_t id, rows, row_id_start;
    bool explicit_ids;
    char path[600];
};

/* The table's live files by id: the first max of them into out; returns
 * how many there are. */
static int list_live_files(const struct fixture *f, struct live_file *out, int max)
{
    char sql[400];
    snprintf(sql, sizeof sql,
             "SELECT data_file_id, record_count, row_id_start, explicit_row_ids, path"
             " FROM hog_data_file WHERE catalog_id = %lld AND table_id = %lld"
             " AND end_snapshot IS NULL ORDER BY data_file_id",
             (long long)f->cat, (long long)f->tid);
    PGresult *r = PQexec(st.pg, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    int n = PQntuples(r);
    for (int i = 0; i < n && i < max; i++) {
        out[i].id = strtoll(PQgetvalue(r, i, 0), NULL, 10);
        out[i].rows = strtoll(PQgetvalue(r, i, 1), NULL, 10);
        out[i].row_id_start = strtoll(PQgetvalue(r, i, 2), NULL, 10);
        out[i].explicit_ids = strcmp(PQgetvalue(r, i, 3), "t") == 0;
        snprintf(out[i].path, sizeof out[i].path, "%s", PQgetvalue(r, i, 4));
    }
    PQclear(r);
    return n;
}

/* The same, failing unless there are exactly n. */
static void live_inputs(const struct fixture *f, struct live_file *out, int n)
{
    assert_int_equal(list_live_files(f, out, n), n);
}

/* A SELECT over every live file of the table as DuckDB reads it (file://),
 * each row with its row id: _hog_row_id for explicit files, row_id_start +
 * position otherwise. `cols` are the table columns to select. */
static char *rows_with_ids(const struct fixture *f, const char *cols, const char *order)
{
    int n = list_live_files(f, NULL, 0);
    struct live_file *files = calloc((size_t)n + 1, sizeof *files);
    assert_non_null(files);
    assert_int_equal(list_live_files(f, files, n), n);
    struct buf q = BUF_INIT;
    assert_int_equal(buf_printf(&q, "SELECT * FROM ("), 0);
    for (int i = 0; i < n; i++) {
        const char *path = files[i].path + strlen("file://");
        if (files[i].explicit_ids)
            assert_int_equal(buf_printf(&q,
                                        "%sSELECT %s, _hog_row_id AS rid FROM read_parquet('%s')",
                                        i ? " UNION ALL " : "", cols, path),
                             0);
        else
            assert_int_equal(buf_printf(&q,
                                        "%sSELECT %s, file_row_number + %lld AS rid FROM"
                                        " read_parquet('%s', file_row_number = true)",
                                        i ? " UNION ALL " : "", cols,
                                        (long long)files[i].row_id_start, path),
                             0);
    }
    free(files);
    assert_int_equal(buf_printf(&q, ") ORDER BY %s", order), 0);
    char *out = duckdb(q.data);
    buf_free(&q);
    return out;
}

/* Rows and the sum of the first (long) column through our own scan, at
 * `snapshot`. */
static void scan_totals_at(hl_table *t, int64_t snapshot, int64_t *rows, int64_t *sum)
{
    struct ArrowArrayStream s;
    struct hl_error err;
    struct hl_at at = {.snapshot = snapshot};
    test_check(hl_table_scan(t, &at, &s, &err), &err, "scan");
    *rows = *sum = 0;
    for (;;) {
        struct ArrowArray b;
        if (s.get_next(&s, &b) != 0)
            fail_msg("scan: %s", s.get_last_error(&s));
        if (!b.release)
            break;
        /* The table's columns only: _hog_row_id is not one. */
        assert_int_equal(b.n_children, 3);
        const struct ArrowArray *c = b.children[0];
        const int64_t *v = c->buffers[1];
        for (int64_t i = 0; i < b.length; i++)
            *sum += v[c->offset + i];
        *rows += b.length;
        b.release(&b);
    }
    s.release(&s);
}

/* The same at the catalog's head. */
static void scan_totals(hl_table *t, const char *catalog, int64_t *rows, int64_t *sum)
{
    scan_totals_at(t, head_of(catalog), rows, sum);
}

static const char spec[] = "id:long!, k:string, v:long";

/* ---- deletion vectors ---- */

/* The positions a test deletes from a file: p with (p + seed) % every == 0
 * (every 0: none), and lo..hi (lo -1: none). The same as SQL over DuckDB's
 * file_row_number (deletes_sql). */
struct deletes {
    int every, seed;
    int64_t lo, hi;
};
static const struct deletes no_deletes = {0, 0, -1, -1};

static bool deletes_has(const struct deletes *d, int64_t p)
{
    return (d->every > 0 && (p + d->seed) % d->every == 0) ||
           (d->lo >= 0 && p >= d->lo && p <= d->hi);
}

static void deletes_sql(const struct deletes *d, char *out, size_t size)
{
    int n = snprintf(out, size, "(false");
    if (d->every > 0)
        n += snprintf(out + n, size - (size_t)n, " OR (file_row_number + %d) %% %d = 0", d->seed,
                      d->every);
    if (d->lo >= 0)
        n += snprintf(out + n, size - (size_t)n, " OR file_row_number BETWEEN %lld AND %lld",
                      (long long)d->lo, (long long)d->hi);
    snprintf(out + n, size - (size_t)n, ")");
}

static void deletes_dv(const struct deletes *d, int64_t rows, struct lake_dv *out)
{
    lake_dv_init(out);
    struct error e;
    for (uint64_t p = 0; p < (uint64_t)rows; p++)
        if (deletes_has(d, (int64_t)p))
            assert_int_equal(lake_dv_add(out, &p, 1, &e), 0);
}

/* One vector to register: its Puffin file, size and delete_count. */
struct dv_ref {
    char uri[700];
    int64_t size, count;
};

/* The object store the table's client writes through. */
static struct objstore *table_store(const struct fixture *f)
{
    struct objstore *store;
    struct hl_error err;
    test_check(hl_table_object_store(f->table, &store, &err), &err, "object store");
    return store;
}

/* Writes a Puffin file, at `name` under the catalog's data path, holding
 * the vector of del over `file` (its blob naming `named`, normally the
 * file's own path); fills dv but for its count. */
static void put_puffin(const struct fixture *f, const char *name, const struct live_file *file,
                       const struct deletes *del, const char *named, struct dv_ref *dv)
{
    struct lake_dv positions;
    deletes_dv(del, file->rows, &positions);
    struct lake_puffin_dv_in in = {named, &positions};
    struct lake_puffin_blob_pos pos;
    struct buf puffin = BUF_INIT;
    struct error e;
    assert_int_equal(lake_puffin_write_dvs(&in, 1, "test_compaction", &puffin, &pos, &e), 0);
    lake_dv_free(&positions);
    char data_path[512];
    client_stack_data_path(&st, f->client, f->name, data_path, sizeof data_path);
    snprintf(dv->uri, sizeof dv->uri, "%s/%s", data_path, name);
    struct hl_error err;
    if (objstore_put(table_store(f), dv->uri, puffin.data, puffin.len, 0, &err) != 0)
        fail_msg("put %s: %s", dv->uri, err.message);
    dv->size = (int64_t)puffin.len;
    buf_free(&puffin);
}

/* Registers dvs[i] as the vector of files[i], for each of the n files, in
 * one commit read at the head. Returns the commit's status. */
static long commit_puffins(const struct fixture *f, const struct dv_ref *dvs,
                           const struct live_file *files, size_t n)
{
    int64_t read_snapshot = head_of(f->name);
    json_t *targets = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(targets,
                              jpack("{s:I,s:s,s:I,s:I}", "data_file_id", (json_int_t)files[i].id,
                                    "path", dvs[i].uri, "delete_count", (json_int_t)dvs[i].count,
                                    "file_size_bytes", (json_int_t)dvs[i].size));
    json_t *body = jpack("{s:I,s:[{s:s,s:s,s:o}]}", "read_snapshot", (json_int_t)read_snapshot,
                         "deletes", "namespace", "ns", "table", "t", "files", targets);
    struct http_result r;
    api_send(&r, &st.srv, "POST", body, "/v1/catalogs/%s/commit", f->name); /* takes body */
    long code = r.status;
    if (code != 200)
        print_message("deletes commit: %ld %s\n", code, r.body);
    http_result_free(&r);
    return code;
}

/* Writes the vectors of dels[i] over files[i], each in its own Puffin file
 * (`prefix`-i.puffin: the server takes a path once per commit), and
 * registers them in one commit; returns how many rows they delete. */
static int64_t commit_deletes(const struct fixture *f, const char *prefix,
                              const struct live_file *files, const struct deletes *dels, size_t n)
{
    struct dv_ref dvs[8];
    int64_t total = 0;
    assert_true(n <= 8);
    for (size_t i = 0; i < n; i++) {
        char name[200];
        snprintf(name, sizeof name, "%s-%zu.puffin", prefix, i);
        put_puffin(f, name, &files[i], &dels[i], files[i].path, &dvs[i]);
        dvs[i].count = 0;
        for (int64_t p = 0; p < files[i].rows; p++)
            dvs[i].count += deletes_has(&dels[i], p);
        total += dvs[i].count;
    }
    assert_int_equal(commit_puffins(f, dvs, files, n), 200);
    return total;
}

/* A path DuckDB can read for a table's object: the file itself on
 * file://, else a copy in the warehouse. */
static void duckdb_path(const struct fixture *f, const char *uri, char *out, size_t size)
{
    if (strncmp(uri, "file://", 7) == 0) {
        snprintf(out, size, "%s", uri + 7);
        return;
    }
    struct buf object = BUF_INIT;
    struct hl_error err;
    if (objstore_get(table_store(f), uri, 0, UINT64_MAX, &object, &err) != 0)
        fail_msg("fetching %s: %s", uri, err.message);
    snprintf(out, size, "%s/local-%s", st.warehouse, strrchr(uri, '/') + 1);
    FILE *copy = fopen(out, "wb");
    assert_true(copy && fwrite(object.data, 1, object.len, copy) == object.len);
    assert_int_equal(fclose(copy), 0);
    buf_free(&object);
}

/* DuckDB's reading of files[0..n) without the rows dels[i] deletes, each
 * row with its id (_hog_row_id in a file with explicit ids, else
 * row_id_start + position), as one SELECT into q. */
static void sources_sql(const struct fixture *f, const struct live_file *files,
                        const struct deletes *dels, int n, struct buf *q)
{
    for (int i = 0; i < n; i++) {
        char local[700], where[300];
        duckdb_path(f, files[i].path, local, sizeof local);
        deletes_sql(&dels[i], where, sizeof where);
        char rid[100] = "_hog_row_id";
        if (!files[i].explicit_ids)
            snprintf(rid, sizeof rid, "file_row_number + %lld", (long long)files[i].row_id_start);
        assert_int_equal(buf_printf(q,
                                    "%sSELECT id, k, v, %s AS rid"
                                    " FROM read_parquet('%s', file_row_number = true)"
                                    " WHERE NOT %s",
                                    i ? " UNION ALL " : "", rid, local, where),
                         0);
    }
}

/* The rows of the table's one live file (a compaction output) with their
 * _hog_row_id, in DuckDB, are exactly `want` (a SELECT of the same
 * columns), as multisets both ways, n rows each. */
static void expect_output_rows(const struct fixture *f, const char *want, int64_t n)
{
    struct live_file out;
    live_inputs(f, &out, 1);
    char local[700];
    duckdb_path(f, out.path, local, sizeof local);
    struct buf q = BUF_INIT;
    assert_int_equal(buf_printf(&q,
                                "WITH w AS (%s), g AS (SELECT id, k, v, _hog_row_id AS rid"
                                " FROM read_parquet('%s')) SELECT (SELECT count(*) FROM w),"
                                " (SELECT count(*) FROM g), (SELECT count(*) FROM"
                                " (SELECT * FROM w EXCEPT ALL SELECT * FROM g)),"
                                " (SELECT count(*) FROM (SELECT * FROM g EXCEPT ALL"
                                " SELECT * FROM w))",
                                want, local),
                     0);
    char *got = duckdb(q.data);
    buf_free(&q);
    char expect[100];
    snprintf(expect, sizeof expect, "%lld\t%lld\t0\t0\n", (long long)n, (long long)n);
    assert_string_equal(got, expect);
    free(got);
}

static int64_t live_dvs(const struct fixture *f)
{
    return sqli("SELECT count(*) FROM hog_delete_file WHERE catalog_id = %lld AND table_id = %lld"
                " AND end_snapshot IS NULL",
                (long long)f->cat, (long long)f->tid);
}

/* ---- tests ---- */

static void compacts_sorted_with_ids(hl_client *c, const char *name)
{
    struct fixture f;
    fixture_up(&f, c, name, spec,
               "[{'op':'set_sort_order','sort_fields':[{'source_field_id':2,"
               "'direction':'asc','null_order':'nulls_last'},{'source_field_id':1,"
               "'direction':'desc','null_order':'nulls_first'}]}]");
    for (int i = 0; i < 6; i++)
        append_rows(f.table, spec, i * 100, 40 + i);
    int64_t next_row_id = sqli("SELECT next_row_id FROM hog_table_stats WHERE catalog_id = %lld"
                               " AND table_id = %lld",
                               (long long)f.cat, (long long)f.tid);
    int64_t rows_before, sum_before;
    scan_totals(f.table, f.name, &rows_before, &sum_before);
    char *before = c == st.file_client ? rows_with_ids(&f, "id, k, v", "rid") : NULL;
    int64_t head_before = head_of(name);

    json_t *res = compact(&st.srv, name, 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    assert_int_equal(jint(res, "files_in"), 6);
    assert_int_equal(jint(res, "files_out"), 1);
    assert_true(jint(res, "bytes_out") > 0);
    json_decref(res);
    assert_int_equal(live_files(&f), 1);
    int64_t head = head_of(name);
    assert_int_equal(head, head_before + 1);
    assert_int_equal(change_rows(name, head, "table_compacted", f.tid), 1);
    assert_int_equal(change_rows(name, head, NULL, 0), 1);
    /* The output: explicit ids from the smallest, all rows, provided stats
     * (none for the row-id column), the ticket settled. */
    expect_sql("true|0|255|provided|0",
               "SELECT explicit_row_ids::text || '|' || row_id_start || '|' || record_count"
               " || '|' || stats_state || '|' || (SELECT count(*) FROM hog_file_column_stats s"
               "  WHERE s.catalog_id = d.catalog_id AND s.data_file_id = d.data_file_id"
               "  AND s.field_id = 2147483646)"
               " FROM hog_data_file d WHERE catalog_id = %lld AND table_id = %lld"
               " AND end_snapshot IS NULL",
               (long long)f.cat, (long long)f.tid);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_column_stats s JOIN hog_data_file d"
                          " USING (catalog_id, data_file_id) WHERE d.catalog_id = %lld"
                          " AND d.table_id = %lld AND d.end_snapshot IS NULL",
                          (long long)f.cat, (long long)f.tid),
                     3);
    expect_sql("registered",
               "SELECT drained_outcome FROM hog_file_removal r JOIN hog_data_file d"
               " USING (catalog_id, path) WHERE d.catalog_id = %lld"
               " AND d.end_snapshot IS NULL AND r.reason = 'compaction_staging'",
               (long long)f.cat);
    /* Lineage counters do not move. */
    assert_int_equal(sqli("SELECT next_row_id FROM hog_table_stats WHERE catalog_id = %lld"
                          " AND table_id = %lld",
                          (long long)f.cat, (long long)f.tid),
                     next_row_id);
    int64_t rows_after, sum_after;
    scan_totals(f.table, f.name, &rows_after, &sum_after);
    assert_int_equal(rows_before, 255);
    assert_int_equal(rows_after, rows_before);
    assert_int_equal(sum_after, sum_before);
    if (before) {
        char *after = rows_with_ids(&f, "id, k, v", "rid");
        assert_string_equal(after, before);
        free(after);
        free(before);
        /* File order is the sort order: k ascending nulls last, then id
         * descending. */
        char sql[300];
        snprintf(sql, sizeof sql,
                 "SELECT substr(path, 8) FROM hog_data_file WHERE catalog_id = %lld"
                 " AND end_snapshot IS NULL",
                 (long long)f.cat);
        PGresult *r = PQexec(st.pg, sql);
        char *path = strdup(PQgetvalue(r, 0, 0));
        PQclear(r);
        char q1[700], q2[700];
        snprintf(q1, sizeof q1, "SELECT k, id FROM read_parquet('%s')", path);
        snprintf(q2, sizeof q2,
                 "SELECT k, id FROM read_parquet('%s') ORDER BY k ASC NULLS LAST, id DESC", path);
        char *as_written = duckdb(q1), *sorted = duckdb(q2);
        assert_string_equal(as_written, sorted);
        free(as_written);
        free(sorted);
        free(path);
    }
    /* The changefeed leaves the output out and still shows the inputs as
     * appended where they were. */
    char *changes;
    struct hl_error err;
    test_check(hl_table_changes(f.table, 0, -1, &changes, &err), &err, "changes");
    json_t *plan = jparse(changes);
    free(changes);
    assert_int_equal(json_array_size(json_object_get(plan, "files")), 6);
    json_decref(plan);
    /* files reports explicit_row_ids and an open row-id span. */
    json_t *files = api_get_json(&st.srv, "/v1/catalogs/%s/namespaces/ns/tables/t/files", name);
    json_t *df = json_array_get(json_is_array(files) ? files : json_object_get(files, "files"), 0);
    assert_true(json_is_true(json_object_get(df, "explicit_row_ids")));
    json_decref(files);
    /* A deletion vector read before the compaction, aimed at a rewritten
     * input, is a conflict (contract 4.5). */
    char data_path[512];
    client_stack_data_path(&st, c, name, data_path, sizeof data_path);
    int64_t input = sqli("SELECT min(data_file_id) FROM hog_data_file WHERE catalog_id = %lld",
                         (long long)f.cat);
    char body[1200];
    snprintf(body, sizeof body,
             "{'read_snapshot':%lld,'deletes':[{'namespace':'ns','table':'t','files':"
             "[{'data_file_id':%lld,'path':'%s/late.puffin','delete_count':1,"
             "'file_size_bytes':10}]}]}",
             (long long)head_before, (long long)input, data_path);
    char *q = dq(body);
    struct http_result hr;
    api_send_text(&hr, &st.srv, "POST", q, "/v1/catalogs/%s/commit", name);
    expect_status(&hr, 409);
    http_result_free(&hr);
    free(q);
    json_t *scan = api_get_json(&st.srv, "/v1/catalogs/%s/namespaces/ns/tables/t/scan", name);
    const json_t *sf =
        json_array_get(json_is_array(scan) ? scan : json_object_get(scan, "files"), 0);
    assert_true(
        json_is_true(json_object_get(json_object_get(sf, "data_file"), "explicit_row_ids")));
    json_decref(scan);
    struct http_result m;
    api_get(&m, &st.srv, "/metrics");
    assert_non_null(strstr(m.body, "hoglake_compaction_groups_total "));
    assert_non_null(strstr(m.body, "hoglake_compaction_files_rewritten_total "));
    http_result_free(&m);
    /* Nothing left to compact. */
    res = compact(&st.srv, name, 5);
    assert_int_equal(jint(res, "groups_compacted"), 0);
    json_decref(res);
    fixture_free(&f);
}

/* ---- compaction with deletion vectors ---- */

/* A fresh table `name` on file:// with n files of 10 rows, listed in
 * files. */
static void fixture_files(struct fixture *f, const char *name, struct live_file *files, int n)
{
    fixture_up(f, st.file_client, name, spec, NULL);
    for (int i = 0; i < n; i++)
        append_rows(f->table, spec, i * 10, 10);
    live_inputs(f, files, n);
}

/* The smallest id and the count of the rows dels leave in files. */
static void survivors(const struct live_file *files, const struct deletes *dels, int n,
                      int64_t *min_id, int64_t *count)
{
    *min_id = INT64_MAX;
    *count = 0;
    for (int i = 0; i < n; i++)
        for (int64_t p = 0; p < files[i].rows; p++)
            if (!deletes_has(&dels[i], p)) {
                (*count)++;
                if (files[i].row_id_start + p < *min_id)
                    *min_id = files[i].row_id_start + p;
            }
}

/* Six files, vectors on three of them (two in one Puffin file, one
 * superseded before the pass), the table sorted: one output without the
 * deleted rows, the others with their own ids. */
static void drops_deleted_rows(hl_client *c, const char *name)
{
    struct fixture f;
    fixture_up(&f, c, name, spec,
               "[{'op':'set_sort_order','sort_fields':[{'source_field_id':2,"
               "'direction':'asc','null_order':'nulls_last'}]}]");
    for (int i = 0; i < 6; i++)
        append_rows(f.table, spec, i * 100, 40 + i);
    struct live_file files[6];
    live_inputs(&f, files, 6);
    struct deletes dels[6];
    for (int i = 0; i < 6; i++)
        dels[i] = no_deletes;
    /* File 0 loses its first row: the smallest id left is 1. */
    dels[0] = (struct deletes){3, 0, -1, -1};
    dels[1] = (struct deletes){4, 1, 10, 20};
    commit_deletes(&f, "dv-a", files, dels, 2);
    /* File 1's vector superseded by a larger one; file 3 mostly gone. */
    dels[1].hi = 25;
    commit_deletes(&f, "dv-b", &files[1], &dels[1], 1);
    dels[3] = (struct deletes){0, 0, 0, 30};
    commit_deletes(&f, "dv-c", &files[3], &dels[3], 1);
    int64_t min_id, kept, total = 0;
    survivors(files, dels, 6, &min_id, &kept);
    for (int i = 0; i < 6; i++)
        total += files[i].rows;
    assert_int_equal(min_id, 1);
    struct buf want = BUF_INIT;
    sources_sql(&f, files, dels, 6, &want);
    int64_t rows_before, sum_before;
    scan_totals(f.table, f.name, &rows_before, &sum_before);
    assert_int_equal(rows_before, kept);
    int64_t next_row_id = sqli("SELECT next_row_id FROM hog_table_stats WHERE catalog_id = %lld"
                               " AND table_id = %lld",
                               (long long)f.cat, (long long)f.tid);

    json_t *res = compact(&st.srv, name, 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    assert_int_equal(jint(res, "files_in"), 6);
    assert_int_equal(jint(res, "files_out"), 1);
    assert_int_equal(jint(res, "candidates_with_dv"), 3);
    assert_int_equal(jint(res, "dvs_applied"), 3);
    assert_int_equal(jint(res, "rows_dropped"), total - kept);
    json_decref(res);
    /* The output: the rows left, from the smallest id left; the inputs'
     * vectors ended with them. */
    int64_t head = head_of(name);
    expect_sql("1|1|true",
               "SELECT count(*) || '|' || min(row_id_start) || '|' || bool_and(explicit_row_ids)"
               " FROM hog_data_file WHERE catalog_id = %lld AND table_id = %lld"
               " AND end_snapshot IS NULL",
               (long long)f.cat, (long long)f.tid);
    assert_int_equal(sqli("SELECT record_count FROM hog_data_file WHERE catalog_id = %lld"
                          " AND table_id = %lld AND end_snapshot IS NULL",
                          (long long)f.cat, (long long)f.tid),
                     kept);
    assert_int_equal(live_dvs(&f), 0);
    assert_int_equal(sqli("SELECT count(*) FROM hog_delete_file WHERE catalog_id = %lld"
                          " AND end_snapshot = %lld",
                          (long long)f.cat, (long long)head),
                     3);
    assert_int_equal(change_rows(name, head, "table_compacted", f.tid), 1);
    /* DuckDB: the sources minus the same positions are the output's rows,
     * each with its own id. */
    expect_output_rows(&f, want.data, kept);
    buf_free(&want);
    int64_t rows_after, sum_after;
    scan_totals(f.table, f.name, &rows_after, &sum_after);
    assert_int_equal(rows_after, rows_before);
    assert_int_equal(sum_after, sum_before);
    assert_int_equal(sqli("SELECT next_row_id FROM hog_table_stats WHERE catalog_id = %lld"
                          " AND table_id = %lld",
                          (long long)f.cat, (long long)f.tid),
                     next_row_id);
    /* Before the compaction, the inputs and their vectors as they were. */
    int64_t rows_then, sum_then;
    scan_totals_at(f.table, head - 1, &rows_then, &sum_then);
    assert_int_equal(rows_then, kept);
    assert_int_equal(sum_then, sum_before);

    /* Again over the output (explicit ids) with a vector of its own and
     * four new files: every row left keeps its id. */
    struct live_file second[5];
    for (int i = 0; i < 4; i++)
        append_rows(f.table, spec, 1000 + i * 100, 30);
    live_inputs(&f, second, 5);
    assert_true(second[0].explicit_ids);
    struct deletes again[5] = {{2, 1, -1, -1}, {0, 0, 5, 9}};
    for (int i = 2; i < 5; i++)
        again[i] = no_deletes;
    int64_t dropped = commit_deletes(&f, "dv-d", second, again, 2);
    struct buf want2 = BUF_INIT;
    sources_sql(&f, second, again, 5, &want2);
    res = compact(&st.srv, name, 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    assert_int_equal(jint(res, "files_in"), 5);
    assert_int_equal(jint(res, "rows_dropped"), dropped);
    json_decref(res);
    expect_output_rows(&f, want2.data, kept + 4 * 30 - dropped);
    buf_free(&want2);
    fixture_free(&f);
}

static void file_store(void **state)
{
    (void)state;
    compacts_sorted_with_ids(st.file_client, "cfile");
    drops_deleted_rows(st.file_client, "cdvfile");
}

static void moto_store(void **state)
{
    (void)state;
    compacts_sorted_with_ids(st.moto_client, "cmoto");
    drops_deleted_rows(st.moto_client, "cdvmoto");
}

/* Files written before an added column, before promotions and while `id`
 * was still required. */
static void schema_evolution(void **state)
{
    (void)state;
    const char *old_spec = "id:int!, k:string, f:float";
    struct fixture f;
    fixture_up(&f, st.file_client, "cevolve", old_spec, NULL);
    for (int i = 0; i < 5; i++) {
        char rows[256];
        snprintf(rows, sizeof rows,
                 "{\"id\":%d,\"k\":\"a\",\"f\":1.5}\n{\"id\":%d,\"k\":null,\"f\":null}\n", i * 2,
                 i * 2 + 1);
        struct ArrowArrayStream s;
        test_rows_stream(old_spec, rows, &s);
        struct hl_append_options o;
        hl_append_options_init(&o);
        struct hl_error err;
        test_check(hl_table_append(f.table, &s, &o, NULL, &err), &err, "append");
    }
    char *ops = dq("[{'op':'add_column','column':{'name':'extra','type':'string','nullable':true}},"
                   "{'op':'promote_column','name':'id','to':'long'},"
                   "{'op':'promote_column','name':'f','to':'double'},"
                   "{'op':'drop_not_null','name':'id'}]");
    struct hl_error err;
    test_check(hl_table_alter(f.table, ops, NULL, &err), &err, "alter");
    free(ops);
    json_t *res = compact(&st.srv, "cevolve", 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    assert_int_equal(jint(res, "unconvertible_schema"), 0);
    json_decref(res);
    char sql[400];
    snprintf(sql, sizeof sql,
             "SELECT substr(path, 8) FROM hog_data_file WHERE catalog_id = %lld"
             " AND end_snapshot IS NULL",
             (long long)f.cat);
    PGresult *r = PQexec(st.pg, sql);
    char path[600], q[900];
    snprintf(path, sizeof path, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    snprintf(q, sizeof q,
             "SELECT typeof(id), typeof(f), count(*), count(extra), sum(id), sum(f),"
             " min(_hog_row_id), max(_hog_row_id) FROM read_parquet('%s') GROUP BY ALL",
             path);
    char *got = duckdb(q);
    assert_string_equal(got, "BIGINT\tDOUBLE\t10\t0\t45\t7.5\t0\t9\n");
    free(got);
    /* The rewritten file follows the relaxed schema. */
    snprintf(q, sizeof q, "SELECT repetition_type FROM parquet_schema('%s') WHERE name = 'id'",
             path);
    got = duckdb(q);
    assert_string_equal(got, "OPTIONAL\n");
    free(got);
    /* Unsorted: the ordering bounds are the row-id span, open above. */
    json_t *files = api_get_json(&st.srv, "/v1/catalogs/cevolve/namespaces/ns/tables/t/files");
    const json_t *df =
        json_array_get(json_is_array(files) ? files : json_object_get(files, "files"), 0);
    const json_t *ob = json_object_get(df, "ordering_bounds");
    assert_int_equal(jint(ob, "lower_bound"), 0);
    assert_true(json_is_null(json_object_get(ob, "upper_bound")));
    json_decref(files);
    fixture_free(&f);
}

/* ---- appends racing compactions ---- */

struct appender {
    hl_table *table;
    int files;
};

static void *append_loop(void *arg)
{
    struct appender *a = arg;
    for (int i = 0; i < a->files; i++)
        append_rows(a->table, spec, 100000 + i * 10, 10);
    return NULL;
}

/* Every live row's id, through DuckDB: dense from 0 and unique. */
static void expect_tiling(const struct fixture *f, int64_t rows)
{
    char *out = rows_with_ids(f, "id", "rid");
    int64_t n = 0, expect = 0;
    for (const char *line = out; *line; n++) {
        const char *tab = strchr(line, '\t');
        assert_non_null(tab);
        assert_int_equal(strtoll(tab + 1, NULL, 10), expect++);
        line = strchr(line, '\n') + 1;
    }
    free(out);
    assert_int_equal(n, rows);
    assert_int_equal(sqli("SELECT next_row_id FROM hog_table_stats WHERE catalog_id = %lld AND"
                          " table_id = %lld",
                          (long long)f->cat, (long long)f->tid),
                     rows);
}

static void racing_appends(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "crace", spec, NULL);
    for (int i = 0; i < 10; i++)
        append_rows(f.table, spec, i * 10, 10);
    struct hl_error err;
    hl_table *t2;
    test_check(hl_table_open(f.ns, "t", &t2, &err), &err, "open");
    struct appender a = {t2, 25};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, append_loop, &a), 0);
    int64_t compacted = 0;
    for (int i = 0; i < 8; i++) {
        json_t *res = compact(i % 2 ? &st.srv2 : &st.srv, "crace", 3);
        compacted += jint(res, "groups_compacted");
        json_decref(res);
    }
    pthread_join(th, NULL);
    hl_table_free(t2);
    assert_true(compacted >= 1);
    int64_t rows, sum;
    scan_totals(f.table, f.name, &rows, &sum);
    assert_int_equal(rows, 100 + 250);
    expect_tiling(&f, 350);
    fixture_free(&f);
}

/* ---- two servers ---- */

struct compactor {
    const struct test_server *s;
    int64_t groups, files_in;
};

static void *compact_loop(void *arg)
{
    struct compactor *c = arg;
    for (int i = 0; i < 4; i++) {
        json_t *res = compact(c->s, "ctwo", 2);
        c->groups += jint(res, "groups_compacted");
        c->files_in += jint(res, "files_in");
        json_decref(res);
    }
    return NULL;
}

static void two_servers(void **state)
{
    (void)state;
    const char *pspec = "id:long!, k:string, v:long, p:int";
    struct fixture f;
    fixture_up(&f, st.file_client, "ctwo", pspec,
               "[{'op':'set_partition_spec','fields':[{'source_field_id':4,"
               "'transform':'identity'}]}]");
    /* Four partitions of six files each: four groups. */
    for (int part = 0; part < 4; part++)
        for (int i = 0; i < 6; i++) {
            char rows[400];
            int64_t id = part * 1000 + i * 2;
            snprintf(rows, sizeof rows,
                     "{\"id\":%lld,\"k\":\"x\",\"v\":1,\"p\":%d}\n"
                     "{\"id\":%lld,\"k\":\"y\",\"v\":2,\"p\":%d}\n",
                     (long long)id, part, (long long)id + 1, part);
            append_text(f.table, pspec, rows, head_of("ctwo"));
        }
    assert_int_equal(live_files(&f), 24);
    struct compactor a = {&st.srv, 0, 0}, b = {&st.srv2, 0, 0};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, compact_loop, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, compact_loop, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    /* Each group once: 24 files in, 4 out, in four snapshots. */
    assert_int_equal(a.groups + b.groups, 4);
    assert_int_equal(a.files_in + b.files_in, 24);
    assert_int_equal(live_files(&f), 4);
    assert_int_equal(sqli("SELECT count(*) FROM hog_snapshot_change WHERE catalog_id = %lld"
                          " AND kind = 'table_compacted'",
                          (long long)f.cat),
                     4);
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld"
                          " AND end_snapshot IS NOT NULL",
                          (long long)f.cat),
                     24);
    /* Partition values carried over, with their table. */
    assert_int_equal(sqli("SELECT count(DISTINCT v.value) FROM hog_file_partition_value v"
                          " JOIN hog_data_file d USING (catalog_id, data_file_id, table_id)"
                          " WHERE d.catalog_id = %lld AND d.end_snapshot IS NULL",
                          (long long)f.cat),
                     4);
    expect_tiling(&f, 48);
    fixture_free(&f);
}

/* A claim another server holds keeps its files out of every plan. */
static void claimed_elsewhere(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "cclaim", spec, NULL);
    for (int i = 0; i < 5; i++)
        append_rows(f.table, spec, i * 10, 10);
    sql_exec("INSERT INTO hog_compaction_claim (catalog_id, table_id, group_key, input_file_ids,"
             " claimant, expires_at) SELECT %lld, %lld, 'other', array_agg(data_file_id),"
             " 'another-server', now() + interval '1 hour' FROM hog_data_file"
             " WHERE catalog_id = %lld",
             (long long)f.cat, (long long)f.tid, (long long)f.cat);
    json_t *res = compact(&st.srv, "cclaim", 1);
    assert_int_equal(jint(res, "groups_compacted"), 0);
    assert_int_equal(jint(res, "candidates_claimed"), 5);
    assert_int_equal(jint(res, "left_claimed_files"), 5);
    json_decref(res);
    /* Once it expires, the files are fair game. */
    sql_exec("UPDATE hog_compaction_claim SET expires_at = now() - interval '1 second'"
             " WHERE catalog_id = %lld",
             (long long)f.cat);
    res = compact(&st.srv, "cclaim", 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    json_decref(res);
    fixture_free(&f);
}

/* A server that dies between its upload and its commit. */
static void crash_before_commit(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "ccrash", spec, NULL);
    for (int i = 0; i < 5; i++)
        append_rows(f.table, spec, i * 10, 10);
    struct test_server dying;
    setenv("HOGLAKE_FAILPOINTS", "compaction-crash-before-commit", 1);
    test_server_start(&dying, &st.db, NULL);
    unsetenv("HOGLAKE_FAILPOINTS");
    struct http_result r;
    post(&r, &dying, "/v1/catalogs/ccrash/maintenance/compact");
    expect_status(&r, 500);
    http_result_free(&r);
    test_server_stop(&dying);
    int64_t head = head_of("ccrash");
    /* The inputs are untouched, the ticket undrained, its object there and
     * referenced by no file row: cleanup's to delete. */
    assert_int_equal(live_files(&f), 5);
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal r WHERE r.catalog_id = %lld"
                          " AND r.reason = 'compaction_staging' AND r.drained_at IS NULL"
                          " AND NOT EXISTS (SELECT 1 FROM hog_data_file d"
                          "  WHERE d.catalog_id = r.catalog_id AND d.path = r.path)",
                          (long long)f.cat),
                     1);
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT substr(path, 8) FROM hog_file_removal WHERE catalog_id = %lld"
             " AND reason = 'compaction_staging'",
             (long long)f.cat);
    PGresult *pr = PQexec(st.pg, sql);
    struct stat sb;
    assert_int_equal(stat(PQgetvalue(pr, 0, 0), &sb), 0);
    PQclear(pr);
    /* Its claim still holds the files for everyone else. */
    json_t *res = compact(&st.srv, "ccrash", 1);
    assert_int_equal(jint(res, "groups_compacted"), 0);
    assert_int_equal(jint(res, "candidates_claimed"), 5);
    assert_int_equal(jint(res, "left_claimed_files"), 5);
    json_decref(res);
    assert_int_equal(head_of("ccrash"), head);
    /* The run is in the ledger as failed. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_maintenance_run WHERE catalog_id = %lld"
                          " AND task = 'compaction' AND status = 'failed'",
                          (long long)f.cat),
                     1);
    fixture_free(&f);
}

static void bad_batch(void **state)
{
    (void)state;
    make_catalog(&st.srv, "cbatch");
    struct http_result r;
    post(&r, &st.srv, "/v1/catalogs/cbatch/maintenance/compact?batch=0");
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    post(&r, &st.srv, "/v1/catalogs/cbatch/maintenance/compact?batch=1001");
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    post(&r, &st.srv, "/v1/catalogs/cbatch/maintenance/compact?batch=x");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    post(&r, &st.srv, "/v1/catalogs/nosuch/maintenance/compact");
    expect_error(&r, 404, "not_found");
    http_result_free(&r);
    post(&r, &st.srv, "/v1/catalogs/cbatch/maintenance/compact?bogus=1");
    expect_error(&r, 400, "bad_request");
    http_result_free(&r);
    /* Manual runs land in the ledger as compaction runs. */
    json_t *res = compact(&st.srv, "cbatch", 1);
    json_decref(res);
    json_t *runs = api_get_json(&st.srv, "/v1/catalogs/cbatch/maintenance/runs?task=compaction");
    assert_int_equal(json_array_size(json_object_get(runs, "runs")), 1);
    json_decref(runs);
}

/* `hoglake maintenance compact` drives the endpoint. */
static void cli_verb(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "ccli", spec, NULL);
    for (int i = 0; i < 5; i++)
        append_rows(f.table, spec, i * 10, 10);
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, st.srv.base, "/tmp", "maintenance compact ccli --batch 0");
    assert_int_equal(o.code, 2);
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, st.srv.base, "/tmp", "maintenance compact nosuch");
    assert_int_equal(o.code, 3);
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, st.srv.base, "/tmp", "maintenance compact ccli --batch 2");
    assert_int_equal(o.code, 0);
    assert_non_null(strstr(o.out, "groups compacted     1\n"));
    assert_non_null(strstr(o.out, "files                5 in, 1 out\n"));
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, st.srv.base, "/tmp", "--json maintenance compact ccli");
    assert_int_equal(o.code, 0);
    json_t *r = jparse(o.out);
    assert_int_equal(jint(r, "groups_compacted"), 0);
    json_decref(r);
    cli_out_free(&o);
    assert_int_equal(live_files(&f), 1);
    fixture_free(&f);
}

/* A variant table compacts: every value reads the same before and after
 * (DuckDB reading the files), the declared column written shredded. */
static void variant_table(void **state)
{
    (void)state;
    struct fixture v;
    fixture_up(&v, st.file_client, "cvariant", spec,
               "[{'op':'add_column','column':{'name':'doc','type':'variant','nullable':true}},"
               "{'op':'add_column','column':{'name':'props','type':'variant','nullable':true,"
               "'type_params':{'shredding':{'type':'object','fields':["
               "{'name':'a','type':'int64'},{'name':'s','type':'string'},"
               "{'name':'d','type':'decimal8','precision':18,'scale':2},"
               "{'name':'t','type':'timestamptz_ns'},{'name':'l','type':'array','element':"
               "{'type':'string'}}]}}}}]");
    const char *vspec = "id:long!, k:string, v:long, doc:variant, props:variant";
    for (int i = 0; i < 5; i++) {
        struct buf b = BUF_INIT;
        for (int j = 0; j < 10; j++) {
            int id = i * 10 + j;
            buf_printf(&b,
                       "{\"id\":%d,\"k\":\"k%d\",\"v\":%d,\"doc\":{\"n\":%d,\"l\":[%d,\"x\"]},"
                       "\"props\":{\"a\":%d,\"s\":\"s%d\",\"z\":%s}}\n",
                       id, id, id, id, id, id * 3, id, id % 2 ? "true" : "null");
        }
        struct ArrowArrayStream s;
        test_rows_stream(vspec, b.data, &s);
        buf_free(&b);
        struct hl_error err;
        test_check(hl_table_append(v.table, &s, NULL, NULL, &err), &err, "append");
    }
    /* A sixth file from Variant bytes: {"d": 12.34} as a decimal8, which
     * fills d's INT64 DECIMAL(18, 2) leaf (JSON text never does). */
    struct buf b = BUF_INIT;
    for (int j = 0; j < 5; j++)
        buf_printf(&b,
                   "{\"id\":%d,\"k\":\"k\",\"v\":0,\"props\":{\"metadata\":\"EQEAAWQ=\","
                   "\"value\":\"AgEAAAokAtIEAAAAAAAA\"}}\n",
                   50 + j);
    struct ArrowArrayStream s;
    test_rows_stream("id:long!, k:string, v:long, props:struct<metadata:binary, value:binary>",
                     b.data, &s);
    buf_free(&b);
    struct hl_error err;
    test_check(hl_table_append(v.table, &s, NULL, NULL, &err), &err, "append");
    const char *cols = "id, doc::JSON AS doc, props::JSON AS props";
    char *before = rows_with_ids(&v, cols, "rid");
    json_t *res = compact(&st.srv, "cvariant", 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    /* Every input holds both columns as they are written: their groups
     * are carried through, nothing is decoded or shredded again. */
    assert_int_equal(jint(res, "variant_columns_carried"), 2);
    assert_int_equal(jint(res, "variant_columns_reencoded"), 0);
    json_decref(res);
    assert_int_equal(live_files(&v), 1);
    char *after = rows_with_ids(&v, cols, "rid");
    if (strcmp(before, after) != 0)
        fail_msg("compaction changed the values:\n--- before\n%s--- after\n%s", before, after);
    assert_non_null(strstr(after, "{\"a\":21,\"s\":\"s7\",\"z\":true}"));
    assert_non_null(strstr(after, "52\tnull\t{\"d\":12.34}")); /* DuckDB: NULL doc as null */
    free(before);
    free(after);
    struct live_file out;
    live_inputs(&v, &out, 1);
    char sql[900];
    snprintf(sql, sizeof sql,
             "SELECT path_in_schema, stats_null_count, stats_min_value FROM parquet_metadata('%s') "
             "WHERE path_in_schema IN ('props, typed_value, a, typed_value', "
             "'props, typed_value, d, typed_value') ORDER BY 1",
             out.path + strlen("file://"));
    char *got = duckdb(sql);
    /* a in its typed column for the 50 rows from JSON; d for the 5 from
     * bytes, carried through as INT64 DECIMAL */
    assert_string_equal(got, "props, typed_value, a, typed_value\t5\t0\n"
                             "props, typed_value, d, typed_value\t50\t12.34\n");
    free(got);
    fixture_free(&v);
}

/* The table's id, doc and props as our reader reads them (JSON text), a
 * line per row in id order: rows hold at most 64 ids. */
static char *variant_rows(hl_table *t)
{
    struct hl_scan_options o;
    hl_scan_options_init(&o);
    o.variant_as_json = true;
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan_with(t, NULL, &o, &s, &err), &err, "scan");
    struct ArrowSchema schema;
    assert_int_equal(s.get_schema(&s, &schema), 0);
    int64_t ci[3] = {-1, -1, -1};
    static const char *const names[] = {"id", "doc", "props"};
    for (int64_t c = 0; c < schema.n_children; c++)
        for (int k = 0; k < 3; k++)
            if (strcmp(schema.children[c]->name, names[k]) == 0)
                ci[k] = c;
    char *line[64] = {0};
    for (;;) {
        struct ArrowArray b;
        assert_int_equal(s.get_next(&s, &b), 0);
        if (!b.release)
            break;
        for (int64_t r = 0; r < b.length; r++) {
            int64_t id =
                ((const int64_t *)b.children[ci[0]]->buffers[1])[b.children[ci[0]]->offset + r];
            assert_true(id >= 0 && id < 64 && !line[id]);
            struct buf l = BUF_INIT;
            buf_printf(&l, "%lld", (long long)id);
            for (int k = 1; k < 3; k++) {
                const struct ArrowArray *a = ci[k] >= 0 ? b.children[ci[k]] : NULL;
                int64_t i = a ? a->offset + r : 0;
                const uint8_t *valid = a ? a->buffers[0] : NULL;
                if (!a || (valid && !((valid[i / 8] >> (i % 8)) & 1))) {
                    buf_puts(&l, "\tNULL");
                    continue;
                }
                const int32_t *off = a->buffers[1];
                buf_printf(&l, "\t%.*s", (int)(off[i + 1] - off[i]),
                           (const char *)a->buffers[2] + off[i]);
            }
            line[id] = buf_take(&l);
        }
        b.release(&b);
    }
    s.release(&s);
    schema.release(&schema);
    struct buf all = BUF_INIT;
    for (int i = 0; i < 64; i++)
        if (line[i]) {
            buf_printf(&all, "%s\n", line[i]);
            free(line[i]);
        }
    return buf_take(&all);
}

/* An input written before its declared variant column existed does not
 * hold it: that column is read and shredded again, the other carried;
 * every value reads the same. */
static void variant_layouts_differ(void **state)
{
    (void)state;
    struct fixture v;
    fixture_up(&v, st.file_client, "cvariant2", spec,
               "[{'op':'add_column','column':{'name':'doc','type':'variant','nullable':true}}]");
    /* Three files before the column is added, two after (a group takes
     * five). */
    for (int i = 0; i < 3; i++) {
        struct buf b = BUF_INIT;
        for (int j = 0; j < 5; j++)
            buf_printf(&b, "{\"id\":%d,\"k\":\"k\",\"v\":1,\"doc\":[%d,{\"x\":\"y\"}]}\n",
                       i * 5 + j, j);
        struct ArrowArrayStream s;
        test_rows_stream("id:long!, k:string, v:long, doc:variant", b.data, &s);
        buf_free(&b);
        struct hl_error err;
        test_check(hl_table_append(v.table, &s, NULL, NULL, &err), &err, "append");
    }
    char *ops = dq("[{'op':'add_column','column':{'name':'props','type':'variant','nullable':true,"
                   "'type_params':{'shredding':{'type':'object','fields':["
                   "{'name':'a','type':'int64'},{'name':'d','type':'decimal8','precision':18,"
                   "'scale':2}]}}}}]");
    struct hl_error err;
    hl_table *t2;
    test_check(hl_table_open(v.ns, "t", &t2, &err), &err, "reopen");
    test_check(hl_table_alter(t2, ops, NULL, &err), &err, "alter");
    free(ops);
    hl_table_free(t2);
    test_check(hl_table_open(v.ns, "t", &t2, &err), &err, "reopen");
    for (int i = 0; i < 2; i++) {
        struct buf b = BUF_INIT;
        for (int j = 0; j < 5; j++)
            buf_printf(&b,
                       "{\"id\":%d,\"k\":\"k\",\"v\":1,\"doc\":null,"
                       "\"props\":{\"a\":%d,\"b\":true}}\n",
                       15 + i * 5 + j, i * 5 + j);
        struct ArrowArrayStream s;
        test_rows_stream("id:long!, k:string, v:long, doc:variant, props:variant", b.data, &s);
        buf_free(&b);
        test_check(hl_table_append(t2, &s, NULL, NULL, &err), &err, "append");
    }
    hl_table_free(t2);

    test_check(hl_table_open(v.ns, "t", &t2, &err), &err, "reopen");
    char *before = variant_rows(t2);
    hl_table_free(t2);
    json_t *res = compact(&st.srv, "cvariant2", 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    assert_int_equal(jint(res, "variant_columns_carried"), 1);
    assert_int_equal(jint(res, "variant_columns_reencoded"), 1);
    json_decref(res);
    test_check(hl_table_open(v.ns, "t", &t2, &err), &err, "reopen");
    char *after = variant_rows(t2);
    hl_table_free(t2);
    if (strcmp(before, after) != 0)
        fail_msg("compaction changed the values:\n--- before\n%s--- after\n%s", before, after);
    assert_non_null(strstr(after, "18\tNULL\t{\"a\":3,\"b\":true}\n"));
    assert_non_null(strstr(after, "6\t[1,{\"x\":\"y\"}]\tNULL\n"));
    free(before);
    free(after);
    fixture_free(&v);
}

/* ---- the catalog changing between a rewrite and its commit ---- */

struct background {
    const struct test_server *s;
    const char *catalog;
    struct http_result r;
};

/* One compaction pass on another thread; the caller checks the answer
 * after joining (no cmocka assertion off the main thread). */
static void *compact_in_background(void *arg)
{
    struct background *b = arg;
    char url[512];
    snprintf(url, sizeof url, "%s/v1/catalogs/%s/maintenance/compact", b->s->base, b->catalog);
    http_call(&b->r, "POST", url, NULL, NULL, 0, NULL);
    return NULL;
}

/* Starts a pass on `s` and returns once it has staged its output (its
 * rewrite then sleeps on the slow-commit failpoint). */
static void start_pass(struct background *b, pthread_t *th, const struct fixture *f)
{
    assert_int_equal(pthread_create(th, NULL, compact_in_background, b), 0);
    for (int waited = 0;; waited += 20) {
        if (sqli("SELECT count(*) FROM hog_file_removal WHERE catalog_id = %lld"
                 " AND reason = 'compaction_staging'",
                 (long long)f->cat) > 0)
            break;
        if (waited > 20000)
            fail_msg("the pass never staged its output");
        sleep_ms(20);
    }
}

static int64_t finish_pass(struct background *b, pthread_t th, const char *counter)
{
    pthread_join(th, NULL);
    expect_status(&b->r, 200);
    assert_int_equal(jint(b->r.json, "groups_compacted"), 0);
    int64_t n = jint(b->r.json, counter);
    http_result_free(&b->r);
    return n;
}

static void changed_before_commit(void **state)
{
    (void)state;
    struct test_server slow;
    setenv("HOGLAKE_FAILPOINTS", "compaction-slow-commit", 1);
    test_server_start(&slow, &st.db, NULL);
    unsetenv("HOGLAKE_FAILPOINTS");

    /* A deletion vector lands on an input that had none, another
     * supersedes the one an input had: dv_superseded. */
    struct fixture f;
    struct live_file files[5];
    fixture_files(&f, "csuper", files, 5);
    struct deletes dels[5];
    for (int i = 0; i < 5; i++)
        dels[i] = no_deletes;
    dels[0] = (struct deletes){0, 0, 2, 3};
    commit_deletes(&f, "planned", files, dels, 1);
    struct background b = {&slow, "csuper", {0}};
    pthread_t th;
    start_pass(&b, &th, &f);
    dels[0].hi = 7;
    dels[1] = (struct deletes){2, 0, -1, -1};
    commit_deletes(&f, "late", files, dels, 2);
    assert_int_equal(finish_pass(&b, th, "dv_superseded"), 1);
    assert_int_equal(live_files(&f), 5);
    assert_int_equal(live_dvs(&f), 2);
    /* The output is cleanup's: its ticket undrained, no row names it. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal r WHERE catalog_id = %lld"
                          " AND drained_at IS NULL AND NOT EXISTS (SELECT 1 FROM hog_data_file d"
                          "  WHERE d.catalog_id = r.catalog_id AND d.path = r.path)",
                          (long long)f.cat),
                     1);
    /* The claim was given back: the next pass compacts the same files
     * with the vectors now live, and neither loses a delete nor
     * resurrects a row. */
    struct buf want = BUF_INIT;
    sources_sql(&f, files, dels, 5, &want);
    json_t *res = compact(&st.srv, "csuper", 1);
    assert_int_equal(jint(res, "candidates_claimed"), 0);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    assert_int_equal(jint(res, "dvs_applied"), 2);
    assert_int_equal(jint(res, "rows_dropped"), 6 + 5);
    json_decref(res);
    expect_output_rows(&f, want.data, 50 - 6 - 5);
    buf_free(&want);
    fixture_free(&f);

    /* The table is altered: skipped_conflicts. */
    fixture_up(&f, st.file_client, "calter", spec, NULL);
    for (int i = 0; i < 5; i++)
        append_rows(f.table, spec, i * 10, 10);
    struct background b2 = {&slow, "calter", {0}};
    start_pass(&b2, &th, &f);
    struct hl_error err;
    char *ops =
        dq("[{'op':'add_column','column':{'name':'late','type':'string','nullable':true}}]");
    test_check(hl_table_alter(f.table, ops, NULL, &err), &err, "alter");
    free(ops);
    assert_int_equal(finish_pass(&b2, th, "skipped_conflicts"), 1);
    assert_int_equal(live_files(&f), 5);
    /* Appends meanwhile never conflict: the next pass compacts. */
    res = compact(&st.srv, "calter", 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    json_decref(res);
    fixture_free(&f);
    struct http_result m;
    api_get(&m, &slow, "/metrics");
    assert_non_null(
        strstr(m.body, "hoglake_compaction_skipped_total{reason=\"dv_superseded\"} 1\n"));
    assert_non_null(
        strstr(m.body, "hoglake_compaction_skipped_total{reason=\"skipped_conflicts\"} 1\n"));
    http_result_free(&m);
    test_server_stop(&slow);
}

/* A group whose every row is deleted ends its inputs and writes nothing;
 * a file mostly deleted is rewritten alone, one less so is not. */
static void every_row_deleted(void **state)
{
    (void)state;
    struct fixture f;
    struct live_file files[5];
    fixture_files(&f, "cgone", files, 5);
    struct deletes all[5];
    for (int i = 0; i < 5; i++)
        all[i] = (struct deletes){1, 0, -1, -1};
    commit_deletes(&f, "all", files, all, 5);
    int64_t head_before = head_of("cgone");
    json_t *res = compact(&st.srv, "cgone", 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    assert_int_equal(jint(res, "files_in"), 5);
    assert_int_equal(jint(res, "files_out"), 0);
    assert_int_equal(jint(res, "bytes_out"), 0);
    assert_int_equal(jint(res, "rows_dropped"), 50);
    json_decref(res);
    int64_t head = head_of("cgone");
    assert_int_equal(head, head_before + 1);
    assert_int_equal(change_rows("cgone", head, "table_compacted", f.tid), 1);
    assert_int_equal(live_files(&f), 0);
    assert_int_equal(live_dvs(&f), 0);
    /* Nothing was written: the catalog's directory holds the 5 inputs and
     * no output, the staged path's ticket is settled absent. */
    char data_path[512];
    client_stack_data_path(&st, f.client, "cgone", data_path, sizeof data_path);
    assert_int_equal(test_count_files(data_path + strlen("file://"), ".parquet"), 5);
    expect_sql("absent",
               "SELECT drained_outcome FROM hog_file_removal WHERE catalog_id = %lld"
               " AND reason = 'compaction_staging'",
               (long long)f.cat);
    int64_t rows, sum;
    scan_totals(f.table, f.name, &rows, &sum);
    assert_int_equal(rows, 0);
    fixture_free(&f);

    /* One file alone: 4 of 10 rows deleted is not worth a rewrite, 6 is. */
    struct live_file one;
    fixture_files(&f, "calone", &one, 1);
    struct deletes some = {0, 0, 0, 3};
    commit_deletes(&f, "four", &one, &some, 1);
    res = compact(&st.srv, "calone", 1);
    assert_int_equal(jint(res, "groups_compacted"), 0);
    json_decref(res);
    some.hi = 5;
    commit_deletes(&f, "six", &one, &some, 1);
    struct buf want = BUF_INIT;
    sources_sql(&f, &one, &some, 1, &want);
    res = compact(&st.srv, "calone", 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    assert_int_equal(jint(res, "files_in"), 1);
    assert_int_equal(jint(res, "files_out"), 1);
    json_decref(res);
    expect_output_rows(&f, want.data, 4);
    buf_free(&want);
    expect_sql("6|4",
               "SELECT row_id_start || '|' || record_count FROM hog_data_file"
               " WHERE catalog_id = %lld AND end_snapshot IS NULL",
               (long long)f.cat);
    fixture_free(&f);
}

/* One pass that is expected to skip its group for `counter`, changing
 * nothing. */
static void expect_skipped(const struct fixture *f, const char *counter)
{
    int64_t head = head_of(f->name), files = live_files(f), dvs = live_dvs(f);
    json_t *res = compact(&st.srv, f->name, 1);
    assert_int_equal(jint(res, "groups_compacted"), 0);
    if (jint(res, counter) != 1)
        fail_msg("expected %s 1: %s", counter, json_dumps(res, JSON_COMPACT));
    json_decref(res);
    assert_int_equal(head_of(f->name), head);
    assert_int_equal(live_files(f), files);
    assert_int_equal(live_dvs(f), dvs);
}

/* Vectors the rewrite must not trust: each skips the group and changes
 * nothing; a sound one then compacts. */
static void untrusted_vectors(void **state)
{
    (void)state;
    struct fixture f;
    struct live_file files[5];
    fixture_files(&f, "cbad", files, 5);
    struct deletes two = {0, 0, 0, 1};
    struct dv_ref dv;
    /* Its Puffin file holds two positions, the catalog says three. */
    put_puffin(&f, "count.puffin", files, &two, files[0].path, &dv);
    dv.count = 3;
    assert_int_equal(commit_puffins(&f, &dv, files, 1), 200);
    expect_skipped(&f, "invalid_data");
    /* Its blob is another file's. */
    struct deletes four = {0, 0, 0, 3};
    put_puffin(&f, "other.puffin", files, &four, files[1].path, &dv);
    dv.count = 4;
    assert_int_equal(commit_puffins(&f, &dv, files, 1), 200);
    expect_skipped(&f, "invalid_data");
    /* Missing. */
    char data_path[512];
    client_stack_data_path(&st, f.client, "cbad", data_path, sizeof data_path);
    snprintf(dv.uri, sizeof dv.uri, "%s/missing.puffin", data_path);
    dv.count = 5;
    assert_int_equal(commit_puffins(&f, &dv, files, 1), 200);
    expect_skipped(&f, "failed_groups");
    /* A symbolic link in the data path to a sound Puffin file outside it. */
    struct deletes six = {0, 0, 0, 5};
    put_puffin(&f, "six.puffin", files, &six, files[0].path, &dv);
    char outside[600];
    snprintf(outside, sizeof outside, "%s/outside-six.puffin", st.warehouse);
    assert_int_equal(rename(dv.uri + 7, outside), 0);
    snprintf(dv.uri, sizeof dv.uri, "%s/link.puffin", data_path);
    assert_int_equal(symlink(outside, dv.uri + 7), 0);
    dv.count = 6;
    assert_int_equal(commit_puffins(&f, &dv, files, 1), 200);
    expect_skipped(&f, "storage_refused");
    /* A catalog whose row points outside its data path, or into another
     * catalog's (as an edited catalog might): refused as well. */
    sql_exec("UPDATE hog_delete_file SET path = 'file://%s' WHERE catalog_id = %lld"
             " AND end_snapshot IS NULL",
             outside, (long long)f.cat);
    expect_skipped(&f, "storage_refused");
    struct fixture g;
    struct live_file gfile;
    fixture_files(&g, "cbad2", &gfile, 1);
    struct dv_ref theirs;
    put_puffin(&g, "theirs.puffin", &gfile, &six, gfile.path, &theirs);
    sql_exec("UPDATE hog_delete_file SET path = '%s', file_size_bytes = %lld"
             " WHERE catalog_id = %lld AND end_snapshot IS NULL",
             theirs.uri, (long long)theirs.size, (long long)f.cat);
    expect_skipped(&f, "storage_refused");
    fixture_free(&g);
    /* A sound vector: compacted without its rows. */
    struct deletes seven = {0, 0, 0, 6};
    struct buf want = BUF_INIT;
    sources_sql(&f, files,
                (struct deletes[]){seven, no_deletes, no_deletes, no_deletes, no_deletes}, 5,
                &want);
    commit_deletes(&f, "seven", files, &seven, 1);
    json_t *res = compact(&st.srv, "cbad", 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    json_decref(res);
    expect_output_rows(&f, want.data, 43);
    buf_free(&want);
    fixture_free(&f);
}

/* A group over the memory budget is refused, not read. */
static void heap_budget(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "cbudget", spec, NULL);
    for (int i = 0; i < 5; i++)
        append_rows(f.table, spec, i * 10, 10);
    struct test_server small;
    const char *const extra[] = {"--compaction-max-group-bytes", "1024", NULL};
    test_server_start(&small, &st.db, extra);
    json_t *res = compact(&small, "cbudget", 1);
    assert_int_equal(jint(res, "heap_budget_exceeded"), 1);
    assert_int_equal(jint(res, "left_over_budget_files"), 5);
    assert_int_equal(jint(res, "groups_compacted"), 0);
    json_decref(res);
    test_server_stop(&small);
    assert_int_equal(live_files(&f), 5);
    fixture_free(&f);
}

/* The backlog member of the compaction task in a status answer. */
static json_t *compaction_backlog_of(const char *catalog)
{
    json_t *status = api_get_json(&st.srv, "/v1/catalogs/%s/maintenance/status", catalog);
    const json_t *tasks = json_object_get(status, "tasks");
    json_t *backlog = NULL;
    for (size_t i = 0; i < json_array_size(tasks); i++) {
        const json_t *t = json_array_get(tasks, i);
        if (strcmp(json_string_value(json_object_get(t, "task")), "compaction") == 0)
            backlog = json_incref(json_object_get(t, "backlog"));
    }
    json_decref(status);
    assert_non_null(backlog);
    return backlog;
}

/* One small file in each of a table's day-like partitions makes no group:
 * the pass says why in its counters and its human report, and status
 * counts the files no group can take. */
static void explains_nothing_compacted(void **state)
{
    (void)state;
    const char *pspec = "id:long!, k:string, v:long, p:int";
    struct fixture f;
    fixture_up(&f, st.file_client, "cwhy", pspec,
               "[{'op':'set_partition_spec','fields':[{'source_field_id':4,"
               "'transform':'identity'}]}]");
    /* p = 0, 1, 2, 3, then a second file in p = 0. */
    for (int i = 0; i < 5; i++) {
        char rows[200];
        snprintf(rows, sizeof rows, "{\"id\":%d,\"k\":\"x\",\"v\":1,\"p\":%d}\n", i, i % 4);
        append_text(f.table, pspec, rows, -1);
    }
    json_t *res = compact(&st.srv, "cwhy", 10);
    assert_int_equal(jint(res, "groups_compacted"), 0);
    assert_int_equal(jint(res, "candidates_files"), 5);
    assert_int_equal(jint(res, "left_too_few_files"), 5);
    assert_int_equal(jint(res, "left_too_few_partitions"), 4);
    assert_int_equal(jint(res, "left_over_budget_files"), 0);
    assert_int_equal(jint(res, "left_claimed_files"), 0);
    assert_false(json_is_true(json_object_get(res, "batch_reached")));
    json_decref(res);

    json_t *backlog = compaction_backlog_of("cwhy");
    assert_int_equal(jint(backlog, "small_files"), 5);
    assert_int_equal(jint(backlog, "small_file_partitions"), 4);
    assert_int_equal(jint(backlog, "alone_files"), 3);
    json_decref(backlog);

    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, st.srv.base, "/tmp", "maintenance compact cwhy");
    assert_int_equal(o.code, 0);
    if (!strstr(o.out, "left                 5 files with too few small files in their "
                       "partition to make a group (4 partitions)\n"))
        fail_msg("compact says:\n%s", o.out);
    assert_null(strstr(o.out, "more "));
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, st.srv.base, "/tmp", "maintenance status cwhy");
    assert_int_equal(o.code, 0);
    if (!strstr(o.out, "  backlog      5 small files in 4 partitions; 3 alone in their "
                       "partition (no group can take them)\n"))
        fail_msg("status says:\n%s", o.out);
    cli_out_free(&o);

    /* Enough files in one partition: the group compacts, and a pass held
     * to one group says more may wait. */
    for (int i = 0; i < 5; i++) {
        char rows[200];
        snprintf(rows, sizeof rows, "{\"id\":%d,\"k\":\"y\",\"v\":2,\"p\":1}\n", 100 + i);
        append_text(f.table, pspec, rows, -1);
    }
    res = compact(&st.srv, "cwhy", 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    assert_true(json_is_true(json_object_get(res, "batch_reached")));
    json_decref(res);
    fixture_free(&f);
}

/* The loop compacts on its own; status shows the task's backlog. Last:
 * the loop sweeps every catalog of the database. */
static void loop_and_status(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "cloop", spec, NULL);
    for (int i = 0; i < 5; i++)
        append_rows(f.table, spec, i * 10, 10);
    json_t *status = api_get_json(&st.srv, "/v1/catalogs/cloop/maintenance/status");
    const json_t *tasks = json_object_get(status, "tasks"), *task = NULL;
    for (size_t i = 0; i < json_array_size(tasks); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(tasks, i), "task")),
                   "compaction") == 0)
            task = json_array_get(tasks, i);
    assert_non_null(task);
    assert_int_equal(jint(json_object_get(task, "backlog"), "small_files"), 5);
    assert_true(json_is_null(json_object_get(task, "loop")));
    json_decref(status);
    struct test_server looping;
    const char *const extra[] = {"--compaction-interval-ms", "200", NULL};
    test_server_start(&looping, &st.db, extra);
    for (int waited = 0; live_files(&f) != 1; waited += 50) {
        if (waited > 20000)
            fail_msg("the loop did not compact");
        sleep_ms(50);
    }
    test_server_stop(&looping);
    assert_true(sqli("SELECT count(*) FROM hog_maintenance_run WHERE catalog_id = %lld"
                     " AND task = 'compaction' AND run_trigger = 'loop' AND status = 'ok'",
                     (long long)f.cat) >= 1);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(file_store),
        cmocka_unit_test(moto_store),
        cmocka_unit_test(schema_evolution),
        cmocka_unit_test(racing_appends),
        cmocka_unit_test(two_servers),
        cmocka_unit_test(claimed_elsewhere),
        cmocka_unit_test(crash_before_commit),
        cmocka_unit_test(bad_batch),
        cmocka_unit_test(variant_table),
        cmocka_unit_test(variant_layouts_differ),
        cmocka_unit_test(cli_verb),
        cmocka_unit_test(changed_before_commit),
        cmocka_unit_test(every_row_deleted),
        cmocka_unit_test(untrusted_vectors),
        cmocka_unit_test(heap_budget),
        cmocka_unit_test(explains_nothing_compacted),
        cmocka_unit_test(loop_and_status),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
