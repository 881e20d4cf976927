/* Finding the rows a change selects (mutate.h: mut_find).
 *
 * The scan plan at the read snapshot, page by page: a file whose partition
 * values or statistics cannot match is pruned unread. Each other file is
 * read row group by row group through ranged reads, only the columns the
 * change needs, only the pages whose page index may match (prune.c); the
 * positions the predicate selects, less those the file's vector already
 * holds, join that vector.
 *
 * A delete reads a file of several row groups on several threads (the
 * client's read_threads): each has a reader of its own on the file and
 * takes the next row group until none is left, and the positions each
 * group yields join the vector in row-group order once all are done. An
 * update hands each group's rows to its writer in file order, so it reads
 * on the calling thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/mutate.h"
#include "client/object_source.h"
#include "client/prune.h"
#include "parquet/reader.h"
#include "rows/rows_project.h"

enum { MAX_READ_THREADS = 8 };

/* One reader of a file. */
struct file_reader {
    struct client_object_source os;
    struct pq_source src;
    struct pq_reader *r;
    struct rows_projection proj;
};

static void reader_close(struct file_reader *fr)
{
    rows_project_free(&fr->proj);
    pq_reader_free(fr->r);
    client_object_source_free(&fr->os);
}

/* Opens a reader of the file of the change's columns; check_size: with the
 * HEAD that proves the object is the one the catalog registered (another
 * reader of the file then skips it). */
static hl_status reader_open(struct file_reader *fr, struct mutation *m, const char *path,
                             uint64_t size, bool check_size, struct hl_error *err)
{
    memset(fr, 0, sizeof *fr);
    if (!check_size) {
        client_object_source_init(&fr->os, &fr->src, m->store, path, size);
    } else if (client_object_source_open(&fr->os, &fr->src, m->store, path, size, err) != 0) {
        client_error_prefix(err, "fetching %s", path);
        return err->status;
    }
    struct error e;
    if (pq_reader_open(&fr->src, &fr->r, &e) == 0 &&
        rows_project_open_some(fr->r, &m->table, m->wanted, &fr->proj, &e) == 0)
        return HL_OK;
    return e.code == ERR_NOMEM ? client_nomem(err)
                               : client_fail(err, HL_ERR_IO, "io", "%s: %s", path, e.msg);
}

/* The selected live rows of one row group: their positions, ascending. */
struct group_hits {
    uint64_t *pos;
    size_t n;
};

/* Marks in sel the rows of the batch (read as `at` says) the predicate
 * selects that *old does not hold, and puts their positions in *hits. */
static hl_status select_rows(struct mutation *m, const struct ArrowArray *batch,
                             const struct client_rows_at *at, const struct lake_dv *old,
                             uint8_t *sel, struct group_hits *hits, struct hl_error *err)
{
    struct error e;
    int64_t nsel = 0;
    if (expr_pred_eval(m->pred, &m->schema, batch, sel, &nsel, &e) != 0)
        return e.code == ERR_NOMEM
                   ? client_nomem(err)
                   : client_fail(err, HL_ERR_IO, "io", "evaluating the predicate: %s", e.msg);
    if (nsel == 0)
        return HL_OK;
    if (!(hits->pos = malloc((size_t)nsel * sizeof *hits->pos)))
        return client_nomem(err);
    client_mask_positions(old, at, sel);
    size_t i = 0;
    for (size_t k = 0; k < at->n; k++)
        for (int64_t row = at->ranges[k].begin; row < at->ranges[k].end; row++, i++)
            if (sel[i])
                hits->pos[hits->n++] = at->first + (uint64_t)row;
    return HL_OK;
}

/* A read failure of the file's, as the mutation reports it. */
static hl_status read_failed(const json_t *df, const struct error *e, struct hl_error *err)
{
    return e->code == ERR_NOMEM
               ? client_nomem(err)
               : client_fail(err, HL_ERR_IO, "io", "%s: %s",
                             json_string_value(json_object_get(df, "path")), e->msg);
}

/* One chunk of a group's read (its rows at `at`): its selected live rows'
 * positions added to *hits and, with hand_rows, the rows to on_rows. */
static hl_status chunk_find(struct mutation *m, const json_t *df, struct ArrowArray *batch,
                            const struct client_rows_at *at, const struct lake_dv *old,
                            struct group_hits *hits, bool hand_rows, struct hl_error *err)
{
    struct group_hits h = {NULL, 0};
    uint8_t *sel = malloc((size_t)batch->length + 1);
    hl_status st = sel ? select_rows(m, batch, at, old, sel, &h, err) : client_nomem(err);
    if (st == HL_OK && hand_rows && h.n > 0 && m->on_rows)
        st = m->on_rows(m, df, batch, sel, at, err);
    if (st == HL_OK && h.n > 0) {
        uint64_t *all = hits->n ? realloc(hits->pos, (hits->n + h.n) * sizeof *all) : h.pos;
        if (!all) {
            st = client_nomem(err);
        } else if (hits->n) {
            memcpy(all + hits->n, h.pos, h.n * sizeof *all);
            free(h.pos);
        }
        if (all) {
            hits->pos = all;
            hits->n += h.n;
            h.pos = NULL;
        }
    }
    free(h.pos);
    free(sel);
    return st;
}

/* Row group g of the file (its first row at file position first), a
 * chunk at a time: the positions of its selected live rows into *hits
 * and, with hand_rows, the rows to on_rows. */
static hl_status group_find(struct mutation *m, const json_t *df, struct file_reader *fr, size_t g,
                            uint64_t first, const struct lake_dv *old, struct mut_stats *counts,
                            struct group_hits *hits, bool hand_rows, struct hl_error *err)
{
    *hits = (struct group_hits){NULL, 0};
    struct arena scratch; /* this group's page indexes and ranges */
    arena_init(&scratch, 0);
    struct rows_chunks *chunks = NULL;
    struct client_group_read got;
    struct error e;
    hl_status st = HL_OK;
    if (client_row_group_chunks(&m->table, m->pred, fr->r, g, first, &fr->proj, &scratch, &chunks,
                                &got, &e) != 0)
        st = read_failed(df, &e, err);
    else if (got.at.n == 0)
        counts->row_groups_pruned++;
    else {
        counts->row_groups_scanned++;
        counts->pages_scanned += got.pages_read;
        counts->pages_pruned += got.pages_skipped;
    }
    while (st == HL_OK && chunks) {
        struct ArrowArray batch;
        int64_t at;
        int rc = rows_chunks_next(chunks, &batch, &at, &e);
        if (rc <= 0) {
            st = rc < 0 ? read_failed(df, &e, err) : HL_OK;
            break;
        }
        struct client_rows_at part;
        st = client_rows_at_part(&got.at, at, batch.length, &scratch, &part) != 0
                 ? client_nomem(err)
                 : chunk_find(m, df, &batch, &part, old, hits, hand_rows, err);
        batch.release(&batch);
    }
    rows_chunks_free(chunks);
    arena_free(&scratch);
    return st;
}

/* A file's row groups shared out among threads. */
struct file_find {
    struct mutation *m; /* only read */
    const json_t *df;
    const char *path;
    uint64_t size;
    const struct lake_dv *old;
    const uint64_t *first; /* each group's first row's file position */
    size_t ngroups;
    struct group_hits *hits; /* one per group */
    size_t next;             /* the next group to take (atomic) */
    bool stop;               /* a thread failed (atomic) */
    pthread_mutex_t lock;    /* guards what follows */
    struct mut_stats counts;
    hl_status st; /* the first failure, and its error */
    struct hl_error err;
};

/* Keeps a thread's failure when it is the first, and stops the others. */
static void record_failure(struct file_find *f, hl_status st, const struct hl_error *err)
{
    pthread_mutex_lock(&f->lock);
    if (f->st == HL_OK) {
        f->st = st;
        f->err = *err;
    }
    pthread_mutex_unlock(&f->lock);
    __atomic_store_n(&f->stop, true, __ATOMIC_RELAXED);
}

/* Takes row groups of the file until none is left or a thread failed. */
static void find_share(struct file_find *f, struct file_reader *fr)
{
    struct mut_stats counts = {0};
    struct hl_error err;
    hl_status st = HL_OK;
    while (st == HL_OK && !__atomic_load_n(&f->stop, __ATOMIC_RELAXED)) {
        size_t g = __atomic_fetch_add(&f->next, 1, __ATOMIC_RELAXED);
        if (g >= f->ngroups)
            break;
        st = group_find(f->m, f->df, fr, g, f->first[g], f->old, &counts, &f->hits[g], false, &err);
    }
    pthread_mutex_lock(&f->lock);
    f->counts.row_groups_scanned += counts.row_groups_scanned;
    f->counts.row_groups_pruned += counts.row_groups_pruned;
    f->counts.pages_scanned += counts.pages_scanned;
    f->counts.pages_pruned += counts.pages_pruned;
    pthread_mutex_unlock(&f->lock);
    if (st != HL_OK)
        record_failure(f, st, &err);
}

static void *find_thread(void *arg)
{
    struct file_find *f = arg;
    struct file_reader fr;
    struct hl_error err;
    hl_status st = reader_open(&fr, f->m, f->path, f->size, false, &err);
    if (st == HL_OK)
        find_share(f, &fr);
    else
        record_failure(f, st, &err);
    reader_close(&fr);
    return NULL;
}

/* How many threads read one file: the client's read_threads (0: the
 * online CPUs), at most MAX_READ_THREADS and one per row group. */
static size_t read_threads(const struct mutation *m, size_t ngroups)
{
    long n = m->t->ns->catalog->client->read_threads;
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > MAX_READ_THREADS)
        n = MAX_READ_THREADS;
    return (size_t)n < ngroups ? (size_t)n : ngroups;
}

/* Every row group of the open file fr, on the calling thread and as many
 * more as read_threads gives: *hits (one per group) filled. */
static hl_status find_parallel(struct mutation *m, const json_t *df, struct file_reader *fr,
                               const char *path, uint64_t size, const struct lake_dv *old,
                               const uint64_t *first, size_t ngroups, struct group_hits *hits,
                               struct hl_error *err)
{
    struct file_find f = {.m = m,
                          .df = df,
                          .path = path,
                          .size = size,
                          .old = old,
                          .first = first,
                          .ngroups = ngroups,
                          .hits = hits,
                          .st = HL_OK};
    if (pthread_mutex_init(&f.lock, NULL) != 0)
        return client_fail(err, HL_ERR_INTERNAL, "internal", "no mutex for the readers");
    pthread_t threads[MAX_READ_THREADS];
    size_t started = 0, want = read_threads(m, ngroups);
    /* A thread that does not start leaves its share to the others. */
    while (started + 1 < want && pthread_create(&threads[started], NULL, find_thread, &f) == 0)
        started++;
    find_share(&f, fr);
    for (size_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&f.lock);
    m->stats->row_groups_scanned += f.counts.row_groups_scanned;
    m->stats->row_groups_pruned += f.counts.row_groups_pruned;
    m->stats->pages_scanned += f.counts.pages_scanned;
    m->stats->pages_pruned += f.counts.pages_pruned;
    if (f.st != HL_OK && err)
        *err = f.err;
    return f.st;
}

/* Adds a file and its grown vector (taken) to m->m. */
static hl_status add_matched(struct mutation *m, const json_t *df, struct lake_dv *dv,
                             struct hl_error *err)
{
    if (m->nm == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        struct mut_matched *grown = realloc(m->m, cap * sizeof *grown);
        if (!grown)
            return client_nomem(err);
        m->m = grown;
        m->cap = cap;
    }
    m->m[m->nm++] = (struct mut_matched){.data_file = json_incref((json_t *)df), .dv = *dv};
    lake_dv_init(dv);
    return HL_OK;
}

/* The rows the open file fr loses, into dv: its row groups in order on
 * the calling thread (an update's rows go to on_rows in file order), or
 * shared out among threads. */
static hl_status find_in_file(struct mutation *m, const json_t *df, struct file_reader *fr,
                              const char *path, uint64_t size, const struct lake_dv *old,
                              struct lake_dv *dv, int64_t *added, struct hl_error *err)
{
    const struct pq_file_meta *meta = pq_reader_meta(fr->r);
    size_t ngroups = meta->nrow_groups;
    uint64_t *first = malloc((ngroups + 1) * sizeof *first);
    struct group_hits *hits = calloc(ngroups + 1, sizeof *hits);
    hl_status st = first && hits ? HL_OK : client_nomem(err);
    for (size_t g = 0; st == HL_OK && g < ngroups; g++)
        first[g] = g ? first[g - 1] + (uint64_t)meta->row_groups[g - 1].num_rows : 0;
    if (st == HL_OK && (m->on_rows || read_threads(m, ngroups) <= 1)) {
        for (size_t g = 0; st == HL_OK && g < ngroups; g++)
            st = group_find(m, df, fr, g, first[g], old, m->stats, &hits[g], true, err);
    } else if (st == HL_OK) {
        st = find_parallel(m, df, fr, path, size, old, first, ngroups, hits, err);
    }
    /* In row-group order, so each group's positions follow those held. */
    struct error e;
    for (size_t g = 0; hits && g < ngroups; g++) {
        if (st == HL_OK && hits[g].n > 0 && lake_dv_add(dv, hits[g].pos, hits[g].n, &e) != 0)
            st = client_nomem(err);
        *added += (int64_t)hits[g].n;
        free(hits[g].pos);
    }
    free(hits);
    free(first);
    return st;
}

/* Reads one file's needed columns and finds the rows it loses; a file
 * with some joins m->m. */
static hl_status scan_file(struct mutation *m, const json_t *scan_file, struct hl_error *err)
{
    const json_t *df = json_object_get(scan_file, "data_file");
    const char *path = json_string_value(json_object_get(df, "path"));
    int64_t size = -1, rows = -1;
    if (!path || !client_json_int(df, "file_size_bytes", &size) ||
        !client_json_int(df, "record_count", &rows) || size <= 0 || rows < 0)
        return client_fail(err, HL_ERR_PROTOCOL, "protocol",
                           "the scan plan has a file without path, size or record_count");
    struct lake_dv old, dv;
    lake_dv_init(&old);
    lake_dv_init(&dv);
    const json_t *old_json = json_object_get(scan_file, "delete_file");
    hl_status st = HL_OK;
    if (old_json && !json_is_null(old_json))
        st = client_dv_load(m->store, old_json, path, (uint64_t)rows, &old, err);
    struct file_reader fr;
    memset(&fr, 0, sizeof fr);
    if (st == HL_OK)
        st = reader_open(&fr, m, path, (uint64_t)size, true, err);
    m->stats->files_scanned += st == HL_OK;
    int64_t added = 0;
    if (st == HL_OK)
        st = find_in_file(m, df, &fr, path, (uint64_t)size, &old, &dv, &added, err);
    reader_close(&fr);
    /* The file's vector: what it held, and the new positions. */
    struct error e;
    if (st == HL_OK && added > 0 && !m->count_only && lake_dv_add(&dv, old.pos, old.n, &e) != 0)
        st = client_nomem(err);
    if (st == HL_OK && added > 0 && (st = add_matched(m, df, &dv, err)) == HL_OK) {
        m->stats->rows += added;
        m->stats->files_affected++;
    }
    lake_dv_free(&old);
    lake_dv_free(&dv);
    return st;
}

hl_status mut_find(struct mutation *m, struct hl_error *err)
{
    struct hl_at at = {m->read_snapshot, NULL};
    char *token = NULL;
    hl_status st = HL_OK;
    do {
        json_t *files = NULL;
        char *next = NULL;
        st = client_plan_page(m->t, &at, true, token, &files, &next, err);
        free(token);
        token = next;
        size_t i;
        const json_t *sf;
        json_array_foreach (files, i, sf) {
            if (st != HL_OK)
                break;
            struct arena scratch;
            arena_init(&scratch, 0);
            if (!client_file_may_match(&m->table, m->pred, json_object_get(sf, "data_file"),
                                       &scratch))
                m->stats->files_pruned++;
            else
                st = scan_file(m, sf, err);
            arena_free(&scratch);
        }
        json_decref(files);
    } while (st == HL_OK && token);
    free(token);
    return st;
}
