/* The hydrator's pass and requeue (hydrate.h). */
#include "server/maintenance/hydrate.h"

#include <stdio.h>
#include <string.h>

#include "objstore/objstore.h"
#include "parquet/colstats.h"
#include "parquet/reader.h"
#include "server/db/db.h"
#include "server/maintenance/file_stats.h"
#include "server/maintenance/maintenance.h"
#include "server/metrics.h"
#include "server/server.h"
#include "server/storage_guard.h"
#include "server/store/hydration.h"
#include "server/store/tables.h"
#include "util/failpoint.h"
#include "util/log.h"
#include "util/timefmt.h"

enum outcome { OUT_PROVIDED, OUT_FAILED, OUT_TRANSIENT };

/* What one file's footer gave, in the file's arena. */
struct hydrated {
    struct pq_file_meta meta;
    struct pq_col_stats *stats;
    size_t nstats;
    int64_t *splits;
    size_t nsplits;
    bool missing_field_ids;
    int repaired;
};

/* A storage failure's outcome: a vanished object or a path the store
 * refuses will not come right by waiting (a rehydrate requeues the file
 * once fixed); anything else may. A confinement refusal is recorded. */
static enum outcome storage_outcome(struct srv_ctx *ctx, const struct catalog_row *cat,
                                    const struct store_pending_file *f, const struct hl_error *e)
{
    if (storage_refusal(e)) {
        storage_record_refusal(ctx->srv, cat->name, "read", f->path, NULL, e);
        return OUT_FAILED;
    }
    bool gone = e->status == HL_ERR_NOT_FOUND || e->status == HL_ERR_INVALID_ARGUMENT;
    log_warn("hydrator: file %lld (%s): %s%s", (long long)f->id, f->path, e->message,
             gone ? "" : " (left pending)");
    return gone ? OUT_FAILED : OUT_TRANSIENT;
}

/* Reads and decodes the footer into h->meta, through `store` (confined
 * to the catalog's data path). The object must be the size the writer
 * registered: a file that is not is refused before a byte is read (a
 * registration can only lie to make the server read more than it should).
 * Returns 0 with *o set, or -1 out of memory. */
static int fetch_footer(struct srv_ctx *ctx, const struct catalog_row *cat, struct objstore *store,
                        const struct store_pending_file *f, struct arena *a, struct hydrated *h,
                        enum outcome *o)
{
    struct hl_error e = {0};
    struct error pe = {0};
    uint32_t flen;
    struct buf b = BUF_INIT;
    uint64_t size;
    /* A storage outage, for tests: the store answers an I/O error. */
    if (failpoint_on("hydrator-storage-outage")) {
        e = (struct hl_error){.status = HL_ERR_IO, .retryable = true};
        snprintf(e.message, sizeof e.message, "simulated storage outage (failpoint)");
        *o = storage_outcome(ctx, cat, f, &e);
        return 0;
    }
    if (objstore_head(store, f->path, &size, &e) != 0) {
        if (e.status == HL_ERR_NOMEM)
            return -1;
        *o = storage_outcome(ctx, cat, f, &e);
        return 0;
    }
    if (size != (uint64_t)f->file_size) {
        char why[128];
        snprintf(why, sizeof why, "the object holds %llu bytes, the catalog says %lld",
                 (unsigned long long)size, (long long)f->file_size);
        struct hl_error mismatch = {.status = HL_ERR_FORBIDDEN};
        snprintf(mismatch.message, sizeof mismatch.message, "%s", why);
        storage_record_refusal(ctx->srv, cat->name, "read", f->path, "size_mismatch", &mismatch);
        *o = OUT_FAILED;
        return 0;
    }
    /* The ranged read first: footer_size + 8 bytes end the object. */
    if (f->has_footer_size && f->footer_size <= f->file_size - 8 && f->file_size >= 8) {
        uint64_t tail = (uint64_t)f->footer_size + 8;
        if (objstore_get(store, f->path, (uint64_t)f->file_size - tail, tail, &b, &e) != 0 &&
            e.status != HL_ERR_INVALID_ARGUMENT) {
            buf_free(&b);
            if (e.status == HL_ERR_NOMEM)
                return -1;
            *o = storage_outcome(ctx, cat, f, &e);
            return 0;
        }
        if (b.len == tail && pq_parse_footer_tail(b.data, b.len, a, &h->meta, &flen, &pe) == 0) {
            buf_free(&b);
            *o = OUT_PROVIDED;
            return 0;
        }
        buf_free(&b);
        if (pe.code == ERR_NOMEM)
            return -1;
    }
    /* footer_size absent or wrong: the whole object, bounded. */
    if (size > HYDRATE_MAX_WHOLE_OBJECT_BYTES) {
        log_warn("hydrator: file %lld (%s): %llu bytes, more than a whole-object read may take",
                 (long long)f->id, f->path, (unsigned long long)size);
        *o = OUT_FAILED;
        return 0;
    }
    /* Never more than the size checked above, should the object grow. */
    if (objstore_get(store, f->path, 0, size ? size : UINT64_MAX, &b, &e) != 0) {
        buf_free(&b);
        if (e.status == HL_ERR_NOMEM)
            return -1;
        *o = storage_outcome(ctx, cat, f, &e);
        return 0;
    }
    struct pq_source src;
    pq_source_memory(&src, b.data, b.len);
    int rc = pq_read_footer(&src, a, &h->meta, &flen, &pe);
    buf_free(&b);
    if (rc != 0 && pe.code == ERR_NOMEM)
        return -1;
    if (rc != 0)
        log_warn("hydrator: file %lld (%s): unreadable footer: %s", (long long)f->id, f->path,
                 pe.msg);
    *o = rc == 0 ? OUT_PROVIDED : OUT_FAILED;
    return 0;
}

/* The table definition a pass computes statistics against, kept while
 * the next files' snapshots fall in the span it is known to hold
 * (store_table_definition_until): files come in data_file_id order, so a
 * pass over a table's files loads its definition once per DDL rather
 * than once per file (four statements each). */
struct table_cache {
    bool loaded;
    int64_t table_id, from, until;
    struct arena arena;
    struct lake_table t;
};

static void table_cache_drop(struct table_cache *c)
{
    if (c->loaded)
        lake_table_release(&c->t);
    c->loaded = false;
    arena_reset(&c->arena);
}

/* The table's definition at the file's begin_snapshot, from the cache or
 * loaded into it. 0, or -1 with err filled. */
static int table_at(struct srv_ctx *ctx, const struct catalog_row *cat, struct table_cache *c,
                    const struct store_pending_file *f, const struct lake_table **out,
                    struct error *err)
{
    if (c->loaded && c->table_id == f->table_id && f->begin_snapshot >= c->from &&
        f->begin_snapshot < c->until) {
        *out = &c->t;
        return 0;
    }
    table_cache_drop(c);
    lake_table_init(&c->t, &c->arena);
    c->loaded = true;
    struct table_ref ref = {.table_id = f->table_id, .name = "", .properties = "{}"};
    if (store_table_load(ctx, cat, &ref, f->begin_snapshot, false, &c->t, err) != 0 ||
        store_table_definition_until(ctx->db, cat->id, f->table_id, f->begin_snapshot, &c->until,
                                     err) != 0) {
        table_cache_drop(c);
        return -1;
    }
    c->table_id = f->table_id;
    c->from = f->begin_snapshot;
    *out = &c->t;
    return 0;
}

/* From the decoded footer to the stats, against the table at the file's
 * begin_snapshot. Returns 0 with *o set, or -1 with err filled. */
static int compute(struct srv_ctx *ctx, const struct catalog_row *cat, struct table_cache *cache,
                   const struct store_pending_file *f, struct arena *a, struct hydrated *h,
                   enum outcome *o, struct error *err)
{
    if (h->meta.num_rows != f->record_count) {
        log_warn("hydrator: file %lld (%s): the footer holds %lld rows, the catalog %lld",
                 (long long)f->id, f->path, (long long)h->meta.num_rows,
                 (long long)f->record_count);
        *o = OUT_FAILED;
        return 0;
    }
    const struct lake_table *t;
    if (table_at(ctx, cat, cache, f, &t, err) != 0)
        return -1;
    struct error pe = {0};
    if (pq_footer_column_stats(&h->meta, NULL, t, a, &h->stats, &h->nstats, &pe) != 0) {
        if (pe.code == ERR_NOMEM)
            return error_nomem(err);
        log_warn("hydrator: file %lld (%s): %s", (long long)f->id, f->path, pe.msg);
        *o = OUT_FAILED;
        return 0;
    }
    h->repaired += file_stats_repair(t, f->record_count, h->stats, h->nstats);
    /* Leaves only: the repeated groups a list or map wraps its elements in
     * carry no id in any writer. */
    for (size_t i = 1; i < h->meta.nschema; i++) {
        const struct pq_schema_element *e = &h->meta.schema[i];
        if (e->num_children == 0 && !e->has_field_id)
            h->missing_field_ids = true;
    }
    if (!f->has_splits && file_stats_splits(&h->meta, a, &h->splits, &h->nsplits) != 0)
        return error_nomem(err);
    *o = OUT_PROVIDED;
    return 0;
}

/* Writes the outcome of a claimed file, in the group's transaction. */
static int settle(struct srv_ctx *ctx, const struct catalog_row *cat,
                  const struct store_pending_file *f, const struct hydrated *h, enum outcome o,
                  struct error *err)
{
    struct store_hydration_outcome out = {
        .file_id = f->id,
        .provided = o == OUT_PROVIDED,
        .missing_field_ids = h->missing_field_ids,
        .stats = h->stats,
        .nstats = h->nstats,
        .splits = h->splits,
        .nsplits = h->nsplits,
    };
    return store_hydration_settle(ctx->db, cat->id, &out, err);
}

/* A group's files are claimed by one statement and share a transaction,
 * and with it one commit (one WAL flush, which was most of a file's time:
 * bench/maintenance/hydrate_bench.sh); the group ends at this many files
 * or this long after it began, whichever comes first, so the claims it
 * holds (row locks a compaction of those files would wait on) stay
 * short. */
enum { HYDRATE_GROUP_FILES = 64 };
#define HYDRATE_GROUP_NS ((int64_t)250 * 1000 * 1000)

/* What a group settled, counted once its transaction commits. */
struct group_counts {
    int provided, failed, transient, repaired;
};

/* One claimed file: fetch, compute, settle. A transient storage error
 * leaves the file as it was (pending; its claim ends with the group). */
static int hydrate_one(struct srv_ctx *ctx, const struct catalog_row *cat, struct objstore *store,
                       struct table_cache *cache, const struct store_pending_file *f,
                       struct group_counts *g, struct error *err)
{
    struct arena a;
    arena_init(&a, 0);
    struct hydrated h = {0};
    enum outcome o = OUT_FAILED;
    int rc = fetch_footer(ctx, cat, store, f, &a, &h, &o) != 0 ? error_nomem(err) : 0;
    if (rc == 0 && o == OUT_PROVIDED)
        rc = compute(ctx, cat, cache, f, &a, &h, &o, err);
    if (rc == 0 && o == OUT_TRANSIENT)
        g->transient++;
    else if (rc == 0 && (rc = settle(ctx, cat, f, &h, o, err)) == 0) {
        *(o == OUT_PROVIDED ? &g->provided : &g->failed) += 1;
        g->repaired += h.repaired;
    }
    arena_free(&a);
    return rc;
}

/* Claims up to `max` files (at most HYDRATE_GROUP_FILES) in one statement
 * and settles them in one transaction, until HYDRATE_GROUP_NS has passed;
 * the files it had no time for go back unclaimed at its commit. *last
 * gets the last settled id, *done how many were settled, *found false
 * once no file is left to claim. On failure the group's settlements roll
 * back (its files stay pending for the next pass). */
static int hydrate_group(struct srv_ctx *ctx, const struct catalog_row *cat, struct objstore *store,
                         struct table_cache *cache, int64_t max, int64_t *last, bool *found,
                         int64_t *done, struct hydrate_result *out, struct error *err)
{
    *done = 0;
    if (db_begin(ctx->db->pg, err) != 0)
        return -1;
    struct store_pending_file files[HYDRATE_GROUP_FILES];
    size_t want = max < HYDRATE_GROUP_FILES ? (size_t)max : HYDRATE_GROUP_FILES, n = 0;
    struct arena paths;
    arena_init(&paths, 0);
    int rc = store_hydration_claim_timeout(ctx->db, err);
    if (rc == 0)
        rc = store_hydration_claim(ctx->db, cat->id, *last, want, &paths, files, &n, err);
    *found = n == want;
    struct group_counts g = {0};
    int64_t began = time_mono_ns();
    size_t i = 0;
    for (; rc == 0 && i < n && (i == 0 || time_mono_ns() - began < HYDRATE_GROUP_NS); i++)
        rc = hydrate_one(ctx, cat, store, cache, &files[i], &g, err);
    if (i < n)
        *found = true;
    if (rc == 0 && i > 0)
        *last = files[i - 1].id;
    arena_free(&paths);
    if (rc != 0 || db_commit(ctx->db->pg, err) != 0) {
        db_rollback(ctx->db->pg);
        return -1;
    }
    *done = (int64_t)i;
    out->hydrated += g.provided;
    out->failed += g.failed;
    out->transient += g.transient;
    struct metrics *m = ctx->srv->metrics;
    if (g.provided)
        metrics_counter_add(m, "hoglake_stats_hydrated_total", "result=\"provided\"", g.provided);
    if (g.failed)
        metrics_counter_add(m, "hoglake_stats_hydrated_total", "result=\"failed\"", g.failed);
    if (g.transient)
        metrics_counter_add(m, "hoglake_hydrator_transient_errors_total", "", g.transient);
    if (g.repaired)
        metrics_counter_add(m, "hoglake_stats_repaired_total", "source=\"hydrator\"", g.repaired);
    return 0;
}

/* The backlog gauges of the catalog, and still_pending. */
static int backlog(struct srv_ctx *ctx, const struct catalog_row *cat, struct hydrate_result *out,
                   struct error *err)
{
    int64_t failed;
    if (store_hydration_backlog(ctx->db->pg, cat->id, &out->still_pending, &failed, err) != 0)
        return -1;
    char name[300], labels[320];
    metrics_label_escape(cat->name, name, sizeof name);
    snprintf(labels, sizeof labels, "catalog=\"%s\"", name);
    metrics_gauge_set(ctx->srv->metrics, "hoglake_stats_pending_files", labels,
                      (double)out->still_pending);
    metrics_gauge_set(ctx->srv->metrics, "hoglake_stats_failed_files", labels, (double)failed);
    return 0;
}

int hydrate_pass(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t max_files,
                 struct hydrate_result *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    struct hl_error e;
    struct objstore *store = storage_view(ctx->srv, cat->data_path, &e);
    if (!store)
        return error_fail(err, ERR_INTERNAL, "hydrator: %s", e.message);
    struct table_cache cache = {.loaded = false};
    arena_init(&cache.arena, 0);
    int64_t last = 0, left = max_files, done;
    bool found = true;
    int rc = 0;
    while (rc == 0 && found && left > 0) {
        rc = hydrate_group(ctx, cat, store, &cache, left, &last, &found, &done, out, err);
        left -= done;
    }
    table_cache_drop(&cache);
    arena_free(&cache.arena);
    objstore_free(store);
    return rc != 0 ? -1 : backlog(ctx, cat, out, err);
}

json_t *hydrate_result_json(const struct hydrate_result *r)
{
    return json_pack("{s:I, s:I, s:I, s:I}", "hydrated", (json_int_t)r->hydrated, "failed",
                     (json_int_t)r->failed, "transient_errors", (json_int_t)r->transient,
                     "still_pending", (json_int_t)r->still_pending);
}

json_t *hydrate_task_backlog(void *ctx, PGconn *pg, int64_t catalog_id)
{
    (void)ctx;
    int64_t pending, failed;
    struct error err;
    if (store_hydration_backlog(pg, catalog_id, &pending, &failed, &err) != 0)
        return NULL;
    return json_pack("{s:I,s:I}", "pending_files", (json_int_t)pending, "failed_files",
                     (json_int_t)failed);
}

int hydrate_requeue_failed(struct srv_ctx *ctx, const struct catalog_row *cat, int64_t table_id,
                           int64_t *requeued, struct error *err)
{
    return store_hydration_requeue_failed(ctx->db, cat->id, table_id, requeued, err);
}
