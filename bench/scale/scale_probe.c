/* scale_probe: times one kind of request against hoglaked, for
 * bench/scale/run.sh.
 *
 * Reads request lines from --requests FILE: "PATH" or "PATH<TAB>BODY" (a
 * body for --method PUT or POST). Sends --warmup requests unmeasured, then
 * --ops measured ones, cycling through the lines, one at a time over one
 * keep-alive connection. With --pages, an answer holding a
 * `next_page_token` is followed with `page_token=` until the last page, and
 * the whole walk counts as one operation (a scan plan read to its end).
 * Every answer must be 200 (or --expect), else the probe stops with status
 * 1. Prints one JSON object: ops, p50/p90/p99/max milliseconds, pages and
 * response bytes per operation, and the probe's own CPU per operation. */
#include <curl/curl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_auth.h"
#include "scale_http.h"

struct request {
    char *path, *body;
};

struct opts {
    const char *url, *token_file, *requests, *method, *label;
    long ops, warmup, expect;
    bool pages;
};

static void usage(void)
{
    fputs("usage: scale_probe --url URL --requests FILE --ops N [--warmup N] [--method M]\n"
          "       [--pages] [--expect STATUS] [--label NAME] [--token-file FILE]\n",
          stderr);
    exit(2);
}

static struct request *read_requests(const char *file, size_t *n)
{
    FILE *f = fopen(file, "r");
    if (!f)
        scale_die("cannot open %s", file);
    struct request *r = NULL;
    size_t cap = 0;
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    *n = 0;
    while ((len = getline(&line, &line_cap, f)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        if (!len)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            struct request *grown = realloc(r, cap * sizeof *r);
            if (!grown)
                scale_die("out of memory");
            r = grown;
        }
        char *tab = strchr(line, '\t');
        if (tab)
            *tab = '\0';
        r[*n].path = strdup(line);
        r[*n].body = tab ? strdup(tab + 1) : NULL;
        if (!r[*n].path || (tab && !r[*n].body))
            scale_die("out of memory");
        (*n)++;
    }
    free(line);
    fclose(f);
    if (!*n)
        scale_die("%s holds no request", file);
    return r;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double percentile_ms(const uint64_t *sorted, size_t n, double p)
{
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return (double)sorted[i] / 1e6;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One operation: the request, and with --pages every following page.
 * Adds the pages and bytes it read. */
static void run_one(const struct opts *o, struct scale_http *h, const struct request *r,
                    long *pages, uint64_t *bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", r->path);
    for (;;) {
        long status = scale_http_send(h, o->method, path, r->body, r->body ? strlen(r->body) : 0);
        if (status != o->expect) {
            fprintf(stderr, "scale_probe: %s %s: HTTP %ld (wanted %ld): %.400s\n", o->method, path,
                    status, o->expect, h->resp.p);
            exit(1);
        }
        (*pages)++;
        *bytes += h->resp.len;
        if (!o->pages)
            return;
        json_t *j = json_loads(h->resp.p, 0, NULL);
        const char *token = json_string_value(json_object_get(j, "next_page_token"));
        if (!token) {
            json_decref(j);
            return;
        }
        char *esc = curl_easy_escape(h->curl, token, 0);
        int n = snprintf(path, sizeof path, "%s%cpage_token=%s", r->path,
                         strchr(r->path, '?') ? '&' : '?', esc ? esc : "");
        curl_free(esc);
        json_decref(j);
        if (!esc || n >= (int)sizeof path)
            scale_die("cannot build the next page's path");
    }
}

int main(int argc, char **argv)
{
    struct opts o = {.method = "GET", .ops = 50, .warmup = 5, .expect = 200, .label = "probe"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--pages")) {
            o.pages = true;
            continue;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--url"))
            o.url = v;
        else if (!strcmp(a, "--requests"))
            o.requests = v;
        else if (!strcmp(a, "--method"))
            o.method = v;
        else if (!strcmp(a, "--label"))
            o.label = v;
        else if (!strcmp(a, "--token-file"))
            o.token_file = v;
        else if (!strcmp(a, "--ops"))
            o.ops = strtol(v, NULL, 10);
        else if (!strcmp(a, "--warmup"))
            o.warmup = strtol(v, NULL, 10);
        else if (!strcmp(a, "--expect"))
            o.expect = strtol(v, NULL, 10);
        else
            usage();
    }
    if (!o.url || !o.requests || o.ops < 1 || o.ops > 10000000 || o.warmup < 0)
        usage();
    char auth[1100];
    bench_auth_header(o.token_file, auth, sizeof auth);
    size_t nreq;
    struct request *reqs = read_requests(o.requests, &nreq);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        scale_die("curl_global_init failed");
    struct scale_http h;
    scale_http_open(&h, o.url, auth);

    long pages = 0;
    uint64_t bytes = 0;
    size_t next = 0;
    for (long i = 0; i < o.warmup; i++, next++)
        run_one(&o, &h, &reqs[next % nreq], &pages, &bytes);
    uint64_t *lat = malloc((size_t)o.ops * sizeof *lat);
    if (!lat)
        scale_die("out of memory");
    pages = 0;
    bytes = 0;
    double cpu0 = cpu_s();
    unsigned long long t0 = scale_now_ns();
    for (long i = 0; i < o.ops; i++, next++) {
        unsigned long long s = scale_now_ns();
        run_one(&o, &h, &reqs[next % nreq], &pages, &bytes);
        lat[i] = scale_now_ns() - s;
    }
    double wall = (double)(scale_now_ns() - t0) / 1e9, cpu = cpu_s() - cpu0;
    qsort(lat, (size_t)o.ops, sizeof *lat, cmp_u64);
    size_t n = (size_t)o.ops;
    printf("{\"label\":\"%s\",\"ops\":%ld,\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,"
           "\"max_ms\":%.3f,\"wall_s\":%.3f,\"pages_per_op\":%.2f,\"bytes_per_op\":%.0f,"
           "\"probe_cpu_ms_per_op\":%.3f,\"connects\":%ld}\n",
           o.label, o.ops, percentile_ms(lat, n, 0.5), percentile_ms(lat, n, 0.9),
           percentile_ms(lat, n, 0.99), (double)lat[n - 1] / 1e6, wall,
           (double)pages / (double)o.ops, (double)bytes / (double)o.ops, cpu * 1e3 / (double)o.ops,
           h.connects);
    free(lat);
    for (size_t i = 0; i < nreq; i++) {
        free(reqs[i].path);
        free(reqs[i].body);
    }
    free(reqs);
    scale_http_close(&h);
    curl_global_cleanup();
    return 0;
}
