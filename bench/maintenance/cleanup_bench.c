/* Cleanup throughput: N real small objects queued for removal, drained by
 * POST /v1/catalogs/{c}/maintenance/cleanup passes on a running hoglaked;
 * prints paths/s. bench/maintenance/run_cleanup.sh runs it on file:// and
 * moto.
 *
 *   cleanup_bench --server URL --pg URL --store PREFIX --catalog NAME
 *                 [--n N] [--batch B] [--s3-endpoint URL] [--threads T]
 *                 [--token-file FILE]
 *
 * A server with authentication on needs an admin token (catalog creation
 * and cleanup are admin's): the first line of --token-file (e.g.
 * <data-dir>/admin.token), else $HOGLAKE_TOKEN, else the file named by
 * $HOGLAKE_TOKEN_FILE. It is sent as Authorization: Bearer; there is no
 * option taking the secret itself (a command line is world-visible).
 *
 * PREFIX is the catalog's data_path (file:///abs/dir or s3://bucket/prefix);
 * objects go under PREFIX/obj/. Setup (puts, queue rows) is not timed; the
 * passes are. Afterwards every object must be gone and every row drained
 * `deleted`, else exit 1.
 *
 * The peer, on file:// only: the same number of objects, written the same
 * way under PREFIX/peer/, removed by `rm -rf` (coreutils, one thread, no
 * catalog); the ratio is our paths/s over rm's. */
#include <curl/curl.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_auth.h"
#include "objstore/objstore.h"

struct opts {
    const char *server, *pg, *store, *catalog, *s3_endpoint, *token_file;
    long n, batch;
    int threads;
};

static struct objstore *os;
static const char *obj_dir = "obj"; /* PREFIX/<obj_dir>/ holds the objects */
static struct opts o = {.n = 20000, .batch = 5000, .threads = 4};
/* "Authorization: Bearer <secret>", or empty for a server without auth */
static char auth_header[1100];

__attribute__((format(printf, 1, 2))) static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cleanup_bench: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t collect(char *p, size_t size, size_t n, void *ctx)
{
    strncat((char *)ctx, p, size * n < 4000 - strlen(ctx) ? size * n : 4000 - strlen(ctx));
    return size * n;
}

/* POST with an optional JSON body; returns the HTTP status, body in out. */
static long post(const char *path, const char *json, char out[4096])
{
    char url[1024];
    snprintf(url, sizeof url, "%s%s", o.server, path);
    out[0] = '\0';
    CURL *c = curl_easy_init();
    if (!c)
        die("%s", "curl_easy_init failed");
    struct curl_slist *h = NULL;
    if (json)
        h = curl_slist_append(h, "Content-Type: application/json");
    if (auth_header[0])
        h = curl_slist_append(h, auth_header);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, json ? json : "");
    if (h)
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    long status = 0;
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return status;
}

static void object_uri(char *out, size_t size, long i)
{
    snprintf(out, size, "%s/%s/%06ld.parquet", o.store, obj_dir, i);
}

static void *put_range(void *arg)
{
    long t = (long)(intptr_t)arg;
    static const char body[64] = "PAR1 small object for the cleanup benchmark";
    for (long i = t; i < o.n; i += o.threads) {
        char uri[800];
        object_uri(uri, sizeof uri, i);
        struct hl_error e;
        if (objstore_put(os, uri, body, sizeof body, 0, &e) != 0)
            die("put failed: %s", e.message);
    }
    return NULL;
}

static PGresult *sql(PGconn *pg, const char *q)
{
    PGresult *r = PQexec(pg, q);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
        die("SQL failed: %s", PQerrorMessage(pg));
    return r;
}

static int count_left(void *ctx, const char *uri, uint64_t size)
{
    (void)uri;
    (void)size;
    (*(long *)ctx)++;
    return 0;
}

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--server"))
            o.server = v;
        else if (!strcmp(k, "--pg"))
            o.pg = v;
        else if (!strcmp(k, "--store"))
            o.store = v;
        else if (!strcmp(k, "--catalog"))
            o.catalog = v;
        else if (!strcmp(k, "--s3-endpoint"))
            o.s3_endpoint = v;
        else if (!strcmp(k, "--n"))
            o.n = atol(v);
        else if (!strcmp(k, "--batch"))
            o.batch = atol(v);
        else if (!strcmp(k, "--threads"))
            o.threads = atoi(v);
        else if (!strcmp(k, "--token-file"))
            o.token_file = v;
        else
            die("unknown option %s", k);
    }
    if (!o.server || !o.pg || !o.store || !o.catalog || o.n < 1 || o.batch < 1 || o.threads < 1 ||
        o.threads > 64)
        die("%s", "usage: cleanup_bench --server URL --pg URL --store PREFIX --catalog NAME "
                  "[--n N] [--batch B] [--s3-endpoint URL] [--threads T] [--token-file FILE]");
}

static void put_all(void)
{
    pthread_t th[64];
    for (int t = 0; t < o.threads; t++)
        pthread_create(&th[t], NULL, put_range, (void *)(intptr_t)t);
    for (int t = 0; t < o.threads; t++)
        pthread_join(th[t], NULL);
}

/* rm -rf over the same number of objects; paths/s (0 when not file://). */
static double peer_rm(void)
{
    if (strncmp(o.store, "file://", 7) != 0)
        return 0;
    obj_dir = "peer";
    put_all();
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/peer'", o.store + 7);
    double t0 = now_s();
    if (system(cmd) != 0)
        die("%s failed", cmd);
    return (double)o.n / (now_s() - t0);
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    bench_auth_header(o.token_file, auth_header, sizeof auth_header);
    curl_global_init(CURL_GLOBAL_ALL);
    struct objstore_config cfg = {.s3_endpoint = o.s3_endpoint};
    struct hl_error e;
    if (objstore_open(&cfg, &os, &e) != 0)
        die("objstore_open: %s", e.message);
    char body[4096], req[1024];
    snprintf(req, sizeof req, "{\"name\":\"%s\",\"data_path\":\"%s\"}", o.catalog, o.store);
    if (post("/v1/catalogs", req, body) != 201)
        die("catalog create failed: %s", body);

    double t0 = now_s();
    put_all();
    double put_s = now_s() - t0;

    PGconn *pg = PQconnectdb(o.pg);
    if (PQstatus(pg) != CONNECTION_OK)
        die("cannot connect: %s", PQerrorMessage(pg));
    char q[2048];
    snprintf(q, sizeof q,
             "INSERT INTO hog_file_removal (catalog_id, path, file_kind, reason)"
             " SELECT c.catalog_id, format('%s/obj/%%s.parquet', lpad(i::text, 6, '0')), 'data',"
             " 'snapshot_expiry' FROM hog_catalog c, generate_series(0, %ld) AS i"
             " WHERE c.name = '%s'",
             o.store, o.n - 1, o.catalog);
    PQclear(sql(pg, q));
    PQclear(sql(pg, "ANALYZE hog_file_removal"));

    snprintf(req, sizeof req, "/v1/catalogs/%s/maintenance/cleanup?batch=%ld", o.catalog, o.batch);
    long removed = 0, other = 0, passes = 0;
    t0 = now_s();
    for (;;) {
        if (post(req, NULL, body) != 200)
            die("cleanup pass failed: %s", body);
        json_t *r = json_loads(body, 0, NULL);
        if (!r)
            die("bad answer: %s", body);
        long rm = (long)json_integer_value(json_object_get(r, "removed"));
        long ot = (long)(json_integer_value(json_object_get(r, "missing")) +
                         json_integer_value(json_object_get(r, "still_referenced")) +
                         json_integer_value(json_object_get(r, "failed")));
        json_decref(r);
        passes++;
        removed += rm;
        other += ot;
        if (rm + ot == 0)
            break;
    }
    double secs = now_s() - t0;

    long left = 0;
    snprintf(q, sizeof q, "%s/obj/", o.store);
    if (objstore_list(os, q, count_left, &left, &e) != 0)
        die("list failed: %s", e.message);
    snprintf(q, sizeof q,
             "SELECT count(*) FROM hog_file_removal r JOIN hog_catalog c USING (catalog_id)"
             " WHERE c.name = '%s' AND r.drained_outcome IS DISTINCT FROM 'deleted'",
             o.catalog);
    PGresult *r = sql(pg, q);
    long undrained = atol(PQgetvalue(r, 0, 0));
    PQclear(r);
    PQfinish(pg);
    double peer = peer_rm();
    if (peer > 0)
        printf("peer rm -rf: paths/s=%.0f; ratio (cleanup / rm -rf) = %.2fx\n", peer,
               (double)removed / secs / peer);
    printf("store=%s n=%ld batch=%ld passes=%ld puts=%.1fs cleanup=%.3fs paths/s=%.0f "
           "removed=%ld other=%ld objects_left=%ld rows_not_deleted=%ld\n",
           strncmp(o.store, "s3://", 5) == 0 ? "s3" : "file", o.n, o.batch, passes, put_s, secs,
           (double)removed / secs, removed, other, left, undrained);
    objstore_free(os);
    curl_global_cleanup();
    return removed == o.n && other == 0 && left == 0 && undrained == 0 ? 0 : 1;
}
