#include "server/auth/audit.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/metrics.h"
#include "util/log.h"
#include "util/strutil.h"
#include "util/timefmt.h"

/* Lines waiting for the writer; past this, new lines are dropped rather
 * than let a stuck disk grow the process without bound. */
enum { AUDIT_QUEUE_MAX = 10000 };

enum sink { SINK_LOG, SINK_STDERR, SINK_FILE };

struct line {
    struct line *next;
    char text[]; /* with its newline */
};

struct audit {
    enum sink sink;
    char *path;
    struct metrics *metrics;
    pthread_t writer;
    pthread_mutex_t mu;
    pthread_cond_t ready;
    struct line *head, *tail;
    int queued;
    bool stopping;
    /* Writer-thread only. */
    int fd;
    int64_t last_open_attempt_us;
    int64_t last_warning_us;
};

/* A JSON string of s; text that is not valid UTF-8 is sanitised first, so
 * a name never drops a line. */
static json_t *text_value(const char *s)
{
    json_t *v = json_string(s);
    if (v)
        return v;
    char *copy = strdup(s);
    if (!copy)
        return NULL;
    str_utf8_sanitize(copy);
    v = json_string(copy);
    free(copy);
    return v;
}

static int set_text(json_t *o, const char *key, const char *s)
{
    if (!s)
        return 0;
    json_t *v = text_value(s);
    return v ? json_object_set_new(o, key, v) : -1;
}

static json_t *actor_json(const struct audit_actor *actor)
{
    static const struct audit_actor server = {NULL, "hoglaked"};
    if (!actor)
        actor = &server;
    json_t *o = json_object();
    if (o &&
        (json_object_set_new(o, "token_id",
                             actor->token_id ? text_value(actor->token_id) : json_null()) != 0 ||
         set_text(o, "name", actor->name ? actor->name : "anonymous") != 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

char *audit_format(const struct audit_event *ev, int64_t time_us)
{
    char when[48];
    time_format_iso8601(time_us, when, sizeof when);
    json_t *o = json_object();
    if (!o)
        return NULL;
    char *out = NULL;
    /* JSON_PRESERVE_ORDER keeps the fields in this order, which is what a
     * person reading the file expects. */
    if (set_text(o, "time", when) == 0 && set_text(o, "action", ev->action) == 0 &&
        json_object_set_new(o, "actor", actor_json(ev->actor)) == 0 &&
        set_text(o, "outcome", ev->outcome) == 0 && set_text(o, "catalog", ev->catalog) == 0 &&
        set_text(o, "object", ev->object) == 0 &&
        (!ev->detail || json_object_set(o, "detail", (json_t *)ev->detail) == 0) &&
        set_text(o, "request_id", ev->request_id) == 0)
        out = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return out;
}

const char *audit_outcome(int status, const char *code, const char *success)
{
    if (status < 400)
        return success;
    if (code &&
        (strcmp(code, "ddl_since_read_snapshot") == 0 || strcmp(code, "table_recreated") == 0))
        return code;
    if (code && strcmp(code, "offset_regression") == 0)
        return "regression";
    switch (status) {
    case 409: return "conflict";
    case 404: return "not_found";
    case 400:
    case 410:
    case 413:
    case 422: return "validation";
    case 503: return "timeout";
    default: return "error";
    }
}

static void count(struct audit *a, const char *family)
{
    if (a->metrics)
        metrics_counter_add(a->metrics, family, "", 1);
}

/* Rate-limited: a broken destination must not flood the process log. */
static void warn_failure(struct audit *a, const char *what, int errnum)
{
    int64_t now = time_now_micros();
    if (a->last_warning_us && now - a->last_warning_us < 60 * 1000000LL)
        return;
    a->last_warning_us = now;
    log_warn("audit log %s: %s: %s (lines are counted in hoglake_audit_write_failures_total)",
             a->path, what, strerror(errnum));
}

static bool ensure_open(struct audit *a)
{
    if (a->fd >= 0)
        return true;
    int64_t now = time_now_micros();
    if (a->last_open_attempt_us && now - a->last_open_attempt_us < 1000000)
        return false;
    a->last_open_attempt_us = now;
    a->fd = open(a->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (a->fd < 0) {
        warn_failure(a, "cannot open", errno);
        return false;
    }
    return true;
}

/* One write(2) for the whole line; a short write (disk full mid-line) is
 * finished so the file never holds half a line followed by the next. */
static bool write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        s += w;
        n -= (size_t)w;
    }
    return true;
}

static void write_line(struct audit *a, const struct line *l)
{
    size_t n = strlen(l->text);
    switch (a->sink) {
    case SINK_LOG: log_record("hoglake.audit", l->text, n - 1); return;
    case SINK_STDERR: fputs(l->text, stderr); return;
    case SINK_FILE:
        if (!ensure_open(a)) {
            count(a, "hoglake_audit_write_failures_total");
            return;
        }
        if (!write_all(a->fd, l->text, n)) {
            int e = errno;
            count(a, "hoglake_audit_write_failures_total");
            warn_failure(a, "cannot write", e);
            /* Reopened for the next line: the file may have been moved. */
            close(a->fd);
            a->fd = -1;
        }
        return;
    }
}

static void *writer_main(void *arg)
{
    struct audit *a = arg;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        while (!a->head && !a->stopping)
            pthread_cond_wait(&a->ready, &a->mu);
        struct line *batch = a->head;
        a->head = a->tail = NULL;
        a->queued = 0;
        bool stop = a->stopping;
        pthread_mutex_unlock(&a->mu);
        while (batch) {
            struct line *next = batch->next;
            write_line(a, batch);
            free(batch);
            batch = next;
        }
        pthread_mutex_lock(&a->mu);
        if (stop && !a->head)
            break;
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* Frees a sink whose writer is not running. */
static void release(struct audit *a)
{
    if (a->fd >= 0)
        close(a->fd);
    pthread_cond_destroy(&a->ready);
    pthread_mutex_destroy(&a->mu);
    free(a->path);
    free(a);
}

struct audit *audit_open(const char *path, struct metrics *metrics)
{
    struct audit *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->fd = -1;
    a->metrics = metrics;
    if (!path || !path[0]) {
        a->sink = SINK_LOG;
    } else if (strcmp(path, "-") == 0) {
        a->sink = SINK_STDERR;
    } else {
        a->sink = SINK_FILE;
        if (!(a->path = strdup(path))) {
            free(a);
            return NULL;
        }
    }
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->ready, NULL);
    if (a->sink == SINK_FILE) {
        /* Opened now so a wrong path is reported at start; not fatal. */
        ensure_open(a);
    }
    if (pthread_create(&a->writer, NULL, writer_main, a) != 0) {
        release(a);
        return NULL;
    }
    return a;
}

void audit_close(struct audit *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    a->stopping = true;
    pthread_cond_signal(&a->ready);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->writer, NULL);
    release(a);
}

void audit_emit(struct audit *a, const struct audit_event *ev)
{
    if (!a || !ev->action || !ev->outcome)
        return;
    char *text = audit_format(ev, time_now_micros());
    if (!text) {
        count(a, "hoglake_audit_lines_dropped_total");
        return;
    }
    size_t n = strlen(text);
    struct line *l = malloc(sizeof *l + n + 2);
    if (!l) {
        free(text);
        count(a, "hoglake_audit_lines_dropped_total");
        return;
    }
    l->next = NULL;
    memcpy(l->text, text, n);
    l->text[n] = '\n';
    l->text[n + 1] = '\0';
    free(text);
    pthread_mutex_lock(&a->mu);
    bool full = a->queued >= AUDIT_QUEUE_MAX;
    if (!full) {
        if (a->tail)
            a->tail->next = l;
        else
            a->head = l;
        a->tail = l;
        a->queued++;
        pthread_cond_signal(&a->ready);
    }
    pthread_mutex_unlock(&a->mu);
    if (full) {
        free(l);
        count(a, "hoglake_audit_lines_dropped_total");
    }
}
