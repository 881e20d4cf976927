#include "util/ticker.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/timefmt.h"

struct ticker {
    int64_t interval_ms;
    ticker_fn *fn;
    void *ctx;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake; /* CLOCK_MONOTONIC */
    bool stopping;
};

static void *ticker_main(void *arg)
{
    struct ticker *t = arg;
    pthread_mutex_lock(&t->mu);
    while (!t->stopping) {
        pthread_mutex_unlock(&t->mu);
        t->fn(t, t->ctx);
        pthread_mutex_lock(&t->mu);
        struct timespec due;
        time_mono_deadline(&due, t->interval_ms);
        int rc = 0;
        while (!t->stopping && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&t->wake, &t->mu, &due);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

struct ticker *ticker_start(const char *name, int64_t interval_ms, ticker_fn *fn, void *ctx,
                            struct error *err)
{
    struct ticker *t = calloc(1, sizeof *t);
    if (!t) {
        error_nomem(err);
        return NULL;
    }
    t->interval_ms = interval_ms;
    t->fn = fn;
    t->ctx = ctx;
    pthread_mutex_init(&t->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->wake, &ca);
    pthread_condattr_destroy(&ca);
    int rc = pthread_create(&t->thread, NULL, ticker_main, t);
    if (rc != 0) {
        error_fail(err, ERR_INTERNAL, "cannot start the %s: %s", name, strerror(rc));
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->mu);
        free(t);
        return NULL;
    }
    return t;
}

bool ticker_stopping(struct ticker *t)
{
    pthread_mutex_lock(&t->mu);
    bool s = t->stopping;
    pthread_mutex_unlock(&t->mu);
    return s;
}

void ticker_stop(struct ticker *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->stopping = true;
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->mu);
    free(t);
}
