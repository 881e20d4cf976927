/* The hydrator's pass and requeue (hydrate.h). */
#include "server/maintenance/hydrate.h"

#include <stdio.h>
#include <string.h>

#include "objstore/objstore.h"
#include "parquet/colstats.h"
#include "parquet/reader.h"
#include "server/catalog/table_store.h"
#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/maintenance/file_stats.h"
#include "server/maintenance/maintenance.h"
#include "server/metrics.h"
#include "server/server.h"
#include "server/storage_guard.h"
#include "util/failpoint.h"
#include "util/log.h"

/* How long a claimed file's transaction may sit idle during its fetch. */
#define HYDRATE_CLAIM_TIMEOUT "15min"

/* The claimed file. */
struct pending_file {
    int64_t id, table_id, begin_snapshot, record_count, file_size;
    bool has_footer_size, has_splits;
    int64_t footer_size;
    char *path; /* arena */
};

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

static void rollback(struct srv_req *req)
{
    struct api_error ignored = {0};
    req_exec(req, "ROLLBACK", NULL, "rollback", &ignored);
    json_decref(ignored.extra);
}

/* Claims the next pending live file after `after` that nobody else holds;
 * *found false when none. Runs inside the file's transaction. NO KEY
 * UPDATE: hydrators exclude each other, while a commit adding a deletion
 * vector for the file (whose foreign key check takes KEY SHARE) does not
 * wait for the fetch. */
static int claim_next(struct srv_req *req, const struct catalog_row *cat, int64_t after,
                      struct pending_file *f, bool *found, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, after);
    PGresult *r = req_query(req,
                            "SELECT d.data_file_id, d.table_id, d.begin_snapshot, d.record_count,"
                            " d.file_size_bytes, d.footer_size, d.split_offsets IS NOT NULL, d.path"
                            " FROM hog_data_file d JOIN hog_table t"
                            "  ON t.catalog_id = d.catalog_id AND t.table_id = d.table_id"
                            " WHERE d.catalog_id = $1 AND d.stats_state = 'pending'"
                            " AND d.end_snapshot IS NULL AND t.dropped_snapshot IS NULL"
                            " AND d.data_file_id > $2 ORDER BY d.data_file_id LIMIT 1"
                            " FOR NO KEY UPDATE OF d SKIP LOCKED",
                            &p, "hydrator claim", err);
    if (!r)
        return -1;
    *found = PQntuples(r) == 1;
    if (*found) {
        f->id = db_i64(r, 0, 0);
        f->table_id = db_i64(r, 0, 1);
        f->begin_snapshot = db_i64(r, 0, 2);
        f->record_count = db_i64(r, 0, 3);
        f->file_size = db_i64(r, 0, 4);
        f->has_footer_size = !db_isnull(r, 0, 5);
        f->footer_size = f->has_footer_size ? db_i64(r, 0, 5) : 0;
        f->has_splits = db_bool(r, 0, 6);
        const char *path = db_str(r, 0, 7);
        size_t len = strlen(path);
        f->path = arena_alloc(&req->arena, len + 1);
        if (f->path)
            memcpy(f->path, path, len + 1);
    }
    PQclear(r);
    if (*found && !f->path)
        return api_nomem(err);
    return 0;
}

/* A storage failure's outcome: a vanished object or a path the store
 * refuses will not come right by waiting (a rehydrate requeues the file
 * once fixed); anything else may. A confinement refusal is recorded. */
static enum outcome storage_outcome(struct srv_req *req, const struct catalog_row *cat,
                                    const struct pending_file *f, const struct hl_error *e)
{
    if (storage_refusal(e)) {
        storage_record_refusal(req->srv, cat->name, "read", f->path, NULL, e);
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
static int fetch_footer(struct srv_req *req, const struct catalog_row *cat, struct objstore *store,
                        const struct pending_file *f, struct arena *a, struct hydrated *h,
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
        *o = storage_outcome(req, cat, f, &e);
        return 0;
    }
    if (objstore_head(store, f->path, &size, &e) != 0) {
        if (e.status == HL_ERR_NOMEM)
            return -1;
        *o = storage_outcome(req, cat, f, &e);
        return 0;
    }
    if (size != (uint64_t)f->file_size) {
        char why[128];
        snprintf(why, sizeof why, "the object holds %llu bytes, the catalog says %lld",
                 (unsigned long long)size, (long long)f->file_size);
        struct hl_error mismatch = {.status = HL_ERR_FORBIDDEN};
        snprintf(mismatch.message, sizeof mismatch.message, "%s", why);
        storage_record_refusal(req->srv, cat->name, "read", f->path, "size_mismatch", &mismatch);
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
            *o = storage_outcome(req, cat, f, &e);
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
        *o = storage_outcome(req, cat, f, &e);
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

/* From the decoded footer to the stats, against the table at the file's
 * begin_snapshot. Returns 0 with *o set, or -1 with err filled. */
static int compute(struct srv_req *req, const struct catalog_row *cat, const struct pending_file *f,
                   struct arena *a, struct hydrated *h, enum outcome *o, struct api_error *err)
{
    if (h->meta.num_rows != f->record_count) {
        log_warn("hydrator: file %lld (%s): the footer holds %lld rows, the catalog %lld",
                 (long long)f->id, f->path, (long long)h->meta.num_rows,
                 (long long)f->record_count);
        *o = OUT_FAILED;
        return 0;
    }
    struct table_ref ref = {.table_id = f->table_id, .name = "", .properties = "{}"};
    struct lake_table t;
    lake_table_init(&t, a);
    int rc = table_load(req, cat, &ref, f->begin_snapshot, false, &t, err);
    struct error pe = {0};
    if (rc == 0 && pq_footer_column_stats(&h->meta, NULL, &t, a, &h->stats, &h->nstats, &pe) != 0) {
        if (pe.code == ERR_NOMEM)
            rc = api_nomem(err);
        else {
            log_warn("hydrator: file %lld (%s): %s", (long long)f->id, f->path, pe.msg);
            *o = OUT_FAILED;
            lake_table_release(&t);
            return 0;
        }
    }
    if (rc == 0) {
        h->repaired += file_stats_repair(&t, f->record_count, h->stats, h->nstats);
        /* Leaves only: the repeated groups a list or map wraps its
         * elements in carry no id in any writer. */
        for (size_t i = 1; i < h->meta.nschema; i++) {
            const struct pq_schema_element *e = &h->meta.schema[i];
            if (e->num_children == 0 && !e->has_field_id)
                h->missing_field_ids = true;
        }
        if (!f->has_splits && file_stats_splits(&h->meta, a, &h->splits, &h->nsplits) != 0)
            rc = api_nomem(err);
    }
    lake_table_release(&t);
    if (rc == 0)
        *o = OUT_PROVIDED;
    return rc;
}

/* Writes the outcome of a claimed file and commits. */
static int settle(struct srv_req *req, const struct catalog_row *cat, const struct pending_file *f,
                  const struct hydrated *h, enum outcome o, struct api_error *err)
{
    /* A pending file has no stats rows; a stray one would make the insert
     * fail, so none is assumed away. */
    if (o == OUT_PROVIDED && file_stats_insert(req, cat->id, f->id, h->stats, h->nstats, err) != 0)
        return -1;
    struct pg_array splits;
    pg_array_init(&splits);
    pg_array_i64_list(&splits, h->splits, h->nsplits);
    const char *splits_text = pg_array_text(&splits);
    if (!splits_text) {
        pg_array_free(&splits);
        return api_nomem(err);
    }
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, f->id);
    db_param_str(&p, o == OUT_PROVIDED ? "provided" : "failed");
    db_param_bool(&p, o == OUT_PROVIDED && h->missing_field_ids);
    db_param_str(&p, splits_text);
    int rc = req_exec(req,
                      "UPDATE hog_data_file SET stats_state = $3, missing_field_ids = $4,"
                      " split_offsets = coalesce(split_offsets, ($5::text[])[1]::bigint[])"
                      " WHERE catalog_id = $1 AND data_file_id = $2",
                      &p, "hydrator settle", err);
    pg_array_free(&splits);
    if (rc == 0)
        rc = req_exec(req, "COMMIT", NULL, "hydrator commit", err);
    return rc;
}

/* One file: claim, fetch, compute, settle. *found false when nothing was
 * left to claim; *last gets the claimed id. */
static int hydrate_one(struct srv_req *req, const struct catalog_row *cat, struct objstore *store,
                       int64_t *last, bool *found, struct hydrate_result *out,
                       struct api_error *err)
{
    struct pending_file f = {0};
    /* The claim is a row lock held across the object read, which may
     * outlast the pool's idle-in-transaction limit (a whole-object read
     * with retries); a crashed server's claim still ends with its session. */
    if (req_exec(req, "BEGIN", NULL, "hydrator begin", err) != 0)
        return -1;
    if (req_exec(req, "SET LOCAL idle_in_transaction_session_timeout = '" HYDRATE_CLAIM_TIMEOUT "'",
                 NULL, "hydrator claim timeout", err) != 0) {
        rollback(req);
        return -1;
    }
    if (claim_next(req, cat, *last, &f, found, err) != 0 || !*found) {
        rollback(req);
        return *found ? -1 : 0;
    }
    *last = f.id;
    struct arena a;
    arena_init(&a, 0);
    struct hydrated h = {0};
    enum outcome o;
    int rc = fetch_footer(req, cat, store, &f, &a, &h, &o) != 0 ? api_nomem(err) : 0;
    if (rc == 0 && o == OUT_PROVIDED)
        rc = compute(req, cat, &f, &a, &h, &o, err);
    if (rc == 0 && o == OUT_TRANSIENT) {
        rollback(req); /* the file stays pending, unclaimed */
        out->transient++;
        metrics_counter_add(req->srv->metrics, "hoglake_hydrator_transient_errors_total", "", 1);
    } else if (rc == 0 && settle(req, cat, &f, &h, o, err) == 0) {
        const char *result = o == OUT_PROVIDED ? "provided" : "failed";
        char labels[64];
        snprintf(labels, sizeof labels, "result=\"%s\"", result);
        metrics_counter_add(req->srv->metrics, "hoglake_stats_hydrated_total", labels, 1);
        if (h.repaired)
            metrics_counter_add(req->srv->metrics, "hoglake_stats_repaired_total",
                                "source=\"hydrator\"", h.repaired);
        *(o == OUT_PROVIDED ? &out->hydrated : &out->failed) += 1;
    } else {
        rollback(req);
        rc = -1;
    }
    arena_free(&a);
    return rc;
}

/* Pending and failed live files of live tables in catalog $1. */
#define BACKLOG_SQL                                                                                \
    "SELECT count(*) FILTER (WHERE d.stats_state = 'pending'),"                                    \
    " count(*) FILTER (WHERE d.stats_state = 'failed')"                                            \
    " FROM hog_data_file d JOIN hog_table t"                                                       \
    "  ON t.catalog_id = d.catalog_id AND t.table_id = d.table_id"                                 \
    " WHERE d.catalog_id = $1 AND d.stats_state <> 'provided'"                                     \
    " AND d.end_snapshot IS NULL AND t.dropped_snapshot IS NULL"

/* The backlog gauges of the catalog, and still_pending. */
static int backlog(struct srv_req *req, const struct catalog_row *cat, struct hydrate_result *out,
                   struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    PGresult *r = req_query(req, BACKLOG_SQL, &p, "hydrator backlog", err);
    if (!r)
        return -1;
    out->still_pending = db_i64(r, 0, 0);
    int64_t failed = db_i64(r, 0, 1);
    PQclear(r);
    char name[300], labels[320];
    metrics_label_escape(cat->name, name, sizeof name);
    snprintf(labels, sizeof labels, "catalog=\"%s\"", name);
    metrics_gauge_set(req->srv->metrics, "hoglake_stats_pending_files", labels,
                      (double)out->still_pending);
    metrics_gauge_set(req->srv->metrics, "hoglake_stats_failed_files", labels, (double)failed);
    return 0;
}

int hydrate_pass(struct srv_req *req, const struct catalog_row *cat, int64_t max_files,
                 struct hydrate_result *out, struct api_error *err)
{
    memset(out, 0, sizeof *out);
    if (!req_db(req, err))
        return -1;
    struct hl_error e;
    struct objstore *store = storage_view(req->srv, cat->data_path, &e);
    if (!store)
        return api_fail(err, 500, "internal_error", "hydrator: %s", e.message);
    int64_t last = 0;
    bool found = true;
    int rc = 0;
    for (int64_t i = 0; i < max_files && found && rc == 0; i++)
        rc = hydrate_one(req, cat, store, &last, &found, out, err);
    objstore_free(store);
    return rc != 0 ? -1 : backlog(req, cat, out, err);
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
    PGresult *r = maint_read(pg, BACKLOG_SQL, catalog_id);
    if (!r)
        return NULL;
    json_t *o = json_pack("{s:I,s:I}", "pending_files", (json_int_t)db_i64(r, 0, 0), "failed_files",
                          (json_int_t)db_i64(r, 0, 1));
    PQclear(r);
    return o;
}

int hydrate_requeue_failed(struct srv_req *req, const struct catalog_row *cat, int64_t table_id,
                           int64_t *requeued, struct api_error *err)
{
    struct db_params p;
    db_params_init(&p);
    db_param_i64(&p, cat->id);
    db_param_i64(&p, table_id);
    PGresult *r = req_query(req,
                            "WITH u AS (UPDATE hog_data_file SET stats_state = 'pending'"
                            " WHERE catalog_id = $1 AND stats_state = 'failed'"
                            " AND end_snapshot IS NULL AND ($2 = 0 OR table_id = $2) RETURNING 1)"
                            " SELECT count(*) FROM u",
                            &p, "rehydrate", err);
    if (!r)
        return -1;
    *requeued = db_i64(r, 0, 0);
    PQclear(r);
    return 0;
}
