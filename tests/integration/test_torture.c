/* The commit torture test (issue 4): eight writers commit concurrently
 * into four tables of one catalog (writers 0-1 on A, 2-3 on B, 4-5 on A
 * and C in multi-table commits, 6-7 on the partitioned D), while a DDL
 * thread alters the tables and a lock holder takes the catalog lock now
 * and then to force 503 commit_queue_timeout. Every commit carries an
 * idempotency key (on /commit or /commit/prepared); writers pin
 * read_snapshot from a recent table read, re-read on 409
 * ddl_since_read_snapshot and retry with a new key or the same one (a
 * refused request leaves no receipt), retry 503s identically, replay
 * earlier requests (verbatim, reordered, through the other server or the
 * other keyed endpoint), send some requests twice at once, and reuse keys
 * with other payloads (422). Afterwards SQL checks the invariants:
 *
 *   - snapshot ids 0..head with no gap, each acknowledged commit or DDL
 *     exactly one of them, and nothing else;
 *   - every acknowledged commit's files are there, at its snapshot, in
 *     request order (file ids and row ids), with their partition values
 *     and statistics;
 *   - one receipt per key, one snapshot per receipt: no replay published
 *     twice;
 *   - per table, the row ranges tile [0, next_row_id) exactly and the
 *     gross counters are the sums;
 *   - file ids are dense over data files and deletion vectors;
 *   - one table_inserted_into per (snapshot, table) written, nothing else
 *     at a data snapshot; one table_altered per DDL;
 *   - no acknowledged commit with read_snapshot R crossed a DDL on its
 *     tables after R, and every 409 ddl_since_read_snapshot had one.
 *
 * The scenario runs against one hoglaked, then against two sharing one
 * database with the writers split between them (a fresh database and
 * catalog each time). A third, deterministic test replays one request in
 * shapes the contract counts as the same request.
 *
 * HOGLAKE_TORTURE_COMMITS sets the commits per writer (default 200),
 * HOGLAKE_TORTURE_SEED the random seed (printed), HOGLAKE_TORTURE_KEEP_DB=1
 * keeps the database of each test for a post-mortem.
 *
 * Threads: libcurl and jansson are set up once in main() before any
 * thread; each HTTP call uses its own curl handle. Worker threads never
 * call cmocka assertions: they record the first failure and stop the
 * others; the main thread fails after joining them. (The harness's
 * http_call still fails the test directly on a transport error, which
 * from a worker thread would abort the program rather than report.) */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#include "harness.h"

enum {
    WRITERS = 8,
    NTABLES = 4,
    MAX_FILES = 12,
    MAX_ATTEMPTS = 200,
    LOCK_HOLD_MS = 650, /* the lock holder's hold: beyond LOCK_TIMEOUT_MS, so waiters get 503 */
    MAX_ADDED_COLUMNS = 25,
};

#define NS "ns"
#define LOCK_TIMEOUT_MS "400" /* the servers' --commit-lock-timeout-ms */

enum { TA, TB, TC, TD };
static const char *const TABLE_NAMES[NTABLES] = {"ta", "tb", "tc", "td"};

/* ---- shared state of one scenario ---- */

struct scenario {
    char cat[32];
    char data[96]; /* the catalog's data_path */
    const struct test_server *servers[2];
    int nservers;
    const struct test_db *db;
    int64_t cat_id;
    atomic_int stop;         /* a thread failed: everyone winds down */
    atomic_int writers_done; /* writers finished: DDL and lock holder stop */
    pthread_mutex_t fail_lock;
    char failure[4096];
    int nfailures;
};

static void sfail(struct scenario *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sfail(struct scenario *sc, const char *fmt, ...)
{
    pthread_mutex_lock(&sc->fail_lock);
    if (sc->nfailures++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(sc->failure, sizeof sc->failure, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&sc->fail_lock);
    atomic_store(&sc->stop, 1);
}

/* ---- randomness (per thread) ---- */

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static int below(uint64_t *s, int n)
{
    return (int)(rnd(s) % (uint64_t)n);
}

/* True with probability permille/1000. */
static bool chance(uint64_t *s, int permille)
{
    return below(s, 1000) < permille;
}

static void new_uuid(uint64_t *s, char out[37])
{
    uint64_t a = rnd(s), b = rnd(s);
    a = (a & ~0xF000ULL) | 0x4000ULL;                        /* version 4 */
    b = (b & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL; /* variant */
    snprintf(out, 37, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)((a >> 16) & 0xFFFF), (unsigned)(a & 0xFFFF), (unsigned)(b >> 48),
             (unsigned long long)(b & 0xFFFFFFFFFFFFULL));
}

static void b64(const uint8_t *in, size_t n, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = t[(v >> 18) & 63];
        out[o++] = t[(v >> 12) & 63];
        out[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = '\0';
}

static void b64_le64(uint64_t v, char *out)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    b64(b, 8, out);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- HTTP from threads (never cmocka asserts there) ---- */

static void post_body(struct http_result *r, const struct test_server *s, const char *cat,
                      const char *endpoint, const char *body)
{
    char url[256];
    snprintf(url, sizeof url, "%s/v1/catalogs/%s/%s", s->base, cat, endpoint);
    http_call(r, "POST", url, "application/json", body, strlen(body), NULL);
}

static const char *err_code(const struct http_result *r)
{
    const char *e = r->json ? json_string_value(json_object_get(r->json, "error")) : NULL;
    return e ? e : "";
}

/* ---- what the writers record ---- */

struct tfile {
    int table;
    int64_t records, size;
    int nstats;
    bool stats;     /* column_stats present: stats_state 'provided' */
    int gord;       /* position among the commit's files as the server orders them */
    int64_t prefix; /* rows before it among the commit's files of its table */
    char path[192];
};

struct ack {
    char key[37];
    int64_t snapshot, schema_version;
    int64_t read_snapshot; /* -1: none */
    const char *endpoint;
    char *body;
    struct tfile *files;
    int nfiles;
};

struct conflict {
    int64_t read_snapshot;
    unsigned tables; /* bit mask of the tables the 409 named */
};

struct writer {
    struct scenario *sc;
    int id;
    const struct test_server *home; /* where its new commits go */
    uint64_t rng;
    int ncommits;
    int64_t cached_read; /* -1: none yet */
    int64_t last_snapshot;
    struct ack *acks;
    int nacks;
    struct conflict *conflicts;
    int nconflicts, capconflicts;
    struct {
        int commits, replays, reordered, replays_other_server, modified, receipts, reads;
        int c409_new_key, c409_same_key, stale_body_422, s503, files, multi;
        int replays_other_endpoint, twins, visible;
    } n;
};

static void note_conflict(struct writer *w, int64_t read, const json_t *tables)
{
    if (w->nconflicts == w->capconflicts) {
        w->capconflicts = w->capconflicts ? w->capconflicts * 2 : 64;
        w->conflicts = realloc(w->conflicts, (size_t)w->capconflicts * sizeof *w->conflicts);
    }
    unsigned mask = 0;
    for (size_t i = 0; i < json_array_size(tables); i++) {
        const char *t = json_string_value(json_array_get(tables, i));
        for (int k = 0; t && k < NTABLES; k++) {
            char full[32];
            snprintf(full, sizeof full, NS ".%s", TABLE_NAMES[k]);
            if (strcmp(t, full) == 0)
                mask |= 1u << k;
        }
    }
    w->conflicts[w->nconflicts++] = (struct conflict){read, mask};
}

/* The tables each writer appends to. */
static int writer_tables(int id, int out[2])
{
    switch (id / 2) {
    case 0: out[0] = TA; return 1;
    case 1: out[0] = TB; return 1;
    case 2:
        out[0] = TA;
        out[1] = TC;
        return 2;
    default: out[0] = TD; return 1;
    }
}

/* ---- building a commit ---- */

static json_t *file_json(struct writer *w, struct tfile *f, int commit, int k)
{
    uint64_t *r = &w->rng;
    f->records = chance(r, 120) ? 0 : 1 + below(r, 5000);
    f->size = 1000 + below(r, 200000);
    snprintf(f->path, sizeof f->path, "%s/data/%s/w%d/c%d/f%d.parquet", w->sc->data,
             TABLE_NAMES[f->table], w->id, commit, k);
    json_t *o = json_object();
    json_object_set_new(o, "path", json_string(f->path));
    json_object_set_new(o, "record_count", json_integer(f->records));
    json_object_set_new(o, "file_size_bytes", json_integer(f->size));
    if (chance(r, 500))
        json_object_set_new(o, "footer_size", json_integer(below(r, (int)f->size - 8 + 1)));
    if (chance(r, 500)) {
        json_t *splits = json_array();
        int64_t at = 4 + below(r, 100);
        int n = 1 + below(r, 4);
        for (int i = 0; i < n && at < f->size; i++) {
            json_array_append_new(splits, json_integer(at));
            at += 1 + below(r, (int)(f->size / 4));
        }
        json_object_set_new(o, "split_offsets", splits);
    }
    /* Tables B and D always carry statistics (so add_column stays possible
     * there); A and C carry them on about half of the files, so they have
     * files with pending statistics. */
    bool always = f->table == TB || f->table == TD;
    f->stats = always || chance(r, 500);
    f->nstats = 0;
    if (f->stats) {
        json_t *stats = json_array();
        if (!always || !chance(r, 200)) {
            uint64_t lo = (uint64_t)below(r, 1000000), hi = lo + (uint64_t)below(r, 1000000);
            char blo[16], bhi[16];
            b64_le64(lo, blo);
            b64_le64(hi, bhi);
            json_array_append_new(stats,
                                  json_pack("{s:i,s:I,s:i,s:s,s:s}", "field_id", 1, "value_count",
                                            (json_int_t)f->records, "null_count", 0, "lower_bound",
                                            blo, "upper_bound", bhi));
            f->nstats++;
            if (f->table != TD && chance(r, 500)) {
                double dlo = (double)below(r, 1000) / 7.0, dhi = dlo + below(r, 100);
                uint64_t ulo, uhi;
                memcpy(&ulo, &dlo, 8);
                memcpy(&uhi, &dhi, 8);
                b64_le64(ulo, blo);
                b64_le64(uhi, bhi);
                int64_t nulls = f->records ? below(r, (int)f->records + 1) : 0;
                json_t *s2 = json_pack("{s:i,s:I,s:I,s:i,s:s,s:s}", "field_id", 2, "value_count",
                                       (json_int_t)f->records, "null_count", (json_int_t)nulls,
                                       "nan_count", 0, "lower_bound", blo, "upper_bound", bhi);
                /* Stats order is not part of the request's identity. */
                if (chance(r, 500))
                    json_array_insert_new(stats, 0, s2);
                else
                    json_array_append_new(stats, s2);
                f->nstats++;
            }
        }
        json_object_set_new(o, "column_stats", stats);
    }
    if (f->table == TD) {
        static const char *const regions[] = {"eu", "us", "apac"};
        json_t *pv = json_array();
        int g = below(r, 4);
        json_array_append_new(pv, g == 3 ? json_null() : json_string(regions[g]));
        char bucket[4];
        snprintf(bucket, sizeof bucket, "%d", below(r, 4));
        json_array_append_new(pv, json_string(bucket));
        json_object_set_new(o, "partition_values", pv);
    }
    return o;
}

struct plan {
    json_t *appends; /* the groups, fixed for every attempt */
    struct tfile files[MAX_FILES];
    int nfiles;
    unsigned tables;
    bool partitioned;
};

/* Random files for the writer's tables, grouped (sometimes a table in two
 * groups, which the server merges), with the order the server will
 * allocate ids and row ids in: tables by first occurrence, files in group
 * order. */
static void plan_commit(struct writer *w, int commit, struct plan *p)
{
    uint64_t *r = &w->rng;
    int tabs[2];
    int nt = writer_tables(w->id, tabs);
    memset(p, 0, sizeof *p);
    struct {
        int table;
        json_t *files;
        int idx[MAX_FILES];
        int n;
    } groups[3];
    int ng = 0;
    for (int t = 0; t < nt; t++) {
        int n = 1 + below(r, 5);
        /* Writers 4 and 5 sometimes split their table A files over two
         * groups. */
        int split =
            (nt == 2 && tabs[t] == TA && n >= 2 && chance(r, 150)) ? 1 + below(r, n - 1) : n;
        for (int part = 0; part < (split < n ? 2 : 1); part++) {
            int from = part == 0 ? 0 : split, to = part == 0 ? split : n;
            groups[ng].table = tabs[t];
            groups[ng].files = json_array();
            groups[ng].n = 0;
            for (int k = from; k < to; k++) {
                struct tfile *f = &p->files[p->nfiles];
                f->table = tabs[t];
                json_array_append_new(groups[ng].files, file_json(w, f, commit, p->nfiles));
                groups[ng].idx[groups[ng].n++] = p->nfiles++;
            }
            ng++;
        }
        p->tables |= 1u << tabs[t];
    }
    p->partitioned = (p->tables & (1u << TD)) != 0;
    /* A random group order. */
    for (int i = ng - 1; i > 0; i--) {
        int j = below(r, i + 1);
        __typeof__(groups[0]) tmp = groups[i];
        groups[i] = groups[j];
        groups[j] = tmp;
    }
    p->appends = json_array();
    for (int g = 0; g < ng; g++)
        json_array_append_new(p->appends,
                              json_pack("{s:s,s:s,s:o}", "namespace", NS, "table",
                                        TABLE_NAMES[groups[g].table], "files", groups[g].files));
    int gord = 0;
    bool seen[NTABLES] = {false};
    for (int g = 0; g < ng; g++) {
        int t = groups[g].table;
        if (seen[t])
            continue;
        seen[t] = true;
        int64_t prefix = 0;
        for (int h = g; h < ng; h++) {
            if (groups[h].table != t)
                continue;
            for (int k = 0; k < groups[h].n; k++) {
                struct tfile *f = &p->files[groups[h].idx[k]];
                f->gord = gord++;
                f->prefix = prefix;
                prefix += f->records;
            }
        }
    }
}

static char *request_text(struct writer *w, const struct plan *p, const char *key, int64_t read,
                          bool message)
{
    json_t *o = json_object();
    json_object_set_new(o, "idempotency_key", json_string(key));
    if (read >= 0)
        json_object_set_new(o, "read_snapshot", json_integer(read));
    json_object_set(o, "appends", p->appends);
    char author[32];
    snprintf(author, sizeof author, "writer-%d", w->id);
    json_object_set_new(o, "author", json_string(author));
    if (message)
        json_object_set_new(o, "message", json_string("torture"));
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

/* The same request in another shape: groups, files and statistics
 * shuffled, members in another order, sometimes the key in capitals. */
static json_t *reversed_members(json_t *o)
{
    const char *keys[16];
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach (o, k, v) {
        if (n < 16)
            keys[n++] = k;
    }
    json_t *out = json_object();
    while (n > 0) {
        n--;
        json_object_set(out, keys[n], json_object_get(o, keys[n]));
    }
    return out;
}

static void shuffle(uint64_t *r, json_t *arr)
{
    size_t n = json_array_size(arr);
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)below(r, (int)i);
        json_t *a = json_incref(json_array_get(arr, i - 1));
        json_t *b = json_incref(json_array_get(arr, j));
        json_array_set_new(arr, i - 1, b);
        json_array_set_new(arr, j, a);
    }
}

static char *reordered(struct writer *w, const char *body)
{
    json_t *o = json_loads(body, 0, NULL);
    if (!o)
        return NULL;
    json_t *groups = json_object_get(o, "appends");
    for (size_t g = 0; g < json_array_size(groups); g++) {
        json_t *files = json_object_get(json_array_get(groups, g), "files");
        for (size_t i = 0; i < json_array_size(files); i++) {
            json_t *f = json_array_get(files, i);
            shuffle(&w->rng, json_object_get(f, "column_stats"));
            json_array_set_new(files, i, reversed_members(f));
        }
        shuffle(&w->rng, files);
    }
    shuffle(&w->rng, groups);
    if (chance(&w->rng, 300)) {
        char upper[37];
        snprintf(upper, sizeof upper, "%s",
                 json_string_value(json_object_get(o, "idempotency_key")));
        for (char *c = upper; *c; c++)
            if (*c >= 'a' && *c <= 'f')
                *c = (char)(*c - 'a' + 'A');
        json_object_set_new(o, "idempotency_key", json_string(upper));
    }
    json_t *rev = reversed_members(o);
    json_decref(o);
    char *text = json_dumps(rev, JSON_COMPACT);
    json_decref(rev);
    return text;
}

/* The same key with another payload. */
static char *modified(struct writer *w, const char *body)
{
    json_t *o = json_loads(body, 0, NULL);
    if (!o)
        return NULL;
    json_t *groups = json_object_get(o, "appends");
    json_t *f0 = json_array_get(json_object_get(json_array_get(groups, 0), "files"), 0);
    switch (below(&w->rng, 3)) {
    case 0:
        json_object_set_new(
            f0, "record_count",
            json_integer(json_integer_value(json_object_get(f0, "record_count")) + 1));
        break;
    case 1: json_object_set_new(o, "message", json_string("something else")); break;
    default:
        json_object_set_new(
            f0, "file_size_bytes",
            json_integer(json_integer_value(json_object_get(f0, "file_size_bytes")) + 7));
        break;
    }
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

/* ---- the writer ---- */

static const struct test_server *any_server(struct writer *w)
{
    return w->sc->servers[below(&w->rng, w->sc->nservers)];
}

/* GET the table for a fresh read_snapshot; -1 after a failure. */
static int64_t read_table(struct writer *w, int table)
{
    struct scenario *sc = w->sc;
    char url[256];
    snprintf(url, sizeof url, "%s/v1/catalogs/%s/namespaces/" NS "/tables/%s?totals=false",
             w->home->base, sc->cat, TABLE_NAMES[table]);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        struct http_result r;
        http_call(&r, "GET", url, NULL, NULL, 0, NULL);
        if (r.status == 503) {
            w->n.s503++;
            http_result_free(&r);
            sleep_ms(10);
            continue;
        }
        json_t *rs = r.json ? json_object_get(r.json, "read_snapshot_id") : NULL;
        if (r.status != 200 || !json_is_integer(rs)) {
            sfail(sc, "writer %d: GET %s: %ld %.300s", w->id, url, r.status, r.body);
            http_result_free(&r);
            return -1;
        }
        int64_t v = json_integer_value(rs);
        http_result_free(&r);
        w->n.reads++;
        return v;
    }
    sfail(sc, "writer %d: GET %s kept answering 503", w->id, url);
    return -1;
}

/* Sends body until it is answered with something other than 503. */
static void send_retrying(struct writer *w, const struct test_server *s, const char *endpoint,
                          const char *body, struct http_result *r)
{
    for (int attempt = 0;; attempt++) {
        post_body(r, s, w->sc->cat, endpoint, body);
        if (r->status != 503 || attempt == MAX_ATTEMPTS)
            return;
        if (strcmp(err_code(r), "commit_queue_timeout") != 0 || strcmp(r->retry_after, "1") != 0)
            return; /* the caller reports it */
        w->n.s503++;
        http_result_free(r);
        sleep_ms(5 + below(&w->rng, 20));
    }
}

/* Replays an earlier request: it must answer the original result. */
static void replay(struct writer *w)
{
    struct ack *a = &w->acks[below(&w->rng, w->nacks)];
    bool reorder = chance(&w->rng, 400);
    char *body = reorder ? reordered(w, a->body) : strdup(a->body);
    const struct test_server *s = any_server(w);
    /* Both keyed endpoints register appends alike: the request, not the
     * endpoint, is what the receipt remembers. */
    bool other_endpoint = chance(&w->rng, 200);
    const char *endpoint = !other_endpoint                      ? a->endpoint
                           : strcmp(a->endpoint, "commit") == 0 ? "commit/prepared"
                                                                : "commit";
    struct http_result r;
    send_retrying(w, s, endpoint, body, &r);
    json_t *snap = r.json ? json_object_get(r.json, "snapshot_id") : NULL;
    json_t *sv = r.json ? json_object_get(r.json, "schema_version") : NULL;
    if (r.status != 200 || json_integer_value(snap) != a->snapshot ||
        json_integer_value(sv) != a->schema_version)
        sfail(w->sc,
              "writer %d: %s replay of key %s on /%s (acknowledged on /%s as snapshot %lld, "
              "schema_version %lld) answered %ld: %.300s\n  request: %.600s",
              w->id, reorder ? "reordered" : "verbatim", a->key, endpoint, a->endpoint,
              (long long)a->snapshot, (long long)a->schema_version, r.status, r.body, body);
    w->n.replays++;
    w->n.reordered += reorder;
    w->n.replays_other_server += s != w->home;
    w->n.replays_other_endpoint += other_endpoint;
    http_result_free(&r);
    free(body);
}

/* An earlier key with another payload: 422, nothing written. */
static void reuse_key(struct writer *w)
{
    struct ack *a = &w->acks[below(&w->rng, w->nacks)];
    char *body = modified(w, a->body);
    struct http_result r;
    send_retrying(w, any_server(w), a->endpoint, body, &r);
    const char *d = r.json ? json_string_value(json_object_get(r.json, "detail")) : NULL;
    if (r.status != 422 || strcmp(err_code(&r), "validation") != 0 || !d ||
        !strstr(d, "different request"))
        sfail(w->sc, "writer %d: key %s reused with another payload answered %ld: %.300s", w->id,
              a->key, r.status, r.body);
    w->n.modified++;
    http_result_free(&r);
    free(body);
}

static void check_receipt(struct writer *w, const char *key, int64_t expected)
{
    char url[256];
    snprintf(url, sizeof url, "%s/v1/catalogs/%s/commit/receipts/%s", any_server(w)->base,
             w->sc->cat, key);
    struct http_result r;
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        http_call(&r, "GET", url, NULL, NULL, 0, NULL);
        if (r.status != 503)
            break;
        w->n.s503++;
        http_result_free(&r);
        sleep_ms(10);
    }
    long want = expected < 0 ? 404 : 200;
    json_t *snap = r.json ? json_object_get(r.json, "snapshot_id") : NULL;
    if (r.status != want || (expected >= 0 && json_integer_value(snap) != expected))
        sfail(w->sc, "writer %d: GET receipt %s: expected %ld (snapshot %lld), got %ld: %.300s",
              w->id, key, want, (long long)expected, r.status, r.body);
    w->n.receipts++;
    http_result_free(&r);
}

/* An acknowledged snapshot is visible at once, through either server. */
static void check_visible(struct writer *w, int64_t snapshot)
{
    char url[256];
    snprintf(url, sizeof url, "%s/v1/catalogs/%s", any_server(w)->base, w->sc->cat);
    struct http_result r;
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        http_call(&r, "GET", url, NULL, NULL, 0, NULL);
        if (r.status != 503)
            break;
        w->n.s503++;
        http_result_free(&r);
        sleep_ms(10);
    }
    json_t *head = r.json ? json_object_get(r.json, "head_snapshot_id") : NULL;
    if (r.status != 200 || !json_is_integer(head) || json_integer_value(head) < snapshot)
        sfail(w->sc, "writer %d: snapshot %lld acknowledged, then GET %s answered %ld: %.300s",
              w->id, (long long)snapshot, url, r.status, r.body);
    w->n.visible++;
    http_result_free(&r);
}

/* The same request sent again while the first is still in flight, as a
 * client retrying on a timeout would: both must get the same answer. */
struct twin {
    struct scenario *sc;
    const struct test_server *s;
    const char *endpoint;
    const char *body;
    long status;
    int64_t snapshot;
    char code[64];
    char resp[300];
    int s503;
};

static void *twin_main(void *arg)
{
    struct twin *t = arg;
    struct http_result r;
    for (int attempt = 0;; attempt++) {
        post_body(&r, t->s, t->sc->cat, t->endpoint, t->body);
        if (r.status != 503 || strcmp(err_code(&r), "commit_queue_timeout") != 0 ||
            attempt == MAX_ATTEMPTS)
            break;
        t->s503++;
        http_result_free(&r);
        sleep_ms(7);
    }
    t->status = r.status;
    json_t *snap = r.json ? json_object_get(r.json, "snapshot_id") : NULL;
    t->snapshot = json_is_integer(snap) ? json_integer_value(snap) : -1;
    snprintf(t->code, sizeof t->code, "%s", err_code(&r));
    snprintf(t->resp, sizeof t->resp, "%s", r.body ? r.body : "");
    http_result_free(&r);
    return NULL;
}

/* One new logical commit, through 409s and 503s, until acknowledged. */
static void commit_one(struct writer *w, int i)
{
    struct scenario *sc = w->sc;
    uint64_t *rng = &w->rng;
    struct plan p;
    plan_commit(w, i, &p);
    const char *endpoint = chance(rng, 500) ? "commit" : "commit/prepared";
    bool message = chance(rng, 300);
    /* Partitioned appends always pin the spec; others mostly do. */
    bool use_read = p.partitioned || chance(rng, 850);
    int first_table = p.files[0].table;
    if (use_read && (w->cached_read < 0 || chance(rng, 300)))
        w->cached_read = read_table(w, first_table);
    char key[37];
    new_uuid(rng, key);
    char *stale_body = NULL; /* a refused body whose key was kept */
    for (int attempt = 0; attempt < MAX_ATTEMPTS && !atomic_load(&sc->stop); attempt++) {
        int64_t read = use_read ? w->cached_read : -1;
        char *body = request_text(w, &p, key, read, message);
        struct http_result r;
        struct twin tw = {.sc = sc, .s = any_server(w), .endpoint = endpoint, .body = body};
        pthread_t twt;
        bool twin = chance(rng, 30) && pthread_create(&twt, NULL, twin_main, &tw) == 0;
        send_retrying(w, w->home, endpoint, body, &r);
        if (twin) {
            pthread_join(twt, NULL);
            w->n.twins++;
            w->n.s503 += tw.s503;
            json_t *snap = r.json ? json_object_get(r.json, "snapshot_id") : NULL;
            bool same =
                tw.status == r.status && (r.status == 200 ? json_integer_value(snap) == tw.snapshot
                                                          : strcmp(tw.code, err_code(&r)) == 0);
            if (!same)
                sfail(sc,
                      "writer %d: key %s sent twice at once: answered %ld %.300s and %ld "
                      "%.300s\n  request: %.600s",
                      w->id, key, r.status, r.body, tw.status, tw.resp, body);
        }
        if (r.status == 200) {
            json_t *snap = r.json ? json_object_get(r.json, "snapshot_id") : NULL;
            json_t *sv = r.json ? json_object_get(r.json, "schema_version") : NULL;
            if (!json_is_integer(snap) || !json_is_integer(sv)) {
                sfail(sc, "writer %d: a 200 without snapshot_id/schema_version: %.300s", w->id,
                      r.body);
            } else if (json_integer_value(snap) <= w->last_snapshot) {
                sfail(sc, "writer %d: commit %d got snapshot %lld, not after its previous %lld",
                      w->id, i, (long long)json_integer_value(snap), (long long)w->last_snapshot);
            } else {
                struct ack *a = &w->acks[w->nacks++];
                snprintf(a->key, sizeof a->key, "%s", key);
                a->snapshot = json_integer_value(snap);
                a->schema_version = json_integer_value(sv);
                a->read_snapshot = read;
                a->endpoint = endpoint;
                a->body = body;
                body = NULL;
                a->nfiles = p.nfiles;
                a->files = malloc((size_t)p.nfiles * sizeof *a->files);
                memcpy(a->files, p.files, (size_t)p.nfiles * sizeof *a->files);
                w->last_snapshot = a->snapshot;
                w->n.commits++;
                w->n.files += p.nfiles;
                w->n.multi += __builtin_popcount(p.tables) > 1;
                if (chance(rng, 50))
                    check_visible(w, a->snapshot);
            }
            http_result_free(&r);
            free(body);
            /* The refused body of a kept key is now another request for
             * that key. */
            if (stale_body && !atomic_load(&sc->stop)) {
                struct http_result s;
                send_retrying(w, any_server(w), endpoint, stale_body, &s);
                if (s.status != 422 || strcmp(err_code(&s), "validation") != 0)
                    sfail(sc,
                          "writer %d: key %s's refused request, sent after the key was "
                          "acknowledged, answered %ld: %.300s",
                          w->id, key, s.status, s.body);
                w->n.stale_body_422++;
                http_result_free(&s);
            }
            free(stale_body);
            json_decref(p.appends);
            return;
        }
        if (r.status == 409 && strcmp(err_code(&r), "ddl_since_read_snapshot") == 0 && read >= 0) {
            json_t *tables = json_object_get(r.json, "tables");
            json_t *rs = json_object_get(r.json, "read_snapshot");
            json_t *retry = json_object_get(r.json, "retry");
            if (json_array_size(tables) == 0 || json_integer_value(rs) != read ||
                !json_is_string(retry) || strcmp(json_string_value(retry), "re-prepare") != 0)
                sfail(sc, "writer %d: malformed 409 ddl_since_read_snapshot: %.300s", w->id,
                      r.body);
            note_conflict(w, read, tables);
            http_result_free(&r);
            /* A refused request leaves no receipt: re-read, then retry with
             * a new key or, since nothing was recorded, the same one. */
            w->cached_read = read_table(w, first_table);
            if (chance(rng, 500)) {
                w->n.c409_new_key++;
                if (chance(rng, 300))
                    check_receipt(w, key, -1);
                new_uuid(rng, key);
                free(body);
                /* A refused body of the old key stays refused; it is not a
                 * different request for the new key. */
                free(stale_body);
                stale_body = NULL;
            } else {
                w->n.c409_same_key++;
                if (!stale_body && chance(rng, 500))
                    stale_body = body;
                else
                    free(body);
            }
            continue;
        }
        sfail(sc, "writer %d: commit %d answered %ld: %.400s\n  request: %.600s", w->id, i,
              r.status, r.body, body);
        http_result_free(&r);
        free(body);
        break;
    }
    free(stale_body);
    json_decref(p.appends);
    if (!atomic_load(&sc->stop))
        sfail(sc, "writer %d: commit %d not acknowledged after %d attempts", w->id, i,
              MAX_ATTEMPTS);
}

static void *writer_main(void *arg)
{
    struct writer *w = arg;
    for (int i = 0; i < w->ncommits && !atomic_load(&w->sc->stop); i++) {
        if (w->nacks && chance(&w->rng, 100))
            replay(w);
        if (w->nacks && chance(&w->rng, 20))
            reuse_key(w);
        if (w->nacks && chance(&w->rng, 20)) {
            struct ack *a = &w->acks[below(&w->rng, w->nacks)];
            check_receipt(w, a->key, a->snapshot);
        }
        commit_one(w, i);
    }
    return NULL;
}

/* ---- the DDL thread ---- */

struct ddl_ack {
    int64_t snapshot, schema_version;
    int table;
};

struct ddl_thread {
    struct scenario *sc;
    uint64_t rng;
    struct ddl_ack *acks;
    int nacks, cap;
    int added[NTABLES];
    int ops, idless, s503;
};

static void *ddl_main(void *arg)
{
    struct ddl_thread *d = arg;
    struct scenario *sc = d->sc;
    for (int n = 0; !atomic_load(&sc->writers_done) && !atomic_load(&sc->stop); n++) {
        int t = below(&d->rng, NTABLES);
        int kind = below(&d->rng, 3);
        if (kind == 0 && d->added[t] >= MAX_ADDED_COLUMNS)
            kind = 1;
        json_t *ops = json_array();
        char name[32], val[32];
        snprintf(name, sizeof name, "x%d", n);
        snprintf(val, sizeof val, "v%d", n);
        if (kind == 0)
            json_array_append_new(ops, json_pack("{s:s,s:{s:s,s:s}}", "op", "add_column", "column",
                                                 "name", name, "type", "int"));
        if (kind == 1 || chance(&d->rng, 150))
            json_array_append_new(
                ops, json_pack("{s:s,s:s}", "op", "set_table_comment", "comment", val));
        if (kind == 2) {
            char pk[8];
            snprintf(pk, sizeof pk, "k%d", n % 5);
            json_array_append_new(
                ops, json_pack("{s:s,s:{s:s}}", "op", "set_properties", "properties", pk, val));
        }
        json_t *req = json_pack("{s:o}", "ops", ops);
        char *body = json_dumps(req, JSON_COMPACT);
        json_decref(req);
        const struct test_server *s = sc->servers[n % sc->nservers];
        char url[256];
        snprintf(url, sizeof url, "%s/v1/catalogs/%s/namespaces/" NS "/tables/%s/alter", s->base,
                 sc->cat, TABLE_NAMES[t]);
        struct http_result r;
        for (int attempt = 0;; attempt++) {
            http_call(&r, "POST", url, "application/json", body, strlen(body), NULL);
            if (r.status != 503 || attempt == MAX_ATTEMPTS)
                break;
            d->s503++;
            http_result_free(&r);
            sleep_ms(10);
        }
        json_t *snap = r.json ? json_object_get(r.json, "snapshot_id") : NULL;
        if (r.status == 200 && json_is_integer(snap)) {
            if (d->nacks == d->cap) {
                d->cap = d->cap ? d->cap * 2 : 256;
                d->acks = realloc(d->acks, (size_t)d->cap * sizeof *d->acks);
            }
            /* The Table answer carries the alter's snapshot; its schema
             * version is checked in SQL. */
            d->acks[d->nacks++] = (struct ddl_ack){json_integer_value(snap), 0, t};
            d->ops++;
            if (kind == 0)
                d->added[t]++;
        } else if (r.status == 409 && kind == 0 && (t == TA || t == TC) &&
                   strcmp(err_code(&r), "idless_files_present") == 0) {
            /* A and C hold files with pending statistics. */
            d->idless++;
        } else {
            sfail(sc, "DDL on %s answered %ld: %.300s\n  request: %.300s", TABLE_NAMES[t], r.status,
                  r.body, body);
        }
        http_result_free(&r);
        free(body);
        sleep_ms(8 + below(&d->rng, 25));
    }
    return NULL;
}

/* ---- the lock holder: forces commit_queue_timeout now and then ---- */

struct holder {
    struct scenario *sc;
    uint64_t rng;
    int holds;
};

static void *holder_main(void *arg)
{
    struct holder *h = arg;
    struct scenario *sc = h->sc;
    PGconn *c = PQconnectdb(sc->db->url);
    if (PQstatus(c) != CONNECTION_OK) {
        sfail(sc, "lock holder: %s", PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT pg_advisory_xact_lock((4740871::bigint << 32) | %lld)",
             (long long)sc->cat_id);
    for (;;) {
        int pause = 1200 + below(&h->rng, 1500);
        for (int waited = 0;
             waited < pause && !atomic_load(&sc->writers_done) && !atomic_load(&sc->stop);
             waited += 20)
            sleep_ms(20);
        if (atomic_load(&sc->writers_done) || atomic_load(&sc->stop))
            break;
        PGresult *r = PQexec(c, "BEGIN");
        PQclear(r);
        r = PQexec(c, sql);
        bool ok = PQresultStatus(r) == PGRES_TUPLES_OK;
        PQclear(r);
        if (ok) {
            sleep_ms(LOCK_HOLD_MS);
            h->holds++;
        }
        r = PQexec(c, "ROLLBACK");
        PQclear(r);
        if (!ok) {
            sfail(sc, "lock holder: %s", PQerrorMessage(c));
            break;
        }
    }
    PQfinish(c);
    return NULL;
}

/* ---- SQL helpers for the checks (main thread) ---- */

struct sbuf {
    char *s;
    size_t len, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (b->s && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            fail_msg("out of memory");
        if (b->len == 0)
            b->s[0] = '\0';
    }
}

static void exec_big(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
        PQclear(r);
        fail_msg("SQL failed: %.300s: %s", sql, msg);
    }
    PQclear(r);
}

/* Runs a batched INSERT when the buffer has grown, or at the end. */
static void flush_rows(PGconn *c, struct sbuf *b, int *rows, bool force)
{
    if (*rows == 0 || (!force && *rows < 500))
        return;
    exec_big(c, b->s);
    b->len = 0;
    b->s[0] = '\0';
    *rows = 0;
}

static void add_row(PGconn *c, struct sbuf *b, const char *head, int *rows, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void add_row(PGconn *c, struct sbuf *b, const char *head, int *rows, const char *fmt, ...)
{
    if (*rows == 0)
        sb_printf(b, "%s VALUES ", head);
    else
        sb_printf(b, ",");
    char row[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row, sizeof row, fmt, ap);
    va_end(ap);
    sb_printf(b, "%s", row);
    (*rows)++;
    flush_rows(c, b, rows, false);
}

/* A check: the query must return 0 (a count of violations). */
#define sql_expect_zero(what, ...) sql_expect(0, what, __VA_ARGS__)
static void sql_expect(int64_t expected, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sql_expect(int64_t expected, const char *what, const char *fmt, ...)
{
    struct sbuf b = {0};
    va_list ap;
    va_start(ap, fmt);
    char tmp[8192];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    sb_printf(&b, "%s", tmp);
    int64_t got = sqli("%s", b.s);
    if (got != expected)
        fail_msg("%s: expected %lld, got %lld\n  query: %s", what, (long long)expected,
                 (long long)got, b.s);
    free(b.s);
}

/* A counter's value from a server's /metrics (needle: "name{labels} "). */
static int64_t metric_value(const struct test_server *s, const char *needle)
{
    struct http_result r;
    api_get(&r, s, "/metrics");
    expect_status(&r, 200);
    const char *at = r.body;
    while ((at = strstr(at, needle)) && at != r.body && at[-1] != '\n')
        at++;
    int64_t v = at ? (int64_t)strtod(at + strlen(needle), NULL) : 0;
    http_result_free(&r);
    return v;
}

/* ---- one scenario ---- */

static int commits_per_writer(void)
{
    const char *e = getenv("HOGLAKE_TORTURE_COMMITS");
    int n = e && *e ? atoi(e) : 200;
    return n > 0 ? n : 200;
}

static void create_tables(const struct test_server *s, const char *cat)
{
    static const char *const cols =
        "[{'name':'id','type':'long','nullable':false},{'name':'v','type':'double'},"
        "{'name':'s','type':'string'}]";
    for (int t = 0; t < NTABLES; t++) {
        struct http_result r;
        char *c = dq(t == TD ? "[{'name':'id','type':'long','nullable':false},"
                               "{'name':'region','type':'string'},"
                               "{'name':'ts','type':'timestamptz'}]"
                             : cols);
        json_t *body = jpack("{s:s,s:o}", "name", TABLE_NAMES[t], "columns", jparse(c));
        free(c);
        if (t == TD)
            json_object_set_new(body, "partition_fields",
                                jparse("[{\"source_field_id\":2,\"transform\":\"identity\"},"
                                       "{\"source_field_id\":1,\"transform\":\"bucket\","
                                       "\"transform_param\":4}]"));
        api_send(&r, s, "POST", body, "/v1/catalogs/%s/namespaces/" NS "/tables", cat);
        expect_status(&r, 201);
        http_result_free(&r);
    }
}

/* Everything one run of the scenario holds. */
struct run {
    struct scenario sc;
    const char *label;
    PGconn *pg;
    int64_t setup_head, setup_sv;
    int ncommits;
    struct writer writers[WRITERS];
    struct ddl_thread ddl;
    struct holder holder;
    double wall;
    int commits, files; /* acknowledged */
};

static void setup_run(struct run *R, const struct test_server *const *servers, int nservers,
                      const struct test_db *db, const char *cat, const char *label)
{
    memset(R, 0, sizeof *R);
    pthread_mutex_init(&R->sc.fail_lock, NULL);
    snprintf(R->sc.cat, sizeof R->sc.cat, "%s", cat);
    snprintf(R->sc.data, sizeof R->sc.data, "s3://hoglake-test/%s", cat);
    R->sc.servers[0] = servers[0];
    R->sc.servers[1] = servers[nservers - 1];
    R->sc.nservers = nservers;
    R->sc.db = db;
    R->label = label;
    make_catalog(servers[0], cat);
    make_namespace(servers[0], cat, NS);
    create_tables(servers[0], cat);
    R->pg = test_db_connect(db);
    test_sql_use(R->pg);
    R->sc.cat_id = cat_id(cat);
    R->setup_head = head_of(cat);
    R->setup_sv = sqli("SELECT schema_version FROM hog_catalog WHERE catalog_id = %lld",
                       (long long)R->sc.cat_id);
    R->ncommits = commits_per_writer();
}

/* The writers, the DDL thread and the lock holder, until the writers are
 * done; then the failures any of them saw. */
static void run_threads(struct run *R)
{
    struct scenario *sc = &R->sc;
    pthread_t wt[WRITERS], dt, ht;
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    if (getenv("HOGLAKE_TORTURE_SEED"))
        seed = strtoull(getenv("HOGLAKE_TORTURE_SEED"), NULL, 10);
    printf("[torture %s] seed %llu (HOGLAKE_TORTURE_SEED), %d writers x %d commits "
           "(HOGLAKE_TORTURE_COMMITS), %d server(s)\n",
           R->label, (unsigned long long)seed, WRITERS, R->ncommits, sc->nservers);
    R->ddl = (struct ddl_thread){.sc = sc, .rng = seed * 31 + 7};
    R->holder = (struct holder){.sc = sc, .rng = seed * 17 + 3};
    double t0 = now_s();
    for (int i = 0; i < WRITERS; i++) {
        struct writer *w = &R->writers[i];
        w->sc = sc;
        w->id = i;
        w->home = sc->servers[i % sc->nservers];
        w->rng = (seed + 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1)) | 1;
        w->ncommits = R->ncommits;
        w->cached_read = -1;
        w->last_snapshot = R->setup_head;
        w->acks = calloc((size_t)R->ncommits, sizeof *w->acks);
        assert_non_null(w->acks);
        assert_int_equal(pthread_create(&wt[i], NULL, writer_main, w), 0);
    }
    assert_int_equal(pthread_create(&dt, NULL, ddl_main, &R->ddl), 0);
    assert_int_equal(pthread_create(&ht, NULL, holder_main, &R->holder), 0);
    for (int i = 0; i < WRITERS; i++)
        pthread_join(wt[i], NULL);
    R->wall = now_s() - t0;
    atomic_store(&sc->writers_done, 1);
    pthread_join(dt, NULL);
    pthread_join(ht, NULL);
    if (sc->nfailures) {
        for (int i = 0; i < sc->nservers; i++)
            fprintf(stderr, "server %d log: %s\n", i, sc->servers[i]->log);
        fail_msg("[torture %s] %d failure(s); first: %s", R->label, sc->nfailures, sc->failure);
    }
    for (int i = 0; i < WRITERS; i++) {
        R->commits += R->writers[i].n.commits;
        R->files += R->writers[i].n.files;
    }
    assert_int_equal(R->commits, WRITERS * R->ncommits);
}

static void print_summary(struct run *R)
{
    int commits = R->commits, files = R->files;
    double wall = R->wall;
    int replays = 0, reordered_n = 0, other = 0, modified_n = 0, receipts = 0, c409n = 0, c409s = 0,
        stale = 0, s503 = R->ddl.s503, reads = 0, multi = 0, other_ep = 0, twins = 0;
    for (int i = 0; i < WRITERS; i++) {
        struct writer *w = &R->writers[i];
        replays += w->n.replays;
        reordered_n += w->n.reordered;
        other += w->n.replays_other_server;
        modified_n += w->n.modified;
        receipts += w->n.receipts;
        c409n += w->n.c409_new_key;
        c409s += w->n.c409_same_key;
        stale += w->n.stale_body_422;
        s503 += w->n.s503;
        reads += w->n.reads;
        multi += w->n.multi;
        other_ep += w->n.replays_other_endpoint;
        twins += w->n.twins;
    }
    int64_t shed = 0;
    for (int i = 0; i < R->sc.nservers; i++)
        shed += metric_value(R->sc.servers[i], "hoglake_requests_shed_total ");
    printf("[torture %s] %d commits (%d multi-table, %d files) in %.2f s: %.0f commits/s\n",
           R->label, commits, multi, files, wall, commits / wall);
    printf("[torture %s] replays %d (%d reordered, %d via the other server, %d via the other "
           "endpoint), requests sent twice at once %d, key reuse 422s %d (+%d refused bodies "
           "re-sent after their key was acknowledged), receipt GETs %d\n",
           R->label, replays, reordered_n, other, other_ep, twins, modified_n, stale, receipts);
    printf("[torture %s] 409 ddl_since_read_snapshot %d (%d retried with a new key, %d with the "
           "same key), 503 commit_queue_timeout %d (lock held %d times; %lld shed before a "
           "worker), table reads %d\n",
           R->label, c409n + c409s, c409n, c409s, s503, R->holder.holds, (long long)shed, reads);
    printf("[torture %s] DDL: %d alters acknowledged, %d add_column refused as "
           "idless_files_present\n",
           R->label, R->ddl.ops, R->ddl.idless);
    fflush(stdout);
}

/* The acknowledged results, into temporary tables next to the catalog's. */
static void load_results(struct run *R)
{
    exec_big(R->pg, "CREATE TEMP TABLE t_tab (tname text PRIMARY KEY, tid bigint)");
    exec_big(R->pg, "CREATE TEMP TABLE t_ack (key uuid PRIMARY KEY, snapshot bigint, sv bigint,"
                    " read_snapshot bigint, writer int)");
    exec_big(R->pg, "CREATE TEMP TABLE t_file (key uuid, path text, tname text, records bigint,"
                    " size bigint, nstats int, stats bool, gord int, prefix bigint)");
    exec_big(R->pg, "CREATE TEMP TABLE t_ddl (snapshot bigint PRIMARY KEY, tname text)");
    exec_big(R->pg, "CREATE TEMP TABLE t_conflict (read_snapshot bigint, tname text)");
    struct sbuf b = {0};
    int rows = 0;
    for (int t = 0; t < NTABLES; t++) {
        char sql[200];
        snprintf(sql, sizeof sql, "INSERT INTO t_tab VALUES ('%s', %lld)", TABLE_NAMES[t],
                 (long long)table_id_of(R->sc.cat, NS, TABLE_NAMES[t]));
        exec_big(R->pg, sql);
    }
    const char *h_ack = "INSERT INTO t_ack";
    for (int i = 0; i < WRITERS; i++)
        for (int k = 0; k < R->writers[i].nacks; k++) {
            struct ack *a = &R->writers[i].acks[k];
            char rs[24];
            snprintf(rs, sizeof rs, "%lld", (long long)a->read_snapshot);
            add_row(R->pg, &b, h_ack, &rows, "('%s', %lld, %lld, %s, %d)", a->key,
                    (long long)a->snapshot, (long long)a->schema_version,
                    a->read_snapshot < 0 ? "NULL" : rs, i);
        }
    flush_rows(R->pg, &b, &rows, true);
    const char *h_file = "INSERT INTO t_file";
    for (int i = 0; i < WRITERS; i++)
        for (int k = 0; k < R->writers[i].nacks; k++) {
            struct ack *a = &R->writers[i].acks[k];
            for (int f = 0; f < a->nfiles; f++) {
                struct tfile *tf = &a->files[f];
                add_row(R->pg, &b, h_file, &rows,
                        "('%s', '%s', '%s', %lld, %lld, %d, %s, %d, %lld)", a->key, tf->path,
                        TABLE_NAMES[tf->table], (long long)tf->records, (long long)tf->size,
                        tf->nstats, tf->stats ? "true" : "false", tf->gord, (long long)tf->prefix);
            }
        }
    flush_rows(R->pg, &b, &rows, true);
    const char *h_ddl = "INSERT INTO t_ddl";
    for (int k = 0; k < R->ddl.nacks; k++)
        add_row(R->pg, &b, h_ddl, &rows, "(%lld, '%s')", (long long)R->ddl.acks[k].snapshot,
                TABLE_NAMES[R->ddl.acks[k].table]);
    flush_rows(R->pg, &b, &rows, true);
    const char *h_conf = "INSERT INTO t_conflict";
    for (int i = 0; i < WRITERS; i++)
        for (int k = 0; k < R->writers[i].nconflicts; k++)
            for (int t = 0; t < NTABLES; t++)
                if (R->writers[i].conflicts[k].tables & (1u << t))
                    add_row(R->pg, &b, h_conf, &rows, "(%lld, '%s')",
                            (long long)R->writers[i].conflicts[k].read_snapshot, TABLE_NAMES[t]);
    flush_rows(R->pg, &b, &rows, true);
    free(b.s);
    exec_big(R->pg, "ANALYZE t_ack; ANALYZE t_file; ANALYZE t_ddl; ANALYZE t_conflict");
}

static void check_invariants(struct run *R)
{
    long long cid = (long long)R->sc.cat_id;
    int commits = R->commits, files = R->files;
    int64_t head = head_of(R->sc.cat);
    printf("[torture %s] head %lld: %lld setup snapshots, %d commits, %d DDL\n", R->label,
           (long long)head, (long long)R->setup_head + 1, commits, R->ddl.nacks);
    /* Snapshot ids are exactly 0..head. */
    sql_expect(head + 1, "snapshot rows",
               "SELECT count(*) FROM hog_snapshot WHERE catalog_id = %lld", cid);
    sql_expect(head + 1, "distinct snapshot ids",
               "SELECT count(DISTINCT snapshot_id) FROM hog_snapshot WHERE catalog_id = %lld", cid);
    sql_expect_zero("lowest snapshot id",
                    "SELECT min(snapshot_id) FROM hog_snapshot WHERE catalog_id = %lld", cid);
    sql_expect(head, "highest snapshot id",
               "SELECT max(snapshot_id) FROM hog_snapshot WHERE catalog_id = %lld", cid);
    /* Snapshot times are stamped under the lock: monotone in id order. */
    sql_expect_zero("snapshot times going backwards",
                    "SELECT count(*) FROM (SELECT snapshot_time < lag(snapshot_time) OVER (ORDER BY"
                    " snapshot_id) AS back FROM hog_snapshot WHERE catalog_id = %lld) x WHERE back",
                    cid);
    /* Every snapshot after the setup is exactly one acknowledged commit or
     * DDL: nothing unacknowledged, nothing twice. */
    sql_expect(head - R->setup_head, "acknowledged snapshots",
               "SELECT count(DISTINCT s) FROM (SELECT snapshot s FROM t_ack UNION ALL"
               " SELECT snapshot FROM t_ddl) x WHERE s > %lld AND s <= %lld",
               (long long)R->setup_head, (long long)head);
    sql_expect(head - R->setup_head, "acknowledgements",
               "SELECT (SELECT count(*) FROM t_ack) + (SELECT count(*) FROM t_ddl)");
    /* Receipts: one per acknowledged key, naming its snapshot; each data
     * snapshot named by exactly one. */
    sql_expect(commits, "receipts",
               "SELECT count(*) FROM hog_commit_receipt WHERE catalog_id = %lld", cid);
    sql_expect_zero("receipts disagreeing with the acknowledgement",
                    "SELECT count(*) FROM t_ack a LEFT JOIN hog_commit_receipt r ON r.catalog_id ="
                    " %lld AND r.idempotency_key = a.key WHERE r.snapshot_id IS DISTINCT FROM"
                    " a.snapshot OR r.schema_version IS DISTINCT FROM a.sv",
                    cid);
    sql_expect_zero("snapshots named by two receipts",
                    "SELECT count(*) FROM (SELECT snapshot_id FROM hog_commit_receipt WHERE"
                    " catalog_id = %lld GROUP BY snapshot_id HAVING count(*) > 1) x",
                    cid);
    sql_expect(commits, "snapshots that registered files",
               "SELECT count(DISTINCT begin_snapshot) FROM hog_data_file WHERE catalog_id ="
               " %lld",
               cid);
    sql_expect_zero("file snapshots without a receipt",
                    "SELECT count(*) FROM (SELECT DISTINCT begin_snapshot FROM hog_data_file WHERE"
                    " catalog_id = %lld) f WHERE NOT EXISTS (SELECT 1 FROM hog_commit_receipt r"
                    " WHERE r.catalog_id = %lld AND r.snapshot_id = f.begin_snapshot)",
                    cid, cid);
    /* Data commits keep the schema version; DDL bumps it by one. */
    sql_expect(R->setup_sv + R->ddl.nacks, "schema_version",
               "SELECT schema_version FROM hog_catalog WHERE catalog_id = %lld", cid);
    sql_expect_zero("data snapshots with a wrong schema_version",
                    "SELECT count(*) FROM t_ack a JOIN hog_snapshot s ON s.catalog_id = %lld AND"
                    " s.snapshot_id = a.snapshot WHERE s.schema_version <> a.sv OR a.sv <> %lld +"
                    " (SELECT count(*) FROM t_ddl d WHERE d.snapshot < a.snapshot)",
                    cid, (long long)R->setup_sv);
    /* Every acknowledged file, at its commit's snapshot, as sent. */
    sql_expect(files, "data files", "SELECT count(*) FROM hog_data_file WHERE catalog_id = %lld",
               cid);
    sql_expect(files, "distinct paths",
               "SELECT count(DISTINCT path) FROM hog_data_file WHERE catalog_id = %lld", cid);
    sql_expect_zero(
        "acknowledged files missing or different",
        "SELECT count(*) FROM t_file f JOIN t_ack a USING (key) JOIN t_tab t USING (tname)"
        " LEFT JOIN hog_data_file d ON d.catalog_id = %lld AND d.path = f.path"
        " WHERE d.data_file_id IS NULL OR d.begin_snapshot <> a.snapshot OR"
        " d.end_snapshot IS NOT NULL OR d.table_id <> t.tid OR d.record_count <>"
        " f.records OR d.file_size_bytes <> f.size OR d.stats_state <> CASE WHEN"
        " f.stats THEN 'provided' ELSE 'pending' END",
        cid);
    /* File ids in request order (tables by first occurrence), row ids in
     * request order per table. */
    sql_expect_zero("file ids out of request order",
                    "SELECT count(*) FROM (SELECT f.gord, d.data_file_id - min(d.data_file_id) OVER"
                    " (PARTITION BY f.key) AS off FROM t_file f JOIN hog_data_file d ON"
                    " d.catalog_id = %lld AND d.path = f.path) x WHERE off <> gord",
                    cid);
    sql_expect_zero(
        "row ids out of request order",
        "SELECT count(*) FROM (SELECT f.prefix, d.row_id_start - min(d.row_id_start) OVER"
        " (PARTITION BY f.key, f.tname) AS off FROM t_file f JOIN hog_data_file d ON"
        " d.catalog_id = %lld AND d.path = f.path) x WHERE off <> prefix",
        cid);
    sql_expect(files, "file count by ordinals",
               "SELECT count(*) FROM (SELECT DISTINCT key, gord FROM t_file) x");
    /* Statistics and partition values. */
    sql_expect(sqli("SELECT coalesce(sum(nstats), 0) FROM t_file"), "statistics rows",
               "SELECT count(*) FROM hog_file_column_stats WHERE catalog_id = %lld", cid);
    sql_expect_zero("partition values missing",
                    "SELECT count(*) FROM t_file f JOIN hog_data_file d ON d.catalog_id = %lld AND"
                    " d.path = f.path WHERE (SELECT count(*) FROM hog_file_partition_value p WHERE"
                    " p.catalog_id = d.catalog_id AND p.data_file_id = d.data_file_id) <> CASE WHEN"
                    " f.tname = 'td' THEN 2 ELSE 0 END",
                    cid);
    /* Per table: the row ranges tile [0, next_row_id) exactly, in row order
     * and in allocation (file id) order, and the counters are the sums. */
    const char *orders[] = {"row_id_start, record_count, data_file_id", "data_file_id"};
    for (int o = 0; o < 2; o++)
        sql_expect_zero(
            "row ranges with a gap or an overlap",
            "SELECT count(*) FROM (SELECT row_id_start, lag(row_id_start + record_count,"
            " 1, 0::bigint) OVER (PARTITION BY table_id ORDER BY %s) AS prev_end FROM"
            " hog_data_file WHERE catalog_id = %lld) x WHERE row_id_start <> prev_end",
            orders[o], cid);
    sql_expect_zero(
        "table counters disagreeing with the files",
        "SELECT count(*) FROM hog_table_stats s JOIN t_tab t ON t.tid = s.table_id"
        " LEFT JOIN (SELECT table_id, sum(record_count) AS recs, sum(file_size_bytes) AS"
        " bytes, max(row_id_start + record_count) AS hi FROM hog_data_file WHERE"
        " catalog_id = %lld GROUP BY table_id) d ON d.table_id = s.table_id"
        " LEFT JOIN (SELECT tname, sum(records) AS recs, sum(size) AS bytes FROM t_file"
        " GROUP BY tname) f ON f.tname = t.tname"
        " WHERE s.catalog_id = %lld AND (s.next_row_id <> coalesce(d.recs, 0) OR"
        " s.record_count <> coalesce(d.recs, 0) OR s.file_size_bytes <> coalesce(d.bytes,"
        " 0) OR coalesce(d.hi, 0) <> s.next_row_id OR coalesce(f.recs, 0) <>"
        " s.next_row_id OR coalesce(f.bytes, 0) <> s.file_size_bytes)",
        cid, cid);
    /* File ids: unique and dense over data files and deletion vectors. */
    sql_expect_zero(
        "file ids not dense",
        "SELECT count(*) FROM (SELECT count(*) AS n, count(DISTINCT id) AS d, min(id) AS"
        " lo, max(id) AS hi FROM (SELECT data_file_id AS id FROM hog_data_file WHERE"
        " catalog_id = %lld UNION ALL SELECT delete_file_id FROM hog_delete_file WHERE"
        " catalog_id = %lld) u) x, hog_catalog c WHERE c.catalog_id = %lld AND NOT (x.n"
        " = x.d AND x.lo = 1 AND x.hi = x.n AND c.next_file_id - 1 = x.hi)",
        cid, cid, cid);
    /* Change rows: one table_inserted_into per (snapshot, table) written,
     * nothing else at a data snapshot; one table_altered per DDL. */
    sql_expect_zero(
        "(snapshot, table) pairs without exactly one table_inserted_into",
        "SELECT count(*) FROM (SELECT DISTINCT a.snapshot, t.tid FROM t_file f JOIN t_ack"
        " a USING (key) JOIN t_tab t USING (tname)) w WHERE (SELECT count(*) FROM"
        " hog_snapshot_change c WHERE c.catalog_id = %lld AND c.snapshot_id = w.snapshot"
        " AND c.kind = 'table_inserted_into' AND c.object_id = w.tid) <> 1",
        cid);
    sql_expect(sqli("SELECT count(*) FROM (SELECT DISTINCT key, tname FROM t_file) x"),
               "change rows at data snapshots",
               "SELECT count(*) FROM hog_snapshot_change c JOIN t_ack a ON a.snapshot ="
               " c.snapshot_id WHERE c.catalog_id = %lld",
               cid);
    sql_expect_zero(
        "DDL snapshots without exactly their table_altered",
        "SELECT count(*) FROM t_ddl d JOIN t_tab t USING (tname) WHERE (SELECT count(*)"
        " FROM hog_snapshot_change c WHERE c.catalog_id = %lld AND c.snapshot_id ="
        " d.snapshot) <> 1 OR NOT EXISTS (SELECT 1 FROM hog_snapshot_change c WHERE"
        " c.catalog_id = %lld AND c.snapshot_id = d.snapshot AND c.kind = 'table_altered'"
        " AND c.object_id = t.tid)",
        cid, cid);
    /* The read_snapshot guard: no acknowledged commit crossed a DDL on its
     * tables after its read, and every 409 had one. */
    sql_expect_zero("commits accepted across a DDL after their read_snapshot",
                    "SELECT count(*) FROM t_ack a JOIN (SELECT DISTINCT key, tname FROM t_file) f"
                    " USING (key) JOIN t_tab t USING (tname) WHERE a.read_snapshot IS NOT NULL AND"
                    " EXISTS (SELECT 1 FROM hog_snapshot_change c WHERE c.catalog_id = %lld AND"
                    " c.object_id = t.tid AND c.kind IN ('table_altered', 'table_dropped') AND"
                    " c.snapshot_id > a.read_snapshot AND c.snapshot_id < a.snapshot)",
                    cid);
    sql_expect_zero(
        "409 ddl_since_read_snapshot without a DDL after the read",
        "SELECT count(*) FROM t_conflict k JOIN t_tab t USING (tname) WHERE NOT EXISTS"
        " (SELECT 1 FROM hog_snapshot_change c WHERE c.catalog_id = %lld AND c.object_id"
        " = t.tid AND c.kind = 'table_altered' AND c.snapshot_id > k.read_snapshot)",
        cid);
    /* Through the API: the exact totals at head are the acknowledged
     * sums. */
    for (int t = 0; t < NTABLES; t++) {
        json_t *tj = api_get_json(R->sc.servers[R->sc.nservers - 1],
                                  "/v1/catalogs/%s/namespaces/" NS "/tables/%s?snapshot=%lld",
                                  R->sc.cat, TABLE_NAMES[t], (long long)head);
        assert_int_equal(jint(tj, "record_count"),
                         sqli("SELECT coalesce(sum(records), 0) FROM t_file WHERE tname = '%s'",
                              TABLE_NAMES[t]));
        assert_int_equal(jint(tj, "file_count"),
                         sqli("SELECT count(*) FROM t_file WHERE tname = '%s'", TABLE_NAMES[t]));
        json_decref(tj);
    }
    /* A last sweep of replays, now that nothing else runs: each answers its
     * original snapshot and the head does not move. */
    for (int k = 0; k < 64; k++) {
        struct writer *w = &R->writers[k % WRITERS];
        if (w->nacks)
            replay(w);
    }
    if (R->sc.nfailures)
        fail_msg("[torture %s] after the run: %s", R->label, R->sc.failure);
    assert_int_equal(head_of(R->sc.cat), head);
}

static void free_run(struct run *R)
{
    exec_big(R->pg, "DROP TABLE t_tab, t_ack, t_file, t_ddl, t_conflict");
    PQfinish(R->pg);
    test_sql_use(NULL);
    for (int i = 0; i < WRITERS; i++) {
        for (int k = 0; k < R->writers[i].nacks; k++) {
            free(R->writers[i].acks[k].body);
            free(R->writers[i].acks[k].files);
        }
        free(R->writers[i].acks);
        free(R->writers[i].conflicts);
    }
    free(R->ddl.acks);
    pthread_mutex_destroy(&R->sc.fail_lock);
}

static void run_scenario(const struct test_server *const *servers, int nservers,
                         const struct test_db *db, const char *cat, const char *label)
{
    static struct run R;
    setup_run(&R, servers, nservers, db, cat, label);
    run_threads(&R);
    print_summary(&R);
    double v0 = now_s();
    load_results(&R);
    check_invariants(&R);
    printf("[torture %s] checks passed in %.2f s\n", label, now_s() - v0);
    free_run(&R);
}

static const char *const SERVER_ARGS[] = {"--commit-lock-timeout-ms", LOCK_TIMEOUT_MS, NULL};

/* The servers and database of the running test; the teardown stops and
 * drops them even when the test failed (HOGLAKE_TORTURE_KEEP_DB=1 keeps
 * the database for a post-mortem). */
static struct {
    struct test_db db;
    bool have_db;
    struct test_server servers[2];
    int nservers;
} fx;

static int fx_teardown(void **state)
{
    (void)state;
    for (int i = 0; i < fx.nservers; i++)
        test_server_stop(&fx.servers[i]);
    if (fx.have_db) {
        const char *keep = getenv("HOGLAKE_TORTURE_KEEP_DB");
        if (keep && *keep && strcmp(keep, "0") != 0)
            printf("[torture] database kept: %s\n", fx.db.url);
        else
            test_db_drop(&fx.db);
    }
    memset(&fx, 0, sizeof fx);
    return 0;
}

static void torture(const char *name, const char *label, int nservers,
                    const char *const *server_args)
{
    test_db_create(&fx.db, name);
    fx.have_db = true;
    const struct test_server *servers[2];
    for (int i = 0; i < nservers; i++) {
        test_server_start(&fx.servers[i], &fx.db, server_args);
        fx.nservers = i + 1;
        servers[i] = &fx.servers[i];
    }
    run_scenario(servers, nservers, &fx.db, name, label);
}

static void torture_one_server(void **state)
{
    (void)state;
    torture("tort1", "1 server", 1, SERVER_ARGS);
}

static void torture_two_servers(void **state)
{
    (void)state;
    /* Fewer workers than clients: requests queue for a worker while the
     * lock holder stalls them, and some are shed with 503. */
    const char *const few_workers[] = {"--commit-lock-timeout-ms", LOCK_TIMEOUT_MS,
                                       "--request-threads", "3", NULL};
    torture("tort2", "2 servers", 2, few_workers);
}

/* Replays in other shapes of the same request. The contract's fingerprint
 * is the parsed request serialised canonically (§4.6; the reference
 * serialises its CommitRequest data class), so anything the parser reads
 * identically is the same request: member and element order, the key's
 * case, escaped slashes, an optional member sent as null rather than left
 * out, an empty deletes list, a UUID in capitals. Each replay must answer
 * the original snapshot and write nothing. */
static void replays_in_equivalent_shapes(void **state)
{
    (void)state;
    test_db_create(&fx.db, "tortshape");
    fx.have_db = true;
    test_server_start(&fx.servers[0], &fx.db, NULL);
    fx.nservers = 1;
    const struct test_server *s = &fx.servers[0];
    make_catalog(s, "shape");
    make_namespace(s, "shape", NS);
    json_t *t = make_table(s, "shape", NS, "t", "[{\"name\":\"id\",\"type\":\"long\"}]");
    char uuid[40], upper[40];
    snprintf(uuid, sizeof uuid, "%s", jstr(t, "table_uuid"));
    json_decref(t);
    for (size_t i = 0; i <= strlen(uuid); i++)
        upper[i] = (char)(uuid[i] >= 'a' && uuid[i] <= 'f' ? uuid[i] - 'a' + 'A' : uuid[i]);
    PGconn *pg = test_db_connect(&fx.db);
    test_sql_use(pg);
    int64_t read = head_of("shape");
    const char *key = "3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b";
#define SHAPE_DATA "s3://hoglake-test/shape"
    char original[2048];
    snprintf(original, sizeof original,
             "{'idempotency_key':'%s','read_snapshot':%lld,'appends':[{'namespace':'" NS "',"
             "'table':'t','expected_table_uuid':'%s','files':["
             "{'path':'" SHAPE_DATA "/a.parquet','record_count':5,'file_size_bytes':100},"
             "{'path':'" SHAPE_DATA "/b.parquet','record_count':7,'file_size_bytes':200,"
             "'column_stats':[{'field_id':1,'value_count':7,'null_count':0}]}]}]}",
             key, (long long)read, uuid);
    char *body = dq(original);
    struct http_result r;
    api_send_text(&r, s, "POST", body, "/v1/catalogs/shape/commit/prepared");
    free(body);
    expect_status(&r, 200);
    int64_t snap = jint(r.json, "snapshot_id");
    http_result_free(&r);
    int64_t head = head_of("shape");

    struct {
        const char *what;
        char body[2048];
    } shapes[] = {
        {"files reordered, members reordered, the key in capitals", ""},
        {"slashes escaped", ""},
        {"footer_size, column_stats and partition_values sent as null", ""},
        {"author and message sent as null", ""},
        {"an empty deletes list", ""},
        {"expected_table_uuid in capitals", ""},
    };
    snprintf(shapes[0].body, sizeof shapes[0].body,
             "{'appends':[{'files':[{'column_stats':[{'null_count':0,'value_count':7,"
             "'field_id':1}],'file_size_bytes':200,'record_count':7,'path':'" SHAPE_DATA
             "/b.parquet'},{'file_size_bytes':100,'path':'" SHAPE_DATA "/a.parquet',"
             "'record_count':5}],'expected_table_uuid':'%s','table':'t','namespace':'" NS "'}],"
             "'read_snapshot':%lld,'idempotency_key':'3F2B8C1E-9A4D-4E6F-8B7A-1C2D3E4F5A6B'}",
             uuid, (long long)read);
    snprintf(shapes[1].body, sizeof shapes[1].body,
             "{'idempotency_key':'%s','read_snapshot':%lld,'appends':[{'namespace':'" NS "',"
             "'table':'t','expected_table_uuid':'%s','files':["
             "{'path':'s3:\\/\\/hoglake-test\\/shape\\/a.parquet','record_count':5,"
             "'file_size_bytes':100},{'path':'s3:\\/\\/hoglake-test\\/shape\\/b.parquet',"
             "'record_count':7,'file_size_bytes':200,'column_stats':[{'field_id':1,"
             "'value_count':7,'null_count':0}]}]}]}",
             key, (long long)read, uuid);
    snprintf(shapes[2].body, sizeof shapes[2].body,
             "{'idempotency_key':'%s','read_snapshot':%lld,'appends':[{'namespace':'" NS "',"
             "'table':'t','expected_table_uuid':'%s','files':["
             "{'path':'" SHAPE_DATA "/a.parquet','record_count':5,'file_size_bytes':100,"
             "'footer_size':null,'column_stats':null,'partition_values':null},"
             "{'path':'" SHAPE_DATA "/b.parquet','record_count':7,'file_size_bytes':200,"
             "'column_stats':[{'field_id':1,'value_count':7,'null_count':0,'nan_count':null,"
             "'lower_bound':null}]}]}]}",
             key, (long long)read, uuid);
    snprintf(shapes[3].body, sizeof shapes[3].body,
             "{'idempotency_key':'%s','read_snapshot':%lld,'author':null,'message':null,"
             "'appends':[{'namespace':'" NS "','table':'t','expected_table_uuid':'%s','files':["
             "{'path':'" SHAPE_DATA "/a.parquet','record_count':5,'file_size_bytes':100},"
             "{'path':'" SHAPE_DATA "/b.parquet','record_count':7,'file_size_bytes':200,"
             "'column_stats':[{'field_id':1,'value_count':7,'null_count':0}]}]}]}",
             key, (long long)read, uuid);
    snprintf(shapes[4].body, sizeof shapes[4].body,
             "{'idempotency_key':'%s','read_snapshot':%lld,'deletes':[],"
             "'appends':[{'namespace':'" NS "','table':'t','expected_table_uuid':'%s','files':["
             "{'path':'" SHAPE_DATA "/a.parquet','record_count':5,'file_size_bytes':100},"
             "{'path':'" SHAPE_DATA "/b.parquet','record_count':7,'file_size_bytes':200,"
             "'column_stats':[{'field_id':1,'value_count':7,'null_count':0}]}]}]}",
             key, (long long)read, uuid);
    snprintf(shapes[5].body, sizeof shapes[5].body, "%s", original);
    memcpy(strstr(shapes[5].body, uuid), upper, strlen(uuid));

    char failures[4096] = "";
    size_t nfail = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        body = dq(shapes[i].body);
        api_send_text(&r, s, "POST", body, "/v1/catalogs/shape/commit/prepared");
        json_t *got = r.json ? json_object_get(r.json, "snapshot_id") : NULL;
        if (r.status != 200 || json_integer_value(got) != snap) {
            size_t used = strlen(failures);
            snprintf(failures + used, sizeof failures - used,
                     "\n  %s: expected 200 with snapshot %lld, got %ld %.90s\n    request: %.600s",
                     shapes[i].what, (long long)snap, r.status, r.body, body);
            nfail++;
        }
        http_result_free(&r);
        free(body);
        assert_int_equal(head_of("shape"), head);
    }
    /* And a real change is still refused. */
    char changed[2048];
    snprintf(changed, sizeof changed, "%s", original);
    memcpy(strstr(changed, "'record_count':5"), "'record_count':6", 16);
    body = dq(changed);
    api_send_text(&r, s, "POST", body, "/v1/catalogs/shape/commit/prepared");
    free(body);
    expect_error(&r, 422, "validation");
    http_result_free(&r);
    assert_int_equal(head_of("shape"), head);
    PQfinish(pg);
    test_sql_use(NULL);
    if (nfail) {
        /* cmocka cuts long messages: the details go to stderr. */
        fprintf(stderr, "equivalent replays answered as another request:%s\n", failures);
        fail_msg("%zu of %zu equivalent replays were not answered as the original request (see "
                 "above)",
                 nfail, sizeof shapes / sizeof shapes[0]);
    }
}

int main(void)
{
    /* libcurl's and jansson's global set-up, once, before any thread. */
    curl_global_init(CURL_GLOBAL_ALL);
    json_object_seed(0);
    setvbuf(stdout, NULL, _IOLBF, 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(torture_one_server, fx_teardown),
        cmocka_unit_test_teardown(torture_two_servers, fx_teardown),
        cmocka_unit_test_teardown(replays_in_equivalent_shapes, fx_teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
