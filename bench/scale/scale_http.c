/* See scale_http.h. */
#include "scale_http.h"

#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void scale_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("scale: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

unsigned long long scale_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

void scale_buf_reserve(struct scale_buf *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p)
        scale_die("out of memory for a %zu-byte buffer", cap);
    b->p = p;
    b->cap = cap;
}

void scale_buf_printf(struct scale_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        scale_die("cannot format '%.40s'", fmt);
    scale_buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    struct scale_http *h = userdata;
    size_t n = size * nmemb;
    scale_buf_reserve(&h->resp, n);
    memcpy(h->resp.p + h->resp.len, ptr, n);
    h->resp.len += n;
    h->resp.p[h->resp.len] = '\0';
    return n;
}

void scale_http_open(struct scale_http *h, const char *base_url, const char *auth_header)
{
    memset(h, 0, sizeof *h);
    if (snprintf(h->base, sizeof h->base, "%s", base_url) >= (int)sizeof h->base)
        scale_die("the URL %s is too long", base_url);
    CURL *c = curl_easy_init();
    if (!c)
        scale_die("curl_easy_init failed");
    h->curl = c;
    h->headers = curl_slist_append(NULL, "Content-Type: application/json");
    if (h->headers && auth_header[0])
        h->headers = curl_slist_append(h->headers, auth_header);
    if (!h->headers)
        scale_die("out of memory for the request headers");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
    curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 600L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    scale_buf_reserve(&h->resp, 0);
    h->resp.p[0] = '\0';
}

long scale_http_send(struct scale_http *h, const char *method, const char *path, const char *body,
                     size_t body_len)
{
    CURL *c = h->curl;
    char url[4096];
    if (snprintf(url, sizeof url, "%s%s", h->base, path) >= (int)sizeof url)
        scale_die("the request path %.64s... is too long", path);
    h->resp.len = 0;
    h->resp.p[0] = '\0';
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    } else {
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, strcmp(method, "GET") ? method : NULL);
    }
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) {
        scale_buf_printf(&h->resp, "%s", curl_easy_strerror(rc));
        return 0;
    }
    long status = 0, connects = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &connects);
    h->connects += connects;
    return status;
}

void scale_http_close(struct scale_http *h)
{
    if (h->curl)
        curl_easy_cleanup(h->curl);
    curl_slist_free_all(h->headers);
    free(h->resp.p);
    memset(h, 0, sizeof *h);
}
