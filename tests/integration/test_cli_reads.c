/* The CLI's read commands against a real server: files (with time travel),
 * changes, offsets and paged snapshots. Every --json output is compared
 * with what the API itself answers, and the human tables with the same
 * facts; usage errors are shown to send no request at all. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

#define CAT "rd"
#define NS "ns"
#define DATA "s3://hoglake-test/" CAT
#define TBL "/v1/catalogs/" CAT "/namespaces/" NS "/tables/"
/* Nothing listens here: a command that sends a request fails with exit 1. */
#define NOWHERE "http://127.0.0.1:1"

static struct test_db db;
static struct test_server srv;
static PGconn *pg;

/* Snapshots the fixture made, in order. */
static int64_t s_first, s_second, s_deletes;
static char events_uuid[40], other_uuid[40];

struct out {
    int code;
    char text[1 << 17];
    char err[4096];
};

/* Runs `hoglake --server SERVER <args>`; args is printf-formatted and
 * already shell-quoted. stdout and stderr are kept apart. */
static void hl_to(struct out *o, const char *server, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void hl_to(struct out *o, const char *server, const char *fmt, ...)
{
    char args[2048], cmd[4096], errfile[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(errfile, sizeof errfile, "%s/reads.err", srv.dir);
    snprintf(cmd, sizeof cmd, "%s --server %s %s 2>%s", HOGLAKE_CLI_BIN, server, args, errfile);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(o->text, 1, sizeof o->text - 1, p);
    o->text[n] = '\0';
    int status = pclose(p);
    o->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    FILE *e = fopen(errfile, "r");
    n = e ? fread(o->err, 1, sizeof o->err - 1, e) : 0;
    o->err[n] = '\0';
    if (e)
        fclose(e);
}

#define expect_exit(o, want)                                                                       \
    do {                                                                                           \
        if ((o)->code != (want))                                                                   \
            fail_msg("exit %d, expected %d\nstdout: %s\nstderr: %s", (o)->code, (want), (o)->text, \
                     (o)->err);                                                                    \
    } while (0)

/* What GET `api_path` answers, as the whole listing the CLI prints: a
 * page of files or changes (the fixture's fit in one) without its
 * next_page_token, and a file listing as its array of files. */
static json_t *api_listing(const char *api_path)
{
    json_t *got = api_get_json(&srv, "%s", api_path);
    const json_t *token = json_is_object(got) ? json_object_get(got, "next_page_token") : NULL;
    if (!token)
        return got;
    assert_true(json_is_null(token));
    json_object_del(got, "next_page_token");
    if (json_object_size(got) != 1 || !json_is_array(json_object_get(got, "files")))
        return got;
    json_t *files = json_incref(json_object_get(got, "files"));
    json_decref(got);
    return files;
}

/* The command's --json output equals what GET `api_path` answers. */
static void expect_json_as_api(const char *args, const char *api_path)
{
    struct out o;
    hl_to(&o, srv.base, "--json %s", args);
    expect_exit(&o, 0);
    json_t *got = jparse(o.text);
    json_t *want = api_listing(api_path);
    if (!json_equal(got, want)) {
        char *w = json_dumps(want, JSON_COMPACT);
        fail_msg("hoglake --json %s\nprinted: %s\nthe API: %s", args, o.text, w);
    }
    json_decref(got);
    json_decref(want);
}

/* The line of `text` holding `needle`, copied into line. */
static const char *line_with(const char *text, const char *needle, char *line, size_t size)
{
    const char *at = strstr(text, needle);
    if (!at)
        fail_msg("'%s' not in:\n%s", needle, text);
    const char *start = at;
    while (start > text && start[-1] != '\n')
        start--;
    const char *end = strchr(at, '\n');
    size_t n = end ? (size_t)(end - start) : strlen(start);
    snprintf(line, size, "%.*s", (int)n, start);
    return line;
}

/* Column `col` (0-based, split on runs of spaces) of a table line. */
static void column(const char *line, int col, char *out, size_t size)
{
    const char *p = line;
    for (int c = 0;; c++) {
        while (*p == ' ')
            p++;
        const char *end = strstr(p, "  ");
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (c == col) {
            snprintf(out, size, "%.*s", (int)n, p);
            return;
        }
        if (!end)
            fail_msg("no column %d in '%s'", col, line);
        p = end;
    }
}

/* Each of `headers` starts at the same offset in the header line as its
 * value in `row`: the table is aligned. */
static void expect_aligned(const char *header_line, const char *row, const char *const *headers,
                           int n)
{
    for (int c = 0; c < n; c++) {
        const char *h = strstr(header_line, headers[c]);
        assert_non_null(h);
        size_t at = (size_t)(h - header_line);
        assert_true(strlen(row) > at);
        if (row[at] == ' ' || (at > 0 && row[at - 1] != ' '))
            fail_msg("column %s is not aligned:\n%s\n%s", headers[c], header_line, row);
    }
}

static void put_offset(const char *consumer, const char *uuid, int64_t snapshot)
{
    struct http_result r;
    api_send(&r, &srv, "PUT", jpack("{s:I}", "snapshot_id", (json_int_t)snapshot),
             "/v1/catalogs/" CAT "/consumers/%s/offsets/%s", consumer, uuid);
    expect_status(&r, 200);
    http_result_free(&r);
}

static void uuid_of(const char *table, char *out, size_t size)
{
    json_t *t = api_get_json(&srv, TBL "%s", table);
    snprintf(out, size, "%s", jstr(t, "table_uuid"));
    json_decref(t);
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "cli_reads", CAT, NS);
    /* The commands this program runs act as the server's admin. */
    setenv("HOGLAKE_TOKEN", srv.token, 1);
    struct out o;
    hl_to(&o, srv.base,
          "table create " CAT "." NS ".events --columns 'id:long!, kind:string' "
          "--partition-by kind");
    expect_exit(&o, 0);
    hl_to(&o, srv.base, "table create " CAT "." NS ".other --columns 'id:long'");
    expect_exit(&o, 0);
    uuid_of("events", events_uuid, sizeof events_uuid);
    uuid_of("other", other_uuid, sizeof other_uuid);
    s_first =
        api_commit(&srv, CAT,
                   "{'appends':[{'namespace':'" NS "','table':'events','files':["
                   "{'path':'" DATA "/events/a.parquet','record_count':10,'file_size_bytes':1000,"
                   "'partition_values':['click']},"
                   "{'path':'" DATA "/events/b.parquet','record_count':5,'file_size_bytes':300,"
                   "'partition_values':[null]}]},"
                   "{'namespace':'" NS "','table':'other','files':["
                   "{'path':'" DATA "/other/o.parquet','record_count':1,'file_size_bytes':9}]}]}");
    /* Apart in time, so --at can name the first commit's instant. */
    sleep_ms(20);
    s_second = api_commit(&srv, CAT,
                          "{'appends':[{'namespace':'" NS "','table':'events','files':["
                          "{'path':'" DATA "/events/c.parquet','record_count':7,"
                          "'file_size_bytes':70,'partition_values':['view']}]}]}");
    int64_t a =
        sqli("SELECT data_file_id FROM hog_data_file WHERE path = '" DATA "/events/a.parquet'");
    char body[600];
    snprintf(body, sizeof body,
             "{'read_snapshot':%lld,'deletes':[{'namespace':'" NS "','table':'events','files':"
             "[{'data_file_id':%lld,'path':'" DATA "/events/a-dv.puffin','delete_count':3,"
             "'file_size_bytes':50}]}]}",
             (long long)s_second, (long long)a);
    s_deletes = api_commit(&srv, CAT, body);
    put_offset("feed", events_uuid, s_second);
    put_offset("feed", other_uuid, s_first);
    put_offset("audit", events_uuid, s_deletes);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* ---- files ---- */

static const char *const file_headers[] = {"ID",           "ROWS",           "BYTES",     "STATS",
                                           "ROW_ID_START", "BEGIN_SNAPSHOT", "PARTITION", "PATH"};

static void files_at_head(void **state)
{
    (void)state;
    expect_json_as_api("files " CAT "." NS ".events", TBL "events/files");
    json_t *files = api_listing(TBL "events/files");
    assert_int_equal(json_array_size(files), 3);
    struct out o;
    hl_to(&o, srv.base, "files " CAT "." NS ".events");
    expect_exit(&o, 0);
    char header[400], row[600], cell[200], want[64];
    line_with(o.text, "PATH", header, sizeof header);
    assert_true(strncmp(o.text, header, strlen(header)) == 0); /* the first line */
    size_t i;
    json_t *f;
    long long rows = 0, bytes = 0;
    json_array_foreach (files, i, f) {
        line_with(o.text, jstr(f, "path"), row, sizeof row);
        expect_aligned(header, row, file_headers, 8);
        /* Sizes in binary units (these files are under 1 KiB). */
        assert_true(jint(f, "file_size_bytes") < 1024);
        static const char *const keys[] = {"data_file_id", "record_count", "file_size_bytes",
                                           NULL,           "row_id_start", "begin_snapshot"};
        for (int c = 0; c < 6; c++) {
            column(row, c, cell, sizeof cell);
            if (keys[c])
                snprintf(want, sizeof want, c == 2 ? "%lld B" : "%lld",
                         (long long)jint(f, keys[c]));
            else
                snprintf(want, sizeof want, "%s", jstr(f, "stats_state"));
            assert_string_equal(cell, want);
        }
        /* Named by the spec (identity on kind), the text quoted. */
        const json_t *pv = json_array_get(json_object_get(f, "partition_values"), 0);
        if (json_is_string(pv))
            snprintf(want, sizeof want, "kind=\"%s\"", json_string_value(pv));
        else
            snprintf(want, sizeof want, "kind=null");
        column(row, 6, cell, sizeof cell);
        assert_string_equal(cell, want);
        column(row, 7, cell, sizeof cell);
        assert_string_equal(cell, jstr(f, "path"));
        rows += jint(f, "record_count");
        bytes += jint(f, "file_size_bytes");
    }
    /* A NULL partition value stays apart from the text "null". */
    assert_non_null(strstr(o.text, " kind=null "));
    char totals[100];
    assert_true(bytes >= 1024 && bytes < 1024 * 1024);
    snprintf(totals, sizeof totals, "3 files, %lld rows, %.1f KiB\n", rows, (double)bytes / 1024);
    assert_non_null(strstr(o.text, totals));
    json_decref(files);
}

static void files_time_travel(void **state)
{
    (void)state;
    char args[300], api[300];
    snprintf(args, sizeof args, "files " CAT "." NS ".events --snapshot %lld", (long long)s_first);
    snprintf(api, sizeof api, TBL "events/files?snapshot=%lld", (long long)s_first);
    expect_json_as_api(args, api);
    json_t *then = api_listing(api);
    assert_int_equal(json_array_size(then), 2);
    /* --at the first commit's instant reads the same as --snapshot. */
    json_t *page = api_get_json(&srv, "/v1/catalogs/" CAT "/snapshots?after=%lld&limit=1",
                                (long long)s_first - 1);
    json_t *snap = json_array_get(json_object_get(page, "snapshots"), 0);
    assert_int_equal(jint(snap, "snapshot_id"), s_first);
    struct out o;
    hl_to(&o, srv.base, "--json files " CAT "." NS ".events --at '%s'",
          jstr(snap, "snapshot_time"));
    expect_exit(&o, 0);
    json_t *at = jparse(o.text);
    assert_true(json_equal(at, then));
    json_decref(at);
    /* The same instant written with a numeric offset (its '+' must reach
     * the server encoded). */
    char offset_form[64];
    const char *when = jstr(snap, "snapshot_time");
    assert_true(when[strlen(when) - 1] == 'Z');
    snprintf(offset_form, sizeof offset_form, "%.*s+00:00", (int)strlen(when) - 1, when);
    hl_to(&o, srv.base, "--json files " CAT "." NS ".events --at '%s'", offset_form);
    expect_exit(&o, 0);
    at = jparse(o.text);
    assert_true(json_equal(at, then));
    json_decref(at);
    hl_to(&o, srv.base, "files " CAT "." NS ".events --at '%s'", when);
    expect_exit(&o, 0);
    assert_non_null(strstr(o.text, DATA "/events/b.parquet"));
    assert_null(strstr(o.text, DATA "/events/c.parquet"));
    assert_non_null(strstr(o.text, "2 files, 15 rows, 1.3 KiB"));
    /* Before the table existed it is not found. */
    hl_to(&o, srv.base, "files " CAT "." NS ".events --snapshot 1");
    expect_exit(&o, 3);
    json_decref(page);
    json_decref(then);
}

/* ---- changes ---- */

static void changes_between_commits(void **state)
{
    (void)state;
    char args[300], api[300];
    snprintf(args, sizeof args, "changes " CAT "." NS ".events --from %lld --to %lld",
             (long long)s_first, (long long)s_deletes);
    snprintf(api, sizeof api, TBL "events/changes?from_snapshot=%lld&to_snapshot=%lld",
             (long long)s_first, (long long)s_deletes);
    expect_json_as_api(args, api);
    json_t *plan = api_listing(api);
    json_t *files = json_object_get(plan, "files");
    json_t *deletes = json_object_get(plan, "delete_files");
    assert_int_equal(json_array_size(files), 1);
    assert_string_equal(jstr(json_array_get(files, 0), "path"), DATA "/events/c.parquet");
    assert_int_equal(json_array_size(deletes), 1);
    json_t *dv = json_array_get(deletes, 0);

    struct out o;
    hl_to(&o, srv.base, "%s", args);
    expect_exit(&o, 0);
    char want[200], row[600], header[400], cell[100];
    snprintf(want, sizeof want, "after snapshot %lld, up to snapshot %lld", (long long)s_first,
             (long long)s_deletes);
    assert_non_null(strstr(o.text, want));
    snprintf(want, sizeof want, "uuid            %s\n", events_uuid);
    assert_non_null(strstr(o.text, want));
    assert_non_null(strstr(o.text, "data files      1\n"));
    assert_non_null(strstr(o.text, "delete files    1\n"));
    line_with(o.text, DATA "/events/c.parquet", row, sizeof row);
    line_with(o.text, "BEGIN_SNAPSHOT  PARTITION", header, sizeof header);
    expect_aligned(header, row, file_headers, 8);
    line_with(o.text, DATA "/events/a-dv.puffin", row, sizeof row);
    line_with(o.text, "DATA_FILE", header, sizeof header);
    static const char *const dv_headers[] = {"DATA_FILE", "DELETES", "BYTES", "PATH"};
    expect_aligned(header, row, dv_headers, 4);
    column(row, 1, cell, sizeof cell);
    snprintf(want, sizeof want, "%lld", (long long)jint(dv, "data_file_id"));
    assert_string_equal(cell, want);
    column(row, 2, cell, sizeof cell);
    assert_string_equal(cell, "3");
    /* The a/b files of the first commit are not in its own window. */
    assert_null(strstr(o.text, DATA "/events/a.parquet"));
    json_decref(plan);

    /* Without --to the window ends at the head. */
    snprintf(args, sizeof args, "changes " CAT "." NS ".events --from 0");
    snprintf(api, sizeof api, TBL "events/changes?from_snapshot=0");
    expect_json_as_api(args, api);
    hl_to(&o, srv.base, "%s", args);
    expect_exit(&o, 0);
    snprintf(want, sizeof want, "after snapshot 0, up to snapshot %lld", (long long)head_of(CAT));
    assert_non_null(strstr(o.text, want));
    assert_non_null(strstr(o.text, "data files      3\n"));
}

/* ---- listings of many pages ---- */

/* files and changes read every page: a table of 2,500 files (three pages
 * of the server's default size) is listed whole, each file once. */
static void listings_page_through(void **state)
{
    (void)state;
    struct out o;
    hl_to(&o, srv.base, "table create " CAT "." NS ".many --columns 'id:long'");
    expect_exit(&o, 0);
    int64_t created = head_of(CAT);
    enum { MANY = 2500 };
    size_t cap = 200 + MANY * 120, n = 0;
    char *body = malloc(cap);
    assert_non_null(body);
    n += (size_t)snprintf(body + n, cap - n,
                          "{'appends':[{'namespace':'" NS "','table':'many','files':[");
    for (int i = 0; i < MANY; i++)
        n += (size_t)snprintf(body + n, cap - n,
                              "%s{'path':'" DATA "/many/%04d.parquet','record_count':2,"
                              "'file_size_bytes':10,'column_stats':[]}",
                              i ? "," : "", i);
    snprintf(body + n, cap - n, "]}]}");
    api_commit(&srv, CAT, body);
    free(body);
    int64_t first =
        sqli("SELECT min(data_file_id) FROM hog_data_file WHERE path LIKE '" DATA "/many/%%'");

    struct cli_out c;
    cli_run(&c, HOGLAKE_CLI_BIN, srv.base, srv.dir, "--json files " CAT "." NS ".many");
    cli_out_expect(&c, 0, "files --json");
    json_t *files = jparse(c.out);
    cli_out_free(&c);
    assert_int_equal(json_array_size(files), MANY);
    for (size_t i = 0; i < MANY; i++)
        assert_int_equal(jint(json_array_get(files, i), "data_file_id"), first + (int64_t)i);
    json_decref(files);

    cli_run(&c, HOGLAKE_CLI_BIN, srv.base, srv.dir, "files " CAT "." NS ".many");
    cli_out_expect(&c, 0, "files");
    expect_contains(c.out, "2,500 files, 5,000 rows, 24.4 KiB\n", "files");
    expect_contains(c.out, DATA "/many/2499.parquet", "files");
    cli_out_free(&c);

    cli_run(&c, HOGLAKE_CLI_BIN, srv.base, srv.dir,
            "--json changes " CAT "." NS ".many --from %lld", (long long)created);
    cli_out_expect(&c, 0, "changes --json");
    json_t *plan = jparse(c.out);
    cli_out_free(&c);
    assert_int_equal(json_array_size(json_object_get(plan, "files")), MANY);
    assert_null(json_object_get(plan, "next_page_token"));
    json_decref(plan);
    cli_run(&c, HOGLAKE_CLI_BIN, srv.base, srv.dir, "changes " CAT "." NS ".many --from %lld",
            (long long)created);
    cli_out_expect(&c, 0, "changes");
    expect_contains(c.out, "data files      2500\n", "changes");
    cli_out_free(&c);
}

/* ---- offsets ---- */

static void consumer_offsets(void **state)
{
    (void)state;
    expect_json_as_api("offsets " CAT " feed", "/v1/catalogs/" CAT "/consumers/feed/offsets");
    char args[200], api[200];
    snprintf(args, sizeof args, "offsets " CAT " feed %s", other_uuid);
    snprintf(api, sizeof api, "/v1/catalogs/" CAT "/consumers/feed/offsets/%s", other_uuid);
    expect_json_as_api(args, api);

    json_t *list = api_get_json(&srv, "/v1/catalogs/" CAT "/consumers/feed/offsets");
    assert_int_equal(json_array_size(list), 2);
    struct out o;
    hl_to(&o, srv.base, "offsets " CAT " feed");
    expect_exit(&o, 0);
    char header[300], row[300], cell[100], want[40];
    line_with(o.text, "COMMITTED_SNAPSHOT", header, sizeof header);
    static const char *const headers[] = {"CONSUMER", "TABLE_UUID", "COMMITTED_SNAPSHOT",
                                          "UPDATED_AT"};
    size_t i;
    json_t *off;
    json_array_foreach (list, i, off) {
        line_with(o.text, jstr(off, "table_uuid"), row, sizeof row);
        expect_aligned(header, row, headers, 4);
        column(row, 0, cell, sizeof cell);
        assert_string_equal(cell, "feed");
        column(row, 2, cell, sizeof cell);
        snprintf(want, sizeof want, "%lld", (long long)jint(off, "committed_snapshot"));
        assert_string_equal(cell, want);
        column(row, 3, cell, sizeof cell);
        assert_string_equal(cell, jstr(off, "updated_at"));
    }
    assert_null(strstr(o.text, "audit"));
    json_decref(list);

    /* One offset; an unknown consumer or table is not found; a malformed
     * uuid is the server's bad_request, with its detail. */
    hl_to(&o, srv.base, "offsets " CAT " audit %s", events_uuid);
    expect_exit(&o, 0);
    snprintf(want, sizeof want, "%lld", (long long)s_deletes);
    line_with(o.text, events_uuid, row, sizeof row);
    column(row, 2, cell, sizeof cell);
    assert_string_equal(cell, want);
    hl_to(&o, srv.base, "offsets " CAT " nobody");
    expect_exit(&o, 3);
    assert_non_null(strstr(o.err, "not_found"));
    hl_to(&o, srv.base, "offsets " CAT " audit %s", other_uuid);
    expect_exit(&o, 3);
    hl_to(&o, srv.base, "offsets " CAT " audit not-a-uuid");
    expect_exit(&o, 1);
    assert_non_null(strstr(o.err, "bad_request"));
    assert_non_null(strstr(o.err, "must be a UUID"));
}

/* ---- snapshots ---- */

/* The whole log from the API in one request (the catalog is far smaller
 * than the server's 10000 cap), for comparing with the CLI's pages. */
static json_t *log_from_api(const char *cursor)
{
    json_t *page = api_get_json(&srv, "/v1/catalogs/" CAT "/snapshots?%s&limit=10000", cursor);
    assert_true(json_is_false(json_object_get(page, "has_more")));
    json_t *snaps = json_incref(json_object_get(page, "snapshots"));
    json_decref(page);
    return snaps;
}

static void expect_paged(const char *args, const char *cursor, size_t at_least)
{
    struct out o;
    hl_to(&o, srv.base, "--json snapshots " CAT " %s", args);
    expect_exit(&o, 0);
    json_t *got = jparse(o.text);
    json_t *want = log_from_api(cursor);
    assert_true(json_is_array(got));
    assert_true(json_array_size(want) >= at_least);
    if (!json_equal(got, want))
        fail_msg("snapshots %s printed %s", args, o.text);
    json_decref(got);
    json_decref(want);
}

static void snapshots_paged(void **state)
{
    (void)state;
    int64_t head = head_of(CAT);
    assert_true(head >= 6); /* pages of 2, 3 and 4 cover it in several */
    /* Every snapshot once, in order, through pages that end exactly at
     * the head and through a last page that is short. */
    expect_paged("--limit 2", "after=0", (size_t)head);
    expect_paged("--limit 3 --after 0", "after=0", (size_t)head);
    expect_paged("--limit 4", "after=0", (size_t)head);
    json_t *all = log_from_api("after=0");
    int64_t prev = 0;
    size_t i;
    json_t *s;
    json_array_foreach (all, i, s) {
        assert_true(jint(s, "snapshot_id") > prev);
        prev = jint(s, "snapshot_id");
    }
    assert_int_equal(prev, head);
    json_decref(all);
    char args[100], cursor[100];
    /* Walks forwards from a cursor, and backwards (newest first). */
    snprintf(args, sizeof args, "--after %lld --limit 2", (long long)s_first);
    snprintf(cursor, sizeof cursor, "after=%lld", (long long)s_first);
    expect_paged(args, cursor, 2);
    snprintf(args, sizeof args, "--before %lld --limit 2", (long long)head);
    snprintf(cursor, sizeof cursor, "before=%lld", (long long)head);
    expect_paged(args, cursor, (size_t)head - 1);
    expect_paged("--before 4 --after 0 --limit 1", "before=4", 4);

    /* The human table: one line per snapshot, in the same order. */
    struct out o;
    hl_to(&o, srv.base, "snapshots " CAT " --limit 2");
    expect_exit(&o, 0);
    const char *line = strchr(o.text, '\n');
    assert_non_null(line);
    int64_t expect_id = 1, lines = 0;
    for (line++; *line; line = strchr(line, '\n') + 1) {
        assert_int_equal(strtoll(line, NULL, 10), expect_id++);
        lines++;
    }
    assert_int_equal(lines, head);
}

/* ---- errors ---- */

static void usage_errors_send_nothing(void **state)
{
    (void)state;
    /* Against a server that is not there: a request would exit 1. */
    static const char *const bad[] = {
        "snapshots " CAT " --before 5 --after 3",
        "snapshots " CAT " --limit 0",
        "snapshots " CAT " --after x",
        "snapshots " CAT " " CAT,
        "files " CAT "." NS ".events --snapshot 1 --at 2026-09-05T00:00:00Z",
        "files " CAT "." NS ".events --at yesterday",
        "files " CAT "." NS ".events --at 2026-09-05T00:00:00",
        "files " CAT "." NS ".events --snapshot -1",
        "files " CAT "." NS,
        "files " CAT "." NS ".events extra",
        "changes " CAT "." NS ".events",
        "changes " CAT "." NS ".events --from 1 --to two",
        "changes " CAT "." NS ".events --from",
        "offsets " CAT,
        "offsets " CAT " feed " CAT " more",
        "offsets " CAT ".x feed",
    };
    struct out o;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hl_to(&o, NOWHERE, "%s", bad[i]);
        if (o.code != 2)
            fail_msg("'%s': exit %d, expected 2\nstderr: %s", bad[i], o.code, o.err);
        assert_non_null(strstr(o.err, "hoglake: "));
    }
    /* The control: a valid command does try the server. */
    hl_to(&o, NOWHERE, "files " CAT "." NS ".events");
    expect_exit(&o, 1);
    static const char *const helps[] = {"files --help", "changes --help", "offsets --help",
                                        "snapshots --help"};
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++) {
        hl_to(&o, NOWHERE, "%s", helps[i]);
        expect_exit(&o, 0);
        assert_non_null(strstr(o.text, "usage: hoglake"));
    }
}

static void unknown_objects(void **state)
{
    (void)state;
    struct out o;
    static const char *const missing[] = {
        "files " CAT "." NS ".nope", "changes " CAT "." NS ".nope --from 0",
        "files " CAT ".nons.events", "files nocat." NS ".events",
        "snapshots nocat",           "offsets nocat feed",
    };
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        hl_to(&o, srv.base, "%s", missing[i]);
        if (o.code != 3)
            fail_msg("'%s': exit %d, expected 3\nstderr: %s", missing[i], o.code, o.err);
        assert_non_null(strstr(o.err, "not_found"));
    }
    /* The server's refusals carry its code and detail. */
    char args[200];
    snprintf(args, sizeof args, "changes " CAT "." NS ".events --from %lld --to %lld",
             (long long)s_deletes, (long long)s_first);
    hl_to(&o, srv.base, "%s", args);
    expect_exit(&o, 1);
    struct http_result r;
    api_get(&r, &srv, TBL "events/changes?from_snapshot=%lld&to_snapshot=%lld",
            (long long)s_deletes, (long long)s_first);
    assert_true(r.status >= 400);
    assert_non_null(strstr(o.err, jstr(r.json, "error")));
    assert_non_null(strstr(o.err, jstr(r.json, "detail")));
    http_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(files_at_head),           cmocka_unit_test(files_time_travel),
        cmocka_unit_test(changes_between_commits), cmocka_unit_test(consumer_offsets),
        cmocka_unit_test(snapshots_paged),         cmocka_unit_test(usage_errors_send_nothing),
        cmocka_unit_test(unknown_objects),         cmocka_unit_test(listings_page_through),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
