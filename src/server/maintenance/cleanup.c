#include "server/maintenance/cleanup.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/db/db.h"
#include "server/db/pgarray.h"
#include "server/maintenance/maintenance.h"
#include "server/maintenance/pass_ctx.h"
#include "server/maintenance/reap.h"
#include "server/metrics.h"
#include "server/server.h"
#include "server/store/maintenance_runs.h"
#include "server/store/removals.h"
#include "server/store/retention.h"
#include "server/store/uploads.h"
#include "util/log.h"
#include "util/random.h"
#include "util/strutil.h"

struct pass {
    struct reaper reaper; /* deletes through the catalog's confined store */
    PGconn *pg;
    int64_t catalog_id;
    const char *only_ids; /* a bigint[] literal: drain only these rows; NULL: any */
    char token[96];       /* claimed_by: this pass only */
    struct cleanup_result *res;
    struct error *err;
};

/* A claim token unique to this pass, so settling is fenced on exactly the
 * rows this pass leased. */
static int make_token(struct pass *p)
{
    unsigned char rnd[8];
    if (random_bytes(rnd, sizeof rnd) != 0)
        return error_fail(p->err, ERR_INTERNAL, "no randomness for a claim token");
    char host[48] = "";
    if (gethostname(host, sizeof host) != 0)
        str_copy(host, sizeof host, "host");
    host[sizeof host - 1] = '\0';
    int n = snprintf(p->token, sizeof p->token, "%s:%ld:", host, (long)getpid());
    for (size_t i = 0; i < sizeof rnd; i++)
        n += snprintf(p->token + n, sizeof p->token - (size_t)n, "%02x", rnd[i]);
    return 0;
}

static int claim(struct pass *p, int64_t limit, struct store_removals_claimed *out)
{
    if (store_removals_claim(p->pg, p->catalog_id, p->token, limit, CLEANUP_CLAIM_LEASE_SECONDS,
                             CLEANUP_STAGING_GRACE_SECONDS, p->only_ids, out, p->err) != 0)
        return error_prefix(p->err, "cleanup claim");
    return 0;
}

/* Drains the items whose outcome is `want` (REAP_FAILED: releases their
 * claims); *unheld gets how many of them it no longer held (settled
 * elsewhere). Nothing to do without such items. */
static int settle_outcome(struct pass *p, const struct reap_item *items, size_t n,
                          enum reap_outcome want, int64_t *unheld)
{
    *unheld = 0;
    struct pg_array ids;
    pg_array_init(&ids);
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (items[i].outcome == want) {
            pg_array_i64(&ids, items[i].id);
            count++;
        }
    const char *lit = pg_array_text(&ids);
    const char *outcome = reap_outcome_name(want);
    int rc = 0;
    if (!lit) {
        rc = error_nomem(p->err);
    } else if (count > 0) {
        int64_t held;
        if ((outcome
                 ? store_removals_settle(p->pg, p->catalog_id, lit, outcome, p->token, &held,
                                         p->err)
                 : store_removals_release(p->pg, p->catalog_id, lit, p->token, &held, p->err)) != 0)
            rc = error_prefix(p->err, "cleanup settle");
        else
            *unheld = (int64_t)count - held;
    }
    pg_array_free(&ids);
    return rc;
}

/* Drains the settled items and releases the failed ones, both fenced on
 * this pass's claim: a row it no longer holds was settled elsewhere. */
static int settle(struct pass *p, const struct reap_item *items, size_t n)
{
    static const enum reap_outcome drained[] = {REAP_DELETED, REAP_ABSENT, REAP_REFERENCED,
                                                REAP_REFUSED};
    for (size_t k = 0; k < sizeof drained / sizeof drained[0]; k++) {
        int64_t unheld;
        if (settle_outcome(p, items, n, drained[k], &unheld) != 0)
            return -1;
        p->res->settled_elsewhere += unheld;
    }
    int64_t unheld;
    return settle_outcome(p, items, n, REAP_FAILED, &unheld);
}

/* One claimed sub-batch: the claim's result owns the paths. */
struct round {
    struct store_removals_claimed claim;
    struct reap_item *items;
    size_t n;
};

static void round_free(struct round *rd)
{
    free(rd->items);
    store_removals_claimed_free(&rd->claim);
    *rd = (struct round){0};
}

/* CLAIM: leases up to `limit` rows into rd (rd->n 0: none claimable). */
static int round_claim(struct pass *p, int64_t limit, struct round *rd)
{
    *rd = (struct round){0};
    struct store_removals_claimed c;
    if (claim(p, limit, &c) != 0)
        return -1;
    size_t n = (size_t)store_removals_claimed_count(&c);
    struct reap_item *items = calloc(n ? n : 1, sizeof *items);
    if (!items) {
        store_removals_claimed_free(&c);
        return error_nomem(p->err);
    }
    for (size_t i = 0; i < n; i++) {
        items[i].id = store_removals_claimed_id(&c, (int)i);
        items[i].path = store_removals_claimed_path(&c, (int)i);
        items[i].outcome = REAP_FAILED;
    }
    *rd = (struct round){c, items, n};
    return 0;
}

/* WORK's deletes on a thread of their own, so that meanwhile the pass's
 * connection settles the previous round and claims the next one: the
 * database round trips hide behind the storage's. */
struct deleter {
    struct pass pass; /* the pass's, with its own error */
    struct error err;
    struct round *rd;
    int rc;
    pthread_t thread;
    bool started;
};

static void *deleter_main(void *arg)
{
    struct deleter *d = arg;
    d->rc = reap_objects(&d->pass.reaper, d->rd->items, d->rd->n, d->pass.err);
    return NULL;
}

static void deleter_start(struct deleter *d, const struct pass *p, struct round *rd)
{
    *d = (struct deleter){.pass = *p, .rd = rd};
    d->pass.err = &d->err;
    d->started = pthread_create(&d->thread, NULL, deleter_main, d) == 0;
    if (!d->started) /* no thread: the deletes run here, unoverlapped */
        deleter_main(d);
}

/* Waits for the deletes; their failure becomes the pass's error unless
 * the pass already failed (main_failed) for its own reason. */
static int deleter_finish(struct deleter *d, struct pass *p, bool main_failed)
{
    if (d->started)
        pthread_join(d->thread, NULL);
    if (d->rc == 0)
        return 0;
    if (!main_failed)
        *p->err = d->err;
    return -1;
}

/* COUNT and SETTLE a worked round, then free it. */
static int round_settle(struct pass *p, struct round *rd)
{
    int rc = 0;
    if (rd->n > 0) {
        reap_count(&p->reaper, rd->items, rd->n, p->res->objects);
        rc = settle(p, rd->items, rd->n);
    }
    round_free(rd);
    return rc;
}

/* Claims, works and settles sub-batches until `batch` rows were claimed or
 * a claim comes back short. Round k's deletes overlap round k-1's settle
 * and round k+1's claim; the reference check of a round always runs after
 * its claim and before its deletes. */
static int drain(struct pass *p, int64_t batch)
{
    int64_t want = batch < CLEANUP_SUB_BATCH ? batch : CLEANUP_SUB_BATCH;
    struct round cur, prev = {0}, next = {0};
    if (round_claim(p, want, &cur) != 0)
        return -1;
    int64_t done = (int64_t)cur.n;
    bool more = (int64_t)cur.n == want;
    int rc = 0;
    while (rc == 0 && cur.n > 0) {
        if ((rc = reap_mark_referenced(&p->reaper, p->pg, 0, cur.items, cur.n, p->err)) != 0)
            break;
        struct deleter d;
        deleter_start(&d, p, &cur);
        rc = round_settle(p, &prev);
        if (rc == 0 && more && done < batch) {
            want = batch - done < CLEANUP_SUB_BATCH ? batch - done : CLEANUP_SUB_BATCH;
            rc = round_claim(p, want, &next);
            done += (int64_t)next.n;
            more = (int64_t)next.n == want;
        }
        if (deleter_finish(&d, p, rc != 0) != 0)
            rc = -1;
        prev = cur;
        cur = next;
        next = (struct round){0};
    }
    /* Claimed rows left unsettled by a failure are retaken once their
     * lease ends. */
    if (rc == 0)
        rc = round_settle(p, &prev);
    round_free(&prev);
    round_free(&cur);
    round_free(&next);
    return rc;
}

static int queue_depth(struct pass *p)
{
    if (store_removals_depth(p->pg, p->catalog_id, &p->res->queue_depth, p->err) != 0)
        return error_prefix(p->err, "removal queue depth");
    char name[300], labels[320];
    metrics_label_escape(p->reaper.catalog_name, name, sizeof name);
    snprintf(labels, sizeof labels, "catalog=\"%s\"", name);
    metrics_gauge_set(p->reaper.srv->metrics, "hoglake_removal_queue_depth", labels,
                      (double)p->res->queue_depth);
    return 0;
}

/* cleanup_pass, or cleanup_drain_ids when only_ids is not NULL. */
static int run_pass(struct server *srv, PGconn *pg, const struct catalog_row *cat, int64_t batch,
                    const char *only_ids, struct cleanup_result *out, struct error *err)
{
    memset(out, 0, sizeof *out);
    struct pass p = {.pg = pg, .catalog_id = cat->id, .only_ids = only_ids, .res = out, .err = err};
    if (make_token(&p) != 0)
        return -1;
    if (reaper_open(&p.reaper, srv, cat, "removal_id", err) != 0)
        return error_prefix(err, "cleanup");
    int rc = drain(&p, batch) != 0 ? -1 : queue_depth(&p);
    reaper_close(&p.reaper);
    return rc;
}

int cleanup_pass(struct server *srv, PGconn *pg, const struct catalog_row *cat, int64_t batch,
                 struct cleanup_result *out, struct error *err)
{
    if (batch < 1 || batch > CLEANUP_MAX_BATCH) {
        memset(out, 0, sizeof *out);
        return error_fail(err, ERR_INVALID, "batch must be between 1 and %d, got %lld",
                          CLEANUP_MAX_BATCH, (long long)batch);
    }
    return run_pass(srv, pg, cat, batch, NULL, out, err);
}

int cleanup_drain_ids(struct server *srv, PGconn *pg, const struct catalog_row *cat,
                      const char *ids_array, int64_t n, struct cleanup_result *out,
                      struct error *err)
{
    if (n < 1) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    return run_pass(srv, pg, cat, n, ids_array, out, err);
}

int cleanup_purge_ledger(PGconn *pg, int64_t retention_s, int64_t limit, int64_t *purged,
                         struct error *err)
{
    *purged = 0;
    if (store_removals_purge_ledger(pg, retention_s, limit, purged, err) != 0)
        return error_prefix(err, "removal ledger purge");
    return 0;
}

json_t *cleanup_result_json(const struct cleanup_result *r)
{
    json_t *o = json_pack("{s:I,s:I,s:I}", "objects_removed", (json_int_t)r->objects[REAP_DELETED],
                          "settled_elsewhere", (json_int_t)r->settled_elsewhere, "deadline_skipped",
                          (json_int_t)0);
    if (o && reap_counts_json(o, r->objects) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

_Static_assert((int)CLEANUP_RECEIPT_FLOOR_CAP_SECONDS == (int)STORE_RETENTION_RECEIPT_CAP_SECONDS,
               "the receipts' floor cap");

/* The cleanup task's run on a loaded catalog: the pass, then the purges. */
static int task_run(const struct cleanup_task *t, PGconn *pg, const struct catalog_row *cat,
                    json_t **result, struct error *err)
{
    struct cleanup_result res;
    int64_t uploads = 0, ledger = 0, runs = 0, receipts = 0, receipt_failures = 0;
    /* Claims whose writer vanished are queued first, so this pass can
     * already drain them. */
    if (store_uploads_schedule_expired(pg, cat->id, CLEANUP_UPLOAD_SCHEDULE_LIMIT, &uploads, err) !=
            0 ||
        cleanup_pass(t->srv, pg, cat, t->batch, &res, err) != 0 ||
        cleanup_purge_ledger(pg, CLEANUP_LEDGER_RETENTION_SECONDS, CLEANUP_LEDGER_PURGE_LIMIT,
                             &ledger, err) != 0)
        return pass_engine_failed(err);
    if (store_runs_purge(pg, cat->id, CLEANUP_RUNS_RETENTION_SECONDS, CLEANUP_LEDGER_PURGE_LIMIT,
                         &runs, err) != 0)
        return -1;
    struct error receipt_err;
    if (t->receipt_retention_s > 0 &&
        store_retention_purge_receipts(pg, cat->id, t->receipt_retention_s,
                                       CLEANUP_LEDGER_PURGE_LIMIT, &receipts, &receipt_err) != 0) {
        receipt_failures = 1;
        metrics_counter_add(t->srv->metrics, "hoglake_commit_receipt_purge_failures_total", "", 1);
        log_warn("cleanup: receipt purge of catalog '%s' failed: %s", cat->name, receipt_err.msg);
    }
    json_t *o = cleanup_result_json(&res);
    *result = o;
    if (!o || json_object_set_new(o, "uploads_scheduled", json_integer(uploads)) != 0 ||
        json_object_set_new(o, "ledger_purged", json_integer(ledger)) != 0 ||
        json_object_set_new(o, "runs_purged", json_integer(runs)) != 0 ||
        json_object_set_new(o, "receipts_purged", json_integer(receipts)) != 0 ||
        json_object_set_new(o, "receipts_purge_failures", json_integer(receipt_failures)) != 0)
        return error_nomem(err);
    return 0;
}

int cleanup_task_pass(void *ctx, PGconn *pg, int64_t catalog_id, json_t **result, struct error *err)
{
    *result = NULL;
    struct pass_ctx pc;
    int rc = pass_ctx_open(&pc, ((const struct cleanup_task *)ctx)->srv, pg, catalog_id, err);
    if (rc == 1)
        rc = task_run(ctx, pg, &pc.cat, result, err);
    else if (rc == 0 && !(*result = json_object())) /* gone since the sweep listed it */
        rc = error_nomem(err);
    pass_ctx_close(&pc);
    return rc;
}

json_t *cleanup_backlog(void *ctx, PGconn *pg, int64_t catalog_id)
{
    (void)ctx;
    struct store_removals_backlog b;
    struct error err;
    if (store_removals_backlog(pg, catalog_id, &b, &err) != 0)
        return NULL;
    return json_pack("{s:I,s:I}", "queued_removals", (json_int_t)b.queued,
                     "oldest_queued_age_seconds", (json_int_t)b.oldest_age_s);
}
