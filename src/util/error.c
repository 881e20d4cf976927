#include "util/error.h"

#include <stdio.h>
#include <string.h>

#include "util/strutil.h"

hl_status error_setv(struct hl_error *err, hl_status status, int http, bool retryable,
                     const char *code, const char *fmt, va_list ap)
{
    if (!err)
        return status;
    memset(err, 0, sizeof *err);
    err->status = status;
    err->http_status = http;
    err->retryable = retryable;
    str_copy(err->code, sizeof err->code, code);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return status;
}

hl_status error_set(struct hl_error *err, hl_status status, int http, bool retryable,
                    const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_setv(err, status, http, retryable, code, fmt, ap);
    va_end(ap);
    return status;
}
