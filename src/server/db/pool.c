#include "server/db/db.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/log.h"

struct db_pool {
    pthread_mutex_t mu;
    pthread_cond_t freed;
    char *conninfo;
    int size;
    int open; /* connections currently open (idle + active) */
    int active;
    int pending;
    struct db_conn *conns; /* `size` slots; a slot with pg == NULL is unopened */
};

PGconn *db_connect(const char *conninfo, int connect_timeout_s, struct error *err)
{
    char timeout[16];
    snprintf(timeout, sizeof timeout, "%d", connect_timeout_s);
    /* Session limits keep a stuck statement or an abandoned transaction
     * from holding locks forever. JIT is off: the catalog's statements
     * are short index walks whose cost estimates still cross the JIT
     * thresholds on a big catalog, and compiling them cost more than
     * running them (700 of 1,625 ms for a listing of 54,000 tables,
     * bench/scale). work_mem is 16 MB, not 4: the sort of that listing
     * spilled to disk at 4 (200 ms); per connection of a pool of a few,
     * the bound stays small. */
    const char *keys[] = {"dbname", "connect_timeout", "application_name", "options", NULL};
    char options[160];
    snprintf(options, sizeof options,
             "-c statement_timeout=%d -c idle_in_transaction_session_timeout=30000 -c jit=off"
             " -c work_mem=16MB",
             (int)DB_STATEMENT_TIMEOUT_MS);
    const char *vals[] = {conninfo, timeout, "hoglaked", options, NULL};
    PGconn *pg = PQconnectdbParams(keys, vals, 1);
    if (!pg) {
        error_nomem(err);
        return NULL;
    }
    if (PQstatus(pg) != CONNECTION_OK) {
        const char *msg = PQerrorMessage(pg);
        size_t n = strlen(msg);
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
            n--;
        error_fail(err, ERR_UNAVAILABLE, "%.*s", (int)n, msg);
        PQfinish(pg);
        return NULL;
    }
    return pg;
}

bool db_conn_alive(PGconn *pg)
{
    if (PQstatus(pg) != CONNECTION_OK)
        return false;
    /* An idle connection has nothing to read; something there is most
     * likely the server's goodbye: a FATAL, then end of file, which libpq
     * sees on the read after the message. A stray notice is read and the
     * connection stays OK. */
    struct pollfd pfd = {.fd = PQsocket(pg), .events = POLLIN};
    for (int reads = 0; reads < 3 && poll(&pfd, 1, 0) != 0; reads++) {
        if (!PQconsumeInput(pg))
            return false;
    }
    return PQstatus(pg) == CONNECTION_OK;
}

struct db_pool *db_pool_create(const char *conninfo, int size, struct error *err)
{
    if (size < 1) {
        error_fail(err, ERR_INVALID, "pool size must be at least 1");
        return NULL;
    }
    struct db_pool *p = calloc(1, sizeof *p);
    if (!p)
        goto oom;
    p->conns = calloc((size_t)size, sizeof *p->conns);
    p->conninfo = strdup(conninfo);
    if (!p->conns || !p->conninfo)
        goto oom;
    p->size = size;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->freed, NULL);
    for (int i = 0; i < size; i++)
        p->conns[i].pool = p;
    p->conns[0].pg = db_connect(conninfo, 10, err);
    p->conns[0].statement_timeout_ms = DB_STATEMENT_TIMEOUT_MS;
    if (!p->conns[0].pg) {
        db_pool_destroy(p);
        return NULL;
    }
    p->open = 1;
    return p;
oom:
    error_nomem(err);
    if (p) {
        free(p->conns);
        free(p->conninfo);
        free(p);
    }
    return NULL;
}

void db_pool_destroy(struct db_pool *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->size; i++)
        if (p->conns[i].pg)
            PQfinish(p->conns[i].pg);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->freed);
    free(p->conns);
    free(p->conninfo);
    free(p);
}

static void deadline_after_ms(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* Closes an idle connection whose server went away while it sat in the
 * pool (a database restart ends every session), so the caller gets a
 * fresh one instead of a first statement that fails. Cheap: the socket
 * is known dead. */
static void discard_locked(struct db_pool *p, struct db_conn *c)
{
    PQfinish(c->pg);
    c->pg = NULL;
    c->nprepared = 0;
    p->open--;
}

struct db_conn *db_pool_acquire(struct db_pool *p, int timeout_ms)
{
    struct timespec deadline;
    deadline_after_ms(&deadline, timeout_ms);
    pthread_mutex_lock(&p->mu);
    p->pending++;
    struct db_conn *got = NULL;
    for (;;) {
        /* Prefer an open idle connection; otherwise claim an unopened slot. */
        struct db_conn *unopened = NULL;
        for (int i = 0; i < p->size; i++) {
            struct db_conn *c = &p->conns[i];
            if (c->in_use)
                continue;
            if (c->pg && !db_conn_alive(c->pg))
                discard_locked(p, c);
            if (c->pg) {
                got = c;
                break;
            }
            if (!unopened)
                unopened = c;
        }
        if (!got && unopened) {
            unopened->in_use = true; /* reserve the slot while connecting unlocked */
            pthread_mutex_unlock(&p->mu);
            struct error err;
            PGconn *pg = db_connect(p->conninfo, 10, &err);
            pthread_mutex_lock(&p->mu);
            if (pg) {
                unopened->pg = pg;
                unopened->statement_timeout_ms = DB_STATEMENT_TIMEOUT_MS;
                p->open++;
                got = unopened;
            } else {
                unopened->in_use = false;
                pthread_cond_signal(&p->freed);
                log_warn("database connection failed: %s", err.msg);
                break;
            }
        }
        if (got)
            break;
        int rc = pthread_cond_timedwait(&p->freed, &p->mu, &deadline);
        if (rc == ETIMEDOUT)
            break;
    }
    p->pending--;
    if (got) {
        got->in_use = true;
        p->active++;
    }
    pthread_mutex_unlock(&p->mu);
    return got;
}

void db_pool_release(struct db_conn *c)
{
    if (!c)
        return;
    struct db_pool *p = c->pool;
    PGconn *to_close = NULL;
    /* A connection in any state but idle-and-healthy could leak a
     * transaction or a broken socket to the next user: close it. */
    if (PQstatus(c->pg) != CONNECTION_OK || PQtransactionStatus(c->pg) != PQTRANS_IDLE ||
        PQpipelineStatus(c->pg) != PQ_PIPELINE_OFF)
        to_close = c->pg;
    pthread_mutex_lock(&p->mu);
    if (to_close) {
        c->pg = NULL;
        c->nprepared = 0;
        p->open--;
    }
    c->in_use = false;
    p->active--;
    pthread_cond_signal(&p->freed);
    pthread_mutex_unlock(&p->mu);
    if (to_close)
        PQfinish(to_close);
}

struct db_conn *db_pool_owner(struct db_pool *p, const PGconn *pg)
{
    struct db_conn *found = NULL;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < p->size && !found; i++)
        if (p->conns[i].in_use && p->conns[i].pg == pg)
            found = &p->conns[i];
    pthread_mutex_unlock(&p->mu);
    return found;
}

void db_pool_get_stats(struct db_pool *p, struct db_pool_stats *out)
{
    pthread_mutex_lock(&p->mu);
    out->active = p->active;
    out->idle = p->open - p->active;
    if (out->idle < 0)
        out->idle = 0;
    out->pending = p->pending;
    out->max = p->size;
    pthread_mutex_unlock(&p->mu);
}

int db_conn_statement_timeout(struct db_conn *c, int ms, struct error *err)
{
    if (c->statement_timeout_ms == ms)
        return 0;
    char sql[64];
    snprintf(sql, sizeof sql, "SET statement_timeout = %d", ms);
    if (db_run(c->pg, sql, NULL, err) != 0)
        return -1;
    c->statement_timeout_ms = ms;
    return 0;
}
