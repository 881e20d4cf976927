/* A tiny scripted HTTP/1.1 server on a loopback socket, in a thread, for
 * tests that need a peer misbehaving on cue (5xx, hangs, echoed secrets).
 * One request per connection (it answers with Connection: close). Every
 * request is recorded: method, target, the Authorization header, the body's
 * length and SHA-256. */
#ifndef HL_TEST_FAKE_HTTP_H
#define HL_TEST_FAKE_HTTP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

enum { FAKE_MAX_REQUESTS = 64 };

struct fake_request {
    char method[16];
    char target[512];
    char authorization[512];
    size_t body_len;
    char body_sha256[65];
};

struct fake_answer {
    int status; /* 0: no answer: hold the connection hold_ms, then close it */
    int hold_ms;
    char headers[512]; /* extra "Name: value\r\n" lines */
    char body[2048];
};

/* Decides the answer to request number i (0-based). */
typedef void (*fake_handler)(void *ctx, size_t i, const struct fake_request *r,
                             struct fake_answer *a);

struct fake_http {
    int listen_fd;
    int port;
    char base[64]; /* "http://127.0.0.1:PORT" */
    pthread_t thread;
    pthread_mutex_t mu;
    atomic_bool stop;
    fake_handler handler;
    void *ctx;
    struct fake_request requests[FAKE_MAX_REQUESTS];
    size_t n_requests;
};

/* Starts the server (fails the test on error). */
void fake_http_start(struct fake_http *f, fake_handler handler, void *ctx);
/* Stops it and joins the thread. */
void fake_http_stop(struct fake_http *f);
/* How many requests have been recorded, and a copy of number i. */
size_t fake_http_count(struct fake_http *f);
struct fake_request fake_http_request(struct fake_http *f, size_t i);

#endif
