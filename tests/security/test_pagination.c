/* A big table read by many at once stays a bounded load. Before pages, a
 * scan of a 100,000-file table was one 28 MB answer built whole in the
 * server, and twelve at once starved every worker (a trivial GET waited
 * 22.9 s) at 3.2 GB of resident memory.
 *
 * Here a table of 100,000 registered files (fake s3:// keys: the server
 * never opens a data file on the commit or read path) is scanned through
 * its pages by twelve readers at once, while a trivial GET is timed over
 * and over and the server's resident memory sampled from /proc: every
 * reader sees every file, the GET stays well under a second, and the
 * memory stays bounded by the pages, not the table (the reading server is
 * a fresh one, with a small ASan quarantine: see small_asan_quarantine).
 * Then libhoglake reads the whole plan through its pages (every file
 * exactly once), both a page at a time and transparently. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client_harness.h"
#include "hoglake/hoglake.h"
#include "util/buf.h"

#define CAT "pages"
#define NS "ns"
#define TABLE "big"
#define SCAN_PATH "/v1/catalogs/" CAT "/namespaces/" NS "/tables/" TABLE "/scan"

enum {
    NFILES = 100000,
    FILES_PER_COMMIT = 25000,
    READERS = 12,
    /* What a trivial GET may take while the readers run, and what the
     * server may hold resident (its idle size, ASan's shadow and
     * quarantine included) however large the table. */
    PROBE_BUDGET_MS = 1000,
    RSS_BUDGET_KB = 300 * 1024,
    PROBE_EVERY_MS = 20,
};

static struct test_db db;
static struct test_server srv;
static PGconn *pg;
static int64_t first_file_id;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A kB figure of the server's /proc status ("VmRSS", "VmHWM"). */
static long server_kb(const char *field)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)srv.pid);
    char *text = test_read_text(path);
    const char *at = strstr(text, field);
    long kb = at ? strtol(at + strlen(field) + 1, NULL, 10) : -1;
    free(text);
    return kb;
}

/* Registers the files in a few large commits: one request each, the
 * statistics marked provided so no hydrator ever goes looking. */
static void register_files(void)
{
    for (int c = 0; c < NFILES / FILES_PER_COMMIT; c++) {
        struct buf body = BUF_INIT;
        assert_int_equal(buf_puts(&body, "{\"appends\":[{\"namespace\":\"" NS
                                         "\",\"table\":\"" TABLE "\",\"files\":["),
                         0);
        for (int i = 0; i < FILES_PER_COMMIT; i++)
            assert_int_equal(buf_printf(&body,
                                        "%s{\"path\":\"s3://hoglake-test/" CAT "/" TABLE
                                        "/f%06d.parquet\",\"record_count\":10,"
                                        "\"file_size_bytes\":1000,\"column_stats\":[]}",
                                        i ? "," : "", c * FILES_PER_COMMIT + i),
                             0);
        assert_int_equal(buf_puts(&body, "]}]}"), 0);
        struct http_result r;
        api_send_text(&r, &srv, "POST", body.data, "/v1/catalogs/" CAT "/commit");
        expect_status(&r, 200);
        http_result_free(&r);
        buf_free(&body);
    }
    first_file_id = sqli("SELECT min(data_file_id) FROM hog_data_file");
    assert_int_equal(sqli("SELECT count(*) FROM hog_data_file"), NFILES);
}

/* ASan holds freed memory in a quarantine (256 MB by default) before it
 * reuses it, and a server answering many reads fills it whatever it really
 * holds. The reading server gets a small one, so that VmRSS shows what
 * the server holds; without ASan the variable is ignored. */
static void small_asan_quarantine(void)
{
    const char *was = getenv("ASAN_OPTIONS");
    char opts[1024];
    snprintf(opts, sizeof opts, "%s%squarantine_size_mb=16", was ? was : "",
             was && *was ? ":" : "");
    assert_int_equal(setenv("ASAN_OPTIONS", opts, 1), 0);
}

static int setup(void **state)
{
    (void)state;
    test_stack_up(&db, &srv, &pg, "pagination", CAT, NS);
    json_t *t = make_table(&srv, CAT, NS, TABLE, "[{\"name\":\"id\",\"type\":\"long\"}]");
    json_decref(t);
    double t0 = now_ms();
    register_files();
    printf("registered %d files in %.1f s\n", NFILES, (now_ms() - t0) / 1e3);
    /* The reads go to a fresh server on the same database, so what it
     * holds is what reading costs (the commits' bodies are not reads). */
    test_server_stop(&srv);
    small_asan_quarantine();
    test_server_start(&srv, &db, NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_stack_down(&db, &srv, &pg);
    return 0;
}

/* ---- readers over HTTP ----
 *
 * They run on their own threads, so they never call into cmocka: each
 * records what it saw and the main thread asserts. */

struct reader {
    hl_client *client; /* shared: a client may serve many threads */
    long files, pages;
    double ms;
    char error[300];
    atomic_bool done; /* the rest is the thread's until this is set */
};

/* Occurrences of needle in s[0..n). (Not strstr: ASan's interceptor
 * measures the whole haystack on every call.) */
static long count_in(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    long found = 0;
    const char *end = s + n;
    for (const char *p = s; (p = memchr(p, needle[0], (size_t)(end - p))) != NULL; p++)
        found += (size_t)(end - p) >= k && memcmp(p, needle, k) == 0;
    return found;
}

/* Counts the page's ScanFiles and copies its next_page_token (an empty
 * string on the last page). False when the page has no token member. */
static bool read_scan_page(const char *body, size_t n, long *files, char *next, size_t next_size)
{
    static const char member[] = "\"next_page_token\":";
    const size_t k = sizeof member - 1;
    *files += count_in(body, n, "{\"data_file\":");
    /* The token is the page's last member. */
    const char *t = NULL;
    for (size_t i = n >= k ? n - k + 1 : 0; i-- > 0 && !t;)
        if (memcmp(body + i, member, k) == 0)
            t = body + i + k;
    if (!t)
        return false;
    next[0] = '\0';
    if (strncmp(t, "null", 4) == 0)
        return true;
    size_t len = t[0] == '"' ? strcspn(t + 1, "\"") : 0;
    if (len == 0 || len >= next_size)
        return false;
    memcpy(next, t + 1, len);
    next[len] = '\0';
    return true;
}

/* One whole scan through the pages. */
static void *scan_through_pages(void *arg)
{
    struct reader *rd = arg;
    double t0 = now_ms();
    char next[512] = "", path[1024];
    for (;;) {
        snprintf(path, sizeof path, SCAN_PATH "%s%s", next[0] ? "?page_token=" : "", next);
        char *body = NULL;
        struct hl_error e;
        hl_status st = hl_client_request(rd->client, "GET", path, NULL, &body, &e);
        if (st != HL_OK || !body) {
            snprintf(rd->error, sizeof rd->error, "page %ld: %.200s", rd->pages + 1,
                     st != HL_OK ? e.message : "no body");
            free(body);
            break;
        }
        rd->pages++;
        bool ok = read_scan_page(body, strlen(body), &rd->files, next, sizeof next);
        free(body);
        if (!ok) {
            snprintf(rd->error, sizeof rd->error, "page %ld has no usable next_page_token",
                     rd->pages);
            break;
        }
        if (!next[0])
            break;
    }
    rd->ms = now_ms() - t0;
    atomic_store(&rd->done, true);
    return NULL;
}

/* Twelve whole scans at once: each reader sees every file; a trivial GET
 * answers within its budget throughout; resident memory stays bounded. */
static void concurrent_scans_stay_bounded(void **state)
{
    (void)state;
    hl_client *client = test_client_new(srv.base, NULL);
    static struct reader readers[READERS];
    pthread_t threads[READERS];
    long rss_before = server_kb("VmRSS"), hwm_before = server_kb("VmHWM");
    double t0 = now_ms();
    for (int i = 0; i < READERS; i++) {
        memset(&readers[i], 0, sizeof readers[i]);
        atomic_init(&readers[i].done, false);
        readers[i].client = client;
        assert_int_equal(pthread_create(&threads[i], NULL, scan_through_pages, &readers[i]), 0);
    }
    /* Until the last reader is done: a GET of the catalog, timed. */
    double worst_ms = 0;
    long probes = 0, rss_max = rss_before;
    for (;;) {
        bool running = false;
        for (int i = 0; i < READERS; i++)
            running |= !atomic_load(&readers[i].done);
        if (!running)
            break;
        double g0 = now_ms();
        struct http_result r;
        api_get(&r, &srv, "/v1/catalogs/" CAT);
        double took = now_ms() - g0;
        expect_status(&r, 200);
        http_result_free(&r);
        probes++;
        if (took > worst_ms)
            worst_ms = took;
        long rss = server_kb("VmRSS");
        if (rss > rss_max)
            rss_max = rss;
        sleep_ms(PROBE_EVERY_MS);
    }
    for (int i = 0; i < READERS; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    hl_client_free(client);
    double all_ms = now_ms() - t0, slowest = 0;
    for (int i = 0; i < READERS; i++)
        slowest = readers[i].ms > slowest ? readers[i].ms : slowest;
    long hwm_after = server_kb("VmHWM");
    printf("%d readers x %d files: %.1f s in all; slowest reader %.1f s\n", READERS, NFILES,
           all_ms / 1e3, slowest / 1e3);
    printf("GET /v1/catalogs/" CAT " while they ran: %ld probes, slowest %.0f ms\n", probes,
           worst_ms);
    printf("server VmRSS %ld kB before, at most %ld kB during; VmHWM %ld kB before, %ld kB "
           "after\n",
           rss_before, rss_max, hwm_before, hwm_after);
    for (int i = 0; i < READERS; i++) {
        if (readers[i].error[0])
            fail_msg("reader %d: %s", i, readers[i].error);
        assert_int_equal(readers[i].files, NFILES);
        /* Pages of the default size: the table is not one answer. */
        assert_true(readers[i].pages >= NFILES / 1000);
    }
    if (worst_ms >= PROBE_BUDGET_MS)
        fail_msg("a trivial GET took %.0f ms while the scans ran", worst_ms);
    if (rss_max >= RSS_BUDGET_KB || hwm_after >= RSS_BUDGET_KB)
        fail_msg("the server held %ld kB (peak %ld kB) scanning %d files", rss_max, hwm_after,
                 NFILES);
}

/* ---- libhoglake ---- */

struct seen {
    unsigned char *marks; /* one per file id from first_file_id */
    long files, twice, strange;
};

static void see_plan(struct seen *s, const json_t *files)
{
    size_t i;
    const json_t *sf;
    json_array_foreach (files, i, sf) {
        int64_t id = jint(json_object_get(sf, "data_file"), "data_file_id") - first_file_id;
        if (id < 0 || id >= NFILES) {
            s->strange++;
            continue;
        }
        s->twice += s->marks[id];
        s->marks[id] = 1;
        s->files++;
    }
}

static void expect_each_file_once(const struct seen *s, const char *how)
{
    if (s->files != NFILES || s->twice || s->strange)
        fail_msg("%s: %ld files, %ld seen twice, %ld not of the table", how, s->files, s->twice,
                 s->strange);
}

/* The client reads every file exactly once: a page at a time (memory of
 * one page), and through hl_table_scan_plan, which pages by itself. */
static void client_reads_every_file_once(void **state)
{
    (void)state;
    hl_client *client = test_client_new(srv.base, NULL);
    struct hl_error err;
    hl_catalog *c = NULL;
    hl_namespace *ns = NULL;
    hl_table *t = NULL;
    test_check(hl_catalog_open(client, CAT, &c, &err), &err, "catalog");
    test_check(hl_namespace_open(c, NS, &ns, &err), &err, "namespace");
    test_check(hl_table_open(ns, TABLE, &t, &err), &err, "table");

    struct seen s = {calloc(NFILES, 1), 0, 0, 0};
    assert_non_null(s.marks);
    char *token = NULL;
    long pages = 0;
    double t0 = now_ms();
    do {
        char *text = NULL, *next = NULL;
        test_check(hl_table_scan_plan_page(t, NULL, 0, token, &text, &next, &err), &err,
                   "a page of the plan");
        json_t *page = jparse(text);
        free(text);
        see_plan(&s, json_object_get(page, "files"));
        json_decref(page);
        free(token);
        token = next;
        pages++;
    } while (token);
    double paged_ms = now_ms() - t0;
    expect_each_file_once(&s, "page by page");
    assert_int_equal(pages, NFILES / 1000);

    memset(s.marks, 0, NFILES);
    s.files = s.twice = s.strange = 0;
    t0 = now_ms();
    char *whole = NULL;
    test_check(hl_table_scan_plan(t, NULL, &whole, &err), &err, "the whole plan");
    double whole_ms = now_ms() - t0;
    json_t *plan = jparse(whole);
    free(whole);
    see_plan(&s, plan);
    json_decref(plan);
    expect_each_file_once(&s, "hl_table_scan_plan");
    printf("libhoglake: %ld pages of the plan in %.1f s; the whole plan in %.1f s\n", pages,
           paged_ms / 1e3, whole_ms / 1e3);
    free(s.marks);
    hl_table_free(t);
    hl_namespace_free(ns);
    hl_catalog_free(c);
    hl_client_free(client);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(concurrent_scans_stay_bounded),
        cmocka_unit_test(client_reads_every_file_once),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
