/* append_bench: the writer path end to end through libhoglake (see
 * bench/append/README.md).
 *
 *   append_bench --server URL --data-path URI [--catalog NAME] [--namespace NAME]
 *                [--table NAME] [--rows N] [--batch-rows N] [--repeat N] [--seed N]
 *                [--encode-threads N]
 *                [--s3-endpoint URL] [--s3-region R] [--s3-access-key K] [--s3-secret-key S]
 *
 * Opens (or creates) the catalog and namespace, then per repetition creates
 * a fresh table of bench/parquet's event table (events.h) and appends
 * --rows rows to it in ONE hl_table_append. The rows come from an Arrow
 * stream whose get_next generates the next batch into reused buffers; the
 * time spent generating is measured inside get_next and subtracted, so
 * append_s is what the library spends: reading the table, casting,
 * encoding Parquet (zstd) in memory, uploading and committing. The fastest
 * repetition counts.
 *
 * --encode-threads N (1 to 16, default 1) sets hl_append_options.
 * encode_threads: pages are encoded and compressed on N threads, the
 * calling one included; the file is the same bytes whatever N. The count
 * is recorded in the output.
 *
 * Options left out fall back to the environment: HOGLAKE_URL for --server,
 * and libhoglake's own AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY for the object store.
 *
 * Prints one JSON object on stdout. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "events.h"
#include "hoglake/hoglake.h"
#include "util/arrow.h"

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("append_bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static double now_s(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the generating stream ----
 *
 * Every batch lends the events_batch's buffers. They are refilled only
 * after the consumer has released every array of the previous batch (the
 * struct and its six columns, which the library may move apart); a
 * get_next while some are still held fails rather than overwrite them. */

struct gen_stream {
    const struct events_gen *gen;
    struct events_batch *batch;
    int64_t rows, next;
    int held; /* arrays of the last batch not yet released */
    /* Timing, wall and process CPU. */
    double t_call, cpu_call; /* when hl_table_append was called */
    double t_ret, cpu_ret;   /* when get_next last returned */
    double gen_s, gen_cpu_s; /* inside get_next */
    double setup_s;          /* the call to the first get_next */
    double encode_s;         /* between get_next calls: cast and encode */
    double t_end;            /* when get_next returned the end of the stream */
    int nbatches;
    char error[128];
};

static void column_release(struct ArrowArray *a)
{
    struct gen_stream *s = a->private_data;
    s->held--;
    a->release = NULL;
}

static void batch_release(struct ArrowArray *a)
{
    struct gen_stream *s = a->private_data;
    for (int64_t i = 0; i < a->n_children; i++) {
        if (a->children[i]->release)
            a->children[i]->release(a->children[i]);
    }
    s->held--;
    a->release = NULL;
}

static int gs_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
    struct gen_stream *s = st->private_data;
    const struct ArrowSchema *in = &s->batch->schema;
    if (arrow_schema_init(out, in->format, in->name, in->flags, in->n_children) != 0)
        return ENOMEM;
    for (int64_t c = 0; c < in->n_children; c++) {
        const struct ArrowSchema *k = in->children[c];
        if (arrow_schema_init(out->children[c], k->format, k->name, k->flags, 0) != 0) {
            out->release(out);
            return ENOMEM;
        }
    }
    return 0;
}

static int gs_get_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
    struct gen_stream *s = st->private_data;
    double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    if (s->nbatches == 0)
        s->setup_s = t0 - s->t_call;
    else
        s->encode_s += t0 - s->t_ret;
    memset(out, 0, sizeof *out);
    if (s->held != 0) {
        snprintf(s->error, sizeof s->error,
                 "get_next while %d arrays of the previous batch are still held", s->held);
        return EBUSY;
    }
    if (s->next < s->rows) {
        struct events_batch *b = s->batch;
        int64_t n = s->rows - s->next < b->cap ? s->rows - s->next : b->cap;
        events_gen_batch(s->gen, b, s->next, n);
        s->next += n;
        for (int c = 0; c < EVENTS_NCOLS; c++) {
            b->kids[c].release = column_release;
            b->kids[c].private_data = s;
        }
        *out = b->top;
        out->release = batch_release;
        out->private_data = s;
        s->held = 1 + EVENTS_NCOLS;
    }
    s->nbatches++;
    double t1 = now_s(CLOCK_MONOTONIC);
    s->gen_s += t1 - t0;
    s->gen_cpu_s += now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    s->t_ret = t1;
    if (!out->release)
        s->t_end = t1;
    return 0;
}

static const char *gs_last_error(struct ArrowArrayStream *st)
{
    struct gen_stream *s = st->private_data;
    return s->error[0] ? s->error : NULL;
}

/* The stream state belongs to the caller (on its stack); releasing the
 * stream only marks it released. */
static void gs_release(struct ArrowArrayStream *st)
{
    st->release = NULL;
}

/* ---- options ---- */

struct opts {
    const char *server, *data_path, *catalog, *ns, *table;
    const char *s3_endpoint, *s3_region, *s3_access_key, *s3_secret_key;
    int64_t rows, batch_rows;
    int repeat;
    int encode_threads;
    uint64_t seed;
};

static int64_t parse_i64(const char *flag, const char *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < 0)
        die("%s: bad number '%s'", flag, v);
    return x;
}

/* hl_append_options.encode_threads: 1 (the calling thread alone) to 16. */
#define ENCODE_THREADS_MAX 16

static int parse_threads(const char *flag, const char *v)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < 1 || x > ENCODE_THREADS_MAX)
        die("%s: '%s' is not a thread count from 1 to %d", flag, v, ENCODE_THREADS_MAX);
    return (int)x;
}

static void usage(void)
{
    fputs("usage: append_bench --server URL --data-path URI [--catalog NAME] [--namespace NAME]\n"
          "                    [--table NAME] [--rows N] [--batch-rows N] [--repeat N] [--seed N]\n"
          "                    [--encode-threads N]\n"
          "                    [--s3-endpoint URL] [--s3-region R] [--s3-access-key K]\n"
          "                    [--s3-secret-key S]\n",
          stderr);
    exit(2);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
    memset(o, 0, sizeof *o);
    o->server = getenv("HOGLAKE_URL");
    o->catalog = "bench_append";
    o->ns = "bench";
    o->table = "events";
    o->rows = 2000000;
    o->batch_rows = 65536;
    o->repeat = 1;
    o->encode_threads = 1;
    o->seed = 42;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            usage();
        if (i + 1 >= argc)
            die("%s needs a value", a);
        const char *v = argv[++i];
        if (strcmp(a, "--server") == 0)
            o->server = v;
        else if (strcmp(a, "--data-path") == 0)
            o->data_path = v;
        else if (strcmp(a, "--catalog") == 0)
            o->catalog = v;
        else if (strcmp(a, "--namespace") == 0)
            o->ns = v;
        else if (strcmp(a, "--table") == 0)
            o->table = v;
        else if (strcmp(a, "--s3-endpoint") == 0)
            o->s3_endpoint = v;
        else if (strcmp(a, "--s3-region") == 0)
            o->s3_region = v;
        else if (strcmp(a, "--s3-access-key") == 0)
            o->s3_access_key = v;
        else if (strcmp(a, "--s3-secret-key") == 0)
            o->s3_secret_key = v;
        else if (strcmp(a, "--rows") == 0)
            o->rows = parse_i64(a, v);
        else if (strcmp(a, "--batch-rows") == 0)
            o->batch_rows = parse_i64(a, v);
        else if (strcmp(a, "--repeat") == 0)
            o->repeat = (int)parse_i64(a, v);
        else if (strcmp(a, "--encode-threads") == 0)
            o->encode_threads = parse_threads(a, v);
        else if (strcmp(a, "--seed") == 0)
            o->seed = (uint64_t)parse_i64(a, v);
        else
            die("unknown option %s", a);
    }
    if (!o->server || !*o->server)
        die("no server: pass --server URL or set HOGLAKE_URL");
    if (o->batch_rows < 1)
        o->batch_rows = 1;
    if (o->repeat < 1)
        o->repeat = 1;
}

/* ---- the catalog, namespace and tables ---- */

static void check(hl_status st, const struct hl_error *err, const char *what)
{
    if (st != HL_OK)
        die("%s: %s (%s)", what, err->message, hl_status_name(st));
}

/* Opens the catalog, or creates it when missing (needs --data-path). */
static hl_catalog *catalog_get(hl_client *c, const struct opts *o)
{
    hl_catalog *cat;
    struct hl_error err;
    hl_status st = hl_catalog_open(c, o->catalog, &cat, &err);
    if (st == HL_ERR_NOT_FOUND) {
        if (!o->data_path)
            die("catalog '%s' does not exist: pass --data-path to create it", o->catalog);
        st = hl_catalog_create(c, o->catalog, o->data_path, &cat, &err);
    }
    check(st, &err, "catalog");
    if (o->data_path && strcmp(hl_catalog_data_path(cat), o->data_path) != 0)
        die("catalog '%s' exists with data path %s, not %s", o->catalog, hl_catalog_data_path(cat),
            o->data_path);
    return cat;
}

static hl_namespace *namespace_get(hl_catalog *cat, const char *name)
{
    hl_namespace *ns;
    struct hl_error err;
    hl_status st = hl_namespace_open(cat, name, &ns, &err);
    if (st == HL_ERR_NOT_FOUND)
        st = hl_namespace_create(cat, name, &ns, &err);
    check(st, &err, "namespace");
    return ns;
}

/* ---- one repetition ---- */

struct run {
    double append_s, append_cpu_s; /* the library's share: the call minus generation */
    double gen_s, gen_cpu_s;
    double setup_s, encode_s, finish_s;
    int64_t rows, file_bytes, snapshot_id;
    size_t nfiles;
    char table[128];
    char file[4096]; /* the first file's URI */
};

static void append_once(hl_namespace *ns, const struct opts *o, const struct events_gen *g,
                        struct events_batch *b, int rep, struct run *run)
{
    memset(run, 0, sizeof *run);
    /* A fresh table per repetition, named so that runs never collide. */
    snprintf(run->table, sizeof run->table, "%s_%lld_%d_r%d", o->table, (long long)time(NULL),
             (int)getpid(), rep);
    hl_table *t;
    struct hl_error err;
    check(hl_table_create(ns, run->table, events_table_json, NULL, &t, &err), &err, "table create");

    struct gen_stream gs = {.gen = g, .batch = b, .rows = o->rows};
    struct ArrowArrayStream stream = {.get_schema = gs_get_schema,
                                      .get_next = gs_get_next,
                                      .get_last_error = gs_last_error,
                                      .release = gs_release,
                                      .private_data = &gs};
    struct hl_append_options ao;
    hl_append_options_init(&ao);
    ao.author = "append_bench";
    ao.encode_threads = o->encode_threads;
    struct hl_append_result *res = NULL;
    gs.t_call = now_s(CLOCK_MONOTONIC);
    gs.cpu_call = now_s(CLOCK_PROCESS_CPUTIME_ID);
    hl_status st = hl_table_append(t, &stream, &ao, &res, &err);
    double t1 = now_s(CLOCK_MONOTONIC), c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    check(st, &err, "append");
    if (gs.held != 0)
        die("the library kept %d arrays of the last batch", gs.held);

    run->gen_s = gs.gen_s;
    run->gen_cpu_s = gs.gen_cpu_s;
    run->append_s = t1 - gs.t_call - gs.gen_s;
    run->append_cpu_s = c1 - gs.cpu_call - gs.gen_cpu_s;
    run->setup_s = gs.setup_s;
    run->encode_s = gs.encode_s;
    run->finish_s = t1 - gs.t_end;
    run->snapshot_id = res->snapshot_id;
    run->nfiles = res->nfiles;
    for (size_t i = 0; i < res->nfiles; i++) {
        run->rows += res->files[i].record_count;
        run->file_bytes += res->files[i].file_size_bytes;
    }
    if (res->nfiles > 0)
        snprintf(run->file, sizeof run->file, "%s", res->files[0].path);
    hl_append_result_free(res);
    hl_table_free(t);
    if (run->rows != o->rows)
        die("appended %" PRId64 " rows, expected %" PRId64, run->rows, o->rows);
}

static json_t *run_json(const struct run *r)
{
    return json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:I, s:I}", "table", r->table, "append_s",
                     r->append_s, "append_cpu_s", r->append_cpu_s, "gen_s", r->gen_s, "encode_s",
                     r->encode_s, "finish_s", r->finish_s, "snapshot_id",
                     (json_int_t)r->snapshot_id, "file_bytes", (json_int_t)r->file_bytes);
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    struct opts o;
    parse_opts(argc, argv, &o);

    struct arena arena;
    struct lake_table lt;
    char msg[256];
    if (events_table_init(&arena, &lt, msg, sizeof msg) != 0)
        die("%s", msg);
    struct events_gen *g = malloc(sizeof *g);
    if (!g)
        die("out of memory");
    events_gen_init(g, o.seed);
    struct events_batch b;
    if (events_batch_init(&b, o.batch_rows, &lt) != 0)
        die("out of memory");

    struct hl_client_options co = {.server_url = o.server,
                                   .s3_endpoint = o.s3_endpoint,
                                   .s3_region = o.s3_region,
                                   .s3_access_key = o.s3_access_key,
                                   .s3_secret_key = o.s3_secret_key};
    hl_client *client;
    struct hl_error err;
    check(hl_client_new(&co, &client, &err), &err, "client");
    hl_catalog *cat = catalog_get(client, &o);
    hl_namespace *ns = namespace_get(cat, o.ns);
    long rss_start = peak_rss_kb();

    json_t *runs = json_array();
    struct run best, run;
    double total_s = 0;
    for (int rep = 0; rep < o.repeat; rep++) {
        append_once(ns, &o, g, &b, rep, &run);
        fprintf(stderr,
                "append_bench: %s: %.3f s (%.0f rows/s), %d encode thread%s, generation %.3f s "
                "apart\n",
                run.table, run.append_s, (double)o.rows / run.append_s, o.encode_threads,
                o.encode_threads == 1 ? "" : "s", run.gen_s);
        json_array_append_new(runs, run_json(&run));
        total_s += run.append_s;
        if (rep == 0 || run.append_s < best.append_s)
            best = run;
    }

    json_t *out = json_object();
    json_object_set_new(out, "phase", json_string("append"));
    json_object_set_new(out, "engine", json_string("hoglake"));
    json_object_set_new(out, "data_path", json_string(hl_catalog_data_path(cat)));
    json_object_set_new(out, "rows", json_integer(o.rows));
    json_object_set_new(out, "batch_rows", json_integer(o.batch_rows));
    json_object_set_new(out, "repeat", json_integer(o.repeat));
    json_object_set_new(out, "encode_threads", json_integer(o.encode_threads));
    json_object_set_new(out, "append_s", json_real(best.append_s));
    json_object_set_new(out, "append_cpu_s", json_real(best.append_cpu_s));
    json_object_set_new(out, "append_mean_s", json_real(total_s / o.repeat));
    json_object_set_new(out, "rows_per_s", json_real((double)o.rows / best.append_s));
    json_object_set_new(out, "rows_per_cpu_s", json_real((double)o.rows / best.append_cpu_s));
    json_object_set_new(out, "setup_s", json_real(best.setup_s));
    json_object_set_new(out, "encode_s", json_real(best.encode_s));
    json_object_set_new(out, "finish_s", json_real(best.finish_s));
    json_object_set_new(out, "gen_s", json_real(best.gen_s));
    json_object_set_new(out, "gen_cpu_s", json_real(best.gen_cpu_s));
    json_object_set_new(out, "table", json_string(best.table));
    json_object_set_new(out, "snapshot_id", json_integer(best.snapshot_id));
    json_object_set_new(out, "files", json_integer((json_int_t)best.nfiles));
    json_object_set_new(out, "file", json_string(best.file));
    json_object_set_new(out, "file_bytes", json_integer(best.file_bytes));
    json_object_set_new(out, "input_batch_bytes", json_integer((json_int_t)b.alloc_bytes));
    json_object_set_new(out, "rss_before_kb", json_integer(rss_start));
    json_object_set_new(out, "peak_rss_kb", json_integer(peak_rss_kb()));
    json_object_set_new(out, "runs", runs);
    char *text = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!text)
        die("out of memory");
    puts(text);
    free(text);
    json_decref(out);

    hl_namespace_free(ns);
    hl_catalog_free(cat);
    hl_client_free(client);
    events_batch_free(&b);
    free(g);
    lake_table_release(&lt);
    arena_free(&arena);
    return 0;
}
