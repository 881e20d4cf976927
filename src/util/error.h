/* Filling the public error record (include/hoglake/error.h) from inside
 * the tree: one filler for every module that reports through it (the
 * client, the object store, the exporter). */
#ifndef HL_UTIL_ERROR_H
#define HL_UTIL_ERROR_H

#include <stdarg.h>
#include <stdbool.h>

#include "hoglake/error.h"

/* Clears *err (when not NULL) and sets its status, HTTP status (0: no
 * answer), retry advice, code and formatted message; returns status. */
hl_status error_setv(struct hl_error *err, hl_status status, int http, bool retryable,
                     const char *code, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
hl_status error_set(struct hl_error *err, hl_status status, int http, bool retryable,
                    const char *code, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
