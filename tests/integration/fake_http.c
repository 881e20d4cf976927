#include "fake_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/sha256.h"

enum { HEAD_MAX = 16384, BODY_MAX = 64 << 20 };

/* Reads until the end of the headers; returns the header length (through
 * the blank line) or -1. *have is what was read so far. */
static long read_head(int fd, char *buf, size_t cap, size_t *have)
{
    *have = 0;
    while (*have < cap - 1) {
        ssize_t n = read(fd, buf + *have, cap - 1 - *have);
        if (n <= 0)
            return -1;
        *have += (size_t)n;
        buf[*have] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (end)
            return (long)(end + 4 - buf);
    }
    return -1;
}

static void header_value(const char *head, const char *name, char *out, size_t cap)
{
    out[0] = '\0';
    size_t nl = strlen(name);
    for (const char *p = strstr(head, "\r\n"); p; p = strstr(p + 2, "\r\n")) {
        if (strncasecmp(p + 2, name, nl) == 0 && p[2 + nl] == ':') {
            const char *v = p + 3 + nl;
            while (*v == ' ')
                v++;
            const char *e = strstr(v, "\r\n");
            size_t n = e ? (size_t)(e - v) : strlen(v);
            if (n >= cap)
                n = cap - 1;
            memcpy(out, v, n);
            out[n] = '\0';
            return;
        }
    }
}

static void serve(struct fake_http *f, int fd)
{
    char *head = malloc(HEAD_MAX);
    if (!head)
        return;
    size_t have = 0;
    long head_len = read_head(fd, head, HEAD_MAX, &have);
    if (head_len < 0) {
        free(head);
        return;
    }
    struct fake_request r;
    memset(&r, 0, sizeof r);
    sscanf(head, "%15s %511s", r.method, r.target);
    header_value(head, "Authorization", r.authorization, sizeof r.authorization);
    char cl[32];
    header_value(head, "Content-Length", cl, sizeof cl);
    size_t want = cl[0] ? (size_t)strtoull(cl, NULL, 10) : 0;
    if (want > BODY_MAX)
        want = BODY_MAX;
    char *body = malloc(want + 1);
    size_t got = have - (size_t)head_len;
    if (body && got > want)
        got = want;
    if (body)
        memcpy(body, head + head_len, got);
    while (body && got < want) {
        ssize_t n = read(fd, body + got, want - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    free(head);
    r.body_len = got;
    sha256_hex(body ? body : "", body ? got : 0, r.body_sha256);
    free(body);

    pthread_mutex_lock(&f->mu);
    size_t i = f->n_requests;
    if (i < FAKE_MAX_REQUESTS)
        f->requests[f->n_requests++] = r;
    pthread_mutex_unlock(&f->mu);

    struct fake_answer a;
    memset(&a, 0, sizeof a);
    a.status = 200;
    f->handler(f->ctx, i, &r, &a);
    if (a.status == 0) {
        for (int waited = 0; waited < a.hold_ms && !f->stop; waited += 20)
            poll(NULL, 0, 20);
        return;
    }
    char out[4096];
    int n = snprintf(out, sizeof out,
                     "HTTP/1.1 %d Status\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n%s",
                     a.status, strcmp(r.method, "HEAD") == 0 ? 0 : strlen(a.body), a.headers,
                     strcmp(r.method, "HEAD") == 0 ? "" : a.body);
    /* MSG_NOSIGNAL: a client that gave up must not kill the test with SIGPIPE. */
    if (n > 0 && send(fd, out, (size_t)n, MSG_NOSIGNAL) < 0)
        return;
}

static void *run(void *ud)
{
    struct fake_http *f = ud;
    while (!f->stop) {
        struct pollfd p = {f->listen_fd, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0)
            continue;
        int fd = accept(f->listen_fd, NULL, NULL);
        if (fd < 0)
            continue;
        serve(f, fd);
        close(fd);
    }
    return NULL;
}

void fake_http_start(struct fake_http *f, fake_handler handler, void *ctx)
{
    memset(f, 0, sizeof *f);
    f->handler = handler;
    f->ctx = ctx;
    pthread_mutex_init(&f->mu, NULL);
    f->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (f->listen_fd < 0)
        fail_msg("socket: %s", strerror(errno));
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    if (bind(f->listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(f->listen_fd, 16) != 0 ||
        getsockname(f->listen_fd, (struct sockaddr *)&sa, &len) != 0)
        fail_msg("fake server: %s", strerror(errno));
    f->port = ntohs(sa.sin_port);
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%d", f->port);
    if (pthread_create(&f->thread, NULL, run, f) != 0)
        fail_msg("pthread_create failed");
}

void fake_http_stop(struct fake_http *f)
{
    f->stop = true;
    pthread_join(f->thread, NULL);
    close(f->listen_fd);
    pthread_mutex_destroy(&f->mu);
}

size_t fake_http_count(struct fake_http *f)
{
    pthread_mutex_lock(&f->mu);
    size_t n = f->n_requests;
    pthread_mutex_unlock(&f->mu);
    return n;
}

struct fake_request fake_http_request(struct fake_http *f, size_t i)
{
    pthread_mutex_lock(&f->mu);
    struct fake_request r = f->requests[i < f->n_requests ? i : 0];
    pthread_mutex_unlock(&f->mu);
    return r;
}
