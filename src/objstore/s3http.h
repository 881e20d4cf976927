/* The S3 transport: one signed request over libcurl, with bounded retries.
 *
 * A client holds the endpoint, region, credentials and limits, plus a
 * curl share handle so that calls from any thread reuse connections. It is
 * immutable after s3_client_new; every request uses its own easy handle. */
#ifndef HL_OBJSTORE_S3HTTP_H
#define HL_OBJSTORE_S3HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hoglake/error.h"
#include "objstore/sigv4.h"
#include "util/buf.h"
#include "util/log.h"

struct s3_client;

/* Settings already resolved (config, then environment, then defaults).
 * endpoint NULL means AWS. Strings are copied. Keys may be NULL: every
 * request then fails with HL_ERR_INVALID_ARGUMENT. */
struct s3_settings {
    const char *endpoint;
    const char *region;
    const char *access_key, *secret_key, *session_token;
    long connect_timeout_ms, timeout_ms;
    int max_retries;     /* >= 0 */
    struct log_sink log; /* retry and cleanup warnings */
};

int s3_client_new(const struct s3_settings *st, struct s3_client **out, struct hl_error *err);
void s3_client_free(struct s3_client *c);

/* A warning about the client's own work (a retry, an abort that failed). */
void s3_client_warn(struct s3_client *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct s3_request {
    const char *method;
    const char *bucket;
    const char *key; /* "" addresses the bucket */
    const struct sigv4_kv *query;
    size_t n_query;
    const void *body; /* sent again, whole, on every attempt */
    size_t body_len;
    const char *content_type; /* with a body */
    const char *content_md5;  /* base64, or NULL */
    const char *range;        /* Range header value, or NULL */
    bool if_none_match;       /* If-None-Match: *; 412 -> HL_ERR_ALREADY_EXISTS */
    bool head;                /* HEAD: no body in the answer */
    /* A 2xx answer's body is appended here (NULL: discarded); on failure
     * the buffer is cut back to its length before the call. */
    struct buf *out;
    uint64_t out_max; /* a longer 2xx body is a protocol error; 0 = no limit */
};

struct s3_response {
    long http;
    int64_t content_length; /* -1 when the answer did not say */
    char etag[128];         /* the ETag header as sent (quotes kept), "" when none */
};

/* S3 error codes that a later identical request may not meet
 * (RequestTimeout, SlowDown, InternalError, ServiceUnavailable; a clock
 * skew would not go away by itself, so RequestTimeTooSkewed is not one). */
bool s3_retryable_code(const char *code);

/* Performs r, retrying transient failures (5xx, 429, the codes above,
 * timeouts, connection failures) up to max_retries times with exponential
 * backoff (100 ms doubling, capped at 10 s; half of each step random). A
 * POST answered 200 with an <Error> body (CompleteMultipartUpload does
 * that) counts as that error. 0 on a 2xx answer, else -1 with err filled
 * (see objstore.h). */
int s3_call(struct s3_client *c, const struct s3_request *r, struct s3_response *resp,
            struct hl_error *err);

#endif
