/* A background thread that calls one function now and then every
 * interval, until stopped: the shape of the server's samplers. The
 * function runs without any lock of the ticker's held; stopping wakes the
 * wait at once and waits for a call in progress to return. */
#ifndef HL_UTIL_TICKER_H
#define HL_UTIL_TICKER_H

#include <stdint.h>

#include "util/error.h"

struct ticker;

/* One call; t is the ticker calling (for ticker_stopping). */
typedef void ticker_fn(struct ticker *t, void *ctx);

/* Starts the thread (interval_ms > 0; `name` static, for errors). NULL
 * with err filled when it cannot start. */
struct ticker *ticker_start(const char *name, int64_t interval_ms, ticker_fn *fn, void *ctx,
                            struct error *err);
/* Whether ticker_stop was called: a long call may poll it to end early. */
bool ticker_stopping(struct ticker *t);
/* Stops and joins the thread. NULL is a no-op. */
void ticker_stop(struct ticker *t);

#endif
