/* OpenTelemetry-shaped JSON lines for tracing spans (see spans.h). */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/spans.h"
#include "util/random.h"

struct tracer {
    FILE *out;
    bool owned; /* opened here (closed with the tracer) */
    char *service;
    pthread_mutex_t lock;
};

struct span {
    struct tracer *t;
    char name[128];
    char trace_id[33], span_id[17], parent_id[17];
    struct timespec start;
    json_t *attributes;
    bool failed;
    char description[512];
};

int tracer_open(const char *dest, const char *service, struct tracer **out)
{
    *out = NULL;
    if (!dest || !*dest)
        return 0;
    struct tracer *t = calloc(1, sizeof *t);
    if (!t || !(t->service = strdup(service ? service : "hoglake"))) {
        free(t);
        errno = ENOMEM;
        return -1;
    }
    if (strcmp(dest, "-") == 0) {
        t->out = stderr;
    } else if (!(t->out = fopen(dest, "a"))) {
        int e = errno;
        free(t->service);
        free(t);
        errno = e;
        return -1;
    } else {
        t->owned = true;
    }
    pthread_mutex_init(&t->lock, NULL);
    *out = t;
    return 0;
}

void tracer_close(struct tracer *t)
{
    if (!t)
        return;
    if (t->owned)
        fclose(t->out);
    else
        fflush(t->out);
    pthread_mutex_destroy(&t->lock);
    free(t->service);
    free(t);
}

/* Random lowercase hex of 2 * n digits (ids need not be secret, only
 * unlikely to collide; an all-zero id is invalid in OpenTelemetry). */
static void random_hex(char *out, size_t n)
{
    uint8_t b[16] = {0};
    if (random_bytes_nonblocking(b, n) != 0) {
        /* No entropy yet: the clock keeps ids distinct enough for a trace. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)out;
        for (size_t i = 0; i < n; i++, x = x * 6364136223846793005ULL + 1442695040888963407ULL)
            b[i] = (uint8_t)(x >> 56);
    }
    b[0] |= 1;
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

struct span *span_start(struct tracer *t, const char *name, const struct span *parent)
{
    if (!t)
        return NULL;
    struct span *s = calloc(1, sizeof *s);
    if (!s || !(s->attributes = json_object())) {
        free(s);
        return NULL;
    }
    s->t = t;
    snprintf(s->name, sizeof s->name, "%s", name);
    if (parent) {
        memcpy(s->trace_id, parent->trace_id, sizeof s->trace_id);
        memcpy(s->parent_id, parent->span_id, sizeof s->parent_id);
    } else {
        random_hex(s->trace_id, 16);
    }
    random_hex(s->span_id, 8);
    clock_gettime(CLOCK_REALTIME, &s->start);
    return s;
}

void span_attr_str(struct span *s, const char *key, const char *value)
{
    if (s && value)
        json_object_set_new(s->attributes, key, json_string(value));
}

void span_attr_int(struct span *s, const char *key, int64_t value)
{
    if (s)
        json_object_set_new(s->attributes, key, json_integer(value));
}

void span_fail(struct span *s, const char *error_kind, const char *description)
{
    if (!s)
        return;
    s->failed = true;
    snprintf(s->description, sizeof s->description, "%s", description ? description : "");
    span_attr_str(s, "error_kind", error_kind);
}

/* ISO-8601 UTC with nanoseconds, as the console exporter prints. */
static void iso_time(const struct timespec *ts, char *out, size_t size)
{
    struct tm tm;
    gmtime_r(&ts->tv_sec, &tm);
    char day[32];
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, size, "%s.%09ldZ", day, ts->tv_nsec);
}

void span_end(struct span *s)
{
    if (!s)
        return;
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    char start_text[48], end_text[48];
    iso_time(&s->start, start_text, sizeof start_text);
    iso_time(&end, end_text, sizeof end_text);
    json_t *status =
        s->failed ? json_pack("{s:s, s:s}", "status_code", "ERROR", "description", s->description)
                  : json_pack("{s:s}", "status_code", "OK");
    json_t *line =
        json_pack("{s:s, s:{s:s, s:s}, s:s, s:s*, s:s, s:s, s:o, s:O, s:{s:{s:s}}}", "name",
                  s->name, "context", "trace_id", s->trace_id, "span_id", s->span_id, "kind",
                  "SpanKind.INTERNAL", "parent_id", s->parent_id[0] ? s->parent_id : NULL,
                  "start_time", start_text, "end_time", end_text, "status", status, "attributes",
                  s->attributes, "resource", "attributes", "service.name", s->t->service);
    char *text = line ? json_dumps(line, JSON_COMPACT) : NULL;
    if (text) {
        pthread_mutex_lock(&s->t->lock);
        fprintf(s->t->out, "%s\n", text);
        fflush(s->t->out);
        pthread_mutex_unlock(&s->t->lock);
    }
    free(text);
    json_decref(line);
    json_decref(s->attributes);
    free(s);
}
