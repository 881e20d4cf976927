/* The changefeed plan's deletion vectors (GET .../changes, `delete_files`)
 * against a real hoglaked and PostgreSQL, with data written by libhoglake
 * to file:// and real Puffin files: each vector of a window carries its
 * target (`data_file`) and the vector it replaced (`superseded_delete_file`),
 * for a first vector on an old file, vectors superseding one inside the
 * window and one from before it, a vector on a file appended in the window,
 * one on a compaction output (POST .../maintenance/compact) and one whose
 * target has ended since. Checked three ways, for windows of every span
 * (time travel) and in pages of every size:
 *   - against what the test committed (which vector each one replaced);
 *   - against the scan plan: the target as the scan renders it where the
 *     vector begins, the superseded vector as the scan pairs it just before;
 *   - as a reader uses them: the target's newest vector in the window minus
 *     the superseded vector of its oldest one, read from the Puffin files,
 *     is exactly what the test deleted inside the window. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#define CATALOG "chdv"
#define TABLE_PATH "/v1/catalogs/" CATALOG "/namespaces/ns/tables/t/"

static struct client_stack stack;
static hl_catalog *catalog;
static hl_namespace *ns;
static hl_table *table;

static int setup(void **state)
{
    (void)state;
    client_stack_up(&stack, "changes_dvs");
    char data_path[512];
    client_stack_data_path(&stack, stack.file_client, CATALOG, data_path, sizeof data_path);
    struct hl_error err;
    test_check(hl_catalog_create(stack.file_client, CATALOG, data_path, &catalog, &err), &err,
               "catalog create");
    test_check(hl_namespace_create(catalog, "ns", &ns, &err), &err, "namespace create");
    test_check(hl_table_create(ns, "t", "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false}]",
                               NULL, &table, &err),
               &err, "table create");
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

/* ---- what the test knows ---- */

enum { MAX_VECTORS = 4 };

/* A vector the test committed: its id, its snapshot and every position its
 * target has lost by then (vectors are cumulative). */
struct vector_truth {
    int64_t delete_file_id, begin;
    struct lake_dv dv;
};

/* A data file and its vectors, oldest first. */
struct target {
    int64_t id, rows;
    char path[600];
    struct vector_truth v[MAX_VECTORS];
    int n;
};

static void target_free(struct target *t)
{
    for (int i = 0; i < t->n; i++)
        lake_dv_free(&t->v[i].dv);
}

/* The table's newest data file (the one an append or a compaction has
 * just written). */
static void target_newest(struct target *t)
{
    memset(t, 0, sizeof *t);
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT data_file_id, record_count, path FROM hog_data_file WHERE table_id = %lld"
             " ORDER BY data_file_id DESC LIMIT 1",
             (long long)table_id_of(CATALOG, "ns", "t"));
    PGresult *r = PQexec(stack.pg, sql);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    assert_int_equal(PQntuples(r), 1);
    t->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    t->rows = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
    snprintf(t->path, sizeof t->path, "%s", PQgetvalue(r, 0, 2));
    PQclear(r);
}

/* Appends one file of n rows (ids from first) and returns it. */
static void append_file(int64_t first, int n, struct target *out)
{
    struct buf jsonl = BUF_INIT;
    for (int i = 0; i < n; i++)
        assert_int_equal(buf_printf(&jsonl, "{\"id\":%lld}\n", (long long)(first + i)), 0);
    struct ArrowArrayStream s;
    test_rows_stream("id:long!", jsonl.data, &s);
    buf_free(&jsonl);
    struct hl_append_options o;
    hl_append_options_init(&o);
    struct hl_error err;
    test_check(hl_table_append(table, &s, &o, NULL, &err), &err, "append");
    target_newest(out);
}

/* The positions the target had lost at snapshot s (NULL: none). */
static const struct lake_dv *deleted_at(const struct target *t, int64_t s)
{
    const struct lake_dv *at = NULL;
    for (int i = 0; i < t->n && t->v[i].begin <= s; i++)
        at = &t->v[i].dv;
    return at;
}

/* ---- writing vectors ---- */

/* New positions for one target. */
struct deletion {
    struct target *t;
    uint64_t pos[2];
    size_t npos;
};

/* Writes the target's next vector (what it had lost plus d's positions) as
 * a Puffin file beside it; its path in out, its size returned. */
static size_t put_vector(const struct deletion *d, struct vector_truth *next, char *out, size_t n)
{
    struct error e;
    lake_dv_init(&next->dv);
    const struct lake_dv *before = deleted_at(d->t, INT64_MAX);
    if (before)
        assert_int_equal(lake_dv_add(&next->dv, before->pos, before->n, &e), 0);
    assert_int_equal(lake_dv_add(&next->dv, d->pos, d->npos, &e), 0);
    struct lake_puffin_dv_in in = {d->t->path, &next->dv};
    struct lake_puffin_blob_pos pos;
    struct buf file = BUF_INIT;
    assert_int_equal(lake_puffin_write_dvs(&in, 1, "test_changes_dvs", &file, &pos, &e), 0);
    snprintf(out, n, "%.*s/dv-%lld-%d.puffin", (int)(strrchr(d->t->path, '/') - d->t->path),
             d->t->path, (long long)d->t->id, d->t->n);
    struct objstore *store;
    struct hl_error err;
    test_check(hl_table_object_store(table, &store, &err), &err, "object store");
    if (objstore_put(store, out, file.data, file.len, 0, &err) != 0)
        fail_msg("put %s: %s", out, err.message);
    size_t size = file.len;
    buf_free(&file);
    return size;
}

/* Commits one new vector for each of the n deletions in one snapshot,
 * records them in their targets and returns the snapshot. */
static int64_t delete_rows(const struct deletion *d, size_t n)
{
    json_t *files = json_array();
    char paths[4][700];
    assert_true(n <= 4);
    for (size_t i = 0; i < n; i++) {
        assert_true(d[i].t->n < MAX_VECTORS);
        struct vector_truth *next = &d[i].t->v[d[i].t->n];
        size_t size = put_vector(&d[i], next, paths[i], sizeof paths[i]);
        json_array_append_new(files,
                              jpack("{s:I,s:s,s:I,s:I}", "data_file_id", (json_int_t)d[i].t->id,
                                    "path", paths[i], "delete_count", (json_int_t)next->dv.n,
                                    "file_size_bytes", (json_int_t)size));
    }
    json_t *body = jpack("{s:I,s:[{s:s,s:s,s:o}]}", "read_snapshot", (json_int_t)head_of(CATALOG),
                         "deletes", "namespace", "ns", "table", "t", "files", files);
    struct http_result r;
    api_send(&r, &stack.srv, "POST", body, "/v1/catalogs/" CATALOG "/commit");
    expect_status(&r, 200);
    int64_t snap = jint(r.json, "snapshot_id");
    http_result_free(&r);
    for (size_t i = 0; i < n; i++) {
        struct vector_truth *next = &d[i].t->v[d[i].t->n++];
        next->begin = snap;
        next->delete_file_id =
            sqli("SELECT delete_file_id FROM hog_delete_file WHERE path = '%s'", paths[i]);
    }
    return snap;
}

/* Ends the target and its live vector in a snapshot of its own, written
 * as a compaction ends its inputs (table_compacted). The compactor leaves
 * files with vectors alone for now; this stands for it. */
static int64_t end_as_compacted(const struct target *t)
{
    return sqli("WITH s AS (UPDATE hog_catalog SET last_snapshot_id = last_snapshot_id + 1"
                "  WHERE name = '" CATALOG "' RETURNING catalog_id, last_snapshot_id AS snap,"
                "  schema_version),"
                " log AS (INSERT INTO hog_snapshot (catalog_id, snapshot_id, snapshot_time,"
                "  schema_version) SELECT catalog_id, snap, clock_timestamp(), schema_version"
                "  FROM s),"
                " kind AS (INSERT INTO hog_snapshot_change (catalog_id, snapshot_id, kind,"
                "  object_id) SELECT catalog_id, snap, 'table_compacted', %lld FROM s),"
                " df AS (UPDATE hog_data_file d SET end_snapshot = s.snap FROM s"
                "  WHERE d.catalog_id = s.catalog_id AND d.data_file_id = %lld),"
                " dv AS (UPDATE hog_delete_file v SET end_snapshot = s.snap FROM s"
                "  WHERE v.catalog_id = s.catalog_id AND v.data_file_id = %lld"
                "  AND v.end_snapshot IS NULL)"
                " SELECT snap FROM s",
                (long long)table_id_of(CATALOG, "ns", "t"), (long long)t->id, (long long)t->id);
}

/* ---- reading the plan ---- */

/* The whole plan of (from, to] in pages of `limit`: {"files", "delete_files"}
 * concatenated over the pages. */
static json_t *plan(int64_t from, int64_t to, int limit)
{
    json_t *all = json_pack("{s:[],s:[]}", "files", "delete_files");
    char *token = NULL;
    do {
        char path[1024];
        int n = snprintf(path, sizeof path,
                         TABLE_PATH "changes?from_snapshot=%lld&to_snapshot=%lld&limit=%d",
                         (long long)from, (long long)to, limit);
        if (token)
            snprintf(path + n, sizeof path - (size_t)n, "&page_token=%s", token);
        free(token);
        token = NULL;
        json_t *page = api_get_json(&stack.srv, "%s", path);
        size_t held = 0;
        static const char *const members[] = {"files", "delete_files"};
        for (int m = 0; m < 2; m++) {
            json_t *items = json_object_get(page, members[m]);
            held += json_array_size(items);
            json_array_extend(json_object_get(all, members[m]), items);
        }
        assert_true(held <= (size_t)limit);
        const json_t *next = json_object_get(page, "next_page_token");
        if (json_is_string(next))
            token = strdup(json_string_value(next));
        json_decref(page);
    } while (token);
    return all;
}

/* The ScanFile of data file `id` in the scan plan at snapshot s, or NULL
 * when the file is not visible there. Borrowed from *scan (caller
 * decrefs). */
static const json_t *scan_file_at(int64_t s, int64_t id, json_t **scan)
{
    *scan = api_get_json(&stack.srv, TABLE_PATH "scan?snapshot=%lld", (long long)s);
    const json_t *files = json_object_get(*scan, "files");
    for (size_t i = 0; i < json_array_size(files); i++) {
        const json_t *item = json_array_get(files, i);
        if (jint(json_object_get(item, "data_file"), "data_file_id") == id)
            return item;
    }
    return NULL;
}

static void expect_same_json(const json_t *got, const json_t *want, const char *what)
{
    if (!json_equal(got, want)) {
        char *g = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY);
        char *w = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY);
        fail_msg("%s: got %s, want %s", what, g ? g : "(null)", w ? w : "(null)");
    }
}

/* A vector's target is the scan's data file where the vector begins, and
 * the vector it superseded is the one the scan paired with the target just
 * before (null when there was none). */
static void expect_as_the_scan(const json_t *v)
{
    int64_t begin = jint(v, "begin_snapshot"), id = jint(v, "data_file_id");
    json_t *scan;
    const json_t *at = scan_file_at(begin, id, &scan);
    assert_non_null(at);
    expect_same_json(json_object_get(v, "data_file"), json_object_get(at, "data_file"),
                     "the vector's data_file");
    json_decref(scan);
    at = scan_file_at(begin - 1, id, &scan);
    const json_t *before = at ? json_object_get(at, "delete_file") : NULL;
    const json_t *superseded = json_object_get(v, "superseded_delete_file");
    assert_non_null(superseded);
    if (before)
        expect_same_json(superseded, before, "the superseded vector");
    else
        assert_true(json_is_null(superseded));
    json_decref(scan);
}

/* The vectors of the window in the plan are exactly the test's, in
 * (begin_snapshot, delete_file_id) order, each superseding the target's
 * previous vector. */
static void expect_vectors(const json_t *dvs, struct target *const *targets, size_t nt,
                           int64_t from, int64_t to)
{
    size_t k = 0;
    int64_t last_begin = -1, last_id = -1;
    for (size_t i = 0; i < json_array_size(dvs); i++) {
        const json_t *v = json_array_get(dvs, i);
        int64_t begin = jint(v, "begin_snapshot"), id = jint(v, "delete_file_id");
        assert_true(begin > last_begin || (begin == last_begin && id > last_id));
        last_begin = begin;
        last_id = id;
        assert_true(begin > from && begin <= to);
    }
    for (size_t t = 0; t < nt; t++) {
        const struct target *tg = targets[t];
        for (int i = 0; i < tg->n; i++) {
            if (tg->v[i].begin <= from || tg->v[i].begin > to)
                continue;
            k++;
            const json_t *v = NULL;
            for (size_t j = 0; j < json_array_size(dvs) && !v; j++)
                if (jint(json_array_get(dvs, j), "delete_file_id") == tg->v[i].delete_file_id)
                    v = json_array_get(dvs, j);
            if (!v)
                fail_msg("vector %lld of file %lld is not in (%lld, %lld]",
                         (long long)tg->v[i].delete_file_id, (long long)tg->id, (long long)from,
                         (long long)to);
            assert_int_equal(jint(v, "data_file_id"), tg->id);
            assert_int_equal(jint(json_object_get(v, "data_file"), "data_file_id"), tg->id);
            assert_string_equal(jstr(json_object_get(v, "data_file"), "path"), tg->path);
            const json_t *sup = json_object_get(v, "superseded_delete_file");
            if (i == 0)
                assert_true(json_is_null(sup));
            else
                assert_int_equal(jint(sup, "delete_file_id"), tg->v[i - 1].delete_file_id);
            expect_as_the_scan(v);
        }
    }
    assert_int_equal(json_array_size(dvs), k);
}

/* The vector a plan entry names (its Puffin file), decoded. */
static void load_vector(const json_t *dv, const json_t *data_file, struct lake_dv *out)
{
    struct objstore *store;
    struct hl_error err;
    test_check(hl_table_object_store(table, &store, &err), &err, "object store");
    struct buf file = BUF_INIT;
    if (objstore_get(store, jstr(dv, "path"), 0, UINT64_MAX, &file, &err) != 0)
        fail_msg("fetching %s: %s", jstr(dv, "path"), err.message);
    struct error e;
    lake_dv_init(out);
    if (lake_puffin_load_dv((const uint8_t *)file.data, file.len, jstr(data_file, "path"),
                            (uint64_t)jint(data_file, "record_count"), out, &e) != 0)
        fail_msg("loading %s: %s", jstr(dv, "path"), e.msg);
    buf_free(&file);
}

/* The positions of `now` that `before` (NULL: none) lacks, as text. */
static void difference(const struct lake_dv *now, const struct lake_dv *before, struct buf *out)
{
    buf_reset(out);
    for (size_t i = 0; now && i < now->n; i++)
        if (!before || !lake_dv_contains(before, now->pos[i]))
            assert_int_equal(buf_printf(out, "%" PRIu64 " ", now->pos[i]), 0);
    assert_int_equal(buf_putc(out, '\0'), 0);
}

/* A reader's account of what the window deleted from the target: its
 * newest vector in the plan minus the one its oldest superseded, read
 * from their Puffin files, is what the test deleted in the window. */
static void expect_reader_finds(const json_t *dvs, const struct target *t, int64_t from, int64_t to)
{
    const json_t *oldest = NULL, *newest = NULL;
    for (size_t i = 0; i < json_array_size(dvs); i++) {
        const json_t *v = json_array_get(dvs, i);
        if (jint(v, "data_file_id") != t->id)
            continue;
        if (!oldest)
            oldest = v;
        newest = v;
    }
    struct buf got = BUF_INIT, want = BUF_INIT;
    difference(deleted_at(t, to), deleted_at(t, from), &want);
    if (!newest) {
        assert_string_equal(want.data, "");
        buf_free(&want);
        return;
    }
    struct lake_dv now, before;
    load_vector(newest, json_object_get(newest, "data_file"), &now);
    const json_t *sup = json_object_get(oldest, "superseded_delete_file");
    bool has_before = !json_is_null(sup);
    if (has_before)
        load_vector(sup, json_object_get(oldest, "data_file"), &before);
    difference(&now, has_before ? &before : NULL, &got);
    if (strcmp(got.data, want.data) != 0)
        fail_msg("file %lld in (%lld, %lld]: the plan's vectors delete [%s], the test deleted [%s]",
                 (long long)t->id, (long long)from, (long long)to, got.data, want.data);
    lake_dv_free(&now);
    if (has_before)
        lake_dv_free(&before);
    buf_free(&got);
    buf_free(&want);
}

/* Everything above for the window (from, to], and its pages of 1 and 2
 * entries are its one-page plan exactly. */
static void expect_window(struct target *const *targets, size_t nt, int64_t from, int64_t to)
{
    json_t *whole = plan(from, to, 1000);
    const json_t *dvs = json_object_get(whole, "delete_files");
    expect_vectors(dvs, targets, nt, from, to);
    for (size_t t = 0; t < nt; t++)
        expect_reader_finds(dvs, targets[t], from, to);
    /* A target the plan lists among its files is rendered the same in
     * both places. */
    const json_t *files = json_object_get(whole, "files");
    for (size_t i = 0; i < json_array_size(dvs); i++) {
        const json_t *target = json_object_get(json_array_get(dvs, i), "data_file");
        for (size_t j = 0; j < json_array_size(files); j++)
            if (jint(json_array_get(files, j), "data_file_id") == jint(target, "data_file_id"))
                expect_same_json(target, json_array_get(files, j), "the target among the files");
    }
    for (int limit = 1; limit <= 2; limit++) {
        json_t *paged = plan(from, to, limit);
        expect_same_json(paged, whole, "the paged plan");
        json_decref(paged);
    }
    json_decref(whole);
}

/* The plan's files in (from, to] are exactly the n targets, in order. */
static void expect_files(int64_t from, int64_t to, struct target *const *want, size_t n)
{
    json_t *p = plan(from, to, 1000);
    const json_t *files = json_object_get(p, "files");
    assert_int_equal(json_array_size(files), n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(jint(json_array_get(files, i), "data_file_id"), want[i]->id);
    json_decref(p);
}

/* ---- the test ---- */

/* Small files appended in the window: with c, the five a compaction
 * group needs at least (COMPACTION_MIN_INPUT_FILES). */
enum { NSMALL = 4 };

static void vectors_carry_target_and_predecessor(void **state)
{
    (void)state;
    int64_t created = head_of(CATALOG);
    /* Before the window: a compaction output (of c and the small files,
     * rewritten before any vector exists: compaction takes files with
     * vectors too), four files, first vectors on two of them. */
    struct target a, b, c, d, n, s[NSMALL], x;
    append_file(200, 100, &c);
    for (int i = 0; i < NSMALL; i++)
        append_file(500 + 100 * i, 100, &s[i]);
    json_t *res = api_post_json(&stack.srv, "/v1/catalogs/" CATALOG "/maintenance/compact");
    assert_int_equal(jint(res, "files_in"), 1 + NSMALL);
    assert_int_equal(jint(res, "files_out"), 1);
    json_decref(res);
    target_newest(&x);
    assert_int_equal(x.rows, 100 * (1 + NSMALL));
    append_file(0, 100, &a);
    append_file(100, 100, &b);
    append_file(300, 100, &d);
    int64_t from = delete_rows((struct deletion[]){{&a, {1, 2}, 2}, {&b, {5}, 1}}, 2);

    /* The window: a vector superseding one from before it (a), a first
     * vector on an old file (d) and on a file appended in the window (n);
     * then one superseding a vector of the window (a again) and another
     * from before it (b); a vector on the compaction output. */
    append_file(400, 100, &n);
    int64_t s1 = delete_rows((struct deletion[]){{&a, {3}, 1}, {&d, {7}, 1}, {&n, {0}, 1}}, 3);
    int64_t s2 = delete_rows((struct deletion[]){{&a, {4, 99}, 2}, {&b, {6}, 1}}, 2);
    int64_t s4 = delete_rows((struct deletion[]){{&x, {0, 150}, 2}}, 1);
    /* b ends after its vector. */
    int64_t s5 = end_as_compacted(&b);
    int64_t to = head_of(CATALOG);
    assert_int_equal(to, s5);

    struct target *const all[] = {&a, &b, &c, &d, &n, &s[0], &s[1], &s[2], &s[3], &x};
    size_t nt = sizeof all / sizeof all[0];
    /* The window appended n; the vectors render the compaction output. */
    expect_files(from, to, all + 4, 1);
    expect_window(all, nt, from, to);
    /* Time travel: each window gives the vector each one replaced, whether
     * it began inside that window or before it. */
    expect_window(all, nt, created, from);
    expect_window(all, nt, created, to);
    expect_window(all, nt, from, s1);
    expect_window(all, nt, s1, s2);
    expect_window(all, nt, from, s2);
    expect_window(all, nt, s2, s4);
    expect_window(all, nt, s1, to);
    expect_window(all, nt, s4, s5);
    for (size_t t = 0; t < nt; t++)
        target_free(all[t]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vectors_carry_target_and_predecessor),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
