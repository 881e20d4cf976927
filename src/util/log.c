#include "util/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static _Atomic int current_level = LOG_INFO;

void log_set_level(enum log_level level)
{
    atomic_store(&current_level, (int)level);
}

/* "<time> <level> " into out; returns its length. */
static int prefix(char *out, size_t size, enum log_level level)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    return snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %-5s ", tm.tm_year + 1900,
                    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                    ts.tv_nsec / 1000000, names[level]);
}

void log_record(const char *logger, const char *text, size_t len)
{
    char head[64];
    prefix(head, sizeof head, LOG_INFO);
    /* One fprintf per line, as log_msg. */
    fprintf(stderr, "%s%s %.*s\n", head, logger, (int)len, text);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    if ((int)level < atomic_load(&current_level))
        return;
    char line[2048];
    int n = prefix(line, sizeof line, level);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line)
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One fputs per line: stdio's stream lock keeps lines from interleaving. */
    fprintf(stderr, "%s\n", line);
}

void log_to(const struct log_sink *sink, enum log_level level, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (sink && sink->fn)
        sink->fn(sink->ctx, level, line);
    else
        log_msg(level, "%s", line);
}
