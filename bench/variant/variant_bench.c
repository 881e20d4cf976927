/* The Variant benchmark's hoglake side (bench/variant/README.md).
 *
 *   variant_bench gen FILE --rows N
 *       Writes N PostHog-like event property objects as JSON Lines (about
 *       1 KB and 26 keys a row; deterministic).
 *   variant_bench run FILE --out PARQUET [--repeat R]
 *       Times, R times each, on one thread:
 *       - encode: the file's lines encoded to Variant (the table's form),
 *         batches of 8192 rows, CPU per row;
 *       - write: the file read, encoded, shredded into the 12-field
 *         declaration below and written as Parquet (ZSTD), wall and CPU;
 *       - read: that file read back and every value decoded to JSON.
 *       Prints one JSON object. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lake/schema.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "rows/rows_adapt.h"
#include "rows/rows_schema.h"
#include "rows/rows_variant.h"
#include "util/arena.h"
#include "util/arrow.h"
#include "util/buf.h"

/* Rows encoded at a time (the product's chunk), and rows a batch of the
 * write phase's input (the CLI's parser's). */
enum { BATCH_ROWS = ROWS_CHUNK_ROWS, INPUT_ROWS = 65536 };

/* The declaration: 12 of the 26 keys, as a PostHog team would shred. */
static const char declaration[] =
    "{\"type\":\"object\",\"fields\":["
    "{\"name\":\"$browser\",\"type\":\"string\"},{\"name\":\"$os\",\"type\":\"string\"},"
    "{\"name\":\"$current_url\",\"type\":\"string\"},{\"name\":\"$host\",\"type\":\"string\"},"
    "{\"name\":\"$pathname\",\"type\":\"string\"},{\"name\":\"$browser_version\",\"type\":"
    "\"int64\"},"
    "{\"name\":\"$screen_height\",\"type\":\"int64\"},{\"name\":\"$screen_width\",\"type\":"
    "\"int64\"},"
    "{\"name\":\"$lib\",\"type\":\"string\"},{\"name\":\"$time\",\"type\":\"double\"},"
    "{\"name\":\"$active_feature_flags\",\"type\":\"array\",\"element\":{\"type\":\"string\"}},"
    "{\"name\":\"distinct_id\",\"type\":\"string\"}]}";

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const char *pick(const char *const *v, size_t n)
{
    return v[rnd() % n];
}

#define PICK(a) pick(a, sizeof a / sizeof a[0])

static void hex(char *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = "0123456789abcdef"[rnd() & 15];
    out[n] = '\0';
}

/* One row of event properties. */
static void gen_row(struct buf *b, uint64_t i)
{
    static const char *const browsers[] = {"Chrome", "Firefox", "Safari", "Edge", "Opera"};
    static const char *const oses[] = {"Mac OS X", "Windows", "Linux", "iOS", "Android"};
    static const char *const hosts[] = {"app.posthog.com", "eu.posthog.com", "example.com",
                                        "shop.example.org"};
    static const char *const paths[] = {
        "/",         "/insights",      "/events",      "/persons/abc",
        "/settings", "/feature_flags", "/dashboard/42"};
    static const char *const libs[] = {"web", "posthog-python", "posthog-node", "posthog-ios"};
    static const char *const flags[] = {"new-onboarding", "beta-insights", "dark-mode",
                                        "session-replay", "hogql",         "data-warehouse"};
    char id[33], sess[33], win[33], ins[17];
    hex(id, 32);
    hex(sess, 32);
    hex(win, 32);
    hex(ins, 16);
    const char *host = PICK(hosts), *path = PICK(paths);
    buf_printf(b,
               "{\"$browser\":\"%s\",\"$os\":\"%s\",\"$current_url\":\"https://%s%s?ref=%llu\","
               "\"$host\":\"%s\",\"$pathname\":\"%s\",\"$browser_version\":%d,"
               "\"$screen_height\":%d,\"$screen_width\":%d,\"$viewport_height\":%d,"
               "\"$viewport_width\":%d,\"$lib\":\"%s\",\"$lib_version\":\"1.%d.%d\","
               "\"$insert_id\":\"%s\",\"$time\":%llu.%03d,\"distinct_id\":\"%s\","
               "\"$device_id\":\"%s\",\"$session_id\":\"%s\",\"$window_id\":\"%s\","
               "\"$pageview_id\":\"%s\",\"$referrer\":\"https://www.google.com/\","
               "\"$referring_domain\":\"www.google.com\",\"$active_feature_flags\":[",
               PICK(browsers), PICK(oses), host, path, (unsigned long long)(rnd() % 1000), host,
               path, 100 + (int)(rnd() % 30), 600 + (int)(rnd() % 900), 800 + (int)(rnd() % 1800),
               500 + (int)(rnd() % 800), 700 + (int)(rnd() % 1600), PICK(libs), (int)(rnd() % 200),
               (int)(rnd() % 20), ins, (unsigned long long)(1700000000 + i), (int)(rnd() % 1000),
               id, id, sess, win, ins);
    int nflags = (int)(rnd() % 4);
    for (int k = 0; k < nflags; k++)
        buf_printf(b, "%s\"%s\"", k ? "," : "", PICK(flags));
    buf_printf(b,
               "],\"$feature/beta-insights\":%s,\"token\":\"phc_%s\",\"$is_identified\":%s,"
               "\"$raw_user_agent\":\"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) "
               "AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36\","
               "\"plan\":\"%s\",\"$groups\":{\"company\":\"c%d\",\"project\":%d}}\n",
               rnd() % 2 ? "true" : "false", ins, rnd() % 3 ? "true" : "false",
               rnd() % 2 ? "scale" : "free", (int)(rnd() % 500), (int)(rnd() % 10000));
}

/* ---- timing ---- */

static double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- the input ---- */

struct lines {
    char *text;
    size_t len;
    int64_t n;
    int64_t *start; /* n + 1 line starts */
};

static int read_lines(const char *path, struct lines *l)
{
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0)
        return -1;
    long size = ftell(f);
    rewind(f);
    l->len = size > 0 ? (size_t)size : 0;
    l->text = malloc(l->len + 1);
    if (!l->text || fread(l->text, 1, l->len, f) != l->len)
        return -1;
    fclose(f);
    l->n = 0;
    for (const char *p = l->text; (p = memchr(p, '\n', l->len - (size_t)(p - l->text))); p++)
        l->n++;
    l->start = malloc(((size_t)l->n + 1) * sizeof *l->start);
    if (!l->start)
        return -1;
    int64_t j = 0;
    l->start[0] = 0;
    for (const char *p = l->text; (p = memchr(p, '\n', l->len - (size_t)(p - l->text))); p++)
        l->start[++j] = (int64_t)(p - l->text) + 1;
    return 0;
}

/* A "u" array over lines [first, first + n) of the text, in place: each
 * value is a line with its newline (whitespace to a JSON reader). */
static void view_release(struct ArrowArray *a)
{
    free((void *)a->buffers[1]);
    free(a->buffers);
    a->release = NULL;
}

static void text_batch(const struct lines *l, int64_t first, int64_t n, struct ArrowArray *out)
{
    int32_t *off = malloc(((size_t)n + 1) * sizeof *off);
    const void **bufs = malloc(3 * sizeof *bufs);
    if (!off || !bufs)
        exit(5);
    for (int64_t i = 0; i <= n; i++)
        off[i] = (int32_t)(l->start[first + i] - l->start[first]);
    bufs[0] = NULL;
    bufs[1] = off;
    bufs[2] = l->text + l->start[first];
    *out =
        (struct ArrowArray){.length = n, .n_buffers = 3, .buffers = bufs, .release = view_release};
}

static void die(const char *what, const struct error *e)
{
    fprintf(stderr, "variant_bench: %s: %s\n", what, e ? e->msg : strerror(errno));
    exit(5);
}

/* The file's lines encoded, batch by batch (the Arrow input prepared
 * outside the timed part). Returns CPU seconds. */
static double time_encode(const struct lines *l)
{
    double cpu = 0;
    for (int64_t first = 0; first < l->n; first += BATCH_ROWS) {
        int64_t n = l->n - first < BATCH_ROWS ? l->n - first : BATCH_ROWS;
        struct ArrowArray text, storage;
        text_batch(l, first, n, &text);
        struct error e;
        double t0 = now(CLOCK_PROCESS_CPUTIME_ID);
        if (rows_variant_from_json("u", &text, 0, ROWS_VARIANT_INVALID_ERROR, &storage, NULL, &e) !=
            0)
            die("encode", &e);
        cpu += now(CLOCK_PROCESS_CPUTIME_ID) - t0;
        storage.release(&storage);
        text.release(&text);
    }
    return cpu;
}

struct phase {
    double wall, cpu;
};

struct chunk_writer {
    struct pq_writer *w;
    const struct ArrowSchema *schema;
};

static int write_chunk(void *ctx, const struct ArrowArray *chunk, struct error *e)
{
    struct chunk_writer *cw = ctx;
    return pq_writer_write(cw->w, cw->schema, chunk, e);
}

/* Read, encode, shred, write: the whole path, timed as a whole. */
static struct phase time_write(const char *in, const struct lake_table *t, const char *out,
                               uint64_t *file_size)
{
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    struct lines l;
    if (read_lines(in, &l) != 0)
        die(in, NULL);
    FILE *f = fopen(out, "wb");
    if (!f)
        die(out, NULL);
    int fd = fileno(f);
    struct pq_sink sink = {pq_sink_fd_write, &fd};
    struct pq_write_options o;
    pq_write_options_default(&o);
    struct pq_writer *w;
    struct error e;
    struct ArrowSchema schema;
    if (pq_writer_open(t, &o, &sink, &w, &e) != 0 || rows_table_arrow_schema(t, &schema) != 0)
        die("open the writer", &e);
    /* The product's path: batches as the CLI parses them, encoded a chunk
     * at a time by rows_adapt_chunks. */
    struct ArrowSchema input;
    if (arrow_schema_init(&input, "+s", "", 0, 1) != 0 ||
        arrow_schema_init(input.children[0], "u", t->root.children[0]->name, ARROW_FLAG_NULLABLE,
                          0) != 0)
        die("schema", NULL);
    struct chunk_writer cw = {w, &schema};
    for (int64_t first = 0; first < l.n; first += INPUT_ROWS) {
        int64_t n = l.n - first < INPUT_ROWS ? l.n - first : INPUT_ROWS;
        struct ArrowArray batch;
        arrow_array_init(&batch, 1, 1);
        batch.length = n;
        text_batch(&l, first, n, batch.children[0]);
        struct rows_adapt_options ao = {0};
        if (rows_adapt_chunks(&input, &batch, t, &ao, write_chunk, &cw, &e) != 0)
            die("write", &e);
    }
    input.release(&input);
    struct pq_write_result res;
    if (pq_writer_close(w, &res, &e) != 0)
        die("close", &e);
    *file_size = res.file_size;
    pq_write_result_release(&res);
    schema.release(&schema);
    fclose(f);
    free(l.text);
    free(l.start);
    return (struct phase){now(CLOCK_MONOTONIC) - w0, now(CLOCK_PROCESS_CPUTIME_ID) - c0};
}

/* The file read back, every value decoded to JSON text. */
static struct phase time_read(const char *path, const struct lake_table *t, int64_t *rows,
                              int64_t *json_bytes)
{
    (void)t;
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    struct pq_source src;
    struct pq_reader *r;
    struct error e;
    struct ArrowSchema s;
    if (pq_source_file(&src, path, &e) != 0 || pq_reader_open(&src, &r, &e) != 0 ||
        pq_reader_arrow_schema(r, &s, &e) != 0)
        die(path, &e);
    *rows = *json_bytes = 0;
    for (size_t g = 0; g < pq_reader_meta(r)->nrow_groups; g++) {
        struct ArrowArray b, text;
        if (pq_reader_read_row_group(r, g, &b, &e) != 0 ||
            rows_variant_unshred(s.children[0], b.children[0], 0, &e) != 0 ||
            rows_variant_to_json(b.children[0], &text, &e) != 0)
            die("read", &e);
        *rows += text.length;
        *json_bytes += ((const int32_t *)text.buffers[1])[text.length];
        text.release(&text);
        b.release(&b);
    }
    s.release(&s);
    pq_reader_free(r);
    pq_source_close(&src);
    return (struct phase){now(CLOCK_MONOTONIC) - w0, now(CLOCK_PROCESS_CPUTIME_ID) - c0};
}

static void print_range(const char *name, const double *v, int n, bool last)
{
    printf("\"%s\":[", name);
    for (int i = 0; i < n; i++)
        printf("%s%.6f", i ? "," : "", v[i]);
    printf("]%s", last ? "" : ",");
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "gen") == 0 && strcmp(argv[3], "--rows") == 0) {
        long long n = atoll(argv[4]);
        FILE *f = fopen(argv[2], "wb");
        if (!f)
            die(argv[2], NULL);
        struct buf b = BUF_INIT;
        for (long long i = 0; i < n; i++) {
            gen_row(&b, (uint64_t)i);
            if (b.len > (1 << 20) || i + 1 == n) {
                fwrite(b.data, 1, b.len, f);
                buf_reset(&b);
            }
        }
        buf_free(&b);
        fclose(f);
        return 0;
    }
    if (argc < 5 || strcmp(argv[1], "run") != 0 || strcmp(argv[3], "--out") != 0) {
        fprintf(stderr, "usage: variant_bench gen FILE --rows N | run FILE --out PARQUET "
                        "[--repeat R]\n");
        return 2;
    }
    int repeat = argc >= 7 && strcmp(argv[5], "--repeat") == 0 ? atoi(argv[6]) : 3;
    if (repeat < 1 || repeat > 50)
        repeat = 3;
    struct arena a;
    arena_init(&a, 0);
    struct lake_table t;
    lake_table_init(&t, &a);
    struct error e;
    char cols[4096];
    snprintf(cols, sizeof cols,
             "[{\"name\":\"properties\",\"type\":\"variant\",\"type_params\":{\"shredding\":%s}}]",
             declaration);
    json_t *jc = json_loads(cols, 0, NULL);
    if (!jc || lake_table_add_columns(&t, jc, &e) != 0)
        die("the table", &e);
    json_decref(jc);

    struct lines l;
    if (read_lines(argv[2], &l) != 0)
        die(argv[2], NULL);
    double enc[50], wwall[50], wcpu[50], rwall[50], rcpu[50];
    uint64_t size = 0;
    int64_t rows = 0, json_bytes = 0;
    for (int k = 0; k < repeat; k++) {
        enc[k] = time_encode(&l);
        struct phase w = time_write(argv[2], &t, argv[4], &size);
        wwall[k] = w.wall;
        wcpu[k] = w.cpu;
        struct phase r = time_read(argv[4], &t, &rows, &json_bytes);
        rwall[k] = r.wall;
        rcpu[k] = r.cpu;
    }
    printf("{\"rows\":%lld,\"input_bytes\":%zu,\"batch_rows\":%d,\"file_bytes\":%llu,"
           "\"json_bytes_out\":%lld,",
           (long long)l.n, l.len, BATCH_ROWS, (unsigned long long)size, (long long)json_bytes);
    print_range("encode_cpu_s", enc, repeat, false);
    print_range("write_wall_s", wwall, repeat, false);
    print_range("write_cpu_s", wcpu, repeat, false);
    print_range("read_wall_s", rwall, repeat, false);
    print_range("read_cpu_s", rcpu, repeat, true);
    printf("}\n");
    if (rows != l.n) {
        fprintf(stderr, "variant_bench: read %lld rows of %lld\n", (long long)rows, (long long)l.n);
        return 1;
    }
    free(l.text);
    free(l.start);
    lake_table_release(&t);
    arena_free(&a);
    return 0;
}
