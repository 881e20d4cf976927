/* pq_bench: the Parquet codec benchmark's C side (see bench/parquet/README.md).
 *
 *   pq_bench gen-and-write OUT.parquet [--rows N] [--batch-rows N] [--row-group-bytes N]
 *                                      [--page-bytes N] [--level N] [--codec NAME]
 *                                      [--seed N]
 *                                      [--dictionary-bytes N] [--no-dictionary]
 *                                      [--no-page-index] [--threads N] [--pregen]
 *   pq_bench read FILE [--repeat N]
 *   pq_bench gen [--rows N] [--batch-rows N] [--seed N]
 *
 * --repeat N (write and read) repeats the timed work in the same process
 * and reports the fastest run. --codec (default zstd; "uncompressed" leaves
 * compression out, to time the encoding alone).
 *
 * Every subcommand runs as its own process so that its peak RSS
 * (getrusage ru_maxrss) is the phase's own, and prints one JSON object on
 * stdout: timings, byte counts, peak RSS and order-independent checksums
 * of the data ("checks"), which the driver compares across engines.
 *
 * The event table and its generator are in events.h.
 *
 * gen-and-write times the generator and the writer separately (each batch
 * is generated, then handed to pq_writer_write); "write_s" is the time
 * spent inside pq_writer_open/write/close only. Input batches are reused,
 * so the process holds one batch of input at a time. With --threads N the
 * writer encodes pages on N threads; every page is sealed before
 * pq_writer_write returns, so its workers never run while the generator
 * does, and "write_cpu_s" (process CPU time) counts all of their work.
 * With --pregen every batch is generated first and the writer is timed
 * from open to close in one span (the input is then all in memory). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "events.h"
#include "lake/schema.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "util/arena.h"
#include "util/arrow.h"
#include "util/hash.h"

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("pq_bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory (%zu bytes)", n);
    return p;
}

static double now_s(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* ---- profiling only the timed sections ----
 *
 * With HL_BENCH_PERF_CTL (and optionally HL_BENCH_PERF_ACK) naming perf's
 * control FIFOs (perf record -D -1 --control fifo:CTL[,ACK] ...), the timed
 * sections switch sampling on and off, so a profile holds the codec's work
 * only. */

static int perf_ctl_fd = -1, perf_ack_fd = -1;

static void perf_ctl_open(void)
{
    const char *path = getenv("HL_BENCH_PERF_CTL");
    const char *ack = getenv("HL_BENCH_PERF_ACK");
    if (path && *path) {
        perf_ctl_fd = open(path, O_WRONLY);
        if (perf_ctl_fd < 0)
            die("%s: %s", path, strerror(errno));
    }
    if (perf_ctl_fd >= 0 && ack && *ack) {
        perf_ack_fd = open(ack, O_RDONLY);
        if (perf_ack_fd < 0)
            die("%s: %s", ack, strerror(errno));
    }
}

/* Switches sampling on or off and, with an ack FIFO, waits until perf has. */
static void perf_ctl(bool on)
{
    if (perf_ctl_fd < 0)
        return;
    const char *cmd = on ? "enable\n" : "disable\n";
    if (write(perf_ctl_fd, cmd, strlen(cmd)) < 0)
        die("perf control: %s", strerror(errno));
    if (perf_ack_fd >= 0) {
        char ack[8];
        if (read(perf_ack_fd, ack, sizeof ack) <= 0)
            die("perf ack: %s", strerror(errno));
    }
}

/* ---- checksums ---- */

/* Order-independent aggregates of the table's logical values. Sums wrap
 * modulo 2^64. */
struct checks {
    uint64_t rows;
    uint64_t session_len, session_hash, session_nulls;
    uint64_t event_id_sum, event_id_nulls;
    uint64_t ts_sum, ts_nulls;
    int64_t ts_min, ts_max;
    uint64_t event_len, event_hash, event_nulls;
    uint64_t value_count, value_cents, value_nulls;
    uint64_t props_len, props_hash, props_nulls;
    /* Arrow bytes of the batches seen: validity bitmaps, values, offsets,
     * string bytes (what a reader hands over). */
    uint64_t arrow_bytes;
};

static void checks_init(struct checks *k)
{
    memset(k, 0, sizeof *k);
    k->ts_min = INT64_MAX;
    k->ts_max = INT64_MIN;
}

/* The logical size of the data: string bytes plus 8 bytes per non-null
 * fixed-width value. The same for every engine and file. */
static uint64_t checks_data_bytes(const struct checks *k)
{
    return k->session_len + k->event_len + k->props_len +
           8 * ((k->rows - k->event_id_nulls) + (k->rows - k->ts_nulls) + k->value_count);
}

static bool valid_at(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *bits = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return !bits || a->null_count == 0 || arrow_bit(bits, a->offset + i);
}

static uint64_t arrow_validity_bytes(const struct ArrowArray *a)
{
    return a->n_buffers > 0 && a->buffers[0] ? (uint64_t)(a->length + 7) / 8 : 0;
}

static void check_strings(const struct ArrowSchema *s, const struct ArrowArray *a, uint64_t *len,
                          uint64_t *hash, uint64_t *nulls, uint64_t *arrow_bytes)
{
    if (strcmp(s->format, "u") != 0)
        die("column '%s': expected Arrow format 'u', got '%s'", s->name, s->format);
    const int32_t *off = a->buffers[1];
    const uint8_t *data = a->buffers[2];
    for (int64_t i = 0; i < a->length; i++) {
        if (!valid_at(a, i)) {
            (*nulls)++;
            continue;
        }
        int64_t p = a->offset + i;
        size_t n = (size_t)(off[p + 1] - off[p]);
        *len += n;
        *hash += hash_bytes(data + off[p], n);
    }
    *arrow_bytes += arrow_validity_bytes(a) + (uint64_t)(a->length + 1) * 4 +
                    (uint64_t)(off[a->offset + a->length] - off[a->offset]);
}

static void check_i64(const struct ArrowSchema *s, const struct ArrowArray *a, const char *format,
                      uint64_t *sum, uint64_t *nulls, int64_t *min, int64_t *max,
                      uint64_t *arrow_bytes)
{
    if (strcmp(s->format, format) != 0)
        die("column '%s': expected Arrow format '%s', got '%s'", s->name, format, s->format);
    const int64_t *v = (const int64_t *)a->buffers[1] + a->offset;
    for (int64_t i = 0; i < a->length; i++) {
        if (!valid_at(a, i)) {
            (*nulls)++;
            continue;
        }
        *sum += (uint64_t)v[i];
        if (min && v[i] < *min)
            *min = v[i];
        if (max && v[i] > *max)
            *max = v[i];
    }
    *arrow_bytes += arrow_validity_bytes(a) + (uint64_t)a->length * 8;
}

/* Adds a batch (a struct array of the table's columns, in order). */
static void checks_add(struct checks *k, const struct ArrowSchema *schema,
                       const struct ArrowArray *batch)
{
    if (schema->n_children != EVENTS_NCOLS || batch->n_children != EVENTS_NCOLS)
        die("a batch of %lld columns, expected %d", (long long)batch->n_children, EVENTS_NCOLS);
    for (int c = 0; c < EVENTS_NCOLS; c++)
        if (strcmp(schema->children[c]->name, events_column_names[c]) != 0)
            die("column %d is '%s', expected '%s'", c, schema->children[c]->name,
                events_column_names[c]);
    if (batch->offset != 0)
        die("a batch with an offset");
    k->rows += (uint64_t)batch->length;
    struct ArrowSchema **s = schema->children;
    struct ArrowArray **a = batch->children;
    check_strings(s[0], a[0], &k->session_len, &k->session_hash, &k->session_nulls,
                  &k->arrow_bytes);
    check_i64(s[1], a[1], "l", &k->event_id_sum, &k->event_id_nulls, NULL, NULL, &k->arrow_bytes);
    check_i64(s[2], a[2], "tsu:UTC", &k->ts_sum, &k->ts_nulls, &k->ts_min, &k->ts_max,
              &k->arrow_bytes);
    check_strings(s[3], a[3], &k->event_len, &k->event_hash, &k->event_nulls, &k->arrow_bytes);
    if (strcmp(s[4]->format, "g") != 0)
        die("column 'value': expected Arrow format 'g', got '%s'", s[4]->format);
    const double *v = (const double *)a[4]->buffers[1] + a[4]->offset;
    for (int64_t i = 0; i < a[4]->length; i++) {
        if (!valid_at(a[4], i)) {
            k->value_nulls++;
            continue;
        }
        k->value_count++;
        k->value_cents += (uint64_t)llround(v[i] * 100.0);
    }
    k->arrow_bytes += arrow_validity_bytes(a[4]) + (uint64_t)a[4]->length * 8;
    check_strings(s[5], a[5], &k->props_len, &k->props_hash, &k->props_nulls, &k->arrow_bytes);
}

static json_t *u64_json(uint64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, v);
    return json_string(text);
}

static json_t *checks_json(const struct checks *k)
{
    json_t *o = json_object();
    json_object_set_new(o, "rows", u64_json(k->rows));
    json_object_set_new(o, "session_id_len", u64_json(k->session_len));
    json_object_set_new(o, "session_id_hash", u64_json(k->session_hash));
    json_object_set_new(o, "session_id_nulls", u64_json(k->session_nulls));
    json_object_set_new(o, "event_id_sum", u64_json(k->event_id_sum));
    json_object_set_new(o, "event_id_nulls", u64_json(k->event_id_nulls));
    json_object_set_new(o, "ts_sum", u64_json(k->ts_sum));
    json_object_set_new(o, "ts_nulls", u64_json(k->ts_nulls));
    json_object_set_new(o, "ts_min", u64_json((uint64_t)(k->rows ? k->ts_min : 0)));
    json_object_set_new(o, "ts_max", u64_json((uint64_t)(k->rows ? k->ts_max : 0)));
    json_object_set_new(o, "event_len", u64_json(k->event_len));
    json_object_set_new(o, "event_hash", u64_json(k->event_hash));
    json_object_set_new(o, "event_nulls", u64_json(k->event_nulls));
    json_object_set_new(o, "value_count", u64_json(k->value_count));
    json_object_set_new(o, "value_cents", u64_json(k->value_cents));
    json_object_set_new(o, "value_nulls", u64_json(k->value_nulls));
    json_object_set_new(o, "properties_len", u64_json(k->props_len));
    json_object_set_new(o, "properties_hash", u64_json(k->props_hash));
    json_object_set_new(o, "properties_nulls", u64_json(k->props_nulls));
    return o;
}

/* ---- options ---- */

struct opts {
    const char *path;
    int64_t rows;
    int64_t batch_rows;
    int64_t row_group_bytes;
    int64_t page_bytes;
    int level;
    const char *codec; /* --codec NAME (pq_codec_parse); NULL = zstd */
    int64_t dictionary_bytes;
    bool no_dictionary, no_page_index;
    bool pregen; /* --pregen: every batch generated before the writer is timed */
    uint64_t seed;
    int repeat;
    int threads;
};

static int64_t parse_i64(const char *flag, const char *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || x < 0)
        die("%s: bad number '%s'", flag, v);
    if (*end == 'K' || *end == 'k')
        x *= 1024, end++;
    else if (*end == 'M' || *end == 'm')
        x *= 1024 * 1024, end++;
    if (*end)
        die("%s: bad number '%s'", flag, v);
    return x;
}

static void parse_opts(int argc, char **argv, struct opts *o, bool want_path)
{
    memset(o, 0, sizeof *o);
    o->rows = 10000000;
    o->batch_rows = 65536;
    o->seed = 42;
    o->repeat = 1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--no-dictionary") == 0) {
            o->no_dictionary = true;
            continue;
        }
        if (strcmp(a, "--no-page-index") == 0) {
            o->no_page_index = true;
            continue;
        }
        if (strcmp(a, "--pregen") == 0) {
            o->pregen = true;
            continue;
        }
        if (a[0] != '-') {
            if (o->path || !want_path)
                die("unexpected argument '%s'", a);
            o->path = a;
            continue;
        }
        if (i + 1 >= argc)
            die("%s needs a value", a);
        const char *v = argv[++i];
        if (strcmp(a, "--rows") == 0)
            o->rows = parse_i64(a, v);
        else if (strcmp(a, "--batch-rows") == 0)
            o->batch_rows = parse_i64(a, v);
        else if (strcmp(a, "--row-group-bytes") == 0)
            o->row_group_bytes = parse_i64(a, v);
        else if (strcmp(a, "--page-bytes") == 0)
            o->page_bytes = parse_i64(a, v);
        else if (strcmp(a, "--dictionary-bytes") == 0)
            o->dictionary_bytes = parse_i64(a, v);
        else if (strcmp(a, "--level") == 0)
            o->level = (int)parse_i64(a, v);
        else if (strcmp(a, "--codec") == 0)
            o->codec = v;
        else if (strcmp(a, "--seed") == 0)
            o->seed = (uint64_t)parse_i64(a, v);
        else if (strcmp(a, "--repeat") == 0)
            o->repeat = (int)parse_i64(a, v);
        else if (strcmp(a, "--threads") == 0)
            o->threads = (int)parse_i64(a, v);
        else
            die("unknown option %s", a);
    }
    if (want_path && !o->path)
        die("missing FILE");
    if (o->batch_rows < 1)
        o->batch_rows = 1;
    if (o->repeat < 1)
        o->repeat = 1;
}

static void emit(json_t *o)
{
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!text)
        die("out of memory");
    puts(text);
    free(text);
    json_decref(o);
}

/* ---- gen-and-write ---- */

struct write_run {
    double gen_s, check_s, write_s, write_cpu_s;
    uint64_t file_bytes;
    size_t row_groups;
    struct checks k;
};

/* Closes a written file's descriptor and keeps what the run reports of it. */
static void finish_file(int fd, struct pq_write_result *res, struct write_run *run)
{
    if (close(fd) != 0)
        die("close: %s", strerror(errno));
    run->file_bytes = res->file_size;
    run->row_groups = res->meta.nrow_groups;
    pq_write_result_release(res);
}

/* Generates o->rows rows and, when path is set, writes them. */
static void write_once(const struct opts *o, const struct lake_table *t,
                       const struct pq_write_options *wo, const struct events_gen *g,
                       struct events_batch *b, const char *path, struct write_run *run)
{
    memset(run, 0, sizeof *run);
    checks_init(&run->k);
    int fd = -1;
    struct pq_writer *w = NULL;
    struct error err = {0};
    struct pq_sink sink = {pq_sink_fd_write, &fd};
    double t0, c0;
    if (path) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            die("%s: %s", path, strerror(errno));
        perf_ctl(true);
        t0 = now_s(CLOCK_MONOTONIC);
        c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        if (pq_writer_open(t, wo, &sink, &w, &err) != 0)
            die("pq_writer_open: %s", err.msg);
        run->write_s += now_s(CLOCK_MONOTONIC) - t0;
        run->write_cpu_s += now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        perf_ctl(false);
    }
    for (int64_t first = 0; first < o->rows; first += o->batch_rows) {
        int64_t n = o->rows - first < o->batch_rows ? o->rows - first : o->batch_rows;
        t0 = now_s(CLOCK_MONOTONIC);
        events_gen_batch(g, b, first, n);
        double t1 = now_s(CLOCK_MONOTONIC);
        run->gen_s += t1 - t0;
        checks_add(&run->k, &b->schema, &b->top);
        double t2 = now_s(CLOCK_MONOTONIC);
        run->check_s += t2 - t1;
        if (path) {
            perf_ctl(true);
            c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
            t2 = now_s(CLOCK_MONOTONIC);
            if (pq_writer_write(w, &b->schema, &b->top, &err) != 0)
                die("pq_writer_write: %s", err.msg);
            run->write_s += now_s(CLOCK_MONOTONIC) - t2;
            run->write_cpu_s += now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
            perf_ctl(false);
        }
    }
    if (path) {
        struct pq_write_result res;
        perf_ctl(true);
        t0 = now_s(CLOCK_MONOTONIC);
        c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        if (pq_writer_close(w, &res, &err) != 0)
            die("pq_writer_close: %s", err.msg);
        run->write_s += now_s(CLOCK_MONOTONIC) - t0;
        run->write_cpu_s += now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        perf_ctl(false);
        finish_file(fd, &res, run);
    }
}

/* --pregen: generates every batch first, then times the writer from open
 * to close as one span, so that page jobs still running when a write
 * returns are timed however long they outlive it, and nothing else
 * shares the cores meanwhile. Holds the whole input in memory. */
static void write_pregen(const struct opts *o, const struct lake_table *t,
                         const struct pq_write_options *wo, const struct events_gen *g,
                         const char *path, struct write_run *run)
{
    memset(run, 0, sizeof *run);
    checks_init(&run->k);
    size_t nb = (size_t)((o->rows + o->batch_rows - 1) / o->batch_rows);
    struct events_batch *bs = xmalloc((nb ? nb : 1) * sizeof *bs);
    double t0 = now_s(CLOCK_MONOTONIC);
    for (size_t i = 0; i < nb; i++) {
        int64_t first = (int64_t)i * o->batch_rows;
        int64_t n = o->rows - first < o->batch_rows ? o->rows - first : o->batch_rows;
        if (events_batch_init(&bs[i], n, t) != 0)
            die("out of memory");
        events_gen_batch(g, &bs[i], first, n);
    }
    double t1 = now_s(CLOCK_MONOTONIC);
    run->gen_s = t1 - t0;
    for (size_t i = 0; i < nb; i++)
        checks_add(&run->k, &bs[i].schema, &bs[i].top);
    run->check_s = now_s(CLOCK_MONOTONIC) - t1;

    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die("%s: %s", path, strerror(errno));
    struct pq_writer *w = NULL;
    struct error err = {0};
    struct pq_sink sink = {pq_sink_fd_write, &fd};
    struct pq_write_result res;
    perf_ctl(true);
    t0 = now_s(CLOCK_MONOTONIC);
    double c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    if (pq_writer_open(t, wo, &sink, &w, &err) != 0)
        die("pq_writer_open: %s", err.msg);
    for (size_t i = 0; i < nb; i++)
        if (pq_writer_write(w, &bs[i].schema, &bs[i].top, &err) != 0)
            die("pq_writer_write: %s", err.msg);
    if (pq_writer_close(w, &res, &err) != 0)
        die("pq_writer_close: %s", err.msg);
    run->write_s = now_s(CLOCK_MONOTONIC) - t0;
    run->write_cpu_s = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    perf_ctl(false);
    finish_file(fd, &res, run);
    for (size_t i = 0; i < nb; i++)
        events_batch_free(&bs[i]);
    free(bs);
}

static int cmd_gen_and_write(int argc, char **argv, bool write)
{
    struct opts o;
    parse_opts(argc, argv, &o, write);
    struct arena arena;
    struct lake_table t;
    char msg[256];
    if (events_table_init(&arena, &t, msg, sizeof msg) != 0)
        die("%s", msg);
    struct events_gen *g = xmalloc(sizeof *g);
    events_gen_init(g, o.seed);
    struct events_batch b;
    if (events_batch_init(&b, o.batch_rows, &t) != 0)
        die("out of memory");
    long rss_start = peak_rss_kb();

    struct pq_write_options wo;
    pq_write_options_default(&wo);
    wo.codec = PQ_ZSTD;
    if (o.codec && !pq_codec_parse(o.codec, &wo.codec))
        die("--codec: unknown codec '%s'", o.codec);
    if (o.row_group_bytes)
        wo.row_group_bytes = o.row_group_bytes;
    if (o.page_bytes)
        wo.page_bytes = o.page_bytes;
    wo.level = o.level;
    if (o.dictionary_bytes)
        wo.dictionary_bytes = o.dictionary_bytes;
    wo.dictionary = !o.no_dictionary;
    wo.page_index = !o.no_page_index;
    wo.threads = o.threads;

    /* Each repetition writes the whole file again; the fastest counts. */
    struct write_run best, run;
    double total_s = 0;
    for (int rep = 0; rep < o.repeat; rep++) {
        if (write && o.pregen)
            write_pregen(&o, &t, &wo, g, o.path, &run);
        else
            write_once(&o, &t, &wo, g, &b, write ? o.path : NULL, &run);
        total_s += write ? run.write_s : run.gen_s;
        if (rep == 0 || (write ? run.write_s < best.write_s : run.gen_s < best.gen_s))
            best = run;
    }

    json_t *out = json_object();
    json_object_set_new(out, "phase", json_string(write ? "write" : "gen"));
    json_object_set_new(out, "engine", json_string("hoglake"));
    json_object_set_new(out, "rows", json_integer(o.rows));
    json_object_set_new(out, "batch_rows", json_integer(o.batch_rows));
    json_object_set_new(out, "repeat", json_integer(o.repeat));
    json_object_set_new(out, "gen_s", json_real(best.gen_s));
    json_object_set_new(out, "check_s", json_real(best.check_s));
    if (write) {
        json_object_set_new(out, "file", json_string(o.path));
        json_object_set_new(out, "write_s", json_real(best.write_s));
        json_object_set_new(out, "write_cpu_s", json_real(best.write_cpu_s));
        json_object_set_new(out, "write_mean_s", json_real(total_s / o.repeat));
        json_object_set_new(out, "file_bytes", json_integer((json_int_t)best.file_bytes));
        json_object_set_new(out, "row_groups", json_integer((json_int_t)best.row_groups));
        json_object_set_new(out, "row_group_bytes", json_integer(wo.row_group_bytes));
        json_object_set_new(out, "page_bytes", json_integer(wo.page_bytes));
        json_object_set_new(out, "codec", json_string(pq_codec_name(wo.codec)));
        json_object_set_new(out, "zstd_level", json_integer(wo.level ? wo.level : 3));
        json_object_set_new(out, "dictionary", json_boolean(wo.dictionary));
        json_object_set_new(out, "threads", json_integer(wo.threads));
    }
    json_object_set_new(out, "data_bytes", json_integer((json_int_t)checks_data_bytes(&best.k)));
    json_object_set_new(out, "arrow_bytes", json_integer((json_int_t)best.k.arrow_bytes));
    json_object_set_new(out, "input_batch_bytes", json_integer((json_int_t)b.alloc_bytes));
    json_object_set_new(out, "rss_before_kb", json_integer(rss_start));
    json_object_set_new(out, "peak_rss_kb", json_integer(peak_rss_kb()));
    json_object_set_new(out, "checks", checks_json(&best.k));
    emit(out);
    events_batch_free(&b);
    free(g);
    lake_table_release(&t);
    arena_free(&arena);
    return 0;
}

/* ---- read ---- */

static int cmd_read(int argc, char **argv)
{
    struct opts o;
    parse_opts(argc, argv, &o, true);
    double best = INFINITY, best_cpu = INFINITY, total = 0;
    struct checks k;
    int64_t rgs = 0;
    uint64_t file_bytes = 0;
    for (int rep = 0; rep < o.repeat; rep++) {
        checks_init(&k);
        double t = 0, tc = 0;
        perf_ctl(true);
        double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        struct pq_source src;
        struct pq_reader *r;
        struct error err = {0};
        if (pq_source_file(&src, o.path, &err) != 0)
            die("%s: %s", o.path, err.msg);
        if (pq_reader_open(&src, &r, &err) != 0)
            die("pq_reader_open: %s", err.msg);
        struct ArrowSchema schema;
        if (pq_reader_arrow_schema(r, &schema, &err) != 0)
            die("pq_reader_arrow_schema: %s", err.msg);
        const struct pq_file_meta *m = pq_reader_meta(r);
        rgs = (int64_t)m->nrow_groups;
        file_bytes = src.size;
        t += now_s(CLOCK_MONOTONIC) - t0;
        tc += now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        perf_ctl(false);
        for (size_t gi = 0; gi < m->nrow_groups; gi++) {
            struct ArrowArray batch;
            perf_ctl(true);
            t0 = now_s(CLOCK_MONOTONIC);
            c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
            if (pq_reader_read_row_group(r, gi, &batch, &err) != 0)
                die("row group %zu: %s", gi, err.msg);
            t += now_s(CLOCK_MONOTONIC) - t0;
            tc += now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
            perf_ctl(false);
            checks_add(&k, &schema, &batch); /* untimed */
            perf_ctl(true);
            t0 = now_s(CLOCK_MONOTONIC);
            c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
            batch.release(&batch);
            t += now_s(CLOCK_MONOTONIC) - t0;
            tc += now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        }
        t0 = now_s(CLOCK_MONOTONIC);
        c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        schema.release(&schema);
        pq_reader_free(r);
        pq_source_close(&src);
        t += now_s(CLOCK_MONOTONIC) - t0;
        tc += now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        perf_ctl(false);
        if (t < best)
            best = t;
        if (tc < best_cpu)
            best_cpu = tc;
        total += t;
    }
    json_t *out = json_object();
    json_object_set_new(out, "phase", json_string("read"));
    json_object_set_new(out, "engine", json_string("hoglake"));
    json_object_set_new(out, "file", json_string(o.path));
    json_object_set_new(out, "rows", json_integer((json_int_t)k.rows));
    json_object_set_new(out, "row_groups", json_integer(rgs));
    json_object_set_new(out, "repeat", json_integer(o.repeat));
    json_object_set_new(out, "read_s", json_real(best));
    json_object_set_new(out, "read_cpu_s", json_real(best_cpu));
    json_object_set_new(out, "read_mean_s", json_real(total / o.repeat));
    json_object_set_new(out, "file_bytes", json_integer((json_int_t)file_bytes));
    json_object_set_new(out, "data_bytes", json_integer((json_int_t)checks_data_bytes(&k)));
    json_object_set_new(out, "arrow_bytes", json_integer((json_int_t)k.arrow_bytes));
    json_object_set_new(out, "peak_rss_kb", json_integer(peak_rss_kb()));
    json_object_set_new(out, "checks", checks_json(&k));
    emit(out);
    return 0;
}

static void usage(void)
{
    fputs("usage: pq_bench gen-and-write OUT.parquet [--rows N] [--batch-rows N]\n"
          "                [--row-group-bytes N[K|M]] [--page-bytes N[K|M]] [--level N]\n"
          "                [--codec NAME]\n"
          "                [--dictionary-bytes N[K|M]] [--no-dictionary] [--no-page-index]\n"
          "                [--seed N] [--repeat N] [--threads N] [--pregen]\n"
          "       pq_bench gen [--rows N] [--batch-rows N] [--seed N]\n"
          "       pq_bench read FILE [--repeat N]\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        usage();
    perf_ctl_open();
    if (strcmp(argv[1], "gen-and-write") == 0)
        return cmd_gen_and_write(argc - 2, argv + 2, true);
    if (strcmp(argv[1], "gen") == 0)
        return cmd_gen_and_write(argc - 2, argv + 2, false);
    if (strcmp(argv[1], "read") == 0)
        return cmd_read(argc - 2, argv + 2);
    usage();
}
