/* Process log: one line per event on stderr, safe from any thread. */
#ifndef HL_UTIL_LOG_H
#define HL_UTIL_LOG_H

#include <stddef.h>

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

void log_set_level(enum log_level level);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One record line "<time> info  <logger> <text>" (text: len bytes, no
 * newline), whatever the level: for records such as the audit trail,
 * which are not diagnostics. No length limit. */
void log_record(const char *logger, const char *text, size_t len);

/* Where a module's diagnostics go when its owner chooses (libhoglake's
 * caller does; the server leaves fn NULL, meaning the process log). */
struct log_sink {
    void (*fn)(void *ctx, enum log_level level, const char *message);
    void *ctx;
};

/* Formats one line and hands it to the sink's fn, or to the process log
 * when sink or its fn is NULL. */
void log_to(const struct log_sink *sink, enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

#endif
