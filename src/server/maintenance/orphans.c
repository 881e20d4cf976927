#include "server/maintenance/orphans.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "objstore/objstore.h"
#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/maintenance/cleanup.h"
#include "server/maintenance/pass_ctx.h"
#include "server/metrics.h"
#include "server/server.h"
#include "server/storage_guard.h"
#include "server/store/catalogs.h"
#include "server/store/removals.h"
#include "server/store/retention.h"
#include "util/failpoint.h"
#include "util/log.h"
#include "util/timefmt.h"

/* One listed object of the page in hand. */
struct object {
    char *uri;
    uint64_t size;
    int64_t mtime_s;
    bool temp;
    int64_t removal_id; /* once queued */
    char *upload_id;    /* an incomplete multipart upload's, not an object */
};

struct sweep {
    struct server *srv;
    PGconn *pg;
    const struct catalog_row *cat;
    const struct orphans_options *opt;
    int64_t now_s;
    int64_t deadline_ns;
    struct object page[ORPHANS_SUB_BATCH];
    size_t n;
    struct orphans_result *res;
    json_t *paths;
    struct error *err;
    int rc; /* a failure inside the listing's callback */
};

static void page_clear(struct sweep *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->page[i].uri);
        free(s->page[i].upload_id);
    }
    s->n = 0;
}

static int note_path(struct sweep *s, const char *uri)
{
    if (!s->opt->list_paths || json_array_size(s->paths) >= ORPHANS_LISTED_PATHS)
        return 0;
    return json_array_append_new(s->paths, json_string(uri)) == 0 ? 0 : error_nomem(s->err);
}

/* The page's paths, or those of its objects flagged in `which` (NULL:
 * all), as an array literal; NULL without memory. */
static const char *page_paths(struct sweep *s, struct pg_array *a, const bool *which)
{
    pg_array_init(a);
    for (size_t i = 0; i < s->n; i++)
        if (!which || which[i])
            pg_array_str(a, s->page[i].uri);
    return pg_array_text(a);
}

/* Counts the kept objects and flags the orphans old enough to go. */
static int classify(struct sweep *s, bool *orphan, size_t *norphans)
{
    struct pg_array a;
    const char *lit = page_paths(s, &a, NULL);
    if (!lit) {
        pg_array_free(&a);
        return error_nomem(s->err);
    }
    struct store_removals_classes c;
    int rc = store_removals_classify(s->pg, s->cat->id, lit, &c, s->err);
    pg_array_free(&a);
    if (rc != 0)
        return error_prefix(s->err, "orphan classification");
    *norphans = 0;
    memset(orphan, 0, s->n * sizeof *orphan);
    for (size_t i = 0; i < s->n && (int)i < store_removals_classes_count(&c); i++) {
        const struct object *o = &s->page[i];
        switch (store_removals_classes_class(&c, (int)i)) {
        case STORE_ORPHAN_REFERENCED: s->res->referenced++; break;
        case STORE_ORPHAN_CLAIMED: s->res->claimed++; break;
        case STORE_ORPHAN_QUEUED: s->res->queued++; break;
        case STORE_ORPHAN_NONE:
            /* An unknown age is a young one: never delete what we cannot date. */
            if (o->mtime_s <= 0 || s->now_s - o->mtime_s < s->opt->grace_s) {
                s->res->young++;
            } else {
                orphan[i] = true;
                (*norphans)++;
                s->res->orphans++;
                s->res->orphan_bytes += (int64_t)o->size;
                s->res->temp_files += o->temp;
            }
            break;
        }
    }
    store_removals_classes_free(&c);
    return 0;
}

/* A page holds at most ORPHANS_SUB_BATCH objects: a scan per lookup. */
static struct object *find_path(struct sweep *s, const char *uri)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->page[i].uri, uri) == 0)
            return &s->page[i];
    return NULL;
}

/* Queues the flagged orphans under the catalog lock (the statement checks
 * them again); records each queued object's removal id. Those no longer
 * orphans by then are counted referenced. */
static int queue(struct sweep *s, const bool *orphan, size_t norphans, struct pg_array *ids,
                 int64_t *queued)
{
    struct pg_array a;
    const char *lit = page_paths(s, &a, orphan);
    if (!lit) {
        pg_array_free(&a);
        return error_nomem(s->err);
    }
    struct store_removals_claimed q = {0};
    int rc = db_begin(s->pg, s->err);
    if (rc == 0)
        rc = store_retention_lock(s->pg, store_catalog_lock_key(s->cat->id),
                                  s->opt->lock_timeout_ms, s->err);
    if (rc == 0)
        rc = store_removals_queue_orphans(s->pg, s->cat->id, lit, &q, s->err);
    if (rc == 0)
        rc = db_commit(s->pg, s->err);
    else
        db_rollback(s->pg);
    pg_array_free(&a);
    if (rc != 0) {
        store_removals_claimed_free(&q);
        return error_prefix(s->err, "queueing orphans");
    }
    int nq = store_removals_claimed_count(&q);
    s->res->referenced += (int64_t)norphans - nq;
    *queued = nq;
    for (int i = 0; i < nq; i++) {
        struct object *o = find_path(s, store_removals_claimed_path(&q, i));
        if (o) {
            o->removal_id = store_removals_claimed_id(&q, i);
            pg_array_i64(ids, o->removal_id);
        }
    }
    store_removals_claimed_free(&q);
    return 0;
}

static const struct object *find_removal(const struct sweep *s, int64_t id)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->page[i].removal_id == id)
            return &s->page[i];
    return NULL;
}

/* Counts what the drain made of each queued row. */
static int count_outcomes(struct sweep *s, const char *ids_lit)
{
    struct store_removals_outcomes o;
    if (store_removals_outcomes(s->pg, s->cat->id, ids_lit, &o, s->err) != 0)
        return error_prefix(s->err, "orphan outcomes");
    int rc = 0;
    int64_t deleted = 0, bytes = 0;
    for (int i = 0; rc == 0 && i < store_removals_outcomes_count(&o); i++) {
        const struct object *obj = find_removal(s, store_removals_outcomes_id(&o, i));
        const char *outcome = store_removals_outcomes_outcome(&o, i);
        if (!obj)
            continue;
        if (!outcome) {
            s->res->failed++; /* still queued: cleanup retries it */
        } else if (strcmp(outcome, "deleted") == 0) {
            deleted++;
            bytes += (int64_t)obj->size;
            rc = note_path(s, obj->uri);
        } else if (strcmp(outcome, "absent") == 0) {
            s->res->missing++;
        } else if (strcmp(outcome, "registered") == 0) {
            s->res->referenced++;
        } else {
            s->res->refused++;
        }
    }
    store_removals_outcomes_free(&o);
    s->res->deleted += deleted;
    s->res->bytes_deleted += bytes;
    if (deleted > 0) {
        metrics_counter_add(s->srv->metrics, "hoglake_orphans_deleted_total", "", (double)deleted);
        metrics_counter_add(s->srv->metrics, "hoglake_orphan_bytes_deleted_total", "",
                            (double)bytes);
    }
    return rc;
}

/* A slow sweep, so tests can commit between its classification and its
 * queueing, and between its queueing and its drain. */
static void slow_step(void)
{
    if (failpoint_on("orphans-slow-sweep"))
        usleep(2000 * 1000);
}

/* Queues the orphans and drains exactly those rows through cleanup. */
static int remove_orphans(struct sweep *s, const bool *orphan, size_t norphans)
{
    struct pg_array ids;
    pg_array_init(&ids);
    int64_t nq = 0;
    slow_step();
    int rc = queue(s, orphan, norphans, &ids, &nq);
    if (rc == 0)
        slow_step();
    const char *lit = rc == 0 ? pg_array_text(&ids) : NULL;
    if (rc == 0 && !lit)
        rc = error_nomem(s->err);
    if (rc == 0 && nq > 0) {
        struct cleanup_result cr;
        if (cleanup_drain_ids(s->srv, s->pg, s->cat, lit, nq, &cr, s->err) != 0)
            rc = error_prefix(s->err, "draining orphans");
    }
    if (rc == 0 && nq > 0)
        rc = count_outcomes(s, lit);
    pg_array_free(&ids);
    return rc;
}

static int process_page(struct sweep *s)
{
    if (s->n == 0)
        return 0;
    bool orphan[ORPHANS_SUB_BATCH];
    size_t norphans = 0;
    int rc = classify(s, orphan, &norphans);
    if (rc == 0 && norphans > 0) {
        if (s->opt->dry_run) {
            for (size_t i = 0; rc == 0 && i < s->n; i++)
                if (orphan[i])
                    rc = note_path(s, s->page[i].uri);
        } else {
            rc = remove_orphans(s, orphan, norphans);
        }
    }
    page_clear(s);
    return rc;
}

static int on_entry(void *ctx, const struct objstore_entry *e)
{
    struct sweep *s = ctx;
    if (s->res->listed >= s->opt->limit || time_mono_ns() > s->deadline_ns) {
        s->res->truncated = true;
        return 1;
    }
    char *uri = strdup(e->uri);
    if (!uri) {
        s->rc = error_nomem(s->err);
        return 1;
    }
    s->page[s->n++] = (struct object){uri, e->size, e->mtime_s, e->temp, 0, NULL};
    s->res->listed++;
    if (s->n == ORPHANS_SUB_BATCH && process_page(s) != 0) {
        s->rc = -1;
        return 1;
    }
    return 0;
}

/* ---- incomplete multipart uploads (S3) ---- */

/* Aborts the page's orphaned uploads (old, and no row names the object
 * they would create) through the confined view: an abort deletes no
 * object, only the parts nobody will complete. */
static int process_uploads(struct sweep *s, struct objstore *view)
{
    if (s->n == 0)
        return 0;
    /* An upload's class counts apart from the objects'. */
    struct orphans_result *objects = s->res, scratch;
    memset(&scratch, 0, sizeof scratch);
    s->res = &scratch;
    bool orphan[ORPHANS_SUB_BATCH];
    size_t norphans = 0;
    int rc = classify(s, orphan, &norphans);
    s->res = objects;
    s->res->uploads_orphaned += (int64_t)norphans;
    for (size_t i = 0; rc == 0 && !s->opt->dry_run && i < s->n; i++) {
        const struct object *o = &s->page[i];
        struct hl_error e;
        if (!orphan[i]) {
            continue;
        } else if (objstore_abort_upload(view, o->uri, o->upload_id, &e) == 0) {
            s->res->uploads_aborted++;
        } else if (storage_refusal(&e)) {
            storage_record_refusal(s->srv, s->cat->name, "delete", o->uri, NULL, &e);
            s->res->refused++;
        } else {
            log_warn("orphans: catalog '%s': aborting the upload of %s: %s", s->cat->name, o->uri,
                     e.message);
            s->res->failed++;
        }
    }
    page_clear(s);
    return rc;
}

struct upload_walk {
    struct sweep *s;
    struct objstore *view;
};

static int on_upload(void *ctx, const struct objstore_upload *u)
{
    struct upload_walk *w = ctx;
    struct sweep *s = w->s;
    if (s->res->uploads_listed >= s->opt->limit || time_mono_ns() > s->deadline_ns) {
        s->res->truncated = true;
        return 1;
    }
    char *uri = strdup(u->uri), *id = strdup(u->upload_id);
    if (!uri || !id) {
        free(uri);
        free(id);
        s->rc = error_nomem(s->err);
        return 1;
    }
    s->page[s->n++] = (struct object){uri, 0, u->initiated_s, false, 0, id};
    s->res->uploads_listed++;
    if (s->n == ORPHANS_SUB_BATCH && process_uploads(s, w->view) != 0) {
        s->rc = -1;
        return 1;
    }
    return 0;
}

/* Lists the incomplete multipart uploads under prefix (S3 only; file://
 * lists none) and aborts the orphaned ones. */
static int sweep_uploads(struct sweep *s, const char *prefix)
{
    struct hl_error e;
    struct upload_walk w = {s, storage_view(s->srv, s->cat->data_path, &e)};
    if (!w.view)
        return error_fail(s->err, ERR_INTERNAL, "orphans: %s", e.message);
    int rc = 0;
    if (objstore_list_uploads(s->srv->objstore, prefix, on_upload, &w, &e) != 0)
        rc = error_fail(s->err, e.retryable ? ERR_UNAVAILABLE : ERR_IO,
                        "listing the multipart uploads of catalog '%s': %s", s->cat->name,
                        e.message);
    else if (s->rc != 0)
        rc = -1;
    else
        rc = process_uploads(s, w.view);
    objstore_free(w.view);
    return rc;
}

int orphans_sweep(struct server *srv, PGconn *pg, const struct catalog_row *cat,
                  const struct orphans_options *opt, struct orphans_result *out, json_t **paths,
                  struct error *err)
{
    memset(out, 0, sizeof *out);
    *paths = json_array();
    struct sweep *s = calloc(1, sizeof *s);
    if (!*paths || !s) {
        free(s);
        return error_nomem(err);
    }
    *s = (struct sweep){.srv = srv,
                        .pg = pg,
                        .cat = cat,
                        .opt = opt,
                        .now_s = (int64_t)time(NULL),
                        .deadline_ns = time_mono_ns() + opt->budget_ms * 1000000,
                        .res = out,
                        .paths = *paths,
                        .err = err};
    /* Only what lies beneath the data path: "<data_path>/", so a sibling
     * catalog whose path merely starts the same is never listed. */
    size_t dl = strlen(cat->data_path);
    char *prefix = malloc(dl + 2);
    int rc = prefix ? 0 : error_nomem(err);
    if (rc == 0) {
        snprintf(prefix, dl + 2, "%s%s", cat->data_path,
                 dl && cat->data_path[dl - 1] == '/' ? "" : "/");
        struct hl_error e;
        if (objstore_list_entries(srv->objstore, prefix,
                                  OBJSTORE_LIST_TEMP | OBJSTORE_LIST_NO_LINKS, on_entry, s,
                                  &e) != 0)
            rc = error_fail(err, e.retryable ? ERR_UNAVAILABLE : ERR_IO,
                            "listing the storage of catalog '%s': %s", cat->name, e.message);
        else if (s->rc != 0)
            rc = -1;
        else
            rc = process_page(s);
    }
    if (rc == 0 && !out->truncated)
        rc = sweep_uploads(s, prefix);
    page_clear(s);
    free(prefix);
    free(s);
    return rc;
}

json_t *orphans_result_json(const struct orphans_result *r, const struct orphans_options *opt,
                            json_t *paths)
{
    json_t *o = json_pack(
        "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:b,s:I}", "listed",
        (json_int_t)r->listed, "deleted", (json_int_t)r->deleted, "referenced",
        (json_int_t)r->referenced, "claimed", (json_int_t)r->claimed, "queued",
        (json_int_t)r->queued, "young", (json_int_t)r->young, "orphans", (json_int_t)r->orphans,
        "orphan_bytes", (json_int_t)r->orphan_bytes, "temp_files", (json_int_t)r->temp_files,
        "bytes_deleted", (json_int_t)r->bytes_deleted, "missing", (json_int_t)r->missing, "refused",
        (json_int_t)r->refused, "failed", (json_int_t)r->failed, "uploads_listed",
        (json_int_t)r->uploads_listed, "uploads_orphaned", (json_int_t)r->uploads_orphaned,
        "uploads_aborted", (json_int_t)r->uploads_aborted, "truncated", r->truncated, "dry_run",
        opt->dry_run, "grace_seconds", (json_int_t)opt->grace_s);
    json_t *list = paths ? paths : json_array();
    if (o && (!list || json_object_set(o, "paths", list) != 0)) {
        json_decref(o);
        o = NULL;
    }
    json_decref(list);
    return o;
}

int orphans_task_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err)
{
    const struct orphans_task *t = ctx;
    *result = NULL;
    struct pass_ctx pc;
    int rc = pass_ctx_open(&pc, t->srv, pg, catalog_id, err);
    if (rc == 1) {
        struct orphans_result res;
        json_t *paths = NULL;
        rc = orphans_sweep(t->srv, pg, &pc.cat, &t->opt, &res, &paths, err);
        if (!(*result = orphans_result_json(&res, &t->opt, paths)) && rc == 0)
            rc = error_nomem(err);
        if (rc != 0)
            log_warn("orphans: catalog '%s': %s", pc.cat.name, err->msg);
    } else if (rc == 0 && !(*result = json_object())) { /* gone since the sweep listed it */
        rc = error_nomem(err);
    }
    pass_ctx_close(&pc);
    return rc;
}
