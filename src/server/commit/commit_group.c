/* Group commit: optimistic commits to one catalog that wait at the same
 * time share one transaction, one lock acquisition and one WAL flush.
 *
 * A commit's statements (its check and its writes) are recorded, not sent.
 * It joins its catalog's queue; when no commit of that catalog is
 * leading, it leads: it takes every waiting entry, sends BEGIN, the lock,
 * each entry's statements in turn and COMMIT on its own connection, and
 * hands each entry its answer.
 *
 * A round is merged when it can be: one check of every entry, then the
 * writes of all as one set of statements (server/store/commit_writes.h,
 * an entry each, each its own snapshot in order), so a hot row (the
 * catalog's allocators, a table's counters) is written once a round and
 * each statement runs once. That needs appends whose paths, keys and
 * upload owners are their own, since the check runs before any write.
 * Otherwise, or when the merged round fails (its check or its writes: a
 * failure that has no one owner), the round goes entry by entry: BEGIN,
 * the lock, each entry's statements in turn, COMMIT; each entry's check
 * then sees every entry before it (the same path or key twice in one group
 * fails the second's check). When one entry's statement fails, the leader rolls back, settles
 * that entry (stale: it runs the locked path itself; or its error) and
 * sends the group again without it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server/commit/commit_internal.h"
#include "server/metrics.h"
#include "server/server.h"
#include "util/timefmt.h"

/* Entries one batch carries, at most: DB_BATCH_MAX bounds the statements. */
enum { GROUP_MAX = (DB_BATCH_MAX - STORE_COMMIT_TXN_STMTS) / STORE_COMMIT_RECORD_MAX };

enum entry_state { WAITING, SENDING, COMMITTED, STALE, FAILED };

struct entry {
    struct commit_ctx *x;
    struct write_batch *w;
    enum entry_state state;
    struct error err;        /* FAILED: the error, copied to the waiter */
    const char *failed_step; /* and what failed (commit_outcome) */
    /* Its waiter sleeps on its own condition, woken when the entry is
     * settled or may lead: a broadcast would wake every commit waiting,
     * of every catalog, each only to sleep again. */
    pthread_cond_t wake;
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
static void fail_all(struct entry **batch, int n, const struct error *err, const char *failed_step,
                     enum entry_state *out)
{
    for (int i = 0; i < n; i++) {
        batch[i]->err = *err;
        batch[i]->failed_step = failed_step;
        out[i] = FAILED;
    }
}

/* Queues the group's round into s: BEGIN and the lock, each entry's
 * statements in turn (the first of entry i at first[i]), COMMIT. Returns
 * the COMMIT's index, or -1. */
static int queue_round(struct commit_ctx *leader, struct entry **batch, int n,
                       struct store_commit_batch *s, int *first, struct error *err)
{
    leader->lock_at = -1;
    if (store_commit_batch_begin(s, leader->ctx->db, err) != 0 ||
        commit_queue_lock(leader, s, err) != 0)
        return -1;
    for (int i = 0; i < n; i++) {
        first[i] = store_commit_batch_size(s);
        if (store_commit_batch_replay(s, &batch[i]->w->s, err) != 0)
            return -1;
    }
    first[n] = store_commit_batch_size(s);
    return store_commit_queue_commit(s, err);
}

/* Runs a round's batch and observes how long it took: beside the rounds
 * a second, that tells the lock's hold from the hand-over between rounds. */
static int run_round(struct commit_ctx *leader, struct store_commit_batch *s, int *failed,
                     struct error *err)
{
    int64_t t0 = time_mono_ns();
    int rc = commit_run_locked(leader, s, failed, err);
    metrics_observe(leader->ctx->srv->metrics, "hoglake_commit_round_seconds", "",
                    (double)(time_mono_ns() - t0) / 1e9);
    return rc;
}

static int str_order(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Tables a merged round's entries name, at most: building its writes
 * looks a table up among them per file. */
enum { MERGED_TABLES_MAX = 64 };

/* Whether batch[0..n) may go as one set of writes: appends, each with its
 * check recorded first, and no path, key or upload owner in two entries
 * (the statements would not tell them apart, and each check runs before
 * every write). */
static bool mergeable(struct entry **batch, int n)
{
    size_t nstr = 0, ntables = 0;
    for (int i = 0; i < n; i++) {
        const struct commit_request *c = batch[i]->x->c;
        if (c->ndvs || batch[i]->w->at.checks != 0)
            return false;
        nstr += c->nfiles + 2;
        ntables += c->ntables;
    }
    if (ntables > MERGED_TABLES_MAX)
        return false;
    const char **all = malloc(nstr * sizeof *all);
    if (!all)
        return false;
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        const struct commit_request *c = batch[i]->x->c;
        for (size_t t = 0; t < c->ntables; t++)
            for (size_t f = 0; f < c->tables[t].nfiles; f++)
                all[k++] = c->tables[t].files[f].path;
        /* Keys and owners are canonical UUIDs: they never equal a path. */
        if (c->has_key)
            all[k++] = c->key;
        if (c->has_upload_owner)
            all[k++] = c->upload_owner;
    }
    qsort(all, k, sizeof *all, str_order);
    bool distinct = true;
    for (size_t i = 1; i < k && distinct; i++)
        distinct = strcmp(all[i - 1], all[i]) != 0;
    free(all);
    return distinct;
}

/* Sends batch[0..n) as one merged round: BEGIN and the lock, the writes
 * of all after one check of them all, COMMIT. Returns true when it settled
 * the round (out as send_round's), false when the check or the writes
 * failed: nothing was written, and the round goes again entry by entry,
 * where each failure has its owner. */
static bool send_merged(struct commit_ctx *leader, struct entry **batch, int n,
                        enum entry_state *out)
{
    for (int i = 0; i < n; i++)
        out[i] = SENDING;
    struct commit_ctx *xs[GROUP_MAX];
    for (int i = 0; i < n; i++)
        xs[i] = batch[i]->x;
    struct write_batch round = {0};
    struct error err;
    int commit_at = -1, failed = -1;
    leader->lock_at = -1;
    int rc = 0;
    if (store_commit_batch_begin(&round.s, leader->ctx->db, &err) != 0 ||
        commit_queue_lock(leader, &round.s, &err) != 0)
        rc = -1;
    int writes = store_commit_batch_size(&round.s);
    if (rc == 0)
        rc = commit_queue_group_writes(xs, (size_t)n, leader->ctx->arena, &round, &err);
    if (rc == 0 && (commit_at = store_commit_queue_commit(&round.s, &err)) < 0)
        rc = -1;
    if (rc != 0) { /* nothing sent */
        store_commit_batch_free(&round.s);
        leader->in_txn = false;
        return false;
    }
    if (run_round(leader, &round.s, &failed, &err) == 0) {
        leader->in_txn = false;
        for (int i = 0; i < n; i++) {
            struct commit_outcome *o = batch[i]->x->out;
            store_commit_allocated(&round.s, round.at.alloc, (size_t)n, (size_t)i + 1,
                                   &o->snapshot_id, &o->schema_version);
            out[i] = COMMITTED;
        }
        store_commit_batch_free(&round.s);
        metrics_counter_add(leader->ctx->srv->metrics, "hoglake_commit_groups_total", "", 1);
        metrics_counter_add(leader->ctx->srv->metrics, "hoglake_commit_groups_merged_total", "", 1);
        return true;
    }
    store_commit_batch_free(&round.s);
    if (leader->in_txn) {
        commit_rollback(leader);
        leader->in_txn = false;
    }
    if (failed >= writes && failed < commit_at)
        return false;
    fail_all(batch, n, &err, failed == commit_at ? "commit" : "commit group", out);
    return true;
}

/* Sends one round for batch[0..n) on the leader's connection, without
 * groups_mu: out[i] is each entry's outcome, SENDING for those to send
 * again (when another entry's statement failed). An entry's results (its
 * snapshot, or its error) are written before its state is published under
 * groups_mu, which is what its waiter reads first. */
static void send_round(struct commit_ctx *leader, struct entry **batch, int n,
                       enum entry_state *out)
{
    if (n > 1 && mergeable(batch, n) && send_merged(leader, batch, n, out))
        return;
    for (int i = 0; i < n; i++)
        out[i] = SENDING;
    struct store_commit_batch s = {0};
    struct error err;
    int first[GROUP_MAX + 1];
    int commit_at = queue_round(leader, batch, n, &s, first, &err);
    int failed = -1;
    if (commit_at >= 0 && run_round(leader, &s, &failed, &err) == 0) {
        leader->in_txn = false;
        for (int i = 0; i < n; i++) {
            struct commit_outcome *o = batch[i]->x->out;
            store_commit_allocated(&s, first[i] + batch[i]->w->at.alloc, 1, 1, &o->snapshot_id,
                                   &o->schema_version);
            out[i] = COMMITTED;
        }
        store_commit_batch_free(&s);
        metrics_counter_add(leader->ctx->srv->metrics, "hoglake_commit_groups_total", "", 1);
        return;
    }
    /* Whose statement failed: an entry's (settle it, and the others go
     * again), or the group's own. */
    int owner = -1;
    for (int i = 0; i < n && commit_at >= 0 && failed >= 0; i++)
        if (failed >= first[i] && failed < first[i + 1])
            owner = i;
    const char *step = store_commit_batch_failed(&s, "commit group");
    store_commit_batch_free(&s);
    if (leader->in_txn) {
        commit_rollback(leader);
        leader->in_txn = false;
    }
    if (owner < 0) {
        if (commit_at >= 0)
            step = failed == commit_at ? "commit" : "commit group";
        fail_all(batch, n, &err, step, out);
        return;
    }
    struct entry *e = batch[owner];
    int at = failed - first[owner];
    if (db_error_is(&err, SQLSTATE_HOG_ASSERT) &&
        (at == e->w->at.checks || at == e->w->at.row_ids)) {
        out[owner] = STALE;
    } else {
        e->err = err;
        e->failed_step = step;
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
            else if (batch[i]->x != leader)
                pthread_cond_signal(&batch[i]->wake);
        }
        n = left;
    }
}

/* Wakes the first waiting entry of g, which leads next. */
static void wake_next_leader(struct group *g)
{
    for (struct entry *e = g->head; e; e = e->next)
        if (e->state == WAITING) {
            pthread_cond_signal(&e->wake);
            return;
        }
}

int commit_group_run(struct commit_ctx *x, struct write_batch *w, bool *stale, struct error *err)
{
    *stale = false;
    struct entry me = {.x = x, .w = w, .state = WAITING};
    if (pthread_cond_init(&me.wake, NULL) != 0)
        return error_nomem(err);
    pthread_mutex_lock(&groups_mu);
    struct group *g = group_for(x->cat.id);
    if (!g) {
        pthread_mutex_unlock(&groups_mu);
        pthread_cond_destroy(&me.wake);
        return error_nomem(err);
    }
    if (g->tail)
        g->tail->next = &me;
    else
        g->head = &me;
    g->tail = &me;
    count_queued(x->ctx->srv->metrics, 1);
    while (me.state == WAITING || me.state == SENDING) {
        if (me.state == WAITING && !g->leading) {
            g->leading = true;
            lead(g, x);
            g->leading = false;
            wake_next_leader(g);
        } else {
            pthread_cond_wait(&me.wake, &groups_mu);
        }
    }
    unlink_entry(g, &me);
    count_queued(x->ctx->srv->metrics, -1);
    pthread_mutex_unlock(&groups_mu);
    pthread_cond_destroy(&me.wake);
    if (me.state == COMMITTED)
        return 0;
    if (me.state == STALE) {
        *stale = true;
        return -1;
    }
    *err = me.err;
    x->out->failed_step = me.failed_step;
    return -1;
}
