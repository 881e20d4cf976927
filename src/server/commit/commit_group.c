/* Group commit: optimistic commits to one catalog that wait at the same
 * time share one transaction, one lock acquisition and one WAL flush.
 *
 * A commit's statements (its check and its writes) are recorded, not sent.
 * It joins its catalog's queue; when no commit of that catalog is
 * leading, it leads: it takes every waiting entry, sends BEGIN, the lock,
 * each entry's statements in turn and COMMIT on its own connection, and
 * hands each entry its answer. Each entry still gets its own snapshot (the
 * allocators advance statement by statement), its check still sees every
 * entry before it (the same path or key twice in one group fails the
 * second's check). When one entry's statement fails, the leader rolls back,
 * settles that entry (stale: it runs the locked path itself; or its error)
 * and sends the group again without it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server/commit/commit_internal.h"
#include "server/metrics.h"
#include "server/server.h"

/* Entries one batch carries, at most: DB_BATCH_MAX bounds the statements. */
enum { GROUP_MAX = (DB_BATCH_MAX - 4) / COMMIT_STMTS_MAX };

enum entry_state { WAITING, SENDING, COMMITTED, STALE, FAILED };

struct entry {
    struct commit_ctx *x;
    struct write_batch *w;
    enum entry_state state;
    struct api_error err; /* FAILED: the answer, moved to the waiter */
    struct entry *next;
};

/* One catalog's queue. Queues are kept for the process's life: there are
 * as many as catalogs that took commits, each a few words. */
struct group {
    int64_t catalog_id;
    bool leading;
    struct entry *head, *tail;
    struct group *next;
};

static pthread_mutex_t groups_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t groups_cv = PTHREAD_COND_INITIALIZER;
static struct group *groups;
static int64_t queued; /* entries in every queue, for the gauge */

/* Called with groups_mu held. */
static void count_queued(struct metrics *m, int delta)
{
    queued += delta;
    metrics_gauge_set(m, "hoglake_commit_group_queued", "", (double)queued);
}

static struct group *group_for(int64_t catalog_id)
{
    for (struct group *g = groups; g; g = g->next)
        if (g->catalog_id == catalog_id)
            return g;
    struct group *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->catalog_id = catalog_id;
    g->next = groups;
    groups = g;
    return g;
}

static void unlink_entry(struct group *g, struct entry *e)
{
    struct entry **p = &g->head;
    while (*p && *p != e)
        p = &(*p)->next;
    if (*p)
        *p = e->next;
    g->tail = NULL;
    for (struct entry *t = g->head; t; t = t->next)
        g->tail = t;
}

/* Settles every entry with the same error (a failure of the group's own
 * statements: BEGIN, the lock, COMMIT, the connection). */
static void fail_all(struct entry **batch, int n, const struct api_error *err,
                     enum entry_state *out)
{
    for (int i = 0; i < n; i++) {
        batch[i]->err = *err;
        batch[i]->err.extra = json_incref(err->extra);
        out[i] = FAILED;
    }
}

static void rollback(struct srv_req *req)
{
    struct api_error ignored = {0};
    req_exec(req, "ROLLBACK", NULL, "rollback", &ignored);
    json_decref(ignored.extra);
}

/* Sends one round for batch[0..n) on the leader's connection, without
 * groups_mu: out[i] is each entry's outcome, SENDING for those to send
 * again (when another entry's statement failed). An entry's results (its
 * snapshot, or its error) are written before its state is published under
 * groups_mu, which is what its waiter reads first. */
static void send_round(struct commit_ctx *leader, struct entry **batch, int n,
                       enum entry_state *out)
{
    for (int i = 0; i < n; i++)
        out[i] = SENDING;
    struct api_error err = {0};
    struct db_conn *db = req_db(leader->req, &err);
    struct stmt_batch s = {0};
    struct error dberr;
    int first[GROUP_MAX + 1];
    int commit_at = -1, rc = db ? 0 : -1;
    if (rc == 0 && db_batch_begin(&s.b, db, &dberr) != 0)
        rc = api_from_error(&err, &dberr, "commit group");
    leader->lock_at = -1;
    if (rc == 0)
        rc = commit_queue_lock(leader, &s, &err);
    for (int i = 0; i < n && rc == 0; i++) {
        first[i] = s.b.n;
        const struct stmt_batch *mine = &batch[i]->w->s;
        for (int k = 0; k < mine->nrec && rc == 0; k++) {
            const struct stmt_record *r = &mine->rec[k];
            struct db_params p;
            db_params_init(&p);
            for (int v = 0; v < r->n; v++)
                db_param_str(&p, r->values[v]);
            if (commit_queue(&s, r->sql, &p, r->context, &err) < 0)
                rc = -1;
        }
    }
    first[n] = s.b.n;
    if (rc == 0 && (commit_at = commit_queue(&s, "COMMIT", NULL, "commit", &err)) < 0)
        rc = -1;
    int failed = -1;
    if (rc == 0 && commit_run_locked(leader, &s, &failed, &dberr) == 0) {
        leader->in_txn = false;
        for (int i = 0; i < n; i++) {
            const struct write_batch *w = batch[i]->w;
            const PGresult *a = s.b.results[first[i] + w->alloc];
            batch[i]->x->snapshot_id = db_i64(a, 0, 0);
            batch[i]->x->schema_version = db_i64(a, 0, 1);
            out[i] = COMMITTED;
        }
        db_batch_free(&s.b);
        metrics_counter_add(leader->req->srv->metrics, "hoglake_commit_groups_total", "", 1);
        return;
    }
    /* Whose statement failed: an entry's (settle it, and the others go
     * again), or the group's own. */
    int owner = -1;
    for (int i = 0; i < n && rc == 0 && failed >= 0; i++)
        if (failed >= first[i] && failed < first[i + 1])
            owner = i;
    db_batch_free(&s.b);
    if (leader->in_txn) {
        rollback(leader->req);
        leader->in_txn = false;
    }
    if (owner < 0) {
        if (rc == 0)
            api_from_error(&err, &dberr, failed == commit_at ? "commit" : "commit group");
        fail_all(batch, n, &err, out);
        json_decref(err.extra);
        return;
    }
    struct entry *e = batch[owner];
    int at = failed - first[owner];
    if (db_error_is(&dberr, SQLSTATE_HOG_ASSERT) && (at == e->w->checks || at == e->w->row_ids)) {
        out[owner] = STALE;
    } else {
        api_from_error(&e->err, &dberr, e->w->s.rec[at].context);
        out[owner] = FAILED;
    }
}

/* Leads rounds until every entry taken is settled, publishing outcomes
 * after each round; called and returns with groups_mu held. */
static void lead(struct group *g, struct commit_ctx *leader)
{
    struct entry *batch[GROUP_MAX];
    enum entry_state out[GROUP_MAX];
    int n = 0;
    for (struct entry *e = g->head; e && n < GROUP_MAX; e = e->next)
        if (e->state == WAITING) {
            e->state = SENDING;
            batch[n++] = e;
        }
    while (n > 0) {
        pthread_mutex_unlock(&groups_mu);
        send_round(leader, batch, n, out);
        pthread_mutex_lock(&groups_mu);
        int left = 0;
        for (int i = 0; i < n; i++) {
            batch[i]->state = out[i];
            if (out[i] == SENDING)
                batch[left++] = batch[i];
        }
        n = left;
        pthread_cond_broadcast(&groups_cv);
    }
}

int commit_group_run(struct commit_ctx *x, struct write_batch *w, bool *stale,
                     struct api_error *err)
{
    *stale = false;
    struct entry me = {.x = x, .w = w, .state = WAITING};
    pthread_mutex_lock(&groups_mu);
    struct group *g = group_for(x->cat.id);
    if (!g) {
        pthread_mutex_unlock(&groups_mu);
        return api_nomem(err);
    }
    if (g->tail)
        g->tail->next = &me;
    else
        g->head = &me;
    g->tail = &me;
    count_queued(x->req->srv->metrics, 1);
    while (me.state == WAITING || me.state == SENDING) {
        if (me.state == WAITING && !g->leading) {
            g->leading = true;
            lead(g, x);
            g->leading = false;
            pthread_cond_broadcast(&groups_cv);
        } else {
            pthread_cond_wait(&groups_cv, &groups_mu);
        }
    }
    unlink_entry(g, &me);
    count_queued(x->req->srv->metrics, -1);
    pthread_mutex_unlock(&groups_mu);
    if (me.state == COMMITTED)
        return 0;
    if (me.state == STALE) {
        *stale = true;
        return -1;
    }
    *err = me.err;
    return -1;
}
