#include "server/maintenance/reap.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objstore/objstore.h"
#include "server/auth/audit.h"
#include "server/catalog/catalog.h"
#include "server/db/pgarray.h"
#include "server/metrics.h"
#include "server/server.h"
#include "server/storage_guard.h"
#include "server/store/removals.h"
#include "util/log.h"
#include "util/strutil.h"

int reaper_open(struct reaper *r, struct server *srv, const struct catalog_row *cat,
                const char *id_name, struct error *err)
{
    *r = (struct reaper){
        .srv = srv, .catalog_id = cat->id, .catalog_name = cat->name, .id_name = id_name};
    struct hl_error e;
    if (!(r->store = storage_view(srv, cat->data_path, &e)))
        return error_fail(err, ERR_INTERNAL, "storage of catalog %s: %s", cat->name, e.message);
    return 0;
}

void reaper_close(struct reaper *r)
{
    objstore_free(r->store);
    r->store = NULL;
}

const char *reap_outcome_name(enum reap_outcome o)
{
    static const char *const names[] = {"deleted", "absent", "registered", "refused", NULL};
    return names[o];
}

/* Marks the items whose path is `path`. */
static void mark_path(const struct reaper *r, struct reap_item *items, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++) {
        if (items[i].outcome == REAP_REFERENCED || strcmp(items[i].path, path) != 0)
            continue;
        items[i].outcome = REAP_REFERENCED;
        log_warn("catalog %s: %s %lld names %s, still referenced; not deleted", r->catalog_name,
                 r->id_name, (long long)items[i].id, path);
        json_t *detail = json_pack("{s:I,s:s}", r->id_name, (json_int_t)items[i].id, "detail",
                                   "the path is still referenced; not deleted");
        struct audit_event ev = {.action = "cleanup_violation",
                                 .outcome = "ok",
                                 .catalog = r->catalog_name,
                                 .object = path,
                                 .detail = detail};
        audit_emit(r->srv->audit, &ev);
        json_decref(detail);
    }
}

int reap_mark_referenced(const struct reaper *r, PGconn *pg, int64_t except_table_id,
                         struct reap_item *items, size_t n, struct error *err)
{
    struct pg_array paths;
    pg_array_init(&paths);
    for (size_t i = 0; i < n; i++)
        pg_array_str(&paths, items[i].path);
    const char *lit = pg_array_text(&paths);
    if (!lit) {
        pg_array_free(&paths);
        return error_nomem(err);
    }
    struct store_removals_paths refs;
    int rc = store_removals_referenced(pg, r->catalog_id, except_table_id, lit, &refs, err);
    pg_array_free(&paths);
    if (rc != 0)
        return error_prefix(err, "reference check");
    /* Violations are rare: a scan of the batch per referenced path. */
    for (int row = 0; row < store_removals_paths_count(&refs); row++)
        mark_path(r, items, n, store_removals_paths_path(&refs, row));
    store_removals_paths_free(&refs);
    return 0;
}

static void delete_one(const struct reaper *r, struct reap_item *it)
{
    size_t gone = 0;
    struct hl_error e;
    const char *uri = it->path;
    if (objstore_delete(r->store, &uri, 1, &gone, &e) != 0) {
        if (storage_refusal(&e)) {
            storage_record_refusal(r->srv, r->catalog_name, "delete", it->path, NULL, &e);
            it->outcome = REAP_REFUSED;
            return;
        }
        log_warn("catalog %s: cannot delete %s: %s", r->catalog_name, it->path, e.message);
        it->outcome = REAP_FAILED;
        return;
    }
    it->outcome = gone ? REAP_DELETED : REAP_ABSENT;
}

/* file:// unlinks of objects with blocks on disk spend their time waiting
 * on the filesystem journal, not the CPU, so they run on a few threads
 * (measured on ext4: 1 thread ~1,100/s, 8 threads ~13,000/s). */
enum { REAP_FILE_THREADS = 8, REAP_FILES_PER_THREAD = 64 };

struct file_share {
    const struct reaper *r;
    struct reap_item **items;
    size_t n, first, step;
};

static void *delete_share(void *arg)
{
    struct file_share *sh = arg;
    for (size_t i = sh->first; i < sh->n; i += sh->step)
        delete_one(sh->r, sh->items[i]);
    return NULL;
}

static void delete_files(const struct reaper *r, struct reap_item **items, size_t n)
{
    size_t nthreads = n / REAP_FILES_PER_THREAD + 1;
    if (nthreads > REAP_FILE_THREADS)
        nthreads = REAP_FILE_THREADS;
    pthread_t th[REAP_FILE_THREADS];
    struct file_share sh[REAP_FILE_THREADS];
    size_t started = 0;
    for (size_t t = 0; t < nthreads; t++) {
        sh[t] = (struct file_share){.r = r, .items = items, .n = n, .first = t, .step = nthreads};
        /* Share 0 runs on this thread; a thread that cannot start leaves
         * its share to this thread too. */
        if (t > 0 && pthread_create(&th[started], NULL, delete_share, &sh[t]) == 0)
            started++;
        else if (t > 0)
            delete_share(&sh[t]);
    }
    delete_share(&sh[0]);
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
}

int reap_objects(const struct reaper *r, struct reap_item *items, size_t n, struct error *err)
{
    const char **batch = calloc(n ? n : 1, sizeof *batch);
    size_t *which = calloc(n ? n : 1, sizeof *which);
    struct reap_item **files = calloc(n ? n : 1, sizeof *files);
    if (!batch || !which || !files) {
        free(batch);
        free(which);
        free(files);
        return error_nomem(err);
    }
    size_t m = 0, nfiles = 0;
    for (size_t i = 0; i < n; i++) {
        if (items[i].outcome == REAP_REFERENCED)
            continue;
        if (str_starts_with(items[i].path, "file://")) {
            files[nfiles++] = &items[i];
        } else {
            batch[m] = items[i].path;
            which[m++] = i;
        }
    }
    delete_files(r, files, nfiles);
    if (m > 0) {
        size_t gone = 0;
        struct hl_error e;
        int rc = objstore_delete(r->store, batch, m, &gone, &e);
        if (rc != 0 && (e.status == HL_ERR_INVALID_ARGUMENT || storage_refusal(&e))) {
            /* One bad or refused URI refuses the whole call (nothing is
             * deleted): one by one, so the others are not held back. */
            for (size_t k = 0; k < m; k++)
                delete_one(r, &items[which[k]]);
        } else {
            if (rc != 0)
                log_warn("catalog %s: deleting %zu objects failed: %s", r->catalog_name, m,
                         e.message);
            /* S3 answers a missing key as deleted: all count as removed. */
            for (size_t k = 0; k < m; k++)
                items[which[k]].outcome = rc == 0 ? REAP_DELETED : REAP_FAILED;
        }
    }
    free(batch);
    free(which);
    free(files);
    return 0;
}

/* What results and the metric's label call each outcome. */
static const char *const result_names[REAP_OUTCOMES] = {"removed", "missing", "still_referenced",
                                                        "refused", "failed"};

void reap_count(const struct reaper *r, const struct reap_item *items, size_t n,
                int64_t counts[REAP_OUTCOMES])
{
    int64_t c[REAP_OUTCOMES] = {0};
    for (size_t i = 0; i < n; i++)
        c[items[i].outcome]++;
    for (int k = 0; k < REAP_OUTCOMES; k++) {
        counts[k] += c[k];
        char label[48];
        snprintf(label, sizeof label, "result=\"%s\"", result_names[k]);
        if (c[k])
            metrics_counter_add(r->srv->metrics, "hoglake_files_removed_total", label,
                                (double)c[k]);
    }
}

int reap_counts_json(json_t *o, const int64_t counts[REAP_OUTCOMES])
{
    for (int k = 0; k < REAP_OUTCOMES; k++)
        if (json_object_set_new(o, result_names[k], json_integer(counts[k])) != 0)
            return -1;
    return 0;
}
