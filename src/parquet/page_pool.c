#include "parquet/page_pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct worker {
    struct pq_page_pool *pool;
    struct pq_page_scratch scratch;
    pthread_t thread;
};

/* Jobs are counted from the pool's start; a job's slot is its count
 * modulo capacity. [head, start) have been taken by a thread (some may
 * have run), [start, tail) are pending. Only the caller moves head and
 * tail; start and done[] change under mu. */
struct pq_page_pool {
    struct pq_page_job *jobs;
    bool *done;
    size_t cap;
    size_t head, start, tail;
    struct pq_page_scratch caller;
    struct worker *workers;
    int nworkers;  /* started */
    bool threaded; /* mu and the condition variables exist */
    bool stop;
    pthread_mutex_t mu;
    pthread_cond_t work; /* for workers: a job is pending, or stop */
    pthread_cond_t ran;  /* for the caller: a job has run */
};

/* Runs the first pending job with scratch s; mu is held on entry and on
 * return, not while the job runs. */
static void run_pending(struct pq_page_pool *p, struct pq_page_scratch *s)
{
    size_t k = p->start++ % p->cap;
    pthread_mutex_unlock(&p->mu);
    pq_page_job_run(&p->jobs[k], s);
    pthread_mutex_lock(&p->mu);
    p->done[k] = true;
    pthread_cond_signal(&p->ran);
}

static void *worker_main(void *arg)
{
    struct worker *wk = arg;
    struct pq_page_pool *p = wk->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->start == p->tail)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->stop)
            break;
        run_pending(p, &wk->scratch);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Starts the workers with every signal blocked, so that signals keep
 * going to the application's own threads. */
static int start_workers(struct pq_page_pool *p, int threads, struct error *err)
{
    p->workers = calloc((size_t)threads, sizeof *p->workers);
    if (!p->workers)
        return error_fail(err, ERR_NOMEM, "out of memory");
    if (pthread_mutex_init(&p->mu, NULL) != 0)
        return error_fail(err, ERR_NOMEM, "cannot create a mutex");
    if (pthread_cond_init(&p->work, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        return error_fail(err, ERR_NOMEM, "cannot create a condition variable");
    }
    if (pthread_cond_init(&p->ran, NULL) != 0) {
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->mu);
        return error_fail(err, ERR_NOMEM, "cannot create a condition variable");
    }
    p->threaded = true;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = 0;
    for (int i = 0; i < threads && rc == 0; i++) {
        struct worker *wk = &p->workers[i];
        wk->pool = p;
        if (pq_page_scratch_init(&wk->scratch) != 0) {
            pq_page_scratch_free(&wk->scratch);
            rc = error_fail(err, ERR_NOMEM, "out of memory");
        } else if (pthread_create(&wk->thread, NULL, worker_main, wk) != 0) {
            pq_page_scratch_free(&wk->scratch);
            rc = error_fail(err, ERR_NOMEM, "cannot start an encoding thread");
        } else {
            p->nworkers++;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int pq_page_pool_new(int threads, size_t capacity, struct pq_page_pool **out, struct error *err)
{
    *out = NULL;
    struct pq_page_pool *p = calloc(1, sizeof *p);
    if (!p)
        return error_fail(err, ERR_NOMEM, "out of memory");
    p->cap = capacity ? capacity : 1;
    p->jobs = calloc(p->cap, sizeof *p->jobs);
    p->done = calloc(p->cap, sizeof *p->done);
    if (!p->jobs || !p->done || pq_page_scratch_init(&p->caller) != 0) {
        pq_page_pool_free(p);
        return error_fail(err, ERR_NOMEM, "out of memory");
    }
    if (threads > 0 && start_workers(p, threads, err) != 0) {
        pq_page_pool_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

void pq_page_pool_free(struct pq_page_pool *p)
{
    if (!p)
        return;
    if (p->threaded) {
        pthread_mutex_lock(&p->mu);
        p->stop = true;
        pthread_cond_broadcast(&p->work);
        pthread_mutex_unlock(&p->mu);
        for (int i = 0; i < p->nworkers; i++) {
            pthread_join(p->workers[i].thread, NULL);
            pq_page_scratch_free(&p->workers[i].scratch);
        }
        pthread_cond_destroy(&p->ran);
        pthread_cond_destroy(&p->work);
        pthread_mutex_destroy(&p->mu);
    }
    free(p->workers);
    for (size_t k = 0; p->jobs && k < p->cap; k++)
        pq_page_job_free(&p->jobs[k]);
    free(p->jobs);
    free(p->done);
    pq_page_scratch_free(&p->caller);
    free(p);
}

struct pq_page_job *pq_page_pool_next(struct pq_page_pool *p)
{
    return p->tail - p->head < p->cap ? &p->jobs[p->tail % p->cap] : NULL;
}

void pq_page_pool_submit(struct pq_page_pool *p)
{
    size_t k = p->tail % p->cap;
    if (!p->nworkers) {
        pq_page_job_run(&p->jobs[k], &p->caller);
        p->done[k] = true;
        p->start++;
        p->tail++;
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->done[k] = false;
    p->tail++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
}

struct pq_page_job *pq_page_pool_oldest(struct pq_page_pool *p, bool wait)
{
    if (p->head == p->tail)
        return NULL;
    size_t k = p->head % p->cap;
    if (!p->nworkers)
        return &p->jobs[k];
    pthread_mutex_lock(&p->mu);
    while (!p->done[k] && wait) {
        if (p->start < p->tail)
            run_pending(p, &p->caller);
        else
            pthread_cond_wait(&p->ran, &p->mu);
    }
    bool done = p->done[k];
    pthread_mutex_unlock(&p->mu);
    return done ? &p->jobs[k] : NULL;
}

void pq_page_pool_retire(struct pq_page_pool *p)
{
    p->head++;
}
