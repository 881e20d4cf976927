/* One keep-alive HTTP connection to hoglaked for the scale benchmark's
 * tools: a libcurl easy handle reused across requests, the bearer header,
 * and a growing response buffer. Not thread-safe: one per thread. */
#ifndef HL_SCALE_HTTP_H
#define HL_SCALE_HTTP_H

#include <stddef.h>

struct curl_slist;

/* A growing text buffer, NUL-terminated once anything is written; out of
 * memory ends the process (scale_die). */
struct scale_buf {
    char *p;
    size_t len, cap;
};
void scale_buf_reserve(struct scale_buf *b, size_t more);
void scale_buf_printf(struct scale_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct scale_http {
    void *curl; /* CURL * */
    struct curl_slist *headers;
    char base[512];        /* http://host:port */
    struct scale_buf resp; /* the last response body, NUL-terminated */
    long connects;         /* TCP connections opened so far */
};

/* Opens the handle for base_url with the auth header line ("" for none).
 * Exits with status 2 when libcurl cannot be set up. */
void scale_http_open(struct scale_http *h, const char *base_url, const char *auth_header);

/* Sends METHOD base+path with body (NULL: none) and returns the HTTP status,
 * 0 on a transport error (h->resp.p then holds libcurl's message). */
long scale_http_send(struct scale_http *h, const char *method, const char *path, const char *body,
                     size_t body_len);

void scale_http_close(struct scale_http *h);

/* Monotonic nanoseconds. */
unsigned long long scale_now_ns(void);

/* Prints "scale: <message>" on stderr and exits with status 2. */
void scale_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
