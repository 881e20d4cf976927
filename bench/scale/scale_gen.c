/* scale_gen: builds a large catalog through hoglaked's real API, for
 * bench/scale/run.sh.
 *
 * At --scale 1 the catalog holds, in namespace `lake`, --tables (500)
 * tables of 20 columns, partitioned by day(ts) and sorted by id, with 1M
 * append commits of --files-per-commit (10) files each: 10M data files,
 * each with statistics and bounds for all 20 columns. The shape is a
 * lake's: 3 huge tables take 12% of the commits each (1.2M files at 1x),
 * 20 medium ones 2% each, and the long tail shares the remaining 24%.
 * Every table moves through the same 3 years of day partitions
 * (2023-01-01 to 2025-12-31) at the same pace, so commits of all tables
 * interleave the way a lake's daily loads do. Namespace `wide` gets
 * --wide-tables (54,000) empty 3-column tables, and --consumers (50)
 * consumers each commit offsets on 10 tables.
 *
 * Resumable: every request is idempotent. Existing catalogs, namespaces
 * and tables are kept (409 is fine); how far each table got is read back
 * from the catalog (its file count over files per commit), and a commit is
 * retried with the same idempotency key after a transport error or a 503,
 * so the server answers a landed commit from its receipt. A build cut
 * short and resumed may lack the few commits that were in flight when it
 * stopped; run.sh reports the counts the catalog holds, not the plan's.
 *
 * Output: progress on stderr every --progress seconds, one JSON object on
 * stdout at the end. Exit status 0, or 2 on any failure (with the reason). */
#include <curl/curl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_auth.h"
#include "scale_http.h"

enum { NCOLS = 20, HUGE_TABLES = 3, MEDIUM_TABLES = 20, PLAN_DAYS = 1096 };
static const int64_t FIRST_DAY = 19358; /* 2023-01-01, days since 1970-01-01 */
static const int64_t MICROS_PER_DAY = 86400000000LL;

struct opts {
    const char *url, *token_file, *catalog;
    double scale;
    int tables, files_per_commit, writers, wide_tables, consumers, progress_s;
    uint64_t seed;
};

/* The 20 columns of every `lake` table: field ids 1..20 in this order. */
enum kind { K_LONG, K_INT, K_DOUBLE, K_STRING, K_BOOL, K_DATE, K_TS };
static const struct column {
    const char *name, *type;
    enum kind kind;
} columns[NCOLS] = {
    {"id", "long", K_LONG},        {"ts", "timestamptz", K_TS},     {"team_id", "long", K_LONG},
    {"user_id", "long", K_LONG},   {"session", "string", K_STRING}, {"event", "string", K_STRING},
    {"url", "string", K_STRING},   {"country", "string", K_STRING}, {"device", "string", K_STRING},
    {"value", "double", K_DOUBLE}, {"amount", "double", K_DOUBLE},  {"qty", "int", K_INT},
    {"status", "int", K_INT},      {"flag", "boolean", K_BOOL},     {"day", "date", K_DATE},
    {"ref", "long", K_LONG},       {"score", "double", K_DOUBLE},   {"lang", "string", K_STRING},
    {"version", "int", K_INT},     {"created", "timestamp", K_TS},
};

struct table {
    int64_t commits; /* planned */
    int64_t done;    /* landed before this run (read back) */
    char uuid[40];
};

/* One commit to make: commit k of table t. */
struct unit {
    uint32_t table, k;
    double progress; /* (k + 0.5) / commits: how far through its days */
};

struct gen {
    struct opts o;
    char auth_header[1100];
    char data_path[600];
    struct table *tables;
    struct unit *units;
    size_t nunits;
    atomic_size_t next;     /* the next unit (or index) a worker claims */
    atomic_llong committed; /* commits (or creations) this run */
    atomic_int failed;
    /* What every commit pins as read_snapshot: the head once a fresh
     * build has created its namespaces and tables. The same on every
     * resume, so a retried commit is the same request (its fingerprint
     * covers read_snapshot); appends conflict only with DDL after it. */
    int64_t read_snapshot;
    size_t *wide_todo; /* the wide tables still to create, by number */
};

/* ---- small things ---- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Base64 of n bytes (Iceberg single-value binary bounds travel this way). */
static void put_b64(struct scale_buf *b, const uint8_t *in, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char out[64];
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t x = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            x |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            x |= in[i + 2];
        out[o++] = tab[(x >> 18) & 63];
        out[o++] = tab[(x >> 12) & 63];
        out[o++] = i + 1 < n ? tab[(x >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? tab[x & 63] : '=';
    }
    out[o] = '\0';
    scale_buf_printf(b, "\"%s\"", out);
}

static void le_bytes(uint64_t v, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(v >> (8 * i));
}

static void date_text(int64_t days, char out[11])
{
    time_t t = (time_t)(days * 86400);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 11, "%Y-%m-%d", &tm);
}

static void uuid_from(uint64_t *rng, char out[37])
{
    uint64_t a = splitmix(rng), b = splitmix(rng);
    a = (a & ~0xf000ull) | 0x4000ull;
    b = (b & ~0xc000000000000000ull) | 0x8000000000000000ull;
    snprintf(out, 37, "%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
             a >> 32, (a >> 16) & 0xffff, a & 0xffff, b >> 48, (uint64_t)(b & 0xffffffffffffull));
}

/* ---- the plan ---- */

/* Commits of table t at this scale: huge, medium, then the long tail. */
static int64_t planned_commits(const struct opts *o, int t)
{
    double total = 1e6 * o->scale, share;
    int tail = o->tables - HUGE_TABLES - MEDIUM_TABLES;
    if (t < HUGE_TABLES)
        share = 0.12;
    else if (t < HUGE_TABLES + MEDIUM_TABLES)
        share = 0.02;
    else
        share = 0.24 / tail;
    int64_t c = llround(total * share);
    return c > 0 ? c : 1;
}

/* Units ordered by how far through its 3 years each one is, so all tables
 * advance through the days together. */
static int unit_cmp(const void *a, const void *b)
{
    const struct unit *x = a, *y = b;
    if (x->progress != y->progress)
        return x->progress < y->progress ? -1 : 1;
    return x->table < y->table ? -1 : x->table > y->table;
}

static void plan_units(struct gen *g)
{
    size_t n = 0;
    for (int t = 0; t < g->o.tables; t++)
        n += (size_t)(g->tables[t].commits - g->tables[t].done);
    g->units = malloc((n ? n : 1) * sizeof *g->units);
    if (!g->units)
        scale_die("out of memory for %zu commits", n);
    size_t i = 0;
    for (int t = 0; t < g->o.tables; t++)
        for (int64_t k = g->tables[t].done; k < g->tables[t].commits; k++)
            g->units[i++] = (struct unit){(uint32_t)t, (uint32_t)k,
                                          ((double)k + 0.5) / (double)g->tables[t].commits};
    qsort(g->units, n, sizeof *g->units, unit_cmp);
    g->nunits = n;
}

/* ---- request bodies ---- */

static void put_bound(struct scale_buf *b, enum kind kind, uint64_t *rng, int64_t day, bool upper,
                      int64_t base)
{
    uint8_t bytes[16];
    size_t n = 8;
    switch (kind) {
    case K_LONG: le_bytes((uint64_t)(base + (upper ? 1000000 : 0)), bytes, 8); break;
    case K_INT:
        le_bytes((uint64_t)(int64_t)(int32_t)(base % 100000 + (upper ? 500 : 0)), bytes, 4);
        n = 4;
        break;
    case K_DOUBLE: {
        double d = (double)(base % 1000000) / 100.0 + (upper ? 999.5 : 0);
        uint64_t u;
        memcpy(&u, &d, sizeof u);
        le_bytes(u, bytes, 8);
        break;
    }
    case K_STRING: {
        static const char alpha[] = "abcdefghijklmnopqrstuvwxyz";
        n = 8 + splitmix(rng) % 9;
        for (size_t i = 0; i < n; i++)
            bytes[i] = (uint8_t)alpha[splitmix(rng) % 26];
        if (upper)
            bytes[0] = (uint8_t)('n' + bytes[0] % 12);
        else
            bytes[0] = (uint8_t)('a' + bytes[0] % 12);
        break;
    }
    case K_BOOL:
        bytes[0] = upper;
        n = 1;
        break;
    case K_DATE:
        le_bytes((uint64_t)day, bytes, 4);
        n = 4;
        break;
    case K_TS:
        le_bytes((uint64_t)(day * MICROS_PER_DAY + (upper ? MICROS_PER_DAY - 1 : 0)), bytes, 8);
        break;
    }
    put_b64(b, bytes, n);
}

/* The commit k of table t: files_per_commit files of the day k falls on. */
static void commit_body(const struct gen *g, const struct unit *u, struct scale_buf *b)
{
    const struct table *t = &g->tables[u->table];
    uint64_t rng = g->o.seed ^ ((uint64_t)u->table << 40) ^ u->k;
    splitmix(&rng);
    char key[37], day_text[11];
    uuid_from(&rng, key);
    int64_t day = FIRST_DAY + (int64_t)u->k * PLAN_DAYS / t->commits;
    date_text(day, day_text);
    b->len = 0;
    scale_buf_printf(
        b,
        "{\"idempotency_key\":\"%s\",\"read_snapshot\":%" PRId64 ",\"author\":\"scale_gen\","
        "\"message\":\"t%03u %u\",\"appends\":[{\"namespace\":\"lake\",\"table\":\"t%03u\","
        "\"files\":[",
        key, g->read_snapshot, u->table, u->k, u->table);
    for (int f = 0; f < g->o.files_per_commit; f++) {
        int64_t records = 50000 + (int64_t)(splitmix(&rng) % 950000);
        int64_t size = records * 60 + (int64_t)(splitmix(&rng) % 65536);
        scale_buf_printf(
            b,
            "%s{\"path\":\"%s/lake/t%03u/%s/k%07u-%02d.parquet\",\"record_count\":%" PRId64
            ",\"file_size_bytes\":%" PRId64 ",\"footer_size\":%d,\"partition_values\":[\"%s\"],"
            "\"column_stats\":[",
            f ? "," : "", g->data_path, u->table, day_text, u->k, f, records, size, 12000 + f,
            day_text);
        for (int c = 0; c < NCOLS; c++) {
            int64_t nulls = c < 3 ? 0 : records / (int64_t)(5 + c);
            int64_t base = (int64_t)(splitmix(&rng) >> 24);
            scale_buf_printf(b,
                             "%s{\"field_id\":%d,\"value_count\":%" PRId64
                             ",\"null_count\":%" PRId64 ",\"size_bytes\":%" PRId64
                             ",\"lower_bound\":",
                             c ? "," : "", c + 1, records, nulls, records * 3);
            put_bound(b, columns[c].kind, &rng, day, false, base);
            scale_buf_printf(b, ",\"upper_bound\":");
            put_bound(b, columns[c].kind, &rng, day, true, base);
            scale_buf_printf(b, "}");
        }
        scale_buf_printf(b, "]}");
    }
    scale_buf_printf(b, "]}]}");
}

static void lake_table_body(int t, struct scale_buf *b)
{
    b->len = 0;
    scale_buf_printf(b, "{\"name\":\"t%03d\",\"columns\":[", t);
    for (int c = 0; c < NCOLS; c++)
        scale_buf_printf(b, "%s{\"name\":\"%s\",\"type\":\"%s\",\"nullable\":%s}", c ? "," : "",
                         columns[c].name, columns[c].type, c < 2 ? "false" : "true");
    scale_buf_printf(
        b, "],\"partition_fields\":[{\"source_field_id\":2,\"transform\":\"day\"}],"
           "\"sort_fields\":[{\"source_field_id\":1}],\"primary_timestamp_column\":\"ts\"}");
}

/* ---- workers ---- */

/* What one worker thread keeps between its requests. */
struct session {
    struct scale_http h;
    struct scale_buf b;
};

typedef void (*work_fn)(struct gen *g, struct session *s, size_t i);

struct worker {
    struct gen *g;
    work_fn fn;
    size_t n;
    pthread_t thread;
};

/* Sends until the answer is not a 503 or a transport error (the same body,
 * so the same idempotency key); returns the final status. */
static long send_retrying(struct scale_http *h, const char *method, const char *path,
                          const char *body, size_t body_len)
{
    long status = 0;
    for (int attempt = 0; attempt < 100; attempt++) {
        status = scale_http_send(h, method, path, body, body_len);
        if (status != 0 && status != 503)
            return status;
        usleep(100000);
    }
    return status;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct gen *g = w->g;
    struct session s = {0};
    scale_http_open(&s.h, g->o.url, g->auth_header);
    for (;;) {
        size_t i = atomic_fetch_add(&g->next, 1);
        if (i >= w->n || atomic_load(&g->failed))
            break;
        w->fn(g, &s, i);
    }
    free(s.b.p);
    scale_http_close(&s.h);
    return NULL;
}

/* Runs fn(i) for i in [0, n) on the writers' threads, printing progress. */
static double run_parallel(struct gen *g, const char *what, size_t n, work_fn fn)
{
    atomic_store(&g->next, 0);
    atomic_store(&g->committed, 0);
    int nw = g->o.writers;
    struct worker *ws = calloc((size_t)nw, sizeof *ws);
    if (!ws)
        scale_die("out of memory");
    unsigned long long t0 = scale_now_ns();
    for (int i = 0; i < nw; i++) {
        ws[i] = (struct worker){.g = g, .fn = fn, .n = n};
        if (pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]) != 0)
            scale_die("pthread_create failed");
    }
    long long last = 0;
    unsigned long long last_t = t0;
    while (atomic_load(&g->next) < n && !atomic_load(&g->failed)) {
        for (int s = 0; s < g->o.progress_s * 10 && atomic_load(&g->next) < n; s++)
            usleep(100000);
        long long now_done = atomic_load(&g->committed);
        unsigned long long now_t = scale_now_ns();
        fprintf(stderr, "scale_gen: %s %lld/%zu, %.0f/s over the last %.0f s\n", what, now_done, n,
                (double)(now_done - last) * 1e9 / (double)(now_t - last_t),
                (double)(now_t - last_t) / 1e9);
        last = now_done;
        last_t = now_t;
    }
    for (int i = 0; i < nw; i++)
        pthread_join(ws[i].thread, NULL);
    free(ws);
    if (atomic_load(&g->failed))
        exit(2);
    return (double)(scale_now_ns() - t0) / 1e9;
}

static void fail(struct gen *g, struct scale_http *h, long status, const char *what)
{
    if (atomic_exchange(&g->failed, 1) == 0)
        fprintf(stderr, "scale_gen: %s: HTTP %ld: %.500s\n", what, status, h->resp.p);
}

static void create_lake_table(struct gen *g, struct session *s, size_t i)
{
    struct scale_http *h = &s->h;
    struct scale_buf *b = &s->b;
    char path[256];
    snprintf(path, sizeof path, "/v1/catalogs/%s/namespaces/lake/tables", g->o.catalog);
    lake_table_body((int)i, b);
    long status = send_retrying(h, "POST", path, b->p, b->len);
    if (status != 200 && status != 201 && status != 409)
        fail(g, h, status, "creating a lake table");
    atomic_fetch_add(&g->committed, 1);
}

static void create_wide_table(struct gen *g, struct session *s, size_t i)
{
    struct scale_http *h = &s->h;
    struct scale_buf *b = &s->b;
    char path[256];
    snprintf(path, sizeof path, "/v1/catalogs/%s/namespaces/wide/tables", g->o.catalog);
    b->len = 0;
    scale_buf_printf(
        b,
        "{\"name\":\"w%05zu\",\"columns\":[{\"name\":\"id\",\"type\":\"long\"},"
        "{\"name\":\"ts\",\"type\":\"timestamptz\"},{\"name\":\"v\",\"type\":\"string\"}]}",
        i);
    long status = send_retrying(h, "POST", path, b->p, b->len);
    if (status != 200 && status != 201 && status != 409)
        fail(g, h, status, "creating a wide table");
    atomic_fetch_add(&g->committed, 1);
}

static void commit_unit(struct gen *g, struct session *s, size_t i)
{
    char path[256];
    snprintf(path, sizeof path, "/v1/catalogs/%s/commit", g->o.catalog);
    commit_body(g, &g->units[i], &s->b);
    long status = send_retrying(&s->h, "POST", path, s->b.p, s->b.len);
    if (status != 200 && status != 201)
        fail(g, &s->h, status, "committing");
    atomic_fetch_add(&g->committed, 1);
}

/* ---- setup and read-back through one connection ---- */

static json_t *get_json(struct scale_http *h, const char *path)
{
    long status = send_retrying(h, "GET", path, NULL, 0);
    if (status != 200)
        scale_die("GET %s: HTTP %ld: %.300s", path, status, h->resp.p);
    json_error_t je;
    json_t *j = json_loads(h->resp.p, 0, &je);
    if (!j)
        scale_die("GET %s: not JSON: %s", path, je.text);
    return j;
}

static void post_created(struct scale_http *h, const char *path, const char *body)
{
    long status = send_retrying(h, "POST", path, body, strlen(body));
    if (status != 200 && status != 201 && status != 409)
        scale_die("POST %s: HTTP %ld: %.300s", path, status, h->resp.p);
}

static void setup(struct gen *g, struct scale_http *h)
{
    char path[512], body[256];
    snprintf(body, sizeof body, "{\"name\":\"%s\"}", g->o.catalog);
    post_created(h, "/v1/catalogs", body);
    snprintf(path, sizeof path, "/v1/catalogs/%s", g->o.catalog);
    json_t *cat = get_json(h, path);
    const char *dp = json_string_value(json_object_get(cat, "data_path"));
    if (!dp || snprintf(g->data_path, sizeof g->data_path, "%s", dp) >= (int)sizeof g->data_path)
        scale_die("the catalog has no usable data_path");
    json_decref(cat);
    snprintf(path, sizeof path, "/v1/catalogs/%s/namespaces", g->o.catalog);
    post_created(h, path, "{\"name\":\"lake\"}");
    post_created(h, path, "{\"name\":\"wide\"}");
}

/* The wide tables not created yet (one listing, so a resumed build does
 * not send 54,000 creations to learn that they exist): their numbers
 * into g->wide_todo, and how many. */
static size_t missing_wide_tables(struct gen *g, struct scale_http *h)
{
    size_t n = (size_t)g->o.wide_tables;
    bool *have = calloc(n ? n : 1, sizeof *have);
    g->wide_todo = malloc((n ? n : 1) * sizeof *g->wide_todo);
    if (!have || !g->wide_todo)
        scale_die("out of memory");
    char path[512];
    snprintf(path, sizeof path, "/v1/catalogs/%s/namespaces/wide/tables", g->o.catalog);
    json_t *list = get_json(h, path), *t; /* an array of TableSummary */
    size_t i;
    json_array_foreach (list, i, t) {
        const char *name = json_string_value(json_object_get(t, "name"));
        char *end;
        unsigned long k = name && name[0] == 'w' ? strtoul(name + 1, &end, 10) : n;
        if (k < n && !*end)
            have[k] = true;
    }
    json_decref(list);
    size_t todo = 0;
    for (i = 0; i < n; i++)
        if (!have[i])
            g->wide_todo[todo++] = i;
    free(have);
    return todo;
}

/* How far each lake table got, from its file count at the head. */
static void read_back(struct gen *g, struct scale_http *h)
{
    char path[512];
    for (int t = 0; t < g->o.tables; t++) {
        snprintf(path, sizeof path, "/v1/catalogs/%s/namespaces/lake/tables/t%03d?totals=true",
                 g->o.catalog, t);
        json_t *j = get_json(h, path);
        int64_t files = json_integer_value(json_object_get(j, "file_count"));
        const char *uuid = json_string_value(json_object_get(j, "table_uuid"));
        if (!uuid || files % g->o.files_per_commit)
            scale_die("table t%03d holds %" PRId64 " files, not a multiple of %d: built with"
                      " another --files-per-commit?",
                      t, files, g->o.files_per_commit);
        snprintf(g->tables[t].uuid, sizeof g->tables[t].uuid, "%s", uuid);
        int64_t done = files / g->o.files_per_commit;
        g->tables[t].done = done < g->tables[t].commits ? done : g->tables[t].commits;
        json_decref(j);
    }
}

static int64_t catalog_head(struct gen *g, struct scale_http *h)
{
    char path[512];
    snprintf(path, sizeof path, "/v1/catalogs/%s", g->o.catalog);
    json_t *cat = get_json(h, path);
    int64_t head = json_integer_value(json_object_get(cat, "head_snapshot_id"));
    json_decref(cat);
    return head;
}

static void pin_read_snapshot(struct gen *g, struct scale_http *h)
{
    int64_t head = catalog_head(g, h), fresh = 2 + g->o.tables + g->o.wide_tables;
    g->read_snapshot = fresh <= head ? fresh : head;
}

/* Consumer i holds offsets on 10 lake tables, at snapshots spread below
 * the head. */
static void commit_consumers(struct gen *g, struct scale_http *h)
{
    char path[512], body[64];
    int64_t head = catalog_head(g, h);
    for (int c = 0; c < g->o.consumers; c++) {
        for (int k = 0; k < 10; k++) {
            int t = (c * 7 + k * 13) % g->o.tables;
            int64_t at = head - head * (c + 1) / (4 * (g->o.consumers + 1));
            snprintf(path, sizeof path, "/v1/catalogs/%s/consumers/c%02d/offsets/%s", g->o.catalog,
                     c, g->tables[t].uuid);
            snprintf(body, sizeof body, "{\"snapshot_id\":%" PRId64 "}", at);
            long status = send_retrying(h, "PUT", path, body, strlen(body));
            if (status != 200)
                scale_die("PUT %s: HTTP %ld: %.300s", path, status, h->resp.p);
        }
    }
}

/* ---- main ---- */

static void usage(void)
{
    fputs("usage: scale_gen --url URL --catalog NAME [--scale F] [--tables N]\n"
          "       [--files-per-commit N] [--writers N] [--wide-tables N] [--consumers N]\n"
          "       [--seed N] [--progress S] [--token-file FILE]\n",
          stderr);
    exit(2);
}

static long parse_long(const char *s, long lo, long hi, const char *opt)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        scale_die("%s wants an integer in [%ld, %ld], not '%s'", opt, lo, hi, s);
    return v;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){.scale = 0.1,
                       .tables = 500,
                       .files_per_commit = 10,
                       .writers = 8,
                       .wide_tables = 54000,
                       .consumers = 50,
                       .progress_s = 10,
                       .seed = 0x5ca1e};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--url"))
            o->url = v;
        else if (!strcmp(a, "--catalog"))
            o->catalog = v;
        else if (!strcmp(a, "--token-file"))
            o->token_file = v;
        else if (!strcmp(a, "--scale")) {
            char *end;
            o->scale = strtod(v, &end);
            if (*end || !(o->scale > 0 && o->scale <= 100))
                scale_die("--scale wants a number in (0, 100], not '%s'", v);
        } else if (!strcmp(a, "--tables"))
            o->tables = (int)parse_long(v, HUGE_TABLES + MEDIUM_TABLES + 1, 999, a);
        else if (!strcmp(a, "--files-per-commit"))
            o->files_per_commit = (int)parse_long(v, 1, 99, a);
        else if (!strcmp(a, "--writers"))
            o->writers = (int)parse_long(v, 1, 64, a);
        else if (!strcmp(a, "--wide-tables"))
            o->wide_tables = (int)parse_long(v, 0, 99999, a);
        else if (!strcmp(a, "--consumers"))
            o->consumers = (int)parse_long(v, 0, 99, a);
        else if (!strcmp(a, "--seed"))
            o->seed = (uint64_t)parse_long(v, 0, 1L << 40, a);
        else if (!strcmp(a, "--progress"))
            o->progress_s = (int)parse_long(v, 1, 3600, a);
        else
            usage();
        i++;
    }
    if (!o->url || !o->catalog)
        usage();
}

int main(int argc, char **argv)
{
    struct gen g = {0};
    parse_args(argc, argv, &g.o);
    bench_auth_header(g.o.token_file, g.auth_header, sizeof g.auth_header);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        scale_die("curl_global_init failed");
    g.tables = calloc((size_t)g.o.tables, sizeof *g.tables);
    if (!g.tables)
        scale_die("out of memory");
    int64_t planned = 0;
    for (int t = 0; t < g.o.tables; t++)
        planned += g.tables[t].commits = planned_commits(&g.o, t);

    struct scale_http h;
    scale_http_open(&h, g.o.url, g.auth_header);
    setup(&g, &h);
    double lake_s = run_parallel(&g, "lake tables", (size_t)g.o.tables, create_lake_table);
    double wide_s = run_parallel(&g, "wide tables", missing_wide_tables(&g, &h), create_wide_table);
    read_back(&g, &h);
    pin_read_snapshot(&g, &h);
    plan_units(&g);
    fprintf(stderr, "scale_gen: %" PRId64 " commits planned, %zu to make\n", planned, g.nunits);
    double commit_s = run_parallel(&g, "commits", g.nunits, commit_unit);
    read_back(&g, &h);
    commit_consumers(&g, &h);
    int64_t landed = 0;
    for (int t = 0; t < g.o.tables; t++)
        landed += g.tables[t].done;
    printf("{\"scale\":%g,\"tables\":%d,\"files_per_commit\":%d,\"writers\":%d,"
           "\"planned_commits\":%" PRId64 ",\"landed_commits\":%" PRId64
           ",\"commits_this_run\":%zu,\"commit_seconds\":%.3f,\"commits_per_s\":%.1f,"
           "\"files_per_s\":%.1f,\"wide_tables\":%d,\"wide_seconds\":%.3f,"
           "\"lake_table_seconds\":%.3f,\"consumers\":%d}\n",
           g.o.scale, g.o.tables, g.o.files_per_commit, g.o.writers, planned, landed, g.nunits,
           commit_s, g.nunits ? (double)g.nunits / commit_s : 0.0,
           g.nunits ? (double)g.nunits * g.o.files_per_commit / commit_s : 0.0, g.o.wide_tables,
           wide_s, lake_s, g.o.consumers);
    scale_http_close(&h);
    free(g.units);
    free(g.wide_todo);
    free(g.tables);
    curl_global_cleanup();
    return 0;
}
