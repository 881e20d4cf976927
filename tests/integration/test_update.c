/* Row-level updates (hl_table_update, hoglake update) end to end against a
 * real hoglaked, PostgreSQL, a local warehouse (file://) and moto (S3):
 *   - random SET/WHERE pairs over a partitioned table of several files and
 *     row groups, each run in DuckDB as the same UPDATE on its own copy of
 *     the data (a DuckDB database loaded once from the table's Parquet
 *     files): the counts and the rows after every round agree;
 *   - every updated row keeps its row id: the changefeed of each round
 *     reports it deleted and inserted with the _row_id it had when it was
 *     first appended; time travel reads the table before and after;
 *   - an update of the partition column moves rows to their new
 *     partition's files;
 *   - NULL for a required column is refused, statically or for some rows,
 *     with nothing committed or left in storage;
 *   - an append that lands between the update's read and its commit makes
 *     the update read again and commit on its second attempt;
 *   - the CLI as a user runs it. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client_harness.h"
#include "harness.h"
#include "hoglake/hoglake.h"
#include "util/buf.h"

#if !defined(HL_NODE) || !defined(HL_INTEROP_DIR) || !defined(HOGLAKE_CLI_BIN)
#error "HL_NODE, HL_INTEROP_DIR and HOGLAKE_CLI_BIN must be defined by the build"
#endif

static struct client_stack stack;

/* The oracle's table size: 20,000 rows (several files and row groups,
 * quick under the sanitizers); HOGLAKE_TEST_UPDATE_ROWS sets another, as
 * the 1M-row run does (by hand, from a Release build:
 * HOGLAKE_TEST_UPDATE_ROWS=1000000 ctest -R integration.test_update). */
static int table_rows = 20000;

static int setup(void **state)
{
    (void)state;
    const char *rows = getenv("HOGLAKE_TEST_UPDATE_ROWS");
    if (rows && atoi(rows) >= 10000)
        table_rows = atoi(rows);
    client_stack_up(&stack, "update");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    client_stack_down(&stack);
    return 0;
}

enum { NTEAMS = 5 };

static const char *const columns = "[{\"name\":\"id\",\"type\":\"long\",\"nullable\":false},"
                                   "{\"name\":\"team_id\",\"type\":\"int\",\"nullable\":false},"
                                   "{\"name\":\"name\",\"type\":\"string\"},"
                                   "{\"name\":\"amount\",\"type\":\"long\"}]";
static const char *const spec = "id:long!, team_id:int!, name:string, amount:long";

struct fixture {
    hl_client *client;
    hl_catalog *catalog;
    hl_namespace *ns;
    hl_table *table;
    const char *name;
    char prefix[600]; /* the table's data directory (file://) */
};

/* A catalog `name` with table ns.events, partitioned by team_id unless
 * `unpartitioned`. */
static void fixture_up_as(struct fixture *f, hl_client *c, const char *name, bool unpartitioned)
{
    memset(f, 0, sizeof *f);
    f->client = c;
    f->name = name;
    char data_path[512];
    client_stack_data_path(&stack, c, name, data_path, sizeof data_path);
    snprintf(f->prefix, sizeof f->prefix, "%s/data/ns/events", data_path);
    struct hl_error err;
    test_check(hl_catalog_create(c, name, data_path, &f->catalog, &err), &err, "catalog");
    test_check(hl_namespace_create(f->catalog, "ns", &f->ns, &err), &err, "namespace");
    test_check(hl_table_create(f->ns, "events", columns, NULL, &f->table, &err), &err, "table");
    if (!unpartitioned)
        test_check(hl_table_alter(f->table,
                                  "[{\"op\":\"set_partition_spec\",\"fields\":[{\"source_field_"
                                  "id\":2,\"transform\":\"identity\"}]}]",
                                  NULL, &err),
                   &err, "partition by team");
    hl_table_free(f->table); /* a handle that reads the head */
    test_check(hl_table_open(f->ns, "events", &f->table, &err), &err, "table open");
}

static void fixture_up(struct fixture *f, hl_client *c, const char *name)
{
    fixture_up_as(f, c, name, false);
}

static void fixture_free(struct fixture *f)
{
    hl_table_free(f->table);
    hl_namespace_free(f->ns);
    hl_catalog_free(f->catalog);
}

/* Rows [from, to): id i, team i % 5, a name (null for some, not ASCII for
 * others), an amount (null for some); one append, small row groups. */
static int64_t append_range(hl_table *t, int from, int to, bool deferred_stats)
{
    struct buf jsonl = BUF_INIT;
    for (int i = from; i < to; i++) {
        char name[64] = "null", amount[32] = "null";
        if (i % 7)
            snprintf(name, sizeof name, "\"%s%d\"", i % 3 ? "n" : "\xc3\xa9t\xc3\xa9-", i);
        if (i % 11)
            snprintf(amount, sizeof amount, "%d", (i * 37) % 1000);
        assert_int_equal(buf_printf(&jsonl,
                                    "{\"id\":%d,\"team_id\":%d,\"name\":%s,\"amount\":%s}\n", i,
                                    i % NTEAMS, name, amount),
                         0);
    }
    struct ArrowArrayStream s;
    test_rows_stream(spec, jsonl.data, &s);
    buf_free(&jsonl);
    struct hl_append_options o;
    hl_append_options_init(&o);
    o.row_group_bytes = table_rows > 100000 ? 1 << 20 : 16 * 1024;
    o.deferred_stats = deferred_stats;
    struct hl_append_result *res = NULL;
    struct hl_error err;
    test_check(hl_table_append(t, &s, &o, &res, &err), &err, "append");
    int64_t snap = res->snapshot_id;
    hl_append_result_free(res);
    return snap;
}

/* ---- the table's rows as text ---- */

static void cell(struct buf *b, const struct ArrowArray *col, int64_t i, bool text)
{
    int64_t k = col->offset + i;
    const uint8_t *valid = col->buffers[0];
    if (valid && !((valid[k >> 3] >> (k & 7)) & 1)) {
        assert_int_equal(buf_puts(b, "\\N"), 0);
        return;
    }
    if (text) {
        const int32_t *off = col->buffers[1];
        assert_int_equal(
            buf_append(b, (const char *)col->buffers[2] + off[k], (size_t)(off[k + 1] - off[k])),
            0);
    } else if (col->n_buffers == 2 && col->length > 0 && col->buffers[1]) {
        assert_int_equal(buf_printf(b, "%" PRId64, ((const int64_t *)col->buffers[1])[k]), 0);
    }
}

static int by_id(const void *a, const void *b)
{
    long long x = strtoll(*(char *const *)a, NULL, 10), y = strtoll(*(char *const *)b, NULL, 10);
    int c = (x > y) - (x < y);
    return c ? c : strcmp(*(char *const *)a, *(char *const *)b);
}

/* "id\tteam\tname\tamount[\t_row_id\t_change_type]" lines of the stream's
 * rows, sorted by id; consumes the stream. */
static char *stream_text(struct ArrowArrayStream *s, int64_t *nrows)
{
    char **lines = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        struct ArrowArray b;
        if (s->get_next(s, &b) != 0)
            fail_msg("reading: %s", s->get_last_error(s));
        if (!b.release)
            break;
        for (int64_t i = 0; i < b.length; i++) {
            struct buf line = BUF_INIT;
            for (int64_t c = 0; c < b.n_children; c++) {
                if (c)
                    assert_int_equal(buf_puts(&line, "\t"), 0);
                const struct ArrowArray *col = b.children[c];
                if (c == 1) /* team_id: int32 */
                    assert_int_equal(
                        buf_printf(&line, "%d",
                                   ((const int32_t *)col->buffers[1])[col->offset + i]),
                        0);
                else
                    cell(&line, col, i, c == 2 || c == 5);
            }
            assert_int_equal(buf_puts(&line, "\n"), 0);
            if (n == cap) {
                cap = cap ? 2 * cap : 4096;
                lines = realloc(lines, cap * sizeof *lines);
                assert_non_null(lines);
            }
            lines[n++] = buf_take(&line);
        }
        b.release(&b);
    }
    s->release(s);
    if (n > 0)
        qsort(lines, n, sizeof *lines, by_id);
    struct buf out = BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(buf_puts(&out, lines[i]), 0);
        free(lines[i]);
    }
    free(lines);
    *nrows = (int64_t)n;
    return out.data ? buf_take(&out) : strdup("");
}

static char *read_at(hl_table *t, int64_t snapshot, int64_t *nrows)
{
    struct hl_at at = {snapshot, NULL};
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan(t, &at, &s, &err), &err, "scan");
    return stream_text(&s, nrows);
}

static char *changes_since(hl_table *t, int64_t from, int64_t *nrows)
{
    struct ArrowArrayStream s;
    struct hl_error err;
    test_check(hl_table_scan_changes(t, from, -1, &s, NULL, &err), &err, "changes");
    return stream_text(&s, nrows);
}

/* ---- DuckDB's copy ---- */

/* Runs the statements (separated by "\n;\n") in the DuckDB database at
 * db, printing every result row as duckdb_query.mjs does. */
static char *duckdb_run(const char *db, const char *sql)
{
    char script[700], qfile[600], cmd[2000];
    snprintf(script, sizeof script, "%s/duckdb_db.mjs", stack.warehouse);
    snprintf(qfile, sizeof qfile, "%s/update.sql", stack.warehouse);
    FILE *js = fopen(script, "w");
    assert_non_null(js);
    fprintf(js,
            "import fs from 'node:fs';\n"
            "import { loadDuckDB } from '%s/lib.mjs';\n"
            "const [db, file] = process.argv.slice(2);\n"
            "const duckdb = await loadDuckDB();\n"
            "const conn = await (await duckdb.DuckDBInstance.create(db, { threads: '1' }))"
            ".connect();\n"
            "for (const sql of fs.readFileSync(file, 'utf8').split('\\n;\\n')) {\n"
            "  const t0 = performance.now();\n"
            "  const r = await conn.runAndReadAll(sql);\n"
            "  if (/^UPDATE/.test(sql))\n"
            "    console.error(`DuckDB: ${(performance.now() - t0).toFixed(1)} ms`);\n"
            "  for (const row of r.getRows())\n"
            "    process.stdout.write(row.map((v) => (v === null ? '\\\\N' : String(v)))"
            ".join('\\t') + '\\n');\n"
            "}\n",
            HL_INTEROP_DIR);
    fclose(js);
    FILE *q = fopen(qfile, "w");
    assert_non_null(q);
    fputs(sql, q);
    fclose(q);
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s'", HL_NODE, script, db, qfile);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    struct buf out = BUF_INIT;
    char chunk[65536];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, p)) > 0)
        assert_int_equal(buf_append(&out, chunk, k), 0);
    assert_int_equal(pclose(p), 0);
    return out.data ? buf_take(&out) : strdup("");
}

#define DUCKDB_ROWS                                                                                \
    "SELECT CAST(id AS VARCHAR), CAST(team_id AS VARCHAR), name, CAST(amount AS VARCHAR) FROM t "  \
    "ORDER BY id"

/* A DuckDB database holding the table's current rows, read from its
 * Parquet files (the plan's, all live, no vectors yet). */
static void duckdb_load(struct fixture *f, const char *db)
{
    char *text = NULL;
    struct hl_error err;
    test_check(hl_table_scan_plan(f->table, NULL, &text, &err), &err, "scan plan");
    json_t *plan = jparse(text);
    free(text);
    struct buf sql = BUF_INIT;
    assert_int_equal(buf_puts(&sql, "CREATE TABLE t AS SELECT id, team_id, name, amount FROM "
                                    "read_parquet(["),
                     0);
    size_t i;
    const json_t *sf;
    json_array_foreach (plan, i, sf) {
        const json_t *df = json_object_get(sf, "data_file");
        const json_t *dv = json_object_get(sf, "delete_file");
        assert_true(!dv || json_is_null(dv));
        assert_int_equal(buf_printf(&sql, "%s'%s'", i ? ", " : "", jstr(df, "path") + 7), 0);
    }
    assert_int_equal(buf_puts(&sql, "])"), 0);
    free(duckdb_run(db, sql.data));
    buf_free(&sql);
    json_decref(plan);
}

/* ---- random updates DuckDB runs the same way ---- */

static void random_where(unsigned *seed, char *out, size_t size)
{
    int k = rand_r(seed) % table_rows;
    char a[200];
    switch (rand_r(seed) % 7) {
    case 0: snprintf(a, sizeof a, "id < %d", k / 10); break;
    case 1: snprintf(a, sizeof a, "id BETWEEN %d AND %d", k, k + rand_r(seed) % 4000); break;
    case 2: snprintf(a, sizeof a, "team_id = %d", rand_r(seed) % NTEAMS); break;
    case 3: snprintf(a, sizeof a, "amount > %d", 900 + rand_r(seed) % 100); break;
    case 4: snprintf(a, sizeof a, "amount IS NULL OR name IN ('n%d', 'x')", k | 1); break;
    case 5: snprintf(a, sizeof a, "NOT (amount < %d) AND id < %d", k % 1000, k); break;
    default: snprintf(a, sizeof a, "name IS NULL AND team_id IN (%d, %d)", k % 5, k % 3); break;
    }
    if (rand_r(seed) % 3 == 0)
        snprintf(out, size, "(%s) AND team_id != %d", a, rand_r(seed) % NTEAMS);
    else
        snprintf(out, size, "%s", a);
}

static void random_set(unsigned *seed, char *out, size_t size)
{
    int k = rand_r(seed) % 1000;
    switch (rand_r(seed) % 8) {
    case 0: snprintf(out, size, "amount = amount + %d", k); break;
    case 1: snprintf(out, size, "amount = amount * 2 - id, name = 'u%d'", k); break;
    case 2: snprintf(out, size, "name = NULL"); break;
    case 3: snprintf(out, size, "team_id = %d", 5 + k % 3); break; /* moves rows */
    case 4:
        snprintf(out, size, "amount = CASE WHEN amount IS NULL THEN %d ELSE amount - 1 END", k);
        break;
    case 5: snprintf(out, size, "team_id = team_id + 1, amount = NULL"); break;
    case 6: snprintf(out, size, "name = 'r\xc3\xa9%d', amount = id", k); break;
    default: snprintf(out, size, "amount = team_id * 10, team_id = 0"); break;
    }
}

/* The id's row id, from `changes` lines "id\t..\t..\t..\trow_id\tkind". */
static void row_ids_of(const char *changes, const char *kind, int64_t *ids, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        ids[i] = -1;
    for (const char *p = changes; *p;) {
        const char *nl = strchr(p, '\n');
        long long id = strtoll(p, NULL, 10);
        const char *f = p;
        for (int tab = 0; tab < 4; tab++)
            f = strchr(f, '\t') + 1;
        long long rid = strtoll(f, NULL, 10);
        const char *k = strchr(f, '\t') + 1;
        if (strncmp(k, kind, strlen(kind)) == 0 && id >= 0 && id < n) {
            if (ids[id] != -1)
                fail_msg("id %lld is reported %s twice", id, kind);
            ids[id] = rid;
        }
        p = nl + 1;
    }
}

/* What a round's changefeed must be: each updated row deleted and
 * inserted, both with the row id it was appended with. */
static void expect_ids_kept(hl_table *t, int64_t before, int64_t updated, const int64_t *original)
{
    int64_t n;
    char *changes = changes_since(t, before, &n);
    assert_int_equal(n, 2 * updated);
    int64_t *del = malloc(table_rows * sizeof *del), *ins = malloc(table_rows * sizeof *ins);
    assert_non_null(del);
    assert_non_null(ins);
    row_ids_of(changes, "delete", del, table_rows);
    row_ids_of(changes, "insert", ins, table_rows);
    int64_t pairs = 0;
    for (int64_t id = 0; id < table_rows; id++) {
        if (del[id] != ins[id] || (del[id] != -1 && del[id] != original[id]))
            fail_msg("id %" PRId64 ": deleted as row %" PRId64 ", inserted as %" PRId64
                     ", appended as %" PRId64,
                     id, del[id], ins[id], original[id]);
        pairs += del[id] != -1;
    }
    assert_int_equal(pairs, updated);
    free(del);
    free(ins);
    free(changes);
}

static void updates_match_duckdb(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, stack.file_client, "updfile");
    int64_t s0 = head_of("updfile");
    append_range(f.table, 0, table_rows / 2, false);
    append_range(f.table, table_rows / 2, table_rows, false);
    char db[600];
    snprintf(db, sizeof db, "%s/oracle.duckdb", stack.warehouse);
    duckdb_load(&f, db);
    /* Every row's id as appended. */
    int64_t n;
    char *appended = changes_since(f.table, s0, &n);
    assert_int_equal(n, table_rows);
    int64_t *original = malloc(table_rows * sizeof *original);
    assert_non_null(original);
    row_ids_of(appended, "insert", original, table_rows);
    free(appended);
    unsigned seed = (unsigned)time(NULL);
    print_message("seed %u\n", seed);
    char *previous = read_at(f.table, -1, &n);
    for (int round = 0; round < 8; round++) {
        char set[300], where[400];
        if (round == 0) { /* a partition-changing update, pruned to one team */
            snprintf(set, sizeof set, "team_id = 7, amount = amount + 1");
            snprintf(where, sizeof where, "team_id = 2 AND id BETWEEN 3000 AND 8999");
        } else {
            random_set(&seed, set, sizeof set);
            random_where(&seed, where, sizeof where);
        }
        int64_t head = head_of("updfile");
        struct hl_delete_options o;
        hl_delete_options_init(&o);
        o.dry_run = true;
        struct hl_update_result dry, r;
        struct hl_error err;
        test_check(hl_table_update(f.table, set, where, &o, &dry, &err), &err, where);
        assert_int_equal(head_of("updfile"), head);
        o.dry_run = false;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        test_check(hl_table_update(f.table, set, where, &o, &r, &err), &err, where);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        print_message(
            "SET %s WHERE %s: %lld rows in %.1f ms, %lld files read (%lld pruned), "
            "%lld/%lld row groups pruned, %lld files written\n",
            set, where, (long long)r.rows_updated,
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
            (long long)r.files_scanned, (long long)r.files_pruned, (long long)r.row_groups_pruned,
            (long long)(r.row_groups_pruned + r.row_groups_scanned), (long long)r.files_written);
        char sql[1200];
        snprintf(sql, sizeof sql, "UPDATE t SET %s WHERE %s\n;\n" DUCKDB_ROWS, set, where);
        char *want = duckdb_run(db, sql);
        char *rows = strchr(want, '\n') + 1; /* after the UPDATE's count */
        long long want_count = strtoll(want, NULL, 10);
        if (dry.rows_updated != want_count || r.rows_updated != want_count)
            fail_msg("SET %s WHERE %s: %lld rows (dry run %lld), DuckDB %lld", set, where,
                     (long long)r.rows_updated, (long long)dry.rows_updated, want_count);
        assert_int_equal(r.snapshot_id, want_count > 0 ? head + 1 : -1);
        assert_int_equal(head_of("updfile"), want_count > 0 ? head + 1 : head);
        char *got = read_at(f.table, -1, &n);
        if (strcmp(got, rows) != 0)
            fail_msg("SET %s WHERE %s: the table and DuckDB disagree (%zu vs %zu bytes)", set,
                     where, strlen(got), strlen(rows));
        assert_int_equal(n, table_rows);
        /* Time travel: the snapshot before reads the rows before. */
        char *before = read_at(f.table, head, &n);
        assert_string_equal(before, previous);
        free(before);
        if (want_count > 0)
            expect_ids_kept(f.table, head, want_count, original);
        if (round == 0) {
            /* Team 2's file of the first append only (the second's ids
             * are all above), and its row groups of other ids. */
            assert_int_equal(r.files_pruned + r.files_scanned, 2 * NTEAMS);
            assert_int_equal(r.files_scanned, 1);
            assert_true(r.row_groups_pruned > 0);
            assert_true(r.bytes_written > 0);
            /* The moved rows are in files of partition 7 that keep ids. */
            assert_int_equal(
                sqli("SELECT count(*) FROM hog_data_file d JOIN hog_file_partition_value pv ON "
                     "pv.catalog_id = d.catalog_id AND pv.data_file_id = d.data_file_id "
                     "WHERE d.catalog_id = %lld AND pv.value = '7' AND d.explicit_row_ids "
                     "AND d.record_count = %lld",
                     (long long)cat_id("updfile"), want_count),
                1);
        }
        free(previous);
        previous = got;
        free(want);
    }
    free(previous);
    free(original);
    fixture_free(&f);
}

/* The same on S3: one update moving rows to a new partition, read back
 * against the rule it applied. */
static void update_moto(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, stack.moto_client, "updmoto");
    int64_t s0 = append_range(f.table, 0, 4000, false);
    struct hl_update_result r;
    struct hl_error err;
    test_check(hl_table_update(f.table, "amount = -id, team_id = 9", "id BETWEEN 1000 AND 2999",
                               NULL, &r, &err),
               &err, "update");
    assert_int_equal(r.rows_updated, 2000);
    assert_int_equal(r.snapshot_id, s0 + 1);
    int64_t n, moved = 0;
    char *rows = read_at(f.table, -1, &n);
    assert_int_equal(n, 4000);
    for (const char *p = rows; *p; p = strchr(p, '\n') + 1) {
        long long id = strtoll(p, NULL, 10);
        const char *team = strchr(p, '\t') + 1;
        bool in = id >= 1000 && id <= 2999;
        assert_int_equal(strtol(team, NULL, 10) == 9, in);
        if (in) {
            const char *tab = p;
            for (int k = 0; k < 3; k++)
                tab = strchr(tab, '\t') + 1;
            assert_int_equal(strtoll(tab, NULL, 10), -id);
            moved++;
        }
    }
    assert_int_equal(moved, 2000);
    free(rows);
    /* Before the update, the rows as appended. */
    char *before = read_at(f.table, s0, &n);
    assert_int_equal(n, 4000);
    assert_null(strstr(before, "\t9\t"));
    free(before);
    fixture_free(&f);
}

/* ---- refusals ---- */

static int64_t claims_in(const char *catalog, const char *state)
{
    return sqli("SELECT count(*) FROM hog_upload WHERE catalog_id = %lld AND state = '%s'",
                (long long)cat_id(catalog), state);
}

/* NULL for a required column: refused when the clause is bound, or for
 * the rows that take it; nothing committed, nothing left in storage. */
static void null_into_required(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, stack.file_client, "updnull");
    append_range(f.table, 0, 6000, false);
    int64_t head = head_of("updnull"), objects = test_count_files(f.prefix + 7, "");
    struct hl_update_result r;
    struct hl_error err;
    assert_int_equal(hl_table_update(f.table, "team_id = NULL", "id < 10", NULL, &r, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.code, "invalid_set");
    expect_contains(err.message, "team_id", "the column named");
    /* Rows of several row groups take a value before one takes NULL. */
    assert_int_equal(hl_table_update(f.table,
                                     "name = 'x', team_id = CASE WHEN id = 5990 THEN NULL ELSE 1 "
                                     "END",
                                     "id >= 10", NULL, &r, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.code, "invalid_set");
    expect_contains(err.message, "team_id", "the column named");
    assert_int_equal(r.snapshot_id, -1);
    /* A type error. */
    assert_int_equal(hl_table_update(f.table, "amount = 'text'", "true", NULL, &r, &err),
                     HL_ERR_INVALID_ARGUMENT);
    expect_contains(err.message, "'text'", "the token at fault");
    /* The row ids are the update's to keep: no clause may name them. */
    assert_int_equal(hl_table_update(f.table, "_hog_row_id = 5", "true", NULL, &r, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.code, "invalid_set");
    assert_int_equal(hl_table_update(f.table, "amount = _hog_row_id", "true", NULL, &r, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_int_equal(hl_table_update(f.table, "amount = 1", "_hog_row_id = 3", NULL, &r, &err),
                     HL_ERR_INVALID_ARGUMENT);
    assert_string_equal(err.code, "invalid_predicate");
    assert_int_equal(head_of("updnull"), head);
    assert_int_equal(test_count_files(f.prefix + 7, ""), objects);
    assert_int_equal(claims_in("updnull", "active"), 0);
    assert_int_equal(claims_in("updnull", "registered"),
                     sqli("SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld",
                          (long long)cat_id("updnull")));
    fixture_free(&f);
}

/* ---- a concurrent append ---- */

struct racer {
    hl_table *table;
    hl_status st;
    struct hl_error err;
    struct hl_update_result r;
};

static void *run_update(void *arg)
{
    struct racer *u = arg;
    u->st = hl_table_update(u->table, "name = 'moved'", "team_id = 1", NULL, &u->r, &u->err);
    return NULL;
}

/* The update's first plan read (the scan with column statistics) waits on
 * a lock of the partition values table, which every file read joins;
 * meanwhile an append to the table, unpartitioned here (so the append never
 * touches that table), commits. The update's commit is then
 * refused (commit_conflict), and its second attempt, reading again,
 * updates the appended rows too. */
static void conflict_retried(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up_as(&f, stack.file_client, "updrace", true);
    append_range(f.table, 0, 5000, false);
    hl_client *other = test_client_new(stack.srv2.base, NULL);
    hl_catalog *oc;
    hl_namespace *ons;
    hl_table *ot;
    struct hl_error err;
    test_check(hl_catalog_open(other, "updrace", &oc, &err), &err, "catalog");
    test_check(hl_namespace_open(oc, "ns", &ons, &err), &err, "namespace");
    test_check(hl_table_open(ons, "events", &ot, &err), &err, "table");
    sql_exec("BEGIN");
    sql_exec("LOCK TABLE hog_file_partition_value IN ACCESS EXCLUSIVE MODE");
    struct racer u = {.table = f.table};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, run_update, &u), 0);
    int waited = 0;
    while (sqli("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE "
                "c.relname = 'hog_file_partition_value' AND NOT l.granted") == 0) {
        sleep_ms(20);
        if (++waited > 1500)
            fail_msg("the update never read the plan");
    }
    int64_t appended = append_range(ot, 5000, 6000, true);
    sql_exec("COMMIT");
    assert_int_equal(pthread_join(th, NULL), 0);
    test_check(u.st, &u.err, "the update");
    assert_int_equal(u.r.attempts, 2);
    assert_true(u.r.read_snapshot >= appended);
    assert_int_equal(u.r.rows_updated, 6000 / NTEAMS);
    int64_t n;
    char *rows = read_at(f.table, -1, &n);
    assert_int_equal(n, 6000);
    int64_t moved = 0;
    for (const char *p = rows; (p = strstr(p, "\tmoved\t")); p++)
        moved++;
    assert_int_equal(moved, 6000 / NTEAMS);
    free(rows);
    hl_table_free(ot);
    hl_namespace_free(ons);
    hl_catalog_free(oc);
    hl_client_free(other);
    fixture_free(&f);
}

/* ---- the CLI ---- */

static void update_cli(void **state)
{
    (void)state;
    struct fixture f;
    fixture_up(&f, stack.file_client, "updcli");
    append_range(f.table, 0, 1000, false);
    int64_t head = head_of("updcli");
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "update updcli.ns.events --set \"name = 'cli', amount = amount + 1\" "
            "--where \"id < 100 OR name = 'n101'\" --dry-run");
    cli_out_expect(&o, 0, "update --dry-run");
    expect_contains(o.out, "would update 101 rows", "the dry run");
    cli_out_free(&o);
    assert_int_equal(head_of("updcli"), head);
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "--json update updcli.ns.events --set \"name = 'cli', amount = amount + 1\" "
            "--where \"id < 100 OR name = 'n101'\" --author ann --message fix");
    cli_out_expect(&o, 0, "update");
    json_t *doc = jparse(o.out);
    assert_int_equal(jint(doc, "rows_updated"), 101);
    assert_int_equal(jint(doc, "snapshot_id"), head + 1);
    assert_true(jint(doc, "files_written") > 0);
    json_decref(doc);
    cli_out_free(&o);
    expect_sql(
        "ann|fix",
        "SELECT author || '|' || commit_message FROM hog_snapshot WHERE catalog_id = %lld AND "
        "snapshot_id = %lld",
        (long long)cat_id("updcli"), (long long)head + 1);
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "update updcli.ns.events --set \"name = 'x'\" --where \"id < 0\"");
    cli_out_expect(&o, 0, "an update that matches nothing");
    expect_contains(o.out, "nothing updated", "no match");
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "update updcli.ns.events --set \"nope = 1\" --where \"true\"");
    assert_int_not_equal(o.code, 0);
    expect_contains(o.err, "nope", "the unknown column");
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, stack.srv.base, stack.warehouse,
            "update updcli.ns.events --where \"true\"");
    assert_int_not_equal(o.code, 0);
    expect_contains(o.err, "--set", "the missing option");
    cli_out_free(&o);
    assert_int_equal(head_of("updcli"), head + 1);
    int64_t n;
    char *rows = read_at(f.table, -1, &n);
    int64_t cli_rows = 0;
    for (const char *p = rows; (p = strstr(p, "\tcli\t")); p++)
        cli_rows++;
    assert_int_equal(cli_rows, 101);
    free(rows);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(updates_match_duckdb), cmocka_unit_test(update_moto),
        cmocka_unit_test(null_into_required),   cmocka_unit_test(conflict_retried),
        cmocka_unit_test(update_cli),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
