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
 *   - a bad batch is refused; a variant table and a file with a deletion
 *     vector are left alone. */
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
#include "textio/colspec.h"
#include "util/buf.h"

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

/* A SELECT over every live file of the table as DuckDB reads it, each row
 * with its row id: _hog_row_id for explicit files, row_id_start + position
 * otherwise. `cols` are the table columns to select. */
static char *rows_with_ids(const struct fixture *f, const char *cols, const char *order)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT substr(path, 8), row_id_start, explicit_row_ids FROM hog_data_file"
             " WHERE catalog_id = %lld AND table_id = %lld AND end_snapshot IS NULL"
             " ORDER BY data_file_id",
             (long long)f->cat, (long long)f->tid);
    PGresult *r = PQexec(st.pg, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    struct buf q = BUF_INIT;
    assert_int_equal(buf_printf(&q, "SELECT * FROM ("), 0);
    for (int i = 0; i < PQntuples(r); i++) {
        bool explicit_ids = strcmp(PQgetvalue(r, i, 2), "t") == 0;
        if (explicit_ids)
            assert_int_equal(buf_printf(&q,
                                        "%sSELECT %s, _hog_row_id AS rid FROM read_parquet('%s')",
                                        i ? " UNION ALL " : "", cols, PQgetvalue(r, i, 0)),
                             0);
        else
            assert_int_equal(
                buf_printf(&q,
                           "%sSELECT %s, file_row_number + %s AS rid FROM read_parquet('%s',"
                           " file_row_number = true)",
                           i ? " UNION ALL " : "", cols, PQgetvalue(r, i, 1), PQgetvalue(r, i, 0)),
                0);
    }
    PQclear(r);
    assert_int_equal(buf_printf(&q, ") ORDER BY %s", order), 0);
    char *out = duckdb(q.data);
    buf_free(&q);
    return out;
}

/* Rows and the sum of the first (long) column through our own scan, at
 * the catalog's head. */
static void scan_totals(hl_table *t, const char *catalog, int64_t *rows, int64_t *sum)
{
    struct ArrowArrayStream s;
    struct hl_error err;
    struct hl_at at = {.snapshot = head_of(catalog)};
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

static const char spec[] = "id:long!, k:string, v:long";

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

static void file_store(void **state)
{
    (void)state;
    compacts_sorted_with_ids(st.file_client, "cfile");
}

static void moto_store(void **state)
{
    (void)state;
    compacts_sorted_with_ids(st.moto_client, "cmoto");
}

/* Files written before an added column and before promotions. */
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
                   "{'op':'promote_column','name':'f','to':'double'}]");
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
    char q[900];
    snprintf(q, sizeof q,
             "SELECT typeof(id), typeof(f), count(*), count(extra), sum(id), sum(f),"
             " min(_hog_row_id), max(_hog_row_id) FROM read_parquet('%s') GROUP BY ALL",
             PQgetvalue(r, 0, 0));
    PQclear(r);
    char *got = duckdb(q);
    assert_string_equal(got, "BIGINT\tDOUBLE\t10\t0\t45\t7.5\t0\t9\n");
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
            struct ArrowArrayStream s;
            test_rows_stream(pspec, rows, &s);
            struct hl_append_options o;
            hl_append_options_init(&o);
            o.read_snapshot = head_of("ctwo");
            struct hl_error err;
            test_check(hl_table_append(f.table, &s, &o, NULL, &err), &err, "append");
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
    /* Partition values carried over. */
    assert_int_equal(sqli("SELECT count(DISTINCT v.value) FROM hog_file_partition_value v"
                          " JOIN hog_data_file d USING (catalog_id, data_file_id)"
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

/* A file with a live deletion vector stays; a variant table is skipped. */
static void dv_and_variant(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, st.file_client, "cdv", spec, NULL);
    for (int i = 0; i < 6; i++)
        append_rows(f.table, spec, i * 10, 10);
    int64_t target = sqli("SELECT min(data_file_id) FROM hog_data_file WHERE catalog_id = %lld",
                          (long long)f.cat);
    char body[600];
    snprintf(body, sizeof body,
             "{'read_snapshot':%lld,'deletes':[{'namespace':'ns','table':'t','files':"
             "[{'data_file_id':%lld,'path':'file://%s/cdv/dv.puffin','delete_count':1,"
             "'file_size_bytes':10}]}]}",
             (long long)head_of("cdv"), (long long)target, st.warehouse);
    char *q = dq(body);
    struct http_result r;
    api_send_text(&r, &st.srv, "POST", q, "/v1/catalogs/cdv/commit");
    expect_status(&r, 200);
    http_result_free(&r);
    free(q);
    json_t *res = compact(&st.srv, "cdv", 1);
    assert_int_equal(jint(res, "groups_compacted"), 1);
    assert_int_equal(jint(res, "files_in"), 5);
    assert_int_equal(jint(res, "candidates_with_dv"), 1);
    json_decref(res);
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld"
                          " AND data_file_id = %lld AND end_snapshot IS NULL",
                          (long long)f.cat, (long long)target),
                     1);
    fixture_free(&f);

    /* Variant: the table is skipped whatever its files. */
    struct fixture v;
    fixture_up(&v, st.file_client, "cvariant", spec, NULL);
    for (int i = 0; i < 5; i++)
        append_rows(v.table, spec, i * 10, 10);
    struct hl_error err;
    char *ops =
        dq("[{'op':'add_column','column':{'name':'doc','type':'variant','nullable':true}}]");
    test_check(hl_table_alter(v.table, ops, NULL, &err), &err, "alter");
    free(ops);
    res = compact(&st.srv, "cvariant", 1);
    assert_int_equal(jint(res, "groups_compacted"), 0);
    assert_int_equal(jint(res, "tables_variant_skipped"), 1);
    json_decref(res);
    assert_int_equal(live_files(&v), 5);
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

    /* A deletion vector lands on an input: dv_superseded. */
    struct fixture f;
    fixture_up(&f, st.file_client, "csuper", spec, NULL);
    for (int i = 0; i < 5; i++)
        append_rows(f.table, spec, i * 10, 10);
    struct background b = {&slow, "csuper", {0}};
    pthread_t th;
    start_pass(&b, &th, &f);
    char data_path[512], body[1200];
    client_stack_data_path(&st, st.file_client, "csuper", data_path, sizeof data_path);
    snprintf(body, sizeof body,
             "{'read_snapshot':%lld,'deletes':[{'namespace':'ns','table':'t','files':"
             "[{'data_file_id':%lld,'path':'%s/dv.puffin','delete_count':1,"
             "'file_size_bytes':10}]}]}",
             (long long)head_of("csuper"),
             (long long)sqli("SELECT min(data_file_id) FROM hog_data_file WHERE catalog_id = %lld",
                             (long long)f.cat),
             data_path);
    char *q = dq(body);
    struct http_result r;
    api_send_text(&r, &st.srv, "POST", q, "/v1/catalogs/csuper/commit");
    expect_status(&r, 200);
    http_result_free(&r);
    free(q);
    assert_int_equal(finish_pass(&b, th, "dv_superseded"), 1);
    assert_int_equal(live_files(&f), 5);
    /* The output is cleanup's: its ticket undrained, no row names it. */
    assert_int_equal(sqli("SELECT count(*) FROM hog_file_removal r WHERE catalog_id = %lld"
                          " AND drained_at IS NULL AND NOT EXISTS (SELECT 1 FROM hog_data_file d"
                          "  WHERE d.catalog_id = r.catalog_id AND d.path = r.path)",
                          (long long)f.cat),
                     1);
    /* The claim was given back: without the DV file there are 4 left, too
     * few for a group, and none is reported as claimed. */
    json_t *res = compact(&st.srv, "csuper", 1);
    assert_int_equal(jint(res, "candidates_claimed"), 0);
    assert_int_equal(jint(res, "candidates_with_dv"), 1);
    json_decref(res);
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
    assert_int_equal(jint(res, "groups_compacted"), 0);
    json_decref(res);
    test_server_stop(&small);
    assert_int_equal(live_files(&f), 5);
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
        cmocka_unit_test(dv_and_variant),
        cmocka_unit_test(cli_verb),
        cmocka_unit_test(changed_before_commit),
        cmocka_unit_test(heap_budget),
        cmocka_unit_test(loop_and_status),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
