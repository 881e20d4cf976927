/* commit_bench: a load generator for POST /v1/catalogs/{c}/commit.
 *
 * N writer threads, each with one keep-alive HTTP connection (one libcurl
 * easy handle, reused), send realistic append commits to one table: unique
 * file paths under the catalog's data_path, record counts and sizes,
 * column statistics with Iceberg single-value bounds (8-byte little-endian
 * longs and timestamps), a fresh idempotency key on every commit and, by
 * default, the snapshot the writer last saw as read_snapshot.
 *
 * Every writer first sends --warmup commits (not measured); then all
 * writers start together and run for --duration seconds, or --commits
 * commits each. The latency of each measured commit (request sent to
 * response read, on the client's monotonic clock) is kept; the result is
 * one JSON object on stdout (commits/s, p50/p90/p99/max, errors by status)
 * and a one-line summary on stderr. See bench/commit/README.md.
 *
 * A server with authentication on needs a bearer token. It is read from
 * --token-file FILE (its first line, e.g. <data-dir>/admin.token), else
 * from the environment (HOGLAKE_TOKEN, then the file named by
 * HOGLAKE_TOKEN_FILE), and sent as Authorization: Bearer on every
 * request. There is no option taking the secret itself: a command line is
 * visible to every user of the machine.
 *
 * Exit status: 0 when every commit succeeded, 1 when some failed, 2 on a
 * usage or setup error. */
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_auth.h"

#define MAX_STATUS 600

struct opts {
    const char *url; /* http://host:port */
    const char *catalog, *ns, *table, *data_path, *label;
    const char *tsv; /* also append one tab-separated line here (run.sh reads it) */
    const char *token_file;
    int writers, files, warmup;
    double duration; /* seconds; used when commits == 0 */
    long commits;    /* per writer; 0 = run for duration */
    bool read_snapshot;
    int64_t start_snapshot; /* read_snapshot before a writer's first commit */
};

struct writer {
    const struct opts *o;
    int index;
    pthread_t thread;
    CURL *curl;
    struct curl_slist *headers;
    uint64_t rng;
    char commit_url[1024];
    char run_id[17];
    /* the request body and the response */
    char *body;
    size_t body_len, body_cap;
    char *resp;
    size_t resp_len, resp_cap;
    int64_t last_snapshot;
    uint64_t seq; /* commits sent, for unique paths */
    /* results */
    uint64_t *lat_ns;
    size_t nlat, lat_cap;
    uint64_t status[MAX_STATUS]; /* measured requests by HTTP status; 0 = transport error */
    uint64_t warmup_errors;
    long connects; /* TCP connections opened */
    char first_error[512];
    bool failed_setup;
};

static pthread_barrier_t start_barrier;
/* "Authorization: Bearer <secret>", or empty for a server without auth */
static char auth_header[1100];
static int stop_flag; /* set by the main thread at the deadline */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("commit_bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* ---- the request body ---- */

static void body_reserve(struct writer *w, size_t more)
{
    if (w->body_len + more + 1 <= w->body_cap)
        return;
    size_t cap = w->body_cap ? w->body_cap : 4096;
    while (cap < w->body_len + more + 1)
        cap *= 2;
    char *b = realloc(w->body, cap);
    if (!b)
        die("out of memory");
    w->body = b;
    w->body_cap = cap;
}

static void put(struct writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct writer *w, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = w->body_cap - w->body_len;
        int n = w->body_cap ? vsnprintf(w->body + w->body_len, room, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && (size_t)n < room) {
            w->body_len += (size_t)n;
            return;
        }
        body_reserve(w, n > 0 ? (size_t)n + 1 : 4096);
    }
}

/* The Iceberg single-value binary of a long or timestamp: 8 bytes,
 * little-endian, base64 (12 characters with padding). */
static void b64_i64(int64_t v, char out[13])
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint8_t b[9] = {0};
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(u >> (8 * i));
    int o = 0;
    for (int i = 0; i < 9; i += 3) {
        uint32_t x = (uint32_t)b[i] << 16 | (uint32_t)b[i + 1] << 8 | b[i + 2];
        out[o++] = tab[(x >> 18) & 63];
        out[o++] = tab[(x >> 12) & 63];
        out[o++] = tab[(x >> 6) & 63];
        out[o++] = tab[x & 63];
    }
    out[11] = '='; /* 8 bytes: the last group holds 2, so one pad */
    out[12] = '\0';
}

static void uuid4(struct writer *w, char out[37])
{
    uint64_t a = splitmix(&w->rng), b = splitmix(&w->rng);
    a = (a & ~0xf000ull) | 0x4000ull;                         /* version 4 */
    b = (b & ~0xc000000000000000ull) | 0x8000000000000000ull; /* variant 1 */
    snprintf(out, 37, "%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
             a >> 32, (a >> 16) & 0xffff, a & 0xffff, b >> 48, (uint64_t)(b & 0xffffffffffffull));
}

/* The table is (id long, ts timestamptz, team_id long, name string): field
 * ids 1..4 (run.sh creates it). Every file gets statistics for all four,
 * bounds for the first three. */
static void build_body(struct writer *w)
{
    const struct opts *o = w->o;
    char key[37];
    uuid4(w, key);
    w->body_len = 0;
    put(w, "{\"idempotency_key\":\"%s\",", key);
    if (o->read_snapshot)
        put(w, "\"read_snapshot\":%" PRId64 ",", w->last_snapshot);
    put(w,
        "\"author\":\"commit_bench\",\"message\":\"writer %d commit %" PRIu64 "\","
        "\"appends\":[{\"namespace\":\"%s\",\"table\":\"%s\",\"files\":[",
        w->index, w->seq, o->ns, o->table);
    /* 2024-01-01T00:00:00Z in microseconds, plus a minute per commit. */
    int64_t ts0 = 1704067200000000LL + (int64_t)w->seq * 60000000LL;
    for (int i = 0; i < o->files; i++) {
        int64_t records = 10000 + (int64_t)(splitmix(&w->rng) % 990000);
        int64_t size = records * 28 + 4096 + (int64_t)(splitmix(&w->rng) % 4096);
        int64_t id_lo = (int64_t)(splitmix(&w->rng) >> 20);
        int64_t team_lo = (int64_t)(splitmix(&w->rng) % 10000);
        char id_lo_b[13], id_hi_b[13], ts_lo_b[13], ts_hi_b[13], tm_lo_b[13], tm_hi_b[13];
        b64_i64(id_lo, id_lo_b);
        b64_i64(id_lo + records - 1, id_hi_b);
        b64_i64(ts0 + i, ts_lo_b);
        b64_i64(ts0 + 59000000LL + i, ts_hi_b);
        b64_i64(team_lo, tm_lo_b);
        b64_i64(team_lo + 50, tm_hi_b);
        int64_t nulls = records / 20;
        put(w,
            "%s{\"path\":\"%s/data/%s/%s/%s-w%d-%06" PRIu64 "-%03d.parquet\","
            "\"record_count\":%" PRId64 ",\"file_size_bytes\":%" PRId64 ",\"footer_size\":%d,"
            "\"column_stats\":["
            "{\"field_id\":1,\"value_count\":%" PRId64 ",\"null_count\":0,\"size_bytes\":%" PRId64
            ",\"lower_bound\":\"%s\",\"upper_bound\":\"%s\"},"
            "{\"field_id\":2,\"value_count\":%" PRId64 ",\"null_count\":0,\"size_bytes\":%" PRId64
            ",\"lower_bound\":\"%s\",\"upper_bound\":\"%s\"},"
            "{\"field_id\":3,\"value_count\":%" PRId64 ",\"null_count\":0,\"size_bytes\":%" PRId64
            ",\"lower_bound\":\"%s\",\"upper_bound\":\"%s\"},"
            "{\"field_id\":4,\"value_count\":%" PRId64 ",\"null_count\":%" PRId64
            ",\"size_bytes\":%" PRId64 "}]}",
            i ? "," : "", o->data_path, o->ns, o->table, w->run_id, w->index, w->seq, i, records,
            size, 2048 + i, records, records * 4, id_lo_b, id_hi_b, records, records * 5, ts_lo_b,
            ts_hi_b, records, records, tm_lo_b, tm_hi_b, records, nulls, records * 18);
    }
    put(w, "]}]}");
    w->seq++;
}

/* ---- HTTP ---- */

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    struct writer *w = userdata;
    size_t n = size * nmemb;
    if (w->resp_len + n + 1 > w->resp_cap) {
        size_t cap = w->resp_cap ? w->resp_cap : 1024;
        while (cap < w->resp_len + n + 1)
            cap *= 2;
        char *r = realloc(w->resp, cap);
        if (!r)
            return 0;
        w->resp = r;
        w->resp_cap = cap;
    }
    memcpy(w->resp + w->resp_len, ptr, n);
    w->resp_len += n;
    w->resp[w->resp_len] = '\0';
    return n;
}

/* Sends one commit; returns the HTTP status (0 on a transport error) and
 * the elapsed time. */
static long send_commit(struct writer *w, uint64_t *elapsed_ns)
{
    build_body(w);
    w->resp_len = 0;
    if (w->resp)
        w->resp[0] = '\0';
    curl_easy_setopt(w->curl, CURLOPT_POSTFIELDS, w->body);
    curl_easy_setopt(w->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)w->body_len);
    uint64_t t0 = now_ns();
    CURLcode rc = curl_easy_perform(w->curl);
    *elapsed_ns = now_ns() - t0;
    long status = 0, connects = 0;
    if (curl_easy_getinfo(w->curl, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK)
        w->connects += connects; /* new connections this transfer needed */
    if (rc == CURLE_OK)
        curl_easy_getinfo(w->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status == 200) {
        json_error_t jerr;
        json_t *j = json_loadb(w->resp ? w->resp : "", w->resp_len, 0, &jerr);
        json_t *s = j ? json_object_get(j, "snapshot_id") : NULL;
        if (json_is_integer(s))
            w->last_snapshot = json_integer_value(s);
        else
            status = 1; /* a 200 without a snapshot id counts as an error */
        json_decref(j);
    }
    if (status != 200 && !w->first_error[0])
        snprintf(w->first_error, sizeof w->first_error, "status %ld: %.400s", status,
                 rc != CURLE_OK ? curl_easy_strerror(rc) : (w->resp ? w->resp : ""));
    return status;
}

static void record(struct writer *w, long status, uint64_t ns)
{
    w->status[status >= 0 && status < MAX_STATUS ? status : 0]++;
    if (status != 200)
        return;
    if (w->nlat == w->lat_cap) {
        size_t cap = w->lat_cap ? w->lat_cap * 2 : 4096;
        uint64_t *l = realloc(w->lat_ns, cap * sizeof *l);
        if (!l)
            die("out of memory");
        w->lat_ns = l;
        w->lat_cap = cap;
    }
    w->lat_ns[w->nlat++] = ns;
}

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    const struct opts *o = w->o;
    uint64_t ns;
    for (int i = 0; i < o->warmup; i++)
        if (send_commit(w, &ns) != 200)
            w->warmup_errors++;
    pthread_barrier_wait(&start_barrier); /* every writer is warm */
    pthread_barrier_wait(&start_barrier); /* the main thread took t0 */
    for (long i = 0; o->commits == 0 || i < o->commits; i++) {
        if (o->commits == 0 && __atomic_load_n(&stop_flag, __ATOMIC_RELAXED))
            break;
        long status = send_commit(w, &ns);
        record(w, status, ns);
    }
    return NULL;
}

/* ---- results ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values, in milliseconds. */
static double pct_ms(const uint64_t *v, size_t n, double p)
{
    if (n == 0)
        return 0;
    size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return (double)v[rank - 1] / 1e6;
}

static void usage(void)
{
    fputs("usage: commit_bench --url http://HOST:PORT --catalog C --namespace NS --table T\n"
          "                    --data-path P [--writers N] [--files F] [--warmup W]\n"
          "                    [--duration S | --commits K] [--start-snapshot S]\n"
          "                    [--no-read-snapshot] [--label L] [--tsv FILE]\n"
          "                    [--token-file FILE]\n"
          "  the bearer token: --token-file, else $HOGLAKE_TOKEN, else the file named by\n"
          "  $HOGLAKE_TOKEN_FILE; none: no Authorization header\n",
          stderr);
    exit(2);
}

static long parse_long(const char *flag, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || n < lo || n > hi)
        die("%s wants an integer in [%ld, %ld], got '%s'", flag, lo, hi, v);
    return n;
}

int main(int argc, char **argv)
{
    struct opts o = {
        .writers = 1, .files = 1, .warmup = 40, .duration = 10, .read_snapshot = true, .label = ""};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-read-snapshot")) {
            o.read_snapshot = false;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help"))
            usage();
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "--url"))
            o.url = v;
        else if (!strcmp(a, "--catalog"))
            o.catalog = v;
        else if (!strcmp(a, "--namespace"))
            o.ns = v;
        else if (!strcmp(a, "--table"))
            o.table = v;
        else if (!strcmp(a, "--data-path"))
            o.data_path = v;
        else if (!strcmp(a, "--label"))
            o.label = v;
        else if (!strcmp(a, "--tsv"))
            o.tsv = v;
        else if (!strcmp(a, "--token-file"))
            o.token_file = v;
        else if (!strcmp(a, "--writers"))
            o.writers = (int)parse_long(a, v, 1, 1024);
        else if (!strcmp(a, "--files"))
            o.files = (int)parse_long(a, v, 1, 100000);
        else if (!strcmp(a, "--warmup"))
            o.warmup = (int)parse_long(a, v, 0, 1000000);
        else if (!strcmp(a, "--commits"))
            o.commits = parse_long(a, v, 1, 100000000);
        else if (!strcmp(a, "--start-snapshot"))
            o.start_snapshot = parse_long(a, v, 0, INT64_MAX >> 1);
        else if (!strcmp(a, "--duration")) {
            char *end;
            o.duration = strtod(v, &end);
            if (*end || !(o.duration > 0))
                die("--duration wants seconds > 0, got '%s'", v);
        } else
            usage();
    }
    if (!o.url || !o.catalog || !o.ns || !o.table || !o.data_path)
        usage();
    bench_auth_header(o.token_file, auth_header, sizeof auth_header);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
        die("curl_global_init failed");

    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = now_ns();
    char run_id[17];
    {
        uint64_t s = seed;
        snprintf(run_id, sizeof run_id, "%016" PRIx64, splitmix(&s));
    }
    struct writer *ws = calloc((size_t)o.writers, sizeof *ws);
    if (!ws)
        die("out of memory");
    for (int i = 0; i < o.writers; i++) {
        struct writer *w = &ws[i];
        w->o = &o;
        w->index = i;
        w->rng = seed + (uint64_t)i * 0x632be59bd9b4e019u;
        w->last_snapshot = o.start_snapshot;
        memcpy(w->run_id, run_id, sizeof run_id);
        snprintf(w->commit_url, sizeof w->commit_url, "%s/v1/catalogs/%s/commit", o.url, o.catalog);
        if (!(w->curl = curl_easy_init()))
            die("curl_easy_init failed");
        /* An empty Expect: no 100-continue round trip on large bodies. */
        w->headers = curl_slist_append(NULL, "Content-Type: application/json");
        w->headers = curl_slist_append(w->headers, "Expect:");
        if (auth_header[0])
            w->headers = curl_slist_append(w->headers, auth_header);
        curl_easy_setopt(w->curl, CURLOPT_URL, w->commit_url);
        curl_easy_setopt(w->curl, CURLOPT_HTTPHEADER, w->headers);
        curl_easy_setopt(w->curl, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(w->curl, CURLOPT_WRITEDATA, w);
        curl_easy_setopt(w->curl, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(w->curl, CURLOPT_TIMEOUT, 120L);
        curl_easy_setopt(w->curl, CURLOPT_NOSIGNAL, 1L);
    }
    if (pthread_barrier_init(&start_barrier, NULL, (unsigned)o.writers + 1) != 0)
        die("pthread_barrier_init failed");
    for (int i = 0; i < o.writers; i++)
        if (pthread_create(&ws[i].thread, NULL, writer_main, &ws[i]) != 0)
            die("pthread_create failed");
    pthread_barrier_wait(&start_barrier);
    uint64_t t0 = now_ns();
    pthread_barrier_wait(&start_barrier);
    if (o.commits == 0) {
        uint64_t end = t0 + (uint64_t)(o.duration * 1e9);
        for (uint64_t t = now_ns(); t < end; t = now_ns()) {
            uint64_t left = end - t;
            struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
            nanosleep(&ts, NULL);
        }
        __atomic_store_n(&stop_flag, 1, __ATOMIC_SEQ_CST);
    }
    for (int i = 0; i < o.writers; i++)
        pthread_join(ws[i].thread, NULL);
    double elapsed = (double)(now_ns() - t0) / 1e9;

    size_t n = 0;
    uint64_t status[MAX_STATUS] = {0}, warmup_errors = 0;
    long connects = 0;
    const char *first_error = NULL;
    for (int i = 0; i < o.writers; i++) {
        n += ws[i].nlat;
        for (int s = 0; s < MAX_STATUS; s++)
            status[s] += ws[i].status[s];
        warmup_errors += ws[i].warmup_errors;
        connects += ws[i].connects;
        if (!first_error && ws[i].first_error[0])
            first_error = ws[i].first_error;
    }
    uint64_t *all = malloc((n ? n : 1) * sizeof *all);
    if (!all)
        die("out of memory");
    size_t k = 0;
    double sum = 0;
    for (int i = 0; i < o.writers; i++)
        for (size_t j = 0; j < ws[i].nlat; j++) {
            all[k++] = ws[i].lat_ns[j];
            sum += (double)ws[i].lat_ns[j];
        }
    qsort(all, n, sizeof *all, cmp_u64);
    uint64_t errors = 0;
    for (int s = 0; s < MAX_STATUS; s++)
        if (s != 200)
            errors += status[s];
    double cps = elapsed > 0 ? (double)n / elapsed : 0;
    double p50 = pct_ms(all, n, 50), p90 = pct_ms(all, n, 90), p99 = pct_ms(all, n, 99);
    double mx = n ? (double)all[n - 1] / 1e6 : 0, mean = n ? sum / (double)n / 1e6 : 0;

    json_t *errs = json_object();
    for (int s = 0; s < MAX_STATUS; s++)
        if (s != 200 && status[s]) {
            char name[8];
            snprintf(name, sizeof name, "%d", s);
            json_object_set_new(errs, name, json_integer((json_int_t)status[s]));
        }
    json_t *out = json_pack(
        "{s:s,s:s,s:i,s:i,s:i,s:f,s:I,s:I,s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:o,s:I,s:b,s:s?}",
        "label", o.label, "catalog", o.catalog, "writers", o.writers, "files", o.files, "warmup",
        o.warmup, "duration_s", o.commits ? 0.0 : o.duration, "commits_per_writer",
        (json_int_t)o.commits, "ok", (json_int_t)n, "errors", (json_int_t)errors, "warmup_errors",
        (json_int_t)warmup_errors, "elapsed_s", elapsed, "commits_per_s", cps, "p50_ms", p50,
        "p90_ms", p90, "p99_ms", p99, "max_ms", mx, "mean_ms", mean, "errors_by_status", errs,
        "connections", (json_int_t)connects, "read_snapshot", o.read_snapshot, "first_error",
        first_error);
    if (!out)
        die("out of memory");
    json_object_set_new(out, "token", json_boolean(auth_header[0] != '\0'));
    char *text = json_dumps(out, JSON_COMPACT | JSON_REAL_PRECISION(6));
    puts(text);
    free(text);
    json_decref(out);
    if (o.tsv) {
        /* ok, errors, warm-up errors, elapsed s, commits/s, p50, p99, max
         * (ms), this process's CPU seconds, errors by status as
         * status:count,... ("-" when none) */
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
        FILE *f = fopen(o.tsv, "a");
        if (!f)
            die("cannot open %s: %s", o.tsv, strerror(errno));
        fprintf(f, "%zu\t%" PRIu64 "\t%" PRIu64 "\t%.3f\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t", n, errors,
                warmup_errors, elapsed, cps, p50, p99, mx, cpu);
        const char *sep = "";
        for (int s = 0; s < MAX_STATUS; s++)
            if (s != 200 && status[s]) {
                fprintf(f, "%s%d:%" PRIu64, sep, s, status[s]);
                sep = ",";
            }
        fprintf(f, "%s\n", *sep ? "" : "-");
        fclose(f);
    }
    fprintf(stderr,
            "commit_bench %s: %d writer(s) x %d file(s): %zu commits in %.2f s = %.1f commits/s;"
            " p50 %.2f ms, p99 %.2f ms, max %.2f ms; errors %" PRIu64 " (+%" PRIu64
            " in warm-up); %ld connection(s)%s\n",
            o.label, o.writers, o.files, n, elapsed, cps, p50, p99, mx, errors, warmup_errors,
            connects, auth_header[0] ? "; with a bearer token" : "");
    if (first_error)
        fprintf(stderr, "commit_bench: first error: %s\n", first_error);
    for (int i = 0; i < o.writers; i++) {
        curl_slist_free_all(ws[i].headers);
        curl_easy_cleanup(ws[i].curl);
        free(ws[i].body);
        free(ws[i].resp);
        free(ws[i].lat_ns);
    }
    free(ws);
    free(all);
    explicit_bzero(auth_header, sizeof auth_header);
    curl_global_cleanup();
    return errors || warmup_errors ? 1 : 0;
}
